"""What the notes pages ask of the library (pure): filter and search the notes of a
repository, order them, find a note's related notes, count notes per topic."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date

from bot.library import Library
from bot.notes import Note, Topic, Verdict
from bot.prfacts import DEFAULT_REPO
from bot.search import FILTER, filter_words, search_notes

RELATED_LIMIT = 8
MAX_QUERY_CHARS = 200


class QueryError(ValueError):
    """A filter value the library cannot answer; shown to the user as a 400."""


@dataclass(frozen=True)
class NoteQuery:
    repo: str = DEFAULT_REPO
    topic: str = ""
    verdict: Verdict | None = None
    q: str = ""


def parse_query(library: Library, *, repo: str, topic: str, verdict: str, q: str) -> NoteQuery:
    """Validate raw GET parameters; empty means "no filter" (what a blank form sends)."""
    repo, topic, verdict, q = repo.strip() or DEFAULT_REPO, topic.strip(), verdict.strip(), q
    if topic and topic not in library.topics:
        raise QueryError(f"unknown topic {topic!r}; see the topics page for the list")
    if verdict and verdict not in set(Verdict):
        raise QueryError(f"unknown verdict {verdict!r}; use one of: {', '.join(Verdict)}")
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError(f"search text is longer than {MAX_QUERY_CHARS} characters")
    return NoteQuery(repo=repo, topic=topic, verdict=Verdict(verdict) if verdict else None, q=q)


def newest_first(notes: Iterable[Note]) -> list[Note]:
    """Newest created date first (undated last); ties by id, ascending."""
    by_id = sorted(notes, key=lambda n: n.id)
    return sorted(by_id, key=lambda n: n.created or date.min, reverse=True)  # stable


def find_notes(library: Library, query: NoteQuery) -> list[Note]:
    """The notes of query.repo that pass every filter, newest first. The search is
    `bot.search`'s FILTER: each term a substring (so Chinese needs no word
    splitting), every term must occur."""
    found = [
        n
        for n in library.for_repo(query.repo)
        if (not query.topic or query.topic in n.topics)
        and (query.verdict is None or n.verdict == query.verdict)
    ]
    if query.q.strip():
        found = [hit.note for hit in search_notes(found, query.q, FILTER, topics=library.topics)]
    return newest_first(found)


@dataclass(frozen=True)
class NoMatch:
    """What a list that found nothing finds when asked less: every word must occur and
    the topic and verdict chosen hold, so the reader is shown which part found nothing."""

    words: tuple[tuple[str, int], ...]  # each word of a search of two or more, as typed,
    # and how many notes it finds alone (the topic and verdict kept)
    unfiltered: int  # notes the search finds in any topic and verdict (0: none chosen)


def no_match(library: Library, query: NoteQuery) -> NoMatch:
    """For a query `find_notes` found nothing for: what its parts find alone."""
    words = filter_words(query.q)
    alone = (
        tuple((w, len(find_notes(library, replace(query, q=w)))) for w in words)
        if len(words) > 1
        else ()
    )
    filtered = bool(query.topic or query.verdict)
    anywhere = replace(query, topic="", verdict=None)
    unfiltered = len(find_notes(library, anywhere)) if filtered and words else 0
    return NoMatch(words=alone, unfiltered=unfiltered)


@dataclass(frozen=True)
class Related:
    note: Note
    shared: tuple[str, ...]  # topic ids, in the order of the page's note


def related_notes(library: Library, note: Note, limit: int = RELATED_LIMIT) -> list[Related]:
    """Other notes of the same repo sharing a topic: most shared topics first, then the
    stronger verdict, then newest."""
    candidates: dict[str, Note] = {}
    for t in note.topics:
        for other in library.by_topic.get(t, ()):
            if other.id != note.id and other.repo.lower() == note.repo.lower():
                candidates[other.id] = other
    related = [
        Related(other, tuple(t for t in note.topics if t in other.topics))
        for other in newest_first(candidates.values())
    ]
    related.sort(key=lambda r: (-len(r.shared), r.note.verdict.rank))  # stable: newest kept
    return related[:limit]


def topic_counts(library: Library, repo: str) -> list[tuple[Topic, int]]:
    """Every taxonomy topic in file order with its number of notes in `repo`."""
    counts = dict.fromkeys(library.topics, 0)
    for n in library.for_repo(repo):
        for t in n.topics:
            counts[t] = counts.get(t, 0) + 1
    return [(topic, counts[tid]) for tid, topic in library.topics.items()]

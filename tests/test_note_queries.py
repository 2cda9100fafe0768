"""The notes pages' queries, pure: no server (the pages themselves: test_pages)."""

from __future__ import annotations

from datetime import date

import pytest

from bot.library import load_library
from bot.note_queries import (
    DEFAULT_REPO,
    MAX_QUERY_CHARS,
    NoMatch,
    NoteQuery,
    QueryError,
    find_notes,
    newest_first,
    no_match,
    parse_query,
    related_notes,
    topic_counts,
)
from bot.notes import Verdict


@pytest.fixture(scope="module")
def library():
    return load_library()  # the shipped notes


def test_a_blank_form_means_no_filter_and_the_default_repository(library):
    query = parse_query(library, repo="  ", topic=" ", verdict="", q="")
    assert query == NoteQuery(repo=DEFAULT_REPO)
    assert len(find_notes(library, query)) == len(library.for_repo(DEFAULT_REPO)) > 0


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("topic", "no-such-topic", "unknown topic 'no-such-topic'"),
        ("verdict", "maybe", "unknown verdict 'maybe'"),
        ("q", "x" * (MAX_QUERY_CHARS + 1), f"longer than {MAX_QUERY_CHARS}"),
    ],
)
def test_a_filter_the_library_cannot_answer_is_refused_with_its_value(library, field, value, says):
    raw = dict(repo="", topic="", verdict="", q="") | {field: value}
    with pytest.raises(QueryError, match=says):
        parse_query(library, **raw)


# kills: bot/note_queries.py:parse_query a search text of exactly MAX_QUERY_CHARS characters refused
def test_a_search_text_of_the_longest_length_allowed_is_searched(library):
    q = "x" * MAX_QUERY_CHARS
    assert parse_query(library, repo="", topic="", verdict="", q=q) == NoteQuery(q=q)


def test_filters_keep_only_notes_that_pass_every_one_newest_first(library):
    topic = next(t for t in library.topics if len(library.by_topic.get(t, ())) > 1)
    for verdict in Verdict:
        query = NoteQuery(topic=topic, verdict=verdict)
        found = find_notes(library, query)
        assert all(topic in n.topics and n.verdict is verdict for n in found)
        dates = [n.created or date.min for n in found]
        assert dates == sorted(dates, reverse=True)
    every = {n.id for v in Verdict for n in find_notes(library, NoteQuery(topic=topic, verdict=v))}
    assert every == {n.id for n in library.by_topic[topic] if n.repo.lower() == DEFAULT_REPO}


def test_search_needs_every_term(library):
    note = library.notes[0]
    one_word = note.title_en.split()[0]
    assert note in find_notes(library, NoteQuery(repo=note.repo, q=one_word))
    assert find_notes(library, NoteQuery(repo=note.repo, q=f"{one_word} zzqqxx-nowhere")) == []


def test_newest_first_undated_last_and_ties_by_id(library):
    a = library.notes[0]

    def dated(note_id: str, created: date | None):
        return a.model_copy(update=dict(id=note_id, created=created))

    notes = [
        dated("a-undated", None),
        dated("b-2", date(2025, 1, 1)),
        dated("b-1", date(2025, 1, 1)),
        dated("c-new", date(2026, 1, 1)),
    ]
    assert [n.id for n in newest_first(notes)] == ["c-new", "b-1", "b-2", "a-undated"]


def test_related_notes_share_a_topic_most_shared_first(library):
    note = max(library.notes, key=lambda n: len(n.topics))
    related = related_notes(library, note, limit=100)
    assert related and all(r.note.id != note.id for r in related)
    for r in related:
        assert r.shared and set(r.shared) == set(note.topics) & set(r.note.topics)
    shared = [len(r.shared) for r in related]
    assert shared == sorted(shared, reverse=True)
    assert len(related_notes(library, note, limit=1)) == 1


def test_topic_counts_cover_the_whole_taxonomy_in_file_order(library):
    rows = topic_counts(library, DEFAULT_REPO)
    assert [t.id for t, _ in rows] == list(library.topics)
    notes = library.for_repo(DEFAULT_REPO)
    assert sum(n for _, n in rows) == sum(len(x.topics) for x in notes)
    assert all(n == 0 for _, n in topic_counts(library, "someone/else"))


# --- a search that finds nothing says what its parts find ------------------------


def _found(library, **query) -> int:
    return len(find_notes(library, NoteQuery(**query)))


# kills: bot/note_queries.py:no_match (hand) words counted for a search of one word, or over
#   every topic: the hint named the word the page already said found nothing, or counts the
#   list the reader chose did not hold
def test_a_search_finding_nothing_names_what_each_word_finds_alone(library):
    eagle, deadlock = _found(library, q="EAGLE"), _found(library, q="死锁")
    assert eagle and deadlock and not _found(library, q="EAGLE, 死锁 zzz")
    words = (("EAGLE", eagle), ("死锁", deadlock), ("zzz", 0))  # as typed, in order
    assert no_match(library, NoteQuery(q="EAGLE, 死锁 zzz eagle")) == NoMatch(words, 0)
    assert no_match(library, NoteQuery(q="zzz")) == NoMatch((), 0)  # one word: said already
    assert no_match(library, NoteQuery(q='"eagle" eagle')) == NoMatch((), 0)  # one word twice
    assert no_match(library, NoteQuery(q="zzz ...")) == NoMatch((), 0)  # `...` asks nothing
    topic = next(t for t in library.topics if not library.by_topic.get(t))  # no notes
    assert no_match(library, NoteQuery(topic=topic, q="EAGLE 死锁")) == NoMatch(
        (("EAGLE", 0), ("死锁", 0)), 0
    )


# kills: bot/note_queries.py:no_match (hand) the search counted under the topic and verdict
#   chosen: the hint said none, though the notes were there in another topic
def test_a_filtered_search_finding_nothing_counts_the_notes_it_finds_unfiltered(library):
    deadlock = find_notes(library, NoteQuery(q="死锁"))
    assert deadlock
    topic = next(t for t in library.topics if not library.by_topic.get(t))  # no notes
    other = next(v for v in Verdict if all(n.verdict != v for n in deadlock))
    for query in (NoteQuery(topic=topic, q="死锁"), NoteQuery(verdict=other, q="死锁")):
        assert not find_notes(library, query)
        assert no_match(library, query) == NoMatch((), len(deadlock))
    assert no_match(library, NoteQuery(topic=topic)) == NoMatch((), 0)  # no search: nothing
    assert no_match(library, NoteQuery(topic=topic, q="...")) == NoMatch((), 0)

"""The notes pages' queries, pure: no server (the pages themselves: test_pages)."""

from __future__ import annotations

from datetime import date

import pytest

from bot.library import load_library
from bot.note_queries import (
    DEFAULT_REPO,
    MAX_QUERY_CHARS,
    NoteQuery,
    QueryError,
    find_notes,
    newest_first,
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

"""Failing tests for defects found by review 'r21e' (of b776eb7 and cec9002).

Each test is one defect: the comment above it says what a user sees and why it is wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.library import DEFAULT_TOPICS_FILE, load_library
from bot.note_files import LibraryError
from tests.test_library_changes import library_copy, rename_note, retire
from tests.test_pages import client_for


def add_formerly(notes: Path, note_id: str, *former: str) -> None:
    """A curator lists ids the note had before (`formerly = [...]`, README)."""
    path = notes / f"{note_id}.md"
    text = path.read_text(encoding="utf-8")
    listed = ", ".join(f'"{f}"' for f in former)
    line = f'id = "{note_id}"\nformerly = [{listed}]\n'
    path.write_text(text.replace(f'id = "{note_id}"\n', line), "utf-8")


# --- the curators' report with a renamed, then retired note --------------------------------


def test_the_curators_report_loads_titles_with_a_renamed_then_retired_note(tmp_path):
    # A curator renames vllm-0436d44c to vllm-renamed01, later retires it (both
    # supported, README). b776eb7 builds `Library.renamed` from retired notes too, so
    # it maps vllm-0436d44c -> vllm-renamed01, a retired note. `_note_titles` (the
    # titles of `review-notes notes feedback`) looks `titles[now]` up among the notes
    # in use only, before adding the retired ones: KeyError 'vllm-renamed01'. What a
    # curator sees: `notes feedback` dies with a traceback instead of the report.
    from bot.cli import _note_titles

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    retire(notes, "vllm-renamed01")
    titles = _note_titles(str(notes), str(DEFAULT_TOPICS_FILE))
    assert titles["vllm-renamed01"].endswith("(retired)")
    assert "vllm-renamed01" in titles["vllm-0436d44c"]


# --- a former id two notes are found by -----------------------------------------------------


def test_a_former_id_that_is_another_notes_importer_id_is_refused_or_left_to_it(tmp_path):
    # Note vllm-0341d216 is renamed by a curator to vllm-000renamed (its repository and
    # Chinese title kept): README says it "is still found by the id the importer gave
    # it" (vllm-0341d216): PRs it was hidden on keep it hidden, links redirect. Another
    # curator lists `formerly = ["vllm-0341d216"]` on note vllm-0436d44c (a typo, or a
    # merge). README (`formerly`): "An id another note has now is refused", and the
    # check's own words are "a former id names one note"; but the check compares
    # `formerly` with the notes' ids only, not with the ids the importer gave them.
    # `notes check` prints ok; `Library.renamed` keeps whichever note comes last.
    # What users see: old comments' links /notes/vllm-0341d216 redirect to another
    # note's page, and on PRs where a reviewer hid vllm-0341d216 that other note is
    # hidden, and the renamed note is back.
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0341d216", "vllm-000renamed")
    add_formerly(notes, "vllm-0436d44c", "vllm-0341d216")
    try:
        library = load_library(notes, DEFAULT_TOPICS_FILE)
    except LibraryError:
        return  # refused by notes check: fine
    assert library.current_id("vllm-0341d216") == "vllm-000renamed", "another note took its id"


def test_two_notes_listing_one_former_id_are_refused(tmp_path):
    # Two curators each list `formerly = ["vllm-eagle-fix"]` (a merge done twice, a
    # copy-paste of a header). The check's message says "a former id names one note";
    # nothing refuses this one: `notes check` prints ok. What users see: the link
    # /notes/vllm-eagle-fix in posted comments leads to one of the two notes, chosen by
    # the ids' sort order, and a PR where vllm-eagle-fix was hidden hides that one; the
    # curators' report files the marks under it likewise.
    notes = library_copy(tmp_path)
    add_formerly(notes, "vllm-0436d44c", "vllm-eagle-fix")
    add_formerly(notes, "vllm-0341d216", "vllm-eagle-fix")
    with pytest.raises(LibraryError, match="formerly"):
        library = load_library(notes, DEFAULT_TOPICS_FILE)
        raise AssertionError(f"loaded: vllm-eagle-fix -> {library.current_id('vllm-eagle-fix')}")


def test_a_note_whose_id_is_a_renamed_notes_importer_id_is_refused(tmp_path):
    # Note vllm-0341d216 (the importer's id) was renamed to vllm-renamed01; PRs it was
    # hidden on store vllm-0341d216, comments link /notes/vllm-0341d216. A curator
    # later gives another note that freed id (renames vllm-0436d44c to vllm-0341d216).
    # README (`formerly`): "An id another note has now is refused": had the old id been
    # listed in `formerly`, the check would refuse it; as the importer's id it is not
    # checked. `notes check` prints ok. What users see: on every PR where a reviewer
    # hid the first note, it is back and the other note is hidden instead; old links
    # open the other note's page.
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0341d216", "vllm-renamed01")
    rename_note(notes, "vllm-0436d44c", "vllm-0341d216")
    try:
        library = load_library(notes, DEFAULT_TOPICS_FILE)
    except LibraryError:
        return  # refused: fine
    assert library.current_id("vllm-0341d216") == "vllm-renamed01", (
        "the renamed note's importer id names another note now, and nothing said so"
    )


# --- two topics `/notes topic` reads as one, by a name and an id ----------------------------


@pytest.mark.parametrize(
    "old, new",
    [
        # a topic named as another topic's id reads: `/notes topic Elastic EP`
        ('name_en = "Watermarking"', 'name_en = "Elastic EP"'),
        # two topic ids one key apart: `elastic-ep` and `elastic_ep`
        ('id = "watermarking"', 'id = "elastic_ep"'),
    ],
)
def test_check_flags_a_topic_name_or_id_that_notes_topic_reads_as_another_topics(
    tmp_path, old, new
):
    # b776eb7 refuses two topic *names* `/notes topic` reads as one (topic_key), but
    # `/notes topic` matches a topic's id as well as its name (`_find_topic`), and the
    # check compares names with names only. A curator names the watermarking topic
    # "Elastic EP" (or gives it the id `elastic_ep`): `notes check` prints ok. What a
    # reviewer sees: `/notes topic Elastic EP`, typed as the comment prints the
    # watermarking topic, answers with the elastic-ep topic's notes (the first topic in
    # the file whose id or name reads so); the watermarking topic is unreachable.
    from bot.command_replies import _find_topic

    topics = tmp_path / "topics.toml"
    text = DEFAULT_TOPICS_FILE.read_text(encoding="utf-8")
    assert old in text
    topics.write_text(text.replace(old, new, 1), "utf-8")
    if old.startswith("id ="):  # the notes about it name its id
        notes = library_copy(tmp_path)
        for path in notes.glob("*.md"):
            body = path.read_text(encoding="utf-8")
            path.write_text(body.replace('"watermarking"', '"elastic_ep"'), "utf-8")
    else:
        notes = library_copy(tmp_path)
    try:
        library = load_library(notes, topics)
    except LibraryError:
        return  # refused: fine
    if old.startswith("name_en"):
        typed = "Elastic EP"
        moved = next(t for t in library.topics.values() if t.name_en == typed)
    else:
        typed, moved = "elastic_ep", library.topics["elastic_ep"]
    found = _find_topic(library, typed)
    raise AssertionError(
        f"loaded; /notes topic {typed} answers {found and found.id!r}, not {moved.id!r}"
    )

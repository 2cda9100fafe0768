"""The port's own helpers on plain data (bot.github_port): what a payload's ids are read
as, when a file list is short, what a short list says, and what counts a write."""

from __future__ import annotations

import pytest

from bot.github_port import (
    FilesNotReady,
    PRRef,
    counting_writes,
    listed_short,
    own_payload,
    ref_from_payload,
    repository_id,
    write_asked,
)

# --- the port's bounds: ids, short file lists, counted writes, queued payloads ---


# kills: bot/github_port.py:repository_id a repository id of 0 is taken for an id
# kills: bot/github_port.py:repository_id a repository id of 1 is no id
# kills: bot/github_port.py:repository_id the largest id SQLite's INTEGER holds is no id
# kills: bot/github_port.py:_MAX_ID the largest id is one less than SQLite's INTEGER holds
@pytest.mark.parametrize(
    ("found", "kept"),
    [(0, None), (-5, None), (1, 1), (2**63 - 1, 2**63 - 1), (2**63, None)],
)
def test_a_repository_id_is_kept_from_1_to_the_largest_sqlite_integer(found, kept):
    # 0 or less is no GitHub id; above 2**63 - 1 it would overflow the pr_state column
    assert repository_id({"repository": {"id": found, "full_name": "o/r"}}) == kept


# kills: bot/github_port.py:MAX_LISTED_FILES hand: GitHub's cap taken as 2999 files, not 3000
@pytest.mark.parametrize(
    ("listed", "changed", "short"),
    [(2999, 3000, True), (3000, 3000, False), (2999, 5000, True), (3000, 5000, False)],
)
def test_a_list_is_short_below_the_changed_files_up_to_githubs_cap_of_3000(listed, changed, short):
    assert listed_short(listed, changed) is short


# kills: bot/github_port.py:FilesNotReady.__init__ hand: the head a short list was listed at named
# in full
def test_a_short_list_says_how_many_files_and_the_head_it_was_listed_at():
    # the delivery's result: "... at <12 hex>", as `git log --oneline` names a commit
    ref = PRRef("vllm-project/vllm", 7001)
    assert str(FilesNotReady(ref, 3, 5)) == "GitHub listed 3 of 5 changed files"
    listed_at = str(FilesNotReady(ref, 5, 5, at="a" * 40))
    assert listed_at == "GitHub listed 5 files at aaaaaaaaaaaa, not the event's head"


# kills: bot/github_port.py:counting_writes hand: the writes after the block still counted into it
def test_only_the_writes_asked_inside_counting_writes_are_counted():
    with counting_writes() as asked:
        write_asked()
    write_asked()  # a later run on the same thread, outside any count
    assert asked.count == 1


# kills: bot/github_port.py:counting_writes the writes of a count inside another not counted by
#        the outer (a deferred update's write-back sent, taken for none: its prepaid write
#        given back)
def test_a_count_inside_another_counts_into_both():
    with counting_writes() as outer:
        write_asked()
        with counting_writes() as inner:
            write_asked()
            write_asked(landed=False)  # GitHub refused it: sent, none landed
    assert (outer.count, inner.count) == (3, 2)
    assert (outer.landed, inner.landed) == (2, 1)


@pytest.mark.parametrize(
    ("ref", "repo_id"),
    [(PRRef("o/r", 7, 42), 99), (PRRef("o/r", 7), None)],
)
def test_a_payload_the_bot_queues_for_itself_reads_back_as_it_was_made(ref, repo_id):
    payload = own_payload(ref, "recheck", repo_id, {"number": 7, "title": "t"})
    assert ref_from_payload(payload, 7) == ref and repository_id(payload) == repo_id
    assert ref_from_payload(payload, 7).repo_id == repo_id  # sent to GitHub by it
    assert payload["action"] == "recheck" and payload["pull_request"]["title"] == "t"
    assert ("installation" in payload) == (ref.installation_id is not None)

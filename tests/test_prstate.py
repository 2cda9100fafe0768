"""What is remembered per PR follows its repository renamed or transferred
(`bot.prstate.PRStore.follow`): found by the repository's id, moved PR by PR."""

from __future__ import annotations

import json
import threading
from dataclasses import fields, replace

import pytest

from bot.db import Database
from bot.prstate import (
    IDLE_LISTS,
    Moved,
    PendingUpdate,
    PRState,
    PRStore,
    WriteBack,
    WriteBackHistory,
    Writer,
    held_name,
)

OLD, NEW, OTHER = "vllm-project/vllm", "vllm-org/vllm", "someone/vllm"
ID = 186853002  # `repository.id`: a rename or a transfer keeps it


@pytest.fixture
def prs(tmp_path):
    db = Database(tmp_path / "p.sqlite3")
    yield PRStore(db)
    db.close()


def follow(prs: PRStore, repo: str, number: int, repo_id: int = ID) -> Moved:
    """What bot.dispatch does before an event's handler runs."""
    with prs.db.tx() as conn:
        return prs.follow(conn, repo, number, repo_id)


def repos_of(prs: PRStore, table: str) -> list[str]:
    return [r["repo"] for r in prs.db.execute(f"SELECT repo FROM {table} ORDER BY repo")]


def test_a_prs_state_and_replies_follow_its_repository_to_its_new_name(prs):
    follow(prs, OLD, 1)  # its first event marks the PR's state with the repository's id
    prs.update(OLD, 1, comment_id=55, opted_out=True, dismissed=("vllm-aaaa1111",))
    prs.record_reply(OLD, 1, "reply:d1:0", 66, "d1")
    follow(prs, OLD, 2)
    prs.update(OLD, 2, comment_id=77)
    follow(prs, OTHER, 1, ID + 1)  # another repository, the same PR number
    prs.update(OTHER, 1, comment_id=88)

    assert prs.must_follow(NEW, 1, ID)
    moved = follow(prs, NEW, 1)
    assert (moved.old, moved.states, moved.replies, moved.dropped) == ((OLD,), 1, 1, 0)
    state = prs.get(NEW, 1)
    assert (state.comment_id, state.opted_out, state.dismissed) == (55, True, ("vllm-aaaa1111",))
    assert prs.get(OLD, 1) == PRState(OLD, 1)  # nothing left under the old name
    assert prs.reply_recorded("reply:d1:0") and repos_of(prs, "pr_replies") == [NEW]
    assert not prs.must_follow(NEW, 1, ID)  # done: the next event costs one read
    # PR by PR: PR 2 moves with its own first event under the new name
    assert prs.get(OLD, 2).comment_id == 77 and prs.get(NEW, 2).comment_id is None
    assert follow(prs, NEW, 2).old == (OLD,) and prs.get(NEW, 2).comment_id == 77
    assert prs.get(OTHER, 1).comment_id == 88  # ids are unique: never another repository's
    # a late event under the old name (a retry) takes it back: the state is read under
    # the name its event gives
    assert follow(prs, OLD, 1).old == (NEW,) and prs.get(OLD, 1).opted_out


def test_when_both_names_hold_a_prs_state_the_one_written_last_is_kept(prs):
    # a row under the new name without the id: written by an event under that name
    # still in flight when its state moved away (or before the upgrade)
    follow(prs, OLD, 1)
    prs.update(OLD, 1, opted_out=True)
    prs.update(NEW, 1, verbose=True)  # written last
    moved = follow(prs, NEW, 1)
    assert (moved.states, moved.dropped) == (0, 1)
    assert prs.get(NEW, 1).verbose and not prs.get(NEW, 1).opted_out
    assert repos_of(prs, "pr_state") == [NEW]

    prs.update(NEW, 2, verbose=True)
    follow(prs, OLD, 2)
    prs.update(OLD, 2, opted_out=True)  # written last
    moved = follow(prs, NEW, 2)
    assert (moved.states, moved.dropped) == (1, 1)
    assert prs.get(NEW, 2).opted_out and not prs.get(NEW, 2).verbose
    assert repos_of(prs, "pr_state") == [NEW, NEW]


# two repositories swap names (a -> tmp, b -> a, tmp -> b). Under its new
# name a repository finds the other's state, and its own under its old name: the move
# kept the one written last, the other repository's, and dropped its own. Now the
# other's is set aside, not dropped, and follows it to its new name in turn
def test_a_repository_that_took_anothers_name_keeps_its_own_state_not_the_others(prs):
    follow(prs, OLD, 1)
    prs.update(OLD, 1, opted_out=True)  # this repository's PR 1
    prs.record_reply(OLD, 1, "reply:d1:0", 66, "d1")
    follow(prs, OTHER, 1, ID + 1)
    prs.update(OTHER, 1, verbose=True)  # the other's PR 1, written last
    prs.record_reply(OTHER, 1, "reply:d2:0", 77, "d2")
    moved = follow(prs, OTHER, 1)  # this repository is called OTHER now
    assert moved.held == held_name(ID + 1) and moved.old == (OLD,)
    assert (moved.states, moved.dropped, moved.replies) == (1, 0, 1)
    state = prs.get(OTHER, 1)
    assert state.opted_out and not state.verbose
    assert repos_of(prs, "pr_state") == [held_name(ID + 1), OTHER]
    assert not follow(prs, OTHER, 1).held  # its own now
    moved = follow(prs, OLD, 1, ID + 1)  # and the other is called OLD
    assert (moved.held, moved.old, moved.states, moved.replies) == (
        None,
        (held_name(ID + 1),),
        1,
        1,
    )
    theirs = prs.get(OLD, 1)
    assert theirs.verbose and not theirs.opted_out
    assert repos_of(prs, "pr_state") == [OTHER, OLD] and repos_of(prs, "pr_replies") == [OTHER, OLD]


def test_state_written_before_the_upgrade_moves_once_an_event_has_marked_it(tmp_path):
    db = Database(tmp_path / "old.sqlite3")
    db.script(  # pr_state as the release before kept it: no repository id
        "CREATE TABLE pr_state (repo TEXT NOT NULL, number INTEGER NOT NULL, comment_id INTEGER,"
        " notes TEXT NOT NULL DEFAULT '[]', opted_out INTEGER NOT NULL DEFAULT 0,"
        " verbose INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL, body_hash TEXT,"
        " head_sha TEXT, files_sha TEXT, files TEXT, event_at TEXT,"
        " PRIMARY KEY (repo, number));"
        f"INSERT INTO pr_state (repo, number, comment_id, opted_out, updated_at)"
        f" VALUES ('{OLD}', 1, 55, 1, 't'), ('{OLD}', 2, 77, 1, 't');"
    )
    prs = PRStore(db)
    follow(prs, OLD, 1)  # PR 1 had an event after the upgrade, PR 2 none
    assert follow(prs, NEW, 1).old == (OLD,) and prs.get(NEW, 1).comment_id == 55
    assert follow(prs, NEW, 2).old == () and prs.get(NEW, 2) == PRState(NEW, 2)
    assert prs.get(OLD, 2).opted_out  # docs/upgrading.md's known limit: not known to be the same
    db.close()


def test_the_notes_shown_on_a_pr_not_yet_moved_are_found_under_its_old_name(prs):
    # a revert under the new name, of a PR whose state is still
    # under the old one (it moves at its own next event), got none of its notes
    follow(prs, OLD, 1)
    prs.update(OLD, 1, notes=("vllm-aaaa1111",))
    follow(prs, OTHER, 2, ID + 1)  # another repository's PR 2: never read as this one's
    prs.update(OTHER, 2, notes=("vllm-cccc3333",))
    assert prs.notes_of(NEW, 3, [1, 2]) == {}  # nothing under the new name knows the id yet
    follow(prs, NEW, 3)  # the revert's own event marks it
    assert prs.notes_of(NEW, 3, [1, 2]) == {1: ("vllm-aaaa1111",)}
    follow(prs, NEW, 1)  # once both names hold a row, the new name's is the PR's
    prs.db.execute(
        "INSERT INTO pr_state (repo, number, notes, updated_at, repo_id)"
        " VALUES (?, 1, '[\"vllm-old00000\"]', 'x', ?)",
        (OLD, ID),
    )
    assert prs.notes_of(NEW, 3, [1]) == {1: ("vllm-aaaa1111",)}


# a name another repository had keeps that one's PRs' state until events move it
# (set aside): they are not this repository's PRs of those numbers, and its own are
# found wherever they are kept by its id, set aside included
def test_the_notes_shown_on_related_prs_are_this_repositorys_not_those_under_its_name(prs):
    follow(prs, NEW, 1, ID + 1)  # the other repository, when it was called NEW
    prs.update(NEW, 1, notes=("vllm-cccc3333",))
    follow(prs, NEW, 2, ID + 1)
    prs.update(NEW, 2, notes=("vllm-dddd4444",))
    follow(prs, NEW, 5, ID + 1)  # a PR of a later number, kept first: not this one's id
    follow(prs, OLD, 1)  # this one, under its old name
    prs.update(OLD, 1, notes=("vllm-aaaa1111",))
    follow(prs, NEW, 3)  # this one's revert, under its new name
    assert prs.notes_of(NEW, 3, [1, 2]) == {1: ("vllm-aaaa1111",)}
    follow(prs, OTHER, 4, ID + 1)  # the other one, called OTHER now, its PR 1 still under NEW
    assert prs.notes_of(OTHER, 4, [1, 2]) == {1: ("vllm-cccc3333",), 2: ("vllm-dddd4444",)}
    follow(prs, NEW, 2)  # this one's PR 2 sets the other's aside: still the other's
    assert prs.notes_of(OTHER, 4, [2]) == {2: ("vllm-dddd4444",)}
    assert prs.notes_of(NEW, 3, [2]) == {}
    prs.update(OTHER, 9, notes=("vllm-eeee5555",))  # a row under the name with no id: by name
    assert prs.notes_of(OTHER, 4, [9]) == {9: ("vllm-eeee5555",)}
    prs.update(OTHER, 4, notes=("vllm-ffff6666",))
    # no id known (a payload without one): by name, the rows with an id too
    assert prs.notes_of(OTHER, 10, [1, 4, 9]) == {4: ("vllm-ffff6666",), 9: ("vllm-eeee5555",)}


def test_order_keys_sort_as_things_were_said():
    # bot.order_keys: time, then comment id, then a command's place; `~` after them all
    from bot.order_keys import (
        after_second,
        command_key,
        comment_key,
        comment_part,
        just_after,
        said_before,
    )

    t1, t2 = "2026-09-01T10:00:00Z", "2026-09-01T10:00:01Z"
    early, late = comment_key(t1, 99), comment_key(t1, 100)  # one second, ids in order
    keys = [
        early,
        command_key(early, 0),
        command_key(early, 1),
        late,
        just_after(late),
        after_second(t1),
        comment_key(t2, 1),
    ]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert comment_part(command_key(late, 3)) == late
    assert said_before(early, late) and not said_before(late, early)
    assert not said_before(None, late) and not said_before(early, None)
    assert command_key(None, 0) is None


# --- the PR store: resumed states, reply records, event times, concurrent updates ---


# kills: prstate.PRState.resumed: drop `and same_text`
# kills: prstate.PRState.resumed: drop `comment == str(self.comment_id or 0) and`
def test_a_comment_written_since_the_on_by_a_release_not_knowing_it_ends_the_resumed_state():
    on = PRState(OLD, 1, comment_id=5, body_hash="aa", resumed_at="5:aa")
    assert on.resumed and not on.trusted
    assert not replace(on, body_hash="bb").resumed  # edited since (a rollback's write)
    assert not replace(on, comment_id=6).resumed  # posted anew since
    assert replace(on, body_hash=None).resumed  # a write of ours begun on it


# kills: prstate.PRStore.prune_replies: drop `delivery IS NULL OR`
def test_an_old_reply_record_of_no_known_delivery_is_pruned(prs):
    prs.db.script(
        "CREATE TABLE IF NOT EXISTS deliveries (id TEXT);"
        "INSERT INTO deliveries (id) VALUES ('d-other');"  # NULL NOT IN (): true
        "INSERT INTO pr_replies (key, repo, number, comment_id, posted_at, delivery)"
        " VALUES ('k', 'o/r', 1, 9, '2020-01-01T00:00:00.000000Z', NULL)"
    )
    assert prs.prune_replies("2021-01-01T00:00:00.000000Z", 10) == 1
    assert not prs.reply_recorded("k")


# kills: prstate.PRStore.claim_for: drop `DELETE FROM pr_replies`
def test_going_live_drops_the_dry_runs_reply_records(prs):
    with prs.db.tx() as conn:
        prs.claim_for(conn, Writer.DRY_RUN)
    prs.record_reply(OLD, 1, "key-1", 11, "d1")  # a would-be reply's id
    with prs.db.tx() as conn:
        assert prs.claim_for(conn, Writer.LIVE) == 1
    assert not prs.reply_recorded("key-1")


# kills: prstate.PRStore._forget_event_owners: `UPDATE ... event_by = NULL` -> `pass`
def test_a_start_forgets_which_event_set_each_prs_event_time(prs):
    prs.update(OLD, 1, event_at="2026-09-01T10:00:00Z", event_by="d1")
    prs.forget_event_owners()
    assert prs.get(OLD, 1).event_by is None


class _Interleaved(PRStore):
    """A store whose next read runs `between` after it has read (an update's `get`,
    before its `put`): another worker's update lands there."""

    between = None

    def get(self, repo: str, number: int) -> PRState:
        state = super().get(repo, number)
        between, self.between = self.between, None
        if between is not None:
            between()
        return state


# kills: bot/prstate.py PRStore.update without its transaction (lost update)
def test_an_update_run_between_anothers_read_and_write_waits_and_keeps_both(tmp_path):
    path = tmp_path / "p.sqlite3"
    a_db, b_db = Database(path), Database(path)  # two workers, a connection each
    a, b = _Interleaved(a_db), PRStore(b_db)
    a.update(OLD, 1, comment_id=7)
    done = threading.Event()

    def other_worker() -> None:  # e.g. a pending update recorded for a `/notes why`
        b.update(OLD, 1, verbose=True)
        done.set()

    worker = threading.Thread(target=other_worker, daemon=True)

    def run_b() -> None:
        worker.start()
        # far less than the busy timeout B waits for A's transaction (bot.db: 10 s): with
        # it B is still waiting here; without it B is done, and A's write undoes it
        worker.join(1.0)

    try:
        a.between = run_b
        a.update(OLD, 1, opted_out=True)  # e.g. `/notes off`
        worker.join(5.0)
        assert done.is_set(), "B's update did not run after A's"
        state = a.get(OLD, 1)
        assert (state.opted_out, state.verbose, state.comment_id) == (True, True, 7)
    finally:
        worker.join(15.0)
        a_db.close()
        b_db.close()


# --- order keys; idle PRs' file lists pruned ---


# kills: bot/order_keys.py:said_before what has a key taken as said before itself
def test_what_has_an_order_key_is_not_said_before_itself():
    # a command run again (a redelivery, its comment edited) keeps the last word it had
    from bot.order_keys import command_key, comment_key, said_before

    key = command_key(comment_key("2026-09-01T10:00:00Z", 99), 0)
    assert not said_before(key, key)
    assert said_before(key, command_key(comment_key("2026-09-01T10:00:00Z", 99), 1))


def _handled_at(prs: PRStore, number: int, at: str, files: int) -> PRState:
    """A PR handled at `at`, its comment posted and `files` changed files cached."""
    paths = tuple(
        f"vllm/model_executor/layers/fused_moe/configs/f{i:04d}.json" for i in range(files)
    )
    state = PRState(
        OLD, number, comment_id=1000 + number, head_sha="abc", notes=("vllm-aaaa1111",),
        files_sha="abc", files=paths, files_listed=files, opted_out=number % 2 == 0,
        code_names={"fused_moe": paths[:1]}, incidental=frozenset(paths[1:2]),
    )  # fmt: skip
    prs.put(state)
    prs.db.execute("UPDATE pr_state SET updated_at = ? WHERE number = ?", (at, number))
    return state


def _row_bytes(prs: PRStore, number: int) -> int:
    sizes = "LENGTH(files) + LENGTH(code_names) + LENGTH(incidental) + LENGTH(notes)"
    row = prs.db.execute(f"SELECT {sizes} AS n FROM pr_state WHERE number = ?", (number,))
    return row[0]["n"] or 0


def test_the_file_lists_of_prs_idle_since_the_cutoff_are_forgotten_oldest_first(prs):
    # pr_state was kept for good with each PR's last file list: ~190 KB for a PR of
    # 3,000 files, most of the row, and only worth a GitHub call on the PR's next event
    old = [_handled_at(prs, n, f"2026-01-0{n}T00:00:00.000000Z", 3000) for n in (3, 1, 2)]
    recent = _handled_at(prs, 4, "2026-03-01T00:00:00.000000Z", 3)
    big = _row_bytes(prs, 1)
    assert prs.prune_files("2026-02-01T00:00:00.000000Z", 2) == 2  # one batch
    assert [prs.get(OLD, n).files is None for n in (1, 2, 3)] == [True, True, False]
    assert prs.prune_files("2026-02-01T00:00:00.000000Z", 2) == 1
    assert prs.prune_files("2026-02-01T00:00:00.000000Z", 2) == 0  # none left to do
    assert _row_bytes(prs, 1) < big / 1000, f"a pruned row keeps {_row_bytes(prs, 1)} of {big}"
    for before in old:
        after = prs.get(OLD, before.number)
        assert after.files_for("abc") is None and after.files_listed is None
        assert not after.code_names and not after.incidental
        forgotten = dict(files_sha=None, files=None, files_listed=None, code_names={})
        assert after == replace(before, incidental=frozenset(), **forgotten)  # the rest kept
    assert prs.get(OLD, 4) == recent  # handled since the cutoff: its list is kept


# kills: bot/salvage.py TOGETHER a column of the file list left out: a damaged row whose
#   renames could not be read kept its list, and the comment named the renamed files by
#   the old paths again until the next head's listing
def test_salvage_keeps_or_forgets_together_what_retention_forgets_with_a_file_list(prs):
    from bot.salvage import TOGETHER

    state = replace(
        _handled_at(prs, 1, "2026-01-01T00:00:00.000000Z", 3),
        files_base="main",
        renamed={"a.py": "b.py"},
    )
    prs.put(state)
    prs.db.execute("UPDATE pr_state SET updated_at = ? WHERE number = 1", ("2026-01-01",))
    (before,) = prs.db.execute("SELECT * FROM pr_state WHERE number = 1")
    assert prs.prune_files("2026-02-01T00:00:00.000000Z", 10) == 1
    (after,) = prs.db.execute("SELECT * FROM pr_state WHERE number = 1")
    forgotten = {c for c in before.keys() if before[c] is not None and after[c] is None}
    assert forgotten == set(TOGETHER["pr_state"])


def test_pruning_file_lists_reads_only_the_prs_still_holding_one(prs):
    for kept in ("TRUE", "rowid NOT IN (1,2)"):  # (rows set aside as damaged: by the index)
        idle = IDLE_LISTS.format(kept=kept)
        plan = prs.db.execute(f"EXPLAIN QUERY PLAN {idle}", ("2026-02-01", 50))
        assert any("pr_state_listed" in r["detail"] for r in plan), [r["detail"] for r in plan]


# --- a PR's state: file lists and their base, a damaged index, every field read back ---


# kills: bot/prstate.py IDLE_LISTS `updated_at < ?` -> `updated_at <= ?` (by hand: the
# tool leaves SQL text alone)
def test_a_pr_handled_at_the_cutoff_itself_keeps_its_file_list(prs):
    at = "2026-02-01T00:00:00.000000Z"
    kept = _handled_at(prs, 5, at, 3)
    assert prs.prune_files(at, 10) == 0  # "before" the cutoff: not at it
    assert prs.get(OLD, 5) == kept and prs.get(OLD, 5).files_for("abc") == kept.files


# kills: bot/prstate.py:_stored_base `_list_key(json.dumps(list(files)))` -> `sorted(files)` (by
# hand)
def test_the_base_of_a_list_not_in_path_order_is_read_back(prs):
    files = ("vllm/v1/core/kv_cache_coordinator.py", "docs/contributing.md")  # GitHub's order
    prs.put(PRState(OLD, 6, files_sha="abc", files=files, files_base="main"))
    got = prs.get(OLD, 6)
    assert (got.files, got.files_base) == (files, "main")
    assert got.files_for("abc", "main") == files


# kills: bot/prstate.py:_list_key `hexdigest()[:16]` -> `[:1]` (by hand)
def test_no_other_list_a_rollback_caches_under_the_same_head_keeps_the_base(prs):
    # the release before `files_base` caches another list (a retarget) and leaves the
    # column as it was: the base is tied to the list it was stored with, by a key that
    # another list does not share
    prs.put(PRState(OLD, 7, files_sha="abc", files=("vllm/a.py",), files_base="main"))
    kept = []
    for i in range(64):
        other = json.dumps([f"docs/f{i:02d}.md"])
        prs.db.execute("UPDATE pr_state SET files = ? WHERE number = 7", (other,))
        kept += [i] if prs.get(OLD, 7).files_base is not None else []
    assert kept == [], f"lists {kept} took the base stored with another list"


# a deferred update queued under the old name (bot.command_updates.handle_refresh)
# asks where the PR's state is kept now, by the repository's id
def test_where_a_prs_state_is_kept_now_is_found_by_its_repositorys_id(prs):
    assert prs.kept_under(OLD, 1, ID) is None  # not kept at all
    follow(prs, OLD, 1)
    assert prs.kept_under(OLD, 1, ID) is None  # under the name asked for
    follow(prs, NEW, 1)
    assert prs.kept_under(OLD, 1, ID) == NEW and prs.kept_under(OLD, 2, ID) is None
    assert prs.kept_under(OLD, 1, None) is None  # no id known: found by name alone
    prs.update(OTHER, 1, verbose=True)  # a row with no id under a third name
    assert prs.kept_under(OLD, 1, ID) == NEW
    follow(prs, OLD, 1, ID + 1)  # a new repository takes the old name: NEW's PR 1...
    follow(prs, OTHER, 1, ID + 1)  # ...which then moves on: OLD's PR 1 is ID's no more
    assert prs.kept_under(OTHER, 1, ID) == NEW and prs.kept_under(OLD, 1, ID + 1) == OTHER
    follow(prs, OTHER, 1)  # this one took OTHER: the other's PR 1 set aside, name not known
    assert prs.kept_under(OLD, 1, ID + 1) is None and prs.kept_under(NEW, 1, ID) == OTHER


# kills: bot/prstate.py:PRStore._damaged a PR's key index damaged too (its rowid unread)
#   failing the event with an UnboundLocalError, the damage unsaid
def test_a_prs_damaged_key_index_is_said_as_its_state_damaged_and_nothing_set_aside(tmp_path):
    import sqlite3

    from bot.prstate import DamagedState
    from tests.test_queue import _damage_root_page, queue_at

    q = queue_at(tmp_path)
    PRStore(q.db).put(PRState("o/r", 1))
    _damage_root_page(q, tmp_path / "q.sqlite3", "sqlite_autoindex_pr_state_1")
    prs = PRStore(queue_at(tmp_path).db)
    with pytest.raises(sqlite3.DatabaseError) as met:
        prs.get("o/r", 1)
    damaged = prs.damaged_state("o/r", 1, met.value)
    assert isinstance(damaged, DamagedState) and str(damaged).startswith("PR o/r#1: SQLite")
    assert prs.set_aside == {}  # no row to leave out: the damage is the index's
    # kills: bot/prstate.py:PRStore.damaged_state the old names unread (the key's index
    #   damaged) failing the check with a NameError
    renamed = prs.damaged_state("o/r", 1, met.value, repo_id=ID)
    assert str(renamed).startswith("PR o/r#1: SQLite"), renamed
    # kills: bot/prstate.py:PRStore.damaged_state an error that is not damage taken for it
    assert prs.damaged_state("o/r", 1, sqlite3.OperationalError("disk I/O error")) is None


# kills: bot/prstate.py:_replaced_of the comment replaced read beside another comment kept
def test_the_comment_an_on_replaced_is_kept_only_with_the_comment_that_replaced_it(prs):
    prs.put(PRState("o/r", 7, comment_id=20, replaced_id=10))
    assert prs.get("o/r", 7).replaced_id == 10
    # a release before it (a rollback) posts or forgets the comment: the pair is stale
    for kept in (30, None):
        prs.db.execute("UPDATE pr_state SET comment_id = ? WHERE number = 7", (kept,))
        assert prs.get("o/r", 7).replaced_id is None
    prs.db.execute("UPDATE pr_state SET comment_id = 20, replaced = '20:x' WHERE number = 7")
    assert prs.get("o/r", 7).replaced_id is None
    prs.put(PRState("o/r", 7, comment_id=20))
    assert prs.get("o/r", 7).replaced_id is None


def test_every_field_of_a_prs_state_is_read_back_as_written_and_moves_with_it(prs):
    # a column put writes and get does not read (or reads into another field: two
    # columns added by parallel changes met in put's column list) is lost at the next
    # write; each field here differs from its default, so no field goes unread
    follow(prs, OLD, 1)
    files = ("vllm/a.py", "vllm/new/b.py", "vllm/old/b.py")
    state = PRState(
        OLD,
        1,
        comment_id=55,
        body_hash="h",
        head_sha="abc",
        notes=("vllm-aaaa1111",),
        files_sha="abc",
        files=files,
        files_listed=2,
        files_base="main",
        event_at="2026-09-01T10:00:01Z",
        event_by="d1",
        opted_out=True,
        verbose=True,
        pending=PendingUpdate(acks=(7,), show=True, diff_acks=(8,), said="k"),
        code_names={"f": ("vllm/a.py",)},
        incidental=frozenset({"vllm/a.py"}),
        renamed={"vllm/old/b.py": "vllm/new/b.py"},
        dismissed=("vllm-bbbb2222",),
        evidence={"vllm-aaaa1111": ("title mentions 'x'",)},
        paused="opted_out",
        had_notes=True,
        switched_at="s",
        unconfirmed=True,
        resumed_at="55:h",
        verbose_at="v",
        dismissed_at="d",
        restored_at="r",
        replaced_id=44,
        owed_delete=33,
        write_back=WriteBack(
            22,
            "their words, ünïcode",
            "2026-09-01T10:00:00Z/~",
            WriteBackHistory("wrote", "2026-09-01T10:00:03Z"),
        ),
        given_back=(11, 12),
    )
    defaults = PRState(OLD, 1)
    assert [
        f.name for f in fields(PRState) if getattr(state, f.name) == getattr(defaults, f.name)
    ] == [
        "repo",
        "number",
        "found_gone_id",  # (one column with replaced_id, one or the other: below)
    ]
    prs.put(state)
    assert prs.get(OLD, 1) == state
    assert prs.update(OLD, 1, verbose=False) == replace(state, verbose=False)
    assert prs.get(OLD, 1) == replace(state, verbose=False)
    follow(prs, NEW, 1)  # renamed: all of it under the new name
    assert prs.get(NEW, 1) == replace(state, repo=NEW, verbose=False)
    found = replace(state, repo=NEW, replaced_id=None, found_gone_id=66)
    prs.put(found)
    assert prs.get(NEW, 1) == found

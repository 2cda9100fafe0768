"""`review-notes salvage`: a database file SQLite finds damaged ("database disk image is
malformed"), really damaged on disk as a failing disk does, copied into a new file that
a server then runs on: what reads is kept, what does not is named."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.command_policy import Decision
from bot.commands import Kind
from bot.db import SCHEMA_VERSION, Database, NewerDatabase, servers_kept_out
from bot.decision_store import DecisionStore
from bot.dryrun import DryRunGitHub
from bot.feedback_store import FeedbackStore
from bot.github_port import PRRef
from bot.locked_commands import LockedCommands
from bot.prstate import PRState, PRStore
from bot.queue import DeliveryQueue
from bot.salvage import ROW_NAMES, _row_name
from bot.server import build_runtime
from tests.damage_kit import break_overflow_chain, damage_root_page, leaf_pages, overwrite
from tests.fake_github import DEFAULT_REPO
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    free_port,
    live_settings,
    make_settings,
    ours,
    run_cli,
    serving,
)

# The report's last line when anything was lost: a backup is not said to hold it all, as
# if it were taken the moment before the damage (restored, what came since is lost).
BACKUP_SAID = (
    "(a backup holds what it was taken with, not what was written since: restore it instead"
    " if that loses less)"
)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _integrity(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as conn:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]


def _salvage(tmp_path: Path, new: Path, *extra: str):
    return run_cli(tmp_path, "salvage", str(new), *extra)


# kills: bot/salvage.py:_copy_row a damaged row lost whole where its comment's id still reads
def test_salvage_copies_what_reads_names_what_is_lost_and_a_server_runs_on_the_copy(
    tmp_path, fake_github, app_key, monkeypatch
):
    # A failing disk damaged PR 2's state (its file list's pages) and a done delivery's
    # payload. Every event of PR 2 failed, and the fix offered was a backup: without one,
    # the whole file (every PR's comment id and opt-out, the queue) was lost. salvage
    # copies the rest, and of PR 2's row what still reads (its comment's id), into a new
    # file a server then runs on, PR 2's comment edited in place.
    clean_env(monkeypatch)
    fake = fake_github
    for n in (1, 2, 3):
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        for n in (1, 2, 3):
            deliver_pr(client, rt, number=n, title=MATCHING_TITLE, files=MATCHING_FILES)
    posted = {n: [c.id for c in ours(fake, n)] for n in (1, 2, 3)}
    assert all(len(ids) == 1 for ids in posted.values()), posted
    db = Database(settings.db_path)
    queue = DeliveryQueue(db)
    queue.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, DEFAULT_REPO, 9)
    db.execute("UPDATE deliveries SET state = 'done' WHERE id = 'broken'")
    long_list = json.dumps([f"vllm/{'Z' * 20_000}.py"])
    db.execute("UPDATE pr_state SET files = ? WHERE number = 2", (long_list,))
    db.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    with closing(sqlite3.connect(settings.db_path)) as conn, pytest.raises(sqlite3.DatabaseError):
        conn.execute("SELECT files FROM pr_state WHERE number = 2").fetchall()  # malformed
    before = _sha(settings.db_path)

    new = tmp_path / "salvaged.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert "deliveries: 3 rows copied, 1 lost" in lines, r.stdout
    assert any(line.startswith("  lost: delivery broken: payload") for line in lines), r.stdout
    assert "pr_state: 3 rows copied, 1 of them in part" in lines, r.stdout
    [part, marks] = [line for line in lines if line.startswith("  in part: ")]
    assert part.startswith(f"  in part: PR {DEFAULT_REPO}#2: lost files_sha, "), part
    assert marks.startswith(f"  in part: PR {DEFAULT_REPO}#2: dismissed: unreadable: "), marks
    assert "comment_id" not in part and "files," in part, part
    assert f"{new}: made, SQLite's integrity check: ok;" in lines[-1], lines[-1]
    assert _sha(settings.db_path) == before  # only read
    with closing(sqlite3.connect(new)) as conn:
        kept = conn.execute("SELECT number, comment_id, files FROM pr_state ORDER BY number")
        assert [(n, c) for n, c, _ in kept] == [(n, posted[n][0]) for n in (1, 2, 3)]
    assert _integrity(new) == ["ok"]
    assert not Path(f"{new}-wal").exists()  # one file to move: checkpointed

    for suffix in ("", "-wal", "-shm"):  # as the docs say: aside with its -wal and -shm
        if Path(f"{settings.db_path}{suffix}").exists():
            Path(f"{settings.db_path}{suffix}").rename(tmp_path / f"damaged{suffix}")
    new.rename(settings.db_path)
    with serving(settings) as (client, rt):
        for n in (1, 2, 3):
            deliver_pr(client, rt, action="synchronize", number=n, title=MATCHING_TITLE)
        health = client.get("/healthz")
        failed, done = rt.queue.failed(), rt.queue.counts()["done"]
        state = PRStore(rt.db).get(DEFAULT_REPO, 2)
    assert failed == [] and done == 3 + 3 and health.status_code == 200, health.text
    assert {n: [c.id for c in ours(fake, n)] for n in (1, 2, 3)} == posted  # edited in place
    assert state.comment_id == posted[2][0]


# kills: bot/salvage.py:_copy_row the file list forgotten with any column lost, not its own
# kills: bot/salvage.py:_copy_row a column with a default taken for one the row cannot lack
def test_a_prs_row_damaged_past_its_file_list_keeps_the_list_and_takes_defaults(tmp_path):
    # Damage past the file list (a long value later in the row) loses that value and
    # those stored after it, not the list; a column with a default (unconfirmed) lost is
    # given its default, and the row kept.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    prs.put(PRState("o/r", 3, comment_id=30))  # a row read whole before the damaged ones
    for n in (1, 2):
        prs.put(PRState("o/r", n, comment_id=n * 10, files_sha="abc", files=("a.py",)))
    db.execute("UPDATE pr_state SET dismissed_at = ? WHERE number = 1", ("Z" * 20_000,))
    db.execute(
        "UPDATE pr_state SET switched_at = ?, unconfirmed = 2 WHERE number = 2", ("Z" * 20_000,)
    )
    DeliveryQueue(db).keep_sweep_since("2030-01-01T00:00:00Z")
    db.close()
    break_overflow_chain(path, b"Z" * 200)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stderr
    parts = [line for line in r.stdout.splitlines() if line.startswith("  in part: ")]
    assert parts == [
        "  in part: PR o/r#1: lost dismissed_at (empty or their defaults now)",
        "  in part: PR o/r#2: lost switched_at, unconfirmed (empty or their defaults now)",
    ], parts
    got = PRStore(Database(new))
    first, second = got.get("o/r", 1), got.get("o/r", 2)
    assert (first.comment_id, first.files, first.files_sha) == (10, ("a.py",), "abc")
    assert (second.comment_id, second.files, second.unconfirmed) == (20, ("a.py",), False)
    assert got.get("o/r", 3).comment_id == 30


def test_a_tables_damaged_page_loses_its_rows_named_through_an_index(tmp_path):
    # The damage is on the table's own page (every PR row on it): the rows cannot be
    # read, but the table's key index still lists them, so each is named as lost; the
    # other tables are copied whole.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs, queue = PRStore(db), DeliveryQueue(db)
    for n in (1, 2):
        prs.put(PRState("o/r", n, comment_id=n * 10))
    queue.enqueue("d-1", "pull_request", "opened", {"n": 1}, "o/r", 1)
    queue.keep_sweep_since("2030-01-01T00:00:00Z")
    db.close()
    damage_root_page(path, "pr_state")
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 0 rows copied, 2 lost" in lines, r.stdout
    # the key's index lists every row, so none is lost unnamed: no "maybe lost" line
    # kills: bot/salvage.py:_listed an index read to its end not taken as listing every row
    assert not [line for line in lines if "maybe lost" in line], r.stdout
    assert BACKUP_SAID in lines[-1]
    lost = [line.split(": ")[1] for line in lines if line.startswith("  lost: PR")]
    assert lost == ["PR o/r#1", "PR o/r#2"], r.stdout
    assert "deliveries: 1 rows copied" in lines, r.stdout
    assert _integrity(new) == ["ok"]
    with closing(sqlite3.connect(new)) as conn:
        assert conn.execute("SELECT id FROM deliveries").fetchall() == [("d-1",)]


# kills: bot/salvage.py ROW_NAMES a lost decision on a command named by its rowid alone
def test_a_lost_decision_on_a_command_is_named_by_its_delivery(tmp_path):
    # A decision kept for a retry (bot.decision_store) on a damaged page: the operator
    # learns which delivery's retry will ask GitHub for its author's permission again.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    DeliveryQueue(db)  # (salvage knows the bot's file by its tables)
    decisions = DecisionStore(db)
    decisions.record("d-1", {(1, Kind.OFF): Decision.ALLOW})
    decisions.record("d-2", {(0, Kind.WRONG): Decision.REFUSE})
    db.close()
    damage_root_page(path, "command_decisions")
    r = _salvage(tmp_path, tmp_path / "new.sqlite3")
    assert r.returncode == 1, r.stdout + r.stderr
    lost = [line.split(": ")[1] for line in r.stdout.splitlines() if line.startswith("  lost: ")]
    assert lost == [
        "decision on command 1 of delivery d-1",
        "decision on command 0 of delivery d-2",
    ]


# kills: bot/salvage.py ROW_NAMES a lost comment kept for an unlock named by its rowid alone
def test_a_lost_comment_kept_for_an_unlock_is_named_by_its_pr_and_comment(tmp_path):
    # Commands a locked conversation kept (bot.locked_commands) on a damaged page: they
    # will not run at the unlock, so the operator learns which PR's comment to answer.
    from tests.test_locked_commands import REF, _keep

    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    DeliveryQueue(db)  # (salvage knows the bot's file by its tables)
    store = LockedCommands(db)
    _keep(store, REF, 42)
    _keep(store, REF, 43)
    db.close()
    damage_root_page(path, "locked_commands")
    r = _salvage(tmp_path, tmp_path / "new.sqlite3")
    assert r.returncode == 1, r.stdout + r.stderr
    lost = [line.split(": ")[1] for line in r.stdout.splitlines() if line.startswith("  lost: ")]
    assert lost == [
        "commands of comment 42 on PR owner/repo#7 kept for an unlock",
        "commands of comment 43 on PR owner/repo#7 kept for an unlock",
    ]


def test_salvage_of_a_sound_file_copies_every_row_and_counter(tmp_path):
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    queue = DeliveryQueue(db)
    for i in range(3):
        queue.enqueue(f"d-{i}", "pull_request", "opened", {"n": i}, "o/r", i)
    db.execute("DELETE FROM deliveries WHERE id = 'd-2'")  # its seq is never given again
    PRStore(db).put(PRState("o/r", 1, comment_id=5, opted_out=True))
    db.close()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing lost" in r.stdout and "lost:" not in r.stdout, r.stdout
    # kills: bot/salvage.py:report the counters said by SQLite's table name and a count
    counters = "counters of the next numbers (a delivery's seq, a dry-run comment's id)"
    assert f"{counters}: copied" in r.stdout.splitlines(), r.stdout
    assert "sqlite_sequence" not in r.stdout, r.stdout
    with closing(sqlite3.connect(path)) as old, closing(sqlite3.connect(new)) as conn:
        for table in ("deliveries", "pr_state", "sqlite_sequence", "redelivery"):
            sql = f"SELECT rowid, * FROM {table} ORDER BY rowid"
            assert conn.execute(sql).fetchall() == old.execute(sql).fetchall(), table
    assert DeliveryQueue(Database(new)).enqueue("d-3", "pull_request", "opened", {})


# kills: bot/salvage.py:salvage (hand) the copy made without the file's schema version: a newer
#        release's file, salvaged, read as this release's (a version 0 file is upgraded)
def test_salvage_keeps_the_files_schema_version(tmp_path):
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    DeliveryQueue(db).enqueue("d-1", "pull_request", "opened", {}, "o/r", 1)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")  # a newer release's file
    db.close()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 0, r.stdout + r.stderr
    with closing(sqlite3.connect(new)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    with pytest.raises(NewerDatabase):
        Database(new)


@pytest.mark.parametrize("there", ["", "-wal", "-shm"])
def test_salvage_never_writes_over_a_file_there(tmp_path, there):
    # a -wal file beside the new one would be read into it as SQLite opens it
    path = tmp_path / "bot.sqlite3"
    Database(path).close()
    PRStore(Database(path))
    new = tmp_path / "new.sqlite3"
    Path(f"{new}{there}").write_text("someone's")
    r = _salvage(tmp_path, new)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert f"review-notes salvage: {new}{there} exists: name a new file" in r.stderr
    assert Path(f"{new}{there}").read_text() == "someone's"
    assert there == "" or not new.exists()


def test_salvage_refuses_while_a_server_runs_on_the_file(tmp_path):
    # what the server wrote after the copy would be lost when the copy replaced the file
    path = tmp_path / "bot.sqlite3"
    server = Database(path)
    PRStore(server)
    assert server.acquire_server_lock()
    new = tmp_path / "new.sqlite3"
    try:
        r = _salvage(tmp_path, new)
    finally:
        server.close()
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"a review-notes server is running on {path}: stop it first" in r.stderr
    assert not new.exists()
    assert _salvage(tmp_path, new).returncode == 0  # stopped: it runs


def test_a_server_started_while_salvage_copies_is_refused_naming_salvage(tmp_path):
    # salvage holds the server's lock through its copy, so a server started meanwhile is
    # refused; it said "another review-notes server is using ...", though none ran, and
    # the operator looked for a server to stop
    path = tmp_path / "bot.sqlite3"
    PRStore(Database(path)).db.close()
    with servers_kept_out(path) as kept_out:  # as salvage holds it while it copies
        assert kept_out
        r = run_cli(tmp_path, "serve", "--port", str(free_port()), timeout=30)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"another review-notes server, or a `review-notes salvage` copying {path}," in r.stderr


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (None, "no database at"),
        ("CREATE TABLE other (x)", "is not a review-notes database (none of its tables)"),
    ],
)
def test_salvage_refuses_what_is_no_review_notes_database(tmp_path, make, said):
    path = tmp_path / "bot.sqlite3"
    if make:
        with closing(sqlite3.connect(path)) as conn:
            conn.execute(make)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 2 and said in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not new.exists()


# kills: bot/db.py DAMAGED_FIX the steps out of order, or no way on without a backup
def test_the_damage_fix_says_the_steps_in_order_and_a_salvage_command_that_runs(tmp_path):
    # Every damaged-database message (the start's refusal, retry, a PR's failed event,
    # /healthz) said "restore it from a backup" only: not that the server must be stopped
    # first (a server left running writes on, and checkpoints its -wal into the file
    # moved aside), and nothing for an operator without a backup.
    from bot.cli import build_parser
    from bot.db import DAMAGED_FIX

    steps = ["stop the server", "move it aside with its -wal and -shm", "in its place", "start"]
    at = [DAMAGED_FIX.find(step) for step in steps]
    assert -1 not in at and at == sorted(at), DAMAGED_FIX
    [command] = re.findall(r"`review-notes (salvage [A-Z_]+)`", DAMAGED_FIX)
    args = build_parser().parse_args(command.split())
    assert args.func.__name__ == "_cmd_salvage" and args.new_file == "NEW_FILE"


def test_rows_a_damaged_page_drops_without_an_error_are_named_lost_through_an_index(tmp_path):
    # A failing disk changed a table page's count of rows (its header): SQLite reads the
    # page without an error, the rows past the count simply not there, so the copy's one
    # scan read to the end and salvage said "nothing lost", exit 0, the PRs of those rows
    # (their comments' ids, opt-outs) gone unsaid. The table's key index still lists
    # them: each row an index lists and the copy lacks is named lost.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    for n in range(1, 121):
        prs.put(PRState("o/r", n, comment_id=n, files=("a.py",), files_sha="s"))
    db.close()
    first, *_ = leaf_pages(path, "pr_state")
    overwrite(path, first, 3, (10).to_bytes(2, "big"))  # ten of its rows, not all
    with closing(sqlite3.connect(path)) as conn:  # (read without an error)
        read = conn.execute("SELECT number FROM pr_state NOT INDEXED ORDER BY rowid").fetchall()
    assert 10 < len(read) < 120
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    missing = sorted(set(range(1, 121)) - {n for (n,) in read})
    lost = [line for line in r.stdout.splitlines() if line.startswith("  lost: ")]
    assert lost == [
        f"  lost: PR o/r#{n}: missing from the table (a damaged page of it), though its"
        " index sqlite_autoindex_pr_state_1 lists it"
        for n in missing
    ], r.stdout
    assert f"pr_state: {len(read)} rows copied, {len(missing)} lost" in r.stdout, r.stdout
    assert "nothing lost" not in r.stdout


@pytest.mark.parametrize("damaged", [(1,), (1, 3)])
def test_rows_after_a_damaged_page_of_a_table_no_index_lists_whole_are_copied(tmp_path, damaged):
    # A page in the middle of the marks of `/notes wrong` (feedback) damaged: the copy's
    # scan stopped there, and the rows after it, on sound pages, were found through the
    # table's indexes only, of which feedback has none listing them all (the standing
    # marks' only): every mark after the damaged page was lost, said as 'maybe lost'.
    # They are read from the table's end back to the damage now. With two pages
    # damaged, the marks on the sound pages between them were lost too, and counted
    # as on damaged pages: each rowid between is looked up alone now.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    FeedbackStore(db)
    for i in range(300):
        db.execute(
            "INSERT INTO feedback (repo, number, note_id, rank, login, at, withdrawn_at,"
            " reason) VALUES ('o/r', ?, ?, 1, 'someone', 'then', ?, ?)",
            (i, f"note-{i}", "later" if i % 2 else None, "r" * 100),
        )
    db.execute("DELETE FROM feedback WHERE id % 10 = 5")  # (rowids of no row between)
    db.close()
    leaves = leaf_pages(path, "feedback")
    assert len(leaves) >= 5
    for leaf in damaged:
        overwrite(path, leaves[leaf])
    readable, lost = set(), []  # each row read alone by its rowid; the rowids that do not
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        for rowid in range(1, 301):
            try:
                row = conn.execute("SELECT rowid, * FROM feedback WHERE rowid = ?", (rowid,))
                readable |= set(row.fetchall())
            except sqlite3.DatabaseError:
                lost.append(rowid)
    assert 150 < len(readable) < 270 and max(readable)[0] == 300
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"feedback: {len(readable)} rows copied" in r.stdout.splitlines(), r.stdout
    with closing(sqlite3.connect(new)) as conn:
        kept = conn.execute("SELECT rowid, * FROM feedback ORDER BY rowid").fetchall()
    # kills: bot/salvage.py:_copy_scan the row before the damage, read ahead, not given
    assert kept == sorted(readable)  # the rows before and after the damaged page, each
    # no index lists the marks: those on the damaged page are counted by their rowids
    # kills: bot/salvage.py:_rowids_past the table's pages not read to the end unsaid, or
    #   said as an index's error (a partial index's "no query solution")
    # kills: bot/salvage.py:_look_up a rowid of no row between taken for a row lost
    in_a_row = lost == list(range(lost[0], lost[-1] + 1))
    assert in_a_row == (len(damaged) == 1)  # (a page's rowids are in a row)
    among = "" if in_a_row else "among "
    # kills: bot/salvage.py:_look_up a row between two damaged pages not looked up
    assert [line for line in r.stdout.splitlines() if "maybe lost" in line] == [
        f"  maybe lost: up to {len(lost)} rows ({among}rowids {lost[0]} to {lost[-1]}) on or"
        " beneath damaged pages, unnamed: no index lists every row of the table (DatabaseError:"
        " database disk image is malformed)"
    ], r.stdout
    assert _integrity(new) == ["ok"]


# kills: bot/salvage.py:_rowids_past the rowids past the damaged row not kept
@pytest.mark.parametrize("page_too", [True, False])
def test_rows_between_a_damaged_row_and_a_damaged_page_are_copied(tmp_path, page_too):
    # Past a mark whose reason's pages are damaged, the scan stops; the rows after it,
    # up to a damaged page further on, are found by their rowids on the table's pages
    # (no index lists withdrawn marks): the last of them too, which Python's cursor had
    # read ahead when the damaged page stopped it.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    FeedbackStore(db)
    for i in range(300):
        db.execute(
            "INSERT INTO feedback (repo, number, note_id, rank, login, at, reason, withdrawn_at)"
            " VALUES ('o/r', ?, ?, 1, 'someone', 'then', ?, 'later')",
            (i, f"note-{i}", "Z" * 20_000 if i == 2 else ""),
        )
    db.close()
    leaves = leaf_pages(path, "feedback")
    break_overflow_chain(path, b"Z" * 200)
    if page_too:
        overwrite(path, leaves[1])
    readable = set()
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        for rowid in range(1, 301):
            sql = "SELECT rowid, * FROM feedback WHERE rowid = ?"
            try:
                readable |= {conn.execute(sql, (rowid,)).fetchone()}
            except sqlite3.DatabaseError:
                continue
    assert 3 not in {row[0] for row in readable} and (len(readable) < 299) == page_too
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "  lost: mark on PR o/r#2 of note note-2: at unreadable (" in r.stdout, r.stdout
    with closing(sqlite3.connect(new)) as conn:
        kept = conn.execute("SELECT rowid, * FROM feedback ORDER BY rowid").fetchall()
    # kills: bot/salvage.py:_rowids_past the rowid before the damaged page, read ahead
    assert kept == sorted(readable)


def test_counters_that_do_not_read_are_named_lost(tmp_path):
    # The AUTOINCREMENT counters' page (sqlite_sequence) damaged: the copy counted on
    # from the last delivery copied, so the seq of deliveries deleted after it was given
    # again, and salvage said "nothing lost", exit 0.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    queue = DeliveryQueue(db)
    for i in range(3):
        queue.enqueue(f"d-{i}", "pull_request", "opened", {"n": i}, "o/r", i)
    db.execute("DELETE FROM deliveries WHERE id = 'd-2'")
    db.close()
    [counters] = leaf_pages(path, "sqlite_sequence")
    overwrite(path, counters)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "deliveries: 2 rows copied" in lines, r.stdout
    counters = "counters of the next numbers (a delivery's seq, a dry-run comment's id)"
    assert f"{counters}: not copied" in lines and "sqlite_sequence" not in r.stdout, r.stdout
    assert any(
        line.startswith("  lost: the counters: unreadable (DatabaseError: ")
        and "(a delivery's seq) may be given again" in line
        for line in lines
    ), r.stdout
    assert "nothing lost" not in r.stdout


# kills: bot/salvage.py:read_only a file shorter than its header says read as no database
def test_a_truncated_file_gives_what_its_pages_still_hold(tmp_path):
    # A file cut short (a failing disk, a copy interrupted) is shorter than its header
    # says: SQLite refuses even its schema, "database disk image is malformed", and
    # salvage said nothing could be copied, every PR's comment id and opt-out lost with
    # the last page. Told to trust the file's length (writable_schema, on a connection
    # that writes nothing), SQLite reads the pages that are there.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    for n in range(1, 61):
        prs.put(PRState("o/r", n, comment_id=n, opted_out=n == 7))
    FeedbackStore(db)
    for i in range(300):  # the file's last pages
        db.execute(
            "INSERT INTO feedback (repo, number, note_id, rank, login, at, withdrawn_at)"
            " VALUES ('o/r', ?, ?, 1, 'someone', 'then', 'later')",
            (i, f"note-{i}"),
        )
    db.close()
    with closing(sqlite3.connect(path)) as conn:
        [(last,)] = conn.execute("SELECT name FROM dbstat ORDER BY pageno DESC LIMIT 1")
    assert last == "feedback"
    path.write_bytes(path.read_bytes()[:-4096])
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1 and "schema cannot be read" not in r.stderr, r.stdout + r.stderr
    assert "pr_state: 60 rows copied" in r.stdout.splitlines(), r.stdout
    assert "nothing lost" not in r.stdout
    with closing(sqlite3.connect(new)) as conn:
        kept = conn.execute("SELECT number, comment_id, opted_out FROM pr_state ORDER BY number")
        assert kept.fetchall() == [(n, n, int(n == 7)) for n in range(1, 61)]
    assert _integrity(new) == ["ok"]


# kills: bot/salvage.py:_copy_counters the counter of a table with no row left not copied
def test_the_counter_of_a_table_with_no_row_left_is_copied(tmp_path):
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    queue = DeliveryQueue(db)
    for i in range(3):
        queue.enqueue(f"d-{i}", "pull_request", "opened", {"n": i}, "o/r", i)
    db.execute("DELETE FROM deliveries")  # pruned: their seq are never given again
    db.close()
    new = tmp_path / "new.sqlite3"
    assert _salvage(tmp_path, new).returncode == 0
    queue = DeliveryQueue(Database(new))
    queue.enqueue("d-3", "pull_request", "opened", {}, "o/r", 3)
    assert queue.db.execute("SELECT seq FROM deliveries")[0]["seq"] == 4


# kills: bot/salvage.py:_copy_scan the last rowid read taken from another column
def test_a_damaged_page_amid_the_pr_states_loses_its_prs_only(tmp_path):
    # the rows before the page, after it, and those on it named, each once
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    for n in range(1, 151):
        prs.put(PRState("o/r", n, comment_id=n * 10, files=("a.py",), files_sha="s"))
    db.close()
    leaves = leaf_pages(path, "pr_state")
    with closing(sqlite3.connect(path)) as conn:
        total = len(leaves)
        on_page = {
            n
            for (n,) in conn.execute(
                "SELECT number FROM pr_state WHERE rowid IN (SELECT rowid FROM pr_state"
                " ORDER BY rowid LIMIT (SELECT ncell FROM dbstat WHERE pageno = ?)"
                " OFFSET (SELECT sum(ncell) FROM dbstat WHERE name = 'pr_state'"
                " AND pagetype = 'leaf' AND path < (SELECT path FROM dbstat WHERE pageno = ?)))",
                (leaves[1], leaves[1]),
            )
        }
    assert total >= 3 and on_page and 1 not in on_page and 150 not in on_page
    overwrite(path, leaves[1])
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lost = [line for line in r.stdout.splitlines() if line.startswith("  lost: ")]
    assert lost == [
        f"  lost: PR o/r#{n}: nothing of it reads (DatabaseError: database disk image is malformed)"
        for n in sorted(on_page)
    ], r.stdout
    with closing(sqlite3.connect(new)) as conn:
        kept = conn.execute("SELECT number, comment_id FROM pr_state ORDER BY number").fetchall()
    assert kept == [(n, n * 10) for n in range(1, 151) if n not in on_page]


@pytest.mark.parametrize("page", ["interior", "root"])
def test_rows_beneath_a_damaged_interior_page_are_counted_as_maybe_lost(tmp_path, page):
    # An interior page of a table's b-tree damaged hides every row beneath it, each on a
    # sound leaf page: a rowid's lookup and a scan both go through the damaged page, and
    # Python's sqlite3 has no other way to the leaves (no sqlite_dbpage; dbstat walks the
    # same tree), nor an index holding every column of the marks of /notes wrong. The
    # report said "maybe lost: rows its indexes do not list" for 1,500 marks, as for a
    # leaf's few: it now counts them by the rowids between the rows read on either side
    # of the damage (not known when none is read after it); and the report's last line
    # says what a backup holds.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    FeedbackStore(db)
    for i in range(3000):  # (rows of 1 KB: three to a leaf, two levels of interior pages)
        db.execute(
            "INSERT INTO feedback (repo, number, note_id, rank, login, at, reason, withdrawn_at)"
            " VALUES ('o/r', ?, ?, 1, 'someone', 'then', ?, 'later')",
            (i, f"note-{i}", "r" * 1000),
        )
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    with closing(sqlite3.connect(path)) as conn:
        interior = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'feedback' AND pagetype = 'internal'"
            " ORDER BY path"
        ).fetchall()
    root, first, *_ = [p for (p,) in interior]
    overwrite(path, root if page == "root" else first)
    with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        with pytest.raises(sqlite3.DatabaseError):  # (the first row is beneath the damage)
            conn.execute("SELECT * FROM feedback WHERE rowid = 1").fetchall()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    with closing(sqlite3.connect(new)) as conn:
        kept = [rowid for (rowid,) in conn.execute("SELECT rowid FROM feedback ORDER BY rowid")]
    said = (
        "on or beneath damaged pages, unnamed: no index lists every row of the table"
        " (DatabaseError: database disk image is malformed)"
    )
    if page == "root":
        assert kept == []
        many = "an unknown number of rows (rowids from 1 on)"
    else:  # the rows of the other half, past the damage, are read from the end back
        assert 0 < len(kept) < 3000 and kept == list(range(kept[0], 3001)), kept[:3]
        many = f"up to {kept[0] - 1} rows (rowids 1 to {kept[0] - 1})"
    assert f"feedback: {len(kept)} rows copied" in lines, r.stdout
    assert f"  maybe lost: {many} {said}" in lines, r.stdout
    assert BACKUP_SAID in lines[-1]


# kills: bot/salvage.py:_look_up a rowid an index lists looked up, counted among the unnamed
# kills: bot/salvage.py:_row_name the index read past the row's entry, to its damaged page
def test_rows_an_index_read_in_part_names_are_not_counted_among_the_maybe_lost(tmp_path):
    # The index of the kept numbers' key damaged at its end, and a page of the table in
    # the middle: no index lists every row, but the one read in part names each row of
    # the damaged page (lost, one by one), so no rowid between the scans is unaccounted
    # for, and no "maybe lost" line counts them again as unnamed.
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    FeedbackStore(db)
    for number in range(1, 301):  # (the key's order is the rowids')
        db.execute(
            "INSERT INTO numbering (repo, number, origin, shown, at)"
            " VALUES ('o/r', ?, 'comment:1', ?, 'then')",
            (number, json.dumps([f"note-{n}" for n in range(8)])),
        )
    db.close()
    table, index = leaf_pages(path, "numbering"), leaf_pages(path, "sqlite_autoindex_numbering_1")
    assert len(table) >= 4 and len(index) >= 2
    overwrite(path, table[1])
    overwrite(path, index[-1])
    r = _salvage(tmp_path, tmp_path / "new.sqlite3")
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    lost = [line.split(": ")[1] for line in lines if line.startswith("  lost: ")]
    assert 0 < len(lost) < 100, r.stdout  # (those of the damaged page)
    # each named from its entry, before the index's damaged page (which was read past
    # it, and each was named 'numbering row N (its name unreadable)')
    assert lost[0].startswith("numbers of PR o/r#"), r.stdout
    first = int(lost[0].removeprefix("numbers of PR o/r#").split()[0])
    named = [f"numbers of PR o/r#{n} read in comment:1" for n in range(first, first + len(lost))]
    assert lost == named, r.stdout
    assert f"numbering: {300 - len(lost)} rows copied, {len(lost)} lost" in lines, r.stdout
    assert not [line for line in lines if "maybe lost" in line], r.stdout


# kills: bot/salvage.py:_row_name no name for a row whose name reads neither from the row
#   nor from an index
def test_a_row_whose_name_reads_nowhere_is_named_by_its_rowid(tmp_path):
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    PRStore(db).put(PRState(f"o/{'z' * 20_000}", 1, files_sha="abc", files=("a.py",)))
    db.close()
    break_overflow_chain(path, b"z" * 200)  # (the name's pages, the row's and the index's)
    r = _salvage(tmp_path, tmp_path / "new.sqlite3")
    assert r.returncode == 1, r.stdout + r.stderr
    lost = [line for line in r.stdout.splitlines() if line.startswith("  lost: pr_state")]
    assert [line.split(": ")[1] for line in lost] == ["pr_state row 1 (its name unreadable)"]


# kills: bot/salvage.py ROW_NAMES a lost dry-run comment named by its rowid alone
def test_a_lost_dry_run_comment_is_named_by_its_pr(tmp_path):
    # A dry run's comment (never on GitHub) whose long text a failing disk broke: the
    # operator learns which PR's dry-run comment the copy lacks (its next write posts anew).

    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    DeliveryQueue(db)  # (salvage knows the bot's file by its tables)
    port = DryRunGitHub(db)
    made = port.create_comment(PRRef("o/r", 3, 1), "y" * 20_000)
    db.close()
    break_overflow_chain(path, b"y" * 200)
    r = _salvage(tmp_path, tmp_path / "new.sqlite3")
    assert r.returncode == 1, r.stdout + r.stderr
    lost = [line.split(": ")[1] for line in r.stdout.splitlines() if line.startswith("  lost: ")]
    assert lost == [f"a dry run's comment {made} on PR o/r#3 (never on GitHub)"]


# kills: bot/salvage.py ROW_NAMES a lost dry-run reaction or outage pause named by rowid alone
def test_a_dry_run_reaction_and_the_outage_pause_are_named_by_what_they_hold(tmp_path):

    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    DeliveryQueue(db)
    DryRunGitHub(db).add_reaction(PRRef("o/r", 3, 1), 12, "eyes")
    db.execute("INSERT INTO github_outage (id, until) VALUES (1, '2026-09-01T10:00:00Z')")
    db.close()
    with closing(sqlite3.connect(path)) as source:
        reaction = _row_name(source, "dry_run_reactions", 1, [])
        outage = _row_name(source, "github_outage", 1, [])
    assert reaction == "a dry run's reaction eyes to its comment 12 on PR o/r#3"
    assert outage == (
        "the pause of every delivery while GitHub is down, until 2026-09-01T10:00:00Z"
        " (without it the server claims deliveries at once)"
    )


def test_every_table_of_the_bots_file_has_a_name_for_its_rows(tmp_path):
    # A row salvage loses is named by ROW_NAMES, or by its rowid alone, which tells the
    # operator nothing: a table added since must add its names (the dry run's, too).

    rt = build_runtime(make_settings(tmp_path, dry_run=True))
    rt.db.close()
    with closing(sqlite3.connect(tmp_path / "bot.sqlite3")) as conn:
        tables = {
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        }
    assert {"deliveries", "pr_state", "dry_run_comments", "github_outage"} <= tables
    assert sorted(tables - set(ROW_NAMES)) == []

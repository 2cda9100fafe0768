"""bot/db.py on its own: the file's names, the server lock's edges (the queue's tests
cover the rest of the lock and the transactions)."""

from __future__ import annotations

import fcntl
import os
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

from bot import db as bot_db
from bot.db import SCHEMA_VERSION, Database, NewerDatabase, is_locked
from bot.queue import DeliveryQueue
from tests.webhook_kit import wait_until

# --- the database file, its locks and its lock files -------------------------------------


# kills: bot/db.py:Database.__init__ `parents=True` -> False: a REVIEW_NOTES_DB_PATH in directories
#        not made yet (a fresh volume) failed at start
def test_a_database_in_directories_not_made_yet_is_created(tmp_path):
    db = Database(tmp_path / "var" / "lib" / "x.sqlite3")
    try:
        assert db.execute("SELECT 1 AS one")[0]["one"] == 1
    finally:
        db.close()


def test_a_read_goes_on_beside_a_write_holding_the_lock(tmp_path):
    """What /healthz and /metrics read (`Database.read`) does not wait for the writers'
    lock, which a claim holds through SQLite's busy wait while another process holds the
    file's: it reads the last commit, not the open transaction; and it never writes,
    which would bypass that lock."""
    db = Database(tmp_path / "x.sqlite3")
    db.execute("CREATE TABLE t (x)")
    db.execute("INSERT INTO t VALUES (1)")
    writing, done = threading.Event(), threading.Event()

    def write() -> None:
        with db.tx() as conn:
            conn.execute("INSERT INTO t VALUES (2)")
            writing.set()
            done.wait(10)  # (a read behind the lock would get in after this, seeing 2 rows)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        assert writing.wait(10)
        assert db.read("SELECT COUNT(*) AS n FROM t")[0]["n"] == 1
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.read("INSERT INTO t VALUES (3)")
    finally:
        done.set()
        writer.join()
    assert db.read("SELECT COUNT(*) AS n FROM t")[0]["n"] == 2  # the commit, once made
    db.close()


# kills: bot/db.py:Database.link_count -> None: the hard-link refusal at start
#        (server.claim_database) compared None with 1 and crashed instead of naming the other link
def test_link_count_counts_the_files_names(tmp_path):
    db = Database(tmp_path / "x.sqlite3")
    try:
        assert db.link_count() == 1
        os.link(tmp_path / "x.sqlite3", tmp_path / "other.sqlite3")
        assert db.link_count() == 2
    finally:
        db.close()


# kills: bot/db.py:Database.acquire_server_lock the unlock skipped when a lock file refuses after
#        the file's own flock was taken: a refused server kept the database file locked, so the
#        server that should run next was refused too, as long as the refused one lived;
#        bot/db.py:Database.acquire_server_lock `return False` -> None (declared bool)
def test_a_refused_server_holds_no_lock_on_the_database_file(tmp_path):
    path = tmp_path / "x.sqlite3"
    earlier = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o644)  # another server's
    fcntl.flock(earlier, fcntl.LOCK_EX | fcntl.LOCK_NB)
    refused = Database(path)
    try:
        assert refused.acquire_server_lock() is False
        os.close(earlier)  # that server stops; the refused process is still up
        nxt = Database(path)
        try:
            assert nxt.acquire_server_lock() is True
        finally:
            nxt.close()
    finally:
        refused.close()


# kills: bot/db.py:Database.acquire_server_lock LOCK_EX -> LOCK_SH on the file itself: two servers
#        whose lock files differ (a bind mount of the file; or the lock file removed and made anew)
#        both started on one database
def test_two_servers_with_lock_files_of_their_own_still_exclude_each_other(tmp_path):
    path = tmp_path / "x.sqlite3"
    first, second = Database(path), Database(path)
    try:
        assert first.acquire_server_lock()
        os.unlink(f"{path}.lock")  # the second server's lock file is another inode now
        assert not second.acquire_server_lock()
    finally:
        first.close()
        second.close()


# kills: bot/db.py:Database.checkpoint_in_background daemon=True -> False: a process that ends
#        without close() (a start-up that fails after the checkpoints began) waited for ever on the
#        thread
def test_a_process_that_never_closes_the_database_still_exits(tmp_path):
    script = (
        "import sys; from bot.db import Database\n"
        "Database(sys.argv[1]).checkpoint_in_background(every=0.01)\n"
        "print('exiting')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "x.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,  # a guard against the hang, far above a normal exit
    )
    assert (done.returncode, done.stdout) == (0, "exiting\n"), done.stderr


# --- the stores' prunings' one statement (Database.delete_before) ---------------------------


# kills: bot/db.py:Database.delete_before (hand) `{at} < ?` -> `{at} <= ?`: a record written at
#        the cutoff pruned, as retention prunes no delivery received at it (the same cut)
def test_delete_before_deletes_up_to_the_limit_older_than_the_cut_of_which_where_holds():
    db = Database(":memory:")
    db.script("CREATE TABLE records (name TEXT, at TEXT, kind TEXT)")
    rows = [("old a", "2000", "x"), ("old b", "2000", "x"), ("old y", "2000", "y")]
    rows += [("at the cut", "2001", "x"), ("new", "2002", "x")]
    db.execute("INSERT INTO records VALUES " + ", ".join(["(?, ?, ?)"] * 5), sum(rows, ()))
    assert db.delete_before("records", "at", "2001", 1, "kind = ?", ("x",)) == 1
    assert db.delete_before("records", "at", "2001", 5, "kind = ?", ("x",)) == 1
    assert db.delete_before("records", "at", "2001", 5, "kind = ?", ("x",)) == 0
    left = {r["name"] for r in db.execute("SELECT name FROM records")}
    assert left == {"old y", "at the cut", "new"}


# --- the file's schema version (PRAGMA user_version) -----------------------------------------


def _version(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _a_queue_file(path, version: int) -> None:
    """A file with one queued delivery, of schema `version` (0: a release before versions)."""
    db = Database(path)
    DeliveryQueue(db).enqueue("d-1", "pull_request", "opened", {"n": 1}, "o/r", 1)
    db.execute(f"PRAGMA user_version = {version}")
    db.close()


# kills: bot/db.py:Database._check_version the version never set (a new file, an older one)
def test_a_new_file_and_an_older_one_get_this_releases_schema_version(tmp_path):
    Database(tmp_path / "new.sqlite3").close()
    assert _version(tmp_path / "new.sqlite3") == SCHEMA_VERSION
    older = tmp_path / "older.sqlite3"
    _a_queue_file(older, 0)
    db = Database(older)
    db.execute("ALTER TABLE deliveries DROP COLUMN waits")  # a release before the column
    db.close()
    queue = DeliveryQueue(Database(older))  # upgraded as before: the column added
    assert queue.get("d-1").waits == 0
    queue.db.close()
    assert _version(older) == SCHEMA_VERSION


# kills: bot/db.py:Database._check_version `>` -> `>=` (a file of this release refused) and the
#        refusal dropped (a newer file opened, written and read as this release's)
def test_a_file_of_a_newer_schema_version_is_refused_unchanged(tmp_path):
    ours = tmp_path / "ours.sqlite3"
    _a_queue_file(ours, SCHEMA_VERSION)
    Database(ours).close()  # this release's own file opens
    newer = tmp_path / "newer.sqlite3"
    _a_queue_file(newer, SCHEMA_VERSION + 1)
    before = newer.read_bytes()
    with pytest.raises(NewerDatabase) as refused:
        Database(newer)
    said = str(refused.value)
    assert f"{newer}: a database of schema version {SCHEMA_VERSION + 1}" in said, said
    assert f"(which reads version {SCHEMA_VERSION} and older)" in said, said
    assert "nothing in it was changed" in said and "REVIEW_NOTES_DB_PATH" in said, said
    assert newer.read_bytes() == before
    assert _version(newer) == SCHEMA_VERSION + 1


# kills: bot/db.py:Database._check_version the refused file's connection left open
def test_a_refused_newer_file_leaves_no_connection_open(tmp_path, monkeypatch):
    newer = tmp_path / "newer.sqlite3"
    _a_queue_file(newer, SCHEMA_VERSION + 1)
    made: list[sqlite3.Connection] = []
    real_connect = sqlite3.connect

    def connect(*args, **kwargs):
        made.append(real_connect(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(sqlite3, "connect", connect)
    with pytest.raises(NewerDatabase):
        Database(newer)
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        made[0].execute("SELECT 1")


# --- another process's lock, waited for in short tries (Database.tx, Database.execute) -------


def _held_by_another_thread(lock) -> bool:
    """`lock` (the Database's in-process RLock) is held by another thread right now."""
    if not lock.acquire(blocking=False):
        return True
    lock.release()
    return False


def _waiting_write(db: Database, how: str, outcome: list[str], done: threading.Event) -> None:
    """A run's own write with the default wait (SQLite's 10 s): in a transaction or one
    statement alone; its outcome ("stored" or the error) in `outcome`."""
    try:
        if how == "tx":
            with db.tx() as conn:
                conn.execute("INSERT INTO t VALUES ('run')")
        else:
            db.execute("INSERT INTO t VALUES ('run')")
        outcome.append("stored")
    except sqlite3.Error as exc:
        outcome.append(str(exc))
    finally:
        done.set()


# kills: bot/db.py:Database.tx and Database.execute a default write holding the in-process lock
#        through its whole wait for another process's lock: every other write of the process
#        (a worker's claim, the intake's delivery) waited behind it for its 10 s
@pytest.mark.parametrize("how", ["tx", "execute"])
def test_a_write_waiting_for_another_process_lets_the_other_writes_answer_in_their_wait(
    tmp_path, monkeypatch, how
):
    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 10.0)  # the server's own
    db = Database(tmp_path / "x.sqlite3")
    db.execute("CREATE TABLE t (x)")
    holder = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock (a VACUUM)
    outcome: list[str] = []
    done = threading.Event()
    run = threading.Thread(target=_waiting_write, args=(db, how, outcome, done))
    run.start()
    try:
        assert wait_until(lambda: _held_by_another_thread(db._lock) or done.is_set())
        answered = []
        for wait, write in (
            ("0.2 s", lambda: db.tx(busy_timeout=0.2)),  # a worker's claim
            ("until", lambda: db.tx(until=time.monotonic() + 0.5)),  # the intake's delivery
        ):
            started = time.monotonic()
            with pytest.raises(sqlite3.OperationalError) as refused:
                with write():
                    pass
            answered.append(f"{wait}: {time.monotonic() - started:.2f}s")
            assert is_locked(refused.value), refused.value
            assert not done.is_set(), f"answered after the run's write ended: {answered}"
        print(f"the run's {how} waiting: the other writes answered in {answered}")
    finally:
        holder.execute("ROLLBACK")  # the lock ends within the run's 10 s: its write is stored
        holder.close()
        run.join(20)
    assert outcome == ["stored"]
    assert [r["x"] for r in db.execute("SELECT x FROM t")] == ["run"]
    db.close()


def _begun(db: Database) -> None:
    with db.tx():
        pass


# kills: bot/db.py:Database.tx a default write given up after its first short try (or the
#        slices' total counted from the in-process lock), not after the whole busy timeout;
#        the short last try's busy timeout left on the connection
def test_a_default_write_under_a_lock_that_lasts_still_fails_after_the_whole_busy_timeout(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 1.0)
    db = Database(tmp_path / "x.sqlite3")
    db.execute("CREATE TABLE t (x)")
    holder = sqlite3.connect(tmp_path / "x.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        for write in (lambda: db.execute("INSERT INTO t VALUES (1)"), lambda: _begun(db)):
            started = time.monotonic()
            with pytest.raises(sqlite3.OperationalError, match="database is locked") as refused:
                write()
            waited = time.monotonic() - started
            print(f"refused after {waited:.2f}s")
            assert waited >= 0.9, "gave up before the busy timeout"
            assert refused.value.sqlite_errorname == "SQLITE_BUSY"  # SQLite's, as ever
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert db.execute("PRAGMA busy_timeout")[0][0] == round(bot_db.LOCK_TRY_SECONDS * 1000)
    with db.tx() as conn:  # the lock gone, the in-process lock free again
        conn.execute("INSERT INTO t VALUES (2)")
    assert [r["x"] for r in db.execute("SELECT x FROM t")] == [2]
    db.close()

"""bot/db.py on its own: GitHub's time format, the file's names, the server lock's edges
(the queue's tests cover the rest of the lock and the transactions)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys

from bot.db import Database, as_github_time, github_time, utcnow

# --- mutation review r26g ----------------------------------------------------------------


# kills: bot/db.py:as_github_time `or` -> `and` (a number from a payload reached fromisoformat: a
#        TypeError, not None) and the `not isinstance` dropped (every text not a time);
#        bot/db.py:as_github_time `is None` -> `is not None` (an offset overwritten, not converted);
#        bot/db.py:as_github_time -> None (no time ever read)
def test_github_time_of_texts_offsets_and_things_not_times():
    assert as_github_time("2030-01-01T12:00:00+02:00") == "2030-01-01T10:00:00Z"
    assert as_github_time("2030-01-01T10:00:00.250Z") == "2030-01-01T10:00:00Z"
    for not_a_time in (None, "", 20300101, ["2030-01-01"], "not a date"):
        assert as_github_time(not_a_time) is None, not_a_time


# kills: bot/db.py:github_time `or` -> `and` (a time given replaced by now) and -> None: the
#        time an edit was received at, written in GitHub's format, is the one given,
#        and now only when none (or no time) was given
def test_github_time_is_the_time_given_else_now():
    assert github_time("2030-01-01T12:00:00+02:00") == "2030-01-01T10:00:00Z"
    for not_given in (None, "not a date"):
        before = as_github_time(utcnow())
        now = github_time(not_given)
        assert before <= now <= as_github_time(utcnow()), now  # ordered, not timed


# kills: bot/db.py:Database.__init__ `parents=True` -> False: a REVIEW_NOTES_DB_PATH in directories
#        not made yet (a fresh volume) failed at start
def test_a_database_in_directories_not_made_yet_is_created(tmp_path):
    db = Database(tmp_path / "var" / "lib" / "x.sqlite3")
    try:
        assert db.execute("SELECT 1 AS one")[0]["one"] == 1
    finally:
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

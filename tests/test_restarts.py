"""What a start makes of the database it finds (the operator's bad days): a file it
cannot write or another process holds is refused in words; a second server reaching
the file through a bind mount is refused; the redelivery sweep starts from the
newest delivery GitHub sent; a delivery given up is logged and counted.

Real parts only: `review-notes serve` as a process, its SQLite file in tmp_path, the
fake GitHub over HTTP.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.docs_kit import doc
from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_REPO
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    PY,
    ROOT,
    SECRET,
    SHORT_BUSY_TIMEOUT,
    LiveServer,
    app_env,
    base_env,
    cli,
    free_port,
    pr_payload,
    wait_until,
)

BOT = f"{DEFAULT_APP_SLUG}[bot]"


# --- a database file the server cannot write, or one another process holds ----------


def _unwritable(path: Path) -> Callable[[], None]:
    """Make `path` a file this process can read but not write (as a root-owned file in
    a volume the image's uid 10001 writes to); returns the undo. Root ignores modes: the
    immutable flag refuses it writes too."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return lambda: path.chmod(0o644)
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot make a file read-only for root here (no chattr +i)")
    return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)


def _a_database_a_server_wrote(tmp_path: Path) -> Path:
    """The dry run's database after one run of `review-notes serve` (stopped cleanly)."""
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    with LiveServer(tmp_path, env).run():
        pass
    db = tmp_path / "bot.sqlite3"
    assert db.is_file() and not Path(f"{db}-wal").exists()
    return db


def _cli_while_unwritable(tmp_path: Path, path: Path, *command: str) -> subprocess.CompletedProcess:
    """`review-notes <command>` with the dry run's settings in tmp_path, while `path` (the
    database or its directory) cannot be written (`_unwritable`); it ends in no traceback."""
    undo = _unwritable(path)
    try:
        env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
        r = cli(*command, env=env, cwd=tmp_path, timeout=60)
    finally:
        undo()
    assert "Traceback" not in r.stderr, r.stderr[-1500:]
    return r


def test_serve_on_a_database_file_it_cannot_write_is_a_clear_settings_error(tmp_path):
    """docs/reliability.md (start-up refusals in full): the server refuses to start, naming
    REVIEW_NOTES_DB_PATH, on a path "where this user cannot create or write the file,
    e.g. a root-owned bind mount". A file it can read but not write, in a directory it
    can write (a backup restored by root into the volume: `docker cp`, `cp` as root;
    the image runs as uid 10001), opens fine (every table exists, so opening writes
    nothing) and the start then dies in claim_pr_state's first write with a traceback
    ("sqlite3.OperationalError: attempt to write a readonly database", exit 1) instead of
    the configuration error (exit 2) the other unusable paths get."""
    db = _a_database_a_server_wrote(tmp_path)
    r = _cli_while_unwritable(tmp_path, db, "serve", "--port", str(free_port()))
    assert r.returncode == 2, (r.returncode, r.stderr[-800:])
    assert "REVIEW_NOTES_DB_PATH: " in r.stderr, r.stderr[-800:]


# kills: bot/server.py:build_runtime (hand) the tables and columns of the stores BotContext
#   makes, an older file's first write, failing outside the start's refusals: a traceback
@pytest.mark.parametrize(
    "older",
    ["DROP TABLE command_decisions", "ALTER TABLE numbering DROP COLUMN delivery"],
    ids=["before-command-decisions", "before-numbering-delivery"],
)
def test_serve_on_an_older_file_it_cannot_write_is_the_same_settings_error(tmp_path, older):
    """As above, with the file of a release before a table or column the stores the
    bot's context opens (the decisions on commands, the kept numbers' delivery) add at
    start: that is then the start's first write, made before the writes whose refusal
    is said, and the start died in a traceback ("attempt to write a readonly database",
    exit 1)."""
    db = _a_database_a_server_wrote(tmp_path)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(older)
        conn.commit()
    r = _cli_while_unwritable(tmp_path, db, "serve", "--port", str(free_port()))
    assert r.returncode == 2, (r.returncode, r.stderr[-800:])
    assert f"REVIEW_NOTES_DB_PATH: {db}: attempt to write a readonly database" in r.stderr


# kills: bot/cli.py:existing_database a database whose directory this user cannot write said
#   'unable to open database file', the file being there and readable
# kills: bot/cli_server.py:_cmd_retry a re-queue refused by a read-only file said without what to
#   check
@pytest.mark.parametrize(
    ("command", "unwritable"), [(("retry",), "dir"), (("retry", "--all"), "file")]
)
def test_retry_on_a_database_this_user_cannot_write_says_what_to_check(
    tmp_path, command, unwritable
):
    """The operator runs `review-notes retry` from the host on the volume's file, which
    the image's uid 10001 owns: SQLite makes the -shm file beside the database even to
    read it, and a re-queue writes it. It said 'unable to open database file' or
    'attempt to write a readonly database' alone, of a file that is there; the server
    names its uid and what to check, and so does `retry` now."""
    db = _a_database_a_server_wrote(tmp_path)
    r = _cli_while_unwritable(tmp_path, db.parent if unwritable == "dir" else db, *command)
    assert r.returncode != 0
    assert f"review-notes: {db}: " in r.stderr, r.stderr
    assert f"(can this user, uid {os.getuid()}, write to it and to its directory?)" in r.stderr


def _a_file_of_the_release_before(tmp_path: Path) -> Path:
    """A database with one failed delivery as the releases before the waits column and
    the first times of the events a sweep asks for left it."""
    from bot.db import Database
    from bot.queue import DeliveryQueue, Incoming

    path = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(path))
    queue.enqueue_many([Incoming("gh-1", "pull_request", "opened", "{}", "o/r", 1)])
    claimed = queue.claim()
    assert claimed is not None
    queue.fail(claimed.id, "boom")
    queue.db.execute("ALTER TABLE deliveries DROP COLUMN waits")  # the release before's
    queue.db.execute("ALTER TABLE deliveries DROP COLUMN sent_at")
    queue.db.execute("DROP TABLE first_sent")
    queue.db.execute("PRAGMA user_version = 0")  # (the releases before set none)
    queue.db.close()
    return path


# kills: bot/queue.py:DeliveryQueue._add_missing_columns a read-only file without the waits column
#   refused, as the column could not be added (the release before had none)
def test_retry_lists_a_read_only_file_of_the_release_before_the_waits_column(tmp_path):
    """An earlier review held that `review-notes retry`, listing, opens a file it
    cannot write from the release before (a backup restored by root, read from the
    host). The waits column added since is added at opening: on that file the ALTER
    TABLE failed, 'attempt to write a readonly database', and nothing was listed."""
    r = _cli_while_unwritable(tmp_path, _a_file_of_the_release_before(tmp_path), "retry")
    assert r.returncode == 0, r.stderr[-800:]
    assert "gh-1  pull_request.opened  o/r PR 1  boom" in r.stdout
    assert "1 failed delivery;" in r.stdout


# kills: bot/queue.py:DeliveryQueue._retry (hand) a re-queue on a read-only file left without
#   the waits column said as SQLite's 'no such column: waits', not what to check
@pytest.mark.parametrize("command", [("retry", "--all"), ("retry", "gh-1")])
def test_retry_on_a_read_only_file_of_the_release_before_says_what_to_check(tmp_path, command):
    path = _a_file_of_the_release_before(tmp_path)
    r = _cli_while_unwritable(tmp_path, path, *command)
    assert r.returncode != 0
    assert f"review-notes: {path}: attempt to write a readonly database" in r.stderr
    assert f"(can this user, uid {os.getuid()}, write to it and to its directory?)" in r.stderr


# kills: bot/server.py:_open_database (hand) a newer release's file met in a traceback;
#        bot/cli.py:existing_database (hand) the same for `retry`
@pytest.mark.parametrize("command", [("serve",), ("retry",), ("retry", "--all")])
def test_a_file_of_a_newer_release_is_refused_in_words_and_left_as_it_was(tmp_path, command):
    """docs/upgrading.md (Rolling back, and the schema version): a rollback to a release
    that cannot read the file a newer one wrote (its schema version is higher) stops the
    start, and `retry`, naming the file, its version and ours, and what to do, without
    writing to it."""
    from bot.db import SCHEMA_VERSION

    db = _a_file_of_the_release_before(tmp_path)
    with closing(sqlite3.connect(db)) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    before = db.read_bytes()
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    extra = ("--port", str(free_port())) if command == ("serve",) else ()
    r = cli(*command, *extra, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == (1 if command == ("serve",) else 2), r.stderr[-1500:]
    assert "Traceback" not in r.stderr, r.stderr[-1500:]
    said = f"review-notes: {db}: a database of schema version {SCHEMA_VERSION + 1}"
    assert said in r.stderr, r.stderr
    assert f"this one (which reads version {SCHEMA_VERSION} and older)" in r.stderr
    if command == ("serve",):
        assert "older): not starting; nothing in it was changed" in r.stderr, r.stderr
    assert db.read_bytes() == before


def serve_while_another_holds(tmp_path: Path, db: Path) -> subprocess.CompletedProcess:
    """`review-notes serve` (this release) while another connection holds the database's
    write lock (a VACUUM, a sqlite3 shell in a transaction) past the busy timeout (1 s
    here, SHORT_BUSY_TIMEOUT: the lock is held until the server has exited)."""
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        env = base_env(
            tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET, **SHORT_BUSY_TIMEOUT
        )
        return cli("serve", "--port", str(free_port()), env=env, cwd=tmp_path, timeout=90)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_serve_on_a_database_another_process_holds_says_so_without_a_traceback(tmp_path):
    """A database another process holds past SQLite's 10 s busy timeout (the
    docs/operating.md's own `VACUUM` run on a large file, an operator's `sqlite3` shell left in a
    transaction) stops `review-notes serve` with a Python traceback ("database is
    locked", from claim_pr_state's transaction) where `review-notes retry` on the same
    file names it, as locked, in one line (docs/operating.md, "Failures and restarts"). A start
    refused must say why in words, as every other refusal at start does."""
    db = _a_database_a_server_wrote(tmp_path)
    r = serve_while_another_holds(tmp_path, db)
    assert r.returncode != 0
    assert "Traceback" not in r.stderr, r.stderr[-1500:]
    assert str(db.name) in r.stderr and "locked" in r.stderr, r.stderr[-800:]


def _no_room_past(size: int) -> Callable[[], None]:
    """For a child process: writes past `size` bytes of a file fail, as on a full disk
    (EFBIG from the file-size limit, SIGXFSZ ignored), what SQLite meets as ENOSPC."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def _refused_start(tmp_path: Path, **run: Any) -> subprocess.CompletedProcess:
    """`serve` on the database at tmp_path, which must refuse to start: exit 1, its
    cause in words, no traceback."""
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    r = subprocess.run(
        [PY, "-m", "bot.cli", "serve", "--port", str(free_port())],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        **run,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-1500:]
    return r


def test_serve_on_a_full_disk_says_the_disk_may_be_full_not_only_disk_io_error(tmp_path):
    """A volume filled up (a log, a backup beside the database) and the server restarted
    (the platform's restart after /healthz failed, an upgrade): SQLite cannot make its
    shared-memory file (`<file>-shm`, 32 KB) and says "disk I/O error"
    (SQLITE_IOERR_SHMSIZE), which the start printed as such, reading like a failing disk,
    not naming the fix: make room. A review met it on a full tmpfs."""
    db = _a_database_a_server_wrote(tmp_path)
    r = _refused_start(tmp_path, preexec_fn=_no_room_past(16 * 1024))  # under -shm's 32 KB
    assert str(db) in r.stderr and "disk full?" in r.stderr, r.stderr[-800:]
    assert "bytes free" in r.stderr and "make room" in r.stderr, r.stderr[-800:]


def test_a_restart_after_a_kill_on_a_full_disk_is_refused_in_a_line_before_listening(tmp_path):
    """A server killed with deliveries in hand (an OOM kill, `docker stop` past its 10 s)
    is started again on a disk that has filled meanwhile. The start's one write before
    it listens had nothing to write (no PR's event time to forget), so it passed; the
    deliveries left `processing` were put back by the app's start-up, after the banner
    said where the webhook is: SQLite's "database or disk is full" came as uvicorn's
    traceback in a JSON line, "Application startup failed", exit 3. Now they are put back
    with the start's other writes, before it listens, and a refusal is said in a line,
    exit 1, as for the other writes."""
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = _a_database_a_server_wrote(tmp_path)
    queue = DeliveryQueue(Database(db))
    for i in range(60):  # left processing by the kill, over some 50 pages of the file
        queue.enqueue(f"d-{i}", "pull_request", "opened", {"pad": "x" * 3000}, DEFAULT_REPO, i + 1)
    queue.db.execute("UPDATE deliveries SET state = 'processing', attempts = 1")
    queue.db.close()
    # the -shm file fits, not the writes' WAL
    r = _refused_start(tmp_path, preexec_fn=_no_room_past(48 * 1024))
    assert "webhook at" not in r.stdout, r.stdout
    # (a full disk is SQLite's "database or disk is full"; past the file-size limit, its
    # "disk I/O error")
    assert f"review-notes: {db}: disk I/O error; not starting" in r.stderr, r.stderr[-800:]


def _damage(db: Path, page: int) -> None:
    """Overwrite a page of the file (4 KB) after its header, as a failing disk may."""
    good = db.read_bytes()
    start = max(page * 4096, 100)
    db.write_bytes(good[:start] + b"\xff" * (4096 * (page + 1) - start) + good[4096 * (page + 1) :])


@pytest.mark.parametrize(
    ("command", "page"), [(("serve",), 1), (("retry",), 0), (("retry", "--all"), 1)]
)
def test_a_damaged_database_is_said_damaged_not_another_kind_of_file(tmp_path, command, page):
    """A database file with a damaged page (a failing disk; a backup copied without its
    -wal file while the server wrote, then restored) was refused by `serve` as a
    configuration error, "not an SQLite database (database disk image is malformed)", and
    by `retry` as "not a review-notes database", or with a traceback: the operator looks
    for a wrong REVIEW_NOTES_DB_PATH, where the file is theirs and needs restoring.
    A review overwrote a page of one."""
    db = _a_database_a_server_wrote(tmp_path)
    _damage(db, page)
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    extra = ("--port", str(free_port())) if command == ("serve",) else ()
    r = cli(*command, *extra, env=env, cwd=tmp_path, timeout=60)
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr[-1500:]
    assert str(db) in r.stderr and "not a" not in r.stderr, r.stderr
    assert "damaged" in r.stderr and "backup" in r.stderr, r.stderr


def test_a_damaged_page_of_the_pr_state_stops_the_start_saying_damaged(tmp_path):
    """A start goes past one PR's damaged state row (its values' pages), not past a
    damaged page of the table, which the start's update of every PR's row (forgetting
    which event set its time) reads whole: `serve` ended in a traceback, "DatabaseError:
    database disk image is malformed", no file named nor fix. It is said as the file's
    other damage is, with the fix (a salvage, without a backup)."""
    from bot.db import Database
    from bot.prstate import PRState, PRStore
    from tests.damage_kit import leaf_pages, overwrite

    db_path = _a_database_a_server_wrote(tmp_path)
    db = Database(db_path)
    prs = PRStore(db)
    for n in range(1, 150):  # pages of PR state
        prs.put(PRState("o/r", n, comment_id=n, files=("a.py",), event_by=f"d-{n}"))
    db.close()
    overwrite(db_path, leaf_pages(db_path, "pr_state")[1])
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    r = cli("serve", "--port", str(free_port()), env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-1500:]
    said = (
        f"review-notes: {db_path}: a damaged SQLite database (database disk image is"
        " malformed); not starting: stop the server, then restore it from a backup"
    )
    assert said in r.stderr and "review-notes salvage NEW_FILE" in r.stderr, r.stderr[-1500:]


# kills: bot/cli_notes.py:_cmd_notes_feedback a damaged table past the opening ending in a traceback
def test_notes_feedback_on_a_damaged_table_says_damaged_with_the_fix(tmp_path):
    """The opening's look at the file reads its schema only: a page of the PR state
    damaged (a failing disk) ended `notes feedback` in a traceback, where `retry` names
    the file as damaged, with the fix."""
    db = _a_database_a_server_wrote(tmp_path)
    from contextlib import closing

    with closing(sqlite3.connect(db)) as conn:
        [(root,)] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'pr_state'")
    _damage(db, root - 1)  # (pages count from 1)
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    r = cli("notes", "feedback", env=env, cwd=tmp_path, timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr[-1500:]
    said = f"review-notes: {db}: database disk image is malformed: stop the server, then restore"
    assert said in r.stderr, r.stderr


# --- the start's redelivery sweep ------------------------------------------------------


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _as_utcnow(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def move_sweep_since_back(db: Path, minutes: float) -> None:
    """Where the last complete sweep left off (bot.queue's `redelivery` table), moved as a
    test moves its deliveries' times: as if they were made that much earlier."""
    conn = sqlite3.connect(db)
    with conn:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        kept = (
            conn.execute("SELECT value FROM redelivery").fetchall()
            if "redelivery" in tables
            else []
        )
        for (value,) in kept:
            moved = (datetime.fromisoformat(value) - timedelta(minutes=minutes)).isoformat()
            conn.execute("UPDATE redelivery SET value = ? WHERE key = 'since'", (moved,))
    conn.close()


def a_delivered_then_b_lost(server, fake, opened_a, b: int, db: Path):
    """With `server` running, GitHub delivers PR A's `opened` (its file list short: the
    bot queues re-checks), then fails to deliver PR B's (the proxy is down) while the
    bot's re-checks of A go on; GitHub's failed attempt of B."""
    with server.run():
        fake.webhook_url = f"{server.base}/webhook"
        assert fake.send_webhook("pull_request", opened_a, guid="gh-a").status_code == 202
        fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # the proxy is down
        failed = fake.send_webhook(
            "pull_request", pr_payload(number=b, title=MATCHING_TITLE), guid="gh-b"
        )
        assert failed.status_code == 0
        conn = sqlite3.connect(db)
        try:
            queued = lambda: conn.execute("SELECT COUNT(*) FROM deliveries").fetchone()[0]  # noqa: E731
            wait_until(lambda: queued() == 3, what="the bot's second re-check of A queued")
        finally:
            conn.close()
    return failed


def test_the_starts_sweep_looks_back_to_the_last_delivery_github_sent_not_the_bots_own(
    tmp_path, fake_github, app_key
):
    """docs/settings.md (REVIEW_NOTES_REDELIVER_ON_START): once up, the server asks GitHub
    again for "the webhooks it failed to deliver since the last one the database
    received". `since_last_seen` takes the newest row of `deliveries`, and the bot
    queues rows of its own there: a PR event's files re-check (`<id>#files-recheck-N`,
    queued when the earlier look ran, which a rate limit put-back can make any time
    later) and the flood control's deferred update. So a re-check queued after GitHub
    failed to reach the server (a proxy or TLS outage in front of a running server, a
    secret rotated before the server had it) moves the sweep's start past that failure:
    the delivery is never asked for again and its PR never gets its comment.

    Built with the real server: GitHub delivers PR A's `opened` (its file list short, so
    the bot queues re-checks); GitHub's delivery of PR B's `opened` fails (nothing
    answers: the proxy is down); the bot's re-check of A runs and queues the next. The
    times are then set as they are when the first re-check ran 20 minutes later (a
    put-back for a primary rate limit, or REVIEW_NOTES_FILES_RECHECK_DELAYS=1200,...):
    A received 20 minutes ago, B's failed attempt 15 minutes ago, the bot's own re-check
    queued just now. The restart's sweep must ask for B."""
    fake = fake_github
    a, b = 7951, 7952
    fake.add_pull(DEFAULT_REPO, a, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.add_pull(DEFAULT_REPO, b, files=MATCHING_FILES, title=MATCHING_TITLE)
    env = app_env(tmp_path, fake, app_key, REVIEW_NOTES_FILES_RECHECK_DELAYS="0.5,60")
    server = LiveServer(tmp_path, env)
    fake.webhook_secret = SECRET
    opened_a = pr_payload(number=a, title=MATCHING_TITLE)
    opened_a["pull_request"]["changed_files"] = 3  # GitHub's list (one file) lags the push
    db = tmp_path / "bot.sqlite3"

    def rows() -> list[sqlite3.Row]:
        conn = sqlite3.connect(db)
        conn.row_factory = sqlite3.Row
        try:
            return conn.execute(
                "SELECT seq, id, received_at FROM deliveries ORDER BY seq"
            ).fetchall()
        finally:
            conn.close()

    failed = a_delivered_then_b_lost(server, fake, opened_a, b, db)
    ids = [r["id"] for r in rows()]
    assert ids[0] == "gh-a" and all(i.startswith("gh-a#files-recheck-") for i in ids[1:]), ids

    # 20 minutes pass between A's delivery and the re-check that queued the last row
    now = datetime.now(UTC)
    conn = sqlite3.connect(db)
    with conn:
        for r in rows()[:-1]:
            moved = _as_utcnow(_utc(r["received_at"]) - timedelta(minutes=20))
            conn.execute("UPDATE deliveries SET received_at = ? WHERE seq = ?", (moved, r["seq"]))
    conn.close()
    move_sweep_since_back(db, 20)  # the first run's start sweep, as long ago
    failed.delivered_at = (now - timedelta(minutes=15)).timestamp()
    assert _utc(rows()[-1]["received_at"]) > now - timedelta(minutes=1)  # the bot's own, now

    fake.webhook_url = f"{server.base}/webhook"  # the proxy is back; the server restarts
    with server.run():
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not fake.calls(
            "POST", "/app/hook/deliveries/*/attempts"
        ):
            time.sleep(0.1)
        time.sleep(1.0)  # a redelivery asked for arrives at once
    asked = fake.calls("POST", "/app/hook/deliveries/*/attempts")
    held = {r["id"] for r in rows()}
    assert "gh-b" in held, (
        "GitHub's failed delivery of PR B's `opened` was never asked for again: the sweep"
        f" started from the bot's own re-check ({len(asked)} redeliveries asked)"
    )


# --- one server per database file --------------------------------------------------


def test_a_second_server_on_the_same_file_through_a_file_bind_mount_refuses_to_start(tmp_path):
    """docs/operating.md (Deploy): "run **one** server per database file (a second one
    refuses to start, whatever path it names the file by: the lock, `<file>.lock`, is
    taken next to the file with symlinks resolved ...)". A bind mount of the file itself
    is no symlink: the second server takes its lock next to the mount point, another
    `.lock` file, and starts. Both then resume and claim the same `processing` and
    `pending` deliveries (each posts, each replies), and SQLite keeps each one's WAL next
    to the name it opened, so the two write one file through two WALs. It is how a
    single file is mounted into a container (`-v /srv/review-notes.sqlite3:/app/var/
    review-notes.sqlite3`): during an upgrade the new container's `/app/var` is its own
    directory, so its lock is another file even at the same path. A lock on the database
    file itself (flock, which SQLite's POSIX locks leave alone) is the same lock however
    the file is reached."""
    first_dir, second_dir = tmp_path / "a", tmp_path / "b"
    first_dir.mkdir()
    second_dir.mkdir()
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    env["REVIEW_NOTES_DB_PATH"] = str(first_dir / "review-notes.sqlite3")
    first = LiveServer(tmp_path, env)
    with first.run():  # makes the file; a server on it from now on
        mount_point = second_dir / "review-notes.sqlite3"
        mount_point.touch()
        mounted = subprocess.run(
            ["mount", "--bind", env["REVIEW_NOTES_DB_PATH"], str(mount_point)],
            capture_output=True,
        )
        if mounted.returncode != 0:
            pytest.skip("cannot bind-mount a file here (needs root and mount rights)")
        try:
            assert os.stat(mount_point).st_ino == os.stat(env["REVIEW_NOTES_DB_PATH"]).st_ino
            second_env = {**env, "REVIEW_NOTES_DB_PATH": str(mount_point)}
            try:
                r = cli(
                    "serve", "--port", str(free_port()), env=second_env, cwd=tmp_path, timeout=20
                )
            except subprocess.TimeoutExpired:
                pytest.fail(
                    "a second server started on the database file the first one is using"
                    " (reached through a bind mount of the file) and ran until killed"
                )
        finally:
            subprocess.run(["umount", str(mount_point)], check=True)
    assert r.returncode != 0
    assert "another review-notes server, or a `review-notes salvage` copying" in r.stderr, r.stderr[
        -800:
    ]


# --- a delivery given up at start ------------------------------------------------------


def test_a_delivery_given_up_at_start_is_logged_and_counted_as_failed(tmp_path):
    """A delivery the process died on three times (a payload that crashes or
    exhausts the process: the crash loop a poison delivery makes) is given up by
    `DeliveryQueue.recover` at the next start, silently: no log line names it, and
    `review_notes_deliveries_total{outcome="failed"}` does not count it. Every other way
    a delivery ends `failed` is a WARNING naming it (a handler's error, the last rate
    limit put-back) and is counted so (docs/operating.md, /metrics: "deliveries by event and
    outcome"); on the day of a crash loop the log and the failure alert are what the
    operator reads, and they say nothing of the delivery that caused it."""
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = Database(tmp_path / "bot.sqlite3")
    queue = DeliveryQueue(db)
    queue.enqueue(
        "poison-1",
        "pull_request",
        "opened",
        pr_payload(number=5, title=MATCHING_TITLE),
        DEFAULT_REPO,
        5,
    )
    # the state three runs killed while working on it leave: two crashes counted, the
    # process died again in the third run
    db.execute("UPDATE deliveries SET state = 'processing', interruptions = 2, attempts = 3")
    db.close()
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    server = LiveServer(tmp_path, env)
    with server.run():
        health = server.health()
        with urllib.request.urlopen(f"{server.base}/metrics", timeout=10) as r:
            metrics = r.read().decode()
    assert health["failed"] == 1 and health["recent_failures"][0]["id"] == "poison-1"  # as is
    lines = [json.loads(x) for x in server.logs[0].read_text().splitlines() if x.startswith("{")]
    named = [x for x in lines if "poison-1" in x["msg"] and x["level"] in ("warning", "error")]
    assert named, "no WARNING names the delivery given up after three interruptions"
    # and, as every failed delivery's line, the command that runs it again (reliability.md)
    assert "`review-notes retry poison-1` runs it again" in named[0]["msg"], named
    failed = 'review_notes_deliveries_total{event="pull_request",outcome="failed"} 1.0'
    assert failed in metrics, [x for x in metrics.splitlines() if "deliveries_total{" in x]


# --- a start meeting rows it cannot read; a damaged pending delivery ---


def test_a_start_whose_writes_meet_text_that_is_not_utf8_says_so_in_a_line(tmp_path):
    """A delivery interrupted by two kills already, whose text a failing disk damaged
    (a bit flipped in its repository's name: not UTF-8 any more, which SQLite does not
    check), is given up at the next start, and the start's write reads its name back:
    Python's sqlite3 raises its own OperationalError, "Could not decode to UTF-8 column",
    which has no SQLite error name. The start's error wording read that name and died
    of an AttributeError, a traceback hiding the cause; now it is said in a line, exit 1.
    """
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    queue.enqueue("d-1", "pull_request", "opened", {"n": 1}, DEFAULT_REPO, 1)
    queue.db.execute(
        "UPDATE deliveries SET state = 'processing', interruptions = 2,"
        " repo = CAST(X'766c6cf92d70726f6a656374' AS TEXT)"  # 'vll\xf9-project'
    )
    queue.db.close()
    r = _refused_start(tmp_path)
    assert f"review-notes: {db}: Could not decode to UTF-8 column 'repo'" in r.stderr, r.stderr
    assert "not starting" in r.stderr and "webhook at" not in r.stdout


# kills: bot/server.py:_unreadable_rows the start's write failing on rows that all read back
#   said to be rows that cannot be read back (none named), not SQLite's own words
def test_a_start_whose_write_fails_on_rows_that_read_back_says_why_it_failed(tmp_path):
    # The resumed row reads back; the file's own trigger (left by another tool) is what
    # fails the start's write: "delivery ... cannot be read back" would send the
    # operator to delete a row that is fine
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    queue.enqueue("d-1", "pull_request", "opened", {"n": 1}, DEFAULT_REPO, 1)
    queue.db.execute("UPDATE deliveries SET state = 'processing'")
    queue.db.execute(
        "CREATE TRIGGER audit AFTER UPDATE ON deliveries BEGIN INSERT INTO gone VALUES (1); END"
    )
    queue.db.close()
    r = _refused_start(tmp_path)
    assert f"review-notes: {db}: no such table: main.gone; not starting" in r.stderr, r.stderr
    assert "cannot be read back" not in r.stderr, r.stderr


# kills: bot/server.py:_unreadable_rows the refusal naming neither the row nor how to remove
#   it: every start was refused in the same words, and only reading SQLite got one going
def test_a_start_refused_on_a_row_it_cannot_read_names_it_and_the_command_deleting_it(tmp_path):
    import re
    import shlex

    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    queue.enqueue("d-1", "pull_request", "opened", {"n": 1}, DEFAULT_REPO, 1)
    queue.enqueue("d-2", "pull_request", "opened", {"n": 2}, DEFAULT_REPO, 2)
    queue.db.execute(
        "UPDATE deliveries SET state = 'processing', interruptions = 2,"
        " repo = CAST(X'766c6cf92d70726f6a656374' AS TEXT) WHERE id = 'd-2'"
    )
    queue.db.close()
    r = _refused_start(tmp_path)
    assert "delivery d-2 (seq 2) cannot be read back" in r.stderr, r.stderr
    # run as said: with the Python that runs the server (the image has no sqlite3 command)
    [command] = re.findall(r"delete it \(`(.*?)`\)", r.stderr)
    argv = shlex.split(command)
    assert argv[:2] == [sys.executable, "-c"], argv
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path / "..")
    assert done.returncode == 0, done.stderr
    with closing(sqlite3.connect(db)) as conn:
        left = conn.execute("SELECT id, state FROM deliveries ORDER BY seq").fetchall()
    assert left == [("d-1", "pending")]


def test_a_server_sets_a_damaged_pending_delivery_aside_and_goes_on_failing_health(tmp_path):
    """A failing disk damaged the row of a delivery waiting in the queue (a page of its
    payload). The running server's workers tried it first at every claim and SQLite
    refused each ("database disk image is malformed"): no delivery ran any more, for any
    PR, while /healthz said ok. Now the row is set aside, the next deliveries run, and
    /healthz fails naming it: the file is damaged, restoring it is the operator's."""
    import urllib.error

    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.damage_kit import break_overflow_chain
    from tests.webhook_kit import send_signed

    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    queue.keep_sweep_since("2030-01-01T00:00:00Z")  # an App's server, which swept before
    queue.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, DEFAULT_REPO, 1)
    queue.db.close()
    break_overflow_chain(db, b"Z" * 200)
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET)
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    def health() -> dict:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=10) as r:
                return {"code": r.status, **json.loads(r.read())}
        except urllib.error.HTTPError as err:  # a 503 is an answer here
            return {"code": err.code, **json.loads(err.read())}

    log = tmp_path / "serve.log"
    with open(log, "w") as out:  # not LiveServer: its start waits for a 200
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until(health, timeout=90, what="server start")
            payload = pr_payload(title=MATCHING_TITLE, number=2)
            assert send_signed(base, "pull_request", payload, "d-next") == 202
            body = wait_until(lambda: (h := health())["done"] == 1 and h, what="d-next done")
        finally:
            proc.kill()
            proc.wait()
    assert body["code"] == 503 and body["status"] == "failing", body
    assert body["damaged"] == [
        {"id": "broken", "error": "DatabaseError: database disk image is malformed"}
    ]
    assert body["pending"] == 1, body  # still there: the file is the operator's to restore
    text = log.read_text()
    assert text.count("delivery broken: SQLite cannot read its row") == 1, text[-2000:]


# --- the documented deletion and backup commands, run as the docs give them ---


def test_the_documented_deletion_of_an_unreadable_delivery_runs_without_a_sqlite3_command(
    tmp_path,
):
    # docs/operating.md gave `sqlite3 FILE "DELETE ..."` for the row a refused start
    # names, and the image has no sqlite3 command: the documented one, in a checkout and
    # in the image, runs with Python's sqlite3 module, and deletes that row alone.
    from bot.db import Database
    from bot.queue import DeliveryQueue

    text = doc("operating.md")
    found = re.findall(
        r'`(\.venv/bin/python|docker run [^`]*? python) -c "(import sqlite3;[^"`]*'
        r'DELETE[^"`]*)"`',
        text,
    )
    assert len(found) == 2, found
    for python, code in found:
        code = re.sub(r"\s*\n\s*", " ", code)
        (tmp_path / "var").mkdir(exist_ok=True)
        path = tmp_path / "var" / "review-notes.sqlite3"
        path.unlink(missing_ok=True)
        queue = DeliveryQueue(Database(path))
        for n in (1, 2):
            queue.enqueue(f"d-{n}", "pull_request", "opened", {"n": n}, DEFAULT_REPO, n)
        queue.db.close()
        code = code.replace("/app/var/", "var/").replace("seq = N", "seq = 2")
        assert "var/review-notes.sqlite3" in code, (python, code)
        r = subprocess.run([PY, "-c", code], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("SELECT id FROM deliveries").fetchall() == [("d-1",)], python


def _documented_backup_command() -> str:
    """docs/operating.md's command that backs the database up, as the page shows it (its
    lines joined)."""
    text = doc("operating.md")
    # a code span in prose, or a line of a code block
    found = re.search(
        r'(?:`|^)\.venv/bin/python -c "(import sqlite3;[^"`]*\.backup\([^"`]*)"', text, re.M
    )
    assert found, "docs/operating.md says how to back the database up"
    return re.sub(r"\s*\n\s*", " ", found[1])


def _documented_image_backup_command(root: Path) -> str:
    """The same for the image, its /app/var paths put under `root`: the container the
    Deploy command names, and the database file the Dockerfile sets."""
    text = doc("operating.md")
    found = re.search(
        r'(?:`|^)docker exec (\S+) python -c "(import sqlite3;[^"`]*\.backup\([^"`]*)"', text, re.M
    )
    assert found, "docs/operating.md says how to back the image's database up"
    assert f"--name {found[1]} " in text
    image_db = re.search(r"REVIEW_NOTES_DB_PATH=(\S+)", (ROOT / "Dockerfile").read_text("utf-8"))[1]
    program = re.sub(r"\s*\n\s*", " ", found[2])
    assert f"'{image_db}'" in program, program
    return program.replace("'/app/var/", f"'{root}/var/")


def _rows(path: Path, sql: str) -> list[tuple]:
    """What `sql` reads from a file alone (no -wal beside it); [] without the table."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # no such table: the schema is in the -wal too
        return []
    finally:
        conn.close()


def test_the_documented_backup_of_a_live_database_holds_what_its_wal_holds_and_restores(tmp_path):
    # Every damaged-database message says "restore it from a backup", and the docs said
    # nowhere how to take one: a copy of the file alone, the obvious one, lacks what the
    # server's -wal file holds (or is damaged: the docs name such a copy as a cause).
    # docs/operating.md's command, run beside a server's open connection, keeps the PR states
    # written since the last checkpoint, and the copy put in the file's place reads back.
    from bot.db import Database
    from bot.prstate import PRState, PRStore

    (tmp_path / "var").mkdir()
    path = tmp_path / "var" / "review-notes.sqlite3"
    db = Database(path)  # open, as a live server's is: its writes stay in the -wal file
    prs = PRStore(db)
    prs.put(PRState("o/r", 7, comment_id=77, opted_out=True))
    assert Path(f"{path}-wal").stat().st_size > 0
    plain = tmp_path / "plain.sqlite3"
    plain.write_bytes(path.read_bytes())
    assert _rows(plain, "SELECT comment_id FROM pr_state WHERE number = 7") == []
    for program in (_documented_backup_command(), _documented_image_backup_command(tmp_path)):
        r = subprocess.run([PY, "-c", program], cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    db.close()
    # the restore as the page shows it (the damaged file moved aside with those it
    # has, the copy put in its place), where the page said it in words only
    restore = re.search(
        r"^mkdir .*backup\.sqlite3 var/review-notes\.sqlite3$", doc("operating.md"), re.M
    )
    assert restore, "docs/operating.md says how to restore the backup"
    r = subprocess.run(["sh", "-c", restore[0]], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert not Path(f"{path}-wal").exists() and (tmp_path / "var" / "damaged").is_dir()
    restored = Database(path)
    try:
        state = PRStore(restored).get("o/r", 7)
        assert (state.comment_id, state.opted_out) == (77, True)
        assert [tuple(r) for r in restored.execute("PRAGMA integrity_check")] == [("ok",)]
    finally:
        restored.close()

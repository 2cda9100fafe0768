"""The bot's one SQLite file (WAL): the delivery queue, per-PR state, dry-run comments.

One connection per process, guarded by a lock: every statement is short, so
serialising them in-process costs nothing and keeps sqlite3's threading rules
simple. Other processes (`review-notes retry`) share the file through WAL and a
busy timeout. Each store creates its own tables with `CREATE TABLE IF NOT EXISTS`.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


def utcnow(after_s: float = 0.0) -> str:
    """Now (or `after_s` seconds from now) as text that sorts like the time it names."""
    return (datetime.now(UTC) + timedelta(seconds=after_s)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Database:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are explicit (`tx`), single statements commit alone.
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=10.0
        )
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._lock_file: int | None = None
        self._checkpoints: tuple[threading.Thread, threading.Event] | None = None
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA busy_timeout=10000")

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    def script(self, sql: str) -> None:
        with self._lock:
            self._conn.executescript(sql)

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE: other writers wait, no upgrade deadlock)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def acquire_server_lock(self) -> bool:
        """Claim the file for one server process; False when another one holds it.

        Resuming `processing` deliveries at start-up is only safe when no other
        live server is working on them. Idempotent.
        """
        if self._lock_file is not None:
            return True
        fd = os.open(f"{self.path}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock_file = fd
        return True

    def checkpoint_in_background(self, every: float = 0.5) -> None:
        """Run WAL checkpoints (the only fsyncs with synchronous=NORMAL) off the commits.

        SQLite checkpoints inside the commit that takes the WAL past 1000 pages: with
        ~20 KB per delivery, every ~200 deliveries a webhook answer waited for the
        fsyncs. A thread with its own connection runs a PASSIVE checkpoint (it never
        blocks a writer or a reader) every `every` seconds instead; a commit still
        checkpoints past 10,000 pages, should the thread fall behind. The server
        calls this; short-lived commands (`retry`) keep SQLite's default.
        """
        if self._checkpoints is not None:
            return
        self.execute("PRAGMA wal_autocheckpoint=10000")
        stop = threading.Event()

        def run() -> None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
            try:
                while not stop.wait(every):
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error:
                        pass  # busy or locked: the next round tries again
            finally:
                conn.close()

        thread = threading.Thread(target=run, name="review-notes-checkpoint", daemon=True)
        thread.start()
        self._checkpoints = (thread, stop)

    def close(self) -> None:
        if self._checkpoints is not None:
            thread, stop = self._checkpoints
            stop.set()
            thread.join(5)
            self._checkpoints = None
        with self._lock:
            self._conn.close()
            if self._lock_file is not None:
                os.close(self._lock_file)  # releases the flock
                self._lock_file = None

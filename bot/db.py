"""The bot's one SQLite file (WAL), shared by the stores that each create their own
tables in it (`CREATE TABLE IF NOT EXISTS`): the delivery queue (`bot.queue`), per-PR
state (`bot.prstate`), the `/notes wrong` marks (`bot.feedback_store`), command decisions
(`bot.decision_store`), the commands a lock kept (`bot.locked_commands`) and a dry run's
comments (`bot.dryrun`). Here: the `Database` they write through, and what a damaged,
locked or newer file means (the times they store, which compare as text: `bot.times`).

One connection per process for its writes, guarded by a lock: every statement is
short, so serialising them in-process costs nothing and keeps sqlite3's threading rules
simple. Other processes (`review-notes retry`) share the file through WAL and a busy
timeout, which a write waits in short tries, letting the in-process lock go between them
(`Database._in_lock`). What /healthz and /metrics read goes through a second connection
(`Database.read`), which WAL lets read beside a writer.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

# SQLite's busy timeout: how long a statement waits for another connection's lock (a
# VACUUM, a backup, `retry` beside the server) before "database is locked". Read at each
# connection, so that a test sets it shorter and plays a lock held past it without
# waiting 10 s: in-process by this name, in a child process by the environment's
# _REVIEW_NOTES_TEST_BUSY_TIMEOUT (seconds). Private, not a setting: no operator needs
# another (the docs name the 10 s), and a name outside REVIEW_NOTES_* is not warned about.
BUSY_TIMEOUT_SECONDS = float(os.environ.get("_REVIEW_NOTES_TEST_BUSY_TIMEOUT") or 10.0)

# A write waits for another process's lock in tries this long (the connection's own busy
# timeout), the in-process lock held; between two it lets that lock go for a pause, so
# that the process's other writes (a worker's claim, the intake's delivery) get their
# turn, and are answered in their own wait rather than after this one's 10 s.
LOCK_TRY_SECONDS = 0.1
LOCK_PAUSE_SECONDS = 0.01


# What to do with a database file SQLite finds damaged (SQLITE_CORRUPT: a failing disk, a
# copy taken without its -wal file while a server wrote): it is the bot's, not another file.
# The steps in their order: a server left running writes on (and checkpoints its -wal into
# the file moved aside); salvage is what is left without a backup.
DAMAGED_FIX = (
    "stop the server, then restore it from a backup: move it aside with its -wal and -shm"
    " files, put the backup in its place and start again (no backup: `review-notes salvage"
    " NEW_FILE` copies what still reads into a new file to put there)"
)


# The file's schema version, SQLite's `PRAGMA user_version` (0 in a file no release set
# it in: the releases before it, and a new file). Tables and columns are only ever added
# (`Database.add_missing_columns`, each store's CREATE TABLE IF NOT EXISTS), and a release
# reads a file with more of them as its own: so a rollback runs on the newer file, and
# the version moves only on a change an older release cannot read safely (a column
# renamed, dropped or given another meaning). Then a release refuses a file of a
# higher version, and upgrades a lower one at opening. A queued payload's field an older
# release would not read is written so as not to need it, where it can be
# (bot.locked_commands._as_said), rather than moving the version for it.
SCHEMA_VERSION = 1


class NewerDatabase(Exception):
    """The file's schema version is above this release's: written by a release this
    one cannot read safely. Refused before anything is written to it (`said`)."""

    def __init__(self, path: Path, version: int) -> None:
        super().__init__(path, version)
        self.path, self.version = path, version

    def said(self, then: str = "") -> str:
        """The refusal with what to do; `then`: what this command does not do."""
        return (
            f"{self.path}: a database of schema version {self.version}, written by a newer"
            f" release of review-notes than this one (which reads version {SCHEMA_VERSION}"
            f" and older){then}; nothing in it was changed. Run that release (or a newer"
            " one) on it; to roll back to this release instead, restore the backup taken"
            " before the upgrade in its place, or set REVIEW_NOTES_DB_PATH to a new file"
            " to start empty (keep this one to go forward again)"
        )

    def __str__(self) -> str:
        return self.said()


class DamagedDatabase(Exception):
    """SQLite found the file damaged where a step read or wrote it (a page of any table or
    index): its words, with what to do (`damaged_error`)."""


def damaged_error(exc: sqlite3.Error, then: str) -> DamagedDatabase | None:
    """`exc` said with what to do, when it is SQLite finding the file damaged (None for
    another error); `then`: what fails meanwhile. Whichever table a step met damaged,
    the operator reads the same fix."""
    if not is_damaged(exc):
        return None
    return DamagedDatabase(f"SQLite found the database file damaged ({exc}); {then}: {DAMAGED_FIX}")


# Of a record kept for its delivery's re-runs (the replies it posted, the decisions on its
# commands): the delivery is gone, deleted by retention, so no run of it can come again.
# NULL: a record kept before records named their delivery. (`Database.delete_before`'s
# `where`; `deliveries` is bot.queue's table.)
DELIVERY_GONE = "(delivery IS NULL OR delivery NOT IN (SELECT id FROM deliveries))"


def access_hint(exc: sqlite3.Error) -> str:
    """What to check when SQLite cannot open or write the file, nor make its -wal and
    -shm files beside it (which even a reader makes): a file or a directory of another
    user (a volume the image's uid writes, read from the host); "" for other errors."""
    kind = (getattr(exc, "sqlite_errorname", None) or "").split("_")[1:2]  # ..._CANTOPEN_...
    if kind in (["READONLY"], ["PERM"], ["CANTOPEN"]):
        return f" (can this user, uid {os.getuid()}, write to it and to its directory?)"
    return ""


def is_damaged(exc: sqlite3.Error) -> bool:
    """SQLite found the file damaged ("database disk image is malformed")."""
    # (an error raised by hand, not by SQLite, has no name)
    return (getattr(exc, "sqlite_errorname", None) or "").startswith("SQLITE_CORRUPT")


def is_read_only(exc: sqlite3.Error) -> bool:
    """SQLite may not write the file ("attempt to write a readonly database")."""
    return (getattr(exc, "sqlite_errorname", None) or "").startswith("SQLITE_READONLY")


class HeldInProcess(sqlite3.OperationalError):
    """A write given a deadline (`Database.tx`'s `until`) found the in-process lock held
    by another thread of this process until then: on the event loop, which does not
    wait, any write under way; in the intake's thread, one holding it that long (a write
    waiting out another process's lock lets it go between tries, so the intake waits for
    that lock itself, and is refused with SQLite's "database is locked"). A lock's
    refusal, as SQLite's "database is locked" (`is_locked`)."""


def is_locked(exc: BaseException) -> bool:
    """Another connection held the file's lock past the busy timeout ("database is
    locked"): SQLITE_BUSY or SQLITE_LOCKED, and their extended codes; or a write's
    deadline came as another thread held the in-process lock (HeldInProcess)."""
    if isinstance(exc, HeldInProcess):
        return True
    name = getattr(exc, "sqlite_errorname", None) or ""
    return name.split("_")[1:2] in (["BUSY"], ["LOCKED"])  # SQLITE_BUSY_SNAPSHOT -> BUSY


# The background checkpoints' safety net (checkpoint_in_background), 1 GB of WAL: above
# five seconds of the fastest burst measured (5,500 deliveries/s, 6 pages each), so
# only a stuck checkpoint thread lets a commit do it. The WAL holds what was received.
WAL_AUTOCHECKPOINT_PAGES = 250_000


def read_through_indexes(
    execute: Callable[[str, tuple[Any, ...]], Iterable[sqlite3.Row]],
    table: str,
    columns: str,
    where: str,
    key: Any,
    indexes: Iterable[str],
) -> sqlite3.Row | None:
    """`columns` of a damaged table's row (`where` = `key`): from the row when that much
    of it reads, else from each index in turn that holds them (a damaged page of the
    table loses every row on it, not their entries in its indexes). An index is read to
    the row's entry only (LIMIT 1): a damaged page of it past the entry hides nothing.
    None: no read finds the row."""
    for index in ["", *indexes]:
        by = f'INDEXED BY "{index}"' if index else ""
        try:
            sql = f'SELECT {columns} FROM "{table}" {by} WHERE {where} = ? LIMIT 1'
            rows = list(execute(sql, (key,)))
        except sqlite3.DatabaseError:
            continue
        if rows:
            return rows[0]
    return None


def not_in(column: str, keys: Iterable[int]) -> str:
    """An SQL condition leaving out the rows whose integer `column` is one of `keys`
    (ints: no quoting); TRUE when there are none."""
    skip = ",".join(map(str, sorted(keys)))
    return f"{column} NOT IN ({skip})" if skip else "TRUE"


class DamagedRows:
    """Rows SQLite found damaged ("database disk image is malformed"), set aside until a
    restart by their integer key (a rowid, a delivery's seq), each with its name and the
    error: a damaged row can be neither read, nor changed, nor deleted, so the steps that
    would meet it leave it out (`not_among`). Read by other threads than the one adding:
    each reading is of a copy."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[str, str]] = {}

    def add(self, key: int, name: str, exc: sqlite3.Error) -> None:
        self._rows[key] = (name, f"{type(exc).__name__}: {exc}")

    def __contains__(self, key: object) -> bool:
        return key in self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def not_among(self, column: str) -> str:
        """An SQL condition leaving out the rows set aside, by `column` (their key as the
        query names it)."""
        return not_in(column, self._rows.copy())

    def by_name(self) -> dict[str, str]:
        """Name -> error of every row set aside."""
        return dict(self._rows.copy().values())


def server_lock_names(path: Path) -> list[str]:
    """Where a server takes its lock (Database.acquire_server_lock): the database file
    itself, its name's lock file and its real path's (one name when they are the same)."""
    real = f"{os.path.realpath(path)}.lock"
    return list(dict.fromkeys([str(path), real, os.path.realpath(f"{path}.lock")]))


@contextmanager
def servers_kept_out(path: Path) -> Iterator[bool]:
    """While in it, no review-notes server runs on `path` (nor starts: it is refused as
    another one would be); False when one holds the file. Its lock files are not made
    (a server holds them open, so they exist). Left after every connection to the file
    made inside closed: closing a descriptor of it drops this process's SQLite locks."""
    held: list[int] = []
    try:
        for name in server_lock_names(path):
            try:
                held.append(os.open(name, os.O_RDONLY))  # flock needs no write
            except FileNotFoundError:
                continue
            fcntl.flock(held[-1], fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        Database._release(held)
        yield False
        return
    try:
        yield True
    finally:
        Database._release(held)


class Database:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are explicit (`tx`), single statements commit alone.
        self._conn = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS
        )
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._reader: sqlite3.Connection | None = None  # `read`'s, opened at its first
        self._reading = threading.Lock()
        self._lock_files: list[int] = []  # the server lock's descriptors, while held
        # a descriptor of the database file itself, open until the connection closes
        # (closing one drops this process's POSIX locks on the file: SQLite's own)
        self._file_fd: int | None = None
        self._checkpoints: tuple[threading.Thread, threading.Event] | None = None
        self.last_used = 0.0  # time.monotonic() of the last statement: checkpoints wait for quiet
        with self._lock:
            self._check_version()
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            # a write's whole wait for another process's lock, read at the opening; the
            # connection's own busy timeout is one try's (`_in_lock`)
            self._busy_timeout = BUSY_TIMEOUT_SECONDS
            self._try_timeout = min(LOCK_TRY_SECONDS, self._busy_timeout)
            self._set_busy_timeout(self._try_timeout)

    def _check_version(self) -> None:
        """Refuse a file of a newer schema version (closed, nothing written to it); set
        ours in a new file or an older one (which the stores then bring up to date). A
        file SQLite may not write keeps its older version (a reader's: `retry` listing)."""
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            self._conn.close()
            raise NewerDatabase(self.path, version)
        if version == SCHEMA_VERSION:
            return
        try:
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.OperationalError as exc:
            if not is_read_only(exc):
                raise

    def execute(self, sql: str, params: tuple[Any, ...] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        """One statement; outside a transaction, a write waits for another process's lock
        as a transaction's BEGIN does (`_in_lock`): it did nothing when refused."""
        rows = self._in_lock(
            lambda: self._conn.execute(sql, params).fetchall(),
            time.monotonic() + self._busy_timeout,
        )
        self._lock.release()
        return rows

    def read(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[sqlite3.Row]:
        """A read on a connection of its own, outside the writers' lock: WAL lets it read
        the last commit while a writer holds the file's lock. While another process holds
        the file's (a VACUUM, a `sqlite3` shell in a transaction), the writes of this one
        take turns waiting for it, each holding the in-process lock for a try
        (LOCK_TRY_SECONDS) at a time. /healthz and /metrics, reading through `execute`,
        waited behind every write's whole wait, one after another: 40 s, past the health
        check's 4 s (then each write held the lock through all of it)."""
        with self._reading:
            if self._reader is None:
                reader = sqlite3.connect(
                    self.path,
                    check_same_thread=False,
                    isolation_level=None,
                    timeout=BUSY_TIMEOUT_SECONDS,
                )
                reader.row_factory = sqlite3.Row
                reader.execute("PRAGMA query_only=1")  # a write here would bypass `_lock`
                self._reader = reader
            return self._reader.execute(sql, params).fetchall()

    def add_missing_columns(self, table: str, columns: dict[str, str]) -> set[str]:
        """Bring a table made by an older version up to date: add each column
        (name -> SQL type) it lacks; returns those added. New tables get them from their
        CREATE TABLE."""
        have = {r["name"] for r in self.execute(f"PRAGMA table_info({table})")}
        added = set()
        for name, sql_type in columns.items():
            if name not in have:
                self.execute(f"ALTER TABLE {table} ADD COLUMN {name} {sql_type}")
                added.add(name)
        return added

    def delete_before(
        self,
        table: str,
        at: str,
        before: str,
        limit: int,
        where: str = "TRUE",
        params: tuple[Any, ...] = (),
    ) -> int:
        """Delete up to `limit` rows of `table` whose time `at` (a column) is before
        `before` (as `times.utcnow` writes it) and of which `where` holds (SQL on `table`'s
        columns, with `params`), in a transaction of their own: one batch of retention's
        pruning of a store (bot.retention.Pruning). How many were deleted."""
        with self.tx() as conn:
            return conn.execute(
                f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table}"
                f" WHERE {at} < ? AND {where} LIMIT ?)",
                (before, *params, limit),
            ).rowcount

    def script(self, sql: str) -> None:
        """Statements run one by one, each committed alone: one refused for another
        process's lock cannot be tried again with those before it. So it waits SQLite's
        whole busy timeout in the in-process lock, as every write did: a store's schema,
        made at start, before any other thread writes."""
        with self._lock:
            self.last_used = time.monotonic()
            self._set_busy_timeout(self._busy_timeout)
            try:
                self._conn.executescript(sql)
            finally:
                self._set_busy_timeout(self._try_timeout)

    def _set_busy_timeout(self, seconds: float) -> None:
        self._conn.execute(f"PRAGMA busy_timeout={round(seconds * 1000)}")

    @contextmanager
    def tx(
        self, busy_timeout: float | None = None, *, until: float | None = None
    ) -> Iterator[sqlite3.Connection]:
        """One write transaction (BEGIN IMMEDIATE: other writers wait, no upgrade deadlock).

        Its BEGIN waits for another process's write lock SQLite's busy timeout (10 s), in
        short tries (`_in_lock`). `busy_timeout`: that wait, when shorter: for a caller
        that tries again later anyway (a worker's claim or outcome). `until`
        (time.monotonic()): wait for both locks no later than then, HeldInProcess or
        "database is locked" after (now: no wait at all), for a caller that must answer
        in time (the intake)."""
        wait = self._busy_timeout if busy_timeout is None else min(busy_timeout, self._busy_timeout)
        by = time.monotonic() + wait
        if until is not None:
            by = min(by, until)
        self._in_lock(lambda: self._conn.execute("BEGIN IMMEDIATE"), by, until)
        try:
            yield self._conn
            self._conn.execute("COMMIT")
        except BaseException:
            # SQLite may have rolled back already (a full disk, an I/O error): a
            # ROLLBACK then raises "no transaction is active" over the real cause
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        finally:
            self._lock.release()

    def _in_lock(self, attempt: Callable[[], T], by: float, lock_by: float | None = None) -> T:
        """`attempt` (BEGIN, or a statement outside a transaction) run in the in-process
        lock, taken by `lock_by` when given (HeldInProcess after); returns holding the
        lock, raises having let it go. Refused for another process's lock (SQLITE_BUSY,
        after a try of LOCK_TRY_SECONDS), it is tried again until `by`, the lock let go
        between tries; then "database is locked" as SQLite says it. Safe to try again:
        with WAL only taking the write lock waits, and a statement refused it did
        nothing; within a transaction (this thread's, a statement in `tx`) nothing waits,
        and nothing is tried again."""
        if lock_by is None:
            self._lock.acquire()
        else:
            self._lock_by(lock_by)
        while True:
            try:
                return self._try(attempt, by)
            except BaseException as exc:
                again = self._may_try_again(exc, by)
                self._lock.release()
                if not again:
                    raise
                refused = exc
            time.sleep(LOCK_PAUSE_SECONDS)  # the process's other writes take their turn
            if not self._lock.acquire(timeout=max(by - time.monotonic(), 0.0)):
                raise refused

    def _try(self, attempt: Callable[[], T], by: float) -> T:
        """`attempt` in the in-process lock, waiting for another process's lock for a
        try, or for what is left until `by` when less."""
        self.last_used = time.monotonic()  # reads too: cheaper than telling them apart
        left = max(by - self.last_used, 0.0)
        if left >= self._try_timeout:
            return attempt()
        self._set_busy_timeout(left)
        try:
            return attempt()
        finally:
            self._set_busy_timeout(self._try_timeout)

    def _may_try_again(self, exc: BaseException, by: float) -> bool:
        """`exc` is another process's lock refusing a try outside a transaction, and
        there is time for another before `by`."""
        busy = getattr(exc, "sqlite_errorname", None) or ""
        return (
            busy.startswith("SQLITE_BUSY")
            and not self._conn.in_transaction
            and time.monotonic() + LOCK_PAUSE_SECONDS < by
        )

    def _lock_by(self, until: float) -> None:
        """Take the in-process lock by `until` (time.monotonic())."""
        left = until - time.monotonic()
        taken = self._lock.acquire(timeout=left) if left > 0 else self._lock.acquire(False)
        if not taken:
            raise HeldInProcess("database is locked (by another write of this process)")

    def acquire_server_lock(self) -> bool:
        """Claim the file for one server process; False when another one holds it.

        Resuming `processing` deliveries at start-up is only safe when no other
        live server is working on them. Idempotent.
        """
        if self._lock_files:
            return True
        # Next to the file itself, symlinks resolved: a second server that reaches the
        # same file by another path (a symlink to it or to a directory) takes this lock.
        # And next to the path as named, where releases before that took it: a server of
        # such a release, started during an upgrade or a rollback, is kept out too.
        # One file may have both names (a relative path, a symlinked directory): it is
        # locked once, or the second descriptor's lock would conflict with the first.
        # And on the database file itself, however it is reached (a bind mount of the
        # file has a lock file of its own next to the mount point): flock, which SQLite's
        # POSIX locks leave alone. That descriptor closes only after the connection (close),
        # also when the lock is refused: closing it drops this process's POSIX locks.
        database, real = str(self.path), f"{os.path.realpath(self.path)}.lock"
        names = server_lock_names(self.path)
        held: list[int] = []
        try:
            for name in names:
                if name == database:
                    if self._file_fd is None:
                        self._file_fd = os.open(name, os.O_RDONLY)  # flock needs no write
                    fcntl.flock(self._file_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    continue
                try:
                    fd = os.open(name, os.O_RDWR | os.O_CREAT, 0o644)
                except OSError:
                    if name == real:
                        raise
                    continue  # no release could lock there either (a read-only directory)
                held.append(fd)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BaseException as exc:
            self._release(held)
            if self._file_fd is not None:
                fcntl.flock(self._file_fd, fcntl.LOCK_UN)  # the descriptor stays open
            if isinstance(exc, BlockingIOError):
                return False
            raise
        self._lock_files = held
        return True

    def release_server_lock(self) -> None:
        """Give the server lock up, the database still open (a probe's: `redeliver`).
        The database file's descriptor stays open, as when the lock is refused."""
        with self._lock:
            self._release(self._lock_files)
            self._lock_files = []
            if self._file_fd is not None:
                fcntl.flock(self._file_fd, fcntl.LOCK_UN)

    @staticmethod
    def _release(descriptors: list[int]) -> None:
        for fd in descriptors:
            os.close(fd)  # closing a descriptor releases its lock

    def link_count(self) -> int:
        """The file's names (hard links). Another name is a database apart to SQLite (it
        finds the WAL by name) and to the server lock: the server refuses to start."""
        return os.stat(self.path).st_nlink

    def checkpoint_in_background(
        self, every: float = 0.5, busy_every: float = 5.0, quiet: float = 0.1
    ) -> None:
        """Run WAL checkpoints (the only fsyncs with synchronous=NORMAL) off the commits.

        SQLite checkpoints inside the commit that takes the WAL past 1000 pages: with
        ~20 KB per delivery, every ~200 deliveries a webhook answer waited for the
        fsyncs. A thread with its own connection runs a PASSIVE checkpoint (it never
        blocks a writer or a reader) instead: every `every` seconds when nothing was
        written for `quiet` seconds, at most every `busy_every` seconds while writes
        keep coming. Why wait while busy: after a checkpoint that caught up, the next
        commit starts the WAL over and SQLite fsyncs its new header inside that commit
        (so a crash cannot mix old and new frames); under a burst that stalls every
        answer in flight for one fsync (50-100 ms here), twice a second. Deferred, it
        happens once per `busy_every` seconds of burst, or when the burst ends; the WAL
        grows meanwhile, about 25 KB per delivery. A commit still checkpoints past
        WAL_AUTOCHECKPOINT_PAGES, should the thread fall behind. The server calls this;
        short-lived commands (`retry`) keep SQLite's default.
        """
        if self._checkpoints is not None:
            return
        self.execute(f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}")
        stop = threading.Event()

        def due(last_checkpoint: float) -> bool:
            now = time.monotonic()
            return now - self.last_used >= quiet or now - last_checkpoint >= busy_every

        def run() -> None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
            last = time.monotonic()
            try:
                while not stop.wait(every):
                    if not due(last):
                        continue
                    try:
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    except sqlite3.Error:
                        pass  # busy or locked: the next round tries again
                    last = time.monotonic()
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
        with self._reading:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        with self._lock:
            self._conn.close()
            self._release(self._lock_files)
            self._lock_files = []
            if self._file_fd is not None:
                os.close(self._file_fd)
                self._file_fd = None

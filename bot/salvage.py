"""`review-notes salvage`: what SQLite can still read of a damaged database file, copied
into a new one, and what could not be, named row by row.

A damaged file ("database disk image is malformed": a failing disk) can be neither
repaired in place nor written safely: SQLite cannot change or delete a damaged row. The
source is opened read-only (a read-write connection closing would checkpoint its -wal
file into it); each table is copied in one scan, and from the first row the scan cannot
read, row by row: a row that reads whole is copied whole, a damaged one with the columns
that still read (the others NULL or their default, when the table allows it), or named
as lost. The operator then puts the new file in the damaged one's place.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

from bot.command_updates import REFRESH_ACTION
from bot.db import is_damaged, read_through_indexes
from bot.prstate import FILE_LIST, STANDING_MARKS, STOOD_IN, UNREAD, read_values
from bot.queue import pr_key
from bot.times import utcnow

# How a row is named in the report, by table: the columns a reader knows it by (a
# delivery's id, a PR's repository and number); other tables by their primary key.
ROW_NAMES = {
    "deliveries": ("delivery {}", ("id",)),
    "pr_state": ("PR {}#{}", ("repo", "number")),
    "pr_replies": ("reply record {}", ("key",)),
    "feedback": ("mark on PR {}#{} of note {}", ("repo", "number", "note_id")),
    "numbering": ("numbers of PR {}#{} read in {}", ("repo", "number", "origin")),
    "command_decisions": ("decision on command {} of delivery {}", ("line", "delivery")),
    "meta": ("meta {}", ("key",)),
    "redelivery": ("redelivery {}", ("key",)),
    "dry_run_answered": ("dry-run delivery {}", ("id",)),
    "first_sent": ("first sending of delivery {}", ("id",)),
    # a dry run's own GitHub: lost, its next write on that PR posts (or reacts) anew
    "dry_run_comments": (
        "a dry run's comment {} on PR {}#{} (never on GitHub)",
        ("id", "repo", "number"),
    ),
    "dry_run_reactions": (
        "a dry run's reaction {} to its comment {} on PR {}#{}",
        ("content", "comment_id", "repo", "number"),
    ),
    "github_outage": (
        "the pause of every delivery while GitHub is down, until {}"
        " (without it the server claims deliveries at once)",
        ("until",),
    ),
    # not run at the unlock: the operator tells the PR to say them again
    "locked_commands": (
        "commands of comment {} on PR {}#{} kept for an unlock",
        ("comment_id", "repo", "number"),
    ),
    "released_still": (
        "the kept commands of comment {} on PR {}#{} run at its unlock, edited since",
        ("comment_id", "repo", "number"),
    ),
}
# Columns kept or forgotten together: one lost, the rest are set to NULL with it, as
# retention forgets a PR's file list (PRStore.prune_files): a file list's head without
# the list would read as the list of that head. The server reads around them so too.
TOGETHER = {"pr_state": FILE_LIST}


def _pr_state(
    source: sqlite3.Connection, values: dict[str, object]
) -> tuple[dict[str, object], list[tuple[str, str]]]:
    """A PR's state as the server reads it (bot.prstate `read_values`: `PRStore.get`'s
    reading): each JSON value that does not read replaced by what the server takes in its
    place, and why, by column. The hidden notes' stand-in, the PR's standing marks, read
    from the damaged file (none where they do not read, said so: the marks' table names
    its own damage; none, as read, in an older file without their table). An update owed
    to its commands that did not read is still owed while the damaged file's queue holds
    one of the PR to make (`_update_queued`), else none is, said so."""

    def marks() -> list[str] | None:
        try:
            rows = source.execute(STANDING_MARKS, (values.get("repo"), values.get("number")))
            return list(dict.fromkeys(r[0] for r in rows))
        except sqlite3.DatabaseError as exc:
            return None if is_damaged(exc) else []

    if values.get("pending") is UNREAD and not _update_queued(source, values):
        reading = read_values(values | {"pending": None}, marks)
        return reading.stored, [*reading.why, ("pending", NONE_OWED)]
    reading = read_values(values, marks)
    return reading.stored, reading.why


# an owed update that did not read, the damaged file's queue holding no update of its PR
NONE_OWED = (
    "unreadable: none owed: no update of the PR waits in the queue (one a locked"
    " conversation refused is not made at its unlock, nor its `+1`s given)"
)
# an update of a PR its commands are owed, queued (a window's end) or failed (made at the
# PR's next event: bot.pr_events); in the damaged file
QUEUED_UPDATE = (
    "SELECT 1 FROM deliveries WHERE pr_key = ? AND state IN ('pending', 'processing',"
    " 'failed') AND action = ? LIMIT 1"
)


def _update_queued(source: sqlite3.Connection, values: dict[str, object]) -> bool:
    """Whether the damaged file's queue holds an update of the PR's commands still to make
    (`values`: its state's row): it finds the update owed (bot.prstate OWED_UNKNOWN), as
    the server reads one that does not read, where none owed it would make nothing. The
    queue not read either: taken as owed, its update maybe lost with it, for the PR's next
    event to make."""
    number = values.get("number")
    key = pr_key(str(values.get("repo")), number if isinstance(number, int) else None)
    try:
        return bool(source.execute(QUEUED_UPDATE, (key, REFRESH_ACTION)).fetchone())
    except sqlite3.DatabaseError as exc:
        if not is_damaged(exc) and "no such table" not in str(exc):
            raise
        return is_damaged(exc)


# Values the server reads in its own form (JSON), checked as rows are copied: SQLite
# reads a damaged one as any text. Each table's check gives the row's values as the
# server reads them (bot.prstate: it reads around the rest, said in its log at each
# start) and why not all did, by column, named in the report; the rest of the row is kept.
CHECKED: dict[
    str,
    Callable[
        [sqlite3.Connection, dict[str, object]],
        tuple[dict[str, object], list[tuple[str, str]]],
    ],
] = {"pr_state": _pr_state}


# How the report names SQLite's AUTOINCREMENT counters (its table sqlite_sequence): what
# they number next, so that a number is never given twice.
COUNTERS = "counters of the next numbers (a delivery's seq, a dry-run comment's id)"

# A column a row cannot be kept without (NOT NULL, no default), given a value when it is
# lost: a PR's state is worth keeping without when it was last handled (its comment's id,
# its opt-out), which then reads as now.
FILLED = {("pr_state", "updated_at"): utcnow}


@dataclass(frozen=True)
class Unlisted:
    """Rows of a table that may be lost unnamed: on damaged pages, or beneath one (an
    interior page of the table's tree hides every row below it), when no index lists
    every row of the table. `rowids`: those SQLite could not look up between the rows
    read on either side of the damage, each the place of one row at most; None when no
    row read past it, so how many is not known (they are past `after`)."""

    damage: str  # what SQLite said there
    after: int
    rowids: tuple[int, ...] | None

    def said(self) -> str:
        if self.rowids is None:
            many = f"an unknown number of rows (rowids from {self.after + 1} on)"
        else:  # one per rowid at most: fewer where rows were deleted
            first, last = self.rowids[0], self.rowids[-1]
            among = "" if len(self.rowids) == last - first + 1 else "among "
            many = f"up to {len(self.rowids)} rows ({among}rowids {first} to {last})"
        return (
            f"maybe lost: {many} on or beneath damaged pages, unnamed: no index lists every"
            f" row of the table ({self.damage})"
        )


@dataclass
class TableCopy:
    """What one table's copy kept and lost."""

    table: str
    whole: int = 0
    in_part: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # name, columns lost
    lost: list[tuple[str, str]] = field(default_factory=list)  # name, why
    unlisted: Unlisted | None = None
    checked: list[tuple[str, str]] = field(default_factory=list)  # name, a value read in part

    @property
    def complete(self) -> bool:
        return not (self.in_part or self.lost or self.unlisted or self.checked)

    def in_part_count(self) -> int:
        """The rows copied in part: a column lost, or a value read in part (`CHECKED`)."""
        return len({name for name, _ in self.in_part} | {name for name, _ in self.checked})

    def check(
        self, source: sqlite3.Connection, names: list[str], row: tuple, name: Callable[[], str]
    ) -> tuple[tuple, list[tuple[str, str]]]:
        """`row` (its rowid, then the values of `names`) as the server reads it (`CHECKED`);
        and what did not read, named under the row's `name()`, for `checked` once the row
        is copied (one the new file refuses is lost, not in part)."""
        check = CHECKED.get(self.table)
        if check is None:
            return row, []
        values, wrong = check(source, dict(zip(names, row[1:], strict=True)))
        read = (row[0], *(values[n] for n in names))
        return read, [(name(), f"{column}: {why}") for column, why in wrong]


class SalvageError(Exception):
    """Nothing could be copied (the schema does not read): said with the fix."""


class NewFileError(SalvageError):
    """SQLite could not write the new file (its disk full, an I/O error): no damage of
    the source, and nothing to read past."""

    def __init__(self, path: Path, exc: sqlite3.DatabaseError):
        super().__init__(
            f"the new file {path} could not be written ({exc}): nothing was made; free its"
            " disk, or name a new file on another one"
        )


class _NewFile:
    """The new file's connection. What SQLite refuses to write there (a full disk, an I/O
    error) is a NewFileError: a DatabaseError met while a scan of the source gives its
    rows was taken for damage of the source, the scan went past it and the row was taken
    again; and a ROLLBACK after it (SQLite had rolled back itself) was said in its place.
    A row it refuses (IntegrityError: its key another's) is the row's, named lost."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn, self.path = conn, path

    def execute(self, sql: str, params: tuple[object, ...] = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, params)
        except sqlite3.IntegrityError:
            raise
        except sqlite3.DatabaseError as exc:
            raise NewFileError(self.path, exc) from exc

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction


def read_only(path: Path) -> sqlite3.Connection:
    """`path` opened so that nothing is written to it, nor its -wal file checkpointed in.
    A file cut short (its header counting more pages than it has) is read as far as it
    goes: SQLite refuses such a file whole, its schema too, unless its schema is
    "writable", which a connection that writes nothing can afford."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    conn.execute("PRAGMA query_only = ON")
    conn.execute("PRAGMA writable_schema = ON")
    return conn


def tables_of(source: sqlite3.Connection) -> list[tuple[str, str, str, str | None]]:
    """The schema's entries: (type, name, table, sql); SalvageError when it does not read."""
    try:
        return source.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise SalvageError(
            f"its schema cannot be read ({exc}): nothing of it can be copied; without a"
            " backup, move it aside with its -wal and -shm files to start on a new file (what"
            " it held is lost)"
        ) from None


def salvage(source: sqlite3.Connection, target: Path) -> list[TableCopy]:
    """Copy every table of `source` into the new file `target` (its schema first, then
    the rows, then the AUTOINCREMENT counters); what each table kept and lost."""
    schema = tables_of(source)
    with closing(sqlite3.connect(target, isolation_level=None)) as conn:
        out = _NewFile(conn, target)
        out.execute("PRAGMA journal_mode=WAL")  # as the server keeps it
        # its schema version: a newer release's file stays refused by an older one
        version = int(source.execute("PRAGMA user_version").fetchone()[0])
        out.execute(f"PRAGMA user_version = {version}")
        for kind in ("table", "index"):  # the indexes first: a row they refuse is lost
            for what, name, _, sql in schema:
                if what == kind and sql and not name.startswith("sqlite_"):
                    out.execute(sql)
        indexes: dict[str, list[str]] = {}
        for what, name, table, _ in schema:
            if what == "index":
                indexes.setdefault(table, []).append(name)
        copies = [
            _copy_table(source, out, name, indexes.get(name, []))
            for what, name, _, sql in schema
            if what == "table" and sql and not name.startswith("sqlite_")
        ]
        if any(name == "sqlite_sequence" for _, name, _, _ in schema):
            copies.append(_copy_counters(source, out))
        out.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return copies


def integrity(path: Path) -> str:
    """SQLite's integrity check of `path`: "ok", or its first problems."""
    with closing(sqlite3.connect(path)) as conn:
        said = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
    return "; ".join(said)


def _columns(conn: _NewFile, table: str) -> list[tuple[str, bool, bool, bool]]:
    """(name, may be NULL, has a default, is the rowid) of each column of `table`."""
    info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
    pks = [r for r in info if r[5]]
    alias = pks[0][1] if len(pks) == 1 and pks[0][2].upper() == "INTEGER" else None
    return [(r[1], not r[3], r[4] is not None, r[1] == alias) for r in info]


def _copy_table(
    source: sqlite3.Connection, out: _NewFile, table: str, indexes: list[str]
) -> TableCopy:
    """Copy `table` in one transaction: one scan in rowid order, which stops at damage;
    then a scan from the table's end back to the damage; then, one by one (`_copy_row`),
    the rows that neither scan copied but an index lists, the table's pages still give
    the rowid of, or a lookup of each rowid between the two scans finds (`_look_up`)."""
    copy = TableCopy(table)
    columns = _columns(out, table)
    names = [c[0] for c in columns]
    listed = ", ".join(f'"{n}"' for n in names)
    done: set[int] = set()
    out.execute("BEGIN")
    try:
        last = _copy_scan(source, out, copy, names, done)
        found, every_row = _listed(source, table, indexes)  # rowid -> the index listing it
        if last is not None:  # the rows after the damage: from the end back, then by rowid
            back_to = _copy_scan(source, out, copy, names, done, after=last)
            past, damage = _rowids_past(source, table, last)
            for rowid in past:
                found.setdefault(rowid, None)
            if damage is not None and not every_row:
                after = max([last, *past])
                if not back_to:  # no row read past the damage: how many is not known
                    copy.unlisted = Unlisted(damage, after, None)
                elif unread := _look_up(source, table, range(after + 1, back_to), found):
                    copy.unlisted = Unlisted(damage, after, unread)
        for rowid in sorted(found.keys() - done):
            _copy_row(source, out, copy, (columns, listed), rowid, (indexes, found[rowid]))
        out.execute("COMMIT")
    except BaseException:
        if out.in_transaction:  # (SQLite rolls back itself on a full disk or an I/O error:
            out.execute("ROLLBACK")  # a ROLLBACK then failed, said in the error's place)
        raise
    return copy


def _insert(out: _NewFile, table: str, names: list[str], row: tuple[object, ...]) -> None:
    listed = ", ".join(f'"{n}"' for n in names)
    marks = ", ".join("?" * len(names))
    out.execute(f'INSERT INTO "{table}" (rowid, {listed}) VALUES (?, {marks})', row)


def _copy_scan(
    source: sqlite3.Connection,
    out: _NewFile,
    copy: TableCopy,
    names: list[str],
    done: set[int],
    after: int | None = None,
) -> int | None:
    """Copy the rows one scan reads, in rowid order, until one does not read: None when
    all did, else the rowid of the last one copied (0 for none). `after`: the rows past
    that rowid instead, from the table's last one back (those on sound pages after a
    damaged one, which no index may list whole); the last one copied is then the first
    row past the damage."""
    table, back, last = copy.table, after is not None, 0

    def not_read() -> str:  # (the rows not read yet, in the scan's order)
        if not back:
            bound = f"rowid > {last}"
        elif last:
            bound = f"rowid > {int(after or 0)} AND rowid < {last}"
        else:
            bound = f"rowid > {int(after or 0)}"
        return f'SELECT rowid, * FROM "{table}" WHERE {bound} ORDER BY rowid' + " DESC" * back

    def take(row: tuple) -> None:
        nonlocal last
        checked, read_in_part = copy.check(source, names, row, lambda: _named(table, names, row))
        try:
            _insert(out, table, names, checked)
        except sqlite3.IntegrityError as exc:  # (no damage: the scan goes on past it)
            copy.lost.append((_named(table, names, row), f"refused by the new file: {exc}"))
        else:
            copy.whole += 1
            copy.checked += read_in_part
        done.add(row[0])
        last = row[0]

    read_all, _ = _read_to_damage(source, not_read, take)
    return None if read_all else last


def _read_to_damage(
    source: sqlite3.Connection, query: Callable[[], str], take: Callable[[tuple], None]
) -> tuple[bool, sqlite3.DatabaseError | None]:
    """Give `take` each row `query()` reads (it names the rows not taken yet, in order)
    until one does not read: whether the scan read to its end, and the last error it met
    (OperationalError too: text that is not UTF-8). Python's cursor reads a row ahead of
    the one it gives: the last row before the damage, read whole, was not given. Alone
    (LIMIT 1), it is; then the scan resumes. (`take` raises no DatabaseError, which would
    be taken for damage: what the new file refuses to write is a NewFileError.)"""
    met = None
    while True:
        try:  # (execute reads the first row)
            for row in source.execute(query()):
                take(row)
            return True, met
        except sqlite3.DatabaseError as exc:
            met = exc
        try:
            row = source.execute(f"{query()} LIMIT 1").fetchone()
        except sqlite3.DatabaseError:
            return False, met
        if row is None:
            return False, met
        take(row)


def _listed(
    source: sqlite3.Connection, table: str, indexes: list[str]
) -> tuple[dict[int, str | None], bool]:
    """The rowids the indexes of `table` list, as far as they read, each with the first
    index listing it: a page of the table may lose rows without an error (its count of
    them damaged), which its scans then do not meet; those an index lists are named as
    lost (`_copy_row`). And whether they list every row: an index that is not partial
    read to its end."""
    found: dict[int, str | None] = {}
    every_row = False
    for index in indexes:
        try:
            for (rowid,) in source.execute(f'SELECT rowid FROM "{table}" INDEXED BY "{index}"'):
                found.setdefault(rowid, index)
        except sqlite3.DatabaseError:  # damaged; or partial ("no query solution": which
            continue  # rows it holds is told by the table's values)
        every_row = True  # (read to its end, not partial: an entry for each row)
    return found, every_row


def _rowids_past(source: sqlite3.Connection, table: str, last: int) -> tuple[list[int], str | None]:
    """The rowids after `last` the table's own pages read (those of rows whose values
    are damaged, not their page), and what stopped them when they did not read to the
    end (None: they did): the rows beyond, on damaged pages, are found by the indexes
    only."""
    found: list[int] = []

    def past() -> str:  # (the rowids not read yet)
        after = found[-1] if found else int(last)
        return f'SELECT rowid FROM "{table}" WHERE rowid > {after} ORDER BY rowid'

    _, met = _read_to_damage(source, past, lambda row: found.append(row[0]))
    return found, None if met is None else f"{type(met).__name__}: {met}"


def _look_up(
    source: sqlite3.Connection, table: str, rowids: range, found: dict[int, str | None]
) -> tuple[int, ...]:
    """Look each of `rowids` up alone, those of the rows no scan could reach: a lookup
    goes through sound pages where a scan stopped at a damaged one (rows on the pages
    between two damaged ones). Each found is added to `found` (copied then, whole or in
    part); those that do not read are returned, each the place of one row at most."""
    unread = []
    for rowid in rowids:
        if rowid in found:  # (an index lists it: named if it does not read)
            continue
        try:
            there = source.execute(f'SELECT rowid FROM "{table}" WHERE rowid = ?', (rowid,))
            if there.fetchone() is not None:
                found[rowid] = None
        except sqlite3.DatabaseError:
            unread.append(rowid)
    return tuple(unread)


def _named(table: str, names: list[str], row: tuple) -> str:
    """How the report names a row read whole (its rowid, then the values of `names`)."""
    shape, columns = ROW_NAMES.get(table, ("", ()))
    if not columns:
        return f"{table} row {row[0]}"
    return shape.format(*(row[1 + names.index(c)] for c in columns))


def _row_name(source: sqlite3.Connection, table: str, rowid: int, indexes: list[str]) -> str:
    """How the report names a row: by ROW_NAMES' columns, read from the row or from an
    index holding them (read to the row's entry only, LIMIT 1: a damaged page of the
    index past it hides nothing); by its rowid when neither reads (or the table has no
    names)."""
    shape, columns = ROW_NAMES.get(table, ("", ()))
    if not columns:
        return f"{table} row {rowid}"
    listed = ", ".join(f'"{c}"' for c in columns)
    found = read_through_indexes(source.execute, table, listed, "rowid", rowid, indexes)
    if found is None:
        return f"{table} row {rowid} (its name unreadable)"
    return shape.format(*found)


def _copy_row(
    source: sqlite3.Connection,
    out: _NewFile,
    copy: TableCopy,
    shape: tuple[list[tuple[str, bool, bool, bool]], str],
    rowid: int,
    indexes: tuple[list[str], str | None],
) -> None:
    """Copy one row the scans did not: whole if it reads, else what of it reads, or name
    it lost. `shape`: the table's columns, and their names for SQL; `indexes`: the
    table's, and the one listing the row (None: found by the table's pages)."""
    (columns, listed), (named_by, listing) = shape, indexes
    names = [c[0] for c in columns]
    try:
        row = source.execute(
            f'SELECT rowid, {listed} FROM "{copy.table}" WHERE rowid = ?', (rowid,)
        ).fetchone()
        whole_error = None
    except sqlite3.DatabaseError as exc:
        row, whole_error = None, exc
    if row is not None:
        try:
            whole = tuple(row)
            checked, read_in_part = copy.check(
                source, names, whole, lambda: _named(copy.table, names, whole)
            )
            _insert(out, copy.table, names, checked)
            copy.whole += 1
            copy.checked += read_in_part
        except sqlite3.IntegrityError as exc:
            name = _row_name(source, copy.table, rowid, named_by)
            copy.lost.append((name, f"refused by the new file: {exc}"))
        return
    name = _row_name(source, copy.table, rowid, named_by)
    if whole_error is None:  # listed by an index, not in the table: its page lost it
        why = f"missing from the table (a damaged page of it), though its index {listing} lists it"
        copy.lost.append((name, why))
        return
    kept: dict[str, object] = {}
    unread: list[str] = []
    for column, _, _, _ in columns:
        try:
            (kept[column],) = source.execute(
                f'SELECT "{column}" FROM "{copy.table}" WHERE rowid = ?', (rowid,)
            ).fetchone()
        except (sqlite3.DatabaseError, TypeError):  # (TypeError: the row is not there)
            unread.append(column)
    together = TOGETHER.get(copy.table, ())
    if any(c in together for c in unread):
        unread += [c for c in together if c not in unread]
    dropped = [c for c in columns if c[0] in unread]
    needed = [c[0] for c in dropped if not (c[1] or c[2] or c[3] or (copy.table, c[0]) in FILLED)]
    if needed or len(unread) == len(columns):
        why = (
            "nothing of it reads"
            if len(unread) == len(columns)
            else f"{', '.join(needed)} unreadable"
        )
        copy.lost.append((name, f"{why} ({type(whole_error).__name__}: {whole_error})"))
        return
    values = {c: v for c, v in kept.items() if c not in unread}  # the rest NULL or default
    for column, *_ in dropped:
        fill = FILLED.get((copy.table, column))
        if fill is not None:
            values[column] = fill()
    # a value the server stands in for (not as NULL would read), stood in for likewise:
    # a PR's hidden notes from its standing marks, lost with a damaged file list's pages
    stood_in = [c for c in unread if (copy.table, c) in STOOD_IN]
    values |= dict.fromkeys(stood_in, UNREAD)
    row = (rowid, *values.values())
    checked, read_in_part = copy.check(source, list(values), row, lambda: name)
    values = dict(zip(values, checked[1:], strict=True))
    try:
        _insert(out, copy.table, list(values), (rowid, *values.values()))
    except sqlite3.IntegrityError as exc:
        copy.lost.append((name, f"what reads of it refused by the new file: {exc}"))
        return
    lost = tuple(c[0] for c in dropped if c[0] not in stood_in)  # (those: `checked` says)
    if lost:
        copy.in_part.append((name, lost))
    copy.checked += read_in_part


def _copy_counters(source: sqlite3.Connection, out: _NewFile) -> TableCopy:
    """The AUTOINCREMENT counters (SQLite's sqlite_sequence: a delivery's seq is never
    given twice): the damaged file's, where it reads and is ahead of the rows copied.
    Unreadable, each table counts on from its last row copied, and the numbers of rows
    deleted after it are given again: said, not "nothing lost"."""
    copy = TableCopy(COUNTERS)
    try:
        counters = source.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
    except sqlite3.DatabaseError as exc:
        why = (
            f"unreadable ({type(exc).__name__}: {exc}): each counts on from its table's last"
            " row copied, so the number of a row deleted after it (a delivery's seq) may be"
            " given again"
        )
        copy.lost.append(("the counters", why))
        return copy
    for name, seq in counters:
        out.execute("UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?", (seq, name))
        out.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ?"
            " WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
            (name, seq, name),
        )
    return copy


def report(copies: list[TableCopy]) -> Iterator[str]:
    """The report's lines, a table's summary then each row not copied whole; the
    counters' line says whether they were copied (their count tells an operator nothing)."""
    for copy in copies:
        if copy.table == COUNTERS:
            yield f"{COUNTERS}: {'copied' if copy.complete else 'not copied'}"
            yield from (f"  lost: {name}: {why}" for name, why in copy.lost)
            continue
        parts = [f"{copy.whole + len(copy.in_part)} rows copied"]
        if copy.in_part or copy.checked:
            parts.append(f"{copy.in_part_count()} of them in part")
        if copy.lost:
            parts.append(f"{len(copy.lost)} lost")
        yield f"{copy.table}: {', '.join(parts)}"
        for name, dropped in copy.in_part:
            yield f"  in part: {name}: lost {', '.join(dropped)} (empty or their defaults now)"
        for name, what in copy.checked:  # (a value the server reads, read in part)
            yield f"  in part: {name}: {what}"
        for name, why in copy.lost:
            yield f"  lost: {name}: {why}"
        if copy.unlisted:  # rows its indexes list were named: others may be lost unnamed
            yield f"  {copy.unlisted.said()}"

"""A database file damaged as a failing disk damages it: pages overwritten on disk, for the
tests of what the server, `retry` and `review-notes salvage` make of it."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from bot.db import Database

PAGE = 4096  # SQLite's default page size, which bot.db keeps


def checkpointed(path: Path) -> None:
    """Move what the -wal holds into the file itself, so that its pages are on disk."""
    db = Database(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()


def leaf_pages(path: Path, name: str) -> list[int]:
    """The leaf pages of table or index `name`, in the order of their rows (the file
    checkpointed first)."""
    checkpointed(path)
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path",
            (name,),
        ).fetchall()
    return [page for (page,) in rows]


def root_page(path: Path, name: str) -> int:
    """The first page of table or index `name` (the whole of a small one)."""
    checkpointed(path)
    with closing(sqlite3.connect(path)) as conn:
        [(page,)] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (name,))
    return page


def overwrite(path: Path, page: int, at: int = 0, new: bytes = b"\xff" * PAGE) -> None:
    """Write `new` over page `page` of the file from byte `at` of it (all of it, by default)."""
    data = bytearray(path.read_bytes())
    start = (page - 1) * PAGE + at
    data[start : start + len(new)] = new
    path.write_bytes(data)


def damage_root_page(path: Path, name: str) -> None:
    """Overwrite the first page of table or index `name`: no row of a small one reads from
    its own pages."""
    overwrite(path, root_page(path, name))


def break_overflow_chain(path: Path, marker: bytes) -> None:
    """Damage one row as a failing disk may: the pages that continue its long value
    (overflow pages, found by `marker` in their data) lose their link to the next one,
    so SQLite finds the row malformed; other rows read as before."""
    checkpointed(path)
    data = bytearray(path.read_bytes())
    broken = 0
    for at in range(0, len(data), PAGE):  # (an indexed value has a chain in its index too)
        if data[at + 4 : at + 4 + len(marker)] == marker and data[at : at + 4] != bytes(4):
            data[at : at + 4] = bytes(4)  # the chain ends too soon
            broken += 1
    assert broken, "no overflow page holds the marker"
    path.write_bytes(data)


def rename_on_table_pages(path: Path, table: str, old: bytes, new: bytes) -> None:
    """Write `new` over `old` in `table`'s own pages alone (not its index's): a damaged
    page may say what its index does not, e.g. two rows under one key."""
    with closing(sqlite3.connect(path)) as conn:
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = ?", (table,))]
        [(size,)] = conn.execute("PRAGMA page_size")
    data = bytearray(path.read_bytes())
    for p in pages:
        at = slice((p - 1) * size, p * size)
        data[at] = bytes(data[at]).replace(old, new)
    path.write_bytes(bytes(data))

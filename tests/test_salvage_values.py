"""`review-notes salvage` of values SQLite reads but the server could not (damaged text
where the server keeps JSON): kept as far as they read, named, the rest of the row kept."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.db import Database
from bot.prstate import PRState, PRStore, WriteBack
from tests.test_salvage import _salvage


# kills: bot/salvage.py:_given_back a given_back value that does not read copied as it is
@pytest.mark.parametrize(
    ("stored", "kept", "said"),
    [
        ("[41, 42", (), "not JSON"),
        ('{"41": true}', (), "not a list of comment ids (an object)"),
        ('[41, "x", 42, null]', (41, 42), "2 of its 4 entries are no comment id: dropped"),
    ],
    ids=["not JSON", "an object", "a list in part"],
)
def test_a_given_back_list_that_does_not_read_is_named_and_the_rest_of_its_row_kept(
    tmp_path, stored, kept, said
):
    """SQLite reads a damaged given_back value (a PR's comments given back to a person:
    JSON, a list of comment ids) as any text. Copied as it was, the server could not read
    the PR's row at all (its comment's id, its opt-out): every event of the PR failed.
    Salvage keeps what of it reads, names what did not, and the rest of the row."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    prs.put(PRState("o/r", 1, comment_id=10, opted_out=True, given_back=(41, 42)))
    prs.put(PRState("o/r", 2, comment_id=20, given_back=(43,)))
    prs.put(PRState("o/r", 3, comment_id=30))  # (none given back: NULL, read as ever)
    db.execute("UPDATE pr_state SET given_back = ? WHERE number = 1", (stored,))
    db.close()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 3 rows copied, 1 of them in part" in lines, r.stdout
    [part] = [line for line in lines if line.startswith("  in part: ")]
    assert part.startswith("  in part: PR o/r#1: given_back: "), part
    assert said in part, part
    got = PRStore(Database(new))
    first = got.get("o/r", 1)
    assert (first.comment_id, first.opted_out, first.given_back) == (10, True, kept)
    assert got.get("o/r", 2).given_back == (43,) and got.get("o/r", 3).given_back == ()


# kills: bot/salvage.py:CHECKED a write_back value that does not read copied as it is
@pytest.mark.parametrize(
    ("stored", "said"),
    [
        ('{"comment": 41, "text": "their', "not JSON"),
        ('["their words"]', "not an object (a list)"),
        ('{"comment": 41, "text": "w", "over": "x", "over_at": 3}', "over_at: not a text"),
    ],
    ids=["not JSON", "a list", "a time no text"],
)
def test_a_write_back_that_does_not_read_is_dropped_named_and_the_rest_of_its_row_kept(
    tmp_path, stored, said
):
    """The words owed back onto a notes comment (JSON: comment, text, order key, the words
    we wrote back and when) read whole or not at all, as the server reads them: copied as
    it was, a damaged one made the PR's row unreadable; read in part, it could write
    older words, or over a person's own edit. None owed, named, the rest of the row kept."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    owed = WriteBack(41, "their words", "k", "ours", "2026-09-01T10:00:03Z")
    prs.put(PRState("o/r", 1, comment_id=10, opted_out=True, given_back=(41,), write_back=owed))
    prs.put(PRState("o/r", 2, comment_id=20, write_back=owed))
    db.execute("UPDATE pr_state SET write_back = ? WHERE number = 1", (stored,))
    db.close()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 2 rows copied, 1 of them in part" in lines, r.stdout
    [part] = [line for line in lines if line.startswith("  in part: ")]
    assert part.startswith("  in part: PR o/r#1: write_back: "), part
    assert said in part and "no words owed back" in part, part
    got = PRStore(Database(new))
    first = got.get("o/r", 1)
    assert (first.comment_id, first.opted_out, first.given_back) == (10, True, (41,))
    assert first.write_back is None and got.get("o/r", 2).write_back == owed


def _twins(path: Path, owed: str) -> None:
    """Two rows of PR o/keep#1 in the table, the second with `owed` as its write_back:
    its repo's name rewritten on the table's pages only (a damaged page can say what its
    index does not). The new file's key refuses the second."""
    db = Database(path)
    prs = PRStore(db)
    prs.put(PRState("o/keep", 1, comment_id=10))
    prs.put(PRState("o/twin", 1, comment_id=20))
    db.execute("UPDATE pr_state SET write_back = ? WHERE repo = 'o/twin'", (owed,))
    db.close()
    with closing(sqlite3.connect(path)) as conn:
        pages = [p for (p,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'pr_state'")]
        [(size,)] = conn.execute("PRAGMA page_size")
    data = bytearray(path.read_bytes())
    for p in pages:
        at = slice((p - 1) * size, p * size)
        data[at] = bytes(data[at]).replace(b"o/twin", b"o/keep")
    path.write_bytes(bytes(data))


# kills: bot/salvage.py:TableCopy.check a value read in part named for a row the new file
#        then refused (said copied in part and lost, counted among the rows copied)
# kills: bot/salvage.py:_copy_scan a row the new file refuses ending the copy
@pytest.mark.parametrize("owed", ['["their words"]', None], ids=["read in part", "whole"])
def test_a_row_the_new_file_refuses_is_said_lost_once_and_not_counted_copied(tmp_path, owed):
    _twins(tmp_path / "bot.sqlite3", owed)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 1 rows copied, 1 lost" in lines, r.stdout
    assert not [line for line in lines if line.startswith("  in part: ")], r.stdout
    [lost] = [line for line in lines if line.startswith("  lost: ")]
    assert "PR o/keep#1" in lost and "refused by the new file" in lost, lost
    assert PRStore(Database(new)).get("o/keep", 1).comment_id == 10

"""`review-notes salvage` of values SQLite reads but the server could not (damaged text
where the server keeps JSON): kept as far as they read, named, the rest of the row kept."""

from __future__ import annotations

import resource
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bot.command_updates import REFRESH_ACTION
from bot.db import Database
from bot.feedback import Mark
from bot.feedback_store import FeedbackStore
from bot.prstate import (
    DISMISSED_UNMARKED,
    OWED_UNKNOWN,
    PendingUpdate,
    PRState,
    PRStore,
    WriteBack,
    WriteBackHistory,
)
from bot.queue import DeliveryQueue
from tests.damage_kit import break_overflow_chain, damage_root_page, rename_on_table_pages
from tests.test_prstate_values import hidden_notes_unread_with_their_marks
from tests.test_salvage import _salvage
from tests.webhook_kit import base_env


# kills: bot/salvage.py:_pr_state a given_back value that does not read copied as it is (the
#   server's reading: bot/prstate.py:given_back_of)
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
    owed = WriteBack(41, "their words", "k", WriteBackHistory("ours", "2026-09-01T10:00:03Z"))
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
    rename_on_table_pages(path, "pr_state", b"o/twin", b"o/keep")


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


# kills: bot/salvage.py:CHECKED a damaged notes, files or dismissed value copied as it is
def test_every_json_value_of_a_prs_state_is_copied_as_the_server_reads_it(tmp_path):
    """The other JSON values too (bot.prstate `read_values`): copied as they were, the
    server read around them at each start; now each is copied as it reads them (the
    notes from their reasons, the comment to be written again; the file list dropped
    whole; the hidden notes from the damaged file's standing marks) and named."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    FeedbackStore(db).record(Mark("o/r", 1, "n-hid", 1, "rev"))
    evidence = {"n-a": ("why a",), "n-b": ("why b",)}
    kept = PRState("o/r", 1, comment_id=10, body_hash="h", opted_out=True, evidence=evidence)
    prs.put(replace(kept, notes=("n-a", "n-b"), files_sha="s", files=("a.py",)))
    prs.put(PRState("o/r", 2, comment_id=20, notes=("n-c",), files_sha="s", files=("c.py",)))
    db.execute(
        "UPDATE pr_state SET notes = '[\"n-a\"', files = '{', dismissed = '[1]' WHERE number = 1"
    )
    db.close()
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 2 rows copied, 1 of them in part" in lines, r.stdout
    parts = sorted(line.split(": ")[1:3] for line in lines if line.startswith("  in part: "))
    assert parts == [["PR o/r#1", c] for c in ("dismissed", "files", "notes")], r.stdout
    read = Database(new)
    assert read.execute(
        "SELECT notes, body_hash, files, files_sha, dismissed FROM pr_state WHERE number = 1"
    )[0][:] == ('["n-a", "n-b"]', None, None, None, '["n-hid"]')
    got = PRStore(read)
    first = got.get("o/r", 1)
    assert (first.comment_id, first.opted_out, first.notes) == (10, True, ("n-a", "n-b"))
    assert got.read_around == []  # (the server reads the copy whole)
    assert got.get("o/r", 2).files == ("c.py",)


# kills: bot/salvage.py:_copy_row a row read alone that the new file refuses ending the copy,
#        or counted copied (whole, or what reads of a damaged one)
def test_rows_read_alone_that_the_new_file_refuses_are_said_lost(tmp_path):
    """The rows between two damaged ones are copied one by one (`_copy_row`), not by a
    scan: one of them whole, and one damaged (its file list's pages) whose key still
    reads, each given the key of a row copied before (a damaged page can say what its
    index does not). The new file refuses both: each is named lost, once, not counted
    copied, and the copy goes on past them."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    long = ("Z" * 20_000,)  # (its pages overflow: their chain broken below)
    prs.put(PRState("o/keep", 1, comment_id=10))
    prs.put(PRState("o/keep", 2, comment_id=11))
    prs.put(PRState("o/dam", 1, comment_id=12, files_sha="s", files=long))
    prs.put(PRState("o/twin", 1, comment_id=20))  # the new file refuses it whole
    prs.put(PRState("o/twin", 2, comment_id=21, files_sha="s", files=long))  # and what reads
    prs.put(PRState("o/end", 1, comment_id=13))
    db.close()
    rename_on_table_pages(path, "pr_state", b"o/twin", b"o/keep")
    break_overflow_chain(path, b"Z" * 200)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert "pr_state: 4 rows copied, 1 of them in part, 2 lost" in lines, r.stdout
    assert {line.split(": ", 2)[1] for line in lines if line.startswith("  in part: ")} == {
        "PR o/dam#1"
    }, r.stdout
    lost = [line for line in lines if line.startswith("  lost: ")]
    assert len(lost) == 2, r.stdout
    assert "refused by the new file: UNIQUE constraint failed" in lost[0], lost
    assert "what reads of it refused by the new file: UNIQUE" in lost[1], lost
    got = PRStore(Database(new))
    assert [got.get("o/keep", n).comment_id for n in (1, 2)] == [10, 11]
    assert (got.get("o/dam", 1).comment_id, got.get("o/end", 1).comment_id) == (12, 13)


def _file_size_limit() -> None:
    """In the salvage's process: files may not grow past 200 kB, as on a full disk (the
    write fails, EFBIG, rather than the signal ending the process)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


# kills: bot/salvage.py:_NewFile the new file's write error taken for damage of the source
#        (read past, the row taken again) and a failed ROLLBACK said in its place
def test_a_new_file_that_cannot_be_written_is_said_so_and_nothing_is_made(tmp_path):
    """A real DatabaseError met inside a scan that is no damage: the new file's writes
    refused (its disk full). It was taken for damage of the source, the row taken again;
    SQLite had rolled the copy back itself, so the ROLLBACK after it failed, and the
    operator read `cannot rollback - no transaction is active`, naming the sound file."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    many = tuple(f"vllm/path/file_{j}.py" for j in range(50))
    for n in range(1, 401):
        prs.put(PRState("o/r", n, comment_id=n, files_sha="s", files=many))
    db.close()
    assert path.stat().st_size > 300_000
    before = path.read_bytes()
    new = tmp_path / "new.sqlite3"
    r = subprocess.run(
        [sys.executable, "-m", "bot.cli", "salvage", str(new)],
        env=base_env(tmp_path, PYTHONPATH=str(Path(__file__).resolve().parents[1])),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_file_size_limit,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(
        f"review-notes salvage: the new file {new} could not be written ("
    ), r.stderr
    assert "free its disk" in r.stderr and "rollback" not in r.stderr, r.stderr
    assert not new.exists() and path.read_bytes() == before


# kills: bot/salvage.py:_copy_row a PR's hidden notes lost with its file list's pages
def test_hidden_notes_lost_with_a_damaged_file_list_are_taken_from_the_marks(tmp_path):
    """A PR's file list's pages damaged lose the columns SQLite keeps past it, the notes
    hidden by `/notes wrong` among them: emptied, the notes a reviewer ruled out came back
    on the comment at the PR's next event. As the server reads a hidden-notes list that
    does not read, they are taken from the PR's standing marks; said so."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    FeedbackStore(db).record(Mark("o/r", 1, "n-hid", 1, "rev"))
    kept = PRState("o/r", 1, comment_id=10, opted_out=True, dismissed=("n-hid",))
    prs.put(replace(kept, files_sha="s", files=("Z" * 20_000,)))
    db.close()
    break_overflow_chain(path, b"Z" * 200)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    parts = [line for line in r.stdout.splitlines() if line.startswith("  in part: ")]
    assert (
        "  in part: PR o/r#1: dismissed: unreadable: the notes hidden taken from the PR's"
        " standing `/notes wrong` marks" in parts
    ), r.stdout
    assert not any("dismissed," in p or "dismissed " in p for p in parts), r.stdout
    got = PRStore(Database(new)).get("o/r", 1)
    assert (got.comment_id, got.opted_out, got.files, got.dismissed) == (10, True, None, ("n-hid",))


# kills: bot/salvage.py:_pr_state hidden notes said taken from marks that did not read
def test_hidden_notes_whose_marks_do_not_read_either_are_said_taken_as_none(tmp_path):
    """As the server reads them (bot.prstate DISMISSED_UNMARKED): a PR's `dismissed` that
    does not read, its standing marks damaged too, is copied as none hidden, and the
    report says so, not that they were taken from the marks."""
    path = tmp_path / "bot.sqlite3"
    hidden_notes_unread_with_their_marks(path)
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    parts = [line for line in r.stdout.splitlines() if line.startswith("  in part: ")]
    [part] = [p for p in parts if p.startswith("  in part: PR o/r#1: dismissed: ")] or [r.stdout]
    assert "not JSON" in part and DISMISSED_UNMARKED in part, part
    got = PRStore(Database(new)).get("o/r", 1)
    assert (got.comment_id, got.opted_out, got.dismissed) == (10, True, ())


# kills: bot/salvage.py:_pr_state an update owed lost with a damaged file list's pages (the
#        update queued for it then finds nothing owed), or one made up with none queued
@pytest.mark.parametrize(
    "queued", [True, False, None], ids=["its update queued", "none queued", "queue damaged"]
)
def test_an_owed_update_lost_with_a_damaged_file_list_is_owed_while_its_update_waits(
    tmp_path, queued
):
    """A PR's file list's pages damaged lose the columns SQLite keeps past it, the update
    owed to its commands (`pending`) among them: emptied, the update queued for it (a
    window's end) ran and found nothing owed, so the comment never showed what they
    asked. While the damaged file's queue holds an update of the PR still to run (or
    failed, which the PR's next event makes), it is still owed, as the server reads one
    that does not read; with none, none is owed (most rows hold none), said so. The queue
    damaged too (`None`): owed, its update maybe lost with it, for the PR's next event."""
    path = tmp_path / "bot.sqlite3"
    db = Database(path)
    prs = PRStore(db)
    owed = PendingUpdate((5,), True, (), "k")
    prs.put(PRState("o/r", 1, comment_id=10, pending=owed, files_sha="s", files=("Z" * 20_000,)))
    queue = DeliveryQueue(db)
    queue.enqueue("another PR's", "pull_request", REFRESH_ACTION, {}, "o/r", 2, by_bot=True)
    if queued:
        queue.enqueue("its update", "pull_request", REFRESH_ACTION, {}, "O/r", 1, by_bot=True)
    db.close()
    break_overflow_chain(path, b"Z" * 200)
    if queued is None:  # (the lookup reads the index of PRs' deliveries, else the table)
        damage_root_page(path, "deliveries_pr")
        damage_root_page(path, "deliveries")
    new = tmp_path / "new.sqlite3"
    r = _salvage(tmp_path, new)
    assert r.returncode == 1, r.stdout + r.stderr
    parts = [line for line in r.stdout.splitlines() if line.startswith("  in part: PR o/r#1: ")]
    [said] = [p for p in parts if p.startswith("  in part: PR o/r#1: pending: ")] or [r.stdout]
    assert not any("pending," in p or "pending " in p for p in parts), r.stdout
    got = PRStore(Database(new)).get("o/r", 1)
    assert got.comment_id == 10 and got.files is None
    if queued is not False:
        assert "unreadable: an update is still owed to commands" in said, said
        assert got.pending == OWED_UNKNOWN
    else:
        assert "unreadable: none owed: no update of the PR waits in the queue" in said, said
        assert got.pending is None

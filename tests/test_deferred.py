"""What a deferred comment update keeps in SQLite: a queued delivery that waits for its
time, and what the PR's state owes its commands; an old database gains the new columns."""

from __future__ import annotations

from bot.db import Database
from bot.prstate import PendingUpdate, PRStore
from bot.queue import DeliveryQueue
from bot.times import utcnow


def test_queue_holds_a_delivery_until_its_time(tmp_path):
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("later", "pull_request", "x", {}, "o/r", 1, not_before=utcnow(after_s=60))
    q.enqueue("now", "pull_request", "x", {}, "o/r", 1)
    assert q.claim().id == "now"  # the waiting one does not hold up its PR
    q.complete("now")
    assert q.claim() is None
    q.db.execute("UPDATE deliveries SET not_before = ? WHERE id = 'later'", (utcnow(),))
    assert q.claim().id == "later"


def test_an_old_database_gains_the_new_columns(tmp_path):
    db = Database(tmp_path / "old.sqlite3")
    db.script(
        "CREATE TABLE deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
        " event TEXT NOT NULL, action TEXT, payload TEXT NOT NULL, repo TEXT, pr_number INTEGER,"
        " pr_key TEXT, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,"
        " received_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
        "CREATE TABLE pr_state (repo TEXT NOT NULL, number INTEGER NOT NULL, comment_id INTEGER,"
        " body_hash TEXT, head_sha TEXT, notes TEXT NOT NULL DEFAULT '[]', files_sha TEXT,"
        " files TEXT, event_at TEXT, opted_out INTEGER NOT NULL DEFAULT 0,"
        " verbose INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL,"
        " PRIMARY KEY (repo, number));"
    )
    q, prs = DeliveryQueue(db), PRStore(db)
    q.enqueue("d", "pull_request", "x", {}, "o/r", 1, not_before=utcnow())
    assert q.claim().id == "d"
    prs.update("o/r", 1, pending=PendingUpdate((5,), True, said="t/1"))
    assert prs.get("o/r", 1).pending == PendingUpdate((5,), True, said="t/1")
    prs.update("o/r", 1, code_names={"KVConnectorStats": ("a.py",)})
    assert prs.get("o/r", 1).code_names == {"KVConnectorStats": ("a.py",)}
    assert prs.get("o/r", 1).incidental == frozenset()  # NULL in a row of the old table
    prs.update("o/r", 1, incidental=frozenset({"b.py", "a.py"}))
    assert prs.get("o/r", 1).incidental == {"a.py", "b.py"}
    # had_notes is not known for an old row with a comment (bot.sticky reads it from the
    # comment's hash); without a comment it is False
    db.execute(
        "INSERT INTO pr_state (repo, number, comment_id, updated_at) VALUES ('o/r', 2, 9, 'x'),"
        " ('o/r', 3, NULL, 'x')"
    )
    assert (prs.get("o/r", 2).had_notes, prs.get("o/r", 3).had_notes) == (None, False)
    prs.update("o/r", 2, had_notes=False)
    assert prs.get("o/r", 2).had_notes is False
    # no write of an old row is unconfirmed; the mark is kept once set
    assert prs.get("o/r", 2).unconfirmed is False
    prs.update("o/r", 2, unconfirmed=True)
    assert prs.get("o/r", 2).unconfirmed is True
    # the count of GitHub's entries holds for the files cached with it only: an older
    # release (a rollback) caching a new head's files leaves the old head's count behind
    prs.update("o/r", 2, files_sha="h1", files=("new.py", "old.py"), files_listed=1)
    assert prs.get("o/r", 2).files_listed == 1
    db.execute("UPDATE pr_state SET files_sha = 'h2' WHERE number = 2")  # as 7bd576a writes
    assert prs.get("o/r", 2).files_listed is None  # not known: one entry per path


def test_pending_update_collects_comments_once_and_the_last_word_on_showing():
    # True: `/notes`, `why`, `wrong` (show them); False: `off`; None: neither (`on`)
    p = PendingUpdate().add(5, None).add(5, None).add(None, None).add(6, True).add(7, None)
    assert p == PendingUpdate((5, 6, 7), True)
    assert p.add(8, False) == PendingUpdate((5, 6, 7, 8), False)  # `off` after `why`
    assert p.add(8, False).add(9, None).add(10, True).show is True


def test_pending_update_takes_the_showing_of_the_command_written_last_not_run_last():
    # an `off` written before a `/notes why` whose update is
    # deferred, delivered late into the same window, must not turn that update into a pause
    early, late = (
        "2026-09-01T10:00:00Z/00000000000000000007",
        "2026-09-01T10:00:01Z/00000000000000000008",
    )
    why = PendingUpdate().add(8, True, said=late)
    assert why.add(7, False, said=early) == PendingUpdate((8, 7), True, said=late)
    assert why.add(9, False, said=None).show is False  # not known: taken as the newest
    off = PendingUpdate().add(7, False, said=early)
    assert off.add(8, True, said=late) == PendingUpdate((7, 8), True, said=late)


# kills: prstate.PendingUpdate.add: drop `comment_id not in diff_acks`
def test_pending_update_owes_a_comment_on_the_diff_its_reaction_once():
    p = PendingUpdate().add(5, None, on_diff=True).add(5, True, on_diff=True)
    assert p.diff_acks == (5,) and p.acks == ()


def test_an_update_still_to_run_is_found_by_its_pr_under_its_name_or_its_repositorys_id(tmp_path):
    """What an unlock or a PR event asks before writing a command's owed update itself
    (bot.command_updates.write_owed): is its deferred update still queued? Under the PR's
    name (as GitHub spells it or not), or under the repository's old name, by its id."""
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    later = utcnow(after_s=60)
    q.enqueue("u", "pull_request", "up", {"repository": {"id": 7}}, "o/r", 1, not_before=later)
    q.enqueue("v", "pull_request", "up", {"repository": {"id": 8}}, "o/x", 2)
    assert q.still_to_run("up", "O/R", 1, None) and q.still_to_run("up", "n/r", 1, 7)
    assert not q.still_to_run("up", "n/r", 1, 9) and not q.still_to_run("up", "n/r", 1, None)
    assert not q.still_to_run("other", "o/r", 1, 7) and not q.still_to_run("up", "o/r", 2, 7)
    assert q.claim().id == "v" and q.still_to_run("up", "o/x", 2, None)  # running
    q.complete("v")
    assert q.still_to_run("up", "o/x", 2, 8) is False  # done

"""The decisions on a delivery's commands, kept for its re-runs (bot.decision_store): end
to end in tests/test_command_answers.py (a retry, a restart, retention)."""

from bot.command_policy import Decision
from bot.commands import Kind
from bot.db import Database
from bot.decision_store import DecisionStore
from bot.queue import DeliveryQueue

OFF_ALLOWED = {(0, Kind.OFF): Decision.ALLOW, (2, Kind.WRONG): Decision.REFUSE}


def test_a_delivery_reads_its_own_decisions_in_a_store_opened_again(tmp_path):
    db = Database(tmp_path / "bot.sqlite3")
    DecisionStore(db).record("d1", OFF_ALLOWED)
    DecisionStore(db).record("d2", {(0, Kind.ON): Decision.REFUSE})
    db.close()
    store = DecisionStore(Database(tmp_path / "bot.sqlite3"))  # a restart
    assert store.recorded("d1") == OFF_ALLOWED
    assert store.recorded("d2") == {(0, Kind.ON): Decision.REFUSE}
    assert store.recorded("d3") == {}


def test_the_first_decision_stays():
    store = DecisionStore(Database(":memory:"))
    store.record("d1", OFF_ALLOWED)
    store.record("d1", {(0, Kind.OFF): Decision.REFUSE, (1, Kind.ON): Decision.ALLOW})
    assert store.recorded("d1") == {**OFF_ALLOWED, (1, Kind.ON): Decision.ALLOW}


def test_a_kind_or_decision_this_release_does_not_know_is_judged_anew():
    # a release after this one (rolled back) may name kinds or decisions this one lacks
    store = DecisionStore(Database(":memory:"))
    store.record("d1", OFF_ALLOWED)
    store.db.execute(
        "INSERT INTO command_decisions (delivery, line, kind, decision, at)"
        " VALUES ('d1', 5, 'snooze', 'allow', ''), ('d1', 6, 'on', 'maybe', '')"
    )
    assert store.recorded("d1") == OFF_ALLOWED


def test_pruning_spares_the_decisions_of_deliveries_still_kept_and_new_ones(tmp_path):
    db = Database(tmp_path / "bot.sqlite3")
    queue, store = DeliveryQueue(db), DecisionStore(db)
    queue.enqueue("kept", "issue_comment", "created", {})  # a decision's delivery, still kept
    for delivery in ("kept", "gone", "gone too", "new"):
        store.record(delivery, OFF_ALLOWED)
    db.execute("UPDATE command_decisions SET at = '2000' WHERE delivery != 'new'")
    assert store.prune("2001", 3) == 3  # two rows of each gone delivery: up to the limit
    assert store.prune("2001", 3) == 1
    left = {r["delivery"] for r in db.execute("SELECT delivery FROM command_decisions")}
    assert left == {"kept", "new"}


def test_going_live_drops_a_dry_runs_decisions():
    store = DecisionStore(Database(":memory:"))
    store.record("d1", OFF_ALLOWED)
    with store.db.tx() as conn:
        assert store.drop_all(conn) == 2
    assert store.recorded("d1") == {}

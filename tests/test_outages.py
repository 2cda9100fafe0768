"""A GitHub outage is waited out with no operator: a delivery GitHub fails (5xx, a dropped
connection: the client's tries used up) is put back in the queue for a growing wait, in
SQLite, and runs again by itself once GitHub answers; only past the waits' total does it
fail for `review-notes retry`. Through the whole app (webhook -> queue -> worker ->
GitHubClient -> the fake GitHub over HTTP), on a real SQLite file.

Where a wait must pass, it is either tiny (settings) or, for a snapshot of the waiting
state, the default minute moved by hand (`not_before` cleared), as tests/test_faults.py
does for a rate limit's hour.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import pytest

from bot import queue as queue_module
from bot import server
from bot.commands import CommandConfig
from bot.db import Database
from bot.github_errors import LockedError
from bot.github_port import GitHubError, call_answered
from bot.queue import DeliveryQueue
from bot.redelivery import HookDelivery, to_redeliver
from bot.settings import load_settings
from bot.times import STORED_TIME, stored_time, utcnow
from bot.workers import OutageWaits, Workers
from tests.command_kit import AUTHOR, comment_payload, reactions, replies, tune
from tests.fake_github import DEFAULT_REPO, Fault
from tests.test_faults import metric
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    ROOT,
    base_env,
    clean_env,
    cli,
    drain,
    live_settings,
    ours,
    post,
    pr_payload,
    repo_calls,
    serving,
    wait_until,
)

N, M = 7801, 7802
DOWN = [Fault.error(502)] * 100_000  # every call, until clear_faults: GitHub is down


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


def the_minute_passes(rt) -> None:
    """The waits put back deliveries are due now (the queue's time is the wall clock's)."""
    rt.db.execute("UPDATE deliveries SET not_before = NULL WHERE state = 'pending'")
    rt.db.execute("UPDATE github_outage SET until = ''")  # the pause's end has come too
    rt.queue._notify()


def outage_settings(tmp_path, fake, app_key, **kw):
    """The served App with outage waits on (webhook_kit turns them off): the defaults
    unless `kw` says otherwise."""
    return live_settings(tmp_path, fake, app_key, **{"outage_wait_total": 3600.0, **kw})


# --- the waits ---------------------------------------------------------------------


def test_the_default_waits_are_a_minute_doubling_to_fifteen_for_an_hour():
    waits = OutageWaits()
    assert [waits.wait(n) for n in range(9)] == [60, 120, 240, 480, 900, 900, 900, None, None]
    assert waits.most_put_backs == 7  # 60 minutes in all
    settings = load_settings(env_file=None, github_webhook_secret="s")  # config/bot.toml's
    assert (settings.outage_wait, settings.outage_wait_max, settings.outage_wait_total) == (
        waits.first,
        waits.most,
        waits.total,
    )


def test_the_waits_end_where_their_total_would_be_passed_and_zero_fails_at_once():
    assert [OutageWaits(1, 4, 7).wait(n) for n in range(4)] == [1, 2, 4, None]  # 1+2+4 = 7
    assert [OutageWaits(1, 4, 6.9).wait(n) for n in range(3)] == [1, 2, None]
    assert OutageWaits(1, 4, 7).most_put_backs == 3
    assert [OutageWaits(5, 2, 5).wait(n) for n in range(4)] == [2, 2, None, None]  # most caps
    assert OutageWaits(60, 900, 0).wait(0) is None
    assert OutageWaits(60, 900, 0).most_put_backs == 0


# --- what is put back, what fails ----------------------------------------------------


def _run_one_raising(tmp_path, exc: Exception) -> DeliveryQueue:
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d", "pull_request", "opened", {}, "o/r", 1)

    def process(_):
        raise exc

    Workers(q, process, 1, outage=OutageWaits(60, 900, 3600)).run_one(q.claim())
    return q


@pytest.mark.parametrize(
    "exc",
    [
        GitHubError(
            "GitHub create comment: 502 (gave up after 4 attempts)", status=502, transient=True
        ),
        GitHubError(
            "GitHub list files: ConnectionError (gave up after 4 attempts)", transient=True
        ),
    ],
    ids=["502", "connection"],
)
def test_a_failure_github_may_recover_from_puts_the_delivery_back(tmp_path, exc):
    d = _run_one_raising(tmp_path, exc).get("d")
    assert (d.state, d.outages, d.deferrals) == ("pending", 1, 0)
    assert d.not_before is not None and d.not_before > d.updated_at
    assert d.last_error == f"GitHubError: {exc}"


def test_retry_of_a_delivery_waiting_on_github_says_it_waits_not_that_none_failed(tmp_path):
    # `retry ID` of one put back in an outage said "no failed delivery with this id"
    # (exit 1), as for an id the queue never held: true, and no help to an operator
    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    q.enqueue("d", "pull_request", "opened", {}, "o/r", 1)

    def process(_):
        raise GitHubError("GitHub get pull: 502 (gave up after 4 attempts)", transient=True)

    Workers(q, process, 1, outage=OutageWaits(60, 900, 3600)).run_one(q.claim())
    until = q.get("d").not_before
    r = cli("retry", "d", env=base_env(tmp_path), cwd=ROOT)
    said = f"d: waiting until {until} (put back 1 time); it runs again by itself, not failed\n"
    assert (r.returncode, r.stdout, r.stderr) == (0, said + "0 re-queued\n", "")
    r = cli("retry", "d", "nope", env=base_env(tmp_path), cwd=ROOT)
    assert (r.returncode, r.stderr) == (1, "nope: no failed delivery with this id\n")
    assert r.stdout.startswith(said)
    d = q.get("d")
    assert (d.state, d.outages, d.not_before) == ("pending", 1, until)  # left to wait
    listing = cli("retry", env=base_env(tmp_path), cwd=ROOT).stdout  # one, said as one
    assert f"d  pull_request.opened  o/r PR 1  waiting until {until} (put back 1 time)" in listing
    assert "1 delivery waits for GitHub to answer again (put back as it failed): it runs" in listing


@pytest.mark.parametrize(
    "exc",
    [
        GitHubError("GitHub create comment: 403 Resource not accessible", status=403),
        GitHubError("GitHub get pull: 404 Not Found", status=404),
        GitHubError("GitHub create comment: 422 Validation Failed", status=422),
        LockedError("GitHub create comment: 403 issue is locked", status=403),
        KeyError("pull_request"),  # a bug of ours
        sqlite3.DatabaseError("database disk image is malformed"),  # a damaged file
    ],
    ids=["403", "404", "422", "locked", "bug", "damaged"],
)
def test_a_failure_no_wait_mends_still_fails_at_once(tmp_path, exc):
    # kills: bot/github_port.py:github_outage taking any GitHubError (or any error) for one
    d = _run_one_raising(tmp_path, exc).get("d")
    assert (d.state, d.outages) == ("failed", 0)


def test_a_rate_limit_is_still_deferred_not_taken_for_an_outage(tmp_path):
    exc = GitHubError("GitHub: rate limited", status=403, transient=True, retry_after=120)
    d = _run_one_raising(tmp_path, exc).get("d")
    assert (d.state, d.outages, d.deferrals) == ("pending", 0, 1)


def test_a_put_back_wakes_the_workers_and_keeps_its_error_as_a_failure_does(tmp_path):
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d", "pull_request", "opened", {}, "o/r", 1)
    q.claim()
    seen = q.version
    q.put_back("d", 60, "x" * 3000)
    assert q.version != seen  # a worker waiting for work looks again, not at its poll's end
    assert q.get("d").last_error == "x" * 2000  # as `fail` keeps it


def test_an_older_file_read_only_lists_none_waiting(tmp_path):
    # `review-notes retry` lists a backup of the release before, which SQLite may not
    # write (no `outages` column added): none waits there, and the listing goes on
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d", "pull_request", "opened", {}, "o/r", 1)
    q.db.execute("ALTER TABLE deliveries DROP COLUMN outages")
    q.db.close()
    db = Database(tmp_path / "q.sqlite3")
    db.execute("PRAGMA query_only = ON")  # as a file this user may not write
    older = DeliveryQueue(db)
    assert older.waiting_on_github(10) == (0, [])
    assert older.get("d").outages == 0


def test_a_put_back_not_stored_while_stopping_is_neither_failed_nor_counted(tmp_path, caplog):
    # the delivery stays processing, to run again at the next start: nothing says failed
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d", "pull_request", "opened", {}, "o/r", 1)

    def process(_):
        q.db.execute("PRAGMA query_only = ON")  # the put-back's write fails
        raise GitHubError("GitHub: 502 (gave up after 4 attempts)", status=502, transient=True)

    told: list[str] = []
    workers = Workers(q, process, 1, counted=lambda d, o: told.append(o))
    workers._stop.set()  # stopping: _record gives up after the first try
    caplog.set_level("WARNING", logger="bot.workers")
    workers.run_one(q.claim())
    q.db.execute("PRAGMA query_only = OFF")
    assert told == [] and q.get("d").state == "processing"
    assert not [m for m in caplog.messages if " failed: " in m], caplog.messages


def test_a_sweep_never_asks_github_for_a_delivery_waiting_on_it(tmp_path):
    # GitHub's log lists an attempt of it that did not get through (a timeout on its side
    # while the queue stored it): the sweep asks only for what the queue does not hold
    q = _run_one_raising(tmp_path, GitHubError("GitHub: 503", status=503, transient=True))
    assert q.get("d").state == "pending"
    now = datetime.now(UTC)
    listing = [HookDelivery(1, "d", now, 0, "pull_request", "opened")]
    assert to_redeliver(listing, q.held, now - timedelta(hours=1)) == []


# --- the queue's pause --------------------------------------------------------------


def _three_queued(path) -> DeliveryQueue:
    q = DeliveryQueue(Database(path))
    for n in (1, 2, 3):
        q.enqueue(f"d{n}", "pull_request", "opened", {}, "o/r", n)
    return q


def _time_passes(q: DeliveryQueue) -> None:
    q.db.execute("UPDATE deliveries SET not_before = NULL WHERE state = 'pending'")
    q.db.execute("UPDATE github_outage SET until = ''")


def test_an_outage_pauses_the_queue_then_one_probe_at_a_time_until_github_answers(tmp_path):
    # each queued delivery found the outage out on its own, spending its client's tries
    # against a GitHub that is down: N deliveries, N x tries calls, each its own backoff
    q = _three_queued(tmp_path / "q.sqlite3")
    assert q.claim().id == "d1"
    until = q.put_back("d1", 60, "502")
    assert until is not None and until == q.get("d1").not_before == q.outage_paused_until()
    assert q.claim() is None  # d2, d3 wait for d1's time, not for their own failures
    q.db.close()
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))  # a restart keeps the pause
    assert (q.outage_paused_until(), q.claim()) == (until, None)
    _time_passes(q)
    # the probe: the fewest put-backs first (d1 failing alone must not hold the queue)
    probe = q.claim()
    assert (probe.id, probe.probe) == ("d2", True)
    assert q.claim() is None  # one at a time
    assert q.put_back("d2", 60, "502") is None  # failed too: the pause goes on, not anew
    assert q.outage_paused_until() == q.get("d2").not_before > until
    assert q.claim() is None
    _time_passes(q)
    assert q.claim().id == "d3"
    q.complete("d3")
    seen = q.version
    assert q.github_answered(utcnow(), probe=True) is True  # d3 was the probe
    assert q.version != seen  # the idle workers woken: the queue goes on in parallel
    seen = q.version
    assert q.outage_paused_until() is None and q.github_answered(utcnow(), True) is False
    assert q.version == seen  # nothing to wake them for
    # then the queue's own order, more than one at a time, no probe
    assert [(d.id, d.probe) for d in (q.claim(), q.claim())] == [("d1", False), ("d2", False)]


# kills: bot/queue.py:DeliveryQueue._pause_left_over a start ending the pause deliveries wait behind
@pytest.mark.parametrize("probe_in_hand", [False, True])
def test_a_start_keeps_the_pause_while_a_delivery_put_back_waits_behind_it(tmp_path, probe_in_hand):
    # a crash mid-pause, or the operator's restart: GitHub may still be down, and one
    # put back again after its first put-back no longer begins a pause
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    until = q.put_back("d1", 60, "502")
    if probe_in_hand:  # the one put back runs, alone, as the server is killed
        q.db.execute("UPDATE deliveries SET state = 'done' WHERE id != 'd1'")
        _time_passes(q)
        assert q.claim().id == "d1"
        until = ""
    q.db.close()
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    assert q.recover().pause_ended is None
    assert q.outage_paused_until() == until


def test_a_start_ends_a_pause_no_delivery_waits_behind(tmp_path):
    # what was put back ran since (an older release, a rollback) or ended otherwise
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    until = q.put_back("d1", 60, "502")
    q.db.execute("UPDATE deliveries SET state = 'done' WHERE id = 'd1'")
    assert q.recover().pause_ended == until
    assert q.outage_paused_until() is None and q.claim().id == "d2"
    assert q.recover().pause_ended is None  # none to end


def test_a_delivery_github_fails_again_after_answering_others_pauses_nothing(tmp_path):
    # a PR's own 5xx (a diff GitHub times out on) is no outage: once GitHub answered
    # another delivery, that one's put-backs are its own and the queue goes on
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    assert q.put_back("d1", 60, "502") is not None
    _time_passes(q)
    q.claim()  # d2, the probe
    q.complete("d2")
    q.github_answered(utcnow(), probe=True)
    assert q.claim().id == "d1"
    assert q.put_back("d1", 120, "502") is None
    assert q.outage_paused_until() is None
    assert q.claim().id == "d3"


# kills: bot/queue.py:DeliveryQueue.put_back a put-back while paused not lengthening the pause
def test_the_probe_put_back_again_while_paused_lengthens_the_pause(tmp_path):
    # the delivery put back first is the only one left: it probes, fails again, and the
    # pause lasts until its next time (its waits growing), not over at its first
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d1", "pull_request", "opened", {}, "o/r", 1)
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    assert q.claim().id == "d1"
    assert q.put_back("d1", 120, "502") is None  # no new pause: the one in force goes on
    assert q.outage_paused_until() == q.get("d1").not_before
    assert q.claim() is None


def _answering(exc: BaseException | None = None, asks: bool = True, at: str | None = None):
    """A delivery's run GitHub answers a call of (as the client tells the port, unless
    not `asks`), sent `at` (None: now), then ending as `exc` makes it (None: done)."""

    def process(_):
        if asks:
            call_answered(at)
        if exc is not None:
            raise exc

    return process


@pytest.mark.parametrize(
    "exc, asks, ended",
    [
        (None, True, True),  # done
        (GitHubError("GitHub get pull: 404 Not Found", status=404), True, True),
        (GitHubError("rate limited", status=403, transient=True, retry_after=60), True, True),
        (KeyError("pull_request"), True, True),  # a bug of ours, after GitHub answered
        (GitHubError("GitHub get pull: 502", status=502, transient=True), True, False),
        # asking GitHub nothing says nothing of it: a closed PR's event, an ignored
        # command, a bug of ours before any call, a call a rate limit's pause held back
        (None, False, False),
        (KeyError("pull_request"), False, False),
        (GitHubError("paused", status=403, transient=True, retry_after=60), False, False),
    ],
    ids=["done", "refused", "rate_limited", "bug", "outage", "nothing", "bug_first", "unsent"],
)
def test_the_pause_ends_with_a_probe_github_answered(tmp_path, exc, asks, ended):
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    probe = q.claim()
    assert probe.probe
    Workers(q, _answering(exc, asks), 1, outage=OutageWaits(60, 900, 3600)).run_one(probe)
    assert (q.outage_paused_until() is None) is ended


# kills: bot/workers.py:Workers._github_answered the pause's end tried once, a lock an error
def test_a_pause_end_refused_for_another_process_lock_is_tried_again_quietly(
    tmp_path, monkeypatch, caplog
):
    # the probe's outcome stored, another process (`review-notes retry`, a backup) takes
    # the write lock before the pause's end is written: that write gave up after its
    # 0.2 s, logged an ERROR with a traceback ("ending the outage's pause failed") and
    # the queue stayed paused for one more probe, though GitHub had answered
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.05)
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    probe = q.claim()
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None, check_same_thread=False)
    complete, let_go = q.complete, threading.Timer(1.0, lambda: holder.execute("ROLLBACK"))

    def complete_then_locked(delivery_id: str) -> None:
        complete(delivery_id)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        let_go.start()

    monkeypatch.setattr(q, "complete", complete_then_locked)
    w = Workers(q, _answering(), 1, outage=OutageWaits(60, 900, 3600))
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.workers"):
            w.run_one(probe)
    finally:
        if let_go.ident is not None:  # (started: the outcome stored)
            let_go.join()
        holder.close()
    assert q.get(probe.id).state == "done"
    assert q.outage_paused_until() is None  # ended once the lock let go
    assert w.failures.failing_for() == 0.0
    told = [r for r in caplog.records if "pause" in r.getMessage()]
    assert any(r.levelno == logging.DEBUG for r in told), "the refusal is in the debug log"
    loud = [r.getMessage() for r in told if r.levelno > logging.WARNING or r.exc_info]
    assert loud == [], loud
    ended = [r.getMessage() for r in caplog.records if "the outage is over" in r.getMessage()]
    assert len(ended) == 1, ended


def _moved(at: str, microseconds: int) -> str:
    return stored_time(datetime.strptime(at, STORED_TIME) + timedelta(microseconds=microseconds))


# kills: bot/queue.py:DeliveryQueue.github_answered a run in hand ended it by an older answer
@pytest.mark.parametrize("sent, ended", [(-1, False), (0, False), (1, True)])
def test_a_run_in_hand_as_the_pause_began_ends_it_by_a_call_sent_after(tmp_path, sent, ended):
    # its answers to calls sent before the pause began may be from before GitHub went
    # down: those leave the pause to its probe, after its first wait (a minute). One
    # sent after it began is as good as a probe's: the pause lasted its whole first wait
    # though GitHub had answered, the workers idle (the time of the call's sending, on a
    # test's clock from the pause's beginning)
    q = _three_queued(tmp_path / "q.sqlite3")
    first, in_hand = q.claim(), q.claim()
    q.put_back(first.id, 60, "502")
    [began] = q.db.execute("SELECT since FROM github_outage")
    answer = _moved(began["since"], sent)
    seen = q.version
    Workers(q, _answering(at=answer), 1, outage=OutageWaits(60, 900, 3600)).run_one(in_hand)
    assert not in_hand.probe and q.get(in_hand.id).state == "done"
    assert (q.outage_paused_until() is None) is ended
    assert (q.version != seen + 1) is ended  # its end woke the idle workers (+1: done)


# kills: bot/queue.py:DeliveryQueue.github_answered a pause begun anew ended by an answer before it
def test_an_answer_older_than_the_pause_ends_no_pause_begun_anew(tmp_path):
    # a run's end reads when the pause began from memory (no read of the table at each
    # run's end): should a pause have ended and another begun since, the table's own
    # beginning decides
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    [began] = q.db.execute("SELECT since FROM github_outage")
    q._pause_since = _moved(began["since"], -2)  # as read of a pause since ended
    assert q.github_answered(_moved(began["since"], -1)) is False
    assert q.outage_paused_until() is not None


# kills: bot/queue.py:DeliveryQueue.github_answered a run's end writing with no pause seen
def test_a_run_answered_with_no_pause_seen_touches_no_table(tmp_path):
    # every run GitHub answers ends by asking: one write per run, where no pause was
    # begun, or the one seen has ended (the write would fail here: the file read-only)
    q = _three_queued(tmp_path / "q.sqlite3")
    q.db.execute("PRAGMA query_only = ON")
    assert q.github_answered(utcnow()) is False  # none begun
    q.db.execute("PRAGMA query_only = OFF")
    q.claim()
    q.put_back("d1", 60, "502")
    assert q.github_answered(utcnow(), probe=True) is True
    q.db.execute("PRAGMA query_only = ON")
    assert q.github_answered(utcnow()) is False  # the one seen ended


def test_a_pause_kept_by_a_release_before_its_beginning_is_ended_by_a_probe_only(tmp_path):
    # a pause begun by a release that kept no beginning (`since` NULL), left by a restart
    q = _three_queued(tmp_path / "q.sqlite3")
    first, in_hand = q.claim(), q.claim()
    q.put_back(first.id, 60, "502")
    q.db.execute("UPDATE github_outage SET since = NULL")
    assert q.claim() is None  # (a claim reads the pause)
    assert q.github_answered(utcnow()) is False
    q.complete(in_hand.id)
    _time_passes(q)
    assert q.claim().probe and q.github_answered(utcnow(), probe=True) is True


class _Unprintable(Exception):
    """A failure whose text cannot be made (its __str__ fails): the worker's handling of
    the outcome raises, a bug of ours, and the delivery is left processing."""

    def __str__(self) -> str:
        raise ValueError("no text")


@contextmanager
def _probe_raising(tmp_path, exc: BaseException, workers: int) -> Iterator[Workers]:
    """Workers on a paused queue whose probe (d2, the fewest put-backs first) raises
    `exc` once the other workers are idle (found nothing to claim: the probe runs), the
    others' runs GitHub answers, running until the queue went on (d1 done)."""
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    idle, wait_for_work = threading.Semaphore(0), q.wait_for_work

    def waiting(seen: int, timeout: float) -> None:
        idle.release()
        wait_for_work(seen, timeout)

    def process(d):
        if d.id == "d2":
            for _ in range(workers - 1):
                assert idle.acquire(timeout=30), "the other workers idle"
            raise exc
        call_answered()

    q.wait_for_work = waiting  # type: ignore[method-assign]
    w = Workers(q, process, workers, poll_seconds=3600.0, outage=OutageWaits(60, 900, 3600))
    w.start()
    try:
        wait_until(lambda: q.get("d1").state == "done", what="the queue going on")
        assert [q.get(d).state for d in ("d1", "d2", "d3")] == ["done", "processing", "done"]
        assert q.outage_paused_until() is None  # d3, the next probe, GitHub answered
        yield w
    finally:
        w.stop()


# kills: bot/workers.py:Workers._run the delivery left processing still held by the probe
def test_a_delivery_the_worker_left_processing_does_not_stall_the_probe(tmp_path, caplog):
    # in probe mode nothing is claimed while a delivery is processing (the probe runs one
    # at a time); one a worker left processing after an unexpected error of ours (it runs
    # again at the next start) was taken for a probe running: no other delivery ran, the
    # pause never ended, the whole queue stood until a restart, not its PR alone
    with _probe_raising(tmp_path, _Unprintable(), workers=1):
        pass
    said = "delivery d2: unexpected error in the worker; it stays processing and runs again"
    assert said in caplog.text


# kills: bot/workers.py:Workers._run a BaseException ending the worker unsaid, its delivery held
@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()])
def test_a_run_that_ends_its_worker_leaves_no_delivery_held_and_says_so(tmp_path, caplog, exc):
    # not an Exception: it went past the worker's handler and ended its thread, with no
    # word (SystemExit) or on stderr alone, the probe's delivery left processing as if a
    # run held it: the other worker claimed nothing, the whole queue stood until a restart
    with _probe_raising(tmp_path, exc, workers=2) as w:
        wait_until(lambda: sum(t.is_alive() for t in w._threads) == 1, what="its end")
        assert len(w._threads) == 2  # the other goes on
    [died] = [r for r in caplog.records if r.levelname == "CRITICAL"]
    assert died.getMessage().startswith("review-notes-worker-")
    assert died.getMessage().endswith(
        " stops: delivery d2's run raised what ends a thread; the delivery stays processing"
        " and runs again at the next start; one worker fewer until then"
    )
    assert died.exc_info[0] is type(exc)


def _reading_raises(monkeypatch, exc: BaseException) -> None:
    """The next claimed row's reading (after the claim's commit) raises `exc`, once."""
    read = queue_module._delivery

    def once(row, probe=False):
        monkeypatch.setattr(queue_module, "_delivery", read)
        raise exc

    monkeypatch.setattr(queue_module, "_delivery", once)


_ENDS_A_THREAD = [SystemExit(3), KeyboardInterrupt(), GeneratorExit()]


# kills: bot/queue.py:DeliveryQueue._claim_lost a claim cut short left processing
@pytest.mark.parametrize("exc", _ENDS_A_THREAD)
def test_a_claim_cut_short_by_what_ends_a_thread_hands_its_delivery_back(
    tmp_path, monkeypatch, exc
):
    # the claim's commit made the row processing, then its worker's thread was ended
    # before the delivery reached it: no run held it, yet it stayed processing until the
    # next start, its PR's later deliveries and an outage's probe waiting for it
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    _reading_raises(monkeypatch, exc)
    seen = q.version
    with pytest.raises(type(exc)):
        q.claim()  # d2, the probe
    d = q.get("d2")
    assert (d.state, d.attempts, d.interruptions) == ("pending", 0, 0)  # as never claimed
    assert q.version != seen  # an idle worker takes it at once
    assert (q.claim().id, q.claim()) == ("d2", None)  # the probe again, alone


def test_a_claim_cut_short_by_an_error_reading_its_row_holds_no_probe(tmp_path, monkeypatch):
    # an error of ours reading the row would come again at every claim, the oldest
    # first, all workers on it: it stays processing for the next start to count (three
    # interruptions give it up), but no run holds it, and an outage's probe goes on
    q = _three_queued(tmp_path / "q.sqlite3")
    q.claim()
    q.put_back("d1", 60, "502")
    _time_passes(q)
    _reading_raises(monkeypatch, ValueError("no payload"))
    seen = q.version
    with pytest.raises(ValueError):
        q.claim()
    assert q.get("d2").state == "processing" and q.version != seen  # the probe's turn
    assert q.claim().id == "d3"  # the next probe, not held by d2
    q.recover()  # the next start
    assert (q.get("d2").state, q.get("d2").interruptions) == ("pending", 1)


# kills: bot/workers.py:Workers._claim_and_run a delivery lost as the claim's after-work raised
@pytest.mark.parametrize("exc", [*_ENDS_A_THREAD, ValueError("no text")])
def test_what_raises_between_the_claim_and_the_run_hands_the_delivery_back(
    tmp_path, monkeypatch, caplog, exc
):
    # the worker's bookkeeping after a claim (a failure said over) raising: taken for a
    # failed claim, the delivery claimed was left processing, run by no one
    q = _three_queued(tmp_path / "q.sqlite3")
    ran: list[str] = []
    w = Workers(q, lambda d: ran.append(d.id), 1, poll_seconds=0.05)
    succeeded = w.failures.succeeded

    def once() -> None:
        monkeypatch.setattr(w.failures, "succeeded", succeeded)
        raise exc

    monkeypatch.setattr(w.failures, "succeeded", once)
    w.start()
    try:
        if isinstance(exc, Exception):  # the worker goes on, and runs it
            wait_until(lambda: len(ran) == 3, what="the three run")
        else:  # the worker ends; the delivery is back, as never claimed
            wait_until(lambda: w.ended(), what="the worker's end")
            assert ran == [] and (q.get("d1").state, q.get("d1").attempts) == ("pending", 0)
            [died] = [r for r in caplog.records if r.levelname == "CRITICAL"]
            assert " stops: claiming a delivery raised what ends a thread; " in died.getMessage()
            assert died.exc_info[0] is type(exc)  # with its traceback
    finally:
        w.stop()
    assert sorted(ran) == (["d1", "d2", "d3"] if isinstance(exc, Exception) else [])


# --- end to end ----------------------------------------------------------------------


def test_a_pr_opened_and_a_command_said_in_an_outage_are_answered_once_github_answers(
    tmp_path, fake_github, app_key, caplog
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    fake.add_pull(DEFAULT_REPO, M, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    caplog.set_level("INFO")
    settings = outage_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        fake.inject("*", "*", *DOWN)
        opened = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        opened = opened.json()["delivery"]
        # the command, said on the same PR after it was opened, must not run before it
        said = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
        command = post(client, "issue_comment", comment_payload(said, number=N)).json()["delivery"]
        other = post(client, "pull_request", pr_payload(number=M, title=MATCHING_TITLE))
        other = other.json()["delivery"]
        wait_until(
            lambda: rt.queue.get(opened).outages == 1 and rt.queue.get(other).outages == 1,
            what="both PRs' openings put back",
        )
        # a PR's later event waits for the earlier one put back: never run yet
        assert (rt.queue.get(command).state, rt.queue.get(command).attempts) == ("pending", 0)

        # honest while it waits: pending and listed, not failed, not hidden
        health = client.get("/healthz").json()
        assert (health["status"], health["pending"], health["failed"]) == ("ok", 3, 0)
        assert health["waiting_on_github"] == 2
        listed = {d["id"]: d for d in health["oldest_waiting_on_github"]}
        assert set(listed) == {opened, other}
        assert "502" in listed[opened]["error"] and listed[opened]["put_backs"] == 1
        assert listed[opened]["runs_after"] == rt.queue.get(opened).not_before
        text = client.get("/metrics").text
        assert metric(text, "review_notes_queue_waiting_on_github") == 2
        deliveries = "review_notes_deliveries_total"
        # told from a rate limit's put-back (outcome="deferred")
        assert metric(text, deliveries, event="pull_request", outcome="waiting_on_github") == 2
        assert metric(text, deliveries, event="pull_request", outcome="deferred") == 0
        assert metric(text, deliveries, event="pull_request", outcome="failed") == 0
        listing = cli("retry", env=base_env(tmp_path), cwd=ROOT).stdout
        assert f"{opened}  pull_request.opened  {DEFAULT_REPO} PR {N}  waiting until" in listing
        assert "2 deliveries wait for GitHub to answer again" in listing
        assert "0 failed deliveries" in listing

        # GitHub's redelivery of a waiting delivery (its UI, a sweep) does not run it twice
        again = post(
            client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE), delivery=opened
        )
        assert again.json()["status"] == "duplicate"
        assert rt.queue.get(opened).state == "pending"

        fake.clear_faults()  # GitHub answers again
        the_minute_passes(rt)
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        assert len(ours(fake, N)) == 2 and len(ours(fake, M)) == 1  # the notes comments, a reply
        assert len(replies(fake, N)) == 1  # the command answered once
        assert reactions(fake, said) == {"eyes", "+1"}
        assert len([r for r in fake.reactions(said.id) if r.user.login.endswith("[bot]")]) == 2
        health = client.get("/healthz").json()
        assert (health["waiting_on_github"], health["oldest_waiting_on_github"]) == (0, [])
    # the PR's events ran in order: its opening before the command said after it
    handled = {
        f"delivery {opened} pull_request.": opened,
        f"delivery {command} issue_comment.": command,
    }
    ran = [d for m in caplog.messages for start, d in handled.items() if m.startswith(start)]
    assert ran == [opened, command], ran
    # the log says once, per put-back, what happens to the delivery
    put_back = [m for m in caplog.messages if m.startswith(f"delivery {opened} ")]
    assert put_back[0].startswith(
        f"delivery {opened} (pull_request) put back for 60s as GitHub failed (1 of 7 put-backs;"
        " it runs again by itself): GitHubError: GitHub "
    ), put_back
    assert len([m for m in put_back if "put back" in m]) == 1


def test_deliveries_waiting_on_github_survive_a_restart(tmp_path, fake_github, app_key):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = outage_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        fake.inject("*", "*", *DOWN)
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).outages == 1, what="the put-back")
    fake.clear_faults()
    stored = DeliveryQueue(Database(settings.db_path)).get(delivery)
    assert (stored.state, stored.outages) == ("pending", 1)
    with serving(settings) as (client, rt):
        assert client.get("/healthz").json()["waiting_on_github"] == 1
        the_minute_passes(rt)
        drain(rt)
        assert rt.queue.get(delivery).state == "done"
    assert len(ours(fake, N)) == 1


def test_an_outage_longer_than_the_waits_fails_the_delivery_for_retry(
    tmp_path, fake_github, app_key, caplog
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    caplog.set_level("WARNING", logger="bot.workers")
    # 0.01 s, then 0.02 twice: three put-backs, 0.05 s in all
    settings = outage_settings(
        tmp_path, fake, app_key, outage_wait=0.01, outage_wait_max=0.02, outage_wait_total=0.05
    )
    with serving(settings) as (client, rt):
        fake.inject("*", "*", *DOWN)
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).state == "failed", what="the give-up")
        d = rt.queue.get(delivery)
        assert (d.outages, d.attempts) == (3, 4)
        assert d.last_error.startswith("put back 3 times as GitHub failed; given up: GitHubError:")
        assert client.get("/healthz").json()["waiting_on_github"] == 0
        fake.clear_faults()
        assert rt.queue.retry([delivery]) == [delivery]  # `review-notes retry`: a fresh count
        drain(rt)
        assert rt.queue.get(delivery).state == "done"
    said = [m for m in caplog.messages if m.startswith(f"delivery {delivery} ")]
    # the waits grow, each put-back said once
    heads = [m.split(" put-backs")[0] for m in said[:3]]
    assert heads == [
        f"delivery {delivery} (pull_request) put back for 0.01s as GitHub failed (1 of 3",
        f"delivery {delivery} (pull_request) put back for 0.02s as GitHub failed (2 of 3",
        f"delivery {delivery} (pull_request) put back for 0.02s as GitHub failed (3 of 3",
    ]
    assert "failed: put back 3 times as GitHub failed" in said[3]
    assert len(ours(fake, N)) == 1


def test_an_outage_past_a_single_wait_says_it_once(tmp_path, fake_github, app_key, caplog):
    # "(1 of 1 put-backs", "put back 1 times": a count of one said as one
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    caplog.set_level("WARNING", logger="bot.workers")
    settings = outage_settings(
        tmp_path, fake, app_key, outage_wait=0.01, outage_wait_max=0.01, outage_wait_total=0.01
    )
    with serving(settings) as (client, rt):
        fake.inject("*", "*", *DOWN)
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).state == "failed", what="the give-up")
        assert rt.queue.get(delivery).last_error.startswith("put back 1 time as GitHub failed;")
    said = [m for m in caplog.messages if m.startswith(f"delivery {delivery} ")]
    assert "as GitHub failed (1 of 1 put-back; it runs again by itself)" in said[0]
    assert "failed: put back 1 time as GitHub failed" in said[1]


def test_a_refusal_in_the_outage_settings_still_fails_at_once(tmp_path, fake_github, app_key):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(outage_settings(tmp_path, fake, app_key)) as (client, rt):
        fake.inject(
            "POST",
            f"/repos/{DEFAULT_REPO}/issues/{N}/comments",
            Fault.error(422, "Validation Failed"),
        )
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        drain(rt)
        d = rt.queue.get(r.json()["delivery"])
        assert (d.state, d.outages) == ("failed", 0)


def test_deliveries_queued_in_an_outage_wait_for_one_probe_not_each_its_own_tries(
    tmp_path, fake_github, app_key, caplog
):
    fake = fake_github
    numbers = [7811, 7812, 7813, 7814]
    for n in numbers:
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    caplog.set_level("WARNING", logger="bot.workers")
    with serving(outage_settings(tmp_path, fake, app_key)) as (client, rt):
        fake.inject("*", "*", *DOWN)
        r = post(client, "pull_request", pr_payload(number=numbers[0], title=MATCHING_TITLE))
        first = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(first).outages == 1, what="the first put-back")
        one_run = sum(repo_calls(fake).values())  # the client's tries of one run
        health = client.get("/healthz").json()
        assert health["github_down_until"] == rt.queue.get(first).not_before
        later = [
            post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE)).json()[
                "delivery"
            ]
            for n in numbers[1:]
        ]
        the_minute_passes(rt)  # the pause's time: one delivery runs, the probe
        wait_until(lambda: rt.queue.get(later[0]).outages == 1, what="the probe's put-back")
        # three workers, and none ran the others: two runs' calls in all, not four
        assert [rt.queue.get(d).attempts for d in [first, *later]] == [1, 1, 0, 0]
        assert sum(repo_calls(fake).values()) == 2 * one_run
        fake.clear_faults()  # GitHub answers again
        the_minute_passes(rt)
        drain(rt)
        assert all(len(ours(fake, n)) == 1 for n in numbers)
        assert client.get("/healthz").json()["github_down_until"] is None
    said = [m for m in caplog.messages if "GitHub seems down" in m or "outage is over" in m]
    assert len(said) == 2, said  # the pause said once as it begins, once as it ends
    assert said[0].startswith("GitHub seems down: the queue claims no delivery until ")
    assert " the outage is over, the queue goes on" in said[1]


# kills: bot/workers.py:Workers._github_answered a probe that asked GitHub nothing ending the pause
def test_a_probe_that_asks_github_nothing_leaves_the_pause_to_the_next(
    tmp_path, fake_github, app_key, caplog
):
    # a PR's closing, the probe (never put back: the fewest first), is only recorded in
    # SQLite: its run, done with no call, ended the pause as if GitHub had answered. The
    # opening put back before then ran against a GitHub still down, failed again, and
    # paused nothing (a second put-back is taken for its own failure): the queue went on,
    # each delivery spending its own tries
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    caplog.set_level("WARNING", logger="bot.workers")
    with serving(outage_settings(tmp_path, fake, app_key)) as (client, rt):
        fake.inject("*", "*", *DOWN)
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        opened = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(opened).outages == 1, what="the first put-back")
        closing = pr_payload("closed", number=M, title=MATCHING_TITLE, state="closed")
        closed = post(client, "pull_request", closing).json()["delivery"]
        the_minute_passes(rt)
        wait_until(lambda: rt.queue.get(opened).outages == 2, what="the next probe's put-back")
        assert rt.queue.get(closed).state == "done"
        assert rt.queue.get(opened).not_before == rt.queue.outage_paused_until()  # still paused
    assert not [m for m in caplog.messages if "outage is over" in m]


# --- the server stopping under a run -----------------------------------------------


def _stopped_in_a_back_off(tmp_path, fake, app_key, monkeypatch):
    """The settings of a server whose stop finds a worker asleep in a back-off of a
    minute (the stop's wait for the workers runs out first), on PR N."""
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    monkeypatch.setattr(server, "WORKERS_JOIN_SECONDS", 0.1)
    return live_settings(tmp_path, fake, app_key, retry_backoff=60.0, max_retries=3)


def _at_the_first_try(fake) -> None:
    """Until GitHub failed a call once: its back-off has begun."""
    wait_until(lambda: any(q.status == 502 for q in fake.requests), what="the first try")


def test_a_run_the_stop_closed_the_client_under_is_handed_back_not_failed(
    tmp_path, fake_github, app_key, monkeypatch, caplog
):
    # a worker still busy when the stop closed the GitHub client (in a call's back-off,
    # here) had its next try refused, non-transient: the delivery was stored failed, for
    # `review-notes retry`, though nothing was wrong with it nor with GitHub
    fake = fake_github
    caplog.set_level("WARNING", logger="bot.workers")
    settings = _stopped_in_a_back_off(tmp_path, fake, app_key, monkeypatch)
    with serving(settings) as (client, rt):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{N}/files", Fault.error(502))
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        _at_the_first_try(fake)
    d = DeliveryQueue(Database(settings.db_path)).get(delivery)
    assert (d.state, d.attempts, d.interruptions, d.last_error) == ("pending", 0, 0, None)
    said = [m for m in caplog.messages if m.startswith(f"delivery {delivery} ")]
    assert said == [
        f"delivery {delivery} (pull_request): the server stopped during its run (ClientClosed:"
        f" GitHub list files of {DEFAULT_REPO} PR {N}: not called, the client is closed); it"
        " runs again at the next start"
    ], said
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        drain(rt)
        assert rt.queue.get(delivery).state == "done"
    assert len(ours(fake, N)) == 1


# kills: bot/command_answers.py:_reply_posted a reply recorded read only from a second run on
def test_a_command_run_handed_back_at_a_stop_posts_no_reply_twice(
    tmp_path, fake_github, app_key, monkeypatch
):
    """`/notes help` replied, the stop closing the client in the `search` reply's
    back-off: the run is handed back uncounted (its attempts as before it), and its
    re-run, taken for a first, posted the `help` reply again (a comment notifying
    everyone on the PR). A reply recorded under the delivery's key is one posted."""
    fake = fake_github
    settings = _stopped_in_a_back_off(tmp_path, fake, app_key, monkeypatch)
    with serving(settings) as (client, rt):
        c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes search cache", login="octo")
        fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault(), Fault.error(502))
        r = post(client, "issue_comment", comment_payload(c, number=N))
        delivery = r.json()["delivery"]
        _at_the_first_try(fake)
    assert DeliveryQueue(Database(settings.db_path)).get(delivery).state == "pending"
    assert len(replies(fake, N)) == 1
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        drain(rt)
        assert rt.queue.get(delivery).state == "done"
    assert len(replies(fake, N)) == 2 and reactions(fake, c) == {"eyes", "+1"}


# kills: bot/command_answers.py:run_commands a re-run that met the lock kept, though its
#        first run (handed back at a stop) had posted a reply
def test_a_command_run_handed_back_after_a_reply_is_not_kept_at_a_lock(
    tmp_path, fake_github, app_key, monkeypatch
):
    """As above, the PR locked before the re-run: its 👀 refused, it was kept as never
    heard (its attempts say a first run), and the unlock ran it under another delivery,
    posting the `help` reply a second time. A reply recorded is an answer: not kept."""
    fake = fake_github
    settings = _stopped_in_a_back_off(tmp_path, fake, app_key, monkeypatch)
    with serving(settings) as (client, rt):
        c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes search cache", login="octo")
        fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault(), Fault.error(502))
        post(client, "issue_comment", comment_payload(c, number=N))
        _at_the_first_try(fake)
    fake.lock(DEFAULT_REPO, N)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        drain(rt)
        assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
        fake.unlock(DEFAULT_REPO, N)
        unlock = pr_payload("unlocked", number=N, title=MATCHING_TITLE)
        assert post(client, "pull_request", unlock).status_code == 202
        drain(rt)
    assert len(replies(fake, N)) == 1


# --- the command budgets after an outage --------------------------------------------


def test_commands_said_in_an_outage_are_each_answered_after_it_and_paid_once(
    tmp_path, fake_github, app_key
):
    # the budgets of the PR's replies and of the installation's writes, just room for the
    # three commands: a put-back's run paid twice (a reply held as maybe posted, then
    # paid again; a reservation kept) would refuse the last ones with a 😕. A run whose
    # token could not be minted kept a write for the 👀 it never sent, at each put-back
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    config = CommandConfig(
        min_update_interval_s=0,
        reply_burst=3,
        reply_refill_s=3600,
        installation_write_burst=12,  # four reserved each: 👀, 😕, 👍 and the reply
        installation_write_refill_s=3600,
    )
    with serving(outage_settings(tmp_path, fake, app_key)) as (client, rt):
        tune(rt, config, clock=lambda: 50.0)  # no refill meanwhile
        fake.inject("*", "*", *DOWN)
        said = [fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev") for _ in "abc"]
        ids = [
            post(client, "issue_comment", comment_payload(c, number=N)).json()["delivery"]
            for c in said
        ]
        wait_until(lambda: rt.queue.get(ids[0]).outages == 1, what="the first put-back")
        the_minute_passes(rt)  # GitHub still down: the first runs again, and fails again
        wait_until(lambda: rt.queue.get(ids[0]).outages == 2, what="the second put-back")
        fake.clear_faults()
        the_minute_passes(rt)
        drain(rt)
        assert [reactions(fake, c) for c in said] == [{"eyes", "+1"}] * 3
        assert len(replies(fake, N)) == 3
        flood = rt.ctx.flood
        pr = f"{DEFAULT_REPO}#{N}".lower()
        # spent as the writes made (three each): nothing for a put-back's run, nor twice
        assert (flood.replies.left(pr), flood.installation_writes.left(1001)) == (0, 3)


# kills: bot/command_reactions.py:Reactions.add a reaction the closed client refused taken
#        for a failed reaction
def test_a_command_the_stop_closed_the_client_under_is_handed_back_not_failed(
    tmp_path, fake_github, app_key, monkeypatch
):
    # the worker asleep in the back-off of the command's 👀 as the server stops: the
    # closed client's refusal was taken for a reaction GitHub did not take, and the
    # run went on (its comment update queued, no call) to fail the delivery at its end
    # ("reacting failed: ... the client is closed"), for `review-notes retry`
    fake = fake_github
    settings = _stopped_in_a_back_off(tmp_path, fake, app_key, monkeypatch)
    with serving(settings) as (client, rt):
        tune(rt)
        post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        drain(rt)
        fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/comments/*/reactions", Fault.error())
        said = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)
        delivery = post(client, "issue_comment", comment_payload(said)).json()["delivery"]
        _at_the_first_try(fake)
    d = DeliveryQueue(Database(settings.db_path)).get(delivery)
    assert (d.state, d.attempts, d.last_error) == ("pending", 0, None), d.last_error
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        drain(rt)
        assert rt.queue.get(delivery).state == "done"
    assert "eyes" in reactions(fake, said)  # run at the start: the command heard

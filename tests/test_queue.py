"""The SQLite delivery queue: atomic claims, per-PR serialisation, recovery, retry."""

from __future__ import annotations

import asyncio
import fcntl
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import queue as queue_module
from bot.db import LOCK_TRY_SECONDS, WAL_AUTOCHECKPOINT_PAGES, Database
from bot.logs import Redactor
from bot.queue import (
    ID_INDEX,
    LATEST_SAME_BODY,
    MAX_INTERRUPTIONS,
    DeliveryQueue,
    Enqueued,
    Incoming,
    State,
)
from bot.redelivery import KEPT_HOURS
from bot.retention import Retention
from bot.server import build_runtime
from bot.times import STORED_TIME, stored_time, utcnow
from bot.workers import Failures, Workers
from tests.damage_kit import break_overflow_chain, damage_root_page, leaf_pages, overwrite
from tests.webhook_kit import wait_idle, wait_until


def queue_at(path) -> DeliveryQueue:
    return DeliveryQueue(Database(path / "q.sqlite3"))


def add(q: DeliveryQueue, did: str, number: int | None = 1, repo: str = "o/r") -> Enqueued:
    return q.enqueue(did, "pull_request", "opened", {"n": did}, repo, number)


def test_enqueue_is_idempotent_per_delivery_id(tmp_path):
    q = queue_at(tmp_path)
    assert add(q, "a") == Enqueued.QUEUED
    assert add(q, "a") == Enqueued.DUPLICATE
    assert q.counts()["pending"] == 1
    d = q.claim()
    assert d.id == "a" and d.payload == {"n": "a"} and d.attempts == 1
    q.complete("a")
    assert add(q, "a") == Enqueued.DUPLICATE  # done stays done
    assert q.claim() is None


def test_a_webhook_body_seen_before_is_a_duplicate_whatever_its_delivery_id(tmp_path):
    # GitHub signs the body, not X-GitHub-Delivery: the same body under a new id is a
    # replay; a failed delivery's replay does not run it again either
    q = queue_at(tmp_path)
    first = Incoming("d1", "issue_comment", "created", '{"x": 1}', "o/r", 1, body_sha="s1")
    replay = Incoming("d2", "issue_comment", "created", '{"x": 1}', "o/r", 1, body_sha="s1")
    other = Incoming("d3", "issue_comment", "created", '{"x": 2}', "o/r", 1, body_sha="s2")
    assert q.enqueue_many([first, replay, other]) == [
        Enqueued.QUEUED,
        Enqueued.DUPLICATE,
        Enqueued.QUEUED,
    ]
    q.fail(q.claim().id, "boom")
    assert q.enqueue_many([replay]) == [Enqueued.DUPLICATE]
    assert q.enqueue_many([first]) == [Enqueued.REQUEUED]  # GitHub's redelivery: its own id
    # the bot's own deliveries carry no body hash: equal payloads are not replays
    own = [q.enqueue(f"own-{i}", "pull_request", "opened", {}, "o/r", 2) for i in (1, 2)]
    assert own == [Enqueued.QUEUED, Enqueued.QUEUED]


def test_uses_wal_and_survives_reopening(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a")
    assert q.db.execute("PRAGMA journal_mode")[0][0] == "wal"
    q.db.close()
    q2 = queue_at(tmp_path)
    assert q2.get("a").state == "pending"


def test_one_pr_is_serial_other_prs_are_parallel(tmp_path):
    q = queue_at(tmp_path)
    add(q, "pr1-opened", 1)
    add(q, "pr1-labeled", 1)
    add(q, "pr2-opened", 2)
    first = q.claim()
    assert first.id == "pr1-opened"
    second = q.claim()
    assert second.id == "pr2-opened"  # PR 1 is busy: its next event waits
    assert q.claim() is None
    q.complete("pr1-opened")
    third = q.claim()
    assert third.id == "pr1-labeled"  # arrival order within a PR


def test_pr_key_ignores_repo_case(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a", 1, "Vllm-Project/vLLM")
    add(q, "b", 1, "vllm-project/vllm")
    assert q.claim().id == "a"
    assert q.claim() is None


def test_concurrent_claims_never_hand_out_a_delivery_twice(tmp_path):
    q = queue_at(tmp_path)
    for i in range(200):
        add(q, f"d{i}", i % 7)  # 7 PRs
    claimed: list[str] = []
    lock = threading.Lock()
    active: dict[int, int] = {}
    overlaps = []

    def worker():
        while True:
            d = q.claim()
            if d is None:
                if q.counts()["pending"] == 0:
                    return
                continue
            with lock:
                claimed.append(d.id)
                active[d.pr_number] = active.get(d.pr_number, 0) + 1
                if active[d.pr_number] > 1:
                    overlaps.append(d.pr_number)
            time.sleep(0.0005)  # "work": gives another claim the chance to overlap
            with lock:
                active[d.pr_number] -= 1
            q.complete(d.id)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(claimed) == sorted(f"d{i}" for i in range(200))
    assert overlaps == []
    assert q.counts()["done"] == 200


def test_recover_resumes_interrupted_work_and_gives_up_on_poison(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a", 1)
    add(q, "b", 2)
    q.claim()  # "a" processing, then the process dies
    assert q.recover().resumed == 1
    assert q.get("a").state == "pending"
    for _ in range(MAX_INTERRUPTIONS - 1):  # keeps killing the process
        assert q.claim().id == "a"
        recovered = q.recover()
    a = q.get("a")
    assert a.state == "failed" and a.attempts == a.interruptions == MAX_INTERRUPTIONS
    # told, so that the start can say it and count it
    assert recovered.resumed == 0
    assert [(f.id, f.repo, f.pr_number) for f in recovered.given_up] == [("a", "o/r", 1)]
    assert recovered.given_up[0].last_error == a.last_error
    assert a.last_error.startswith(f"interrupted {MAX_INTERRUPTIONS} times")
    assert q.claim().id == "b"  # the others go on


def test_only_interruptions_count_toward_giving_up(tmp_path):
    # A run that failed and was queued again (a GitHub redelivery, `review-notes retry`)
    # is no crash: after two of those, one crash must not give the delivery up.
    q = queue_at(tmp_path)
    add(q, "a")
    q.fail(q.claim().id, "GitHubError: 502 (gave up after 4 attempts)")
    assert add(q, "a") == Enqueued.REQUEUED  # GitHub redelivery
    q.fail(q.claim().id, "GitHubError: 502 (gave up after 4 attempts)")
    assert q.retry(["a"]) == ["a"]  # the operator's retry
    assert q.claim().attempts == 3  # the third run; now the process dies
    restarted = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    assert restarted.recover().resumed == 1
    a = restarted.get("a")
    assert a.state == "pending", a.last_error
    assert (a.attempts, a.interruptions) == (3, 1)


def test_a_retried_delivery_counts_its_crashes_afresh(tmp_path):
    # given up after three crashes, then re-queued by the operator (the bug was fixed):
    # one more crash must not give it up at once
    q = queue_at(tmp_path)
    add(q, "a")
    for _ in range(MAX_INTERRUPTIONS):
        q.claim()
        q.recover()
    assert q.get("a").state == "failed"
    assert q.retry(["a"]) == ["a"] and q.get("a").interruptions == 0
    q.claim()
    q.recover()
    assert (q.get("a").state, q.get("a").interruptions) == ("pending", 1)


# The deliveries table of the first releases (before `not_before`, `interruptions`,
# `body_sha` and `by_bot`): what an upgrade finds
FIRST_DELIVERIES_TABLE = (
    "CREATE TABLE deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
    " event TEXT NOT NULL, action TEXT, payload TEXT NOT NULL, repo TEXT, pr_number INTEGER,"
    " pr_key TEXT, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT,"
    " received_at TEXT NOT NULL, updated_at TEXT NOT NULL);"
)


def test_an_old_database_counts_interruptions_from_now_on(tmp_path):
    db = Database(tmp_path / "old.sqlite3")
    db.script(  # the table before `not_before` and `interruptions`
        FIRST_DELIVERIES_TABLE
        + "INSERT INTO deliveries (id, event, payload, state, attempts, received_at, updated_at)"
        " VALUES ('old', 'pull_request', '{}', 'processing', 5, 'x', 'x');"
    )
    q = DeliveryQueue(db)
    assert q.recover().resumed == 1  # five runs, but no crash known: resumed, not given up
    old = q.get("old")
    assert (old.state, old.attempts, old.interruptions) == ("pending", 5, 1)


def test_failed_deliveries_are_kept_and_can_be_retried(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a", 1)
    add(q, "b", 2)
    add(q, "c", 3)
    for _ in range(3):
        d = q.claim()
        q.fail(d.id, f"GithubException: 502 for {d.id}")
    assert q.counts()["failed"] == 3
    assert [d.id for d in q.failed()] == ["c", "b", "a"]
    assert q.get("b").last_error == "GithubException: 502 for b"
    received = q.get("b").received_at
    assert q.retry(["b", "nope"]) == ["b"]
    b = q.claim()
    assert b.id == "b" and b.received_at == received  # an edited review is dated by it
    assert sorted(q.retry()) == ["a", "c"]
    assert q.counts() == {"pending": 2, "processing": 1, "done": 0, "failed": 0}


OLD, CUTOFF, NEW = "2026-01-01T00:00:00.000000Z", "2026-01-15T00:00:00.000000Z", "2026-02-01"


def finished_at(q: DeliveryQueue, did: str, state: str, at: str) -> None:
    """A delivery received at `at` and in `state` since (times injected, not waited for;
    added in the order of `at`, as deliveries arrive)."""
    add(q, did, None)
    q.db.execute(
        "UPDATE deliveries SET state = ?, received_at = ?, updated_at = ? WHERE id = ?",
        (state, at, at, did),
    )


def test_retention_deletes_old_done_deliveries_and_names_each_failed_one(tmp_path, caplog):
    # Every done delivery kept its payload (~23 KB) forever. A failed one is the
    # operator's to retry: deleted only once not retried within the retention, and logged.
    q = queue_at(tmp_path)
    for at, name in ((OLD, "old"), (NEW, "new")):
        for state in ("done", "failed", "pending", "processing"):
            finished_at(q, f"{name}-{state}", state, at)
    q.fail("old-failed", "GithubException: 502")
    q.db.execute("UPDATE deliveries SET updated_at = ? WHERE id = 'old-failed'", (OLD,))
    counted: list[tuple[State, int]] = []
    retention = Retention(q, 14, lambda state, n: counted.append((state, n)))
    caplog.set_level("INFO", logger="bot.retention")
    assert retention.prune(CUTOFF) == {State.DONE: 1, State.FAILED: 1}
    assert q.get("old-done") is None and q.get("old-failed") is None
    kept = ["new-done", "new-failed", "old-pending", "new-pending", "old-processing"]
    assert all(q.get(did) is not None for did in kept)
    assert counted == [(State.DONE, 1), (State.FAILED, 1)]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warned) == 1 and "old-failed" in warned[0] and "GithubException: 502" in warned[0]
    said = [r.getMessage() for r in caplog.records]
    assert any("pruned 1 done delivery received and 1 failed one last" in s for s in said)
    assert retention.prune(CUTOFF) == {State.DONE: 0, State.FAILED: 0}  # nothing left to do


def test_retention_deletes_in_batches_until_none_is_left(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    for i in range(7):
        finished_at(q, f"d{i}", "done", OLD)
    monkeypatch.setattr(Retention, "BATCH", 3)
    batches: list[int] = []
    retention = Retention(q, 14, lambda *_: None)
    prune_done = retention.prune_done
    monkeypatch.setattr(
        retention, "prune_done", lambda *a: batches.append(prune_done(*a)) or batches[-1]
    )
    assert retention.prune(CUTOFF)[State.DONE] == 7
    assert batches == [3, 3, 1] and q.counts()["done"] == 0


@pytest.mark.parametrize("n", [0, 1, 2, 7, 64])
def test_the_first_delivery_received_from_a_time_is_found_by_bisection(tmp_path, n):
    q = queue_at(tmp_path)
    times = [f"2026-01-{day:02d}T00:00:00.000000Z" for day in range(1, n + 1)]
    for i, at in enumerate(times):
        finished_at(q, f"d{i}", "done", at)
    seqs = [r["seq"] for r in q.db.execute("SELECT seq FROM deliveries ORDER BY seq")]
    for probe in ["2025-12-31", *times, "2026-01-01T12", "2027"]:
        later = [s for s, at in zip(seqs, times, strict=True) if at >= probe]
        assert Retention(q, 14, lambda *_: None).first_received_from(probe) == (
            later[0] if later else (seqs[-1] + 1 if seqs else 0)
        )


def test_workers_record_failures_and_keep_going(tmp_path):
    q = queue_at(tmp_path)
    seen = []

    def process(d):
        seen.append(d.id)
        if d.id == "bad":
            raise RuntimeError("no luck")

    w = Workers(q, process, count=2)
    w.start()
    try:
        add(q, "bad", 1)
        add(q, "good", 2)
        assert wait_idle(q, 20)
    finally:
        w.stop()
    assert sorted(seen) == ["bad", "good"]
    assert q.get("bad").state == "failed" and q.get("bad").last_error == "RuntimeError: no luck"
    assert q.get("good").state == "done"


def test_a_failed_deliverys_error_is_stored_without_a_secret(tmp_path):
    # the error is served by /healthz to anyone reaching the
    # webhook's port, and printed by `review-notes retry`; an error quoting the token
    # (requests refusing its header) showed it there while the logs redacted it
    q = queue_at(tmp_path)
    token, secret = "ghp_" + "Q7" * 18, "my-webhook-secret"

    def process(d):
        raise ValueError(f"Invalid header value: 'token {token}\\n'; signed with {secret}")

    w = Workers(q, process, count=1, redact=Redactor([secret]))
    w.start()
    try:
        add(q, "bad", 1)
        assert wait_idle(q, 20)
    finally:
        w.stop()
    error = q.get("bad").last_error
    assert error is not None and error.startswith("ValueError: Invalid header value")
    assert token not in error and secret not in error and "[redacted]" in error


def _flaky(record, failures: int):
    """`record`, raising sqlite3's "database is locked" the first `failures` times."""
    calls = []

    def call(*args):
        calls.append(args)
        if len(calls) <= failures:
            raise sqlite3.OperationalError("database is locked")
        record(*args)

    return call


def test_a_failure_to_record_the_outcome_is_retried_and_the_worker_goes_on(
    tmp_path, monkeypatch, caplog
):
    # A sqlite3 error in complete() / fail() used to end the worker thread for good and
    # leave the delivery `processing`, holding up its PR until a restart.
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.001, raising=False)
    q = queue_at(tmp_path)
    monkeypatch.setattr(q, "complete", _flaky(q.complete, 2))
    monkeypatch.setattr(q, "fail", _flaky(q.fail, 1))

    def process(d):
        if d.id == "bad":
            raise RuntimeError("no luck")

    w = Workers(q, process, count=1)
    w.start()
    try:
        add(q, "good", 1)
        add(q, "bad", 2)
        add(q, "next", 3)  # the one worker is still there for it
        assert wait_idle(q, 20), q.counts()
        assert [t.is_alive() for t in w._threads] == [True]
    finally:
        w.stop()
    assert [q.get(i).state for i in ("good", "bad", "next")] == ["done", "failed", "done"]
    assert q.get("bad").last_error == "RuntimeError: no luck"
    # each failure told once, with its traceback, and its end (Failures)
    told = [r for r in caplog.records if r.getMessage().startswith("recording delivery")]
    assert [r.getMessage().split(";")[0].split(",")[0] for r in told] == [
        "recording delivery good as done failed",
        "recording delivery good as done works again",
        "recording delivery bad as failed failed",
        "recording delivery bad as failed works again",
    ]
    assert [bool(r.exc_info) for r in told] == [True, False, True, False]
    assert "after 2 failed tries" in told[1].getMessage()


def test_stopping_while_the_outcome_cannot_be_recorded_leaves_it_to_the_next_start(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.001, raising=False)
    q = queue_at(tmp_path)
    refused, failing = [], threading.Event()

    def complete(delivery_id: str) -> None:  # the disk is full, for good
        refused.append(delivery_id)
        if len(refused) == 3:
            failing.set()
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(q, "complete", complete)
    w = Workers(q, lambda d: None, count=1)
    w.start()
    (thread,) = w._threads
    add(q, "a")
    try:
        assert failing.wait(20)  # refused three times: still trying
        assert thread.is_alive() and q.get("a").state == "processing"
    finally:
        w.stop()
    assert not thread.is_alive()
    assert q.get("a").state == "processing"  # the next start runs it again
    assert any(
        "stopping without recording delivery a as done" in r.getMessage() and r.levelname == "ERROR"
        for r in caplog.records
    )


def test_server_lock_is_exclusive(tmp_path):
    a = Database(tmp_path / "x.sqlite3")
    b = Database(tmp_path / "x.sqlite3")
    assert a.acquire_server_lock()
    assert not b.acquire_server_lock()
    a.close()
    assert b.acquire_server_lock()


def test_server_lock_follows_the_file_through_symlinks(tmp_path):
    # A second server naming the same file another way must not start: its recover()
    # would put the first one's `processing` deliveries back to pending (run twice).
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "bot.sqlite3"
    first = Database(real)
    (tmp_path / "link.sqlite3").symlink_to(real)
    (tmp_path / "dirlink").symlink_to(tmp_path / "data")
    others = [Database(tmp_path / "link.sqlite3"), Database(tmp_path / "dirlink" / "bot.sqlite3")]
    try:
        assert first.acquire_server_lock()
        assert not any(db.acquire_server_lock() for db in others)
    finally:
        for db in [first, *others]:
            db.close()


def test_server_lock_keeps_out_a_release_that_locked_the_path_as_named(tmp_path):
    # releases before the lock followed symlinks lock f"{path}.lock" on the path as
    # configured: one still running on a symlinked path during an upgrade or a rollback
    # must keep the new server out, and the other way round
    real = tmp_path / "volume" / "bot.sqlite3"
    real.parent.mkdir()
    link = tmp_path / "bot.sqlite3"
    link.symlink_to(real)
    earlier = os.open(f"{link}.lock", os.O_RDWR | os.O_CREAT, 0o644)  # the old release's
    fcntl.flock(earlier, fcntl.LOCK_EX | fcntl.LOCK_NB)
    db = Database(link)
    try:
        assert not db.acquire_server_lock()
        os.close(earlier)
        assert db.acquire_server_lock()
        old = os.open(f"{link}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        with pytest.raises(BlockingIOError):  # the old release would not start now
            fcntl.flock(old, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(old)
    finally:
        db.close()


def test_server_lock_is_on_the_database_file_itself(tmp_path):
    # a bind mount of the file (`-v /srv/x.sqlite3:/app/var/x.sqlite3`) reaches it with no
    # symlink and a lock file of its own next to the mount point: the lock on the file
    # itself, the one thing both names share, keeps the second server out
    db = Database(tmp_path / "x.sqlite3")
    elsewhere = os.open(tmp_path / "x.sqlite3", os.O_RDONLY)  # the file, another way
    try:
        fcntl.flock(elsewhere, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert not db.acquire_server_lock()
        fcntl.flock(elsewhere, fcntl.LOCK_UN)
        assert db.acquire_server_lock()
        with pytest.raises(BlockingIOError):
            fcntl.flock(elsewhere, fcntl.LOCK_EX | fcntl.LOCK_NB)
        db.execute("SELECT 1")  # SQLite's own locks are another kind: untouched
    finally:
        os.close(elsewhere)
        db.close()
    fresh = os.open(tmp_path / "x.sqlite3", os.O_RDONLY)
    try:  # released at close
        fcntl.flock(fresh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fresh)


def test_a_burst_is_one_transaction_with_an_outcome_per_delivery(tmp_path):
    q = queue_at(tmp_path)
    add(q, "failed-before")
    q.claim()
    q.fail("failed-before", "502")
    items = [
        Incoming("new", "pull_request", "opened", '{"n": 1}', "o/r", 1),
        Incoming("new", "pull_request", "opened", '{"n": 1}', "o/r", 1),  # same id in the burst
        Incoming("failed-before", "pull_request", "opened", '{"n": 2}', "o/r", 2),
    ]
    assert q.enqueue_many(items) == [Enqueued.QUEUED, Enqueued.DUPLICATE, Enqueued.REQUEUED]
    assert q.counts() == {"pending": 2, "processing": 0, "done": 0, "failed": 0}
    assert q.get("new").payload == {"n": 1}  # the JSON text is stored as given


def test_group_commit_answers_each_handler_and_isolates_a_refused_delivery(tmp_path):
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    good = [Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in range(5)]
    bad = Incoming("bad", "pull_request", "opened", "{}", "o/\udc00", 9)  # SQLite refuses it

    async def burst():  # bounded: a handler left unanswered fails the test, not hangs it
        return await asyncio.wait_for(
            asyncio.gather(
                *(commit.enqueue(d) for d in [*good[:2], bad, *good[2:]]),
                return_exceptions=True,
            ),
            5,
        )

    outcomes = asyncio.run(burst())
    assert isinstance(outcomes[2], UnicodeEncodeError)
    assert [o for i, o in enumerate(outcomes) if i != 2] == [Enqueued.QUEUED] * 5
    assert q.counts()["pending"] == 5 and q.get("bad") is None


def test_group_commit_answers_the_rest_of_a_burst_when_a_client_has_gone(tmp_path):
    # a handler cancelled before the commit (its client went away) is skipped: the
    # delivery is still stored, and the others of the burst get their answers
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    items = [Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in range(3)]

    async def burst():
        tasks = [asyncio.create_task(commit.enqueue(d)) for d in items]
        await asyncio.sleep(0)  # all three wait for the one commit
        tasks[0].cancel()
        return await asyncio.wait_for(asyncio.gather(*tasks[1:]), 5)

    assert asyncio.run(burst()) == [Enqueued.QUEUED, Enqueued.QUEUED]
    assert q.counts()["pending"] == 3


def test_group_commit_answers_the_rest_of_a_burst_when_the_refused_ones_client_has_gone(tmp_path):
    # the delivery SQLite refuses is written alone; its handler, cancelled meanwhile (the
    # client went away), gets no exception set: setting one on a cancelled future raises,
    # which stopped the one-by-one writes and left the rest of the burst unanswered
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    bad = Incoming("bad", "pull_request", "opened", "{}", "o/\udc00", 9)  # SQLite refuses it
    good = [Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in range(2)]

    async def burst():
        tasks = [asyncio.create_task(commit.enqueue(d)) for d in [bad, *good]]
        await asyncio.sleep(0)  # all three wait for the one commit
        tasks[0].cancel()
        return await asyncio.wait_for(asyncio.gather(*tasks[1:]), 5)

    assert asyncio.run(burst()) == [Enqueued.QUEUED, Enqueued.QUEUED]
    assert q.counts()["pending"] == 2 and q.get("bad") is None


def _enqueue_many_sizes(q: DeliveryQueue) -> list[int]:
    """The size of each `enqueue_many` of q's from now on, filled in as it is called."""
    written: list[int] = []
    enqueue_many = q.enqueue_many

    def counted(items, until=None):
        written.append(len(items))
        return enqueue_many(items, until)

    q.enqueue_many = counted
    return written


# kills: bot/webhook.py:GroupCommit.enqueue each delivery of a burst written in a transaction of its
#        own
def test_group_commit_writes_a_burst_in_one_transaction(tmp_path):
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    written = _enqueue_many_sizes(q)  # one transaction each
    items = [Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in range(3)]

    async def burst():
        return await asyncio.wait_for(asyncio.gather(*(commit.enqueue(d) for d in items)), 5)

    assert asyncio.run(burst()) == [Enqueued.QUEUED] * 3
    assert written == [3]


def test_group_commit_waits_out_a_lock_once_per_burst_not_once_per_delivery(tmp_path, monkeypatch):
    # another process holding the write lock (a VACUUM, a sqlite3 shell in a transaction)
    # refuses a burst after the busy timeout; each of its deliveries then written alone
    # waited the timeout again, on the event loop: five held every answer (/healthz's
    # too) for six timeouts, an hour of lock a minute per delivery, past GitHub's 10 s
    from bot import db as bot_db
    from bot.webhook import GroupCommit

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 0.1)
    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    written = _enqueue_many_sizes(q)  # one busy timeout each
    items = [Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in range(5)]

    async def burst():
        gathered = asyncio.gather(*(commit.enqueue(d) for d in items), return_exceptions=True)
        return await asyncio.wait_for(gathered, 5)

    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        outcomes = asyncio.run(burst())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert all(isinstance(o, sqlite3.OperationalError) for o in outcomes)  # each told: a 503
    assert written == [5, 5]  # tried at once on the event loop, then waited for in a thread
    assert asyncio.run(burst()) == [Enqueued.QUEUED] * 5  # the lock gone, stored as ever


# kills: bot/webhook.py:GroupCommit._in_thread a batch written before the one sent to a
#   thread ahead of it is; bot/webhook.py:GroupCommit._flush a batch written on the event
#   loop while one sent to a thread ahead of it waits
def test_group_commit_stores_batches_waiting_out_a_lock_in_their_order_of_arrival(tmp_path):
    # each batch finding the lock held waits for it in a thread of its own: written as the
    # threads got the locks, a delivery was stored (and run) before one that came first
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    items = [Incoming(f"d{i:02}", "pull_request", "opened", "{}", "o/r", i) for i in range(40)]

    async def one_by_one() -> list:  # a batch each, the lock ending among them
        tasks = []
        for i, item in enumerate(items):
            tasks.append(asyncio.create_task(commit.enqueue(item)))
            await asyncio.sleep(0.01 if i < 20 else 0.001)  # (more, once the lock ends)
            if i == 19:
                holder.execute("ROLLBACK")
        return await asyncio.wait_for(asyncio.gather(*tasks), 10)

    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    try:
        assert asyncio.run(one_by_one()) == [Enqueued.QUEUED] * len(items)
    finally:
        holder.close()
    stored = [r["id"] for r in q.db.read("SELECT id FROM deliveries ORDER BY seq")]
    assert stored == [d.id for d in items]


# kills: bot/webhook.py:GroupCommit._store a split batch's later deliveries stored on the
#   event loop before one sent to a thread
def test_a_split_batch_whose_delivery_meets_a_lock_stores_the_rest_after_it(tmp_path):
    # a batch one delivery of which SQLite refuses is written one delivery at a time, on
    # the event loop; a worker's write taking the in-process lock between two of them
    # sent that one to a thread to wait, and the ones after it were stored first
    from bot.webhook import GroupCommit

    q = queue_at(tmp_path)
    commit = GroupCommit(q)
    bad = Incoming("bad", "pull_request", "opened", "{}", "o/\udc00", 9)  # SQLite refuses it
    items = [bad, *(Incoming(f"d{i}", "pull_request", "opened", "{}", "o/r", i) for i in (1, 2))]
    enqueue_many, holding, let_go = q.enqueue_many, threading.Event(), threading.Event()

    def worker_write() -> None:  # a worker's outcome, say, in the in-process lock
        with q.db.tx():
            holding.set()
            let_go.wait(10)

    def a_worker_writes_before_d1(batch, until=None):
        if [d.id for d in batch] != ["d1"]:
            return enqueue_many(batch, until)
        worker = threading.Thread(target=worker_write)
        worker.start()
        assert holding.wait(10)
        try:
            return enqueue_many(batch, until)
        finally:
            let_go.set()  # the worker done before the next delivery's write
            worker.join(10)

    q.enqueue_many = a_worker_writes_before_d1

    async def burst():
        gathered = asyncio.gather(*(commit.enqueue(d) for d in items), return_exceptions=True)
        return await asyncio.wait_for(gathered, 10)

    outcomes = asyncio.run(burst())
    assert isinstance(outcomes[0], UnicodeEncodeError)
    assert outcomes[1:] == [Enqueued.QUEUED] * 2
    stored = [r["id"] for r in q.db.read("SELECT id FROM deliveries ORDER BY seq")]
    assert stored == ["d1", "d2"]


# kills: bot/queue.py:DeliveryQueue._claim `tx(busy_timeout=...)` -> `tx()`, and
#   bot/db.py:Database.tx the connection's busy timeout not set back after it
def test_a_claim_waits_briefly_for_another_process_lock_the_intake_as_long_as_ever(
    tmp_path, monkeypatch
):
    # a claim's wait for the lock holds the Database's in-process lock: a webhook's write
    # waited behind each worker's claim, then its own timeout. A claim gives up soon (the
    # worker tries at its next poll); the intake still waits the connection's timeout.
    from bot import db as bot_db

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 2.0)
    q = queue_at(tmp_path)
    add(q, "d1")
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            q.claim()
        claimed_in = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            add(q, "d2", number=2)
        stored_in = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    print(f"under the lock: a claim refused in {claimed_in:.2f}s, a write in {stored_in:.2f}s")
    assert claimed_in < 1.0 and stored_in >= 1.9
    assert q.db.execute("PRAGMA busy_timeout")[0][0] == LOCK_TRY_SECONDS * 1000  # one try's
    assert q.claim().id == "d1"  # the lock gone, the claim refused lost nothing


def test_checkpoints_run_in_the_background_not_in_commits(tmp_path):
    q = queue_at(tmp_path)
    q.db.checkpoint_in_background(every=0.05)
    # commits no longer do, short of a safety net far above SQLite's 1,000 pages
    assert q.db.execute("PRAGMA wal_autocheckpoint")[0][0] == WAL_AUTOCHECKPOINT_PAGES
    big = "x" * 100_000
    for i in range(60):  # ~6 MB through the WAL: past SQLite's own 1000-page trigger
        q.enqueue(f"d{i}", "pull_request", "opened", {"big": big}, "o/r", i)
    database = tmp_path / "q.sqlite3"
    # Only a checkpoint moves pages from the WAL into the database file; no commit
    # here does one (10,000 pages is 40 MB), so the thread did.
    deadline = time.monotonic() + 20
    while database.stat().st_size < 6_000_000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert database.stat().st_size >= 6_000_000
    q.db.close()  # stops the thread first
    assert queue_at(tmp_path).counts()["pending"] == 60


def test_checkpoints_wait_for_a_quiet_moment_while_writes_keep_coming(tmp_path):
    # A checkpoint that catches up makes the next commit fsync the new WAL header:
    # during a burst that would stall every answer in flight, so it waits.
    q = queue_at(tmp_path)
    q.db.checkpoint_in_background(every=0.02, busy_every=600, quiet=1.0)
    database = tmp_path / "q.sqlite3"
    size = database.stat().st_size
    big = "x" * 100_000
    for i in range(30):  # a burst: never a second without a write
        q.enqueue(f"d{i}", "pull_request", "opened", {"big": big}, "o/r", i)
        time.sleep(0.01)
    assert database.stat().st_size == size  # all in the WAL, none checkpointed yet
    deadline = time.monotonic() + 20
    while database.stat().st_size < 3_000_000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert database.stat().st_size >= 3_000_000  # checkpointed once the writes stopped
    q.db.close()


def test_a_delivery_interrupted_three_times_is_given_up_not_twice(tmp_path):
    # docs/reliability.md's promise, in numbers: two crashes resume it, the third gives it up
    q = queue_at(tmp_path)
    add(q, "a")
    for crashes in (1, 2):
        q.claim()
        q.recover()
        assert (q.get("a").state, q.get("a").interruptions) == ("pending", crashes)
    q.claim()
    q.recover()
    assert q.get("a").state == "failed"


def test_deliveries_about_no_pr_are_not_serialised_with_each_other(tmp_path):
    # only work on one PR is serial; deliveries with no PR number run side by side
    q = queue_at(tmp_path)
    add(q, "a", None)
    add(q, "b", None)
    assert q.claim().id == "a"
    assert q.claim().id == "b"


# kills: bot/queue.py:DeliveryQueue.run_again (hand) no notify after putting deliveries back
@pytest.mark.parametrize("work", ["new", "new beside one waiting", "retried", "run again"])
def test_an_idle_worker_wakes_for_work_at_once(tmp_path, work):
    # enqueueing, and `retry` in this process, notify the workers: they do not sleep out
    # their poll interval, nor the time one queued to wait comes due; so does a sweep
    # putting back what a dry run handled
    q = queue_at(tmp_path)
    if work == "new beside one waiting":  # the worker sleeps until its time, an hour away
        q.enqueue("later", "pull_request", "opened", {}, "o/r", 2, not_before=utcnow(3600))
    if work == "retried":
        add(q, "a")
        q.fail(q.claim().id, "RuntimeError: no luck")
    elif work == "run again":
        handled(q, "a", 1)
        with q.db.tx():
            q.keep_dry_run_answered(CUTOFF)
    done = threading.Event()
    w = Workers(q, lambda d: done.set(), count=1)
    w.poll_seconds = 30.0
    w.start()
    try:
        time.sleep(0.2)  # the worker found nothing and waits
        if work == "retried":
            assert q.retry(["a"]) == ["a"]
        elif work == "run again":
            assert q.run_again({"a"}) == ["a"]
        else:
            add(q, "a")
        assert done.wait(5)
    finally:
        w.stop()


def due_in(q: DeliveryQueue, did: str, seconds: float, number: int = 1) -> datetime:
    """Queue `did` to wait `seconds` (as a deferred update is); the time it is due."""
    at = utcnow(after_s=seconds)
    q.enqueue(did, "pull_request", "opened", {}, "o/r", number, not_before=at)
    return datetime.strptime(at, STORED_TIME).replace(tzinfo=UTC)


# kills: bot/workers.py:Workers.idle_wait the due time not waited for (the poll's wait)
def test_an_idle_worker_sleeps_until_the_first_delivery_queued_to_wait_is_due(tmp_path):
    # a deferred update waited up to a poll (a second) past its time; now the sleep ends
    # at the first due time: the pending ones queued to wait, the earliest of them
    q = queue_at(tmp_path)
    at = due_in(q, "sooner", 40, 1)
    due_in(q, "later", 100, 2)
    add(q, "now", 3)  # due already: the claim's (it would be taken, not waited for)
    due_in(q, "gone", 10, 4)
    q.db.execute("UPDATE deliveries SET state = 'done' WHERE id = 'gone'")  # not pending
    assert q.next_due() == at
    seen_at = [at - timedelta(seconds=40)]  # the wall clock the worker reads
    w = Workers(q, lambda d: None, 1, poll_seconds=300, wall_clock=lambda: seen_at[0])
    assert w.idle_wait() == 40.0
    w.poll_seconds = 30.0  # due past the poll: the poll's wait (another process may write)
    assert w.idle_wait() == 30.0
    seen_at[0] = at + timedelta(seconds=1)  # read late: due already, no wait
    assert w.idle_wait() == 0.0
    for did in ("now", "sooner", "later"):
        q.db.execute("UPDATE deliveries SET state = 'done' WHERE id = ?", (did,))
    assert q.next_due() is None
    assert w.idle_wait() == 30.0


# kills: bot/workers.py:Workers.idle_wait a failed read of the due time waits for ever (None)
def test_an_idle_worker_that_cannot_read_the_due_time_waits_a_poll(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    due_in(q, "a", 40)

    def unreadable():
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(q, "next_due", unreadable)
    assert Workers(q, lambda d: None, 1, poll_seconds=7.0).idle_wait() == 7.0


# kills: bot/workers.py:Workers._run no wait after a failed claim (a loop of claims)
def test_a_worker_whose_claim_fails_tries_again_after_its_poll(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    claims = []

    def locked():
        claims.append(1)
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(q, "claim", locked)
    w = Workers(q, lambda d: None, 1, poll_seconds=30.0)
    w.start()
    try:
        wait_until(lambda: claims, what="a claim tried")
        time.sleep(0.3)  # a worker with no wait would claim hundreds of times meanwhile
    finally:
        w.stop()
    assert len(claims) == 1  # the stop's wake-up ends the wait, and the worker


def test_a_delivery_queued_to_wait_runs_at_its_time_without_a_poll(tmp_path, monkeypatch):
    # the worker's poll is 30 s: what runs the delivery due in 0.3 s is its due time, and
    # the worker wakes for it once or twice (not on a poll's beat)
    q = queue_at(tmp_path)
    ran, claims = threading.Event(), []
    claim = q.claim
    monkeypatch.setattr(q, "claim", lambda: claims.append(1) or claim())
    w = Workers(q, lambda d: ran.set(), 1, poll_seconds=30.0)
    w.start()
    try:
        due_in(q, "a", 0.3)
        assert ran.wait(10)
    finally:
        w.stop()
    assert q.get("a").state == "done"
    assert len(claims) <= 4  # at start, at the enqueue's wake-up, at its time (maybe early)


def test_a_released_delivery_is_pending_again_as_if_never_claimed(tmp_path):
    # shutting down between the claim and the work: the run did not happen, so it is
    # not counted; a delivery no longer processing is left as it is
    q = queue_at(tmp_path)
    add(q, "a", 1)
    add(q, "b", 2)
    q.claim()
    q.release("a")
    assert (q.get("a").state, q.get("a").attempts) == ("pending", 0)
    assert q.claim().id == "a"
    q.complete("a")
    q.release("a")
    assert (q.get("a").state, q.get("a").attempts) == ("done", 1)


def test_waiting_for_an_idle_queue_gives_up_at_its_timeout(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a")
    started = time.monotonic()
    assert wait_idle(q, 0.3) is False
    assert time.monotonic() - started < 2


def test_a_worker_stopped_while_claiming_hands_the_delivery_back_unrun(tmp_path, monkeypatch):
    # the stop came between the loop's check and the claim: the delivery is released
    # (pending, no run counted) for the next start, and not processed
    q = queue_at(tmp_path)
    add(q, "a")
    ran = []
    w = Workers(q, ran.append, count=1)
    claim, claimed = q.claim, threading.Event()

    def claim_then_stop():
        d = claim()
        w.stop_claiming()
        claimed.set()
        return d

    monkeypatch.setattr(q, "claim", claim_then_stop)
    w.start()
    assert claimed.wait(5)
    w.stop()
    assert ran == []
    assert (q.get("a").state, q.get("a").attempts) == ("pending", 0)


def test_stopping_wakes_idle_workers_at_once(tmp_path):
    # a worker waiting for work is woken by `stop`, not left to sleep out its poll
    q = queue_at(tmp_path)
    w = Workers(q, lambda d: None, count=2)
    w.poll_seconds = 30.0
    w.start()
    threads = list(w._threads)
    time.sleep(0.2)  # both found nothing and wait
    started = time.monotonic()
    w.stop(timeout=5)
    assert time.monotonic() - started < 2
    assert not any(t.is_alive() for t in threads)


def test_stopping_is_bounded_and_leaves_a_busy_delivery_processing(tmp_path):
    # a handler still busy at the timeout is left behind: its delivery stays
    # `processing` and is resumed at the next start
    q = queue_at(tmp_path)
    busy, release = threading.Event(), threading.Event()
    w = Workers(q, lambda d: (busy.set(), release.wait(10)), count=1)
    w.start()
    add(q, "a")
    try:
        assert busy.wait(5)
        started = time.monotonic()
        w.stop(timeout=0.3)
        assert time.monotonic() - started < 2
        assert q.get("a").state == "processing"
    finally:
        release.set()


def test_an_idle_worker_sleeps_instead_of_polling_the_database(tmp_path, monkeypatch):
    # with nothing to claim a worker waits for a change (or its poll interval), even
    # after earlier changes: no busy loop of claims
    q = queue_at(tmp_path)
    add(q, "a")
    q.complete(q.claim().id)  # the queue has changed before the worker starts
    claims = []
    claim = q.claim
    monkeypatch.setattr(q, "claim", lambda: claims.append(1) or claim())
    w = Workers(q, lambda d: None, count=1)
    w.poll_seconds = 30.0
    w.start()
    try:
        time.sleep(0.3)
    finally:
        w.stop()
    assert len(claims) <= 2


class RecordedWaits(threading.Event):
    """A stop flag whose waits return at once, remembering how long they would be."""

    def __init__(self):
        super().__init__()
        self.waits: list[float] = []

    def wait(self, timeout=None):
        self.waits.append(timeout)
        return self.is_set()


def test_recording_retries_wait_longer_each_time_up_to_the_cap(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    add(q, "a")
    refusals = iter(range(8))
    complete = q.complete

    def flaky_complete(delivery_id):
        if next(refusals, None) is not None:
            raise sqlite3.OperationalError("database is locked")
        complete(delivery_id)

    monkeypatch.setattr(q, "complete", flaky_complete)
    w = Workers(q, lambda d: None, count=1)
    w._stop = RecordedWaits()
    w.run_one(q.claim())
    assert q.get("a").state == "done"
    first, cap = Workers.RECORD_RETRY_FIRST, Workers.RECORD_RETRY_MAX
    expected = [min(first * 2**i, cap) for i in range(8)]
    assert w._stop.waits == pytest.approx(expected)
    assert expected[-1] == cap  # the cap was reached


# the server lock on paths with two names for one lock file, and one it cannot create


def test_server_lock_on_a_relative_path_is_taken(tmp_path, monkeypatch):
    # The default REVIEW_NOTES_DB_PATH is relative (var/review-notes.sqlite3): realpath
    # and the path as named are two strings for ONE lock file, and flock on a second
    # descriptor of the same file conflicts with the first: the server refuses to start
    # ("another review-notes server ... is using it") with nobody else running.
    monkeypatch.chdir(tmp_path)
    db = Database("var/x.sqlite3")
    try:
        assert db.acquire_server_lock()
    finally:
        db.close()


def test_server_lock_through_a_symlinked_directory_is_taken(tmp_path):
    # The same through a symlinked directory (a volume mounted by a link): both names of
    # the lock file are one file, and the server locks itself out.
    (tmp_path / "data").mkdir()
    (tmp_path / "dirlink").symlink_to(tmp_path / "data")
    db = Database(tmp_path / "dirlink" / "bot.sqlite3")
    try:
        assert db.acquire_server_lock()
    finally:
        db.close()


def test_server_lock_on_a_path_with_dot_segments_is_taken(tmp_path):
    (tmp_path / "a").mkdir()
    db = Database(f"{tmp_path}/a/../bot.sqlite3")
    try:
        assert db.acquire_server_lock()
        assert os.path.exists(tmp_path / "bot.sqlite3.lock")
    finally:
        db.close()


def test_a_symlink_in_a_read_only_directory_still_starts_and_leaks_no_lock(tmp_path, monkeypatch):
    # REVIEW_NOTES_DB_PATH a symlink in a directory this user cannot write (SQLite follows
    # it and keeps its WAL beside the real file, so 515b4a0 ran): HEAD also creates
    # f"{link}.lock" there, gets EACCES, raises a bare PermissionError out of
    # claim_database (a traceback, not a named settings error), and leaves the realpath
    # lock's descriptor open and locked (not in _lock_files: close() never releases it).
    # Reproduced for real as uid 65534 (see REPORT.md); here EACCES is simulated (root).
    import bot.db as dbmod

    (tmp_path / "vol").mkdir()
    (tmp_path / "ro").mkdir()
    link = tmp_path / "ro" / "bot.sqlite3"
    link.symlink_to(tmp_path / "vol" / "bot.sqlite3")
    real_open = os.open

    def open_(path, *args, **kw):
        if str(path) == f"{link}.lock":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kw)

    db = Database(link)
    monkeypatch.setattr(dbmod.os, "open", open_)
    try:
        try:
            assert db.acquire_server_lock()
        finally:
            db.close()
            other = Database(tmp_path / "vol" / "bot.sqlite3")
            try:  # once closed, the lock must be free again
                assert other.acquire_server_lock(), "the realpath lock leaked"
            finally:
                other.close()
    finally:
        monkeypatch.undo()


# --- a full disk reported as itself, not as a rollback error ---


def test_a_full_disk_is_reported_as_a_full_disk_not_as_a_rollback_error(tmp_path):
    # SQLite rolls a transaction back by itself when the disk fills during it; tx() then
    # issued its own ROLLBACK, which raised "cannot rollback - no transaction is
    # active" over the real error. That is what the operator reads: in the webhook's
    # 500 traceback, in `review-notes retry`, and as a failed delivery's last_error
    # (/healthz recent_failures) when a transactional write is the one that hit it.
    q = queue_at(tmp_path)
    pages = q.db.execute("PRAGMA page_count")[0][0]
    q.db.execute(f"PRAGMA max_page_count={pages + 2}")  # the volume is full
    big = Incoming("d-1", "pull_request", "opened", '{"x": "%s"}' % ("y" * 200_000), "o/r", 1)
    with pytest.raises(sqlite3.Error) as raised:
        q.enqueue_many([big])
    assert "full" in str(raised.value), f"the operator is told: {raised.value!r}"
    assert not q.db._conn.in_transaction
    q.db.execute("PRAGMA max_page_count=1073741823")  # space again: the queue goes on
    assert add(q, "d-2") == Enqueued.QUEUED


# --- a pull_request body as a replay, and the column that tells one ---


def _pr_body(did: str, sha: str, number: int = 1) -> Incoming:
    return Incoming(did, "pull_request", "labeled", "{}", "o/r", number, same_body_sha=sha)


def test_a_pull_request_body_is_a_replay_only_right_after_itself_on_its_pr(tmp_path):
    # A label added, removed and added back within one second: X, Y, X are three events;
    # X right after X is a replay (GitHub sends one body twice only with another between)
    q = queue_at(tmp_path)
    x1, y, x2 = _pr_body("x1", "X"), _pr_body("y", "Y"), _pr_body("x2", "X")
    assert q.enqueue_many([x1, _pr_body("x1-copy", "X")]) == [
        Enqueued.QUEUED,
        Enqueued.DUPLICATE,
    ]
    assert q.enqueue_many([y, x2, _pr_body("x2-copy", "X")]) == [
        Enqueued.QUEUED,
        Enqueued.QUEUED,
        Enqueued.DUPLICATE,
    ]
    assert q.enqueue_many([_pr_body("other-pr", "X", number=2)]) == [Enqueued.QUEUED]
    # the bot's own deliveries (no hash) come between nothing
    q.enqueue("own", "pull_request", "labeled", {}, "o/r", 1)
    assert q.enqueue_many([_pr_body("x3", "X")]) == [Enqueued.DUPLICATE]
    # GitHub's redelivery keeps its id: a failed latest runs again
    while (d := q.claim()) is not None:
        q.fail(d.id, "boom")
    assert q.enqueue_many([x2]) == [Enqueued.REQUEUED]
    assert q.counts()["pending"] == 1


def test_an_old_database_gains_the_same_body_column_and_its_index(tmp_path):
    path = tmp_path / "q.sqlite3"
    db = Database(path)
    db.script(
        "CREATE TABLE deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
        " event TEXT NOT NULL, action TEXT, payload TEXT NOT NULL, repo TEXT, pr_number INTEGER,"
        " pr_key TEXT, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,"
        " interruptions INTEGER NOT NULL DEFAULT 0, last_error TEXT, received_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL, not_before TEXT, body_sha TEXT);"
        "CREATE UNIQUE INDEX deliveries_body ON deliveries (body_sha) WHERE body_sha IS NOT NULL;"
        "INSERT INTO deliveries (id, event, payload, pr_key, state, received_at, updated_at,"
        " body_sha) VALUES ('c1', 'issue_comment', '{}', 'o/r#1', 'done', 'x', 'x', 'C')"
    )
    q = DeliveryQueue(db)
    indexes = {r["name"] for r in db.execute("PRAGMA index_list(deliveries)")}
    assert {"deliveries_body", "deliveries_same_body"} <= indexes
    comment = Incoming("c2", "issue_comment", "created", "{}", "o/r", 1, body_sha="C")
    assert q.enqueue_many([comment]) == [Enqueued.DUPLICATE]  # still refused
    assert q.enqueue_many([_pr_body("p1", "P"), _pr_body("p2", "P")]) == [
        Enqueued.QUEUED,
        Enqueued.DUPLICATE,
    ]
    plan = " ".join(
        r["detail"]
        for r in db.execute(
            "EXPLAIN QUERY PLAN " + LATEST_SAME_BODY.format(kept="seq NOT IN (1)"), ("k",)
        )
    )
    assert "deliveries_same_body" in plan, plan


# --- a delivery put back for a rate limit: its PR's order, and a bound ---


def test_a_delivery_put_back_for_a_rate_limit_keeps_its_prs_order_and_is_bounded(tmp_path):
    from bot.github_port import GitHubError
    from bot.queue import MAX_DEFERRALS

    q = queue_at(tmp_path)
    add(q, "first", 1)
    add(q, "second", 1)
    add(q, "other-pr", 2)
    assert q.claim().id == "first"
    limited = GitHubError("rate limited, asked to wait 60s", transient=True, retry_after=60)

    def rate_limited(delivery):
        raise limited

    workers = Workers(q, rate_limited, 1)
    workers.run_one(q.get("first"))
    first = q.get("first")
    assert (first.state, first.deferrals, first.last_error) == (
        State.PENDING,
        1,
        f"GitHubError: {limited}",
    )
    # waiting: the later delivery of its PR does not overtake it; another PR's goes on
    assert q.claim().id == "other-pr"
    assert q.claim() is None
    # put back at most MAX_DEFERRALS times, then failed with the reason
    for _ in range(MAX_DEFERRALS):
        q.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = 'first'")
        assert q.claim().id == "first"
        workers.run_one(q.get("first"))
    first = q.get("first")
    assert first.state == State.FAILED
    assert first.last_error.startswith(f"put back {MAX_DEFERRALS} times for rate limits; given up")
    assert q.claim().id == "second"  # a failed delivery holds nothing back
    # `review-notes retry` starts the count afresh
    assert q.retry(["first"]) == ["first"] and q.get("first").deferrals == 0


# --- a put-back's due time; how many before a delivery fails ---


# kills: bot/queue.py:DeliveryQueue.claim `d.not_before <= ?` -> `d.not_before < ?`
def test_a_delivery_put_back_is_due_at_its_not_before_exactly(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    add(q, "d1")
    assert q.claim().id == "d1"
    monkeypatch.setattr(queue_module, "utcnow", lambda after_s=0.0: "2030-01-01T00:00:00.000000Z")
    assert q.defer("d1", 0, "rate limited")
    (row,) = q.db.execute("SELECT not_before FROM deliveries WHERE id = 'd1'")
    assert row["not_before"] == "2030-01-01T00:00:00.000000Z"
    assert q.claim().id == "d1"  # the clock reads its not_before: it is due


# kills: bot/queue.py `MAX_DEFERRALS = 14` -> `15`
def test_a_delivery_is_put_back_fourteen_times_for_rate_limits_then_failed(tmp_path):
    # fourteen secondary back-offs (1, 2, 4, then 5 minutes) come to over an hour
    q = queue_at(tmp_path)
    add(q, "d1")
    for _ in range(14):
        assert q.claim().id == "d1"
        assert q.defer("d1", 0, "rate limited")
        q.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = 'd1'")
    assert q.claim().id == "d1"
    assert not q.defer("d1", 0, "rate limited")
    assert q.get("d1").state == State.FAILED


# --- what the redelivery sweep skips; put-backs' bound and the retry they name ---


def test_held_names_the_deliveries_the_queue_has_in_any_state(tmp_path):
    # a redelivery sweep skips these: a failed one is `review-notes retry`'s to re-queue
    q = queue_at(tmp_path)
    assert q.last_received() is None
    for did in ("d-done", "d-failed", "d-pending"):
        add(q, did, number=None)
    q.complete(q.claim().id)
    q.fail(q.claim().id, "boom")
    many = {f"x-{i}" for i in range(1200)}  # more than one query's bound parameters
    assert q.held({"d-done", "d-failed", "d-pending", "d-unknown"} | many) == {
        "d-done",
        "d-failed",
        "d-pending",
    }
    assert q.last_received() == q.get("d-pending").received_at


def test_last_received_passes_over_what_the_bot_queued_itself(tmp_path):
    # the start's redelivery sweep asks GitHub for what it failed to deliver since then:
    # a re-check the bot queued after a failed delivery must not move that time past it
    q = queue_at(tmp_path)
    q.enqueue("own-first", "pull_request", "opened", {}, "o/r", 1, by_bot=True)
    assert q.last_received() is None  # nothing from GitHub yet
    add(q, "from-github", 2)
    time.sleep(0.002)  # utcnow has microseconds: the next row's time is later
    q.enqueue("gh#files-recheck-1", "pull_request", "opened", {}, "o/r", 2, by_bot=True)
    assert q.get("gh#files-recheck-1").received_at > q.get("from-github").received_at
    assert q.last_received() == q.get("from-github").received_at


def _rate_limited_to_the_end(tmp_path, max_deferrals: int) -> DeliveryQueue:
    """A queue whose one delivery `d1` GitHub rate-limits at every run, run once more than
    its put-backs allow (each put-back's wait skipped)."""
    from bot.github_port import GitHubError

    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"), max_deferrals=max_deferrals)
    add(q, "d1")
    limited = GitHubError("rate limited, asked to wait 60s", transient=True, retry_after=60)

    def rate_limited(delivery):
        raise limited

    workers = Workers(q, rate_limited, 1)
    for _ in range(max_deferrals + 1):
        q.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = 'd1'")
        claimed = q.claim()
        assert claimed.id == "d1"
        workers.run_one(claimed)
    return q


def test_the_put_backs_allowed_are_the_queues_setting(tmp_path, caplog):
    # REVIEW_NOTES_MAX_DEFERRALS (bot.server gives it to the queue); the workers' log
    # lines count against it too
    q = _rate_limited_to_the_end(tmp_path, max_deferrals=2)
    d1 = q.get("d1")
    assert d1.state == State.FAILED
    assert d1.last_error.startswith("put back 2 times for rate limits; given up")
    said = [m for m in caplog.messages if "d1" in m]
    assert "(1 of 2 put-backs)" in said[0] and "(2 of 2 put-backs)" in said[1], said
    assert "rate limited after 2 put-backs" in said[2], said


def test_a_single_put_back_allowed_is_said_as_one(tmp_path, caplog):
    # "put back 1 times", "(1 of 1 put-backs)", "after 1 put-backs"
    d1 = _rate_limited_to_the_end(tmp_path, max_deferrals=1).get("d1")
    assert d1.last_error.startswith("put back 1 time for rate limits; given up")
    said = [m for m in caplog.messages if "d1" in m]
    assert "(1 of 1 put-back)" in said[0] and "rate limited after 1 put-back;" in said[1], said


def test_a_delivery_rate_limit_failed_names_the_retry_that_runs_it_again(tmp_path, caplog):
    # docs/reliability.md, What to watch: a WARNING for each failed delivery, "naming the
    # `review-notes retry ID` that runs it again"; the last rate limit put-back's said none
    q = _rate_limited_to_the_end(tmp_path, max_deferrals=1)
    assert q.get("d1").state == State.FAILED
    failed = [
        r.getMessage() for r in caplog.records if "d1 (pull_request) failed" in r.getMessage()
    ]
    assert len(failed) == 1 and "`review-notes retry d1` runs it again" in failed[0], failed


# --- the queue's edges: defer, held, stored errors, retention, counts; workers; the
# database's locks, checkpoints, sweep marks and upgrade ---


# kills: queue.DeliveryQueue.defer: drop `AND state = 'processing'` from the put-back
def test_a_delivery_no_longer_processing_is_not_put_back_by_defer(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a")
    q.complete(q.claim().id)
    q.defer("a", 0, "rate limited")
    a = q.get("a")
    assert (a.state, a.deferrals, a.last_error) == (State.DONE, 0, None)


# kills: queue.DeliveryQueue.held: only the first chunk of 500 ids is asked
def test_held_finds_a_delivery_past_the_first_500_ids_asked(tmp_path):
    q = queue_at(tmp_path)
    add(q, "z-held", number=None)  # sorts after all of x-0 .. x-1199
    asked = {f"x-{i}" for i in range(1200)} | {"z-held"}
    assert q.held(asked) == {"z-held"}


# kills: queue.DeliveryQueue.fail: `error[:2000]` -> `error`
def test_a_failed_deliverys_error_is_stored_cut_to_2000_characters(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a")
    q.fail(q.claim().id, "x" * 5000)
    assert q.get("a").last_error == "x" * 2000


# kills: queue._payload: `except RecursionError` -> `except ValueError`
def test_a_payload_nested_past_json_loads_limit_is_still_read(tmp_path):
    q = queue_at(tmp_path)
    deep = "[" * 1010 + "]" * 1010  # the webhook accepts it (orjson reads up to 1024)
    q.enqueue("a", "pull_request", "opened", {}, "o/r", 1, raw=deep)
    d = q.claim()
    assert d.id == "a" and isinstance(d.payload, list)


# kills: bot/retention.py:_PRUNE_FAILED (hand) `updated_at < ?` -> `updated_at <= ?` (a delivery
#   that failed at the cutoff itself, still within its days, deleted: the operator's to retry)
# kills: bot/retention.py:Retention.first_received_from `received_at < at` -> `received_at <= at` (a
#   done delivery received at the cutoff itself deleted with the older ones)
def test_retention_keeps_what_was_received_or_failed_at_its_cutoff_exactly(tmp_path):
    q = queue_at(tmp_path)
    just_before = "2026-01-14T23:59:59.999999Z"
    for did, state, at in [
        ("done-before", "done", just_before),
        ("failed-before", "failed", just_before),
        ("done-at", "done", CUTOFF),
        ("failed-at", "failed", CUTOFF),
    ]:
        finished_at(q, did, state, at)
    assert Retention(q, 14, lambda *_: None).prune(CUTOFF) == {State.DONE: 1, State.FAILED: 1}
    assert q.get("done-before") is None and q.get("failed-before") is None
    assert q.get("done-at") is not None and q.get("failed-at") is not None


# kills: bot/retention.py:Retention.prune `done or failed or any(...)` -> `done and failed or ...`
#   (a pass that deleted done deliveries only, the usual one, said nothing)
# kills: bot/retention.py:Retention.prune `any(n for ...)` -> `all(n for ...)` (a pass that deleted
#   nothing said "pruned 0 ..." every hour, and one whose prunings did not all prune said
#   nothing of those that did)
def test_retention_says_one_line_for_a_pass_that_pruned_anything_and_none_otherwise(
    tmp_path, caplog
):
    from bot.retention import Pruning

    def said() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.name == "bot.retention"]

    q = queue_at(tmp_path)
    finished_at(q, "old-done", "done", OLD)
    caplog.set_level("INFO", logger="bot.retention")
    retention = Retention(q, 14, lambda *_: None)
    retention.prune(CUTOFF)
    (line,) = said()
    assert line.startswith("pruned 1 done delivery received and 0 failed ones")
    caplog.clear()
    retention.prune(CUTOFF)  # nothing left to do: nothing said
    nothing = Pruning("records of nothing", lambda before, limit: 0)
    Retention(q, 14, lambda *_: None, also=[nothing, nothing]).prune(CUTOFF)
    assert said() == []
    batches = iter([2, 0])
    two = Pruning("records of two", lambda before, limit: next(batches))
    Retention(q, 14, lambda *_: None, also=[nothing, two]).prune(CUTOFF)
    (line,) = said()
    assert line.startswith("pruned 0 done deliveries received and 0 failed ones")
    assert ", and 0 records of nothing, and 2 records of two (" in line


# kills: bot/retention.py:Retention._drop_failed (hand) `prune_failed(before, self.BATCH)` -> no
#   limit (every old failed delivery deleted in one transaction: a webhook's answer waited for them
#   all)
# kills: bot/retention.py:_PRUNE_DONE, _PRUNE_FAILED (hand) `ORDER BY seq` / `ORDER BY
#   updated_at` -> `DESC` (a pass stopped after a batch had deleted the newest old deliveries,
#   not the oldest)
def test_retention_deletes_the_oldest_first_a_batch_at_a_time_done_and_failed_alike(
    tmp_path, monkeypatch
):
    q = queue_at(tmp_path)
    for i in range(7):
        finished_at(q, f"done-{i}", "done", f"2026-01-0{i + 1}T00:00:00.000000Z")
    for i in range(7):
        finished_at(q, f"failed-{i}", "failed", f"2026-01-{i + 8:02d}T00:00:00.000000Z")
    monkeypatch.setattr(Retention, "BATCH", 3)
    retention = Retention(q, 14, lambda *_: None)
    batches: list[int] = []
    for name in ("prune_done", "prune_failed"):
        prune = getattr(retention, name)

        def counted(*args, prune=prune):
            got = prune(*args)
            batches.append(got if isinstance(got, int) else len(got))
            if len(batches) in (1, 4):
                retention.stop()  # the server stops after this batch
            return got

        monkeypatch.setattr(retention, name, counted)

    def gone(kind: str) -> list[int]:
        return [i for i in range(7) if q.get(f"{kind}-{i}") is None]

    assert retention.prune(CUTOFF) == {State.DONE: 3, State.FAILED: 0}
    assert gone("done") == [0, 1, 2]
    retention._stop.clear()  # the next server's pass
    assert retention.prune(CUTOFF) == {State.DONE: 4, State.FAILED: 3}
    assert gone("done") == list(range(7)) and gone("failed") == [0, 1, 2]
    retention._stop.clear()
    assert retention.prune(CUTOFF) == {State.DONE: 0, State.FAILED: 4}
    assert batches == [3, 3, 1, 3, 0, 3, 1]


# kills: bot/retention.py:Retention.prune (hand) the stores' prunings given `utcnow()`, not the
#   pass's cutoff (a PR's file list or a reply record pruned as soon as it is written)
def test_the_stores_prunings_get_the_passs_cutoff_and_batch_after_the_deliveries(tmp_path):
    from bot.retention import Pruning

    q = queue_at(tmp_path)
    finished_at(q, "old-done", "done", OLD)
    seen: list[tuple[str, int, int]] = []

    def replies(before: str, limit: int) -> int:
        seen.append((before, limit, q.counts()["done"]))
        return 0

    Retention(q, 14, lambda *_: None, also=[Pruning("records", replies)]).prune(CUTOFF)
    assert seen == [(CUTOFF, Retention.BATCH, 0)]  # its delivery gone first


# kills: retention.Retention.prune: `utcnow(-self.days * 86400)` -> `utcnow(self.days * 86400)`
# kills: retention.Retention.prune: the default cutoff one day short (`self.days - 1`)
def test_retention_by_default_deletes_what_is_older_than_its_days(tmp_path):
    from bot.times import utcnow

    q = queue_at(tmp_path)
    finished_at(q, "older", "done", utcnow(-14.5 * 86400))
    finished_at(q, "younger", "done", utcnow(-13.5 * 86400))
    assert Retention(q, 14, lambda *_: None).prune()[State.DONE] == 1
    assert q.get("older") is None and q.get("younger") is not None


# kills: retention.Retention._batches: `while not self._stop.is_set()` -> `while True`
# kills: retention.Retention.stop: `self._stop.set()` dropped
def test_a_stopped_retention_deletes_no_further_batch(tmp_path):
    q = queue_at(tmp_path)
    for i in range(3):
        finished_at(q, f"d{i}", "done", OLD)
    retention = Retention(q, 14, lambda *_: None)
    retention.stop()  # the server is stopping: a pass under way ends at its next batch
    assert retention.prune(CUTOFF) == {State.DONE: 0, State.FAILED: 0}
    assert q.counts()["done"] == 3


# kills: retention.Retention._run: the thread ended by its first failed pass
def test_retention_goes_on_after_a_pass_that_failed(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    outcomes: list[str] = []
    again = threading.Event()

    def told(outcome: str) -> None:
        outcomes.append(outcome)
        q.db.execute("PRAGMA query_only = OFF")  # the file writable again
        if outcome == "done":
            again.set()

    retention = Retention(q, 14, lambda *_: None, on_pass=told)
    q.db.execute("PRAGMA query_only = ON")  # the first pass fails: a read-only remount
    monkeypatch.setattr(Retention, "EVERY_SECONDS", 0.01)
    retention.start()
    try:
        assert again.wait(5), "the retention thread died with its first failed pass"
    finally:
        retention.stop()
    assert outcomes == ["failed", "done"]


# kills: workers.Workers.run_one: `self.counted(delivery, "failed")` dropped
# kills: workers.Workers.run_one: the warning naming a failed delivery made a debug line
def test_a_failed_delivery_is_counted_failed_and_named_in_a_warning(tmp_path, caplog):
    q = queue_at(tmp_path)
    add(q, "bad")
    told: list[str] = []

    def process(d):
        raise RuntimeError("no luck")

    w = Workers(q, process, 1, counted=lambda d, outcome: told.append(outcome))
    caplog.set_level("WARNING", logger="bot.workers")
    w.run_one(q.claim())
    assert told == ["failed"]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("bad" in m and "RuntimeError: no luck" in m for m in warned), warned


# kills: workers.Workers._record: `return False` when stopping -> `return True`
# kills: workers.Workers._defer: `if not stored: return` dropped
@pytest.mark.parametrize("limited", [False, True])
def test_an_outcome_not_stored_while_stopping_is_not_counted(tmp_path, monkeypatch, limited):
    from bot.github_port import GitHubError

    q = queue_at(tmp_path)
    add(q, "a")
    told: list[str] = []

    def process(d):
        if limited:
            raise GitHubError("rate limited", transient=True, retry_after=60)

    def refused(*args):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(q, "defer" if limited else "complete", refused)
    w = Workers(q, process, 1, counted=lambda d, outcome: told.append(outcome))
    w.stop_claiming()  # stopping: one try, then it is left for the next start
    w.run_one(q.claim())
    assert told == [] and q.get("a").state == State.PROCESSING


# kills: workers.Workers._run: `except Exception` around the claim -> `except ValueError`
# kills: workers.Workers._run: `except Exception` around run_one -> `except ValueError`
@pytest.mark.parametrize("fault", ["claim", "counted"])
def test_a_worker_outlives_an_unexpected_error_and_goes_on(tmp_path, monkeypatch, fault):
    q = queue_at(tmp_path)
    ran: list[str] = []
    claim, faults = q.claim, [1]

    def flaky_claim():
        if fault == "claim" and faults:
            faults.pop()
            raise sqlite3.OperationalError("database is locked")
        return claim()

    def counted(d, outcome):
        if fault == "counted" and faults:
            faults.pop()
            raise RuntimeError("a metric broke")

    monkeypatch.setattr(q, "claim", flaky_claim)
    w = Workers(q, lambda d: ran.append(d.id), 1, counted=counted)
    w.poll_seconds = 0.05
    add(q, "a", 1)
    add(q, "b", 2)
    w.start()
    try:
        deadline = time.monotonic() + 10
        while len(ran) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        w.stop()
    assert sorted(ran) == ["a", "b"]


# kills: workers.Workers._run: `seen = self.queue.version` read after the claim
def test_work_queued_while_a_worker_claimed_nothing_is_not_slept_through(tmp_path, monkeypatch):
    q = queue_at(tmp_path)
    done = threading.Event()
    claim, first = q.claim, [1]

    def claim_as_work_arrives():
        found = claim()
        if first:  # nothing found; meanwhile a delivery comes in (the webhook's thread)
            first.pop()
            add(q, "a")
        return found

    monkeypatch.setattr(q, "claim", claim_as_work_arrives)
    w = Workers(q, lambda d: done.set(), 1)
    w.poll_seconds = 30.0
    w.start()
    try:
        assert done.wait(5)
    finally:
        w.stop()


# kills: workers.Workers.start: `self._stop.clear()` dropped
def test_workers_started_again_after_a_stop_drain_the_queue(tmp_path):
    q = queue_at(tmp_path)
    done = threading.Event()
    w = Workers(q, lambda d: done.set(), 1)
    w.start()
    w.stop()
    w.start()
    try:
        add(q, "a")
        assert done.wait(5)
    finally:
        w.stop()


# kills: workers.Workers.stop: the warning naming the workers left busy dropped
def test_stopping_with_a_worker_still_busy_says_so(tmp_path, caplog):
    q = queue_at(tmp_path)
    busy, release = threading.Event(), threading.Event()
    w = Workers(q, lambda d: (busy.set(), release.wait(10)), count=1)
    w.start()
    add(q, "a")
    caplog.set_level("WARNING", logger="bot.workers")
    try:
        assert busy.wait(5)
        w.stop(timeout=0.1)
    finally:
        release.set()
    assert any("still busy" in r.getMessage() for r in caplog.records)


# kills: db.Database.tx: `BEGIN IMMEDIATE` -> `BEGIN`
def test_a_transaction_that_read_first_still_writes_when_another_process_writes(tmp_path):
    # BEGIN IMMEDIATE takes the write lock at once: the other writer waits for it; a
    # deferred BEGIN would see its read snapshot go stale and fail its own write
    mine, other = Database(tmp_path / "t.sqlite3"), Database(tmp_path / "t.sqlite3")
    mine.script("CREATE TABLE t (x INTEGER)")
    with mine.tx() as conn:
        conn.execute("SELECT COUNT(*) FROM t").fetchall()
        writer = threading.Thread(target=lambda: other.execute("INSERT INTO t VALUES (2)"))
        writer.start()
        writer.join(0.3)  # waits for our transaction
        conn.execute("INSERT INTO t VALUES (1)")
    writer.join(10)
    assert [r["x"] for r in mine.execute("SELECT x FROM t ORDER BY rowid")] == [1, 2]
    mine.close()
    other.close()


# kills: db.Database.acquire_server_lock: `if self._lock_files: return True` dropped
def test_the_server_lock_taken_twice_by_its_holder_is_still_held(tmp_path):
    db = Database(tmp_path / "q.sqlite3")
    assert db.acquire_server_lock() and db.acquire_server_lock()
    db.close()


# kills: db.Database.acquire_server_lock: `if name == real: raise` -> never raises
def test_a_server_lock_that_cannot_be_made_next_to_the_file_is_an_error(tmp_path, monkeypatch):
    db = Database(tmp_path / "q.sqlite3")
    real_open = os.open

    def refused(name, *args):
        if name == f"{os.path.realpath(db.path)}.lock":
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, *args)

    monkeypatch.setattr(os, "open", refused)
    with pytest.raises(PermissionError):
        db.acquire_server_lock()  # not a lock taken: a second server could start too
    db.close()


# kills: db.Database.checkpoint_in_background: `or now - last_checkpoint >= busy_every` dropped
def test_checkpoints_still_run_while_the_writes_never_stop(tmp_path):
    q = queue_at(tmp_path)
    q.db.checkpoint_in_background(every=0.02, busy_every=0.3, quiet=600)  # never quiet
    database = tmp_path / "q.sqlite3"
    big = "x" * 100_000
    for i in range(30):
        q.enqueue(f"d{i}", "pull_request", "opened", {"big": big}, "o/r", i)
    deadline = time.monotonic() + 20
    while database.stat().st_size < 3_000_000 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert database.stat().st_size >= 3_000_000
    q.db.close()


# kills: db.Database.checkpoint_in_background: `if self._checkpoints is not None: return` dropped
def test_checkpoints_asked_for_twice_run_one_thread_that_close_stops(tmp_path):
    def checkpointers() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name == "review-notes-checkpoint"}

    before = checkpointers()
    q = queue_at(tmp_path)
    q.db.checkpoint_in_background(every=0.02)
    q.db.checkpoint_in_background(every=0.02)
    q.db.close()
    assert checkpointers() - before == set()


def test_where_the_sweeps_left_off_is_kept_in_the_database(tmp_path):
    q = queue_at(tmp_path)
    assert q.sweep_since() is None
    q.keep_sweep_since("2026-12-04T10:00:00+00:00")
    q.keep_sweep_since("2026-12-04T11:00:00+00:00")
    assert DeliveryQueue(Database(tmp_path / "q.sqlite3")).sweep_since() == (
        "2026-12-04T11:00:00+00:00"
    )


def test_an_old_databases_own_rows_are_marked_as_the_bots_when_by_bot_is_added(tmp_path):
    # the first start after the upgrade swept from the old release's own
    # re-check, queued after GitHub failed to reach it
    db = Database(tmp_path / "old.sqlite3")
    db.script(  # the table before by_bot
        FIRST_DELIVERIES_TABLE
        + "INSERT INTO deliveries (id, event, action, payload, state, received_at, updated_at)"
        " VALUES ('gh-1', 'pull_request', 'opened', '{}', 'done', 'a', 'a'),"
        " ('gh-1#files-recheck-1', 'pull_request', 'opened', '{}', 'done', 'b', 'b'),"
        " ('review_notes_refresh:o/r#1:ab', 'pull_request', 'review_notes_refresh', '{}',"
        " 'done', 'c', 'c');"
    )
    q = DeliveryQueue(db)
    own = [r["id"] for r in db.execute("SELECT id FROM deliveries WHERE by_bot ORDER BY seq")]
    assert own == ["gh-1#files-recheck-1", "review_notes_refresh:o/r#1:ab"]
    assert q.last_received() == "a"


def test_a_refused_server_lock_leaves_the_processs_sqlite_locks_alone(tmp_path):
    # closing any descriptor of the database file drops every POSIX lock this process
    # holds on it, SQLite's own among them: the refusal closed the one it opened for its
    # flock while the connection was open
    path = tmp_path / "x.sqlite3"
    first = Database(path)
    assert first.acquire_server_lock()
    inode, pid = os.stat(path).st_ino, os.getpid()

    def sqlite_locks() -> list[str]:
        lines = Path("/proc/locks").read_text().splitlines()
        mine = [x for x in lines if "POSIX" in x and f" {pid} " in x and f":{inode} " in x]
        # without each line's ordinal ("12:"), which moves as other processes lock files
        return sorted(x.split(None, 1)[1] for x in mine)

    first.execute("SELECT COUNT(*) FROM sqlite_master")  # WAL: the connection's read lock
    held = sqlite_locks()
    assert held, "no POSIX lock of SQLite's to watch"
    second = Database(path)
    try:
        assert not second.acquire_server_lock()
        assert sqlite_locks() == held
    finally:
        second.close()
        first.close()


# --- the queue's SQL: interruptions, put-backs, own rows; wakes, stops, warnings ---


# kills: bot/queue.py:DeliveryQueue.recover `WHERE state = 'processing'` dropped from recover's
#        count of interruptions: every restart counted against deliveries no process was running
def test_restarts_count_no_interruption_against_deliveries_not_in_progress(tmp_path):
    # a delivery waiting its turn (or done) when the server stops was not interrupted:
    # three restarts, then one crash of its own, must not give it up
    q = queue_at(tmp_path)
    add(q, "done", 2)
    q.complete(q.claim().id)
    add(q, "waiting", 1)
    for _ in range(MAX_INTERRUPTIONS):
        assert q.recover().resumed == 0
    assert (q.get("waiting").state, q.get("waiting").interruptions) == ("pending", 0)
    assert q.get("done").interruptions == 0
    assert q.claim().id == "waiting"  # now its own run is cut short
    assert q.recover().resumed == 1
    assert (q.get("waiting").state, q.get("waiting").interruptions) == ("pending", 1)


# kills: bot/queue.py:DeliveryQueue.retry retry by ids putting back the first id asked only
def test_each_failed_delivery_named_is_put_back_and_no_other(tmp_path):
    q = queue_at(tmp_path)
    for did, number in (("a", 1), ("b", 2), ("c", 3)):
        add(q, did, number)
        q.fail(q.claim().id, "GitHubError: 502")
    assert q.retry(["nope", "c", "a"]) == ["c", "a"]
    assert [(d, q.get(d).state) for d in "abc"] == [
        ("a", "pending"),
        ("b", "failed"),
        ("c", "pending"),
    ]


# kills: bot/queue.py:Incoming `Incoming.by_bot` defaulting to True: every delivery the
#        webhook stored taken for the bot's own, passed over by the start's sweep
def test_a_delivery_stored_as_github_sent_it_is_the_newest_received(tmp_path):
    q = queue_at(tmp_path)
    q.enqueue_many([Incoming("gh-1", "pull_request", "opened", "{}", "o/r", 1)])
    assert q.last_received() == q.get("gh-1").received_at


# kills: bot/queue.py:DeliveryQueue.__init__ `or` -> `and`: the own rows of an upgrade killed
#        between adding by_bot and marking them left unmarked at the next start
def test_own_rows_left_unmarked_by_an_interrupted_upgrade_are_marked_at_the_next_start(tmp_path):
    q = queue_at(tmp_path)  # by_bot is there already; no sweep has kept where it left off
    q.db.execute(
        "INSERT INTO deliveries (id, event, action, payload, state, received_at, updated_at)"
        " VALUES ('gh-1', 'pull_request', 'opened', '{}', 'done', 'a', 'a'),"
        " ('gh-1#files-recheck-1', 'pull_request', 'opened', '{}', 'done', 'b', 'b')"
    )
    assert q.last_received() == "b"
    assert queue_at(tmp_path).last_received() == "a"


# kills: bot/queue.py:DeliveryQueue.__init__ `"by_bot" in added` -> `not in`: an upgrade from a
#        release that kept where its sweeps left off left that release's own rows unmarked
def test_an_old_databases_own_rows_are_marked_even_where_a_sweep_was_kept(tmp_path):
    db = Database(tmp_path / "old.sqlite3")
    db.script(  # the table before by_bot, and a sweep's place kept
        FIRST_DELIVERIES_TABLE
        + "INSERT INTO deliveries (id, event, action, payload, state, received_at, updated_at)"
        " VALUES ('gh-1', 'pull_request', 'opened', '{}', 'done', 'a', 'a'),"
        " ('gh-1#files-recheck-1', 'pull_request', 'opened', '{}', 'done', 'b', 'b');"
        "CREATE TABLE redelivery (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO redelivery VALUES ('since', '2026-12-04T10:00:00+00:00');"
    )
    assert DeliveryQueue(db).last_received() == "a"


# kills: bot/queue.py:DeliveryQueue.enqueue_many `any(...)` -> `all(...)`: a burst holding a
#        duplicate woke no idle worker, which slept out its poll with new work queued
def test_a_burst_wakes_the_workers_unless_all_of_it_was_seen_before(tmp_path):
    q = queue_at(tmp_path)
    add(q, "seen")
    before = q.version
    q.enqueue_many(
        [
            Incoming("seen", "pull_request", "opened", "{}", "o/r", 1),
            Incoming("new", "pull_request", "opened", "{}", "o/r", 2),
        ]
    )
    assert q.version != before
    before = q.version
    q.enqueue_many([Incoming("seen", "pull_request", "opened", "{}", "o/r", 1)])
    assert q.version == before


# kills (a hand mutant): bot/workers.py:Workers.stop `t.join(...)` -> `t.join(0)`: stop
#        returned with a delivery still in hand, its outcome left to a closing server
#        (stored or not, it runs again at the next start)
def test_stopping_waits_for_the_delivery_in_hand_to_be_recorded(tmp_path):
    q = queue_at(tmp_path)
    add(q, "a")
    busy = threading.Event()

    def process(delivery) -> None:
        seen = q.version
        busy.set()
        q.wait_for_work(seen, 10)  # busy until the stop's wake-up

    w = Workers(q, process, count=1)
    w.start()
    assert busy.wait(10)
    w.stop(timeout=30)
    assert q.get("a").state == "done"


# kills: bot/workers.py:_log_context `_log_context` -> None: a failed delivery's warning without
#        the delivery, repo and pr fields the JSON log is followed by (bot.logs)
def test_a_failed_deliverys_warning_carries_its_delivery_repo_and_pr(tmp_path, caplog):
    q = queue_at(tmp_path)
    add(q, "bad", 12, repo="o/r")

    def process(d):
        raise RuntimeError("no luck")

    caplog.set_level("WARNING", logger="bot.workers")
    Workers(q, process, 1).run_one(q.claim())
    [warned] = [r for r in caplog.records if r.name == "bot.workers"]
    assert (warned.delivery, warned.repo, warned.pr) == ("bad", "o/r", 12)


# kills: bot/workers.py:Workers.run_one (hand) the failure's warning saying what failed alone: a
#   GitHub outage failed each delivery of its minutes with '502 (gave up after 4 attempts)' in
#   the log, nothing of `review-notes retry`, which alone runs them again
def test_a_failed_deliverys_warning_says_how_to_run_it_again(tmp_path, caplog):
    q = queue_at(tmp_path)
    add(q, "bad", 12, repo="o/r")

    def process(d):
        raise RuntimeError("GitHub answered 502")

    caplog.set_level("WARNING", logger="bot.workers")
    Workers(q, process, 1).run_one(q.claim())
    [warned] = [r.getMessage() for r in caplog.records if r.name == "bot.workers"]
    assert warned == (
        "delivery bad (pull_request) failed: RuntimeError: GitHub answered 502; once its cause"
        " is fixed, `review-notes retry bad` runs it again (`--all`: every failed one)"
    )
    assert q.get("bad").last_error == "RuntimeError: GitHub answered 502"  # as before


# kills: bot/workers.py:Workers._record `tries > 1` -> `>=`: every outcome stored at once logged as
#        one stored after failed tries
def test_an_outcome_stored_at_the_first_try_logs_no_retry_of_it(tmp_path, caplog):
    q = queue_at(tmp_path)
    add(q, "a")
    caplog.set_level("INFO", logger="bot.workers")
    Workers(q, lambda d: None, 1).run_one(q.claim())
    assert q.get("a").state == "done"
    assert [r.getMessage() for r in caplog.records if r.name == "bot.workers"] == []


# --- going live on a dry run's database ---


def handled(q: DeliveryQueue, did: str, number: int, action: str = "opened", **kw) -> None:
    """A delivery the dry run handled (done), received now."""
    event = kw.pop("event", "pull_request")
    q.enqueue(did, event, action, {"n": did}, "o/r", number, **kw)
    q.db.execute("UPDATE deliveries SET state = 'done' WHERE id = ?", (did,))


def test_going_live_keeps_what_the_dry_run_handled_lately_and_it_runs_again_once(tmp_path):
    q = queue_at(tmp_path)
    finished_at(q, "old", "done", OLD)  # before the time GitHub keeps
    handled(q, "sent", 1)
    handled(q, "replayed", 2)
    handled(q, "recheck", 1, "review_notes_refresh", by_bot=True)  # the bot's own
    with q.db.tx():
        assert q.keep_dry_run_answered(CUTOFF) == 2  # "sent" and "replayed"
    listed = {"sent", "old", "recheck", "unknown"}  # GitHub never sent "replayed"
    assert q.run_again(listed) == ["sent"]
    assert [q.get(d).state for d in ("sent", "replayed", "old", "recheck")] == [
        "pending",
        "done",
        "done",
        "done",
    ]
    q.complete(q.claim().id)  # "sent"
    assert q.run_again(listed | {"replayed"}) == ["replayed"]  # "sent" ran once already
    assert q.run_again(listed | {"replayed"}) == []


# kills: bot/queue.py:DeliveryQueue.run_again (hand) a delivery run again keeping its
#   put-backs (both counts), as if still in the dry run's rate limits
def test_a_delivery_run_again_going_live_starts_its_put_backs_afresh(tmp_path):
    # The dry run put it back for rate limits (its own, and others' only) before it was
    # done: going live it runs once more, as new, with every put-back allowed again.
    q = queue_at(tmp_path)
    handled(q, "sent", 1)
    q.db.execute("UPDATE deliveries SET deferrals = 90, waits = 85 WHERE id = 'sent'")
    with q.db.tx():
        assert q.keep_dry_run_answered(CUTOFF) == 1
    assert q.run_again({"sent"}) == ["sent"]
    assert (q.get("sent").deferrals, q.get("sent").waits) == (0, 0)


# kills: bot/queue.py:_NOT_CLOSED (hand) dropped, the first event taken for the last, a
#   command or the bot's own update taken for the PR's last event
def test_what_runs_again_keeps_its_order_and_a_pr_closed_last_is_left_alone(tmp_path):
    q = queue_at(tmp_path)
    handled(q, "z-opened", 1)
    handled(q, "a-labeled", 1, "labeled")
    handled(q, "m-opened", 2)
    handled(q, "c-closed", 2, "closed")
    handled(q, "b-command", 2, "created", event="issue_comment")  # after the close
    handled(q, "b-update", 2, "review_notes_refresh", by_bot=True)  # the command's update
    handled(q, "y-opened", 3)
    handled(q, "x-closed", 3, "closed")
    handled(q, "w-reopened", 3, "reopened")
    with q.db.tx():
        assert q.keep_dry_run_answered(CUTOFF) == 8
    everything = {r["id"] for r in q.db.execute("SELECT id FROM deliveries")}
    assert q.run_again(everything) == [
        "z-opened",
        "a-labeled",
        "y-opened",
        "x-closed",
        "w-reopened",
    ]
    assert [d.id for d in iter(q.claim, None)] == ["z-opened", "y-opened"]  # serial per PR


# kills: bot/queue.py:DeliveryQueue.run_again (hand) the ids returned in the order read
#   (by id, part by part), not the queue's
def test_more_deliveries_than_one_statement_binds_all_run_again(tmp_path):
    q = queue_at(tmp_path)
    # three parts of 500 at most, read in the order of the ids: put back in the queue's
    ids = ["z-first", *(f"d{i:04}" for i in range(1000))]
    for i, did in enumerate(ids):
        handled(q, did, i + 1)
    with q.db.tx():
        assert q.keep_dry_run_answered(CUTOFF) == 1001
    assert q.run_again(set(ids)) == ids
    assert q.counts()["pending"] == 1001 and q.run_again(set(ids)) == []


# kills: bot/queue.py:DeliveryQueue.run_again (hand) putting back the ids read before the
#   transaction, not those it took off the kept list
def test_a_delivery_put_back_by_another_sweep_since_it_was_read_is_not_put_back_again(
    tmp_path, monkeypatch
):
    """The server's sweep and `review-notes redeliver` (two processes on one file) both
    read what is kept before writing: the second must not run it again, neither while it
    runs (taken twice) nor once done."""
    q = queue_at(tmp_path)
    handled(q, "sent", 1)
    handled(q, "other", 2)
    with q.db.tx():
        q.keep_dry_run_answered(CUTOFF)
    assert q.run_again({"sent"}) == ["sent"]
    monkeypatch.setattr(q, "_dry_run_answered", lambda guids: ["sent"])  # read before
    assert q.claim().id == "sent"
    assert q.run_again({"sent"}) == [] and q.get("sent").state == "processing"
    q.complete("sent")
    assert q.run_again({"sent"}) == [] and q.get("sent").state == "done"
    monkeypatch.setattr(q, "_dry_run_answered", lambda guids: ["other", "sent"])
    assert q.run_again({"other", "sent"}) == ["other"]


def test_going_live_sets_aside_what_the_dry_run_left_queued_and_it_runs_only_if_listed(tmp_path):
    q = queue_at(tmp_path)
    add(q, "running", 1)  # GitHub's, or a replay: the log tells
    add(q, "queued", 2)
    assert q.claim().id == "running"  # a dry run killed while running it
    add(q, "update", 3)
    q.db.execute("UPDATE deliveries SET by_bot = 1 WHERE id = 'update'")  # the bot's own
    handled(q, "broke", 4)  # failed in the dry run: `retry --all` would run a replay live
    q.db.execute("UPDATE deliveries SET state = 'failed' WHERE id = 'broke'")
    with q.db.tx():
        assert q.keep_dry_run_answered(CUTOFF) == 3
    assert q.counts() == {"pending": 0, "processing": 0, "done": 4, "failed": 0}
    assert q.get("queued").last_error == q.get("broke").last_error == queue_module.SET_ASIDE
    assert q.recover().resumed == 0  # the start's recovery finds none to resume
    assert q.run_again({"queued", "update", "broke"}) == ["queued", "broke"]
    assert [q.claim().id, q.claim().id, q.claim()] == ["queued", "broke", None]
    assert q.run_again({"running"}) == ["running"]


# --- a failing claim or outcome write, told once and reported ------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _fail(failures: Failures, what: str = "claiming a delivery") -> None:
    try:
        raise sqlite3.OperationalError("database is locked")
    except sqlite3.OperationalError as exc:
        failures.failed(what, exc)


# kills: bot/workers.py:Failures.failed a traceback at every failure (the flood)
# kills: bot/workers.py:Failures.failed the reminder at every failure, or never
# kills: bot/workers.py:Failures.succeeded no recovery line
def test_a_failing_write_is_logged_once_then_every_say_every_then_its_recovery(caplog):
    # A claim failed every poll (a second apart on a full disk) and each failure logged
    # its traceback: hours of a full disk were tens of thousands of tracebacks.
    clock = Clock()
    failures = Failures(str, clock)
    with caplog.at_level(logging.INFO, logger="bot.workers"):
        for _ in range(3):
            _fail(failures)
            clock.now += 1
        assert [(r.levelname, bool(r.exc_info)) for r in caplog.records] == [("ERROR", True)]
        clock.now = 1000.0 + Failures.SAY_EVERY  # five minutes after the first: a reminder
        _fail(failures)
        _fail(failures)  # and not again at once
        reminders = caplog.records[1:]
        assert [r.getMessage() for r in reminders] == [
            "claiming a delivery still failing: 4 tries in 300s;"
            " the last: OperationalError: database is locked"
        ]
        assert not reminders[0].exc_info
        clock.now += 1
        failures.succeeded()
        failures.succeeded()  # the recovery is said once
    told = [r.getMessage() for r in caplog.records[2:]]
    assert told == ["claiming a delivery works again, after 5 failed tries in 301s"]


def _refused(failures: Failures) -> None:
    try:
        raise sqlite3.OperationalError("database is locked")
    except sqlite3.OperationalError as exc:
        failures.failed("claiming a delivery", exc, quiet=True)


# kills: bot/workers.py:Failures._wait_told no warning once a lock has lasted `quiet_for`
# kills: bot/workers.py:Failures.succeeded a quiet refusal's end told as a WARNING
def test_a_claim_refused_for_a_lock_warns_once_it_has_lasted_the_stuck_time(caplog):
    clock = Clock()
    failures = Failures(str, clock, quiet_for=60.0)
    with caplog.at_level(logging.INFO, logger="bot.workers"):
        _refused(failures)
        clock.now += 59.5
        _refused(failures)
        assert caplog.records == []  # quiet, yet counted from the first refusal:
        assert failures.failing_for() == 59.5 and failures.stuck(30) is not None
        clock.now += 0.5
        _refused(failures)
        _refused(failures)  # said once
        assert [(r.levelname, r.getMessage(), r.exc_info) for r in caplog.records] == [
            (
                "WARNING",
                "claiming a delivery refused for 60s (3 tries): another process holds the"
                " database's lock (OperationalError: database is locked); trying again"
                " (said again every 300s until it works)",
                None,
            )
        ]
        clock.now += Failures.SAY_EVERY  # then as any failure: a reminder, the recovery
        _refused(failures)
        failures.succeeded()
    told = [(r.levelname, r.getMessage()[:40]) for r in caplog.records[1:]]
    assert told == [
        ("ERROR", "claiming a delivery still failing: 5 tri"),
        ("WARNING", "claiming a delivery works again, after 5"),
    ]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="bot.workers"):
        _refused(failures)
        failures.succeeded()  # a short wait: its end at DEBUG too
        _refused(failures)
        _fail(failures)  # then a fault (a full disk): told with its traceback
    assert [(r.levelname, bool(r.exc_info)) for r in caplog.records] == [("ERROR", True)]


# kills: bot/workers.py:Failures.stuck `<` -> `<=` (not stuck at exactly the limit)
# kills: bot/workers.py:Failures.failing_for the newest failure instead of the oldest
def test_stuck_once_a_worker_has_failed_for_the_configured_time_until_it_succeeds():
    clock = Clock()
    failures = Failures(lambda text: text.replace("locked", "[held]"), clock)
    assert failures.stuck(0) is None and failures.failing_for() == 0.0
    _fail(failures)
    assert failures.stuck(0) is not None  # 0: at the first failure
    clock.now += 59.5
    assert failures.stuck(60) is None and failures.failing_for() == 59.5
    other = threading.Thread(target=_fail, args=(failures, "recording delivery x as done"))
    other.start()  # a second worker fails later: the oldest failure is reported
    other.join()
    clock.now += 0.5
    assert failures.failing_for() == 60.0
    assert failures.stuck(60) == (
        "claiming a delivery has failed for 60s (1 tries): OperationalError: database is [held]"
    )
    done = threading.Thread(target=failures.succeeded)
    done.start()  # another worker's success ends no failure of this one
    done.join()
    assert failures.stuck(60) is not None
    failures.succeeded()  # this worker's: the other's is now the oldest, and young
    assert failures.failing_for() == 0.5 and failures.stuck(60) is None


# kills: bot/workers.py:Workers._run a claim that works again not ending the failure
def test_a_claim_that_works_again_ends_the_failure_with_nothing_to_run(
    tmp_path, monkeypatch, caplog
):
    # an idle queue: no delivery's outcome comes to say the database is back
    q = queue_at(tmp_path)
    worked = threading.Event()
    real = q.claim

    def claim():
        if not worked.is_set() and len(calls) < 2:
            calls.append(1)
            raise sqlite3.OperationalError("database is locked")
        delivery = real()
        worked.set()
        return delivery

    calls: list[int] = []
    monkeypatch.setattr(q, "claim", claim)
    w = Workers(q, lambda d: None, count=1, poll_seconds=0.01)
    with caplog.at_level(logging.INFO, logger="bot.workers"):
        w.start()
        try:
            assert worked.wait(20)
            wait_until(lambda: w.failures.failing_for() == 0.0, what="the failure ended")
        finally:
            w.stop()
    told = [r.getMessage() for r in caplog.records if "claiming a delivery" in r.getMessage()]
    assert len(told) == 2 and told[1].startswith("claiming a delivery works again, after 2")


# kills: bot/workers.py:Workers._claim_and_run a claim refused for a lock told as a fault
def test_a_claim_refused_for_another_process_lock_is_retried_quietly(tmp_path, caplog):
    # `review-notes retry --all` holding the write lock a little past a claim's 0.2 s wait
    # logged a traceback ("claiming a delivery failed") and a "works again" warning: a
    # fault to the operator, for a wait the next poll ends. Still counted meanwhile
    # (/healthz's `worker_error` once it lasts `workers_stuck_seconds`).
    q = queue_at(tmp_path)
    add(q, "a")
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    w = Workers(q, lambda d: None, count=1, poll_seconds=0.05)
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.workers"):
            w.start()
            wait_until(lambda: w.failures.failing_for() > 0, what="a claim refused")
            time.sleep(0.5)  # refused at a few polls
            assert w.failures.stuck(0) is not None  # counted from the first refusal
            holder.execute("ROLLBACK")
            wait_until(lambda: q.get("a").state == State.DONE, what="the delivery done")
            wait_until(lambda: w.failures.failing_for() == 0.0, what="the failure ended")
    finally:
        holder.close()
        w.stop()
    told = [r for r in caplog.records if "claiming a delivery" in r.getMessage()]
    assert told, "the refusal is in the debug log"
    loud = [(r.levelname, r.getMessage()) for r in told if r.levelno >= logging.INFO]
    assert loud == [] and not any(r.exc_info for r in told), loud


# kills: bot/workers.py:Failures.failed each worker telling one lock's refusals
def test_claims_refused_for_another_process_lock_are_one_warning_per_process(tmp_path, caplog):
    # each worker warned once its own claims had been refused long enough, and said its
    # recovery: three workers, three identical WARNINGs of one lock, then three more
    q = queue_at(tmp_path)
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    w = Workers(q, lambda d: None, count=3, poll_seconds=0.05, stuck_seconds=0.3)
    try:
        with caplog.at_level(logging.DEBUG, logger="bot.workers"):
            w.start()

            def warned() -> list[str]:
                return [r.getMessage() for r in caplog.records if " refused for " in r.getMessage()]

            wait_until(warned, what="the warning of the refused claims")
            time.sleep(1.0)  # every worker refused past the 0.3 s meanwhile
            holder.execute("ROLLBACK")
            add(q, "a")
            wait_until(lambda: q.get("a").state == State.DONE, what="the delivery done")
            wait_until(lambda: w.failures.failing_for() == 0.0, what="the failure ended")
    finally:
        holder.close()
        w.stop()
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned()) == 1 and warned()[0].startswith("claiming a delivery refused for"), loud
    works_again = [m for m in loud if " works again" in m]
    assert len(works_again) == 1 and len(loud) == 2, loud


def _as_worker(name: str, call: Callable[[], None]) -> None:
    """`call` run in a thread named as a worker: Failures keeps each worker's apart."""
    thread = threading.Thread(target=call, name=name)
    thread.start()
    thread.join()


def _faulted(failures: Failures) -> None:
    try:
        raise sqlite3.OperationalError("disk I/O error")
    except sqlite3.OperationalError as exc:
        failures.failed("claiming a delivery", exc)


# kills: bot/workers.py:Failures.failed the lock's teller keeping the part when it meets
#   another fault: the lock no longer said, by it nor by the workers still refused
def test_a_lock_still_refusing_is_told_by_another_worker_once_its_teller_meets_another_fault(
    caplog,
):
    # The first worker to warn of a lock tells it for the process, the others' lines
    # unsaid. That teller then failing otherwise (a disk I/O error) went on as the teller:
    # its own lines said the other fault, if at all, and the lock, still refusing the
    # others, was said no more.
    clock = Clock()
    failures = Failures(str, clock, quiet_for=60.0)
    with caplog.at_level(logging.INFO, logger="bot.workers"):
        for name in ("w1", "w2", "w3"):
            _as_worker(name, lambda: _refused(failures))
        clock.now += 60
        for name in ("w1", "w2", "w3"):
            _as_worker(name, lambda: _refused(failures))
        assert [r.threadName for r in caplog.records] == ["w1"]  # one WARNING, by w1
        caplog.clear()
        clock.now += 10
        _as_worker("w1", lambda: _faulted(failures))  # its fault told, with its traceback
        for name in ("w2", "w3"):  # the lock told again, by one of the workers it refuses
            _as_worker(name, lambda: _refused(failures))
        clock.now += Failures.SAY_EVERY  # then each reminded of, as any failure
        _as_worker("w1", lambda: _faulted(failures))
        for name in ("w2", "w3"):
            _as_worker(name, lambda: _refused(failures))
    told = [(r.threadName, r.levelname, r.getMessage().split(";")[0]) for r in caplog.records]
    assert told == [
        ("w1", "ERROR", "claiming a delivery failed"),
        (
            "w2",
            "WARNING",
            "claiming a delivery refused for 70s (3 tries): another process holds the"
            " database's lock (OperationalError: database is locked)",
        ),
        ("w1", "ERROR", "claiming a delivery still failing: 4 tries in 370s"),
        ("w2", "ERROR", "claiming a delivery still failing: 4 tries in 370s"),
    ], told
    assert caplog.records[2].getMessage().endswith("the last: OperationalError: disk I/O error")
    assert caplog.records[3].getMessage().endswith("database is locked")
    assert caplog.records[0].exc_info


# kills: bot/queue.py:DeliveryQueue._finish an outcome's write waiting the connection's busy
#   timeout for another process's lock
def test_an_outcome_under_another_process_lock_is_refused_soon_and_stored_later(
    tmp_path, monkeypatch
):
    # the wait holds the Database's in-process lock, and every write of the process (a
    # webhook's) waited behind it: a worker's outcome gives up soon, as a claim does, and
    # the worker tries again (Workers._record) until it is stored
    from bot import db as bot_db

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 10.0)
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.05)
    q = queue_at(tmp_path)
    add(q, "d1")
    claimed = q.claim()
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            q.complete("d1")
        refused_in = time.monotonic() - started
        print(f"an outcome under the lock refused in {refused_in:.2f}s")
        assert refused_in < 5, "waited out the connection's busy timeout"
        assert q.db.execute("PRAGMA busy_timeout")[0][0] == LOCK_TRY_SECONDS * 1000
        threading.Timer(1.0, lambda: holder.execute("ROLLBACK")).start()
        Workers(q, lambda d: None, count=1).run_one(claimed)  # tried again until stored
    finally:
        holder.close()
    assert q.get("d1").state == State.DONE


# kills: bot/workers.py:Workers._record an outcome stored at last not ending the failure
def test_an_outcome_stored_at_last_ends_the_failure_before_the_next_claim(tmp_path, monkeypatch):
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.001, raising=False)
    q = queue_at(tmp_path)
    monkeypatch.setattr(q, "complete", _flaky(q.complete, 2))
    add(q, "a")
    w = Workers(q, lambda d: None, count=1)
    w.run_one(q.claim())  # no worker loop: no claim after it
    assert q.get("a").state == "done"
    assert w.failures.failing_for() == 0.0 and w.failures.stuck(0) is None


# kills: bot/queue.py:DeliveryQueue.claim a damaged row stalling the queue
# kills: bot/queue.py:DeliveryQueue._claim the damaged row not left out as its PR's earlier one
def test_a_pending_row_sqlite_finds_damaged_is_set_aside_and_the_queue_goes_on(tmp_path, caplog):
    # SQLite reads a row whole to claim it; one whose page a failing disk damaged
    # ("database disk image is malformed") could be neither claimed, nor marked failed,
    # nor deleted, and, the oldest pending, was tried first at every claim: the queue
    # stood still for every PR. It is set aside now (until a restart: the file is
    # damaged, restoring it is the operator's), and said once.
    q = queue_at(tmp_path)
    q.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, "o/r", 1)
    add(q, "other-pr", 2)
    add(q, "same-pr", 1)  # its PR's delivery before it never runs: not held up by it
    # put back twice for a rate limit: the claim reads that count past the damaged page
    # (0 and 1 are in the row's header) to order its PR's deliveries
    q.db.execute("UPDATE deliveries SET deferrals = 2 WHERE id = 'broken'")
    q.db.close()
    break_overflow_chain(tmp_path / "q.sqlite3", b"Z" * 200)
    q = queue_at(tmp_path)
    with pytest.raises(sqlite3.DatabaseError):
        q.db.execute("SELECT payload FROM deliveries WHERE id = 'broken'")
    with caplog.at_level(logging.INFO, logger="bot.queue"):
        claimed = [q.claim(), q.claim(), q.claim()]
    assert [d and d.id for d in claimed] == ["other-pr", "same-pr", None]
    assert q.set_aside == {"broken": "DatabaseError: database disk image is malformed"}
    said = [r for r in caplog.records if "broken" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "ERROR", said
    assert "restore it from a backup" in said[0].getMessage()


# kills: bot/queue.py:DeliveryQueue._id_of no name for a row whose id is unreadable too
def test_a_damaged_row_whose_id_is_unreadable_too_is_named_by_its_place(tmp_path, caplog):
    q = queue_at(tmp_path)
    q.enqueue("Z" * 20_000, "pull_request", "opened", {}, "o/r", 1)  # its id on the pages
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every id)
    add(q, "next", 2)
    q.db.close()
    break_overflow_chain(tmp_path / "q.sqlite3", b"Z" * 200)
    q = queue_at(tmp_path)
    with caplog.at_level(logging.INFO, logger="bot.queue"):
        assert q.claim().id == "next"
    assert list(q.set_aside) == ["#1 (its id unreadable)"]
    assert caplog.records[0].getMessage().startswith("delivery #1 (its id unreadable): SQLite")


# kills: bot/queue.py:DeliveryQueue._id_of a delivery on a damaged page named by its seq,
#   though the index of ids still names it
def test_deliveries_on_a_damaged_page_of_their_table_are_named_through_the_id_index(
    tmp_path, caplog
):
    # A whole page of the queue damaged: no column of its rows reads, and each delivery
    # set aside was said as "#N (its id unreadable)", in the log, in /healthz and to
    # `retry ID`, though the index of the ids (UNIQUE) still holds each with its seq.
    q = queue_at(tmp_path)
    add(q, "d-1", 1)
    add(q, "d-2", 2)
    _damage_root_page(q, tmp_path / "q.sqlite3", "deliveries")
    q = queue_at(tmp_path)
    with caplog.at_level(logging.ERROR, logger="bot.queue"):
        assert q.claim() is None
    assert list(q.set_aside) == ["d-1", "d-2"]
    named = [r.getMessage().split(": SQLite")[0] for r in caplog.records]
    assert named == ["delivery d-1", "delivery d-2"]


# kills: bot/queue.py:DeliveryQueue._id_of the index of ids read past the delivery's entry,
#   to a damaged page of it: the delivery named by its seq
def test_deliveries_on_a_damaged_page_are_named_though_a_later_page_of_the_id_index_is_damaged(
    tmp_path, caplog
):
    # A page of the queue damaged and the last of its index of ids: each delivery set
    # aside was said as "#N (its id unreadable)", the index read to its end for it, though
    # its entry comes before the damaged page. It is read to the entry only.
    q = queue_at(tmp_path)
    ids = [f"d-{n:03d}-{'x' * 60}" for n in range(1, 301)]  # (the ids' order is the seqs')
    for did in ids:
        add(q, did)
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    q.db.close()
    path = tmp_path / "q.sqlite3"
    table, index = leaf_pages(path, "deliveries"), leaf_pages(path, ID_INDEX)
    assert len(table) >= 2 and len(index) >= 2
    overwrite(path, table[0])
    overwrite(path, index[-1])
    q = queue_at(tmp_path)
    with caplog.at_level(logging.ERROR, logger="bot.queue"):
        assert q.claim() is not None  # (the first past the damaged page)
    named = list(q.set_aside)
    assert named and named == ids[: len(named)], named


# kills: bot/queue.py:DeliveryQueue._set_aside_unreadable a row set aside meanwhile not passed
def test_a_worker_whose_claim_failed_on_a_row_set_aside_meanwhile_claims_past_it(tmp_path, caplog):
    # two workers' claims fail on one damaged row: the first sets it aside; the second,
    # whose claim began before, claims past it, without finding or saying it again
    q = queue_at(tmp_path)
    q.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, "o/r", 1)
    add(q, "a", 2)
    add(q, "b", 3)
    q.db.close()
    break_overflow_chain(tmp_path / "q.sqlite3", b"Z" * 200)
    q = queue_at(tmp_path)
    with caplog.at_level(logging.INFO, logger="bot.queue"):
        assert q.claim().id == "a"  # the first worker
        assert q._set_aside_unreadable(0, [State.PENDING])  # its claim began with none aside
    assert q.claim().id == "b"
    assert len([r for r in caplog.records if "broken" in r.getMessage()]) == 1


def _damaged_at(q: DeliveryQueue, did: str, state: str, at: str) -> None:
    """As `finished_at`, with a payload long enough to spill onto overflow pages that
    `break_overflow_chain(..., b"Z" * 200)` then damages."""
    q.enqueue(did, "pull_request", "opened", {"pad": "Z" * 20_000})
    q.db.execute(
        "UPDATE deliveries SET state = ?, received_at = ?, updated_at = ? WHERE id = ?",
        (state, at, at, did),
    )


def _reopened_damaged(q: DeliveryQueue, tmp_path: Path) -> DeliveryQueue:
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    q.db.close()
    break_overflow_chain(tmp_path / "q.sqlite3", b"Z" * 200)
    return queue_at(tmp_path)


# kills: bot/retention.py:Retention.prune a damaged row stopping every pass (a traceback each hour,
#   nothing after it ever deleted)
# kills: bot/retention.py:Retention._kept the rows set aside not left out (met again, each pass)
def test_retention_sets_a_damaged_row_aside_and_prunes_the_others(tmp_path, caplog):
    # A done or failed delivery whose row SQLite cannot read back (a failing disk) can be
    # neither read nor deleted: the batch holding it failed, every pass, with a traceback
    # in the log, and nothing after it was pruned again (the file grew for good). It is
    # set aside now, as the claim sets aside a pending one, named once.
    q = queue_at(tmp_path)
    finished_at(q, "old-1", "done", OLD)
    _damaged_at(q, "broken-done", "done", OLD)
    finished_at(q, "old-2", "done", OLD)
    _damaged_at(q, "broken-failed", "failed", OLD)
    finished_at(q, "old-failed", "failed", OLD)
    finished_at(q, "new", "done", NEW)
    q = _reopened_damaged(q, tmp_path)
    retention = Retention(q, 14, lambda *_: None)
    with caplog.at_level(logging.INFO):
        assert retention.prune(CUTOFF) == {State.DONE: 2, State.FAILED: 1}
        assert retention.prune(CUTOFF) == {State.DONE: 0, State.FAILED: 0}
    assert [r["id"] for r in q.db.execute("SELECT id FROM deliveries ORDER BY seq")] == [
        "broken-done",
        "broken-failed",
        "new",
    ]
    assert set(q.set_aside) == {"broken-done", "broken-failed"}  # /healthz's damaged
    said = [r for r in caplog.records if "broken" in r.getMessage()]
    assert [r.levelname for r in said] == ["ERROR", "ERROR"], said
    assert "never deleted" in said[0].getMessage()
    assert "restore it from a backup" in said[1].getMessage()
    assert not any(r.exc_info for r in caplog.records)


# kills: bot/queue.py:DeliveryQueue.failed a damaged failed row failing the listing (/healthz too)
# kills: bot/queue.py:DeliveryQueue.retry a damaged failed row failing every re-queue (--all, by id)
def test_a_damaged_failed_row_is_set_aside_from_the_listing_and_the_requeue(tmp_path):
    q = queue_at(tmp_path)
    for did in ("a", "broken", "b"):
        if did == "broken":
            _damaged_at(q, did, "failed", OLD)
        else:
            add(q, did)
            q.fail(did, "GithubException: 502")
    q = _reopened_damaged(q, tmp_path)
    assert [d.id for d in q.failed()] == ["b", "a"]
    assert list(q.set_aside) == ["broken"]
    q = queue_at(tmp_path)  # a new process: nothing set aside yet
    assert q.retry(["broken", "a"]) == ["a"]
    assert list(q.set_aside) == ["broken"]
    assert q.retry() == ["b"]
    assert q.counts()["failed"] == 1  # still there: the file is the operator's to restore


# kills: bot/retention.py:Retention._pass_failed damage outside the rows said in a traceback hourly
def test_a_pass_stopped_by_a_damaged_index_is_said_in_one_line_with_the_fix(tmp_path, caplog):
    # The page damaged is an index's, not a row's: no row can be set aside, the pass
    # fails at each round; said as the damage it is, with the fix, not as a traceback.
    q = queue_at(tmp_path)
    finished_at(q, "old", "done", OLD)
    q.keep_sweep_since("2030-01-01T00:00:00Z")
    q.db.close()
    path = tmp_path / "q.sqlite3"
    damage_root_page(path, "deliveries_state")
    retention = Retention(queue_at(tmp_path), 14, lambda *_: None)
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.start()
        try:
            wait_until(lambda: caplog.records, what="the pass's outcome")
        finally:
            retention.stop()
    [said] = caplog.records
    assert said.levelname == "ERROR" and said.exc_info is None
    assert said.getMessage().startswith("pruning old deliveries failed: the database file is")
    assert "restore it from a backup" in said.getMessage()


def _damage_root_page(q: DeliveryQueue, path: Path, name: str) -> None:
    """Overwrite the first page of table or index `name` (the whole of a small one), as a
    failing disk may: damage outside the rows, which no row can be set aside for."""
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    q.db.close()
    damage_root_page(path, name)


# kills: bot/retention.py:Retention.prune a store's pruning that failed leaving the deliveries
#   deleted before it uncounted (review_notes_deliveries_pruned_total) and unsaid
# kills: bot/retention.py:Retention._prune_also a store's pruning that failed stopping the ones
#   after it (the idle PRs' file lists kept for good)
def test_a_stores_pruning_that_fails_stops_neither_the_others_nor_the_deliveries_count(
    tmp_path, caplog
):
    # A damaged page of the reply records' table fails their pruning at every pass. It
    # stopped the pass: the done deliveries deleted before it were never counted nor said
    # (pass after pass), and the file lists of idle PRs, pruned after it, were kept for
    # good. Each store's pruning runs now, and the pass still fails, said as before.
    from bot.prstate import PRState, PRStore
    from bot.retention import Pruning

    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    finished_at(q, "old-done", "done", OLD)
    prs.record_reply("o/r", 1, "reply-key", 5, "gone")
    prs.put(PRState("o/r", 2, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    q.db.execute("UPDATE pr_replies SET posted_at = ?", (OLD,))
    _damage_root_page(q, tmp_path / "q.sqlite3", "pr_replies")
    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    pruned: list[tuple[State, int]] = []
    prunings = [Pruning("replies", prs.prune_replies), Pruning("lists", prs.prune_files)]
    retention = Retention(q, 14, lambda *counted: pruned.append(counted), prunings)
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        with pytest.raises(sqlite3.DatabaseError, match="malformed"):
            retention.prune(CUTOFF)
    assert pruned == [(State.DONE, 1)] and q.get("old-done") is None
    assert prs.get("o/r", 2).files is None  # pruned after the one that failed
    [said] = caplog.records
    assert said.getMessage().startswith("pruned 1 done delivery received and 0 failed")
    assert ", and 1 lists (" in said.getMessage()
    caplog.clear()
    with caplog.at_level(logging.ERROR, logger="bot.retention"):
        retention.round()  # said as the replies' failure, not the deliveries'
    [said] = caplog.records
    assert said.getMessage().startswith("pruning replies failed: the database file is damaged")


# kills: bot/retention.py:Retention._prune_also the batches a store's pruning finished before
#   it failed left out of the INFO line
def test_the_batches_a_stores_pruning_finished_before_it_failed_are_said(tmp_path, caplog):
    # A read-only remount in the middle of a pass: the store's first batch was pruned,
    # its second refused. The first went unsaid, as if nothing was pruned.
    from bot.prstate import PRState, PRStore
    from bot.retention import Pruning

    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    for number in (1, 2):
        prs.put(PRState("o/r", number, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))

    def then_remounted(before: str, limit: int) -> int:
        pruned = prs.prune_files(before, limit)
        q.db.execute("PRAGMA query_only = ON")  # the next batch: a read-only file
        return pruned

    retention = Retention(q, 14, lambda *_: None, [Pruning("lists", then_remounted)])
    retention.BATCH = 1
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["INFO", "ERROR"], said
    assert said[0][1].startswith("pruned 0 done deliveries received and 0 failed")
    assert ", and 1 lists (" in said[0][1]
    assert said[1][1] == "pruning lists failed; tried again each pass"


# kills: bot/retention.py:Retention.round (hand) a store's failure outside the database (a
#   bug) said without its traceback, or as the database's failing
def test_a_stores_pruning_failing_outside_the_database_is_said_with_its_traceback(tmp_path, caplog):
    from bot.retention import Pruning

    def buggy(before: str, limit: int) -> int:
        raise KeyError("files")

    q = queue_at(tmp_path)
    finished_at(q, "old", "done", OLD)
    outcomes: list[str] = []
    retention = Retention(
        q, 14, lambda *_: None, [Pruning("lists", buggy)], on_pass=outcomes.append
    )
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    said = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records]
    assert said[1:] == [("ERROR", "pruning lists failed", True)], said
    assert said[0][1].startswith("pruned 1 done delivery received") and outcomes == ["failed"]


# kills: bot/retention.py:Retention._pass (hand) the done deliveries deleted before their
#   pruning failed left uncounted (review_notes_deliveries_pruned_total) and unsaid
def test_the_deliveries_deleted_before_their_pruning_failed_are_counted(tmp_path, caplog):
    q = queue_at(tmp_path)
    for did in ("old-1", "old-2"):
        finished_at(q, did, "done", OLD)
    pruned: list[tuple[State, int]] = []
    retention = Retention(q, 14, lambda *counted: pruned.append(counted))
    retention.BATCH = 1
    prune_done = retention.prune_done

    def then_remounted(before_seq: int, limit: int) -> int:
        deleted = prune_done(before_seq, limit)
        q.db.execute("PRAGMA query_only = ON")  # the next batch: a read-only file
        return deleted

    retention.prune_done = then_remounted
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    assert pruned == [(State.DONE, 1)]
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["INFO", "ERROR"], said
    assert said[0][1].startswith("pruned 1 done delivery received and 0 failed")


# kills: bot/retention.py:Retention._pass the deliveries' pruning that failed stopping the
#   stores' (a damaged index of the deliveries: every PR's file list kept for good)
def test_a_deliveries_pruning_that_fails_stops_not_the_stores(tmp_path, caplog):
    from bot.prstate import PRState, PRStore
    from bot.retention import Pruning

    q = queue_at(tmp_path)
    finished_at(q, "old", "done", OLD)
    PRStore(q.db).put(PRState("o/r", 1, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    _damage_root_page(q, tmp_path / "q.sqlite3", "deliveries_state")
    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    retention = Retention(q, 14, lambda *_: None, [Pruning("lists", prs.prune_files)])
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    assert prs.get("o/r", 1).files is None
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["INFO", "ERROR"], said
    assert ", and 1 lists (" in said[0][1]
    assert said[1][1].startswith("pruning old deliveries failed: the database file is damaged")


# kills: bot/prstate.py:PRStore.prune_files a PR's damaged row stopping the pruning of every
#   file list at each pass (the oldest idle PR's: met first, for good)
# kills: bot/feedback_store.py:FeedbackStore.prune_numbering a PR's damaged row read for when it
#   was handled, failing the pruning of every kept number at each pass
# kills: bot/server.py:Runtime._prunings (hand) the kept numbers pruned without the PR states'
#   store, which sets the damaged row aside
def test_a_prs_damaged_state_is_set_aside_and_the_other_prs_pruned(
    tmp_path, fake_github, app_key, monkeypatch, caplog
):
    # A PR's row holds its last file list (some KB, up to 300 KB: most of the file's pages),
    # so it is where a failing disk most likely meets the PR state. Retention's pruning of
    # the file lists, the oldest idle PR's first, and of the numbers kept for `/notes
    # wrong` comments (which read when their PR was handled, past the list) failed on it
    # at each pass: no PR's file list was forgotten again, and the file grew for good. The
    # row is set aside now, as a damaged delivery's is, and named once.
    from bot.prstate import PRState
    from tests.webhook_kit import app_settings, clean_env

    clean_env(monkeypatch)
    settings = app_settings(tmp_path, fake_github, app_key)
    rt = build_runtime(settings)
    prs, feedback = rt.ctx.prs, rt.ctx.feedback
    pad = (f"vllm/{'Z' * 20_000}.py",)  # a long list's pages (one long path: a test's)
    for number, files in ((1, pad), (2, ("a.py",)), (3, ("b.py",))):
        prs.put(PRState("o/r", number, files_sha="abc", files=files))
        feedback.keep_numbering("o/r", number, f"comment:{number}", ("note-a",))
    rt.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    rt.db.execute("UPDATE numbering SET at = ?", (OLD,))
    rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")
    rt.db.close()
    rt.ctx.github.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    rt = build_runtime(settings)
    prs = rt.ctx.prs
    with caplog.at_level(logging.INFO):
        rt.retention.round()
        rt.retention.round()  # (what is set aside is met no more)
    numbered = [tuple(r) for r in rt.db.execute("SELECT repo, number FROM numbering")]
    lists = [prs.get("o/r", n).files for n in (2, 3)]
    rt.db.close()
    rt.ctx.github.close()
    assert lists == [None, None] and numbered == [("o/r", 1)]  # its own kept: not known
    said = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage()[:59] for r in said] == [
        "PR o/r#1: SQLite cannot read its state (database disk image"
    ], [r.getMessage() for r in said]
    assert "restore it from a backup" in said[0].getMessage()


# kills: bot/prstate.py:PRStore.past_damage (hand) the batch run once only past the rows set
#   aside: the next damaged PR it then met failed the pass
# kills: bot/prstate.py:PRStore.prune_files (hand) the search not leaving out the rows set aside
#   (the first found again, no new one: the pass failed)
# kills: bot/feedback_store.py:FeedbackStore.prune_numbering (hand) the search not leaving out
#   the rows set aside (a PR set aside by the file lists' pruning named again)
def test_damaged_prs_one_after_another_are_each_set_aside_once(tmp_path, caplog):
    from bot.feedback_store import FeedbackStore
    from bot.prstate import PRState, PRStore

    q = queue_at(tmp_path)
    prs, feedback = PRStore(q.db), FeedbackStore(q.db)
    long = (f"vllm/{'Z' * 20_000}.py",)
    for number, files in ((1, long), (2, long), (3, ("a.py",)), (4, None)):
        notes = ("Z" * 20_000,) if files is None else ()  # (before when it was handled)
        prs.put(PRState("o/r", number, notes=notes, files_sha="abc", files=files))
        at = f"{OLD[:-2]}{number}Z"  # handled one after another
        q.db.execute("UPDATE pr_state SET updated_at = ? WHERE number = ?", (at, number))
        feedback.keep_numbering("o/r", number, f"comment:{number}", ("note-a",))
    q.db.execute("UPDATE numbering SET at = ?", (OLD,))
    q = _reopened_damaged(q, tmp_path)
    prs, feedback = PRStore(q.db), FeedbackStore(q.db)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"):
        assert prs.prune_files(CUTOFF, 1) == 1  # a batch of one: 1, then 2, then 3
        assert prs.get("o/r", 3).files is None
        assert feedback.prune_numbering(CUTOFF, 10, prs) == 1  # 3's
    named = [r.getMessage().split(":")[0] for r in caplog.records]
    assert named == ["PR o/r#1", "PR o/r#2", "PR o/r#4"]


# kills: bot/prstate.py:PRStore._pr_of no name for a PR's damaged row whose name is unreadable too
def test_a_prs_damaged_row_whose_name_is_unreadable_too_is_named_by_its_place(tmp_path, caplog):
    from bot.prstate import PRState, PRStore

    q = queue_at(tmp_path)
    PRStore(q.db).put(PRState(f"o/{'z' * 20_000}", 1, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    q.keep_sweep_since("2030-01-01T00:00:00Z")
    q.db.close()
    break_overflow_chain(tmp_path / "q.sqlite3", b"z" * 200)  # (names are kept lower case)
    q = queue_at(tmp_path)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"):
        assert PRStore(q.db).prune_files(CUTOFF, 10) == 0
    [said] = caplog.records
    assert said.getMessage().startswith("PR of row 1 (its name unreadable): SQLite cannot read")


# kills: bot/prstate.py:PRStore._pr_of a PR on a damaged page named by its rowid, though the
#   key's index still names it
def test_prs_on_a_damaged_page_of_their_table_are_named_through_the_key_index(tmp_path, caplog):
    # A whole page of pr_state damaged (a failing disk): none of its rows reads, and
    # each PR set aside was said as "PR of row N (its name unreadable)", in the log and
    # in /healthz, though the index of the table's key (repo, number) still names it.
    from bot.prstate import PRState, PRStore

    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    for number in (1, 2):
        prs.put(PRState("o/r", number, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    _damage_root_page(q, tmp_path / "q.sqlite3", "pr_state")
    prs = PRStore(queue_at(tmp_path).db)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"):
        assert prs.prune_files(CUTOFF, 10) == 0
    named = [r.getMessage().split(": SQLite")[0] for r in caplog.records]
    assert named == ["PR o/r#1", "PR o/r#2"]
    assert list(prs.set_aside) == ["o/r#1", "o/r#2"]


# kills: bot/prstate.py:PRStore._pr_of the key's index read past the PR's entry, to a
#   damaged page of it: the PR named by its rowid
def test_prs_on_a_damaged_page_are_named_though_a_later_page_of_the_key_index_is_damaged(
    tmp_path, caplog
):
    # A page of pr_state damaged and the last of its key's index: each PR set aside was
    # said as "PR of row N (its name unreadable)", the index read to its end for it,
    # though its entry comes before the damaged page. It is read to the entry only.
    from bot.prstate import KEY_INDEX, PRState, PRStore

    q, repo = queue_at(tmp_path), f"o/{'r' * 60}"  # (names long enough for pages of them)
    prs = PRStore(q.db)
    for number in range(1, 301):  # (the key's order is the rowids')
        prs.put(PRState(repo, number, files_sha="abc", files=("a.py",)))
    q.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    q.keep_sweep_since("2030-01-01T00:00:00Z")
    q.db.close()
    path = tmp_path / "q.sqlite3"
    table, index = leaf_pages(path, "pr_state"), leaf_pages(path, KEY_INDEX)
    assert len(table) >= 2 and len(index) >= 2
    overwrite(path, table[0])
    overwrite(path, index[-1])
    prs = PRStore(queue_at(tmp_path).db)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"):
        prs.prune_files(CUTOFF, 10)
    named = [r.getMessage().split(": SQLite")[0] for r in caplog.records]
    assert named and named == [f"PR {repo}#{n}" for n in range(1, len(named) + 1)], named


# kills: bot/prstate.py:PRStore._set_aside_unreadable damage outside the PR rows taken for a row
#   set aside: the step run again
def test_damage_outside_the_pr_rows_fails_the_prs_step_once_not_run_again(tmp_path):
    from bot.prstate import IDLE_LISTS, PRStore

    q = queue_at(tmp_path)
    prs = PRStore(q.db)
    prs.record_reply("o/r", 1, "reply-key", 5, "gone")
    q.db.execute("UPDATE pr_replies SET posted_at = ?", (OLD,))
    _damage_root_page(q, tmp_path / "q.sqlite3", "pr_replies")
    prs = PRStore(queue_at(tmp_path).db)
    steps = []

    def replies() -> int:
        steps.append(1)
        return prs.prune_replies(CUTOFF, 10)

    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        prs.past_damage(replies, lambda: IDLE_LISTS.format(kept="TRUE"), (CUTOFF, 10))
    assert steps == [1]


# kills: bot/retention.py:Retention.prune (hand) a done batch not run again past the damaged row
#   it met (the cut's bisection read past it: the row was never one of its probes)
# kills: bot/retention.py:Retention.prune (hand) the failed batches not run again past it
# kills: bot/retention.py:Retention._past_damage (hand) only done and failed rows searched (a
#   damaged pending row the bisection probes stopped the pass)
@pytest.mark.parametrize(
    ("rows", "pruned"),
    [
        ((("broken", "done"), "old", "old", "old", "new"), {State.DONE: 3, State.FAILED: 0}),
        ((("broken", "failed"), "old", "old", "old", "new"), {State.DONE: 3, State.FAILED: 0}),
        (("old", "old", ("broken", "pending"), "new"), {State.DONE: 2, State.FAILED: 0}),
    ],
)
def test_retention_goes_past_a_damaged_row_whichever_step_meets_it(tmp_path, rows, pruned):
    # The cut's bisection reads a few rows' times (here the 3rd, then the 5th, the 4th),
    # each batch the rows it deletes: whichever meets the damaged row sets it aside
    q = queue_at(tmp_path)
    for i, row in enumerate(rows):
        if isinstance(row, tuple):
            _damaged_at(q, row[0], row[1], OLD)
        else:
            finished_at(q, f"{row}-{i}", "done", OLD if row == "old" else NEW)
    q = _reopened_damaged(q, tmp_path)
    assert Retention(q, 14, lambda *_: None).prune(CUTOFF) == pruned
    assert list(q.set_aside) == ["broken"]


# kills: bot/queue.py:DeliveryQueue.enqueue_many (hand) only failed rows searched (a done one
#   redelivered failed the transaction)
# kills: bot/queue.py:DeliveryQueue._unreadable_rows (hand) the ids not kept to: the whole table
#   read at intake, a damaged row of no redelivery set aside there
@pytest.mark.parametrize("state", ["done", "failed"])
def test_a_redelivery_of_a_damaged_row_is_set_aside_whatever_its_state(tmp_path, state):
    # GitHub's Redeliver button works on any delivery of its log, a done one's too: a
    # row SQLite cannot read back fails its re-queue (the row's state lies past its
    # payload) whatever it holds. Only the burst's own rows are looked at: a damaged
    # row elsewhere is the claim's or retention's to meet, not a reason to read the
    # whole table while GitHub waits for its answer.
    q = queue_at(tmp_path)
    _damaged_at(q, "broken", state, OLD)
    _damaged_at(q, "elsewhere", "pending", OLD)
    q = _reopened_damaged(q, tmp_path)
    items = [Incoming(did, "pull_request", "opened", "{}", "o/r", 2) for did in ("broken", "new")]
    assert q.enqueue_many(items) == [Enqueued.SET_ASIDE, Enqueued.QUEUED]
    assert list(q.set_aside) == ["broken"]


# kills: bot/retention.py:Retention._pass_failed a pass failing on a read-only file said in a
#   traceback each hour, not once then a line each pass
# kills: bot/retention.py:Retention.round (hand) the pass that worked again not said (nor the
#   next failure's traceback)
# kills: bot/retention.py:Retention._pass_failed the time failing counted from the pass count
# kills: bot/retention.py:Retention.round (hand) a line naming the first pruning that failed only,
#   or the deliveries whatever failed
# kills: bot/retention.py:Retention._pass_worked (hand) the recovery naming the deliveries only
def test_retention_on_a_read_only_file_says_one_traceback_then_a_line_a_pass_then_the_recovery(
    tmp_path, caplog
):
    # A read-only remount (SQLite's "attempt to write a readonly database", as
    # query_only makes it) or a full disk fails every pass until someone fixes it: each
    # one logged a traceback, every hour, for days. As the workers say a failing claim:
    # the first with its traceback, then a line a pass with the count, then the recovery.
    # Each line names what failed: here the deliveries' pruning and a store's.
    from bot.prstate import PRStore
    from bot.retention import Pruning

    q = queue_at(tmp_path)
    finished_at(q, "old", "done", OLD)
    hours = iter(range(0, 20 * 3600, 3600))  # a pass an hour
    prs = PRStore(q.db)
    also = [Pruning("file lists", prs.prune_files), Pruning("replies", prs.prune_replies)]
    retention = Retention(q, 14, lambda *_: None, also, clock=lambda: next(hours))
    q.db.execute("PRAGMA query_only = ON")
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        for _ in range(3):
            retention.round()
        q.db.execute("PRAGMA query_only = OFF")
        retention.round()
        q.db.execute("PRAGMA query_only = ON")
        retention.round()  # a new failure: its traceback again
        q.db.execute("PRAGMA query_only = OFF")
        retention.round()  # after one failed pass: said as one
    said = [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records]
    assert [(level, tb) for level, _, tb in said] == [
        ("ERROR", True),
        ("ERROR", False),
        ("ERROR", False),
        ("INFO", False),  # what it pruned
        ("WARNING", False),
        ("ERROR", True),
        ("WARNING", False),
    ], said
    what = "pruning old deliveries, file lists and replies"
    assert said[0][1] == f"{what} failed; tried again each pass"
    assert said[2][1] == (
        f"{what} still failing: 3 passes in 7200s;"
        " the last: OperationalError: attempt to write a readonly database"
    )
    assert said[4][1] == f"{what} works again, after 3 failed passes in 10800s"
    assert said[6][1] == f"{what} works again, after 1 failed pass in 3600s"
    assert q.get("old") is None


# kills: bot/retention.py:Retention.round a failed pass not counted (only its log said it)
# kills: bot/retention.py:Retention.round (hand) a pass that worked counted failed, or not at all
# kills: bot/server.py:Runtime.__post_init__ (hand) retention's passes not given to the metric
def test_retention_passes_are_counted_by_outcome_in_the_metrics(tmp_path):
    # An operator alerts on /metrics, not on the log: a pass that fails (here on a file
    # SQLite may not write, as on a read-only remount) was only logged, so an old file's
    # growth went by unseen until the disk filled.
    from tests.test_observability import samples, value
    from tests.webhook_kit import make_settings

    rt = build_runtime(make_settings(tmp_path))
    try:
        rt.db.execute("PRAGMA query_only = ON")
        rt.retention.round()
        rt.retention.round()
        rt.db.execute("PRAGMA query_only = OFF")
        rt.retention.round()
        found = samples(rt.ctx.metrics.render().decode())
    finally:
        rt.db.close()
        rt.ctx.github.close()
    passes = "review_notes_retention_passes_total"
    assert value(found, passes, outcome="failed") == 2
    assert value(found, passes, outcome="done") == 1


# kills: bot/queue.py:DeliveryQueue.enqueue_many a PR's latest same-body row damaged refusing
#   every later pull_request delivery of the PR (its rows not searched)
# kills: bot/queue.py:_repeats_latest the row set aside read again (each delivery of its PR 500)
def test_a_prs_damaged_latest_pull_request_row_does_not_refuse_its_next_deliveries(tmp_path):
    # Each pull_request delivery is compared with its PR's latest (a body GitHub sends
    # twice only with another between), reading that row's hash, which lies past its
    # payload: a failing disk that damaged it made every later pull_request delivery of
    # the PR fail to be stored (500), whoever sent it, for good. It is set aside now, and
    # the one before it is the latest.
    q = queue_at(tmp_path)
    q.enqueue_many([_pr_body("before", "A")])
    q.complete("before")
    pad = '{"pad": "' + "Z" * 20_000 + '"}'
    q.enqueue_many(
        [Incoming("latest", "pull_request", "labeled", pad, "o/r", 1, same_body_sha="B")]
    )
    q.complete("latest")
    q = _reopened_damaged(q, tmp_path)
    assert q.enqueue_many([_pr_body("next", "C"), _pr_body("again", "A")]) == [
        Enqueued.QUEUED,
        Enqueued.QUEUED,  # (A after C: no replay)
    ]
    assert list(q.set_aside) == ["latest"]
    assert q.enqueue_many([_pr_body("replay", "A")]) == [Enqueued.DUPLICATE]


# kills: bot/queue.py:DeliveryQueue.enqueue_many the workers not woken for a burst that queued
#   one beside a duplicate, or woken for a burst of duplicates only
def test_a_burst_wakes_the_workers_when_it_queued_any(tmp_path):
    q = queue_at(tmp_path)
    add(q, "seen")
    before = q.version
    items = [Incoming(did, "pull_request", "opened", "{}", "o/r", 1) for did in ("seen", "new")]
    assert q.enqueue_many(items) == [Enqueued.DUPLICATE, Enqueued.QUEUED]
    assert q.version != before
    before = q.version
    assert q.enqueue_many(items[:1]) == [Enqueued.DUPLICATE]
    assert q.version == before  # nothing to wake them for


# kills: bot/queue.py:DeliveryQueue._set_aside_unreadable damage outside the rows (an index's
#   page) taken for a row set aside: the step run again
def test_damage_outside_the_rows_fails_the_step_once_not_run_again(tmp_path):
    q = queue_at(tmp_path)
    add(q, "d-1")
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    q.db.close()
    path = tmp_path / "q.sqlite3"
    damage_root_page(path, "sqlite_autoindex_deliveries_1")
    q = queue_at(tmp_path)
    steps = []

    def held() -> set[str]:
        steps.append(1)
        return q.held({"d-1"})

    with pytest.raises(sqlite3.DatabaseError, match="malformed"):
        q.past_damage(held, tuple(State))
    assert steps == [1] and q.set_aside == {}


# kills: bot/queue.py:DeliveryQueue.oldest_pending_since a damaged pending row failing the
#   scrape (its updated_at lies past the payload's pages)
def test_the_oldest_pending_wait_sets_a_damaged_pending_row_aside(tmp_path, caplog):
    # /metrics asks for the longest-waiting pending delivery at each scrape; a pending row
    # a failing disk damaged made the question fail, and with it every scrape, until the
    # claim had met the row. The row is set aside as the claim sets it aside.
    q = queue_at(tmp_path)
    _damaged_at(q, "broken", "pending", "2020-01-01T00:00:00.000000Z")  # the oldest
    add(q, "waiting", 2)
    q = _reopened_damaged(q, tmp_path)
    with caplog.at_level(logging.INFO, logger="bot.queue"):
        since = q.oldest_pending_since()
    assert since is not None and since.year != 2020  # the other row's time
    assert list(q.set_aside) == ["broken"]
    assert q.oldest_pending_since() == since and len(caplog.records) == 1  # said once


# kills: bot/queue.py:DeliveryQueue.oldest_pending_since a row not yet due (not_before ahead)
#   counted as waiting since it was queued
# kills: bot/queue.py:DeliveryQueue.oldest_pending_since the wait of a row due since taken
#   from its queueing
def test_the_oldest_pending_wait_counts_from_when_a_delivery_is_due(tmp_path):
    # review_notes_queue_oldest_pending_seconds growing, no rate limit pause under way,
    # reads as a stalled queue: a files re-check queued for 120 s later (files_recheck
    # delays) or a /notes refresh deferred by the flood budget made it grow while the
    # queue was healthy. A delivery waits from when it may be claimed (its not_before).
    from datetime import UTC, datetime

    from bot.times import utcnow

    q = queue_at(tmp_path)
    q.enqueue("later", "pull_request", "opened", {}, "o/r", 1, utcnow(after_s=600), by_bot=True)
    assert q.oldest_pending_since() is None  # nothing may be claimed yet: nothing waits
    q.enqueue("due", "pull_request", "opened", {}, "o/r", 2, utcnow(after_s=-1), by_bot=True)
    q.db.execute("UPDATE deliveries SET updated_at = '2020-01-01T00:00:00.000000Z'")
    since = q.oldest_pending_since()
    assert since is not None and since.year == datetime.now(UTC).year  # due, not queued


# --- which rate-limit put-backs count toward the bound; an older file held elsewhere ---


def _limited_by(*marks):
    """A run that, through the port's hooks, meets `marks` (limit_met, call_paused) and
    is then rate limited for 60 s."""
    from bot.github_port import GitHubError

    def run(delivery):
        for mark in marks:
            mark()
        raise GitHubError("rate limited, asked to wait 60s", transient=True, retry_after=60)

    return run


def _put_back_again(q: DeliveryQueue, workers: Workers, did: str) -> None:
    q.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = ?", (did,))
    assert q.claim().id == did
    workers.run_one(q.get(did))


# kills: bot/workers.py:Workers._defer every put-back counted, a run held back by
#        another call's pause too: a backlog failed together in an hour's limit
def test_a_put_back_held_back_by_another_calls_limit_only_is_not_counted(tmp_path, caplog):
    from bot.github_port import call_paused, limit_met

    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"), max_deferrals=2)
    add(q, "waiting", 1)
    add(q, "later", 1)
    assert q.claim().id == "waiting"
    # its own call limited (a pause met too, later in the run): counted
    refused = Workers(q, _limited_by(call_paused, limit_met, call_paused), 1)
    refused.run_one(q.get("waiting"))
    assert "(1 of 2 put-backs)" in caplog.messages[-1]
    held = Workers(q, _limited_by(call_paused), 1)
    for _ in range(4):  # past max_deferrals: held back only, it is not failed
        _put_back_again(q, held, "waiting")
    waiting = q.get("waiting")
    assert (waiting.state, waiting.deferrals, waiting.waits) == (State.PENDING, 5, 4)
    assert "(4 of 100 put-backs held back by other calls' limits)" in caplog.messages[-1]
    assert q.claim() is None  # its PR's later delivery still waits for it
    _put_back_again(q, refused, "waiting")
    assert "(2 of 2 put-backs)" in caplog.messages[-1]
    _put_back_again(q, refused, "waiting")
    waiting = q.get("waiting")
    assert (waiting.state, waiting.deferrals, waiting.waits) == (State.FAILED, 6, 4)
    assert waiting.last_error.startswith("put back 2 times for rate limits; given up")
    assert q.claim().id == "later"
    # `review-notes retry` starts both counts afresh
    assert q.retry(["waiting"]) == ["waiting"]
    assert (q.get("waiting").deferrals, q.get("waiting").waits) == (0, 0)


# kills: bot/queue.py:DeliveryQueue.defer a put-back held back by others' limits unbounded
def test_put_backs_held_back_by_other_calls_limits_are_bounded_too(tmp_path, caplog):
    from bot.github_port import call_paused
    from bot.queue import MAX_WAITS

    q = queue_at(tmp_path)
    add(q, "d1")
    held = Workers(q, _limited_by(call_paused), 1)
    q.claim()
    held.run_one(q.get("d1"))
    q.db.execute("UPDATE deliveries SET deferrals = ?, waits = ? WHERE id = 'd1'", (150, 99))
    _put_back_again(q, held, "d1")  # the last allowed
    assert (q.get("d1").state, q.get("d1").waits) == (State.PENDING, MAX_WAITS)
    _put_back_again(q, held, "d1")
    d1 = q.get("d1")
    assert (d1.state, d1.deferrals, d1.waits) == (State.FAILED, 151, MAX_WAITS)
    assert d1.last_error.startswith("put back 100 times for other calls' rate limits; given up")
    assert (
        "rate limited after 100 put-backs held back by other calls' limits" in caplog.messages[-1]
    )


def test_what_to_watch_quotes_the_rate_limit_put_back_lines_as_the_workers_write_them(
    tmp_path, caplog
):
    # docs/reliability.md, What to watch: the put-back WARNINGs of a rate limit, quoted
    # with the default put-backs, are the lines written (ID, EVENT, N, k and `...` stand
    # for what varies); the page named only the outage's put-back line
    import re

    from bot.github_port import call_paused, limit_met
    from bot.queue import MAX_DEFERRALS, MAX_WAITS
    from tests.docs_kit import doc

    watch = doc("reliability.md").split("\n## What to watch\n", 1)[1].split("\n## ", 1)[0]
    watch = " ".join(watch.split())
    own = re.search(
        r"`(delivery ID \(EVENT\) put back for Ns (\(k of (\d+) put-backs\)): \.\.\.)`", watch
    )
    assert own and int(own[3]) == MAX_DEFERRALS, "no rate limit put-back line quoted"
    other = f"(k of {MAX_WAITS} put-backs held back by other calls' limits)"
    assert f"`{other}`" in watch, "no put-back held back by others' limits quoted"

    def written(quoted: str) -> str:
        """The quoted line as a pattern of the line `d1`'s put-back writes."""
        for said, meant in (("ID", "d1"), ("EVENT", "pull_request"), ("Ns", "60s")):
            quoted = quoted.replace(said, meant)
        return re.escape(quoted).replace(r"\(k", r"\(\d+").replace(r"\.\.\.", ".+")

    q = queue_at(tmp_path)
    add(q, "d1")
    q.claim()
    Workers(q, _limited_by(limit_met), 1).run_one(q.get("d1"))  # its own call limited
    assert re.fullmatch(written(own[1]), caplog.messages[-1]), caplog.messages[-1]
    _put_back_again(q, Workers(q, _limited_by(call_paused), 1), "d1")  # held back only
    held = written(own[1].replace(own[2], other))
    assert re.fullmatch(held, caplog.messages[-1]), caplog.messages[-1]


def test_a_run_that_says_nothing_of_its_limits_is_counted(tmp_path):
    # a limit the port did not say was another call's (a run outside a GitHub client's
    # hooks) is the delivery's own: counted, as before
    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"), max_deferrals=1)
    add(q, "d1")
    q.claim()
    workers = Workers(q, _limited_by(), 1)
    workers.run_one(q.get("d1"))
    _put_back_again(q, workers, "d1")
    assert (q.get("d1").state, q.get("d1").waits) == (State.FAILED, 0)


# kills: bot/queue.py:DeliveryQueue._add_missing_columns (hand) any error adding a column
#   taken for a read-only file's: a file another process held opened without waits
def test_an_older_file_another_holds_is_not_opened_without_its_new_column(tmp_path, monkeypatch):
    # Only a file SQLite may not write opens without the waits column (a reader's): one
    # locked at the start must say so, or the server would run without the column
    # every put-back for a rate limit writes, once the lock is gone.
    from bot import db as bot_db

    q = queue_at(tmp_path)
    q.db.execute("ALTER TABLE deliveries DROP COLUMN waits")  # the release before's
    q.db.close()
    holder = sqlite3.connect(tmp_path / "q.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 0.1)  # (not the 10 s wait)
    db = Database(tmp_path / "q.sqlite3")
    try:
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            DeliveryQueue(db)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        db.close()


# --- a failing pruning of done or failed deliveries ---


# kills: bot/retention.py:Retention._prune_deliveries one try for both: a failure deleting
#   done deliveries skipped that pass's pruning of failed ones, each pass while it lasted
def test_a_done_deliveries_pruning_that_fails_skips_not_the_failed_ones(tmp_path, caplog):
    q = queue_at(tmp_path)
    finished_at(q, "old-done", "done", OLD)
    finished_at(q, "old-failed", "failed", OLD)
    # SQLite refuses to delete the done row (as an I/O error would), not the failed one
    q.db.execute(
        "CREATE TRIGGER keep_done BEFORE DELETE ON deliveries WHEN old.state = 'done'"
        " BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
    )
    pruned = []
    retention = Retention(q, 14, lambda state, n: pruned.append((state, n)))
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    assert q.get("old-failed") is None and q.get("old-done") is not None
    assert pruned == [(State.FAILED, 1)]
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["WARNING", "INFO", "ERROR"], said
    assert said[1][1].startswith("pruned 0 done deliveries received and 1 failed one last")
    assert said[2][1] == "pruning old done deliveries failed; tried again each pass"


# kills: bot/retention.py:Retention._prune_deliveries the failed ones' pruning that failed
#   named as the deliveries', or not said
def test_a_failed_deliveries_pruning_that_fails_is_named_and_the_done_ones_pruned(tmp_path, caplog):
    q = queue_at(tmp_path)
    finished_at(q, "old-done", "done", OLD)
    finished_at(q, "old-failed", "failed", OLD)
    q.db.execute(
        "CREATE TRIGGER keep_failed BEFORE DELETE ON deliveries WHEN old.state = 'failed'"
        " BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
    )
    retention = Retention(q, 14, lambda *_: None)
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        retention.round()
    assert q.get("old-done") is None and q.get("old-failed") is not None
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["INFO", "ERROR"], said
    assert said[1][1] == "pruning old failed deliveries failed; tried again each pass"


# kills: bot/retention.py:Retention._prune_deliveries both prunings failing said with the
#   failed ones' error, not the first met (the done ones')
def test_both_deliveries_prunings_failing_are_said_as_the_deliveries_with_the_first_error(
    tmp_path, caplog
):
    q = queue_at(tmp_path)
    finished_at(q, "old-done", "done", OLD)
    finished_at(q, "old-failed", "failed", OLD)
    for state in ("done", "failed"):
        q.db.execute(
            f"CREATE TRIGGER keep_{state} BEFORE DELETE ON deliveries WHEN old.state = '{state}'"
            f" BEGIN SELECT RAISE(ABORT, 'cannot delete {state}'); END"
        )
    with caplog.at_level(logging.INFO, logger="bot.retention"):
        Retention(q, 14, lambda *_: None).round()
    [said] = caplog.records
    assert said.getMessage() == "pruning old deliveries failed; tried again each pass"
    assert str(said.exc_info[1]) == "cannot delete done"


# --- when GitHub first sent a delivery a sweep asked for again ---


# kills: bot/queue.py:DeliveryQueue.keep_first_sent the later of two first times kept
def test_a_redelivery_a_sweep_asked_for_keeps_when_github_first_sent_it(tmp_path):
    q = queue_at(tmp_path)
    hours_ago = datetime.now(UTC) - timedelta(hours=5)
    q.keep_first_sent({"swept": hours_ago})
    q.keep_first_sent({"swept": hours_ago + timedelta(hours=1)})  # a later sweep's listing
    q.enqueue_many([Incoming("swept", "issue_comment", "deleted", "{}", "o/r", 1)])
    q.enqueue_many([Incoming("live", "issue_comment", "deleted", "{}", "o/r", 1)])
    swept, live = q.get("swept"), q.get("live")
    assert swept.sent_at == stored_time(hours_ago) == swept.first_sent_at
    assert swept.received_at > swept.sent_at  # arrived now
    assert live.sent_at is None and live.first_sent_at == live.received_at


def test_first_times_github_no_longer_keeps_are_forgotten(tmp_path):
    q = queue_at(tmp_path)
    now = datetime.now(UTC)
    q.keep_first_sent({"old": now - timedelta(hours=KEPT_HOURS, minutes=6)})
    q.keep_first_sent({"new": now - timedelta(hours=KEPT_HOURS - 1)})
    assert [r["id"] for r in q.db.execute("SELECT id FROM first_sent")] == ["new"]


def test_an_older_file_gains_the_first_times_and_its_deliveries_read_none(tmp_path):
    q = queue_at(tmp_path)
    add(q, "old")
    q.db.execute("ALTER TABLE deliveries DROP COLUMN sent_at")
    q.db.execute("DROP TABLE first_sent")
    q.db.close()
    q = queue_at(tmp_path)
    assert q.get("old").sent_at is None and q.get("old").first_sent_at == q.get("old").received_at
    q.keep_first_sent({"new": datetime.now(UTC) - timedelta(hours=1)})
    add(q, "new")
    assert q.get("new").sent_at is not None


def test_a_payload_is_read_back_as_unicode_a_lone_surrogate_replaced(tmp_path):
    # JSON's `\ud800` escape alone is no Unicode: handlers showing or storing it failed
    q = queue_at(tmp_path)
    raw = '{"t": "a\\ud800b", "k\\udc00": ["\\ud83d\\ude00", "C:\\\\ud800"]}'
    q.enqueue("d1", "pull_request", "opened", json.loads(raw), "o/r", 1, raw=raw)
    assert q.get("d1").payload == {"t": "a\ufffdb", "k\ufffd": ["\U0001f600", "C:\\ud800"]}


# --- the wall clock stepped back (NTP correcting a clock that ran ahead, a VM restored) ---


class SteppedClock:
    """The wall clock the queue reads (`bot.queue.utcnow`), moved by the test."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self, after_s: float = 0.0) -> str:
        return stored_time(self.at + timedelta(seconds=after_s))


def stepped_clock(monkeypatch: pytest.MonkeyPatch) -> SteppedClock:
    clock = SteppedClock(datetime(2030, 1, 1, 12, tzinfo=UTC))
    monkeypatch.setattr(queue_module, "utcnow", clock)
    return clock


def test_a_clock_stepped_back_does_not_stretch_an_outages_pause_by_the_step(tmp_path, monkeypatch):
    # the pause's time was set on the clock before the step: read on the clock after it,
    # the whole queue stood still for the step's two hours on top of its minute
    clock = stepped_clock(monkeypatch)
    q = queue_at(tmp_path)
    add(q, "down", 1)
    add(q, "other", 2)
    assert q.claim().id == "down"
    assert q.put_back("down", 60, "502 Bad Gateway") is not None  # paused for a minute
    assert q.claim() is None
    clock.at -= timedelta(hours=2)
    probe = q.claim()
    assert probe is not None and probe.probe  # one delivery tries GitHub, as after the minute
    assert q.claim() is None  # and one at a time, as ever
    assert q.put_back(probe.id, 60, "502 Bad Gateway") is None
    assert q.outage_paused_until() == clock(60)  # a pause on the clock as it reads now
    clock.at += timedelta(seconds=61)
    assert q.claim() is not None


def test_a_clock_stepped_back_does_not_hold_a_deferred_delivery_and_its_pr_for_the_step(
    tmp_path, monkeypatch
):
    clock = stepped_clock(monkeypatch)
    q = queue_at(tmp_path)
    add(q, "limited", 1)
    add(q, "next", 1)
    q.enqueue("update", "issue_comment", "created", {}, "o/r", 2, not_before=clock(30))
    assert q.claim().id == "limited"
    assert q.defer("limited", 60, "rate limited")
    assert q.claim() is None  # the PR's next event waits for it; the update for its time
    clock.at -= timedelta(hours=2)
    assert {q.claim().id, q.claim().id} == {"limited", "update"}  # not two hours later
    q.complete("limited")
    assert q.claim().id == "next"


# kills: bot/queue.py:DeliveryQueue._claim the step's minute of slack left out
def test_a_clock_stepped_back_by_seconds_runs_no_wait_early(tmp_path, monkeypatch):
    # NTP's routine corrections step a clock back by a fraction of a second: no reason to
    # run each delivery waiting, or probe GitHub in an outage, before its time
    clock = stepped_clock(monkeypatch)
    q = queue_at(tmp_path)
    add(q, "down", 1)
    add(q, "limited", 2)
    assert q.claim().id == "down" and q.claim().id == "limited"
    assert q.put_back("down", 60, "502 Bad Gateway") is not None
    assert q.defer("limited", 60, "rate limited")
    clock.at -= timedelta(seconds=50)
    assert q.claim() is None
    assert q.outage_paused_until() == clock(110)  # as it was set


def test_a_delivery_put_back_waits_its_time_on_a_clock_that_did_not_step(tmp_path, monkeypatch):
    clock = stepped_clock(monkeypatch)
    q = queue_at(tmp_path)
    add(q, "limited", 1)
    assert q.claim().id == "limited"
    assert q.defer("limited", 60, "rate limited")
    clock.at += timedelta(seconds=59)
    assert q.claim() is None
    clock.at += timedelta(seconds=1)
    assert q.claim().id == "limited"

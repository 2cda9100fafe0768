"""The durable delivery queue.

A verified webhook delivery is inserted here before GitHub gets its answer, so a
crash loses nothing. Workers claim deliveries atomically; deliveries for the same
PR (`pr_key`) run one at a time in arrival order, different PRs in parallel.
A delivery left `processing` by a killed process goes back to `pending` on start.
A delivery may wait for a time (`not_before`): slash commands queue their
coalesced comment update that way, so it survives a restart like any delivery.
A delivery GitHub rate limited is put back to wait so too (`defer`), and one GitHub
failed in an outage (5xx, network: `put_back`); until it has run, no later delivery of
its PR is claimed. An outage pauses the whole queue (`github_outage`) until GitHub
answers a call made after it began (one delivery run alone, or one in hand then).
Workers (bot/workers.py) drain it; bot/retention.py deletes finished deliveries.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from collections.abc import Callable, Collection, Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

import orjson

from bot.db import (
    DAMAGED_FIX,
    DamagedRows,
    Database,
    is_damaged,
    is_read_only,
    not_in,
    read_through_indexes,
)
from bot.github_port import repository_id
from bot.json_unicode import escapes_a_surrogate, valid_unicode
from bot.redelivery import CLOCK_SLACK, KEPT_HOURS
from bot.terminal import count_of
from bot.times import STORED_TIME, stored_time, utcnow

log = logging.getLogger(__name__)

T = TypeVar("T")

# A delivery interrupted by this many crashes is given up, so a poison payload
# cannot crash-loop the server. Only interruptions count (`interruptions`), not
# runs that ended in an ordinary failure and were queued again (`attempts`).
MAX_INTERRUPTIONS = 3
# A delivery put back this many times for a rate limit its own calls met (`defer`;
# counted since it was queued or last retried, whatever its runs did meanwhile) fails
# instead: a limit that lasts this long needs a look. At the secondary back-off's pace
# (1, 2, 4, then 5 minutes apart) fourteen come to 62 minutes: GitHub's hourly limit on
# content creation refuses for less than its hour. The default of `max_deferrals` in
# config/bot.toml (the server's queue takes the setting).
MAX_DEFERRALS = 14
# Put-backs of a run held back only by the pause another call's limit began (it met
# none itself) are not counted so: a backlog waits out an hour's limit met by the
# delivery at its head. They are bounded too, lest a limit that never ends keep a
# delivery for ever: at the secondary back-off's shortest wait, a minute, 100 come to
# over an hour and a half.
MAX_WAITS = 100
# A wait (`not_before`, an outage's pause) set later than this far past the wall clock's
# reading now was timed on a clock since stepped back (`DeliveryQueue.claim`): over. A
# smaller step (NTP's routine corrections) only makes a wait that much longer.
CLOCK_STEP_SECONDS = 60.0
# How long a claim waits for another process's write lock (`DeliveryQueue.claim`), in
# place of the connection's 10 s: the wait held the Database's in-process lock (it lets
# it go between tries now: `Database.tx`), and a webhook's write waited behind each
# worker's claim in turn, then its own 10 s (28 s, on the event loop: GitHub gives up at
# 10 s). A claim refused is tried at the worker's next poll, logged as a fault only once
# it lasts (`workers.Failures`): a short write of another process (`review-notes retry`)
# is waited out.
CLAIM_BUSY_TIMEOUT_SECONDS = 0.2
# The same for what a worker writes as a run ends (its outcome: done, failed, put back,
# handed back; an outage's end): the worker tries an outcome again until it is stored
# (`workers.Workers._record`). It waited the connection's 10 s at each try, and every
# write of the process waited behind it.
OUTCOME_BUSY_TIMEOUT_SECONDS = CLAIM_BUSY_TIMEOUT_SECONDS
# A failed delivery asked for again (GitHub's redelivery, `review-notes retry`): pending,
# with clean counts of interruptions and of put-backs.
# A release before `waits` (a rollback's `review-notes retry`) cleared deferrals only: the
# waits left are more than the put-backs they are part of, and are from before it. Read
# as at most the deferrals, they start afresh with them.
_WAITS = "MIN(waits, deferrals)"
_REQUEUE = (
    "UPDATE deliveries SET state = 'pending', updated_at = ?, interruptions = 0,"
    " deferrals = 0, waits = 0, outages = 0 WHERE state = 'failed'"
)

# The index SQLite keeps of deliveries' ids (UNIQUE), with each row's seq: a delivery
# whose row does not read (a damaged page of the table) is named from it alone.
ID_INDEX = "sqlite_autoindex_deliveries_1"
SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    id          TEXT NOT NULL UNIQUE,             -- X-GitHub-Delivery
    event       TEXT NOT NULL,                    -- X-GitHub-Event
    action      TEXT,
    payload     TEXT NOT NULL,
    repo        TEXT,
    pr_number   INTEGER,
    pr_key      TEXT,                             -- "owner/name#N": work on one PR is serial
    state       TEXT NOT NULL CHECK (state IN ('pending', 'processing', 'done', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,      -- runs started (claims)
    interruptions INTEGER NOT NULL DEFAULT 0,    -- of which a process died while processing
    deferrals   INTEGER NOT NULL DEFAULT 0,      -- put back for a rate limit (since retried)
    waits       INTEGER NOT NULL DEFAULT 0,      -- of which held back by others' limits only
    outages     INTEGER NOT NULL DEFAULT 0,      -- put back as GitHub failed (5xx, network;
                                                  -- since retried)
    last_error  TEXT,
    received_at TEXT NOT NULL,
    updated_at  TEXT NOT NULL,
    not_before  TEXT,                             -- claim no earlier (utcnow format); NULL: now
    body_sha    TEXT,                             -- sha256 of a body stored once (a comment's,
                                                  -- a review's): any copy is a replay
    same_body_sha TEXT,                           -- sha256 of a body GitHub may send twice
                                                  -- (Route.same_bodies, pull_request): a
                                                  -- replay only right after itself on its PR
    sent_at     TEXT,                             -- when GitHub first sent it, for one a
                                                  -- sweep asked for again (first_sent);
                                                  -- NULL: received_at
    by_bot      INTEGER NOT NULL DEFAULT 0        -- queued by the bot itself (a files
                                                  -- re-check, a deferred update), not GitHub
);
CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries (state, seq);
CREATE INDEX IF NOT EXISTS deliveries_pr ON deliveries (pr_key, state);
-- where the next sweep of GitHub's delivery log starts (bot.redelivery.Sweeps), kept so
-- that a server killed in the middle of one, or run again after a rollback, asks for
-- no less: the newest delivery stored is no measure then
CREATE TABLE IF NOT EXISTS redelivery (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- the deliveries a dry run received (answered, left queued or failed), kept as the
-- same file goes live (GitHub sent those of them its delivery log lists: the dry run
-- had the App's secret); the sweep that finds one there runs it again
-- (DeliveryQueue.run_again), as its comment was never posted
CREATE TABLE IF NOT EXISTS dry_run_answered (
    id    TEXT PRIMARY KEY
);
"""
# When GitHub first sent each event a sweep asks for again (its delivery log's first
# attempt, utcnow format), kept from the ask to the redelivery's arrival, which takes it
# as sent_at: an event GitHub could not deliver while the server was down reaches us
# hours after it happened (bot.deletion_events dates a deletion by it). Made with the
# columns an older file gains (a read-only one of the release before opens without it).
FIRST_SENT = """
CREATE TABLE IF NOT EXISTS first_sent (
    id    TEXT PRIMARY KEY,
    at    TEXT NOT NULL
);
-- GitHub down (DeliveryQueue.put_back): no delivery is claimed before `until` (utcnow
-- format), then one at a time (the probe) until a run GitHub answered ends the outage;
-- `since`: when the pause began (NULL: by a release before it was kept)
CREATE TABLE IF NOT EXISTS github_outage (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    until TEXT NOT NULL,
    since TEXT
);
"""
# The rows releases before `by_bot` queued themselves, by the ids and action they gave
# them (bot.pr_events.RECHECK_ID, bot.command_updates.REFRESH_ACTION): marked once, as the
# column is added (and while no sweep has kept where it left off)
_OWN_UNMARKED = (
    "WHERE NOT by_bot AND (id LIKE '%#files-recheck-%' OR action = 'review_notes_refresh')"
)
# What a delivery whose row SQLite cannot read is spared, set aside, by its state
_SET_ASIDE_AS = {
    "pending": "never run; the queue goes on without it",
    "processing": "never run again",
    "failed": "neither listed nor re-queued (`review-notes retry`) nor deleted",
    "done": "never deleted (retention)",
}
# What a delivery a dry run left queued or failed says once the same file went live
SET_ASIDE = "a dry run's, set aside unrun as the file went live: run once GitHub's log lists it"
# A delivery not of a PR whose last pull_request delivery from GitHub closed it
_NOT_CLOSED = """coalesce((
    SELECT p.action FROM deliveries p WHERE p.pr_key = deliveries.pr_key
    AND p.event = 'pull_request' AND NOT p.by_bot ORDER BY p.seq DESC LIMIT 1), '') != 'closed'"""
# On columns an older database gains at start (made after add_missing_columns).
# deliveries_body, named when every body was hashed, now holds those stored once only
# (not renamed: a new unique index would read every payload at start, and again after
# each rollback, which makes the old name again).
INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS deliveries_body ON deliveries (body_sha)
    WHERE body_sha IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_same_body ON deliveries (pr_key, seq)
    WHERE same_body_sha IS NOT NULL;
"""
# A scrape's question: the pending rows only, through deliveries_state (state, seq), not
# the whole table (done rows, kept for days, are most of it); {kept}: not set aside. A row
# waits from when it may be claimed: a files re-check or a deferred refresh (not_before
# ahead) is not a stalled queue. (SQLite's MAX of a NULL is NULL: then updated_at.)
OLDEST_PENDING = (
    "SELECT MIN(COALESCE(MAX(updated_at, not_before), updated_at)) AS at FROM deliveries"
    " WHERE state = 'pending' AND (not_before IS NULL OR not_before <= ?) AND {kept}"
)
# The PR's latest delivery that carries a same_body_sha (deliveries_same_body).
# {kept}: the rows not set aside (DeliveryQueue.not_set_aside).
LATEST_SAME_BODY = (
    "SELECT id, same_body_sha FROM deliveries WHERE pr_key = ? AND same_body_sha IS NOT NULL"
    " AND {kept} ORDER BY seq DESC LIMIT 1"
)
# The places of the rows LATEST_SAME_BODY reads, of the PRs {marks} names, from the index
_SAME_BODY_ROWS = (
    "SELECT seq FROM deliveries INDEXED BY deliveries_same_body"
    " WHERE pr_key IN ({marks}) AND same_body_sha IS NOT NULL"
)
# Rows a step reads, to search for damage (DeliveryQueue.past_damage): SQL selecting their
# places (seq), with its parameters
Among = Sequence[tuple[str, Sequence[str]]]


class State(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    DONE = "done"
    FAILED = "failed"


class Enqueued(StrEnum):
    QUEUED = "queued"
    DUPLICATE = "duplicate"  # seen before and not failed: nothing to do
    REQUEUED = "requeued"  # a redelivery of a failed delivery: try again
    SET_ASIDE = "set_aside"  # a redelivery of one whose row is damaged: never run again


@dataclass(frozen=True)
class Incoming:
    """A verified delivery on its way into the queue; `payload` is its JSON text."""

    id: str
    event: str
    action: str | None
    payload: str
    repo: str | None = None
    pr_number: int | None = None
    not_before: str | None = None  # claim no earlier (utcnow format)
    body_sha: str | None = None  # sha256 of a body stored once: any copy is a duplicate
    # sha256 of a body GitHub may send for two events (a label put back within its
    # second): a duplicate only as the PR's latest such body again (_repeats_latest)
    same_body_sha: str | None = None
    by_bot: bool = False  # queued by the bot itself: no delivery GitHub sent


@dataclass(frozen=True)
class Delivery:
    id: str
    event: str
    action: str | None
    payload: dict[str, Any]
    repo: str | None = None
    pr_number: int | None = None
    state: State = State.PENDING
    attempts: int = 0  # runs started, this one included
    interruptions: int = 0  # runs cut short by the process dying
    deferrals: int = 0  # put back for a rate limit, since queued or last retried
    waits: int = 0  # of which held back by another call's limit only (not counted)
    outages: int = 0  # put back as GitHub failed (5xx, network), since queued or retried
    last_error: str | None = None
    received_at: str = ""
    updated_at: str = ""
    # when GitHub first sent it, for one a sweep asked for again (None: received_at)
    sent_at: str | None = None
    not_before: str | None = None  # claimed no earlier (utcnow format); None: at once
    # claimed as an outage's probe (`claim`): only its run, GitHub answering it, ends the
    # pause (`github_answered`); not a column
    probe: bool = False

    @property
    def first_sent_at(self) -> str:
        """When GitHub first sent this event, as best known: its delivery log's first
        attempt for one a sweep asked for again (GitHub could not deliver it then), else
        when it reached us (a retry keeps that). `utcnow()` format."""
        return self.sent_at or self.received_at


@dataclass(frozen=True)
class Failed:
    """A delivery that ended `failed` without a worker to say so (given up at start,
    deleted by retention): what the log names it by."""

    id: str
    event: str
    repo: str | None
    pr_number: int | None
    last_error: str | None
    failed_at: str


@dataclass(frozen=True)
class Recovered:
    """What `recover` did at start."""

    resumed: int  # back to pending
    given_up: list[Failed]  # interrupted MAX_INTERRUPTIONS times: failed now
    # the end of an outage's pause ended as no delivery waits behind it (None: none)
    pause_ended: str | None = None


def pr_key(repo: str | None, number: int | None) -> str | None:
    return f"{repo.lower()}#{number}" if repo and number is not None else None


@dataclass(frozen=True)
class OwnDelivery:
    """A delivery the bot queues for itself (`DeliveryQueue.enqueue_own`), as `own_delivery`
    names it."""

    id: str
    action: str
    repo: str
    pr_number: int


def own_delivery(action: str, repo: str, pr_number: int, *more: object) -> OwnDelivery:
    """A delivery for the bot to queue for itself, under a unique id: its action, its PR,
    what else tells it apart (`more`), and a random tail, so no two are ever one."""
    parts = [action, f"{repo}#{pr_number}", *map(str, more), uuid.uuid4().hex]
    return OwnDelivery(":".join(parts), action, repo, pr_number)


class DeliveryQueue:
    def __init__(self, db: Database, max_deferrals: int = MAX_DEFERRALS):
        self.db = db
        self.max_deferrals = max_deferrals  # put-backs for a rate limit before failing
        db.script(SCHEMA)
        # An older database lacks columns added since (SCHEMA has them all): not_before,
        # since deferred deliveries; interruptions, since crashes were told apart from
        # other runs (an older database starts every count at 0); body_sha, since a
        # replayed body under a new delivery id was refused; same_body_sha, since a
        # pull_request body was refused only as its PR's latest again; deferrals, since a
        # rate limited delivery was put back rather than failed; waits, since a put-back
        # held back by another call's limit was not counted; sent_at, since a delivery a
        # sweep asked for again kept when GitHub first sent it; outages, since a delivery
        # GitHub failed in an outage was put back rather than failed.
        # why the file could not be brought up to date (SQLite may not write it): said by
        # a write, not SQLite's 'no such column' of the column left out
        self._not_upgraded: sqlite3.OperationalError | None = None
        added = self._add_missing_columns(db)
        # also while no sweep has kept where it left off: an upgrade killed between
        # adding the column and marking the rows left them unmarked
        if "by_bot" in added or self.sweep_since() is None:
            self._mark_own_rows()
        db.script(INDEXES)
        self._changed = threading.Condition()
        self._version = 0  # bumped on every change, so a waiter never misses a wake-up
        # rows SQLite found damaged, read by no one until a restart (claimed, listed,
        # re-queued or pruned): by seq, their delivery ids and the error (`set_aside`)
        self._unreadable = DamagedRows()
        self._setting_aside = threading.Lock()
        # rows a worker left `processing` with no run holding them (`abandon`), by seq:
        # an outage's probe does not wait for them; they run again at the next start
        self._abandoned: set[int] = set()
        # when the outage's pause this process last saw began (github_outage's `since`):
        # a run's end reads the table only when an answer of its may end one
        # (`github_answered`); written under the database's lock, with what it read
        self._pause_since: str | None = None

    def _add_missing_columns(self, db: Database) -> set[str]:
        """The columns added to an older file. None on a file SQLite may not write (a
        backup restored by root that `review-notes retry` lists): the releases before
        lack `waits`, which a reader takes as 0, and `sent_at`, None (`_delivery`), and
        the table FIRST_SENT, which only a sweep and the intake write."""
        try:
            db.script(FIRST_SENT)
            db.add_missing_columns("github_outage", {"since": "TEXT"})
            return db.add_missing_columns(
                "deliveries",
                {
                    "not_before": "TEXT",
                    "interruptions": "INTEGER NOT NULL DEFAULT 0",
                    "body_sha": "TEXT",
                    "same_body_sha": "TEXT",
                    "deferrals": "INTEGER NOT NULL DEFAULT 0",
                    "by_bot": "INTEGER NOT NULL DEFAULT 0",
                    "waits": "INTEGER NOT NULL DEFAULT 0",
                    "sent_at": "TEXT",
                    "outages": "INTEGER NOT NULL DEFAULT 0",
                },
            )
        except sqlite3.OperationalError as exc:
            if not is_read_only(exc):
                raise
            self._not_upgraded = exc
            return set()

    def _mark_own_rows(self) -> None:
        """Mark by_bot the rows an older release queued itself; nothing to write, no
        write (a reader of a read-only file, `review-notes retry` listing, opens it)."""
        if self.db.execute(f"SELECT 1 FROM deliveries {_OWN_UNMARKED} LIMIT 1"):
            self.db.execute(f"UPDATE deliveries SET by_bot = 1 {_OWN_UNMARKED}")

    # --- producer side ---

    def enqueue(
        self,
        delivery_id: str,
        event: str,
        action: str | None,
        payload: dict[str, Any],
        repo: str | None = None,
        pr_number: int | None = None,
        not_before: str | None = None,
        *,
        raw: str | None = None,
        by_bot: bool = False,
    ) -> Enqueued:
        """Add a delivery; `not_before` (a `utcnow()`-format time) makes it wait until then.

        `raw`: the payload's JSON text as received (saves re-encoding it). `by_bot`: the
        bot queues it itself (no delivery of GitHub's, so `last_received` passes it over).
        """
        text = raw if raw is not None else json.dumps(payload)
        item = Incoming(
            delivery_id, event, action, text, repo, pr_number, not_before, by_bot=by_bot
        )
        return self.enqueue_many([item])[0]

    def enqueue_own(self, own: OwnDelivery, payload: dict[str, Any], delay_s: float) -> Enqueued:
        """A `pull_request` delivery the bot queues for itself (`github_port.own_payload`:
        a files re-check, a deferred update, a reply-copies check), due `delay_s` from now."""
        return self.enqueue(
            own.id,
            "pull_request",
            own.action,
            payload,
            own.repo,
            own.pr_number,
            not_before=utcnow(after_s=delay_s),
            by_bot=True,
        )

    def enqueue_many(self, items: Sequence[Incoming], until: float | None = None) -> list[Enqueued]:
        """Store deliveries in one transaction (one commit for a burst); outcome per item.
        `until` (time.monotonic()): refused as locked (`db.is_locked`) when the database's
        locks are not had by then (`Database.tx`).

        A redelivery whose stored row SQLite cannot read back (a failing disk) can be
        neither re-queued nor told apart from a delivery done: its row is set aside
        (`past_damage`), its outcome SET_ASIDE, and the others are stored. It failed the
        whole transaction, every time it was sent again. So does a PR's latest row
        carrying a same_body_sha, which each new one of the PR is compared with
        (`_repeats_latest`): set aside, the one before it is the latest; it failed every
        later pull_request delivery of its PR."""
        ids = sorted({d.id for d in items})
        keys = sorted({k for d in items if d.same_body_sha and (k := pr_key(d.repo, d.pr_number))})
        among = [
            *((f"SELECT seq FROM deliveries WHERE id IN ({_marks(c)})", c) for c in _chunks(ids)),
            *((_SAME_BODY_ROWS.format(marks=_marks(c)), c) for c in _chunks(keys)),
        ]
        step = lambda: self._enqueue_many(items, until)  # noqa: E731
        outcomes = self.past_damage(step, tuple(State), among)
        if any(o in (Enqueued.QUEUED, Enqueued.REQUEUED) for o in outcomes):
            self._notify()
        return outcomes

    def _enqueue_many(self, items: Sequence[Incoming], until: float | None) -> list[Enqueued]:
        now, which, aside = utcnow(), f" AND {self.not_set_aside()}", self._set_aside_ids()
        outcomes = []
        with self.db.tx(until=until) as conn:
            for d in items:
                if _repeats_latest(conn, d, self.not_set_aside()):
                    outcomes.append(Enqueued.DUPLICATE)
                    continue
                cur = conn.execute(
                    # a conflict on the id (a redelivery) or on the body (a replay)
                    "INSERT INTO deliveries (id, event, action, payload, repo, pr_number, pr_key,"
                    " state, received_at, updated_at, not_before, body_sha, same_body_sha, by_bot,"
                    " sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?,"
                    " (SELECT at FROM first_sent WHERE id = ?)) ON CONFLICT DO NOTHING",
                    (
                        d.id,
                        d.event,
                        d.action,
                        d.payload,
                        d.repo,
                        d.pr_number,
                        pr_key(d.repo, d.pr_number),
                        now,
                        now,
                        d.not_before,
                        d.body_sha,
                        d.same_body_sha,
                        int(d.by_bot),
                        d.id,
                    ),
                )
                if cur.rowcount:
                    outcomes.append(Enqueued.QUEUED)
                    continue
                if d.id in aside:
                    outcomes.append(Enqueued.SET_ASIDE)
                    continue
                # Seen before: a redelivery of a failed delivery runs it again, from a clean
                # count of interruptions (someone asked for it, as with `review-notes retry`).
                again = conn.execute(_REQUEUE + which + " AND id = ?", (now, d.id)).rowcount
                outcomes.append(Enqueued.REQUEUED if again else Enqueued.DUPLICATE)
                if _another_body(conn, d):  # read only for a delivery seen before
                    _say_another_body(d, requeued=bool(again))
        return outcomes

    # --- consumer side ---

    def claim(self) -> Delivery | None:
        """Atomically take the oldest pending delivery that is due and whose PR has
        nothing in progress, nor an older delivery put back for a rate limit (`defer`) or
        an outage (`put_back`): a PR's events run in arrival order. (A files re-check,
        queued to wait, is a new delivery: later events of its PR do not wait for it.)
        None while an outage pauses the queue (`put_back`), and while its probe runs: the
        delivery claimed alone once the pause's time has come (`Delivery.probe`).
        A wait (`not_before`, a pause) set a minute or more later than now by the wall
        clock is over (CLOCK_STEP_SECONDS): the clock stepped back since (NTP correcting a
        clock that ran ahead, a VM restored), and would have stretched each wait by the
        step, the whole queue's in an outage.

        A pending row SQLite finds damaged (a failing disk) can be neither claimed nor
        marked failed nor deleted, and the oldest was tried first at every claim: the
        queue stood still. It is set aside (`set_aside`), then the claim tried again."""
        return self.past_damage(self._claim, (State.PENDING,))

    def _claim(self) -> Delivery | None:
        d_skip, p_skip = self.not_set_aside("d.seq"), self.not_set_aside("p.seq")
        running = (
            f"SELECT 1 FROM deliveries WHERE state = 'processing' AND {self.not_set_aside()}"
            f" AND {not_in('seq', self._abandoned.copy())}"
        )
        now, order = utcnow(), "d.seq"
        stepped = utcnow(after_s=CLOCK_STEP_SECONDS)  # set later than this: a clock stepped back
        with self.db.tx(busy_timeout=CLAIM_BUSY_TIMEOUT_SECONDS) as conn:
            outage = conn.execute("SELECT until, since FROM github_outage").fetchone()
            if outage is not None and (outage["since"] or "") > stepped:
                # begun after now: the clock stepped back since (NTP correcting a
                # clock that ran ahead, a VM restored), and the pause, timed on the clock
                # then, would hold the queue for the step too; dated anew, it is over
                conn.execute("UPDATE github_outage SET until = ?, since = ?", (now, now))
                outage = {"until": now, "since": now}
            self._pause_since = None if outage is None else outage["since"]
            if outage is not None:
                if outage["until"] > now or conn.execute(running).fetchone():
                    return None  # paused, or the probe runs: one at a time
                # the probe: the fewest put-backs first, lest one delivery GitHub fails
                # alone (a PR's own 5xx) keep the queue paused through all its waits
                order = "d.outages, d.seq"
            rows = conn.execute(
                f"""
                UPDATE deliveries SET state = 'processing', attempts = attempts + 1,
                    updated_at = ?
                WHERE seq = (
                    SELECT d.seq FROM deliveries d
                    WHERE d.state = 'pending' AND {d_skip} AND
                        (d.not_before IS NULL OR d.not_before <= ?
                            OR d.updated_at > ?) AND (
                        d.pr_key IS NULL OR NOT EXISTS (
                            SELECT 1 FROM deliveries p
                            WHERE p.pr_key = d.pr_key AND {p_skip} AND (p.state = 'processing'
                                OR p.state = 'pending' AND (p.deferrals > 0 OR p.outages > 0)
                                AND p.seq < d.seq)))
                    ORDER BY {order} LIMIT 1)
                RETURNING *
                """,
                (now, now, stepped),
            ).fetchall()
        if not rows:
            return None
        try:
            return _delivery(rows[0], probe=outage is not None)
        except BaseException as exc:
            self._claim_lost(rows[0]["seq"], exc)
            raise

    def _claim_lost(self, seq: int, exc: BaseException) -> None:
        """The claim committed, but what ends a thread (SystemExit, KeyboardInterrupt,
        GeneratorExit) came before its delivery reached the worker: no run began, so it
        is handed back (as `release` does), not left `processing` until the next start
        with its PR's later deliveries and an outage's probe waiting for it. An error of
        ours reading the row (its payload) would come again at every claim, the oldest
        first: it stays `processing`, abandoned (`abandon`), and the next start's
        `recover` counts it an interruption (three give it up)."""
        if not isinstance(exc, Exception):
            try:
                self._release("seq", seq)
                return
            except Exception:  # (the database failing: `exc` is what the worker is told)
                log.exception("delivery #%s: handing it back as its worker stops failed", seq)
        self._abandoned.add(seq)
        self._notify()

    def past_damage(
        self, step: Callable[[], T], states: Collection[State], among: Among | None = None
    ) -> T:
        """`step`'s result; should SQLite find a row it reads damaged ("database disk
        image is malformed": a failing disk), after setting aside every damaged row in
        `states` (of those `among` selects only, when given: a step that reads no others
        need not read the table) (`set_aside`) and running `step` again. A step leaves the
        rows set aside out (`not_set_aside`): a damaged row can be neither read, nor
        changed, nor deleted, and met again at each step it would stop each one."""
        seen = len(self._unreadable)
        try:
            return step()
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc) or not self._set_aside_unreadable(seen, states, among):
                raise
        return step()

    def not_set_aside(self, seq: str = "seq") -> str:
        """An SQL condition leaving out the rows set aside, by their place (`seq`: the
        column as the query names it), which every index holds: SQLite reads no more of
        them (their places are ints: no quoting)."""
        return self._unreadable.not_among(seq)

    def _set_aside_unreadable(
        self, seen: int, states: Collection[State], among: Among | None = None
    ) -> bool:
        """Set aside every row in `states` SQLite cannot read, each said once; whether
        any was set aside since the caller's step began (`seen` were then), by this
        thread or another (the step may have met that one). False: the damage is
        elsewhere."""
        with self._setting_aside:  # two workers failing on one row: one finds it
            self._find_unreadable(states, among)
            return len(self._unreadable) > seen

    def _find_unreadable(self, states: Collection[State], among: Among | None) -> None:
        for state in states:
            for seq, exc in self._unreadable_rows(state, self._unreadable, among):
                if not is_damaged(exc):
                    raise exc
                name = self._id_of(seq)
                self._unreadable.add(seq, name, exc)
                log.error(
                    "delivery %s: SQLite cannot read its row (%s): set aside, %s. The database"
                    " file is damaged: %s",
                    name,
                    exc,
                    _SET_ASIDE_AS[state],
                    DAMAGED_FIX,
                )

    def _unreadable_rows(
        self, state: str, skip: Container[int] = (), among: Among | None = None
    ) -> Iterator[tuple[int, sqlite3.DatabaseError]]:
        """The rows in `state` (but those in `skip`, not read again; of those `among`
        selects only, when given) that SQLite cannot read back whole, oldest first, each
        with its error; read one at a time, so a caller may stop at the first."""
        if among is None:
            rows = self.db.execute(
                "SELECT seq FROM deliveries WHERE state = ? ORDER BY seq", (state,)
            )
        else:  # by the indexes alone: a damaged row's state lies past its payload
            rows = []
            for sql, params in among:
                rows += self.db.execute(
                    "SELECT seq FROM deliveries INDEXED BY deliveries_state WHERE state = ?"
                    f" AND seq IN ({sql})",
                    (state, *params),
                )
            rows.sort(key=lambda r: r["seq"])
        for seq in dict.fromkeys(r["seq"] for r in rows if r["seq"] not in skip):
            try:
                self.db.execute("SELECT * FROM deliveries WHERE seq = ?", (seq,))
            except sqlite3.DatabaseError as exc:
                yield seq, exc

    def _id_of(self, seq: int) -> str:
        """A damaged row's delivery id, from the row or the index of ids, which holds it too."""
        row = read_through_indexes(self.db.execute, "deliveries", "id", "seq", seq, [ID_INDEX])
        return str(row["id"]) if row is not None else f"#{seq} (its id unreadable)"

    def _set_aside_ids(self) -> set[str]:
        return set(self._unreadable.by_name())

    @property
    def set_aside(self) -> dict[str, str]:
        """The deliveries set aside as damaged since the start: id -> error."""
        return self._unreadable.by_name()

    def complete(self, delivery_id: str) -> None:
        self._finish(delivery_id, State.DONE, None)

    def fail(self, delivery_id: str, error: str) -> None:
        self._finish(delivery_id, State.FAILED, error[:2000])

    def _finish(self, delivery_id: str, state: State, error: str | None) -> None:
        with self.db.tx(busy_timeout=OUTCOME_BUSY_TIMEOUT_SECONDS) as conn:
            conn.execute(
                "UPDATE deliveries SET state = ?, last_error = ?, updated_at = ? WHERE id = ?",
                (state, error, utcnow(), delivery_id),
            )
        self._notify()

    def defer(self, delivery_id: str, seconds: float, reason: str, *, counted: bool = True) -> bool:
        """Put a delivery GitHub rate limited back, to be claimed no sooner than `seconds`
        from now; `reason` shows meanwhile as its last error. Not a failure nor an
        interruption. False, and failed with `reason`, when it was put back
        `max_deferrals` times already (counted), or, held back by another call's limit
        only (not `counted`), MAX_WAITS times so."""
        now, error = utcnow(), reason[:2000]
        if counted:
            room, most, why = f"deferrals - {_WAITS} < ?", self.max_deferrals, "rate limits"
        else:
            room, most, why = f"{_WAITS} < ?", MAX_WAITS, "other calls' rate limits"
        with self.db.tx(busy_timeout=OUTCOME_BUSY_TIMEOUT_SECONDS) as conn:
            cur = conn.execute(
                "UPDATE deliveries SET state = 'pending', deferrals = deferrals + 1,"
                f" waits = {_WAITS} + ?, not_before = ?, last_error = ?, updated_at = ?"
                f" WHERE id = ? AND state = 'processing' AND {room}",
                (int(not counted), utcnow(after_s=seconds), error, now, delivery_id, most),
            )
            put_back = cur.rowcount > 0
            if not put_back:
                given_up = f"put back {count_of(most, 'time')} for {why}; given up: {error}"
                conn.execute(
                    "UPDATE deliveries SET state = 'failed', last_error = ?, updated_at = ?"
                    " WHERE id = ? AND state = 'processing'",
                    (given_up[:2000], now, delivery_id),
                )
        self._notify()
        return put_back

    def put_back(self, delivery_id: str, seconds: float, reason: str) -> str | None:
        """Put a delivery GitHub failed in an outage (5xx, network) back, to be claimed no
        sooner than `seconds` from now; `reason` shows meanwhile as its last error. How
        many times, and how long, is the caller's (bot.workers.OutageWaits).

        GitHub is down for every delivery, not this one's alone: the queue pauses
        (`github_outage`, kept in SQLite) until this one is due, rather than each queued
        delivery spending its client's tries on its own; then one delivery runs at a time
        until one GitHub answers (`github_answered`). Only a first put-back begins a
        pause, or one while a pause lasts: put back again after GitHub answered others,
        the failure is its own. Returns when the pause it began ends, None if none."""
        now = utcnow()
        with self.db.tx(busy_timeout=OUTCOME_BUSY_TIMEOUT_SECONDS) as conn:
            row = conn.execute(
                "UPDATE deliveries SET state = 'pending', outages = outages + 1, not_before = ?,"
                " last_error = ?, updated_at = ? WHERE id = ? AND state = 'processing'"
                " RETURNING outages, not_before",
                (utcnow(after_s=seconds), reason[:2000], now, delivery_id),
            ).fetchone()
            paused = conn.execute("SELECT until FROM github_outage").fetchone()
            began = row is not None and (paused is not None or row["outages"] == 1)
            if began:
                self._pause_since = conn.execute(
                    "INSERT INTO github_outage (id, until, since) VALUES (1, ?, ?)"
                    " ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)"
                    " RETURNING since",
                    (row["not_before"], now),
                ).fetchone()["since"]
        self._notify()
        return row["not_before"] if began and paused is None else None

    def github_answered(self, sent: str, probe: bool = False) -> bool:
        """A run ended that GitHub answered a call of, the last sent at `sent` (`utcnow()`
        format): an outage's probe (`Delivery.probe`), or a run in hand as the pause
        began whose call was sent after it began, ends the pause (the deliveries go on in
        their order). Whether it did. An answer to a call sent before it began says
        nothing: it may be from before GitHub went down. A pause a release before kept
        no beginning of (`since`) is ended by a probe only."""
        since = self._pause_since  # (a pause begun since the read: the answer is older)
        if not probe and (since is None or sent <= since):
            return False  # no pause seen, or begun after the call: nothing read
        with self.db.tx(busy_timeout=OUTCOME_BUSY_TIMEOUT_SECONDS) as conn:
            ended = bool(
                conn.execute(
                    "DELETE FROM github_outage WHERE ? OR since < ? RETURNING id", (probe, sent)
                ).fetchall()
            )
            if ended:
                self._pause_since = None
        if ended:
            self._notify()
        return ended

    def outage_paused_until(self) -> str | None:
        """Until when the queue claims nothing as GitHub is down (`put_back`), then one
        delivery at a time until GitHub answers; None: not paused."""
        if self._not_upgraded is not None:  # a read-only file of a release before
            return None
        rows = self.db.read("SELECT until FROM github_outage")
        return rows[0]["until"] if rows else None

    def release(self, delivery_id: str) -> None:
        """Give a claimed delivery back unprocessed (shutting down)."""
        self._release("id", delivery_id)

    def _release(self, column: str, key: str | int) -> None:
        with self.db.tx(busy_timeout=OUTCOME_BUSY_TIMEOUT_SECONDS) as conn:
            conn.execute(
                "UPDATE deliveries SET state = 'pending', attempts = attempts - 1,"
                f" updated_at = ? WHERE {column} = ? AND state = 'processing'",
                (utcnow(), key),
            )
        self._notify()

    def abandon(self, delivery_id: str) -> None:
        """A worker gave up on a claimed delivery with no outcome stored (an unexpected
        error of ours): it stays `processing`, run again at the next start (`recover`,
        which counts it an interruption), and its PR's later deliveries wait for it. No
        run holds it, though: an outage's probe, which waits for the runs in hand, does
        not wait for it (it would stall the whole queue until a restart)."""
        # (by the index of ids alone, as `running` reads the index of states alone; a
        # wake-up: the worker that gave up may be ending, and the probe's turn has come)
        rows = self.db.execute("SELECT seq FROM deliveries WHERE id = ?", (delivery_id,))
        self._abandoned.update([r["seq"] for r in rows])
        self._notify()

    def recover(self) -> Recovered:
        """On start: resume deliveries a killed process left `processing`; give up one
        interrupted MAX_INTERRUPTIONS times (returned: the caller logs and counts it, as
        a worker does a delivery that fails)."""
        now = utcnow()
        with self.db.tx() as conn:
            conn.execute(
                "UPDATE deliveries SET interruptions = interruptions + 1 WHERE state = 'processing'"
            )
            given_up = conn.execute(
                "UPDATE deliveries SET state = 'failed', updated_at = ?,"
                " last_error = 'interrupted ' || interruptions || ' times (process killed while"
                " working on it); given up' WHERE state = 'processing' AND interruptions >= ?"
                " RETURNING id, event, repo, pr_number, last_error, updated_at AS failed_at",
                (now, MAX_INTERRUPTIONS),
            ).fetchall()
            cur = conn.execute(
                "UPDATE deliveries SET state = 'pending', updated_at = ?"
                " WHERE state = 'processing'",
                (now,),
            )
            resumed = cur.rowcount
        ended = self._pause_left_over()
        self._notify()
        return Recovered(resumed, [Failed(**dict(r)) for r in given_up], ended)

    def _pause_left_over(self) -> str | None:
        """At start: end an outage's pause no delivery waits behind any more (none pending
        that GitHub failed, `outages`); when it would have ended, None if none. An older
        release run on the file (a rollback) knows no pause: it ran the deliveries put
        back, GitHub answering it, and left the pause to the next start of this one, which
        held the queue until the pause's time (up to a quarter of an hour) and then ran
        it one delivery at a time. A pause begun anew costs one put-back: the first one
        begins it (`put_back`). A pending row SQLite cannot read (a damaged file) keeps
        the pause: the claim sets it aside, as ever."""
        try:
            with self.db.tx() as conn:
                if conn.execute("SELECT 1 FROM github_outage").fetchone() is None or (
                    conn.execute(
                        "SELECT 1 FROM deliveries WHERE state = 'pending' AND outages > 0 LIMIT 1"
                    ).fetchone()
                ):
                    return None  # (no pause: the pending rows, a backlog maybe, left unread)
                row = conn.execute("DELETE FROM github_outage RETURNING until").fetchone()
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc):
                raise
            return None
        return None if row is None else row["until"]

    def unreadable_in_progress(self) -> dict[int, str]:
        """Rows a killed process left `processing` that cannot be read back (text that is
        not UTF-8, which SQLite stores unchecked: a damaged disk): seq -> delivery id.
        `recover` reads them back, so it fails on them at every start."""
        return {seq: self._id_of(seq) for seq, _ in self._unreadable_rows("processing")}

    def retry(self, delivery_ids: list[str] | None = None) -> list[str]:
        """Put failed deliveries back in the queue (all of them when ids is None); those
        whose row is damaged are set aside (`past_damage`), not re-queued."""
        rows = self.past_damage(lambda: self._retry(delivery_ids), (State.FAILED,))
        self._notify()
        return [r["id"] for r in rows]

    def _retry(self, delivery_ids: list[str] | None) -> list[sqlite3.Row]:
        now, which = utcnow(), f" AND {self.not_set_aside()}"
        if self._not_upgraded is not None:  # (the server's writes: it refuses such a file)
            raise self._not_upgraded
        with self.db.tx() as conn:
            if delivery_ids is None:
                return conn.execute(_REQUEUE + which + " RETURNING id", (now,)).fetchall()
            rows = []
            for did in delivery_ids:
                rows += conn.execute(
                    _REQUEUE + which + " AND id = ? RETURNING id", (now, did)
                ).fetchall()
            return rows

    # --- inspection ---

    def get(self, delivery_id: str) -> Delivery | None:
        rows = self.db.execute("SELECT * FROM deliveries WHERE id = ?", (delivery_id,))
        return _delivery(rows[0]) if rows else None

    def held(self, delivery_ids: set[str]) -> set[str]:
        """Which of these delivery ids the queue holds, in any state."""
        found: set[str] = set()
        for chunk in _chunks(sorted(delivery_ids)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT id FROM deliveries WHERE id IN ({marks})", chunk)
            found.update(r["id"] for r in rows)
        return found

    def still_to_run(self, action: str, repo: str, number: int, repo_id: int | None) -> bool:
        """A delivery with this action for PR `number` waits or runs (pending, processing):
        queued under `repo`, or under another name of the repository `repo_id` (renamed or
        transferred since). For our own deferred update (bot.command_updates)."""
        rows = self.db.execute(
            "SELECT repo, payload FROM deliveries WHERE state IN (?, ?) AND action = ?"
            " AND pr_number = ?",
            (State.PENDING, State.PROCESSING, action, number),
        )
        for row in rows:
            if pr_key(row["repo"], number) == pr_key(repo, number):
                return True
            if repo_id is not None and repository_id(orjson.loads(row["payload"])) == repo_id:
                return True
        return False

    def last_received(self) -> str | None:
        """When the newest delivery from GitHub arrived (`utcnow()` format); None when
        there is none. The bot's own (a re-check, a deferred update) are passed over: one
        queued after GitHub failed to reach the server would hide that failure from the
        start's redelivery sweep."""
        # seq (the primary key) rises with received_at (both set at insert, utcnow()); MAX
        # over received_at, unindexed, would read the whole table at every start. The
        # walk back from the newest passes over the bot's own rows only: a few.
        rows = self.db.execute(
            "SELECT received_at FROM deliveries WHERE NOT by_bot ORDER BY seq DESC LIMIT 1"
        )
        return rows[0]["received_at"] if rows else None

    def sweep_since(self) -> str | None:
        """Where the next sweep of GitHub's delivery log starts (ISO time), if kept."""
        rows = self.db.execute("SELECT value FROM redelivery WHERE key = 'since'")
        return rows[0]["value"] if rows else None

    def keep_sweep_since(self, since: str) -> None:
        self.db.execute(
            "INSERT INTO redelivery (key, value) VALUES ('since', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (since,),
        )

    def keep_first_sent(self, first: Mapping[str, datetime]) -> None:
        """Keep when GitHub first sent each of these events (guid -> its delivery log's
        first attempt), which a sweep is about to ask for again: the redelivery, queued,
        takes it as its `sent_at`. Asked before GitHub is (a redelivery may arrive before
        the ask's answer). What GitHub no longer keeps is forgotten."""
        oldest = stored_time(datetime.now(UTC) - timedelta(hours=KEPT_HOURS) - CLOCK_SLACK)
        with self.db.tx() as conn:
            conn.executemany(
                "INSERT INTO first_sent (id, at) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET at = min(at, excluded.at)",
                [(guid, stored_time(at.astimezone(UTC))) for guid, at in first.items()],
            )
            conn.execute("DELETE FROM first_sent WHERE at < ?", (oldest,))

    def keep_dry_run_answered(self, since: str) -> int:
        """Going live on a dry run's database (in the caller's transaction): keep the ids
        of the deliveries the dry run received since `since`, for `run_again`; how many.
        Those it left queued (a stop leaves them pending) or failed are set aside as
        done, unrun, as the live server (or a `retry --all`) would have posted a replay's
        comment: like the others they run once GitHub's log shows GitHub sent them. Not
        the bot's own (a re-check, a deferred update): GitHub sent none, and the dry
        run's state they served is gone."""
        self.db.execute(
            "UPDATE deliveries SET state = 'done', updated_at = ?, last_error = ?"
            " WHERE state IN ('pending', 'processing', 'failed')",
            (utcnow(), SET_ASIDE),
        )
        rows = self.db.execute(
            "INSERT OR IGNORE INTO dry_run_answered (id) SELECT id FROM deliveries"
            " WHERE state = 'done' AND NOT by_bot AND received_at >= ? RETURNING id",
            (since,),
        )
        return len(rows)

    def run_again(self, guids: Collection[str]) -> list[str]:
        """Put back in the queue, as received, the deliveries of `guids` (GitHub's delivery
        log lists them: GitHub sent them) that a dry run handled (`keep_dry_run_answered`),
        and forget them there, so that they run once; the ids put back, in their order. A
        PR whose last `pull_request` delivery closed it is left alone, as the bot leaves
        closed PRs: its earlier events would post on it now."""
        kept = self._dry_run_answered(guids)
        if not kept:  # no write: every sweep asks, in a write outage too
            return []
        now, again = utcnow(), []
        with self.db.tx() as conn:
            for chunk in _chunks(kept):
                marks = ",".join("?" * len(chunk))
                # those still kept: another sweep (`redeliver` beside the server's) may
                # have put one back since the read, and it may have run already
                ours = conn.execute(
                    f"DELETE FROM dry_run_answered WHERE id IN ({marks}) RETURNING id", chunk
                ).fetchall()
                marks = ",".join("?" * len(ours))  # kept, so done (none ran since)
                again += conn.execute(
                    f"UPDATE deliveries SET state = 'pending', updated_at = ?, interruptions = 0,"
                    f" deferrals = 0, waits = 0, outages = 0 WHERE id IN ({marks})"
                    f" AND {_NOT_CLOSED}"
                    " RETURNING seq, id",
                    (now, *(r["id"] for r in ours)),
                ).fetchall()
        if again:
            self._notify()
        return [r["id"] for r in sorted(again, key=lambda r: r["seq"])]

    def _dry_run_answered(self, guids: Collection[str]) -> list[str]:
        """Which of `guids` are kept by `keep_dry_run_answered` (a read)."""
        found: list[str] = []
        for chunk in _chunks(sorted(guids)):
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT id FROM dry_run_answered WHERE id IN ({marks})", chunk)
            found += [r["id"] for r in rows]
        return found

    def oldest_pending_since(self) -> datetime | None:
        """When the longest-waiting pending delivery was queued or last put back (a rate
        limit's deferral, a retry, a restart's resume), or its not_before when later;
        None when none is pending and due."""
        # (updated_at lies past the payload: a damaged row is set aside, as the claim does)
        rows = self.past_damage(  # (each run leaves out the rows set aside so far)
            lambda: self.db.read(OLDEST_PENDING.format(kept=self.not_set_aside()), (utcnow(),)),
            [State.PENDING],
        )
        at = rows[0]["at"] if rows else None
        return datetime.strptime(at, STORED_TIME).replace(tzinfo=UTC) if at else None

    def next_due(self) -> datetime | None:
        """When the first pending delivery queued to wait (`not_before` ahead: a deferred
        comment update, a put-back, a files re-check) comes due; None when none waits.
        An idle worker sleeps until then: a wake-up's due time, not a poll's beat."""
        # (not_before lies past the payload: a damaged row is set aside, as the claim does)
        rows = self.past_damage(
            lambda: self.db.execute(
                "SELECT MIN(not_before) AS at FROM deliveries WHERE state = 'pending'"
                f" AND not_before > ? AND {self.not_set_aside()}",
                (utcnow(),),
            ),
            [State.PENDING],
        )
        at = rows[0]["at"] if rows else None
        return datetime.strptime(at, STORED_TIME).replace(tzinfo=UTC) if at else None

    def counts(self) -> dict[str, int]:
        """Deliveries by state. Read beside the writers (`Database.read`), as the other reads
        /healthz and /metrics make (`failed`, `waiting_on_github`, `outage_paused_until`,
        `oldest_pending_since`): a claim waiting out another process's lock holds none up."""
        out = {s.value: 0 for s in State}
        for row in self.db.read("SELECT state, COUNT(*) AS n FROM deliveries GROUP BY state"):
            out[row["state"]] = row["n"]
        return out

    def waiting_on_github(self, n: int) -> tuple[int, list[Delivery]]:
        """How many pending deliveries were put back as GitHub failed (`put_back`), and
        the oldest `n` of them: they run again by themselves, neither failed nor
        done. Those whose row is damaged are set aside (`past_damage`), not listed."""
        if self._not_upgraded is not None:  # a read-only file of a release before: none
            return 0, []
        where = f"WHERE state = 'pending' AND outages > 0 AND {self.not_set_aside()}"

        def oldest() -> tuple[int, list[sqlite3.Row]]:
            rows = self.db.read(f"SELECT * FROM deliveries {where} ORDER BY seq LIMIT ?", [n])
            return self.db.read(f"SELECT COUNT(*) AS n FROM deliveries {where}")[0]["n"], rows

        total, rows = self.past_damage(oldest, (State.PENDING,))
        return total, [_delivery(r) for r in rows]

    def failed(self, limit: int = 50) -> list[Delivery]:
        """The newest failed deliveries; those whose row is damaged are set aside
        (`past_damage`), not listed."""

        def newest() -> list[sqlite3.Row]:
            return self.db.read(
                f"SELECT * FROM deliveries WHERE state = 'failed' AND {self.not_set_aside()}"
                " ORDER BY seq DESC LIMIT ?",
                (limit,),
            )

        return [_delivery(r) for r in self.past_damage(newest, (State.FAILED,))]

    @property
    def version(self) -> int:
        return self._version

    def wait_for_work(self, seen_version: int, timeout: float) -> None:
        """Sleep until something changed since `seen_version`, or `timeout`."""
        with self._changed:
            self._changed.wait_for(lambda: self._version != seen_version, timeout)

    def _notify(self) -> None:
        with self._changed:
            self._version += 1
            self._changed.notify_all()


def _chunks(ids: list[str], size: int = 500) -> list[tuple[str, ...]]:
    """`ids` in parts, each under SQLite's limit of bound parameters."""
    return [tuple(ids[i : i + size]) for i in range(0, len(ids), size)]


def _marks(chunk: Sequence[str]) -> str:
    return ",".join("?" * len(chunk))


def _repeats_latest(conn: sqlite3.Connection, d: Incoming, kept: str) -> bool:
    """The PR's latest same_body_sha body again, under a new delivery id: a replay.

    GitHub sends one body for two events only with another between (a label added,
    removed, added back: X, Y, X), never twice in a row. The same id is a redelivery,
    left to the id's own rule (a failed one runs again). `kept`: the rows not set aside."""
    key = pr_key(d.repo, d.pr_number)
    if d.same_body_sha is None or key is None:
        return False
    latest = conn.execute(LATEST_SAME_BODY.format(kept=kept), (key,)).fetchone()
    return latest is not None and latest[1] == d.same_body_sha and latest[0] != d.id


def _another_body(conn: sqlite3.Connection, d: Incoming) -> bool:
    """`d`'s id is stored with another body's hash: a body sent by hand under the id of
    one received (GitHub's redelivery sends its body as it was). False when either has
    no hash (a delivery of the bot's own) or the conflict was a copy of a body under a
    new id (no row has this id)."""
    sha = d.body_sha or d.same_body_sha
    if sha is None:
        return False
    row = conn.execute(
        "SELECT coalesce(body_sha, same_body_sha) FROM deliveries WHERE id = ?", (d.id,)
    ).fetchone()
    return row is not None and row[0] is not None and row[0] != sha


def _say_another_body(d: Incoming, *, requeued: bool) -> None:
    # the 200 "duplicate" (or 202 "requeued") alone told one replaying by hand nothing
    what = (
        "it runs again as first received, not as sent now"
        if requeued
        else "nothing of this one runs (a new event needs a new X-GitHub-Delivery)"
    )
    log.warning(
        "delivery %s (%s) sent again with another body than first received under its id: %s",
        d.id,
        d.event,
        what,
        extra={"delivery": d.id},
    )


def _payload(text: str) -> Any:
    """The stored payload. json.loads keeps integers past 64 bits exact; the webhook
    accepted the body with orjson, which also reads nesting of 1000 to 1024, where
    json.loads gives up: such a payload must be read too, or it stays `processing`.
    Its text is Unicode (`valid_unicode`): the one place webhook text enters the
    handlers."""
    try:
        payload = json.loads(text)
    except RecursionError:
        payload = orjson.loads(text)
    # stored text is GitHub's UTF-8 or json.dumps' ASCII: a surrogate is only an escape
    return valid_unicode(payload) if escapes_a_surrogate(text) else payload


def _delivery(row: Any, probe: bool = False) -> Delivery:
    return Delivery(
        id=row["id"],
        event=row["event"],
        action=row["action"],
        payload=_payload(row["payload"]),
        repo=row["repo"],
        pr_number=row["pr_number"],
        state=State(row["state"]),
        attempts=row["attempts"],
        interruptions=row["interruptions"],
        deferrals=row["deferrals"],
        # a read-only older file has none; a rollback's retry left them over (_WAITS)
        waits=min(row["waits"], row["deferrals"]) if "waits" in row.keys() else 0,
        last_error=row["last_error"],
        received_at=row["received_at"],
        updated_at=row["updated_at"],
        sent_at=row["sent_at"] if "sent_at" in row.keys() else None,  # (a read-only older file)
        outages=row["outages"] if "outages" in row.keys() else 0,
        not_before=row["not_before"],
        probe=probe,
    )

"""Retention: finished deliveries are deleted after REVIEW_NOTES_DELIVERY_RETENTION_DAYS,
in batches, in a thread of its own, so the database stops growing at about that many
days of traffic."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from bot.db import DAMAGED_FIX, is_damaged
from bot.queue import DeliveryQueue, Failed, State
from bot.terminal import count_of
from bot.times import utcnow

log = logging.getLogger(__name__)

# Old done deliveries by their place (seq), read from the (state, seq) index alone: a
# row's times are stored after its payload, and reading them walks its overflow pages.
# Each query leaves out the rows the queue set aside as damaged ({kept}: not_set_aside).
_PRUNE_DONE = (
    "DELETE FROM deliveries WHERE seq IN (SELECT seq FROM deliveries"
    " WHERE state = 'done' AND seq < ? AND {kept} ORDER BY seq LIMIT ?)"
)
_FIRST_FROM = (
    "SELECT seq, received_at FROM deliveries WHERE seq >= ? AND {kept} ORDER BY seq LIMIT 1"
)
_PRUNE_FAILED = (
    "DELETE FROM deliveries WHERE seq IN (SELECT seq FROM deliveries"
    " WHERE state = 'failed' AND {kept} AND updated_at < ? ORDER BY updated_at LIMIT ?)"
    " RETURNING id, event, repo, pr_number, last_error, updated_at AS failed_at"
)

# what the deliveries' pruning is named in the log, as a store's is by its `what`
DELIVERIES = "old deliveries"


@dataclass(frozen=True)
class Pruning:
    """A store's own pruning, run with the deliveries': `prune(before, limit)` deletes (or
    clears) up to `limit` of its rows older than `before` and says how many; `what`
    names them in the log line, after their count."""

    what: str
    prune: Callable[[str, int], int]


class Retention:
    """Deletes deliveries received more than `days` ago and done, at start and every
    EVERY_SECONDS, in a thread of its own.

    Done deliveries go quietly (counted, one log line). A failed one is deleted only
    when nobody retried it within `days` of its last failure, each with a warning
    naming it and its error: never silently. Pending and processing ones stay.
    Batches of BATCH (about 1 MB of payloads), each its own transaction, with a PAUSE
    between them: a webhook's answer waits for one batch at most, not for the pass (500
    rows at a time held acks up to 0.6 s on the first pass over a 1 GB file). Freed
    pages are reused by new deliveries, so the file stops growing at about `days` of
    traffic. `also`: the stores' own prunings, run after, in the same batches (bot.server:
    the records of replies whose delivery is gone, the file lists of PRs idle since and
    the numbers kept for `/notes wrong` comments on them), each whatever another did.

    A row SQLite cannot read back (a damaged disk) can be neither read nor deleted: met,
    it is set aside as the queue's claim sets one aside (`DeliveryQueue.past_damage`:
    named once in an ERROR, listed in /healthz), and the pass goes on without it.
    """

    EVERY_SECONDS = 3600.0
    BATCH = 50
    PAUSE = 0.02  # seconds between batches: the writers queued behind one go first

    def __init__(
        self,
        queue: DeliveryQueue,
        days: int,
        on_pruned: Callable[[State, int], None],
        also: Sequence[Pruning] = (),
        clock: Callable[[], float] = time.monotonic,
        on_pass: Callable[[str], None] = lambda outcome: None,
    ):
        self.queue, self.days, self.on_pruned, self.clock = queue, days, on_pruned, clock
        self.on_pass = on_pass  # told each pass's outcome (`round`): done or failed
        self.also = tuple(also)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # since when (`clock`) and how many passes in a row failed, and what the last
        # failed to prune; None: the last worked
        self._failing: tuple[float, int, str] | None = None

    def prune(self, before: str | None = None) -> dict[State, int]:
        """One pass (`before`: utcnow format; default `days` ago); stops early when stopping.
        A pruning that failed raises its error once the others ran."""
        pruned, failures = self._pass(before)
        if failures:
            raise failures[0][1]
        return pruned

    def _pass(self, before: str | None) -> tuple[dict[State, int], list[tuple[str, Exception]]]:
        """One pass: the deliveries pruned by state, and each pruning that failed (what it
        prunes, its error), after what it pruned before failing is counted and said."""
        before = before or utcnow(-self.days * 86400)
        pruned = {State.DONE: 0, State.FAILED: 0}
        failures = self._prune_deliveries(before, pruned)
        for state, n in pruned.items():
            if n:
                self.on_pruned(state, n)
        others = self._prune_also(before, failures)
        if any(pruned.values()) or any(n for _, n in others):
            log.info(
                "pruned %s received and %s last failed before %s%s"
                " (REVIEW_NOTES_DELIVERY_RETENTION_DAYS=%d)",
                count_of(pruned[State.DONE], "done delivery", "done deliveries"),
                count_of(pruned[State.FAILED], "failed one"),
                before,
                "".join(f", and {n} {what}" for what, n in others),
                self.days,
            )
        return pruned, failures

    def _prune_deliveries(
        self, before: str, pruned: dict[State, int]
    ) -> list[tuple[str, Exception]]:
        """The done deliveries' pruning, then the failed ones', each whatever the other did
        (one `try` made a failure deleting done rows skip every failed one, for good while
        it lasted), adding to `pruned` what each deleted. Each that failed, named; both:
        the deliveries'."""
        failed: list[tuple[State, Exception]] = []
        try:
            cut = self._past_damage(lambda: self.first_received_from(before))
            for n in self._batches(lambda: self._prune_done_past_damage(cut)):
                pruned[State.DONE] += n
        except Exception as exc:
            failed.append((State.DONE, exc))
        try:
            for n in self._batches(lambda: self._past_damage(lambda: self._drop_failed(before))):
                pruned[State.FAILED] += n
        except Exception as exc:
            failed.append((State.FAILED, exc))
        if len(failed) == 2:
            return [(DELIVERIES, failed[0][1])]
        return [(f"old {state} deliveries", exc) for state, exc in failed]

    def _prune_done_past_damage(self, cut: int) -> int:
        return self._past_damage(lambda: self.prune_done(cut, self.BATCH))

    def _prune_also(
        self, before: str, failures: list[tuple[str, Exception]]
    ) -> list[tuple[str, int]]:
        """The stores' prunings, each run whatever another did: one that fails (a damaged
        page of its table) stopped the others, for good, and the deliveries deleted before
        it went uncounted. What each pruned, its batches done before it failed too; each
        that failed added to `failures`."""
        others: list[tuple[str, int]] = []
        for pruning in self.also:
            total = 0
            try:
                for n in self._batches(self._one_batch(pruning, before)):
                    total += n
            except Exception as exc:
                failures.append((pruning.what, exc))
            others.append((pruning.what, total))
        return others

    def _past_damage(self, step: Callable[[], int]) -> int:
        """`step`, run again past the rows SQLite found damaged (any state: the places
        searched for the cut are), which the queue sets aside."""
        return self.queue.past_damage(step, tuple(State))

    def _one_batch(self, pruning: Pruning, before: str) -> Callable[[], int]:
        return lambda: pruning.prune(before, self.BATCH)

    def _batches(self, batch: Callable[[], int]) -> Iterator[int]:
        """Each batch's count as it is done: those before one that fails are counted."""
        while not self._stop.is_set():
            n = batch()
            yield n
            if n < self.BATCH:
                break
            self._stop.wait(self.PAUSE)

    def _drop_failed(self, before: str) -> int:
        dropped = self.prune_failed(before, self.BATCH)
        for d in dropped:
            log.warning(
                "delivery %s (%s, %s#%s) failed at %s and was not retried within %d days:"
                " deleted; its error was: %s",
                d.id,
                d.event,
                d.repo,
                d.pr_number,
                d.failed_at,
                self.days,
                d.last_error,
                extra={"delivery": d.id, "repo": d.repo, "pr": d.pr_number},
            )
        return len(dropped)

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, name="review-notes-retention", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)  # a batch in hand finishes: one short transaction
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self.round()
            self._stop.wait(self.EVERY_SECONDS)

    def round(self) -> None:
        """One pass, its failure said (`_pass_failed`), naming each pruning that failed, and
        counted (`on_pass`: an operator alerts on metrics, not on the log); the next round
        tries again."""
        _, failures = self._pass(None)
        if not failures:
            self._pass_worked()
            self.on_pass("done")
            return
        what, exc = _named(w for w, _ in failures), failures[0][1]
        if isinstance(exc, sqlite3.DatabaseError):
            self._pass_failed(what, exc)
        else:
            log.error("pruning %s failed", what, exc_info=exc)
        self.on_pass("failed")

    def _pass_failed(self, what: str, exc: sqlite3.DatabaseError) -> None:
        """A pass that failed in the database (a read-only remount, a full disk, a lock
        kept) is tried again next round: said with its traceback the first time, then in
        a line each pass, as the workers say theirs (bot.workers.Failures), not in a
        traceback every hour until someone fixes it; each line names `what` failed. One
        that met damage outside the rows (an index's page) is said in a line each pass,
        with the fix."""
        now, failing = self.clock(), self._failing
        self._failing = (failing[0] if failing else now, failing[1] + 1 if failing else 1, what)
        if is_damaged(exc):
            log.error(
                "pruning %s failed: the database file is damaged (%s): %s",
                what,
                exc,
                DAMAGED_FIX,
            )
        elif failing is None:
            log.error("pruning %s failed; tried again each pass", what, exc_info=exc)
        else:
            log.error(
                "pruning %s still failing: %d passes in %.0fs; the last: %s: %s",
                what,
                self._failing[1],
                now - failing[0],
                type(exc).__name__,
                exc,
            )

    def _pass_worked(self) -> None:
        if self._failing is not None:
            since, passes, what = self._failing
            self._failing = None
            log.warning(
                "pruning %s works again, after %s in %.0fs",
                what,
                count_of(passes, "failed pass", "failed passes"),
                self.clock() - since,
            )

    def first_received_from(self, at: str) -> int:
        """The place (seq) of the first delivery received at `at` (utcnow format) or later;
        every delivery before it was received earlier. Places and receipt times rise
        together (one insert at a time, `utcnow()` each), so a bisection finds it reading
        some 30 rows, not every row's time."""
        rows = self.queue.db.execute("SELECT MIN(seq) AS lo, MAX(seq) AS hi FROM deliveries")
        lo, hi = rows[0]["lo"] or 0, (rows[0]["hi"] or 0) + 1
        while lo < hi:
            mid = (lo + hi) // 2
            first = self.queue.db.execute(self._kept(_FIRST_FROM), (mid,))
            if first and first[0]["received_at"] < at:
                lo = first[0]["seq"] + 1
            else:
                hi = mid
        return lo

    def prune_done(self, before_seq: int, limit: int) -> int:
        """Delete up to `limit` done deliveries placed before `before_seq`, oldest first."""
        with self.queue.db.tx() as conn:
            return conn.execute(self._kept(_PRUNE_DONE), (before_seq, limit)).rowcount

    def prune_failed(self, before: str, limit: int) -> list[Failed]:
        """Delete up to `limit` failed deliveries whose last failure was before `before`."""
        rows = self.queue.db.execute(self._kept(_PRUNE_FAILED), (before, limit))
        return [Failed(**dict(r)) for r in rows]

    def _kept(self, sql: str) -> str:
        return sql.format(kept=self.queue.not_set_aside())


def _named(whats: Iterable[str]) -> str:
    """'a', 'a and b', 'a, b and c': what a pass failed to prune, for its log line."""
    *most, last = whats
    return f"{', '.join(most)} and {last}" if most else last

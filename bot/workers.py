"""The worker threads that drain the delivery queue (bot/queue.py), and what each run's
end does to its delivery (`Workers.run_one`): done, failed (for `review-notes retry`), or
put back to run again by itself.

- A rate limit: put back until GitHub's reset (`_defer`, `DeliveryQueue.defer`).
- A GitHub outage (`github_port.github_outage`: a 5xx, a timeout, a dropped connection,
  the client's tries used up): put back for a growing wait (`OutageWaits`, `_wait_out`),
  and the whole queue paused meanwhile (`DeliveryQueue.put_back`); the first run GitHub
  answers again ends the pause (`_github_answered`). The deliveries put back then run
  again: the PRs opened and the commands said during the outage are answered late, once.
- The server stopping under a run: handed back, to run at the next start (`_hand_back`).
- The database refusing a claim or an outcome (an outage's end too): retried, and
  reported to /healthz (`Failures`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from typing import Any

from bot.db import is_locked
from bot.github_port import (
    Advisable,
    ClientClosed,
    LimitsSeen,
    github_outage,
    rate_limit_wait,
    watching_limits,
)
from bot.queue import MAX_WAITS, Delivery, DeliveryQueue, State
from bot.terminal import argument, count_of

log = logging.getLogger(__name__)


def _log_context(delivery: Delivery) -> dict[str, Any]:
    return {"delivery": delivery.id, "repo": delivery.repo, "pr": delivery.pr_number}


def retry_hint(delivery_id: str, failure: BaseException | None = None) -> str:
    """How a failed delivery's WARNING ends ("; ..."), whatever failed it: the log is
    what an operator reads first, and this is what to do. Nothing when its `failure`
    says it already (`Advisable.advised`: the App not installed, a permission lacking,
    the App's JWT refused: with what to fix first), lest the WARNING say it twice."""
    if isinstance(failure, Advisable) and failure.advised:
        return ""
    # the sender chose the id (the signature does not cover it): what it holds must not
    # run, nor be read as an option, when an operator pastes the command
    return (
        f"; once its cause is fixed, `review-notes retry {argument(delivery_id)}` runs it again"
        " (`--all`: every failed one)"
    )


@dataclass(frozen=True)
class OutageWaits:
    """How a delivery GitHub failed in an outage (`github_outage`: a 5xx, a timeout, a
    dropped connection, its client's tries used up) waits to run again: `first` seconds,
    doubling up to `most`, put back while the waits come to no more than `total` in all;
    the next one past it fails the delivery, as any failure (0: at once). An outage of
    minutes to an hour is then waited out with no operator (a `review-notes retry`);
    one that lasts longer needs a look. The defaults are config/bot.toml's."""

    first: float = 60.0
    most: float = 900.0
    total: float = 3600.0

    def wait(self, put_backs: int) -> float | None:
        """The wait after a delivery's run that failed so, put back `put_backs` times
        before; None once that wait would take the waits past `total`."""
        spent, step = 0.0, min(self.first, self.most)
        for _ in range(put_backs):
            spent += step
            step = min(step * 2, self.most)
        return step if spent + step <= self.total else None

    @cached_property
    def most_put_backs(self) -> int:
        """How many times a delivery is put back before it fails (0: it fails at once)."""
        n, spent, step = 0, 0.0, min(self.first, self.most)
        while spent + step <= self.total:
            n, spent, step = n + 1, spent + step, min(step * 2, self.most)
        return n


@dataclass
class _Failing:
    """A worker's write to the queue (a claim, an outcome) failing, since `since`."""

    what: str  # "claiming a delivery", "recording delivery X as done"
    error: str  # the last failure's, redacted
    since: float  # time.monotonic() of the first failure
    tries: int = 1
    said_at: float = 0.0  # time.monotonic() of the last line logged about it
    told: bool = False  # logged as a fault (not only a claim's quiet refusals so far)
    # told as a lock's refusal by another worker's WARNING: its own lines go unsaid
    echo: bool = False


class Failures:
    """Each worker's failing claim or outcome write, told once: the first failure with its
    traceback, then a line every SAY_EVERY seconds with the count, then the recovery.
    A claim fails every try (each fallback poll on a full disk): a traceback each time
    flooded the log. The oldest failure is what /healthz and /metrics report
    (`failing_for`, `stuck`), from its first try.

    A claim or an outcome refused for another process's lock (`quiet`) is a wait, not a
    fault: the next try takes it, once `review-notes retry` or a backup has let go. Its
    traceback and recovery, logged at each `retry`, read as faults; it is told at DEBUG,
    and as a WARNING only once it has lasted `quiet_for` seconds (the stuck threshold
    /healthz reports it at), then as any failure. One lock refuses every worker: the
    first worker to reach `quiet_for` tells it for the process, its lines and its
    recovery; the others' (`echo`) go unsaid, at DEBUG, unless another fault comes. The
    teller working again, or meeting another fault (told as one, with its traceback),
    while they still wait: one of them tells the lock then."""

    SAY_EVERY = 300.0

    def __init__(
        self,
        redact: Callable[[str], str],
        clock: Callable[[], float] = time.monotonic,
        quiet_for: float = 60.0,
    ):
        self.redact, self.clock, self.quiet_for = redact, clock, quiet_for
        self._by_worker: dict[str, _Failing] = {}
        self._lock = threading.Lock()
        self._lock_told_by: str | None = None  # the worker telling a lock's refusals

    def failed(
        self, what: str, exc: Exception, extra: dict[str, Any] | None = None, quiet: bool = False
    ) -> None:
        """Called in an `except` block by the worker whose write failed; `quiet`: a claim
        or an outcome refused for another process's lock."""
        now, name = self.clock(), threading.current_thread().name
        error = self.redact(f"{type(exc).__name__}: {exc}")
        with self._lock:
            failing = self._by_worker.get(name)
            first = failing is None
            if failing is None:
                failing = self._by_worker[name] = _Failing(what, error, now, said_at=now)
            else:
                failing.what, failing.error, failing.tries = what, error, failing.tries + 1
            if failing.echo and (not quiet or self._lock_told_by not in self._by_worker):
                # another fault than the lock, or its teller works again: told anew
                failing.echo = failing.told = False
            elif self._lock_told_by == name and not quiet:
                # the teller meets another fault: told anew, and the lock by another
                self._lock_told_by, failing.told = None, False
            if not failing.told and quiet and now - failing.since >= self.quiet_for:
                failing.echo = self._lock_told_by in self._by_worker
                if not failing.echo:
                    self._lock_told_by = name
        if failing.echo:
            failing.told = True  # (told by another worker's WARNING)
        elif not failing.told and quiet:
            self._wait_told(failing, now, first, extra)
        elif not failing.told:  # the first fault (after quiet refusals, maybe)
            failing.told, failing.said_at = True, now
            log.exception(
                "%s failed; trying again (said again every %.0fs until it works)",
                what,
                self.SAY_EVERY,
                extra=extra,
            )
        elif now - failing.said_at >= self.SAY_EVERY:
            failing.said_at = now
            log.error(
                "%s still failing: %d tries in %.0fs; the last: %s",
                what,
                failing.tries,
                now - failing.since,
                error,
                extra=extra,
            )

    def _wait_told(
        self, failing: _Failing, now: float, first: bool, extra: dict[str, Any] | None
    ) -> None:
        """A quiet refusal said: at DEBUG, or as a WARNING once it has lasted `quiet_for`."""
        if now - failing.since >= self.quiet_for:
            failing.told, failing.said_at = True, now
            log.warning(
                "%s refused for %.0fs (%d tries): another process holds the database's"
                " lock (%s); trying again (said again every %.0fs until it works)",
                failing.what,
                now - failing.since,
                failing.tries,
                failing.error,
                self.SAY_EVERY,
                extra=extra,
            )
        elif first:
            log.debug(
                "%s refused: another process holds the database's lock (%s); trying again",
                failing.what,
                failing.error,
                extra=extra,
            )

    def succeeded(self) -> None:
        """The calling worker's write went through: its failure, if any, is over."""
        name = threading.current_thread().name
        with self._lock:
            failing = self._by_worker.pop(name, None)
            if self._lock_told_by == name:
                self._lock_told_by = None
        if failing is not None:
            log.log(
                logging.WARNING if failing.told and not failing.echo else logging.DEBUG,
                "%s works again, after %d failed tries in %.0fs",
                failing.what,
                failing.tries,
                self.clock() - failing.since,
            )

    def failing_for(self) -> float:
        """Seconds the longest-failing worker has been failing (0: none is)."""
        with self._lock:
            oldest = min((f.since for f in self._by_worker.values()), default=None)
        return 0.0 if oldest is None else self.clock() - oldest

    def stuck(self, after: float) -> str | None:
        """The oldest failure, in words, once it has lasted `after` seconds; else None."""
        now = self.clock()
        with self._lock:
            failing = min(self._by_worker.values(), key=lambda f: f.since, default=None)
            if failing is None or now - failing.since < after:
                return None
            return (
                f"{failing.what} has failed for {now - failing.since:.0f}s"
                f" ({failing.tries} tries): {failing.error}"
            )


class Workers:
    """A small pool of threads draining the queue through `process`.

    `process` raising means the delivery failed (the GitHub client has already
    retried what it could); the error is kept, through `redact`, and shown in /healthz
    (served to anyone who reaches the webhook's port) and by `review-notes retry`.
    Unless GitHub rate limited it: then it is put back, to run again at the time GitHub
    gave (`DeliveryQueue.defer`), and the worker goes on with other deliveries. A run
    whose own calls met no limit, held back by the pause another call's began, is put
    back without counting against `max_deferrals` (bounded by MAX_WAITS instead): in an
    hour's limit, the backlog behind the delivery GitHub refuses waits it out. A run
    GitHub failed in an outage (a 5xx, a timeout: `github_outage`) is put back too, for
    a growing wait (`outage`, OutageWaits), until the waits pass its total: the PRs
    opened and the commands written meanwhile are answered once GitHub answers again.

    Recording the outcome (`complete` / `fail`, an outage's end) can fail too (database
    locked, disk full): the worker tries again, waiting RECORD_RETRY_FIRST seconds,
    doubling up to RECORD_RETRY_MAX, for as long as the server is not stopping.
    Stopping, it gives up with an error in the log: the delivery stays `processing` and
    runs again at the next start. The worker itself carries on. Failing claims and
    outcome writes are logged and reported through `failures` (Failures).

    An idle worker sleeps until the queue changes in this process (a delivery queued,
    put back, finished: DeliveryQueue's wake-up) or until the first delivery queued to
    wait comes due (`next_due`), whichever is first; at most `poll_seconds`, as a write
    by another process (`review-notes retry`) wakes nobody (config/bot.toml's
    `workers_poll_seconds`). A claim that failed is tried again after `poll_seconds`.
    """

    RECORD_RETRY_FIRST = 0.1
    RECORD_RETRY_MAX = 5.0

    def __init__(
        self,
        queue: DeliveryQueue,
        process: Callable[[Delivery], None],
        count: int,
        redact: Callable[[str], str] = str,
        counted: Callable[[Delivery, str], None] = lambda delivery, outcome: None,
        outage: OutageWaits = OutageWaits(),
        poll_seconds: float = 5.0,
        wall_clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        stuck_seconds: float = 60.0,
    ):
        self.queue = queue
        self.process = process
        self.count = count
        self.redact = redact
        # told each run's outcome as stored: "done", "failed", "deferred" (put back for a
        # rate limit) or "waiting_on_github" (put back as GitHub failed: an outage)
        self.counted = counted
        self.outage = outage
        self.poll_seconds = poll_seconds  # the longest idle sleep (another process's writes)
        self.wall_clock = wall_clock  # the queue's due times are UTC wall-clock times
        # a claim refused for a lock is logged as a fault once /healthz reports it stuck
        self.failures = Failures(redact, quiet_for=stuck_seconds)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ended: list[str] = []  # workers whose thread ended while running (`ended`)

    def start(self) -> None:
        self._stop.clear()
        self._ended = []
        for i in range(self.count):
            t = threading.Thread(target=self._run, name=f"review-notes-worker-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def stop_claiming(self) -> None:
        """Take no new delivery (safe from a signal handler: sets a flag, takes no lock)."""
        self._stop.set()

    def stop(self, timeout: float = 20.0) -> None:
        """Finish the deliveries in hand, then stop; unclaimed ones stay pending.

        Bounded: a worker still busy after `timeout` seconds (all workers together) is
        left behind; its delivery stays `processing` and is resumed at the next start,
        unless a second stop joins it (`Runtime.stop`, once the GitHub client is closed:
        its run then hands the delivery back, `_hand_back`).
        """
        self._stop.set()
        self.queue._notify()
        deadline = time.monotonic() + timeout
        for t in self._threads:
            t.join(max(deadline - time.monotonic(), 0))
        # kept, for a second stop to join once the GitHub client is closed (Runtime.stop)
        self._threads = [t for t in self._threads if t.is_alive()]
        busy = [t.name for t in self._threads]
        if busy:
            log.warning("stopping with %s still busy; their deliveries resume at start", busy)

    def ended(self) -> list[str]:
        """The workers whose thread ended while the workers run (not stopping): a run
        raised what ends a thread (`_died`). The queue goes on with fewer, or stands with
        none, until a restart: /healthz and /metrics say so."""
        return list(self._ended)

    def _run(self) -> None:
        try:
            self._claim_and_run()
        finally:
            if not self._stop.is_set():
                self._ended.append(threading.current_thread().name)

    def _claim_and_run(self) -> None:
        while not self._stop.is_set():
            seen, delivery = self.queue.version, None
            try:
                delivery = self.queue.claim()
                self.failures.succeeded()
                if delivery is not None and self._stop.is_set():
                    # stopped between the check and the claim: hand it back untouched
                    self.queue.release(delivery.id)
                    break
            except BaseException as exc:
                if delivery is not None:  # claimed, never run: handed back (claim's own too)
                    self._hand_back_unrun(delivery)
                if not isinstance(exc, Exception):  # SystemExit, KeyboardInterrupt: it ends
                    log.critical(
                        "%s stops: claiming a delivery raised what ends a thread; a delivery"
                        " claimed is handed back, to run as if never claimed; one worker fewer"
                        " until the next start",
                        threading.current_thread().name,
                        exc_info=True,
                    )
                    return
                # database locked, full or gone: wait and try again
                self.failures.failed("claiming a delivery", exc, quiet=is_locked(exc))
                self.queue.wait_for_work(seen, self.poll_seconds)
                continue
            if delivery is None:
                self.queue.wait_for_work(seen, self.idle_wait())
                continue
            try:
                self.run_one(delivery)
            except Exception:  # never lose the worker
                log.exception(
                    "delivery %s: unexpected error in the worker; it stays processing and"
                    " runs again at the next start",
                    delivery.id,
                )
                self._abandon(delivery)
            except BaseException:  # SystemExit, KeyboardInterrupt, GeneratorExit: it ends
                self._abandon(delivery)
                self._died(delivery)
                return

    def _died(self, delivery: Delivery) -> None:
        """Say, in an `except` block, that this worker ends: its run raised what stops a
        thread, not an error (SystemExit, KeyboardInterrupt, GeneratorExit). Unsaid, the
        thread ended in silence (SystemExit) or on stderr alone, and the server ran on
        with a worker fewer and the delivery held `processing` by no run."""
        log.critical(
            "%s stops: delivery %s's run raised what ends a thread; the delivery stays"
            " processing and runs again at the next start; one worker fewer until then",
            threading.current_thread().name,
            delivery.id,
            exc_info=True,
            extra=_log_context(delivery),
        )

    def _hand_back_unrun(self, delivery: Delivery) -> None:
        """Give back a delivery claimed but never run, as what came after its claim
        raised (DeliveryQueue.claim hands back its own so)."""
        try:
            self.queue.release(delivery.id)
        except Exception:  # (the database failing: it stays processing until the next start)
            log.exception("delivery %s: handing it back unrun failed", delivery.id)
            self._abandon(delivery)

    def _abandon(self, delivery: Delivery) -> None:
        """Tell the queue no run holds the delivery left processing: an outage's probe,
        one run at a time, would wait for it until a restart (DeliveryQueue.abandon)."""
        try:
            self.queue.abandon(delivery.id)
        except Exception:  # (the database failing: the claims say it, through Failures)
            log.exception("delivery %s: marking it abandoned failed", delivery.id)

    def idle_wait(self) -> float:
        """Seconds an idle worker sleeps unless woken: until the first delivery queued to
        wait comes due, `poll_seconds` at most (none waits, or its time is further)."""
        try:
            due = self.queue.next_due()
        except Exception:  # (a failing database fails the claims too: told there, by Failures)
            return self.poll_seconds
        if due is None:
            return self.poll_seconds
        return min(max((due - self.wall_clock()).total_seconds(), 0.0), self.poll_seconds)

    def run_one(self, delivery: Delivery) -> None:
        extra = _log_context(delivery)
        try:
            with watching_limits() as seen:
                self.process(delivery)
        except Exception as exc:
            error = self.redact(f"{type(exc).__name__}: {exc}")
            if isinstance(exc, ClientClosed):  # stopping: ours, not GitHub's nor its own
                self._hand_back(delivery, error)
                return
            if (wait := rate_limit_wait(exc)) is not None:
                self._defer(delivery, wait, error, seen)
                self._github_answered(delivery, seen)
                return
            if github_outage(exc):
                if self._wait_out(delivery, error):
                    return
                if delivery.outages:  # its waits are over: it fails as any failure
                    outages = count_of(delivery.outages, "time")
                    error = f"put back {outages} as GitHub failed; given up: {error}"
            else:  # a refusal, or a failure of ours after GitHub answered a call
                self._github_answered(delivery, seen)
            # what to do, as the log is what an operator reads first (a GitHub outage
            # longer than the waits fails each delivery of its minutes, all waiting for this)
            log.warning(
                "delivery %s (%s) failed: %s%s",
                delivery.id,
                delivery.event,
                error,
                retry_hint(delivery.id, exc),
                extra=extra,
            )
            if self._record(delivery, State.FAILED, lambda: self.queue.fail(delivery.id, error)):
                self.counted(delivery, "failed")
        else:
            if self._record(delivery, State.DONE, lambda: self.queue.complete(delivery.id)):
                self.counted(delivery, "done")
            self._github_answered(delivery, seen)

    def _hand_back(self, delivery: Delivery, error: str) -> None:
        """The server stopped under a run (its GitHub client closed): the delivery goes
        back to pending, its run uncounted, to run again at the next start, neither
        failed (for `review-notes retry`) nor an interruption (three fail it)."""
        if self._record(delivery, State.PENDING, lambda: self.queue.release(delivery.id)):
            log.warning(
                "delivery %s (%s): the server stopped during its run (%s); it runs again at"
                " the next start",
                delivery.id,
                delivery.event,
                error,
                extra=_log_context(delivery),
            )

    def _github_answered(self, delivery: Delivery, seen: LimitsSeen) -> None:
        """A run ended other than by GitHub failing it (done, refused, rate limited, a
        failure of ours): if GitHub answered one of its calls, and it was an outage's
        probe or the call was sent after the pause began, the pause is over. A probe that
        called nothing (a closed PR's event, an ignored command), or whose calls went
        unsent (a rate limit's pause), says nothing of GitHub: the pause stays, and the
        next probe runs at once (ending it so sent the deliveries behind it against a
        GitHub still down). A run in hand as the pause began that GitHub answered only
        calls sent before says nothing either: those answers may be from before GitHub
        went down (`DeliveryQueue.github_answered`). Its write is tried again as an
        outcome's (a lock is a wait): given up, the pause lasted one more probe."""
        if seen.answered is None:
            return
        answered, probe, ended = seen.answered, delivery.probe, []
        write = lambda: ended.append(self.queue.github_answered(answered, probe))  # noqa: E731
        what = f"ending the outage's pause after delivery {delivery.id}"
        unwritten = "the pause stays until a probe GitHub answers ends it"
        if self._retried(delivery, what, write, unwritten) and ended[-1]:
            log.warning(
                "GitHub answered delivery %s (%s): the outage is over, the queue goes on",
                delivery.id,
                delivery.event,
                extra=_log_context(delivery),
            )

    def _wait_out(self, delivery: Delivery, error: str) -> bool:
        """Put back a delivery GitHub failed in an outage, for its next wait. True when
        put back, or left processing (stopping: it runs again at the next start); False
        when its waits are over: it fails as any failure."""
        wait = self.outage.wait(delivery.outages)
        if wait is None:
            return False
        paused: list[str | None] = []
        put_back = lambda: paused.append(self.queue.put_back(delivery.id, wait, error))  # noqa: E731
        if not self._record(delivery, State.PENDING, put_back):
            return True
        self.counted(delivery, "waiting_on_github")  # not "deferred": that is a rate limit
        log.warning(
            "delivery %s (%s) put back for %gs as GitHub failed (%d of %s; it"
            " runs again by itself): %s",
            delivery.id,
            delivery.event,
            wait,
            delivery.outages + 1,
            count_of(self.outage.most_put_backs, "put-back"),
            error,
            extra=_log_context(delivery),
        )
        if paused[-1] is not None:
            log.warning(
                "GitHub seems down: the queue claims no delivery until %s, then one at a time"
                " until GitHub answers one",
                paused[-1],
                extra=_log_context(delivery),
            )
        return True

    def _defer(self, delivery: Delivery, wait: float, error: str, seen: LimitsSeen) -> None:
        """Put the delivery back; told and logged as what `defer` did (the last put-back
        allowed fails it instead). Not counted when its calls met no limit, only the
        pause of another's (`seen`)."""
        extra = _log_context(delivery)
        counted = not seen.others_only
        put_back = []
        stored = self._record(
            delivery,
            State.PENDING,
            lambda: put_back.append(self.queue.defer(delivery.id, wait, error, counted=counted)),
        )
        if not stored:  # stopping: it stays processing and runs again at the next start
            return
        if counted:
            done, most, which = delivery.deferrals - delivery.waits, self.queue.max_deferrals, ""
        else:
            done, most, which = delivery.waits, MAX_WAITS, " held back by other calls' limits"
        if not put_back[-1]:
            self.counted(delivery, "failed")
            log.warning(
                "delivery %s (%s) failed: rate limited after %s%s; %s%s",
                delivery.id,
                delivery.event,
                count_of(most, "put-back"),
                which,
                error,
                retry_hint(delivery.id),  # a rate limit: no advice of its own
                extra=extra,
            )
            return
        self.counted(delivery, "deferred")
        log.warning(
            "delivery %s (%s) put back for %.0fs (%d of %s%s): %s",
            delivery.id,
            delivery.event,
            wait,
            done + 1,
            count_of(most, "put-back"),
            which,
            error,
            extra=extra,
        )

    def _record(self, delivery: Delivery, outcome: State, record: Callable[[], None]) -> bool:
        """Store the outcome, trying again while not stopping; False if it was not stored."""
        what = f"recording delivery {delivery.id} as {outcome}"
        unwritten = "it stays processing and runs again at the next start"
        return self._retried(delivery, what, record, unwritten)

    def _retried(
        self, delivery: Delivery, what: str, write: Callable[[], None], unwritten: str
    ) -> bool:
        """Make a run's end's write (`what`), trying again while not stopping; False if
        it was not made (`unwritten`: what follows then)."""
        extra = _log_context(delivery)
        wait, tries = self.RECORD_RETRY_FIRST, 0
        while True:
            tries += 1
            try:
                write()
                self.failures.succeeded()
                if tries > 1:
                    log.info("%s went through at try %d", what, tries, extra=extra)
                return True
            except Exception as exc:  # a lock's refusal is quiet, as a claim's
                self.failures.failed(what, exc, extra, quiet=is_locked(exc))
            if self._stop.is_set():
                log.error("stopping without %s; %s", what, unwritten, extra=extra)
                return False
            self._stop.wait(wait)  # a stop cuts the wait short: one more try, then give up
            wait = min(wait * 2, self.RECORD_RETRY_MAX)

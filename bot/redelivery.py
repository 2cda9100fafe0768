"""Which of GitHub's webhook deliveries to ask for again, and the sweep that asks.

GitHub never redelivers a failed delivery by itself (its docs, "Handling failed webhook
deliveries"): one sent while the server was down (every upgrade stops it) is lost
unless someone asks. The App's delivery log (`GET /app/hook/deliveries`) lists each
attempt; attempts of one event share a `guid`, the X-GitHub-Delivery our queue is keyed
by. An event needs asking for again when none of its attempts got a 2xx and our queue
does not hold it (in any state: `review-notes retry` handles those it holds).

`to_redeliver` is pure; `sweep` runs it over two ports (GitHub's log, the queue's ids),
so both are tested without a server. A running server sweeps again every
REVIEW_NOTES_REDELIVER_EVERY_MINUTES (`Sweeps`, in the thread of a `Redeliverer`): an
outage in front of it (a proxy, TLS, a full disk answering 500) loses nothing either,
as GitHub's docs advise.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from bot.github_port import GitHubError, rate_limit_wait
from bot.terminal import count_of
from bot.times import stored_time

if TYPE_CHECKING:
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

log = logging.getLogger(__name__)

# GitHub keeps an App's deliveries this long (github.com; GHES keeps 7 days)
KEPT_HOURS = 72
# GitHub's clock and ours may differ: a start's sweep looks back this much further
CLOCK_SLACK = timedelta(minutes=5)
# A server's sweeps ask for one event at most this often (redeliveries GitHub accepted,
# or refused with a 4xx): one whose redeliveries all fail (our 401 to a secret not yet
# rotated, a 413) needs a person, not a loop. A 5xx refusal is GitHub's incident: the
# event stays owed, its asks uncounted.
MAX_ASKS = 3
# Deliveries named in one log line at most (a dry run's busy days are thousands)
NAMED = 50


@dataclass(frozen=True)
class HookDelivery:
    """One attempt in the App's delivery log (OpenAPI `hook-delivery-item`, trimmed)."""

    id: int  # the attempt's: what `POST .../deliveries/{id}/attempts` names
    guid: str  # the event's, shared by its redeliveries: our queue's delivery id
    delivered_at: datetime
    status_code: int  # 0 or 5xx when GitHub could not reach us
    event: str
    action: str | None = None

    @property
    def succeeded(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def kind(self) -> str:
        """`event.action`, as the queue and the logs name a delivery."""
        return f"{self.event}.{self.action}" if self.action else self.event


def delivered_at(item: Mapping[str, Any]) -> datetime:
    """When GitHub made a listed attempt (`2026-01-02T03:04:05Z`), timezone-aware."""
    return datetime.fromisoformat(str(item["delivered_at"]))


def hook_delivery(item: Mapping[str, Any]) -> HookDelivery:
    """One item of GitHub's listing; raises KeyError/ValueError on a malformed one."""
    return HookDelivery(
        id=int(item["id"]),
        guid=str(item["guid"]),
        delivered_at=delivered_at(item),
        status_code=int(item.get("status_code") or 0),
        event=str(item.get("event") or ""),
        action=item.get("action"),
    )


def to_redeliver(
    listing: Iterable[HookDelivery],
    held: Callable[[set[str]], set[str]],
    since: datetime,
    skip: Collection[str] = (),
) -> list[HookDelivery]:
    """The attempt to ask for again of each event delivered since `since` that no attempt
    got through and that `held` (our queue: which of these guids it has) does not hold,
    nor `skip` names. One per guid (its latest attempt), oldest event first, so a PR's
    events arrive in the order GitHub sent them."""
    attempts: dict[str, list[HookDelivery]] = {}
    for d in listing:
        if d.delivered_at >= since and d.guid not in skip:
            attempts.setdefault(d.guid, []).append(d)
    failed = {g: a for g, a in attempts.items() if not any(d.succeeded for d in a)}
    ours = held(set(failed)) if failed else set()
    chosen = [max(a, key=lambda d: d.id) for g, a in failed.items() if g not in ours]
    return sorted(chosen, key=lambda d: min(x.delivered_at for x in attempts[d.guid]))


def first_sent(listing: Iterable[HookDelivery], guids: Collection[str]) -> dict[str, datetime]:
    """When GitHub first sent each of these events: its earliest listed attempt (an
    event's redeliveries share its guid, and are made later)."""
    first: dict[str, datetime] = {}
    for d in listing:
        if d.guid in guids and (d.guid not in first or d.delivered_at < first[d.guid]):
            first[d.guid] = d.delivered_at
    return first


def start_since(kept: str | None, last_received: str | None, now: datetime) -> datetime:
    """Where a start's sweep looks back to: where the last sweep that completed left it
    (`kept`: a server killed in the middle of one, or a rollback's, has its redeliveries
    stored, which are no measure of what is left to ask), else to the newest delivery
    GitHub sent (a database no sweep of this release has run on); never further back
    than GitHub keeps."""
    if kept is None:
        return since_last_seen(last_received, now)
    return max(datetime.fromisoformat(kept), now - timedelta(hours=KEPT_HOURS))


def since_last_seen(last_received: str | None, now: datetime) -> datetime:
    """Where a start's sweep looks back to: the newest delivery the database holds (what
    came later may have been missed while no server ran), never further than GitHub
    keeps; all it keeps for a database that has seen none."""
    oldest = now - timedelta(hours=KEPT_HOURS)
    if last_received is None:
        return oldest
    return max(datetime.fromisoformat(last_received) - CLOCK_SLACK, oldest)


def going_live(queue: DeliveryQueue, now: datetime) -> int:
    """Going live on a dry run's database (in the caller's transaction): have the next
    start's sweep look back all GitHub keeps, as kept by a sweep (a start with sweeps
    off, or a token's, leaves it to the first with them on): the dry run's deliveries
    (replays) came from no App, so the newest is no measure of where GitHub's failed
    deliveries to the App begin. And keep the deliveries the dry run handled in that
    time: those GitHub sent it (a dry run with the App's secret) show in the log as
    delivered, so no sweep asks for them, yet their comments were never posted; the
    sweep runs them again (`sweep`'s `run_again`). How many were kept."""
    oldest = now - timedelta(hours=KEPT_HOURS)
    queue.keep_sweep_since(oldest.isoformat())
    return queue.keep_dry_run_answered(stored_time(oldest - CLOCK_SLACK))


@runtime_checkable
class DeliveryLog(Protocol):
    """GitHub's side of a sweep (`bot.github_client.GitHubClient`, App JWT)."""

    def hook_deliveries(
        self, since: datetime, stopping: Callable[[], bool] | None = None
    ) -> list[dict[str, Any]]:
        """Back to `since`; stops between pages once `stopping()` (the caller asks it
        again after, to tell a listing cut short)."""

    def redeliver(self, delivery_id: int) -> None: ...


@dataclass
class Sweep:
    """What a sweep saw and asked for."""

    listed: int = 0  # attempts GitHub listed since the time asked
    seen: set[str] = field(default_factory=set)  # their events' guids
    asked: list[HookDelivery] = field(default_factory=list)  # GitHub accepted (202)
    refused: list[tuple[HookDelivery, str]] = field(default_factory=list)  # and why
    refused_for_good: set[str] = field(default_factory=set)  # their guids GitHub said no to
    stopped: str | None = None  # why it stopped before asking for all (then not_asked)
    not_asked: int = 0
    run_again: list[str] = field(default_factory=list)  # a dry run's, put back: no ask


def _never() -> bool:
    return False


def _none_to_run(guids: set[str]) -> list[str]:
    return []


def _keep_none(first: Mapping[str, datetime]) -> None:
    return None


def sweep(
    github: DeliveryLog,
    held: Callable[[set[str]], set[str]],
    since: datetime,
    stopping: Callable[[], bool] = _never,
    skip: Collection[str] = (),
    run_again: Callable[[set[str]], list[str]] = _none_to_run,
    keep_first: Callable[[Mapping[str, datetime]], None] = _keep_none,
) -> Sweep:
    """Ask GitHub again for every event it failed to deliver since `since` that the queue
    does not hold (nor `skip` names). A listing GitHub refuses raises GitHubError (the
    caller reports it); a refused redelivery is logged and counted, and the others are
    still asked. GitHub's rate limit, or `stopping()` (the server shuts down), ends the
    sweep with one warning: every call after a rate limit would be refused too, and
    calling on risks a ban. `run_again` (the queue's) puts back the deliveries of the
    listed events that a dry run handled before the database went live (`going_live`).
    The listing (a page of 100 per call, three days' worth after a long outage) stops
    between pages too; a sweep stopped there asks nothing and reads nothing more (the
    queue's `held`: a stopping server closes its database). `keep_first` (the queue's
    `keep_first_sent`) keeps, before the asks, when GitHub first sent each event asked
    for: its redelivery reaches us late, and what it says happened then, not on arrival."""
    listing = [hook_delivery(item) for item in github.hook_deliveries(since, stopping)]
    result = Sweep(listed=len(listing), seen={d.guid for d in listing})
    if stopping():
        result.stopped = "the server is stopping"
        log.warning(
            "redelivery sweep stopped (%s) while listing GitHub's deliveries (%s"
            " listed): none asked again; run `review-notes redeliver` later",
            result.stopped,
            count_of(result.listed, "attempt"),
        )
        return result
    result.run_again = run_again(result.seen)
    if result.run_again:
        named = result.run_again[:NAMED]
        more = len(result.run_again) - len(named)
        log.info(
            "going live: %s GitHub sent the dry run run again (their comments were never"
            " posted): %s%s",
            count_of(len(result.run_again), "delivery", "deliveries"),
            ", ".join(named),
            f" and {more} more" if more else "",
        )
    wanted = to_redeliver(listing, held, since, skip)
    _keep_first_sent(keep_first, first_sent(listing, {d.guid for d in wanted}))
    for i, d in enumerate(wanted):
        result.stopped = _ask(github, d, result, stopping)
        if result.stopped is not None:
            result.not_asked = len(wanted) - i
            log.warning(
                "redelivery sweep stopped (%s): %s not asked again; run"
                " `review-notes redeliver` later",
                result.stopped,
                count_of(result.not_asked, "delivery", "deliveries"),
            )
            break
    log.info(
        "redelivery sweep since %s: %s listed, %d asked again, %d refused",
        since.isoformat(timespec="seconds"),
        count_of(result.listed, "attempt"),
        len(result.asked),
        len(result.refused),
    )
    return result


def _keep_first_sent(
    keep_first: Callable[[Mapping[str, datetime]], None], first: Mapping[str, datetime]
) -> None:
    """Keep when the events asked for were first sent; a database that refuses (locked,
    a full disk) does not stop the asks: an event lost is worse than one dated late
    (on arrival, as before the first time was kept)."""
    if not first:
        return
    try:
        keep_first(first)
    except Exception as exc:  # sqlite3's errors, a database closed by a stop
        log.warning(
            "redelivery sweep: when GitHub first sent the %d events asked again not kept"
            " (%s): each is dated when it arrives",
            len(first),
            exc,
        )


def _ask(
    github: DeliveryLog, d: HookDelivery, result: Sweep, stopping: Callable[[], bool]
) -> str | None:
    """Ask for `d` again and count the answer in `result`; why the sweep must stop
    instead (nothing counted for `d`), else None."""
    if stopping():
        return "the server is stopping"
    try:
        github.redeliver(d.id)
    except GitHubError as exc:
        if rate_limit_wait(exc) is not None:
            return f"GitHub rate limited the App: {exc}"
        log.warning("redelivery of %s (%s) not asked: %s", d.guid, d.kind, exc)
        result.refused.append((d, str(exc)))
        if not exc.transient and exc.status is not None and 400 <= exc.status < 500:
            result.refused_for_good.add(d.guid)
    else:
        result.asked.append(d)
    return None


@dataclass
class Sweeps:
    """A server's sweeps, one after another: each looks back to where the last complete
    one began (CLOCK_SLACK earlier), so none is missed and none listed twice over; one
    that failed or stopped short leaves `since` where it was, for the next, and so does
    an event whose redelivery GitHub refused (asked for again next time). Never further
    back than GitHub keeps. An event asked for MAX_ASKS times is asked no more in this
    server run (one warning names it), but `kept_since` stays back to it, so the next
    run asks again; the count is forgotten once the listing no longer shows the event."""

    since: datetime
    asks: dict[str, int] = field(default_factory=dict)
    given_up_at: dict[str, datetime] = field(default_factory=dict)  # its last attempt

    def kept_since(self) -> datetime:
        """Where the next server run's start should sweep from."""
        return min([self.since, *self.given_up_at.values()])

    def given_up(self) -> set[str]:
        return {guid for guid, n in self.asks.items() if n >= MAX_ASKS}

    def done(self, result: Sweep, began: datetime) -> int:
        """Count what `result` asked; move on past it when it was complete. Returns how
        many events it asked for the last time (MAX_ASKS reached)."""
        given_up = 0
        counted = [
            *result.asked,
            *(d for d, _ in result.refused if d.guid in result.refused_for_good),
        ]
        for d in counted:
            self.asks[d.guid] = self.asks.get(d.guid, 0) + 1
            if self.asks[d.guid] == MAX_ASKS:
                given_up += 1
                self.given_up_at[d.guid] = d.delivered_at
                log.warning(
                    "webhook delivery %s (%s) asked for again %d times, never delivered:"
                    " not asked again; see why in the App's Advanced settings, then run"
                    " `review-notes redeliver`",
                    d.guid,
                    d.kind,
                    MAX_ASKS,
                )
        # what it asked for is of its listing: `seen` holds it
        self.asks = {g: n for g, n in self.asks.items() if g in result.seen}
        if result.stopped is None:
            owed = [
                d.delivered_at for d, _ in result.refused if self.asks.get(d.guid, 0) < MAX_ASKS
            ]
            self.since = min([began - CLOCK_SLACK, *owed])
        oldest = began - timedelta(hours=KEPT_HOURS)
        self.since = max(self.since, oldest)
        self.given_up_at = {g: t for g, t in self.given_up_at.items() if t >= oldest}
        return given_up


class Redeliverer:
    """A running server's sweeps (`Runtime.redeliver_in_background` runs `run` in a
    thread of its own): at start since where the last complete sweep left off
    (`on_start`), then every `every_s` seconds (0: never), until `stopping` is set."""

    def __init__(
        self,
        github: DeliveryLog,
        queue: DeliveryQueue,
        metrics: Metrics,
        stopping: threading.Event,
        *,
        on_start: bool,
        every_s: float,
    ):
        self.github, self.queue, self.metrics = github, queue, metrics
        self.stopping, self.on_start, self.every_s = stopping, on_start, every_s

    def run(self) -> None:
        """The sweeps, in their own thread (the database's calls may wait on a lock: not
        on the event loop). After a sweep whose redeliveries went out and with nothing
        from GitHub stored since (a proxy, TLS or a full disk failing every delivery), the
        next sweeps wait, twice as long each time (a quiet repository stores nothing
        either), so that an outage costs an event few of its asks."""
        sweeps = self._begin()
        while sweeps is None:  # the database refused: begin again at the next interval
            if not self.every_s or self.stopping.wait(self.every_s):
                return
            sweeps = self._begin()
        waiting: datetime | None = None  # when a sweep's redeliveries went out
        waits, allowed = 0, 2  # intervals waited, and allowed before asking again
        if self.on_start:
            waiting = self._sweep(sweeps, "at start")
        every = self.every_s
        while every and not self.stopping.wait(every):
            if waiting is not None and not self._github_reached_us_since(waiting):
                waits += 1
                if waits < allowed:
                    self.metrics.redelivery_sweeps.labels("waiting").inc()
                    continue
                allowed *= 2
            else:
                allowed = 2
            waits = 0
            waiting = self._sweep(sweeps, "of the running server")

    def _begin(self) -> Sweeps | None:
        """Where the sweeps start, kept at once (a server killed in the middle of the first
        sweep starts from there again, not from its redeliveries); None when the database
        refused (locked, a full disk), counted as a failed sweep: the next interval begins
        again, as the intake's 500s said the sweeps would ask for them."""
        try:
            kept, last = self.queue.sweep_since(), self.queue.last_received()
            sweeps = Sweeps(start_since(kept, last, datetime.now(UTC)))
            self.queue.keep_sweep_since(sweeps.since.isoformat())
        except Exception:  # the database locked or full, or closed by a stop
            if self.stopping.is_set():
                return None
            then = f"begun again in {self.every_s / 60:g} min" if self.every_s else "none will run"
            log.exception("redelivery sweeps not started (%s); run `review-notes redeliver`", then)
            self.metrics.redelivery_sweeps.labels("failed").inc()
            return None
        return sweeps

    def _github_reached_us_since(self, when: datetime) -> bool:
        """Whether a delivery from GitHub was stored since `when`."""
        try:
            last = self.queue.last_received()
        except Exception:  # the database closed by a stop, or locked
            return False
        return last is not None and datetime.fromisoformat(last) >= when

    def _sweep(self, sweeps: Sweeps, when: str) -> datetime | None:
        """One sweep; when it began if GitHub accepted redeliveries it asked for."""
        began = datetime.now(UTC)
        metrics = self.metrics
        try:
            result = sweep(
                self.github,
                self.queue.held,
                sweeps.since,
                self.stopping.is_set,
                sweeps.given_up(),
                self.queue.run_again,
                self.queue.keep_first_sent,
            )
        except GitHubError as exc:  # the server runs on; the next sweep tries again
            limited = rate_limit_wait(exc) is not None
            log.warning("redelivery %s not done: %s; run `review-notes redeliver`", when, exc)
            metrics.redelivery_sweeps.labels("stopped" if limited else "failed").inc()
            return None
        except Exception:  # a listing GitHub changed, the database closed by a stop
            if self.stopping.is_set():
                log.warning("redelivery %s cut short by the stop", when)
            else:
                log.exception("redelivery %s failed; run `review-notes redeliver`", when)
            metrics.redelivery_sweeps.labels("failed").inc()
            return None
        given_up = sweeps.done(result, began)
        metrics.redelivery_sweeps.labels("done" if result.stopped is None else "stopped").inc()
        metrics.redeliveries.labels("asked").inc(len(result.asked))
        metrics.redeliveries.labels("refused").inc(len(result.refused))
        metrics.redeliveries.labels("given_up").inc(given_up)
        try:  # kept for the next start; a write refused now is tried again next sweep
            self.queue.keep_sweep_since(sweeps.kept_since().isoformat())
        except Exception as exc:
            log.warning("redelivery %s: where it left off not kept: %s", when, exc)
        return began if result.asked else None

"""Which failed webhook deliveries are asked for again, and the sweep asking (no server)."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.github_port import GitHubError
from bot.redelivery import (
    CLOCK_SLACK,
    KEPT_HOURS,
    MAX_ASKS,
    HookDelivery,
    Redeliverer,
    Sweep,
    Sweeps,
    hook_delivery,
    since_last_seen,
    start_since,
    sweep,
    to_redeliver,
)

# --- which attempts a sweep asks GitHub to redeliver ---

NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
SINCE = NOW - timedelta(hours=72)


def attempt(id: int, guid: str, status: int, hours_ago: float = 1.0) -> HookDelivery:
    return HookDelivery(
        id, guid, NOW - timedelta(hours=hours_ago), status, "pull_request", "opened"
    )


def nothing_held(guids: set[str]) -> set[str]:
    return set()


def test_an_event_no_attempt_delivered_is_asked_for_once_by_its_latest_attempt():
    listing = [attempt(3, "a", 502, 1), attempt(1, "a", 0, 2), attempt(2, "b", 0, 1.5)]
    chosen = to_redeliver(listing, nothing_held, SINCE)
    assert [(d.guid, d.id) for d in chosen] == [("a", 3), ("b", 2)]  # oldest event first


def test_an_event_with_any_2xx_attempt_or_held_by_the_queue_is_left_alone():
    listing = [attempt(1, "ok", 0), attempt(2, "ok", 202), attempt(3, "held", 0)]
    asked: list[set[str]] = []

    def held(guids: set[str]) -> set[str]:
        asked.append(guids)
        return {"held"} & guids

    assert to_redeliver(listing, held, SINCE) == []
    assert asked == [{"held"}]  # only the failed ones are looked up


def test_attempts_before_since_are_not_asked_for():
    listing = [attempt(1, "old", 0, hours_ago=80)]
    assert to_redeliver(listing, nothing_held, SINCE) == []


def test_a_listed_item_is_read_as_github_writes_it():
    item = {
        "id": 12,
        "guid": "0b989ba4-242f-11e5-81e1-c7b6966d2516",
        "delivered_at": "2026-12-04T11:00:00Z",
        "redelivery": False,
        "status_code": 502,
        "event": "issue_comment",
        "action": "created",
    }
    d = hook_delivery(item)
    assert d.delivered_at == NOW - timedelta(hours=1)
    assert (d.kind, d.succeeded) == ("issue_comment.created", False)


class FakeLog:
    def __init__(self, items: list[dict[str, Any]], refuse: set[int] = frozenset(), limit: int = 0):
        self.items, self.refuse, self.asked = items, refuse, []
        self.limit = limit  # the redelivery GitHub answers with its rate limit

    def hook_deliveries(self, since: datetime, stopping=None) -> list[dict[str, Any]]:
        return self.items

    def redeliver(self, delivery_id: int) -> None:
        self.asked.append(delivery_id)
        if delivery_id == self.limit:
            raise GitHubError("GitHub: rate limited", status=403, transient=True, retry_after=60)
        if delivery_id in self.refuse:
            raise GitHubError("GitHub redeliver webhook delivery: 502 (gave up)", status=502)


def item(id: int, guid: str, status: int) -> dict[str, Any]:
    return {"id": id, "guid": guid, "delivered_at": "2026-12-04T11:00:00Z", "status_code": status}


def test_a_refused_redelivery_is_logged_and_counted_and_the_others_still_asked(caplog):
    github = FakeLog([item(1, "a", 0), item(2, "b", 0), item(3, "c", 200)], refuse={1})
    with caplog.at_level(logging.INFO, logger="bot.redelivery"):
        done = sweep(github, nothing_held, SINCE)
    assert github.asked == [1, 2]
    assert [d.guid for d in done.asked] == ["b"] and [d.guid for d, _ in done.refused] == ["a"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "a" in warnings[0].getMessage()
    summary = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert summary and "3 attempts listed, 1 asked again, 1 refused" in summary[-1]
    # kills: bot/redelivery.py:_none_to_run returning None for the list
    assert done.run_again == []  # no queue given to put anything back in


def test_a_start_looks_back_to_the_last_delivery_seen_at_most_as_far_as_github_keeps():
    assert since_last_seen(None, NOW) == SINCE
    assert since_last_seen("2026-11-01T00:00:00.000000Z", NOW) == SINCE
    seen = "2026-12-04T11:00:00.123456Z"
    assert since_last_seen(seen, NOW) == datetime(2026, 12, 4, 10, 55, 0, 123456, tzinfo=UTC)


# --- a sweep stopped: by a rate limit, by the server's stop, while it lists ---


def test_a_rate_limit_mid_sweep_stops_it_with_one_warning_naming_the_command(caplog):
    """Every redelivery after GitHub's rate limit is refused too (and calling on while
    limited risks a ban): the sweep went on, marking each one refused with its own
    warning, hundreds of lines after a long outage. It stops, saying once what to run."""
    github = FakeLog([item(i, f"g{i}", 0) for i in range(1, 6)], limit=2)
    with caplog.at_level(logging.INFO, logger="bot.redelivery"):
        done = sweep(github, nothing_held, SINCE)
    assert github.asked == [1, 2]
    assert [d.guid for d in done.asked] == ["g1"] and done.refused == []
    assert done.not_asked == 4 and "rate limited" in (done.stopped or "")
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "review-notes redeliver" in warnings[0], warnings


def test_a_sweep_stops_asking_once_the_server_is_stopping():
    github = FakeLog([item(i, f"g{i}", 0) for i in range(1, 4)])
    done = sweep(github, nothing_held, SINCE, stopping=lambda: bool(github.asked))
    assert github.asked == [1]
    assert done.not_asked == 2 and done.stopped == "the server is stopping"


class PagedLog(FakeLog):
    """A listing of pages that asks `stopping` between them, as GitHubClient's does."""

    def __init__(self, pages: list[list[dict[str, Any]]], stop_after: int):
        super().__init__([i for p in pages for i in p])
        self.pages, self.stop_after, self.listed = pages, stop_after, 0
        self.stopped = False

    def hook_deliveries(self, since: datetime, stopping=None) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for page in self.pages:
            self.listed += 1
            found += page
            self.stopped = self.listed >= self.stop_after  # the server stops meanwhile
            if stopping is not None and stopping():
                break
        return found


def test_a_sweep_stopped_while_listing_reads_no_queue_and_asks_nothing(caplog):
    """The listing is many calls (100 attempts a page, three days' worth after a long
    outage): the sweep stopped only between redeliveries, so a stop waited for the whole
    listing, and the sweep then read the queue a stopped server had closed."""
    pages = [[item(p * 10 + i, f"g{p}-{i}", 0) for i in range(3)] for p in range(4)]
    github = PagedLog(pages, stop_after=1)

    def held(guids: set[str]) -> set[str]:
        raise AssertionError("the queue read after the stop")

    with caplog.at_level(logging.INFO, logger="bot.redelivery"):
        done = sweep(github, held, SINCE, lambda: github.stopped, run_again=held)
    assert github.listed == 1 and github.asked == []
    assert (done.listed, done.stopped) == (3, "the server is stopping")
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "while listing" in warning and "review-notes redeliver" in warning


# --- an event answered with a redirect; an attempt at `since` exactly ---


# kills: redelivery.HookDelivery.succeeded: `status_code < 300` -> `status_code <= 300`
def test_an_event_answered_with_a_redirect_was_not_delivered():
    listing = [attempt(1, "moved", 300), attempt(2, "ok", 299)]
    assert [d.guid for d in to_redeliver(listing, nothing_held, SINCE)] == ["moved"]


# kills: redelivery.to_redeliver: `delivered_at >= since` -> `delivered_at > since`
def test_an_attempt_made_at_since_exactly_is_asked_for():
    listing = [attempt(1, "edge", 0, hours_ago=72)]  # NOW - 72 h == SINCE
    assert [d.guid for d in to_redeliver(listing, nothing_held, SINCE)] == ["edge"]


# --- a running server's sweeps (an outage in front of a running
# server lost every delivery GitHub failed to make until the next start) ---


def test_each_sweep_looks_back_to_where_the_last_complete_one_began():
    sweeps = Sweeps(SINCE)
    began = NOW - timedelta(minutes=1)
    sweeps.done(sweep(FakeLog([]), nothing_held, sweeps.since), began)
    assert sweeps.since == began - CLOCK_SLACK
    stopped = Sweep(stopped="GitHub rate limited the App")
    sweeps.done(stopped, NOW)  # one stopped short: the next looks back as far again
    assert sweeps.since == began - CLOCK_SLACK


def test_sweeps_never_look_back_further_than_github_keeps():
    sweeps = Sweeps(SINCE - timedelta(hours=5))  # a server started long ago, sweeps failing
    sweeps.done(Sweep(stopped="the server is stopping"), NOW)
    assert sweeps.since == NOW - timedelta(hours=KEPT_HOURS)


def test_an_event_is_asked_for_at_most_max_asks_times_then_named_once(caplog):
    sweeps = Sweeps(SINCE)
    github = FakeLog([item(1, "a", 401), item(2, "b", 0)])
    with caplog.at_level(logging.WARNING, logger="bot.redelivery"):
        last_times = [
            sweeps.done(sweep(github, nothing_held, SINCE, skip=sweeps.given_up()), NOW)
            for _ in range(MAX_ASKS + 2)
        ]
    assert github.asked == [1, 2] * MAX_ASKS  # then neither
    assert last_times == [0] * (MAX_ASKS - 1) + [2, 0, 0]  # for /metrics: given_up
    assert sweeps.given_up() == {"a", "b"}
    named = [r.getMessage() for r in caplog.records if "not asked again" in r.getMessage()]
    assert len(named) == 2 and named[0].startswith("webhook delivery a "), named


def test_an_events_count_is_forgotten_once_the_listing_no_longer_shows_it():
    sweeps = Sweeps(SINCE)
    sweeps.done(sweep(FakeLog([item(1, "a", 0)]), nothing_held, SINCE), NOW)
    assert sweeps.asks == {"a": 1}
    sweeps.done(sweep(FakeLog([item(2, "b", 0)]), nothing_held, SINCE), NOW)
    assert sweeps.asks == {"b": 1}


def test_a_skipped_event_is_neither_asked_for_nor_read_from_the_queue():
    asked_of_queue: list[set[str]] = []

    def held(guids: set[str]) -> set[str]:
        asked_of_queue.append(guids)
        return set()

    chosen = to_redeliver([attempt(1, "a", 0), attempt(2, "b", 0)], held, SINCE, skip={"a"})
    assert [d.guid for d in chosen] == ["b"] and asked_of_queue == [{"b"}]


def test_a_refused_redelivery_keeps_the_next_sweep_looking_back_to_it():
    # a complete sweep moved `since` past an event whose redelivery GitHub
    # refused (a 502, retries spent): no later sweep listed it again. A 5xx is GitHub's
    # incident: owed for as long as it lasts, its asks uncounted
    sweeps = Sweeps(SINCE)
    github = FakeLog([item(1, "a", 0), item(2, "b", 0)], refuse={1})
    for _ in range(MAX_ASKS + 1):
        sweeps.done(sweep(github, nothing_held, SINCE, skip=sweeps.given_up()), NOW)
        assert sweeps.since == NOW - timedelta(hours=1)  # item()'s time: a's failed attempt
    assert "a" not in sweeps.asks  # a 5xx refusal: no ask counted
    assert "a" not in sweeps.given_up() and "b" in sweeps.given_up()


class RefusingLog(FakeLog):
    """GitHub says no to redelivering an attempt (a 4xx): it will say so again."""

    def redeliver(self, delivery_id: int) -> None:
        self.asked.append(delivery_id)
        raise GitHubError("GitHub redeliver webhook delivery: 422", status=422)


def test_a_redelivery_github_says_no_to_counts_and_is_given_up_for_this_run_only():
    sweeps = Sweeps(SINCE)
    github = RefusingLog([item(1, "a", 0)])
    for _ in range(MAX_ASKS + 1):
        sweeps.done(sweep(github, nothing_held, SINCE, skip=sweeps.given_up()), NOW)
    assert github.asked == [1] * MAX_ASKS and sweeps.given_up() == {"a"}
    assert sweeps.since == NOW - CLOCK_SLACK  # this run asks no more
    assert sweeps.kept_since() == NOW - timedelta(hours=1)  # the next run does


def test_a_start_sweeps_from_where_the_last_complete_sweep_left_off():
    kept = (NOW - timedelta(hours=5)).isoformat()
    newest = "2026-12-04T11:59:00.000000Z"  # a redelivery stored by a sweep cut short
    assert start_since(kept, newest, NOW) == NOW - timedelta(hours=5)
    assert start_since((NOW - timedelta(days=9)).isoformat(), newest, NOW) == SINCE
    assert start_since(None, newest, NOW) == since_last_seen(newest, NOW)


# --- `redeliver`'s exit codes ---


class _ClosedGitHub:
    closed = False

    def close(self) -> None:
        self.closed = True


def redeliver_reporting(monkeypatch, tmp_path, done: Sweep) -> tuple[int, _ClosedGitHub]:
    """`review-notes redeliver`'s report and exit status of a sweep that did `done`."""
    from bot import cli_server, redelivery, server
    from bot.db import Database

    github = _ClosedGitHub()
    monkeypatch.setattr(server, "live_github", lambda settings: github)
    monkeypatch.setattr(redelivery, "sweep", lambda *args, **kw: done)
    # the server it is run beside, as docs/reliability.md says
    running = Database(tmp_path / "bot.sqlite3")
    assert running.acquire_server_lock()
    db = Database(tmp_path / "bot.sqlite3")
    try:
        return cli_server._redeliver(object(), db, 72), github
    finally:
        db.close()
        running.close()


# kills: bot/cli_server.py:_redeliver (hand) a redelivery GitHub refused reported with exit 0 (a
#   cron job running `review-notes redeliver` never learnt that an event is still missing)
# kills: bot/cli_server.py:_redeliver (hand) the refused ones printed among those asked again, on
#   stdout
def test_redeliver_names_a_refused_ask_on_stderr_and_exits_1(monkeypatch, tmp_path, capsys):
    asked, refused = attempt(1, "g-asked", 502), attempt(2, "g-refused", 0)
    done = Sweep(listed=2, asked=[asked], refused=[(refused, "422 Unprocessable")])
    status, github = redeliver_reporting(monkeypatch, tmp_path, done)
    out, err = capsys.readouterr()
    assert status == 1 and github.closed
    assert "asked again: g-asked  pull_request.opened  (GitHub delivery 1)" in out
    assert "1 asked again, 1 refused, of 2 delivery attempts since" in out
    assert "g-refused" not in out
    assert err == "not asked: g-refused  pull_request.opened: 422 Unprocessable\n"
    status, _ = redeliver_reporting(monkeypatch, tmp_path, Sweep(listed=1, asked=[asked]))
    out, err = capsys.readouterr()
    assert status == 0 and err == "" and "0 refused, of 1 delivery attempt since" in out
    stopped = Sweep(listed=3, asked=[asked], stopped="rate limited", not_asked=2)
    status, _ = redeliver_reporting(monkeypatch, tmp_path, stopped)
    assert status == 1 and capsys.readouterr().err == "stopped (rate limited): 2 not asked again\n"


# kills: bot/cli_server.py:_redeliver (the exit statuses docs/operating.md gives) a key GitHub
#   cannot use as 2 (the configuration to fix), GitHub failing the listing as 1; each said once
def test_redeliver_exits_2_on_an_unusable_key_and_1_when_github_fails_the_listing(
    monkeypatch, tmp_path, capsys
):
    from bot import redelivery, server

    def unusable(settings):
        raise server.StartupError("GITHUB_PRIVATE_KEY is not a usable RSA key")

    monkeypatch.setattr(server, "live_github", unusable)
    assert redeliver_reporting_status(tmp_path) == 2
    err = capsys.readouterr().err
    assert err == "review-notes redeliver: GITHUB_PRIVATE_KEY is not a usable RSA key\n"
    github = _ClosedGitHub()
    monkeypatch.setattr(server, "live_github", lambda settings: github)

    def failing(*args, **kw):
        raise GitHubError("GET /app/hook/deliveries: 502")

    monkeypatch.setattr(redelivery, "sweep", failing)
    assert redeliver_reporting_status(tmp_path) == 1 and github.closed
    assert capsys.readouterr().err == "review-notes redeliver: GET /app/hook/deliveries: 502\n"


def redeliver_reporting_status(tmp_path) -> int:
    from bot import cli_server
    from bot.db import Database

    db = Database(tmp_path / "bot.sqlite3")
    try:
        return cli_server._redeliver(object(), db, 72)
    finally:
        db.close()


# --- the sweeps: refusals for good, `since`, the waits, the order, events given up ---


# kills: bot/redelivery.py:_ask `400 <= exc.status` -> `400 < exc.status` (a 400 refusal
#   asked for again every sweep of the run)
# kills: bot/redelivery.py:_ask `exc.status < 500` -> `exc.status <= 500` (GitHub's 500,
#   its incident, counted as a refusal for good: the event given up after 3 of them)
@pytest.mark.parametrize(("status", "for_good"), [(400, True), (499, True), (500, False)])
def test_a_refusal_counts_for_good_only_when_github_answers_4xx(status, for_good):
    class Refusing(FakeLog):
        def redeliver(self, delivery_id: int) -> None:
            self.asked.append(delivery_id)
            raise GitHubError(f"GitHub redeliver webhook delivery: {status}", status=status)

    done = sweep(Refusing([item(1, "a", 0)]), nothing_held, SINCE)
    assert [d.guid for d, _ in done.refused] == ["a"]
    assert done.refused_for_good == ({"a"} if for_good else set())


# kills: bot/redelivery.py:Sweeps.done `asks < MAX_ASKS` -> `asks <= MAX_ASKS` (the sweep that gives
#   an event up kept `since` back to it: the next sweep listed it again for nothing)
def test_the_sweep_that_gives_an_event_up_moves_since_past_it():
    sweeps = Sweeps(SINCE)
    github = RefusingLog([item(1, "a", 0)])
    for _ in range(MAX_ASKS):
        sweeps.done(sweep(github, nothing_held, SINCE, skip=sweeps.given_up()), NOW)
    assert sweeps.given_up() == {"a"} and sweeps.since == NOW - CLOCK_SLACK
    assert sweeps.kept_since() == NOW - timedelta(hours=1)  # the next run asks again


# kills: bot/redelivery.py:Sweeps.done `t >= oldest` -> `t > oldest` (an event given up at the edge
#   of GitHub's 72 hours, which the next run's sweep still lists, was forgotten)
def test_an_event_given_up_at_the_edge_of_githubs_window_is_kept_for_the_next_run():
    sweeps = Sweeps(SINCE)
    edge = attempt(1, "a", 0, hours_ago=KEPT_HOURS)  # delivered at NOW - 72 h exactly
    for _ in range(MAX_ASKS):
        sweeps.done(Sweep(listed=1, seen={"a"}, asked=[edge]), NOW)
    assert sweeps.kept_since() == edge.delivered_at == SINCE
    assert to_redeliver([edge], nothing_held, sweeps.kept_since()) == [edge]


class Intervals(threading.Event):
    """A server's stop event as the sweeps' clock: each `wait(every)` is one interval,
    passed at once; `on_interval(n)` runs first (what happens meanwhile), and the
    `last`th one ends the sweeps (the server stops). No time is waited."""

    def __init__(self, last: int, on_interval: Callable[[int], None] = lambda n: None):
        super().__init__()
        self.now, self.last, self.on_interval = 0, last, on_interval

    def wait(self, timeout: float | None = None) -> bool:
        self.now += 1
        if self.now > self.last:
            self.set()
        else:
            self.on_interval(self.now)
        return self.is_set()


class TooManySweeps(BaseException):
    """Raised past the sweeps a test expects: not caught by the sweep's `except Exception`."""


class OutageLog(FakeLog):
    """GitHub's delivery log during an outage in front of the server: each redelivery it
    accepts fails too (a new attempt, status 0). Records in which interval it was
    listed and asked."""

    def __init__(self, clock: Intervals, guid: str = "a"):
        super().__init__([])
        self.clock, self.listings, self.asks = clock, [], []
        self.attempts = [self._attempt(1, guid)]

    @staticmethod
    def _attempt(id: int, guid: str) -> dict[str, Any]:
        at = datetime.now(UTC).isoformat()
        return {"id": id, "guid": guid, "delivered_at": at, "status_code": 0}

    def hook_deliveries(self, since: datetime, stopping=None) -> list[dict[str, Any]]:
        self.listings.append(self.clock.now)
        if len(self.listings) > 50:
            raise TooManySweeps(self.listings)
        return list(self.attempts)

    def redeliver(self, delivery_id: int) -> None:
        self.asks.append(self.clock.now)
        guid = next(a["guid"] for a in self.attempts if a["id"] == delivery_id)
        self.attempts.append(self._attempt(len(self.attempts) + 1, guid))


def _sweeping(tmp_path, clock: Intervals, **queue_set_up: Any) -> tuple[OutageLog, str]:
    """A server's sweeps (start and one each interval) run until `clock` stops them: the
    log's record and the /metrics text."""
    from bot.db import Database
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

    queue = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    github, metrics = OutageLog(clock), Metrics()
    if queue_set_up.get("stored_before"):
        queue.enqueue("older", "pull_request", "opened", {}, "o/r", 1)
    if queue_set_up.get("locked"):

        def locked() -> str | None:
            raise sqlite3.OperationalError("database is locked")

        clock.on_interval = lambda n: setattr(queue, "last_received", locked)
    clock.on_interval = queue_set_up.get("on_interval", clock.on_interval)
    try:
        Redeliverer(github, queue, metrics, clock, on_start=True, every_s=1.0).run()
    finally:
        queue.db.close()
    return github, metrics.render().decode()


# kills: bot/redelivery.py:Redeliverer.run `waits = 0` -> `waits = 1` at the start (asked after 1
#   interval)
# kills: bot/redelivery.py:Redeliverer.run `every and not wait` -> `every or not wait` (a loop that
#   never waits, asking again at once) and -> `every and wait` (no sweep after the start's)
# kills: bot/redelivery.py:Redeliverer.run `waiting is not None and` -> `or` (a sweep that asked
#   nothing waited too) and `is not None` -> `is None` (no waiting after an ask: every interval
#   asks)
# kills: bot/redelivery.py:Redeliverer.run `waits += 1` -> `+= 2`, :Redeliverer.run `waits <
#   allowed` -> `<=`, :Redeliverer.run `continue` -> `pass`, :Redeliverer.run `waits = 0` -> `waits
#   = 1` (each a different back-off)
# kills: bot/redelivery.py:Redeliverer._github_reached_us_since `return False` -> `return True` (a
#   locked database read as GitHub reaching us: every interval spends an ask)
# kills: bot/redelivery.py:Redeliverer._github_reached_us_since `last is not None and` -> `or`, `is
#   not None` -> `is None`
# kills: bot/redelivery.py:Redeliverer._sweep `return began if result.asked` -> `return None` (no
#   back-off)
@pytest.mark.parametrize("queue_set_up", [{}, {"stored_before": True}, {"locked": True}])
def test_after_an_ask_in_an_outage_the_sweeps_wait_2_then_4_intervals(tmp_path, queue_set_up):
    """docs/settings.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): after a sweep whose
    redeliveries went
    out, the next ones wait until a delivery from GitHub is stored again, backing off (2,
    then 4, ... intervals). Here none is stored (a quiet repository; nothing since an
    older one; the database locked, read as nothing): the event is asked for at the
    start and after 2 and 4 more intervals, then given up (MAX_ASKS); the sweep 8
    intervals later asks nothing, and the ones after it no longer wait."""
    github, metrics = _sweeping(tmp_path, Intervals(16), **queue_set_up)
    assert github.asks == [0, 2, 6]
    assert github.listings == [0, 2, 6, 14, 15, 16]
    assert 'review_notes_redelivery_sweeps_total{outcome="waiting"} 11.0' in metrics
    assert 'review_notes_redelivery_sweeps_total{outcome="done"} 6.0' in metrics
    assert 'review_notes_redeliveries_total{outcome="given_up"} 1.0' in metrics


# kills: bot/redelivery.py:Redeliverer._github_reached_us_since `return last is not None and ...` ->
#   `return None` (a delivery stored again never ended the waiting: the outage over, the event
#   waited out 2 intervals)
def test_a_delivery_stored_again_ends_the_waiting_at_the_next_interval(tmp_path):
    def github_reaches_us(n: int) -> None:
        if n == 1:  # the outage is over: GitHub's next delivery is stored
            from bot.db import Database
            from bot.queue import DeliveryQueue

            other = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
            other.enqueue("next", "pull_request", "opened", {}, "o/r", 2)
            other.db.close()

    github, _ = _sweeping(tmp_path, Intervals(4), on_interval=github_reaches_us)
    assert github.asks == [0, 1, 3]  # then the back-off starts over: 2 intervals
    assert github.listings == [0, 1, 3]


# kills: bot/redelivery.py:to_redeliver (hand) `sorted(chosen, ...)` -> `chosen` (events asked for
#   in the listing's order, newest first: a PR's `closed` redelivered before its `opened`)
def test_events_are_asked_for_oldest_first_though_github_lists_newest_first():
    listing = [attempt(3, "closed", 0, 1), attempt(2, "opened", 0, 2), attempt(1, "closed", 0, 3)]
    chosen = to_redeliver(listing, nothing_held, SINCE)
    assert [(d.guid, d.id) for d in chosen] == [("closed", 3), ("opened", 2)]
    listing = [attempt(2, "closed", 0, 1), attempt(1, "opened", 0, 2)]
    assert [d.guid for d in to_redeliver(listing, nothing_held, SINCE)] == ["opened", "closed"]


class InFlightLog(OutageLog):
    """GitHub accepts each redelivery (202) and has not made it yet: the listing shows
    the event's failed attempt only, ten minutes old."""

    @staticmethod
    def _attempt(id: int, guid: str) -> dict[str, Any]:
        at = (datetime.now(UTC) - timedelta(minutes=10)).isoformat()
        return {"id": id, "guid": guid, "delivered_at": at, "status_code": 0}

    def redeliver(self, delivery_id: int) -> None:
        self.asks.append(self.clock.now)


# kills: bot/redelivery.py:Redeliverer._sweep (hand) a sweep listing from GitHub's 72 hours back,
#   not from where the last one began (the event whose redelivery GitHub has not made yet asked for
#   again by the next sweep: twice)
def test_the_next_sweep_does_not_ask_again_for_a_redelivery_github_has_not_made_yet(tmp_path):
    from bot.db import Database
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

    clock = Intervals(3)
    queue = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    github = InFlightLog(clock)

    def github_reaches_us(n: int) -> None:  # other events come: the sweeps do not wait
        queue.enqueue(f"other-{n}", "pull_request", "opened", {}, "o/r", 2)

    clock.on_interval = github_reaches_us
    try:
        Redeliverer(github, queue, Metrics(), clock, on_start=True, every_s=1.0).run()
    finally:
        queue.db.close()
    assert github.listings == [0, 1, 2, 3]
    assert github.asks == [0]


class SayingNoLog(InFlightLog):
    """GitHub says no (422) to every redelivery: it will say so again."""

    def redeliver(self, delivery_id: int) -> None:
        self.asks.append(self.clock.now)
        raise GitHubError("GitHub redeliver webhook delivery: 422", status=422)


# kills: bot/redelivery.py:Redeliverer._sweep (hand) `keep_sweep_since(sweeps.kept_since())` ->
#   `keep_sweep_since(sweeps.since)` (an event given up in one server run never asked for
#   by the next: docs/settings.md counts MAX_ASKS per run)
def test_an_event_given_up_in_one_server_run_is_asked_for_by_the_next_runs_start(tmp_path):
    from bot.db import Database
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

    asked: list[list[int]] = []
    for intervals in (5, 0):  # a server run of 5 intervals, then the next run's start
        clock = Intervals(intervals)
        queue = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
        github = SayingNoLog(clock)
        try:
            Redeliverer(github, queue, Metrics(), clock, on_start=True, every_s=1.0).run()
        finally:
            queue.db.close()
        asked.append(github.asks)
    assert asked == [[0, 1, 2], [0]]  # MAX_ASKS in the first run, one more in the next


# --- the operator's failures, end to end ---


# kills: bot/redelivery.py:Redeliverer.run (hand) the sweeps' thread ending when the
#   database refused their first write (no sweep for the rest of the server run)
def test_sweeps_the_database_refused_at_their_start_begin_at_the_next_interval(
    tmp_path, monkeypatch
):
    """docs/settings.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): a running server's sweeps
    ask GitHub
    again for what it could not deliver (a full disk answering 500), and the intake's
    500 says they will. Their first act is a write (where they start, kept against a
    kill): when SQLite refused it (another process holding the write lock past the busy
    timeout; a full disk a restart on a quiet database writes nothing else to), the
    thread logged "redelivery sweeps not started" and ended: no sweep for the rest of
    the run, weeks maybe, and no `failed` sweep counted for an alert. Now the start is
    counted failed and tried again at the next interval."""
    from bot import db as bot_db
    from bot.db import Database
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 0.05)  # the wait for the lock, cut short
    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock

    def released(n: int) -> None:
        if n == 1:
            holder.execute("ROLLBACK")

    clock = Intervals(2, released)
    github, metrics = OutageLog(clock), Metrics()
    try:
        Redeliverer(github, queue, metrics, clock, on_start=True, every_s=1.0).run()
    finally:
        holder.close()
        queue.db.close()
    assert github.listings == [1] and github.asks == [1]  # the start's sweep, one late
    text = metrics.render().decode()
    assert 'review_notes_redelivery_sweeps_total{outcome="failed"} 1.0' in text


# kills: bot/redelivery.py:Redeliverer.run (hand) `not self.every_s or` dropped (sweeps at start
#   only, REVIEW_NOTES_REDELIVER_EVERY_MINUTES=0, begun again at once, over and over)
def test_sweeps_at_start_only_the_database_refused_are_not_begun_again(tmp_path, monkeypatch):
    from bot import db as bot_db
    from bot.db import Database
    from bot.metrics import Metrics
    from bot.queue import DeliveryQueue

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 0.05)
    db = tmp_path / "bot.sqlite3"
    queue = DeliveryQueue(Database(db))
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    clock = Intervals(2, lambda n: holder.execute("ROLLBACK") if n == 1 else None)
    github, metrics = OutageLog(clock), Metrics()
    try:
        Redeliverer(github, queue, metrics, clock, on_start=True, every_s=0.0).run()
    finally:
        holder.close()
        queue.db.close()
    assert github.listings == [] and clock.now == 0  # no wait, no sweep: `0` is at start only
    assert 'review_notes_redelivery_sweeps_total{outcome="failed"} 1.0' in metrics.render().decode()


# --- an operator's walkthrough: a dry run with the App's secret, then live on its database ---


def test_a_sweep_runs_again_what_a_dry_run_handled_of_its_listing_and_asks_github_for_none(
    caplog,
):
    """GitHub's log shows an event the dry run answered as delivered (202): no ask is
    due, but the queue is handed every listed event (`run_again` keeps those the dry run
    handled) and the log names what it put back."""
    github = FakeLog([item(1, "answered", 202), item(2, "missed", 0), item(3, "live", 200)])
    given: list[set[str]] = []

    def run_again(guids: set[str]) -> list[str]:
        given.append(guids)
        return ["answered"]

    with caplog.at_level(logging.INFO, logger="bot.redelivery"):
        done = sweep(github, nothing_held, SINCE, run_again=run_again)
    assert given == [{"answered", "missed", "live"}]
    assert done.run_again == ["answered"] and github.asked == [2]
    said = [r.getMessage() for r in caplog.records if "dry run" in r.getMessage()]
    assert said == [
        "going live: 1 delivery GitHub sent the dry run run again (their"
        " comments were never posted): answered"
    ]


def test_redeliver_runs_again_what_github_sent_the_dry_run_before_going_live(
    tmp_path, fake_github, app_key, capsys
):
    """With the server's sweeps off (REVIEW_NOTES_REDELIVER_ON_START=false, every 0),
    `review-notes redeliver` is what reads GitHub's log: it puts back what the dry run
    handled of it, as the server's sweep does, and says so."""
    from bot import cli_server
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from bot.redelivery import going_live
    from tests.webhook_kit import app_settings, pr_payload

    sent = fake_github.send_webhook("pull_request", pr_payload())
    sent.status_code = 202  # the dry run, holding the App's secret, answered it
    db = Database(tmp_path / "bot.sqlite3")
    try:
        q = DeliveryQueue(db)
        q.enqueue(sent.guid, "pull_request", "opened", pr_payload(), "o/r", 7001)
        q.complete(q.claim().id)
        with db.tx():
            assert going_live(q, datetime.now(UTC)) == 1
        status = cli_server._redeliver(app_settings(tmp_path, fake_github, app_key), db, 72)
        state = q.get(sent.guid).state
    finally:
        db.close()
    out = capsys.readouterr().out
    assert status == 0 and state == "pending"
    assert f"run again: {sent.guid}  (GitHub sent it to the dry run before going live)" in out
    assert fake_github.calls("POST", "/app/hook/deliveries/*/attempts") == []


# kills: bot/redelivery.py:going_live (hand) keeping from 72 h back without CLOCK_SLACK
def test_going_live_keeps_what_the_dry_run_handled_in_all_github_keeps_and_its_clock_slack(
    tmp_path,
):
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from bot.redelivery import going_live
    from bot.times import stored_time

    db = Database(tmp_path / "bot.sqlite3")
    try:
        q = DeliveryQueue(db)
        for did, age in (("inside", CLOCK_SLACK / 2), ("outside", CLOCK_SLACK * 2)):
            q.enqueue(did, "pull_request", "opened", {}, "o/r", 1)
            received = stored_time(SINCE - age)
            db.execute(
                "UPDATE deliveries SET state = 'done', received_at = ? WHERE id = ?",
                (received, did),
            )
        with db.tx():
            assert going_live(q, NOW) == 1
        assert q.sweep_since() == SINCE.isoformat()
        assert q.run_again({"inside", "outside"}) == ["inside"]
    finally:
        db.close()


# kills: bot/redelivery.py:sweep (hand) every delivery put back named in the one line
def test_the_line_naming_what_runs_again_names_at_most_fifty(caplog):
    github = FakeLog([item(i, f"g{i:03}", 202) for i in range(1, 121)])
    again = [f"g{i:03}" for i in range(1, 121)]
    with caplog.at_level(logging.INFO, logger="bot.redelivery"):
        sweep(github, nothing_held, SINCE, run_again=lambda guids: again)
    (line,) = [r.getMessage() for r in caplog.records if "dry run" in r.getMessage()]
    assert line.endswith("g049, g050 and 70 more") and "120 deliveries" in line


# --- when GitHub first sent an event asked for again ---


class KeepingLog(FakeLog):
    """A log that notes, at each ask, what the queue had kept of first times by then."""

    def __init__(self, items: list[dict[str, Any]], kept: dict[str, datetime]):
        super().__init__(items)
        self.kept, self.kept_at_ask = kept, []

    def redeliver(self, delivery_id: int) -> None:
        self.kept_at_ask.append(dict(self.kept))
        super().redeliver(delivery_id)


def timed(id: int, guid: str, status: int, at: str) -> dict[str, Any]:
    return item(id, guid, status) | {"delivered_at": at}


# kills: bot/redelivery.py:first_sent the latest attempt's time kept, or another event's
def test_a_sweep_keeps_when_github_first_sent_each_event_it_asks_for_before_asking():
    kept: dict[str, datetime] = {}
    github = KeepingLog(
        [
            timed(3, "a", 0, "2026-12-04T11:00:00Z"),  # asked for again already, failed
            timed(1, "a", 0, "2026-12-04T09:00:00Z"),  # (GitHub lists newest first)
            timed(2, "b", 200, "2026-12-04T10:00:00Z"),  # delivered: not asked
        ],
        kept,
    )
    done = sweep(github, nothing_held, SINCE, keep_first=kept.update)
    assert [d.id for d in done.asked] == [3]
    first = datetime(2026, 12, 4, 9, tzinfo=UTC)
    # kept before the ask: GitHub's redelivery may reach the server before its answer
    assert github.kept_at_ask == [{"a": first}] and kept == {"a": first}


def test_a_database_refusing_the_first_times_asks_for_the_events_all_the_same(caplog):
    def refusing(first) -> None:
        raise sqlite3.OperationalError("database is locked")

    github = FakeLog([item(1, "a", 0), item(2, "b", 0)])
    done = sweep(github, nothing_held, SINCE, keep_first=refusing)
    assert github.asked == [1, 2] and len(done.asked) == 2
    assert "when GitHub first sent the 2 events asked again not kept (database is locked)" in (
        caplog.text
    )


# kills: bot/redelivery.py:_keep_first_sent a sweep asking nothing writing (a warning each
#   sweep of a write outage, when nothing is owed)
def test_a_sweep_asking_for_nothing_keeps_nothing(caplog):
    def refusing(first) -> None:
        raise sqlite3.OperationalError("attempt to write a readonly database")

    done = sweep(FakeLog([item(1, "a", 200)]), nothing_held, SINCE, keep_first=refusing)
    assert done.asked == [] and "not kept" not in caplog.text

"""When the client's calls to GitHub may start, and how many it made.

- Pacing (`Pacer`): the requests of one identity (an installation, the token, or the
  App's JWT) are spaced across threads, and all of them pause when GitHub answers any
  one with a rate limit; a request that would wait longer than `sleep_max` is not sent
  (`Paused`).
- Counting (`CallCounter`): every HTTP call by (method, route template, status), with
  the last rate limit headers seen and the pauses, for the metrics and the tests.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.github_errors import rate_header
from bot.github_port import GitHubError, call_paused

# --- call counting ------------------------------------------------------------

_ROUTES = [
    (re.compile(pattern), template)
    for pattern, template in [
        (r"/app", "/app"),
        (r"/app/installations/\d+/access_tokens", "/app/installations/{id}/access_tokens"),
        (r"/app/hook/deliveries", "/app/hook/deliveries"),
        (r"/app/hook/deliveries/\d+/attempts", "/app/hook/deliveries/{id}/attempts"),
        (r"/user", "/user"),
        (r"/repos/[^/]+/[^/]+", "/repos/{owner}/{repo}"),
        (r"/repos/[^/]+/[^/]+/installation", "/repos/{owner}/{repo}/installation"),
        (r"/repos/[^/]+/[^/]+/pulls/\d+", "/repos/{owner}/{repo}/pulls/{number}"),
        (r"/repos/[^/]+/[^/]+/pulls/\d+/files", "/repos/{owner}/{repo}/pulls/{number}/files"),
        (r"/repos/[^/]+/[^/]+/issues/\d+", "/repos/{owner}/{repo}/issues/{number}"),
        (
            r"/repos/[^/]+/[^/]+/issues/\d+/comments",
            "/repos/{owner}/{repo}/issues/{number}/comments",
        ),
        (r"/repos/[^/]+/[^/]+/issues/comments/\d+", "/repos/{owner}/{repo}/issues/comments/{id}"),
        (
            r"/repos/[^/]+/[^/]+/issues/comments/\d+/reactions",
            "/repos/{owner}/{repo}/issues/comments/{id}/reactions",
        ),
        (
            r"/repos/[^/]+/[^/]+/pulls/comments/\d+/reactions",
            "/repos/{owner}/{repo}/pulls/comments/{id}/reactions",
        ),
        (
            r"/repos/[^/]+/[^/]+/collaborators/[^/]+/permission",
            "/repos/{owner}/{repo}/collaborators/{username}/permission",
        ),
    ]
]
# GitHub's next-page links name the repository by its id
_REPOSITORY_BY_ID = re.compile(r"^/repositories/\d+(?=/|$)")


def route_template(path: str) -> str:
    """`/repos/o/r/pulls/7/files` -> `/repos/{owner}/{repo}/pulls/{number}/files` (else "other")."""
    path = _REPOSITORY_BY_ID.sub("/repos/{owner}/{repo}", path)
    for pattern, template in _ROUTES:
        if pattern.fullmatch(path):
            return template
    return "other"


class CallCounter:
    """GitHub HTTP calls by (method, route template, status), safe across threads.

    `status` is the HTTP status as text, or "timeout" / "connection" when no answer
    came. Also keeps the last x-ratelimit-remaining seen by identity (`remaining`), the
    last x-ratelimit-reset, and the rate limit pauses (`record_pause`) on the client's
    clock.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[tuple[str, str, str]] = Counter()
        # by identity ("installation", "app": the App's JWT, "token"): each has a rate
        # limit of its own, and the JWT's, spent by a sweep, hid an installation's
        self._remaining: dict[str, int] = {}
        self.rate_reset: int | None = None
        self._clock = clock
        self.pauses = 0  # rate limit pauses begun (each logged once)
        self._paused_until = 0.0  # clock() at the end of the latest pause

    def record_pause(self, seconds: float, *, news: bool) -> None:
        """A rate limit answer paused calls for `seconds`; `news`: a pause begun (or
        notably lengthened), not one more answer within it."""
        with self._lock:
            self.pauses += news
            self._paused_until = max(self._paused_until, self._clock() + seconds)

    def paused_for(self) -> float:
        """Seconds left of the rate limit pause under way; 0 when there is none."""
        with self._lock:
            return max(self._paused_until - self._clock(), 0.0)

    def record(
        self,
        method: str,
        route: str,
        status: str,
        headers: dict[str, Any] | None = None,
        identity: str = "installation",
    ):
        with self._lock:
            self._counts[(method, route, status)] += 1
            # a header that is no number is no sample (the last one stands)
            headers = headers or {}
            if (remaining := rate_header(headers, "x-ratelimit-remaining")) is not None:
                self._remaining[identity] = int(remaining)
            if (reset := rate_header(headers, "x-ratelimit-reset")) is not None:
                self.rate_reset = int(reset)

    def snapshot(self) -> dict[tuple[str, str, str], int]:
        with self._lock:
            return dict(self._counts)

    def remaining(self) -> dict[str, int]:
        """The last x-ratelimit-remaining GitHub gave, by identity (none before an answer)."""
        with self._lock:
            return dict(self._remaining)

    def total(
        self, method: str | None = None, route: str | None = None, status: str | None = None
    ) -> int:
        return sum(
            n
            for (m, r, s), n in self.snapshot().items()
            if (method is None or m == method)
            and (route is None or r == route)
            and (status is None or s == status)
        )


# --- pacing -------------------------------------------------------------------

# GitHub's longest content-creation window ("no more than 500 per hour"): a write's
# secondary limit this old no longer keeps its back-off from a read's start over
WRITE_LIMIT_WINDOW = 3600.0

# A rate limit pause that ends this much later than the one under way is news (logged);
# less, and it is the same limit answered to requests that were in flight together.
PAUSE_NEWS = 1.0


class Paused(GitHubError):
    """A request not sent: its identity is rate limited for longer than `sleep_max`."""

    def __init__(self, message: str, *, retry_after: float):
        super().__init__(message, transient=True, retry_after=retry_after, sent=False)


class Pacer:
    """When the requests made with one identity (an installation, the token, or the App's
    JWT) may start, across threads: spacing, and the pauses GitHub asks for.

    PyGithub spaces the requests of one `Github` object; with a `Github` per thread that
    would space each thread's requests only, so the per-thread objects have PyGithub's
    spacing off and share this instead. A request starts at least `between_requests`
    after the previous one started and after every one that had ended by then (PyGithub
    counts from the end); a write likewise `between_writes` after the previous write.
    Threads take turns: a request that starts holds its slot.

    GitHub counts rate limits per identity and may ban an integration that goes on
    calling while limited, so a rate limit answer to any thread's request pauses them
    all (`pause`): no request starts before the time GitHub gave, and one that would
    have to wait longer than `sleep_max` fails at once (`Paused`) rather than hold its
    worker, like the call that was answered so.
    """

    def __init__(
        self,
        between_requests: float,
        between_writes: float,
        sleep_max: float = float("inf"),
        name: str = "",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self._gap = between_requests
        self._write_gap = between_writes
        self._sleep_max = sleep_max
        self._name = name  # the identity, for the error
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._next = 0.0  # clock() before which no request starts
        self._next_write = 0.0  # ... no write starts
        self._paused_until = 0.0  # ... no request starts: GitHub said so
        self._secondary_streak = 0  # secondary limits met since the last call that was not
        self._write_limited = False  # a write met one of them (see `answered`)
        self._limited_at = 0.0  # clock() when the last one was met

    def met_secondary_limit(self, verb: str) -> int:
        """A secondary limit (no Retry-After, no reset) answered to a `verb` request: how
        many in a row, this one included. An answer within the pause under way is the
        same limit met by a request in flight with the first, not one more."""
        with self._lock:
            if self._paused_until <= self._clock():
                self._secondary_streak += 1
            self._write_limited |= verb != "GET"
            self._limited_at = self._clock()
            return max(self._secondary_streak, 1)

    def answered(self, verb: str) -> None:
        """A `verb` call that was not rate limited: the next secondary limit starts over,
        unless a write met the limit (less than WRITE_LIMIT_WINDOW ago) and this is a
        read. GitHub's content-creation limit refuses writes only: a delivery's reads go
        through before its write is refused again, and a read starting it over kept the
        back-off at its first minute."""
        with self._lock:
            recent = self._clock() - self._limited_at < WRITE_LIMIT_WINDOW
            if verb != "GET" or not (self._write_limited and recent):
                self._secondary_streak = 0
                self._write_limited = False

    def pause(self, seconds: float) -> bool:
        """No request starts for `seconds` from now. True when this begins a pause or
        ends it later by more than PAUSE_NEWS (worth a log line)."""
        with self._lock:
            now = self._clock()
            until = now + seconds
            before, self._paused_until = self._paused_until, max(self._paused_until, until)
        return until > now and (before <= now or until > before + PAUSE_NEWS)

    def before(self, verb: str) -> None:
        write = verb != "GET"
        while True:
            with self._lock:
                now = self._clock()
                paused = self._paused_until
                if paused - now > self._sleep_max:
                    call_paused()
                    raise Paused(
                        f"{self._name} rate limited for another {paused - now:.0f}s (GitHub's"
                        " answer to another call); not sent, try again then",
                        retry_after=paused - now,
                    )
                start = max(now, paused, self._next, self._next_write if write else 0.0)
                self._next = start + self._gap
                if write:
                    self._next_write = start + self._write_gap
            if start <= now:
                return
            self._sleep(start - now)
            with self._lock:
                if self._paused_until <= max(paused, self._clock()):
                    return
            # a rate limit answer came while this request waited its turn: its slot
            # was before the pause ends, so it takes a new one

    def after(self, verb: str) -> None:
        with self._lock:
            end = self._clock()
            self._next = max(self._next, end + self._gap)
            if verb != "GET":
                self._next_write = max(self._next_write, end + self._write_gap)

"""The GitHub client's one retry layer: which failures are tried again, how long to wait
between tries, and the GitHubError the caller gets when they end.

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), under
`bot.github_client`. A worker must never sleep out a long rate limit here, nor retry a
write a locked conversation refused. The rules: `Retrier`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from github import GithubException
from tenacity import RetryCallState, Retrying, retry_if_exception

from bot.github_errors import (
    RETRY_AFTER,
    TRANSPORT_ERRORS,
    LockedError,
    NotTheAPI,
    asked_retry_after,
    conversation_locked,
    detail,
    headers_of,
    jwt_clock_problem,
    never_connected,
    rate_limited,
    retryable,
    secondary_limit,
    until_reset,
)
from bot.github_pacing import Paused
from bot.github_port import ClientClosed, GitHubError

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 4  # tries per call, the first included
    backoff: float = 1.0  # first wait after a 5xx / timeout / dropped connection; doubles
    backoff_max: float = 30.0  # the longest of those waits (REVIEW_NOTES_RETRY_BACKOFF_MAX)
    secondary_wait: float = 60.0  # rate limited without Retry-After or reset; doubles
    # caps every wait chosen here: the secondary_wait doubling (never under secondary_wait)
    # and the 5xx back-off; not a wait GitHub names (Retry-After, a primary limit's reset)
    max_wait: float = 300.0
    # The longest rate limit wait slept in a worker; a longer one fails the call at once
    # (transient, retry_after) and the delivery is put back until then: a worker asleep
    # would hold back every other installation's deliveries.
    sleep_max: float = 5.0
    # A create whose answer was lost, missing from the comment list: looked for again after
    # this long before it is posted again (the list may lag behind the write); 0: no wait
    lost_create_wait: float = 5.0


def went_out(exc: BaseException) -> bool:
    """Whether a try that failed with `exc` sent its request, or may have: not one held
    back (a pause, the client closed, a call of its own that sent nothing), one whose
    connection was never made (`never_connected`), nor one another server than GitHub's
    API answered (`NotTheAPI`: GitHub never saw it). The call's `sent`, and each write
    try a port counts (`bot.github_port.write_asked`)."""
    if isinstance(exc, NotTheAPI):
        return False
    if isinstance(exc, GitHubError):
        return exc.sent
    return not never_connected(exc)


class Retrier:
    """Runs each call to GitHub (`call`) with the tries and waits of `policy`; `sleep`
    sleeps the waits between tries.

    - Retries happen here only (PyGithub's own retry is off, `retry=None`), with tenacity:
      on 5xx, timeouts, dropped connections and rate limits (Retry-After, seconds or a
      date; else the x-ratelimit-reset when x-ratelimit-remaining is 0; else
      `secondary_wait`, GitHub asks for at least a minute, doubled at each secondary limit
      met again before a call of that identity succeeds, up to `max_wait`, or
      `secondary_wait` if that is more).
      Attempts are bounded. A worker sleeps only short waits: a rate limit asking for
      longer than `sleep_max` fails the call at once with GitHubError(transient=True,
      retry_after=...), and the worker puts the delivery back until then (bot.workers),
      free meanwhile for other installations.
    - A write GitHub refuses because the conversation is locked (403, "... because issue is
      locked.") raises `LockedError`, a GitHubError and the port's ConversationLocked: it is
      not retried, and the caller knows no retry will do.
    """

    def __init__(self, policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep):
        self.policy = policy
        self.sleep = sleep
        self._local = threading.local()  # .secondary_streak, see `note_secondary_streak`
        # set by close(): no try starts after it, not even a retry of a call under way
        # (a redelivery sweep whose call outlasted the server's stop)
        self._closed = threading.Event()

    def call(self, what: str, fn: Callable[[], T]) -> T:
        policy = self.policy

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            asked = self.asked_wait(exc) if exc is not None else None
            if asked is not None:
                return asked
            longest = min(policy.backoff_max, policy.max_wait)  # max_wait caps, never stops
            step = min(longest, policy.backoff * 2 ** (state.attempt_number - 1))
            return step * random.uniform(0.5, 1.0)  # jitter: workers do not retry in step

        def stop(state: RetryCallState) -> bool:
            # only a rate limit's wait over sleep_max ends the tries early: not slept in a
            # worker, the delivery goes back to the queue until then
            exc = state.outcome.exception() if state.outcome else None
            limited = exc is not None and rate_limited(exc)
            too_long = limited and (state.upcoming_sleep or 0.0) > policy.sleep_max
            return state.attempt_number >= policy.attempts or too_long

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.warning(
                "GitHub %s: %s; try %d of %d in %.1fs",
                what,
                detail(exc) if exc else "?",
                state.attempt_number + 1,
                policy.attempts,
                state.upcoming_sleep,
            )

        sent = [False]  # whether a try went out, or may have: a write GitHub counts

        def tried() -> T:
            if self._closed.is_set():  # not sent: the server stopped
                raise ClientClosed(f"GitHub {what}: not called, the client is closed")
            try:
                return fn()
            except BaseException as exc:
                sent[0] = sent[0] or went_out(exc)
                raise

        retrying = Retrying(
            retry=retry_if_exception(retryable),
            wait=wait,
            stop=stop,
            sleep=self._between_tries,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            return retrying(tried)
        except Paused as paused:  # not sent (unless by a try before): say which call
            raise GitHubError(
                f"GitHub {what}: {paused}",
                transient=True,
                retry_after=paused.retry_after,
                sent=sent[0],
            ) from paused
        except GitHubError as err:  # a call of its own held back (the login `_find` reads)
            err.sent = sent[0]
            raise
        except (GithubException, *TRANSPORT_ERRORS) as exc:
            attempts = retrying.statistics.get("attempt_number", 1)
            failure = self._failure(what, exc, attempts)
            failure.sent = sent[0]  # none went out (never connected, not GitHub's answer): no write
            raise failure from exc

    def _between_tries(self, seconds: float) -> None:
        """The wait before a call's next try; on the wall clock, `close` cuts it short (the
        try then refuses at once), lest a stopping server's worker sleep out a back-off
        of up to half a minute past the stop's wait for it."""
        if self.sleep is time.sleep:
            self._closed.wait(seconds)
        else:  # a test's clock
            self.sleep(seconds)

    def pause(self, seconds: float, what: str) -> None:
        """Wait `seconds` within a try, as between tries (`close` cuts it short); the call
        goes no further once the client is closed."""
        self._between_tries(seconds)
        if self._closed.is_set():
            raise ClientClosed(f"GitHub {what}: not called, the client is closed")

    def note_secondary_streak(self, streak: int) -> None:
        """The identity's streak of secondary limits met (0: the answer was not one), as
        this thread's last rate limit answer left it, just before PyGithub raises it."""
        self._local.secondary_streak = streak

    def asked_wait(self, exc: BaseException) -> float | None:
        """How long GitHub asked us to wait, for a rate limit; None for other errors."""
        if not rate_limited(exc):
            return None
        assert isinstance(exc, GithubException)
        if not secondary_limit(exc):  # GitHub named the time
            headers = headers_of(exc)
            if (named := asked_retry_after(headers)) is not None:
                return named
            return until_reset(headers)
        # GitHub: wait at least a minute, then back off exponentially. The streak is the
        # identity's, set by this thread's answer (`note_secondary_streak`) just before
        # PyGithub raised.
        streak = getattr(self._local, "secondary_streak", 0) or 1
        # max_wait caps the doubling, never the first minute: a smaller max_wait would
        # call again sooner than GitHub allows.
        longest = max(self.policy.max_wait, self.policy.secondary_wait)
        return min(self.policy.secondary_wait * 2 ** (streak - 1), longest)

    def close(self) -> None:
        """No try starts after it."""
        self._closed.set()

    def _failure(self, what: str, exc: BaseException, attempts: int) -> GitHubError:
        status = exc.status if isinstance(exc, GithubException) else None
        if isinstance(exc, NotTheAPI):  # not GitHub's status: no caller takes it for GitHub's
            return GitHubError(f"GitHub {what}: {detail(exc)}")
        if conversation_locked(exc):
            return LockedError(f"GitHub {what}: {detail(exc)}", status=status)
        if not retryable(exc):
            # a clock drifted since the start's check: every JWT call fails the same way
            clock = jwt_clock_problem(exc, time.time(), then=RETRY_AFTER)
            said = f": {clock}" if clock is not None else ""
            return GitHubError(
                f"GitHub {what}: {detail(exc)}{said}", status=status, advised=clock is not None
            )
        asked = self.asked_wait(exc)
        if asked is not None and asked > self.policy.sleep_max:
            message = (
                f"GitHub {what}: rate limited, asked to wait {asked:.0f}s; not waited in a"
                " worker, try again then"
            )
        else:
            message = f"GitHub {what}: {detail(exc)} (gave up after {attempts} attempts)"
        return GitHubError(message, status=status, transient=True, retry_after=asked)

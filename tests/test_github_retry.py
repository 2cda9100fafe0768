"""The retry layer's waits, read off GitHub's answers (bot.github_retry), as pure calls:
the end-to-end retries on the fake GitHub are in test_github_client and test_faults."""

from __future__ import annotations

import pytest
import requests
from github import GithubException

from bot.github_port import GitHubError
from bot.github_retry import Retrier, RetryPolicy

# --- what a failed call waits for: rate limits, secondary limits, refusals ---------------


# kills: bot/github_retry.py:Retrier.asked_wait its `if not rate_limited(exc): return None`
#        dropped: a 5xx carrying Retry-After was then slept for as long as it named, in the
#        worker and past `sleep_max` (only a rate limit's long wait ends the tries early),
#        and a dropped connection failed the call on an AssertionError
def test_only_a_rate_limit_names_a_wait_a_server_errors_retry_after_is_backed_off():
    retrier = Retrier(RetryPolicy())
    assert retrier.asked_wait(GithubException(502, {}, {"Retry-After": "120"})) is None
    assert retrier.asked_wait(GithubException(404, {}, {"Retry-After": "120"})) is None
    assert retrier.asked_wait(requests.exceptions.ConnectionError("dropped")) is None
    # the same header on a rate limit answer is the wait
    assert retrier.asked_wait(GithubException(429, {}, {"Retry-After": "120"})) == 120.0


def _secondary_limit() -> GithubException:
    """A rate limit naming no time (no Retry-After, no reset): the back-off is ours."""
    return GithubException(429, {"message": "You have exceeded a secondary rate limit"}, {})


# kills: bot/github_retry.py:Retrier.asked_wait `getattr(...) or 1` -> `and 1`: every
#        secondary limit met again waited the first minute (no doubling), and one met with
#        no streak noted waited half of it, sooner than GitHub allows
def test_a_secondary_limit_met_again_doubles_its_wait_from_a_full_minute_up_to_max_wait():
    retrier = Retrier(RetryPolicy(secondary_wait=60.0, max_wait=300.0))
    assert retrier.asked_wait(_secondary_limit()) == 60.0  # no streak noted on this thread
    waits = []
    for streak in (0, 1, 2, 3, 4):
        retrier.note_secondary_streak(streak)
        waits.append(retrier.asked_wait(_secondary_limit()))
    assert waits == [60.0, 60.0, 120.0, 240.0, 300.0]


def test_a_max_wait_under_the_secondary_wait_never_shortens_the_first_minute():
    retrier = Retrier(RetryPolicy(secondary_wait=60.0, max_wait=10.0))
    retrier.note_secondary_streak(3)
    assert retrier.asked_wait(_secondary_limit()) == 60.0


# kills: bot/github_retry.py:Retrier._failure `said = ... if clock is not None else ""`
#        negated: every refusal's error ended ": None" (test_server pins the clock's words)
def test_a_refused_call_fails_at_once_with_githubs_words_alone():
    tries: list[int] = []

    def refused() -> None:
        tries.append(1)
        raise GithubException(404, {"message": "Not Found"}, {})

    with pytest.raises(GitHubError) as failed:
        Retrier(RetryPolicy(), sleep=lambda _: None).call("read the PR", refused)
    assert str(failed.value) == "GitHub read the PR: 404 Not Found"
    assert (failed.value.status, failed.value.transient, tries) == (404, False, [1])

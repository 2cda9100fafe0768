"""The client's pacing and call counting (bot.github_pacing), on a clock of the test's:
no GitHub, no threads. How the client uses them against the fake GitHub (threads sharing
a pacer, two calls meeting one limit, the pauses metric) is in test_github_client.py."""

from __future__ import annotations

import pytest

from bot import github_pacing
from bot.github_pacing import route_template
from bot.github_port import watching_limits

FILES_ROUTE = "/repos/{owner}/{repo}/pulls/{number}/files"


# --- route templates ----------------------------------------------------------


def test_route_templates():
    assert route_template("/repos/o/r/issues/comments/5/reactions") == (
        "/repos/{owner}/{repo}/issues/comments/{id}/reactions"
    )
    assert route_template("/repos/o/r/collaborators/a%20b/permission").endswith("/permission")
    assert route_template("/gists") == "other"
    # next-page links name the repository by id; reactions on a diff comment
    assert route_template("/repositories/1300192/issues/7/comments") == (
        "/repos/{owner}/{repo}/issues/{number}/comments"
    )
    assert route_template("/repos/o/r/pulls/comments/5/reactions").endswith("/{id}/reactions")


# --- call counting ------------------------------------------------------------


# kills: bot/github_pacing.py:CallCounter.record `"x-ratelimit-reset" in headers` -> `not in`,
#        :CallCounter.total `method is None` / `route is None` -> `is not None`
def test_the_call_counter_totals_by_each_part_and_keeps_the_last_rate_headers():
    calls = github_pacing.CallCounter()
    calls.record("GET", FILES_ROUTE, "200", {"x-ratelimit-remaining": "41"})
    calls.record("GET", FILES_ROUTE, "502")
    calls.record("POST", "other", "201", {"x-ratelimit-reset": "1700000000"})
    assert calls.total() == 3
    assert (calls.total("GET"), calls.total("POST"), calls.total("PATCH")) == (2, 1, 0)
    assert (calls.total(route=FILES_ROUTE), calls.total(route="other")) == (2, 1)
    assert calls.total("GET", FILES_ROUTE, "502") == 1
    assert (calls.remaining(), calls.rate_reset) == ({"installation": 41}, 1700000000)


# kills (a hand mutant): bot/github_pacing.py:CallCounter.paused_for `max(..., 0.0)` dropped
def test_the_pause_left_counts_down_to_zero_not_below():
    now = [0.0]
    calls = github_pacing.CallCounter(clock=lambda: now[0])
    assert calls.paused_for() == 0.0
    calls.record_pause(5.0, news=True)
    now[0] = 2.0
    assert calls.paused_for() == 3.0
    now[0] = 7.0
    assert calls.paused_for() == 0.0


# kills: bot/github_pacing.py:CallCounter.record a rate header that is no number raised
#        (ValueError) instead of being no sample
def test_the_call_counter_takes_a_rate_header_that_is_no_number_for_no_sample():
    calls = github_pacing.CallCounter()
    calls.record("GET", FILES_ROUTE, "200", {"x-ratelimit-remaining": "41.0"})
    calls.record("GET", FILES_ROUTE, "200", {"x-ratelimit-reset": "1700000000.0"})
    calls.record("GET", FILES_ROUTE, "200", {"x-ratelimit-remaining": "many"})
    calls.record("GET", FILES_ROUTE, "200", {"x-ratelimit-reset": "nan"})
    assert (calls.remaining(), calls.rate_reset) == ({"installation": 41}, 1700000000)


# kills: bot/github_pacing.py:CallCounter.__init__ `self.rate_reset = None` dropped,
#        `self.pauses = 0` -> 1, and :CallCounter.record_pause `self.pauses += news` dropped
def test_a_new_call_counter_has_seen_nothing_and_counts_only_the_pauses_begun():
    """What /metrics reads before GitHub answered anything: no call, no rate headers, no
    pause; then a pause begun is counted, and more answers within it are not."""
    calls = github_pacing.CallCounter(clock=lambda: 0.0)
    assert (calls.snapshot(), calls.remaining(), calls.rate_reset, calls.pauses) == (
        {},
        {},
        None,
        0,
    )
    calls.record_pause(3.0, news=True)
    calls.record_pause(2.0, news=False)
    assert calls.pauses == 1 and calls.paused_for() == 3.0


# kills: bot/github_pacing.py:CallCounter.total `s == status` -> `s != status`
def test_the_call_counter_totals_by_status():
    calls = github_pacing.CallCounter()
    for status in ("200", "200", "502"):
        calls.record("GET", FILES_ROUTE, status)
    assert (calls.total(status="200"), calls.total(status="502"), calls.total(status="404")) == (
        2,
        1,
        0,
    )


# --- pacing -------------------------------------------------------------------


def test_the_shared_spacing_makes_threads_take_turns():
    now, slept = [0.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = github_pacing.Pacer(0.25, 1.0, clock=lambda: now[0], sleep=sleep)
    pacer.before("POST")  # a write starts at 0
    pacer.before("POST")  # another thread's, the first still under way: 1 s after its start
    pacer.before("GET")  # a third thread's read: 0.25 s after the second write started
    assert (slept, now[0]) == ([1.0, 0.25], 1.25)
    now[0] = 3.0
    pacer.after("POST")  # the first write ends late
    pacer.before("GET")  # 0.25 s after that end
    pacer.before("POST")  # 1 s after that end
    assert (slept[2:], now[0]) == ([0.25, 0.75], 4.0)


def test_a_pause_holds_every_turn_and_the_spacing_goes_on_after_it():
    now, slept = [0.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds
        if len(slept) == 3:  # another thread's call is answered "rate limited" meanwhile
            assert pacer.pause(5.0)

    pacer = github_pacing.Pacer(0.25, 1.0, sleep_max=10, clock=lambda: now[0], sleep=sleep)
    assert pacer.pause(3.0)  # a pause begins: said
    assert not pacer.pause(2.9)  # another answer within the same pause: not said again
    pacer.before("POST")  # waits the pause out
    pacer.before("POST")  # another thread's write: 1 s after that one, as ever
    assert (slept, now[0]) == ([3.0, 1.0], 4.0)
    pacer.before("POST")  # its turn comes at 5, but a pause to 10 begins while it waits
    assert (slept[2:], now[0]) == ([1.0, 5.0], 10.0)
    assert pacer.pause(60.0)  # over sleep_max: a request fails at once, unsent
    with pytest.raises(github_pacing.Paused, match="another 60s"):
        pacer.before("GET")
    assert now[0] == 10.0


# kills: bot/github_pacing.py:Pacer.pause `before <= now` -> `<`, `until > now` -> `>=`, and
#        `before <= now or ...` -> `and`
@pytest.mark.parametrize(
    ("first", "later", "second", "news"),
    [
        (None, 0.0, 0.0, False),  # no pause at all
        (3.0, 3.0, 0.5, True),  # the last pause ended just now: this one begins
        (3.0, 1.0, 5.0, True),  # ends 3 s after the pause under way: lengthened notably
        (3.0, 1.0, 2.5, False),  # ends 0.5 s after it: the same limit
    ],
)
def test_a_pause_is_news_when_it_begins_or_ends_notably_later(first, later, second, news):
    now = [0.0]
    pacer = github_pacing.Pacer(0.0, 0.0, clock=lambda: now[0])
    if first is not None:
        assert pacer.pause(first)
    now[0] += later
    assert pacer.pause(second) is news


# kills: bot/github_pacing.py:Pacer.before `paused - now > self._sleep_max` -> `>=`,
#        :Pacer.before `transient=True` -> `False`
def test_a_request_waits_a_pause_of_exactly_sleep_max_and_one_longer_is_refused_for_now():
    now, slept = [0.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    pacer = github_pacing.Pacer(0.0, 0.0, sleep_max=10, clock=lambda: now[0], sleep=sleep)
    pacer.pause(10.0)
    pacer.before("GET")
    assert (slept, now[0]) == ([10.0], 10.0)
    pacer.pause(10.5)
    with pytest.raises(github_pacing.Paused) as refused:
        pacer.before("GET")
    assert (refused.value.transient, refused.value.retry_after) == (True, 10.5)


# kills (a hand mutant): bot/github_pacing.py:Pacer.met_secondary_limit
# `max(self._secondary_streak, 1)` -> `self._secondary_streak` (`Retrier.asked_wait`'s `or 1` hides
# it today)
def test_a_secondary_limit_met_within_a_primary_limits_pause_counts_itself():
    now = [0.0]
    pacer = github_pacing.Pacer(0.0, 0.0, clock=lambda: now[0])
    pacer.pause(30.0)  # a primary limit: no secondary one met yet
    now[0] = 1.0
    assert pacer.met_secondary_limit("GET") == 1


# kills: bot/github_pacing.py:Pacer.answered a read started a write's secondary limit over
def test_a_writes_secondary_limit_starts_over_on_a_write_or_a_read_an_hour_on():
    # GitHub's content-creation limit refuses writes only: the reads a delivery makes
    # before its write go through meanwhile, and started the back-off over
    now = [0.0]
    pacer = github_pacing.Pacer(0.0, 0.0, clock=lambda: now[0])
    assert pacer.met_secondary_limit("POST") == 1
    pacer.answered("GET")
    assert pacer.met_secondary_limit("PATCH") == 2
    pacer.answered("POST")  # a write went through: the limit is over
    assert pacer.met_secondary_limit("POST") == 1
    now[0] += github_pacing.WRITE_LIMIT_WINDOW - 1
    pacer.answered("GET")
    assert pacer.met_secondary_limit("POST") == 2
    now[0] += github_pacing.WRITE_LIMIT_WINDOW  # GitHub's longest window has passed
    pacer.answered("GET")
    assert pacer.met_secondary_limit("GET") == 1
    pacer.answered("GET")  # a read met it: a read going through ends it
    assert pacer.met_secondary_limit("GET") == 1


# kills (a hand mutant): bot/github_pacing.py:Pacer.before `max(paused, self._clock())`
# -> `paused`
def test_a_pause_that_ended_while_a_request_waited_its_turn_does_not_cost_the_turn():
    now, slept = [0.0], []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 1:  # another thread's answer: a pause over before this turn comes
            pacer.pause(0.1)
        now[0] += seconds

    pacer = github_pacing.Pacer(0.25, 1.0, clock=lambda: now[0], sleep=sleep)
    pacer.before("GET")
    pacer.before("GET")  # its turn at 0.25
    assert (slept, now[0]) == ([0.25], 0.25)


# kills (hand mutants): bot/github_pacing.py:Pacer.after `max(self._next, ...)`,
# `max(self._next_write, ...)` dropped in `after`
def test_a_request_that_ends_early_does_not_move_back_the_turns_taken_after_it():
    now, slept = [0.0], []
    # the other threads sleep: the clock is the test's
    pacer = github_pacing.Pacer(0.25, 1.0, clock=lambda: now[0], sleep=slept.append)
    pacer.before("POST")  # a write starts at 0
    pacer.before("POST")  # another thread's write takes its turn at 1.0
    now[0] = 0.5
    pacer.after("POST")  # the first ends: 1 s after that is before the turn taken
    pacer.before("GET")  # 0.25 s after the second write's start, not after the first's end
    pacer.before("POST")  # 1 s after the second write's start
    assert slept == [1.0, 0.75, 1.5]


# kills: bot/github_pacing.py:Pacer.__init__ `self._limited_at = 0.0` dropped,
#        `self._write_limited = False` -> True
def test_a_new_pacers_read_that_met_a_secondary_limit_starts_it_over_when_one_goes_through():
    pacer = github_pacing.Pacer(0.0, 0.0, clock=lambda: 0.0)
    pacer.answered("GET")  # nothing met yet: nothing to start over
    assert pacer.met_secondary_limit("GET") == 1
    pacer.answered("GET")  # no write met it: a read going through ends it
    assert pacer.met_secondary_limit("GET") == 1


# kills: bot/github_pacing.py:Pacer.met_secondary_limit `self._limited_at = self._clock()` dropped
def test_a_writes_secondary_limit_is_kept_over_reads_for_an_hour_from_when_it_was_met():
    """The hour a read cannot start a write's back-off over counts from the limit met, on
    the pacer's clock (time.monotonic: far from zero)."""
    now = [50_000.0]
    pacer = github_pacing.Pacer(0.0, 0.0, clock=lambda: now[0])
    assert pacer.met_secondary_limit("POST") == 1
    now[0] += github_pacing.WRITE_LIMIT_WINDOW - 1
    pacer.answered("GET")
    assert pacer.met_secondary_limit("POST") == 2


# kills: bot/github_pacing.py:Pacer.before `call_paused()` dropped
def test_a_request_not_sent_for_a_pause_is_seen_as_held_back_by_another_calls_limit():
    """bot.workers does not count the put-back of a run whose calls met no limit but were
    held back by another's pause (`LimitsSeen.others_only`)."""
    pacer = github_pacing.Pacer(0.0, 0.0, sleep_max=10, clock=lambda: 0.0)
    pacer.pause(60.0)
    with watching_limits() as seen, pytest.raises(github_pacing.Paused):
        pacer.before("POST")
    assert (seen.paused, seen.met, seen.others_only) == (True, False, True)

"""bot/times.py on its own: GitHub's time format, read from a payload's text, and now in it
(the stores' tests cover our own times)."""

from __future__ import annotations

from bot.times import as_github_time, github_time, utcnow


# kills: bot/times.py:as_github_time `or` -> `and` (a number from a payload reached
#        fromisoformat: a TypeError, not None) and the `not isinstance` dropped (every text
#        not a time); bot/times.py:as_github_time `is None` -> `is not None` (an offset
#        overwritten, not converted); bot/times.py:as_github_time -> None (no time ever read)
def test_github_time_of_texts_offsets_and_things_not_times():
    assert as_github_time("2030-01-01T12:00:00+02:00") == "2030-01-01T10:00:00Z"
    assert as_github_time("2030-01-01T10:00:00.250Z") == "2030-01-01T10:00:00Z"
    for not_a_time in (None, "", 20300101, ["2030-01-01"], "not a date"):
        assert as_github_time(not_a_time) is None, not_a_time


# kills: bot/times.py:github_time `or` -> `and` (a time given replaced by now) and -> None: the
#        time an edit was received at, written in GitHub's format, is the one given,
#        and now only when none (or no time) was given
def test_github_time_is_the_time_given_else_now():
    assert github_time("2030-01-01T12:00:00+02:00") == "2030-01-01T10:00:00Z"
    for not_given in (None, "not a date"):
        before = as_github_time(utcnow())
        now = github_time(not_given)
        assert before <= now <= as_github_time(utcnow()), now  # ordered, not timed

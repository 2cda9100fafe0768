"""Times as the bot stores and compares them: GitHub's (`as_github_time`, `github_time`)
and ours (`utcnow`, `stored_time`), text that sorts like the time it names, so that they
compare as text (in SQL, and in the order keys made of both). In the shell, as every
module that reads the clock (`utcnow`) is in the README's Layout."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

GITHUB_TIME = "%Y-%m-%dT%H:%M:%SZ"  # as GitHub writes times; such times compare as text


def as_github_time(at: object) -> str | None:
    """`at` as GitHub writes times (`2030-01-01T10:00:00Z`), None when it is not a time.
    Order keys made of GitHub's times and ours compare as text: a fraction or an offset
    (`.`, `+`) sorts before GitHub's `Z`, and a payload's "not a date" would sort after
    every real time, outranking all that comes later."""
    if not isinstance(at, str) or not at:
        return None
    try:
        when = datetime.fromisoformat(at)
        if when.tzinfo is None:  # no zone given: UTC, as GitHub's times
            when = when.replace(tzinfo=UTC)
        return when.astimezone(UTC).strftime(GITHUB_TIME)
    except (ValueError, OverflowError):  # (a year 1 or 9999 moved across midnight)
        return None


def github_time(at: str | None) -> str:
    """`at` as GitHub writes times; now when not given or not a time."""
    return as_github_time(at) or as_github_time(utcnow()) or ""


def utcnow(after_s: float = 0.0) -> str:
    """Now (or `after_s` seconds from now) as text that sorts like the time it names."""
    return stored_time(datetime.now(UTC) + timedelta(seconds=after_s))


STORED_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"  # our own times in the database (`utcnow`)


def stored_time(at: datetime) -> str:
    """A UTC time as the database keeps it (`utcnow`'s text)."""
    return at.strftime(STORED_TIME)

"""What a GitHub answer or exception means, for the client's retry layer and its logs.

Whether a failure is a rate limit (and a secondary one, which names no time to wait),
a write refused on a locked conversation, worth retrying, or a write GitHub may have
carried out before it failed; how long GitHub asked us to wait; and the short detail
the logs and the delivery records show.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from github import GithubException
from github.Requester import Requester
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError

from bot.github_port import ConversationLocked, GitHubError
from bot.logs import quiet_pygithub

# PyGithub's import (above) gives its logger a stderr handler of its own: off before any
# request is made. Every module of ours that imports PyGithub imports this one, and a
# command imports them only when it calls GitHub, after its log setup.
quiet_pygithub()


class UnreadableAnswer(Exception):
    """A success (200, 201) whose body is no JSON, nor a page (`NotTheAPI`): cut short or
    empty; or JSON of another shape than the call answers, `what` says (null, a list for
    an object). `bot.github_http` raises it before PyGithub reads the body, which it
    would take for an object with no fields, or fail on with a raw ValueError or
    TypeError. What GitHub did cannot be read from it, as when the connection drops
    before the answer."""

    def __init__(self, status: int, what: str = "a body that is no JSON"):
        super().__init__(f"{status} with {what}")
        self.status = status


# What a page where GitHub's JSON should be means (`_check_answer` says it too)
NOT_THE_API = (
    "is GITHUB_API_URL the API's address, https://HOST/api/v3 for GitHub Enterprise,"
    " https://api.github.com for github.com?"
)


class NotTheAPI(GithubException):
    """A success (2xx) that is a web page (HTML), not GitHub's JSON, a refusal surely not
    GitHub's (`foreign_refusal`), or a redirect GitHub's API does not make
    (`bot.github_sessions.within_api`): GITHUB_API_URL names a web site
    (github.com's, a GitHub Enterprise host without /api/v3) or a proxy answers with its
    login page. Every call would get one: a setting to fix, not an outage to wait out, so
    it is no transport error (not retried, a create not looked for: nothing reached
    GitHub). A GithubException with the answer's status, as the client's other refusals
    are; its failure has no status (`bot.github_retry`), which a caller would take for
    GitHub's (a 404: a comment deleted). `what` says what answered."""

    def __init__(self, status: int, what: str = "a web page, not GitHub's JSON"):
        super().__init__(status, {"message": f"{what} ({NOT_THE_API})"})


# Headers GitHub's API puts on every answer, its errors too (github.com's and GitHub
# Enterprise Server's): an answer with neither is a proxy's or another server's, unless
# its body is GitHub's error JSON (`githubs_error`): a proxy in front of GitHub may strip
# both
GITHUB_HEADERS = ("x-github-request-id", "x-github-media-type")


def a_page(content_type: str, text: str) -> bool:
    """HTML by its content type, or by its first character whatever the type says (no JSON
    opens with `<`): a web site's or a proxy's page, never GitHub's API."""
    return "html" in content_type.lower() or text.lstrip().startswith("<")


def githubs_error(text: str) -> bool:
    """Whether `text` is GitHub's REST error JSON: an object with a "message" string and a
    "documentation_url" string (its basic-error and validation-error schemas, the link
    on each refusal GitHub sends). A message alone is not enough: API
    gateways answer so themselves (AWS's `{"message": "Forbidden"}`, Kong's "no Route
    matched with those values")."""
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(data, dict)
        and isinstance(data.get("message"), str)
        and isinstance(data.get("documentation_url"), str)
    )


def foreign_refusal(status: int, headers: Mapping[str, Any], text: str) -> str | None:
    """What answered, in words, when a refusal (401, 403, 404) is surely not GitHub's
    API: a web page (HTML by its content type, or text opening with `<`), or an answer
    with no header GitHub's API sends (`GITHUB_HEADERS`) whose body is not GitHub's error
    JSON (`githubs_error`): a proxy's, another server's at a wrong GITHUB_API_URL. GitHub
    never saw the request, and every call would meet it. None when it may be GitHub's
    (its error JSON through a proxy that strips its headers: a 404 of it is a comment
    deleted), and for a rate limit (whoever asks for a wait is waited out, as GitHub).
    One rule for the start's checks and every later call."""
    named = {name.lower(): str(value) for name, value in headers.items()}
    if status not in (401, 403, 404) or rate_limit_answer(status, named, text) is not None:
        return None
    if a_page(named.get("content-type", ""), text):
        return "a web page, not GitHub's JSON"
    if not any(name in named for name in GITHUB_HEADERS) and not githubs_error(text):
        return (
            "an answer with no header GitHub's API sends (X-GitHub-Request-Id) nor its"
            " error JSON, not its own"
        )
    return None


# Errors after which a request may or may not have been carried out by GitHub.
TRANSPORT_ERRORS = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    UnreadableAnswer,
)


class LockedError(GitHubError, ConversationLocked):
    """A write refused because the PR's conversation is locked (see ConversationLocked)."""


def headers_of(exc: GithubException) -> dict[str, str]:
    return {k.lower(): str(v) for k, v in (exc.headers or {}).items()}


# A classic token's scopes that let it comment on a PR: `repo` anywhere, `public_repo` on
# a public repository (GitHub's scopes for OAuth apps, which classic tokens share)
COMMENT_SCOPES = frozenset({"repo", "public_repo"})


def oauth_scopes(headers: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The scopes an answer's X-OAuth-Scopes names ("repo, gist"; "" is none), or None
    when it has no such header: GitHub sends it for a classic token (and an OAuth app's),
    never for a fine-grained one, whose permissions no answer tells."""
    named = {name.lower(): str(value) for name, value in headers.items()}
    if "x-oauth-scopes" not in named:
        return None
    return tuple(s for s in (p.strip() for p in named["x-oauth-scopes"].split(",")) if s)


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or exc.message or "")


def rate_limited(exc: BaseException) -> bool:
    if isinstance(exc, GithubException) and exc.status == 422:
        # content created too fast: "was submitted too quickly", a secondary limit
        return "submitted too quickly" in str(exc.data)
    if not isinstance(exc, GithubException) or exc.status not in (403, 429):
        return False
    headers = headers_of(exc)
    return (
        exc.status == 429
        or "retry-after" in headers
        or no_calls_left(headers)
        or Requester.isRateLimitError(_message(exc))
    )


def secondary_limit(exc: GithubException) -> bool:
    """A rate limit that names no time to wait (`Retrier.asked_wait` backs off on its own)."""
    headers = headers_of(exc)
    primary = no_calls_left(headers) and until_reset(headers) is not None
    return asked_retry_after(headers) is None and not primary


def conversation_locked(exc: BaseException) -> bool:
    """GitHub's answer to a write on a locked conversation: 403 "Unable to create comment
    because issue is locked.", pointing at the docs on locking conversations. An edit's or
    a reaction's words are not documented: those words, or that link, tell it."""
    if not isinstance(exc, GithubException) or exc.status != 403:
        return False
    data = exc.data if isinstance(exc.data, dict) else {}
    docs = str(data.get("documentation_url") or "")
    return "issue is locked" in _message(exc).lower() or "locking-conversations" in docs


def rate_limit_answer(status: int, headers: dict[str, Any], output: str) -> GithubException | None:
    """The answer as the exception PyGithub will raise for it, when it is a rate limit:
    the classification `Retrier.call` uses, seen here before PyGithub raises it."""
    if status not in (403, 422, 429):
        return None
    try:
        data = json.loads(output) if output else None
    except ValueError:
        data = output
    exc = GithubException(status, data, headers)
    return exc if rate_limited(exc) else None


def rate_header(headers: Mapping[str, Any], name: str) -> float | None:
    """The number an x-ratelimit-* header holds, read as PyGithub reads it (float: "ints
    expected but sometimes floats returned", PyGithub PR #2697), so "0.0" is 0. None
    without one, or one that is no finite number (words, empty, NaN, infinite): it
    names nothing, as if not sent."""
    try:
        number = float(headers.get(name))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def no_calls_left(headers: dict[str, Any]) -> bool:
    """x-ratelimit-remaining says the identity has no call left ("0", "0.0": PyGithub
    takes the whole number below it)."""
    remaining = rate_header(headers, "x-ratelimit-remaining")
    return remaining is not None and remaining < 1


def until_reset(headers: dict[str, Any]) -> float | None:
    """Seconds until x-ratelimit-reset (epoch seconds), plus one for clock skew. None
    without one, or one that names no time (no number, or too far off to be dated: the
    pause is): no reset named, so a rate limit is waited out as a secondary one and a
    success is simply taken."""
    reset = rate_header(headers, "x-ratelimit-reset")
    if reset is None:
        return None
    return _dated(max(reset - time.time(), 0.0) + 1.0)


def spent_until_reset(headers: dict[str, Any]) -> float | None:
    """Seconds to wait when an answer that is not a rate limit (a success, or a 404 the
    client takes as an answer) spent the identity's last core call before the reset: the
    next one would be refused. None when calls are left, or no reset is named."""
    if not no_calls_left(headers):
        return None
    if headers.get("x-ratelimit-resource", "core") != "core":
        return None  # another resource's count (search, graphql) does not stop REST calls
    return until_reset(headers)


def retryable(exc: BaseException) -> bool:
    if isinstance(exc, TRANSPORT_ERRORS):
        return True
    return isinstance(exc, GithubException) and (exc.status >= 500 or rate_limited(exc))


def may_have_applied(exc: BaseException) -> bool:
    """No clear answer: GitHub may have done the write before the failure. Not so when
    the connection was never made (`never_connected`): nothing of the request left."""
    if isinstance(exc, GithubException):
        return exc.status >= 500
    return isinstance(exc, TRANSPORT_ERRORS) and not never_connected(exc)


def never_connected(exc: BaseException) -> bool:
    """requests' error for a connection that could not be made: urllib3 connects before a
    byte of the request goes out, and, with no retries of its own (PyGithub's retry=None),
    sends it on no other. A connect refused, unreachable, a name not resolved, a connect
    timed out, by their types; or any failure our connections marked as raised while
    connecting (`connect_failed`: a proxy refusing the CONNECT or unreachable, a TLS
    handshake failed or timed out, our deadline met while connecting). Any other failure
    may come after sending: a read timeout, a reset (a reused keep-alive connection the
    server closed meanwhile included: it fails on sending or on reading, as a
    ProtocolError, either way unclear), a TLS error on a connection made before, our
    deadline met later."""
    if not isinstance(exc, requests.exceptions.RequestException):
        return False
    if isinstance(exc, requests.exceptions.ConnectTimeout):  # its reason a connect's timeout
        return True
    if type(exc) is requests.exceptions.ConnectionError:
        retried = exc.args[0] if exc.args else None  # requests wraps urllib3's MaxRetryError
        # NewConnectionError (refused, unreachable; NameResolutionError too) is one
        if isinstance(retried, MaxRetryError) and isinstance(retried.reason, ConnectTimeoutError):
            return True
    return _raised_connecting(exc)


# What `connect_failed` notes on an exception (PEP 678), shown in its traceback too
CONNECT_FAILED = "raised while connecting: no byte of the request was sent"


def connect_failed(exc: BaseException) -> None:
    """Mark `exc`, raised out of a connection's connect (`bot.github_deadline`), as
    raised before the request was written: `never_connected` finds it inside requests'
    and urllib3's wrappers of it."""
    if CONNECT_FAILED not in getattr(exc, "__notes__", ()):
        exc.add_note(CONNECT_FAILED)


def _raised_connecting(exc: BaseException) -> bool:
    """Whether `exc` or an error it wraps (requests' and urllib3's: their arguments, a
    MaxRetryError's reason, an explicit `raise ... from`) is marked by `connect_failed`.
    Not an exception that was being handled when it was raised (`__context__`): a call
    made while handling a connect failure would be taken for it."""
    seen: set[int] = set()
    todo = [exc]
    while todo:
        error = todo.pop()
        if id(error) in seen:
            continue
        seen.add(id(error))
        if CONNECT_FAILED in getattr(error, "__notes__", ()):
            return True
        wrapped = [*error.args, getattr(error, "reason", None), error.__cause__]
        todo += [e for e in wrapped if isinstance(e, BaseException)]
    return False


def retry_after_seconds(retry_after: str) -> float | None:
    """Retry-After is delta-seconds or an HTTP date. None when it is neither (empty,
    words, NaN, infinite, or past the last date a datetime holds: the pause and the
    put-back are dated): no time named, so the caller waits as for a secondary limit
    rather than failing on a header GitHub or a proxy got wrong."""
    try:
        seconds = float(retry_after)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(retry_after)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:  # "-0000": UTC with no zone named (RFC 5322)
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return _dated(seconds)


def _dated(seconds: float) -> float | None:
    """A wait of `seconds` from now (none below 0); None when it names no time: NaN,
    infinite, or past the last date a datetime holds (the pause and the put-back are
    dated)."""
    if not math.isfinite(seconds):
        return None
    seconds = max(seconds, 0.0)
    try:
        datetime.now(UTC) + timedelta(seconds=seconds)
    except OverflowError:
        return None
    return seconds


def asked_retry_after(headers: dict[str, str]) -> float | None:
    """Seconds the answer's Retry-After names; None without one, or one naming no time."""
    value = headers.get("retry-after")
    return None if value is None else retry_after_seconds(value)


def detail(exc: BaseException) -> str:
    if isinstance(exc, GithubException):
        return f"{exc.status} {_message(exc)}".strip()
    if isinstance(exc, requests.exceptions.Timeout):
        return "timed out"
    if isinstance(exc, UnreadableAnswer):
        return f"{exc} (cut short, empty or garbled)"
    return f"connection failed ({type(exc).__name__})"


# GitHub's 401 for an App JWT whose times its clock refuses: issued in its future, expired,
# or expiring more than 10 minutes ahead. The credentials may be right: the clock is not.
_JWT_TIME_CLAIM = ("'Issued at' claim ('iat')", "'Expiration time' claim ('exp')")
# Our JWT's times (PyGithub's AppAuth): issued 60 s ago, expiring in 300 s; a clock that
# far off GitHub's or less is not what GitHub refused
_JWT_LEEWAY = 60


# What to do once the clock is right: at start, start again; a running server's deliveries
# that failed on it wait to be retried
START_AGAIN = "start again"
RETRY_AFTER = "run `review-notes retry --all` for the deliveries that failed on it"


def jwt_clock_problem(exc: BaseException | None, now: float, then: str = START_AGAIN) -> str | None:
    """Why GitHub refused the App's JWT, when it refused its times (a 401 naming the `iat`
    or `exp` claim): this machine's clock, off GitHub's by what the answer's Date header
    tells (when it tells more than the JWT's leeway), in words saying what to do (`then`,
    the clock set right)."""
    if not isinstance(exc, GithubException) or exc.status != 401:
        return None
    if not any(claim in _message(exc) for claim in _JWT_TIME_CLAIM):
        return None
    try:
        github_time = email.utils.parsedate_to_datetime(headers_of(exc).get("date", ""))
    except (TypeError, ValueError):
        github_time = None
    off = "off from"
    if github_time is not None:
        if github_time.tzinfo is None:  # "-0000": UTC with no zone named (RFC 5322)
            github_time = github_time.replace(tzinfo=UTC)
        skew = now - github_time.timestamp()
        if abs(skew) > _JWT_LEEWAY:
            off = f"{abs(skew):.0f} s {'ahead of' if skew > 0 else 'behind'}"
    return (
        f"this machine's clock is {off} GitHub's (its answer's Date header), which dates the"
        " App's token (JWT) and refuses it: set the clock right (NTP; a container has its"
        f" host's clock), then {then}; the App's ID and key may well be right"
    )

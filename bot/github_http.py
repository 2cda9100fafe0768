"""PyGithub's HTTP connections, with each x-ratelimit-* header that is no number taken off
the answer before PyGithub reads it, an error's body that is no JSON read as text, a
success's that is none, or not of the call's shape, raised as a lost answer (a web page's
as a wrong GITHUB_API_URL), a lone surrogate read as U+FFFD, a 301 handed to the caller
to follow, and each call given up as a timeout past its deadline (`bot.github_deadline`).

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), under
`bot.github_client`: GitHub's answers as they come in, before PyGithub reads them, so
that no answer of an odd shape escapes the client as a raw exception. How each is read:
`without_bad_rate_headers`, `cleaned`, `move_handed_back`; how ours are switched in:
`made_cleaning`.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

from github.Requester import (
    HTTPRequestsConnectionClass,
    HTTPSRequestsConnectionClass,
    Requester,
    RequestsResponse,
)
from requests import Session
from requests.adapters import HTTPAdapter

from bot.github_deadline import Watchdog, mount_watched, within_deadline
from bot.github_errors import NotTheAPI, UnreadableAnswer, a_page, foreign_refusal, rate_header
from bot.json_unicode import escapes_a_surrogate, valid_unicode

log = logging.getLogger(__name__)

T = TypeVar("T")

# The rate limit headers PyGithub reads as numbers (Requester.__requestEncode).
RATE_HEADERS = ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset")


# Seconds a whole call may take (REVIEW_NOTES_HTTP_DEADLINE's default)
DEFAULT_DEADLINE = 60.0

# Where a 301's Location goes, out of PyGithub's sight (it follows a 301 with a Location)
MOVED_TO = "x-review-notes-moved-to"


def without_bad_rate_headers(response: RequestsResponse) -> RequestsResponse:
    """`response` less each rate limit header that is no finite number.

    PyGithub reads x-ratelimit-limit, -remaining and -reset with int(float(...)) inside
    `Requester.requestJson`, before any wrapper of the client sees the answer: words, an
    empty value or NaN raise ValueError, an infinite one OverflowError, and an answer GitHub
    gave (a comment created) escapes the client as a raw exception. Such a header counts
    as not sent, as `github_errors.rate_header` reads it.
    """
    for name in RATE_HEADERS:
        if name in response.headers and rate_header(response.headers, name) is None:
            log.info(
                "GitHub sent %s: %r, no number: taken as not sent", name, response.headers[name]
            )
            del response.headers[name]
    return response


class _Reread(RequestsResponse):
    """An answer whose body PyGithub reads as `text`."""

    def __init__(self, answer: RequestsResponse, text: str):
        super().__init__(answer.response)
        self._text = text

    def read(self) -> str:
        return self._text


def error_text_readable(response: RequestsResponse) -> RequestsResponse:
    """`response`, an error's body that opens as JSON yet is none read as `{"data": text}`,
    as PyGithub reads other text."""
    if response.status < 400:
        return response
    text = response.read()
    if not text.startswith(("{", "[")):
        return response
    try:
        json.loads(text)
    except ValueError:
        log.info("GitHub answered %s with a body that is no JSON: read as text", response.status)
        return _Reread(response, json.dumps({"data": text}))
    return response


def text_unicode(response: RequestsResponse) -> RequestsResponse:
    """`response`, each lone surrogate of its JSON's strings read as U+FFFD
    (`valid_unicode`), as the webhook's text is: JSON may escape one (`\\ud800`), which
    is no Unicode, and a file name, title or comment body holding it failed the
    delivery at each retry (SQLite stores no such text, GitHub refuses it in a write)."""
    text = response.read()
    if not escapes_a_surrogate(text):
        return response
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return response  # no JSON: left to success_readable, or read as text
    return _Reread(response, json.dumps(valid_unicode(data)))


def refusal_githubs(response: RequestsResponse) -> RequestsResponse:
    """`response`; raises NotTheAPI for a 401, 403 or 404 surely not GitHub's
    (`foreign_refusal`: a proxy's page, another server at GITHUB_API_URL; GitHub's error
    JSON through a proxy stripping its headers is GitHub's). Read as GitHub's, a 404 was
    a comment deleted or a repository gone, a 401 a token to mint again, and the failure
    said only its status."""
    if response.status not in (401, 403, 404):
        return response
    what = foreign_refusal(response.status, response.headers, response.read())
    if what is None:
        return response
    log.info("answered %s with %s", response.status, what)
    raise NotTheAPI(response.status, what)


def success_readable(response: RequestsResponse, verb: str, url: str) -> RequestsResponse:
    """`response`; for a success raises NotTheAPI when it is a web page (`a_page`), and
    UnreadableAnswer for a 200 or 201 whose body is no JSON (every one of GitHub's is;
    202 and 204 may have none) or not of the shape `verb` on `url` answers
    (`wrong_shape`)."""
    if not 200 <= response.status < 300:
        return response
    text = response.read()
    if a_page(str(response.headers.get("content-type") or ""), text):
        log.info("answered %s with a web page, not GitHub's JSON", response.status)
        raise NotTheAPI(response.status)
    if response.status not in (200, 201):
        return response
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        log.info("GitHub answered %s with a body that is no JSON", response.status)
        raise UnreadableAnswer(response.status) from None
    if (wrong := wrong_shape(data, verb, url)) is not None:
        log.info("GitHub answered %s %s with %s", verb, urlsplit(url).path, wrong)
        raise UnreadableAnswer(response.status, wrong)
    return response


# The client's calls whose success is a list (a GET of a collection); every other 200 or
# 201 it gets is one object. A list the client newly reads belongs here: its every answer
# is unreadable else (its tests against the fake GitHub say so at once).
LIST_ROUTES = re.compile(r".*/(?:pulls/\d+/files|issues/\d+/comments|app/hook/deliveries)")


def wrong_shape(data: object, verb: str, url: str) -> str | None:
    """What is wrong with `data` as the success of `verb` on `url`, in words; None when
    nothing. GitHub answers each call with a list or an object of fields: PyGithub took
    null, a number or a string, a list for an object or an object for a list, and threw a
    TypeError from deep inside, or made an object of no fields (a comment created with id
    None), of an empty object too."""
    listed = verb == "GET" and LIST_ROUTES.fullmatch(urlsplit(url).path) is not None
    if isinstance(data, list) if listed else (isinstance(data, dict) and bool(data)):
        return None
    got = "JSON null" if data is None else f"a JSON {_JSON_KINDS.get(type(data), 'value')}"
    if data == {}:
        got = "an object of no fields"
    return f"{got} where GitHub sends {'a list' if listed else 'an object'}"


_JSON_KINDS = {dict: "object", list: "list", str: "string", int: "number", float: "number"}
_JSON_KINDS[bool] = "boolean"


def move_handed_back(response: RequestsResponse) -> RequestsResponse:
    """`response`, a 301's Location under MOVED_TO: PyGithub answers with the 301.

    PyGithub follows a 301 itself, inside `Requester.__requestRaw`, to the Location's path
    alone: the request's query is lost, per_page=100 with it (a renamed repository's list
    then came 30 to a page). The Location is moved to MOVED_TO, where PyGithub does not look:
    it hands the 301 back as its answer, and every Requester made here follows it as a 307,
    with the request's parameters (`bot.github_sessions._follow_moves`). Only PyGithub's
    JSON calls (`requestJson`, which the client alone makes) are followed so.
    """
    if response.status == 301 and "location" in response.headers:
        response.headers[MOVED_TO] = response.headers.pop("location")
    return response


def cleaned(response: RequestsResponse, verb: str, url: str) -> RequestsResponse:
    """`response` to `verb` on `url` (its path and query) as PyGithub is to read it.

    PyGithub reads an answer's body as JSON, any text that does not open with `{` or `[` as
    `{"data": text}`, and raises ValueError on one that opens so yet is no JSON (cut short,
    or a proxy's): out of a 5xx, a raw exception no retry knows, and the delivery failed at
    once. An error's (4xx, 5xx) such body is read as other text is. A success's (200, 201)
    body that is no JSON at all (cut short, empty: PyGithub would make an object of no
    fields of it, a comment created with no id), or JSON of another shape than the call
    answers (`wrong_shape`: null, a list for an object), raises `UnreadableAnswer`, which
    the client takes as a dropped connection: retried, and a create looked for first. A
    success that is a web page (HTML) raises `NotTheAPI`: not GitHub's API answering but a
    web site or a proxy's login page, which every call would get, so it fails at once; so
    does a 401, 403 or 404 surely not GitHub's (`refusal_githubs`). A lone surrogate JSON
    escapes in any answer (`\\ud800`, no Unicode) is read as U+FFFD, as the webhook's text
    is: the one place GitHub's API text enters the bot.
    """
    readable = refusal_githubs(error_text_readable(without_bad_rate_headers(response)))
    return move_handed_back(success_readable(text_unicode(readable), verb, url))


class _Cleaning:
    """Each answer cleaned and each call given its deadline, on the PyGithub connection
    class after it in a class's bases (the http one or the https one: alike but for their
    `protocol`)."""

    # `made_cleaning` sets both: seconds for a whole call, and the thread that keeps them
    deadline = DEFAULT_DEADLINE
    watchdog: Watchdog
    # PyGithub's class sets these: the connection's when made, the call's in `request`
    protocol: str
    session: Session
    adapter: HTTPAdapter  # ours, a DeadlineAdapter, once made
    retry: Any
    pool_size: int
    verb: str
    url: str

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        scheme = f"{self.protocol}://"
        self.adapter = mount_watched(self.session, scheme, self.retry, self.pool_size)

    def getresponse(self) -> RequestsResponse:
        reply = super().getresponse  # type: ignore[misc]  # PyGithub's class's
        answer = within_deadline(self.deadline, reply, self.watchdog)
        return cleaned(answer, self.verb, self.url)


class CleaningHTTP(_Cleaning, HTTPRequestsConnectionClass):
    pass


class CleaningHTTPS(_Cleaning, HTTPSRequestsConnectionClass):
    pass


def _connections(
    deadline: float, watchdog: Watchdog
) -> tuple[type[CleaningHTTP], type[CleaningHTTPS]]:
    """Our connection classes with `deadline` and `watchdog`: PyGithub makes a connection
    of the class alone, passing nothing of ours. Made anew for each Requester (a client's
    watchdog is its own, and a cache would keep each closed one)."""
    fields = {"deadline": deadline, "watchdog": watchdog}
    return (
        type("CleaningHTTP", (CleaningHTTP,), fields),
        type("CleaningHTTPS", (CleaningHTTPS,), fields),
    )


_switch = threading.Lock()  # one Requester made with our classes at a time


def made_cleaning(make: Callable[[], T], deadline: float, watchdog: Watchdog) -> T:
    """`make()` (a Github or GithubIntegration, which makes its Requester and sends
    nothing), its connections cleaning each answer (`cleaned`), a 301 handed back
    (`move_handed_back`): the caller must follow it. Each call on them fails as a
    timeout once `deadline` seconds pass without its whole answer, which `watchdog`
    keeps (`within_deadline`).

    The answer is reached through PyGithub's public `Requester.injectConnectionClasses`.
    That switch is class-wide, and while it is on PyGithub keeps no connection open (a new
    one, TLS included, per call). A Requester takes its connection class when it is made,
    so `made_cleaning` switches ours in only while one is made, under a lock, and back at
    once: the one made keeps ours and its kept-open connection, other Requesters are left
    as they were. Not covered: a connection PyGithub opens for another host, port or scheme
    than base_url's (it takes PyGithub's class then); the client calls none.
    """
    with _switch:
        Requester.injectConnectionClasses(*_connections(deadline, watchdog))
        try:
            return make()
        finally:
            Requester.resetConnectionClasses()  # and PyGithub keeps connections open again

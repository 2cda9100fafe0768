"""POST /webhook: verify, triage, queue durably, answer; a plain ASGI endpoint.

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): a delivery's
intake. It never queues one whose signature does not verify, and never answers 202
before the delivery is stored; what it answers, status by status: `WebhookEndpoint`.
The server's hottest path (GitHub may send bursts), so it skips FastAPI's
request, dependency and response machinery, which cost about as much CPU per
delivery as the delivery's own work (bench/bench_load.py). The app hands it POST
/webhook ahead of its router (bot.server.WebhookFirst), inside its error
middleware (a crash is a logged 500); other methods get the router's 405.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

import orjson
from prometheus_client import Counter

from bot import signature
from bot.db import damaged_error, is_locked
from bot.dispatch import Dispatcher, MalformedPayload, Route, event_shown
from bot.installations import EVENTS as INSTALLATION_EVENTS
from bot.installations import InstallationChange, describe, installation_change
from bot.queue import DeliveryQueue, Enqueued, Incoming
from bot.settings import Settings
from bot.terminal import shown
from bot.times import GITHUB_TIME

log = logging.getLogger("review_notes")

# what a delivery the intake could not store for a damaged page says of it (bot.db)
_NOT_STORED = "deliveries are not stored until it is restored"

MAX_BODY = 25 * 1024 * 1024  # GitHub never sends more
# GitHub waits 10 s for an answer, then counts the delivery failed (the sweeps ask for it
# again): a body still coming in after that is no delivery GitHub awaits. Without a
# deadline, unsigned bodies held back by their last byte kept their 25 MB each for good.
BODY_SECONDS = 10.0

Headers = dict[bytes, bytes]
Answer = tuple[int, dict[str, Any]]


class BodyTooLarge(Exception):
    pass


class Throttle:
    """Lets one event through per `every` seconds and counts those held back between:
    a line per refused delivery would let anyone flood the log."""

    def __init__(self, every: float, clock: Callable[[], float] = time.monotonic):
        self.every, self.clock = every, clock
        self.next_at: float | None = None
        self.held = 0

    def take(self) -> int | None:
        """None: hold this one back; else how many were held back since the last one."""
        now = self.clock()
        if self.next_at is not None and now < self.next_at:
            self.held += 1
            return None
        held, self.held, self.next_at = self.held, 0, now + self.every
        return held


# How long a delivery arriving waits for the database's locks, from its arrival: another
# process's (a VACUUM, a `sqlite3` shell in a transaction), or a write of this process
# waiting for it. Then it is answered 503, within GitHub's 10 s: GitHub's log shows it
# failed, and the redelivery sweeps ask for it again. The lock ended in time, it is stored.
LOCK_WAIT_SECONDS = 5.0
# GitHub's 10 s run from the request's start, the body's time among them (BODY_SECONDS):
# a delivery's wait ends by this long after it began, whatever is left of LOCK_WAIT_SECONDS
# then, so that its answer still finds GitHub waiting (a second for the answer's way back).
ANSWER_SECONDS = 9.0

# a delivery waiting for its commit: its text, its handler's future, its wait's end
_Waiting = tuple[Incoming, asyncio.Future[Enqueued], float]


class GroupCommit:
    """Write deliveries to the queue, a burst per transaction.

    A handler awaits its delivery's commit, so every 202 still means "in SQLite".
    Deliveries that reach this point in the same loop iteration share one
    transaction (one commit for a burst), written on the event loop when the database's
    locks are free: measured against a thread pool or a writer thread, this costs the
    least CPU per delivery: no thread hand-off, no lock convoy (bench/bench_load.py).
    Each write is short (WAL, synchronous=NORMAL: no fsync). A batch that finds a lock
    held waits for it in a thread, up to LOCK_WAIT_SECONDS from its first delivery's
    arrival (ANSWER_SECONDS from its request's start at most): waited for on the loop, it
    held every request meanwhile, /healthz's too.
    The batches after it wait their turn (a thread each, in their order), lest a
    delivery be stored before one that came first; so do, in a batch written one
    delivery at a time (SQLite refused one), those after one a lock refused.
    """

    def __init__(self, queue: DeliveryQueue, wait: float = LOCK_WAIT_SECONDS):
        self.queue, self.wait = queue, wait
        self._pending: list[_Waiting] = []
        self._aside: asyncio.Task[None] | None = None  # the last batch sent to a thread

    async def enqueue(self, item: Incoming, by: float | None = None) -> Enqueued:
        """`item`'s outcome once committed; `by` (time.monotonic()): its wait for a lock
        ends then at the latest, though it has not lasted `wait` (its answer is due)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Enqueued] = loop.create_future()
        end = time.monotonic() + self.wait
        self._pending.append((item, future, end if by is None else min(end, by)))
        if len(self._pending) == 1:
            loop.call_soon(self._flush)  # after the handlers ready in this iteration
        return await future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if self._aside is None or self._aside.done():  # none waits: on the loop, no wait
            stored = self._store([item for item, _, _ in batch], until=time.monotonic())
            outcomes = list(zip(batch, stored, strict=True))
            locked = [w for w, result in outcomes if _locked(result)]
            _settle([(w, result) for w, result in outcomes if not _locked(result)])
            if not locked:
                return
            batch = locked
        self._aside = asyncio.get_running_loop().create_task(self._in_thread(batch, self._aside))

    async def _in_thread(self, batch: list[_Waiting], before: asyncio.Task[None] | None) -> None:
        """Write `batch` in a thread, waiting for the locks until its wait ends, once
        the batch `before` it is written."""
        if before is not None:
            await asyncio.wait([before])
        items, until = [item for item, _, _ in batch], min(end for _, _, end in batch)
        try:
            stored = await asyncio.to_thread(self._store, items, until)
        except Exception as exc:  # (no thread to be had: the server stopping)
            stored = [exc] * len(batch)
        _settle(list(zip(batch, stored, strict=True)))

    def _store(self, items: list[Incoming], until: float) -> list[Enqueued | Exception]:
        """Each delivery's outcome, or the error that refused it."""
        try:
            return list(self.queue.enqueue_many(items, until))
        except Exception as exc:
            if len(items) == 1 or is_locked(exc):
                # a lock refuses them all: each written alone would wait for it again
                return [exc] * len(items)
        results: list[Enqueued | Exception] = []
        for one in items:  # one delivery SQLite refuses fails alone
            [result] = self._store([one], until)
            results.append(result)
            if _locked(result):  # (a worker's write between two): the rest follow it
                return results + [result] * (len(items) - len(results))
        return results


def _locked(result: Enqueued | Exception) -> bool:
    return isinstance(result, Exception) and is_locked(result)


def _settle(results: list[tuple[_Waiting, Enqueued | Exception]]) -> None:
    for (_, future, _), result in results:
        if future.done():  # its client may have gone
            continue
        if isinstance(result, Exception):
            future.set_exception(result)
        else:
            future.set_result(result)


def parse(body: bytes, content_type: str) -> tuple[Any, str | None]:
    """The payload, and its JSON text as received when it can be stored as is."""
    if content_type.lower().startswith("application/x-www-form-urlencoded"):  # RFC 9110
        # Repository hooks may send `payload=<json>`; the App always sends JSON.
        form = parse_qs(body.decode("utf-8"), strict_parsing=True)
        return json.loads(form["payload"][0]), None
    payload = _loads(body)
    # Plain UTF-8 (no BOM, not UTF-16/32): store GitHub's bytes, no re-encoding.
    raw = body.decode("utf-8") if json.detect_encoding(body) == "utf-8" else None
    return payload, raw


class TooDeep(ValueError):
    """orjson refused the body for nesting past 1024 levels (json.loads reads fewer)."""


# what a body refused before its JSON is read was, when it can be told (else it is
# "not a JSON object"): GitHub sends UTF-8 JSON, plain, a few levels deep
_GZIP = b"\x1f\x8b"


def why_unread(body: bytes, exc: BaseException | None) -> str:
    """The 400's reason for a body that is no JSON object (`exc`: what parsing raised)."""
    if body.startswith(_GZIP):  # a proxy's Content-Encoding: gzip; no JSON opens so
        return "body is gzip-compressed: GitHub sends plain JSON"
    if isinstance(exc, UnicodeDecodeError):
        return "body is not UTF-8"
    if isinstance(exc, TooDeep):
        return "body nests deeper than 1024 levels"
    if isinstance(exc, RecursionError):  # json.loads: orjson refused it for another reason
        return "body nests deeper than about 1000 levels"
    return "body is not a JSON object"


def _loads(body: bytes) -> Any:
    """json.loads, at about a third of its cost on GitHub's payloads (orjson).

    What orjson refuses (a BOM, NaN, lone surrogates, nesting past 1024) json.loads
    decides, so the same bodies are accepted or refused as with json.loads alone, but
    for nesting of 1000 to 1024, which only orjson reads (the queue reads it back).
    Where both accept, the objects are equal, except that orjson reads integers past
    64 bits as floats: triage reads only strings, the PR number and a command's comment
    or review id (past 2**53 either way: 400), and the queue stores the body's own text,
    so no handler sees such a float.
    """
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):  # json.loads gives up sooner
            raise TooDeep(str(exc)) from exc
        return json.loads(body)


def _redelivered_by(settings: Settings) -> str:
    """What gets a delivery refused at intake sent again (GitHub never does by itself)."""
    if not settings.github_app_id:  # a repository webhook: its log is not the App's
        return "redeliver it from the webhook's Recent Deliveries (repository settings)"
    if settings.redeliver_every_minutes:
        return (
            "the redelivery sweeps ask GitHub for it once deliveries get through,"
            " or run `review-notes redeliver` now"
        )
    return "run `review-notes redeliver`"


class WebhookEndpoint:
    """The ASGI app behind POST /webhook. Its answers:

    413 body over 25 MB (GitHub's own cap; Content-Length and counted while reading)
    408 body not all in within 10 s (GitHub gives up on a delivery by then): a sender
        trickling bytes holds no memory longer than that
    401 missing or wrong X-Hub-Signature-256 (checked on the raw bytes, before parsing);
        a WARNING says so, once a minute at most by default (seconds_between_unverified_logs;
        a mistyped secret refuses them all)
    400 no X-GitHub-Event / X-GitHub-Delivery, an X-GitHub-Delivery over 100 characters
        or not printable (GitHub's is a GUID), a body that is not a JSON object (one
        not UTF-8, gzip-compressed or nested too deep said so), or a PR
        number, comment or review id that is no integer from 1 to 2**53 - 1, or a
        pull_request payload whose installation or PR fields its handler cannot read, or a
        command's or a deletion's whose installation (a command's copy of its PR: the
        fields a pull_request payload's are read for) it cannot read, or a handled
        event's object of another type (a WARNING
        names each: GitHub does not send it again)
    200 ping; 200 an installation, installation_repositories or installation_target event
        (handled at once, bot.installations: never queued); 200 a delivery id already
        seen (processed once; another body under it is a WARNING), or under another one a
        comment's or review's body seen before, or a pull_request body equal to its PR's
        latest (a replay; GitHub sends one twice only with another between)
    202 queued (written to SQLite before answering), or ignored (with the reason)
    500 SQLite refused to store it (a full disk): counted, logged as an ERROR naming it,
        and /healthz fails until one is stored again (`failing`; a duplicate stores nothing);
        or a redelivery of one whose stored row is damaged (set aside: /healthz's damaged)
    503 the database locked (another process: a VACUUM, a `sqlite3` shell in a
        transaction) through the delivery's wait (LOCK_WAIT_SECONDS, in a thread; over
        by ANSWER_SECONDS from the request's start, a slow body's time counted): as
        the 500 of a full disk, but for its code and "the database is locked"
    404 a delivery (X-GitHub-Event) POSTed to another path: `elsewhere` names /webhook
    """

    def __init__(
        self,
        settings: Settings,
        dispatcher: Dispatcher,
        queue: DeliveryQueue,
        counted: Counter,  # deliveries by event and outcome
        on_installation: Callable[[InstallationChange], None] | None = None,
    ):
        self.settings = settings
        self.on_installation = on_installation
        self.secret = settings.webhook_secret()
        self.dispatcher = dispatcher
        self.intake = GroupCommit(queue)
        self.counted = counted
        # Events counted by name; any other name (the header is the sender's to choose,
        # a replayed body can carry thousands) is counted as "other": one series.
        self.named = {*dispatcher.events(), "ping", *INSTALLATION_EVENTS, "unverified", "unknown"}
        # Why the last delivery to store was refused (None: one was stored since; a
        # duplicate, which writes nothing, changes nothing): each refused one is lost
        # unless redelivered by hand, so /healthz fails while this holds.
        self.failing: str | None = None
        # A mistyped secret refuses every delivery: said in the log, once a minute at most
        # (seconds_between_unverified_logs).
        self.unverified = Throttle(settings.seconds_between_unverified_logs)
        self.misdirected = Throttle(settings.seconds_between_unverified_logs)
        self.redelivered_by = _redelivered_by(settings)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        began = time.monotonic()  # (GitHub's 10 s run from here)
        headers: Headers = {}
        for name, value in reversed(scope["headers"]):  # the first of repeated headers wins
            headers[name] = value
        try:
            async with asyncio.timeout(BODY_SECONDS):
                body = await _read_body(headers, receive)
        except BodyTooLarge:
            self._count("unverified", "too_large")
            code, content = 413, {"error": f"payload over {MAX_BODY} bytes"}
        except TimeoutError:
            self._count("unverified", "too_slow")
            code, content = 408, {"error": f"payload not all sent within {BODY_SECONDS:g} s"}
        except ValueError:  # no GitHub delivery: a broken client or a probe
            self._count("unverified", "bad_length")
            code, content = 400, {"error": "Content-Length is not a number of bytes"}
        else:
            if body is None:
                return  # the client went away: nobody to answer, nothing queued
            code, content = await self.answer(headers, body, began + ANSWER_SECONDS)
        await _send_json(send, code, content)

    async def elsewhere(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """A GitHub delivery POSTed to another path (the App's webhook URL names none, or
        another, or a proxy serving the bot under a path passes it on): 404 naming the
        path to use, which GitHub's Recent Deliveries shows, and a WARNING, as often as
        the 401's; the router's bare 404 said nothing in the log. Not read further; counted
        as unverified (`wrong_path`), as a 401 is, so an alert sees every one the log holds
        back."""
        self._count("unverified", "wrong_path")
        path = shown(scope["path"])
        error = f"no webhook at {path}: the webhook URL must end in /webhook"
        held = self.misdirected.take()
        if held is not None:
            headers = dict(scope["headers"])
            more = f"; {held} more since the last such line" if held else ""
            log.warning(
                "delivery %s %s sent to %s, answered 404: set the App's webhook URL to this"
                " server's address ending in /webhook (a proxy serving it under a path must"
                " strip the path)%s",
                shown(_text(headers, b"x-github-delivery")),
                shown(_text(headers, b"x-github-event")),
                path,
                more,
            )
        await _send_json(send, 404, {"error": error})

    async def answer(self, headers: Headers, body: bytes, due: float | None = None) -> Answer:
        """`due` (time.monotonic()): when the answer must be sent, at the latest."""
        checked = self.check(headers, body)
        if not isinstance(checked, Incoming):
            return checked
        # Only the JSON text waits for the commit, not the parsed payload: a hundred
        # payloads in flight made the collector's young generations busy.
        try:
            outcome = await self.intake.enqueue(checked, due)  # answered once committed
        except Exception as exc:
            self._count(checked.event, "error")
            # another process's lock, held past the delivery's wait: a 503, for a while
            code, why = (503, ": the database is locked") if is_locked(exc) else (500, "")
            if isinstance(exc, sqlite3.Error):  # a damaged page: said with the fix
                exc = damaged_error(exc, _NOT_STORED) or exc
            self.failing = f"{type(exc).__name__}: {exc}"
            # named: GitHub sends it again only when asked
            log.error(
                "delivery %s (%s) not stored, answered %d: %s; GitHub sends it again only"
                " when asked: %s",
                checked.id,
                checked.event,
                code,
                self.failing,
                self.redelivered_by,
                extra={"delivery": checked.id},
            )
            error = f"the delivery could not be stored{why}"
            return code, {"error": error, "delivery": checked.id}
        if outcome == Enqueued.SET_ASIDE:
            return self._set_aside(checked)
        self._count(checked.event, str(outcome))
        if outcome == Enqueued.DUPLICATE:  # wrote nothing: says nothing of the disk
            return 200, {"status": "duplicate", "delivery": checked.id}
        self.failing = None  # a write committed
        return 202, {"status": str(outcome), "delivery": checked.id}

    def _set_aside(self, item: Incoming) -> Answer:
        """A redelivery of a delivery whose stored row SQLite cannot read back: not run
        again, and not stored anew (its id is taken). 500, as for one not stored: GitHub's
        log shows it not delivered; the queue named the damage and its fix once, and
        /healthz lists it (`damaged`)."""
        self._count(item.event, "error")
        error = "its stored row is damaged (SQLite cannot read it back): set aside, not run"
        log.error("delivery %s (%s) redelivered: %s", item.id, item.event, error)
        return 500, {"error": f"the delivery could not be run: {error}", "delivery": item.id}

    def _count(self, event: str, outcome: str) -> None:
        self.counted.labels(event if event in self.named else "other", outcome).inc()

    def check(self, headers: Headers, body: bytes) -> Answer | Incoming:
        """The answer now, or the delivery to queue first."""
        sent = _text(headers, b"x-hub-signature-256")
        if not signature.verify(self.secret, body, sent):
            self._count("unverified", "bad_signature")
            self._log_unverified(headers, signed=sent is not None)
            return 401, {"error": "missing or invalid X-Hub-Signature-256"}
        event = _text(headers, b"x-github-event")
        delivery_id = _text(headers, b"x-github-delivery")
        if not event or not delivery_id:
            return self._refused(
                "unknown", delivery_id, "missing X-GitHub-Event or X-GitHub-Delivery header"
            )
        if len(delivery_id) > 100 or not delivery_id.isprintable():
            # GitHub's is a GUID; the signature does not cover it, so anyone holding a
            # signed body chooses it: refused before a log field or the queue takes it
            return self._refused(
                event, delivery_id, "X-GitHub-Delivery over 100 characters or not printable"
            )
        failed: Exception | None = None
        try:
            payload, raw = parse(body, _text(headers, b"content-type") or "")
        except (ValueError, KeyError, UnicodeDecodeError, RecursionError) as exc:
            # RecursionError: JSON nested deeper than Python's stack (e.g. 100k `[`)
            payload, raw, failed = None, None, exc
        if not isinstance(payload, dict):
            return self._refused(event, delivery_id, why_unread(body, failed))
        if event == "ping":
            self._count(event, "pong")
            return 200, {"status": "pong", "zen": str(payload.get("zen", ""))}
        if event in INSTALLATION_EVENTS:
            return self.installation(event, delivery_id, payload)
        return self.triage(event, delivery_id, payload, raw, body)

    def _refused(self, event: str, delivery_id: str | None, error: str) -> Answer:
        """400 to a signed delivery, with a WARNING naming it: GitHub does not send it
        again, so the log line is all the operator will have of it. Only holders of the
        secret get this far, so there is no flood of these lines to hold back."""
        self._count(event, "bad_request")
        delivery = shown(delivery_id)
        log.warning(
            "delivery %s %s refused (400): %s",
            delivery,
            shown(event),
            error,
            extra={"delivery": delivery},
        )
        return 400, {"error": error}

    def _log_unverified(self, headers: Headers, *, signed: bool) -> None:
        """A WARNING naming the refused delivery (never the signature or the secret)."""
        held = self.unverified.take()
        if held is None:
            return
        delivery = shown(_text(headers, b"x-github-delivery"))
        why = (
            "its X-Hub-Signature-256 does not verify with GITHUB_WEBHOOK_SECRET (is it the"
            " secret set in the App's or the hook's settings?)"
            if signed
            # a secret is set there: "no secret set?" would send the operator astray
            else "it has only the SHA-1 X-Hub-Signature, which is not accepted: the sender"
            " must sign with SHA-256 (X-Hub-Signature-256), as GitHub does"
            if b"x-hub-signature" in headers
            else "it has no X-Hub-Signature-256 (a hook with no secret set?)"
        )
        more = f"; {held} more refused since the last such line" if held else ""
        log.warning(
            "delivery %s %s refused (401): %s%s",
            delivery,
            shown(_text(headers, b"x-github-event")),
            why,
            more,
            extra={"delivery": delivery},
        )

    def installation(self, event: str, delivery_id: str, payload: dict[str, Any]) -> Answer:
        """Answered at once, nothing queued: the caches it makes stale are forgotten now."""
        try:
            change = installation_change(event, payload)
        except ValueError as exc:
            return self._refused(event, delivery_id, f"malformed {event} payload: {exc}")
        what, warning = describe(change, self.settings.allows)
        log.info("delivery %s %s", shown(delivery_id), what, extra={"delivery": delivery_id})
        if warning:
            log.warning(warning, extra={"delivery": delivery_id})
        if self.on_installation is not None:
            self.on_installation(change)
        self._count(event, "noted")
        return 200, {"status": "noted", "installation": change.installation_id}

    def triage(
        self,
        event: str,
        delivery_id: str,
        payload: dict[str, Any],
        raw: str | None,
        body: bytes,
    ) -> Answer | Incoming:
        try:
            triage = self.dispatcher.triage(event, payload, self.settings)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as exc:
            # Signed but not GitHub's shape (e.g. "number": "x", "repository": []): what
            # a check found names the field; what Python raised, only its kind
            said = str(exc) if isinstance(exc, MalformedPayload) else type(exc).__name__
            return self._refused(event, delivery_id, f"malformed {event} payload: {said}")
        action = payload.get("action") if isinstance(payload.get("action"), str) else None
        if triage.route is None:
            self._count(event, "ignored")
            log.info(
                "delivery %s %s ignored: %s",
                shown(delivery_id),
                event_shown(shown(event), action),
                triage.reason,
                extra={"delivery": delivery_id, "repo": triage.repo, "pr": triage.pr_number},
            )
            return 202, {"status": "ignored", "reason": triage.reason}
        replayed = self._older_than_kept(triage.route, payload)
        if replayed is not None:
            # 202 as for any event ignored: GitHub (and our sweep of its log) takes it as
            # delivered and does not send it again; nothing in it can be run
            self._count(event, "ignored")
            log.warning(
                "delivery %s %s refused as a replay: %s",
                shown(delivery_id),
                event_shown(shown(event), action),
                replayed,
                extra={"delivery": delivery_id, "repo": triage.repo, "pr": triage.pr_number},
            )
            return 202, {"status": "ignored", "reason": replayed}
        # GitHub signs the body only: a captured body sent again under a new
        # X-GitHub-Delivery (a redelivery keeps its id) would run its commands again, or
        # cost GitHub calls, so the queue refuses it by its hash: any copy, or, where
        # GitHub itself sends one body for two events, a copy of the PR's latest.
        sha = hashlib.sha256(body).hexdigest()
        once = not triage.route.same_bodies
        return Incoming(
            delivery_id,
            event,
            action,
            raw if raw is not None else json.dumps(payload),
            triage.repo,
            triage.pr_number,
            body_sha=sha if once else None,
            same_body_sha=None if once else sha,
        )

    def _older_than_kept(self, route: Route, payload: dict[str, Any]) -> str | None:
        """Why a comment or review this old cannot be a new one, None when it may be. Its
        copy under another delivery id is refused by the delivery kept (the body's hash),
        and only while kept: past that, a captured body would run its commands again. A
        comment written or edited that long ago is no new event (an edit moves its
        `updated_at`), and GitHub redelivers only what it sent in the last 3 days, no
        longer than deliveries are kept (REVIEW_NOTES_DELIVERY_RETENTION_DAYS >= 3).
        Not on the development secret (a dry run): the banner prints it, so anyone may
        sign any comment anew, and a curator's example comment (examples/) keeps the
        time it was written."""
        if self.settings.uses_dev_secret:
            return None
        written = route.written(payload) if route.written is not None else None
        days = self.settings.delivery_retention_days
        kept_since = (datetime.now(UTC) - timedelta(days=days)).strftime(GITHUB_TIME)
        if written is None or written >= kept_since:
            return None
        return (
            f"written or last edited {written}, longer ago than deliveries are kept"
            f" ({days} days), so a copy of one seen then is no longer known as one"
        )


def _text(headers: Headers, name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


async def _read_body(headers: Headers, receive: Any) -> bytes | None:
    """The raw body; None when the client disconnected.

    Raises BodyTooLarge past MAX_BODY, ValueError on a Content-Length that is not a number.
    """
    length = _text(headers, b"content-length")
    if length is not None:
        if not length.isdigit():
            raise ValueError(length)
        if int(length) > MAX_BODY:
            raise BodyTooLarge
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        body += message.get("body", b"")
        if len(body) > MAX_BODY:
            raise BodyTooLarge
        if not message.get("more_body", False):
            return bytes(body)


async def _send_json(send: Any, code: int, content: dict[str, Any]) -> None:
    # What Starlette's JSONResponse would send, but ASCII: an answer may quote a payload's
    # string, and a lone surrogate (valid JSON) cannot be encoded as UTF-8
    body = json.dumps(content, allow_nan=False, indent=None, separators=(",", ":")).encode()
    await send(
        {
            "type": "http.response.start",
            "status": code,
            "headers": [
                (b"content-length", str(len(body)).encode("latin-1")),
                (b"content-type", b"application/json"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})

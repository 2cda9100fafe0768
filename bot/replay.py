"""`review-notes replay`: sign a payload file and POST it to a running server, like GitHub does."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bot import signature
from bot.times import GITHUB_TIME

_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def guess_event(payload: dict[str, Any]) -> str:
    """The X-GitHub-Event a bare payload most likely came with."""
    if "zen" in payload and "hook_id" in payload:
        return "ping"
    if "comment" in payload and "issue" in payload:
        return "issue_comment"
    if "review" in payload and "pull_request" in payload:
        return "pull_request_review"
    if "comment" in payload and "pull_request" in payload:  # a comment on a line of the diff
        return "pull_request_review_comment"
    if "pull_request" in payload:
        return "pull_request"
    raise ValueError("cannot tell the event from the payload; pass --event")


def webhook_url(url: str) -> str:
    """The webhook of the server `url` names: a server's address with no path (as its
    banner prints it, `http://127.0.0.1:8000`) means its `/webhook`; any other URL is
    taken as given (a proxy's path is the operator's to write)."""
    try:
        path = urlsplit(url).path
    except ValueError:  # no URL: `send` names it
        return url
    if path in ("", "/") and "?" not in url:
        return url.rstrip("/") + "/webhook"
    return url


def posts_to_github(url: str, timeout: float = 5.0) -> bool:
    """Whether the review-notes server whose webhook is `url` writes to GitHub: its
    /healthz (beside /webhook) answers `"dry_run": false`. False when that cannot be
    told (no server, no /healthz there: replay signs for any webhook receiver)."""
    base = url.split("?", 1)[0].rstrip("/").removesuffix("/webhook")
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=timeout) as resp:
            text = resp.read()
    except urllib.error.HTTPError as exc:  # 503 while failing: it still says which
        text = exc.read()
    except (OSError, ValueError):  # no server, or no URL urllib can open
        return False
    try:
        health = json.loads(text)
    except ValueError:
        return False
    return isinstance(health, dict) and health.get("dry_run") is False


def brought_to_now(payload: dict[str, Any], now: datetime) -> dict[str, Any]:
    """`payload` with its times (each `..._at` in GitHub's form) moved by one shift that
    makes the newest `now`: what GitHub would send for it today. A live server refuses a
    comment older than it keeps deliveries; one shift keeps the times' order (a comment
    edited after it was written, the PR updated by it)."""
    times: list[datetime] = []

    def note(text: str) -> str:
        times.append(_parsed(text))
        return text

    _each_time(payload, note)
    if not times:
        return payload
    shift = now.astimezone(UTC).replace(microsecond=0) - max(times)
    moved = _each_time(payload, lambda text: (_parsed(text) + shift).strftime(GITHUB_TIME))
    return moved if isinstance(moved, dict) else payload


def _parsed(text: str) -> datetime:
    return datetime.strptime(text, GITHUB_TIME).replace(tzinfo=UTC)


def _each_time(value: Any, change: Callable[[str], str], key: str = "") -> Any:
    """A copy of `value` with `change` applied to each GitHub time under a `..._at` key."""
    if isinstance(value, dict):
        return {k: _each_time(v, change, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_each_time(v, change, key) for v in value]
    if isinstance(value, str) and key.endswith("_at") and _TIME.fullmatch(value):
        return change(value)
    return value


def read_payload(path: Path) -> tuple[bytes, dict[str, Any]]:
    """The file's bytes (sent as they are: the signature covers them) and the JSON object
    they hold; ValueError naming the file when it cannot be read or is no object."""
    body, payload = read_json(path)
    if not isinstance(payload, dict):
        raise ValueError(f"{path}: not a JSON object")
    return body, payload


def read_json(path: Path) -> tuple[bytes, object]:
    """The file's bytes and the JSON they hold, whatever its kind (the fake GitHub's
    runner skips what is no object); ValueError naming the file when it cannot be read
    or holds no JSON."""
    try:
        body = path.read_bytes()
    except OSError as exc:  # a mistyped path, a directory: said before any server is asked
        raise ValueError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return body, json.loads(body)
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deep") from None
    except ValueError as exc:  # not JSON (an empty file, a cut-off one), not UTF-8
        raise ValueError(f"{path}: not JSON: {exc}") from None


def replay(
    path: Path,
    *,
    url: str,
    secret: str,
    event: str | None = None,
    delivery_id: str | None = None,
    timeout: float = 30.0,
) -> tuple[int, str]:
    """Send the file's bytes as they are (the signature covers them); return (status, body)."""
    body, payload = read_payload(path)
    return send(
        body, payload, url=url, secret=secret, event=event, delivery_id=delivery_id, timeout=timeout
    )


def send(
    body: bytes,
    payload: dict[str, Any],
    *,
    url: str,
    secret: str,
    event: str | None = None,
    delivery_id: str | None = None,
    timeout: float = 30.0,
) -> tuple[int, str]:
    """POST `body` (which holds `payload`) signed with `secret`; return (status, body)."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "GitHub-Hookshot/review-notes-replay",
            "X-GitHub-Event": event or guess_event(payload),
            "X-GitHub-Delivery": delivery_id or str(uuid.uuid4()),
            "X-Hub-Signature-256": signature.sign(secret, body),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, resp.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")
    except urllib.error.URLError as exc:  # no server there: say where we sent it
        raise OSError(f"{url}: cannot send: {exc.reason}") from None
    except TimeoutError:
        raise OSError(f"{url}: no answer within {timeout:g} s") from None

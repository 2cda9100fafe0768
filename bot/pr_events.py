"""`pull_request` events: keep the sticky comment in step with the PR.

opened / reopened / ready_for_review: the first look. edited: only a new title
or body can change the matches. synchronize: a push, files may have changed.
labeled / unlabeled: vLLM's Mergify adds most labels seconds after `opened`.
Drafts wait for `ready_for_review` (unless configured otherwise); closed PRs are
left alone.
"""

from __future__ import annotations

from typing import Any

from bot.context import BotContext
from bot.dispatch import Dispatcher, Route
from bot.github_port import PRRef
from bot.prfacts import facts_from_payload
from bot.queue import Delivery
from bot.sticky import refresh_sticky

ACTIONS = frozenset(
    {"opened", "reopened", "ready_for_review", "edited", "synchronize", "labeled", "unlabeled"}
)


def register(d: Dispatcher) -> None:
    d.add(Route("pull_request", ACTIONS, handle_pull_request, check_pull_request))


def check_pull_request(payload: dict[str, Any]) -> str | None:
    pr = payload.get("pull_request") or {}
    if payload.get("action") == "edited" and not {"title", "body"} & set(
        payload.get("changes") or {}
    ):
        return "edited, but neither the title nor the body changed"
    if pr.get("state") == "closed":
        return "the pull request is closed"
    return None


def payload_files(payload: dict[str, Any]) -> list[str] | None:
    """Changed files, when a payload carries them (our examples do, GitHub's don't)."""
    files = payload.get("files")
    if isinstance(files, list) and all(isinstance(f, str) for f in files):
        return files
    return None


def ref_from_payload(payload: dict[str, Any], number: int) -> PRRef:
    installation = (payload.get("installation") or {}).get("id")
    return PRRef(
        repo=payload["repository"]["full_name"],
        number=number,
        installation_id=int(installation) if installation else None,
    )


def handle_pull_request(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    files = payload_files(payload)
    facts = facts_from_payload(payload, files or ())
    ref = ref_from_payload(payload, facts.number)
    result = refresh_sticky(
        ctx, ref, facts, files=files, event_at=payload["pull_request"].get("updated_at")
    )
    comment = f" (comment {result.comment_id})" if result.comment_id else ""
    return f"{result.outcome}{comment}: {result.reason}"

"""Slash commands: `/notes ...` in a PR comment or a review body, answered on the PR.
Here: their routes, and what is read of each event (its intake).

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub) for a command. The
routes: `register`; a locked conversation: `_locked`.

Each is checked at intake, on its payload alone (`check_comment`, `check_diff_comment`,
`check_review`), then read into a `Source` (bot.command_source): where its commands were
written, and what the event says about the PR. bot.command_answers runs and answers them.

Bots are never answered (our own comments included, known by who wrote them; with a
token, whose owner also writes as a person, by who wrote them and our marker: see
`bot.dispatch`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from bot.command_answers import run_commands
from bot.command_policy import Actor
from bot.command_source import Source
from bot.comment_prose import FORMAT_CHARS
from bot.context import BotContext
from bot.dispatch import (
    Dispatcher,
    MalformedPayload,
    Route,
    check_installation,
    check_objects,
    payload_id,
)
from bot.github_port import PRRef, ref_from_payload, repository_id
from bot.locked_commands import HEARD, STILL, owed, release_unlocked
from bot.order_keys import comment_key
from bot.prfacts import facts_from_payload
from bot.queue import Delivery
from bot.times import as_github_time, github_time

COMMENT_ACTIONS = frozenset({"created", "edited"})
REVIEW_ACTIONS = frozenset({"submitted", "edited"})
# Cheap intake filter, whatever the command word: a command starts a line (as
# bot.comment_prose reads it: a BOM opening the comment, invisible characters before it;
# a line ends at LF, CRLF or a lone CR, as in cmark-gfm; the word may be typed full-width:
# `／ｎｏｔｅｓ`, full_width.FULL_WIDTH).
_MAY_HOLD_COMMAND = re.compile(
    f"(?:^|[\r\n])\ufeff? {{0,3}}[{FORMAT_CHARS}]*[/\uff0f][A-Za-z\uff21-\uff3a\uff41-\uff5a]"
)
# The PR fields kept for later (a deferred update in a dry run matches on them).
_PULL_FIELDS = ("number", "title", "body", "labels", "user", "draft", "changed_files")


def register(d: Dispatcher) -> None:
    """Routes: `issue_comment` created/edited on a pull request,
    `pull_request_review_comment` created/edited (a comment on a line of the diff; the
    answer goes to the conversation, the reactions to that comment), `pull_request_review`
    submitted/edited (its body).
    """
    review, comment = review_written, comment_written
    d.add(Route("issue_comment", COMMENT_ACTIONS, handle_comment, check_comment, written=comment))
    d.add(Route("pull_request_review", REVIEW_ACTIONS, handle_review, check_review, written=review))
    d.add(
        Route(
            "pull_request_review_comment",
            COMMENT_ACTIONS,
            handle_diff_comment,
            check_diff_comment,
            written=comment,
        )
    )


def comment_written(payload: dict[str, Any]) -> str | None:
    """When the comment was written or last edited (an edit moves `updated_at`)."""
    item = payload.get("comment") or {}
    return _latest(item.get("created_at"), item.get("updated_at"))


def review_written(payload: dict[str, Any]) -> str | None:
    """When the review was submitted; None for an edit, which carries `submitted_at` only,
    not when it was edited."""
    if payload.get("action") != "submitted":
        return None
    return _latest((payload.get("review") or {}).get("submitted_at"))


def _latest(*times: object) -> str | None:
    known = [t for t in map(as_github_time, times) if t is not None]
    return max(known, default=None)


def _check_text(payload: dict[str, Any], part: str, conversation: str) -> str | None:
    """Why this comment or review cannot hold a new command for us (None: it may).
    `conversation`: the PR's copy its handler reads, `issue` or `pull_request`."""
    item = payload.get(part) or {}
    if payload.get("action") == "edited" and "body" not in (payload.get("changes") or {}):
        return "edited, but not its text"
    check_objects(item, ("user",), within=part)
    if (item.get("user") or {}).get("type") == "Bot":
        return "written by a bot"
    # Not by its markers: a human may quote our comment and add a command under it.
    # Our own comments are known by who wrote them (here; for a token, bot.dispatch).
    body = item.get("body") or ""
    if not isinstance(body, str):
        raise MalformedPayload(f"{part}.body: not a string ({type(body).__name__})")
    if not _MAY_HOLD_COMMAND.search(body):
        return "no line starts with a slash command"
    if _locked(payload) and "issue" not in payload:  # a review, a comment on the diff
        return (
            "the conversation is locked: GitHub takes no comment and no reaction from the"
            " App there, and a review's or a diff comment's commands are not kept for the"
            " unlock, as a PR comment's are: say them again once unlocked"
        )
    _item_id(item, part)  # a command's: refused at intake (400), not failed when run
    _check_readable(payload, conversation)
    return None


def _check_readable(payload: dict[str, Any], within: str) -> None:
    """The fields the handler reads, read as it reads them (the PR's copy as a
    pull_request payload's): one GitHub never sends so (`"installation": 5`, `"user":
    "x"`, a title that is no string) is refused (400, naming the field), as
    a pull_request payload is (bot.pr_events.check_readable), not queued to fail at each
    run with "'str' object has no attribute 'get'". MalformedPayload, else None.
    `within`: the copy the handler reads (triage may have found the number in the other,
    which GitHub never sends beside it)."""
    check_installation(payload)
    check_objects(payload, (within,))
    conversation = payload.get(within) or {}
    payload_id(conversation.get("number"), f"{within}.number")
    if within == "issue":
        pull = _pull_of_issue(conversation)
    else:  # `head` before `_pull_of` reads it; `user` first, as facts_from_payload reads it
        check_objects(conversation, ("user", "head"), within="pull_request")
        pull = _pull_of(payload)
    # the PR's copy kept, read as a dry run's update reads it (its author: by any run)
    try:
        facts_from_payload({"repository": {"full_name": ""}, "pull_request": pull})
    except ValueError as exc:
        raise MalformedPayload(f"{within}.{exc}") from exc


def _item_id(item: dict[str, Any], part: str) -> int | None:
    """The comment's id (it is reacted on: required) or the review's (None: not given,
    its commands unordered by it); MalformedPayload naming `comment.id` or `review.id`
    when it is not an integer."""
    if part == "review" and item.get("id") is None:
        return None
    return payload_id(item.get("id"), f"{part}.id")


def _locked(payload: dict[str, Any]) -> bool:
    """The payload says the PR's conversation is locked (`issue.locked` for a comment,
    `pull_request.locked` for a review or a comment on the diff).

    A locked conversation takes no comment and no reaction from the App: a PR comment's
    commands whose 👀 GitHub refuses so (said there, or locked before the 👀) are kept and
    run at the unlock (bot.locked_commands); a review's or a diff comment's there are ignored
    at intake (the payload says `locked`). A lock that came after the 👀 and before any reply
    is kept so too (no second 👀 then); after a reply, or at the update of the notes comment
    asked for, it ends the delivery at the first write GitHub refuses (bot.dispatch): the
    update, when refused, is owed and made at the unlock.
    """
    conversation = payload.get("issue") or payload.get("pull_request") or {}
    return isinstance(conversation, dict) and conversation.get("locked") is True


def check_comment(payload: dict[str, Any]) -> str | None:
    return _check_text(payload, "comment", "issue")


def check_diff_comment(payload: dict[str, Any]) -> str | None:
    return _check_text(payload, "comment", "pull_request")


def check_review(payload: dict[str, Any]) -> str | None:
    return _check_text(payload, "review", "pull_request")


def _old_body(payload: dict[str, Any]) -> str | None:
    if payload.get("action") != "edited":
        return None
    return ((payload.get("changes") or {}).get("body") or {}).get("from") or ""


def said_at(item: dict[str, Any], edited_at: str | None = None) -> str | None:
    """When a comment or review said what it says now, as a key that sorts in that order:
    GitHub's time (`updated_at`, the edit for an edited comment; a review's `submitted_at`,
    or `edited_at` for an edited review), then its id, since GitHub numbers comments as
    they are written and its times have whole seconds only. None when the payload does
    not tell."""
    said = edited_at or item.get("updated_at") or item.get("submitted_at") or item.get("created_at")
    when = as_github_time(said)  # not a time: unordered, never after all that comes later
    if when is None or item.get("id") is None:
        return None
    return comment_key(when, item["id"])


def _actor(payload: dict[str, Any]) -> Actor:
    sender = payload.get("sender") or {}
    return Actor(str(sender.get("login") or ""), sender.get("type") == "Bot")


def _source(
    payload: dict[str, Any],
    part: str,
    pull: dict[str, Any],
    *,
    reacts: bool,
    on_diff: bool = False,
    edited_at: str | None = None,
) -> Source:
    item = payload.get(part) or {}
    kind = "diff" if on_diff else "comment" if part == "comment" else part
    item_id = _item_id(item, part)  # (checked at intake: a delivery queued before)
    return Source(
        body=item.get("body") or "",
        old_body=_old_body(payload),
        comment_id=item_id if reacts else None,
        actor=_actor(payload),
        pr_author=(pull.get("user") or {}).get("login") or "",
        pull=pull,
        on_diff=on_diff,
        origin=f"{kind}:{item_id}" if item_id is not None else "",
        said_at=said_at(item, edited_at),
        repo_id=repository_id(payload),
    )


def _pull_of(payload: dict[str, Any]) -> dict[str, Any]:
    pr = payload["pull_request"]
    pull = {k: pr[k] for k in _PULL_FIELDS if k in pr}
    pull["head"] = {"sha": (pr.get("head") or {}).get("sha") or ""}
    return pull


def _pull_of_issue(issue: dict[str, Any]) -> dict[str, Any]:
    # An issue has the title, body, labels and author, but not the head commit.
    return {k: issue[k] for k in _PULL_FIELDS if k in issue}


def _comment_source(payload: dict[str, Any]) -> Source:
    issue = payload["issue"]
    source = _source(payload, "comment", _pull_of_issue(issue), reacts=True)
    # (set by bot.locked_commands only: GitHub's payloads have no such field)
    still = payload.get(STILL)
    return replace(
        source,
        heard=payload.get(HEARD) is True,
        still=still if isinstance(still, str) else None,
        said_unlocked=issue.get("locked") is False,
        owed=owed(payload),
    )


def _review_source(payload: dict[str, Any], received_at: str = "") -> Source:
    """`received_at`: when the delivery reached us (a retry keeps it). A review's payload
    has only `submitted_at`: an edit is dated by its arrival, right after GitHub sent it."""
    edited = payload.get("action") == "edited" and received_at
    edited_at = github_time(received_at) if edited else None
    return _source(payload, "review", _pull_of(payload), reacts=False, edited_at=edited_at)


def _diff_comment_source(payload: dict[str, Any]) -> Source:
    return _source(payload, "comment", _pull_of(payload), reacts=True, on_diff=True)


def handle_comment(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["issue"]["number"]))
    source = _comment_source(payload)
    said = run_commands(ctx, ref, source, delivery)
    if source.comment_id is not None and ctx.locked.kept_by(ref, source.comment_id, delivery.id):
        # its run met the lock: the payload's `locked`, from when it was said, is older
        # (said before the lock; or a kept comment queued again, whose release would
        # queue it once more, to meet the lock again, for as long as the lock stands)
        return said
    return _then_kept(ctx, ref, payload["issue"], said, comment_written(payload))


def handle_diff_comment(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    said = run_commands(ctx, ref, _diff_comment_source(payload), delivery)
    return _then_kept(ctx, ref, payload["pull_request"], said, comment_written(payload))


def handle_review(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    said = run_commands(ctx, ref, _review_source(payload, delivery.received_at), delivery)
    return _then_kept(ctx, ref, payload["pull_request"], said, review_written(payload))


def _then_kept(
    ctx: BotContext, ref: PRRef, conversation: dict[str, Any], said: str, written: str | None
) -> str:
    """After the comment's own commands (a lock refusing them raised past this), those a
    lock kept, queued when the payload says the PR is not locked: its unlock was not
    delivered (bot.locked_commands). `written`: when it was written, the time of its
    payload's word (not `said_at`, this module's order key)."""
    kept = release_unlocked(ctx, ref, conversation, written)
    return f"{said}; {kept}" if kept else said

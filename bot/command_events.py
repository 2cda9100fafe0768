"""Slash commands: `/notes ...` in a PR comment or a review body, answered on the PR.

Routes: `issue_comment` created/edited on a pull request,
`pull_request_review_comment` created/edited (a comment on a line of the diff; the
answer goes to the conversation, the reactions to that comment), `pull_request_review`
submitted/edited (its body), and `pull_request` with REFRESH_ACTION, an action
GitHub never sends: our own delayed delivery.

For each new command (for an edit: each command the edit added or changed) the
bot decides who may run it (`bot.command_policy`), reacts on the comment
(`eyes` taken, `confused` refused or unknown), then answers:

- `refresh`, `why`, `off` and `on` change the PR's state at once (`verbose`,
  `opted_out`) and ask for ONE sticky-comment update through the per-PR update
  windows (`flood_control.UpdateWindows`). Inside a window the update is deferred:
  the PR's state records what it owes (comments to `+1`, whether to show the notes)
  and a REFRESH_ACTION delivery waits in the SQLite queue (`not_before`) until the
  window ends, so a restart loses neither. Commands in the same window join that update. An `off` or
  `on` said on GitHub before the one that set the PR's state (run late: a retry, a
  redelivery) is acknowledged and changes nothing (`said_at`, `_newer_switch`); so is
  the mode of a `/notes` or `why` said before the one that set it (`_said_last`). Nor
  does one said before the command that set what the comment shows (a `/notes`, `why`,
  `wrong`, `restore`, or the `off` that paused it) rewrite it: the update owes what the
  one said last asked (`PendingUpdate.said`, `_showing_key`).
- `wrong` and `restore` change the notes hidden at once, each in turn: one run late
  changes nothing a `restore` (for `wrong`) or any of them (for `restore`) said after
  it changed, nor what it did itself before (`order_keys.command_key`): bot/command_feedback.py.
- `topic`, `search` and `help` get a reply comment each; what could not be done
  (unknown sub-commands, refusals, `wrong` naming no note shown) gets ONE reply for
  the comment. All within the per-PR reply budget (over it: the first command refused
  gets `confused`, no reply, the next that want only replies no reaction at all until
  the PR has a reply again; a re-run finds the replies it posted before by their key,
  and does not pay for them again) and the installation's (over it: likewise, until
  the installation has a reply again).

Every write a comment's commands make (reactions, replies, the notes comment's edit,
now or deferred) is paid from the installation's write budget before the first, as the
most they can write (`most_writes`); what was not written goes back (by a deferred
update that writes no comment, too: the edit its command paid for, `handle_refresh`).
Over it no command of the comment runs: the first refused gets `confused`, the next
nothing, each is logged.
Only a delivery not admitted yet is admitted or refused so: a re-run of an admitted
run (put back for a rate limit, retried; `FloodControl.admitted`) may follow a 👀 or a
PR state its commands already set, so it takes its writes even past the budget
(`FloodControl.take_writes`, paid back by the refills) and is answered whole; its
replies still ask the reply budget.

A locked conversation takes no comment and no reaction from the App: a command there
is ignored at intake (the payload says `locked`), and a lock that came after the command
ends its delivery at the first write GitHub refuses (bot.dispatch).

`+1` follows once everything the comment asked for is done. A reaction GitHub
refuses fails the delivery once the rest is answered, so that `retry` adds it (see
`Reactions`). GitHub has no reaction API for review bodies, so commands in a review
body are answered without reactions. Bots are never answered (our own comments included,
known by who wrote them; with a token, whose owner also writes as a person, by who wrote
them and our marker: see `bot.dispatch`).
"""

from __future__ import annotations

import functools
import logging
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from bot.command_feedback import take_feedback
from bot.command_policy import (
    DONE,
    REFUSED,
    Actor,
    Decision,
    authorize,
    first_reaction,
    most_writes,
    needs_reply,
)
from bot.command_replies import Unanswered, render_errors, render_reply
from bot.commands import Command, Kind, changed_commands, parse_commands
from bot.comment_prose import FORMAT_CHARS
from bot.context import BotContext
from bot.db import as_github_time, github_time, utcnow
from bot.dispatch import Dispatcher, Route, payload_id
from bot.flood_control import Admission
from bot.github_port import (
    ConversationLocked,
    GitHubError,
    Outcome,
    PRRef,
    counting_writes,
    rate_limit_wait,
    ref_from_payload,
)
from bot.markers import reply_key
from bot.order_keys import command_key, comment_key, comment_part, latest, said_before
from bot.prfacts import PRFacts, facts_from_payload
from bot.prstate import PendingUpdate, PRState
from bot.queue import Delivery, pr_key
from bot.sticky import Refresh, pause_sticky, refresh_sticky

log = logging.getLogger(__name__)

COMMENT_ACTIONS = frozenset({"created", "edited"})
REVIEW_ACTIONS = frozenset({"submitted", "edited"})
REFRESH_ACTION = "review_notes_refresh"  # not GitHub's: a deferred sticky update
# Cheap intake filter, whatever the command word: a command starts a line (as
# bot.comment_prose reads it: a BOM opening the comment, invisible characters before it).
_MAY_HOLD_COMMAND = re.compile(f"(?m)^\ufeff? {{0,3}}[{FORMAT_CHARS}]*/[A-Za-z]")
# The PR fields kept for later (a deferred update in a dry run matches on them).
_PULL_FIELDS = ("number", "title", "body", "labels", "user", "draft", "changed_files")


def register(d: Dispatcher) -> None:
    d.add(Route("issue_comment", COMMENT_ACTIONS, handle_comment, check_comment))
    d.add(Route("pull_request_review", REVIEW_ACTIONS, handle_review, check_review))
    d.add(Route("pull_request_review_comment", COMMENT_ACTIONS, handle_diff_comment, check_comment))
    d.add(Route("pull_request", frozenset({REFRESH_ACTION}), handle_refresh))


# --- intake ----------------------------------------------------------------------


def _check_text(payload: dict[str, Any], part: str) -> str | None:
    """Why this comment or review cannot hold a new command for us (None: it may)."""
    item = payload.get(part) or {}
    if payload.get("action") == "edited" and "body" not in (payload.get("changes") or {}):
        return "edited, but not its text"
    if (item.get("user") or {}).get("type") == "Bot":
        return "written by a bot"
    # Not by its markers: a human may quote our comment and add a command under it.
    # Our own comments are known by who wrote them (here; for a token, bot.dispatch).
    body = item.get("body") or ""
    if not _MAY_HOLD_COMMAND.search(body):
        return "no line starts with a slash command"
    if _locked(payload):
        return (
            "the conversation is locked: GitHub takes no comment and no reaction from the"
            " App there, so commands are neither run nor answered"
        )
    _item_id(item, part)  # a command's: refused at intake (400), not failed when run
    return None


def _item_id(item: dict[str, Any], part: str) -> int | None:
    """The comment's id (it is reacted on: required) or the review's (None: not given,
    its commands unordered by it); MalformedPayload naming `comment.id` or `review.id`
    when it is not an integer."""
    if part == "review" and item.get("id") is None:
        return None
    return payload_id(item.get("id"), f"{part}.id")


def _locked(payload: dict[str, Any]) -> bool:
    """The payload says the PR's conversation is locked (`issue.locked` for a comment,
    `pull_request.locked` for a review or a comment on the diff)."""
    conversation = payload.get("issue") or payload.get("pull_request") or {}
    return isinstance(conversation, dict) and conversation.get("locked") is True


def check_comment(payload: dict[str, Any]) -> str | None:
    return _check_text(payload, "comment")


def check_review(payload: dict[str, Any]) -> str | None:
    return _check_text(payload, "review")


@dataclass(frozen=True)
class Source:
    """Where commands were written, and what the event says about the PR."""

    body: str
    old_body: str | None  # an edit: the text before it; None: a new comment or review
    comment_id: int | None  # the comment to react on; None for a review body
    actor: Actor  # who wrote (or edited) it
    pr_author: str
    pull: dict[str, Any]  # the PR as `facts_from_payload` reads it (no head: ask GitHub)
    on_diff: bool = False  # comment_id is a comment on a line of the diff, not an issue comment
    origin: str = ""  # `comment:ID`, `diff:ID` or `review:ID`: what a `wrong` mark remembers
    said_at: str | None = None  # when GitHub says its text was written (see `said_at`)


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
    )


def _pull_of(payload: dict[str, Any]) -> dict[str, Any]:
    pr = payload["pull_request"]
    pull = {k: pr[k] for k in _PULL_FIELDS if k in pr}
    pull["head"] = {"sha": (pr.get("head") or {}).get("sha") or ""}
    return pull


def comment_source(payload: dict[str, Any]) -> Source:
    issue = payload["issue"]
    # An issue has the title, body, labels and author, but not the head commit.
    pull = {k: issue[k] for k in _PULL_FIELDS if k in issue}
    return _source(payload, "comment", pull, reacts=True)


def review_source(payload: dict[str, Any], received_at: str = "") -> Source:
    """`received_at`: when the delivery reached us (a retry keeps it). A review's payload
    has only `submitted_at`: an edit is dated by its arrival, right after GitHub sent it."""
    edited = payload.get("action") == "edited" and received_at
    edited_at = github_time(received_at) if edited else None
    return _source(payload, "review", _pull_of(payload), reacts=False, edited_at=edited_at)


def diff_comment_source(payload: dict[str, Any]) -> Source:
    return _source(payload, "comment", _pull_of(payload), reacts=True, on_diff=True)


def handle_comment(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["issue"]["number"]))
    return run_commands(ctx, ref, comment_source(payload), delivery)


def handle_diff_comment(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    return run_commands(ctx, ref, diff_comment_source(payload), delivery)


def handle_review(ctx: BotContext, delivery: Delivery) -> str:
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    return run_commands(ctx, ref, review_source(payload, delivery.received_at), delivery)


# --- answering ----------------------------------------------------------------------


class ReactionsFailed(Exception):
    """Reactions GitHub did not take: the delivery fails with them so that a retry adds them."""


def _gone(exc: Exception) -> bool:
    """The comment to react on is no longer there (deleted meanwhile): nothing to retry."""
    return isinstance(exc, GitHubError) and exc.status in (404, 410)


@dataclass
class Spent:
    """The content writes (github_facts §3.3: reactions, comments, edits) one run of a
    command delivery made on GitHub, or paid for in advance (the writes of a deferred
    update it is owed): what is kept of its reservation from the installation's write
    budget (`FloodControl.reserve_writes`); the rest goes back. A write tried and
    refused counts: GitHub may count it too."""

    writes: int = 0


class Reactions:
    """Reactions on comments, each added once.

    A failed one does not stop the answer (the comment update, the replies), but is
    kept: `check` then fails the delivery with it, so it shows in /healthz and a retry
    adds it; or, when GitHub rate limited it, raises that limit, so the worker puts the
    delivery back until then (GitHub does not redeliver). A re-run redoes no more than
    that: GitHub answers 200 for a reaction that exists, replies are found by their key,
    and an unchanged notes comment is not written. A reaction on a comment deleted
    meanwhile is moot and only logged.
    """

    def __init__(self, ctx: BotContext, ref: PRRef, spent: Spent | None = None):
        self.ctx, self.ref = ctx, ref
        self.spent = spent or Spent()  # each reaction asked for is a write
        self._added: set[tuple[int, str]] = set()
        self.failed: list[str] = []  # "content on comment N: error", in order
        self.limited: list[Exception] = []  # of those, GitHub's rate limits

    def add(self, comment_id: int | None, content: str | None, on_diff: bool = False) -> None:
        if comment_id is None or content is None or (comment_id, content) in self._added:
            return
        self._added.add((comment_id, content))
        self.spent.writes += 1
        try:
            self.ctx.github.add_reaction(self.ref, comment_id, content, on_diff=on_diff)
        except ConversationLocked:
            raise  # locked since the event: nothing more can be said there (bot.dispatch)
        except Exception as exc:
            if _gone(exc):
                log.info("not reacting %s: comment %s is gone (%s)", content, comment_id, exc)
                return
            log.warning("reacting %s to comment %s failed: %s", content, comment_id, exc)
            self.failed.append(f"{content} on comment {comment_id}: {exc}")
            if rate_limit_wait(exc) is not None:
                self.limited.append(exc)

    def check(self) -> None:
        """Fail the delivery if a reaction failed (call once the answer is given); put it
        back (raise the rate limit) if GitHub refused one for a while."""
        if self.limited:  # the longest wait: every reaction's limit is over by then
            raise max(self.limited, key=lambda e: rate_limit_wait(e) or 0.0)
        if self.failed:
            raise ReactionsFailed("reacting failed: " + "; ".join(self.failed))


def new_commands(ctx: BotContext, source: Source) -> list[Command]:
    caps = dict(max_commands=ctx.commands.max_commands, max_arg_chars=ctx.commands.max_arg_chars)
    if source.old_body is not None:
        return changed_commands(source.old_body, source.body, ctx.command_word, **caps)
    return parse_commands(source.body, ctx.command_word, **caps)


# The reply key's part for a delivery's one reply to the commands it could not do: one
# key whichever they are, so a re-run finds it even if what it answers changed meanwhile
# (a permission granted, a note shown).
ERRORS = "errors"


def _reply_posted(ctx: BotContext, ref: PRRef, delivery: Delivery, index: int | str) -> bool:
    """Whether an earlier run of this delivery (a crash, `review-notes retry`) posted the
    reply to its command `index` (or ERRORS): it was paid from the reply budget then, and
    one a maintainer deleted since must stay deleted. Recorded once GitHub confirmed it;
    else found by its key (the run died between the post and the record). A first run
    has posted nothing and asks GitHub nothing."""
    if delivery.attempts <= 1:
        return False
    key = reply_key(delivery.id, index)
    if ctx.prs.reply_recorded(key):
        return True
    found = ctx.github.find_comment(ref, key)
    if found is not None:  # posted, not recorded: record it now, lest a deletion hide it
        ctx.prs.record_reply(ref.repo, ref.number, key, found, delivery.id)
    return found is not None


def run_commands(ctx: BotContext, ref: PRRef, source: Source, delivery: Delivery) -> str:
    commands = new_commands(ctx, source)
    if not commands:
        return "no new command"
    if any(c.kind is Kind.WRONG for c in commands):  # its numbers: the comment read now
        notes = ctx.prs.get(ref.repo, ref.number).notes
        ctx.feedback.keep_numbering(ref.repo, ref.number, source.origin, notes)
    permission_of = functools.cache(lambda login: ctx.github.permission(ref, login))
    judged = [
        (c, authorize(c.kind, source.actor, source.pr_author, permission_of)) for c in commands
    ]
    judged = [(c, d) for c, d in judged if d is not Decision.IGNORE]
    if not judged:
        return f"ignored: {source.actor.login} is a bot"
    # Every write the comment may make is paid before the first: answered whole or not
    # run at all, and the writes of PR events (the notes comments) keep their room.
    reserved = most_writes(judged, reacts=source.comment_id is not None)
    if ctx.flood.admitted(delivery.id):
        # A re-run (put back for a rate limit, failed and `review-notes retry`) of a run
        # the budget admitted: it may have left the comment its 👀 and the PR the state
        # its commands set before their first write. Refused now, it would be marked
        # done with neither ever answered, so it is run whole whatever the budgets have
        # left (FloodControl.take_writes); its replies still ask the reply budget each,
        # and one refused gets 😕 (_run_judged).
        ctx.flood.take_writes(ref.installation_id, reserved)
    else:
        pr = pr_key(ref.repo, ref.number) or ""
        if all(needs_reply(c, d) for c, d in judged) and ctx.flood.refusing(
            ref.installation_id, pr
        ):
            # the first refused got 😕 (and the installation's, a warning); these, a line each
            log.info(
                "installation %s: %s#%d: not answered while its replies are refused",
                ref.installation_id,
                ref.repo,
                ref.number,
            )
            ctx.metrics.commands_refused.labels("reply").inc()
            return "not answered: over the PR's or the installation's reply budget"
        refused = ctx.flood.reserve_writes(ref.installation_id, reserved)
        if refused is not None:
            ctx.metrics.commands_refused.labels("write").inc()
            return _not_run(ctx, ref, source, judged, refused.first)
    ctx.flood.admit(delivery.id)  # a re-run too: the newest again, its next put-back kept
    spent = Spent()
    try:
        return _run_judged(ctx, ref, source, delivery, judged, spent)
    finally:  # what it did not write goes back, also when it failed or was put back halfway
        ctx.flood.refund_writes(ref.installation_id, reserved - spent.writes)


def _not_run(
    ctx: BotContext,
    ref: PRRef,
    source: Source,
    judged: list[tuple[Command, Decision]],
    first: bool,
) -> str:
    """The installation's write budget refused the comment: none of its commands run.
    The first comment of a spell gets 😕 (the spell's one write past the budget: the
    user learns the command was heard and not done) and the warning; the next get
    nothing at all, each logged with what it asked, so an operator can tell whose
    commands were dropped and the user can say them again later."""
    # the kinds and where they were said (not the text: a flood's, in every line)
    asked = ", ".join(str(c.kind) for c, _ in judged) + f" in {source.origin or 'a review'}"
    if first:
        log.warning(
            "installation %s: over its command write budget (%d writes, then one every %gs,"
            " all its PRs together: reactions, replies, edits of the notes comment):"
            " commands are not run until it has room for them (said again only once it"
            " has been full)",
            ref.installation_id,
            ctx.commands.installation_write_burst,
            ctx.commands.installation_write_refill_s,
        )
        Reactions(ctx, ref).add(source.comment_id, REFUSED, source.on_diff)
    log.info(
        "installation %s: %s#%d: not run, over its write budget: %s",
        ref.installation_id,
        ref.repo,
        ref.number,
        asked,
    )
    return f"not run: the installation is over its write budget ({asked})"


def _run_judged(
    ctx: BotContext,
    ref: PRRef,
    source: Source,
    delivery: Delivery,
    judged: list[tuple[Command, Decision]],
    spent: Spent,
) -> str:
    """React, run and answer the comment's commands; `spent` counts the writes."""
    reactions = Reactions(ctx, ref, spent)
    for c, d in judged:
        reactions.add(source.comment_id, first_reaction(c, d), source.on_diff)
    switching = any(c.kind in SWITCHES and d is Decision.ALLOW for c, d in judged)
    newer = _newer_switch(ctx, ref, source) if switching else None

    said: list[str] = []
    sticky: list[Kind] = []
    errors: list[Unanswered] = []  # answered together, in one reply (_answer_errors)
    answered = 0  # taken commands done now
    for i, (c, d) in enumerate(judged):
        # `wrong` naming no note of the comment is answered by a reply saying which it can name
        order = command_key(source.said_at, i)
        problem = take_feedback(ctx, ref, c, source, order) if d is Decision.ALLOW else None
        if d is Decision.ALLOW and c.kind in SWITCHES and newer:
            said.append(f"{c.kind}: changes nothing, an `off`/`on` said later stands ({newer})")
            answered += 1  # acknowledged: it was heard, and outranked
        elif d is Decision.ALLOW and c.kind.updates_sticky and problem is None:
            sticky.append(c.kind)
        elif d is Decision.REFUSE or problem or c.kind is Kind.UNKNOWN:
            errors.append(Unanswered(c, refused=d is Decision.REFUSE, unpicked=problem))
        elif _reply_once(ctx, ref, delivery, i, functools.partial(_reply, ctx, c, ref.repo), spent):
            answered += 1
            said.append(f"{c.kind}: replied")
        else:
            reactions.add(source.comment_id, REFUSED, source.on_diff)
            said.append(f"{c.kind}: over the reply budget")
    if errors:
        said.append(_answer_errors(ctx, ref, source, delivery, errors, reactions))
    owed = False
    if sticky:
        summary, owed = _ask_for_update(ctx, ref, source, sticky, reactions)
        said.append(summary)
        answered += not owed
    if answered and not owed:
        reactions.add(source.comment_id, DONE, source.on_diff)
    reactions.check()
    return "; ".join(said)


def _reply_once(
    ctx: BotContext,
    ref: PRRef,
    delivery: Delivery,
    index: int | str,
    body: Callable[[], str],
    spent: Spent,
) -> bool:
    """Post a reply under its key, paid from the PR's reply budget and its installation's,
    unless an earlier run of the delivery posted it (and paid for it then). False: over a
    budget, not posted."""
    if _reply_posted(ctx, ref, delivery, index):
        return True
    budget = pr_key(ref.repo, ref.number) or ""
    overspent = ctx.flood.allow_reply(budget, ref.installation_id)
    if overspent is not None:
        if overspent.first:  # once a spell, not per refusal
            log.warning(
                "installation %s: over its reply budget (%d, then one every %gs, all its PRs "
                "together): replies are refused until it refills",
                ref.installation_id,
                ctx.commands.installation_reply_burst,
                ctx.commands.installation_reply_refill_s,
            )
        return False
    once = reply_key(delivery.id, index)
    spent.writes += 1
    try:
        reply_id = ctx.github.create_comment(ref, f"{body()}\n{once}")
    except Exception:
        # not posted (a rate limit puts the delivery back): its re-run pays, not this run.
        # Posted all the same (a timeout), the re-run finds it by its key and pays nothing.
        ctx.flood.refund_reply(budget, ref.installation_id)
        raise
    ctx.prs.record_reply(ref.repo, ref.number, once, reply_id, delivery.id)
    return True


def _answer_errors(
    ctx: BotContext,
    ref: PRRef,
    source: Source,
    delivery: Delivery,
    errors: list[Unanswered],
    reactions: Reactions,
) -> str:
    """One reply to all the commands of the source that were not done (unknown, refused,
    `wrong` naming no note shown), under one key, and 😕: a reply each would notify
    everyone watching the PR once per typo, and spend the PR's reply budget on them."""
    reactions.add(source.comment_id, REFUSED, source.on_diff)
    what = ", ".join(f"{e.command.kind}: {e.outcome}" for e in errors)
    body = functools.partial(render_errors, errors, ctx.command_word)
    if not _reply_once(ctx, ref, delivery, ERRORS, body, reactions.spent):
        return f"{what}; over the reply budget"
    return f"{what}; one reply"


def _reply(ctx: BotContext, command: Command, repo: str) -> str:
    links = ctx.links

    def topic_page(topic_id: str) -> str:  # the PR's repository's notes, as the reply lists
        query = urlencode({"topic": topic_id, "repo": repo.lower()})
        return f"{links.base_url.rstrip('/')}/notes?{query}"

    return render_reply(
        command,
        ctx.library,
        links.url,
        word=ctx.command_word,
        max_results=ctx.commands.max_results,
        topic_url=topic_page if links.mode == "pages" else None,
        repo=repo,
    )


# --- the sticky comment, one update per window (flood_control.UpdateWindows) ------------

_STATE_CHANGES: dict[Kind, dict[str, bool]] = {
    Kind.REFRESH: {"verbose": False},
    Kind.WHY: {"verbose": True},
    Kind.OFF: {"opted_out": True},
    Kind.ON: {"opted_out": False},
    Kind.WRONG: {},  # the notes hidden are changed at once (command_feedback)
    Kind.RESTORE: {},
}


# Each field above, and the PR state's field with the order key (`said_at`) of the
# command that set it: the one said last on GitHub wins, whatever order they run in.
_SAID_KEYS = {"verbose": "verbose_at", "opted_out": "switched_at"}

_SHOWING = (Kind.REFRESH, Kind.WHY, Kind.WRONG, Kind.RESTORE)
# They set `opted_out`, and are answered "changes nothing" when a later one stands.
SWITCHES = (Kind.OFF, Kind.ON)


def _said_last(state: PRState, said: str | None, changes: dict[str, object]) -> dict[str, object]:
    """The changes this source still has the last word on, each with its order key: a
    field a command said after it has set (run before it) stays as that one left it."""
    kept = {
        f: v for f, v in changes.items() if not said_before(said, getattr(state, _SAID_KEYS[f]))
    }
    if said is None:
        return kept
    return kept | {_SAID_KEYS[f]: said for f in kept}


def _showing_key(state: PRState) -> str | None:
    """The order key of the command written last of those that set what the comment
    shows: a `/notes`, `why`, `wrong` or `restore` (the notes), or while paused the `off`
    (or the deletion of the comment) that paused it. One written before it, run late,
    does not rewrite the comment (`_update`)."""
    dismissed = state.dismissed_at and comment_part(state.dismissed_at)
    return latest(state.verbose_at, dismissed, state.switched_at if state.opted_out else None)


def _newer_switch(ctx: BotContext, ref: PRRef, source: Source) -> str | None:
    """The key of the `off`/`on` that set the PR's opt-out (or of the deletion of its
    notes comment, bot.sticky) when it was said after this source: then this one's
    `off`/`on` is old news (a late delivery, `review-notes retry` or GitHub's redelivery
    of a failed one) and must not undo the author's last word, nor the maintainer's.
    A source the payload gives no time for is taken as the newest, as before."""
    newest = ctx.prs.get(ref.repo, ref.number).switched_at
    return newest if said_before(source.said_at, newest) else None


def _ran_before(ctx: BotContext, ref: PRRef, source: Source) -> bool:
    """This source's `off`/`on` already set the PR's state: a re-run (retry, redelivery)
    of it. It must not arm `resumed` again, since a deletion made since the first run is
    a maintainer's "go away" that came after it."""
    switched = ctx.prs.get(ref.repo, ref.number).switched_at
    return source.said_at is not None and source.said_at == switched


def _ask_for_update(
    ctx: BotContext, ref: PRRef, source: Source, kinds: list[Kind], reactions: Reactions
) -> tuple[str, bool]:
    """Apply the commands to the PR's state now; update the comment now or owe it.

    Returns a summary and whether the update is owed (deferred) rather than done.
    """
    changes: dict[str, object] = {}
    show: bool | None = None  # asked to see the notes (even while paused), or `off`
    for kind in kinds:  # in the comment's order: the last one wins
        changes.update(_STATE_CHANGES[kind])
        if kind in _SHOWING:
            show = True
        elif kind is Kind.OFF:
            show = False
    before = ctx.prs.get(ref.repo, ref.number)
    # what a later-run older one is held to (an outranked `off`/`on` never gets here)
    changes = _said_last(before, source.said_at, changes)
    if changes.get("opted_out") is False and not _ran_before(ctx, ref, source):
        # until a write finds the comment, one gone was deleted before this `on` (while
        # off, or before any event noticed it): it is posted anew by whichever refresh
        # runs first (this one may be deferred or fail), not taken for a "go away"
        changes["resumed_at"] = before.resume_mark()
    ticket = ctx.flood.sticky.admit(pr_key(ref.repo, ref.number) or "")
    state = ctx.prs.update(ref.repo, ref.number, **changes)
    pending = (state.pending or PendingUpdate()).add(
        source.comment_id, show, source.on_diff, source.said_at
    )
    if ticket.admission is Admission.RUN or ctx.queue is None:
        return _update(ctx, ref, source.pull, pending, reactions)[0], False
    ctx.prs.update(ref.repo, ref.number, pending=pending)
    # The update it is owed writes later (handle_refresh, which pays nothing): its 👍,
    # and for the one that schedules it, the notes comment. Paid now, from this
    # command's reservation.
    reactions.spent.writes += (source.comment_id is not None) + (
        ticket.admission is Admission.DEFER
    )
    if ticket.admission is Admission.DEFER:
        delay = max(0.0, ticket.run_at - ctx.flood.clock())
        _schedule(ctx, ref, source.pull, delay)
        return f"comment update deferred {delay:.1f}s (flood control)", True
    return "comment update joins the one already deferred", True


def _schedule(ctx: BotContext, ref: PRRef, pull: dict[str, Any], delay_s: float) -> None:
    """Queue REFRESH_ACTION for the end of the window; it re-reads the PR when it runs.
    The command that queues it paid for its notes comment write: the flood control is
    told, before it is queued, so that it gives it back if that update writes none."""
    assert ctx.queue is not None
    payload: dict[str, Any] = {
        "action": REFRESH_ACTION,
        "repository": {"full_name": ref.repo},
        "pull_request": {k: v for k, v in pull.items() if k != "head"},  # ask for the head then
    }
    if ref.installation_id is not None:
        payload["installation"] = {"id": ref.installation_id}
    delivery = f"{REFRESH_ACTION}:{ref.repo}#{ref.number}:{uuid.uuid4().hex}"
    ctx.flood.prepaid(delivery)
    ctx.queue.enqueue(
        delivery,
        "pull_request",
        REFRESH_ACTION,
        payload,
        ref.repo,
        ref.number,
        not_before=utcnow(after_s=delay_s),
        by_bot=True,
    )


def handle_refresh(ctx: BotContext, delivery: Delivery) -> str:
    """The deferred update: everything the window's commands asked for, at once."""
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    ctx.flood.sticky.start(pr_key(ref.repo, ref.number) or "")  # the next window opens now
    pending = ctx.prs.get(ref.repo, ref.number).pending
    if pending is None:
        _settle_prepaid(ctx, ref, delivery, tried=False)
        return "nothing owed: an earlier update covered it"
    reactions = Reactions(ctx, ref)
    with counting_writes() as asked:
        try:
            said, wrote = _update(ctx, ref, payload["pull_request"], pending, reactions)
        except BaseException:
            if asked.count:  # a write was sent, or begun: its re-run gives nothing back
                _settle_prepaid(ctx, ref, delivery, tried=True)
            raise  # none asked for (a rate limit on a read): the re-run settles it
    _settle_prepaid(ctx, ref, delivery, tried=wrote)
    reactions.check()
    return said


def _settle_prepaid(ctx: BotContext, ref: PRRef, delivery: Delivery, *, tried: bool) -> None:
    """The command that queued this update paid for its notes comment write: given back
    when the update ends having written none (`tried`: written, or asked for by a run
    that raised), once (claim_prepaid: the first run of the process whose command paid
    that settles; not after a restart, when the budgets start full)."""
    if ctx.flood.claim_prepaid(delivery.id) and not tried:
        ctx.flood.refund_writes(ref.installation_id, 1)


def _update(
    ctx: BotContext,
    ref: PRRef,
    pull: dict[str, Any],
    pending: PendingUpdate,
    reactions: Reactions,
) -> tuple[str, bool]:
    """Write the sticky comment as the PR's state says, then `+1` the commands it answers.
    Returns a summary and whether the comment was written."""
    state = ctx.prs.get(ref.repo, ref.number)
    if said_before(pending.said, _showing_key(state)):
        # run late (a retry, a late delivery): a command written after the one that asked
        # to see the notes (or `off`) set what the comment shows. Paused and showing the
        # notes: they are shown again as the state now has them (a late `wrong` hides
        # its note), under the paused line (a late `off` says so); the short line stays;
        # not paused: a PR event's update.
        paused = state.opted_out or state.paused is not None
        if paused and state.notes:
            result = refresh_sticky(ctx, ref, current_facts(ctx, ref, pull), force=True)
        elif state.opted_out:
            result = Refresh(Outcome.SKIPPED, "what a later command showed stands")
        else:
            result = refresh_sticky(ctx, ref, current_facts(ctx, ref, pull))
    elif state.opted_out and not pending.show:
        result = pause_sticky(ctx, ref)
    elif pending.show:  # even on a draft or an opted-out PR: a human asked to see them
        result = refresh_sticky(ctx, ref, current_facts(ctx, ref, pull), force=True)
    else:  # `/notes on` alone: automatic updates resume, with their rules (drafts wait,
        # a PR no note matches gets no comment, the opt-out label still pauses); a comment
        # deleted while off is posted anew, not taken for a new opt-out (resumed)
        result = refresh_sticky(ctx, ref, current_facts(ctx, ref, pull))
    wrote = result.outcome in (Outcome.CREATED, Outcome.UPDATED)
    if wrote:
        reactions.spent.writes += 1  # the notes comment, written for a command
    failures = len(reactions.failed)
    for comment_id in pending.acks:
        reactions.add(comment_id, DONE)
    for comment_id in pending.diff_acks:
        reactions.add(comment_id, DONE, on_diff=True)
    # A `+1` GitHub did not take stays owed: the delivery fails (Reactions.check), and
    # its retry, or the PR's next update, finds it here and gives it.
    paid = len(reactions.failed) == failures
    ctx.prs.update(ref.repo, ref.number, pending=None if paid else pending)
    return f"comment {result.outcome}: {result.reason}", wrote


def current_facts(ctx: BotContext, ref: PRRef, pull: dict[str, Any]) -> PRFacts:
    """The PR as it is now: one GET of the PR, unless the event's copy has the head
    commit and the file count (a comment's lacks the head, a review's the count, without
    which the docs-only and tests-only rules cannot tell every file is known); the
    event's copy when the port cannot ask (dry run)."""
    if not (pull.get("head") or {}).get("sha") or pull.get("changed_files") is None:
        live = ctx.github.get_pull(ref)
        if live is not None:
            return live
    return facts_from_payload({"repository": {"full_name": ref.repo}, "pull_request": pull})

"""`pull_request` events: keep the sticky comment in step with the PR.

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): the handler that
hands a PR event to bot.sticky. It must never let an older event change what a newer one
did. What each action does: `handle_pull_request`; `unlocked`: `handle_unlocked`; a file
list GitHub gives short: `_recheck_later`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from bot.command_updates import WAITS, write_owed
from bot.context import BotContext
from bot.deletion_events import delete_owed, deletion_owed
from bot.dispatch import Dispatcher, MalformedPayload, Route, check_installation
from bot.github_port import FilesNotReady, PRRef, ref_from_payload, repository_id
from bot.locked_commands import drop_closed, release, release_unlocked
from bot.prfacts import PRFacts, facts_from_payload, payload_files
from bot.queue import Delivery
from bot.sticky import Refresh, refresh_sticky, seen_event
from bot.times import as_github_time, utcnow
from bot.write_backs import write_back_owed

log = logging.getLogger(__name__)
# Set on our own re-check of a delivery whose file list GitHub had not caught up with: a
# payload key (its value, which re-check), where bot.files_recheck's RECHECK_ACTION, the
# same words, is the action of a command's re-check. Both are in queued payloads: kept.
RECHECK = "review_notes_files_recheck"
RECHECK_ID = "#files-recheck-"  # and its number: a re-check's delivery id after its event's
# what an unlock says when its own deletion owed met the lock: locked again since it was sent
RELOCKED = "kept commands left kept: the conversation is locked again"

ACTIONS = frozenset(
    {
        *("opened", "reopened", "ready_for_review", "edited", "synchronize"),
        *("labeled", "unlabeled", "converted_to_draft", "closed"),
    }
)


def register(d: Dispatcher) -> None:
    # One body may be two events (same_bodies): intake refuses the PR's latest body
    # again; an older one replayed changes nothing: older than the last event handled it
    # is stale, of its second it is matched on the PR as GitHub has it (`_as_now`).
    d.add(
        Route(
            "pull_request",
            ACTIONS,
            handle_pull_request,
            check_pull_request,
            bots=True,
            same_bodies=True,
        )
    )
    # `locked` has no route (ignored at intake): the writes it stops are refused
    # (ConversationLocked), and what they leave owed is made at the unlock. Of a closed
    # PR too: its comment is left alone, but an owed deletion or a command's ask is not.
    d.add(
        Route("pull_request", frozenset({"unlocked"}), handle_unlocked, check_readable, bots=True)
    )


def handle_unlocked(ctx: BotContext, delivery: Delivery) -> str:
    """`unlocked`: GitHub takes the App's writes on the PR again. What the lock refused is
    made now, not left for the PR's next event (a quiet PR may have none for weeks): a
    rewrite's words owed back (bot.write_backs: before any write of ours takes theirs for
    the notes comment), the write owed, then the deletion owed (`delete_owed`). The
    commands' update (`pending`, one a lock refused) by their rules, with their 👍; else
    a write of ours the lock refused, or whose answer was lost (`unconfirmed`), as any
    PR event's. Then the commands said on the locked PR, or locked before their 👀, are
    queued again (bot.locked_commands), unless the deletion owed met the lock: a stale
    unlock, the PR locked again since, whose commands would meet it again (`RELOCKED`).
    Nothing owed: nothing written (the lock changed nothing the comment shows).

    unlocked: what a locked conversation refused is made then; an unlock with nothing
    owed writes nothing. `locked` is not handled.
    """
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    owed = write_back_owed(ctx, ref)
    wrote = owed is not None and owed.wrote
    back = "a rewrite's words written back over our late edit" if wrote else None
    state = ctx.prs.get(ref.repo, ref.number)
    if state.pending is None and state.unconfirmed:
        done: list[str | None] = [back, _look_at_pr(ctx, delivery)]
    else:
        said = write_owed(ctx, ref, payload["pull_request"], repository_id(payload))
        done = [back, said, delete_owed(ctx, ref, ctx.prs.get(ref.repo, ref.number))]
    if deletion_owed(ctx.prs.get(ref.repo, ref.number)):  # its deletion met a new lock
        done.append(RELOCKED)  # (as `handle_pull_request`: they would meet it again)
    else:
        done.append(_release_or_drop(ctx, delivery, ref))  # the commands it kept from being heard
    nothing = "nothing owed: no write or deletion was left to the unlock"
    return "; ".join(x for x in done if x) or nothing


def _release_or_drop(ctx: BotContext, delivery: Delivery, ref: PRRef) -> str | None:
    """The commands the lock kept, queued to run after the unlock; or, when the unlock's
    payload says the PR is closed (and no newer event of it was seen: not reopened since),
    dropped as `closed` drops them: kept after it ran (their comment's delivery ran late),
    they would answer on the PR done with."""
    pull = delivery.payload["pull_request"]
    if pull.get("state") != "closed":
        return release(ctx, ref)
    event_at = as_github_time(pull.get("updated_at"))
    if event_at and seen_event(ctx, ref, event_at, event_id(delivery)):
        return release(ctx, ref)  # reopened since: as any unlock's
    dropped = drop_closed(ctx, ref, "unlocked, closed")
    return (
        f"the PR is closed: the commands kept of {dropped} comment(s) dropped" if dropped else None
    )


def check_pull_request(payload: dict[str, Any]) -> str | None:
    pr = payload.get("pull_request") or {}
    if payload.get("action") == "edited" and not {"title", "body", "base"} & set(
        payload.get("changes") or {}
    ):
        return "edited, but not its title, body or base branch"
    if pr.get("state") == "closed" and payload.get("action") != "closed":
        return "the pull request is closed"
    check_readable(payload)
    return None


def check_readable(payload: dict[str, Any]) -> None:
    """The payload read at intake as its handler reads it (its installation, the PR's
    fields): one GitHub never sends so (`"installation": 5`, a title that is no string)
    is refused (400, naming the field), not queued to fail at each run and retry.
    MalformedPayload, else None: nothing in it to ignore."""
    check_installation(payload)
    try:
        facts_from_payload(payload)
    except ValueError as exc:
        raise MalformedPayload(f"pull_request.{exc}") from exc
    try:
        payload_files(payload)
    except ValueError as exc:  # a hand-made payload's (top-level, not the PR's)
        raise MalformedPayload(str(exc)) from exc


def handle_pull_request(ctx: BotContext, delivery: Delivery) -> str:
    """The event's look (`_look_at_pr`), then the commands a lock kept, when the payload
    says the PR is not locked and its unlock was not delivered (bot.locked_commands); not
    when the look met the lock (the deletion owed, refused): the PR is locked now, whatever
    the payload said when GitHub sent it, and they would meet the lock again.

    opened / reopened / ready_for_review: the first look. edited: only a new title,
    body or base branch can change the matches (a new base changes the files, not the
    head). synchronize: a push, files may have changed. converted_to_draft: handled as any
    event, so that its time is remembered: an older one handled after it (its payload not
    a draft) is stale and cannot post on the draft; a comment already there is kept up to
    date, as on any draft that has one.
    labeled / unlabeled: vLLM's Mergify adds most labels seconds after `opened`, so
    events sent by other bots (Mergify, pre-commit-ci, dependabot, ...) are handled
    like anyone's; those sent by the bot itself are not (bot.dispatch).
    Drafts wait for `ready_for_review` (unless configured otherwise); closed PRs are
    left alone: `closed` only records when the PR closed, so that an older event handled
    after it (late, or re-run by `review-notes retry`) changes nothing.
    Events of the same second come in no promised order (`gh pr create --label` sends
    `opened` without the label and `labeled` with it, both at one `updated_at`): an event
    tied with one already handled is matched on the PR as GitHub has it now (closed
    by then: left alone; a dry run cannot ask and keeps the payload).
    """
    said = _look_at_pr(ctx, delivery)
    pull = delivery.payload["pull_request"]
    if delivery.payload.get("action") == "closed":  # (`_closed` forgot them)
        return said
    ref = ref_from_payload(delivery.payload, int(pull["number"]))
    if deletion_owed(ctx.prs.get(ref.repo, ref.number)):
        return said
    kept = release_unlocked(ctx, ref, pull, as_github_time(pull.get("updated_at")))
    return f"{said}; {kept}" if kept else said


def _look_at_pr(ctx: BotContext, delivery: Delivery) -> str:
    """One event's look at its PR, in order: `closed` only remembered (`_closed`); the PR
    as GitHub has it now on a tie of the same second (`_as_now`); the commands' update
    owed, made on this look (`write_owed`), else (none owed, it waits for its window, or
    the event is older than one handled) the event's own (`refresh_sticky`); a list
    short of a push queued for its files re-check (`_recheck_later`); then the deletion
    owed (`delete_owed`). What was done."""
    payload = delivery.payload
    if payload.get("action") == "closed":  # nothing to match: only remember when
        return _closed(ctx, delivery)
    files = payload_files(payload)
    facts = facts_from_payload(payload, files or ())
    ref = ref_from_payload(payload, facts.number)
    event_at = as_github_time(payload["pull_request"].get("updated_at"))
    state = ctx.prs.get(ref.repo, ref.number)
    tied = bool(event_at) and state.event_at == event_at and state.event_by != event_id(delivery)
    if tied and not state.opted_out:  # (off: no use)
        # closed by now (`closed` of the same second, handled first): refresh_sticky
        # leaves it alone, as it does any closed PR
        facts = _as_now(ctx, ref, facts)
    rechecks = int(payload.get(RECHECK) or 0)
    delays = ctx.settings.files_recheck_delays
    expected = facts.changed_files
    if not isinstance(expected, int) or rechecks >= len(delays) or ctx.queue is None:
        expected = None  # out of patience: match on the list as it is
    by = event_id(delivery)
    # older than an event handled: changes nothing, and a command's update owed takes the
    # PR as it is now (its GET), not as this payload had it
    newer = seen_event(ctx, ref, event_at, by) if event_at else None

    def look(force: bool) -> Refresh:  # the PR as this event has it
        return refresh_sticky(
            ctx,
            ref,
            facts,
            force=force,
            files=files,
            event_at=event_at,
            expected_files=expected,
            event_by=by,
        )

    pull, repo_id = payload["pull_request"], repository_id(payload)
    try:
        # the commands' update a lock refused, its unlock not delivered (or its run
        # failed): paid at the PR's next chance, on this event's look, in its one write
        # (its rules decide: the notes shown or paused, as an opted-out PR's event
        # writes nothing of its own); a short list waits for its re-check, as the event
        said = write_owed(ctx, ref, pull, repo_id, None if newer else look)
        result = look(False) if said is None or said == WAITS or newer else None
    except FilesNotReady as short:
        return _recheck_later(ctx, delivery, short, delays[rechecks])
    # a deletion's, left up while locked; after the write, which takes the comment back
    # when it keeps it (an `on` said since: the comment asked for after the deletion)
    owed = delete_owed(ctx, ref, ctx.prs.get(ref.repo, ref.number))
    if result is None:
        more = f"; {owed}" if owed else ""
        return f"the commands' update owed, on this event's look: {said}{more}"
    comment = f" (comment {result.comment_id})" if result.comment_id else ""
    more = "".join(f"; {x}" for x in (said, owed) if x)
    return f"{result.outcome}{comment}: {result.reason}{more}"


def _closed(ctx: BotContext, delivery: Delivery) -> str:
    """`closed`: remember when, and forget the commands a lock kept on the PR (closed or
    merged, no unlock is to run them: they would answer on a PR done with). A stale
    `closed` (reopened since) forgets none: they are the reopened PR's."""
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    event_at = as_github_time(payload["pull_request"].get("updated_at"))
    newer = seen_event(ctx, ref, event_at, event_id(delivery)) if event_at else None
    if newer:
        return f"skipped: closed (stale: {newer} is newer)"
    dropped = drop_closed(ctx, ref, "closed")
    return (
        f"skipped: closed; the commands kept of {dropped} comment(s) dropped"
        if dropped
        else "skipped: closed"
    )


def event_id(delivery: Delivery) -> str:
    """The event a delivery carries: its id, or for a files re-check its original's. A
    re-run of the event (put back, retried, re-checked) is no tie with itself."""
    return delivery.id.split(RECHECK_ID)[0]


def _as_now(ctx: BotContext, ref: PRRef, facts: PRFacts) -> PRFacts:
    """The PR as GitHub has it now, for an event of the same second as one already
    handled: either may be the older, so this payload's labels, text and head may be
    out of date (`labeled` with the opt-out label, handled first, then `opened` without
    it would post the notes on an opted-out PR). One GET, on such a tie only. A dry run
    cannot ask: it keeps the payload."""
    live = ctx.github.get_pull(ref)
    return facts if live is None else replace(live, files=facts.files)


def _recheck_later(ctx: BotContext, delivery: Delivery, short: FilesNotReady, delay: float) -> str:
    """Queue the same event again after `delay`, as a delivery of its own (durable).

    The event's files re-check: a file list GitHub gives short of the PR's `changed_files`
    (it lags a push) raises FilesNotReady, and the same event is queued again as a delivery
    of its own (RECHECK in its payload, RECHECK_ID in its id), after each
    of REVIEW_NOTES_FILES_RECHECK_DELAYS in turn; the last takes the list as it is. A
    command's update re-checks its list the same way (bot.files_recheck).
    """
    assert ctx.queue is not None
    n = int(delivery.payload.get(RECHECK) or 0) + 1
    ctx.queue.enqueue(
        f"{event_id(delivery)}{RECHECK_ID}{n}",
        delivery.event,
        delivery.action,
        {**delivery.payload, RECHECK: n},
        delivery.repo,
        delivery.pr_number,
        not_before=utcnow(after_s=delay),
        by_bot=True,
    )
    return f"{short}; looking again in {delay:g}s"

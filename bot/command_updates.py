"""The notes comment's update that `refresh`, `why`, `off` and `on` ask for (and
`wrong`, `restore`), one per window; its route is `pull_request` with REFRESH_ACTION, an
action GitHub never sends: our own delayed delivery.

Steps 2 to 5 of the flow (event -> PR facts -> matches -> comment -> GitHub) for
commands, one update per window; a command said before the one that set the PR's state
must never undo it. How commands join one update: `ask_for_update`; a repository
renamed before it runs: `handle_refresh`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from bot.command_policy import DONE
from bot.command_reactions import Reactions
from bot.command_source import Source
from bot.commands import Kind
from bot.context import BotContext
from bot.dispatch import Dispatcher, Route
from bot.files_recheck import after_command
from bot.flood_control import Admission
from bot.github_port import (
    ConversationLocked,
    Outcome,
    PRRef,
    counting_writes,
    own_payload,
    ref_from_payload,
    repository_id,
)
from bot.order_keys import said_before
from bot.prfacts import PRFacts, facts_from_payload
from bot.prstate import PendingUpdate, PRState, showing_key
from bot.queue import Delivery, own_delivery, pr_key
from bot.sticky import Refresh, pause_sticky, refresh_sticky
from bot.write_backs import charged

REFRESH_ACTION = "review_notes_refresh"  # not GitHub's: a deferred sticky update
WAITS = "the commands' update waits for its window's end (flood control)"

# The notes comment updated on the PR as one look at it has it (True: forced, as a command
# asks to see the notes): the update's own, one GET of the PR (`_refresh`), or a PR
# event's, on its payload (bot.pr_events).
Look = Callable[[bool], Refresh]


def register(d: Dispatcher) -> None:
    d.add(Route("pull_request", frozenset({REFRESH_ACTION}), handle_refresh, follows=False))


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


def newer_switch(ctx: BotContext, ref: PRRef, source: Source) -> str | None:
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


def ask_for_update(
    ctx: BotContext, ref: PRRef, source: Source, kinds: list[Kind], reactions: Reactions
) -> tuple[str, bool]:
    """Apply the commands to the PR's state now; update the comment now or owe it.

    Returns a summary and whether the update is owed (deferred) rather than done.

    They change the PR's state at once (`verbose`, `opted_out`) and ask for ONE
    sticky-comment update through the per-PR update windows (`flood_control.UpdateWindows`).
    Inside a window the update is deferred: the PR's state records what it owes (comments
    to `+1`, whether to show the notes) and a REFRESH_ACTION delivery waits in the SQLite
    queue (`not_before`) until the window ends, so a restart loses neither. Commands in the
    same window join that update. An `off` or `on` said on GitHub before the one that set
    the PR's state (run late: a retry, a redelivery) is acknowledged and changes nothing
    (`command_events.said_at`, `newer_switch`); so is the mode of a `/notes` or `why` said
    before the one that set it (`_said_last`). Nor does one said before the command that
    set what the comment shows (a `/notes`, `why`, `wrong`, `restore`, or the `off` that
    paused it) rewrite it: the update owes what the one said last asked
    (`PendingUpdate.said`, `prstate.showing_key`).
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
        try:
            look = partial(_refresh, ctx, ref, source.pull)
            return _write_owed_update(ctx, ref, look, pending, reactions)[0], False
        except ConversationLocked:
            # locked since the command was said: its update is owed, written with its 👍
            # at the unlock (`write_owed`), as a deferred one the lock refused is
            ctx.prs.update(ref.repo, ref.number, pending=pending)
            raise
    ctx.prs.update(ref.repo, ref.number, pending=pending)
    # The update it is owed writes later (handle_refresh, which pays nothing): its 👍,
    # and for the one that schedules it, the notes comment. Paid now, from this
    # command's reservation.
    reactions.spent.writes += (source.comment_id is not None) + (
        ticket.admission is Admission.DEFER
    )
    if ticket.admission is Admission.DEFER:
        delay = max(0.0, ticket.run_at - ctx.flood.clock())
        _schedule(ctx, ref, source.pull, delay, source.repo_id)
        return f"comment update deferred {delay:.1f}s (flood control)", True
    return "comment update joins the one already deferred", True


def _schedule(
    ctx: BotContext,
    ref: PRRef,
    pull: dict[str, Any],
    delay_s: float,
    repo_id: int | None,
    *,
    prepaid: bool = True,
) -> None:
    """Queue REFRESH_ACTION for the end of the window; it re-reads the PR when it runs.
    The command that queues it paid for its notes comment write (`prepaid`): the flood
    control is told, before it is queued, so that it gives it back if that update writes
    none. `repo_id`: the repository's id, by which it finds the PR's state moved to a new
    name meanwhile (None: not told; by name alone)."""
    assert ctx.queue is not None
    asked = {k: v for k, v in pull.items() if k != "head"}  # it asks for the head then
    payload = own_payload(ref, REFRESH_ACTION, repo_id, asked)
    own = own_delivery(REFRESH_ACTION, ref.repo, ref.number)
    if prepaid:
        ctx.flood.prepaid(own.id)
    ctx.queue.enqueue_own(own, payload, delay_s)


def handle_refresh(ctx: BotContext, delivery: Delivery) -> str:
    """The deferred update: everything the window's commands asked for, at once.

    The update is queued under the name its commands came by, with the repository's id: when
    an event under a new name (a rename, a transfer) has moved the PR's state there before
    it runs, it is queued again under that name.
    """
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    repo_id = repository_id(payload)
    moved = ctx.prs.kept_under(ref.repo, ref.number, repo_id)
    if moved is not None:
        # the repository was renamed or transferred, and an event under its new name moved
        # the PR's state there, owed update and all: queued again under that name, it
        # runs one at a time with that name's deliveries (this one's payment goes along)
        paid = ctx.flood.claim_prepaid(delivery.id)
        _schedule(
            ctx, replace(ref, repo=moved), payload["pull_request"], 0.0, repo_id, prepaid=paid
        )
        return f"the PR's state is kept under {moved} now: its update is queued there"
    ctx.flood.sticky.start(pr_key(ref.repo, ref.number) or "")  # the next window opens now
    pending = ctx.prs.get(ref.repo, ref.number).pending
    if pending is None:
        _settle_prepaid(ctx, ref, delivery, tried=False)
        return "nothing owed: an earlier update covered it"
    reactions = Reactions(ctx, ref)
    with counting_writes() as asked, charged(ctx, ref):
        try:
            look = partial(_refresh, ctx, ref, payload["pull_request"])
            said, wrote = _write_owed_update(ctx, ref, look, pending, reactions)
        except BaseException:
            if asked.count:  # a write went out, or may have: its re-run gives nothing back
                _settle_prepaid(ctx, ref, delivery, tried=True)
            raise  # none asked for (a rate limit on a read): the re-run settles it
    _settle_prepaid(ctx, ref, delivery, tried=wrote)
    reactions.check()
    return said


def write_owed(
    ctx: BotContext,
    ref: PRRef,
    pull: dict[str, Any],
    repo_id: int | None,
    look: Look | None = None,
) -> str | None:
    """The update the PR's commands are owed (`pending`), written now with their 👍, by
    their rules (`_write_owed_update`); None when none is owed. For the unlock and the
    PR's events (bot.pr_events): a lock refused the update, run at once or deferred (or
    its run failed). One whose deferred update is still queued (its window not over) waits
    for it: written now, it would pass the flood control, and that update, finding nothing
    owed, would give back the write its command paid for, made here. Asked of the queue,
    not the windows (in memory, by name): after a restart, or a rename (`repo_id`: the
    repository's id, by which an update queued under the old name is found), too (WAITS).
    `look`: a PR event's, taken for the update's GET of the PR: the commands' rules (the
    notes shown or paused, their 👍) on the event's matches, in one write."""
    pending = ctx.prs.get(ref.repo, ref.number).pending
    if pending is None:
        return None
    if ctx.queue is not None and ctx.queue.still_to_run(
        REFRESH_ACTION, ref.repo, ref.number, repo_id
    ):
        return WAITS
    reactions = Reactions(ctx, ref)
    look = look or partial(_refresh, ctx, ref, pull)
    said, _ = _write_owed_update(ctx, ref, look, pending, reactions)
    reactions.check()
    return said


def _settle_prepaid(ctx: BotContext, ref: PRRef, delivery: Delivery, *, tried: bool) -> None:
    """The command that queued this update paid for its notes comment write: given back
    when the update ends having written none (`tried`: written, or asked for by a run
    that raised), once (claim_prepaid: the first run of the process whose command paid
    that settles; not after a restart, when the budgets start full)."""
    if ctx.flood.claim_prepaid(delivery.id) and not tried:
        ctx.flood.refund_writes(ref.installation_id, 1)


def _write_owed_update(
    ctx: BotContext,
    ref: PRRef,
    look: Look,
    pending: PendingUpdate,
    reactions: Reactions,
) -> tuple[str, bool]:
    """Write the sticky comment as the PR's state says, on the PR as `look` has it, then
    `+1` the commands it answers. Returns a summary and whether the comment was written."""
    state = ctx.prs.get(ref.repo, ref.number)
    if said_before(pending.said, showing_key(state)):
        # run late (a retry, a late delivery): a command written after the one that asked
        # to see the notes (or `off`) set what the comment shows. Paused and showing the
        # notes, or a comment that does not say paused (written before a late `off` ran,
        # all its notes hidden or none matching): shown again as the state now has them
        # (a late `wrong` hides its note), under the paused line (a late `off` says so);
        # the short line stays; not paused: a PR event's update.
        paused = state.opted_out or state.paused is not None
        unsaid = state.paused is None and state.comment_id is not None
        if paused and (state.notes or unsaid):
            result = look(True)
        elif state.opted_out:
            result = Refresh(Outcome.SKIPPED, "what a later command showed stands")
        else:
            result = look(False)
    elif state.opted_out and not pending.show:
        result = pause_sticky(ctx, ref)
    elif pending.show:  # even on a draft or an opted-out PR: a human asked to see them
        result = look(True)
    else:  # `/notes on` alone: automatic updates resume, with their rules (drafts wait,
        # a PR no note matches gets no comment, the opt-out label still pauses); a comment
        # deleted while off is posted anew, not taken for a new opt-out (resumed)
        result = look(False)
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


def _refresh(ctx: BotContext, ref: PRRef, pull: dict[str, Any], force: bool) -> Refresh:
    """The comment updated on the PR as it is now (a Look: `force` as a command asks); a
    list GitHub gave short of its files (a push's, lagging), which a command answers on at
    once, is looked at again later (bot.files_recheck), as a PR event's is."""
    facts = _current_facts(ctx, ref, pull)
    result = refresh_sticky(ctx, ref, facts, force=force)
    after_command(ctx, ref, facts)
    return result


def _current_facts(ctx: BotContext, ref: PRRef, pull: dict[str, Any]) -> PRFacts:
    """The PR as it is now: one GET of the PR. No event a command comes in has it whole
    (a comment's copy lacks the head commit; a review's and a diff comment's, in GitHub's
    webhook schema, the file count, without which the docs-only and tests-only rules
    cannot tell every file is known). The event's copy when the port cannot ask (dry run)."""
    live = ctx.github.get_pull(ref)
    if live is not None:
        return live
    return facts_from_payload({"repository": {"full_name": ref.repo}, "pull_request": pull})

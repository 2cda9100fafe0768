"""A command's files re-check: a command that answered on a file list GitHub gave short
of the PR's `changed_files` (its list lags a push) looks again later, as a PR event
does (bot.pr_events), so the comment converges without waiting for the PR's next event.

Steps 2 to 5 of the flow (event -> PR facts -> matches -> comment -> GitHub) again, for a
command's update, by a PR event's rules but for one case; it must never keep two
re-checks of one PR waiting. When one is queued: `after_command`; what it does, that
case included: `handle_recheck`.
"""

from __future__ import annotations

from dataclasses import replace

from bot.context import BotContext
from bot.dispatch import Dispatcher, Route
from bot.github_port import (
    ConversationLocked,
    FilesNotReady,
    PRRef,
    listed_short,
    own_payload,
    ref_from_payload,
    repository_id,
)
from bot.prfacts import PRFacts
from bot.prstate import PendingUpdate, PRState, showing_key
from bot.queue import Delivery, own_delivery
from bot.render import PauseCause, render_paused
from bot.sticky import body_hash, refresh_sticky
from bot.write_backs import charged

RECHECK_ACTION = "review_notes_files_recheck"  # not GitHub's: a command's re-check
_LOOK = "review_notes_files_look"  # which re-check of the command this one is (1, ...)


def register(d: Dispatcher) -> None:
    d.add(Route("pull_request", frozenset({RECHECK_ACTION}), handle_recheck, follows=False))


def short_at_head(state: PRState, facts: PRFacts) -> bool:
    """The PR's state holds a list of its head's files that GitHub gave short of its
    `changed_files` (a list given by hand, with no count of GitHub's, is not)."""
    listed, changed = state.files_listed, facts.changed_files
    if listed is None or changed is None or not facts.head_sha:
        return False
    return state.files_sha == facts.head_sha and listed_short(listed, changed)


def after_command(ctx: BotContext, ref: PRRef, facts: PRFacts) -> None:
    """Queue the first re-check when the command's update matched the PR (`facts`, as its
    GET gave it) on a short list. None queued without a queue (a dry run cannot list) or
    re-checks (REVIEW_NOTES_FILES_RECHECK_DELAYS empty: never), nor while one of the PR's
    waits (under its name, or another of its repository's): it looks at the list as it is
    when it runs, for this command too (each queued its own, each listing the files).

    A command cannot wait: it answers at once on the list as GitHub gives it, and the list
    is held as short (bot.sticky `_lagged`). Before, only the next event or command asked
    GitHub again; on a quiet PR (an `/notes on` after a push made while off: the push's
    event, skipped, looked at no list) none may come. Now the command's update queues this
    re-check (RECHECK_ACTION, an action GitHub never sends), after the first of
    REVIEW_NOTES_FILES_RECHECK_DELAYS, then after each next one while GitHub's list is still
    short; the last takes the list as it is, as an event's does. So does the update that
    shows the notes a person asked for again when GitHub's word of a deletion dates it
    (bot.deletion_events). One waits per PR: a command answered meanwhile leaves it the look.
    """
    delays = ctx.settings.files_recheck_delays
    if ctx.queue is None or not delays:
        return
    if not short_at_head(ctx.prs.get(ref.repo, ref.number), facts):
        return
    repo_id = ctx.prs.kept_for(ref.repo, ref.number)
    if not ctx.queue.still_to_run(RECHECK_ACTION, ref.repo, ref.number, repo_id):
        _schedule(ctx, ref, 1, delays[0], repo_id)


def _schedule(ctx: BotContext, ref: PRRef, look: int, delay: float, repo_id: int | None) -> None:
    """Queue re-check `look`. `repo_id`: the repository's id the PR's state is marked
    with, by which the re-check finds it moved to a new name meanwhile (None: by name)."""
    assert ctx.queue is not None
    payload = own_payload(ref, RECHECK_ACTION, repo_id, {"number": ref.number})
    payload[_LOOK] = look
    own = own_delivery(RECHECK_ACTION, ref.repo, ref.number, look)
    ctx.queue.enqueue_own(own, payload, delay)


def handle_recheck(ctx: BotContext, delivery: Delivery) -> str:
    """Look at GitHub's list again, if the PR's state still holds a short one at its
    head; short again with re-checks left: the next one is queued.

    It updates the comment by a PR event's rules (paused, closed, a draft's wait, the
    notes hidden), but for a comment that shows the notes a command asked for under a
    paused line: shown again (forced), as the command would. It does nothing when the list
    held is no longer short at the PR's head: a look since (an event's, a command's) has
    the PR's files, or a push whose own event looks. A repository renamed meanwhile: it
    finds the PR's state by the repository's id, moved to the new name by a delivery that
    looked at no list (a reply's command), and is queued again there, as a deferred update
    is (bot.command_updates).

    A rewrite's words owed back that its write of the notes comment writes first
    (bot.write_backs) are taken from the installation's write budget, as those of the
    command's own update are (`charged`): the re-check is the command's look, and the write
    one GitHub's limit counts. Its own write is not, as a PR event's is not.
    """
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    look = int(payload[_LOOK])  # (set by `_schedule`)
    repo_id = repository_id(payload)
    moved = ctx.prs.kept_under(ref.repo, ref.number, repo_id)
    if moved is not None:
        # the repository was renamed or transferred, and a delivery under its new name
        # moved the PR's state there (one that looked at no list: a reply's command):
        # queued again under that name, to run in turn with its deliveries
        _schedule(ctx, replace(ref, repo=moved), look, 0.0, repo_id)
        return f"the PR's state is kept under {moved} now: its re-check is queued there"
    facts = ctx.github.get_pull(ref)  # the PR now: its head and count (None: a dry run)
    state = ctx.prs.get(ref.repo, ref.number)
    if facts is None or not short_at_head(state, facts):
        return "nothing to look at again: the list held is not short of the PR's files now"
    delays = ctx.settings.files_recheck_delays
    expected = facts.changed_files if look < len(delays) else None  # the last: as it is
    force = _shows_asked_notes(ctx, state) and not facts.closed
    try:
        with charged(ctx, ref):  # a rewrite's words written back first: the command's cost
            result = refresh_sticky(ctx, ref, facts, force=force, expected_files=expected)
    except FilesNotReady as short:
        _schedule(ctx, ref, look + 1, delays[look], repo_id)
        return f"{short}; looking again in {delays[look]:g}s"
    except ConversationLocked:
        if force:
            _owed_at_the_unlock(ctx, ref)
        raise
    comment = f" (comment {result.comment_id})" if result.comment_id else ""
    return f"{result.outcome}{comment}: {result.reason}"


def _shows_asked_notes(ctx: BotContext, state: PRState) -> bool:
    """The comment shows the notes a command asked for under a paused line (not the
    short paused line alone), which a PR event leaves as they are."""
    if state.paused is None or state.comment_id is None or state.body_hash is None:
        return False
    short = render_paused(ctx.render_options(), by=PauseCause(state.paused))
    return state.body_hash != body_hash(short)


def _owed_at_the_unlock(ctx: BotContext, ref: PRRef) -> None:
    """The notes a command asked for under the paused line, which a lock kept this
    re-check from showing again: owed as that command's update (`pending`, as one a lock
    refused), dated as it is, so the unlock shows them (bot.pr_events); by a PR event's
    rules, which the unlock follows else, the paused PR's comment was left showing the
    short list's notes. An update owed already covers it (it looks at the list too)."""
    state = ctx.prs.get(ref.repo, ref.number)
    if state.pending is None:
        owed = PendingUpdate(show=True, said=showing_key(state))
        ctx.prs.update(ref.repo, ref.number, pending=owed)

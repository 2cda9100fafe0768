"""`/notes wrong` and `/notes restore`: a reviewer's verdict on the notes shown, kept as
a mark for the curators (`feedback_store`) and as the notes the PR's comment hides
(`PRState.dismissed`). Each is applied in the order said on GitHub, whatever order it
runs in: one run late changes nothing a later `restore` (for `wrong`) or any later one
(for `restore`) changed, nor what it did itself before (its order key)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from bot.command_replies import render_notes_unread, render_unpicked
from bot.command_source import Source
from bot.commands import Command, Kind
from bot.feedback import Mark
from bot.github_port import PRRef
from bot.markers import verified_text
from bot.order_keys import latest, said_before
from bot.render import notes_read_back
from bot.terminal import shown
from bot.wrong_reading import pick_note

if TYPE_CHECKING:
    from bot.context import BotContext
    from bot.prstate import PRState

log = logging.getLogger(__name__)


def take_feedback(
    ctx: BotContext,
    ref: PRRef,
    command: Command,
    source: Source,
    key: str | None,
    numbering: tuple[str, ...] | None,
) -> str | None:
    """Apply `wrong` / `restore` to the PR's state (the comment update follows).

    Returns its answer's text (for the one reply to what could not be done) when `wrong`
    cannot mark a note: it names none of the notes the comment shows, or which notes those
    are is not known (`numbering` None).
    The number in `wrong N` is the note's place in `numbering`, the notes `numbered`
    answered, read once a run. `key`: the command's order key
    (`order_keys.command_key` of its comment's `said_at`).
    """
    if command.kind is Kind.RESTORE:
        restore(ctx, ref, key)
        return None
    if command.kind is not Kind.WRONG:
        return None
    state = ctx.prs.get(ref.repo, ref.number)
    if numbering is None:  # not known: say so, and how to get them listed again
        return render_notes_unread(command, ctx.command_word)
    lib = ctx.library
    known = (*lib.by_id, *lib.retired)  # a retired note's id names a note too
    pick = pick_note(command.args, numbering, known, lib.renamed, lib.id_shape)
    if pick.note_id is None:
        commented = state.comment_id is not None
        return render_unpicked(command, pick, len(numbering), ctx.command_word, commented=commented)
    if said_before(key, state.restored_at):  # run late: that `restore` took it back
        log.info("%s on %s#%d: a later restore stands", command.kind, ref.repo, ref.number)
        return None
    mark = Mark(
        ref.repo,
        ref.number,
        pick.note_id,
        pick.rank,
        source.actor.login,
        pick.reason,
        state.evidence.get(pick.note_id, ()),
        origin=source.origin,
        shown=numbering,
    )
    if ctx.feedback.record(mark):
        ctx.metrics.feedback.labels(pick.note_id).inc()
        log.info("note %s marked not relevant on %s#%d", pick.note_id, ref.repo, ref.number)
    elif pick.reason:  # marked already: its author's words as they last wrote them
        login = source.actor.login
        if not ctx.feedback.set_reason(ref.repo, ref.number, pick.note_id, login, pick.reason):
            log.info(  # the first mark stands, with its author's words
                "note %s on %s#%d: marked before by another reviewer; %s's words not kept",
                pick.note_id,
                ref.repo,
                ref.number,
                shown(login),
            )
    dismissed = state.dismissed
    if pick.note_id not in dismissed:
        dismissed = (*dismissed, pick.note_id)
    # the newest key, not this one's: a `wrong` run late (not outranked) must not let a
    # `restore` said between the two take back the newer `wrong`
    newest = latest(key, state.dismissed_at)
    if (dismissed, newest) != (state.dismissed, state.dismissed_at):
        ctx.prs.update(ref.repo, ref.number, dismissed=dismissed, dismissed_at=newest)
    return None


def numbered(ctx: BotContext, ref: PRRef, origin: str) -> tuple[str, ...] | None:
    """The notes a comment's `wrong N` numbers: what it numbered when it first marked a
    note, else when the bot first read a `wrong` in it, else the notes comment as posted
    now (`notes_shown`): an edit that adds a reason, or a resumed or retried delivery,
    must not hide the next note. Read once a run (the latter may be a GET), not a `wrong`."""
    first = ctx.feedback.numbering(ref.repo, ref.number, origin)
    return first if first is not None else notes_shown(ctx, ref, ctx.prs.get(ref.repo, ref.number))


def notes_shown(ctx: BotContext, ref: PRRef, state: PRState) -> tuple[str, ...] | None:
    """The notes the PR's notes comment shows, as a `wrong N` numbers them: those the
    state keeps; when it may not know them (`PRState.shown_unknown`: its notes did not
    read, or a write is unconfirmed), those GitHub's text of it shows (one GET), read
    back from their links when its signature verifies: anyone with write access may edit
    it, and links swapped there would make N a note it never showed. When that text does
    not tell (gone, not as the bot wrote it for this PR, or links to no note as linked
    now), those kept; None when none are: taken as none, a paused comment showing notes
    (or one whose reasons did not read either) was said to show none."""
    if not state.shown_unknown or state.comment_id is None:
        return state.notes
    text = ctx.github.comment_text(ref, state.comment_id)
    if text is not None:
        text = verified_text(text, ctx.comment_keys, ref.repo, ref.number, ref.repo_id)
    read = None if text is None else notes_read_back(text, ctx.library, ctx.links)
    return read if read is not None else state.notes or None


def restore(ctx: BotContext, ref: PRRef, key: str | None) -> None:
    """`restore`: show the hidden notes and take their marks back, unless it ran before (a
    re-run of its delivery) or a `wrong` or `restore` said after it was applied: it would
    take back a mark made after it."""
    state = ctx.prs.get(ref.repo, ref.number)
    if key is not None and state.dismissed_at is not None and key <= state.dismissed_at:
        log.info("restore on %s#%d: ran before, or a later one stands", ref.repo, ref.number)
        return
    ctx.feedback.withdraw(ref.repo, ref.number)
    keys = {} if key is None else {"dismissed_at": key, "restored_at": key}
    ctx.prs.update(ref.repo, ref.number, dismissed=(), **keys)

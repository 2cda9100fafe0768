"""A person's words owed back onto a notes comment of ours (docs/commands.md, the notes
comment).

A maintainer's rewrite of our notes comment into their own text makes it theirs, never
edited again (bot.deletion_events). But an edit of ours in flight then, which GitHub
applied after theirs (its comment edit has no condition to refuse it), shows our text
over theirs. The rewrite's event writes their words back (`restore_text`: only onto our
comment showing our marker again, never a person's).

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub): paid before each
write of the notes comment. It must never lose their words, nor write older words of
theirs over newer ones. How they stay owed and who pays: `write_back_owed`; which words:
`owe_write_back`, `edited_again`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

from bot.context import BotContext
from bot.github_port import (
    GitHubError,
    PRRef,
    RestoreOutcome,
    RestoreResult,
    counting_writes,
    never_sent,
)
from bot.markers import MARKER, opens_with
from bot.order_keys import said_before
from bot.prstate import EARLIER_TRIES, WriteBack, WriteBackHistory
from bot.times import utcnow

log = logging.getLogger(__name__)

# the write-backs made inside `charged` (None: outside one)
_MADE: ContextVar[list[int] | None] = ContextVar("write_backs_made", default=None)


@contextmanager
def charged(ctx: BotContext, ref: PRRef) -> Iterator[None]:
    """A command's run (its update written at once, or deferred: bot.command_answers,
    bot.command_updates): the write-backs its writes of the notes comment make first are
    content writes GitHub's limit counts, as its own are, but no command reserved them
    (`command_policy.most_writes`). Each is taken from the installation's write budget
    (`FloodControl.take_writes`), even past it (their words are owed, never refused), also
    when the run raises after it."""
    made = [0]
    token = _MADE.set(made)
    try:
        yield
    finally:
        _MADE.reset(token)
        ctx.flood.take_writes(ref.installation_id, made[0])


def owe_write_back(
    ctx: BotContext, ref: PRRef, comment_id: int, text: str, at: str | None = None
) -> None:
    """Keep a rewrite's words, put there at order key `at`, as owed back onto comment
    `comment_id`, before any call; not over words a later edit of theirs put there, kept
    already (its event ran first). Words we wrote back onto it stay known (a re-run).

    Kept owed, perhaps for weeks, they must stay the person's newest words: a later edit of
    theirs replaces them, or drops them when it puts our text back (`edited_again`), and a
    rewrite's event run late does not owe its words over a later one's (`owe_write_back`).
    """
    owed = ctx.prs.get(ref.repo, ref.number).write_back
    if owed is not None and owed.comment_id != comment_id:
        owed = None  # (another comment's: theirs is replaced, as ever)
    if owed is not None and said_before(at, owed.at):
        return
    kept = WriteBack(comment_id, text, at) if owed is None else replace(owed, text=text, at=at)
    ctx.prs.update(ref.repo, ref.number, write_back=kept)


def edited_again(
    ctx: BotContext, ref: PRRef, comment_id: int, text: str | None, at: str | None
) -> str:
    """A person's edit, made at order key `at`, of a comment of ours their rewrite made
    theirs (its text before no longer opened with our marker: bot.deletion_events). When
    their words are owed back onto it, these are their newest: a debt kept for weeks (a
    lock, a write of ours long in coming) must not write older words back over them. Now
    owed in their place; or, when they put our notes text back themselves (it opens with
    our marker again), the debt is dropped: the comment shows what they chose. An edit
    made before the words owed (its event run late) changes nothing.

    Words the bot wrote back (`WriteBackHistory.over`) are kept so until its next write
    of the notes comment: this edit, made before they landed (our late edit wrote over
    both their rewrite and this edit, and we wrote back the rewrite's words), is lost
    under them, and its event is the last word of it. Its words are written over ours at
    once (the updates are off after a rewrite: the next write may never come), only
    where the comment shows what we wrote, not edited since (`over_at`: a person may put
    those very words back), or our marker, never their own later text. What was done."""
    owed = ctx.prs.get(ref.repo, ref.number).write_back
    if owed is None or owed.comment_id != comment_id:
        return "ignored: no words of a rewrite owed back onto it"
    if said_before(at, owed.at):
        return "ignored: made before the words owed back onto it"
    if opens_with(text, MARKER):
        ctx.prs.update(ref.repo, ref.number, write_back=None)
        return "their words owed back onto it dropped: they put our text back themselves"
    newest = replace(owed, text=text or "", at=at)
    ctx.prs.update(ref.repo, ref.number, write_back=newest)
    if not owed.history.ours_may_show:
        return "their newest words are owed back onto it instead"
    return _looked(write_back_owed(ctx, ref, keep=True))


def _looked(done: RestoreOutcome | None) -> str:
    """What `edited_again`'s write-back found (`write_back_owed`), as its line says."""
    if done is not None and done.wrote:
        return "their newest words written back over those we wrote back"
    if done is RestoreOutcome.THEIRS:
        # (their newest words, or older ones of theirs put back or dated past our failed
        # call's window: the port does not say which)
        return "their text shows: nothing written back"
    if done is RestoreOutcome.GONE:
        return "the comment is gone: nothing written back"
    # owed onto the comment the PR's state keeps (a rollback's write took it): not asked
    return "the PR's state keeps it as the notes comment: nothing written back"


def write_back_owed(ctx: BotContext, ref: PRRef, *, keep: bool = False) -> RestoreOutcome | None:
    """Write the words owed back onto their comment if an edit of ours shows there: what
    the look found (`RestoreOutcome`: WRITTEN, or LANDED, an earlier call's words, its
    answer lost, when theirs show by a write of ours; THEIRS or GONE when nothing was
    written); None when GitHub was not asked: nothing is owed, or it is owed onto the
    comment the PR's state keeps as the notes comment. Then no longer owed, but for
    `keep` (the rewrite's own look, or a later edit's: an edit of ours may land after it;
    and what we wrote may have landed over a later edit of theirs, `edited_again`).
    Raises what the call raises (ConversationLocked for a lock): it stays owed.

    Their words are kept in the PR's state (`PRState.write_back`) before that call, and
    stay owed until a write finds them shown, so that nothing loses them:

    - a locked conversation refuses the write-back: the unlock writes it (bot.pr_events);
    - the call fails: the delivery's retry writes it, or any write of ours before it;
    - an edit of ours whose answer GitHub lost may land after the rewrite's event looked
      (answered late, or applied after the client gave up): kept owed past that look, the
      next write looks again;
    - their second edit, made before our late edit landed, is under it too, and the words
      written back are the rewrite's: those written are kept (`WriteBackHistory.over`) until
      the next write, and that edit's event writes its words over them (`edited_again`), but
      only while the comment is not edited since our write (GitHub's time of it,
      `WriteBackHistory.over_at`): those very words put back by a person (an undo) are theirs.
    - a write-back GitHub carried out with its every answer lost is written too: the call
      keeps what it sent and when it gave up (`WriteBackHistory.tried`, and the calls failed
      before it, `tried_before`), and a look finding one's words shown, edited no later than
      it gave up, takes them for ours; later, for a person's paste.

    Every write of the notes comment pays it first (bot.sticky `_write`): a write that knows
    no comment looks for ours by its marker, and would take the rewritten comment showing our
    text for the notes comment, theirs then lost for good (`/notes on`, `/notes why`). One
    made so inside a command's run is a content write of that run, taken from its
    installation's write budget (`charged`), as PR events' writes are not.
    """
    state = ctx.prs.get(ref.repo, ref.number)
    owed = state.write_back
    if owed is None:
        return None
    # the notes comment the state keeps: a release before write-backs (a rollback) took
    # it for ours and wrote it since; their words would take it from the updates
    if owed.comment_id == state.comment_id:
        restored = None
    else:
        restored = _restore(ctx, ref, owed)
    if restored is None or not restored.outcome.wrote:  # THEIRS, GONE or not asked
        if not keep:
            ctx.prs.update(ref.repo, ref.number, write_back=None)
        return None if restored is None else restored.outcome
    log.info(
        "%s PR %s: wrote back onto comment %s the text a person's rewrite had put there,"
        " which a late edit of ours wrote over",
        ref.repo,
        ref.number,
        owed.comment_id,
    )
    # kept, what we wrote: a later edit of theirs it landed over (`edited_again`); landed,
    # the failed calls' words are no longer taken for ours
    written = WriteBackHistory(over=owed.text, over_at=restored.at)
    kept = replace(owed, history=written) if keep else None
    ctx.prs.update(ref.repo, ref.number, write_back=kept)
    return restored.outcome


def _restore(ctx: BotContext, ref: PRRef, owed: WriteBack) -> RestoreResult:
    """Write the words back (`restore_text`). Inside `charged`, a write-back whose PATCH
    was sent is counted whatever GitHub answered, as every write a command tries is
    (bot.command_reactions `Spent`): one it failed (a 5xx, a lock) may still count toward
    GitHub's limit, and the retry that writes it again is another. None sent (their text
    shows, the comment is gone, the GET failed, a rate limit pause held it back, it never
    connected, another server than GitHub's API answered it) counts nothing.

    A call that sent it and failed (a 5xx at every try, a timeout) may have landed it,
    its answer lost: the delivery's retry, or a later edit's event, would find their
    words shown and take them for theirs, what we wrote not kept (`over`). What it sent
    is kept, and when it gave up (`WriteBackHistory.tried`), with the earlier failed
    calls' (`tried_before`): a first call's words may show, landed, and a second's not
    be carried out."""
    sent = True
    with counting_writes() as asked:
        try:
            return ctx.github.restore_text(
                ref, owed.comment_id, owed.text, MARKER, history=owed.history
            )
        except BaseException as exc:
            sent = not never_sent(exc)
            if sent and asked.count and _answer_lost(exc):
                tried = replace(
                    owed.history, tried=owed.text, tried_at=utcnow(), tried_before=_earlier(owed)
                )
                ctx.prs.update(ref.repo, ref.number, write_back=replace(owed, history=tried))
            raise
        finally:
            if sent and asked.count and (made := _MADE.get()) is not None:
                made[0] += 1


def _earlier(owed: WriteBack) -> tuple[tuple[str, str], ...]:
    """The failed calls kept before the one now failing, which sends `owed.text`: one
    that sent these same words is left out (this call's later time takes in all it did),
    the oldest dropped past `EARLIER_TRIES`."""
    tries = [(text, at) for text, at in owed.history.failed_calls if text != owed.text]
    return tuple(tries[-EARLIER_TRIES:])


def _answer_lost(exc: BaseException) -> bool:
    """`exc` ended a call whose write GitHub may have carried out: a failure that passes
    with time (a 5xx, a timeout, a dropped connection, a rate limit), not a refusal (a
    lock, a 404, a 422), which says it was not: never taken for ours on a guess."""
    return isinstance(exc, GitHubError) and exc.transient

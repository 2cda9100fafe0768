"""What a refresh of the sticky comment does, decided on plain data (bot.sticky acts on it).

`skip_reason`: why a refresh leaves the comment alone before anything is matched (a
stale event, `/notes off`, a closed PR, a draft waiting, the PR's own opt-out); but a
closed PR's comment that still says `/notes off` paused it once updates are on again
(`outdated_pause`) is updated, by an edit only.
`plan_write`: once the PR is matched and the comment rendered, whether to post it,
edit it, or leave it (the rules in `bot.sticky.refresh_sticky`'s docstring).
`deleted_by_maintainer`: what a write that finds no comment of ours means.
`deletion_ignored`: whether GitHub's word that a notes comment of ours was deleted
(bot.deletion_events) turns updates off.

A human asking (`force`: a slash command) passes every gate.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Protocol

from bot.order_keys import said_before
from bot.render import PauseCause


class KnownComment(Protocol):
    """What the PR's state says of our comment (`bot.prstate.PRState` is one)."""

    @property
    def comment_id(self) -> int | None: ...
    @property
    def body_hash(self) -> str | None: ...
    @property
    def opted_out(self) -> bool: ...
    @property
    def trusted(self) -> bool: ...
    @property
    def resumed(self) -> bool: ...
    @property
    def switched_at(self) -> str | None: ...
    @property
    def unconfirmed(self) -> bool: ...
    @property
    def replaced_id(self) -> int | None: ...
    @property
    def found_gone_id(self) -> int | None: ...
    @property
    def paused(self) -> str | None: ...


class Skip(StrEnum):
    """Why a refresh leaves the comment alone; the value is the reason given, but for
    STALE (bot.sticky's reason names both times) and PAUSED_BY_PR (bot.sticky edits the
    comment to say paused, `pause_sticky`, which gives its own)."""

    STALE = "stale event"  # older than the event last handled
    OPTED_OUT = "opted out on this pull request"  # `/notes off`
    CLOSED = "the pull request is closed"  # a comment would notify everyone watching
    DRAFT = "draft: waiting for ready_for_review"  # and no comment posted yet
    PAUSED_BY_PR = "opted out by the pull request"  # its label or marker: say so (pause)


def skip_reason(
    state: KnownComment,
    *,
    force: bool,
    stale: bool,
    closed: bool,
    draft_waits: bool,
    paused_by_pr: bool,
) -> Skip | None:
    """The first gate that holds, in this order, or None: go on and match the PR.

    stale: an older event than one already seen; closed: the PR is closed or merged;
    draft_waits: a draft, and drafts get no comment (`comment_on_drafts`); paused_by_pr:
    its opt-out label or marker."""
    if force:  # `/notes` still answers, even on a draft, a closed or an opted-out PR
        return None
    if stale:
        return Skip.STALE
    if state.opted_out:
        return Skip.OPTED_OUT
    if closed and not outdated_pause(state):
        return Skip.CLOSED
    if draft_waits and state.comment_id is None:
        return Skip.DRAFT
    if paused_by_pr:
        return Skip.PAUSED_BY_PR
    return None


class Write(StrEnum):
    """What to do with the comment once it is rendered."""

    NONE = "none"  # nothing matches and no comment is up: none is posted
    UNCHANGED = "unchanged"  # the body is the one last posted: no call
    CREATE = "create"  # edit ours, or post it when none is found
    EDIT = "edit"  # edit ours only: one found gone is not posted again (it was deleted)


def outdated_pause(state: KnownComment) -> bool:
    """The comment says `/notes off` paused it, or may (a write of ours unconfirmed,
    perhaps the `off`'s edit made with its answer lost, and none since the `on`), and
    updates are on again (an `on` whose write is still to come): left so on a closed PR,
    it would tell the author to reply `/notes on`, which they just did."""
    may_say = state.paused == PauseCause.COMMAND or (state.unconfirmed and state.resumed)
    return may_say and not state.opted_out


def plan_write(
    state: KnownComment,
    *,
    matched: bool,
    body_hash: str,
    force: bool,
    draft_waits: bool,
    closed: bool,
) -> Write:
    """The write a refresh makes. matched: some note is shown; body_hash: the rendered
    body's (`bot.sticky.body_hash`); draft_waits, closed: as for `skip_reason` (a closed
    PR's comment is only ever edited unless a human asks: a new one notifies everyone).

    The state may skip a call only when it is `trusted` (no write unconfirmed, no
    `/notes on` since the comment was last found), and never when a human asks."""
    if state.trusted and not force:
        if not matched and state.comment_id is None:
            return Write.NONE
        if state.comment_id is not None and state.body_hash == body_hash:
            return Write.UNCHANGED
    # A human asking (force) gets an answer even when nothing matches. A PR event never
    # posts a comment anew once one was posted: gone, it was deleted (bot.sticky._write);
    # after `/notes on` (resumed) it is, as for a new PR (a draft waits).
    anew = state.comment_id is None or (state.resumed and not draft_waits)
    if force or (matched and anew and not closed):
        return Write.CREATE
    return Write.EDIT


def deleted_by_maintainer(state: KnownComment) -> bool:
    """A write found no comment of ours: a maintainer deleted it (the plainest "go away":
    updates go off, as by `/notes off`) when one was posted and confirmed. No id known:
    none was posted, or a create whose answer was lost (it may have landed, and been
    deleted since: only GitHub's word of the deletion tells, `deletion_ignored`); a
    write cannot tell, so it posts. Nor after `/notes on` (resumed): the author asked for
    the updates after any deletion made while off; one noticed before the `on`
    outranked an older `on`."""
    return state.comment_id is not None and not state.resumed


# why a deletion (or a rewrite) an `off`/`on` said after it outranks changes nothing
SWITCHED_AFTER = "a `/notes off` or `on` said after the deletion decides"


def deletion_ignored(
    state: KnownComment, comment_id: int, *, by_us: bool, by_our_account: bool, said: str
) -> str | None:
    """Why GitHub's word that comment `comment_id`, which opens with our notes marker,
    was deleted (by someone other than the bot) changes nothing; None: updates go off, as
    by `/notes off` said at `said` (its order key). It counts whether or not the state
    knows the comment: a create whose answer was lost left none known.

    by_us: our account wrote it; the comment the state knows is ours whoever GitHub
    names (a renamed App), and a person's copy of our text is not. by_our_account: our
    account deleted it: the bot deletes only its second copies, never the one it keeps
    (the state's, once a write confirmed it), so the one kept deleted so is a person's
    doing (a token's owner); with none known, or a write unconfirmed (its converging
    may have deleted the one the state knows, the write of the one it kept lost), it is
    taken for the bot's.

    The comment a write after `/notes on` found gone and replaced (`replaced_id`) counts
    as the one kept: its deletion, told after that write, may have been made after the
    `on` (then it outranks it, and the comment kept now goes too: `replaced_by_kept`);
    so does the one a person's write found gone (`found_gone`): its deletion, dated then
    by a guess, is dated by this word."""
    known = state.comment_id
    if replaced_by_kept(state, comment_id) or found_gone(state, comment_id):
        known = comment_id
    if known != comment_id and not by_us:
        return "not our notes comment (a copy of its text)"
    if known is not None and known != comment_id:
        return f"a second notes comment of ours; {known} is the one kept"
    if by_our_account and (known is None or state.unconfirmed):
        return "deleted by the bot's account, the comment it keeps not known: taken for its own"
    if said_before(said, state.switched_at):
        return SWITCHED_AFTER
    return None


def replaced_by_kept(state: KnownComment, comment_id: int) -> bool:
    """Whether comment `comment_id` is the one a write after `/notes on` found gone and
    replaced with the comment kept now."""
    return state.comment_id is not None and state.replaced_id == comment_id


def found_gone(state: KnownComment, comment_id: int) -> bool:
    """Whether comment `comment_id` is the one a person's write (`/notes`, `why`, `wrong`,
    `restore`) found gone, taken for a deletion dated by a guess, and replaced with the
    comment kept now (the one they asked for)."""
    return state.comment_id is not None and state.found_gone_id == comment_id

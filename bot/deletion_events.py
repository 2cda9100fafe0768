"""`issue_comment` `deleted`: a maintainer deleting our notes comment turns the PR's
updates off at once, as `/notes off` does (README, What the bot does).

A write that finds the comment gone says the same (bot.sticky), but only of a comment
whose id the PR's state knows: a create whose answer was lost, every look after it
failed, leaves none known, and the next PR event would post the comment again, notifying
everyone. GitHub's word of the deletion names the comment and who deleted it.

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): a handler
`bot.dispatch` routes to, which runs no matching; it must never let a deleted notes
comment be posted anew. What counts as a deletion: `handle_deleted`; a rewrite (an edit
that drops our marker): `handle_rewritten`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, NamedTuple

from bot.command_events import comment_written
from bot.comment_plan import SWITCHED_AFTER, deletion_ignored, found_gone, replaced_by_kept
from bot.context import BotContext
from bot.dispatch import (
    Dispatcher,
    MalformedPayload,
    Route,
    Us,
    check_installation,
    own_logins,
    payload_id,
)
from bot.files_recheck import after_command
from bot.github_port import ConversationLocked, PRRef, ref_from_payload
from bot.markers import (
    MARKER,
    by_our_app,
    opens_with,
    written_by_us,
)
from bot.order_keys import after_second, just_after
from bot.prstate import PRState
from bot.queue import Delivery
from bot.sticky import forget_comment, record_deletion, refresh_sticky
from bot.times import as_github_time, github_time
from bot.write_backs import edited_again, owe_write_back, write_back_owed

log = logging.getLogger(__name__)


def register(d: Dispatcher) -> None:
    # bots: a maintainer's workflow may delete it; the bot's own deletions are dropped
    d.add(
        Route(
            "issue_comment",
            frozenset({"deleted"}),
            handle_deleted,
            check_deleted,
            bots=True,
            by_sender=True,
        )
    )
    # a comment given back to a person (no marker) deleted: taken from the route above
    d.add(
        Route(
            "issue_comment",
            frozenset({"deleted"}),
            handle_given_back_gone,
            check_rewritten,
            bots=True,
            by_sender=True,
            claims=claims_given_back_gone,
        )
    )
    # an edit that drops our marker, taken from the slash commands' route (bot.command_events)
    d.add(
        Route(
            "issue_comment",
            frozenset({"edited"}),
            handle_rewritten,
            check_edited,
            bots=True,
            written=comment_written,
            by_sender=True,
            claims=claims_rewrite,
        )
    )


def check_deleted(payload: dict[str, Any]) -> str | None:
    """Why this deletion cannot be of our notes comment (None: it may be)."""
    if not opens_with((payload.get("comment") or {}).get("body")):
        return "deleted, but not a notes comment"
    return check_rewritten(payload)  # its id and author: refused at intake (400)


def _author(comment: dict[str, Any]) -> str:
    """Who wrote the comment, lowercased ("" when GitHub names no one: `user` is null for
    a deleted account); MalformedPayload when `user` is no object."""
    user = comment.get("user")
    if user is None:
        return ""
    if not isinstance(user, dict):
        raise MalformedPayload(f"comment.user: not an object ({type(user).__name__})")
    return str(user.get("login") or "").lower()


def _via_our_app(comment: dict[str, Any], app_id: str | None) -> bool:
    """Whether GitHub says our App wrote the comment as itself (bot.markers.by_our_app).
    Then it is ours whatever login GitHub names as its author: an App renamed has a new
    bot login (`<slug>[bot]`), which neither REVIEW_NOTES_BOT_LOGIN nor the login asked
    once and kept may be. With a token there is no App: False."""
    return by_our_app(*_writer(comment), app_id)


def _writer(comment: dict[str, Any]) -> tuple[str | None, tuple[object, ...]]:
    """The comment's author's account type, and the id and client ID of the App GitHub
    says it was written through (none: ())."""
    app = comment.get("performed_via_github_app")
    keys = (app.get("id"), app.get("client_id")) if isinstance(app, dict) else ()
    user = comment.get("user")
    return (user.get("type") if isinstance(user, dict) else None), keys


def _by_our_account(payload: dict[str, Any], ours: set[str], *, via_app: bool) -> bool:
    """Whether the bot's account deleted the comment: its login sent the deletion (with a
    token, the bot or its owner acting as a person), or, of a comment our App wrote
    (`via_app`), the account that wrote it did (the App's bot account: its id stays when
    a renamed App's login changes)."""
    sender = payload.get("sender") or {}
    if str(sender.get("login") or "").lower() in ours:
        return True
    author = payload["comment"].get("user") or {}
    return via_app and sender.get("id") is not None and sender.get("id") == author.get("id")


def _said(state: PRState, delivery: Delivery, edited: str | None = None) -> str:
    """The deletion's order key: when it was made, as best known (GitHub's event does not
    say): when GitHub first sent it (for one the sweep had sent again, GitHub could not
    deliver it while the server was down: hours earlier than its arrival), else when it
    reached us (a retry keeps that), not when it runs. A rewrite's event says it
    (`edited`: `_edited_at`). So an `off`/`on` written after it outranks it and one
    written before does not, whichever ran first. While `/notes off` stands, no earlier
    than just after it: the updates were off either way, and the comment is gone."""
    key = edited or after_second(github_time(delivery.first_sent_at))
    if state.opted_out and state.switched_at:
        return max(key, just_after(state.switched_at))
    return key


def _given_back_now(state: PRState, comment_id: int) -> bool:
    """Whether comment `comment_id` is one a rewrite gave a person (`_give_back`), not
    the notes comment the state keeps (a release before it, rolled back to, may have
    taken it back: then it is ours again)."""
    return comment_id in state.given_back and comment_id != state.comment_id


# what a rewrite's event of a comment given back, whose pasted notes text it took off, did
GIVEN_BACK_UNPASTED = (
    "a comment of ours given back to a person, our notes marker taken off it again:"
    " theirs, not our notes comment"
)


def handle_deleted(ctx: BotContext, delivery: Delivery) -> str:
    """Our notes comment deleted: the PR's updates off, as `/notes off` does.

    Counted: a comment opening with our notes marker (checked at intake), written by our
    account (its login, or GitHub's word that our App wrote it: a renamed App's login
    changed) or the one the PR's state knows, and deleted by anyone but the bot. The bot
    deletes only second notes comments of its own, never the one it keeps: bot.dispatch
    drops what the App's login sent; a token's account is also its owner, acting as a
    person, and its deletion of the comment the state keeps (a write confirmed) is the
    owner's, counted; of another, or with none known, the bot's (`_by_our_account`). Not
    counted: another comment than the one the state knows (a second copy of ours), a
    person's comment (a reply of ours, or a copy of our text), and a deletion an `off`/`on`
    said after it outranks (run late). Its payload does not say when the comment was deleted
    (its times are the comment's, the issue's, the repository's): it is dated when GitHub
    first sent it (one the redelivery sweep had sent again: its delivery log's first
    attempt, kept with the queued delivery) or else when it reached us (a retry keeps that),
    and while `/notes off` stands no earlier than just after the `off` (`_said`). A dry
    run's comments are not on GitHub: nothing of a deletion is its. The comment a write
    after `/notes on` found gone and replaced (`PRState.replaced_id`) counts as the one
    kept: its deletion made after the `on` outranks it, and the bot deletes the comment
    that write posted. So does the one a person's write found gone (`PRState.found_gone_id`):
    its deletion, dated then by a guess, is dated by GitHub's word (`_dated_now`), and the
    comment they asked for stays.
    """
    ref, comment_id = _named(delivery.payload)
    state = ctx.prs.get(ref.repo, ref.number)
    if _given_back_now(state, comment_id):
        # theirs (a rewrite, or our text pasted onto a reply of ours): their own text
        # deleted; gone, it need be kept as given back no longer
        _no_longer_given_back(ctx, ref, comment_id)
        return "ignored: a comment of ours given back to a person, not our notes comment"
    done = _taken_away(ctx, delivery, ref, comment_id).done
    _no_longer_given_back(ctx, ref, comment_id)  # (our text pasted back onto it)
    return done


def claims_given_back_gone(payload: dict[str, Any], us: Us) -> bool:
    """Whether the deletion of a comment GitHub says our App wrote (`by_our_app`) whose
    text does not open with our notes marker (that one is the notes comment's route's)
    is taken from the notes comment's route: it may be one a rewrite gave a person
    (`PRState.given_back`), whose id the list need keep no longer. Told by its id at the
    run, not by its text: a reply of ours given back (our notes text pasted onto it) and
    edited again may keep a reply's marks (its key as its last line), so a reply of
    ours deleted is claimed too, and ignored at the run. Not with a token, whose
    comments cannot be told from its owner's: the list keeps theirs (never trimmed, one
    id per rewrite). A `comment.user` that is no object claims nothing (the notes
    comment's route ignores it: no marker)."""
    comment = payload.get("comment") or {}
    body = comment.get("body")
    if not isinstance(body, str) or opens_with(body):
        return False
    return by_our_app(*_writer(comment), us.app_id)


def handle_given_back_gone(ctx: BotContext, delivery: Delivery) -> str:
    """A comment of the App's without our marker deleted: one a rewrite gave a person
    (or a reply of ours)."""
    ref, comment_id = _named(delivery.payload)
    if not _no_longer_given_back(ctx, ref, comment_id):
        return "ignored: not a comment given back to a person"
    return f"comment {comment_id}, given back to a person, deleted: no longer kept as given back"


def _no_longer_given_back(ctx: BotContext, ref: PRRef, comment_id: int) -> bool:
    """Drop comment `comment_id`, deleted, from the PR's comments given back: the rule
    they keep (no write takes one back, bot.sticky `_given_back`) cannot matter for a
    comment gone, as GitHub gives a deleted comment's id to no other. Whether it was on
    the list. The list is trimmed so only: a comment still up stays theirs for good
    (a cap dropping the oldest would let a write take one back), and a PR's state is
    never pruned (retention forgets its file list only)."""
    state = ctx.prs.get(ref.repo, ref.number)
    if comment_id not in state.given_back:
        return False
    kept = tuple(i for i in state.given_back if i != comment_id)
    ctx.prs.update(ref.repo, ref.number, given_back=kept)
    return True


def _named(payload: dict[str, Any]) -> tuple[PRRef, int]:
    """The PR and the comment a deletion's or a rewrite's event names (its id checked at
    intake: `check_rewritten`)."""
    ref = ref_from_payload(payload, int(payload["issue"]["number"]))
    return ref, payload_id(payload["comment"].get("id"), "comment.id")


class _Taken(NamedTuple):
    """What a deletion (or a rewrite) of our notes comment did: whether it counted (the
    updates went off), what was done, and whether an `off`/`on` said after it outranks
    it (not counted)."""

    counted: bool
    done: str
    outranked: bool = False


def _taken_away(
    ctx: BotContext, delivery: Delivery, ref: PRRef, comment_id: int, edited: str | None = None
) -> _Taken:
    """Our notes comment `comment_id` on `ref` deleted, or rewritten at order key `edited`
    (`_said`)."""
    payload = delivery.payload
    if ctx.settings.is_dry_run:
        return _Taken(
            False, "ignored: a dry run posts no comment on GitHub, so none of its was deleted"
        )
    comment = payload["comment"]
    author = _author(comment)
    ours = own_logins(ctx.settings, ctx.github.bot_login())
    state = ctx.prs.get(ref.repo, ref.number)
    said = _said(state, delivery, edited)
    via_app = _via_our_app(comment, ctx.settings.github_app_id)
    by_account = _by_our_account(payload, ours, via_app=via_app)
    by_us = written_by_us(author, *_writer(comment), ours, ctx.settings.github_app_id)
    why = deletion_ignored(state, comment_id, by_us=by_us, by_our_account=by_account, said=said)
    if why is not None:
        return _Taken(False, f"ignored: {why}", why == SWITCHED_AFTER)
    if found_gone(state, comment_id):
        return _Taken(True, _dated_now(ctx, ref, state, comment_id, said))
    if not replaced_by_kept(state, comment_id):
        record_deletion(ctx, ref, state, comment_id, said)
        return _Taken(True, f"updates off: our comment {comment_id} was deleted")
    # Made after the `/notes on` whose write found it gone and posted the comment kept
    # now: the maintainer's "go away" came last. That comment is the bot's: it goes too,
    # as if never posted. Owed before the call: a delete GitHub applied but answered
    # with an error leaves it gone with the updates on, and the next write would take
    # that for a new deletion, dated then, outranking an `on` written since; owed, the
    # unlock or the PR's next event deletes it (bot.pr_events), a failed call retried there.
    kept = state.comment_id
    assert kept is not None  # (replaced_by_kept)
    done = (
        f"updates off: our comment {comment_id} was deleted after the `/notes on` whose"
        f" update posted {kept}"
    )
    record_deletion(ctx, ref, replace(state, owed_delete=kept), comment_id, said)
    locked = _delete_owed_now(ctx, ref, kept)
    if locked is None:
        return _Taken(True, f"{done}, deleted too")
    # the maintainer's "go away" still holds (updates off); the comment stays owed
    log.warning(
        "%s PR %s: our comment %s stays up for now: GitHub refused to delete it as the"
        " conversation is locked (%s); it is deleted when the PR is unlocked",
        ref.repo,
        ref.number,
        kept,
        locked,
    )
    return _Taken(True, f"{done}, left up: the conversation is locked (deleted at the unlock)")


def _dated_now(ctx: BotContext, ref: PRRef, state: PRState, comment_id: int, said: str) -> str:
    """GitHub's word of the deletion a person's write found (`found_gone`), dated then
    just after the last `off`/`on` as its time was not known: dated now (`said`), after
    the switch that stands (`deletion_ignored`). Off since: the deletion is the switch
    now, so an `on` written before it and run late changes nothing. On since (such an
    `on` ran meanwhile): the maintainer's deletion came last, updates go off again, and
    the comment the person asked for stays, with the paused line back (what it showed
    stands: they asked after the deletion), looked at again on a list GitHub gave short
    (bot.files_recheck), as a command's update is. A re-run does the same."""
    ctx.prs.put(replace(state, opted_out=True, switched_at=said))
    done = f"updates off: our comment {comment_id} was deleted (found gone by a command)"
    if state.paused is not None:
        return done
    facts = ctx.github.get_pull(ref)
    assert facts is not None  # (None: a dry run, whose deletions are ignored before)
    result = refresh_sticky(ctx, ref, facts, force=True)
    after_command(ctx, ref, facts)
    return f"{done}; an `on` written before it had run: comment {result.outcome}, paused"


def delete_owed(ctx: BotContext, ref: PRRef, state: PRState) -> str | None:
    """Delete the comment a deletion left up on a locked conversation (`owed_delete`),
    at the unlock or the PR's next event (a call that failed), after the write the event
    makes; what was done, None when nothing was owed. Still locked: it stays owed. A
    write that kept it since (`/notes on` said after the deletion found it up, or the
    event's own write after such an `on`) took the debt back (`sticky._write`): nothing
    is owed then. Nor once a write of a release before owed deletions (a rollback) kept
    it, or an `on` since stands: see `_still_owed`."""
    if not _still_owed(state):
        return None
    assert state.owed_delete is not None  # (_still_owed)
    if _delete_owed_now(ctx, ref, state.owed_delete) is not None:
        return f"our comment {state.owed_delete} still up: the conversation is locked"
    log.info(
        "%s PR %s: deleted our comment %s, left up while the conversation was locked",
        ref.repo,
        ref.number,
        state.owed_delete,
    )
    return f"deleted our comment {state.owed_delete}, left up while locked"


def deletion_owed(state: PRState) -> bool:
    """The comment a deletion left up on a locked conversation is still owed: after a PR
    event's `delete_owed`, GitHub refused it so (any other failure raises)."""
    return _still_owed(state)


def _still_owed(state: PRState) -> bool:
    """Whether the comment a deletion left up is still owed: the deletion's "go away"
    stands (updates off) and the state does not keep that comment as its own. A release
    before owed deletions (a rollback) writes pr_state with the columns it knows, leaving
    `owed_delete` as it was: its `/notes on`, said after the deletion, finds the comment
    and keeps it (updates on, `comment_id` that comment); paid forward again, the PR's
    next event deleted it and then took it gone for a maintainer's deletion."""
    owed = state.owed_delete
    return owed is not None and state.opted_out and state.comment_id != owed


def _delete_owed_now(ctx: BotContext, ref: PRRef, comment_id: int) -> ConversationLocked | None:
    """Delete our comment `comment_id`, owed a deletion (`owed_delete`, recorded before
    the call: a delete GitHub applied but answered with an error stays owed and is
    retried), and forget the debt. GitHub refusing it as the conversation is locked:
    its refusal, and the comment stays owed."""
    try:
        ctx.github.delete_sticky(ref, comment_id, MARKER)
    except ConversationLocked as locked:
        return locked
    ctx.prs.update(ref.repo, ref.number, owed_delete=None)
    return None


# --- a rewrite: our notes comment edited into someone's own text ----------------------


def rewrote_notes(payload: dict[str, Any]) -> bool:
    """Whether an `issue_comment` `edited` event is of a notes comment rewritten: its text
    before (`changes.body.from`) opened with our notes marker and its text now does not.
    For readers the notes comment is gone, as if deleted (a rewrite keeping the marker, a
    typo fixed in ours, is not: our next write puts our text back). Whose comment it was
    is the route's (`claims_rewrite`) and the handler's, who edited it the handler's, as
    for a deletion. MalformedPayload when `changes` is not as GitHub sends it: the slash
    commands' handler would fail reading it at each run, and a rewrite cannot be told;
    no `changes.body`: not its text."""
    before = _text_before(payload)
    now = (payload.get("comment") or {}).get("body")
    return before is not None and opens_with(before) and not opens_with(now)


def _edited_again(payload: dict[str, Any]) -> bool:
    """Whether an `issue_comment` `edited` event is of a text that did not open with our
    notes marker before: of a comment of ours, one a person's rewrite made theirs, edited
    again (or a reply of ours). MalformedPayload as for `rewrote_notes`."""
    before = _text_before(payload)
    return before is not None and not opens_with(before)


def _text_before(payload: dict[str, Any]) -> str | None:
    """An edited comment's text before the edit (`changes.body.from`); None when the edit
    did not change its text. MalformedPayload when `changes` is not as GitHub sends it."""
    changes = payload.get("changes")
    if changes is None:
        return None
    if not isinstance(changes, dict):
        raise MalformedPayload(f"changes: not an object ({type(changes).__name__})")
    body = changes.get("body")
    if body is None:
        return None
    if not isinstance(body, dict):
        raise MalformedPayload(f"changes.body: not an object ({type(body).__name__})")
    before = body.get("from")
    if not isinstance(before, str):
        raise MalformedPayload(f"changes.body.from: not a string ({type(before).__name__})")
    return before


def claims_rewrite(payload: dict[str, Any], us: Us) -> bool:
    """Whether the rewrite route takes an `issue_comment` `edited` event from the slash
    commands': a rewrite (`rewrote_notes`) of a comment the bot's account wrote, by the
    rule a deletion's comment is ours by (bot.markers.written_by_us). A person's comment
    that opened with our marker (a copy of our text), edited into `/notes ...`, is the
    commands' to run. Before the bot's login is known (`Us.known`: intake, without
    REVIEW_NOTES_BOT_LOGIN), one that may be ours is claimed, and the run routes it again
    knowing the login: an App's comment is a bot account's, a token's account a user's.
    MalformedPayload when `changes` or `comment.user` is not as GitHub sends them.

    Also a later edit of a comment of the App's that did not open with our marker before
    (`_edited_again`): a rewritten notes comment edited again, whose newest words a
    write-back owed must not write over (bot.write_backs). Not with a token: its account
    is also its owner, whose own comments edited into commands are the commands', and
    the payload cannot tell the rewritten comment from theirs (the same author, no
    marker): only the PR's state knows which one words are owed onto, and intake reads
    none (docs/commands.md says what that leaves). Claimed
    only of a comment known to be the App's (its login, or GitHub naming the App as its
    writer, `performed_via_github_app`), whoever edits it: before the login is known,
    another bot's comment edited (by that bot each push, or by a person) would be queued
    for the run to drop; the commands' route drops it at intake ("written by a bot")."""
    rewrite = rewrote_notes(payload)
    if not rewrite and (us.as_user or not _edited_again(payload)):
        return False
    comment = payload.get("comment") or {}
    author = _author(comment)
    if written_by_us(author, *_writer(comment), us.logins, us.app_id):
        return True
    kind, _ = _writer(comment)
    # a rewrite (our marker dropped), while the login is not known: any bot's comment
    # may be the App's (a token's: any user's); the run routes it again knowing it
    return not us.known and rewrite and (us.as_user or kind == "Bot")


def check_rewritten(payload: dict[str, Any]) -> str | None:
    """The comment's id and author, and the installation, checked at intake as a
    deletion's (400, not failed at each run)."""
    comment = payload.get("comment") or {}
    payload_id(comment.get("id"), "comment.id")
    _author(comment)
    check_installation(payload)
    return None


def check_edited(payload: dict[str, Any]) -> str | None:
    """A rewrite's, or a later edit's: as `check_rewritten`, and its text, the words owed
    back onto the comment (bot.write_backs): one that is no string (GitHub sends one) is
    refused (400), not kept as a debt that would read as a damaged database."""
    body = (payload.get("comment") or {}).get("body")
    if not isinstance(body, str):
        raise MalformedPayload(f"comment.body: not a string ({type(body).__name__})")
    return check_rewritten(payload)


def handle_rewritten(ctx: BotContext, delivery: Delivery) -> str:
    """A notes comment rewritten by someone other than the bot counts exactly as its
    deletion (`handle_deleted`: the same rules, `deletion_ignored`, and date, `_said`),
    also when the PR's state never learnt its id: a later PR event would find no comment
    of ours and post it again, notifying everyone; but dated when it was made
    (`_edited_at`), which its event says. The rewritten comment is the
    maintainer's now: forgotten, never edited again. (`handle_deleted` reads of the
    comment its id, author and App, not its text.)

    A rewrite (`issue_comment` `edited` of a comment our account wrote: the text before
    opened with our marker, the text now does not, `rewrote_notes`) is the comment's
    deletion for readers, counted as one by the same rules, but dated when it was made (its
    `comment.updated_at`, as an edited command is); the route takes it from the slash
    commands' (`Route.claims`, `claims_rewrite`). One an `on` said after it outranks leaves
    the updates on, but the comment is still theirs (`_kept_apart`): never the notes comment.
    A later edit of a comment so rewritten comes by the same route (`claims_rewrite`): the
    words owed back onto it are then theirs (bot.write_backs.edited_again), as when they take
    off our notes text they pasted back onto it (a rewrite of their own comment, given
    back: no deletion of ours, `_given_back_now`). Its deletion
    (without our marks: not the notes comment's route's) comes by its own
    (`claims_given_back_gone`): gone, it is no longer kept as given back.
    """
    comment = delivery.payload["comment"]
    ref, comment_id = _named(delivery.payload)
    if not rewrote_notes(delivery.payload):  # rewritten before: their words edited again
        done = edited_again(ctx, ref, comment_id, comment.get("body"), _edited_at(comment))
        given = _pasted_on(ctx, ref, comment_id, comment.get("body"))
        return f"{given}; {done}" if given else done
    if _given_back_now(ctx.prs.get(ref.repo, ref.number), comment_id):
        # our notes text they pasted onto their comment taken off again: their edit of
        # their own comment, no rewrite of ours (a second copy's, or counted once more)
        done = edited_again(ctx, ref, comment_id, comment.get("body"), _edited_at(comment))
        return f"{GIVEN_BACK_UNPASTED}; {done}"
    done = _rewritten(ctx, delivery, ref, comment_id, comment)
    _give_back(ctx, ref, comment_id)
    return done


def _pasted_on(ctx: BotContext, ref: PRRef, comment_id: int, text: object) -> str:
    """A person's edit put our notes marker on a comment of the App's that did not open
    with it (a reply of ours, a rewritten notes comment): their text, which a write knowing
    no comment would take for the notes comment by its marker (edited over, or deleted as
    a second copy), so it is given back (`_give_back`), as a rewritten one is. Not the one
    the PR's state keeps: the notes comment. Nor in a dry run (`_give_back`). What was
    done ("": nothing)."""
    state = ctx.prs.get(ref.repo, ref.number)
    if not opens_with(text) or comment_id in (state.comment_id, *state.given_back):
        return ""
    if ctx.settings.is_dry_run:  # its ids are its own table's (`_give_back`)
        return ""
    _give_back(ctx, ref, comment_id)
    return "our notes marker pasted on it: theirs, given back"


def _give_back(ctx: BotContext, ref: PRRef, comment_id: int) -> None:
    """Keep comment `comment_id`, rewritten, as given back to a person
    (`PRState.given_back`): still the App's, it opens with our marker again should they
    paste our text back, and a write knowing no comment would find it by the marker and
    take it back, editing their comment (or keep it as the oldest and delete ours as its
    copy). Also when the rewrite changed nothing and the state still keeps it: no write
    passes over the comment it keeps (bot.sticky `_given_back`), and its next finds it
    no longer ours (no marker) and forgets it. None in a dry run, whose rewrites are
    ignored: the ids are its own table's, and its comment would be passed over. A
    deletion owed on it (`owed_delete`, left up on a locked conversation) goes: the
    comment is theirs now, and their pasting our text back would let the unlock delete
    it."""
    if ctx.settings.is_dry_run:
        return
    state = ctx.prs.get(ref.repo, ref.number)
    if state.owed_delete == comment_id:
        ctx.prs.update(ref.repo, ref.number, owed_delete=None)
    if comment_id not in state.given_back:
        ctx.prs.update(ref.repo, ref.number, given_back=(*state.given_back, comment_id))


def _rewritten(
    ctx: BotContext, delivery: Delivery, ref: PRRef, comment_id: int, comment: dict[str, Any]
) -> str:
    """The rewrite counted as a deletion (`handle_rewritten`); what was done."""
    taken = _taken_away(ctx, delivery, ref, comment_id, _edited_at(comment))
    state = ctx.prs.get(ref.repo, ref.number)
    if taken.outranked and state.comment_id == comment_id:
        return _kept_apart(ctx, ref, comment_id, comment)
    if taken.outranked and state.comment_id is None and not state.opted_out:
        # our comment, none kept, updates on: kept apart by a run that failed after
        # forgetting it (the new comment, or their words, refused), and retried
        return _kept_apart(ctx, ref, comment_id, comment, kept=False)
    done = f"{taken.done} (rewritten: its text no longer opens with our marker)"
    if not taken.counted:
        return done
    return f"{done}{_their_text_back(ctx, ref, comment_id, comment)}"


def _kept_apart(
    ctx: BotContext, ref: PRRef, comment_id: int, comment: dict[str, Any], *, kept: bool = True
) -> str:
    """A rewrite of the notes comment the bot keeps, outranked by a `/notes on` said
    after it and run first (its update, in flight as they rewrote the comment or run on
    a list lagging behind their edit, wrote over their words). The `on` stands (updates
    on), but the comment is the maintainer's: forgotten, never the bot's again, their
    words written back as a counted rewrite's are (`_their_text_back`: owed), and the
    notes posted in a new comment, as the `on`'s update would have with their rewrite
    run first (a PR event's rules: a draft waits, a closed PR is left alone). `kept`:
    the comment is the one the state keeps; not, at the retry of a run that forgot it
    and failed: the rest is done again (a re-run finds their text, and writes nothing
    the run before made; a create whose answer was lost is looked for). What was done."""
    facts = ctx.github.get_pull(ref)  # before any change: a call failing retries it all
    assert facts is not None  # (None: a dry run, whose rewrites are ignored before)
    if kept:
        forget_comment(ctx, ctx.prs.get(ref.repo, ref.number))
    back = _their_text_back(ctx, ref, comment_id, comment)
    done = (
        f"our comment {comment_id} rewritten: theirs now, forgotten (the `/notes on` said"
        f" after it stands){back}"
    )
    try:
        result = refresh_sticky(ctx, ref, facts)
    except ConversationLocked:  # their words owed first: the unlock writes them
        return f"{done}; the notes not posted anew: the conversation is locked"
    return f"{done}; the notes comment: {result.outcome} ({result.reason})"


def _their_text_back(ctx: BotContext, ref: PRRef, comment_id: int, comment: dict[str, Any]) -> str:
    """A counted rewrite's words written back, when an edit of ours wrote over them: in
    flight when the person rewrote the comment, GitHub applied it after theirs (no
    conditional edit on GitHub to refuse it), and our text shows again, theirs lost.
    This runs after that write (a PR's deliveries run one at a time). Only onto the
    comment our account wrote, opening with our marker again (`restore_text` asks for it
    first): never a person's comment. The words are those their edit put there (the
    event's `comment.body`; a later edit's, owed already, stand: `owe_write_back`): any
    mention or reference in them is theirs, made by their edit, none new of ours. Owed
    before the call, and past it when nothing was written (bot.write_backs): a locked
    conversation refuses it (the unlock writes it), a failed call fails the delivery
    (its retry, or any write of ours before it, writes it), and an edit of ours may land
    after this look (the next write looks again). A re-run finds their text and writes
    nothing. What is said after the rewrite: empty when
    nothing was written."""
    owe_write_back(ctx, ref, comment_id, comment["body"], _edited_at(comment))  # check_edited
    try:
        done = write_back_owed(ctx, ref, keep=True)
    except ConversationLocked as locked:
        log.warning(
            "%s PR %s: the text a person's rewrite put on comment %s, which a late edit of"
            " ours wrote over, is not written back for now: GitHub refused it as the"
            " conversation is locked (%s); it is written back when the PR is unlocked",
            ref.repo,
            ref.number,
            comment_id,
            locked,
        )
        return (
            "; their text, which our late edit wrote over, owed: the conversation is locked"
            " (written back at the unlock)"
        )
    if done is None or not done.wrote:
        return ""
    return "; their text, which our late edit wrote over, written back"


def _edited_at(comment: dict[str, Any]) -> str | None:
    """A rewrite's order key: when it was made (`updated_at`, the edit's own time, as for
    an edited command), after every comment of that second as a deletion is (GitHub's
    times have whole seconds; the rewritten comment's id is older than theirs). None when
    no time parses: then it is dated as a deletion (`_said`)."""
    when = as_github_time(comment.get("updated_at"))
    return None if when is None else after_second(when)

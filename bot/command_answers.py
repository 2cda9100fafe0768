"""Running and answering the slash commands of one comment or review body (its
`command_source.Source`, read by bot.command_events).

A `/notes` command comes in as an event (step 1 of the flow: event -> PR facts ->
matches -> comment -> GitHub); its reactions, replies and refreshed comment go out to
GitHub as in step 5. It must never flood a PR or an installation: its writes and replies
are paid from budgets (bot.flood_control). The steps and the budgets: `run_commands`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from urllib.parse import urlencode

from bot.command_feedback import numbered, take_feedback
from bot.command_policy import (
    DONE,
    REFUSED,
    TAKEN,
    Decision,
    asks_permission,
    first_reaction,
    judge,
    most_writes,
    needs_reply,
    to_record,
)
from bot.command_reactions import Reactions, Spent
from bot.command_replies import WORD_ECHO_LIMIT, Unanswered, render_errors, render_reply
from bot.command_source import Source
from bot.command_updates import SWITCHES, ask_for_update, newer_switch
from bot.commands import Command, Kind
from bot.context import BotContext
from bot.github_port import ConversationLocked, GitHubError, PRRef, counting_writes, never_sent
from bot.locked_commands import Key, owe_again, released
from bot.logs import Redactor
from bot.markers import reply_key
from bot.order_keys import command_key
from bot.queue import Delivery, pr_key
from bot.reply_copies import after_posted_again
from bot.terminal import shown
from bot.write_backs import charged

log = logging.getLogger(__name__)


def _new_commands(ctx: BotContext, ref: PRRef, source: Source) -> list[Command]:
    """The commands to run: every one of a new comment, those an edit added or changed."""
    reading = ctx.command_reading
    if source.owed is not None and source.comment_id is not None:
        # owed since a release's run (`owe_again`): those the comment's text now still has
        return [c for c in reading.parse(_text_now(ctx, ref, source)) if c.key in source.owed]
    if source.old_body is not None:
        commands = reading.changed(source.old_body, source.body)
    else:
        commands = reading.parse(source.body)
    if source.still is None:
        return _not_run_at_unlock(ctx, ref, source, commands)
    # a kept comment edited since: those the edit took out are taken back, and those it
    # added are its own event's
    still = {c.key for c in reading.parse(source.still)}
    return [c for c in commands if c.key in still]


def _text_now(ctx: BotContext, ref: PRRef, source: Source) -> str:
    """The comment's text as GitHub has it now (one GET); "" when it is gone."""
    assert source.comment_id is not None
    return ctx.github.comment_text(ref, source.comment_id) or ""


def _not_run_at_unlock(
    ctx: BotContext, ref: PRRef, source: Source, commands: list[Command]
) -> list[Command]:
    """The comment's commands but the kept ones the unlock's run answers: an edit said
    before the unlock read it (edited twice: the first took one out, this one put it
    back) runs none of them again, nor does one of a comment still kept, run before the
    release its payload makes (said unlocked: that second edit's event came first). Not
    one said locked: its commands meet the lock and keep its text, newer than the kept
    one (an older edit's event, run late, keeps nothing over it); left to the release,
    an older edit's event run late, meeting the lock, kept its text over the kept one,
    and a command it lacks, put back, was never answered. Run after the unlock (before
    its event), its run answers them: the release is told (`run_commands`). An edit
    said unlocked that leaves kept ones to the release keeps their lines on the kept
    comment (`defer`), lest an older edit's text kept over it take them out."""
    if source.comment_id is None:  # (a review's body)
        return commands
    reading = ctx.command_reading
    at_unlock = ctx.locked.run_at_unlock(ref, source.comment_id, source.said_at, reading)
    if source.said_unlocked:
        kept = ctx.locked.kept_before(ref, source.comment_id, source.said_at, reading)
        if left := kept & {c.key for c in commands}:  # the kept row must still answer them
            ctx.locked.defer(ref, source, left, reading)
        at_unlock |= kept
    return [c for c in commands if c.key not in at_unlock]


# The reply key's part for a delivery's one reply to the commands it could not do: one
# key whichever they are, so a re-run finds it even if what it answers changed meanwhile
# (a permission granted, a note shown).
ERRORS = "errors"


def _reply_posted(ctx: BotContext, ref: PRRef, delivery: Delivery, index: int | str) -> bool:
    """Whether an earlier run of this delivery (a crash, `review-notes retry`) posted the
    reply to its command `index` (or ERRORS): one a maintainer deleted since must stay
    deleted. Recorded once GitHub confirmed it, and paid from the reply budget then; else
    found by its key (the run died between the post and the record, or failed unsure
    GitHub had taken it), and paid now. A first run asks GitHub nothing; its record is
    read all the same: a run handed back at a stop is uncounted (`DeliveryQueue.release`),
    and its re-run, taken for a first, would post what it had posted again."""
    key = reply_key(delivery.id, index)
    if ctx.prs.reply_recorded(key):
        return True
    if delivery.attempts <= 1:
        return False
    found = ctx.github.find_comment(ref, key)
    if found is not None:  # posted, not recorded: record it now, lest a deletion hide it
        ctx.prs.record_reply(ref.repo, ref.number, key, found, delivery.id)
        # and pay for it, unless the run that posted it failed unsure it had and kept it
        # paid (`FloodControl.hold_reply`): that run died (a restart's budgets start full)
        if not ctx.flood.held_reply(key):
            ctx.flood.take_reply(pr_key(ref.repo, ref.number) or "", ref.installation_id)
    return found is not None


def run_commands(ctx: BotContext, ref: PRRef, source: Source, delivery: Delivery) -> str:
    """Run and answer the new commands of one comment or review body; what was done,
    for the delivery's log line.

    For each new command (on an edit: each command the edit added or changed):
    1. who may run it: `bot.command_policy`, judged once, at the delivery's first run (a
       re-run reads the decisions it kept: `bot.decision_store`);
    2. a reaction on the comment: `eyes` taken, `confused` refused or unknown;
    3. the answer:
       - `refresh`, `why`, `off` and `on` change the PR's state at once and ask for ONE
         update of the notes comment, in its window: bot.command_updates;
       - `wrong` and `restore` change the notes the comment hides, in the order they were
         said on GitHub, whatever order they run in: bot.command_feedback;
       - `topic`, `search` and `help` get a reply comment each;
       - what could not be done (unknown sub-commands, refusals, `wrong` naming no note
         shown) gets ONE reply for the whole comment.

    Budgets (bot.flood_control), so that no PR or installation is flooded:
    - Writes. Before the first, a comment's commands pay for the most they can write
      (`most_writes`: reactions, replies, the notes comment's edit, now or deferred); what
      was not written is paid back (`command_updates.handle_refresh` too). Over the
      budget no command of the comment runs: the first refused gets `confused`, the next
      nothing, and each is logged.
    - Replies, per PR and per installation. Over one, the first command refused gets
      `confused` and no reply; the next that want only replies get no reaction at all
      until a reply is allowed again.
    - A re-run of a delivery already admitted (put back for a rate limit, retried;
      `FloodControl.admitted`) may follow an `eyes` or a PR state its commands set: it
      takes its writes even past the budget (`FloodControl.take_writes`) and is answered
      whole. Its replies still ask the reply budget, but one it posted before is found by
      its key and not paid for again; one whose POST failed unsure GitHub took it stayed
      paid (`FloodControl.hold_reply`), lest another command spend it meanwhile.
    """
    commands = _new_commands(ctx, ref, source)
    if not commands:
        return "no new command"
    numbering_kept = False  # this delivery kept its `wrong`s' numbering (this run or before)
    numbering: tuple[str, ...] | None = None  # what its `wrong`s number, read once a run
    if any(c.kind is Kind.WRONG for c in commands):  # its numbers: the comment read now
        numbering = numbered(ctx, ref, source.origin)
        numbering_kept = ctx.feedback.keep_numbering(
            ref.repo, ref.number, source.origin, numbering or (), delivery.id
        )
    judged = list(zip(commands, _judge(ctx, ref, source, delivery, commands), strict=True))
    if numbering_kept and not any(c.kind is Kind.WRONG and d is Decision.ALLOW for c, d in judged):
        ctx.feedback.forget_numbering(ref.repo, ref.number, source.origin)
    judged = [(c, d) for c, d in judged if d is not Decision.IGNORE]
    if not judged:
        return f"ignored: {shown(source.actor.login)} is a bot"
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
            said = "not answered: over the PR's or the installation's reply budget"
            return _still_owed(ctx, ref, delivery, said, {c.key for c, _ in judged})
        refused = ctx.flood.reserve_writes(ref.installation_id, reserved)
        if refused is not None:
            ctx.metrics.commands_refused.labels("write").inc()
            if numbering_kept:  # none of its commands runs: say them again, in a new comment
                ctx.feedback.forget_numbering(ref.repo, ref.number, source.origin)
            said = _not_run(ctx, ref, source, judged, refused.first)
            return _still_owed(ctx, ref, delivery, said, {c.key for c, _ in judged})
    ctx.flood.admit(delivery.id)  # a re-run too: the newest again, its next put-back kept
    spent = Spent()
    try:
        with charged(ctx, ref):  # a rewrite's words its update writes back first
            said, unanswered = _run_judged(ctx, ref, source, delivery, judged, spent, numbering)
        if source.comment_id is not None and not (source.said_unlocked or source.on_diff):
            # an edit said locked, run after the unlock before its event: the kept
            # commands it answered are not the release's to answer again; one the reply
            # budget refused (😕 alone) stays the release's, lest it go unanswered for good
            keys = {c.key for c, _ in judged} - unanswered
            ctx.locked.mark_answered(ref, source, keys, ctx.command_reading)
        return _still_owed(ctx, ref, delivery, said, unanswered)
    except ConversationLocked:
        # answered in part (a reply, which a run under another id would post again; its
        # update, owed), maybe so by an earlier run (its reply recorded: one handed back
        # at a stop is uncounted), or not kept: what it left owed waits
        # (bot.dispatch). Its 👀 alone is no answer: kept, the unlock adds no second one.
        answered = spent.answered or delivery.attempts > 1 or _replied(ctx, delivery, judged)
        if answered or source.comment_id is None or source.on_diff:
            raise
        return _kept_for_the_unlock(ctx, ref, source, delivery, source.heard or spent.heard)
    finally:  # what it did not write goes back, also when it failed or was put back halfway
        ctx.flood.refund_writes(ref.installation_id, reserved - spent.writes)


def _still_owed(
    ctx: BotContext, ref: PRRef, delivery: Delivery, said: str, unanswered: set[Key]
) -> str:
    """What the run did (`said`); a release's run of kept commands (`released`) leaves
    those a budget left unanswered (`unanswered`) owed, queued again (`owe_again`): said
    while locked, they waited for the unlock, and no one will say them again."""
    if not unanswered or not released(delivery):
        return said
    return f"{said}; {owe_again(ctx, ref, delivery, unanswered)}"


def _replied(ctx: BotContext, delivery: Delivery, judged: list[tuple[Command, Decision]]) -> bool:
    """Whether a run of the delivery posted a reply (recorded): one handed back at a stop
    is uncounted, its re-run's attempts those of a first (`_reply_posted`)."""
    keys = [*range(len(judged)), ERRORS]
    return any(ctx.prs.reply_recorded(reply_key(delivery.id, i)) for i in keys)


def _kept_for_the_unlock(
    ctx: BotContext, ref: PRRef, source: Source, delivery: Delivery, heard: bool
) -> str:
    """GitHub refused the comment's answer as the conversation is locked (said there by a
    maintainer, or locked before its 👀, or between its 👀 and its first reply): nothing
    shows it was answered, so it is kept, and run again at the unlock
    (bot.locked_commands); `heard`: its 👀 shows."""
    if not ctx.locked.keep(ref, delivery, source, heard, ctx.command_reading):
        return "the conversation is locked: a newer text of this comment is kept for the unlock"
    log.info(
        "%s#%d: the conversation is locked: the commands of comment %s are kept for the unlock",
        ref.repo,
        ref.number,
        source.comment_id,
    )
    return "the conversation is locked: its commands are kept for the unlock"


def _judge(
    ctx: BotContext, ref: PRRef, source: Source, delivery: Delivery, commands: list[Command]
) -> list[Decision]:
    """Each command's decision, made once (`command_policy.judge`): a re-run reads the
    decisions its first run recorded (before any took effect) and asks GitHub only for
    those it did not make (that run failed first: a permission check GitHub failed)."""
    actor, author = source.actor, source.pr_author
    permission_of = functools.cache(lambda login: ctx.github.permission(ref, login))
    # most comments ask no permission (a command anyone may run, the PR's author's): no read
    asking = any(asks_permission(c.kind, actor, author) for c in commands)
    recorded = ctx.decisions.recorded(delivery.id) if asking else {}
    decisions = judge(commands, actor, author, permission_of, recorded)
    ctx.decisions.record(delivery.id, to_record(commands, decisions, actor, author))
    return decisions


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
    numbering: tuple[str, ...] | None,
) -> tuple[str, set[Key]]:
    """React, run and answer the comment's commands; `spent` counts the writes, `numbering`
    is what its `wrong`s number (`numbered`). What was done, and the keys of the commands
    a reply budget left unanswered (😕, no reply)."""
    reactions = Reactions(ctx, ref, spent)
    for c, d in judged:
        first = first_reaction(c, d)
        if not (source.heard and first == TAKEN):  # (a kept comment's 👀 shows already)
            reactions.add(source.comment_id, first, source.on_diff)
    switching = any(c.kind in SWITCHES and d is Decision.ALLOW for c, d in judged)
    newer = newer_switch(ctx, ref, source) if switching else None

    said: list[str] = []
    sticky: list[Kind] = []
    errors: list[Unanswered] = []  # answered together, in one reply (_answer_errors)
    answered = 0  # taken commands done now
    unanswered: set[Key] = set()  # refused their reply by a budget
    for i, (c, d) in enumerate(judged):
        # `wrong` naming no note of the comment is answered by a reply saying which it can name
        order = command_key(source.said_at, i)
        problem = (
            take_feedback(ctx, ref, c, source, order, numbering) if d is Decision.ALLOW else None
        )
        if d is Decision.ALLOW and c.kind in SWITCHES and newer:
            said.append(f"{c.kind}: changes nothing, an `off`/`on` said later stands ({newer})")
            answered += 1  # acknowledged: it was heard, and outranked
        elif d is Decision.ALLOW and c.kind.updates_sticky and problem is None:
            sticky.append(c.kind)
        elif d is Decision.REFUSE or problem or c.kind is Kind.UNKNOWN:
            errors.append(Unanswered(c, refused=d is Decision.REFUSE, unpicked=problem))
        elif _reply_once(ctx, ref, delivery, i, functools.partial(_reply_text, ctx, c, ref), spent):
            answered += 1
            said.append(f"{c.kind}: replied")
        else:
            reactions.add(source.comment_id, REFUSED, source.on_diff)
            said.append(f"{c.kind}: over the reply budget")
            unanswered.add(c.key)
    if errors:
        summary, replied = _answer_errors(ctx, ref, source, delivery, errors, reactions)
        said.append(summary)
        unanswered |= set() if replied else {e.command.key for e in errors}
    owed = False
    if sticky:
        spent.answered = True  # a lock refusing its update leaves it owed (ask_for_update)
        summary, owed = ask_for_update(ctx, ref, source, sticky, reactions)
        said.append(summary)
        answered += not owed
    if answered and not owed:
        reactions.add(source.comment_id, DONE, source.on_diff)
    reactions.check()
    return "; ".join(said), unanswered


def _reply_once(
    ctx: BotContext,
    ref: PRRef,
    delivery: Delivery,
    index: int | str,
    body: Callable[[], str],
    spent: Spent,
) -> bool:
    """Post a reply under its key, paid from the PR's reply budget and its installation's,
    unless an earlier run of the delivery posted it or paid for it. False: over a budget,
    not posted. More than one of its POSTs GitHub took or may have (not one it refused),
    a look for its copies is queued (bot.reply_copies)."""
    if _reply_posted(ctx, ref, delivery, index):
        return True
    budget = pr_key(ref.repo, ref.number) or ""
    once = reply_key(delivery.id, index)
    # An earlier run that failed unsure GitHub took it kept it paid (it had not: not found)
    if not ctx.flood.held_reply(once) and not _allow_reply(ctx, ref, budget):
        return False
    spent.writes += 1
    with counting_writes() as sent:
        try:
            reply_id = ctx.github.create_comment(ref, f"{body()}\n{once}")
            spent.answered = True
            ctx.prs.record_reply(ref.repo, ref.number, once, reply_id, delivery.id)
        except Exception as exc:
            if _not_posted(exc):  # its re-run pays, not this run
                ctx.flood.refund_reply(budget, ref.installation_id)
            else:  # maybe posted (a 5xx, a timeout, not recorded): paid until the re-run
                ctx.flood.hold_reply(once)  # finds it on the PR or posts it
            if never_sent(exc):  # held back, never connected, another server answered: no write
                spent.writes -= 1
            raise
        finally:
            if sent.landed > 1:  # sent again after a try whose answer was lost: it may
                after_posted_again(ctx, ref, once)  # show twice, the later copy to go
    return True


def _not_posted(exc: BaseException) -> bool:
    """GitHub surely did not take the reply: the call never went out (a rate limit pause
    held it back, it never connected, another server answered it) or GitHub refused it (a
    4xx: a validation error, a rate limit)."""
    status = exc.status if isinstance(exc, GitHubError) else None
    return never_sent(exc) or (status is not None and 400 <= status < 500)


def _allow_reply(ctx: BotContext, ref: PRRef, budget: str) -> bool:
    """Pay a reply from the PR's reply budget (`budget`) and its installation's; False,
    and a warning once a spell, when either refuses it."""
    overspent = ctx.flood.allow_reply(budget, ref.installation_id)
    if overspent is not None and overspent.first:  # once a spell, not per refusal
        log.warning(
            "installation %s: over its reply budget (%d, then one every %gs, all its PRs "
            "together): replies are refused until it refills",
            ref.installation_id,
            ctx.commands.installation_reply_burst,
            ctx.commands.installation_reply_refill_s,
        )
    return overspent is None


def _answer_errors(
    ctx: BotContext,
    ref: PRRef,
    source: Source,
    delivery: Delivery,
    errors: list[Unanswered],
    reactions: Reactions,
) -> tuple[str, bool]:
    """One reply to all the commands of the source that were not done (unknown, refused,
    `wrong` naming no note shown), under one key, and 😕: a reply each would notify
    everyone watching the PR once per typo, and spend the PR's reply budget on them.
    What was done, and whether the reply was posted (False: over a reply budget)."""
    reactions.add(source.comment_id, REFUSED, source.on_diff)
    what = ", ".join(map(_logged, errors))
    body = functools.partial(render_errors, errors, ctx.command_word)
    if not _reply_once(ctx, ref, delivery, ERRORS, body, reactions.spent):
        return f"{what}; over the reply budget", False
    return f"{what}; one reply", True


def _logged(error: Unanswered) -> str:
    """A command not done, for the delivery's log line: an unknown one by what was typed
    (its kind alone tells the operator nothing), its credential shapes redacted before it
    is cut as its reply cuts it, and `shown` inert; the others by kind."""
    if error.outcome != "unknown":
        return f"{error.command.kind}: {error.outcome}"
    typed = error.command.args[0] if error.command.args else ""
    return f'unknown "{shown(Redactor()(typed), WORD_ECHO_LIMIT)}"'


def _reply_text(ctx: BotContext, command: Command, ref: PRRef) -> str:
    """The text of the reply to a `topic`, `search` or `help` (`_reply_once` posts it)."""
    links, repo = ctx.links, ref.repo

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
        pr=ref.number,
    )

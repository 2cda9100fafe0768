"""Commands a locked conversation kept the bot from hearing, kept for its unlock (shell).

On a locked PR only collaborators may comment, and GitHub refuses the App every write
there, reactions too: a maintainer's command said there, or said just before a lock that
came ahead of its 👀, could be neither answered nor acknowledged, and was dropped.

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub), deferred: what is
kept and how the unlock runs it, `LockedCommands.keep` and `release`; how long rows are
kept, `LockedCommands`. At the unlock it must never run a command the comment no longer
says.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.command_source import Source
from bot.commands import Kind, Reading
from bot.db import Database
from bot.github_port import PRRef
from bot.notes import ID_PATTERN
from bot.order_keys import after_second, said_before
from bot.queue import Delivery
from bot.times import as_github_time, github_time, utcnow

if TYPE_CHECKING:  # the context holds the store
    from bot.context import BotContext

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS locked_commands (
    repo        TEXT NOT NULL,      -- lower-case owner/name
    number      INTEGER NOT NULL,
    comment_id  INTEGER NOT NULL,   -- the PR comment the commands are in
    delivery    TEXT NOT NULL,      -- the delivery kept (its newest, for an edited comment)
    event       TEXT NOT NULL,
    payload     TEXT NOT NULL,      -- as GitHub sent it (JSON)
    body        TEXT NOT NULL,      -- the comment's text kept: the unlock runs it if it shows
    old_body    TEXT,               -- its text before the lock (an edit); NULL: a new comment
    said_at     TEXT,               -- its order key (bot.command_events.said_at)
    kept_at     TEXT NOT NULL,
    heard       INTEGER NOT NULL DEFAULT 0, -- 1: its 👀 shows (the lock met its reply)
    deferred_at TEXT,               -- the order key of the newest edit that left kept
                                    -- commands to the release (`defer`); NULL: none did
    deferred    TEXT,               -- those commands' lines, in that edit's text
    answered    TEXT,               -- JSON list of the keys of kept commands an edit said
                                    -- after the text kept answered (`mark_answered`): not run
    PRIMARY KEY (repo, number, comment_id)
);
-- a kept comment edited since, queued at the unlock to run the kept commands its text
-- then still had (`STILL`): an edit said before that read (its event run after) runs
-- none of them again, though its `from`, a text between, lacks one it put back
CREATE TABLE IF NOT EXISTS released_still (
    repo        TEXT NOT NULL,      -- lower-case owner/name
    number      INTEGER NOT NULL,
    comment_id  INTEGER NOT NULL,
    keys        TEXT NOT NULL,      -- JSON list of the command keys the unlock's run runs
    read_at     TEXT NOT NULL,      -- GitHub time the comment's text was read
    PRIMARY KEY (repo, number, comment_id)
);
"""
# a command's identity (`Command.key`), as an edit's diff reads it
Key = tuple[str, tuple[str, ...]]
# one comment's row, in either table; its values are `_comment_key`'s
_WHERE_COMMENT = " WHERE repo = ? AND number = ? AND comment_id = ?"
# the delivery queued again at the unlock: the kept one's id, then this
UNLOCKED_ID = "#unlocked"
# set in its payload when the comment's 👀 shows: its run adds no second one
HEARD = "review_notes_heard"
# set in its payload when the comment was edited since it was kept: its text then; in an
# owed run's (`owe_again`), the owed commands' lines, for a release before `OWED`
STILL = "review_notes_still"
# set in the payload of a release's run queued again (`owe_again`): the keys of the kept
# commands a budget left unanswered, and how many runs left them so
OWED = "review_notes_owed"
OWED_RUNS = "review_notes_owed_runs"
# runs of a comment's owed commands before they are given up, logged: a budget refusing
# them this long is an installation flooded for many minutes
MOST_OWED_RUNS = 20


def _comment_key(repo: str, number: int, comment_id: int | None) -> tuple[str, int, int | None]:
    """A comment's key as both tables store it: its repository's name lower-case."""
    return repo.lower(), number, comment_id


@dataclass(frozen=True)
class Kept:
    comment_id: int
    delivery: str
    event: str
    payload: dict[str, Any]
    body: str
    old_body: str | None
    heard: bool = False
    said_at: str | None = None  # its order key: the lock stood when it was kept
    kept_at: str | None = None  # when the bot met the lock (our clock: `utcnow`)
    answered: frozenset[Key] = frozenset()  # kept commands an edit's run answered since


class LockedCommands:
    """The `locked_commands` table.

    Rows are keyed by the repository's name; a rename or transfer moves them with the PR's
    state (`move`, from bot.dispatch.follow_repository). They go when released, when the PR
    closes (`drop`, bot.pr_events; or an event run after says it closed: `drop_closed`), and
    after REVIEW_NOTES_DELIVERY_RETENTION_DAYS (`prune`, bot.retention).
    """

    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)  # an older file gains the table here, at start
        db.add_missing_columns(
            "locked_commands",
            {
                "heard": "INTEGER NOT NULL DEFAULT 0",
                "deferred_at": "TEXT",
                "deferred": "TEXT",
                "answered": "TEXT",
            },
        )

    def keep(
        self,
        ref: PRRef,
        delivery: Delivery,
        source: Source,
        heard: bool = False,
        reading: Reading | None = None,
    ) -> bool:
        """Keep the comment's commands for the unlock; an edit of one kept already keeps
        the text before the lock (its commands ran then), and its 👀 (`heard`: it shows).
        An older text run late is kept only as the text the kept edit was made from (its
        `from`: that edit's delivery ran first). False: a newer text of the comment is
        kept (this delivery ran late). The kept commands an edit's run answered since
        (`mark_answered`) stay answered, but those this edit adds (keyed by `reading`; None:
        none stay).

        A PR comment's commands whose first write (the 👀, or 😕) GitHub refused so are kept
        here (`keep`, bot.command_answers), one row per comment, in the bot's SQLite file; so
        are those whose 👀 landed and whose first reply the lock refused (`heard`: their run at
        the unlock adds no second 👀), not those GitHub took a reply or the update of (posted
        again, or owed: bot.pr_events.handle_unlocked writes it) (`locked_commands`).

        A review body or a comment on the diff is not kept: GitHub gives the bot no reaction
        on the one and no way here to read the other again at the unlock (bot.command_events
        ignores them at intake on a locked PR)."""
        assert source.comment_id is not None
        key = _comment_key(ref.repo, ref.number, source.comment_id)
        with self.db.tx() as conn:
            row = conn.execute(
                "SELECT said_at, old_body, heard, deferred_at, deferred, answered"
                f" FROM locked_commands{_WHERE_COMMENT}",
                key,
            ).fetchone()
            if row is not None and said_before(source.said_at, row["said_at"]):
                if source.body != row["old_body"]:
                    return False
                # the text the kept edit was made from, its own delivery run late: its
                # commands, unheard too, are asked for with the edit's
                conn.execute(
                    "UPDATE locked_commands SET old_body = ?, heard = MAX(heard, ?)"
                    + _WHERE_COMMENT,
                    (source.old_body, int(heard), *key),
                )
                return True
            old_body = source.old_body if row is None else row["old_body"]
            heard = heard or (row is not None and bool(row["heard"]))
            body, payload = _with_deferred(row, source, delivery.payload)
            answered = _still_answered(row, source, reading)
            conn.execute(
                "INSERT OR REPLACE INTO locked_commands (repo, number, comment_id, delivery,"
                " event, payload, body, old_body, said_at, kept_at, heard, deferred_at,"
                " deferred, answered) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *key,
                    delivery.id,
                    delivery.event,
                    json.dumps(payload),
                    body,
                    old_body,
                    source.said_at,
                    utcnow(),
                    int(heard),
                    # (a text said after this one may come yet, older than that edit)
                    None if row is None else row["deferred_at"],
                    None if row is None else row["deferred"],
                    json.dumps(sorted(answered)) if answered else None,
                ),
            )
        return True

    def defer(self, ref: PRRef, source: Source, keys: set[Key], reading: Reading) -> None:
        """An edit (`source`, said unlocked) leaves its commands `keys`, the kept text's,
        to the release (`kept_before`): the comment keeps their lines, so that an older
        edit's event, run later, meeting the lock and keeping its text (the commands
        taken out), does not take them from the release too (`_with_deferred`)."""
        lines = _lines_of(source.body, keys, reading)
        if not lines:
            return

        def merged(row: sqlite3.Row) -> tuple[object, ...]:
            before = json.loads(row["deferred"] or "[]")
            newest = row["deferred_at"]
            if newest is None or said_before(newest, source.said_at):
                newest = source.said_at
            return newest, json.dumps([*before, *(line for line in lines if line not in before)])

        self._amend(ref, source, ("deferred_at", "deferred"), merged)

    def mark_answered(self, ref: PRRef, source: Source, keys: set[Key], reading: Reading) -> None:
        """A run of the comment's commands `keys` answered them (GitHub took its writes; not
        one a reply budget left with a 😕 alone, still owed the release's answer):
        an edit said after the text kept (its payload says locked, its event run after
        the unlock, before the unlock's) answered those of the kept commands it put back
        (`kept_before`), which the release runs no more. (Its run meeting the lock keeps
        its own text instead, a new row.)"""
        assert source.comment_id is not None
        keys = keys & self.kept_before(ref, source.comment_id, source.said_at, reading)
        if not keys:
            return

        def with_these(row: sqlite3.Row) -> tuple[object, ...]:
            answered = _keys(row["answered"]) | _with_typed(keys, source.body, reading)
            return (json.dumps(sorted(answered)),)

        self._amend(ref, source, ("answered",), with_these)

    def _amend(
        self,
        ref: PRRef,
        source: Source,
        columns: tuple[str, ...],
        change: Callable[[sqlite3.Row], tuple[object, ...]],
    ) -> None:
        """Set the kept comment's `columns` to what `change` makes of their stored values,
        in one transaction (a keep or another amend between the read and the write would
        be lost); nothing when the comment is not kept."""
        key = _comment_key(ref.repo, ref.number, source.comment_id)
        with self.db.tx() as conn:
            row = conn.execute(
                f"SELECT {', '.join(columns)} FROM locked_commands{_WHERE_COMMENT}", key
            ).fetchone()
            if row is not None:
                sets = ", ".join(f"{c} = ?" for c in columns)
                conn.execute(
                    f"UPDATE locked_commands SET {sets}{_WHERE_COMMENT}", (*change(row), *key)
                )

    def kept(self, repo: str, number: int) -> list[Kept]:
        """The PR's kept comments, in the order they were said."""
        rows = self.db.execute(
            "SELECT * FROM locked_commands WHERE repo = ? AND number = ?"
            " ORDER BY said_at IS NULL, said_at, comment_id",
            (repo.lower(), number),
        )
        return [
            Kept(
                r["comment_id"],
                r["delivery"],
                r["event"],
                json.loads(r["payload"]),
                r["body"],
                r["old_body"],
                bool(r["heard"]),
                r["said_at"],
                r["kept_at"],
                _keys(r["answered"]),
            )
            for r in rows
        ]

    def move(self, conn: sqlite3.Connection, old: str, new: str, number: int) -> int:
        """In the caller's transaction (bot.dispatch.follow_repository): the PR's comments
        kept under its repository's old name go to the new one (renamed or transferred
        while locked: the unlock's event names the new one), or those of another
        repository's PR to the name it is set aside under (`PRStore.follow`); how many.
        A comment's id is GitHub's, the same under either name."""
        return conn.execute(
            "UPDATE OR REPLACE locked_commands SET repo = ? WHERE repo = ? AND number = ?",
            (new.lower(), old.lower(), number),
        ).rowcount

    def drop(self, repo: str, number: int) -> int:
        """Forget every comment kept on the PR (it closed: nothing is run on it at a later
        unlock); how many."""
        with self.db.tx() as conn:
            return conn.execute(
                "DELETE FROM locked_commands WHERE repo = ? AND number = ?", (repo.lower(), number)
            ).rowcount

    def prune(self, before: str, limit: int) -> int:
        """Delete up to `limit` comments kept before `before` (utcnow format; bot.retention:
        REVIEW_NOTES_DELIVERY_RETENTION_DAYS ago), each named in the log: an unlock that
        long after would run commands said long ago, which the PR has most likely moved
        past. How many."""
        with self.db.tx() as conn:
            gone = conn.execute(
                "DELETE FROM locked_commands WHERE rowid IN (SELECT rowid FROM locked_commands"
                " WHERE kept_at < ? LIMIT ?) RETURNING repo, number, comment_id, kept_at",
                (before, limit),
            ).fetchall()
            conn.execute(  # (its edits' events came long ago)
                "DELETE FROM released_still WHERE rowid IN (SELECT rowid FROM released_still"
                " WHERE read_at < ? LIMIT ?)",
                (github_time(before), limit),
            )
        for row in gone:
            log.info(
                "%s#%d: the commands of comment %s, kept since %s for an unlock that has not"
                " come, are dropped (REVIEW_NOTES_DELIVERY_RETENTION_DAYS)",
                row["repo"],
                row["number"],
                row["comment_id"],
                row["kept_at"],
            )
        return len(gone)

    def release_still(self, ref: PRRef, comment_id: int, keys: set[Key], read_at: str) -> None:
        """The unlock queued the kept commands `keys` of comment `comment_id`, edited
        since, its text read at `read_at` (GitHub time): `run_at_unlock` says so to the
        events of its edits."""
        self.db.execute(
            "INSERT OR REPLACE INTO released_still (repo, number, comment_id, keys, read_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (*_comment_key(ref.repo, ref.number, comment_id), json.dumps(sorted(keys)), read_at),
        )

    def run_at_unlock(
        self, ref: PRRef, comment_id: int, said_at: str | None, reading: Reading
    ) -> set[Key]:
        """The kept commands of the comment the unlock's run answers, for an edit said
        (`said_at`, its order key) before the unlock read the comment's text: one the
        edit puts back (a text between took it out) is answered once. Nothing for a later
        edit (said again), or one that does not say when. Keyed by `reading`, as the
        edit's commands are (`_as_read`: a row stored by a release that keyed a topic
        by its spelling, or a `wrong`'s list with its reason)."""
        rows = self.db.execute(
            f"SELECT keys, read_at FROM released_still{_WHERE_COMMENT}",
            _comment_key(ref.repo, ref.number, comment_id),
        )
        if not rows or not said_before(said_at, after_second(rows[0]["read_at"])):
            return set()
        return set(_all_as_read(_keys(rows[0]["keys"]), reading))

    def kept_before(
        self, ref: PRRef, comment_id: int, said_at: str | None, reading: Reading
    ) -> set[Key]:
        """The commands kept of comment `comment_id` when the text kept was said before
        `said_at` (an edit's order key): the release's, which runs those the comment still
        has when it reads it. An edit's event run first (out of order: its `from` a text
        between, which took one out) runs none of them, or both would answer it. Keyed as
        that edit's commands are (`reading`: the configured caps, and the library's topics,
        a `topic` by the topic it names)."""
        rows = self.db.execute(
            f"SELECT body, old_body, said_at FROM locked_commands{_WHERE_COMMENT}",
            _comment_key(ref.repo, ref.number, comment_id),
        )
        if not rows or not said_before(rows[0]["said_at"], said_at):
            return set()
        return {c.key for c in reading.changed(rows[0]["old_body"], rows[0]["body"])}

    def kept_by(self, ref: PRRef, comment_id: int, delivery_id: str) -> bool:
        """Comment `comment_id` is kept as delivery `delivery_id` left it: that run met
        the lock (bot.command_answers keeps its comment only so)."""
        rows = self.db.execute(
            f"SELECT 1 FROM locked_commands{_WHERE_COMMENT} AND delivery = ?",
            (*_comment_key(ref.repo, ref.number, comment_id), delivery_id),
        )
        return bool(rows)

    def forget(self, repo: str, number: int, comment_id: int) -> None:
        self.db.execute(
            f"DELETE FROM locked_commands{_WHERE_COMMENT}", _comment_key(repo, number, comment_id)
        )


def release_unlocked(
    ctx: BotContext, ref: PRRef, conversation: dict[str, Any], event_at: str | None
) -> str | None:
    """At a PR event other than the unlock whose payload says the conversation is not
    locked (`conversation`: its `pull_request`, or a comment's `issue`): the unlock came
    and its event did not (GitHub failed to deliver it, the bot was down past its
    redelivery), and the kept commands would wait for it for good. Released now
    (`release`), once: an unlock delivered late finds them gone. A payload that does not
    say (no `locked`): nothing.

    Not when its word is older than the lock the bot met: an event (`event_at`, GitHub's
    time of what it says; None: not told) of a second before the newest kept comment was
    said, or before the bot last met the lock keeping one (a late delivery, a retry; one
    said between a comment and the lock its run met after it; one said before `closed`,
    of commands kept after it ran), whose commands would meet the lock again. A closed
    PR's (a comment's payload) are dropped, as `closed` drops them, unless an event of
    the PR newer than this one (`event_at`, else the conversation's `updated_at`: an
    edited review's) was seen (reopened since)."""
    if conversation.get("locked") is not False:
        return None
    kept = ctx.locked.kept(ref.repo, ref.number)
    if not kept:
        return None
    # the newest PR event's, as GitHub writes times (one an older release stored as given
    # would compare as text wrongly: `seen_event` reads it so too)
    standing = as_github_time(ctx.prs.get(ref.repo, ref.number).event_at)
    # its word `closed` dated by the event, else (an edited review's: not told) by when the
    # PR last changed as the payload has it: older than a reopening seen, it is stale
    said_at = event_at or as_github_time(conversation.get("updated_at"))
    if conversation.get("state") == "closed" and not said_before(said_at, standing):
        dropped = drop_closed(ctx, ref, "closed, said unlocked")
        return f"the PR is closed: the commands kept of {dropped} comment(s) dropped"
    # when the lock last stood: a comment kept was said then, or its run met it later (said
    # just before the lock, its delivery run after): an event between them is older too
    met = (m for k in kept for m in (k.said_at, as_github_time(k.kept_at)) if m)
    newest = max(met, default=None)
    if event_at and said_before(after_second(event_at), newest):
        return "kept commands left kept: this event is older than the lock"
    return release(ctx, ref)


def drop_closed(ctx: BotContext, ref: PRRef, why: str) -> int:
    """Forget the commands a lock kept on the closed PR (`why`: what said it is closed),
    saying so in the log; how many."""
    dropped = ctx.locked.drop(ref.repo, ref.number)
    if dropped:
        log.info(
            "%s#%d: %s: the commands kept of %d comment(s) dropped",
            ref.repo,
            ref.number,
            why,
            dropped,
        )
    return dropped


def release(ctx: BotContext, ref: PRRef) -> str | None:
    """At the unlock: queue each kept comment's commands again, to run after the unlock,
    when the comment still shows the text kept (one GET each), or, edited since, still
    has a kept command (`_still_keys`); forget them all. What was done, None when
    nothing was kept.

    The unlock (bot.pr_events) queues each again (`release`), run then as if GitHub had
    just sent it (reactions, replies, the notes comment's update), when the comment still
    says what was kept: one deleted since was taken back, and one edited since runs the
    kept commands the edit left in place (`STILL`), its edit's own event the rest (a
    command the edit took out is taken back). Their order keys (`said_at`) decide as for
    any command run late: an `off` kept, outranked by an `on` said after the unlock,
    changes nothing. An edit made while locked replaces the kept comment's text, and asks
    for the commands that neither the comment's text before the lock nor the edit before
    had (as an edit's event does).
    """
    if ctx.queue is None:  # (a replay's: no queue to run them in)
        return None
    queued, dropped = 0, []
    reading = ctx.command_reading.remembering()  # each text read in several steps: parsed once
    for k in ctx.locked.kept(ref.repo, ref.number):
        read_at = github_time(None)  # before the GET: an edit said by then may be in it
        now = ctx.github.comment_text(ref, k.comment_id)
        # the kept commands it still has: all, when it shows the text kept (maybe edited
        # and put back: those edits' events, said before this read, run none of them)
        still = set() if now is None else _still_keys(reading, k, now)
        if now is not None and (still or (now == k.body and not k.answered)):
            payload = _as_said(k, now if still else None, reading)
            ctx.queue.enqueue(
                f"{k.delivery}{UNLOCKED_ID}",
                k.event,
                payload["action"],
                payload,
                ref.repo,
                ref.number,
                by_bot=True,
            )
            if still:
                typed = _with_typed(still, now, reading)
                ctx.locked.release_still(ref, k.comment_id, typed, read_at)
            queued += 1
        else:
            dropped.append(f"{k.comment_id} ({_dropped_why(k, now)})")
            log.info("%s#%d: kept commands dropped: %s", ref.repo, ref.number, dropped[-1])
        ctx.locked.forget(ref.repo, ref.number, k.comment_id)
    said = [f"{queued} comment(s) of commands kept while locked queued"] if queued else []
    if dropped:
        said.append(f"kept commands dropped: comment {', '.join(dropped)}")
    return "; ".join(said) or None


def _dropped_why(kept: Kept, now: str | None) -> str:
    """Why the release runs none of a kept comment's commands (`now`: its text, None when
    gone): deleted; edited since, none of them left to run; or showing the text kept,
    each of them answered since by an edit's run (`mark_answered`), not edited."""
    if now is None:
        return "deleted since"
    return "its kept commands answered since" if now == kept.body else "edited since"


def _still_keys(reading: Reading, kept: Kept, now: str) -> set[Key]:
    """The keys of the kept commands the comment, edited since it was kept (`now`: its
    text), still has: one its edit took out is taken back, and one it added is its own
    event's (whose `from` is the kept text), so those it left as they were are run at the
    unlock (`Source.still`), and no other: not one an edit's run answered since
    (`mark_answered`). Keyed as run (`reading`: the context's)."""
    still = {c.key for c in reading.parse(now)} - _all_as_read(kept.answered, reading)
    return {c.key for c in reading.changed(kept.old_body, kept.body)} & still


def _as_said(kept: Kept, still: str | None, reading: Reading) -> dict[str, Any]:
    """The kept delivery's payload, asking for the commands the comment's text before the
    lock did not have (all of a comment new then), but, edited since (`still`: its text
    now), those the edit took out (`_with_taken_back`). Its text is the one kept (`keep`):
    the newest delivery's. A `created` reads no `changes` an edit's payload carries."""
    payload = copy.deepcopy(kept.payload)
    if kept.heard:
        payload[HEARD] = True
    old_body = kept.old_body
    if still is not None:  # edited since: the kept commands it still has (`Source.still`)
        payload[STILL] = still
        old_body = _with_taken_back(kept, still, reading)
    if old_body is None:
        payload["action"] = "created"
    else:  # (an edit's `from` is the text before it, maybe an edit kept while locked)
        payload["action"] = "edited"
        payload["changes"] = {"body": {"from": old_body}}
    return payload


def _with_taken_back(kept: Kept, still: str, reading: Reading) -> str | None:
    """The kept text before the lock (`old_body`) with, above it, the lines of the kept
    commands the edit since took out: its `from`, which asks for those the comment still
    has of any release, also an older one, run after a rollback, that reads no `STILL`
    and would run them all. Each line is one that reads as that command alone, and a
    blank line ends it (a quote, a list item), so the text below reads as before. Keyed
    as the run keys them (`reading`: its caps and topics): a topic the edit names
    otherwise is not taken out."""
    now = {c.key for c in reading.parse(still)} - _all_as_read(kept.answered, reading)
    out = {c.key for c in reading.changed(kept.old_body, kept.body)} - now
    if not out:  # (no line to look for: the usual case, each kept command still there)
        return kept.old_body
    lines = _lines_of(kept.body, out, reading)
    if not lines:
        return kept.old_body
    return "\n\n".join([*lines, kept.old_body or ""])


def released(delivery: Delivery) -> bool:
    """Whether the delivery is a release's run of kept commands (`release`), or one queued
    again for those a budget left unanswered (`owe_again`)."""
    return UNLOCKED_ID in delivery.id


def owe_again(ctx: BotContext, ref: PRRef, delivery: Delivery, keys: set[Key]) -> str:
    """A release's run (`released`) left kept commands `keys` unanswered, over a budget (a
    reply budget: 😕, no reply; or the installation's write budget: none run): they were
    said while locked and waited for the unlock, and no one will say them again, so they
    stay owed. Queued again to run once the budgets
    refill, as the comment's commands `keys` it still has then (`owed`): its text is read
    at that run, so an edit or deletion since takes them back as at the release. What was
    done."""
    runs = int(delivery.payload.get(OWED_RUNS) or 0) + 1
    if ctx.queue is None:  # (a replay's: no queue to run them in)
        return "left unanswered"
    if runs > MOST_OWED_RUNS:
        log.warning(
            "%s#%d: kept commands left over a budget %d times, given up: %s",
            ref.repo,
            ref.number,
            MOST_OWED_RUNS,
            delivery.id,
        )
        return f"given up after {MOST_OWED_RUNS} runs over a budget"
    payload = copy.deepcopy(delivery.payload)
    payload.update({HEARD: True, OWED: sorted(keys), OWED_RUNS: runs})
    # (`owed` reads the comment's text at the run.) A release before `owed` reads `STILL`,
    # the kept commands to run: the owed ones' lines, lest it answer the others again, or,
    # its unlock's run taken to have answered them all (`released_still`), none
    body = str((payload.get("comment") or {}).get("body") or "")
    payload[STILL] = "\n\n".join(_lines_of(body, keys, ctx.command_reading))
    base = delivery.id.split(_OWED_ID, 1)[0]
    wait = max(ctx.commands.reply_refill_s, ctx.commands.installation_reply_refill_s)
    ctx.queue.enqueue(
        f"{base}{_OWED_ID}{runs}",
        delivery.event,
        payload.get("action"),
        payload,
        ref.repo,
        ref.number,
        utcnow(after_s=wait),
        by_bot=True,
    )
    return f"{len(keys)} kept command(s) owed, queued again"


_OWED_ID = "#owed"  # the id of a run `owe_again` queued: the release's run's, then this


def _lines_of(text: str, keys: set[Key], reading: Reading) -> list[str]:
    """The lines of `text` that each read as one of the commands `keys` alone."""
    return [line for line in text.splitlines() if _one_key(line, reading) in keys]


def owed(payload: dict[str, Any]) -> frozenset[Key] | None:
    """The kept commands a release's run left owed (`owe_again`), as their keys; None: the
    payload is no such run's."""
    keys = payload.get(OWED)
    return None if not isinstance(keys, list) else _keys(json.dumps(keys))


def _keys(stored: str | None) -> frozenset[Key]:
    """Command keys stored as a JSON list (`answered`, `released_still`), as stored: an
    older release's may key a command otherwise (`_all_as_read`)."""
    return frozenset((kind, tuple(args)) for kind, args in json.loads(stored or "[]"))


def _still_answered(
    row: sqlite3.Row | None, source: Source, reading: Reading | None
) -> frozenset[Key]:
    """The kept commands an edit's run answered (`mark_answered`) that stay so when the
    comment's newer text (`source`, met by a second lock) is kept over its row: the
    kept text is then the new one, from the text before the first lock, and the release
    would answer them again. Not those the edit adds itself: said again, they are owed.
    None of them without `reading` (their keys cannot be told)."""
    if row is None or reading is None:
        return frozenset()
    added = {c.key for c in reading.changed(source.old_body, source.body)}
    return frozenset(k for k in _keys(row["answered"]) if not _as_read(k, reading) & added)


def _as_read(key: Key, reading: Reading) -> frozenset[Key]:
    """A stored command key and what `reading` keys its command as now: a `topic`'s stored
    by a release that keyed it by its spelling (`prefix`, `caching`) is the topic it names
    (`prefix-caching`), read again from its words; a `wrong`'s stored by a release that
    keyed a list with the reason after it (`1,2`, `only`, `renames`) is the list alone
    (`1,2`), and one that read a note's id in quotes as a reason (`-vllm-0436d44c`, for
    `「vllm-0436d44c」`, and for `. vllm-0436d44c`, keyed so still) is that id too."""
    kind, args = key
    if kind not in ("topic", "wrong") or not args:
        return frozenset({key})
    said = [f"{kind} {' '.join(args)}"]
    if kind == "wrong" and len(args) == 1 and re.match(ID_PATTERN, args[0][1:]):
        said.append(f"wrong 「{args[0][1:]}」")  # (ids are ASCII: the key's casefold is theirs)
    read = {key}
    for text in said:
        commands = reading.parse(f"{reading.word} {text}")
        read |= {commands[0].key} if len(commands) == 1 else set()
    return frozenset(read)


def _with_typed(keys: set[Key], text: str, reading: Reading) -> set[Key]:
    """`keys` to store (`answered`, `released_still`), with each `wrong`'s arguments as
    `text` types them: the release before this one re-reads a stored key from its words
    (its `_as_read`) and keys `"2"` and `2 and 3` with a reason, so it finds such a
    `wrong` answered after a rollback, not to answer it again. This release reads them
    as the key (`_as_read`)."""
    typed = {
        (c.kind.value, tuple(a.casefold() for a in c.args))
        for c in reading.parse(text)
        if c.kind is Kind.WRONG and c.key in keys
    }
    return keys | typed


def _all_as_read(keys: frozenset[Key], reading: Reading) -> frozenset[Key]:
    """Stored command keys (`answered`, `released_still`) with what each reads as now."""
    return frozenset(k for key in keys for k in _as_read(key, reading))


def _with_deferred(
    row: sqlite3.Row | None, source: Source, payload: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The text to keep of the comment (`source`'s) and its delivery's payload: an edit
    said before one that left kept commands to the release (`defer`; its event ran
    first) keeps, above its text, the lines of those commands, lest the release, reading
    its text, take them for commands taken out, and none answer them. A blank line after
    each, as in `_with_taken_back`, so that its text reads as before."""
    deferred_at = None if row is None else row["deferred_at"]
    if row is None or deferred_at is None or not said_before(source.said_at, deferred_at):
        return source.body, payload
    body = "\n\n".join([*json.loads(row["deferred"] or "[]"), source.body])
    payload = copy.deepcopy(payload)
    payload.setdefault("comment", {})["body"] = body  # (the text the unlock's run reads)
    return body, payload


def _one_key(line: str, reading: Reading) -> Key | None:
    """The key of the command the line reads as, alone; None: none, or more than one."""
    commands = reading.parse(line)
    return commands[0].key if len(commands) == 1 else None

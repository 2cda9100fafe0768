"""The reactions a comment's commands get (`Reactions`), and the writes a run of them
makes (`Spent`).

`+1` follows once everything the comment asked for is done. A reaction GitHub refuses
fails the delivery once the rest is answered, so that its retry (`review-notes retry`)
adds it (see `Reactions`). GitHub has no reaction API for review bodies, so commands in a
review body are answered without reactions.

Both the answer (bot.command_answers) and the deferred update of the notes comment
(bot.command_updates) react, so these live on their own, below both.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.command_policy import TAKEN
from bot.context import BotContext
from bot.github_port import (
    Advisable,
    ClientClosed,
    ConversationLocked,
    GitHubError,
    NotInstalled,
    PRRef,
    never_sent,
    rate_limit_wait,
)

log = logging.getLogger(__name__)


class ReactionsFailed(Advisable):
    """Reactions GitHub did not take: the delivery fails with them so that a retry adds
    them. `advised` when a reaction's failure says what to do (`Advisable`), as its words
    are in the message."""


def _gone(exc: Exception) -> bool:
    """The comment to react on is no longer there (deleted meanwhile): nothing to retry.
    GitHub's 404 saying the App is not installed says nothing of the comment: a retry
    once it is installed again adds the reaction."""
    if isinstance(exc, NotInstalled):
        return False
    return isinstance(exc, GitHubError) and exc.status in (404, 410)


@dataclass
class Spent:
    """The content writes (github_facts §3.3: reactions, comments, edits) one run of a
    command delivery made on GitHub, or paid for in advance (the writes of a deferred
    update it is owed): what is kept of its reservation from the installation's write
    budget (`FloodControl.reserve_writes`); the rest goes back. A write tried and
    refused counts: GitHub may count it too; one a rate limit pause held back, never
    sent, does not (its re-run, uncounted while another call's limit lasts, would keep
    it again each time).

    And how far GitHub took the answer, for a lock met halfway (bot.command_answers):
    `heard`, its 👀 added (GitHub took it); `answered`, a reply of it posted, or its
    update begun (the lock leaves that owed to the unlock)."""

    writes: int = 0
    heard: bool = False
    answered: bool = False


class Reactions:
    """Reactions on comments, each added once.

    A failed one does not stop the answer (the comment update, the replies), but is
    kept: `check` then fails the delivery with it, so it shows in /healthz and a retry
    adds it; or, when GitHub rate limited it, raises that limit, so the worker puts the
    delivery back until then (GitHub does not redeliver). A re-run redoes no more than
    that: GitHub answers 200 for a reaction that exists, replies are found by their key,
    and an unchanged notes comment is not written. A reaction on a comment deleted
    meanwhile is moot and only logged; one the App not installed refused is not (`_gone`).
    """

    def __init__(self, ctx: BotContext, ref: PRRef, spent: Spent | None = None):
        self.ctx, self.ref = ctx, ref
        self.spent = spent or Spent()  # each reaction asked for is a write
        self._added: set[tuple[int, str]] = set()
        self.failed: list[str] = []  # "content on comment N: error", in order
        self.advised = False  # a failure's words say what to do (`Advisable`)
        self.limited: list[Exception] = []  # of those, GitHub's rate limits

    def add(self, comment_id: int | None, content: str | None, on_diff: bool = False) -> None:
        if comment_id is None or content is None or (comment_id, content) in self._added:
            return
        self._added.add((comment_id, content))
        self.spent.writes += 1
        try:
            self.ctx.github.add_reaction(self.ref, comment_id, content, on_diff=on_diff)
            # heard only once GitHub took the 👀: one it failed shows nothing (a lock met
            # next keeps the comment for an unlock that must add it)
            self.spent.heard |= content == TAKEN
        except ConversationLocked:
            raise  # locked since the event: nothing more can be said there (bot.dispatch)
        except Exception as exc:
            if never_sent(exc):  # held back, never connected, another server answered: no write
                self.spent.writes -= 1
            if isinstance(exc, ClientClosed):
                raise  # the server stops: no call can be made now, the run is handed back
            if _gone(exc):
                log.info("not reacting %s: comment %s is gone (%s)", content, comment_id, exc)
                return
            log.warning("reacting %s to comment %s failed: %s", content, comment_id, exc)
            self.failed.append(f"{content} on comment {comment_id}: {exc}")
            self.advised |= isinstance(exc, Advisable) and exc.advised
            if rate_limit_wait(exc) is not None:
                self.limited.append(exc)

    def check(self) -> None:
        """Fail the delivery if a reaction failed (call once the answer is given); put it
        back (raise the rate limit) if GitHub refused one for a while."""
        if self.limited:  # the longest wait: every reaction's limit is over by then
            raise max(self.limited, key=lambda e: rate_limit_wait(e) or 0.0)
        if self.failed:
            failed = "reacting failed: " + "; ".join(self.failed)
            raise ReactionsFailed(failed, advised=self.advised)

"""What a comment or review body gives its slash commands (`Source`): where they were
written, who wrote them, and what the event says about the PR.

The intake (bot.command_events) makes one from each event; the modules that run the
commands (bot.command_answers, bot.command_updates, bot.command_feedback) read it, and
bot.locked_commands keeps it for an unlock. It sits below them all, so none of them
imports the intake.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.command_policy import Actor


@dataclass(frozen=True)
class Source:
    """Where commands were written, and what the event says about the PR."""

    body: str
    old_body: str | None  # an edit: the text before it; None: a new comment or review
    comment_id: int | None  # the comment to react on; None for a review body
    actor: Actor  # who wrote (or edited) it
    pr_author: str
    pull: dict[str, Any]  # the PR as `facts_from_payload` reads it (no head: ask GitHub)
    on_diff: bool = False  # comment_id is a comment on a line of the diff, not an issue comment
    origin: str = ""  # `comment:ID`, `diff:ID` or `review:ID`: what a `wrong` mark remembers
    said_at: str | None = None  # when GitHub says its text was written (command_events.said_at)
    repo_id: int | None = None  # the repository's id (`repository.id`); None: not told
    heard: bool = False  # its 👀 shows: a kept comment's run that met the lock after it
    # a kept comment edited since (bot.locked_commands): only the kept commands this text,
    # the comment's at the unlock, still has are run; its edit's event runs the rest
    still: str | None = None
    # its payload says the conversation is not locked: the run releases the comment's kept
    # commands after its own (bot.command_events `_then_kept`), none meeting the lock
    said_unlocked: bool = False
    # a release's run queued again (bot.locked_commands `owe_again`): the keys of the kept
    # commands a budget left unanswered, run as the comment's text then still has them
    owed: frozenset[tuple[str, tuple[str, ...]]] | None = None

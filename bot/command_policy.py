"""Who may run which slash command, and what it may cost (pure): the reactions it
gets and the most content writes a comment's commands can make. The flood control
that spends those writes is `bot.flood_control`.

Reactions on the command's comment tell the user what happened:
`eyes` when a command is taken, `+1` when it is done, `confused` when it is
refused, unknown, or over the reply budget (or first over the installation's write
budget). Bots get nothing (no loops).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from bot.commands import Command, Kind

TAKEN = "eyes"
DONE = "+1"
REFUSED = "confused"

# Repository permissions (GET /repos/{o}/{r}/collaborators/{user}/permission) that may
# switch automatic updates off and on for someone else's PR, or hide its notes.
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
OWNER_KINDS = frozenset({Kind.OFF, Kind.ON, Kind.WRONG, Kind.RESTORE})


class Decision(StrEnum):
    ALLOW = "allow"
    REFUSE = "refuse"  # answered with `confused` and a short reply saying who may
    IGNORE = "ignore"  # not answered at all (another bot)


@dataclass(frozen=True)
class Actor:
    """Who wrote the comment: `sender.login` and whether `sender.type` is "Bot"."""

    login: str
    is_bot: bool = False

    @property
    def bot(self) -> bool:
        return self.is_bot or self.login.lower().endswith("[bot]")


def authorize(
    kind: Kind, actor: Actor, pr_author: str, permission_of: Callable[[str], str]
) -> Decision:
    """May `actor` run `kind` on a PR opened by `pr_author`?

    `permission_of(login)` is called only when the answer depends on it (off/on,
    wrong/restore by someone other than the author), so most commands cost no API call.
    """
    if actor.bot:
        return Decision.IGNORE
    if kind not in OWNER_KINDS:
        return Decision.ALLOW
    if pr_author and actor.login.casefold() == pr_author.casefold():
        return Decision.ALLOW
    permission = (permission_of(actor.login) or "none").lower()
    return Decision.ALLOW if permission in WRITE_PERMISSIONS else Decision.REFUSE


def needs_reply(command: Command, decision: Decision) -> bool:
    """Answered by a reply comment (its own, or the comment's one reply to what it could
    not do), not by the sticky comment."""
    return decision is Decision.REFUSE or not command.kind.updates_sticky


def first_reaction(command: Command, decision: Decision) -> str | None:
    """The reaction to add as soon as the command is judged; None for bots."""
    if decision is Decision.IGNORE:
        return None
    if decision is Decision.REFUSE or command.kind is Kind.UNKNOWN:
        return REFUSED
    return TAKEN


def most_writes(judged: Sequence[tuple[Command, Decision]], *, reacts: bool) -> int:
    """The most content writes (github_facts §3.3) the judged commands of one comment
    can make, whatever their answers turn out to be: its reactions (👀, 😕, 👍, each
    at most once; none on a review body), a reply per reply command, ONE reply to those
    it could not do (unknown, refused, or a `wrong` naming no note shown), and ONE write
    of the notes comment (a deferred update's included: it is paid for now). Never more
    than `bot.commands.most_comment_writes(len(judged))`."""
    ran = [c.kind for c, d in judged if d is Decision.ALLOW]
    replies = sum(1 for k in ran if not k.updates_sticky and k is not Kind.UNKNOWN)
    errors = any(d is Decision.REFUSE for _, d in judged) or any(
        k in (Kind.UNKNOWN, Kind.WRONG) for k in ran
    )
    sticky = any(k.updates_sticky for k in ran)
    return (3 if reacts else 0) + replies + errors + sticky

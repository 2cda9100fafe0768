"""Who may run which slash command, and what it may cost (pure): the reactions it
gets and the most content writes a comment's commands can make. The flood control
that spends those writes is `bot.flood_control`.

Reactions on the command's comment tell the user what happened:
`eyes` when a command is taken, `+1` when it is done, `confused` when it is
refused, unknown, or over the reply budget (or first over the installation's write
budget). Bots get nothing (no loops).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
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
    if not asks_permission(kind, actor, pr_author):
        return Decision.ALLOW
    permission = (permission_of(actor.login) or "none").lower()
    return Decision.ALLOW if permission in WRITE_PERMISSIONS else Decision.REFUSE


def asks_permission(kind: Kind, actor: Actor, pr_author: str) -> bool:
    """Whether `authorize` asks GitHub for `actor`'s permission to run `kind`: the one
    answer that can change between two runs of a delivery (write access granted or
    taken away meanwhile). Every other decision reads the payload alone."""
    if actor.bot or kind not in OWNER_KINDS:
        return False
    return not (pr_author and actor.login.casefold() == pr_author.casefold())


# A delivery's decisions, as its first run made them: by the command's place among the
# commands it runs and its kind (a place holding another kind is judged anew).
Judged = Mapping[tuple[int, Kind], Decision]


def judge(
    commands: Sequence[Command],
    actor: Actor,
    pr_author: str,
    permission_of: Callable[[str], str],
    recorded: Judged,
) -> list[Decision]:
    """Each command's decision. A command is judged once, at its delivery's first run:
    a re-run (a retry, a put-back) that finds its decision `recorded` finishes it (the
    👍, the reply it owes) as first judged, however its author's permission changed
    since: a command that took effect is never answered as refused, nor one refused
    let run. The rest are judged now (`authorize`); `to_record` says which to keep."""
    return [
        recorded.get((i, c.kind)) or authorize(c.kind, actor, pr_author, permission_of)
        for i, c in enumerate(commands)
    ]


def to_record(
    commands: Sequence[Command], decisions: Sequence[Decision], actor: Actor, pr_author: str
) -> dict[tuple[int, Kind], Decision]:
    """The decisions a re-run must find (`judge`): those that asked GitHub for the
    author's permission, which a re-run could answer otherwise; the rest it makes again
    as they were, at no cost."""
    return {
        (i, c.kind): d
        for i, (c, d) in enumerate(zip(commands, decisions, strict=True))
        if asks_permission(c.kind, actor, pr_author)
    }


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

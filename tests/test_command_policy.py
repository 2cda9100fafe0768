"""Who may run which command, the reactions, and the most a comment can write (its flood
control: tests/test_flood_control.py)."""

import pytest

from bot.command_policy import (
    DONE,
    REFUSED,
    TAKEN,
    Actor,
    Decision,
    asks_permission,
    authorize,
    first_reaction,
    judge,
    most_writes,
    needs_reply,
    to_record,
)
from bot.commands import Command, Kind, most_comment_writes


class Permissions:
    """permission_of(login) that records whether it was asked."""

    def __init__(self, table: dict[str, str]):
        self.table = table
        self.asked: list[str] = []

    def __call__(self, login: str) -> str:
        self.asked.append(login)
        return self.table.get(login, "none")


PERMS = {
    "ada": "admin",
    "max": "maintain",
    "wes": "write",
    "tri": "triage",
    "rea": "read",
    "nob": "none",
}


@pytest.mark.parametrize(
    "login, kind, expected",
    [
        # off/on: the PR author, or write access and above
        ("author", Kind.OFF, Decision.ALLOW),
        ("AUTHOR", Kind.ON, Decision.ALLOW),  # logins are case-insensitive
        ("ada", Kind.OFF, Decision.ALLOW),
        ("max", Kind.OFF, Decision.ALLOW),
        ("wes", Kind.ON, Decision.ALLOW),
        ("tri", Kind.OFF, Decision.REFUSE),
        ("rea", Kind.OFF, Decision.REFUSE),
        ("nob", Kind.ON, Decision.REFUSE),
        ("stranger", Kind.OFF, Decision.REFUSE),
        # wrong/restore hide or show notes for everyone: the same rule as off/on
        ("author", Kind.WRONG, Decision.ALLOW),
        ("wes", Kind.RESTORE, Decision.ALLOW),
        ("tri", Kind.WRONG, Decision.REFUSE),
        ("nob", Kind.RESTORE, Decision.REFUSE),
        # everything else: anyone
        ("stranger", Kind.REFRESH, Decision.ALLOW),
        ("rea", Kind.WHY, Decision.ALLOW),
        ("nob", Kind.TOPIC, Decision.ALLOW),
        ("nob", Kind.SEARCH, Decision.ALLOW),
        ("nob", Kind.HELP, Decision.ALLOW),
        ("nob", Kind.UNKNOWN, Decision.ALLOW),
    ],
)
def test_permissions_table(login, kind, expected):
    assert authorize(kind, Actor(login), "author", Permissions(PERMS)) is expected


@pytest.mark.parametrize("kind", list(Kind))
def test_bots_are_ignored_whatever_they_ask(kind):
    perms = Permissions({"ci-bot[bot]": "admin", "robot": "admin"})
    assert authorize(kind, Actor("ci-bot[bot]"), "author", perms) is Decision.IGNORE
    assert authorize(kind, Actor("robot", is_bot=True), "robot", perms) is Decision.IGNORE
    assert perms.asked == []


def test_permission_is_asked_only_when_it_decides():
    perms = Permissions(PERMS)
    for kind in (Kind.REFRESH, Kind.WHY, Kind.SEARCH, Kind.TOPIC, Kind.HELP):
        authorize(kind, Actor("wes"), "author", perms)
    authorize(Kind.OFF, Actor("author"), "author", perms)
    assert perms.asked == []
    authorize(Kind.OFF, Actor("wes"), "author", perms)
    assert perms.asked == ["wes"]


def test_unknown_permission_string_is_not_write():
    assert authorize(Kind.OFF, Actor("x"), "author", lambda _: "") is Decision.REFUSE
    assert authorize(Kind.OFF, Actor("x"), "author", lambda _: "WRITE") is Decision.ALLOW


def test_empty_author_matches_nobody():
    assert authorize(Kind.OFF, Actor(""), "", lambda _: "read") is Decision.REFUSE


def test_asks_permission_exactly_when_authorize_asks_github():
    for login in ("author", "AUTHOR", "wes", "nob", "ci-bot[bot]"):
        for kind in Kind:
            perms = Permissions(PERMS)
            authorize(kind, Actor(login), "author", perms)
            assert asks_permission(kind, Actor(login), "author") == bool(perms.asked), (login, kind)
    assert not asks_permission(Kind.OFF, Actor("robot", is_bot=True), "author")


def _lines(*kinds: Kind) -> list[Command]:
    return [Command(k) for k in kinds]


def test_a_command_recorded_is_judged_as_recorded_without_asking_again():
    # a writer's `on` allowed at the first run; write access taken away since
    commands = _lines(Kind.REFRESH, Kind.ON, Kind.WRONG)
    perms = Permissions({"wes": "read"})
    recorded = {(1, Kind.ON): Decision.ALLOW}
    decisions = judge(commands, Actor("wes"), "author", perms, recorded)
    assert decisions == [Decision.ALLOW, Decision.ALLOW, Decision.REFUSE]
    assert perms.asked == ["wes"]  # for the `wrong` the first run did not judge
    # a refusal recorded stays one, write access granted since
    refused = {(1, Kind.ON): Decision.REFUSE}
    assert (
        judge(commands, Actor("wes"), "author", Permissions(PERMS), refused)[1] is Decision.REFUSE
    )


def test_a_record_of_another_kind_at_the_place_is_not_this_commands():
    commands = _lines(Kind.OFF)
    recorded = {(0, Kind.ON): Decision.ALLOW, (1, Kind.OFF): Decision.ALLOW}
    assert judge(commands, Actor("rea"), "author", Permissions(PERMS), recorded) == [
        Decision.REFUSE
    ]


def test_only_the_decisions_github_answered_are_recorded():
    commands = _lines(Kind.HELP, Kind.OFF, Kind.RESTORE)
    actor = Actor("tri")
    decisions = judge(commands, actor, "author", Permissions(PERMS), {})
    assert to_record(commands, decisions, actor, "author") == {
        (1, Kind.OFF): Decision.REFUSE,
        (2, Kind.RESTORE): Decision.REFUSE,
    }
    author = Actor("author")  # the PR's author: allowed by the payload alone
    allowed = judge(commands, author, "author", Permissions(PERMS), {})
    assert to_record(commands, allowed, author, "author") == {}


@pytest.mark.parametrize(
    "kind, decision, reaction",
    [
        (Kind.REFRESH, Decision.ALLOW, TAKEN),
        (Kind.SEARCH, Decision.ALLOW, TAKEN),
        (Kind.UNKNOWN, Decision.ALLOW, REFUSED),
        (Kind.OFF, Decision.REFUSE, REFUSED),
        (Kind.OFF, Decision.IGNORE, None),
    ],
)
def test_first_reaction(kind, decision, reaction):
    assert first_reaction(Command(kind), decision) == reaction


def test_reaction_names_are_githubs():
    valid = {"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"}
    assert {TAKEN, DONE, REFUSED} <= valid


# --- every write a command causes is paid from the installation's budget ---


def judged(*kinds: Kind, decision: Decision = Decision.ALLOW) -> list[tuple[Command, Decision]]:
    return [(Command(k), decision) for k in kinds]


def test_most_writes_bounds_what_one_comment_can_write():
    """👀, 😕 and 👍 at most once each on the comment, a reply per reply command, one
    reply to what could not be done, one write of the notes comment."""
    assert most_writes(judged(Kind.HELP), reacts=True) == 4  # writes 3: 👀, reply, 👍
    assert most_writes(judged(Kind.REFRESH), reacts=True) == 4  # 👀, the edit, 👍
    assert most_writes(judged(Kind.REFRESH), reacts=False) == 1  # a review: no reactions
    assert most_writes(judged(Kind.UNKNOWN), reacts=True) == 4  # 😕 and one reply
    assert most_writes(judged(Kind.OFF, decision=Decision.REFUSE), reacts=True) == 4
    # a `wrong` ends in the notes comment's edit or in the reply naming what it can name
    assert most_writes(judged(Kind.WRONG), reacts=True) == 5
    # several sticky commands: one edit; several unknown ones: one reply
    assert most_writes(judged(Kind.REFRESH, Kind.WHY, Kind.UNKNOWN, Kind.UNKNOWN), reacts=True) == 5
    five = judged(Kind.HELP, Kind.TOPIC, Kind.SEARCH, Kind.HELP, Kind.WRONG)
    assert most_writes(five, reacts=True) == 9 == most_comment_writes(5)


# kills: bot/command_policy.py:most_writes the reply to what was not done paid only if all were
# refused
def test_one_refused_command_beside_a_refresh_pays_for_the_reply_saying_so():
    comment = [(Command(Kind.REFRESH), Decision.ALLOW), (Command(Kind.OFF), Decision.REFUSE)]
    # 👀 😕 👍, the notes comment's edit, and the reply saying who may switch updates off
    assert most_writes(comment, reacts=True) == 5


# kills: bot/command_policy.py:needs_reply needs_reply's `or` made `and`, its `not` dropped, or None
@pytest.mark.parametrize(
    "kind, decision, reply",
    [
        (Kind.SEARCH, Decision.ALLOW, True),  # answered by its own reply
        (Kind.HELP, Decision.ALLOW, True),
        (Kind.UNKNOWN, Decision.ALLOW, True),  # the reply to what could not be done
        (Kind.REFRESH, Decision.ALLOW, False),  # answered by the notes comment
        (Kind.OFF, Decision.ALLOW, False),
        (Kind.OFF, Decision.REFUSE, True),  # the reply saying who may
        (Kind.SEARCH, Decision.REFUSE, True),
    ],
)
def test_which_commands_are_answered_by_a_reply(kind, decision, reply):
    assert needs_reply(Command(kind), decision) is reply

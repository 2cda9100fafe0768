"""bot.files_recheck's reading of the PR's state: whether the list it holds is short of
the PR's files at its head (then a command's update looks again), and whether the
comment shows the notes a command asked for under a paused line (then shown again).
End to end, with the fake's lag: tests/test_command_updates.py."""

from __future__ import annotations

import pytest

from bot.files_recheck import short_at_head
from bot.prfacts import PRFacts
from bot.prstate import PRState

HEAD = "b" * 40


def _pr(changed: int | None, head: str = HEAD) -> PRFacts:
    return PRFacts(repo="o/r", number=1, title="t", head_sha=head, changed_files=changed)


def _held(listed: int | None, at: str | None = HEAD) -> PRState:
    return PRState(repo="o/r", number=1, files_sha=at, files=("a.py",), files_listed=listed)


@pytest.mark.parametrize(
    ("state", "facts", "short"),
    [
        (_held(0), _pr(2), True),  # GitHub's list lags the push
        (_held(2), _pr(2), False),  # the whole list
        (_held(0, at="a" * 40), _pr(2), False),  # another head's: a push's event looks
        (_held(None), _pr(2), False),  # a list given by hand, no count of GitHub's
        (_held(0), _pr(None), False),  # no count of the PR's to hold it to
        (_held(0, at=""), _pr(2, head=""), False),  # no head known: nothing to hold
    ],
)
def test_a_list_is_short_at_the_head_only_by_github_s_count_of_that_head(state, facts, short):
    assert short_at_head(state, facts) is short

"""The sticky comment's decisions on plain data (bot.comment_plan), branch by branch."""

from __future__ import annotations

import pytest

from bot.comment_plan import Skip, skip_reason
from bot.prstate import PRState

PR = PRState("vllm-project/vllm", 7001)
POSTED = PRState("vllm-project/vllm", 7001, comment_id=11, body_hash="h1")
OFF = PRState("vllm-project/vllm", 7001, comment_id=11, body_hash="h1", opted_out=True)

# every gate open: the PR is matched
GO = dict(force=False, stale=False, closed=False, draft_waits=False, paused_by_pr=False)

# (state, what differs from GO, the gate that holds); the first to hold wins
GATES = [
    (POSTED, {}, None),
    (PR, {"stale": True}, Skip.STALE),
    (OFF, {"stale": True}, Skip.STALE),
    (OFF, {}, Skip.OPTED_OUT),
    (OFF, {"closed": True}, Skip.OPTED_OUT),
    (POSTED, {"closed": True}, Skip.CLOSED),
    (POSTED, {"closed": True, "draft_waits": True}, Skip.CLOSED),
    (PR, {"draft_waits": True}, Skip.DRAFT),
    (PR, {"draft_waits": True, "paused_by_pr": True}, Skip.DRAFT),
    # a draft with a comment already posted: it is kept up to date
    (POSTED, {"draft_waits": True}, None),
    (POSTED, {"draft_waits": True, "paused_by_pr": True}, Skip.PAUSED_BY_PR),
    (PR, {"paused_by_pr": True}, Skip.PAUSED_BY_PR),
    # a human asking passes every gate
    (OFF, {k: True for k in GO}, None),
    (PR, {"force": True, "draft_waits": True}, None),
]


@pytest.mark.parametrize(("state", "differs", "gate"), GATES)
def test_the_first_gate_that_holds_names_why_the_comment_is_left(state, differs, gate):
    assert skip_reason(state, **{**GO, **differs}) is gate


def test_a_gate_gives_the_reason_as_it_always_read():
    # these reach the PR's delivery log and `/healthz` as they were
    assert [str(s) for s in Skip if s not in (Skip.STALE, Skip.PAUSED_BY_PR)] == [
        "opted out on this pull request",
        "the pull request is closed",
        "draft: waiting for ready_for_review",
    ]

"""The sticky comment's decisions on plain data (bot.comment_plan), branch by branch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.comment_plan import (
    Skip,
    Write,
    deleted_by_maintainer,
    deletion_ignored,
    plan_write,
    skip_reason,
)
from bot.prstate import PRState

PR = PRState("vllm-project/vllm", 7001)
POSTED = PRState("vllm-project/vllm", 7001, comment_id=11, body_hash="h1")
OFF = PRState("vllm-project/vllm", 7001, comment_id=11, body_hash="h1", opted_out=True)
# the comment says `/notes off` paused it: still off, or on again (an `on`'s write to come)
SAYS_OFF = replace(OFF, paused="command")
SAYS_OFF_ON_AGAIN = replace(SAYS_OFF, opted_out=False)

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
    # a closed PR's comment saying `/notes off` paused it, updates on again: it is matched
    # (its paused line would ask for the `on` just said); still off, or paused by a label
    (SAYS_OFF_ON_AGAIN, {"closed": True}, None),
    (SAYS_OFF, {"closed": True}, Skip.OPTED_OUT),
    (replace(SAYS_OFF_ON_AGAIN, paused="label"), {"closed": True}, Skip.CLOSED),
    (SAYS_OFF_ON_AGAIN, {"closed": True, "paused_by_pr": True}, Skip.PAUSED_BY_PR),
    # kills: bot/comment_plan.py:outdated_pause a write unconfirmed (the `off`'s, its answer
    #        lost: the comment may say paused), then `on`: matched; with no `on`, left alone
    (replace(POSTED, unconfirmed=True, body_hash=None, resumed_at="11:"), {"closed": True}, None),
    (replace(POSTED, unconfirmed=True, body_hash=None), {"closed": True}, Skip.CLOSED),
    # kills: bot/comment_plan.py:skip_reason hand: the draft gate asked before the closed one
    (PR, {"closed": True, "draft_waits": True}, Skip.CLOSED),
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


# the write, by what the state knows of the comment
UNCONFIRMED = PRState("vllm-project/vllm", 7001, unconfirmed=True)  # a write not confirmed
POSTED_UNCONFIRMED = PRState(
    "vllm-project/vllm", 7001, comment_id=11, body_hash="h1", unconfirmed=True
)
# `/notes on` counted, the comment as it was then (11, "h1"): not yet found again
RESUMED = PRState("vllm-project/vllm", 7001, comment_id=11, body_hash="h1", resumed_at="11:h1")
RESUMED_NONE = PRState("vllm-project/vllm", 7001, resumed_at="0:")  # none known then

# what differs from this: notes match, the body is new, a PR event, no draft waiting
NEW = dict(matched=True, body_hash="h2", force=False, draft_waits=False, closed=False)

# (state, what differs from NEW, the write)
WRITES = [
    # a PR that never matched gets no comment
    (PR, {"matched": False}, Write.NONE),
    # ... unless a write to it may have landed (ask GitHub), or a human asks
    (UNCONFIRMED, {"matched": False}, Write.EDIT),
    (PR, {"matched": False, "force": True}, Write.CREATE),
    # notes first match: post the comment
    (PR, {}, Write.CREATE),
    (UNCONFIRMED, {}, Write.CREATE),
    # the body we last posted: no call
    (POSTED, {"body_hash": "h1"}, Write.UNCHANGED),
    (POSTED, {"body_hash": "h1", "matched": False}, Write.UNCHANGED),
    # a hash with no comment id is no comment to leave as it is
    (replace(POSTED, comment_id=None), {"body_hash": "h1"}, Write.CREATE),
    # ... unless a write since is unconfirmed (GitHub may show another text), or forced
    (POSTED_UNCONFIRMED, {"body_hash": "h1"}, Write.EDIT),
    (POSTED, {"body_hash": "h1", "force": True}, Write.CREATE),
    # a new body: edit ours; one found gone is not posted again (it was deleted)
    (POSTED, {}, Write.EDIT),
    (POSTED, {"matched": False}, Write.EDIT),  # "no note matches any more"
    (POSTED, {"force": True}, Write.CREATE),
    (POSTED, {"force": True, "matched": False}, Write.CREATE),
    # after `/notes on` the comment may be gone: posted anew as for a new PR...
    (RESUMED, {}, Write.CREATE),
    (RESUMED, {"body_hash": "h1"}, Write.CREATE),  # not trusted: the call finds out
    (RESUMED_NONE, {}, Write.CREATE),
    # ... where a draft waits, and where nothing matches there is nothing to post
    (RESUMED, {"draft_waits": True}, Write.EDIT),
    (RESUMED, {"matched": False}, Write.EDIT),
    (RESUMED_NONE, {"matched": False}, Write.EDIT),
    (RESUMED, {"draft_waits": True, "force": True}, Write.CREATE),
    # a draft waiting: only a new PR's gate (skip_reason); a posted comment is kept up
    (POSTED, {"draft_waits": True}, Write.EDIT),
    (PR, {"draft_waits": True}, Write.CREATE),
    # a closed PR: its comment is edited, never posted anew (it would notify everyone)...
    (RESUMED, {"closed": True}, Write.EDIT),
    (RESUMED_NONE, {"closed": True}, Write.EDIT),
    (PR, {"closed": True}, Write.EDIT),
    (POSTED, {"closed": True, "body_hash": "h1"}, Write.UNCHANGED),
    # ... unless a human asks
    (RESUMED, {"closed": True, "force": True}, Write.CREATE),
]


@pytest.mark.parametrize(("state", "differs", "write"), WRITES)
def test_the_write_a_refresh_makes(state, differs, write):
    assert plan_write(state, **{**NEW, **differs}) is write


def test_the_states_above_are_what_they_are_named():
    # the table leans on PRState's own reading of these
    assert PR.trusted and POSTED.trusted
    assert not UNCONFIRMED.trusted and not POSTED_UNCONFIRMED.trusted
    assert RESUMED.resumed and RESUMED_NONE.resumed
    assert not RESUMED.trusted and not RESUMED_NONE.trusted


# a write that finds no comment of ours: deleted by a maintainer, or never there?
GONE = [
    (POSTED, True),  # posted and confirmed: deleted ("go away": updates go off)
    (POSTED_UNCONFIRMED, True),  # an edit not confirmed still names a comment posted
    (UNCONFIRMED, False),  # a create never confirmed: it did not land
    (PR, False),
    (RESUMED, False),  # after `/notes on`: posted anew, not a new opt-out
    (RESUMED_NONE, False),
]


@pytest.mark.parametrize(("state", "deleted"), GONE)
def test_a_comment_found_gone_was_deleted_only_if_one_was_posted_and_no_on_came_since(
    state, deleted
):
    assert deleted_by_maintainer(state) is deleted


# GitHub's word that a comment opening with our marker was deleted (bot.deletion_events),
# said at order key "T/~": (state, comment deleted, our account wrote it, counted)
AT = "2026-09-01T10:00:05Z/~"
SWITCHED_BEFORE = replace(POSTED, switched_at="2026-09-01T10:00:04Z/00000000000000000009")
SWITCHED_AFTER = replace(POSTED, switched_at="2026-09-01T10:00:06Z/00000000000000000009")
DELETIONS = [
    (POSTED, 11, True, True),  # the comment known, by us: updates off
    (POSTED, 11, False, True),  # known, though GitHub names another author (a renamed App)
    (UNCONFIRMED, 12, True, True),  # a create whose answer was lost: none known, by us
    (PR, 12, True, True),  # a state that knows none (lost, or dropped)
    (RESUMED, 11, True, True),  # deleted after the `on` that counted: a new "go away"
    (SWITCHED_BEFORE, 11, True, True),
    (PR, 12, False, False),  # none known, not by us: a person's copy of our text
    (POSTED, 12, False, False),  # another comment, a person's
    (POSTED, 12, True, False),  # a second notes comment of ours: 11 is kept
    (SWITCHED_AFTER, 11, True, False),  # an `off`/`on` said after it decides
]


@pytest.mark.parametrize(("state", "comment_id", "by_us", "counted"), DELETIONS)
def test_a_deletion_github_tells_of_turns_updates_off_only_for_our_notes_comment(
    state, comment_id, by_us, counted
):
    why = deletion_ignored(state, comment_id, by_us=by_us, by_our_account=False, said=AT)
    assert (why is None) is counted


# deleted by the bot's account (a token's: the bot, or its owner as a person): the bot
# deletes only its second copies, so the one kept, confirmed, is the owner's doing
BY_OUR_ACCOUNT = [
    (POSTED, 11, True),  # the one kept: the owner deleted it
    (RESUMED, 11, True),
    (POSTED, 12, False),  # a second copy: the bot converging
    (PR, 12, False),  # none known: it may have been the bot's second copy
    (replace(POSTED, unconfirmed=True), 11, False),  # a write under way may have converged
    (replace(SWITCHED_AFTER, opted_out=True), 11, False),  # an `off`/`on` after it decides
]


# kills: bot/comment_plan.py:deletion_ignored the bot's account's deletions all taken for the
#   bot's (a token owner's deletion of the notes comment ignored), or none
@pytest.mark.parametrize(("state", "comment_id", "counted"), BY_OUR_ACCOUNT)
def test_a_deletion_by_the_bots_account_counts_only_of_the_comment_it_keeps(
    state, comment_id, counted
):
    why = deletion_ignored(state, comment_id, by_us=True, by_our_account=True, said=AT)
    assert (why is None) is counted


def test_a_deletion_not_counted_says_why():
    reasons = [
        deletion_ignored(PR, 12, by_us=False, by_our_account=False, said=AT),
        deletion_ignored(POSTED, 12, by_us=True, by_our_account=False, said=AT),
        deletion_ignored(PR, 12, by_us=True, by_our_account=True, said=AT),
        deletion_ignored(SWITCHED_AFTER, 11, by_us=True, by_our_account=False, said=AT),
    ]
    assert reasons == [
        "not our notes comment (a copy of its text)",
        "a second notes comment of ours; 11 is the one kept",
        "deleted by the bot's account, the comment it keeps not known: taken for its own",
        "a `/notes off` or `on` said after the deletion decides",
    ]

# ruff: noqa: F811  (`live` is a fixture imported from test_command_events)
"""Known defects, proven and not yet fixed (found by a review of session 13's change,
fe7794a..c7dbfbb). Each is a strict xfail: fixing one makes its test pass, which fails
the suite until the mark is removed and the test moves beside its subject."""

from __future__ import annotations

import pytest

from tests.fake_github import DEFAULT_REPO
from tests.test_command_events import (  # noqa: F401  (live: the fixture)
    N,
    comment_payload,
    fail_the_done_reaction,
    live,
    reactions,
    say,
    state,
    sticky,
    tune,
)
from tests.webhook_kit import (
    deliver_pr,
    drain,
    labeled_one_more_note,
    post,
)


def _maintainer_deletes(fake, comment) -> None:
    with fake._lock:  # in the web UI
        del fake._comments[comment.id]


@pytest.mark.xfail(
    strict=True,
    reason="a deletion opt-out records no switched_at: an older /notes on re-run outranks it",
)
def test_a_notes_on_said_before_the_deletion_and_retried_posts_the_comment_again(live):
    # `/notes on` is handled but its 👍 fails (new: the delivery fails). A maintainer then
    # deletes the notes comment: the next PR event opts the PR out ("go away", as
    # `/notes off`). `review-notes retry` re-runs the old `on`: said before the deletion,
    # it must change nothing, yet it turns updates on again and posts a NEW comment
    # (a notification to everyone) on the PR whose comment was deleted.
    client, rt, fake = live
    c0 = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    post(client, "issue_comment", comment_payload(c0))
    drain(rt)
    first = sticky(fake)
    assert first is not None
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login="pr-author")
    fail_the_done_reaction(fake, on)
    post(client, "issue_comment", comment_payload(on))
    drain(rt)
    assert rt.queue.counts()["failed"] == 1 and reactions(fake, on) == {"eyes"}
    _maintainer_deletes(fake, first)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2030-01-01T00:00:05Z"))
    assert state(rt).opted_out and sticky(fake) is None  # the deletion is a `/notes off`
    assert rt.queue.retry() != []  # the operator retries the failed `on` for its 👍
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert sticky(fake) is None, "a comment was posted again after a maintainer deleted it"
    assert state(rt).opted_out


@pytest.mark.xfail(
    strict=True,
    reason="/notes on's refresh finds the deleted comment gone and opts the PR out again",
)
def test_notes_on_after_off_and_a_deletion_resumes_the_updates(live):
    # `/notes off` (the comment says paused), a maintainer then deletes the comment, and
    # the author says `/notes on`. README: "`/notes on` resumes the updates (a new
    # comment as soon as notes match)". The `on` runs a PR-event refresh, which finds
    # the comment (known since before the `off`) gone and takes that for a NEW opt-out:
    # the PR is off again right after `on`, nothing is posted, and `on` got its 👍.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = sticky(fake)
    say(client, rt, fake, "/notes off", login="pr-author")
    assert state(rt).opted_out and "paused" in sticky(fake).body
    _maintainer_deletes(fake, first)
    on = say(client, rt, fake, "/notes on", login="pr-author")
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out, "`/notes on` said after the deletion left the PR off"
    assert sticky(fake) is not None  # notes match: a new comment

"""Defects found by review 'r19b' (a mutation run of the shell modules): each test fails
on the code as it is, and shows what is wrong."""

from __future__ import annotations

from bot.sticky import refresh_sticky
from tests.test_sticky import REF, SHA1, facts
from tests.test_sticky import ctx as ctx  # noqa: F401 (the fixture)
from tests.webhook_kit import MATCHING_FILES, UNRELATED_TITLE


def test_a_command_after_a_retarget_matches_the_new_diff_not_the_old_bases_files(ctx):
    """A retarget (`edited` with `changes.base`) clears `files_sha` so that the files are
    listed again: the diff is against another base now (bot/pr_events.py). When that
    event's own refresh stops early (the PR is opted out, closed, or a draft waiting),
    the next `/notes` has no head SHA in its payload and `_with_files` falls back to
    `state.files`, the OLD base's list, meant only for a PR whose head was never seen.
    It matches on it and caches it as the head's files (`files_sha` = the head again),
    so every later event on that head matches the stale diff too, until a push."""
    ctx.github.files = MATCHING_FILES
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA1))
    ctx.prs.update(REF.repo, REF.number, opted_out=True)  # `/notes off`
    # retargeted: the new base's diff has no file a note names; pr_events clears the
    # cached files' head, and the event's refresh stops at the opt-out
    ctx.github.files = ["docs/contributing.md"]
    ctx.prs.update(REF.repo, REF.number, files_sha=None)
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA1))
    asked = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=""), force=True)  # `/notes`
    assert ctx.github.counted["list_files"] == 2, "the new base's diff was never listed"
    assert asked.notes == ()

"""The changed-file cache on a busy day (review r23c): force-push storms delivered out
of order and a retarget raced by a label, driven through the real app (signed webhooks,
the SQLite queue, its workers, the real GitHub client) against the loopback fake GitHub.
A PR's files are cached under the commit GitHub listed them at and the base branch they
are the diff against (bot/sticky.py `_with_files`, bot/prstate.py `PRState.files_for`);
the newest event is matched on the files GitHub lists for it.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.github_client import _listed_at
from bot.markers import MARKER
from bot.prstate import PRState
from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_REPO
from tests.test_command_events import comment_payload
from tests.webhook_kit import (
    MATCHING_FILES,
    UNRELATED_TITLE,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    post,
    serving,
)

BOT = f"{DEFAULT_APP_SLUG}[bot]"
UNRELATED_FILES = ["docs/contributing.md"]
A, B = "a" * 40, "b" * 40


@pytest.fixture
def live(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    settings = app_settings(
        tmp_path, fake_github, app_key, retry_backoff=0.01, max_retries=2, workers=3
    )
    with serving(settings) as (client, rt):
        yield client, rt, fake_github


def ours(fake, number):
    return [c for c in fake.comments(DEFAULT_REPO, number) if c.user.login == BOT]


def test_a_force_push_back_to_an_earlier_head_is_matched_on_that_head_s_files(live):
    """A force-push storm: head A is pushed, then B, then A again (`git push -f` of the
    commit before a bad rebase). The `opened` of head A is handled while GitHub already
    shows head B (the push came seconds later, while the delivery waited in the queue),
    so GitHub lists B's files (a docs change), and the bot caches them as head A's. The
    `synchronize` back to A arrives before B's (GitHub does not promise their order):
    its head A hits the cache, so it is matched on B's files; B's `synchronize`, older,
    is stale. A's files match a note, yet the PR gets no comment at all, and even a
    `/notes` refresh ("match the PR again now") reads the same cache and says no note
    matches. The newest event did not win. Cause: the cache is keyed by the head SHA the
    event (or the GET of the PR) names, not by the head GitHub listed the files for
    (bot/sticky.py `_with_files`, bot/prstate.py `PRState.files_for`)."""
    client, rt, fake = live
    n = 8101
    # GitHub is at head B already when `opened` (head A) is handled
    fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE).head_sha = B
    deliver_pr(
        client,
        rt,
        number=n,
        title=UNRELATED_TITLE,
        head_sha=A,
        updated_at="2026-09-01T10:00:00Z",
    )
    # force-pushed back to A: GitHub lists A's files again
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    deliver_pr(
        client,
        rt,
        number=n,
        action="synchronize",
        title=UNRELATED_TITLE,
        head_sha=A,
        updated_at="2026-09-01T10:00:20Z",
    )
    # B's push, delivered last, is older than A's return: stale
    deliver_pr(
        client,
        rt,
        number=n,
        action="synchronize",
        title=UNRELATED_TITLE,
        head_sha=B,
        updated_at="2026-09-01T10:00:10Z",
    )
    assert rt.queue.counts()["failed"] == 0
    # what a PR with A's files and this title gets when nothing races
    fresh = 8102
    fake.add_pull(DEFAULT_REPO, fresh, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    deliver_pr(client, rt, number=fresh, title=UNRELATED_TITLE, head_sha=A)
    (want,) = ours(fake, fresh)
    assert want.body.startswith(MARKER) and "kv\\_cache\\_coordinator.py" in want.body
    assert [c.body for c in ours(fake, n)] == [want.body]


def test_a_force_push_back_then_notes_refresh_still_matches_the_wrong_files(live):
    """The same force-push storm (A, then B, then back to A), seen from a reviewer:
    `opened` (head A) was handled while GitHub showed head B, so B's files were cached as
    A's. With GitHub back at A, the reviewer says `/notes`, which README promises will
    "match the PR again now": the refresh GETs the PR (head A), takes the "cached" list
    (B's docs change) and answers that no note matches, where A's files match one. The
    one command meant to repair a stale comment cannot (bot/sticky.py `_with_files`)."""
    client, rt, fake = live
    n = 8111
    fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE).head_sha = B
    deliver_pr(
        client,
        rt,
        number=n,
        title=UNRELATED_TITLE,
        head_sha=A,
        updated_at="2026-09-01T10:00:00Z",
    )
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    said = fake.add_comment(DEFAULT_REPO, n, "/notes", login="reviewer")
    payload = comment_payload(said, number=n, title=UNRELATED_TITLE)
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    (c,) = ours(fake, n)
    assert "kv\\_cache\\_coordinator.py" in c.body, c.body[:400]


def test_a_label_delivered_before_the_retarget_it_follows_is_matched_on_the_new_base(live):
    """A stacked PR retargeted (`edited` with `changes.base`: the head SHA stays, the
    files become the diff against the new base), and Mergify labels it a second later.
    GitHub delivers the `labeled` first. Its head is the one whose files the bot cached
    before the retarget, so it matches on the OLD base's files (no GitHub call at all);
    the retarget's `edited`, older than the `labeled`, is then stale. Only the stale run
    clears the cache (bot/pr_events.py `handle_pull_request` drops files_sha before the
    staleness check), and no event follows: the PR keeps notes its final diff does not
    touch. The newest event did not win: the file cache is keyed by the head SHA alone
    (bot/prstate.py `PRState.files_for`, bot/sticky.py `_with_files`), while a PR's
    files depend on its base too (the payload's `base.sha` changes on a retarget)."""
    client, rt, fake = live
    n = 8201
    head = A
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    deliver_pr(
        client,
        rt,
        number=n,
        title=UNRELATED_TITLE,
        head_sha=head,
        updated_at="2026-09-01T10:00:00Z",
    )
    (before,) = ours(fake, n)
    assert "kv\\_cache\\_coordinator.py" in before.body  # matched through its files
    # retargeted onto its parent's branch: the diff is now the docs change alone; the
    # events after it say so in their `base.ref`
    retargeted = fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE)
    retargeted.head_sha, retargeted.base_ref = A, "parent-feature"
    base = {"ref": {"from": "master"}, "sha": {"from": "0" * 40}}
    # Mergify's label, a second after the retarget, is delivered first
    deliver_pr(
        client,
        rt,
        number=n,
        action="labeled",
        title=UNRELATED_TITLE,
        head_sha=head,
        labels=("documentation",),
        updated_at="2026-09-01T10:00:11Z",
        base_ref="parent-feature",
    )
    deliver_pr(
        client,
        rt,
        number=n,
        action="edited",
        title=UNRELATED_TITLE,
        head_sha=head,
        changes={"base": base},
        updated_at="2026-09-01T10:00:10Z",
        base_ref="parent-feature",
    )
    assert rt.queue.counts()["failed"] == 0
    (after,) = ours(fake, n)
    assert "No review note matches this pull request any more" in after.body, after.body[:400]


# kills: github_client._listed_at reading the commit from anything but `ref`
def test_the_commit_a_file_is_listed_at_is_the_ref_of_its_contents_url():
    url = "https://api.github.com/repos/o/r/contents/a%3Fb.py?ref=6dcb09b5b57875f334f61aebed695e2e4193db5e"
    assert _listed_at(url) == "6dcb09b5b57875f334f61aebed695e2e4193db5e"
    assert _listed_at("https://api.github.com/repos/o/r/contents/a.py") == ""
    assert _listed_at(None) == ""


def test_a_cached_list_is_of_its_head_and_of_its_base_when_both_are_known():
    state = PRState("o/r", 1, files_sha=A, files=("a.py",), files_base="main")
    assert state.files_for(A, "main") == ("a.py",)
    assert state.files_for(A, "release") is None  # retargeted since
    assert state.files_for(B, "main") is None  # pushed since
    assert state.files_for(A) == ("a.py",)  # a base not known is no mismatch
    assert replace(state, files_base=None).files_for(A, "release") == ("a.py",)  # cached before

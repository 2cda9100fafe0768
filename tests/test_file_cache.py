"""The changed-file cache on a busy day: force-push storms delivered out
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
from tests.command_kit import as_rendered, comment_payload
from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_REPO, FakeFile, Fault
from tests.test_rollback import old_release
from tests.webhook_kit import (
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    LiveServer,
    app_env,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    live_settings,
    make_settings,
    post,
    pr_payload,
    repo_calls,
    send_signed,
    serving,
    wait_until,
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


def _opened_at_a_while_github_shows_b_then_back_at_a(client, rt, fake, n: int) -> None:
    """PR n's `opened` (head A) handled while GitHub is at head B (a docs change), then
    GitHub force-pushed back to A, whose files match a note."""
    fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE).head_sha = B
    opened = dict(number=n, title=UNRELATED_TITLE, head_sha=A, updated_at="2026-09-01T10:00:00Z")
    deliver_pr(client, rt, **opened)
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A


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
    _opened_at_a_while_github_shows_b_then_back_at_a(client, rt, fake, n)
    push = dict(number=n, action="synchronize", title=UNRELATED_TITLE)
    deliver_pr(client, rt, head_sha=A, updated_at="2026-09-01T10:00:20Z", **push)
    # B's push, delivered last, is older than A's return: stale
    deliver_pr(client, rt, head_sha=B, updated_at="2026-09-01T10:00:10Z", **push)
    assert rt.queue.counts()["failed"] == 0
    # what a PR with A's files and this title gets when nothing races
    fresh = 8102
    fake.add_pull(DEFAULT_REPO, fresh, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    deliver_pr(client, rt, number=fresh, title=UNRELATED_TITLE, head_sha=A)
    (want,) = ours(fake, fresh)
    assert want.body.startswith(MARKER) and "kv_cache_coordinator.py`" in want.body
    assert [as_rendered(rt, c, n) for c in ours(fake, n)] == [as_rendered(rt, want, fresh)]


def test_a_force_push_back_then_notes_refresh_still_matches_the_wrong_files(live):
    """The same force-push storm (A, then B, then back to A), seen from a reviewer:
    `opened` (head A) was handled while GitHub showed head B, so B's files were cached as
    A's. With GitHub back at A, the reviewer says `/notes`, which docs/commands.md promises will
    "match the PR again now": the refresh GETs the PR (head A), takes the "cached" list
    (B's docs change) and answers that no note matches, where A's files match one. The
    one command meant to repair a stale comment cannot (bot/sticky.py `_with_files`)."""
    client, rt, fake = live
    n = 8111
    _opened_at_a_while_github_shows_b_then_back_at_a(client, rt, fake, n)
    said = fake.add_comment(DEFAULT_REPO, n, "/notes", login="reviewer")
    payload = comment_payload(said, number=n, title=UNRELATED_TITLE)
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    (c,) = ours(fake, n)
    assert "kv_cache_coordinator.py`" in c.body, c.body[:400]


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
    assert "kv_cache_coordinator.py`" in before.body  # matched through its files
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
    assert state.files_for(A) == ("a.py",)  # an event naming no base takes the head's
    unknown = replace(state, files_base=None)  # cached before bases were kept
    assert unknown.files_for(A, "main") is None and unknown.files_for(A) == ("a.py",)


# --- files_base across a rollback -----------------------------------------------------

PREVIOUS = "696968a"  # the release before the file cache kept its base


def test_a_rollback_leaves_files_base_stale_and_the_retarget_race_it_fixed_comes_back(
    tmp_path, fake_github, app_key, monkeypatch
):
    """c807693 keys the file cache by base branch too (`files_base`), so that a label
    delivered before the retarget it follows does not take the other base's files
    (tests/test_file_cache.py). But `files_base` is a column the previous release does not
    know: its writes (docs/upgrading.md: rolling back runs on the new database) cache a
    new list and leave `files_base` as it was. Here this release caches the PR's files on
    `master`; rolled back, the previous release handles a retarget onto a stacked parent's
    branch and caches that diff (a docs change), `files_base` still saying `master`;
    forward again, the PR is retargeted back to `master` and Mergify's `labeled` is
    delivered before the retarget's `edited` (the very race the commit fixes). The label
    finds a list "of `master`" for its head and matches on the parent branch's docs
    change; the `edited`, older, is stale: the PR keeps "no note matches" though its diff
    touches a note's files. `files_listed` had the same hazard and was made safe by
    storing the head with the count (`sha:n`, `prstate._listed_for`); `files_base` is not
    tied to the list it describes. Cause: bot/prstate.py `PRStore.put`/`PRState.files_for`
    (`files_base` stored bare). Fix: store it as `files_sha:base` and read it only when its
    SHA is the cached list's, as `files_listed` is."""
    clean_env(monkeypatch)
    fake = fake_github
    n, head = 8301, "a" * 40
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = head
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        deliver_pr(
            client, rt, number=n, title=UNRELATED_TITLE, head_sha=head,
            updated_at="2026-09-01T10:00:00Z",
        )  # fmt: skip
        assert "kv_cache_coordinator.py`" in _sticky(fake, n)  # matched by its files
        assert rt.ctx.prs.get(DEFAULT_REPO, n).files_base == "master"
    # rollback: the previous release handles a retarget onto the parent's branch
    parent = fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE)
    parent.head_sha, parent.base_ref = head, "parent-feature"
    env = app_env(tmp_path, fake, app_key)
    env["PYTHONPATH"] = str(old_release(tmp_path, PREVIOUS))
    env["REVIEW_NOTES_DB_PATH"] = str(settings.db_path)
    server = LiveServer(tmp_path, env)
    with server.run():
        retarget = pr_payload(
            "edited", number=n, title=UNRELATED_TITLE, head_sha=head,
            changes={"base": {"ref": {"from": "master"}, "sha": {"from": "0" * 40}}},
            updated_at="2026-09-01T10:00:10Z", base_ref="parent-feature",
        )  # fmt: skip
        assert send_signed(server.base, "pull_request", retarget, "retarget-the-base") == 202
        wait_until(lambda: "any more" in (_sticky(fake, n) or ""), what="the old update")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    # forward again: retargeted back to master; the label is delivered before the retarget
    back = fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE)
    back.head_sha, back.base_ref = head, "master"
    with serving(settings) as (client, rt):
        deliver_pr(
            client, rt, number=n, action="labeled", title=UNRELATED_TITLE, head_sha=head,
            labels=("ready",), updated_at="2026-09-01T10:00:21Z", base_ref="master",
        )  # fmt: skip
        deliver_pr(
            client, rt, number=n, action="edited", title=UNRELATED_TITLE, head_sha=head,
            changes={"base": {"ref": {"from": "parent-feature"}, "sha": {"from": "0" * 40}}},
            updated_at="2026-09-01T10:00:20Z", base_ref="master",
        )  # fmt: skip
        assert rt.queue.counts()["failed"] == 0
        body = _sticky(fake, n)
        assert "kv_cache_coordinator.py`" in body, (
            "retargeted back to master, the PR was matched on the parent branch's files:"
            f" the previous release left files_base={rt.ctx.prs.get(DEFAULT_REPO, n).files_base!r}"
            f" on the list it cached; the comment reads {body[:300]!r}"
        )


# --- a PR that deletes a file ---------------------------------------------------------


def _sticky(fake, number: int) -> str | None:
    found = [
        c.body
        for c in fake.comments(DEFAULT_REPO, number)
        if c.user.login == BOT and c.body.startswith(MARKER)
    ]
    assert len(found) <= 1
    return found[0] if found else None


def test_a_pr_that_deletes_a_file_is_listed_again_on_every_event(
    tmp_path, fake_github, app_key, monkeypatch
):
    """`GitHubClient.list_files` now takes the commit GitHub listed the files at from
    each entry's `contents_url` (`?ref=`), and caches the list under none when the
    entries disagree ("a push between two pages"). But GitHub's diff entries do not all
    name the head: a removed file is gone at the head, so its `blob_url`, `raw_url` and
    `contents_url` name the base side. Recorded GitHub answers show it (buildbot's
    master/buildbot/test/unit/changes/test_github.py, commit 3291dbb: its removed
    newsfragments have `?ref=2eec293`, its first parent, its modified relnotes
    `?ref=3291dbb`), and pulls/{n}/files returns the same diff-entry objects (the fake
    does too since). So any PR deleting a file (common: refactors, moved tests) is cached
    under no commit, and each later event - a label, a review's `/notes`, an edit of the
    description - lists its files again (all pages of a 3,000-file PR), where before
    (and README step 5: "cached in prstate ... else list_files") a label after `opened`
    cost no call. A PR that only deletes files is cached under the base's commit, which
    no event names: the same. Cause: bot/github_client.py `list_files` (`heads` over
    every entry) and `_listed_at`. Fix: read the commit from the entries that exist at
    the head (status other than `removed`), or compare with the PR's `head.sha` GET."""
    clean_env(monkeypatch)
    fake = fake_github
    n = 8401
    gone = FakeFile("vllm/v1/core/old_helpers.py", status="removed", additions=0, deletions=3)
    pull = fake.add_pull(DEFAULT_REPO, n, files=[*MATCHING_FILES, gone], title=MATCHING_TITLE)
    pull.head_sha = HEAD  # GitHub lists the files at the event's head
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        deliver_pr(client, rt, number=n, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
        assert _sticky(fake, n) is not None and rt.queue.counts()["failed"] == 0
        fake.clear_requests()
        deliver_pr(
            client, rt, number=n, action="labeled", title=MATCHING_TITLE, labels=("x",),
            updated_at="2026-09-01T10:00:01Z",
        )  # fmt: skip
        calls = dict(repo_calls(fake))
        cached = rt.ctx.prs.get(DEFAULT_REPO, n)
        assert calls == {}, (
            f"a label on an unchanged PR that deletes a file cost {calls}: its list was"
            f" cached under files_sha={cached.files_sha!r} (head {HEAD})"
        )


# --- a listing behind a push or a retarget; lists cached before bases were kept -------

FILES = "/repos/*/pulls/*/files"


@pytest.fixture
def rechecking(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    settings = app_settings(
        tmp_path,
        fake_github,
        app_key,
        retry_backoff=0.01,
        max_retries=2,
        workers=1,
        files_recheck_delays=(0.05,),
    )
    with serving(settings) as (client, rt):
        yield client, rt, fake_github


def _listing_at(fake, head: str, paths: list[str]) -> list[dict]:
    """GitHub's file listing as of commit `head` (each entry's contents_url names it)."""
    return [
        {
            "sha": "1" * 40,
            "filename": p,
            "status": "modified",
            "additions": 1,
            "deletions": 1,
            "changes": 2,
            "blob_url": f"https://github.com/{DEFAULT_REPO}/blob/{head}/{p}",
            "raw_url": f"https://github.com/{DEFAULT_REPO}/raw/{head}/{p}",
            "contents_url": f"{fake.base_url}/repos/{DEFAULT_REPO}/contents/{p}?ref={head}",
            "patch": "@@ -1 +1 @@\n-old\n+new",
        }
        for p in paths
    ]


def _pr(client, rt, n, action, head, at, **kw):
    payload_kw = dict(number=n, action=action, title=UNRELATED_TITLE, head_sha=head)
    deliver_pr(client, rt, updated_at=at, **payload_kw, **kw)


def test_a_push_matched_on_the_previous_heads_listing_is_looked_at_again(rechecking):
    """A push (head A -> B) whose `synchronize` is handled while GitHub's file list has
    not caught up: the listing still names head A in every entry's contents_url (the
    same number of files, so the `changed_files` check cannot tell). The bot caches it,
    rightly, under A, yet matches the newest event, B's, on A's files and settles: no
    re-check is queued, so the PR keeps A's notes (here: none) until some later event,
    although B's file is a note's path. The bot knew better: the listing's commit is
    the PR's previous head (state.head_sha), not the event's. Cause: bot/sticky.py
    `_with_files` takes `listed.head` only as the cache key; when it is not the event's
    head (and is the head before it) it should raise FilesNotReady (look again later),
    as it does for a short list."""
    client, rt, fake = rechecking
    n = 9301
    fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE).head_sha = A
    _pr(client, rt, n, "opened", A, "2026-09-01T10:00:00Z")
    assert ours(fake, n) == []  # a docs change: no note
    pushed = fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE)
    pushed.head_sha = B
    # GitHub's list is a moment behind the push: its first answer is still head A's
    fake.inject("GET", FILES, Fault(status=200, body=_listing_at(fake, A, UNRELATED_FILES)))
    _pr(client, rt, n, "synchronize", B, "2026-09-01T10:00:10Z")
    assert fake.pending_faults() == 0  # the lagging answer was the one the event got
    assert rt.queue.counts()["failed"] == 0
    comments = ours(fake, n)
    assert comments and "kv_cache_coordinator.py`" in comments[-1].body, (
        "the newest event was matched on the previous head's files and never looked again"
    )


def test_a_stale_retarget_does_not_throw_away_the_new_bases_list(rechecking):
    """c807693's own race: a stacked PR is retargeted and labeled a second later; the
    `labeled` (base.ref 'parent-feature') is handled first and, the cached list being
    master's, lists the files again and caches them under head A and 'parent-feature'.
    The retarget's `edited`, older, is then stale, yet bot/pr_events.py
    `handle_pull_request` still sets files_sha = None before the staleness check, so the
    correct list is dropped and the PR's next ordinary event (a label) lists the files a
    third time. Before c807693 this traffic cost two listings; now three, the last for
    nothing: the cache knows its base since c807693 (`PRState.files_for` refuses another
    base), so the retarget need not clear it at all, and a stale one must not."""
    client, rt, fake = rechecking
    n = 9302
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=UNRELATED_TITLE).head_sha = A
    _pr(client, rt, n, "opened", A, "2026-09-01T10:00:00Z")
    retargeted = fake.add_pull(DEFAULT_REPO, n, files=UNRELATED_FILES, title=UNRELATED_TITLE)
    retargeted.head_sha, retargeted.base_ref = A, "parent-feature"
    base = {"ref": {"from": "master"}, "sha": {"from": "0" * 40}}
    on_new = dict(base_ref="parent-feature")
    _pr(client, rt, n, "labeled", A, "2026-09-01T10:00:11Z", labels=("documentation",), **on_new)
    _pr(client, rt, n, "edited", A, "2026-09-01T10:00:10Z", changes={"base": base}, **on_new)
    assert len(fake.calls("GET", FILES)) == 2  # opened (master), labeled (parent-feature)
    # an ordinary event later: same head, same base as the list the labeled cached
    labels = ("documentation", "ready")
    _pr(client, rt, n, "labeled", A, "2026-09-01T10:05:00Z", labels=labels, **on_new)
    assert rt.queue.counts()["failed"] == 0
    assert len(fake.calls("GET", FILES)) == 2, "the list of this head and base was asked again"


def test_a_dry_run_keeps_matching_on_a_list_cached_before_bases_were_kept(tmp_path, monkeypatch):
    # A list of no known base is asked for again when the event names its base; a dry
    # run cannot ask (its replays are the lists' only source), so it takes the head's
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path, dry_run=True)) as (client, rt):
        n, head = 8501, "c" * 40
        opened = dict(number=n, title=UNRELATED_TITLE, head_sha=head)
        deliver_pr(client, rt, files=MATCHING_FILES, **opened)
        rt.ctx.prs.db.execute("UPDATE pr_state SET files_base = NULL")  # an older release's
        label = dict(action="labeled", labels=("x",), updated_at="2026-09-01T10:00:01Z")
        deliver_pr(client, rt, **opened, **label)
        (comment,) = rt.dry_run.comments(DEFAULT_REPO, n)
        assert "kv_cache_coordinator.py`" in comment["body"], comment["body"][:300]

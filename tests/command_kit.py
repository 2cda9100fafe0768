"""The slash commands' end-to-end kit, for tests/test_command_*.py and the other tests
that say a command: the `live` fixture (the App served against the fake GitHub, on the
PR `N` whose files and title match a note), a comment's, a review's and a diff
comment's delivery built on GitHub's own example payloads, and helpers that say a
command and read what the bot wrote back.

Each command is a real comment in the fake GitHub (so reactions land on it) and a real
delivery. Flood control runs on a frozen clock where it matters, so no assertion
depends on how fast the machine is.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import pytest

from bot.commands import CommandConfig
from bot.markers import MARKER, REPLY_MARKER, verified_text
from bot.times import utcnow
from tests.fake_github import DEFAULT_REPO, DEFAULT_REPO_ID, FakeComment, Fault, iso_time
from tests.webhook_kit import (
    BOT,
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    drain,
    live_settings,
    octokit_example,
    ours,
    post,
    pr_payload,
    serving,
    wait_until,
)

N = 7001
AUTHOR = "pr-author"
# Every command answered at once unless a test says otherwise.
INSTANT = CommandConfig(min_update_interval_s=0)


def tune(rt, config: CommandConfig = INSTANT, clock=None) -> None:
    """Use this command config (and clock) from now on; the workers read rt.ctx per delivery."""
    rt.ctx = replace(rt.ctx, commands=config, clock=clock or rt.ctx.clock)


@pytest.fixture
def live(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake_github, app_key)) as (client, rt):
        tune(rt)
        yield client, rt, fake_github


# --- payloads ---------------------------------------------------------------------


def _pr_issue(number: int, title: str, on_pr: bool) -> dict:
    issue = {
        "number": number,
        "title": title,
        "body": "",
        "labels": [],
        "user": {"login": AUTHOR, "id": 5, "type": "User"},
        "draft": False,
        "state": "open",
    }
    if on_pr:  # what makes an issue comment a PR comment
        issue["pull_request"] = {
            "url": f"https://api.github.com/repos/{DEFAULT_REPO}/pulls/{number}",
            "html_url": f"https://github.com/{DEFAULT_REPO}/pull/{number}",
            "merged_at": None,
        }
    return issue


def comment_payload(
    comment,
    *,
    action: str = "created",
    old_body: str | None = None,
    sender_type: str | None = None,
    number: int = N,
    title: str = MATCHING_TITLE,
    on_pr: bool = True,
) -> dict:
    """An `issue_comment` delivery for a comment that exists in the fake."""
    base = octokit_example("issue_comment", action)
    p = dict(base)
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    p["issue"] = _pr_issue(number, title, on_pr)
    who = {"login": comment.user.login, "id": comment.user.id, "type": comment.user.type}
    p["comment"] = dict(
        base["comment"], id=comment.id, body=comment.body, user=who, **_times(comment)
    )
    p["sender"] = dict(who, type=sender_type or comment.user.type)
    p["installation"] = {"id": 1001}
    if old_body is not None:
        p["changes"] = {"body": {"from": old_body}}
    return p


def _times(comment) -> dict[str, str]:
    """The comment's times as the fake keeps them (the example's are of 2019: older than
    deliveries are kept, such a delivery is refused as a replay)."""
    return {"created_at": iso_time(comment.created_at), "updated_at": iso_time(comment.updated_at)}


def review_payload(body: str, *, login: str = "reviewer", head_sha: str) -> dict:
    base = octokit_example("pull_request_review", "submitted")
    pr = pr_payload(title=MATCHING_TITLE, head_sha=head_sha, sender=AUTHOR)["pull_request"]
    pr = {k: v for k, v in pr.items() if k in base["pull_request"]}  # no changed_files
    p = dict(base, pull_request=pr, installation={"id": 1001})
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    who = {"login": login, "id": 8, "type": "User"}
    p["review"] = dict(base["review"], body=body, user=who, submitted_at=github_time_ago(0))
    p["sender"] = {"login": login, "id": 8, "type": "User"}
    return p


def diff_comment_payload(comment, *, head_sha: str, action: str = "created") -> dict:
    """A `pull_request_review_comment` delivery for a diff-line comment in the fake."""
    base = octokit_example("pull_request_review_comment", action)
    pr = pr_payload(title=MATCHING_TITLE, head_sha=head_sha, sender=AUTHOR)["pull_request"]
    pr = {k: v for k, v in pr.items() if k in base["pull_request"]}  # no changed_files
    p = dict(base, pull_request=pr, installation={"id": 1001})
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    who = {"login": comment.user.login, "id": comment.user.id, "type": comment.user.type}
    p["comment"] = dict(
        base["comment"], id=comment.id, body=comment.body, user=who, **_times(comment)
    )
    p["sender"] = who
    return p


# --- a live server, a command said, what the bot wrote ------------------------------


@contextmanager
def _putting_back(tmp_path, fake, app_key, monkeypatch):
    """A live server whose GitHub waits over a second are not slept but put back (a
    rate limit with Retry-After 2 puts the delivery back), on the PR `N` whose files and
    title match a note; yields the client, the runtime and the PR's head SHA."""
    clean_env(monkeypatch)
    head = fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
    ).head_sha
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        yield client, rt, head


def say(client, rt, fake, body: str, *, login: str = "octo-dev", wait: bool = True, **kw):
    """Write a comment on the PR and deliver its `created` event; return the comment."""
    c = fake.add_comment(DEFAULT_REPO, kw.get("number", N), body, login=login)
    r = post(client, "issue_comment", comment_payload(c, **kw))
    assert r.status_code == 202, r.text
    if wait:
        drain(rt)
    return c


def reviewed(client, rt, fake, body: str, login: str = AUTHOR) -> None:
    """`login` submits a review saying `body` on the PR's head (GitHub has no reactions on
    reviews: the notes comment's write is the first the bot makes), and it runs."""
    head = fake.pull(DEFAULT_REPO, N).head_sha
    r = post(client, "pull_request_review", review_payload(body, login=login, head_sha=head))
    assert r.status_code == 202, r.text
    drain(rt)


def unlocked(
    client, rt, fake, updated_at: str, title: str = MATCHING_TITLE, *, drained: bool = True
) -> dict:
    """A maintainer unlocks the PR's conversation: GitHub's `unlocked` event, run (and the
    queue drained; `drained=False`: only this delivery waited for, a deferred update may
    wait in the queue)."""
    fake.unlock(DEFAULT_REPO, N)
    if drained:
        return deliver_pr(client, rt, action="unlocked", title=title, updated_at=updated_at)
    r = post(client, "pull_request", pr_payload("unlocked", title=title, updated_at=updated_at))
    assert r.status_code == 202, r.text
    done = r.json()["delivery"]
    wait_until(lambda: rt.queue.get(done).state == "done", what="the unlock handled")
    return r.json()


def edit(client, rt, fake, comment, new_body: str, **kw):
    """Change the comment's text and deliver its `edited` event (`kw`: as `say`'s)."""
    old, comment.body = comment.body, new_body  # the fake's comment changes in place
    post(client, "issue_comment", comment_payload(comment, action="edited", old_body=old, **kw))
    drain(rt)


def reactions(fake, comment) -> set[str]:
    return {r.content for r in fake.reactions(comment.id) if r.user.login == BOT}


def sticky(fake, number=N):
    found = [c for c in ours(fake, number) if c.body.startswith(MARKER)]
    assert len(found) <= 1
    return found[0] if found else None


def as_rendered(rt, comment, number=N) -> str:
    """The notes comment's text as rendered: its signature for its PR checked, then taken
    off (the same text on two PRs is signed apart)."""
    keys = rt.ctx.comment_keys
    text = verified_text(comment.body, keys, DEFAULT_REPO, number, DEFAULT_REPO_ID)
    assert text is not None, f"the notes comment is not signed for PR {number}"
    return text


def replies(fake, number=N):
    return [c for c in ours(fake, number) if c.body.startswith(REPLY_MARKER)]


def sticky_writes(fake, number=N) -> int:
    posts = [r for r in fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{number}/comments")]
    return len(posts) + len(fake.calls("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/*"))


def state(rt, number=N):
    return rt.ctx.prs.get(DEFAULT_REPO, number)


# --- retries, put-backs, times ------------------------------------------------------


def fail_the_done_reaction(fake, comment) -> None:
    """👀 goes up; GitHub then fails the 👍 on every try the client makes (max_retries 2).
    (Not a rate limit: that would pause every call of the installation, the retry's too.)"""
    react = f"/repos/{DEFAULT_REPO}/issues/comments/{comment.id}/reactions"
    fake.inject("POST", react, Fault(), *[Fault.error(502)] * 3)


def said_and_left_without_its_thumb(client, rt, fake, line: str, login: str = AUTHOR):
    """A command whose 👍 GitHub refuses: it ran, and its delivery failed for `retry`."""
    c = fake.add_comment(DEFAULT_REPO, N, line, login=login)
    fail_the_done_reaction(fake, c)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert rt.queue.counts()["failed"] == 1
    return c


def retried_for_its_thumb(rt, fake, c) -> None:
    """The operator's `review-notes retry`, which adds the 👍 GitHub refused."""
    assert rt.queue.retry() != []
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}


def deliver_said_at(client, rt, comment, at: str, **kw) -> None:
    """Deliver a comment's event with the time GitHub gives its text (`updated_at`)."""
    p = comment_payload(comment, **kw)
    p["comment"] = dict(p["comment"], created_at=at, updated_at=at)
    assert post(client, "issue_comment", p).status_code == 202
    drain(rt)


def deliver_without_its_time(client, rt, comment) -> None:
    """Deliver a comment's event whose payload gives no time for it (no `created_at` or
    `updated_at`): the bot takes such a command as said last."""
    p = comment_payload(comment)
    for field in ("created_at", "updated_at"):
        del p["comment"][field]
    assert post(client, "issue_comment", p).status_code == 202
    drain(rt)


def github_time_ago(seconds: float) -> str:
    """A time `seconds` ago as GitHub writes it in payloads (whole seconds, `Z`)."""
    return f"{utcnow(after_s=-seconds)[:19]}Z"


def maintainer_deletes(fake, comment) -> None:
    with fake._lock:  # in the web UI
        del fake._comments[comment.id]


def _said(client, fake, body: str, login: str = "octo-dev"):
    """Write a comment and deliver it, without waiting: the comment and its delivery id."""
    c = fake.add_comment(DEFAULT_REPO, N, body, login=login)
    r = post(client, "issue_comment", comment_payload(c))
    assert r.status_code == 202, r.text
    return c, r.json()["delivery"]


def content_writes(fake) -> list[str]:
    """The content-generating requests (github_facts §3.3) made since the last clear:
    reactions, comments, comment edits."""
    return [
        f"{r.method} {r.path}"
        for r in fake.requests
        if r.path.startswith("/repos/") and r.method in ("POST", "PATCH")
    ]


# An hour's window: a deferred update waits in the queue until `run_due`; a budget of
# ten writes that never refills (the tests freeze the clock).
OWING = CommandConfig(
    min_update_interval_s=3600, installation_write_burst=10, installation_write_refill_s=3600
)


def owe_an_update(client, rt, fake, body: str, login: str = "octo-dev") -> FakeComment:
    """A command in the window of the one before: its update waits in the queue."""
    c = say(client, rt, fake, body, login=login, wait=False)
    wait_until(
        lambda: (
            state(rt).pending is not None
            and rt.queue.counts()["pending"] == 1
            and rt.queue.counts()["processing"] == 0
        ),
        what="the command done, its update queued",
    )
    return c


def run_due(rt) -> None:
    """The window is over: the deferred updates queued run now. The workers are told (as
    test_faults' _let_pass tells them): a change made by hand does not wake them, and
    they would find it at their next poll, a second later."""
    rt.queue.db.execute("UPDATE deliveries SET not_before = ? WHERE state = 'pending'", (utcnow(),))
    rt.queue._notify()
    drain(rt)

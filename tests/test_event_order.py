"""PR events handled out of order (late deliveries, `retry`, the files re-check): an
event older than one already handled changes nothing, and a closed PR stays untouched."""

from __future__ import annotations

import pytest

from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_REPO, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    make_settings,
    post,
    pr_payload,
    serving,
    wait_until,
)

N = 7801


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


@pytest.fixture
def app(tmp_path):
    with serving(make_settings(tmp_path, workers=2)) as (client, rt):
        yield client, rt


def sticky(rt, number=N):
    return [c for c in rt.dry_run.comments("vllm-project/vllm", number) if c["sticky"]]


def test_an_older_event_arriving_after_the_opt_out_label_changes_nothing(app):
    # t1 opened (comment), t3 labeled no-review-notes (comment paused), then the t2
    # synchronize arrives late (GitHub does not order deliveries; or it had failed
    # and the operator ran `review-notes retry`). It is older than the label event:
    # it must change nothing, and the PR still carries the opt-out label.
    client, rt = app
    deliver_pr(
        client,
        rt,
        number=N,
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        updated_at="2026-09-01T10:00:00Z",
    )
    deliver_pr(
        client,
        rt,
        number=N,
        action="labeled",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        labels=("no-review-notes",),
        updated_at="2026-09-01T10:03:00Z",
    )
    (c,) = sticky(rt)
    assert "paused" in c["body"]
    deliver_pr(
        client,
        rt,
        number=N,
        action="synchronize",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        head_sha="b" * 40,
        updated_at="2026-09-01T10:02:00Z",
    )
    (c,) = sticky(rt)
    assert "paused" in c["body"], "a stale event un-paused a PR that carries the opt-out label"


def test_an_older_opened_after_a_newer_unmatched_edit_posts_nothing(app):
    # t1 opened with a matching title, t2 title edited to something no note matches.
    # The t2 edit is handled first: it writes nothing, but it is remembered, so the
    # older `opened` cannot post notes for a title the PR no longer has.
    client, rt = app
    deliver_pr(
        client,
        rt,
        number=N,
        action="edited",
        title=UNRELATED_TITLE,
        files=["docs/x.md"],
        changes={"title": {"from": MATCHING_TITLE}},
        updated_at="2026-09-01T10:05:00Z",
    )
    assert sticky(rt) == []
    deliver_pr(
        client,
        rt,
        number=N,
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        updated_at="2026-09-01T10:00:00Z",
    )
    assert sticky(rt) == [], "a stale `opened` posted notes for a title the PR no longer has"


# --- the same, through the real GitHub client and the loopback fake --------------------


BOT = f"{DEFAULT_APP_SLUG}[bot]"


def ours(fake, number=N):
    return [c for c in fake.comments(DEFAULT_REPO, number) if c.user.login == BOT]


def test_a_retried_opened_older_than_a_handled_retitle_posts_nothing(
    tmp_path, fake_github, app_key
):
    # The documented recovery path: `opened` fails (GitHub asks to wait an hour), the
    # author retitles the PR (that `edited` is handled: nothing matches, no comment),
    # GitHub is back and the operator runs `review-notes retry --all`. The retried
    # `opened` is older than the `edited` already handled: it changes nothing.
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=["docs/contributing.md"], title=UNRELATED_TITLE)
    settings = app_settings(tmp_path, fake, app_key, retry_max_wait=5)
    with serving(settings) as (client, rt):
        fake.inject(
            "POST",
            f"/repos/{DEFAULT_REPO}/issues/{N}/comments",
            Fault.secondary_rate_limit(retry_after=3600),
        )
        post(
            client,
            "pull_request",
            pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z"),
        )
        drain(rt)
        assert rt.queue.counts()["failed"] == 1 and ours(fake) == []
        post(
            client,
            "pull_request",
            pr_payload(
                number=N,
                action="edited",
                title=UNRELATED_TITLE,
                changes={"title": {"from": MATCHING_TITLE}},
                updated_at="2026-09-01T10:05:00Z",
            ),
        )
        drain(rt)
        assert ours(fake) == []
        rt.queue.retry()  # what `review-notes retry --all` does
        drain(rt)
        assert ours(fake) == [], (
            "the retried, older `opened` commented on a PR whose title matches no note:\n"
            + ours(fake)[0].body[:300]
        )


def test_a_retried_event_older_than_the_close_leaves_the_comment_alone(
    tmp_path, fake_github, app_key
):
    # README: "closed PRs are left alone". A `labeled` that failed (rate limit) is
    # retried after the PR was merged. Its payload says "open", but the `closed`
    # event was remembered: the retried event is older, and changes nothing.
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(tmp_path, fake, app_key, retry_max_wait=5)
    with serving(settings) as (client, rt):
        post(
            client,
            "pull_request",
            pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z"),
        )
        drain(rt)
        (c,) = ours(fake)
        before = c.body
        fake.inject(
            "PATCH", "/repos/*/issues/comments/*", Fault.secondary_rate_limit(retry_after=3600)
        )
        post(
            client,
            "pull_request",
            pr_payload(number=N, **labeled_one_more_note(updated_at="2026-09-01T10:01:00Z")),
        )
        drain(rt)
        assert rt.queue.counts()["failed"] == 1
        r = post(
            client,
            "pull_request",
            pr_payload(
                number=N,
                action="closed",
                state="closed",
                title=MATCHING_TITLE,
                updated_at="2026-09-01T10:02:00Z",
            ),
        )
        assert r.json()["status"] == "queued"  # remembered, nothing written
        drain(rt)
        rt.queue.retry()
        drain(rt)
        (c,) = ours(fake)
        assert c.body == before, "the bot edited its comment on a closed pull request"


def test_the_files_recheck_of_an_event_older_than_a_retitle_posts_nothing(
    tmp_path, fake_github, app_key
):
    # No operator and no GitHub reordering needed: `opened` (t1, matching title) meets
    # a file list that lags `changed_files`, so the bot queues its own re-check of that
    # payload for later. Meanwhile the author retitles the PR (t2, nothing matches:
    # no comment). The re-check of the t1 payload is then stale.
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=["docs/contributing.md"], title=UNRELATED_TITLE)
    settings = app_settings(tmp_path, fake, app_key, files_recheck_delays=(1.5,))
    with serving(settings) as (client, rt):
        fake.inject("GET", "/repos/*/pulls/*/files", Fault(status=200, body=[]))  # lagging
        opened = pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
        opened["pull_request"]["changed_files"] = 1
        post(client, "pull_request", opened)
        wait_until(lambda: rt.queue.counts()["done"] == 1, what="opened, re-check queued")
        edited = pr_payload(
            number=N,
            action="edited",
            title=UNRELATED_TITLE,
            changes={"title": {"from": MATCHING_TITLE}},
            updated_at="2026-09-01T10:00:30Z",
        )
        edited["pull_request"]["changed_files"] = 1
        post(client, "pull_request", edited)
        wait_until(lambda: rt.queue.counts()["done"] == 2, what="the edit")
        assert ours(fake) == []  # the PR as it is now: no note
        drain(rt)  # the re-check of `opened`
        assert ours(fake) == [], "the re-check of the older `opened` posted stale notes"

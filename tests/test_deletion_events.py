"""A notes comment deleted by a maintainer, as GitHub tells it (`issue_comment`
`deleted`, bot.deletion_events), end to end against the fake GitHub: the PR's updates go
off at once, also when the bot never learnt the comment's id (a create whose answer was
lost), and nothing else a deletion names changes anything."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from bot.db import Database
from bot.deletion_events import _by_our_account, _said, _via_our_app
from bot.dispatch import Dispatcher, own_logins
from bot.dryrun import DryRunGitHub
from bot.markers import MARKER, REPLY_MARKER, written_by_us
from bot.prstate import PRState
from bot.queue import Delivery
from bot.redelivery import sweep
from bot.server import build_dispatcher, create_app
from tests.browser_kit import serving_in_thread
from tests.command_kit import (
    AUTHOR,
    N,
    comment_payload,
    replies,
    reviewed,
    say,
    state,
    sticky,
    tune,
    unlocked,
)
from tests.docs_kit import doc
from tests.fake_github import DEFAULT_APP_ID, DEFAULT_REPO, Fault
from tests.test_command_events import OWNER, with_token, written_as
from tests.webhook_kit import (
    BOT,
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    live_settings,
    make_settings,
    ours,
    post,
    run_again,
    serving,
    title_with_one_more_note,
    wait_until,
)

MAINTAINER = {"login": "maintainer", "id": 77, "type": "User"}


def deleted(client, rt, fake, comment, *, by=MAINTAINER, delivery=None):
    """The comment deleted on GitHub, by `by`, and GitHub's `deleted` event for it sent."""
    payload = comment_payload(comment, action="deleted")  # (GitHub's own example's shape)
    payload["sender"] = dict(by)
    payload["comment"]["performed_via_github_app"] = via(fake, comment)
    with fake._lock:
        fake._comments.pop(comment.id, None)
    r = post(client, "issue_comment", payload, delivery=delivery)
    assert r.status_code in (200, 202), r.text
    drain(rt)
    return r.json()


def via(fake, comment) -> dict | None:
    """The App GitHub says wrote the comment (ours for the bot's, as the fake serves it)."""
    return fake._comment_json(comment)["performed_via_github_app"]


def ran(caplog, answer: dict, action: str = "deleted") -> str:
    """What the deletion's (or another issue_comment `action`'s, or `unlocked`'s)
    delivery did, as the server's log line says."""
    event = "pull_request" if action == "unlocked" else "issue_comment"
    opening = f"delivery {answer['delivery']} {event}.{action} PR "
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith(opening)]
    return line.split(": ", 1)[1]


def say_after(client, rt, fake, body: str):
    """The PR's author says `body` a second after all so far: the deletion is dated by
    the second it reached us, and a command of that second may have been said before it."""
    c = fake.add_comment(DEFAULT_REPO, N, body, login=AUTHOR)
    c.created_at = c.updated_at = time.time() + 1.5
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)


def lose_the_create(client, rt, fake):
    """A PR event whose create lands but whose answer is lost, every look after it
    failing: the delivery fails, the PR's state knows no comment. Returns the comment."""
    fake.inject("POST", "/repos/*/issues/*/comments", Fault.dropped(apply=True))
    fake.inject("GET", "/repos/*/issues/*/comments", Fault(), *[Fault.error(502)] * 9)
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    with fake._lock:
        fake._faults.clear()
    (c,) = ours(fake)
    assert state(rt).comment_id is None and rt.queue.counts()["failed"] == 1
    return c


@pytest.fixture
def served(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    fake_github.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
    ).head_sha = HEAD
    with serving(live_settings(tmp_path, fake_github, app_key)) as (client, rt):
        tune(rt)
        yield client, rt, fake_github


# kills: bot/sticky.py:record_deletion the write whose answer was lost left unconfirmed
def test_a_comment_whose_create_answer_was_lost_and_a_maintainer_deleted_is_not_posted_again(
    served, caplog
):
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c = lose_the_create(client, rt, fake)
    answer = deleted(client, rt, fake, c)
    assert ran(caplog, answer) == f"updates off: our comment {c.id} was deleted"
    # at once, as `/notes off`; the create whose answer was lost is settled: what it
    # made is the comment deleted (a PR event's `/notes off` needs no look at GitHub)
    assert state(rt).opted_out and not state(rt).unconfirmed
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == []  # README: never posted again by a PR event
    # nor by the lost create's delivery, retried by the operator after the deletion
    assert rt.queue.retry() != []
    drain(rt)
    assert ours(fake) == [] and rt.queue.counts()["failed"] == 0
    # `/notes on` said after the deletion resumes the updates: the comment is posted anew
    say_after(client, rt, fake, "/notes on")
    assert sticky(fake) is not None and not state(rt).opted_out


def test_a_deletion_sent_again_changes_nothing_more_and_an_on_said_after_it_stands(served):
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    first = deleted(client, rt, fake, c, delivery="del-1")
    assert first["status"] == "queued" and state(rt).opted_out
    say_after(client, rt, fake, "/notes on")
    again = sticky(fake)
    assert again is not None and again.id != c.id and not state(rt).opted_out
    # GitHub's redelivery of the deletion (its id again): refused as a duplicate, not run
    assert deleted(client, rt, fake, c, delivery="del-1")["status"] == "duplicate"
    # run a second time (its retry): the `on` said after it still stands
    run_again(rt, "del-1")
    assert ours(fake) == [again] and state(rt).comment_id == again.id
    assert not state(rt).opted_out
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == [again] and state(rt).comment_id == again.id
    assert not state(rt).opted_out


def said_ago(client, rt, fake, body: str, seconds: float):
    """The PR's author said `body` `seconds` ago; its event reaches us only now (GitHub
    could not deliver it while the server was down: the sweep has it sent again)."""
    c = fake.add_comment(DEFAULT_REPO, N, body, login=AUTHOR)
    c.created_at = c.updated_at = time.time() - seconds
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)


def missed(fake, comment, seconds: float):
    """The comment deleted by a maintainer `seconds` ago, while the server was down:
    GitHub's delivery of the deletion failed (its log says when it tried)."""
    payload = comment_payload(comment, action="deleted")
    payload["sender"] = dict(MAINTAINER)
    payload["comment"]["performed_via_github_app"] = via(fake, comment)
    with fake._lock:
        fake._comments.pop(comment.id, None)
    attempt = fake.send_webhook("issue_comment", payload)  # no webhook URL: nothing answers
    assert attempt.status_code == 0
    attempt.delivered_at -= seconds
    return attempt


def on_run_before_a_missed_deletion(client, rt, fake, made: float = 200):
    """Off, the notes comment A up (paused). The server down: a maintainer deletes A
    `made` seconds ago (GitHub's delivery failed: its `attempt`), and the author's
    `/notes on` of 300 s ago is sent again first: its update finds A gone and posts C.
    (A, the attempt, C)."""
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    assert state(rt).opted_out and state(rt).comment_id == a.id
    attempt = missed(fake, a, made)
    said_ago(client, rt, fake, "/notes on", 300)  # (GitHub's redelivery of it, run first)
    c = sticky(fake)
    assert c is not None and c.id != a.id and state(rt).comment_id == c.id
    return a, attempt, c


def swept(rt, fake, attempt) -> None:
    """The redelivery sweep asks GitHub for the failed delivery again; GitHub sends it to
    the server (over HTTP, as GitHub does), where it runs."""
    with serving_in_thread(create_app(rt)) as base:
        fake.webhook_url, fake.webhook_secret = f"{base}/webhook", SECRET
        since = datetime.now(UTC) - timedelta(hours=1)
        github = rt.ctx.github
        done = sweep(github, rt.queue.held, since, keep_first=rt.queue.keep_first_sent)
        assert [d.guid for d in done.asked] == [attempt.guid]
        wait_until(lambda: rt.queue.held({attempt.guid}), what="the redelivery queued")
        drain(rt)
    fake.webhook_url = None


# kills: bot/deletion_events.py:handle_deleted a deletion made while off dated at its redelivery
def test_an_on_said_after_a_deletion_made_while_off_wins_when_both_are_redelivered(served):
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    assert state(rt).opted_out and state(rt).comment_id == c.id
    # the server down: a maintainer deletes the comment, then the author says `on`;
    # the sweep has both sent again, in the order GitHub first sent them
    swept(rt, fake, missed(fake, c, 300))
    assert state(rt).opted_out and state(rt).comment_id is None
    said_ago(client, rt, fake, "/notes on", 900)  # said before the `off`: run late, stale
    assert state(rt).opted_out
    said_ago(client, rt, fake, "/notes on", 60)
    assert not state(rt).opted_out  # README: `/notes on` resumes them
    assert sticky(fake) is not None and sticky(fake).id != c.id


# kills: bot/comment_plan.py:deletion_ignored the comment an `on` found gone taken for a second copy
# kills: bot/sticky.py:_write the comment a write after `on` replaced not remembered
@pytest.mark.parametrize("made", [200, 400])  # seconds ago: after the `on`, or before it
def test_a_deletion_made_after_an_on_whose_update_posted_anew_wins_when_both_are_redelivered(
    served, made, caplog
):
    """Off, the notes comment A up (paused). The server down: the author says `/notes on`
    (300 s ago), and a maintainer deletes A; the `on` is sent again first: its update
    finds A gone, taken for a deletion made while off, and posts C. The deletion of A
    made after the `on` was then taken for one of a second notes comment of ours: the
    updates stayed on and C up. It wins (docs/commands.md): C is the bot's, removed, and
    the updates stay off. Made before the `on`, the `on` wins: C stays."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, made)
    swept(rt, fake, attempt)
    if made > 300:
        assert not state(rt).opted_out and ours(fake) == [c] and state(rt).comment_id == c.id
        return
    assert state(rt).opted_out and state(rt).comment_id is None
    assert ours(fake) == [] and fake.calls("DELETE", f"/repos/*/issues/comments/{c.id}") != []
    said = f"updates off: our comment {a.id} was deleted after the `/notes on` whose update"
    assert any(f"{said} posted {c.id}, deleted too" in r.getMessage() for r in caplog.records)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == []  # off: no PR event posts it again
    said_ago(client, rt, fake, "/notes on", 30)  # written after the deletion: resumes them
    assert not state(rt).opted_out and sticky(fake) is not None


def test_a_deletion_after_an_on_on_a_locked_conversation_is_kept_and_its_comment_deleted_later(
    served, caplog
):
    """The same deletion of A made after the `on`, sent again once the PR's conversation
    was locked: GitHub refuses the App's delete of C there (only collaborators delete in
    a locked conversation), and the delivery ended `stopped: locked` with nothing
    recorded, the maintainer's "go away" lost: updates on, C up, edited at the next
    event once unlocked. Now the deletion is recorded (updates off), C owed, said in a
    warning, and deleted at the unlock (GitHub's `unlocked` event)."""
    client, rt, fake = served
    caplog.set_level("INFO")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    assert state(rt).opted_out and state(rt).owed_delete == c.id
    assert ours(fake) == [c] and rt.queue.counts()["failed"] == 0
    said = [m for m in caplog.messages if f"our comment {c.id} stays up for now" in m]
    assert len(said) == 1 and "the conversation is locked" in said[0], said
    assert [r.levelname for r in caplog.records if r.getMessage() == said[0]] == ["WARNING"]
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == [c] and state(rt).owed_delete == c.id  # still locked: still owed
    assert f"; our comment {c.id} still up: the conversation is locked" in caplog.text
    answer = unlocked(client, rt, fake, "2026-09-01T10:00:06Z")
    assert ours(fake) == [] and state(rt).owed_delete is None and state(rt).opted_out
    assert ran(caplog, answer, "unlocked") == f"deleted our comment {c.id}, left up while locked"
    assert f"deleted our comment {c.id}, left up while the conversation was locked" in (caplog.text)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:07Z"))
    assert ours(fake) == []  # off: nothing posted again


# kills: bot/pr_events.py:handle_pull_request a look that met the lock releasing the kept commands
def test_a_pr_event_whose_owed_deletion_the_lock_refused_leaves_the_kept_commands_kept(
    served, caplog
):
    """A PR event whose payload says unlocked (it was, when GitHub sent it), whose own look
    met the lock (the deletion owed, refused): the PR is locked now, as the bot just saw,
    and the commands kept there would meet the lock again (a GET and a refused 👀 each).
    They wait for the unlock."""
    from tests.test_unlocks import said_while_locked

    client, rt, fake = served
    caplog.set_level("INFO")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    kept = said_while_locked(client, rt, fake, "/notes help")
    fake.clear_requests()
    later = datetime.now(UTC) + timedelta(seconds=60)  # (after the comment kept)
    event = labeled_one_more_note(updated_at=later.strftime("%Y-%m-%dT%H:%M:%SZ"))
    deliver_pr(client, rt, **event)
    assert f"; our comment {c.id} still up: the conversation is locked" in caplog.text
    assert fake.calls(path=f"/repos/*/issues/comments/{kept.id}*") == []
    (k,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not k.delivery.endswith("#unlocked")
    unlocked(client, rt, fake, later.strftime("%Y-%m-%dT%H:%M:%SZ"))
    assert c not in ours(fake) and len(replies(fake)) == 1  # deleted; the help answered


# kills: bot/pr_events.py:handle_unlocked a stale unlock whose deletion met a new lock releasing
def test_a_stale_unlock_whose_owed_deletion_a_new_lock_refused_leaves_the_kept_commands_kept(
    served, caplog
):
    """An `unlocked` delivered late, the PR locked again since: its own deletion owed is
    refused (the PR is locked now, as the bot just saw), so the commands kept there would
    meet the lock again (a GET and a refused 👀 each). They wait for the next unlock, as
    at a PR event whose look met the lock."""
    from tests.test_unlocks import ran, said_while_locked

    client, rt, fake = served
    caplog.set_level("INFO")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    kept = said_while_locked(client, rt, fake, "/notes help")
    fake.clear_requests()
    at = [
        (datetime.now(UTC) + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%SZ") for s in (60, 90)
    ]
    stale = deliver_pr(client, rt, action="unlocked", title=MATCHING_TITLE, updated_at=at[0])
    said = ran(caplog, stale)
    assert said.startswith(f"our comment {c.id} still up: the conversation is locked"), said
    assert said.endswith("; kept commands left kept: the conversation is locked again"), said
    assert fake.calls(path=f"/repos/*/issues/comments/{kept.id}*") == []
    (k,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not k.delivery.endswith("#unlocked") and replies(fake) == []
    unlocked(client, rt, fake, at[1])  # the next unlock
    assert c not in ours(fake) and len(replies(fake)) == 1  # deleted; the help answered
    said = " ".join(doc("commands.md").split())
    assert "deletion owed the lock refused (locked again since): they wait for the next" in said


# kills: bot/deletion_events.py:_still_owed a debt paid while an `on` said since stands
def test_a_deletion_owed_is_not_paid_once_an_on_whose_update_failed_stands(served):
    """The deletion kept on a locked conversation owes C. Unlocked, an `/notes on` said
    since (by a release before owed deletions, which leaves `owed_delete` as it was)
    resumed the updates, and its update failed: the state knows no comment. The PR's
    next event must not delete C, the notes comment again once the `on` stands: it
    finds it and edits it (deleted, a new comment was posted in its place)."""
    client, rt, fake = served
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    assert state(rt).owed_delete == c.id and state(rt).comment_id is None
    fake.unlock(DEFAULT_REPO, N)
    rt.ctx.prs.update(DEFAULT_REPO, N, opted_out=False)  # the older release's `on`
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:06Z"))
    assert ours(fake) == [c] and state(rt).comment_id == c.id and not state(rt).opted_out
    assert state(rt).owed_delete is None  # kept: the write took the debt back


# kills: bot/sticky.py:_write the comment an `on` said since kept, still owed a deletion
def test_an_on_said_after_the_unlock_keeps_the_comment_the_locked_deletion_left_up(served, caplog):
    """The deletion kept on a locked conversation owes C; once unlocked, the author says
    `/notes on` before any PR event: its update finds C, ours on the PR, and edits it:
    the notes comment again, asked for after the deletion. The PR's next event deleted
    it all the same as owed, and the write after that found the comment it knew gone,
    taken for a maintainer's deletion: updates off, no comment, the `on` undone."""
    client, rt, fake = served
    caplog.set_level("INFO")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    assert state(rt).opted_out and state(rt).owed_delete == c.id and state(rt).comment_id is None
    fake.unlock(DEFAULT_REPO, N)
    said_ago(client, rt, fake, "/notes on", 1)
    assert not state(rt).opted_out and state(rt).comment_id == c.id and ours(fake) == [c]
    assert state(rt).owed_delete is None  # the on's write took the debt back
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:06Z"))
    assert ours(fake) == [c] and state(rt).comment_id == c.id and state(rt).owed_delete is None
    refused = fake.calls("DELETE", f"/repos/*/issues/comments/{c.id}")
    assert [r.status for r in refused] == [403]  # (the one tried while locked)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:07Z"))
    assert not state(rt).opted_out and ours(fake) == [c]
    assert "our comment None" not in caplog.text  # (nothing owed: nothing said)


@pytest.mark.parametrize("settled_by", ["unlocked", "labeled"])  # its delivery lost: the next
def test_an_on_whose_write_the_lock_refused_keeps_the_comment_the_locked_deletion_left_up(
    served, caplog, settled_by
):
    """The deletion kept on a locked conversation owes C. The author's review saying
    `/notes on` (submitted as the lock came, run after it) asks for the notes back: its
    write finds C, ours on the PR, and GitHub refuses the edit. At the PR's next event
    after the unlock, C was deleted as owed before the write, which then found no
    comment and posted a new one: C gone and a second notes comment posted, notifying
    everyone, where the `on`'s write would have kept C. The write comes first now, at
    the unlock (the `on`'s, owed) or at the next PR event: it keeps C and takes the
    debt back."""
    client, rt, fake = served
    caplog.set_level("INFO")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()  # C's text is out of date
    reviewed(client, rt, fake, "/notes on")
    assert "Unable to update comment because issue is locked." in caplog.text
    assert not state(rt).opted_out and state(rt).owed_delete == c.id and ours(fake) == [c]
    fake.clear_requests()
    if settled_by == "unlocked":
        unlocked(client, rt, fake, "2026-09-01T10:00:06Z", title=title_with_one_more_note())
    else:
        fake.unlock(DEFAULT_REPO, N)
        deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:06Z"))
    assert ours(fake) == [c] and state(rt).comment_id == c.id and state(rt).owed_delete is None
    assert fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments") == []
    assert fake.calls("DELETE", "/repos/*/issues/comments/*") == []
    assert len(state(rt).notes) == 2 and not state(rt).opted_out


# kills: bot/deletion_events.py:_said a deletion the sweep had sent again dated at its arrival
def test_an_off_and_on_said_after_a_deletion_made_while_on_win_when_all_are_redelivered(served):
    """The server down for ten minutes: a maintainer deletes the notes comment (updates
    on), then the author says `/notes off` and `/notes on`; the sweep has the three
    sent again, in the order GitHub first sent them. Dated at its arrival, the deletion
    outranked the `off` and `on` written after it: the PR stayed off."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    swept(rt, fake, missed(fake, c, 600))
    assert state(rt).opted_out and state(rt).comment_id is None
    said_ago(client, rt, fake, "/notes off", 500)
    said_ago(client, rt, fake, "/notes on", 400)
    assert not state(rt).opted_out  # README: `/notes on` resumes them
    assert sticky(fake) is not None and sticky(fake).id != c.id


# kills: bot/deletion_events.py:_said a deletion made while on dated at the last `on`
# kills: bot/sticky.py:_write the comment an `on`'s write edited taken for one it replaced
def test_a_deletion_made_while_on_outranks_an_on_written_before_it_and_run_late(served, caplog):
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    said_ago(client, rt, fake, "/notes off", 900)
    said_ago(client, rt, fake, "/notes on", 600)
    c = sticky(fake)
    assert not state(rt).opted_out and c is not None and state(rt).replaced_id is None
    answer = deleted(client, rt, fake, c)  # at once
    assert ran(caplog, answer) == f"updates off: our comment {c.id} was deleted"
    assert state(rt).opted_out
    said_ago(client, rt, fake, "/notes on", 30)  # written before the deletion, run late
    assert state(rt).opted_out and ours(fake) == []


def test_deleting_a_known_comment_turns_updates_off_before_any_write(served):
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    fake.clear_requests()
    deleted(client, rt, fake, c)
    s = state(rt)
    assert s.opted_out and s.comment_id is None and s.switched_at is not None
    assert fake.calls("GET", "/repos/*/issues/*/comments") == []  # known: no call needed
    # `/notes` still answers while off; a plain PR event does not post
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == []


def _copy_of_ours(fake):
    return fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nmy own list", login="octo-dev")


# (the comment deleted, who deleted it, what is said of it): none of these is our notes comment
# deleted by a maintainer
NOT_COUNTED = {
    "a person's comment": (
        lambda fake: fake.add_comment(DEFAULT_REPO, N, "lgtm"),
        MAINTAINER,
        "deleted, but not a notes comment",
    ),
    "a person's copy of our marker": (
        _copy_of_ours,
        MAINTAINER,
        "ignored: not our notes comment (a copy of its text)",
    ),
    "a reply of ours": (  # (queued: it may be one given back, told by its id)
        lambda fake: replies(fake)[0],
        MAINTAINER,
        "ignored: not a comment given back to a person",
    ),
    "the bot deleting its own": (
        lambda fake: fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nsecond", login=BOT),
        {"login": BOT, "id": 1, "type": "Bot"},
        f"ignored: sent by the bot itself ({BOT})",
    ),
    "a second copy of ours": (
        lambda fake: fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nsecond", login=BOT),
        MAINTAINER,
        "ignored: a second notes comment of ours; {kept} is the one kept",
    ),
}


@pytest.mark.parametrize("case", NOT_COUNTED)
def test_a_deletion_of_anything_but_our_notes_comment_changes_nothing(served, case, caplog):
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    say(client, rt, fake, "/notes help")  # a reply of ours
    kept = sticky(fake)
    text = kept.body  # (the fake's comment changes in place)
    make, by, why = NOT_COUNTED[case]
    answer = deleted(client, rt, fake, make(fake), by=by)
    said = answer["reason"] if answer["status"] == "ignored" else ran(caplog, answer)
    assert why.format(kept=kept.id) in said
    assert not state(rt).opted_out and state(rt).comment_id == kept.id
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert sticky(fake).id == kept.id and sticky(fake).body != text  # kept up to date


# kills: bot/dispatch.py:_our_own a token owner's deletion of the notes comment taken for the bot's
@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN, or asked
@pytest.mark.parametrize("by", [MAINTAINER, {"login": OWNER, "id": 3, "type": "User"}])
def test_with_a_token_the_notes_comment_deleted_by_anyone_even_its_owner_turns_updates_off(
    tmp_path, fake_github, monkeypatch, configured, by
):
    """The bot deletes only its second copies, never the one it keeps: the token's
    owner deleting that one acts as a person (it was taken for the bot converging)."""
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(with_token(tmp_path, fake, configured)) as (client, rt):
        tune(rt)
        say(client, rt, fake, "/notes")
        (notes,) = written_as(fake)
        assert notes.body.startswith(MARKER)
        # a second copy: the bot converging (or its owner, not told apart): nothing changes
        owner = {"login": OWNER, "id": 3, "type": "User"}
        copy = fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nsecond", login=OWNER)
        deleted(client, rt, fake, copy, by=owner)
        assert not state(rt).opted_out and state(rt).comment_id == notes.id
        deleted(client, rt, fake, notes, by=by)
        assert state(rt).opted_out and state(rt).comment_id is None


# a rewrite (`edited`: its text before opened with our marker) counts as a deletion
@pytest.mark.parametrize("action", ["deleted", "edited"])
def test_a_dry_run_takes_no_deletion_or_rewrite_for_one_of_its_comments(
    tmp_path, monkeypatch, caplog, action
):
    clean_env(monkeypatch)
    caplog.set_level("INFO", logger="review_notes")
    # the bot's login known, so only the dry run's own rule holds it back
    with serving(make_settings(tmp_path, bot_login=BOT)) as (client, rt):
        deliver_pr(client, rt, number=N, title=MATCHING_TITLE, files=MATCHING_FILES)
        known = state(rt).comment_id
        assert known is not None
        now = time.time()
        bot = SimpleNamespace(login=BOT, id=1, type="Bot")
        body = f"{MARKER}\nx" if action == "deleted" else "Moved to the description."
        comment = SimpleNamespace(id=known, body=body, user=bot, created_at=now, updated_at=now)
        old = f"{MARKER}\nx" if action == "edited" else None
        payload = comment_payload(comment, action=action, old_body=old)
        payload["sender"] = dict(MAINTAINER)
        answer = post(client, "issue_comment", payload).json()
        drain(rt)
        said = ran(caplog, answer, action)
        assert said.startswith("ignored: a dry run posts no comment on GitHub")
        assert not state(rt).opted_out and state(rt).comment_id == known
        assert state(rt).given_back == ()  # its own comment, never passed over


# kills: bot/deletion_events.py:_pasted_on a dry run's comment said given back
def test_a_dry_run_gives_back_no_comment_of_its_own_our_marker_is_pasted_on(
    tmp_path, monkeypatch, caplog
):
    """A reply of the dry run's edited to open with our notes marker: its ids are its own
    table's, none on GitHub, so nothing is given back, nor said to be."""
    clean_env(monkeypatch)
    caplog.set_level("INFO", logger="review_notes")
    with serving(make_settings(tmp_path, bot_login=BOT)) as (client, rt):
        deliver_pr(client, rt, number=N, title=MATCHING_TITLE, files=MATCHING_FILES)
        known = state(rt).comment_id
        assert known is not None
        now = time.time()
        bot = SimpleNamespace(login=BOT, id=1, type="Bot")
        reply = SimpleNamespace(
            id=known + 1, body=f"{MARKER}\nx", user=bot, created_at=now, updated_at=now
        )
        payload = comment_payload(reply, action="edited", old_body=f"{REPLY_MARKER}\nhelp")
        payload["sender"] = dict(MAINTAINER)
        answer = post(client, "issue_comment", payload).json()
        drain(rt)
        assert ran(caplog, answer, "edited") == "ignored: no words of a rewrite owed back onto it"
        assert state(rt).given_back == ()


def deletion_event(body: str, sender: dict, author: str = BOT, author_type: str = "Bot") -> dict:
    return {
        "action": "deleted",
        "repository": {"full_name": DEFAULT_REPO},
        "issue": {"number": N, "pull_request": {"url": "x"}},
        "sender": sender,
        "comment": {"id": 11, "body": body, "user": {"login": author, "type": author_type}},
    }


BY_BOT = {"login": BOT, "type": "Bot"}
BY_OWNER = {"login": OWNER, "type": "User"}
TOKEN = dict(github_token="ghp_x", public_url="https://notes.example.org")
NOTES = f"{MARKER}\n### Review notes"


# kills: bot/dispatch.py:_our_own a deletion of our comment by a maintainer taken for our own
# kills: bot/dispatch.py:_may_be_our_own the token's login not asked for a deletion it may have sent
@pytest.mark.parametrize(
    ("settings", "payload", "why", "asked"),
    [
        # by a maintainer, of the comment the bot wrote: for the handler (its author is ours)
        ({}, deletion_event(NOTES, MAINTAINER), "", 0),
        ({}, deletion_event(f"\n {NOTES}", MAINTAINER), "", 0),
        # the App converging (it deletes a second notes comment of its own)
        ({}, deletion_event(NOTES, BY_BOT), f"sent by the bot itself ({BOT})", 1),
        ({"bot_login": BOT}, deletion_event(NOTES, BY_BOT), f"sent by the bot itself ({BOT})", 0),
        # a person's comment, a reply of ours: no notes comment
        ({}, deletion_event("lgtm", MAINTAINER, "octo-dev", "User"), "not a notes", 0),
        ({}, deletion_event(f"{REPLY_MARKER}\nhelp", MAINTAINER), "not a notes", 0),
        # with a token: its account's deletions are its owner's or the bot's: the handler's
        (TOKEN, deletion_event(NOTES, BY_OWNER, OWNER, "User"), "", 1),
        (TOKEN, deletion_event(NOTES, MAINTAINER, OWNER, "User"), "", 1),
        (dict(TOKEN, bot_login=OWNER), deletion_event(NOTES, BY_OWNER, OWNER, "User"), "", 0),
    ],
)
def test_a_deletion_is_routed_when_someone_else_deleted_a_notes_comment(
    tmp_path, settings, payload, why, asked
):
    port = AppDryRun(Database(tmp_path / "port.sqlite3"))
    port.login = OWNER if "github_token" in settings else BOT
    route = build_dispatcher().route("issue_comment", "deleted")
    d = Dispatcher()
    d.add(replace(route, handler=lambda ctx, dl: "handled"))
    ctx = SimpleNamespace(settings=make_settings(tmp_path, **settings), github=port)
    said = d.dispatch(ctx, Delivery("d1", "issue_comment", "deleted", payload))
    assert (why in said and said != "handled") if why else said == "handled"
    assert port.asked == asked


class AppDryRun(DryRunGitHub):
    """The dry-run port, knowing the bot's login as the GitHub client does."""

    def __init__(self, db: Database):
        super().__init__(db)
        self.asked = 0
        self.login = BOT

    def bot_login(self) -> str:
        self.asked += 1
        return self.login


def test_a_deletion_whose_comment_id_is_no_number_is_refused_at_intake(served):
    client, rt, fake = served
    payload = deletion_event(NOTES, MAINTAINER)
    payload["comment"]["id"] = "11"
    r = post(client, "issue_comment", payload)
    assert r.status_code == 400 and "comment.id: not a positive integer" in r.text


# kills: bot/deletion_events.py:check_deleted a comment's user no object queued, failing each run
@pytest.mark.parametrize("user", ["octo-dev", ["octo-dev"], 7])
def test_a_deletion_whose_comment_user_is_no_object_is_refused_at_intake(served, user):
    client, rt, fake = served
    payload = deletion_event(NOTES, MAINTAINER)
    payload["comment"]["user"] = user
    r = post(client, "issue_comment", payload)
    assert r.status_code == 400 and "comment.user: not an object" in r.text
    assert rt.queue.counts()["failed"] == 0


@pytest.mark.parametrize("rewritten", [False, True])
def test_a_deletion_whose_installation_id_is_no_integer_is_refused_at_intake(served, rewritten):
    # queued, then failed at each run: "installation.id: not an integer (str)"
    client, rt, fake = served
    payload = deletion_event(NOTES, MAINTAINER)
    if rewritten:  # a notes comment's marker edited away counts as its deletion
        payload.update(action="edited", changes={"body": {"from": payload["comment"]["body"]}})
        payload["comment"]["body"] = "their words"
    payload["installation"] = {"id": "1001"}
    r = post(client, "issue_comment", payload)
    said = "malformed issue_comment payload: installation.id: not an integer (str)"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0


def test_a_deletion_whose_comment_user_is_null_is_run(served, caplog):
    """GitHub sends `user: null` for a comment whose account was deleted: a comment the
    state knows is still ours (renamed or not, GitHub may name no one)."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    payload = deletion_event(NOTES, MAINTAINER)
    payload["comment"].update(id=sticky(fake).id, user=None)
    answer = post(client, "issue_comment", payload).json()
    drain(rt)
    assert ran(caplog, answer).startswith("updates off") and state(rt).opted_out


# the order key of a deletion made (first sent) at 10:00:00, by what the state says
MADE = "2026-09-01T10:00:00.000000Z"
ON_BEFORE, ON_AFTER = "2026-09-01T09:59:00Z/00000000000000000001#00", "2026-09-01T10:01:00Z/~"


# kills: bot/deletion_events.py:_said the while-off rule taken for any switch (an `on` written
#   after the deletion outranked), or for none (a deletion made before a standing `off` ignored)
@pytest.mark.parametrize(
    ("opted_out", "switched_at", "key"),
    [
        (False, None, "2026-09-01T10:00:00Z/~"),
        (False, ON_BEFORE, "2026-09-01T10:00:00Z/~"),
        (False, ON_AFTER, "2026-09-01T10:00:00Z/~"),  # below the `on`: it decides
        (True, ON_BEFORE, "2026-09-01T10:00:00Z/~"),  # an `off` written before
        (True, ON_AFTER, f"{ON_AFTER}~"),  # while an `off` written after stands: just after it
    ],
)
def test_a_deletion_is_dated_when_github_first_sent_it_not_before_a_standing_off(
    opted_out, switched_at, key
):
    state = PRState(DEFAULT_REPO, N, opted_out=opted_out, switched_at=switched_at)
    swept = Delivery("d", "issue_comment", "deleted", {}, received_at="2026-09-01T12:00:00Z")
    assert _said(state, replace(swept, sent_at=MADE)) == key
    live = Delivery("d", "issue_comment", "deleted", {}, received_at=MADE, updated_at="x")
    assert _said(state, live) == key  # a retry keeps when it was received


# kills: bot/deletion_events.py:handle_deleted GitHub's word that our App wrote it not counted
def test_a_renamed_apps_notes_comment_deleted_is_ours_by_the_app_github_names(served, caplog):
    """The App renamed while the server runs: its bot login (asked once, kept) is the old
    one, GitHub names the new one as the comment's author. A create whose answer was
    lost left no id known: the deletion was taken for one of a person's copy of our text."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c = lose_the_create(client, rt, fake)
    fake.rename_app("renamed-notes")
    assert c.user.login == "renamed-notes[bot]" and rt.ctx.github.bot_login() == BOT
    answer = deleted(client, rt, fake, c)
    assert ran(caplog, answer) == f"updates off: our comment {c.id} was deleted"
    assert state(rt).opted_out


RENAMED_BOT = {"login": "renamed[bot]", "id": 41, "type": "Bot"}
OTHER_APP = {"id": DEFAULT_APP_ID + 1, "slug": "other", "client_id": "Iv1.other"}


# kills: bot/markers.py:by_our_app another App's comment, or none's, or a person's through ours,
#   taken for ours
@pytest.mark.parametrize(
    ("app", "app_id", "ours"),
    [
        ({"id": DEFAULT_APP_ID, "slug": "renamed"}, str(DEFAULT_APP_ID), True),
        ({"id": 1, "client_id": "Iv1.abc"}, "Iv1.abc", True),  # GITHUB_APP_ID: the client ID
        (OTHER_APP, str(DEFAULT_APP_ID), False),
        (OTHER_APP, "Iv1.abc", False),
        ({"slug": "no-id"}, "None", False),
        (None, str(DEFAULT_APP_ID), False),
        ("renamed", str(DEFAULT_APP_ID), False),
        ({"id": DEFAULT_APP_ID}, None, False),  # a token: no App of ours
    ],
)
def test_a_comment_is_our_apps_when_github_names_our_app_id_or_client_id(app, app_id, ours):
    comment = {"performed_via_github_app": app, "user": dict(RENAMED_BOT)}
    assert _via_our_app(comment, app_id) is ours
    # a person acting through our App (a user-to-server token) writes as themselves
    comment["user"] = dict(MAINTAINER)
    assert _via_our_app(comment, app_id) is False


def test_another_apps_copy_of_our_text_deleted_changes_nothing(served, caplog):
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    copy = fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nmine", login="other[bot]")
    payload = comment_payload(copy, action="deleted")
    payload["sender"] = dict(MAINTAINER)
    payload["comment"]["performed_via_github_app"] = OTHER_APP
    answer = post(client, "issue_comment", payload).json()
    drain(rt)
    assert ran(caplog, answer) == "ignored: not our notes comment (a copy of its text)"
    assert not state(rt).opted_out


# kills: bot/deletion_events.py:_by_our_account a renamed App's own deletion taken for a person's
@pytest.mark.parametrize(
    ("sender", "author", "via_app", "ours"),
    [
        ({"login": OWNER, "id": 3}, {"login": OWNER, "id": 3}, False, True),  # a token's login
        ({"login": "OCTO-DEV", "id": 3}, {"login": OWNER, "id": 3}, False, True),  # any case
        (RENAMED_BOT, RENAMED_BOT, True, True),  # the App renamed: its account by its id
        (RENAMED_BOT, RENAMED_BOT, False, False),  # not our App's comment: an id says nothing
        (MAINTAINER, RENAMED_BOT, True, False),
        ({"login": "ghost"}, {"login": "renamed[bot]"}, True, False),  # no ids: not the same
    ],
)
def test_the_bots_account_deleted_it_by_its_login_or_as_the_app_account_that_wrote_it(
    sender, author, via_app, ours
):
    payload = {"sender": sender, "comment": {"user": author}}
    assert _by_our_account(payload, {OWNER.lower(), "octo-dev"}, via_app=via_app) is ours


# kills: bot/dispatch.py:own_logins a login compared as GitHub spelt it (logins ignore case)
@pytest.mark.parametrize(("configured", "asked"), [("Notes-Bot", None), (None, "Notes-Bot")])
def test_the_bots_logins_are_known_in_any_case_from_settings_or_github(tmp_path, configured, asked):
    settings = make_settings(tmp_path, bot_login=configured)
    assert own_logins(settings, asked) == {"notes-bot"}
    assert own_logins(make_settings(tmp_path), None) == set()


# kills: bot/markers.py:written_by_us a login compared as GitHub spelt it, or our App's
#   comment not taken for ours whatever login it has
@pytest.mark.parametrize(
    ("login", "kind", "keys", "app_id", "ours"),
    [
        ("Notes-Bot[bot]", "Bot", (), None, True),  # its login, in any case
        ("renamed[bot]", "Bot", (DEFAULT_APP_ID, None), str(DEFAULT_APP_ID), True),
        ("renamed[bot]", "Bot", (DEFAULT_APP_ID, None), None, False),  # a token: no App
        ("octo-dev", "User", (DEFAULT_APP_ID, None), str(DEFAULT_APP_ID), False),  # through it
        (None, None, (), str(DEFAULT_APP_ID), False),
    ],
)
def test_a_comment_is_ours_by_the_bots_login_or_as_our_app_wrote_it(
    login, kind, keys, app_id, ours
):
    assert written_by_us(login, kind, keys, {"notes-bot[bot]"}, app_id) is ours


# kills: bot/sticky.py:_write the copy an on's write deleted itself taken for the one replaced
@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN, or asked
def test_with_a_token_the_copy_an_ons_update_deletes_itself_is_no_deletion_made_after_the_on(
    tmp_path, fake_github, monkeypatch, configured, caplog
):
    """Two notes comments of the bot's, the state knowing the newer (a create whose answer
    was lost while the list lagged: docs/commands.md, Ownership). The update of `/notes on`
    keeps the oldest and deletes the other itself; GitHub's word of that deletion names the
    token's account as who deleted it, as when its owner deletes one. It is the bot
    converging, no maintainer's deletion made after the `on`: the comment kept stays, and so
    do the updates (it was taken for the deletion of the one the `on` found gone: the bot
    deleted the comment it keeps, and the updates went off)."""
    clean_env(monkeypatch)
    caplog.set_level("INFO", logger="review_notes")
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(with_token(tmp_path, fake, configured)) as (client, rt):
        tune(rt)
        say(client, rt, fake, "/notes")
        say(client, rt, fake, "/notes off", login=AUTHOR)
        assert state(rt).opted_out
        (kept,) = [c for c in written_as(fake) if c.body.startswith(MARKER)]
        copy = fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nsecond", login=OWNER)
        rt.ctx.prs.put(replace(state(rt), comment_id=copy.id))  # the newer one known
        say(client, rt, fake, "/notes on", login=AUTHOR)
        assert [c.id for c in written_as(fake) if c.body.startswith(MARKER)] == [kept.id]
        assert state(rt).comment_id == kept.id and state(rt).replaced_id is None
        answer = deleted(client, rt, fake, copy, by={"login": OWNER, "id": 3, "type": "User"})
        assert ran(caplog, answer).startswith("ignored: a second notes comment of ours")
        assert [c.id for c in written_as(fake) if c.body.startswith(MARKER)] == [kept.id]
        assert not state(rt).opted_out and state(rt).comment_id == kept.id


# kills: bot/sticky.py:_write the comment an `on` replaced remembered beside another comment since
def test_the_comment_a_plain_notes_posts_is_not_taken_for_the_one_an_ons_update_posted(served):
    """Off, the notes comment A up. The server down: the author says `/notes on`, a
    maintainer deletes A, then the comment C the `on`'s update posted (its word lost
    ), and someone says `/notes`, which finds C gone and posts D. The `on`'s
    deletion sent again last: A was deleted after the `on`, which outranks the `on`'s
    comment C (gone already), not D, which a person asked for (docs/commands.md: `/notes`
    still answers; no other comment is ever deleted). A was remembered beside D, the bot
    deleting D."""
    client, rt, fake = served
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake)
    assert state(rt).replaced_id == a.id
    fake.delete_comment(c.id)  # (its word comes later: told of, it is no longer the one kept)
    say(client, rt, fake, "/notes")
    d = sticky(fake)
    assert d is not None and d.id not in (a.id, c.id) and state(rt).comment_id == d.id
    assert state(rt).replaced_id is None
    swept(rt, fake, attempt)
    assert ours(fake) == [d] and fake.calls("DELETE") == []


# kills: bot/sticky.py:_replaced the comment an `on` replaced forgotten by the next write
def test_a_deletion_made_after_an_on_still_wins_after_a_pr_event_edited_the_ons_comment(served):
    """As above (the deletion made after the `on` whose update posted C), with a push
    between: its update edits C. The comment replaced is remembered while C is kept."""
    client, rt, fake = served
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake)
    text = c.body
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert sticky(fake).id == c.id and sticky(fake).body != text  # edited
    swept(rt, fake, attempt)
    assert ours(fake) == [] and state(rt).opted_out and state(rt).comment_id is None


# kills: bot/sticky.py:refresh_sticky a plain `/notes` that finds the comment kept gone
#   posting it anew with the updates on
@pytest.mark.parametrize("told", ["before", "after"])  # GitHub's word of the deletion
def test_a_plain_notes_that_finds_the_notes_comment_deleted_posts_it_paused_whenever_told(
    served, told, caplog
):
    """A maintainer deletes the notes comment A; someone says `/notes`. Told of the
    deletion first, the bot turns the updates off and the `/notes` posts the comment anew
    with the notes and the paused line (docs/commands.md). Told last (the server down,
    the sweep having the deletion sent again), the `/notes`'s update found A gone and
    posted C with the updates on, and A's deletion was then ignored as one of a second
    notes comment of ours: the updates stayed on. The `/notes` takes A gone for the
    deletion it is, as a PR event's update does: the same either way."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    attempt = missed(fake, a, 60)
    if told == "before":
        swept(rt, fake, attempt)
        assert state(rt).opted_out
    say(client, rt, fake, "/notes")
    c = sticky(fake)
    assert c is not None and c.id != a.id and "Automatic updates are paused" in c.body
    assert state(rt).opted_out and state(rt).comment_id == c.id
    if told == "after":
        swept(rt, fake, attempt)
    assert state(rt).opted_out and ours(fake) == [c] and state(rt).comment_id == c.id
    text = c.body
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == [c] and sticky(fake).body == text  # off: left alone
    said_ago(client, rt, fake, "/notes on", -2)  # said after all: resumes the updates
    assert not state(rt).opted_out and "paused" not in sticky(fake).body


def test_a_deletion_run_again_after_the_ons_comment_went_ends_the_same(served, caplog):
    """A run of the deletion made after the `on` (as above) that deleted C and stopped
    before the PR's state kept it (a crash between the two, the order the handler takes
    so that a failed call is retried): its re-run finds C gone, deletes nothing else, and
    turns the updates off."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake)
    fake.delete_comment(c.id)  # the first run's deletion of C
    fake.clear_requests()
    swept(rt, fake, attempt)
    assert fake.calls("DELETE") == [] and state(rt).opted_out and state(rt).comment_id is None


# kills: bot/sticky.py:refresh_sticky (hand) a person's write that asks GitHub twice with the
#   comment there (its first write, to see whether the comment is gone, then the one it was)
def test_a_notes_that_finds_the_notes_comment_there_makes_the_calls_it_made_before(served):
    """A `/notes` (any write a person asks for) while the comment kept may be gone asks for
    it with its own write: with the comment there that is the one write it always was, one
    comment list and an edit only when the text changes, no second look for it."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    for command, edits in (("/notes", 0), ("/notes why", 1)):
        fake.clear_requests()
        say(client, rt, fake, command)
        assert len(fake.calls("GET", "/repos/*/issues/*/comments")) == 1, command
        assert fake.calls("GET", "/repos/*/issues/comments/*") == [], command
        assert len(fake.calls("PATCH", "/repos/*/issues/comments/*")) == edits, command
        assert fake.calls("POST", "/repos/*/issues/*/comments") == [], command
        assert ours(fake) == [a] and not state(rt).opted_out


# kills: bot/deletion_events.py:_said a deletion made while off dated before the standing `off`
def test_a_deletion_made_while_off_is_recorded_though_a_second_off_was_said_after_it(served):
    """Off, the notes comment A up (paused). The server down: a maintainer deletes A, then
    the author says `/notes off` again; the second `off` runs first and finds nothing to
    write (A said paused already), and the sweep has the deletion sent again. Dated when
    GitHub first sent it, before the second `off`, the deletion was ignored as outranked:
    the bot went on believing A up, and a `/notes wrong 1` was answered that the notes
    comment shows no note, of a comment no one can see. Updates are off either way; the
    deletion is recorded no earlier than just after the `off`, and the answer is that
    there is no notes comment."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    attempt = missed(fake, a, 300)
    fake.clear_requests()
    said_ago(client, rt, fake, "/notes off", 200)
    assert fake.calls("PATCH") == [] and state(rt).comment_id == a.id  # (A says paused)
    swept(rt, fake, attempt)
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    (reply,) = replies(fake)
    assert "There is no notes comment on this pull request" in reply.body, reply.body
    assert ours(fake) == [reply] and state(rt).opted_out and state(rt).comment_id is None


# kills: bot/deletion_events.py:handle_deleted the deletion a `/notes` found taken for a second copy
@pytest.mark.parametrize("on", [500, 200])  # seconds ago: before the deletion, or after it
@pytest.mark.parametrize("told", ["last", "before the on"])  # GitHub's word of the deletion
def test_a_deletion_a_notes_found_is_dated_by_githubs_word_against_a_late_on(
    served, on, told, caplog
):
    """Off, the notes comment A up (paused). The server down: a maintainer deletes A (300 s
    ago) and the author says `/notes on` (`on` s ago); both deliveries fail. Someone says
    `/notes` now: it finds A gone, takes it for a deletion (updates off, dated just after
    the last `off`: its time not known) and posts C with the paused line. Then the sweep
    has the `on` and the deletion sent again. Written before the deletion, the `on` ran
    late on the guessed date and won, and GitHub's word of A's deletion was then ignored
    as one of a second copy: the updates were on though the maintainer's deletion was the
    last word (docs/commands.md: an `on` written before it does not win). Now that word
    dates the deletion, in either order: updates off, C kept (asked for after the
    deletion) with its paused line back. Written after it, the `on` wins either way."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    attempt = missed(fake, a, 300)
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = sticky(fake)
    assert c.id != a.id and "Automatic updates are paused" in c.body and state(rt).opted_out
    if told == "before the on":
        fake.clear_requests()
        swept(rt, fake, attempt)
        assert fake.calls("GET", "/repos/*/pulls/*") == []  # C says paused already: no call
    said_ago(client, rt, fake, "/notes on", on)  # (GitHub's redelivery of it)
    if told == "last":
        swept(rt, fake, attempt)
    assert ours(fake) == [c] and rt.queue.counts()["failed"] == 0
    if on < 300:
        assert not state(rt).opted_out and "paused" not in sticky(fake).body
        return
    assert state(rt).opted_out and "Automatic updates are paused" in sticky(fake).body
    assert state(rt).notes != ()  # what the `/notes` showed stands
    said = f"updates off: our comment {a.id} was deleted (found gone by a command)"
    assert any(m.endswith(said) or f"{said}; an `on`" in m for m in caplog.messages)
    text = sticky(fake).body
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == [c] and sticky(fake).body == text  # off: left alone


def test_the_notes_a_deletion_dated_now_shows_again_on_a_short_list_are_looked_at_again(served):
    """As above (the `on` written before the deletion, run late, then GitHub's word of
    the deletion), after a push whose files GitHub lists short when that word comes: the
    notes the `/notes` asked for, shown again under the paused line, were matched on the
    short list for good (a PR event leaves a paused comment alone), where a command's
    update on it looks again (bot.files_recheck). So does this one now."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    said_ago(client, rt, fake, "/notes off", 600)
    attempt = missed(fake, sticky(fake), 300)
    say(client, rt, fake, "/notes", login=AUTHOR)  # A found gone: C, paused
    said_ago(client, rt, fake, "/notes on", 500)
    assert not state(rt).opted_out and "paused" not in sticky(fake).body
    fake.pull(DEFAULT_REPO, N).head_sha = "b" * 40  # a push, its event still to come
    fake.inject("GET", "/repos/*/pulls/*/files", Fault(status=200, body=[]))
    swept(rt, fake, attempt)  # (drained: a re-check too, after its delay)
    assert fake.pending_faults() == 0 and rt.queue.counts()["failed"] == 0
    body = sticky(fake).body
    assert state(rt).opted_out and "Automatic updates are paused" in body
    assert "a path of this note" in body, "matched on the short list for good"


@pytest.mark.parametrize("on", [500, 200])  # seconds ago: before the deletion, or after it
def test_a_deletion_a_notes_found_with_no_off_or_on_before_is_dated_by_githubs_word(served, on):
    """No `off`/`on` ever said. The server down: a maintainer deletes the notes comment A
    (300 s ago) and the author says `/notes on` (`on` s ago) to have it back; someone says
    `/notes` now, which finds A gone (updates off, A's deletion dated when the `/notes`
    ran) and posts C paused. The `on`, then the deletion, sent again: the `on` written
    after the deletion was outranked by that date and changed nothing, the updates stayed
    off (docs/commands.md: an `on` written after the deletion wins). With no `off`/`on`
    to date it after, a deletion found so waits for GitHub's word to date it."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    attempt = missed(fake, a, 300)
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = sticky(fake)
    assert c.id != a.id and "Automatic updates are paused" in c.body and state(rt).opted_out
    said_ago(client, rt, fake, "/notes on", on)  # (GitHub's redelivery of it)
    swept(rt, fake, attempt)
    assert ours(fake) == [c]
    if on < 300:
        assert not state(rt).opted_out and "paused" not in sticky(fake).body
    else:
        assert state(rt).opted_out and "Automatic updates are paused" in sticky(fake).body


def test_a_deletion_after_an_on_whose_delete_github_applied_but_failed_is_dated_as_made(served):
    """The deletion of A made after the `on` whose update posted C (as above), sent again:
    GitHub applies the bot's delete of C but answers 5xx at every try, the delivery
    fails. The updates were left on with C known: the next PR event found C gone and took
    it for a new deletion dated then, which outranked the author's `/notes on` written
    after the maintainer's deletion and run late: the updates stayed off. The deletion
    is recorded first, with C owed (deleted at the PR's next event): the `on` wins."""
    client, rt, fake = served
    a, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    fake.inject(
        "DELETE",
        "/repos/*/issues/comments/*",
        Fault.error(500, apply=True),
        Fault.error(502),
        Fault.error(500),
    )
    swept(rt, fake, attempt)
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    deliver_pr(client, rt, **labeled_one_more_note(updated_at=now))
    assert ours(fake) == []
    said_ago(client, rt, fake, "/notes on", 100)  # written after the deletion, run late
    assert sticky(fake) is not None and not state(rt).opted_out
    assert state(rt).owed_delete is None

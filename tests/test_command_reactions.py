"""Slash commands end to end, their reactions (bot.command_reactions): one GitHub
refuses fails the delivery for `review-notes retry`, one rate limited puts it back, one
on a comment deleted meanwhile is moot, and the 👍 a deferred update could not add
stays owed.

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.command_reactions import Reactions, ReactionsFailed
from bot.commands import CommandConfig
from bot.github_port import GitHubError, PRRef, rate_limit_wait
from tests.command_kit import (
    AUTHOR,
    INSTANT,
    N,
    _putting_back,
    _said,
    comment_payload,
    fail_the_done_reaction,
    reactions,
    replies,
    review_payload,
    say,
    state,
    sticky,
    sticky_writes,
    tune,
)
from tests.fake_github import DEFAULT_INSTALLATION_ID, DEFAULT_REPO, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    drain,
    live_settings,
    post,
    pr_payload,
    serving,
    wait_until,
)


@pytest.mark.parametrize(("line", "reply"), [("/notes", False), ("/notes topic rocm", True)])
def test_a_done_reaction_github_refuses_fails_the_delivery_and_retry_adds_it(live, line, reply):
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, line, login="octo-dev")
    fail_the_done_reaction(fake, c)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert reactions(fake, c) == {"eyes"}
    failed = rt.queue.get(r.json()["delivery"])
    assert failed.state == "failed" and "+1 on comment" in failed.last_error
    assert client.get("/healthz").json()["failed"] == 1
    assert len(replies(fake)) == reply and (sticky(fake) is not None) != reply
    writes = sticky_writes(fake)

    assert rt.queue.retry() != []  # the operator's `review-notes retry`
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert reactions(fake, c) == {"eyes", "+1"}
    # only the reaction was redone: no second reply, no second or rewritten notes comment
    assert len(replies(fake)) == reply and sticky_writes(fake) == writes


# kills: bot/command_reactions.py:_gone a reaction GitHub answers 410 Gone (the comment is
#        gone) fails the delivery, for a retry that can never add it
@pytest.mark.parametrize(("status", "reason"), [(404, "Not Found"), (410, "Gone")])
def test_a_reaction_on_a_comment_deleted_meanwhile_is_moot(live, status, reason):
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    react = f"/repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"
    fake.inject("POST", react, *[Fault.error(status, reason)] * 2)  # 👀 and 👍
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"  # nothing a retry could add
    assert sticky(fake) is not None and fake.pending_faults() == 0


def test_a_reaction_on_a_deleted_comment_is_moot_when_finding_the_installation_fails(live):
    # Each 404 under the delivery's installation asks GitHub which installation the
    # repository is in now (it may have been transferred); that lookup failing (5xx
    # each try) failed the delivery with the lookup's error, where the 404 it was
    # asked for is an answer: the comment was deleted, nothing a retry could add
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    react = f"/repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"
    fake.inject("POST", react, *[Fault.error(404, "Not Found")] * 2)  # 👀 and 👍
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/installation", *[Fault.error(502)] * 20)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert fake.calls("GET", f"/repos/{DEFAULT_REPO}/installation")  # it was asked, and failed
    done = rt.queue.get(r.json()["delivery"])
    assert done.state == "done", done.last_error
    assert sticky(fake) is not None


def test_a_done_reaction_a_deferred_update_could_not_add_stays_owed(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0.3))
    say(client, rt, fake, "/notes")  # opens the flood-control window
    c = fake.add_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    fail_the_done_reaction(fake, c)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert "(why mode)" in sticky(fake).body  # the deferred update ran, its 👍 failed
    assert reactions(fake, c) == {"eyes"} and rt.queue.counts()["failed"] == 1
    assert state(rt).pending.acks == (c.id,)  # still owed, not forgotten
    assert rt.queue.retry() != []
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert rt.queue.counts()["failed"] == 0 and state(rt).pending is None


# --- a rate-limited 👍 put back, not failed ---

REACTIONS = "/repos/*/issues/comments/*/reactions"


def test_a_rate_limited_plus_one_is_put_back_not_failed(
    tmp_path, fake_github, app_key, monkeypatch
):
    """A reaction's rate limit (a GitHubError with retry_after) was swallowed by
    `Reactions.add` into ReactionsFailed, no GitHubError: `/notes help` whose `+1` met a
    Retry-After of 60 s ended `failed` for good, though GitHub does not redeliver."""
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        tune(rt)
        # eyes goes through, the +1 is rate limited for a minute
        fake.inject("POST", REACTIONS, Fault(), Fault.too_many_requests(retry_after=60))
        c, delivery = _said(client, fake, "/notes help")
        wait_until(
            lambda: (
                rt.queue.get(delivery).state in ("pending", "failed")
                and rt.queue.get(delivery).attempts >= 1
                and rt.queue.get(delivery).last_error
            ),
            timeout=20,
            what="the delivery's outcome",
        )
        got = rt.queue.get(delivery)
        assert len(replies(fake)) == 1 and reactions(fake, c) == {"eyes"}
        assert (got.state, got.deferrals) == ("pending", 1), (got.state, got.last_error)


def test_a_put_back_for_a_reaction_runs_again_without_replying_twice(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The re-run of a delivery put back for its `+1` adds it, and finds its reply by
    its key: one reply, each reaction once."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt)
        fake.inject("POST", REACTIONS, Fault(), Fault.too_many_requests(retry_after=2))
        c, delivery = _said(client, fake, "/notes help")
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        drain(rt, 20)
        assert rt.queue.get(delivery).state == "done"
        assert len(replies(fake)) == 1 and reactions(fake, c) == {"eyes", "+1"}


# --- commands in a review's body: no reaction tried ---


# kills: bot/command_reactions.py:Reactions.add a review body's commands (no comment to react on)
#        tried for reactions: GitHub can never take them, and the delivery failed for good
def test_commands_in_a_review_body_try_no_reaction_and_their_delivery_is_done(live):
    client, rt, fake = live
    head = fake.pull(DEFAULT_REPO, N).head_sha
    review = review_payload("/notes why\n/notes help\n/notes frobnicate", head_sha=head)
    r = post(client, "pull_request_review", review)
    drain(rt)
    assert "(why mode)" in sticky(fake).body and len(replies(fake)) == 2
    done = rt.queue.get(r.json()["delivery"])
    assert (done.state, done.last_error) == ("done", None)


# --- the put-backs and write budget of a command whose reaction was limited ---


# kills: bot/github_sessions.py:GitHubSessions._pace a rate limit answer not said to be the
#        run's own: a comment whose 👀 GitHub refused, its reply then held back by that
#        pause, was put back as held back by another call's limit, uncounted
def test_a_command_whose_own_reaction_github_limited_counts_its_put_back(
    tmp_path, fake_github, app_key, monkeypatch
):
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        tune(rt)
        # the eyes are refused for a minute; the reply after them is not sent
        fake.inject("POST", REACTIONS, Fault.too_many_requests(retry_after=60))
        c, delivery = _said(client, fake, "/notes help")
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        got = rt.queue.get(delivery)
        assert (got.state, got.waits) == ("pending", 0), got.last_error
        assert replies(fake) == [] and reactions(fake, c) == set()


# kills: bot/command_reactions.py:Reactions.add a reaction held back by another call's
#        pause (never sent) kept from the write budget, at every uncounted put-back
def test_a_command_held_back_by_another_calls_limit_keeps_none_of_its_writes(live):
    # A run held back by the pause another call's limit began sends nothing and is put
    # back uncounted, as often as the limit lasts (an hour's, a dozen pauses): each run
    # of `/notes help` kept its 👀 and its reply, never sent, from the installation's
    # write budget, which commands past it then found spent after the limit.
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill: the budget is what runs keep
    flood = rt.ctx.flood
    assert flood.reserve_writes(1001, 10) is None  # not full: a refund past it shows
    left = flood.installation_writes.left(1001)
    other = N + 1
    fake.add_pull(DEFAULT_REPO, other, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{other}/files", Fault.too_many_requests(600))
    limited = post(client, "pull_request", pr_payload(number=other, title=MATCHING_TITLE))
    wait_until(lambda: rt.queue.get(limited.json()["delivery"]).deferrals == 1, what="a pause")
    c, delivery = _said(client, fake, "/notes help")
    wait_until(lambda: rt.queue.get(delivery).waits == 1, what="the command's put-back")
    assert reactions(fake, c) == set() and replies(fake) == []
    assert flood.installation_writes.left(1001) == left


# kills: bot/github_port.py:GitHubError a failure said never sent unless told otherwise: a
#        reaction GitHub answered (502 at every try) given back to the write budget
def test_a_reaction_github_answered_with_a_failure_keeps_its_write(live):
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill
    flood = rt.ctx.flood
    full = flood.installation_writes.left(1001)
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
    fail_the_done_reaction(fake, c)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert reactions(fake, c) == {"eyes"} and len(replies(fake)) == 1
    assert flood.installation_writes.left(1001) == full - 3  # 👀, the reply, the 👍 tried


# --- reactions limited with different waits; a 404 for an App not installed ---


class _Clock:
    """The client's clock, moved by the test (one thread: no sleep is waited out)."""

    def __init__(self) -> None:
        self.now = 0.0

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_reactions_rate_limited_with_different_waits_put_the_delivery_back_for_the_longest(
    fake_github, make_github_client
):
    """Each reaction met its own rate limit, the pause of one over before the next was
    tried: the delivery goes back for the longest wait, the middle one here (not the
    first, not the last, not the shortest), when every reaction's limit is over."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    t = _Clock()
    client = make_github_client(clock=lambda: t.now, sleep=t.sleep)
    reacting = Reactions(
        SimpleNamespace(github=client), PRRef(DEFAULT_REPO, N, DEFAULT_INSTALLATION_ID)
    )
    for wait in (30, 90, 60):
        c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
        fake.inject("POST", REACTIONS, Fault.too_many_requests(retry_after=wait))
        reacting.add(c.id, "eyes")
        t.now += wait + 1  # this limit is over: the next reaction is sent
    assert [rate_limit_wait(e) for e in reacting.limited] == [30, 90, 60]
    with pytest.raises(GitHubError) as raised:
        reacting.check()
    assert rate_limit_wait(raised.value) == 90


# kills: bot/command_reactions.py:_gone GitHub's 404 saying the App is not installed (or
#        that answer kept) taken for a comment deleted meanwhile: logged "comment N is
#        gone", the reaction dropped, though a retry once it is installed adds it
@pytest.mark.parametrize("named", [DEFAULT_INSTALLATION_ID, None])
def test_a_reaction_the_app_not_installed_refused_fails_not_taken_for_a_deleted_comment(
    fake_github, make_github_client, caplog, named
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    comments = [fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev") for _ in "ab"]
    client = make_github_client()
    if named is None:  # a delivery naming none: the lookup finds the installation first
        assert client.add_reaction(PRRef(DEFAULT_REPO, N), comments[0].id, "heart") is None
    fake.uninstall(DEFAULT_INSTALLATION_ID)
    reacting = Reactions(SimpleNamespace(github=client), PRRef(DEFAULT_REPO, N, named))
    with caplog.at_level("INFO", logger="bot.command_reactions"):
        for c in comments:  # GitHub's 404 each time (a mint's kept after the first)
            reacting.add(c.id, "eyes")
    logged = [r.getMessage() for r in caplog.records if r.name == "bot.command_reactions"]
    assert not any(m.startswith("not reacting") for m in logged), logged
    assert len(logged) == 2 and all("the App is not installed" in m for m in logged), logged
    with pytest.raises(ReactionsFailed, match="the App is not installed") as caught:
        reacting.check()
    assert caught.value.advised  # the reason's own advice: the worker adds none


def test_a_reaction_refused_for_another_cause_leaves_the_advice_to_the_worker(
    fake_github, make_github_client
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    c = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    reacting = Reactions(
        SimpleNamespace(github=make_github_client()),
        PRRef(DEFAULT_REPO, N, DEFAULT_INSTALLATION_ID),
    )
    fake.inject("POST", REACTIONS, Fault(status=422))
    reacting.add(c.id, "eyes")
    with pytest.raises(ReactionsFailed) as caught:
        reacting.check()
    assert not caught.value.advised  # the worker's WARNING says which retry runs it

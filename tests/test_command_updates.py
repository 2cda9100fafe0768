"""Slash commands end to end, the notes comment's update they ask for
(bot.command_updates): `off` and `on`, what they pause and resume, the one said last on
GitHub having the last word (late deliveries, retries, a maintainer's deletion), paused
and draft PRs, and the update deferred to the end of its flood-control window (paid
for, given back, kept over a restart).

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

from collections import Counter

import pytest

from bot.command_updates import REFRESH_ACTION
from bot.commands import CommandConfig
from bot.db import Database
from bot.markers import MARKER
from bot.render import PauseCause, render_paused
from bot.times import utcnow
from tests.command_kit import (
    AUTHOR,
    OWING,
    N,
    _putting_back,
    as_rendered,
    comment_payload,
    content_writes,
    deliver_said_at,
    deliver_without_its_time,
    diff_comment_payload,
    fail_the_done_reaction,
    github_time_ago,
    maintainer_deletes,
    owe_an_update,
    reactions,
    replies,
    retried_for_its_thumb,
    review_payload,
    run_due,
    said_and_left_without_its_thumb,
    say,
    state,
    sticky,
    sticky_writes,
    tune,
    unlocked,
)
from tests.docs_kit import doc
from tests.fake_github import DEFAULT_REPO, FakeComment, Fault
from tests.webhook_kit import (
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    live_settings,
    ours,
    post,
    pr_payload,
    repo_calls,
    serving,
    title_with_one_more_note,
    wait_until,
)


def test_off_silences_pr_events_and_on_resumes_them(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    paused = first.body
    assert "Automatic updates are paused" in paused and "/notes on" in paused
    assert fake.comment(first.id) is not None  # edited, never deleted

    # A push and a new title that would add a note: nothing happens, not even a read.
    fake.clear_requests()
    more = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=more, author=AUTHOR)
    for action in ("synchronize", "edited"):
        payload = pr_payload(
            action=action, title=more, head_sha="b" * 40, changes={"title": {"from": "x"}}
        )
        assert post(client, "pull_request", payload).status_code == 202
    drain(rt)
    assert repo_calls(fake) == Counter() and first.body == paused

    # `/notes` while paused shows the notes once, and says updates are paused.
    say(client, rt, fake, "/notes")
    assert "Automatic updates are paused on this pull request: this comment" in first.body
    assert state(rt).opted_out
    assert "`/notes off`" not in first.body  # the footer offers no stop of what is stopped

    say(client, rt, fake, "/notes on", login=AUTHOR)
    resumed = first.body
    assert "paused" not in resumed
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    payload = pr_payload(action="edited", title=MATCHING_TITLE, head_sha="c" * 40)
    payload["changes"] = {"title": {"from": more}}
    post(client, "pull_request", payload)
    drain(rt)
    assert first.body != resumed  # PR events update the comment again
    assert len(ours(fake)) == 1


def test_off_before_any_comment_writes_nothing(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes off", login=AUTHOR)
    assert ours(fake) == [] and state(rt).opted_out
    assert reactions(fake, c) == {"eyes", "+1"}


def test_refresh_on_a_draft(live):
    client, rt, fake = live
    fake.add_pull(DEFAULT_REPO, N + 1, files=MATCHING_FILES, title=MATCHING_TITLE, draft=True)
    post(client, "pull_request", pr_payload(number=N + 1, title=MATCHING_TITLE, draft=True))
    drain(rt)
    assert ours(fake, N + 1) == []  # drafts wait for ready_for_review ...
    say(client, rt, fake, "/notes", number=N + 1)
    assert "redirect.github.com" in sticky(fake, N + 1).body  # ... unless someone asks


def test_refresh_with_no_match_says_so(live):
    client, rt, fake = live
    fake.add_pull(DEFAULT_REPO, N + 2, files=["docs/contributing.md"], title="Fix a typo")
    say(client, rt, fake, "/notes", number=N + 2, title="Fix a typo")
    assert "No review note matches this pull request" in sticky(fake, N + 2).body


def test_notes_in_a_review_matches_like_notes_in_a_comment(live):
    # a docs-only PR gets only notes it names by their keywords: that needs every file
    # known, which a review's copy of the PR (no changed_files) cannot tell alone
    client, rt, fake = live
    docs = {"files": ["docs/features/spec_decode.md"], "title": "[Docs] EAGLE prefix caching"}
    fake.add_pull(DEFAULT_REPO, N + 10, **docs)
    say(client, rt, fake, "/notes", number=N + 10, title=docs["title"])
    by_comment = as_rendered(rt, sticky(fake, N + 10), N + 10)
    assert "No review note matches this pull request" in by_comment
    head = fake.add_pull(DEFAULT_REPO, N + 11, **docs).head_sha
    p = review_payload("/notes", head_sha=head)
    p["pull_request"].update(number=N + 11, title=docs["title"])
    assert post(client, "pull_request_review", p).status_code == 202
    drain(rt)
    assert as_rendered(rt, sticky(fake, N + 11), N + 11) == by_comment


# --- flood control ---------------------------------------------------------------------


def _flood(client, rt, fake) -> list[FakeComment]:
    """Nine `/notes` and a `/notes why` queued at once, then handled, the fake's request
    log cleared of the comments' own posting; the ten comments."""
    rt.workers.stop()  # queue them all, then let the workers loose
    flood = [say(client, rt, fake, "/notes", wait=False) for _ in range(9)]
    flood.append(say(client, rt, fake, "/notes why", wait=False))
    fake.clear_requests()
    rt.workers.start()
    drain(rt)
    return flood


def test_a_flood_costs_at_most_two_sticky_writes_and_every_command_is_acknowledged(live, capsys):
    client, rt, fake = live
    # A frozen clock: the ten commands fall in one window however slow the machine is.
    tune(rt, CommandConfig(min_update_interval_s=0.3), clock=lambda: 1000.0)
    flood = _flood(client, rt, fake)
    assert sticky_writes(fake) <= 2
    assert "(why mode)" in sticky(fake).body  # the deferred update covered the last one
    assert all(reactions(fake, c) == {"eyes", "+1"} for c in flood)
    assert state(rt).pending is None
    calls = repo_calls(fake)
    with capsys.disabled():
        print(f"\n10 commands in one window: {sum(calls.values())} calls {dict(calls)}")


def test_a_deferred_update_survives_a_restart(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=3600))
        say(client, rt, fake, "/notes")
        owed = say(client, rt, fake, "/notes why", wait=False)
        # the command is done; the update it owes waits in the queue: it is due in an hour
        wait_until(
            lambda: rt.queue.counts() == {"pending": 1, "processing": 0, "done": 2, "failed": 0},
            what="the second command",
        )
        assert reactions(fake, owed) == {"eyes"} and state(rt).pending.acks == (owed.id,)
    assert "(why mode)" not in sticky(fake).body
    db = Database(settings.db_path)
    (job,) = db.execute("SELECT id, not_before FROM deliveries WHERE state = 'pending'")
    assert job["not_before"] > utcnow(after_s=3000)
    # The server is down when the window ends; the next server does the owed work.
    db.execute("UPDATE deliveries SET not_before = ? WHERE id = ?", (utcnow(), job["id"]))
    db.close()
    with serving(settings) as (client, rt):
        drain(rt)
    assert "(why mode)" in sticky(fake).body
    assert reactions(fake, owed) == {"eyes", "+1"}


# the repository is renamed while the update a `/notes why` owes waits its window,
# and the PR's next event under the new name moves its state there, owed update and
# all, before it runs. The update's delivery names the PR by its old name: it found
# nothing owed there, so the `/notes why` never got its +1 and the state under the new
# name owed it for good. Also when a new repository took the old name meanwhile (its
# event set the state aside first): the update must not run on that one's PR.
@pytest.mark.parametrize("reused", [False, True], ids=["renamed", "name reused"])
# kills: bot/command_updates.py:handle_refresh its summary for the log (-> None)
def test_a_deferred_update_still_thanks_its_command_after_the_state_moved_to_a_new_name(
    tmp_path, fake_github, app_key, monkeypatch, caplog, reused
):
    clean_env(monkeypatch)
    fake, elsewhere = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key, repos=f"{DEFAULT_REPO},{elsewhere}")
    with serving(settings) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=3600))
        say(client, rt, fake, "/notes")
        owed = say(client, rt, fake, "/notes why", wait=False)
        wait_until(lambda: rt.queue.counts()["done"] == 2, what="the second command")
        fake.transfer(DEFAULT_REPO, elsewhere)
        events = [pr_payload(**labeled_one_more_note(repo=elsewhere))]
        if reused:
            events.insert(0, pr_payload(title=MATCHING_TITLE))
            events[0]["repository"]["id"] += 1  # another repository: its own id
            fake.take_name(DEFAULT_REPO, events[0]["repository"]["id"])
            fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
        for i, payload in enumerate(events, start=3):
            assert post(client, "pull_request", payload).status_code == 202
            wait_until(lambda i=i: rt.queue.counts()["done"] == i, what="the PR event")
        assert rt.ctx.prs.get(elsewhere, N).pending.acks == (owed.id,)
        theirs = ours(fake) if reused else []
    db = Database(settings.db_path)  # the window ends while no server runs
    db.execute("UPDATE deliveries SET not_before = ? WHERE state = 'pending'", (utcnow(),))
    db.close()
    caplog.set_level("INFO", logger="review_notes")
    with serving(settings) as (client, rt):
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        assert rt.ctx.prs.get(elsewhere, N).pending is None
    assert reactions(fake, owed) == {"eyes", "+1"}
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert any(f"kept under {elsewhere} now: its update is queued there" in m for m in said)
    assert [(c.id, c.body) for c in ours(fake)] == [(c.id, c.body) for c in theirs]


def test_a_deferred_update_thanks_the_diff_comment_that_asked(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0.3))
    say(client, rt, fake, "/notes")  # opens the flood-control window
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    head = fake.pull(DEFAULT_REPO, N).head_sha
    post(client, "pull_request_review_comment", diff_comment_payload(c, head_sha=head))
    wait_until(lambda: "(why mode)" in sticky(fake).body and "+1" in reactions(fake, c))
    assert reactions(fake, c) == {"eyes", "+1"}


# --- what the comment says: no match any more, paused by the label ------------------


def test_no_match_says_any_more_only_after_notes_were_shown(live):
    # a comment asked for with `/notes` on a PR no note matches said "No review note
    # matches this pull request.", and the next push rewrote it to "... any more", as
    # if notes had been shown and gone
    client, rt, fake = live
    number, title = N + 2, "Fix a typo"
    fake.add_pull(DEFAULT_REPO, number, files=["docs/contributing.md"], title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", number=number, title=title)
    first = sticky(fake, number)
    assert "No review note matches this pull request." in first.body
    push = {"action": "synchronize", "head_sha": "c" * 40, "updated_at": "2026-09-01T11:00:00Z"}
    deliver_pr(client, rt, number=number, title=title, **push)
    say(client, rt, fake, "/notes", number=number, title=title)
    assert sticky(fake, number).body == first.body  # not edited to say "any more"
    # notes shown, then none: now it says "any more", and keeps saying it
    fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    say(client, rt, fake, "/notes", number=number, title=MATCHING_TITLE)
    assert state(rt, number).had_notes
    fake.add_pull(DEFAULT_REPO, number, files=["docs/contributing.md"], title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", number=number, title=title)
    assert "matches this pull request any more" in sticky(fake, number).body
    say(client, rt, fake, "/notes", number=number, title=title)
    assert "matches this pull request any more" in sticky(fake, number).body


def test_a_no_match_comment_from_before_had_notes_is_left_as_it_says(live):
    # a row the previous release wrote has had_notes NULL: whether its "no match" comment
    # says "any more" is read from the comment itself (its hash), so an upgrade edits
    # neither kind, and reading NULL as "notes were shown" made a false "any more"
    client, rt, fake = live
    number, title = N + 3, "Fix a typo"
    fake.add_pull(DEFAULT_REPO, number, files=["docs/contributing.md"], title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", number=number, title=title)
    fake.add_pull(DEFAULT_REPO, number + 1, files=MATCHING_FILES, title=MATCHING_TITLE)
    say(client, rt, fake, "/notes", number=number + 1, title=MATCHING_TITLE)
    fake.add_pull(DEFAULT_REPO, number + 1, files=["docs/contributing.md"], title=title)
    say(client, rt, fake, "/notes", number=number + 1, title=title)
    before = {n: sticky(fake, n).body for n in (number, number + 1)}
    assert "any more" not in before[number] and "any more" in before[number + 1]
    rt.db.execute("UPDATE pr_state SET had_notes = NULL")  # as the previous release left it
    assert state(rt, number).had_notes is None
    for n in (number, number + 1):
        push = {"action": "synchronize", "head_sha": "d" * 40, "updated_at": "2026-09-02T10:00:00Z"}
        deliver_pr(client, rt, number=n, title=title, **push)
        assert sticky(fake, n).body == before[n]
    assert [state(rt, n).had_notes for n in (number, number + 1)] == [False, True]


def test_notes_on_a_pr_paused_by_the_label_says_so(live):
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO,
        N,
        files=MATCHING_FILES,
        title=MATCHING_TITLE,
        author=AUTHOR,
        labels=["no-review-notes"],
    )
    say(client, rt, fake, "/notes")
    body = sticky(fake).body
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in body  # shown once
    assert "paused on this pull request by the label `no-review-notes`" in body
    assert "removing the label resumes them" in body
    assert "`/notes off`" not in body and body.count("`no-review-notes`") == 1


def test_notes_asked_for_on_a_pr_paused_by_the_label_stay_and_later_events_cost_nothing(live):
    # docs/commands.md: `/notes` on a paused PR shows the notes once and later events cost nothing;
    # "the label does the same" as `/notes off`. A push (or Mergify's next label) used to
    # edit the comment back to the bare paused line, and cost a read and a write each time.
    client, rt, fake = live
    label = ["no-review-notes"]
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR, labels=label
    )
    say(client, rt, fake, "/notes", login=AUTHOR)
    shown = sticky(fake).body
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in shown
    before = len(fake.requests)
    push = pr_payload(
        action="synchronize",
        number=N,
        title=MATCHING_TITLE,
        labels=tuple(label),
        head_sha="d" * 40,
        updated_at="2026-09-02T10:00:00Z",
    )
    assert post(client, "pull_request", push).status_code == 202
    drain(rt)
    assert sticky(fake).body == shown and len(fake.requests) == before


def test_notes_off_after_notes_on_a_paused_pr_brings_back_the_short_line(live):
    # `/notes` shows the notes once on a paused PR; a second `/notes off` takes them away
    # again (later PR events leave them, but the author's own command does not)
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes off", login=AUTHOR)
    short = sticky(fake).body
    say(client, rt, fake, "/notes")
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in sticky(fake).body
    say(client, rt, fake, "/notes off", login=AUTHOR)
    assert sticky(fake).body == short


# --- `off` and `on` have the last word as written ------------------------------------


def _short_paused_line(client, rt, fake) -> str:
    """What `/notes off` alone leaves after `/notes`; automatic updates on again after."""
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes off", login=AUTHOR)
    short = sticky(fake).body
    say(client, rt, fake, "/notes on", login=AUTHOR)
    return short


def test_an_off_run_again_after_a_later_on_changes_nothing(live):
    # The off's comment edit fails, so its delivery does; the author's later `on` is
    # handled; then the off runs again (`review-notes retry`, or GitHub's redelivery).
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    notes = sticky(fake).body
    fake.inject("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/*", *[Fault.error(502)] * 3)
    off = say(client, rt, fake, "/notes off", login=AUTHOR)
    assert rt.queue.counts()["failed"] == 1 and fake.pending_faults() == 0
    say(client, rt, fake, "/notes on", login=AUTHOR)
    assert not state(rt).opted_out
    assert rt.queue.retry() != []
    drain(rt)
    assert not state(rt).opted_out and sticky(fake).body == notes  # the last word stands
    assert reactions(fake, off) == {"eyes", "+1"}  # heard all the same
    assert rt.queue.counts()["failed"] == 0


def test_off_and_on_follow_the_time_github_gives_not_the_order_they_arrive(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)
    deliver_said_at(client, rt, on, github_time_ago(240))
    deliver_said_at(client, rt, off, github_time_ago(540))  # written first, arrives late
    assert not state(rt).opted_out
    assert reactions(fake, off) == {"eyes", "+1"}
    # an edit is said when it is made: adding `off` to an older comment counts then
    old = on.body
    on.body = "/notes on\n/notes off"
    deliver_said_at(client, rt, on, github_time_ago(60), action="edited", old_body=old)
    assert state(rt).opted_out


def test_off_after_why_in_one_comment_leaves_the_short_paused_line(live):
    client, rt, fake = live
    short = _short_paused_line(client, rt, fake)
    say(client, rt, fake, "/notes why\n/notes off", login=AUTHOR)
    assert state(rt).opted_out and sticky(fake).body == short


def test_off_after_why_in_one_window_leaves_the_short_paused_line(live):
    # "applies the last why/off/on given", however the window folds them
    client, rt, fake = live
    short = _short_paused_line(client, rt, fake)
    tune(rt, CommandConfig(min_update_interval_s=0.3), clock=lambda: 1000.0)
    rt.workers.stop()
    say(client, rt, fake, "/notes", wait=False)  # runs at once, opens the window
    say(client, rt, fake, "/notes why", wait=False)  # deferred
    off = say(client, rt, fake, "/notes off", login=AUTHOR, wait=False)  # folded in, last
    rt.workers.start()
    drain(rt)
    assert state(rt).opted_out and state(rt).pending is None
    assert reactions(fake, off) == {"eyes", "+1"}
    assert sticky(fake).body == short


def test_on_resumes_automatic_updates_without_posting_what_they_would_not(live):
    client, rt, fake = live
    # a PR no note matches: `off` then `on` posts nothing ("no comment at all")
    typo = {"files": ["docs/contributing.md"], "title": "Fix a typo", "author": AUTHOR}
    fake.add_pull(DEFAULT_REPO, N + 2, **typo)
    say(client, rt, fake, "/notes off", login=AUTHOR, number=N + 2, title="Fix a typo")
    assert state(rt, N + 2).opted_out
    say(client, rt, fake, "/notes on", login=AUTHOR, number=N + 2, title="Fix a typo")
    assert sticky(fake, N + 2) is None and not state(rt, N + 2).opted_out
    # a draft waits for ready_for_review, `on` or not
    draft = {"files": MATCHING_FILES, "title": MATCHING_TITLE, "draft": True, "author": AUTHOR}
    fake.add_pull(DEFAULT_REPO, N + 1, **draft)
    post(client, "pull_request", pr_payload(number=N + 1, title=MATCHING_TITLE, draft=True))
    drain(rt)
    say(client, rt, fake, "/notes off", login=AUTHOR, number=N + 1)
    assert state(rt, N + 1).opted_out
    say(client, rt, fake, "/notes on", login=AUTHOR, number=N + 1)
    assert sticky(fake, N + 1) is None and not state(rt, N + 1).opted_out
    say(client, rt, fake, "/notes", number=N + 1)  # asked to see them: answered on a draft
    assert sticky(fake, N + 1) is not None


# --- the notes comment, deleted by a maintainer: `/notes off` said when noticed ---------


def test_a_notes_on_said_before_the_deletion_and_retried_posts_the_comment_again(live):
    # `/notes on` is handled but its 👍 fails (the delivery fails). A maintainer then
    # deletes the notes comment: the next PR event opts the PR out ("go away", as
    # `/notes off`). `review-notes retry` re-runs the old `on`: said before the deletion
    # was noticed, it changes nothing. It used to turn updates on again and post a NEW
    # comment (a notification to everyone): the deletion recorded no `switched_at`.
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
    maintainer_deletes(fake, first)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2030-01-01T00:00:05Z"))
    assert state(rt).opted_out and sticky(fake) is None  # the deletion is a `/notes off`
    assert rt.queue.retry() != []  # the operator retries the failed `on` for its 👍
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert sticky(fake) is None, "a comment was posted again after a maintainer deleted it"
    assert state(rt).opted_out


def test_an_on_written_after_the_deletion_was_noticed_resumes_the_updates(live):
    # the deletion ranks above what was written before the PR event that found it (within
    # its second too), not above what the author writes after it
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    maintainer_deletes(fake, sticky(fake))
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2030-01-01T10:00:05Z"))
    assert state(rt).opted_out
    same_second = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, same_second, "2030-01-01T10:00:05Z")
    assert state(rt).opted_out and sticky(fake) is None
    later = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, later, "2030-01-01T10:00:06Z")
    assert not state(rt).opted_out and sticky(fake) is not None
    assert reactions(fake, same_second) == reactions(fake, later) == {"eyes", "+1"}


def test_notes_on_after_off_and_a_deletion_resumes_the_updates(live):
    # `/notes off` (the comment says paused), a maintainer then deletes the comment, and
    # the author says `/notes on`. docs/commands.md: "`/notes on` resumes the updates (a new
    # comment as soon as notes match)". The `on`'s refresh used to find the comment
    # (known since before the `off`) gone and take that for a NEW opt-out: the PR was
    # off again right after `on`, with nothing posted.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = sticky(fake)
    say(client, rt, fake, "/notes off", login="pr-author")
    assert state(rt).opted_out and "paused" in sticky(fake).body
    maintainer_deletes(fake, first)
    on = say(client, rt, fake, "/notes on", login="pr-author")
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out, "`/notes on` said after the deletion left the PR off"
    assert sticky(fake) is not None  # notes match: a new comment


# 1. `/notes on` after a deletion made while off: resume lived only
# in the `on`'s own refresh. If that refresh does not complete before the next PR event (GitHub
# failed it, or flood control deferred it), the PR event takes the old deletion for a
# NEW opt-out dated after the `on`: the PR is off again, nothing is posted, the `on`
# got its +1 (docs/commands.md: "a comment deleted while they were off is posted anew once notes
# match"; commit 09b2032's bug, back through another door).


def test_an_on_whose_refresh_github_failed_is_kept_by_the_next_pr_event(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = sticky(fake)
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)
    deliver_said_at(client, rt, off, github_time_ago(60))  # said before the `on`
    assert state(rt).opted_out and "paused" in first.body
    maintainer_deletes(fake, first)  # deleted while off
    # the author's `on`: GitHub fails the comment list of its refresh (every try)
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, on, github_time_ago(10))
    assert rt.queue.counts()["failed"] == 1 and not state(rt).opted_out  # on, as said
    # a push or a label (any PR event that changes the comment) comes next
    deliver_pr(client, rt, **labeled_one_more_note(updated_at=github_time_ago(5)))
    assert not state(rt).opted_out, (
        "the deletion made while off (before the `on`) was taken for a new opt-out, "
        f"ranked after the author's `on` (switched_at {state(rt).switched_at})"
    )
    # and `review-notes retry` of the `on` (for its refresh and +1) cannot repair it
    assert rt.queue.retry() != []
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out and sticky(fake) is not None


def test_an_on_deferred_by_flood_control_is_kept_by_a_pr_event_in_its_window(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = sticky(fake)
    tune(rt, CommandConfig(min_update_interval_s=1.0), clock=lambda: 1000.0)
    say(client, rt, fake, "/notes off", login=AUTHOR)  # runs at once, opens the window
    assert state(rt).opted_out and "paused" in first.body
    maintainer_deletes(fake, first)  # deleted while off
    rt.workers.stop()
    on = say(client, rt, fake, "/notes on", login=AUTHOR, wait=False)  # deferred: in the window
    labeled = labeled_one_more_note(updated_at=github_time_ago(0))
    assert post(client, "pull_request", pr_payload(**labeled)).status_code == 202
    rt.workers.start()
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out, (
        "the author's `on` got +1 but the PR is off: the PR event in the `on`'s window took "
        f"the deletion made while off for a new opt-out ({state(rt).switched_at})"
    )
    assert sticky(fake) is not None


# 2. A deletion noticed by `/notes off`'s own edit was dated
# at the bot's "now" (the end of the `off`'s processing), not when the `off` was written:
# an `on` the author wrote after the `off` but before the bot got to it was outranked
# (+1, no change), while a deletion noticed by a PR event is dated at the event's own
# `updated_at`: the outcome depended on the bot's latency.


def test_an_on_written_after_an_off_that_finds_the_comment_deleted_counts(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    maintainer_deletes(fake, sticky(fake))
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, off, github_time_ago(3))  # run late (GitHub slow, a queue)
    deliver_said_at(client, rt, on, github_time_ago(1))  # written 2 s after the off
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out, (
        f"the author's last word (`on`) lost to the off's own deletion key {state(rt).switched_at}"
    )


# 3. `/notes on` on a draft whose comment was deleted while
# off posted a NEW comment on the draft, though "a draft still waits" and a PR event on
# that draft (no comment known any more) would post nothing.


def test_on_after_a_deletion_waits_on_a_draft(live):
    client, rt, fake = live
    n = N + 1
    draft = {"files": MATCHING_FILES, "title": MATCHING_TITLE, "draft": True, "author": AUTHOR}
    fake.add_pull(DEFAULT_REPO, n, **draft)
    post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE, draft=True))
    drain(rt)
    say(client, rt, fake, "/notes", number=n)  # asked for once, on the draft
    first = sticky(fake, n)
    say(client, rt, fake, "/notes off", login=AUTHOR, number=n)
    maintainer_deletes(fake, first)
    say(client, rt, fake, "/notes on", login=AUTHOR, number=n)
    assert not state(rt, n).opted_out
    assert sticky(fake, n) is None, "`/notes on` posted a new comment on a draft"


# `/notes on` the first to find a deletion no PR event noticed
# A maintainer deletes the notes comment; no PR event has run since (deletions make no
# event). The author says `/notes on` to have the notes back, after the deletion. The PR
# changed meanwhile (its title edit's event not yet processed), so the `on`'s own refresh
# writes and finds the comment gone. 5facef2 dropped the `on`'s own resume (it now only
# applies when the state already said off) and c2e3178 dates a deletion found by a
# command's write just after that command's key: the deletion outranks the author's
# `on` written after it. The PR ends off, nothing posted, the `on` got +1. Had the
# title's `edited` event been processed first, the deletion would be dated at that event
# and the same `on` would win (docs/commands.md: "one written after it counts"; "`/notes on`
# resumes the updates (a new comment as soon as notes match)"). 2b69f56 posted anew.


def test_an_on_written_after_an_unnoticed_deletion_posts_the_comment_anew(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    maintainer_deletes(fake, sticky(fake))
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()  # its event comes later
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, on, github_time_ago(1))  # written after the deletion
    assert reactions(fake, on) == {"eyes", "+1"}
    assert not state(rt).opted_out, (
        "the author's `on`, written after the maintainer's deletion, lost to it: "
        f"deletion dated {state(rt).switched_at}"
    )
    assert sticky(fake) is not None


# `resumed` after a refresh that made no call
# `/notes off` then `/notes on` in one flood-control window: the folded update renders
# the notes comment as posted (UNCHANGED, no call), so `resumed` stays set though the
# comment is there and was never deleted. Days later a maintainer deletes it ("go
# away"); the next PR event that changes it posts a NEW comment (notifying everyone)
# instead of turning updates off. docs/commands.md: "Once an update finds the comment again, a
# deletion is a 'go away' again" -- here the state still thinks the author's `on` may
# be answering a deletion made while off, though the PR was never off on GitHub.


def test_off_and_on_in_one_window_then_a_deletion_is_a_go_away(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    tune(rt, CommandConfig(min_update_interval_s=0.3), clock=lambda: 1000.0)
    rt.workers.stop()
    say(client, rt, fake, "/notes", wait=False)  # runs at once, opens the window
    say(client, rt, fake, "/notes off", login=AUTHOR, wait=False)  # deferred
    say(client, rt, fake, "/notes on", login=AUTHOR, wait=False)  # folded in, last
    rt.workers.start()
    drain(rt)
    assert not state(rt).opted_out and state(rt).pending is None
    first = sticky(fake)
    assert first is not None and "paused" not in first.body
    assert not state(rt).resumed, "resumed left set though the comment is there"
    maintainer_deletes(fake, first)  # a maintainer's "go away", well after the `on`
    deliver_pr(client, rt, **labeled_one_more_note(updated_at=github_time_ago(0)))
    assert sticky(fake) is None, "a PR event posted anew a comment a maintainer deleted"
    assert state(rt).opted_out


# A retried `/notes on` must not re-arm `resumed`, undoing a later deletion
# docs/commands.md: "Until an update has asked GitHub and found the comment (the first one after an
# `on` always asks), a comment gone is taken so; after that, a deletion is a 'go away'
# again", and of a failed 👍: "`review-notes retry` adds it; the retry redoes nothing
# else"; of deletions: "an `off`/`on` written before it and run late (`review-notes
# retry`, a late delivery) changes nothing".
# The `on` is handled, its own update finds the comment (resumed cleared), only its 👍
# fails. A maintainer then deletes the notes comment ("go away"), after the `on`. The
# operator retries the failed delivery for its 👍: `ask_for_update` runs again, sets
# `resumed` again (the `on`'s key equals switched_at, so it is not outranked), and its
# refresh takes the maintainer's later deletion for one made before the `on`: a NEW
# comment is posted (a notification to everyone) and the PR stays on. Without the retry
# the next PR event would have turned updates off. Any re-run of the delivery (GitHub's
# redelivery of a failed one) goes through the same `ask_for_update`.


def test_retried_on_does_not_repost_a_comment_deleted_after_its_update(live):
    client, rt, fake = live
    say_first = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    post(client, "issue_comment", comment_payload(say_first))
    drain(rt)
    first = sticky(fake)
    assert first is not None
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    fail_the_done_reaction(fake, on)
    deliver_said_at(client, rt, on, github_time_ago(30))
    assert rt.queue.counts()["failed"] == 1 and reactions(fake, on) == {"eyes"}
    assert not state(rt).resumed  # its update asked GitHub and found the comment
    maintainer_deletes(fake, first)  # after the `on` and its update: a "go away"
    assert rt.queue.retry() != []  # the operator retries the `on` for its 👍
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert sticky(fake) is None, (
        "retrying an old `on` for its 👍 posted anew a comment a maintainer deleted after it"
    )


# As the retried `wrong` and `restore` in test_command_feedback.py:
# a retry for a missing 👍 ran every command of the comment again; an old `/notes why`
# put why mode back after a later plain `/notes`.


def test_a_retried_why_does_not_undo_a_later_plain_notes(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes why", login="octo-dev")
    assert "(why mode)" in sticky(fake).body
    say(client, rt, fake, "/notes", login="octo-dev")
    plain = sticky(fake).body
    assert "(why mode)" not in plain

    retried_for_its_thumb(rt, fake, c)
    assert sticky(fake).body == plain


# The retry of a command written before a later `/notes off` (or
# `/notes`) still rewrote the notes comment: an older `/notes` or `/notes why` put the
# notes back into the comment the later `off` had cut to the short paused line, an older
# `off` took away the notes a later `/notes` showed. docs/commands.md: the retry changes nothing
# commands written after it changed. It still gets its 👍.


@pytest.mark.parametrize("line", ["/notes", "/notes why"])
def test_a_retried_notes_does_not_bring_back_the_notes_a_later_off_paused(live, line):
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = said_and_left_without_its_thumb(client, rt, fake, line)
    say(client, rt, fake, "/notes off", login=AUTHOR)  # written after it: the last word
    paused = sticky(fake).body
    assert state(rt).opted_out

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).opted_out
    assert sticky(fake).body == paused


def test_a_retried_off_does_not_take_away_the_notes_a_later_notes_showed(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes off")
    assert rt.queue.counts()["failed"] == 1 and state(rt).opted_out
    say(client, rt, fake, "/notes", login=AUTHOR)  # written after it: show them once
    shown = sticky(fake).body
    assert "Automatic updates are paused" in shown and "Review notes" in shown

    retried_for_its_thumb(rt, fake, c)
    assert sticky(fake).body == shown


def test_a_late_off_folded_into_a_later_whys_deferred_update_leaves_the_notes_shown(live):
    # the same through flood control: the `off` (written first, delivered last) joins
    # the update deferred for a `/notes why` written after it; the update owes what the
    # command written last asked (the notes, with the paused line), not the one run last
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    tune(rt, CommandConfig(min_update_interval_s=0.3), clock=lambda: 1000.0)
    rt.workers.stop()
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)  # not delivered yet
    say(client, rt, fake, "/notes", wait=False)  # runs at once, opens the window
    why = say(client, rt, fake, "/notes why", login=AUTHOR, wait=False)  # deferred
    assert post(client, "issue_comment", comment_payload(off)).status_code == 202  # late
    rt.workers.start()
    drain(rt)
    assert state(rt).opted_out and state(rt).pending is None  # the `off` counts
    assert reactions(fake, off) == reactions(fake, why) == {"eyes", "+1"}
    body = sticky(fake).body
    assert "Automatic updates are paused" in body and "(why mode)" in body


# A command run late on a paused PR left the comment as a later
# command had it, even when it showed notes: a late `wrong` left its note shown (the
# state hid it; no PR event runs while paused), and a late `off` left the notes without
# the paused line, which the same written order through flood control has.


PAUSED = "Automatic updates are paused"


def test_a_wrong_retried_while_paused_still_hides_its_note_in_the_comment(live):
    # docs/commands.md: "A `wrong` that never ran still hides its note when it runs late, after
    # another `wrong`" and a late command "still does what is its own (... a `wrong` ...)".
    # While paused (notes shown once by `/notes`), the late `wrong`'s update is skipped:
    # the state hides the note, the comment still shows it, and PR events never fix it.
    client, rt, fake = live
    title = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", title=title)
    say(client, rt, fake, "/notes off", login=AUTHOR, title=title)
    say(client, rt, fake, "/notes", login=AUTHOR, title=title)  # shown once, paused line
    first, second = state(rt).notes[:2]
    assert state(rt).opted_out and PAUSED in sticky(fake).body
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    c = say(client, rt, fake, "/notes topic rocm\n/notes wrong 1", login=AUTHOR, title=title)
    assert rt.queue.counts()["failed"] == 1 and state(rt).dismissed == ()
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR, title=title)
    assert state(rt).dismissed == (second,) and second not in state(rt).notes

    assert rt.queue.retry() != []
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert set(state(rt).dismissed) == {first, second}
    # the comment must not show a note the PR's state hides
    assert first not in state(rt).notes, "the comment still shows the note the late wrong hid"


def _off_told_after_a_later_notes(client, rt, fake) -> str:
    """An `off` written first, a `/notes` written after it and delivered first, then the
    `off` late: the PR paused; the notes comment's text after."""
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)  # written first
    say(client, rt, fake, "/notes", login=AUTHOR)  # written after it, delivered first
    assert not state(rt).opted_out and PAUSED not in sticky(fake).body
    assert post(client, "issue_comment", comment_payload(off)).status_code == 202  # late
    drain(rt)
    assert reactions(fake, off) == {"eyes", "+1"}
    assert state(rt).opted_out
    return sticky(fake).body


def test_a_late_off_written_before_a_notes_leaves_a_comment_that_says_paused(live):
    # An `off` written first but delivered after a later `/notes`: the PR is paused, yet
    # the comment is left showing the notes with no paused line (and PR events now skip,
    # so it goes stale silently). The same written order through one flood-control window
    # gives the notes WITH the paused line (test_a_late_off_folded_into_a_later_whys_...).
    client, rt, fake = live
    body = _off_told_after_a_later_notes(client, rt, fake)
    assert body.startswith(MARKER)
    assert PAUSED in body, "paused PR, but its comment shows the notes with no paused line"


# --- a command on a file list GitHub still lags: its re-check ---


def test_a_command_in_the_files_lag_window_does_not_defeat_the_files_recheck(
    tmp_path, fake_github, app_key
):
    # `opened` meets a file list behind `changed_files`, so a re-check is queued. Before
    # it runs, the author asks `/notes`: the command cannot wait, answers on the same
    # lagging list and caches it for the head. The re-check must not take that cache for
    # the PR's files (it did: matched on an empty list for good, until a push).
    fake = fake_github
    pull = fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title="Tidy up the KV cache coordinator"
    )
    pull.head_sha = HEAD  # pr_payload's head commit
    settings = live_settings(tmp_path, fake, app_key, files_recheck_delays=(1.0,))
    with serving(settings) as (client, rt):
        # the event's listing and the command's lag
        fake.inject("GET", "/repos/*/pulls/*/files", *[Fault(status=200, body=[])] * 2)
        opened = pr_payload(number=N, title="Tidy up the KV cache coordinator")
        opened["pull_request"]["changed_files"] = len(MATCHING_FILES)
        assert post(client, "pull_request", opened).status_code == 202
        wait_until(lambda: rt.queue.counts()["pending"] == 1, what="the files re-check waiting")
        asked = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
        assert post(client, "issue_comment", comment_payload(asked)).status_code == 202
        drain(rt)  # the command, then the re-check
        assert fake.pending_faults() == 0
        [comment] = ours(fake)
        listings = len(fake.calls("GET", "/repos/*/pulls/*/files"))
        # GitHub has listed the file since the command; the re-check must have looked
        assert "a path of this note" in comment.body, (listings, comment.body[:400])


RECHECKS = (0.05, 0.05, 0.1)  # REVIEW_NOTES_FILES_RECHECK_DELAYS, cut short
NOTE_SHOWN = "a path of this note"  # why MATCHING_FILES's note is shown


def _off_then_lagged_push(client, rt, fake, looks: int) -> None:
    """The PR's comment up, its updates off; a push whose event, skipped, looks at no
    list; GitHub's list lagging it for `looks` looks."""
    pr = {"number": N, "title": MATCHING_TITLE}
    pull = fake.pull(DEFAULT_REPO, N)
    deliver_pr(client, rt, **pr, files=MATCHING_FILES)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    pull.head_sha = "b" * 40  # a push
    fake.inject("GET", "/repos/*/pulls/*/files", *[Fault(status=200, body=[])] * looks)
    later = "2026-09-01T11:00:00Z"  # than the `opened`
    push = pr_payload("synchronize", **pr, head_sha=pull.head_sha, updated_at=later)
    push["pull_request"]["changed_files"] = len(MATCHING_FILES)
    assert post(client, "pull_request", push).status_code == 202
    drain(rt)
    assert fake.pending_faults() == looks, "the push's event, skipped, looked at no list"


def _answered(client, rt, fake, line: str) -> None:
    """The author says `line`; it runs, 👍, its files re-check (if any) left to wait."""
    asked = say(client, rt, fake, line, login=AUTHOR, wait=False)
    wait_until(lambda: "+1" in reactions(fake, asked), what=line)
    wait_until(lambda: rt.queue.counts()["processing"] == 0, what=f"{line}'s end")


@pytest.fixture
def lagging(request, tmp_path, fake_github, app_key):
    """The app, with re-checks cut short (or as the test's parameter), on a PR whose
    files are a note's."""
    pull = fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    pull.head_sha = HEAD
    delays = getattr(request, "param", RECHECKS)
    settings = live_settings(tmp_path, fake_github, app_key, files_recheck_delays=delays)
    with serving(settings) as (client, rt):
        tune(rt)
        yield client, rt, fake_github


@pytest.mark.parametrize("looks", [1, 2])
def test_an_on_that_answered_on_a_lagging_list_looks_again_as_an_event_would(lagging, looks):
    # Randomized scenario seed 266, reduced: a push made while the PR's updates are off
    # is skipped, so its event looks at no list and re-checks none. `/notes on` said
    # while GitHub's list still lags answers at once on it, as docs/settings.md says
    # (REVIEW_NOTES_FILES_RECHECK_DELAYS), and looks again after the delays, as the
    # push's event would have: the comment shows the file's note with no event after it
    line = "A list found short (also by a `/notes`, which answers at once on it)"
    assert line in doc("settings.md")
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, looks)
    say(client, rt, fake, "/notes on", login=AUTHOR)  # (drained: its re-checks too)
    assert fake.pending_faults() == 0 and rt.queue.counts()["failed"] == 0
    assert NOTE_SHOWN in sticky(fake).body, "the on's short list stands: no look again"
    assert state(rt).files_listed == len(MATCHING_FILES)
    looked = len(fake.calls("GET", "/repos/*/pulls/*/files"))
    pull = f"/repos/{DEFAULT_REPO}/pulls/{N}"
    got = len(fake.calls("GET", pull))
    say(client, rt, fake, "/notes", login=AUTHOR)
    assert len(fake.calls("GET", "/repos/*/pulls/*/files")) == looked, "a whole list cached"
    assert len(fake.calls("GET", pull)) == got + 1, "the command's GET; no re-check queued"


@pytest.mark.parametrize("lagging", [(0.05,)], indirect=True)
def test_with_one_delay_a_command_s_one_re_check_takes_the_list_as_it_is(lagging):
    # the first delay for the first re-check, which is the last here: as it is (caught up)
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    say(client, rt, fake, "/notes on", login=AUTHOR)
    assert rt.queue.counts()["failed"] == 0 and NOTE_SHOWN in sticky(fake).body


def test_a_command_s_re_checks_end_as_an_event_s_do(lagging):
    # short at the command's look and at every re-check but the last, which takes the
    # list as it is (as an event's last does): no re-check after it, the comment shows
    # the short list's notes until the next event or command asks again
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1 + len(RECHECKS))
    say(client, rt, fake, "/notes on", login=AUTHOR)
    assert fake.pending_faults() == 0 and rt.queue.counts()["pending"] == 0
    assert NOTE_SHOWN not in sticky(fake).body
    looks = fake.calls("GET", "/repos/*/pulls/*/files")
    assert len(looks) == 1 + len(RECHECKS)  # the on's, then each re-check's
    say(client, rt, fake, "/notes", login=AUTHOR)  # asks again: the whole list
    assert NOTE_SHOWN in sticky(fake).body


@pytest.mark.parametrize("lagging", [(3600.0,)], indirect=True)
def test_commands_on_a_short_list_share_the_re_check_queued(lagging):
    # three commands each answered on the list GitHub still gave short queued three
    # re-checks of the PR, each to list its files again: one waits now, and it still
    # takes the list as it is (the last of the delays)
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 3)
    for line in ("/notes", "/notes why", "/notes"):
        _answered(client, rt, fake, line)
    assert fake.pending_faults() == 0, "each command listed the files"
    assert rt.queue.counts()["pending"] == 1, "one re-check waits"
    assert NOTE_SHOWN not in sticky(fake).body
    fake.inject("GET", "/repos/*/pulls/*/files", Fault(status=200, body=[]))
    run_due(rt)
    assert fake.pending_faults() == 0 and rt.queue.counts()["pending"] == 0
    assert rt.queue.counts()["failed"] == 0 and NOTE_SHOWN not in sticky(fake).body


@pytest.mark.parametrize("lagging", [()], indirect=True)
def test_with_re_checks_off_a_command_s_short_list_stands_until_asked_again(lagging):
    # REVIEW_NOTES_FILES_RECHECK_DELAYS empty: never look again, a command's look neither
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    say(client, rt, fake, "/notes on", login=AUTHOR)
    assert rt.queue.counts()["failed"] == rt.queue.counts()["pending"] == 0
    assert NOTE_SHOWN not in sticky(fake).body
    assert len(fake.calls("GET", "/repos/*/pulls/*/files")) == 1


def test_a_notes_asked_while_off_on_a_lagging_list_is_shown_again_under_the_paused_line(
    lagging,
):
    # `/notes` on a paused PR shows the notes under the paused line (forced); its
    # re-check shows them again so, where a PR event would leave the comment as it is
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    say(client, rt, fake, "/notes", login=AUTHOR)
    body = sticky(fake).body
    assert NOTE_SHOWN in body and PAUSED in body, body[:400]
    assert state(rt).opted_out


def test_a_re_check_leaves_a_closed_pr_alone(lagging):
    # a `/notes` said on a closed PR is answered (on the short list); its re-check, by a
    # PR event's rules, leaves the closed PR's comment as that answer wrote it
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    fake.pull(DEFAULT_REPO, N).closed = True
    say(client, rt, fake, "/notes", login=AUTHOR)
    assert fake.pending_faults() == 0 and rt.queue.counts()["failed"] == 0
    assert PAUSED in sticky(fake).body and NOTE_SHOWN not in sticky(fake).body


def test_a_re_check_after_an_off_leaves_the_paused_line(lagging):
    # the `/notes` answered on the short list; an `off` run before its re-check brings
    # the comment back to the short paused line, which the re-check leaves as it is
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    say(client, rt, fake, "/notes on", login=AUTHOR, wait=False)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    assert as_rendered(rt, sticky(fake)) == render_paused(
        rt.ctx.render_options(), by=PauseCause.COMMAND
    )


def test_every_command_that_updates_the_comment_says_what_it_changes():
    # three lists (Kind.updates_sticky, _STATE_CHANGES, _SHOWING) must agree: a kind
    # added to the first alone fails with a KeyError when it runs
    from bot.command_updates import _SHOWING, _STATE_CHANGES, SWITCHES
    from bot.commands import Kind

    updating = {k for k in Kind if k.updates_sticky}
    assert set(_STATE_CHANGES) == updating
    assert set(_SHOWING) | set(SWITCHES) == updating
    assert not set(_SHOWING) & set(SWITCHES)


# --- commands on a merged PR ---


def _closed_and_merged(client, rt, fake, monkeypatch):
    """The PR closed (its event delivered) and merged, as GitHub's GET answers then."""
    closed = {"action": "closed", "state": "closed", "updated_at": "2026-09-01T11:00:00Z"}
    deliver_pr(client, rt, title=MATCHING_TITLE, **closed)
    _github_says_merged(fake, monkeypatch)


def _github_says_merged(fake, monkeypatch):
    """GET pulls/{n} answers as GitHub does for a merged PR: state closed."""
    real = fake._get_pull

    def closed(who, params, query, body):
        reply = real(who, params, query, body)
        reply.body = dict(reply.body, state="closed", merged=True, closed_at="2026-09-01T11:00:00Z")
        return reply

    monkeypatch.setattr(fake, "_get_pull", closed)


def test_notes_on_after_the_pr_was_merged_posts_no_comment_there(live, monkeypatch):
    # `/notes off` before the bot commented, the PR merged, then `/notes on` on it. The
    # `on` updates as a PR event would, and PR events leave a closed PR alone; it ran
    # the non-forced refresh, which never looked at `closed`, and posted the notes on
    # the merged PR, notifying everyone watching it.
    client, rt, fake = live
    say(client, rt, fake, "/notes off", login=AUTHOR)
    assert ours(fake) == []
    _closed_and_merged(client, rt, fake, monkeypatch)

    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    payload = comment_payload(on)
    payload["issue"] = dict(payload["issue"], state="closed")
    payload["issue"]["pull_request"] = dict(
        payload["issue"]["pull_request"], merged_at="2026-09-01T11:00:00Z"
    )
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert sticky(fake) is None, "`/notes on` posted the notes comment on a merged PR"
    assert "+1" in reactions(fake, on)  # done: updates are on, should it be reopened
    assert not rt.ctx.prs.get(DEFAULT_REPO, N).opted_out
    # a human who asks still gets an answer
    say(client, rt, fake, "/notes", login=AUTHOR)
    assert sticky(fake) is not None


def _said_on_the_closed_pr(client, rt, fake, line):
    """`line` said by the author on the closed PR (the comment's payload says closed)."""
    c = fake.add_comment(DEFAULT_REPO, N, line, login=AUTHOR)
    payload = comment_payload(c)
    payload["issue"] = dict(payload["issue"], state="closed")
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    return c


@pytest.mark.parametrize("asked", [False, True], ids=["paused", "notes-shown-while-paused"])
def test_notes_on_after_the_pr_was_merged_takes_the_paused_line_away(live, monkeypatch, asked):
    # `/notes off` paused the comment (and a `/notes` may have shown the notes under the
    # paused line), the PR merged, then the author's `/notes on` there: 👍, and the
    # comment kept telling them to reply `/notes on` to resume the updates
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    if asked:
        say(client, rt, fake, "/notes")
    assert "Automatic updates are paused" in first.body
    _closed_and_merged(client, rt, fake, monkeypatch)

    on = _said_on_the_closed_pr(client, rt, fake, "/notes on")
    assert reactions(fake, on) == {"eyes", "+1"}
    assert "paused" not in first.body, "the comment still says `/notes off` paused it"
    assert "redirect.github.com" in first.body  # the notes, as they match now
    assert ours(fake) == [first]  # edited in place: nothing posted on the merged PR
    assert state(rt).paused is None and not state(rt).opted_out

    # a closed PR is left alone again: `/notes off` pauses it as on an open one
    _said_on_the_closed_pr(client, rt, fake, "/notes off")
    assert "Automatic updates are paused" in first.body and ours(fake) == [first]


def test_notes_on_after_the_pr_was_merged_with_the_opt_out_label_says_the_label_pauses(
    live, monkeypatch
):
    # the label added while off, then merged: `on` resumes nothing the label pauses, and
    # the comment names what does
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    _closed_and_merged(client, rt, fake, monkeypatch)
    fake.pull(DEFAULT_REPO, N).labels = ["no-review-notes"]

    _said_on_the_closed_pr(client, rt, fake, "/notes on")
    assert as_rendered(rt, first) == render_paused(rt.ctx.render_options(), by=PauseCause.LABEL)
    assert ours(fake) == [first]


# kills: bot/comment_plan.py:plan_write `and not closed` dropped: the paused comment deleted,
#        its event not yet run, and `on` posted the notes anew on the merged PR
def test_notes_on_after_the_pr_was_merged_posts_no_comment_for_one_deleted(live, monkeypatch):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    _closed_and_merged(client, rt, fake, monkeypatch)
    maintainer_deletes(fake, first)  # its `deleted` event not delivered yet

    on = _said_on_the_closed_pr(client, rt, fake, "/notes on")
    assert reactions(fake, on) == {"eyes", "+1"}
    assert ours(fake) == [], "`/notes on` posted the notes comment anew on a merged PR"
    assert state(rt).comment_id is None and not state(rt).opted_out
    # reopened, the PR gets its comment again, as docs/commands.md says
    deliver_pr(
        client, rt, action="reopened", title=MATCHING_TITLE, updated_at="2026-09-01T12:00:00Z"
    )
    assert len(ours(fake)) == 1


# kills: bot/comment_plan.py:outdated_pause an `off` whose write GitHub made but whose answer
#        was lost left the state not knowing the comment says paused: `on` left it so
def test_notes_on_after_the_pr_was_merged_edits_a_paused_line_its_write_never_confirmed(
    live, monkeypatch
):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    # GitHub makes the `off`'s edit each time, and every answer is lost: the delivery fails
    fake.inject("PATCH", "/repos/*/issues/comments/*", *[Fault(drop=True, apply=True)] * 3)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    fake.clear_faults()
    assert "Automatic updates are paused" in first.body
    assert state(rt).unconfirmed and state(rt).paused is None
    _closed_and_merged(client, rt, fake, monkeypatch)

    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    payload = comment_payload(on)
    payload["issue"] = dict(payload["issue"], state="closed")
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert reactions(fake, on) == {"eyes", "+1"}
    assert "paused" not in first.body, "the comment still says `/notes off` paused it"
    assert ours(fake) == [first] and not state(rt).unconfirmed


# kills: bot/comment_plan.py:outdated_pause the paused line not asked for: `on` rewrote the
#        notes of a closed PR whose comment said nothing of `/notes off`
def test_notes_on_after_the_pr_was_merged_leaves_a_comment_not_paused_alone(live, monkeypatch):
    # no paused line to take away: the closed PR's comment stays as it was written
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (first,) = ours(fake)
    shown = first.body
    _closed_and_merged(client, rt, fake, monkeypatch)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()  # a note more, were it open
    fake.clear_requests()

    on = _said_on_the_closed_pr(client, rt, fake, "/notes on")
    assert reactions(fake, on) == {"eyes", "+1"}
    assert first.body == shown and ours(fake) == [first]
    assert sticky_writes(fake) == 0


# The commands said on a merged PR the bot never commented on: what asks to see the notes
# is answered in the notes comment (someone asked), the switches change only the state (👍),
# the replies are replies; as docs/commands.md says
@pytest.mark.parametrize(
    ("line", "posts", "answer"),
    [
        ("/notes", "sticky", {"eyes", "+1"}),
        ("/notes refresh", "sticky", {"eyes", "+1"}),
        ("/notes why", "sticky", {"eyes", "+1"}),
        ("/notes restore", "sticky", {"eyes", "+1"}),
        ("/notes wrong 1", "reply", {"eyes", "confused"}),  # no comment: no note to hide
        ("/notes off", None, {"eyes", "+1"}),
        ("/notes on", None, {"eyes", "+1"}),
        ("/notes help", "reply", {"eyes", "+1"}),
        ("/notes topic rocm", "reply", {"eyes", "+1"}),
    ],
)
def test_each_command_on_a_merged_pr_does_what_the_docs_say(live, monkeypatch, line, posts, answer):
    client, rt, fake = live
    _closed_and_merged(client, rt, fake, monkeypatch)
    assert ours(fake) == []  # the closing posted nothing
    c = _said_on_the_closed_pr(client, rt, fake, line)
    assert reactions(fake, c) == answer
    assert (sticky(fake) is not None) == (posts == "sticky")
    assert bool(replies(fake)) == (posts == "reply")
    row = next(ln for ln in doc("commands.md").splitlines() if ln.startswith("| `/notes` or"))
    assert "a closed or merged PR" in row


# --- the deferred update's writes, paid by the commands it answers ---


def test_a_deferred_update_is_paid_for_by_the_commands_it_answers(live):
    """The notes comment's edit and the 👍s a deferred update makes (handle_refresh,
    later) are paid from the write budget when the commands are taken: a flood of
    sticky commands in one window writes no more than the budget and the spell's one 😕,
    the deferred update included, and every command taken is answered by it."""
    client, rt, fake = live
    config = CommandConfig(
        min_update_interval_s=0.3, installation_write_burst=9, installation_write_refill_s=3600
    )
    tune(rt, config, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # the comment is there: the flood edits it
    rt.ctx.flood.installation_writes.refund(1001, 9)  # and the budget full again
    flood = _flood(client, rt, fake)
    writes = content_writes(fake)
    assert len(writes) <= 9 + 1, sorted(writes)
    assert state(rt).pending is None and rt.queue.counts()["failed"] == 0
    answered = [reactions(fake, c) for c in flood]
    assert answered.count({"confused"}) == 1, answered
    # taken: 👀, then 👍 (now or by the deferred update); refused: nothing at all
    assert all(r in ({"eyes", "+1"}, {"confused"}, set()) for r in answered), answered
    assert answered.count({"eyes", "+1"}) >= 2, answered


@pytest.mark.parametrize(("body", "given_back"), [("/notes", 1), ("/notes why", 0)])
def test_a_deferred_update_that_writes_no_comment_gives_back_the_write_paid_for_it(
    live, body, given_back
):
    """A command whose update is deferred pays, with its own writes, for the notes
    comment's write that update makes later. An update that found the comment as it
    should be (the same `/notes` again) wrote nothing and kept the write: one write of
    the installation's budget lost per deferred update, where an update run at once
    gives back what it did not write. One that writes the comment (`why`) keeps it."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # 👀, the comment, 👍; the window opens
    budget = rt.ctx.flood.installation_writes
    c = owe_an_update(client, rt, fake, body)
    assert budget.left(1001) == 10 - 3 - 3  # 👀, and the update's 👍 and comment paid now
    fake.clear_requests()
    run_due(rt)
    assert reactions(fake, c) == {"eyes", "+1"} and sticky_writes(fake) == 1 - given_back
    assert budget.left(1001) == 10 - 6 + given_back
    assert rt.queue.counts()["failed"] == 0


# kills: bot/command_updates.py:handle_refresh the update queued again under the new name
#        not told prepaid (`prepaid=paid` -> `False`): the write its command paid for is kept
def test_a_deferred_update_queued_again_under_the_new_name_still_gives_back_its_write(
    tmp_path, fake_github, app_key, monkeypatch
):
    clean_env(monkeypatch)
    fake, elsewhere = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key, repos=f"{DEFAULT_REPO},{elsewhere}")
    with serving(settings) as (client, rt):
        tune(rt, OWING, clock=lambda: 1000.0)
        say(client, rt, fake, "/notes")  # the window opens
        c = owe_an_update(client, rt, fake, "/notes")  # the same again: nothing to write
        fake.transfer(DEFAULT_REPO, elsewhere)
        payload = pr_payload(action="labeled", title=MATCHING_TITLE, repo=elsewhere)
        assert post(client, "pull_request", payload).status_code == 202
        wait_until(lambda: rt.queue.counts()["done"] == 3, what="the event under the new name")
        budget = rt.ctx.flood.installation_writes
        left = budget.left(1001)
        fake.clear_requests()
        run_due(rt)
        assert [r["repo"] for r in rt.db.execute("SELECT repo FROM deliveries WHERE by_bot")] == [
            DEFAULT_REPO,
            elsewhere,
        ]
        assert reactions(fake, c) == {"eyes", "+1"} and fake.calls("PATCH", "/repos/*") == []
        assert budget.left(1001) == left + 1  # its 👍 was paid; the comment's write back


def test_a_deferred_update_is_the_bots_own_delivery_not_githubs(live):
    """The start's redelivery sweep asks GitHub for what it failed to deliver since the
    newest delivery GitHub sent (`last_received`): a deferred update queued later is no
    such delivery."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")
    owe_an_update(client, rt, fake, "/notes why")
    rows = rt.queue.db.execute("SELECT id, by_bot, received_at FROM deliveries ORDER BY seq")
    assert [r["id"].split(":")[0] for r in rows if r["by_bot"]] == [REFRESH_ACTION]
    assert rows[-1]["by_bot"]  # the newest row
    from_github = [r for r in rows if not r["by_bot"]]
    assert rt.queue.last_received() == from_github[-1]["received_at"] < rows[-1]["received_at"]


def test_a_deferred_update_an_earlier_one_covered_gives_back_the_write_paid_for_it(live):
    """Its window taken as lost (the update not run a minute past its time), the next
    command updates the comment at once for all that was owed: the deferred update, run
    later, has nothing owed, and gives back the comment's write its command paid for."""
    client, rt, fake = live
    now = [1000.0]
    tune(rt, OWING, clock=lambda: now[0])
    say(client, rt, fake, "/notes")
    why = owe_an_update(client, rt, fake, "/notes why")
    now[0] += 3600 + 60  # lost: the next command runs at once, for both
    c = say(client, rt, fake, "/notes", wait=False)
    wait_until(
        lambda: reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["processing"] == 0,
        what="the command answered",
    )
    assert reactions(fake, why) == {"eyes", "+1"} and state(rt).pending is None
    budget = rt.ctx.flood.installation_writes
    before = budget.left(1001)
    run_due(rt)  # "nothing owed: an earlier update covered it"
    assert budget.left(1001) == before + 1
    assert rt.queue.counts()["failed"] == 0


def test_a_deferred_update_gives_its_write_back_once_not_at_each_re_run_nor_after_a_restart(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The write given back is the one its command paid in this process: once, by the
    update's first run (a re-run, put back when GitHub rate limited its 👍, gives
    nothing back again), and not at all after a restart (the budgets start over, full:
    what was paid before is not theirs to give back)."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, OWING, clock=lambda: 1000.0)
        say(client, rt, fake, "/notes")
        c = owe_an_update(client, rt, fake, "/notes")
        budget = rt.ctx.flood.installation_writes
        assert budget.left(1001) == 4
        thanks = f"/repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"
        fake.inject("POST", thanks, Fault.secondary_rate_limit(retry_after=2))
        run_due(rt)  # put back, then run again 2 s later
        assert reactions(fake, c) == {"eyes", "+1"} and len(fake.calls("POST", thanks)) == 3
        assert budget.left(1001) == 5 and rt.queue.counts()["failed"] == 0
        # one more owed, then a restart: the next server runs it
        owe_an_update(client, rt, fake, "/notes")
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        tune(rt, OWING, clock=lambda: 1000.0)
        budget = rt.ctx.flood.installation_writes
        assert budget.allow(1001, 4)  # spent on other PRs since the start
        run_due(rt)
        assert budget.left(1001) == 6, "given back a write this process was never paid"


# --- deferred updates: a command after one, writes put back, late `off` and `why` ---


# kills: bot/command_updates.py:handle_refresh the deferred update does not open the next window
def test_a_command_after_a_deferred_update_ran_is_answered(live):
    # once the window's deferred update ran, the next command is not folded into it
    client, rt, fake = live
    now = [1000.0]
    tune(rt, CommandConfig(min_update_interval_s=0.3), clock=lambda: now[0])
    rt.workers.stop()
    say(client, rt, fake, "/notes", wait=False)  # runs at once, opens the window
    say(client, rt, fake, "/notes why", wait=False)  # deferred to the window's end
    rt.workers.start()
    drain(rt)
    assert "(why mode)" in sticky(fake).body and state(rt).pending is None
    now[0] = 1001.0  # the window is over
    later = say(client, rt, fake, "/notes")
    drain(rt)
    assert "(why mode)" not in sticky(fake).body
    assert reactions(fake, later) == {"eyes", "+1"} and state(rt).pending is None


@pytest.mark.parametrize(
    "read",
    [
        f"/repos/{DEFAULT_REPO}/pulls/{N}",  # the PR's head: a comment's payload has none
        # the comment list, read by the port before its write: a write was counted as
        # asked for when sticky began to write, before this read
        f"/repos/{DEFAULT_REPO}/issues/{N}/comments",
    ],
    ids=["the PR", "the comment list"],
)
def test_a_deferred_update_put_back_before_any_write_still_gives_back_its_write(
    tmp_path, fake_github, app_key, monkeypatch, read
):
    """A deferred update whose first run is put back by a rate limit on a read has asked
    GitHub for no write of the comment; its re-run finds the comment already right and
    writes none. The write its command paid for was never given back (the prepaid write
    claimed at the first run's start): one write of the installation's
    budget lost per deferred update that meets a rate limit before its write, when the
    installation is under pressure, which is when the budget matters."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, OWING, clock=lambda: 1000.0)
        say(client, rt, fake, "/notes")  # 👀, the comment, 👍: 3; the window opens
        c = owe_an_update(client, rt, fake, "/notes")  # 👀, and 👍 + comment prepaid: 3
        budget = rt.ctx.flood.installation_writes
        assert budget.left(1001) == 10 - 6
        fake.inject("GET", read, Fault.secondary_rate_limit(retry_after=2))
        fake.clear_requests()
        run_due(rt)  # put back, then run again 2 s later: the comment is already right
        assert len(fake.calls("GET", read)) >= 2, "the update was not put back"
        assert reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["failed"] == 0
        assert sticky_writes(fake) == 0  # no write of the notes comment made or asked for
        assert budget.left(1001) == 10 - 6 + 1, (
            "the write prepaid for a notes comment the update never wrote was kept"
        )


# kills: bot/command_updates.py:newer_switch an `off` said before the `on` that stands, run late in
#        the window of a deferred update, joins that update and waits for it for its 👍;
#        and bot/command_answers.py:_run_judged `in SWITCHES` -> `not in` (alone), `any` -> `all`
#        (beside a lookup): the `on` said later not looked for; :_run_judged `in` -> `not in`
@pytest.mark.parametrize("body", ["/notes off", "/notes off\n/notes help"])
def test_an_outranked_off_is_answered_at_once_not_folded_into_a_deferred_update(live, body):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=3600), clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # runs at once, opens an hour's window
    off = fake.add_comment(DEFAULT_REPO, N, body, login=AUTHOR)
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    done = rt.queue.counts()["done"]
    for handled, (c, ago) in enumerate(((on, 10), (off, 20)), 1):  # the `off` arrives late
        payload = comment_payload(c)
        said = github_time_ago(ago)
        payload["comment"] = dict(payload["comment"], created_at=said, updated_at=said)
        assert post(client, "issue_comment", payload).status_code == 202
        wait_until(
            lambda n=handled: (
                rt.queue.counts()["done"] == done + n and rt.queue.counts()["processing"] == 0
            ),
            what="the command handled, the update it owes waiting",
        )
    assert reactions(fake, on) == {"eyes"}  # its update waits for the window's end
    assert reactions(fake, off) == {"eyes", "+1"}, "the outranked `off` waits for an update"
    assert state(rt).pending.acks == (on.id,) and not state(rt).opted_out


# kills: bot/command_updates.py:_said_last a command the payload gives no time for fails its
#        delivery (the changes it asks for taken for None)
def test_a_command_whose_payload_gives_no_time_is_run(live):
    # "A source the payload gives no time for is taken as the newest" (newer_switch)
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes why", login=AUTHOR)
    deliver_without_its_time(client, rt, c)
    assert rt.queue.counts()["failed"] == 0
    assert "(why mode)" in sticky(fake).body and reactions(fake, c) == {"eyes", "+1"}


# kills: bot/command_updates.py:ask_for_update a command that joins the update already deferred gets
#        its 👍 at once, before the update it waits for
def test_a_command_joining_a_deferred_update_gets_its_thumbs_up_only_with_the_update(live):
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # runs at once, opens an hour's window
    why = owe_an_update(client, rt, fake, "/notes why")  # deferred: the update is queued
    done = rt.queue.counts()["done"]
    joined = say(client, rt, fake, "/notes", wait=False)
    wait_until(
        lambda: rt.queue.counts()["done"] == done + 1 and rt.queue.counts()["processing"] == 0,
        what="the command handled",
    )
    assert reactions(fake, joined) == {"eyes"}, "thanked before the update it joined"
    assert state(rt).pending.acks == (why.id, joined.id)
    run_due(rt)
    assert reactions(fake, joined) == reactions(fake, why) == {"eyes", "+1"}
    assert "(why mode)" not in sticky(fake).body  # the plain `/notes`, said last


# kills: bot/command_updates.py:handle_refresh a deferred update put back after GitHub was asked for
#        its write (the edit rate limited) gives back the write its command paid for it
def test_a_deferred_update_put_back_at_its_write_keeps_the_write_paid_for_it(
    tmp_path, fake_github, app_key, monkeypatch
):
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, OWING, clock=lambda: 1000.0)
        say(client, rt, fake, "/notes")  # 👀, the comment, 👍: 3; the window opens
        c = owe_an_update(client, rt, fake, "/notes why")  # 👀, and 👍 + edit prepaid: 3
        budget = rt.ctx.flood.installation_writes
        assert budget.left(1001) == 10 - 6
        edit = f"/repos/{DEFAULT_REPO}/issues/comments/{sticky(fake).id}"
        fake.inject("PATCH", edit, Fault.secondary_rate_limit(retry_after=2))
        run_due(rt)  # put back at its edit, then run again 2 s later
        assert len(fake.calls("PATCH", edit)) == 2, "the update was not put back at its edit"
        assert "(why mode)" in sticky(fake).body and reactions(fake, c) == {"eyes", "+1"}
        assert budget.left(1001) == 10 - 6, "the write asked of GitHub was given back"


# kills: bot/command_updates.py:handle_refresh the log says `None` for a deferred update an earlier
#        one covered, not why it wrote nothing
def test_the_log_says_a_deferred_update_found_nothing_owed(live, caplog):
    client, rt, fake = live
    now = [1000.0]
    tune(rt, OWING, clock=lambda: now[0])
    say(client, rt, fake, "/notes")
    owe_an_update(client, rt, fake, "/notes why")
    now[0] += 3600 + 60  # its window taken as lost: the next command updates for both
    say(client, rt, fake, "/notes", wait=False)
    wait_until(lambda: state(rt).pending is None and rt.queue.counts()["processing"] == 0)
    caplog.set_level("INFO", logger="review_notes")
    run_due(rt)
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert said[-1].endswith(": nothing owed: an earlier update covered it"), said[-1]


# kills: bot/command_updates.py:handle_refresh the log says `None` for a deferred update that wrote
#        the notes comment, not what it did
def test_the_log_says_what_a_deferred_update_did(live, caplog):
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")
    owe_an_update(client, rt, fake, "/notes why")
    caplog.set_level("INFO", logger="review_notes")
    run_due(rt)
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert f"pull_request.{REFRESH_ACTION} PR {DEFAULT_REPO} {N}: comment updated" in said[-1]


# kills: bot/command_updates.py:_write_owed_update `is not None` -> `is None`: a command run late
#        takes a PR no label pauses for a paused one, and rewrites the comment of a PR closed since
def test_a_late_why_leaves_the_comment_of_a_pr_closed_since_alone(live, monkeypatch):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes why", login="octo-dev")
    say(client, rt, fake, "/notes")  # written after the `why`: the plain notes
    shown = sticky(fake).body
    _closed_and_merged(client, rt, fake, monkeypatch)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()  # a note more, were it open

    retried_for_its_thumb(rt, fake, c)
    assert sticky(fake).body == shown, "a late command rewrote the notes of a closed PR"


# kills: bot/command_updates.py:_current_facts the payload's copy taken for None
def test_notes_on_a_diff_line_matches_the_pr_as_github_has_it_now(live):
    # A diff comment's payload carries the PR without its file count (GitHub's schema;
    # tests/command_kit.py sends it so): the PR is read, once, and matched as it is now,
    # here retitled since the payload was made
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    before = state(rt).notes
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    head = fake.pull(DEFAULT_REPO, N).head_sha
    payload = diff_comment_payload(c, head_sha=head)  # titled MATCHING_TITLE
    assert "changed_files" not in payload["pull_request"]
    more = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=more, author=AUTHOR)
    fake.clear_requests()
    assert post(client, "pull_request_review_comment", payload).status_code == 202
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert len(fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/{N}")) == 1
    assert len(state(rt).notes) == len(before) + 1, "matched on the payload's old title"


def test_a_late_off_written_before_a_notes_says_paused_when_no_note_is_left_to_show(live):
    # As above, with every note hidden by a `wrong`: the comment the later `/notes` wrote
    # says no note is left to show, and the late `off`'s update left it as that one had
    # it ("what a later command showed stands", taken for the short paused line): the PR
    # paused, its comment still offering `/notes off` (the command scenarios, seed 193).
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)  # one note shown
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert state(rt).notes == () and state(rt).dismissed != ()
    body = _off_told_after_a_later_notes(client, rt, fake)
    assert PAUSED in body, body


# kills: bot/command_updates.py:_write_owed_update a late command re-rendering a comment that
#   says paused and shows no note (the short paused line)
def test_a_late_why_written_before_an_off_leaves_the_short_paused_line(live):
    # docs/commands.md: "a `/notes` or `why` written before a later `off` leaves the short
    # paused line"; the why mode is its own all the same
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    why = fake.add_comment(DEFAULT_REPO, N, "/notes why", login=AUTHOR)  # written first
    say(client, rt, fake, "/notes off", login=AUTHOR)  # written after it, delivered first
    short = sticky(fake).body
    assert state(rt).opted_out and PAUSED in short and state(rt).notes == ()
    assert post(client, "issue_comment", comment_payload(why)).status_code == 202  # late
    drain(rt)
    assert reactions(fake, why) == {"eyes", "+1"} and state(rt).verbose
    assert sticky(fake).body == short


# --- a command's re-check after a rename or a lock; an owed update that does not read ---


# The repository is renamed while a command's files re-check waits, and a command that
# updates no comment (`/notes help`) under the new name moves the PR's state there. The
# re-check names the PR by its old name: it found no state there, took the list for not
# short, and the comment showed the short list's notes for good.
def test_a_command_s_re_check_follows_the_pr_s_state_to_its_repository_s_new_name(
    tmp_path, fake_github, app_key, caplog
):
    fake, elsewhere = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE).head_sha = HEAD
    settings = live_settings(
        tmp_path, fake, app_key, files_recheck_delays=(3600.0,), repos=f"{DEFAULT_REPO},{elsewhere}"
    )
    with serving(settings) as (client, rt):
        tune(rt)
        _off_then_lagged_push(client, rt, fake, 1)
        on = say(client, rt, fake, "/notes on", login=AUTHOR, wait=False)
        wait_until(lambda: "+1" in reactions(fake, on), what="the on")
        wait_until(lambda: rt.queue.counts()["processing"] == 0, what="the on's end")
        assert rt.queue.counts()["pending"] == 1  # its re-check, due in an hour
        fake.transfer(DEFAULT_REPO, elsewhere)
        asked = fake.add_comment(elsewhere, N, "/notes help", login="octo-dev")
        payload = comment_payload(asked)
        payload["repository"] = dict(payload["repository"], full_name=elsewhere)
        assert post(client, "issue_comment", payload).status_code == 202
        wait_until(lambda: rt.ctx.prs.get(elsewhere, N).files_listed == 0, what="the move")
        wait_until(lambda: rt.queue.counts()["processing"] == 0, what="the help's end")
        caplog.set_level("INFO", logger="review_notes")
        rt.db.execute("UPDATE deliveries SET not_before = ? WHERE state = 'pending'", (utcnow(),))
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
        queued = f"the PR's state is kept under {elsewhere} now: its re-check is queued there"
        assert any(queued in m for m in said), "the re-check ran under the old name"
        moved = rt.ctx.prs.get(elsewhere, N)  # (no note is of the new name's PRs)
        assert moved.files_listed == len(MATCHING_FILES), "the re-check looked by the old name"
        assert moved.files_sha == fake.pull(elsewhere, N).head_sha


# A `/notes` said while the updates are off, answered on a list GitHub gave short, queues
# its re-check; the conversation is locked before it runs. The lock refused the re-check's
# write, and the unlock, by a PR event's rules, left the paused PR's comment showing the
# short list's notes: what the command asked for was never shown.
@pytest.mark.parametrize("lagging", [(3600.0,)], indirect=True)
def test_a_re_check_a_lock_refused_shows_the_notes_asked_for_at_the_unlock(lagging):
    client, rt, fake = lagging
    _off_then_lagged_push(client, rt, fake, 1)
    _answered(client, rt, fake, "/notes")
    assert NOTE_SHOWN not in sticky(fake).body and rt.queue.counts()["pending"] == 1
    fake.lock(DEFAULT_REPO, N)
    rt.db.execute("UPDATE deliveries SET not_before = ? WHERE state = 'pending'", (utcnow(),))
    drain(rt)  # the re-check, refused
    assert NOTE_SHOWN not in sticky(fake).body
    unlocked(client, rt, fake, "2026-09-02T10:00:00Z")
    body = sticky(fake).body
    assert NOTE_SHOWN in body and PAUSED in body, "the notes asked for were left short"
    assert state(rt).pending is None and state(rt).opted_out


# kills: bot/prstate.py:read_values an owed update that does not read taken for the
#        newest command's (said: None), over what a later command showed
def test_an_owed_update_that_does_not_read_leaves_the_notes_a_notes_showed_while_off(live):
    """`/notes off`, then `/notes`: the notes shown under the paused line. The PR's owed
    update then reads as no object (damaged text SQLite reads as any text), and a push
    comes. What that update's command said is not known, nor when: its stand-in was
    taken for the newest word, saying neither (`off`'s show), so the push, on the
    opted-out PR, cut the comment back to the short paused line, the notes the author
    asked for hidden. Taken as said before any command known, the comment stays as the
    state says it: the notes the `/notes` showed."""
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    say(client, rt, fake, "/notes", login=AUTHOR)
    shown = sticky(fake).body
    assert PAUSED in shown and state(rt).notes and state(rt).pending is None
    rt.ctx.prs.db.execute("UPDATE pr_state SET pending = '[5]' WHERE number = ?", (N,))
    payload = pr_payload(action="synchronize", title=MATCHING_TITLE, head_sha="b" * 40)
    assert post(client, "pull_request", payload).status_code == 202
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert sticky(fake).body == shown and state(rt).pending is None

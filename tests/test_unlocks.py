"""A locked conversation's unlock (`pull_request` `unlocked`, bot.pr_events), end to end
against the fake GitHub: what the lock refused (a PR event's write, a command's update
with its 👍) is made at the unlock, not left for the PR's next event; an unlock with
nothing owed writes nothing; `locked` is not handled. The deletion a lock left owed:
tests/test_deletion_events.py."""

from __future__ import annotations

import time
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest

from bot.commands import CommandConfig
from bot.markers import REPLY_MARKER
from bot.server import build_dispatcher
from bot.times import utcnow
from tests.command_kit import (
    AUTHOR,
    OWING,
    N,
    comment_payload,
    diff_comment_payload,
    edit,
    github_time_ago,
    maintainer_deletes,
    owe_an_update,
    reactions,
    replies,
    retried_for_its_thumb,
    review_payload,
    reviewed,
    run_due,
    said_and_left_without_its_thumb,
    say,
    state,
    sticky,
    tune,
    unlocked,
)
from tests.docs_kit import doc
from tests.fake_github import DEFAULT_REPO, Fault, iso_time
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    drain,
    live_settings,
    make_settings,
    octokit_example,
    ours,
    post,
    pr_payload,
    repo_calls,
    serving,
    title_with_one_more_note,
    wait_until,
)


def ran(caplog, answer: dict, event: str = "pull_request.unlocked") -> str:
    """What the unlock's delivery (or another `event`'s) did, as the server's log line says."""
    opening = f"delivery {answer['delivery']} {event} PR "
    (line,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith(opening)]
    return line.split(": ", 1)[1]


def test_github_sends_unlocked_to_its_route_and_locked_to_none(tmp_path):
    """GitHub's own payloads: `unlocked` is routed (on a closed PR too: an owed
    deletion or a command's ask is made there), `locked` is ignored at intake."""
    d, settings = build_dispatcher(), make_settings(tmp_path)
    for action in ("locked", "unlocked"):
        payload = octokit_example("pull_request", action)
        payload["repository"]["full_name"] = DEFAULT_REPO
        payload["pull_request"]["state"] = "closed"
        t = d.triage("pull_request", payload, settings)
        if action == "locked":
            assert (t.route, t.reason) == (None, "no handler for pull_request.locked")
        else:
            assert t.route is not None and t.route.handler.__name__ == "handle_unlocked"


def test_a_quiet_pr_gets_the_notes_a_lock_refused_at_the_unlock(live, caplog):
    """Opened locked: GitHub refuses the notes comment. Nothing else happens on the PR:
    the comment used to wait for its next event, maybe never; the unlock posts it."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N, "resolved")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    assert ours(fake) == [] and state(rt).unconfirmed
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert sticky(fake) is not None and state(rt).comment_id == sticky(fake).id
    assert ran(caplog, answer) == f"created (comment {sticky(fake).id}): 1 note(s)"
    assert not state(rt).unconfirmed and rt.queue.counts()["failed"] == 0


def test_an_unlock_with_nothing_owed_writes_nothing(live, caplog):
    """Locked and unlocked with no write refused meanwhile: the comment shows what it
    should, and an unlock is no change of the PR. Its payload's title (edited while
    locked, its `edited` event still to come) is not matched: no call at all."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    before = sticky(fake).body
    fake.lock(DEFAULT_REPO, N)
    fake.clear_requests()
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z", title=title_with_one_more_note())
    assert repo_calls(fake) == Counter() and sticky(fake).body == before
    assert ran(caplog, answer) == "nothing owed: no write or deletion was left to the unlock"


def test_an_off_whose_pause_the_lock_refused_pauses_the_comment_at_the_unlock(live, caplog):
    """The author's review saying `/notes off`, run once the conversation was locked: the
    updates go off, GitHub refuses the comment's edit. A PR event leaves an opted-out PR
    alone, so the comment went on showing the notes, unpaused, for good; the unlock
    makes the update the `off` owes."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    fake.lock(DEFAULT_REPO, N)
    reviewed(client, rt, fake, "/notes off")
    assert state(rt).opted_out and "paused" not in sticky(fake).body
    assert state(rt).pending is not None  # owed to the unlock
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == "comment updated: paused"
    assert "paused" in sticky(fake).body and state(rt).pending is None
    assert len(ours(fake)) == 1 and rt.queue.counts()["failed"] == 0


def test_a_deferred_update_the_lock_refused_is_written_with_its_thumb_at_the_unlock(live):
    """`/notes why` in the window of an earlier update: 👀, its update deferred. The lock
    comes before the window ends, and GitHub refuses the update: the comment stayed
    without the why mode and the `why` without its 👍 until another command's update.
    The unlock writes it, 👍 and all; a 👍 GitHub fails then fails the unlock's delivery
    (shown in /healthz), and its retry adds it, as a command's run does."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    tune(rt, CommandConfig(min_update_interval_s=1.0), clock=lambda: 1000.0)
    say(client, rt, fake, "/notes", login=AUTHOR)  # opens the window
    why = say(client, rt, fake, "/notes why", login=AUTHOR, wait=False)
    wait_until(lambda: reactions(fake, why) == {"eyes"}, what="the why's 👀")
    fake.lock(DEFAULT_REPO, N)
    drain(rt)  # the deferred update, refused
    assert state(rt).pending is not None and "(why mode)" not in sticky(fake).body
    fake.inject("POST", f"/repos/*/issues/comments/{why.id}/reactions", *[Fault.error(502)] * 3)
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert "(why mode)" in sticky(fake).body and reactions(fake, why) == {"eyes"}
    assert rt.queue.counts()["failed"] == 1 and state(rt).pending is not None
    retried_for_its_thumb(rt, fake, why)
    assert state(rt).pending is None and len(ours(fake)) == 1


def test_an_unlock_not_delivered_leaves_the_commands_update_to_the_prs_next_event(live, caplog):
    """The `off` the lock refused, its unlock never delivered (or given up): a PR event
    leaves an opted-out PR alone, so the update owed stayed owed through every push, the
    comment showing the notes unpaused until someone said another command. The PR's next
    event pays it, as docs/commands.md says."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    fake.lock(DEFAULT_REPO, N)
    reviewed(client, rt, fake, "/notes off")
    fake.unlock(DEFAULT_REPO, N)  # no `unlocked` event comes
    pushed = deliver_pr(
        client, rt, action="synchronize", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:00Z"
    )
    assert "paused" in sticky(fake).body and state(rt).pending is None
    assert len(ours(fake)) == 1 and rt.queue.counts()["failed"] == 0
    said = "the commands' update owed, on this event's look: comment updated: paused"
    assert ran(caplog, pushed, "pull_request.synchronize") == said
    said = " ".join(doc("commands.md").split())
    assert "to the PR's next event or command, whichever comes first" in said


def test_a_deferred_update_the_lock_refused_is_paid_with_its_thumb_by_the_next_push(live):
    """`/notes why` deferred, refused by the lock at its window's end, the unlock not
    delivered: the next push writes the why mode and gives the 👍, which waited for
    another command's update."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # opens the window
    why = owe_an_update(client, rt, fake, "/notes why")
    fake.lock(DEFAULT_REPO, N)
    run_due(rt)  # the deferred update, refused
    assert state(rt).pending is not None and "(why mode)" not in sticky(fake).body
    fake.unlock(DEFAULT_REPO, N)  # no `unlocked` event comes
    deliver_pr(
        client, rt, action="synchronize", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:00Z"
    )
    assert "(why mode)" in sticky(fake).body and reactions(fake, why) == {"eyes", "+1"}
    assert state(rt).pending is None and rt.queue.counts()["failed"] == 0


def test_the_next_event_pays_the_commands_update_on_its_own_look_in_one_write(live, caplog):
    """`/notes why` the lock refused, its unlock never delivered; then the opt-out label.
    The label's event paused the comment (the short paused line), then paid the `why`'s
    update, which showed the notes again under it: two edits of the notes comment. One
    edit now: the `why`'s rules (the notes shown, in why mode) on the event's look (the
    label: the paused line above them)."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    fake.lock(DEFAULT_REPO, N)
    reviewed(client, rt, fake, "/notes why")
    assert state(rt).pending is not None and "(why mode)" not in sticky(fake).body
    fake.unlock(DEFAULT_REPO, N)  # no `unlocked` event comes
    fake.pull(DEFAULT_REPO, N).labels.append("no-review-notes")
    fake.clear_requests()
    labeled = deliver_pr(
        client,
        rt,
        action="labeled",
        title=MATCHING_TITLE,
        labels=("no-review-notes",),
        updated_at="2026-09-01T10:02:00Z",
    )
    body = sticky(fake).body
    assert "(why mode)" in body and "paused" in body and state(rt).pending is None
    assert repo_calls(fake)["PATCH issues/comments/{n}"] == 1
    said = "the commands' update owed, on this event's look: comment updated: 1 note(s)"
    assert ran(caplog, labeled, "pull_request.labeled") == said


def test_a_stale_event_pays_the_commands_update_on_the_pr_as_it_is_now(live, caplog):
    """As above, the next delivery an event older than one handled (late, or re-run): its
    payload is out of date (a title that links one more note), so the `why`'s update
    is written on the PR as GitHub has it now, and the event changes nothing itself."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    shown = state(rt).notes
    fake.lock(DEFAULT_REPO, N)
    reviewed(client, rt, fake, "/notes why")
    fake.unlock(DEFAULT_REPO, N)  # no `unlocked` event comes
    old = title_with_one_more_note()
    late = deliver_pr(client, rt, action="reopened", title=old, updated_at="2026-09-01T09:00:00Z")
    assert "(why mode)" in sticky(fake).body and state(rt).notes == shown
    assert state(rt).pending is None and state(rt).event_at == "2026-09-01T10:00:00Z"
    stale = "skipped: stale event (2026-09-01T09:00:00Z < 2026-09-01T10:00:00Z)"
    assert (
        ran(caplog, late, "pull_request.reopened")
        == f"{stale}; comment updated: {len(shown)} note(s)"
    )


def test_an_event_in_a_deferred_updates_window_makes_its_own_update(live):
    """`/notes why` waiting for its window's end, then a push whose title links one more
    note: the event makes its own update (the new note shown) and leaves the `why`'s to
    its time, as the unlock does."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # opens the window
    owe_an_update(client, rt, fake, "/notes why")
    shown = len(state(rt).notes)
    more = title_with_one_more_note()
    pushed = pr_payload("synchronize", title=more, updated_at="2026-09-01T10:02:00Z")
    assert post(client, "pull_request", pushed).status_code == 202
    wait_until(lambda: len(state(rt).notes) == shown + 1, what="the push's own update")
    assert state(rt).pending is not None


def test_an_unlock_in_a_deferred_updates_window_leaves_the_update_to_its_time(live, caplog):
    """`/notes why` in the window of the `/notes` before it: its update waits for the
    window's end, 👍 and edit paid for. The conversation is locked and unlocked meanwhile,
    nothing refused: the unlock wrote the update at once, before its time (flood control
    bypassed), and the deferred update, finding nothing owed, gave back the write its
    command paid for, which the unlock had made: one write more than the budget kept."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # 👀, the comment, 👍: 3; the window opens
    why = owe_an_update(client, rt, fake, "/notes why")  # 👀, and 👍 + edit prepaid: 3
    budget = rt.ctx.flood.installation_writes
    assert budget.left(1001) == 10 - 6
    fake.lock(DEFAULT_REPO, N)
    caplog.set_level("INFO")
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z", drained=False)
    assert ran(caplog, answer) == "the commands' update waits for its window's end (flood control)"
    assert "(why mode)" not in sticky(fake).body and reactions(fake, why) == {"eyes"}
    assert state(rt).pending is not None
    run_due(rt)
    assert "(why mode)" in sticky(fake).body and reactions(fake, why) == {"eyes", "+1"}
    assert budget.left(1001) == 10 - 6, "a write made was given back to the budget"
    said = " ".join(doc("commands.md").split())
    assert "the unlock does not write it early" in said


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("installation", 5, "installation: not an object (int)"),
        ("installation", {"id": "1001"}, "installation.id: not an integer (str)"),
        ("pull_request.title", 5, "pull_request.title: not a string (int)"),
        ("pull_request.labels", "bug", "pull_request.labels: not a list (str)"),
        ("pull_request.user", "octo-dev", "pull_request.user: not an object (str)"),
        ("pull_request.head", [], "pull_request.head: not an object (list)"),
    ],
)
@pytest.mark.parametrize("action", ["unlocked", "opened"])
def test_a_pull_request_payload_its_handler_cannot_read_is_refused_at_intake(
    live, action, field, value, said
):
    """GitHub's own payload with a field GitHub never sends so: the unlock's route had no
    check, nor the other actions' a check of what their handler reads, so it was queued
    (202) and failed at each run (and `review-notes retry`) with that error; a comment's
    or a review's id is refused at intake (400, naming the field). So is this now, and
    nothing is queued; the payload as GitHub sends it is taken."""
    client, rt, _ = live
    payload = octokit_example("pull_request", action)
    payload["repository"]["full_name"] = DEFAULT_REPO
    payload["pull_request"]["number"] = N
    where, _, key = field.rpartition(".")
    (payload[where] if where else payload)[key] = value
    r = post(client, "pull_request", payload)
    assert (r.status_code, r.json()) == (400, {"error": f"malformed pull_request payload: {said}"})
    assert sum(rt.queue.counts().values()) == 0
    good = octokit_example("pull_request", action)
    good["repository"]["full_name"] = DEFAULT_REPO
    good["pull_request"]["number"] = N
    assert post(client, "pull_request", good).status_code == 202
    said = " ".join(doc("internals.md").split())
    assert "so is a `pull_request` event handled (`unlocked` too) whose `installation`" in said


# --- commands the lock kept from being heard (bot.locked_commands) --------------------


def said_while_locked(client, rt, fake, body: str):
    """A maintainer (only collaborators may comment on a locked conversation) says `body`
    on the locked PR; its delivery runs, GitHub refusing its 👀. Returns the comment."""
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = fake.add_comment(DEFAULT_REPO, N, body, login="maintainer")
    payload = comment_payload(c)
    payload["issue"].update(locked=True, active_lock_reason="too heated")
    r = post(client, "issue_comment", payload)
    assert r.status_code == 202 and r.json()["status"] == "queued", r.text
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"
    assert rt.queue.counts()["failed"] == 0
    return c


# kills: bot/locked_commands.py:LockedCommands.keep its True not returned (the kept line lost)
def test_a_command_said_on_a_locked_pr_is_answered_at_the_unlock(live, caplog):
    """A maintainer's `/notes help` and `/notes why` on the locked PR: GitHub refuses the
    App's 👀 there, and the commands were dropped (ignored at intake), the maintainer
    told by nothing on the PR to say them again. They are kept, and run at the unlock:
    👀, the reply, the why mode, 👍."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N, "too heated")
    c = said_while_locked(client, rt, fake, "/notes help\n/notes why")
    kept = [r.getMessage() for r in caplog.records if "issue_comment.created PR" in r.getMessage()]
    assert kept[-1].endswith(": the conversation is locked: its commands are kept for the unlock")
    assert reactions(fake, c) == set() and replies(fake) == []
    assert "(why mode)" not in sticky(fake).body and not state(rt).verbose
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == "1 comment(s) of commands kept while locked queued"
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert "(why mode)" in sticky(fake).body and rt.queue.counts()["failed"] == 0
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    said = " ".join(doc("commands.md").split())
    assert "kept, and run at the unlock" in said


def test_a_kept_command_whose_comment_was_deleted_is_not_run(live, caplog):
    """The maintainer took the command back (deleted its comment) before the unlock:
    nothing is run for it, and the unlock says so."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    maintainer_deletes(fake, c)
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == f"kept commands dropped: comment {c.id} (deleted since)"
    assert replies(fake) == [] and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


def test_a_kept_command_edited_while_locked_runs_its_last_text_whole(live):
    """Said locked, then edited while still locked (adding a line): the edit is kept in
    its place, and the unlock runs every command of the text it shows, once."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    edit(client, rt, fake, c, "/notes help\n/notes why")
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert "(why mode)" in sticky(fake).body


def test_a_kept_comment_edited_after_the_unlock_is_left_to_its_edit(live, caplog):
    """Edited once unlocked, before the unlock's event ran: the text kept is no longer
    what the comment says, and the edit's own event answers what it changed."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    c.body = "/notes why"  # in the web UI; its event comes after the unlock's
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == f"kept commands dropped: comment {c.id} (edited since)"
    assert replies(fake) == []


# kills: bot/locked_commands.py:release a kept comment edited since dropped whole
#        bot/command_answers.py:_new_commands a kept command the edit took out run
def test_a_kept_comment_edited_after_the_unlock_runs_the_kept_commands_it_kept(live):
    """Kept `/notes help` and `/notes search cache`, edited once unlocked (before the
    unlock's event ran): the search taken out, `/notes why` added. The kept text was
    dropped (edited since), and the edit's event ran the `why` alone (its `from` is the
    kept text): the `help`, left in place, was never answered. The kept commands the
    edit left are run at the unlock, those alone: the search is taken back."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help\n/notes search cache")
    fake.unlock(DEFAULT_REPO, N)
    old, c.body = c.body, "/notes help\n/notes why"  # in the web UI, its event after the unlock's
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=old))
    drain(rt)
    assert "(why mode)" in sticky(fake).body and rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 1  # the help's; none for the search
    assert reactions(fake, c) == {"eyes", "+1"}


# kills: bot/locked_commands.py:_with_taken_back a topic keyed as typed, not by the topic
#        it names: renamed by the edit, it was put in the payload's `from` as taken out
def test_a_kept_topic_an_edit_names_otherwise_is_answered_at_the_unlock(live):
    """Kept `/notes topic prefix caching please`, edited once unlocked (before the unlock's
    event ran) to name the same topic by its name alone. The edit's event runs nothing (the
    same topic, keyed by the topic it names), so the unlock's run answers it: its payload's
    `from` took the kept line for one the edit took out, and it was answered never."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help\n/notes topic prefix caching please")
    fake.unlock(DEFAULT_REPO, N)
    old, c.body = c.body, "/notes topic Prefix caching"  # in the web UI, before the unlock's event
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=old))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    (reply,) = replies(fake)  # the topic's, once; none for the help taken out
    assert "topic" in reply.body


def test_a_command_locked_before_its_eyes_is_answered_at_the_unlock(live):
    """Said on the open PR (its event says unlocked), locked before the bot's 👀: GitHub
    refused it, and the command was dropped, though nothing on the PR said it was not
    heard. It is kept as one said locked, and answered at the unlock."""
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes", login="octo-dev")
    fake.lock(DEFAULT_REPO, N)
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)
    assert reactions(fake, c) == set() and ours(fake) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert sticky(fake) is not None and rt.queue.counts()["failed"] == 0


# kills: bot/command_events.py:_then_kept a kept comment's own payload (unlocked when said)
#        releasing it again at each run while locked: queued and kept again without end
def test_a_command_locked_before_its_eyes_is_kept_once_not_released_by_its_own_payload(live):
    """As above, with the payload GitHub sends: `issue.locked` false, as the comment was
    said before the lock. Kept, its run said the PR unlocked (its payload's word, from
    before the lock) and queued the kept commands again, which met the lock, were kept,
    and were queued again by the same word: one GET and one refused 👀 after another,
    for as long as the lock stood. Kept once, they wait for the unlock."""
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes", login="octo-dev")
    fake.lock(DEFAULT_REPO, N)
    payload = comment_payload(c)
    payload["issue"]["locked"] = False  # (as GitHub says it when the comment was made)
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt, timeout=10)
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.delivery.endswith("#unlocked"), kept.delivery
    assert rt.queue.counts()["done"] == 1 and reactions(fake, c) == set()
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == [] and rt.queue.counts()["failed"] == 0


# kills: bot/locked_commands.py:LockedCommands.kept_by any run of the kept comment taken for
#        the one that met the lock (its edit after a lost unlock leaving it kept)
def test_a_kept_comment_edited_after_a_lost_unlock_is_released_by_its_edit(live):
    """The unlock's event was lost; the maintainer then edits the kept comment (its event
    says unlocked): the edit's run is not the one the lock kept, so it releases the kept
    text, now edited (dropped: the edit answers for itself), and nothing stays kept."""
    client, rt, fake = live
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)  # (its event never delivered)
    old, c.body = c.body, "/notes help\n/notes why"
    c.updated_at = time.time()  # GitHub dates the edit: after the lock the bot met
    payload = comment_payload(c, action="edited", old_body=old)
    payload["issue"]["locked"] = False
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    assert "(why mode)" in sticky(fake).body and rt.queue.counts()["failed"] == 0


# kills: bot/command_answers.py:run_commands a reply the lock refused after its 👀 not kept
#        bot/command_answers.py:_run_judged its 👀 added again when released
def test_a_command_whose_reply_the_lock_refused_after_its_eyes_is_kept(live, caplog):
    """The 👀 landed, the lock came before the reply: the command was lost (its delivery
    done, its 👀 saying it was heard, no reply ever made). It is kept as one the lock
    refused the 👀 of, and answered at the unlock, with no second 👀."""
    client, rt, fake = live
    caplog.set_level("INFO")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
    lock = Fault.landed_after(lambda: fake.lock(DEFAULT_REPO, N))
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", lock)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    said = ran(caplog, r.json(), "issue_comment.created")
    assert said == "the conversation is locked: its commands are kept for the unlock"
    assert reactions(fake, c) == {"eyes"} and replies(fake) == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert kept.heard and rt.queue.counts()["failed"] == 0
    fake.clear_requests()
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == "1 comment(s) of commands kept while locked queued"
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert len(fake.calls("POST", f"/repos/*/issues/comments/{c.id}/reactions")) == 1  # 👍
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/command_answers.py:_run_judged a 👀 GitHub failed taken for one that shows
def test_a_command_whose_eyes_failed_before_the_lock_gets_them_at_the_unlock(live, caplog):
    """GitHub failed the 👀 (a 422, not the lock), then the lock refused the reply: kept,
    but not as heard, since no 👀 shows. Kept as heard, its run at the unlock added
    none: the command answered with a 👍 alone, never its 👀."""
    client, rt, fake = live
    caplog.set_level("INFO")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
    fake.inject("POST", f"/repos/*/issues/comments/{c.id}/reactions", Fault.error(422))
    lock = Fault.landed_after(lambda: fake.lock(DEFAULT_REPO, N))
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", lock)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    said = ran(caplog, r.json(), "issue_comment.created")
    assert said == "the conversation is locked: its commands are kept for the unlock"
    assert reactions(fake, c) == set() and replies(fake) == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.heard
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1


# kills: bot/command_reactions.py:Reactions.add the 👀 heard only once every first reaction landed
def test_a_command_whose_confused_the_lock_refused_after_its_eyes_is_kept_heard(live, caplog):
    """`/notes help` and an unknown command: the 👀 landed, the lock came before the 😕.
    Its 👀 shows, so it is kept as heard, and the unlock adds no second 👀 (a write for
    nothing): the 😕, the reply and the 👍."""
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes frobnicate", login="octo-dev")
    lock = Fault.landed_after(lambda: fake.lock(DEFAULT_REPO, N))
    fake.inject("POST", f"/repos/*/issues/comments/{c.id}/reactions", Fault(), lock)
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)
    assert reactions(fake, c) == {"eyes"} and replies(fake) == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert kept.heard and rt.queue.counts()["failed"] == 0
    fake.clear_requests()
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "confused", "+1"}
    assert len(fake.calls("POST", f"/repos/*/issues/comments/{c.id}/reactions")) == 2


# kills: bot/command_answers.py:run_commands a command kept after one of its replies posted
def test_a_command_refused_after_one_of_its_replies_is_not_kept(live, caplog):
    """`/notes help` answered, the lock before the `search`'s reply: run again at the
    unlock under another delivery, the `help` would be answered twice. Not kept (the
    `search` is not answered: said again once unlocked)."""
    client, rt, fake = live
    caplog.set_level("INFO")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes search cache", login="octo-dev")
    lock = Fault.landed_after(lambda: fake.lock(DEFAULT_REPO, N))  # at the second reply
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault(), lock)
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)
    assert reactions(fake, c) == {"eyes"} and len(replies(fake)) == 1
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer) == "nothing owed: no write or deletion was left to the unlock"
    assert len(replies(fake)) == 1


# kills: bot/command_answers.py:_run_judged a command whose update the lock refused kept too
def test_a_command_whose_update_the_lock_refused_after_its_eyes_is_owed_not_kept(live, caplog):
    """`/notes why`, its 👀 landed, the lock before the notes comment's edit: the update is
    owed, and made with its 👍 at the unlock (write_owed). Kept as well, it would run a
    second time there."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    lock = Fault.landed_after(lambda: fake.lock(DEFAULT_REPO, N))
    fake.inject("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/{sticky(fake).id}", lock)
    assert post(client, "issue_comment", comment_payload(c)).status_code == 202
    drain(rt)
    assert reactions(fake, c) == {"eyes"} and state(rt).pending is not None
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, answer).startswith("comment updated"), ran(caplog, answer)
    assert "(why mode)" in sticky(fake).body and reactions(fake, c) == {"eyes", "+1"}


def test_a_comment_edited_while_locked_runs_only_what_the_edit_added(live):
    """`/notes help` said and answered before the lock, the comment edited while locked to
    add `/notes why`: the unlock runs the `why` alone, as the edit's event would have (one
    reply, not two)."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = say(client, rt, fake, "/notes help")
    assert len(replies(fake)) == 1
    fake.lock(DEFAULT_REPO, N)
    edit(client, rt, fake, c, "/notes help\n/notes why")
    assert "(why mode)" not in sticky(fake).body
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert "(why mode)" in sticky(fake).body and len(replies(fake)) == 1


# kills: bot/command_answers.py:run_commands a retry's refused 👀 kept (its reply posted twice)
def test_a_retry_refused_its_eyes_by_the_lock_is_not_kept(live, caplog):
    """A command answered but for its 👍 (GitHub failed it), retried once the PR is
    locked: the retry's 👀 is refused, but an earlier run was heard (its 👀, its reply):
    run again at the unlock under another delivery, it would reply twice. Not kept."""
    client, rt, fake = live
    caplog.set_level("INFO")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes help")
    fake.lock(DEFAULT_REPO, N)
    (retried,) = rt.queue.retry()
    drain(rt)
    said = ran(caplog, {"delivery": retried}, "issue_comment.created")
    assert said.startswith("stopped: the conversation is locked")
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert len(replies(fake)) == 1 and reactions(fake, c) == {"eyes"}


# kills: bot/command_answers.py:run_commands a diff comment kept (never found at the unlock)
def test_a_diff_comment_locked_before_its_eyes_is_not_kept(live):
    """A comment on the diff is not read again at the unlock (bot.locked_commands): one
    the lock refused the 👀 of is dropped, as before."""
    client, rt, fake = live
    head = fake.pull(DEFAULT_REPO, N).head_sha
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
    fake.lock(DEFAULT_REPO, N)
    post(client, "pull_request_review_comment", diff_comment_payload(c, head_sha=head))
    drain(rt)
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert replies(fake) == []
    said = " ".join(doc("commands.md").split())  # and why not
    assert "the bot has no such read of a review or a diff comment" in said


# kills: bot/locked_commands.py:_as_said the last edit's own `from` asked for, not the pre-lock text
def test_a_comment_edited_twice_while_locked_runs_what_both_edits_added(live):
    """Answered before the lock, then edited twice while locked: the unlock asks for what
    the text before the lock lacked, not only what the last edit added."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = say(client, rt, fake, "/notes help")
    fake.lock(DEFAULT_REPO, N)
    edit(client, rt, fake, c, "/notes help\n/notes why")
    edit(client, rt, fake, c, "/notes help\n/notes why\n/notes search cache")
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert "(why mode)" in sticky(fake).body and len(replies(fake)) == 2


def test_kept_commands_whose_unlock_was_not_delivered_run_at_the_prs_next_event(live, caplog):
    """The `unlocked` event never came (GitHub failed to deliver it, the bot was down past
    redelivery): the PR's next event, whose payload says it is not locked, paid the
    update owed but left the kept commands waiting for an unlock already past. They run
    then, once: the unlock delivered late finds nothing kept."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)  # no `unlocked` event comes
    pushed = deliver_pr(  # (after the comment: an older push's word is stale)
        client, rt, action="synchronize", title=MATCHING_TITLE, updated_at=github_time_ago(0)
    )
    assert ran(caplog, pushed, "pull_request.synchronize").endswith(
        "; 1 comment(s) of commands kept while locked queued"
    )
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    answer = unlocked(client, rt, fake, "2026-09-01T10:03:00Z")  # delivered late after all
    assert ran(caplog, answer) == "nothing owed: no write or deletion was left to the unlock"
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0
    said = " ".join(doc("commands.md").split())
    assert "the PR's next event whose payload says it is not locked" in said


# kills: bot/command_events.py:_then_kept the kept commands' release not said in its line
def test_kept_commands_whose_unlock_was_not_delivered_run_at_the_prs_next_command(live, caplog):
    """As above, the PR's next event a comment's command: its payload's `issue.locked`
    false, the kept commands run after it."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)
    d = fake.add_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    payload = comment_payload(d)
    payload["issue"].update(locked=False, active_lock_reason=None)
    r = post(client, "issue_comment", payload)
    drain(rt)
    said = ran(caplog, r.json(), "issue_comment.created")
    assert said.endswith(": 1 note(s); 1 comment(s) of commands kept while locked queued"), said
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert "(why mode)" in sticky(fake).body and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/locked_commands.py:release_unlocked a stale event's `locked: false` releasing them
def test_a_stale_event_that_says_unlocked_leaves_the_kept_commands_kept(live, caplog):
    """A push from before the lock, delivered late (or retried) after a command was kept
    on the locked PR: its payload's `locked: false` is older than the lock the bot met
    (the comment kept was said after it). Released, the commands met the lock again: a
    GET of the comment and a refused 👀 each, for nothing. They wait for the unlock."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    old = fake.add_comment(DEFAULT_REPO, N, "/notes search cache", login="maintainer")
    old.created_at = old.updated_at = time.time() - 7200  # kept before, its event ran late
    payload = comment_payload(old)
    payload["issue"].update(locked=True, active_lock_reason="too heated")
    assert post(client, "issue_comment", payload).status_code == 202
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.clear_requests()
    pushed = deliver_pr(  # (after the older comment, before the newer: the newest counts)
        client, rt, action="synchronize", title=MATCHING_TITLE, updated_at=github_time_ago(3600)
    )
    said = ran(caplog, pushed, "pull_request.synchronize")
    assert said.endswith("; kept commands left kept: this event is older than the lock"), said
    assert fake.calls(path=f"/repos/*/issues/comments/{c.id}*") == []
    kept = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert [k.comment_id for k in kept] == [old.id, c.id]
    assert not any(k.delivery.endswith("#unlocked") for k in kept)
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 2


# kills: bot/command_events.py:handle_comment a comment's event released by no time of its own
def test_a_stale_comment_event_that_says_unlocked_leaves_the_kept_commands_kept(live, caplog):
    """A comment's edit of two hours ago (no new command in it), delivered late, its
    payload saying unlocked: older than the comment kept on the locked PR since, it
    releases nothing."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    d = fake.add_comment(DEFAULT_REPO, N, "/notes help\nthanks", login="octo-dev")
    d.created_at = d.updated_at = time.time() - 7200
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.clear_requests()
    payload = comment_payload(d, action="edited", old_body="/notes help")
    payload["issue"].update(locked=False, active_lock_reason=None)
    r = post(client, "issue_comment", payload)
    drain(rt)
    said = ran(caplog, r.json(), "issue_comment.edited")
    assert said == "no new command; kept commands left kept: this event is older than the lock"
    assert fake.calls(path=f"/repos/*/issues/comments/{c.id}*") == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.delivery.endswith("#unlocked")


def _comment_on_the_closed_pr(client, rt, fake, body: str) -> dict:
    """`body` said on PR N, closed and unlocked (its `unlocked` event lost): the
    payload says `state: closed`, `locked: false`. Its delivery, run."""
    d = fake.add_comment(DEFAULT_REPO, N, body, login="maintainer")
    payload = comment_payload(d)
    payload["issue"].update(state="closed", locked=False, active_lock_reason=None)
    r = post(client, "issue_comment", payload)
    drain(rt)
    return r.json()


# kills: bot/locked_commands.py:release_unlocked a closed PR's kept commands run at a comment
def test_commands_kept_after_their_pr_closed_are_dropped_at_a_comment_saying_unlocked(live, caplog):
    """Kept after the PR's `closed` ran (their comment's delivery ran late), the unlock's
    event lost: a comment on the closed PR, its payload saying unlocked, ran them on the
    PR done with. Dropped, as the unlock of the closed PR drops them, and logged."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    deliver_pr(
        client,
        rt,
        action="closed",
        state="closed",
        title=MATCHING_TITLE,
        updated_at=github_time_ago(60),
    )
    said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)
    answer = _comment_on_the_closed_pr(client, rt, fake, "/notes why")
    said = ran(caplog, answer, "issue_comment.created")
    assert said.endswith("; the PR is closed: the commands kept of 1 comment(s) dropped"), said
    logged = f"{DEFAULT_REPO}#{N}: closed, said unlocked: the commands kept of 1 comment(s) dropped"
    assert logged in [r.getMessage() for r in caplog.records]
    assert replies(fake) == [] and rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    again = _comment_on_the_closed_pr(client, rt, fake, "/notes why")  # nothing kept now
    assert "dropped" not in ran(caplog, again, "issue_comment.created")


# kills: bot/locked_commands.py:release_unlocked the PR's event time compared as stored
def test_a_closed_prs_event_time_stored_in_an_older_format_is_compared_as_a_time(live, caplog):
    """As above, the PR's `closed` time stored by an older release as it was given, with
    an offset (`12:05:00+02:00` for `10:05:00Z`): compared as text, the comment said
    after it seemed said before it (reopened since), and its commands ran on the PR done
    with. The stored time is read as GitHub writes times first, as `seen_event` does."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    closed_at = github_time_ago(60)
    deliver_pr(
        client, rt, action="closed", state="closed", title=MATCHING_TITLE, updated_at=closed_at
    )
    said_while_locked(client, rt, fake, "/notes help")
    when = datetime.fromisoformat(closed_at).astimezone(timezone(timedelta(hours=2)))
    rt.ctx.prs.update(DEFAULT_REPO, N, event_at=when.isoformat())  # (an older release's)
    fake.unlock(DEFAULT_REPO, N)
    answer = _comment_on_the_closed_pr(client, rt, fake, "/notes why")
    said = ran(caplog, answer, "issue_comment.created")
    assert said.endswith("; the PR is closed: the commands kept of 1 comment(s) dropped"), said
    assert replies(fake) == [] and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/locked_commands.py:release_unlocked a comment's stale `closed` taken for the PR's now
def test_a_comment_whose_payload_says_closed_after_a_reopening_releases_the_kept_commands(
    live, caplog
):
    """The comment's payload says closed, but a newer event of the PR ran first (it was
    reopened, still locked): the commands are the reopened PR's, queued."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    said_while_locked(client, rt, fake, "/notes help")
    reopened = pr_payload("reopened", title=MATCHING_TITLE, updated_at=github_time_ago(-60))
    reopened["pull_request"]["locked"] = True
    assert post(client, "pull_request", reopened).status_code == 202
    drain(rt)
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    answer = _comment_on_the_closed_pr(client, rt, fake, "/notes why")
    said = ran(caplog, answer, "issue_comment.created")
    assert said.endswith("; 1 comment(s) of commands kept while locked queued"), said
    assert len(replies(fake)) == 1 and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/locked_commands.py:release_unlocked an edited review's `closed` (no time of its
#        own) taken for the PR's now after a reopening
@pytest.mark.parametrize("reopened", [True, False])
def test_an_edited_reviews_closed_is_dated_by_its_pull_requests_time(live, caplog, reopened):
    """An edited review's payload does not say when it was edited, but its `pull_request`
    says when the PR last changed (`updated_at`): the time of its word `closed`. Older
    than a reopening run since (its delivery late), the commands kept are the reopened
    PR's, queued (they were dropped, the edit taken for the newest word); not reopened
    since, they are dropped as at any event saying the PR is closed and unlocked."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    closed_at = github_time_ago(60)
    deliver_pr(
        client, rt, action="closed", state="closed", title=MATCHING_TITLE, updated_at=closed_at
    )
    said_while_locked(client, rt, fake, "/notes help")
    if reopened:
        again = pr_payload("reopened", title=MATCHING_TITLE, updated_at=github_time_ago(-60))
        again["pull_request"]["locked"] = True
        assert post(client, "pull_request", again).status_code == 202
        drain(rt)
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    head = fake.pull(DEFAULT_REPO, N).head_sha
    payload = review_payload("/notes why", login=AUTHOR, head_sha=head)
    payload.update(action="edited", changes={"body": {"from": "LGTM"}})
    payload["pull_request"].update(state="closed", locked=False, updated_at=github_time_ago(0))
    r = post(client, "pull_request_review", payload)
    assert r.status_code == 202, r.text
    drain(rt)
    said = ran(caplog, r.json(), "pull_request_review.edited")
    if reopened:
        assert said.endswith("; 1 comment(s) of commands kept while locked queued"), said
        assert len(replies(fake)) == 1  # the help
    else:
        assert said.endswith("; the PR is closed: the commands kept of 1 comment(s) dropped")
        assert replies(fake) == []  # (the help not answered)
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    said = " ".join(doc("commands.md").split())
    assert "an edited review, whose payload does not say when it was edited, is dated" in said


def test_an_event_that_says_the_pr_locked_leaves_the_kept_commands_kept(live):
    """A comment's event whose payload says the PR is still locked (a collaborator's
    command said there) releases nothing: the kept commands wait for the unlock."""
    client, rt, fake = live
    fake.lock(DEFAULT_REPO, N)
    said_while_locked(client, rt, fake, "/notes help")
    said_while_locked(client, rt, fake, "/notes why")
    kept = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert len(kept) == 2 and replies(fake) == []
    assert not any(k.delivery.endswith("#unlocked") for k in kept)  # not run and kept again


# kills: bot/locked_commands.py:release_unlocked a PR event saying `locked` releasing them
def test_a_pr_event_that_says_the_pr_locked_leaves_the_kept_commands_kept(live):
    """A push on the locked PR (its payload says `locked: true`) releases nothing: no GET
    of the kept comment, no 👀 refused; they wait for the unlock."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.clear_requests()
    pushed = pr_payload("synchronize", title=MATCHING_TITLE, updated_at=github_time_ago(-60))
    pushed["pull_request"]["locked"] = True
    assert post(client, "pull_request", pushed).status_code == 202
    drain(rt)
    assert fake.calls(path=f"/repos/*/issues/comments/{c.id}*") == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.delivery.endswith("#unlocked")


# kills: bot/locked_commands.py:release_unlocked an event not dated (an edited review) taken
#        for older than the lock
@pytest.mark.parametrize("where", ["review", "edited review", "diff"])
def test_kept_commands_whose_unlock_was_not_delivered_run_at_a_review_or_diff_comment(live, where):
    """A review's or a diff comment's payload says `pull_request.locked` false: the kept
    commands run after its own. An edited review's payload does not say when it was
    edited: not older than the lock, as far as the bot can tell."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)
    if where == "review":
        reviewed(client, rt, fake, "/notes why")
    elif where == "edited review":
        head = fake.pull(DEFAULT_REPO, N).head_sha
        payload = review_payload("/notes why", login=AUTHOR, head_sha=head)
        payload.update(action="edited", changes={"body": {"from": "LGTM"}})
        assert post(client, "pull_request_review", payload).status_code == 202
        drain(rt)
    else:
        head = fake.pull(DEFAULT_REPO, N).head_sha
        d = fake.add_review_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
        post(client, "pull_request_review_comment", diff_comment_payload(d, head_sha=head))
        drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []


def test_a_closed_prs_kept_commands_are_dropped_not_run_at_a_later_unlock(live, caplog):
    """Closed (or merged) while its commands were kept: they are forgotten at `closed`,
    not run on the PR done with when someone unlocks it later."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    said_while_locked(client, rt, fake, "/notes help")
    closed = deliver_pr(
        client, rt, action="closed", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:00Z"
    )
    said = "skipped: closed; the commands kept of 1 comment(s) dropped"
    assert ran(caplog, closed, "pull_request.closed") == said
    logged = f"{DEFAULT_REPO}#{N}: closed: the commands kept of 1 comment(s) dropped"
    assert logged in [r.getMessage() for r in caplog.records]
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    again = deliver_pr(  # (redelivered: nothing kept now)
        client, rt, action="closed", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:30Z"
    )
    assert ran(caplog, again, "pull_request.closed") == "skipped: closed"
    unlocked(client, rt, fake, "2026-09-01T10:03:00Z")
    assert replies(fake) == []
    said = " ".join(doc("commands.md").split())
    assert "A PR closed or merged meanwhile forgets them" in said


def unlocked_closed(client, rt, updated_at: str):
    """The `unlocked` event of the closed PR N as of `updated_at`, delivered (deliver_pr)."""
    return deliver_pr(
        client, rt, action="unlocked", state="closed", title=MATCHING_TITLE, updated_at=updated_at
    )


# kills: bot/pr_events.py:handle_unlocked the commands kept on a closed PR run at its unlock
def test_commands_kept_after_their_pr_closed_are_dropped_at_its_unlock(live, caplog):
    """Said while locked, just before the PR closed, but run after its `closed` (a retry,
    a late delivery): kept then, and `closed` had nothing to forget. The unlock of the
    closed PR drops them, as `closed` would have, not run on the PR done with."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    closed = deliver_pr(
        client,
        rt,
        action="closed",
        state="closed",
        title=MATCHING_TITLE,
        updated_at="2026-09-01T10:02:00Z",
    )
    assert ran(caplog, closed, "pull_request.closed") == "skipped: closed"
    said_while_locked(client, rt, fake, "/notes help")
    assert len(rt.ctx.locked.kept(DEFAULT_REPO, N)) == 1
    fake.unlock(DEFAULT_REPO, N)
    answer = unlocked_closed(client, rt, "2026-09-01T10:03:00Z")
    assert "the PR is closed: the commands kept of 1 comment(s) dropped" in ran(caplog, answer)
    assert replies(fake) == [] and rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    logged = f"{DEFAULT_REPO}#{N}: unlocked, closed: the commands kept of 1 comment(s) dropped"
    assert logged in [r.getMessage() for r in caplog.records]
    # (redelivered: nothing kept now, nothing said of them)
    again = unlocked_closed(client, rt, "2026-09-01T10:03:30Z")
    assert "dropped" not in ran(caplog, again)


# kills: bot/pr_events.py:_release_or_drop a stale unlock's `closed` taken for the PR's now
def test_a_stale_unlock_of_a_closed_pr_reopened_since_releases_its_kept_commands(live, caplog):
    """The unlock's payload says closed, but a newer event of the PR (it was reopened)
    ran first: the commands are the reopened PR's, queued as at any unlock."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    said_while_locked(client, rt, fake, "/notes help")
    deliver_pr(
        client, rt, action="reopened", title=MATCHING_TITLE, updated_at="2026-09-01T10:05:00Z"
    )
    fake.unlock(DEFAULT_REPO, N)
    answer = unlocked_closed(client, rt, "2026-09-01T10:03:00Z")
    assert ran(caplog, answer).endswith("1 comment(s) of commands kept while locked queued")
    assert len(replies(fake)) == 1 and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/pr_events.py:handle_pull_request a stale `closed` (payload unlocked) releasing them
def test_a_stale_closed_leaves_the_reopened_prs_kept_commands(live, caplog):
    """A `closed` run after a newer event of the PR (reopened since) drops nothing, and
    releases nothing either."""
    client, rt, fake = live
    caplog.set_level("INFO")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:05:00Z")
    fake.lock(DEFAULT_REPO, N)
    said_while_locked(client, rt, fake, "/notes help")
    closed = deliver_pr(
        client, rt, action="closed", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:00Z"
    )
    assert ran(caplog, closed, "pull_request.closed").startswith("skipped: closed (stale: ")
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.delivery.endswith("#unlocked")


def test_kept_commands_follow_their_repository_renamed_while_locked(
    tmp_path, fake_github, app_key, monkeypatch, caplog
):
    """Kept by the repository's name, a comment kept before a rename was never found by
    the unlock, whose event names the new one: stranded. They follow the repository (its
    id, `repository.id`) as the PR's state does (bot.dispatch.follow_repository)."""
    clean_env(monkeypatch)
    fake, elsewhere = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key, repos=f"{DEFAULT_REPO},{elsewhere}")
    caplog.set_level("INFO")
    with serving(settings) as (client, rt):
        tune(rt)
        fake.lock(DEFAULT_REPO, N)
        c = said_while_locked(client, rt, fake, "/notes help")
        fake.transfer(DEFAULT_REPO, elsewhere)
        fake.unlock(elsewhere, N)
        answer = deliver_pr(
            client, rt, action="unlocked", repo=elsewhere, title=MATCHING_TITLE, number=N
        )
        assert ran(caplog, answer) == "1 comment(s) of commands kept while locked queued"
        assert reactions(fake, c) == {"eyes", "+1"}
        assert len([x for x in ours(fake, N, elsewhere) if x.body.startswith(REPLY_MARKER)]) == 1
        assert rt.ctx.locked.kept(DEFAULT_REPO, N) == rt.ctx.locked.kept(elsewhere, N) == []
        assert rt.queue.counts()["failed"] == 0
    said = " ".join(doc("commands.md").split())
    assert "renamed or transferred while locked takes them along" in said


def test_a_kept_command_an_edit_took_out_and_a_second_put_back_is_answered_once(live):
    """Kept `/notes help`; once unlocked, before the unlock's event ran, edited to take
    the help out and again to put it back. The second edit's event (its `from` is the
    first edit's text) runs the help it added; the unlock's run must not run it again:
    two help replies, each a new comment notifying everyone on the PR."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)
    kept, first = c.body, "/notes why"
    c.body = "/notes why\n/notes help"  # both edits in the web UI before the unlock's event ran
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    edited = comment_payload(c, action="edited", old_body=kept)
    edited["comment"]["body"] = first
    post(client, "issue_comment", edited)
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=first))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 1  # the help's, once


# kills: bot/locked_commands.py:LockedCommands.run_at_unlock an edit said after the unlock
#        read the comment kept from running a kept command it puts back
def test_a_kept_command_taken_out_and_put_back_after_the_unlock_read_it_is_said_again(live):
    """Kept `/notes help`, edited before the unlock's event ran (a `why` added): the help
    is the unlock's run's. Edits after that run read the comment (the help taken out,
    then put back) say it again, as on any comment: the help is answered a second time."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)
    kept, c.body = c.body, "/notes help\n/notes why"
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=kept))
    drain(rt)
    assert len(replies(fake)) == 1
    c.updated_at = time.time() + 60  # said after the unlock's run read it
    before, c.body = c.body, "/notes why"
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=before))
    before, c.body = c.body, "/notes why\n/notes help"
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=before))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 2


def _edited_unlocked(c, body: str, old_body: str, at: float) -> dict:
    """The `edited` payload of comment `c` made `body` from `old_body` at `at` (epoch), on
    the PR unlocked (its unlock's event not run yet): as GitHub sends it, however late."""
    payload = comment_payload(c, action="edited", old_body=old_body)
    payload["comment"].update(body=body, updated_at=iso_time(at))
    payload["issue"].update(locked=False, active_lock_reason=None)
    return payload


# kills: bot/command_answers.py:_not_run_at_unlock an edit run before the release running
#        a kept command the release runs too
# kills: bot/locked_commands.py:LockedCommands.kept_before a topic keyed as typed, not by the
#        topic it names, as the edit's commands are (the topic answered twice)
# kills: bot/locked_commands.py:LockedCommands.kept_before keying a kept `topic` by its
#        spelling where the edit's commands are keyed by the topic it names
@pytest.mark.parametrize(
    "command",
    ["/notes help", "/notes topic prefix caching please", "/notes topic 前缀缓存与KV缓存管理"],
)
def test_a_kept_command_put_back_by_an_edit_whose_event_came_first_is_answered_once(live, command):
    """Kept `/notes help`; once unlocked (its event lost), edited to take the help out
    (`/notes why`) and again to put it back. The second edit's event came first: its
    `from` (the first edit's text) lacks the help, so it ran it, then (its payload says
    unlocked) released the kept help, which the comment still has: two help replies,
    each a comment notifying everyone on the PR. The kept commands are the release's:
    an edit's event run before it runs the rest. A topic named by more than its name, or
    by its Chinese name, is one of them too, keyed by the topic it names as the edit's
    commands are (`parse_commands(topics=)`)."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, command)
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    kept, first = c.body, "/notes why"
    c.body = f"/notes why\n{command}"  # both edits in the web UI
    second = _edited_unlocked(c, c.body, first, c.created_at + 20)
    assert post(client, "issue_comment", second).status_code == 202
    drain(rt)
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    assert post(client, "issue_comment", _edited_unlocked(c, first, kept, c.created_at + 10))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    assert len(replies(fake)) == 1  # the kept command's, once
    assert reactions(fake, c) == {"eyes", "+1"}


# kills: bot/locked_commands.py:release the unlock's run not said to the events of edits
#        said before it read the comment, when the comment shows the text kept again
@pytest.mark.parametrize("second_first", [False, True], ids=["in order", "second first"])
def test_a_kept_command_taken_out_and_put_back_as_it_was_is_answered_once(live, second_first):
    """Kept `/notes help`; once unlocked (its event lost), edited to take the help out and
    again to put the text back as it was, before the bot read it. The first edit's event
    released the kept comment, which showed the text kept: the unlock's run answered the
    help, and the second edit's event, its `from` lacking the help, answered it again."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="maintainer")
    c.created_at = c.updated_at = time.time() - 120  # both edits made before the unlock read it
    payload = comment_payload(c)
    payload["issue"].update(locked=True, active_lock_reason="too heated")
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert [k.comment_id for k in rt.ctx.locked.kept(DEFAULT_REPO, N)] == [c.id]
    rt.ctx.locked.db.execute(  # kept then (its delivery run at once), 110 s ago
        "UPDATE locked_commands SET kept_at = ?", (utcnow(-110),)
    )
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    kept, first = c.body, "/notes why"  # the second edit puts `kept` back, in the web UI
    edits = [
        _edited_unlocked(c, first, kept, c.created_at + 20),
        _edited_unlocked(c, kept, first, c.created_at + 30),
    ]
    for payload in reversed(edits) if second_first else edits:
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)
    assert rt.queue.counts()["failed"] == 0 and rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    assert len(replies(fake)) == 1  # the help's, once


# kills: bot/command_answers.py:_not_run_at_unlock a kept command an edit made while locked
#        puts back taken for the release's, whose kept text an older edit then replaces
def test_a_kept_command_put_back_while_locked_by_an_edit_whose_event_came_first_is_answered(
    live,
):
    """Kept `/notes help`, then, the conversation still locked, edited to take the help
    out (`/notes why`) and again to put it back; the second edit's event came first. It
    took the help for the release's (the text kept was said before it) and ran nothing,
    so kept nothing; the first edit's event, run next, kept its text, the help taken
    out: the unlock ran the `why` alone, and the help, on the comment, was never
    answered."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    kept, first = c.body, "/notes why"
    c.body = "/notes why\n/notes help"  # both edits in the web UI, still locked
    for body, old, at in [(c.body, first, 20), (first, kept, 10)]:
        payload = _edited_unlocked(c, body, old, c.created_at + at)
        payload["issue"].update(locked=True, active_lock_reason="too heated")
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)
    assert replies(fake) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    assert len(replies(fake)) == 1  # the help's, once


# The commands a kept comment still has, and those the release answers, are read with
# config/commands.toml's caps, as the comment's run reads them: keys read with the
# parser's defaults differ from its own past them.


# kills: bot/locked_commands.py:_still_keys the kept commands read with the default caps
def test_a_kept_search_edited_past_the_argument_cap_is_answered_at_the_unlock(live):
    """`max_arg_chars = 10`: kept `/notes search prefix cache`, a search for `prefix`;
    once unlocked, before the unlock's event ran, edited past the cap (`prefix eviction`,
    still `prefix`) and a `why` added. Read with the default cap (100) the kept search
    was gone, the comment dropped as edited since, and the edit's own event (the search
    unchanged, as it reads it) ran the `why` alone: the search was never answered."""
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, max_arg_chars=10))
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes search prefix cache")
    fake.unlock(DEFAULT_REPO, N)
    old, c.body = c.body, "/notes search prefix eviction\n/notes why"  # (its event comes later)
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=old))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    (reply,) = replies(fake)  # the search's, once
    assert "prefix" in reply.body and "eviction" not in reply.body


# kills: bot/locked_commands.py:_with_taken_back the kept commands read with the default caps
def test_a_kept_comment_of_more_commands_than_the_default_cap_runs_each_at_the_unlock(live):
    """`max_commands = 7`: kept, six searches; once unlocked, before the unlock's event
    ran, a `why` put above them. Read with the default cap (5) the comment now had the
    first four, so the fifth was taken for one the edit took out (set in the payload's
    `from`): never answered, by the unlock's run or the edit's (which ran its `why`)."""
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, max_commands=7, reply_burst=10))
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    words = ["cache", "cuda", "eagle", "lora", "moe", "rocm"]
    c = said_while_locked(client, rt, fake, "\n".join(f"/notes search {w}" for w in words))
    fake.unlock(DEFAULT_REPO, N)
    old, c.body = c.body, f"/notes why\n{c.body}"  # its event after the unlock's
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=old))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    assert len(replies(fake)) == len(words)  # each search's, once


# kills: bot/locked_commands.py:LockedCommands.kept_before the kept commands read with the
#        default caps
def test_a_kept_long_command_put_back_by_an_edit_whose_event_came_first_is_answered_once(live):
    """As `/notes help` put back above, a mistyped `search` (`serch`) of 150 characters
    with `max_arg_chars = 200`: read with the default cap (100), the kept command's key
    was not the edit's, whose event, run first, answered it (the reply to what could not
    be done), then the release answered it again: two replies, each notifying the PR."""
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, max_arg_chars=200))
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    words = (
        "serch prefix cache eviction for eagle speculative decoding with chunked prefill"
        " across pipeline parallel ranks when the scheduler preempts long requests"
    )
    assert 100 < len(words) <= 200
    c = said_while_locked(client, rt, fake, f"/notes {words}")
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    kept, first = c.body, "/notes why"
    c.body = f"/notes why\n{kept}"  # both edits in the web UI
    assert post(client, "issue_comment", _edited_unlocked(c, c.body, first, c.created_at + 20))
    drain(rt)
    assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
    assert post(client, "issue_comment", _edited_unlocked(c, first, kept, c.created_at + 10))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    (reply,) = replies(fake)  # what could not be done, once
    assert "serch" in reply.body


def _said_before_the_lock(client, rt, fake, body: str, ago: float):
    """`body` said `ago` seconds ago on the open PR (its payload: unlocked), its delivery
    run after the lock came: GitHub refuses its 👀, and it is kept. The comment."""
    c = fake.add_comment(DEFAULT_REPO, N, body, login="octo-dev")
    c.created_at = c.updated_at = time.time() - ago
    payload = comment_payload(c)
    payload["issue"].update(locked=False, active_lock_reason=None)
    assert post(client, "issue_comment", payload).status_code == 202
    drain(rt)
    assert [k.comment_id for k in rt.ctx.locked.kept(DEFAULT_REPO, N)] == [c.id]
    return c


# kills: bot/locked_commands.py:release_unlocked an event older than the keep (when the bot
#        met the lock) taken for newer than the lock
def test_an_event_between_a_comment_and_the_lock_it_met_leaves_it_kept(live, caplog):
    """`/notes help` said just before the lock, its delivery run after it (kept); a push
    made between the two, delivered late, says unlocked: its word is older than the lock
    the bot met when it kept the comment, yet newer than the comment, so it released it:
    a GET of the comment and a 👀 GitHub refused, then kept again. The bot met the lock
    after the push: the commands wait for the unlock, with no call."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = _said_before_the_lock(client, rt, fake, "/notes help", ago=120)
    fake.clear_requests()
    pushed = deliver_pr(
        client, rt, action="synchronize", title=MATCHING_TITLE, updated_at=github_time_ago(60)
    )
    said = ran(caplog, pushed, "pull_request.synchronize")
    assert said.endswith("; kept commands left kept: this event is older than the lock"), said
    assert fake.calls(path=f"/repos/*/issues/comments/{c.id}*") == []
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert not kept.delivery.endswith("#unlocked")
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1


# kills: bot/locked_commands.py:release_unlocked a comment said before `closed` releasing
#        the commands kept after it
def test_a_comment_said_before_closed_leaves_the_commands_kept_after_it(live, caplog):
    """`/notes help` said just before the lock, then `/notes search cache`, then the PR
    closed; the help's delivery ran after `closed` (kept: `closed` had none to drop), the
    unlock's event lost, the search's delivery last. Its payload says open, as when it
    was said, and it ran the help on the PR done with. Its word is older than the lock
    the bot met: the help stays kept, and the unlock of the closed PR drops it."""
    client, rt, fake = live
    caplog.set_level("INFO")
    fake.lock(DEFAULT_REPO, N)
    later = fake.add_comment(DEFAULT_REPO, N, "/notes search cache", login="octo-dev")
    later.created_at = later.updated_at = time.time() - 120
    deliver_pr(
        client,
        rt,
        action="closed",
        state="closed",
        title=MATCHING_TITLE,
        updated_at=github_time_ago(60),
    )
    c = _said_before_the_lock(client, rt, fake, "/notes help", ago=180)
    fake.unlock(DEFAULT_REPO, N)  # (its event lost)
    payload = comment_payload(later)
    payload["issue"].update(locked=False, active_lock_reason=None)
    r = post(client, "issue_comment", payload)
    drain(rt)
    said = ran(caplog, r.json(), "issue_comment.created")
    assert said.endswith("; kept commands left kept: this event is older than the lock"), said
    assert len(replies(fake)) == 1 and reactions(fake, c) == set()  # the search's alone
    answer = unlocked_closed(client, rt, github_time_ago(0))
    assert "the PR is closed: the commands kept of 1 comment(s) dropped" in ran(caplog, answer)
    assert len(replies(fake)) == 1 and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


# kills: bot/locked_commands.py:LockedCommands.keep a comment's `created` run after its edit
#        kept refused, its commands never answered
def test_a_comment_said_and_edited_while_locked_its_events_out_of_order_runs_both(live):
    """A maintainer's `/notes help` on the locked PR, edited at once to add `/notes why`;
    the edit's delivery ran first (kept, made from the help's text), the `created` after
    it (refused as older than the text kept): the unlock answered the `why` alone, the
    help never. Both are answered at the unlock, once each."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes why", login="maintainer")
    c.created_at -= 30  # said half a minute before its edit
    created = comment_payload(c)
    created["comment"].update(body="/notes help", updated_at=iso_time(c.created_at))
    edited = comment_payload(c, action="edited", old_body="/notes help")
    for payload in (edited, created):
        payload["issue"].update(locked=True, active_lock_reason="too heated")
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)
    (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
    assert kept.old_body is None and replies(fake) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert len(replies(fake)) == 1 and "(why mode)" in sticky(fake).body
    assert reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["failed"] == 0


# kills: bot/locked_commands.py:_with_taken_back,_one_key a kept `topic` the edit kept,
#        named another way, taken for one it took out (keyed by its spelling)
def test_a_kept_topic_an_edit_names_another_way_is_answered_at_the_unlock(live):
    """Kept `/notes topic 前缀缓存与KV缓存管理`, edited once unlocked to name the same topic
    by its id and add `/notes why`: the edit kept the topic (its commands are keyed by
    the topic they name), so the unlock runs it. The unlock's payload must not put it in
    its `from` as one the edit took out: read against it, the run found nothing to
    answer, and the topic asked for was never answered."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes topic 前缀缓存与KV缓存管理")
    fake.unlock(DEFAULT_REPO, N)
    old, c.body = c.body, "/notes topic prefix-caching\n/notes why"  # its event after the unlock's
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    post(client, "issue_comment", comment_payload(c, action="edited", old_body=old))
    drain(rt)
    assert "(why mode)" in sticky(fake).body and rt.queue.counts()["failed"] == 0
    (reply,) = replies(fake)  # the topic's, once
    assert "Prefix caching" in reply.body


def _help_kept_then_edited_twice(client, rt, fake):
    """`/notes help` said just before the lock on a PR with its notes comment, then
    edited twice in the web UI before the lock (the help taken out for a search, put
    back), no edit's event sent yet: the comment (showing the second edit), the text
    the bot kept, and the first edit's text."""
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = _said_before_the_lock(client, rt, fake, "/notes help", ago=120)
    kept, first = c.body, "/notes search cache"
    c.body = f"{first}\n/notes help"
    return c, kept, first


# kills: bot/locked_commands.py:LockedCommands.keep an older edit's text kept over the kept
#        one an edit said after it left its commands to (the commands it put back lost)
def test_a_comment_and_its_two_edits_said_before_the_lock_answer_what_it_shows(live):
    """`/notes help` said just before the lock, edited (the help taken out, a search
    said) and again (the help put back), all before the lock; their deliveries ran after
    it, the comment's first (kept), the second edit's next: the help it put back was the
    kept text's, left to the release, so it ran nothing; the first edit's, last, met the
    lock with its search and kept its text over the kept one, the help taken out. The
    unlock answered the search alone: the help, on the comment, was never answered."""
    client, rt, fake = live
    c, kept, first = _help_kept_then_edited_twice(client, rt, fake)
    for body, old, at in [(c.body, first, 20), (first, kept, 10)]:
        assert post(client, "issue_comment", _edited_unlocked(c, body, old, c.created_at + at))
        drain(rt)
    assert replies(fake) == []
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert rt.queue.counts()["failed"] == 0 and reactions(fake, c) == {"eyes", "+1"}
    assert len(replies(fake)) == 2  # the search's and the help's, once each


# kills: bot/command_answers.py:_not_run_at_unlock a kept command an edit said while locked
#        answered after the real unlock, left to the release too
@pytest.mark.parametrize("second_first", [True, False], ids=["second first", "in order"])
def test_a_kept_command_put_back_while_locked_whose_edit_ran_after_the_unlock_is_answered_once(
    live, second_first
):
    """Kept `/notes help`, then, still locked, edited to take the help out (`/notes why`)
    and again to put it back; both edits' events ran after the real unlock, before its
    event (the second first, or in order). The second ran the help it put back (the
    conversation unlocked, its reply landed), yet the help stayed kept: the release, the
    comment still having it, answered it again. Two help replies, each a comment
    notifying everyone on the PR."""
    client, rt, fake = live
    c, kept, first = _help_kept_then_edited_twice_while_locked(client, rt, fake)
    edits = [(c.body, first, 20), (first, kept, 10)]
    for body, old, at in edits if second_first else reversed(edits):
        payload = _edited_unlocked(c, body, old, c.created_at + at)
        payload["issue"].update(locked=True, active_lock_reason="too heated")
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)
    assert len(replies(fake)) == 1
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert rt.queue.counts()["failed"] == 0 and "(why mode)" in sticky(fake).body
    assert len(replies(fake)) == 1  # the help's, once


def _help_kept_then_edited_twice_while_locked(client, rt, fake):
    """`/notes` said, the conversation locked, `/notes help` said and kept; still locked,
    two edits in the web UI (the help taken out for `/notes why`, then put back under
    it); then the real unlock, none of the edits' events nor its own run yet. The
    comment, the text kept, and the first edit's text."""
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    kept, first = c.body, "/notes why"
    c.body = "/notes why\n/notes help"  # both edits in the web UI, still locked
    fake.unlock(DEFAULT_REPO, N)  # their events run after it, before its own
    return c, kept, first


# kills: bot/locked_commands.py:LockedCommands.keep a kept comment's newer text, kept at a
#        second lock, forgetting the kept commands an edit's run answered after the first
def test_a_kept_command_an_edit_answered_after_the_unlock_is_not_answered_again_after_a_relock(
    live,
):
    """As above (the help kept, taken out and put back while locked, both edits run after
    the real unlock, before its event: the help answered once). The conversation is
    locked again before that event, and a third edit adds a search, which meets the lock:
    its text is kept over the first, and the help its second edit answered was forgotten
    as answered. The release, the comment still having the help, answered it again:
    a second help reply notifying everyone on the PR. The search is answered once."""
    client, rt, fake = live
    c, kept, first = _help_kept_then_edited_twice_while_locked(client, rt, fake)
    searched = f"{c.body}\n/notes search cache"
    for body, old, at in [(c.body, first, 20), (first, kept, 10), (searched, c.body, 40)]:
        if body == searched:
            fake.lock(DEFAULT_REPO, N)  # locked again, then edited: this one meets the lock
            c.body = searched
        payload = _edited_unlocked(c, body, old, c.created_at + at)
        payload["issue"].update(locked=True, active_lock_reason="too heated")
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)
    assert len(replies(fake)) == 1 and rt.ctx.locked.kept(DEFAULT_REPO, N)
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert rt.queue.counts()["failed"] == 0
    said = [r.body for r in replies(fake)]
    assert len(said) == 2 and "/notes search cache" in said[1]  # the help's, then the search's


# kills: bot/command_answers.py:run_commands a retry of a run that posted a reply kept (as
#        the text its kept edit was made from), whose unlock posts it again under the edit's id
def test_a_created_whose_first_run_replied_then_failed_posts_no_reply_again_at_the_unlock(
    live,
):
    """`/notes help` and a search: the help answered, GitHub failed the search's reply
    (a 422), the delivery failed. The lock came, the comment was edited (a `why` added,
    kept), and the comment's delivery retried met the lock: not kept (its help answered),
    and the unlock runs the edit's `why` alone, under the edit's id: no second help."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    said = "/notes help\n/notes search cache"
    c = fake.add_comment(DEFAULT_REPO, N, said, login="maintainer")
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault(), Fault.error(422))
    created = post(client, "issue_comment", comment_payload(c)).json()["delivery"]
    drain(rt)
    assert rt.queue.get(created).state == "failed" and len(replies(fake)) == 1
    fake.lock(DEFAULT_REPO, N)
    c.body = f"{said}\n/notes why"
    edited = _edited_unlocked(c, c.body, said, c.created_at + 10)
    edited["issue"].update(locked=True, active_lock_reason="too heated")
    assert post(client, "issue_comment", edited).status_code == 202
    drain(rt)
    assert [k.comment_id for k in rt.ctx.locked.kept(DEFAULT_REPO, N)] == [c.id]
    assert rt.queue.retry([created]) == [created]
    drain(rt)
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert "(why mode)" in sticky(fake).body
    assert len(replies(fake)) == 1  # the help's, once; the search's left to be said again


# kills: bot/locked_commands.py:LockedCommands.run_at_unlock a topic key stored before
#        topics were keyed by the topic they name compared as stored (by its spelling)
def test_a_topic_an_unlock_ran_stored_by_its_spelling_is_not_answered_again(live):
    """An unlock's run of a kept `topic prefix caching please`, recorded by a release
    that keyed a topic by its spelling (`prefix`, `caching`, `please`); an edit said
    before that run read the comment, its event run after the upgrade, puts the topic
    back. Its commands are keyed by the topic named (`prefix-caching`): the stored key
    matched none of them, and the topic was answered a second time."""
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    before = "/notes why"
    c = say(client, rt, fake, before, login="octo-dev")
    c.body = f"{before}\n/notes topic prefix caching please"
    rt.ctx.locked.db.execute(  # as the older release stored it
        "INSERT INTO released_still (repo, number, comment_id, keys, read_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (
            DEFAULT_REPO.lower(),
            N,
            c.id,
            '[["topic", ["prefix", "caching", "please"]]]',
            github_time_ago(-60),
        ),
    )
    n = len(replies(fake))
    assert post(client, "issue_comment", _edited_unlocked(c, c.body, before, time.time()))
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and len(replies(fake)) == n  # none again


def _taken_out_and_put_back_while_locked(client, rt, c) -> None:
    """Comment `c` edited to `/notes why` 10 s after it was said and back 20 s after, each
    edit's payload saying the PR locked (sent before the unlock's event), each run."""
    kept = c.body
    for body, old_body, at in (("/notes why", kept, 10), (kept, "/notes why", 20)):
        c.body = body
        payload = comment_payload(c, action="edited", old_body=old_body)
        payload["comment"].update(updated_at=iso_time(c.created_at + at))
        payload["issue"].update(locked=True, active_lock_reason="too heated")  # said locked
        assert post(client, "issue_comment", payload).status_code == 202
        drain(rt)


# kills: bot/locked_commands.py:release a kept comment whose kept commands an edit's run
#        answered logged as edited since, when it shows the text kept
def test_a_kept_comment_its_edits_answered_is_said_answered_at_the_unlock(live, caplog):
    """Kept `/notes help`; edited while locked to `/notes why`, then back, both edits run
    once unlocked, before the unlock's event: the second answered the help (its `from`
    lacks it), so the release drops the comment, which shows the text kept. Its line says
    what is true: its kept commands were answered since, not that it was edited since."""
    client, rt, fake = live
    caplog.set_level("INFO")
    say(client, rt, fake, "/notes")
    fake.lock(DEFAULT_REPO, N)
    c = said_while_locked(client, rt, fake, "/notes help")
    fake.unlock(DEFAULT_REPO, N)  # (its event after the edits')
    _taken_out_and_put_back_while_locked(client, rt, c)
    assert len(replies(fake)) == 1  # the help's, by the second edit's run
    answer = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    said = f"kept commands dropped: comment {c.id} (its kept commands answered since)"
    assert ran(caplog, answer) == said
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0


def _locked_with_its_one_reply_spent(client, rt, fake) -> list[float]:
    """The PR's notes comment and its one reply (a budget of one) said, then the PR
    locked; the commands' clock, to move on to the budget's refill."""
    now = [50.0]
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: now[0])
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes help")  # the PR's one reply
    fake.lock(DEFAULT_REPO, N)
    return now


# kills: bot/command_answers.py:run_commands a kept command an edit's run only 😕'd, over
#        the reply budget, marked answered (the release skipping it for good)
# kills: bot/command_answers.py:_run_judged a kept typo whose one reply the budget refused
#        taken for answered
@pytest.mark.parametrize(
    ("command", "answer"),
    [("/notes help", "/notes topic"), ("/notes hlep", "There is no `hlep` command.")],
    ids=["a reply", "the one reply to what could not be done"],
)
def test_a_kept_command_an_edits_run_left_over_the_reply_budget_is_answered_at_the_unlock(
    live, caplog, command, answer
):
    """Kept `/notes help` (or a typo, `/notes hlep`); edited while locked to `/notes why`,
    then back, both edits run once unlocked, before the unlock's event (as above), but
    the PR's reply budget is spent: the second edit's run put the command back and got
    only 😕, no reply. It was marked answered all the same, so the release dropped it
    ("its kept commands answered since") and the maintainer who asked while locked never
    got the answer. Left owed, it is answered at the unlock, once the budget refilled."""
    client, rt, fake = live
    caplog.set_level("INFO")
    now = _locked_with_its_one_reply_spent(client, rt, fake)
    c = said_while_locked(client, rt, fake, command)
    fake.unlock(DEFAULT_REPO, N)  # (its event after the edits')
    _taken_out_and_put_back_while_locked(client, rt, c)
    assert len(replies(fake)) == 1 and "confused" in reactions(fake, c)  # over the budget
    now[0] += CommandConfig().reply_refill_s  # refilled by the unlock
    said = unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
    assert ran(caplog, said) == "1 comment(s) of commands kept while locked queued"
    assert rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 2 and answer in replies(fake)[1].body  # answered, once


def test_a_kept_command_the_releases_run_left_over_the_reply_budget_stays_owed(live, caplog):
    """Kept `/notes help` on the locked PR, whose one reply was spent before the lock; the
    unlock comes before the budget refilled. The release's run got 😕 and no reply, and the
    command was forgotten with its kept row: the maintainer who asked while locked never got
    the answer. It stays owed, and a later run answers it once the budget has room."""
    client, rt, fake = live
    caplog.set_level("INFO")
    now = _locked_with_its_one_reply_spent(client, rt, fake)
    c = said_while_locked(client, rt, fake, "/notes help")
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z", drained=False)  # (one waits after)
    wait_until(lambda: rt.queue.counts()["pending"] == 1, what="the release's run")
    assert len(replies(fake)) == 1 and "confused" in reactions(fake, c)  # over the budget
    now[0] += CommandConfig().reply_refill_s  # refilled
    run_due(rt)
    assert rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 2 and "/notes topic" in replies(fake)[1].body  # answered
    assert rt.queue.counts()["pending"] == 0  # once


def test_a_kept_command_owed_since_the_release_is_not_run_once_its_comment_is_deleted(live):
    """As above, but the maintainer deletes the comment before the budget refilled: the
    owed run reads its text, and answers nothing, as the release answers nothing of a
    comment deleted since it was kept."""
    client, rt, fake = live
    now = _locked_with_its_one_reply_spent(client, rt, fake)
    c = said_while_locked(client, rt, fake, "/notes help")
    unlocked(client, rt, fake, "2026-09-01T10:01:00Z", drained=False)
    wait_until(lambda: rt.queue.counts()["pending"] == 1, what="the release's run")
    maintainer_deletes(fake, c)
    now[0] += CommandConfig().reply_refill_s
    run_due(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0

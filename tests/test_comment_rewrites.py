"""A notes comment rewritten by a maintainer into their own text, our marker gone, as
GitHub tells it (`issue_comment` `edited`, bot.deletion_events.rewrote_notes): for
readers it is gone, and it counts as its deletion (README, What the bot does), also when
the bot never learnt the comment's id. End to end against the fake GitHub."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from bot.db import Database
from bot.deletion_events import _edited_at, _said, claims_rewrite, rewrote_notes
from bot.dispatch import Dispatcher, MalformedPayload, Route, Us, _us
from bot.dryrun import DryRunGitHub
from bot.github_client import CLOCK_SLACK
from bot.github_port import GitHubError, Outcome, PRRef, RestoreOutcome, write_asked
from bot.markers import MARKER
from bot.prstate import EARLIER_TRIES, PRState, WriteBack
from bot.queue import Delivery
from bot.server import build_dispatcher
from bot.write_backs import charged, edited_again, write_back_owed
from tests.command_kit import (
    AUTHOR,
    OWING,
    N,
    comment_payload,
    github_time_ago,
    owe_an_update,
    reactions,
    run_due,
    say,
    state,
    sticky,
    tune,
    unlocked,
)
from tests.fake_github import DEFAULT_APP_ID, DEFAULT_REPO, Fault
from tests.test_command_events import OWNER, with_token, written_as
from tests.test_deletion_events import (
    MAINTAINER,
    AppDryRun,
    deleted,
    lose_the_create,
    on_run_before_a_missed_deletion,
    said_ago,
    say_after,
    served,  # noqa: F401 (a fixture)
    swept,
    via,
)
from tests.test_deletion_events import deleted as deletion_deleted
from tests.test_deletion_events import ran as deletion_ran
from tests.webhook_kit import (
    BOT,
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
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

THEIRS = "Moved the reading list to the description."
INSTALLATION = 1001  # the fake's App installation on the PR's repository


def rewritten(client, rt, fake, comment, text: str = THEIRS, *, by=MAINTAINER) -> dict:
    """The comment's text replaced on GitHub by `by`, and GitHub's `edited` event for it
    sent (its text before in `changes.body.from`, as GitHub's example has it)."""
    return sent(client, rt, rewrite(fake, comment, text, by=by))


def rewrite(fake, comment, text: str = THEIRS, *, by=MAINTAINER, ago: float = 0) -> dict:
    """The comment's text replaced on GitHub by `by`, `ago` seconds ago (by GitHub's
    clock): GitHub's `edited` event for it, not sent yet."""
    before = comment.body
    fake.set_body(comment.id, text)
    comment.updated_at = fake.now() - ago
    payload = comment_payload(comment, action="edited", old_body=before)
    payload["sender"] = dict(by)
    payload["comment"]["performed_via_github_app"] = via(fake, comment)
    return payload


def sent(client, rt, payload: dict) -> dict:
    r = post(client, "issue_comment", payload)
    assert r.status_code in (200, 202), r.text
    drain(rt)
    return r.json()


def ran(caplog, answer: dict) -> str:
    """What the edit's delivery did, as the server's log line says."""
    return deletion_ran(caplog, answer, "edited")


REWRITE = " (rewritten: its text no longer opens with our marker)"


# kills: bot/deletion_events.py:rewrote_notes a rewrite of our notes comment not claimed
def test_a_comment_whose_create_answer_was_lost_and_a_maintainer_rewrote_is_not_posted_again(
    served,  # noqa: F811
    caplog,
):
    """The bug: the PR's state knows no comment id, the next PR event finds no comment with
    our marker and posts a new one, notifying everyone."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c = lose_the_create(client, rt, fake)
    answer = rewritten(client, rt, fake, c)
    assert ran(caplog, answer) == f"updates off: our comment {c.id} was deleted{REWRITE}"
    assert state(rt).opted_out and state(rt).comment_id is None
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert ours(fake) == [c] and fake.comment(c.id).body == THEIRS  # theirs, never written over
    # nor by the lost create's delivery, retried by the operator after the rewrite
    assert rt.queue.retry() != []
    drain(rt)
    assert ours(fake) == [c] and fake.comment(c.id).body == THEIRS
    # `/notes on` said after it resumes the updates: a notes comment is posted anew
    say_after(client, rt, fake, "/notes on")
    assert sticky(fake) is not None and sticky(fake).id != c.id
    assert fake.comment(c.id).body == THEIRS


def test_an_edit_that_keeps_our_marker_changes_nothing_and_our_next_write_restores_it(
    served,  # noqa: F811
):
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    fixed = c.body.replace("Review notes", "Review notes (typo fixed)")
    assert fixed != c.body
    answer = rewritten(client, rt, fake, c, fixed)
    assert answer["status"] in ("ignored", "queued")  # the bot's own comment: a command's route
    assert not state(rt).opted_out and state(rt).comment_id == c.id
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    now = fake.comment(c.id).body
    assert sticky(fake).id == c.id and now.startswith(MARKER) and "typo fixed" not in now


def test_a_rewrite_sent_by_the_bots_login_is_its_own_and_changes_nothing(served):  # noqa: F811
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    answer = rewritten(client, rt, fake, c, by={"login": BOT, "id": 1, "type": "Bot"})
    if answer["status"] == "ignored":  # the login known at intake
        assert f"sent by the bot itself ({BOT})" in answer["reason"]
    assert not state(rt).opted_out and state(rt).comment_id == c.id


# kills: bot/deletion_events.py:claims_rewrite a person's comment that opened with our marker
#   claimed as a rewrite: its slash command, edited in, not run
@pytest.mark.parametrize("text", ["my own list, tidied", "/notes why"])
def test_a_persons_comment_with_our_text_edited_goes_to_the_slash_commands(
    served,  # noqa: F811
    caplog,
    text,
):
    """A person's copy of our text (it opened with our marker) edited into their own
    words changes nothing; edited into a slash command, the command runs (it was taken
    for a rewrite of a notes comment and ignored as a copy of its text)."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    kept = sticky(fake)
    copy = fake.add_comment(DEFAULT_REPO, N, f"{MARKER}\nmy own list", login="octo-dev")
    answer = rewritten(client, rt, fake, copy, text)
    if answer["status"] == "queued":
        assert "not our notes comment" not in ran(caplog, answer)
    assert not state(rt).opted_out and state(rt).comment_id == kept.id
    asked = text.startswith("/notes")
    assert state(rt).verbose is asked and ("+1" in reactions(fake, copy)) is asked
    assert sticky(fake).id == kept.id and fake.comment(copy.id).body == text


def test_a_rewrite_while_off_stands_forgets_the_comment_and_on_posts_anew(served):  # noqa: F811
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
    assert state(rt).opted_out and state(rt).comment_id == c.id
    rewritten(client, rt, fake, c)
    s = state(rt)
    assert s.opted_out and s.comment_id is None  # theirs now: never edited again
    say_after(client, rt, fake, "/notes on")  # written after the rewrite: it resumes them
    assert not state(rt).opted_out
    assert sticky(fake) is not None and sticky(fake).id != c.id
    assert fake.comment(c.id).body == THEIRS


def test_a_rewrite_our_edit_in_flight_wrote_over_gets_its_text_back(served, caplog):  # noqa: F811
    """The race (randomized scenario seed 148): a PR event's edit of the notes comment is
    in flight while a maintainer rewrites it; GitHub applies their edit, then ours, and
    our text shows again: theirs is lost, and ours the next write would edit as its own.
    GitHub's `edited` event of the rewrite, run after our write, finds our marker back:
    the bot writes their words back (those of the event), once, and counts the rewrite."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    made = rewritten_in_flight(fake, c)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert made and fake.comment(c.id).body.startswith(MARKER)  # ours wrote over theirs
    answer = sent(client, rt, made[0])
    assert ran(caplog, answer) == (
        f"updates off: our comment {c.id} was deleted{REWRITE}; their text, which our late"
        " edit wrote over, written back"
    )
    assert fake.comment(c.id).body == THEIRS
    assert state(rt).opted_out and state(rt).comment_id is None
    # its delivery run again: their text shows, nothing is written
    patches = len(fake.calls("PATCH"))
    run_again(rt, answer["delivery"])
    assert len(fake.calls("PATCH")) == patches and fake.comment(c.id).body == THEIRS
    # theirs now: `/notes on` said after it posts a new comment, never edits theirs
    say_after(client, rt, fake, "/notes on")
    assert sticky(fake).id != c.id and fake.comment(c.id).body == THEIRS


def rewritten_in_flight(fake, comment, ago: float = 0) -> list[dict]:
    """The comment rewritten by a maintainer `ago` seconds ago, while our next edit of it
    is in flight: GitHub applies theirs, then ours. Their `edited` event, not sent yet,
    lands in the list given back once our edit is sent."""
    made: list[dict] = []
    their_edit_first = Fault.landed_after(lambda: made.append(rewrite(fake, comment, ago=ago)))
    fake.inject("PATCH", f"/repos/*/issues/comments/{comment.id}", their_edit_first)
    return made


def written_over(client, rt, fake, ago: float = 0):
    """The notes comment C up; a maintainer rewrites it while a PR event's edit is in
    flight, which GitHub applies after theirs: our text shows on C. Their `edited` event
    is not sent yet; their rewrite made `ago` seconds ago. (C, the event's payload)"""
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    made = rewritten_in_flight(fake, c, ago)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert made and fake.comment(c.id).body.startswith(MARKER)  # ours wrote over theirs
    return c, made[0]


# kills: bot/deletion_events.py:_their_text_back the words a lock refused not kept owed
# kills: bot/pr_events.py:handle_unlocked the write-back owed not made at the unlock
# kills: bot/write_backs.py:_restore a write-back the lock refused kept as perhaps landed
def test_a_write_back_the_lock_refused_is_made_at_the_unlock(served, caplog):  # noqa: F811
    """The race, and the PR locked before the rewrite's event ran: GitHub refuses the
    write-back. Their words were lost for good (nothing kept them); now they are owed,
    said in a warning, and written back when the PR is unlocked."""
    client, rt, fake = served
    caplog.set_level("INFO")
    c, payload = written_over(client, rt, fake)
    fake.lock(DEFAULT_REPO, N)
    answer = sent(client, rt, payload)
    assert ran(caplog, answer).endswith(
        "; their text, which our late edit wrote over, owed: the conversation is locked"
        " (written back at the unlock)"
    )
    warned = [r for r in caplog.records if "is not written back for now" in r.getMessage()]
    assert [r.levelname for r in warned] == ["WARNING"]
    assert fake.comment(c.id).body.startswith(MARKER) and rt.queue.counts()["failed"] == 0
    assert state(rt).opted_out and state(rt).comment_id is None
    assert state(rt).write_back.history.tried is None  # refused: not landed, never taken for ours
    answer = unlocked(client, rt, fake, "2026-09-01T10:00:06Z")
    assert fake.comment(c.id).body == THEIRS
    assert deletion_ran(caplog, answer, "unlocked") == (
        "a rewrite's words written back over our late edit"
    )
    assert f"wrote back onto comment {c.id} the text a person's rewrite had put" in caplog.text
    assert state(rt).write_back is None and state(rt).opted_out
    # theirs now: `/notes on` said after it posts a new comment, never edits theirs
    say_after(client, rt, fake, "/notes on")
    assert sticky(fake).id != c.id and fake.comment(c.id).body == THEIRS


# kills: bot/write_backs.py:write_back_owed their words written over the notes comment the
#        state keeps (taken back by a release before write-backs)
def test_a_write_back_owed_of_the_comment_the_state_keeps_is_dropped(served):  # noqa: F811
    """Their words owed onto C (the lock refused them); the PR unlocked, its event lost, a
    release before write-backs (a rollback) ran the author's `/notes on`: its write took
    C, showing our text, for the notes comment (the state keeps C, updates on), leaving
    the debt as it was. Back on this release, the PR's next write must not write their
    words over the notes comment (its next write then took C for deleted): the debt goes."""
    client, rt, fake = served
    c, payload = written_over(client, rt, fake)
    fake.lock(DEFAULT_REPO, N)
    sent(client, rt, payload)
    fake.unlock(DEFAULT_REPO, N)
    rt.ctx.prs.update(DEFAULT_REPO, N, comment_id=c.id, opted_out=False)  # the older `on`
    deliver_pr(client, rt, title=title_with_one_more_note(), updated_at="2026-09-01T10:00:06Z")
    assert sticky(fake).id == c.id and state(rt).comment_id == c.id
    assert not state(rt).opted_out and state(rt).write_back is None


# kills: bot/write_backs.py:write_back_owed the words still owed after the unlock found theirs
def test_a_rewrite_made_again_while_locked_is_what_the_unlock_finds(served):  # noqa: F811
    """The write-back refused by the lock; the maintainer (a collaborator may edit in a
    locked conversation) rewrites our text again. The unlock finds their new text and
    writes nothing: no longer owed, a later write asks GitHub for C no more."""
    client, rt, fake = served
    c, payload = written_over(client, rt, fake)
    fake.lock(DEFAULT_REPO, N)
    sent(client, rt, payload)
    again = "Reading list: see the description."
    sent(client, rt, rewrite(fake, fake.comment(c.id), again))
    assert state(rt).write_back is not None and state(rt).write_back.text == again
    patches = len(fake.calls("PATCH"))
    unlocked(client, rt, fake, "2026-09-01T10:00:06Z")
    assert fake.comment(c.id).body == again and len(fake.calls("PATCH")) == patches
    assert state(rt).write_back is None


def failed_write_back(client, rt, fake, c, payload: dict) -> None:
    """The rewrite's event (`payload`) sent, GitHub failing its write-back onto C at every
    try: the delivery failed (for a retry), their words owed."""
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[Fault.error(502)] * 20)
    sent(client, rt, payload)
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 1 and fake.comment(c.id).body.startswith(MARKER)
    assert state(rt).write_back is not None


# kills: bot/sticky.py:_write a write that knows no comment taking the rewritten one, our
#        text shown over theirs, for the notes comment before their words are written back
@pytest.mark.parametrize("command", ["/notes on", "/notes why"])
def test_a_write_back_that_failed_is_made_before_a_later_commands_write(
    served,  # noqa: F811
    caplog,
    command,
):
    """The race; GitHub fails the write-back at every try (the delivery fails, for a
    retry). Before the retry, the author says `/notes on` (or `why`): its write, knowing
    no comment, looked for ours by its marker and found C showing our text: it made C
    the notes comment again, and the retry then found the rewrite outranked by the `on`:
    their words lost for good. Now the write writes them back first and posts its own."""
    client, rt, fake = served
    caplog.set_level("INFO")
    c, payload = written_over(client, rt, fake)
    failed_write_back(client, rt, fake, c, payload)
    say_after(client, rt, fake, command)
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back is None
    assert sticky(fake) is not None and sticky(fake).id != c.id
    kept = sticky(fake).id
    assert rt.queue.retry() != []  # the rewrite's delivery, retried: C stays theirs
    drain(rt)
    assert fake.comment(c.id).body == THEIRS and sticky(fake).id == kept


def budget_frozen(rt):
    """`OWING`'s settings on a clock that never refills: the installation's write budget
    and what it has left now."""
    tune(rt, OWING, clock=lambda: 50.0)
    budget = rt.ctx.flood.installation_writes
    return budget, budget.left(INSTALLATION)


# kills: bot/write_backs.py:write_back_owed a write-back made in a command's run not counted
# kills: bot/command_answers.py:run_commands a command's write-back not taken from the budget
@pytest.mark.parametrize("command", ["/notes on", "/notes why"])
def test_a_write_back_a_commands_update_makes_costs_the_installation_a_write(
    served,  # noqa: F811
    command,
):
    """Their words owed (the write-back failed), the author's command pays them first: a
    content write GitHub's limit counts as the command's own are, taken from the
    installation's write budget with them: 👀, the write-back, the new comment, 👍."""
    client, rt, fake = served
    c, payload = written_over(client, rt, fake)
    failed_write_back(client, rt, fake, c, payload)
    budget, before = budget_frozen(rt)
    say_after(client, rt, fake, command)
    assert fake.comment(c.id).body == THEIRS and sticky(fake).id != c.id
    assert before - budget.left(INSTALLATION) == 4


# kills: bot/write_backs.py:write_back_owed a write-back GitHub answered with an error not
#        taken from the budget (it was sent: GitHub's limit may count it, its retry again)
def test_a_write_back_a_commands_update_tried_and_failed_costs_the_installation_a_write(
    served,  # noqa: F811
):
    """Their words owed; the author's `/notes why` writes them back first, GitHub failing
    that PATCH at every try: the run fails (for a retry). The write-back was sent, a
    content write as any (bot.command_reactions `Spent`: a write tried counts), so it is
    taken with the command's 👀; what else was reserved goes back."""
    client, rt, fake = served
    c, payload = written_over(client, rt, fake)
    failed_write_back(client, rt, fake, c, payload)
    budget, before = budget_frozen(rt)
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[Fault.error(502)] * 20)
    say_after(client, rt, fake, "/notes why")
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 2 and state(rt).write_back is not None
    assert before - budget.left(INSTALLATION) == 2  # 👀, the write-back tried


class _HeldBack:
    """A port whose write-back a rate limit pause holds back: its PATCH begun, never sent."""

    def restore_text(self, ref, comment_id, text, marker, *, history):
        write_asked()
        raise GitHubError("held back: the identity is paused", transient=True, sent=False)


# kills: bot/write_backs.py:_restore a write-back that sent no write (their text shown, a rate
#        limit pause holding its PATCH back) taken from the budget
# kills: bot/write_backs.py:write_back_owed nothing owed read as words owed
def test_a_write_back_that_sent_no_write_costs_nothing(served):  # noqa: F811
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    notes = c.body
    fake.set_body(c.id, THEIRS)
    ref = PRRef(DEFAULT_REPO, N, INSTALLATION)
    budget, before = budget_frozen(rt)
    with charged(rt.ctx, ref):
        assert write_back_owed(rt.ctx, ref) is None  # nothing owed
    owed = WriteBack(c.id, THEIRS, None)
    rt.ctx.prs.update(DEFAULT_REPO, N, comment_id=None, write_back=owed)  # a rewrite's
    with charged(rt.ctx, ref):  # their text shows: looked at, nothing written
        assert write_back_owed(rt.ctx, ref) is RestoreOutcome.THEIRS
    rt.ctx.prs.update(DEFAULT_REPO, N, write_back=owed)
    paused = SimpleNamespace(prs=rt.ctx.prs, github=_HeldBack(), flood=rt.ctx.flood)
    with pytest.raises(GitHubError), charged(paused, ref):
        write_back_owed(paused, ref)
    assert budget.left(INSTALLATION) == before and state(rt).write_back == owed  # none tried
    fake.set_body(c.id, notes)  # our late edit lands; a PR event's write writes them back
    assert write_back_owed(rt.ctx, ref) is RestoreOutcome.WRITTEN
    assert fake.comment(c.id).body == THEIRS
    assert budget.left(INSTALLATION) == before


class _Lost:
    """A port whose write-back is sent and answered with a 502 at every try (perhaps
    carried out, its answer lost): what each call was told of the earlier tries."""

    def __init__(self) -> None:
        self.told: list[tuple[object, ...]] = []

    def restore_text(self, ref, comment_id, text, marker, *, history):
        self.told.append(((history.tried, history.tried_at), *history.tried_before))
        write_asked()
        raise GitHubError("502 Server Error (gave up after 3 attempts)", transient=True)


# kills: bot/write_backs.py:_earlier a failed call's words dropped when the next call fails
# kills: bot/write_backs.py:_earlier the earlier tries kept without end
# kills: bot/write_backs.py:_restore the earlier tries not told to the port
def test_every_failed_write_back_is_kept_with_its_time_the_oldest_dropped_past_the_cap(
    served,  # noqa: F811
):
    """Each call that fails, its answer lost, keeps its words and time; those before it
    are kept too, one per words (the later time takes in the earlier one's window), up
    to `EARLIER_TRIES`, the oldest dropped: each is told to the next call."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    ref = PRRef(DEFAULT_REPO, N, INSTALLATION)
    lost = _Lost()
    failing = SimpleNamespace(prs=rt.ctx.prs, github=lost, flood=rt.ctx.flood)
    words = [f"their edit {i}" for i in range(6)] + ["their edit 3"]
    for text in words:
        owed = WriteBack(sticky(fake).id, text) if state(rt).write_back is None else None
        kept = owed or replace(state(rt).write_back, text=text)
        rt.ctx.prs.update(DEFAULT_REPO, N, comment_id=None, write_back=kept)
        with pytest.raises(GitHubError):
            write_back_owed(failing, ref, keep=True)
    owed = state(rt).write_back
    assert owed.history.tried == "their edit 3" and owed.history.tried_at is not None
    # the oldest (0) dropped; the earlier try of 3 taken in by the last one's time
    assert [t for t, _ in owed.history.tried_before] == [f"their edit {i}" for i in (1, 2, 4, 5)]
    assert len(owed.history.tried_before) == EARLIER_TRIES
    assert lost.told[0] == ((None, None),)
    assert [t for t, _ in lost.told[2]] == ["their edit 1", "their edit 0"]
    assert [t for t, _ in lost.told[-1]] == [f"their edit {i}" for i in (5, 1, 2, 3, 4)]


# kills: bot/command_updates.py:handle_refresh a deferred update's write-back not taken from the
#        installation's write budget
def test_a_write_back_a_deferred_update_makes_costs_the_installation_a_write(
    served,  # noqa: F811
):
    """As above, the author's `/notes on` said in the window of a `/notes` said before:
    its update deferred, paid for by the command (its notes comment, its 👍). The
    update's run writes their words back first: that write is taken when it is made."""
    client, rt, fake = served
    tune(rt, OWING, clock=lambda: 50.0)
    c, payload = written_over(client, rt, fake, ago=100)
    say(client, rt, fake, "/notes", login=AUTHOR)  # the window opens
    failed_write_back(client, rt, fake, c, payload)
    on = owe_an_update(client, rt, fake, "/notes on", login=AUTHOR)
    assert fake.comment(c.id).body.startswith(MARKER)
    budget = rt.ctx.flood.installation_writes
    before = budget.left(INSTALLATION)
    run_due(rt)
    assert fake.comment(c.id).body == THEIRS and sticky(fake).id != c.id
    assert reactions(fake, on) == {"eyes", "+1"}
    assert before - budget.left(INSTALLATION) == 1  # the write-back; the rest was paid


# kills: bot/files_recheck.py:handle_recheck a write-back its files re-check makes not taken
#        from the installation's write budget
def test_a_write_back_a_commands_files_recheck_makes_costs_the_installation_a_write(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The author's `/notes why` answered on a file list GitHub gave short (a push just
    made): its re-check waits. Meanwhile their words came to be owed onto C, a rewrite
    an `on` outranked (C forgotten, updates on; C shows our text: an edit of ours landed
    late). The re-check, the command's look, writes them back before it posts the notes
    anew: a content write of the command's, taken from the budget as its own update's
    would be."""
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    fake.pull(DEFAULT_REPO, N).head_sha = HEAD
    settings = live_settings(tmp_path, fake, app_key, files_recheck_delays=(3600.0,))
    with serving(settings) as (client, rt):
        tune(rt, OWING, clock=lambda: 50.0)  # no refill
        deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
        c = sticky(fake)
        fake.pull(DEFAULT_REPO, N).head_sha = "c" * 40  # a push, its event not come yet
        fake.inject("GET", "/repos/*/pulls/*/files", Fault(status=200, body=[]))
        asked = say(client, rt, fake, "/notes why", login=AUTHOR, wait=False)
        wait_until(lambda: "+1" in reactions(fake, asked), what="/notes why")
        wait_until(lambda: rt.queue.counts()["processing"] == 0, what="its end")
        assert rt.queue.counts()["pending"] == 1  # the re-check
        owed = WriteBack(c.id, THEIRS, None)
        rt.ctx.prs.update(DEFAULT_REPO, N, comment_id=None, body_hash=None, write_back=owed)
        budget = rt.ctx.flood.installation_writes
        before = budget.left(INSTALLATION)
        run_due(rt)
        assert fake.comment(c.id).body == THEIRS and state(rt).write_back is None
        assert sticky(fake) is not None and sticky(fake).id != c.id
        assert before - budget.left(INSTALLATION) == 1


# kills: bot/write_backs.py:write_back_owed the words no longer owed once a look found them
#        shown, before an edit of ours GitHub applied late could land
def test_an_edit_of_ours_landing_after_the_rewrites_look_is_written_back_at_our_next_write(
    served,  # noqa: F811
):
    """A PR event's edit of C is in flight as a maintainer rewrites C; GitHub answers it
    with errors at every try (the delivery fails) but applies it only later, after the
    rewrite's event looked and found their text (as a request the client gave up on may
    still land). Our text shows on C, and the author's `/notes why`, knowing no comment,
    took C for the notes comment: their words lost. Kept past that look, they are
    written back before that write, which posts its own comment."""
    client, rt, fake = served
    c, notes = kept_past_the_look(client, rt, fake)
    assert state(rt).opted_out
    fake.set_body(c.id, notes)  # GitHub applies ours late (its text before stands for it)
    say_after(client, rt, fake, "/notes why")
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back is None
    assert sticky(fake) is not None and sticky(fake).id != c.id


def kept_past_the_look(client, rt, fake):
    """A PR event's edit of C in flight as a maintainer rewrites C; GitHub answers it with
    errors at every try, and will apply it only later. The rewrite's event looked, found
    their text and kept their words owed. (C, the text of ours that will land)"""
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    notes, made = c.body, []
    failed = Fault.error(502)
    first = replace(failed, first=lambda: made.append(rewrite(fake, c)))
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", first, *[failed] * 20)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 1 and fake.comment(c.id).body == THEIRS
    sent(client, rt, made[0])
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back.text == THEIRS
    return c, notes


AGAIN = "Reading list: see the description (updated)."


# kills: bot/write_backs.py:edited_again their words owed not replaced by their newest
# kills: bot/deletion_events.py:claims_rewrite a rewritten comment edited again not claimed
def test_a_rewrite_edited_again_before_our_late_edit_lands_gets_its_newest_words_back(
    served,  # noqa: F811
    caplog,
):
    """Their words kept owed past the look; they edit their comment again; then our edit
    GitHub applied late lands. The next write wrote back their first words, the ones
    the debt kept, over their newest: their second edit's event (a comment of ours,
    its marker gone before) was ignored at intake. Now it replaces the words owed."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, notes = kept_past_the_look(client, rt, fake)
    answer = sent(client, rt, rewrite(fake, fake.comment(c.id), AGAIN))
    assert ran(caplog, answer) == "their newest words are owed back onto it instead"
    assert state(rt).write_back.text == AGAIN
    fake.set_body(c.id, notes)  # GitHub applies ours late
    say_after(client, rt, fake, "/notes why")
    assert fake.comment(c.id).body == AGAIN and state(rt).write_back is None
    assert sticky(fake) is not None and sticky(fake).id != c.id


# kills: bot/write_backs.py:edited_again an edit with nothing owed onto it, or made before the
#        words owed (its event run late), taken for the newest words
def test_a_rewritten_comment_edited_again_changes_no_newer_words_owed(
    served,  # noqa: F811
    caplog,
):
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, _ = kept_past_the_look(client, rt, fake)
    answer = sent(client, rt, rewrite(fake, fake.comment(c.id), AGAIN, ago=100))
    assert ran(caplog, answer) == "ignored: made before the words owed back onto it"
    assert state(rt).write_back.text == THEIRS
    say_after(client, rt, fake, "/notes on")  # its write looks: their text shows, none owed
    assert state(rt).write_back is None
    answer = sent(client, rt, rewrite(fake, fake.comment(c.id), THEIRS))
    assert ran(caplog, answer) == "ignored: no words of a rewrite owed back onto it"
    assert state(rt).write_back is None


# kills: bot/write_backs.py:edited_again their words owed kept over our text they put back
def test_a_rewrite_whose_author_puts_our_text_back_is_not_written_over_by_its_old_words(
    served,  # noqa: F811
    caplog,
):
    """Their words kept owed past the look; weeks later they paste our notes text back
    into their comment. Our next write wrote their old words over what they chose (our
    marker shows: taken for our late edit). Their edit's event drops the debt."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, notes = kept_past_the_look(client, rt, fake)
    answer = sent(client, rt, rewrite(fake, fake.comment(c.id), notes))
    assert ran(caplog, answer) == (
        "their words owed back onto it dropped: they put our text back themselves"
    )
    assert state(rt).write_back is None
    say_after(client, rt, fake, "/notes why")
    assert fake.comment(c.id).body.startswith(MARKER)  # never their old words again


# kills: bot/write_backs.py:owe_write_back a rewrite's retried event owing its older words over
#        the newer words of a rewrite made after it
def test_a_rewrites_retry_does_not_owe_its_words_over_a_later_rewrites(served):  # noqa: F811
    """The race; the write-back failed (the delivery failed, for a retry). The maintainer,
    finding our text on their comment, rewrites it again: that rewrite's event counts
    and keeps its words owed (its look finds them shown). The first event's retry came
    after it: it owed its own, older words in their place, which our late edit landing
    since would get back."""
    client, rt, fake = served
    c, payload = written_over(client, rt, fake)
    notes = fake.comment(c.id).body
    failed_write_back(client, rt, fake, c, payload)
    later = rewrite(fake, fake.comment(c.id), AGAIN)
    later["comment"]["updated_at"] = github_time_ago(-2)  # made after the first
    sent(client, rt, later)
    assert fake.comment(c.id).body == AGAIN and state(rt).write_back.text == AGAIN
    assert rt.queue.retry() != []
    drain(rt)
    assert state(rt).write_back.text == AGAIN
    fake.set_body(c.id, notes)  # an edit of ours lands late
    say_after(client, rt, fake, "/notes why")
    assert fake.comment(c.id).body == AGAIN


# kills: bot/deletion_events.py:_said a rewrite not dated after the `off` that stands: outranked
#        by it, our paused line kept over their words
def test_a_rewrite_an_off_said_after_it_outranks_still_gets_its_words_back(served):  # noqa: F811
    """The notes comment A up. A maintainer rewrites A while the update of the author's
    `/notes off`, said after the rewrite, is in flight (or its list lagged behind their
    edit); GitHub applies theirs, then our paused line. The rewrite's event, run last:
    the `off` stands (updates off either way), and A is theirs, never the bot's paused
    comment: it is dated just after the `off`, counts, and their words go back."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    made = rewritten_in_flight(fake, a, ago=200)
    said_ago(client, rt, fake, "/notes off", 100)
    assert made and state(rt).opted_out and state(rt).comment_id == a.id
    assert fake.comment(a.id).body.startswith(MARKER) and state(rt).paused  # ours over theirs
    sent(client, rt, made[0])
    assert fake.comment(a.id).body == THEIRS
    assert state(rt).opted_out and state(rt).comment_id is None
    say_after(client, rt, fake, "/notes on")  # theirs: a new comment, theirs left alone
    assert sticky(fake).id != a.id and fake.comment(a.id).body == THEIRS


def outranked_by_an_on(client, rt, fake):
    """Off, the notes comment A up; a maintainer rewrites A while the update of a
    `/notes on` said after the rewrite is in flight: GitHub applies theirs, then ours.
    (A, the rewrite's event in a list: not sent yet)"""
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    made = rewritten_in_flight(fake, a, ago=200)
    said_ago(client, rt, fake, "/notes on", 100)
    return a, made


# kills: bot/deletion_events.py:handle_rewritten a rewrite an `on` said after it outranks left
#        showing our text over theirs, their comment kept as the notes comment
def test_a_rewrite_outranked_by_an_on_gets_its_words_back_and_the_notes_a_new_comment(
    served,  # noqa: F811
    caplog,
):
    """Off, the notes comment A up. A maintainer rewrites it while the update of the
    author's `/notes on`, said after the rewrite, is in flight; GitHub applies theirs,
    then ours. The rewrite's event, run last, is outranked by the `on`: the updates stay
    on. It used to leave A as the notes comment, our text over theirs, their words lost
    for good and A edited by every update since. A is theirs, as had the rewrite's event
    run first: their words go back onto it, and the notes go to a new comment C, the one
    the PR's state keeps (docs/commands.md, the notes comment)."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    a, made = outranked_by_an_on(client, rt, fake)
    assert made and not state(rt).opted_out and state(rt).comment_id == a.id
    shown = fake.comment(a.id).body
    assert shown.startswith(MARKER)
    answer = sent(client, rt, made[0])
    c = sticky(fake)
    assert fake.comment(a.id).body == THEIRS and c is not None and c.id != a.id
    assert c.body == shown  # the notes the `on` showed, in a comment of their own
    s = state(rt)
    assert not s.opted_out and s.comment_id == c.id and s.write_back is None
    assert ran(caplog, answer) == (
        f"our comment {a.id} rewritten: theirs now, forgotten (the `/notes on` said after it"
        " stands); their text, which our late edit wrote over, written back; the notes"
        " comment: created (1 note(s))"
    )
    # the PR's next update edits C, never theirs
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    assert sticky(fake).id == c.id and fake.comment(a.id).body == THEIRS


# kills: bot/deletion_events.py:handle_rewritten a retry of a rewrite kept apart, the comment
#        forgotten by the failed run, taken for an outranked rewrite of no comment of ours
@pytest.mark.parametrize("lost", [False, True])  # refused; or made, its answer lost
def test_a_rewrite_kept_apart_whose_new_comment_failed_posts_it_at_the_retry(
    served,  # noqa: F811
    lost,
):
    """As above, GitHub failing the new comment at every try: the delivery fails, A
    forgotten and their words back on it. Its retry found A no longer the notes comment
    and took the rewrite for one the `on` outranks of a comment not kept: the notes were
    never posted anew (updates on, no comment, till the PR's next event). Now it posts
    them; A stays theirs."""
    client, rt, fake = served
    a, made = outranked_by_an_on(client, rt, fake)
    if lost:
        fake.inject("POST", "/repos/*/issues/*/comments", Fault.dropped(apply=True))
        fake.inject("GET", "/repos/*/issues/*/comments", Fault(), *[Fault.error(502)] * 9)
    else:
        fake.inject("POST", "/repos/*/issues/*/comments", *[Fault.error(502)] * 20)
    sent(client, rt, made[0])
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 1 and state(rt).comment_id is None
    assert rt.queue.retry() != []
    drain(rt)
    c = sticky(fake)  # one notes comment: a create whose answer was lost is not made again
    assert c is not None and c.id != a.id and fake.comment(a.id).body == THEIRS
    assert state(rt).comment_id == c.id and not state(rt).opted_out


# kills: bot/deletion_events.py:_kept_apart a lock refusing their words failing the delivery
def test_a_rewrite_outranked_by_an_on_on_a_locked_pr_gets_its_words_back_at_the_unlock(
    served,  # noqa: F811
    caplog,
):
    """As above, the PR locked before the rewrite's event runs: their words are owed (the
    unlock writes them), the notes not posted anew (the delivery done, not failed), and
    the PR's next update posts them in a new comment, never onto A."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    a, made = outranked_by_an_on(client, rt, fake)
    fake.lock(DEFAULT_REPO, N)
    answer = sent(client, rt, made[0])
    assert ran(caplog, answer).endswith(
        "owed: the conversation is locked (written back at the unlock); the notes not"
        " posted anew: the conversation is locked"
    )
    assert rt.queue.counts()["failed"] == 0 and fake.comment(a.id).body.startswith(MARKER)
    s = state(rt)
    assert not s.opted_out and s.comment_id is None and s.write_back.text == THEIRS
    unlocked(client, rt, fake, "2026-09-01T10:00:06Z")
    assert fake.comment(a.id).body == THEIRS and state(rt).write_back is None
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:07Z"))
    assert sticky(fake).id != a.id and fake.comment(a.id).body == THEIRS


# kills: bot/deletion_events.py:_said a rewrite dated by its arrival, not by its updated_at
@pytest.mark.parametrize("made", [200, 60])  # seconds ago: before the `on`, or after it
def test_a_rewrite_is_dated_when_it_was_made_not_when_it_arrived(served, made):  # noqa: F811
    """Off, the notes comment A up. A maintainer rewrites A; the author says `/notes on`
    (100 s ago), which runs first: its update finds no comment of ours (A's marker gone)
    and posts C. GitHub's `edited` event of A comes last. Its `comment.updated_at` says
    when it was made: before the `on`, the `on` wins (C stays up, updates on); after it,
    the rewrite does (C goes, updates off). Dated by its arrival it always won."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    a = sticky(fake)
    said_ago(client, rt, fake, "/notes off", 600)
    payload = rewrite(fake, a, ago=made)
    said_ago(client, rt, fake, "/notes on", 100)
    c = sticky(fake)
    assert c is not None and c.id != a.id and state(rt).comment_id == c.id
    sent(client, rt, payload)
    if made > 100:
        assert not state(rt).opted_out and ours(fake) == [a, c] and sticky(fake).id == c.id
    else:
        assert state(rt).opted_out and state(rt).comment_id is None and ours(fake) == [a]
    assert fake.comment(a.id).body == THEIRS  # theirs, whatever else


# kills: bot/deletion_events.py:_edited_at a rewrite whose time does not parse dated at none
@pytest.mark.parametrize(
    ("updated_at", "key"),
    [
        ("2026-09-01T10:00:00Z", "2026-09-01T10:00:00Z/~"),
        ("2026-09-01T12:00:00+02:00", "2026-09-01T10:00:00Z/~"),
        ("yesterday", "2026-09-01T11:00:00Z/~"),  # as a deletion: when GitHub first sent it
        (None, "2026-09-01T11:00:00Z/~"),
    ],
)
def test_a_rewrite_is_dated_by_its_updated_at_when_it_parses(updated_at, key):
    comment = {"id": 11, "updated_at": updated_at}
    delivery = Delivery("d", "issue_comment", "edited", {}, received_at="2026-09-01T11:00:00Z")
    state = PRState(DEFAULT_REPO, N)
    assert _said(state, replace(delivery, updated_at="x"), _edited_at(comment)) == key
    # while `/notes off` stands: no earlier than just after it, as a deletion
    off = replace(state, opted_out=True, switched_at="2026-09-01T10:30:00Z/00000000000000000020")
    said = _said(off, replace(delivery, updated_at="x"), _edited_at(comment))
    assert said == max(key, f"{off.switched_at}~")


@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN, or asked
def test_with_a_token_its_owner_rewriting_the_notes_comment_turns_updates_off(
    tmp_path, fake_github, monkeypatch, configured
):
    """The bot never edits its comment to drop the marker: the token's owner doing so
    acts as a person, as a deletion (`Route.by_sender`)."""
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(with_token(tmp_path, fake, configured)) as (client, rt):
        say(client, rt, fake, "/notes")
        notes = next(c for c in written_as(fake) if c.body.startswith(MARKER))
        rewritten(client, rt, fake, notes, by={"login": OWNER, "id": 3, "type": "User"})
        assert state(rt).opted_out and state(rt).comment_id is None


# (a dry run: tests/test_deletion_events.py, a deletion's test and a rewrite's in one)


# --- the route: which edits are a rewrite, and what intake refuses -----------------------


def edit_event(before: object, now: object, sender: dict = MAINTAINER) -> dict:
    return {
        "action": "edited",
        "repository": {"full_name": DEFAULT_REPO},
        "issue": {"number": N, "pull_request": {"url": "x"}},
        "sender": sender,
        "changes": {"body": {"from": before}},
        "comment": {"id": 11, "body": now, "user": {"login": BOT, "type": "Bot"}},
    }


NOTES = f"{MARKER}\n### Review notes"


# kills: bot/deletion_events.py:rewrote_notes the marker before or now not read as it opens
@pytest.mark.parametrize(
    ("before", "now", "claimed"),
    [
        (NOTES, THEIRS, True),
        (f"\n  {NOTES}", THEIRS, True),  # spacing before the marker, as GitHub keeps it
        (NOTES, "", True),
        (NOTES, None, True),
        (NOTES, f"{NOTES} (typo fixed)", False),  # kept: a typo fixed in ours
        (NOTES, f" \n{NOTES}", False),
        (THEIRS, THEIRS + "!", False),  # a person's comment
        (THEIRS, NOTES, False),  # a person pasting ours: their comment still
        (f"quoted: {MARKER}", THEIRS, False),  # the marker not opening it
    ],
)
def test_an_edit_is_a_rewrite_when_its_text_opened_with_our_marker_and_no_longer_does(
    before, now, claimed
):
    assert rewrote_notes(edit_event(before, now)) is claimed


def test_an_edit_of_anything_but_its_text_is_no_rewrite():
    payload = edit_event(NOTES, THEIRS)
    assert rewrote_notes({k: v for k, v in payload.items() if k != "changes"}) is False
    assert rewrote_notes(dict(payload, changes={})) is False
    assert rewrote_notes(dict(payload, changes={"title": {"from": "x"}})) is False


# kills: bot/deletion_events.py:rewrote_notes a malformed `changes` queued, failing each run
@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ("body", "changes: not an object (str)"),
        ({"body": NOTES}, "changes.body: not an object (str)"),
        ({"body": {"from": None}}, "changes.body.from: not a string (NoneType)"),
        ({"body": {"from": ["x"]}}, "changes.body.from: not a string (list)"),
        ({"body": {}}, "changes.body.from: not a string (NoneType)"),
    ],
)
def test_an_edit_whose_changes_are_not_githubs_shape_is_refused_at_intake(
    served,  # noqa: F811
    changes,
    said,
):
    """GitHub sends `changes.body.from` as a string for every edit of a comment's text.
    Refused (400, naming the field): otherwise no rewrite could be told, and the slash
    commands' route read it at each run and failed."""
    client, rt, fake = served
    payload = comment_payload(fake.add_comment(DEFAULT_REPO, N, "/notes why"), action="edited")
    payload["changes"] = changes
    r = post(client, "issue_comment", payload)
    assert r.status_code == 400 and said in r.text
    assert rt.queue.counts()["failed"] == 0
    with pytest.raises(MalformedPayload):
        rewrote_notes(payload)


# kills: bot/dispatch.py:Dispatcher.route the claiming route not asked first, or asked of no payload
def test_an_edit_goes_to_the_rewrite_route_only_when_it_claims_it(tmp_path):
    d = build_dispatcher()
    commands = d.route("issue_comment", "edited")
    assert commands is not None and commands.claims is None
    rewrite = d.route("issue_comment", "edited", edit_event(NOTES, THEIRS))
    assert rewrite is not None and rewrite.claims is claims_rewrite and rewrite.by_sender
    assert d.route("issue_comment", "edited", edit_event(NOTES, NOTES + "!")) is commands
    assert d.route("issue_comment", "created", edit_event(NOTES, THEIRS)) is commands


# kills: bot/dispatch.py:Dispatcher.add a route claiming payloads refused beside the generic one
def test_a_claiming_route_shares_an_action_with_one_generic_route_only():
    d = Dispatcher()
    generic = Route("discussion", frozenset({"edited"}), lambda ctx, dl: "generic")
    claiming = Route(
        "discussion", frozenset({"edited"}), lambda ctx, dl: "claimed", claims=lambda p, us: bool(p)
    )
    d.add(generic)
    d.add(claiming)
    with pytest.raises(ValueError):  # which would claim first: the order they came in
        d.add(replace(claiming, actions=None))
    with pytest.raises(ValueError):
        d.add(replace(generic, actions=frozenset({"edited", "created"})))
    assert d.route("discussion", "edited", {"a": 1}) is claiming
    assert d.route("discussion", "edited", {}) is generic
    only = Dispatcher()
    only.add(claiming)
    assert only.route("discussion", "edited", {}) is None


TOKEN = dict(github_token="ghp_x", public_url="https://notes.example.org")
BY_OWNER = {"login": OWNER, "type": "User"}


# kills: bot/dispatch.py:_our_own a rewrite of our comment by a maintainer taken for our own
@pytest.mark.parametrize(
    ("settings", "payload", "why"),
    [
        ({}, edit_event(NOTES, THEIRS), ""),  # a maintainer's, of the bot's comment
        ({}, edit_event(NOTES, THEIRS, {"login": BOT, "type": "Bot"}), "sent by the bot itself"),
        ({}, edit_event(NOTES, NOTES + "!"), "written by"),  # marker kept: ours, a bot's
        (TOKEN, edit_event(NOTES, THEIRS, BY_OWNER), ""),  # the owner, or the bot: the handler's
    ],
)
def test_a_rewrite_is_routed_when_someone_else_dropped_our_marker(tmp_path, settings, payload, why):
    port = AppDryRun(Database(tmp_path / "port.sqlite3"))
    port.login = OWNER if "github_token" in settings else BOT
    if "github_token" in settings:
        payload["comment"]["user"] = BY_OWNER
    chosen = make_settings(tmp_path, **settings)
    route = build_dispatcher().route("issue_comment", "edited", payload, _us(chosen, port.login))
    d = Dispatcher()
    d.add(replace(route, handler=lambda ctx, dl: "handled"))
    ctx = SimpleNamespace(settings=chosen, github=port)
    said = d.dispatch(ctx, Delivery("d1", "issue_comment", "edited", payload))
    assert (why in said and said != "handled") if why else said == "handled"


# kills: bot/deletion_events.py:check_rewritten a comment's user no object queued, failing each run
# kills: bot/deletion_events.py:check_edited a rewrite's text no string queued, its words lost
@pytest.mark.parametrize(
    "field, value, said",
    [
        ("id", "11", "comment.id: not a positive integer"),
        ("user", "notes-bot", "comment.user: not an object"),
        # its words are owed back as they are: null would be kept as a debt that reads as
        # a damaged database, and their edit's words never written back
        ("body", None, "comment.body: not a string (NoneType)"),
        ("body", 5, "comment.body: not a string (int)"),
    ],
    ids=["id", "user", "null body", "body no text"],
)
def test_a_rewrite_whose_comment_is_malformed_is_refused_at_intake(
    served,  # noqa: F811
    field,
    value,
    said,
):
    client, rt, fake = served
    payload = edit_event(NOTES, THEIRS)
    payload["comment"][field] = value
    r = post(client, "issue_comment", payload)
    assert r.status_code == 400 and said in r.text
    assert rt.queue.counts()["failed"] == 0


APP = str(DEFAULT_APP_ID)
OUR_APP = {"id": DEFAULT_APP_ID, "slug": "renamed"}


# kills: bot/deletion_events.py:claims_rewrite a rewrite claimed whoever wrote the comment, or
#   not claimed before the bot's login is known (intake) when it may be the bot's
@pytest.mark.parametrize(
    ("author", "kind", "app", "us", "claimed"),
    [
        (BOT, "Bot", None, Us(frozenset({BOT}), APP, known=True), True),
        ("renamed[bot]", "Bot", OUR_APP, Us(frozenset({BOT}), APP, known=True), True),
        ("octo-dev", "User", None, Us(frozenset({BOT}), APP, known=True), False),
        ("other[bot]", "Bot", None, Us(frozenset({BOT}), APP, known=True), False),
        # intake, the login not known: an App's comment is a bot account's
        (BOT, "Bot", None, Us(frozenset(), APP), True),
        ("octo-dev", "User", None, Us(frozenset(), APP), False),
        # a token: its account is a user; known, only its login
        ("octo-dev", "User", None, Us(frozenset(), None, as_user=True), True),
        ("octo-dev", "User", None, Us(frozenset({"me"}), None, as_user=True, known=True), False),
        ("Me", "User", None, Us(frozenset({"me"}), None, as_user=True, known=True), True),
    ],
)
def test_a_rewrite_is_claimed_only_of_a_comment_the_bots_account_may_have_written(
    author, kind, app, us, claimed
):
    payload = edit_event(NOTES, THEIRS)
    payload["comment"].update(user={"login": author, "type": kind}, performed_via_github_app=app)
    assert claims_rewrite(payload, us) is claimed
    assert claims_rewrite(edit_event(NOTES, NOTES + "!"), us) is False  # marker kept


# kills: bot/deletion_events.py:claims_rewrite a rewritten comment's later edit claimed with a
#        token (its owner's own comments, edited into commands, are the commands'), or not
#        claimed of the App's comment
#        (a person's edit of another bot's comment queued while the login is not known, for
#        the run to drop: only one GitHub says the App wrote may be ours)
@pytest.mark.parametrize(
    ("author", "kind", "app", "us", "claimed"),
    [
        (BOT, "Bot", None, Us(frozenset({BOT}), APP, known=True), True),
        ("renamed[bot]", "Bot", None, Us(frozenset({BOT}), APP, known=True), False),
        ("renamed[bot]", "Bot", OUR_APP, Us(frozenset({BOT}), APP, known=True), True),
        # intake, the login not known: the App's comment, as GitHub names its writer
        (BOT, "Bot", OUR_APP, Us(frozenset(), APP), True),
        (BOT, "Bot", None, Us(frozenset(), APP), False),
        ("codecov[bot]", "Bot", {"id": 254, "slug": "codecov"}, Us(frozenset(), APP), False),
        ("octo-dev", "User", None, Us(frozenset({BOT}), APP, known=True), False),
        ("me", "User", None, Us(frozenset({"me"}), None, as_user=True, known=True), False),
        ("me", "User", None, Us(frozenset(), None, as_user=True), False),
    ],
)
def test_a_rewritten_comment_edited_again_is_claimed_only_of_the_apps(
    author, kind, app, us, claimed
):
    payload = edit_event(THEIRS, "Reading list: see the description.")
    payload["comment"].update(user={"login": author, "type": kind}, performed_via_github_app=app)
    assert claims_rewrite(payload, us) is claimed


# kills: bot/deletion_events.py:claims_rewrite a comment's later edit claimed whoever sent it:
#        before the bot's login is known (intake, no REVIEW_NOTES_BOT_LOGIN) any bot's comment
#        may be the App's, so every edit another bot makes of its own comment was queued
def test_another_bots_edit_of_its_own_comment_is_ignored_at_intake(served):  # noqa: F811
    client, rt, fake = served
    codecov = {"login": "codecov[bot]", "type": "Bot"}
    payload = edit_event("Coverage: 81.2%", "Coverage: 81.4%", codecov)
    payload["comment"]["user"] = codecov
    r = post(client, "issue_comment", payload)
    assert r.status_code == 202 and "sent by a bot (codecov[bot])" in r.text
    assert sum(rt.queue.counts().values()) == 0
    # a person's later edit of a comment GitHub says the App wrote is still claimed
    payload = edit_event(THEIRS, "Reading list: see the description.")
    payload["comment"]["performed_via_github_app"] = OUR_APP
    assert claims_rewrite(payload, Us(frozenset(), APP)) is True


# kills: bot/deletion_events.py:claims_rewrite a person's edit of another bot's comment claimed
#        before the bot's login is known (no REVIEW_NOTES_BOT_LOGIN): queued, then dropped
def test_a_persons_edit_of_another_bots_comment_is_ignored_at_intake(served):  # noqa: F811
    client, rt, fake = served
    payload = edit_event("Coverage: 81.2%", "Coverage: 81.4% (re-run)")
    payload["comment"]["user"] = {"login": "codecov[bot]", "type": "Bot"}
    payload["comment"]["performed_via_github_app"] = {"id": 254, "slug": "codecov"}
    r = post(client, "issue_comment", payload)
    assert r.status_code == 202 and r.json() == {"status": "ignored", "reason": "written by a bot"}
    assert sum(rt.queue.counts().values()) == 0


def _rewrite_or_commands() -> tuple[Dispatcher, dict]:
    """The real routes of an edited comment, their handlers saying which ran, and our
    notes comment edited into `/notes why`."""
    real = build_dispatcher()
    d = Dispatcher()
    d.add(replace(real.route("issue_comment", "edited"), handler=lambda ctx, dl: "commands"))
    rewrite = real.route("issue_comment", "edited", edit_event(NOTES, THEIRS))
    d.add(replace(rewrite, handler=lambda ctx, dl: "rewrite"))
    return d, edit_event(NOTES, "/notes why")


# kills: bot/dispatch.py:Dispatcher.dispatch a claimed delivery not routed again once the login
#   is known: a person's edit, taken at intake for a token's, run as a rewrite
@pytest.mark.parametrize(("author", "handled"), [(OWNER, "rewrite"), ("octo-dev", "commands")])
def test_with_a_token_the_run_asks_its_login_and_routes_a_persons_edit_to_the_commands(
    tmp_path, author, handled
):
    d, payload = _rewrite_or_commands()
    payload["comment"]["user"] = {"login": author, "type": "User"}
    settings = make_settings(tmp_path, **TOKEN)
    intake = d.route("issue_comment", "edited", payload, _us(settings, None))
    assert intake is not None and intake.claims is claims_rewrite  # it may be the token's
    port = AppDryRun(Database(tmp_path / "port.sqlite3"))
    port.login = OWNER
    ctx = SimpleNamespace(settings=settings, github=port)
    assert d.dispatch(ctx, Delivery("d1", "issue_comment", "edited", payload)) == handled
    assert port.asked >= 1


# kills: bot/dispatch.py:_us a dry run with a token claiming every rewrite, its login never
#   asked (a dry run has none): a person's edit into a command run as a rewrite, ignored
@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN
def test_a_dry_run_with_a_token_routes_a_persons_edit_to_the_commands(tmp_path, configured):
    """A dry run's comments are not on GitHub, and it asks GitHub nothing: the bot is no
    more than REVIEW_NOTES_BOT_LOGIN says. A person's copy of our text edited into
    `/notes why` runs it (docs/commands.md), as in a live run."""
    d, payload = _rewrite_or_commands()
    payload["comment"]["user"] = {"login": "octo-dev", "type": "User"}
    login = {"bot_login": OWNER} if configured else {}
    settings = make_settings(tmp_path, **TOKEN, dry_run=True, **login)
    port = DryRunGitHub(Database(tmp_path / "port.sqlite3"))
    ctx = SimpleNamespace(settings=settings, github=port)
    assert d.dispatch(ctx, Delivery("d1", "issue_comment", "edited", payload)) == "commands"


# kills: bot/deletion_events.py:handle_rewritten the comment given back not remembered
def test_a_rewritten_comment_our_text_is_pasted_back_onto_is_never_taken_back(served):  # noqa: F811
    """A maintainer rewrites the notes comment (theirs now, forgotten), then pastes our
    notes text back onto it. It is still the App's (a rewrite keeps the author) and opens
    with our marker: a write knowing no comment found it by the marker and took it for
    the notes comment again, editing the comment given to them. The PR's state keeps the
    comments given back, and no write takes one again: the notes go in a new comment."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    notes = c.body
    say(client, rt, fake, "/notes off", login=AUTHOR)
    rewritten(client, rt, fake, c)
    assert state(rt).comment_id is None and state(rt).given_back == (c.id,)
    pasted = f"{notes}\n\n(kept here by hand)"
    sent(client, rt, rewrite(fake, fake.comment(c.id), pasted))
    say_after(client, rt, fake, "/notes on")
    assert fake.comment(c.id).body == pasted  # never edited: theirs
    new = state(rt).comment_id
    assert new is not None and new != c.id and fake.comment(new).body.startswith(MARKER)
    # the PR's next event: two comments of the App's open with our marker, and the oldest
    # (theirs) was the one kept, ours deleted as its copy
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:09Z"))
    assert fake.comment(c.id).body == pasted
    assert state(rt).comment_id == new and fake.comment(new) is not None


# kills: bot/dryrun.py:DryRunGitHub.upsert_sticky a comment given back taken as the notes
def test_the_dry_runs_port_takes_no_comment_given_back_for_the_notes_comment(tmp_path):
    port = DryRunGitHub(Database(tmp_path / "port.sqlite3"))
    pr = PRRef(DEFAULT_REPO, N, INSTALLATION)
    theirs = port.upsert_sticky(pr, f"{MARKER}\nours once", MARKER, create=True).comment_id
    assert theirs is not None
    kept = port.upsert_sticky(pr, f"{MARKER}\nnow", MARKER, create=True, given_back=(theirs,))
    assert kept.outcome is Outcome.CREATED and kept.comment_id != theirs
    bodies = {c["id"]: c["body"] for c in port.comments(DEFAULT_REPO, N)}
    assert bodies == {theirs: f"{MARKER}\nours once", kept.comment_id: f"{MARKER}\nnow"}


def test_a_comment_owed_a_deletion_then_rewritten_and_pasted_back_is_not_deleted(served):  # noqa: F811
    """The deletion kept on a locked conversation owes C (the comment an `on`'s update
    posted, outranked by the deletion). A maintainer (who may edit there) rewrites C into
    their text (theirs now: given back), then pastes our notes text back onto it. At the
    unlock the debt was paid on C as it stood: the App's comment, opening with our
    marker, so it was deleted, a comment given to a person. No comment given back is the
    bot's to delete."""
    client, rt, fake = served
    _, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
    notes = c.body
    fake.lock(DEFAULT_REPO, N)
    swept(rt, fake, attempt)
    assert state(rt).opted_out and state(rt).owed_delete == c.id
    rewritten(client, rt, fake, fake.comment(c.id))
    assert state(rt).given_back == (c.id,)
    pasted = f"{notes}\n\n(kept here by hand)"
    sent(client, rt, rewrite(fake, fake.comment(c.id), pasted))
    fake.clear_requests()
    unlocked(client, rt, fake, "2026-09-01T10:00:06Z")
    assert fake.comment(c.id) is not None and fake.comment(c.id).body == pasted
    assert fake.calls("DELETE", "/repos/*/issues/comments/*") == []  # (none tried)
    assert state(rt).owed_delete is None and state(rt).opted_out


@pytest.mark.parametrize("older", [False, True], ids=["reply newer", "reply older"])
# kills: bot/deletion_events.py:_pasted_on a reply of ours pasted our notes text onto not given back
def test_a_reply_of_ours_a_maintainer_edits_into_our_notes_text_is_never_taken(
    served,  # noqa: F811
    older,
    caplog,
):
    """A maintainer edits a reply of ours (`/notes help`'s) and pastes our notes text onto
    it, marker and all: still the App's comment, it opens with our notes marker now. The
    PR's next write took it for a notes comment of ours: newer than the notes comment, it
    was deleted as a second copy; older (the reply came before any notes), it was kept
    and edited, the maintainer's text gone, and the real notes comment deleted. It is
    theirs now: given back, as a rewritten notes comment is."""
    client, rt, fake = served
    if older:
        fake.pull(DEFAULT_REPO, N).title = "Fix a typo in the README"
        deliver_pr(client, rt, title="Fix a typo in the README", updated_at="2026-09-01T10:00:01Z")
        assert sticky(fake) is None
    else:
        deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    say(client, rt, fake, "/notes help", login=AUTHOR)
    (reply,) = [c for c in ours(fake) if not c.body.startswith(MARKER)]
    if older:
        fake.pull(DEFAULT_REPO, N).title = MATCHING_TITLE
        deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:02Z")
    notes = sticky(fake)
    assert notes is not None and notes.id != reply.id
    pasted = f"{notes.body}\n\n(copied here by hand)"
    caplog.set_level("INFO", logger="review_notes")
    answer = sent(client, rt, rewrite(fake, reply, pasted))
    assert ran(caplog, answer) == (
        "our notes marker pasted on it: theirs, given back;"
        " ignored: no words of a rewrite owed back onto it"
    )
    assert state(rt).given_back == (reply.id,) and state(rt).comment_id == notes.id
    fake.clear_requests()
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:09Z"))
    assert fake.comment(reply.id) is not None and fake.comment(reply.id).body == pasted
    assert fake.comment(notes.id) is not None and state(rt).comment_id == notes.id
    assert fake.calls("DELETE", "/repos/*/issues/comments/*") == []


# kills: bot/deletion_events.py:handle_deleted a comment given back taken for our notes comment
def test_a_comment_given_back_deleted_by_its_maintainer_leaves_the_updates_on(
    served,  # noqa: F811
    caplog,
):
    """A reply of ours a maintainer edited into our notes text is theirs (given back).
    On a PR with no notes comment (nothing matched yet), their deletion of it was GitHub's
    word that our notes comment was deleted: it opens with our marker, our account wrote
    it, and no other is known. The updates went off, and the PR, once it matched, got no
    notes comment. A comment given back is none of ours: its deletion changes nothing."""
    client, rt, fake = served
    fake.pull(DEFAULT_REPO, N).title = "Fix a typo in the README"
    deliver_pr(client, rt, title="Fix a typo in the README", updated_at="2026-09-01T10:00:01Z")
    say(client, rt, fake, "/notes help", login=AUTHOR)
    (reply,) = ours(fake)
    sent(client, rt, rewrite(fake, reply, f"{MARKER}\nsee the notes page"))
    assert state(rt).given_back == (reply.id,) and state(rt).comment_id is None
    caplog.set_level("INFO", logger="review_notes")
    answer = deleted(client, rt, fake, fake.comment(reply.id))
    assert deletion_ran(caplog, answer) == (
        "ignored: a comment of ours given back to a person, not our notes comment"
    )
    assert not state(rt).opted_out and state(rt).given_back == ()  # (gone: no longer kept)
    fake.pull(DEFAULT_REPO, N).title = MATCHING_TITLE
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:09Z")
    assert sticky(fake) is not None


# kills: bot/deletion_events.py:handle_given_back_gone a deleted comment kept as given back
# kills: bot/deletion_events.py:claims_given_back_gone its deletion ignored at intake
@pytest.mark.parametrize("pasted", [False, True])
def test_a_comment_given_back_and_deleted_is_no_longer_kept_as_given_back(
    served,  # noqa: F811
    caplog,
    pasted,
):
    """The list of comments given back grows by one at each rewrite. A comment deleted
    can never be taken back (no write finds it), so its deletion drops it from the list,
    whether it shows their words or our text pasted back; the other comments stay."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    notes = c.body
    say(client, rt, fake, "/notes off", login=AUTHOR)
    rewritten(client, rt, fake, c)
    other = 987654  # (an earlier comment given back, still up)
    rt.ctx.prs.update(DEFAULT_REPO, N, given_back=(other, c.id))
    if pasted:
        sent(client, rt, rewrite(fake, fake.comment(c.id), f"{notes}\n\n(kept by hand)"))
    answer = deletion_deleted(client, rt, fake, fake.comment(c.id))
    assert answer["status"] == "queued", answer
    assert state(rt).given_back == (other,)
    if not pasted:  # (pasted: a notes comment's deletion, as any)
        assert deletion_ran(caplog, answer) == (
            f"comment {c.id}, given back to a person, deleted: no longer kept as given back"
        )
    # the comment still up stays given back; another comment's deletion changes nothing
    stranger = fake.add_comment(DEFAULT_REPO, N, "not given back", login=BOT, bot=True)
    answer = deletion_deleted(client, rt, fake, stranger)
    assert deletion_ran(caplog, answer) == "ignored: not a comment given back to a person"
    assert state(rt).given_back == (other,)


# kills: bot/deletion_events.py:claims_given_back_gone a reply's key kept: its deletion ignored
def test_a_reply_given_back_and_edited_to_keep_only_its_key_is_trimmed_when_deleted(
    served,  # noqa: F811
    caplog,
):
    """A reply of ours a maintainer pasted our notes text onto is given back. Edited again
    to drop our marker but keep the reply's last line (its key), its deletion was taken
    for a reply's at intake ("not a notes comment") and its id stayed on the list for
    good. The list is trimmed by the comment's id, whatever its text shows."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    say(client, rt, fake, "/notes help", login=AUTHOR)
    (reply,) = [c for c in ours(fake) if not c.body.startswith(MARKER)]
    key = reply.body.rstrip().rsplit("\n", 1)[-1]
    sent(client, rt, rewrite(fake, reply, f"{sticky(fake).body}\n\n{key}"))
    assert state(rt).given_back == (reply.id,)
    sent(client, rt, rewrite(fake, fake.comment(reply.id), f"my own words\n\n{key}"))
    assert state(rt).given_back == (reply.id,)
    answer = deletion_deleted(client, rt, fake, fake.comment(reply.id))
    assert answer["status"] == "queued", answer
    assert deletion_ran(caplog, answer) == (
        f"comment {reply.id}, given back to a person, deleted: no longer kept as given back"
    )
    assert state(rt).given_back == ()


# kills: bot/deletion_events.py:handle_rewritten a comment given back, its pasted marker taken
#        off, taken for a rewrite of a second notes comment, or of ours (counted again)
@pytest.mark.parametrize("kind", ["a reply", "the notes comment"])
def test_a_comment_given_back_whose_pasted_marker_is_taken_off_again_is_said_so(
    served,  # noqa: F811
    caplog,
    kind,
):
    """A comment given back (a reply of ours, or the notes comment a maintainer rewrote)
    onto which they pasted our notes text, edited again to take it off: their own text on
    their own comment. Its event was taken for a rewrite of a notes comment of ours: with
    the notes comment kept, ignored as "a second notes comment of ours", which it is not;
    with none kept, counted as a deletion of ours once more (the updates' switch dated
    anew, so an `on` said between the two edits lost to it). It changes nothing, and its
    log line says whose comment it is."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    notes = sticky(fake)
    text = notes.body
    if kind == "a reply":
        say(client, rt, fake, "/notes help", login=AUTHOR)
        (theirs,) = [c for c in ours(fake) if not c.body.startswith(MARKER)]
    else:
        theirs = notes
        sent(client, rt, rewrite(fake, notes, ago=3))
    pasted = f"{text}\n\n(kept here by hand)"
    sent(client, rt, rewrite(fake, fake.comment(theirs.id), pasted, ago=2))
    assert state(rt).given_back == (theirs.id,)
    before = state(rt)
    fake.clear_requests()
    answer = sent(client, rt, rewrite(fake, fake.comment(theirs.id), "my own words again"))
    assert ran(caplog, answer) == (
        "a comment of ours given back to a person, our notes marker taken off it again:"
        " theirs, not our notes comment; ignored: no words of a rewrite owed back onto it"
    )
    assert state(rt) == before and fake.comment(theirs.id).body == "my own words again"
    assert [r for r in fake.calls(path="/repos/*") if r.method != "GET"] == []


def _two_rewrites_under_our_late_edit(client, rt, fake) -> tuple[object, list[dict]]:
    """The notes comment posted, then rewritten twice by a maintainer (THEIRS, then AGAIN)
    while our edit of it was in flight, landing over both: the comment, and the two
    rewrites' `edited` events, not yet sent."""
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    made: list[dict] = []

    def twice() -> None:
        made.append(rewrite(fake, c, THEIRS, ago=2))
        made.append(rewrite(fake, fake.comment(c.id), AGAIN, ago=1))

    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", Fault.landed_after(twice))
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    return c, made


# kills: bot/write_backs.py:write_back_owed the words written back forgotten at once: a later
#        edit our late edit wrote over is ignored
# kills: bot/write_backs.py:edited_again their newest words not written over those we wrote
def test_a_second_edit_our_late_edit_wrote_over_gets_its_words_back_not_the_first(
    served,  # noqa: F811
    caplog,
):
    """The race, twice: a maintainer rewrites the notes comment, then edits their text
    again (a typo fixed), both before our edit in flight lands. The rewrite's event
    writes back its words (their first), and forgot them: their second edit's event found
    nothing owed and was ignored, their first words shown for good. Now the words the bot
    wrote are kept until its next write of the notes comment, and an edit of theirs made
    after them is written over them, once; their own later edit is never written over."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _two_rewrites_under_our_late_edit(client, rt, fake)
    assert fake.comment(c.id).body.startswith(MARKER)  # ours wrote over both
    sent(client, rt, made[0])
    assert fake.comment(c.id).body == THEIRS
    assert state(rt).write_back.history.over == THEIRS  # what we wrote, known
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their newest words written back over those we wrote back"
    assert fake.comment(c.id).body == AGAIN and state(rt).write_back.history.over == AGAIN
    # their own edit since is never written over: its event finds it shown
    third = "Reading list: in the description."
    patches = len(fake.calls("PATCH"))
    answer = sent(client, rt, rewrite(fake, fake.comment(c.id), third))
    assert ran(caplog, answer) == "their text shows: nothing written back"
    assert fake.comment(c.id).body == third and len(fake.calls("PATCH")) == patches
    # the next write of the notes comment forgets the words: theirs stand
    say_after(client, rt, fake, "/notes on")
    assert state(rt).write_back is None and fake.comment(c.id).body == third


# kills: bot/github_client.py:GitHubClient.restore_text a write-back whose answer a 401
#        lost taken for their own words shown: what we wrote unknown, their second edit
#        only owed
def test_a_write_back_whose_answer_was_lost_still_lets_their_second_edit_be_written_back(
    served,  # noqa: F811
    caplog,
):
    """The race of the test above, the rewrite's write-back landing with GitHub's answer
    a 401 (a token revoked as it landed): the call, run again with a new token, found
    their first words shown and said nothing was written. The words we wrote were not
    kept, and their second edit, under our late edit, was only owed until some next
    write of ours, perhaps never. The run that sent the write knows it is ours."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _two_rewrites_under_our_late_edit(client, rt, fake)
    lost = replace(Fault.bad_credentials(), apply=True)  # landed, its answer a 401
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", lost)
    sent(client, rt, made[0])
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back.history.over == THEIRS
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their newest words written back over those we wrote back"
    assert fake.comment(c.id).body == AGAIN


REVERTED_FROM = "Reading list: moved (draft)."


@pytest.mark.parametrize("late", [False, True], ids=["next write", "edit's event run late"])
def test_a_maintainer_who_puts_back_the_words_we_wrote_back_is_never_written_over(
    served,  # noqa: F811
    caplog,
    late,
):
    """The race, once more: our late edit lands over a maintainer's rewrite and the bot
    writes their words back. They edit them, then put back exactly those words (an
    undo). The words we wrote were kept as ours until our next write (`WriteBack.over`),
    so a comment showing them was taken for ours: that next write (or their first
    edit's event, run after the undo) wrote the older words of their first edit over
    their undo. What shows after a person's edit is theirs, whatever its text."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    made: list[dict] = []
    their_edit_first = Fault.landed_after(lambda: made.append(rewrite(fake, c, THEIRS, ago=2)))
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", their_edit_first)
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:05Z"))
    sent(client, rt, made[0])
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back.history.over == THEIRS
    edit = rewrite(fake, fake.comment(c.id), REVERTED_FROM, ago=-1)
    if not late:
        sent(client, rt, edit)
    undo = rewrite(fake, fake.comment(c.id), THEIRS, ago=-2)  # (a second after)
    if late:
        sent(client, rt, edit)
    else:
        say_after(client, rt, fake, "/notes on")
    assert fake.comment(c.id).body == THEIRS
    sent(client, rt, undo)
    say_after(client, rt, fake, "/notes on")
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back is None


def _a_write_back_landed_its_answers_5xx(client, rt, fake) -> tuple[object, list[dict]]:
    """The race of `_two_rewrites_under_our_late_edit`, the rewrite's event sent: its
    write-back lands on GitHub, whose every answer to it is a 502 (the delivery failed,
    for a retry). The comment, and the two rewrites' events."""
    c, made = _two_rewrites_under_our_late_edit(client, rt, fake)
    landed = Fault.error(502, apply=True)
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[landed] * 20)
    sent(client, rt, made[0])
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 1 and fake.comment(c.id).body == THEIRS
    return c, made


def _a_write_back_carried_out_by_no_try(client, rt, fake) -> tuple[object, list[dict]]:
    """The race of `_two_rewrites_under_our_late_edit`, the rewrite's event sent: GitHub
    answers every try of its write-back 502 and carries out none. Our text shows, the
    words sent kept as tried. The comment, and the two rewrites' events."""
    c, made = _two_rewrites_under_our_late_edit(client, rt, fake)
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[Fault.error(502)] * 20)
    sent(client, rt, made[0])
    fake.clear_faults()
    assert (
        fake.comment(c.id).body.startswith(MARKER) and state(rt).write_back.history.tried == THEIRS
    )
    return c, made


def _retried(rt) -> None:
    assert rt.queue.retry() != []
    drain(rt)


# kills: bot/write_backs.py:write_back_owed a write-back whose answers were lost not kept
#        as tried: its retry finds their words shown and says nothing was written
# kills: bot/github_client.py:GitHubClient.restore_text the words a failed call sent not
#        taken for ours when shown
# kills: bot/write_backs.py:edited_again their newest words only owed over words we tried
@pytest.mark.parametrize("retry_first", [True, False], ids=["retry first", "edit's event first"])
def test_a_write_back_landed_under_5xx_answers_still_lets_their_second_edit_be_written_back(
    served,  # noqa: F811
    caplog,
    retry_first,
):
    """The race of the tests above, the rewrite's write-back landing while GitHub answers
    every try of it with a 502: the delivery's retry found their first words shown, and
    (not having sent them in that call) said nothing was written; their second edit,
    under our late edit, was only owed until some next write of ours, perhaps never.
    Now the failed call keeps what it sent, and when: shown no later, they are ours."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _a_write_back_landed_its_answers_5xx(client, rt, fake)
    if retry_first:
        _retried(rt)
        assert (
            state(rt).write_back.history.over == THEIRS
            and state(rt).write_back.history.tried is None
        )
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their newest words written back over those we wrote back"
    assert fake.comment(c.id).body == AGAIN
    if not retry_first:
        _retried(rt)  # finds their newest words shown: nothing written over them
        assert fake.comment(c.id).body == AGAIN
    say_after(client, rt, fake, "/notes on")
    assert state(rt).write_back is None and fake.comment(c.id).body == AGAIN


# kills: bot/github_client.py:GitHubClient.restore_text the words a failed write-back sent
#        taken for ours whenever shown: a person's own paste of them written over
def test_their_words_pasted_back_after_our_failed_write_back_gave_up_are_never_written_over(
    served,  # noqa: F811
    caplog,
):
    """The race of the test above, GitHub carrying out none of the write-back's tries:
    our text shows. The maintainer pastes their first words back themselves, after our
    call gave up (past the clocks' slack). The words it sent show, edited later than it
    could have landed them: a person's choice, which their second edit's event (run
    late) never writes over."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _a_write_back_carried_out_by_no_try(client, rt, fake)
    pasted = rewrite(fake, fake.comment(c.id), THEIRS, ago=-(CLOCK_SLACK.total_seconds() + 2))
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their text shows: nothing written back"
    assert fake.comment(c.id).body == THEIRS
    sent(client, rt, pasted)
    assert fake.comment(c.id).body == THEIRS
    _retried(rt)
    assert fake.comment(c.id).body == THEIRS


# GitHub's clock ahead of ours by less than the slack, or behind ours (by less than a
# minute: further, GitHub refuses the App's token, issued in its future): the landed
# write-back is dated no later than our call gave up, give or take the slack
_WITHIN_SLACK = [CLOCK_SLACK.total_seconds() - 20, -50]


# kills: bot/github_client.py:_landed_by the clocks' slack left out: a write-back landed
#        under 5xx answers, dated by GitHub's clock a little ahead of ours, not ours
@pytest.mark.parametrize("github_off", _WITHIN_SLACK, ids=["github ahead", "github behind"])
def test_a_write_back_landed_under_5xx_answers_is_ours_with_the_clocks_off_within_the_slack(
    served,  # noqa: F811
    caplog,
    github_off,
):
    """The race of the tests above, GitHub's clock off ours: it dates the write-back it
    carried out by its own clock. Ahead of ours by less than the slack, or behind ours,
    the words shown are still told for those our failed call sent."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    fake.clock_offset = github_off
    c, made = _a_write_back_landed_its_answers_5xx(client, rt, fake)
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their newest words written back over those we wrote back"
    assert fake.comment(c.id).body == AGAIN


# kills: tests/fake_github.py:FakeGitHub._edit_comment GitHub's dates of edits by this host's clock,
#        not its own (`clock_offset`): the window of the slack never tested against it
# kills: bot/write_backs.py:edited_again the log saying their newest words show where their
#        first ones do
def test_a_write_back_landed_under_5xx_answers_is_not_ours_when_github_dates_it_past_the_slack(
    served,  # noqa: F811
    caplog,
):
    """GitHub's clock ahead of ours by more than the slack: the write-back it carried out
    is dated later than our call gave up, past the slack, as a person's paste of those
    words would be. The safe side: taken for theirs, never written over (their second
    edit's words stay owed, not written: the limit of a clock that far off)."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    fake.clock_offset = CLOCK_SLACK.total_seconds() + 60
    c, made = _a_write_back_landed_its_answers_5xx(client, rt, fake)
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their text shows: nothing written back"
    assert fake.comment(c.id).body == THEIRS
    _retried(rt)
    assert fake.comment(c.id).body == THEIRS


# kills: bot/github_client.py:GitHubClient.restore_text the words we wrote over their paste
#        (taken for those our failed call sent) not written over by the paste's own event
def test_their_paste_within_the_slack_written_over_is_written_back_by_its_own_event(
    served,  # noqa: F811
    caplog,
):
    """The limit of the window: the maintainer pastes their first words back within the
    slack after our failed write-back gave up. Taken for the words it sent, landed, their
    second edit's event (run first) writes its words over them. Their paste's own event
    then writes the paste back over ours: what they chose last shows."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _a_write_back_carried_out_by_no_try(client, rt, fake)
    pasted = rewrite(fake, fake.comment(c.id), THEIRS, ago=-10)
    answer = sent(client, rt, made[1])
    assert ran(caplog, answer) == "their newest words written back over those we wrote back"
    assert fake.comment(c.id).body == AGAIN
    sent(client, rt, pasted)
    assert fake.comment(c.id).body == THEIRS
    _retried(rt)
    assert fake.comment(c.id).body == THEIRS


# kills: bot/write_backs.py:_restore a second failed write-back's words kept in place of the
#        first's: the first, landed, no longer told for ours, their newest words never written
def test_a_second_write_back_failing_keeps_the_first_landed_one_ours(
    served,  # noqa: F811
    caplog,
):
    """The race of the tests above: the rewrite's write-back of their first words lands
    under 502s; their second edit's event writes its words over them and fails too, its
    PATCH not carried out. Their first words show. Kept only the second call's words, a
    look found the first's words shown, sent by no try it knew: theirs, nothing written,
    their newest words owed for good. Every failed call's words are kept, each with its
    own window: a later look writes their newest words back."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _a_write_back_landed_its_answers_5xx(client, rt, fake)
    fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[Fault.error(502)] * 20)
    sent(client, rt, made[1])
    fake.clear_faults()
    assert rt.queue.counts()["failed"] == 2 and fake.comment(c.id).body == THEIRS
    assert state(rt).write_back.text == AGAIN and state(rt).write_back.history.tried == AGAIN
    _retried(rt)
    assert fake.comment(c.id).body == AGAIN and rt.queue.counts()["failed"] == 0
    say_after(client, rt, fake, "/notes on")
    assert state(rt).write_back is None and fake.comment(c.id).body == AGAIN


# kills: bot/write_backs.py:edited_again the log saying their text shows where the comment is
#        gone, or where the PR's state keeps it as the notes comment (nothing asked)
def test_a_second_edit_whose_comment_is_gone_says_so_not_their_text(
    served,  # noqa: F811
    caplog,
):
    """The race of the tests above: the rewrite's event wrote their first words back;
    the maintainer's second edit's event runs after the comment was deleted (its
    deletion's event still to come). Its log line says the comment is gone, not that
    their text shows; nothing is written."""
    client, rt, fake = served
    caplog.set_level("INFO", logger="review_notes")
    c, made = _two_rewrites_under_our_late_edit(client, rt, fake)
    sent(client, rt, made[0])
    assert fake.comment(c.id).body == THEIRS and state(rt).write_back.history.over == THEIRS
    patches = len(fake.calls("PATCH"))
    fake.inject("GET", f"/repos/*/issues/comments/{c.id}", Fault.not_found())  # deleted
    answer = sent(client, rt, made[1])
    assert fake.pending_faults() == 0  # the write-back's look met the deletion
    assert ran(caplog, answer) == "the comment is gone: nothing written back"
    assert len(fake.calls("PATCH")) == patches
    # owed onto the comment the PR's state keeps (a rollback's write took it back): the
    # port is not asked, and the line says why nothing was written
    ref = PRRef(DEFAULT_REPO, N, INSTALLATION)
    rt.ctx.prs.update(DEFAULT_REPO, N, comment_id=c.id)
    done = edited_again(rt.ctx, ref, c.id, "Their third words.", None)
    assert done == "the PR's state keeps it as the notes comment: nothing written back"
    assert len(fake.calls("PATCH")) == patches

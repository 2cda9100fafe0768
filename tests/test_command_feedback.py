"""Slash commands end to end, `/notes wrong` and `/notes restore` (bot.command_feedback):
the note a number means, the note hidden and its mark kept, `restore`, and each applied
in the order said on GitHub whatever order it runs in. The pure parts:
tests/test_feedback.py.

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

import pytest

from bot.commands import CommandConfig, parse_commands
from bot.times import utcnow
from tests.command_kit import (
    AUTHOR,
    N,
    as_rendered,
    comment_payload,
    content_writes,
    deliver_said_at,
    deliver_without_its_time,
    edit,
    github_time_ago,
    reactions,
    replies,
    retried_for_its_thumb,
    said_and_left_without_its_thumb,
    say,
    state,
    sticky,
    tune,
)
from tests.fake_github import DEFAULT_REPO, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    drain,
    ours,
    post,
    pr_payload,
    title_with_one_more_note,
    wait_until,
)

# --- reviewers' verdicts: `wrong` and `restore` ------------------------------------------


def test_wrong_hides_the_note_keeps_the_mark_and_restore_brings_it_back(live):
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=title_with_one_more_note(), author=AUTHOR
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    shown = state(rt).notes
    assert len(shown) >= 2
    second = rt.ctx.library.by_id[shown[1]]
    evidence = state(rt).evidence[shown[1]]
    assert f"full guidance (Chinese)]({rt.ctx.links.url(second)})" in sticky(fake).body

    c = say(client, rt, fake, "/notes wrong 2 the proxy is not the connector", login=AUTHOR)
    body = sticky(fake).body
    assert rt.ctx.links.url(second) not in body and "marked not relevant here" in body
    assert state(rt).notes == (shown[0], *shown[2:]) and state(rt).dismissed == (shown[1],)
    assert reactions(fake, c) == {"eyes", "+1"} and replies(fake) == []
    (kept,) = rt.ctx.feedback.marks()
    assert (kept.note_id, kept.rank, kept.login) == (shown[1], 2, AUTHOR)
    assert kept.reason == "the proxy is not the connector" and kept.evidence == evidence
    metric = f'review_notes_marked_not_relevant_total{{note="{shown[1]}"}} 1.0'
    assert metric in rt.ctx.metrics.render().decode()

    # a push keeps it hidden; restore shows it again and takes the mark back
    payload = pr_payload(action="synchronize", title=title_with_one_more_note(), head_sha="d" * 40)
    post(client, "pull_request", payload)
    drain(rt)
    assert rt.ctx.links.url(second) not in sticky(fake).body
    say(client, rt, fake, "/notes restore", login=AUTHOR)
    assert rt.ctx.links.url(second) in sticky(fake).body
    assert "marked not relevant" not in sticky(fake).body
    assert rt.ctx.feedback.marks() == [] and state(rt).dismissed == ()
    assert len(ours(fake)) == 1  # one comment throughout


def test_wrong_by_someone_without_write_access_changes_nothing(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    before = sticky(fake).body
    c = say(client, rt, fake, "/notes wrong 1", login="passer-by")
    assert reactions(fake, c) == {"confused"}
    assert "`/notes wrong`; nothing was changed" in replies(fake)[-1].body
    assert sticky(fake).body == before and rt.ctx.feedback.marks() == []
    assert state(rt).dismissed == ()


@pytest.mark.parametrize(
    ("line", "answer"),
    [
        ("/notes wrong 7", "There is no note `7` in the notes comment: it shows notes 1 "),
        ("/notes wrong", "Say which note does not fit, by its number in the notes comment (1 "),
        ("/notes wrong vllm-17f5148d", "The notes comment does not show `vllm-17f5148d`"),
        ("/notes wrong ①", "Say which note does not fit"),  # a digit to str, not to int()
    ],
)
def test_wrong_naming_no_shown_note_is_answered_and_hides_nothing(live, line, answer):
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=title_with_one_more_note(), author=AUTHOR
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    assert "vllm-17f5148d" not in state(rt).notes
    before = sticky(fake).body
    c = say(client, rt, fake, line, login=AUTHOR)
    (reply,) = replies(fake)
    assert answer in reply.body and "nothing was hidden" in reply.body
    assert parse_commands(reply.body) == []
    assert reactions(fake, c) == {"eyes", "confused"}
    assert sticky(fake).body == before and rt.ctx.feedback.marks() == []


def test_wrong_with_no_notes_comment_says_there_is_none(live):
    # the reply described "the notes comment" on a PR where the bot wrote none
    client, rt, fake = live
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert sticky(fake) is None
    (reply,) = replies(fake)
    assert "There is no notes comment on this pull request; nothing was hidden." in reply.body


# kills: bot/wrong_reading.py:pick_note (hand) with one note shown, `2,3` or `第2、3条` hid it with
#   the list of numbers for its reason
@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("3", "`3`"),
        ("2,3", "`2,3`"),
        ("第2、3条", "2 (`第2、3条`)"),
        ("2，3 只是改名", "`2，3`"),
        ("2,3，只是改名", "`2,3`"),  # a reason glued on is not quoted, as after `9，`
        ("(2,3)只是改名", "`2,3`"),
        ("2nd", "2 (`2nd`)"),
        ("second", "2 (`second`)"),
    ],
)
def test_wrong_with_one_note_shown_names_only_that_one(live, said, asked):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    assert len(state(rt).notes) == 1
    before = sticky(fake).body
    c = say(client, rt, fake, f"/notes wrong {said}", login=AUTHOR)
    (reply,) = replies(fake)
    assert f"There is no note {asked} in the notes comment" in reply.body, reply.body
    assert "it shows only note 1 (say `/notes wrong 1`)" in reply.body  # not "notes 1"
    assert "nothing was hidden" in reply.body and reactions(fake, c) == {"eyes", "confused"}
    assert sticky(fake).body == before and rt.ctx.feedback.marks() == []


# kills: bot/wrong_reading.py:pick_note (hand) a note's id in quotes or inline code read as the
#   reviewer's words: with one note shown, naming another note hid the one shown
@pytest.mark.parametrize("typed", ['"{}"', "「{}」只是改名", "`{}`"])
def test_wrong_with_one_note_shown_and_another_named_in_quotes_hides_nothing(live, typed):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    (shown,) = state(rt).notes
    other = next(i for i in rt.ctx.library.by_id if i != shown)
    before = sticky(fake).body
    c = say(client, rt, fake, f"/notes wrong {typed.format(other)}", login=AUTHOR)
    (reply,) = replies(fake)
    assert f"The notes comment does not show `{other}`" in reply.body, reply.body
    assert "nothing was hidden" in reply.body and reactions(fake, c) == {"eyes", "confused"}
    assert sticky(fake).body == before and rt.ctx.feedback.marks() == []
    # the one shown, named so, is hidden, with the words glued on for its reason
    say(client, rt, fake, f"/notes wrong {typed.format(shown)}", login=AUTHOR)
    (mark,) = rt.ctx.feedback.marks()
    assert (mark.note_id, mark.reason) == (shown, "只是改名" if "只是改名" in typed else "")
    assert state(rt).dismissed == (shown,) and len(replies(fake)) == 1


# kills: bot/wrong_reading.py:as_said (hand) a list keyed with the words after it, which its
#   answer does not read: an edit adding a reason got the same answer in a second reply
def test_an_edit_adding_a_reason_to_a_list_gets_no_second_reply(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = say(client, rt, fake, "/notes wrong 2,3", login=AUTHOR)
    (reply,) = replies(fake)
    assert "There is no note `2,3` in the notes comment" in reply.body
    fake.clear_requests()
    edit(client, rt, fake, c, "/notes wrong 2,3 only renames")
    assert replies(fake) == [reply] and content_writes(fake) == []
    assert rt.ctx.feedback.marks() == [] and state(rt).dismissed == ()


# kills: bot/wrong_reading.py:_ordinal (hand) English's `2nd` and `second` not read: answered
#   "Say which note does not fit" to a reviewer who had said which, and with one note shown
#   (above) they hid note 1 with the reason `2nd`; and so `the second one` (`_ORDINAL`'s `the`)
# (the word set off from the reason: `second only renames` may be the reason's own words,
# as `second half is docs` is, tests/test_feedback.py)
@pytest.mark.parametrize(
    "said", ["2nd", "second —", "2nd note", "Second,", "second one", "the second one"]
)
def test_wrong_naming_the_note_as_english_counts_it_hides_that_note(live, said):
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=title_with_one_more_note(), author=AUTHOR
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    shown = state(rt).notes
    assert len(shown) == 2
    c = say(client, rt, fake, f"/notes wrong {said} only renames", login=AUTHOR)
    assert replies(fake) == [] and reactions(fake, c) == {"eyes", "+1"}
    assert state(rt).dismissed == (shown[1],)
    (mark,) = rt.ctx.feedback.marks()
    assert (mark.note_id, mark.rank, mark.reason) == (shown[1], 2, "only renames")


@pytest.mark.parametrize("before", ["/notes off", "/notes restore"])
def test_restore_with_nothing_hidden_writes_nothing_but_its_reactions(live, before):
    # a command that changes nothing is answered as `off` when already off is: 👀 and 👍,
    # no reply and no edit of the notes comment (nothing in it would change)
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    if before == "/notes off":  # the state `off` answers so
        say(client, rt, fake, before, login=AUTHOR)
        line = before
    else:
        line = "/notes restore"
    body = sticky(fake).body
    fake.clear_requests()
    c = say(client, rt, fake, line, login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"} and replies(fake) == []
    assert sticky(fake).body == body
    assert (
        content_writes(fake) == [f"POST /repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"] * 2
    )


def test_when_every_note_is_marked_the_comment_stays_and_says_so(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    shown = state(rt).notes
    lines = "\n".join(f"/notes wrong {i}" for i in range(1, len(shown) + 1))
    say(client, rt, fake, lines, login=AUTHOR)  # numbers as the reader saw the comment
    assert "No review note is left to show on this pull request" in sticky(fake).body
    assert {m.note_id for m in rt.ctx.feedback.marks()} == set(shown)


def test_restore_on_a_paused_pr_shows_the_notes_again(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = rt.ctx.library.by_id[state(rt).notes[0]]
    say(client, rt, fake, "/notes off", login=AUTHOR)
    say(client, rt, fake, "/notes", login=AUTHOR)  # shown once while paused
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert rt.ctx.links.url(first) not in sticky(fake).body
    say(client, rt, fake, "/notes restore", login=AUTHOR)
    body = sticky(fake).body
    assert rt.ctx.links.url(first) in body and "Automatic updates are paused" in body
    assert state(rt).opted_out  # restore shows the notes; it does not resume the updates


def _two_notes_shown(client, rt, fake) -> str:
    """The author's PR, whose title matches two notes, and its notes comment: the title."""
    title = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", title=title)
    return title


def test_wrong_run_again_means_the_note_it_meant_the_first_time(live):
    # An edit that adds a reason re-runs `wrong 1`, and so does a delivery resumed after
    # a crash; by then the comment is renumbered, but the command still means its note.
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    shown = state(rt).notes
    assert len(shown) >= 2
    c = say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)
    assert state(rt).dismissed == (shown[0],)

    edit(client, rt, fake, c, "/notes wrong 1 the proxy is not the connector")
    assert state(rt).dismissed == (shown[0],)
    (kept,) = rt.ctx.feedback.marks()
    assert (kept.note_id, kept.reason) == (shown[0], "the proxy is not the connector")
    edit(client, rt, fake, c, "/notes wrong 1")  # words taken out: the reason given stays
    (kept,) = rt.ctx.feedback.marks()
    assert kept.reason == "the proxy is not the connector"
    # a number past the end is told against the numbering the comment was read with
    edit(client, rt, fake, c, f"/notes wrong {len(shown) + 1}")
    numbers = "1 and 2" if len(shown) == 2 else f"1 to {len(shown)}"
    assert f"it shows notes {numbers} " in replies(fake)[-1].body
    assert len(state(rt).notes) != len(shown)  # not the comment as it is now

    (row,) = rt.queue.db.execute(
        "SELECT id FROM deliveries WHERE event = 'issue_comment' ORDER BY seq DESC LIMIT 1"
    )
    rt.queue.db.execute("UPDATE deliveries SET state = 'processing' WHERE id = ?", (row["id"],))
    assert rt.queue.recover().resumed == 1
    drain(rt)
    assert state(rt).dismissed == (shown[0],)

    # a new comment reads the comment as it is now: its note 1 is the former note 2
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)
    assert state(rt).dismissed == (shown[0], shown[1])


# A retry for a missing 👍 ran every command of the comment again
# docs/commands.md: a 👍 GitHub refused fails the delivery and `review-notes retry` adds it; "the
# retry redoes nothing else". The retry ran the comment's commands again: an old `/notes
# wrong 1` hid again the note a later `/notes restore` showed (and its mark, taken back,
# stood again in the curators' report); an old `/notes why` put why mode back after a
# later plain `/notes`. Only `off`/`on` were held to what was said after them.


def test_a_retried_wrong_does_not_hide_again_the_note_restore_showed_since(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes wrong 1")
    assert state(rt).dismissed != ()
    say(client, rt, fake, "/notes restore", login=AUTHOR)
    restored = sticky(fake).body
    assert state(rt).dismissed == () and rt.ctx.feedback.marks() == []

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).dismissed == () and rt.ctx.feedback.marks() == []
    assert sticky(fake).body == restored


def test_a_retried_restore_does_not_take_back_a_later_wrong(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes restore")
    say(client, rt, fake, "/notes wrong 1 not this one", login=AUTHOR)
    hidden = state(rt).dismissed
    assert hidden != ()

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).dismissed == hidden
    assert [m.reason for m in rt.ctx.feedback.marks()] == ["not this one"]


def test_wrong_then_restore_in_one_comment_run_again_redoes_neither(live):
    # the two are ordered by their place in the comment: the retry finds both done
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes wrong 1\n/notes restore")
    assert state(rt).dismissed == ()
    assert len(rt.ctx.feedback.marks(withdrawn=True)) == 1

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).dismissed == () and rt.ctx.feedback.marks() == []
    assert len(rt.ctx.feedback.marks(withdrawn=True)) == 1  # no second mark made and taken back


def test_a_wrong_whose_reply_failed_is_done_by_its_retry_after_a_later_wrong(live):
    # a run that stopped before its `wrong` (GitHub refused the reply before it): the
    # retry still hides the note, though a later `wrong` changed the notes hidden since
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    first, second = state(rt).notes[:2]
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    c = say(client, rt, fake, "/notes topic rocm\n/notes wrong 1", login=AUTHOR, title=title)
    assert rt.queue.counts()["failed"] == 1 and state(rt).dismissed == ()
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR, title=title)
    assert state(rt).dismissed == (second,)

    retried_for_its_thumb(rt, fake, c)
    assert set(state(rt).dismissed) == {first, second}


# Two people mark the same note in one flood-control window (the comment still shows it to
# both): the second's `record` found the standing mark, and `set_reason` overwrote its
# reason, so the curators' report (`review-notes notes feedback`) said the author wrote
# the maintainer's words. The first mark stands, with its author's words.


def test_a_second_reviewers_reason_is_not_put_in_the_first_reviewers_mouth(live):
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    first = state(rt).notes[0]
    # from now on the notes comment is updated at most once an hour: both marks below
    # fall in the window the `/notes` above opened, and both read the comment as posted
    tune(rt, CommandConfig(min_update_interval_s=3600))
    done = rt.queue.counts()["done"]
    say(client, rt, fake, "/notes", title=title, wait=False)  # opens the window
    for login, words in ((AUTHOR, "only renames the flag"), ("maintainer", "wrong subsystem")):
        c = fake.add_comment(DEFAULT_REPO, N, f"/notes wrong 1 {words}", login=login)
        assert post(client, "issue_comment", comment_payload(c, title=title)).status_code == 202
    wait_until(
        lambda: rt.queue.counts()["done"] >= done + 3 and rt.queue.counts()["processing"] == 0,
        what="the three comments",
    )
    marks = rt.ctx.feedback.marks()
    assert {m.note_id for m in marks} == {first}
    said = {AUTHOR: "only renames the flag", "maintainer": "wrong subsystem"}
    assert all(m.reason == said[m.login] for m in marks), [(m.login, m.reason) for m in marks]


# --- `wrong` and `restore` handled out of order ---


# kills: bot/command_feedback.py:take_feedback a late `wrong` records its own older key as the
#        newest
def test_a_restore_said_between_two_wrongs_run_late_does_not_take_back_the_newer_wrong(live):
    # Said in this order: wrong (A), restore (C), wrong (B); handled B, A, C. The restore
    # came before B: it must not show B's note again, whatever order A ran in.
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=title_with_one_more_note(), author=AUTHOR
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    assert len(state(rt).notes) >= 2
    first = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 1", login=AUTHOR)
    restore = fake.add_comment(DEFAULT_REPO, N, "/notes restore", login=AUTHOR)
    newer = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 1", login=AUTHOR)
    deliver_said_at(client, rt, newer, github_time_ago(10))
    hidden_by_newer = state(rt).dismissed
    assert len(hidden_by_newer) == 1
    deliver_said_at(client, rt, first, github_time_ago(30))  # late
    deliver_said_at(client, rt, restore, github_time_ago(20))  # late, before `newer`
    assert set(hidden_by_newer) <= set(state(rt).dismissed)
    assert hidden_by_newer[0] in {m.note_id for m in rt.ctx.feedback.marks()}


# --- a `wrong` or `restore` retried; a `wrong` typed on a Chinese keyboard ---


# kills: bot/command_answers.py:run_commands a comment holding a `wrong` among other commands keeps
#        no numbering: its retry, after the notes comment was renumbered, hides another note
def test_a_retried_wrong_beside_a_lookup_means_the_note_its_author_read(live):
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    first = state(rt).notes[0]
    # GitHub refuses the lookup's reply, before the `wrong` runs: the delivery fails
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    c = say(client, rt, fake, "/notes topic rocm\n/notes wrong 1", login=AUTHOR, title=title)
    assert rt.queue.counts()["failed"] == 1 and state(rt).dismissed == ()
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)  # now note 1 is another
    assert state(rt).dismissed == (first,)

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).dismissed == (first,), "the retried `wrong 1` hid the note now shown first"


# kills: bot/command_feedback.py:restore a `restore` run again (a retry for its 👍) takes back a
#        `wrong` made after it ran whose payload gave no time (taken as the newest)
def test_a_retried_restore_does_not_take_back_a_wrong_no_time_ranks(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_and_left_without_its_thumb(client, rt, fake, "/notes restore")
    w = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 1 not this one", login=AUTHOR)
    deliver_without_its_time(client, rt, w)
    hidden = state(rt).dismissed
    assert hidden != ()

    retried_for_its_thumb(rt, fake, c)
    assert state(rt).dismissed == hidden
    assert [m.reason for m in rt.ctx.feedback.marks()] == ["not this one"]


# kills: bot/command_feedback.py:take_feedback the log says a reviewer's words were not kept when
#        they were (the mark's author adding a reason), and nothing when they were not (another's)
def test_the_log_says_whose_words_a_standing_mark_did_not_keep(live, caplog):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    say(client, rt, fake, "/notes")
    # an hour's window from the next `/notes` on: the comment the marks read stays as posted
    tune(rt, CommandConfig(min_update_interval_s=3600))
    caplog.set_level("INFO", logger="bot.command_feedback")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 1", login=AUTHOR)
    other = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 1 wrong subsystem", login="maintainer")
    payloads = [comment_payload(c)]
    old, c.body = c.body, "/notes wrong 1 only renames the flag"  # the author adds a reason
    payloads += [comment_payload(c, action="edited", old_body=old), comment_payload(other)]
    done = rt.queue.counts()["done"]

    def handled(n: int) -> None:
        counts = rt.queue.counts
        wait_until(lambda: counts()["done"] >= done + n and counts()["processing"] == 0)

    say(client, rt, fake, "/notes", wait=False)  # opens the window
    handled(1)
    for n, payload in enumerate(payloads, 2):
        assert post(client, "issue_comment", payload).status_code == 202
        handled(n)
    (mark,) = rt.ctx.feedback.marks()
    assert (mark.login, mark.reason) == (AUTHOR, "only renames the flag")
    said = [r.getMessage() for r in caplog.records if "words not kept" in r.getMessage()]
    assert len(said) == 1 and "maintainer's words not kept" in said[0], said


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2，只是改了参数名", "只是改了参数名"),
        # the reason in quotes right after the number, as after `topic`
        ("/notes wrong 2「只是改了参数名」", "「只是改了参数名」"),
    ],
)
def test_a_wrong_typed_on_a_chinese_keyboard_hides_the_note_it_numbers(live, line, reason):
    # An input method writes `2，理由`: full-width comma, no space. It was answered "say
    # which note" with 😕 and nothing hidden, though the reviewer had said which.
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=title_with_one_more_note(), author=AUTHOR
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    shown = state(rt).notes
    assert len(shown) >= 2
    c = say(client, rt, fake, line, login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"} and replies(fake) == []
    assert state(rt).dismissed == (shown[1],)
    (mark,) = rt.ctx.feedback.marks()
    assert (mark.note_id, mark.rank, mark.reason) == (shown[1], 2, reason)


# --- the numbers a refused comment would have kept ---------------------------------------


def _numbered(rt) -> list[str]:
    """The comments whose numbers the SQLite file keeps (bot.feedback_store's table)."""
    rows = rt.ctx.feedback.db.execute("SELECT origin FROM numbering ORDER BY origin")
    return [r["origin"] for r in rows]


def _fail_permission_checks(fake, login: str = "maintainer") -> None:
    """GitHub answers the next permission checks of `login` 502, past the client's retries."""
    perm = f"/repos/{DEFAULT_REPO}/collaborators/{login}/permission"
    fake.inject("GET", perm, *[Fault.error(502)] * 3)


def test_wrongs_refused_for_their_permission_keep_no_numbers(live):
    # The numbers are kept before the permission check (a 502 there must not renumber the
    # retry), and were kept whatever it answered: anyone who can comment grew the file by
    # a row per `/notes wrong` comment, for good.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    refused = [say(client, rt, fake, f"/notes wrong {i}", login="passer-by") for i in (1, 2, 3)]
    assert all(reactions(fake, c) == {"confused"} for c in refused)
    say(client, rt, fake, "/notes wrong 1", login="helper[bot]")  # a bot's: not answered
    assert _numbered(rt) == [] and state(rt).dismissed == ()
    taken = say(client, rt, fake, "/notes wrong 1", login=AUTHOR)  # one that runs keeps its own
    assert _numbered(rt) == [f"comment:{taken.id}"]


def test_a_wrong_over_the_write_budget_keeps_no_numbers(live):
    client, rt, fake = live
    config = CommandConfig(installation_write_burst=9, installation_write_refill_s=3600)
    tune(rt, config, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")
    budget = rt.ctx.flood.installation_writes
    budget.take(1001, int(budget.left(1001)))  # the installation's budget spent elsewhere
    c = say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert reactions(fake, c) == {"confused"} and state(rt).dismissed == ()
    assert _numbered(rt) == []


# kills: bot/command_answers.py:run_commands the numbers kept after the permission check, not
#        before it: a check GitHub fails (502) leaves the retry none, renumbered by then
def test_a_wrong_whose_permission_check_failed_keeps_its_numbers_for_the_retry(live):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    say(client, rt, fake, "/notes")
    _fail_permission_checks(fake)
    c = say(client, rt, fake, "/notes wrong 1", login="maintainer")
    assert rt.queue.counts()["failed"] == 1
    assert _numbered(rt) == [f"comment:{c.id}"]


# kills: bot/feedback_store.py:FeedbackStore.prune_numbering numbers kept after the cut
#        pruned, on a PR whose state that `wrong` (naming no note) did not change
def test_retention_forgets_the_numbers_kept_on_prs_idle_since(live):
    # Pruned as the PRs' file lists are: a PR handled since keeps its comments' numbers;
    # the mark made with them keeps its own (`numbering` reads it first).
    client, rt, fake = live
    for number in (8, 9):
        fake.add_pull(
            DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
        )
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes", number=8)
    say(client, rt, fake, "/notes", number=9)
    idle = say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    busy = say(client, rt, fake, "/notes wrong 9", login=AUTHOR, number=8)  # names no note
    shown = rt.ctx.feedback.numbering(DEFAULT_REPO, N, f"comment:{idle.id}")
    assert _numbered(rt) == sorted([f"comment:{idle.id}", f"comment:{busy.id}"])
    cut = utcnow()
    say(client, rt, fake, "/notes", number=8)  # PR 8 handled after the cut, PR N not
    late = say(client, rt, fake, "/notes wrong 9", login=AUTHOR, number=9)  # after the cut
    rt.retention.prune(before=cut)
    assert _numbered(rt) == sorted([f"comment:{busy.id}", f"comment:{late.id}"])
    assert rt.ctx.feedback.numbering(DEFAULT_REPO, N, f"comment:{idle.id}") == shown


# kills: bot/commands.py:Command.key (hand) an emoji glued to a word part of its key: an edit
#   of `/notes wrong 2` into `/notes wrong 2🙏` ran the `wrong` again
# kills: bot/commands.py:Command.key (hand) a `wrong` keyed as typed: an edit of `/notes wrong
#   第2条` into `/notes wrong 2`, the same note, ran the `wrong` again
@pytest.mark.parametrize(
    ("said", "same_note", "reason_added"),
    [
        ("2", ["2🙏", "2:pray:", "2。"], ["2🙏 只是改名", "2:pray: 只是改名"]),
        ("第2条", ["2", "二号", "2 —", "第 2 条："], ["2 — 只是改名", "第2条 只是改名"]),
    ],
    ids=["an-emoji-after-the-number", "the-same-note-another-way"],
)
def test_an_edit_naming_the_same_note_runs_nothing_again(live, said, same_note, reason_added):
    client, rt, fake = live
    _two_notes_shown(client, rt, fake)
    shown = state(rt).notes
    c = say(client, rt, fake, f"/notes wrong {said}", login=AUTHOR)
    assert state(rt).dismissed == (shown[1],)
    fake.clear_requests()
    for typed in same_note:
        edit(client, rt, fake, c, f"/notes wrong {typed}")
    # the same note, no reason: nothing to do again, not even a 👀 or a reading of the PR
    assert [(r.method, r.path) for r in fake.requests] == []
    for typed in reason_added:  # a reason added is kept; the same reason again, nothing
        edit(client, rt, fake, c, f"/notes wrong {typed}")
    assert [(m.note_id, m.reason) for m in rt.ctx.feedback.marks()] == [(shown[1], "只是改名")]
    assert len([r for r in fake.requests if r.method == "POST" and "reactions" in r.path]) == 2


def test_an_emoji_shortcode_after_the_number_is_not_kept_for_the_curators(live):
    # `/notes wrong 2 :pray: 只是改名`, the shortcode as GitHub's autocomplete leaves it
    # (the page shows 🙏), was kept as the reason ":pray: 只是改名", markup in the report
    client, rt, fake = live
    _two_notes_shown(client, rt, fake)
    shown = state(rt).notes
    say(client, rt, fake, "/notes wrong 2 :pray: 只是改名", login=AUTHOR)
    assert [(m.note_id, m.reason) for m in rt.ctx.feedback.marks()] == [(shown[1], "只是改名")]


# kills: bot/command_answers.py:run_commands a comment's kept numbers taken as this run's own
#        when it read none (no `wrong` among its new commands), and dropped with no `wrong` let run
def test_an_edit_adding_another_command_keeps_the_numbers_of_the_wrong_before_it(live):
    client, rt, fake = live
    _two_notes_shown(client, rt, fake)
    shown = state(rt).notes
    assert len(shown) == 2
    c = say(client, rt, fake, "/notes wrong 3", login=AUTHOR)  # names no note: no mark
    edit(client, rt, fake, c, "/notes wrong 3\n/notes help")  # the edit's new command: help
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)  # the comment now numbers note B 1
    edit(client, rt, fake, c, "/notes wrong 2\n/notes help")  # 2 as the comment read it: B
    assert state(rt).dismissed == (shown[0], shown[1])


@pytest.mark.parametrize("refused_by", ["permission", "write budget"])
def test_a_wrong_whose_retry_is_refused_keeps_no_numbers(live, refused_by):
    # The numbers its first run kept (before its permission check, which GitHub failed)
    # stayed when the retry let no `wrong` run, and an edit of the comment then read the
    # comment, renumbered since, with them: `wrong 1` meant a note hidden already.
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    first, second = state(rt).notes
    _fail_permission_checks(fake)
    c = say(client, rt, fake, "/notes wrong 2", login="maintainer", title=title)
    assert rt.queue.counts()["failed"] == 1
    if refused_by == "permission":  # write access taken away meanwhile
        fake.set_permission(DEFAULT_REPO, "maintainer", "read")
    else:  # the installation's budget spent elsewhere
        tune(rt, CommandConfig(installation_write_burst=9), clock=lambda: 1000.0)
        budget = rt.ctx.flood.installation_writes
        budget.take(1001, int(budget.left(1001)))
    assert rt.queue.retry() != []
    drain(rt)
    assert state(rt).dismissed == () and _numbered(rt) == []
    rt.ctx.flood.installation_writes.refund(1001, 100)  # full again
    # the author hides the first note: the comment now shows the second as note 1
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)
    assert state(rt).dismissed == (first,)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    tune(rt)
    edit(client, rt, fake, c, "/notes wrong 1 only renames", title=title)  # of the comment now
    assert state(rt).dismissed == (first, second)


def test_a_retried_edit_refused_leaves_the_numbers_its_comment_kept_before(live):
    # The comment's `wrong 9` (no note 9: answered with the notes it can name) kept the
    # numbers it was read with. An edit of it, whose permission check GitHub failed, was
    # retried and refused: the retry took the numbers for its own (a re-run's) and
    # forgot them, and a later edit read the comment, renumbered since: `wrong 2` then
    # named no note instead of the one its author had read as 2.
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    first, second = state(rt).notes
    c = say(client, rt, fake, "/notes wrong 9", login="maintainer", title=title)
    assert _numbered(rt) == [f"comment:{c.id}"]
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)  # now 1 is the second
    assert state(rt).dismissed == (first,)

    _fail_permission_checks(fake)
    edit(client, rt, fake, c, "/notes wrong 8", title=title)
    assert rt.queue.counts()["failed"] == 1
    fake.set_permission(DEFAULT_REPO, "maintainer", "read")  # write access taken away
    assert rt.queue.retry() != []
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert f"comment:{c.id}" in _numbered(rt), "the retry forgot numbers it had not kept"
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    # 2 as the comment read it when written: the second note
    edit(client, rt, fake, c, "/notes wrong 2", title=title)
    assert state(rt).dismissed == (first, second)


# kills: bot/command_answers.py:run_commands numbers kept for a comment with no `wrong`
def test_a_comment_with_no_wrong_keeps_no_numbers_for_a_later_edit(live):
    # A writer's `/notes off` fails on its permission check (GitHub's 502) and is never
    # retried; the notes comment renumbers; the writer edits the comment to add
    # `/notes wrong 1`: it means the note shown as 1 now, as no `wrong` was read before.
    client, rt, fake = live
    title = _two_notes_shown(client, rt, fake)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    first, second = state(rt).notes
    _fail_permission_checks(fake)
    c = say(client, rt, fake, "/notes off", login="maintainer", title=title)
    assert rt.queue.counts()["failed"] == 1
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)  # now 1 is the second
    edit(client, rt, fake, c, "/notes off\n/notes wrong 1", title=title)
    assert state(rt).dismissed == (first, second)


def test_the_wrong_the_footer_offers_under_one_note_hides_it(live):
    # under one note the footer offers `/notes wrong` with no number: said as it is
    # written there, it hides that note (tests/test_render.py: the footer's words)
    client, rt, fake = live
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    say(client, rt, fake, "/notes")
    (shown,) = state(rt).notes
    footer = as_rendered(rt, sticky(fake)).rstrip("\n").rsplit("\n", 1)[1]
    offered = "`/notes wrong` if this note does not fit"
    assert offered in footer, footer
    c = say(client, rt, fake, "/notes wrong", login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"} and replies(fake) == []
    assert state(rt).notes == () and state(rt).dismissed == (shown,)
    assert "marked not relevant here" in sticky(fake).body
    (kept,) = rt.ctx.feedback.marks()
    assert (kept.note_id, kept.rank, kept.reason) == (shown, 1, "")

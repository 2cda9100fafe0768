"""Slash commands end to end, their intake (bot.command_events): which comments, reviews
and comments on a line of the diff are taken in, and what is read of each. Bots and our
own comments (with an App or a token), commands in code or quotes, edits, invisible
characters, locked conversations, payloads whose ids or times are not GitHub's.

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

from collections import Counter

import pytest

from bot.command_events import register
from bot.commands import parse_commands
from bot.dispatch import Dispatcher
from bot.markers import MARKER, REPLY_MARKER
from tests.command_kit import (
    AUTHOR,
    N,
    comment_payload,
    deliver_said_at,
    diff_comment_payload,
    edit,
    github_time_ago,
    reactions,
    replies,
    review_payload,
    say,
    state,
    sticky,
    tune,
)
from tests.fake_github import DEFAULT_REPO, FakeComment, Identity
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    drain,
    make_settings,
    octokit_examples,
    ours,
    post,
    pr_payload,
    repo_calls,
    serving,
)

# --- what is not a command for us ----------------------------------------------------


def test_commands_in_code_or_quotes_are_text(live):
    client, rt, fake = live
    body = (
        "As the docs say:\n\n```\n/notes off\n```\n\n> /notes why\n\n"
        "Use `/notes help`, or\n\n    /notes search x\n<!--\n/notes on\n-->"
    )
    c = say(client, rt, fake, body)
    assert ours(fake) == [] and reactions(fake, c) == set()
    assert not state(rt).opted_out
    quoted = fake.add_comment(DEFAULT_REPO, N, "> /notes\nagreed")
    r = post(client, "issue_comment", comment_payload(quoted))
    assert r.json() == {"status": "ignored", "reason": "no line starts with a slash command"}


def test_bots_are_never_answered_our_own_comments_included(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes help")
    mine = ours(fake)
    assert len(mine) == 2 and all("`/notes" in c.body for c in mine)  # commands in inline code
    fake.clear_requests()
    for c in mine:
        # as the App delivers them (sender type Bot) ...
        r = post(client, "issue_comment", comment_payload(c))
        assert r.json()["status"] == "ignored" and "bot" in r.json()["reason"]
        # ... and sent by a person (say, editing it): written by a bot all the same (a
        # token's comments: test_with_a_token_our_own_comments_are_known_by_their_author)
        r = post(client, "issue_comment", comment_payload(c, sender_type="User"))
        assert r.json() == {"status": "ignored", "reason": "written by a bot"}
        assert parse_commands(c.body) == []  # and no line of ours parses as a command
    other = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="other-bot[bot]", bot=True)
    r = post(client, "issue_comment", comment_payload(other))
    assert r.json()["status"] == "ignored"
    drain(rt)
    assert repo_calls(fake) == Counter() and len(ours(fake)) == 2


def test_a_human_quoting_our_comments_gets_the_commands_under_them(live):
    # Our comments are known by who wrote them, not by their markers: a reviewer may
    # paste the notes comment (or a reply) to discuss it and write a command under it.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    say(client, rt, fake, "/notes help")
    notes, (reply,) = sticky(fake).body, replies(fake)
    assert notes.startswith(MARKER) and reply.body.startswith(REPLY_MARKER)
    shown = state(rt).notes
    text = (
        f"Is note 1 right here? The bot said:\n\n{notes}\n\nand\n\n{reply.body}\n\n/notes wrong 1"
    )
    c = say(client, rt, fake, text, login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert state(rt).dismissed == (shown[0],)


def token_settings(tmp_path, fake, **kw):
    """The bot as a user account (GITHUB_TOKEN): its comments carry no sign of a bot."""
    fake.add_pat("ghp_notes", "notes-bot")
    return make_settings(
        tmp_path,
        github_token="ghp_notes",
        github_api_url=fake.base_url,
        public_url="https://notes.example.org",
        seconds_between_requests=0,
        seconds_between_writes=0,
        **kw,
    )


OWNER = "notes-bot"  # the user account whose token the bot runs with


def with_token(tmp_path, fake, configured: bool):
    """token_settings, the login in REVIEW_NOTES_BOT_LOGIN or (not `configured`) asked."""
    return token_settings(tmp_path, fake, bot_login=OWNER if configured else None)


def written_as(fake, login: str = OWNER) -> list[FakeComment]:
    return [c for c in fake.comments(DEFAULT_REPO, N) if c.user.login == login]


def reacted(fake, comment) -> set[str]:
    return {r.content for r in fake.reactions(comment.id) if r.user.login == OWNER}


@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN, or asked
def test_with_a_token_our_own_comments_are_known_by_their_author_and_marker(
    tmp_path, fake_github, monkeypatch, configured
):
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(with_token(tmp_path, fake, configured)) as (client, rt):
        tune(rt)
        c = say(client, rt, fake, "/notes")
        say(client, rt, fake, "/notes help")
        notes, reply = written_as(fake)
        assert notes.body.startswith(MARKER) and notes.user.type == "User"
        assert reply.body.startswith(REPLY_MARKER)
        # what the bot wrote (its marker first), with a command line for once: sent by
        # the bot, and edited by a maintainer (sent by them, written by the bot)
        own = fake.add_comment(DEFAULT_REPO, N, f"{REPLY_MARKER}\n/notes help", login=OWNER)
        old, own.body = own.body, own.body + "\n/notes off"
        edited = comment_payload(own, action="edited", old_body=old)
        edited["sender"] = {"login": "maintainer", "id": 77, "type": "User"}
        # and the bot's own writes as GitHub reports them: created, or edited by the bot
        notes_edited = comment_payload(notes, action="edited", old_body=notes.body + "x")
        fake.clear_requests()
        for payload in (comment_payload(own), edited, notes_edited, comment_payload(reply)):
            r = post(client, "issue_comment", payload)
            assert r.json()["status"] in ("ignored", "queued")
            if configured:  # intake knows the login
                assert r.json() == {
                    "status": "ignored",
                    "reason": f"written by the bot itself ({OWNER})",
                }
        drain(rt)
        assert reacted(fake, own) == set() and len(written_as(fake)) == 3  # no new reply
        assert repo_calls(fake) == Counter() and not state(rt).opted_out
        assert rt.queue.counts()["failed"] == 0
        # a person's command still runs (and the login was asked once at most)
        h = say(client, rt, fake, "/notes help", login=AUTHOR)
        assert len(written_as(fake)) == 4 and reacted(fake, c) == reacted(fake, h) == {"eyes", "+1"}
        assert fake.calls("GET", "/user") == []  # the login, once known, is kept


@pytest.mark.parametrize("configured", [False, True])  # REVIEW_NOTES_BOT_LOGIN, or asked
def test_with_a_personal_token_its_owner_can_still_run_commands(
    tmp_path, fake_github, monkeypatch, configured
):
    # docs/operating.md: "A personal access token (GITHUB_TOKEN) also works for trying it on a fork
    # (the comments are then written as that user)". Its owner writes as a person too:
    # only their comments carrying our marker are the bot's.
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author="me")
    with serving(with_token(tmp_path, fake, configured)) as (client, rt):
        tune(rt)
        asked = say(client, rt, fake, "/notes", login=OWNER)
        helped = say(client, rt, fake, "/notes help", login=OWNER)
        notes, reply = (c for c in written_as(fake) if c.id not in (asked.id, helped.id))
        assert notes.body.startswith(MARKER), "the owner's `/notes` was ignored"
        assert reply.body.startswith(REPLY_MARKER)
        assert reacted(fake, asked) == reacted(fake, helped) == {"eyes", "+1"}
        # the owner quoting the bot's comment (as anyone may) is still the owner
        quoted = f"Is this right? It said:\n\n{notes.body}\n\n/notes why"
        q = say(client, rt, fake, quoted, login=OWNER)
        assert reacted(fake, q) == {"eyes", "+1"} and "(why mode)" in sticky_as_owner(fake).body
        assert rt.queue.counts()["failed"] == 0


def sticky_as_owner(fake) -> FakeComment:
    (found,) = [c for c in written_as(fake) if c.body.startswith(MARKER)]
    return found


def test_with_a_token_what_its_owner_does_on_a_pull_request_counts(
    tmp_path, fake_github, monkeypatch
):
    # REVIEW_NOTES_BOT_LOGIN names the owner; a PR they open is theirs, not the bot's:
    # the bot's only writes are comments (a sender alone makes no loop)
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=OWNER)
    with serving(with_token(tmp_path, fake, configured=True)) as (client, rt):
        r = deliver_pr(client, rt, sender=OWNER, title=MATCHING_TITLE, files=MATCHING_FILES)
        assert r["status"] == "queued"
        assert sticky_as_owner(fake) is not None


def test_a_comment_on_a_plain_issue_is_ignored(live):
    client, rt, fake = live
    fake.add_issue(DEFAULT_REPO, 42)
    c = fake.add_comment(DEFAULT_REPO, 42, "/notes")
    r = post(client, "issue_comment", comment_payload(c, number=42, on_pr=False))
    assert r.json() == {"status": "ignored", "reason": "not about a pull request"}
    assert reactions(fake, c) == set()


def test_an_edit_runs_only_the_commands_it_adds(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic rocm")
    assert len(replies(fake)) == 1
    edit(client, rt, fake, c, "/notes topic ROCM\n\nThanks! (typo fixed)")  # same command
    assert len(replies(fake)) == 1
    edit(client, rt, fake, c, "/notes topic rocm\n/notes search EAGLE")
    assert len(replies(fake)) == 2 and "1 note matches `EAGLE`" in replies(fake)[-1].body
    # an edit of something else than the text is not even queued
    payload = comment_payload(c, action="edited", old_body=c.body)
    payload["changes"] = {}
    assert post(client, "issue_comment", payload).json()["status"] == "ignored"


def test_review_bodies_run_commands_without_reactions(live):
    client, rt, fake = live
    head = fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
    ).head_sha
    fake.clear_requests()
    r = post(
        client,
        "pull_request_review",
        review_payload("LGTM\n/notes why\n/notes help", head_sha=head),
    )
    assert r.status_code == 202
    drain(rt)
    assert "(why mode)" in sticky(fake).body and len(replies(fake)) == 1
    assert fake.calls("POST", "/repos/*/reactions") == []
    # a review's copy of the PR has no file count: the PR is read once
    assert len(fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/{N}")) == 1


@pytest.mark.parametrize(("line", "sticky_too"), [("/notes topic rocm", False), ("/notes", True)])
def test_commands_on_a_diff_line_react_there_and_answer_in_the_conversation(live, line, sticky_too):
    client, rt, fake = live
    c = fake.add_review_comment(DEFAULT_REPO, N, f"Is this safe?\n{line}", login="octo-dev")
    head = fake.pull(DEFAULT_REPO, N).head_sha
    r = post(client, "pull_request_review_comment", diff_comment_payload(c, head_sha=head))
    assert r.status_code == 202, r.text
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}  # on the diff comment itself
    assert fake.calls("POST", f"/repos/{DEFAULT_REPO}/pulls/comments/{c.id}/reactions")
    assert (sticky(fake) is not None) == sticky_too
    assert len(replies(fake)) == (0 if sticky_too else 1)
    assert rt.queue.counts()["failed"] == 0


def test_an_on_added_by_editing_a_review_counts_when_the_edit_is_made(live):
    # A review's payload has no `updated_at` (GitHub sends `submitted_at` only): an
    # edited review is dated when its delivery arrived, not at its submission, so an
    # `on` added by the edit outranks an `off` said between submission and edit.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    head = fake.pull(DEFAULT_REPO, N).head_sha
    review = review_payload("Looks fine", login=AUTHOR, head_sha=head)
    review["review"] = dict(review["review"], submitted_at=github_time_ago(120))
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)
    deliver_said_at(client, rt, off, github_time_ago(60))
    assert state(rt).opted_out
    # now the author edits the review to add `/notes on`
    edited = dict(review, action="edited", changes={"body": {"from": "Looks fine"}})
    edited["review"] = dict(review["review"], body="Looks fine\n/notes on")
    assert post(client, "pull_request_review", edited).status_code == 202
    drain(rt)
    assert not state(rt).opted_out, "the `on` written last on GitHub did not count"


# --- invisible characters in and around a command -------------------------------------


def test_an_invisible_character_after_the_sub_command_is_not_answered_with_a_contradiction(
    live,
):
    # `/notes off` followed by a zero-width space (pasted from a chat or a document) shows
    # as `/notes off` on the page. It was parsed as the unknown sub-command `off<ZWSP>`,
    # and the reply, whose code span drops format characters, said "There is no `off`
    # command. The commands are ..., `/notes off`, ...": nothing done, and the answer
    # denied the command the author could see they typed.
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = say(client, rt, fake, "/notes off\u200b", login=AUTHOR)
    denied = [r for r in replies(fake) if "There is no `off` command" in r.body]
    assert denied == [], denied[0].body
    assert state(rt).opted_out and reactions(fake, c) == {"eyes", "+1"}


# dea517c drops invisible format characters from a command's words, but one right after
# `/notes` itself still made the line no command (the author's `off` silently ignored),
# and a comment opening with a pasted BOM was dropped at intake ("no line starts with a
# slash command") although the parser reads it.


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff"])
def test_an_invisible_character_right_after_the_command_word_is_no_part_of_it(live, invisible):
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = say(client, rt, fake, f"/notes{invisible} off", login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"}, "the command was not seen at all"
    assert state(rt).opted_out


def test_a_comment_opening_with_a_pasted_bom_runs_its_command(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = say(client, rt, fake, "\ufeff/notes off", login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "+1"}, "the delivery was ignored at intake"
    assert state(rt).opted_out


# --- locked conversations -----------------------------------------------------------------
# On a locked conversation only collaborators may comment, and nobody may react: a
# maintainer's `/notes help` reached the bot, but GitHub refused the App's comments
# there (403, as probot/stale, Renovate and others met). The delivery failed, showed in
# /healthz, and `review-notes retry` failed again for good; the maintainer was left with
# a 👀 and no answer.


def test_a_command_on_a_locked_pr_is_not_a_failure_no_retry_can_fix(live):
    # kept for the unlock instead (tests/test_unlocks.py): one refused 👀, nothing more
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    fake.lock(DEFAULT_REPO, N, "too heated")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="maintainer")  # a collaborator
    payload = comment_payload(c)
    payload["issue"].update(locked=True, active_lock_reason="too heated")
    fake.clear_requests()
    r = post(client, "issue_comment", payload)
    assert r.status_code == 202 and r.json()["status"] == "queued"
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert client.get("/healthz").json()["failed"] == 0
    assert reactions(fake, c) == set() and ours(fake) == []
    refused = [q for q in fake.requests if q.method == "POST" and q.path.startswith("/repos/")]
    assert [q.status for q in refused] == [403]  # the 👀: nothing tried after it


@pytest.mark.parametrize("on_diff", [False, True])
def test_a_review_or_a_diff_comment_on_a_locked_pr_is_ignored(live, on_diff):
    # not kept for the unlock, as a PR comment's commands are (bot.locked_commands)
    client, rt, fake = live
    head = fake.pull(DEFAULT_REPO, N).head_sha
    fake.lock(DEFAULT_REPO, N)
    if on_diff:
        c = fake.add_review_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
        event, payload = "pull_request_review_comment", diff_comment_payload(c, head_sha=head)
    else:
        event, payload = "pull_request_review", review_payload("/notes help", head_sha=head)
    payload["pull_request"]["locked"] = True
    r = post(client, event, payload)
    assert r.json()["status"] == "ignored" and "locked" in r.json()["reason"]
    assert "not kept for the unlock" in r.json()["reason"]


def test_a_lock_between_the_command_and_its_answer_ends_the_delivery(live):
    # the payload says unlocked; by the time the bot answers, a maintainer has locked it:
    # the 👀 refused, the commands are kept for the unlock (tests/test_unlocks.py)
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes", login="octo-dev")
    fake.lock(DEFAULT_REPO, N)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"
    assert client.get("/healthz").json()["failed"] == 0
    assert reactions(fake, c) == set() and ours(fake) == []
    assert [k.comment_id for k in rt.ctx.locked.kept(DEFAULT_REPO, N)] == [c.id]
    # one refused write ends it: the rest is not tried
    assert len(fake.calls("POST", "/repos/*/reactions")) == 1
    assert fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments") == []


@pytest.mark.parametrize("line", ["/notes help", "/notes why"])
def test_a_review_on_a_pr_locked_meanwhile_is_not_a_failure(live, line):
    # a review has no reactions: the reply's create, or the notes comment's edit, is the
    # first write GitHub refuses
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    before = sticky(fake).body
    fake.lock(DEFAULT_REPO, N)
    head = fake.pull(DEFAULT_REPO, N).head_sha
    r = post(client, "pull_request_review", review_payload(line, head_sha=head))
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"
    assert replies(fake) == [] and sticky(fake).body == before
    refused = [q for q in fake.requests if q.status == 403]
    assert len(refused) == 1 and refused[0].method == ("POST" if "help" in line else "PATCH")


# --- a comment's time that is no time -------------------------------------------------


def test_a_comment_updated_at_that_is_not_a_time_does_not_keep_notes_off_for_good(tmp_path):
    """Mutation: `comment.updated_at` (and `created_at`) of an `issue_comment.created`
    delivery saying `/notes off` set to a string that is not a GitHub timestamp ("not a
    date"), the rest of the payload GitHub's own.

    What goes wrong: the command's order key (`command_events.said_at` ->
    `order_keys.comment_key`) is built from the string as is and compared as text, so the
    `off` counts as said after everything GitHub will ever send ("n" sorts after every
    "2026-..."). A real `/notes on` written an hour later is taken as said before it
    (`newer_switch`), acknowledged, and changes nothing: the PR stays paused for good,
    the delivery `done`, no error, no warning. A time that is not GitHub's should be
    refused at intake (400) or leave the command unordered (`said_at` None), never
    outrank every real one.
    """
    from tests.test_fuzz import comment_base

    with serving(make_settings(tmp_path, workers=1)) as (client, rt):
        tune(rt)
        opened = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES, number=8301)
        assert post(client, "pull_request", opened).status_code == 202
        drain(rt)
        off = comment_base("/notes off")
        off["comment"].update(id=100, created_at="not a date", updated_at="not a date")
        r = post(client, "issue_comment", off)
        assert r.status_code in (202, 400), r.text
        drain(rt)
        on = comment_base("/notes on")
        on["comment"].update(id=200)  # written now, after the `off`
        r2 = post(client, "issue_comment", on)
        assert r2.status_code == 202, r2.text
        drain(rt)
        assert rt.queue.get(r2.json()["delivery"]).state == "done"
        assert not rt.ctx.prs.get(DEFAULT_REPO, 8301).opted_out, (
            "the later `/notes on` changed nothing: the malformed `off` outranks it"
        )


# --- a signed payload whose ids are not GitHub's ---------------------------------------

_LONG = "9" * 100


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("abc", "not a positive integer (str 'abc')"),
        (1.5, "not a positive integer (float 1.5)"),
        (None, "not a positive integer (null)"),
        (True, "not a positive integer (bool True)"),
        ([1], "not a positive integer (list)"),
        (_LONG, f"not a positive integer (str '{'9' * 40}'...)"),
        (-4, "out of range (int -4)"),
        (2**53, "out of range (int 9007199254740992)"),  # not exact in every JSON reader
    ],
)
def test_a_comment_whose_id_is_not_an_integer_is_refused_naming_the_field(live, value, why):
    # recorded as int()'s "invalid literal for int() with base 10: 'abc'" (a 1.5 reacted
    # on comment 1): nothing said which field, and a queued delivery failed for good
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    payload = comment_payload(c)
    payload["comment"]["id"] = value
    r = post(client, "issue_comment", payload)
    said = f"malformed issue_comment payload: comment.id: {why}"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0 and reactions(fake, c) == set()


def _notes_said_in(fake, event: str) -> dict:
    """The payload of `/notes` said by octo-dev on PR N as `event` (a review, a PR
    comment, or a comment on the diff)."""
    head = fake.pull(DEFAULT_REPO, N).head_sha
    if event == "pull_request_review":
        return review_payload("/notes", head_sha=head)
    if event == "issue_comment":
        return comment_payload(fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev"))
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    return diff_comment_payload(c, head_sha=head)


@pytest.mark.parametrize(
    ("event", "part", "field", "value", "shown"),
    [
        ("pull_request_review", "review", "review.id", "7", "str '7'"),
        ("pull_request_review_comment", "comment", "comment.id", 2.0, "float 2.0"),
        ("pull_request_review_comment", "pull_request", "pull_request.number", 7e3, "float 7000.0"),
        ("issue_comment", "issue", "issue.number", "7001", "str '7001'"),
    ],
)
def test_other_ids_of_a_command_that_are_not_integers_are_refused_naming_them(
    live, event, part, field, value, shown
):
    client, rt, fake = live
    payload = _notes_said_in(fake, event)
    payload[part]["id" if field.endswith(".id") else "number"] = value
    r = post(client, event, payload)
    said = f"malformed {event} payload: {field}: not a positive integer ({shown})"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0


@pytest.mark.parametrize(
    ("event", "field", "value"),
    [
        ("issue_comment", "installation", 5),
        ("issue_comment", "installation.id", "1001"),
        ("issue_comment", "issue.user", "pr-author"),
        ("pull_request_review", "installation", [1]),
        ("pull_request_review", "pull_request.user", [1]),
        ("pull_request_review", "pull_request.head", "x"),
        ("pull_request_review_comment", "pull_request.head", 7),
    ],
)
def test_a_command_whose_fields_its_handler_reads_are_malformed_is_refused_naming_them(
    live, event, field, value
):
    # queued, then failed at each run with "AttributeError: 'str' object has no attribute
    # 'get'" (or the installation's error): never runnable, and nothing named the field.
    # A pull_request payload so is refused at intake (bot.pr_events.check_readable).
    client, rt, fake = live
    payload = _notes_said_in(fake, event)
    *parents, last = field.split(".")
    node = payload
    for key in parents:
        node = node[key]
    node[last] = value
    r = post(client, event, payload)
    kind = "not an integer" if field.endswith(".id") else "not an object"
    said = f"malformed {event} payload: {field}: {kind} ({type(value).__name__})"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0
    assert [q.path for q in fake.requests if q.method == "POST" and "/repos/" in q.path] == []


@pytest.mark.parametrize(
    ("event", "field", "value", "why"),
    [
        ("issue_comment", "issue.user.login", 5, "not a string (int)"),
        ("issue_comment", "issue.title", 5, "not a string (int)"),
        ("issue_comment", "issue.body", ["x"], "not a string (list)"),
        ("issue_comment", "issue.labels", "bug", "not a list (str)"),
        ("pull_request_review", "pull_request.user.login", ["x"], "not a string (list)"),
        ("pull_request_review", "pull_request.title", {}, "not a string (dict)"),
        ("pull_request_review_comment", "pull_request.head.sha", 7, "not a string (int)"),
    ],
)
def test_a_command_whose_pr_fields_its_handler_reads_are_malformed_is_refused_naming_them(
    live, event, field, value, why
):
    # the conversation's copy of the PR is read as a pull_request payload's: its author
    # (whether the commenter is the author: "'int' object has no attribute 'casefold'"),
    # and in a dry run its title, description, labels and head. Queued, a delivery so
    # failed at each run; a pull_request payload so is refused at intake
    client, rt, fake = live
    payload = _notes_said_in(fake, event)
    *parents, last = field.split(".")
    node = payload
    for key in parents:
        node = node[key]
    node[last] = value
    r = post(client, event, payload)
    said = f"malformed {event} payload: {field}: {why}"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0


@pytest.mark.parametrize(
    ("event", "stray", "field"),
    [
        ("pull_request_review", "issue", "pull_request.title"),
        ("pull_request_review_comment", "issue", "pull_request.title"),
        ("issue_comment", "pull_request", "issue.title"),
    ],
)
@pytest.mark.parametrize("copy", [{}, {"number": N, "title": "t"}])
def test_a_command_s_pr_copy_is_checked_where_its_handler_reads_it(live, event, stray, field, copy):
    # a review's or a diff comment's handler reads `pull_request`, a PR comment's `issue`:
    # a stray other object chose the copy intake read ("KeyError", or the one the handler
    # reads left unread: queued to fail at each run)
    client, rt, fake = live
    payload = _notes_said_in(fake, event)
    part, key = field.split(".")
    payload[part][key] = 5
    payload[stray] = dict(copy)
    r = post(client, event, payload)
    said = f"malformed {event} payload: {field}: not a string (int)"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0


_COMMAND_PARTS = {
    "issue_comment": "comment",
    "pull_request_review": "review",
    "pull_request_review_comment": "comment",
}


def _as_commands(event: str) -> list[dict]:
    """GitHub's examples of `event`, each a `/notes` by a person on a PR, as sent and with
    what GitHub sends null or leaves out: a description (`body`), a deleted author (ghost,
    `user`), labels (absent on some events)."""
    said = []
    for p in octokit_examples(event):
        if p["action"] not in ("created", "edited", "submitted"):
            continue
        p[_COMMAND_PARTS[event]].update(body="/notes", user={"login": "octo-dev", "type": "User"})
        if p["action"] == "edited":
            p["changes"] = {"body": {"from": "hi"}}
        if event == "issue_comment":  # the examples' are on plain issues
            p["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
        part = "issue" if event == "issue_comment" else "pull_request"
        pr = p[part]
        said += [p, {**p, part: {**pr, "body": None, "user": None}}]
        said.append({**p, part: {k: v for k, v in pr.items() if k != "labels"}})
    return said


@pytest.mark.parametrize("event", sorted(_COMMAND_PARTS))
def test_github_s_own_payloads_of_a_command_pass_intake(event):
    # intake reads a command's copy of its PR as a pull_request payload's: what GitHub
    # really sends, nulls and all, must not be refused as of another shape
    d = Dispatcher()
    register(d)
    for payload in _as_commands(event):
        route = d.route(event, payload["action"], payload)
        assert route is not None and route.check is not None
        assert route.check(payload) is None, payload["action"]


def test_a_queued_comment_whose_id_is_not_an_integer_fails_naming_the_field(live):
    # queued before intake checked it (an older release): the run says which field
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    payload = comment_payload(c)
    payload["comment"]["id"] = "abc"
    rt.queue.enqueue("queued-early", "issue_comment", "created", payload, DEFAULT_REPO, N)
    drain(rt)
    d = rt.queue.get("queued-early")
    said = "MalformedPayload: comment.id: not a positive integer (str 'abc')"
    assert (d.state, d.last_error) == ("failed", said)
    assert reactions(fake, c) == set()


# --- a command after a bare carriage return, at intake --------------------------------


def test_a_command_after_a_bare_carriage_return_is_run_not_ignored_at_intake(live):
    # cmark-gfm ends a line at a lone CR, as the parser does (bot.comment_prose), but the
    # intake filter's `^` started a line only after LF: a comment sent through the API
    # with CR line ends ("Thanks!\r/notes off") was dropped at intake as "no line starts
    # with a slash command", its command never run nor answered
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = fake.add_comment(DEFAULT_REPO, N, "Thanks for the notes!\r/notes off", login=AUTHOR)
    r = post(client, "issue_comment", comment_payload(c))
    assert r.json()["status"] == "queued", r.text
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert state(rt).opted_out


# --- a review's commands: their source and time ---------------------------------------


# kills: bot/command_events.py:_source a review's commands kept as said in "comment:ID" (the
# numbering of a comment that shares its id: GitHub numbers the two apart)
# kills: bot/command_events.py:_review_source a submitted review dated by its arrival, not by
# GitHub: one delivered late would outrank the commands written after it
def test_a_review_is_known_as_a_review_and_dated_by_its_submitted_at():
    from bot.command_events import _comment_source, _review_source, said_at

    review = review_payload("/notes off", head_sha="a" * 40)
    review["review"].update(id=77, submitted_at="2026-09-01T10:00:00Z")
    late = _review_source(review, received_at="2026-09-01T12:00:00.000000Z")
    assert late.origin == "review:77"
    assert late.said_at == said_at({"id": 77, "submitted_at": "2026-09-01T10:00:00Z"})
    edited = dict(review, action="edited", changes={"body": {"from": ""}})
    at_noon = said_at({"id": 77, "submitted_at": "2026-09-01T12:00:00Z"})
    assert _review_source(edited, received_at="2026-09-01T12:00:00.000000Z").said_at == at_noon
    comment = FakeComment(77, DEFAULT_REPO, N, "/notes off", Identity("octo-dev", 9), 0.0, 0.0)
    assert _comment_source(comment_payload(comment)).origin == "comment:77"


# --- a command typed full-width, at intake --------------------------------------------


# kills: bot/command_events.py:_MAY_HOLD_COMMAND (hand) an ASCII `/` and letters only: a
#   command typed in a Chinese input method's full-width mode was dropped at intake
@pytest.mark.parametrize("typed", ["／ｎｏｔｅｓ\u3000ｏｆｆ", "／notes off", "/ｎｏｔｅｓ off"])
def test_a_command_typed_full_width_is_run_not_ignored_at_intake(live, typed):
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = fake.add_comment(DEFAULT_REPO, N, f"谢谢！\n{typed}", login=AUTHOR)
    r = post(client, "issue_comment", comment_payload(c))
    assert r.json()["status"] == "queued", r.text
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert state(rt).opted_out


# --- what an edit runs again ----------------------------------------------------------


# kills: bot/commands.py:Command.key (hand) the words after `off` part of its key: an edit of
#   them ran the `off` again, over the `on` said after it
def test_editing_the_words_after_an_off_does_not_turn_the_notes_off_again(live):
    # `/notes off` ignores what follows it (a reason, thanks): an edit that fixes a typo
    # there, or adds an emoji from a phone, changes no command, as docs/commands.md says
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off 这个PR不需要", login=AUTHOR)
    deliver_said_at(client, rt, off, github_time_ago(120))
    assert state(rt).opted_out
    on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
    deliver_said_at(client, rt, on, github_time_ago(60))
    assert not state(rt).opted_out
    old, off.body = off.body, "/notes off 这个 PR 不需要 \U0001f64f"
    edited = comment_payload(off, action="edited", old_body=old)
    edited["comment"].update(created_at=github_time_ago(120), updated_at=github_time_ago(0))
    assert post(client, "issue_comment", edited).status_code == 202
    drain(rt)
    assert not state(rt).opted_out, "the edit of an off's reason turned the notes off again"


# kills: bot/commands.py:Command.key (hand) a full-width argument not read as its ASCII: an
#   edit retyping the words of a full-width mode in half-width posted the reply again
def test_an_edit_retyping_full_width_words_in_ascii_answers_nothing_again(live):
    # as docs/commands.md reads `ＲＯＣｍ` and `ｗｒｏｎｇ ２`, every command reads the words the
    # same: the edit changed no command (case aside, the same as `ROCM` for `rocm`)
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic ＲＯＣｍ，谢谢")
    assert len(replies(fake)) == 1
    edit(client, rt, fake, c, "/notes topic ROCm,谢谢")
    assert len(replies(fake)) == 1, "the same topic was answered twice"
    edit(client, rt, fake, c, "/notes topic ROCm,谢谢\n/notes topic cuda-graphs")
    assert len(replies(fake)) == 2  # what the edit changed still runs


# kills: bot/commands.py:Command.key (hand) the marks at a word's end part of its key: an
#   edit of `/notes topic:rocm:` into `/notes topic rocm` posted the same topic's reply again
def test_an_edit_changing_only_the_punctuation_or_emoji_after_a_word_answers_nothing_again(live):
    # `topic:rocm:` and `topic rocm` name the same topic, as `ROCM` and `rocm` do: the edit
    # changed no command, and the reply already posted stands (one reply, as for a typo
    # fixed elsewhere in the comment)
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic:rocm:")
    assert len(replies(fake)) == 1
    for typed in ["/notes topic rocm", "/notes topic rocm!", "/notes topic rocm🙏 :pray:"]:
        edit(client, rt, fake, c, typed)
        assert len(replies(fake)) == 1, f"the same topic was answered again for {typed!r}"
    edit(client, rt, fake, c, "/notes topic cuda-graphs")  # another topic: answered
    assert len(replies(fake)) == 2


# kills: bot/commands.py:Command.key (hand) a topic's words keyed as typed, not as the topic
#   is read: editing `/notes topic「ROCm」` into `/notes topic rocm` answered twice
def test_an_edit_taking_the_quotes_off_a_topics_name_answers_nothing_again(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic「ROCm」")
    assert len(replies(fake)) == 1
    for typed in ["/notes topic rocm", "/notes topic（rocm）", "/notes topic `ROCm`"]:
        edit(client, rt, fake, c, typed)
        assert len(replies(fake)) == 1, f"the same topic was answered again for {typed!r}"
    edit(client, rt, fake, c, "/notes topic cuda graphs")  # another topic: answered
    edit(client, rt, fake, c, "/notes topic cuda-graphs")  # the same, spelt as its id
    assert len(replies(fake)) == 2


# kills: bot/commands.py:Command.key (hand) a topic keyed by its spelling, not the topic it
#   names: an edit switching between its id, its short name, its full name and its Chinese
#   name (or words after the name, which the reply does not read) answered the same topic again
def test_an_edit_naming_the_same_topic_by_another_name_answers_nothing_again(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic Prefix caching")
    assert len(replies(fake)) == 1
    for typed in [
        "prefix-caching",
        "Prefix caching and KV cache manager",
        "前缀缓存与 KV 缓存管理",
        "前缀缓存与KV缓存管理，谢谢",
        "prefix caching please",
    ]:
        edit(client, rt, fake, c, f"/notes topic {typed}")
        assert len(replies(fake)) == 1, f"the same topic was answered again for {typed!r}"
    edit(client, rt, fake, c, "/notes topic KV connector")  # another topic: answered
    assert len(replies(fake)) == 2
    edit(client, rt, fake, c, "/notes topic 前缀缓存")  # names no topic (a guess): answered
    assert len(replies(fake)) == 3


# kills: bot/commands.py:Command.key (hand) a search's words keyed as typed: editing `/notes
#   search「前缀缓存」` into `/notes search 前缀缓存` searched again
def test_an_edit_taking_the_quotes_off_a_searchs_words_answers_nothing_again(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes search「前缀缓存」")
    assert len(replies(fake)) == 1
    for typed in [" 前缀缓存", "（前缀缓存）", " 前缀缓存。"]:
        edit(client, rt, fake, c, f"/notes search{typed}")
        assert len(replies(fake)) == 1, f"the same search was answered again for {typed!r}"
    edit(client, rt, fake, c, "/notes search 前缀缓存 eagle")  # another word: answered
    assert len(replies(fake)) == 2


# kills: bot/commands.py:Command.key (hand) the kinds that ignore their words keyed alike: an
#   edit of `/notes off` into `/notes on`, the reason kept, ran nothing
def test_editing_an_off_into_an_on_turns_the_notes_on(live):
    # the words after it are ignored, the sub-command is not: the edit changed the command
    client, rt, fake = live
    say(client, rt, fake, "/notes", login=AUTHOR)
    c = say(client, rt, fake, "/notes off 这个PR不需要", login=AUTHOR)
    assert state(rt).opted_out
    edit(client, rt, fake, c, "/notes on 这个PR不需要")
    assert not state(rt).opted_out

"""Slash commands end to end: signed webhook -> queue -> worker -> GitHubClient -> fake GitHub.
Covers bot.command_events (intake), command_answers, command_updates (the deferred
update) and command_reactions.

Each command is a real comment in the fake GitHub (so reactions land on it) and
a real `issue_comment` / `pull_request_review` delivery built on GitHub's own
example payloads. Flood control runs on a frozen clock where it matters, so no
assertion depends on how fast the machine is.
"""

from __future__ import annotations

import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace

import pytest

from bot.command_updates import REFRESH_ACTION
from bot.commands import CommandConfig, parse_commands
from bot.db import Database, utcnow
from bot.markers import MARKER, REPLY_MARKER, reply_key
from tests.fake_github import DEFAULT_REPO, FakeComment, Fault, Identity
from tests.test_e2e import BOT, live_settings, ours, repo_calls
from tests.webhook_kit import (
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    make_settings,
    octokit_examples,
    post,
    pr_payload,
    serving,
    title_with_one_more_note,
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
    base = next(e for e in octokit_examples("issue_comment") if e["action"] == action)
    p = dict(base)
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    p["issue"] = _pr_issue(number, title, on_pr)
    who = {"login": comment.user.login, "id": comment.user.id, "type": comment.user.type}
    p["comment"] = dict(base["comment"], id=comment.id, body=comment.body, user=who)
    p["sender"] = dict(who, type=sender_type or comment.user.type)
    p["installation"] = {"id": 1001}
    if old_body is not None:
        p["changes"] = {"body": {"from": old_body}}
    return p


def review_payload(body: str, *, login: str = "reviewer", head_sha: str) -> dict:
    base = next(e for e in octokit_examples("pull_request_review") if e["action"] == "submitted")
    pr = pr_payload(title=MATCHING_TITLE, head_sha=head_sha, sender=AUTHOR)["pull_request"]
    pr = {k: v for k, v in pr.items() if k in base["pull_request"]}  # no changed_files
    p = dict(base, pull_request=pr, installation={"id": 1001})
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    p["review"] = dict(base["review"], body=body, user={"login": login, "id": 8, "type": "User"})
    p["sender"] = {"login": login, "id": 8, "type": "User"}
    return p


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


def _notes_then_limited_edits(client, rt, fake, times: int) -> str:
    """With no refill of the budgets, post the PR's notes comment (`/notes`), then have
    GitHub rate limit its next `times` edits (Retry-After 2: put back); its edit path."""
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill
    say(client, rt, fake, "/notes")
    notes = sticky(fake)
    assert "Automatic updates are paused" not in notes.body
    edits = f"/repos/{DEFAULT_REPO}/issues/comments/{notes.id}"
    fake.inject("PATCH", edits, *[Fault.secondary_rate_limit(retry_after=2)] * times)
    return edits


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


def say(client, rt, fake, body: str, *, login: str = "octo-dev", wait: bool = True, **kw):
    """Write a comment on the PR and deliver its `created` event; return the comment."""
    c = fake.add_comment(DEFAULT_REPO, kw.get("number", N), body, login=login)
    r = post(client, "issue_comment", comment_payload(c, **kw))
    assert r.status_code == 202, r.text
    if wait:
        drain(rt)
    return c


def edit(client, rt, fake, comment, new_body: str):
    old, comment.body = comment.body, new_body  # the fake's comment changes in place
    post(client, "issue_comment", comment_payload(comment, action="edited", old_body=old))
    drain(rt)


def reactions(fake, comment) -> set[str]:
    return {r.content for r in fake.reactions(comment.id) if r.user.login == BOT}


def sticky(fake, number=N):
    found = [c for c in ours(fake, number) if c.body.startswith(MARKER)]
    assert len(found) <= 1
    return found[0] if found else None


def replies(fake, number=N):
    return [c for c in ours(fake, number) if c.body.startswith(REPLY_MARKER)]


def sticky_writes(fake, number=N) -> int:
    posts = [r for r in fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{number}/comments")]
    return len(posts) + len(fake.calls("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/*"))


def cost(rt, fake, act) -> Counter:
    """The repository calls `act` makes, once the queue is drained."""
    fake.clear_requests()
    act()
    drain(rt)
    return repo_calls(fake)


def state(rt, number=N):
    return rt.ctx.prs.get(DEFAULT_REPO, number)


# --- each command -------------------------------------------------------------------


def test_refresh_creates_the_comment_and_acknowledges_with_reactions(live):
    client, rt, fake = live
    c = say(client, rt, fake, "Could the bot have a look?\n/notes")
    body = sticky(fake).body
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in body
    assert "(why mode)" not in body
    assert reactions(fake, c) == {"eyes", "+1"}
    assert replies(fake) == []  # answered in the sticky comment only
    assert rt.queue.counts()["failed"] == 0


def test_why_shows_every_reason_and_the_topics_without_notes(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    plain = sticky(fake).body
    c = say(client, rt, fake, "/NOTES WHY")  # case does not matter
    why = sticky(fake).body
    assert why != plain and "(why mode)" in why
    assert "Why (score" in why and "Topics this pull request touches" in why
    assert "<details>" not in why  # the evidence is shown, not folded
    assert reactions(fake, c) == {"eyes", "+1"}
    say(client, rt, fake, "/notes refresh")  # a plain refresh leaves why mode
    assert "(why mode)" not in sticky(fake).body


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        ("/notes topic rocm", "ROCm"),
        ("/notes search EAGLE", "1 note matches `EAGLE`"),
        ("/notes help", "review-notes commands"),
    ],
)
def test_lookups_are_answered_by_a_reply_not_the_sticky_comment(live, line, expect):
    client, rt, fake = live
    c = say(client, rt, fake, line)
    (reply,) = replies(fake)
    assert expect in reply.body and sticky(fake) is None
    assert parse_commands(reply.body) == []  # our reply never runs a command
    assert reactions(fake, c) == {"eyes", "+1"}


def test_unknown_sub_command_gets_a_short_help_and_confused(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes frobnicate")
    (reply,) = replies(fake)
    assert "There is no `frobnicate` command" in reply.body and "`/notes help`" in reply.body
    assert reactions(fake, c) == {"confused"}


def test_reply_budget_limits_reply_comments(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=2), clock=lambda: 50.0)
    comments = [say(client, rt, fake, f"/notes search word{i}") for i in range(3)]
    assert len(replies(fake)) == 2
    assert [reactions(fake, c) for c in comments] == [{"eyes", "+1"}] * 2 + [{"eyes", "confused"}]


# --- who may ------------------------------------------------------------------------


def test_off_and_on_by_the_author_a_writer_and_a_reader(live):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "maintain")
    fake.add_comment(DEFAULT_REPO, N, "hello", login="reader")  # a known user, read access
    say(client, rt, fake, "/notes")

    fake.clear_requests()
    refused = say(client, rt, fake, "/notes off", login="reader")
    assert reactions(fake, refused) == {"confused"}
    assert "Only the PR author or a collaborator with write access" in replies(fake)[-1].body
    assert not state(rt).opted_out
    assert len(fake.calls("GET", "/repos/*/collaborators/reader/permission")) == 1

    fake.clear_requests()
    by_author = say(client, rt, fake, "/notes off", login=AUTHOR)
    assert state(rt).opted_out and reactions(fake, by_author) == {"eyes", "+1"}
    assert fake.calls("GET", "/repos/*/collaborators/*/permission") == []  # the author: no call
    assert "Automatic updates are paused" in sticky(fake).body

    by_writer = say(client, rt, fake, "/notes on", login="maintainer")
    assert not state(rt).opted_out and reactions(fake, by_writer) == {"eyes", "+1"}
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in sticky(fake).body


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
    # README: "A personal access token (GITHUB_TOKEN) also works for trying it on a fork
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


def test_notes_in_a_review_matches_like_notes_in_a_comment(live):
    # a docs-only PR gets only notes it names by their keywords: that needs every file
    # known, which a review's copy of the PR (no changed_files) cannot tell alone
    client, rt, fake = live
    docs = {"files": ["docs/features/spec_decode.md"], "title": "[Docs] EAGLE prefix caching"}
    fake.add_pull(DEFAULT_REPO, N + 10, **docs)
    say(client, rt, fake, "/notes", number=N + 10, title=docs["title"])
    by_comment = sticky(fake, N + 10).body
    assert "No review note matches this pull request" in by_comment
    head = fake.add_pull(DEFAULT_REPO, N + 11, **docs).head_sha
    p = review_payload("/notes", head_sha=head)
    p["pull_request"].update(number=N + 11, title=docs["title"])
    assert post(client, "pull_request_review", p).status_code == 202
    drain(rt)
    assert sticky(fake, N + 11).body == by_comment


# --- flood control ---------------------------------------------------------------------


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


# --- cost ---------------------------------------------------------------------------


def test_api_calls_per_command(live, capsys):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    head = fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
    ).head_sha

    def comment(body: str, login: str = "octo-dev"):
        return lambda: say(client, rt, fake, body, login=login)

    def review(body: str):
        return lambda: post(client, "pull_request_review", review_payload(body, head_sha=head))

    steps = {
        "/notes (first comment)": comment("/notes"),
        "/notes (same body)": comment("/notes"),
        "/notes why": comment("/notes why"),
        "/notes topic rocm": comment("/notes topic rocm"),
        "/notes search EAGLE": comment("/notes search EAGLE"),
        "/notes help": comment("/notes help"),
        "/notes frobnicate": comment("/notes frobnicate"),
        "/notes off (author)": comment("/notes off", AUTHOR),
        "/notes on (writer)": comment("/notes on", "maintainer"),
        "/notes wrong 1 (author)": comment("/notes wrong 1", AUTHOR),
        "/notes restore (author)": comment("/notes restore", AUTHOR),
        "review: /notes": review("/notes"),
    }
    costs = {name: cost(rt, fake, act) for name, act in steps.items()}
    with capsys.disabled():
        print("\nGitHub calls per command (repository routes):")
        for name, calls in costs.items():
            print(f"  {name:24} {calls.total()}  {dict(calls)}")
    totals = {name: calls.total() for name, calls in costs.items()}
    # eyes + GET pull + files + list comments + create + +1
    assert totals["/notes (first comment)"] == 6
    assert totals["/notes (same body)"] == 4  # files cached for the head; no write
    assert totals["/notes topic rocm"] == 3  # eyes, reply, +1
    assert totals["/notes frobnicate"] == 2  # confused, reply
    assert totals["/notes off (author)"] == 4  # eyes, list comments, edit, +1
    # the PR (a review's copy has no file count), list comments, edit
    assert totals["review: /notes"] == 3
    assert totals["/notes on (writer)"] == 6  # one more: the permission of a non-author
    # eyes, GET pull, list comments, edit, +1: the mark itself is SQLite only
    assert totals["/notes wrong 1 (author)"] == totals["/notes restore (author)"] == 5
    assert rt.queue.counts()["failed"] == 0


def test_dry_run_answers_from_the_event(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path)) as (client, rt):
        tune(rt)
        # No GitHub in a dry run: the comment exists only in its event, and the PR's
        # title comes from the event's issue.
        comment = FakeComment(99, DEFAULT_REPO, N, "/notes why", Identity("octo-dev", 3), 0, 0)
        post(client, "issue_comment", comment_payload(comment))
        drain(rt)
        (c,) = rt.dry_run.comments(DEFAULT_REPO, N)
        assert c["sticky"] and "(why mode)" in c["body"] and "52419" in c["body"]
        assert {r["content"] for r in rt.dry_run.reactions()} == {"eyes", "+1"}


# found by mutation run 'r25d' (bot/dryrun.py)
# kills: bot/dryrun.py:143 `return "write"` -> `return None`
def test_in_a_dry_run_anyone_may_turn_the_notes_off(tmp_path, monkeypatch):
    # no GitHub to ask for permissions: local development tries every command, one the
    # PR's author alone (or a maintainer) may run included
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path)) as (client, rt):
        tune(rt)
        comment = FakeComment(99, DEFAULT_REPO, N, "/notes off", Identity("octo-dev", 3), 0, 0)
        post(client, "issue_comment", comment_payload(comment))
        drain(rt)
        assert state(rt).opted_out
        assert rt.dry_run.comments(DEFAULT_REPO, N) == []  # no refusal replied


def said_while_the_comments_cannot_be_listed(client, rt, fake, text: str):
    """A comment whose one reply goes out, then GitHub fails the comment listing on every
    try the client makes (max_retries 2): no notes comment, the delivery failed."""
    listing = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    fake.inject("GET", listing, *[Fault.error(502)] * 3)
    c = say(client, rt, fake, text)
    assert len(replies(fake)) == 1 and sticky(fake) is None
    assert rt.queue.counts()["failed"] == 1
    return c


def test_a_retried_delivery_does_not_post_its_replies_twice(live):
    """The reply went out, then the sticky update failed the delivery; `retry` re-runs
    it: the sticky comment appears and the reply is found, not posted again."""
    client, rt, fake = live
    c = said_while_the_comments_cannot_be_listed(client, rt, fake, "/notes topic rocm\n/notes")
    assert rt.queue.retry() != []
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert len(replies(fake)) == 1 and sticky(fake) is not None
    assert reactions(fake, c) == {"eyes", "+1"}


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


def test_a_retry_for_a_missing_thumbs_up_does_not_pay_the_reply_budget_again(live):
    # `/notes topic rocm`: the reply goes out, the 👍 fails (the delivery fails). The
    # retry finds the reply by its key: paid for by the first run, it needs no budget,
    # so a spent budget does not turn the 👍 it was retried for into a 😕.
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    fail_the_done_reaction(fake, c)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 1
    assert rt.queue.retry() != []
    drain(rt)
    assert len(replies(fake)) == 1  # found by its key, not posted again
    assert reactions(fake, c) == {"eyes", "+1"}


def test_a_reaction_on_a_comment_deleted_meanwhile_is_moot(live):
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
    react = f"/repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"
    fake.inject("POST", react, *[Fault.error(404, "Not Found")] * 2)  # 👀 and 👍
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"  # nothing a retry could add
    assert sticky(fake) is not None and fake.pending_faults() == 0


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


def test_two_deliveries_asking_the_same_get_two_replies(live):
    """The reply key is per delivery: the same question asked again is answered again."""
    client, rt, fake = live
    say(client, rt, fake, "/notes topic rocm")
    say(client, rt, fake, "/notes topic rocm")
    first, second = replies(fake)
    assert first.body != second.body  # each carries its own delivery's key


def test_dry_run_finds_a_reply_by_its_key(tmp_path):
    from bot.dryrun import DryRunGitHub
    from bot.github_port import PRRef

    port, ref = DryRunGitHub(Database(tmp_path / "dry.db")), PRRef(DEFAULT_REPO, N)
    assert port.find_comment(ref, "<!-- k1 -->") is None
    port.create_comment(ref, "In reply to `/notes topic <!-- k1 -->`\n<!-- k0 -->")
    assert port.find_comment(ref, "<!-- k1 -->") is None  # quoted, not its key
    first = port.create_comment(ref, "answer\n<!-- k1 -->")
    assert port.find_comment(ref, "<!-- k1 -->") == first
    assert port.find_comment(PRRef(DEFAULT_REPO, N + 1), "<!-- k1 -->") is None


def diff_comment_payload(comment, *, head_sha: str, action: str = "created") -> dict:
    """A `pull_request_review_comment` delivery for a diff-line comment in the fake."""
    base = next(e for e in octokit_examples("pull_request_review_comment") if e["action"] == action)
    pr = pr_payload(title=MATCHING_TITLE, head_sha=head_sha, sender=AUTHOR)["pull_request"]
    p = dict(base, pull_request=pr, installation={"id": 1001})
    p["repository"] = dict(base["repository"], full_name=DEFAULT_REPO, name="vllm")
    who = {"login": comment.user.login, "id": comment.user.id, "type": comment.user.type}
    p["comment"] = dict(base["comment"], id=comment.id, body=comment.body, user=who)
    p["sender"] = who
    return p


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


def test_a_deferred_update_thanks_the_diff_comment_that_asked(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0.3))
    say(client, rt, fake, "/notes")  # opens the flood-control window
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes why", login="octo-dev")
    head = fake.pull(DEFAULT_REPO, N).head_sha
    post(client, "pull_request_review_comment", diff_comment_payload(c, head_sha=head))
    wait_until(lambda: "(why mode)" in sticky(fake).body and "+1" in reactions(fake, c))
    assert reactions(fake, c) == {"eyes", "+1"}


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
        ("/notes wrong 7", "There is no note `7` in the notes comment: it shows notes 1 to"),
        ("/notes wrong", "Say which note does not fit, by its number in the notes comment (1 to"),
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
    # the reply described "the notes comment" on a PR where the bot wrote none (found by
    # review 'reader')
    client, rt, fake = live
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert sticky(fake) is None
    (reply,) = replies(fake)
    assert "There is no notes comment on this pull request; nothing was hidden." in reply.body


def test_wrong_with_one_note_shown_names_only_that_one(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    assert len(state(rt).notes) == 1
    say(client, rt, fake, "/notes wrong 3", login=AUTHOR)
    (reply,) = replies(fake)
    assert "it shows only note 1 (say `/notes wrong 1`)" in reply.body  # not "notes 1"


def test_no_match_says_any_more_only_after_notes_were_shown(live):
    # a comment asked for with `/notes` on a PR no note matches said "No review note
    # matches this pull request.", and the next push rewrote it to "... any more", as
    # if notes had been shown and gone (found by review 'reader')
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
    # (found by review 'upgrade')
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


def test_notes_asked_for_on_a_pr_paused_by_the_label_stay_and_later_events_cost_nothing(live):
    # README: `/notes` on a paused PR shows the notes once and later events cost nothing;
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


def test_the_topic_reply_links_the_prs_repository_page(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes topic rocm")
    (reply,) = replies(fake)
    assert "/notes?topic=rocm&repo=vllm-project%2Fvllm)" in reply.body


def test_wrong_run_again_means_the_note_it_meant_the_first_time(live):
    # An edit that adds a reason re-runs `wrong 1`, and so does a delivery resumed after
    # a crash; by then the comment is renumbered, but the command still means its note.
    client, rt, fake = live
    title = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", title=title)
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
    assert f"it shows notes 1 to {len(shown)} " in replies(fake)[-1].body
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


def test_a_reply_quoting_the_marker_is_not_taken_for_the_notes_comment(live):
    # A format character keeps `<!-\u2060-` from reading as an HTML comment; the reply
    # quotes the command as code without it, so the reply holds the marker's text. Only
    # a comment of ours that opens with the marker is the notes comment.
    client, rt, fake = live
    say(client, rt, fake, "/notes <!-\u2060- review-notes:v1 -->")
    (reply,) = replies(fake)
    quoted = reply.body
    assert MARKER in quoted
    say(client, rt, fake, "/notes")
    assert quoted in [c.body for c in ours(fake)]  # left as it was
    assert sum(c.body.startswith(MARKER) for c in ours(fake)) == 1


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


def deliver_said_at(client, rt, comment, at: str, **kw) -> None:
    """Deliver a comment's event with the time GitHub gives its text (`updated_at`)."""
    p = comment_payload(comment, **kw)
    p["comment"] = dict(p["comment"], created_at=at, updated_at=at)
    assert post(client, "issue_comment", p).status_code == 202
    drain(rt)


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
    deliver_said_at(client, rt, on, "2026-09-01T10:05:00Z")
    deliver_said_at(client, rt, off, "2026-09-01T10:00:00Z")  # written first, arrives late
    assert not state(rt).opted_out
    assert reactions(fake, off) == {"eyes", "+1"}
    # an edit is said when it is made: adding `off` to an older comment counts then
    old = on.body
    on.body = "/notes on\n/notes off"
    deliver_said_at(client, rt, on, "2026-09-01T10:09:00Z", action="edited", old_body=old)
    assert state(rt).opted_out


def github_time_ago(seconds: float) -> str:
    """A time `seconds` ago as GitHub writes it in payloads (whole seconds, `Z`)."""
    return f"{utcnow(after_s=-seconds)[:19]}Z"


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


def maintainer_deletes(fake, comment) -> None:
    with fake._lock:  # in the web UI
        del fake._comments[comment.id]


def test_a_notes_on_said_before_the_deletion_and_retried_posts_the_comment_again(live):
    # `/notes on` is handled but its 👍 fails (the delivery fails). A maintainer then
    # deletes the notes comment: the next PR event opts the PR out ("go away", as
    # `/notes off`). `review-notes retry` re-runs the old `on`: said before the deletion
    # was noticed, it changes nothing. It used to turn updates on again and post a NEW
    # comment (a notification to everyone): the deletion recorded no `switched_at`
    # (found by review of session 13's change).
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
    # the author says `/notes on`. README: "`/notes on` resumes the updates (a new
    # comment as soon as notes match)". The `on`'s refresh used to find the comment
    # (known since before the `off`) gone and take that for a NEW opt-out: the PR was
    # off again right after `on`, with nothing posted (found by review of session 13).
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


# Found by review 'diff14'. 1. `/notes on` after a deletion made while off: resume lived only
# in the `on`'s own refresh. If that refresh does not complete before the next PR event (GitHub
# failed it, or flood control deferred it), the PR event takes the old deletion for a
# NEW opt-out dated after the `on`: the PR is off again, nothing is posted, the `on`
# got its +1 (README: "a comment deleted while they were off is posted anew once notes
# match"; commit 09b2032's bug, back through another door).


def test_an_on_whose_refresh_github_failed_is_kept_by_the_next_pr_event(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    first = sticky(fake)
    say(client, rt, fake, "/notes off", login=AUTHOR)
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


# Found by review 'diff14'. 2. A deletion noticed by `/notes off`'s own edit was dated
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


# Found by review 'diff14'. 3. `/notes on` on a draft whose comment was deleted while
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


# Found by review 'r2'. B1. `/notes on` the first to find a deletion no PR event noticed
# A maintainer deletes the notes comment; no PR event has run since (deletions make no
# event). The author says `/notes on` to have the notes back, after the deletion. The PR
# changed meanwhile (its title edit's event not yet processed), so the `on`'s own refresh
# writes and finds the comment gone. 5facef2 dropped the `on`'s own resume (it now only
# applies when the state already said off) and c2e3178 dates a deletion found by a
# command's write just after that command's key: the deletion outranks the author's
# `on` written after it. The PR ends off, nothing posted, the `on` got +1. Had the
# title's `edited` event been processed first, the deletion would be dated at that event
# and the same `on` would win (README: "one written after it counts"; "`/notes on`
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


# Found by review 'r2'. B2. `resumed` outlived a refresh that made no call
# `/notes off` then `/notes on` in one flood-control window: the folded update renders
# the notes comment as posted (UNCHANGED, no call), so `resumed` stays set though the
# comment is there and was never deleted. Days later a maintainer deletes it ("go
# away"); the next PR event that changes it posts a NEW comment (notifying everyone)
# instead of turning updates off. README: "Once an update finds the comment again, a
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


# Found by review 'r3'. 1. A retried `/notes on` re-armed `resumed`, undoing a later deletion
# README: "Until an update has asked GitHub and found the comment (the first one after an
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


# Found by review 'r4': a retry for a missing 👍 must not post again a reply a maintainer deleted
# README (Slash commands): a reaction GitHub refuses fails the delivery so that
# `review-notes retry` adds it; "the retry redoes nothing else (a reply is found by its
# key and not counted against the reply budget again ...)". `_reply_posted` only asks
# GitHub whether the reply is up NOW: a reply the first run posted (and paid for) that a
# maintainer deleted before the retry is taken for one never posted, so the retry, run
# for a 👍, posts the reply again (a new notification to everyone on the PR, undoing
# the maintainer's deletion) and charges the reply budget a second time; with the
# budget spent it reacts 😕 instead. The first run knew it posted the reply; a retry
# should not redo it.


def test_a_retry_for_its_thumbs_up_does_not_repost_a_reply_a_maintainer_deleted(live):
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    fail_the_done_reaction(fake, c)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    (reply,) = replies(fake)
    assert rt.queue.counts()["failed"] == 1 and reactions(fake, c) == {"eyes"}
    maintainer_deletes(fake, reply)  # the answer was read; a maintainer tidies up
    assert rt.queue.retry() != []  # the operator retries the delivery for its 👍
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert replies(fake) == [], "the retry for a 👍 posted the deleted reply again"


# Found by review 'r5'. 1. A reply found on GitHub by its key was never recorded
# `_reply_posted`: "Recorded once GitHub confirmed it; else found by its key (the run
# died between the post and the record)". When a re-run finds the reply by its key it
# does not record it, so the next re-run again depends on the reply being up on GitHub:
# a maintainer who deletes it between two retries gets it posted again (a new
# notification, the deletion undone) and the reply budget is paid a second time: the
# very defect 0626b0b fixed, left in place for a run that died between the POST and the
# record (process killed, a "database is locked"), and for every reply an older release
# posted (it records nothing) that this release retries after going forward again.
# README: "a reply posted before is known by its key, recorded in the database or found
# on GitHub, and is neither posted again, also when a maintainer deleted it".


def test_a_reply_found_by_its_key_on_a_retry_stays_known_after_a_maintainer_deletes_it(
    live,
    monkeypatch,
):
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    record = rt.ctx.prs.record_reply
    died: list[bool] = []

    def dies_after_the_post(*args, **kw):  # the run dies between the POST and the record
        if not died:
            died.append(True)
            raise RuntimeError("database is locked")
        return record(*args, **kw)

    monkeypatch.setattr(rt.ctx.prs, "record_reply", dies_after_the_post)
    post(client, "issue_comment", comment_payload(c))
    drain(rt)
    (reply,) = replies(fake)
    assert rt.queue.counts()["failed"] == 1
    # first retry: the reply is found by its key (not posted again); its 👍 fails
    fail_the_done_reaction(fake, c)
    assert rt.queue.retry() != []
    drain(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 1
    maintainer_deletes(fake, reply)  # the answer was read; a maintainer tidies up
    assert rt.queue.retry() != []  # the operator retries again for the 👍
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert replies(fake) == [], (
        "the second retry posted again a reply a maintainer deleted: the first retry found"
        " it by its key but never recorded it"
    )


def test_a_reply_of_ours_quoting_another_deliverys_key_is_not_taken_for_its_reply(live):
    """A reply echoes what its command said, and `&lt;` typed is `<` read: a reply of ours
    may quote the key of another delivery's reply. That delivery's re-run must still post
    its own reply, not take the quoting one for it (a key is a reply's last line)."""
    client, rt, fake = live
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault.error(422))
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    first = post(client, "issue_comment", comment_payload(c)).json()["delivery"]
    drain(rt)
    assert rt.queue.counts()["failed"] == 1 and replies(fake) == []
    key = reply_key(first, 0)
    typed = key.replace("<", "&lt;").replace(">", "&gt;")
    say(client, rt, fake, f"/notes topic {typed}", login="someone")
    (quoting,) = replies(fake)
    assert key in quoting.body and not quoting.body.endswith(key)
    assert rt.queue.retry() != []
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert [r.body.endswith(key) for r in replies(fake)] == [False, True]


# Found by review 'r5'. 3. pr_replies grew for good
# README (what the database keeps): deliveries are deleted after
# REVIEW_NOTES_DELIVERY_RETENTION_DAYS; "Kept for good, as they grow with PRs, not
# deliveries: pr_state, feedback, dry run's comments"; "the file stops growing at about
# the retention's worth of deliveries". pr_replies has one row per reply, i.e. it grows
# with deliveries, is not listed there, and nothing prunes it (bot/retention.py deletes
# deliveries only): a row whose delivery retention deleted can never be asked for again
# (no delivery left to retry; `_reply_posted` asks only on a re-run), yet it stays.


def test_retention_leaves_no_reply_record_of_a_pruned_delivery(live, caplog):
    client, rt, fake = live
    caplog.set_level("INFO", logger="bot.retention")
    for _ in range(3):
        say(client, rt, fake, "/notes topic rocm")
    assert len(replies(fake)) == 3
    assert rt.queue.counts()["done"] == 3
    pruned = rt.retention.prune(before="9999-12-31T00:00:00.000000Z")  # all of them are old
    assert sum(pruned.values()) == 3 and rt.queue.counts()["done"] == 0
    left = rt.ctx.prs.db.execute("SELECT COUNT(*) AS n FROM pr_replies")[0]["n"]
    assert left == 0, (
        f"{left} reply records outlive the deliveries retention deleted: pr_replies grows"
        " with every reply, for good"
    )
    # the log says so (left by session 14: the prune was counted nowhere)
    said = [r.getMessage() for r in caplog.records if r.name == "bot.retention"]
    assert any("and 3 records of replies posted by deliveries now gone" in m for m in said)


DAY = 86400


def _age(rt, delivery_id: str, *, received_days: float, failed_days: float) -> None:
    """Move a delivery and the reply records of its run into the past."""
    db = rt.queue.db
    db.execute(
        "UPDATE deliveries SET received_at = ?, updated_at = ? WHERE id = ?",
        (utcnow(-received_days * DAY), utcnow(-failed_days * DAY), delivery_id),
    )
    db.execute("UPDATE pr_replies SET posted_at = ?", (utcnow(-received_days * DAY),))


# Found by review 'r6'. Reply records were pruned by when the reply was posted, but a
# failed delivery is kept until `days` after its LAST failure (a retry that failed again
# restarts that clock) and can still be retried: the retry then no longer knew the
# reply, found nothing on GitHub (a maintainer deleted it) and posted it again.


def test_retention_keeps_the_reply_record_of_a_failed_delivery_it_keeps(live):
    client, rt, fake = live
    days = rt.retention.days
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    fail_the_done_reaction(fake, c)
    r = post(client, "issue_comment", comment_payload(c))
    drain(rt)
    (reply,) = replies(fake)
    delivery = r.json()["delivery"]
    assert rt.queue.get(delivery).state == "failed"
    # received (and replied to) days+3 days ago; retried for its 👍 days-4 days ago, and
    # GitHub refused the 👍 again: the delivery failed then, and is kept
    _age(rt, delivery, received_days=days + 3, failed_days=days - 4)
    rt.retention.prune()
    assert rt.queue.get(delivery) is not None, "retention keeps the recently failed delivery"
    maintainer_deletes(fake, reply)  # the answer was read; a maintainer tidied up
    assert rt.queue.retry() == [delivery]  # the operator retries it for its 👍
    drain(rt)
    assert reactions(fake, c) == {"eyes", "+1"}
    assert replies(fake) == [], (
        "the retry of a delivery retention kept posted again a reply a maintainer deleted:"
        " retention had deleted the reply's record (posted before the cutoff)"
    )


# Found by review 'r15d'. A retry for a missing 👍 ran every command of the comment again
# README: a 👍 GitHub refused fails the delivery and `review-notes retry` adds it; "the
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
    title = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    say(client, rt, fake, "/notes", title=title)
    first, second = state(rt).notes[:2]
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    c = say(client, rt, fake, "/notes topic rocm\n/notes wrong 1", login=AUTHOR, title=title)
    assert rt.queue.counts()["failed"] == 1 and state(rt).dismissed == ()
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR, title=title)
    assert state(rt).dismissed == (second,)

    retried_for_its_thumb(rt, fake, c)
    assert set(state(rt).dismissed) == {first, second}


# Found by review 'r15f'. The retry of a command written before a later `/notes off` (or
# `/notes`) still rewrote the notes comment: an older `/notes` or `/notes why` put the
# notes back into the comment the later `off` had cut to the short paused line, an older
# `off` took away the notes a later `/notes` showed. README: the retry changes nothing
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


# Found by review 'r15d'. Two people mark the same note in one flood-control window (the
# comment still shows it to both): the second's `record` found the standing mark, and
# `set_reason` overwrote its reason, so the curators' report (`review-notes notes
# feedback`) said the author wrote the maintainer's words. The first mark stands, with
# its author's words.


def test_a_second_reviewers_reason_is_not_put_in_the_first_reviewers_mouth(live):
    client, rt, fake = live
    title = title_with_one_more_note()
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    say(client, rt, fake, "/notes", title=title)
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


# --- found by review 'r15d' ---------------------------------------------------------------


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


# --- found by review 'r15f': invisible characters around the command word ---------------
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


@pytest.mark.parametrize(
    ("body", "login"),
    [
        # a drive-by contributor's typos, one comment
        ("/notes hlep\n/notes refersh\n/notes wyh", "drive-by"),
        # an outsider trying the owner-only commands, one comment
        ("/notes off\n/notes wrong 1\n/notes restore", "drive-by"),
    ],
)
def test_one_comment_with_several_bad_commands_gets_one_error_reply(live, body, login):
    # Every unknown or refused command of a comment was answered by a comment of its own:
    # one comment with three typos made three near-identical bot comments (a
    # notification each to everyone watching the PR), and spent most of the PR's reply
    # budget, so the next person's `/notes help` might get only a 😕.
    client, rt, fake = live
    c = say(client, rt, fake, body, login=login)
    assert "confused" in reactions(fake, c)
    assert len(replies(fake)) <= 1, [r.body.splitlines()[1] for r in replies(fake)]
    say(client, rt, fake, "/notes help", login="someone-else")
    assert len(replies(fake)) == 2  # the budget (5) paid for one reply, not three


def test_a_comments_errors_share_one_reply_and_its_lookups_keep_theirs(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = say(client, rt, fake, "/notes topic rocm\n/notes hlep\n/notes wrong 9\n/notes wyh")
    topic, errors = replies(fake)
    assert "ROCm" in topic.body and "hlep" not in topic.body
    assert "There is no `hlep` or `wyh` command." in errors.body
    assert "Only the PR author or a collaborator with write access" in errors.body
    assert parse_commands(errors.body) == []
    assert reactions(fake, c) == {"eyes", "confused", "+1"}  # the topic was answered
    assert state(rt).dismissed == ()


def test_a_retried_delivery_finds_its_one_error_reply(live):
    # The error reply went out, then the notes comment's update failed the delivery;
    # `retry` finds the reply by its one key and does not post it again.
    client, rt, fake = live
    c = said_while_the_comments_cannot_be_listed(
        client, rt, fake, "/notes hlep\n/notes\n/notes wyh"
    )
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    assert rt.queue.retry() != []
    drain(rt)
    assert rt.queue.counts()["failed"] == 0 and sticky(fake) is not None
    (reply,) = replies(fake)
    assert "There is no `hlep` or `wyh` command." in reply.body
    assert reactions(fake, c) == {"eyes", "confused", "+1"}


# --- locked conversations (found by review 'r15d') ----------------------------------------
# On a locked conversation only collaborators may comment, and nobody may react: a
# maintainer's `/notes help` reached the bot, but GitHub refused the App's comments
# there (403, as probot/stale, Renovate and others met). The delivery failed, showed in
# /healthz, and `review-notes retry` failed again for good; the maintainer was left with
# a 👀 and no answer.


def test_a_command_on_a_locked_pr_is_not_a_failure_no_retry_can_fix(live):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    fake.lock(DEFAULT_REPO, N, "too heated")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="maintainer")  # a collaborator
    payload = comment_payload(c)
    payload["issue"].update(locked=True, active_lock_reason="too heated")
    fake.clear_requests()
    r = post(client, "issue_comment", payload)
    assert r.status_code == 202 and r.json()["status"] == "ignored"
    assert "locked" in r.json()["reason"]
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert client.get("/healthz").json()["failed"] == 0
    assert reactions(fake, c) != {"eyes"}  # taken, then neither answered nor refused
    assert repo_calls(fake) == Counter()  # nothing tried that GitHub must refuse


def test_a_review_on_a_locked_pr_is_ignored_too(live):
    client, rt, fake = live
    head = fake.pull(DEFAULT_REPO, N).head_sha
    fake.lock(DEFAULT_REPO, N)
    payload = review_payload("/notes help", head_sha=head)
    payload["pull_request"]["locked"] = True
    r = post(client, "pull_request_review", payload)
    assert r.json()["status"] == "ignored" and "locked" in r.json()["reason"]


def test_a_lock_between_the_command_and_its_answer_ends_the_delivery(live, caplog):
    # the payload says unlocked; by the time the bot answers, a maintainer has locked it
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help\n/notes", login="octo-dev")
    fake.lock(DEFAULT_REPO, N)
    with caplog.at_level("INFO", logger="bot.dispatch"):
        r = post(client, "issue_comment", comment_payload(c))
        drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"
    assert client.get("/healthz").json()["failed"] == 0
    assert reactions(fake, c) == set() and ours(fake) == []
    assert "is locked, GitHub refused our write" in caplog.text
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


# Found by review 'r15i'. A command run late on a paused PR left the comment as a later
# command had it, even when it showed notes: a late `wrong` left its note shown (the
# state hid it; no PR event runs while paused), and a late `off` left the notes without
# the paused line, which the same written order through flood control has.


PAUSED = "Automatic updates are paused"


def test_a_wrong_retried_while_paused_still_hides_its_note_in_the_comment(live):
    # README: "A `wrong` that never ran still hides its note when it runs late, after
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


def test_a_late_off_written_before_a_notes_leaves_a_comment_that_says_paused(live):
    # An `off` written first but delivered after a later `/notes`: the PR is paused, yet
    # the comment is left showing the notes with no paused line (and PR events now skip,
    # so it goes stale silently). The same written order through one flood-control window
    # gives the notes WITH the paused line (test_a_late_off_folded_into_a_later_whys_...).
    client, rt, fake = live
    off = fake.add_comment(DEFAULT_REPO, N, "/notes off", login=AUTHOR)  # written first
    say(client, rt, fake, "/notes", login=AUTHOR)  # written after it, delivered first
    assert not state(rt).opted_out and PAUSED not in sticky(fake).body
    assert post(client, "issue_comment", comment_payload(off)).status_code == 202  # late
    drain(rt)
    assert reactions(fake, off) == {"eyes", "+1"}
    assert state(rt).opted_out
    body = sticky(fake).body
    assert body.startswith(MARKER)
    assert PAUSED in body, "paused PR, but its comment shows the notes with no paused line"


# --- found by review 'r16b' ---


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


def test_every_command_that_updates_the_comment_says_what_it_changes():
    # three lists (Kind.updates_sticky, _STATE_CHANGES, _SHOWING) must agree: a kind
    # added to the first alone fails with a KeyError when it runs (review 'r16e')
    from bot.command_updates import _SHOWING, _STATE_CHANGES, SWITCHES
    from bot.commands import Kind

    updating = {k for k in Kind if k.updates_sticky}
    assert set(_STATE_CHANGES) == updating
    assert set(_SHOWING) | set(SWITCHES) == updating
    assert not set(_SHOWING) & set(SWITCHES)


# --- found by review 'r17c' ---


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
    deliver_pr(
        client,
        rt,
        action="closed",
        state="closed",
        title=MATCHING_TITLE,
        updated_at="2026-09-01T11:00:00Z",
    )
    _github_says_merged(fake, monkeypatch)

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


# --- found by review 'r17m' ---

REACTIONS = "/repos/*/issues/comments/*/reactions"


def _said(client, fake, body: str, login: str = "octo-dev"):
    """Write a comment and deliver it, without waiting: the comment and its delivery id."""
    c = fake.add_comment(DEFAULT_REPO, N, body, login=login)
    r = post(client, "issue_comment", comment_payload(c))
    assert r.status_code == 202, r.text
    return c, r.json()["delivery"]


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


def test_a_put_back_reply_is_not_paid_twice_from_the_reply_budget(
    tmp_path, fake_github, app_key, monkeypatch
):
    """A rate limited reply (Retry-After 2 s, over a 1 s sleep cap) is put back. Its
    first run spent a token of the PR's reply budget before the POST GitHub refused; the
    re-run found no reply under its key and paid again: with a budget of one the reply
    was never posted, the command `confused` and "over the reply budget"."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
        fake.inject(
            "POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault.too_many_requests(2)
        )
        c, delivery = _said(client, fake, "/notes help")
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        drain(rt, 20)
        assert rt.queue.get(delivery).state == "done"
        assert len(replies(fake)) == 1, reactions(fake, c)
        assert reactions(fake, c) == {"eyes", "+1"}


# --- found by review 'r18d' ---


def test_the_installations_reply_budget_refuses_as_the_prs_does_and_is_logged_once(live, caplog):
    """Past the budget all the installation's PRs share (github_facts §3.3: about 500
    content-creating requests an hour), a command on a PR whose own budget is untouched
    gets what one past its PR's budget gets: `confused` and no reply. The log says so
    once, not once per refused command."""
    client, rt, fake = live
    config = CommandConfig(
        min_update_interval_s=0, installation_reply_burst=1, installation_reply_refill_s=3600
    )
    tune(rt, config, clock=lambda: 50.0)
    numbers = [N, N + 1, N + 2]
    for n in numbers[1:]:
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    comments = [say(client, rt, fake, "/notes help", number=n) for n in numbers]
    assert [len(replies(fake, n)) for n in numbers] == [1, 0, 0]
    # the first refused gets 😕; the next none at all (r18f: reactions are content writes)
    assert [reactions(fake, c) for c in comments] == [{"eyes", "+1"}, {"eyes", "confused"}, set()]
    said = [r.message for r in caplog.records if "over its reply budget" in r.message]
    assert len(said) == 1 and "installation 1001" in said[0], said


# --- found by review 'r18e' ---


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
        on["comment"].update(
            id=200, created_at="2026-09-01T12:00:00Z", updated_at="2026-09-01T12:00:00Z"
        )
        r2 = post(client, "issue_comment", on)
        assert r2.status_code == 202, r2.text
        drain(rt)
        assert rt.queue.get(r2.json()["delivery"]).state == "done"
        assert not rt.ctx.prs.get(DEFAULT_REPO, 8301).opted_out, (
            "the later `/notes on` changed nothing: the malformed `off` outranks it"
        )


# --- found by review 'r18f' ---


def test_commands_past_the_installations_reply_budget_create_no_content_on_github(live):
    """The installation's budget exists to keep the App under GitHub's ~500
    content-creating requests an hour, but only the reply comment was budgeted: every
    command past it still got two reactions (`eyes`, then `confused`), so a flood of 600
    commands in an hour, 100 replied, was still 100 x 3 + 500 x 2 = 1,300 content writes,
    past GitHub's 500, the App's comments blocked on every PR. Here: 2 replies allowed,
    10 commands over the budget; the refused ones cost GitHub one 😕 (and its 👀) at most."""
    client, rt, fake = live
    config = CommandConfig(
        min_update_interval_s=0, installation_reply_burst=2, installation_reply_refill_s=3600
    )
    tune(rt, config, clock=lambda: 50.0)
    numbers = [N + i for i in range(12)]
    for n in numbers[1:]:
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    fake.clear_requests()
    for n in numbers:
        say(client, rt, fake, "/notes help", number=n)
    content = [r for r in fake.requests if r.method == "POST" and r.path.startswith("/repos/")]
    replied = [r for r in content if r.path.endswith("/comments")]
    assert len(replied) == 2
    assert len(content) <= 3 * len(replied) + 2, sorted(r.path for r in content)


# --- every write a command causes is paid from the installation's budget ---


def content_writes(fake) -> list[str]:
    """The content-generating requests (github_facts §3.3) made since the last clear:
    reactions, comments, comment edits."""
    return [
        f"{r.method} {r.path}"
        for r in fake.requests
        if r.path.startswith("/repos/") and r.method in ("POST", "PATCH")
    ]


# The shipped installation write budget's burst, and the one 😕 a spell costs past it.
WRITE_BURST = 40


@pytest.mark.parametrize(
    "body, across_prs, count",
    [
        ("/notes", True, 16),  # sticky commands: 👀, the comment, 👍; none were budgeted
        ("/notes", False, 24),  # on one PR: 👀 and 👍 each (the comment is unchanged)
        ("/notes help\n/notes", True, 12),  # a reply with a sticky command
    ],
)
def test_a_flood_of_commands_writes_no_more_than_the_installations_write_budget(
    live, caplog, body, across_prs, count
):
    """github_facts §3.3: no more than 80 content-generating requests a minute and 500
    an hour, reactions and edits included, past which GitHub blocks the App's notes
    comments on every PR. Only reply comments were paid from the installation's budget:
    a flood of sticky commands (their 👀, the comment's edit, 👍), on many PRs or on
    one, or of comments mixing a reply with a sticky command wrote on without bound
    (commands past their PR's reply budget: the next-but-one test). Now each comment's
    writes are paid from the installation's write budget: past it, the first comment
    refused gets one 😕, the next none, nothing is run, and the log says so."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 50.0)
    numbers = [N + i if across_prs else N for i in range(count)]
    for n in sorted(set(numbers) - {N}):
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    fake.clear_requests()
    with caplog.at_level("INFO", logger="bot.command_answers"):
        comments = [say(client, rt, fake, body, number=n) for n in numbers]
    writes = content_writes(fake)
    assert len(writes) <= WRITE_BURST + 1, (len(writes), sorted(writes))
    assert rt.queue.counts()["failed"] == 0
    answered = [reactions(fake, c) for c in comments]
    refused = answered.index({"confused"})  # the spell's one write
    assert all(r and "eyes" in r for r in answered[:refused]), answered
    assert all(r == set() for r in answered[refused + 1 :]), answered
    warned = [r for r in caplog.records if r.levelname == "WARNING" and "write budget" in r.message]
    assert len(warned) == 1 and "installation 1001" in warned[0].message
    # each refused comment is logged, with what it asked
    logged = [r.getMessage() for r in caplog.records if "not run, over" in r.getMessage()]
    assert len(logged) == count - refused, logged
    metric = f'review_notes_commands_refused_total{{budget="write"}} {count - refused}.0'
    assert metric in rt.ctx.metrics.render().decode()


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


# An hour's window: a deferred update waits in the queue until `_run_due`; a budget of
# ten writes that never refills (the tests freeze the clock).
OWING = CommandConfig(
    min_update_interval_s=3600, installation_write_burst=10, installation_write_refill_s=3600
)


def _owe_an_update(client, rt, fake, body: str) -> FakeComment:
    """A command in the window of the one before: its update waits in the queue."""
    c = say(client, rt, fake, body, wait=False)
    wait_until(
        lambda: (
            state(rt).pending is not None
            and rt.queue.counts()["pending"] == 1
            and rt.queue.counts()["processing"] == 0
        ),
        what="the command done, its update queued",
    )
    return c


def _run_due(rt) -> None:
    """The window is over: the deferred updates queued run now."""
    rt.queue.db.execute("UPDATE deliveries SET not_before = ? WHERE state = 'pending'", (utcnow(),))
    drain(rt)


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
    c = _owe_an_update(client, rt, fake, body)
    assert budget.left(1001) == 10 - 3 - 3  # 👀, and the update's 👍 and comment paid now
    fake.clear_requests()
    _run_due(rt)
    assert reactions(fake, c) == {"eyes", "+1"} and sticky_writes(fake) == 1 - given_back
    assert budget.left(1001) == 10 - 6 + given_back
    assert rt.queue.counts()["failed"] == 0


def test_a_deferred_update_is_the_bots_own_delivery_not_githubs(live):
    """The start's redelivery sweep asks GitHub for what it failed to deliver since the
    newest delivery GitHub sent (`last_received`): a deferred update queued later is no
    such delivery (review r22c)."""
    client, rt, fake = live
    tune(rt, OWING, clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")
    _owe_an_update(client, rt, fake, "/notes why")
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
    why = _owe_an_update(client, rt, fake, "/notes why")
    now[0] += 3600 + 60  # lost: the next command runs at once, for both
    c = say(client, rt, fake, "/notes", wait=False)
    wait_until(
        lambda: reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["processing"] == 0,
        what="the command answered",
    )
    assert reactions(fake, why) == {"eyes", "+1"} and state(rt).pending is None
    budget = rt.ctx.flood.installation_writes
    before = budget.left(1001)
    _run_due(rt)  # "nothing owed: an earlier update covered it"
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
        c = _owe_an_update(client, rt, fake, "/notes")
        budget = rt.ctx.flood.installation_writes
        assert budget.left(1001) == 4
        thanks = f"/repos/{DEFAULT_REPO}/issues/comments/{c.id}/reactions"
        fake.inject("POST", thanks, Fault.secondary_rate_limit(retry_after=2))
        _run_due(rt)  # put back, then run again 2 s later
        assert reactions(fake, c) == {"eyes", "+1"} and len(fake.calls("POST", thanks)) == 3
        assert budget.left(1001) == 5 and rt.queue.counts()["failed"] == 0
        # one more owed, then a restart: the next server runs it
        _owe_an_update(client, rt, fake, "/notes")
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        tune(rt, OWING, clock=lambda: 1000.0)
        budget = rt.ctx.flood.installation_writes
        assert budget.allow(1001, 4)  # spent on other PRs since the start
        _run_due(rt)
        assert budget.left(1001) == 6, "given back a write this process was never paid"


def test_a_flood_on_one_pr_leaves_the_installations_write_budget_to_the_others(live, caplog):
    """Past its PR's reply budget a reply command still got 👀 and 😕, two writes each,
    now paid from the installation's write budget: one commenter flooding one PR with
    `/notes help` spent it all, and commands on every other PR went unanswered. As past
    the installation's reply budget, the first command refused on the PR gets 😕, the
    next that want only replies nothing until the PR has a reply again; logged."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 50.0)
    fake.add_pull(DEFAULT_REPO, N + 1, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    fake.clear_requests()
    with caplog.at_level("INFO", logger="bot.command_answers"):
        flood = [say(client, rt, fake, "/notes help") for _ in range(30)]
    answered = [reactions(fake, c) for c in flood]
    assert answered == [{"eyes", "+1"}] * 5 + [{"eyes", "confused"}] + [set()] * 24, answered
    assert len(content_writes(fake)) == 5 * 3 + 2
    other = say(client, rt, fake, "/notes help", number=N + 1)
    assert reactions(fake, other) == {"eyes", "+1"} and len(replies(fake, N + 1)) == 1
    quiet = [r for r in caplog.records if "its replies are refused" in r.getMessage()]
    assert len(quiet) == 24 and f"#{N}" in quiet[0].getMessage(), quiet[:1]
    text = rt.ctx.metrics.render().decode()
    assert 'review_notes_commands_refused_total{budget="reply"} 24.0' in text
    assert 'review_notes_commands_refused_total{budget="write"}' not in text


# --- found by review 'r19f' ---


def test_a_command_put_back_for_a_rate_limit_is_not_left_with_eyes_and_no_answer(live):
    """The write budget reserves a comment's writes "before its first": "a comment is
    answered whole or not at all, never left with 👀 and no answer because the budget
    ran out halfway". A delivery GitHub rate limited halfway is put back (Reactions.check,
    or the reply's create_comment raising the limit) and its reservation refunded in
    `run_commands`' finally; its re-run must reserve again, from scratch, as if it were a
    new comment. When the installation's budget is spent by then, and a secondary rate
    limit is exactly when it is likely to be, the re-run is refused (`_not_run`): no 😕
    either once the spell has begun, and the delivery is marked done ("not run"), so not
    even `review-notes retry` brings it back. The comment keeps its 👀 and never gets
    its reply: the halfway state the reservation promises away, and before this change
    the re-run answered it."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill: the budget is what the test spends
    comments = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    fake.inject("POST", comments, Fault.secondary_rate_limit(retry_after=8))  # > retry_sleep_max
    c = say(client, rt, fake, "/notes help", wait=False)
    wait_until(
        lambda: rt.queue.counts()["pending"] == 1 and fake.calls("POST", comments),
        what="the delivery put back after its 👀",
    )
    assert reactions(fake, c) == {"eyes"}
    # meanwhile a flood on the installation's other PRs spends the write budget
    flood = rt.ctx.flood
    assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
    assert flood.reserve_writes(1001, 4).first  # the flood's comment got the spell's 😕
    time.sleep(9)  # the put-back's wait
    drain(rt)
    answered = reactions(fake, c)
    assert replies(fake) or "confused" in answered, (
        f"put back halfway, then refused whole: the comment is left with {answered} and no"
        f" reply; the delivery is {rt.queue.counts()}"
    )


def test_an_off_put_back_for_a_rate_limit_takes_full_effect_past_the_write_budget(
    tmp_path, fake_github, app_key, monkeypatch
):
    """`/notes off` whose pausing edit of the notes comment GitHub rate limited is put
    back with its 👀 (and the PR's state already off). Its re-run, with the installation's
    write budget spent meanwhile, was refused whole: the comment kept its notes, the
    command its 👀 and no 👍. A re-run of an admitted run is never refused by the write
    budget (reviews 'r19g', 'r19h'): it takes its writes past the budget, pauses
    the comment and thanks it, and gives back what it did not write."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        edits = _notes_then_limited_edits(client, rt, fake, 1)
        c = say(client, rt, fake, "/notes off", login=AUTHOR, wait=False)
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and fake.calls("PATCH", edits),
            what="the `off` put back after its 👀",
        )
        assert reactions(fake, c) == {"eyes"} and state(rt).opted_out
        flood = rt.ctx.flood
        assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
        drain(rt, 20)
        assert "Automatic updates are paused" in sticky(fake).body
        assert reactions(fake, c) == {"eyes", "+1"} and state(rt).opted_out
        assert rt.queue.counts()["failed"] == 0
        # the re-run took its 4 past the spent budget and wrote 👀 (GitHub keeps one), the
        # edit and 👍: one given back, three owed to the refills
        assert flood.installation_writes.left(1001) == -3


# --- found by review 'r19g' ---


def test_a_failed_command_retried_under_a_spent_budget_is_answered(live):
    """Defect (medium, the r19f defect through the other door): 2f1889c keeps a comment's
    write reservation only when its run is put back for a rate limit. A run that fails
    halfway for any other reason (the reply's POST answered 422/5xx after the 👀) still
    gives its reservation back; the delivery is failed, and README's way out is
    `review-notes retry`. The retry reserves anew, and with the installation's write
    budget spent meanwhile it is refused whole (`_not_run`: no 😕 once the spell has
    begun) and marked done ("not run"), so the comment keeps its 👀 with no answer for
    good and no further retry brings it back: the halfway state the reservation
    ("answered whole or not at all, never left with 👀 and no answer") promises away."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill: the budget is what the test spends
    comments = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    fake.inject("POST", comments, Fault.error(422, "Validation Failed"))
    c = say(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes"} and not replies(fake)
    assert rt.queue.counts()["failed"] == 1
    # meanwhile a flood on the installation's other PRs spends the write budget
    flood = rt.ctx.flood
    assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
    assert flood.reserve_writes(1001, 4).first  # the flood's comment got the spell's 😕
    assert rt.queue.retry() != []  # the operator: `review-notes retry --all`
    drain(rt)
    answered = reactions(fake, c)
    assert replies(fake) or "confused" in answered or rt.queue.counts()["failed"], (
        f"failed halfway, retried, refused whole: the comment is left with {answered} and"
        f" no reply, and the delivery is {rt.queue.counts()}"
    )


def test_a_review_off_put_back_for_a_rate_limit_on_its_edit_is_applied(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Defect (medium): 2f1889c keeps the reservation only when the run "began writing"
    (`spent.writes > 0`), on the ground that a run put back before its first write "has
    no 👀 to strand, and it pays anew". But a command changes the PR's state before it
    writes (`off` sets opted_out, `wrong`/`restore` the dismissed notes), and a review has
    no reactions: `/notes off` in a review body whose pausing edit GitHub rate limits has
    spent nothing (the edit counts only once written), so its reservation is refunded,
    and its re-run, with the installation's write budget spent meanwhile, is refused
    whole and marked done ("not run"). The PR's state says off, the notes comment keeps
    its notes unpaused, and no retry brings it back: the very `off` case 2f1889c fixed,
    through a review (README: a review's command "is answered like one in a comment")."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, head):
        edits = _notes_then_limited_edits(client, rt, fake, 1)
        r = post(
            client,
            "pull_request_review",
            review_payload("/notes off", login=AUTHOR, head_sha=head),
        )
        assert r.status_code == 202
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and fake.calls("PATCH", edits),
            what="the review's `off` put back after its edit was refused",
        )
        assert state(rt).opted_out
        # meanwhile a flood on the installation's other PRs spends the write budget
        flood = rt.ctx.flood
        assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
        drain(rt, 20)
        body = sticky(fake).body
        assert "Automatic updates are paused" in body, (
            f"the review's `off` was put back, then refused whole: the PR is off, its notes"
            f" comment is not paused; the delivery is {rt.queue.counts()}"
        )


def test_a_retried_reply_command_under_a_reply_spell_gets_confused_not_silence(live):
    """The other refusal at the top of `run_commands`: while the installation's reply
    budget is refusing, a first run of a comment that wants only replies is not answered
    at all (no 👀 to strand). A re-run skips that check too (its first run took the
    comment, 👀 and all): its reply still asks the reply budget, and refused it gets 😕,
    so the comment is answered, not left with 👀 alone."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill
    comments = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    fake.inject("POST", comments, Fault.error(422, "Validation Failed"))
    c = say(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes"} and rt.queue.counts()["failed"] == 1
    # meanwhile the installation's replies are spent on its other PRs, and refused
    flood = rt.ctx.flood
    refusals = (flood.allow_reply(f"other/repo#{i}", 1001) for i in range(100))
    refused = next(r for r in refusals if r is not None)
    assert refused.installation and flood.refusing(1001)
    assert rt.queue.retry() != []
    drain(rt)
    assert reactions(fake, c) == {"eyes", "confused"} and not replies(fake)
    assert rt.queue.counts() == {"pending": 0, "processing": 0, "done": 1, "failed": 0}


def test_a_command_put_back_before_the_budget_was_asked_is_asked_again(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Only a re-run of a run the write budget admitted passes it (FloodControl.admitted).
    A run put back before it asked (GitHub rate limited the permission check) wrote
    nothing and set nothing: counting every re-run as admitted (`attempts > 1`) let a
    flood put back that early pass the budget whole. Its re-run is admitted or refused
    like a first run."""
    fake = fake_github
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill
        asked = f"/repos/{DEFAULT_REPO}/collaborators/maintainer/permission"
        fake.inject("GET", asked, Fault.secondary_rate_limit(retry_after=2))
        c = say(client, rt, fake, "/notes off", login="maintainer", wait=False)
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and fake.calls("GET", asked),
            what="the `off` put back at its permission check",
        )
        assert reactions(fake, c) == set() and not state(rt).opted_out
        # meanwhile a flood on the installation's other PRs spends the write budget
        flood = rt.ctx.flood
        assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
        drain(rt, 20)
        assert reactions(fake, c) == {"confused"}, "refused: the spell's one 😕"
        assert not state(rt).opted_out
        assert flood.installation_writes.left(1001) == 0, "nothing taken past the budget"


# --- found by review 'r19h' ---


def test_a_second_put_back_of_an_admitted_command_is_still_answered_whole(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Defect (low): d9bd1dc's `FloodControl.admit` says it remembers a run "reserved, or
    taken as a re-run's", and it moves a delivery admitted again to the newest place (its
    unit test: "admitted again: the newest now"), but `run_commands` calls it only on
    the reserve path: a re-run (admitted, `take_writes`) never refreshes its place. A
    command put back twice keeps the place of its first run, so the 4,096 admissions of
    a busy installation between its first run and its second re-run forget it, even when
    its first re-run came after all but one of them: that re-run is then asked for
    anew, refused under a spent budget, and the `off` is left with its 👀, its PR state
    off and its notes comment never paused (the halfway state the reservation promises
    away)."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        edits = _notes_then_limited_edits(client, rt, fake, 2)
        c = say(client, rt, fake, "/notes off", login=AUTHOR, wait=False)
        flood = rt.ctx.flood
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and len(fake.calls("PATCH", edits)) == 1,
            what="the `off` put back after its 👀 (first run, admitted)",
        )
        for i in range(4095):  # other comments admitted meanwhile
            flood.admit(f"other-{i}")
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and len(fake.calls("PATCH", edits)) == 2,
            what="the `off` put back again (its re-run, admitted)",
        )
        flood.admit("one-more")  # one admission after the re-run
        assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
        drain(rt, 20)
        assert reactions(fake, c) == {"eyes", "+1"} and state(rt).opted_out, (
            f"the second re-run was refused: {reactions(fake, c)}"
        )
        assert "Automatic updates are paused" in sticky(fake).body


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
    head = fake.pull(DEFAULT_REPO, N).head_sha
    if event == "pull_request_review":
        payload = review_payload("/notes", head_sha=head)
    elif event == "issue_comment":
        payload = comment_payload(fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev"))
    else:
        c = fake.add_review_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
        payload = diff_comment_payload(c, head_sha=head)
    payload[part]["id" if field.endswith(".id") else "number"] = value
    r = post(client, event, payload)
    said = f"malformed {event} payload: {field}: not a positive integer ({shown})"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert sum(rt.queue.counts().values()) == 0


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


# --- found by mutation run 'r20a' ---


# kills: bot/command_events.py:650 a late `wrong` records its own older key as the newest
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


# kills: bot/command_events.py:807 the deferred update does not open the next window
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


# kills: bot/command_events.py:402 a comment not all of whose commands want a reply dropped
def test_a_comment_asking_for_the_notes_and_a_reply_is_answered_while_replies_are_refused(live):
    # the reply budget refuses replies, not the notes comment: `/notes` still updates it
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    say(client, rt, fake, "/notes help")  # the budget's one reply
    refused = say(client, rt, fake, "/notes help")  # over it: a spell of refusals begins
    assert reactions(fake, refused) == {"eyes", "confused"} and sticky(fake) is None
    both = say(client, rt, fake, "/notes why\n/notes help")
    assert "(why mode)" in sticky(fake).body
    assert "eyes" in reactions(fake, both) and len(replies(fake)) == 1


# kills: bot/command_events.py:504 `+1` given before the deferred update it waits for
def test_a_comment_whose_update_is_deferred_gets_its_thumbs_up_only_with_the_update(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=3600), clock=lambda: 1000.0)
    say(client, rt, fake, "/notes")  # runs at once, opens an hour's window
    done = rt.queue.counts()["done"]
    c = say(client, rt, fake, "/notes why\n/notes help", wait=False)  # why deferred an hour
    wait_until(lambda: rt.queue.counts()["done"] == done + 1, what="the comment answered")
    assert len(replies(fake)) == 1 and "(why mode)" not in sticky(fake).body
    assert state(rt).pending is not None
    assert reactions(fake, c) == {"eyes"}  # not done yet: its 👍 comes with the update


# --- found by review 'r20c' and 'r20e' ---


@pytest.mark.parametrize(
    "read",
    [
        f"/repos/{DEFAULT_REPO}/pulls/{N}",  # the PR's head: a comment's payload has none
        # the comment list, read by the port before its write: a write was counted as
        # asked for when sticky began to write, before this read (review r20e)
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
    claimed at the first run's start, review r20c): one write of the installation's
    budget lost per deferred update that meets a rate limit before its write, when the
    installation is under pressure, which is when the budget matters."""
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, OWING, clock=lambda: 1000.0)
        say(client, rt, fake, "/notes")  # 👀, the comment, 👍: 3; the window opens
        c = _owe_an_update(client, rt, fake, "/notes")  # 👀, and 👍 + comment prepaid: 3
        budget = rt.ctx.flood.installation_writes
        assert budget.left(1001) == 10 - 6
        fake.inject("GET", read, Fault.secondary_rate_limit(retry_after=2))
        fake.clear_requests()
        _run_due(rt)  # put back, then run again 2 s later: the comment is already right
        assert len(fake.calls("GET", read)) >= 2, "the update was not put back"
        assert reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["failed"] == 0
        assert sticky_writes(fake) == 0  # no write of the notes comment made or asked for
        assert budget.left(1001) == 10 - 6 + 1, (
            "the write prepaid for a notes comment the update never wrote was kept"
        )

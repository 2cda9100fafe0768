"""Slash commands end to end, how they are run and answered (bot.command_answers): each
command's answer and who may run it, the reply comments (one per lookup, one for all a
comment could not do, never posted twice by a re-run), what each costs in GitHub calls,
and the reply and write budgets a comment pays before its first write, put-backs and
retries included.

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

from bot.commands import CommandConfig, parse_commands
from bot.db import Database
from bot.logs import JsonFormatter, Redactor
from bot.markers import MARKER, reply_key
from bot.times import utcnow
from tests.command_kit import (
    AUTHOR,
    INSTANT,
    N,
    _putting_back,
    _said,
    comment_payload,
    content_writes,
    diff_comment_payload,
    edit,
    fail_the_done_reaction,
    maintainer_deletes,
    reactions,
    replies,
    review_payload,
    said_and_left_without_its_thumb,
    say,
    state,
    sticky,
    tune,
)
from tests.fake_github import DEFAULT_REPO, FakeComment, Fault, Identity
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    clean_env,
    drain,
    live_settings,
    make_settings,
    octokit_examples,
    ours,
    post,
    repo_calls,
    serving,
    wait_until,
)

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
    assert "Why this note:" in why and "Topics this pull request touches" in why
    assert "<details>" not in why  # the evidence is shown, not folded
    assert reactions(fake, c) == {"eyes", "+1"}
    say(client, rt, fake, "/notes refresh")  # a plain refresh leaves why mode
    assert "(why mode)" not in sticky(fake).body


# kills: bot/commands.py:_parse_line (hand) no sub-command read after a colon: `/notes: why`
#   refreshed the plain comment (the colon ended the command, as a full stop does) and
#   `/notes:why` was no command at all (no reaction, nothing done)
# kills: bot/comment_prose.py:colon_label (hand) a colon after a space not read: `/notes : why`
#   refreshed the plain comment
@pytest.mark.parametrize(
    "line", ["/notes: why", "/notes:why", "/notes：why", "/Notes: why?", "/notes : why"]
)
def test_a_sub_command_labelled_by_a_colon_after_the_word_runs(live, line):
    client, rt, fake = live
    c = say(client, rt, fake, line)
    assert "(why mode)" in sticky(fake).body
    assert reactions(fake, c) == {"eyes", "+1"} and replies(fake) == []


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


def test_a_search_on_a_notes_own_source_pr_names_it_this_pull_request(live):
    """The reply knows the PR it is posted on: on PR 52419 its note's source is "this
    pull request", not a link to the page the reader is on; on another PR, the link."""
    client, rt, fake = live
    fake.add_pull(DEFAULT_REPO, 52419, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    say(client, rt, fake, "/notes search 52419", number=52419)
    (own,) = replies(fake, 52419)
    assert " · source: this pull request · " in own.body and "/pull/52419" not in own.body
    say(client, rt, fake, "/notes search 52419")
    (elsewhere,) = replies(fake)
    assert "source: [PR 52419](https://redirect.github.com/vllm-project/vllm/pull/52419)" in (
        elsewhere.body
    )


def test_unknown_sub_command_gets_a_short_help_and_confused(live):
    client, rt, fake = live
    c = say(client, rt, fake, "/notes frobnicate")
    (reply,) = replies(fake)
    assert "There is no `frobnicate` command" in reply.body and "`/notes help`" in reply.body
    assert reactions(fake, c) == {"confused"}


def test_a_sub_command_ending_a_sentence_runs_as_itself(live):
    # `.`/`?` an English writer adds, `。` and `，` a Chinese input method types (with no
    # space after the comma): the command the writer meant, not "There is no `off。`".
    client, rt, fake = live
    say(client, rt, fake, "/notes why?")
    assert state(rt).verbose
    off = say(client, rt, fake, "/notes off。", login=AUTHOR)
    assert state(rt).opted_out and reactions(fake, off) == {"eyes", "+1"}
    on = say(client, rt, fake, "/notes on，谢谢", login=AUTHOR)
    assert not state(rt).opted_out and reactions(fake, on) == {"eyes", "+1"}
    say(client, rt, fake, "/notes topic. cuda-graphs")
    (reply,) = replies(fake)
    assert "on **CUDA graphs**" in reply.body and "There is no" not in reply.body


def test_the_command_word_ending_a_sentence_and_a_topic_with_thanks_glued_on(live):
    # "/notes。" was no command at all (nothing happened), and "/notes topic cuda-graphs，
    # 谢谢" answered "There is no topic": a Chinese input method puts no space after 。 or ，
    client, rt, fake = live
    c = say(client, rt, fake, "麻烦再匹配一次：\n/notes。")
    assert sticky(fake) is not None and reactions(fake, c) == {"eyes", "+1"}
    say(client, rt, fake, "/notes topic cuda-graphs，谢谢")
    (reply,) = replies(fake)
    assert "on **CUDA graphs**" in reply.body and "There is no" not in reply.body


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


# --- cost ---------------------------------------------------------------------------


def cost(rt, fake, act) -> Counter:
    """The repository calls `act` makes, once the queue is drained."""
    fake.clear_requests()
    act()
    drain(rt)
    return repo_calls(fake)


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


def test_a_burst_of_commands_for_an_uninstalled_installation_mints_once(live):
    # What docs/internals.md says three queued commands cost once the App is uninstalled
    # (it said eight): the removed installation's mint, answered 404
    # and kept, and a lookup of the repository's installation, never kept, for each of a
    # command's two calls (its eyes, then the commenter's permission), all failing
    client, rt, fake = live
    rt.workers.stop()
    ids = [f"burst-{i}" for i in range(3)]  # three workers run them at once
    for delivery in ids:
        c = fake.add_comment(DEFAULT_REPO, N, "/notes", login="octo-dev")
        r = post(client, "issue_comment", comment_payload(c), delivery=delivery)
        assert r.status_code == 202, r.text
    fake.uninstall(1001)
    fake.clear_requests()
    rt.workers.start()
    drain(rt)
    asked = Counter((r.method, r.path.rsplit("/", 1)[-1], r.status) for r in fake.requests)
    assert asked == {("POST", "access_tokens", 404): 1, ("GET", "installation", 404): 6}
    for delivery in ids:
        failed = rt.queue.get(delivery)
        assert failed.state == "failed" and "the App is not installed" in failed.last_error


def _now() -> tuple[float, float]:
    """A comment's times (written, last edited) as written now: the delivery of one
    older than deliveries are kept is refused as a replay."""
    return time.time(), time.time()


def test_dry_run_answers_from_the_event(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path)) as (client, rt):
        tune(rt)
        # No GitHub in a dry run: the comment exists only in its event, and the PR's
        # title comes from the event's issue.
        comment = FakeComment(99, DEFAULT_REPO, N, "/notes why", Identity("octo-dev", 3), *_now())
        post(client, "issue_comment", comment_payload(comment))
        drain(rt)
        (c,) = rt.dry_run.comments(DEFAULT_REPO, N)
        assert c["sticky"] and "(why mode)" in c["body"] and "52419" in c["body"]
        assert {r["content"] for r in rt.dry_run.reactions()} == {"eyes", "+1"}


# kills: bot/dryrun.py:DryRunGitHub.permission `return "write"` -> `return None`
def test_in_a_dry_run_anyone_may_turn_the_notes_off(tmp_path, monkeypatch):
    # no GitHub to ask for permissions: local development tries every command, one the
    # PR's author alone (or a maintainer) may run included
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path)) as (client, rt):
        tune(rt)
        comment = FakeComment(99, DEFAULT_REPO, N, "/notes off", Identity("octo-dev", 3), *_now())
        post(client, "issue_comment", comment_payload(comment))
        drain(rt)
        assert state(rt).opted_out
        assert rt.dry_run.comments(DEFAULT_REPO, N) == []  # no refusal replied


# kills: bot/webhook.py:WebhookEndpoint._older_than_kept a dry run on the development secret
#   refusing a comment older than the deliveries kept, or one on a real secret taking it
@pytest.mark.parametrize("secret", [None, SECRET])
def test_a_dry_run_on_the_development_secret_runs_a_comment_of_any_age(
    tmp_path, monkeypatch, secret
):
    # examples/'s comment keeps the time it was written: refused as a replay once two
    # weeks old, a curator's `replay` of it was answered 202 "ignored", nothing done. The
    # development secret is printed at start, so the refusal kept no one out; a dry run
    # given the App's secret (a preview on real traffic) still refuses it.
    clean_env(monkeypatch)
    settings = make_settings(tmp_path, github_webhook_secret=secret)
    with serving(settings) as (client, rt):
        tune(rt)
        old = time.time() - 15 * DAY
        comment = FakeComment(99, DEFAULT_REPO, N, "/notes off", Identity("octo-dev", 3), old, old)
        r = post(
            client, "issue_comment", comment_payload(comment), secret=settings.webhook_secret()
        )
        drain(rt)
        taken = secret is None
        assert (r.json()["status"] == "queued") is taken, r.text
        assert state(rt).opted_out is taken


# --- replies: each posted once, under its key ---------------------------------------


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


def test_dry_run_deletes_a_reply_s_later_copies_only(tmp_path):
    from bot.dryrun import DryRunGitHub
    from bot.github_port import PRRef

    port, ref = DryRunGitHub(Database(tmp_path / "dry.db")), PRRef(DEFAULT_REPO, N)
    assert port.delete_reply_copies(ref, "<!-- k1 -->") == (None, [])
    first = port.create_comment(ref, "answer\n<!-- k1 -->")
    quoting = port.create_comment(ref, "In reply to `<!-- k1 -->`\n<!-- k0 -->")
    copy = port.create_comment(ref, "answer\n<!-- k1 -->")
    assert port.delete_reply_copies(ref, "<!-- k1 -->") == (first, [copy])
    assert port.find_comment(ref, "<!-- k0 -->") == quoting
    assert port.comment_text(ref, copy) is None and port.comment_text(ref, first) is not None


def test_the_topic_reply_links_the_prs_repository_page(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes topic rocm")
    (reply,) = replies(fake)
    assert "/notes?topic=rocm&repo=vllm-project%2Fvllm)" in reply.body


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


# A retry for a missing 👍 must not post again a reply a maintainer deleted
# docs/commands.md (Slash commands): a reaction GitHub refuses fails the delivery so that
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


# A reply found on GitHub by its key is recorded
# `_reply_posted`: "Recorded once GitHub confirmed it; else found by its key (the run
# died between the post and the record)". When a re-run finds the reply by its key it
# does not record it, so the next re-run again depends on the reply being up on GitHub:
# a maintainer who deletes it between two retries gets it posted again (a new
# notification, the deletion undone) and the reply budget is paid a second time: the
# very defect 0626b0b fixed, left in place for a run that died between the POST and the
# record (process killed, a "database is locked"), and for every reply an older release
# posted (it records nothing) that this release retries after going forward again.
# docs/commands.md: "a reply posted before is known by its key, recorded in the database or found
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


# pr_replies, pruned with the deliveries whose replies it records
# docs/reliability.md (what the database keeps): deliveries are deleted after
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
    # the log says so (the prune was counted nowhere)
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


# Reply records were pruned by when the reply was posted, but a
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


# --- the reply budgets: a put-back reply paid once; past the installation's, no content ---


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
    # the first refused gets 😕; the next none at all (reactions are content writes)
    assert [reactions(fake, c) for c in comments] == [{"eyes", "+1"}, {"eyes", "confused"}, set()]
    said = [r.message for r in caplog.records if "over its reply budget" in r.message]
    assert len(said) == 1 and "installation 1001" in said[0], said


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
    assert 'review_notes_commands_refused_total{budget="write"} 0.0' in text


# --- a command or an `off` put back for a rate limit ---


def test_a_command_put_back_for_a_rate_limit_is_not_left_with_eyes_and_no_answer(
    tmp_path, fake_github, app_key, monkeypatch
):
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
    fake = fake_github
    with _putting_back(tmp_path, fake, app_key, monkeypatch) as (client, rt, _):
        tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill: the budget is what the test spends
        comments = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
        fake.inject("POST", comments, Fault.secondary_rate_limit(retry_after=2))  # > 1 s: put back
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
        drain(rt, 20)  # the put-back's wait (2 s), then its re-run
        answered = reactions(fake, c)
        assert replies(fake) or "confused" in answered, (
            f"put back halfway, then refused whole: the comment is left with {answered} and"
            f" no reply; the delivery is {rt.queue.counts()}"
        )


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


def test_an_off_put_back_for_a_rate_limit_takes_full_effect_past_the_write_budget(
    tmp_path, fake_github, app_key, monkeypatch
):
    """`/notes off` whose pausing edit of the notes comment GitHub rate limited is put
    back with its 👀 (and the PR's state already off). Its re-run, with the installation's
    write budget spent meanwhile, was refused whole: the comment kept its notes, the
    command its 👀 and no 👍. A re-run of an admitted run is never refused by the write
    budget: it takes its writes past the budget, pauses
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


# --- retried and put-back commands under a spent budget ---


def test_a_failed_command_retried_under_a_spent_budget_is_answered(live):
    """Defect (medium, an earlier review's defect through the other door): 2f1889c keeps a comment's
    write reservation only when its run is put back for a rate limit. A run that fails
    halfway for any other reason (the reply's POST answered 422/5xx after the 👀) still
    gives its reservation back; the delivery is failed, and docs/operating.md's way out is
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
    through a review (docs/commands.md: a review's command "is answered like one in a comment")."""
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


# --- a second put-back of an admitted command ---


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


# --- the notes comment under a spent reply budget; a 👍 owed with an update ---


# kills: bot/command_answers.py:run_commands a comment not all of whose commands want a reply
#        dropped
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


# kills: bot/command_answers.py:_run_judged `+1` given before the deferred update it waits for
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


# --- the reply and write budgets: the log's lines, a diff line's confused reaction ---


# kills: bot/command_answers.py:_run_judged and :97 the log says `None` for what a comment's
#        commands did, and for an edit that adds no command, not why nothing was run;
#        :_answer_errors the one reply to what could not be done logged as "over the reply budget"
def test_the_log_says_what_a_comment_ran_and_that_an_edit_added_nothing(live, caplog):
    client, rt, fake = live
    caplog.set_level("INFO", logger="review_notes")
    c = say(client, rt, fake, "/notes topic rocm")
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert said[-1].endswith("issue_comment.created PR vllm-project/vllm 7001: topic: replied")
    edit(client, rt, fake, c, "/notes topic rocm\n\nThanks!")
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert said[-1].endswith("issue_comment.edited PR vllm-project/vllm 7001: no new command")
    say(client, rt, fake, "/notes frobnicate")
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert said[-1].endswith("; one reply"), said[-1]
    assert len(replies(fake)) == 2


# kills: bot/command_answers.py:_answer_errors the log said "unknown: unknown, unknown: unknown;
#        one reply" for two typos: not what was typed
def test_the_log_names_what_each_unknown_command_typed(live, caplog):
    client, rt, fake = live
    caplog.set_level("INFO", logger="review_notes")
    token = "ghp_" + "Tk" * 30  # credential-shaped and longer than the cut: still redacted
    say(client, rt, fake, f"/notes frobnicate\n/notes \x1bx\n/notes {'y' * 60}\n/notes {token}")
    record = [r for r in caplog.records if r.name == "review_notes"][-1]
    said = record.getMessage()
    typed = f'unknown "frobnicate", unknown "\\x1bx", unknown "{"y" * 40}...", unknown '
    assert typed in said and said.endswith("; one reply") and "\x1b" not in said, said
    assert "Tk" not in JsonFormatter(Redactor()).format(record)  # as the server writes it
    assert len(replies(fake)) == 1


# kills: bot/command_answers.py:run_commands the log says `None` for a comment not answered while
#        its replies are refused, not why
def test_the_log_says_a_comment_was_not_answered_over_the_reply_budget(live, caplog):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    caplog.set_level("INFO", logger="review_notes")
    say(client, rt, fake, "/notes help")  # the budget's one reply
    say(client, rt, fake, "/notes help")  # refused: 😕, and a spell of refusals begins
    quiet = say(client, rt, fake, "/notes help")
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert said[-1].endswith(": not answered: over the PR's or the installation's reply budget")
    assert reactions(fake, quiet) == set() and len(replies(fake)) == 1


def said_on_a_diff_line(client, rt, fake, line: str, login: str = "octo-dev") -> FakeComment:
    """A comment on a line of the diff saying `line`, delivered and handled."""
    c = fake.add_review_comment(DEFAULT_REPO, N, line, login=login)
    head = fake.pull(DEFAULT_REPO, N).head_sha
    r = post(client, "pull_request_review_comment", diff_comment_payload(c, head_sha=head))
    assert r.status_code == 202, r.text
    drain(rt)
    return c


# kills: bot/command_answers.py:_answer_errors the 😕 for a `wrong` naming no note shown, said on a
#        line of the diff, sent to the issue comments' endpoint (GitHub: not found; none given)
def test_a_wrong_naming_no_note_on_a_diff_line_gets_its_confused_there(live):
    client, rt, fake = live
    say(client, rt, fake, "/notes")
    c = said_on_a_diff_line(client, rt, fake, "/notes wrong 9", login=AUTHOR)
    assert reactions(fake, c) == {"eyes", "confused"}


# kills: bot/command_answers.py:_run_judged the 😕 for a lookup over the reply budget, said on a
#        line of the diff, sent to the issue comments' endpoint
def test_a_lookup_on_a_diff_line_over_the_reply_budget_gets_its_confused_there(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    say(client, rt, fake, "/notes help")  # the budget's one reply
    c = said_on_a_diff_line(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes", "confused"}


# kills: bot/command_answers.py:_not_run the spell's one 😕 past the write budget, for a command on
#        a line of the diff, sent to the issue comments' endpoint
def test_a_diff_line_command_past_the_write_budget_gets_its_confused_there(live):
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 50.0)  # no refill
    flood = rt.ctx.flood  # a flood on the installation's other PRs spent the write budget
    assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
    c = said_on_a_diff_line(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"confused"}


# kills: bot/command_answers.py:_not_run the log says `None` for a comment not run past the write
#        budget, not what it asked and where
def test_the_log_says_what_a_comment_past_the_write_budget_asked(live, caplog):
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 50.0)  # no refill
    flood = rt.ctx.flood  # a flood on the installation's other PRs spent the write budget
    assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
    caplog.set_level("INFO", logger="review_notes")
    c = say(client, rt, fake, "/notes help")
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    summary = f": not run: the installation is over its write budget (help in comment:{c.id})"
    assert said[-1].endswith(summary), said[-1]


# kills: bot/command_answers.py:_reply_once a reply counted as two writes of the installation's
#        budget
def test_a_reply_costs_the_installation_one_write(live):
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 50.0)  # no refill
    budget = rt.ctx.flood.installation_writes
    before = budget.left(1001)
    c = say(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes", "+1"} and len(replies(fake)) == 1
    assert budget.left(1001) == before - 3  # 👀, the reply, 👍


# kills: bot/command_answers.py:_answer_errors a comment whose one reply to what it could not do is
#        over the reply budget fails its delivery (what it did taken for None)
def test_an_unknown_command_over_the_reply_budget_is_refused_not_failed(live):
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    say(client, rt, fake, "/notes help")  # the budget's one reply
    c = say(client, rt, fake, "/notes frobnicate")
    assert reactions(fake, c) == {"confused"} and len(replies(fake)) == 1
    assert rt.queue.counts()["failed"] == 0


# --- a reply whose answer was lost: paid from the budget once, kept until its retry ---


# kills: bot/flood_control.py:FloodControl.take_reply the installation's budget not paid
@pytest.mark.parametrize(
    "budget", [dict(reply_burst=1), dict(installation_reply_burst=1)], ids=["pr", "installation"]
)
@pytest.mark.parametrize("restarted", [False, True], ids=["", "restarted"])
def test_a_reply_github_took_while_its_answer_was_lost_is_paid_from_the_reply_budget(
    live, budget, restarted
):
    # The POST of `/notes help`'s reply lands, its answer is lost, and the client's look
    # for it (the comment list) fails: the delivery fails with the reply on the PR. Its
    # run gave the reply back to the budget (not posted, as far as it knew), and the
    # retry, finding it by its key, paid nothing: one reply past the PR's budget for
    # each such failure. With a budget of one (the PR's, or its installation's) the next
    # reply must be refused.
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, **budget), clock=lambda: 50.0)
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault.dropped(apply=True))
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.dropped()] * 3)
    say(client, rt, fake, "/notes help")
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 1
    if restarted:  # the budgets start full, and the reply's run is forgotten: found, paid
        tune(rt, CommandConfig(min_update_interval_s=0, **budget), clock=lambda: 50.0)
    assert rt.queue.retry() != []
    drain(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0
    c = say(client, rt, fake, "/notes topic rocm", login="someone-else")
    assert len(replies(fake)) == 1, "a reply past a budget of one"
    assert reactions(fake, c) == {"eyes", "confused"}


@pytest.mark.parametrize("landed", [True, False], ids=["posted", "not posted"])
def test_a_reply_github_may_have_taken_keeps_its_budget_until_its_retry(live, landed):
    # The POST of `/notes help`'s reply fails unsure GitHub took it (its answer lost and
    # the look for it failing, or a 502 past the client's tries). Its run gave the reply
    # back to the budget, another user's `/notes topic` spent it, and the retry (finding
    # the first by its key, or posting it) made two replies on a budget of one. The reply
    # stays paid until its retry: posted, it is found; not posted, it is posted on it.
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: 50.0)
    path = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    if landed:
        fake.inject("POST", path, Fault.dropped(apply=True))
        fake.inject("GET", path, *[Fault.dropped()] * 3)
    else:
        fake.inject("POST", path, *[Fault.error(502)] * 3)
    say(client, rt, fake, "/notes help")
    assert len(replies(fake)) == int(landed) and rt.queue.counts()["failed"] == 1
    c = say(client, rt, fake, "/notes topic rocm", login="someone-else")
    assert reactions(fake, c) == {"eyes", "confused"}, "the budget given back, spent again"
    assert rt.queue.retry() != []
    drain(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0
    c = say(client, rt, fake, "/notes topic rocm", login="someone-else")
    assert len(replies(fake)) == 1, "a reply past a budget of one"


def test_a_reply_posted_and_not_recorded_is_paid_once(live, monkeypatch):
    # The reply is posted, then recording it fails (a database busy): the run fails with
    # the reply paid. Its retry found it by its key and, taking it for one a dead run
    # posted (a restart's budgets start full), paid it again: a reply fewer the budget
    # allowed once it refilled.
    client, rt, fake = live
    now = [50.0]
    tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=1), clock=lambda: now[0])
    record, died = rt.ctx.prs.record_reply, []

    def dies_after_the_post(*args, **kw):
        if not died:
            died.append(True)
            raise RuntimeError("database is locked")
        return record(*args, **kw)

    monkeypatch.setattr(rt.ctx.prs, "record_reply", dies_after_the_post)
    say(client, rt, fake, "/notes help")
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 1
    assert rt.queue.retry() != []
    drain(rt)
    assert len(replies(fake)) == 1 and rt.queue.counts()["failed"] == 0
    now[0] += rt.ctx.commands.reply_refill_s  # one reply again
    say(client, rt, fake, "/notes topic rocm", login="someone-else")
    assert len(replies(fake)) == 2, "the reply paid twice"


# kills: bot/command_answers.py:run_commands the bots' commands not set aside
def test_a_login_of_a_bot_whose_type_says_user_gets_no_answer(live):
    # The webhook sets aside what a payload's `type` says a bot wrote; a `[bot]` login it
    # calls a user still reaches the commands, which ignore it whole: no reaction, no
    # reply (to the unknown command either), nothing done.
    client, rt, fake = live
    c = say(client, rt, fake, "/notes help\n/notes frobnicate", login="ci-helper[bot]")
    assert reactions(fake, c) == set() and replies(fake) == []
    assert rt.queue.counts()["done"] == 1


# kills: bot/command_answers.py:_reply_once a failed reply's write given back
def test_a_reply_github_may_have_taken_keeps_its_write_paid(live):
    # The reply's POST answered 502 past the client's tries: GitHub may have taken it
    # (a write its content-creation limit counts), so the installation's write budget
    # keeps it, with the 👀 written before it; only the 👍 not written goes back.
    client, rt, fake = live
    tune(rt, CommandConfig(min_update_interval_s=0), clock=lambda: 50.0)
    writes = rt.ctx.flood.installation_writes
    full = writes.left(1001)
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", *[Fault.error(502)] * 3)
    c = say(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes"} and rt.queue.counts()["failed"] == 1
    assert full - writes.left(1001) == 2


# --- a retry finishes a command as its first run judged it ---

# What runs before each owner command of the maintainer's, and what the PR's state is
# once it ran: `/notes off` on a PR whose updates run, `on` on one paused, `wrong 1` on
# its notes comment, `restore` of a note the author hid.
BEFORE = {
    "off": ("/notes",),
    "on": ("/notes off",),
    "wrong 1": ("/notes",),
    "restore": ("/notes", "/notes wrong 1"),
}


def _ran(rt, line: str) -> bool:
    """Whether the maintainer's `line` (BEFORE's key) took effect on the PR's state."""
    s = state(rt)
    return {
        "off": s.opted_out,
        "on": not s.opted_out,
        "wrong 1": s.dismissed != (),
        "restore": s.dismissed == (),
    }[line]


def _ran_and_lost_its_thumb(client, rt, fake, line: str):
    """The author's BEFORE, then a writer's `/notes LINE`, which runs and whose 👍
    GitHub refuses (its delivery failed, for `retry`); then the writer loses write
    access. Returns the writer's comment."""
    for said in BEFORE[line]:
        say(client, rt, fake, said, login=AUTHOR)
    assert not _ran(rt, line)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = said_and_left_without_its_thumb(client, rt, fake, f"/notes {line}", login="maintainer")
    assert _ran(rt, line) and reactions(fake, c) == {"eyes"}
    fake.set_permission(DEFAULT_REPO, "maintainer", "read")  # write access taken away
    return c


def _finished_as_judged(rt, fake, c, line: str) -> None:
    """The retry gave the 👍 the command owed; it did not answer it as refused."""
    assert rt.queue.retry() != []
    drain(rt)
    assert rt.queue.counts()["failed"] == 0
    assert reactions(fake, c) == {"eyes", "+1"}, "the command that took effect, refused"
    assert replies(fake) == [], [r.body for r in replies(fake)]
    assert _ran(rt, line)


@pytest.mark.parametrize("line", list(BEFORE))
def test_a_retry_finishes_a_command_as_its_first_run_judged_it(live, line):
    # A writer's `/notes on` runs (the PR's updates resume), its 👍 fails (GitHub's
    # 502), the writer loses write access, and the retry asked GitHub for the
    # permission again: it answered `on: refused` with 😕 while the updates stayed
    # resumed, a bot contradicting itself. A command is judged once, at its first run.
    client, rt, fake = live
    c = _ran_and_lost_its_thumb(client, rt, fake, line)
    _finished_as_judged(rt, fake, c, line)
    # an edit is a new delivery, judged anew: its author may no longer switch updates
    added = "off" if line == "on" else "on"
    edit(client, rt, fake, c, f"/notes {line}\n/notes {added}")
    assert reactions(fake, c) == {"eyes", "+1", "confused"} and _ran(rt, line)
    (reply,) = replies(fake)
    assert f"use `/notes {added}`; nothing was changed" in reply.body, reply.body


def test_a_retry_after_a_restart_finishes_a_command_as_first_judged(
    tmp_path, fake_github, app_key, monkeypatch
):
    # The decision is kept in the database file: a server started again on it (its
    # flood control and caches new) retries the delivery as its first run judged it.
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        c = _ran_and_lost_its_thumb(client, rt, fake, "on")
    with serving(settings) as (client, rt):
        tune(rt)
        _finished_as_judged(rt, fake, c, "on")


def test_retention_drops_the_decisions_of_the_deliveries_it_deletes(live):
    # A decision lasts as long as its delivery can run again: a failed one kept, the
    # rest deleted with their deliveries (the table would grow with every command).
    client, rt, fake = live
    _ran_and_lost_its_thumb(client, rt, fake, "off")
    say(client, rt, fake, "/notes on", login="maintainer")  # refused, done
    db = rt.queue.db
    decided = "SELECT delivery FROM command_decisions"
    assert len(db.execute(decided)) == 2
    # every delivery received long ago; the failed one failed again just now (a retry)
    db.execute("UPDATE deliveries SET updated_at = ? WHERE state = 'failed'", (FUTURE,))
    rt.retention.prune(before="9999-01-01T00:00:00.000000Z")
    assert rt.queue.counts() == {"pending": 0, "processing": 0, "done": 0, "failed": 1}
    assert [r["delivery"] for r in db.execute(decided)] == [rt.queue.failed()[0].id]


FUTURE = "9999-12-31T00:00:00.000000Z"


# --- a reply's POST lost while GitHub's comment list lags behind it ---


@pytest.mark.parametrize("lag", [dict(reads=1), dict(seconds=0.4)], ids=["one-read", "0.4-seconds"])
def test_a_reply_whose_answer_was_lost_is_not_posted_again_while_the_list_lags(
    tmp_path, fake_github, app_key, monkeypatch, lag
):
    # GitHub takes the reply to `/notes help` and its answer is lost (a 502); the client
    # looks for it before posting again, but GitHub's comment list lags behind the write
    # (it may, for a second or more). Posted again, the reader saw the same answer twice,
    # notified twice, and the second stayed for good. The list is read again after
    # REVIEW_NOTES_LOST_CREATE_WAIT: the reply found there, not posted twice.
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key, lost_create_wait=1)
    with serving(settings) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=2), clock=lambda: 50.0)
        fake.lag_comment_lists(**lag)
        path = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
        fake.inject("POST", path, Fault.error(502, apply=True))
        c = say(client, rt, fake, "/notes help")
        (reply,) = replies(fake)
        assert "review-notes commands" in reply.body
        assert reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["failed"] == 0
        assert [r.status for r in fake.calls("POST", path)] == [502]
        assert len(fake.calls("GET", path)) == 2  # looked for, then again after the wait
        # the budget paid once: one reply of two is left
        say(client, rt, fake, "/notes topic rocm", login="someone-else")
        d = say(client, rt, fake, "/notes search EAGLE", login="someone-else")
        assert len(replies(fake)) == 2 and reactions(fake, d) == {"eyes", "confused"}


def test_a_reply_github_refused_once_then_took_is_not_looked_for_as_a_copy(
    tmp_path, fake_github, app_key, monkeypatch
):
    # GitHub refuses the reply's first POST (a rate limit asking for no wait) and takes the
    # next: a POST sent twice, but the refused one posted nothing, so no copy can show. It
    # was taken for a reply posted twice: a look for its copies queued, one more GET
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=0), clock=lambda: 50.0)
        path = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
        fake.inject("POST", path, Fault.too_many_requests(retry_after=0))
        c = say(client, rt, fake, "/notes help")  # the queue drained: a check due ran
        assert [r.status for r in fake.calls("POST", path)] == [429, 201]
        assert len(replies(fake)) == 1 and reactions(fake, c) == {"eyes", "+1"}
        assert fake.calls("GET", path) == []  # no look for copies
        assert rt.queue.counts()["failed"] == 0


def test_a_reply_posted_again_while_the_list_lagged_past_the_wait_has_its_copy_deleted(
    tmp_path, fake_github, app_key, monkeypatch
):
    # The list lags past the second look (REVIEW_NOTES_LOST_CREATE_WAIT): the reply is
    # posted again, shown twice. A minute later (here 0.5 s: REVIEW_NOTES_REPLY_COPIES_
    # CHECK_AFTER) the bot's own delivery finds both under the reply's key and deletes the
    # later one; the copy a person pasted (our text, our key) is theirs, left alone. The
    # reply was paid once: a budget of two has one reply left, not two.
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(
        tmp_path, fake, app_key, lost_create_wait=0.05, reply_copies_check_after=0.5
    )
    with serving(settings) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=2), clock=lambda: 50.0)
        fake.lag_comment_lists(seconds=0.4)
        path = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
        fake.inject("POST", path, Fault.error(502, apply=True))
        c = say(client, rt, fake, "/notes help", wait=False)
        wait_until(lambda: len(replies(fake)) == 2, what="the reply posted twice")
        first, second = replies(fake)
        pasted = fake.add_comment(DEFAULT_REPO, N, first.body, login="someone-else")
        fake.lag_comment_lists()  # the lists catch up
        drain(rt)
        assert [r.id for r in replies(fake)] == [first.id], "the later copy deleted"
        assert fake.comment(pasted.id) is not None and fake.comment(second.id) is None
        assert fake.calls("DELETE") and all(
            r.path.endswith(f"/{second.id}") for r in fake.calls("DELETE")
        )
        assert reactions(fake, c) == {"eyes", "+1"} and rt.queue.counts()["failed"] == 0
        say(client, rt, fake, "/notes topic rocm", login="someone-else")
        d = say(client, rt, fake, "/notes search EAGLE", login="someone-else")
        assert len(replies(fake)) == 2 and reactions(fake, d) == {"eyes", "confused"}


# kills: bot/github_client.py:GitHubClient.permission GitHub's 404 saying the App is not
#        installed taken for "no such user": a maintainer's command judged "none", the
#        decision recorded, and the retry once the App is installed again refused it
def test_a_writer_s_command_the_app_not_installed_failed_runs_as_theirs_on_retry(live):
    client, rt, fake = live
    fake.set_permission(DEFAULT_REPO, "maintainer", "maintain")
    say(client, rt, fake, "/notes")
    fake.uninstall(1001)
    c = say(client, rt, fake, "/notes off", login="maintainer")
    (failed,) = rt.queue.failed()
    assert "the App is not installed" in failed.last_error, failed.last_error
    fake.add_installation(2002, [DEFAULT_REPO])  # installed again: a new id, and its event
    installed = next(p for p in octokit_examples("installation") if p["action"] == "created")
    installed["installation"]["id"] = 2002
    installed["repositories"] = [{"id": 1, "name": "vllm", "full_name": DEFAULT_REPO}]
    assert post(client, "installation", installed).status_code == 200
    assert rt.queue.retry([failed.id]) == [failed.id]
    drain(rt)
    assert rt.queue.get(failed.id).state == "done"
    assert state(rt).opted_out and reactions(fake, c) == {"eyes", "+1"}
    assert not any("Only the PR author" in r.body for r in replies(fake))

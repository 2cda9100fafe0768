"""`pull_request` events end to end through the HTTP endpoint, the queue and the dry-run port
(or, where what GitHub answers matters, the App's client against the fake GitHub)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bot.commands import load_command_config
from bot.context import BotContext
from bot.db import Database
from bot.dispatch import (
    Dispatcher,
    MalformedPayload,
    Route,
    follow_repository,
    payload_id,
)
from bot.dryrun import DryRunGitHub
from bot.feedback import Mark
from bot.github_port import ConversationLocked, FileList, FilesNotReady
from bot.library import load_library
from bot.markers import MARKER
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher
from bot.pr_events import handle_pull_request
from bot.prfacts import payload_files
from bot.prstate import PRStore
from bot.queue import Delivery
from bot.server import build_dispatcher
from tests.fake_github import DEFAULT_REPO, Fault
from tests.test_e2e import _opened_behind
from tests.webhook_kit import (
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    REPO,
    UNRELATED_TITLE,
    clean_env,
    deliver_pr,
    drain,
    live_settings,
    make_settings,
    ours,
    post,
    pr_payload,
    serving,
    wait_until,
)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


@pytest.fixture
def app(tmp_path):
    with serving(make_settings(tmp_path, workers=3)) as (client, rt):
        yield client, rt


def comments(rt, number=7001):
    return rt.dry_run.comments("vllm-project/vllm", number)


def test_opened_pr_gets_one_comment(app):
    client, rt = app
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES)
    (c,) = comments(rt)
    assert "redirect.github.com/vllm-project/vllm/pull/52419" in c["body"]


def test_unrelated_pr_gets_no_comment(app):
    client, rt = app
    deliver_pr(client, rt, title=UNRELATED_TITLE, files=["docs/contributing.md"])
    assert comments(rt) == []
    assert rt.queue.counts()["done"] == 1


def test_draft_waits_until_ready_for_review(app):
    client, rt = app
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES, draft=True)
    deliver_pr(
        client,
        rt,
        action="labeled",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        draft=True,
        labels=("speculative-decoding",),
    )
    assert comments(rt) == []
    deliver_pr(
        client,
        rt,
        action="ready_for_review",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        labels=("speculative-decoding",),
        updated_at="2026-09-01T11:00:00Z",
    )
    assert len(comments(rt)) == 1


def test_events_for_one_pr_at_the_same_moment_give_one_comment(app):
    client, rt = app
    rt.workers.stop()  # let them pile up, then release them to three workers at once
    for i, (action, labels) in enumerate(
        [
            ("opened", ()),
            ("labeled", ("speculative-decoding",)),
            ("labeled", ("v1",)),
            ("synchronize", ("v1",)),
            ("unlabeled", ()),
        ]
    ):
        post(
            client,
            "pull_request",
            pr_payload(
                action=action,
                title=MATCHING_TITLE,
                files=MATCHING_FILES,
                labels=labels,
                updated_at=f"2026-09-01T10:00:0{i}Z",
            ),
        )
    # and another PR alongside, to keep a second worker busy
    post(
        client, "pull_request", pr_payload(number=7002, title=MATCHING_TITLE, files=MATCHING_FILES)
    )
    rt.workers.start()
    drain(rt)
    assert len(comments(rt)) == 1
    assert len(comments(rt, 7002)) == 1
    assert rt.queue.counts() == {"pending": 0, "processing": 0, "done": 6, "failed": 0}


def test_title_edit_that_loses_the_match_says_so(app):
    client, rt = app
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES)
    deliver_pr(
        client,
        rt,
        action="edited",
        title=UNRELATED_TITLE,
        files=["docs/x.md"],
        changes={"title": {"from": MATCHING_TITLE}},
        updated_at="2026-09-01T10:05:00Z",
    )
    (c,) = comments(rt)
    assert "No review note matches this pull request any more" in c["body"]
    assert c["edits"] == 1


def test_edit_with_unchanged_body_is_not_rewritten(app):
    client, rt = app
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES)
    deliver_pr(
        client,
        rt,
        action="edited",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        body="more words",
        changes={"body": {"from": ""}},
        updated_at="2026-09-01T10:05:00Z",
    )
    (c,) = comments(rt)
    assert c["edits"] == 0


def test_synchronize_with_the_same_notes_leaves_the_comment_alone(app):
    client, rt = app
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES)
    deliver_pr(
        client,
        rt,
        action="synchronize",
        title=MATCHING_TITLE,
        files=MATCHING_FILES,
        head_sha="f" * 40,
        updated_at="2026-09-01T10:05:00Z",
    )
    (c,) = comments(rt)
    assert "fffffff" not in c["body"] and c["edits"] == 0


SPEC_TITLE = "Make watermarking work with"  # no note alone; with speculative-decoding: one


def test_a_label_added_by_mergify_is_matched(app):
    # vLLM's Mergify (a bot) adds most labels seconds after `opened`: its `labeled`
    # event must reach matching like a person's.
    client, rt = app
    deliver_pr(client, rt, title=SPEC_TITLE, number=9)
    assert comments(rt, 9) == []
    labeled = deliver_pr(
        client,
        rt,
        action="labeled",
        title=SPEC_TITLE,
        number=9,
        labels=("speculative-decoding",),
        sender="mergify[bot]",
        sender_type="Bot",
        updated_at="2026-09-01T10:00:05Z",
    )
    assert labeled["status"] == "queued"
    (c,) = comments(rt, 9)
    assert "speculative" in c["body"].lower()


class AppDryRun(DryRunGitHub):
    """The dry-run port, knowing the App's login as the GitHub client does."""

    def __init__(self, db: Database):
        super().__init__(db)
        self.asked = 0

    def bot_login(self) -> str:
        self.asked += 1
        return "review-notes[bot]"


def test_pull_request_events_sent_by_the_app_itself_are_not_handled(tmp_path):
    # Without REVIEW_NOTES_BOT_LOGIN intake cannot tell our App from other bots; the
    # worker asks the GitHub client for its login and drops the delivery.
    port = AppDryRun(Database(tmp_path / "port.sqlite3"))
    with serving(make_settings(tmp_path), github=port) as (client, rt):
        event = dict(
            action="labeled", title=MATCHING_TITLE, files=MATCHING_FILES, sender_type="Bot"
        )
        assert deliver_pr(client, rt, sender="review-notes[bot]", **event)["status"] == "queued"
        assert comments(rt) == [] and port.asked == 1
        deliver_pr(client, rt, sender="mergify[bot]", **event)
        assert len(comments(rt)) == 1
        deliver_pr(client, rt, action="opened", title=MATCHING_TITLE, files=MATCHING_FILES)
        assert port.asked == 2  # a person's event: not asked


@pytest.mark.parametrize(
    ("event", "action", "sender", "reason"),
    [
        ("pull_request", "labeled", "mergify[bot]", ""),
        ("pull_request", "opened", "dependabot[bot]", ""),
        ("pull_request", "synchronize", "pre-commit-ci[bot]", ""),
        ("pull_request", "labeled", "review-notes[bot]", "sent by the bot itself"),
        ("issue_comment", "created", "mergify[bot]", "sent by a bot (mergify[bot])"),
        ("pull_request_review", "submitted", "copilot[bot]", "sent by a bot (copilot[bot])"),
        ("pull_request_review_comment", "created", "x[bot]", "sent by a bot (x[bot])"),
    ],
)
def test_triage_takes_pull_request_events_from_other_bots_only(
    tmp_path, event, action, sender, reason
):
    d = build_dispatcher()
    payload = {
        "action": action,
        "repository": {"full_name": "vllm-project/vllm"},
        "pull_request": {"number": 5, "state": "open"},
        "sender": {"login": sender, "type": "Bot"},
        "comment": {"body": "/notes"},
        "review": {"body": "/notes"},
    }
    for settings, own_login in [
        (make_settings(tmp_path, bot_login="review-notes[bot]"), None),  # configured
        (make_settings(tmp_path), "review-notes[bot]"),  # or known from GitHub
    ]:
        t = d.triage(event, payload, settings, own_login)
        assert t.reason.startswith(reason) and (t.route is None) == bool(reason), t.reason


OWN = "notes-bot"  # the bot's login: an App's bot account, or a token's user
SENT = "sent by the bot itself"
WROTE = "written by the bot itself"


@pytest.mark.parametrize(
    ("event", "sender", "author", "body", "as_app", "as_token"),
    [
        # sent by the bot's login: the App's doing; a token's owner may act as a person
        ("pull_request", OWN, None, None, SENT, ""),
        ("issue_comment", OWN, OWN, "/notes", SENT, ""),
        ("pull_request_review", OWN, OWN, "/notes why", SENT, ""),
        # written by it, edited by someone: the App's; the owner's words with a token
        ("issue_comment", "maintainer", OWN, "/notes help", WROTE, ""),
        # written by it with our marker: the bot's own either way (no loop)
        ("issue_comment", OWN, OWN, f"{MARKER}\n/notes", SENT, WROTE),
        ("issue_comment", "maintainer", OWN, f"{MARKER}\n/notes", WROTE, WROTE),
        # a person's, our marker pasted at its top: never the bot's
        ("issue_comment", "someone", "someone", f"{MARKER}\n/notes", "", ""),
    ],
)
@pytest.mark.parametrize("configured", [True, False])  # REVIEW_NOTES_BOT_LOGIN, or asked
def test_triage_knows_the_bots_own_by_its_login_and_with_a_token_by_its_marker(
    tmp_path, event, sender, author, body, as_app, as_token, configured
):
    payload: dict = {
        "action": "submitted" if event == "pull_request_review" else "created",
        "repository": {"full_name": "vllm-project/vllm"},
        "pull_request": {"number": 5, "state": "open"},
        "sender": {"login": sender, "type": "User"},  # a user-typed App login, too
    }
    if event == "pull_request":
        payload["action"] = "labeled"
    else:
        item = {"id": 11, "body": body, "user": {"login": author, "type": "User"}}
        payload["review" if event == "pull_request_review" else "comment"] = item
    if event == "issue_comment":  # the PR as a PR comment's handler reads it: its issue
        payload["issue"] = payload.pop("pull_request") | {"pull_request": {"url": "x"}}
    login = {"bot_login": OWN} if configured else {}
    app = make_settings(tmp_path, **login)
    token = make_settings(
        tmp_path, github_token="ghp_x", public_url="https://notes.example.org", **login
    )
    d = build_dispatcher()
    own_login = None if configured else OWN
    for settings, reason in [(app, as_app), (token, as_token)]:
        t = d.triage(event, payload, settings, own_login)
        assert t.reason == (f"{reason} ({OWN})" if reason else ""), t.reason
        assert (t.route is None) == bool(reason)


def test_dispatch_point_takes_new_features_without_touching_the_server():
    d = build_dispatcher()
    assert {"pull_request", "issue_comment", "pull_request_review"} <= set(d.events())
    calls = []
    d.add(Route("discussion", frozenset({"created"}), lambda ctx, dl: calls.append(dl) or "ok"))
    assert d.route("discussion", "created") is not None
    assert d.route("discussion", "deleted") is None
    with pytest.raises(ValueError):
        d.add(Route("issue_comment", frozenset({"created"}), lambda ctx, dl: "dup"))  # taken
    with pytest.raises(ValueError):
        d.add(Route("pull_request", frozenset({"opened"}), lambda ctx, dl: "dup"))  # taken


def test_triage_only_prs_for_comment_events(tmp_path):
    d = Dispatcher()
    d.add(Route("issue_comment", None, lambda ctx, dl: "ok"))
    settings = make_settings(tmp_path)
    base = {
        "action": "created",
        "repository": {"full_name": "vllm-project/vllm"},
        "sender": {"login": "a", "type": "User"},
        "comment": {"body": "/notes"},
    }
    on_issue = dict(base, issue={"number": 5})
    on_pr = dict(base, issue={"number": 5, "pull_request": {"url": "x"}})
    assert d.triage("issue_comment", on_issue, settings).reason == "not about a pull request"
    t = d.triage("issue_comment", on_pr, settings)
    assert t.route is not None and t.pr_number == 5 and t.repo == "vllm-project/vllm"


def at(minute: int) -> str:
    return f"2026-09-01T10:{minute:02d}:00Z"


def test_an_older_event_arriving_after_the_opt_out_label_changes_nothing(app):
    # GitHub does not order deliveries, and `retry` re-runs old ones: a synchronize of
    # 10:02 handled after the label of 10:03 must not un-pause the comment.
    client, rt = app
    pr = dict(title=MATCHING_TITLE, files=MATCHING_FILES)
    deliver_pr(client, rt, **pr, updated_at=at(0))
    deliver_pr(client, rt, **pr, action="labeled", labels=("no-review-notes",), updated_at=at(3))
    assert "paused" in comments(rt)[0]["body"]
    deliver_pr(client, rt, **pr, action="synchronize", head_sha="b" * 40, updated_at=at(2))
    (c,) = comments(rt)
    assert "paused" in c["body"] and c["edits"] == 1


def test_an_older_opened_after_a_newer_edit_that_matched_nothing_posts_nothing(app):
    # The edit wrote nothing, but its time is remembered: the older `opened` cannot post
    # notes for a title the PR no longer has.
    client, rt = app
    retitled = dict(changes={"title": {"from": MATCHING_TITLE}}, updated_at=at(5))
    deliver_pr(client, rt, action="edited", title=UNRELATED_TITLE, files=["docs/x.md"], **retitled)
    deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES, updated_at=at(0))
    assert comments(rt) == []


def test_a_closed_pr_is_left_alone_until_it_is_reopened(app):
    # any event on a closed PR (a label added after merge) is ignored at intake;
    # `reopened` is a first look again, like `opened`
    client, rt = app
    event = dict(title=MATCHING_TITLE, files=MATCHING_FILES)
    late = deliver_pr(client, rt, action="labeled", state="closed", labels=("v1",), **event)
    assert late["status"] == "ignored" and "closed" in late["reason"]
    assert comments(rt) == []
    deliver_pr(client, rt, action="reopened", updated_at="2026-09-01T11:00:00Z", **event)
    assert len(comments(rt)) == 1


def test_files_in_a_payload_are_paths_or_objects_naming_one_else_refused_naming_the_entry():
    # our examples carry paths; GitHub's list-files gives `{"filename": ...}` and gh's
    # `{"path": ...}`, read as `match --batch` reads them: once taken for "no files"
    # (a replay matched without its paths, not a word said)
    assert payload_files({"files": ["a.py", "docs/b.md"]}) == ["a.py", "docs/b.md"]
    listed = [{"filename": "a.py", "status": "modified"}, {"path": "b.py"}, "c.py"]
    assert payload_files({"files": listed}) == ["a.py", "b.py", "c.py"]
    assert payload_files({}) is None
    assert payload_files({"files": None}) is None
    for files, said in [
        (["a.py", 3], "files[1]: not a string or an object with 'path' or 'filename'"),
        ([{"name": "a.py"}], "files[0]: not a string or an object with 'path' or 'filename'"),
        ("a.py", "files: not a list (str)"),
    ]:
        with pytest.raises(ValueError) as refused:
            payload_files({"files": files})
        assert str(refused.value) == said


class LaggingDryRun(DryRunGitHub):
    """The dry-run port, its file list always behind the PR's `changed_files`."""

    def list_files(self, ref, *, expected=None):
        if expected:
            raise FilesNotReady(ref, 0, expected)
        return FileList()


def test_without_a_queue_a_short_file_list_is_taken_as_it_is(tmp_path):
    # a context with no queue cannot look again later: it matches on the list as it is
    # rather than fail the event
    db = Database(tmp_path / "s.sqlite3")
    settings = make_settings(tmp_path)
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    ctx = BotContext(
        settings, lib, matcher, LaggingDryRun(db), PRStore(db), commands=load_command_config()
    )
    payload = pr_payload(title=MATCHING_TITLE)
    payload["pull_request"]["changed_files"] = 3
    delivery = Delivery("d-1", "pull_request", "opened", payload, "vllm-project/vllm", 7001)
    assert handle_pull_request(ctx, delivery).startswith("created")
    db.close()


def test_a_route_for_every_action_conflicts_with_any_other_route_for_its_event():
    # `actions=None` takes every action: no second handler may share any of them
    d = Dispatcher()
    d.add(Route("discussion", None, lambda ctx, dl: "all"))
    with pytest.raises(ValueError):
        d.add(Route("discussion", frozenset({"created"}), lambda ctx, dl: "dup"))
    d.add(Route("label", frozenset({"created"}), lambda ctx, dl: "one"))
    with pytest.raises(ValueError):
        d.add(Route("label", None, lambda ctx, dl: "dup"))


def test_a_pull_request_object_without_a_number_is_not_about_a_pull_request(tmp_path):
    # ignored with its reason (a 202), not taken for PR number None or 0
    d = build_dispatcher()
    settings = make_settings(tmp_path)
    for pr in ({}, {"number": 0}, {"number": None}):
        payload = {
            "action": "opened",
            "repository": {"full_name": "vllm-project/vllm"},
            "pull_request": pr,
            "sender": {"login": "a", "type": "User"},
        }
        assert d.triage("pull_request", payload, settings).reason == "not about a pull request"


@pytest.mark.parametrize("shape", ["paths", "GitHub's list-files objects"])
def test_the_files_a_payload_carries_are_matched(app, shape):
    # our examples carry `files`; the dry-run port cannot list them, so only the
    # payload's list can match a note by its paths
    client, rt = app
    files = MATCHING_FILES if shape == "paths" else [{"filename": f} for f in MATCHING_FILES]
    deliver_pr(client, rt, title="Tidy up the KV cache coordinator", files=files)
    (c,) = comments(rt)
    assert "a path of this note" in c["body"]


def test_a_payload_whose_files_are_no_paths_is_refused_at_intake_naming_the_entry(app):
    # a hand-made payload (GitHub's carry no `files`): refused (400), not matched without
    # its paths, nor queued to fail at each run
    client, rt = app
    payload = pr_payload(title="Tidy up the KV cache coordinator", files=["a.py", 3])
    r = post(client, "pull_request", payload)
    said = "files[1]: not a string or an object with 'path' or 'filename'"
    assert (r.status_code, r.json()) == (400, {"error": f"malformed pull_request payload: {said}"})
    assert rt.queue.counts()["pending"] == 0 and comments(rt) == []


# --- the repository renamed or transferred: the PR's state follows it ----------------------


def test_a_routed_event_moves_its_prs_state_to_the_repositorys_new_name(tmp_path, caplog):
    old, new = "vllm-project/vllm", "vllm-org/vllm"
    pr = dict(title=MATCHING_TITLE, files=MATCHING_FILES)
    with serving(make_settings(tmp_path, repos=f"{old},{new}")) as (client, rt):
        deliver_pr(client, rt, **pr)
        before = rt.ctx.prs.get(old, 7001)
        rt.ctx.feedback.record(Mark(old, 7001, before.notes[0], 1, "octo-dev"))
        with caplog.at_level("INFO", logger="bot.dispatch"):  # closed: no comment call
            deliver_pr(client, rt, action="closed", state="closed", repo=new, updated_at=at(1))
        after = rt.ctx.prs.get(new, 7001)
        assert (after.comment_id, after.notes) == (before.comment_id, before.notes)
        assert [m.repo for m in rt.ctx.feedback.marks()] == [new]
        repo_id = pr_payload()["repository"]["id"]
        said = [r.getMessage() for r in caplog.records if r.name == "bot.dispatch"]
        assert said == [
            f"repository {repo_id} renamed or transferred: PR #7001's state moved from {old}"
            f" to {new} (1 PR state, 0 reply records, 1 /notes wrong marks, 0 comments of"
            " commands kept for an unlock; 0 older copies dropped)"
        ]
        # a payload without `repository.id` (hand-made, `replay` of an example): kept by
        # name alone, as before
        bare = pr_payload(number=7002, **pr)
        del bare["repository"]["id"]
        assert post(client, "pull_request", bare).status_code == 202
        drain(rt)
        assert rt.ctx.prs.get(old, 7002).comment_id is not None
        (row,) = rt.db.execute("SELECT repo_id FROM pr_state WHERE number = 7002")
        assert row["repo_id"] is None


# --- events of one second: a label put back, a PR converted to a draft ----------------

OPT_OUT = "no-review-notes"


@pytest.fixture
def live(tmp_path, fake_github, app_key):
    with serving(live_settings(tmp_path, fake_github, app_key, workers=2)) as (client, rt):
        assert rt.dry_run is None
        yield client, rt, fake_github


def sticky_text(fake, number=7001) -> str:
    (comment,) = [c for c in ours(fake, number) if c.body.startswith(MARKER)]
    return comment.body


def test_an_opt_out_label_put_back_in_the_same_second_is_not_dropped_as_a_replay(live):
    # `labeled` / `unlabeled` payloads carry whole-second times and no event id: the
    # label added, removed and added back within one second makes GitHub send the first
    # and third events byte for byte alike, under two X-GitHub-Delivery ids. Both are
    # real: the PR must end paused. The intake took the third for a replay of the first
    # (a body seen before) and dropped it, leaving the notes on an opted-out PR.
    client, rt, fake = live
    pr = fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES, title=MATCHING_TITLE)
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    assert "Automatic updates are paused" not in sticky_text(fake)

    at = "2026-09-01T10:00:05Z"
    labeled = pr_payload(action="labeled", title=MATCHING_TITLE, labels=(OPT_OUT,), updated_at=at)
    labeled["label"] = {"id": 1, "name": OPT_OUT, "color": "ededed"}
    unlabeled = pr_payload(action="unlabeled", title=MATCHING_TITLE, labels=(), updated_at=at)
    unlabeled["label"] = labeled["label"]

    pr.labels = [OPT_OUT]
    assert post(client, "pull_request", labeled, delivery="d-labeled-1").status_code == 202
    drain(rt)
    assert "Automatic updates are paused" in sticky_text(fake)

    pr.labels = []
    assert post(client, "pull_request", unlabeled, delivery="d-unlabeled").status_code == 202
    drain(rt)
    assert "Automatic updates are paused" not in sticky_text(fake)

    pr.labels = [OPT_OUT]  # put back: GitHub sends `labeled` again, the same bytes
    r = post(client, "pull_request", labeled, delivery="d-labeled-2")
    drain(rt)
    assert r.status_code == 202, f"a new delivery id was refused as a replay: {r.text}"
    assert "Automatic updates are paused" in sticky_text(fake), (
        "the PR carries the opt-out label, but its comment shows the notes"
    )
    # a captured `unlabeled` sent again is no harm: of the second last handled, it is
    # matched on the PR as GitHub has it now (labelled)
    r = post(client, "pull_request", unlabeled, delivery="d-unlabeled-replayed")
    drain(rt)
    assert r.json()["status"] == "queued"  # not refused: run, and the label stands
    assert "Automatic updates are paused" in sticky_text(fake)


def test_a_late_event_from_before_converted_to_draft_posts_nothing_on_the_draft(live):
    # Opened ready for review at 10:00:00, converted to a draft at 10:00:05; GitHub
    # promises no order, and `converted_to_draft` arrives first. It had no route, so its
    # time was not remembered, and the late `opened` (`draft: false`) posted the notes
    # on the draft. Its time now makes the `opened` stale; `ready_for_review` after it
    # still posts.
    client, rt, fake = live
    pr = fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES, title=MATCHING_TITLE, draft=True)
    r = post(
        client,
        "pull_request",
        pr_payload(
            action="converted_to_draft",
            title=MATCHING_TITLE,
            draft=True,
            updated_at="2026-09-01T10:00:05Z",
        ),
    )
    assert r.status_code == 202
    drain(rt)
    deliver_pr(client, rt, title=MATCHING_TITLE, draft=False, updated_at="2026-09-01T10:00:00Z")
    assert rt.queue.counts()["failed"] == 0
    assert ours(fake) == [], "a late `opened` posted the notes on a PR converted to a draft"

    pr.draft = False
    deliver_pr(
        client,
        rt,
        action="ready_for_review",
        title=MATCHING_TITLE,
        draft=False,
        updated_at="2026-09-01T10:00:09Z",
    )
    assert "Automatic updates are paused" not in sticky_text(fake)


# --- a replayed pull_request body costs no GitHub call --------------------------------


def test_a_replayed_pull_request_body_does_not_cost_a_github_call_each_time(live):
    # 3076634 stopped the body dedupe for every `pull_request` action, on the ground
    # that a replay "changes nothing". It changes no comment, but it is not free: a body
    # of the second last handled is "matched on the PR as GitHub has it" (`_as_now`), one
    # GET of the PR per copy, and every copy is a row in SQLite. Anyone holding one
    # captured signed delivery (a proxy log, the App's delivery page) can now make the
    # bot call GitHub as often as they post it under a fresh X-GitHub-Delivery; before,
    # intake answered 200 duplicate and nothing ran. The reason given for the exemption
    # (a label put back within its second sends the same bytes) needs a body seen
    # before to be accepted only when it is not the PR's latest: the same body twice in a
    # row is never two events.
    client, rt, fake = live
    fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES, title=MATCHING_TITLE)
    opened = pr_payload(title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    assert post(client, "pull_request", opened, delivery="d-opened").status_code == 202
    drain(rt)
    assert len(ours(fake, 7001)) == 1
    fake.clear_requests()

    answers = [
        post(client, "pull_request", opened, delivery=f"d-replay-{n}").status_code for n in range(5)
    ]
    drain(rt)
    gets = fake.calls("GET", "*/pulls/7001")
    assert len(gets) == 0, (
        f"5 replays of one captured body were answered {answers} and cost {len(gets)}"
        " GETs of the PR"
    )
    # refused as any duplicate is, and nothing stored
    assert answers == [200] * 5
    assert sum(rt.queue.counts().values()) == 1


# --- a put-back or re-checked event is no tie with its own time -----------------------


def test_a_put_back_pr_event_costs_no_extra_get_of_the_pr_when_it_runs_again(
    tmp_path, fake_github, app_key
):
    """refresh_sticky records the event's time (`seen_event`) before its first GitHub
    call, so a delivery put back for a rate limit was taken, when it ran again, for a
    tie with itself (state.event_at == event_at) and asked GitHub for the PR (`_as_now`,
    one GET /pulls/N more on an installation just rate limited, at each re-run)."""
    fake = fake_github
    n = 7502
    pull = fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    pull.head_sha = HEAD  # GitHub lists the files at the event's head
    settings = live_settings(tmp_path, fake, app_key, retry_sleep_max=1)
    with serving(settings) as (client, rt):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", Fault.too_many_requests(2))
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).state == "done", timeout=15, what="it")
        assert rt.queue.get(delivery).deferrals == 1  # it was put back once
        assert fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}") == []


def test_a_files_re_check_is_no_tie_with_its_own_event(tmp_path, fake_github, app_key):
    """A files re-check re-runs its event: the time its event recorded is its own, so
    it does not read the PR (it did, one GET more per re-check)."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES)
    settings = live_settings(tmp_path, fake, app_key, files_recheck_delays=(0.05, 0.05))
    with serving(settings) as (client, rt):
        _opened_behind(client, fake, looks=2)
        wait_until(lambda: ours(fake), what="the comment, after the third look")
        drain(rt)
        assert len(fake.calls("GET", "/repos/*/pulls/*/files")) == 3
        assert fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/7001") == []


def test_a_re_check_after_another_event_of_its_second_is_a_tie(tmp_path, fake_github, app_key):
    """Another event of the same second handled between an event and its re-check may
    be the newer (`labeled` with the opt-out label): the re-check reads the PR."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES)
    settings = live_settings(tmp_path, fake, app_key, files_recheck_delays=(0.5,))
    with serving(settings) as (client, rt):
        _opened_behind(client, fake, looks=1)
        wait_until(lambda: rt.queue.counts()["done"] == 1, what="the first look")
        same = pr_payload(action="labeled", title="Tidy up the KV cache coordinator")
        post(client, "pull_request", same)  # of the same second: a tie, one GET
        drain(rt)
        assert len(fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/7001")) == 2


# --- a signed payload's impossible fields: a time, an installation --------------------


def test_a_pull_request_updated_at_that_is_not_a_time_does_not_silence_the_pr_for_good(tmp_path):
    """Mutation: `pull_request.updated_at` of an `opened` delivery set to a string that is
    not a GitHub timestamp ("not a date"), the rest of the payload GitHub's own.

    What goes wrong: intake queues it (202), the handler stores the string as the PR's
    newest event time (`PRState.event_at`, compared as text in `sticky.seen_event`), and
    since "n" sorts after every "2026-..." timestamp, every later real event of that PR
    is judged stale and changes nothing: marked `done`, no error, no warning. Here the
    title is edited so that no note matches any more, and the comment keeps showing the
    note for good. One malformed delivery should be refused (400) or at least not be
    remembered as the PR's newest event; later deliveries must not be dropped silently.
    """
    with serving(make_settings(tmp_path, workers=1)) as (client, rt):
        first = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)
        first["pull_request"]["updated_at"] = "not a date"
        r = post(client, "pull_request", first)
        assert r.status_code in (202, 400), r.text
        drain(rt)
        edited = pr_payload(
            "edited",
            title=UNRELATED_TITLE,
            files=["docs/contributing/README.md"],
            updated_at="2026-09-02T10:00:00Z",
            changes={"title": {"from": MATCHING_TITLE}},
        )
        r2 = post(client, "pull_request", edited)
        assert r2.status_code == 202, r2.text
        drain(rt)
        state = rt.ctx.prs.get(REPO, 7001)
        assert state.event_at == "2026-09-02T10:00:00Z", (
            f"the PR's newest event is still {state.event_at!r}: the edit was judged stale"
        )
        stickies = [c for c in rt.dry_run.comments(REPO, 7001) if c["sticky"]]
        if stickies:  # posted for the first event: the edit must have updated it
            assert "Keep EAGLE prefix-cache" not in stickies[-1]["body"], stickies[-1]["body"]


@pytest.mark.parametrize(
    ("installation", "said"),
    [
        (5, "installation: not an object (int)"),
        ({"id": "abc"}, "installation.id: not an integer (str)"),
        ({"id": [1001]}, "installation.id: not an integer (list)"),
        ({"id": True}, "installation.id: not an integer (bool)"),
    ],
)
def test_a_signed_payload_with_an_impossible_installation_is_refused_naming_it(
    app, installation, said
):
    # recorded as "AttributeError: 'int' object has no attribute 'get'" or int()'s
    # "invalid literal for int() with base 10: 'abc'": nothing said which field; then
    # queued to fail naming it at each run: now refused at intake (tests/test_unlocks.py)
    client, rt = app
    payload = pr_payload(number=7301)
    payload["installation"] = installation
    r = post(client, "pull_request", payload)
    assert (r.status_code, r.json()) == (400, {"error": f"malformed pull_request payload: {said}"})


# --- a retargeted PR at the same head ---


# kills: bot/prstate.py:PRState.files_for a new base keeps the file list listed against the old
# one
def test_a_retargeted_pr_lists_its_files_again_though_its_head_is_the_same(live):
    client, rt, fake = live
    head = fake.add_pull(DEFAULT_REPO, 7001, files=["docs/contributing.md"]).head_sha
    deliver_pr(client, rt, title=UNRELATED_TITLE, head_sha=head, base_ref="release-0.9")
    assert ours(fake, 7001) == []
    fake.add_pull(DEFAULT_REPO, 7001, files=MATCHING_FILES)  # the diff against the new base
    fake.pull(DEFAULT_REPO, 7001).head_sha = head  # the same commits
    base = {"base": {"ref": {"from": "release-0.9"}, "sha": {"from": "f" * 40}}}
    deliver_pr(
        client,
        rt,
        action="edited",
        title=UNRELATED_TITLE,
        head_sha=head,
        changes=base,
        updated_at="2026-09-01T10:05:00Z",
    )
    assert MARKER in sticky_text(fake)


# --- the dispatcher: ids, routes, locked conversations, logins asked ---


# kills: bot/dispatch.py:payload_id id 0 taken as an id
# kills: bot/dispatch.py:_shown a string of 40 characters shown with "..." as if cut short
# kills: bot/dispatch.py:payload_id a float of 2**53 not read as a number out of range
# kills: bot/dispatch.py:_shown a number of 40 digits shown with "..." as if cut short
@pytest.mark.parametrize(
    ("value", "why"),
    [
        (0, "out of range (int 0)"),
        ("9" * 40, f"not a positive integer (str '{'9' * 40}')"),
        ("9" * 41, f"not a positive integer (str '{'9' * 40}'...)"),
        (10**39, f"out of range (int {10**39})"),
        (10**40, f"out of range (int {10**39}...)"),
        (2.0**64, "out of range (float 1.8446744073709552e+19)"),  # read past 64 bits
        (2.0**53, "out of range (float 9007199254740992.0)"),
    ],
)
def test_an_id_no_github_payload_has_is_refused_showing_it_whole_up_to_40_characters(value, why):
    with pytest.raises(MalformedPayload) as refused:
        payload_id(value, "comment.id")
    assert str(refused.value) == f"comment.id: {why}"
    assert payload_id(1, "comment.id") == 1
    assert payload_id(2**53 - 1, "comment.id") == 2**53 - 1


def comment_event(body: str, author: str = "octo-dev", repo: str = "vllm-project/vllm") -> dict:
    return {
        "action": "created",
        "repository": {"full_name": repo},
        "issue": {"number": 5, "pull_request": {"url": "x"}},
        "sender": {"login": author, "type": "User"},
        "comment": {"id": 11, "body": body, "user": {"login": author, "type": "User"}},
    }


# kills: bot/dispatch.py:Dispatcher.triage an event no route takes triaged as nothing
# kills: bot/dispatch.py:Dispatcher.triage a repository off the allow-list routed
# kills: bot/dispatch.py:Dispatcher.triage a repository off the allow-list triaged as nothing
# kills: bot/dispatch.py:Dispatcher.dispatch an ignored delivery's summary lost
def test_an_event_without_a_route_or_off_the_allow_list_is_ignored_saying_why(tmp_path):
    d = Dispatcher()
    d.add(Route("issue_comment", frozenset({"created"}), lambda ctx, dl: "handled"))
    settings = make_settings(tmp_path)
    cases = [
        ("push", {"ref": "main"}, "no handler for push"),
        (
            "issue_comment",
            dict(comment_event("/notes"), action="deleted"),
            "no handler for issue_comment.deleted",
        ),
        (
            "issue_comment",
            comment_event("/notes", repo="acme/widgets"),
            "repository 'acme/widgets' is not on the allow-list",
        ),
        ("issue_comment", {"action": "created"}, "repository (none) is not on the allow-list"),
    ]
    for event, payload, why in cases:
        t = d.triage(event, payload, settings)
        assert (t.route, t.reason) == (None, why)
        delivery = Delivery("d1", event, payload.get("action"), payload)
        assert d.dispatch(SimpleNamespace(settings=settings), delivery) == f"ignored: {why}"
    routed = Delivery("d2", "issue_comment", "created", comment_event("/notes"))
    assert d.dispatch(SimpleNamespace(settings=settings), routed) == "handled"


# kills: bot/dispatch.py:Dispatcher.dispatch a write refused on a locked conversation summarised as
# nothing
def test_a_delivery_refused_on_a_locked_conversation_is_done_saying_so(tmp_path):
    def refused(ctx, delivery):
        raise ConversationLocked("Unable to create comment because issue is locked.")

    d = Dispatcher()
    d.add(Route("issue_comment", None, refused))
    delivery = Delivery("d1", "issue_comment", "created", comment_event("/notes"))
    said = d.dispatch(SimpleNamespace(settings=make_settings(tmp_path)), delivery)
    assert said == (
        "stopped: the conversation is locked (Unable to create comment because issue is locked.)"
    )


# kills: bot/dispatch.py:_may_be_our_own GitHub asked for the bot's login on every comment with a
# token
# kills: bot/dispatch.py:_may_be_our_own GitHub asked for the login when it is configured, or not
# asked
def test_with_a_token_github_is_asked_for_the_login_only_for_a_marked_comment(tmp_path):
    port = AppDryRun(Database(tmp_path / "port.sqlite3"))
    d = Dispatcher()
    d.add(Route("issue_comment", None, lambda ctx, dl: "handled"))
    token = dict(github_token="ghp_x", public_url="https://notes.example.org")
    ours = "ignored: written by the bot itself (review-notes[bot])"
    for login, body, said, asked in [
        ({}, "/notes", "handled", 0),  # its owner's words, as a person: nothing to ask
        ({}, f"{MARKER}\n/notes", ours, 1),
        ({"bot_login": "review-notes[bot]"}, f"{MARKER}\n/notes", ours, 0),  # configured
    ]:
        port.asked = 0
        ctx = SimpleNamespace(settings=make_settings(tmp_path, **token, **login), github=port)
        payload = comment_event(body, author="review-notes[bot]")
        assert d.dispatch(ctx, Delivery("d1", "issue_comment", "created", payload)) == said
        assert port.asked == asked, (login, body)


# kills: bot/dispatch.py:follow_repository a payload without the repository's id clears the id kept
def test_an_event_without_the_repositorys_id_keeps_the_id_its_pr_state_has(tmp_path):
    ctx = SimpleNamespace(prs=PRStore(Database(tmp_path / "s.sqlite3")))
    repo = "vllm-project/vllm"
    follow_repository(ctx, {"repository": {"id": 42, "full_name": repo}}, repo, 5)
    assert not ctx.prs.must_follow(repo, 5, 42)
    follow_repository(ctx, {"repository": {"full_name": repo}}, repo, 5)  # a hand-made one
    assert not ctx.prs.must_follow(repo, 5, 42)

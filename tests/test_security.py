"""Security properties: what a PR author, a captured signed body or a note's text must
not be able to do. They drive the real paths: signed webhooks -> queue -> workers -> the
real GitHubClient -> the fake GitHub over HTTP, or the CLI as an operator runs it.
"""

from __future__ import annotations

import json
import time
import uuid
from types import SimpleNamespace

from bot.cli import main
from bot.signature import sign
from tests.command_kit import (  # `live` (conftest): App mode against the fake GitHub
    AUTHOR,
    N,
    comment_payload,
    replies,
    say,
    state,
)
from tests.fake_github import DEFAULT_REPO
from tests.webhook_kit import (
    MATCHING_FILES,
    SECRET,
    drain,
    post,
    title_with_one_more_note,
)

ESC = "\x1b"


# --- 1. terminal control sequences from GitHub reach the curator's terminal -------------


def test_feedback_report_prints_no_terminal_control_sequences_from_github(live, capsys):
    """Any PR author may run `/notes wrong N <reason>` on their own PR; the reason comes
    from GitHub as typed (command words split at spaces only, so ESC and BEL stay).
    `review-notes notes feedback` printed it raw, so an ESC in them drove the
    curator's terminal: clear the screen, move the cursor up and rewrite earlier lines,
    set the window title, or plant an OSC 8 hyperlink. Expected: the text report shows
    no control character from GitHub (dropped or escaped); `--json` already escapes."""
    client, rt, fake = live
    fake.add_pull(
        DEFAULT_REPO,
        N,
        files=MATCHING_FILES,
        title=title_with_one_more_note(),
        author=AUTHOR,
    )
    say(client, rt, fake, "/notes", title=title_with_one_more_note())
    assert len(state(rt).notes) >= 2
    reason = "fine\x1b[1A\x1b[2Kall notes are \x1b]8;;https://evil.example/\x07great\x1b]8;;\x07"
    say(client, rt, fake, f"/notes wrong 1 {reason}", login=AUTHOR)
    (mark,) = rt.ctx.feedback.marks()
    assert ESC in mark.reason  # stored as typed: that is fine, printing it raw is not

    assert main(["notes", "feedback", "--db", str(rt.db.path)]) == 0
    out = capsys.readouterr().out
    assert "by pr-author" in out  # the mark is listed
    assert ESC not in out and "\x07" not in out, out


# --- 2. a captured delivery replays under a new X-GitHub-Delivery -----------------------


def test_a_replayed_comment_delivery_with_a_new_delivery_id_runs_nothing_again(live):
    """GitHub signs the body only: X-GitHub-Delivery (the queue's only duplicate check)
    and X-GitHub-Event are not covered by the HMAC. Anyone who once saw a signed body (a
    proxy's log, a captured request) can send it again under a fresh delivery id, and
    the bot runs its commands again: another reply comment per replay (each within the
    reply budget), or an old `/notes off` by a maintainer that switches a PR off again
    after `/notes on`. GitHub's own redeliveries keep their delivery id. Expected: a
    comment event for a comment (id, body) already handled is answered as a duplicate
    and runs nothing."""
    client, rt, fake = live
    c = say(client, rt, fake, "/notes topic rocm")
    assert len(replies(fake)) == 1
    body = json.dumps(comment_payload(c)).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "issue_comment",
        "X-Hub-Signature-256": sign(SECRET, body),  # the captured signature, unchanged
    }
    for i in range(3):
        client.post(
            "/webhook", content=body, headers={**headers, "X-GitHub-Delivery": f"replay-{i}"}
        )
    drain(rt)
    assert len(replies(fake)) == 1, [r.body for r in replies(fake)]


def test_a_replayed_body_under_invented_event_names_adds_no_metric_series(live):
    """The same captured body, sent with a made-up X-GitHub-Event each time, is
    'ignored' but counted under that event name: every name is a new time series in
    /metrics for the life of the process (memory and scrape size without bound).
    Expected: events the bot has no route for are counted under one label."""
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "hello", login="someone")
    body = json.dumps(comment_payload(c)).encode()
    for i in range(50):
        post(client, f"made_up_event_{i:04d}_" + "x" * 200, body)
    text = rt.ctx.metrics.render().decode()
    assert "made_up_event_0049" not in text


# --- 4. a commit SHA in prose stays a word when a URL candidate is rejected --------------


def test_a_sha_before_a_url_inside_a_rejected_url_candidate_is_broken_up():
    """safe_text breaks a commit SHA in prose (a zero-width space every six digits) only
    when it ends at a non-alphanumeric character of its *input*. When a URL candidate is
    rejected (`http://)` has no host), the URL inside it is not looked for again, so
    `abc1234http://x.com` stays prose: the SHA is left whole, since `h` follows it, but
    cmark-gfm (github.com) autolinks the inner `http://x.com`, and the text node before
    the link ends in `abc1234`, a word GitHub links as a commit. Expected: no 7+ digit
    hex word with a digit and a letter survives whole in a text node of the rendered
    comment."""
    import re

    import cmarkgfm
    from cmarkgfm.cmark import Options

    from bot.markdown_safety import safe_text

    html = cmarkgfm.github_flavored_markdown_to_html(
        safe_text("the bug: http://)abc1234http://example.org/x"),
        options=Options.CMARK_OPT_UNSAFE,
    )
    assert '<a href="http://example.org/x">' in html  # github.com links the inner URL
    text = re.sub(r"<a\b.*?</a>|<[^>]+>", "\0", html)  # text nodes, links left out
    assert not re.search(r"(?<![0-9A-Za-z])abc1234(?![0-9A-Za-z])", text), html


# --- 5. the App's credentials, as docs/operating.md has them saved, are not git-ignored ---------


def test_the_app_credentials_files_the_readme_writes_are_git_ignored():
    """The App manifest flow (docs/operating.md, /github/app-created) has the operator run
    `curl ... > app.json` (the App's `pem`, `webhook_secret` and `client_secret`) and save
    the key as `app.pem` (the Deploy section mounts "$PWD/app.pem"), in the directory they
    work in, usually this checkout. .gitignore ignores `.env` but neither file, so
    `git add -A` commits the App's private key and webhook secret. Expected: both are
    ignored (e.g. `app.json`, `*.pem`)."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for name in ("app.json", "app.pem", "review-notes.2026-01-01.private-key.pem"):
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", name], cwd=root, check=False
        ).returncode
        assert ignored == 0, f"{name} is not git-ignored"


# --- a failed delivery's error on /healthz, without the secrets ---


def test_healthz_shows_a_failed_deliverys_error_without_the_secrets(live, monkeypatch):
    # /healthz is on the webhook's port, open to anyone who reaches it; the logs
    # redacted the credentials, the stored error (shown there and by `retry`) did not
    client, rt, fake = live

    def fails(ctx, delivery):
        raise RuntimeError(f"refused header 'X-Hub-Signature: {SECRET}'")

    monkeypatch.setattr(rt.dispatcher, "dispatch", fails)
    post(client, "issue_comment", comment_payload(fake.add_comment(DEFAULT_REPO, N, "/notes")))
    drain(rt)
    (failure,) = client.get("/healthz").json()["recent_failures"]
    assert failure["error"] == "RuntimeError: refused header 'X-Hub-Signature: [redacted]'"


# --- a comment body replayed later ---


# kills: webhook.WebhookEndpoint.triage: `once = not route.same_bodies` -> `route.same_bodies`
def test_a_comment_body_replayed_after_another_comment_still_runs_nothing(live):
    # a comment's body is stored once: any copy is a replay, not only one right after it
    client, rt, fake = live
    first = say(client, rt, fake, "/notes topic rocm")
    say(client, rt, fake, "/notes topic cuda")
    assert len(replies(fake)) == 2
    body = json.dumps(comment_payload(first)).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "issue_comment",
        "X-Hub-Signature-256": sign(SECRET, body),
        "X-GitHub-Delivery": "replay-after-another",
    }
    assert client.post("/webhook", content=body, headers=headers).status_code == 200
    drain(rt)
    assert len(replies(fake)) == 2


# --- security, as an outsider and a careless operator ---


def test_the_app_created_page_shows_no_password_of_the_api_url(tmp_path):
    # /github/app-created answers anyone; it printed GITHUB_API_URL whole, user and
    # password of a proxy's basic auth included (the server's own errors never echo it)
    from tests.webhook_kit import make_settings, serving

    url = "https://bot:hunter2pw@ghe.example.com/api/v3/"
    with serving(make_settings(tmp_path, github_api_url=url)) as (client, _):
        text = client.get("/github/app-created", params={"code": "abc123"}).text
    assert "https://ghe.example.com/api/v3/app-manifests/abc123/conversions" in text, text
    assert "hunter2pw" not in text and "bot:" not in text


def test_the_app_credentials_are_written_readable_by_their_owner_only(tmp_path):
    # the manifest flow's commands (docs/operating.md and the page GitHub
    # sends the browser to) wrote app.json (the App's key, webhook secret and client
    # secret) and app.pem under the shell's umask, commonly 022: readable by every user of
    # the machine. `umask 077` comes before the first of them.
    import re

    from tests.docs_kit import doc
    from tests.webhook_kit import make_settings, serving

    with serving(make_settings(tmp_path)) as (client, _):
        page = client.get("/github/app-created", params={"code": "abc123"}).text
    block = re.search(r"```sh\n((?:(?!```).)*?> app\.json.*?)```", doc("operating.md"), re.S)
    assert block, "docs/operating.md: no block writing app.json"
    for text in (page, block[1]):
        before = text[: text.index("> app.json")]
        assert "umask 077" in before, text


def test_a_delivery_signed_with_sha1_only_is_refused_naming_the_header(tmp_path, caplog):
    # a sender signing with the old SHA-1 header alone has a secret set: the 401's line
    # said "a hook with no secret set?"; the SHA-1 signature is never accepted
    import hashlib
    import hmac
    import logging

    from tests.webhook_kit import make_settings, serving

    caplog.set_level(logging.INFO)
    body = b'{"zen": "Keep it simple."}'
    sha1 = "sha1=" + hmac.new(SECRET.encode(), body, hashlib.sha1).hexdigest()
    headers = {"X-GitHub-Event": "ping", "X-GitHub-Delivery": "d-sha1", "X-Hub-Signature": sha1}
    with serving(make_settings(tmp_path)) as (client, _):
        assert client.post("/webhook", content=body, headers=headers).status_code == 401
    said = [r.getMessage() for r in caplog.records if "refused (401)" in r.getMessage()]
    assert len(said) == 1 and "only the SHA-1 X-Hub-Signature" in said[0], said
    assert sha1 not in caplog.text


# --- a captured body sent again once its delivery was pruned ---

DAY = 86400


def _sent_again(client, rt, event: str, payload: dict) -> dict:
    """A captured signed body, posted under a delivery id never seen (a copy's own)."""
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-Hub-Signature-256": sign(SECRET, body),
        "X-GitHub-Delivery": str(uuid.uuid4()),
    }
    r = client.post("/webhook", content=body, headers=headers)
    assert r.status_code == 202, r.text
    drain(rt)
    return r.json()


def _written(payload: dict, part: str, **times: float) -> dict:
    """`payload` with its comment's or review's times set `times[field]` seconds ago."""
    from tests.command_kit import github_time_ago

    ago = {field: github_time_ago(seconds) for field, seconds in times.items()}
    return dict(payload, **{part: dict(payload[part], **ago)})


# kills: bot/webhook.py:WebhookEndpoint.triage the replay not counted in /metrics (by hand)
def test_a_comment_older_than_the_deliveries_kept_is_refused_as_a_replay(live, caplog):
    # A copy is known by its body's hash only while its delivery is kept (14 days): once
    # pruned, the captured body of someone's `/notes topic rocm` (or `off`, `wrong`) was
    # run again. A comment written and last edited that long ago is no new event.
    client, rt, fake = live
    c = fake.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login=AUTHOR)
    old = _written(comment_payload(c), "comment", created_at=15 * DAY, updated_at=15 * DAY)
    answer = _sent_again(client, rt, "issue_comment", old)
    assert answer["status"] == "ignored" and "deliveries are kept (14 days)" in answer["reason"]
    assert replies(fake) == [] and fake.reactions(c.id) == []
    (said,) = [r for r in caplog.records if "refused as a replay" in r.getMessage()]
    assert said.levelname == "WARNING"
    counted = 'review_notes_deliveries_total{event="issue_comment",outcome="ignored"} 1.0'
    assert counted in client.get("/metrics").text
    # edited since: `updated_at` is the edit's, a new event
    edited = _written(old, "comment", updated_at=60)
    edited = dict(edited, action="edited", changes={"body": {"from": "LGTM"}})
    assert _sent_again(client, rt, "issue_comment", edited)["status"] == "queued"
    assert len(replies(fake)) == 1


def test_a_comment_younger_than_the_deliveries_kept_is_run(
    tmp_path, fake_github, app_key, monkeypatch
):
    # the window is REVIEW_NOTES_DELIVERY_RETENTION_DAYS, not a fixed 14 days
    from tests.webhook_kit import MATCHING_TITLE, clean_env, live_settings, serving

    clean_env(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake_github, app_key, delivery_retention_days=30)
    with serving(settings) as (client, rt):
        c = fake_github.add_comment(DEFAULT_REPO, N, "/notes topic rocm", login=AUTHOR)
        p = _written(comment_payload(c), "comment", created_at=29 * DAY, updated_at=29 * DAY)
        assert _sent_again(client, rt, "issue_comment", p)["status"] == "queued"
        assert len(replies(fake_github)) == 1


def test_a_review_older_than_the_deliveries_kept_is_refused_but_its_edit_is_run(live):
    # an edited review carries its `submitted_at` only, not the edit's time: not known
    # to be old, it is run (its copy after the delivery is pruned is the limit left)
    from tests.command_kit import review_payload

    client, rt, fake = live
    head = fake.pull(DEFAULT_REPO, N).head_sha
    review = review_payload("LGTM\n/notes topic rocm", head_sha=head)
    review = _written(review, "review", submitted_at=15 * DAY)
    assert _sent_again(client, rt, "pull_request_review", review)["status"] == "ignored"
    assert replies(fake) == []
    edited = dict(review, action="edited", changes={"body": {"from": "LGTM"}})
    assert _sent_again(client, rt, "pull_request_review", edited)["status"] == "queued"
    assert len(replies(fake)) == 1


def test_a_diff_comment_older_than_the_deliveries_kept_is_refused(live):
    from tests.command_kit import diff_comment_payload

    client, rt, fake = live
    c = fake.add_review_comment(DEFAULT_REPO, N, "/notes topic rocm", login="octo-dev")
    p = diff_comment_payload(c, head_sha=fake.pull(DEFAULT_REPO, N).head_sha)
    p = _written(p, "comment", created_at=15 * DAY, updated_at=15 * DAY)
    assert _sent_again(client, rt, "pull_request_review_comment", p)["status"] == "ignored"
    assert replies(fake) == [] and fake.reactions(c.id) == []


# --- a sender's text forging a log line ---------------------------------------------

FORGED = "\nerror: bot.workers: delivery d-1 failed: forged\r\u2028\x85\x1b[31m"


def test_a_senders_text_cannot_start_a_log_line_in_either_format(tmp_path, caplog):
    # a signed body's action or login is written into the intake's line ("ignored: no
    # handler for pull_request.<action>", "sent by a bot (<login>)"): a newline there
    # started a line of the sender's own in the plain format (`retry`, `redeliver`, the
    # notes commands write it), a line no reader could tell from the bot's
    import logging

    from bot.logs import JsonFormatter, PlainFormatter, Redactor
    from tests.webhook_kit import make_settings, pr_payload, serving

    caplog.set_level(logging.INFO)
    made = time.time()
    said_by = SimpleNamespace(login=f"x[bot]{FORGED}", id=9, type="Bot")
    comment = SimpleNamespace(
        id=1, body="/notes why", user=said_by, created_at=made, updated_at=made
    )
    with serving(make_settings(tmp_path)) as (client, rt):
        assert post(client, "pull_request", pr_payload(f"opened{FORGED}")).status_code == 202
        assert post(client, "issue_comment", comment_payload(comment)).status_code == 202
        drain(rt)
    said = [r for r in caplog.records if "forged" in r.getMessage()]
    assert len(said) == 2, [r.getMessage() for r in caplog.records]
    for formatter in (PlainFormatter(Redactor()), JsonFormatter(Redactor())):
        for record in said:
            line = formatter.format(record)
            assert len(line.splitlines()) == 1 and ESC not in line, line


# kills: bot/github_client.py:GitHubClient.permission the login asked for named as sent in
#        the call's retry line and failure
def test_a_senders_login_whose_permission_check_fails_cannot_start_a_log_line(live, caplog):
    # `off` by someone other than the PR's author asks GitHub for their permission; the
    # call, named by the signed body's login, went into the retry's warning as sent (and
    # into the failure a delivery records when every try fails)
    import logging

    from bot.logs import JsonFormatter, PlainFormatter, Redactor
    from tests.fake_github import Fault

    client, rt, fake = live
    caplog.set_level(logging.INFO)
    fake.inject("GET", "/repos/*/collaborators/*/permission", Fault.error(502))
    say(client, rt, fake, "/notes off", login=f"maint{FORGED}")
    said = [r for r in caplog.records if "forged" in r.getMessage()]
    assert [r.name for r in said] == ["bot.github_retry"], [r.getMessage() for r in said]
    for formatter in (PlainFormatter(Redactor()), JsonFormatter(Redactor())):
        line = formatter.format(said[0])
        assert len(line.splitlines()) == 1 and ESC not in line, line

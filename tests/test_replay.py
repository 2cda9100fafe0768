"""`review-notes replay` in-process (bot/replay.py): the event it guesses from a bare
payload, and what it sends to a real server (uvicorn on 127.0.0.1, its SQLite queue)."""

from __future__ import annotations

import json
import socket
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.replay import brought_to_now, guess_event, replay
from bot.server import build_runtime, create_app
from tests.browser_kit import serving_in_thread
from tests.webhook_kit import SECRET, free_port, make_settings

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "pr-52419-opened.json"

# --- `replay`: telling events apart, signing, refusals, the server's health ---


# kills: bot/replay.py:guess_event `"zen" in payload and` -> `"zen" not in payload and` (a ping
#   refused: "cannot tell the event"), and :guess_event `return "ping"` -> `return None`
# kills: bot/replay.py:guess_event `and "hook_id" in payload` -> `or` (a `meta` event, the App's
#   webhook deleted, sent as a ping)
def test_a_ping_is_told_by_its_zen_and_hook_id_and_a_meta_event_is_not_a_ping():
    ping = {"zen": "Design for failure.", "hook_id": 1, "hook": {"type": "App"}}
    assert guess_event(ping) == "ping"
    meta = {"action": "deleted", "hook_id": 1, "hook": {"type": "App"}}
    with pytest.raises(ValueError, match="pass --event"):
        guess_event(meta)


@pytest.mark.parametrize(
    ("payload", "event"),
    [
        ({"action": "created", "comment": {}, "issue": {"pull_request": {}}}, "issue_comment"),
        ({"action": "submitted", "review": {}, "pull_request": {}}, "pull_request_review"),
        ({"action": "created", "comment": {}, "pull_request": {}}, "pull_request_review_comment"),
        ({"action": "opened", "pull_request": {}}, "pull_request"),
    ],
)
def test_each_event_the_app_handles_is_told_from_its_payload(payload, event):
    assert guess_event(payload) == event


@pytest.fixture
def webhook(tmp_path):
    """A server's webhook URL and its queue (not started: what it stores stays pending)."""
    rt = build_runtime(make_settings(tmp_path))
    try:
        with serving_in_thread(create_app(rt)) as base:
            yield f"{base}/webhook", rt.queue
    finally:
        rt.db.close()


def test_replay_sends_the_files_bytes_signed_under_the_event_and_id_given(webhook, tmp_path):
    url, queue = webhook
    # a PR event that looks like a ping, written as no re-encoding would write it again:
    # the server checks the signature over the bytes as they are
    event = json.loads(EXAMPLE.read_text()) | {"zen": "Keep it logically awesome.", "hook_id": 1}
    payload = tmp_path / "event.json"
    payload.write_bytes(json.dumps(event, indent=3).encode() + b"  \n")
    status, body = replay(payload, url=url, secret=SECRET, event="pull_request", delivery_id="d-1")
    assert status == 202, body
    stored = queue.get("d-1")
    assert stored is not None and stored.event == "pull_request" and stored.payload == event
    status, body = replay(EXAMPLE, url=url, secret=SECRET)  # the event guessed, an id made
    assert status == 202, body
    assert queue.counts()["pending"] == 2


def test_replay_returns_the_servers_refusal_rather_than_raising_it(webhook):
    url, queue = webhook
    status, body = replay(EXAMPLE, url=url, secret="not-the-secret")
    assert status == 401 and body
    assert queue.counts()["pending"] == 0


def test_replay_to_a_server_that_never_answers_names_the_url_and_the_wait():
    with socket.socket() as listening:  # connections wait in its backlog, never answered
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/webhook"
        with pytest.raises(OSError, match=f"{url}: no answer within 0.2 s"):
            replay(EXAMPLE, url=url, secret=SECRET, timeout=0.2)


def test_replay_to_no_server_names_the_url():
    url = f"http://127.0.0.1:{free_port()}/webhook"
    with pytest.raises(OSError, match=f"{url}: cannot send"):
        replay(EXAMPLE, url=url, secret=SECRET)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "not JSON"),
        ('{"a": ', "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deep"),
    ],
)
def test_a_payload_file_that_is_no_json_object_is_named(tmp_path, text, said):
    path = tmp_path / "event.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"event.json: {said}"):
        replay(path, url="http://127.0.0.1:9/webhook", secret=SECRET)


@pytest.fixture
def health_at():
    """A stand-in server on 127.0.0.1 answering GET /healthz with (status, body)."""
    import http.server
    import threading

    answer: list[tuple[int, bytes]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            status, body = answer[0] if self.path == "/healthz" else (404, b"{}")
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def at(status: int, body: bytes) -> str:
        answer[:] = [(status, body)]
        return f"http://127.0.0.1:{server.server_port}/webhook"

    yield at
    server.shutdown()
    server.server_close()


# kills: bot/replay.py:posts_to_github (hand) a /healthz failing (503) taken for no answer;
#   an answer naming no dry_run, or a page that is no JSON, taken for a live server
@pytest.mark.parametrize(
    ("status", "body", "live"),
    [
        (200, b'{"status": "ok", "dry_run": false}', True),
        (503, b'{"status": "failing", "dry_run": false}', True),  # still posting to GitHub
        (200, b'{"status": "ok", "dry_run": true}', False),
        (200, b'{"status": "ok"}', False),  # another kind of server
        (200, b"<html>not ours</html>", False),
        (404, b"{}", False),
    ],
)
def test_whether_a_server_posts_to_github_is_read_from_its_healthz(health_at, status, body, live):
    from bot.replay import posts_to_github

    assert posts_to_github(health_at(status, body)) is live


def test_a_webhook_url_with_no_server_behind_it_is_no_live_server():
    from bot.replay import posts_to_github

    assert posts_to_github(f"http://127.0.0.1:{free_port()}/webhook") is False


# kills: bot/replay.py:posts_to_github (hand) the query or the trailing slash of the webhook
#   URL kept, /healthz asked for under /webhook
@pytest.mark.parametrize("tail", ["/", "?from=replay", "/?from=replay"])
def test_the_health_of_a_webhook_url_written_otherwise_is_asked_beside_it(health_at, tail):
    from bot.replay import posts_to_github

    assert posts_to_github(health_at(200, b'{"dry_run": false}') + tail) is True


# --- `review-notes replay` on the command line ---


# kills: bot/cli_server.py:_cmd_replay the server asked before the file is read (a mistyped path
#   answered "not a dry run ... pass --live"); bot/replay.py:read_payload an unreadable file
#   said as Python's "[Errno 2] ...", not in the house form "PATH: cannot read: ..."
@pytest.mark.parametrize(("name", "why"), [("typo.json", "No such file"), ("", "Is a directory")])
def test_a_payload_file_that_cannot_be_read_is_named_before_any_server_is_asked(
    health_at, tmp_path, monkeypatch, capsys, name, why
):
    from bot.cli import main

    monkeypatch.chdir(tmp_path)
    path = tmp_path / name if name else tmp_path
    live = health_at(200, b'{"status": "ok", "dry_run": false}')
    assert main(["replay", str(path), "--url", live, "--secret", SECRET]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"review-notes replay: {path}: cannot read: {why}"), err


# kills: bot/cli_server.py:_cmd_replay a live server's settings asked of replay, which posts nothing
def test_replay_runs_in_a_shell_with_a_github_token(webhook, tmp_path, monkeypatch, capsys):
    # A developer's shell exports GITHUB_TOKEN (for gh): replay, which only signs the
    # file with the settings' secret and sends it, was refused as a live server's
    # settings ("REVIEW_NOTES_PUBLIC_URL: required ...", exit 2)
    from bot.cli import main

    url, queue = webhook
    monkeypatch.chdir(tmp_path)  # (no .env)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_" + "a" * 36)
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", SECRET)
    assert main(["replay", str(EXAMPLE), "--url", url]) == 0, capsys.readouterr().err
    assert queue.counts()["pending"] == 1


# kills: bot/cli_server.py:_cmd_replay (hand) a duplicate answered with no word of what to do
# kills: bot/cli_server.py:_cmd_replay every 200 answer, a ping's pong, said to be a duplicate
# kills: bot/cli_server.py:_answered a queued answer taken for a duplicate, or a duplicate for none
def test_a_payload_sent_again_says_it_is_not_run_and_how_to_see_an_edited_note(
    webhook, tmp_path, monkeypatch, capsys
):
    # A curator edits a note, restarts the dry run and replays the example again to see
    # the comment: the server answers `200 {"status":"duplicate",...}` (the PR's last
    # body) and runs nothing, and replay printed only that, exit 0: the old comment stayed
    # at /dry-run/comments with nothing said about why.
    from bot.cli import main

    url, queue = webhook
    monkeypatch.chdir(tmp_path)  # (no .env)
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", SECRET)
    assert main(["replay", str(EXAMPLE), "--url", url]) == 0
    first = capsys.readouterr()
    assert first.out.startswith("202 ") and first.err == ""
    assert main(["replay", str(EXAMPLE), "--url", url]) == 0
    again = capsys.readouterr()
    assert again.out.startswith('200 {"status":"duplicate"')
    assert again.err.startswith("review-notes replay: not run again: it is the body the server")
    assert "restart the server" in again.err and "REVIEW_NOTES_DB_PATH" in again.err
    assert queue.counts()["pending"] == 1
    ping = tmp_path / "ping.json"  # answered 200 too, and nothing to say of it
    ping.write_text(json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}), "utf-8")
    assert main(["replay", str(ping), "--url", url]) == 0
    pong = capsys.readouterr()
    assert pong.out.startswith('200 {"status":"pong"') and pong.err == ""


def test_a_comment_sent_again_is_told_to_change_the_comment_not_its_action(
    webhook, tmp_path, monkeypatch, capsys
):
    # A reviewer's walk replayed a comment payload twice: told to send it with another
    # "action", as "synchronize", which no comment has
    from bot.cli import main

    url, _ = webhook
    monkeypatch.chdir(tmp_path)  # (no .env)
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", SECRET)
    payload = json.loads((EXAMPLE.parent / "pr-52419-comment-wrong.json").read_text("utf-8"))
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())  # not past the kept days
    payload["comment"]["created_at"] = payload["comment"]["updated_at"] = now
    comment = tmp_path / "comment.json"
    comment.write_text(json.dumps(payload), "utf-8")
    assert main(["replay", str(comment), "--url", url]) == 0
    capsys.readouterr()
    assert main(["replay", str(comment), "--url", url]) == 0
    again = capsys.readouterr()
    assert again.out.startswith('200 {"status":"duplicate"')
    assert '"synchronize"' not in again.err
    assert 'another "id" or "body" in its "comment"' in again.err


# a server's address given to `replay --url` (its banner's, with no path) means its
# webhook; a URL with a path, a proxy's or the webhook's own, is sent to as written
@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/webhook"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/webhook"),
        ("https://notes.example.org", "https://notes.example.org/webhook"),
        ("http://127.0.0.1:8000/webhook", "http://127.0.0.1:8000/webhook"),
        ("https://example.org/review-notes", "https://example.org/review-notes"),
        ("http://127.0.0.1:8000?x=1", "http://127.0.0.1:8000?x=1"),
        ("http://[::1", "http://[::1"),  # no URL: `send` names it
    ],
)
def test_a_servers_address_means_its_webhook(given, sent):
    from bot.replay import webhook_url

    assert webhook_url(given) == sent


def test_now_moves_every_time_by_one_shift_the_newest_to_now():
    payload = {
        "comment": {"created_at": "2026-08-15T10:00:00Z", "updated_at": "2026-08-15T10:03:18Z"},
        "issue": {"created_at": "2026-08-15T09:12:41Z", "closed_at": None, "title": "x"},
        "pull_request": {"merged_at": "not a time", "head": {"label": "2026-08-15T10:03:18Z"}},
        "repository": {"pushed_at": 1755250000},  # GitHub's epoch seconds: left as they are
    }
    now = datetime(2026, 12, 7, 22, 0, 5, 123456, tzinfo=UTC)
    moved = brought_to_now(payload, now)
    assert moved["comment"] == {
        "created_at": "2026-12-07T21:56:47Z",
        "updated_at": "2026-12-07T22:00:05Z",
    }
    assert moved["issue"]["created_at"] == "2026-12-07T21:09:28Z"
    assert moved["issue"]["closed_at"] is None and moved["issue"]["title"] == "x"
    assert moved["pull_request"] == payload["pull_request"]  # no `_at` key, or no time
    assert moved["repository"] == {"pushed_at": 1755250000}
    assert payload["comment"]["updated_at"] == "2026-08-15T10:03:18Z"  # a copy
    assert brought_to_now({"action": "opened"}, now) == {"action": "opened"}

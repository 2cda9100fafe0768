"""Helpers for the server tests: settings in a temp dir, signed deliveries, payloads.

Payloads come from `@octokit/webhooks-examples` (real GitHub shapes), moved to
`vllm-project/vllm` and given the title/labels/files a test needs.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bot.github_port import GitHubPort
from bot.queue import DeliveryQueue
from bot.server import Runtime, build_runtime, create_app
from bot.settings import Settings, load_settings
from bot.signature import sign
from tests.fake_github import (
    DEFAULT_APP_ID,
    DEFAULT_APP_SLUG,
    DEFAULT_REPO,
    FakeGitHub,
    webhook_request,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = (
    ROOT / "node_modules" / "@octokit" / "webhooks-examples" / "api.github.com" / "index.json"
)
SECRET = "test-webhook-secret"
REPO = "vllm-project/vllm"


def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests must not see a developer's GitHub credentials or bot options."""
    for name in list(os.environ):
        if name.startswith(("GITHUB_", "REVIEW_NOTES_")):
            monkeypatch.delenv(name)


def make_settings(tmp_path: Path, **values: Any) -> Settings:
    values.setdefault("db_path", tmp_path / "bot.sqlite3")
    values.setdefault("github_webhook_secret", SECRET)
    values.setdefault("workers", 2)
    # a delivery GitHub fails in an outage fails at once, as before outage waits (an hour
    # of put-backs by default): the tests of a failed delivery (retry, redelivery) need
    # it failed; tests/test_outages.py waits outages out
    values.setdefault("outage_wait_total", 0)
    return load_settings(env_file=None, **values)


@contextmanager
def serving(
    settings: Settings,
    github: GitHubPort | None = None,
    *,
    prepare: Callable[[Runtime], None] | None = None,
) -> Iterator[tuple[TestClient, Runtime]]:
    """The app with its workers running (TestClient runs the lifespan); `prepare` is
    called on the runtime before they start (a test's watch on what they run)."""
    rt = build_runtime(settings, github=github)
    if prepare is not None:
        prepare(rt)
    with TestClient(create_app(rt)) as client:
        yield client, rt


def post(
    client: TestClient,
    event: str,
    payload: dict[str, Any] | bytes,
    *,
    delivery: str | None = None,
    secret: str = SECRET,
    headers: dict[str, str] | None = None,
    path: str = "/webhook",
) -> Any:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    h = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/test",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
        "X-Hub-Signature-256": sign(secret, body),
    }
    h.update(headers or {})
    return client.post(path, content=body, headers=h, follow_redirects=False)  # as GitHub


def wait_idle(queue: DeliveryQueue, timeout: float) -> bool:
    """Block until nothing is pending or processing; False on timeout. Woken by the
    queue's changes (its public `version`), polling at most every 0.2 s."""
    deadline = time.monotonic() + timeout
    while True:
        seen = queue.version
        counts = queue.counts()
        if counts["pending"] == 0 and counts["processing"] == 0:
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        queue.wait_for_work(seen, min(left, 0.2))


def drain(rt: Runtime, timeout: float = 20.0) -> None:
    assert wait_idle(rt.queue, timeout), f"queue did not drain: {rt.queue.counts()}"


def run_again(rt: Runtime, delivery_id: str) -> None:
    """Run a delivery that ran once a second time, as GitHub's answers lost after its
    writes make it (the run fails, `review-notes retry` runs it again, as received).
    The intake refuses GitHub's redelivery (the same X-GitHub-Delivery) and a copy of a
    comment's body, before any handler: a check that a second run changes nothing must
    run it so, or it passes whatever the handler does."""
    assert rt.queue.get(delivery_id).state == "done"
    rt.queue.fail(delivery_id, "its answers lost after its writes (the test's)")
    assert rt.queue.retry([delivery_id]) == [delivery_id]
    drain(rt)
    assert rt.queue.get(delivery_id).state == "done"


def deliver_pr(client: TestClient, rt: Runtime, timeout: float = 20.0, **kw: Any) -> dict:
    """Post a `pull_request` built from `kw`, expect it queued, wait until it is done."""
    r = post(client, "pull_request", pr_payload(**kw))
    assert r.status_code == 202, r.text
    drain(rt, timeout)
    return r.json()


def app_settings(tmp_path: Path, fake: FakeGitHub, key: Any, **values: Any) -> Settings:
    """Settings in App mode against the fake GitHub (`key`: conftest's AppKey), unthrottled."""
    options: dict[str, Any] = dict(
        github_app_id=str(DEFAULT_APP_ID),
        github_private_key=key.private_pem,
        github_api_url=fake.base_url,
        public_url="https://notes.example.org",
        seconds_between_requests=0,
        seconds_between_writes=0,
    )
    options.update(values)
    return make_settings(tmp_path, **options)


def live_settings(tmp_path: Path, fake: FakeGitHub, key: Any, **kw: Any) -> Settings:
    """app_settings with quick retries and three workers: the served App of live tests."""
    quick = {"retry_backoff": 0.01, "max_retries": 2, "workers": 3, "lost_create_wait": 0.05}
    quick["reply_copies_check_after"] = 0.2
    return app_settings(tmp_path, fake, key, **{**quick, **kw})


BOT = f"{DEFAULT_APP_SLUG}[bot]"  # the fake's App, as GitHub names its comments' author


def ours(fake: FakeGitHub, number: int = 7001, repo: str = DEFAULT_REPO) -> list[Any]:
    """The bot's comments on a PR of the fake GitHub."""
    return [c for c in fake.comments(repo, number) if c.user.login == BOT]


def repo_calls(fake: FakeGitHub) -> Counter:
    """HTTP calls on the repository (auth and App lookups excluded), by method and route."""
    out: Counter = Counter()
    for r in fake.requests:
        if r.path.startswith("/repos/") and not r.path.endswith("/installation"):
            parts = r.path.split("/")
            route = "/".join(p if not p.isdigit() else "{n}" for p in parts[4:])
            out[f"{r.method} {route}"] += 1
    return out


# --- real processes -------------------------------------------------------------

PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# bot/db.py's BUSY_TIMEOUT_SECONDS in a child process: a test of another process's lock
# held past it waits 1 s for it, not the 10 s a server waits
SHORT_BUSY_TIMEOUT = {"_REVIEW_NOTES_TEST_BUSY_TIMEOUT": "1"}


def outside_dotenv(env: dict[str, str], cwd: Path) -> dict[str, str]:
    """`env` for a child process started in `cwd`: in the checkout it reads no `.env`
    (bot/settings.py's ENV_FILE), as an operator's there holds live credentials and a
    webhook secret that would answer for the test's."""
    if Path(cwd).resolve() != ROOT:
        return env  # a test's own directory: its .env, if the test wrote one
    return {**env, "_REVIEW_NOTES_TEST_NO_DOTENV": "1"}


def base_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "REVIEW_NOTES_"))}
    env.update(REVIEW_NOTES_DB_PATH=str(tmp_path / "bot.sqlite3"), PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def app_env(tmp_path: Path, fake: FakeGitHub, key: Any, **extra: str) -> dict[str, str]:
    """The environment of a `review-notes serve` in App mode against the fake, unthrottled."""
    return base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        GITHUB_APP_ID=str(DEFAULT_APP_ID),
        GITHUB_PRIVATE_KEY=key.private_pem,
        GITHUB_WEBHOOK_SECRET=SECRET,
        GITHUB_API_URL=fake.base_url,
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
        REVIEW_NOTES_SECONDS_BETWEEN_REQUESTS="0",
        REVIEW_NOTES_SECONDS_BETWEEN_WRITES="0",
        **extra,
    )


def cli(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 60
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PY, "-m", "bot.cli", *args],
        env=outside_dotenv(env, cwd),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_cli(tmp_path: Path, *args: str, timeout: float = 60, **env: str):
    """The CLI as a user runs it, in a directory of its own (no .env of ours)."""
    return cli(
        *args, env=base_env(tmp_path, PYTHONPATH=str(ROOT), **env), cwd=tmp_path, timeout=timeout
    )


def clear_error(r: subprocess.CompletedProcess, *names: str) -> None:
    """A failure (non-zero exit) without a traceback, naming each of `names`."""
    assert r.returncode != 0, r.stdout
    assert "Traceback" not in r.stderr, r.stderr[-800:]
    for name in names:
        assert name in r.stderr, r.stderr


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def _answer(check: Callable[[], Any]) -> Any:
    """What `check()` answers, or None while the server refuses the connection."""
    try:
        return check()
    except OSError:
        return None


def wait_until(check, timeout: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        if value := _answer(check):
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# How long a server started by a test may take to answer or exit: a guard against a hang
# only, far above a start on a loaded 2-core machine (a start is a few seconds; a fixed
# 20 s wait failed there). A server that exits is told at once (`wait_for_start`).
START_DEADLINE = 300.0


def wait_for_start(
    proc: subprocess.Popen, check: Callable[[], Any], output: Callable[[], str]
) -> Any:
    """What `check()` first answers (the server is up). Fails at once, with the server's
    output (`output()`), when the process exits first; past START_DEADLINE when it does
    neither. Either failure says how long it waited."""
    began = time.monotonic()
    while True:
        if value := _answer(check):
            return value
        waited = time.monotonic() - began
        if proc.poll() is not None:
            raise AssertionError(
                f"the server exited (code {proc.returncode}) {waited:.1f} s after the test"
                f" began waiting for it, never answering; its output:\n{output()[-3000:]}"
            )
        if waited > START_DEADLINE:
            raise AssertionError(
                f"the server neither answered nor exited in {waited:.0f} s; its output so"
                f" far:\n{output()[-3000:]}"
            )
        time.sleep(0.05)


def serve_refused(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """`review-notes serve` expected to refuse to start: its exit and output. Fails at once
    when it answers /healthz instead (it started), and past START_DEADLINE when it does
    neither, saying how long it waited: no fixed timeout for a loaded machine to miss."""
    port = free_port()
    with open(os.devnull, "rb") as stdin:
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port), *args],
            env=outside_dotenv(env, cwd),
            cwd=cwd,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    out: dict[str, str] = {}
    reader = threading.Thread(target=lambda: out.update(zip("oe", proc.communicate(), strict=True)))
    reader.start()
    began = time.monotonic()
    try:
        while reader.is_alive():
            reader.join(0.1)
            waited = time.monotonic() - began
            started = _answers(f"http://127.0.0.1:{port}/healthz")
            if started or waited > START_DEADLINE:
                proc.kill()
                reader.join()
                said = "started (it answered /healthz)" if started else "did not exit"
                raise AssertionError(
                    f"`serve {' '.join(args)}` {said} in {waited:.1f} s, where it should refuse"
                    f" to start; its stderr:\n{out.get('e', '')[-3000:]}"
                )
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out["o"], out["e"])


def _answers(url: str) -> bool:
    """Something listens at `url` and answers HTTP (an error status too)."""
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except urllib.error.HTTPError:  # a 503: it answered all the same
        return True
    except OSError:  # refused: not listening (yet)
        return False


def send_signed(base_url: str, event: str, payload: dict[str, Any], delivery: str) -> int:
    """POST a signed delivery to a server in another process; return the status."""
    body = json.dumps(payload).encode()
    request = webhook_request(f"{base_url}/webhook", event, delivery, body, SECRET)
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.status


class LiveServer:
    """`review-notes serve` runs, each with its own log file, on one port and database.

    The process runs in `tmp_path` (so no .env of ours is read), or `cwd`, as `command`
    (`python -m bot.cli`, or the console script). A run the test left running is stopped
    with SIGTERM, and killed if it does not exit within 20 s.
    """

    def __init__(
        self,
        tmp_path: Path,
        env: dict[str, str],
        port: int | None = None,
        *,
        command: tuple[str, ...] = (PY, "-m", "bot.cli"),
        cwd: Path | None = None,
    ):
        self.tmp_path, self.env = tmp_path, env
        self.command, self.cwd = command, cwd or tmp_path
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.logs: list[Path] = []

    @contextmanager
    def run(self) -> Iterator[subprocess.Popen]:
        log_path = self.tmp_path / f"serve-{len(self.logs)}.log"
        self.logs.append(log_path)
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                [*self.command, "serve", "--port", str(self.port)],
                env=outside_dotenv(self.env, self.cwd),
                cwd=self.cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                wait_for_start(proc, self.health, log_path.read_text)
                yield proc
            finally:
                if proc.poll() is None:
                    proc.send_signal(signal.SIGTERM)
                    try:
                        proc.wait(20)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        proc.wait()

    def health(self) -> dict:
        return get_json(f"{self.base}/healthz")


# --- payloads ------------------------------------------------------------------


def octokit_examples(event: str) -> list[dict[str, Any]]:
    """GitHub's example payloads of `event`, each call a fresh copy the caller may change."""
    return json.loads(_examples_text(event))


def octokit_example(event: str, action: str) -> dict[str, Any]:
    """The first of `event`'s examples with this action, a fresh copy."""
    return json.loads(_examples_text(event, action))


@functools.cache
def _examples_text(event: str, action: str | None = None) -> str:
    """The examples as JSON text, read from the 4 MB file once: a payload built per call
    parsed all of it and copied every example (80 ms, paid by each of thousands)."""
    examples = [e for d in _example_definitions() if d["name"] == event for e in d["examples"]]
    if action is None:
        return json.dumps(examples)
    return json.dumps(next(e for e in examples if e.get("action") == action))


@functools.cache
def _example_definitions() -> list[dict[str, Any]]:
    if not EXAMPLES.exists():  # an exception: not cached, each caller skips
        pytest.skip("node_modules/@octokit/webhooks-examples missing: run scripts/bootstrap.sh")
    return json.loads(EXAMPLES.read_text("utf-8"))


def renamed(old: str = "vllm-project", new: str = "vllm-org") -> dict:
    """An `installation_target.renamed` payload in the shape of @octokit/webhooks-types'
    InstallationTargetRenamedEvent (the examples package has none): the account beside a
    bare installation."""
    return {
        "action": "renamed",
        "account": {"login": new, "id": 136984999, "node_id": "O_kgDOCCo", "type": "Organization"},
        "changes": {"login": {"from": old}},
        "installation": {"id": 4242, "node_id": "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg=="},
        "target_type": "Organization",
        "sender": {"login": "someone", "id": 1, "type": "User"},
    }


HEAD = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"  # pr_payload's head commit


def pr_payload(
    action: str = "opened",
    *,
    number: int = 7001,
    title: str = "Tidy up logging",
    body: str | None = "",
    labels: tuple[str, ...] = (),
    files: list[str] | None = None,
    draft: bool = False,
    repo: str = REPO,
    sender_type: str = "User",
    sender: str = "octo-dev",
    head_sha: str = HEAD,
    updated_at: str = "2026-09-01T10:00:00Z",
    state: str = "open",
    changes: dict[str, Any] | None = None,
    base_ref: str | None = None,
) -> dict[str, Any]:
    """A `pull_request` payload built on GitHub's own `opened` example (its base branch:
    `master`)."""
    p = octokit_example("pull_request", "opened")
    p["action"] = action
    p["number"] = number
    p["repository"]["full_name"] = repo
    p["repository"]["name"] = repo.split("/")[1]
    p["repository"]["owner"]["login"] = repo.split("/")[0]
    pr = p["pull_request"]
    pr.update(
        number=number,
        title=title,
        body=body,
        draft=draft,
        state=state,
        updated_at=updated_at,
        labels=[{"id": i + 1, "name": name, "color": "ededed"} for i, name in enumerate(labels)],
    )
    pr["head"]["sha"] = head_sha
    if base_ref is not None:
        pr["base"]["ref"] = base_ref
    pr["user"]["login"] = sender
    p["sender"] = {"login": sender, "id": 99, "type": sender_type}
    p["installation"] = {"id": 1001, "node_id": "x"}
    if changes is not None:
        p["changes"] = changes
    if files is not None:
        p["files"] = files
    return p


# Titles that reliably match a seed note through the matcher, and one that does not.
MATCHING_TITLE = "[Bugfix][Spec Decode] Keep EAGLE cache registration on the partial-hash-hit path"
MATCHING_FILES = ["vllm/v1/core/kv_cache_coordinator.py"]
UNRELATED_TITLE = "Reorder the sections of the contributing guide"


@functools.cache
def title_with_one_more_note() -> str:
    """A title that links every note MATCHING_TITLE links and one more.

    Searched in the shipped library, so these tests follow the matcher and the notes
    as they change instead of hard-coding what links what.
    """
    from bot.library import load_library
    from bot.match_config import load_match_config
    from bot.matching import CompiledMatcher
    from bot.prfacts import PRFacts

    matcher = CompiledMatcher(load_library(), load_match_config())  # once, for every title
    library = matcher.library

    def linked(title: str) -> set[str]:
        facts = PRFacts(REPO, 7001, title, files=tuple(MATCHING_FILES))
        return {m.note.id for m in matcher.match(facts).matches}

    base = linked(MATCHING_TITLE)
    assert base, "MATCHING_TITLE no longer links any note"
    for note in library.notes:
        title = f"{MATCHING_TITLE} and {note.title_en}"
        if linked(title) > base:
            return title
    raise AssertionError("no title adds a note to MATCHING_TITLE's")


def labeled_one_more_note(**kw: Any) -> dict[str, Any]:
    """`pr_payload` arguments of a `labeled` event whose title links one note more than
    MATCHING_TITLE does, so the sticky comment must be edited."""
    event = dict(
        action="labeled", title=title_with_one_more_note(), labels=("speculative-decoding",)
    )
    return event | kw

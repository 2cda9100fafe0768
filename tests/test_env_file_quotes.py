"""A value quoted in a docker --env-file (found by review 'r20d', the image run as an
operator runs it).

`docker run --env-file .env` keeps a value's quotes: the line `NAME="value"` gives the
process `"value"`, quotes included (python-dotenv, which reads the same `.env` for a
`review-notes serve` in a checkout, strips them). So a `.env` that works in a checkout
fails in the image the Dockerfile's header runs with `--env-file .env`, and the bot blames
the wrong thing: the key "is not a PEM private key" (it starts with `"-----BEGIN`), the
App ID "is not the App's ID" (GitHub refuses a JWT issued by `"4242"`), and a quoted
webhook secret starts a server that refuses every delivery with 401, its warning asking
whether the secret is the one set in the App's settings (it is). The URL settings already
name the docker quirk of an inline `# comment`; the quotes are its twin.

Each value is now refused at start naming the quotes (bot.settings `_not_quoted`).
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

from bot.settings import SettingsError, load_settings
from tests.fake_github import DEFAULT_APP_ID
from tests.webhook_kit import (
    PY,
    ROOT,
    SECRET,
    base_env,
    clean_env,
    free_port,
    pr_payload,
    send_signed,
)


def _docker_env_file_value(value: str) -> str:
    """What `docker run --env-file` passes for the line NAME="value": the quotes too."""
    return f'"{value}"'


def _one_line(pem: str) -> str:
    """The key as the Dockerfile's header says to write it in an env file."""
    return "".join(line + "\\n" for line in pem.strip().splitlines())


def _start(tmp_path: Path, env: dict[str, str], port: int) -> tuple[str, str]:
    """Start `review-notes serve`: ("up", log) once /healthz answers, or ("exited", log)."""
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return "exited", log_path.read_text("utf-8")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                    return "up", log_path.read_text("utf-8")
            except OSError:
                time.sleep(0.1)
        raise AssertionError("neither up nor exited: " + log_path.read_text("utf-8"))
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(20)


def _env(tmp_path: Path, fake_github, app_key, **extra: str) -> dict[str, str]:
    values = dict(
        PYTHONPATH=str(ROOT),
        GITHUB_APP_ID=str(DEFAULT_APP_ID),
        GITHUB_PRIVATE_KEY=_one_line(app_key.private_pem),
        GITHUB_WEBHOOK_SECRET=SECRET,
        GITHUB_API_URL=fake_github.base_url,
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
        REVIEW_NOTES_REDELIVER_ON_START="false",
    )
    values.update(extra)
    return base_env(tmp_path, **values)


def test_a_key_quoted_in_a_docker_env_file_is_not_called_no_pem(tmp_path, fake_github, app_key):
    # docker run --env-file .env, the line: GITHUB_PRIVATE_KEY="-----BEGIN RSA ...\n..."
    # today: "GITHUB_PRIVATE_KEY: not a PEM private key (-----BEGIN ... KEY-----)", of a
    # value that does begin with -----BEGIN (after its quote)
    quoted = _docker_env_file_value(_one_line(app_key.private_pem))
    env = _env(tmp_path, fake_github, app_key, GITHUB_PRIVATE_KEY=quoted)
    how, log = _start(tmp_path, env, free_port())
    assert how == "up" or ("GITHUB_PRIVATE_KEY" in log and "quot" in log.lower()), log


def test_an_app_id_quoted_in_a_docker_env_file_is_not_blamed_on_github(
    tmp_path, fake_github, app_key
):
    # docker run --env-file .env, the line: GITHUB_APP_ID="4242"
    # today: "GitHub refused the App's credentials (... 401 A JSON web token could not be
    # decoded): is GITHUB_APP_ID the App's ID (not an installation's) ...?"
    env = _env(
        tmp_path, fake_github, app_key, GITHUB_APP_ID=_docker_env_file_value(str(DEFAULT_APP_ID))
    )
    how, log = _start(tmp_path, env, free_port())
    assert how == "up" or ("GITHUB_APP_ID" in log and "quot" in log.lower()), log


def test_a_webhook_secret_quoted_in_a_docker_env_file_is_not_a_silent_401(
    tmp_path, fake_github, app_key
):
    # docker run --env-file .env, the line: GITHUB_WEBHOOK_SECRET="test-webhook-secret"
    # today: the server starts and is healthy, and answers every delivery GitHub signs
    # with the secret 401, warning "does not verify with GITHUB_WEBHOOK_SECRET (is it the
    # secret set in the App's or the hook's settings?)": nothing names the quotes
    env = _env(tmp_path, fake_github, app_key, GITHUB_WEBHOOK_SECRET=_docker_env_file_value(SECRET))
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status = send_signed(
                    f"http://127.0.0.1:{port}", "pull_request", pr_payload(), "r20d-1"
                )
                break
            except urllib.error.HTTPError as refused:
                status = refused.code
                break
            except OSError:
                time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(20)
    text = log_path.read_text("utf-8")
    named = [
        json.loads(line).get("msg", "") if line.startswith("{") else line
        for line in text.splitlines()
    ]
    quotes_named = any("GITHUB_WEBHOOK_SECRET" in m and "quot" in m.lower() for m in named)
    assert status in (200, 202) or quotes_named, f"answered {status}; log:\n{text}"


def test_a_public_url_quoted_in_a_docker_env_file_is_not_called_no_url(tmp_path, monkeypatch):
    # docker run --env-file .env, the line: REVIEW_NOTES_PUBLIC_URL="https://notes.example.org"
    # today: "REVIEW_NOTES_PUBLIC_URL: must be an http(s) URL", of what reads as one
    clean_env(monkeypatch)
    monkeypatch.setenv(
        "REVIEW_NOTES_PUBLIC_URL", _docker_env_file_value("https://notes.example.org")
    )
    try:
        settings = load_settings(env_file=None, db_path=tmp_path / "bot.sqlite3")
    except SettingsError as exc:
        assert "quot" in str(exc).lower(), str(exc)
    else:
        assert settings.public_url == "https://notes.example.org"


def test_a_list_quoted_in_a_docker_env_file_is_read_as_before(tmp_path, monkeypatch):
    # REVIEW_NOTES_REPOS="a/b,c/d" worked (the list's items lose their quotes, JSON's
    # too): refusing it would stop a working deployment at its upgrade (review r20e).
    clean_env(monkeypatch)
    monkeypatch.setenv("REVIEW_NOTES_REPOS", '"vllm-project/vllm,acme/fork"')
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", "'5,30'")
    settings = load_settings(env_file=None, db_path=tmp_path / "bot.sqlite3")
    assert settings.repos == ("vllm-project/vllm", "acme/fork")
    assert list(settings.files_recheck_delays) == [5, 30]

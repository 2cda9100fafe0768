"""A value quoted in a docker --env-file (the image run as an operator runs it).

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

import subprocess
from pathlib import Path

import pytest

from bot.settings import SettingsError, load_settings
from tests.fake_github import DEFAULT_APP_ID
from tests.webhook_kit import (
    PY,
    ROOT,
    SECRET,
    base_env,
    clean_env,
    free_port,
)


def _docker_env_file_value(value: str) -> str:
    """What `docker run --env-file` passes for the line NAME="value": the quotes too."""
    return f'"{value}"'


def _one_line(pem: str) -> str:
    """The key as the Dockerfile's header says to write it in an env file."""
    return "".join(line + "\\n" for line in pem.strip().splitlines())


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


@pytest.mark.parametrize(
    "name",
    [
        # was: "not a PEM private key (-----BEGIN ... KEY-----)", of a value that does
        # begin with -----BEGIN (after its quote)
        "GITHUB_PRIVATE_KEY",
        # was: "GitHub refused the App's credentials (... 401 A JSON web token could not be
        # decoded): is GITHUB_APP_ID the App's ID (not an installation's) ...?"
        "GITHUB_APP_ID",
        # was: a healthy server answering every delivery GitHub signs with the secret
        # 401, its warning asking whether the secret is the one set in the App's settings
        "GITHUB_WEBHOOK_SECRET",
    ],
)
def test_a_value_quoted_in_a_docker_env_file_is_refused_naming_the_quotes(
    tmp_path, fake_github, app_key, name
):
    good = _env(tmp_path, fake_github, app_key)
    env = good | {name: _docker_env_file_value(good[name])}
    r = subprocess.run(
        [PY, "-m", "bot.cli", "serve", "--port", str(free_port())],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{name}: is wrapped in quotes" in r.stderr, r.stderr
    assert good[name] not in r.stderr  # the value itself is not echoed (a secret)


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
    # too): refusing it would stop a working deployment at its upgrade.
    clean_env(monkeypatch)
    monkeypatch.setenv("REVIEW_NOTES_REPOS", '"vllm-project/vllm,acme/fork"')
    monkeypatch.setenv("REVIEW_NOTES_FILES_RECHECK_DELAYS", "'5,30'")
    settings = load_settings(env_file=None, db_path=tmp_path / "bot.sqlite3")
    assert settings.repos == ("vllm-project/vllm", "acme/fork")
    assert list(settings.files_recheck_delays) == [5, 30]

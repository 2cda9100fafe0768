"""`review-notes serve / replay / retry` as real processes: start-up checks, dry run, replay."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization

from tests.docs_kit import doc, readme
from tests.webhook_kit import (
    PY,
    ROOT,
    SHORT_BUSY_TIMEOUT,
    LiveServer,
    base_env,
    clear_error,
    cli,
    free_port,
    get_json,
    outside_dotenv,
    run_cli,
    serve_refused,
    wait_for_start,
    wait_until,
)


def server(tmp_path: Path, env: dict[str, str], port: int | None = None) -> LiveServer:
    """`review-notes serve` in a child process, cwd = tmp_path (so no .env of ours)."""
    return LiveServer(tmp_path, env | {"PYTHONPATH": str(ROOT)}, port)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One dry-run `python -m bot.cli serve`, run outside the checkout, for the tests that
    only read what it prints and answers (its banner, its log, its hold on the database):
    a start of its own cost each a second or more. Started as a service manager may start
    it, without PYTHONUNBUFFERED, and at DEBUG. Only one test sends it a delivery (a copy
    of a body already queued is answered as a duplicate, not 202)."""
    tmp_path = tmp_path_factory.mktemp("shared-serve")
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), REVIEW_NOTES_LOG_LEVEL="DEBUG")
    env.pop("PYTHONUNBUFFERED")
    serve = LiveServer(tmp_path, env)
    with serve.run():
        yield serve


def test_serve_refuses_a_broken_library_and_prints_every_problem(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bad.md").write_text('+++\nid = "x"\nverdict = "maybe"\n+++\nbody\n')
    env = base_env(tmp_path, REVIEW_NOTES_NOTES_DIR=str(notes))
    r = serve_refused(env=env, cwd=ROOT)
    assert r.returncode == 1
    assert f"{notes / 'bad.md'}:3: verdict: bad verdict 'maybe'" in r.stderr
    assert "missing required field" in r.stderr
    assert "not starting" in r.stderr


def test_a_server_that_cannot_start_fails_the_wait_at_once_with_its_output(tmp_path):
    """The wait for a server's start (wait_for_start, LiveServer) has no fixed timeout a
    loaded machine could miss: it waits for the answer, and fails as soon as the process
    exits, saying how long it waited and what the server said (here a bad setting)."""
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), REVIEW_NOTES_WORKERS="lots")
    with pytest.raises(AssertionError) as failed, LiveServer(tmp_path, env).run():
        pytest.fail("the server started on a bad setting")
    said = str(failed.value)
    assert re.search(r"the server exited \(code 2\) [\d.]+ s after", said), said
    assert "REVIEW_NOTES_WORKERS: Input should be a valid integer" in said, said


def test_a_server_that_starts_where_it_should_refuse_fails_the_wait_at_once(tmp_path):
    # serve_refused's other way out: the server answers, so it will never exit by itself
    r = None
    with pytest.raises(AssertionError) as failed:
        r = serve_refused(env=base_env(tmp_path, PYTHONPATH=str(ROOT)), cwd=tmp_path)
    assert r is None
    said = str(failed.value)
    assert re.search(r"started \(it answered /healthz\) in [\d.]+ s", said), said


def test_serve_refuses_bad_settings_and_names_them(tmp_path):
    r = cli("serve", env=base_env(tmp_path, REVIEW_NOTES_WORKERS="lots"), cwd=ROOT)
    assert r.returncode == 2 and "REVIEW_NOTES_WORKERS: Input should be a valid integer" in r.stderr
    r = cli("serve", env=base_env(tmp_path, GITHUB_APP_ID="42"), cwd=ROOT)
    assert r.returncode == 2
    assert "GITHUB_PRIVATE_KEY: GITHUB_APP_ID is set but no private key is" in r.stderr
    assert "GITHUB_WEBHOOK_SECRET: required" in r.stderr
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecret\n-----END RSA PRIVATE KEY-----\n"
    env = base_env(tmp_path, GITHUB_APP_ID="42", GITHUB_PRIVATE_KEY_PATH=pem)  # pasted in
    r = cli("serve", env=env, cwd=ROOT)
    assert r.returncode == 2 and "GITHUB_PRIVATE_KEY_PATH: holds a key" in r.stderr
    assert "MIIEowIBAAKCAQEAsecret" not in r.stderr
    # the flag is named, not the variable it overrides
    r = cli("serve", "--port", "70000", env=base_env(tmp_path), cwd=ROOT)
    assert r.returncode == 2 and "--port: '70000' is not a port (1 to 65535)" in r.stderr
    assert "REVIEW_NOTES_PORT" not in r.stderr


def test_serve_names_a_key_under_a_passphrase_as_such(tmp_path, app_key):
    # GitHub's download protected with a passphrase (`openssl pkey -aes256`): the start
    # said "not a usable RSA PEM key", as for a broken file
    key = serialization.load_pem_private_key(app_key.private_pem.encode(), password=None)
    protect = serialization.BestAvailableEncryption(b"passphrase")
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, protect)
    (tmp_path / "app.pem").write_bytes(pem)
    env = base_env(
        tmp_path,
        GITHUB_APP_ID="42",
        GITHUB_PRIVATE_KEY_PATH=str(tmp_path / "app.pem"),
        GITHUB_WEBHOOK_SECRET="s3cret-of-the-hook",
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
    )
    r = serve_refused(env=env, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "GITHUB_PRIVATE_KEY_PATH: GitHub App private key is encrypted" in r.stderr
    assert "the key GitHub downloads is not; use that file" in r.stderr


@pytest.mark.parametrize("content", [b"threshold = [\n", b"# caf\xe9 (cp1252)\n", None])
def test_serve_refuses_a_malformed_or_missing_matching_file_naming_it(tmp_path, content):
    # A curator's unfinished edit, a file saved in another encoding or a mistyped path:
    # one line to act on, not a traceback.
    path = tmp_path / "matching.toml"
    if content is not None:
        path.write_bytes(content)
    env = base_env(tmp_path, REVIEW_NOTES_MATCHING_FILE=str(path))
    r = serve_refused(env=env, cwd=ROOT)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "review-notes: REVIEW_NOTES_MATCHING_FILE: " in r.stderr and str(path) in r.stderr


@pytest.mark.parametrize(
    ("name", "line", "code"),
    [
        ("bot.toml", "workers = [", 2),  # settings: exit 2, as for a bad variable
        ("commands.toml", "max_results = [", 1),
        ("commands.toml", "max_results = 0", 1),  # out of range
        ("bot.toml", "# caf\xe9", 2),  # saved in cp1252 on a Windows machine
        ("commands.toml", "# caf\xe9", 1),
    ],
)
def test_serve_refuses_a_malformed_config_file_naming_it(tmp_path, name, line, code):
    # config/ is data a curator edits in place: a slip there must read as one message.
    app = tmp_path / "app"  # the code and data as the image holds them, to edit one file
    for part in ("bot", "config", "seeds/notes"):
        shutil.copytree(ROOT / part, app / part, ignore=shutil.ignore_patterns("__pycache__"))
    path = app / "config" / name
    key = line.split(" =")[0]
    kept = [ln for ln in path.read_text().splitlines() if not ln.startswith(key)]
    path.write_bytes("\n".join([*kept, line, ""]).encode("cp1252"))
    env = base_env(tmp_path, PYTHONPATH=str(app))
    r = serve_refused(env=env, cwd=tmp_path)
    assert r.returncode == code and "Traceback" not in r.stderr, r.stderr
    # commands.toml's problems are on their line (`file:10: max_results: ...`)
    assert re.search(rf"{re.escape(str(path))}(:\d+)?: ", r.stderr), r.stderr


# kills: bot/server.py:build_runtime a commands.toml that cannot be read ended the start in a
#   traceback
# kills: bot/server.py:build_runtime a malformed commands.toml told as a problem of the notes
#   library
@pytest.mark.parametrize("kind", ["a_directory", "malformed"])
def test_serve_says_in_one_line_that_commands_toml_stops_the_start(tmp_path, kind):
    app = tmp_path / "app"  # the code and data as the image holds them, to edit one file
    for part in ("bot", "config", "seeds/notes"):
        shutil.copytree(ROOT / part, app / part, ignore=shutil.ignore_patterns("__pycache__"))
    path = app / "config" / "commands.toml"
    if kind == "a_directory":  # a volume mounted over it, say
        path.unlink()
        path.mkdir()
    else:
        path.write_text("max_results = [\n")
    env = base_env(tmp_path, PYTHONPATH=str(app))
    r = serve_refused(env=env, cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    said = f"review-notes: {path}: cannot read: Is a directory\n"
    if kind == "malformed":
        said = f"review-notes: {path}:1: "
    assert said in r.stderr and "notes library" not in r.stderr, r.stderr


@pytest.mark.parametrize("kind", ["directory", "parent_is_a_file", "empty", "not_sqlite"])
def test_serve_refuses_an_unusable_database_path_naming_it(tmp_path, kind):
    # A bind mount of a directory, a template's empty line, another application's file:
    # a configuration error naming REVIEW_NOTES_DB_PATH (exit 2), not a traceback.
    other = tmp_path / "other.db"
    other.write_text("not a database\n")
    value = {
        "directory": str(tmp_path),
        "parent_is_a_file": str(other / "bot.sqlite3"),
        "empty": "",
        "not_sqlite": str(other),
    }[kind]
    env = base_env(tmp_path, REVIEW_NOTES_DB_PATH=value)
    r = serve_refused(env=env, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "REVIEW_NOTES_DB_PATH: " in r.stderr, r.stderr
    assert other.read_text() == "not a database\n"  # left as it was


def test_serve_names_its_uid_when_the_database_cannot_be_opened(tmp_path):
    # In the image the server runs as uid 10001: a root-owned bind mount for /app/var
    # was refused with "can this user write to it", not saying who this user is.
    # /proc takes no new file, even from root (the tests may run as root).
    env = base_env(tmp_path, REVIEW_NOTES_DB_PATH="/proc/review-notes.sqlite3")
    r = serve_refused(env=env, cwd=ROOT)
    assert r.returncode == 2 and "REVIEW_NOTES_DB_PATH: " in r.stderr, r.stderr
    assert f"can this user, uid {os.getuid()}, write to it" in r.stderr, r.stderr


def test_serve_names_a_misspelt_variable_when_the_settings_fail(tmp_path):
    # REVIEW_NOTES_DRYRUN left dry_run unset, so a token made it a live start missing its
    # secret and URL; the warning naming the typo came only after a successful load, so
    # it was lost just when it explained the failure
    # (this checkout's code: from tmp_path, `-m bot.cli` alone imports the one installed)
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_TOKEN="t", REVIEW_NOTES_DRYRUN="true")
    r = serve_refused(env=env, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "REVIEW_NOTES_DRYRUN: not a review-notes setting, ignored; did you mean" in r.stderr


def test_serve_names_the_app_s_key_set_under_another_name_when_it_fails(tmp_path, app_key):
    # GITHUB_APP_PRIVATE_KEY, as other tools name it: "GITHUB_APP_ID is set but no private
    # key is", and nothing of the variable that holds it (never its value)
    env = base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        GITHUB_APP_ID="42",
        GITHUB_APP_PRIVATE_KEY=app_key.private_pem,
        GITHUB_WEBHOOK_SECRET="s3cret-of-the-hook",
    )
    r = serve_refused(env=env, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "GITHUB_PRIVATE_KEY: GITHUB_APP_ID is set but no private key is" in r.stderr
    assert (
        "GITHUB_APP_PRIVATE_KEY: not a review-notes setting, ignored; did you mean"
        " GITHUB_PRIVATE_KEY?" in r.stderr
    )
    assert app_key.private_pem.splitlines()[1] not in r.stderr + r.stdout
    assert "s3cret-of-the-hook" not in r.stderr + r.stdout


# kills: bot/settings.py:_describe (hand) a name of .env no setting has named with no line and no
#   near miss, as before .env names were
# kills: bot/settings.py:_env_key_lines a name's line counted from 0, or the line after a blank
def test_serve_names_the_near_miss_of_a_dotenv_name_by_file_and_line(tmp_path, app_key):
    # The environment's GITHUB_APP_PRIVATE_KEY was named with the setting meant (above);
    # the same line in .env stopped the start as "GITHUB_APP_PRIVATE_KEY: unknown setting",
    # nothing said of GITHUB_PRIVATE_KEY. Its value (the key, the one-line \n form an env
    # file holds) is never printed.
    one_line = app_key.private_pem.strip().replace("\n", "\\n")
    (tmp_path / ".env").write_text(
        "GITHUB_APP_ID=42\n"
        f"GITHUB_APP_PRIVATE_KEY={one_line}\n"
        "\n"
        "# the allow-list\n"
        "REVIEW_NOTES_REPO=acme/widgets\n"
        "REVIEW_NOTES_WEBHOOK_SECRET=s3cret-of-the-hook\n"
        "GITHUB_ACTIONS_RUNNER=x\n",
        "utf-8",
    )
    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    r = serve_refused(env=env, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines()[1:] == [
        ".env:2: GITHUB_APP_PRIVATE_KEY: unknown setting; did you mean GITHUB_PRIVATE_KEY?",
        ".env:5: REVIEW_NOTES_REPO: unknown setting; did you mean REVIEW_NOTES_REPOS?",
        ".env:6: REVIEW_NOTES_WEBHOOK_SECRET: unknown setting; did you mean GITHUB_WEBHOOK_SECRET?",
        ".env:7: GITHUB_ACTIONS_RUNNER: unknown setting",  # close to none of ours
    ], r.stderr
    assert app_key.private_pem.splitlines()[1][:20] not in r.stderr + r.stdout
    assert "s3cret-of-the-hook" not in r.stderr + r.stdout


def test_dry_run_serve_then_replay_an_example_shows_a_comment(tmp_path):
    env = base_env(tmp_path)
    serve = server(tmp_path, env)
    with serve.run():
        banner = serve.logs[0].read_text()
        assert "DRY RUN" in banner and "review-notes-dev-secret" in banner
        url = f"{serve.base}/webhook"
        r = cli(
            "replay",
            str(ROOT / "examples" / "pr-52419-opened.json"),
            "--url",
            url,
            env=env,
            cwd=ROOT,
        )
        assert r.returncode == 0, r.stdout + r.stderr
        assert r.stdout.startswith("202 ")
        comments = wait_until(
            lambda: get_json(f"{serve.base}/dry-run/comments")["comments"],
            what="the dry-run comment",
        )
        assert comments[0]["number"] == 52419
        # the note of PR 52419, on that PR: its source named as this pull request
        assert "source: this pull request" in comments[0]["body"]
        assert "/notes/vllm-0436d44c" in comments[0]["body"]
        # README, "Try it locally": the answer /healthz gives then, as curl prints it
        said = re.search(r"/healthz +# (\{.*\})$", readme(), re.M)[1]

        def done() -> str | None:
            body = urllib.request.urlopen(f"{serve.base}/healthz").read().decode()
            return body if '"done":1,' in body else None

        health = wait_until(done, what="the delivery done")
        pieces = [p for p in said.split("...") if p.strip(",")]
        assert re.search(".*".join(map(re.escape, pieces)), health), (said, health)
        bad = cli(
            "replay",
            str(ROOT / "examples" / "pr-52419-opened.json"),
            "--url",
            url,
            "--secret",
            "wrong",
            env=env,
            cwd=ROOT,
        )
        assert bad.returncode == 1 and bad.stdout.startswith("401 ")


def test_the_comment_example_replayed_in_the_dry_run_is_a_mark_notes_feedback_lists(tmp_path):
    # README, "Try it locally": after the PR, a reviewer's `/notes wrong` on it, then the
    # curators' report. There was no comment payload to try a slash command with.
    commands = re.search(r"## Try it locally.*?```sh\n(.*?)```", readme(), re.S)[1]
    lines = [ln.split("#")[0].split() for ln in commands.splitlines()]
    replays = [words[1:] for words in lines if words[1:2] == ["replay"]]
    (feedback,) = [words[1:] for words in lines if words[1:3] == ["notes", "feedback"]]
    assert [r[1] for r in replays] == [
        "examples/pr-52419-opened.json",
        "examples/pr-52419-comment-wrong.json",
    ]
    env = base_env(tmp_path)
    serve = server(tmp_path, env)
    with serve.run():
        for n, replay in enumerate(replays, 1):
            r = cli(*replay, "--url", f"{serve.base}/webhook", env=env, cwd=ROOT)
            assert r.stdout.startswith('202 {"status":"queued"'), r.stdout + r.stderr
            wait_until(lambda n=n: serve.health()["done"] == n, what=f"delivery {n} done")
        assert serve.health()["failed"] == 0
        said = get_json(f"{serve.base}/dry-run/comments")
        (comment,) = said["comments"]  # the note hidden in it, no reply
        assert "1 note that matched was marked not relevant here" in comment["body"]
        assert [r["content"] for r in said["reactions"]] == ["eyes", "+1"]
    with closing(sqlite3.connect(tmp_path / "bot.sqlite3")) as conn:
        events = [e for (e,) in conn.execute("SELECT event FROM deliveries ORDER BY rowid")]
    assert events == ["pull_request", "issue_comment"]  # the header replay guessed
    r = cli(*feedback, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "vllm-0436d44c  shown on 1 PR(s), marked not relevant on 1 (100%)" in r.stdout
    assert "vllm-project/vllm PR 52419 (note 1 of the comment)" in r.stdout
    assert "by mispa-ms: this PR's own review" in r.stdout


# What a live start said of itself: nothing but the notes and where it listens, while a
# dry run has a line of its own; the operator could not tell from it that it was live,
# nor as whom it would post, nor where.
@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_live_start_says_it_is_live_as_whom_where_and_for_which_repositories(
    tmp_path, fake_github, app_key, mode
):
    from tests.fake_github import DEFAULT_APP_ID

    fake_github.add_pat("ghp_operator", "alice")
    credentials = (
        {"GITHUB_APP_ID": str(DEFAULT_APP_ID), "GITHUB_PRIVATE_KEY": app_key.private_pem}
        if mode == "app"
        else {"GITHUB_TOKEN": "ghp_operator"}
    )
    host, port = fake_github.base_url.split("//", 1)[1].split(":")
    env = base_env(
        tmp_path,
        GITHUB_WEBHOOK_SECRET="live-hook-secret",
        # a proxy's user and password in it are never printed
        GITHUB_API_URL=f"http://proxy-user:proxy-pass@{host}:{port}",
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
        REVIEW_NOTES_REDELIVER_ON_START="false",
        REVIEW_NOTES_REPOS="vllm-project/vllm,Acme/Fork",
        **credentials,
    )
    serve = server(tmp_path, env)
    with serve.run():
        banner = serve.logs[0].read_text()
    (line,) = [x for x in banner.splitlines() if x.startswith("review-notes: LIVE")]
    who = (
        f"as review-notes[bot] (App {DEFAULT_APP_ID})"
        if mode == "app"
        else "as the token's user (GITHUB_TOKEN; its login is asked at the first event)"
    )
    assert line == (
        f"review-notes: LIVE, posting to GitHub {who} through {fake_github.base_url};"
        " repositories: vllm-project/vllm, acme/fork"
    ), banner
    assert "DRY RUN" not in banner
    for secret in ("live-hook-secret", "ghp_operator", "proxy-pass", "PRIVATE KEY"):
        assert secret not in banner, secret


# A classic token without the scope to comment started, and failed every delivery at its
# first write: `serve` now stops (exit 2) naming the scope to add. A fine-grained token,
# whose permissions no answer of GitHub's tells, starts and says so
@pytest.mark.parametrize("kind", ["classic", "fine-grained"])
def test_serve_with_a_token_judges_the_scopes_github_names_for_it(tmp_path, fake_github, kind):
    fake_github.add_pat(
        "ghp_operator", "alice", scopes=("read:org",) if kind == "classic" else None
    )
    env = base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        GITHUB_TOKEN="ghp_operator",
        GITHUB_WEBHOOK_SECRET="live-hook-secret",
        GITHUB_API_URL=fake_github.base_url,
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
    )
    if kind == "classic":
        r = serve_refused(env=env, cwd=tmp_path)
        assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
        said = "GITHUB_TOKEN: the classic token's scopes (read:org) include neither public_repo"
        assert said in r.stderr and "give it public_repo (repo for a private" in r.stderr, r.stderr
        assert "ghp_operator" not in r.stdout + r.stderr
    else:
        serve = server(tmp_path, env)
        with serve.run():
            log = serve.logs[0].read_text()
        said = "GITHUB_TOKEN: GitHub names no scopes for it (no X-OAuth-Scopes header)"
        assert said in log, log
        assert "review-notes: LIVE" in log and "ghp_operator" not in log, log
    assert [r.status for r in fake_github.calls("GET", "/rate_limit")] == [200]


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_serve_on_every_address_prints_urls_a_browser_and_replay_can_open(tmp_path, host):
    # Listening on every address (the image's REVIEW_NOTES_HOST=0.0.0.0), the banner
    # printed "http://0.0.0.0:PORT" (no browser everywhere opens it) and, for "::",
    # "http://:::PORT/webhook", no URL at all; its suggested replay must reach the server.
    # (IPv6's every address gives its loopback: with bindv6only, 127.0.0.1 is not it.)
    env = base_env(tmp_path, REVIEW_NOTES_HOST=host)
    serve = server(tmp_path, env)
    with serve.run():
        banner = serve.logs[0].read_text()
        local = f"http://{'[::1]' if ':' in host else '127.0.0.1'}:{serve.port}"
        assert f"webhook at {local}/webhook, health at {local}/healthz" in banner, banner
        assert f"would-be comments at {local}/dry-run/comments" in banner, banner
        suggested = shlex.split(re.search(r"try  (.* replay .*)$", banner, re.M)[1])
        assert suggested[-1] == f"{local}/webhook", banner
        env = env | {"REVIEW_NOTES_PORT": str(serve.port)}
        r = subprocess.run(suggested, env=env, cwd=tmp_path, capture_output=True, text=True)
        assert r.stdout.startswith("202 "), r.stdout + r.stderr
        r = cli("replay", "examples/pr-56157-opened.json", env=env, cwd=ROOT)  # its default
        assert r.stdout.startswith("202 "), r.stdout + r.stderr


# kills: bot/cli.py:invoked_as (hand) the console script named by its bare name where
#   PATH has no such command, or by its path where PATH finds it
@pytest.mark.parametrize("on_path", [False, True])
def test_the_banners_replay_runs_as_printed_where_serve_was_run(tmp_path, on_path):
    # From a checkout, `.venv/bin/review-notes serve` printed "try  review-notes replay
    # examples/...": no such command there without the venv's bin/ on PATH
    script = Path(PY).parent / "review-notes"
    if not (ROOT / ".venv" / "bin" / "review-notes").exists() or not script.exists():
        pytest.skip("no .venv/bin/review-notes in this checkout: run scripts/bootstrap.sh")
    bin_dir = str(script.parent)
    path = [d for d in os.environ["PATH"].split(os.pathsep) if d and d != bin_dir]
    path = [bin_dir, *path] if on_path else path
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), PATH=os.pathsep.join(path))
    serve = LiveServer(tmp_path, env, command=(".venv/bin/review-notes",), cwd=ROOT)
    with serve.run():
        line = re.search(r"try  (.*)$", serve.logs[0].read_text(), re.M)[1]
        named = "review-notes" if on_path else ".venv/bin/review-notes"
        webhook = f"{serve.base}/webhook"
        assert line == f"{named} replay examples/pr-52419-opened.json --url {webhook}", line
        ran = outside_dotenv(env, ROOT)
        r = subprocess.run(shlex.split(line), env=ran, cwd=ROOT, capture_output=True, text=True)
        assert r.stdout.startswith("202 "), r.stdout + r.stderr


def test_the_banners_replay_names_the_example_by_its_path_from_elsewhere(shared_server):
    # `python -m bot.cli serve` run outside the checkout: the example is not below the
    # working directory, nor is the console script on PATH
    serve = shared_server  # the one test sending it a delivery
    line = re.search(r"try  (.*)$", serve.logs[0].read_text(), re.M)[1]
    example = ROOT / "examples" / "pr-52419-opened.json"
    said = [PY, "-m", "bot.cli", "replay", str(example), "--url", f"{serve.base}/webhook"]
    assert shlex.split(line) == said, line
    r = subprocess.run(said, env=serve.env, cwd=serve.tmp_path, capture_output=True, text=True)
    assert r.stdout.startswith("202 "), r.stdout + r.stderr


# kills: bot/cli.py:invoked_as a run started otherwise (`python -c`, a program calling
#   main()) named as `python -m bot.cli`, or as nothing
@pytest.mark.parametrize("argv0", ["-c", str(Path(PY).parent / "pytest"), ""])
def test_serve_started_by_another_program_suggests_the_documented_name(monkeypatch, argv0):
    from bot.cli import invoked_as

    monkeypatch.setattr("sys.argv", [argv0, "serve"])
    assert invoked_as() == "review-notes"


# kills: bot/server.py:_replay_example no example beside the code (an install without
#   examples/) still suggested; a working directory removed under the server named nothing
def test_the_banners_example_is_one_that_exists_named_from_anywhere(tmp_path, monkeypatch):
    from bot import server

    example = ROOT / server.DRY_RUN_EXAMPLE
    monkeypatch.chdir(tmp_path)
    assert server._replay_example() == str(example)

    def removed() -> Path:
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr(Path, "cwd", removed)
    assert server._replay_example() == str(example)
    monkeypatch.setattr(server, "ROOT", tmp_path)
    assert server._replay_example() is None


def test_every_example_replays_cleanly(tmp_path):
    port = free_port()
    env = base_env(tmp_path, REVIEW_NOTES_PORT=str(port))  # replay finds the server by it
    examples = sorted((ROOT / "examples").glob("*.json"))
    assert len(examples) >= 3
    serve = server(tmp_path, env, port)
    with serve.run():
        for ex in examples:
            r = cli("replay", str(ex), env=env, cwd=ROOT)
            assert r.stdout.startswith("202 "), (ex.name, r.stdout, r.stderr)
        wait_until(
            lambda: (h := serve.health())["pending"] == 0 and h["processing"] == 0,
            what="queue drained",
        )
        health = serve.health()
        assert health["failed"] == 0 and health["done"] == len(examples)
        numbers = {c["number"] for c in get_json(f"{serve.base}/dry-run/comments")["comments"]}
        assert numbers == {52419, 51901, 56157}


def test_a_second_server_on_the_same_database_refuses_to_start(shared_server):
    r = serve_refused(env=shared_server.env, cwd=ROOT)  # its REVIEW_NOTES_DB_PATH
    assert r.returncode == 1
    assert "another review-notes server, or a `review-notes salvage` copying" in r.stderr


def test_retry_lists_and_requeues_failed_deliveries(tmp_path):
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env = base_env(tmp_path)
    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.claim()
    q.fail("d-1", "GithubException: 502")
    listing = cli("retry", env=env, cwd=ROOT)
    assert "d-1" in listing.stdout and "GithubException: 502" in listing.stdout
    r = cli("retry", "d-1", "nope", env=env, cwd=ROOT)
    assert r.returncode == 1 and "re-queued d-1" in r.stdout and "nope" in r.stderr
    assert q.get("d-1").state == "pending"
    q.claim()
    q.fail("d-1", "again")
    assert cli("retry", "--all", env=env, cwd=ROOT).returncode == 0
    assert q.get("d-1").state == "pending"


# kills: bot/cli_server.py:_retry a failed delivery's id listed as it came, for a shell to run
def test_retry_lists_an_id_as_a_shell_takes_it_as_one_word(tmp_path):
    # the sender chose the id (the signature covers the body only): pasted after
    # `review-notes retry` from the listing, `x$(touch pwned)` ran what it held
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env = base_env(tmp_path)
    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    q.enqueue("x$(touch pwned)", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.claim()
    q.fail("x$(touch pwned)", "GithubException: 502")
    listing = cli("retry", env=env, cwd=ROOT).stdout
    (line,) = [x for x in listing.splitlines() if "GithubException" in x]
    assert shlex.split(line.split("  ", 1)[0]) == ["x$(touch pwned)"], line


# kills: bot/cli_server.py:_retry an id starting with a dash listed for `retry` to read as an option
def test_retry_lists_an_id_that_starts_with_a_dash_as_retry_takes_it_for_an_id(tmp_path):
    # the sender chose the id: `--all`, listed as it came and pasted after `review-notes
    # retry`, re-queued every failed delivery, not the one listed
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env = base_env(tmp_path)
    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    for did in ("--all", "d-2"):
        q.enqueue(did, "pull_request", "opened", {}, "vllm-project/vllm", 1)
        q.claim()
        q.fail(did, f"GithubException: 502 for {did}")
    listing = cli("retry", env=env, cwd=ROOT).stdout
    (line,) = [x for x in listing.splitlines() if x.endswith("for --all")]
    r = cli("retry", *shlex.split(line.split("  ", 1)[0]), env=env, cwd=ROOT)
    assert "re-queued --all" in r.stdout, r.stdout + r.stderr
    assert (q.get("--all").state, q.get("d-2").state) == ("pending", "failed"), r.stdout


# kills: bot/cli_server.py:_retry nothing re-queued said to be picked up by a running server
def test_retry_of_an_unknown_id_says_nothing_was_re_queued_and_no_more(tmp_path):
    # `retry nope` printed "0 re-queued; a running server picks them up within a second"
    # beside "nope: no failed delivery with this id": nothing is there to pick up
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env = base_env(tmp_path)
    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # one done: not failed, not re-queued
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.claim()
    q.complete("d-1")
    for ids in (["nope"], ["d-1"]):
        r = cli("retry", *ids, env=env, cwd=ROOT)
        said = f"{ids[0]}: no failed delivery with this id\n"
        assert (r.returncode, r.stdout, r.stderr) == (1, "0 re-queued\n", said)
    r = cli("retry", "--all", env=env, cwd=ROOT)
    assert (r.returncode, r.stdout, r.stderr) == (0, "0 re-queued\n", "")
    assert q.get("d-1").state == "done"


# kills: bot/cli_server.py:_cmd_retry a damaged row not named in plain words (the log not set up:
#   Python's last-resort handler, no level) or the listing said complete (exit 0)
# kills: bot/cli_server.py:_retry a damaged row asked for by id also said to be no failed delivery
def test_retry_lists_and_requeues_past_a_damaged_row_naming_it(tmp_path):
    # A failed delivery whose row SQLite cannot read back (a failing disk): `retry`
    # stopped at it, listing nothing, re-queuing nothing; now it names it and goes on
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.damage_kit import break_overflow_chain

    env, path = base_env(tmp_path), tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # an App's database (else opening it reads all)
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, "vllm-project/vllm", 2)
    for did in ("d-1", "broken"):
        q.fail(did, "GithubException: 502")
    q.db.close()
    break_overflow_chain(path, b"Z" * 200)
    listing = cli("retry", env=env, cwd=ROOT)
    assert listing.returncode == 1 and "Traceback" not in listing.stderr, listing.stderr
    assert listing.stdout.startswith("d-1  pull_request.opened") and "broken" not in listing.stdout
    assert "2 failed deliveries, 1 of them damaged (named above);" in listing.stdout
    assert listing.stderr.startswith("error: bot.queue: delivery broken: SQLite cannot read")
    assert "restore it from a backup" in listing.stderr
    r = cli("retry", "broken", "d-1", env=env, cwd=ROOT)
    assert r.returncode == 1 and "re-queued d-1\n1 re-queued, 1 damaged" in r.stdout, r.stdout
    assert "delivery broken: SQLite cannot read" in r.stderr and "no failed" not in r.stderr


# kills: bot/settings.py:Settings._home_is_expanded a path's `~` taken as a directory named so
def test_a_database_path_under_the_home_written_with_a_tilde_is_found_there(tmp_path):
    # REVIEW_NOTES_DB_PATH=~/review-notes.sqlite3 in .env, or `retry --db=~/...` (bash
    # leaves a `~` after `=` as written): no shell expanded it, so `retry` said there was
    # no database at ~/..., and `serve` made a directory named `~` where it was started,
    # and a new, empty database in it
    from bot.db import Database
    from bot.queue import DeliveryQueue

    home, work = tmp_path / "home", tmp_path / "work"
    q = DeliveryQueue(Database(home / "bot.sqlite3"))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.fail("d-1", "GithubException: 502")
    q.db.close()
    work.mkdir()
    (work / ".env").write_text("REVIEW_NOTES_DB_PATH=~/bot.sqlite3\n", "utf-8")
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), HOME=str(home))
    del env["REVIEW_NOTES_DB_PATH"]
    for flag in ((), ("--db=~/bot.sqlite3",)):
        r = cli("retry", *flag, env=env, cwd=work)
        assert r.returncode == 0 and r.stdout.startswith("d-1  pull_request.opened"), r.stderr
    assert list(work.iterdir()) == [work / ".env"]  # no `~` made there


# kills: bot/cli_server.py:_retry re-queued deliveries said to run within a second with no server
#   running
def test_retry_says_when_no_server_runs_what_it_requeued(tmp_path):
    # `retry --all` while the server is stopped (an upgrade, an outage being fixed) said
    # "a running server picks them up within a second": nothing did, until a start
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env, path = base_env(tmp_path), tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    for did in ("d-1", "d-2"):
        q.enqueue(did, "pull_request", "opened", {}, "vllm-project/vllm", 1)
        q.fail(did, "GithubException: 502")
    r = cli("retry", "d-1", env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.endswith(
        f"1 re-queued; no review-notes server is running on {path}: they run once one starts\n"
    ), r.stdout
    assert q.db.acquire_server_lock()  # a server, as its start takes the file
    r = cli("retry", "d-2", env=env, cwd=ROOT)
    assert r.stdout.endswith(
        "1 re-queued; a running server picks them up within 5 s (workers_poll_seconds)\n"
    ), r.stdout


# kills: bot/cli_server.py:_retry re-queued ones said to run within a poll in an outage's pause
def test_retry_in_an_outage_pause_says_they_wait_for_it(tmp_path):
    # `retry --all` after an outage failed some deliveries, GitHub still failing: the
    # queue is paused (`github_outage`), then runs one delivery at a time until GitHub
    # answers one; "a running server picks them up within 5 s" sent the operator to
    # look for them 5 s later, and again
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env, path = base_env(tmp_path), tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.fail("d-1", "GithubException: 502")
    q.enqueue("d-2", "pull_request", "opened", {}, "vllm-project/vllm", 2)
    assert q.claim().id == "d-2"
    until = q.put_back("d-2", 600, "GithubException: 502")
    assert until is not None and q.db.acquire_server_lock()  # a server, paused
    r = cli("retry", "d-1", env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.endswith(
        f"1 re-queued; GitHub failed and the queue is paused: they run after {until} (UTC),"
        " one delivery at a time until GitHub answers one\n"
    ), r.stdout


# kills: bot/cli_server.py:_outage_said an outage's pause already over said as a time to wait for
def test_retry_after_an_outage_pause_ended_names_no_time_past(tmp_path):
    # The pause over, its probe not yet answered by GitHub (the delivery that failed it
    # was the one given up): `retry --all` said "they run after" a time already past
    from bot.db import Database
    from bot.queue import DeliveryQueue

    env, path = base_env(tmp_path), tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    assert q.claim().id == "d-1"
    until = q.put_back("d-1", 0.01, "GithubException: 502")
    time.sleep(0.05)
    assert until is not None and q.claim().id == "d-1"  # due: the pause is over
    q.fail("d-1", "put back 1 time as GitHub failed; given up: GithubException: 502")
    assert q.outage_paused_until() == until and q.db.acquire_server_lock()  # a server
    r = cli("retry", "d-1", env=env, cwd=ROOT)
    assert r.returncode == 0 and r.stdout.endswith(
        "1 re-queued; GitHub failed and has not answered since: they run one delivery at a"
        " time until GitHub answers one\n"
    ), r.stdout


# kills: bot/cli_server.py:_cmd_retry a live server's settings asked of a command that posts nothing
# kills: bot/cli.py:database_of a live server's settings asked of notes feedback
@pytest.mark.parametrize("command", [("retry",), ("notes", "feedback")])
def test_commands_reading_the_database_run_in_a_shell_with_a_github_token(tmp_path, command):
    # A developer's shell exports GITHUB_TOKEN (for gh, for scripts): the settings took
    # the command for a live server, and refused it: "GITHUB_WEBHOOK_SECRET: required
    # when posting to GitHub", "REVIEW_NOTES_PUBLIC_URL: required", though neither posts
    from bot.db import Database
    from bot.queue import DeliveryQueue

    DeliveryQueue(Database(tmp_path / "bot.sqlite3")).db.close()
    env = base_env(tmp_path, PYTHONPATH=str(ROOT), GITHUB_TOKEN="ghp_" + "a" * 36)
    r = cli(*command, env=env, cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_a_command_run_away_from_the_servers_directory_says_where_it_looked(tmp_path):
    # An operator's walkthrough of App mode: the server runs in its directory, with its
    # .env; `review-notes retry` run from another said "no database at
    # var/review-notes.sqlite3", the default taken from wherever it was run, and not that
    # this is where it looked, nor that the server's settings are elsewhere.
    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    del env["REVIEW_NOTES_DB_PATH"]
    r = cli("retry", env=env, cwd=tmp_path)
    assert r.returncode == 2 and "no database at var/review-notes.sqlite3" in r.stderr
    assert f"in {tmp_path}, the working directory" in r.stderr, r.stderr
    assert ".env" in r.stderr and not (tmp_path / "var").exists()


# kills: bot/cli.py:existing_database a directory given to --db said to be no database
@pytest.mark.parametrize("command", [("retry",), ("notes", "feedback")])
def test_commands_reading_the_database_never_create_one_nor_read_another_file(tmp_path, command):
    env = base_env(tmp_path)
    missing = tmp_path / "typo.sqlite3"
    r = cli(*command, "--db", str(missing), env=env, cwd=ROOT)
    assert r.returncode == 2 and "no database at" in r.stderr and not missing.exists()
    other = tmp_path / "topics.toml"
    other.write_text("x = 1\n" * 200, "utf-8")
    r = cli(*command, "--db", str(other), env=env, cwd=ROOT)
    assert r.returncode == 2 and "is not a review-notes database" in r.stderr
    r = cli(*command, "--db", str(tmp_path), env=env, cwd=ROOT)
    assert r.returncode == 2 and f"{tmp_path} is a directory, not a database" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("command", [("retry",), ("notes", "feedback")])
def test_commands_reading_the_database_leave_another_sqlite_file_untouched(tmp_path, command):
    # A --db naming another application's SQLite file got the bot's tables written into it.
    other = tmp_path / "accounts.sqlite3"
    with closing(sqlite3.connect(other)) as conn:
        conn.execute("CREATE TABLE accounts (id INTEGER)")
    before = other.read_bytes()
    r = cli(*command, "--db", str(other), env=base_env(tmp_path), cwd=ROOT)
    assert other.read_bytes() == before  # no table, not even the journal mode
    assert r.returncode == 2 and f"{other} is not a review-notes database" in r.stderr


def test_replay_tells_a_comment_on_a_diff_line_from_a_pr_event():
    from bot.replay import guess_event

    payload = {"action": "created", "comment": {"id": 1}, "pull_request": {"number": 2}}
    assert guess_event(payload) == "pull_request_review_comment"


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("pr-52419-opened.json", "pull_request"),
        ("pr-51901-edited.json", "pull_request"),
        ("pr-52419-comment-wrong.json", "issue_comment"),
    ],
)
def test_replay_guesses_the_event(name, event):
    from bot.replay import guess_event

    assert guess_event(json.loads((ROOT / "examples" / name).read_text())) == event


def test_serve_logs_json_lines_without_the_secret(tmp_path):
    secret = "s3cret-value-xyz"
    env = base_env(tmp_path, GITHUB_WEBHOOK_SECRET=secret, REVIEW_NOTES_REPO="acme/x")  # a typo
    serve = server(tmp_path, env)
    with serve.run():
        url = f"{serve.base}/webhook"
        example = str(ROOT / "examples" / "pr-52419-opened.json")
        r = cli("replay", example, "--url", url, "--secret", secret, env=env, cwd=ROOT)
        assert r.stdout.startswith("202 ")
        wait_until(lambda: serve.health()["done"] == 1, what="processed")
    text = serve.logs[0].read_text()
    assert secret not in text
    records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    processed = [r for r in records if r.get("delivery") and r["logger"] == "review_notes"]
    assert processed and processed[0]["pr"] == 52419 and processed[0]["repo"] == "vllm-project/vllm"
    warned = [r for r in records if r["level"] == "warning" and "REVIEW_NOTES_REPO:" in r["msg"]]
    assert warned and "did you mean REVIEW_NOTES_REPOS?" in warned[0]["msg"], records
    # uvicorn's terminal copy of a message (ANSI colour codes) is not a field of the line
    started = [r for r in records if r["msg"].startswith("Started server process")]
    assert started and "\x1b" not in text and "color_message" not in started[0], started
    # kills: bot/server.py:run_server uvicorn's access log on at INFO, a line per request (each
    # delivery, each health check), where only REVIEW_NOTES_LOG_LEVEL=DEBUG asks for it
    assert not [r for r in records if r["logger"] == "uvicorn.access"], records


# `review-notes serve` as the image runs it, with the stop signal arriving while the
# notes load: after the CLI installed its handler, before uvicorn installed its own.
_STOPPED_WHILE_STARTING = """
import os, signal, sys
import bot.server as server
real = server.build_runtime
def build_runtime(*args, **kwargs):
    os.kill(os.getpid(), signal.{sig})  # docker stop (or Ctrl-C) while the notes load
    return real(*args, **kwargs)
server.build_runtime = build_runtime
from bot.cli import main
sys.exit(main(["serve", "--port", sys.argv[1]]))
"""


# `review-notes serve` with the stop signal arriving as the server's modules import
# (FastAPI, uvicorn, PyGithub: half a second): before any handler of ours was installed.
_STOPPED_WHILE_IMPORTING = """
import os, signal, sys
class StopAtServerImport:  # a finder that finds nothing: it only sees the import start
    def find_spec(self, name, path=None, target=None):
        if name == "bot.server":
            os.kill(os.getpid(), signal.{sig})  # docker stop right after docker run
        return None
sys.meta_path.insert(0, StopAtServerImport())
from bot.cli import main
sys.exit(main(["serve", "--port", sys.argv[1]]))
"""


@pytest.mark.parametrize(
    ("script", "sig"),
    [
        (_STOPPED_WHILE_STARTING, "SIGTERM"),
        (_STOPPED_WHILE_STARTING, "SIGINT"),
        # The handler was installed only after the server's modules imported: a SIGTERM
        # then killed the process, and in the image, where the server is the container's
        # main process, the kernel dropped it: `docker stop` waited its 10 s and killed
        # (exit 137).
        (_STOPPED_WHILE_IMPORTING, "SIGTERM"),
    ],
    ids=["loading-SIGTERM", "loading-SIGINT", "importing-SIGTERM"],
)
def test_a_stop_signal_while_starting_stops_the_server_once_up(tmp_path, script, sig):
    # It used to be only printed: the server went on serving until SIGKILL, and the
    # platform waited out its whole grace period.
    env = base_env(tmp_path) | {"PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [PY, "-c", script.format(sig=sig), str(free_port())],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        out = proc.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)  # a second stop, once up, does stop it
        out = proc.communicate(timeout=30)[0]
        pytest.fail(f"{sig} while starting was ignored; log:\n{out[-600:]}")
    assert proc.returncode == 0, out
    assert out.count(f"stopped by {sig}") == 1, out  # said once, not again at the re-raise


# --- /healthz on a full disk; retry's listing of every failed delivery ---


def _get(url: str) -> tuple[int, bytes]:
    """Status and body, a 5xx included."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_healthz_does_not_say_ok_while_every_delivery_is_refused_for_a_full_disk(tmp_path):
    # The volume holding the database fills up (simulated with the process's file-size
    # limit: writes past it fail as on a full disk). Every webhook got a 500 and was
    # stored nowhere, GitHub does not redeliver, yet /healthz, what the platform (the
    # image's HEALTHCHECK) and the operator watch, answered 200 "ok" with nothing failed,
    # and /metrics did not count the refused delivery. Now /healthz fails (503) until a
    # delivery is stored again, and the refusal is counted.
    import resource
    import uuid

    from bot.signature import sign
    from tests.webhook_kit import MATCHING_TITLE, SECRET, pr_payload

    port = free_port()
    env = base_env(
        tmp_path, PYTHONPATH=str(ROOT), GITHUB_WEBHOOK_SECRET=SECRET, REVIEW_NOTES_DRY_RUN="true"
    )
    log = open(tmp_path / "serve.log", "w")
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # inherited: EFBIG, not a kill
    try:
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    finally:
        signal.signal(signal.SIGXFSZ, old)
    base = f"http://127.0.0.1:{port}"

    def deliver(body_text: str) -> int:
        import urllib.error
        import urllib.request

        body = json.dumps(pr_payload(title=MATCHING_TITLE, body=body_text)).encode()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET, body),
        }
        request = urllib.request.Request(f"{base}/webhook", data=body, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as r:
                return r.status
        except urllib.error.HTTPError as err:
            return err.code

    try:
        wait_for_start(
            proc, lambda: get_json(f"{base}/healthz"), (tmp_path / "serve.log").read_text
        )
        sizes = [p.stat().st_size for p in tmp_path.iterdir() if p.is_file()]
        limit = max(sizes) + 256 * 1024
        _, hard = resource.prlimit(proc.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (limit, hard))  # the disk is full

        assert deliver("x " * (1024 * 1024)) >= 500  # refused, not stored
        code, text = _get(f"{base}/healthz")
        health = json.loads(text)
        assert code == 503 and health["status"] == "failing", health
        assert health["intake_error"].startswith("OperationalError"), health
        metrics = _get(f"{base}/metrics")[1].decode()
        assert 'review_notes_deliveries_total{event="pull_request",outcome="error"} 1.0' in metrics

        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (hard, hard))  # space again
        assert deliver("fits now") == 202
        code, text = _get(f"{base}/healthz")
        assert code == 200 and json.loads(text)["status"] == "ok"
        assert json.loads(text)["intake_error"] is None
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        log.close()


def test_retry_listing_counts_every_failed_delivery_not_the_first_thousand(tmp_path):
    # After an outage (a revoked key fails every delivery for a day) an operator runs
    # `review-notes retry` to see how many failed; /healthz said one number, retry another
    # (the length of its listing, capped at 1000).
    from bot.db import Database
    from bot.queue import DeliveryQueue, Incoming

    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    n = 1005
    q.enqueue_many(
        [
            Incoming(f"d-{i}", "pull_request", "opened", "{}", "vllm-project/vllm", 9000 + i)
            for i in range(n)
        ]
    )
    q.db.execute(
        "UPDATE deliveries SET state = 'failed',"
        " last_error = 'GithubException: 401 Bad credentials'"
    )
    assert q.counts()["failed"] == n  # what /healthz reports
    listing = cli("retry", env=base_env(tmp_path), cwd=ROOT)
    assert listing.returncode == 0
    lines = listing.stdout.strip().splitlines()
    assert lines[-1].startswith(f"{n} failed deliveries (the newest 1000 listed)"), lines[-1]
    assert len(lines) == 1001


# --- clear errors: a locked database, an empty payload, no server, a port in use ---

R16M_EXAMPLE = ROOT / "examples" / "pr-52419-opened.json"


def test_retry_on_a_locked_database_is_a_clear_error(tmp_path):
    # Another process holds the database (a `sqlite3 ... VACUUM`, a backup): after the
    # 10 s busy timeout (1 s here) `retry --all` dies with an OperationalError traceback.
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db_path = tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(db_path))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.claim()
    q.fail("d-1", "GithubException: 502")
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        r = run_cli(tmp_path, "retry", "--all", timeout=60, **SHORT_BUSY_TIMEOUT)
    finally:
        holder.rollback()
        holder.close()
    clear_error(r, str(db_path))
    assert "locked" in r.stderr


def test_replay_of_an_empty_payload_file_names_the_file(tmp_path):
    empty = tmp_path / "event.json"
    empty.write_text("")
    r = run_cli(tmp_path, "replay", str(empty), "--url", f"http://127.0.0.1:{free_port()}/webhook")
    clear_error(r, "event.json")


def test_replay_to_no_server_names_the_url(tmp_path):
    # "review-notes replay: <urlopen error [Errno 111] Connection refused>": refused by
    # what? The default URL comes from the settings' port, so the user cannot tell.
    port = free_port()
    r = run_cli(tmp_path, "replay", str(R16M_EXAMPLE), REVIEW_NOTES_PORT=str(port))
    clear_error(r, f"127.0.0.1:{port}")


def test_retry_empty_db_flag_is_named_as_the_flag(tmp_path):
    # `--db ""` (an unset shell variable) is reported as REVIEW_NOTES_DB_PATH, which the
    # user did not set; `--port` is named as the flag for the same reason.
    r = run_cli(tmp_path, "retry", "--db", "")
    assert r.returncode == 2 and "--db" in r.stderr, r.stderr


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path):
    # It prints "webhook at http://127.0.0.1:PORT/webhook ... try review-notes replay"
    # as if it were up, then exits 3 (an exit status docs/operating.md does not list) with the
    # reason only inside a JSON log line of uvicorn's.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = run_cli(tmp_path, "serve", "--port", str(port), timeout=60)
    assert r.returncode != 0
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("review-notes:")]
    assert any(str(port) in ln and "in use" in ln for ln in lines), r.stderr[-1500:]
    # kills: bot/server.py:run_server (hand) the socket bound after the banner: it said where the
    # webhook is, and what to replay to it, on a port another server holds
    assert "webhook at" not in r.stdout and " replay " not in r.stdout, r.stdout


# --- `serve`'s banner, a port in use, the request log at debug ---


# kills: bot/server.py:run_server the banner left in stdout's buffer: without PYTHONUNBUFFERED (a
# service manager, `serve > log`) it came out only at the exit, after every log line
def test_the_banner_is_written_at_once_even_without_pythonunbuffered(shared_server):
    assert "PYTHONUNBUFFERED" not in shared_server.env
    banner = shared_server.logs[0].read_text()  # the server still running
    assert f"review-notes: webhook at {shared_server.base}/webhook" in banner, banner


# kills: bot/server.py:_listening_socket an IPv6 address named without its brackets ("::1:8000" is
# no address and port), an IPv4 one with them
# kills: bot/server.py:_listening_socket (hand) the reason said as "[Errno 98] Address already in
#   use"
@pytest.mark.parametrize(("host", "where"), [("127.0.0.1", "127.0.0.1:{}"), ("::1", "[::1]:{}")])
def test_a_port_in_use_is_named_as_a_url_names_it(host, where):
    from bot.server import StartupError, _listening_socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as busy:
        busy.bind((host, 0))
        busy.listen()
        port = busy.getsockname()[1]
        said = re.escape(f"cannot listen on {where.format(port)}: ")
        with pytest.raises(StartupError, match=f"^{said}") as raised:
            _listening_socket(host, port)
    assert "Errno" not in str(raised.value)  # the reason in words alone


# kills: bot/server.py:run_server (hand) uvicorn's access log off at every level, DEBUG included
def test_at_debug_each_request_is_logged(shared_server):
    assert shared_server.env["REVIEW_NOTES_LOG_LEVEL"] == "DEBUG"
    get_json(f"{shared_server.base}/dry-run/comments")  # a request no other test makes here

    def logged() -> list[str]:  # the line is written as the answer goes out, not before
        text = shared_server.logs[0].read_text()
        records = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
        access = [r["msg"] for r in records if r["logger"] == "uvicorn.access"]
        return [m for m in access if '"GET /dry-run/comments HTTP/1.1" 200' in m]

    wait_until(logged, what="the request's access line")


# --- `redeliver`: the hours GitHub keeps, a dry run, its log lines, a token setup ---


@pytest.mark.parametrize("hours", ["0", "73", "x"])
def test_redeliver_refuses_hours_github_does_not_keep(tmp_path, hours):
    r = run_cli(tmp_path, "redeliver", "--since", hours)
    clear_error(r, "--since", "from 1 to 72")


def test_redeliver_in_a_dry_run_says_there_is_nothing_to_redeliver_from(tmp_path):
    clear_error(run_cli(tmp_path, "redeliver"), "dry run", "nothing to redeliver from")


def test_redeliver_says_what_the_github_client_logs_in_plain_redacted_lines(
    tmp_path, fake_github, app_key
):
    # a retry of the listing was written by Python's last-resort handler: the bare
    # message, a secret in it as it came
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.fake_github import Fault
    from tests.webhook_kit import SECRET, app_env

    DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # the server's queue, which it reads
    fake_github.inject("GET", "/app/hook/deliveries", Fault.error(502, f"echo: {SECRET}"))
    env = app_env(tmp_path, fake_github, app_key, REVIEW_NOTES_RETRY_BACKOFF="0")
    r = cli("redeliver", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stderr.splitlines() if "try 2 of" in x]
    assert line.startswith("warning: bot.github_retry: GitHub "), line
    assert "echo: [redacted]" in line and SECRET not in r.stderr


def test_redeliver_with_a_token_asks_for_the_apps_credentials(tmp_path):
    r = run_cli(
        tmp_path,
        "redeliver",
        GITHUB_TOKEN="ghp_example",
        GITHUB_WEBHOOK_SECRET="s3cret-of-the-hook",
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
    )
    clear_error(r, "GITHUB_APP_ID", "GITHUB_PRIVATE_KEY", "not a token")


# --- `retry`, `replay`, `redeliver` and `serve`: exit codes, flags, imports, logs ---


# kills: bot/cli_server.py:_retry (hand) a listing of every failed delivery said to be "the newest
#   N"
def test_retry_listing_of_every_failed_delivery_says_no_more_are_left_out(tmp_path):
    from bot.db import Database
    from bot.queue import DeliveryQueue

    q = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.claim()
    q.fail("d-1", "GithubException: 502")
    listing = cli("retry", env=base_env(tmp_path), cwd=ROOT)
    assert listing.returncode == 0
    last = listing.stdout.strip().splitlines()[-1]
    assert last == "1 failed delivery; `review-notes retry ID` or `--all` re-queues"


# kills: bot/cli_server.py:add_replay_parser (hand) `replay --secret` without `--url` signing with
#   the settings' secret instead of the one given (the server behind another port's 401)
def test_replay_signs_with_the_secret_given_even_without_a_url(tmp_path, monkeypatch):
    from bot import replay
    from bot.cli import main
    from tests.webhook_kit import clean_env

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", "the-settings-secret")
    monkeypatch.setenv("REVIEW_NOTES_PORT", "8123")
    sent = {}

    def fake_send(body, payload, **kw):
        sent.update(kw)
        return 202, "queued"

    monkeypatch.setattr(replay, "send", fake_send)
    assert main(["replay", str(R16M_EXAMPLE), "--secret", "given"]) == 0
    assert (sent["secret"], sent["url"]) == ("given", "http://127.0.0.1:8123/webhook")
    assert main(["replay", str(R16M_EXAMPLE)]) == 0
    assert sent["secret"] == "the-settings-secret"


# kills: bot/cli_server.py:_cmd_replay replay on settings that do not load exiting 0, nothing sent
# kills: bot/cli_server.py:_cmd_replay a payload that cannot be read exiting 2, as a usage error
#   would
def test_replay_exits_2_on_broken_settings_and_1_on_a_payload_it_cannot_send(
    tmp_path, monkeypatch, capsys
):
    from bot.cli import main
    from tests.webhook_kit import clean_env

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")
    assert main(["replay", str(R16M_EXAMPLE)]) == 2
    assert "configuration error" in capsys.readouterr().err
    missing = tmp_path / "no-such-event.json"
    flags = ["--url", "http://127.0.0.1:9/webhook", "--secret", "s"]
    assert main(["replay", str(missing), *flags]) == 1
    assert "review-notes replay: " in capsys.readouterr().err


# kills: bot/cli_server.py:_cmd_replay a 300 answer (the webhook did not take the delivery) exiting
#   0
@pytest.mark.parametrize(("status", "code"), [(200, 0), (299, 0), (300, 1), (401, 1)])
def test_replay_exits_0_only_when_the_webhook_takes_the_delivery(
    tmp_path, monkeypatch, capsys, status, code
):
    from bot import replay
    from bot.cli import main

    monkeypatch.setattr(replay, "send", lambda body, payload, **kw: (status, "answer"))
    flags = ["--url", "http://127.0.0.1:9/webhook", "--secret", "s"]
    assert main(["replay", str(R16M_EXAMPLE), *flags]) == code
    assert capsys.readouterr().out == f"{status} answer\n"


# kills: bot/cli_server.py:_cmd_retry a database locked past the busy timeout exiting 2, not 1 as
#   docs/reliability.md says (2 is for a command or configuration to fix)
def test_retry_on_a_database_locked_past_the_timeout_exits_1(tmp_path, monkeypatch, capsys):
    from bot import cli, cli_server
    from bot.db import Database
    from bot.queue import DeliveryQueue

    path = tmp_path / "bot.sqlite3"
    DeliveryQueue(Database(path))

    def locked(args, db, poll_seconds):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(cli_server, "_retry", locked)
    assert cli.main(["retry", "--all", "--db", str(path)]) == 1
    assert capsys.readouterr().err == f"review-notes: {path}: database is locked\n"


def test_a_command_run_in_process_leaves_the_log_as_it_found_it(
    tmp_path, monkeypatch, capsys, caplog
):
    # A full-suite run under load failed a later test: `retry`, run in-process by a test,
    # set its log handler on that test's captured stderr and left it there; the stderr
    # closed with the test, and a later test's queue worker logging a delivery made
    # Python write "--- Logging error --- ... I/O operation on closed file" into that
    # test's stderr. (Here the stderr the command writes to is closed as pytest closes
    # a test's, deterministically.)
    import io
    import logging

    from bot import cli
    from bot.db import Database
    from bot.queue import DeliveryQueue

    path = tmp_path / "bot.sqlite3"
    DeliveryQueue(Database(path))
    loggers = [logging.getLogger(), logging.getLogger("github")]
    before = [(log.handlers[:], log.level) for log in loggers]
    with monkeypatch.context() as m:
        m.setattr(sys, "stderr", io.StringIO())
        assert cli.main(["retry", "--db", str(path)]) == 0
        sys.stderr.close()
    assert [(log.handlers, log.level) for log in loggers] == before
    logging.getLogger("bot.queue").warning("a later record")
    assert [r.getMessage() for r in caplog.records] == ["a later record"]  # pytest's, kept
    assert capsys.readouterr().err == ""  # no "--- Logging error ---"


# A record logged after `serve` returned: a thread a bounded stop left running.
_LOGGED_AFTER_SERVE = """
import logging, sys
from bot.cli import main
code = main(["serve", "--port", sys.argv[1]])
logging.getLogger("bot.redelivery").warning("still calling with ghs_" + "E" * 36)
sys.exit(code)
"""


def test_the_servers_log_outlives_its_command_redacting_late_records(tmp_path):
    # Each command's log setup is undone at its end, but the server's: a record of one
    # of its threads left running past a bounded stop went to Python's last-resort
    # handler, a token in it unredacted. (Refused here: its port is in use.)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        r = subprocess.run(
            [PY, "-c", _LOGGED_AFTER_SERVE, port],
            cwd=tmp_path,
            env=base_env(tmp_path) | {"PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 1, r.stderr
    assert "ghs_" not in r.stderr, r.stderr[-500:]
    last = json.loads(r.stderr.splitlines()[-1])
    assert (last["level"], last["msg"]) == ("warning", "still calling with [redacted]")


# kills: bot/cli_server.py:add_serve_parser (hand) `serve --port 0` taken (uvicorn binds a random
#   port that GitHub's webhook URL does not name)
@pytest.mark.parametrize("port", ["0", "65536", "-1", "80.5"])
def test_serve_refuses_a_port_flag_no_server_can_be_reached_on(port, capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["serve", "--port", port])
    assert stop.value.code == 2
    assert f"--port: {port!r} is not a port (1 to 65535)" in capsys.readouterr().err


# kills: bot/cli_server.py:add_redeliver_parser (hand) `redeliver` without --since looking back less
#   than all GitHub keeps (docs/operating.md: "default 72, all GitHub keeps")
def test_redeliver_looks_back_all_github_keeps_by_default():
    from bot.cli import build_parser
    from bot.redelivery import KEPT_HOURS

    assert KEPT_HOURS == 72
    assert build_parser().parse_args(["redeliver"]).since == 72
    assert build_parser().parse_args(["redeliver", "--since", "1"]).since == 1


# kills: bot/cli.py:whole_number.parse the highest value a flag allows refused: `--since 72` (all
#   GitHub keeps, as docs/operating.md names it) and `--port 65535`
def test_the_bounds_a_flag_names_are_allowed_themselves():
    from bot.cli import build_parser

    assert build_parser().parse_args(["redeliver", "--since", "72"]).since == 72
    assert build_parser().parse_args(["serve", "--port", "65535"]).port == 65535
    assert build_parser().parse_args(["serve", "--port", "1"]).port == 1


# What a command's run imports: its own module, not the others' nor PyGithub (a command
# calling no GitHub paid a quarter of a second for it), in a fresh process.
_IMPORTED = """
import sys
from bot.cli import main
code = main(sys.argv[1:])
print(sorted(m for m in sys.modules if m.startswith("bot.cli") or m == "github"))
sys.exit(code)
"""


@pytest.mark.parametrize(
    ("argv", "modules"),
    [
        (["retry"], ["bot.cli", "bot.cli_server"]),
        (["notes", "feedback"], ["bot.cli", "bot.cli_notes"]),
        (["match", "--title", "Fix EAGLE"], ["bot.cli", "bot.cli_match"]),
    ],
)
def test_a_command_imports_its_own_module_and_no_github_it_does_not_call(argv, modules, tmp_path):
    from bot.db import Database
    from bot.queue import DeliveryQueue

    DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # what retry and feedback read
    r = subprocess.run(
        [PY, "-c", _IMPORTED, *argv],
        cwd=tmp_path,
        env=base_env(tmp_path, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == repr(modules)


# What a command's run imports beyond its own module: the settings every command reads
# imported the queue (the database, the PR state, the GitHub port), the slash commands'
# parser and the matcher for a constant each, and a curator's `notes check` paid 50 ms
# for what it never runs. The server's packages are imported by `serve` alone, once its
# settings are read: settings it refuses are reported without them. A command's `--help`
# reads no settings and no notes: the GitHub port's types (a PR's facts, a note's links)
# imported the notes' model, pydantic and all, for the operators' commands' parser.
_LOADED = """
import json, sys
from bot.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:  # --help
    code = stop.code
print(json.dumps(sorted(sys.modules)))
sys.exit(code)
"""
_SERVERS = {"fastapi", "uvicorn", "starlette", "github", "jinja2"}
# A search's modules: `notes check` and `match` read one number of it, what a search reads
# of a guidance, and imported it and its prose rules for it (20 ms of their CPU time)
_SEARCH = {"bot.search", "bot.comment_prose"}
# The notes' model, the library and the Markdown parser: the settings read config/bot.toml
# with the config files' reader, which imported them with the note files' (40 ms of CPU)
_NOTES = {"bot.notes", "bot.library", "bot.markdown_text"}


@pytest.mark.parametrize(
    ("argv", "code", "unused"),
    [
        (
            ["notes", "check"],
            0,
            {"bot.queue", "bot.db", "bot.github_port", "bot.commands", *_SEARCH},
        ),
        (["match", "--title", "Fix EAGLE"], 0, {"bot.queue", "bot.db", "bot.commands", *_SEARCH}),
        (["retry"], 0, {"bot.match_config", "bot.matching", "bot.search", "bot.commands", *_NOTES}),
        (["serve", "--port", "1"], 2, {"bot.server", *_NOTES}),  # its settings refused (below)
        # nor another command's: `redeliver`'s bound is the sweep's (bot.redelivery)
        (
            ["retry", "--help"],
            0,
            {"bot.settings", "bot.notes", "bot.prfacts", "pydantic", "importlib.metadata"}
            | {"bot.redelivery", "bot.github_port"},
        ),
        # the top level's: no sub-command's module (their summaries are bot.cli's)
        (["--help"], 0, {"bot.cli_notes", "bot.cli_match", "bot.cli_server", "pydantic"}),
        (["--version"], 0, {"bot.cli_notes", "bot.cli_match", "bot.cli_server", "pydantic"}),
    ],
)
def test_a_command_imports_none_of_what_the_settings_or_the_server_need_alone(
    argv, code, unused, tmp_path
):
    from bot.db import Database
    from bot.queue import DeliveryQueue

    DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # what retry reads
    refused = {"REVIEW_NOTES_MAX_DEFERRALS": "0"} if code == 2 else {}
    r = subprocess.run(
        [PY, "-c", _LOADED, *argv],
        cwd=tmp_path,
        env=base_env(tmp_path, PYTHONPATH=str(ROOT), **refused),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == code, r.stderr
    loaded = set(json.loads(r.stdout.splitlines()[-1]))
    # their imports are seen
    assert ("bot.settings" in loaded) == (not {"--help", "--version"} & set(argv))
    assert sorted({m.split(".")[0] for m in loaded} & _SERVERS) == []
    assert sorted(loaded & unused) == []


def test_a_commands_parser_names_every_command_as_the_whole_one_does(capsys):
    # the usage line of a command's error names them all (`review-notes match --title a b`)
    from bot.cli import COMMANDS, _parsed, build_parser

    (whole,) = [a for a in build_parser()._actions if a.dest == "command"]
    assert list(whole.choices) == list(COMMANDS)
    for name in COMMANDS:
        (one,) = [a for a in build_parser([name])._actions if a.dest == "command"]
        assert list(one.choices) == list(COMMANDS)
        assert build_parser([name]).format_usage() == build_parser().format_usage()
    # `--help` builds no sub-command's parser, and shows each as the whole one does
    assert build_parser(["--help"]).format_help() == build_parser().format_help()
    # the command is the first word not a flag: a flag before it is the one refused
    argv = ["--bogus", "retry", "--all"]
    with pytest.raises(SystemExit):
        _parsed(build_parser(argv), argv)
    assert capsys.readouterr().err.endswith("error: unrecognized arguments: --bogus\n")


# kills: bot/cli.py:whole_number.parse a number the shell passed with spaces (`--since " 24"`)
#   refused
# kills: bot/cli.py:_some_path `--db "  "` taken for a path (then reported as no database at "  ")
def test_flags_read_a_padded_number_and_refuse_a_blank_path(capsys):
    from bot.cli import build_parser

    assert build_parser().parse_args(["redeliver", "--since", " 24 "]).since == 24
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["retry", "--db", "  "])
    assert stop.value.code == 2
    assert "argument --db: an empty path" in capsys.readouterr().err


# kills: bot/cli_server.py:_cmd_redeliver and :_no_delivery_log `redeliver` on settings that do not
#   load, or with no database at the path named, exiting 0 as if GitHub had nothing to send again
def test_redeliver_exits_2_on_broken_settings_and_on_no_database(
    tmp_path, monkeypatch, capsys, app_key
):
    from bot.cli import main
    from tests.webhook_kit import clean_env

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")
    assert main(["redeliver"]) == 2
    assert "configuration error" in capsys.readouterr().err
    monkeypatch.delenv("REVIEW_NOTES_PORT")
    monkeypatch.setenv("GITHUB_APP_ID", "1")
    monkeypatch.setenv("GITHUB_PRIVATE_KEY", app_key.private_pem)
    monkeypatch.setenv("GITHUB_WEBHOOK_SECRET", "s3cret-of-the-hook")
    monkeypatch.setenv("REVIEW_NOTES_PUBLIC_URL", "https://notes.example.org")
    missing = tmp_path / "typo.sqlite3"
    assert main(["redeliver", "--db", str(missing)]) == 2
    assert f"no database at {missing}" in capsys.readouterr().err and not missing.exists()


# kills: bot/cli.py:build_parser `review-notes` with no command ending in a traceback, not its usage
@pytest.mark.parametrize("argv", [[], ["notes"]])
def test_a_missing_command_is_a_usage_error_naming_the_choices(argv, capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: review-notes") and "the following arguments are required" in err


def test_replay_refused_for_its_signature_says_which_secret_to_sign_with(
    tmp_path, monkeypatch, capsys
):
    # `replay` from another directory than the App's server signed with
    # the dry run's development secret and printed only the server's 401 body
    # ("missing or invalid X-Hub-Signature-256"), not what to do about it.
    from bot.cli import main
    from bot.server import build_runtime, create_app
    from tests.browser_kit import serving_in_thread
    from tests.webhook_kit import SECRET, clean_env, make_settings

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    rt = build_runtime(make_settings(tmp_path))  # signed with webhook_kit's SECRET
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            url = f"{base}/webhook"
            refused = main(["replay", str(R16M_EXAMPLE), "--url", url, "--secret", "wrong"])
            refused_err = capsys.readouterr().err
            assert main(["replay", str(R16M_EXAMPLE), "--url", url, "--secret", SECRET]) == 0
            accepted_err = capsys.readouterr().err
    finally:
        rt.stop()
    assert refused == 1
    assert "--secret" in refused_err and "GITHUB_WEBHOOK_SECRET" in refused_err
    assert "wrong" not in refused_err  # the secret is never printed
    assert accepted_err == ""


# an operator's walkthrough: `replay --url http://127.0.0.1:8000`, the address the
# server's banner and the docs give a server by, was sent to `/` and answered 404 "no
# webhook at /": the server's address, with no path, means its webhook.
def test_replay_to_a_servers_address_sends_to_its_webhook(tmp_path, monkeypatch, capsys):
    from bot.cli import main
    from bot.server import build_runtime, create_app
    from tests.browser_kit import serving_in_thread
    from tests.webhook_kit import SECRET, clean_env, make_settings

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    rt = build_runtime(make_settings(tmp_path))
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            said = [
                main(["replay", str(R16M_EXAMPLE), "--url", url, "--secret", SECRET])
                for url in (base, f"{base}/")
            ]
            out = capsys.readouterr().out
    finally:
        rt.stop()
    assert said == [0, 0], out
    assert out.count("202 ") == 1 and out.count("200 ") == 1, out  # queued, then a duplicate


def test_redeliver_with_no_server_on_the_database_says_the_redeliveries_fail_too(
    tmp_path, fake_github, app_key
):
    # run before the server was up again, `redeliver` said "the server
    # gets them shortly", exit 0, while GitHub's redeliveries failed as the first
    # attempts had, each event asked for once.
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.webhook_kit import SECRET, app_env

    DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # the server's queue, it stopped
    env = app_env(tmp_path, fake_github, app_key)
    nothing = cli("redeliver", env=env, cwd=tmp_path)
    assert "0 asked again" in nothing.stdout and nothing.stderr.count("\n") == 1  # its INFO
    fake_github.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # nothing answers
    fake_github.webhook_secret = SECRET
    missed = fake_github.send_webhook("pull_request", {"action": "opened", "number": 7})
    r = cli("redeliver", env=env, cwd=tmp_path)
    assert f"asked again: {missed.guid}" in r.stdout
    assert "the server gets them shortly" not in r.stdout
    assert "no review-notes server" in r.stderr and "start it" in r.stderr


def test_redeliver_with_nothing_to_ask_tells_of_no_redeliveries_coming(
    tmp_path, fake_github, app_key
):
    # An operator's walkthrough of App mode: with the server up and nothing GitHub
    # failed to deliver, `redeliver` said "0 asked again, ...; the server gets them
    # shortly", which reads as deliveries on their way.
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.webhook_kit import app_env

    db = Database(tmp_path / "bot.sqlite3")
    DeliveryQueue(db)
    assert db.acquire_server_lock()  # a server runs on the file
    try:
        r = cli("redeliver", env=app_env(tmp_path, fake_github, app_key), cwd=tmp_path)
    finally:
        db.close()
    assert r.returncode == 0 and "0 asked again" in r.stdout, r.stdout + r.stderr
    assert "gets them" not in r.stdout


# kills: bot/cli_server.py:_cmd_redeliver a database error past the opening ending in a traceback
def test_redeliver_on_a_damaged_database_says_so_in_one_line_with_the_fix(
    tmp_path, fake_github, app_key
):
    # `retry` and `notes feedback` say a database error met past the opening (a damaged
    # page, a lock held past the busy timeout) in one line with what to do; `redeliver`
    # ended in a traceback. Here a failing disk damaged the page of the index of
    # delivery ids, which it reads to tell which of GitHub's failed deliveries it holds.
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.damage_kit import damage_root_page
    from tests.webhook_kit import SECRET, app_env

    path = tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    q.enqueue("d-1", "pull_request", "opened", {}, "vllm-project/vllm", 1)
    q.db.close()
    damage_root_page(path, "sqlite_autoindex_deliveries_1")
    fake_github.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # nothing answers
    fake_github.webhook_secret = SECRET
    fake_github.send_webhook("pull_request", {"action": "opened", "number": 7})
    r = cli("redeliver", env=app_env(tmp_path, fake_github, app_key), cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr == (
        f"review-notes: {path}: database disk image is malformed: stop the server, then"
        " restore it from a backup: move it aside with its -wal and -shm files, put the"
        " backup in its place and start again (no backup: `review-notes salvage NEW_FILE`"
        " copies what still reads into a new file to put there)\n"
    )


def test_redeliver_holds_the_server_lock_no_longer_than_its_probe(
    tmp_path, fake_github, app_key, monkeypatch
):
    # redeliver's probe of the server lock kept it until the database
    # closed, after the summary and the "start it" hint were written: a server started
    # meanwhile was refused as "another review-notes server". Each write stands for
    # that moment: a server claiming the database from another open file.
    import io
    import sys

    import bot.cli
    import bot.cli_server
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.webhook_kit import SECRET, app_env

    path = tmp_path / "bot.sqlite3"
    DeliveryQueue(Database(path))  # the server's queue, it stopped
    for name, value in app_env(tmp_path, fake_github, app_key).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bot.cli_server, "log_plainly", lambda settings: None)  # root logger
    fake_github.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # nothing answers
    fake_github.webhook_secret = SECRET
    fake_github.send_webhook("pull_request", {"action": "opened", "number": 7})
    claims: list[bool] = []

    class ServerStarting(io.StringIO):
        def write(self, text: str) -> int:
            server = Database(path)
            try:
                claims.append(server.acquire_server_lock())
            finally:
                server.close()
            return super().write(text)

    out, err = ServerStarting(), ServerStarting()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    assert bot.cli.main(["redeliver"]) == 0
    assert "no review-notes server" in err.getvalue()  # the probe did take the lock
    assert claims and all(claims), claims


def test_redeliver_in_a_dry_run_asked_for_names_the_setting_not_missing_credentials(
    tmp_path, fake_github, app_key
):
    # A preview on real traffic: the App's credentials and secret are set, and
    # REVIEW_NOTES_DRY_RUN=true. `redeliver` said "no GitHub App credentials: GitHub
    # sends it nothing", neither of which holds, and named nothing to change.
    from tests.webhook_kit import app_env

    env = app_env(tmp_path, fake_github, app_key, REVIEW_NOTES_DRY_RUN="true")
    r = cli("redeliver", env=env, cwd=tmp_path)
    clear_error(r, "REVIEW_NOTES_DRY_RUN=true")
    assert "no GitHub App credentials" not in r.stderr and "sends it nothing" not in r.stderr
    assert fake_github.calls() == []  # a dry run asks GitHub for nothing


def test_a_dry_run_with_the_app_s_secret_says_what_going_live_will_post(tmp_path):
    # A preview on real traffic answers GitHub's deliveries; going live on its database
    # posts the comments of those of the last 72 h: the start says so,
    # so that the comments then surprise no one, and never shows the secret.
    serve = server(tmp_path, base_env(tmp_path, GITHUB_WEBHOOK_SECRET="app-secret-1234"))
    with serve.run():
        banner = serve.logs[0].read_text()
    assert "DRY RUN" in banner and "GITHUB_WEBHOOK_SECRET is set" in banner, banner
    assert "runs again what GitHub sent in the last 72 h" in banner
    assert "app-secret-1234" not in banner and "development webhook secret" not in banner


def test_a_dry_run_on_the_development_secret_says_nothing_of_going_live(shared_server):
    assert "GITHUB_WEBHOOK_SECRET" not in shared_server.env
    banner = shared_server.logs[0].read_text()
    assert "development webhook secret" in banner and "GITHUB_WEBHOOK_SECRET is set" not in banner


def test_replay_to_a_server_posting_to_github_asks_for_live_first(
    tmp_path, monkeypatch, capsys, fake_github, app_key
):
    # After going live, `review-notes replay examples/pr-52419-opened.json` (the README's
    # dry-run command, signed with the settings' secret, sent to the local server) was
    # accepted and posted the example's notes on the real PR 52419.
    # The server says in /healthz whether it writes to GitHub: replay asks first, and
    # sends to such a server only with --live. Its refusal said the PR "would get a real
    # comment", untrue of a server posting to a fake GitHub (scripts/fake_github.py).
    from bot.cli import main
    from bot.server import build_runtime, create_app
    from tests.browser_kit import serving_in_thread
    from tests.webhook_kit import SECRET, app_settings, clean_env

    clean_env(monkeypatch)
    monkeypatch.chdir(tmp_path)
    rt = build_runtime(app_settings(tmp_path, fake_github, app_key))
    rt.start()
    rt.workers.stop()  # what it queues stays pending
    try:
        with serving_in_thread(create_app(rt)) as base:
            args = ["replay", str(R16M_EXAMPLE), "--url", f"{base}/webhook", "--secret", SECRET]
            refused = main(args)
            out, err = capsys.readouterr()
            queued_before = sum(rt.queue.counts().values())
            sent = main([*args, "--live"])
            queued = sum(rt.queue.counts().values())
    finally:
        rt.stop()
    assert refused == 2 and out == "" and queued_before == 0
    assert "not a dry run: it posts to GitHub" in err and "--live" in err, err
    # its GitHub is the loopback fake: /healthz does not say so (a GITHUB_API_URL on this
    # machine may be a proxy to GitHub), so the refusal claims no real comment, nor github.com
    said = " ".join(err.split())
    assert "the one its GITHUB_API_URL names" in said and "unless that GitHub is a fake" in said
    assert "would get a real comment" not in said and "github.com" not in said, said
    assert sent == 0 and queued == 1


# --- config/bot.toml saved with a byte-order mark and CRLF ---


def test_serve_starts_with_a_bot_toml_notepad_saved_with_a_bom_and_crlf(tmp_path):
    # config/bot.toml edited in Notepad ("UTF-8 with BOM", CRLF) stopped the start with
    # 'malformed TOML: Invalid statement (at line 1, column 1)', where every other
    # config file and the notes read both.
    app = tmp_path / "app"  # the code and data as the image holds them, to edit one file
    for part in ("bot", "config", "seeds/notes"):
        shutil.copytree(ROOT / part, app / part, ignore=shutil.ignore_patterns("__pycache__"))
    path = app / "config" / "bot.toml"
    shipped = 'db_path = "var/review-notes.sqlite3"'
    text = path.read_text("utf-8").replace(shipped, 'db_path = "from-bot-toml.sqlite3"')
    path.write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode())
    env = base_env(tmp_path, PYTHONPATH=str(app))
    del env["REVIEW_NOTES_DB_PATH"]  # the file's is the one taken
    serve = LiveServer(tmp_path, env)
    with serve.run():
        assert serve.health()["status"] == "ok"
    assert (tmp_path / "from-bot-toml.sqlite3").is_file()  # the file's setting was used


# --- workers that cannot claim; the commands' help; an empty variable in .env ---


def test_healthz_fails_while_the_workers_cannot_claim_and_the_log_says_so_once(tmp_path):
    # The volume fills up with a delivery waiting (the file-size limit: writes past it
    # fail as on a full disk). The worker's claim, a write, failed every poll, each with
    # a traceback in the log (a second apart per worker; ten per busy timeout under a
    # lock), and retried forever; /healthz, what the image's HEALTHCHECK watches, said
    # "ok" while the queue stood still, as no webhook came to fail. Now it fails once
    # REVIEW_NOTES_WORKERS_STUCK_SECONDS have passed (0 here) naming the cause, the log
    # has the first failure and the recovery, and /metrics the seconds failing.
    import resource
    import threading

    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.webhook_kit import MATCHING_TITLE, pr_payload

    port = free_port()
    env = base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        REVIEW_NOTES_DRY_RUN="true",
        REVIEW_NOTES_WORKERS="1",
        REVIEW_NOTES_WORKERS_STUCK_SECONDS="0",
        # the test's own writes wake no worker, and a failed claim is tried again only
        # after a poll: at the default 5 s the three tries and the recovery took 20 s
        REVIEW_NOTES_WORKERS_POLL_SECONDS="0.1",
    )
    old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # inherited: EFBIG, not a kill
    try:  # the log through a pipe: the file-size limit spares it
        proc = subprocess.Popen(
            [PY, "-m", "bot.cli", "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    finally:
        signal.signal(signal.SIGXFSZ, old)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    base = f"http://127.0.0.1:{port}"

    def health() -> tuple[int, dict]:
        code, text = _get(f"{base}/healthz")
        return code, json.loads(text)

    def said(words: str) -> list[str]:
        return [line for line in list(lines) if words in line]

    queue = DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # as `review-notes retry`
    try:
        wait_for_start(proc, lambda: get_json(f"{base}/healthz"), lambda: "".join(lines))
        assert health()[1]["worker_error"] is None
        _, hard = resource.prlimit(proc.pid, resource.RLIMIT_FSIZE)
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (1, hard))  # the disk is full
        payload = pr_payload(title=MATCHING_TITLE)
        queue.enqueue("d-1", "pull_request", "opened", payload, "o/r", 1)

        def stuck_a_while() -> dict | None:
            code, body = health()
            tries = re.search(r"\((\d+) tries\)", body["worker_error"] or "")
            return body if code == 503 and tries and int(tries[1]) >= 3 else None

        body = wait_until(stuck_a_while, what="/healthz failing")
        assert body["status"] == "failing" and body["intake_error"] is None, body
        assert body["worker_error"].startswith("claiming a delivery has failed for "), body
        assert "): OperationalError: " in body["worker_error"], body  # SQLite's error
        assert body["pending"] == 1, body
        metrics = _get(f"{base}/metrics")[1].decode()
        failing = re.search(r"^review_notes_workers_failing_seconds (\S+)$", metrics, re.M)
        assert failing and float(failing[1]) > 0, metrics
        # three failed claims, one traceback: the first
        assert len(said("claiming a delivery failed")) == 1, lines
        assert len(said("Traceback")) == 1, lines

        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (hard, hard))  # space again
        wait_until(lambda: health()[1]["done"] == 1, what="the delivery done")
        code, body = health()
        assert code == 200 and body["status"] == "ok" and body["worker_error"] is None, body
        metrics = _get(f"{base}/metrics")[1].decode()
        assert "\nreview_notes_workers_failing_seconds 0.0\n" in metrics, metrics
        assert len(said("claiming a delivery works again")) == 1, lines
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        reader.join(10)
        queue.db.close()


# An operator reads `review-notes serve --help` before the docs: it said only the two flags,
# nothing of where the settings come from, nor that the image's HEALTHCHECK reads
# REVIEW_NOTES_PORT (docs/operating.md, Deploy), so `serve --port` there left the container
# unhealthy; `retry --help` said nothing of what it lists or when a re-queued delivery runs;
# `replay --help` nothing of what it does, nor why a live server refuses it
@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("serve", ["then .env in the working directory", "set REVIEW_NOTES_PORT rather than"]),
        ("retry", ["list the failed deliveries", "picks them up within its workers_poll_seconds"]),
        ("replay", ["POST it to its /webhook", "sends only with --live", "or its address"]),
    ],
)
def test_the_operators_commands_help_says_what_the_docs_say(command, said, capsys):
    from bot.cli import main

    with pytest.raises(SystemExit) as done:
        main([command, "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    for words in said:
        assert words in text, text
    operating = " ".join(doc("operating.md").split())
    assert "Change the port with `REVIEW_NOTES_PORT`, not `serve --port`" in operating


# names are read in any case: `github_token` in .env or in the environment hid it too,
# and the warning, which looked for GITHUB_TOKEN alone (reading .env again), said nothing
@pytest.mark.parametrize(
    ("in_env_file", "in_environment"),
    [
        ("GITHUB_TOKEN", "GITHUB_TOKEN"),
        ("github_token", "GITHUB_TOKEN"),
        ("GITHUB_TOKEN", "github_token"),
    ],
)
def test_a_dry_run_says_which_empty_variable_hid_a_credential_of_dot_env(
    tmp_path, in_env_file, in_environment
):
    # `GITHUB_TOKEN=` in the environment (compose's `${GITHUB_TOKEN}` of an unset
    # variable) is unset, and .env's token is not read: the start said DRY RUN and
    # nothing of why, to an operator whose .env holds a token.
    (tmp_path / ".env").write_text(f"{in_env_file}=ghp_intheenvfile\n")
    serve = server(tmp_path, base_env(tmp_path, **{in_environment: ""}))
    with serve.run():
        log = serve.logs[0].read_text()
    assert "DRY RUN" in log, log
    assert "GITHUB_TOKEN: empty in the environment, so .env's value is not read" in log, log
    assert "ghp_intheenvfile" not in log

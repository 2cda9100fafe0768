"""scripts/fake_github.py: the fake GitHub run by hand for examples/, a live serve against
it, and `review-notes replay --now`, as docs/operating.md ("Try it against a fake GitHub")
tells an operator to run them."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import load_script
from tests.docs_kit import doc
from tests.fake_github import Fault
from tests.webhook_kit import PY, ROOT, LiveServer, base_env, cli, free_port, wait_until

RUNNER = ROOT / "scripts" / "fake_github.py"
COMMENT_ID = 3190052419  # examples/pr-52419-comment-wrong.json's comment
fake_github = load_script("fake_github")
parse_fault = fake_github.parse_fault


@contextmanager
def runner(tmp_path: Path, *args: str) -> Iterator[tuple[dict[str, str], Path]]:
    """The runner as a process: the settings it printed, and its output's file."""
    out = tmp_path / "fake.out"
    port = str(free_port())
    with open(out, "w") as sink:
        proc = subprocess.Popen(
            [PY, str(RUNNER), "--port", port, "--key-file", str(tmp_path / "app.pem"), *args],
            env=base_env(tmp_path),
            cwd=tmp_path,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until(
            lambda: proc.poll() is not None or "requests as they come" in out.read_text(),
            what="the fake's settings",
        )
        assert proc.poll() is None, out.read_text()
        lines = out.read_text().splitlines()
        settings = dict(line.split("=", 1) for line in lines if re.match(r"[A-Z_]+=", line))
        assert settings["GITHUB_API_URL"] == f"http://127.0.0.1:{port}"
        yield settings, out
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0, out.read_text()


def read_token(out: Path) -> str:
    return re.search(r"token (fake_\w+)", out.read_text())[1]


def refused(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The runner run to its end with `args` (one it refuses before serving)."""
    return subprocess.run(
        [PY, str(RUNNER), "--port", str(free_port()), *args],
        env=base_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


def fake_get(settings: dict[str, str], token: str, path: str) -> object:
    import urllib.request

    request = urllib.request.Request(
        settings["GITHUB_API_URL"] + path, headers={"Authorization": f"token {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        return json.loads(resp.read())


@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_live_serve_against_the_run_fake_comments_on_an_example_replayed(tmp_path, mode):
    args = ["--fault", "GET /repos/*/pulls/*/files error:502"] if mode == "app" else ["--token"]
    with runner(tmp_path, *args) as (settings, out):
        assert ("GITHUB_TOKEN" in settings) == (mode == "token")
        if mode == "app":
            assert settings["GITHUB_APP_ID"] == "4242"
            assert "PRIVATE KEY" in Path(settings["GITHUB_PRIVATE_KEY_PATH"]).read_text()
        env = base_env(
            tmp_path, PYTHONPATH=str(ROOT), REVIEW_NOTES_REDELIVER_ON_START="false", **settings
        )
        serve = LiveServer(tmp_path, env)
        token = read_token(out)
        with serve.run():
            assert "review-notes: LIVE" in serve.logs[0].read_text()

            def replay(name: str, *more: str) -> str:
                r = cli(
                    "replay",
                    "--live",
                    *more,
                    f"examples/{name}",
                    "--url",
                    serve.base,
                    env=env,
                    cwd=ROOT,
                )
                assert r.returncode == 0, r.stdout + r.stderr
                return r.stdout

            assert replay("pr-52419-opened.json", "--now").startswith('202 {"status":"queued"')
            listed = "/repos/vllm-project/vllm/issues/52419/comments"
            comments = wait_until(  # the bot's, and the example comment seeded (a later id)
                lambda: (said := fake_get(settings, token, listed)) and len(said) > 1 and said,
                what="the bot's comment on the fake",
            )
            bot = "notes-operator" if mode == "token" else "review-notes[bot]"
            assert [c["user"]["login"] for c in comments] == [bot, "mispa-ms"]
            # the note of PR 52419, on that PR: its source named as this pull request
            assert "source: this pull request" in comments[0]["body"]
            assert "/notes/vllm-0436d44c" in comments[0]["body"]
            # the comment example is months old: refused as it is, taken moved to now
            assert '"status":"ignored"' in replay("pr-52419-comment-wrong.json")
            assert '"status":"queued"' in replay("pr-52419-comment-wrong.json", "--now")
            # the command's reactions on it, as the fake prints its requests
            reacted = (
                f"POST /repos/vllm-project/vllm/issues/comments/{COMMENT_ID}/reactions 201 {bot}"
            )
            wait_until(lambda: out.read_text().count(reacted) == 2, what="the command's reactions")
        said = out.read_text()
        if mode == "app":  # the fault from the command line, met and retried
            assert "GET /repos/vllm-project/vllm/pulls/52419/files 502 - (fault)" in said
            assert "GET /repos/vllm-project/vllm/pulls/52419/files 200 review-notes[bot]" in said


def test_the_runner_refuses_a_fault_it_does_not_know_naming_the_kinds(tmp_path):
    r = refused(tmp_path, "--fault", "GET /app explode")
    assert r.returncode == 2 and "no fault 'explode'; one of error, not_found" in r.stderr
    assert not (tmp_path / "fake-github-app.pem").exists()  # refused before any key is made


def test_the_runner_reuses_its_key_and_never_replaces_another_file(tmp_path):
    key = tmp_path / "app.pem"
    with runner(tmp_path) as (first, _):
        pem = key.read_bytes()
    assert key.stat().st_mode & 0o777 == 0o600
    with runner(tmp_path) as (second, _):
        assert key.read_bytes() == pem  # the same App key: .env stays as written
    first.pop("GITHUB_API_URL"), second.pop("GITHUB_API_URL")  # each test run's own port
    assert first == second
    key.write_text("my notes, not a key\n")
    r = refused(tmp_path, "--key-file", str(key))
    assert r.returncode == 2 and "app.pem: holds no private key to reuse" in r.stderr
    assert key.read_text() == "my notes, not a key\n"


def test_a_fault_from_the_command_line_is_the_fake_s_own():
    method, path, faults = parse_fault("post /repos/*/issues/*/comments error:503*2")
    assert (method, path) == ("POST", "/repos/*/issues/*/comments")
    assert faults == [Fault.error(503)] * 2
    assert parse_fault("GET /rate_limit slow:2.5")[2] == [Fault.slow(2.5)]
    for bad, said in [
        ("GET /app", "want METHOD PATH KIND"),
        ("GET /app dropped:3", "dropped takes no argument"),
        ("GET /app slow:soon", "'soon' is not a number"),
        ("GET /app error*0", "*N wants N of 1 or more"),
    ]:
        with pytest.raises(ValueError, match=re.escape(said)):
            parse_fault(bad)


# kills: scripts/fake_github.py:read_examples a bad example file said as json's bare
#   "Expecting value: line 1 column 1 (char 0)", naming no file
@pytest.mark.parametrize(("text", "said"), [("", "not JSON"), ('{"a": ', "not JSON")])
def test_an_example_that_is_no_json_is_named(tmp_path, text, said):
    shutil.copy(ROOT / "examples" / "pr-52419-opened.json", tmp_path)
    (tmp_path / "pr-9-opened.json").write_text(text)
    with pytest.raises(ValueError, match=re.escape(f"{tmp_path / 'pr-9-opened.json'}: {said}")):
        fake_github.read_examples(tmp_path)


# kills: scripts/fake_github.py:main the JSON files that are no webhook payload skipped
#   without a word: a payload missing its "repository" seeded nothing, and nothing said why
def test_the_runner_says_which_files_it_skipped_as_no_payload(tmp_path):
    examples = tmp_path / "examples"
    examples.mkdir()
    shutil.copy(ROOT / "examples" / "pr-52419-opened.json", examples)
    (examples / "labels.json").write_text('["bug"]')
    (examples / "pr-7-opened.json").write_text('{"action": "opened", "number": 7}')
    with runner(tmp_path, "--examples", str(examples)) as (_, out):
        said = out.read_text()
    assert f"skipped {examples / 'labels.json'}: not a JSON object" in said, said
    assert f"skipped {examples / 'pr-7-opened.json'}: names no repository" in said, said
    assert "pr-52419-opened.json" not in said  # a payload, seeded


def test_the_docs_section_names_the_runner_and_replay_now():
    section = doc("operating.md").split("## Try it against a fake GitHub", 1)[1].split("\n## ")[0]
    assert "scripts/fake_github.py" in section and "replay --live --now" in section


# The fake now hides a private repository from a classic token without `repo`, as GitHub
# does: seeded private, the examples' vllm-project/vllm refused the runner's --token
# (public_repo) every call. Seeded as the payload says, a private one stays private.
def test_the_runner_seeds_each_repository_public_or_private_as_its_payload_says():
    from tests.fake_github import FakeGitHub

    public = json.loads((ROOT / "examples" / "pr-52419-opened.json").read_text())
    private = json.loads(json.dumps(public))
    private["repository"].update(full_name="acme/closed", id=7, private=True)
    fake = FakeGitHub()
    fake_github.seed(fake, [public, private])
    assert fake.add_repo("vllm-project/vllm").public
    assert not fake.add_repo("acme/closed").public


# The fake hides a private repository from a classic token without `repo`, and the
# runner's token had public_repo alone: with --examples holding a private repository's
# payload, its --token's server was refused at start (give it repo, which no one can do to
# the fake's token) and the printed curl token saw nothing there. A private repository
# seeded, the token has `repo`, as an operator's would need
@pytest.mark.parametrize("visibility", ["private", "public"])
def test_the_runner_s_token_reaches_a_private_repository_it_seeded(tmp_path, visibility):
    import urllib.request

    payload = json.loads((ROOT / "examples" / "pr-52419-opened.json").read_text())
    payload["repository"].update(full_name="acme/closed", private=visibility == "private")
    folder = tmp_path / "payloads"
    folder.mkdir()
    (folder / "closed.json").write_text(json.dumps(payload))
    with runner(tmp_path, "--token", "--examples", str(folder)) as (settings, out):
        assert fake_get(settings, settings["GITHUB_TOKEN"], "/repos/acme/closed")["private"] is (
            visibility == "private"
        )
        with urllib.request.urlopen(
            urllib.request.Request(
                settings["GITHUB_API_URL"] + "/rate_limit",
                headers={"Authorization": f"token {settings['GITHUB_TOKEN']}"},
            ),
            timeout=10,
        ) as resp:
            scopes = resp.headers["X-OAuth-Scopes"]
        assert scopes == ("repo" if visibility == "private" else "public_repo"), scopes

"""What ships beside the code agrees with it: the App manifest, the operators' docs
(docs/operating.md), the Dockerfile."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
import urllib.request
from pathlib import Path

import yaml

from bot.metrics import Metrics
from bot.server import DRY_RUN_EXAMPLE, build_dispatcher
from bot.settings import Settings, env_name
from tests.docs_kit import doc
from tests.webhook_kit import PY, ROOT, LiveServer, base_env, free_port, get_json, wait_until

MANIFEST = yaml.safe_load((ROOT / "app.yml").read_text("utf-8"))
OPERATING = doc("operating.md")


def test_manifest_asks_for_the_least_privilege():
    assert MANIFEST["default_permissions"] == {
        "pull_requests": "write",
        "issues": "write",
        "metadata": "read",
    }
    assert MANIFEST["public"] is False


def test_manifest_subscribes_to_every_handled_event_and_the_command_events():
    events = set(MANIFEST["default_events"])
    assert set(build_dispatcher().events()) <= events
    assert set(build_dispatcher().events()) == events


def test_every_action_the_bot_handles_is_one_github_sends():
    # an operator's walkthrough, registering the App: the manifest's events are
    # the dispatcher's, but an action misspelt there ("ready_for_reviews") is one GitHub
    # never sends, and its PRs would wait for ever. Each action a route takes is one of
    # the event's in GitHub's webhook description (@octokit/webhooks-examples); the bot's
    # own queued deliveries (a deferred refresh, a files re-check) are review_notes_*.
    from tests.webhook_kit import _example_definitions

    github = {d["name"]: set(d.get("actions") or ()) for d in _example_definitions()}
    handled = {
        (event, action)
        for event, routes in build_dispatcher()._routes.items()
        for route in routes
        for action in route.actions or ()
        if not action.startswith("review_notes_")
    }
    assert len(handled) >= 14  # the routes' actions were found
    assert {(e, a) for e, a in handled if a not in github.get(e, set())} == set()


def test_manifest_urls_point_at_our_routes():
    assert MANIFEST["hook_attributes"]["url"].endswith("/webhook")
    assert MANIFEST["redirect_url"].endswith("/github/app-created")


def test_the_docs_manifest_form_is_app_yml():
    block = re.search(r"name=\"manifest\" value='(\{.*?\})'>", OPERATING, re.S)
    assert block, "the manifest form is missing from docs/operating.md"
    form = json.loads(block.group(1))
    for key in ("name", "public", "default_permissions", "default_events"):
        assert form[key] == MANIFEST[key], key
    assert form["hook_attributes"]["url"].endswith("/webhook")


def test_the_docs_register_the_app_by_hand_as_app_yml_does():
    # the docs gave the manifest flow only; an App registered on
    # GitHub's form (an organisation's policy, a GitHub Enterprise Server) had to work
    # out its fields from the manifest's JSON. The form's words for app.yml's choices:
    by_hand = re.search(r"^By hand\b(.*?)^## ", OPERATING, re.S | re.M)
    assert by_hand, "docs/operating.md: no 'By hand' paragraph"
    text = " ".join(by_hand[1].split())
    access = {"write": "Read and write", "read": "Read-only"}
    for permission, level in MANIFEST["default_permissions"].items():
        label = permission.replace("_", " ").capitalize()  # pull_requests: Pull requests
        assert f"{label}: {access[level]}" in text, permission
    for event in MANIFEST["default_events"]:
        assert f"*{event.replace('_', ' ').capitalize()}*" in text, event
    assert "/webhook" in text and "GITHUB_WEBHOOK_SECRET" in text
    assert "Only on this account" in text  # public: false


def _paragraph(start: str) -> str:
    """The paragraph of docs/operating.md that starts with `start`, on one line."""
    found = re.search(rf"^{re.escape(start)}(.*?)\n\n", OPERATING, re.S | re.M)
    assert found, f"docs/operating.md: no paragraph starting {start!r}"
    return " ".join(found[1].split())


def test_the_docs_say_what_a_proxy_in_front_must_let_through():
    # "put TLS in front of it" was all the docs said of a proxy,
    # whose defaults refuse what GitHub sends (nginx takes 1 MB bodies, GitHub's go up
    # to 25 MB: refused 413 by the proxy, the bot never told) or expose what is not for
    # the public (/metrics, /healthz's failures, a dry run's comments).
    from bot.webhook import BODY_SECONDS, MAX_BODY

    text = _paragraph("Behind a reverse proxy")
    assert f"{MAX_BODY // 2**20} MB" in text and f"{BODY_SECONDS:g} s" in text
    assert "client_max_body_size" in text and "REVIEW_NOTES_PUBLIC_URL" in text
    for route in ("/webhook", "/notes", "/topics", "/assets/", "/favicon.ico"):
        assert f"`{route}`" in text, route
    for route in ("/healthz", "/metrics", "/dry-run/comments"):
        assert f"`{route}`" in text, route


def test_the_docs_name_every_field_of_a_log_line():
    # the docs said the logs are JSON lines, not which fields
    # they hold, nor how to follow a delivery through them.
    import logging
    import sys

    from bot.logs import JsonFormatter, Redactor

    text = _paragraph("The server writes its log")
    try:
        raise ValueError("x")
    except ValueError:
        failure = sys.exc_info()
    record = logging.LogRecord("bot.workers", logging.WARNING, "", 0, "m", (), failure)
    for field, value in {"delivery": "d", "repo": "o/r", "pr": 1}.items():
        setattr(record, field, value)
    line = json.loads(JsonFormatter(Redactor()).format(record))
    named = set(re.findall(r"`([a-z]+)`", text))
    assert set(line) <= named, set(line) - named


def test_the_docs_settings_table_is_complete():
    table = re.search(r"## Settings\n(.*?)(\n## |\Z)", OPERATING, re.S).group(1)
    documented = set(re.findall(r"^\| `([A-Z0-9_]+)` \|", table, re.M))
    assert documented == {env_name(f) for f in Settings.model_fields}


def test_the_docs_name_every_outcome_an_alert_watches_from_the_start():
    # /metrics has `unverified` deliveries refused as too_large
    # (413) and too_slow (408) at 0 from the start, for an alert to watch, but the docs'
    # /metrics row named only bad_signature and wrong_path: an operator writing alerts
    # from the docs left them out.
    from tests.test_observability import samples

    row = re.search(r"^#### Reading /metrics\n(.*?)\n#", OPERATING, re.S | re.M)[1]
    for name, found in samples(Metrics().render().decode()).items():
        if not name.endswith("_total"):
            continue
        for labels, _ in found:
            for label in set(labels.values()) - {"unverified"}:
                assert f"`{label}`" in row, f"{name}{labels}: `{label}` not in the docs"


def test_the_docs_name_every_metric_the_server_exports():
    # /metrics' row of the endpoint table moved to "Reading /metrics", a
    # list by metric name; a metric added to bot/metrics.py and not to that list would
    # leave an operator writing alerts from the docs without it.
    from prometheus_client.parser import text_string_to_metric_families

    section = re.search(r"^#### Reading /metrics\n(.*?)\n#", OPERATING, re.S | re.M)[1]
    families = text_string_to_metric_families(Metrics().render().decode())
    names = {f.name for f in families if f.name.startswith("review_notes_")}
    names = {n for n in names if not n.endswith("_created")}  # a counter's start time
    assert len(names) > 10, names  # every family, a sample yet or not
    for name in names:
        assert re.search(rf"`{name}(_total)?[`{{]", section), name


def test_dockerfile_says_how_an_env_file_gives_the_app_key():
    # Its run line uses --env-file, which cannot hold a multi-line PEM.
    header = (ROOT / "Dockerfile").read_text("utf-8").split("\nFROM ")[0]
    assert "--env-file" in header and "GITHUB_PRIVATE_KEY=-----BEGIN" in header
    assert "\\n" in header and "GITHUB_PRIVATE_KEY_PATH=" in header


def test_the_base_image_is_its_tag_or_pinned_by_digest_as_the_docs_say():
    # No registry answers here to read a digest, so none is written in; the Dockerfile
    # and docs/operating.md (Deploy: the image and its pinned versions, where the Dockerfile
    # points) say how an operator pins one, in the form the FROM line takes.
    text = (ROOT / "Dockerfile").read_text("utf-8")
    base = re.findall(r"^FROM (\S+)$", text, re.M)
    assert len(base) == 1 and re.fullmatch(r"python:3\.11-slim(@sha256:[0-9a-f]{64})?", base[0])
    header = text[: text.index("\nFROM ")]
    for text in (header, " ".join(OPERATING.split())):
        assert "docker buildx imagetools inspect python:3.11-slim" in text
        assert re.search(r"FROM python:3\.11-slim@sha256:<[^>]+>", text)


def test_bot_toml_only_holds_known_settings():
    keys = set(tomllib.loads((ROOT / "config" / "bot.toml").read_text("utf-8")))
    assert keys and keys <= set(Settings.model_fields)


def test_dockerfile_runs_the_server_unprivileged_with_a_healthcheck():
    text = (ROOT / "Dockerfile").read_text("utf-8")
    assert re.search(r"^FROM python:3\.11-slim", text, re.M)
    user = re.findall(r"^USER (\S+)", text, re.M)
    assert user and user[-1] not in ("root", "0")
    assert re.search(r"^HEALTHCHECK .*\n?.*/healthz", text, re.M)
    assert 'CMD ["review-notes", "serve"]' in text
    # an init hands the stop signal on (the server as PID 1 would not get it early on)
    assert re.search(r'^ENTRYPOINT \["/usr/bin/tini", "--"\]$', text, re.M)
    assert re.search(r"^RUN apt-get update && apt-get install .*\btini\b", text, re.M)
    for src in re.findall(r"^COPY (\S+(?: \S+)*) \S+$", text, re.M):
        for path in src.split():
            assert (ROOT / path).exists(), f"Dockerfile copies a missing {path}"


def test_the_image_installs_the_dependencies_before_it_copies_the_code():
    # A change to bot/ must not download and install every dependency again: the layer
    # that does is built from image-requirements.txt alone (what it holds, and that it
    # matches pyproject.toml and constraints.txt: tests/test_lock.py).
    text = (ROOT / "Dockerfile").read_text("utf-8")
    install = re.search(
        r"^RUN pip install --require-hashes -r image-requirements\.txt$", text, re.M
    )
    assert install and text.index(install[0]) < text.index("COPY bot ")
    # Nor an edit of README.md or pyproject.toml (read only by the package's install):
    # the layer is built before they are copied, so not in its cache key.
    copied = re.findall(r"^COPY (.+?) \S+$", text[: install.start()], re.M)
    files = [f for line in copied for f in line.split()]
    assert files == ["image-requirements.txt"], f"the layer depends on {files}"
    assert re.search(r"^RUN pip install --no-deps --no-build-isolation -e \.$", text, re.M)


def test_the_image_holds_the_example_its_dry_run_banner_suggests():
    # Run without credentials, the image prints "try  review-notes replay <file>"; the
    # image used to copy only bot/, config/ and seeds/notes/, so the file was not there.
    text = (ROOT / "Dockerfile").read_text("utf-8")
    copied = [
        p for src in re.findall(r"^COPY (\S+(?: \S+)*) \S+$", text, re.M) for p in src.split()
    ]
    assert any(DRY_RUN_EXAMPLE == c or DRY_RUN_EXAMPLE.startswith(c + "/") for c in copied)
    assert (ROOT / DRY_RUN_EXAMPLE).is_file()
    ignored = (ROOT / ".dockerignore").read_text("utf-8").split()
    assert not [i for i in ignored if DRY_RUN_EXAMPLE.startswith(i.rstrip("/") + "/")]


def _docker_ignores(path: Path) -> bool:
    """Whether .dockerignore keeps `path` (in the checkout) out of the build context."""
    ignored = (ROOT / ".dockerignore").read_text("utf-8").split()
    rel = path.relative_to(ROOT).as_posix()
    return any(
        fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p.removeprefix("**/"))
        for p in ignored
    )


def test_the_build_context_leaves_out_the_apps_secrets():
    # the manifest flow (docs/operating.md) writes app.json (the
    # App's key, webhook secret and client secret) and app.pem in the checkout, the
    # directory `docker build .` sends whole to the builder (a remote one, a CI cache);
    # .dockerignore left out .env but not them. No COPY line takes them in today.
    for name in ("app.json", "app.pem", "config/app.pem", ".env"):
        assert _docker_ignores(ROOT / name), name
    assert not _docker_ignores(ROOT / "bot" / "server.py")


def _image_tree(app: Path) -> None:
    """Lay out what the Dockerfile's COPY lines put in /app, minus .dockerignore."""
    text = (ROOT / "Dockerfile").read_text("utf-8")
    for line in re.findall(r"^COPY (.+)$", text, re.M):
        *sources, dest = line.split()
        for src in sources:
            origin = ROOT / src
            target = app / dest / origin.name if dest.endswith("/") else app / dest
            if origin.is_dir():
                shutil.copytree(
                    origin,
                    target,
                    ignore=lambda d, names: [n for n in names if _docker_ignores(Path(d) / n)],
                )
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, target)


def _bot_code_read(tmp_path: Path, root: Path, *, cwd: Path) -> list[str]:
    """The files under `root`/bot a child importing the server, its bytecode writes off
    (PYTHONDONTWRITEBYTECODE, as the image sets it), read code from: a `.py` among them
    was compiled at the start, a `.pyc` loaded."""
    env = base_env(tmp_path, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")
    ran = subprocess.run(
        [PY, "-v", "-c", "import bot.cli, bot.server"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = re.findall(r"^# code object from '?(.+?)'?$", ran.stderr, re.M)
    return [p for p in loaded if p.startswith(str(root / "bot"))]


def test_the_image_compiles_bot_at_build_and_a_start_loads_the_bytecode(tmp_path):
    # The image writes no bytecode at run time (PYTHONDONTWRITEBYTECODE=1, /app root's
    # and the server uid 10001's), so every start compiled all of bot/ again. Its
    # compileall line, run here as root runs it at build on what the image copies, must
    # leave bytecode that a start with writing off loads for every module of bot/, also
    # once the sources' mtimes are rewritten (a reproducible build's SOURCE_DATE_EPOCH).
    text = (ROOT / "Dockerfile").read_text("utf-8")
    line = re.search(r"^RUN (python -m compileall .*)$", text, re.M)
    assert line, "the Dockerfile compiles no bytecode at build"
    assert text.index("COPY bot ") < line.start() < text.index("\nUSER ")
    app = tmp_path / "app"
    _image_tree(app)
    subprocess.run([PY, *shlex.split(line[1])[1:]], cwd=app, check=True)
    for source in (app / "bot").rglob("*.py"):
        os.utime(source, (315532800, 315532800))  # 1980-01-01, as a zip's or a clamp's
    ours = _bot_code_read(tmp_path, app, cwd=app)
    assert len(ours) > 20, ours  # the server's modules were read from /app/bot
    compiled_again = [p for p in ours if not p.endswith(".pyc")]
    assert not compiled_again, f"compiled at the start: {compiled_again}"


def test_a_child_process_of_the_tests_loads_bots_bytecode(tmp_path):
    # The tests start `review-notes` in a few hundred child processes; where Python
    # writes no bytecode (PYTHONDONTWRITEBYTECODE, as the image sets it, or a developer's
    # shell), each compiled all of bot/ again, a quarter of a server's start
    # (tests/conftest.py: pytest_configure compiles it once). A child as the tests start
    # one, its writes off, loads every module of the server from bytecode.
    ours = _bot_code_read(tmp_path, ROOT, cwd=tmp_path)
    assert len(ours) > 20, ours  # the server's modules were read from this checkout's bot/
    compiled_again = [p for p in ours if not p.endswith(".pyc")]
    assert not compiled_again, f"compiled in every child: {compiled_again}"


def test_the_server_runs_from_what_the_image_copies(tmp_path):
    # CI has no Docker engine, so the tests never build the image (scripts/check_image.sh
    # does, where a daemon runs); this lays out
    # the files the image holds and runs the server from them alone, as the image's CMD
    # and HEALTHCHECK do. A file the app reads at run time but the image does not copy
    # (a template, the title vocabulary, a page asset) fails here.
    app = tmp_path / "app"
    _image_tree(app)
    (app / "var").mkdir()
    env = base_env(
        tmp_path,
        PYTHONPATH=str(app),
        REVIEW_NOTES_DB_PATH=str(app / "var" / "review-notes.sqlite3"),
    )
    where = subprocess.run(
        [PY, "-c", "import bot; print(bot.__file__)"],
        env=env,
        cwd=app,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.strip().startswith(str(app)), where.stdout
    serve = LiveServer(app, env)
    with serve.run():
        # the banner's suggestion, as printed: in /app, the example below it
        line = re.search(r"try  (.*)$", serve.logs[0].read_text(), re.M)[1]
        assert f" replay {DRY_RUN_EXAMPLE} --url " in line, line
        r = subprocess.run(shlex.split(line), env=env, cwd=app, capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout.startswith("202 "), r.stdout + r.stderr
        comments = wait_until(
            lambda: get_json(f"{serve.base}/dry-run/comments")["comments"],
            what="the dry-run comment",
        )
        # the example's PR is a note's own source PR: named "this pull request", not linked
        assert "source: this pull request" in comments[0]["body"]
        note = sorted((app / "seeds" / "notes").glob("*.md"))[0].stem
        for page in (
            "/notes",
            f"/notes/{note}",
            "/topics",
            "/assets/notes.css",
            "/assets/notes.js",
        ):
            with urllib.request.urlopen(serve.base + page, timeout=10) as resp:
                assert resp.status == 200, page
        # The image's HEALTHCHECK command, its `python` being ours, against this server.
        dockerfile = (ROOT / "Dockerfile").read_text("utf-8")
        probe = json.loads(re.search(r"^HEALTHCHECK .*\n\s*CMD (\[.*\])$", dockerfile, re.M)[1])
        assert probe[0] == "python"
        ran = subprocess.run(
            [PY, *probe[1:]], env=env | {"REVIEW_NOTES_PORT": str(serve.port)}, cwd=app, timeout=30
        )
        assert ran.returncode == 0
        # a proxy the operator's environment names is not asked (it cannot reach the
        # container's 127.0.0.1)
        proxy = f"http://127.0.0.1:{free_port()}"  # nothing listens: asking it fails
        proxied = {"HTTP_PROXY": proxy, "http_proxy": proxy, "NO_PROXY": "", "no_proxy": ""}
        ran = subprocess.run(
            [PY, *probe[1:]],
            env=env | proxied | {"REVIEW_NOTES_PORT": str(serve.port)},
            cwd=app,
            timeout=30,
        )
        assert ran.returncode == 0

"""The documentation's own links lead somewhere: every relative link in the README and in
docs/ names a file that exists and, when it names a section (`#anchor`), a heading of that
file; the README's Documentation list links every file in docs/; and every command,
option, setting and metric they show is one the code has.

The reference moved out of the README into docs/ (one file per reader); a cross-reference
written as a link breaks silently when a section is renamed or moved again, so it is
checked here, with GitHub's rule for a heading's anchor.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs_kit import DOCS, doc, readme
from tests.webhook_kit import ROOT

PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
# [text](target) and ![alt](target); the text may hold one level of brackets and run
# over a line break, as a wrapped paragraph writes it.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose(text: str) -> str:
    """The text a link can be in: fenced blocks and code spans taken out."""
    return CODE_SPAN.sub("", unfenced(text))


def by_fence(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of the text but the fences' own, with whether a fenced block holds it."""
    fence = None
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)):
            fence = None
        else:
            yield line, fence is not None


def unfenced(text: str) -> str:
    """The text with its fenced blocks taken out."""
    return "\n".join(line for line, fenced in by_fence(text) if not fenced)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    for line in unfenced(text).splitlines():  # a code span's text is in the anchor
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            name, n = anchor(heading.group(1)), 1
            while name in found:  # GitHub numbers a repeated heading's anchor
                name, n = f"{anchor(heading.group(1))}-{n}", n + 1
            found.add(name)
    return found


def local_links(page: Path) -> list[str]:
    targets = LINK.findall(prose(page.read_text("utf-8")))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.I)]


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """Each local link of the page that leads nowhere (or out of `root`), with why."""
    out = []
    for target in local_links(page):
        path, _, section = target.partition("#")
        file = (page.parent / path).resolve() if path else page.resolve()
        if not file.is_file() or not file.is_relative_to(root.resolve()):
            out.append(f"{target}: no file {path}")
        elif section and section not in anchors(file.read_text("utf-8")):
            out.append(f"{target}: no heading with the anchor #{section} in {path or page.name}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_a_heading_there(page):
    assert local_links(page) and broken(page) == []


def test_the_documentation_list_links_every_file_in_docs():
    listed = readme().split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    linked = {t.partition("#")[0] for t in LINK.findall(listed)}
    assert linked == {f"docs/{p.name}" for p in DOCS.glob("*.md")}


def test_anchors_follow_githubs_rule():
    assert anchor("Try it locally (dry run)") == "try-it-locally-dry-run"
    assert anchor("The notes comment, in detail") == "the-notes-comment-in-detail"
    assert anchor("Create the GitHub App (manifest flow)") == "create-the-github-app-manifest-flow"
    assert anchor("📚 Review notes") == "-review-notes"
    assert anchors("# A\n## A\n```\n# B\n```\n## A\n") == {"a", "a-1", "a-2"}
    # a code span's text stays in its heading's anchor, its backticks dropped
    assert anchors("### `notes check` with many warnings\n") == {"notes-check-with-many-warnings"}


def test_a_broken_link_is_named(tmp_path):
    # The check must see a link to a missing file, to a missing heading, to a file out of
    # the repository (GitHub shows none), one wrapped over a line break, and leave alone
    # links in code and to other sites.
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.md").write_text("# Outside\n", "utf-8")
    (root / "other.md").write_text("# Other\n\n## Its part\n", "utf-8")
    page = root / "page.md"
    page.write_text(
        "# Page\n\nSee [its\npart](other.md#its-part), [gone](gone.md), [a part](other.md#nope),"
        " [here](#page), [away](#away), [out](../outside.md) and [GitHub](https://github.com).\n\n"
        "`[code](gone.md)`\n\n```\n[fenced](gone.md)\n```\n",
        "utf-8",
    )
    assert broken(page, root=root) == [
        "gone.md: no file gone.md",
        "other.md#nope: no heading with the anchor #nope in other.md",
        "#away: no heading with the anchor #away in page.md",
        "../outside.md: no file ../outside.md",
    ]


# --- the commands, settings and metrics the docs name are the code's ------------------

# The names the docs show refused (the start's words on a misspelt variable).
SHOWN_AS_MISSPELT = {"REVIEW_NOTES_REPO", "GITHUB_APP_PRIVATE_KEY", "REVIEW_NOTES_WEBHOOK_SECRET"}
# a setting's name; not a family of them (`REVIEW_NOTES_REDELIVER_*`)
SETTING = re.compile(r"\b(?:REVIEW_NOTES|GITHUB)_[A-Z0-9_]*[A-Z0-9]\b(?!_?\*)")
# review-notes or a script run as a command (after a shell's `NAME=value`s, as
# `.venv/bin/review-notes` or `.venv/bin/python scripts/x.py`), and its words up to a
# pipe, `&&` or `;`
COMMAND = re.compile(
    r"(?:^|&&|\||;)\s*(?:[A-Z_]+=\S*\s+)*(?:\S*/)?(?:python3?\s+)?"
    r"(review-notes|(?:scripts|bench)/\w+\.py)(?!\S)((?:[ \t]+[^\s|&;`]+)*)"
)


def shell_lines(text: str) -> list[str]:
    """Each line of the page's fenced code blocks, cut at its shell comment."""
    lines: list[str] = []
    for line, fenced in by_fence(text):
        if fenced and lines and lines[-1].endswith("\\"):  # continued
            lines[-1] = lines[-1][:-1] + " " + line.strip()
        elif fenced:
            lines.append(re.sub(r"(^|\s)#\s.*$", "", line))
    return lines


def code_spans(text: str) -> list[str]:
    """The code spans of the page's prose, each on one line (a span may wrap)."""
    return [" ".join(m[0].strip("`").split()) for m in CODE_SPAN.finditer(unfenced(text))]


def commands(page: Path) -> list[tuple[str, list[str], bool]]:
    """Each command the page shows: (program, its words, whether it is whole). A line
    of a code block is whole: it must parse as written. A usage line (`retry [ID ...]
    [--db FILE]`) and a code span in prose, which may leave parts out (`--file ...`,
    `<its source_pr>`), are not: only their options' names are checked."""
    text = page.read_text("utf-8")
    found = []
    for line in shell_lines(text):
        usage = "[" in line  # `retry [ID ...] [--db FILE]`: its placeholders are no values
        for m in COMMAND.finditer(re.sub(r"[\[\]]|\.\.\.", "", line) if usage else line):
            found.append((m[1], shlex.split(m[2]), not usage))
    for span in code_spans(text):
        for m in COMMAND.finditer(span):
            found.append((m[1], m[2].split(), False))
    return found


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(
        (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {}
    )


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings}


def unknown_options(words: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The options among `words` the (sub-)command they name does not take."""
    for i, word in enumerate(words):
        if word in _subparsers(parser):
            return unknown_options(words[i + 1 :], _subparsers(parser)[word])
        if not word.startswith("-"):
            break
    flags = [w.split("=", 1)[0] for w in words if re.fullmatch(r"--?[A-Za-z][\w-]*(=.*)?", w)]
    return [f for f in flags if f not in _options(parser)]


def refused(words: list[str]) -> str | None:
    """What `review-notes WORDS` says when its command line does not parse, or None."""
    from bot.cli import build_parser

    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            build_parser().parse_args(words)
    except SystemExit as exc:
        return said.getvalue().strip() or None if exc.code else None
    return None


def test_every_review_notes_command_the_docs_show_is_one_the_cli_takes():
    # A reader copies these: a sub-command, option or argument the CLI has not (renamed,
    # moved) fails for them first. A line of a code block must parse as written; a code
    # span in prose names only options its sub-command takes.
    from bot.cli import build_parser

    wrong = []
    for page in PAGES:
        for program, words, whole in commands(page):
            if program != "review-notes":
                continue
            why = refused(words) if whole else None
            bad = unknown_options(words, build_parser())
            if why or bad:
                wrong.append(f"{page.name}: review-notes {' '.join(words)}: {why or bad}")
    assert wrong == []


@functools.cache
def script_options(script: str, sub: str | None) -> set[str] | None:
    """The options `script [sub] --help` lists; None when `sub` is no sub-command of it."""
    ran = subprocess.run(
        [sys.executable, script, *([sub] if sub else []), "--help"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if ran.returncode:
        assert sub, f"{script} --help: {ran.stderr[-500:]}"
        return None
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", ran.stdout))


def test_every_option_the_docs_give_a_script_is_one_it_takes():
    wrong = []
    for page in PAGES:
        for program, words, _ in commands(page):
            if program == "review-notes":
                continue
            assert (ROOT / program).is_file(), f"{page.name}: no {program}"
            sub = words[0] if words and not words[0].startswith("-") else None
            known = (sub and script_options(program, sub)) or script_options(program, None)
            bad = [w for w in words if re.fullmatch(r"--?[A-Za-z][\w-]*", w) and w not in known]
            if bad:
                wrong.append(f"{page.name}: {program} {' '.join(words)}: {bad}")
    assert wrong == []


def test_every_setting_the_docs_name_is_a_setting():
    # A setting the docs name that the code has not (a rename, a typo) is refused at the
    # start from .env and bot.toml, and only warned about from the environment.
    from bot.settings import Settings, env_name

    names = {env_name(f) for f in Settings.model_fields}
    for page in PAGES:
        named = set(SETTING.findall(page.read_text("utf-8")))
        assert named - names - SHOWN_AS_MISSPELT == set(), page.name


def test_the_403_rows_wait_for_a_new_token_is_the_clients():
    # after a new token is refused a permission, none is minted for it again for this
    # long (no installation event): a `retry` sooner fails again, as the row says
    from bot.github_sessions import REFUSAL_KEPT

    text = doc("operating.md")
    (row,) = [line for line in text.splitlines() if "lacks the permission this call" in line]
    minutes = f"{REFUSAL_KEPT.total_seconds() / 60:g} minutes"
    assert f"none is minted for it for {minutes}" in row, row
    assert f"no new token minted: one was refused it too in the last {minutes}" in row, row


# a metric's name; not a settings.md anchor (`settings.md#review_notes_repos`)
METRIC = re.compile(r"(?<![#\w])review_notes_[a-z0-9_]*[a-z0-9]\b")


def served_metrics() -> set[str]:
    """The metrics GET /metrics serves (the server renders a `Metrics`' registry)."""
    from bot.metrics import Metrics

    return set(re.findall(r"^# TYPE (\S+)", Metrics().render().decode(), re.M))


def unknown_metrics(text: str) -> list[str]:
    """The metric names the text gives that GET /metrics does not serve."""
    return sorted(set(METRIC.findall(text)) - served_metrics())


def test_every_metric_the_docs_name_is_one_the_server_serves():
    # An operator's alert on a name the server does not serve (a rename, a typo, `_total`
    # left off) never fires, and Prometheus says nothing of it.
    for page in PAGES:
        assert unknown_metrics(page.read_text("utf-8")) == [], page.name


def test_every_metric_the_server_serves_is_in_the_docs_list_of_every_metric():
    # docs/operating.md, Reading /metrics, "Every metric:": a metric added unlisted is one
    # an operator cannot read. (`_created`: prometheus_client's start time of a counter.)
    section = doc("operating.md").split("\n#### Reading /metrics\n", 1)[1]
    every = section.split("\nEvery metric:\n", 1)[1].split("\n#", 1)[0]
    served = {name for name in served_metrics() if not name.endswith("_created")}
    assert served - set(METRIC.findall(every)) == set()


def test_a_metric_the_server_does_not_serve_is_named():
    text = (
        "Alert on `review_notes_deliveries_failed_total` and `review_notes_workers_ended`,"
        ' `review_notes_deliveries_total{outcome="failed"}`,'
        " not `review_notes_queue_depth_total`; see [repos](settings.md#review_notes_repos)."
    )
    assert unknown_metrics(text) == [
        "review_notes_deliveries_failed_total",
        "review_notes_queue_depth_total",
    ]


def test_the_commands_a_page_shows_are_found(tmp_path):
    # A command in a code block (after `&&`, with a shell's NAME=value, continued over a
    # line end), a usage line, a code span wrapped in prose; not the image's name in a
    # `docker run`, nor a marker that holds the word.
    page = tmp_path / "page.md"
    page.write_text(
        "Run `GITHUB_TOKEN=x .venv/bin/review-notes notes\nrefs --note ID` or"
        " `<!-- no-review-notes -->`.\n\n```sh\nbash x.sh && .venv/bin/review-notes serve"
        "   # a comment --no\n.venv/bin/review-notes retry [ID ...] [--all]\n"
        "docker run --rm -v v:/app/var review-notes python -c 'x'\n"
        ".venv/bin/python scripts/eval_matching.py --all \\\n  --before DIR | jq .\n```\n",
        "utf-8",
    )
    assert commands(page) == [
        ("review-notes", ["serve"], True),
        ("review-notes", ["retry", "ID", "--all"], False),
        ("scripts/eval_matching.py", ["--all", "--before", "DIR"], True),
        ("review-notes", ["notes", "refs", "--note", "ID"], False),
    ]
    from bot.cli import build_parser

    assert unknown_options(["notes", "refs", "--notes", "x", "--topics=t"], build_parser()) == [
        "--notes"
    ]
    assert refused(["notes", "checks"]) and refused(["serve"]) is None


# --- the tables the database file holds are the ones the docs tell of -----------------

TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)")


def tables_created() -> set[str]:
    """The tables bot/ creates in the SQLite file (each store its own)."""
    return {name for p in (ROOT / "bot").glob("*.py") for name in TABLE.findall(p.read_text())}


def test_every_table_the_bot_creates_is_named_where_the_docs_say_what_each_keeps():
    # reliability.md, "What the database keeps", says it tells "the SQLite file's tables,
    # how long each row stays", yet named neither `github_outage`, `redelivery` nor
    # `released_still`: an operator looking at the file (`.tables`) could not learn what
    # they hold, nor a developer that a table added needs a word on how long it stays.
    section = doc("reliability.md").split("\n## What the database keeps\n", 1)[1]
    section = section.split("\n## ", 1)[0]
    named = set(re.findall(r"`(\w+)`", section))
    assert len(tables_created()) > 10  # the schemas are found: a changed form fails here
    assert sorted(tables_created() - named) == []

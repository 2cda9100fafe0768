"""`review-notes match`: text, JSON, payload and batch modes, and bad input."""

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from webhook_kit import clear_error, run_cli

from bot.cli import main
from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, ROOT, load_library
from bot.match_config import DEFAULT_MATCHING_FILE, checked_match_config
from bot.matching import match_pr
from bot.prfacts import PRFacts, facts_from_payload, payload_files
from bot.render import RenderOptions, render

EXAMPLES = Path(__file__).resolve().parent.parent / (
    "node_modules/@octokit/webhooks-examples/api.github.com/index.json"
)
# The shipped notes, taxonomy and weights, named: a .env or REVIEW_NOTES_* must not change them
SHIPPED = ["--notes-dir", str(DEFAULT_NOTES_DIR), "--topics", str(DEFAULT_TOPICS_FILE)]
SHIPPED += ["--config", str(DEFAULT_MATCHING_FILE)]

TOPICS = """
[[topic]]
id = "spec-decode"
name_en = "Speculative decoding"
name_zh = "投机解码"
keywords = ["EAGLE", "spec decode"]
paths = ["vllm/v1/spec_decode"]
labels = ["speculative-decoding"]

[[topic]]
id = "prefix-caching"
name_en = "Prefix caching"
name_zh = "前缀缓存"
keywords = ["prefix caching"]
paths = ["vllm/v1/core"]

[[topic]]
id = "tool-calling"
name_en = "Tool calling"
name_zh = "工具调用"
keywords = ["tool parser"]
"""

NOTE = """+++
id = "vllm-aaaa0001"
repo = "vllm-project/vllm"
source_pr = 52419
verdict = "deep"
topics = ["prefix-caching", "spec-decode"]
title_zh = "修复 EAGLE 缓存注册"
title_en = "Keep EAGLE cache registration"
summary_en = "A bugfix worth reading for its regression test."
+++
值得精读。
"""

CONFIG = """threshold = 4.0
max_notes = 3
relative_floor = 0.5
[weights]
path = 3.0
"""


@pytest.fixture
def setup(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vllm-aaaa0001.md").write_text(NOTE, "utf-8")
    (tmp_path / "topics.toml").write_text(TOPICS, "utf-8")
    (tmp_path / "matching.toml").write_text(CONFIG, "utf-8")
    flags = [
        "--notes-dir",
        str(notes),
        "--topics",
        str(tmp_path / "topics.toml"),
        "--config",
        str(tmp_path / "matching.toml"),
    ]
    return tmp_path, flags


def run(capsys, *argv):
    code = main(["match", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_lists_notes_with_reasons(setup, capsys):
    _, flags = setup
    code, out, _ = run(
        capsys,
        "--title",
        "[Spec Decode] prefix caching for EAGLE drafts",
        "--file",
        "vllm/v1/core/kv_cache_manager.py",
        "--number",
        "1",
        *flags,
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "PR vllm-project/vllm 1: [Spec Decode] prefix caching for EAGLE drafts"
    # the note's topics alone (EAGLE is the topic's word): the comment's badge, Background
    said = "Background (linked by topic only; rated Deep read)"
    assert lines[1] == f"1. vllm-aaaa0001  {said}  score 8, reviews PR 52419"
    assert "   Keep EAGLE cache registration" in lines
    assert "   - changes vllm/v1/core/kv_cache_manager.py (topic: Prefix caching)" in lines
    assert "   - title is tagged [Spec Decode] (topic: Speculative decoding)" in lines
    assert lines[-1] == "topics: spec-decode (4), prefix-caching (4)"  # capped; file order


def test_text_output_when_nothing_matches(setup, capsys):
    _, flags = setup
    code, out, _ = run(capsys, "--title", "[Frontend] New tool parser", *flags)
    assert code == 0
    assert "no note reaches the threshold (4)" in out
    assert "topics with no note yet: tool-calling" in out


def test_json_output(setup, tmp_path, capsys):
    _, flags = setup
    body = tmp_path / "body.md"
    body.write_text("Follow-up to the EAGLE fix.\n```\nprefix caching\n```\n", "utf-8")
    code, out, _ = run(
        capsys,
        "--title",
        "Keep the fix",
        "--body-file",
        str(body),
        "--number",
        "52419",
        "--label",
        "speculative-decoding",
        "--json",
        *flags,
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"notes", "topics", "held_back"}
    assert data["held_back"] == []
    [entry] = data["notes"]
    assert set(entry) == {"id", "pr", "score", "verdict", "badge", "reasons"}
    assert (entry["id"], entry["pr"], entry["verdict"]) == ("vllm-aaaa0001", 52419, "deep")
    assert entry["badge"] == "deep"  # its source PR: evidence of its own
    assert entry["reasons"][0] == "this PR is the one this note reviews"
    assert data["topics"] == ["spec-decode"]  # label; the code block does not count


def test_batch_writes_one_json_line_per_pr_and_reports_bad_lines(setup, tmp_path, capsys):
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    prs.write_text(
        "\n".join(
            [
                json.dumps({"number": 1, "title": "[Spec Decode] prefix caching for EAGLE"}),
                "{not json",
                "",
                json.dumps({"number": 2, "title": "Docs", "body": None, "labels": [], "files": []}),
            ]
        ),
        "utf-8",
    )
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert code == 1
    assert f"{prs}:2: skipped" in err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["number"] for r in rows] == [1, 2]
    assert [n["id"] for n in rows[0]["notes"]] == ["vllm-aaaa0001"]
    assert rows[1] == {"number": 2, "notes": [], "topics": [], "held_back": []}


def test_batch_takes_gh_shapes_and_skips_badly_shaped_lines_with_the_field(setup, tmp_path, capsys):
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    gh = {  # what `gh pr view N --json number,title,labels,files` prints
        "number": 3,
        "title": "[Spec Decode] prefix caching for EAGLE",
        "labels": [{"name": "speculative-decoding", "color": "ededed"}],
        "files": [{"path": "vllm/v1/spec_decode/eagle.py", "additions": 3}],
    }
    lines = [
        json.dumps({"number": 1, "title": 42}),
        json.dumps({"number": 2, "title": "x", "labels": "bug"}),
        json.dumps({"number": "abc", "title": "x"}),
        json.dumps({"number": 4, "title": "x", "code_names": ["a"]}),
        json.dumps(gh),
    ]
    prs.write_text("\n".join(lines), "utf-8")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert code == 1
    assert f"{prs}:1: skipped: title: not a string (int)" in err
    assert f"{prs}:2: skipped: labels: not a list (str)" in err
    assert f"{prs}:3: skipped: number: not a PR number ('abc')" in err
    assert f"{prs}:4: skipped: code_names: not an object of lists" in err
    (row,) = [json.loads(line) for line in out.splitlines()]  # the good line after them
    assert row["number"] == 3 and [n["id"] for n in row["notes"]] == ["vllm-aaaa0001"]


def test_batch_lines_end_at_newlines_only(setup, tmp_path, capsys):
    # JSON strings may hold U+2028, U+2029 or NEL raw (`jq -c` and
    # json.dumps(ensure_ascii=False) write them so): they do not end a record
    _, flags = setup
    records = [
        {"number": 1, "title": "[Spec Decode] prefix caching", "body": "one\u2028two"},
        {"number": 2, "title": "[Spec Decode] prefix caching", "body": "a\x85b\u2029c"},
        {"number": 3, "title": "Docs"},
    ]
    prs = tmp_path / "prs.jsonl"
    prs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records), "utf-8")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, err) == (0, "")
    assert [json.loads(line)["number"] for line in out.splitlines()] == [1, 2, 3]
    files = tmp_path / "files.txt"
    files.write_text("vllm/v1/spec_decode/a\u2028b.py\r\n", "utf-8")
    title = "[Spec Decode] prefix caching for EAGLE"
    code, out, _ = run(capsys, "--title", title, "--files-from", str(files), "--json", *flags)
    reasons = json.loads(out)["notes"][0]["reasons"]
    assert code == 0 and any("spec_decode/a\u2028b.py" in r for r in reasons), reasons


# kills: bot/cli_match.py:_match_batch a byte-order mark dropped from the first line only
# kills: bot/given_paths.py:listed_files a byte-order mark dropped from the first line only
def test_inputs_starting_with_a_byte_order_mark(setup, tmp_path, capsys):
    # an editor on Windows writes one: dropped, as from notes, topics and digests
    _, flags = setup
    bom = b"\xef\xbb\xbf"
    prs = tmp_path / "prs.jsonl"
    record = {"number": 5, "title": "Refactor", "files": ["vllm/v1/spec_decode/eagle.py"]}
    prs.write_bytes(bom + json.dumps(record).encode() + b"\n")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, err) == (0, "")
    assert json.loads(out)["topics"] == ["spec-decode"]
    # `cat a.jsonl b.jsonl`: each file's mark, the second's at the start of a later line
    prs.write_bytes(2 * (bom + json.dumps(record).encode() + b"\n"))
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, err) == (0, "") and len(out.splitlines()) == 2, err
    files = tmp_path / "files.txt"  # the first path is the path, not BOM + path
    files.write_bytes(bom + b"vllm/v1/spec_decode/eagle.py\n")
    code, out, _ = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == ["spec-decode"]
    files.write_bytes(bom + b"README.md\n" + bom + b"vllm/v1/spec_decode/eagle.py\n")
    code, out, _ = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == ["spec-decode"]
    event = tmp_path / "event.json"
    pull = {"number": 7, "title": "[Spec Decode] prefix caching for EAGLE"}
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    event.write_bytes(bom + json.dumps(payload).encode())
    code, out, err = run(capsys, "--payload", str(event), "--json", *flags)
    assert (code, err) == (0, "")
    assert [n["id"] for n in json.loads(out)["notes"]] == ["vllm-aaaa0001"]


# kills: bot/cli_match.py:_read_text a file in GBK said only to be no UTF-8
# kills: bot/cli_match.py:_match_batch a batch line in GBK said only to be no UTF-8
@pytest.mark.parametrize(
    ("encoding", "body", "title", "byte", "reads_as"),
    [
        # A PR description saved by a Chinese Windows editor (its 'ANSI' is GBK) was
        # "cannot read: not UTF-8 (byte 0)"; a note file saved so says GBK and the fix
        pytest.param(
            "gbk", "修复推理解析器", "修复", 0, "GBK, as Chinese Windows saves text", id="gbk"
        ),
        # Defect: a curly quote in Windows-1252 (0x93) and the letter after it read as a
        # GBK character: "it reads as GBK" for an English title
        pytest.param(
            "cp1252",
            "Keeps the “eager” region",
            "“Fix” it",
            10,
            "Windows-1252 (Latin-1), as Western Windows saves text",
            id="windows-1252",
        ),
    ],
)
def test_a_file_in_a_windows_encoding_is_said_to_be_in_it_with_the_fix(
    setup, tmp_path, capsys, encoding, body, title, byte, reads_as
):
    _, flags = setup
    said = f"; it reads as {reads_as}: save the file as UTF-8"
    body_file = tmp_path / "body.txt"
    body_file.write_bytes(body.encode(encoding))
    code, out, err = run(capsys, "--title", "x", "--body-file", str(body_file), *flags)
    assert (code, out, err) == (1, "", f"{body_file}: cannot read: not UTF-8 (byte {byte}){said}\n")
    prs = tmp_path / "prs.jsonl"
    prs.write_bytes(
        (json.dumps({"number": 1, "title": title}, ensure_ascii=False) + "\n").encode(encoding)
    )
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, out, err) == (1, "", f"{prs}:1: skipped: not UTF-8 (byte 24){said}\n")


def test_a_batch_file_that_is_not_utf8_is_a_clear_error(setup, tmp_path, capsys):
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    prs.write_bytes(b'{"number": 1, "title": "caf\xe9"}\n')
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert code == 1 and out == ""
    assert f"{prs}:1: skipped: not UTF-8 (byte 27)" in err  # a line alone


@pytest.mark.skipif(not EXAMPLES.exists(), reason="webhook examples not installed")
def test_payload_with_files_from(setup, tmp_path, capsys):
    _, flags = setup
    groups = json.loads(EXAMPLES.read_text("utf-8"))
    payload = next(
        e
        for g in groups
        if g["name"] == "pull_request"
        for e in g["examples"]
        if e["action"] == "opened"
    )
    payload = json.loads(json.dumps(payload))
    payload["repository"]["full_name"] = "vllm-project/vllm"
    payload["pull_request"]["title"] = "[Spec Decode] prefix caching for EAGLE"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), "utf-8")
    files = tmp_path / "files.txt"
    files.write_text("vllm/v1/spec_decode/eagle.py\n\nvllm/v1/core/block_pool.py\n", "utf-8")
    code, out, _ = run(
        capsys, "--payload", str(event), "--files-from", str(files), "--json", *flags
    )
    assert code == 0
    data = json.loads(out)
    assert [n["id"] for n in data["notes"]] == ["vllm-aaaa0001"]
    reasons = data["notes"][0]["reasons"]
    assert "changes vllm/v1/spec_decode/eagle.py (topic: Speculative decoding)" in reasons


def server_match(facts: PRFacts) -> list[tuple[str, list[str]]]:
    """What the bot itself links for these facts (the shipped notes and weights)."""
    library = load_library(DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE)
    config = checked_match_config(library, DEFAULT_MATCHING_FILE)
    return [(m.note.id, list(m.reasons)) for m in match_pr(facts, library, config).matches]


def cli_notes(out: str) -> list[tuple[str, list[str]]]:
    return [(n["id"], n["reasons"]) for n in json.loads(out)["notes"]]


def test_payload_files_are_matched_as_the_dry_run_server_does(capsys):
    # examples/README.md: a dry run uses the payload's top-level `files` list; the preview
    # of an example payload must show the reasons and scores the bot's comment shows
    path = ROOT / "examples" / "pr-51901-opened.json"
    payload = json.loads(path.read_text("utf-8"))
    assert payload_files(payload)  # the example carries its changed files
    bot = server_match(facts_from_payload(payload, payload_files(payload) or ()))
    assert any(r.startswith("changes cmake/utils.cmake") for _, rs in bot for r in rs)
    code, out, _ = run(capsys, "--payload", str(path), "--json", *SHIPPED)
    assert code == 0 and cli_notes(out) == bot


def test_a_payloads_files_as_github_lists_them_are_matched_as_paths(tmp_path, capsys):
    # GitHub's list-files shape (`[{"filename": ...}]`), as `--batch` reads it: once
    # taken for no files, the preview matched without its paths and said nothing
    path = ROOT / "examples" / "pr-51901-opened.json"
    payload = json.loads(path.read_text("utf-8"))
    code, out, _ = run(capsys, "--payload", str(path), "--json", *SHIPPED)
    listed = tmp_path / "listed.json"
    objects = [{"filename": f, "status": "modified"} for f in payload["files"]]
    listed.write_text(json.dumps({**payload, "files": objects}), "utf-8")
    code2, out2, _ = run(capsys, "--payload", str(listed), "--json", *SHIPPED)
    assert (code2, cli_notes(out2)) == (code, cli_notes(out)) and cli_notes(out)
    listed.write_text(json.dumps({**payload, "files": ["a.py", {"name": "b.py"}]}), "utf-8")
    code3, _, err = run(capsys, "--payload", str(listed), "--json", *SHIPPED)
    assert code3 == 1
    assert f"{listed}: malformed pull_request payload: files[1]: not a string" in err


def test_files_given_with_a_payload_replace_its_files_list(setup, tmp_path, capsys):
    _, flags = setup
    pull = {"number": 7, "title": "[Spec Decode] prefix caching for EAGLE", "changed_files": 1}
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    event = tmp_path / "event.json"
    event.write_text(json.dumps({**payload, "files": ["vllm/v1/core/block_pool.py"]}), "utf-8")
    code, out, _ = run(capsys, "--payload", str(event), "--json", *flags)
    [(_, reasons)] = cli_notes(out)
    assert code == 0 and any("vllm/v1/core/block_pool.py" in r for r in reasons), reasons
    files = tmp_path / "files.txt"
    files.write_text("vllm/v1/spec_decode/eagle.py\n", "utf-8")
    given = ["--files-from", str(files)]
    code, out, _ = run(capsys, "--payload", str(event), *given, "--json", *flags)
    [(_, reasons)] = cli_notes(out)
    assert code == 0 and any("vllm/v1/spec_decode/eagle.py" in r for r in reasons), reasons
    assert not any("block_pool" in r for r in reasons), reasons


ELASTIC_TITLE = "[ROCm] Fix elastic EP deadlock"
ELASTIC_TEST = "tests/distributed/test_elastic_ep.py"
ELASTIC_CODE = "vllm/distributed/elastic_ep/elastic_execute.py"


@pytest.mark.parametrize(
    "files, linked",
    [((ELASTIC_TEST,), []), ((ELASTIC_CODE, ELASTIC_TEST), ["vllm-64eca4f8"])],
    ids=["tests-only", "code-and-tests"],
)
def test_files_given_are_the_whole_list_as_the_bot_sees_it(capsys, files, linked):
    # docs/matching.md's example: a curator lists the PR's changed files. The bot, with GitHub's
    # whole listing (changed_files = as many), links nothing to a PR changing only tests; the
    # preview took the files as a partial list and showed a Deep read the bot never posts
    facts = PRFacts(repo="vllm-project/vllm", number=0, title=ELASTIC_TITLE, files=files)
    bot = server_match(replace(facts, changed_files=len(files)))
    assert [note for note, _ in bot] == linked
    given = [arg for f in files for arg in ("--file", f)]
    code, out, _ = run(capsys, "--title", ELASTIC_TITLE, *given, "--json", *SHIPPED)
    assert code == 0 and cli_notes(out) == bot


def test_changed_files_says_the_files_given_are_only_some(capsys):
    # with --file the whole list, a curator could not preview the bot on a PR whose
    # listing it saw only in part (GitHub's 3,000-file cap, a fork's files seen by hand);
    # --changed-files says how many the PR changes in all
    facts = PRFacts(repo="vllm-project/vllm", number=0, title=ELASTIC_TITLE, files=(ELASTIC_TEST,))
    bot = server_match(replace(facts, changed_files=2))
    assert [note for note, _ in bot] == ["vllm-64eca4f8"]  # not held back as tests-only
    given = ["--title", ELASTIC_TITLE, "--file", ELASTIC_TEST, "--json", *SHIPPED]
    code, out, _ = run(capsys, *given, "--changed-files", "2")
    assert code == 0 and cli_notes(out) == bot
    code, out, _ = run(capsys, *given, "--changed-files", "1")
    assert code == 0 and cli_notes(out) == []  # the whole list: tests only
    with pytest.raises(SystemExit) as exit_:
        run(capsys, *given, "--changed-files", "0")
    assert exit_.value.code == 2 and "'0' is not a count of files" in capsys.readouterr().err


def test_changed_files_is_refused_where_the_pr_says_it_itself(tmp_path, capsys):
    pull = {"number": 9, "title": ELASTIC_TITLE, "changed_files": 1}
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": pull}), "utf-8")
    code, out, err = run(capsys, "--payload", str(event), "--changed-files", "3", *SHIPPED)
    assert code == 2 and out == "" and "--changed-files goes with --title" in err


def test_a_strong_note_held_back_is_named_with_the_rule_that_held_it(capsys):
    # The tests-only PR: its note scores far above the threshold and is still not linked;
    # "no note reaches the threshold" sent the curator looking at weights
    code, out, _ = run(capsys, "--title", ELASTIC_TITLE, "--file", ELASTIC_TEST, *SHIPPED)
    assert code == 0 and "no note reaches the threshold" not in out
    assert "no note linked; above the threshold (4) but held back:" in out
    line = next(x for x in out.splitlines() if "vllm-64eca4f8 (score " in x)
    assert "changes only tests and CI" in line
    code, out, _ = run(capsys, "--title", ELASTIC_TITLE, "--file", ELASTIC_CODE, *SHIPPED)
    assert code == 0 and "held back" not in out  # linked: nothing held


# kills: bot/cli_match.py:_print_match the "held back:" heading left out after linked notes:
#   the held-back lines ran on under the last linked note's reasons, read as its own
def test_notes_held_back_beside_a_linked_one_are_listed_under_their_heading(capsys):
    title = (  # PR 45426 of the dev set
        "[Attention][MLA] FlashMLA sparse: enable DCP on the fp8 mixed-batch path and MTP"
        " with full cudagraphs"
    )
    code, out, _ = run(capsys, "--title", title, *SHIPPED)
    lines = out.splitlines()
    assert code == 0 and lines[1].startswith("1. ")  # a note linked
    at = lines.index("held back:")
    assert lines[at + 1].startswith("   - vllm-") and "(score " in lines[at + 1]


# kills: bot/cli_match.py:_print_match an empty "topics: " line printed for a PR no topic hits
def test_a_pr_no_topic_hits_prints_no_topics_line(capsys):
    code, out, _ = run(capsys, "--title", "Fix a typo in a comment", *SHIPPED)
    assert code == 0
    assert out.splitlines() == [
        "PR vllm-project/vllm: Fix a typo in a comment",
        "no note reaches the threshold (4)",
    ]


def test_match_json_lists_the_notes_held_back_and_why(tmp_path, capsys):
    # docs/matching.md: "A note that scores above the threshold but is not linked is
    # listed under "held back" with the rule that held it (a tests-only or docs-only
    # PR, ...), so a curator tunes the right thing"; docs/matching.md's own preview command is
    # `match --payload event.json --files-from files.txt --json`. The text output listed
    # the elastic-EP note held back on this tests-only PR; --json (and so --batch) printed
    # only "notes" and "topics": the note and its rule were gone.
    args = ["--title", ELASTIC_TITLE, "--file", ELASTIC_TEST, *SHIPPED]
    code, text, _ = run(capsys, *args)
    assert code == 0 and "vllm-64eca4f8" in text and "changes only tests and CI" in text
    code, out, _ = run(capsys, *args, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["notes"] == []
    [held] = data["held_back"]
    assert set(held) == {"id", "score", "rule"}
    score = next(x for x in text.splitlines() if "vllm-64eca4f8 (score " in x)
    assert held["id"] == "vllm-64eca4f8" and f"(score {held['score']:g})" in score
    assert held["rule"].startswith("the PR changes only tests and CI")
    # --batch writes the same object, after the PR's number
    prs = tmp_path / "prs.jsonl"
    record = {"number": 9, "title": ELASTIC_TITLE, "files": [ELASTIC_TEST], "changed_files": 1}
    prs.write_text(json.dumps(record) + "\n", "utf-8")
    code, out, _ = run(capsys, "--batch", str(prs), *SHIPPED)
    assert code == 0 and json.loads(out) == {"number": 9, **data}


@pytest.mark.parametrize("changed_files", [1, 2])
def test_a_payloads_changed_files_tells_whether_the_files_given_are_all(
    tmp_path, capsys, changed_files
):
    # as for the bot: GitHub listing fewer files than changed_files is a partial list
    pull = {"number": 9, "title": ELASTIC_TITLE, "changed_files": changed_files}
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), "utf-8")
    bot = server_match(facts_from_payload(payload, (ELASTIC_TEST,)))
    assert [note for note, _ in bot] == ([] if changed_files == 1 else ["vllm-64eca4f8"])
    code, out, _ = run(capsys, "--payload", str(event), "--file", ELASTIC_TEST, "--json", *SHIPPED)
    assert code == 0 and cli_notes(out) == bot


def test_bad_input_gets_a_clear_error(setup, tmp_path, capsys):
    _, flags = setup
    code, _, err = run(capsys, "--payload", str(tmp_path / "missing.json"), *flags)
    assert code == 1 and "missing.json: cannot read" in err
    not_pr = tmp_path / "issue.json"
    not_pr.write_text(json.dumps({"issue": {}}), "utf-8")
    code, _, err = run(capsys, "--payload", str(not_pr), *flags)
    assert code == 1 and "not a pull_request webhook payload" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{", "utf-8")
    code, _, err = run(capsys, "--payload", str(broken), *flags)
    assert code == 1 and err.strip()
    with pytest.raises(SystemExit):  # --title and --batch are exclusive
        main(["match", "--title", "x", "--batch", "y", *flags])


def test_bad_config_is_reported(setup, tmp_path, capsys):
    _, flags = setup
    (tmp_path / "matching.toml").write_text("max_notes = 0\n", "utf-8")
    code, _, err = run(capsys, "--title", "x", *flags)
    assert code == 1 and "max_notes" in err


def test_a_config_naming_an_unknown_topic_is_named_as_check_and_the_server_do(setup, capsys):
    tmp_path, flags = setup
    config = tmp_path / "matching.toml"
    config.write_text('family_topics = ["spec-decod"]\n' + CONFIG, "utf-8")
    code, out, err = run(capsys, "--title", "x", *flags)
    assert (code, out) == (1, "")
    assert err == (
        f"{config}:1: family_topics: unknown topic 'spec-decod': no topic has this id in"
        f" {tmp_path / 'topics.toml'}; did you mean 'spec-decode'?\n"
    )
    assert main(["notes", "check", *flags[1:]]) == 1  # the same line
    assert capsys.readouterr().err.splitlines()[0] == err.strip()


def test_output_is_the_same_whatever_the_hash_seed(setup, tmp_path):
    """Reasons feed the sticky comment: a reordering would rewrite it for nothing."""
    import os
    import subprocess
    import sys

    root, flags = setup
    note = (root / "notes" / "vllm-aaaa0001.md").read_text("utf-8")
    note = note.replace(
        'topics = ["prefix-caching", "spec-decode"]',
        (
            'topics = ["prefix-caching", "spec-decode"]\n'
            'keywords = ["lookahead hashing", "draft registration", "hash hit", "block table"]'
        ),
    )
    (root / "notes" / "vllm-aaaa0001.md").write_text(note, "utf-8")
    title = "[Spec Decode] hash hit, block table, draft registration, lookahead hashing"
    cmd = [sys.executable, "-m", "bot.cli", "match", "--title", title, "--json", *flags]
    repo = Path(__file__).resolve().parent.parent
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(repo)}
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=repo, check=True)
        outs.add(run.stdout)
    assert len(outs) == 1
    reasons = json.loads(outs.pop())["notes"][0]["reasons"]
    assert reasons[0] == (  # one line: the same reason (`_alike_merged`), the title's order
        "title mentions 'hash hit', 'block table', 'draft registration', 'lookahead hashing'"
        " (terms this note is about)"
    )


def test_batch_output_to_a_reader_that_stops_early_ends_quietly(tmp_path):
    """`review-notes match --batch PRS | head -1`: no traceback when head goes away."""
    import subprocess
    import sys

    prs = tmp_path / "prs.jsonl"
    prs.write_text(
        "".join(
            json.dumps({"number": n, "title": f"[Frontend] change {n}"}) + "\n"
            for n in range(1, 20001)
        ),
        "utf-8",
    )
    repo = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "match", "--batch", str(prs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=repo,
    )
    first = proc.stdout.readline()
    proc.stdout.close()  # the reader goes away with most of the output unread
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert json.loads(first)["number"] == 1
    assert "Traceback" not in err and "BrokenPipe" not in err


# kills: bot/cli.py:main stdout left to be flushed at exit, out of the BrokenPipeError handler
@pytest.mark.parametrize("argv", [["match", "--title", "x", *SHIPPED], ["notes", "check"]])
def test_output_shorter_than_a_buffer_to_a_reader_gone_ends_quietly(tmp_path, argv):
    """`review-notes match ... | true`, or `| head -1` gone before the last lines: what a
    command prints fits the buffer Python writes at exit, after main's handler, which
    printed "Exception ignored ... BrokenPipeError" and exited 120. Run as a user runs it,
    without the tests' PYTHONUNBUFFERED."""
    import os
    import subprocess
    import sys

    from webhook_kit import base_env

    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    del env["PYTHONUNBUFFERED"]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        cmd = [sys.executable, "-m", "bot.cli", *argv]
        r = subprocess.run(cmd, stdout=write, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr.decode()) == (141, "")


# kills: bot/cli.py:main --help's text (argparse's SystemExit) left to be flushed at exit
# kills: bot/cli.py:_flush_output a usage error's text on stderr left to be flushed at exit
# kills: bot/cli.py:main stderr's unsent text kept after its pipe broke (flushed again at exit)
@pytest.mark.parametrize(
    ("argv", "stream"),
    [
        (["--help"], "stdout"),
        (["retry", "-h"], "stdout"),
        (["notes", "check", "--help"], "stdout"),
        (["serve", "--port", "x"], "stderr"),  # argparse's usage error
        ([], "stderr"),  # no command
    ],
)
def test_help_or_a_usage_error_to_a_reader_gone_ends_quietly(tmp_path, argv, stream):
    """`review-notes --help | true`, or a usage error `2>&1 | head -0`: argparse writes its
    text and raises SystemExit, which passed main's flush; Python's flush at exit met the
    broken pipe, printed "Exception ignored ... BrokenPipeError" and exited 120, where the
    sub-commands end quietly with 141 (a usage error's write argparse passes over itself,
    leaving the text buffered)."""
    import os
    import subprocess
    import sys

    from webhook_kit import base_env

    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    del env["PYTHONUNBUFFERED"]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    other = tmp_path / "other.txt"  # the stream whose reader is there
    try:
        with open(other, "wb") as there:
            cmd = [sys.executable, "-m", "bot.cli", *argv]
            streams = {"stdout": write, "stderr": there} if stream == "stdout" else {}
            streams = streams or {"stdout": there, "stderr": write}
            r = subprocess.run(cmd, env=env, cwd=tmp_path, **streams)
    finally:
        os.close(write)
    assert (r.returncode, other.read_text()) == (141, "")


# kills: bot/cli.py:main Ctrl-C ending a long command in a KeyboardInterrupt traceback
# kills: bot/cli.py:main (hand) Ctrl-C ending it with an exit code, not by the signal
def test_a_long_command_stopped_with_ctrl_c_ends_quietly_by_the_signal(tmp_path):
    """`review-notes match --batch PRS` interrupted at the terminal (Ctrl-C): a
    KeyboardInterrupt traceback of some twenty lines, where a shell's tools stop
    quietly, by the signal (a shell says 130), as Python ends itself after it."""
    import signal
    import subprocess
    import sys

    prs = tmp_path / "prs.jsonl"
    prs.write_text(
        "".join(
            json.dumps({"number": n, "title": f"[Frontend] change {n}"}) + "\n"
            for n in range(1, 20001)
        ),
        "utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "match", "--batch", str(prs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parent.parent,
        # as at a terminal: a suite run in the background (`pytest &`, nohup) ignores
        # SIGINT, and a child inherits that, running to its end (exit 0) when told
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert json.loads(proc.stdout.readline())["number"] == 1  # under way
    proc.send_signal(signal.SIGINT)
    proc.stdout.read()  # (a full pipe must not hold it up)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == -signal.SIGINT
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-800:]


# kills: bot/cli.py:main stdout flushed though it is None (AttributeError, a traceback)
def test_a_command_started_with_stdout_closed_runs_as_before(tmp_path):
    """`review-notes match ... >&-`: Python's stdout is None; print writes nothing."""
    import shlex
    import subprocess

    from webhook_kit import PY, base_env

    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    cmd = f"exec {shlex.join([PY, '-m', 'bot.cli', 'match', '--title', 'x', *SHIPPED])} >&-"
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "")


def test_without_library_flags_match_reads_the_servers_library(setup, capsys, monkeypatch):
    # the preview must show what the deployed bot would link: its notes, taxonomy and
    # weights (REVIEW_NOTES_*, .env), not the shipped seeds
    tmp_path, _ = setup
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REVIEW_NOTES_NOTES_DIR", str(tmp_path / "notes"))
    monkeypatch.setenv("REVIEW_NOTES_TOPICS_FILE", str(tmp_path / "topics.toml"))
    (tmp_path / ".env").write_text(f"REVIEW_NOTES_MATCHING_FILE={tmp_path / 'matching.toml'}\n")
    code, out, _ = run(capsys, "--title", "[Spec Decode] prefix caching for EAGLE drafts", "--json")
    assert code == 0
    assert [n["id"] for n in json.loads(out)["notes"]] == ["vllm-aaaa0001"]  # not a seed
    (tmp_path / "matching.toml").write_text(CONFIG.replace("4.0", "40.0"), "utf-8")
    code, out, _ = run(capsys, "--title", "[Spec Decode] prefix caching for EAGLE drafts", "--json")
    assert (code, json.loads(out)["notes"]) == (0, [])  # the server's threshold
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")  # the server would not start either
    code, _, err = run(capsys, "--title", "x")
    assert code == 2 and "configuration error" in err


# --- no terminal control sequence from a payload --------------------------------------


def test_match_prints_no_terminal_control_sequence_from_a_payload(tmp_path, capsys):
    # the PR's title and each reason (a path, a label) are the author's: an ESC in them
    # drove the curator's terminal (cursor up, line clear, an OSC 8 hyperlink, BEL)
    from webhook_kit import MATCHING_FILES, MATCHING_TITLE, pr_payload

    title = MATCHING_TITLE + "\x1b[1A\x1b[2K\x1b]8;;https://evil.example/\x07looks fine"
    path = tmp_path / "event.json"
    files = [*MATCHING_FILES, "vllm/compilation/x\x1b[2K.py"]
    path.write_text(json.dumps(pr_payload(title=title, files=files)))
    assert main(["match", "--payload", str(path), "--label", "ci\x07bell"]) == 0
    out = capsys.readouterr().out
    assert "looks fine" in out and "\\x1b[1A" in out  # shown, escaped
    assert "\x1b" not in out and "\x07" not in out, out


# --- payloads, batch lines and flags `match` cannot use: named, no traceback ----------

R16M_EXAMPLE = ROOT / "examples" / "pr-52419-opened.json"


@pytest.mark.parametrize(
    ("field", "value"),
    [("title", 52419), ("body", 7), ("labels", ["bug"]), ("labels", "bug")],
)
def test_match_payload_with_a_field_of_the_wrong_type_is_no_traceback(tmp_path, field, value):
    # A hand-edited payload (labels as names, as `gh` prints them; a number for a title):
    # AttributeError/TypeError tracebacks from prfacts, where a missing `repository` or a
    # bad `number` get "malformed pull_request payload: ...".
    payload = json.loads(R16M_EXAMPLE.read_text("utf-8"))
    payload["pull_request"][field] = value
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload), "utf-8")
    r = run_cli(tmp_path, "match", "--payload", str(path), *SHIPPED)
    clear_error(r, "event.json")


def test_match_batch_deeply_nested_line_is_skipped_not_a_traceback(tmp_path):
    # One line nesting JSON arrays 100,000 deep: RecursionError traceback, and every
    # line after it is never matched.
    batch = tmp_path / "prs.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    batch.write_text(
        '{"number": 1, "title": "ok"}\n'
        f'{{"number": 2, "title": "x", "extra": {deep}}}\n'
        '{"number": 3, "title": "ok"}\n',
        "utf-8",
    )
    r = run_cli(tmp_path, "match", "--batch", str(batch), *SHIPPED)
    assert "Traceback" not in r.stderr, r.stderr[-500:]
    assert r.returncode == 1 and f"{batch}:2:" in r.stderr
    numbers = [json.loads(line)["number"] for line in r.stdout.splitlines()]
    assert numbers == [1, 3]


def test_match_payload_nested_too_deep_names_the_file(tmp_path):
    path = tmp_path / "event.json"
    path.write_text('{"pull_request": ' + "[" * 100_000 + "]" * 100_000 + "}", "utf-8")
    r = run_cli(tmp_path, "match", "--payload", str(path), *SHIPPED)
    clear_error(r, "event.json", "nested too deep")


def test_match_batch_non_utf8_line_is_skipped_by_line_and_the_others_matched(tmp_path):
    # docs/matching.md: "A line of the wrong shape is skipped with its line number and field
    # (exit 1); the others are still matched." A scraped title in Latin-1 on line 2
    # refuses the whole file, naming a byte offset: PRs 1 and 3 are lost.
    batch = tmp_path / "prs.jsonl"
    batch.write_bytes(
        b'{"number": 1, "title": "ok"}\n'
        b'{"number": 2, "title": "caf\xe9"}\n'
        b'{"number": 3, "title": "ok"}\n'
    )
    r = run_cli(tmp_path, "match", "--batch", str(batch), *SHIPPED)
    assert r.returncode == 1
    assert f"{batch}:2:" in r.stderr, r.stderr
    numbers = [json.loads(line)["number"] for line in r.stdout.splitlines()]
    assert numbers == [1, 3], r.stdout


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ('"changed_files": "12"', "changed_files"),  # a string, as some exporters write
        ('"changed_files": -3', "changed_files"),
        ('"files": ["a.py"], "incidental": [{"path": "a.py"}]', "incidental"),
    ],
)
def test_match_batch_line_of_the_wrong_shape_names_its_field(tmp_path, extra, field):
    # docs/matching.md: a line of the wrong shape is skipped with its line number and field. A
    # changed_files the matcher cannot read is silently taken for "unknown" (the
    # tests-only and docs-only rules then never apply) and the line is matched, exit 0;
    # an object in `incidental` gives "unhashable type: 'dict'", no field.
    batch = tmp_path / "prs.jsonl"
    batch.write_text(f'{{"number": 1, "title": "ok", {extra}}}\n', "utf-8")
    r = run_cli(tmp_path, "match", "--batch", str(batch), *SHIPPED)
    assert r.returncode == 1, r.stdout
    assert f"{batch}:1:" in r.stderr and field in r.stderr, r.stderr


@pytest.mark.parametrize(
    "flags",
    [
        ["--payload", str(R16M_EXAMPLE), "--body-file", "BODY"],
        ["--payload", str(R16M_EXAMPLE), "--number", "7"],
        ["--payload", str(R16M_EXAMPLE), "--repo", "my-org/vllm-fork"],
        ["--batch", "BATCH", "--file", "vllm/v1/core/kv_cache_coordinator.py"],
        ["--batch", "BATCH", "--label", "bug"],
        ["--batch", "BATCH", "--body-file", "BODY"],
    ],
)
def test_match_refuses_flags_it_would_ignore(tmp_path, flags):
    # `--changed-files` with --payload or --batch is refused (exit 2, "goes with --title");
    # --body-file, --number and --repo with --payload, and --file, --label and --body-file
    # with --batch, are dropped without a word and the result printed with exit 0: the
    # curator believes the description or files were matched.
    body = tmp_path / "body.txt"
    body.write_text("Fixes the _align_cacheable bound of the partial-hash-hit path.\n")
    batch = tmp_path / "prs.jsonl"
    batch.write_text('{"number": 1, "title": "ok"}\n')
    args = [str(body) if a == "BODY" else str(batch) if a == "BATCH" else a for a in flags]
    r = run_cli(tmp_path, "match", *args, *SHIPPED)
    assert r.returncode == 2, r.stdout
    assert flags[2] in r.stderr, r.stderr


def test_match_payload_empty_or_truncated_file_names_the_file(tmp_path):
    # A payload saved from a failed `curl` (empty) or cut off: the error says
    # "Expecting value: line 1 column 1 (char 0)" and never which of the files it is.
    empty = tmp_path / "event.json"
    empty.write_text("")
    r = run_cli(tmp_path, "match", "--payload", str(empty), *SHIPPED)
    clear_error(r, "event.json")


@pytest.mark.parametrize("flag", ["--payload", "--body-file", "--files-from"])
def test_match_non_utf8_input_names_the_file(tmp_path, flag):
    # A description or file list saved in cp1252: "'utf-8' codec can't decode byte 0xe9
    # in position 4" names no file (three files may be on the command line).
    bad = tmp_path / "input.txt"
    bad.write_bytes(b'{"x": "caf\xe9"}\n' if flag == "--payload" else b"caf\xe9\n")
    args = [flag, str(bad)] if flag == "--payload" else ["--title", "t", flag, str(bad)]
    r = run_cli(tmp_path, "match", *args, *SHIPPED)
    clear_error(r, "input.txt")


def test_match_number_out_of_range_is_refused(tmp_path):
    # --changed-files is checked ("'0' is not a count of files"), --number is not:
    # "PR vllm-project/vllm -3" is printed as if it were one.
    r = run_cli(tmp_path, "match", "--title", "x", "--number", "-3", *SHIPPED)
    assert r.returncode == 2 and "--number" in r.stderr, r.stdout


# --- `match`'s inputs and outputs: labels, file lists, batches, JSON, encodings ---


# kills: bot/cli_match.py:_facts_from_payload_file `lb not in facts.labels` -> `lb in facts.labels`
def test_a_label_given_with_a_payload_is_added_to_the_prs_labels(setup, tmp_path, capsys):
    # `--payload event.json --label speculative-decoding`: how the PR matches once a
    # maintainer has labelled it
    _, flags = setup
    pull = {"number": 7, "title": "Fix the drafter's acceptance rate"}
    event = tmp_path / "event.json"
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    event.write_text(json.dumps(payload), "utf-8")
    code, out, _ = run(capsys, "--payload", str(event), "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == []
    label = ["--label", "speculative-decoding"]
    code, out, _ = run(capsys, "--payload", str(event), *label, "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == ["spec-decode"]


# kills: bot/given_paths.py:listed_files `ln.strip()` -> `ln` (a path keeps the spaces around it)
def test_files_from_a_list_pasted_with_spaces_around_its_paths(setup, tmp_path, capsys):
    _, flags = setup
    files = tmp_path / "files.txt"
    files.write_text("  vllm/v1/spec_decode/eagle.py \t\n", "utf-8")
    code, out, _ = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == ["spec-decode"]


# kills: bot/cli_match.py:_cmd_match a PR given by flags numbered 1, not 0
# kills: bot/cli_match.py:_print_match the number 0 printed: "PR vllm-project/vllm 0: ...",
#   as if the curator had matched a PR numbered 0
def test_a_pr_given_by_its_title_is_numbered_no_real_prs_number(setup, capsys):
    _, flags = setup
    code, out, _ = run(capsys, "--title", "[Frontend] New tool parser", *flags)
    assert code == 0 and out.splitlines()[0] == "PR vllm-project/vllm: [Frontend] New tool parser"
    # a PR numbered 1 is a real PR's number: not matched as its source PR's notes would be
    code, out, _ = run(capsys, "--title", "[Frontend] New tool parser", "--number", "1", *flags)
    assert code == 0 and out.splitlines()[0] == "PR vllm-project/vllm 1: [Frontend] New tool parser"


# kills: bot/cli_match.py:_match_batch a line without a number written "number": 0
def test_a_batch_line_without_a_number_is_written_with_a_null_number(setup, tmp_path, capsys):
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    prs.write_text(json.dumps({"title": "Docs"}) + "\n" + json.dumps({"number": 3}), "utf-8")
    code, out, _ = run(capsys, "--batch", str(prs), *flags)
    assert code == 0
    assert [json.loads(line)["number"] for line in out.splitlines()] == [None, 3]


# kills: bot/cli_match.py:_cmd_match and :_match_batch `ensure_ascii=False` -> `True`
def test_json_output_shows_chinese_as_written(setup, tmp_path, capsys):
    _, flags = setup
    path = "vllm/v1/spec_decode/草稿.py"  # a path, a keyword or a label may be Chinese
    title = "[Spec Decode] prefix caching"
    code, out, _ = run(capsys, "--title", title, "--file", path, "--json", *flags)
    reasons = json.loads(out)["notes"][0]["reasons"]
    assert code == 0 and any(path in r for r in reasons), reasons
    assert path in out and "\\u8349" not in out  # readable, not \u escapes
    prs = tmp_path / "prs.jsonl"  # a batch's lines too
    prs.write_text(json.dumps({"number": 1, "title": title, "files": [path]}) + "\n", "utf-8")
    code, out, _ = run(capsys, "--batch", str(prs), *flags)
    assert code == 0 and path in out and "\\u8349" not in out


# kills: bot/cli_match.py:_match_flags_problem the refusal names a batch line for a payload (and
# back)
def test_a_refused_flag_says_what_carries_the_prs_own(tmp_path, capsys):
    batch = tmp_path / "prs.jsonl"
    batch.write_text('{"number": 1, "title": "ok"}\n', "utf-8")
    code, _, err = run(capsys, "--payload", str(batch), "--number", "7")
    assert code == 2 and "--number goes with --title, not --payload: a payload says" in err
    code, _, err = run(capsys, "--batch", str(batch), "--label", "bug")
    assert code == 2 and "--label goes with --title, not --batch: a batch line says" in err


# kills: bot/cli_match.py:_match_batch `return 1` -> `return None` / `return 2` (a batch not read)
def test_a_batch_file_that_cannot_be_read_fails_naming_it(setup, tmp_path, capsys):
    _, flags = setup
    missing = tmp_path / "prs.jsonl"
    code, out, err = run(capsys, "--batch", str(missing), *flags)
    assert (code, out) == (1, "")
    assert err == f"{missing}: cannot read: No such file or directory\n"


# kills: bot/cli_match.py:_match_batch `if not line.strip()` -> `if not line`
def test_a_batch_line_of_spaces_only_is_skipped_quietly(setup, tmp_path, capsys):
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    prs.write_text('{"number": 1, "title": "Docs"}\n   \n\t\n', "utf-8")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, err) == (0, "") and [json.loads(x)["number"] for x in out.splitlines()] == [1]


# kills: bot/cli_match.py:add_match_parser `required=True` -> `required=False` (no PR: matched as
# empty)
def test_match_without_a_pr_is_refused_naming_the_ways_to_give_one(setup, capsys):
    _, flags = setup
    with pytest.raises(SystemExit) as exit_:
        main(["match", *flags])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "one of the arguments --title --payload --batch" in err, err


# kills: bot/cli.py:print_json `ensure_ascii=not _writes_unicode()` -> `False` (an emoji
# escaped by the stream, no JSON) and bot/cli.py:_escape_what_stdout_cannot_hold left out
def test_match_on_a_stdout_that_is_not_utf8_writes_escapes_and_json_stays_json(setup, tmp_path):
    """A terminal or file in another encoding (PYTHONIOENCODING=ascii here; a Latin-1
    locale, Windows' code page redirected to a file): the note's Chinese title is written
    escaped, not stopped by a UnicodeEncodeError traceback, and --json is still JSON."""
    _, flags = setup
    title = "[Spec Decode] prefix caching"
    path = "vllm/v1/spec_decode/草稿😀.py"  # an emoji: \U0001f600 is no JSON escape
    base = ["match", "--title", title, "--file", path, *flags]
    text = run_cli(tmp_path, *base, PYTHONIOENCODING="ascii")
    assert text.returncode == 0 and "Traceback" not in text.stderr, text.stderr
    assert "vllm-aaaa0001" in text.stdout and "\\u4fee\\u590d" in text.stdout  # 修复
    wanted = json.loads(run_cli(tmp_path, *base, "--json", PYTHONIOENCODING="utf-8").stdout)
    assert any(path in r for r in wanted["notes"][0]["reasons"]), wanted
    got = run_cli(tmp_path, *base, "--json", PYTHONIOENCODING="ascii")
    assert got.returncode == 0 and json.loads(got.stdout) == wanted, got.stderr
    prs = tmp_path / "prs.jsonl"  # a batch's lines too
    prs.write_text(json.dumps({"number": 1, "title": title, "files": [path]}) + "\n", "utf-8")
    batch = run_cli(tmp_path, "match", "--batch", str(prs), *flags, PYTHONIOENCODING="ascii")
    assert batch.returncode == 0 and json.loads(batch.stdout) == {"number": 1, **wanted}


# kills: bot/given_paths.py:given_path the ./ of a path kept (no note's path, no tests-only rule)
def test_files_named_from_the_current_directory_are_the_repositorys_paths(setup, tmp_path, capsys):
    """`find . -name ...` and the shell's completion write ./vllm/...; GitHub, and so the
    bot, name the same file vllm/...: the preview must match it as the bot does, on a
    note's path and with the tests-only rule."""
    _, flags = setup
    files = tmp_path / "files.txt"
    files.write_text("./vllm/v1/spec_decode/eagle.py\n", "utf-8")
    code, out, _ = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert code == 0 and json.loads(out)["topics"] == ["spec-decode"]
    given = ["--file", f"./{ELASTIC_TEST}", "--json"]
    code, out, _ = run(capsys, "--title", ELASTIC_TITLE, *given, *SHIPPED)
    assert code == 0 and json.loads(out)["notes"] == [], out  # tests only, as on the bot


# kills: bot/cli_match.py:_match_batch an array line called "not a JSON object" (as a number)
def test_a_batch_of_one_json_array_says_to_write_one_pr_a_line(setup, tmp_path, capsys):
    """`gh pr list --json number,title,body,labels,files > prs.jsonl` writes one array on
    one line: the curator is told how to make it one PR a line, not "not a JSON object"."""
    _, flags = setup
    prs = tmp_path / "prs.jsonl"
    prs.write_text('[{"number": 1, "title": "x"}, {"number": 2, "title": "y"}]\n7\n', "utf-8")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert code == 1 and out == ""
    assert f"{prs}:1: skipped: a JSON array, not one PR: one object a line (jq -c '.[]')" in err
    assert f"{prs}:2: skipped: not a JSON object" in err


# kills: bot/cli_match.py:_facts_from_payload_file a PR's own fields refused with no way on
def test_a_payload_holding_a_prs_own_fields_is_sent_to_batch(setup, tmp_path, capsys):
    """`gh pr view N --json number,title,... > pr.json` then --payload pr.json: refused, as
    no webhook payload, naming --batch, which reads it; a ping is only refused."""
    _, flags = setup
    pr = tmp_path / "pr.json"
    pr.write_text(json.dumps({"number": 7, "title": "[Spec Decode] prefix caching"}), "utf-8")
    code, out, err = run(capsys, "--payload", str(pr), *flags)
    assert (code, out) == (1, "") and "give it to --batch" in err and str(pr) in err, err
    code, out, err = run(capsys, "--batch", str(pr), *flags)
    assert code == 0 and json.loads(out)["notes"][0]["id"] == "vllm-aaaa0001", err
    ping = tmp_path / "ping.json"
    ping.write_text(json.dumps({"zen": "Keep it simple.", "hook_id": 1}), "utf-8")
    code, out, err = run(capsys, "--payload", str(ping), *flags)
    assert code == 1 and err == f"{ping}: not a pull_request webhook payload\n"


# kills: bot/cli_match.py:_match_batch `-` read as a file named - ("-: cannot read")
def test_a_batch_of_dash_is_read_from_stdin_and_its_lines_named(setup, tmp_path):
    """`gh pr list --json ... | jq -c '.[]' | review-notes match --batch -`."""
    import subprocess

    from webhook_kit import PY, base_env

    _, flags = setup
    lines = json.dumps({"number": 4, "title": "[Spec Decode] prefix caching"}) + "\n{bad\n"
    r = subprocess.run(
        [PY, "-m", "bot.cli", "match", "--batch", "-", *flags],
        input=lines,
        capture_output=True,
        text=True,
        env=base_env(tmp_path, PYTHONPATH=str(ROOT)),
        cwd=tmp_path,
    )
    assert r.returncode == 1 and r.stderr.startswith("-:2: skipped: "), r.stderr
    assert [n["id"] for n in json.loads(r.stdout)["notes"]] == ["vllm-aaaa0001"]


# --- git's name-status lines, renames, copies and absolute paths ----------------------


# kills: bot/given_paths.py:_listed a `git diff --name-status` line taken whole ("M\tvllm/x.py"
#   as the path: no note's path, no topic), or a rename's old path dropped
def test_files_from_reads_git_name_status_lines(setup, tmp_path, capsys):
    """`git diff --name-status main > files.txt`: each line a status, a tab, the path (a
    rename: R100, the old path, the new one). The paths are read; a rename's both, as
    GitHub's listing gives the bot both."""
    _, flags = setup
    files = tmp_path / "files.txt"
    files.write_text("M\tvllm/v1/spec_decode/eagle.py\nA\tREADME.md\n", "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"] == ["spec-decode"]
    files.write_text("R100\tvllm/v1/spec_decode/eagle.py\tvllm/old.py\n", "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"] == ["spec-decode"]
    files.write_text("R087\tdocs/old.md\tvllm/v1/spec_decode/eagle.py\n", "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"] == ["spec-decode"]


# kills: bot/cli_match.py:_facts_from_args a rename line counted as two changed files (its
#   two paths), where GitHub's changed_files and listing count it once
def test_a_rename_line_is_one_changed_file_of_two_paths(tmp_path):
    from bot.cli import build_parser
    from bot.cli_match import _facts_from_args

    files = tmp_path / "files.txt"
    files.write_text(f"M\t{ELASTIC_CODE}\nR090\ttests/old_test.py\t{ELASTIC_TEST}\n", "utf-8")
    args = build_parser().parse_args(["match", "--title", "x", "--files-from", str(files)])
    facts = _facts_from_args(args)
    assert facts.files == (ELASTIC_CODE, "tests/old_test.py", ELASTIC_TEST)
    assert (facts.changed_files, facts.file_count, facts.files_complete) == (2, 2, True)


# kills: bot/given_paths.py:_changed a copy's line (`git diff -C --name-status`: C075, the
#   source, the copy) read as a rename's, its unchanged source taken for a changed file
@pytest.mark.parametrize("status", ["C075", "C100", "C"])
def test_a_copy_line_is_its_new_path_alone(tmp_path, status):
    # `git diff -C` (or diff.renames=copies) lists a new file made from another as a copy:
    # the source stays as it was, so the PR changes the copy only; read as a rename's old
    # path, the source matched its notes (here Elastic EP's code) on a PR that left it as is
    listing = f"M\t{ELASTIC_TEST}\n{status}\t{ELASTIC_CODE}\tdocs/copy.py\n"
    facts = _files_from(listing, tmp_path)
    assert facts.files == (ELASTIC_TEST, "docs/copy.py")
    assert (facts.changed_files, facts.file_count, facts.listed_files) == (2, 2, None)
    # the same with -z: each status a field, the copy's two paths after it
    facts = _files_from(listing.replace("\t", "\0").replace("\n", "\0"), tmp_path)
    assert facts.files == (ELASTIC_TEST, "docs/copy.py") and facts.file_count == 2


# kills: bot/cli_match.py:_given_files an absolute path (/home/me/vllm/vllm/x.py) taken in
#   silence: it matches no note's path, and the preview said nothing of why
def test_an_absolute_path_is_warned_of_with_the_fix(setup, tmp_path, capsys):
    _, flags = setup
    path = "/home/me/vllm/vllm/v1/spec_decode/eagle.py"
    files = tmp_path / "files.txt"
    files.write_text(f"{path}\n", "utf-8")
    for given in (["--file", path], ["--files-from", str(files)]):
        code, out, err = run(capsys, "--title", "x", *given, "--json", *flags)
        assert code == 0 and json.loads(out)["topics"] == []
        assert f"{path}: an absolute path matches no note" in err, err
        assert "git diff --name-only" in err


# kills: bot/cli_match.py:_facts_from_payload_file a rename line given with --payload counted
#   as two files (its two paths): file_count feeds the share rules, so the preview could
#   differ from the bot's, which counts GitHub's listing (a rename one entry)
def test_a_rename_line_given_with_a_payload_is_one_file_as_the_bot_counts_it(tmp_path, capsys):
    pull = {"number": 9, "title": ELASTIC_TITLE, "changed_files": 2}
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), "utf-8")
    files = tmp_path / "files.txt"
    files.write_text(f"M\t{ELASTIC_CODE}\nR090\ttests/old_test.py\t{ELASTIC_TEST}\n", "utf-8")
    # the server: GitHub's listing, two entries holding three paths (sticky.py)
    paths = (ELASTIC_CODE, "tests/old_test.py", ELASTIC_TEST)
    server = replace(facts_from_payload(payload, paths), listed_files=2)
    from bot.cli import build_parser
    from bot.cli_match import _facts_from_args

    argv = ["match", "--payload", str(event), "--files-from", str(files)]
    preview = _facts_from_args(build_parser().parse_args(argv))
    assert (preview.files, preview.file_count) == (paths, server.file_count) == (paths, 2)
    code, out, _ = run(capsys, *argv[1:], "--json", *SHIPPED)
    assert code == 0 and cli_notes(out) == server_match(server)


# --- paths as a curator gives them ----------------------------------------------------


def _git(repo: Path, *argv: str) -> str:
    """git's own output in `repo`, with its defaults (core.quotePath on): no user's config."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a"}
    env |= {"GIT_COMMITTER_EMAIL": "a@x"}
    done = subprocess.run(["git", *argv], cwd=repo, env=env, capture_output=True, check=True)
    return done.stdout.decode("utf-8")


OLD = "vllm/v1/spec_decode/old.py"


def _checkout(tmp_path: Path) -> tuple[Path, list[str]]:
    """A git checkout whose work tree changes files named as git quotes them (a non-ASCII
    letter, a tab, a newline, a quote, a backslash, control characters) and renames
    OLD, staged; and what `git diff -z` lists changed (no quoting: the files' own names)."""
    repo = tmp_path / "checkout"
    where = repo / "vllm/v1/spec_decode"
    where.mkdir(parents=True)
    names = ["草稿.py", "ä b.py", "a\tb.py", "nl\nx.py", 'q"uote.py', "back\\slash.py"]
    names += ["del\x7f.py", "emoji😀.py", "bell\a.py", "b\bf\fr\rv\v.py", "plain.py"]
    for name in [*names, "old.py"]:
        (where / name).write_text(name, "utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    _git(repo, "mv", OLD, "vllm/v1/spec_decode/ü.py")
    for name in names:
        (where / name).write_text("changed", "utf-8")
    truth = _git(repo, "diff", "-z", "--name-only", "HEAD").split("\0")[:-1]
    assert len(truth) == len(names) + 1 and "vllm/v1/spec_decode/ü.py" in truth
    return repo, truth


def _files_from(listing: str, tmp_path: Path) -> PRFacts:
    from bot.cli import build_parser
    from bot.cli_match import _facts_from_args

    files = tmp_path / "files.txt"
    files.write_text(listing, "utf-8")
    argv = ["match", "--title", "x", "--files-from", str(files)]
    return _facts_from_args(build_parser().parse_args(argv))


# kills: bot/given_paths.py:_c_unquoted left out (git's "vllm/\303\244.py" taken with its
#   quotes and escapes: no note's path), or an escape decoded otherwise than git writes it
def test_files_from_reads_the_paths_git_quotes(setup, tmp_path, capsys):
    """`git diff --name-only` (and --name-status) put a path holding a non-ASCII letter, a
    tab, a newline, a quote or a backslash in C-style quotes with octal bytes: the path read
    is the file's own name, as `git diff -z` (no quoting) gives it, and as GitHub lists it."""
    _, flags = setup
    repo, truth = _checkout(tmp_path)
    listed = _git(repo, "diff", "--name-only", "HEAD")
    assert '"vllm/v1/spec_decode/\\303\\244 b.py"' in listed.splitlines()  # quoted, as said
    status = _git(repo, "diff", "--name-status", "-M", "HEAD")
    assert 'R100\tvllm/v1/spec_decode/old.py\t"vllm/v1/spec_decode/\\303\\274.py"' in status
    for listing, paths in ((listed, truth), (status, [OLD, *truth])):
        facts = _files_from(listing, tmp_path)
        assert sorted(facts.files) == sorted(paths) and facts.file_count == len(truth)
        assert capsys.readouterr().err == ""  # git's paths, a backslash one too: no warning
    files = tmp_path / "files.txt"
    files.write_text('"vllm/v1/spec_decode/\\350\\215\\211\\347\\250\\277.py"\r\n', "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"] == ["spec-decode"]


EAGLE = "vllm/v1/spec_decode/eagle.py"


# kills: bot/given_paths.py:path_problem a Windows absolute path, a '..' one, one with '\', a
#   URL, a '.' or empty name, an empty path taken in silence (only /home/... was named), or
#   named with the wrong fix
@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("C:\\src\\vllm\\vllm\\v1\\spec_decode\\eagle.py", "an absolute path matches no note"),
        ("c:/src/vllm/" + EAGLE, "an absolute path matches no note"),
        ("\\\\build\\share\\vllm\\" + EAGLE, "an absolute path matches no note"),
        ("../" + EAGLE, "a path through '..' is no path GitHub lists"),
        ("vllm/v1/../v1/spec_decode/eagle.py", "a path through '..' is no path GitHub lists"),
        ("..\\vllm\\v1\\spec_decode\\eagle.py", "a path through '..' is no path GitHub lists"),
        (
            ".\\vllm\\v1\\spec_decode\\eagle.py",
            "a path with '\\' between its names is no path GitHub lists",
        ),
        (
            "vllm\\v1\\spec_decode\\eagle.py",
            "a path with '\\' between its names is no path GitHub lists",
        ),
        (
            "https://github.com/vllm-project/vllm/blob/main/" + EAGLE,
            "a URL is no path GitHub lists",
        ),
        (
            "vllm/v1/./spec_decode/eagle.py",
            "a path with a '.' or an empty name in it is no path GitHub lists",
        ),
        (
            "vllm/v1/spec_decode//eagle.py",
            "a path with a '.' or an empty name in it is no path GitHub lists",
        ),
    ],
)
def test_a_path_github_never_lists_is_named_with_the_fix(setup, tmp_path, capsys, path, said):
    """The notes' globs are matched against GitHub's paths (from the repository root, '/'
    between names): each of these meets none of them, or only some, and the preview says
    why, not nothing."""
    _, flags = setup
    files = tmp_path / "files.txt"
    files.write_text(f"{path}\r\n", "utf-8")  # a list saved on Windows
    for given in (["--file", path], ["--files-from", str(files)]):
        code, _, err = run(capsys, "--title", "x", *given, "--json", *flags)
        assert code == 0 and err == (
            f"review-notes match: {path}: {said}: name it from the repository root"
            " (vllm/x.py), as `git diff --name-only` writes it\n"
        ), err


# kills: bot/given_paths.py:path_problem a directory (vllm/v1/spec_decode/) or an empty
#   --file taken in silence
def test_a_directory_or_an_empty_path_is_named(setup, capsys):
    """A directory matches a note naming it, but GitHub lists the files in it, which the
    tests-only rule and the notes' file globs are matched on; "$F" unset gives ''."""
    _, flags = setup
    code, out, err = run(capsys, "--title", "x", "--file", "vllm/v1/spec_decode/", *flags)
    assert code == 0 and "vllm/v1/spec_decode/: a directory is no changed file GitHub" in err
    assert "`git diff --name-only -- DIR` lists them" in err
    code, out, err = run(capsys, "--title", "x", "--file", "", *flags)
    assert code == 0 and err == "review-notes match: : an empty path matches no note\n"


# kills: bot/cli_match.py:_match_batch a line's files not checked (an absolute path, a
#   Windows one, git's quoted one written into JSON, matched in silence), named without the
#   line, or an author's escape sequence in one printed raw
def test_a_batch_lines_paths_github_never_lists_are_named_with_the_line(setup, tmp_path, capsys):
    _, flags = setup
    lines = [
        {"number": 1, "title": "[Spec Decode] prefix caching", "files": [EAGLE]},
        {"number": 2, "title": "x", "files": [EAGLE, f"/home/me/vllm/{EAGLE}"]},
        {"number": 3, "title": "x", "files": [{"path": "C:\\vllm\\x.py"}]},
        {"number": 4, "title": "x", "files": ['"vllm/\\303\\244.py"']},
        {"number": 5, "title": "x", "files": ["a\\\x1b[2Jb.py"]},  # an author's: printed inert
    ]
    prs = tmp_path / "prs.jsonl"
    prs.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert code == 0 and [json.loads(x)["number"] for x in out.splitlines()] == [1, 2, 3, 4, 5]
    assert err.splitlines() == [
        f"{prs}:2: /home/me/vllm/{EAGLE}: an absolute path matches no note: name it from"
        " the repository root (vllm/x.py), as `git diff --name-only` writes it",
        f"{prs}:3: C:\\vllm\\x.py: an absolute path matches no note: name it from"
        " the repository root (vllm/x.py), as `git diff --name-only` writes it",
        f'{prs}:4: "vllm/\\303\\244.py": a path in git\'s quotes is no path GitHub lists:'
        " `git diff -z --name-only` lists it unquoted",
        f"{prs}:5: a\\\\x1b[2Jb.py: a path with '\\' between its names is no path GitHub lists:"
        " name it from the repository root (vllm/x.py), as `git diff --name-only` writes it",
    ]


# kills: bot/given_paths.py:given_path a --file in git's quotes taken as it is, and
#   (_c_unquoted) bytes that are no UTF-8 stopping match with a traceback
def test_a_file_given_as_git_lists_it_is_decoded(setup, capsys):
    """`--file "$(git diff --name-only main | grep eagle)"`: the shell keeps git's quotes."""
    _, flags = setup
    quoted = '"vllm/v1/spec_decode/\\350\\215\\211\\347\\250\\277.py"'  # 草稿.py
    title = ["--title", "[Spec Decode] prefix caching"]
    code, out, err = run(capsys, *title, "--file", quoted, "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"][0] == "spec-decode"
    assert any("spec_decode/草稿.py" in r for r in json.loads(out)["notes"][0]["reasons"])
    latin1 = '"vllm/v1/spec_decode/caf\\351.py"'  # a name git holds in Latin-1 bytes
    code, out, err = run(capsys, *title, "--file", latin1, "--json", *flags)
    assert (code, err) == (0, "") and json.loads(out)["topics"][0] == "spec-decode"
    assert any("spec_decode/caf\ufffd.py" in r for r in json.loads(out)["notes"][0]["reasons"])


# kills: bot/given_paths.py:listed_files `git diff -z` output read as one line (one path
#   holding NULs: no note's path) or with its \r made \n, or (_listed_z) its --name-status
#   statuses taken for paths, a rename's new path dropped, a cut-off listing read
def test_files_from_reads_git_diff_z_output(tmp_path, capsys):
    """`git diff -z --name-only` (what a script uses to get git's paths unquoted) ends each
    path with a NUL, no newline; with --name-status each status is a field of its own, a
    rename's followed by both paths."""
    repo, truth = _checkout(tmp_path)
    facts = _files_from(_git(repo, "diff", "-z", "--name-only", "HEAD"), tmp_path)
    assert list(facts.files) == truth and facts.file_count == len(truth)
    status = _git(repo, "diff", "-z", "--name-status", "-M", "HEAD")
    assert f"R100\0{OLD}\0vllm/v1/spec_decode/ü.py\0" in status
    facts = _files_from(status, tmp_path)
    assert sorted(facts.files) == sorted([OLD, *truth]) and facts.file_count == len(truth)
    assert capsys.readouterr().err == ""  # git's own paths, a backslash one too
    files = tmp_path / "files.txt"  # a copy (-C) names both paths: its source is unchanged
    facts = _files_from(f"C075\0{OLD}\0{EAGLE}\0M\0README.md\0", tmp_path)
    assert facts.files == (EAGLE, "README.md") and facts.file_count == 2
    # a listing cut off, or two concatenated (-z --name-status, then -z --name-only)
    for cut in (f"M\0{EAGLE}\0R100\0{OLD}\0", f"M\0{EAGLE}\0D\0", f"M\0{EAGLE}\0{OLD}\0"):
        files.write_text(cut, "utf-8")
        code, out, err = run(capsys, "--title", "x", "--files-from", str(files))
        assert (code, out) == (1, "") and err == (
            f"{files}: field 3 ({cut.split(chr(0))[2]!r}): not `git diff -z --name-status`"
            " output: a status, then its path, a rename's two\n"
        )


# kills: bot/given_paths.py:listed_files a list with CR line ends (classic Mac OS; open()
#   reads them as lines, as --files-from did before it read -z listings) taken as one path
def test_files_from_with_carriage_returns_for_line_ends(tmp_path):
    facts = _files_from(f"{EAGLE}\r{OLD}\r", tmp_path)
    assert facts.files == (EAGLE, OLD) and facts.file_count == 2


# kills: bot/cli_match.py:_read_text and :_match_batch a UTF-16 file (Windows PowerShell
#   5.1's `>`) refused as not UTF-8, a batch's every line skipped
def test_files_windows_powershell_wrote_are_read(setup, tmp_path, capsys):
    """Windows PowerShell 5.1, Windows' own shell, writes `>` and Out-File as UTF-16 with a
    byte-order mark: `git diff --name-only > files.txt`, `gh pr list ... | jq -c '.[]' >
    prs.jsonl`, `gh pr view N --json body -q .body > body.md` on a Windows checkout."""
    _, flags = setup
    files, body = tmp_path / "files.txt", tmp_path / "body.md"
    for codec in ("utf-16-le", "utf-16-be"):  # as "Unicode" and "BigEndianUnicode"
        bom = "\ufeff".encode(codec)
        files.write_bytes(bom + f"README.md\r\n{EAGLE}\r\n".encode(codec))
        body.write_bytes(bom + "Keeps prefix caching for EAGLE.\r\n".encode(codec))
        given = ["--files-from", str(files), "--body-file", str(body), "--json"]
        code, out, err = run(capsys, "--title", "x", *given, *flags)
        assert (code, err) == (0, "") and json.loads(out)["topics"] == [
            "spec-decode",
            "prefix-caching",
        ], out
        prs = tmp_path / "prs.jsonl"
        line = {"number": 4, "title": "[Spec Decode] prefix caching", "files": [EAGLE]}
        prs.write_bytes(bom + (json.dumps(line) + "\r\n" + json.dumps(line) + "\r\n").encode(codec))
        code, out, err = run(capsys, "--batch", str(prs), *flags)
        assert (code, err) == (0, "") and [json.loads(x)["number"] for x in out.splitlines()] == [
            4,
            4,
        ]
    prs.write_bytes(prs.read_bytes()[:-1])  # cut at an odd byte: no UTF-16
    files.write_bytes(prs.read_bytes())
    odd = len(prs.read_bytes()) - 1  # the byte left over
    code, out, err = run(capsys, "--batch", str(prs), *flags)
    assert (code, out, err) == (1, "", f"{prs}: cannot read: not UTF-16 (byte {odd})\n")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, out, err) == (1, "", f"{files}: cannot read: not UTF-16 (byte {odd})\n")


def _match_stdin(tmp_path: Path, stdin: bytes, *argv: str):
    import subprocess

    from webhook_kit import PY, base_env

    return subprocess.run(
        [PY, "-m", "bot.cli", "match", *argv],
        input=stdin,
        capture_output=True,
        env=base_env(tmp_path, PYTHONPATH=str(ROOT)),
        cwd=tmp_path,
    )


# kills: bot/cli_match.py:_read_text `-` read as a file named - (--files-from, --body-file,
#   --payload: "-: cannot read: No such file or directory")
def test_files_from_body_file_and_payload_of_dash_are_read_from_stdin(setup, tmp_path):
    """`git diff --name-only main... | review-notes match --title ... --files-from -`, as
    `--batch -` reads gh's lines; `gh pr view N --json body -q .body | ... --body-file -`."""
    _, flags = setup
    title = ["--title", "x", "--json", *flags]
    done = _match_stdin(tmp_path, f"{EAGLE}\n".encode(), *title, "--files-from", "-")
    assert (done.returncode, done.stderr) == (0, b"") and json.loads(done.stdout)["topics"] == [
        "spec-decode"
    ]
    done = _match_stdin(tmp_path, b"Keeps prefix caching.\n", *title, "--body-file", "-")
    assert done.returncode == 0 and json.loads(done.stdout)["topics"] == ["prefix-caching"]
    pull = {"number": 9, "title": "[Spec Decode] prefix caching", "changed_files": 1}
    payload = {"pull_request": pull, "repository": {"full_name": "vllm-project/vllm"}}
    done = _match_stdin(tmp_path, json.dumps(payload).encode(), "--payload", "-", *flags)
    assert done.returncode == 0 and done.stdout.startswith(b"PR vllm-project/vllm 9: "), done


# kills: bot/cli_match.py:_match_flags_problem two files of - taken from one stdin (the
#   second read empty: a PR without its files or description, in silence)
def test_only_one_file_may_be_read_from_stdin(setup, tmp_path, capsys):
    _, flags = setup
    for given in (["--title", "x", "--body-file", "-"], ["--payload", "-"]):
        code, out, err = run(capsys, *given, "--files-from", "-", *flags)
        assert (code, out) == (2, "") and err == (
            f"{given[-2]} and --files-from both read -: stdin holds one of them\n"
        ), err


# kills: bot/given_paths.py:listed_files gh's JSON given to --files-from read as paths (one
#   line, or a pretty-printed object's lines: none a path, matched in silence)
def test_files_from_given_ghs_json_says_how_to_list_the_paths(setup, tmp_path, capsys):
    """`gh pr view N --json files > files.json` then --files-from files.json."""
    _, flags = setup
    files = tmp_path / "files.json"
    record = {"files": [{"path": EAGLE, "additions": 3, "deletions": 1}]}
    for text in (json.dumps(record), json.dumps(record, indent=2), json.dumps([EAGLE])):
        files.write_text(text + "\n", "utf-8")
        code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
        assert (code, out) == (1, "") and err == (
            f"{files}: JSON, not one path a line: `gh pr view N --json files --jq"
            " '.files[].path'` lists the paths (or give gh's JSON to --batch)\n"
        ), err
    # file names, not gh's JSON (one so deep json.loads gives up: no traceback)
    for names in ("[x].py\n{a}.py\n", "2024\n", "[" * 100_000 + "\n"):
        files.write_text(names, "utf-8")
        code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
        assert (code, err) == (0, "")


# kills: bot/given_paths.py:_other_listing `git show --name-only` or `git status --short`
#   output read as paths: its header lines counted as changed files (the tests-only and
#   share rules count them), its status letters kept on each path, in silence; a diff's
#   every line or --stat's taken for a path
def test_files_from_given_another_git_commands_output_says_which_lists_the_paths(
    setup, tmp_path, capsys
):
    _, flags = setup
    repo, _ = _checkout(tmp_path)
    _git(repo, "commit", "-qam", "Rename old.py\n\nThe body.")
    (repo / EAGLE).write_text("x", "utf-8")
    _git(repo, "add", EAGLE)
    (repo / "vllm/v1/spec_decode/草稿.py").write_text("changed again", "utf-8")
    (repo / "new.py").write_text("x", "utf-8")
    files = tmp_path / "files.txt"
    for argv, said in (
        (["diff", "HEAD"], "a diff"),
        (["diff", "--stat", "HEAD"], "`git diff --stat` output"),
        (["show", "--name-only", "HEAD"], "`git show` or `git log` output"),
        (["log", "--name-status", "-2"], "`git show` or `git log` output"),
        (["status", "--short"], "`git status --short` output"),
        (["status", "--porcelain"], "`git status --short` output"),
    ):
        files.write_text(_git(repo, *argv) + "  \n", "utf-8")  # a blank line pasted after
        code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
        assert (code, out) == (1, "") and err.startswith(f"{files}: {said}, not one path a line")
    files.write_text(f"{EAGLE}\nMM notes.txt\n", "utf-8")  # a name may look so, not all
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, err) == (0, "")
    files.write_text(_git(repo, "show", "--name-only", "--format=", "HEAD"), "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, err) == (0, "")
    files.write_text(_git(repo, "diff", "--name-only", "HEAD"), "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, err) == (0, "")


# kills: bot/given_paths.py:path_problem several paths in one --file (`--file "$(git diff
#   --name-only main...)"` on a PR of two files) taken in silence for one path
def test_a_file_holding_several_lines_is_named_with_the_fix(setup, tmp_path, capsys):
    _, flags = setup
    two = f"{EAGLE}\nREADME.md"
    code, out, err = run(capsys, "--title", "x", "--file", two, "--json", *flags)
    assert code == 0 and err == (
        "review-notes match: vllm/v1/spec_decode/eagle.py\\nREADME.md: a line break in a path:"
        " one path a --file; --files-from reads a list (-: stdin)\n"
    ), err
    files = tmp_path / "files.txt"  # git quotes a name holding one: no warning
    files.write_text('"vllm/nl\\nx.py"\n', "utf-8")
    code, out, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, err) == (0, "")


# kills: bot/given_paths.py:given_file_flag paths joined by commas in one --file taken in
#   silence for one path, or a name git quotes, a comma in a word or a list's line warned of
@pytest.mark.parametrize(
    "given",
    [
        f"{EAGLE},README.md",
        f"{EAGLE}, tests/x.py",
        f"{EAGLE},",
        f"{EAGLE}, ",
        f"{EAGLE},/home/me/x.py",
    ],
    ids=[
        "joined",
        "joined-with-a-space",
        "trailing-comma",
        "trailing-comma-and-space",
        "one-of-them-absolute",
    ],
)
def test_paths_joined_by_commas_in_one_file_flag_are_named(setup, capsys, given):
    """`--file a.py,b.py`, as other tools' flags take a list: one path, which matched no
    note and counted one file, in silence. It is still matched as given (a name may hold
    a comma)."""
    _, flags = setup
    code, out, err = run(capsys, "--title", "x", "--file", given, "--json", *flags)
    assert code == 0 and err == (
        f"review-notes match: {given}: a ',' in a path: one path a --file, no commas"
        " (--file a.py --file b.py)\n"
    ), err


def test_a_comma_git_quotes_or_in_a_word_or_in_a_listed_line_is_no_joined_path(
    setup, tmp_path, capsys
):
    _, flags = setup
    # git's own name; parts that name no file; a name a part of which names none
    for given in ['"vllm/a,\\303\\244.py"', "v0,v1", "x,", "docs/a,b"]:
        code, _, err = run(capsys, "--title", "x", "--file", given, *flags)
        assert (code, err) == (0, ""), given
    files = tmp_path / "files.txt"  # a listing names one path a line: a comma is the name's
    files.write_text(f"{EAGLE},README.md\n", "utf-8")
    code, _, err = run(capsys, "--title", "x", "--files-from", str(files), *flags)
    assert (code, err) == (0, "")


# --- a title typed without its quotes -------------------------------------------------


# kills: bot/cli.py:_parsed a title typed without its quotes left as 'unrecognized
#   arguments' with no word of the quotes, or another word left over said to be a title's
def test_a_title_typed_without_its_quotes_is_told_to_take_them(setup, capsys):
    # `review-notes match --title [Bugfix] Fix step3p5 reasoning`: the shell gives the
    # title's first word to --title, and argparse said only "unrecognized arguments: Fix
    # step3p5 reasoning", exit 2
    _, flags = setup
    with pytest.raises(SystemExit) as stop:
        main(["match", "--title", "[Bugfix]", "Fix", "it's", "--json", *flags])
    err = capsys.readouterr().err.splitlines()[-1]
    assert stop.value.code == 2 and err == (
        "review-notes: error: unrecognized arguments: Fix it's (a title of several words goes"
        """ in quotes: --title '[Bugfix] Fix it'"'"'s')"""
    )
    for argv in (["match", "--title", "x", "--frob"], ["notes", "check", "a", "b"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert (
            capsys.readouterr()
            .err.splitlines()[-1]
            .endswith(f"error: unrecognized arguments: {argv[-1]}")
        )


# kills: bot/cli.py:_title_rest a word left over that is not the title's (after a quoted title,
#   or after another flag's value) said to be the title's, to paste into it
@pytest.mark.parametrize(
    "argv",
    [
        ["--title", "[Bugfix] Fix x", "vllm/a.py"],  # quoted: a file given with no --file
        ["--title", "Fix", "--file", "a.py", "b.py"],  # two files after one --file
        ["--file", "Fix", "--title", "x", "--json", "y"],  # not right after the title
    ],
    ids=["quoted-title", "after-file", "after-json"],
)
def test_a_word_left_over_that_is_not_the_titles_is_not_put_in_it(setup, capsys, argv):
    _, flags = setup
    with pytest.raises(SystemExit) as stop:
        main(["match", *argv, *flags])
    err = capsys.readouterr().err.splitlines()[-1]
    assert stop.value.code == 2
    assert err == f"review-notes: error: unrecognized arguments: {argv[-1]}"
    with pytest.raises(SystemExit):  # its --title=x form, the words after it the title's
        main(["match", "--title=[Bugfix]", "Fix", "x", "--file", "a.py", "b.py", *flags])
    assert capsys.readouterr().err.splitlines()[-1] == (
        "review-notes: error: unrecognized arguments: Fix x b.py (a title of several words"
        " goes in quotes: --title '[Bugfix] Fix x')"
    )


# kills (hand mutant): bot/cli.py:_parsed the command line (sys.argv, main's argv left None)
#   not read for the title's words, so the console script never gave the hint
def test_the_title_hint_reads_the_command_line_itself(setup, capsys, monkeypatch):
    _, flags = setup
    argv = ["review-notes", "match", "--title", "[Bugfix]", "Fix", "x", *flags]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit):
        main()
    assert (
        capsys.readouterr()
        .err.splitlines()[-1]
        .endswith("(a title of several words goes in quotes: --title '[Bugfix] Fix x')")
    )


# --- --version ------------------------------------------------------------------------


def test_version_names_the_installed_release(capsys):
    """`review-notes --version` prints the version the package was installed as (a bug
    report names it) and exits 0, with no sub-command."""
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"review-notes {version('review-notes')}\n"


# --- `match`'s repository and settings ------------------------------------------------


# kills: bot/cli.py:server_library (hand) `match`'s repository left vllm-project/vllm when
#   --repo is not given: an install for another repository matched none of its notes
def test_match_without_repo_is_of_the_repository_the_server_is_for(setup, capsys, monkeypatch):
    # An operator who set REVIEW_NOTES_REPOS=acme/widgets previewed a PR with `match
    # --title ...` and was told no note reaches the threshold: the PR was taken for
    # vllm-project/vllm's, and the install's notes are all of acme/widgets
    tmp_path, flags = setup
    note = tmp_path / "notes" / "vllm-aaaa0001.md"
    note.write_text(NOTE.replace('"vllm-project/vllm"', '"Acme/Widgets"'), "utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REVIEW_NOTES_REPOS", "acme/widgets,vllm-project/vllm")
    title = "[Spec Decode] prefix caching for EAGLE drafts"
    code, out, _ = run(capsys, "--title", title, "--json", *flags)
    assert code == 0 and [n["id"] for n in json.loads(out)["notes"]] == ["vllm-aaaa0001"]
    code, out, _ = run(capsys, "--title", title, *flags)
    assert out.splitlines()[0] == f"PR acme/widgets: {title}"
    # a --repo given is the PR's, whatever the server is for
    code, out, _ = run(capsys, "--title", title, "--repo", "vllm-project/vllm", "--json", *flags)
    assert (code, json.loads(out)["notes"]) == (0, [])


# kills: bot/cli.py:server_library (mutation tool) the settings read though every flag is
#   given: a match naming its library, weights and repository stopped on a server's
#   configuration it reads nothing of
def test_match_given_every_default_reads_no_settings(setup, capsys, monkeypatch):
    _, flags = setup
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")
    title = "[Spec Decode] prefix caching for EAGLE drafts"
    code, out, err = run(capsys, "--title", title, "--repo", "vllm-project/vllm", *flags)
    assert (code, err) == (0, "") and out.startswith(f"PR vllm-project/vllm: {title}")
    # without --repo, the server's is read: its configuration error is said
    code, _, err = run(capsys, "--title", title, *flags)
    assert code == 2 and "configuration error" in err


@pytest.mark.parametrize(
    ("title", "badge", "said"),
    [
        (
            "[Warmup] Show CuTeDSL compilation progress",
            "background",
            "Background (linked by topic only; rated Deep read)",
        ),
        ("[Warmup] Add DeepGEMM warmup for FP8 kernels", "deep", "Deep read"),
    ],
    ids=["tag-only", "named"],
)
def test_the_preview_says_the_badge_the_comment_shows(capsys, title, badge, said):
    # The comment badges a note linked on its topics alone (here the title's tag) Background,
    # its verdict after it; the preview still printed "Deep read", the badge the bot no
    # longer posts. JSON keeps `verdict` the curators' and adds the badge shown.
    facts = PRFacts(repo="vllm-project/vllm", number=48881, title=title)
    library = load_library(DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE)
    result = match_pr(facts, library, checked_match_config(library, DEFAULT_MATCHING_FILE))
    comment = render(result, library, opts=RenderOptions())
    assert ("**Background**" in comment) is (badge == "background")
    code, out, _ = run(capsys, "--title", title, "--number", "48881", *SHIPPED)
    assert code == 0
    assert out.splitlines()[1].startswith(f"1. vllm-d1bdb5d7  {said}  score "), out
    code, out, _ = run(capsys, "--title", title, "--json", *SHIPPED)
    [entry] = json.loads(out)["notes"]
    assert (entry["id"], entry["verdict"], entry["badge"]) == ("vllm-d1bdb5d7", "deep", badge)

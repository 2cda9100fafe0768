"""`review-notes notes check` and load_library: every defect, its exact message and line."""

from __future__ import annotations

import ast
import dataclasses
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import toml_lines
from bot.cli import main
from bot.importer import derive_verdict
from bot.library import (
    DEFAULT_NOTES_DIR,
    DEFAULT_TOPICS_FILE,
    ROOT,
    UNKNOWN_TOPIC_FIX,
    check_library,
    load_library,
)
from bot.match_config import DEFAULT_MATCHING_FILE, checked_match_config, load_match_config
from bot.matching import match_pr
from bot.note_files import LibraryError
from bot.notes import Verdict
from bot.notes_lint import broad_glob, common_keywords, untranslated_lines
from bot.prfacts import PRFacts
from bot.similarity import Vocabulary
from bot.terms import TermIndex
from bot.toml_errors import set_twice, table_twice

TOPICS = DEFAULT_TOPICS_FILE
# what an unknown topic (no misspelling of one) and an unknown field (no misspelling of
# one) are told to do
NO_SUCH_TOPIC = f"; {UNKNOWN_TOPIC_FIX}"
INVISIBLE_TITLE = "holds only invisible characters (U+200B first), which no title shows: write it"
NO_SUCH_FIELD = (
    "; a note's fields are id, retired, formerly, repo, source_pr, read_with, issues,"
    " verdict, topics, keywords, aspects, paths, title_zh, title_en, summary_en, created,"
    " updated, source: rename it to one, or delete it"
)

VALID = """\
+++
id = "vllm-test0001"
repo = "vllm-project/vllm"
source_pr = 52401
verdict = "deep"
topics = ["cuda-graphs", "rocm"]
keywords = ["eager_break_during_capture"]
paths = ["vllm/models/deepseek_v4/attention.py"]
title_zh = "按 runner 选择 eager 区域"
title_en = "Pick the eager region per model runner"
summary_en = "Shows how a function pointer picks the eager region."
created = 2026-08-14
updated = 2026-12-02
+++
值得精读。正文。
"""


# what a copy of a note under another id (or its id unchanged) is told at its title_zh
SAME_NOTE = (
    "(same repo and title_zh, what a note is known by): keep one file, or give a new note its"
    " own PR's Chinese title"
)


def write(directory: Path, text: str, name: str = "vllm-test0001.md") -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def problems_of(notes_dir: Path, topics: Path = TOPICS) -> list[str]:
    library, problems = check_library(notes_dir, topics)
    assert (library is None) == bool(problems)
    return [str(p) for p in problems]


def line_at(path: Path, line: int) -> str:
    return path.read_text("utf-8").split("\n")[line - 1]


def line_number(path: Path, start: str) -> int:
    return next(
        i for i, s in enumerate(path.read_text("utf-8").split("\n"), 1) if s.startswith(start)
    )


def test_valid_note_has_no_problems(tmp_path):
    write(tmp_path, VALID)
    assert problems_of(tmp_path) == []
    assert [n.id for n in load_library(tmp_path, TOPICS).notes] == ["vllm-test0001"]


# (replace this, with that) -> (line, field, message); the line is checked against the text.
NOTE_DEFECTS = [
    pytest.param(
        ('topics = ["cuda-graphs", "rocm"]', 'topics = ["cuda-graph", "rocm"]'),
        (
            6,
            "topics",
            f"unknown topic 'cuda-graph': no topic has this id in {TOPICS};"
            " did you mean 'cuda-graphs'?",
        ),
        id="unknown-topic",
    ),
    pytest.param(
        ('topics = ["cuda-graphs", "rocm"]', 'topics = [\n  "rocm",\n  "no-such-topic",\n]'),
        (
            8,
            "topics",
            f"unknown topic 'no-such-topic': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}",
        ),
        id="unknown-topic-in-multiline-array-points-at-element",
    ),
    # two topics typed in one string, as a Chinese input method separates them, were told
    #   "did you mean 'cuda-graphs'?", the first alone
    pytest.param(
        ('topics = ["cuda-graphs", "rocm"]', 'topics = ["cuda-graphs，rocm"]'),
        (
            6,
            "topics",
            f"unknown topic 'cuda-graphs，rocm': no topic has this id in {TOPICS}; it joins"
            " topics with '，' (U+FF0C FULLWIDTH COMMA): write each as a string of its own,"
            ' ["cuda-graphs", "rocm"]',
        ),
        id="two-topics-in-one-string",
    ),
    # a keyword written as a regular expression matched by its words, silently another
    #   term: `(prefix|cache)` as the phrase "prefix cache", never either word alone
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["(eager_break|capture)"]'),
        (
            7,
            "keywords",
            "'(eager_break|capture)' is written as a regular expression ('|'); a term is"
            " matched as words, not as a pattern: write each alternative as a term of its"
            ' own, ["eager_break", "capture"]',
        ),
        id="keyword-as-regex-alternatives",
    ),
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["^eager.*capture$"]'),
        (
            7,
            "keywords",
            "'^eager.*capture$' is written as a regular expression ('^'); a term is matched"
            " as words, not as a pattern: write the words a PR's text has, as 'eager capture'",
        ),
        id="keyword-as-regex-wildcard",
    ),
    # a field's name in another case or misspelt was also "missing" (on line 1): two
    #   problems for one mistake, one of them not where it is
    pytest.param(
        ('verdict = "deep"', 'Verdict = "deep"'),
        (5, "Verdict", "unknown field; did you mean 'verdict'?"),
        id="field-in-capitals",
    ),
    pytest.param(
        ("title_en =", "title-en ="),
        (10, "title-en", "unknown field; did you mean 'title_en'?"),
        id="field-misspelt-a-curated-one",
    ),
    pytest.param(
        ('topics = ["cuda-graphs", "rocm"]', "topics = []"),
        (6, "topics", "list at least one topic id from the taxonomy"),
        id="no-topics",
    ),
    pytest.param(
        ('title_zh = "按 runner 选择 eager 区域"\n', ""),
        (
            13,
            "title_zh",
            'missing required field: write title_zh = "...", the original Chinese title on'
            " one line",
        ),
        id="missing-title",
    ),
    pytest.param(  # a field left out was "missing required field", nothing of what to write
        ('repo = "vllm-project/vllm"\n', ""),
        (
            13,
            "repo",
            'missing required field: write repo = "vllm-project/vllm", the PR\'s repository',
        ),
        id="missing-repo",
    ),
    pytest.param(
        ('topics = ["cuda-graphs", "rocm"]\n', ""),
        (
            13,
            "topics",
            'missing required field: write topics = ["prefix-caching"], one or more topic ids'
            " from the taxonomy",
        ),
        id="missing-topics",
    ),
    pytest.param(  # the guidance states it: that one
        ('verdict = "deep"\n', ""),
        (
            13,
            "verdict",
            'missing required field: write verdict = "deep": the guidance says 值得精读',
        ),
        id="missing-verdict",
    ),
    pytest.param(
        ('id = "vllm-test0001"\n', ""),
        (13, "id", 'missing required field: write id = "vllm-test0001", the file\'s name'),
        id="missing-id",
    ),
    pytest.param(
        ('title_zh = "按 runner 选择 eager 区域"', 'title_zh = "  "'),
        (9, "title_zh", "must not be empty"),
        id="blank-title",
    ),
    pytest.param(
        ('title_en = "Pick the eager region per model runner"\n', ""),
        (
            13,
            "title_en",
            'missing required field: write title_en = "...", a one-line English title',
        ),
        id="missing-english-title",
    ),
    pytest.param(
        ('title_en = "Pick the eager region per model runner"', 'title_en = "two\\nlines"'),
        (10, "title_en", "a title is one line"),
        id="two-line-title",
    ),
    # a tab pasted in a title passed, and `match` printed it raw
    pytest.param(
        (
            'title_en = "Pick the eager region per model runner"',
            'title_en = "Pick the\teager region"',
        ),
        (10, "title_en", "holds a tab (U+0009), which a title prints as typed: type a space"),
        id="tab-in-title",
    ),
    pytest.param(  # typed as TOML's escape, `\t`, it is the same tab
        ('title_zh = "按 runner 选择 eager 区域"', 'title_zh = "按 runner\\t选择"'),
        (9, "title_zh", "holds a tab (U+0009), which a title prints as typed: type a space"),
        id="escaped-tab-in-chinese-title",
    ),
    pytest.param(
        ('title_en = "Pick the eager region per model runner"', 'title_en = "Pick\\u0007 it"'),
        (10, "title_en", "holds U+0007, a control character no title shows: delete it"),
        id="control-character-in-title",
    ),
    # a title of zero-width characters alone passed, and the comment showed `**1. **`
    pytest.param(
        ('title_en = "Pick the eager region per model runner"', 'title_en = "\\u200b"'),
        (10, "title_en", INVISIBLE_TITLE),
        id="invisible-title",
    ),
    pytest.param(
        ('title_zh = "按 runner 选择 eager 区域"', 'title_zh = " \\u200b\\ufeff"'),
        (9, "title_zh", INVISIBLE_TITLE),
        id="invisible-chinese-title",
    ),
    pytest.param(
        (
            'summary_en = "Shows how a function pointer picks the eager region."',
            'summary_en = "\\u200b"',
        ),
        (11, "summary_en", INVISIBLE_TITLE.replace("title", "summary")),
        id="invisible-summary",
    ),
    # a summary took a tab or a control character a title refuses
    pytest.param(
        (
            'summary_en = "Shows how a function pointer picks the eager region."',
            'summary_en = "Shows how\\ta function pointer picks it."',
        ),
        (11, "summary_en", "holds a tab (U+0009), which a summary prints as typed: type a space"),
        id="tab-in-summary",
    ),
    pytest.param(
        (
            'summary_en = "Shows how a function pointer picks the eager region."',
            'summary_en = "Shows how\\u001b[0m it picks."',
        ),
        (11, "summary_en", "holds U+001B, a control character no summary shows: delete it"),
        id="control-character-in-summary",
    ),
    pytest.param(
        ('summary_en = "Shows how a function pointer picks the eager region."', 'summary_en = ""'),
        (
            11,
            "summary_en",
            'required field left blank: write summary_en = "...", a one- or two-sentence'
            " English summary",
        ),
        id="empty-english-summary",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = "must-read"'),
        (5, "verdict", "bad verdict 'must-read'; use one of: deep, quick, skip"),
        id="bad-verdict",
    ),
    # kills: bot/note_files.py:_bad_verdict a verdict written as the comment or the guidance
    #   says it (`Quick read`, `值得快速阅读`, `Deep`) not told the value it is
    pytest.param(
        ('verdict = "deep"', 'verdict = "Quick read"'),
        (
            5,
            "verdict",
            "bad verdict 'Quick read'; use one of: deep, quick, skip ('Quick read' is 'quick')",
        ),
        id="verdict-as-its-label",
    ),
    # its label written as an identifier, `deep-read` or `Quick_read`, was "use one of" alone
    pytest.param(
        ('verdict = "deep"', 'verdict = "deep-read"'),
        (
            5,
            "verdict",
            "bad verdict 'deep-read'; use one of: deep, quick, skip ('deep-read' is 'deep')",
        ),
        id="verdict-as-its-label-hyphenated",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = "Quick_read"'),
        (
            5,
            "verdict",
            "bad verdict 'Quick_read'; use one of: deep, quick, skip ('Quick_read' is 'quick')",
        ),
        id="verdict-as-its-label-with-underscore",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = " Deep"'),
        (5, "verdict", "bad verdict ' Deep'; use one of: deep, quick, skip (' Deep' is 'deep')"),
        id="verdict-in-capitals",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = "不需要精读"'),
        (
            5,
            "verdict",
            "bad verdict '不需要精读'; use one of: deep, quick, skip ('不需要精读' is 'skip')",
        ),
        id="verdict-in-chinese",
    ),
    # a verdict's Chinese words with a space, in Traditional characters or one character
    #   mistyped were only "use one of": the words meant, and the value they are
    pytest.param(
        ('verdict = "deep"', 'verdict = "值得 精读"'),
        (
            5,
            "verdict",
            "bad verdict '值得 精读'; use one of: deep, quick, skip ('值得 精读' reads as"
            " 值得精读, 'deep')",
        ),
        id="verdict-in-chinese-with-a-space",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = "值得快速閱讀"'),
        (
            5,
            "verdict",
            "bad verdict '值得快速閱讀'; use one of: deep, quick, skip ('值得快速閱讀' reads as"
            " 值得快速阅读, 'quick')",
        ),
        id="verdict-in-traditional-chinese",
    ),
    pytest.param(
        ('verdict = "deep"', 'verdict = "值得精度"'),
        (
            5,
            "verdict",
            "bad verdict '值得精度'; use one of: deep, quick, skip ('值得精度' reads as"
            " 值得精读, 'deep')",
        ),
        id="verdict-in-chinese-mistyped",
    ),
    # a verdict in brackets was "bad verdict ['deep']", Python's way of writing a list
    pytest.param(
        ('verdict = "deep"', 'verdict = ["deep"]'),
        (5, "verdict", '["deep"] is a list: write the verdict alone, as "deep"'),
        id="verdict-in-brackets",
    ),
    # kills: bot/note_files.py:_bad_verdict a verdict that is no text given no message
    pytest.param(
        ('verdict = "deep"', "verdict = 1"),
        (5, "verdict", "bad verdict 1; use one of: deep, quick, skip"),
        id="verdict-a-number",
    ),
    pytest.param(
        ('paths = ["vllm/models/deepseek_v4/attention.py"]', 'paths = ["vllm/ok.py", "vllm/[abc"]'),
        (
            8,
            "paths",
            "bad glob 'vllm/[abc': unclosed '[' at position 6: '[' starts a class of"
            " characters, as in '[abc]': close it with ']', or write '[[]' for a '[' in a"
            " file's name",
        ),
        id="bad-glob",
    ),
    pytest.param(
        ('paths = ["vllm/models/deepseek_v4/attention.py"]', 'paths = [\n  "a.py",\n  "!b.py",\n]'),
        (
            10,
            "paths",
            "bad glob '!b.py': negation ('!') is not supported; list the paths that should match",
        ),
        id="bad-glob-in-multiline-array-points-at-element",
    ),
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["xyz", " padded"]'),
        (7, "keywords", "' padded' has leading or trailing whitespace"),
        id="padded-keyword",
    ),
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["C++"]'),
        (
            7,
            "keywords",
            "'C++' matches by its letters and digits only, 'C': too short to name anything"
            " (spell it out, e.g. 'C++ extension' or 'cpp')",
        ),
        id="keyword-of-one-letter-and-symbols",
    ),
    pytest.param(  # the C++ hint does not fit a plain letter
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["a"]'),
        (7, "keywords", "'a' is one character: too short to name anything"),
        id="keyword-of-one-letter",
    ),
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["MRV1", "mrv1"]'),
        (7, "keywords", "'mrv1' is listed twice"),
        id="duplicate-keyword",
    ),
    pytest.param(
        (
            'keywords = ["eager_break_during_capture"]',
            'keywords = ["xyz"]\naspects = ["eager", "Eager"]',
        ),
        (8, "aspects", "'Eager' is listed twice"),
        id="duplicate-aspect",
    ),
    pytest.param(
        ('keywords = ["eager_break_during_capture"]', 'keywords = ["xyz"]\naspects = "eager"'),
        (8, "aspects", '"eager" is not a list: write one, as ["eager"]'),
        id="aspects-not-a-list",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 52401\nread_with = [38390, 38390]"),
        (5, "read_with", "38390 is listed twice"),
        id="duplicate-read-with",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 52401\nread_with = [0]"),
        (5, "read_with", "0 is no PR number: they start at 1"),
        id="read-with-not-a-pr-number",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 52401\nissues = [53573, 53573]"),
        (5, "issues", "53573 is listed twice"),
        id="duplicate-issue",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 52401\nread_with = [52401]"),
        (
            5,
            "read_with",
            "52401 is the source PR, which gets the note anyway: drop it from read_with",
        ),
        id="read-with-the-source-pr",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 52401\nread_with = [49994]\nissues = [49994]"),
        (
            6,
            "issues",
            "49994 is also in read_with (a PR to read), not an issue: keep it in one list,"
            " issues if it is an issue the source PR fixes, read_with if it is a PR",
        ),
        id="issue-also-read-with",
    ),
    pytest.param(
        ("值得精读。正文。\n", "   \n"),
        (15, "guidance", "must not be empty"),
        id="blank-guidance",
    ),
    pytest.param(
        ("值得精读。正文。\n", ""),
        (15, "guidance", "must not be empty"),
        id="no-guidance",
    ),
    pytest.param(
        ("source_pr = 52401", "source_pr = 0"),
        (4, "source_pr", "0 is no PR number: they start at 1"),
        id="bad-source-pr",
    ),
    pytest.param(
        ('repo = "vllm-project/vllm"', 'repo = "vllm"'),
        (3, "repo", '"vllm" is not a repository: write owner/name, as vllm-project/vllm'),
        id="bad-repo",
    ),
    pytest.param(
        ("updated = 2026-12-02", "updated = 2026-01-02"),
        (
            13,
            "updated",
            "2026-01-02 is before created (2026-08-14): created is the PR's creation date,"
            " updated the day the note last changed; correct the one that is wrong",
        ),
        id="updated-before-created",
    ),
    pytest.param(
        ("created = 2026-08-14", 'created = 2026-08-14\nreviewer = "x"'),
        (13, "reviewer", "unknown field" + NO_SUCH_FIELD),
        id="unknown-field",
    ),
    pytest.param(  # a table: on its own line (`Header` knew only `key =` lines: line 1)
        ("updated = 2026-12-02", "updated = 2026-12-02\n[links]\nx = 1"),
        (14, "links", "unknown field" + NO_SUCH_FIELD),
        id="table-in-header",
    ),
    pytest.param(  # a quoted key, and a `key =` line inside a multi-line string is text
        ("source_pr = 52401", 'source_pr = 52401\n"notes" = """\nverdict = 1\n"""'),
        (5, "notes", "unknown field" + NO_SUCH_FIELD),
        id="quoted-key-and-key-line-in-a-string",
    ),
    pytest.param(
        ("created = 2026-08-14", 'created = 2026-08-14\nguidance = "x"'),
        (13, "guidance", "the guidance is the body after the header, not a field"),
        id="guidance-as-field",
    ),
    pytest.param(
        ('id = "vllm-test0001"', 'id = "vllm-other"'),
        (2, "id", "file name must be 'vllm-other.md' (the importer finds notes by it)"),
        id="file-name-not-id",
    ),
    pytest.param(  # the file's name copied whole: `vllm-test0001.md.md` would be no fix
        ('id = "vllm-test0001"', 'id = "vllm-test0001.md"'),
        (2, "id", 'an id is the file\'s name without .md: write id = "vllm-test0001"'),
        id="id-with-the-files-suffix",
    ),
    pytest.param(  # pasted from a web page: a PR's title has a plain space
        ('"eager_break_during_capture"', '"eager break\u00a0during capture"'),
        (
            7,
            "keywords",
            "'eager break\\xa0during capture' holds U+00A0 (NO-BREAK SPACE) where a PR's text"
            " has a plain space: write a plain space",
        ),
        id="no-break-space-in-keyword",
    ),
    pytest.param(
        ('"eager_break_during_capture"', '"eager_break\u200b_during_capture"'),
        (
            7,
            "keywords",
            "'eager_break\\u200b_during_capture' holds U+200B (ZERO WIDTH SPACE), invisible"
            " and absent from a PR's text: delete it",
        ),
        id="zero-width-space-in-keyword",
    ),
    # A Chinese input method types `、` between two terms and full-width letters and
    # punctuation: as for U+3000, a PR's text never holds them
    pytest.param(
        ('"eager_break_during_capture"', '"eager_break_during_capture、eager region"'),
        (
            7,
            "keywords",
            "'eager_break_during_capture、eager region' holds '、' (U+3001 IDEOGRAPHIC COMMA),"
            ' a Chinese list separator: write one term per string, ["eager_break_during_capture",'
            ' "eager region"]',
        ),
        id="enumeration-comma-in-keyword",
    ),
    pytest.param(
        (
            'keywords = ["eager_break_during_capture"]',
            'keywords = ["eager_break_during_capture"]\naspects = ["ＣＵＤＡ graph"]',
        ),
        (
            8,
            "aspects",
            "'ＣＵＤＡ graph' holds 'Ｃ' (U+FF23 FULLWIDTH LATIN CAPITAL LETTER C), typed by a"
            " Chinese input method for 'C', which a PR's text has instead: write 'CUDA graph'",
        ),
        id="full-width-letters-in-aspect",
    ),
    pytest.param(
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm/models/deepseek_v4/，vllm/compilation/"'),
        (
            8,
            "paths",
            "'vllm/models/deepseek_v4/，vllm/compilation/' holds '，' (U+FF0C FULLWIDTH COMMA), a"
            ' Chinese list separator: write one path per string, ["vllm/models/deepseek_v4/",'
            ' "vllm/compilation/"]',
        ),
        id="full-width-comma-in-path",
    ),
    pytest.param(
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm/models/deepseek_v4/attention\u3000.py"'),
        (
            8,
            "paths",
            "'vllm/models/deepseek_v4/attention\\u3000.py' holds U+3000 (IDEOGRAPHIC SPACE) where"
            " a PR's text has a plain space: write a plain space",
        ),
        id="ideographic-space-in-path",
    ),
    pytest.param(  # it passed, and matched no file
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm/models/deepseek_v4/\tattention.py"'),
        (
            8,
            "paths",
            "bad glob 'vllm/models/deepseek_v4/\\tattention.py': holds a tab (U+0009), which"
            " no file's path holds: delete it",
        ),
        id="tab-in-path",
    ),
    # a path copied from Windows was "header: malformed TOML:
    # Unescaped '\' in a string (column 17)", under no field and with nothing to do
    pytest.param(
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm\\models\\deepseek_v4\\attention.py"'),
        (
            8,
            "paths",
            "\"vllm\\models\\deepseek_v4\\attention.py\" holds '\\', which TOML reads as an"
            " escape: a path uses '/': write \"vllm/models/deepseek_v4/attention.py\"",
        ),
        id="backslash-in-path",
    ),
    # `\u` starts a TOML escape needing four hex digits, so a path
    # under vllm/utils or vllm/usage copied from Windows was "header: malformed TOML:
    # Invalid hex value (column 17)", under no field, with nothing to do
    pytest.param(
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm\\utils\\deepseek.py"'),
        (
            8,
            "paths",
            "\"vllm\\utils\\deepseek.py\" holds '\\', which TOML reads as an escape: a path"
            " uses '/': write \"vllm/utils/deepseek.py\"",
        ),
        id="backslash-u-in-path",
    ),
    # a path copied from Windows whose '\' start escapes TOML knows
    # (`\t`, `\b`, `\f`, `\n`, `\r`: vllm's tests, benchmarks, ...) is read, with a tab
    # and a form feed in it, and was told "holds a tab: delete it", a tab no one typed
    pytest.param(
        ('"vllm/models/deepseek_v4/attention.py"', '"vllm\\tests\\fixtures.py"'),
        (
            8,
            "paths",
            "bad glob 'vllm\\tests\\x0cixtures.py': holds a tab (U+0009), which is what '\\t'"
            " in a \"...\" string is: a path uses '/': write 'vllm/tests/fixtures.py'",
        ),
        id="backslash-escapes-in-path",
    ),
    pytest.param(
        ("a function pointer", "a \\d+ pattern"),
        (
            11,
            "summary_en",
            "\"Shows how a \\d+ pattern picks the eager region.\" holds '\\', which TOML reads"
            " as an escape: write '\\\\' for a backslash, or put the string between ' quotes",
        ),
        id="backslash-in-summary",
    ),
]


_LITERAL = " with ''' (a literal string takes '\\' as typed)"


# a '\' in a """ string that starts no escape was TOML's "malformed TOML:
# Unescaped '\' in a string (column 13)", under no field and with nothing to do
@pytest.mark.parametrize(
    ("summary", "expected"),
    [
        pytest.param(
            'summary_en = """Shows how\nthe regex \\d+ picks the eager region."""',
            "12: summary_en: '\\d' (column 11) is no escape TOML knows: write '\\\\d' for a"
            f" backslash, or open and close the multi-line string (line 11){_LITERAL}",
            id="on-a-later-line",
        ),
        pytest.param(
            'summary_en = """Shows how the regex \\d+\npicks the eager region."""',
            "11: summary_en: '\\d' (column 37) is no escape TOML knows: write '\\\\d' for a"
            f" backslash, or open and close the multi-line string{_LITERAL}",
            id="on-its-opening-line",
        ),
        pytest.param(
            'summary_en = """Shows how\nvllm\\utils picks the eager region."""',
            "12: summary_en: '\\u' (column 5) is no escape TOML knows: write '\\\\u' for a"
            f" backslash, or open and close the multi-line string (line 11){_LITERAL}",
            id="backslash-u",
        ),
        # kills: bot/toml_errors.py:_in_long_string `rfind("\\", 0, ...)` -> `rfind("\\", 1,
        #   ...)` and `slash == -1` -> `slash == 0` (an escape opening its line missed)
        pytest.param(
            'summary_en = """Shows how\n\\d+ picks the eager region."""',
            "12: summary_en: '\\d' (column 1) is no escape TOML knows: write '\\\\d' for a"
            f" backslash, or open and close the multi-line string (line 11){_LITERAL}",
            id="at-its-line-start",
        ),
    ],
)
def test_a_bad_escape_in_a_multi_line_string_names_its_field_line_and_fix(
    tmp_path, summary, expected
):
    path = write(tmp_path, VALID.replace(_SUMMARY, summary))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


def test_a_verdict_left_out_of_a_note_whose_guidance_states_none_lists_the_three(tmp_path):
    path = write(tmp_path, VALID.replace('verdict = "deep"\n', "").replace("值得精读。", ""))
    assert problems_of(tmp_path) == [
        f'{path}:13: verdict: missing required field: write verdict = "deep", "quick" or'
        ' "skip", as the guidance\'s wording says'
    ]


def test_a_missing_id_is_not_told_a_file_name_that_is_no_id(tmp_path):
    path = write(tmp_path, VALID.replace('id = "vllm-test0001"\n', ""), "My Note.md")
    assert problems_of(tmp_path) == [f"{path}:13: id: missing required field"]


@pytest.mark.parametrize(("edit", "expected"), NOTE_DEFECTS)
def test_each_note_defect_is_reported_on_its_line(tmp_path, edit, expected):
    old, new = edit
    assert old in VALID
    path = write(tmp_path, VALID.replace(old, new, 1))
    line, field, message = expected
    assert problems_of(tmp_path) == [f"{path}:{line}: {field}: {message}"]
    text = line_at(path, line)
    if message.startswith("missing required field"):  # where it is added: the closing fence
        assert text == "+++" and line > 1
    elif field == "guidance" and "field" not in message:
        assert line == VALID.count("\n")  # the line right after the closing fence
    else:
        said = text.lstrip().lstrip('["')  # a table or a quoted key
        assert said.startswith(field) or new.split("\n")[-2].strip() in text


@pytest.mark.parametrize(
    ("replace", "expected"),
    [
        # kills: bot/toml_errors.py:unquoted a value typed without its quotes, True for true
        #   or a PR's '#' left as "malformed TOML: Invalid value (column N)", no key, no fix
        pytest.param(
            ('verdict = "deep"', "verdict = deep"),
            '5: verdict: deep is no TOML value: text takes quotes: "deep"',
            id="unquoted-string",
        ),
        pytest.param(
            ("source_pr = 52401", "source_pr = 52401\nsource_pr = 1"),
            "5: source_pr: `source_pr` is set twice (first on line 4): keep one",
            id="duplicate-key",
        ),
        # kills: bot/toml_errors.py:bad_date a valid date on the line tomllib stops at (set
        #   twice) told "is not a date (month and day take two digits)"
        pytest.param(
            ("created = 2026-08-14", "created = 2026-08-14\ncreated = 2026-08-15"),
            "13: created: `created` is set twice (first on line 12): keep one",
            id="duplicate-date",
        ),
        pytest.param(
            ("+++\nid", "id"), "1: header: file must start with a '+++' line", id="no-open"
        ),
        pytest.param(("+++\n值得", "值得"), "1: header: no closing '+++' line", id="no-close"),
        pytest.param(
            ("created = 2026-08-14", "created = 2026-13-14"),
            "12: created: 2026-13-14 is not a date (month must be in 1..12): write"
            " year-month-day, as 2026-08-15",
            id="bad-date",
        ),
        # kills: bot/toml_errors.py:bad_date a date between '/', '.' or 年月日 (a Chinese
        #   locale's) left as "Expected newline or end of document after a statement"
        pytest.param(
            ("created = 2026-08-14", "created = 2026/08/14"),
            "12: created: 2026/08/14 is not a date (TOML writes a date with '-'): write"
            " year-month-day, as 2026-08-14",
            id="date-with-slashes",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 2026年8月14日"),
            "12: created: 2026年8月14日 is not a date (TOML writes a date with '-'): write"
            " year-month-day, as 2026-08-14",
            id="date-in-chinese",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 2026.08.32"),
            "12: created: 2026.08.32 is not a date (day is out of range for month): write"
            " year-month-day, as 2026-08-15",
            id="date-with-dots-and-no-such-day",
        ),
        pytest.param(
            ('title_en = "Pick the eager region per model runner"', "title_en = Pick it  "),
            '10: title_en: Pick it is no TOML value: text takes quotes: "Pick it"',
            id="unquoted-words",
        ),
        pytest.param(
            ('topics = ["cuda-graphs", "rocm"]', 'topics = ["cuda-graphs", rocm]'),
            '6: topics: rocm is no TOML value: text takes quotes: "rocm"',
            id="unquoted-element",
        ),
        pytest.param(
            ('topics = ["cuda-graphs", "rocm"]', 'topics = [cuda-graphs , "rocm"]'),
            '6: topics: cuda-graphs is no TOML value: text takes quotes: "cuda-graphs"',
            id="unquoted-first-element",
        ),
        pytest.param(
            ('topics = ["cuda-graphs", "rocm"]', 'topics = [\n  "cuda-graphs",\n  rocm,\n]'),
            '8: topics: rocm is no TOML value: text takes quotes: "rocm"',
            id="unquoted-element-on-its-own-line",
        ),
        # kills: bot/toml_errors.py:unquoted a comment after a value typed without its quotes
        #   told to go inside them ("deep  # 精读"), whose verdict is then none
        pytest.param(
            ('verdict = "deep"', "verdict = deep  # 精读，不是 quick"),
            '5: verdict: deep is no TOML value: text takes quotes: "deep"',
            id="unquoted-string-and-a-comment",
        ),
        pytest.param(  # a title's '#' is its text
            ('title_en = "Pick the eager region per model runner"', "title_en = Fix # of blocks"),
            '10: title_en: Fix # of blocks is no TOML value: text takes quotes: "Fix # of blocks"',
            id="unquoted-title-holding-a-hash",
        ),
        pytest.param(  # a summary's too
            (
                'summary_en = "Shows how a function pointer picks the eager region."',
                "summary_en = Counts # of blocks",
            ),
            "11: summary_en: Counts # of blocks is no TOML value: text takes quotes:"
            ' "Counts # of blocks"',
            id="unquoted-summary-holding-a-hash",
        ),
        pytest.param(
            ("source_pr = 52401", "source_pr = #52401"),
            "4: source_pr: #52401 is no TOML value: TOML reads '#' as a comment's start: write"
            " the number alone, as 52401",
            id="pr-number-with-its-hash",
        ),
        pytest.param(
            ("source_pr = 52401", "source_pr = 52401\nretired = False"),
            "5: retired: False is no TOML value: write false, in lower case",
            id="capital-false",
        ),
        pytest.param(  # a number of one digit after it
            ("source_pr = 52401", "source_pr = #9"),
            "4: source_pr: #9 is no TOML value: TOML reads '#' as a comment's start: write"
            " the number alone, as 9",
            id="pr-number-of-one-digit-with-its-hash",
        ),
        # kills: bot/toml_errors.py:unquoted a number or date field typed without quotes
        #   told to add quotes, which the next run says to take off
        pytest.param(  # was 'text takes quotes: "#PR52401"', then 'is a string: write the number'
            ("source_pr = 52401", "source_pr = #PR52401"),
            "4: source_pr: #PR52401 is no TOML value: write the number alone, as 52401",
            id="hash-before-a-word",
        ),
        pytest.param(
            ("source_pr = 52401", "source_pr = PR 52401"),
            "4: source_pr: PR 52401 is no TOML value: write the number alone, as 52401",
            id="pr-number-after-pr",
        ),
        pytest.param(  # no number, or two: which is the PR's it cannot tell
            ("source_pr = 52401", "source_pr = PR 52401 52419"),
            "4: source_pr: PR 52401 52419 is no TOML value: write the number alone, without quotes",
            id="two-numbers-for-a-pr",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = Aug 14 2026  # opened"),
            "12: created: Aug 14 2026 is no TOML date: write it year-month-day, without"
            " quotes, as 2026-08-14",
            id="date-with-the-month-named",
        ),
        pytest.param(
            ("updated = 2026-12-02", "updated = September 2nd, 2026"),
            "13: updated: September 2nd, 2026 is no TOML date: write it year-month-day,"
            " without quotes, as 2026-09-02",
            id="date-with-the-month-in-full",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = Feb 30 2026"),
            "12: created: Feb 30 2026 is no TOML date (day is out of range for month): write"
            " it year-month-day, without quotes, as 2026-08-15",
            id="named-date-that-is-none",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = last week"),
            "12: created: last week is no TOML date: write it year-month-day, without quotes,"
            " as 2026-08-15",
            id="date-in-words",
        ),
        pytest.param(  # a PR's number is no boolean: 'write true' was the next mistake
            ("source_pr = 52401", "source_pr = True"),
            "4: source_pr: True is no TOML value: write the number alone, without quotes",
            id="boolean-for-a-pr-number",
        ),
        pytest.param(  # a field of no kind keeps the quotes
            ("source_pr = 52401", "source_pr = 52401\nretired = PR 52401"),
            '5: retired: PR 52401 is no TOML value: text takes quotes: "PR 52401"',
            id="words-in-a-field-of-no-kind",
        ),
        # kills: bot/toml_errors.py:bad_date a date day or month first left as "Expected
        #   newline or end of document after a statement"
        pytest.param(
            ("created = 2026-08-14", "created = 14/08/2026"),
            "12: created: 14/08/2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-08-14",
            id="date-day-first",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 08/14/2026"),
            "12: created: 08/14/2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-08-14",
            id="date-month-first",
        ),
        # kills: bot/toml_errors.py:date_fix `first > 12` -> `first >= 12` (December first
        #   read as day 12 of month 13)
        pytest.param(
            ("created = 2026-08-14", "created = 12/13/2026"),
            "12: created: 12/13/2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-12-13",
            id="date-month-first-in-december",
        ),
        # kills: bot/toml_errors.py:date_fix `first <= 12` -> `first < 12` (12/05 read as
        #   December 5th, though it may be May 12th)
        pytest.param(
            ("created = 2026-08-14", "created = 12/05/2026"),
            "12: created: 12/05/2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-05-12 if 12 is the day, 2026-12-05 if it is the month",
            id="date-twelfth-day-or-month-first",
        ),
        # kills: bot/toml_errors.py:_month `range(1, 13)` -> `range(2, 13)` (January no month)
        pytest.param(
            ("created = 2026-08-14", "created = 5 Jan 2026"),
            "12: created: 5 Jan 2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-01-05",
            id="date-in-january",
        ),
        # kills: bot/toml_errors.py:bad_date `or said is None` -> `and` (a message of None
        #   for a date's shape with no month in it)
        pytest.param(  # a month by no name of one: tomllib's words, the line named
            ("created = 2026-08-14", "created = 14 Agu 2026"),
            "12: header: malformed TOML: Expected newline or end of document after a"
            " statement (column 14)",
            id="date-with-a-misspelt-month",
        ),
        pytest.param(  # a title typed with a number first is no date
            ('title_en = "Pick the eager region per model runner"', "title_en = 12 Angry Men 2026"),
            "10: header: malformed TOML: Expected newline or end of document after a"
            " statement (column 15)",
            id="title-of-words-between-numbers",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 14 Aug 2026"),
            "12: created: 14 Aug 2026 is no TOML date: write it year-month-day, without"
            " quotes, as 2026-08-14",
            id="date-day-first-with-the-month-named",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 12.12.2026"),
            "12: created: 12.12.2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-12-12",
            id="date-whose-day-is-its-month",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 03/04/2026"),
            "12: created: 03/04/2026 is no TOML date: write it year-month-day, without quotes,"
            " as 2026-04-03 if 03 is the day, 2026-03-04 if it is the month",
            id="date-day-or-month-first",
        ),
        pytest.param(
            ("created = 2026-08-14", "created = 31/02/2026"),
            "12: created: 31/02/2026 is no TOML date (day is out of range for month): write"
            " it year-month-day, without quotes, as 2026-08-15",
            id="date-day-first-that-is-none",
        ),
        pytest.param(
            ("source_pr = 52401", "source_pr = true"),
            "4: source_pr: Input should be a valid integer",
            id="a-boolean-is-not-a-pr-number",
        ),
        pytest.param(  # the header's last line: it used to be put on line 2
            ("updated = 2026-12-02", 'updated = "2026-12-02'),
            '13: updated: string not closed on its line: end it with "',
            id="unterminated-string-on-the-last-line",
        ),
        pytest.param(  # an array left open runs to the end: the last line is named
            ("updated = 2026-12-02", "updated = [2026-12-02,"),
            "13: header: malformed TOML: Invalid value (at end of document)",
            id="open-array-on-the-last-line",
        ),
        pytest.param(  # tomllib says "Unclosed array", not why
            ('"eager_break_during_capture"]', '"eager_break_during_capture"，"eager region"]'),
            "7: header: malformed TOML: Unclosed array (column 41); it stops at '，' (U+FF0C"
            " FULLWIDTH COMMA), typed by a Chinese input method: type ','",
            id="full-width-comma-between-elements",
        ),
    ],
)
def test_malformed_header_names_the_line(tmp_path, replace, expected):
    path = write(tmp_path, VALID.replace(*replace))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


def test_duplicate_id_names_the_other_file(tmp_path):
    first = write(tmp_path, VALID, "a/vllm-test0001.md")
    second = write(tmp_path, VALID, "b/vllm-test0001.md")
    assert problems_of(tmp_path) == [
        f"{second}:2: id: duplicate id 'vllm-test0001' (also in {first}): give this note an"
        " id of its own, and name its file <id>.md",
        f"{second}:9: title_zh: the same note as {first} {SAME_NOTE}",
    ]


def test_not_utf8_names_the_line_of_the_bad_byte(tmp_path):
    path = tmp_path / "vllm-test0001.md"
    path.write_bytes(VALID.encode().replace("正文".encode(), b"\xff\xfe"))
    assert problems_of(tmp_path) == [f"{path}:15: file: not UTF-8: invalid start byte"]


def test_every_problem_of_every_file_is_reported_sorted(tmp_path):
    write(tmp_path, VALID.replace('"cuda-graphs"', '"cudagraphs"'), "b/vllm-test0001.md")
    write(tmp_path, VALID.replace('"rocm"', '"nope"'), "a/vllm-test0001.md")
    write(tmp_path, VALID.replace('verdict = "deep"', 'verdict = "x"'), "c/vllm-test0001.md")
    found = problems_of(tmp_path)
    assert [p.split(": ", 1)[1] for p in found] == [
        f"topics: unknown topic 'nope': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}",
        "id: duplicate id 'vllm-test0001' (also in "
        + str(tmp_path / "a/vllm-test0001.md")
        + "): give this note an id of its own, and name its file <id>.md",
        f"topics: unknown topic 'cudagraphs': no topic has this id in {TOPICS};"
        " did you mean 'cuda-graphs'?",
        f"title_zh: the same note as {tmp_path / 'a/vllm-test0001.md'} {SAME_NOTE}",
        "verdict: bad verdict 'x'; use one of: deep, quick, skip",  # unparsed: no duplicate
    ]
    assert found == sorted(found, key=lambda s: (s.split(":")[0], int(s.split(":")[1])))


def test_a_note_that_does_not_validate_also_gets_its_unknown_topics(tmp_path):
    # fixing one problem to be told of the next on the following run wastes a curator's
    # time: a bad verdict and an unknown topic in one file come together
    bad = VALID.replace('verdict = "deep"', 'verdict = "x"').replace('"rocm"', '"nope"')
    path = write(tmp_path, bad)
    assert [p.split(": ", 1)[1] for p in problems_of(tmp_path)] == [
        "verdict: bad verdict 'x'; use one of: deep, quick, skip",
        f"topics: unknown topic 'nope': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}",
    ]
    # a topic listed twice: that problem, and the topic unknown once
    write(tmp_path, VALID.replace('["cuda-graphs", "rocm"]', '["zz", "zz"]'))
    assert [p.split(": ", 1)[1] for p in problems_of(tmp_path)] == [
        "topics: 'zz' is listed twice",
        f"topics: unknown topic 'zz': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}",
    ]
    # a header that does not parse says only that: nothing else can be read from it
    write(tmp_path, bad.replace('verdict = "x"', "verdict = "))
    assert [p.split(":")[2].strip() for p in problems_of(tmp_path)] == ["header"]
    assert str(path) in problems_of(tmp_path)[0]


def test_a_second_note_pasted_into_a_file_is_named_not_read_as_guidance(tmp_path):
    """Defect: a note pasted below another in its file (two notes copied from a chat in
    one go) was read as the first one's guidance: `ok`, the second note loaded nowhere and
    its header shown to reviewers as guidance. A `+++` line shown in a code block, with a
    key below it, is a sample of a header and stays guidance."""
    second = VALID.replace("vllm-test0001", "vllm-test0002")
    path = write(tmp_path, VALID + second)
    assert problems_of(tmp_path) == [
        f"{path}:16: guidance: another note's header starts here: a file holds one note;"
        " move that note, from this '+++' line to the end, to a file of its own,"
        " vllm-test0002.md"
    ]
    write(tmp_path, VALID + "\n```toml\n" + second + "```\n")
    assert problems_of(tmp_path) == []


def test_crlf_and_bom_files_keep_their_line_numbers(tmp_path):
    text = "\ufeff" + VALID.replace('verdict = "deep"', 'verdict = "x"').replace("\n", "\r\n")
    path = tmp_path / "vllm-test0001.md"
    path.write_bytes(text.encode())
    assert problems_of(tmp_path) == [
        f"{path}:5: verdict: bad verdict 'x'; use one of: deep, quick, skip"
    ]


def test_dot_files_and_other_suffixes_are_not_notes(tmp_path):
    write(tmp_path, VALID)
    write(tmp_path, "junk", ".vllm-test0001.md.123.tmp")
    write(tmp_path, "junk", ".hidden/x.md")
    write(tmp_path, "junk", "README.txt")
    assert problems_of(tmp_path) == []


# kills: bot/note_files.py:merge_conflict a conflict git left in a note's header said to be
#   malformed TOML, in its guidance served as the note's text; a lone `=======` taken for one
@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            'verdict = "deep"',
            '<<<<<<< HEAD\nverdict = "deep"\n=======\nverdict = "quick"\n>>>>>>> alice',
            5,
        ),
        (
            "值得精读。正文。",
            "<<<<<<< ours\n值得精读。正文。\n||||||| base\n正文。\n=======\n"
            "值得快速阅读。\n>>>>>>> theirs (alice)",
            15,
        ),
    ],
    ids=["in-the-header", "in-the-guidance-diff3"],
)
def test_a_merge_conflict_left_in_a_note_is_named(tmp_path, old, new, line):
    # Two curators edited one note; the merge left git's markers. In the header TOML
    # said "Invalid statement (column 1)"; in the guidance `notes check` printed ok and
    # the pages showed both sides, markers and all, as the guidance.
    path = write(tmp_path, VALID.replace(old, new).replace("\n", "\r\n"))
    assert problems_of(tmp_path) == [
        f"{path}:{line}: file: a git merge conflict is left in the file (<<<<<<<, ======= and"
        " >>>>>>> lines): keep the text meant and delete the three marker lines"
    ]


# kills: bot/note_files.py:parse_toml a conflict git left in topics.toml or matching.toml
#   said to be malformed TOML ("Invalid statement"), with no word of the markers
def test_a_merge_conflict_left_in_the_taxonomy_or_the_matching_config_is_named(tmp_path, capsys):
    conflict = "<<<<<<< HEAD\nmax_notes = 3\n=======\nmax_notes = 4\n>>>>>>> bob"
    problems, text = _matching_problems(tmp_path, capsys, ("max_notes = 3", conflict))
    line = text.split("\n").index("<<<<<<< HEAD") + 1
    fix = (
        "a git merge conflict is left in the file (<<<<<<<, ======= and >>>>>>> lines):"
        " keep the text meant and delete the three marker lines"
    )
    assert problems == [f"{line}: config: {fix}"]
    write(tmp_path / "notes", VALID)
    topics = tmp_path / "topics.toml"
    taxonomy = TOPICS.read_text("utf-8").replace(
        'name_zh = "ROCm 平台"', '<<<<<<< HEAD\nname_zh = "ROCm 平台"\n=======\n>>>>>>> bob', 1
    )
    topics.write_text(taxonomy, "utf-8")
    line = taxonomy.split("\n").index("<<<<<<< HEAD") + 1
    assert problems_of(tmp_path / "notes", topics)[0] == f"{topics}:{line}: taxonomy: {fix}"


def test_a_heading_underline_or_a_quoted_marker_in_the_guidance_is_no_conflict(tmp_path):
    guidance = "值得精读。\n\n背景\n=======\n\n`<<<<<<< HEAD` 与 `>>>>>>> x` 是 git 的标记。"
    write(tmp_path, VALID.replace("值得精读。正文。", guidance))
    assert problems_of(tmp_path) == []


# kills: bot/note_files.py:merge_conflict a conflict's markers shown in a fenced code block
#   (guidance on a tool that writes or checks them) refused as a conflict git left, so
#   the server would not start on a correct note; and cli._fenced_conflicts left out
def test_a_merge_conflict_shown_in_a_code_block_is_a_warning_not_an_error(tmp_path, capsys):
    sample = "```text\n<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> feature\n```"
    guidance = f"值得精读。git 留下的冲突如下：\n\n{sample}\n\n正文。"
    path = write(tmp_path, VALID.replace("值得精读。正文。", guidance))
    assert problems_of(tmp_path) == []
    status, out = check_output(tmp_path, capsys)
    line = line_number(path, "<<<<<<< HEAD")
    assert status == 0 and f"{path}:{line}: guidance: warning: a code block holds a git" in out
    # the same lines outside the code block are a conflict git left, as before
    write(tmp_path, VALID.replace("值得精读。正文。", guidance.replace("```", "")))
    assert problems_of(tmp_path)[0].startswith(f"{path}:{line}: file: a git merge conflict")


def test_missing_notes_directory(tmp_path):
    assert problems_of(tmp_path / "nope") == [
        f"{tmp_path / 'nope'}:1: notes: cannot read: No such file or directory"
    ]


# kills: bot/library.py:check_library a note file given for the directory said 'cannot read:
#   Not a directory'
def test_a_note_file_given_for_the_directory_is_told_to_name_the_directory(tmp_path, capsys):
    # A curator checks the one note they added, `notes check seeds/notes/<new-id>.md`: it
    # was "<file>:1: notes: cannot read: Not a directory", with no word of what to give.
    path = write(tmp_path, VALID)
    status, out = check_output(path, capsys)
    assert status == 1 and out.splitlines()[0] == (
        f"{path}:1: notes: a file, not the notes' directory: a note is checked with the"
        f" others (ids, titles), so name their directory, {tmp_path}"
    )

    # kills: bot/library.py:check_library another file given for the directory (the
    #   taxonomy, mistaken for the first argument) told to name its directory, no notes'
    topics = tmp_path / "topics.toml"
    topics.write_bytes(TOPICS.read_bytes())
    status, out = check_output(topics, capsys)
    assert status == 1 and out.splitlines()[0] == (
        f"{topics}:1: notes: a file, not the notes' directory: name the directory of the"
        " notes (*.md files); the taxonomy goes after --topics"
    )


def test_a_notes_directory_without_notes_is_a_problem(tmp_path):
    # A wrong path or an empty volume: the server would tell every PR that no note matches.
    write(tmp_path, "junk", ".hidden/x.md")
    expected = f"{tmp_path}:1: notes: no notes (*.md files) in this directory"
    assert problems_of(tmp_path) == [expected]


# --- the taxonomy ----------------------------------------------------------------

TAXONOMY = """\
# comment
[[topic]]
id = "cuda-graphs"
name_en = "CUDA graphs"
name_zh = "CUDA Graph"
keywords = ["cudagraph"]

[[topic]]
id = "rocm"
name_en = "ROCm"
name_zh = "ROCm"
labels = ["rocm"]
"""

TAXONOMY_DEFECTS = [
    pytest.param(
        ('id = "rocm"', 'id = "cuda-graphs"'),
        "9: id: duplicate topic id 'cuda-graphs' (first at line 3): give this topic an id of"
        " its own",
        id="duplicate-topic",
    ),
    pytest.param(
        ('name_en = "ROCm"\n', ""), "8: name_en: missing required field", id="missing-name"
    ),
    pytest.param(
        ('name_en = "ROCm"', 'name_en = " "'), "10: name_en: a name is one line of text", id="blank"
    ),
    pytest.param(
        ('name_en = "ROCm"', 'name_en = "ROCm "'),
        "10: name_en: leading or trailing whitespace",
        id="name-space",
    ),
    pytest.param(
        ('labels = ["rocm"]', 'paths = ["cmake", "a/[b"]'),
        "12: paths: bad glob 'a/[b': unclosed '[' at position 3: '[' starts a class of"
        " characters, as in '[abc]': close it with ']', or write '[[]' for a '[' in a"
        " file's name",
        id="bad-glob",
    ),
    pytest.param(  # was "Cannot declare ('topic',) twice"
        ('[[topic]]\nid = "rocm"', '[topic]\nid = "rocm"'),
        "8: topic: `[topic]` declares a single table, but the others are `[[topic]]`, a list:"
        " write `[[topic]]`",
        id="later-topic-single-brackets",
    ),
    pytest.param(  # was 'Cannot overwrite a value' on the next [[topic]]
        ('[[topic]]\nid = "cuda-graphs"', '[topic]\nid = "cuda-graphs"'),
        "2: topic: `[topic]` declares a single table, but the others are `[[topic]]`, a list:"
        " write `[[topic]]`",
        id="first-topic-single-brackets",
    ),
    pytest.param(
        ('labels = ["rocm"]', 'labels = ["rocm"]\ncolour = "red"'),
        "13: colour: unknown field; a topic's fields are id, name_en, name_zh, short_en,"
        " description, keywords, tags, paths, labels: rename it to one, or delete it",
        id="unknown-topic-field",
    ),
    pytest.param(("# comment", "version = 2"), "1: version: unknown top-level key", id="top-key"),
    pytest.param(  # the tables named in the plural, as the notes' field is
        ('[[topic]]\nid = "rocm"', '[[topics]]\nid = "rocm"'),
        "8: topics: unknown top-level key; did you mean 'topic'?",
        id="topics-tables",
    ),
    pytest.param(  # `/notes topic` takes a Chinese name too: it must say one topic
        ('name_zh = "ROCm"', 'name_zh = "CUDA graphs"'),
        "11: name_zh: `/notes topic` reads it as topic 'cuda-graphs' (line 3):"
        " write one only this topic has",
        id="chinese-name-another-topics",
    ),
    pytest.param(  # replies give a name in brackets without its own, and it is typed back
        ('name_zh = "ROCm"', 'name_zh = "CUDA graphs（旧）"'),
        "11: name_zh: without its brackets, `/notes topic` reads it as topic 'cuda-graphs'"
        " (line 3): write one only this topic has",
        id="chinese-name-unbracketed-another-topics",
    ),
    pytest.param(  # the short name a reason gives is typed to `/notes topic` too
        ('name_zh = "ROCm"', 'name_zh = "ROCm"\nshort_en = "CUDA graphs"'),
        "12: short_en: `/notes topic` reads it as topic 'cuda-graphs' (line 3):"
        " write one only this topic has",
        id="short-name-another-topics",
    ),
    pytest.param(  # a bracketed name's short one is short_en, said once, not
        # also under name_en as "without its brackets" (`ROCm` is `ROCm` without them)
        (
            'name_en = "ROCm"\nname_zh = "ROCm"',
            'name_en = "ROCm (AMD)"\nname_zh = "ROCm"\nshort_en = "CUDA graphs"',
        ),
        "12: short_en: `/notes topic` reads it as topic 'cuda-graphs' (line 3):"
        " write one only this topic has",
        id="short-name-of-a-bracketed-name-another-topics",
    ),
    pytest.param(
        ('name_zh = "ROCm"', 'name_zh = "ROCm"\nshort_en = "ROCm "'),
        "12: short_en: leading or trailing whitespace",
        id="short-name-space",
    ),
    # a topic's name took a tab or a control character a note's title refuses
    pytest.param(
        ('name_en = "ROCm"', 'name_en = "ROCm\\tplatform"'),
        "10: name_en: holds a tab (U+0009), which a name prints as typed: type a space",
        id="tab-in-name",
    ),
    pytest.param(
        ('name_zh = "ROCm"', 'name_zh = "ROCm\\u0007"'),
        "11: name_zh: holds U+0007, a control character no name shows: delete it",
        id="control-character-in-chinese-name",
    ),
    pytest.param(
        ('name_zh = "ROCm"', 'name_zh = "ROCm"\nshort_en = "ROCm\tAMD"'),
        "12: short_en: holds a tab (U+0009), which a name prints as typed: type a space",
        id="tab-in-short-name",
    ),
    # a topic's description (its page shows it) took what its name refuses
    pytest.param(
        ('name_zh = "ROCm"', 'name_zh = "ROCm"\ndescription = "AMD GPUs:\tHIP kernels."'),
        "12: description: holds a tab (U+0009), which a description prints as typed: type a space",
        id="tab-in-description",
    ),
    pytest.param(
        ('name_zh = "ROCm"', 'name_zh = "ROCm"\ndescription = "AMD GPUs\\u001b[0m."'),
        "12: description: holds U+001B, a control character no description shows: delete it",
        id="control-character-in-description",
    ),
    pytest.param(
        ('labels = ["rocm"]\n', ""),
        "9: topic: no keywords, tags, paths or labels: nothing can select this topic",
        id="unreachable-topic",
    ),
    pytest.param(
        ('labels = ["rocm"]', 'tags = ["ROCm", "rocm"]'),
        "12: tags: 'rocm' is listed twice",
        id="duplicate-tag",
    ),
    pytest.param(
        ('id = "rocm"', 'id = "ROCm!"'),
        "9: id: \"ROCm!\" is not an id: lower-case letters, digits, '.', '_' and '-', 64 at"
        " most, starting with a letter or digit",
        id="bad-topic-id",
    ),
    pytest.param(
        ('name_zh = "ROCm"', "name_zh = ROCm"),
        '11: name_zh: ROCm is no TOML value: text takes quotes: "ROCm"',
        id="malformed",
    ),
    # a label is matched to a PR's labels, no PR's text: its message says so
    pytest.param(
        ('labels = ["rocm"]', 'labels = ["rocm\u2060"]'),
        "12: labels: 'rocm\\u2060' holds U+2060 (WORD JOINER), invisible and absent from a"
        " GitHub label's name: delete it",
        id="invisible-label",
    ),
    # GitHub refuses a label's name over 50 characters ("name is too long (maximum is 50
    # characters)"): one longer, a description pasted in, was taken and matched no PR
    pytest.param(
        ('labels = ["rocm"]', f'labels = ["{"rocm " * 10}x"]'),
        f"12: labels: {'rocm ' * 10 + 'x'!r} is 51 characters long: a GitHub label's name"
        " is 50 at most, so no PR carries it",
        id="label-too-long",
    ),
    pytest.param(
        ('labels = ["rocm"]', 'labels = ["ｒｏｃｍ"]'),
        "12: labels: 'ｒｏｃｍ' holds 'ｒ' (U+FF52 FULLWIDTH LATIN SMALL LETTER R), typed by a"
        " Chinese input method for 'r', which a GitHub label's name has instead: write 'rocm'",
        id="full-width-label",
    ),
    pytest.param(
        ('labels = ["rocm"]', 'tags = ["ＲＯＣｍ"]'),
        "12: tags: 'ＲＯＣｍ' holds 'Ｒ' (U+FF32 FULLWIDTH LATIN CAPITAL LETTER R), typed by a"
        " Chinese input method for 'R', which a PR's text has instead: write 'ROCm'",
        id="full-width-tag",
    ),
]


# a summary wrapped in a multi-line string is read, its lines joined where it
# is shown; a tab or another control character in it is refused (NOTE_DEFECTS)
def test_a_summary_wrapped_over_lines_is_accepted(tmp_path):
    wrapped = 'summary_en = """Shows how a function pointer\npicks the eager region."""'
    write(
        tmp_path,
        VALID.replace(
            'summary_en = "Shows how a function pointer picks the eager region."', wrapped
        ),
    )
    assert problems_of(tmp_path) == []


@pytest.mark.parametrize(("edit", "expected"), TAXONOMY_DEFECTS)
def test_each_taxonomy_defect_is_reported_on_its_line(tmp_path, edit, expected):
    notes = tmp_path / "notes"
    write(notes, VALID.replace('"cuda-graphs", "rocm"', '"rocm"'))
    topics = tmp_path / "topics.toml"
    topics.write_text(TAXONOMY, "utf-8")
    assert problems_of(notes, topics) == []
    topics.write_text(TAXONOMY.replace(*edit, 1), "utf-8")
    assert problems_of(notes, topics) == [f"{topics}:{expected}"]


# a description wrapped in a multi-line string is read (its page joins the
# lines), as a summary is; a tab or another control character in it is refused (above)
def test_a_topic_description_wrapped_over_lines_is_accepted(tmp_path):
    notes = tmp_path / "notes"
    write(notes, VALID.replace('"cuda-graphs", "rocm"', '"rocm"'))
    topics = tmp_path / "topics.toml"
    wrapped = 'name_zh = "ROCm"\ndescription = """AMD GPUs:\nHIP kernels and ROCm builds."""'
    topics.write_text(TAXONOMY.replace('name_zh = "ROCm"', wrapped, 1), "utf-8")
    assert problems_of(notes, topics) == []
    topic = load_library(notes, topics).topics["rocm"]
    assert topic.description == "AMD GPUs:\nHIP kernels and ROCm builds."


def test_an_emoji_keeps_its_zero_width_joiner(tmp_path):
    # 🧑‍💻 is one emoji of three characters, the joiner in the middle: a label may be one
    notes = tmp_path / "notes"
    write(notes, VALID.replace('"cuda-graphs", "rocm"', '"rocm"'))
    topics = tmp_path / "topics.toml"
    topics.write_text(TAXONOMY.replace('labels = ["rocm"]', 'labels = ["🧑\u200d💻 dev"]'), "utf-8")
    assert problems_of(notes, topics) == []


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        pytest.param(
            ('[[topic]]\nid = "cuda-graphs"', '[[ "topic" ]]  # quoted\nid = "cuda-graphs"'),
            8,
            id="quoted-table-header",
        ),
        pytest.param(
            (
                'keywords = ["cudagraph"]',
                'keywords = ["cudagraph"]\ndescription = """\n[[topic]]\n"""',
            ),
            11,
            id="table-line-in-a-string",
        ),
    ],
)
def test_taxonomy_problems_keep_their_lines_whatever_the_table_headers_look_like(
    tmp_path, edit, line
):
    # A `[[topic]]` written another way, or one inside a multi-line string, put every
    # problem of the file on line 1: the topics are found by scanning the file as TOML.
    notes = tmp_path / "notes"
    write(notes, VALID.replace('"cuda-graphs", "rocm"', '"rocm"'))
    topics = tmp_path / "topics.toml"
    topics.write_text(TAXONOMY.replace('name_en = "ROCm"\n', "").replace(*edit, 1), "utf-8")
    assert problems_of(notes, topics) == [f"{topics}:{line}: name_en: missing required field"]
    assert line_at(topics, line) == "[[topic]]"


def test_empty_or_missing_taxonomy(tmp_path):
    notes = tmp_path / "notes"
    write(notes, VALID)
    topics = tmp_path / "topics.toml"
    topics.write_text("# nothing yet\n", "utf-8")
    assert problems_of(notes, topics) == [f"{topics}:1: taxonomy: no [[topic]] tables"]
    topics.unlink()
    assert problems_of(notes, topics) == [
        f"{topics}:1: taxonomy: cannot read: No such file or directory"
    ]


def test_shipped_taxonomy_has_the_sixteen_topics():
    library = load_library()
    assert {t for n in library.notes for t in n.topics} <= set(library.topics)
    assert len(library.topics) >= 16  # the notes' 16, plus topics recognised without notes
    assert list(library.topics)[:2] == ["cuda-graphs", "prefix-caching"]


# --- the command line --------------------------------------------------------------


# `match` and `notes import` take the directory as --notes-dir,
# and `notes check --notes-dir DIR`, as a curator writes it after them, was refused with
# the top-level usage ("unrecognized arguments: --notes-dir")
def test_notes_check_takes_the_directory_as_match_does(tmp_path, capsys):
    write(tmp_path, VALID.replace('verdict = "deep"', 'verdict = "x"'))
    assert main(["notes", "check", "--notes-dir", str(tmp_path), "--topics", str(TOPICS)]) == 1
    assert "5: verdict: bad verdict 'x'" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # two directories: which one was meant?
        main(["notes", "check", str(tmp_path), "--notes-dir", str(tmp_path)])
    assert "not both" in capsys.readouterr().err


def test_cli_exit_codes_and_messages(tmp_path, capsys):
    write(tmp_path, VALID)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    assert capsys.readouterr().out == f"ok: 1 notes, {len(load_library().topics)} topics\n"

    bad = write(tmp_path, VALID.replace('verdict = "deep"', 'verdict = "x"'))
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"{bad}:5: verdict: bad verdict 'x'; use one of: deep, quick, skip\n1 problem(s)\n"
    )
    with pytest.raises(LibraryError) as exc:  # what the server prints when it refuses to start
        load_library(tmp_path, TOPICS)
    assert str(exc.value) == err.splitlines()[0]


def test_cli_process_exit_status(tmp_path):
    bad = write(tmp_path, VALID.replace('"rocm"', '"nope"'))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "bot.cli", "notes", "check", str(tmp_path)]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 1
    said = f"{bad}:6: topics: unknown topic 'nope': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}"
    assert run.stderr.splitlines()[0] == said
    run = subprocess.run(cmd[:-1], capture_output=True, text=True, env=env, cwd=ROOT)
    topics = len(load_library().topics)
    assert run.returncode == 0
    assert run.stdout.splitlines()[0] == f"ok: 16 notes, {topics} topics"


def test_keywords_each_a_prefix_of_the_next_pass_the_check_match_and_the_start(tmp_path, capsys):
    # some 500 keywords each a prefix of the next (`kk`, `kkk`, ...), a note's or a
    # topic's, nested re's pattern past the recursion limit of its parser: notes check,
    # match and the server's start stopped on a traceback
    from bot.match_config import checked_matcher

    notes, topics = tmp_path / "notes", tmp_path / "topics.toml"
    chain = ", ".join(f'"{"k" * n}"' for n in range(2, 700))
    write(notes, VALID.replace('keywords = ["', f'keywords = [{chain}, "'))
    chain = ", ".join(f'"{"q" * n}"' for n in range(2, 700))
    topics.write_text(TOPICS.read_text("utf-8").replace("keywords = [", f"keywords = [{chain},", 1))
    dirs = ["--notes-dir", str(notes), "--topics", str(topics)]
    assert main(["notes", "check", *dirs]) == 0
    assert capsys.readouterr().out.startswith("ok: 1 notes")
    title = f"Fix {'k' * 600} after {'q' * 500} in CUDA graphs"
    assert main(["match", *dirs, "--title", title]) == 0
    said = capsys.readouterr().out
    assert f"title mentions '{'k' * 600}'" in said and f"'{'q' * 500}'" in said
    facts = PRFacts("vllm-project/vllm", 1, title)
    (found,) = checked_matcher(load_library(notes, topics)).match(facts).matches  # the start's
    assert found.note.id == "vllm-test0001"


def test_check_hints_at_notes_the_bot_cannot_see_in_a_diff(tmp_path, capsys):
    write(tmp_path, VALID)  # keywords: eager_break_during_capture, a code name
    plain = (
        VALID.replace("vllm-test0001", "vllm-test0002")
        .replace('"eager_break_during_capture"', '"eager region"')
        .replace("按 runner 选择 eager 区域", "另一篇")  # another note, not a copy
        .replace("52401", "52402")
        .replace("Pick the eager region", "Pick the eager region again")
        .replace("Shows how", "Shows again how")
    )
    write(tmp_path, plain, "vllm-test0002.md")
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"ok: 2 notes, {len(load_library().topics)} topics"
    # on the line of its keywords, as a warning is (the file alone before)
    assert out[1:] == [
        f"{tmp_path / 'vllm-test0002.md'}:7: keywords: hint: no code name (snake_case or"
        " CamelCase) among its keywords; the bot cannot see this note's mechanism in a PR's"
        " changed lines"
    ]


def test_a_note_with_no_keywords_is_hinted_at_on_its_first_line(tmp_path, capsys):
    # no `keywords` line to name: the header's, as a missing field's problem
    write(tmp_path, VALID.replace('keywords = ["eager_break_during_capture"]\n', ""))
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = [h for h in capsys.readouterr().out.splitlines() if ": hint: " in h]
    assert [h.split(": hint: ")[0] for h in hints] == [
        f"{tmp_path / 'vllm-test0001.md'}:1: keywords"
    ]


def test_check_hints_at_prs_the_text_names_that_read_with_does_not_list(tmp_path, capsys):
    named = VALID.replace(
        'summary_en = "Shows how a function pointer picks the eager region."',
        'summary_en = "Read it with PRs 38390 (the base), 49994 and 47941, after PR 52401."\n'
        "read_with = [49994]\nissues = [52448]",
    ).replace(
        "值得精读。正文。", "值得精读。与 #47941 串读；参考 NVIDIA/nccl#574、#52448 与 #9129。"
    )
    write(tmp_path, named)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = capsys.readouterr().out.splitlines()[1:]
    # not its source PR (52401), not one already listed (a PR or an issue), not another
    # repository's
    assert [h.split("PR ")[1].split(";")[0] for h in hints] == ["38390", "47941", "9129"]
    # each on the line that names it, the summary's or the guidance's
    assert [h.split(": ")[0].rsplit(":", 1)[1] for h in hints] == ["11", "11", "17"]
    assert hints[0] == (
        f"{tmp_path / 'vllm-test0001.md'}:11: summary_en: hint: its text names PR 38390; add"
        " it to read_with if a reviewer of that PR should get this note (to issues if it is an"
        " issue its PR fixes)"
    )
    assert hints[2].startswith(f"{tmp_path / 'vllm-test0001.md'}:17: guidance: hint: its text")


# kills: bot/lint_messages.py:_unlisted_prs a note with no source_pr not asked whether a PR its
#   text names is its own, or one with it asked
def test_a_note_with_no_source_pr_is_asked_whether_a_pr_its_text_names_is_its_own(tmp_path, capsys):
    # A curator who left source_pr out (it is optional) but names the PR in the guidance
    # was told only to add it to read_with, which shows the note on that PR without it
    # being the one the note reviews
    write(tmp_path, VALID.replace("source_pr = 52401\n", "").replace("正文。", "见 PR 52401。"))
    write(
        tmp_path,
        VALID.replace("vllm-test0001", "vllm-test0002")
        .replace("按 runner", "另一篇")
        .replace("正文。", "见 PR 52402。"),
        "vllm-test0002.md",
    )
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = [h for h in capsys.readouterr().out.splitlines() if "its text names" in h]
    assert hints == [
        f"{tmp_path / 'vllm-test0001.md'}:14: guidance: hint: its text names PR 52401; set"
        " source_pr = 52401 if the note is about it, or add it to read_with if a reviewer of"
        " that PR should get this note (to issues if it is an issue its PR fixes)",
        f"{tmp_path / 'vllm-test0002.md'}:15: guidance: hint: its text names PR 52402; add it"
        " to read_with if a reviewer of that PR should get this note (to issues if it is an"
        " issue its PR fixes)",
    ]


# kills: bot/notes_lint.py:unlisted_prs the lines counted from the guidance's second
#   character, not its first (a guidance opening with a blank line)
def test_a_pr_named_below_a_blank_first_line_is_hinted_at_on_its_line(tmp_path, capsys):
    path = write(tmp_path, VALID.replace("值得精读。正文。", "\n值得精读。见 PR 52402。"))
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = [h for h in capsys.readouterr().out.splitlines() if "its text names" in h]
    assert [h.split(": hint: ")[0] for h in hints] == [f"{path}:16: guidance"]


def test_check_hints_at_pr_numbers_run_into_chinese_text(tmp_path, capsys):
    # Chinese characters are word characters to Python: "与#38390串" has no ASCII edge
    named = VALID.replace(
        "值得精读。正文。",
        "值得精读。建议与#38390串读；另见PR47941和PR 52401，PR#51000 与"
        " vllm-project/vllm#51001（不是 acme/vllm#51002）。",
    )
    write(tmp_path, named)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = capsys.readouterr().out.splitlines()[1:]
    numbers = [h.split("PR ")[1].split(";")[0] for h in hints]
    assert numbers == ["38390", "47941", "51000", "51001"]


def test_check_hints_at_an_aspect_that_is_also_a_keyword(tmp_path, capsys):
    both = VALID.replace(
        'keywords = ["eager_break_during_capture"]',
        'keywords = ["eager_break_during_capture", "MRV1"]\naspects = ["mrv1", "eager"]',
    )
    (tmp_path / "cuda").mkdir()  # in a sub-folder, named as the warnings name it
    write(tmp_path / "cuda", both)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = capsys.readouterr().out.splitlines()[1:]
    assert hints == [
        f"{tmp_path / 'cuda' / 'vllm-test0001.md'}:8: aspects: hint: aspect 'mrv1' is also one"
        " of its keywords, which counts without the topic; keep it in one list"
    ]


def test_a_very_long_keyword_is_checked_and_served(tmp_path, capsys):
    # some 1,000 characters made check (and the server at start) die with a
    # RecursionError from the keyword index: both read it now, as any other keyword
    long_keyword = "preemption order " * 80 + "fix"
    write(tmp_path, VALID.replace("eager_break_during_capture", long_keyword))
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    assert capsys.readouterr().out.startswith("ok: 1 notes")


def test_check_ok_means_the_server_starts_on_the_same_taxonomy(tmp_path, capsys, monkeypatch):
    # a curator renames a topic in topics.toml and in its one note, then checks until ok:
    # config/matching.toml still weighs the old name, which the server refuses at start
    monkeypatch.delenv("REVIEW_NOTES_MATCHING_FILE", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here (yet)
    notes = tmp_path / "notes"
    notes.mkdir()
    for path in (ROOT / "seeds" / "notes").glob("*.md"):
        text = path.read_text("utf-8").replace('"watermarking"', '"watermarks"')
        (notes / path.name).write_text(text, "utf-8")
    topics = tmp_path / "topics.toml"
    topics.write_text(
        TOPICS.read_text("utf-8").replace('id = "watermarking"', 'id = "watermarks"'), "utf-8"
    )
    argv = ["notes", "check", str(notes), "--topics", str(topics)]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    matching = (ROOT / "config" / "matching.toml").read_text("utf-8")
    line = matching.split("\n").index("watermarking = 1.6") + 1
    assert err == [
        f"{ROOT / 'config' / 'matching.toml'}:{line}: topic_scale: unknown topic 'watermarking':"
        f" no topic has this id in {topics}; did you mean 'watermarks'? (that is the topic's"
        " name: name it by its id)",
        "1 problem(s)",
    ]
    fixed = tmp_path / "matching.toml"  # with the title vocabulary it names beside it
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    fixed.write_text(matching.replace("watermarking =", "watermarks ="), "utf-8")
    assert main([*argv, "--config", str(fixed)]) == 0
    monkeypatch.setenv("REVIEW_NOTES_MATCHING_FILE", str(fixed))  # what the server reads
    assert main(argv) == 0
    # ... also from a .env file, as the server does
    monkeypatch.delenv("REVIEW_NOTES_MATCHING_FILE")
    (tmp_path / ".env").write_text(f"REVIEW_NOTES_MATCHING_FILE={fixed}\n", "utf-8")
    assert main(argv) == 0
    assert main([*argv, "--config", str(tmp_path / "missing.toml")]) == 1
    assert "missing.toml:1: file: cannot read: No such file or directory" in capsys.readouterr().err


def _matching_problems(tmp_path: Path, capsys, edit: tuple[str, str]) -> tuple[list[str], str]:
    """`notes check` of a valid note with config/matching.toml edited so: the problems
    without the file name, and the text checked."""
    write(tmp_path / "notes", VALID)
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    matching = (ROOT / "config" / "matching.toml").read_text("utf-8")
    assert edit[0] in matching
    config = tmp_path / "matching.toml"
    config.write_text(matching.replace(*edit, 1), "utf-8")
    argv = ["notes", "check", str(tmp_path / "notes"), "--topics", str(TOPICS)]
    assert main([*argv, "--config", str(config)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"{len(err) - 1} problem(s)"
    return [line.removeprefix(f"{config}:") for line in err[:-1]], config.read_text("utf-8")


def test_a_matching_config_that_does_not_compile_is_reported_as_before(monkeypatch):
    # the matcher the server keeps is compiled by `checked_matcher`; `notes check` still
    # runs that compile (checked_match_config) and names the file for what it refuses
    import bot.match_config
    from bot.config_files import ConfigError

    def refuse(library, config):
        raise ValueError("topic_scale, family_topics or upkeep_topics names unknown topic(s): x")

    monkeypatch.setattr(bot.match_config, "CompiledMatcher", refuse)
    for check in (checked_match_config, bot.match_config.checked_matcher):
        with pytest.raises(ConfigError) as caught:
            check(load_library(), DEFAULT_MATCHING_FILE)
        assert str(caught.value) == (
            f"{DEFAULT_MATCHING_FILE}:1: config: topic_scale, family_topics or upkeep_topics"
            " names unknown topic(s): x"
        )


# kills: bot/match_config.py:checked_matcher (hand) the taxonomy an unknown topic's problem
#   names, a parameter defaulting to the shipped file: a caller passing a library read from
#   another taxonomy but not its file was told of the shipped one
def test_the_matcher_names_the_taxonomy_its_library_was_read_from(tmp_path):
    topics = tmp_path / "topics.toml"
    shutil.copy(TOPICS, topics)
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    config = tmp_path / "matching.toml"
    matching = DEFAULT_MATCHING_FILE.read_text("utf-8")
    config.write_text(matching.replace('"kv-connector"]', '"kv-conector"]', 1), "utf-8")
    library = load_library(DEFAULT_NOTES_DIR, topics)
    with pytest.raises(LibraryError) as caught:  # a ConfigError
        checked_match_config(library, config)
    [problem] = caught.value.problems
    assert f"no topic has this id in {topics};" in problem.message


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        pytest.param(
            ('family_topics = ["kv-connector"]', 'family_topics = ["kv-conector"]'),
            (
                'family_topics = ["kv-conector"]',
                "family_topics: unknown topic 'kv-conector': no topic has this id in"
                f" {TOPICS}; did you mean 'kv-connector'?",
            ),
            id="unknown-family-topic",
        ),
        pytest.param(
            ('"hardware-ci", "test-fixtures"]', '"hardware-ci",\n  "test-fixture"]'),
            (
                '  "test-fixture"]',
                "upkeep_topics: unknown topic 'test-fixture': no topic has this id in"
                f" {TOPICS}; did you mean 'test-fixtures'?",
            ),
            id="unknown-topic-on-its-element-line",
        ),
        pytest.param(
            ('aux_files = ["docs/"', 'aux_files = ["docs/["'),
            ('aux_files = ["docs/["', "aux_files: bad glob 'docs/[': unclosed '[' at position 6"),
            id="bad-glob",
        ),
        pytest.param(
            ("tag = 2.5", 'tag = "high"'),
            ('tag = "high"', "weights.tag: Input should be a valid number, unable to parse string"),
            id="a-field-of-a-table",
        ),
        pytest.param(
            ("max_notes = 3", "max_notes = 3\nmax_notes = 4"),
            ("max_notes = 4", "max_notes: `max_notes` is set twice (first on line "),
            id="malformed",
        ),
        pytest.param(  # was "Cannot declare ('weights',) twice (column 9)"
            ("\n[topic_scale]", "\n[weights]  # again\n[topic_scale]"),
            ("[weights]  # again", "weights: `[weights]` is declared twice (first on line "),
            id="table-declared-twice",
        ),
    ],
)
def test_matching_config_problems_name_line_and_field(tmp_path, capsys, edit, expected):
    # docs/curating.md: `notes check` prints every problem as file:line: field: message; the
    # matching config's were "<file>: topic_scale, family_topics or upkeep_topics names
    # unknown topic(s): kv-conector" and "<file>: unclosed '[' at position 6"
    problems, text = _matching_problems(tmp_path, capsys, edit)
    at, said = expected
    line = next(i for i, s in enumerate(text.split("\n"), 1) if s.startswith(at))
    assert len(problems) == 1 and problems[0].startswith(f"{line}: {said}"), problems


def test_a_symlink_loop_in_the_notes_directory_is_read_once(tmp_path, capsys):
    # `current -> .`: followed for ever, it hid every note behind one "cannot read"
    write(tmp_path, VALID)
    (tmp_path / "current").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path, target_is_directory=True)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    assert capsys.readouterr().out.startswith("ok: 1 notes")


def test_a_symlink_to_a_note_that_is_gone_is_named_as_one(tmp_path):
    """Defect: a note file that is a link to a note moved or deleted since was told
    "cannot read: No such file or directory", of a file the curator sees listed."""
    write(tmp_path, VALID)
    link = tmp_path / "vllm-test0002.md"
    link.symlink_to(tmp_path / "drafts" / "vllm-test0002.md")
    assert problems_of(tmp_path) == [
        f"{link}:1: file: a symbolic link to {tmp_path / 'drafts' / 'vllm-test0002.md'},"
        " which does not exist: point it at the note, or delete it"
    ]


def test_check_without_paths_checks_the_notes_the_server_serves(tmp_path, capsys, monkeypatch):
    # a deployment keeps its notes elsewhere: `notes check` with no arguments must check
    # those (REVIEW_NOTES_NOTES_DIR / _TOPICS_FILE, or .env), not the shipped seeds
    monkeypatch.chdir(tmp_path)
    notes = tmp_path / "served"
    notes.mkdir()
    bad = write(notes, VALID.replace('"rocm"', '"nope"'))
    monkeypatch.setenv("REVIEW_NOTES_NOTES_DIR", str(notes))
    assert main(["notes", "check"]) == 1
    said = f"{bad}:6: topics: unknown topic 'nope': no topic has this id in {TOPICS}{NO_SUCH_TOPIC}"
    assert capsys.readouterr().err.splitlines()[0] == said
    topics = tmp_path / "topics.toml"
    nope = '\n[[topic]]\nid = "nope"\nname_en = "Nope"\nname_zh = "无"\nkeywords = ["nope"]\n'
    topics.write_text(TOPICS.read_text("utf-8") + nope, "utf-8")
    (tmp_path / ".env").write_text(f"REVIEW_NOTES_TOPICS_FILE={topics}\n", "utf-8")
    assert main(["notes", "check"]) == 0
    assert capsys.readouterr().out.startswith("ok: 1 notes")
    assert main(["notes", "check", str(ROOT / "seeds" / "notes"), "--topics", str(TOPICS)]) == 0
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")  # the server would not start either
    assert main(["notes", "check"]) == 2
    assert "configuration error" in capsys.readouterr().err


def test_check_warns_of_a_keyword_as_common_as_fix_and_a_glob_matching_everywhere(tmp_path, capsys):
    # `fix` linked the note on 21 of 203 random PRs, `paths = ["*"]` on 7: a warning on
    # the keyword's and the glob's line (the title vocabulary says how common a word is,
    # `common_keyword_share` from when); still exit 0, nothing refused
    broad = VALID.replace(
        'keywords = ["eager_break_during_capture"]',
        'keywords = ["eager_break_during_capture", "fix", "eager region"]',
    ).replace('paths = ["vllm/models/deepseek_v4/attention.py"]', 'paths = ["**/*.py", "vllm/"]')
    path = write(tmp_path, broad)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    out = capsys.readouterr().out.splitlines()
    warnings = [line for line in out if ": warning: " in line]
    assert [w.split(": warning: ")[0] for w in warnings] == [
        f"{path}:7: keywords",
        f"{path}:8: paths",
        f"{path}:8: paths",
    ]
    assert "'fix' is in 26% of vLLM's PR titles (common_keyword_share 0.02)" in warnings[0]
    assert "'**/*.py' matches files all over the tree" in warnings[1]
    assert "'vllm/'" in warnings[2]
    write(tmp_path, VALID)  # the shipped notes and a specific one: no warning
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    assert main(["notes", "check", str(DEFAULT_NOTES_DIR), "--topics", str(TOPICS)]) == 0
    assert ": warning: " not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("pattern", "broad"),
    [
        *[(p, True) for p in ("vllm", "vllm/", "/vllm", "vllm/**", "/vllm/**/", "*", "**/*.py")],
        *[(p, False) for p in ("setup.py", "/setup.py", "vllm/v1", "vllm/*.py", "tests/x/")],
        # every file of a type below a top-level directory
        *[(p, True) for p in ("vllm/**/*.py", "/vllm/**/*", "csrc/**/*.cu", "vllm/**.py")],
        *[
            (p, False)
            for p in ("vllm/v1/**/*.py", "vllm/**/fused_moe*.py", "vllm/**/lora/", "**/lora/**")
        ],
        # a wildcard directory, or a name every package repeats
        *[(p, True) for p in ("vllm/*/*.py", "vllm/*/*/*", "**/__init__.py", "**/utils.py")],
        *[(p, False) for p in ("vllm/lora/__init__.py", "**/cuda_graph.py", "vllm/*/lora/")],
        # the root's own file is specific; a wildcard directory
        # below the top one, or a repeated name below it, is as broad as the rest
        *[(p, False) for p in ("/CMakeLists.txt", "/README.md", "csrc/CMakeLists.txt")],
        *[(p, True) for p in ("vllm/*/", "vllm/*/**", "vllm/**/__init__.py", "__init__.py")],
        *[(p, True) for p in ("vllm/**/utils.py", "/**/utils.py", "*/conftest.py")],
    ],
)
def test_a_whole_directory_is_broad_however_it_is_written(pattern, broad):
    # `vllm` matches what `vllm/` matches (bot.globs): only the slash was flagged
    assert broad_glob(pattern) is broad


# kills: bot/notes_lint.py:common_keywords a keyword in exactly `share` of the titles not warned of
# kills: bot/notes_lint.py:common_keywords a word no title has counted as found in one title
def test_a_keyword_in_exactly_the_share_of_titles_is_common_and_one_in_none_is_not(tmp_path):
    # "at least `share` of vLLM's PR titles": a word in 1 of 4 titles at share 0.25 is
    # common; a word the vocabulary never saw is the rarest, whatever the share
    keywords = 'keywords = ["eager_break_during_capture", "capture", "xyzzy"]'
    write(tmp_path, VALID.replace('keywords = ["eager_break_during_capture"]', keywords))
    library = load_library(tmp_path, TOPICS)
    vocab = Vocabulary(4, {"capture": 1})
    assert [(k, share) for _, k, share in common_keywords(library, vocab, 0.25)] == [
        ("capture", 0.25)
    ]
    assert common_keywords(library, vocab, 0.26) == []


def test_check_warns_of_a_note_for_a_repository_the_bot_does_not_serve(
    tmp_path, capsys, monkeypatch
):
    # the server answers REVIEW_NOTES_REPOS only: such a note is never shown
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("REVIEW_NOTES_REPOS", "vllm-project/vllm,Acme/VLLM")
    path = write(tmp_path / "notes", VALID.replace('"vllm-project/vllm"', '"someone/fork"'))
    argv = ["notes", "check", str(tmp_path / "notes"), "--topics", str(TOPICS)]
    assert main(argv) == 0
    warnings = [line for line in capsys.readouterr().out.splitlines() if "warning" in line]
    assert warnings == [
        f"{path}:3: repo: warning: 'someone/fork' is not a repository the bot serves"
        " (REVIEW_NOTES_REPOS: vllm-project/vllm, acme/vllm): no PR gets this note"
    ]
    write(tmp_path / "notes", VALID.replace('"vllm-project/vllm"', '"ACME/vllm"'))
    assert main(argv) == 0  # GitHub's names ignore case
    assert "warning" not in capsys.readouterr().out


# --- what a curator writing a note from scratch hits ------------------------------

# A note written as docs/curating.md's field table asks (line numbers matter).
LORA_NOTE = """\
+++
id = "vllm-test0001"
repo = "vllm-project/vllm"
source_pr = 51234
verdict = "quick"
topics = ["lora"]
keywords = ["punica_wrapper", "LoRA slot"]
paths = ["vllm/lora/punica_wrapper/"]
title_zh = "修复 LoRA 适配器槽位回收时的越界访问"
title_en = "Fix out-of-bounds LoRA slot reuse in the punica wrapper"
summary_en = "A small bugfix: freed LoRA slots were reused before their mapping was cleared."
created = 2026-09-01
+++
值得快速阅读。PR 修复了 punica_wrapper 在回收 LoRA 槽位时没有清理索引映射导致的越界访问。
"""


def check_output(notes_dir: Path, capsys, *extra: str) -> tuple[int, str]:
    status = main(["notes", "check", str(notes_dir), "--topics", str(TOPICS), *extra])
    captured = capsys.readouterr()
    return status, captured.out + captured.err


@pytest.mark.parametrize(
    "keywords",
    [
        # a Chinese input method's enumeration comma between two terms: one keyword
        'keywords = ["punica_wrapper、LoRA slot"]',
        # full-width Latin letters, as a Chinese input method types them
        'keywords = ["punica_wrapper", "ＬｏＲＡ slot"]',
    ],
    ids=["enumeration-comma", "full-width-letters"],
)
def test_a_keyword_typed_with_a_chinese_input_method_is_named_by_check(tmp_path, capsys, keywords):
    # The keyword can never match a PR ("Fix the LoRA slot reuse" did not hit it), yet
    # `notes check` printed "ok", though it names an ideographic space (U+3000) in a
    # keyword for this very reason: the same input method types the comma and letters.
    # It is a problem as U+3000 is (the server refuses it too).
    path = write(
        tmp_path, LORA_NOTE.replace('keywords = ["punica_wrapper", "LoRA slot"]', keywords)
    )
    status, out = check_output(tmp_path, capsys)
    assert status == 1 and f"{path}:7: keywords:" in out, out
    assert "write 'LoRA slot'" in out or '["punica_wrapper", "LoRA slot"]' in out
    write(tmp_path, LORA_NOTE)  # as meant, the keyword matches
    library = load_library(tmp_path, TOPICS)
    config = checked_match_config(library, DEFAULT_MATCHING_FILE)
    facts = PRFacts(repo="vllm-project/vllm", number=0, title="Fix the LoRA slot reuse")
    reasons = [r for m in match_pr(facts, library, config).matches for r in m.reasons]
    assert any("a term this note is about" in r for r in reasons)


# kills: bot/notes_lint.py:shared_fields a field two notes share left unsaid
def test_a_note_copied_from_another_is_warned_of_each_field_it_kept(tmp_path, capsys):
    # docs/curating.md, "To add a note by hand": copy an existing note, then fill in the header. A
    # curator who rewrote the id and title_zh but not the rest passed with `ok` alone:
    # the copy's comment showed the other note's English title and summary, both notes
    # were posted on the other note's PR, and the copy claimed its digest entry.
    first = LORA_NOTE.replace("created = 2026-09-01", 'source = "001_x.txt#2"')
    write(tmp_path, first)
    copy = first.replace("vllm-test0001", "vllm-test0002").replace("修复 LoRA", "修复 punica")
    path = write(tmp_path, copy, "vllm-test0002.md")
    status, out = check_output(tmp_path, capsys)
    warned = [line.split(": warning: ")[0] for line in out.splitlines() if ": warning: " in line]
    assert status == 0
    assert warned == [
        f"{path}:{n}: {field}"
        for n, field in [(4, "source_pr"), (10, "title_en"), (11, "summary_en"), (12, "source")]
    ]
    assert f"PR 51234 is the source_pr of {tmp_path / 'vllm-test0001.md'} too" in out


def test_notes_with_their_own_fields_or_another_repositorys_pr_are_not_warned_of(tmp_path, capsys):
    write(tmp_path, LORA_NOTE)
    own = (
        LORA_NOTE.replace("vllm-test0001", "vllm-test0002")
        .replace("修复 LoRA", "修复 punica")
        .replace("Fix out-of-bounds", "Fix out-of-range")
        .replace("A small bugfix", "A bugfix")
        .replace('repo = "vllm-project/vllm"', 'repo = "vllm-project/vllm-ascend"')
    )
    write(tmp_path, own, "vllm-test0002.md")
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    assert status == 0 and [w for w in warned if ": repo: " not in w] == [], out


def test_a_verdict_that_contradicts_the_guidance_is_named_by_check(tmp_path, capsys):
    # The curator edits the header's verdict (or rewrites the guidance's first sentence)
    # and the two disagree: the comment then showed "Deep read · 值得精读" above a "full
    # guidance" link whose first words are 不需要精读. A warning, not a problem: the
    # reading is a heuristic (below), and a refused note stops the server.
    text = LORA_NOTE.replace('verdict = "quick"', 'verdict = "deep"').replace(
        "值得快速阅读。", "不需要精读。"
    )
    path = write(tmp_path, text)
    assert derive_verdict("不需要精读。PR 修复了越界访问。") == Verdict.SKIP
    assert problems_of(tmp_path) == []
    status, out = check_output(tmp_path, capsys)
    assert status == 0
    said = f"{path}:5: verdict: warning: 'deep' (Deep read), but the guidance reads as 不需要精读"
    assert said in out, out


def test_a_title_or_summary_longer_than_the_comment_shows_is_warned_of(tmp_path, capsys):
    # The comment cuts a title past 300 characters and a summary past 1,500 with '…'
    # (bot.render), the notes pages show them whole: a summary pasted as the title was
    # cut in every comment, and check said `ok`
    long_title = "Pick the eager region per model runner " + "a" * 262  # 301
    text = (
        VALID.replace("Pick the eager region per model runner", long_title)
        .replace("按 runner 选择 eager 区域", "按" * 300)  # 300: shown whole
        .replace("Shows how a function pointer picks the eager region.", "x " * 751)  # 1,501
    )
    path = write(tmp_path, text)
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    assert status == 0
    assert warned == [
        f"{path}:10: title_en: warning: 301 characters, of which the comment shows 300 (cut"
        " with '…'): a title names the mechanism; the summary says the rest",
        f"{path}:11: summary_en: warning: 1,501 characters, of which the comment shows 1,500"
        " (cut with '…'): a summary is one or two sentences; the guidance says the rest",
    ]


def test_a_chinese_keyword_or_aspect_in_traditional_characters_is_warned_of(tmp_path, capsys):
    # An input method left in Traditional mode types 前綴緩存 for 前缀缓存: a Chinese term
    # matches only as written, so the keyword never matched a PR, and check said `ok`
    text = VALID.replace(
        '["eager_break_during_capture"]',
        '[\n  "eager_break_during_capture",\n  "前缀缓存",\n  "前綴緩存（APC）",\n]',
    ).replace("title_zh =", 'aspects = ["內核", "内核"]\ntitle_zh =')
    path = write(tmp_path, text)
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    assert status == 0
    assert warned == [
        f"{path}:10: keywords: warning: '前綴緩存（APC）' is written in Traditional characters"
        " (綴, 緩): a Chinese term matches only as written, and a PR's Chinese text is"
        " Simplified, as the guidance is; write it in Simplified",
        f"{path}:13: aspects: warning: '內核' is written in Traditional characters (內): a"
        " Chinese term matches only as written, and a PR's Chinese text is Simplified, as"
        " the guidance is; write it in Simplified",
    ]


def test_no_seed_note_is_told_it_writes_traditional_characters():
    from bot.notes_lint import traditional_characters

    library = load_library()
    for note in library.notes:  # their guidance and titles: Simplified, as curators write
        assert traditional_characters(note.guidance + note.title_zh) == "", note.id
    assert traditional_characters("前綴緩存前綴") == "綴緩"  # each character once
    # kills: bot/notes_lint.py:_big5_only a character of neither set taken for Traditional
    assert traditional_characters("朱镕基") == ""  # a Simplified one GB2312 lacks


# A phrase the guidance negates, double-negates or quotes reads as the phrase: the
# verdict check must not refuse the curator's right verdict
@pytest.mark.parametrize(
    ("verdict", "guidance"),
    [
        ("skip", "并非值得精读的改动：只是把函数改了个名字。"),
        ("deep", "不是不需要精读：核心改动值得细看。"),
        ("skip", "评审里有人说“值得精读”，其实不需要精读：只是改名。"),
    ],
    ids=["negated", "double-negation", "quoted"],
)
def test_a_verdict_the_guidance_negates_or_quotes_a_phrase_of_is_not_refused(
    tmp_path, verdict, guidance
):
    note = VALID.replace('verdict = "deep"', f'verdict = "{verdict}"')
    write(tmp_path, note.replace("值得精读。正文。", guidance))
    assert problems_of(tmp_path) == [], "a verdict the guidance agrees with was refused"


def test_a_guidance_stating_no_verdict_leaves_the_verdict_to_the_curator(tmp_path):
    for verdict in ("deep", "quick", "skip"):
        write(tmp_path, LORA_NOTE.replace("值得快速阅读。", "").replace('"quick"', f'"{verdict}"'))
        assert problems_of(tmp_path) == []


def test_a_glob_of_every_python_file_under_vllm_is_warned_about(tmp_path, capsys):
    # `vllm/**/*.py` matches every Python file of vLLM (a path is strong evidence: a
    # "[LoRA] Support more models" PR changing vllm/engine/llm_engine.py then gets the
    # LoRA note "changes vllm/engine/llm_engine.py (a path of this note)"). docs/curating.md
    # says check warns of a glob that "matches files all over the tree" (`**/*.py`,
    # `vllm/**`), but this one passed silently.
    path = write(tmp_path, LORA_NOTE.replace('["vllm/lora/punica_wrapper/"]', '["vllm/**/*.py"]'))
    library = load_library(tmp_path, TOPICS)
    config = checked_match_config(library, DEFAULT_MATCHING_FILE)
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=0,
        title="[LoRA] Support more models",
        files=("vllm/engine/llm_engine.py", "vllm/entrypoints/openai/api_server.py"),
    )
    linked = match_pr(facts, library, config).matches
    assert [m.note.id for m in linked] == ["vllm-test0001"]  # on unrelated engine files
    status, out = check_output(tmp_path, capsys)
    assert status == 0
    assert f"{path}:8: paths: warning: path 'vllm/**/*.py' matches files all over" in out, out


def test_renaming_a_topic_names_every_place_to_change_in_one_run(tmp_path, capsys):
    # The curator renames `rocm` to `amd-rocm` in topics.toml and runs check: it listed
    # the two notes naming `rocm`, but not config/matching.toml (`rocm = 0.5` under
    # [topic_scale]), which the server also refuses. Only after fixing the notes did a
    # second run reveal the third file: docs/curating.md says check "prints every problem".
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "seeds" / "notes", notes)
    topics = tmp_path / "topics.toml"
    topics.write_text(TOPICS.read_text("utf-8").replace('id = "rocm"', 'id = "amd-rocm"'), "utf-8")
    argv = ["notes", "check", str(notes), "--topics", str(topics)]
    argv += ["--config", str(DEFAULT_MATCHING_FILE)]
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    line = DEFAULT_MATCHING_FILE.read_text("utf-8").split("\n").index("rocm = 0.5") + 1
    said = f"unknown topic 'rocm': no topic has this id in {topics}; did you mean 'amd-rocm'?"
    assert err == [
        f"{notes / 'vllm-0341d216.md'}:7: topics: {said}",
        f"{notes / 'vllm-64eca4f8.md'}:7: topics: {said}",
        f"{DEFAULT_MATCHING_FILE}:{line}: topic_scale: {said}",
        "3 problem(s)",
    ]
    for f in notes.glob("*.md"):  # the notes fixed: the config's problem alone, as before
        f.write_text(f.read_text("utf-8").replace('"rocm"', '"amd-rocm"'), "utf-8")
    assert main(argv) == 1
    assert capsys.readouterr().err.splitlines() == [err[2], "1 problem(s)"]


def test_the_matching_config_is_checked_when_the_notes_or_the_taxonomy_do_not_load(
    tmp_path, capsys
):
    bad = write(tmp_path / "notes", VALID.replace('verdict = "deep"', 'verdict = "x"'))
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    config = tmp_path / "matching.toml"
    config.write_text(
        DEFAULT_MATCHING_FILE.read_text("utf-8").replace("tag = 2.5", 'tag = "x"'), "utf-8"
    )
    argv = ["notes", "check", str(tmp_path / "notes"), "--config", str(config)]
    assert main([*argv, "--topics", str(TOPICS)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [e.split(": ")[0:2] for e in err[:-1]] == [
        [f"{bad}:5", "verdict"],
        [f"{config}:{line_number(config, 'tag = ')}", "weights.tag"],
    ]
    # a taxonomy that does not load: its own problem, not every topic the config names
    topics = tmp_path / "topics.toml"
    topics.write_text("# nothing yet\n", "utf-8")
    shutil.copy(DEFAULT_MATCHING_FILE, config)
    assert main([*argv, "--topics", str(topics)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:5: verdict: bad verdict 'x'; use one of: deep, quick, skip",
        f"{topics}:1: taxonomy: no [[topic]] tables",
        "2 problem(s)",
    ]


# What a Chinese input method types for `.` (and `"`):
# 1c09048 says check "names what a Chinese input method types for ASCII", but only the
# full-width block U+FF01-U+FF5E and `、` are known. In Chinese punctuation mode an input
# method types `。` (U+3002) for `.`, `“ ”` for `"`, `【 】` for `[ ]`, `——` for `_`: a
# path `.../attention。py` or a keyword `torch。compile` checks clean and can never match
# a PR (the very failure the commit is about), and a TOML error stopped at `“` gets no
# hint (only `，` does).


@pytest.mark.parametrize(
    ("edit", "line"),
    [
        (('attention.py"', 'attention。py"'), 8),
        (('"eager_break_during_capture"', '"torch。compile"'), 7),
        (('"eager_break_during_capture"', '"eager——break"'), 7),
    ],
    ids=["ideographic-full-stop-in-path", "ideographic-full-stop-in-keyword", "dashes-in-keyword"],
)
def test_what_an_input_method_types_for_dot_or_underscore_is_a_problem(tmp_path, edit, line):
    write(tmp_path, VALID.replace(*edit))
    problems = problems_of(tmp_path)
    assert problems and f":{line}: " in problems[0], "a term no PR can hold checked clean"


def test_a_toml_error_stopped_at_an_input_method_quote_says_so(tmp_path):
    write(
        tmp_path, VALID.replace('["eager_break_during_capture"]', "[“eager_break_during_capture”]")
    )
    (problem,) = problems_of(tmp_path)
    assert "Chinese input method" in problem, problem


# A3. Chinese keywords with Chinese punctuation are refused ------------------------
# Terms with Chinese characters match as substrings of the PR's text (docs/matching.md), and Chinese
# text writes full-width punctuation: `前缀缓存（APC）`, `图捕获：eager 区域` are what such
# text holds. Check refuses them as "typed by a Chinese input method for '(' ... which a
# PR's text has instead" and tells the curator to write `前缀缓存(APC)`.


@pytest.mark.parametrize(
    "keyword", ["前缀缓存（APC）", "图捕获：eager 区域"], ids=["parens", "colon"]
)
def test_a_chinese_keyword_may_hold_chinese_punctuation(tmp_path, keyword):
    kw = f'"eager_break_during_capture", "{keyword}"'
    write(tmp_path, VALID.replace('"eager_break_during_capture"', kw))
    assert problems_of(tmp_path) == []


# Full-width letters in a keyword with Chinese characters:
# 0d25361 lets a term with Chinese characters hold anything `note_terms.ascii_typed_as` knows, so
# full-width LETTERS and DIGITS pass too, not only the Chinese punctuation docs/curating.md
# allows ("A keyword with Chinese characters may hold Chinese punctuation (`前缀缓存（APC）`:
# it matches Chinese text, which writes it so)"). Chinese text writes Latin letters in
# ASCII (`KV缓存`, `LoRA 适配器`); `ＫＶ缓存` typed in full-width mode is a non-ASCII term
# matched as a plain substring, so it never matches, yet checks clean (the previous
# release refused it: "full-width letters ... `ＬｏＲＡ`").


def test_full_width_letters_in_a_chinese_keyword_are_still_a_problem(tmp_path):
    assert TermIndex(["ＫＶ缓存"]).find("[Bugfix] 修复 KV缓存 泄漏") == {}  # never matches
    write(tmp_path, VALID.replace('"eager_break_during_capture"', '"ＫＶ缓存"'))
    problems = problems_of(tmp_path)
    assert problems and ":7: keywords:" in problems[0], "'ＫＶ缓存' (full-width KV) checked clean"


def test_full_width_digits_in_a_chinese_keyword_are_still_a_problem(tmp_path):
    write(tmp_path, VALID.replace('"eager_break_during_capture"', '"ＦＰ８量化"'))
    assert problems_of(tmp_path), "'ＦＰ８量化' (full-width FP8) checked clean"


# 3. `——` is one `_`, but the hint says write `__` ------------------------------------
# `_TYPED_FOR` maps each `—` to `_` ("shift and `-` type '——'"), and the hint replaces
# character by character: `vllm/model——executor/...` (typed `model_executor`) is told to
# write `vllm/model__executor/...`, a path no file has (globs match as written); a
# private name `——align——cacheable` is told to write `__align__cacheable` (matched as
# written, underscores included: never `_align_cacheable`). Following the message makes
# the note match nothing. (`……` for `^` likewise.)


def test_the_hint_for_an_input_method_underscore_in_a_path_is_one_underscore(tmp_path):
    path = "vllm/model——executor/layers/fused_moe/layer.py"
    write(tmp_path, VALID.replace('attention.py"', f'attention.py", "{path}"'))
    (problem,) = problems_of(tmp_path)
    assert "model_executor/layers" in problem, problem
    assert "model__executor" not in problem, f"the hint names a path no file has: {problem}"


def test_the_hint_for_an_input_method_underscore_in_a_private_name(tmp_path):
    code = "if self._align_cacheable(block):"
    assert TermIndex(["__align__cacheable"]).find(code) == {}  # the hint's term: no match
    assert TermIndex(["_align_cacheable"]).find(code) != {}
    write(tmp_path, VALID.replace('"eager_break_during_capture"', '"——align——cacheable"'))
    (problem,) = problems_of(tmp_path)
    assert "'_align_cacheable'" in problem, problem


# --- keywords of function words, paths pasted as URLs, notes saved as other files -------


def test_check_warns_of_a_keyword_that_is_an_english_function_word(tmp_path, capsys):
    # docs/curating.md: `notes check` warns of "a note keyword that is one word found in at least
    # `common_keyword_share` of vLLM's PR titles ... links unrelated PRs" (`add`, 15%,
    # is warned of). `the` is in far more titles and every description, yet the check
    # said nothing: the title vocabulary leaves function words out, so the warning
    # (bot.notes_lint.common_keywords, through similarity.title_words) never saw them.
    notes = tmp_path / "notes"
    shutil.copytree(DEFAULT_NOTES_DIR, notes)
    path = notes / "vllm-0436d44c.md"
    text = path.read_text("utf-8")
    path.write_text(
        text.replace('keywords = ["_align_cacheable"', 'keywords = ["the", "_align_cacheable"'),
        "utf-8",
    )
    # the keyword is live: it links this prefix-caching note to an unrelated block-pool PR
    # that no shipped note matched, and the comment says why: "title and description
    # mention 'the'" (both use it)
    library = load_library(notes, TOPICS)
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=60001,
        title="[Core] Fix the block pool eviction for the prefix cache",
        body="This improves the block pool eviction order.",
        files=("vllm/v1/core/block_pool.py",),
        changed_files=1,
    )
    shipped = match_pr(facts, load_library(), load_match_config())
    assert not shipped.matches
    result = match_pr(facts, library, load_match_config())
    assert [m.note.id for m in result.matches] == ["vllm-0436d44c"]
    reason = "title and description mention 'the' (a term this note is about)"
    assert reason in result.matches[0].reasons
    status, out = check_output(notes, capsys)
    assert status == 0
    warned = [line for line in out.splitlines() if ": warning: " in line and "'the'" in line]
    assert warned, f"no warning for the keyword 'the':\n{out}"
    assert "only English function words, single letters or numbers" in warned[0]


def test_check_warns_of_keywords_of_words_no_title_frequency_measures(tmp_path, capsys):
    # a phrase of function words and a bare number are left out of the vocabulary too;
    # a Chinese keyword has no ASCII word to measure and is no such keyword
    keywords = '["eager_break_during_capture", "in the", "100", "前缀缓存"]'
    write(tmp_path, VALID.replace('["eager_break_during_capture"]', keywords))
    status, out = check_output(tmp_path, capsys)
    assert status == 0
    warned = [line.split(": warning: ")[1] for line in out.splitlines() if ": warning: " in line]
    assert [w.split(" holds only")[0] for w in warned] == ["'100'", "'in the'"], out


def test_a_path_pasted_as_a_github_url_is_named_by_check(tmp_path, capsys):
    # A curator copies the file's address from the browser, or types a double slash:
    # neither can ever match a changed file (GitHub's paths have no empty segment, no
    # `https:` directory), yet `notes check` printed `ok` and no warning: silently dead
    # evidence (bot.globs.glob_to_regex refused `.` and `..` parts, not empty ones). Now
    # each is a problem on its line, as `./vllm/x.py` is.
    url = "https://github.com/vllm-project/vllm/blob/main/vllm/models/deepseek_v4/attention.py"
    double = "vllm/models//deepseek_v4/attention.py"
    real = "vllm/models/deepseek_v4/attention.py"
    note = VALID.replace(f'paths = ["{real}"]', f'paths = ["{url}", "{double}"]')
    path = write(tmp_path, note)
    status, out = check_output(tmp_path, capsys)
    assert status == 1
    named = [line for line in out.splitlines() if line.startswith(f"{path}:8: paths:")]
    assert len(named) == 2, f"neither path is named:\n{out}"
    assert "a URL, not a path" in named[0] and "no empty parts" in named[1], named


def test_a_note_saved_under_another_extension_is_not_silently_left_out(tmp_path, capsys):
    # An editor that saves `vllm-test0002.md.txt` (Windows Notepad) or `.MD`: the file is
    # a complete note, yet `notes check` said `ok: 1 notes` and named neither file, and
    # the server started without them: the notes were lost without a word. Now each is a
    # problem (the server refuses to start on it, as on any); a file that is no note
    # (a README.txt, an image) beside the notes is still left alone.
    write(tmp_path, VALID)
    other = VALID.replace("vllm-test0001", "vllm-test0002").replace("52401", "52402")
    write(tmp_path, other, "vllm-test0002.md.txt")
    write(tmp_path, "\ufeff" + other.replace("vllm-test0002", "vllm-test0003"), "vllm-test0003.MD")
    write(tmp_path, "Notes on CUDA graphs, one file each.\n", "README.txt")
    (tmp_path / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    status, out = check_output(tmp_path, capsys)
    assert status == 1
    assert "vllm-test0002.md.txt" in out and "vllm-test0003.MD" in out, out
    assert "README.txt" not in out and "diagram.png" not in out, out
    assert (
        f"{tmp_path / 'vllm-test0002.md.txt'}:1: file: a note not named *.md is not loaded" in out
    )


# --- an editor's backup beside a note; a Chinese keyword holding a letter or a digit ---


def test_an_editor_backup_beside_a_note_does_not_stop_the_library(tmp_path):
    # 4c84623 makes every file under the notes directory that opens with `+++` and is
    # not *.md a problem. An editor's backup (Emacs `x.md~`) or a merge tool's
    # `x.md.orig` is such a file: the curator's note loads fine, yet `notes check`
    # fails and the server refuses to start, telling the curator to "rename it to
    # <id>.md", which would make a second note with the same id.
    write(tmp_path, VALID)
    write(tmp_path, VALID, "vllm-test0001.md~")
    write(tmp_path, VALID, "vllm-test0001.md.orig")
    library, problems = check_library(tmp_path, TOPICS)
    assert problems == [], [str(p) for p in problems]
    assert library is not None and [n.id for n in library.notes] == ["vllm-test0001"]


def test_a_chinese_keyword_with_a_letter_or_digit_is_no_function_word(tmp_path, capsys):
    # 42e4261: a keyword "holding only English function words, single letters or
    # numbers" is warned of as linking unrelated PRs. A Chinese keyword matches as a
    # substring of Chinese text and is specific; one that also writes a letter or a
    # digit (`P/D 分离`, PD disaggregation; `第2阶段`) has only such ASCII words, and
    # gets the warning "holds only English function words ... it links unrelated PRs".
    keywords = '["eager_break_during_capture", "P/D 分离", "第2阶段"]'
    write(tmp_path, VALID.replace('["eager_break_during_capture"]', keywords))
    status, out = check_output(tmp_path, capsys)
    assert status == 0
    warned = [line for line in out.splitlines() if "holds only English function words" in line]
    assert warned == [], "\n".join(warned)


# --- a Chinese keyword's English word, dates, repeated keywords, arrays left open ---

# a note of the moe-kernels topic
MOE_NOTE = """\
+++
id = "vllm-test0001"
repo = "vllm-project/vllm"
source_pr = 52401
verdict = "deep"
topics = ["moe-kernels"]
keywords = ["fused_moe_kernel"]
paths = ["vllm/model_executor/layers/fused_moe/fused_moe.py"]
title_zh = "MoE 内核分块调优"
title_en = "Tune the fused MoE kernel's block sizes"
summary_en = "Shows how the fused MoE kernel picks its block sizes per shape."
created = 2026-08-14
updated = 2026-12-02
+++
值得精读。正文。
"""


def test_check_does_not_call_a_chinese_keyword_common_for_its_english_word(tmp_path, capsys):
    """Defect (low): `notes check` warns that the keyword 'MoE 内核' "is in 5% of vLLM's PR
    titles ... it links unrelated PRs; name the mechanism". It is not: a keyword with any
    non-ASCII character matches as a plain substring (bot/terms.py), so 'MoE 内核' never
    hits "[MoE] Add MoE support for Qwen3"; the lint measured only its ASCII word `MoE`
    (`title_words` drops the Chinese one). The false warning tells the curator to drop a
    specific Chinese keyword (`fix 槽位泄漏` is called 26%).
    docs/curating.md: the warning is for "a note keyword that is one word found in at least
    `common_keyword_share` of vLLM's PR titles" that "links unrelated PRs"."""
    notes = tmp_path / "notes"
    write(notes, MOE_NOTE.replace('["fused_moe_kernel"]', '["fused_moe_kernel", "MoE 内核"]'))
    # the keyword does not link a PR whose title only says MoE
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=60002,
        title="[MoE] Add MoE support for Qwen3",
        body="",
        files=(),
        changed_files=0,
    )
    result = match_pr(facts, load_library(notes, TOPICS), load_match_config())
    assert not any("MoE 内核" in r for m in result.matches for r in m.reasons)

    assert main(["notes", "check", str(notes), "--topics", str(TOPICS)]) == 0
    out = capsys.readouterr().out
    warned = [line for line in out.splitlines() if "warning" in line and "MoE 内核" in line]
    assert warned == [], warned


def test_check_refuses_a_number_for_a_date(tmp_path):
    """Defect (low): `created = 0` (or any whole number of days in seconds, `created =
    1755216000`) passes `notes check` and loads as 1970-01-01 (2025-08-15): pydantic reads
    an integer as a Unix time. A wrong type is accepted silently and the notes pages sort
    by that date. `source_pr` is StrictInt for the same reason ("TOML's `true` is not PR
    1"); `created = 20260815` is refused, but with pydantic's "Datetimes provided to dates
    should have zero time".
    docs/curating.md (field table): `created` "the PR's creation date (`2026-08-15`, no quotes)";
    standard: "a malformed note names file, line and field"."""
    path = write(tmp_path, MOE_NOTE.replace("created = 2026-08-14", "created = 0"))
    _, problems = check_library(tmp_path, TOPICS)
    assert [(p.line, p.field) for p in problems] == [(12, "created")], [str(p) for p in problems]
    assert path.read_text("utf-8").split("\n")[11] == "created = 0"


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("1755216000", "1755216000 is not a date: write one as 2026-08-15, without quotes"),
        # a quoted date is told the date it holds, not the example
        ('"2026-08-14"', '"2026-08-14" is a string: write the date without quotes, as 2026-08-14'),
        ('"2026/02/10"', '"2026/02/10" is a string: write the date without quotes, as 2026-02-10'),
        (
            '"2026年2月10日"',
            '"2026年2月10日" is a string: write the date without quotes, as 2026-02-10',
        ),
        # one day or month first was told the example, not the date written
        (
            '"14/08/2026"',
            '"14/08/2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-08-14",
        ),
        (
            '"Aug 14 2026"',
            '"Aug 14 2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-08-14",
        ),
        (  # either may be the day: both readings
            '"07/12/2026"',
            '"07/12/2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-12-07 if 07 is the day, 2026-07-12 if it is the month",
        ),
        (
            '"7.12.2026"',
            '"7.12.2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-12-07 if 7 is the day, 2026-07-12 if it is the month",
        ),
        ('"31/02/2026"', '"31/02/2026" is a string: write the date without quotes, as 2026-08-15'),
        # kills: bot/toml_errors.py:other_date `0 < first` -> `1 < first` (01/05 read as
        #   January 5th alone), `-1 < first` (00/05 a crash), `first > 12` -> `> 13`
        (
            '"01/05/2026"',
            '"01/05/2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-05-01 if 01 is the day, 2026-01-05 if it is the month",
        ),
        (
            '"13/08/2026"',
            '"13/08/2026" is a string: write the date year-month-day, without quotes, as'
            " 2026-08-13",
        ),
        ('"00/05/2026"', '"00/05/2026" is a string: write the date without quotes, as 2026-08-15'),
        # one that is no date: the format
        ('"2026-02-30"', '"2026-02-30" is a string: write the date without quotes, as 2026-08-15'),
        ('"last week"', '"last week" is a string: write the date without quotes, as 2026-08-15'),
        (
            "2026-02-10T10:00:00",
            "2026-02-10T10:00:00 is a date and time: write the date alone, as 2026-02-10",
        ),
        # one TOML cannot read as a date: named under its field all the same
        (
            "2026-02-30",
            "2026-02-30 is not a date (day is out of range for month): write year-month-day,"
            " as 2026-08-15",
        ),
        (
            "2026-8-14  # PR opened",
            "2026-8-14 is not a date (month and day take two digits): write year-month-day,"
            " as 2026-08-14",
        ),
        (
            "2026/02/10",
            "2026/02/10 is not a date (TOML writes a date with '-'): write year-month-day,"
            " as 2026-02-10",
        ),
    ],
)
def test_a_date_field_says_what_was_written_instead_of_a_date(tmp_path, written, said):
    write(tmp_path, MOE_NOTE.replace("created = 2026-08-14", f"created = {written}"))
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert (problem.line, problem.field, problem.message) == (12, "created", said)


def test_duplicate_keyword_is_reported_on_the_repeated_lines(tmp_path):
    """Defect (low): in a keywords array written one term a line (as the shipped notes
    are), a term listed twice is reported on the `keywords = [` line, not on the line of
    the repeat, while an unknown topic, a full-width keyword and every other element
    problem name the element's own line. In a 20-line array the curator has to hunt.
    Standard: "a malformed note names file, line and field" (the right line)."""
    text = MOE_NOTE.replace(
        'keywords = ["fused_moe_kernel"]',
        'keywords = [\n  "fused_moe_kernel",\n  "block size",\n  "fused_moe_kernel",\n]',
    )
    path = write(tmp_path, text)
    _, problems = check_library(tmp_path, TOPICS)
    assert len(problems) == 1, [str(p) for p in problems]
    assert problems[0].field == "keywords"
    lines = path.read_text("utf-8").split("\n")
    assert lines[problems[0].line - 1].strip() == '"fused_moe_kernel",', str(problems[0])


# kills: bot/note_files.py:Header.line_of (hand) `seen > nth` -> `seen > 0` (a term written twice
#   alike named on the line of its first occurrence, with no "first on line": the curator
#   deletes the wrong one)
@pytest.mark.parametrize("first", ["Fused_MoE_kernel", "fused_moe_kernel"], ids=["case", "alike"])
def test_a_repeat_names_its_own_line_and_the_line_of_the_term_it_repeats(tmp_path, first):
    text = MOE_NOTE.replace(
        'keywords = ["fused_moe_kernel"]',
        f'keywords = [\n  "{first}",\n  "block size",\n  "fused_moe_kernel",\n]',
    )
    write(tmp_path, text)
    _, problems = check_library(tmp_path, TOPICS)
    assert [str(p).split(":", 1)[1] for p in problems] == [
        "10: keywords: 'fused_moe_kernel' is listed twice (first on line 8)"
    ]


# kills: bot/note_files.py:read_note (hand) `.strip()` dropped from the curated check (an English
#   title of spaces only not named as blank, only as "leading or trailing whitespace")
def test_an_english_title_of_spaces_only_is_named_blank(tmp_path):
    title = 'title_en = "Pick the eager region per model runner"'
    path = write(tmp_path, VALID.replace(title, 'title_en = "   "'))
    missing = (
        f'{path}:10: title_en: required field left blank: write title_en = "...", a one-line'
        " English title"
    )
    # one problem, not also "leading or trailing whitespace" for the same mistake
    assert [p for p in problems_of(tmp_path) if ":10: title_en:" in p] == [missing]


def test_an_array_left_open_on_one_line_is_reported_on_that_line(tmp_path):
    """Defect (low): `topics = ["moe-kernels", "quantization"` (the closing `]` forgotten
    on a one-line array) is reported as "<file>:7: header: malformed TOML: Unclosed array
    (column 1)": line 7 is the next key, `keywords = [...]`, which is correct; the
    mistake is on line 6. A curator fixing line 7 finds nothing to fix.
    docs/curating.md: "malformed header (TOML errors with their line ...)"; standard: "a malformed
    note names file, line and field" (the right line)."""
    text = MOE_NOTE.replace('topics = ["moe-kernels"]', 'topics = ["moe-kernels", "quantization"')
    path = write(tmp_path, text)
    _, problems = check_library(tmp_path, TOPICS)
    assert len(problems) == 1, [str(p) for p in problems]
    line = path.read_text("utf-8").split("\n")[problems[0].line - 1]
    assert line.startswith("topics = "), f"{problems[0]} -> {line!r}"


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        ('topics = ["moe-kernels"]', 'topics = ["moe-kernels", "quantization"', 6, "header"),
        (
            'keywords = ["fused_moe_kernel"]',
            'keywords = [\n  "fused_moe_kernel",\n  "x",',
            7,
            "header",
        ),
        (
            'keywords = ["fused_moe_kernel"]',
            'keywords = [\n  "fused_moe_kernel",\n  x,\n]',
            9,
            "keywords",
        ),
    ],
)
def test_an_array_left_open_names_its_line_and_the_missing_bracket(tmp_path, old, new, line, field):
    # the third is a bad element, not an open array: on its own line, as tomllib says,
    # under its array's field (a word without its quotes)
    write(tmp_path, MOE_NOTE.replace(old, new))
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert (problem.line, problem.field) == (line, field)
    if line != 9:
        assert "array left open: no `]` before line" in problem.message, problem.message


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('keyword = ["x"]', "keyword: unknown field; did you mean 'keywords'?"),
        ('verdit = "deep"', "verdit: unknown field; did you mean 'verdict'?"),
        ('reviewer = "x"', "reviewer: unknown field" + NO_SUCH_FIELD),  # nothing close
        # kills: bot/note_files.py:_dotted `or` -> `and` (an unknown field's number taken for
        #   a table: TypeError)
        ("priority = 1", "priority: unknown field" + NO_SUCH_FIELD),
    ],
)
def test_a_misspelled_header_field_gets_the_one_it_seems_to_mean(tmp_path, written, said):
    write(tmp_path, MOE_NOTE.replace("created = 2026-08-14", f"created = 2026-08-14\n{written}"))
    assert [str(p).split(":", 2)[2].strip() for p in check_library(tmp_path, TOPICS)[1]] == [said]


# --- a topic scale factor out of range, named on its own line ---


@pytest.mark.parametrize("factor", ["50", "-1"])
def test_a_topic_scale_factor_out_of_range_is_named_on_its_own_line(tmp_path, capsys, factor):
    # it was named on the `[topic_scale]` line, with every bad topic in one message
    config = tmp_path / "matching.toml"
    text = DEFAULT_MATCHING_FILE.read_text("utf-8").replace("rocm = 0.5", f"rocm = {factor}")
    vocabulary = ROOT / "config" / "title_vocabulary.json"
    config.write_text(text.replace('"title_vocabulary.json"', f'"{vocabulary}"'), "utf-8")
    line = text.split("\n").index(f"rocm = {factor}") + 1
    assert main(["notes", "check", "--config", str(config)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{config}:{line}: topic_scale.rocm: Input should be ")


# --- the line a topics file's problem is named on ---


@pytest.mark.parametrize(
    "text",
    [
        'topic = ["cuda"]\n',  # no table at all
        'topic = [{ id = "a", name_en = "A", name_zh = "甲", keywords = ["kv"] }, "x"]\n',
    ],
    ids=["strings", "a-table-then-a-string"],
)
def test_a_topic_that_is_no_table_is_named_on_line_1(tmp_path, text):
    from bot.library import read_taxonomy

    path = tmp_path / "topics.toml"
    path.write_text(text, "utf-8")
    assert [str(p) for p in read_taxonomy(path)[1]] == [
        f"{path}:1: taxonomy: 'topic' must be [[topic]] tables"
    ]


def test_a_topic_problem_is_on_its_own_tables_line_among_other_arrays(tmp_path):
    # the [[topic]] tables are found among the file's arrays (lists of keywords too)
    from bot.library import read_taxonomy

    path = tmp_path / "topics.toml"
    path.write_text(
        '[[topic]]\nid = "a"\nname_en = "A"\nname_zh = "甲"\nkeywords = ["kv", "cache"]\n\n'
        '[[topic]]\nid = "b"\nname_en = "B"\nname_zh = "乙"\n',
        "utf-8",
    )
    assert [str(p) for p in read_taxonomy(path)[1]] == [
        f"{path}:8: topic: no keywords, tags, paths or labels: nothing can select this topic"
    ]


# kills: bot/library.py:_topic_blocks (mutation run) the lines of topics written as inline
#   tables, which no `[[topic]]` line starts, taken from the tables found (none: a crash
#   zipping no start with each topic) or put on line 2
def test_a_problem_of_topics_written_as_inline_tables_is_named_on_line_1(tmp_path):
    from bot.library import read_taxonomy

    path = tmp_path / "topics.toml"
    path.write_text(
        '# the taxonomy\ntopic = [\n  {id = "a", name_en = "A", name_zh = "甲", keywords = ["kv"]},'
        '\n  {id = "b", name_en = "B", name_zh = "乙"},\n]\n',
        "utf-8",
    )
    assert [str(p) for p in read_taxonomy(path)[1]] == [
        f"{path}:1: topic: no keywords, tags, paths or labels: nothing can select this topic"
    ]


# --- TOML errors placed: arrays left open, keys set twice, a header refused ---


# kills: bot/toml_errors.py:_open_bracket each line's first character skipped looking for the open
#   bracket
# kills: bot/toml_errors.py:_open_bracket a backslash in a one-line string read as a multi-line
#   one's
# kills: bot/toml_errors.py:_open_bracket a bracket inside a string counted
# kills: bot/toml_errors.py:_open_bracket a multi-line string read as ending with its first line
# kills: bot/toml_errors.py:_open_bracket a bracket inside a comment counted
def test_an_array_left_open_is_found_past_strings_holding_a_bracket_or_an_escape(tmp_path):
    summary = 'summary_en = "Shows how the fused MoE kernel picks its block sizes per shape."\n'
    strings = 'summary_en = """\nShows [the kernel\n"""\nkeywords = [\n"fused_moe]kernel",\n'
    strings += '"a \\"b\\" c",'
    note = MOE_NOTE.replace(summary, "").replace('keywords = ["fused_moe_kernel"]', strings)
    note = note.replace('verdict = "deep"', 'verdict = "deep"  # or [quick')
    path = write(tmp_path, note)
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert (problem.line, problem.field) == (10, "header")
    assert "array left open: no `]` before line 13" in problem.message, problem.message
    assert line_at(path, 10) == "keywords = [" and line_at(path, 13).startswith("paths = ")


# kills: bot/toml_errors.py:set_twice an `[[array]]` header met twice taken for a key set twice
def test_a_key_set_twice_below_a_repeated_array_of_tables_header_is_that_key():
    text = "[[a]]\nx = 1\n[[a]]\ny = 1\ny = 2\n"
    with pytest.raises(tomllib.TOMLDecodeError, match="Cannot overwrite"):
        tomllib.loads(text)
    assert set_twice(text) == ("a.y", 4, 3)


MIXED = "declares a single table, but the others are"


# kills: bot/toml_errors.py:table_twice a `[[a]]` after a key `a` (or any table) taken for one
#   after `[a]`
# kills: bot/toml_errors.py:table_twice a `[a]` after a dotted key `a.b` taken for one among `[[a]]`
# kills: bot/toml_errors.py:table_twice a table of an earlier `[[a]]` element taken as declared
#   again
@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a = 1\n[b]\n[[a]]\n", None),  # "Cannot overwrite a value": not a table's
        ("a.b = 1\n[a]\n", None),  # "Cannot declare ('a',) twice": a key made it
        ("x = 1\nx = 2\n", None),  # a key set twice: set_twice's
        ("[[a]]\n[a.b]\n[[a]]\n[a.b]\n[a.b]\n", (4, "a.b", "twice (first on line 4)")),
        ("[[a]]\n[a.b]\n[[a]]\n[a.b]\n[[a.b]]\n", (3, "a.b", MIXED)),
        ("[[a]]\n[[a]]\n[a]\n", (2, "a", MIXED)),
    ],
)
def test_a_table_header_refused_for_one_before_it_is_explained(text, found):
    with pytest.raises(tomllib.TOMLDecodeError) as exc:
        tomllib.loads(text)
    said = table_twice(text, str(exc.value), 1)
    if found is None:
        assert said is None
    else:
        assert said is not None and said[:2] == found[:2] and found[2] in said[2], said


# kills: bot/toml_errors.py:typed_hint no hint for a character an input method typed on the last
#   line
def test_an_input_method_comma_on_the_headers_last_line_is_named(tmp_path):
    path = write(tmp_path, MOE_NOTE.replace("updated = 2026-12-02", 'source = ["a"，"b"]'))
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert str(problem) == (
        f"{path}:13: header: malformed TOML: Unclosed array (column 14); it stops at '，'"
        " (U+FF0C FULLWIDTH COMMA), typed by a Chinese input method: type ','"
    )


# --- the line a config file's problem is named on ---


# kills: bot/config_files.py:ConfigFile.problem a problem of a field the file does not set put on
#   line 2
# kills: bot/config_files.py:ConfigFile.validate a required field the file does not set reported on
#   line 2
def test_a_config_problem_of_a_field_the_file_does_not_set_is_on_line_1(tmp_path):
    from pydantic import BaseModel

    from bot.config_files import ConfigError, read_config

    class Config(BaseModel):
        needed: int
        other: int

    path = tmp_path / "matching.toml"
    path.write_text("# the weights\nother = 1\n", "utf-8")
    file = read_config(path)
    assert str(file.problem("vocabulary", "cannot read")) == f"{path}:1: vocabulary: cannot read"
    assert str(file.problem("other", "too small")) == f"{path}:2: other: too small"
    with pytest.raises(ConfigError) as caught:
        file.validate(Config)
    assert str(caught.value) == f"{path}:1: needed: missing required field"


# every [[topic]] sets its own `id`, which was taken for the key set twice
def test_a_key_set_twice_in_a_later_topic_is_named_on_its_own_line(tmp_path):
    lines = DEFAULT_TOPICS_FILE.read_text("utf-8").split("\n")
    second = [i for i, line in enumerate(lines) if line.strip() == "[[topic]]"][1]
    name = next(i for i in range(second, len(lines)) if lines[i].startswith("name_en ="))
    lines.insert(name + 1, lines[name])  # the second topic's English name, pasted twice
    topics = tmp_path / "topics.toml"
    topics.write_text("\n".join(lines), "utf-8")
    _, problems = check_library(DEFAULT_NOTES_DIR, topics)
    (problem,) = [str(p) for p in problems]
    first, again = name + 1, name + 2  # 1-based
    assert problem.startswith(f"{topics}:{again}: "), problem
    assert "name_en" in problem and f"(first on line {first})" in problem, problem


# --- the matching config's problems beside the notes' ---


# kills: bot/match_config.py:config_problems `return [Problem(...)]` -> `return None`, and line 1 ->
#   2
def test_a_missing_matching_file_is_named_beside_notes_that_do_not_load(tmp_path, capsys):
    bad = write(tmp_path / "notes", VALID.replace('verdict = "deep"', 'verdict = "x"'))
    missing = tmp_path / "missing.toml"
    argv = ["notes", "check", str(tmp_path / "notes"), "--topics", str(TOPICS)]
    assert main([*argv, "--config", str(missing)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:5: verdict: bad verdict 'x'; use one of: deep, quick, skip",
        f"{missing}:1: file: cannot read: No such file or directory",
        "2 problem(s)",
    ]


# kills: bot/match_config.py:unknown_topics hand: `dict.fromkeys(named ...)` -> `named ...`
def test_an_unknown_topic_listed_twice_in_the_config_is_one_problem(tmp_path, capsys):
    problems, text = _matching_problems(
        tmp_path, capsys, ('family_topics = ["kv-connector"]', 'family_topics = ["zz", "zz"]')
    )
    line = text.split("\n").index('family_topics = ["zz", "zz"]') + 1
    assert problems == [
        f"{line}: family_topics: unknown topic 'zz': no topic has this id in {TOPICS}"
        + NO_SUCH_TOPIC
    ]


# --- a warning on a list written one value per line ---


# kills: bot/lint_messages.py:placed (hand) a warning about one keyword or path of a list written
#   one per line pointing at the list's first line, not at the value to fix
def test_a_warning_names_the_line_of_the_value_in_a_list_written_one_per_line(tmp_path, capsys):
    listed = VALID.replace(
        'keywords = ["eager_break_during_capture"]',
        'keywords = [\n  "eager_break_during_capture",\n  "fix",\n]',
    ).replace(
        'paths = ["vllm/models/deepseek_v4/attention.py"]',
        'paths = [\n  "vllm/models/deepseek_v4/attention.py",\n  "**/*.py",\n]',
    )
    path = write(tmp_path, listed)
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    warnings = [x for x in capsys.readouterr().out.splitlines() if ": warning: " in x]
    assert [w.split(": warning: ")[0] for w in warnings] == [
        f"{path}:9: keywords",
        f"{path}:13: paths",
    ]


# --- what a curator types or saves wrong, told in the curator's words ---


@pytest.mark.parametrize("saved", ["bom", "bom-crlf", "cr"])
def test_a_matching_file_saved_with_a_bom_or_other_line_ends_loads_as_written(tmp_path, saved):
    """Defect: the notes and topics.toml may be saved with a byte-order mark (Notepad's
    "UTF-8 with BOM") or CR line ends, config/matching.toml may not: `notes check` said
    `matching.toml:1: config: malformed TOML: Invalid statement (column 1)` and the server
    refused to start over a mark the editor shows no sign of."""
    text = DEFAULT_MATCHING_FILE.read_text("utf-8")
    edited = {
        "bom": "\ufeff" + text,
        "bom-crlf": "\ufeff" + text.replace("\n", "\r\n"),
        "cr": text.replace("\n", "\r"),
    }[saved]
    path = tmp_path / "matching.toml"
    path.write_bytes(edited.encode())
    shutil.copy(DEFAULT_MATCHING_FILE.parent / "title_vocabulary.json", tmp_path)
    library = load_library(DEFAULT_NOTES_DIR, TOPICS)
    read, shipped = checked_match_config(library, path), checked_match_config(library)
    assert read.model_copy(update={"vocabulary": shipped.vocabulary}) == shipped


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            ('title_en = "Pick', 'Title_EN = "Pick'),
            "Title_EN: unknown field; did you mean 'title_en'?",
        ),
        (
            ('"rocm"]', '"ROCm"]'),
            f"topics: unknown topic 'ROCm': no topic has this id in {TOPICS}; did you mean 'rocm'?",
        ),
        (  # a dotted key is a table: `title` holding `en`
            ('title_en = "Pick', 'title.en = "Pick'),
            "title: unknown field; did you mean 'title_en'?",
        ),
        (  # a table of one key that is no field's spelling: the closest name, if any
            ("created = 2026-08-14", "created = 2026-08-14\n[meta]\nowner = 'x'"),
            "meta: unknown field" + NO_SUCH_FIELD,
        ),
    ],
    ids=["field", "topic", "dotted", "table"],
)
def test_a_field_or_topic_typed_in_another_case_is_suggested_in_the_case_it_takes(
    tmp_path, edit, said
):
    """Defect: the suggestion compared case: `Title_EN` (a habit of INI or env files) got
    "did you mean 'title_zh'?", a field the note already has, and `ROCm` (the vendor's
    spelling) got no suggestion at all."""
    write(tmp_path, VALID.replace(*edit))
    assert said in [str(p).split(":", 2)[2].strip() for p in check_library(tmp_path, TOPICS)[1]]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("ROCm platform", "did you mean 'rocm'? (that is the topic's name: name it by its id)"),
        ("投机解码", "did you mean 'spec-decode'? (that is the topic's name: name it by its id)"),
        ("「ROCm 平台」", "did you mean 'rocm'? (that is the topic's name: name it by its id)"),
        ("spec_decode", "did you mean 'spec-decode'?"),
        ("cuda-graph", "did you mean 'cuda-graphs'?"),
    ],
    ids=["english-name", "chinese-name", "name-in-quotes", "id-written-otherwise", "misspelt"],
)
def test_a_topic_named_by_its_name_is_told_the_topics_id(tmp_path, typed, said):
    """Defect: a curator who lists a topic as the comments, the /topics page and `/notes
    topic` name it was suggested another topic or none: `ROCm platform` got "did you mean
    'other-platforms'?" (difflib's closest id), `投机解码` nothing at all."""
    write(tmp_path, VALID.replace('"rocm"]', f'"{typed}"]'))
    assert problems_of(tmp_path) == [
        f"{tmp_path / 'vllm-test0001.md'}:6: topics: unknown topic {typed!r}:"
        f" no topic has this id in {TOPICS}; {said}"
    ]


def test_a_topic_named_by_its_name_in_the_matching_config_is_told_the_topics_id(tmp_path, capsys):
    # the config's topics are the taxonomy's ids too (`family_topics`, `topic_scale`)
    edit = ('family_topics = ["kv-connector"]', 'family_topics = ["KV connector and its metrics"]')
    problems, _ = _matching_problems(tmp_path, capsys, edit)
    assert [p.split(": ", 1)[1] for p in problems] == [
        "family_topics: unknown topic 'KV connector and its metrics': no topic has this id in"
        f" {TOPICS}; did you mean 'kv-connector'? (that is the topic's name: name it by its"
        " id)"
    ]


# kills: bot/note_files.py:_wrong_type `value.strip()` -> `value` (a number typed with spaces
#   around it in the quotes not found)
@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (("source_pr = 52401", 'source_pr = "52401"'), '"52401" is a string'),
        (("source_pr = 52401", 'source_pr = "#52401"'), '"#52401" is a string'),
        (("source_pr = 52401", 'source_pr = "PR #52401"'), '"PR #52401" is a string'),
        (("source_pr = 52401", 'source_pr = " #52401 "'), '" #52401 " is a string'),
        (
            ("source_pr = 52401", 'source_pr = "https://github.com/vllm-project/vllm/pull/52401"'),
            '"https://github.com/vllm-project/vllm/pull/52401" is a string',
        ),
    ],
    ids=["quoted", "hash", "pr-hash", "spaced", "address"],
)
def test_a_pr_number_written_as_a_string_says_which_number_to_write(tmp_path, edit, said):
    """Defect: `source_pr = "#52401"` (as GitHub writes a PR), its address or the number
    in quotes was "Input should be a valid integer": true, but not what to write."""
    write(tmp_path, VALID.replace(*edit))
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert (problem.line, problem.field) == (4, "source_pr")
    assert problem.message == f"{said}: write the number alone, without quotes, as 52401"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # pydantic's words, "Input should be greater than or equal to 1", "a valid integer"
        #   of 52401.0 and "a valid string" of a title in brackets, not the curator's
        (
            ("source_pr = 52401", "source_pr = 52401\nread_with = [-38390]"),
            (5, "read_with", "-38390 is no PR number: they start at 1"),
        ),
        (
            ("source_pr = 52401", "source_pr = 52401.0"),
            (4, "source_pr", "52401.0 is not a whole number: write 52401"),
        ),
        (
            ('title_zh = "按 runner 选择 eager 区域"', 'title_zh = ["按 runner 选择 eager 区域"]'),
            (
                9,
                "title_zh",
                '["按 runner 选择 eager 区域"] is a list: write the text alone, as'
                ' "按 runner 选择 eager 区域"',
            ),
        ),
        (  # ["52448"] would be the next run's problem: a string where a number goes
            ("source_pr = 52401", 'source_pr = 52401\nissues = "52448"'),
            (5, "issues", '"52448" is not a list: write one, as [52448]'),
        ),
        (
            ("source_pr = 52401", 'source_pr = 52401\nread_with = "#38390, #38391"'),
            (5, "read_with", '"#38390, #38391" is not a list: write one, as [38390, 38391]'),
        ),
        (  # one keyword of both, `a_b, c_d`, would match no PR
            ('keywords = ["eager_break_during_capture"]', 'keywords = "a_b, c_d"'),
            (7, "keywords", '"a_b, c_d" is not a list: write one, as ["a_b", "c_d"]'),
        ),
        (
            ('topics = ["cuda-graphs", "rocm"]', 'topics = "cuda-graphs"'),
            (6, "topics", '"cuda-graphs" is not a list: write one, as ["cuda-graphs"]'),
        ),
        (
            ("source_pr = 52401", "source_pr = 52401\nread_with = 38390"),
            (5, "read_with", "38390 is not a list: write one, as [38390]"),
        ),
        (
            ("source_pr = 52401", 'source_pr = 52401\nread_with = [38390, "38391"]'),
            (
                5,
                "read_with",
                '"38391" is a string: write the number alone, without quotes, as 38391',
            ),
        ),
        (
            ("source_pr = 52401", 'source_pr = 52401\nretired = "true"'),
            (5, "retired", '"true" is a string: write true or false, without quotes'),
        ),
        (
            ("source_pr = 52401", 'source_pr = "52401a"'),
            (4, "source_pr", '"52401a" is a string: write the number alone, without quotes'),
        ),
        (  # its number alone would name vLLM's PR 12345, another PR
            ("source_pr = 52401", 'source_pr = "https://github.com/sgl-project/sglang/pull/12345"'),
            (
                4,
                "source_pr",
                '"https://github.com/sgl-project/sglang/pull/12345" is PR 12345 of'
                " sgl-project/sglang; a number here names one of the note's repo,"
                ' vllm-project/vllm: write repo = "sgl-project/sglang" and source_pr = 12345'
                " if the note is about that PR",
            ),
        ),
        (
            (
                "source_pr = 52401",
                'source_pr = 52401\nread_with = ["https://github.com/sgl-project/sglang/pull/9"]',
            ),
            (
                5,
                "read_with",
                '"https://github.com/sgl-project/sglang/pull/9" is PR 9 of sgl-project/sglang;'
                " a number here names one of the note's repo, vllm-project/vllm: delete it",
            ),
        ),
    ],
    ids=[
        "read-with-negative",
        "source-pr-a-float",
        "title-a-list",
        "issues-a-string",
        "read-with-a-string-of-two",
        "keywords-a-string-of-two",
        "topics-a-string",
        "read-with-a-number",
        "an-element-a-string",
        "retired",
        "no-number",
        "another-repositorys-pr",
        "another-repositorys-pr-to-read-with",
    ],
)
def test_a_value_of_the_wrong_type_says_what_to_write_in_toml_words(tmp_path, edit, expected):
    """Defect: a list given one value was "Input should be a valid tuple" (TOML has no
    tuples; the curator had to guess that brackets were wanted), `retired = "true"` "a
    valid boolean"."""
    write(tmp_path, VALID.replace(*edit))
    assert [(p.line, p.field, p.message) for p in check_library(tmp_path, TOPICS)[1]] == [expected]


# the line replaced, and what replaces it: the field and its value, `{}`
_TOPICS = ('topics = ["cuda-graphs", "rocm"]', "topics = {}")
_ISSUES = ("source_pr = 52401", "source_pr = 52401\nissues = {}")
_KEYWORDS = ('keywords = ["eager_break_during_capture"]', "keywords = {}")


@pytest.mark.parametrize(
    ("edit", "typed", "told"),
    [
        (_TOPICS, '"cuda-graphs，rocm"', '["cuda-graphs", "rocm"]'),
        (_TOPICS, '"cuda-graphs、 rocm"', '["cuda-graphs", "rocm"]'),
        (_TOPICS, '"cuda-graphs；rocm"', '["cuda-graphs", "rocm"]'),
        (_ISSUES, '"#38390，#38391"', "[38390, 38391]"),
        (_KEYWORDS, '"a_b、c_d, e_f"', '["a_b", "c_d", "e_f"]'),
    ],
    ids=["full-width-comma", "enumeration-comma", "full-width-semicolon", "issues", "mixed"],
)
def test_values_a_chinese_list_separator_joins_where_a_list_goes_get_the_final_list(
    tmp_path, edit, typed, told
):
    """Defect: `topics = "cuda-graphs，rocm"`, two topics a Chinese input method's comma
    joins, was told to write ["cuda-graphs，rocm"], which the next run refused in turn
    (one unknown topic) before it gave the list meant: the split took ASCII commas alone.
    Written as told, the list is the last edit."""
    line, field = edit
    write(tmp_path, VALID.replace(line, field.format(typed)))
    (problem,) = check_library(tmp_path, TOPICS)[1]
    assert problem.message == f"{typed} is not a list: write one, as {told}"
    write(tmp_path, VALID.replace(line, field.format(told)))
    assert problems_of(tmp_path) == []


# kills: bot/toml_errors.py:ended_early `m.end() - 1` -> `m.end() - 2` (a multi-line string,
#   which may hold a quote, taken for one ended by it)
@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('summary_en = "Shows how', 'summary_en = "Shows "how"'),
            '11: summary_en: a " inside the string ends it (column 21): write it as \\" or put'
            " the string between ' quotes",
        ),
        (
            (
                'title_en = "Pick the eager region per model runner"',
                "title_en = 'Don't pick the region per runner'",
            ),
            "10: title_en: a ' inside the string ends it (column 16): put the string between \""
            " quotes",
        ),
        (  # no quote after it: not one typed inside
            ('title_en = "Pick the eager region per model runner"', 'title_en = "Pick" the'),
            "10: header: malformed TOML: Expected newline or end of document after a statement"
            " (column 19)",
        ),
        (  # a multi-line string holds a quote: what follows it is another mistake
            ('summary_en = "Shows how', 'summary_en = """Shows "how"""" the'),
            "11: header: malformed TOML: Expected newline or end of document after a statement"
            " (column 32)",
        ),
    ],
    ids=["double", "single", "no-quote-after", "multi-line"],
)
def test_a_quote_typed_inside_a_string_is_named_under_its_field(tmp_path, edit, expected):
    """Defect: `summary_en = "the "load-bearing" check"`, an English summary quoting a
    word, was "header: malformed TOML: Expected newline or end of document after a
    statement": neither the field nor that the quote ended the string."""
    assert edit[0] in VALID
    path = write(tmp_path, VALID.replace(*edit))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


# kills: bot/note_files.py:split_front_matter `lines[0].strip() == "---"` -> `lines[0] == "---"`
#   (a YAML fence typed with a space after it not told so)
@pytest.mark.parametrize("fence", ["---", "--- "])
def test_a_header_between_yaml_fences_is_told_to_use_toml_between_plus_lines(tmp_path, fence):
    """Defect: a curator used to YAML front matter (Jekyll, Hugo, most static sites) who
    wrote `---` lines was told only that the file must start with a '+++' line, and
    next that `id: "x"` is malformed TOML."""
    path = write(tmp_path, VALID.replace("+++\n", f"{fence}\n"))
    assert problems_of(tmp_path) == [
        f"{path}:1: header: file must start with a '+++' line, not '---': the header is TOML"
        " (key = \"value\") between '+++' lines"
    ]


def test_a_note_saved_as_gbk_is_told_to_be_saved_as_utf8(tmp_path):
    """Defect: a note saved by a Chinese Windows editor in its default encoding, GBK, was
    "not UTF-8: invalid continuation byte", naming neither the encoding nor the fix."""
    path = tmp_path / "vllm-test0001.md"
    path.write_bytes(VALID.encode("gbk"))
    assert problems_of(tmp_path) == [
        f"{path}:9: file: not UTF-8: invalid start byte; it reads as GBK, as Chinese"
        " Windows saves text: save the file as UTF-8"
    ]


CP1252 = (
    "; it reads as Windows-1252 (Latin-1), as Western Windows saves text: save the file as UTF-8"
)
GBK = "; it reads as GBK, as Chinese Windows saves text: save the file as UTF-8"


@pytest.mark.parametrize(
    ("text", "encoding", "hint"),
    [
        # Defect: a curly quote saved in Windows-1252, 0x93 and the letter after it, is a GBK
        # character: "it reads as GBK" for an English title
        ('title_en = "“Fix” the eager region"', "cp1252", CP1252),
        ('title_en = "A naïve fix"', "cp1252", CP1252),
        ('title_en = "Größe, Größe"', "cp1252", CP1252),  # 0xF6DF: a GB2312 pair, alone
        # Defect: GBK whose first character past ASCII is no Chinese one ('“', 0xA1B0)
        ('title_zh = "“修复” eager 区域"', "gbk", GBK),
        ('title_zh = "修复"', "gbk", GBK),
        # GBK with no Chinese in it cannot be told from Windows-1252: said as that
        ('title_en = "“Fix”"', "gbk", CP1252),
    ],
)
def test_a_note_not_in_utf8_is_said_to_be_in_the_encoding_its_text_reads_as(
    tmp_path, text, encoding, hint
):
    path = tmp_path / "vllm-test0001.md"
    ascii_note = VALID.replace("按 runner 选择 eager 区域", "zh").replace("值得精读。正文。", "x")
    path.write_bytes(f"{ascii_note}{text}\n".encode(encoding))  # in the guidance
    [problem] = problems_of(tmp_path)
    assert problem.startswith(f"{path}:") and problem.endswith(hint), problem


# kills: bot/note_files.py:_gb2312_hanzi `0xA1 <=` -> `0xA1 <` (GB2312's first character,
#   啊 0xB0A1, not taken for one)
# kills: bot/note_files.py:_gb2312_hanzi `"\u4e00" <=` -> `<` (一, U+4E00, not Chinese)
# kills: bot/note_files.py:_gb2312_hanzi `all(` -> `any(` (狜 0xAA40, GBK's, taken for GB2312's)
def test_the_first_and_last_gb2312_characters_are_chinese_in_gbk():
    from bot.note_files import _chinese_in_gbk

    assert _chinese_in_gbk("啊啊".encode("gbk")) and _chinese_in_gbk("齄齄".encode("gbk"))
    assert not _chinese_in_gbk("啊".encode("gbk"))  # one character alone: Größe's ö and ß
    assert _chinese_in_gbk("一一".encode("gbk"))
    assert not _chinese_in_gbk("丂丂".encode("gbk"))  # GBK's own, 0x8140: no GB2312
    assert not _chinese_in_gbk("狜狜".encode("gbk"))  # GBK's own, 0xAA40: one byte of GB2312's
    assert not _chinese_in_gbk("ａｂ".encode("gbk")) and not _chinese_in_gbk(b"\xff\xfe")


def test_a_utf8_file_with_a_bad_byte_or_cut_inside_a_character_is_said_to_be_nothing_else():
    from bot.note_files import encoding_hint

    cut = "ok 修".encode()[:-1]  # the end of a UTF-8 file lost inside a character
    assert encoding_hint(cut, 3) == ""
    assert encoding_hint("é ".encode() + b"\xe9", 3) == ""  # UTF-8, then one Latin-1 byte
    assert encoding_hint(b"ok \x81", 3) == ""  # no Windows-1252 byte either


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('id = "vllm-test0001"', 'id = "VLLM-Test0001"'),
            (2, "id", '"VLLM-Test0001" is not an id: {rule}, as "vllm-test0001"'),
        ),
        (
            ('id = "vllm-test0001"', 'id = "vllm test"'),
            (2, "id", '"vllm test" is not an id: {rule}'),
        ),
        (
            ("source_pr = 52401", 'source_pr = 52401\nformerly = ["Eagle-Fix"]'),
            (5, "formerly", '"Eagle-Fix" is not an id: {rule}, as "eagle-fix"'),
        ),
        (
            ('repo = "vllm-project/vllm"', 'repo = "https://github.com/vllm-project/vllm"'),
            (3, "repo", '"https://github.com/vllm-project/vllm" is not a repository: {own}'),
        ),
        (
            ('repo = "vllm-project/vllm"', 'repo = "github.com/vllm-project/vllm.git"'),
            (3, "repo", '"github.com/vllm-project/vllm.git" is not a repository: {own}'),
        ),
        (
            (
                'repo = "vllm-project/vllm"',
                'repo = "https://github.com/vllm-project/vllm/pull/52401"',
            ),
            (
                3,
                "repo",
                '"https://github.com/vllm-project/vllm/pull/52401" is not a repository: {own}',
            ),
        ),
    ],
    ids=["id-in-capitals", "id-with-a-space", "former-id", "address", "git", "pr"],
)
def test_an_id_or_repository_of_the_wrong_shape_says_the_shape_in_words(tmp_path, edit, expected):
    """Defect: `repo = "https://github.com/vllm-project/vllm"` (the address, pasted) and
    an id in capitals were answered with pydantic's "String should match pattern
    '^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$'": a regular expression, for a curator to decode."""
    write(tmp_path, VALID.replace(*edit))
    line, field, message = expected
    rule = (
        "lower-case letters, digits, '.', '_' and '-', 64 at most, starting with a letter or digit"
    )
    message = message.format(rule=rule, own="write owner/name, as vllm-project/vllm")
    problems = [(p.line, p.field, p.message) for p in check_library(tmp_path, TOPICS)[1]]
    assert (line, field, message) in problems, problems


_TITLE = 'title_en = "Pick the eager region per model runner"'
_SUMMARY = 'summary_en = "Shows how a function pointer picks the eager region."'


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            (_TITLE, _TITLE.removesuffix('"')),
            '10: title_en: string not closed on its line: end it with "',
        ),
        (
            (_TITLE, _TITLE.replace('"', "'").removesuffix("'")),
            "10: title_en: string not closed on its line: end it with '",
        ),
        (
            (_SUMMARY, _SUMMARY.replace('"', '"""', 1).removesuffix('"')),
            '11: summary_en: multi-line string not closed: end it with """',
        ),
        (
            (_SUMMARY, _SUMMARY.replace('"', "'''\n", 1).removesuffix('"')),
            "11: summary_en: multi-line string not closed: end it with '''",
        ),
        (  # in an array: tomllib's words, on the line
            ('["eager_break_during_capture"]', '["eager_break_during_capture]'),
            "7: header: malformed TOML: Illegal character '\\n' (column 41)",
        ),
    ],
    ids=["one-line", "literal", "multi-line", "multi-line-literal", "in-an-array"],
)
def test_a_string_left_open_is_named_on_its_own_line_under_its_field(tmp_path, edit, expected):
    """Defect: a multi-line string left open (`summary_en = \"\"\"...` with no closing
    quotes) was "header: malformed TOML: Unterminated string (at end of document)" on the
    header's last line, far from the string; one left open on its line was "Illegal
    character '\\n'"."""
    assert edit[0] in VALID
    path = write(tmp_path, VALID.replace(*edit))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


def test_check_hints_at_a_pr_named_by_its_address(tmp_path, capsys):
    """Defect: a PR the guidance names by the address a curator copies from the browser
    (`https://github.com/vllm-project/vllm/pull/47941`) got no hint, though "#47941" in
    the same place did; another repository's address is not one."""
    write(
        tmp_path,
        VALID.replace(
            "值得精读。正文。",
            "值得精读。与 https://github.com/vllm-project/vllm/pull/47941/files 串读；另见"
            " https://github.com/NVIDIA/nccl/pull/574 与 https://github.com/vllm-project/vllm/pull/52401",
        ),
    )
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    hints = [h for h in capsys.readouterr().out.splitlines() if "its text names PR" in h]
    assert [h.split("PR ")[1].split(";")[0] for h in hints] == ["47941"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            ('verdict = "deep"', 'verdict\u3000= "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at U+3000 (IDEOGRAPHIC SPACE), which looks like a space: type a plain one",
        ),
        (
            ("source_pr = 52401", "source_pr =\u00a052401"),
            "4: header: malformed TOML: Invalid value (column 12); it stops at U+00A0 (NO-BREAK"
            " SPACE), which looks like a space: type a plain one",
        ),
        (
            ('verdict = "deep"', '\u200bverdict = "deep"'),
            "5: header: malformed TOML: Invalid statement (column 1); it stops at U+200B"
            " (ZERO WIDTH SPACE), an invisible character: delete it",
        ),
        (
            ('verdict = "deep"', 'verdict = "deep"\x0c'),
            "5: header: malformed TOML: Expected newline or end of document after a statement"
            " (column 17); it stops at U+000C, an invisible character: delete it",
        ),
        (  # a character of another kind: tomllib's words alone
            ('verdict = "deep"', "verdict = “deep”"),
            "5: header: malformed TOML: Invalid value (column 11); it stops at '“' (U+201C LEFT"
            " DOUBLE QUOTATION MARK), typed by a Chinese input method: type '\"'",
        ),
        (  # a key in Chinese: tomllib's "Invalid statement" named no cause
            ('verdict = "deep"', '判断 = "deep"'),
            "5: header: malformed TOML: Invalid statement (column 1); it stops at '判' (U+5224"
            " CJK UNIFIED IDEOGRAPH-5224), a key's name is ASCII letters, digits, '_' and '-':"
            " name the field in English",
        ),
        (
            ('verdict = "deep"', 'verdict判断 = "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at '判' (U+5224 CJK UNIFIED IDEOGRAPH-5224), a key's name is ASCII"
            " letters, digits, '_' and '-': name the field in English",
        ),
        (  # no hint: a value typed without its quotes, said so
            ('verdict = "deep"', "verdict = 深"),
            '5: verdict: 深 is no TOML value: text takes quotes: "深"',
        ),
    ],
    ids=[
        "ideographic-space",
        "no-break-space",
        "zero-width-space",
        "form-feed",
        "input-method",
        "chinese-key",
        "chinese-in-key",
        "other",
    ],
)
def test_a_toml_error_stopped_at_an_unseen_character_names_it(tmp_path, edit, expected):
    """Defect: a header where TOML stops at a space the curator cannot tell from a plain
    one (the ideographic space a Chinese input method types in full-width mode, a
    no-break space pasted from a page) or at an invisible one said only "Expected '='
    after a key": the line looks right, and the message names nothing to change."""
    path = write(tmp_path, VALID.replace(*edit))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (  # YAML's way, the front matter most Markdown tools write
            ('verdict = "deep"', 'verdict: "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at ':' (U+003A COLON), TOML joins a field and its value with '=': type"
            " '='",
        ),
        (  # the same typed by a Chinese input method: its ASCII, ':', would not do either
            ('verdict = "deep"', 'verdict："deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at '：' (U+FF1A FULLWIDTH COLON), TOML joins a field and its value with"
            " '=': type '='",
        ),
        (  # an English field's name with a space: not "name the field in English"
            ("source_pr = 52401", "source pr = 52401"),
            "4: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at 'p' (U+0070 LATIN SMALL LETTER P), a field's name has no spaces:"
            " write 'source_pr'",
        ),
        (
            ('verdict = "deep"', 'verdict "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 9);"
            " it stops at '\"' (U+0022 QUOTATION MARK), TOML writes field = value: is '='"
            " missing after 'verdict'?",
        ),
        (
            ('verdict = "deep"', 'verdict := "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 9);"
            " it stops at ':' (U+003A COLON), delete it",
        ),
        (  # still the input method's '=' for its full-width form
            ('verdict = "deep"', 'verdict ＝ "deep"'),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 9);"
            " it stops at '＝' (U+FF1D FULLWIDTH EQUALS SIGN), typed by a Chinese input method:"
            " type '='",
        ),
    ],
    ids=[
        "colon",
        "full-width-colon",
        "space-in-name",
        "no-equals",
        "colon-equals",
        "full-width-equals",
    ],
)
def test_a_key_not_followed_by_equals_is_told_what_to_type(tmp_path, edit, expected):
    """Defect: `verdict："deep"` (a Chinese input method's colon) was told to type ':',
    which TOML refuses too; `source pr = 52401` was told to name the field in English,
    which it is; `verdict: "deep"` (YAML's way) and `verdict "deep"` got tomllib's
    "Expected '=' after a key" alone."""
    path = write(tmp_path, VALID.replace(*edit))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (  # the input method's '=' after the name: the name is the words before it
            ("source_pr = 52401", "source pr ＝ 52401"),
            "4: header: malformed TOML: Expected '=' after a key in a key/value pair (column 8);"
            " it stops at 'p' (U+0070 LATIN SMALL LETTER P), a field's name has no spaces:"
            " write 'source_pr'",
        ),
        (  # the '=' is the title's: no name is made of the title's words
            ('title_zh = "按 runner 选择 eager 区域"', 'title zh "a = b"'),
            "9: header: malformed TOML: Expected '=' after a key in a key/value pair (column 7)",
        ),
        (  # the '=' is the comment's
            ('verdict = "deep"', "verdict deep  # was quick=1"),
            "5: header: malformed TOML: Expected '=' after a key in a key/value pair (column 9)",
        ),
    ],
    ids=["full-width-equals", "equals-in-a-string", "equals-in-a-comment"],
)
def test_a_name_with_a_space_is_told_one_only_made_of_the_words_before_its_equals(
    tmp_path, edit, expected
):
    """Defect: the name to write joined whatever came before the first ASCII '=' on the
    line: `source pr ＝ 52401` was told 'source_pr_＝_52401', `title zh "a = b"` the
    name 'title_zh_"a', words of a value or a comment that no field is named by."""
    path = write(tmp_path, VALID.replace(*edit))
    assert problems_of(tmp_path) == [f"{path}:{expected}"]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('[["cuda-graphs"]]', '["cuda-graphs"] is a list: write the text alone, as "cuda-graphs"'),
        ('[{ id = "cuda-graphs" }]', "Input should be a valid string"),
    ],
)
def test_topics_written_as_a_list_of_lists_or_tables_is_a_problem_not_a_crash(
    tmp_path, written, said
):
    """Defect: `topics = [["cuda-graphs"]]` (a bracket typed twice) or a list of inline
    tables raised TypeError: unhashable type, a traceback from `notes check` and from the
    server's start, instead of the problem on its line: the unknown-topic check of a note
    that does not validate hashed every element."""
    path = write(tmp_path, VALID.replace('["cuda-graphs", "rocm"]', written))
    # and not "list at least one topic": pydantic counts the list without the bad one
    assert problems_of(tmp_path) == [f"{path}:6: topics: {said}"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_note_saved_as_utf16_is_told_to_be_saved_as_utf8(tmp_path, encoding):
    """Defect: a note saved as Notepad's 'Unicode' (UTF-16, with its byte-order mark) was
    "not UTF-8: invalid start byte" on line 1, naming neither the encoding nor the fix."""
    path = tmp_path / "vllm-test0001.md"
    data = VALID.encode(encoding)
    path.write_bytes(data if data[:2] in (b"\xff\xfe", b"\xfe\xff") else b"\xfe\xff" + data)
    (problem,) = problems_of(tmp_path)
    assert problem.startswith(f"{path}:1: file: not UTF-8: "), problem
    assert problem.endswith("; it is UTF-16 (Notepad's 'Unicode'): save the file as UTF-8")


# --- a topic new in a scratch taxonomy; an empty note file ---


# kills: bot/library.py:unknown_topic (hand) the taxonomy left unsaid: "unknown topic
#   'kv-offload'" alone, for a topic the curator had just added to another topics.toml
def test_a_topic_new_in_another_taxonomy_names_the_taxonomy_checked(tmp_path, capsys):
    # A curator adds a topic to a scratch copy of config/topics.toml and a note naming it
    # to a scratch copy of the notes, then runs `notes check DIR` or `match --notes-dir
    # DIR` without `--topics`: told only "unknown topic 'kv-offload'" of a topic they
    # can see in the file they edited, nothing said which file was read
    scratch = tmp_path / "topics.toml"
    topic = '\n[[topic]]\nid = "kv-offload"\nname_en = "KV offloading"\nname_zh = "KV 卸载"\n'
    scratch.write_text(TOPICS.read_text("utf-8") + topic + 'keywords = ["KV offload"]\n')
    notes = tmp_path / "notes"
    path = write(notes, VALID.replace('"rocm"', '"kv-offload"'))
    said = f"{path}:6: topics: unknown topic 'kv-offload': no topic has this id in {TOPICS}"
    said += NO_SUCH_TOPIC
    assert problems_of(notes) == [said]
    assert main(["notes", "check", str(notes)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == said
    assert main(["match", "--title", "x", "--notes-dir", str(notes)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == said
    # with its taxonomy, the note is fine; a misspelling is still told the topic it means
    assert problems_of(notes, scratch) == []
    write(notes, VALID.replace('"rocm"', '"kv-ofload"'))
    assert problems_of(notes, scratch) == [
        f"{path}:6: topics: unknown topic 'kv-ofload': no topic has this id in {scratch};"
        " did you mean 'kv-offload'?"
    ]


# kills: bot/note_files.py:split_front_matter (hand) an empty file, or one whose '+++' is
#   under a blank line, told only "file must start with a '+++' line"
@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "the file is empty: a note is a '+++' header, then its guidance"),
        (" \n\n", "the file is empty: a note is a '+++' header, then its guidance"),
        ("\n" + VALID, "file must start with a '+++' line: delete the blank line before line 2"),
        (
            "\n \n" + VALID,
            "file must start with a '+++' line: delete the blank lines before line 3",
        ),
        ("notes\n" + VALID, "file must start with a '+++' line"),
        # kills: bot/note_files.py:_no_opening_fence (hand) blank lines said to be all that
        #   is wrong whatever follows them: "delete the blank line before line 2" of a
        #   line 2 of text, or of YAML's '---' or a full-width fence, whose own hint was lost
        ("\nnotes\n" + VALID, "file must start with a '+++' line"),
        (
            "\n---\n" + VALID.removeprefix("+++\n"),
            "file must start with a '+++' line, not '---': the header is TOML"
            " (key = \"value\") between '+++' lines",
        ),
        (
            "\n\n＋＋＋\n" + VALID.removeprefix("+++\n"),
            "file must start with a '+++' line: '＋＋＋' holds '＋' (U+FF0B FULLWIDTH PLUS SIGN),"
            " typed by a Chinese input method: type '+++'",
        ),
    ],
)
def test_an_empty_note_file_or_one_opening_with_blank_lines_says_so(tmp_path, text, said):
    # A file saved before anything was written (an editor's "new file", `touch`) was told
    # "file must start with a '+++' line", as was a note pasted under a blank line, its
    # '+++' right there: neither said what is wrong with the file in front of the curator
    path = write(tmp_path, text)
    write(tmp_path, VALID.replace("vllm-test0001", "vllm-test0002"), "vllm-test0002.md")
    assert problems_of(tmp_path) == [f"{path}:1: header: {said}"]


# --- a note saved beside the notes directory ---


# kills: bot/library.py:notes_above (hand) nothing said: a note saved in seeds/ instead of
#   seeds/notes/ was never loaded, and notes check said "ok" of the others alone
def test_a_note_saved_beside_the_notes_directory_is_warned_of(tmp_path, capsys, monkeypatch):
    # A curator who saved a new note one directory too high (seeds/x.md, beside
    # seeds/notes/) ran `notes check seeds/notes`: "ok: 1 notes", the new note never read.
    # A file there that is no note (a README, a digest, a note in a sibling directory such
    # as seeds/raw/, or under a dot) is not named
    notes = tmp_path / "notes"
    write(notes, VALID)
    other = VALID.replace("vllm-test0001", "vllm-test0002")
    above = [write(tmp_path, other, "vllm-test0002.md"), write(tmp_path, other, "draft.TXT")]
    write(tmp_path, "# Notes\n\nSee notes/.\n", "README.md")
    write(tmp_path, "vllm-project/vllm\n\n标题\n\n值得精读。\n", "digest.txt")
    write(tmp_path / "raw", other, "vllm-test0003.md")
    write(tmp_path, other, ".vllm-test0004.md")
    assert main(["notes", "check", str(notes)]) == 0
    out = capsys.readouterr().out.splitlines()
    warned = [line for line in out if "outside the notes directory" in line]
    assert warned == [
        f"{path}:1: file: warning: a note outside the notes directory is not loaded:"
        f" move it into {notes}"
        for path in sorted(above)
    ]
    # the notes directory named as a relative path: the one above it all the same
    monkeypatch.chdir(notes)
    assert main(["notes", "check", "."]) == 0
    said = capsys.readouterr().out
    assert said.count("outside the notes directory") == 2, said


# --- warnings on their value's line: a `**` glued to characters, a guidance too long ---


# kills: bot/lint_messages.py:note_warnings (hand) no warning of a `**` glued to other characters
# kills: bot/notes_lint.py:glued_double_stars a whole-segment `**` taken for a glued one
def test_a_double_star_glued_to_other_characters_is_warned_of_on_its_line(tmp_path, capsys):
    # `vllm/**foo.py` and `a**/b` cross directories here (bot.globs: `**` glued is `.*`),
    # where CODEOWNERS and .gitignore, which curators know, take `**` only as a whole
    # segment (else as `*`): a curator's glob matched other files than they meant, silently
    glued = ["vllm/**attention.py", "vllm/v1/spec**/eagle.py", "**/fused_moe**"]
    whole = ["vllm/v1/**/eagle.py", "vllm/v1/core/**", "**/lora/**"]
    listed = "".join(f'  "{p}",\n' for p in glued + whole)
    path = write(
        tmp_path,
        VALID.replace('paths = ["vllm/models/deepseek_v4/attention.py"]', f"paths = [\n{listed}]"),
    )
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    out = capsys.readouterr().out.splitlines()
    said = [line for line in out if "'**' glued" in line]
    assert [s.split(": warning: ")[0] for s in said] == [f"{path}:{n}: paths" for n in (9, 10, 11)]
    for line, glob in zip(said, glued, strict=True):
        assert line_at(path, int(line.split(":")[1])) == f'  "{glob}",'
        assert f"path {glob!r}: '**' glued to other characters matches across directories" in line
    assert "CODEOWNERS and .gitignore" in said[0] and "'**' alone between slashes" in said[0]


# kills: bot/note_files.py:Header.line_of (hand) a value quoted in a comment taken for the
#   value: the warning of the glob on the next line put on the comment's line
def test_a_warning_names_its_values_line_not_a_comment_quoting_it(tmp_path, capsys):
    commented = '  "vllm/models/deepseek_v4/attention.py",  # was "vllm/**foo.py"\n'
    path = write(
        tmp_path,
        VALID.replace(
            'paths = ["vllm/models/deepseek_v4/attention.py"]',
            f'paths = [\n{commented}  "vllm/**foo.py",\n]',
        ),
    )
    assert main(["notes", "check", str(tmp_path), "--topics", str(TOPICS)]) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "'**' glued" in line]
    assert [s.split(": warning: ")[0] for s in said] == [f"{path}:10: paths"]
    assert line_at(path, 10) == '  "vllm/**foo.py",'


# kills: bot/lint_messages.py:_long_guidance (hand) no warning: a note of 28 MB of guidance (a
#   PR's diff pasted in) loaded in silence, and made every `/notes?q=` take 0.7 s
def test_a_guidance_longer_than_the_limit_is_warned_of_on_its_first_line(tmp_path, capsys):
    from bot.notes import SEARCHED_GUIDANCE_CHARS

    config = tmp_path / "matching.toml"  # with the title vocabulary it names beside it
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    shipped = DEFAULT_MATCHING_FILE.read_text("utf-8")
    assert "\nguidance_max_chars = 20000\n" in shipped
    config.write_text(shipped.replace("guidance_max_chars = 20000", "guidance_max_chars = 9"))
    notes = tmp_path / "notes"
    path = write(notes, VALID.replace("值得精读。正文。", "值得精读。正文。\n\n再说一句。"))
    argv = ["notes", "check", str(notes), "--topics", str(TOPICS), "--config", str(config)]
    assert main(argv) == 0  # a warning, nothing refused
    said = [line for line in capsys.readouterr().out.splitlines() if "guidance_max" in line]
    assert said == [
        f"{path}:15: guidance: warning: 15 characters of guidance (guidance_max_chars 9):"
        " reading guidance says what to read in the PR and why; the PR, its diff or its"
        " discussion pasted in is for GitHub to show"
    ]
    assert line_at(path, 15) == "值得精读。正文。"
    write(notes, VALID.replace("正文。", "正文。" * 3))  # at the limit: none
    config.write_text(shipped.replace("guidance_max_chars = 20000", "guidance_max_chars = 14"))
    assert main(argv) == 0 and "guidance_max" not in capsys.readouterr().out
    # past what a search reads (the shipped limit): said too
    huge = "值得精读。" + "正文 " * (SEARCHED_GUIDANCE_CHARS // 3 + 1)
    write(notes, VALID.replace("值得精读。正文。", huge))
    argv[-1] = str(DEFAULT_MATCHING_FILE)
    assert main(argv) == 0
    said = [line for line in capsys.readouterr().out.splitlines() if "guidance_max" in line]
    assert said == [
        f"{path}:15: guidance: warning: {len(huge):,} characters of guidance (guidance_max_chars"
        " 20,000): reading guidance says what to read in the PR and why; the PR, its diff or"
        f" its discussion pasted in is for GitHub to show; a search reads its first"
        f" {SEARCHED_GUIDANCE_CHARS:,} only"
    ]


# --- the guidance limit, globs in the taxonomy and config, backslashes in arrays ---


# kills: bot/match_config.py:MatchConfig._searched_whole (hand) no bound: a limit above what
#   a search reads let `notes check` pass a note whose guidance no search reads to its end
def test_a_guidance_limit_above_what_a_search_reads_is_refused_saying_why(tmp_path, capsys):
    from bot.notes import SEARCHED_GUIDANCE_CHARS

    above = SEARCHED_GUIDANCE_CHARS + 1
    edit = ("guidance_max_chars = 20000", f"guidance_max_chars = {above}")
    problems, text = _matching_problems(tmp_path, capsys, edit)
    line = text.split("\n").index(edit[1]) + 1
    assert problems == [
        f"{line}: guidance_max_chars: {above:,} is more than a search reads of a guidance, its"
        f" first {SEARCHED_GUIDANCE_CHARS:,} characters (bot/search.py): a note `notes check`"
        f" passes would not be found by the words past them; set {SEARCHED_GUIDANCE_CHARS:,}"
        " or less"
    ]


# kills: bot/lint_messages.py:glued_elsewhere (hand) the taxonomy's and the matching config's
#   globs left unchecked: a `**` glued to other characters warned of in notes' paths only
def test_a_double_star_glued_in_a_topics_or_the_configs_globs_is_warned_of_on_its_line(
    tmp_path, capsys
):
    topics = tmp_path / "topics.toml"
    shipped_topics = TOPICS.read_text("utf-8")
    listed = '  "vllm/compilation/cuda_graph.py",\n'
    assert shipped_topics.count(listed) == 1
    glued_topic = '  "vllm/compilation/cuda_graph.py",\n  "tests/**/cudagraph**.py",\n'
    topics.write_text(shipped_topics.replace(listed, glued_topic), "utf-8")
    config = tmp_path / "matching.toml"  # with the title vocabulary it names beside it
    shutil.copy(ROOT / "config" / "title_vocabulary.json", tmp_path)
    matching = DEFAULT_MATCHING_FILE.read_text("utf-8")
    edits = (
        ('aux_files = ["docs/", "examples/",', 'aux_files = ["docs/", "examples/**.md",'),
        ('upkeep_files = ["tests/",', 'upkeep_files = [\n  "tests/**conftest.py",\n  "tests/",'),
    )
    for old, new in edits:
        assert matching.count(old) == 1
        matching = matching.replace(old, new)
    config.write_text(matching, "utf-8")
    write(tmp_path / "notes", VALID)
    argv = ["notes", "check", str(tmp_path / "notes"), "--topics", str(topics)]
    assert main([*argv, "--config", str(config)]) == 0  # warnings, nothing refused
    said = [line for line in capsys.readouterr().out.splitlines() if "'**' glued" in line]
    where = [s.split(": warning: ")[0].rsplit(":", 2) for s in said]
    assert [(file, field) for file, _, field in where] == [
        (str(config), " aux_files"),
        (str(config), " upkeep_files"),
        (str(topics), " paths"),
    ]
    lines = [line_at(Path(file), int(n)) for (file, n, _) in where]
    assert lines == [
        'aux_files = ["docs/", "examples/**.md", "*.md"]',
        '  "tests/**conftest.py",',
        '  "tests/**/cudagraph**.py",',
    ]
    for line, glob in zip(
        said, ["examples/**.md", "tests/**conftest.py", "tests/**/cudagraph**.py"], strict=True
    ):
        assert f"path {glob!r}: '**' glued to other characters matches across directories" in line
    # the shipped files have none
    assert main([*argv, "--topics", str(TOPICS)]) == 0
    assert "'**' glued" not in capsys.readouterr().out


def test_a_backslashed_path_in_a_multi_line_array_is_named_under_its_key(tmp_path):
    # the key is lines above the string tomllib stops in
    listed = 'paths = [\n  "vllm/a.py",\n  "vllm\\b\\c.py",\n]'
    path = write(
        tmp_path, VALID.replace('paths = ["vllm/models/deepseek_v4/attention.py"]', listed)
    )
    assert problems_of(tmp_path) == [
        f"{path}:10: paths: \"vllm\\b\\c.py\" holds '\\', which TOML reads as an escape: a path"
        " uses '/': write \"vllm/b/c.py\""
    ]


@pytest.mark.parametrize(
    ("header", "said"),
    [
        # a backslash escaped rightly, the array stopped by a missing comma: not the escape
        ('paths = ["vllm\\\\x.py" "y"]\n', "n.md:2: header: malformed TOML: Unclosed array"),
        # in a multi-line string, on a line with no "...": its key's, on its own line
        ('summary_en = """\nfoo \\q bar\n"""\n', "n.md:3: summary_en: '\\q' (column 5) is no"),
    ],
)
def test_a_backslash_is_blamed_only_where_it_stops_toml(header, said):
    from bot.note_files import LibraryError, parse_toml

    with pytest.raises(LibraryError) as exc:
        parse_toml(header, "n.md", 2, "header")
    assert str(exc.value).startswith(said)


# --- a curator's new note: every message names file, line and field, and what to do ---


@pytest.mark.parametrize("name", ["a-new-note.md", "z-new-note.md"])
def test_a_note_copied_without_a_new_id_is_told_to_take_its_files_name(tmp_path, name):
    """A note copied to start a new one, its id left as the original's, was told
    "file name must be 'vllm-test0001.md'": followed, the copy would overwrite the
    original. And a copy sorting first made the original the duplicate. The copy alone
    is named, with the id its file's name gives it; and, on the same run, its title_zh,
    the other field a new note changes (it came only once the id was fixed)."""
    original = write(tmp_path, VALID)
    copy = write(tmp_path, VALID, name)
    stem = name.removesuffix(".md")
    assert problems_of(tmp_path) == [
        f"{copy}:2: id: duplicate id 'vllm-test0001' (also in {original}): give this note an"
        f' id of its own, as its file\'s name: id = "{stem}"',
        f"{copy}:9: title_zh: the same note as {original} {SAME_NOTE}",
    ]
    assert original.exists()


@pytest.mark.parametrize(
    ("field", "written"),
    [
        ("title_en", "按 runner 选择 eager 区域"),  # title_zh pasted: more Chinese than Latin
        ("title_en", "选择区域"),
        ("summary_en", "用函数指针选择 eager 区域，保住 CUDA 的优化。"),
    ],
)
def test_an_english_line_written_in_chinese_is_warned_of(tmp_path, capsys, field, written):
    # `title_en = "修复卸载"` (title_zh copied, not translated) passed check with `ok`:
    # the comment showed it as the English title, beside the same Chinese one
    old = next(line for line in VALID.split("\n") if line.startswith(f"{field} ="))
    path = write(tmp_path, VALID.replace(old, f'{field} = "{written}"'))
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    what = "title" if field == "title_en" else "summary"
    assert status == 0
    assert warned == [
        f"{path}:{line_number(path, field)}: {field}: warning: {written!r} is mostly Chinese:"
        f" the comment shows it as the English {what}, beside title_zh; write it in English"
    ]


def test_a_chinese_title_with_no_chinese_in_it_is_warned_of(tmp_path, capsys):
    """Defect: `title_zh = "Pick the eager region per model runner"` (title_en pasted in
    both lines) passed check with `ok`: the comment showed it as the original Chinese
    title (原题), the English title twice."""
    english = "Pick the eager region per model runner"
    path = write(tmp_path, VALID.replace('"按 runner 选择 eager 区域"', f'"{english}"'))
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    assert status == 0
    assert warned == [
        f"{path}:{line_number(path, 'title_zh')}: title_zh: warning: {english!r} has no"
        " Chinese: the comment shows it as the original Chinese title (原题); write the"
        " digest's title (fine as it is if the PR's original title is English)"
    ]


# A Chinese term or message quoted in an English line is one stretch of Chinese, which may
# count more characters than the line has English words (`Keep 前缀缓存 hits`, the page's
# own example of a fine line): warned of only past twice the words, as a title left
# untranslated with no English in it (`修复批次交换后思考预算状态残留共享的 bug`)
@pytest.mark.parametrize(
    ("field", "written"),
    [
        ("title_en", "Pick the eager region (前缀缓存) per runner"),
        ("title_en", "Keep 前缀缓存 hits"),
        ("title_en", "Explain 投机解码 (speculative decoding)"),
        ("summary_en", "The PR fixes the error '模型加载失败，显存不足' on Ascend NPUs."),
    ],
)
def test_an_english_line_naming_a_chinese_term_is_no_warning(tmp_path, capsys, field, written):
    old = next(line for line in VALID.split("\n") if line.startswith(f"{field} ="))
    write(tmp_path, VALID.replace(old, f'{field} = "{written}"'))
    status, out = check_output(tmp_path, capsys)
    assert status == 0 and ": warning: " not in out, out


@pytest.mark.parametrize(
    ("field", "written", "mark", "ascii"),
    [
        ("title_en", "Pick the eager region，per runner", "'，' (U+FF0C FULLWIDTH COMMA)", ","),
        (
            "summary_en",
            "The PR picks the region per runner。 Read the guard: it is load-bearing.",
            "'。' (U+3002 IDEOGRAPHIC FULL STOP)",
            ".",
        ),
        ("summary_en", "Two things matter： the guard and the test.", "'：' (U+FF1A", ":"),
    ],
)
def test_chinese_punctuation_in_an_english_line_is_warned_of(
    tmp_path, capsys, field, written, mark, ascii
):
    # An English line typed with a Chinese input method left on (`region，per`) passed
    # check with `ok`, where a keyword gets the same mark refused: the comment showed the
    # full-width mark in the English title or summary. Chinese quoted in the line keeps
    # its own marks (`'模型加载失败，显存不足'` above).
    old = next(line for line in VALID.split("\n") if line.startswith(f"{field} ="))
    path = write(tmp_path, VALID.replace(old, f'{field} = "{written}"'))
    status, out = check_output(tmp_path, capsys)
    warned = [line for line in out.splitlines() if ": warning: " in line]
    assert status == 0 and len(warned) == 1, out
    assert warned[0].startswith(f"{path}:{line_number(path, field)}: {field}: warning: {mark}")
    assert warned[0].endswith(
        f"typed by a Chinese input method between English words: the comment shows it as"
        f" typed; write {ascii!r}"
    )


def test_every_seed_title_zh_copied_as_title_en_is_warned_of():
    # the library's own Chinese titles, which hold English terms (`ROCm 弹性 EP 死锁修复：
    # warm-up 延迟至 commit`): each, pasted as the English title, is still warned of
    library = load_library(DEFAULT_NOTES_DIR)
    notes = tuple(n.model_copy(update={"title_en": n.title_zh}) for n in library.notes)
    copied = dataclasses.replace(library, notes=notes)
    assert [n.id for n, _ in untranslated_lines(copied)] == [n.id for n in library.notes]
    assert untranslated_lines(library) == []


# A note with a warning or a hint of most kinds, laid out as curators write one: arrays over
# lines with comments, a quoted key, a value in two lists, a wrapped summary
MANY_WARNINGS = """\
+++
id = "vllm-test0002"
repo = "vllm-project/vllm"
source_pr = 52402
verdict = "skip"
topics = ["cuda-graphs"]  # paths = ["vllm/"] in a comment
"keywords" = [
  "fix",  # as common as it gets
  "前綴緩存",
  "eager",
]
aspects = ["eager", "piecewise"]
paths = [
  "vllm/",
  "**/*.py",  # "vllm/**foo.py"
  "vllm/**foo.py",
  'vllm/**/utils.py',
]
title_zh = "Pick the eager region"
title_en = "按 runner 选择 eager 区域的方法，修复 MRV1"
summary_en = \"\"\"Shows how a function pointer picks the eager region, \\
  as PR 52401 did.\"\"\"
created = 2026-08-14
updated = 2026-12-02
+++
值得精读。See PR 12345 and #23456.
"""


def _many_broad_paths(count: int) -> str:
    paths = "".join(f'  "vllm_part_{i:04d}/**/*.py",\n' for i in range(count))
    old = 'paths = ["vllm/models/deepseek_v4/attention.py"]'
    return VALID.replace(old, f"paths = [\n{paths}]")


def test_warnings_and_hints_keep_their_lines_with_each_header_read_once(
    tmp_path, capsys, monkeypatch
):
    # `notes check` read and scanned a note's header again for every warning on it: 150
    # broad paths on one note took 29 s. Read once, each warning still names the line it did.
    from bot import cli_notes, library

    shipped, mixed = tmp_path / "shipped", tmp_path / "mixed"
    shutil.copytree(DEFAULT_NOTES_DIR, shipped)
    write(mixed, VALID)
    write(mixed, MANY_WARNINGS, "vllm-test0002.md")
    third = _many_broad_paths(40).replace("vllm-test0001", "vllm-test0003")
    write(mixed, third.replace("eager 区域", "eager 区"), "x/vllm-test0003.md")
    said = {d: check_output(d, capsys) for d in (shipped, mixed)}
    assert said[mixed][1].count(": warning: ") > 50 and ": hint: " in said[mixed][1]

    def one_read_a_warning(notes_dir, loaded):  # main's way: no note's header kept
        return lambda note: library.header_of(notes_dir, loaded, note)

    monkeypatch.setattr(cli_notes, "headers_of", one_read_a_warning)
    assert {d: check_output(d, capsys) for d in (shipped, mixed)} == said


def test_a_note_with_many_warnings_has_its_header_scanned_once(tmp_path, capsys, monkeypatch):
    from bot import toml_lines

    write(tmp_path, _many_broad_paths(150))
    scanned, scan = [], toml_lines._scanned
    monkeypatch.setattr(toml_lines, "_scanned", lambda text: scanned.append(text) or scan(text))
    status, out = check_output(tmp_path, capsys)
    assert status == 0 and out.count("matches files all over the tree") == 150, out
    assert sum("vllm_part_0000" in text for text in scanned) == 1


class CharByCharScanner(toml_lines._Scanner):
    """The scanner as it was, a string and a value read a character at a time: what the
    scanner that matches them at once must find, entry for entry. Its `value` is the
    shipped one but for `_IN_VALUE`, on purpose a copy: the brackets' depth is checked
    against one written apart (no other test fails when the shipped count goes wrong)."""

    def string(self) -> str:
        quote = self.peek()
        if self.peek(3) == quote * 3:
            start = self.i = self.i + 3
            while self.i < len(self.text) and self.peek(3) != quote * 3:
                self.step(escapes=quote == '"')
            text = self.text[start : self.i]
            self.i += 3
            while self.peek() == quote:
                self.i += 1
            return text
        start = self.i = self.i + 1
        while self.i < len(self.text) and self.peek() not in (quote, "\n"):
            self.step(escapes=quote == '"')
        text = self.text[start : self.i]
        if self.peek() == quote:
            self.i += 1
        return text

    def step(self, escapes: bool) -> None:
        if escapes and self.peek() == "\\":
            self.i += 1
        if self.peek() == "\n":
            self.line += 1
        self.i += 1

    def value(self) -> None:
        depth = 0
        while self.i < len(self.text):
            c = self.peek()
            if c in ('"', "'"):
                line, start = self.line, self.i
                self.string()
                self.strings.append((line, start, min(self.i, len(self.text))))
                continue
            if c == "\n":
                if depth == 0:
                    return
                self.line += 1
            elif c == "#":
                self.rest_of_line()
                continue
            elif c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            self.i += 1


def _scanned_both_ways(text: str) -> tuple[object, object]:
    entries, s = toml_lines._scanned(text)
    with mock.patch.object(toml_lines, "_Scanner", CharByCharScanner):
        old_entries, old = toml_lines._scanned(text)
    now = (entries, s.comments, s.strings, s.i, s.line)
    return now, (old_entries, old.comments, old.strings, old.i, old.line)


def _test_strings() -> list[str]:
    """Every string the tests write, TOML and malformed TOML among them."""
    found = []
    for file in sorted(Path(__file__).parent.glob("test_*.py")):
        tree = ast.parse(file.read_text("utf-8"))
        found += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    return [s for s in found if isinstance(s, str) and len(s) > 1]


def test_the_scanner_finds_what_it_found_a_character_at_a_time():
    # the notes, the config files and every string of the tests, most of them TOML or TOML
    # gone wrong (strings left open, a `\` last, quotes in threes and fours)
    texts = [p.read_text("utf-8") for p in sorted(DEFAULT_NOTES_DIR.glob("*.md"))]
    texts += [p.read_text("utf-8") for p in sorted((ROOT / "config").glob("*.toml"))]
    texts += _test_strings()
    assert len(texts) > 5_000
    for text in texts:
        now, before = _scanned_both_ways(text)
        assert now == before, text


@settings(max_examples=2_000, derandomize=True, database=None, deadline=None)
@given(st.text(alphabet="\"'\\\n#[]{}=. a1\t", max_size=40))
def test_the_scanner_finds_what_it_found_on_any_text(text):
    now, before = _scanned_both_ways(text)
    assert now == before


def test_each_problem_keeps_its_line_with_the_scanner_matching_strings_at_once(
    tmp_path, monkeypatch
):
    # every defect these tests give a note and the taxonomy, checked with each scanner
    malformed = test_malformed_header_names_the_line.pytestmark[0].args[1]
    edits = [p.values[0] for p in (*NOTE_DEFECTS, *malformed)]
    for n, (old, new) in enumerate(edits):
        write(tmp_path / "notes" / str(n), VALID.replace(old, new, 1))
    rocm = write(tmp_path / "rocm", VALID.replace('"cuda-graphs", "rocm"', '"rocm"')).parent
    (tmp_path / "topics").mkdir()
    for n, p in enumerate(TAXONOMY_DEFECTS):
        (tmp_path / "topics" / f"{n}.toml").write_text(TAXONOMY.replace(*p.values[0], 1), "utf-8")
    runs = [(tmp_path / "notes" / str(n), TOPICS) for n in range(len(edits))]
    runs += [(rocm, tmp_path / "topics" / f"{n}.toml") for n in range(len(TAXONOMY_DEFECTS))]
    said = [problems_of(notes, taxonomy) for notes, taxonomy in runs]
    assert sum(map(len, said)) >= len(runs)
    monkeypatch.setattr(toml_lines, "_Scanner", CharByCharScanner)
    assert [problems_of(notes, taxonomy) for notes, taxonomy in runs] == said

"""`bot.lint_messages`: the words of each warning and hint `notes check` prints, and the
line each goes on, from notes built in memory (tests/test_check.py runs the command)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bot.config_files import ConfigFile
from bot.library import DEFAULT_TOPICS_FILE, Library, read_taxonomy
from bot.lint_messages import (
    Remark,
    fenced_conflict,
    glued_elsewhere,
    note_hints,
    note_warnings,
    outside_notes_dir,
    placed,
)
from bot.match_config import MatchConfig
from bot.note_files import Header, parse_note
from bot.notes import SEARCHED_GUIDANCE_CHARS, Note
from bot.similarity import Vocabulary

TOPICS = read_taxonomy(DEFAULT_TOPICS_FILE)[0]
# `fix` in 26 of 100 titles; `eager` in 1 (a word seen once is not stored)
CONFIG = MatchConfig(vocabulary=Vocabulary(titles=100, df={"fix": 26}))
HEADER = """\
id = "vllm-test0001"
repo = "vllm-project/vllm"
source_pr = 52401
verdict = "deep"
topics = ["cuda-graphs", "rocm"]
keywords = ["eager_break_during_capture"]
aspects = ["piecewise"]
paths = ["vllm/models/deepseek_v4/attention.py"]
title_zh = "按 runner 选择 eager 区域"
title_en = "Pick the eager region per model runner"
summary_en = "Shows how a function pointer picks the eager region."
created = 2026-08-14"""
NOTE = parse_note(f"+++\n{HEADER}\n+++\n值得精读。正文。\n", "vllm-test0001.md")


def note(**fields) -> Note:
    return NOTE.model_copy(update=fields)


def said(remarks: list[Remark]) -> list[tuple[str, str | None, str]]:
    return [(r.field, r.value, r.message) for r in remarks]


def warned(*notes: Note, served: tuple[str, ...] = ()) -> list[tuple[str, str | None, str]]:
    library = Library(notes=notes, topics=TOPICS)
    return said(note_warnings(library, CONFIG, Path("notes"), served))


def hinted(*notes: Note) -> list[tuple[str, str | None, str]]:
    return said(note_hints(Library(notes=notes, topics=TOPICS)))


def test_a_clean_note_is_neither_warned_of_nor_hinted_at():
    assert warned(NOTE, served=("vllm-project/vllm",)) == [] and hinted(NOTE) == []


CHINESE = "按 runner 选择 eager 区域，修复 MRV1 并恢复 ROCm 默认，"  # 26 characters
GLUED = (
    "path 'vllm/**foo.py': '**' glued to other characters matches across directories here"
    " (`vllm/**foo.py` is any path below vllm/ ending in foo.py), where CODEOWNERS and"
    " .gitignore read it as '*': write '**' alone between slashes (`vllm/**/*foo.py`) or '*'"
    " for one segment (`vllm/*foo.py`)"
)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param(
            {"keywords": ("eager_break_during_capture", "fix")},
            [
                (
                    "keywords",
                    "fix",
                    "warning: 'fix' is in 26% of vLLM's PR titles (common_keyword_share 0.02):"
                    " it links unrelated PRs; name the mechanism",
                )
            ],
            id="common-keyword",
        ),
        pytest.param(
            {"keywords": ("eager_break_during_capture", "in the")},
            [
                (
                    "keywords",
                    "in the",
                    "warning: 'in the' holds only English function words, single letters or"
                    " numbers, which most PRs' text has: it links unrelated PRs; name the"
                    " mechanism",
                )
            ],
            id="function-words",
        ),
        pytest.param(
            {"paths": ("vllm/",)},
            [
                (
                    "paths",
                    "vllm/",
                    "warning: path 'vllm/' matches files all over the tree: list a file or a"
                    " narrow directory",
                )
            ],
            id="broad-path",
        ),
        pytest.param(
            {"paths": ("vllm/**foo.py",)},
            [("paths", "vllm/**foo.py", f"warning: {GLUED}")],
            id="glued-path",
        ),
        pytest.param(
            {"summary_en": "x " * 751},
            [
                (
                    "summary_en",
                    None,
                    "warning: 1,501 characters, of which the comment shows 1,500 (cut with '…'):"
                    " a summary is one or two sentences; the guidance says the rest",
                )
            ],
            id="clipped-summary",
        ),
        pytest.param(
            {"title_en": "t" * 301},
            [
                (
                    "title_en",
                    None,
                    "warning: 301 characters, of which the comment shows 300 (cut with '…'): a"
                    " title names the mechanism; the summary says the rest",
                )
            ],
            id="clipped-title",
        ),
        pytest.param(
            {"summary_en": CHINESE * 3},
            [
                (
                    "summary_en",
                    None,
                    f"warning: {(CHINESE * 3)[:60] + '…'!r} is mostly Chinese: the comment shows"
                    " it as the English summary, beside title_zh; write it in English",
                )
            ],
            id="untranslated-summary",
        ),
        pytest.param(
            {"title_en": CHINESE},
            [
                (
                    "title_en",
                    None,
                    f"warning: {CHINESE!r} is mostly Chinese: the comment shows it as the English"
                    " title, beside title_zh; write it in English",
                )
            ],
            id="untranslated-title",
        ),
        pytest.param(
            {"title_en": "Pick the region，per runner"},
            [
                (
                    "title_en",
                    None,
                    "warning: '，' (U+FF0C FULLWIDTH COMMA) typed by a Chinese input method"
                    " between English words: the comment shows it as typed; write ','",
                )
            ],
            id="mark-between-english",
        ),
        pytest.param(
            {"title_zh": "Pick the eager region"},
            [
                (
                    "title_zh",
                    None,
                    "warning: 'Pick the eager region' has no Chinese: the comment shows it as the"
                    " original Chinese title (原题); write the digest's title (fine as it is if"
                    " the PR's original title is English)",
                )
            ],
            id="unchinese-title",
        ),
        pytest.param(
            {"aspects": ("piecewise", "緩存")},
            [
                (
                    "aspects",
                    "緩存",
                    "warning: '緩存' is written in Traditional characters (緩): a Chinese term"
                    " matches only as written, and a PR's Chinese text is Simplified, as the"
                    " guidance is; write it in Simplified",
                )
            ],
            id="traditional-term",
        ),
        pytest.param(
            {"guidance": "不需要精读。正文。"},
            [
                (
                    "verdict",
                    None,
                    "warning: 'deep' (Deep read), but the guidance reads as 不需要精读 (No deep"
                    ' read needed): the comment would show both; write verdict = "skip" or'
                    " reword the guidance (fine as it is if it negates or quotes that phrase)",
                )
            ],
            id="contradicted-verdict",
        ),
        pytest.param(
            {"guidance": "值得精读。" + "正" * 19_996},
            [
                (
                    "guidance",
                    None,
                    "warning: 20,001 characters of guidance (guidance_max_chars 20,000): reading"
                    " guidance says what to read in the PR and why; the PR, its diff or its"
                    " discussion pasted in is for GitHub to show",
                )
            ],
            id="long-guidance",
        ),
    ],
)
def test_each_warning_on_a_notes_fields_says_what_is_wrong_and_what_to_write(fields, expected):
    assert warned(note(**fields)) == expected


def test_a_guidance_past_what_a_search_reads_is_told_so():
    length = SEARCHED_GUIDANCE_CHARS + 1
    [(_, _, message)] = warned(note(guidance="值得精读。" + "正" * (length - 5)))
    assert message.endswith(
        f"pasted in is for GitHub to show; a search reads its first {SEARCHED_GUIDANCE_CHARS:,}"
        " only"
    )
    assert message.startswith(f"warning: {length:,} characters of guidance")


def test_a_note_for_a_repository_not_served_names_those_served():
    fork = note(repo="someone/fork")
    assert warned(fork, served=("vllm-project/vllm", "vllm-project/tpu")) == [
        (
            "repo",
            None,
            "warning: 'someone/fork' is not a repository the bot serves (REVIEW_NOTES_REPOS:"
            " vllm-project/vllm, vllm-project/tpu): no PR gets this note",
        )
    ]
    assert warned(fork) == []  # the repositories served unknown: not asked


def test_a_copied_note_is_told_which_file_it_shares_each_field_with():
    first = note(source="000_a.txt#1")
    copy = note(id="vllm-test0002", title_zh="另一个标题", source="000_a.txt#1")
    library = Library(notes=(first, copy), topics=TOPICS, files={first.id: "x/first.md"})
    remarks = note_warnings(library, CONFIG, Path("notes"))
    assert {r.note.id for r in remarks} == {"vllm-test0002"}
    where = Path("notes") / "x" / "first.md"
    assert [(r.field, r.message) for r in remarks] == [
        (
            "source_pr",
            f"warning: PR 52401 is the source_pr of {where} too, so the PR gets both notes: give"
            " a note copied from it its own PR, or merge the two",
        ),
        (
            "title_en",
            f"warning: the same English title as {where}: a comment showing both could not"
            " tell them apart; write this note's own",
        ),
        (
            "summary_en",
            f"warning: the same English summary as {where}: a comment showing both could not"
            " tell them apart; write this note's own",
        ),
        (
            "source",
            f"warning: '000_a.txt#1' is the digest entry of {where} too: `source` is the"
            " importer's; drop it from a note written by hand",
        ),
    ]


UNLISTED = (
    "add it to read_with if a reviewer of that PR should get this note (to issues if it is an"
    " issue its PR fixes)"
)


def test_each_hint_says_what_to_consider():
    blind = note(keywords=("eager region",), aspects=("eager region",))
    assert hinted(blind) == [
        (
            "keywords",
            None,
            "hint: no code name (snake_case or CamelCase) among its keywords; the bot cannot"
            " see this note's mechanism in a PR's changed lines",
        ),
        (
            "aspects",
            "eager region",
            "hint: aspect 'eager region' is also one of its keywords, which counts without the"
            " topic; keep it in one list",
        ),
    ]
    naming = note(summary_en="Read it with PR 38390.", guidance="值得精读。\n\n另见 #47941。")
    assert hinted(naming) == [
        ("summary_en", None, f"hint: its text names PR 38390; {UNLISTED}"),
        ("guidance", None, f"hint: its text names PR 47941; {UNLISTED}"),
    ]


def test_a_note_with_no_source_pr_is_asked_whether_the_pr_its_text_names_is_its_own():
    assert hinted(note(source_pr=None, guidance="值得精读。见 PR 52419。")) == [
        (
            "guidance",
            None,
            "hint: its text names PR 52419; set source_pr = 52419 if the note is about it, or"
            f" {UNLISTED}",
        )
    ]


def test_a_remark_goes_on_its_values_line_or_the_guidances_line_it_is_about():
    text = HEADER.replace(
        'paths = ["vllm/models/deepseek_v4/attention.py"]', 'paths = [\n  "a",\n  "vllm/",\n]'
    )
    on = note(paths=("a", "vllm/"), guidance="值得精读。\n\n另见 #47941。")
    file = f"+++\n{text}\n+++\n{on.guidance}\n".split("\n")
    header = Header(text, 2)  # the header's first line is the file's second, after `+++`
    remarks = [
        Remark(on, "paths", "warning: broad", "vllm/"),
        Remark(on, "summary_en", "hint: a PR"),
        Remark(on, "guidance", "hint: another PR", guidance_line=2),
        Remark(on, "guidance", "warning: long"),
    ]
    problems = placed(remarks, lambda _: ("n.md", header))
    assert [(p.path, p.field, p.message) for p in problems] == [
        ("n.md", r.field, r.message) for r in remarks
    ]
    assert [file[p.line - 1] for p in problems] == [
        '  "vllm/",',
        'summary_en = "Shows how a function pointer picks the eager region."',
        "另见 #47941。",
        "值得精读。",
    ]
    # the hint the note's text gets, on the line naming the PR
    hint = placed(note_hints(Library(notes=(on,), topics=TOPICS)), lambda _: ("n.md", header))
    line = file.index("另见 #47941。") + 1
    assert [str(p) for p in hint if p.field == "guidance"] == [
        f"n.md:{line}: guidance: hint: its text names PR 47941; {UNLISTED}"
    ]


def test_the_warnings_of_what_only_the_files_show_name_their_file_and_line():
    assert str(fenced_conflict("notes/a.md", 23)) == (
        "notes/a.md:23: guidance: warning: a code block holds a git merge conflict's <<<<<<<,"
        " ======= and >>>>>>> lines: fine if it shows them; if git left them, keep the text"
        " meant and delete the three marker lines"
    )
    assert str(outside_notes_dir("seeds/x.md", Path("seeds/notes"))) == (
        "seeds/x.md:1: file: warning: a note outside the notes directory is not loaded: move it"
        " into seeds/notes"
    )


def test_a_glued_double_star_in_a_topic_or_the_config_is_warned_of_on_its_line():
    topic = TOPICS["cuda-graphs"]
    topics = {**TOPICS, topic.id: topic.model_copy(update={"paths": (*topic.paths, "a**/b")})}
    library = Library(notes=(NOTE,), topics=topics)
    config = CONFIG.model_copy(update={"upkeep_files": ("tests/", "vllm/**foo.py")})
    text = 'aux_files = ["docs/"]\nupkeep_files = [\n  "tests/",\n  "vllm/**foo.py",\n]\n'
    file = ConfigFile(Path("matching.toml"), text, tomllib.loads(text))
    table = Header('id = "cuda-graphs"\npaths = [\n  "x",\n  "a**/b",\n]', 7)
    said = glued_elsewhere(library, config, "topics.toml", {"cuda-graphs": table}, file)
    assert [str(p) for p in said] == [
        f"topics.toml:10: paths: warning: {GLUED.replace('vllm/**foo.py', 'a**/b', 1)}",
        f"matching.toml:4: upkeep_files: warning: {GLUED}",
    ]
    # a topic whose table is not known: line 1
    assert glued_elsewhere(library, config, "t.toml", {}, file)[0].line == 1

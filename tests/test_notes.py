"""The note model, the file format (round trips, the fast TOML path), globs, the seeds."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
import unicodedata
import warnings
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.globs import GlobError, compile_glob, glob_matches
from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, load_library
from bot.note_dump import dump_note, toml_string
from bot.note_files import Header, fast_toml, parse_note, split_front_matter
from bot.notes import Note, Verdict, topic_key
from bot.toml_lines import comments, first_lines, scan

RAW = DEFAULT_NOTES_DIR.parent / "raw"

# --- the shipped seed notes ---------------------------------------------------------


def test_seed_library_loads_sorted_and_complete():
    library = load_library()
    assert len(library.notes) == 16
    ids = [n.id for n in library.notes]
    assert ids == sorted(ids)
    assert sorted(p.stem for p in DEFAULT_NOTES_DIR.glob("*.md")) == ids
    verdicts = [n.verdict for n in library.notes]
    assert {v: verdicts.count(v) for v in Verdict} == {
        Verdict.DEEP: 11,
        Verdict.QUICK: 3,
        Verdict.SKIP: 2,
    }
    for note in library.notes:
        assert note.title_en and "\n" not in note.title_en
        assert note.summary_en and note.keywords
        assert note.updated is not None and note.updated >= date(2026, 12, 2)  # curated
        assert set(note.topics) <= set(library.topics)
        assert library.by_id[note.id] is note
        assert all(note in library.by_topic[t] for t in note.topics)
    assert library.for_repo("VLLM-project/vllm") == library.notes
    assert library.for_repo("other/repo") == ()


def test_seed_notes_follow_the_pr_records():
    """source_pr and created agree with seeds/raw/notes_prs.json (by digest position)."""
    records = json.loads((RAW / "notes_prs.json").read_text("utf-8"))
    position: dict[str, int] = {}
    by_source = {}
    for r in records:
        position[r["seed_file"]] = position.get(r["seed_file"], 0) + 1
        by_source[f"{r['seed_file']}#{position[r['seed_file']]}"] = r
    for note in load_library().notes:
        record = by_source[note.source]
        assert note.source_pr == record["pr_number"]
        assert note.title_zh == record["note_title"]
        created = record["created"]
        assert note.created == (date.fromisoformat(created) if len(created) == 10 else None)


def test_seed_keywords_and_paths_are_specific():
    """Keywords feed the matcher: none repeats its topics' own terms or is a common word."""
    library = load_library()
    for note in library.notes:
        topic_terms = {k.casefold() for t in note.topics for k in library.topics[t].keywords}
        for kw in note.keywords:
            assert kw.casefold() not in topic_terms, (note.id, kw)
            # short alphabetic words are too common, except acronyms (PTX, MTP), which the
            # matcher matches as whole words only
            assert len(kw) >= 5 or not kw.isalpha() or kw.isupper(), (note.id, kw)
        for path in note.paths:
            assert "*" not in path and path.count("/") >= 1, (note.id, path)


def test_seed_files_are_in_canonical_form():
    """Each shipped file is exactly what dump_note writes, so a round trip changes no byte."""
    for note in load_library().notes:
        assert (DEFAULT_NOTES_DIR / note.filename).read_text("utf-8") == dump_note(note)


# --- round trips -----------------------------------------------------------------------


def test_load_dump_load_round_trip(tmp_path):
    first = load_library()
    for note in first.notes:
        (tmp_path / note.filename).write_text(dump_note(note), "utf-8")
    second = load_library(tmp_path, DEFAULT_TOPICS_FILE)
    assert second.notes == first.notes
    assert [parse_note(dump_note(n), "x") for n in second.notes] == list(first.notes)


def test_loading_is_deterministic_whatever_the_file_order(tmp_path):
    names = sorted(p.name for p in DEFAULT_NOTES_DIR.glob("*.md"))
    for i, name in enumerate(reversed(names)):  # other creation order, nested directories
        sub = tmp_path / f"d{i % 3}"
        sub.mkdir(exist_ok=True)
        shutil.copy(DEFAULT_NOTES_DIR / name, sub / name)
    assert load_library(tmp_path, DEFAULT_TOPICS_FILE) == load_library()


UNSEEN = ("Cc", "Cf", "Zl", "Zp", "Zs")
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
LINE = TEXT.filter(lambda s: "\n" not in s and "\r" not in s and s == s.strip() and s.strip())


def _shows_something(s: str) -> bool:
    """Not invisible characters alone (zero-width spaces, a BOM): refused in a title or a
    summary (notes.control_character)."""
    shown = [c for c in s if not c.isspace()]
    return not shown or any(unicodedata.category(c) != "Cf" for c in shown)


# a title: one line, with no tab or other control character (Note._one_line)
TITLE = LINE.filter(lambda s: not any(c < " " or c == "\x7f" for c in s)).filter(_shows_something)
# a summary: lines of text, no tab or other control character (Note._no_control)
SUMMARY = TEXT.filter(lambda s: not any((c < " " or c == "\x7f") and c != "\n" for c in s)).filter(
    _shows_something
)
# a keyword: English ones need two letters or digits, and no keyword holds a non-ASCII
# space, control or format character, nor what a Chinese input method types for ASCII
# (full-width forms, its Chinese punctuation, list separators), nor is written as a
# regular expression (`a|b`, `.*`, `\d`, `^` or `$` at an end) (note_terms.check_term)
IME = set("、，；。“”‘’【】《》—·…")
REGEX = re.compile(r"\||\.[*+?]|\\[A-Za-z.]|^\^|\$$")
TERM = LINE.filter(
    lambda s: (
        (not s.isascii() or sum(c.isalnum() for c in s) >= 2)
        and not any(unicodedata.category(c) in UNSEEN for c in s if not c.isascii())
        and not any(c in IME or "\uff01" <= c <= "\uff5e" for c in s)
        and not REGEX.search(s)
    )
)


@st.composite
def notes(draw) -> Note:
    return Note(
        id=draw(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True)),
        repo="vllm-project/vllm",
        # a number is the source PR, a PR to read with it or an issue: drawn apart
        source_pr=draw(st.none() | st.integers(2 * 10**6 + 1, 3 * 10**6)),
        read_with=tuple(draw(st.lists(st.integers(1, 10**6), max_size=4, unique=True))),
        issues=tuple(draw(st.lists(st.integers(10**6 + 1, 2 * 10**6), max_size=3, unique=True))),
        verdict=draw(st.sampled_from(list(Verdict))),
        topics=tuple(draw(st.lists(LINE, min_size=1, max_size=3, unique_by=str.casefold))),
        keywords=tuple(draw(st.lists(TERM, max_size=8, unique_by=str.casefold))),
        paths=tuple(
            draw(
                st.lists(
                    st.from_regex(r"[a-z]{1,8}(/[a-z_.]{1,8}){0,3}", fullmatch=True).filter(
                        lambda p: not {".", ".."} & set(p.split("/"))
                    ),
                    max_size=4,
                    unique=True,
                )
            )
        ),
        title_zh=draw(TITLE),
        title_en=draw(st.just("") | TITLE),
        summary_en=draw(SUMMARY),
        guidance=draw(TEXT.filter(lambda s: s.strip() and "\r" not in s)),
        created=draw(st.none() | st.dates(date(2020, 1, 1), date(2026, 1, 1))),
        updated=draw(st.none() | st.dates(date(2026, 1, 2), date(2030, 1, 1))),
        source=draw(TEXT),
    )


@settings(max_examples=150, deadline=None)
@given(notes())
def test_any_note_round_trips(note):
    text = dump_note(note)
    assert parse_note(text, "x.md") == note
    header, _, _ = split_front_matter(text, "x.md")
    assert fast_toml(header) == tomllib.loads(header)


def test_guidance_has_lf_line_ends_only():
    with pytest.raises(ValueError, match="carriage return in the text"):
        Note(id="n", repo="o/r", verdict="deep", topics=["t"], title_zh="t", guidance="a\r\nb")


def test_round_trip_keeps_awkward_text():
    note = Note(
        id="n1",
        repo="o/r",
        verdict="quick",
        topics=["cuda-graphs"],
        title_zh='引号 " 和反斜杠 \\ 符',
        summary_en="line one\nline two \u2028 😀",
        source="\x7f \x00 制表\t符",  # provenance, shown nowhere: any text
        guidance="+++\n正文里有围栏也没关系。\n\n第二段\n",
    )
    assert parse_note(dump_note(note), "x.md") == note


# --- a note's `+++` fences typed wrong ---


# kills: bot/note_files.py:split_front_matter `.strip()` dropped (a fence typed with a space
#   after it refused as "file must start with a '+++' line", or the header run on into
#   the body's own `+++` line)
# kills: bot/note_files.py:split_front_matter `lines[1:i]` -> `lines[2:i]` (the header's first line
#   lost) and `return None`
# kills: bot/note_files.py:split_front_matter `FENCE not in` -> `FENCE in` (the quick split taken
#   past a closing fence typed with a space, up to the body's `+++` line)
@pytest.mark.parametrize(("opening", "closing"), [("+++ ", "\t+++  "), ("+++", "+++ ")])
def test_a_fence_typed_with_spaces_around_it_still_opens_and_closes_the_header(opening, closing):
    note = Note(
        id="n1",
        repo="o/r",
        verdict="quick",
        topics=["cuda-graphs"],
        title_zh="标题",
        guidance="正文\n+++\n围栏之后\n",
    )
    lines = dump_note(note).split("\n")
    lines[0], lines[lines.index("+++", 1)] = opening, closing
    assert parse_note("\n".join(lines), "n.md") == note


# kills: bot/note_files.py:split_front_matter `range(1, ...)` -> `range(2, ...)` (an empty header
#   whose fence has a space after it reported as "no closing '+++' line", not its missing fields)
def test_an_empty_header_names_its_missing_fields_whatever_the_fences_spacing():
    from bot.note_files import LibraryError

    for text in ("+++\n+++\nbody\n", "+++ \n+++\nbody\n"):
        with pytest.raises(LibraryError) as exc:
            parse_note(text, "n.md")
        said = 'n.md:2: id: missing required field: write id = "n", the file\'s name'
        assert said in str(exc.value).split("\n"), text
        assert "no closing" not in str(exc.value)


def _fence_problem(text: str) -> str:
    from bot.note_files import LibraryError

    with pytest.raises(LibraryError) as exc:
        parse_note(text, "n.md")
    return str(exc.value)


_WIDE_PLUS = "holds '＋' (U+FF0B FULLWIDTH PLUS SIGN), typed by a Chinese input method: type '+++'"


# A closing fence typed wrong was "n.md:1: header: no closing '+++' line": line 1 holds a
# good fence, and nothing said which line was meant nor what is wrong with it
@pytest.mark.parametrize(
    ("fence", "said"),
    [
        ("＋＋＋", "'＋＋＋' " + _WIDE_PLUS),
        ("++＋", "'++＋' " + _WIDE_PLUS),
        ("++++", "'++++' has 4 plus signs; a fence is three, '+++'"),
        (" ++ ", "'++' has 2 plus signs; a fence is three, '+++'"),
        ("---", "'---' is YAML's fence; the header is TOML, closed by a '+++' line"),
    ],
)
def test_a_closing_fence_typed_wrong_is_named_on_its_line(fence, said):
    text = '+++\nid = "n1"\nrepo = "o/r"\n' + fence + "\n值得精读。\n---\n＋＋＋\n"
    assert _fence_problem(text) == f"n.md:4: header: no closing '+++' line: {said}"


def test_a_closing_fence_typed_wrong_right_after_the_opening_one_is_named():
    said = _fence_problem("+++\n++++\n值得精读。\n")
    assert (
        said
        == "n.md:2: header: no closing '+++' line: '++++' has 4 plus signs; a fence is three, '+++'"
    )


def test_an_opening_fence_typed_full_width_says_what_to_type():
    said = _fence_problem('＋＋＋\nid = "n1"\n+++\n值得精读。\n')
    assert said == (
        "n.md:1: header: file must start with a '+++' line: '＋＋＋' holds '＋'"
        " (U+FF0B FULLWIDTH PLUS SIGN), typed by a Chinese input method: type '+++'"
    )


# the guidance typed on the closing fence's line, `+++值得精读。`,
# was "n.md:1: header: no closing '+++' line": line 1 holds a good fence, and nothing said
# that line 4 was meant
@pytest.mark.parametrize("after", ["值得精读：这是采样器中第一个水印方案。", " 值得精读。", "值得"])
def test_a_closing_fence_with_the_guidance_on_its_line_is_named(after):
    said = _fence_problem('+++\nid = "n1"\nrepo = "o/r"\n+++' + after + "\n更多。\n")
    shown = repr("+++" + after) if len(after) <= 12 else repr("+++" + after[:12] + "…")
    assert said == (
        f"n.md:4: header: no closing '+++' line: {shown} has text after its '+++':"
        " the fence is a line of its own; put what follows it on the next line"
    )


def test_an_opening_fence_with_the_first_field_on_its_line_is_named():
    said = _fence_problem('+++id = "n1"\nrepo = "o/r"\n+++\n值得精读。\n')
    assert said == (
        "n.md:1: header: file must start with a '+++' line: '+++id = \"n1\"' has text after"
        " its '+++': the fence is a line of its own; put what follows it on the next line"
    )


def test_a_header_never_closed_is_named_on_its_first_line():
    # nothing looks like a fence (a line of other signs, a blank one, a plus inside text)
    said = _fence_problem('+++\nid = "n1"\n\n*** a+b\n+-+\n')
    assert said == "n.md:1: header: no closing '+++' line"


# --- the fast TOML path agrees with tomllib ---------------------------------------------

GOOD_VALUE = st.one_of(
    st.builds(toml_string, TEXT),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["true", "false", "2026-12-02", "[]"]),
    st.lists(st.builds(toml_string, TEXT), max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
    st.lists(st.builds(toml_string, TEXT), min_size=1, max_size=3).map(
        lambda xs: "[\n  " + ",\n  ".join(xs) + ",\n]"
    ),
)
ANY_VALUE = st.one_of(
    GOOD_VALUE,
    st.builds(lambda s: '"' + s + '"', TEXT),  # raw, maybe invalid
    st.builds(lambda s: "'" + s + "'", TEXT),
    st.sampled_from(
        [
            "2026-13-02",
            "01",
            "+0",
            "1_000",
            "1.5",
            "2026-12-02T10:00:00",
            "[",
            "]",
            "[,]",
            '["a",]',
            '["a" "b"]',
            "{}",
            '"\\ud83d\\ude00"',
            '"\\udc00"',
            '"\\ud7ff\\ue000"',
            '"\\U0001F600"',
        ]
    ),
)
GOOD_LINE = st.tuples(
    st.sampled_from(["id", "a", "b-c", "d_e", "9", "k1", "k2", "k3", "k4", "k5"]),
    st.sampled_from([" = ", "=", "\t=  "]),
    GOOD_VALUE,
    st.sampled_from(["", " ", "\t"]),
).map("".join)
ANY_LINE = st.one_of(
    st.tuples(
        st.sampled_from(["id", "a", "x y", '"q"', "a.b", ""]),
        st.sampled_from([" = ", " ="]),
        ANY_VALUE,
        st.sampled_from(["", " # c", "#"]),
    ).map("".join),
    st.sampled_from(["", "  ", "# comment", "#\x7f", "[table]", "[[topic]]", "+++"]),
    TEXT,
)
# Mostly well-formed documents (so the fast path is exercised), some of anything.
TOML_DOC = st.lists(st.one_of(GOOD_LINE, GOOD_LINE, GOOD_LINE, ANY_LINE), max_size=6).map("\n".join)


@settings(max_examples=400, deadline=None)
@given(TOML_DOC)
def test_fast_toml_accepts_only_what_tomllib_accepts_and_agrees(text):
    fast = fast_toml(text)
    try:
        slow = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert fast is None
        return
    assert fast is None or fast == slow


@pytest.mark.parametrize(
    "text",
    [
        'a = "x\\/y"',  # JSON escape, not TOML
        'a = "\x7f"',  # DEL must be escaped in TOML
        'a = "\\ud800"',  # not a scalar value: surrogates, high
        'a = "\\udbff"',
        'a = "\\udc00"',  # and low (json.loads keeps a lone one)
        'a = "\\uDFFF"',
        'a = ["x", "\\udc00"]',
        "a = 1\na = 2",  # duplicate key
        "a = 2026-02-30",  # no such day
        'a = ["x",\nb = "y"]',  # an unclosed array swallowing the next key
        "a = 007",
    ],
)
def test_fast_toml_leaves_invalid_toml_to_tomllib(text):
    assert fast_toml(text) is None


def test_fast_toml_reads_the_usual_forms():
    text = '# c\nid = "x"\n\nn = 5\nd = 2026-12-02\nok = true\nl = [\n  "a\\"b",\n  "c",\n]\n'
    assert fast_toml(text) == tomllib.loads(text)


def test_header_finds_key_and_element_lines():
    header = Header('id = "x"\ntopics = [\n  "a",\n  "b",\n]\npaths = ["b"]', first=2)
    assert header.line_of("id") == 2
    assert header.line_of("topics", "b") == 5
    assert header.line_of("paths", "b") == 7
    assert header.line_of("missing") == 1
    assert header.line_of("missing", default=9) == 9


# kills: bot/note_files.py:Header.line_of (hand) the element search not bounded by the next key (an
#   element written with an escape, not found as typed, named on a later key's line)
def test_an_element_not_found_as_typed_is_named_on_its_keys_line_not_a_later_keys():
    header = Header('topics = ["no\\u002dtopic"]\nkeywords = ["no-topic"]', first=2)
    assert header.line_of("topics", "no-topic") == 2
    assert header.line_of("keywords", "no-topic") == 3


# kills: bot/note_files.py:Header.line_of (hand) a value found as text on a line, not as an
#   element: one quoted in a comment or inside another string (a multi-line one too) took
#   the problem to that line, and a repeat written in the other quotes went unfound
@pytest.mark.parametrize(
    ("text", "nth", "line"),
    [
        ('paths = [\n  "a",  # not "b"\n  "b",\n]', 0, 3),
        ('aspects = [\n  \'the "b" case\',\n  "b",\n]', 0, 3),
        ("keywords = [\n  \"it's 'b'\",\n  'b',\n]", 0, 3),
        ('keywords = [\n  """see\n"b" here""",\n  "b",\n]', 0, 4),
        ("keywords = [\n  \"b\",\n  'b',\n]", 1, 3),
        ('topics = [\n  "a",\n  "no\\u002dtopic",\n]', 0, 3),
    ],
    ids=["comment", "in-a-literal", "in-a-basic", "in-a-multi-line", "repeat", "escaped"],
)
def test_an_elements_line_is_the_elements_own_not_one_quoting_it(text, nth, line):
    tomllib.loads(text)
    key = text.split(" ", 1)[0]
    value = "no-topic" if key == "topics" else "b"
    assert Header(text, first=1).line_of(key, value, nth=nth) == line


# --- the model ---------------------------------------------------------------------------


def test_verdict_order_and_labels():
    assert sorted(Verdict, key=lambda v: v.rank) == [Verdict.DEEP, Verdict.QUICK, Verdict.SKIP]
    assert [v.label_en for v in Verdict] == ["Deep read", "Quick read", "No deep read needed"]
    assert Verdict.SKIP.label_zh == "不需要精读"


def model_note(**fields) -> Note:
    base = dict(
        id="n", repo="o/r", verdict="deep", topics=["t"], title_zh="标题", guidance="值得精读。"
    )
    return Note(**(base | fields))


# kills: bot/notes.py:Note issue 1 refused as an issue number
def test_issue_1_is_an_issue_number():
    assert model_note(source_pr=2, issues=[1]).listed_numbers == {1, 2}
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        model_note(issues=[0])


# kills: bot/notes.py:Note._one_line a title with leading or trailing whitespace accepted
@pytest.mark.parametrize("field", ["title_zh", "title_en"])
def test_a_title_with_leading_or_trailing_whitespace_is_refused(field):
    for title in (" 标题", "Title "):
        with pytest.raises(ValueError, match=f"{field}\n.*leading or trailing whitespace"):
            model_note(**{field: title})


# kills: bot/notes.py:Note._not_before_created a note updated on the day it was created refused
def test_a_note_may_be_updated_on_the_day_it_was_created():
    day = date(2026, 8, 14)
    assert model_note(created=day, updated=day).updated == day
    with pytest.raises(ValueError, match="2026-08-13 is before created"):
        model_note(created=day, updated=date(2026, 8, 13))


# kills: bot/notes.py:Topic a topic of the shared library changeable in place
def test_the_librarys_topics_cannot_be_changed_in_place():
    # the server's threads share one library: a topic is frozen (and hashable), as a note is
    topic = load_library().topics["cuda-graphs"]
    with pytest.raises(ValidationError, match="frozen"):
        topic.name_en = "Changed"
    assert {topic: 1}[topic] == 1


# kills: bot/note_dump.py:_toml_line an array of one long element written over three lines
def test_a_long_array_is_written_one_element_a_line_but_one_element_stays_on_its_line():
    path = "vllm/" + "a" * 100 + ".py"
    note = model_note(paths=[path], keywords=["x" * 60, "y" * 60])
    text = dump_note(note)
    assert f'\npaths = ["{path}"]\n' in text
    assert f'\nkeywords = [\n  "{"x" * 60}",\n  "{"y" * 60}",\n]\n' in text
    assert parse_note(text, "n.md") == note


# --- globs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("vllm/v1/core", "vllm/v1/core/kv_cache_coordinator.py", True),
        ("vllm/v1/core/", "vllm/v1/core/sched/x.py", True),
        ("vllm/v1/core", "vllm/v1/core_utils.py", False),
        ("*.cu", "csrc/a/b.cu", True),
        ("csrc/*.cu", "csrc/a/b.cu", False),
        ("csrc/**/*.cuh", "csrc/libtorch_stable/persistent_topk.cuh", True),
        ("vllm/[!a]*.py", "vllm/b.py", True),
        ("vllm/[!a]*.py", "vllm/a.py", False),
        ("vllm[!a]x.py", "vllm/x.py", False),  # a negated class never matches '/'
        ("tests/watermarking/", "tests/watermarking/test_x.py", True),
        # kills: bot/globs.py:glob_to_regex a glob with any literal character taken for a directory
        # that covers everything below it (`docs/*` matching `docs/sub/x.md`)
        ("docs/*", "docs/x.md", True),
        ("docs/*", "docs/sub/x.md", False),
        # kills: bot/globs.py:glob_to_regex `**/` before more than one segment taking every
        # directory at once (possessively), so the segments after it could never match
        ("**/spec_decode/*.py", "vllm/v1/spec_decode/eagle.py", True),
        ("vllm/**/core/*.py", "vllm/v1/core/kv_cache_utils.py", True),
        # a trailing `/` names directories only, as in CODEOWNERS (`disaggregated*/`
        # took `disaggregated_serving.py`)
        ("vllm/*/", "vllm/x.py", False),
        ("vllm/*/", "vllm/a/x.py", True),
        ("serving/disaggregated*/", "serving/disaggregated_serving.py", False),
        ("serving/disaggregated*/", "serving/disaggregated_prefill/run.sh", True),
        ("cmake/", "tools/cmake", False),
        ("cmake/", "tools/cmake/utils.cmake", True),
    ],
)
def test_glob_semantics(pattern, path, matches):
    assert glob_matches(pattern, path) is matches


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("", "empty pattern: delete it"),
        # kills: bot/globs.py:glob_to_regex a pattern of spaces only called whitespace around a
        # pattern instead of empty
        ("   ", "empty pattern: delete it"),
        ("a\\b", "use '/' as the path separator, not '\\': write 'a/b'"),
        # the path to write is one that is accepted: a separator doubled in a '...' string
        # is one; a path refused with '/' too, or an escape, is told none
        ("vllm\\\\v1\\\\x.py", "use '/' as the path separator, not '\\': write 'vllm/v1/x.py'"),
        (".\\vllm\\x.py", "use '/' as the path separator, not '\\'"),
        ("vllm/\\*.py", "use '/' as the path separator, not '\\'"),
        # each says what to write, not only what is wrong
        (" a", "leading or trailing whitespace: write 'a'"),
        ("!a", "negation ('!') is not supported; list the paths that should match"),
        (
            "a/[b",
            "unclosed '[' at position 3: '[' starts a class of characters, as in '[abc]':"
            " close it with ']', or write '[[]' for a '[' in a file's name",
        ),
        ("a]", "unmatched ']' at position 2: write '[]]' for a ']' in a file's name"),
        (
            "/x[",
            "unclosed '[' at position 3: '[' starts a class of characters, as in '[abc]':"
            " close it with ']', or write '[[]' for a '[' in a file's name",
        ),
        ("/", "pattern matches nothing but '/'"),
        ("./vllm/x.py", "GitHub's paths have no '.' or '..' parts: write it from the root"),
        ("vllm/../csrc/", "GitHub's paths have no '.' or '..' parts: write it from the root"),
        ("vllm/./x.py", "GitHub's paths have no '.' or '..' parts: write it from the root"),
        # an address from the browser, a doubled slash
        (
            "https://github.com/vllm-project/vllm/blob/main/vllm/x.py",
            "a URL, not a path: write the file's path from the repository's root",
        ),
        ("vllm//x.py", "GitHub's paths have no empty parts: write one '/' between names"),
        ("//vllm/", "GitHub's paths have no empty parts: write one '/' between names"),
        ("vllm//", "GitHub's paths have no empty parts: write one '/' between names"),
        # a tab (legal in a TOML string) passed, and the path
        # matched no file, silently
        ("vllm/x\t.py", "holds a tab (U+0009), which no file's path holds: delete it"),
        ("vllm/x.py\nvllm/y.py", "holds a line break (U+000A): write one path per string"),
        ("vllm/\x01x.py", "holds U+0001, a control character no file's path holds: delete it"),
        # a path copied from Windows, its `\b`, `\t`, `\r` escapes
        (
            "benchmarks\backend.py",
            "holds a backspace (U+0008), which is what '\\b' in a \"...\" string is: a path"
            " uses '/': write 'benchmarks/backend.py'",
        ),
        (
            "vllm\reasoning\tools.py",
            "holds a line break (U+000D), which is what '\\r' in a \"...\" string is: a path"
            " uses '/': write 'vllm/reasoning/tools.py'",
        ),
        ("x.py\t", "holds a tab (U+0009), which no file's path holds: delete it"),  # at the end
        ("vllm\tx\x01.py", "holds a tab (U+0009), which no file's path holds: delete it"),
    ],
)
def test_bad_globs(pattern, message):
    with pytest.raises(GlobError) as exc:
        glob_matches(pattern, "x")
    assert str(exc.value) == message


def test_toml_lines_scans_keys_and_tables_as_toml_does():
    # the lines problems are put on: a `[[topic]]` or `key =` inside a multi-line string
    # or array is text; quoted and dotted keys and tables are keys
    text = (
        'a = """\n[[topic]]\nb = 1\n"""\n'  # 0-3
        "'q.k' = ['''x\n''', \"]\", # c\n  \"[y\"]\n"  # 4-6
        '["topic"]\n'  # 7
        'c.d = { e = "}" }\n'  # 8
        "[[ topic . x ]]  # note\n"  # 9
        "f = 'g\\'\n"  # 10: a literal string ends at its first quote
    )
    tomllib.loads(text)
    assert [(e.line, e.path, e.table) for e in scan(text)] == [
        (0, ("a",), False),
        (4, ("q.k",), False),
        (7, ("topic",), True),
        (8, ("topic", "c", "d"), False),
        (9, ("topic", "x"), True),
        (10, ("topic", "x", "f"), False),
    ]
    assert first_lines(text)["topic.c.d"] == 8 and first_lines(text)["topic"] == 7


def test_toml_lines_finds_comments_and_not_a_hash_in_a_string():
    text = '# top\nsource = "d.txt#1"  # c\nx = [ # in\n  "a#b",\n]\ns = """\n# no\n""" # yes\n'
    assert comments(text) == {0: 0, 1: 20, 2: 6, 7: 4}


# --- terms a PR's text can hold (bot.note_terms) ------------------------------------------


# kills: bot/note_terms.py:check_term a term of spaces only called padded instead of empty
def test_a_term_of_spaces_only_is_empty():
    from bot.note_terms import check_term

    with pytest.raises(ValueError, match="^empty term$"):
        check_term("   ")


# kills: bot/note_terms.py:_unseen_character every zero-width joiner let through (`or`), not only
# one inside an emoji; bot/note_terms.py:_emoji_sides one with any character on both sides (`c or
# ...`), an emoji on one side only (`any`), or nothing on one side (`... or not c.isalnum()`) let
# through
@pytest.mark.parametrize(
    "term", ["eager\u200dregion", "rocm\u200d", "🔥\u200dx", "x\u200d🔥", "\u200d🔥"]
)
def test_a_zero_width_joiner_outside_an_emoji_is_refused(term):
    from bot.note_terms import check_term

    with pytest.raises(ValueError, match=r"U\+200D \(ZERO WIDTH JOINER\), invisible"):
        check_term(term)
    assert check_term("🧑\u200d💻") == "🧑\u200d💻"  # inside an emoji it is the emoji's


# kills: bot/note_terms.py:ascii_typed_as the full-width `！` (U+FF01, the first of the forms) or
# `～` (U+FF5E, the last) not taken for the ASCII character it was typed for
def test_the_first_and_last_full_width_forms_are_typed_for_their_ascii_characters():
    from bot.note_terms import ascii_typed_as, check_term

    assert ascii_typed_as("\uff01") == "!"
    assert ascii_typed_as("\uff5e") == "~"
    assert ascii_typed_as("\uff5f") is None  # past the forms: not one of them
    with pytest.raises(ValueError, match="typed by a Chinese input method for '!'"):
        check_term("torch.compile！")


# A note's term and a command once read full-width forms each with its own table: a range
# changed in one would refuse in a note what a command reads as ASCII, or the reverse.
def test_a_note_term_and_a_command_read_the_same_full_width_forms_as_ascii():
    from bot.comment_prose import as_ascii
    from bot.note_terms import ascii_typed_as

    around = [chr(c) for c in range(0xFF00, 0xFF61)]  # the forms and one either side
    assert [ascii_typed_as(c) or c for c in around] == [as_ascii(c) for c in around]
    assert as_ascii("\uff00\uff5f") == "\uff00\uff5f"  # either side: not a form


# kills: bot/note_terms.py:_mistyped the terms a list separator joins suggested with the spaces
# typed after it (`["a", " b"]`), or with an empty one for spaces between two separators
def test_terms_joined_by_a_list_separator_are_suggested_trimmed():
    from bot.note_terms import check_term

    for term in ("CUDA graph， eager region", "CUDA graph， ，eager region"):
        with pytest.raises(ValueError) as exc:
            check_term(term)
        said = str(exc.value)
        assert said.endswith('write one term per string, ["CUDA graph", "eager region"]'), said


# --- where TOML puts a key, a table or a comment (bot.toml_lines); a topic's name as typed ---


# kills: bot/toml_lines.py:Entry every key taken for an `[[array]]` table header
def test_toml_lines_tells_an_array_of_tables_from_a_table_and_a_key():
    # the taxonomy's topics start at their `[[topic]]` lines; a `topic = [...]` key is none
    text = 'topic = [{ id = "x" }]\n[[t]]\n[s]\n'
    tomllib.loads(text)
    assert [(e.line, e.path, e.array, e.table) for e in scan(text)] == [
        (0, ("topic",), False, False),
        (1, ("t",), True, True),
        (2, ("s",), False, True),
    ]


# kills: bot/toml_lines.py:_Scanner.string a backslash escaping in a literal string, not in a basic
#   one
# kills: bot/toml_lines.py:_Scanner.string a multi-line string closed by four quotes skipping a
#   character
@pytest.mark.parametrize(
    "text",
    [
        'a = """x\\"""\nb = 1\n"""\nc = 2\n',  # `\"` is a quote: the string runs on
        "a = '''x\\'''\nc = 2\n",  # a literal string has no escapes: `\` then its end
        'a = """x""""\nc = 2\n',  # closed by `"""`, a quote before it is text
    ],
)
def test_toml_lines_finds_the_key_after_a_multi_line_string_where_toml_does(text):
    assert set(tomllib.loads(text)) == {"a", "c"}
    assert [(e.line, e.path) for e in scan(text)] == [(0, ("a",)), (text.count("\n") - 1, ("c",))]


# kills: bot/toml_lines.py:_Scanner.string a backslash escaping in a literal string, not in a basic
#   one
# kills: bot/toml_lines.py:_BODIES (hand) an escape in a "..." string skipping the character
#   after the escaped one
@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('x = "a\\" # b"\n', {}),  # an escaped quote: the `#` is in the string
        ("y = 'a\\' # c\n", {0: 9}),  # no escapes in a literal string: it ends at `'`
        ('z = "\\"" # d\n', {0: 9}),
    ],
)
def test_toml_lines_finds_a_comment_after_a_string_ending_in_an_escape(text, found):
    tomllib.loads(text)
    assert comments(text) == found


# kills: bot/toml_lines.py:_Scanner.key a line that starts no key failing the scan of the rest
def test_toml_lines_reads_on_past_what_is_no_toml():
    # set_twice scans a text tomllib refused: what comes after its error is any text
    assert [(e.line, e.path) for e in scan("[]\nb = 1\n")] == [(0, ()), (1, ("b",))]


# kills: bot/toml_lines.py:comments a comment's column counted from the text's second character
# kills: bot/toml_lines.py:comments a comment's line counted from the text's second character
def test_toml_lines_puts_a_comment_below_an_empty_first_line_on_its_line_and_column():
    assert comments("\n# c\n\nx = 1 # d\n") == {1: 0, 3: 6}


# kills: bot/toml_lines.py:_scanned the character right after `=` skipped with it
def test_toml_lines_skips_an_array_written_right_after_its_equals_sign():
    text = 'a =[\n  "x",\n]\nb ={ c = 1 }\nd = 2\n'
    tomllib.loads(text)
    assert [(e.line, e.path) for e in scan(text)] == [(0, ("a",)), (3, ("b",)), (4, ("d",))]


# kills: bot/notes.py:topic_key the first strip dropped: a space before the backtick kept it
@pytest.mark.parametrize(
    "typed",
    [
        *("cuda-graphs", " `cuda-graphs` ", "`cuda-graphs`.", "CUDA_graphs_", "ｃｕｄａ graphs。"),
        *("CUDAGraphs", "cudagraphs"),  # gaps do not count, nor their absence
        # quotes, as typed, as iOS or macOS make them, a Chinese input method's, with the
        # full stop inside them as American English puts it
        *('"cuda graphs"', "“CUDA graphs”", "‘cuda-graphs’", "「CUDA graphs」。", '"cuda graphs."'),
    ],
)
def test_topic_key_reads_a_name_as_typed_around_it(typed):
    # what `/notes topic` and notes check compare: backticks, quotes, a sentence's end,
    # gaps and full-width forms are no part of the name
    assert topic_key(typed) == "cudagraphs"


def test_bad_glob_messages_suggest_globs_that_match_the_character():
    # the unclosed '[' and unmatched ']' messages tell '[[]' and '[]]': both must work
    assert glob_matches("docs/a[[]1[]].md", "docs/a[1].md")
    assert not glob_matches("docs/a[[]1[]].md", "docs/a1.md")


@pytest.mark.parametrize("glob", ["docs/a[[]1.md", "a[&&b].py"])
def test_a_class_of_characters_that_python_reads_as_a_set_operation_is_literal(glob):
    # `[[]`, the glob the unclosed-'[' message suggests, was copied into the regex as it is:
    # Python's `re` warns of a "possible nested set" there (a FutureWarning: a later
    # Python reads `[[` as a nested set); `&&` in a class is escaped too, and stays literal
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile_glob.cache_clear()
        assert compile_glob(glob)
    assert glob_matches("docs/a[[]1.md", "docs/a[1.md")
    assert glob_matches("a[&&b].py", "a&.py") and not glob_matches("a[&&b].py", "ab&.py")

"""Reading a note file, and the problems found in it (pure: text in, a note or its
problems out).

A note file is Markdown with a TOML front matter between `+++` lines, the guidance
after it (the layout, with an example: `split_front_matter`). Outside the flow from
event to comment: `bot.library` reads the curators' files with it when the notes load.
It must never change the guidance's words, and reports every problem with its line
(`Problem`).
"""

from __future__ import annotations

import codecs
import difflib
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.note_dump import FENCE, toml_string, toml_value
from bot.note_terms import LIST_SEPARATORS, describe_character
from bot.toml_errors import (
    bad_date,
    bad_escape,
    ended_early,
    left_open,
    other_date,
    set_twice,
    table_twice,
    typed_hint,
    unclosed_string,
    unquoted,
    year_first_date,
)
from bot.toml_lines import BARE_KEY, Layout, layout

# The notes' model and the Markdown parser are imported where a note needs them: the
# settings read config/bot.toml with this module (`config_files`), and importing those
# cost every command that reads the settings, `replay` and `retry` too, ~40 ms.
if TYPE_CHECKING:
    from bot.notes import Note


@dataclass(frozen=True, order=True)
class Problem:
    """One defect in the library, printed as `file:line: field: message`.

    Every problem is reported as a `Problem(path, line, field, message)`, with the
    line of the offending key (or array element) in the file. `config_files` reads the
    config files' TOML with the same reader and reports their problems the same way.
    """

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.message}"


class LibraryError(Exception):
    """Raised with every problem found; str() lists them one per line."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


# --- where things are ----------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """A block of TOML text, to find the line of a key or of an array element."""

    text: str
    first: int  # file line number of the block's first line

    @property
    def closing_line(self) -> int:
        """The file line of a note header's closing `+++` (an empty header's text is read
        as no line, as `+++` then `+++` writes it)."""
        return self.first + (self.text.count("\n") + 1 if self.text else 0)

    @property
    def body_line(self) -> int:
        """The file line the guidance starts on, after the header's closing `+++`."""
        return self.closing_line + 1

    @cached_property
    def layout(self) -> Layout:
        """Its keys and its values' strings, scanned as TOML (worked out only when a
        problem needs it)."""
        return layout(self.text)

    @cached_property
    def keys(self) -> dict[str, int]:
        """Each key, dotted, and each table (`[links]`) -> index of its line."""
        return self.layout.keys

    @cached_property
    def strings(self) -> list[tuple[int, str | None]]:
        """Each string its values hold, as TOML reads it (`"no\\u002dtopic"` is
        no-topic), by the index of its line: a value quoted in a comment or inside
        another string is none."""
        return [(line, _read_string(written)) for line, written in self.layout.strings]

    def line_of(self, key: str, value: Any = None, default: int | None = None, nth: int = 0) -> int:
        """The file line of `key`, or of the array element `value` under it (its `nth`
        occurrence, 0 the first)."""
        if key not in self.keys:
            return self.first - 1 if default is None else default
        start = self.keys[key]
        if isinstance(value, str):
            end = min(
                (i for i in self.keys.values() if i > start), default=self.text.count("\n") + 1
            )
            found = [i for i, read in self.strings if start <= i < end and read == value]
            if len(found) > nth:
                return self.first + found[nth]
        return self.first + start


def _read_string(written: str) -> str | None:
    """A TOML string as written, quotes and all, read; None if it is none (the scanner
    reads on through text TOML refuses)."""
    try:
        return tomllib.loads(f"s = {written}")["s"]
    except tomllib.TOMLDecodeError:
        return None


def _not_a_date(value: Any) -> str:
    """Why a date field's value is none, in TOML's words."""
    if isinstance(value, datetime):
        day = value.date().isoformat()
        return f"{value.isoformat()} is a date and time: write the date alone, as {day}"
    if isinstance(value, str):  # their own date unquoted, when it reads as one
        meant, other = year_first_date(value), other_date(value.strip())
        if meant is None and other is not None and not other[0]:  # day or month first
            form = "write the date year-month-day, without quotes"
            return f"{toml_string(value)} is a string: {form}, {other[1]}"
        example = "2026-08-15" if meant is None else meant.isoformat()
        return f"{toml_string(value)} is a string: write the date without quotes, as {example}"
    return f"{toml_value(value)} is not a date: write one as 2026-08-15, without quotes"


def closest(word: str, known: Iterable[str]) -> str | None:
    """The known word `word` seems a misspelling of, or None. Case aside: `Title_EN` is
    `title_en`, where difflib alone finds `title_zh` as close."""
    folded = {k.casefold(): k for k in known}
    close = difflib.get_close_matches(word.casefold(), list(folded), n=1)
    return folded[close[0]] if close else None


# a PR as a curator may copy it: `#52419`, `PR 52419`, its address
_PR_NUMBER = re.compile(
    r"(?:#|PR ?#?|https?://github\.com/[^/\s]+/[^/\s]+/(?:pull|issues)/)?([1-9][0-9]*)/?", re.I
)
_SCALAR = str | int | float | bool | date


def _bad_verdict(value: Any) -> str:
    """What to write for a verdict that is none: the one it seems meant as, by its name in
    another case, its label as the comment shows it (`Quick read`, or as an identifier,
    `deep-read`) or its Chinese words (`值得快速阅读`, as the guidance states it)."""
    from bot.notes import Verdict, derive_verdict, near_verdict

    msg = f"bad verdict {value!r}; use one of: " + ", ".join(Verdict)
    if isinstance(value, list) and value in ([v.value] for v in Verdict):  # `["deep"]`
        return f"{toml_value(value)} is a list: write the verdict alone, as {toml_value(value[0])}"
    if not isinstance(value, str):
        return msg
    typed = " ".join(re.split(r"[\s_-]+", value.strip().casefold()))  # `deep-read`
    named = [v for v in Verdict if typed in (v.value, v.label_en.casefold())]
    meant = named[0] if named else derive_verdict(value)
    if meant is None and (near := near_verdict(value)) is not None:  # `值得 精读`, `值得精讀`
        _, words, read = near
        return msg + f" ({value!r} reads as {words}, {read.value!r})"
    return msg + (f" ({value!r} is {meant.value!r})" if meant else "")


def _wrong_type(kind: str, value: Any, field: str = "", repo: Any = None) -> str | None:
    """What to write for a value of the wrong TOML type, or None to keep pydantic's words
    (which say "a valid tuple" of a list: TOML has none). `repo`: the note's, which a PR
    number names a PR of."""
    if kind == "tuple_type" and isinstance(value, _SCALAR):  # `topics = "rocm"`
        return f"{toml_value(value)} is not a list: write one, as {_as_list(value, field)}"
    if kind == "greater_than_equal" and field in ("source_pr", *_NUMBER_LISTS):  # `= 0`
        noun = "issue" if field == "issues" else "PR"
        return f"{toml_value(value)} is no {noun} number: they start at 1"
    if kind == "int_type" and isinstance(value, float) and value.is_integer():  # `52419.0`
        return f"{value!r} is not a whole number: write {int(value)}"
    if kind == "string_type" and isinstance(value, list) and len(value) == 1:  # `["..."]`
        alone = toml_value(value[0])
        return f"{toml_value(value)} is a list: write the text alone, as {alone}"
    if not isinstance(value, str):
        return None
    if kind == "int_type":  # `source_pr = "#52419"`
        if (elsewhere := _another_repos_pr(value, field, repo)) is not None:
            return elsewhere
        m = _PR_NUMBER.fullmatch(value.strip())
        number = f", as {m[1]}" if m else ""
        return f"{toml_string(value)} is a string: write the number alone, without quotes{number}"
    if kind == "bool_type":  # `retired = "true"`
        return f"{toml_string(value)} is a string: write true or false, without quotes"
    return None


# a note's lists of PR or issue numbers
_NUMBER_LISTS = ("read_with", "issues")


# what joins a list's values typed in one string: a comma, or a Chinese input method's
_JOINED = re.compile(f"[,{LIST_SEPARATORS}]")


def _as_list(value: Any, field: str) -> str:
    """The list to write for a value typed where a list goes: the parts a comma joins in
    it (`"a_b, c_d"`, two terms, not one; `"a_b，c_d"` too, else the next run's problem is
    the Chinese comma), as numbers in a list of PRs or issues (`"52448"` as 52448, else
    the next run's problem is its quotes)."""
    if not isinstance(value, str):
        return f"[{toml_value(value)}]"
    parts = [p.strip() for p in _JOINED.split(value) if p.strip()] or [value]
    numbers = [_PR_NUMBER.fullmatch(p) for p in parts]
    if field in _NUMBER_LISTS and all(numbers):
        return "[" + ", ".join(m[1] for m in numbers if m) + "]"
    return "[" + ", ".join(toml_string(p) for p in parts) + "]"


_REPO_IN_URL = re.compile(r"github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?(?:[/#?]|$)")


def repo_of_address(text: str) -> str | None:
    """The `owner/name` of a GitHub address (`https://github.com/owner/name/pull/1`), or
    None: what a curator pastes for a repository."""
    m = _REPO_IN_URL.search(text)
    return m[1] if m else None


def _another_repos_pr(value: str, field: str, repo: Any) -> str | None:
    """What a PR's address of another repository than the note's is told, or None: its
    number alone would name the note's repository's PR of that number, another PR."""
    m, at = _PR_NUMBER.fullmatch(value.strip()), _REPO_IN_URL.search(value)
    if m is None or at is None or not isinstance(repo, str) or at[1].lower() == repo.lower():
        return None
    kind = "issue" if "/issues/" in value else "PR"
    said = (
        f"{toml_string(value)} is {kind} {m[1]} of {at[1]}; a number here names one of the"
        f" note's repo, {repo}: "
    )
    if field == "source_pr":
        fix = f"write repo = {toml_string(at[1])} and source_pr = {m[1]}"
        return said + fix + " if the note is about that PR"
    return said + "delete it"


def _misshapen(pattern: str, value: Any) -> str | None:
    """What an id or a repository is, in words, or None to keep pydantic's (which quotes
    the regular expression)."""
    from bot.notes import ID_PATTERN, REPO_PATTERN

    if not isinstance(value, str):
        return None
    if pattern == ID_PATTERN:
        lower = value.lower()
        like = f", as {toml_string(lower)}" if re.match(ID_PATTERN, lower) else ""
        return (
            f"{toml_string(value)} is not an id: lower-case letters, digits, '.', '_' and '-',"
            f" 64 at most, starting with a letter or digit{like}"
        )
    if pattern == REPO_PATTERN:  # often the repository's address, pasted
        named = repo_of_address(value) or "vllm-project/vllm"
        return f"{toml_string(value)} is not a repository: write owner/name, as {named}"
    return None


def _dotted(field: str, value: Any, known: Iterable[str]) -> str | None:
    """The field `title.en = ...` (a dotted key: a table `title` holding `en`) was meant
    as, `title_en`, when it is one; else None."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    meant = f"{field}_{next(iter(value))}".casefold()
    return next((k for k in known if k.casefold() == meant), None)


def _meant_field(key: str, value: Any, known: Iterable[str]) -> str | None:
    """The `known` field an unknown top-level key seems meant as, or None: a dotted key's
    (`title.en`), else the one it seems a misspelling of (`Verdict`)."""
    return _dotted(key, value, known) or closest(key, known)


# a field's problem when left out, and when written with nothing in it
MISSING = "missing required field"
BLANK = "required field left blank"


def pydantic_problems(
    exc: ValidationError,
    path: str,
    header: Header,
    data: dict[str, Any],
    default_line: int,
    known: Iterable[str] = (),
    whose: str | None = None,
) -> list[Problem]:
    """Turn pydantic's errors into problems on the right lines; an unknown field gets the
    `known` one it seems a misspelling of, else, given `whose` ("a note's"), the list of
    them."""
    from bot.notes import Repeated

    out = []
    errors = exc.errors()
    # fields with an element at fault: pydantic also counts the list short of its good ones
    bad_elements = {e["loc"][0] for e in errors if len(e.get("loc") or ()) > 1}
    for err in errors:
        loc = err.get("loc") or ("header",)
        if err["type"] == "too_short" and loc[0] in bad_elements and len(loc) == 1:
            continue
        # a field of a table is dotted (`weights.path`), an element goes by its value
        field = ".".join(str(p) for p in loc if not isinstance(p, int))
        value = None
        if len(loc) > 1 and isinstance(loc[1], int):
            items = data.get(str(loc[0]))
            if isinstance(items, list | tuple) and loc[1] < len(items):
                value = items[loc[1]]
        msg = err["msg"].removeprefix("Value error, ")
        nth, first = 0, None
        repeated = (err.get("ctx") or {}).get("error")
        if isinstance(repeated, Repeated) and isinstance(repeated.value, str):
            value, nth = repeated.value, repeated.nth  # the repeat's own line
            first = header.line_of(field, repeated.first, default=default_line)
        if err["type"] == "missing":
            msg = MISSING
        elif err["type"] == "extra_forbidden":
            msg = "unknown field"
            close = _meant_field(field, err.get("input"), known) if len(loc) == 1 else None
            if close:
                msg += f"; did you mean {close!r}?"
            elif whose is not None and len(loc) == 1:
                fields = ", ".join(known)
                msg += f"; {whose} fields are {fields}: rename it to one, or delete it"
        elif field == "verdict" and err["type"] == "enum":
            msg = _bad_verdict(err.get("input"))
        elif (
            wrong := _wrong_type(err["type"], err.get("input"), field, data.get("repo"))
        ) is not None:
            msg = wrong
        elif err["type"] == "string_pattern_mismatch" and (
            shape := _misshapen((err.get("ctx") or {}).get("pattern", ""), err.get("input"))
        ):
            msg = shape
        elif err["type"] == "date_type":
            msg = _not_a_date(err.get("input"))
        elif field == "topics" and err["type"] == "too_short":
            msg = "list at least one topic id from the taxonomy"
        line = header.line_of(field, value, default=default_line, nth=nth)
        if first is not None and first != line:
            msg += f" (first on line {first})"
        out.append(Problem(path, line, field, msg))
    return out


# --- reading -----------------------------------------------------------------


def decode_utf8(data: bytes, path: str) -> str:
    """File bytes as text; LibraryError naming the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        said = f"not UTF-8: {exc.reason}" + encoding_hint(data, exc.start)
        raise LibraryError([Problem(path, line, "file", said)]) from None


def encoding_hint(data: bytes, at: int) -> str:
    """What text that is no UTF-8 at byte `at` seems to be, with the fix, or ''. The bytes
    from there on are read whole: a pair of them alone (`“F` in Windows-1252) is often a
    GBK character too."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):  # its byte-order mark
        return "; it is UTF-16 (Notepad's 'Unicode'): save the file as UTF-8"
    rest = data[at:]
    if _chinese_in_gbk(rest):
        return "; it reads as GBK, as Chinese Windows saves text: save the file as UTF-8"
    # UTF-8 before it (the file is UTF-8, one byte bad) or cut inside a character: neither
    if data[:at].isascii() and not _cut_utf8(rest) and _decodes(rest, "cp1252"):
        return (
            "; it reads as Windows-1252 (Latin-1), as Western Windows saves text:"
            " save the file as UTF-8"
        )
    return ""


def _chinese_in_gbk(data: bytes) -> bool:
    """Whether the bytes read as GBK into Chinese: two characters of GB2312's (both bytes
    0xA1-0xFE) in a row. Latin text in Windows-1252 has its accented letters alone."""
    if not _decodes(data, "gbk"):
        return False
    text = data.decode("gbk")
    return any(_gb2312_hanzi(a) and _gb2312_hanzi(b) for a, b in pairwise(text))


def _gb2312_hanzi(ch: str) -> bool:
    """A Chinese character of GB2312, the common ones GBK extends."""
    return "\u4e00" <= ch <= "\u9fff" and all(0xA1 <= b <= 0xFE for b in ch.encode("gbk"))


def _decodes(data: bytes, encoding: str) -> bool:
    try:
        data.decode(encoding)
    except UnicodeDecodeError:
        return False
    return True


def _cut_utf8(rest: bytes) -> bool:
    """Whether the bytes are a UTF-8 character's start, the file ending inside it."""
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(rest) == ""
    except UnicodeDecodeError:
        return False


def normalise_text(text: str) -> str:
    """Drop a byte-order mark and turn CRLF / CR line ends into LF."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_front_matter(text: str, path: str) -> tuple[str, str, int]:
    """Return (header text, body, line number of the header's first line).

    A note file is Markdown with a TOML front matter between `+++` lines; the body
    after the header is the curator's guidance text, kept byte for byte:

        +++
        id = "vllm-3f2a9c1d"
        repo = "vllm-project/vllm"
        source_pr = 52401
        verdict = "deep"
        topics = ["cuda-graphs"]
        keywords = ["eager_break_during_capture"]
        paths = ["vllm/models/deepseek_v4/attention.py"]
        title_zh = "..."
        title_en = "..."
        summary_en = "..."
        created = 2026-08-14
        updated = 2026-12-02
        source = "000_592c10ca5a9ed86e.txt#1"
        +++
        值得精读。...
    """
    text = normalise_text(text)
    if text.startswith(FENCE + "\n"):  # the usual layout, found without splitting the body
        end = text.find("\n" + FENCE + "\n", len(FENCE))
        if end != -1 and FENCE not in text[: end + 1][len(FENCE) :]:
            return text[len(FENCE) + 1 : end], text[end + len(FENCE) + 2 :], 2
    lines = text.split("\n")
    if lines[0].strip() != FENCE:
        raise LibraryError([Problem(path, 1, "header", _no_opening_fence(lines))])
    for i in range(1, len(lines)):
        if lines[i].strip() == FENCE:
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), 2
    # no line closes it: name the one meant to, where the curator will look, not line 1
    for i in range(1, len(lines)):
        if (typed := _fence_typed_as(lines[i])) is not None:
            said = f"no closing '{FENCE}' line" + typed
            raise LibraryError([Problem(path, i + 1, "header", said)])
    raise LibraryError([Problem(path, 1, "header", f"no closing '{FENCE}' line")])


def _no_opening_fence(lines: list[str]) -> str:
    """What a file whose first line is no fence is told, from its first line not blank:
    blank lines before a '+++' are to be deleted; before anything else they are not what
    is wrong, that line is (YAML's '---', a fence mistyped, as on line 1)."""
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:  # saved before anything was written, or emptied by a tool
        return f"the file is empty: a note is a '{FENCE}' header, then its guidance"
    said = f"file must start with a '{FENCE}' line"
    opening = lines[first].strip()
    if opening == FENCE:  # pasted with a line before it: the fence is there
        return said + f": delete the blank line{'s' if first > 1 else ''} before line {first + 1}"
    if opening == "---":  # YAML's front matter, a habit from other sites
        return said + f", not '---': the header is TOML (key = \"value\") between '{FENCE}' lines"
    return said + (_fence_typed_as(opening) or "")


def _fence_typed_as(line: str) -> str | None:
    """Why `line` seems a header fence mistyped, as the rest of a message, or None: the
    plus signs a Chinese input method types full-width (`＋＋＋`), one too many or too few
    (`++++`), YAML's `---`, or a fence with the guidance typed on its line (`+++值得精读`).
    No header line is any of them: a TOML key cannot start with `+` or `-`."""
    typed = line.strip()
    if typed.startswith(FENCE) and typed.lstrip("+\uff0b"):
        shown = typed if len(typed) <= len(FENCE) + 12 else typed[: len(FENCE) + 12] + "…"
        return (
            f": {shown!r} has text after its '{FENCE}': the fence is a line of its own;"
            " put what follows it on the next line"
        )
    if typed == "---":
        return f": '---' is YAML's fence; the header is TOML, closed by a '{FENCE}' line"
    if not typed or set(typed) - {"+", "\uff0b"}:
        return None
    if "\uff0b" in typed:
        wide = describe_character("\uff0b")
        return f": {typed!r} holds {wide}, typed by a Chinese input method: type '{FENCE}'"
    return f": {typed!r} has {len(typed)} plus signs; a fence is three, '{FENCE}'"


_CONFLICT = re.compile(r"^<<<<<<< .*\n(?:.*\n)*?=======\n(?:.*\n)*?>>>>>>> ", re.M)


_CONFLICT_FIX = (
    "a git merge conflict is left in the file (<<<<<<<, ======= and >>>>>>> lines):"
    " keep the text meant and delete the three marker lines"
)


def merge_conflict(text: str, *, fenced: bool = False) -> int | None:
    """The line of the first merge conflict git left in the text (its `<<<<<<< ours`,
    `=======` and `>>>>>>> theirs` lines, in order), or None. Two curators who edited one
    note: in the header TOML stops at the marker with no word of it; in the guidance it
    was served, markers and both sides, as the note's text. A `=======` line alone is a
    Markdown heading's underline. One whole in a fenced code block may be a sample of
    one (guidance on a tool that writes or checks them): it counts only with `fenced`."""
    if "<<<<<<< " not in text:  # most notes: no search
        return None
    from bot.markdown_text import without_fences

    text = normalise_text(text)
    m = _CONFLICT.search(text if fenced else without_fences(text))
    return None if m is None else text[: m.start()].count("\n") + 1


# A strict subset of TOML (what dump_note writes and what curators usually type: bare
# keys; basic strings with the short escapes; decimal integers; booleans; dates; arrays
# of strings; blank and comment lines) read line by line, about five times faster than
# tomllib. Anything outside the subset goes to tomllib, so what is accepted and every
# error message stay tomllib's.
_PLAIN = r'"[^"\\\x00-\x1f\x7f]*"'
# \uXXXX except surrogates (D800-DFFF, high and low), which TOML refuses and JSON
# would pair up or keep alone.
_ESCAPED = r'"(?:[^"\\\x00-\x1f\x7f]|\\["\\bfnrt]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4})*"'
_SEP = r"[ \t\n]*"


def _array(s: str) -> re.Pattern[str]:
    return re.compile(rf"\[{_SEP}(?:{s}{_SEP},{_SEP})*(?:{s}{_SEP})?\]")


_PLAIN_STR, _ESCAPED_STR = re.compile(_PLAIN), re.compile(_ESCAPED)
_PLAIN_ARRAY, _ESCAPED_ARRAY = _array(_PLAIN), _array(_ESCAPED)
_NOT_PLAIN = re.compile(r'["\\\x00-\x1f\x7f]')
_BLANK_OR_COMMENT = re.compile(r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?")
_INT = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_INT_ARRAY = _array(_INT.pattern)  # read_with = [38390, 49994]
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _unquote(literal: str) -> str:
    return json.loads(literal) if "\\" in literal else literal[1:-1]


def _fast_value(raw: str) -> Any:
    """The value of one subset literal; ValueError when it is outside the subset."""
    first = raw[:1]
    if first == '"':
        if len(raw) >= 2 and raw[-1] == '"':
            inner = raw[1:-1]
            if not _NOT_PLAIN.search(inner):
                return inner
            if _ESCAPED_STR.fullmatch(raw):
                return json.loads(raw)
    elif first == "[":
        if _PLAIN_ARRAY.fullmatch(raw):
            return [s[1:-1] for s in _PLAIN_STR.findall(raw)]
        if _ESCAPED_ARRAY.fullmatch(raw):
            return [_unquote(s) for s in _ESCAPED_STR.findall(raw)]
        if _INT_ARRAY.fullmatch(raw):
            return [int(s) for s in _INT.findall(raw)]
    elif _INT.fullmatch(raw):
        return int(raw)
    elif raw in ("true", "false"):
        return raw == "true"
    elif _DATE.fullmatch(raw):
        return date.fromisoformat(raw)  # ValueError (month 13...) -> tomllib's message
    raise ValueError(raw)


def fast_toml(text: str) -> dict[str, Any] | None:
    """Parse the TOML subset, or None when the text is outside it."""
    data: dict[str, Any] = {}
    lines = text.split("\n")
    i, n = 0, len(lines)
    try:
        while i < n:
            line = lines[i]
            i += 1
            key, eq, raw = line.partition("=")
            key = key.strip(" \t")
            if not eq or not BARE_KEY.fullmatch(key):
                if _BLANK_OR_COMMENT.fullmatch(line):
                    continue
                return None
            raw = raw.strip(" \t")
            if raw.startswith("[") and not raw.endswith("]"):  # a multi-line array
                parts = [raw]
                while i < n and not parts[-1].endswith("]"):
                    parts.append(lines[i].strip(" \t"))
                    i += 1
                raw = "\n".join(parts)
            if key in data:
                return None
            data[key] = _fast_value(raw)
    except ValueError:
        return None
    return data


# a note's fields that are a number or a date: typed without quotes, the fix is no quotes
_NUMBER_FIELDS, _DATE_FIELDS = ("source_pr",), ("created", "updated")


def parse_toml(text: str, path: str, first: int, field: str) -> dict[str, Any]:
    """Parse a block of TOML; raise LibraryError on the offending line."""
    data = fast_toml(text)
    if data is not None:
        return data
    try:
        # with its last newline (the header is cut before the closing line), so that an
        # error on the last line is reported on it rather than "at end of document"
        return tomllib.loads(text if text.endswith("\n") else text + "\n")
    except tomllib.TOMLDecodeError as exc:
        if (conflict := merge_conflict(text)) is not None:  # topics.toml, matching.toml
            line = first + conflict - 1
            raise LibraryError([Problem(path, line, field, _CONFLICT_FIX)]) from None
        m = re.search(r"line (\d+)", str(exc))
        # "at end of document": an array or string left open runs to the last line
        at = int(m.group(1)) if m else text.rstrip("\n").count("\n") + 1
        line = first + at - 1
        # tomllib counts lines from the header's start; the problem names the file's line
        said = re.sub(r"\(at line \d+, (column \d+)\)", r"(\1)", str(exc))
        said += typed_hint(text, str(exc))
        misdated = bad_date(text.split("\n")[at - 1]) if m else None
        if misdated is not None:  # tomllib: "Expected newline ... after a statement"
            key, msg = misdated
            raise LibraryError([Problem(path, line, key, msg)]) from None
        early = ended_early(text.split("\n")[at - 1], str(exc)) if m else None
        if early is not None:  # tomllib: "Expected newline ... after a statement"
            key, msg = early
            raise LibraryError([Problem(path, line, key, msg)]) from None
        escape = bad_escape(text.split("\n"), at, str(exc), first) if m else None
        if escape is not None:  # tomllib: "Unescaped '\\' in a string", under no key
            key, msg = escape
            raise LibraryError([Problem(path, line, key, msg)]) from None
        twice = set_twice(text) if "Cannot overwrite a value" in str(exc) else None
        if twice is not None:  # tomllib names neither the key nor where it was first set
            key, at, before = twice
            msg = f"`{key}` is set twice (first on line {first + before}): keep one"
            raise LibraryError([Problem(path, first + at, key, msg)]) from None
        table = table_twice(text, str(exc), first)
        if table is not None:  # tomllib names the table, not the `[[ ]]` it wants
            at, key, msg = table
            raise LibraryError([Problem(path, first + at, key, msg)]) from None
        unclosed = unclosed_string(text, str(exc))
        if unclosed is not None:  # tomllib names where it stopped, not the string's key
            at, key, msg = unclosed
            raise LibraryError([Problem(path, first + at, key, msg)]) from None
        still_open = left_open(text, str(exc))
        kinds = (_NUMBER_FIELDS, _DATE_FIELDS) if field == "header" else ((), ())
        bare = unquoted(text, str(exc), *kinds) if still_open is None else None
        if bare is not None:  # tomllib: "Invalid value", naming neither key nor fix
            at, key, msg = bare
            raise LibraryError([Problem(path, first + at, key, msg)]) from None
        if still_open is not None:  # tomllib stops at the next key: name the open line
            at, bracket = still_open
            closing = "]" if bracket == "[" else "}"
            said = (
                f"{'array' if bracket == '[' else 'inline table'} left open: no `{closing}`"
                f" before line {line}, which starts the next key"
            )
            line = first + at
        raise LibraryError([Problem(path, line, field, f"malformed TOML: {said}")]) from None


@dataclass(frozen=True)
class NoteSource:
    """A parsed note with the header it came from, for line-accurate checks."""

    note: Note
    path: str
    header: Header


# Reviewers read English: a note in the library is not ready until it has these.
CURATED_FIELDS = ("title_en", "summary_en")


def read_note(text: str, path: str, *, curated: bool = False) -> NoteSource:
    """Parse one note file; raise LibraryError naming file, line and field.

    With `curated`, a note must also have its English title and summary (the
    library requires them; a freshly imported note does not have them yet).
    """
    from bot.notes import Note

    # what a note's header may set (the guidance is the body)
    header_fields = tuple(f for f in Note.model_fields if f != "guidance")
    if (conflict := merge_conflict(text)) is not None:
        raise LibraryError([Problem(path, conflict, "file", _CONFLICT_FIX)])
    header_text, body, first = split_front_matter(text, path)
    header = Header(header_text, first)
    data = parse_toml(header_text, path, first, "header")
    if "guidance" in data:
        msg = "the guidance is the body after the header, not a field"
        raise LibraryError([Problem(path, header.line_of("guidance"), "guidance", msg)])
    data["guidance"] = body.removesuffix("\n")
    problems = []
    if (pasted := _another_header(body, header.body_line)) is not None:
        problems.append(Problem(path, pasted[0], "guidance", pasted[1]))
    # a field written misspelt (`Verdict`) is that problem alone, not also one missing:
    # the field its problem says it means
    misspelt = {
        _meant_field(k, v, header_fields) for k, v in data.items() if k not in Note.model_fields
    }
    # a field left out is named on the header's closing line, where it is added (a
    # header has no tables a key added there would fall into)
    closing = header.closing_line
    if curated:
        for key in CURATED_FIELDS:
            value = data.get(key)
            if key not in data and key not in misspelt:
                problems.append(Problem(path, closing, key, MISSING))
            elif isinstance(value, str) and not value.strip():
                problems.append(Problem(path, header.line_of(key), key, BLANK))
    try:
        note = Note.model_validate(data)
    except ValidationError as exc:
        body_line = header.body_line
        missing = {p.field for p in problems}  # blank: its whitespace is no second problem
        problems += [
            Problem(p.path, body_line, p.field, p.message) if p.field == "guidance" else p
            for p in pydantic_problems(exc, path, header, data, closing, header_fields, "a note's")
            if p.field not in missing and not (p.message == MISSING and p.field in misspelt)
        ]
    if problems:
        raise LibraryError([_with_fix(p, str(data["guidance"])) for p in problems])
    return NoteSource(note, path, header)


# a note's opening fence below the header, a key under it: another note's header
_ANOTHER_HEADER = re.compile(rf"^{re.escape(FENCE)}[ \t]*\n[ \t]*([A-Za-z0-9_-]+)[ \t]*=(.*)", re.M)


def _another_header(body: str, body_line: int) -> tuple[int, str] | None:
    """The file line and message of a note pasted into the guidance below its own (two
    copied in one go), else None: read as guidance, it would load nowhere. One shown in a
    fenced code block is a sample of a header, guidance as the rest."""
    from bot.markdown_text import without_fences

    m = _ANOTHER_HEADER.search(without_fences(body))
    if m is None:
        return None
    line = body_line + body[: m.start()].count("\n")
    named = re.fullmatch(r'[ \t]*"([a-z0-9][a-z0-9._-]*)"[ \t]*', m[2]) if m[1] == "id" else None
    file = f"{named[1]}.md" if named else "<id>.md"
    return line, (
        f"another note's header starts here: a file holds one note; move that note, from"
        f" this '{FENCE}' line to the end, to a file of its own, {file}"
    )


# what to write for a required field left out or left blank (title_en and summary_en: the
# library's alone, `CURATED_FIELDS`)
_MISSING_FIX = {
    "title_en": 'title_en = "...", a one-line English title',
    "summary_en": 'summary_en = "...", a one- or two-sentence English summary',
    "repo": 'repo = "vllm-project/vllm", the PR\'s repository',
    "verdict": 'verdict = "deep", "quick" or "skip", as the guidance\'s wording says',
    "topics": 'topics = ["prefix-caching"], one or more topic ids from the taxonomy',
    "title_zh": 'title_zh = "...", the original Chinese title on one line',
}


def _with_fix(problem: Problem, guidance: str) -> Problem:
    """A note's missing required field with what to write there (the file's name gives
    its id, the guidance's wording its verdict): a curator adding a note by hand reads
    it."""
    if problem.message not in (MISSING, BLANK):
        return problem
    from bot.notes import ID_PATTERN, stated_verdict

    fix = _MISSING_FIX.get(problem.field)
    if problem.field == "id":
        stem = problem.path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".md")
        fix = f'id = "{stem}", the file\'s name' if re.fullmatch(ID_PATTERN, stem) else None
    elif problem.field == "verdict" and (stated := stated_verdict(guidance)) is not None:
        fix = f"verdict = {toml_string(stated[1].value)}: the guidance says {stated[0]}"
    if fix is None:
        return problem
    return Problem(problem.path, problem.line, problem.field, f"{problem.message}: write {fix}")


def parse_note(text: str, path: str) -> Note:
    """Parse one note file; raise LibraryError naming file, line and field."""
    return read_note(text, path).note

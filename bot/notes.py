"""The notes model and the note file format (pure: text in, models out).

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

Every problem is reported as a `Problem(path, line, field, message)`, with the
line of the offending key (or array element) in the file.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from functools import cached_property
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictInt,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from bot.globs import GlobError, compile_glob
from bot.toml_lines import first_lines, scan

FENCE = "+++"
ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
REPO_PATTERN = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"


class Verdict(StrEnum):
    """How much reading a note's PR deserves, strongest first."""

    DEEP = "deep"  # 值得精读
    QUICK = "quick"  # 值得快速阅读 / 值得快速浏览
    SKIP = "skip"  # 不需要精读 / 可直接略过

    @property
    def rank(self) -> int:
        """0 for the strongest verdict; used to order notes at equal score."""
        return list(Verdict).index(self)

    @property
    def label_en(self) -> str:
        return _VERDICT_LABELS[self][0]

    @property
    def label_zh(self) -> str:
        return _VERDICT_LABELS[self][1]


_VERDICT_LABELS = {
    Verdict.DEEP: ("Deep read", "值得精读"),
    Verdict.QUICK: ("Quick read", "值得快速阅读"),
    Verdict.SKIP: ("No deep read needed", "不需要精读"),
}

# Looked for in the lead sentence, then in the whole text: the phrase that comes FIRST
# wins, so "值得快速浏览，但不值得精读" is a quick read and "值得精读……测试部分值得快速浏览"
# a deep one. A negation is its own phrase, found where it starts: "不值得精读" and
# "不太值得精读" are read as "no deep read", not as the "值得精读" inside them.
_VERDICT_RULES: list[tuple[str, Verdict]] = [
    ("不太值得", Verdict.SKIP),
    ("不值得", Verdict.SKIP),
    ("值得精读", Verdict.DEEP),
    ("值得深入阅读", Verdict.DEEP),
    ("值得快速阅读", Verdict.QUICK),
    ("值得快速浏览", Verdict.QUICK),
    ("不需要精读", Verdict.SKIP),
    ("不需精读", Verdict.SKIP),
    ("无需精读", Verdict.SKIP),
    ("不必精读", Verdict.SKIP),
    ("不需要深入精读", Verdict.SKIP),
    ("无需深入精读", Verdict.SKIP),
    ("可直接略过", Verdict.SKIP),
]


def stated_verdict(guidance: str) -> tuple[str, Verdict] | None:
    """The phrase stating the guidance's verdict and that verdict, or None when its
    wording states none."""
    lead = re.split(r"[。！？!?\n]", guidance, maxsplit=1)[0]
    for text in (lead, guidance):
        found = [
            (at, -len(phrase), phrase, verdict)  # the first; at one place, the longest phrase
            for phrase, verdict in _VERDICT_RULES
            if (at := text.find(phrase)) != -1
        ]
        if found:
            _, _, phrase, verdict = min(found)
            return phrase, verdict
    return None


def derive_verdict(guidance: str) -> Verdict | None:
    """The verdict the guidance's wording states, or None when it states none."""
    stated = stated_verdict(guidance)
    return None if stated is None else stated[1]


def _check_glob(pattern: str) -> str:
    mistyped = _mistyped(pattern, "path")
    if mistyped is not None:
        raise ValueError(mistyped)
    try:
        compile_glob(pattern)
    except GlobError as exc:
        raise ValueError(f"bad glob {pattern!r}: {exc}") from None
    return pattern


def _unseen_character(term: str) -> str | None:
    """The first character of `term` that a PR's text does not hold where it looks like it
    stands: a space other than U+0020 (a no-break space pasted from a web page), a format
    character (zero-width space or joiner, soft hyphen) or a control character (NEL). It
    makes an English keyword non-ASCII, found as written only, so it never matches (an
    ASCII tab is a separator between words like any other). A zero-width joiner inside
    an emoji (a label such as 🧑‍💻) is part of the emoji."""
    for i, ch in enumerate(term):
        if ch.isascii():
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Zs"):
            if ch == "\u200d" and _emoji_sides(term[i - 1 : i], term[i + 1 : i + 2]):
                continue
            return ch
    return None


def _emoji_sides(before: str, after: str) -> bool:
    return all(c and not c.isascii() and not c.isalnum() for c in (before, after))


# What a Chinese input method types for a list's comma: the enumeration comma and the
# full-width comma and semicolon. One between two terms makes them one term.
_LIST_SEPARATORS = "、，；"


# What a Chinese input method types, in its punctuation mode, for these ASCII keys
_TYPED_FOR = {
    "、": ",",
    "。": ".",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "【": "[",
    "】": "]",
    "《": "<",
    "》": ">",
    "—": "_",  # shift and `-` type "——"
    "·": "`",
    "…": "^",
}


def _ascii_typed_as(ch: str) -> str | None:
    """The ASCII character a Chinese input method typed `ch` for, or None: a full-width
    form (`Ｌ`, `，`, `（`, U+FF01-U+FF5E, ASCII's `!` to `~` shifted) or the punctuation
    its Chinese mode types (`。` for `.`, `“` for `"`). Not every compatibility form
    (`²`): a PR may write those as they are."""
    if "\uff01" <= ch <= "\uff5e":
        return chr(ord(ch) - 0xFEE0)
    return _TYPED_FOR.get(ch)


# Ideographs, kana, hangul: a term holding them matches text in that script, which
# writes full-width punctuation (`前缀缓存（APC）`), though never full-width letters
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# what the input method types twice for one key (shift and `-`: `——` for `_`)
_TYPED_TWICE = {"——": "_", "……": "^"}


def _as_typed_for(term: str) -> str:
    """The term with each character an input method typed for ASCII put back."""
    for pair, ascii_char in _TYPED_TWICE.items():
        term = term.replace(pair, ascii_char)
    return "".join(_ascii_typed_as(c) or c for c in term)


def _typed_for_ascii(term: str) -> str | None:
    """The first character of `term` an input method typed for ASCII, or None. In a term
    in Chinese (Japanese, Korean) script only letters and digits count: its punctuation
    is that text's own."""
    in_script = _CJK.search(term) is not None
    for c in term:
        typed = _ascii_typed_as(c)
        if typed is not None and (not in_script or typed.isalnum()):
            return c
    return None


def _describe_character(ch: str) -> str:
    """`'，' (U+FF0C FULLWIDTH COMMA)`; an invisible one by its code point alone."""
    name = unicodedata.name(ch, "")
    if unicodedata.category(ch)[0] in "CZ":  # a space or an invisible one: printed, unseen
        return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")
    return f"{ch!r} (U+{ord(ch):04X}" + (f" {name})" if name else ")")


def _mistyped(term: str, noun: str) -> str | None:
    """Why `term` (a keyword, tag, label or path) can never be found in a PR as written, or
    None: a character the PR's text does not hold where it seems to stand (an unusual
    space, an invisible one), or one a Chinese input method typed for ASCII. A PR's
    titles, files and diffs write ASCII punctuation and letters, so `ＬｏＲＡ` never
    matches, and `a、b` is one term that no PR's text holds."""
    unseen = _unseen_character(term)
    if unseen is not None:
        char = _describe_character(unseen)
        if unseen.isspace():
            return f"{term!r} holds {char} where a PR's text has a plain space: write a plain space"
        return f"{term!r} holds {char}, invisible and absent from a PR's text: delete it"
    separator = next((c for c in term if c in _LIST_SEPARATORS), None)
    if separator is not None:
        parts = [p.strip() for p in re.split(f"[{_LIST_SEPARATORS}]", term) if p.strip()]
        listed = ", ".join(toml_string(p) for p in parts)
        return (
            f"{term!r} holds {_describe_character(separator)}, a Chinese list separator: write"
            f" one {noun} per string, [{listed}]"
        )
    wide = _typed_for_ascii(term)
    if wide is not None:
        typed = _as_typed_for(term)
        return (
            f"{term!r} holds {_describe_character(wide)}, typed by a Chinese input method for"
            f" {_ascii_typed_as(wide)!r}, which a PR's text has instead: write {typed!r}"
        )
    return None


def _check_term(term: str) -> str:
    if not term.strip():
        raise ValueError("empty term")
    if term != term.strip():
        raise ValueError(f"{term!r} has leading or trailing whitespace")
    mistyped = _mistyped(term, "term")
    if mistyped is not None:
        raise ValueError(mistyped)
    if term.isascii():
        # an English keyword matches by its letters and digits (bot.terms): `C++` would be
        # `c`, every standalone C; `++` nothing at all
        key = "".join(c for c in term if c.isalnum())
        if len(key) < 2 and key == term:  # `a`: no symbol to spell out
            raise ValueError(f"{term!r} is one character: too short to name anything")
        if len(key) < 2:
            raise ValueError(
                f"{term!r} matches by its letters and digits only, {key!r}: too short to"
                " name anything (spell it out, e.g. 'C++ extension' or 'cpp')"
            )
    return term


class Repeated(ValueError):
    """An element listed twice: the repeat, and which of the elements written as it is
    (0 the first), so that the problem names the repeat's line; and the element it
    repeats (in any case)."""

    def __init__(self, value: Any, nth: int, first: Any):
        super().__init__(f"{value!r} is listed twice")
        self.value, self.nth, self.first = value, nth, first


def _no_duplicates(terms: tuple[Any, ...]) -> tuple[Any, ...]:
    folded = [t.casefold() if isinstance(t, str) else t for t in terms]
    if len(set(folded)) < len(folded):
        i = next(i for i, f in enumerate(folded) if f in folded[:i])
        first = terms[folded.index(folded[i])]
        raise Repeated(terms[i], terms[:i].count(terms[i]), first)
    return terms


# A TOML date (`2026-08-15`, no quotes), nothing else: no number of seconds, no string,
# no date and time
StrictDate = Annotated[date, Strict()]

# Validated per element, so an error names the element (and so its line).
Glob = Annotated[str, AfterValidator(_check_glob)]
Term = Annotated[str, AfterValidator(_check_term)]


class Topic(BaseModel):
    """One subsystem of the taxonomy (config/topics.toml)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    name_en: str = Field(min_length=1)
    name_zh: str = Field(min_length=1)
    description: str = ""
    keywords: tuple[Term, ...] = ()
    # Title tags that name the topic in words too common in a title's text (`[Build]`)
    tags: tuple[Term, ...] = ()
    paths: tuple[Glob, ...] = ()
    labels: tuple[Term, ...] = ()

    _unique = field_validator("keywords", "tags", "paths", "labels")(_no_duplicates)

    @field_validator("name_en", "name_zh")
    @classmethod
    def _a_name(cls, v: str) -> str:  # shown in every comment and page: one line of text
        if not v.strip() or "\n" in v:
            raise ValueError("a name is one line of text")
        if v != v.strip():
            raise ValueError("leading or trailing whitespace")
        return v


class Note(BaseModel):
    """One curated review note about a past pull request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    repo: str = Field(pattern=REPO_PATTERN)
    # strict: TOML's `true` is not PR 1, nor "52419" a number
    source_pr: StrictInt | None = Field(default=None, ge=1)
    # PRs to read with its own: those the note names ("read it with PRs 38390 and 49994")
    # and those its source PR fixes, reverts, supersedes or builds on, by its description.
    # They change the same mechanism: a reviewer of one of them gets the note.
    read_with: tuple[Annotated[StrictInt, Field(ge=1)], ...] = ()
    # Issues the source PR fixes ("Fixes #52448"): another PR referring to one of them
    # works on the same bug, and gets the note.
    issues: tuple[Annotated[StrictInt, Field(ge=1)], ...] = ()
    verdict: Verdict
    topics: tuple[str, ...] = Field(min_length=1)
    keywords: tuple[Term, ...] = ()
    # Words naming what the note teaches of its first topic that are too common to point
    # to it alone (`metrics` of KV connectors): they count only where that topic shows.
    aspects: tuple[Term, ...] = ()
    paths: tuple[Glob, ...] = ()
    title_zh: str = Field(min_length=1)
    title_en: str = ""
    summary_en: str = ""
    guidance: str
    # strict: a number is not a date (pydantic reads `0` as 1970-01-01), nor a string
    created: StrictDate | None = None
    updated: StrictDate | None = None
    source: str = ""  # provenance, e.g. "000_x.txt#3" (digest file and entry)

    _unique = field_validator("topics", "keywords", "aspects", "paths", "read_with", "issues")(
        _no_duplicates
    )

    @field_validator("read_with", "issues")
    @classmethod
    def _listed_once(cls, v: tuple[int, ...], info: ValidationInfo) -> tuple[int, ...]:
        """A number is the source PR, a PR to read with it, or an issue: one of them."""
        source, reading = info.data.get("source_pr"), info.data.get("read_with") or ()
        for n in v:
            if n == source:
                raise ValueError(f"{n} is the source PR")
            if info.field_name == "issues" and n in reading:
                raise ValueError(f"{n} is also in read_with (a PR to read), not an issue")
        return v

    @field_validator("title_zh", "guidance")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("guidance")
    @classmethod
    def _lf_only(cls, v: str) -> str:
        if "\r" in v:
            raise ValueError("carriage return in the text; files use LF line ends")
        return v

    @field_validator("title_zh", "title_en")
    @classmethod
    def _one_line(cls, v: str) -> str:
        if "\n" in v or "\r" in v:
            raise ValueError("a title is one line")
        if v != v.strip():
            raise ValueError("leading or trailing whitespace")
        return v

    @field_validator("updated")
    @classmethod
    def _not_before_created(cls, v: date | None, info: ValidationInfo) -> date | None:
        created = info.data.get("created")
        if v is not None and created is not None and v < created:
            raise ValueError(f"{v} is before created ({created})")
        return v

    @property
    def filename(self) -> str:
        return f"{self.id}.md"

    @property
    def listed_numbers(self) -> frozenset[int]:
        """The PR and issue numbers the note already names in its fields: its source PR,
        the PRs to read with it and the issues its PR fixes."""
        source = () if self.source_pr is None else (self.source_pr,)
        return frozenset((*source, *self.read_with, *self.issues))


# what a note's header may set (the guidance is the body)
_HEADER_FIELDS = tuple(f for f in Note.model_fields if f != "guidance")


@dataclass(frozen=True, order=True)
class Problem:
    """One defect in the library, printed as `file:line: field: message`."""

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

    @cached_property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @cached_property
    def keys(self) -> dict[str, int]:
        """Each key, dotted, and each table (`[links]`) -> index into lines, scanned as
        TOML (worked out only when a problem needs it)."""
        return first_lines(self.text)

    def line_of(self, key: str, value: Any = None, default: int | None = None, nth: int = 0) -> int:
        """The file line of `key`, or of the array element `value` under it (its `nth`
        occurrence, 0 the first)."""
        if key not in self.keys:
            return self.first - 1 if default is None else default
        start = self.keys[key]
        if isinstance(value, str):
            later = [i for i in self.keys.values() if i > start]
            end = min(later, default=len(self.lines))
            for needle in (toml_string(value), f"'{value}'"):
                seen = 0
                for i in range(start, end):
                    seen += self.lines[i].count(needle)
                    if seen > nth:
                        return self.first + i
        return self.first + start


def _not_a_date(value: Any) -> str:
    """Why a date field's value is none, in TOML's words."""
    if isinstance(value, datetime):
        return f"{value.isoformat()} is a date and time: write the date alone, as 2026-08-15"
    if isinstance(value, str):
        return f"{toml_string(value)} is a string: write the date without quotes, as 2026-08-15"
    return f"{_toml_value(value)} is not a date: write one as 2026-08-15, without quotes"


def pydantic_problems(
    exc: ValidationError,
    path: str,
    header: Header,
    data: dict[str, Any],
    default_line: int,
    known: Iterable[str] = (),
) -> list[Problem]:
    """Turn pydantic's errors into problems on the right lines; an unknown field gets the
    `known` one it seems a misspelling of."""
    out = []
    for err in exc.errors():
        loc = err.get("loc") or ("header",)
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
            msg = "missing required field"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field"
            close = difflib.get_close_matches(field, list(known) if len(loc) == 1 else [], n=1)
            msg += f"; did you mean {close[0]!r}?" if close else ""
        elif field == "verdict" and err["type"] == "enum":
            msg = f"bad verdict {err.get('input')!r}; use one of: " + ", ".join(Verdict)
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
        raise LibraryError([Problem(path, line, "file", f"not UTF-8: {exc.reason}")]) from None


def normalise_text(text: str) -> str:
    """Drop a byte-order mark and turn CRLF / CR line ends into LF."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def split_front_matter(text: str, path: str) -> tuple[str, str, int]:
    """Return (header text, body, line number of the header's first line)."""
    text = normalise_text(text)
    if text.startswith(FENCE + "\n"):  # the usual layout, found without splitting the body
        end = text.find("\n" + FENCE + "\n", len(FENCE))
        if end != -1 and FENCE not in text[: end + 1][len(FENCE) :]:
            return text[len(FENCE) + 1 : end], text[end + len(FENCE) + 2 :], 2
    lines = text.split("\n")
    if lines[0].strip() != FENCE:
        raise LibraryError([Problem(path, 1, "header", f"file must start with a '{FENCE}' line")])
    for i in range(1, len(lines)):
        if lines[i].strip() == FENCE:
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :]), 2
    raise LibraryError([Problem(path, 1, "header", f"no closing '{FENCE}' line")])


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
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
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
            if not eq or not _BARE_KEY.fullmatch(key):
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
        m = re.search(r"line (\d+)", str(exc))
        # "at end of document": an array or string left open runs to the last line
        at = int(m.group(1)) if m else text.rstrip("\n").count("\n") + 1
        line = first + at - 1
        # tomllib counts lines from the header's start; the problem names the file's line
        said = re.sub(r"\(at line \d+, (column \d+)\)", r"(\1)", str(exc))
        said += _typed_hint(text, str(exc))
        bad_date = _bad_date(text.split("\n")[at - 1]) if m else None
        if bad_date is not None:  # tomllib: "Expected newline ... after a statement"
            key, msg = bad_date
            raise LibraryError([Problem(path, line, key, msg)]) from None
        twice = _set_twice(text) if "Cannot overwrite a value" in str(exc) else None
        if twice is not None:  # tomllib names neither the key nor where it was first set
            key, at, before = twice
            msg = f"`{key}` is set twice (first on line {first + before}): keep one"
            raise LibraryError([Problem(path, first + at, key, msg)]) from None
        left_open = _left_open(text, str(exc))
        if left_open is not None:  # tomllib stops at the next key: name the open line
            at, bracket = left_open
            closing = "]" if bracket == "[" else "}"
            said = (
                f"{'array' if bracket == '[' else 'inline table'} left open: no `{closing}`"
                f" before line {line}, which starts the next key"
            )
            line = first + at
        raise LibraryError([Problem(path, line, field, f"malformed TOML: {said}")]) from None


_DATE_LINE = re.compile(
    r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(\d{4})-(\d{1,2})-(\d{1,2})[ \t]*(?:#.*)?"
)


def _bad_date(line: str) -> tuple[str, str] | None:
    """The key and why, when the line sets a key to what is meant as a date but is none
    (`created = 2026-13-04`, `2026-8-15`), which tomllib reports as a statement that
    does not end."""
    m = _DATE_LINE.fullmatch(line)
    if m is None:
        return None
    key, (year, month, day) = m[1], (int(m[2]), int(m[3]), int(m[4]))
    written = f"{m[2]}-{m[3]}-{m[4]}"
    try:
        date(year, month, day)
    except ValueError as exc:
        why = str(exc)
    else:
        if len(m[3]) == 2 and len(m[4]) == 2:
            return None  # a real date: tomllib's error is another
        why = "month and day take two digits"
    return key, f"{written} is not a date ({why}): write year-month-day, as 2026-08-15"


def _set_twice(text: str) -> tuple[str, int, int] | None:
    """The first key set twice (dotted), its 0-based line and that of its first setting."""
    seen: dict[tuple[str, ...], int] = {}
    for entry in scan(text):
        if entry.table:
            continue
        if entry.path in seen:
            return ".".join(entry.path), entry.line, seen[entry.path]
        seen[entry.path] = entry.line
    return None


_KEY_START = re.compile(r"[ \t]*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')[ \t]*[.=]")


def _left_open(text: str, error: str) -> tuple[int, str] | None:
    """When tomllib stops at the start of a key line inside an array or inline table
    (`topics = ["a", "b"` with its `]` forgotten: "Unclosed array" or "Invalid value" on
    the NEXT key), the 0-based line where that bracket opened, and the bracket."""
    m = re.search(
        r"(Unclosed array|Unclosed inline table|Invalid value) \(at line (\d+), column (\d+)\)",
        error,
    )
    if m is None:
        return None
    lines, at, column = text.split("\n"), int(m[2]) - 1, int(m[3])
    if at >= len(lines) or not _KEY_START.match(lines[at]):
        return None
    if lines[at][: column - 1].strip(" \t"):  # inside the line, not at its key
        return None
    return _open_bracket(lines[:at])


def _open_bracket(lines: list[str]) -> tuple[int, str] | None:
    """The outermost bracket (`[`, `{`) the lines leave open: its 0-based line, itself.
    Strings and comments skipped; a one-line string that runs on ends at its line."""
    stack: list[tuple[int, str]] = []
    quote = ""
    for no, line in enumerate(lines):
        i = 0
        while i < len(line):
            c = line[i]
            if quote:
                if line.startswith(quote, i):
                    i, quote = i + len(quote), ""
                    continue
                i += 2 if c == "\\" and quote[0] == '"' else 1
                continue
            if line.startswith(('"""', "'''"), i):
                quote, i = line[i : i + 3], i + 3
                continue
            if c in "\"'":
                quote = c
            elif c == "#":
                break
            elif c in "[{":
                stack.append((no, c))
            elif c in "]}" and stack:
                stack.pop()
            i += 1
        if len(quote) == 1:
            quote = ""
    return stack[0] if stack else None


def _typed_hint(text: str, error: str) -> str:
    """A hint when tomllib stops at a character a Chinese input method typed for ASCII:
    `["a"，"b"]` is an "Unclosed array", whose cause the message does not say."""
    m = re.search(r"line (\d+), column (\d+)", error)
    if m is None:
        return ""
    lines, line, column = text.split("\n"), int(m[1]), int(m[2])
    ch = lines[line - 1][column - 1 : column] if line <= len(lines) else ""
    typed = _ascii_typed_as(ch) if ch else None
    if typed is None:
        return ""
    char = _describe_character(ch)
    return f"; it stops at {char}, typed by a Chinese input method: type {typed!r}"


@dataclass(frozen=True)
class NoteSource:
    """A parsed note with the header it came from, for line-accurate checks."""

    note: Note
    path: str
    header: Header


# Reviewers read English: a note in the library is not ready until it has these.
CURATED_FIELDS = {
    "title_en": "missing: write a one-line English title",
    "summary_en": "missing: write a one- or two-sentence English summary",
}


def read_note(text: str, path: str, *, curated: bool = False) -> NoteSource:
    """Parse one note file; raise LibraryError naming file, line and field.

    With `curated`, a note must also have its English title and summary (the
    library requires them; a freshly imported note does not have them yet).
    """
    header_text, body, first = split_front_matter(text, path)
    header = Header(header_text, first)
    data = parse_toml(header_text, path, first, "header")
    if "guidance" in data:
        msg = "the guidance is the body after the header, not a field"
        raise LibraryError([Problem(path, header.line_of("guidance"), "guidance", msg)])
    data["guidance"] = body.removesuffix("\n")
    problems = []
    if curated:
        for key, msg in CURATED_FIELDS.items():
            if not str(data.get(key) or "").strip():
                problems.append(Problem(path, header.line_of(key), key, msg))
    try:
        note = Note.model_validate(data)
    except ValidationError as exc:
        body_line = first + header_text.count("\n") + 2
        problems += [
            Problem(p.path, body_line, p.field, p.message) if p.field == "guidance" else p
            for p in pydantic_problems(exc, path, header, data, 1, _HEADER_FIELDS)
        ]
    if problems:
        raise LibraryError(problems)
    return NoteSource(note, path, header)


def parse_note(text: str, path: str) -> Note:
    """Parse one note file; raise LibraryError naming file, line and field."""
    return read_note(text, path).note


# --- writing -------------------------------------------------------------------

FIELD_ORDER = (
    "id",
    "repo",
    "source_pr",
    "read_with",
    "issues",
    "verdict",
    "topics",
    "keywords",
    "aspects",
    "paths",
    "title_zh",
    "title_en",
    "summary_en",
    "created",
    "updated",
    "source",
)
_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPES |= {'"': '\\"', "\\": "\\\\"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')
_LINE_WIDTH = 100


def toml_string(value: str) -> str:
    """A TOML basic string; non-ASCII text stays readable."""
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m[0], f"\\u{ord(m[0]):04x}"), value) + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return toml_string(str(value))


def _toml_line(key: str, value: Any) -> str:
    line = f"{key} = {_toml_value(value)}"
    if isinstance(value, tuple | list) and len(value) > 1 and len(line) > _LINE_WIDTH:
        # One element a line: easier to edit and to diff, and errors point at the element.
        return "\n".join([f"{key} = ["] + [f"  {_toml_value(v)}," for v in value] + ["]"])
    return line


def field_line(key: str, value: Any) -> str:
    """One header field as `dump_fields` writes it (a long array over several lines)."""
    return _toml_line(key, value)


def dump_fields(fields: dict[str, Any], guidance: str) -> str:
    """Note file text from header fields (known ones in order, then any others) and a body."""
    keys = [k for k in FIELD_ORDER if k in fields] + sorted(set(fields) - set(FIELD_ORDER))
    out = [FENCE]
    for key in keys:
        value = fields[key]
        if value is None or value == () or value == [] or value == "":
            continue
        out.append(_toml_line(key, value))
    out.append(FENCE)
    return "\n".join(out) + "\n" + guidance + "\n"


def dump_note(note: Note) -> str:
    """Serialise a note to its file text; parse_note(dump_note(n)) == n."""
    return dump_fields({k: getattr(note, k) for k in FIELD_ORDER}, note.guidance)

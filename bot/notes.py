"""The notes model and the note file format (pure: text in, models out).

A note file is Markdown with a TOML front matter between `+++` lines; the body
after the header is the curator's guidance text, kept byte for byte:

    +++
    id = "rn-3f2a9c1d"
    repo = "vllm-project/vllm"
    source_pr = 52401
    verdict = "deep"
    topics = ["cuda-graphs"]
    title_zh = "..."
    title_en = "..."
    summary_en = "..."
    +++
    值得精读。...
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bot.globs import GlobError, compile_glob

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


def _check_globs(paths: tuple[str, ...]) -> tuple[str, ...]:
    for p in paths:
        try:
            compile_glob(p)
        except GlobError as exc:
            raise ValueError(f"bad glob {p!r}: {exc}") from None
    return paths


def _check_terms(terms: tuple[str, ...]) -> tuple[str, ...]:
    for t in terms:
        if not t.strip():
            raise ValueError("empty keyword")
    return terms


class Topic(BaseModel):
    """One subsystem of the taxonomy (config/topics.toml)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    name_en: str = Field(min_length=1)
    name_zh: str = Field(min_length=1)
    description: str = ""
    keywords: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()

    _globs = field_validator("paths")(_check_globs)
    _terms = field_validator("keywords", "labels")(_check_terms)


class Note(BaseModel):
    """One curated review note about a past pull request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    repo: str = Field(pattern=REPO_PATTERN)
    source_pr: int | None = Field(default=None, ge=1)
    verdict: Verdict
    topics: tuple[str, ...] = Field(min_length=1)
    keywords: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    title_zh: str = Field(min_length=1)
    title_en: str = ""
    summary_en: str = ""
    guidance: str
    created: date | None = None
    updated: date | None = None
    source: str = ""  # provenance, e.g. "seeds/raw/000_x.txt#3"

    _globs = field_validator("paths")(_check_globs)
    _terms = field_validator("keywords")(_check_terms)

    @field_validator("title_zh", "guidance")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @property
    def filename(self) -> str:
        return f"{self.id}.md"


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


# --- reading -----------------------------------------------------------------

_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def key_lines(lines: list[str], first_line: int) -> dict[str, int]:
    """Map each top-level `key =` in a block of TOML lines to its 1-based line number."""
    found: dict[str, int] = {}
    for offset, line in enumerate(lines):
        m = _KEY_LINE.match(line)
        if m and m.group(1) not in found:
            found[m.group(1)] = first_line + offset
    return found


def pydantic_problems(
    exc: ValidationError, path: str, lines: dict[str, int], default_line: int
) -> list[Problem]:
    out = []
    for err in exc.errors():
        loc = err.get("loc") or ("header",)
        field = str(loc[0])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "missing":
            msg = "missing required field"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif field == "verdict" and err["type"] == "enum":
            msg = f"bad verdict {err.get('input')!r}; use one of: " + ", ".join(Verdict)
        out.append(Problem(path, lines.get(field, default_line), field, msg))
    return out


def split_front_matter(text: str, path: str) -> tuple[list[str], str, int]:
    """Return (header lines, body, line number of the first header line)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if not lines or lines[0].strip() != FENCE:
        raise LibraryError([Problem(path, 1, "header", f"file must start with a '{FENCE}' line")])
    for i in range(1, len(lines)):
        if lines[i].strip() == FENCE:
            return lines[1:i], "\n".join(lines[i + 1 :]), 2
    raise LibraryError([Problem(path, 1, "header", f"no closing '{FENCE}' line")])


def parse_note(text: str, path: str) -> Note:
    """Parse one note file; raise LibraryError naming file, line and field."""
    header, body, first = split_front_matter(text, path)
    try:
        data: dict[str, Any] = tomllib.loads("\n".join(header))
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = first + int(m.group(1)) - 1 if m else 1
        raise LibraryError([Problem(path, line, "header", f"malformed TOML: {exc}")]) from None
    lines = key_lines(header, first)
    if "guidance" in data:
        raise LibraryError(
            [Problem(path, lines["guidance"], "guidance", "the guidance is the body, not a field")]
        )
    data["guidance"] = body.removesuffix("\n")
    lines["guidance"] = first + len(header) + 1
    try:
        return Note.model_validate(data)
    except ValidationError as exc:
        raise LibraryError(pydantic_problems(exc, path, lines, 1)) from None


# --- writing -------------------------------------------------------------------

_FIELD_ORDER = [
    "id",
    "repo",
    "source_pr",
    "verdict",
    "topics",
    "keywords",
    "paths",
    "title_zh",
    "title_en",
    "summary_en",
    "created",
    "updated",
    "source",
]


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    # A JSON string with non-ASCII kept is a valid TOML basic string.
    return json.dumps(str(value), ensure_ascii=False)


def dump_note(note: Note) -> str:
    """Serialise a note to its file text; parse_note(dump_note(n)) == n."""
    data = note.model_dump(mode="python")
    out = [FENCE]
    for key in _FIELD_ORDER:
        value = data[key]
        if value is None or value == () or value == "":
            continue
        out.append(f"{key} = {_toml_value(value)}")
    out.append(FENCE)
    return "\n".join(out) + "\n" + note.guidance + "\n"

"""The notes model (pure): a curated note about a past pull request, a topic of the
taxonomy (config/topics.toml), and the verdict a note's guidance states.

A note's file (a TOML header between `+++` lines, then the guidance) is read by
`note_files` and written by `note_dump`; `note_terms` checks its keywords, tags, labels
and paths.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from datetime import date
from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
)

from bot.note_terms import check_glob, check_label, check_term

ID_PATTERN = r"^[a-z0-9][a-z0-9._-]{0,63}$"
REPO_PATTERN = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"


_NAME_GAPS = re.compile(r"[\s_-]+")


# a sentence's end after the name (`/notes topic cuda-graphs.`), NFKC's forms of it
_SENTENCE_END = ".,!?;:。、"
# What a name or a reason may be typed in, opening -> closing: inline code, quotes as typed
# and as iOS, macOS or a Chinese input method make them (`“cuda graphs”`, `「投机解码」`), and
# the brackets Chinese puts around a tag or a name (`【ROCm】`, `《投机解码》`); no name holds
# one. The one table of them: `QUOTES`, `wrong_reading`'s quoted reason and bracketed
# number and `commands`' bracketed topic read views of it and of `BRACKET_PAIRS`.
QUOTE_PAIRS: dict[str, str] = {
    "`": "`",
    '"': '"',
    "'": "'",
    "“": "”",
    "‘": "’",
    "「": "」",
    "『": "』",
    "【": "】",
    "《": "》",
}
# each of them once, openings and closings: what `topic_key` strips
QUOTES = "".join(dict.fromkeys("".join(o + c for o, c in QUOTE_PAIRS.items())))
# The brackets beside them, ASCII's and the full-width ones a Chinese input method types:
# an aside's or a tag's (`/notes topic（rocm）`, `[ROCm]`), and a list's number's (`(2)`)
BRACKET_PAIRS: dict[str, str] = {"(": ")", "\uff08": "\uff09", "[": "]", "\uff3b": "\uff3d"}


def topic_key(text: str) -> str:
    """A topic's id or name as a reader may type it: `cuda graphs`, `CUDA graphs`,
    `cuda_graphs`, `CUDAGraphs`, `cuda-graphs.` and `"cuda graphs."` all mean `cuda-graphs`
    (the comment prints names, not ids). Gaps do not count: the names put a space between
    Chinese and Latin letters and around a slash (`前缀缓存与 KV 缓存管理`, `（PCP / DCP）`),
    which many writers of Chinese leave out (`前缀缓存与KV缓存管理`). NFKC: a Chinese input
    method's full-width forms (`（PCP/DCP）`, `ＲＯＣｍ`) are the ASCII ones a name may be
    written with."""
    text = unicodedata.normalize("NFKC", text).strip().rstrip(_SENTENCE_END)
    text = text.strip(QUOTES).rstrip(_SENTENCE_END)
    return _NAME_GAPS.sub("", text.casefold())


def note_id(repo: str, title: str, *, as_written: bool = False) -> str:
    """A stable id from the repository and the original title. GitHub's repository names
    ignore case, and so does the id: `VLLM-Project/vllm` is the same note (the shipped
    notes' repos are lower case, so their ids are what they were). `as_written`: the id
    as it was before, hashing the repository as the digest wrote it."""
    hashed = repo if as_written else repo.lower()
    digest = hashlib.sha256(f"{hashed}\n{title}".encode()).hexdigest()[:_ID_HEX_DIGITS]
    return f"{_id_name(repo)}-{digest}"


_ID_HEX_DIGITS = 8


def _id_name(repo: str) -> str:
    return repo.split("/")[-1].lower()


def note_id_shape(repos: Iterable[str]) -> re.Pattern[str]:
    """The shape of every id `note_id` gives notes of these repositories (`vllm-` and 8
    hex digits): a reviewer typing one means a note, even one deleted since."""
    names = "|".join(map(re.escape, sorted({_id_name(r) for r in repos})))
    return re.compile(f"(?:{names})-[0-9a-f]{{{_ID_HEX_DIGITS}}}")


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
# The badge of a note linked on its topics alone, in place of its verdict (`render`): it is
# background to the PR, to consult, not a call to read it closely; no verdict's words
# (值得, 精读) in it, which are said after it
BACKGROUND_LABELS = ("Background", "背景参考")
BACKGROUND_WHY = "linked by topic only"  # said after it, before the verdict

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


# The Traditional forms of the verdict words' characters (an input method left in
# Traditional mode), and Japanese 値 for 值: each reads as the Simplified one
_SIMPLIFIED = str.maketrans("讀閱瀏覽無過値", "读阅浏览无过值")
_GAP = re.compile(r"[ \t\u3000]+")  # a space typed inside the words: an input method's too
_HAN = re.compile("[\u4e00-\u9fff]")


def near_verdict(text: str) -> tuple[str, str, Verdict] | None:
    """The words of `text` that read as a verdict's but are not it, the verdict's words
    they read as (`值得 精读`, `值得精讀` or `值得精度` as 值得精读) and that verdict, or
    None: with a space, in Traditional characters, or, of four characters or more, one
    mistyped. Those with no character mistyped first."""
    # each character but a space, read as Simplified, with its place in the text
    chars = [(c.translate(_SIMPLIFIED), i) for i, c in enumerate(text) if not _GAP.match(c)]
    for mistyped in (0, 1):
        found = [  # the first; at one place, the longest phrase
            (chars[at][1], -len(phrase), chars[at + len(phrase) - 1][1], phrase, verdict)
            for phrase, verdict in _VERDICT_RULES
            if mistyped == 0 or len(phrase) >= 4  # one of three mistyped is another word
            for at in range(len(chars) - len(phrase) + 1)
            if _differs(chars[at : at + len(phrase)], phrase) == mistyped
        ]
        if found:
            start, _, end, phrase, verdict = min(found)
            written = text[start : end + 1]
            return (written, phrase, verdict) if written != phrase else None
    return None


def _differs(window: list[tuple[str, int]], phrase: str) -> int:
    """How many of the window's characters are not the phrase's (any but a Chinese
    character counts twice: a verdict's words are Chinese characters only)."""
    return sum(
        0 if c == p else 1 if _HAN.match(c) else 2 for (c, _), p in zip(window, phrase, strict=True)
    )


def derive_verdict(guidance: str) -> Verdict | None:
    """The verdict the guidance's wording states, or None when it states none."""
    stated = stated_verdict(guidance)
    return None if stated is None else stated[1]


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


def control_character(text: str, what: str = "title", lines: bool = False) -> str | None:
    """What a title (or the `what` named: a summary, a topic's name) holding a tab or
    another control character, or invisible characters alone, is told, else None; with
    `lines`, a line break is text (a summary wrapped in a multi-line string: the comment
    and the pages join its lines).
    Legal in a TOML string (pasted, or typed as `\\t`) and in a digest's line, a tab would
    reach the comment, the pages and `match`'s output as typed."""
    allowed = "\n" if lines else ""
    control = next((c for c in text if (c < " " or c == "\x7f") and c not in allowed), None)
    if control == "\t":
        return f"holds a tab (U+0009), which a {what} prints as typed: type a space"
    if control is not None:
        return f"holds U+{ord(control):04X}, a control character no {what} shows: delete it"
    # zero-width spaces, a BOM, bidi marks (pasted as an "empty" line): the comment drops
    # them, and a title of them alone was shown as `**1. **`
    shown = [c for c in text if not c.isspace()]
    if shown and all(unicodedata.category(c) == "Cf" for c in shown):
        return (
            f"holds only invisible characters (U+{ord(shown[0]):04X} first), which no {what}"
            " shows: write it"
        )
    return None


# Validated per element, so an error names the element (and so its line).
Glob = Annotated[str, AfterValidator(check_glob)]
Term = Annotated[str, AfterValidator(check_term)]
Label = Annotated[str, AfterValidator(check_label)]


def _one_line(name: str) -> str:
    if not name.strip() or "\n" in name:
        raise ValueError("a name is one line of text")
    if control := control_character(name, "name"):
        raise ValueError(control)
    if name != name.strip():
        raise ValueError("leading or trailing whitespace")
    return name


class Topic(BaseModel):
    """One subsystem of the taxonomy (config/topics.toml)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    name_en: str = Field(min_length=1)
    name_zh: str = Field(min_length=1)
    # What a comment's reasons call it ("topic: Prefix caching"), under the "Topics:" line
    # that names it in full; "": name_en
    short_en: str = ""
    description: str = ""
    keywords: tuple[Term, ...] = ()
    # Title tags that name the topic in words too common in a title's text (`[Build]`)
    tags: tuple[Term, ...] = ()
    paths: tuple[Glob, ...] = ()
    labels: tuple[Label, ...] = ()  # GitHub labels' exact names

    _unique = field_validator("keywords", "tags", "paths", "labels")(_no_duplicates)

    @field_validator("name_en", "name_zh")
    @classmethod
    def _a_name(cls, v: str) -> str:  # shown in every comment and page: one line of text
        return _one_line(v)

    @field_validator("short_en")
    @classmethod
    def _a_short_name(cls, v: str) -> str:  # "" is no short name: its name_en
        return _one_line(v) if v else v

    @field_validator("description")
    @classmethod
    def _a_description(cls, v: str) -> str:  # on the topics page; wrapped, its lines joined
        if control := control_character(v, "description", lines=True):
            raise ValueError(control)
        return v

    @property
    def short(self) -> str:
        """The name a reason line gives the topic, in its brackets ("topic: X"): none of
        its own, "Model runner" for "Model runner (V1 / V2)" (`unbracketed`)."""
        return self.short_en or unbracketed(self.name_en)

    @property
    def bracketed_en(self) -> str:
        """The English name to write inside brackets: the short one when the name holds
        brackets ("Context parallelism", not "(Context parallelism (PCP / DCP))")."""
        return self.short if _BRACKETED.search(self.name_en) else self.name_en

    @property
    def bracketed_zh(self) -> str:
        """The Chinese name to write inside brackets: "上下文并行" of "上下文并行（PCP / DCP）"."""
        return unbracketed(self.name_zh)


# A bracketed part of a name, ASCII or full-width, with the space before it
_BRACKETED = re.compile(r"\s*[(（][^()（）]*[)）]")


def unbracketed(name: str) -> str:
    """The name without its bracketed parts ("EC connector" of "EC (encoder cache)
    connector"), to be written inside brackets unnested; the name itself when nothing
    else is left."""
    cut = " ".join(_BRACKETED.sub("", name).split())
    return cut or name


def topics_by_key(topics: Iterable[Topic]) -> dict[str, Topic]:
    """Each topic by its id and its names as a reader types them (topic_key; the library
    refuses two topics read alike), and by the names replies give it in brackets
    ("上下文并行" of "上下文并行（PCP / DCP）", `Topic.bracketed_zh`), which a reader types back."""
    found: dict[str, Topic] = {}
    for topic in topics:
        names = (topic.id, topic.name_en, topic.name_zh, topic.short_en)
        for name in (*names, topic.bracketed_en, topic.bracketed_zh):
            if name:
                found.setdefault(topic_key(name), topic)
    return found


# How much of a note's guidance a search (bot/search.py) reads: its first this many
# characters. Each term is looked for in every note's text at each search (the notes pages'
# `?q=`, `/notes search`), so one note of 28 MB of guidance made every search take 0.7 s
# (the filter) to 1.7 s (the reply). `guidance_max_chars` (config/matching.toml), what
# `notes check` lets a guidance hold without a warning, may not exceed it, so no note it
# passes is cut; the shipped limit is a tenth of it. A term the rest holds is not found.
# Here, not in bot/search.py: `notes check` and `match` read it, and need no search.
SEARCHED_GUIDANCE_CHARS = 200_000


class Note(BaseModel):
    """One curated review note about a past pull request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    # taken out of use by the curators: linked on no PR, its page says so; the file stays,
    # so that importing its digest again does not make it anew
    retired: StrictBool = False
    # ids a curator gave the note before (renamed twice, or from an id of their own):
    # marks and links kept under them still find it (the importer's ids are found anyway)
    formerly: tuple[Annotated[str, Field(pattern=ID_PATTERN)], ...] = ()
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

    _unique = field_validator(
        "topics", "keywords", "aspects", "paths", "read_with", "issues", "formerly"
    )(_no_duplicates)

    @field_validator("formerly")
    @classmethod
    def _not_its_own_id(cls, v: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        if info.data.get("id") in v:
            raise ValueError(f"{info.data['id']} is the note's id now")
        return v

    @field_validator("read_with", "issues")
    @classmethod
    def _listed_once(cls, v: tuple[int, ...], info: ValidationInfo) -> tuple[int, ...]:
        """A number is the source PR, a PR to read with it, or an issue: one of them."""
        source, reading = info.data.get("source_pr"), info.data.get("read_with") or ()
        for n in v:
            if n == source:
                raise ValueError(
                    f"{n} is the source PR, which gets the note anyway: drop it from"
                    f" {info.field_name}"
                )
            if info.field_name == "issues" and n in reading:
                raise ValueError(
                    f"{n} is also in read_with (a PR to read), not an issue: keep it in one"
                    " list, issues if it is an issue the source PR fixes, read_with if it is"
                    " a PR"
                )
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
        control = control_character(v)
        if control:
            raise ValueError(control)
        if v != v.strip():
            raise ValueError("leading or trailing whitespace")
        return v

    @field_validator("summary_en")
    @classmethod
    def _no_control(cls, v: str) -> str:
        if control := control_character(v, "summary", lines=True):
            raise ValueError(control)
        return v

    @field_validator("updated")
    @classmethod
    def _not_before_created(cls, v: date | None, info: ValidationInfo) -> date | None:
        created = info.data.get("created")
        if v is not None and created is not None and v < created:
            raise ValueError(
                f"{v} is before created ({created}): created is the PR's creation date,"
                " updated the day the note last changed; correct the one that is wrong"
            )
        return v

    @property
    def filename(self) -> str:
        return f"{self.id}.md"

    @property
    def identity(self) -> tuple[str, str]:
        """What makes two note files one note: the repository (its case ignored, as
        GitHub's) and the Chinese title, which the id is derived from and the importer
        finds a note by (a curator may rename the file and id)."""
        return self.repo.lower(), self.title_zh

    @property
    def derived_ids(self) -> frozenset[str]:
        """The ids the importer gives this note (today's, and the one hashing the
        repository as written): a note a curator renamed was known by one of them."""
        return frozenset(note_id(self.repo, self.title_zh, as_written=w) for w in (False, True))

    @property
    def listed_numbers(self) -> frozenset[int]:
        """The PR and issue numbers the note already names in its fields: its source PR,
        the PRs to read with it and the issues its PR fixes."""
        source = () if self.source_pr is None else (self.source_pr,)
        return frozenset((*source, *self.read_with, *self.issues))

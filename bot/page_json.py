"""The notes pages as JSON: the shapes clients get, and when they get JSON rather
than HTML (`?format=`, else the Accept header's preference)."""

from __future__ import annotations

from datetime import date

from fastapi import Request
from pydantic import BaseModel

from bot.note_queries import QueryError
from bot.notes import Verdict


class NoteOut(BaseModel):
    id: str
    repo: str
    url: str
    verdict: Verdict
    verdict_en: str
    verdict_zh: str
    topics: list[str]
    title_zh: str
    title_en: str
    summary_en: str
    source_pr: int | None
    source_pr_url: str | None
    created: date | None
    updated: date | None


class RelatedOut(NoteOut):
    shared_topics: list[str]


class NoteDetailOut(NoteOut):
    guidance: str
    keywords: list[str]
    aspects: list[str]
    paths: list[str]
    read_with: list[int]  # PRs to read with its own (named by the note, or built on by its PR)
    issues: list[int]  # issues its PR fixes
    source_file_url: str
    related: list[RelatedOut]


class RepoOut(BaseModel):
    repo: str
    notes: int
    url: str  # its notes' list


class NoteListOut(BaseModel):
    repo: str
    topic: str
    verdict: str
    q: str
    count: int
    notes: list[NoteOut]
    # `repo` without notes (the default one on another repository's install): the
    # repositories that have some, most notes first, as the page links them; else empty
    elsewhere: list[RepoOut]


class TopicOut(BaseModel):
    id: str
    name_en: str
    name_zh: str
    description: str
    notes: int
    url: str


class TopicsOut(BaseModel):
    repo: str
    topics: list[TopicOut]
    without_notes: list[str]
    elsewhere: list[RepoOut]  # as NoteListOut's


def _quality(accept: str, media: str) -> tuple[float, int]:
    """The q-value `accept` gives `media`, from its most specific matching range, and
    how specific that range is (2 named, 1 `type/*`, 0 `*/*`, -1 none)."""
    kind, sub = media.split("/")
    best = (-1, 0.0)
    for part in accept.split(","):
        rng, *params = [p.strip() for p in part.split(";")]
        r_kind, _, r_sub = rng.lower().partition("/")
        if (r_kind, r_sub) == (kind, sub):
            rank = 2
        elif (r_kind, r_sub) == (kind, "*"):
            rank = 1
        elif (r_kind, r_sub) == ("*", "*"):
            rank = 0
        else:
            continue
        q = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if rank > best[0]:
            best = (rank, q)
    return best[1], best[0]


def wants_json(request: Request) -> bool:
    """`?format=json|html` wins; otherwise JSON only when Accept prefers it to HTML: a
    higher q, or the same q from a more specific range."""
    fmt = _format_asked(request, ("json", "html"))
    if fmt is not None:
        return fmt == "json"
    # at equal q the range naming it wins (RFC 9110 12.5.1): `application/json, */*`
    # (axios's default) names JSON, not HTML; a browser gives `*/*` a lower q
    return _ranked_above(request, "application/json", "text/html")


def error_as_json(request: Request) -> bool:
    """Whether an error is answered as JSON: as `wants_json` says; when `?format=` is
    one the page does not offer (the error may be about it), as Accept asks alone, so a
    client asking for JSON gets its error as JSON, a browser a page."""
    try:
        return wants_json(request)
    except QueryError:
        return _ranked_above(request, "application/json", "text/html")


def prefers_html(request: Request) -> bool:
    """Whether `?format=html`, or else Accept ranks HTML above JSON, as a browser's does
    (`*/*` alone: no)."""
    fmt = request.query_params.get("format", "").strip().lower()
    if fmt in ("json", "html"):
        return fmt == "html"
    return _ranked_above(request, "text/html", "application/json")


def source_as_page(request: Request) -> bool:
    """Whether a note's source is asked as an HTML page (`?format=html`, or else Accept
    ranks HTML above plain text, as a browser's does) rather than as the text itself
    (`?format=text`; curl's `*/*`). Plain text names no viewport: a phone lays it out
    980 px wide and shrinks it to a third. Another format (`json`, `txt`) is a QueryError,
    as on the other pages: answered by Accept, a browser got the page for `?format=txt`."""
    fmt = _format_asked(request, ("text", "html"))
    if fmt is not None:
        return fmt == "html"
    return _ranked_above(request, "text/html", "text/plain")


def _format_asked(request: Request, names: tuple[str, str]) -> str | None:
    """`?format=`, one of `names`, or None when not given; another is a QueryError."""
    fmt = request.query_params.get("format", "").strip().lower()
    if fmt in names:
        return fmt
    if fmt:
        raise QueryError(f"unknown format {fmt!r}; use {names[0]} or {names[1]}")
    return None


def _ranked_above(request: Request, wanted: str, other: str) -> bool:
    """Whether Accept asks for `wanted` (q > 0) and ranks it above `other`."""
    accept = request.headers.get("accept", "")
    wanted_q = _quality(accept, wanted)
    return wanted_q[0] > 0 and wanted_q > _quality(accept, other)

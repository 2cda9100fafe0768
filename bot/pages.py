"""The notes browser: the pages the bot's comments link to, and the same data as JSON.

A pure part queries the library (filter, search, order, related notes, topic counts)
and turns guidance text into safe HTML; `notes_router` is the thin FastAPI shell the
app mounts. Every page is server-rendered by Jinja2 with autoescaping on, works without
JavaScript, and is served with a CSP that forbids scripts, so hostile note text stays text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from markupsafe import Markup, escape
from pydantic import BaseModel

from bot.library import Library
from bot.links import (
    NOTES_DIR_IN_REPO,
    check_link_settings,
    issue_url,
    note_file_url,
    note_page_url,
    pr_url,
)
from bot.notes import Note, Topic, Verdict, dump_note
from bot.search import FILTER, search_notes

DEFAULT_REPO = "vllm-project/vllm"
RELATED_LIMIT = 8
MAX_QUERY_CHARS = 200
HERE = Path(__file__).resolve().parent

# Scripts are never needed: filters are GET forms. Styles come from our one CSS file.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Vary": "Accept",
}


# --- querying (pure) -----------------------------------------------------------------


class QueryError(ValueError):
    """A filter value the library cannot answer; shown to the user as a 400."""


@dataclass(frozen=True)
class NoteQuery:
    repo: str = DEFAULT_REPO
    topic: str = ""
    verdict: Verdict | None = None
    q: str = ""


def parse_query(library: Library, *, repo: str, topic: str, verdict: str, q: str) -> NoteQuery:
    """Validate raw GET parameters; empty means "no filter" (what a blank form sends)."""
    repo, topic, verdict, q = repo.strip() or DEFAULT_REPO, topic.strip(), verdict.strip(), q
    if topic and topic not in library.topics:
        raise QueryError(f"unknown topic {topic!r}; see the topics page for the list")
    if verdict and verdict not in set(Verdict):
        raise QueryError(f"unknown verdict {verdict!r}; use one of: {', '.join(Verdict)}")
    if len(q) > MAX_QUERY_CHARS:
        raise QueryError(f"search text is longer than {MAX_QUERY_CHARS} characters")
    return NoteQuery(repo=repo, topic=topic, verdict=Verdict(verdict) if verdict else None, q=q)


def newest_first(notes: Iterable[Note]) -> list[Note]:
    """Newest created date first (undated last); ties by id, ascending."""
    by_id = sorted(notes, key=lambda n: n.id)
    return sorted(by_id, key=lambda n: n.created or date.min, reverse=True)  # stable


def find_notes(library: Library, query: NoteQuery) -> list[Note]:
    """The notes of query.repo that pass every filter, newest first. The search is
    `bot.search`'s FILTER: each term a substring (so Chinese needs no word
    splitting), every term must occur."""
    found = [
        n
        for n in library.for_repo(query.repo)
        if (not query.topic or query.topic in n.topics)
        and (query.verdict is None or n.verdict == query.verdict)
    ]
    if query.q.strip():
        found = [hit.note for hit in search_notes(found, query.q, FILTER)]
    return newest_first(found)


@dataclass(frozen=True)
class Related:
    note: Note
    shared: tuple[str, ...]  # topic ids, in the order of the page's note


def related_notes(library: Library, note: Note, limit: int = RELATED_LIMIT) -> list[Related]:
    """Other notes of the same repo sharing a topic: most shared topics first, then the
    stronger verdict, then newest."""
    candidates: dict[str, Note] = {}
    for t in note.topics:
        for other in library.by_topic.get(t, ()):
            if other.id != note.id and other.repo.lower() == note.repo.lower():
                candidates[other.id] = other
    related = [
        Related(other, tuple(t for t in note.topics if t in other.topics))
        for other in newest_first(candidates.values())
    ]
    related.sort(key=lambda r: (-len(r.shared), r.note.verdict.rank))  # stable: newest kept
    return related[:limit]


def topic_counts(library: Library, repo: str) -> list[tuple[Topic, int]]:
    """Every taxonomy topic in file order with its number of notes in `repo`."""
    counts = dict.fromkeys(library.topics, 0)
    for n in library.for_repo(repo):
        for t in n.topics:
            counts[t] = counts.get(t, 0) + 1
    return [(topic, counts[tid]) for tid, topic in library.topics.items()]


# --- text to HTML (pure) ---------------------------------------------------------------

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\u3000]*\n")


def guidance_html(text: str) -> Markup:
    """Guidance as HTML: escape everything first, then turn `x` into <code>x</code>,
    blank lines into paragraphs and single newlines into <br>."""
    escaped = str(escape(text.replace("\r\n", "\n").strip("\n")))
    paragraphs = [p.strip("\n") for p in _PARAGRAPH_BREAK.split(escaped) if p.strip()]
    html = (
        "<p>" + _CODE_SPAN.sub(r"<code>\1</code>", p).replace("\n", "<br>\n") + "</p>"
        for p in paragraphs
    )
    return Markup("\n".join(html))


def inline_html(text: str) -> Markup:
    """One line of text (a summary) with `x` shown as <code>x</code>, escaped first."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


# --- JSON shapes (the edge) --------------------------------------------------------------


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


class NoteListOut(BaseModel):
    repo: str
    topic: str
    verdict: str
    q: str
    count: int
    notes: list[NoteOut]


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


# --- content negotiation -----------------------------------------------------------------


def _quality(accept: str, media: str) -> float:
    """The q-value `accept` gives `media`, from its most specific matching range."""
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
    return best[1]


def wants_json(request: Request) -> bool:
    """`?format=json|html` wins; otherwise JSON only when Accept prefers it to HTML."""
    fmt = request.query_params.get("format", "").strip().lower()
    if fmt in ("json", "html"):
        return fmt == "json"
    if fmt:
        raise QueryError(f"unknown format {fmt!r}; use json or html")
    accept = request.headers.get("accept", "")
    return _quality(accept, "application/json") > _quality(accept, "text/html")


# --- the router (shell) ----------------------------------------------------------------------


def template_environment() -> jinja2.Environment:
    """Autoescape every template (not only *.html) and fail loudly on a missing variable."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["guidance"] = guidance_html
    env.filters["inline"] = inline_html
    return env


def notes_router(
    library: Library | Callable[[], Library],
    *,
    public_url: str = "",
    link_mode: str = "pages",
    notes_repo_url: str = "",
    notes_branch: str = "main",
    notes_dir: str = NOTES_DIR_IN_REPO,
) -> APIRouter:
    """GET /notes, /notes/{id}, /notes/{id}/source, /topics and /assets/notes.css.

    `library` may be a callable returning the current Library, for an app that reloads
    notes. `public_url` makes JSON urls and the canonical link absolute; a path in it
    (`https://example.org/review-notes`, a proxy that strips the prefix) is kept in
    every link the pages make, so the stylesheet and navigation stay under it. With
    link_mode="github" the "source file" links go to
    `{notes_repo_url}/blob/{notes_branch}/{notes_dir}/<id>.md`, as the comment's do.
    """
    check_link_settings(link_mode, notes_repo_url)
    current: Callable[[], Library] = library if callable(library) else (lambda: library)
    env = template_environment()
    css = (HERE / "static" / "notes.css").read_bytes()
    router = APIRouter()
    parts = urlsplit(public_url)
    origin = f"{parts.scheme}://{parts.netloc}" if public_url else ""
    prefix = parts.path.rstrip("/")  # where a proxy serves these pages, if not at the root

    def href(request: Request, name: str, query: dict[str, str] | None = None, **params) -> str:
        path = prefix + request.url_for(name, **params).path
        # Empty values and the default repo stay out, so links stay short and stable.
        query = {
            k: v for k, v in (query or {}).items() if v and not (k == "repo" and v == DEFAULT_REPO)
        }
        return path + ("?" + urlencode(query) if query else "")

    def absolute(path: str) -> str:
        """A root-relative link made absolute by `public_url` (JSON clients follow them)."""
        return origin + path

    def page_url(request: Request, note: Note) -> str:
        if public_url:
            return note_page_url(note, public_url=public_url)
        return href(request, "notes_note", note_id=note.id)

    def source_file_url(request: Request, note: Note) -> str:
        if link_mode == "github":
            return note_file_url(
                note,
                notes_repo_url=notes_repo_url,
                branch=notes_branch,
                directory=notes_dir,
                file=current().files.get(note.id),
            )
        return absolute(href(request, "notes_source", note_id=note.id))

    def note_out(request: Request, note: Note) -> dict[str, Any]:
        return dict(
            id=note.id,
            repo=note.repo,
            url=page_url(request, note),
            verdict=note.verdict,
            verdict_en=note.verdict.label_en,
            verdict_zh=note.verdict.label_zh,
            topics=list(note.topics),
            title_zh=note.title_zh,
            title_en=note.title_en,
            summary_en=note.summary_en,
            source_pr=note.source_pr,
            source_pr_url=pr_url(note.repo, note.source_pr) if note.source_pr else None,
            created=note.created,
            updated=note.updated,
        )

    def render(request: Request, template: str, status: int = 200, **context: Any) -> Response:
        lib = current()
        html = env.get_template(template).render(
            url=lambda name, query=None, **params: href(request, name, query, **params),
            css_href=href(request, "notes_css"),
            topics=lib.topics,
            verdicts=list(Verdict),
            pr_url=pr_url,
            issue_url=issue_url,
            source_file_url=lambda note: source_file_url(request, note),
            default_repo=DEFAULT_REPO,
            **context,
        )
        return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)

    def as_json(model: BaseModel, status: int = 200) -> Response:
        return Response(
            model.model_dump_json(),
            status_code=status,
            media_type="application/json",
            headers=SECURITY_HEADERS,
        )

    def error(request: Request, status: int, message: str) -> Response:
        try:
            as_data = wants_json(request)
        except QueryError:
            as_data = False
        if as_data:
            body = json.dumps({"detail": message}, ensure_ascii=False)
            return Response(body, status, media_type="application/json", headers=SECURITY_HEADERS)
        title = "Not found" if status == 404 else "Bad request"
        return render(request, "error.html", status, title=title, message=message)

    @router.get("/notes", name="notes_list", response_model=None)
    def list_notes(
        request: Request, repo: str = DEFAULT_REPO, topic: str = "", verdict: str = "", q: str = ""
    ) -> Response:
        lib = current()
        try:
            query = parse_query(lib, repo=repo, topic=topic, verdict=verdict, q=q)
            as_data = wants_json(request)
        except QueryError as exc:
            return error(request, 400, str(exc))
        notes = find_notes(lib, query)
        if as_data:
            return as_json(
                NoteListOut(
                    repo=query.repo,
                    topic=query.topic,
                    verdict=query.verdict or "",
                    q=query.q,
                    count=len(notes),
                    notes=[NoteOut(**note_out(request, n)) for n in notes],
                )
            )
        counts = dict((t.id, c) for t, c in topic_counts(lib, query.repo))
        return render(
            request,
            "notes.html",
            query=query,
            notes=notes,
            counts=counts,
            total=len(lib.for_repo(query.repo)),
        )

    @router.get("/notes/{note_id}", name="notes_note", response_model=None)
    def show_note(request: Request, note_id: str) -> Response:
        lib = current()
        note = lib.by_id.get(note_id)
        if note is None:
            return error(request, 404, f"no note with id {note_id!r}")
        try:
            as_data = wants_json(request)
        except QueryError as exc:
            return error(request, 400, str(exc))
        related = related_notes(lib, note)
        if as_data:
            return as_json(
                NoteDetailOut(
                    **note_out(request, note),
                    guidance=note.guidance,
                    keywords=list(note.keywords),
                    aspects=list(note.aspects),
                    paths=list(note.paths),
                    read_with=list(note.read_with),
                    issues=list(note.issues),
                    source_file_url=source_file_url(request, note),
                    related=[
                        RelatedOut(**note_out(request, r.note), shared_topics=list(r.shared))
                        for r in related
                    ],
                )
            )
        canonical = note_page_url(note, public_url=public_url) if public_url else ""
        return render(request, "note.html", note=note, related=related, canonical=canonical)

    @router.get("/notes/{note_id}/source", name="notes_source", response_model=None)
    def note_source(request: Request, note_id: str) -> Response:
        note = current().by_id.get(note_id)
        if note is None:
            return error(request, 404, f"no note with id {note_id!r}")
        return PlainTextResponse(dump_note(note), headers=SECURITY_HEADERS)

    @router.get("/topics", name="notes_topics", response_model=None)
    def list_topics(request: Request, repo: str = DEFAULT_REPO) -> Response:
        lib = current()
        repo = repo.strip() or DEFAULT_REPO
        try:
            as_data = wants_json(request)
        except QueryError as exc:
            return error(request, 400, str(exc))
        rows = topic_counts(lib, repo)
        if as_data:
            return as_json(
                TopicsOut(
                    repo=repo,
                    topics=[
                        TopicOut(
                            id=t.id,
                            name_en=t.name_en,
                            name_zh=t.name_zh,
                            description=t.description,
                            notes=count,
                            url=absolute(
                                href(request, "notes_list", {"topic": t.id, "repo": repo})
                            ),
                        )
                        for t, count in rows
                    ],
                    without_notes=[t.id for t, count in rows if count == 0],
                )
            )
        empty = [t for t, count in rows if count == 0]
        return render(request, "topics.html", repo=repo, rows=rows, empty=empty)

    @router.get("/assets/notes.css", name="notes_css", include_in_schema=False)
    def stylesheet() -> Response:
        return Response(
            css, media_type="text/css", headers={"Cache-Control": "public, max-age=3600"}
        )

    return router

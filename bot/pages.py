"""The notes browser: the pages the bot's comments link to, and the same data as JSON.

The thin FastAPI shell the app mounts (`notes_site(...).router()`; `notes_router` is the
same routes alone, for an app that serves nothing else): the queries are pure
(`bot.note_queries`), the HTML comes from `bot.page_templates` and the JSON shapes
from `bot.page_json`. Every page is server-rendered by Jinja2 with autoescaping on,
works without JavaScript, and is served with a CSP that forbids scripts but our one
(`SCRIPT_HASH`), so hostile note text stays text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from pydantic import BaseModel
from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.library import Library
from bot.links import (
    NOTES_DIR_IN_REPO,
    check_link_settings,
    issue_url,
    note_file_url,
    note_page_url,
    pr_url,
)
from bot.note_dump import dump_note
from bot.note_queries import (
    DEFAULT_REPO,
    QueryError,
    find_notes,
    no_match,
    parse_query,
    related_notes,
    topic_counts,
)
from bot.notes import Note, Topic, Verdict
from bot.page_json import (
    NoteDetailOut,
    NoteListOut,
    NoteOut,
    RelatedOut,
    RepoOut,
    TopicOut,
    TopicsOut,
    error_as_json,
    source_as_page,
    wants_json,
)
from bot.page_templates import template_environment
from bot.terminal import count_of

STATIC = Path(__file__).resolve().parent / "static"
CSS = STATIC / "notes.css"
# Named by every HTML page: without one a browser asks for /favicon.ico (redirected here;
# behind a proxy that serves the bot under a path, not the bot's to answer)
ICON = STATIC / "favicon.svg"

# The list page's form reset when the browser brings the page back (see the file): the
# only script that may run, named by its hash, which a <script> must state as its integrity
SCRIPT = STATIC / "notes.js"
SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(SCRIPT.read_bytes()).digest()).decode()

# Scripts are never needed: filters are GET forms, and the one script (SCRIPT_HASH) only
# keeps the form true to the list. Styles come from our one CSS file. Sent with every
# answer of the server, by `SecurityHeaders`, not by each: a redirect, an error FastAPI
# makes itself (a 404, 405 or 422) or a JSON answer a browser is sent to is framed or
# sniffed as readily as a page.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        f"default-src 'none'; script-src '{SCRIPT_HASH}'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",  # frame-ancestors 'none', for a browser that predates it
    # a note's links lead to GitHub: what a reader searched (`?q=`) stays here
    "Referrer-Policy": "no-referrer",
}
# An answer that is HTML or JSON as Accept asks: a cache must not give one to the other
NEGOTIATED = {"Vary": "Accept"}

ASSET_HEADERS = {"Cache-Control": "public, max-age=3600"}
# For answers that change when the notes do: Chromium keeps a 308 or a 410 sent without
# caching headers for good, so a note renamed back (its old link a 308 to its new id,
# the new one a 308 back) looped, and a note taken out of retirement stayed retired
ASK_AGAIN = {"Cache-Control": "no-cache"}

# What a chat autolinker leaves on the end of a pasted link: sentence punctuation, closing
# brackets and quotes (ASCII; no URL of the pages holds more than ASCII)
PASTED_AFTER = ".,;:!?)]}>'\"*"
# and all from its first non-ASCII character on: GitHub's autolinker takes all up to an
# ASCII space, so a link a Chinese sentence runs on from (`，请看`, `。`) ends with it
_PASTED_TEXT = r"[^\x00-\x7f][^/]*"


def pasted_off(segment: str) -> str:
    """A link's last part without what was pasted after it."""
    return re.split(r"[^\x00-\x7f]", segment, maxsplit=1)[0].rstrip(PASTED_AFTER)


def id_readings(segment: str) -> list[str]:
    """The ids a link's `/notes/<segment>` may mean, likeliest first: as written, without
    what was pasted after it; each also in lower case (an id has no capital: one typed or
    copied from a title-cased line) and without `.md` (the note's file name, as a curator's
    message, `notes check` or the file's GitHub link name it)."""
    readings = []
    for written in (segment, pasted_off(segment)):
        lower = written.lower()
        readings += [written, lower, lower.removesuffix(".md")]
    return list(dict.fromkeys(r for r in readings if r))


class PastedAfter(Convertor[str]):
    """`{name:pasted}` in a route: what is pasted after a link (`pasted_off` takes off), and
    nothing else."""

    regex = f"[{re.escape(PASTED_AFTER)}]+(?:{_PASTED_TEXT})?|{_PASTED_TEXT}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("pasted", PastedAfter())


def notes_site(
    library: Library,
    *,
    public_url: str = "",
    link_mode: str = "pages",
    notes_repo_url: str = "",
    notes_branch: str = "main",
    notes_dir: str = NOTES_DIR_IN_REPO,
    default_repo: str = DEFAULT_REPO,
) -> NotesSite:
    """The notes browser; its `router()` serves GET /notes, /notes/{id},
    /notes/{id}/source, /topics, /assets/notes.css, /assets/notes.js and /assets/favicon.svg (and
    /favicon.ico, redirected to it; a note's link pasted with punctuation after it,
    redirected to the page it names).

    `public_url` makes JSON urls and the canonical link absolute; a path in it
    (`https://example.org/review-notes`, a proxy that strips the prefix) is kept in
    every link the pages make, so the stylesheet and navigation stay under it. With
    link_mode="github" the "source file" links go to
    `{notes_repo_url}/blob/{notes_branch}/{notes_dir}/<id>.md`, as the comment's do.
    `default_repo`: the repository a page shows with no `?repo=` (the server's: the first
    of REVIEW_NOTES_REPOS, the one the bot is installed for).
    """
    check_link_settings(link_mode, notes_repo_url)
    return NotesSite(
        library, public_url, link_mode, notes_repo_url, notes_branch, notes_dir, default_repo
    )


def notes_router(library: Library, **options: Any) -> APIRouter:
    """The notes browser's routes (`notes_site`'s options), for an app that needs no more."""
    return notes_site(library, **options).router()


class NotesSite:
    """The pages, with what every page needs: the library, links, templates."""

    def __init__(
        self,
        library: Library,
        public_url: str,
        link_mode: str,
        notes_repo_url: str,
        notes_branch: str,
        notes_dir: str,
        default_repo: str = DEFAULT_REPO,
    ):
        self.library = library
        # GitHub's names in any case are one repository: compared in lower case
        self.default_repo = default_repo.lower()
        self.public_url = public_url
        self.link_mode = link_mode
        self.notes_repo = (notes_repo_url, notes_branch, notes_dir)
        self.env = template_environment()
        self.css = CSS.read_bytes()
        # named in each page's link, so a deploy that changes the stylesheet changes the
        # link too: a browser keeps the old one for an hour (ASSET_HEADERS) under the old
        self.css_version = hashlib.sha256(self.css).hexdigest()[:12]
        self.icon_svg = ICON.read_bytes()
        self.script = SCRIPT.read_bytes()
        self.script_version = hashlib.sha256(self.script).hexdigest()[:12]  # as the CSS's
        parts = urlsplit(public_url)
        self.origin = f"{parts.scheme}://{parts.netloc}" if public_url else ""
        self.prefix = parts.path.rstrip("/")  # where a proxy serves these pages, if not at root

    def router(self) -> APIRouter:
        router = APIRouter()
        pages: list[tuple[str, str, Callable[..., Any]]] = [
            ("/notes", "notes_list", self.list_notes),
            ("/notes/{note_id}", "notes_note", self.show_note),
            ("/notes/{note_id}/source", "notes_source", self.note_source),
            ("/topics", "notes_topics", self.list_topics),
        ]
        for path, name, endpoint in pages:
            router.add_api_route(path, endpoint, methods=["GET"], name=name, response_model=None)
        unlisted: list[tuple[str, str, Callable[..., Any]]] = [
            ("/notes/{note_id}/source{after:pasted}", "notes_source_pasted", self.pasted_source),
            ("/assets/notes.css", "notes_css", self.stylesheet),
            ("/assets/favicon.svg", "notes_icon", self.icon),
            ("/assets/notes.js", "notes_script", self.javascript),
            ("/favicon.ico", "notes_favicon", self.favicon),
        ]
        for path, name, endpoint in unlisted:
            router.add_api_route(
                path,
                endpoint,
                methods=["GET"],
                name=name,
                response_model=None,
                include_in_schema=False,
            )
        return router

    # --- links ---

    def href(
        self, request: Request, name: str, query: dict[str, str] | None = None, **params: Any
    ) -> str:
        path = self.prefix + request.url_for(name, **params).path
        # Empty values and the default repo stay out, so links stay short and stable.
        query = {
            k: v
            for k, v in (query or {}).items()
            if v and not (k == "repo" and v.lower() == self.default_repo)
        }
        return path + ("?" + urlencode(query) if query else "")

    def absolute(self, path: str) -> str:
        """A root-relative link made absolute by `public_url` (JSON clients follow them)."""
        return self.origin + path

    def public(self, path: str) -> str:
        """A path of the app as a browser reaches it: under public_url's path, and
        absolute with it (root-relative without one)."""
        return self.absolute(self.prefix + path)

    def page_url(self, request: Request, note: Note) -> str:
        if self.public_url:
            return note_page_url(note, public_url=self.public_url)
        return self.href(request, "notes_note", note_id=note.id)

    def source_file_url(self, request: Request, note: Note) -> str:
        if self.link_mode == "github":
            repo_url, branch, directory = self.notes_repo
            return note_file_url(
                note,
                notes_repo_url=repo_url,
                branch=branch,
                directory=directory,
                file=self.library.files.get(note.id),
            )
        return self.absolute(self.href(request, "notes_source", note_id=note.id))

    # --- answers ---

    def note_out(self, request: Request, note: Note) -> dict[str, Any]:
        return dict(
            id=note.id,
            repo=note.repo,
            url=self.page_url(request, note),
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

    def render(
        self,
        request: Request,
        template: str,
        status: int = 200,
        site_repo: str = "",
        **context: Any,
    ) -> Response:
        """The page; `site_repo`: the repository it shows, which the site's links keep."""
        html = self.env.get_template(template).render(
            site_repo=site_repo or self.default_repo,
            url=lambda name, query=None, **params: self.href(request, name, query, **params),
            css_href=self.href(request, "notes_css", {"v": self.css_version}),
            icon_href=self.href(request, "notes_icon"),
            script_href=self.href(request, "notes_script", {"v": self.script_version}),
            script_hash=SCRIPT_HASH,
            topics=self.library.topics,
            verdicts=list(Verdict),
            pr_url=pr_url,
            issue_url=issue_url,
            source_file_url=lambda note: self.source_file_url(request, note),
            default_repo=self.default_repo,
            **context,
        )
        return HTMLResponse(html, status_code=status, headers=NEGOTIATED)

    @staticmethod
    def as_json(model: BaseModel, status: int = 200) -> Response:
        return Response(
            model.model_dump_json(),
            status_code=status,
            media_type="application/json",
            headers=NEGOTIATED,
        )

    def no_note(self, request: Request, note_id: str) -> Response:
        """A 404 for a note's link no note answers: to a reader who followed it from a
        comment written before the note was deleted, also what that may mean, and the
        search (the note's words may find what replaced it) the error page offers."""
        why = (
            "The curators may have deleted it since the comment linking it was written "
            "(the comment drops it at its next update), or the link was cut or mistyped."
        )
        return self.error(request, 404, f"no note with id {note_id!r}", hint=why)

    def no_repo(self, request: Request, repo: str) -> Response:
        """A 404 for a list of a repository no note is of (`?repo=` mistyped, or one the
        curators keep none for): which repositories have notes, linked, rather than an
        empty list of it whose links lead back to it."""
        held = self.repos_held()
        kept = "; notes are kept for " + ", ".join(name for name, _ in held)
        message = f"no notes of repository {repo!r}" + (
            kept if held else ": no repository has notes yet"
        )
        links = self.repo_links(request, held)
        return self.error(request, 404, message, site_repo=self.default_repo, links=links)

    def repos_held(self) -> list[tuple[str, int]]:
        """The repositories notes are of, with their number of notes, most first."""
        return sorted(
            ((notes[0].repo, len(notes)) for notes in self.library.by_repo.values()),
            key=lambda r: (-r[1], r[0].lower()),
        )

    def repo_links(self, request: Request, held: list[tuple[str, int]]) -> list[tuple[str, str]]:
        """Each repository of `held` as a link to its list, its number of notes said."""
        return [
            (
                f"{name} ({count_of(count, 'note')})",
                self.href(request, "notes_list", {"repo": name}),
            )
            for name, count in held
        ]

    def repos_out(self, request: Request) -> list[RepoOut]:
        """The repositories notes are of, as JSON (`repos_held`'s order)."""
        return [
            RepoOut(
                repo=name,
                notes=count,
                url=self.absolute(self.href(request, "notes_list", {"repo": name})),
            )
            for name, count in self.repos_held()
        ]

    def error(
        self,
        request: Request,
        status: int,
        message: str,
        *,
        hint: str = "",
        site_repo: str | None = None,
        links: list[tuple[str, str]] | None = None,
    ) -> Response:
        """The error as JSON (`message` alone) or as a page, with the notes' search box;
        `hint` says more to a reader, `links` (text, href) where to go; `site_repo`: the
        repository the page's links keep (else the request's `?repo=`)."""
        if error_as_json(request):
            body = json.dumps({"detail": message}, ensure_ascii=False)
            answer = Response(body, status, media_type="application/json")
            answer.headers.update(NEGOTIATED)
        else:
            title = {404: "Not found", 405: "Method not allowed", 410: "Retired"}.get(
                status, "Bad request"
            )
            # a bad filter on another repository's list leaves the reader in that repository;
            # one no note is of (a 405's, a 404's) is rejected, not kept by the page's links
            repo = request.query_params.get("repo", "").strip()
            repo = self.default_repo if self.unknown_repo(repo) else repo or self.default_repo
            answer = self.render(
                request,
                "error.html",
                status,
                site_repo=site_repo or repo,
                title=title,
                message=message,
                hint=hint,
                links=links or [],
            )
        answer.headers.update(ASK_AGAIN)  # a 410 until the curators bring the note back
        return answer

    # --- the pages ---

    def list_notes(
        self,
        request: Request,
        repo: str = "",
        topic: str = "",
        verdict: str = "",
        q: str = "",
    ) -> Response:
        lib = self.library
        pasted = self.pasted_query(request, "notes_list", ("repo", "topic", "verdict"))
        if pasted is not None:
            return pasted
        if self.unknown_repo(repo):
            return self.no_repo(request, repo.strip())
        try:
            repo = repo.strip() or self.default_repo
            query = parse_query(lib, repo=repo, topic=topic, verdict=verdict, q=q)
            as_data = wants_json(request)
        except QueryError as exc:
            return self.error(request, 400, str(exc))
        notes = find_notes(lib, query)
        total = len(lib.for_repo(query.repo))
        if as_data:
            return self.as_json(
                NoteListOut(
                    repo=query.repo,
                    topic=query.topic,
                    verdict=query.verdict or "",
                    q=query.q,
                    count=len(notes),
                    notes=[NoteOut(**self.note_out(request, n)) for n in notes],
                    elsewhere=[] if total else self.repos_out(request),
                )
            )
        counts = dict((t.id, c) for t, c in topic_counts(lib, query.repo))
        return self.render(
            request,
            "notes.html",
            site_repo=query.repo,
            query=query,
            notes=notes,
            counts=counts,
            total=total,
            no_match=None if notes else no_match(lib, query),
            # the default repository without notes: "0 of 0" and a "Show all notes" that
            # leads back here told a visitor nothing; the repositories that have notes do
            elsewhere=[] if total else self.repo_links(request, self.repos_held()),
        )

    def show_note(self, request: Request, note_id: str) -> Response:
        lib = self.library
        note = lib.by_id.get(note_id)
        if note is None:
            return self.former(request, note_id, "notes_note") or self.no_note(request, note_id)
        try:
            as_data = wants_json(request)
        except QueryError as exc:
            return self.error(request, 400, str(exc))
        related = related_notes(lib, note)
        if as_data:
            return self.as_json(
                NoteDetailOut(
                    **self.note_out(request, note),
                    guidance=note.guidance,
                    keywords=list(note.keywords),
                    aspects=list(note.aspects),
                    paths=list(note.paths),
                    read_with=list(note.read_with),
                    issues=list(note.issues),
                    source_file_url=self.source_file_url(request, note),
                    related=[
                        RelatedOut(**self.note_out(request, r.note), shared_topics=list(r.shared))
                        for r in related
                    ],
                )
            )
        canonical = note_page_url(note, public_url=self.public_url) if self.public_url else ""
        return self.render(
            request,
            "note.html",
            site_repo=note.repo,
            note=note,
            related=related,
            canonical=canonical,
        )

    def note_source(self, request: Request, note_id: str) -> Response:
        note = self.library.by_id.get(note_id)
        if note is None:
            return self.former(request, note_id, "notes_source") or self.no_note(request, note_id)
        text = dump_note(note)
        try:
            as_page = source_as_page(request)
        except QueryError as exc:
            return self.error(request, 400, str(exc))
        if as_page:  # a browser: the text in a page a phone lays out to fit
            return self.render(request, "source.html", site_repo=note.repo, note=note, text=text)
        return PlainTextResponse(text, headers=NEGOTIATED)

    def pasted_source(self, request: Request, note_id: str, after: str) -> Response:
        """The source page's link pasted with the punctuation after it (`/source.`,
        `/source，请看`): to the source page, as a note page's link so pasted goes to the
        note."""
        return self.former(request, note_id, "notes_source") or self.no_note(request, note_id)

    def former(self, request: Request, note_id: str, page: str) -> Response | None:
        """A link to `page` (the note's route, its source's) by an id no note has: a
        permanent redirect to that page of the note's id now, when a curator renamed it
        (posted comments keep its old id); to one retired, 410; else None.
        A link pasted with the punctuation after it (`/notes/<id>.`, `)`, `，请看`), in
        capitals or as the file's name (`<id>.md`) is taken for the note it names
        (`id_readings`): no id is written so, and the reader asked for that note."""
        known = (self.library.current_id(r) for r in id_readings(note_id))
        now = next((r for r in known if self.known(r)), None)
        if now is None:
            return None
        retired = self.library.retired.get(now)
        if retired is not None:
            title = retired.title_en or retired.title_zh
            why = f"note {now!r} ({title}) was retired by the curators: it is linked no more"
            return self.error(request, 410, why)
        query = f"?{request.url.query}" if request.url.query else ""
        url = self.absolute(self.href(request, page, note_id=now)) + query  # public_url's path
        return RedirectResponse(url, status_code=308, headers=NEGOTIATED | ASK_AGAIN)

    def pasted_query(self, request: Request, page: str, keys: tuple[str, ...]) -> Response | None:
        """A list page's link pasted with text after it, which its last value then ends
        with (the repository a `/notes topic` reply's link ends with, a topic chip's topic,
        the verdict a searched page's address ends with): a redirect without it, when what
        is left names something (none ends with what is pasted: `.`, `)`, `，请看`)."""
        items = request.query_params.multi_items()
        if not items or items[-1][0] not in keys:
            return None
        key, value = items[-1]
        left = pasted_off(value)
        if left == value or not self.names_something(key, left):
            return None
        query = dict(items) | {key: left}
        url = self.absolute(self.href(request, page, query))
        return RedirectResponse(url, status_code=308, headers=NEGOTIATED | ASK_AGAIN)

    def names_something(self, key: str, value: str) -> bool:
        """Whether a list page's `repo`, `topic` or `verdict` is one it knows (or none)."""
        value = value.strip()
        if key == "repo":
            return bool(self.library.for_repo(value or self.default_repo))
        if key == "topic":
            return not value or value in self.library.topics
        return not value or value in {v.value for v in Verdict}

    def unknown_repo(self, repo: str) -> bool:
        """Whether a list page's `?repo=` names a repository no note is of (the default,
        asked by no `?repo=`, lists its notes or says it has none)."""
        repo = repo.strip()
        return bool(repo) and repo.lower() != self.default_repo and not self.library.for_repo(repo)

    def known(self, note_id: str) -> bool:
        """A note's id now, in use or retired."""
        return note_id in self.library.by_id or note_id in self.library.retired

    def list_topics(self, request: Request, repo: str = "") -> Response:
        pasted = self.pasted_query(request, "notes_topics", ("repo",))
        if pasted is not None:
            return pasted
        if self.unknown_repo(repo):
            return self.no_repo(request, repo.strip())
        repo = repo.strip() or self.default_repo
        try:
            as_data = wants_json(request)
        except QueryError as exc:
            return self.error(request, 400, str(exc))
        rows = topic_counts(self.library, repo)
        has_notes = bool(self.library.for_repo(repo))
        if as_data:
            return self.as_json(
                TopicsOut(
                    repo=repo,
                    topics=self._topics_out(request, repo, rows),
                    without_notes=[t.id for t, n in rows if n == 0],
                    elsewhere=[] if has_notes else self.repos_out(request),
                )
            )
        empty = [t for t, count in rows if count == 0]
        held = [] if has_notes else self.repo_links(request, self.repos_held())
        return self.render(
            request,
            "topics.html",
            site_repo=repo,
            repo=repo,
            rows=rows,
            empty=empty,
            elsewhere=held,
        )

    def _topics_out(
        self, request: Request, repo: str, rows: list[tuple[Topic, int]]
    ) -> list[TopicOut]:
        return [
            TopicOut(
                id=t.id,
                name_en=t.name_en,
                name_zh=t.name_zh,
                description=t.description,
                notes=count,
                url=self.absolute(self.href(request, "notes_list", {"topic": t.id, "repo": repo})),
            )
            for t, count in rows
        ]

    def stylesheet(self) -> Response:
        return Response(self.css, media_type="text/css", headers=ASSET_HEADERS)

    def javascript(self) -> Response:
        return Response(self.script, media_type="text/javascript", headers=ASSET_HEADERS)

    def icon(self) -> Response:
        return Response(self.icon_svg, media_type="image/svg+xml", headers=ASSET_HEADERS)

    def favicon(self, request: Request) -> Response:
        """A page that can name no icon (/notes/{id}/source is plain text) has the browser
        ask for /favicon.ico: sent to the icon the HTML pages name, under public_url."""
        icon = self.absolute(self.href(request, "notes_icon"))
        return RedirectResponse(icon, headers=ASSET_HEADERS)


class SecurityHeaders:
    """ASGI middleware: every answer carries SECURITY_HEADERS (each one it does not set
    itself). The server wraps its whole app in it, a crash's 500 included; an app
    serving `notes_router` alone adds it (`app.add_middleware(SecurityHeaders)`)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, secured)

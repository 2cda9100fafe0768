"""GitHubPort over PyGithub: App or token auth, one retry layer, call counts.

- Auth. App mode mints an installation token per installation (the JWT is PyGithub's
  `Auth.AppAuth`) and shares it between threads until shortly before it expires; a 401
  drops it, mints a new token and retries once. Token mode uses `Auth.Token`.
- Threads. PyGithub's requester and its connection are not thread-safe (two threads on
  one `Github` can get each other's answers: PyGithub PR #2052), so each thread gets its
  own lazy `Github` per installation and token, closed when that thread sees a new token
  or by `close()`. The one `GithubIntegration` (JWT calls: mint a token, find an
  installation, get the App) is used by one thread at a time. Request spacing
  (`seconds_between_requests` / `_writes`) is shared by the threads of an installation,
  as it was when they shared one `Github`.
- Calls. `lazy=True`, so objects the webhook payload already names (repo, PR, issue,
  comment) cost no GET. Lists use per_page=100. A new PR costs three calls: its
  files, its comments, the comment create; a slash command that updates the
  comment adds one GET of the PR (a comment event does not carry its head).
- A rate limit is the identity's (an installation, the token, the App's JWT calls), and
  GitHub may ban an integration that goes on calling while limited: a rate limit
  answer to any call pauses every call of that identity, in every thread, until the
  time GitHub gave. A call that would wait longer than `sleep_max` fails at once,
  unsent, as the call that was answered so does. Any other answer that spent the last call of
  the hour (x-ratelimit-remaining: 0 on a success or a 404) pauses them likewise until
  the reset, so the next call is not one GitHub must refuse.
- A create that may have reached GitHub (timeout, dropped connection, 5xx) is never
  blindly repeated: the comments are listed again and ours is taken if it is there.
- A comment list can lag behind a write: the notes comment last posted, when the list
  lacks it, is asked for by its id before it counts as gone (a maintainer deleted it).
- Only comments written by the bot's own login are ever edited or deleted; deleted are
  only its second notes comments (the oldest is kept and edited), as Prow does.
- Every HTTP call is counted by (method, route template, status) in `client.calls`.

What an answer or exception means (rate limited, locked, retryable) is decided in
`bot.github_errors`; the spacing, the pauses and the counting are `bot.github_pacing`;
the retries, and the GitHubError a call that failed raises, are `bot.github_retry`.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

import requests
from github import Auth, Github, GithubException, GithubIntegration
from github.IssueComment import IssueComment
from github.PullRequestComment import PullRequestComment
from github.Requester import Requester

from bot.github_errors import (
    TRANSPORT_ERRORS,
    detail,
    may_have_applied,
    rate_limit_answer,
    rate_limited,
    secondary_limit,
    spent_until_reset,
)
from bot.github_pacing import CallCounter, Pacer, Paused, route_template
from bot.github_port import (
    FileList,
    FilesNotReady,
    GitHubError,
    Outcome,
    PRRef,
    StickyResult,
    listed_short,
    write_asked,
)
from bot.github_retry import Retrier, RetryPolicy
from bot.installations import InstallationChange
from bot.markers import ends_with_key
from bot.pr_diff import FileChange, code_names_in, incidental_files
from bot.prfacts import PRFacts, facts_from_payload
from bot.redelivery import delivered_at

log = logging.getLogger(__name__)

T = TypeVar("T")

REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})
ROLES = ("admin", "maintain", "write", "triage", "read")
# How far GitHub's clock may be from ours when looking for a comment we may have made.
CLOCK_SLACK = timedelta(minutes=2)


class UnusableKeyError(ValueError):
    """The App's private key cannot sign a JWT: the key's fault, not another setting's."""


def _identity(key: int | str) -> str:
    """A pacer key in words, for logs."""
    if key == "token":
        return "the token"
    if key == "app":
        return "the App (JWT calls)"
    return f"installation {key}"


def _same_text(a: str | None, b: str) -> bool:
    def norm(s: str) -> str:
        return s.replace("\r\n", "\n").rstrip()

    return a is not None and norm(a) == norm(b)


# --- the client -----------------------------------------------------------------


@dataclass(frozen=True)
class _Grant:
    """An installation token, shared by every thread until shortly before it expires."""

    token: str
    expires_at: datetime


class GitHubClient:
    """The real GitHubPort. Give either `app_id` + `private_key` (PEM text) or `token`."""

    def __init__(
        self,
        *,
        base_url: str = "https://api.github.com",
        app_id: int | str | None = None,
        private_key: str | None = None,
        token: str | None = None,
        timeout: int = 10,
        retry: RetryPolicy | None = None,
        seconds_between_requests: float = 0.25,
        seconds_between_writes: float = 1.0,
        bot_login: str | None = None,
        token_refresh_margin: float = 300.0,
        user_agent: str = "review-notes",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if (app_id is None) == (token is None) or (app_id is not None and not private_key):
            raise ValueError("GitHubClient needs app_id and private_key, or token (not both)")
        self.calls = CallCounter(clock)
        self.policy = retry or RetryPolicy()
        self._retry = Retrier(self.policy, sleep)
        self._base_url = base_url.rstrip("/")
        self._prefix = urlsplit(self._base_url).path
        self._options = dict(
            base_url=self._base_url,
            timeout=int(timeout),  # PyGithub asserts an int
            user_agent=user_agent,
            retry=None,  # retries happen in self._retry (bot.github_retry), not in PyGithub
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=seconds_between_writes,
        )
        self._between = (seconds_between_requests, seconds_between_writes)
        self._refresh_margin = timedelta(seconds=token_refresh_margin)
        self._clock, self._sleep = clock, sleep
        self._bot_login = bot_login
        self._app_id = str(app_id)  # the App's id, or its client ID
        self._lock = threading.Lock()  # guards the shared dicts and the registry below
        self._app_lock = threading.Lock()  # one JWT call at a time on the GithubIntegration
        self._mint_locks: dict[int, threading.Lock] = {}
        self._grants: dict[int, _Grant] = {}  # installation id -> its current token
        self._repo_installations: dict[str, int] = {}
        # bumped by each installation event: a token or lookup fetched across one is
        # used once, not cached (it may predate a permission or a move)
        self._forgotten = 0
        self._pacers: dict[int | str, Pacer] = {}  # installation id, "token", or "app"
        self._open: dict[int, Github] = {}  # id() -> every Github made and not closed yet
        self._local = threading.local()  # .githubs: installation id / "token" -> (token, Github)
        self._integration: GithubIntegration | None = None
        self._token = token
        if token is None:
            app_auth = Auth.AppAuth(app_id, private_key)  # type: ignore[arg-type]
            try:
                app_auth.create_jwt()  # a bad key fails here, not on the first webhook
            except Exception as exc:
                raise UnusableKeyError(
                    "GitHub App private key is not a usable RSA PEM key"
                ) from exc
            self._integration = GithubIntegration(auth=app_auth, **self._options)  # type: ignore[arg-type]
            self._count(self._integration.requester)
            # the JWT calls are the App's own: paused apart from any installation's;
            # GithubIntegration spaces them itself
            self._pace(self._integration.requester, "app", self._pacer("app", (0.0, 0.0)))

    # --- GitHubPort ---------------------------------------------------------

    def get_pull(self, ref: PRRef) -> PRFacts:
        def op(gh: Github) -> PRFacts:
            pull = gh.get_repo(ref.repo).get_pull(ref.number)  # lazy: no request yet
            data = self._retry.call(f"get {_pr(ref)}", lambda: pull.raw_data)
            _check_answer(f"get {_pr(ref)}", data, ref.number)
            try:
                return facts_from_payload(
                    {"repository": {"full_name": ref.repo}, "pull_request": data}
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise GitHubError(f"GitHub get {_pr(ref)}: a malformed answer: {exc}") from None

        return self._as_installation(ref, op)

    def list_files(self, ref: PRRef, *, expected: int | None = None) -> FileList:
        def op(gh: Github) -> FileList:
            files = gh.get_repo(ref.repo).get_pull(ref.number).get_files()
            # Re-iterating a PaginatedList yields the pages already fetched and goes on
            # from the one that failed, so a retry does not start over.
            fetched = self._retry.call(f"list files of {_pr(ref)}", lambda: list(files))
            if expected is not None and listed_short(len(fetched), expected):
                raise FilesNotReady(ref, len(fetched), expected)
            paths: dict[str, None] = {}
            for f in fetched:
                paths[f.filename] = None
                if f.previous_filename:
                    paths[f.previous_filename] = None
            # `patch` is absent for binary and very large files: their names go unseen
            names = code_names_in((f.filename, f.patch) for f in fetched if f.patch)
            changes = (
                FileChange(f.filename, f.status, f.previous_filename, f.changes, f.patch)
                for f in fetched
            )
            # a removed file's `contents_url` names the commit before (it is gone at the head)
            listed = (f.contents_url for f in fetched if f.status != "removed")
            heads = {at for url in listed if (at := _listed_at(url))}
            head = (heads.pop() if len(heads) == 1 else "") if heads else None
            incidental = incidental_files(changes)
            return FileList(paths, names, incidental, listed=len(fetched), head=head)

        return self._as_installation(ref, op)

    def is_pull(self, ref: PRRef) -> bool | None:
        """Whether the number is a PR (True) or an issue (False); None: the repo has neither."""

        def op(gh: Github) -> bool | None:
            issue = gh.get_repo(ref.repo).get_issue(ref.number)  # lazy: no request yet
            try:
                data = self._retry.call(f"get {ref.repo}#{ref.number}", lambda: issue.raw_data)
            except GitHubError as err:
                if err.status in (404, 410):  # 410: a deleted issue
                    return None
                raise
            _check_answer(f"get {ref.repo}#{ref.number}", data, ref.number)
            return data.get("pull_request") is not None

        return self._as_installation(ref, op)

    def upsert_sticky(
        self,
        ref: PRRef,
        body: str,
        marker: str,
        *,
        create: bool,
        known_id: int | None = None,
        known_differs: bool = False,
    ) -> StickyResult:
        if not marker or not body.startswith(marker):
            raise ValueError("the sticky comment body must open with its marker")

        # The marker opens the sticky comment; elsewhere it may be a reply of ours
        # quoting a command that carried it (shown as code), which is not the sticky.
        def sticky_of_ours(c: IssueComment) -> bool:
            return (c.body or "").lstrip().startswith(marker)

        def op(gh: Github) -> StickyResult:
            login = self.bot_login()
            issue = gh.get_repo(ref.repo).get_issue(ref.number)
            pages = issue.get_comments()  # resumable on retry, like the files
            comments = self._retry.call(f"list comments of {_pr(ref)}", lambda: list(pages))
            ours = [c for c in comments if self._is_ours(c, login) and sticky_of_ours(c)]
            if not ours and known_id is not None:
                ours = self._listed_late(ref, issue, known_id, login, sticky_of_ours)
            while ours:
                sticky, *copies = ours  # the oldest: where readers saw it first
                # showing `body` where we last wrote another text: the list lags that edit
                lags = known_differs and sticky.id == known_id
                if _same_text(sticky.body, body) and not lags:
                    result = StickyResult(Outcome.UNCHANGED, sticky.id)
                    break
                if self._edit(ref, sticky, body):
                    result = StickyResult(Outcome.UPDATED, sticky.id)
                    break
                ours = copies  # deleted since the list: as if the list had come later
            else:
                if not create:
                    return StickyResult(Outcome.SKIPPED)
                made = self._create(ref, issue, body, sticky_of_ours, since=None)
                return StickyResult(Outcome.CREATED, made.id)
            for copy in copies:  # after the edit: the comment kept is current even if one fails
                self._delete_copy(ref, copy)
            return result

        return self._as_installation(ref, op)

    def _edit(self, ref: PRRef, comment: IssueComment, body: str) -> bool:
        """Edit our comment; False when it is gone: 404, deleted (by a maintainer) after
        the comment list. The caller goes on as if the list had not shown it, which is
        no failure of the delivery."""
        what = f"edit comment {comment.id} on {_pr(ref)}"

        def edit() -> None:
            write_asked()
            comment.edit(body)

        if self._gone(what, edit):
            log.info("comment %s on %s was deleted before our edit", comment.id, _pr(ref))
            return False
        return True

    def _listed_late(
        self,
        ref: PRRef,
        issue: Any,
        comment_id: int,
        login: str,
        sticky_of_ours: Callable[[IssueComment], bool],
    ) -> list[IssueComment]:
        """The comment last posted, asked for by its id when the comment list lacks it:
        a list can lag behind a write, and the caller takes a comment gone for one a
        maintainer deleted (and leaves the PR alone from then on). One GET, only then."""
        comment = issue.get_comment(comment_id)  # lazy: the request is the raw_data
        if self._gone(f"get comment {comment_id} on {_pr(ref)}", lambda: comment.raw_data):
            return []
        if not (self._is_ours(comment, login) and sticky_of_ours(comment)):
            return []  # no longer our notes comment (its marker edited away)
        log.info("comment %s on %s was missing from the comment list", comment_id, _pr(ref))
        return [comment]

    def _delete_copy(self, ref: PRRef, copy: IssueComment) -> None:
        """Delete a second notes comment of ours. Two can exist (deliveries racing, or a
        create whose answer was lost while the comment list lagged behind it); only the
        oldest is ever edited, so another would show stale notes for good. Prow removes
        them so too. Already gone (404, e.g. a retry after a lost answer): done."""
        self._gone(f"delete duplicate comment {copy.id} on {_pr(ref)}", copy.delete)
        log.info("deleted comment %s on %s: a second notes comment of ours", copy.id, _pr(ref))

    def _gone(self, what: str, fn: Callable[[], object]) -> bool:
        """Run a call on one comment (retried as any); True when GitHub answers 404: the
        comment is not there (deleted since it was listed), which the callers take as
        an answer, not a failure."""
        try:
            self._retry.call(what, fn)
        except GitHubError as err:
            if err.status != 404:
                raise
            return True
        return False

    def find_comment(self, ref: PRRef, key: str) -> int | None:
        def op(gh: Github) -> int | None:
            issue = gh.get_repo(ref.repo).get_issue(ref.number)
            found = self._retry.call(
                f"look for a comment on {_pr(ref)}",
                lambda: self._find(issue, lambda c: ends_with_key(c.body, key), None),
            )
            return found.id if found is not None else None

        return self._as_installation(ref, op)

    def create_comment(self, ref: PRRef, body: str) -> int:
        since = datetime.now(UTC) - CLOCK_SLACK
        runs = 0

        def op(gh: Github) -> int:
            nonlocal runs
            runs += 1
            issue = gh.get_repo(ref.repo).get_issue(ref.number)
            # run again after a 401 (a new token): the first run's POST may have landed
            return self._create(ref, issue, body, same_text, since, look_first=runs > 1).id

        def same_text(c: IssueComment) -> bool:
            return _same_text(c.body, body)

        return self._as_installation(ref, op)

    def add_reaction(
        self, ref: PRRef, comment_id: int, content: str, *, on_diff: bool = False
    ) -> None:
        if content not in REACTIONS:
            raise ValueError(f"not a GitHub reaction: {content!r}")

        def op(gh: Github) -> None:
            comment: IssueComment | PullRequestComment
            if on_diff:  # lazy objects: the one request is the POST
                comment = gh.get_repo(ref.repo).get_pull(ref.number).get_review_comment(comment_id)
            else:
                comment = gh.get_repo(ref.repo).get_issue(ref.number).get_comment(comment_id)
            # GitHub answers 200 for a reaction that exists: repeating is harmless
            self._retry.call(
                f"react to comment {comment_id}", lambda: comment.create_reaction(content)
            )

        self._as_installation(ref, op)

    def permission(self, ref: PRRef, login: str) -> str:
        """admin, maintain, write, triage, read or none (custom roles give their base)."""

        def op(gh: Github) -> str:
            url = f"/repos/{ref.repo}/collaborators/{quote(login, safe='')}/permission"
            try:
                _, data = self._retry.call(
                    f"permission of {login} on {ref.repo}",
                    lambda: gh.requester.requestJsonAndCheck("GET", url),
                )
            except GitHubError as err:
                if err.status == 404:  # no such user: no rights
                    return "none"
                raise
            role = data.get("role_name")
            return role if role in ROLES else data.get("permission") or "none"

        return self._as_installation(ref, op)

    # --- identity ---------------------------------------------------------------

    def bot_login(self) -> str:
        """Our own login (`<slug>[bot]` for an App), asked once and cached."""
        with self._lock:
            if self._bot_login:
                return self._bot_login
        if self._integration is not None:
            integration = self._integration
            slug = self._as_app("get the App", lambda: integration.get_app().slug)
            login = f"{slug}[bot]"
        else:
            assert self._token is not None
            gh = self._thread_github("token", self._token)
            login = self._retry.call("get the token's user", lambda: gh.get_user().login)
        with self._lock:
            self._bot_login = login
        return login

    def check_app(self) -> None:
        """Ask GitHub once for the App (GET /app, signed with the JWT), not retried: a
        start must not wait out an outage. Raises GitHubError: `transient` unless GitHub
        refused the credentials (401, 403 not a rate limit, 404: no such App). Keeps
        the App's login, which `bot_login` would ask for."""
        integration = self._integration
        if integration is None:
            return
        try:
            with self._app_lock:
                slug = integration.get_app().slug
        except Paused as paused:
            raise GitHubError(f"GitHub get the App: {paused}", transient=True) from paused
        except (GithubException, *TRANSPORT_ERRORS) as exc:
            status = exc.status if isinstance(exc, GithubException) else None
            refused = status in (401, 403, 404) and not rate_limited(exc)
            raise GitHubError(
                f"GitHub get the App: {detail(exc)}", status=status, transient=not refused
            ) from exc
        with self._lock:
            self._bot_login = self._bot_login or f"{slug}[bot]"

    # --- the App's webhook deliveries (JWT) ---------------------------------------

    def hook_deliveries(
        self, since: datetime, stopping: Callable[[], bool] | None = None
    ) -> list[dict[str, Any]]:
        """The App's delivery attempts from now back to `since` (GET /app/hook/deliveries,
        newest first), page by page through the Link header's cursor. Stops at the first
        page reaching back past `since`: GitHub keeps three days, one page may be all.
        Also, with the pages so far, once `stopping()` (the server shuts down) is true
        after a page: the caller asks it again to tell a short listing."""
        requester = self._app_requester("list the App's webhook deliveries")
        url: str | None = "/app/hook/deliveries"
        params: dict[str, Any] | None = {"per_page": 100}
        found: list[dict[str, Any]] = []
        while url is not None:
            headers, page = self._as_app(
                "list the App's webhook deliveries",
                functools.partial(requester.requestJsonAndCheck, "GET", url, parameters=params),
            )
            found += page
            older = any(delivered_at(d) < since for d in page)
            url, params = (None if older else _next_link(headers)), None  # the link has them
            if stopping is not None and stopping():
                break
        return found

    def redeliver(self, delivery_id: int) -> None:
        """Ask GitHub to send a delivery again (POST .../deliveries/{id}/attempts, 202).
        Retried like any call: a 5xx may have reached GitHub, which at worst sends the
        event twice, and the queue refuses the copy by its delivery id."""
        requester = self._app_requester("redeliver a webhook delivery")
        path = f"/app/hook/deliveries/{int(delivery_id)}/attempts"
        self._as_app(
            f"redeliver webhook delivery {delivery_id}",
            lambda: requester.requestJsonAndCheck("POST", path),
        )

    def _app_requester(self, what: str) -> Requester:
        """The GithubIntegration's requester, which signs each call with the App's JWT (as
        `check_app`'s GET /app); a token cannot read the App's deliveries."""
        if self._integration is None:
            raise GitHubError(f"GitHub {what}: needs the App's credentials, not a token")
        return self._integration.requester

    def close(self) -> None:
        """Close every Github this client made, in any thread, and the GithubIntegration;
        no call starts after it."""
        self._retry.close()
        with self._lock:
            githubs = list(self._open.values())
            self._open.clear()
            self._grants.clear()
        for gh in githubs:
            gh.close()
        if self._integration is not None:
            with self._app_lock:
                self._integration.close()

    # --- auth and sessions ------------------------------------------------------

    def _new_github(self, auth: Auth.Auth, key: int | str, pacer: Pacer) -> Github:
        options = {**self._options, "seconds_between_requests": 0, "seconds_between_writes": 0}
        gh = Github(auth=auth, per_page=100, lazy=True, **options)  # type: ignore[arg-type]
        self._count(gh.requester)
        self._pace(gh.requester, key, pacer)
        _follow_moves(gh.requester)  # outermost: each hop is paced and counted
        return gh

    def _pacer(self, key: int | str, between: tuple[float, float]) -> Pacer:
        """The one pacer of an identity, made on first use; the caller holds no lock."""
        with self._lock:
            pacer = self._pacers.get(key)
            if pacer is None:
                pacer = self._pacers[key] = Pacer(
                    *between,
                    self.policy.sleep_max,
                    _identity(key),
                    clock=self._clock,
                    sleep=self._sleep,
                )
            return pacer

    def _thread_github(self, key: int | str, token: str) -> Github:
        """This thread's Github for `key` (an installation id, or "token") with `token`.

        Made on first use in each thread; a thread that sees a new token for the key
        closes its own old one (no other thread uses it). All are kept in `_open` for
        `close()`, also those of a thread that has ended (the workers live as long as
        the server).
        """
        mine: dict[int | str, tuple[str, Github]] | None = getattr(self._local, "githubs", None)
        if mine is None:
            mine = self._local.githubs = {}
        held = mine.get(key)
        with self._lock:
            if held is not None and held[0] == token and id(held[1]) in self._open:
                return held[1]
        gh = self._new_github(Auth.Token(token), key, self._pacer(key, self._between))
        with self._lock:
            self._open[id(gh)] = gh
            stale = held is not None and self._open.pop(id(held[1]), None) is not None
        mine[key] = (token, gh)
        if stale:
            assert held is not None
            held[1].close()
        return gh

    def _as_app(self, what: str, call: Callable[[], T]) -> T:
        """A call on the shared GithubIntegration (JWT auth), retried like any other; each
        try holds the integration for itself (one thread at a time), not the waits."""

        def locked() -> T:
            with self._app_lock:
                return call()

        return self._retry.call(what, locked)

    def _as_installation(self, ref: PRRef, op: Callable[[Github], T]) -> T:
        """Run `op` with this thread's Github for the PR's installation; when the token is
        refused (401), or lacks a permission (403 "not accessible by integration": a token
        keeps the permissions it was minted with, and an owner may have accepted new ones
        since), mint a new one and run it once more."""
        if self._token is not None:
            return op(self._thread_github("token", self._token))
        installation_id, grant = self._installation_grant(ref)
        try:
            return op(self._thread_github(installation_id, grant.token))
        except GitHubError as err:
            lacks = err.status == 403 and "not accessible by integration" in str(err)
            if err.status != 401 and not lacks:
                raise
            log.info("installation %s: token refused, minting a new one", installation_id)
            with self._lock:  # unless another thread has already replaced it
                if self._grants.get(installation_id) == grant:
                    del self._grants[installation_id]
            installation_id, grant = self._installation_grant(ref)
            return op(self._thread_github(installation_id, grant.token))

    def forget_installation(self, change: InstallationChange) -> None:
        """An installation event: the installation's token may lack a new permission or be
        refused, and the repositories it names may have moved to or from it. The next
        call mints and looks up afresh."""
        with self._lock:
            self._forgotten += 1
            self._grants.pop(change.installation_id, None)
            for repo, installation_id in list(self._repo_installations.items()):
                if installation_id == change.installation_id or repo in change.repos:
                    del self._repo_installations[repo]

    def _installation_grant(self, ref: PRRef) -> tuple[int, _Grant]:
        """The PR's installation and its token. An installation named by the delivery
        but gone (the App uninstalled and installed again since: a delivery retried or
        redelivered) gives way to the repository's current one."""
        installation_id = self._installation_of(ref)
        try:
            return installation_id, self._grant(installation_id)
        except GitHubError as err:
            if err.status != 404 or ref.installation_id is None:
                raise
            with self._lock:  # a lookup cached before the reinstall is stale too
                self._repo_installations.pop(ref.repo, None)
            current = self._installation_of(replace(ref, installation_id=None))
            if current == installation_id:
                raise
        log.info("installation %s is gone; %s is now in %s", installation_id, ref.repo, current)
        return current, self._grant(current)

    def _installation_of(self, ref: PRRef) -> int:
        if ref.installation_id is not None:
            return int(ref.installation_id)  # PyGithub and the cache want an int
        with self._lock:
            known = self._repo_installations.get(ref.repo)
            before = self._forgotten
        if known is not None:
            return known
        owner, name = ref.repo.split("/", 1)
        integration = self._integration
        assert integration is not None
        found = self._as_app(
            f"find the installation on {ref.repo}",
            lambda: integration.get_repo_installation(owner, name).id,
        )
        with self._lock:
            if self._forgotten == before:
                self._repo_installations[ref.repo] = found
        return found

    def _grant(self, installation_id: int) -> _Grant:
        """The installation's token, minted when there is none or it expires soon."""
        with self._lock:
            lock = self._mint_locks.setdefault(installation_id, threading.Lock())
        with lock:  # one mint per installation at a time
            with self._lock:
                cached = self._grants.get(installation_id)
                before = self._forgotten
            if cached is not None and cached.expires_at - self._refresh_margin > datetime.now(UTC):
                return cached
            integration = self._integration
            assert integration is not None
            access = self._as_app(
                f"mint a token for installation {installation_id}",
                lambda: integration.get_access_token(installation_id),
            )
            grant = _Grant(access.token, access.expires_at)
            with self._lock:
                if self._forgotten == before:
                    self._grants[installation_id] = grant
            return grant

    # --- writes that must not be doubled ----------------------------------------

    def _is_ours(self, comment: IssueComment, login: str) -> bool:
        user = comment.user
        if user is None:
            return False
        if user.login.lower() == login.lower():
            return True
        # Renaming the App renames its bot account, and the login cached at start no
        # longer matches what it wrote; the comment still names the App that wrote it.
        if self._integration is None or user.type != "Bot":
            return False
        app = comment.performed_via_github_app
        return app is not None and self._app_id in (str(app.id), app.client_id)

    def _find(
        self, issue: Any, matches: Callable[[IssueComment], bool], since: datetime | None
    ) -> IssueComment | None:
        """Our first comment on the issue that `matches`, created since `since` (None: ever)."""
        login = self.bot_login()
        for c in issue.get_comments():
            recent = since is None or c.created_at is None or c.created_at >= since
            if self._is_ours(c, login) and matches(c) and recent:
                return c
        return None

    def _create(
        self,
        ref: PRRef,
        issue: Any,
        body: str,
        matches: Callable[[IssueComment], bool],
        since: datetime | None,
        look_first: bool = False,
    ) -> IssueComment:
        """POST a comment; after an unclear failure (or first, when asked), look for it
        before posting again."""
        unclear = look_first

        def attempt() -> IssueComment:
            nonlocal unclear
            if unclear and (found := self._find(issue, matches, since)) is not None:
                log.info("comment %s on %s had been created; not posting again", found.id, _pr(ref))
                return found
            try:
                write_asked()
                return issue.create_comment(body)
            except Exception as exc:
                unclear = unclear or may_have_applied(exc)
                raise

        return self._retry.call(f"create a comment on {_pr(ref)}", attempt)

    def _count(self, requester: Requester) -> None:
        """Count every HTTP call of this requester.

        PyGithub has no response hook; every JSON call (objects, PaginatedList)
        goes through `Requester.requestJson`, so wrap it on this instance only.
        """
        inner = requester.requestJson
        prefix = self._prefix

        def counted(
            verb: str, url: str, *args: Any, **kwargs: Any
        ) -> tuple[int, dict[str, Any], str]:
            path = urlsplit(url).path
            route = route_template(path[len(prefix) :] if path.startswith(prefix) else path)
            try:
                status, headers, output = inner(verb, url, *args, **kwargs)
            except requests.exceptions.Timeout:
                self.calls.record(verb, route, "timeout")
                raise
            except TRANSPORT_ERRORS:
                self.calls.record(verb, route, "connection")
                raise
            self.calls.record(verb, route, str(status), headers)
            return status, headers, output

        requester.requestJson = counted  # type: ignore[method-assign]

    def _pace(self, requester: Requester, key: int | str, pacer: Pacer) -> None:
        """Space this requester's calls with the other threads' of the same identity, and
        pause them all on a rate limit answer to any one."""
        inner = requester.requestJson

        def paced(verb: str, *args: Any, **kwargs: Any) -> tuple[int, dict[str, Any], str]:
            pacer.before(verb)
            try:
                status, headers, output = inner(verb, *args, **kwargs)
            finally:
                pacer.after(verb)
            limited = rate_limit_answer(status, headers, output)
            if limited is not None:
                self._retry.met_secondary_streak(
                    pacer.met_secondary_limit() if secondary_limit(limited) else 0
                )
                self._pause(key, pacer, self._retry.asked_wait(limited))
                return status, headers, output
            pacer.answered()
            if (spent := spent_until_reset(headers)) is not None:
                self._pause(key, pacer, spent)
            return status, headers, output

        requester.requestJson = paced  # type: ignore[method-assign]

    def _pause(self, key: int | str, pacer: Pacer, seconds: float) -> None:
        """Pause the identity's calls; said once per pause, not by each waiting thread."""
        news = pacer.pause(seconds)
        self.calls.record_pause(seconds, news=news)
        if news:
            until = datetime.now(UTC) + timedelta(seconds=seconds)
            log.warning(
                "GitHub rate limited %s: no call of it for %.1fs, until %s%s",
                _identity(key),
                seconds,
                until.strftime("%H:%M:%SZ"),
                " (its deliveries wait in the queue until then)"
                if seconds > self.policy.sleep_max
                else "",
            )


# A renamed or transferred repository answers its old name with 301 (GET) or 307 (any
# other method); PyGithub follows 301 only, and takes a 307's body for the answer: a
# comment "created" with no id, nothing posted. Each hop is a counted call.
MOVES = (307, 308)
MAX_MOVES = 3


def _follow_moves(requester: Requester) -> None:
    """Repeat a request GitHub answered 307 or 308 at the Location, as GitHub asks."""
    inner = requester.requestJson

    def following(verb: str, url: str, *args: Any, **kwargs: Any) -> tuple[int, dict, str]:
        for _ in range(1 + MAX_MOVES):  # the request, then each move
            status, headers, output = inner(verb, url, *args, **kwargs)
            location = headers.get("location")
            if status not in MOVES or not location:
                return status, headers, output
            log.info("GitHub: %s %s moved to %s", verb, urlsplit(url).path, location)
            url = location
        raise GithubException(status, output, headers, f"{verb} still moved after {MAX_MOVES}")

    requester.requestJson = following  # type: ignore[method-assign]


_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')


def _next_link(headers: dict[str, Any]) -> str | None:
    """The next page's URL in an answer's Link header; None on the last page."""
    found = _NEXT_LINK.search(str(headers.get("link") or ""))
    return found.group(1) if found else None


def _check_answer(what: str, data: Any, number: int) -> None:
    """GitHub's answer is the PR or issue asked for: a GITHUB_API_URL that is not the API
    (a GitHub Enterprise host without /api/v3) answers every path with a 200 HTML page,
    which PyGithub hands over as `{"data": "<html>..."}`."""
    if not isinstance(data, dict) or data.get("number") != number:
        raise GitHubError(
            f"GitHub {what}: the answer is not that pull request or issue (is GITHUB_API_URL"
            " the API's address, https://HOST/api/v3 for GitHub Enterprise?)"
        )


def _listed_at(contents_url: str | None) -> str:
    """The commit a listed file is of: the `ref` of its `contents_url` ("" when absent)."""
    refs = parse_qs(urlsplit(contents_url or "").query).get("ref")
    return refs[0] if refs else ""


def _pr(ref: PRRef) -> str:
    return f"{ref.repo} PR {ref.number}"

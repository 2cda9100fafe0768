"""A fake GitHub REST API: a real HTTP server on 127.0.0.1 for tests.

PyGithub talks to it through `base_url`, so the whole client stack runs for real:
auth headers, JSON shapes, Link pagination, timeouts, dropped connections.

- State lives in memory: repos, pull requests with their files, issue comments,
  reactions, collaborator permissions, locked conversations, App installations and the
  tokens it issued.
- Auth is checked like GitHub does: App routes want an RS256 JWT signed with the
  App's key (`iss` = App ID); other routes want a token this server issued (and not
  expired) or a configured personal access token (a classic one's answers name its scopes
  in X-OAuth-Scopes, as GitHub's do, and one without `repo` does not see a private
  repository: 404); anything else is 401. An
  installation token may do what the permissions it was minted with cover (403
  otherwise), and none of a suspended installation's may do anything.
  Comments are written as the authenticated identity (`<slug>[bot]`, type Bot,
  for installation tokens).
- Every request is recorded (method, path, query, status, arrival time).
- Faults can be queued per route: an error status with headers/body, a dropped
  connection, or a slow answer.
- Limits as GitHub's: each caller's primary rate limit (always on; `GET /rate_limit`
  tells it and spends none of it), and, opt-in, the
  secondary limit on content creation (`limit_content_creation`: writes past N a minute
  or M an hour refused 403 or 429, with or without Retry-After, until the window moves).
- Webhooks: `send_webhook` POSTs a signed delivery to `webhook_url` (the server under
  test) and logs the attempt, failed when nothing answered 2xx; the App's delivery log
  (`GET /app/hook/deliveries`, cursor pages) lists the attempts and `POST
  .../deliveries/{id}/attempts` answers 202 and sends that payload again, as GitHub
  does, in the background with the same X-GitHub-Delivery.

Shapes follow GitHub's REST description (@octokit/openapi), trimmed to the fields a
client reads; tests/test_fake_conformance.py checks every route's answers against it
(and lists the required fields left out). API URLs in bodies and Link headers carry
this server's exact host and port: PyGithub asserts both before following them.

    with FakeGitHub(app_public_key=pem) as gh:
        gh.add_installation(1001, ["vllm-project/vllm"])
        gh.add_pull("vllm-project/vllm", 7, files=["a.py", ("new.py", "old.py")])
        gh.inject("POST", "/repos/*/issues/*/comments", Fault.error(502))
        ...  # point the code under test at gh.base_url
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import hmac
import json
import math
import re
import secrets
import socket
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import jwt

DEFAULT_APP_ID = 4242
DEFAULT_APP_SLUG = "review-notes"
DEFAULT_INSTALLATION_ID = 1001
DEFAULT_REPO = "vllm-project/vllm"
DEFAULT_REPO_ID = 186853002  # `repository.id` of GitHub's example payloads (tests/webhook_kit)

RATE_LIMIT = 5000
LOCKING_DOCS = "https://docs.github.com/articles/locking-conversations/"
WRITE_ROLES = frozenset({"admin", "maintain", "write"})
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")
# what docs/operating.md's App manifest asks for (default_permissions)
APP_PERMISSIONS = {"issues": "write", "pull_requests": "write", "metadata": "read"}
# what an installation token needs for each route, one of these (github_facts §2.3, from
# GitHub's server-to-server-permissions.json): a comment is either permission's, a
# reaction on an issue comment issues' only, on a review comment pull_requests' only; a
# route left out is refused to every installation token (GET /user is, as on GitHub)
_LEVELS = {"read": 1, "write": 2, "admin": 3}
_NEEDS: dict[str, tuple[tuple[str, str], ...]] = {
    "_get_repo": (("metadata", "read"),),
    "_get_pull": (("pull_requests", "read"),),
    "_list_pull_files": (("pull_requests", "read"),),
    "_get_issue": (("issues", "read"),),
    "_list_comments": (("issues", "read"), ("pull_requests", "read")),
    "_get_comment": (("issues", "read"), ("pull_requests", "read")),
    "_create_comment": (("issues", "write"), ("pull_requests", "write")),
    "_edit_comment": (("issues", "write"), ("pull_requests", "write")),
    "_delete_comment": (("issues", "write"), ("pull_requests", "write")),
    "_react": (("issues", "write"),),
    "_react_review_comment": (("pull_requests", "write"),),
    "_permission": (("metadata", "read"),),
}
FILES_CAP = 3000  # GET .../pulls/{n}/files never lists more than this
COMMENT_MAX = 65536
DOCS = "https://docs.github.com/rest"
MINT_DOCS = (
    "https://docs.github.com/rest/reference/apps#create-an-installation-access-token-for-an-app"
)
SUSPENDED_MESSAGE = "This installation has been suspended"
PRIMARY_MESSAGE = "API rate limit exceeded for installation. Check out the documentation."
SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID."
)
# GitHub's words for the content-creation limit (as met in pl-strflt/projects-migration#2)
CONTENT_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit and have been temporarily blocked from content"
    " creation. Please retry your request again later."
)
SECONDARY_DOCS = (
    "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"
    "#about-secondary-rate-limits"
)


# --- faults -----------------------------------------------------------------


@dataclass
class Fault:
    """What to do instead of (or on top of) the normal answer to one request.

    `status`: answer this status with `body` and `headers` instead of the real one;
    without a status, `headers` go on top of the real answer's (a bad header on a 200).
    `drop`: close the connection without any answer.
    `delay`: wait this long before answering (past the client's timeout: it gives up).
    `apply`: carry out the request first (state changes), then fault; a slow answer
    always applies, as a server that did the work but answered late.
    `reset_in`: with a status, also send x-ratelimit-remaining: 0 and a reset this
    many seconds ahead (a primary rate limit).
    `first`: run this before carrying out the request: another's write that GitHub
    applied while this one was in flight (`landed_after`).
    `raw`: with a status, this body as it is, not JSON (b"": none; a proxy's HTML page).
    `foreign`: with a status, answered as a server that is not GitHub's API (a proxy, a
    web server at a wrong GITHUB_API_URL): none of the headers GitHub puts on every
    answer (X-GitHub-Request-Id, X-GitHub-Media-Type, x-ratelimit-*).
    `trickle`: send the answer, its status line and headers too, one byte every this
    many seconds (a server or a proxy trickling it in: each byte comes before the
    client's timeout, the whole answer long after); the request is carried out first.
    """

    status: int | None = None
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False
    delay: float = 0.0
    apply: bool = False
    reset_in: float | None = None
    first: Callable[[], object] | None = None
    raw: bytes | None = None
    foreign: bool = False
    trickle: float = 0.0

    @classmethod
    def landed_after(cls, first: Callable[[], object]) -> Fault:
        """The request carried out as usual, but only after `first` (a person's edit
        made while ours was in flight, applied by GitHub before ours)."""
        return cls(first=first)

    @classmethod
    def error(cls, status: int = 502, message: str = "Server Error", apply: bool = False) -> Fault:
        return cls(status=status, body={"message": message}, apply=apply)

    @classmethod
    def secondary_rate_limit(cls, retry_after: int | None = None) -> Fault:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return cls(
            status=403,
            body={"message": SECONDARY_MESSAGE, "documentation_url": DOCS},
            headers=headers,
        )

    @classmethod
    def too_many_requests(cls, retry_after: int | None = 1) -> Fault:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        return cls(
            status=429,
            body={"message": SECONDARY_MESSAGE, "documentation_url": DOCS},
            headers=headers,
        )

    @classmethod
    def primary_rate_limit(cls, reset_in: float = 1.0) -> Fault:
        return cls(
            status=403,
            body={"message": PRIMARY_MESSAGE, "documentation_url": DOCS},
            reset_in=reset_in,
        )

    @classmethod
    def bad_credentials(cls) -> Fault:
        """401 as for an expired or revoked token."""
        return cls(status=401, body={"message": "Bad credentials", "documentation_url": DOCS})

    @classmethod
    def not_found(cls) -> Fault:
        return cls(status=404, body={"message": "Not Found", "documentation_url": DOCS})

    @classmethod
    def dropped(cls, apply: bool = False) -> Fault:
        return cls(drop=True, apply=apply)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls(delay=seconds)

    @classmethod
    def trickled(cls, seconds_per_byte: float) -> Fault:
        """The answer as usual, carried out, sent one byte every `seconds_per_byte`."""
        return cls(trickle=seconds_per_byte)


@dataclass(frozen=True)
class Recorded:
    """One request as the server saw it. `status` is None for a dropped connection."""

    method: str
    path: str
    query: dict[str, str]
    status: int | None
    time: float  # time.monotonic() on arrival: for gaps between requests
    wall: float  # time.time() on arrival: to compare with x-ratelimit-reset
    login: str | None  # who it authenticated as ("app" for a JWT), None if nobody
    faulted: bool
    peer: int = 0  # the client's port: calls over one kept-open connection share it
    by_id: bool = False  # asked as /repositories/{id}/...; `path` names the repository


@dataclass
class ContentLimit:
    """GitHub's secondary limit on content-creating requests (github_facts §3.3: "no more
    than 80 content-generating requests per minute and no more than 500 per hour"), per
    caller as its primary limit is counted. A write past it (a POST or PATCH under
    /repos/: a comment created or edited, a reaction) is refused, not carried out, with
    `status` (403 or 429: GitHub sends either) and GitHub's words; with `retry_after`, a
    Retry-After naming when the oldest write in the full window leaves it, else none (as
    GitHub often sends none). A refused write is not counted. `clock`: the windows' time
    (a test's clock, to let a minute pass without waiting it)."""

    per_minute: int = 80
    per_hour: int = 500
    status: int = 403
    retry_after: bool = False
    clock: Callable[[], float] = time.monotonic
    made: dict[str, list[float]] = field(default_factory=dict)  # caller -> its writes' times
    refused: int = 0  # writes refused so far

    def wait(self, caller: str) -> float | None:
        """Seconds until `caller` may write again; None when it may now."""
        now = self.clock()
        times = [t for t in self.made.get(caller, []) if t > now - 3600]
        self.made[caller] = times
        waits = []
        for limit, span in ((self.per_minute, 60.0), (self.per_hour, 3600.0)):
            recent = [t for t in times if t > now - span]
            if len(recent) >= limit:  # full until the write `limit` back leaves it
                waits.append(recent[-limit] + span - now)
        return max(waits) if waits else None

    def refusal(self, wait: float) -> _Reply:
        self.refused += 1
        headers = {"Retry-After": str(max(math.ceil(wait), 1))} if self.retry_after else {}
        body = {"message": CONTENT_LIMIT_MESSAGE, "documentation_url": SECONDARY_DOCS}
        return _Reply(self.status, body, headers)


def _creates_content(method: str, path: str) -> bool:
    return method in ("POST", "PATCH") and path.startswith("/repos/")


# --- state ------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    login: str
    id: int
    type: str = "User"  # "Bot" for an App installation, "Organization" for owners
    installation_id: int | None = None  # set when this is an installation token


@dataclass
class FakeFile:
    filename: str
    status: str = "modified"
    previous_filename: str | None = None
    additions: int = 1
    deletions: int = 1
    patch: str | None = "@@ -1 +1 @@\n-old\n+new"  # None: binary or too large (no patch)


BASE_SHA = "0" * 40  # the base branch's commit of every fake PR


@dataclass
class FakePull:
    number: int
    title: str
    body: str | None
    user: Identity
    files: list[FakeFile]
    labels: list[str]
    draft: bool = False
    head_sha: str = field(default_factory=lambda: secrets.token_hex(20))
    base_ref: str = "master"  # the branch of @octokit/webhooks-examples' PR payloads
    closed: bool = False  # closed (not merged): its state and closed_at say so


@dataclass
class FakeComment:
    id: int
    repo: str
    number: int
    body: str
    user: Identity
    created_at: float
    updated_at: float


@dataclass
class FakeReaction:
    id: int
    content: str
    user: Identity
    created_at: float


@dataclass
class FakeRepo:
    full_name: str
    id: int
    pulls: dict[int, FakePull] = field(default_factory=dict)
    issues: set[int] = field(default_factory=set)  # every PR number is an issue number too
    permissions: dict[str, str] = field(default_factory=dict)  # login -> role name
    default_permission: str = "read"  # public repo: anyone can read
    locked: dict[int, str | None] = field(default_factory=dict)  # issue number -> lock reason
    # GitHub lets any installation's token read a public repository's data; only the
    # installations holding it may write there (403 "not accessible by integration")
    public: bool = False


@dataclass
class FakeInstallation:
    id: int
    account: str
    repos: set[str]
    suspended_at: float | None = None  # an owner suspended the App here (`suspend`)
    # what its owner granted the App: tokens minted from now on carry it (`set_permissions`)
    permissions: dict[str, str] = field(default_factory=lambda: dict(APP_PERMISSIONS))


@dataclass
class FakeHookDelivery:
    """One attempt to deliver a webhook, as the App's delivery log lists it."""

    id: int
    guid: str  # X-GitHub-Delivery: the same for every attempt of one event
    event: str
    action: str | None
    body: bytes
    delivered_at: float
    status_code: int  # 0: nothing answered (GitHub's "failed to connect")
    redelivery: bool
    installation_id: int | None
    repository_id: int | None


@dataclass
class _Token:
    identity: Identity
    expires_at: float | None  # epoch seconds; None: never (a personal access token)
    # an installation token's, fixed when it was minted; None: a user's token (its roles)
    permissions: dict[str, str] | None = None
    # a classic token's scopes, told in X-OAuth-Scopes of every answer to it; None: a
    # fine-grained token or an installation's, which GitHub sends no such header for
    scopes: tuple[str, ...] | None = None


@dataclass
class _Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None  # sent as it is instead of `body` as JSON
    foreign: bool = False  # not GitHub's: none of GitHub's headers (Fault.foreign)


class _HTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        docs: str = DOCS,
        errors: list[dict[str, str]] | None = None,
    ):
        super().__init__(message)
        body: dict[str, Any] = {"message": message, "documentation_url": docs}
        if errors is not None:  # a 422's validation-error: what failed, field by field
            body["errors"] = errors
        self.reply = _Reply(status, body)


def iso_time(epoch: float) -> str:
    """A time as GitHub writes it in payloads."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch))


def _rate_bucket(who: Identity | None) -> str:
    """Whose primary rate limit a call spends, as GitHub counts it: an installation
    token's is its installation's (every installation's token has the App's one bot
    login, yet each installation has its own calls), a user's token its login's, and the
    App's JWT the App's one."""
    if who is None:
        return "app"
    if who.installation_id is not None:
        return f"installation {who.installation_id}"
    return who.login


def _node_id(kind: str, number: int) -> str:
    return base64.b64encode(f"0:{kind}{number}".encode()).decode()


# --- the server -------------------------------------------------------------

_OWNER_REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
_JWT, _TOKEN = "jwt", "token"
_ROUTES: list[tuple[str, re.Pattern[str], str, str]] = [
    (method, re.compile(pattern), handler, auth)
    for method, pattern, handler, auth in [
        ("GET", r"/app", "_get_app", _JWT),
        ("POST", r"/app/installations/(?P<iid>\d+)/access_tokens", "_post_access_token", _JWT),
        ("GET", r"/app/hook/deliveries", "_list_hook_deliveries", _JWT),
        ("POST", r"/app/hook/deliveries/(?P<did>\d+)/attempts", "_redeliver", _JWT),
        ("GET", _OWNER_REPO + r"/installation", "_get_repo_installation", _JWT),
        ("GET", r"/user", "_get_user", _TOKEN),
        ("GET", r"/rate_limit", "_get_rate_limit", _TOKEN),
        ("GET", _OWNER_REPO, "_get_repo", _TOKEN),
        ("GET", _OWNER_REPO + r"/pulls/(?P<number>\d+)", "_get_pull", _TOKEN),
        ("GET", _OWNER_REPO + r"/pulls/(?P<number>\d+)/files", "_list_pull_files", _TOKEN),
        ("GET", _OWNER_REPO + r"/issues/(?P<number>\d+)", "_get_issue", _TOKEN),
        ("GET", _OWNER_REPO + r"/issues/(?P<number>\d+)/comments", "_list_comments", _TOKEN),
        ("POST", _OWNER_REPO + r"/issues/(?P<number>\d+)/comments", "_create_comment", _TOKEN),
        ("GET", _OWNER_REPO + r"/issues/comments/(?P<cid>\d+)", "_get_comment", _TOKEN),
        ("PATCH", _OWNER_REPO + r"/issues/comments/(?P<cid>\d+)", "_edit_comment", _TOKEN),
        ("DELETE", _OWNER_REPO + r"/issues/comments/(?P<cid>\d+)", "_delete_comment", _TOKEN),
        ("POST", _OWNER_REPO + r"/issues/comments/(?P<cid>\d+)/reactions", "_react", _TOKEN),
        (
            "POST",
            _OWNER_REPO + r"/pulls/comments/(?P<cid>\d+)/reactions",
            "_react_review_comment",
            _TOKEN,
        ),
        ("GET", _OWNER_REPO + r"/collaborators/(?P<login>[^/]+)/permission", "_permission", _TOKEN),
    ]
]

# Routes no call is counted for, answered even once the caller's calls are spent: GitHub's
# GET /rate_limit "does not count against your REST API rate limit" (github_facts §3.2)
_FREE_PATHS = frozenset({"/rate_limit"})


# GitHub's answers (401) refusing an App's JWT
_UNDECODED = "A JSON web token could not be decoded"
_IAT_REFUSED = (
    "'Issued at' claim ('iat') must be an Integer representing the time that the assertion"
    " was issued"
)
_EXP_REFUSED = (
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at"
    " which the assertion expires"
)
_EXP_TOO_FAR = "'Expiration time' claim ('exp') is too far in the future"


class FakeGitHub:
    """In-memory GitHub with a real HTTP front. Start with `start()` or `with`."""

    def __init__(
        self,
        *,
        app_public_key: str | None = None,
        app_id: int = DEFAULT_APP_ID,
        app_slug: str = DEFAULT_APP_SLUG,
        client_id: str = "Iv1.fakeclientid",
        token_ttl: float = 3600.0,
    ):
        self.app_id = app_id
        self.app_slug = app_slug
        self.client_id = client_id
        self.app_public_key = app_public_key
        self.token_ttl = token_ttl  # lifetime of installation tokens issued from now on
        self.bot = Identity(f"{app_slug}[bot]", 10_000_000 + app_id, "Bot")
        self._lock = threading.RLock()
        self._repos: dict[str, FakeRepo] = {}
        self._installations: dict[int, FakeInstallation] = {}
        self._tokens: dict[str, _Token] = {}
        self._comments: dict[int, FakeComment] = {}
        self._review_comments: dict[int, FakeComment] = {}  # on a diff line
        self._reactions: dict[int, list[FakeReaction]] = {}
        self._users: dict[str, Identity] = {}
        self._faults: list[tuple[str, str, dict[str, str], deque[Fault]]] = []
        self._requests: list[Recorded] = []
        self._used: dict[str, int] = {}
        self._used_at_least = 0  # spend_rate_limit: what every caller has used already
        self._window_reset = int(time.time()) + 3600
        # calls per caller and hour (see _rate_bucket), counted in the x-ratelimit-* headers
        # of every answer: like GitHub, a call past them is refused (403, remaining 0) until
        # the reset
        self.rate_limit = RATE_LIMIT
        self.rate_resource = "core"
        self._next_id = 1000
        # a renamed or transferred repository's old name -> where it redirects to:
        # /repositories/{id}, as GitHub does, or /repos/{new} (transfer's to="name")
        self._moved: dict[str, str] = {}
        self._read_only: set[str] = set()  # tokens minted before a permission was granted
        self._no_write = False  # the App's write permission taken away: new tokens lack it
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        # where the App's webhooks go (the server under test) and what signs them
        self.webhook_url: str | None = None
        self.webhook_secret = ""
        self._hook_deliveries: list[FakeHookDelivery] = []
        self.content_limit: ContentLimit | None = None  # `limit_content_creation`
        # `lag_comment_lists`: how long a new comment stays out of its issue's lists, and
        # per comment still out, until when (monotonic) and for how many more lists
        self._list_lag: tuple[float, int] = (0.0, 0)
        self._unlisted: dict[int, list[float]] = {}
        # GitHub's clock minus this host's: a server whose clock is wrong, seen from GitHub
        # (the App's JWT times, every answer's Date header, and its comments' times are GitHub's)
        self.clock_offset = 0.0

    # --- lifecycle ----------------------------------------------------------

    def start(self, port: int = 0) -> FakeGitHub:
        """Serve on 127.0.0.1:`port` (0: a free one, as the tests take)."""
        self._server = _Server(self, port)
        # a short poll keeps stop() quick (shutdown waits for the loop to notice)
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), name="fake-github", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.close_all()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the fake first"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """What to give PyGithub as base_url (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    # --- state set-up -------------------------------------------------------

    def add_repo(self, full_name: str) -> FakeRepo:
        with self._lock:
            if full_name not in self._repos:
                self._repos[full_name] = FakeRepo(full_name, self._repo_id(full_name))
            return self._repos[full_name]

    def transfer(self, old: str, new: str, *, to: Literal["id", "name"] = "id") -> None:
        """Rename or transfer a repository as GitHub does: its data moves to `new`, and
        the old name answers with redirects, 301 for GET and 307 for every other method
        (the client repeats the request at the Location), to the repository's id route
        `/repositories/{id}/...`, as GitHub's are (docs/internals.md), and `new` is
        its own name again should it have had it before. `to="name"`: to `/repos/{new}/...`
        instead, and `new` keeps any redirect of its own, for a chain of moves (each
        old name to the next) or a loop."""
        with self._lock:
            repo = self._repos.pop(old)
            repo.full_name = new
            self._repos[new] = repo
            for c in (*self._comments.values(), *self._review_comments.values()):
                if c.repo == old:
                    c.repo = new
            for inst in self._installations.values():
                if old in inst.repos:
                    inst.repos.discard(old)
                    inst.repos.add(new)
            if to == "id":
                self._moved.pop(new, None)
            self._moved[old] = f"/repositories/{repo.id}" if to == "id" else f"/repos/{new}"

    def take_name(self, name: str, repo_id: int | None = None) -> FakeRepo:
        """A new repository takes the name a transfer left (`repo_id`: its id, as its
        events carry it), in the same installation: the name redirects no more. A name
        that redirects nowhere (never used) is free to take as well, as on GitHub; one a
        repository holds is not."""
        with self._lock:
            if name in self._repos:
                raise ValueError(f"{name} is a repository's name: no new one takes it")
            self._moved.pop(name, None)
            self._installations[DEFAULT_INSTALLATION_ID].repos.add(name)
        repo = self.add_repo(name)
        if repo_id is not None:
            repo.id = repo_id
        return repo

    def _moved_reply(self, method: str, path: str) -> _Reply | None:
        for old, to in self._moved.items():
            prefix = f"/repos/{old}"
            if path == prefix or path.startswith(prefix + "/"):
                location = self._api(f"{to}{path[len(prefix) :]}")
                body = {"message": "Moved Permanently", "url": location, "documentation_url": DOCS}
                return _Reply(301 if method == "GET" else 307, body, {"Location": location})
        return None

    def add_installation(
        self, installation_id: int = DEFAULT_INSTALLATION_ID, repos: Sequence[str] = ()
    ) -> FakeInstallation:
        with self._lock:
            for repo in repos:
                self.add_repo(repo)
            account = repos[0].split("/")[0] if repos else "someone"
            inst = FakeInstallation(installation_id, account, set(repos))
            self._installations[installation_id] = inst
            return inst

    def add_pull(
        self,
        repo: str,
        number: int,
        *,
        files: Sequence[str | tuple[str, str] | FakeFile] = (),
        title: str = "A pull request",
        body: str | None = "",
        author: str = "contributor",
        labels: Sequence[str] = (),
        draft: bool = False,
    ) -> FakePull:
        """A PR; a file is a path, a (new path, old path) rename, or a FakeFile."""
        with self._lock:
            pr = FakePull(
                number,
                title,
                body,
                self.user(author),
                [_file(f) for f in files],
                list(labels),
                draft,
            )
            r = self.add_repo(repo)
            r.pulls[number] = pr
            r.issues.add(number)
            return pr

    def add_issue(self, repo: str, number: int) -> None:
        with self._lock:
            self.add_repo(repo).issues.add(number)

    def lock(self, repo: str, number: int, reason: str | None = None) -> None:
        """Lock the conversation of an issue or PR: from then on only collaborators with
        write access may comment there (an App's installation is refused), and nobody may
        react ("Reactions and votes in a locked conversation are disabled for all users",
        GitHub's docs on locking conversations)."""
        with self._lock:
            self._repos[repo].locked[number] = reason

    def unlock(self, repo: str, number: int) -> None:
        with self._lock:
            self._repos[repo].locked.pop(number, None)

    def add_comment(
        self,
        repo: str,
        number: int,
        body: str,
        *,
        login: str = "someone",
        bot: bool = False,
        comment_id: int | None = None,
    ) -> FakeComment:
        """A comment written by someone else (a user, or another bot with `bot=True`);
        `comment_id`: the id a payload names it by (scripts/fake_github.py seeds
        examples/' comment)."""
        with self._lock:
            who = self.user(login, "Bot" if bot else "User")
            self.add_repo(repo).issues.add(number)
            return self._store_comment(repo, number, body, who, comment_id)

    def pull(self, repo: str, number: int) -> FakePull:
        with self._lock:
            return self._repos[repo].pulls[number]

    def add_review_comment(
        self, repo: str, number: int, body: str, *, login: str = "someone"
    ) -> FakeComment:
        """A comment on a line of the PR's diff (its own id space and reactions route)."""
        with self._lock:
            who = self.user(login)
            self.add_repo(repo).issues.add(number)
            now = time.time()
            c = FakeComment(self._new_id(), repo, number, body, who, now, now)
            self._review_comments[c.id] = c
            return c

    def set_permission(self, repo: str, login: str, role: str) -> None:
        """Role name: admin, maintain, write, triage, read (or none)."""
        with self._lock:
            self.user(login)
            self.add_repo(repo).permissions[login.lower()] = role

    def add_pat(self, token: str, login: str, scopes: Sequence[str] | None = None) -> Identity:
        """A personal access token acting as `login`: a classic one with `scopes` (() for
        none), which every answer to it names in X-OAuth-Scopes, as GitHub's do; without
        them a fine-grained one, whose permissions no header tells. Either may do what
        `login` may, except that a classic one without `repo` does not see a private
        repository (not `public`): 404 to its reads and writes, as GitHub hides one; its
        other scopes are told, not enforced."""
        with self._lock:
            who = self.user(login)
            self._tokens[token] = _Token(who, None, scopes=None if scopes is None else (*scopes,))
            return who

    def user(self, login: str, type: str = "User") -> Identity:
        with self._lock:
            if login.lower() not in self._users:
                self._users[login.lower()] = Identity(login, self._new_id(), type)
            return self._users[login.lower()]

    def expire_tokens(self) -> int:
        """Expire every installation token issued so far (as after an hour); return how many."""
        with self._lock:
            issued = [t for t in self._tokens.values() if t.identity.installation_id is not None]
            for t in issued:
                t.expires_at = time.time() - 1
            return len(issued)

    def rename_app(self, slug: str) -> None:
        """Rename the App: its bot account `<slug>[bot]` is renamed (same user id), so
        the comments it wrote and its tokens show the new login."""
        with self._lock:
            old = self.bot
            self.app_slug = slug
            self.bot = Identity(f"{slug}[bot]", old.id, "Bot")
            for c in (*self._comments.values(), *self._review_comments.values()):
                if c.user.id == old.id:
                    c.user = self.bot
            for t in self._tokens.values():
                if t.identity.id == old.id:
                    t.identity = Identity(self.bot.login, old.id, "Bot", t.identity.installation_id)

    def grant_write_to_new_tokens(self) -> None:
        """The App had no write permission and an owner has just accepted it: tokens
        minted until now keep what they were minted with (GitHub lists a token's
        permissions when it mints it), so their writes are refused; new ones may write."""
        with self._lock:
            self._read_only |= {
                t for t, v in self._tokens.items() if v.identity.installation_id is not None
            }

    def revoke_write(self) -> None:
        """The App's owner has reduced its permissions: every installation token, those
        minted from now on too, is refused its writes on repositories."""
        with self._lock:
            self._no_write = True
            self._read_only |= {
                t for t, v in self._tokens.items() if v.identity.installation_id is not None
            }

    def send_webhook(
        self, event: str, payload: dict[str, Any], guid: str | None = None
    ) -> FakeHookDelivery:
        """Deliver an event to `webhook_url` now and log the attempt (failed when the
        server is down: GitHub does not try again by itself)."""
        body = json.dumps(payload).encode()
        return self._deliver(guid or secrets.token_hex(16), event, body, redelivery=False)

    def hook_deliveries(self, guid: str | None = None) -> list[FakeHookDelivery]:
        """The delivery log, oldest first (only `guid`'s attempts when given)."""
        with self._lock:
            return [d for d in self._hook_deliveries if guid in (None, d.guid)]

    def _deliver(self, guid: str, event: str, body: bytes, *, redelivery: bool) -> FakeHookDelivery:
        """POST one signed attempt to `webhook_url`, then log it. Not under the lock: the
        server under test calls this fake back while it answers."""
        status = self._post_webhook(guid, event, body)
        payload = json.loads(body)
        repo = payload.get("repository") or {}
        with self._lock:
            attempt = FakeHookDelivery(
                id=self._new_id(),
                guid=guid,
                event=event,
                action=payload.get("action"),
                body=body,
                delivered_at=time.time(),
                status_code=status,
                redelivery=redelivery,
                installation_id=(payload.get("installation") or {}).get("id"),
                repository_id=repo.get("id"),
            )
            self._hook_deliveries.append(attempt)
        return attempt

    def _post_webhook(self, guid: str, event: str, body: bytes) -> int:
        """The status the webhook URL answered; 0 when nothing did."""
        if self.webhook_url is None:
            return 0
        request = webhook_request(self.webhook_url, event, guid, body, self.webhook_secret)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as refused:
            return refused.code
        except OSError:  # connection refused, timed out: the server is down
            return 0

    def uninstall(self, installation_id: int) -> None:
        """Uninstall the App from an installation: its tokens stop working at once."""
        with self._lock:
            del self._installations[installation_id]
            for t in self._tokens.values():
                if t.identity.installation_id == installation_id:
                    t.expires_at = time.time() - 1

    def set_permissions(self, installation_id: int, permissions: dict[str, str]) -> None:
        """What the installation's owner has granted the App (e.g. only `pull_requests:
        write`, without the `issues: write` a reaction on an issue comment needs). Tokens
        minted from now on carry it; one minted before keeps what it was minted with."""
        with self._lock:
            self._installations[installation_id].permissions = dict(permissions)

    def suspend(self, installation_id: int) -> None:
        """An owner suspends the App's installation: GitHub refuses to mint its tokens (403
        "This installation has been suspended", as octokit.rb's InstallationSuspended and
        Renovate, Mergify and Allstar met it) and the App may not act there, so tokens
        minted before are refused so too; looking the installation up still finds it,
        with `suspended_at` set."""
        with self._lock:
            self._installations[installation_id].suspended_at = time.time()

    def unsuspend(self, installation_id: int) -> None:
        with self._lock:
            self._installations[installation_id].suspended_at = None

    def take_off(self, full_name: str, installation_id: int = DEFAULT_INSTALLATION_ID) -> None:
        """An owner takes the repository off the App's installation ("only select
        repositories"): its tokens no longer see a private one (404), nor write to a
        public one (403), and finding its installation answers 404."""
        with self._lock:
            self._installations[installation_id].repos.discard(full_name)

    def delete_repo(self, full_name: str) -> None:
        """An owner deletes the repository: every call on it, and finding its
        installation, is answered 404 (the installation stays)."""
        with self._lock:
            del self._repos[full_name]
            for inst in self._installations.values():
                inst.repos.discard(full_name)

    # --- state read-back ----------------------------------------------------

    def comments(self, repo: str, number: int) -> list[FakeComment]:
        with self._lock:
            found = [c for c in self._comments.values() if c.repo == repo and c.number == number]
            return sorted(found, key=lambda c: c.id)

    def comment(self, comment_id: int) -> FakeComment | None:
        with self._lock:
            return self._comments.get(comment_id)

    def delete_comment(self, comment_id: int) -> None:
        """A person deletes a comment, with no request of ours: gone from the list and
        by its id (404)."""
        with self._lock:
            del self._comments[comment_id]
            self._reactions.pop(comment_id, None)

    def set_body(self, comment_id: int, body: str) -> None:
        """A comment's text changed with no request of ours (a person's edit, GitHub's
        own trimming): what the next list or GET shows."""
        with self._lock:
            self._comments[comment_id].body = body

    def reactions(self, comment_id: int) -> list[FakeReaction]:
        with self._lock:
            return list(self._reactions.get(comment_id, []))

    # --- faults and records -------------------------------------------------

    def inject(
        self, method: str, path: str, *faults: Fault, query: dict[str, str] | None = None
    ) -> None:
        """Queue faults for the next requests matching `method` ("*": any), the path
        glob `path` (fnmatch: "*" spans slashes) and, if given, these query values
        (e.g. {"page": "2"}). Each fault is used once, in order."""
        with self._lock:
            self._faults.append((method.upper(), path, dict(query or {}), deque(faults)))

    def clear_faults(self) -> None:
        """Drop every fault still queued: GitHub answers again (an outage's end)."""
        with self._lock:
            self._faults.clear()

    def pending_faults(self) -> int:
        with self._lock:
            return sum(len(q) for *_, q in self._faults)

    @property
    def requests(self) -> list[Recorded]:
        with self._lock:
            return list(self._requests)

    def calls(self, method: str | None = None, path: str | None = None) -> list[Recorded]:
        """Recorded requests, filtered by method and path glob."""
        return [
            r
            for r in self.requests
            if (method is None or r.method == method.upper())
            and (path is None or fnmatch.fnmatchcase(r.path, path))
        ]

    def limit_content_creation(
        self,
        per_minute: int = 80,
        per_hour: int = 500,
        *,
        status: int = 403,
        retry_after: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> ContentLimit:
        """From now on, refuse each caller's writes past GitHub's content-creation limit
        (`ContentLimit`); off by default, as every other fault."""
        with self._lock:
            self.content_limit = ContentLimit(per_minute, per_hour, status, retry_after, clock)
            return self.content_limit

    def spend_rate_limit(self, leave: int = 0) -> None:
        """Every caller has only `leave` calls left in this window: the call after them is
        refused as GitHub refuses it, until `reset_rate_limit` (or the hour's reset)."""
        with self._lock:
            self._used_at_least = self.rate_limit - leave

    def reset_rate_limit(self) -> None:
        """A new window: every caller has `rate_limit` calls again."""
        with self._lock:
            self._used.clear()
            self._used_at_least = 0
            self._window_reset = int(time.time()) + 3600

    def _calls_used(self, key: str) -> int:
        with self._lock:
            if time.time() >= self._window_reset:
                self.reset_rate_limit()
            return max(self._used.get(key, 0), self._used_at_least)

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    # --- request handling ---------------------------------------------------

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        arrived, wall = time.monotonic(), time.time()
        method = handler.command
        split = urlsplit(handler.path)
        path, query = split.path, dict(parse_qsl(split.query))
        path, by_id = self._by_name(path)
        asked = split.path
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        fault = self._take_fault(method, path, query)
        if fault is not None and fault.first is not None:
            fault.first()
        reply, login, bucket = _Reply(500), None, None
        if fault is None or fault.apply or (fault.status is None and not fault.drop):
            # (a trickled answer is carried out: its status is None)
            authz = handler.headers.get("Authorization", "")
            reply, login, bucket = self._dispatch(method, path, query, raw, authz, by_id)
            reply = self._with_scopes(reply, authz)
        if fault is not None and fault.status is not None:
            reply = self._fault_reply(fault)
        elif fault is not None and fault.headers:
            reply = _Reply(reply.status, reply.body, {**reply.headers, **fault.headers})
        if by_id and "Link" in reply.headers:  # GitHub's pages of an id route: by the id
            link = reply.headers["Link"].replace(self._api(path) + "?", self._api(asked) + "?")
            reply = _Reply(reply.status, reply.body, {**reply.headers, "Link": link})
        status = None if fault is not None and fault.drop else reply.status
        with self._lock:
            self._requests.append(
                Recorded(
                    method,
                    path,
                    query,
                    status,
                    arrived,
                    wall,
                    login,
                    fault is not None,
                    handler.client_address[1],
                    by_id,
                )
            )
        if fault is not None and fault.drop:
            handler.close_connection = True
            return
        if fault is not None and fault.delay:
            time.sleep(fault.delay)
        trickle = fault.trickle if fault is not None else 0.0
        self._send(handler, reply, bucket, spends=path not in _FREE_PATHS, trickle=trickle)

    def _by_name(self, path: str) -> tuple[str, bool]:
        """GitHub serves every /repos/{owner}/{repo}/... route under /repositories/{id}/...
        too (a rename keeps the id): the path as its repository's current name, and whether
        it was asked by id. Faults and recorded requests see the name. An unknown id is
        left as asked (no route: 404)."""
        found = re.fullmatch(r"/repositories/(\d+)(/.*)?", path)
        if found is None:
            return path, False
        with self._lock:
            named = [r.full_name for r in self._repos.values() if r.id == int(found[1])]
        if not named:
            return path, True
        return f"/repos/{named[0]}{found[2] or ''}", True

    def _with_scopes(self, reply: _Reply, authz: str) -> _Reply:
        """`reply` with X-OAuth-Scopes when a classic token asked (GitHub names its scopes
        on every answer to one it took, its errors too); a refused token's has none."""
        with self._lock:
            token = self._tokens.get(authz.partition(" ")[2])
        if token is None or token.scopes is None or reply.status == 401:
            return reply
        return replace(reply, headers={"X-OAuth-Scopes": ", ".join(token.scopes), **reply.headers})

    def _take_fault(self, method: str, path: str, query: dict[str, str]) -> Fault | None:
        with self._lock:
            for want_method, glob, want_query, queue in self._faults:
                if (
                    queue
                    and want_method in ("*", method)
                    and fnmatch.fnmatchcase(path, glob)
                    and all(query.get(k) == v for k, v in want_query.items())
                ):
                    return queue.popleft()
            return None

    def _fault_reply(self, fault: Fault) -> _Reply:
        headers = dict(fault.headers)
        if fault.reset_in is not None:
            headers["x-ratelimit-remaining"] = "0"
            headers["x-ratelimit-reset"] = str(math.ceil(time.time() + fault.reset_in))
        body = fault.body if fault.body is not None else {"message": "fault"}
        return _Reply(fault.status or 500, body, headers, fault.raw, fault.foreign)

    def _dispatch(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        raw: bytes,
        authz: str,
        by_id: bool = False,
    ) -> tuple[_Reply, str | None, str | None]:
        """The reply, the caller's login (recorded) and its rate-limit bucket. `by_id`:
        asked as /repositories/{id}/..., `path` its name now: served, never redirected."""
        login = bucket = None
        try:
            with self._lock:
                moved = None if by_id else self._moved_reply(method, path)
            if moved is not None:
                return moved, login, bucket
            with self._lock:
                read_only = authz.partition(" ")[2] in self._read_only
            if (read_only or self._foreign_write(method, path, authz)) and (
                method not in ("GET", "HEAD") and path.startswith("/repos/")
            ):
                body = {
                    "message": "Resource not accessible by integration",
                    "documentation_url": DOCS,
                }
                return _Reply(403, body), login, bucket
            for want, pattern, handler_name, auth in _ROUTES:
                match = pattern.fullmatch(path)
                if match is None or want != method:
                    continue
                who = self._authenticate(authz, auth)
                login = "app" if who is None else who.login
                bucket = _rate_bucket(who)
                spent = self._calls_used(bucket) >= self.rate_limit
                if spent and path not in _FREE_PATHS:
                    # github_facts §3.2: 403 with x-ratelimit-remaining: 0 (see _rate_headers)
                    return self._over_rate_limit(who), login, bucket
                # GitHub decodes a path segment's %-escapes ("dependabot%5Bbot%5D")
                params = {k: unquote(v) for k, v in match.groupdict().items()}
                if "owner" in params and self._hidden_by_scopes(authz, params):
                    raise _HTTPError(404, "Not Found")
                if not self._permitted(authz, handler_name):
                    if "owner" in params:  # a repository the token cannot see: 404 first
                        with self._lock:
                            self._repo_for(who, params)
                    body = {
                        "message": "Resource not accessible by integration",
                        "documentation_url": DOCS,
                    }
                    return _Reply(403, body), login, bucket
                body = json.loads(raw) if raw else {}
                if method != "GET" and _lone_surrogate(body):
                    # json.loads reads a `\ud800` escape; GitHub refuses text that is no
                    # Unicode (no UTF-8 encodes it) rather than store it
                    refused = {"message": "Invalid request: not Unicode", "documentation_url": DOCS}
                    return _Reply(422, refused), login, bucket
                with self._lock:
                    limit = self.content_limit if _creates_content(method, path) else None
                    if limit is not None and (wait := limit.wait(bucket)) is not None:
                        return limit.refusal(wait), login, bucket
                    reply = getattr(self, handler_name)(who, params, query, body)
                    if limit is not None and reply.status < 300:
                        limit.made.setdefault(bucket, []).append(limit.clock())
                    return reply, login, bucket
            raise _HTTPError(404, "Not Found")
        except _HTTPError as exc:
            return exc.reply, login, bucket
        except json.JSONDecodeError:
            reply = _Reply(400, {"message": "Problems parsing JSON", "documentation_url": DOCS})
            return reply, login, bucket
        except Exception:  # a bug in the fake: show it, answer 500 rather than hang
            traceback.print_exc(file=sys.stderr)
            return _Reply(500, {"message": "fake server error"}), login, bucket

    def _permitted(self, authz: str, handler_name: str) -> bool:
        """Whether the token's permissions allow the route (a user's token: always)."""
        with self._lock:
            token = self._tokens.get(authz.partition(" ")[2])
        granted = token.permissions if token is not None else None
        if granted is None:
            return True
        return any(
            _LEVELS.get(granted.get(name, ""), 0) >= _LEVELS[level]
            for name, level in _NEEDS.get(handler_name, ())
        )

    def _hidden_by_scopes(self, authz: str, params: dict[str, str]) -> bool:
        """A private repository asked for with a classic token without `repo`: GitHub
        hides it (404), as from anyone who may not see it; `public_repo` reaches public
        repositories only."""
        with self._lock:
            token = self._tokens.get(authz.partition(" ")[2])
            repo = self._repos.get(f"{params['owner']}/{params['name']}")
        if token is None or token.scopes is None or repo is None:
            return False
        return not repo.public and "repo" not in token.scopes

    def _over_rate_limit(self, who: Identity | None) -> _Reply:
        message = PRIMARY_MESSAGE
        if who is not None and who.installation_id is None:  # a user's token
            message = f"API rate limit exceeded for user ID {who.id}."
        return _Reply(403, {"message": message, "documentation_url": DOCS})

    def _authenticate(self, authz: str, kind: str) -> Identity | None:
        """The token's identity, or None for a valid App JWT; 401 otherwise."""
        scheme, _, credential = authz.partition(" ")
        if kind == _JWT:
            refused = self._jwt_refusal(credential) if scheme.lower() == "bearer" else _UNDECODED
            if refused is not None:
                raise _HTTPError(401, refused)
            return None
        with self._lock:
            token = self._tokens.get(credential) if scheme.lower() in ("token", "bearer") else None
            if token is None or (token.expires_at is not None and token.expires_at <= time.time()):
                raise _HTTPError(401, "Bad credentials")
            inst = self._installations.get(token.identity.installation_id or 0)
            if inst is not None and inst.suspended_at is not None:
                raise _HTTPError(403, SUSPENDED_MESSAGE)
            return token.identity

    def now(self) -> float:
        """GitHub's time (`clock_offset` from this host's): its JWT checks, Date headers, and
        the times of the comments and reactions it makes."""
        return time.time() + self.clock_offset

    def _jwt_refusal(self, credential: str) -> str | None:
        """GitHub's words refusing the App's JWT, or None when it is good."""
        if self.app_public_key is None:
            return _UNDECODED
        try:
            claims = jwt.decode(
                credential,
                self.app_public_key,
                algorithms=["RS256"],
                # its times are judged by GitHub's clock, below
                options={
                    "require": ["iat", "exp", "iss"],
                    "verify_exp": False,
                    "verify_iat": False,
                },
            )
        except jwt.PyJWTError:
            return _UNDECODED
        now = self.now()
        # GitHub: issued in the past, expiring in the future, at most 10 minutes ahead
        if claims["iat"] > now:
            return _IAT_REFUSED
        if claims["exp"] <= now:
            return _EXP_REFUSED
        if claims["exp"] - now > 660:
            return _EXP_TOO_FAR
        # iss: the App ID or client ID
        if str(claims["iss"]) not in (str(self.app_id), self.client_id):
            return _UNDECODED
        return None

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        reply: _Reply,
        bucket: str | None,
        spends: bool,
        trickle: float = 0.0,
    ) -> None:
        data = b"" if reply.body is None else json.dumps(reply.body).encode()
        kind = "application/json"
        if reply.raw is not None:
            data, kind = reply.raw, "text/html" if reply.raw.startswith(b"<") else kind
        # GitHub's API puts these on every answer, its errors too
        github = {
            "X-GitHub-Request-Id": secrets.token_hex(8).upper(),
            "X-GitHub-Media-Type": "github.v3; format=json",
            **self._rate_headers(bucket, spends),
        }
        headers = {
            "Content-Type": f"{kind}; charset=utf-8",
            "Content-Length": str(len(data)),
            **({} if reply.foreign else github),
            **reply.headers,
        }
        if trickle:
            self._trickle(handler, reply.status, headers, data, trickle)
            return
        try:
            handler.send_response(reply.status)
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
            handler.wfile.flush()
        except OSError:  # the client gave up (timeout) and closed its end
            handler.close_connection = True

    def _trickle(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        headers: dict[str, str],
        data: bytes,
        seconds: float,
    ) -> None:
        """The whole answer, one byte every `seconds`, until the client gives up."""
        lines = [f"{handler.protocol_version} {status} {HTTPStatus(status).phrase}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        answer = ("\r\n".join(lines) + "\r\n\r\n").encode() + data
        handler.close_connection = True
        for i in range(len(answer)):
            try:
                handler.wfile.write(answer[i : i + 1])
            except OSError:  # the client gave up and closed its end
                return
            time.sleep(seconds)

    def _rate_headers(self, bucket: str | None, spends: bool = True) -> dict[str, str]:
        with self._lock:
            key = bucket or "anonymous"
            # a refused call is not counted: used stays at the limit, remaining at 0
            used = self._calls_used(key) + spends
            used = self._used[key] = min(used, max(self.rate_limit, 0))
        return {
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(max(self.rate_limit - used, 0)),
            "x-ratelimit-reset": str(self._window_reset),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": self.rate_resource,
        }

    # --- JSON shapes --------------------------------------------------------

    def _api(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _user_json(self, who: Identity) -> dict[str, Any]:
        return {
            "login": who.login,
            "id": who.id,
            "node_id": _node_id("User", who.id),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{who.id}?v=4",
            "gravatar_id": "",
            "url": self._api(f"/users/{quote(who.login)}"),
            "html_url": f"https://github.com/{quote(who.login)}",
            "type": who.type,
            "site_admin": False,
        }

    def _app_json(self) -> dict[str, Any]:
        return {
            "id": self.app_id,
            "slug": self.app_slug,
            "client_id": self.client_id,
            "node_id": _node_id("Integration", self.app_id),
            "owner": self._user_json(self.user("app-owner", "Organization")),
            "name": self.app_slug,
            "description": "",
            "external_url": "https://example.com",
            "html_url": f"https://github.com/apps/{self.app_slug}",
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "permissions": dict(APP_PERMISSIONS),
            "events": ["pull_request", "issue_comment"],
        }

    def _installation_json(self, inst: FakeInstallation) -> dict[str, Any]:
        return {
            "id": inst.id,
            "account": self._user_json(self.user(inst.account, "Organization")),
            "repository_selection": "selected",
            "access_tokens_url": self._api(f"/app/installations/{inst.id}/access_tokens"),
            "repositories_url": self._api("/installation/repositories"),
            "html_url": f"https://github.com/organizations/{inst.account}/settings/installations/{inst.id}",
            "app_id": self.app_id,
            "app_slug": self.app_slug,
            "client_id": self.client_id,
            "target_id": self.user(inst.account).id,
            "target_type": "Organization",
            "permissions": dict(inst.permissions),
            "events": ["pull_request", "issue_comment"],
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "single_file_name": None,
            "suspended_at": None if inst.suspended_at is None else iso_time(inst.suspended_at),
            "suspended_by": None
            if inst.suspended_at is None
            else self._user_json(self.user(f"{inst.account}-owner")),
        }

    def _repo_json(self, repo: FakeRepo) -> dict[str, Any]:
        owner, name = repo.full_name.split("/")
        return {
            "id": repo.id,
            "node_id": _node_id("Repository", repo.id),
            "name": name,
            "full_name": repo.full_name,
            "owner": self._user_json(self.user(owner, "Organization")),
            "private": not repo.public,
            "html_url": f"https://github.com/{repo.full_name}",
            "url": self._api(f"/repos/{repo.full_name}"),
            "issues_url": self._api(f"/repos/{repo.full_name}/issues{{/number}}"),
            "pulls_url": self._api(f"/repos/{repo.full_name}/pulls{{/number}}"),
            "default_branch": "main",
        }

    def _pull_json(self, repo: FakeRepo, pr: FakePull) -> dict[str, Any]:
        api = f"/repos/{repo.full_name}"
        html = f"https://github.com/{repo.full_name}/pull/{pr.number}"

        def part(ref: str, sha: str) -> dict[str, Any]:
            owner = repo.full_name.split("/")[0]
            return {
                "label": f"{owner}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self._user_json(self.user(owner, "Organization")),
                "repo": self._repo_json(repo),
            }

        return {
            "url": self._api(f"{api}/pulls/{pr.number}"),
            "id": repo.id * 100_000 + pr.number,
            "node_id": _node_id("PullRequest", pr.number),
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": self._api(f"{api}/issues/{pr.number}"),
            "commits_url": self._api(f"{api}/pulls/{pr.number}/commits"),
            "review_comments_url": self._api(f"{api}/pulls/{pr.number}/comments"),
            "review_comment_url": self._api(f"{api}/pulls/comments{{/number}}"),
            "comments_url": self._api(f"{api}/issues/{pr.number}/comments"),
            "statuses_url": self._api(f"{api}/statuses/{pr.head_sha}"),
            "number": pr.number,
            "state": "closed" if pr.closed else "open",
            "locked": pr.number in repo.locked,
            "active_lock_reason": repo.locked.get(pr.number),
            "title": pr.title,
            "user": self._user_json(pr.user),
            "body": pr.body,
            "labels": [
                {"id": i + 1, "name": name, "color": "ededed", "default": False}
                for i, name in enumerate(pr.labels)
            ],
            "milestone": None,
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "closed_at": "2024-01-02T00:00:00Z" if pr.closed else None,
            "merged_at": None,
            "merge_commit_sha": None,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": part(f"branch-{pr.number}", pr.head_sha),
            "base": part(pr.base_ref, BASE_SHA),
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "draft": pr.draft,
            "merged": False,
            "mergeable": None,
            "comments": len(self.comments(repo.full_name, pr.number)),
            "review_comments": 0,
            "commits": 1,
            "additions": sum(f.additions for f in pr.files),
            "deletions": sum(f.deletions for f in pr.files),
            "changed_files": len(pr.files),
        }

    def _file_json(self, repo: FakeRepo, pr: FakePull, f: FakeFile) -> dict[str, Any]:
        # a removed file's URLs name the commit before, where it still is (GitHub's diff
        # entries do, as recorded in buildbot's tests of its GitHub hook)
        at = BASE_SHA if f.status == "removed" else pr.head_sha
        # a name may hold a lone surrogate (a test's): quoted as its UTF-16 half's bytes
        path = quote(f.filename, errors="surrogatepass")
        blob = f"https://github.com/{repo.full_name}/blob/{at}/{path}"
        out = {
            "sha": secrets.token_hex(20),
            "filename": f.filename,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": f.additions + f.deletions,
            "blob_url": blob,
            "raw_url": blob.replace("/blob/", "/raw/", 1),
            "contents_url": self._api(f"/repos/{repo.full_name}/contents/{path}?ref={at}"),
        }
        if f.patch is not None:
            out["patch"] = f.patch
        if f.previous_filename is not None:
            out["previous_filename"] = f.previous_filename
        return out

    def _comment_json(self, c: FakeComment) -> dict[str, Any]:
        kind = "pull" if c.number in self._repos[c.repo].pulls else "issues"
        return {
            "id": c.id,
            "node_id": _node_id("IssueComment", c.id),
            "url": self._api(f"/repos/{c.repo}/issues/comments/{c.id}"),
            "html_url": f"https://github.com/{c.repo}/{kind}/{c.number}#issuecomment-{c.id}",
            "body": c.body,
            "user": self._user_json(c.user),
            "created_at": iso_time(c.created_at),
            "updated_at": iso_time(c.updated_at),
            "issue_url": self._api(f"/repos/{c.repo}/issues/{c.number}"),
            "author_association": "NONE",
            "performed_via_github_app": self._app_json()
            if c.user.login == self.bot.login
            else None,
        }

    def _reaction_json(self, r: FakeReaction) -> dict[str, Any]:
        return {
            "id": r.id,
            "node_id": _node_id("Reaction", r.id),
            "user": self._user_json(r.user),
            "content": r.content,
            "created_at": iso_time(r.created_at),
        }

    # --- helpers for handlers -----------------------------------------------

    def _repo_id(self, full_name: str) -> int:
        """A new repository's id: DEFAULT_REPO's is the one test payloads carry (GitHub's
        example payloads' `repository.id`), while no other repository holds it."""
        taken = any(r.id == DEFAULT_REPO_ID for r in self._repos.values())
        return DEFAULT_REPO_ID if full_name == DEFAULT_REPO and not taken else self._new_id()

    def _new_id(self) -> int:
        with self._lock:
            self._next_id += 1
            return self._next_id

    def _store_comment(
        self, repo: str, number: int, body: str, who: Identity, comment_id: int | None = None
    ) -> FakeComment:
        now = self.now()  # GitHub dates its comments by its clock, not the bot's
        c = FakeComment(comment_id or self._new_id(), repo, number, body, who, now, now)
        self._comments[c.id] = c
        return c

    def _foreign_write(self, method: str, path: str, authz: str) -> bool:
        """A write by an installation's token on a public repository it does not hold."""
        parts = path.split("/")  # "", "repos", owner, name, ...
        if method in ("GET", "HEAD") or len(parts) < 4 or parts[1] != "repos":
            return False
        full_name = f"{parts[2]}/{parts[3]}"
        with self._lock:
            repo = self._repos.get(full_name)
            token = self._tokens.get(authz.partition(" ")[2])
            if repo is None or not repo.public or token is None:
                return False
            held = self._installations.get(token.identity.installation_id or 0)
            return held is not None and full_name not in held.repos

    def _repo_for(self, who: Identity | None, params: dict[str, str]) -> FakeRepo:
        """The repo, if it exists and this identity may see it (GitHub says 404 either way)."""
        full_name = f"{params['owner']}/{params['name']}"
        repo = self._repos.get(full_name)
        if repo is None:
            raise _HTTPError(404, "Not Found")
        if who is not None and who.installation_id is not None:
            inst = self._installations.get(who.installation_id)
            if inst is None or (full_name not in inst.repos and not repo.public):
                raise _HTTPError(404, "Not Found")
        return repo

    def _comment_for(
        self, repo: FakeRepo, params: dict[str, str], store: dict[int, FakeComment] | None = None
    ) -> FakeComment:
        c = (self._comments if store is None else store).get(int(params["cid"]))
        if c is None or c.repo != repo.full_name:
            raise _HTTPError(404, "Not Found")
        return c

    def _page(
        self, items: list[Any], path: str, query: dict[str, str], render: Callable[[Any], Any]
    ) -> _Reply:
        """One page of `items`, rendered, with GitHub's Link header (`page` never first)."""
        per_page = min(max(_int(query.get("per_page"), 30), 1), 100)
        page = max(_int(query.get("page"), 1), 1)
        last = max(math.ceil(len(items) / per_page), 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        others = [(k, v) for k, v in query.items() if k not in ("page", "per_page")]

        def url(n: int) -> str:
            return self._api(path) + "?" + urlencode([*others, ("per_page", per_page), ("page", n)])

        links = []
        if page > 1:
            links.append(f'<{url(min(page - 1, last))}>; rel="prev"')
        if page < last:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
        if page > 1:
            links.append(f'<{url(1)}>; rel="first"')
        body = [render(item) for item in chunk]
        return _Reply(200, body, {"Link": ", ".join(links)} if links else {})

    # --- handlers (called with the lock held) --------------------------------

    def _get_app(self, who, params, query, body) -> _Reply:
        return _Reply(200, self._app_json())

    def _hook_delivery_json(self, d: FakeHookDelivery) -> dict[str, Any]:
        ok = 200 <= d.status_code < 300
        return {
            "id": d.id,
            "guid": d.guid,
            "delivered_at": iso_time(d.delivered_at),
            "redelivery": d.redelivery,
            "duration": 0.01,
            "status": "OK" if ok else ("failed to connect" if d.status_code == 0 else "Invalid"),
            "status_code": d.status_code,
            "event": d.event,
            "action": d.action,
            "installation_id": d.installation_id,
            "repository_id": d.repository_id,
            "throttled_at": None,
        }

    def _list_hook_deliveries(self, who, params, query, body) -> _Reply:
        """Newest first, `per_page` at a time; like GitHub's, the next page's Link carries
        a `cursor` (here the id it starts at), and there are no page numbers."""
        per_page = min(max(_int(query.get("per_page"), 30), 1), 100)
        start = _int(query.get("cursor", "").removeprefix("v1_") or None, 2**62)
        newest = sorted(self._hook_deliveries, key=lambda d: -d.id)
        rest = [d for d in newest if d.id <= start]
        page, after = rest[:per_page], rest[per_page : per_page + 1]
        headers = {}
        if after:
            url = (
                self._api("/app/hook/deliveries")
                + "?"
                + urlencode([("per_page", per_page), ("cursor", f"v1_{after[0].id}")])
            )
            headers["Link"] = f'<{url}>; rel="next"'
        return _Reply(200, [self._hook_delivery_json(d) for d in page], headers)

    def _redeliver(self, who, params, query, body) -> _Reply:
        """202 at once; the attempt is made after (GitHub queues it)."""
        found = [d for d in self._hook_deliveries if d.id == int(params["did"])]
        if not found:
            raise _HTTPError(404, "Not Found")
        d = found[0]
        threading.Thread(
            target=self._deliver,
            args=(d.guid, d.event, d.body),
            kwargs={"redelivery": True},
            name="fake-redelivery",
            daemon=True,
        ).start()
        return _Reply(202, {})

    def _post_access_token(self, who, params, query, body) -> _Reply:
        inst = self._installations.get(int(params["iid"]))
        if inst is None:
            raise _HTTPError(404, "Not Found")
        if inst.suspended_at is not None:
            raise _HTTPError(403, SUSPENDED_MESSAGE, MINT_DOCS)
        token = "ghs_" + secrets.token_urlsafe(27)
        expires = time.time() + self.token_ttl
        identity = Identity(self.bot.login, self.bot.id, "Bot", inst.id)
        self._tokens[token] = _Token(identity, expires, dict(inst.permissions))
        if self._no_write:
            self._read_only.add(token)
        payload = {
            "token": token,
            "expires_at": iso_time(expires),
            "permissions": dict(inst.permissions),
            "repository_selection": "selected",
        }
        return _Reply(201, payload)

    def _get_repo_installation(self, who, params, query, body) -> _Reply:
        full_name = f"{params['owner']}/{params['name']}"
        for inst in self._installations.values():
            if full_name in inst.repos:
                return _Reply(200, self._installation_json(inst))
        raise _HTTPError(404, "Not Found")

    def _get_user(self, who: Identity, params, query, body) -> _Reply:
        if who.installation_id is not None:
            raise _HTTPError(403, "Resource not accessible by integration")
        return _Reply(200, self._user_json(who))

    def _get_rate_limit(self, who: Identity, params, query, body) -> _Reply:
        """The caller's primary limit as `core` (and `rate`, its older name), and a search
        limit GitHub always lists; no call of it is counted (_FREE_PATHS). GitHub answers
        a caller with no token too (60 an hour); the bot always sends one."""
        used = self._calls_used(_rate_bucket(who))
        core = {
            "limit": self.rate_limit,
            "remaining": max(self.rate_limit - used, 0),
            "reset": self._window_reset,
            "used": used,
        }
        search = {"limit": 30, "remaining": 30, "reset": int(time.time()) + 60, "used": 0}
        return _Reply(200, {"resources": {"core": core, "search": search}, "rate": core})

    def _get_repo(self, who, params, query, body) -> _Reply:
        return _Reply(200, self._repo_json(self._repo_for(who, params)))

    def _get_pull(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        pr = repo.pulls.get(int(params["number"]))
        if pr is None:
            raise _HTTPError(404, "Not Found")
        return _Reply(200, self._pull_json(repo, pr))

    def _list_pull_files(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        pr = repo.pulls.get(int(params["number"]))
        if pr is None:
            raise _HTTPError(404, "Not Found")
        path = f"/repos/{repo.full_name}/pulls/{pr.number}/files"
        return self._page(pr.files[:FILES_CAP], path, query, lambda f: self._file_json(repo, pr, f))

    def _issue_number(self, repo: FakeRepo, params: dict[str, str]) -> int:
        number = int(params["number"])
        if number not in repo.issues:
            raise _HTTPError(404, "Not Found")
        return number

    def _get_issue(self, who, params, query, body) -> _Reply:
        """An issue, or a PR seen as an issue (GitHub adds its `pull_request` links)."""
        repo = self._repo_for(who, params)
        number = self._issue_number(repo, params)
        api, html = f"/repos/{repo.full_name}", f"https://github.com/{repo.full_name}"
        pr = repo.pulls.get(number)
        kind = "pull" if pr else "issues"
        data: dict[str, Any] = {
            "url": self._api(f"{api}/issues/{number}"),
            "id": repo.id * 100_000 + number,
            "node_id": _node_id("PullRequest" if pr else "Issue", number),
            "html_url": f"{html}/{kind}/{number}",
            "comments_url": self._api(f"{api}/issues/{number}/comments"),
            "number": number,
            "state": "open",
            "locked": number in repo.locked,
            "active_lock_reason": repo.locked.get(number),
            "title": pr.title if pr else f"Issue {number}",
            "body": pr.body if pr else "",
            "user": self._user_json(pr.user if pr else self.user("someone")),
            "labels": [],
            "comments": len(self.comments(repo.full_name, number)),
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "closed_at": None,
            "author_association": "CONTRIBUTOR",
        }
        if pr:
            data["pull_request"] = {
                "url": self._api(f"{api}/pulls/{number}"),
                "html_url": f"{html}/pull/{number}",
                "diff_url": f"{html}/pull/{number}.diff",
                "patch_url": f"{html}/pull/{number}.patch",
                "merged_at": None,
            }
        return _Reply(200, data)

    def lag_next_comment_list(self, alter: Callable[[list[dict]], list[dict]]) -> None:
        """The next comment list answers what `alter` makes of its page: a list that lags
        behind a write (GitHub's lists may, for a while), as a create missing from it or
        an edit's older text."""
        self._lag_list = alter

    def lag_comment_lists(self, seconds: float = 0.0, reads: int = 0) -> None:
        """From now on, each comment created through the API stays out of its issue's
        comment lists for `seconds` after its creation and for the next `reads` of those
        lists (a read ends at its last page), whichever lasts longer: GitHub's lists lag
        behind a write (for a second or more), while a GET of the comment by its id finds
        it. (0, 0): no lag."""
        with self._lock:
            self._list_lag = (seconds, reads)

    def _listed(self, found: list[FakeComment]) -> tuple[list[FakeComment], list[list[float]]]:
        """`found` without the comments a lagging list does not show yet, and the lags of
        those left out."""
        now, shown, out = time.monotonic(), [], []
        for c in found:
            lag = self._unlisted.get(c.id)
            if lag is None or (lag[0] <= now and lag[1] <= 0):
                self._unlisted.pop(c.id, None)
                shown.append(c)
            else:
                out.append(lag)
        return shown, out

    def _list_comments(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        number = self._issue_number(repo, params)
        path = f"/repos/{repo.full_name}/issues/{number}/comments"
        shown, out = self._listed(self.comments(repo.full_name, number))
        reply = self._page(shown, path, query, self._comment_json)
        if 'rel="next"' not in reply.headers.get("Link", ""):  # a whole list read
            for lag in out:
                lag[1] -= 1
        alter, self._lag_list = getattr(self, "_lag_list", None), None
        if alter is not None:
            reply.body = alter(reply.body)
        return reply

    def _refuse_if_locked(self, repo: FakeRepo, number: int, who: Identity, what: str) -> None:
        """GitHub's 403 for a write on a locked conversation. The create's body is the one
        Renovate, probot/stale and semantic-release logged; the edit's and the reaction's
        are modelled on it (GitHub's GraphQL schema has LOCKED among the reasons a comment
        cannot be updated, and its docs disable reactions there for everyone; neither says
        the REST words), and so is the delete's (its docs: on a locked conversation only
        collaborators with write access add, hide and delete comments). Collaborators with
        write access may still comment and edit; an App's installation token is no
        collaborator."""
        if number not in repo.locked:
            return
        role = repo.permissions.get(who.login.lower(), repo.default_permission)
        if what == "create reaction" or who.installation_id is not None or role not in WRITE_ROLES:
            raise _HTTPError(403, f"Unable to {what} because issue is locked.", LOCKING_DOCS)

    def _create_comment(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        number = self._issue_number(repo, params)
        self._refuse_if_locked(repo, number, who, "create comment")
        text = _comment_body(body)
        made = self._store_comment(repo.full_name, number, text, who)
        seconds, reads = self._list_lag
        if seconds > 0 or reads > 0:
            self._unlisted[made.id] = [time.monotonic() + seconds, float(reads)]
        return _Reply(201, self._comment_json(made))

    def _get_comment(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        return _Reply(200, self._comment_json(self._comment_for(repo, params)))

    def _edit_comment(self, who, params, query, body) -> _Reply:
        # Like GitHub for an App with issues:write, the fake lets anyone with access edit
        # any comment: refusing to touch others' comments is the client's job.
        repo = self._repo_for(who, params)
        c = self._comment_for(repo, params)
        self._refuse_if_locked(repo, c.number, who, "update comment")
        c.body = _comment_body(body)
        c.updated_at = self.now()
        return _Reply(200, self._comment_json(c))

    def _delete_comment(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        c = self._comment_for(repo, params)
        self._refuse_if_locked(repo, c.number, who, "delete comment")
        del self._comments[c.id]
        self._reactions.pop(c.id, None)
        return _Reply(204)

    def _react_review_comment(self, who, params, query, body) -> _Reply:
        return self._react(who, params, query, body, self._review_comments)

    def _react(self, who, params, query, body, store=None) -> _Reply:
        repo = self._repo_for(who, params)
        c = self._comment_for(repo, params, store)
        self._refuse_if_locked(repo, c.number, who, "create reaction")
        content = body.get("content")
        if content not in REACTIONS:
            raise _HTTPError(422, "Validation Failed")
        existing = self._reactions.setdefault(c.id, [])
        for r in existing:
            if r.user.login == who.login and r.content == content:
                return _Reply(200, self._reaction_json(r))
        r = FakeReaction(self._new_id(), content, who, self.now())
        existing.append(r)
        return _Reply(201, self._reaction_json(r))

    def _permission(self, who, params, query, body) -> _Reply:
        repo = self._repo_for(who, params)
        login = params["login"]
        user = self._users.get(login.lower())
        if user is None:
            raise _HTTPError(404, f"{login} is not a user")
        role = repo.permissions.get(login.lower(), repo.default_permission)
        # `permission` folds maintain into write and triage into read; role_name keeps it
        permission = {"maintain": "write", "triage": "read"}.get(role, role)
        payload = {"permission": permission, "role_name": role, "user": self._user_json(user)}
        return _Reply(200, payload)


def webhook_request(
    url: str, event: str, delivery: str, body: bytes, secret: str
) -> urllib.request.Request:
    """A webhook delivery as GitHub POSTs it: its headers, signed with `secret`."""
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "GitHub-Hookshot/fake",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": f"sha256={signature}",
    }
    return urllib.request.Request(url, data=body, method="POST", headers=headers)


def _file(f: str | tuple[str, str] | FakeFile) -> FakeFile:
    if isinstance(f, FakeFile):
        return f
    if isinstance(f, tuple):
        return FakeFile(f[0], "renamed", previous_filename=f[1])
    return FakeFile(f)


def _lone_surrogate(value: Any) -> bool:
    """A string anywhere in a request's JSON holds a surrogate code point (U+D800 to
    U+DFFF) alone: JSON's escapes allow it, Unicode text does not."""
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    return False


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _comment_body(body: dict[str, Any]) -> str:
    text = body.get("body")
    if not isinstance(text, str) or not text:
        raise _HTTPError(422, "Validation Failed")
    if len(text) > COMMENT_MAX:  # github_facts §3.1
        too_long = f"Body is too long (maximum is {COMMENT_MAX} characters)"
        error = {"resource": "IssueComment", "code": "custom", "field": "body", "message": too_long}
        raise _HTTPError(422, "Validation Failed", errors=[error])
    return text


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as PyGithub's requests session expects
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms stalls
    server: _Server
    timeout = 30  # an idle keep-alive connection frees its thread after this

    def do_GET(self) -> None:
        self.server.fake._serve(self)

    do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

    def date_time_string(self, timestamp: float | None = None) -> str:
        # the Date header, by GitHub's clock
        return super().date_time_string(self.server.fake.now() if timestamp is None else timestamp)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # tests read fake.requests instead


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, fake: FakeGitHub, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.fake = fake
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_all(self) -> None:
        """Close kept-alive connections so no handler thread outlives the server."""
        with self._open_lock:
            for sock in self._open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._open.clear()

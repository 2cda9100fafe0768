"""Who the GitHub client calls as, and through which `Github`: the App's installation
tokens (or the one token), a `Github` per thread, and what each requester does besides
sending (counted, paced, paused on a rate limit, sent again where GitHub moved it).

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), under
`bot.github_client`. It must never go on calling an identity GitHub has rate-limited,
nor share one PyGithub requester between threads. Auth, threads, rate limits, counting
and redirects: `GitHubSessions`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import SplitResult, quote, unquote, urljoin, urlsplit

import requests
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed448, ed25519
from cryptography.utils import CryptographyDeprecationWarning
from github import Auth, Github, GithubException, GithubIntegration
from github.Requester import Requester

from bot.github_deadline import Watchdog
from bot.github_errors import (
    TRANSPORT_ERRORS,
    NotTheAPI,
    UnreadableAnswer,
    jwt_clock_problem,
    rate_limit_answer,
    secondary_limit,
    spent_until_reset,
)
from bot.github_http import MOVED_TO, made_cleaning
from bot.github_pacing import CallCounter, Pacer, route_template
from bot.github_port import (
    ClientClosed,
    GitHubError,
    NotInstalled,
    PRRef,
    call_answered,
    limit_met,
    rate_limit_wait,
)
from bot.github_retry import Retrier
from bot.installations import InstallationChange
from bot.times import utcnow

log = logging.getLogger(__name__)

T = TypeVar("T")

# a repository as the installation caches know it: its name, and its id when calls go by id
RepoKey = tuple[str, int | None]
# How long a permission a new token was refused is not minted for again (no installation
# event since): the first refusal after it mints a new token, as any first refusal does
REFUSAL_KEPT = timedelta(minutes=15)
# How long a lone 404 to an installation's mint is kept: GitHub may answer 404 for an
# installation just made, its replicas behind the event by a few seconds (octokit's
# auth-app gives a new token's refusals 5 s). Only a second 404, asked after these, is
# kept `removed_installation_kept` seconds
LONE_404_KEPT = 10.0


class UnusableKeyError(ValueError):
    """The App's private key cannot sign a JWT: the key's fault, not another setting's."""


_KEY_KINDS: tuple[tuple[type, str], ...] = (
    (ec.EllipticCurvePrivateKey, "an EC key"),
    (ed25519.Ed25519PrivateKey, "an Ed25519 key"),
    (ed448.Ed448PrivateKey, "an Ed448 key"),
)


def _dsa_key_class() -> type | tuple[()]:
    """DSA's key class, read only for a key of no other kind: cryptography 51 deprecates
    DSA and warns at the very reading of the name, which put a warning on stderr at every
    start of every command (each imports this module). () once a release drops it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CryptographyDeprecationWarning)
        return getattr(dsa, "DSAPrivateKey", ())


# How a PEM says its key is under a passphrase: PKCS#8's label, or the traditional
# (OpenSSL) format's header, whatever the kind of key
_ENCRYPTED_MARKS = ("-----BEGIN ENCRYPTED PRIVATE KEY-----", "Proc-Type: 4,ENCRYPTED")
_UNDER_PASSPHRASE = (
    "GitHub App private key is encrypted (it needs a passphrase): the key GitHub downloads is"
    " not; use that file"
)


_UNUSABLE = "not a usable RSA PEM key"
# what no PEM parser reads: the operator's copy of GitHub's file, most likely, is not whole
_DAMAGED = (
    f"GitHub App private key is {_UNUSABLE}: it does not parse (cut short or changed in a"
    " copy?): give the whole file GitHub downloaded, from its BEGIN line to its END line, or"
    " generate a new key in the App's settings"
)


# A running server's mint refused 401 for the JWT's key or ID: the start checked both,
# so the App's settings changed since (a key deleted before the server had the new one)
_KEY_REFUSED = (
    "GitHub refused the App's token (JWT): is the server's private key still one of the"
    " App's private keys (deleted in its settings?), and GITHUB_APP_ID its ID? Set them"
    " right and restart, then `review-notes retry --all`"
)


def key_problem(pem: str) -> str:
    """What is wrong with a PEM key that cannot sign the App's JWT, as the operator can act
    on it: GitHub's download is an unencrypted RSA key, so a passphrase or another kind
    of key means another file than the one GitHub gave."""
    if "-----BEGIN OPENSSH PRIVATE KEY-----" in pem:  # ssh-keygen's format: no PEM to load
        return (
            "GitHub App private key is an SSH key (ssh-keygen's, as in ~/.ssh), not the"
            " App's: download the App's private key from its settings page"
        )
    # by the PEM's own words first: a key cryptography cannot parse (the blank line after
    # DEK-Info lost in a copy, a cipher it lacks) is under a passphrase all the same
    if any(mark in pem for mark in _ENCRYPTED_MARKS):
        return _UNDER_PASSPHRASE
    try:
        key = serialization.load_pem_private_key(pem.encode(), password=None)
    except TypeError:  # cryptography's answer to a key under a passphrase
        return _UNDER_PASSPHRASE
    except (ValueError, UnsupportedAlgorithm):
        return _DAMAGED
    kind = next((name for cls, name in _KEY_KINDS if isinstance(key, cls)), None)
    if kind is None and isinstance(key, _dsa_key_class()):
        kind = "a DSA key"
    if kind is None:  # an RSA key that still failed, or one that cannot sign
        return f"GitHub App private key is {_UNUSABLE}"
    return (
        f"GitHub App private key is {kind}; GitHub App keys are RSA: download the App's"
        " private key from its settings page"
    )


@dataclass(frozen=True)
class _Kept404:
    """GitHub's 404 saying the App is not installed, as kept (`GitHubSessions._keep_404`)."""

    at: float  # clock time of the answer
    confirmed: bool  # a 404 before it, LONE_404_KEPT or more earlier, said the same
    said: str


@dataclass(frozen=True)
class _Grant:
    """An installation token, shared by every thread until shortly before it expires."""

    token: str
    expires_at: datetime


class GitHubSessions:
    """The `Github` objects and tokens of one GitHubClient (`app_id` + `private_key`, or
    `token`), which calls GitHub through `as_installation` and `as_app`.

    - Auth. App mode mints an installation token per installation (the JWT is PyGithub's
      `Auth.AppAuth`) and shares it between threads until shortly before it expires; a 401
      drops it, mints a new token and retries once. A 404 to a mint (the App uninstalled)
      is kept `removed_installation_kept` seconds (LONE_404_KEPT until a second one
      confirms it), or until an installation event of that installation: the calls
      meanwhile mint nothing and ask where the repository is now (the App installed
      again, its event lost, is another installation). Token mode uses `Auth.Token`.
    - Threads. PyGithub's requester and its connection are not thread-safe (two threads on
      one `Github` can get each other's answers: PyGithub PR #2052), so each thread gets its
      own lazy `Github` per installation and token, closed when that thread sees a new token
      or by `close()`. The one `GithubIntegration` (JWT calls: mint a token, find an
      installation, get the App) is used by one thread at a time. Request spacing
      (`seconds_between_requests` / `_writes`) is shared by the threads of an installation,
      as it was when they shared one `Github`.
    - A rate limit is the identity's (an installation, the token, the App's JWT calls), and
      GitHub may ban an integration that goes on calling while limited: a rate limit
      answer to any call pauses every call of that identity, in every thread, until the
      time GitHub gave. A call that would wait out a pause longer than `sleep_max` fails
      at once, unsent, as the limited call itself does (bot.github_retry). Any other answer
      that spent the last call of the hour (x-ratelimit-remaining: 0 on a success or a 404)
      pauses them likewise until the reset, so the next call is not one GitHub must refuse.
    - Every HTTP call is counted by (method, route template, status) in `client.calls`.
    - Each `Github` and the `GithubIntegration` is made with `github_http`'s connections,
      which give a call up as a timeout past `deadline` (`bot.github_deadline`), take a
      rate limit header that is no number off the answer (PyGithub raises on it)
      and hand a 301 back, followed here as a 302, 307 or 308 is, within the API only: any
      other redirect is a wrong GITHUB_API_URL or a proxy's login page (`_follow_moves`).
    """

    def __init__(
        self,
        *,
        base_url: str,
        app_id: int | str | None,
        private_key: str | None,
        token: str | None,
        address_by_id: bool,
        timeout: int,
        deadline: float,
        user_agent: str,
        seconds_between_requests: float,
        seconds_between_writes: float,
        token_refresh_margin: float,
        removed_installation_kept: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        calls: CallCounter,
        retry: Retrier,
    ):
        self._calls = calls
        self._retry = retry
        self._by_id = address_by_id  # REVIEW_NOTES_ADDRESS_REPOS_BY=id: the lookup too
        base_url = base_url.rstrip("/")
        self._base_url, self._prefix = base_url, urlsplit(base_url).path
        self._options = dict(
            base_url=base_url,
            timeout=int(timeout),  # PyGithub asserts an int
            user_agent=user_agent,
            retry=None,  # retries happen in the Retrier (bot.github_retry), not in PyGithub
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=seconds_between_writes,
        )
        self._between = (seconds_between_requests, seconds_between_writes)
        self._deadline = deadline  # seconds a whole call may take (`bot.github_deadline`)
        self._watchdog = Watchdog()  # keeps every call's deadline, in one thread
        self._refresh_margin = timedelta(seconds=token_refresh_margin)
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()  # guards the shared dicts and the registry below
        self.app_lock = threading.Lock()  # one JWT call at a time on the GithubIntegration
        self._mint_locks: dict[int, threading.Lock] = {}
        self._lookup_locks: dict[RepoKey, threading.Lock] = {}
        self._grants: dict[int, _Grant] = {}  # installation id -> its current token
        # keyed by `_repo_key`: two repositories may have had one name
        self._repo_installations: dict[RepoKey, int] = {}
        # (repository, installation a delivery names) -> the one a 404 under it found it in
        self._moves: dict[tuple[RepoKey, int], int] = {}
        # (installation, permission) -> clock time a new token was refused it
        self._refusals: dict[tuple[int, str], float] = {}
        # GitHub's 404s to an installation's mint (the App uninstalled from it), kept
        # `removed_installation_kept` seconds (no installation event since), lest each
        # call of a queue of deliveries naming it ask again to fail the same way: clock
        # time, whether a 404 before it confirmed it (a lone one is kept LONE_404_KEPT),
        # and error. A removed installation's id is never given back; a repository's
        # lookup 404 is not kept: the App may be installed on it again, its event lost
        self._removed_installation_kept = removed_installation_kept
        self._gone: dict[int, _Kept404] = {}  # installation -> its mint's 404
        # bumped by each installation event: a token or lookup fetched across one is
        # used once, not cached (it may predate a permission or a move)
        self._forgotten = 0
        self._pacers: dict[int | str, Pacer] = {}  # installation id, "token", or "app"
        self._open: dict[int, Github] = {}  # id() -> every Github made and not closed yet
        self._closed = False  # set by close(): no Github is made after it
        self._local = threading.local()  # .githubs: installation id / "token" -> (token, Github)
        self.integration: GithubIntegration | None = None  # App mode only
        self._token = token
        if token is None:
            try:
                # parsed once: PyJWT parses a PEM again for every JWT it signs (each mint,
                # each App call), and parsing checks the RSA key whole, 20 ms or more
                key = serialization.load_pem_private_key((private_key or "").encode(), None)
                app_auth = Auth.AppAuth(app_id, lambda: key)  # type: ignore[arg-type,return-value]
                app_auth.create_jwt()  # a bad key fails here, not on the first webhook
            except Exception as exc:
                raise UnusableKeyError(key_problem(private_key or "")) from exc
            self.integration = made_cleaning(
                lambda: GithubIntegration(auth=app_auth, **self._options),  # type: ignore[arg-type]
                deadline,
                self._watchdog,
            )
            self._count(self.integration.requester, "app")
            # the JWT calls are the App's own: paused apart from any installation's;
            # GithubIntegration spaces them itself
            self._pace(self.integration.requester, "app", self._pacer("app", (0.0, 0.0)))
            _follow_moves(self.integration.requester, base_url)  # `made_cleaning` hands a 301 back

    def token_github(self) -> Github:
        """This thread's Github for the token (token mode)."""
        assert self._token is not None
        return self._thread_github("token", self._token)

    def close(self) -> None:
        """Close every Github made, in any thread, and the GithubIntegration; stop the
        deadlines' thread (after the calls still under way, if any)."""
        with self._lock:
            self._closed = True
            githubs = list(self._open.values())
            self._open.clear()
            self._grants.clear()
        for gh in githubs:
            gh.close()
        if self.integration is not None:
            with self.app_lock:
                self.integration.close()
        self._watchdog.close()

    def _new_github(self, auth: Auth.Auth, key: int | str, pacer: Pacer) -> Github:
        options = {**self._options, "seconds_between_requests": 0, "seconds_between_writes": 0}
        gh = made_cleaning(
            lambda: Github(auth=auth, per_page=100, lazy=True, **options),  # type: ignore[arg-type]
            self._deadline,
            self._watchdog,
        )
        self._count(gh.requester, "token" if key == "token" else "installation")
        self._pace(gh.requester, key, pacer)
        _follow_moves(gh.requester, self._base_url)  # outermost: each hop is paced and counted
        return gh

    def _pacer(self, key: int | str, between: tuple[float, float]) -> Pacer:
        """The one pacer of an identity, made on first use; the caller holds no lock."""
        with self._lock:
            pacer = self._pacers.get(key)
            if pacer is None:
                pacer = self._pacers[key] = Pacer(
                    *between,
                    self._retry.policy.sleep_max,
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
        the server); none is made after it (ClientClosed).
        """
        mine: dict[int | str, tuple[str, Github]] | None = getattr(self._local, "githubs", None)
        if mine is None:
            mine = self._local.githubs = {}
        held = mine.get(key)
        with self._lock:
            if self._closed:
                raise self._refused(key)
            if held is not None and held[0] == token and id(held[1]) in self._open:
                return held[1]
        gh = self._new_github(Auth.Token(token), key, self._pacer(key, self._between))
        with self._lock:
            closed = self._closed  # while it was made: that close() did not see it
            if not closed:
                self._open[id(gh)] = gh
            stale = held is not None and self._open.pop(id(held[1]), None) is not None
        if closed:
            gh.close()
            raise self._refused(key)
        mine[key] = (token, gh)
        if stale:
            assert held is not None
            held[1].close()
        return gh

    @staticmethod
    def _refused(key: int | str) -> ClientClosed:
        """A Github asked for after `close()` (a worker the stop left behind, or whose
        token's mint went on across the stop): refused, as the retrier refuses each try
        after it; made then, it would never be closed."""
        return ClientClosed(f"GitHub as {_identity(key)}: not called, the client is closed")

    def as_app(self, what: str, call: Callable[[], T]) -> T:
        """A call on the shared GithubIntegration (JWT auth), retried like any other; each
        try holds the integration for itself (one thread at a time), not the waits."""

        def locked() -> T:
            with self.app_lock:
                return call()

        return self._retry.call(what, locked)

    def as_installation(self, ref: PRRef, op: Callable[[Github], T], needs: str) -> T:
        """Run `op` with this thread's Github for the PR's installation; when the token is
        refused (401), or lacks a permission (403 "not accessible by integration": a token
        keeps the permissions it was minted with, and an owner may have accepted new ones
        since), mint a new one and run it once more. So `op` may run twice: a write in it
        looks first for what the first run may have done, its answer lost
        (`GitHubClient.create_comment`).
        A 404 under the installation the delivery named, or under the one a lookup cached
        for a delivery naming none, may mean the repository left it (`_left_installation`).
        `needs` names the permission `op` needs ("issues: write"):
        one a new token was refused too is not minted for again (`_refused_lately`), or
        an installation granted none of it would mint a token for each call."""
        if self._token is not None:
            return op(self.token_github())
        named = ref.installation_id
        ref = self._moved_ref(ref)
        cached = self._cached_installation(ref)  # read once: the grant and `stale` agree
        try:
            installation_id, grant = self._installation_grant(ref, cached)
        except GitHubError as err:
            # `op` never ran: no write of it reached GitHub (a command's 👀 a failed mint
            # kept from GitHub is no write its budget pays for, at each outage put-back)
            err.sent = False
            raise
        try:
            return op(self._thread_github(installation_id, grant.token))
        except GitHubError as err:
            try:
                stale = cached == installation_id  # GitHub's answer to no lookup of this call
                return self._after_refusal(
                    ref, named, installation_id, grant, op, needs, err, stale=stale
                )
            except GitHubError as later:
                # `op` ran once and reached GitHub (a write of it may have landed): a
                # failure after it that sent nothing (a new token's mint held back by a
                # pause) leaves that write sent, for the write budget (`never_sent`)
                later.sent = later.sent or err.sent
                raise

    def _after_refusal(
        self,
        ref: PRRef,
        named: int | None,
        installation_id: int,
        grant: _Grant,
        op: Callable[[Github], T],
        needs: str,
        err: GitHubError,
        *,
        stale: bool,
    ) -> T:
        """`op` failed with `err` under the installation's token: run it again where that
        may mend it (a new token, the repository's installation now), else raise `err`.
        `stale`: the installation is a lookup cached for a delivery naming none, which
        may predate a transfer (no installation event seen)."""
        if err.status == 404 and (named is not None or stale):
            return self._left_installation(ref, named, installation_id, op, err)
        if err.status != 401 and not _lacks_permission(err):
            raise err
        if err.status == 403 and self._refused_lately(installation_id, needs):
            return self._lacking(
                ref, named, installation_id, op, err, needs, minted=False, stale=stale
            )
        log.info("installation %s: token refused, minting a new one", installation_id)
        with self._lock:  # unless another thread has already replaced it
            if self._grants.get(installation_id) == grant:
                del self._grants[installation_id]
            before = self._forgotten
        refused = installation_id
        installation_id, grant = self._installation_grant(ref, self._cached_installation(ref))
        try:
            return op(self._thread_github(installation_id, grant.token))
        except GitHubError as again:
            if installation_id != refused and (again.status == 401 or _lacks_permission(again)):
                # the refused installation is gone and the repository's now had a token
                # cached, not new, and tried first here: replaced as any refused one is
                # (its lookup, just made, stays where it is: this runs once)
                return self._after_refusal(
                    ref, named, installation_id, grant, op, needs, again, stale=False
                )
            if not _lacks_permission(again):
                raise
            with self._lock:  # a token minted across an installation event: not kept
                if self._forgotten == before:
                    self._refusals[(installation_id, needs)] = self._clock()
            return self._lacking(
                ref, named, installation_id, op, again, needs, minted=True, stale=stale
            )

    def _refused_lately(self, installation_id: int, needs: str) -> bool:
        """A new token of the installation was refused `needs` less than REFUSAL_KEPT ago,
        and no event of that installation came since: minting another would get the same
        403 (an owner granted pull_requests but not issues, say), a mint for each call.
        Past REFUSAL_KEPT it is asked again, lest a lost new_permissions_accepted event
        keep the bot from what an owner has since granted."""
        with self._lock:
            at = self._refusals.get((installation_id, needs))
        return at is not None and self._clock() - at < REFUSAL_KEPT.total_seconds()

    def _lacking(
        self,
        ref: PRRef,
        named: int | None,
        installation_id: int,
        op: Callable[[Github], T],
        refused: GitHubError,
        needs: str,
        *,
        minted: bool,
        stale: bool,
    ) -> T:
        """The 403 a new token got too, saying the App lacks the permission; or `op` run
        where the repository is now, when it left the installation. `minted`: this call
        minted that token; else one was refused `needs` lately (`_refused_lately`).
        `stale`: as for `_after_refusal`."""
        how = (
            "a new token too"
            if minted
            else f"no new token minted: one was refused it too in the last {_minutes(REFUSAL_KEPT)}"
        )
        lacking = GitHubError(
            f"{refused} ({how}: installation {installation_id} of the App lacks the"
            f" permission this call needs ({needs}); an owner has reduced the App's"
            " permissions or not accepted new ones. Once it has them, `review-notes retry`"
            " runs this delivery again)",
            status=refused.status,
            advised=True,
        )
        lacking.__cause__ = refused
        if named is None and not stale:
            raise lacking from refused
        # or the repository left it: any installation's token reads a public
        # repository, none may write there but the one holding it
        return self._left_installation(ref, named, installation_id, op, lacking)

    def _left_installation(
        self,
        ref: PRRef,
        named: int | None,
        installation_id: int,
        op: Callable[[Github], T],
        err: GitHubError,
    ) -> T:
        """`op` got a 404 under `installation_id` (the one the delivery `named`, or where an earlier
        call found its repository, or, `named` None, a lookup cached), or a 403 "not accessible by
        integration" with a new token too: the repository may have been taken off it or transferred
        to an account where the App has another installation while the delivery waited (its token
        cannot see the repository there, or, public, only read it). Where is it now? In another
        installation: `op` runs there, and the next call of a delivery naming `named` goes straight
        there. In none: the error says the App is not installed on it. In this one: `err` was the
        answer. Not found out (a 5xx): `err` stays the answer, as some callers take it (a comment
        deleted since); a rate limit is raised (the delivery is put back until then), lest a
        transferred repository fail for good."""
        with self._lock:
            before = self._forgotten
            if installation_id != named:  # under where it was found before: ask afresh
                self._repo_installations.pop(self._repo_key(ref), None)
        try:
            current = self._installation_of(replace(ref, installation_id=None))
        except GitHubError as lookup:
            if lookup.status == 404 or rate_limit_wait(lookup) is not None:
                raise  # not installed; or rate limited: the delivery waits and asks again
            # callers take some 404s for an answer (a comment deleted since): it stays one
            log.warning("%s: 404, and finding its installation failed: %s", ref.repo, lookup)
            raise err from lookup
        with self._lock:
            # else found across an installation event: once; named none, the lookup is
            # cached by `_installation_of`
            if self._forgotten == before and named is not None:
                self._moves[(self._repo_key(ref), named)] = current
        if current == installation_id:
            raise err
        log.info("%s left installation %s for %s", ref.repo, installation_id, current)
        return op(self._thread_github(current, self._grant(current).token))

    def _moved_ref(self, ref: PRRef) -> PRRef:
        """`ref` through the installation its repository was last found in, when a call
        under the one it names got a 404 (`_left_installation`): a transferred
        repository's later calls go there, not to a 404 each first."""
        if ref.installation_id is None:
            return ref
        with self._lock:
            found = self._moves.get((self._repo_key(ref), int(ref.installation_id)))
        return ref if found is None else replace(ref, installation_id=found)

    def forget_installation(self, change: InstallationChange) -> None:
        """An installation event: the installation's token may lack a new permission or be
        refused, and the repositories it names may have moved to or from it, or the App
        been installed again. The next call mints and looks up afresh."""
        with self._lock:
            self._forgotten += 1
            self._grants.pop(change.installation_id, None)
            for refused in [k for k in self._refusals if k[0] == change.installation_id]:
                del self._refusals[refused]
            self._gone.pop(change.installation_id, None)
            for key, installation_id in list(self._repo_installations.items()):
                if installation_id == change.installation_id or key[0] in change.repos:
                    del self._repo_installations[key]
            for (key, named), installation_id in list(self._moves.items()):
                if change.installation_id in (named, installation_id) or key[0] in change.repos:
                    del self._moves[(key, named)]

    def _installation_grant(self, ref: PRRef, cached: int | None) -> tuple[int, _Grant]:
        """The PR's installation and its token. An installation named by the delivery
        but gone (the App uninstalled and installed again since: a delivery retried or
        redelivered) gives way to the repository's current one; so does `cached`, the
        one a lookup cached for a delivery naming none (its installation event lost)."""
        installation_id = self._installation_of(ref)
        try:
            return installation_id, self._grant(installation_id)
        except GitHubError as err:
            if err.status != 404 or (ref.installation_id is None and cached != installation_id):
                raise
            with self._lock:  # a lookup cached before the reinstall is stale too
                self._repo_installations.pop(self._repo_key(ref), None)
            current = self._installation_of(replace(ref, installation_id=None))
            if current == installation_id:
                raise
        log.info("installation %s is gone; %s is now in %s", installation_id, ref.repo, current)
        return current, self._grant(current)

    def _cached_installation(self, ref: PRRef) -> int | None:
        """The installation a lookup found `ref`'s repository in, for a ref naming none."""
        if ref.installation_id is not None:
            return None
        with self._lock:
            return self._repo_installations.get(self._repo_key(ref))

    def _installation_of(self, ref: PRRef) -> int:
        if ref.installation_id is not None:
            return int(ref.installation_id)  # PyGithub and the cache want an int
        key = self._repo_key(ref)
        with self._lock:
            lock = self._lookup_locks.setdefault(key, threading.Lock())
        with lock:  # one lookup of a repository at a time: those waiting take what it found
            return self._look_up(ref, key)

    def _look_up(self, ref: PRRef, key: RepoKey) -> int:
        """The installation a lookup found `ref`'s repository in, cached; else GitHub's
        answer, a 404 not kept (`NotInstalled`: the App may be installed there again
        with its event lost, and a retry must see it); the caller holds the repository's
        lookup lock."""
        with self._lock:
            known = self._repo_installations.get(key)
            before = self._forgotten
        if known is not None:
            return known
        integration = self.integration
        assert integration is not None
        path = self._lookup_path(ref)
        what = f"find the installation on {ref.repo}"
        try:
            found = self.as_app(what, lambda: _installation_id(integration, path, what))
        except GitHubError as err:
            if err.status != 404:
                raise
            # say what the operator can do about it, not only what GitHub answered; a
            # deleted repository gets the same 404 (GitHub hides what the App cannot see)
            said = (
                f"the App is not installed on {ref.repo}, or the repository is gone"
                " (deleted: GitHub answers finding its installation 404 either way); once"
                " the App is installed on it, `review-notes retry` runs this delivery again"
            )
            raise NotInstalled(said, advised=True) from err
        with self._lock:
            if self._forgotten == before:
                self._repo_installations[key] = found
        return found

    def _repo_key(self, ref: PRRef) -> RepoKey:
        """What the lookups and moves are kept under: the repository's name, and its id
        when calls go by id (a name taken since is another repository's, in another
        installation maybe: where one was found is not the other's)."""
        return (ref.repo, ref.repo_id if self._by_id else None)

    def _lookup_path(self, ref: PRRef) -> str:
        """Where GitHub is asked which installation holds `ref`'s repository: by its id
        when calls go by id. By name, a late delivery of a repository moved to another
        installation, whose old name another repository has taken since, gets that
        repository's installation: its calls there, by id, are refused (404, or a
        public one's writes 403), and it failed."""
        if self._by_id and ref.repo_id is not None:
            return f"/repositories/{ref.repo_id}/installation"
        owner, name = ref.repo.split("/", 1)
        return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}/installation"

    def _grant(self, installation_id: int) -> _Grant:
        """The installation's token, minted when there is none or it expires soon."""
        with self._lock:
            lock = self._mint_locks.setdefault(installation_id, threading.Lock())
        with lock:  # one mint per installation at a time
            with self._lock:
                cached = self._grants.get(installation_id)
                before = self._forgotten
                kept = self._kept_404(installation_id)
            if cached is not None and cached.expires_at - self._refresh_margin > datetime.now(UTC):
                return cached
            if kept is not None:  # uninstalled: mint no token to be refused again
                raise kept
            try:
                access = self._mint(installation_id)
            except GitHubError as err:
                if err.status != 404:
                    raise
                self._keep_404(installation_id, str(err), before)
                raise NotInstalled(str(err), sent=err.sent) from err
            grant = _Grant(access.token, access.expires_at)
            with self._lock:
                self._gone.pop(installation_id, None)  # a 404 before confirms nothing
                if self._forgotten == before:
                    self._grants[installation_id] = grant
            return grant

    def _keep_404(self, installation_id: int, said: str, before: int) -> None:
        """Keep GitHub's 404 to the installation's mint, unless an installation event came
        since the call was made (its answer may predate the App installed again): a lone
        one LONE_404_KEPT, one confirming a 404 asked after those
        `removed_installation_kept`."""
        with self._lock:  # a few keys at most: deliveries come for allow-listed repositories
            if self._forgotten == before and self._removed_installation_kept > 0:
                now, earlier = self._clock(), self._gone.get(installation_id)
                confirmed = earlier is not None and now - earlier.at >= LONE_404_KEPT
                self._gone[installation_id] = _Kept404(now, confirmed, said)

    def _kept_404(self, installation_id: int) -> NotInstalled | None:
        """The 404 kept for the installation's mint, as the error of a call not sent; the
        caller holds `_lock`. A lone one past LONE_404_KEPT stays, for the next 404 to
        confirm."""
        held = self._gone.get(installation_id)
        if held is None:
            return None
        age = self._clock() - held.at
        if age >= self._removed_installation_kept:
            del self._gone[installation_id]
            return None
        span = self._removed_installation_kept if held.confirmed else LONE_404_KEPT
        if age >= span:
            return None
        return NotInstalled(
            f"{held.said} (GitHub's answer {age:.0f} s ago: not asked again for"
            f" {min(span, self._removed_installation_kept):g} s after it, or until an"
            f" installation event of installation {installation_id})",
            sent=False,
        )

    def _mint(self, installation_id: int) -> Any:
        """A new token of the installation (PyGithub's InstallationAuthorization). A 401
        refuses the App's JWT: unless its times (this machine's clock, said already), its
        key or ID, which the start checked, and which the App's settings changed since."""
        integration = self.integration
        assert integration is not None
        try:
            return self.as_app(
                f"mint a token for installation {installation_id}",
                lambda: integration.get_access_token(installation_id),
            )
        except GitHubError as err:
            if err.status != 401 or jwt_clock_problem(err.__cause__, time.time()) is not None:
                raise
            raise GitHubError(
                f"{err}: {_KEY_REFUSED}", status=401, sent=err.sent, advised=True
            ) from err

    def _count(self, requester: Requester, identity: str) -> None:
        """Count every HTTP call of this requester, and keep the rate limit left of its
        `identity` ("app": the App's JWT; "installation"; "token").

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
            sent = utcnow()  # an answer is GitHub's from no sooner (an outage's end)
            try:
                status, headers, output = inner(verb, url, *args, **kwargs)
            except requests.exceptions.Timeout:
                self._calls.record(verb, route, "timeout")
                raise
            except (UnreadableAnswer, NotTheAPI) as exc:  # answered, though not readably
                self._calls.record(verb, route, str(exc.status))
                raise
            except TRANSPORT_ERRORS:
                self._calls.record(verb, route, "connection")
                raise
            self._calls.record(verb, route, str(status), headers, identity)
            if status < 500:  # GitHub is up (a 5xx is its outage: github_errors.retryable)
                call_answered(sent)
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
                limit_met()
                self._retry.note_secondary_streak(
                    pacer.met_secondary_limit(verb) if secondary_limit(limited) else 0
                )
                wait = self._retry.asked_wait(limited)
                assert wait is not None  # (a rate limit's: it names a wait, or backs off)
                self._pause(key, pacer, wait)
                return status, headers, output
            pacer.answered(verb)
            if (spent := spent_until_reset(headers)) is not None:
                limit_met()
                self._pause(key, pacer, spent)
            return status, headers, output

        requester.requestJson = paced  # type: ignore[method-assign]

    def _pause(self, key: int | str, pacer: Pacer, seconds: float) -> None:
        """Pause the identity's calls; said once per pause, not by each waiting thread."""
        news = pacer.pause(seconds)
        self._calls.record_pause(seconds, news=news)
        if news:
            until = datetime.now(UTC) + timedelta(seconds=seconds)
            log.warning(
                "GitHub rate limited %s: no call of it for %.1fs, until %s%s",
                _identity(key),
                seconds,
                until.strftime("%H:%M:%SZ"),
                " (its deliveries wait in the queue until then)"
                if seconds > self._retry.policy.sleep_max
                else "",
            )


def _minutes(span: timedelta) -> str:
    return f"{span.total_seconds() / 60:g} minutes"


def _lacks_permission(err: GitHubError) -> bool:
    """GitHub's 403 to a token without the permission a call needs."""
    return err.status == 403 and "not accessible by integration" in str(err)


def _identity(key: int | str) -> str:
    """A pacer key in words, for logs."""
    if key == "token":
        return "the token"
    if key == "app":
        return "the App (JWT calls)"
    return f"installation {key}"


# A renamed or transferred repository answers its old name with 301 (GET) or 307 (any
# other method). PyGithub takes a 307's body for the answer (a comment "created" with no
# id, nothing posted), and follows a 301 to the Location's path alone, the query lost
# (per_page=100: 30 a page), so `github_http` hands it back. Each hop is a counted call.
# 302 and 308 are followed too: GitHub's best practices ask a client to repeat a request
# answered 301, 302 or 307 at the Location (github_facts 3.4). Not 303 (GET the Location
# instead): GitHub's API sends none.
MOVES = (301, 302, 307, 308)
MAX_MOVES = 3


def _installation_id(integration: GithubIntegration, path: str, what: str) -> int:
    """The id of the installation GitHub answers `path` with (a JWT call)."""
    _, data = integration.requester.requestJsonAndCheck("GET", path)
    found = data.get("id") if isinstance(data, dict) else None
    if type(found) is not int:
        raise GitHubError(f"GitHub {what}: a malformed answer: id")
    return found


def _follow_moves(requester: Requester, base_url: str) -> None:
    """Repeat a request GitHub answered 301, 302, 307 or 308 at the Location, as GitHub
    asks, with the request's parameters: a list's first page keeps per_page=100 (its next
    pages are at the Link's URLs, which name where the list is now). Any other redirect,
    or one out of the API (`within_api`: a proxy's login page), raises NotTheAPI: PyGithub
    would take its body for the answer, or send the request to the API's host at the
    Location's path."""
    inner = requester.requestJson

    def following(verb: str, url: str, *args: Any, **kwargs: Any) -> tuple[int, dict, str]:
        for _ in range(1 + MAX_MOVES):  # the request, then each move
            status, headers, output = inner(verb, url, *args, **kwargs)
            if not 300 <= status < 400:
                return status, headers, output
            location = headers.get("location") or headers.get(MOVED_TO)
            if not location and status in MOVES:  # nowhere to repeat it, and no answer
                raise GithubException(status, output, headers, f"{verb} moved, no Location")
            there = within_api(base_url, url, location) if status in MOVES and location else None
            if there is None:
                raise NotTheAPI(status, _redirect(base_url, url, location))
            # the path alone: a proxy's Location may carry a ticket in its query
            log.info("GitHub: %s %s moved to %s", verb, urlsplit(url).path, urlsplit(there).path)
            url = there
        raise GithubException(status, output, headers, f"{verb} still moved after {MAX_MOVES}")

    requester.requestJson = following  # type: ignore[method-assign]


def within_api(base_url: str, url: str, location: str) -> str | None:
    """`location` (a request to `url` was redirected to it) as an absolute URL when it is
    the API's: GitHub's redirects stay under `base_url` (its scheme, host, port and path),
    and PyGithub sends any URL to the API's host, keeping only its path. None elsewhere."""
    base = urlsplit(base_url)
    there = _target(base_url, url, location)
    try:
        same_origin = _origin(there) == _origin(base)
    except ValueError:  # a port that is no number: nowhere to send it
        return None
    prefix = base.path.rstrip("/")
    under = there.path == prefix or there.path.startswith(prefix + "/")
    return there.geturl() if same_origin and under and not _dot_segments(there.path) else None


def _dot_segments(path: str) -> bool:
    """Whether `path` has a "." or ".." segment, percent-encoded or not, between slashes
    or backslashes: under the base as written, out of it as sent (the HTTP client takes
    "/api/v3/../../login" to /login, the token with it; a server decodes "%2e%2e").
    GitHub's redirects have none, and no name in its paths is one."""
    return any(step in (".", "..") for step in re.split(r"[/\\]", unquote(path)))


def _redirect(base_url: str, url: str, location: str | None) -> str:
    """A redirect GitHub's API does not make, in words: where it led, without its query
    or fragment (a login page's may carry a ticket) or user and password."""
    if not location:
        return "a redirect GitHub's API does not make, to nowhere"
    there = _target(base_url, url, location)
    host = there.hostname or ""
    try:
        host += f":{there.port}" if there.port is not None else ""
    except ValueError:
        host += ":?"
    return f"a redirect GitHub's API does not make, to {there.scheme}://{host}{there.path}"


def _target(base_url: str, url: str, location: str) -> SplitResult:
    """Where a request to `url` was redirected (`location`, made absolute against it):
    PyGithub takes a request's path as under `base_url`."""
    absolute = base_url.rstrip("/") + url if url.startswith("/") else url
    return urlsplit(urljoin(absolute, location))


def _origin(url: SplitResult) -> tuple[str, str | None, int | None]:
    """Scheme, host and port (the scheme's own when none is named)."""
    return url.scheme, url.hostname, url.port or {"http": 80, "https": 443}.get(url.scheme)

"""The GitHub layer against the fake GitHub: the fake's own contract first, then the client
(bot.github_client, its retries in bot.github_retry, its tokens and per-thread `Github`s
in bot.github_sessions)."""

from __future__ import annotations

import contextlib
import dataclasses
import email.utils
import functools
import logging
import re
import socket
import ssl
import threading
import time
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from ipaddress import ip_address
from pathlib import Path
from urllib.parse import urljoin

import httpx
import jwt
import pytest
import requests
import urllib3.exceptions
import urllib3.util.connection
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from github import Github, GithubException
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass

from bot import github_deadline, github_errors, github_pacing, github_retry, github_sessions
from bot.github_client import CLOCK_SLACK, GitHubClient
from bot.github_port import (
    ClientClosed,
    ConversationLocked,
    GitHubError,
    NotInstalled,
    Outcome,
    PRRef,
    RestoreOutcome,
    RestoreResult,
    StickyResult,
    counting_writes,
    never_sent,
    rate_limit_wait,
    watching_limits,
)
from bot.github_retry import Retrier, RetryPolicy
from bot.installations import InstallationChange
from bot.markers import REPLY_MARKER, reply_key
from bot.prstate import WriteBackHistory
from bot.times import utcnow
from tests.conftest import FAST_RETRY, AppKey
from tests.fake_github import (
    DEFAULT_APP_ID,
    DEFAULT_APP_SLUG,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeGitHub,
    Fault,
    iso_time,
)
from tests.webhook_kit import wait_until

# --- the fake speaks GitHub -------------------------------------------------


@pytest.fixture
def http() -> Iterator[httpx.Client]:
    with httpx.Client(verify=False) as client:  # plain http to loopback: skip loading CA certs
        yield client


def _app_jwt(key: AppKey, iss: int | str = DEFAULT_APP_ID) -> str:
    now = int(time.time())
    claims = {"iat": now - 60, "exp": now + 300, "iss": str(iss)}
    return jwt.encode(claims, key.private_pem, algorithm="RS256")


def _token(http: httpx.Client, fake: FakeGitHub, key: AppKey) -> str:
    url = f"{fake.base_url}/app/installations/{DEFAULT_INSTALLATION_ID}/access_tokens"
    bearer = {"Authorization": f"Bearer {_app_jwt(key)}"}
    r = http.post(url, headers=bearer, json={"permissions": {}})
    assert r.status_code == 201
    assert r.json()["expires_at"].endswith("Z")
    return r.json()["token"]


def test_fake_rejects_a_jwt_from_another_key_or_app(http, fake_github, app_key):
    url = f"{fake_github.base_url}/app"
    bearer = {"Authorization": f"Bearer {_app_jwt(app_key)}"}
    assert http.get(url, headers=bearer).status_code == 200
    wrong_iss = _app_jwt(app_key, iss=DEFAULT_APP_ID + 1)
    assert http.get(url, headers={"Authorization": f"Bearer {wrong_iss}"}).status_code == 401
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = stranger.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    forged = _app_jwt(AppKey(pem, ""))
    assert http.get(url, headers={"Authorization": f"Bearer {forged}"}).status_code == 401
    token = _token(http, fake_github, app_key)  # a token is no JWT
    assert http.get(url, headers={"Authorization": f"Bearer {token}"}).status_code == 401


def test_fake_checks_tokens_and_their_expiry(http, fake_github, app_key):
    token = _token(http, fake_github, app_key)
    url = f"{fake_github.base_url}/repos/{DEFAULT_REPO}"
    assert http.get(url, headers={"Authorization": f"token {token}"}).status_code == 200
    made_up = http.get(url, headers={"Authorization": "token ghs_made_up"})
    assert made_up.json()["message"] == "Bad credentials"
    assert fake_github.expire_tokens() == 1
    assert http.get(url, headers={"Authorization": f"token {token}"}).status_code == 401
    assert [r.status for r in fake_github.calls("GET", "/repos/*")] == [200, 401, 401]


def test_fake_paginates_files_like_github_with_the_3000_cap(http, fake_github, app_key):
    fake_github.add_pull(DEFAULT_REPO, 9, files=[f"f{i}.py" for i in range(3100)])
    token = _token(http, fake_github, app_key)
    url = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/pulls/9/files"
    auth = {"Authorization": f"token {token}"}
    first = http.get(url, params={"per_page": 100}, headers=auth)
    assert len(first.json()) == 100
    assert first.headers["link"] == (
        f'<{url}?per_page=100&page=2>; rel="next", <{url}?per_page=100&page=30>; rel="last"'
    )
    default = http.get(url, headers=auth)  # 30 a page by default, page never first
    assert len(default.json()) == 30
    assert f'<{url}?per_page=30&page=100>; rel="last"' in default.headers["link"]
    last = http.get(url, params={"per_page": 100, "page": 30}, headers=auth)
    assert last.json()[-1]["filename"] == "f2999.py"
    assert 'rel="next"' not in last.headers["link"]
    assert http.get(url, params={"per_page": 500, "page": 31}, headers=auth).json() == []


# GitHub serves a repository's routes under /repositories/{id}/... too (a rename
# keeps the id); the fake answers them as under the repository's current name, records
# them (and matches faults) by that name, and answers an id it has no repository of 404
def test_fake_serves_a_repository_by_its_id_under_its_current_name(http, fake_github, app_key):
    repo = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 9, title="by id")
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    auth = {"Authorization": f"token {_token(http, fake_github, app_key)}"}
    base = f"{fake_github.base_url}/repositories"
    assert http.get(f"{base}/{repo.id}", headers=auth).json()["full_name"] == "vllm-org/vllm"
    assert http.get(f"{base}/{repo.id}/pulls/9", headers=auth).json()["title"] == "by id"
    assert http.get(f"{base}/{repo.id + 1}/pulls/9", headers=auth).status_code == 404
    fake_github.inject("GET", "/repos/vllm-org/vllm/pulls/9", Fault.error(502))
    assert http.get(f"{base}/{repo.id}/pulls/9", headers=auth).status_code == 502
    asked = [(r.path, r.by_id, r.status) for r in fake_github.calls("GET", "/repo*")]
    assert asked == [
        ("/repos/vllm-org/vllm", True, 200),
        ("/repos/vllm-org/vllm/pulls/9", True, 200),
        (f"/repositories/{repo.id + 1}/pulls/9", True, 404),
        ("/repos/vllm-org/vllm/pulls/9", True, 502),
    ]


# A list asked by the id links its next pages by the id too, as GitHub's do: by the name
# they would reach whichever repository holds the name now
def test_fake_links_the_pages_of_a_list_asked_by_id_by_that_id(http, fake_github, app_key):
    repo = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 9, files=[f"f{i}.py" for i in range(150)])
    auth = {"Authorization": f"token {_token(http, fake_github, app_key)}"}
    url = f"{fake_github.base_url}/repositories/{repo.id}/pulls/9/files"
    first = http.get(url, params={"per_page": 100}, headers=auth)
    assert first.headers["link"] == (
        f'<{url}?per_page=100&page=2>; rel="next", <{url}?per_page=100&page=2>; rel="last"'
    )


# GitHub answers a renamed repository's old name with a redirect to the id route
# (301 for a GET, 307 for a write; docs/internals.md): the fake does too, and a call by
# id is served, never redirected (its repository back under a name it had redirects no
# more). `transfer(..., to="name")`: each old name to the next name, for a chain of moves.
def test_fake_redirects_a_renamed_repository_s_old_name_to_its_id(http, fake_github, app_key):
    repo = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 9)
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    auth = {"Authorization": f"token {_token(http, fake_github, app_key)}"}
    old = f"{fake_github.base_url}/repos/{DEFAULT_REPO}"
    by_id = f"{fake_github.base_url}/repositories/{repo.id}"
    read = http.get(f"{old}/pulls/9", headers=auth)
    assert (read.status_code, read.headers["location"]) == (301, f"{by_id}/pulls/9")
    write = http.post(f"{old}/issues/9/comments", headers=auth, json={"body": "x"})
    assert (write.status_code, write.headers["location"]) == (307, f"{by_id}/issues/9/comments")
    assert write.json()["url"] == f"{by_id}/issues/9/comments"
    fake_github.transfer("vllm-org/vllm", DEFAULT_REPO)  # back under its first name
    assert http.get(f"{by_id}/pulls/9", headers=auth).status_code == 200
    fake_github.transfer(DEFAULT_REPO, "b/vllm", to="name")
    moved = http.get(f"{old}/pulls/9", headers=auth)
    assert moved.headers["location"] == f"{fake_github.base_url}/repos/b/vllm/pulls/9"


# A name that redirects nowhere (here, never used) is answered 404 with GitHub's JSON
# body until a new repository takes it, which `take_name` does as for a name a transfer
# left (it raised KeyError); the name of a repository is not free
def test_fake_a_name_redirecting_nowhere_answers_404_until_a_repository_takes_it(
    http, fake_github, app_key
):
    auth = {"Authorization": f"token {_token(http, fake_github, app_key)}"}
    url = f"{fake_github.base_url}/repos/octo/free"
    gone = http.get(url, headers=auth)
    assert (gone.status_code, gone.json()["message"]) == (404, "Not Found")
    assert gone.json()["documentation_url"].startswith("https://docs.github.com/")
    taken = fake_github.take_name("octo/free", 4242)
    assert http.get(url, headers=auth).json()["id"] == taken.id == 4242
    with pytest.raises(ValueError, match="a repository's name"):
        fake_github.take_name("octo/free")
    assert [r.status for r in fake_github.calls("GET", "/repos/octo/free")] == [404, 200]


def test_fake_faults_are_used_once_in_order_and_recorded(http, fake_github, app_key):
    token = _token(http, fake_github, app_key)
    url = f"{fake_github.base_url}/repos/{DEFAULT_REPO}"
    fake_github.inject("GET", "/repos/*", Fault.error(503), Fault.too_many_requests(retry_after=7))
    auth = {"Authorization": f"token {token}"}
    assert http.get(url, headers=auth).status_code == 503
    second = http.get(url, headers=auth)
    assert (second.status_code, second.headers["retry-after"]) == (429, "7")
    third = http.get(url, headers=auth)
    assert third.status_code == 200
    assert int(third.headers["x-ratelimit-remaining"]) < 5000
    assert fake_github.pending_faults() == 0
    assert [r.faulted for r in fake_github.calls("GET", "/repos/*")] == [True, True, False]


# --- the client -----------------------------------------------------------------

PR = PRRef(DEFAULT_REPO, 7, DEFAULT_INSTALLATION_ID)
PR8 = PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID)  # another PR, another worker
MARKER = "<!-- review-notes:sticky -->"
FILES_ROUTE = "/repos/{owner}/{repo}/pulls/{number}/files"
COMMENTS_ROUTE = "/repos/{owner}/{repo}/issues/{number}/comments"
TOKENS = "/app/installations/*/access_tokens"


def _sticky(text: str) -> str:
    return f"{MARKER}\n{text}"


def _notes_comment_posted(fake: FakeGitHub, make_client) -> tuple[GitHubClient, int]:
    """PR 7 with the bot's notes comment `_sticky("v1")` on it: the client and its id."""
    fake.add_pull(DEFAULT_REPO, 7)
    client = make_client()
    return client, client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True).comment_id


def _mints(fake: FakeGitHub) -> int:
    return len(fake.calls("POST", TOKENS))


def _gaps(fake: FakeGitHub, method: str, path: str) -> list[float]:
    times = [r.time for r in fake.calls(method, path)]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


def test_app_mode_mints_once_and_writes_as_the_bot(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["vllm/a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["vllm/b.py"])
    client = make_github_client()
    assert client.list_files(PR) == ["vllm/a.py"]
    result = client.upsert_sticky(PR, _sticky("one"), MARKER, create=True)
    client.upsert_sticky(
        PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID), _sticky("x"), MARKER, create=True
    )
    assert result.outcome is Outcome.CREATED
    [posted] = fake_github.comments(DEFAULT_REPO, 7)
    assert (posted.id, posted.user.login, posted.user.type) == (
        result.comment_id,
        "review-notes[bot]",
        "Bot",
    )
    assert _mints(fake_github) == 1 and len(fake_github.calls("GET", "/app")) == 1
    assert client.bot_login() == "review-notes[bot]"


def test_token_mode_writes_as_the_token_user(fake_github, make_github_client):
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(token="ghp_test")
    assert client.upsert_sticky(PR, _sticky("a"), MARKER, create=True).outcome is Outcome.CREATED
    assert client.upsert_sticky(PR, _sticky("b"), MARKER, create=True).outcome is Outcome.UPDATED
    assert [c.user.login for c in fake_github.comments(DEFAULT_REPO, 7)] == ["notes-bot"]
    assert len(fake_github.calls("GET", "/user")) == 1  # login asked once
    assert _mints(fake_github) == 0


def test_with_a_token_its_owners_raw_copy_of_the_notes_comment_is_a_second_of_ours(
    fake_github, make_github_client
):
    # docs/commands.md: the owner writes as the bot's login, so a pasted source (marker
    # first) cannot be told from a second notes comment of the bot's; a quote can
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(token="ghp_test")
    kept = client.upsert_sticky(PR, _sticky("a"), MARKER, create=True).comment_id
    fake_github.add_comment(DEFAULT_REPO, 7, _sticky("a"), login="notes-bot")
    quoted = fake_github.add_comment(DEFAULT_REPO, 7, f"> {MARKER}\n> a", login="notes-bot")
    assert client.upsert_sticky(PR, _sticky("b"), MARKER, create=True).comment_id == kept
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [kept, quoted.id]


def test_an_unknown_token_fails_at_once_with_a_clear_error(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(token="ghp_revoked")
    with pytest.raises(GitHubError, match="401 Bad credentials") as caught:
        client.list_files(PR)
    assert (caught.value.status, caught.value.transient) == (401, False)
    assert len(fake_github.requests) == 1


def test_a_bad_private_key_is_refused_at_construction(fake_github):
    with pytest.raises(ValueError, match="private key"):
        GitHubClient(base_url=fake_github.base_url, app_id=1, private_key="not a key")
    with pytest.raises(ValueError, match="app_id and private_key, or token"):
        GitHubClient(base_url=fake_github.base_url, app_id=1, private_key="k", token="t")


def test_the_app_key_is_parsed_once_not_for_each_jwt(fake_github, make_github_client, monkeypatch):
    # PyJWT parses a PEM key again for every JWT it signs (each token mint, each App
    # call), and the parse checks the RSA key whole: tens of ms of CPU each, for nothing
    # (the key does not change). The client hands it the key it parsed once.
    parses = []
    parse = jwt.algorithms.load_pem_private_key

    def counted(data, *args, **kwargs):
        if b"PRIVATE KEY" in data:  # the client's (the fake's check tries its public key)
            parses.append(1)
        return parse(data, *args, **kwargs)

    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    monkeypatch.setattr(jwt.algorithms, "load_pem_private_key", counted)
    assert client.list_files(PR) == ["a.py"]  # a token minted: a JWT signed
    assert [r.path for r in fake_github.requests if "access_tokens" in r.path]
    assert parses == []


def test_a_token_near_expiry_is_replaced_before_use(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.token_ttl = 3600
    fresh = make_github_client(token_refresh_margin=300)
    fresh.list_files(PR)
    fresh.list_files(PR)
    assert _mints(fake_github) == 1
    fake_github.token_ttl = 200  # expires within the 300 s margin: never used as is
    short = make_github_client(token_refresh_margin=300)
    short.list_files(PR)
    short.list_files(PR)
    assert _mints(fake_github) == 3
    assert all(r.status == 200 for r in fake_github.calls("GET", "/repos/*"))


def test_a_401_drops_the_token_mints_a_new_one_and_retries_once(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    client.list_files(PR)
    fake_github.expire_tokens()  # the server forgets it early; our cache still trusts it
    assert client.list_files(PR) == ["a.py"]
    assert _mints(fake_github) == 2
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [200, 401, 200]


def test_a_second_401_after_a_fresh_token_is_an_error(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("GET", "/repos/*/files", Fault.bad_credentials(), Fault.bad_credentials())
    with pytest.raises(GitHubError) as caught:
        make_github_client().list_files(PR)
    assert caught.value.status == 401
    assert _mints(fake_github) == 2


def test_a_token_mint_the_app_key_is_refused_for_says_what_to_fix(fake_github, make_github_client):
    # An operator's walkthrough of App mode: the App's key deleted in its settings while
    # the server ran (a rotation done in the other order) failed each delivery with
    # "GitHub mint a token for installation N: 401 A JSON web token could not be
    # decoded", in the log, /healthz and `retry`, and nothing of the key, as the
    # start's refusal of the same credentials says.
    from tests.conftest import new_app_key

    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    client.list_files(PR)
    fake_github.app_public_key = new_app_key().public_pem  # the bot's key deleted there
    fake_github.expire_tokens()
    with pytest.raises(GitHubError) as caught:
        client.list_files(PR)
    said = str(caught.value)
    assert caught.value.status == 401 and said.startswith("GitHub mint a token"), said
    assert "one of the App's private keys" in said and "GITHUB_APP_ID" in said, said
    assert "review-notes retry --all" in said and caught.value.advised, said


def test_the_installation_is_looked_up_once_when_the_ref_has_none(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    ref = PRRef(DEFAULT_REPO, 7)
    assert client.list_files(ref) == client.list_files(ref) == ["a.py"]
    assert len(fake_github.calls("GET", f"/repos/{DEFAULT_REPO}/installation")) == 1


def test_concurrent_workers_share_one_token(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: client.list_files(PR), range(8)))
    assert results == [["a.py"]] * 8
    assert _mints(fake_github) == 1


def _in_threads(*calls) -> list:
    """Run each call in a thread of its own, all at once; their results in order."""
    results: list = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i: int) -> None:
        start.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("mode", ["app", "token"])
def test_threads_never_get_each_others_answers(fake_github, make_github_client, monkeypatch, mode):
    # PyGithub's connection is not thread-safe (PyGithub PR #2052): request() stores the
    # verb and URL, getresponse() sends them. Here both threads are made to pass request()
    # before either sends, which a thread switch can do at any time: on one shared
    # connection, one PR then gets the other PR's files.
    fake_github.add_pull(DEFAULT_REPO, 1, files=["a/1.py"])
    fake_github.add_pull(DEFAULT_REPO, 2, files=["b/1.py"])
    fake_github.add_pat("ghp_test", "notes-bot")
    client = make_github_client(token="ghp_test") if mode == "token" else make_github_client()
    client.list_files(PRRef(DEFAULT_REPO, 1, DEFAULT_INSTALLATION_ID))  # token minted, warm
    real, both_stored = HTTPRequestsConnectionClass.request, threading.Barrier(2)

    def request(self, *args, **kwargs):
        real(self, *args, **kwargs)
        both_stored.wait(10)  # the other thread runs request() now

    monkeypatch.setattr(HTTPRequestsConnectionClass, "request", request)
    files = [
        lambda n=n: list(client.list_files(PRRef(DEFAULT_REPO, n, DEFAULT_INSTALLATION_ID)))
        for n in (1, 2)
    ]
    assert _in_threads(*files) == [["a/1.py"], ["b/1.py"]]


def _recording_githubs(monkeypatch) -> tuple[list[Github], list[Github]]:
    """The Githubs the sessions make from now on, and those closed of them."""
    made: list[Github] = []
    closed: list[Github] = []

    class Recorded(Github):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

        def close(self) -> None:
            closed.append(self)
            super().close()

    monkeypatch.setattr(github_sessions, "Github", Recorded)
    return made, closed


def test_each_thread_has_its_own_github_and_close_closes_them_all(
    fake_github, make_github_client, monkeypatch
):
    made, closed = _recording_githubs(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    assert client.list_files(PR) == client.list_files(PR) == ["a.py"]
    assert len(made) == 1  # this thread's, kept
    assert (
        _in_threads(lambda: client.list_files(PR), lambda: client.list_files(PR)) == [["a.py"]] * 2
    )
    assert len(made) == 3 and _mints(fake_github) == 1  # one each, one token for all
    fake_github.expire_tokens()
    assert client.list_files(PR) == ["a.py"]  # 401: a new token, and a new Github here
    assert len(made) == 4 and closed == [made[0]]  # only this thread's old one is closed
    client.close()
    assert sorted(map(id, closed)) == sorted(map(id, made))  # every one, once
    # every Github's calls are counted
    files = fake_github.calls("GET", "/repos/*/files")
    assert client.calls.total("GET", FILES_ROUTE) == len(files) == 6


# A call after `close` (a worker the stop left behind: a token's, or one whose token's mint
# was under way across the stop) made its thread a new Github, kept for a `close` long
# past and never closed; only the call itself was then refused
def test_a_call_after_close_makes_no_github_left_open(fake_github, make_github_client, monkeypatch):
    made, closed = _recording_githubs(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pat("ghp_test", "notes-bot")
    client = make_github_client(token="ghp_test")
    _in_threads(lambda: client.list_files(PR))  # this thread has none yet
    client.close()
    fake_github.clear_requests()
    with pytest.raises(ClientClosed):
        client.list_files(PR)
    assert fake_github.requests == []
    assert len(made) == 1 and closed == made


def test_a_token_minted_across_close_makes_no_github_left_open(
    fake_github, make_github_client, monkeypatch
):
    made, closed = _recording_githubs(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("POST", TOKENS, Fault.slow(0.5))
    client = make_github_client()
    failed: list[BaseException] = []

    def call() -> None:
        with pytest.raises(ClientClosed) as raised:
            client.list_files(PR)
        failed.append(raised.value)

    caller = threading.Thread(target=call)
    caller.start()
    wait_until(lambda: fake_github.calls("POST", TOKENS))
    client.close()  # (waits for the mint: it holds the App's requester)
    caller.join(10)
    assert failed and fake_github.calls("GET", "/repos/*/files") == []
    assert closed == made


def test_threads_of_one_installation_share_the_request_spacing(
    fake_github, make_github_client, monkeypatch
):
    used: list[tuple[int, str]] = []
    real = github_pacing.Pacer.before

    def before(self, verb: str) -> None:
        if verb == "GET":  # the files; the token's mint (a POST) is the App's own
            used.append((id(self), threading.current_thread().name))
        real(self, verb)

    monkeypatch.setattr(github_pacing.Pacer, "before", before)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client(seconds_between_requests=0.001, seconds_between_writes=0.001)
    client.list_files(PR)
    _in_threads(lambda: client.list_files(PR), lambda: client.list_files(PR))
    assert len({thread for _, thread in used}) == 3
    assert len({pacer for pacer, _ in used}) == 1


# --- files ------------------------------------------------------------------------


def test_files_over_100_take_one_call_a_hundred_and_renames_give_both_paths(
    fake_github, make_github_client
):
    files = [f"vllm/f{i:03}.py" for i in range(249)] + [("vllm/new.py", "vllm/old.py")]
    fake_github.add_pull(DEFAULT_REPO, 7, files=files)
    client = make_github_client()
    paths = client.list_files(PR)
    assert paths[:2] == ["vllm/f000.py", "vllm/f001.py"]
    assert paths[-2:] == ["vllm/new.py", "vllm/old.py"]
    assert len(paths) == 251
    pages = fake_github.calls("GET", "/repos/*/files")
    assert [r.query.get("per_page") for r in pages] == ["100"] * 3
    assert client.calls.total("GET", FILES_ROUTE, "200") == 3


def test_a_pr_over_3000_files_lists_the_first_3000(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=[f"f{i}.py" for i in range(3200)])
    paths = make_github_client().list_files(PR)
    assert len(paths) == 3000 and paths[-1] == "f2999.py"
    assert len(fake_github.calls("GET", "/repos/*/files")) == 30


def test_a_failed_page_is_fetched_again_without_starting_over(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=[f"f{i}.py" for i in range(250)])
    fake_github.inject("GET", "/repos/*/files", Fault.error(502), query={"page": "2"})
    assert len(make_github_client().list_files(PR)) == 250
    pages = [
        (r.query.get("page", "1"), r.status) for r in fake_github.calls("GET", "/repos/*/files")
    ]
    assert pages == [("1", 200), ("2", 502), ("2", 200), ("3", 200)]


# kills: bot/github_sessions.py:GitHubSessions._count a 5xx taken for GitHub answering
# kills: bot/github_sessions.py:GitHubSessions._count an answer timed by another try's sending
@pytest.mark.parametrize(
    "pr, faults, answered",
    [
        (PR, [Fault.error(s) for s in (500, 502, 503, 504)], None),  # every try a 5xx: down
        (PR, [Fault.error(503)], 2),  # the next try answered: when it was sent
        (PR8, [], 1),  # 404 (no such PR): a refusal is an answer
    ],
    ids=["down", "back", "refused"],
)
def test_a_run_is_told_whether_github_answered_a_call_and_when_it_was_sent(
    fake_github, make_github_client, monkeypatch, pr, faults, answered
):
    # what ends an outage's pause of the queue (bot.workers): not a run that called
    # nothing, nor one every call of which met a 5xx; a run in hand as the pause began
    # only by a call sent after it began (the sending's time, on a clock told each try)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pat("ghp_test", "notes-bot")
    client = make_github_client(token="ghp_test")
    fake_github.inject("GET", "/repos/*/files", *faults)
    tries = iter(range(1, 100))
    monkeypatch.setattr(github_sessions, "utcnow", lambda: _at(next(tries)))
    with watching_limits() as seen:
        with contextlib.suppress(GitHubError):
            client.list_files(pr)
    assert seen.answered == (None if answered is None else _at(answered))
    assert fake_github.calls("GET", "/repos/*/files")  # (it called)


def _at(second: int) -> str:
    """A time on a test's clock, as the queue keeps times (`utcnow()` format)."""
    return f"2030-01-01T00:00:{second:02d}.000000Z"


# --- the sticky comment -----------------------------------------------------------


def test_sticky_create_update_unchanged_and_what_each_costs(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.bot_login()
    client.list_files(PR)  # warm: token minted, login known
    fake_github.clear_requests()

    created = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True)
    assert [r.method for r in fake_github.requests] == ["GET", "POST"]
    updated = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True)
    unchanged = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True)
    assert [r.method for r in fake_github.requests] == ["GET", "POST", "GET", "PATCH", "GET"]

    assert created.outcome is Outcome.CREATED
    assert updated == StickyResult(Outcome.UPDATED, created.comment_id)
    assert unchanged == StickyResult(Outcome.UNCHANGED, created.comment_id)
    [only] = fake_github.comments(DEFAULT_REPO, 7)
    assert only.body == _sticky("v2")


def test_create_false_edits_but_never_creates(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    assert client.upsert_sticky(PR, _sticky("none"), MARKER, create=False) == StickyResult(
        Outcome.SKIPPED
    )
    assert fake_github.comments(DEFAULT_REPO, 7) == []
    assert fake_github.calls("POST", "/repos/*") == []
    client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True)
    assert client.upsert_sticky(PR, _sticky("v2"), MARKER, create=False).outcome is Outcome.UPDATED


def test_comments_of_others_carrying_the_marker_are_never_touched(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    quoted = fake_github.add_comment(
        DEFAULT_REPO, 7, f"> {MARKER}\n> quoting the bot", login="alice"
    )
    other_bot = fake_github.add_comment(
        DEFAULT_REPO, 7, _sticky("theirs"), login="x[bot]", bot=True
    )
    client = make_github_client()
    first = client.upsert_sticky(PR, _sticky("ours"), MARKER, create=True)
    second = client.upsert_sticky(PR, _sticky("ours, v2"), MARKER, create=True)
    assert first.outcome is Outcome.CREATED and second.comment_id == first.comment_id
    assert fake_github.comment(quoted.id).body == f"> {MARKER}\n> quoting the bot"
    assert fake_github.comment(other_bot.id).body == _sticky("theirs")
    touched = {r.path for r in fake_github.requests if r.method in ("PATCH", "DELETE")}
    assert touched == {f"/repos/{DEFAULT_REPO}/issues/comments/{first.comment_id}"}
    assert (
        client.upsert_sticky(PR, _sticky("x"), MARKER, create=False).comment_id == first.comment_id
    )


def test_a_second_notes_comment_of_ours_is_deleted_and_the_oldest_kept(
    fake_github, make_github_client
):
    # two of ours (a race, a lost answer): only the oldest is edited, so the other would
    # show stale notes for good; it goes, also when the oldest needs no edit, and a
    # delete that finds it gone already (404) is done, not a failure
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    login = client.bot_login()
    oldest = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True).comment_id
    quoted = fake_github.add_comment(DEFAULT_REPO, 7, _sticky("v1"), login="alice")
    copies = [fake_github.add_comment(DEFAULT_REPO, 7, _sticky("v0"), login=login, bot=True)]
    copies.append(fake_github.add_comment(DEFAULT_REPO, 7, _sticky("v0"), login=login, bot=True))
    fake_github.inject("DELETE", f"/repos/*/issues/comments/{copies[0].id}", Fault.error(502))
    lost = Fault.error(502, apply=True)  # deleted, but the answer was lost: the retry 404s
    fake_github.inject("DELETE", f"/repos/*/issues/comments/{copies[1].id}", lost)
    fake_github.clear_requests()
    assert client.upsert_sticky(PR, _sticky("v1"), MARKER, create=False) == StickyResult(
        Outcome.UNCHANGED, oldest
    )
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [oldest, quoted.id]
    deletes = [(int(r.path.rsplit("/", 1)[1]), r.status) for r in fake_github.calls("DELETE")]
    first, second = copies[0].id, copies[1].id
    assert deletes == [(first, 502), (first, 204), (second, 502), (second, 404)]
    assert client.calls.total("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}") == 4


def test_a_comment_the_list_lacks_is_asked_for_by_its_id_before_it_counts_as_gone(
    fake_github, make_github_client
):
    # the caller takes a comment gone for one a maintainer deleted (and leaves the PR
    # alone), so a list lagging behind a write must not decide it: one GET does
    client, made = _notes_comment_posted(fake_github, make_github_client)
    lagging = []

    def lags(page):
        lagging.append(made)
        return [c for c in page if c["id"] != made]

    fake_github.lag_next_comment_list(lags)
    fake_github.clear_requests()
    edited = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True, known_id=made)
    assert edited == StickyResult(Outcome.UPDATED, made) and lagging
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v2")]
    assert fake_github.calls("GET", f"/repos/*/issues/comments/{made}")
    # really gone (404): nothing of ours, and only a create makes one
    with fake_github._lock:
        del fake_github._comments[made]
    gone = client.upsert_sticky(PR, _sticky("v3"), MARKER, create=False, known_id=made)
    assert gone == StickyResult(Outcome.SKIPPED) and fake_github.comments(DEFAULT_REPO, 7) == []
    again = client.upsert_sticky(PR, _sticky("v3"), MARKER, create=True, known_id=made)
    assert again.outcome is Outcome.CREATED


# the comment asked for by its id is edited only when it is on this PR. The
# id comes from the PR's state; GitHub serves any comment of the repository by its id
# (another PR's notes comment too), so a state carrying another PR's id, by whatever
# path, had the bot write this PR's notes over that PR's comment. No path known writes
# one: a guard of the rule that the bot never touches another PR.
# kills: bot/github_client.py:GitHubClient._listed_late the warning naming no issue where the
#        comment's answer named one (`or` made `and`)
def test_a_comment_asked_for_by_its_id_is_not_edited_when_it_is_on_another_pr(
    fake_github, make_github_client, caplog
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.add_pull(DEFAULT_REPO, 8)
    client = make_github_client()
    elsewhere = PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID)
    other = client.upsert_sticky(elsewhere, _sticky("PR 8's"), MARKER, create=True).comment_id
    caplog.set_level("WARNING", logger="bot.github_client")
    result = client.upsert_sticky(PR, _sticky("PR 7's"), MARKER, create=False, known_id=other)
    assert result == StickyResult(Outcome.SKIPPED)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 8)] == [_sticky("PR 8's")]
    assert fake_github.calls("PATCH") == [] and fake_github.comments(DEFAULT_REPO, 7) == []
    (said,) = [r.getMessage() for r in caplog.records if f"comment {other} is on" in r.getMessage()]
    assert f"on another issue ({fake_github.base_url}/repos/{DEFAULT_REPO}/issues/8)" in said


def test_a_comment_s_text_is_read_only_on_this_pr_and_while_it_is_there(
    fake_github, make_github_client
):
    # GitHub serves any comment of the repository by its id: one on another PR is none of
    # this one's (a command's words read back, bot.command_answers)
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.add_pull(DEFAULT_REPO, 8)
    here = fake_github.add_comment(DEFAULT_REPO, 7, "/notes wrong 2")
    there = fake_github.add_comment(DEFAULT_REPO, 8, "/notes wrong 1")
    client = make_github_client()
    assert client.comment_text(PR, here.id) == "/notes wrong 2"
    assert client.comment_text(PR, there.id) is None
    assert client.comment_text(PR, there.id + 1000) is None  # gone: deleted


# kills: bot/github_client.py:GitHubClient._listed_late the comment's issue compared by the
#        repository's name too: under its old name GitHub answers with the new one's
def test_a_comment_the_list_lacks_is_still_edited_under_the_repository_s_old_name(
    fake_github, make_github_client
):
    client, made = _notes_comment_posted(fake_github, make_github_client)
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")  # a delivery from before the rename
    fake_github.lag_next_comment_list(lambda page: [c for c in page if c["id"] != made])
    edited = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=False, known_id=made)
    assert edited == StickyResult(Outcome.UPDATED, made)
    assert [c.body for c in fake_github.comments("vllm-org/vllm", 7)] == [_sticky("v2")]


@pytest.mark.parametrize(("create", "outcome"), [(False, Outcome.SKIPPED), (True, Outcome.CREATED)])
def test_a_comment_deleted_between_the_list_and_the_edit_is_gone_not_a_failure(
    fake_github, make_github_client, monkeypatch, create, outcome
):
    # the edit's 404 used to fail the delivery; it means the comment was deleted since
    # the list: as if the list had come a moment later
    from tests import fake_github as fg

    client, made = _notes_comment_posted(fake_github, make_github_client)

    def deleted_meanwhile(who, params, query, body):
        del fake_github._comments[int(params["cid"])]  # the human's DELETE came first
        raise fg._HTTPError(404, "Not Found")

    monkeypatch.setattr(fake_github, "_edit_comment", deleted_meanwhile)
    result = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=create, known_id=made)
    assert result.outcome is outcome
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v2")] * create
    assert len(fake_github.calls("PATCH")) == 1  # a 404 is not retried


# A 404 to the edit of our notes comment was taken for its deletion, a maintainer's "go
# away" (the PR's updates turned off; with `create`, a new comment posted beside it),
# whatever answered it. GitHub answers 404 too when the token no longer sees the
# repository (taken off the App, deleted): only a comment GitHub no longer shows, in a
# repository it still shows, was deleted.
# kills: bot/github_client.py:GitHubClient._gone_when_called any 404 to a PATCH or DELETE
#        taken for the comment deleted, a copy posted beside the one still there
@pytest.mark.parametrize("create", [False, True])
def test_a_404_to_the_edit_of_a_comment_still_there_is_no_deletion(
    fake_github, make_github_client, create
):
    client, made = _notes_comment_posted(fake_github, make_github_client)
    fake_github.inject("PATCH", f"/repos/*/issues/comments/{made}", Fault.not_found())
    fake_github.clear_requests()
    with pytest.raises(GitHubError) as raised:
        client.upsert_sticky(PR, _sticky("v2"), MARKER, create=create, known_id=made)
    assert raised.value.status == 404 and "the comment is still there" in str(raised.value)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v1")]
    looks = [r.path for r in fake_github.requests if r.method == "GET"]
    assert f"/repos/{DEFAULT_REPO}/issues/comments/{made}" in looks
    assert fake_github.calls("POST", "/repos/*/issues/*/comments") == []


# kills: bot/github_client.py:GitHubClient._gone_when_called a 404 of a repository taken off
#        the App, or deleted, between the comment list and the edit taken for a deletion
@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize("how", ["taken off the App", "deleted"])
def test_a_404_to_the_edit_from_a_repository_no_longer_seen_is_no_deletion(
    fake_github, make_github_client, how, create
):
    client, made = _notes_comment_posted(fake_github, make_github_client)

    def gone() -> None:  # after the comment list, before our PATCH
        if how == "deleted":
            fake_github.delete_repo(DEFAULT_REPO)
        else:
            fake_github.take_off(DEFAULT_REPO)

    fake_github.inject("PATCH", f"/repos/*/issues/comments/{made}", Fault.landed_after(gone))
    fake_github.clear_requests()
    with pytest.raises(NotInstalled):
        client.upsert_sticky(PR, _sticky("v2"), MARKER, create=create, known_id=made)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v1")]
    assert fake_github.calls("POST", "/repos/*/issues/*/comments") == []


# kills: bot/github_client.py:GitHubClient._on_this_pr a 404 to the GET of a comment by its id
#        taken for the comment gone while the repository is no longer seen (a command's words
#        read back as deleted, a write-back's comment as gone)
def test_a_404_to_a_comment_s_look_from_a_repository_taken_off_the_app_is_no_deletion(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    said = fake_github.add_comment(DEFAULT_REPO, 7, "/notes wrong 2")
    client = make_github_client()
    taken_off = Fault.landed_after(lambda: fake_github.take_off(DEFAULT_REPO))
    fake_github.inject("GET", f"/repos/*/issues/comments/{said.id}", taken_off)
    with pytest.raises(NotInstalled):
        client.comment_text(PR, said.id)


# kills: bot/github_client.py:GitHubClient._gone_when_called a deletion's look costing more
#        than its two GETs (the comment, the repository), or asking before any 404
def test_a_deletion_is_confirmed_with_two_gets_and_only_after_a_404(
    fake_github, make_github_client
):
    client, made = _notes_comment_posted(fake_github, make_github_client)
    fake_github.clear_requests()
    edited = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=False, known_id=made)
    assert edited == StickyResult(Outcome.UPDATED, made)
    assert [r.method for r in fake_github.requests] == ["GET", "PATCH"]  # the list, the edit
    deleted = Fault.landed_after(lambda: fake_github.delete_comment(made))  # a maintainer's
    fake_github.inject("PATCH", f"/repos/*/issues/comments/{made}", deleted)
    fake_github.clear_requests()
    gone = client.upsert_sticky(PR, _sticky("v3"), MARKER, create=False, known_id=made)
    assert gone == StickyResult(Outcome.SKIPPED)
    asked = [(r.method, r.path, r.status) for r in fake_github.requests]
    assert asked[1:] == [
        ("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/{made}", 404),
        ("GET", f"/repos/{DEFAULT_REPO}/issues/comments/{made}", 404),
        ("GET", f"/repos/{DEFAULT_REPO}", 200),
    ]


def test_the_sticky_is_found_on_a_later_page_of_comments(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    for i in range(120):
        fake_github.add_comment(DEFAULT_REPO, 7, f"comment {i}")
    client = make_github_client()
    made = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True)
    assert client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True) == StickyResult(
        Outcome.UNCHANGED, made.comment_id
    )


def test_a_body_without_its_marker_is_refused(make_github_client):
    with pytest.raises(ValueError, match="marker"):
        make_github_client().upsert_sticky(PR, "no marker", MARKER, create=True)


def test_a_new_pr_costs_three_calls(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 6, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 7, files=[f"f{i}.py" for i in range(80)])
    client = make_github_client()
    client.list_files(PRRef(DEFAULT_REPO, 6, DEFAULT_INSTALLATION_ID))  # first PR pays the token
    client.upsert_sticky(
        PRRef(DEFAULT_REPO, 6, DEFAULT_INSTALLATION_ID), _sticky("a"), MARKER, create=True
    )
    before = client.calls.snapshot()
    fake_github.clear_requests()

    client.list_files(PR)
    client.upsert_sticky(PR, _sticky("notes"), MARKER, create=True)

    assert len(fake_github.requests) == 3
    after = client.calls.snapshot()
    spent = {k: n - before.get(k, 0) for k, n in after.items() if n != before.get(k, 0)}
    assert spent == {
        ("GET", FILES_ROUTE, "200"): 1,
        ("GET", COMMENTS_ROUTE, "200"): 1,
        ("POST", COMMENTS_ROUTE, "201"): 1,
    }
    assert 0 < client.calls.remaining()["installation"] < 5000


# --- faults -----------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_is_retried(fake_github, make_github_client, status):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.error(status))
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [status, 200]
    assert client.calls.total("GET", FILES_ROUTE, str(status)) == 1


def test_a_dropped_connection_is_retried(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.dropped())
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [None, 200]
    assert client.calls.total("GET", FILES_ROUTE, "connection") == 1


def test_an_answer_slower_than_the_timeout_is_retried(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.slow(2.0))
    client = make_github_client(timeout=1)
    assert client.list_files(PR) == ["a.py"]
    assert client.calls.total("GET", FILES_ROUTE, "timeout") == 1
    assert len(fake_github.calls("GET", "/repos/*/files")) == 2


def _within(seconds: float, call: Callable[[], object]) -> object:
    """`call()`'s answer; fails once `seconds` pass without one (the test's own bound on
    its wait, generous: the call goes on in a thread of its own, left to the fake's stop)."""
    answers: list[object] = []
    worker = threading.Thread(target=lambda: answers.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"no answer in {seconds}s"
    assert answers, "the call failed"
    return answers[0]


# requests' timeout bounds each wait on the socket, not the call: an answer trickled in a
# byte at a time, each before the timeout, held the call (and its worker) as long as it
# went on. Past the client's deadline (REVIEW_NOTES_HTTP_DEADLINE) the call now fails as a
# timeout does: a read is asked again, a create looked for before it is posted again
def test_an_answer_trickled_in_past_the_deadline_fails_as_a_timeout(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.trickled(0.2))
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.trickled(0.2))
    client = make_github_client(timeout=1, deadline=1.0)
    assert _within(60, lambda: client.list_files(PR)) == ["a.py"]
    made = _within(60, lambda: client.create_comment(PR, "a reply"))
    assert client.calls.total("GET", FILES_ROUTE, "timeout") == 1
    assert len(fake_github.calls("GET", "/repos/*/files")) == 2
    assert client.calls.total("POST", COMMENTS_ROUTE, "timeout") == 1
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [made]
    assert len(fake_github.calls("POST", "/repos/*/comments")) == 1  # found, not posted again


# A plain-HTTP connection connects inside its request, after the call told the deadline
# which connection it is on, while it had no socket yet: a deadline that passed as it
# connected (a resolver slow to answer) found nothing to shut, and nothing shut it after,
# so the answer trickled in held the call as long as it went on
def test_a_deadline_passed_while_connecting_still_cuts_the_answer(
    fake_github, make_github_client, monkeypatch
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.trickled(0.2))
    client = make_github_client(
        token="ghp_slow_dns",
        timeout=1,
        deadline=1.0,
        retry=dataclasses.replace(FAST_RETRY, attempts=1),
    )
    connect = urllib3.util.connection.create_connection

    def resolved_late(*args: object, **kwargs: object) -> socket.socket:
        time.sleep(1.5)  # past the deadline, before the socket is made
        return connect(*args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", resolved_late)
    failed: list[BaseException] = []

    def call() -> None:
        with pytest.raises(GitHubError, match="timed out") as raised:
            client.list_files(PR)
        failed.append(raised.value)

    caller = threading.Thread(target=call, daemon=True)  # left to the fake's stop, if held
    caller.start()
    caller.join(15)
    assert not caller.is_alive(), "the call was held past its deadline"
    assert failed and failed[0].transient


def _self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key, and the key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    loopback = x509.SubjectAlternativeName([x509.IPAddress(ip_address("127.0.0.1"))])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(loopback, critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@contextmanager
def _trickling_tls_server(
    folder: Path, per_byte: float, give_up: float
) -> Iterator[types.SimpleNamespace]:
    """A loopback TLS server (`.port`) that sends its side of each handshake (hello,
    certificate, ...) one byte every `per_byte` seconds, for at most `give_up` seconds;
    `.sent`: how many bytes of it it sent, one count per connection, once it hung up."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_self_signed(folder))
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    server = types.SimpleNamespace(port=listener.getsockname()[1], sent=[])

    def handshake(conn: socket.socket) -> None:
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        tls = context.wrap_bio(incoming, outgoing, server_side=True)
        sent, until = 0, time.monotonic() + give_up
        with conn, contextlib.suppress(OSError):
            while not outgoing.pending:  # the client's hello, whole
                incoming.write(conn.recv(65536))
                with contextlib.suppress(ssl.SSLWantReadError):
                    tls.do_handshake()
            for byte in outgoing.read():
                if stop.wait(per_byte) or time.monotonic() > until:
                    break
                conn.sendall(bytes([byte]))
                sent += 1
        server.sent.append(sent)

    def serve() -> None:
        with contextlib.suppress(OSError):  # the listener closed
            while True:
                conn, _ = listener.accept()
                threading.Thread(target=handshake, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server
    finally:
        stop.set()
        listener.close()


# A TLS handshake trickled in (a server or a proxy sending its certificate a byte at a
# time) is out of the deadline's reach: the socket the watch would shut is handed to TLS
# (`github_deadline._shut`). Python's ssl bounds the whole handshake by the socket's
# timeout (REVIEW_NOTES_HTTP_TIMEOUT), not each of its reads: the call fails as a timeout
# within it, not when the server gives up
def test_a_tls_handshake_trickled_in_fails_within_the_timeout(tmp_path, make_github_client):
    with _trickling_tls_server(tmp_path, per_byte=0.05, give_up=20) as server:
        client = make_github_client(
            base_url=f"https://127.0.0.1:{server.port}",
            token="ghp_handshake",
            timeout=1,
            deadline=1.0,
            retry=dataclasses.replace(FAST_RETRY, attempts=1),
        )
        began = time.monotonic()
        with pytest.raises(GitHubError, match="timed out") as failed:
            client.is_pull(PR)
        took = time.monotonic() - began
        wait_until(lambda: server.sent, timeout=5, what="the server to hang up")
    assert failed.value.transient and took < 10, took
    assert 0 < server.sent[0] < 20 / 0.05, server.sent  # under way, and cut short


# The deadline's timer chose the connection to shut under its lock but shut it after: its
# thread descheduled just then, the call ended meanwhile (PastDeadline) and the pool handed
# the connection on, on a new socket, to the thread's next call, which the late shut broke
# kills: bot/github_deadline.py:_Watch._expire the connection shut out of the watch's lock
def test_a_deadline_met_as_the_call_ends_never_shuts_the_next_calls_socket(monkeypatch):
    first, first_peer = socket.socketpair()
    second, second_peer = socket.socketpair()
    connection = types.SimpleNamespace(sock=first)
    shut = github_deadline._shut

    def shut_late(on: object) -> None:  # the deadline's thread, descheduled between its steps
        time.sleep(0.3)
        shut(on)

    def call() -> str:
        github_deadline._tell(connection)  # the call goes on over `connection`
        time.sleep(0.1)  # its answer read to the end just past the deadline
        return "answer"

    monkeypatch.setattr(github_deadline, "_shut", shut_late)
    watchdog = github_deadline.Watchdog()
    with pytest.raises(github_deadline.PastDeadline):
        github_deadline.within_deadline(0.02, call, watchdog)
    connection.sock = second  # the next call, on the connection the pool handed back
    time.sleep(0.5)
    second.sendall(b"x")  # not shut
    assert second_peer.recv(1) == b"x"
    assert first_peer.recv(1) == b""  # the call's own socket was shut
    watchdog.close()
    for end in (first, first_peer, second, second_peer):
        end.close()


@pytest.mark.parametrize(
    "fault",
    [Fault.slow(2.0), Fault.dropped(apply=True), Fault.error(502, apply=True)],
    ids=["timeout", "dropped", "502"],
)
def test_a_create_that_reached_github_is_not_posted_twice(fake_github, make_github_client, fault):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("POST", "/repos/*/issues/7/comments", fault)
    client = make_github_client(timeout=1)
    sticky = client.upsert_sticky(PR, _sticky("once"), MARKER, create=True)
    reply = client.create_comment(PR, "a reply")  # no marker: found by body and author
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("once"), "a reply"]
    assert sticky.comment_id == fake_github.comments(DEFAULT_REPO, 7)[0].id
    assert reply == fake_github.comments(DEFAULT_REPO, 7)[1].id
    assert len(fake_github.calls("POST", "/repos/*/comments")) == 2  # one each: none repeated


# GitHub's front answers some 5xx with no body or an HTML page, not JSON: retried as any
# 5xx, and a create it answered so is looked for before it is posted again. One that opens
# as JSON yet is none (cut short) raised PyGithub's ValueError, not retried: the delivery
# failed at once (bot.github_http reads it as text)
@pytest.mark.parametrize(
    "raw",
    [b"", b"<html><body>Unicorn!</body></html>", b'{"message": "Server Err'],
    ids=["none", "html", "cut-json"],
)
def test_a_5xx_without_a_json_body_is_retried_and_a_create_not_doubled(
    http, fake_github, make_github_client, raw
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/pulls/7/files", Fault(status=502, raw=raw))
    fake_github.inject("POST", "/repos/*/comments", Fault(status=503, raw=raw, apply=True))
    client = make_github_client()
    assert list(client.list_files(PR)) == ["a.py"]
    made = client.create_comment(PR, "a reply")
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [made]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [502, 200]
    assert [r.status for r in fake_github.calls("POST", "/repos/*")] == [503]
    fake_github.inject("GET", "/repos/*/pulls/7", Fault(status=502, raw=raw))
    answer = http.get(f"{fake_github.base_url}/repos/{DEFAULT_REPO}/pulls/7")
    assert (answer.status_code, answer.content) == (502, raw)  # as it is


# A 200 or 201 whose body is no JSON (cut short, empty) tells nothing of what GitHub did:
# PyGithub raised its raw ValueError on cut JSON (no retry; a create not looked for) and
# made an object of no fields of the rest (a comment created with no id, a file list of one
# None). Each is now taken as a dropped answer (bot.github_http); a page is not (below)
@pytest.mark.parametrize(
    "raw",
    [b"", b"Sign in", b'{"id": 1, "body": "a rep', b'[{"sha"', b"[" * 100_000],
    ids=["none", "words", "cut-object", "cut-list", "too-deep"],
)
def test_a_success_without_a_json_body_is_retried_and_a_create_not_doubled(
    fake_github, make_github_client, raw
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    # reads: asked again
    fake_github.inject("GET", "/repos/*/pulls/7/files", Fault(status=200, raw=raw))
    fake_github.inject("GET", "/repos/*/pulls/7", Fault(status=200, raw=raw))
    assert list(client.list_files(PR)) == ["a.py"]
    assert client.get_pull(PR).number == 7
    assert [r.status for r in fake_github.calls("GET", "/repos/*/pulls/7/files")] == [200, 200]
    # a create GitHub carried out: looked for, not posted again
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault(status=201, raw=raw, apply=True))
    made = client.upsert_sticky(PR, _sticky("one"), MARKER, create=True)
    assert made == StickyResult(Outcome.CREATED, fake_github.comments(DEFAULT_REPO, 7)[0].id)
    assert len(fake_github.calls("POST", "/repos/*/comments")) == 1
    # an edit and a reaction (the same again is the same): sent again
    fake_github.inject("PATCH", "/repos/*/comments/*", Fault(status=200, raw=raw, apply=True))
    again = client.upsert_sticky(PR, _sticky("two"), MARKER, create=True)
    assert again == StickyResult(Outcome.UPDATED, made.comment_id)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("two")]
    assert len(fake_github.calls("PATCH", "/repos/*")) == 2
    fake_github.inject("POST", "/repos/*/reactions", Fault(status=201, raw=raw, apply=True))
    client.add_reaction(PR, made.comment_id, "eyes")
    assert [r.status for r in fake_github.calls("POST", "/repos/*/reactions")] == [201, 200]


# A 200 or 201 of JSON that is not what the call answers (null, a number or a string, an
# object where GitHub sends a list or a list where an object, an object of no fields)
# reached PyGithub: a TypeError out of a PR read or an edit, a file list of one None, a
# comment "created" with id None. Each is now taken as a dropped answer, as a body that
# is no JSON is (bot.github_http)
@pytest.mark.parametrize(
    ("for_a_list", "for_an_object"),
    [
        (b"null", b"null"),
        (b"7", b'"a comment"'),
        (b'{"filename": "b.py", "status": "added"}', b'[{"id": 1, "number": 7}]'),
        (b"{}", b"{}"),
    ],
    ids=["null", "scalar", "swapped", "no-fields"],
)
def test_a_success_of_the_wrong_json_shape_is_retried_and_a_create_not_doubled(
    fake_github, make_github_client, for_a_list, for_an_object
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    # reads: asked again
    fake_github.inject("GET", "/repos/*/pulls/7/files", Fault(status=200, raw=for_a_list))
    fake_github.inject("GET", "/repos/*/pulls/7", Fault(status=200, raw=for_an_object))
    assert list(client.list_files(PR)) == ["a.py"]
    assert client.get_pull(PR).number == 7
    assert [r.status for r in fake_github.calls("GET", "/repos/*/pulls/7/files")] == [200, 200]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/pulls/7")] == [200, 200]
    # a create GitHub carried out: looked for, not posted again
    created = Fault(status=201, raw=for_an_object, apply=True)
    fake_github.inject("POST", "/repos/*/issues/7/comments", created)
    made = client.upsert_sticky(PR, _sticky("one"), MARKER, create=True)
    assert made == StickyResult(Outcome.CREATED, fake_github.comments(DEFAULT_REPO, 7)[0].id)
    assert len(fake_github.calls("POST", "/repos/*/comments")) == 1
    # an edit: sent again
    fake_github.inject("PATCH", "/repos/*/comments/*", Fault(status=200, raw=for_an_object))
    again = client.upsert_sticky(PR, _sticky("two"), MARKER, create=True)
    assert again == StickyResult(Outcome.UPDATED, made.comment_id)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("two")]
    assert [r.status for r in fake_github.calls("PATCH", "/repos/*")] == [200, 200]


def test_a_lone_surrogate_in_github_s_answers_is_read_as_unicode(fake_github, make_github_client):
    # JSON escapes one (`\ud800`); SQLite stores no such text and GitHub refuses it in a
    # write, so text read back (a title, a file name, a comment's words) is made valid
    # where it enters, as the webhook's is (bot.json_unicode.valid_unicode)
    lone = "\ud800"
    fake_github.add_pull(DEFAULT_REPO, 7, title=f"a {lone} b", files=[f"a{lone}.py"])
    said = fake_github.add_comment(DEFAULT_REPO, 7, f"words {lone}\U0001f600")
    client = make_github_client()
    assert client.get_pull(PR).title == "a \ufffd b"
    assert list(client.list_files(PR)) == ["a\ufffd.py"]
    assert client.comment_text(PR, said.id) == "words \ufffd\U0001f600"  # a pair stays


# A web page on a success (GITHUB_API_URL at github.com's web site, a GitHub Enterprise host
# without /api/v3, a proxy's login page) is no outage: every call would get it. It was
# retried as a dropped answer, so a misconfigured server paused its queue for an hour as
# in an outage; it now fails the call at once, naming GITHUB_API_URL. By its content type,
# or a body opening with "<" whatever the type says
@pytest.mark.parametrize(
    ("raw", "headers"),
    [
        (b"<!DOCTYPE html><html><body>Sign in</body></html>", {}),
        (b"\n  <html><body>Sign in</body></html>", {"Content-Type": "application/json"}),
        (b"Sign in to continue", {"Content-Type": "text/html; charset=utf-8"}),
    ],
    ids=["html", "opens-with-<", "html-type"],
)
def test_a_page_for_github_s_json_fails_at_once_naming_github_api_url(
    fake_github, make_github_client, raw, headers
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    page = Fault(status=200, raw=raw, headers=headers)
    calls = [
        ("GET", "/repos/*/pulls/7", lambda: client.get_pull(PR)),
        ("GET", "/repos/*/pulls/7/files", lambda: client.list_files(PR)),
        ("POST", "/repos/*/issues/7/comments", lambda: client.create_comment(PR, "a reply")),
    ]
    for method, path, call in calls:
        fake_github.inject(method, path, page)
        with pytest.raises(GitHubError) as failed:
            call()
        assert not failed.value.transient, (path, failed.value)
        assert "is GITHUB_API_URL the API's address" in str(failed.value), failed.value
        assert len(fake_github.calls(method, path)) == 1, path  # asked once, not retried
    assert fake_github.comments(DEFAULT_REPO, 7) == []


# A refusal (401, 403, 404) surely not GitHub's API at a running server (a proxy's page, a
# web server at a wrong GITHUB_API_URL) failed the call with its bare status ("GitHub get
# ...: 404"), nothing naming GITHUB_API_URL as the start's check does; a 404 of it was
# taken for GitHub's answer: a comment deleted, a number that is no issue, a 401 a token
# to mint again. Each now fails at once, saying so, with no status a caller takes for
# GitHub's; GitHub's own 404 stays an answer (a comment deleted)
FOREIGN_REFUSALS = {
    "page": dict(raw=b"<html><body><h1>Not Found</h1></body></html>"),
    "proxy-page": dict(raw=b"<!DOCTYPE html><title>Forbidden</title>", foreign=True),
    "not-github-json": dict(body={"error": "no such route"}, foreign=True),
    "fastapi-json": dict(body={"detail": "Not Found"}, foreign=True),
    # an API gateway's (AWS's, Kong's): a message, but no GitHub docs link
    "gateway-json": dict(body={"message": "no Route matched with those values"}, foreign=True),
}


@pytest.mark.parametrize("status", [401, 403, 404])
@pytest.mark.parametrize("kind", list(FOREIGN_REFUSALS))
def test_a_refusal_not_from_github_fails_a_call_naming_github_api_url(
    fake_github, make_github_client, status, kind
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    said = fake_github.add_comment(DEFAULT_REPO, 7, "words")
    client = make_github_client()
    client.bot_login()
    client.get_pull(PR)  # the token minted
    answer = Fault(status=status, **FOREIGN_REFUSALS[kind])  # type: ignore[arg-type]
    calls = [
        ("GET", "/repos/*/pulls/7", "get", lambda: client.get_pull(PR)),
        ("GET", "/repos/*/issues/7", "get", lambda: client.is_pull(PR)),
        (
            "GET",
            f"/repos/*/comments/{said.id}",
            "get comment",
            lambda: client.comment_text(PR, said.id),
        ),
        ("POST", "/repos/*/issues/7/comments", "create", lambda: client.create_comment(PR, "hi")),
        ("POST", TOKENS, "mint a token", lambda: make_github_client().get_pull(PR)),
    ]
    for method, path, what, call in calls:
        fake_github.clear_requests()
        fake_github.inject(method, path, answer)
        with pytest.raises(GitHubError) as failed:
            call()
        text = str(failed.value)
        assert f"GitHub {what}" in text and f": {status} " in text, text
        assert "is GITHUB_API_URL the API's address" in text, text
        assert failed.value.status is None and not failed.value.transient, (path, text)
        assert never_sent(failed.value), path  # GitHub never saw it: no write it counts
        assert len(fake_github.calls(method, path)) == 1, path  # asked once, no new token
        assert len(fake_github.calls("POST", TOKENS)) == (path == TOKENS)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["words"]
    fake_github.inject("GET", f"/repos/*/comments/{said.id}", Fault.not_found())
    assert client.comment_text(PR, said.id) is None  # GitHub's own: the comment is gone


# A proxy in front of GitHub (Enterprise) that strips GitHub's headers (X-GitHub-Request-Id,
# X-GitHub-Media-Type) passes the start, whose GET /app is a 200; then each of GitHub's own
# 404s was read as the proxy's and failed the delivery naming GITHUB_API_URL: a comment
# deleted since the list, an issue gone. GitHub's error JSON, a "message" with its
# "documentation_url", tells GitHub's answer; JSON of another shape stays foreign
def test_github_s_own_404_through_a_proxy_stripping_its_headers_is_still_an_answer(
    fake_github, make_github_client
):
    client, made = _notes_comment_posted(fake_github, make_github_client)
    stripped = dataclasses.replace(Fault.not_found(), foreign=True)
    deleted = dataclasses.replace(stripped, first=lambda: fake_github._comments.pop(made))
    fake_github.inject("PATCH", f"/repos/*/comments/{made}", deleted)
    result = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True, known_id=made)
    assert result.outcome is Outcome.CREATED and result.comment_id != made
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v2")]
    fake_github.inject("GET", f"/repos/*/comments/{made}", stripped)
    assert client.comment_text(PR, made) is None
    fake_github.inject("GET", "/repos/*/issues/7", stripped)
    assert client.is_pull(PR) is None
    for foreign in (
        Fault(status=404, body={"detail": "Not Found"}, foreign=True),  # FastAPI's
        Fault(status=404, body={"message": "no Route matched with those values"}, foreign=True),
        Fault(status=404, raw=b"<!DOCTYPE html><title>Not Found</title>", foreign=True),
    ):
        fake_github.inject("GET", "/repos/*/issues/7", foreign)
        with pytest.raises(GitHubError, match="is GITHUB_API_URL the API's address"):
            client.is_pull(PR)


@pytest.mark.parametrize(
    ("body", "githubs"),
    [
        ('{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}', True),
        ('{"message": "Not Found"}', False),  # an API gateway's
        ('{"message": "Not Found", "documentation_url": null}', False),
        ('{"message": 404, "documentation_url": "https://docs.github.com/rest"}', False),
        ('[{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}]', False),
        ('{"message": "Not Found", "documentation_u', False),  # cut short
        ("", False),
    ],
)
def test_a_refusal_without_github_s_headers_is_github_s_by_its_error_json_alone(body, githubs):
    said = github_errors.foreign_refusal(404, {"Content-Type": "application/json"}, body)
    assert (said is None) is githubs, said
    assert github_errors.foreign_refusal(404, {"X-GitHub-Request-Id": "A1:B2"}, body) is None


def test_a_create_that_did_not_reach_github_is_posted_again(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502))
    client = make_github_client()
    assert client.create_comment(PR, "hello") == fake_github.comments(DEFAULT_REPO, 7)[0].id
    assert [r.status for r in fake_github.calls("POST", "/repos/*")] == [502, 201]


def _new_connection() -> urllib3.exceptions.NewConnectionError:
    return urllib3.exceptions.NewConnectionError(None, "Connection refused")  # type: ignore[arg-type]


def _retried(reason: Exception) -> urllib3.exceptions.MaxRetryError:
    """urllib3's error after its one try (no retries of its own), as requests wraps it."""
    return urllib3.exceptions.MaxRetryError(None, "/", reason)  # type: ignore[arg-type]


def _while_connecting(exc: Exception, failed: Exception | None) -> Exception:
    """`exc` raised from `failed`, which a connection's connect raised (marked so), or
    from an error of the same call that was being handled as it failed (None: not)."""
    if failed is not None:
        github_errors.connect_failed(failed)
        exc.__cause__ = failed
    else:
        handled = OSError("an earlier failure")
        github_errors.connect_failed(handled)
        exc.__context__ = handled  # handled, not wrapped: another call's
    return exc


# A connection never made (refused, or its connect timed out) carried nothing to GitHub: the
# create's next try was taken for one whose answer was lost, and listed the comments twice,
# the lost-create wait between, before posting; and its try was counted as a write asked,
# so a reply posted so was taken for one sent twice, a look for its copies queued
@pytest.mark.parametrize(
    "failure",
    [ConnectionRefusedError(111, "Connection refused"), TimeoutError("timed out")],
    ids=["refused", "connect-timeout"],
)
def test_a_create_whose_connection_was_never_made_is_posted_again_at_once(
    fake_github, make_github_client, monkeypatch, failure
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(retry=dataclasses.replace(FAST_RETRY, lost_create_wait=3.0))
    client.bot_login()
    _in_threads(lambda: client.list_files(PR))  # the token minted; this thread connects anew
    connect = urllib3.util.connection.create_connection
    failures = [failure]

    def failing_once(*args: object, **kwargs: object) -> socket.socket:
        if failures:
            raise failures.pop()
        return connect(*args, **kwargs)

    monkeypatch.setattr(urllib3.util.connection, "create_connection", failing_once)
    fake_github.clear_requests()
    started = time.monotonic()
    with counting_writes() as asked:
        made = client.create_comment(PR, "hello")
    assert not failures  # the POST's first connection failed
    assert asked.count == 1  # the one POST that went out
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [made]
    assert [(r.method, r.status) for r in fake_github.requests] == [("POST", 201)]
    assert time.monotonic() - started < 3.0  # no lost-create wait


# requests' errors as its adapter raises them: only a connection never made is sure to
# have sent nothing; a reset (a reused keep-alive connection failing as it sends, too), a
# proxy's or TLS's failure, or our deadline may come after the request went out, unless our
# connection marked the failure as raised while connecting (`github_errors.connect_failed`,
# below with real servers)
@pytest.mark.parametrize(
    ("exc", "unclear"),
    [
        (requests.ConnectionError(_retried(_new_connection())), False),
        (requests.ConnectTimeout(_retried(urllib3.exceptions.ConnectTimeoutError())), False),
        (requests.ConnectionError(urllib3.exceptions.ProtocolError("aborted", OSError())), True),
        (requests.ConnectionError(_retried(urllib3.exceptions.ProtocolError("aborted"))), True),
        (requests.exceptions.ProxyError(_retried(_new_connection())), True),
        (requests.exceptions.SSLError(_retried(urllib3.exceptions.SSLError())), True),
        (requests.ReadTimeout("read timed out"), True),
        (github_deadline.PastDeadline(60), True),
        (_while_connecting(github_deadline.PastDeadline(60), OSError("shut")), False),
        (_while_connecting(github_deadline.PastDeadline(60), None), True),
        (requests.ConnectionError("no cause"), True),
    ],
    ids=[
        "refused",
        "connect-timeout",
        "reset",
        "retried-reset",
        "proxy",
        "tls",
        "read",
        "deadline",
        "deadline-met-connecting",
        "deadline-handling-one",
        "bare",
    ],
)
def test_only_a_connection_never_made_is_sure_to_have_sent_nothing(exc, unclear):
    assert github_errors.may_have_applied(exc) is unclear


@contextmanager
def _loopback_server(handle: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback TCP server (its port) that runs `handle` on each connection it accepts,
    then closes it."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):  # the listener closed
            while True:
                conn, _ = listener.accept()
                threading.Thread(target=_handled, args=(handle, conn), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def _handled(handle: Callable[[socket.socket], None], conn: socket.socket) -> None:
    with conn, contextlib.suppress(OSError):
        handle(conn)


def _hang_up_at_hello(conn: socket.socket) -> None:
    conn.recv(65536)  # the client's TLS hello (or a proxy's CONNECT): no answer


def _refuse_connect(conn: socket.socket) -> None:
    conn.recv(65536)  # CONNECT api.example.test:443
    conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")


def _tls_hang_up_after_request(folder: Path) -> Callable[[socket.socket], None]:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_self_signed(folder))

    def handle(conn: socket.socket) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            tls.recv(65536)  # the request: read, never answered

    return handle


def _no_listener() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return free.getsockname()[1]


# A proxy refusing the CONNECT, or not there, and a TLS handshake the server hung up in,
# fail before a byte of the request is written; they were taken as "may have landed" as
# any proxy or TLS error (requests' types alone do not tell), so a create's next try
# listed the comments first, and the write was paid for. Our connections now mark what
# their connect raised. A hang-up after the request was read (TLS done, or through a
# plain HTTP proxy) stays unclear
@pytest.mark.parametrize(
    ("kind", "unclear"),
    [
        ("tls-hang-up-at-hello", False),
        ("proxy-refuses-connect", False),
        ("proxy-not-there", False),
        ("tls-hang-up-after-request", True),
        ("http-proxy-hang-up-after-request", True),
    ],
)
def test_a_create_that_failed_while_connecting_is_sure_to_have_sent_nothing(
    tmp_path, make_github_client, monkeypatch, kind, unclear
):
    for name in ("NO_PROXY", "no_proxy", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    handle = {
        "tls-hang-up-at-hello": _hang_up_at_hello,
        "proxy-refuses-connect": _refuse_connect,
        "tls-hang-up-after-request": _tls_hang_up_after_request(tmp_path),
        "http-proxy-hang-up-after-request": _hang_up_at_hello,
    }.get(kind, _hang_up_at_hello)
    with _loopback_server(handle) as port:
        base_url = f"https://127.0.0.1:{port}"
        if kind.startswith("proxy"):
            base_url = "https://api.example.test"
            there = _no_listener() if kind == "proxy-not-there" else port
            monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{there}")
        elif kind.startswith("http-proxy"):
            base_url = "http://api.example.test"
            monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
        elif kind == "tls-hang-up-after-request":  # its certificate trusted
            monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "cert.pem"))
        client = make_github_client(
            base_url=base_url,
            token="ghp_connect",
            timeout=2,
            retry=dataclasses.replace(FAST_RETRY, attempts=1),
        )
        with pytest.raises(GitHubError) as failed:
            client.create_comment(PR, "hello")
    cause = failed.value.__cause__
    assert isinstance(cause, requests.exceptions.ConnectionError), repr(cause)
    assert github_errors.may_have_applied(cause) is unclear, repr(cause)
    assert never_sent(failed.value) is not unclear  # the write budget pays only one sent


def test_fake_refuses_a_lone_surrogate_in_a_write_as_github(fake_github, make_github_client):
    # PyGithub sends it as JSON's `\ud800` escape; GitHub stores only Unicode text. The
    # bot makes a payload's text valid where the handlers read it
    # (bot.json_unicode.valid_unicode)
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    with pytest.raises(GitHubError) as caught:
        client.create_comment(PR, "a \ud800 b")
    assert caught.value.status == 422 and fake_github.comments(DEFAULT_REPO, 7) == []
    client.create_comment(PR, "a \U0001f600 \ufffd b")  # a pair, joined: not refused
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["a \U0001f600 \ufffd b"]


def test_a_write_on_a_locked_conversation_is_refused_once_and_says_so(
    fake_github, make_github_client
):
    # GitHub's 403 "Unable to create comment because issue is
    # locked." failed the delivery as any error; it is ConversationLocked, not retried
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    sticky = client.upsert_sticky(PR, _sticky("before"), MARKER, create=True)
    comment = fake_github.add_comment(DEFAULT_REPO, 7, "/notes", login="octo-dev")
    fake_github.lock(DEFAULT_REPO, 7, "too heated")
    fake_github.clear_requests()
    writes = [
        lambda: client.create_comment(PR, "a reply"),
        lambda: client.upsert_sticky(PR, _sticky("after"), MARKER, create=True),
        lambda: client.add_reaction(PR, comment.id, "eyes"),
    ]
    for write in writes:
        with pytest.raises(ConversationLocked, match="because issue is locked") as caught:
            write()
        assert isinstance(caught.value, GitHubError) and caught.value.status == 403
        assert not caught.value.transient
    assert [r.status for r in fake_github.requests if r.method != "GET"] == [403, 403, 403]
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [sticky.comment_id, comment.id]
    # any other 403 is no lock
    fake_github.unlock(DEFAULT_REPO, 7)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(403, "Forbidden"))
    with pytest.raises(GitHubError) as other:
        client.create_comment(PR, "a reply")
    assert not isinstance(other.value, ConversationLocked)


def test_a_collaborator_token_may_still_comment_on_a_locked_conversation(
    fake_github, make_github_client
):
    # the fake as GitHub: only the App (no collaborator) is refused there
    fake_github.add_pat("ghp_maintainer", "maintainer")
    fake_github.set_permission(DEFAULT_REPO, "maintainer", "write")
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.lock(DEFAULT_REPO, 7)
    client = make_github_client(token="ghp_maintainer")
    client.create_comment(PR, "locked, but mine")
    (posted,) = fake_github.comments(DEFAULT_REPO, 7)
    assert posted.user.login == "maintainer"


@pytest.mark.parametrize(
    "fault",
    [Fault.secondary_rate_limit(retry_after=1), Fault.too_many_requests(retry_after=1)],
    ids=["403", "429"],
)
def test_retry_after_is_obeyed(fake_github, make_github_client, fault):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", fault)
    assert make_github_client().list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= 1.0  # no retry sooner than asked


def test_a_secondary_limit_without_retry_after_waits_the_secondary_wait(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.secondary_rate_limit(retry_after=None))
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= client.policy.secondary_wait
    assert RetryPolicy().secondary_wait >= 60  # GitHub asks for at least a minute


def test_a_comment_submitted_too_quickly_waits_like_a_secondary_limit(
    fake_github, make_github_client
):
    # GitHub's content-creation limit can also answer 422 (the REST description of
    # POST .../issues/{n}/comments: "Validation failed, or the endpoint has been spammed")
    too_quickly = Fault(
        status=422,
        body={
            "message": "Validation Failed",
            "errors": [
                {
                    "resource": "IssueComment",
                    "code": "custom",
                    "field": "body",
                    "message": "was submitted too quickly",
                }
            ],
        },
    )
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("POST", "/repos/*/comments", too_quickly)
    client = make_github_client()
    assert client.create_comment(PR, "hello") == fake_github.comments(DEFAULT_REPO, 7)[0].id
    [gap] = _gaps(fake_github, "POST", "/repos/*/comments")
    assert gap >= client.policy.secondary_wait
    invalid = Fault(status=422, body={"message": "Validation Failed", "errors": [{"code": "x"}]})
    fake_github.inject("POST", "/repos/*/comments", invalid)
    with pytest.raises(GitHubError, match="422"):  # any other 422: no retry
        client.create_comment(PR, "again")


def test_a_primary_limit_waits_past_the_reset(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    reset = int(time.time())  # GitHub's reset is whole epoch seconds
    limited = Fault(
        status=403,
        body={"message": "API rate limit exceeded for installation."},
        headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
    )
    fake_github.inject("GET", "/repos/*/files", limited)
    assert make_github_client().list_files(PR) == ["a.py"]
    first, retry = fake_github.calls("GET", "/repos/*/files")
    assert first.status == 403 and retry.wall >= reset + 1  # reset, plus a second for skew


def test_a_wait_over_the_cap_gives_up_at_once(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("GET", "/repos/*/files", Fault.too_many_requests(retry_after=3600))
    with pytest.raises(GitHubError, match="asked to wait 3600s") as caught:
        make_github_client().list_files(PR)
    assert (caught.value.transient, caught.value.retry_after) == (True, 3600)
    assert len(fake_github.calls("GET", "/repos/*/files")) == 1


# GitHub counts rate limits per installation (or token) and "continuing to make requests
# while you are rate limited may result in the banning of your integration": a rate limit
# answer to one call pauses every call of that identity, in every thread.


@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_rate_limit_pauses_the_other_threads_calls_too(
    fake_github, make_github_client, manual_time, mode
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    fake_github.add_pat("ghp_test", "notes-bot")
    auth = {"token": "ghp_test"} if mode == "token" else {}
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep, **auth)
    fake_github.inject("GET", "/repos/*/pulls/7/files", Fault.secondary_rate_limit(retry_after=3))
    with ThreadPoolExecutor(2) as pool:
        limited = pool.submit(client.list_files, PR)
        wait_until(lambda: manual_time.sleepers == 1, 10, "the limited call's wait")
        other = pool.submit(client.list_files, PR8)
        wait_until(lambda: manual_time.sleepers == 2 or other.done(), 10, "the other call")
        assert fake_github.calls("GET", "/repos/*/pulls/8/files") == []  # waiting, not sent
        manual_time.advance(3)
        assert (limited.result(), other.result()) == (["a.py"], ["b.py"])
    assert manual_time.slept == [3, 3]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/pulls/8/files")] == [200]


@pytest.mark.parametrize(
    "fault",
    [
        Fault.secondary_rate_limit(retry_after=3600),
        Fault.too_many_requests(retry_after=3600),
        Fault.primary_rate_limit(reset_in=3600),
    ],
    ids=["403", "429", "primary"],
)
def test_a_pause_over_the_cap_fails_the_other_calls_at_once_unsent(
    fake_github, make_github_client, manual_time, caplog, fault
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    fake_github.inject("GET", "/repos/*/pulls/7/files", fault)
    with pytest.raises(GitHubError, match=r"asked to wait 360\ds; not waited in a worker"):
        client.list_files(PR)
    with ThreadPoolExecutor(2) as pool:  # two other workers, meanwhile
        errors = [f.exception() for f in [pool.submit(client.list_files, PR8) for _ in (1, 2)]]
    for err in errors:
        assert isinstance(err, GitHubError) and err.transient, err
        said = "list files of vllm-project/vllm PR 8: installation 1001 rate limited for another"
        assert said in str(err)
        assert err.retry_after is not None and err.retry_after > client.policy.sleep_max
    assert fake_github.calls("GET", "/repos/*/pulls/8/files") == []  # not sent
    assert manual_time.slept == []  # no worker held for the hour either
    paused = [r for r in caplog.records if "GitHub rate limited installation" in r.message]
    assert len(paused) == 1  # said once, not by each call that met it
    manual_time.advance(3602)  # the time GitHub gave has come
    assert client.list_files(PR8) == ["b.py"]


def test_a_pause_is_its_installations_only(fake_github, make_github_client, manual_time):
    fake_github.add_installation(2002, ["acme/other"])
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    fake_github.add_pull("acme/other", 1, files=["c.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    fake_github.inject("GET", "/repos/*/pulls/7/files", Fault.too_many_requests(retry_after=3600))
    with pytest.raises(GitHubError, match="asked to wait 3600s"):
        client.list_files(PR)
    # another installation's token, and the App's JWT that mints it, are not limited
    assert client.list_files(PRRef("acme/other", 1, 2002)) == ["c.py"]
    with pytest.raises(GitHubError, match="rate limited for another"):
        client.list_files(PR8)


@pytest.mark.parametrize("mode", ["app", "token"])
def test_an_answer_that_spends_the_last_call_pauses_before_github_must_refuse(
    fake_github, make_github_client, manual_time, caplog, mode
):
    # A 200 saying x-ratelimit-remaining: 0 means the next call would be refused (and
    # calling while limited risks a ban): no call is sent until the reset.
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    fake_github.add_pat("ghp_test", "notes-bot")
    auth = {"token": "ghp_test"} if mode == "token" else {}
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep, **auth)
    assert client.list_files(PR) == ["a.py"]  # calls left: no pause
    fake_github.spend_rate_limit(leave=1)  # the next answer spends the last call
    assert client.list_files(PR) == ["a.py"]  # answered: 200
    with pytest.raises(GitHubError, match="rate limited for another"):
        client.list_files(PR8)
    assert fake_github.calls("GET", "/repos/*/pulls/8/files") == []  # not sent
    assert client.calls.pauses == 1 and client.calls.paused_for() > 3000
    assert sum("GitHub rate limited" in r.message for r in caplog.records) == 1
    manual_time.advance(3602)  # the reset has come
    fake_github.reset_rate_limit()
    assert client.list_files(PR8) == ["b.py"]


def test_a_404_answer_that_spends_the_last_call_pauses_the_calls_too(
    fake_github, make_github_client, manual_time
):
    # GitHub counts a 404 as well; the client takes many as answers (a user without
    # access, a deleted comment) and goes on calling
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    assert client.list_files(PR) == ["a.py"]
    fake_github.spend_rate_limit(leave=1)  # the next answer says x-ratelimit-remaining: 0
    assert client.permission(PR, "nobody-here") == "none"  # 404: an answer, not a failure
    with pytest.raises(GitHubError, match="rate limited for another"):
        client.list_files(PR8)
    assert fake_github.calls("GET", "/repos/*/pulls/8/files") == []  # not sent


def test_another_resources_last_call_does_not_pause_rest_calls(
    fake_github, make_github_client, manual_time
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    fake_github.rate_resource = "search"
    fake_github.spend_rate_limit(leave=1)  # the answer spends search's last call
    assert client.list_files(PR) == ["a.py"]
    fake_github.reset_rate_limit()  # the fake has one counter; GitHub's core is not spent
    assert client.list_files(PR8) == ["b.py"]
    assert client.calls.pauses == 0 and manual_time.slept == []


def test_a_persistent_failure_gives_up_after_bounded_attempts(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("GET", "/repos/*/files", *[Fault.error(503)] * 10)
    client = make_github_client()
    with pytest.raises(GitHubError, match="503 Server Error .gave up after 4 attempts") as caught:
        client.list_files(PR)
    assert (caught.value.status, caught.value.transient) == (503, True)
    assert len(fake_github.calls("GET", "/repos/*/files")) == client.policy.attempts == 4


@pytest.mark.parametrize(
    ("fault", "tries"),
    [
        (Fault.not_found(), 1),
        # once more with a new token (it may have been minted before a permission was
        # granted), then given up
        (Fault(status=403, body={"message": "Resource not accessible by integration"}), 2),
    ],
    ids=["404", "403-permission"],
)
def test_a_client_error_is_not_retried(fake_github, make_github_client, fault, tries):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("GET", "/repos/*/files", fault, fault)
    with pytest.raises(GitHubError) as caught:
        make_github_client().list_files(PR)
    assert (caught.value.status, caught.value.transient) == (fault.status, False)
    assert len(fake_github.calls("GET", "/repos/*/files")) == tries


# --- a repository renamed or transferred -------------------------------------------


def test_writes_to_a_moved_repository_follow_githubs_redirect(fake_github, make_github_client):
    # A delivery queued, deferred or retried across a rename still names the old
    # repository: GitHub answers its writes 307, to be repeated at the new location
    fake_github.add_pull(DEFAULT_REPO, 7)
    command = fake_github.add_comment(DEFAULT_REPO, 7, "/notes", login="alice")
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    client = make_github_client()
    made = client.upsert_sticky(PR, f"{MARKER}\nnotes", MARKER, create=True)
    (posted,) = [c for c in fake_github.comments("vllm-org/vllm", 7) if c.id != command.id]
    assert made == StickyResult(Outcome.CREATED, posted.id)
    assert client.upsert_sticky(PR, f"{MARKER}\nmore notes", MARKER, create=True).outcome == (
        Outcome.UPDATED
    )
    assert fake_github.comment(posted.id).body == f"{MARKER}\nmore notes"
    client.add_reaction(PR, command.id, "eyes")
    assert [r.content for r in fake_github.reactions(command.id)] == ["eyes"]
    moved = [(r.method, r.status) for r in fake_github.requests if r.status in (301, 307)]
    assert ("GET", 301) in moved and ("POST", 307) in moved  # the comment and the reaction
    # GitHub's redirects name the id route, /repositories/{id}/...: PyGithub's own
    # 301 and the client's 307 follow it there (PyGithub checks an absolute URL's host)
    posts = [(r.status, r.by_id) for r in fake_github.calls("POST", "/repos/*")]
    assert posts == [(307, False), (201, True), (307, False), (201, True)]


# bot.dispatch asks which repository a name is now when the PR state kept under it
# is another repository's: a renamed repository's old name leads to it (301), until
# another repository takes the name
def test_the_repository_a_name_is_now_follows_a_rename_until_the_name_is_taken(
    fake_github, make_github_client
):
    renamed = fake_github.add_repo(DEFAULT_REPO)
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    client = make_github_client()
    assert client.repository_now(PR) == renamed.id
    assert [r.status for r in fake_github.calls("GET", f"/repos/{DEFAULT_REPO}")] == [301]
    taken = fake_github.take_name(DEFAULT_REPO)
    assert client.repository_now(PR) == taken.id != renamed.id


# kills: bot/github_client.py:GitHubClient.repository_now an answer without an integer id
#        taken for one (the check deleted): a delivery then ran as if the name were its own
@pytest.mark.parametrize("body", [{"full_name": DEFAULT_REPO}, {"id": "186853002"}])
def test_a_repository_answer_without_an_integer_id_is_an_error(
    fake_github, make_github_client, body
):
    fake_github.add_repo(DEFAULT_REPO)
    fake_github.inject("GET", f"/repos/{DEFAULT_REPO}", Fault(status=200, body=body))
    with pytest.raises(GitHubError, match="a malformed answer: id"):
        make_github_client().repository_now(PR)


# a ref carrying its repository's id (every webhook payload's `repository.id`) is
# sent to GitHub by the id: a late delivery of a repository renamed away, whose name
# another repository has taken, reaches its own PR, never the other one's PR of the number
def test_a_ref_with_its_repository_id_reaches_that_repository_under_a_name_taken_since(
    fake_github, make_github_client
):
    renamed = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    command = fake_github.add_comment(DEFAULT_REPO, 7, "/notes", login="alice")
    fake_github.set_permission(DEFAULT_REPO, "alice", "maintain")
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    fake_github.take_name(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["b.py"])
    ref = dataclasses.replace(PR, repo_id=renamed.id)
    client = make_github_client()
    assert client.get_pull(ref).number == 7 and client.is_pull(ref)
    assert list(client.list_files(ref)) == ["a.py"]
    made = client.upsert_sticky(ref, f"{MARKER}\nnotes", MARKER, create=True)
    assert [c.id for c in fake_github.comments("vllm-org/vllm", 7)] == [command.id, made.comment_id]
    client.add_reaction(ref, command.id, "eyes")
    assert client.permission(ref, "alice") == "maintain"
    assert fake_github.comments(DEFAULT_REPO, 7) == []
    asked = fake_github.calls(path="/repos/*")
    assert asked and all(r.path.startswith("/repos/vllm-org/vllm/") for r in asked)
    assert all(r.by_id for r in asked if r.method != "PATCH")  # an edit: at the comment's url
    assert client.repository_now(ref) != renamed.id  # which repository the name is: by name


# writes by /repositories/{id} were never tried on real GitHub; an operator whose
# GitHub refuses them sets REVIEW_NOTES_ADDRESS_REPOS_BY=name: every call goes by the
# repository's name, as before repository ids were used, and reaches whichever repository
# holds it now
def test_a_client_set_to_address_by_name_sends_every_call_by_the_name(
    fake_github, make_github_client
):
    renamed = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    fake_github.take_name(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["b.py"])
    command = fake_github.add_comment(DEFAULT_REPO, 7, "/notes", login="alice")
    fake_github.set_permission(DEFAULT_REPO, "alice", "maintain")
    ref = dataclasses.replace(PR, repo_id=renamed.id)
    client = make_github_client(address_repos_by="name")
    assert list(client.list_files(ref)) == ["b.py"]  # the name's repository now
    made = client.upsert_sticky(ref, f"{MARKER}\nnotes", MARKER, create=True)
    client.upsert_sticky(ref, f"{MARKER}\nmore", MARKER, create=False, known_id=made.comment_id)
    client.add_reaction(ref, command.id, "eyes")
    assert client.permission(ref, "alice") == "maintain"
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [command.id, made.comment_id]
    assert fake_github.comments("vllm-org/vllm", 7) == []
    asked = fake_github.calls(path="/repos/*")
    assert {r.method for r in asked} >= {"GET", "POST", "PATCH"}
    assert all(r.path.startswith(f"/repos/{DEFAULT_REPO}/") and not r.by_id for r in asked)


def test_a_client_addresses_repositories_by_id_or_by_name_only():
    with pytest.raises(ValueError, match="address_repos_by"):
        GitHubClient(token="t", address_repos_by="full_name")  # type: ignore[arg-type]


def test_a_write_follows_up_to_three_moves_each_spaced_like_any_write(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    # each old name redirects to the next name (GitHub's go to the id: one move)
    for old, new in [(DEFAULT_REPO, "b/vllm"), ("b/vllm", "c/vllm"), ("c/vllm", "d/vllm")]:
        fake_github.transfer(old, new, to="name")
    client = make_github_client(seconds_between_requests=0.05, seconds_between_writes=0.3)
    made = client.create_comment(PR, "a reply")
    assert [c.id for c in fake_github.comments("d/vllm", 7)] == [made]
    posts = fake_github.calls("POST", "/repos/*/comments")
    assert [p.status for p in posts] == [307, 307, 307, 201]
    assert all(b.time - a.time >= 0.25 for a, b in zip(posts, posts[1:], strict=False))


# PyGithub follows a 301 itself, to the Location's path alone: the query (per_page=100)
# was dropped, and a renamed repository's list came 30 to a page, 3.3 times the calls.
# The client follows a 301 as it does a 307, with the request's query (GitHub's Location
# is not relied on to carry it: the fake's does not).
def test_a_list_on_a_renamed_repository_keeps_its_hundred_a_page(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=[f"f{i}.py" for i in range(150)])
    fake_github.add_comment(DEFAULT_REPO, 7, "/notes", login="alice")
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    client = make_github_client()
    assert len(client.list_files(PR)) == 150
    listed = fake_github.calls("GET", "/repos/*/files")
    assert [(r.status, r.by_id, r.query.get("per_page")) for r in listed] == [
        (301, False, "100"),
        (200, True, "100"),
        (200, True, "100"),
    ]
    assert client.calls.total("GET", FILES_ROUTE, "301") == 1  # each hop counted
    assert client.find_comment(PR, "none") is None  # a list of comments: one hop, one page
    lists = fake_github.calls("GET", "/repos/*/comments")
    assert [(r.status, r.query.get("per_page")) for r in lists] == [(301, "100"), (200, "100")]


# The App's JWT calls follow a 301 too: a delivery naming no installation looks up the
# renamed repository's installation under its old name
def test_the_installation_of_a_renamed_repository_is_found_through_its_301(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.transfer(DEFAULT_REPO, "vllm-org/vllm")
    client = make_github_client()
    assert client.get_pull(dataclasses.replace(PR, installation_id=None)).number == 7
    lookups = fake_github.calls("GET", "/repos/*/installation")
    assert [(r.status, r.by_id) for r in lookups] == [(301, False), (200, True)]


def test_a_write_moved_without_end_fails_rather_than_passing_for_done(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.transfer(DEFAULT_REPO, "a/b", to="name")
    fake_github.transfer("a/b", DEFAULT_REPO, to="name")  # a loop: each name to the other
    with pytest.raises(GitHubError):
        make_github_client().create_comment(PR, "a reply")


# --- the App renamed ---------------------------------------------------------------


def test_after_the_app_is_renamed_its_comment_is_still_the_one_edited(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    first = client.upsert_sticky(PR, f"{MARKER}\nnotes", MARKER, create=True)
    fake_github.rename_app("vllm-review-notes")  # the running client cached the old login
    fake_github.add_comment(DEFAULT_REPO, 7, f"{MARKER}\nquoted by a person", login="alice")
    again = client.upsert_sticky(PR, f"{MARKER}\nmore notes", MARKER, create=True)
    assert again == StickyResult(Outcome.UPDATED, first.comment_id)
    bodies = [(c.user.login, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)]
    assert bodies == [
        ("vllm-review-notes[bot]", f"{MARKER}\nmore notes"),
        ("alice", f"{MARKER}\nquoted by a person"),  # a person's comment: never ours
    ]


# --- the App installed again ----------------------------------------------------------


@pytest.mark.parametrize("token_cached", [False, True], ids=["new-client", "token-cached"])
def test_a_delivery_of_an_installation_since_removed_goes_through_the_current_one(
    fake_github, make_github_client, token_cached
):
    # retried or redelivered after the App was uninstalled and installed again: the
    # payload names the old installation, whose tokens and id are gone
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    if token_cached:
        client.create_comment(PR, "before")
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    fake_github.add_installation(2002, [DEFAULT_REPO])
    client.create_comment(PR, "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)][-1] == "after"
    assert fake_github.calls("POST", "/app/installations/2002/access_tokens")


# The repository in two installations, each one's token cached, then the one a delivery
# names uninstalled: its token refused (401), a new one's mint answered 404, and the call
# went to the other installation with its cached token, not a new one. Refused there too
# (expired: an hour passed; or minted before its owner granted issues: write), the call
# failed ("401 Bad credentials"; the 403 said "a new token too") with no token minted there
@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
@pytest.mark.parametrize("refusal", ["expired", "lacking"])
def test_a_call_moved_off_a_removed_installation_mints_where_it_went_when_refused(
    fake_github, make_github_client, named, refusal
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_installation(2002, [DEFAULT_REPO])
    client = make_github_client()
    ref = PR if named else PRRef(DEFAULT_REPO, 7, None)
    client.create_comment(ref, "before")  # 1001's token (looked up, unnamed)
    if refusal == "lacking":
        fake_github.set_permissions(2002, {"pull_requests": "read", "metadata": "read"})
    client.list_files(PRRef(DEFAULT_REPO, 7, 2002))  # 2002's token
    if refusal == "expired":
        fake_github.expire_tokens()
    else:  # its owner grants what it lacked; the event for it lost
        fake_github.set_permissions(2002, {"issues": "write", "pull_requests": "write"})
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    client.create_comment(ref, "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["before", "after"]
    assert len(fake_github.calls("POST", "/app/installations/2002/access_tokens")) == 2


# the same for a delivery naming no installation, whose repository's was looked up
# and cached before the reinstall (its installation event lost): the new token's mint,
# 404, forgets the lookup and asks GitHub once more
def test_an_unnamed_delivery_s_cached_installation_since_removed_gives_way_to_the_current(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    ref = PRRef(DEFAULT_REPO, 7, None)
    client = make_github_client()
    client.create_comment(ref, "before")
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    fake_github.add_installation(2002, [DEFAULT_REPO])
    client.create_comment(ref, "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)][-1] == "after"
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2


# kills: bot/github_sessions.py:GitHubSessions._installation_grant a mint's 404 under a
# lookup made for this very call taken for a stale one (GitHub asked again: the same)
def test_a_mint_refused_404_under_a_lookup_just_made_is_not_looked_up_again(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("POST", f"/app/installations/{DEFAULT_INSTALLATION_ID}/*", Fault.not_found())
    with pytest.raises(GitHubError) as caught:
        make_github_client().create_comment(PRRef(DEFAULT_REPO, 7, None), "notes")
    assert caught.value.status == 404
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 1


def test_a_repository_no_installation_holds_any_more_still_fails(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    with pytest.raises(GitHubError, match="404"):
        client.create_comment(PR, "after")


def _asked(fake: FakeGitHub) -> tuple[int, int]:
    """(token mints, installation lookups) the fake was asked for."""
    lookups = [r for r in fake.requests if r.path.endswith("/installation")]
    return len(fake.calls("POST", "/app/installations/*/access_tokens")), len(lookups)


def _installed(installation_id: int) -> InstallationChange:
    return InstallationChange(installation_id, "installation", "created", "vllm-project", ())


# A delivery naming an uninstalled installation asked for its token (404) at each call,
# and each call of the deliveries queued behind it did the same to fail the same way.
# GitHub's 404 to the mint is kept for a while now (the id is never given back); where
# the repository is, is asked each time (the App may be installed there again).
def test_an_uninstalled_installation_is_asked_for_once_a_while(
    fake_github, make_github_client, manual_time
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    client.create_comment(PR, "before")
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    fake_github.clear_requests()
    for _ in range(3):
        with pytest.raises(GitHubError, match=f"the App is not installed on {DEFAULT_REPO}"):
            client.create_comment(PR, "after")
    assert _asked(fake_github) == (1, 3)
    with pytest.raises(NotInstalled) as caught:  # not a resource gone (bot.command_reactions)
        client.list_files(PR)
    assert caught.value.status == 404 and not caught.value.sent  # the call never went out
    assert caught.value.advised  # its words say to retry once installed (bot.workers)
    manual_time.advance(10)  # a lone 404 is asked again, and confirmed (`LONE_404_KEPT`)
    with pytest.raises(GitHubError, match="not installed"):
        client.list_files(PR)
    assert _asked(fake_github) == (2, 5)
    manual_time.advance(299)
    with pytest.raises(GitHubError, match="not installed"):
        client.list_files(PR)
    assert _asked(fake_github) == (2, 6)
    manual_time.advance(1)  # kept no longer: asked again
    with pytest.raises(GitHubError, match="not installed"):
        client.list_files(PR)
    assert _asked(fake_github) == (3, 7)


def _reinstalled_after_a_404(fake_github, make_github_client) -> GitHubClient:
    """A client whose create failed for the App uninstalled (the 404 kept), the App
    since installed again as installation 2002, which the client has not heard of."""
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    with pytest.raises(GitHubError, match="not installed"):
        client.create_comment(PR, "lost")
    fake_github.add_installation(2002, [DEFAULT_REPO])
    return client


def test_an_installation_event_forgets_the_404s_at_once(fake_github, make_github_client):
    # The App installed again: GitHub gives the installation a new id and sends an
    # `installation` event, which the next call hears of before it fails
    client = _reinstalled_after_a_404(fake_github, make_github_client)
    client.forget_installation(_installed(2002))
    client.create_comment(PR, "after")  # a delivery queued before, or retried
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["after"]
    # the one removed is not minted for again: GitHub never gives its id back
    assert _asked(fake_github) == (2, 2)


def test_a_delivery_naming_the_new_installation_needs_no_event(fake_github, make_github_client):
    # its installation event lost or not handled yet: the new installation's own
    # deliveries name it, and its token is minted at once
    client = _reinstalled_after_a_404(fake_github, make_github_client)
    client.create_comment(PRRef(DEFAULT_REPO, 7, 2002), "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["after"]


# kills: bot/github_sessions.py:GitHubSessions._look_up keeping its 404 (as it did)
# The App installed again (a new installation id) and its `installation` event lost:
# the operator's `review-notes retry` of a delivery, within the 5 minutes a 404 was kept,
# failed again, the repository's lookup 404 kept too. The removed id is never given
# back, so its mint's 404 stays kept; where the repository is, GitHub is asked afresh.
@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
def test_a_retry_naming_a_removed_installation_finds_the_app_installed_again(
    fake_github, make_github_client, manual_time, named
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    ref = PR if named else PRRef(DEFAULT_REPO, 7, None)
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    for _ in range(2):  # the second 404, 10 s after the first, confirms it
        with pytest.raises(NotInstalled):
            client.create_comment(ref, "lost")
        manual_time.advance(10)
    fake_github.add_installation(2002, [DEFAULT_REPO])  # no event reaches the client
    fake_github.clear_requests()
    client.create_comment(ref, "retried")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["retried"]
    assert len(fake_github.calls("POST", "/app/installations/1001/access_tokens")) == 0
    assert len(fake_github.calls("POST", "/app/installations/2002/access_tokens")) == 1


# kills: bot/github_sessions.py:GitHubSessions._keep_404 keeping a 404 answered across an
# installation event: it may predate the App installed again, which the event says
def test_a_404_answered_across_an_installation_event_is_not_kept(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    news = Fault(
        status=404,
        body={"message": "Not Found"},
        first=lambda: client.forget_installation(_installed(DEFAULT_INSTALLATION_ID)),
    )
    fake_github.inject("POST", "/app/installations/*/access_tokens", news)
    fake_github.inject("GET", "/repos/*/installation", Fault.not_found())
    with pytest.raises(GitHubError, match="not installed"):
        client.create_comment(PR, "lost")
    client.create_comment(PR, "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["after"]


# kills: bot/github_sessions.py:GitHubSessions._grant a mint's 404 (the installation a
#        lookup just found removed since) raised as any 404, which a reaction's caller
#        took for its comment deleted (bot.command_reactions)
def test_a_mint_answered_404_says_the_app_is_not_installed(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    fake_github.inject("POST", "/app/installations/*/access_tokens", Fault.not_found())
    with pytest.raises(NotInstalled, match="mint a token for installation"):
        client.create_comment(PRRef(DEFAULT_REPO, 7, None), "lost")


def test_no_404_is_kept_when_the_setting_is_zero(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(removed_installation_kept=0)
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    for _ in range(2):
        with pytest.raises(GitHubError, match="not installed"):
            client.create_comment(PR, "after")
    assert _asked(fake_github) == (2, 2)


# GitHub may answer 404 for what was just made (its replicas lag the event by a few
# seconds): one 404 kept the whole 5 minutes failed every delivery of the installation
# meanwhile, where the next call had asked again. Kept 10 s; a second 404 confirms it.
def test_a_lone_404_is_asked_again_seconds_later(fake_github, make_github_client, manual_time):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    fake_github.inject("POST", "/app/installations/*/access_tokens", Fault.not_found())
    # the lookup after it finds the repository in the installation whose mint was refused
    with pytest.raises(GitHubError) as caught:
        client.create_comment(PR, "lost")
    assert caught.value.status == 404
    with pytest.raises(GitHubError) as kept:
        client.create_comment(PR, "lost")  # the same burst: not minted again
    manual_time.advance(10)
    client.create_comment(PR, "after")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["after"]
    # only that installation's event forgets it (another's did, once): the error says so
    said = "not asked again for 10 s after it, or until an installation event of installation"
    assert f"{said} {DEFAULT_INSTALLATION_ID})" in str(kept.value), kept.value


# kills: bot/github_sessions.py:GitHubSessions._grant forgetting a lone 404 once GitHub
# answers: a 404 minutes after would confirm it
def test_an_answer_after_a_lone_404_forgets_it(fake_github, make_github_client, manual_time):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    mint = "/app/installations/*/access_tokens"
    fake_github.inject("POST", mint, Fault.not_found())
    with pytest.raises(GitHubError):
        client.create_comment(PR, "lost")
    manual_time.advance(10)
    client.create_comment(PR, "first")  # GitHub answered: installed after all
    # a new token's mint (its token refused): 404 again
    fake_github.inject("POST", "*/issues/7/comments", Fault.error(401, "Bad credentials"))
    fake_github.inject("POST", mint, Fault.not_found())
    with pytest.raises(GitHubError, match="404"):
        client.create_comment(PR, "lost")
    with pytest.raises(GitHubError, match="not asked again for 10 s"):
        client.create_comment(PR, "lost")
    manual_time.advance(10)
    client.create_comment(PR, "second")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["first", "second"]


# --- a repository transferred to another installation of the App -----------------------

MOVED = "vllm-org/vllm"


def _transferred(fake: FakeGitHub) -> None:
    """vllm-project/vllm moves to an organisation where the App has installation 2002,
    which holds another repository too; installation 1001 keeps one of its own."""
    fake.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake.add_pull("vllm-project/kept", 1, files=["k.py"])
    fake.add_pull("vllm-org/other", 1, files=["o.py"])
    fake.transfer(DEFAULT_REPO, MOVED)
    fake._installations[DEFAULT_INSTALLATION_ID].repos = {"vllm-project/kept"}
    fake.add_installation(2002, [MOVED, "vllm-org/other"])


def _moved_back(fake: FakeGitHub) -> None:
    """The transferred repository goes back to installation 1001 (its first account)."""
    fake._installations[2002].repos.discard(MOVED)
    fake._installations[DEFAULT_INSTALLATION_ID].repos.add(MOVED)


# kills: bot/github_sessions.py:GitHubSessions._left_installation paced the call run under
# the new installation as the old one's (its id as the pacer key, with the new token)
def test_a_rate_limit_after_a_transfer_pauses_the_new_installation_not_the_old(
    fake_github, make_github_client, manual_time
):
    # The delivery names installation 1001; its repository is in 2002 now. GitHub rate
    # limits the call that runs there: 2002 is the limited identity, so its calls wait,
    # and 1001's go on (pausing 1001 would keep calling 2002 while it is limited).
    _transferred(fake_github)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    fake_github.inject(
        "GET",
        f"/repos/{MOVED}/pulls/7/files",
        Fault.not_found(),  # 1001's try (GitHub's answer to its token anyway)
        Fault.too_many_requests(retry_after=3600),  # 2002's
    )
    with pytest.raises(GitHubError, match="asked to wait 3600s"):
        client.list_files(PR)
    assert fake_github.pending_faults() == 0
    with pytest.raises(GitHubError, match="installation 2002 rate limited for another"):
        client.list_files(PRRef("vllm-org/other", 1, 2002))
    assert fake_github.calls("GET", "/repos/vllm-org/other/pulls/1/files") == []  # not sent
    assert client.list_files(PRRef("vllm-project/kept", 1, DEFAULT_INSTALLATION_ID)) == ["k.py"]


def test_a_transferred_repository_s_later_calls_go_straight_to_its_new_installation(
    fake_github, make_github_client
):
    # A queued delivery names installation 1001 on each call: only its first call asks
    # 1001 (404) and then where the repository is; the next ones go to 2002 at once.
    _transferred(fake_github)
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    assert client.list_files(PR) == ["a.py"]
    client.create_comment(PR, "notes")
    files = fake_github.calls("GET", f"/repos/{MOVED}/pulls/7/files")
    assert [r.status for r in files] == [404, 200, 200]
    posts = fake_github.calls("POST", f"/repos/{MOVED}/issues/7/comments")
    assert [r.status for r in posts] == [201]
    assert len(fake_github.calls("GET", f"/repos/{MOVED}/installation")) == 1  # asked once


def test_a_repository_back_in_the_installation_its_delivery_names_is_called_there_again(
    fake_github, make_github_client
):
    # Moved to 2002, then back to 1001 (transferred back): the 404 under 2002, where
    # the last call found it, asks GitHub afresh, not the lookup cached on the way out.
    _transferred(fake_github)
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    _moved_back(fake_github)
    assert client.list_files(PR) == ["a.py"]
    assert client.list_files(PR) == ["a.py"]
    files = fake_github.calls("GET", f"/repos/{MOVED}/pulls/7/files")
    assert [r.status for r in files] == [404, 200, 404, 200, 200]


def test_a_transferred_repository_s_lookup_rate_limited_waits_rather_than_failing_404(
    fake_github, make_github_client, manual_time
):
    # The 404 under the old installation asks where the repository is; GitHub rate
    # limits the App's lookup for an hour: the call fails with that limit (its delivery
    # is put back until then), not with the 404, which would fail it for good
    _transferred(fake_github)
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    lookup = f"/repos/{DEFAULT_REPO}/installation"
    fake_github.inject("GET", lookup, Fault.too_many_requests(retry_after=3600))
    with pytest.raises(GitHubError, match="asked to wait 3600s") as limited:
        client.list_files(PR)
    assert limited.value.retry_after == 3600 and limited.value.status != 404
    manual_time.advance(3601)
    assert client.list_files(PR) == ["a.py"]


def test_an_installation_event_forgets_where_a_transferred_repository_was_found(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    # GitHub tells the App the repository is in 1001 again: the next call asks 1001,
    # not 2002 first, where the last call found it
    _transferred(fake_github)
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    _moved_back(fake_github)
    added = InstallationChange(
        DEFAULT_INSTALLATION_ID, "installation_repositories", "added", "octocat", (MOVED,)
    )
    client.forget_installation(added)
    assert client.list_files(PR) == ["a.py"]
    files = fake_github.calls("GET", f"/repos/{MOVED}/pulls/7/files")
    assert [r.status for r in files] == [404, 200, 200]


# kills: bot/github_sessions.py:GitHubSessions._left_installation kept where a lookup
# answered across an installation event found the repository, as any other
def test_where_a_lookup_across_an_installation_event_found_a_repository_is_used_once(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    # the lookup after the 404 is in flight when an installation event is answered:
    # its answer may predate the event, so later calls do not go by it (as for tokens
    # and lookups); they ask the named installation and GitHub again
    _transferred(fake_github)
    client = make_github_client()
    fake_github.inject("GET", f"/repos/{MOVED}/installation", Fault.slow(1.0))
    worker = threading.Thread(target=client.list_files, args=(PR,))
    worker.start()
    wait_until(
        lambda: fake_github.calls("GET", f"/repos/{MOVED}/installation"),
        timeout=10,
        what="the lookup",
    )
    accepted = InstallationChange(2002, "installation", "new_permissions_accepted", "vllm-org", ())
    client.forget_installation(accepted)
    worker.join(10)
    assert not worker.is_alive()
    assert client.list_files(PR) == ["a.py"]
    files = fake_github.calls("GET", f"/repos/{MOVED}/pulls/7/files")
    assert [r.status for r in files] == [404, 200, 404, 200]


# the repository moved to 2002 and another took its old name in 1001, the
# installation the late delivery names (or none named: a hand-made payload): the call
# under 1001 by id is refused (404; public: its write 403), and the installation was
# looked up by the old name, GitHub's answer the other repository's, 1001 again: the
# delivery failed. Looked up by the id, it is the one that holds the repository, 2002.
@pytest.mark.parametrize("public", [False, True], ids=["private", "public"])
@pytest.mark.parametrize("named", [DEFAULT_INSTALLATION_ID, None], ids=["named", "unnamed"])
def test_a_repository_moved_to_another_installation_under_a_name_taken_since_is_found_by_id(
    fake_github, make_github_client, public, named
):
    _transferred(fake_github)
    moved = fake_github.add_repo(MOVED)
    moved.public = public
    fake_github.take_name(DEFAULT_REPO)  # in 1001
    fake_github.add_pull(DEFAULT_REPO, 7, files=["b.py"])
    ref = dataclasses.replace(PR, installation_id=named, repo_id=moved.id)
    client = make_github_client()
    assert client.list_files(ref) == ["a.py"]
    client.create_comment(ref, "notes")
    (made,) = fake_github.comments(MOVED, 7)
    assert (made.body, made.user.installation_id) == ("notes", 2002)
    assert fake_github.comments(DEFAULT_REPO, 7) == []
    (lookup,) = fake_github.calls("GET", "/repos/*/installation")
    assert (lookup.path, lookup.by_id) == (f"/repos/{MOVED}/installation", True)


# where a late delivery found its repository moved (2002) is its repository's, not
# its name's: a delivery of the repository that took the name, naming 1001 too, was
# sent to 2002 first; public, its write was refused there twice (a new token minted
# between), 2002 was kept as refused that permission, and its installation asked again.
def test_where_a_repository_was_found_moved_is_not_taken_for_the_one_under_its_old_name(
    fake_github, make_github_client
):
    _transferred(fake_github)
    moved = fake_github.add_repo(MOVED)
    taken = fake_github.take_name(DEFAULT_REPO)  # in 1001
    fake_github.add_pull(DEFAULT_REPO, 7, files=["b.py"])
    moved.public = taken.public = True
    client = make_github_client()
    client.create_comment(dataclasses.replace(PR, repo_id=moved.id), "moved")
    fake_github.clear_requests()
    client.create_comment(dataclasses.replace(PR, repo_id=taken.id), "taken")
    client.create_comment(dataclasses.replace(PR, repo_id=moved.id), "moved again")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["taken"]
    assert [c.body for c in fake_github.comments(MOVED, 7)] == ["moved", "moved again"]
    assert [r.status for r in fake_github.calls("POST", "/repos/*/comments")] == [201, 201]
    assert fake_github.calls("GET", "/repos/*/installation") == []


# a delivery naming no installation (a hand-made payload) goes through the one
# looked up for its repository and cached; its repository transferred since, with no
# installation event seen, the call under the cached one got a 404 (public: its write a
# 403 with a new token too) and failed, and every later one did, until an installation
# event. The cached lookup is forgotten and GitHub asked once more: the call runs where
# the repository is now, never again under the installation that no longer holds it.
@pytest.mark.parametrize("public", [False, True], ids=["private", "public"])
def test_an_unnamed_delivery_s_stale_cached_installation_is_looked_up_again(
    fake_github, make_github_client, public
):
    repo = fake_github.add_repo(DEFAULT_REPO)
    repo.public = public
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    ref = PRRef(DEFAULT_REPO, 7, None, repo_id=repo.id)
    client = make_github_client()
    assert client.list_files(ref) == ["a.py"]  # installation 1001, looked up and cached
    fake_github.transfer(DEFAULT_REPO, MOVED)
    fake_github._installations[DEFAULT_INSTALLATION_ID].repos.discard(MOVED)
    fake_github.add_installation(2002, [MOVED])
    client.create_comment(ref, "notes")
    client.create_comment(ref, "more")
    made = fake_github.comments(MOVED, 7)
    assert [(c.body, c.user.installation_id) for c in made] == [("notes", 2002), ("more", 2002)]
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2  # once more, then kept


# a 404 under a cached lookup that is the answer (a reaction on a comment deleted
# since) asks GitHub once, finds the repository where it was, and is raised: no loop,
# no second try of the call; under a lookup made for this very call, GitHub is not asked
# again at all
def test_a_404_under_an_installation_still_holding_the_repository_is_the_answer(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    ref = PRRef(DEFAULT_REPO, 7, None)
    client = make_github_client()
    with pytest.raises(GitHubError) as fresh:
        client.add_reaction(ref, 999_999, "eyes")  # looked up for this call: not again
    assert fresh.value.status == 404
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 1
    with pytest.raises(GitHubError) as cached:
        client.add_reaction(ref, 999_999, "eyes")
    assert cached.value.status == 404 and "not installed" not in str(cached.value)
    assert not isinstance(fresh.value, NotInstalled) and not isinstance(cached.value, NotInstalled)
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2
    assert len(fake_github.calls("POST", "/repos/*/reactions")) == 2  # one a call
    assert client.list_files(ref) == ["a.py"]  # the lookup kept: asked no more
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2


# kills: bot/github_sessions.py:_installation_id an answer without an integer id taken
#        for an installation's (the check deleted): its token minted for `None` (a list
#        is no object: asked again, as any answer of the wrong shape, see above)
@pytest.mark.parametrize("body", [{"account": {"login": "vllm-org"}}, {"id": "2002"}])
def test_an_installation_answer_without_an_integer_id_is_an_error(
    fake_github, make_github_client, body
):
    repo = fake_github.add_repo(DEFAULT_REPO)
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/installation", Fault(status=200, body=body))
    ref = PRRef(DEFAULT_REPO, 7, None, repo_id=repo.id)
    with pytest.raises(GitHubError, match="find the installation on .*: a malformed answer: id"):
        make_github_client().list_files(ref)
    assert fake_github.calls("POST", TOKENS) == []


# REVIEW_NOTES_ADDRESS_REPOS_BY=name sends every call by the name, the lookup too
def test_a_client_set_to_address_by_name_looks_the_installation_up_by_the_name(
    fake_github, make_github_client
):
    _transferred(fake_github)
    ref = dataclasses.replace(PR, repo_id=fake_github.add_repo(MOVED).id)
    assert make_github_client(address_repos_by="name").list_files(ref) == ["a.py"]
    lookups = fake_github.calls("GET", "/repos/*/installation")
    assert [(r.path, r.status, r.by_id) for r in lookups] == [
        (f"/repos/{DEFAULT_REPO}/installation", 301, False),
        (f"/repos/{MOVED}/installation", 200, True),  # GitHub's redirect: to the id
    ]
    asked = [(r.status, r.by_id) for r in fake_github.calls(path="/repos/*")]
    redirected = [False] + [status == 301 for status, _ in asked[:-1]]
    assert [by_id for _, by_id in asked] == redirected  # by id only where GitHub sent it


def test_a_permission_asked_after_a_transfer_is_the_new_installation_s_answer(
    fake_github, make_github_client
):
    # A maintainer's /notes off waits in the queue while the repository is transferred:
    # the installation the delivery names answers 404 to the permission too, which was
    # taken for "no such user" (none: the maintainer's command refused)
    _transferred(fake_github)
    fake_github.set_permission(MOVED, "maintainer", "maintain")
    client = make_github_client()
    assert client.permission(PR, "maintainer") == "maintain"
    assert client.permission(PR, "nobody-here") == "none"  # a 404 there is still no user


def test_a_token_refused_after_an_unclear_create_does_not_post_twice(
    fake_github, make_github_client
):
    # the POST landed but answered 502; looking for it, the token is refused (expired,
    # revoked): the operation runs again with a new token, and must look first again
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502, apply=True))
    fake_github.inject("GET", "/repos/*/issues/7/comments", Fault.bad_credentials())
    make_github_client().create_comment(PR, "a reply to /notes help")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["a reply to /notes help"]


# The notes comment's create landed, its answer lost (502); looking for it, the token was
# refused, and the run again with a new token read a list still lacking it: it posted a
# second notes comment (everyone notified twice; the next run deletes the copy). The run
# again now knows its create may have landed, and looks for it before posting.
def test_a_token_refused_after_an_unclear_sticky_create_does_not_post_twice(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.bot_login()
    fake_github.lag_comment_lists(reads=1)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502, apply=True))
    comments = "/repos/*/issues/7/comments"
    fake_github.inject("GET", comments, Fault(), Fault.bad_credentials())  # the look's
    made = client.upsert_sticky(PR, f"{MARKER}\nnotes", MARKER, create=True)
    assert made.outcome is Outcome.CREATED
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [made.comment_id]
    assert len(fake_github.calls("POST", comments)) == 1


# kills: bot/github_sessions.py:GitHubSessions.as_installation a failure after a 401 said
#        never sent, the first run's write sent (known); bot/github_retry.py:Retrier.call
#        a later try's call held back said never sent, the first try's write sent (unknown)
@pytest.mark.parametrize("known", [True, False], ids=["new-token", "own-login"])
def test_a_write_sent_then_held_back_is_not_said_never_sent(fake_github, make_github_client, known):
    # The reply's POST landed, its answer lost; in the back-off another delivery's JWT call
    # met a rate limit, pausing the App's calls. Looking for the reply, the bot's own login
    # (not known yet) was held back by that pause; or (known) the token was refused and
    # the new token's mint was held back. The failure said the call never went out, and
    # the command's run gave back the reply's write and its reply budget
    # (bot.command_answers._reply_once) for a comment that is on the PR.
    fake_github.add_pull(DEFAULT_REPO, 7)
    elsewhere = PRRef("octo/elsewhere", 1)  # no installation named: the App looks it up
    limited: list[GitHubError] = []

    def sleep(_seconds: float) -> None:  # the back-off between the POST and the look
        if not limited:
            path = "/repos/octo/elsewhere/installation"
            fake_github.inject("GET", path, Fault.primary_rate_limit(600))
            with pytest.raises(GitHubError) as met:
                client.is_pull(elsewhere)
            limited.append(met.value)

    client = make_github_client(sleep=sleep)
    if known:
        client.bot_login()
        fake_github.inject("GET", "/repos/*/issues/7/comments", Fault.bad_credentials())
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.dropped(apply=True))
    with pytest.raises(GitHubError) as caught:
        client.create_comment(PR, "a reply to /notes help")
    assert rate_limit_wait(limited[0]) is not None  # the App's calls paused
    held = "mint a token" if known else "get the App"
    assert held in str(caught.value) and "not sent" in str(caught.value)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["a reply to /notes help"]
    assert not never_sent(caught.value)


# kills: bot/github_retry.py:Retrier.call a call of its own held back at the first try
#        said sent (a write never made kept from the budget), or at a later one not
def test_a_call_held_back_inside_a_try_is_sent_only_when_a_try_before_it_was():
    held = GitHubError("held back", sent=False)
    first = Retrier(RetryPolicy(backoff=0.0), sleep=lambda seconds: None)
    with pytest.raises(GitHubError) as caught:
        first.call("write", lambda: (_ for _ in ()).throw(held))
    assert never_sent(caught.value)
    tries = iter([requests.exceptions.ConnectionError("reset"), held])
    with pytest.raises(GitHubError) as caught:
        first.call("write", lambda: (_ for _ in ()).throw(next(tries)))
    assert caught.value is held and not never_sent(held)


def _raise_next(failures: Iterator[BaseException]) -> None:
    raise next(failures)


# kills: bot/github_retry.py:Retrier.call a call whose every try failed connecting said
#        sent (its write kept from the budget), or one with a try sent before not
def test_a_call_whose_every_try_failed_connecting_was_never_sent():
    never = requests.ConnectionError(_retried(_new_connection()))
    retrier = Retrier(RetryPolicy(backoff=0.0, attempts=3), sleep=lambda seconds: None)
    for tries, sent in [
        ([never, never, never], False),
        ([requests.ConnectionError("reset"), never, never], True),
        ([never, never, requests.ConnectionError("reset")], True),
        ([never, GithubException(502, {}, {}), never], True),
    ]:
        failures = iter(tries)
        with pytest.raises(GitHubError) as caught:
            retrier.call("write", functools.partial(_raise_next, failures))
        assert never_sent(caught.value) is not sent, tries


def test_a_token_minted_before_new_permissions_were_accepted_is_replaced(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.is_pull(PR)  # a token is minted and cached
    fake_github.grant_write_to_new_tokens()
    client.create_comment(PR, "a reply")
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == ["a reply"]
    refused = [r for r in fake_github.requests if r.status == 403]
    assert len(refused) == 1 and len(fake_github.calls("POST", "/app/installations/*")) == 2


def test_a_refusal_a_new_token_got_too_mints_no_token_again_for_that_permission(
    fake_github, make_github_client, manual_time
):
    # An owner granted pull_requests: write but not the issues: write a reaction on an
    # issue comment needs. Each reaction minted a new token (the 403 taken for a stale
    # token's), two per command delivery; a new token refused too is remembered for that
    # permission, until an installation event or REFUSAL_KEPT has passed.
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.set_permissions(
        DEFAULT_INSTALLATION_ID, {"pull_requests": "write", "metadata": "read"}
    )
    said = fake_github.add_comment(DEFAULT_REPO, 7, "/notes refresh", login="alice")
    on_diff = fake_github.add_review_comment(DEFAULT_REPO, 7, "/notes refresh")
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)

    def mints() -> int:
        return len(fake_github.calls("POST", "/app/installations/*/access_tokens"))

    for content in ("eyes", "+1", "eyes"):
        with pytest.raises(GitHubError, match=r"lacks the permission .*\(issues: write\)"):
            client.add_reaction(PR, said.id, content)
    assert mints() == 2  # the first token, and the one new token refused too
    client.add_reaction(PR, on_diff.id, "eyes", on_diff=True)  # pull_requests: write: taken
    manual_time.advance(github_sessions.REFUSAL_KEPT.total_seconds() - 1)
    with pytest.raises(GitHubError, match="lacks the permission"):
        client.add_reaction(PR, said.id, "+1")
    assert mints() == 2
    manual_time.advance(1)  # long since: it is asked again, with a new token
    with pytest.raises(GitHubError, match="lacks the permission"):
        client.add_reaction(PR, said.id, "+1")
    assert mints() == 3
    # an installation event forgets the refusal with the token: a call may have held a
    # token minted before it, so the first refusal after it is asked again
    accepted = InstallationChange(
        DEFAULT_INSTALLATION_ID, "installation", "new_permissions_accepted", "vllm-project", ()
    )
    client.forget_installation(accepted)
    with pytest.raises(GitHubError, match="lacks the permission"):
        client.add_reaction(PR, said.id, "+1")
    assert mints() == 5
    # the owner accepts issues: write
    fake_github.set_permissions(DEFAULT_INSTALLATION_ID, {"issues": "write", "metadata": "read"})
    client.forget_installation(accepted)
    client.add_reaction(PR, said.id, "+1")
    assert mints() == 6
    assert [r.content for r in fake_github.reactions(said.id)] == ["+1"]


# kills: bot/github_sessions.py:GitHubSessions._lacking said "a new token too", none minted
def test_a_refusal_remembered_says_no_token_was_minted_for_it(fake_github, make_github_client):
    # The failure said "a new token too" also when the call minted none (a new token was
    # refused the permission lately): the operator read a mint the fake never saw
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.set_permissions(
        DEFAULT_INSTALLATION_ID, {"pull_requests": "write", "metadata": "read"}
    )
    said = fake_github.add_comment(DEFAULT_REPO, 7, "/notes refresh", login="alice")
    client = make_github_client()

    def mints() -> int:
        return len(fake_github.calls("POST", "/app/installations/*/access_tokens"))

    with pytest.raises(GitHubError) as first:
        client.add_reaction(PR, said.id, "eyes")
    assert "(a new token too: installation 1001" in str(first.value) and mints() == 2
    with pytest.raises(GitHubError) as second:
        client.add_reaction(PR, said.id, "eyes")
    assert mints() == 2
    assert "a new token too" not in str(second.value)
    assert first.value.advised and second.value.advised  # "... `review-notes retry` ..."
    assert (
        "(no new token minted: one was refused it too in the last 15 minutes: installation"
        " 1001 of the App lacks the permission this call needs (issues: write)"
    ) in str(second.value)


# kills: bot/github_client.py:GitHubClient.get_pull (and each port call) another call's
#        permission named, and its refusal kept under it
@pytest.mark.parametrize(
    "call, needs",
    [
        (lambda c: c.get_pull(PR), "pull_requests: read"),
        (lambda c: c.list_files(PR), "pull_requests: read"),
        (lambda c: c.is_pull(PR), "issues: read"),
        (lambda c: c.find_comment(PR, "key"), "issues: read or pull_requests: read"),
        (
            lambda c: c.upsert_sticky(PR, _sticky("a"), MARKER, create=True),
            "issues: write or pull_requests: write",
        ),
        (lambda c: c.create_comment(PR, "hi"), "issues: write or pull_requests: write"),
        (lambda c: c.permission(PR, "alice"), "metadata: read"),
        (lambda c: c.repository_now(PR), "metadata: read"),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_each_call_refused_names_its_permission_and_mints_for_it_once(
    fake_github, make_github_client, call, needs
):
    # an installation granted nothing: each call's 403 names what it needs, and a second
    # refusal mints no token
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.set_permissions(DEFAULT_INSTALLATION_ID, {})
    client = make_github_client(bot_login=f"{DEFAULT_APP_SLUG}[bot]")
    for _ in range(2):
        with pytest.raises(GitHubError, match=re.escape(f"this call needs ({needs})")):
            call(client)
    assert len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 2


def test_a_refusal_by_a_token_minted_across_an_installation_event_is_not_kept(
    fake_github, make_github_client
):
    # the event comes while the new token is minted: that token may predate what the event
    # says, so its refusal must not spare the next call's new token
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.set_permissions(
        DEFAULT_INSTALLATION_ID, {"pull_requests": "write", "metadata": "read"}
    )
    said = fake_github.add_comment(DEFAULT_REPO, 7, "/notes refresh", login="alice")
    on_diff = fake_github.add_review_comment(DEFAULT_REPO, 7, "/notes refresh")
    client = make_github_client()
    client.add_reaction(PR, on_diff.id, "eyes", on_diff=True)  # the first token
    fake_github.inject("POST", "/app/installations/*/access_tokens", Fault.slow(1.0))
    failed: list[Exception] = []

    def react() -> None:
        try:
            client.add_reaction(PR, said.id, "eyes")
        except GitHubError as err:
            failed.append(err)

    worker = threading.Thread(target=react)
    worker.start()
    wait_until(
        lambda: len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 2,
        timeout=10,
        what="the second mint",
    )
    event = InstallationChange(
        DEFAULT_INSTALLATION_ID, "installation", "new_permissions_accepted", "vllm-project", ()
    )
    client.forget_installation(event)
    worker.join(10)
    assert not worker.is_alive() and len(failed) == 1
    fake_github.clear_requests()
    with pytest.raises(GitHubError, match="lacks the permission"):
        client.add_reaction(PR, said.id, "eyes")
    assert len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 2


# --- reactions, permission, replies -------------------------------------------------


def test_reactions_are_added_once(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    command = fake_github.add_comment(DEFAULT_REPO, 7, "/notes refresh", login="alice")
    client = make_github_client()
    client.add_reaction(PR, command.id, "eyes")
    client.add_reaction(PR, command.id, "eyes")
    assert [(r.content, r.user.login) for r in fake_github.reactions(command.id)] == [
        ("eyes", "review-notes[bot]")
    ]
    assert [r.status for r in fake_github.calls("POST", "/repos/*/reactions")] == [201, 200]
    with pytest.raises(ValueError, match="not a GitHub reaction"):
        client.add_reaction(PR, command.id, "thumbsup")


def test_permission_gives_the_role(fake_github, make_github_client):
    fake_github.set_permission(DEFAULT_REPO, "maint", "maintain")
    fake_github.set_permission(DEFAULT_REPO, "writer", "write")
    fake_github.user("passer-by")
    client = make_github_client()
    assert client.permission(PR, "maint") == "maintain"
    assert client.permission(PR, "writer") == "write"
    assert client.permission(PR, "passer-by") == "read"
    assert client.permission(PR, "ghost") == "none"  # no such user


def test_permission_of_a_login_with_brackets_is_asked_by_its_escaped_name(
    fake_github, make_github_client
):
    # An App's bot login ("renovate[bot]") goes into the path percent-encoded (requests
    # escapes the brackets, quoted by us or not), and GitHub decodes it; the fake did
    # not, and answered such a check "none".
    fake_github.set_permission(DEFAULT_REPO, "renovate[bot]", "write")
    client = make_github_client()
    assert client.permission(PR, "renovate[bot]") == "write"
    asked = [r.path for r in fake_github.requests if r.path.endswith("/permission")]
    assert asked and "%5Bbot%5D" in asked[-1], asked


def test_create_comment_returns_the_new_id(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    first = client.create_comment(PR, "same words")
    second = client.create_comment(PR, "same words")  # a clean create is never deduplicated
    assert first != second
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [first, second]


def test_a_comment_of_ours_is_found_by_its_key(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.add_comment(DEFAULT_REPO, 7, "someone quoting <!-- key-1 -->", login="someone")
    client = make_github_client()
    assert client.find_comment(PR, "<!-- key-1 -->") is None  # the foreign one is not ours
    first = client.create_comment(PR, "answer\n<!-- key-1 -->")
    other = client.create_comment(PR, "answer\n<!-- key-2 -->")
    assert client.find_comment(PR, "<!-- key-1 -->") == first != other
    assert client.find_comment(PR, "<!-- key-2 -->") == other


def test_a_file_list_shorter_than_changed_files_is_not_ready(fake_github, make_github_client):
    from bot.github_port import FilesNotReady

    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py", ("b.py", "old_b.py")])
    client = make_github_client()
    assert client.list_files(PR, expected=2) == ["a.py", "b.py", "old_b.py"]  # a rename: 1 file
    assert client.list_files(PR).listed == 2  # entries, not paths
    assert client.list_files(PR) == ["a.py", "b.py", "old_b.py"]
    with pytest.raises(FilesNotReady, match="listed 2 of 3"):
        client.list_files(PR, expected=3)


def test_the_file_listing_also_gives_the_names_its_diff_changes(fake_github, make_github_client):
    from tests.fake_github import FakeFile

    patch = "\n".join(
        ["@@ -3,2 +3,2 @@ def run():", "-    deep_gemm_warmup(m)", "+    deep_gemm_warmup(m, n)"]
        + ["     keep_this_line()"]
    )
    fake_github.add_pull(
        DEFAULT_REPO,
        7,
        files=[
            FakeFile("vllm/warmup.py", patch=patch),
            FakeFile("tests/t.py", patch="@@ -0,0 +1 @@\n+deep_gemm_warmup()"),
            FakeFile("model.bin", patch=None),  # binary: GitHub sends no patch
        ],
    )
    listed = make_github_client().list_files(PR)
    assert listed == ["vllm/warmup.py", "tests/t.py", "model.bin"]
    assert listed.code_names == {"deep_gemm_warmup": ("vllm/warmup.py", "tests/t.py")}
    assert listed.incidental == frozenset()


def test_the_file_listing_tells_files_only_moved_or_changed_in_their_imports(
    fake_github, make_github_client
):
    from tests.fake_github import FakeFile

    imports = "@@ -1,2 +1,2 @@\n-from vllm.a import X\n+from vllm.b.a import X\n import os"
    fake_github.add_pull(
        DEFAULT_REPO,
        7,
        files=[
            # GitHub lists a move without changes with no patch and 0 changes
            FakeFile("vllm/b/a.py", "renamed", "vllm/a.py", 0, 0, None),
            FakeFile("vllm/user.py", patch=imports),
            FakeFile("vllm/core.py"),  # a real change
            FakeFile("model.bin", patch=None),  # binary: no patch, not known to be a move
        ],
    )
    listed = make_github_client().list_files(PR)
    assert listed == ["vllm/b/a.py", "vllm/a.py", "vllm/user.py", "vllm/core.py", "model.bin"]
    assert listed.incidental == {"vllm/b/a.py", "vllm/a.py", "vllm/user.py"}


def test_an_installation_event_makes_the_next_call_look_up_and_mint_afresh(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    ref = PRRef(DEFAULT_REPO, 7)  # no installation in the delivery: looked up, then cached
    client.is_pull(ref)
    client.is_pull(ref)
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 1
    removed = InstallationChange(
        DEFAULT_INSTALLATION_ID, "installation_repositories", "removed", "octocat", (DEFAULT_REPO,)
    )
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)  # the repository moves to another one
    fake_github.add_installation(2002, [DEFAULT_REPO])
    client.forget_installation(removed)
    client.is_pull(ref)
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2
    assert len(fake_github.calls("POST", "/app/installations/2002/access_tokens")) == 1


def test_a_token_minted_across_an_installation_event_is_used_once_not_cached(
    fake_github, make_github_client
):
    # a worker's mint is in flight when new_permissions_accepted is answered: the token
    # it gets predates the permission, so it must not serve the next call
    from bot.installations import InstallationChange
    from tests.webhook_kit import wait_until

    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    fake_github.inject("POST", "/app/installations/*/access_tokens", Fault.slow(1.0))
    worker = threading.Thread(target=client.is_pull, args=(PR,))
    worker.start()
    wait_until(
        lambda: fake_github.calls("POST", "/app/installations/*/access_tokens"),
        timeout=10,
        what="the mint request",
    )
    fake_github.grant_write_to_new_tokens()
    accepted = InstallationChange(
        DEFAULT_INSTALLATION_ID, "installation", "new_permissions_accepted", "vllm-project", ()
    )
    client.forget_installation(accepted)
    worker.join(10)
    assert not worker.is_alive()
    fake_github.clear_requests()
    client.create_comment(PR, "hello")
    assert [r for r in fake_github.calls("POST", "/repos/*/comments") if r.status == 403] == []
    assert len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 1


# --- a list that lags behind our last edit --------------------------------------------


def test_a_list_showing_the_new_text_where_we_last_wrote_another_lags_our_edit(
    fake_github, make_github_client
):
    # the caller knows it last posted another text: a list showing `body` lags behind
    # that edit, and the edit is sent; not knowing it, the list's text is taken at its word
    client, made = _notes_comment_posted(fake_github, make_github_client)
    fake_github.clear_requests()
    same = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True, known_id=made)
    assert same == StickyResult(Outcome.UNCHANGED, made) and not fake_github.calls("PATCH")
    lagging = client.upsert_sticky(
        PR, _sticky("v1"), MARKER, create=True, known_id=made, known_differs=True
    )
    assert lagging == StickyResult(Outcome.UPDATED, made)
    assert len(fake_github.calls("PATCH")) == 1


# --- the start's App check: a refusal or an outage ------------------------------------


@pytest.mark.parametrize(
    ("fault", "refused"),
    [
        (Fault.bad_credentials(), True),  # another App's id: its JWT
        (Fault.not_found(), True),  # no such App
        (Fault(status=403, body={"message": "Forbidden"}), True),
        (Fault.primary_rate_limit(), False),  # a 403 that is no refusal of the credentials
        (Fault.error(502), False),
        (Fault.dropped(), False),
    ],
    ids=["401", "404", "403", "403-rate-limit", "502", "dropped"],
)
def test_the_start_s_app_check_tells_a_refusal_from_an_outage(
    make_github_client, fake_github, fault, refused
):
    # The server's start asks for the App once (GET /app): credentials GitHub refuses
    # stop it, GitHub down must not (a restart during an outage). One try, no retries.
    fake_github.inject("GET", "/app", fault)
    with pytest.raises(GitHubError) as exc:
        make_github_client().check_app()
    assert exc.value.transient is not refused
    assert len(fake_github.calls("GET", "/app")) == 1


def test_the_app_check_keeps_the_login_and_asks_a_token_nothing(make_github_client, fake_github):
    app = make_github_client()
    app.check_app()
    assert app.bot_login() == f"{DEFAULT_APP_SLUG}[bot]"
    fake_github.add_pat("ghp_a_pat", "someone")
    make_github_client(token="ghp_a_pat").check_app()
    assert len(fake_github.requests) == 1


# --- a secondary limit met again; a token expiring during a wait ----------------------


class StepClock:
    """A single-thread clock: sleep() moves it at once and records the wait."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_secondary_limit_met_again_backs_off_exponentially(fake_github, make_github_client):
    """github_facts.md §3.3: with no `retry-after` and `x-ratelimit-remaining` not 0,
    "wait at least one minute, then back off exponentially"; calling on at a fixed rate
    while limited may get the integration banned. The client waited 60, 60, 60."""
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", *[Fault.secondary_rate_limit(retry_after=None)] * 3)
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, secondary_wait=60.0, max_wait=3600.0, sleep_max=3600),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert client.list_files(PR) == ["a.py"]
    waits = [s for s in t.slept if s > 0]
    assert waits == [60, 120, 240]
    # a call that went through starts the streak over
    fake_github.inject("GET", "/repos/*/files", *[Fault.secondary_rate_limit(retry_after=None)] * 3)
    t.slept.clear()
    assert client.list_files(PR) == ["a.py"]
    assert [s for s in t.slept if s > 0] == [60, 120, 240]
    # and the back-off is capped by max_wait
    fake_github.inject("GET", "/repos/*/files", *[Fault.secondary_rate_limit(retry_after=None)] * 3)
    t.slept.clear()
    capped = make_github_client(
        retry=RetryPolicy(attempts=4, secondary_wait=60.0, max_wait=100.0, sleep_max=3600),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert capped.list_files(PR) == ["a.py"]
    assert [s for s in t.slept if s > 0] == [60, 100, 100]


def test_a_token_that_expires_during_a_rate_limit_wait_is_replaced_before_github_refuses_it(
    fake_github, make_github_client
):
    """github_facts.md §2.2: an installation token lasts an hour; refresh it before it
    expires. `GitHubSessions._grant` checks the expiry when an operation starts, and an
    operation waited out rate limits inside itself (up to 3 x 300 s): the expired token
    was sent and only GitHub's 401 replaced it. A wait over `sleep_max` now ends the
    operation (the delivery waits in the queue), so the next one starts with a token
    checked then."""
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.token_ttl = 1.5
    client = make_github_client(
        token_refresh_margin=1,
        retry=RetryPolicy(attempts=4, backoff=0.01, backoff_max=0.05, max_wait=5, sleep_max=0.5),
    )
    fake_github.inject("GET", "/repos/*/files", Fault.too_many_requests(retry_after=1))
    with pytest.raises(GitHubError) as limited:
        client.list_files(PR)
    assert limited.value.transient and limited.value.retry_after == 1
    time.sleep(1)  # the delivery's wait in the queue: the token has 0.5 s left
    assert client.list_files(PR) == ["a.py"]
    assert [r for r in fake_github.requests if r.status == 401] == []
    assert len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 2


# --- a secondary limit waits at least a minute ----------------------------------------


def test_a_secondary_limit_is_never_retried_sooner_than_a_minute(fake_github, make_github_client):
    """The secondary back-off was `min(secondary_wait * 2**k, max_wait)`: with
    REVIEW_NOTES_RETRY_MAX_WAIT under 60 (settings allow 0..3600) the client retried a
    secondary limit after max_wait, sooner than GitHub's "wait at least one minute", and
    with 0 at once, 4 calls in a row while limited."""
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.secondary_rate_limit(retry_after=None))
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, secondary_wait=60.0, max_wait=10.0, sleep_max=60),
        clock=t.clock,
        sleep=t.sleep,
    )
    try:
        client.list_files(PR)
    except Exception:
        pass  # giving up is fine; calling again within the minute is not
    calls = fake_github.calls("GET", "/repos/*/files")
    waits = [s for s in t.slept if s > 0]
    assert len(calls) == 1 or min(waits) >= 60, (len(calls), waits)


# --- REVIEW_NOTES_RETRY_MAX_WAIT caps a 5xx back-off ----------------------------------


def test_retry_max_wait_caps_a_5xx_back_off_rather_than_giving_up(fake_github, make_github_client):
    # README then said: REVIEW_NOTES_RETRY_MAX_WAIT is the "longest back-off ... and a 5xx's"; the
    # retry gave up once the next 5xx wait was over it, so with a first back-off over
    # max_wait one 502 failed the call with no retry at all
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.error(502))
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, backoff=20.0, backoff_max=30.0, max_wait=10.0),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert client.list_files(PR) == ["a.py"]  # retried after a wait capped at 10 s
    assert t.slept and all(s <= 10.0 for s in t.slept)


# --- the App's delivery log and redeliveries, asked with its JWT ----------------------


def test_the_apps_delivery_log_is_read_page_by_page_with_its_jwt(fake_github, make_github_client):
    """GET /app/hook/deliveries pages by a cursor in the Link header; the client follows
    it with the App's JWT and stops at the page reaching back past `since`."""
    for n in range(130):
        fake_github.send_webhook("pull_request", {"action": "opened", "number": n})
    client = make_github_client()
    since = datetime.now(UTC) - timedelta(hours=1)
    listed = client.hook_deliveries(since)
    assert len(listed) == 130 and len({d["guid"] for d in listed}) == 130
    pages = fake_github.calls("GET", "/app/hook/deliveries")
    assert [p.login for p in pages] == ["app", "app"] and pages[1].query["cursor"]
    fake_github.clear_requests()
    assert len(client.hook_deliveries(datetime.now(UTC) + timedelta(hours=1))) == 100
    assert len(fake_github.calls("GET", "/app/hook/deliveries")) == 1  # older: no next page


def test_a_redelivery_is_asked_with_the_jwt_and_retried_on_a_5xx(fake_github, make_github_client):
    sent = fake_github.send_webhook("pull_request", {"action": "opened"}, guid="g-1")
    fake_github.inject("POST", "/app/hook/deliveries/*/attempts", Fault.error(502))
    client = make_github_client(retry=RetryPolicy(attempts=2, backoff=0.01))
    client.redeliver(sent.id)
    wait_until(lambda: len(fake_github.hook_deliveries("g-1")) == 2, what="the redelivery")
    assert [r.status for r in fake_github.calls("POST", "/app/hook/deliveries/*/attempts")] == [
        502,
        202,
    ]
    with pytest.raises(GitHubError, match="404"):
        client.redeliver(99999)


def test_a_token_cannot_read_the_apps_delivery_log(fake_github, make_github_client):
    fake_github.add_pat("ghp_x", "someone")
    client = GitHubClient(base_url=fake_github.base_url, token="ghp_x")
    with pytest.raises(GitHubError, match="App's credentials"):
        client.hook_deliveries(datetime.now(UTC))
    assert fake_github.calls("GET", "/app/hook/deliveries") == []


# --- the fake's rate limit per installation; REVIEW_NOTES_RETRY_BACKOFF_MAX -----------


def test_the_fakes_primary_rate_limit_is_counted_per_installation(http, fake_github, app_key):
    """GitHub counts an installation token's primary rate limit per installation (each
    has its own 5,000+/h). The fake keyed its count by the caller's login, and every
    installation token has the same login (`<slug>[bot]`): one installation spending its
    calls made the fake refuse every other installation with 403 "rate limit exceeded",
    so a test of a per-installation pause could not tell a right client from a wrong one."""
    fake_github.add_installation(2002, ["other/repo"])
    fake_github.rate_limit = 3
    app = {"Authorization": f"Bearer {_app_jwt(app_key)}"}
    tokens = {}
    for iid in (DEFAULT_INSTALLATION_ID, 2002):
        url = f"{fake_github.base_url}/app/installations/{iid}/access_tokens"
        minted = http.post(url, headers=app)
        assert minted.status_code == 201, minted.text
        tokens[iid] = {"Authorization": f"token {minted.json()['token']}"}
    repo = f"{fake_github.base_url}/repos/{DEFAULT_REPO}"
    statuses = [
        http.get(repo, headers=tokens[DEFAULT_INSTALLATION_ID]).status_code for _ in range(4)
    ]
    assert statuses == [200, 200, 200, 403]  # installation A spent its calls
    other = http.get(f"{fake_github.base_url}/repos/other/repo", headers=tokens[2002])
    assert other.status_code == 200, other.text  # B has spent none of its own
    assert other.headers["x-ratelimit-remaining"] == "2"


def test_backoff_max_caps_each_5xx_wait_as_it_doubles(fake_github, make_github_client):
    # REVIEW_NOTES_RETRY_BACKOFF_MAX: steps 2, 4, 8 s (jittered to half..all) uncapped;
    # capped at 3 s, the third wait is at most 3 s where uncapped it is 4 s or more
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", *[Fault.error(502)] * 3)
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, backoff=2.0, backoff_max=3.0, max_wait=300.0),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert client.list_files(PR) == ["a.py"]
    waits = [s for s in t.slept if s > 0]
    assert len(waits) == 3 and all(w <= 3.0 for w in waits), waits


# --- rate limits, lost creates, our comments told from others', redirects, Retry-After ---


@contextmanager
def _two_calls_meeting_one_limit(
    fake: FakeGitHub, make_client, manual_time, limited: Fault
) -> Iterator[tuple]:
    """PRs 7 and 8 listed at once and both answered `limited` while in flight: the client
    and the two calls, both waiting out the limit."""
    fake.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_client(clock=manual_time.clock, sleep=manual_time.sleep)
    client.bot_login()  # the App's call, and the token, before the two workers race
    client.list_files(PR)
    fake.inject("GET", "/repos/*/files", limited, limited)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(client.list_files, PR)
        second = pool.submit(client.list_files, PR8)
        wait_until(lambda: manual_time.sleepers == 2, 10, "both calls waiting")
        yield client, first, second


# kills: bot/github_pacing.py:CallCounter.record_pause every rate limit answer counted as a pause
#        begun
def test_two_calls_in_flight_meeting_one_rate_limit_count_one_pause(
    fake_github, make_github_client, manual_time
):
    # The pauses metric counts pauses begun: two requests answered with the same
    # limit (both in flight when GitHub limited the installation) are one pause.
    limited = Fault(
        status=429,
        body={"message": "You have exceeded a secondary rate limit."},
        headers={"Retry-After": "3"},
        delay=1.0,  # both in flight when the first answer comes
    )
    with _two_calls_meeting_one_limit(fake_github, make_github_client, manual_time, limited) as (
        client,
        first,
        second,
    ):
        assert client.calls.pauses == 1
        manual_time.advance(3)
        assert (first.result(), second.result()) == (["a.py"], ["b.py"])
    assert client.calls.pauses == 1


# kills: bot/github_pacing.py:CallCounter.record_pause a later, shorter pause shortens the one under
#        way
def test_another_installations_short_pause_does_not_hide_a_long_one(
    fake_github, make_github_client
):
    # /healthz's github_paused_for (and the paused gauge) is the time left of the pause
    # under way: installation 1001's hour, not installation 2002's three seconds
    fake_github.add_installation(2002, ["acme/other"])
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull("acme/other", 1, files=["c.py"])
    t = StepClock()
    client = make_github_client(clock=t.clock, sleep=t.sleep)
    fake_github.inject("GET", "/repos/vllm-project/*", Fault.too_many_requests(retry_after=3600))
    with pytest.raises(GitHubError, match="asked to wait 3600s"):
        client.list_files(PR)
    fake_github.inject("GET", "/repos/acme/*", Fault.too_many_requests(retry_after=3))
    assert client.list_files(PRRef("acme/other", 1, 2002)) == ["c.py"]
    assert 3596 <= client.calls.paused_for() <= 3600


# kills: bot/github_errors.py:rate_limited a 429 not taken for a rate limit unless its text says so
def test_a_429_whatever_its_message_waits_like_a_secondary_limit(fake_github, make_github_client):
    # 429 Too Many Requests is a rate limit, with or without GitHub's usual wording
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault(status=429, body={"message": "Slow down"}))
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= client.policy.secondary_wait


# kills: bot/github_errors.py:secondary_limit x-ratelimit-remaining 0 without a reset taken for a
#        primary limit
def test_a_rate_limit_with_no_reset_to_wait_for_backs_off_like_a_secondary_one():
    # the fake always sends x-ratelimit-reset; a proxy may drop it: with no time named,
    # the wait is the secondary one, not a KeyError on the missing reset
    retry = Retrier(RetryPolicy())
    limited = GithubException(
        403,
        {"message": "API rate limit exceeded for installation."},
        {"x-ratelimit-remaining": "0"},
    )
    assert retry.asked_wait(limited) == retry.policy.secondary_wait


# kills: bot/github_errors.py:conversation_locked a lock told by its words alone not taken for a
#        lock
# kills: bot/github_errors.py:conversation_locked a lock told by its docs link alone not taken for a
#        lock
@pytest.mark.parametrize(
    "body",
    [
        {"message": "Unable to create comment because issue is locked."},
        {
            "message": "Forbidden",
            "documentation_url": "https://docs.github.com/communities/moderating-comments-and"
            "-conversations/locking-conversations",
        },
    ],
    ids=["words", "link"],
)
def test_a_lock_is_told_by_githubs_words_or_by_its_link(fake_github, make_github_client, body):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault(status=403, body=body))
    with pytest.raises(ConversationLocked) as caught:
        client.create_comment(PR, "a reply")
    assert not caught.value.transient
    assert len(fake_github.calls("POST", "/repos/*/issues/7/comments")) == 1


# kills: bot/github_errors.py:rate_limit_answer a 422 "submitted too quickly" neither pauses nor
#        backs off
def test_comments_submitted_too_quickly_again_and_again_back_off_exponentially(
    fake_github, make_github_client
):
    too_quickly = Fault(
        status=422,
        body={
            "message": "Validation Failed",
            "errors": [{"resource": "IssueComment", "message": "was submitted too quickly"}],
        },
    )
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.inject("POST", "/repos/*/comments", *[too_quickly] * 3)
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, secondary_wait=60.0, max_wait=3600.0, sleep_max=3600),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert client.create_comment(PR, "hello") == fake_github.comments(DEFAULT_REPO, 7)[0].id
    assert [s for s in t.slept if s > 0] == [60, 120, 240]


# kills: bot/github_client.py:GitHubClient.upsert_sticky.op the oldest deleted before its edit: a
#        new comment, not the copy
def test_when_the_oldest_notes_comment_is_deleted_before_its_edit_the_next_is_edited(
    fake_github, make_github_client, monkeypatch
):
    # two of ours, and a maintainer deletes the oldest between the list and the edit:
    # the other one is edited, as if the list had come a moment later; no third comment
    from tests import fake_github as fg

    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    login = client.bot_login()
    oldest = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True).comment_id
    copy = fake_github.add_comment(DEFAULT_REPO, 7, _sticky("v0"), login=login, bot=True)
    real_edit = fake_github._edit_comment

    def deleted_meanwhile(who, params, query, body):
        if int(params["cid"]) != oldest:
            return real_edit(who, params, query, body)
        del fake_github._comments[oldest]  # the human's DELETE came first
        raise fg._HTTPError(404, "Not Found")

    monkeypatch.setattr(fake_github, "_edit_comment", deleted_meanwhile)
    result = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True)
    assert result == StickyResult(Outcome.UPDATED, copy.id)
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [
        (copy.id, _sticky("v2"))
    ]


# kills: bot/github_client.py:GitHubClient._find an old comment of ours with the same text taken for
#        the new one
def test_an_unclear_create_does_not_take_an_old_reply_with_the_same_text_for_it(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    old = client.create_comment(PR, "Done.")
    with fake_github._lock:
        fake_github._comments[old].created_at -= 3600  # the same reply, an hour ago
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502))  # not done
    new = client.create_comment(PR, "Done.")
    assert new != old
    assert [c.id for c in fake_github.comments(DEFAULT_REPO, 7)] == [old, new]


# kills: bot/github_client.py:GitHubClient._create.attempt a rate limit after an unclear create
#        forgets to look first
def test_a_create_lost_then_rate_limited_is_looked_for_before_posting_again(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.bot_login()
    fake_github.inject(
        "POST",
        "/repos/*/issues/7/comments",
        Fault.error(502, apply=True),  # done, but the answer was lost
        Fault.too_many_requests(retry_after=0),  # the next try is refused unsent
    )
    fake_github.lag_next_comment_list(lambda page: [c for c in page if c["body"] != "hi"])
    made = client.create_comment(PR, "hi")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hi")]


# A create GitHub took, its answer lost, while the comment list lags behind it (GitHub's
# may, for a second or more): the look found nothing and the comment was posted again, a
# reply shown twice (everyone watching the PR notified twice). The list is read again
# after `lost_create_wait` before posting again.
def test_a_create_lost_while_the_list_lags_is_looked_for_again_after_a_wait(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    slept: list[float] = []
    policy = dataclasses.replace(FAST_RETRY, lost_create_wait=3.0)
    client = make_github_client(retry=policy, sleep=slept.append)
    client.bot_login()
    fake_github.lag_comment_lists(reads=1)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502, apply=True))
    made = client.create_comment(PR, "hi")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hi")]
    assert slept[-1] == 3.0 and len(fake_github.calls("POST", "/repos/*/issues/7/comments")) == 1
    assert len(fake_github.calls("GET", "/repos/*/issues/7/comments")) == 2


# A create GitHub refused outright (its token expired: 401; or it lacked the permission,
# 403) runs again with a new token. That run looked for the comment first and, missing,
# waited `lost_create_wait` (5 s) for a lagging list: a wait meant for a create whose
# answer was lost. A refusal is an answer, nothing was posted: no look, no wait. One that
# followed a lost answer still looks (`test_a_token_refused_after_an_unclear_create_...`).
@pytest.mark.parametrize(
    "refusal",
    [Fault.bad_credentials(), Fault.error(403, "Resource not accessible by integration")],
    ids=["401", "403"],
)
def test_a_create_refused_runs_again_without_looking_for_it_first(
    fake_github, make_github_client, refusal
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    slept: list[float] = []
    policy = dataclasses.replace(FAST_RETRY, lost_create_wait=3.0)
    client = make_github_client(retry=policy, sleep=slept.append)
    client.bot_login()
    fake_github.inject("POST", "/repos/*/issues/7/comments", refusal)
    made = client.create_comment(PR, "hi")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hi")]
    posts = [r.status for r in fake_github.calls("POST", "/repos/*/issues/7/comments")]
    assert posts == [refusal.status, 201]
    assert fake_github.calls("GET", "/repos/*/issues/7/comments") == [] and slept == []


@pytest.mark.parametrize(("wait", "posts"), [(0.0, 2), (3.0, 2)], ids=["no-wait", "lag-outlasts"])
def test_a_create_lost_is_posted_again_when_the_list_still_lacks_it(
    fake_github, make_github_client, wait, posts
):
    # no second look (0), or a list lagging past it (three reads): posted again, as before
    fake_github.add_pull(DEFAULT_REPO, 7)
    policy = dataclasses.replace(FAST_RETRY, lost_create_wait=wait)
    client = make_github_client(retry=policy, sleep=lambda s: None)
    client.bot_login()
    fake_github.lag_comment_lists(reads=3)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502, apply=True))
    client.create_comment(PR, "hi")
    assert len(fake_github.comments(DEFAULT_REPO, 7)) == posts
    lists = len(fake_github.calls("GET", "/repos/*/issues/7/comments"))
    assert lists == (2 if wait else 1)


def test_a_create_lost_is_not_posted_again_once_the_client_closes_in_the_wait(
    fake_github, make_github_client
):
    # a stopping server closes the client while a worker waits to look again: the
    # delivery runs again at the next start, where its look finds the comment
    fake_github.add_pull(DEFAULT_REPO, 7)
    made: list[GitHubClient] = []
    policy = dataclasses.replace(FAST_RETRY, lost_create_wait=3.0)

    def sleep(seconds: float) -> None:
        if seconds == 3.0:  # the wait to look again, not the back-off before the try
            made[0].close()

    made.append(make_github_client(retry=policy, sleep=sleep))
    made[0].bot_login()
    fake_github.lag_comment_lists(reads=1)
    fake_github.inject("POST", "/repos/*/issues/7/comments", Fault.error(502, apply=True))
    with pytest.raises(ClientClosed):
        made[0].create_comment(PR, "hi")
    assert len(fake_github.calls("POST", "/repos/*/issues/7/comments")) == 1
    assert len(fake_github.calls("GET", "/repos/*/issues/7/comments")) == 1


def test_only_the_later_copies_of_a_reply_of_ours_are_deleted(fake_github, make_github_client):
    # a reply posted again while the list lagged (bot.reply_copies): all but the oldest
    # of ours ending with its key go; never a person's paste of it, nor a reply of ours
    # quoting the key mid-text, nor our notes comment; a copy gone already (404) is done
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    key = reply_key("d-1", 0)
    reply = f"{REPLY_MARKER}\nIn reply to `/notes help`:\n{key}"
    first = client.create_comment(PR, reply)
    pasted = fake_github.add_comment(DEFAULT_REPO, 7, reply, login="alice")
    quoting = client.create_comment(PR, f"{REPLY_MARKER}\n`{key}`\n{reply_key('d-2', 0)}")
    notes = client.upsert_sticky(PR, f"{MARKER}\n{key}", MARKER, create=True).comment_id
    copies = [client.create_comment(PR, reply) for _ in range(2)]
    gone = Fault.landed_after(lambda: fake_github.delete_comment(copies[1]))  # a person's
    fake_github.inject("DELETE", f"/repos/*/issues/comments/{copies[1]}", gone)
    fake_github.clear_requests()
    assert client.delete_reply_copies(PR, key) == (first, copies)
    left = [c.id for c in fake_github.comments(DEFAULT_REPO, 7)]
    assert left == [first, pasted.id, quoting, notes]
    assert [r.status for r in fake_github.calls("DELETE")] == [204, 404]
    assert client.delete_reply_copies(PR, reply_key("d-3", 0)) == (None, [])


# kills: bot/github_errors.py:may_have_applied a 500 (exactly) not taken for a write GitHub may
#        have done, so the retry posted the comment twice
# kills: bot/github_errors.py:may_have_applied a refusal GitHub sent before doing anything (429)
#        taken for an unclear write, costing a look at the comment list before the retry
@pytest.mark.parametrize(
    ("fault", "looks"),
    [(Fault.error(500, apply=True), 1), (Fault.too_many_requests(retry_after=0), 0)],
    ids=["500-after-the-write", "429-unsent"],
)
def test_a_create_is_looked_for_after_a_5xx_and_only_then(
    fake_github, make_github_client, fault, looks
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.bot_login()
    fake_github.inject("POST", "/repos/*/issues/7/comments", fault)
    made = client.create_comment(PR, "hi")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hi")]
    assert len(fake_github.calls("GET", "/repos/*/issues/7/comments")) == looks


# kills: bot/github_client.py:GitHubClient.is_pull.op a deleted issue (410) fails the call instead
#        of meaning none
def test_a_deleted_issue_is_neither_a_pr_nor_an_issue(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    deleted = Fault(status=410, body={"message": "This issue was deleted"})
    fake_github.inject("GET", "/repos/*/issues/7", deleted)
    client = make_github_client()
    assert client.is_pull(PR) is None
    assert client.is_pull(PR) is True  # the fault was for one call: the PR is there


# kills: bot/github_client.py:GitHubClient.permission.op a custom role's name returned instead of
#        its base permission
def test_a_custom_role_gives_its_base_permission(fake_github, make_github_client):
    fake_github.set_permission(DEFAULT_REPO, "auditor", "write")
    custom = Fault(
        status=200,
        body={"permission": "write", "role_name": "security-auditor", "user": {"login": "auditor"}},
    )
    fake_github.inject("GET", "/repos/*/collaborators/auditor/permission", custom)
    assert make_github_client().permission(PR, "auditor") == "write"


# kills: bot/github_client.py:GitHubClient._is_ours an App given by its client ID loses its comment
#        when renamed
def test_an_app_given_by_its_client_id_still_edits_its_comment_after_a_rename(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client(app_id=fake_github.client_id)  # GitHub's advice: the client ID
    first = client.upsert_sticky(PR, f"{MARKER}\nnotes", MARKER, create=True)
    fake_github.rename_app("vllm-review-notes")  # the running client cached the old login
    again = client.upsert_sticky(PR, f"{MARKER}\nmore notes", MARKER, create=True)
    assert again == StickyResult(Outcome.UPDATED, first.comment_id)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [f"{MARKER}\nmore notes"]


# kills: bot/github_client.py:GitHubClient._is_ours a person's comment made through the App taken
#        for the bot's
def test_a_persons_comment_made_through_the_app_is_never_taken_for_ours(
    fake_github, make_github_client
):
    # GitHub names the App on a comment a person wrote with the App's user token too:
    # only a Bot account's comment naming the App is ours (the App renamed)
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    alice = fake_github.add_comment(DEFAULT_REPO, 7, _sticky("alice's copy"), login="alice")

    def via_the_app(page):
        app = next(c["performed_via_github_app"] for c in page if c["id"] == ours)
        for c in page:
            if c["id"] == alice.id:
                c["performed_via_github_app"] = app
        return page

    fake_github.lag_next_comment_list(via_the_app)
    fake_github.clear_requests()
    assert client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True) == StickyResult(
        Outcome.UPDATED, ours
    )
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [
        _sticky("v2"),
        _sticky("alice's copy"),
    ]
    assert fake_github.calls("DELETE") == []


# kills: bot/github_client.py:GitHubClient.upsert_sticky.sticky_of_ours a notes comment with a blank
#        line before its marker not ours
def test_a_notes_comment_edited_to_open_with_a_blank_line_is_still_the_one_updated(
    fake_github, make_github_client
):
    client, made = _notes_comment_posted(fake_github, make_github_client)
    fake_github.set_body(made, "\r\n" + _sticky("v1"))  # a maintainer's edit: a blank line
    again = client.upsert_sticky(PR, _sticky("v2"), MARKER, create=True)
    assert again == StickyResult(Outcome.UPDATED, made)
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [_sticky("v2")]


# kills: bot/github_client.py:_check_answer an answer that is not the issue asked for taken for an
#        issue
def test_an_answer_that_is_not_the_issue_asked_for_is_an_error_not_an_issue(
    fake_github, make_github_client
):
    # a GITHUB_API_URL that is the web site, not the API, answers any path with a page
    fake_github.add_pull(DEFAULT_REPO, 7)
    page = Fault(status=200, body={"data": "<!DOCTYPE html><html>Sign in</html>"})
    fake_github.inject("GET", "/repos/*/issues/7", page)
    with pytest.raises(GitHubError, match="is not that pull request or issue") as caught:
        make_github_client().is_pull(PR)
    assert "GITHUB_API_URL" in str(caught.value)


# kills: bot/github_pacing.py:Pacer.met_secondary_limit one secondary limit met by two calls in
#        flight counted twice
def test_one_secondary_limit_met_by_two_calls_in_flight_is_not_backed_off_twice(
    fake_github, make_github_client, manual_time
):
    # the same limit answered to two requests sent together is one limit met, not two in
    # a row: neither waits the doubled back-off
    limited = Fault(
        status=403,
        body={"message": "You have exceeded a secondary rate limit."},
        delay=1.0,  # both in flight when the first answer comes
    )
    with _two_calls_meeting_one_limit(fake_github, make_github_client, manual_time, limited) as (
        client,
        first,
        second,
    ):
        assert manual_time.slept == [client.policy.secondary_wait] * 2
        manual_time.advance(client.policy.secondary_wait)
        assert (first.result(), second.result()) == (["a.py"], ["b.py"])


# kills: bot/github_sessions.py:GitHubSessions._installation_of a lookup answered across an
#        installation event is cached
def test_a_repositorys_installation_looked_up_across_an_event_is_not_cached(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    ref = PRRef(DEFAULT_REPO, 7)  # no installation in the delivery: looked up
    fake_github.inject("GET", "/repos/*/installation", Fault.slow(1.0))
    answers: list[object] = []

    def lookup() -> None:
        try:  # installation 1001 was found, and is gone by the mint: either is fine here
            answers.append(client.is_pull(ref))
        except GitHubError as err:
            answers.append(err)

    worker = threading.Thread(target=lookup)
    worker.start()
    wait_until(lambda: fake_github.calls("GET", "/repos/*/installation"), 10, "the lookup request")
    # meanwhile the repository moves to another installation
    fake_github.uninstall(DEFAULT_INSTALLATION_ID)
    fake_github.add_installation(2002, [DEFAULT_REPO])
    client.forget_installation(
        InstallationChange(
            DEFAULT_INSTALLATION_ID, "installation_repositories", "removed", "octo", (DEFAULT_REPO,)
        )
    )
    worker.join(10)
    assert not worker.is_alive() and answers
    assert client.is_pull(ref) is True  # looked up afresh: installation 2002
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2
    assert fake_github.calls("POST", "/app/installations/2002/access_tokens")


# kills: bot/github_client.py:_same_text.norm a body GitHub kept without its last newline edited
#        again
def test_a_notes_comment_github_keeps_without_its_trailing_newline_is_unchanged(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    body = _sticky("notes\n")
    made = client.upsert_sticky(PR, body, MARKER, create=True).comment_id
    fake_github.set_body(made, body.rstrip())  # GitHub trims the end of a comment's body
    fake_github.clear_requests()
    assert client.upsert_sticky(PR, body, MARKER, create=True) == StickyResult(
        Outcome.UNCHANGED, made
    )
    assert fake_github.calls("PATCH") == []


# kills: bot/github_client.py:GitHubClient.upsert_sticky.op any notes comment taken to lag when the
#        one last written is gone
def test_another_notes_comment_already_showing_the_text_is_not_edited_again(
    fake_github, make_github_client
):
    # the comment last written (and known to differ) was deleted; the one of ours the
    # list shows is not that comment, so its text is taken at its word: no edit
    client, kept = _notes_comment_posted(fake_github, make_github_client)
    fake_github.clear_requests()
    result = client.upsert_sticky(
        PR, _sticky("v1"), MARKER, create=True, known_id=kept + 1000, known_differs=True
    )
    assert result == StickyResult(Outcome.UNCHANGED, kept)
    assert fake_github.calls("PATCH") == []


# kills: bot/github_client.py:GitHubClient.__init__ an App id without its key blamed on the key's
#        format
@pytest.mark.parametrize("key", [None, ""])
def test_an_app_id_without_a_private_key_is_refused_as_a_missing_setting(key):
    with pytest.raises(ValueError, match="needs app_id and private_key") as caught:
        GitHubClient(app_id=DEFAULT_APP_ID, private_key=key)
    assert not isinstance(caught.value, github_sessions.UnusableKeyError)


# kills: bot/github_client.py:GitHubClient.hook_deliveries a shutdown does not stop the delivery
#        log's paging
def test_reading_the_delivery_log_stops_after_the_page_under_way_on_shutdown(
    fake_github, make_github_client
):
    for n in range(130):
        fake_github.send_webhook("pull_request", {"action": "opened", "number": n})
    client = make_github_client()
    since = datetime.now(UTC) - timedelta(hours=1)
    listed = client.hook_deliveries(since, stopping=lambda: True)
    assert len(listed) == 100  # the first page, not the second
    assert len(fake_github.calls("GET", "/app/hook/deliveries")) == 1


# kills: bot/github_pacing.py:Pacer.pause a pause lengthened by less than PAUSE_NEWS counted as news
def test_a_rate_limit_answer_a_moment_later_is_the_same_pause(
    fake_github, make_github_client, manual_time, caplog
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    client.bot_login()
    client.list_files(PR)
    body = {"message": "You have exceeded a secondary rate limit."}
    first = Fault(status=429, body=body, headers={"Retry-After": "3"}, delay=0.5)
    second = Fault(status=429, body=body, headers={"Retry-After": "3"}, delay=2.0)
    fake_github.inject("GET", "/repos/*/pulls/7/files", first)
    fake_github.inject("GET", "/repos/*/pulls/8/files", second)
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(client.list_files, PR)
        b = pool.submit(client.list_files, PR8)
        wait_until(lambda: manual_time.sleepers == 1, 10, "the first answer's wait")
        manual_time.advance(0.5)  # the second answer ends the pause half a second later
        wait_until(lambda: manual_time.sleepers == 2, 10, "the second answer's wait")
        assert client.calls.pauses == 1
        manual_time.advance(3)
        assert (a.result(), b.result()) == (["a.py"], ["b.py"])
    assert sum("GitHub rate limited" in r.message for r in caplog.records) == 1


# kills: bot/github_client.py:GitHubClient.forget_installation a repository moved to the
#        installation of the event kept cached
def test_a_repository_added_to_another_installation_is_looked_up_afresh(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    ref = PRRef(DEFAULT_REPO, 7)  # no installation in the delivery: looked up, then cached
    assert client.is_pull(ref) is True
    with fake_github._lock:  # the owner moves the repository to installation 2002
        fake_github._installations[DEFAULT_INSTALLATION_ID].repos.discard(DEFAULT_REPO)
    fake_github.add_installation(2002, [DEFAULT_REPO])
    added = InstallationChange(2002, "installation_repositories", "added", "octo", (DEFAULT_REPO,))
    client.forget_installation(added)  # the event names 2002, the cache says 1001
    assert client.is_pull(ref) is True
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 2


# kills: bot/github_client.py:GitHubClient._listed_late a person's comment asked for by a stale id
#        taken for ours
def test_a_known_id_naming_a_persons_comment_never_gets_it_edited(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    client = make_github_client()
    client.bot_login()
    quoted = fake_github.add_comment(DEFAULT_REPO, 7, _sticky("quoted"), login="alice")
    result = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True, known_id=quoted.id)
    assert result.outcome is Outcome.CREATED and result.comment_id != quoted.id
    assert [c.body for c in fake_github.comments(DEFAULT_REPO, 7)] == [
        _sticky("quoted"),
        _sticky("v1"),
    ]
    assert fake_github.calls("PATCH") == []


# kills: bot/github_sessions.py:MOVES a 308 (moved for good) taken for the answer
def test_a_write_answered_308_is_sent_again_at_the_location(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    there = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/issues/7/comments"
    moved = Fault(status=308, body={"message": "Moved Permanently"}, headers={"Location": there})
    fake_github.inject("POST", "/repos/*/issues/7/comments", moved)
    made = make_github_client().create_comment(PR, "hello")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hello")]
    assert [r.status for r in fake_github.calls("POST", "/repos/*")] == [308, 201]


# bot/github_sessions.py:_follow_moves.following, the Location check dropped: a 307 without a
# Location was taken for the answer, a comment "created" with no id, none posted
def test_a_write_moved_without_a_location_fails_rather_than_passing_for_done(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    moved = Fault(status=307, body={"message": "Temporary Redirect"}, headers={})
    fake_github.inject("POST", "/repos/*/issues/7/comments", moved)
    with pytest.raises(GitHubError) as caught:
        make_github_client().create_comment(PR, "hello")
    assert caught.value.status == 307 and "no Location" in str(caught.value)
    assert [r.status for r in fake_github.calls("POST", "/repos/*")] == [307]
    assert fake_github.comments(DEFAULT_REPO, 7) == []


# A proxy in front of GitHub Enterprise answers with a redirect to its login page. PyGithub
# follows none but a 301 and reads any status under 400 as the answer: a 302 or 303 became
# a PR "not that pull request", a file list of one file named None, a comment "created"
# with no id, nothing posted; a 307 was followed to the login page's path on the API's
# host (PyGithub keeps only a Location's path), its 404 taken for GitHub's. GitHub's API
# redirects within itself alone: any other redirect fails the call at once, naming
# GITHUB_API_URL and where it led (its query left out: a login page's may carry a ticket)
LOGIN = "https://sso.example.com/login?return_to=https%3A%2F%2Fghe.example.com%2F"


@pytest.mark.parametrize(
    ("status", "location"),
    [
        (302, LOGIN),
        (303, LOGIN),
        (307, LOGIN),
        (308, LOGIN),
        (301, LOGIN),
        (302, "https://127.0.0.1:{port}/login"),  # another scheme: not the API's
        (303, "{base}/repos/vllm-project/vllm/pulls/7"),  # GitHub's API sends no 303
    ],
)
def test_a_redirect_out_of_the_api_fails_at_once_naming_github_api_url(
    fake_github, make_github_client, status, location
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    there = location.format(port=fake_github.port, base=fake_github.base_url)
    redirect = Fault(
        status=status,
        raw=b"<html><body>You are being redirected.</body></html>",
        headers={"Location": there},
    )
    calls = [
        ("GET", "/repos/*/pulls/7", lambda: client.get_pull(PR)),
        ("GET", "/repos/*/pulls/7/files", lambda: client.list_files(PR)),
        ("POST", "/repos/*/issues/7/comments", lambda: client.create_comment(PR, "a reply")),
    ]
    for method, path, call in calls:
        fake_github.clear_requests()
        fake_github.inject(method, path, redirect)
        with pytest.raises(GitHubError) as failed:
            call()
        said = str(failed.value)
        assert f": {status} a redirect" in said and not failed.value.transient, (path, said)
        assert failed.value.status is None  # not GitHub's answer: no caller reads it as one
        assert "is GITHUB_API_URL the API's address" in said, said
        assert there.partition("?")[0] in said and "return_to" not in said, said
        asked = fake_github.calls(path="/repos/*")  # the PR's calls, not the token's mint
        assert [(r.method, r.status) for r in asked] == [(method, status)]
    assert fake_github.comments(DEFAULT_REPO, 7) == []


# GitHub's best practices: "A 302 or 307 status code indicates temporary redirection. You
# should repeat your request with the URL specified by the location header" (github_facts
# 3.4); within the API a 302 is followed as a 307 is, the method kept
def test_a_302_within_the_api_is_followed_as_a_temporary_redirect(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    for method, path in [("GET", "pulls/7/files"), ("POST", "issues/7/comments")]:
        there = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/{path}"
        moved = Fault(status=302, body={"message": "Found"}, headers={"Location": there})
        fake_github.inject(method, f"/repos/*/{path}", moved)
    assert list(client.list_files(PR)) == ["a.py"]
    made = client.create_comment(PR, "hello")
    assert [(c.id, c.body) for c in fake_github.comments(DEFAULT_REPO, 7)] == [(made, "hello")]
    assert [(r.method, r.status) for r in fake_github.calls(path="/repos/*")] == [
        ("GET", 302),
        ("GET", 200),
        ("POST", 302),
        ("POST", 201),
    ]


# a proxy's move within the API may carry a ticket in its query: the log line names the
# path it moved to, never the query
def test_a_move_within_the_api_is_logged_without_its_query(fake_github, make_github_client, caplog):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    there = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/pulls/7/files?ticket=s3cr3t"
    moved = Fault(status=307, body={"message": "Moved"}, headers={"Location": there})
    fake_github.inject("GET", "/repos/*/pulls/7/files", moved)
    with caplog.at_level(logging.INFO, logger="bot.github_sessions"):
        assert list(client.list_files(PR)) == ["a.py"]
    lines = [r.getMessage() for r in caplog.records if "moved to" in r.getMessage()]
    assert lines == [
        f"GitHub: GET /repos/{DEFAULT_REPO}/pulls/7/files moved to "
        f"/repos/{DEFAULT_REPO}/pulls/7/files"
    ], lines


@pytest.mark.parametrize(
    ("location", "inside"),
    [
        ("https://ghe.example.com/api/v3/repositories/1/pulls/7", True),
        ("https://GHE.example.com:443/api/v3/x?per_page=100", True),
        ("/api/v3/repositories/1", True),  # a path alone: the API's host
        ("https://ghe.example.com/api/v3", True),
        ("https://ghe.example.com/login?return_to=%2Fapi%2Fv3", False),
        ("https://ghe.example.com/api/v30/x", False),
        ("http://ghe.example.com/api/v3/x", False),
        ("https://ghe.example.com:8443/api/v3/x", False),
        ("https://sso.example.com/api/v3/x", False),
        ("https://ghe.example.com:84a3/api/v3/x", False),  # no port: no place to send it
        ("https://ghe.example.com@sso.example.com/api/v3/x", False),  # a user, then the host
        ("https://ghe.example.com./api/v3/x", False),  # another name, though the same host
        ("https://ghe.example.com/api/v3/repos/o/.github/pulls/7", True),  # a dot in a name
        ("https://ghe.example.com/api/v3/repos/o/a..b/pulls/7", True),
        # under the base as written, out of it as sent: the HTTP client resolves the
        # dots (to /login, the token with it), a server the percent-encoded ones
        ("https://ghe.example.com/api/v3/../../login", False),
        ("https://ghe.example.com/api/v3/./../login", False),
        ("https://ghe.example.com/api/v3/%2e%2E/%2E%2e/login", False),
        ("https://ghe.example.com/api/v3/..%2F..%2Flogin", False),
        ("https://ghe.example.com/api/v3/..%5C..%5Clogin", False),  # a backslash, as some read it
    ],
)
def test_a_redirect_is_the_api_s_only_under_its_base(location, inside):
    from bot.github_sessions import within_api

    base = "https://ghe.example.com/api/v3"
    assert within_api(base, f"{base}/repos/o/r/pulls/7", location) == (
        urljoin(base + "/", location) if inside else None
    )


# kills: bot/github_sessions.py:MAX_MOVES a fourth move followed (MAX_MOVES is three)
def test_a_write_moved_a_fourth_time_fails(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7)
    hops = [(DEFAULT_REPO, "b/vllm"), ("b/vllm", "c/vllm"), ("c/vllm", "d/vllm"), ("d/vllm", "e/v")]
    for old, new in hops:
        fake_github.transfer(old, new, to="name")  # a chain of four moves
    with pytest.raises(GitHubError):
        make_github_client().create_comment(PR, "a reply")
    assert [p.status for p in fake_github.calls("POST", "/repos/*/comments")] == [307] * 4
    assert fake_github.comments("e/v", 7) == []


# kills: bot/github_sessions.py:GitHubSessions.forget_installation an installation event forgot only
# the repositories it names, not the other lookups of its installation
def test_an_installation_event_forgets_every_lookup_of_its_installation(
    fake_github, make_github_client
):
    from bot.installations import InstallationChange

    fake_github.add_installation(2002, ["o/one", "o/two"])
    fake_github.add_pull("o/one", 1)
    fake_github.add_pull("o/two", 2)
    client = make_github_client()
    assert client.is_pull(PRRef("o/one", 1)) and client.is_pull(PRRef("o/two", 2))
    accepted = InstallationChange(2002, "installation", "new_permissions_accepted", "o", ())
    client.forget_installation(accepted)
    assert client.is_pull(PRRef("o/two", 2))
    assert len(fake_github.calls("GET", "/repos/o/two/installation")) == 2


# kills: bot/github_sessions.py:GitHubSessions._installation_grant a mint refused (404) asked again
#        of the very same installation
def test_a_refused_mint_is_not_repeated_when_the_repository_is_still_in_that_installation(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("POST", "/app/installations/*/access_tokens", Fault.not_found())
    with pytest.raises(GitHubError) as caught:
        make_github_client().list_files(PR)
    assert caught.value.status == 404
    assert len(fake_github.calls("GET", "/repos/*/installation")) == 1  # still 1001
    assert len(fake_github.calls("POST", "/app/installations/*/access_tokens")) == 1


# kills: bot/github_errors.py:retry_after_seconds a negative Retry-After slept as is (time.sleep
#        refuses it)
def test_a_negative_retry_after_is_no_wait(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault.too_many_requests(retry_after=-5))
    assert make_github_client().list_files(PR) == ["a.py"]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [429, 200]


# kills: bot/github_errors.py:retry_after_seconds an HTTP date taken for a number of seconds
#        (float() refuses it) or a date without a zone subtracted from an aware now
@pytest.mark.parametrize(
    "value", ["Wed, 21 Oct 2015 07:28:00 GMT", "Wed, 21 Oct 2015 07:28:00 -0000"]
)
def test_a_retry_after_given_as_a_past_http_date_is_no_wait(fake_github, make_github_client, value):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fault = Fault.too_many_requests(retry_after=None)
    fault.headers["Retry-After"] = value  # RFC 9110 allows a date as well as seconds
    fake_github.inject("GET", "/repos/*/files", fault)
    assert make_github_client().list_files(PR) == ["a.py"]
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [429, 200]


# kills: bot/github_errors.py:retry_after_seconds an HTTP date taken for no wait at all
def test_a_retry_after_given_as_a_future_http_date_is_waited_out(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fault = Fault.too_many_requests(retry_after=None)
    when = datetime.now(UTC) + timedelta(seconds=3)  # a whole second is all a date names
    fault.headers["Retry-After"] = email.utils.format_datetime(when, usegmt=True)
    fake_github.inject("GET", "/repos/*/files", fault)
    assert make_github_client().list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= 1.0  # no retry sooner than the date, less the second it drops


# kills: bot/github_errors.py:retry_after_seconds a Retry-After that is neither seconds nor
#        a date escaped the client as a ValueError instead of being waited out
@pytest.mark.parametrize("value", ["soon", "", "nan", "1e400"])
def test_a_retry_after_that_names_no_time_waits_like_a_secondary_limit(
    fake_github, make_github_client, value
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fault = Fault.too_many_requests(retry_after=None)
    fault.headers["Retry-After"] = value
    fake_github.inject("GET", "/repos/*/files", fault)
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= client.policy.secondary_wait  # as if GitHub had named no time


def test_no_call_starts_after_the_client_is_closed(fake_github, make_github_client):
    # a stopped server's sweep, its call outlasting the stop, must not call GitHub again
    # (not even the retry of that call)
    sent = fake_github.send_webhook("pull_request", {"action": "opened"}, guid="g-1")
    client = make_github_client(retry=RetryPolicy(attempts=3, backoff=0.01))
    fake_github.inject("POST", "/app/hook/deliveries/*/attempts", Fault.error(502))
    closing = threading.Thread(target=client.close)
    real_sleep = client._retry.sleep

    def sleep_then_close(seconds: float) -> None:  # the stop lands during the back-off
        closing.start()
        closing.join(5)
        real_sleep(seconds)

    client._retry.sleep = sleep_then_close
    with pytest.raises(GitHubError, match="closed"):
        client.redeliver(sent.id)
    assert [r.status for r in fake_github.calls("POST", "/app/hook/deliveries/*/attempts")] == [502]
    fake_github.clear_requests()
    with pytest.raises(GitHubError, match="closed"):
        client.hook_deliveries(datetime.now(UTC) - timedelta(hours=1))
    assert fake_github.requests == []


# --- the retry's waits: sleep_max, jitter, secondary streaks, dropped connections ---


# kills: bot/github_retry.py:Retrier.call.stop a rate limit asking exactly sleep_max ended the tries
#        (`>=`)
# kills: bot/github_retry.py:Retrier.call.before_sleep the retry warning numbering the next try one
#        too high
# kills: bot/github_retry.py:Retrier._failure tries used up on such waits told as a wait not taken
def test_a_rate_limit_asking_exactly_sleep_max_is_waited_out_in_the_call(
    fake_github, make_github_client, caplog
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, sleep_max=5.0), clock=t.clock, sleep=t.sleep
    )
    fake_github.inject("GET", "/repos/*/files", Fault.too_many_requests(retry_after=5))
    assert client.list_files(PR) == ["a.py"]  # slept in the call, no put-back
    assert [s for s in t.slept if s > 0] == [5.0]
    # every try answered so: the tries are used up, each wait taken, and the delivery
    # still goes back to the queue for GitHub's 5 s
    fake_github.inject("GET", "/repos/*/files", *[Fault.too_many_requests(retry_after=5)] * 4)
    caplog.clear()
    with pytest.raises(GitHubError, match="gave up after 4 attempts") as limited:
        client.list_files(PR)
    assert (limited.value.transient, limited.value.retry_after) == (True, 5.0)
    tries = [r.getMessage() for r in caplog.records if r.name == "bot.github_retry"]
    assert [m.split("; ")[-1] for m in tries] == [
        "try 2 of 4 in 5.0s",
        "try 3 of 4 in 5.0s",
        "try 4 of 4 in 5.0s",
    ]


# kills (hand mutants): bot/github_retry.py:Retrier.call.wait jitter dropped (`return
#        step`): workers meeting one 5xx retry in step; and jitter reaching down to no wait
#        (`uniform(0.0, 1.0)`): a retry at once
@pytest.mark.parametrize(("bound", "share"), [(min, 0.5), (max, 1.0)], ids=["least", "most"])
def test_each_5xx_back_off_is_jittered_between_half_and_all_of_its_step(
    fake_github, make_github_client, monkeypatch, bound, share
):
    monkeypatch.setattr(github_retry.random, "uniform", lambda a, b: bound(a, b))
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", *[Fault.error(502)] * 3)
    t = StepClock()
    client = make_github_client(
        retry=RetryPolicy(attempts=4, backoff=2.0, backoff_max=30.0),
        clock=t.clock,
        sleep=t.sleep,
    )
    assert client.list_files(PR) == ["a.py"]
    assert [s for s in t.slept if s > 0] == [2.0 * share, 4.0 * share, 8.0 * share]


# kills (a hand mutant): bot/github_retry.py:Retrier.__init__ the secondary streak kept on the
#        Retrier, not per thread: one thread's streak (another identity's) set another's wait
def test_a_secondary_limits_wait_follows_the_streak_its_own_thread_noted():
    retry = Retrier(RetryPolicy(secondary_wait=60.0, max_wait=3600.0))
    limited = GithubException(403, {"message": "You have exceeded a secondary rate limit."}, {})
    retry.note_secondary_streak(1)
    other = threading.Thread(target=retry.note_secondary_streak, args=(3,))
    other.start()
    other.join()
    assert retry.asked_wait(limited) == 60.0
    waits: list[float | None] = []
    other = threading.Thread(target=lambda: waits.append(retry.asked_wait(limited)))
    other.start()
    other.join()
    assert waits == [60.0]  # a thread that noted no streak: the first minute


# kills (a hand mutant): bot/github_retry.py:Retrier.call a transport error left out of the
#        GitHubError at the end of the tries: the caller got requests' ConnectionError
def test_a_connection_dropped_at_every_try_fails_as_a_transient_github_error(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", *[Fault.dropped()] * 4)
    with pytest.raises(GitHubError, match="gave up after 4 attempts") as failed:
        make_github_client().list_files(PR)
    assert (failed.value.transient, failed.value.status) == (True, None)
    assert len(fake_github.calls("GET", "/repos/*/files")) == 4


# --- a rate-limit reset that names no time --------------------------------------------


def _limited(status: int, reset: str) -> Fault:
    """A 403 or 429 limit with x-ratelimit-remaining 0 and the reset `reset`, as sent."""
    fault = Fault.primary_rate_limit() if status == 403 else Fault.too_many_requests(None)
    fault.reset_in = None
    fault.headers.update({"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    return fault


# kills: bot/github_errors.py:until_reset a reset too far off to be dated taken as the wait:
#        dating the pause escaped the client as an OverflowError
# kills: bot/github_sessions.py:GitHubSessions._new_github its Github made without
#        github_http.made_cleaning: a reset that is no number (words, empty, NaN, infinite)
#        escaped the client from PyGithub (ValueError, OverflowError), not waited out
@pytest.mark.parametrize("status", [403, 429])
@pytest.mark.parametrize("reset", ["soon", "", "nan", "1e400", "1e20"])
def test_a_limit_whose_reset_names_no_time_waits_like_a_secondary_limit(
    fake_github, make_github_client, status, reset
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", _limited(status, reset))
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    [gap] = _gaps(fake_github, "GET", "/repos/*/files")
    assert gap >= client.policy.secondary_wait  # as if GitHub had named no reset


# kills: bot/github_errors.py:spent_until_reset a success that spent the last call, its reset
#        too far off to be dated, failed (OverflowError) though GitHub had answered it
@pytest.mark.parametrize("reset", ["soon", "", "nan", "1e400", "1e20"])
def test_a_success_whose_reset_names_no_time_is_taken_without_a_pause(
    fake_github, make_github_client, reset
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    spent = Fault(headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
    fake_github.inject("GET", "/repos/*/files", spent)
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    assert (client.calls.pauses, client.calls.paused_for()) == (0, 0)
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [200]


# --- rate-limit headers: a float zero, no number, one call left -----------------------
# PyGithub reads x-ratelimit-* with int(float(...)): "ints expected but sometimes floats
# returned" (PyGithub PR #2697). A remaining of "0.0" is no call left, as "0" is.


# kills: bot/github_errors.py:rate_limited a 403 whose remaining is "0.0" (no rate limit words)
#        taken for a plain refusal: failed at once, not waited out
# kills: bot/github_errors.py:secondary_limit a primary limit whose remaining is "0.0" taken
#        for a secondary one: called again after a minute, still limited, not at the reset
@pytest.mark.parametrize(
    "limited",
    [
        _limited(403, "0"),
        _limited(429, "0"),
        Fault(status=403, body={"message": "Forbidden"}),
    ],
    ids=["403", "429", "403-no-words"],
)
def test_a_limit_whose_remaining_is_a_float_zero_waits_for_the_reset(
    fake_github, make_github_client, limited
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    reset = int(time.time()) + 3600
    limited.headers.update({"x-ratelimit-remaining": "0.0", "x-ratelimit-reset": str(reset)})
    fake_github.inject("GET", "/repos/*/files", limited)
    client = make_github_client()
    with pytest.raises(GitHubError, match=r"asked to wait 3[56]\d\ds") as caught:
        client.list_files(PR)
    assert caught.value.transient
    assert len(fake_github.calls("GET", "/repos/*/files")) == 1  # not called again meanwhile


# kills: bot/github_errors.py:spent_until_reset a success whose remaining is "0.0" taken for
#        calls left: the next call was sent, for GitHub to refuse
def test_an_answer_whose_remaining_is_a_float_zero_pauses_the_calls(
    fake_github, make_github_client, manual_time
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    spent = Fault(headers={"x-ratelimit-remaining": "0.0"})  # on the real answer and its reset
    fake_github.inject("GET", "/repos/*/pulls/7/files", spent)
    assert client.list_files(PR) == ["a.py"]
    with pytest.raises(GitHubError, match="rate limited for another"):
        client.list_files(PR8)
    assert fake_github.calls("GET", "/repos/*/pulls/8/files") == []  # not sent


# An x-ratelimit-* header that is no number made PyGithub raise (int(float(...)) in
# requestJson) on an answer GitHub gave; github_http takes it off the answer first.


# kills: bot/github_http.py:without_bad_rate_headers a header of RATE_HEADERS left on (each
#        of limit, remaining, reset): PyGithub raised ValueError or OverflowError
@pytest.mark.parametrize(
    "header", ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]
)
@pytest.mark.parametrize("value", ["many", "", "nan", "-inf", "1e400"])
def test_a_success_whose_rate_header_is_no_number_is_taken_without_a_pause(
    fake_github, make_github_client, header, value
):
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault(headers={header: value}))
    client = make_github_client(token="ghp_test")  # the files are its only call
    assert client.list_files(PR) == ["a.py"]
    assert (client.calls.pauses, client.calls.paused_for()) == (0, 0)
    assert [r.status for r in fake_github.calls("GET", "/repos/*/files")] == [200]


# kills: bot/github_http.py:without_bad_rate_headers a header that is a number taken off too:
#        the calls left went unsampled
# kills: bot/github_sessions.py:GitHubSessions._new_github the token's calls kept as an
#        installation's rate limit
def test_a_rate_header_that_is_a_number_is_kept_beside_one_that_is_not(
    fake_github, make_github_client
):
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    bad_limit = Fault(headers={"x-ratelimit-limit": "lots", "x-ratelimit-remaining": "41.0"})
    fake_github.inject("GET", "/repos/*/files", bad_limit)
    client = make_github_client(token="ghp_test")
    assert client.list_files(PR) == ["a.py"]
    assert client.calls.remaining() == {"token": 41}  # a token is its own identity


# kills: bot/github_sessions.py:GitHubSessions.__init__ the GithubIntegration (the JWT calls:
#        the mint) made without github_http.made_cleaning: its answer raised in PyGithub
def test_a_mint_whose_rate_headers_are_no_number_still_gives_a_token(
    fake_github, make_github_client
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    bad = Fault(headers={"x-ratelimit-remaining": "many", "x-ratelimit-reset": "soon"})
    fake_github.inject("POST", "/app/installations/*/access_tokens", bad)
    assert make_github_client().list_files(PR) == ["a.py"]


# kills: bot/github_http.py:made_cleaning PyGithub's own HTTPS class switched in (GitHub is
#        https): a rate header that is no number still raised in PyGithub
def test_an_https_answer_has_its_rate_headers_that_are_no_number_taken_off(
    fake_github, make_github_client, monkeypatch
):
    real = HTTPSRequestsConnectionClass.getresponse

    def over_http(self):
        self.protocol = "http"  # the fake speaks plain http
        return real(self)

    monkeypatch.setattr(HTTPSRequestsConnectionClass, "getresponse", over_http)
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.inject("GET", "/repos/*/files", Fault(headers={"x-ratelimit-remaining": "many"}))
    https = fake_github.base_url.replace("http://", "https://", 1)
    assert make_github_client(token="ghp_test", base_url=https).list_files(PR) == ["a.py"]


# kills: bot/github_http.py:made_cleaning PyGithub's classes not switched back: while they
#        are switched, PyGithub keeps no connection open (a new one, TLS included, per call)
def test_a_threads_calls_go_over_one_kept_open_connection(fake_github, make_github_client):
    fake_github.add_pat("ghp_test", "notes-bot")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client(token="ghp_test")
    for _ in range(3):
        assert client.list_files(PR) == ["a.py"]
    assert len({r.peer for r in fake_github.calls("GET", "/repos/*/files")}) == 1


# kills: bot/github_errors.py:no_calls_left a remaining of one taken for none left: the calls
#        paused until the reset with a call still to make
@pytest.mark.parametrize("remaining", ["1", "1.0"])
def test_an_answer_with_one_call_remaining_does_not_pause_the_calls(
    fake_github, make_github_client, manual_time, remaining
):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.add_pull(DEFAULT_REPO, 8, files=["b.py"])
    client = make_github_client(clock=manual_time.clock, sleep=manual_time.sleep)
    one_left = Fault(headers={"x-ratelimit-remaining": remaining})
    fake_github.inject("GET", "/repos/*/pulls/7/files", one_left)
    assert client.list_files(PR) == ["a.py"]
    assert client.list_files(PR8) == ["b.py"]
    assert client.calls.pauses == 0


# --- a suspended installation ---------------------------------------------------------


def test_a_suspended_installation_fails_the_call_once_with_githubs_words(
    fake_github, make_github_client
):
    # An owner suspends the App: GitHub refuses its tokens, and minting new ones, with
    # 403 "This installation has been suspended". That is no stale token and no missing
    # permission: the call fails at once (not retried, not transient), names the
    # suspension, and mints no token to try again; unsuspended, the same client works.
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    assert client.list_files(PR) == ["a.py"]
    fake_github.suspend(DEFAULT_INSTALLATION_ID)
    fake_github.clear_requests()
    with pytest.raises(GitHubError, match="This installation has been suspended") as refused:
        client.list_files(PR)
    assert refused.value.status == 403 and not refused.value.transient
    assert "lacks the permission" not in str(refused.value)
    assert [r.status for r in fake_github.requests] == [403]
    fake_github.unsuspend(DEFAULT_INSTALLATION_ID)
    assert client.list_files(PR) == ["a.py"]


# --- a call a pause held back: whether a try of it went out ---------------------------


# kills: bot/github_retry.py:Retrier.call a call a pause held back at its first try said sent,
#        or one a pause held back after a try GitHub answered (a 502) said never sent
@pytest.mark.parametrize(("answers", "sent"), [(0, False), (1, True)], ids=["first", "retry"])
def test_a_call_held_back_by_a_pause_says_whether_a_try_of_it_went_out(answers, sent):
    retry = Retrier(RetryPolicy(backoff=0.0), sleep=lambda seconds: None)
    tries = []

    def call():
        tries.append(1)
        if len(tries) <= answers:
            raise GithubException(502, {"message": "Bad Gateway"}, {})
        raise github_pacing.Paused("paused", retry_after=60.0)

    with pytest.raises(GitHubError) as failed:
        retry.call("react to comment 1", call)
    assert (failed.value.sent, failed.value.retry_after, len(tries)) == (sent, 60.0, answers + 1)


# --- deleting or writing back the notes comment only while it is ours -----------------


THEIRS = "Moved to the description."


def _deleted(client, ref, comment_id):
    return client.delete_sticky(ref, comment_id, MARKER)


def _their_text_back(client, ref, comment_id):
    return client.restore_text(ref, comment_id, THEIRS, MARKER).outcome.wrote


# kills: bot/github_client.py:GitHubClient.delete_sticky a comment deleted by its id unchecked
#        (a person's copy of our text, ours rewritten into a maintainer's, another PR's)
# kills: bot/github_client.py:GitHubClient.restore_text a rewrite's words written back onto
#        a comment not ours, or ours not showing our marker
@pytest.mark.parametrize(("act", "write"), [(_deleted, "DELETE"), (_their_text_back, "PATCH")])
def test_the_notes_comment_is_deleted_or_given_back_by_its_id_only_when_still_ours_on_this_pr(
    fake_github, make_github_client, act, write
):
    fake_github.add_pull(DEFAULT_REPO, 7)
    fake_github.add_pull(DEFAULT_REPO, 8)
    client = make_github_client()
    copy = fake_github.add_comment(DEFAULT_REPO, 7, _sticky("mine"), login="alice")
    elsewhere = PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID)
    other = client.upsert_sticky(elsewhere, _sticky("PR 8's"), MARKER, create=True).comment_id
    ours = client.upsert_sticky(PR, _sticky("v1"), MARKER, create=True).comment_id
    assert other is not None and ours is not None
    fake_github.set_body(ours, THEIRS)  # a maintainer's now
    fake_github.clear_requests()
    for kept in (copy.id, other, ours):
        assert act(client, PR, kept) is False
    assert fake_github.calls(write) == []
    fake_github.set_body(ours, _sticky("v1"))  # our late edit, applied after theirs
    with counting_writes() as asked:  # a write, as the installation's budgets count them
        assert act(client, PR, ours) is True
    assert asked.count == 1
    left = {c.id: c.body for c in fake_github.comments(DEFAULT_REPO, 7)}
    assert left == ({copy.id: _sticky("mine")} | ({ours: THEIRS} if write == "PATCH" else {}))
    assert act(client, PR, ours) is False  # gone already, or theirs again


# kills: bot/github_client.py:GitHubClient.restore_text the words we wrote back taken for ours
#        after a person put those very words back (an undo), or GitHub's time of our write lost
def test_the_words_we_wrote_back_are_written_over_only_while_not_edited_since(
    fake_github, make_github_client
):
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    assert ours is not None
    fake_github.set_body(ours, "their first words")
    fake_github.set_body(ours, _sticky("v1"))  # our late edit, applied after theirs
    done = client.restore_text(PR, ours, THEIRS, MARKER)
    shown = fake_github.comment(ours)
    assert done == RestoreResult(RestoreOutcome.WRITTEN, iso_time(shown.updated_at))
    assert shown.body == THEIRS
    later = "Moved to the description, and the docs."
    wrote = WriteBackHistory(over=THEIRS, over_at=done.at)
    shown.updated_at += 1  # a person put those very words back, a second later: theirs
    theirs = client.restore_text(PR, ours, later, MARKER, history=wrote)
    assert theirs == RestoreResult(RestoreOutcome.THEIRS)
    assert fake_github.comment(ours).body == THEIRS
    shown.updated_at -= 1  # not edited since our write: the words we wrote
    again = client.restore_text(PR, ours, later, MARKER, history=wrote)
    assert again.outcome is RestoreOutcome.WRITTEN
    assert fake_github.comment(ours).body == later


# kills: bot/github_client.py:GitHubClient.restore_text the words a failed call sent taken
#        for ours whenever shown (a person's same words put there later), or never
def test_words_a_failed_call_sent_are_ours_only_when_edited_no_later_than_it_gave_up(
    fake_github, make_github_client
):
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    assert ours is not None
    gave_up = utcnow()  # a call sent THEIRS and failed: perhaps landed, its answer lost
    fake_github.set_body(ours, THEIRS)
    shown = fake_github.comment(ours)
    later = "Moved to the description, and the docs."
    # edited past the clocks' slack after it gave up: a person put their words back
    shown.updated_at = time.time() + CLOCK_SLACK.total_seconds() + 2
    tried = WriteBackHistory(tried=THEIRS, tried_at=gave_up)
    for text in (THEIRS, later):
        done = client.restore_text(PR, ours, text, MARKER, history=tried)
        assert done == RestoreResult(RestoreOutcome.THEIRS)
    assert fake_github.comment(ours).body == THEIRS and fake_github.calls("PATCH") == []
    shown.updated_at = time.time()  # edited no later: our call's write, landed
    done = client.restore_text(PR, ours, THEIRS, MARKER, history=tried)
    assert done == RestoreResult(RestoreOutcome.LANDED, iso_time(shown.updated_at))
    assert fake_github.calls("PATCH") == []
    done = client.restore_text(PR, ours, later, MARKER, history=tried)
    assert done.outcome is RestoreOutcome.WRITTEN
    assert fake_github.comment(ours).body == later


# kills: bot/github_client.py:GitHubClient.restore_text an earlier failed call's words told
#        by the last call's window (a person's paste of them after their own window)
def test_words_an_earlier_failed_call_sent_are_ours_only_within_their_own_window(
    fake_github, make_github_client
):
    """Two calls failed: the first sent THEIRS and gave up ten minutes ago, the last sent
    other words and gave up now. THEIRS shown, edited since the first gave up (past the
    slack): a person's paste, even within the last call's window; edited before: ours."""
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    assert ours is not None
    first = (datetime.now(UTC) - timedelta(minutes=10)).isoformat()
    tries = WriteBackHistory(
        tried="Their second words.", tried_at=utcnow(), tried_before=((THEIRS, first),)
    )
    fake_github.set_body(ours, THEIRS)
    shown = fake_github.comment(ours)
    newest = "Their third words."
    shown.updated_at = time.time() - 60  # after the first gave up, past the slack
    done = client.restore_text(PR, ours, newest, MARKER, history=tries)
    assert done == RestoreResult(RestoreOutcome.THEIRS)
    assert fake_github.comment(ours).body == THEIRS and fake_github.calls("PATCH") == []
    shown.updated_at = time.time() - 11 * 60  # before the first gave up: its write, landed
    assert client.restore_text(PR, ours, newest, MARKER, history=tries).outcome.wrote
    assert fake_github.comment(ours).body == newest


# --- the file list's renames ----------------------------------------------------------


# kills: bot/github_client.py:GitHubClient.list_files the renames left out (a reason named the
#   old path)
def test_the_file_list_says_which_path_each_rename_came_from(fake_github, make_github_client):
    # GitHub lists a rename as one entry with both paths, both changed; a copy names its
    # source too, which the PR leaves as it was: neither listed nor a rename
    from tests.fake_github import FakeFile

    files = [
        FakeFile("vllm/new/x.py", "renamed", "vllm/old/x.py"),
        FakeFile("vllm/b_copy.py", "copied", "vllm/b.py"),
        FakeFile("vllm/c.py"),
    ]
    fake_github.add_pull(DEFAULT_REPO, 7, files=files)
    listed = make_github_client().list_files(PR)
    assert sorted(listed) == ["vllm/b_copy.py", "vllm/c.py", "vllm/new/x.py", "vllm/old/x.py"]
    assert listed.renamed == {"vllm/old/x.py": "vllm/new/x.py"}


# --- a write-back told as ours, theirs or gone ----------------------------------------


# kills: bot/github_client.py:GitHubClient.restore_text a write-back whose PATCH landed but
#        whose answer a 401 replaced taken, on the re-run, for words a person put there
def test_a_write_back_whose_answer_a_401_lost_is_still_told_as_written(
    fake_github, make_github_client
):
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    assert ours is not None
    fake_github.set_body(ours, "their first words")
    fake_github.set_body(ours, _sticky("v1"))  # our late edit, applied after theirs
    lost = dataclasses.replace(Fault.bad_credentials(), apply=True)  # landed, answer refused
    fake_github.inject("PATCH", f"/repos/*/issues/comments/{ours}", lost)
    done = client.restore_text(PR, ours, THEIRS, MARKER)
    shown = fake_github.comment(ours)
    assert shown.body == THEIRS
    assert done == RestoreResult(RestoreOutcome.WRITTEN, iso_time(shown.updated_at))
    assert [r.status for r in fake_github.calls("PATCH")] == [401]  # not written twice
    # a later call, no write of it sent: their words shown are theirs, not told as ours
    assert client.restore_text(PR, ours, THEIRS, MARKER) == RestoreResult(RestoreOutcome.THEIRS)


# kills: bot/github_client.py:GitHubClient.restore_text a comment gone (deleted before the
#        look or before the write, or on another PR) told as a person's text shown, or their
#        text told as the comment gone; a call beyond its one look and one write (and a
#        404's confirming GETs)
def test_a_write_back_tells_the_comment_gone_from_a_persons_text_shown(
    fake_github, make_github_client
):
    client, ours = _notes_comment_posted(fake_github, make_github_client)
    fake_github.add_pull(DEFAULT_REPO, 8)
    elsewhere = PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID)
    other = client.upsert_sticky(elsewhere, _sticky("PR 8's"), MARKER, create=True).comment_id
    assert ours is not None and other is not None
    gone = RestoreResult(RestoreOutcome.GONE)

    def asked(comment_id: int) -> tuple[RestoreResult, list[str]]:
        # the outcome, and the calls it took: one look (GET), then the write (PATCH)
        fake_github.clear_requests()
        done = client.restore_text(PR, comment_id, THEIRS, MARKER)
        return done, [r.method for r in fake_github.requests]

    assert asked(other) == (gone, ["GET"])  # not on this PR
    fake_github.set_body(ours, "their first words")  # a maintainer's now
    assert asked(ours) == (RestoreResult(RestoreOutcome.THEIRS), ["GET"])
    fake_github.set_body(ours, _sticky("v1"))  # our late edit, applied after theirs
    path = f"/repos/*/issues/comments/{ours}"
    fake_github.inject("GET", path, Fault.not_found())  # deleted before the look
    assert asked(ours) == (gone, ["GET", "GET"])  # (the second: is the repository seen?)
    assert fake_github.comment(ours).body == _sticky("v1")  # (faults: nothing written)
    done, calls = asked(ours)
    assert done.outcome is RestoreOutcome.WRITTEN and calls == ["GET", "PATCH"]
    fake_github.set_body(ours, _sticky("v1"))  # our late edit again
    deleted = Fault.landed_after(lambda: fake_github.delete_comment(ours))
    fake_github.inject("PATCH", path, deleted)  # deleted after the look
    assert asked(ours) == (gone, ["GET", "PATCH", "GET", "GET"])  # (the deletion confirmed)

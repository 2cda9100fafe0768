"""The GitHub layer against the fake GitHub: the fake's own contract first, then the client."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.conftest import AppKey
from tests.fake_github import (
    DEFAULT_APP_ID,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeGitHub,
    Fault,
)

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

"""Shared fixtures: a test App key pair and the fake GitHub server.

The RSA key is generated once per session (no key is committed). `fake_github`
is a started FakeGitHub that knows the test App (its public key, App ID, slug) and
one installation on `vllm-project/vllm`; add PRs, comments and faults per test.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.fake_github import (
    DEFAULT_APP_ID,
    DEFAULT_APP_SLUG,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeGitHub,
)


@dataclass(frozen=True)
class AppKey:
    private_pem: str  # give this to the client (GitHub App private key)
    public_pem: str  # the fake verifies JWTs with this


@pytest.fixture(scope="session")
def app_key() -> AppKey:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return AppKey(private.decode(), public.decode())


@pytest.fixture
def fake_github(app_key: AppKey) -> Iterator[FakeGitHub]:
    """A running fake: App DEFAULT_APP_ID/DEFAULT_APP_SLUG, installation
    DEFAULT_INSTALLATION_ID on DEFAULT_REPO. Its base_url goes to the client."""
    fake = FakeGitHub(
        app_public_key=app_key.public_pem, app_id=DEFAULT_APP_ID, app_slug=DEFAULT_APP_SLUG
    )
    fake.add_installation(DEFAULT_INSTALLATION_ID, [DEFAULT_REPO])
    with fake:
        yield fake

"""Shared fixtures: a test App key pair, the fake GitHub server, a client factory.

The RSA key is generated once per session (no key is committed). `fake_github`
is a started FakeGitHub that knows the test App (its public key, App ID, slug) and
one installation on `vllm-project/vllm`; add PRs, comments and faults per test.
`make_github_client(**overrides)` builds a GitHubClient in App mode against it,
with no throttling and short retry waits. `manual_time` is a clock that moves only
when the test says, for the client's `clock=` and `sleep=`. `live` is the slash
commands' served App on a PR whose files and title match a note (tests/command_kit.py;
test_e2e, test_events and test_file_cache have a `live` of their own).
"""

from __future__ import annotations

import compileall
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.github_client import GitHubClient
from bot.github_retry import RetryPolicy
from tests.command_kit import live  # noqa: F401 (the test_command_*.py fixture)
from tests.fake_github import (
    DEFAULT_APP_ID,
    DEFAULT_APP_SLUG,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeGitHub,
)


def pytest_configure(config: pytest.Config) -> None:
    """bot/'s bytecode beside its sources, when this Python writes none
    (PYTHONDONTWRITEBYTECODE): the tests start `review-notes` in a child process a few
    hundred times (servers, CLI commands), and each child, which reads bytecode but may
    not write it, compiled bot/ from source again, a quarter of a server's start. What
    Python writes there when the variable is unset; a source edited later is compiled
    again in memory (its time no longer matches), so no child runs stale code."""
    if sys.dont_write_bytecode:
        compileall.compile_dir(Path(__file__).resolve().parent.parent / "bot", quiet=1)


@dataclass(frozen=True)
class AppKey:
    private_pem: str  # give this to the client (GitHub App private key)
    public_pem: str  # the fake verifies JWTs with this


def new_app_key() -> AppKey:
    """A fresh RSA key pair, as GitHub gives an App (the fixture's, and bench scripts')."""
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


@pytest.fixture(scope="session")
def app_key() -> AppKey:
    return new_app_key()


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


# Short waits so fault tests stay fast; Retry-After still wins when GitHub sends it.
FAST_RETRY = RetryPolicy(
    attempts=4,
    backoff=0.01,
    backoff_max=0.05,
    secondary_wait=0.3,
    max_wait=5,
    lost_create_wait=0.05,
)


@pytest.fixture
def make_github_client(
    fake_github: FakeGitHub, app_key: AppKey
) -> Iterator[Callable[..., GitHubClient]]:
    """Build GitHubClients for the fake: App mode unless `token=` is given."""
    made: list[GitHubClient] = []

    def make(**overrides: Any) -> GitHubClient:
        options: dict[str, Any] = dict(
            base_url=fake_github.base_url,
            timeout=5,
            retry=FAST_RETRY,
            seconds_between_requests=0,
            seconds_between_writes=0,
        )
        if "token" not in overrides:
            options.update(app_id=DEFAULT_APP_ID, private_key=app_key.private_pem)
        options.update(overrides)
        client = GitHubClient(**options)
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


class ManualTime:
    """A clock that moves only by `advance`; a thread in `sleep` waits for it there.

    For waits in threads the test does not run itself (workers): the test sees who is
    waiting (`sleepers`), checks what was (not) sent meanwhile, then lets the time pass.
    A sleeper gives up after `patience` real seconds, so a broken test fails, not hangs.
    """

    def __init__(self, patience: float = 30.0) -> None:
        self._now = 0.0
        self._changed = threading.Condition()
        self._patience = patience
        self.sleepers = 0  # threads in sleep() now
        self.slept: list[float] = []  # every sleep asked for, in order

    def clock(self) -> float:
        with self._changed:
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._changed:
            end = self._now + seconds
            self.slept.append(seconds)
            self.sleepers += 1
            try:
                self._changed.wait_for(lambda: self._now >= end, timeout=self._patience)
            finally:
                self.sleepers -= 1

    def advance(self, seconds: float) -> None:
        with self._changed:
            self._now += seconds
            self._changed.notify_all()


@pytest.fixture
def manual_time() -> ManualTime:
    return ManualTime()


def load_script(name: str, folder: str = "scripts"):
    """<folder>/<name>.py as a module (scripts/ and bench/ are no packages)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def eval_script():
    """scripts/eval_matching.py as a module."""
    return load_script("eval_matching")

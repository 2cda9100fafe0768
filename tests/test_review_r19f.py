"""Found by review 'r19f' (blind review of af945a5..e4e5d6c): each test fails until its
defect is fixed. The docstrings say what is wrong and why it matters."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot.server import build_runtime
from tests.fake_github import DEFAULT_REPO, Fault
from tests.test_command_events import AUTHOR, N, tune
from tests.test_e2e import live_settings
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    app_settings,
    clean_env,
    pr_payload,
    serving,
)


@pytest.fixture
def live(tmp_path, fake_github, app_key, monkeypatch):
    """As tests/test_command_events.py's: the server on the fake GitHub, PR N open."""
    clean_env(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake_github, app_key)) as (client, rt):
        tune(rt)
        yield client, rt, fake_github


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def _commands_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "commands.toml"
    path.write_text(text)
    return path


def test_a_stop_during_the_redelivery_listing_is_bounded(tmp_path, fake_github, app_key):
    """Runtime.stop "waits (10 s at most) for the start's redelivery sweep", which "stops
    after the call under way" ("Bounded, as every stage"). Neither holds while the sweep
    lists GitHub's delivery log: it checks `stopping` only between redeliveries, and the
    listing (GitHubClient.hook_deliveries: 100 a page, following the Link cursor back to
    `since`, up to three days after a long outage) is many calls with no check between
    them, each holding the client's `_app_lock`. After the 10 s join,
    `ctx.github.close()` waits on that lock for the page under way (or longer: a Lock is
    not fair, and the sweep takes it again for the next page), so the stop outlives its
    bound; then the sweep, still listing, calls GitHub past the close and reads the
    closed database (`held`): "redelivery at start failed" with a traceback. A stop
    past the container's grace period (docker stop: 10 s) ends in a SIGKILL. The
    listing should stop at the next page once `stopping` is set (or the bound hold)."""
    from bot.server import REDELIVERY_JOIN_SECONDS

    fake = fake_github
    for n in range(350):  # sent while no server ran: four pages of the delivery log
        assert fake.send_webhook("pull_request", pr_payload(number=n + 1)).status_code == 0
    listing = "/app/hook/deliveries"
    fake.inject("GET", listing, *[Fault(delay=5.0, apply=True) for _ in range(4)])  # slow pages
    rt = build_runtime(app_settings(tmp_path, fake, app_key))
    rt.start()
    thread = rt.redeliver_in_background()
    assert thread is not None
    time.sleep(0.5)  # the first page is under way
    began = time.monotonic()
    rt.stop()
    took = time.monotonic() - began
    stopped = len(fake.requests)
    thread.join(30)
    pages = len(fake.calls("GET", listing))
    assert took <= REDELIVERY_JOIN_SECONDS + 2, (
        f"Runtime.stop took {took:.1f}s (bound {REDELIVERY_JOIN_SECONDS}s): close() waited"
        f" for the sweep's listing, which ignores `stopping` ({pages} pages listed in all)"
    )
    assert len(fake.requests) == stopped  # and nothing called GitHub after the stop

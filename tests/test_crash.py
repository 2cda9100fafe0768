"""Crash safety of `review-notes serve` as a real process against the fake GitHub.

SIGKILL with deliveries queued and in flight (one of them right after GitHub stored
its comment): after a restart every accepted delivery is processed exactly once and
every PR has exactly one comment. SIGTERM drains: the deliveries in hand finish,
nothing new is claimed, the process exits 0.
"""

from __future__ import annotations

import json
import signal
import socket
from collections import Counter
from pathlib import Path

import pytest

from bot.db import Database
from bot.markers import MARKER
from bot.queue import DeliveryQueue
from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_REPO, FakeGitHub, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    LiveServer,
    app_env,
    pr_payload,
    send_signed,
    wait_until,
)

BOT = f"{DEFAULT_APP_SLUG}[bot]"
PRS = list(range(7101, 7107))  # six PRs
SLOW = 10.0  # seconds a slowed GitHub answer takes: longer than any test waits for it


@pytest.fixture
def env(tmp_path, fake_github, app_key) -> dict[str, str]:
    return app_env(
        tmp_path,
        fake_github,
        app_key,
        REVIEW_NOTES_WORKERS="2",
        REVIEW_NOTES_HTTP_TIMEOUT="60",  # a slowed answer is waited for, not retried
    )


class Serve(LiveServer):
    def processed(self) -> Counter:
        """Deliveries whose processing ran to the end, by id, over every run's log."""
        done: Counter = Counter()
        for path in self.logs:
            for line in path.read_text().splitlines():
                if not line.startswith("{"):
                    continue
                record = json.loads(line)
                if record["logger"] == "review_notes" and record["msg"].startswith("delivery "):
                    if "ignored:" not in record["msg"]:
                        done[record["delivery"]] += 1
        return done


def setup_prs(fake: FakeGitHub) -> None:
    for n in PRS:
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)


def deliveries() -> list[tuple[str, dict]]:
    """Three events per PR (opened, labeled, a push), interleaved across the PRs."""
    out = []
    for step, (action, extra) in enumerate(
        [
            ("opened", {}),
            ("labeled", {"labels": ("ci",)}),
            ("synchronize", {"head_sha": "b" * 40}),
        ]
    ):
        for n in PRS:
            payload = pr_payload(
                action,
                number=n,
                title=MATCHING_TITLE,
                updated_at=f"2026-09-01T10:00:0{step}Z",
                **extra,
            )
            out.append((f"d-{n}-{action}", payload))
    return out


def ours(fake: FakeGitHub, number: int) -> list:
    return [c for c in fake.comments(DEFAULT_REPO, number) if c.user.login == BOT]


def queue_of(tmp_path: Path) -> DeliveryQueue:
    return DeliveryQueue(Database(tmp_path / "bot.sqlite3"))


def test_sigkill_with_work_queued_and_in_flight_loses_nothing_and_doubles_nothing(
    tmp_path, env, fake_github
):
    fake = fake_github
    setup_prs(fake)
    first, second = PRS[0], PRS[1]
    # In flight at the kill: one worker waits for the first PR's files; the other
    # waits for the answer to a comment GitHub has already stored on the second PR.
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{first}/files", Fault.slow(SLOW))
    fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{second}/comments", Fault.slow(SLOW))
    serve = Serve(tmp_path, env)
    sent = deliveries()
    with serve.run() as proc:
        for delivery, payload in sent:
            assert send_signed(serve.base, "pull_request", payload, delivery) == 202
        wait_until(
            lambda: (
                fake.calls("GET", f"/repos/*/pulls/{first}/files")
                and fake.calls("POST", f"/repos/*/issues/{second}/comments")
            ),
            what="both slowed requests in flight",
        )
        health = serve.health()
        assert health["processing"] == 2 and health["pending"] == len(sent) - 2
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(ours(fake, second)) == 1  # stored by GitHub, never acknowledged to us
    assert fake.pending_faults() == 0

    with serve.run() as proc:
        wait_until(
            lambda: serve.health()["done"] == len(sent),
            what="every delivery done after the restart",
        )
        health = serve.health()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert health["failed"] == 0 and health["pending"] == health["processing"] == 0
    for n in PRS:
        (comment,) = ours(fake, n)  # exactly one comment per PR, no duplicate
        assert comment.body.startswith(MARKER)
    assert serve.processed() == Counter({d: 1 for d, _ in sent})  # each exactly once
    q = queue_of(tmp_path)
    assert q.get(f"d-{first}-opened").attempts == 2  # interrupted once, then finished
    assert q.get(f"d-{second}-opened").attempts == 2


def test_sigterm_finishes_the_work_in_hand_claims_nothing_new_and_exits_0(
    tmp_path, env, fake_github
):
    fake = fake_github
    setup_prs(fake)
    first, second = PRS[0], PRS[1]
    for n in (first, second):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", Fault.slow(1.5))
    serve = Serve(tmp_path, env)
    sent = deliveries()
    with serve.run() as proc:
        for delivery, payload in sent:
            assert send_signed(serve.base, "pull_request", payload, delivery) == 202
        wait_until(
            lambda: len(fake.calls("GET", "/repos/*/pulls/*/files")) == 2,
            what="two deliveries in flight",
        )
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0  # drained within the bound, exit status 0
    assert "stopped by SIGTERM" in serve.logs[0].read_text()

    q = queue_of(tmp_path)
    in_hand = {f"d-{first}-opened", f"d-{second}-opened"}
    for did in in_hand:
        assert q.get(did).state == "done"  # the work in hand finished
    assert len(ours(fake, first)) == 1 and len(ours(fake, second)) == 1
    assert q.counts() == {"pending": len(sent) - 2, "processing": 0, "done": 2, "failed": 0}
    untouched = [q.get(d) for d, _ in sent if d not in in_hand]
    assert all(d.state == "pending" and d.attempts == 0 for d in untouched)  # never claimed
    assert len(fake.calls("GET", "/repos/*/pulls/*/files")) == 2  # nothing else started
    q.db.close()

    with serve.run() as proc:
        wait_until(lambda: serve.health()["done"] == len(sent), what="the rest after restart")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert all(len(ours(fake, n)) == 1 for n in PRS)
    assert serve.processed() == Counter({d: 1 for d, _ in sent})


# --- SIGTERM while a client is still sending ---


# kills: bot/server.py:DrainingServer.handle_exit (hand) the workers told to stop claiming only once
# uvicorn's drain ended: a client still sending holds it open (up to DRAIN_SECONDS), and meanwhile
# they started the deliveries queued behind the one in hand
def test_sigterm_while_a_client_is_still_sending_claims_nothing_new(tmp_path, env, fake_github):
    fake = fake_github
    setup_prs(fake)
    first, second = PRS[0], PRS[1]
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{first}/files", Fault.slow(1.5))
    serve = Serve(tmp_path, env | {"REVIEW_NOTES_WORKERS": "1"})
    with serve.run() as proc:
        for n in (first, second):
            payload = pr_payload(number=n, title=MATCHING_TITLE)
            assert send_signed(serve.base, "pull_request", payload, f"d-{n}") == 202
        wait_until(lambda: fake.calls("GET", "/repos/*/pulls/*/files"), what="the first in hand")
        with socket.create_connection(("127.0.0.1", serve.port)) as sending:
            sending.sendall(b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{")
            serve.health()  # answered after the server read the half-sent request
            proc.send_signal(signal.SIGTERM)
            wait_until(lambda: ours(fake, first), what="the work in hand finished")
        assert proc.wait(30) == 0  # the client gone, the drain ends
    q = queue_of(tmp_path)
    assert q.get(f"d-{first}").state == "done"
    assert (q.get(f"d-{second}").state, q.get(f"d-{second}").attempts) == ("pending", 0)
    assert len(fake.calls("GET", "/repos/*/pulls/*/files")) == 1  # nothing else started
    q.db.close()


# kills: bot/server.py:DrainingServer.handle_exit (hand) the start's redelivery sweep told of the
# stop only once the drain ended: while a client still sending held it open, the sweep asked GitHub
# to send again what it had listed, in a server already stopping
def test_sigterm_while_a_client_is_still_sending_asks_github_for_no_redelivery(
    tmp_path, env, fake_github
):
    fake = fake_github
    for n in PRS[:3]:  # sent while no server ran: the start's sweep would ask for them
        assert fake.send_webhook("pull_request", pr_payload(number=n)).status_code == 0
    fake.inject("GET", "/app/hook/deliveries", Fault.slow(1.5))
    serve = Serve(tmp_path, env)
    with serve.run() as proc:
        wait_until(lambda: fake.calls("GET", "/app/hook/deliveries"), what="the listing")
        with socket.create_connection(("127.0.0.1", serve.port)) as sending:
            sending.sendall(b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{")
            serve.health()  # answered after the server read the half-sent request
            proc.send_signal(signal.SIGTERM)
            wait_until(
                lambda: "redelivery sweep" in serve.logs[0].read_text(), what="the sweep's end"
            )
        assert proc.wait(30) == 0
    assert fake.calls("POST", "/app/hook/deliveries/*/attempts") == []
    assert "none asked again" in serve.logs[0].read_text()


# kills: bot/server.py:run_server (hand) uvicorn's drain left unbounded: a client that never
# finishes sending held the stop until the platform's SIGKILL
def test_sigterm_is_not_held_by_a_client_that_never_finishes_sending(tmp_path, env):
    from bot.server import DRAIN_SECONDS

    serve = Serve(tmp_path, env)
    with serve.run() as proc:
        with socket.create_connection(("127.0.0.1", serve.port)) as sending:
            sending.sendall(b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{")
            serve.health()  # answered after the server read the half-sent request
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(DRAIN_SECONDS + 30) == 0

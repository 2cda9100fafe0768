"""What an operator sees: /metrics populated by real traffic, and JSON logs that follow
a delivery without ever showing a credential.

Both drive the app in App mode against the fake GitHub: the metrics test in process
(ASGI client), the log test as a real `review-notes serve` at DEBUG level, the most
verbose there is, with a retry and an expired token on the way so that the client's
warnings and re-mint are logged too.
"""

from __future__ import annotations

import json
import signal
import threading

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.server import live_github
from bot.signature import sign
from tests.fake_github import DEFAULT_APP_SLUG, DEFAULT_INSTALLATION_ID, DEFAULT_REPO, Fault
from tests.webhook_kit import (
    HEAD,
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    UNRELATED_TITLE,
    LiveServer,
    app_env,
    app_settings,
    clean_env,
    drain,
    labeled_one_more_note,
    make_settings,
    post,
    pr_payload,
    send_signed,
    serving,
    wait_until,
)

BOT = f"{DEFAULT_APP_SLUG}[bot]"
N = 7401


def samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Prometheus text -> sample name -> [(labels, value)]; fails on malformed text."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def value(found: dict, name: str, **labels: str) -> float:
    matches = [
        v for got, v in found.get(name, []) if all(got.get(k) == w for k, w in labels.items())
    ]
    assert matches, f"no sample {name}{labels}"
    return sum(matches)


LATER = "2026-09-01T10:00:01Z"


def test_metrics_are_populated_by_traffic(tmp_path, fake_github, app_key, monkeypatch):
    clean_env(monkeypatch)
    fake = fake_github
    # GitHub lists the files at the head the events name (their cache is kept under it)
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES).head_sha = HEAD
    fake.add_pull(DEFAULT_REPO, N + 1, files=["docs/contributing.md"]).head_sha = HEAD
    settings = app_settings(tmp_path, fake, app_key, retry_backoff=0.01)
    with serving(settings) as (client, rt):
        fake.inject("GET", "/repos/*/pulls/*/files", Fault.error(502))  # one retried call
        steps = [
            dict(title=MATCHING_TITLE),  # created
            # unchanged; a second after `opened` (a tie would read the PR from GitHub)
            dict(action="labeled", title=MATCHING_TITLE, labels=("ci",), updated_at=LATER),
            labeled_one_more_note(updated_at="2026-09-01T11:00:00Z"),  # updated
            dict(number=N + 1, title=UNRELATED_TITLE),  # no match: no comment
            dict(action="assigned"),  # ignored at intake
        ]
        for step in steps:
            kw = {"number": N, **step}
            assert post(client, "pull_request", pr_payload(**kw)).status_code == 202
            drain(rt)
        # not the first step's body (that would be a replay), and older: changes nothing
        again = pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T09:00:00Z")
        assert post(client, "pull_request", again, delivery="twice").status_code == 202
        assert post(client, "pull_request", again, delivery="twice").status_code == 200
        assert post(client, "pull_request", again, secret="wrong").status_code == 401
        drain(rt)
        response = client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    m = samples(response.text)

    deliveries = "review_notes_deliveries_total"
    assert value(m, deliveries, event="pull_request", outcome="queued") == 5
    assert value(m, deliveries, event="pull_request", outcome="done") == 5
    assert value(m, deliveries, event="pull_request", outcome="ignored") == 1
    assert value(m, deliveries, event="pull_request", outcome="duplicate") == 1
    assert value(m, deliveries, event="unverified", outcome="bad_signature") == 1

    assert value(m, "review_notes_queue_depth", state="done") == 5
    assert value(m, "review_notes_queue_depth", state="pending") == 0
    assert value(m, "review_notes_queue_depth", state="failed") == 0

    hist = "review_notes_processing_seconds"
    assert value(m, f"{hist}_count", event="pull_request") == 5
    assert value(m, f"{hist}_bucket", event="pull_request", le="+Inf") == 5
    assert value(m, f"{hist}_sum", event="pull_request") > 0

    comments = "review_notes_comments_total"
    assert value(m, comments, outcome="created") == 1
    assert value(m, comments, outcome="updated") == 1
    assert value(m, comments, outcome="unchanged") == 1  # the label that changed nothing

    calls = "review_notes_github_calls_total"
    files = "/repos/{owner}/{repo}/pulls/{number}/files"
    listing = "/repos/{owner}/{repo}/issues/{number}/comments"
    assert value(m, calls, method="GET", endpoint=files, status="502") == 1
    assert value(m, calls, method="GET", endpoint=files, status="200") == 2  # then cached
    assert value(m, calls, method="POST", endpoint=listing, status="201") == 1
    assert value(m, calls, method="PATCH", status="200") == 1
    tokens = "/app/installations/{id}/access_tokens"
    assert value(m, calls, method="POST", endpoint=tokens, status="201") == 1
    # Every call the fake saw is counted once, under its status.
    assert sum(v for _, v in m[calls]) == len(fake.requests)

    # the fake's x-ratelimit-remaining after our calls: the deliveries', the App's JWT's
    for identity in ("installation", "app"):
        assert 0 < value(m, "review_notes_github_ratelimit_remaining", identity=identity) < 5000


def test_no_rate_limit_sample_until_github_gave_one(tmp_path, fake_github, app_key, monkeypatch):
    # A made-up 0 reads as an exhausted rate limit and fires any "remaining < N" alert
    # at every start, and always in dry run: no sample until GitHub's answer said it.
    clean_env(monkeypatch)
    name = "review_notes_github_ratelimit_remaining"
    with serving(make_settings(tmp_path / "dry")) as (client, _):
        assert name not in samples(client.get("/metrics").text)
    settings = app_settings(tmp_path / "live", fake_github, app_key)
    # a client of its own: not the start's, which asks GitHub for the App
    with serving(settings, github=live_github(settings)) as (client, rt):
        assert name not in samples(client.get("/metrics").text)  # no GitHub call yet
        rt.ctx.github.calls.record("GET", "/rate_limit", "200", {"x-ratelimit-remaining": "0"})
        found = samples(client.get("/metrics").text)
        assert value(found, name, identity="installation") == 0  # a real 0 shows


# kills: bot/server.py:_collect_metrics.github_calls each scrape counted every call again
# (`seen[key] = n` dropped)
# kills: bot/server.py:_collect_metrics.github_calls a scrape counted all the calls so far, not
# those since the last
# kills: bot/server.py:_collect_metrics.github_calls a scrape counted all the pauses so far, not
# those since the last
# kills: bot/server.py:_collect_metrics.github_calls each scrape counted every pause again
# (`pauses_seen` not kept)
def test_the_github_calls_and_pauses_are_counted_once_however_often_scraped(
    tmp_path, fake_github, app_key, monkeypatch
):
    # the counters copy the client's running totals at each scrape: a Prometheus that
    # scrapes twice between two calls must not see them twice
    from bot.server import build_runtime

    clean_env(monkeypatch)
    settings = app_settings(tmp_path, fake_github, app_key)
    rt = build_runtime(settings, github=live_github(settings))  # no call at start
    calls, metrics = rt.ctx.github.calls, rt.ctx.metrics
    listing = dict(method="GET", endpoint="/repos/{owner}/{repo}/pulls/{number}/files")

    def scraped() -> tuple[float, float]:
        found = samples(metrics.render().decode())
        calls_total = value(found, "review_notes_github_calls_total", status="200", **listing)
        return calls_total, value(found, "review_notes_github_ratelimit_pauses_total")

    try:
        calls.record("GET", listing["endpoint"], "200")
        calls.record_pause(1.0, news=True)
        assert scraped() == scraped() == (1, 1)
        calls.record("GET", listing["endpoint"], "200")
        calls.record_pause(1.0, news=True)
        assert scraped() == scraped() == (2, 2)
    finally:
        rt.ctx.github.close()
        rt.db.close()


# kills: bot/server.py:Runtime.process a delivery that failed left out of the processing time
def test_a_failed_delivery_is_timed_too(tmp_path, fake_github, app_key, monkeypatch):
    # the slow deliveries are as often the failing ones: GitHub's errors after its retries
    clean_env(monkeypatch)
    fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(tmp_path, fake_github, app_key, max_retries=0)
    with serving(settings) as (client, rt):
        fake_github.inject("GET", "/repos/*/pulls/*/files", Fault.error(502))
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        drain(rt)
        assert rt.queue.get(r.json()["delivery"]).state == "failed"
        m = samples(client.get("/metrics").text)
    hist = "review_notes_processing_seconds"
    assert value(m, "review_notes_deliveries_total", event="pull_request", outcome="failed") == 1
    assert value(m, f"{hist}_count", event="pull_request") == 1


# --- logs -------------------------------------------------------------------------


@pytest.fixture
def served_log(tmp_path, fake_github, app_key):
    """Run `review-notes serve` at DEBUG through one delivery; yield what it logged."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES)
    serve = LiveServer(
        tmp_path,
        app_env(
            tmp_path,
            fake,
            app_key,
            REVIEW_NOTES_LOG_LEVEL="DEBUG",
            REVIEW_NOTES_RETRY_BACKOFF="0.01",
        ),
    )
    with serve.run() as proc:
        fake.inject("GET", "/repos/*/pulls/*/files", Fault.error(502))  # a logged retry
        first = pr_payload(number=N, title=MATCHING_TITLE)
        assert send_signed(serve.base, "pull_request", first, "delivery-one") == 202
        wait_until(lambda: serve.health()["done"] == 1, what="processed")
        fake.expire_tokens()  # the next call is a 401, then a new token is minted
        second = pr_payload(number=N, **labeled_one_more_note(updated_at="2026-09-01T11:00:00Z"))
        assert send_signed(serve.base, "pull_request", second, "delivery-two") == 202
        wait_until(lambda: serve.health()["done"] == 2, what="processed")
        bodies = [json.dumps(p).encode() for p in (first, second)]
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert len(fake.calls("POST", "/app/installations/*/access_tokens")) == 2
    yield serve.logs[0].read_text(), bodies


def test_logs_follow_the_delivery_and_never_show_a_credential(served_log, fake_github, app_key):
    text, bodies = served_log
    # What must never appear: every token the fake issued, the App's private key, the
    # webhook secret, the deliveries' signatures, the App's JWT.
    issued = list(fake_github._tokens)  # noqa: SLF001 (the fake's record of what it issued)
    assert len(issued) == 2
    key_lines = [ln for ln in app_key.private_pem.splitlines() if "PRIVATE KEY" not in ln]
    secrets = [*issued, SECRET, *key_lines, *(sign(SECRET, b) for b in bodies)]
    for secret in secrets:
        assert secret not in text
    assert "eyJ" not in text  # no JWT (base64 of '{"')

    records = []
    for line in text.splitlines():
        if line.startswith("review-notes: "):  # the start-up banner and the stop line
            continue
        record = json.loads(line)  # one JSON object per line
        assert isinstance(record, dict) and {"ts", "level", "logger", "msg"} <= set(record)
        records.append(record)

    def about(delivery: str) -> list[dict]:
        return [r for r in records if r.get("delivery") == delivery]

    one, two = about("delivery-one"), about("delivery-two")
    assert all(r["pr"] == N and r["repo"] == DEFAULT_REPO for r in one + two)
    # Not only our own summary line: the retry warning (bot.github_retry) and the libraries'
    # lines written while the delivery was processed carry its id too.
    assert any("try 2 of" in r["msg"] for r in one)
    assert any("created" in r["msg"] and r["logger"] == "review_notes" for r in one)
    assert any("minting a new one" in r["msg"] for r in two)
    assert any(r["logger"].startswith("urllib3") for r in two)


# kills: bot/metrics.py:Metrics.render the collect hooks run by two scrapes at once (no lock)
def test_two_scrapes_at_once_count_the_github_calls_once(
    tmp_path, fake_github, app_key, monkeypatch
):
    # Prometheus run as a pair (two servers scraping every target) scrapes at the same
    # moment; each scrape runs in a thread of its own, and the hook that copies the
    # client's running totals into the counters checked what it had copied before, then
    # counted the rest: two scrapes between the check and the copy counted the calls twice
    from bot.server import build_runtime

    clean_env(monkeypatch)
    settings = app_settings(tmp_path, fake_github, app_key)
    rt = build_runtime(settings, github=live_github(settings))  # no call at start
    calls, metrics = rt.ctx.github.calls, rt.ctx.metrics
    listing = dict(method="GET", endpoint="/repos/{owner}/{repo}/pulls/{number}/files")
    both_counting = threading.Barrier(2)
    labels = metrics.github_calls.labels

    class Waits:  # each scrape, once it has worked out what to add, waits for the other
        def __init__(self, child) -> None:
            self.child = child

        def inc(self, amount: float) -> None:
            try:
                both_counting.wait(timeout=1.0)  # never both there when scrapes take turns
            except threading.BrokenBarrierError:
                pass
            self.child.inc(amount)

    monkeypatch.setattr(metrics.github_calls, "labels", lambda *key: Waits(labels(*key)))
    try:
        calls.record("GET", listing["endpoint"], "200")
        scrapes = [threading.Thread(target=metrics.render) for _ in range(2)]
        for scrape in scrapes:
            scrape.start()
        for scrape in scrapes:
            scrape.join()
        found = samples(metrics.render().decode())
    finally:
        rt.ctx.github.close()
        rt.db.close()
    assert value(found, "review_notes_github_calls_total", status="200", **listing) == 1


# kills: bot/github_sessions.py:GitHubSessions._count the App's JWT calls counted as an
# installation's
def test_the_apps_own_rate_limit_does_not_hide_an_installations(
    tmp_path, fake_github, app_key, monkeypatch
):
    # The App's JWT calls (a token minted, the redelivery sweeps' listing of GitHub's
    # delivery log) spend a rate limit of their own, apart from each installation's: the
    # one gauge showed the last answer's figure, so after a sweep it read 4,990 left while
    # the deliveries' installation had 20, and a "remaining < N" alert stayed quiet
    from datetime import UTC, datetime, timedelta

    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake._used[f"installation {DEFAULT_INSTALLATION_ID}"] = fake.rate_limit - 20  # noqa: SLF001
    settings = app_settings(tmp_path, fake, app_key)
    with serving(settings, github=live_github(settings)) as (client, rt):
        assert post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE)).is_success
        drain(rt)
        rt.ctx.github.hook_deliveries(datetime.now(UTC) - timedelta(hours=1))  # the App's JWT
        m = samples(client.get("/metrics").text)
    name = "review_notes_github_ratelimit_remaining"
    assert 0 < value(m, name, identity="installation") < 20
    assert value(m, name, identity="app") > fake.rate_limit - 20
    assert {labels["identity"] for labels, _ in m[name]} == {"installation", "app"}


# kills: bot/server.py:Runtime.__post_init__ the deliveries' failed and error outcomes left
#        without a sample until their first count
def test_a_delivery_failing_is_at_zero_from_the_start_for_each_event(tmp_path, monkeypatch):
    # `increase(review_notes_deliveries_total{outcome="failed"}[1h]) > 0` saw nothing of
    # the first delivery to fail after a start (nor of the first one SQLite refused at
    # intake: a full disk): its series was born at 1. Each event the bot handles has both
    # at 0 before any delivery; the events it does not handle have none.
    clean_env(monkeypatch)
    with serving(make_settings(tmp_path)) as (client, rt):
        found = samples(client.get("/metrics").text)
        events = rt.dispatcher.events()
    assert "pull_request" in events and "issue_comment" in events
    deliveries = "review_notes_deliveries_total"
    for event in events:
        for outcome in ("failed", "error"):
            assert value(found, deliveries, event=event, outcome=outcome) == 0, (event, outcome)
    assert {labels["event"] for labels, _ in found[deliveries]} == {*events, "unverified"}

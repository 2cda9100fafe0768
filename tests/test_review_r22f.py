"""Review r22f: how the server asks GitHub to redeliver the webhooks it failed to receive
(bot/redelivery.py, Runtime._redeliver/_sweep, the kept `since`, the waiting gate).

Real parts only: the fake GitHub over HTTP (its App delivery log and redelivery), the
server in-process (serving_in_thread) with its SQLite file in tmp_path.
"""

from __future__ import annotations

import sqlite3
import time

from bot.server import build_runtime, create_app
from tests.browser_kit import serving_in_thread
from tests.fake_github import DEFAULT_REPO, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    app_settings,
    free_port,
    pr_payload,
    wait_until,
)

N = 5151


def _asks(fake, guid: str) -> list:
    """GitHub's answers to the asks for `guid` (POST .../deliveries/{id}/attempts)."""
    ids = {d.id for d in fake.hook_deliveries(guid)}
    return [
        c
        for c in fake.calls("POST", "/app/hook/deliveries/*/attempts")
        if int(c.path.rstrip("/").split("/")[-2]) in ids
    ]


def _metric(rt, line: str) -> float:
    for row in rt.ctx.metrics.render().decode().splitlines():
        if row.startswith(line + " "):
            return float(row.split()[-1])
    return 0.0


def test_a_quiet_repository_gets_the_event_the_starts_redelivery_could_not_deliver(
    tmp_path, fake_github, app_key
):
    """README (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): the running server's sweeps make "an
    outage in front of a running server ... lose nothing". After a sweep whose
    redeliveries GitHub accepted, the next sweeps wait "until a delivery from GitHub is
    stored again"; in a quiet repository nothing else comes (a night, a weekend), so the
    gate never opens and the event is never asked for again while the server runs (and
    GitHub drops it after 72 h).

    The common case: an upgrade's start sweep runs as soon as the server listens, before
    the proxy in front routes to it (an ingress whose readiness probe has not passed yet,
    a tunnel started after it): GitHub accepts the ask, its redelivery fails. A second
    later the proxy routes; the sweeps (every 0.5 s here) then only ever wait."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # no server runs
    missed = fake.send_webhook("pull_request", pr_payload(number=N, title=MATCHING_TITLE))
    assert missed.status_code == 0
    missed.delivered_at = time.time() - 600  # during the upgrade, ten minutes ago
    rt = build_runtime(app_settings(tmp_path, fake, app_key))
    rt.redeliver_every_s = 0.5
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            assert rt.redeliver_in_background() is not None  # the proxy routes nowhere yet
            wait_until(
                lambda: len(fake.hook_deliveries(missed.guid)) == 2,
                what="the start's redelivery, failed in front of the server",
            )
            fake.webhook_url = f"{base}/webhook"  # the proxy routes to the new server
            deadline = time.monotonic() + 10.0  # twenty sweep intervals, nothing else sent
            while time.monotonic() < deadline and not rt.queue.held({missed.guid}):
                time.sleep(0.2)
            held = bool(rt.queue.held({missed.guid}))
            waiting = _metric(rt, 'review_notes_redelivery_sweeps_total{outcome="waiting"}')
    finally:
        rt.stop()
    assert held, (
        f"the event is never asked for again: {waiting:.0f} sweeps waited for a delivery"
        " from GitHub that a quiet repository never sends"
    )


def test_an_event_github_refused_to_redeliver_during_its_incident_is_asked_for_again_after_a_restart(  # noqa: E501
    tmp_path, fake_github, app_key
):
    """README (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): "an event is asked for at most 3
    times (accepted or refused) per server run". GitHub's redelivery endpoint answers 5xx
    for three sweeps (an incident on GitHub's side: three hours at the default 60
    minutes): the third refusal gives the event up and moves the kept `since` past it,
    so the next server run (an upgrade, a restart) never asks for it either: lost for
    good, though no ask of it was ever accepted and the README counts per run."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(tmp_path, fake, app_key, max_retries=0)
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # the proxy is down
    missed = fake.send_webhook("pull_request", pr_payload(number=N, title=MATCHING_TITLE))
    assert missed.status_code == 0
    missed.delivered_at = time.time() - 600
    for _ in range(3):
        fake.inject("POST", "/app/hook/deliveries/*/attempts", Fault.error(502))

    rt = build_runtime(settings)
    rt.redeliver_every_s = 0.5
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_url = f"{base}/webhook"  # the proxy is back
            assert rt.redeliver_in_background() is not None
            wait_until(lambda: fake.pending_faults() == 0, what="three refused asks")
            time.sleep(1.5)  # the sweeps after: GitHub's incident is over
            given_up = _metric(rt, 'review_notes_redeliveries_total{outcome="given_up"}')
    finally:
        rt.stop()
    assert given_up == 1.0

    rt = build_runtime(settings)  # the next server run: an upgrade
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_url = f"{base}/webhook"
            thread = rt.redeliver_in_background()
            assert thread is not None
            time.sleep(1.5)  # the start's sweep; a redelivery asked for arrives at once
            held = bool(rt.queue.held({missed.guid}))
    finally:
        rt.stop()
    assert held, (
        f"the event refused {len(_asks(fake, missed.guid))} times during GitHub's incident"
        " is never asked for again, not even by the next server run"
    )


def test_an_outage_that_fails_the_databases_writes_costs_an_event_one_ask(
    tmp_path, fake_github, app_key
):
    """README (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): "an outage in front of a running
    server (a proxy, TLS, a full disk answering 500) loses nothing: after a sweep whose
    redeliveries went out, the next ones wait (asking nothing) until a delivery from
    GitHub is stored again, so an outage costs an event one ask". When SQLite refuses
    writes (a full disk; here another process holding the write lock past the 10 s busy
    timeout, as a VACUUM does) GitHub's deliveries get 500s, and so does the sweep's own
    write of where it left off (keep_sweep_since): _sweep reports the whole sweep
    `failed`, returns no time to wait from, and the next sweep asks again at once,
    during the same outage: every sweep spends an ask (3 and the event is given up).
    The asks GitHub accepted are not counted in review_notes_redeliveries_total either."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    rt = build_runtime(app_settings(tmp_path, fake, app_key, workers=1))
    rt.redeliver_every_s = 0.5
    rt.start()
    holder = None
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_secret = SECRET
            assert rt.redeliver_in_background() is not None
            wait_until(lambda: fake.calls("GET", "/app/hook/deliveries"), what="a first sweep")
            time.sleep(0.3)
            holder = sqlite3.connect(tmp_path / "bot.sqlite3", isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")  # SQLite refuses every write from now on
            # GitHub's delivery failed (as the server's 500 after its 10 s busy wait)
            fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"
            missed = fake.send_webhook("pull_request", pr_payload(number=N, title=MATCHING_TITLE))
            assert missed.status_code == 0
            fake.webhook_url = f"{base}/webhook"  # what GitHub sends now meets the locked file
            wait_until(lambda: _asks(fake, missed.guid), what="a sweep asking for it", timeout=60)
            time.sleep(40.0)  # the outage goes on: two sweeps' writes time out meanwhile
            during = len(_asks(fake, missed.guid))
            stored = bool(rt.queue.held({missed.guid}))
            holder.execute("ROLLBACK")
            holder.close()
            holder = None
            accepted = len([c for c in fake.calls("POST") if c.status == 202])
            counted = _metric(rt, 'review_notes_redeliveries_total{outcome="asked"}')
    finally:
        if holder is not None:
            holder.execute("ROLLBACK")
            holder.close()
        rt.stop()
    assert not stored
    assert during == 1, f"the outage spent {during} asks of the event, not one"
    assert counted == accepted, f"GitHub accepted {accepted} asks; the metric counts {counted}"


def test_a_sweep_github_rate_limited_while_listing_is_counted_stopped_not_failed(
    tmp_path, fake_github, app_key
):
    """README (/metrics): review_notes_redelivery_sweeps_total by outcome, "`stopped`
    short by a rate limit or a stop, ... `failed`: alert on it". A rate limit answered
    to the listing (GET /app/hook/deliveries: a page of three days' worth after an
    outage is many calls) is counted `failed`, alerting on what the README says is a
    `stopped` sweep, and the log says the sweep was "not done" with no word that it ends
    with the limit."""
    fake = fake_github
    rt = build_runtime(app_settings(tmp_path, fake, app_key, max_retries=0))
    rt.start()
    rt.redeliver_every_s = 0  # the start's sweep only
    fake.inject("GET", "/app/hook/deliveries", Fault.primary_rate_limit(reset_in=600))
    try:
        thread = rt.redeliver_in_background()
        assert thread is not None
        thread.join(20)
        failed = _metric(rt, 'review_notes_redelivery_sweeps_total{outcome="failed"}')
        stopped = _metric(rt, 'review_notes_redelivery_sweeps_total{outcome="stopped"}')
    finally:
        rt.stop()
    assert (failed, stopped) == (0.0, 1.0), f"failed {failed}, stopped {stopped}"


def test_an_upgrade_killed_between_adding_by_bot_and_marking_the_old_rows_loses_nothing(
    tmp_path, fake_github, app_key
):
    """bot/queue.py: an older database gains `by_bot` (ALTER TABLE, committed alone),
    then the old release's own rows are marked (_MARK_OWN_ROWS), in a second statement,
    only "if 'by_bot' in added". A first start of the upgrade killed between the two
    (`docker stop`'s SIGKILL, the OOM killer; or the UPDATE refused: the file locked past
    the busy timeout) leaves the column added and the rows unmarked for good: the next
    start adds nothing, so marks nothing, and with no sweep kept yet its sweep looks back
    from the old release's own re-check, queued after GitHub failed to reach it. README
    (REVIEW_NOTES_REDELIVER_ON_START): "since the last delivery it received from GitHub,
    not counting the re-checks and deferred updates the bot queues itself".

    The database is left as such a start leaves it: the old release's rows (A's
    delivery 20 minutes ago, its own re-check of A just now), `by_bot` added at its
    default 0, no sweep kept; GitHub failed to deliver B 15 minutes ago."""
    from datetime import UTC, datetime, timedelta

    fake = fake_github
    b = N + 1
    fake.add_pull(DEFAULT_REPO, b, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(tmp_path, fake, app_key)
    build_runtime(settings).db.close()  # the schema, `by_bot` and the redelivery table

    def at(minutes_ago: float) -> str:
        when = datetime.now(UTC) - timedelta(minutes=minutes_ago)
        return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    conn = sqlite3.connect(tmp_path / "bot.sqlite3")
    with conn:
        for guid, action, received in (("gh-a", "opened", 20), ("gh-a#files-recheck-1", "x", 0)):
            conn.execute(
                "INSERT INTO deliveries (id, event, action, payload, state, received_at,"
                " updated_at, by_bot) VALUES (?, 'pull_request', ?, '{}', 'done', ?, ?, 0)",
                (guid, action, at(received), at(received)),
            )
        assert conn.execute("SELECT COUNT(*) FROM redelivery").fetchone()[0] == 0
    conn.close()
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # no server ran
    missed = fake.send_webhook("pull_request", pr_payload(number=b, title=MATCHING_TITLE))
    assert missed.status_code == 0
    missed.delivered_at = time.time() - 15 * 60

    rt = build_runtime(settings)  # the start after the killed one
    rt.redeliver_every_s = 0
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_url = f"{base}/webhook"
            thread = rt.redeliver_in_background()
            assert thread is not None
            thread.join(20)
            time.sleep(1.0)  # a redelivery asked for arrives at once
            held = bool(rt.queue.held({missed.guid}))
    finally:
        rt.stop()
    assert held, "GitHub's failed delivery of B was never asked for: the sweep began after it"

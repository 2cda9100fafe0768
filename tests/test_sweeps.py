"""The sweeps of GitHub's webhook delivery log with real parts: where a start's sweep
looks back to (past an old release's own rows, past redeliveries a killed sweep left
stored, past a secret rotated server first, past an upgrade killed mid-migration), a
running server's sweep asking again for a redelivery GitHub refused, the waiting after
an ask in a quiet repository or a write outage, a stop that outlasts a sweep's call,
and an upgrade's start on a locked database.

Real parts only: the fake GitHub over HTTP, the server in-process (serving_in_thread)
or as a process (`review-notes serve`), its SQLite file in tmp_path.
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime, timedelta

import pytest

import bot.db as bot_db
from bot import server
from bot.redelivery import MAX_ASKS
from bot.server import build_runtime, create_app
from tests.browser_kit import serving_in_thread
from tests.fake_github import DEFAULT_REPO, Fault
from tests.test_restarts import move_sweep_since_back
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    app_settings,
    free_port,
    pr_payload,
    wait_until,
)

N = 4242


def _held(rt, guid: str) -> bool:
    return bool(rt.queue.held({guid}))


def _soon(check, timeout: float) -> bool:
    """Whether `check()` comes true within `timeout` s: a wait that ends as soon as what
    a test expects has arrived, where a fixed sleep waited out its bound each time."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_redelivery_github_refused_once_is_asked_for_again_by_the_next_sweep(
    tmp_path, fake_github, app_key
):
    """docs/settings.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): the running server asks "for the
    webhooks it failed to deliver since the last such sweep (one that failed or stopped
    short: since the one before) ... an event is asked for at most 3 times". A sweep
    whose listing worked but whose ask GitHub refused once (a 502 on POST
    .../attempts, retries spent) counts as complete: `Sweeps.done` moves `since` past
    the event's failed attempt, so no later sweep lists it again. The event is asked
    for once, refused, and never again while the server runs (0 asks of 3, lost)."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    rt = build_runtime(app_settings(tmp_path, fake, app_key, max_retries=0))
    rt.redeliver_every_s = 0.5
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_secret = SECRET
            fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # the proxy is down
            missed = fake.send_webhook("pull_request", pr_payload(number=N, title=MATCHING_TITLE))
            assert missed.status_code == 0
            # the outage was ten minutes ago; the proxy is back
            missed.delivered_at = time.time() - 600
            fake.webhook_url = f"{base}/webhook"
            fake.inject("POST", "/app/hook/deliveries/*/attempts", Fault.error(502))
            assert rt.redeliver_in_background() is not None
            wait_until(lambda: fake.pending_faults() == 0, what="the refused ask")
            held = _soon(lambda: _held(rt, missed.guid), 4.0)  # eight more sweeps
            asks = fake.calls("POST", "/app/hook/deliveries/*/attempts")
    finally:
        rt.stop()
    assert held, (
        f"a redelivery GitHub refused once was never asked for again ({len(asks)} asks,"
        " the first refused): the next sweep looked back only to where the last began"
    )


def swept_at_start(settings, fake, then):
    """A server in-process whose start's sweep (no later one) has run; `then(rt)` while
    it still runs, and what it returns."""
    rt = build_runtime(settings)
    rt.redeliver_every_s = 0
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            fake.webhook_url = f"{base}/webhook"
            thread = rt.redeliver_in_background()
            assert thread is not None
            thread.join(20)
            return then(rt)
    finally:
        rt.stop()


def _rows(db) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT seq, id, received_at FROM deliveries ORDER BY seq").fetchall()
    finally:
        conn.close()


def _start_and_sweep(server, db, expected: str) -> tuple[set[str], list[str]]:
    """Start `server`, let its start's sweep run and what it asked for arrive (the
    delivery `expected`, or 1.5 s); the deliveries the database then holds, and the
    sweep's log lines."""
    with server.run():
        wait_until(
            lambda: "redelivery sweep since" in server.logs[-1].read_text(),
            what="the start's sweep",
        )
        _soon(lambda: expected in {r["id"] for r in _rows(db)}, 1.5)  # arrives at once
    lines = server.logs[-1].read_text().splitlines()
    return {r["id"] for r in _rows(db)}, [line for line in lines if "sweep since" in line]


@pytest.mark.parametrize("history", ["upgrade", "rollback then forward again"])
def test_the_first_start_after_an_upgrade_looks_back_past_the_old_releases_own_rows(
    tmp_path, fake_github, app_key, history
):
    """docs/operating.md ("Upgrading": an upgrade stops the old server, the new one's start sweeps):
    the start's sweep asks for what GitHub failed to deliver "since the last one the
    database received from GitHub (not counting the re-checks and deferred updates the
    bot queues itself)". The release before this one wrote its re-checks
    (`<id>#files-recheck-N`) and deferred updates (`review_notes_refresh:...`) without
    `by_bot`; add_missing_columns adds the column with DEFAULT 0, so every such row of
    the old release counts as GitHub's. The very start this fix is for (the first after
    the upgrade) still starts its sweep from the old release's own re-check, queued
    after GitHub failed to reach it, and the failed delivery is never asked for.

    Built with the old release (9e08fb8, from git) as a real server, as
    test_restarts.py's test of the same scenario, then this release started on its
    database. The same after a rollback (docs/upgrading.md: "Rolling back runs on the new database
    too"): the old release, on this release's database, writes its re-checks with the
    column's default, 0."""
    from tests.test_restarts import _as_utcnow, _utc, a_delivered_then_b_lost, move_sweep_since_back
    from tests.test_rollback import old_release
    from tests.webhook_kit import ROOT, LiveServer, app_env

    fake = fake_github
    a, b = 7961, 7962
    fake.add_pull(DEFAULT_REPO, a, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.add_pull(DEFAULT_REPO, b, files=MATCHING_FILES, title=MATCHING_TITLE)
    env = app_env(tmp_path, fake, app_key, REVIEW_NOTES_FILES_RECHECK_DELAYS="0.5,60")
    old_env = {**env, "PYTHONPATH": str(old_release(tmp_path, "9e08fb8"))}
    fake.webhook_secret = SECRET
    opened_a = pr_payload(number=a, title=MATCHING_TITLE)
    opened_a["pull_request"]["changed_files"] = 3  # GitHub's list (one file) lags the push
    db = tmp_path / "bot.sqlite3"
    if history != "upgrade":  # this release made the database (by_bot), then a rollback
        with LiveServer(tmp_path, {**env, "PYTHONPATH": str(ROOT)}).run():
            pass

    failed = a_delivered_then_b_lost(LiveServer(tmp_path, old_env), fake, opened_a, b, db)
    ids = [r["id"] for r in _rows(db)]
    assert ids[0] == "gh-a" and all(i.startswith("gh-a#files-recheck-") for i in ids[1:]), ids

    now = datetime.now(UTC)  # 20 minutes passed between A and the last re-check
    conn = sqlite3.connect(db)
    with conn:
        for r in _rows(db)[:-1]:
            moved = _as_utcnow(_utc(r["received_at"]) - timedelta(minutes=20))
            conn.execute("UPDATE deliveries SET received_at = ? WHERE seq = ?", (moved, r["seq"]))
    conn.close()
    move_sweep_since_back(db, 20)  # this release's sweep before the rollback, as long ago
    failed.delivered_at = (now - timedelta(minutes=15)).timestamp()

    new = LiveServer(tmp_path, {**env, "PYTHONPATH": str(ROOT)})  # the upgrade
    fake.webhook_url = f"{new.base}/webhook"
    held, swept = _start_and_sweep(new, db, "gh-b")
    assert "gh-b" in held, (
        "the upgrade's start swept from the old release's own re-check: GitHub's failed"
        f" delivery of PR B was never asked for again: {swept}"
    )


def test_the_upgrades_start_on_a_database_another_process_holds_is_named_as_locked(tmp_path):
    """docs/reliability.md (start-up refusals): the server refuses to start "on a database file
    another process holds past the 10 s busy timeout (a `VACUUM`: named, as locked,
    exit 1)". The first start of this release on the previous release's database (every
    upgrade) writes before claim_pr_state: _open_database adds the new `by_bot` column
    (ALTER TABLE), and its "database is locked" is turned into a REVIEW_NOTES_DB_PATH
    settings error ("can this user, uid N, write to it and to its directory?", exit 2):
    the operator is sent to check permissions instead of waiting for the VACUUM."""
    from tests.test_restarts import serve_while_another_holds
    from tests.test_rollback import old_release
    from tests.webhook_kit import LiveServer, base_env

    old = base_env(
        tmp_path, PYTHONPATH=str(old_release(tmp_path, "9e08fb8")), GITHUB_WEBHOOK_SECRET=SECRET
    )
    with LiveServer(tmp_path, old).run():  # the previous release's database
        pass
    r = serve_while_another_holds(tmp_path, tmp_path / "bot.sqlite3")
    assert "Traceback" not in r.stderr, r.stderr[-1500:]
    assert r.returncode == 1, (r.returncode, r.stderr[-800:])
    assert "locked by another process" in r.stderr, r.stderr[-800:]


def test_a_stopped_server_calls_github_no_more_even_when_a_sweeps_call_outlasts_the_stop(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Runtime._join_redelivery: "a stopped server must not leave it calling GitHub with
    a closed client and database". A sweep now runs every hour, so a stop often meets
    one in flight; when its call outlasts the 10 s join (REVIEW_NOTES_HTTP_TIMEOUT is
    15 s by default; GitHub slow), stop() closes the client and returns, and the
    thread's retry then calls GitHub again, after the stop, on the closed client.
    Played at a tenth of those times (a 1 s join, a 2 s timeout, a 3 s answer): the
    same order of events, without waiting out the real ones."""
    fake = fake_github
    monkeypatch.setattr(server, "REDELIVERY_JOIN_SECONDS", 1.0)
    rt = build_runtime(app_settings(tmp_path, fake, app_key, http_timeout=2.0))
    rt.start()
    fake.inject("GET", "/app/hook/deliveries", Fault.slow(3.0))
    listings = lambda: fake.calls("GET", "/app/hook/deliveries")  # noqa: E731
    try:
        assert rt.redeliver_in_background() is not None
        wait_until(listings, what="the start's sweep listing GitHub's deliveries")
    finally:
        rt.stop()
    stopped = time.monotonic()
    time.sleep(4.0)  # the timed out call's retry (after a backoff of at most 1 s)
    after = [c for c in listings() if c.time > stopped]
    assert not after, f"GitHub called {len(after)} times after the server stopped"


def test_a_server_killed_in_the_middle_of_its_starts_sweep_loses_nothing(
    tmp_path, fake_github, app_key
):
    """docs/reliability.md (failures): "A killed server loses nothing". The start's
    sweep asks for what GitHub failed to deliver oldest first, and each redelivery it
    asked for is stored as it arrives, now. A server killed while the sweep is still
    asking (the OOM killer, `docker kill`, a stop's grace period over) leaves those
    redeliveries as the newest deliveries "GitHub sent": the next start's sweep looks
    back only to them (minus 5 minutes), and the events not asked for yet, which GitHub
    failed to deliver hours ago, are never asked for.

    Three PR events GitHub failed to deliver two hours ago (the server was down); the
    restarted server asks for the first (it arrives), GitHub is slow to answer the ask
    for the second, the server is killed; the next start must ask for the third."""
    from tests.webhook_kit import LiveServer, app_env

    fake = fake_github
    numbers = [7971, 7972, 7973]
    for n in numbers:
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # no server runs
    two_hours_ago = time.time() - 7200
    missed = []
    for i, n in enumerate(numbers):
        d = fake.send_webhook("pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        assert d.status_code == 0
        d.delivered_at = two_hours_ago + i
        missed.append(d)
    db = tmp_path / "bot.sqlite3"
    server = LiveServer(tmp_path, app_env(tmp_path, fake, app_key))
    fake.webhook_url = f"{server.base}/webhook"
    fake.inject("POST", f"/app/hook/deliveries/{missed[1].id}/attempts", Fault.slow(30.0))
    with server.run() as proc:
        wait_until(
            lambda: missed[0].guid in {r["id"] for r in _rows(db)},
            what="the first event asked for and stored",
        )
        wait_until(
            lambda: fake.calls("POST", f"/app/hook/deliveries/{missed[1].id}/attempts"),
            what="the ask for the second under way",
        )
        proc.kill()  # the OOM killer
        proc.wait()
    held, swept = _start_and_sweep(server, db, missed[2].guid)
    assert missed[2].guid in held, (
        f"the third event, never asked for, is lost: the next start swept {swept}"
    )


def test_rotating_the_webhook_secret_server_first_loses_nothing_as_the_readme_says(
    tmp_path, fake_github, app_key
):
    """docs/operating.md ("Rotating secrets"): "The webhook secret: change it in the App's settings
    first, then restart the server with the new `GITHUB_WEBHOOK_SECRET` ... (the other
    order loses nothing either, but refuses more)". In the other order the server runs
    with the new secret while GitHub still signs with the old one: what GitHub sends
    then is refused (401); once the App's settings change, deliveries are stored again
    and the newest moves past the refused ones, so no start's sweep ever looks back to
    them. Only a running server's sweep asks for them, and with
    REVIEW_NOTES_REDELIVER_EVERY_MINUTES=0 ("0: only at start") none does: the refused
    event is lost, even across a restart."""
    new_secret = "the-new-webhook-secret"
    a, b = 7981, 7982
    fake = fake_github
    for n in (a, b):
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(
        tmp_path, fake, app_key, github_webhook_secret=new_secret, redeliver_every_minutes=0
    )

    refused = []

    def rotate(rt) -> None:  # the server restarted with the new secret; GitHub has the old
        fake.webhook_secret = SECRET
        refused.append(fake.send_webhook("pull_request", pr_payload(number=a)))
        assert refused[0].status_code == 401
        refused[0].delivered_at = time.time() - 600  # ten minutes before the settings change
        move_sweep_since_back(tmp_path / "bot.sqlite3", 10)  # and the start, before it
        fake.webhook_secret = new_secret  # the App's settings changed
        stored = fake.send_webhook("pull_request", pr_payload(number=b, title=MATCHING_TITLE))
        assert stored.status_code == 202

    swept_at_start(settings, fake, rotate)
    swept_at_start(settings, fake, lambda rt: _soon(lambda: _held(rt, refused[0].guid), 1.5))
    rt = build_runtime(settings)
    try:
        held = _held(rt, refused[0].guid)
    finally:
        rt.db.close()
    assert held, "the delivery refused while GitHub still had the old secret is lost"


# --- redelivery sweeps through outages, incidents and an upgrade killed midway ---

N2 = 5151


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
    """docs/operating.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): the running server's sweeps make
    "an outage in front of a running server ... lose nothing". After a sweep whose
    redeliveries GitHub accepted, the next sweeps wait "until a delivery from GitHub is
    stored again"; in a quiet repository nothing else comes (a night, a weekend), so the
    gate never opens and the event is never asked for again while the server runs (and
    GitHub drops it after 72 h).

    The common case: an upgrade's start sweep runs as soon as the server listens, before
    the proxy in front routes to it (an ingress whose readiness probe has not passed yet,
    a tunnel started after it): GitHub accepts the ask, its redelivery fails. A second
    later the proxy routes; the sweeps (every 0.5 s here) then only ever wait."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N2, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # no server runs
    missed = fake.send_webhook("pull_request", pr_payload(number=N2, title=MATCHING_TITLE))
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
    """docs/settings.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): "an event is asked for at most 3
    times (accepted or refused) per server run". GitHub's redelivery endpoint answers 5xx
    for three sweeps (an incident on GitHub's side: three hours at the default 60
    minutes): the third refusal gives the event up and moves the kept `since` past it,
    so the next server run (an upgrade, a restart) never asks for it either: lost for
    good, though no ask of it was ever accepted and docs/settings.md counts per run."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N2, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = app_settings(tmp_path, fake, app_key, max_retries=0)
    fake.webhook_secret = SECRET
    fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"  # the proxy is down
    missed = fake.send_webhook("pull_request", pr_payload(number=N2, title=MATCHING_TITLE))
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
    assert given_up == 0.0  # a 5xx refusal is GitHub's incident: not one of its asks

    def arrived(rt) -> bool:  # the next server run: an upgrade
        return _soon(lambda: _held(rt, missed.guid), 1.5)  # asked for, it arrives at once

    held = swept_at_start(settings, fake, arrived)
    assert held, (
        f"the event refused {len(_asks(fake, missed.guid))} times during GitHub's incident"
        " is never asked for again, not even by the next server run"
    )


# kills: bot/queue.py:DeliveryQueue.run_again (hand) a write transaction in every sweep,
#   with nothing to put back (the sweep failed in a write outage)
def test_an_outage_that_fails_the_databases_writes_costs_an_event_one_ask(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/operating.md (REVIEW_NOTES_REDELIVER_EVERY_MINUTES): "an outage in front of a running
    server (a proxy, TLS, a full disk answering 500) loses nothing: after a sweep whose
    redeliveries went out, the next ones wait (asking nothing) until a delivery from
    GitHub is stored again, so an outage costs an event one ask". When SQLite refuses
    writes (a full disk; here another process holding the write lock past the 10 s busy
    timeout, as a VACUUM does) GitHub's deliveries get 500s, and so does the sweep's own
    write of where it left off (keep_sweep_since): _sweep reports the whole sweep
    `failed`, returns no time to wait from, and the next sweep asks again at once,
    during the same outage: every sweep spends an ask (3 and the event is given up).
    The asks GitHub accepted are not counted in review_notes_redeliveries_total either.
    Played at a tenth of its times: a busy timeout of 1 s, sweeps every 0.05 s, 4 s of
    outage (the same 80 sweep intervals, four busy timeouts)."""
    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 1.0)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N2, files=MATCHING_FILES, title=MATCHING_TITLE)
    rt = build_runtime(app_settings(tmp_path, fake, app_key, workers=1))
    rt.redeliver_every_s = 0.05
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
            # GitHub's delivery failed (as the server's 500 after its busy wait)
            fake.webhook_url = f"http://127.0.0.1:{free_port()}/webhook"
            missed = fake.send_webhook("pull_request", pr_payload(number=N2, title=MATCHING_TITLE))
            assert missed.status_code == 0
            fake.webhook_url = f"{base}/webhook"  # what GitHub sends now meets the locked file
            wait_until(lambda: _asks(fake, missed.guid), what="a sweep asking for it", timeout=30)
            time.sleep(4.0)  # the outage goes on: two sweeps' writes time out meanwhile
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
    # 80 sweep intervals of outage: asks backing off (after 2, then 4 intervals), at most
    # MAX_ASKS in this run; the next run asks again (kept_since)
    assert 1 <= during <= MAX_ASKS, f"the outage spent {during} asks of the event"
    assert counted == accepted, f"GitHub accepted {accepted} asks; the metric counts {counted}"


def test_a_sweep_github_rate_limited_while_listing_is_counted_stopped_not_failed(
    tmp_path, fake_github, app_key
):
    """docs/operating.md (/metrics): review_notes_redelivery_sweeps_total by outcome, "`stopped`
    short by a rate limit or a stop, ... `failed`: alert on it". A rate limit answered
    to the listing (GET /app/hook/deliveries: a page of three days' worth after an
    outage is many calls) is counted `failed`, alerting on what docs/operating.md says is a
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
    from the old release's own re-check, queued after GitHub failed to reach it. docs/settings.md
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

    def arrived(rt) -> bool:  # the start after the killed one
        return _soon(lambda: _held(rt, missed.guid), 1.0)  # asked for, it arrives at once

    held = swept_at_start(settings, fake, arrived)
    assert held, "GitHub's failed delivery of B was never asked for: the sweep began after it"

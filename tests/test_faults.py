"""GitHub failing in every way it does, through the whole app (webhook -> queue ->
worker -> GitHubClient -> fake GitHub over HTTP).

For each fault, on every route a delivery uses (changed files, comment list, comment
create, comment edit): the delivery still ends with the right comment, exactly once,
and the fake's recorded times show no retry sooner than GitHub asked (Retry-After, or
the back-off of bot.github_retry). A delivery that keeps failing ends
`failed` with its error in /healthz and /metrics, and `review-notes retry` finishes
it once GitHub is back. (The retry rules themselves are unit-tested in
test_github_client.py; test_e2e.py has the basic retry-then-succeed path.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.github_client import GitHubClient
from bot.github_retry import RetryPolicy
from bot.queue import MAX_DEFERRALS
from tests.conftest import ManualTime
from tests.fake_github import DEFAULT_APP_ID, DEFAULT_APP_SLUG, DEFAULT_REPO, FakeGitHub, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    post,
    pr_payload,
    serving,
    wait_idle,
    wait_until,
)

BOT = f"{DEFAULT_APP_SLUG}[bot]"
N = 7301
BACKOFF = 0.1  # the client's first backoff; jitter makes the first wait 0.05 .. 0.1 s

FILES = ("GET", f"/repos/{DEFAULT_REPO}/pulls/{N}/files")
LIST = ("GET", f"/repos/{DEFAULT_REPO}/issues/{N}/comments")
CREATE = ("POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments")
EDIT = ("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/*")
READS_AND_CREATE = (FILES, LIST, CREATE)


@dataclass(frozen=True)
class Case:
    fault: Callable[[], Fault]
    opened: tuple[tuple[str, str], ...]  # routes faulted once while the PR is opened
    edited: tuple[tuple[str, str], ...] = (EDIT,)  # ... and while the comment is edited
    min_gap: float = 0.5 * BACKOFF  # the least time before the same request again
    timeout: float = 10.0  # REVIEW_NOTES_HTTP_TIMEOUT


CASES = {
    "500": Case(lambda: Fault.error(500), READS_AND_CREATE),
    "502 after GitHub did the write": Case(lambda: Fault.error(502, apply=True), READS_AND_CREATE),
    "503": Case(lambda: Fault.error(503), READS_AND_CREATE),
    "dropped connection": Case(Fault.dropped, READS_AND_CREATE),
    "dropped after GitHub did the write": Case(lambda: Fault.dropped(apply=True), READS_AND_CREATE),
    # GitHub does the work and answers after the client gave up (1 s)
    "slow past the client timeout": Case(
        lambda: Fault.slow(2.5), (CREATE,), (), min_gap=1 + 0.5 * BACKOFF, timeout=1
    ),
    "403 secondary rate limit, Retry-After": Case(
        lambda: Fault.secondary_rate_limit(retry_after=1), (CREATE,), (), min_gap=1
    ),
    "429 Retry-After": Case(lambda: Fault.too_many_requests(retry_after=1), (FILES,), (), 1),
}


def live_settings(tmp_path, fake: FakeGitHub, key, **kw):
    return app_settings(
        tmp_path,
        fake,
        key,
        **{"retry_backoff": BACKOFF, "max_retries": 3, "retry_max_wait": 5, "workers": 2, **kw},
    )


def github_on(settings, key, time: ManualTime) -> GitHubClient:
    """The client `live_settings` give the server, on the test's clock: the waits are
    the test's to let pass."""
    return GitHubClient(
        base_url=settings.github_api_url,
        app_id=DEFAULT_APP_ID,
        private_key=key.private_pem,
        retry=RetryPolicy(
            attempts=settings.max_retries + 1,
            backoff=settings.retry_backoff,
            max_wait=settings.retry_max_wait,
            sleep_max=settings.retry_sleep_max,
        ),
        seconds_between_requests=0,
        seconds_between_writes=0,
        clock=time.clock,
        sleep=time.sleep,
    )


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


def ours(fake: FakeGitHub) -> list:
    return [c for c in fake.comments(DEFAULT_REPO, N) if c.user.login == BOT]


def inject(fake: FakeGitHub, routes, fault: Callable[[], Fault]) -> None:
    for method, path in routes:
        fake.inject(method, path, fault())


def deliver(client, rt, **kw) -> str:
    return deliver_pr(client, rt, timeout=60, number=N, **kw)["delivery"]


def retried_no_sooner_than(fake: FakeGitHub, min_gap: float) -> int:
    """After each faulted request, the client's next request (the same one again, or
    the comment list that looks for a write GitHub may have done) came no sooner than
    `min_gap` seconds; returns how many faults were checked. One delivery at a time."""
    requests = fake.requests
    checked = 0
    for i, r in enumerate(requests):
        if r.faulted:
            after = requests[i + 1]
            assert after.time - r.time >= min_gap, (r, after)
            checked += 1
    return checked


@pytest.mark.parametrize("name", list(CASES))
def test_each_fault_on_each_route_still_gives_one_right_comment(
    name, tmp_path, fake_github, app_key
):
    case, fake = CASES[name], fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key, http_timeout=case.timeout)
    with serving(settings) as (client, rt):
        inject(fake, case.opened, case.fault)
        first = deliver(client, rt, title=MATCHING_TITLE)
        assert fake.pending_faults() == 0  # every route met its fault
        (comment,) = ours(fake)
        created_id, created_body = comment.id, comment.body

        inject(fake, case.edited, case.fault)
        second = deliver(client, rt, **labeled_one_more_note(updated_at="2026-09-01T11:00:00Z"))
        assert fake.pending_faults() == 0
        (comment,) = ours(fake)  # still exactly one comment: edited in place
        assert comment.id == created_id and comment.body != created_body
        assert rt.queue.get(first).state == rt.queue.get(second).state == "done"
    faulted = len(case.opened) + len(case.edited)
    assert retried_no_sooner_than(fake, case.min_gap) == faulted


def test_expired_installation_tokens_are_replaced_mid_stream(tmp_path, fake_github, app_key):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        deliver(client, rt, title=MATCHING_TITLE)
        assert fake.expire_tokens() == 1  # an hour later: GitHub answers 401
        deliver(client, rt, **labeled_one_more_note(updated_at="2026-09-01T11:00:00Z"))
        assert rt.queue.counts()["failed"] == 0
    (comment,) = ours(fake)
    assert "401" in {str(r.status) for r in fake.requests}  # the old token was refused
    assert len(fake.calls("POST", "/app/installations/*/access_tokens")) == 2


def test_a_rate_limit_pauses_every_worker_not_only_the_one_it_answered(
    tmp_path, fake_github, app_key, manual_time
):
    """GitHub: "continuing to make requests while you are rate limited may result in the
    banning of your integration". The limit is the installation's, so while one worker
    waits out a Retry-After, another worker's delivery for another PR waits too (reads
    and writes alike) and goes on when the time GitHub gave has come."""
    fake, other = fake_github, N + 1
    for number in (N, other):
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings, github_on(settings, app_key, manual_time)) as (client, rt):
        fake.inject(*CREATE, Fault.secondary_rate_limit(retry_after=3))
        first = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        wait_until(lambda: manual_time.sleepers == 1, what="the limited create's wait")
        # meanwhile another PR event arrives; the second worker takes it at once
        r = post(client, "pull_request", pr_payload(number=other, title=MATCHING_TITLE))
        second = r.json()["delivery"]
        wait_until(
            lambda: manual_time.sleepers == 2 or rt.queue.get(second).state == "done",
            what="the second worker",
        )
        assert fake.calls(path=f"/repos/*/{other}/*") == [], "called GitHub while limited"
        manual_time.advance(3)
        drain(rt)
        deliveries = (first.json()["delivery"], second)
        assert [rt.queue.get(d).state for d in deliveries] == ["done", "done"]
    assert manual_time.slept == [3, 3]  # each worker waited the Retry-After, once
    assert len(ours(fake)) == 1
    assert [c.user.login for c in fake.comments(DEFAULT_REPO, other)] == [BOT]


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of a Prometheus text page (0 when absent)."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


def test_a_delivery_rate_limited_for_long_waits_in_the_queue_visible_and_runs_then(
    tmp_path, fake_github, app_key, manual_time
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings, github_on(settings, app_key, manual_time)) as (client, rt):
        # GitHub asks for an hour: over retry_sleep_max, so no retry and no hour-long
        # wait in a worker; the delivery goes back to the queue until then, not failed.
        fake.inject(*CREATE, Fault.secondary_rate_limit(retry_after=3600))
        r = post(client, "pull_request", pr_payload(number=N, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        assert len(fake.calls(*CREATE)) == 1  # not retried sooner than asked
        health = client.get("/healthz").json()
        assert (health["pending"], health["failed"]) == (1, 0)
        assert "asked to wait 3600s" in rt.queue.get(delivery).last_error
        assert health["github_paused_for"] == 3600  # on the test's clock
        text = client.get("/metrics").text
        assert metric(text, "review_notes_github_ratelimit_pauses_total") == 1
        assert metric(text, "review_notes_github_ratelimit_paused_seconds") == 3600
        deliveries = "review_notes_deliveries_total"
        assert metric(text, deliveries, event="pull_request", outcome="deferred") == 1
        assert metric(text, deliveries, event="pull_request", outcome="failed") == 0
        assert metric(text, "review_notes_queue_depth", state="pending") == 1
        comments = "/repos/{owner}/{repo}/issues/{number}/comments"
        calls = "review_notes_github_calls_total"
        assert metric(text, calls, method="POST", endpoint=comments, status="403") == 1
        assert ours(fake) == []

        # the hour is over (the queue's time is the wall clock's: moved by hand here)
        manual_time.advance(3600)
        rt.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = ?", (delivery,))
        rt.queue._notify()
        wait_until(lambda: rt.queue.get(delivery).state == "done", what="the delivery")
        assert len(ours(fake)) == 1
        health = client.get("/healthz").json()
        assert (health["failed"], health["github_paused_for"]) == (0, 0)
        text = client.get("/metrics").text
        assert metric(text, deliveries, event="pull_request", outcome="done") == 1
        assert metric(text, calls, method="POST", endpoint=comments, status="201") == 1


# Writes GitHub applied but never confirmed: the PR's state is
# saved only once GitHub confirms a write, and two shortcuts trusted it without asking
# ("no note matches and no comment known: skip", "same body hash as posted: no call"),
# so such a write left stale notes up for good, `review-notes retry` or not (the failed
# delivery is older than the event that should fix it).

PLAIN_FILES = ["vllm/utils/misc.py"]  # the title alone links the note
PASS = Fault()  # answered normally: a later fault in the same queue hits a later call
RETITLED = dict(action="edited", changes={"title": {"from": MATCHING_TITLE}})


def at(minute: int) -> str:
    return f"2026-09-01T10:{minute:02d}:00Z"


@contextmanager
def notes_posted(tmp_path, fake: FakeGitHub, key) -> Iterator[tuple[Any, Any]]:
    """The server, live (`live_settings`), once PR N's first delivery has posted its notes
    comment (a note matches it): the client and the runtime."""
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, key)) as (client, rt):
        deliver(client, rt, title=MATCHING_TITLE, updated_at=at(0))
        yield client, rt


def test_a_create_github_applied_but_never_confirmed_is_found_and_edited_later(
    tmp_path, fake_github, app_key
):
    # the POST answered 502 after GitHub stored the comment, then each look for it 502:
    # the delivery fails and the state never learns the comment's id. Once no note
    # matches, the next event still looks for it and says so in it.
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=PLAIN_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        fake.inject(*CREATE, Fault.error(502, apply=True))
        fake.inject(*LIST, PASS, *[Fault.error(502)] * 3)
        first = deliver(client, rt, title=MATCHING_TITLE, updated_at=at(0))
        assert rt.queue.get(first).state == "failed" and fake.pending_faults() == 0
        (comment,) = ours(fake)  # GitHub did store it

        fake.pull(DEFAULT_REPO, N).title = UNRELATED_TITLE
        deliver(client, rt, title=UNRELATED_TITLE, updated_at=at(5), **RETITLED)
        (comment,) = ours(fake)
        assert "No review note matches this pull request any more" in comment.body
        state = rt.ctx.prs.get(DEFAULT_REPO, N)
        assert (state.comment_id, state.unconfirmed) == (comment.id, False)


def test_a_create_whose_id_could_not_be_saved_is_found_and_edited_later(
    tmp_path, fake_github, app_key, monkeypatch
):
    # the same end from SQLite: the comment is created, then saving its id fails
    # ("database is locked", e.g. a long `review-notes` command on the file)
    import sqlite3

    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=PLAIN_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        real_put = rt.ctx.prs.put
        locked = []

        def put(state):
            if state.comment_id is not None and not locked:
                locked.append(state.comment_id)
                raise sqlite3.OperationalError("database is locked")
            return real_put(state)

        monkeypatch.setattr(rt.ctx.prs, "put", put)
        first = deliver(client, rt, title=MATCHING_TITLE, updated_at=at(0))
        assert locked and rt.queue.get(first).state == "failed"
        assert len(ours(fake)) == 1

        fake.pull(DEFAULT_REPO, N).title = UNRELATED_TITLE
        deliver(client, rt, title=UNRELATED_TITLE, updated_at=at(5), **RETITLED)
        (comment,) = ours(fake)
        assert comment.id == locked[0]
        assert "No review note matches this pull request any more" in comment.body


def test_an_edit_github_applied_but_never_confirmed_is_undone_when_the_pr_goes_back(
    tmp_path, fake_github, app_key
):
    # a label adds a note: GitHub applies each PATCH but answers 502 every time, so the
    # state kept the hash of the text before. The PR goes back to what it was: the
    # comment must too, though the render equals that hash.
    fake = fake_github
    with notes_posted(tmp_path, fake, app_key) as (client, rt):
        (comment,) = ours(fake)
        first_body = comment.body

        fake.inject(*EDIT, *[Fault.error(502, apply=True)] * 4)
        more = deliver(client, rt, **labeled_one_more_note(updated_at=at(5)))
        assert rt.queue.get(more).state == "failed" and fake.pending_faults() == 0
        (comment,) = ours(fake)
        assert comment.body != first_body  # GitHub did apply the edit

        back = dict(action="edited", changes={"title": {"from": "x"}}, labels=())
        deliver(client, rt, title=MATCHING_TITLE, updated_at=at(9), **back)
        (comment,) = ours(fake)
        assert comment.body == first_body
        assert not rt.ctx.prs.get(DEFAULT_REPO, N).unconfirmed


def test_a_comment_deleted_between_list_and_edit_is_a_deletion_not_a_failure(
    tmp_path, fake_github, app_key, monkeypatch
):
    # a maintainer deletes the notes comment while a delivery is between its comment
    # list and its PATCH: GitHub answers 404. That failed the whole delivery; it is the
    # deletion a later list would have shown: nothing posted, the PR opted out as by
    # `/notes off`
    from tests import fake_github as fg

    fake = fake_github
    with notes_posted(tmp_path, fake, app_key) as (client, rt):
        real_edit = fake._edit_comment
        raced = []

        def deleted_meanwhile(who, params, query, body):
            if not raced:  # the human's DELETE landed just before our PATCH
                raced.append(params["cid"])
                fake._comments.pop(int(params["cid"]), None)
                raise fg._HTTPError(404, "Not Found")
            return real_edit(who, params, query, body)

        monkeypatch.setattr(fake, "_edit_comment", deleted_meanwhile)
        d = deliver(client, rt, **labeled_one_more_note(updated_at=at(5)))
        assert raced
        state = rt.queue.get(d)
        assert (state.state, ours(fake)) == ("done", []), state.last_error
        assert rt.ctx.prs.get(DEFAULT_REPO, N).opted_out


@pytest.mark.parametrize("why", ["a 404 of GitHub's own", "the repository taken off the App"])
def test_a_404_to_the_edit_that_was_no_deletion_fails_the_delivery_and_changes_nothing(
    tmp_path, fake_github, app_key, why
):
    # the edit's 404 was taken for a maintainer's deletion whatever answered it: the PR's
    # updates turned off for good, its comment (still there) forgotten. Only a comment
    # GitHub no longer shows, in a repository it still shows, was deleted; any other 404
    # fails the delivery, and `review-notes retry` edits the comment once GitHub sees it
    fake = fake_github
    with notes_posted(tmp_path, fake, app_key) as (client, rt):
        (comment,) = ours(fake)
        first_body = comment.body
        if why == "a 404 of GitHub's own":
            fake.inject(*EDIT, Fault.not_found())
        else:
            fake.inject(*EDIT, Fault.landed_after(lambda: fake.take_off(DEFAULT_REPO)))
        d = deliver(client, rt, **labeled_one_more_note(updated_at=at(5)))
        state = rt.ctx.prs.get(DEFAULT_REPO, N)
        assert (state.opted_out, state.comment_id) == (False, comment.id)
        assert [c.body for c in ours(fake)] == [first_body]
        failed = rt.queue.get(d)
        assert failed.state == "failed" and "404" in (failed.last_error or "")

        if why != "a 404 of GitHub's own":
            assert "not installed" in (failed.last_error or "")
            return  # (a retry waits for the App installed on it again: test_e2e.py)
        assert rt.queue.retry() == [d]
        drain(rt)
        assert rt.queue.get(d).state == "done"
        (edited,) = ours(fake)
        assert edited.id == comment.id and edited.body != first_body


# --- rate limits per installation, and the time GitHub gave ---------------------------

OTHER_REPO = "acme/other"
OTHER_INSTALLATION = 2002


def test_one_installations_rate_limit_does_not_stall_another_installations_deliveries(
    tmp_path, fake_github, app_key, manual_time
):
    """github_facts.md §3.2/§3.3: rate limits are per installation token. The workers
    slept out a limit (Retry-After up to REVIEW_NOTES_RETRY_MAX_WAIT), the one answered
    and every other taking a delivery of that installation, so with both workers asleep
    another installation's delivery sat pending. Now a wait over retry_sleep_max puts
    the limited installation's deliveries back (the second unsent) and frees the worker."""
    fake = fake_github
    fake.add_installation(OTHER_INSTALLATION, [OTHER_REPO])
    for number in (7301, 7302):
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    fake.add_pull(OTHER_REPO, 1, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(
        tmp_path, fake, app_key, repos=f"{DEFAULT_REPO},{OTHER_REPO}", retry_sleep_max=1
    )
    with serving(settings, github_on(settings, app_key, manual_time)) as (client, rt):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/7301/files", Fault.too_many_requests(3))
        limited = []
        for n in (7301, 7302):  # the second after the first's answer: the pause under way
            payload = pr_payload(number=n, title=MATCHING_TITLE)
            limited.append(post(client, "pull_request", payload).json()["delivery"])
            wait_until(lambda: rt.queue.get(limited[-1]).deferrals == 1, what="a put-back")
        assert fake.calls(path=f"/repos/{DEFAULT_REPO}/*/7302/*") == []  # not sent
        other = pr_payload(number=1, title=MATCHING_TITLE, repo=OTHER_REPO)
        other["installation"]["id"] = OTHER_INSTALLATION
        other["repository"]["id"] = fake.add_repo(OTHER_REPO).id  # its own id
        delivery = post(client, "pull_request", other).json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).state == "done", timeout=5, what="2002's")
        assert manual_time.sleepers == 0  # no worker asleep in 1001's pause
        manual_time.advance(3)  # the limit's end: the put-back deliveries run then
        assert wait_idle(rt.queue, 20)
        assert [rt.queue.get(d).state for d in limited] == ["done", "done"]
    assert len(fake.comments(DEFAULT_REPO, 7302)) == 1


def test_a_delivery_failed_on_a_rate_limit_runs_again_once_the_time_github_gave_has_come(
    tmp_path, fake_github, app_key
):
    """github_facts.md §3.2/§3.3 (retry after the time given), §1.3 (GitHub does not
    redeliver failed deliveries): a rate limit asking for longer than the cap failed the
    delivery for good, GitHubError.retry_after thrown away, until an operator ran
    `review-notes retry`. Scaled down: cap 1 s, Retry-After 2 s, real time."""
    fake = fake_github
    n = 7401
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key, retry_max_wait=1, retry_sleep_max=1)
    with serving(settings) as (client, rt):
        fake.inject(
            "POST", f"/repos/{DEFAULT_REPO}/issues/{n}/comments", Fault.too_many_requests(2)
        )
        delivery = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = delivery.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).state == "done", timeout=12, what="it")
        posts = fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{n}/comments")
        assert posts[1].time - posts[0].time >= 2  # not before the time GitHub gave
    assert [c.user.login for c in fake.comments(DEFAULT_REPO, n)] == ["review-notes[bot]"]


# --- a put-back that fails a delivery is counted failed -------------------------------


def test_the_put_back_that_fails_a_delivery_is_counted_failed_not_deferred(
    tmp_path, fake_github, app_key, caplog, manual_time
):
    """Runtime.process counted any rate limit error as outcome="deferred"; the
    MAX_DEFERRALS-th one makes `DeliveryQueue.defer` fail the delivery, so /metrics
    showed a put-back that never happened and no failure, and the worker logged
    "(9 of 8 in a row)". Counted and logged now from what `defer` did."""
    fake = fake_github
    n = 7501
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings, github_on(settings, app_key, manual_time)) as (client, rt):
        for _ in range(2):  # the first run's and the last's own call
            fake.inject(
                "GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", Fault.too_many_requests(60)
            )
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        # as after MAX_DEFERRALS put-backs, once the minute is over
        rt.db.execute(
            "UPDATE deliveries SET deferrals = ?, not_before = NULL WHERE id = ?",
            (MAX_DEFERRALS, delivery),
        )
        manual_time.advance(60)
        rt.queue._notify()
        wait_until(lambda: rt.queue.get(delivery).state == "failed", what="the give-up")
        text = client.get("/metrics").text
        deliveries = "review_notes_deliveries_total"
        assert metric(text, "review_notes_queue_depth", state="failed") == 1
        assert metric(text, deliveries, event="pull_request", outcome="deferred") == 1
        assert metric(text, deliveries, event="pull_request", outcome="failed") == 1
    put_backs = [m for m in caplog.messages if "put back for" in m]
    assert len(put_backs) == 1 and f"(1 of {MAX_DEFERRALS} " in put_backs[0], put_backs


# --- an outcome is counted once stored ------------------------------------------------


def test_an_outcome_not_stored_is_not_counted():
    # outcomes are counted from what the queue stored, but run_one counted "done" before
    # storing it: stopping while the store failed (database busy), the delivery stayed
    # processing to run again at the next start, yet /metrics had counted it done
    from bot.queue import Delivery
    from bot.workers import Workers

    class Busy:
        def complete(self, delivery_id):
            raise RuntimeError("database is locked")

        fail = complete

    told: list[str] = []
    workers = Workers(Busy(), lambda d: None, 1, counted=lambda d, o: told.append(o))
    workers._stop.set()  # stopping: _record gives up after the first try
    delivery = Delivery.__new__(Delivery)
    fields = dict(
        id="d-1",
        event="pull_request",
        action="opened",
        payload={},
        repo="vllm-project/vllm",
        pr_number=1,
        attempts=1,
        deferrals=0,
    )
    for name, value in fields.items():
        object.__setattr__(delivery, name, value)
    workers.run_one(delivery)
    assert told == []


# --- rate-limit headers too far off to be a date, or no number ------------------------


def _retry_after_past_dates() -> Fault:
    fault = Fault.too_many_requests(retry_after=None)
    fault.headers["Retry-After"] = "1e20"  # finite, but past datetime.max from now
    return fault


def _reset_past_dates() -> Fault:
    fault = Fault.primary_rate_limit()
    fault.reset_in = None
    fault.headers.update({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1e20"})
    return fault


# kills: bot/github_errors.py:retry_after_seconds a Retry-After too far off for a date taken
#        as a wait: putting the delivery back raised OverflowError, retried without end
# kills: bot/github_errors.py:until_reset a reset too far off for a date taken as the wait:
#        dating the identity's pause raised OverflowError and the delivery failed
@pytest.mark.parametrize(
    ("n", "limit"),
    [(7601, _retry_after_past_dates), (7602, _reset_past_dates)],
    ids=["retry-after", "reset"],
)
def test_a_limit_whose_wait_is_too_far_off_to_be_a_date_is_waited_out_as_a_secondary_one(
    tmp_path, fake_github, app_key, n, limit
):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", limit())
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        assert rt.queue.get(delivery).state == "pending"


# kills: bot/github_errors.py:spent_until_reset a success that spent the last call, its reset
#        too far off to be dated, failed the delivery (OverflowError) though GitHub answered
def test_a_success_whose_reset_is_too_far_off_is_taken(tmp_path, fake_github, app_key):
    fake = fake_github
    n = 7603
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        spent = Fault(headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1e20"})
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", spent)
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        finished = ("done", "failed")
        wait_until(lambda: rt.queue.get(delivery).state in finished, what="the delivery")
        assert (rt.queue.get(delivery).state, rt.queue.get(delivery).deferrals) == ("done", 0)
        assert len(fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{n}/comments")) == 1


# kills: bot/github_sessions.py:GitHubSessions._new_github its Github made without
#        github_http.made_cleaning: PyGithub raised ValueError on the answer to a comment
#        GitHub had created, and the delivery failed for good
def test_a_comment_answered_with_a_remaining_that_is_no_number_is_posted_once(
    tmp_path, fake_github, app_key
):
    fake = fake_github
    n = 7605
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        created = Fault(headers={"x-ratelimit-remaining": "abc"})  # on the real 201
        fake.inject("POST", f"/repos/{DEFAULT_REPO}/issues/{n}/comments", created)
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        finished = ("done", "failed")
        wait_until(lambda: rt.queue.get(delivery).state in finished, what="the delivery")
        assert (rt.queue.get(delivery).state, rt.queue.get(delivery).deferrals) == ("done", 0)
        posts = fake.calls("POST", f"/repos/{DEFAULT_REPO}/issues/{n}/comments")
        assert [p.status for p in posts] == [201]
        assert len(fake.comments(DEFAULT_REPO, n)) == 1


# --- GitHub's content-creation limit ---


def _settled(rt) -> bool:
    """No delivery running, and every one pending is put back until a time to come."""
    ((running,),) = rt.db.execute(
        "SELECT COUNT(*) FROM deliveries WHERE state = 'processing'"
        " OR (state = 'pending' AND not_before IS NULL)"
    )
    return running == 0


def _let_pass(rt, time: ManualTime, seconds: float) -> None:
    """`seconds` pass on the client's clock, and the deliveries put back come due (the
    queue's times are the wall clock's: moved by hand); then wait until they settle."""
    time.advance(seconds)
    rt.db.execute("UPDATE deliveries SET not_before = NULL WHERE state = 'pending'")
    rt.queue._notify()
    wait_until(lambda: _settled(rt), what="the deliveries due")


@pytest.mark.parametrize(
    "status, retry_after", [(403, False), (429, False), (403, True), (429, True)]
)
def test_the_content_creation_limit_is_waited_out_with_no_comment_lost_or_call_wasted(
    tmp_path, fake_github, app_key, manual_time, status, retry_after
):
    # github_facts §3.3: past 80 writes a minute GitHub refuses content creation, 403 or
    # 429, with or without Retry-After. Two a minute here: four new PRs' comments
    fake, numbers = fake_github, [N + i for i in range(4)]
    limit = fake.limit_content_creation(
        per_minute=2, status=status, retry_after=retry_after, clock=manual_time.clock
    )
    for number in numbers:
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key, workers=1)
    with serving(settings, github_on(settings, app_key, manual_time)) as (client, rt):
        for number in numbers:
            post(client, "pull_request", pr_payload(number=number, title=MATCHING_TITLE))
        wait_until(lambda: _settled(rt), what="the first minute's deliveries")
        assert rt.queue.counts()["done"] == 2 and limit.refused == 1
        (refused,) = [r for r in fake.requests if r.status == status]
        assert fake.requests[-1] == refused, "called GitHub while limited"
        assert client.get("/healthz").json()["github_paused_for"] == 60

        _let_pass(rt, manual_time, 60)
        drain(rt)
        assert rt.queue.counts()["done"] == 4 and rt.queue.counts()["failed"] == 0
    assert limit.refused == 1  # not asked again before the minute was over
    for number in numbers:
        assert [c.user.login for c in fake.comments(DEFAULT_REPO, number)] == [BOT]
    assert len(fake.calls("POST", "/repos/*/issues/*/comments")) == len(numbers) + 1


# kills: bot/github_pacing.py:Pacer.answered a read's success started a write's back-off over
def test_the_hourly_content_creation_limit_is_backed_off_and_waited_out(
    tmp_path, fake_github, app_key, manual_time
):
    # 500 writes an hour: once spent, GitHub refuses them until the hour's first leaves
    # the window, naming no time. Each try's reads went through first and started the
    # back-off over: a refused write every minute, and after 8 put-backs (8 minutes, where
    # config/bot.toml promises about half an hour) the delivery failed, its comment lost.
    # Two writes an hour here, spent 35 minutes before a third PR's comment.
    fake, numbers = fake_github, [N, N + 1, N + 2]
    limit = fake.limit_content_creation(per_hour=2, clock=manual_time.clock)
    for number in numbers:
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key, workers=1, retry_max_wait=300)
    github = github_on(settings, app_key, manual_time)
    waits = []
    with serving(settings, github) as (client, rt):
        for number in numbers[:2]:
            deliver_pr(client, rt, number=number, title=MATCHING_TITLE)
        manual_time.advance(35 * 60)
        post(client, "pull_request", pr_payload(number=numbers[2], title=MATCHING_TITLE))
        wait_until(lambda: _settled(rt), what="the third delivery's first try")
        while rt.queue.counts()["pending"]:
            waits.append(github.calls.paused_for())
            _let_pass(rt, manual_time, waits[-1])
        assert rt.queue.counts()["failed"] == 0, rt.queue.failed()[0].last_error
    assert waits == [60, 120, 240, 300, 300, 300, 300]  # a minute, doubling, capped
    assert limit.refused == len(waits)  # one refused write each, none while paused
    for number in numbers:
        assert [c.user.login for c in fake.comments(DEFAULT_REPO, number)] == [BOT]


def test_a_backlog_waits_out_the_hourly_limit_and_only_the_delivery_refused_spends_put_backs(
    tmp_path, fake_github, app_key, manual_time
):
    # A busy hour: the 500 writes are spent ten minutes in, and GitHub refuses writes
    # until the first leaves the window, 50 minutes on. At each pause's end one delivery
    # sends its write and is refused; the rest of the backlog is claimed, sends nothing
    # (the installation is paused) and is put back. Each put-back counted, so all of them
    # had used their 8 by the 9th refusal (32 minutes) and failed together, every
    # comment lost until `review-notes retry --all`. The one refused still counts its own:
    # with max_deferrals at 8 it alone failed, 32 minutes in.
    fake, spent, backlog = fake_github, [N + i for i in range(4)], [N + 4 + i for i in range(4)]
    limit = fake.limit_content_creation(per_hour=len(spent), clock=manual_time.clock)
    for number in spent + backlog:
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(
        tmp_path, fake, app_key, workers=1, retry_max_wait=300, max_deferrals=8
    )
    github = github_on(settings, app_key, manual_time)
    with serving(settings, github) as (client, rt):
        for number in spent:
            deliver_pr(client, rt, number=number, title=MATCHING_TITLE)
        manual_time.advance(10 * 60)
        queued = [
            post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE)).json()
            for n in backlog
        ]
        wait_until(lambda: _settled(rt), what="the backlog's first tries")
        # waiting out a rate limit, not stalled: every delivery put back until the pause
        # ends, none due meanwhile
        text = client.get("/metrics").text
        assert metric(text, "review_notes_github_ratelimit_paused_seconds") == 60
        assert metric(text, "review_notes_queue_oldest_pending_seconds") == 0
        assert metric(text, "review_notes_queue_depth", state="pending") == len(backlog)
        cycles = 0
        while rt.queue.counts()["pending"]:
            _let_pass(rt, manual_time, github.calls.paused_for())
            cycles += 1
        first, *rest = [rt.queue.get(d["delivery"]) for d in queued]
        assert first.state == "failed" and "put back 8 times" in first.last_error
        assert [d.state for d in rest] == ["done"] * len(rest), [d.last_error for d in rest]
        # the next in line spent 3 of its own after the first had failed; the others none
        assert [d.deferrals - d.waits for d in rest] == [3, 0, 0]
        text = client.get("/metrics").text
        deliveries = "review_notes_deliveries_total"
        assert metric(text, deliveries, event="pull_request", outcome="failed") == 1
    assert manual_time.clock() >= 60 * 60  # the block was waited out, not cut short
    assert limit.refused == cycles  # one refused write a pause, none while paused
    for number in backlog[1:]:
        assert [c.user.login for c in fake.comments(DEFAULT_REPO, number)] == [BOT]


# kills: bot/queue.py MAX_DEFERRALS back at 8 (or 13): the delivery GitHub refuses in an
#        hourly block fails before the block ends
def test_an_hourly_block_is_waited_out_whole_by_the_delivery_it_refuses(
    tmp_path, fake_github, app_key, manual_time
):
    # The hour's writes spent in its first minute (a burst; some endpoints' limits are
    # lower than 500): GitHub refuses writes for 59 minutes, naming no time. The delivery
    # at the backlog's head is refused at each back-off's end, a minute, two, four, then
    # five apart: with the default max_deferrals (config/bot.toml) it waits the block out
    # and posts, as do the others; none is left failed for the operator to retry by hand.
    fake, spent, backlog = fake_github, [N + i for i in range(4)], [N + 4 + i for i in range(3)]
    limit = fake.limit_content_creation(per_hour=len(spent), clock=manual_time.clock)
    for number in spent + backlog:
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    # config/bot.toml's back-off (1, 2, 4, then 5 minutes) and its max_deferrals
    settings = live_settings(tmp_path, fake, app_key, workers=1, retry_max_wait=300)
    github = github_on(settings, app_key, manual_time)
    with serving(settings, github) as (client, rt):
        for number in spent:
            deliver_pr(client, rt, number=number, title=MATCHING_TITLE)
        manual_time.advance(60)
        queued = [
            post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE)).json()
            for n in backlog
        ]
        wait_until(lambda: _settled(rt), what="the backlog's first tries")
        waited = 0.0
        while rt.queue.counts()["pending"]:
            waited += github.calls.paused_for()
            _let_pass(rt, manual_time, github.calls.paused_for())
        head = rt.queue.get(queued[0]["delivery"])
        assert rt.queue.counts()["failed"] == 0, rt.queue.failed()[0].last_error
        assert head.state == "done" and head.deferrals - head.waits == limit.refused
    assert 59 * 60 <= waited < 65 * 60  # the block waited out, not much past it
    for number in backlog:
        assert [c.user.login for c in fake.comments(DEFAULT_REPO, number)] == [BOT]


# kills: bot/github_sessions.py:GitHubSessions._pace a call that spent the last one before
#        the reset not said to be the run's own limit: its put-back was not counted, and
#        an answer spending the last call at every run would put it back for ever
def test_a_run_whose_own_call_spent_the_last_one_counts_its_put_back(
    tmp_path, fake_github, app_key
):
    fake = fake_github
    n = 7609
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    with serving(live_settings(tmp_path, fake, app_key, retry_sleep_max=1)) as (client, rt):
        reset = str(int(time.time()) + 3600)
        spent = Fault(headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/issues/{n}/comments", spent)
        r = post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        delivery = r.json()["delivery"]
        wait_until(lambda: rt.queue.get(delivery).deferrals == 1, what="the put-back")
        assert rt.queue.get(delivery).waits == 0
        assert "create a comment" in rt.queue.get(delivery).last_error  # not sent: paused

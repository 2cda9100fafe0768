"""The webhook endpoint: signature, size, parsing, routing, dedup, health, dry run."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hmac
import json
import logging
import os
import re
import shutil
import socket
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from bot.dispatch import Dispatcher, Route
from bot.github_port import PRRef
from bot.installations import EVENTS as INSTALLATION_EVENTS
from bot.note_files import LibraryError
from bot.server import StartupError, build_dispatcher, build_runtime, create_app
from bot.settings import SettingsError, load_settings
from bot.signature import sign, verify
from bot.webhook import LOCK_WAIT_SECONDS, WebhookEndpoint
from bot.workers import Workers
from tests.docs_kit import doc
from tests.fake_github import DEFAULT_INSTALLATION_ID, DEFAULT_REPO, DOCS, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    ROOT,
    SECRET,
    UNRELATED_TITLE,
    _example_definitions,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    make_settings,
    octokit_examples,
    post,
    pr_payload,
    repo_calls,
    serving,
    wait_idle,
    wait_until,
)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


@pytest.fixture
def app(tmp_path):
    with serving(make_settings(tmp_path)) as (client, rt):
        yield client, rt


# --- signature -------------------------------------------------------------------


def test_signature_matches_githubs_published_test_vector():
    secret, body = "It's a Secret to Everybody", b"Hello, World!"
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign(secret, body) == expected
    assert verify(secret, body, expected)


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "sha256=",
        "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",  # no prefix
        "sha1=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        "sha256=857107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
        "sha256=757107EA0EB2509FC211221CCE984B8A37570B6D7586C22C46F4379C8B043E17",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1",
        "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17ü",
    ],
)
def test_signature_rejects_anything_but_the_exact_digest(header):
    assert not verify("It's a Secret to Everybody", b"Hello, World!", header)


def test_missing_or_wrong_signature_is_401_and_queues_nothing(app):
    client, rt = app
    payload = pr_payload(title=MATCHING_TITLE)
    body = json.dumps(payload).encode()
    for sig in (None, sign("another secret", body), sign(SECRET, body + b" ")):
        headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4())}
        if sig:
            headers["X-Hub-Signature-256"] = sig
        r = client.post("/webhook", content=body, headers=headers)
        assert r.status_code == 401
    assert rt.queue.counts() == {"pending": 0, "processing": 0, "done": 0, "failed": 0}


# kills: bot/webhook.py:WebhookEndpoint.check the signature checked on the body without its outer
# whitespace
def test_a_signed_body_sent_with_whitespace_added_is_401(app):
    # the same JSON object, but not the bytes signed: replayed so, it would pass the
    # queue's check of bodies seen before (a hash of the bytes)
    client, rt = app
    body = json.dumps(pr_payload(title=MATCHING_TITLE)).encode()
    for added in (body + b"\n", b" " + body):
        headers = {
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": sign(SECRET, body),
        }
        assert client.post("/webhook", content=added, headers=headers).status_code == 401
    assert rt.queue.counts()["pending"] == 0


def test_signature_is_checked_before_parsing(app):
    client, _ = app
    # Malformed JSON with a bad signature: 401, not 400 (nothing is parsed before the HMAC).
    r = client.post(
        "/webhook",
        content=b"{not json",
        headers={"X-GitHub-Event": "pull_request", "X-Hub-Signature-256": "sha256=00"},
    )
    assert r.status_code == 401


# --- size, parsing, headers ----------------------------------------------------


def test_declared_body_over_25mb_is_413(app):
    client, _ = app
    r = client.post(
        "/webhook",
        content=b"{}",
        headers={"Content-Length": str(25 * 1024 * 1024 + 1), "X-GitHub-Event": "ping"},
    )
    assert r.status_code == 413


def test_streamed_body_over_25mb_is_413_even_without_content_length(app):
    client, _ = app
    chunk = b" " * (1024 * 1024)

    def body():
        for _ in range(26):
            yield chunk

    r = client.post("/webhook", content=body(), headers={"X-GitHub-Event": "ping"})
    assert "content-length" not in {k.lower() for k in r.request.headers}
    assert r.status_code == 413


def test_a_body_of_exactly_25mb_is_read(app):
    # GitHub caps payloads at 25 MB: that size itself is allowed, declared or streamed
    # (unsigned here, so the answer is the signature's 401, not a 413)
    client, _ = app
    declared = {"Content-Length": str(25 * 1024 * 1024), "X-GitHub-Event": "ping"}
    assert client.post("/webhook", content=b"{}", headers=declared).status_code == 401
    chunk = b" " * (1024 * 1024)
    streamed = client.post(
        "/webhook", content=(chunk for _ in range(25)), headers={"X-GitHub-Event": "ping"}
    )
    assert streamed.status_code == 401


def call_endpoint(tmp_path, delivery: str, messages: list[dict]) -> tuple[list[dict], object]:
    """POST /webhook as the ASGI server calls it, message by message (the test client
    sends a body as one message); what was sent back, and the delivery as queued."""
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    body = b"".join(m.get("body", b"") for m in messages)
    headers = [
        (b"x-github-event", b"pull_request"),
        (b"x-github-delivery", delivery.encode()),
        (b"x-hub-signature-256", sign(SECRET, body).encode()),
    ]
    sent = []

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(endpoint({"type": "http", "headers": headers}, receive, send))
    queued = rt.queue.get(delivery)
    rt.db.close()
    return sent, queued


def pieces(body: bytes, size: int = 1000) -> list[dict]:
    return [
        {"type": "http.request", "body": body[i : i + size], "more_body": True}
        for i in range(0, len(body), size)
    ]


def test_a_body_sent_in_pieces_is_read_whole(tmp_path):
    # the signature covers the whole body: every ASGI message of it is read first
    body = json.dumps(pr_payload(title=MATCHING_TITLE)).encode()
    end = {"type": "http.request", "body": b"", "more_body": False}
    sent, queued = call_endpoint(tmp_path, "in-pieces", [*pieces(body), end])
    assert sent[0]["status"] == 202 and queued is not None


# kills: bot/webhook.py:_read_body a last message without a body (ASGI: it defaults to b"") a crash
def test_a_last_message_without_a_body_ends_the_body(tmp_path):
    body = json.dumps(pr_payload(title=MATCHING_TITLE)).encode()
    end = {"type": "http.request", "more_body": False}
    sent, queued = call_endpoint(tmp_path, "no-body-key", [*pieces(body), end])
    assert sent[0]["status"] == 202 and queued is not None


def test_a_client_gone_mid_body_gets_no_answer_and_nothing_is_queued(tmp_path):
    body = json.dumps(pr_payload(title=MATCHING_TITLE)).encode()
    gone = {"type": "http.disconnect"}
    sent, queued = call_endpoint(tmp_path, "gone", [pieces(body)[0], gone])
    assert sent == [] and queued is None


def test_malformed_json_with_a_valid_signature_is_400(app):
    client, _ = app
    for body in (b"{not json", b"\xff\xfe", b"[1, 2]", b""):
        r = post(client, "pull_request", body)
        assert r.status_code == 400, body


def test_missing_event_or_delivery_header_is_400(app):
    client, _ = app
    body = json.dumps(pr_payload()).encode()
    r = client.post("/webhook", content=body, headers={"X-Hub-Signature-256": sign(SECRET, body)})
    assert r.status_code == 400
    r = client.post(
        "/webhook",
        content=body,
        headers={"X-Hub-Signature-256": sign(SECRET, body), "X-GitHub-Event": "pull_request"},
    )
    assert r.status_code == 400


def test_an_event_header_missing_alone_is_400(app):
    client, rt = app
    body = json.dumps(pr_payload()).encode()
    headers = {"X-Hub-Signature-256": sign(SECRET, body), "X-GitHub-Delivery": "no-event"}
    assert client.post("/webhook", content=body, headers=headers).status_code == 400
    assert rt.queue.get("no-event") is None


def test_a_form_encoded_body_without_its_payload_field_is_400(app):
    # GitHub's form encoding is `payload=<json>`; any other form is a bad request
    client, rt = app
    body = b"other=%7B%7D"
    r = post(
        client,
        "pull_request",
        body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 400 and rt.queue.counts()["pending"] == 0


# kills: bot/webhook.py:parse a form body with a malformed field read past it (202, not 400)
def test_a_form_encoded_body_with_a_malformed_field_is_400(app):
    from urllib.parse import urlencode

    client, rt = app
    body = urlencode({"payload": json.dumps(pr_payload(title=MATCHING_TITLE))}).encode()
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    r = post(client, "pull_request", body + b"&no-equals-sign", headers=form)
    assert r.status_code == 400 and rt.queue.counts()["pending"] == 0


def test_ping_is_200(app):
    client, rt = app
    for ping in octokit_examples("ping"):
        r = post(client, "ping", ping)
        assert r.status_code == 200
        assert r.json()["status"] == "pong"
    assert rt.queue.counts()["pending"] == 0


@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded",
        # a media type may carry parameters: the type alone decides how to read the body
        "application/x-www-form-urlencoded; charset=utf-8",
        # and is case-insensitive (RFC 9110, 8.3.1): read as JSON, the form was a 400
        "Application/X-WWW-Form-URLEncoded",
    ],
)
def test_form_encoded_delivery_is_accepted(app, content_type):
    from urllib.parse import urlencode

    client, rt = app
    body = urlencode({"payload": json.dumps(pr_payload(title=MATCHING_TITLE))}).encode()
    r = post(client, "pull_request", body, headers={"Content-Type": content_type})
    assert r.status_code == 202 and r.json()["status"] == "queued"
    drain(rt)


def test_the_queue_keeps_the_bodys_own_text_so_big_integers_stay_exact(app):
    # orjson reads integers past 64 bits as floats: storing a re-encoding of the parsed
    # payload would hand the handler 1.18e+21 where GitHub sent an integer
    client, rt = app
    rt.workers.stop()
    payload = pr_payload(title=MATCHING_TITLE)
    payload["pull_request"]["x_big"] = 2**70 + 1
    assert post(client, "pull_request", payload, delivery="big").status_code == 202
    assert rt.queue.get("big").payload["pull_request"]["x_big"] == 2**70 + 1


@pytest.mark.parametrize(
    "encode",
    [
        lambda text: text.encode("utf-16"),  # JSON allows UTF-16/32; json.loads reads them
        lambda text: b"\xef\xbb\xbf" + text.encode(),  # a UTF-8 BOM
        # NaN and a lone surrogate in fields the handler does not read: a NaN title or body
        # is refused at intake as unreadable (pr_events.check_readable), as it should be
        lambda text: text.replace(
            '"body": null', '"body": null, "x": NaN, "y": "\\ud800"'
        ).encode(),
    ],
)
def test_json_that_only_pythons_parser_reads_is_still_queued(app, encode):
    # The fast parser refuses these; the endpoint must answer as json.loads would.
    client, rt = app
    payload = pr_payload(body=None)
    r = post(client, "pull_request", encode(json.dumps(payload)), delivery="odd-json")
    assert r.status_code == 202 and r.json()["status"] == "queued"
    assert rt.queue.get("odd-json").payload["pull_request"]["number"] == payload["number"]


def test_a_nan_where_the_handler_reads_text_is_refused_at_intake(app):
    # json.loads reads NaN, but a body that is no string is a payload the handler cannot read
    client, rt = app
    text = json.dumps(pr_payload(body=None)).replace('"body": null', '"body": NaN')
    r = post(client, "pull_request", text.encode(), delivery="nan-body")
    assert r.status_code == 400 and "pull_request.body" in r.text
    assert rt.queue.get("nan-body") is None


# --- routing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "payload_kw", "reason"),
    [
        ("issues", {}, "no handler"),
        ("pull_request", {"action": "assigned"}, "no handler"),
        ("pull_request", {"action": "assigned"}, "no handler"),
        ("pull_request", {"repo": "someone/else"}, "allow-list"),
        ("issue_comment", {"action": "created", "sender_type": "Bot", "sender": "x[bot]"}, "bot"),
        (
            "pull_request",
            {"action": "edited", "changes": {"state": {"from": "open"}}},
            "edited",
        ),
        ("pull_request", {"action": "labeled", "state": "closed"}, "closed"),
    ],
)
def test_unhandled_events_are_202_and_nothing_is_queued(app, event, payload_kw, reason):
    client, rt = app
    r = post(client, event, pr_payload(**payload_kw))
    assert r.status_code == 202
    assert r.json()["status"] == "ignored"
    assert reason in r.json()["reason"]
    assert rt.queue.counts()["pending"] == 0


def test_the_bots_own_login_is_ignored_even_if_not_typed_bot(tmp_path):
    settings = make_settings(tmp_path, bot_login="review-notes[bot]")
    with serving(settings) as (client, _):
        r = post(client, "pull_request", pr_payload(sender="Review-Notes[bot]"))
        assert r.json()["status"] == "ignored"
        r = post(client, "pull_request", pr_payload(sender="review-notes[bot]", sender_type="Bot"))
        assert r.json()["reason"] == "sent by the bot itself (review-notes[bot])"


def test_pull_request_events_from_other_bots_are_queued(app):
    client, rt = app
    rt.workers.stop()  # routing only
    for n, bot in enumerate(["mergify[bot]", "pre-commit-ci[bot]", "dependabot[bot]"]):
        payload = pr_payload("labeled", number=n + 1, sender=bot, sender_type="Bot")
        r = post(client, "pull_request", payload)
        assert r.status_code == 202 and r.json()["status"] == "queued", r.json()
    assert rt.queue.counts()["pending"] == 3


def test_every_octokit_pull_request_and_issue_comment_example_is_accepted(tmp_path):
    # Allow the examples' repository so that handled actions really run through the
    # handler (dry run), not just the allow-list filter.
    settings = make_settings(tmp_path, repos="Codertocat/Hello-World,vllm-project/vllm")
    with serving(settings) as (client, rt):
        seen = {}
        for event in ("pull_request", "issue_comment"):
            for example in octokit_examples(event):
                r = post(client, event, example)
                assert r.status_code in (200, 202), (event, example.get("action"), r.text)
                seen[(event, example.get("action"))] = r.json()["status"]
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        assert seen[("pull_request", "opened")] == "queued"
        assert seen[("pull_request", "closed")] == "queued"  # remembered: older events go stale
        assert seen[("pull_request", "assigned")] == "ignored"
        assert rt.queue.counts()["done"] >= 5  # opened x3, ready_for_review x3, reopened, ...


def _moved_to_vllm(example: dict) -> dict:
    """An example of another event, as if from the installed repository (the allow-list
    lets it through to the handler), where it names one."""
    p = copy.deepcopy(example)
    if isinstance(p.get("repository"), dict):
        p["repository"].update(full_name=DEFAULT_REPO, name="vllm")
    if isinstance(p.get("installation"), dict):
        p["installation"]["id"] = DEFAULT_INSTALLATION_ID
    return p


def test_every_octokit_example_of_every_event_gets_its_documented_answer(
    tmp_path, fake_github, app_key
):
    # GitHub sends ping and installation events whatever the App subscribes to, and an
    # operator may tick more events than app.yml's: every example of every event, as sent
    # and moved to the installed repository, to the App served against the fake GitHub.
    # Each is answered as docs/operating.md's table says; one without a handler is 202
    # "ignored" and costs no GitHub call; none fails when run.
    handled = set(build_dispatcher().events())
    answers = {"ping": (200, "pong")} | {e: (200, "noted") for e in INSTALLATION_EVENTS}
    definitions = _example_definitions()
    numbers = {
        (p.get("pull_request") or p.get("issue") or {}).get("number")
        for d in definitions
        if d["name"] in handled
        for p in d["examples"]
    }
    for number in numbers - {None}:  # the PRs the handlers ask GitHub for
        fake_github.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES)
    with serving(app_settings(tmp_path, fake_github, app_key)) as (client, rt):
        for d in definitions:
            event = d["name"]
            for example in d["examples"]:
                for payload in (example, _moved_to_vllm(example)):
                    calls = repo_calls(fake_github)
                    r = post(client, event, payload)
                    got = (r.status_code, r.json().get("status"))
                    what = (event, payload.get("action"), r.text[:200])
                    if event in answers:
                        assert got == answers[event], what
                    elif event in handled:
                        assert got in ((202, "queued"), (202, "ignored"), (200, "duplicate")), what
                    else:
                        assert got == (202, "ignored"), what
                        assert r.json()["reason"].startswith(f"no handler for {event}"), what
                    drain(rt)
                    if event not in handled:
                        assert repo_calls(fake_github) == calls, what
        assert rt.queue.counts()["failed"] == 0, [d.last_error for d in rt.queue.failed()]
        assert rt.queue.counts()["done"] > 0  # the handlers ran


# --- durability and dedup ----------------------------------------------------------


def test_a_delivery_is_in_sqlite_before_the_answer(app):
    client, rt = app
    rt.workers.stop()  # nothing may process it: what we see was stored by the request
    r = post(client, "pull_request", pr_payload(title=MATCHING_TITLE), delivery="d-1")
    assert r.status_code == 202
    stored = rt.queue.get("d-1")
    assert stored is not None and stored.state == "pending"
    assert stored.repo == "vllm-project/vllm" and stored.pr_number == 7001
    rt.workers.start()
    drain(rt)
    assert rt.queue.get("d-1").state == "done"


def test_the_first_of_repeated_headers_counts(app):
    # a proxy may append a header GitHub already sent: GitHub's own, the first, wins
    client, rt = app
    rt.workers.stop()
    body = json.dumps(pr_payload(title=MATCHING_TITLE)).encode()
    headers = [
        ("Content-Type", "application/json"),
        ("X-GitHub-Event", "pull_request"),
        ("X-GitHub-Delivery", "first"),
        ("X-GitHub-Delivery", "second"),
        ("X-Hub-Signature-256", sign(SECRET, body)),
        ("X-Hub-Signature-256", "sha256=" + "0" * 64),
    ]
    r = client.post("/webhook", content=body, headers=headers)
    assert r.status_code == 202 and r.json()["delivery"] == "first"
    assert rt.queue.get("first") is not None and rt.queue.get("second") is None


def test_same_delivery_id_twice_is_processed_once(app):
    client, rt = app
    payload = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)
    assert post(client, "pull_request", payload, delivery="dup").status_code == 202
    r = post(client, "pull_request", payload, delivery="dup")
    assert r.status_code == 200 and r.json()["status"] == "duplicate"
    drain(rt)
    assert rt.queue.get("dup").attempts == 1
    assert rt.queue.counts()["done"] == 1
    assert len(rt.dry_run.comments()) == 1


def test_a_delivery_id_sent_again_with_another_body_is_said_in_the_log(app, caplog):
    # answered 200 "duplicate" in silence: one replaying a delivery by hand under its id,
    # a body changed, learned nothing of why nothing ran
    client, rt = app
    rt.workers.stop()  # it stays pending: a redelivery of a delivery not failed
    first = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)
    other = pr_payload(title=UNRELATED_TITLE)
    assert post(client, "pull_request", first, delivery="again").status_code == 202
    with caplog.at_level(logging.WARNING):
        assert post(client, "pull_request", first, delivery="again").status_code == 200
        assert caplog.records == []  # GitHub's redelivery: the same body
        r = post(client, "pull_request", other, delivery="again")
    assert r.status_code == 200 and r.json()["status"] == "duplicate"
    (said,) = [r.getMessage() for r in caplog.records]
    assert said.startswith("delivery again (pull_request) sent again with another body"), said
    assert "nothing of this one runs" in said, said
    rt.queue.fail("again", "the test's")  # a failed one runs again, as first received
    with caplog.at_level(logging.WARNING):
        caplog.clear()
        r = post(client, "pull_request", other, delivery="again")
    assert r.json()["status"] == "requeued"
    (said,) = [r.getMessage() for r in caplog.records]
    assert "runs again as first received, not as sent now" in said, said


def test_the_runtime_compiles_one_matcher_at_start_and_matches_every_pr_with_it(
    tmp_path, monkeypatch
):
    from bot.matching import CompiledMatcher

    built: list[CompiledMatcher] = []
    compile_ = CompiledMatcher.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        compile_(self, *args, **kwargs)

    monkeypatch.setattr(CompiledMatcher, "__init__", counted)
    with serving(make_settings(tmp_path)) as (client, rt):
        matcher = rt.ctx.matcher
        assert built == [matcher] and matcher.library is rt.ctx.library
        matched: list[int] = []
        match = matcher.match
        monkeypatch.setattr(
            matcher, "match", lambda facts: matched.append(facts.number) or match(facts)
        )
        for number in (7001, 7002):
            deliver_pr(client, rt, number=number, title=MATCHING_TITLE, files=MATCHING_FILES)
        assert sorted(matched) == [7001, 7002]  # the sticky comment matched with it
        assert built == [matcher]  # and no PR compiled another
        assert len(rt.dry_run.comments()) == 2


def test_redelivery_of_a_failed_delivery_runs_it_again(app):
    client, rt = app
    rt.workers.stop()
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE), delivery="f-1")
    rt.queue.claim()
    rt.queue.fail("f-1", "RuntimeError: boom")
    r = post(client, "pull_request", pr_payload(title=MATCHING_TITLE), delivery="f-1")
    assert r.status_code == 202 and r.json()["status"] == "requeued"
    rt.workers.start()
    drain(rt)
    assert rt.queue.get("f-1").state == "done"


def test_a_database_error_recording_an_outcome_does_not_stop_the_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(Workers, "RECORD_RETRY_FIRST", 0.001, raising=False)
    with serving(make_settings(tmp_path, workers=1)) as (client, rt):
        real, calls = rt.queue.complete, []

        def flaky(delivery_id: str) -> None:
            calls.append(delivery_id)
            if len(calls) == 1:
                raise sqlite3.OperationalError("database is locked")
            real(delivery_id)

        monkeypatch.setattr(rt.queue, "complete", flaky)
        for number in (1, 2):
            r = post(client, "pull_request", pr_payload(number=number), delivery=f"d-{number}")
            assert r.json()["status"] == "queued"
        drain(rt)
        assert [t.is_alive() for t in rt.workers._threads] == [True]
        assert [rt.queue.get(f"d-{n}").state for n in (1, 2)] == ["done", "done"]


# kills: bot/server.py:_operator_routes a worker whose thread ended reported ok
# kills: bot/workers.py:Workers._run an ended worker not told
@pytest.mark.parametrize("exc", [SystemExit(3), KeyboardInterrupt()])
def test_healthz_fails_naming_a_worker_whose_thread_ended(tmp_path, exc):
    # a run raising what ends a thread (not an Exception) ends its worker, its delivery
    # abandoned (bot.workers): the server went on answering ok with a worker fewer, or
    # none, the queue standing, until someone read the log's CRITICAL line
    from tests.test_faults import metric

    with serving(make_settings(tmp_path, workers=2)) as (client, rt):
        assert client.get("/healthz").json()["workers_ended"] == []
        assert metric(client.get("/metrics").text, "review_notes_workers_ended") == 0

        def ending(delivery) -> None:
            raise exc

        rt.workers.process = ending
        post(client, "pull_request", pr_payload(number=1), delivery="d-1")
        wait_until(lambda: sum(t.is_alive() for t in rt.workers._threads) == 1, what="its end")
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["status"] == "failing", r.text
        [name] = r.json()["workers_ended"]
        assert name.startswith("review-notes-worker-")
        assert r.json()["worker_error"] is None and r.json()["processing"] == 1
        assert metric(client.get("/metrics").text, "review_notes_workers_ended") == 1
        rt.workers.stop()  # as a restart's: all of them start again
        rt.workers.start()
        assert client.get("/healthz").json()["workers_ended"] == []


def test_healthz_reports_pending_and_failed(app):
    client, rt = app
    rt.workers.stop()
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, number=1), delivery="h-1")
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, number=2), delivery="h-2")
    rt.queue.claim()
    rt.queue.fail("h-1", "GithubException: 502 Server Error")
    r = client.get("/healthz")
    assert r.status_code == 200
    data = r.json()
    assert data["pending"] == 1 and data["failed"] == 1 and data["dry_run"] is True
    assert data["github_paused_for"] == 0  # no GitHub calls in dry run: never paused
    assert data["recent_failures"][0]["error"] == "GithubException: 502 Server Error"
    rt.workers.start()


# kills: bot/queue.py:DeliveryQueue.failed (through /healthz) a damaged failed row answered 500
def test_healthz_fails_naming_a_damaged_failed_row_not_with_a_500(tmp_path):
    # /healthz lists the recent failures, and one whose row SQLite cannot read back (a
    # failing disk) made every /healthz a 500 with a traceback in the log: a container's
    # health check saw an error, not the damaged file it is to restore
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.damage_kit import break_overflow_chain

    settings = make_settings(tmp_path)
    q = DeliveryQueue(Database(settings.db_path))
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    q.enqueue("broken", "pull_request", "opened", {"pad": "Z" * 20_000}, "o/r", 1)
    q.enqueue("h-1", "pull_request", "opened", {}, "o/r", 2)
    for did in ("broken", "h-1"):
        q.fail(did, "GithubException: 502")
    q.db.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    with serving(settings) as (client, _):
        r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "failing", r.text
    assert [d["id"] for d in r.json()["damaged"]] == ["broken"]
    assert [d["id"] for d in r.json()["recent_failures"]] == ["h-1"]


# kills: bot/server.py:_operator_routes a PR's state set aside as damaged (retention) answered
#   200 ok, the damaged file said in one log line only
def test_healthz_fails_naming_a_prs_damaged_state(tmp_path):
    # A PR's state row SQLite cannot read back is set aside from retention's pruning,
    # named in one ERROR line per start: the file is damaged, to be restored, as when a
    # delivery's row is, which /healthz says (503, `damaged`); for a PR's it said ok.
    from bot.prstate import PRState
    from tests.damage_kit import break_overflow_chain
    from tests.test_queue import OLD

    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    for number, files in ((1, (f"vllm/{'Z' * 20_000}.py",)), (2, ("a.py",))):
        rt.ctx.prs.put(PRState("o/r", number, files_sha="abc", files=files))
        rt.ctx.feedback.keep_numbering("o/r", number, f"comment:{number}", ("note-a",))
    rt.db.execute("UPDATE pr_state SET updated_at = ?", (OLD,))
    rt.db.execute("UPDATE numbering SET at = ?", (OLD,))  # retention reads when handled
    rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    rt.db.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    with serving(settings) as (client, rt):
        wait_until(lambda: rt.ctx.prs.set_aside, what="retention's first pass")
        r = client.get("/healthz")
    assert r.status_code == 503 and r.json()["status"] == "failing", r.text
    assert r.json()["damaged"] == []  # no delivery's
    [pr] = r.json()["damaged_prs"]
    assert pr == {"pr": "o/r#1", "error": "DatabaseError: database disk image is malformed"}


# kills: bot/queue.py:DeliveryQueue.enqueue_many a redelivery of a damaged row failing its
#   transaction (answered 'could not be stored', the damage neither named nor set aside)
# kills: bot/queue.py:DeliveryQueue._enqueue_many a damaged row set aside redelivered answered
#   200 duplicate
# kills: bot/webhook.py:WebhookEndpoint._set_aside (hand) not counted as an intake error
def test_a_redelivery_of_a_damaged_row_is_set_aside_and_the_burst_with_it_stored(tmp_path, caplog):
    # Someone redelivers from GitHub's log a failed delivery whose stored row a failing
    # disk damaged, as another delivery arrives: re-queueing it reads the row, which
    # SQLite cannot ("database disk image is malformed"). That failed the burst's whole
    # transaction and the delivery was answered "could not be stored", the damage not
    # named: the log said the sweeps would ask for it again, which they never do for an
    # id the queue holds. It is set aside now (named once with the fix, /healthz's
    # damaged), answered 500 as not run, and the other one stored in the same commit.
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.damage_kit import break_overflow_chain

    settings = make_settings(tmp_path)
    q = DeliveryQueue(Database(settings.db_path))
    q.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    broken = pr_payload(number=1) | {"pad": "Z" * 20_000}
    q.enqueue("broken", "pull_request", "opened", broken, "vllm-project/vllm", 1)
    q.fail("broken", "GithubException: 502")
    q.db.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    commits = []  # the size of each enqueue_many: one transaction each
    enqueue_many = rt.queue.enqueue_many
    rt.queue.enqueue_many = lambda items, until=None: (
        commits.append(len(items)) or enqueue_many(items, until)
    )

    def answer(delivery: str, payload: dict) -> object:
        body = json.dumps(payload).encode()
        headers = {
            b"x-github-event": b"pull_request",
            b"x-github-delivery": delivery.encode(),
            b"x-hub-signature-256": sign(SECRET, body).encode(),
        }
        return endpoint.answer(headers, body)

    async def burst(*deliveries: tuple[str, dict]) -> list:
        return await asyncio.wait_for(asyncio.gather(*(answer(*d) for d in deliveries)), 5)

    with caplog.at_level(logging.INFO):
        first = asyncio.run(burst(("broken", broken), ("healthy", pr_payload(number=2))))
        again = asyncio.run(burst(("broken", broken)))
    assert [code for code, _ in first] == [500, 202] and commits == [2, 1], first
    assert "damaged" in first[0][1]["error"] and first[1][1]["status"] == "queued"
    assert again[0][0] == 500 and again[0][1] == first[0][1]
    assert list(rt.queue.set_aside) == ["broken"] and endpoint.failing is None
    assert rt.queue.get("healthy").state == "pending"
    rt.db.close()
    error = rt.ctx.metrics.registry.get_sample_value(
        "review_notes_deliveries_total", {"event": "pull_request", "outcome": "error"}
    )
    assert error == 2  # as any delivery the intake could not take: an alert sees it
    named = [r.getMessage() for r in caplog.records if "restore it from a backup" in r.getMessage()]
    assert len(named) == 1 and named[0].startswith("delivery broken: SQLite cannot read"), named
    assert not any("sweeps ask GitHub" in r.getMessage() for r in caplog.records)


def test_the_docs_healthz_row_names_every_field_of_the_answer(app):
    # The endpoint table (docs/operating.md, Deploy) gives /healthz's answer as a JSON
    # object; it left out `dry_run` and `notes`, which a monitor may key on.
    client, _ = app
    operating = doc("operating.md")
    row = next(line for line in operating.splitlines() if line.startswith("| `GET /healthz` |"))
    said = re.findall(r'[{,]\s*"([a-z_]+)"', row[: row.index("}")])  # keys, not values
    assert set(said) == set(client.get("/healthz").json()), said


def test_the_docs_say_what_each_failing_field_of_healthz_means(app):
    # the /healthz row moved its 503s to "Reading /healthz", one item per
    # field that says why, for an operator to look up under pressure: every field of the
    # answer that is empty while all is well has its item there.
    client, _ = app
    operating = doc("operating.md")
    section = operating.split("\n#### Reading /healthz\n", 1)[1].split("\n#### ", 1)[0]
    quiet = {k for k, v in client.get("/healthz").json().items() if v in (None, [])}
    quiet -= {"recent_failures", "oldest_waiting_on_github", "github_down_until"}
    quiet -= {"values_read_around"}  # (no 503: its PRs work; under "The other fields")
    assert quiet == {"intake_error", "worker_error", "workers_ended", "damaged", "damaged_prs"}
    for field in quiet:
        assert f"\n- **`{field}`**" in section, field


def test_the_fields_reliability_md_says_to_watch_are_fields_of_healthz(app):
    # reliability.md, What to watch, names the /healthz fields an operator reads under
    # pressure (the endpoint row above is checked; this bullet was not): each is one the
    # answer has, its statuses `ok` and `failing` aside.
    client, _ = app
    watch = doc("reliability.md").split("\n## What to watch\n", 1)[1].split("\n## ", 1)[0]
    bullet = next(b for b in watch.split("\n- ") if b.startswith("**`/healthz`**"))
    named = set(re.findall(r"`([a-z_]+)`", bullet)) - {"ok", "failing"}
    assert named and named - set(client.get("/healthz").json()) == set(), named


@pytest.mark.parametrize(
    "path", ["/healthz", "/metrics", "/notes", "/topics", "/assets/notes.css", "/assets/notes.js"]
)
def test_head_is_answered_like_get_without_the_body(app, path):
    # uptime monitors and link checkers send HEAD (RFC 9110: every server supports it)
    client, _ = app
    got, head = client.get(path), client.head(path)
    assert got.status_code == head.status_code == 200
    assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]


def test_a_hook_url_with_a_trailing_slash_is_the_same_endpoint_not_a_redirect(app):
    # GitHub follows no redirect: a 307 to /webhook would fail every delivery.
    client, rt = app
    rt.workers.stop()
    r = post(client, "pull_request", pr_payload(), delivery="slash", path="/webhook/")
    assert r.status_code == 202 and rt.queue.get("slash") is not None
    r = post(client, "pull_request", pr_payload(), secret="wrong", path="/webhook/")
    assert r.status_code == 401  # checked as at /webhook
    assert client.get("/webhook/", follow_redirects=False).status_code == 405


def test_a_database_with_another_hard_link_refuses_to_start(tmp_path):
    # Another name for the file escapes the server lock, and SQLite would keep a second
    # WAL under it: refuse rather than risk deliveries run twice or a corrupt database.
    rt = build_runtime(make_settings(tmp_path))
    os.link(tmp_path / "bot.sqlite3", tmp_path / "other.sqlite3")
    try:
        with pytest.raises(SettingsError, match="REVIEW_NOTES_DB_PATH: .* other hard links"):
            rt.start()
    finally:
        rt.db.close()


def test_the_server_prunes_old_done_deliveries_at_start(tmp_path):
    rt = build_runtime(make_settings(tmp_path, delivery_retention_days=3))
    rt.queue.enqueue("old", "pull_request", "opened", {})
    rt.queue.complete("old")
    old = "2020-01-01T00:00:00.000000Z"
    rt.db.execute("UPDATE deliveries SET received_at = ?, updated_at = ?", (old, old))
    rt.queue.enqueue("recent", "pull_request", "opened", {})
    rt.queue.complete("recent")
    with TestClient(create_app(rt)) as client:
        wait_until(lambda: rt.queue.get("old") is None, timeout=20, what="the prune at start")
        assert rt.queue.get("recent") is not None
        metrics = client.get("/metrics").text
    assert 'review_notes_deliveries_pruned_total{state="done"} 1.0' in metrics


def test_head_of_a_post_only_route_is_405_like_its_get(app):
    client, _ = app
    assert client.head("/webhook").status_code == client.get("/webhook").status_code == 405


def test_dry_run_comments_endpoint_shows_the_would_be_comment(app):
    client, rt = app
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES))
    drain(rt)
    comments = client.get("/dry-run/comments").json()["comments"]
    assert len(comments) == 1
    assert comments[0]["body"].startswith("<!-- review-notes:v1 -->\n")
    assert comments[0]["number"] == 7001
    assert client.get("/dry-run/comments?number=7002").json()["comments"] == []
    # a number SQLite cannot hold is a 422, not a 500 (OverflowError)
    assert client.get("/dry-run/comments", params={"number": "9" * 20}).status_code == 422


def test_dry_run_comments_of_one_pr_show_its_reactions_only(app):
    client, rt = app
    rt.dry_run.add_reaction(PRRef("vllm-project/vllm", 1), 11, "eyes")
    rt.dry_run.add_reaction(PRRef("vllm-project/vllm", 2), 22, "+1")
    rt.dry_run.add_reaction(PRRef("other/repo", 1), 33, "+1")
    mine = client.get("/dry-run/comments", params={"repo": "VLLM-project/vllm", "number": 1})
    assert [r["comment_id"] for r in mine.json()["reactions"]] == [11]
    everyone = client.get("/dry-run/comments").json()["reactions"]
    assert [r["comment_id"] for r in everyone] == [11, 22, 33]


# kills: bot/dryrun.py:DryRunGitHub.comments `sticky` listed as SQLite's 1 and 0, not as true and
# false
def test_dry_run_comments_tell_the_notes_comment_from_a_reply_as_true_or_false(app):
    client, rt = app
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES))
    drain(rt)
    rt.dry_run.create_comment(PRRef("vllm-project/vllm", 7001), "<!-- review-notes:reply -->\nok")
    said = client.get("/dry-run/comments?number=7001").json()["comments"]
    assert [c["sticky"] for c in said] == [True, False]
    assert all(type(c["sticky"]) is bool for c in said)  # JSON's true and false


@pytest.mark.parametrize(
    ("host", "base"),
    [
        ("::", "http://[::1]:8000"),  # every address: this machine's loopback
        ("0.0.0.0", "http://127.0.0.1:8000"),
        ("::1", "http://[::1]:8000"),
        ("192.0.2.7", "http://192.0.2.7:8000"),
    ],
)
def test_dry_run_links_are_urls_a_browser_here_can_open(tmp_path, host, base):
    with serving(make_settings(tmp_path, host=host)) as (client, rt):
        post(client, "pull_request", pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES))
        drain(rt)
        body = rt.dry_run.comments()[0]["body"]
    link = re.search(r"\[full guidance \(Chinese\)\]\(([^)]+)\)", body).group(1)
    assert link.startswith(base + "/notes/"), link


def test_the_app_created_page_posts_the_code_to_the_configured_api(tmp_path):
    settings = make_settings(tmp_path, github_api_url="https://ghe.example.com/api/v3")
    with serving(settings) as (client, _):
        text = client.get("/github/app-created", params={"code": "abc123"}).text
    assert "https://ghe.example.com/api/v3/app-manifests/abc123/conversions" in text
    assert "api.github.com" not in text


def test_the_settings_the_app_created_page_names_start_a_live_server(
    tmp_path, monkeypatch, app_key
):
    # The operator sets exactly what the page says, then restarts: that must be enough
    # (REVIEW_NOTES_PUBLIC_URL was missing, and the live server refused to start).
    with serving(make_settings(tmp_path)) as (client, _):
        page = client.get("/github/app-created", params={"code": "abc123"}).text
    pem = tmp_path / "app.pem"
    pem.write_text(app_key.private_pem, "utf-8")
    values = {
        "GITHUB_APP_ID": "123456",
        "GITHUB_PRIVATE_KEY_PATH": str(pem),
        "GITHUB_WEBHOOK_SECRET": "e340154128314309424b7c8e90325147d99fdafa",
        "REVIEW_NOTES_PUBLIC_URL": "https://notes.example.org",
    }
    named = set(re.findall(r"\b(?:GITHUB|REVIEW_NOTES)_[A-Z_]+\b", page))
    assert named == set(values), named
    for name in named:
        monkeypatch.setenv(name, values[name])
    monkeypatch.setenv("REVIEW_NOTES_DB_PATH", str(tmp_path / "live.sqlite3"))
    settings = load_settings(env_file=None)
    assert settings.has_credentials and not settings.uses_dev_secret


def test_the_notes_pages_source_link_follows_the_branch_and_directory(tmp_path):
    settings = make_settings(
        tmp_path,
        note_links="github",
        notes_github_repo="acme/review-notes",
        notes_github_branch="notes",
        notes_github_dir="library",
    )
    with serving(settings) as (client, rt):
        note = rt.ctx.library.notes[0]
        data = client.get(f"/notes/{note.id}", params={"format": "json"}).json()
        link = rt.ctx.links.url(note)  # the comment's link
    assert link == f"https://github.com/acme/review-notes/blob/notes/library/{note.id}.md?plain=1"
    assert data["source_file_url"] == link


def test_the_comments_link_to_a_note_in_a_sub_folder_is_its_file(tmp_path):
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "seeds" / "notes", notes / "deepseek")
    settings = make_settings(
        tmp_path, notes_dir=notes, note_links="github", notes_github_repo="acme/review-notes"
    )
    with serving(settings) as (_, rt):
        note = rt.ctx.library.notes[0]
        link = rt.ctx.links.url(note)
    assert (
        link
        == f"https://github.com/acme/review-notes/blob/main/seeds/notes/deepseek/{note.id}.md?plain=1"
    )


# --- start-up ----------------------------------------------------------------------


def _matching_file_with_unknown_family(tmp_path: Path) -> tuple[Path, str]:
    """The shipped matching.toml with `kv-connectors`, no topic, as its family topic."""
    text = (ROOT / "config" / "matching.toml").read_text()
    text = text.replace('family_topics = ["kv-connector"]', 'family_topics = ["kv-connectors"]')
    text = text.replace('vocabulary = "', f'vocabulary = "{ROOT / "config"}/')
    bad = tmp_path / "matching.toml"
    bad.write_text(text)
    return bad, text


def test_a_matching_file_naming_an_unknown_topic_stops_the_start(tmp_path):
    # Found only when a delivery compiled the matcher, it failed every delivery. Said as
    # `notes check` says it: naming the taxonomy the server read (here a copy)
    bad, text = _matching_file_with_unknown_family(tmp_path)
    line = text.split("\n").index('family_topics = ["kv-connectors"]') + 1
    topics = shutil.copy(ROOT / "config" / "topics.toml", tmp_path)
    said = (
        f"FILE: {bad}:{line}: family_topics: unknown topic 'kv-connectors': no topic has this"
        f" id in {topics}; did you mean"
    )
    with pytest.raises(StartupError, match=re.escape(said)):
        build_runtime(make_settings(tmp_path, matching_file=bad, topics_file=topics))


def test_an_empty_notes_directory_stops_the_start(tmp_path):
    # With no notes, every comment the bot made would be edited to "no note matches".
    empty = tmp_path / "notes"
    empty.mkdir()
    with pytest.raises(LibraryError, match=re.escape(f"{empty}:1: notes: no notes")):
        build_runtime(make_settings(tmp_path, notes_dir=empty))


# --- the rest of the app -------------------------------------------------------------


def test_the_comments_note_link_is_served_by_the_same_app(app):
    client, rt = app
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES))
    drain(rt)
    body = rt.dry_run.comments()[0]["body"]
    link = re.search(
        r"\[full guidance \(Chinese\)\]\((http://127\.0\.0\.1:8000)(/notes/[^)]+)\)", body
    )
    assert link, body
    page = client.get(link.group(2))
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


def test_metrics_count_deliveries_queue_and_comments(app):
    client, rt = app
    post(client, "pull_request", pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES))
    post(client, "pull_request", pr_payload(action="assigned"))
    client.post("/webhook", content=b"{}", headers={"X-GitHub-Event": "push"})
    drain(rt)
    text = client.get("/metrics").text
    assert 'review_notes_deliveries_total{event="pull_request",outcome="queued"} 1.0' in text
    assert 'review_notes_deliveries_total{event="pull_request",outcome="done"} 1.0' in text
    assert 'review_notes_deliveries_total{event="pull_request",outcome="ignored"} 1.0' in text
    assert 'review_notes_deliveries_total{event="unverified",outcome="bad_signature"} 1.0' in text
    assert 'review_notes_queue_depth{state="done"} 1.0' in text
    assert 'review_notes_comments_total{outcome="created"} 1.0' in text


# kills: bot/webhook.py:WebhookEndpoint.__call__ a body over 25 MB not counted
# kills: bot/webhook.py:WebhookEndpoint.check a signed body that is no JSON object not counted
# kills: bot/webhook.py:WebhookEndpoint.__init__ a delivery without an event header counted as
# "other"
# kills: bot/webhook.py:WebhookEndpoint.check the ping's zen not answered back
def test_metrics_count_each_refusal_and_answer_by_outcome(app):
    client, _ = app
    too_large = {"Content-Length": str(25 * 1024 * 1024 + 1), "X-GitHub-Event": "ping"}
    assert client.post("/webhook", content=b"{}", headers=too_large).status_code == 413
    assert post(client, "pull_request", b"[1, 2]").status_code == 400
    body = json.dumps(pr_payload()).encode()
    no_event = {"X-Hub-Signature-256": sign(SECRET, body), "X-GitHub-Delivery": "no-event"}
    assert client.post("/webhook", content=body, headers=no_event).status_code == 400
    pong = post(client, "ping", {"zen": "Keep it logically awesome.", "hook_id": 1})
    assert pong.json() == {"status": "pong", "zen": "Keep it logically awesome."}
    text = client.get("/metrics").text
    for event, outcome in (
        ("unverified", "too_large"),
        ("pull_request", "bad_request"),
        ("unknown", "bad_request"),
        ("ping", "pong"),
    ):
        line = f'review_notes_deliveries_total{{event="{event}",outcome="{outcome}"}} 1.0'
        assert line in text, line


def test_the_app_created_page_gives_the_commands_the_docs_give(app):
    # docs/operating.md says the page "shows the command to run within one hour" and
    # gives two: the exchange and the key saved to app.pem; the page gave the first and
    # "(save pem to a file)", leaving the operator to write the second.
    client, _ = app
    page = client.get("/github/app-created?code=CODE").text
    docs = (ROOT / "docs" / "operating.md").read_text("utf-8")
    step = docs[docs.index("GitHub sends the browser to `/github/app-created") :]
    block = step[step.index("```sh") + len("```sh") : step.index("```", step.index("```sh") + 5)]
    commands = [line.strip() for line in block.splitlines() if line.strip()]
    assert any("['pem']" in c for c in commands), commands
    for command in commands:
        command = command.split("  #")[0].rstrip().replace(" \\", "")  # its comment, its fold
        if command.startswith("https://"):  # the curl's folded URL, joined on the page
            continue
        assert command in page, (command, page)


def test_app_created_page_explains_the_code_exchange(app):
    client, _ = app
    r = client.get("/github/app-created?code=abc123")
    assert r.status_code == 200
    assert "https://api.github.com/app-manifests/abc123/conversions" in r.text
    refused = client.get("/github/app-created?code=a;rm").text
    assert "No valid" in refused
    # It sends the operator to the form where it is (it said "README" after the form
    # moved to docs/operating.md): the file it names has the section and the form.
    where = re.search(r'\((docs/[a-z]+\.md), "([^"]+)"\)', refused)
    assert where, refused
    text = (ROOT / where[1]).read_text("utf-8")
    assert f"\n## {where[2]}" in text and 'name="manifest"' in text


def test_an_unknown_page_is_an_html_page_for_a_browser_and_json_for_the_rest(app):
    from test_pages import CHROME_ACCEPT

    client, _ = app
    r = client.get("/notess", headers={"accept": CHROME_ACCEPT})
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "no page at /notess" in r.text and 'href="/notes"' in r.text
    assert "default-src 'none'" in r.headers["content-security-policy"]
    hostile = client.get("/<script>x</script>", headers={"accept": CHROME_ACCEPT})
    assert hostile.status_code == 404 and "<script>" not in hostile.text
    for accept in ("*/*", "application/json"):
        r = client.get("/notess", headers={"accept": accept})
        assert r.status_code == 404 and r.json() == {"detail": "Not Found"}
    # ?format= wins, as on the notes pages
    asked = client.get("/notess?format=json", headers={"accept": CHROME_ACCEPT})
    assert asked.json() == {"detail": "Not Found"}
    assert "no page at" in client.get("/notess?format=html").text
    # a wrong method stays a 405, also for a browser
    assert client.get("/webhook", headers={"accept": CHROME_ACCEPT}).status_code == 405


# --- the pages as their readers use them ---


# kills: bot/server.py:create_app.no_such_page (hand) the JSON 404 without Vary: a cache in
#   front of the bot kept a curl's JSON for a stale link and gave it to browsers
def test_an_unknown_page_says_its_answer_depends_on_accept_in_both_forms(app):
    from test_pages import CHROME_ACCEPT

    client, _ = app
    for accept in (CHROME_ACCEPT, "*/*"):
        r = client.get("/notes/n1/sourc", headers={"accept": accept})
        assert r.status_code == 404 and r.headers["vary"] == "Accept", accept


# --- the app and its routes ---


# kills: bot/server.py:_operator_routes.dry_run_comments a live server's /dry-run/comments answered
# 200 `null`, not 404
def test_dry_run_comments_are_a_404_saying_why_on_a_live_server(tmp_path, fake_github, app_key):
    with serving(app_settings(tmp_path, fake_github, app_key)) as (client, _):
        r = client.get("/dry-run/comments")
    assert r.status_code == 404 and r.json() == {"error": "not in dry-run mode"}


# kills: bot/server.py:_operator_routes.dry_run_comments (hand) ?repo= left out of the comments:
# another repository's PR of the same number listed with them
def test_dry_run_comments_of_one_repository_leave_the_others_out(app):
    client, rt = app
    rt.dry_run.create_comment(PRRef("vllm-project/vllm", 1), "ours")
    rt.dry_run.create_comment(PRRef("other/repo", 1), "theirs")
    mine = client.get("/dry-run/comments", params={"repo": "vllm-project/vllm", "number": 1})
    assert [c["body"] for c in mine.json()["comments"]] == ["ours"]


def test_the_dry_run_comment_of_any_pr_number_a_delivery_may_carry_can_be_asked_for(app):
    # The webhook takes PR numbers up to 2**53 - 1 (bot.dispatch.payload_id); ?number=
    # stopped at 2**31 - 1 (SQLite's INTEGER holds 64 bits), so such a PR's would-be
    # comment was stored but asking for it was a 422.
    client, rt = app
    for number in (2**31, 2**53 - 1):
        payload = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES, number=number)
        assert post(client, "pull_request", payload).status_code == 202
    drain(rt)
    for number in (2**31, 2**53 - 1):
        r = client.get("/dry-run/comments", params={"number": number})
        assert r.status_code == 200, r.text
        assert [c["number"] for c in r.json()["comments"]] == [number]
    assert client.get("/dry-run/comments", params={"number": 2**53}).status_code == 422


# kills: bot/server.py:_operator_routes.dry_run_comments (hand) ?number= below 1 taken (an empty
# list), not a 422
def test_dry_run_comments_of_a_number_below_1_are_a_422(app):
    client, _ = app
    for number in (0, -1):
        assert client.get("/dry-run/comments", params={"number": number}).status_code == 422


# kills: bot/server.py:_operator_routes.app_created (hand) an empty code taken: the page said to
# exchange `app-manifests//conversions`; and a code past 100 characters taken
# kills: bot/server.py:_operator_routes (hand) the page sent as a JSON string, not plain text
def test_the_app_created_page_takes_a_code_of_1_to_100_characters_as_plain_text(app):
    client, _ = app
    r = client.get("/github/app-created", params={"code": "a" * 100})
    assert r.headers["content-type"].startswith("text/plain")
    assert r.text.startswith("GitHub App created.") and f"/{'a' * 100}/conversions" in r.text
    for code in ("", "a" * 101):
        r = client.get("/github/app-created", params={"code": code})
        assert r.text.startswith("No valid ?code="), code
    assert client.get("/github/app-created").text.startswith("No valid ?code=")


# kills: bot/server.py:WebhookFirst.__call__ every POST but one to /webhook handed to the webhook
# endpoint
# kills: bot/server.py:WebhookFirst.__call__ (hand) every POST elsewhere answered as a delivery
def test_a_signed_delivery_posted_to_another_path_is_404_and_queues_nothing(app):
    client, rt = app
    for path in ("/notes", "/healthz", "/metrics"):  # GET routes: a delivery finds no webhook
        assert post(client, "pull_request", pr_payload(), path=path).status_code == 404
        assert client.post(path).status_code == 405  # not GitHub's: the router's answer
    assert sum(rt.queue.counts().values()) == 0


# kills: bot/server.py:create_app (hand) FastAPI's API docs pages (/docs, /redoc) served
def test_no_api_docs_pages_are_served(app):
    client, _ = app
    for path in ("/docs", "/redoc"):
        assert client.get(path).status_code == 404, path


# kills: bot/server.py:_route_with_other_slash (hand) `/notes//` redirected to `/notes/` (a 404),
# not `/notes`
# kills: bot/server.py:_route_with_other_slash (hand) a page's slash form asked with another method
# a 404, not redirected to the page (which answers 405) as Starlette's own redirect did
def test_the_slash_redirect_drops_every_trailing_slash_whatever_the_method(app):
    client, _ = app
    r = client.get("/notes//", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/notes"
    r = client.post("/topics/", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/topics"


# kills: bot/server.py:create_app.no_such_page (hand) the redirect's path not quoted again:
# RedirectResponse quotes the rest but keeps `?`, `#` and `%`, so a mistyped link's `%3F` became a
# query
def test_the_slash_redirect_keeps_an_escaped_question_mark_hash_or_percent_escaped(app):
    client, _ = app
    r = client.get("/notes/a%3Fb%23c%25d/", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/notes/a%3Fb%23c%25d"


# kills: bot/server.py:HeadAsGet.__call__.answered HEAD's body messages passed on with the GET's
# body
# kills: bot/server.py:HeadAsGet.__call__.answered (hand) the same, the body kept: uvicorn and
# the test client drop it themselves, an ASGI server need not (RFC 9110: a HEAD answer has no
# content)
def test_head_hands_the_asgi_server_headers_and_no_body(tmp_path):
    rt = build_runtime(make_settings(tmp_path))
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "HEAD",
        "scheme": "http",
        "path": "/notes",
        "raw_path": b"/notes",
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    try:
        asyncio.run(create_app(rt)(scope, receive, send))
    finally:
        rt.db.close()
    start, *bodies = sent
    assert start["type"] == "http.response.start" and start["status"] == 200
    assert int(dict(start["headers"])[b"content-length"]) > 0  # the GET's, as RFC 9110 allows
    assert bodies and all(m["type"] == "http.response.body" for m in bodies)
    assert b"".join(m.get("body", b"") for m in bodies) == b""


# --- /healthz while the disk is full, past a duplicate delivery ---


# kills: bot/webhook.py:WebhookEndpoint.answer a delivery SQLite refused not counted as an error
# kills: bot/webhook.py:WebhookEndpoint.answer a duplicate delivery not counted
def test_healthz_keeps_failing_while_the_disk_is_full_even_after_a_duplicate(tmp_path, caplog):
    # docs/operating.md (/healthz): "When SQLite refused to store the last delivery (a full disk
    # ...), 503 with "status": "failing" ... until a delivery is stored again". A delivery
    # already stored, sent again (a redelivery from the App's settings keeps its id; a
    # replay keeps its body), writes nothing: ON CONFLICT DO NOTHING commits on a full
    # disk. It is answered 200 "duplicate", and that cleared `failing`: /healthz said
    # 200 "ok" (the image's HEALTHCHECK healthy) while every new delivery still got a 500
    # and was lost.
    rt = build_runtime(make_settings(tmp_path))
    # as GitHub sees it: a 500, not the exception re-raised into the test
    with TestClient(create_app(rt), raise_server_exceptions=False) as client:
        stored = post(client, "pull_request", pr_payload(title="one"), delivery="d-stored")
        assert stored.status_code == 202
        drain(rt)
        conn = rt.queue.db._conn
        with rt.queue.db._lock:  # the volume fills up: no page more for the database
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages}")
        big = pr_payload(title="two", body="x " * 200_000)
        with caplog.at_level(logging.INFO):
            refused = post(client, "pull_request", big, delivery="d-new-1")
        assert refused.status_code == 500 and refused.json()["delivery"] == "d-new-1"
        # named, with why and what asks GitHub again (uvicorn's traceback
        # named neither the delivery nor the way to get it back)
        named = [r for r in caplog.records if "d-new-1" in r.getMessage()]
        assert [r.levelname for r in named] == ["ERROR"] and not named[0].exc_info
        assert "full" in named[0].getMessage() and "redeliver" in named[0].getMessage()
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["status"] == "failing"

        again = post(client, "pull_request", pr_payload(title="one"), delivery="d-stored")
        assert again.status_code == 200 and again.json()["status"] == "duplicate"
        # the disk is still full: a new delivery is refused as the last one was
        assert post(client, "pull_request", big, delivery="d-new-2").status_code == 500
        again = post(client, "pull_request", pr_payload(title="one"), delivery="d-stored")
        assert again.json()["status"] == "duplicate"
        r = client.get("/healthz")
        assert r.status_code == 503, (
            "a duplicate, which stored nothing, made /healthz say ok on a full disk: "
            f"{r.json()['status']}"
        )
        with rt.queue.db._lock:  # space again: the next delivery stored clears it
            conn.execute("PRAGMA max_page_count = 1073741823")
        assert post(client, "pull_request", big, delivery="d-new-3").status_code == 202
        r = client.get("/healthz")
        assert r.status_code == 200 and r.json()["status"] == "ok"
        text = client.get("/metrics").text
    for outcome in ("error", "duplicate"):  # two of each
        line = f'review_notes_deliveries_total{{event="pull_request",outcome="{outcome}"}} 2.0'
        assert line in text, line


# --- the trailing slash's redirect under the public URL's path ---


def stripping_proxy(prefix: str, app):
    """docs/operating.md's deployment under a path: a reverse proxy that serves the bot at `prefix`
    and strips it (nginx `location /review-notes/ { proxy_pass http://bot/; }`), keeping
    the Host header. Anything outside the prefix is not the bot's: the proxy's 404."""
    from starlette.responses import PlainTextResponse

    async def proxy(scope, receive, send):
        if scope["type"] == "http":
            path = scope["path"]
            if not path.startswith(prefix + "/"):
                await PlainTextResponse("not routed to the bot", 404)(scope, receive, send)
                return
            inner = path[len(prefix) :]
            scope = {**scope, "path": inner, "raw_path": inner.encode()}
        await app(scope, receive, send)

    return proxy


@pytest.mark.parametrize("page", ["/notes/", "/topics/", "/notes/vllm-0436d44c/"])
def test_trailing_slash_redirect_stays_under_the_public_url_path(tmp_path, page):
    # docs/settings.md (REVIEW_NOTES_PUBLIC_URL): "It may end in a path ... the pages keep it in
    # their links". https://example.org/review-notes/notes/ (a trailing slash, as many
    # type) got Starlette's 307 to https://example.org/notes -- built from the stripped
    # path, so the browser landed outside the bot (the proxy's 404).
    from test_pages import CHROME_ACCEPT

    settings = make_settings(tmp_path, public_url="https://example.org/review-notes")
    proxy = stripping_proxy("/review-notes", create_app(build_runtime(settings)))
    with TestClient(proxy, base_url="https://example.org") as client:
        first = client.get(
            "/review-notes" + page, headers={"accept": CHROME_ACCEPT}, follow_redirects=False
        )
        if first.is_redirect:
            assert first.headers["location"].startswith("https://example.org/review-notes/"), (
                f"redirected out of the public path: {first.headers['location']}"
            )
        final = client.get("/review-notes" + page, headers={"accept": CHROME_ACCEPT})
        assert final.status_code == 200, (final.status_code, final.url, final.text[:80])


def test_without_a_public_url_the_slash_redirect_is_root_relative_and_keeps_the_query(app):
    client, _ = app
    r = client.get("/notes/?topic=rocm&q=a%20b", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/notes?topic=rocm&q=a%20b"
    assert client.get("/nope/", follow_redirects=False).status_code == 404


# --- what the start blames on which setting; refused deliveries in the log ---


def test_only_the_keys_own_fault_is_blamed_on_the_key(tmp_path, app_key):
    # `live_github` caught every ValueError from building the client and put it on the
    # credential's variable: a GitHub Enterprise port mistyped ('84a3') was reported as
    #   GITHUB_PRIVATE_KEY: Port could not be cast to integer value as '84a3'
    # so the operator checked a key that was fine. The settings now refuse such a URL
    # (tests/test_settings.py); here one that got past them.
    from bot.server import live_github

    live = dict(
        github_app_id="4242",
        github_webhook_secret="s3cret-of-the-hook",
        public_url="https://notes.example.org",
        db_path=tmp_path / "bot.sqlite3",
    )
    settings = load_settings(env_file=None, github_private_key=app_key.private_pem, **live)
    bad_url = settings.model_copy(update={"github_api_url": "https://ghe.example.com:84a3/api/v3"})
    with pytest.raises(StartupError) as exc:
        live_github(bad_url)
    assert "84a3" in str(exc.value) and "GITHUB_" not in str(exc.value), exc.value
    # a PEM that signs nothing is the key's fault, and named so
    unusable = "-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAK\n-----END RSA PRIVATE KEY-----\n"
    with pytest.raises(SettingsError, match=r"^GITHUB_PRIVATE_KEY: .*not a usable"):
        live_github(load_settings(env_file=None, github_private_key=unusable, **live))


@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_malformed_api_url_is_named_as_github_api_url(tmp_path, app_key, mode):
    # App mode said "GITHUB_PRIVATE_KEY: Port could not be cast ..."; token mode said
    # nothing at all: the server started and every delivery failed.
    from bot.server import live_github

    creds = (
        dict(github_app_id="4242", github_private_key=app_key.private_pem)
        if mode == "app"
        else dict(github_token="ghp_" + "a" * 36)
    )
    with pytest.raises((SettingsError, StartupError)) as exc:
        settings = load_settings(
            env_file=None,
            github_api_url="https://ghe.example.com:84a3/api/v3",
            github_webhook_secret="s3cret-of-the-hook",
            public_url="https://notes.example.org",
            db_path=tmp_path / "bot.sqlite3",
            **creds,
        )
        live_github(settings).close()
    problem = str(exc.value)
    assert problem.startswith("GITHUB_API_URL"), problem
    assert "GITHUB_PRIVATE_KEY" not in problem and "GITHUB_TOKEN" not in problem, problem


def _refusals(caplog) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and "refused (401)" in r.getMessage()
    ]


def test_a_delivery_with_a_wrong_signature_is_logged(tmp_path, caplog):
    # With a webhook secret that is not GitHub's (a typo, or the App's secret changed),
    # every delivery was a 401 and the server logged nothing at INFO (only /metrics
    # counted "unverified"), and /healthz said "ok" with nothing pending or failed: the
    # server looked like one nobody calls.
    caplog.set_level(logging.INFO)
    wrong = "not-the-servers-secret"
    body = json.dumps(pr_payload()).encode()
    with serving(make_settings(tmp_path)) as (client, _rt):
        r = post(client, "pull_request", body, delivery="d-typo", secret=wrong)
        assert r.status_code == 401
        health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["pending"] == health["failed"] == 0
    [said] = _refusals(caplog)
    assert "d-typo" in said and "pull_request" in said, said
    assert "does not verify with GITHUB_WEBHOOK_SECRET" in said, said
    for secret in (SECRET, wrong, sign(wrong, body), sign(wrong, body).removeprefix("sha256=")):
        assert secret not in caplog.text


# kills: bot/webhook.py:Throttle.__init__ the first refusal logged as if one had been held back
# before it
def test_refused_signatures_are_logged_once_a_minute_with_a_count(tmp_path, caplog):
    # anyone can send unsigned deliveries: one line each would flood the log
    caplog.set_level(logging.INFO)
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    now = [1000.0]
    endpoint.unverified.clock = lambda: now[0]

    def refuse(delivery: str, signature: str | None = "sha256=" + "0" * 64) -> None:
        headers = {b"x-github-event": b"push", b"x-github-delivery": delivery.encode()}
        if signature is not None:
            headers[b"x-hub-signature-256"] = signature.encode()
        assert endpoint.check(headers, b"{}")[0] == 401

    try:
        refuse("d-1", signature=None)
        for i in range(2, 7):
            now[0] += 10
            refuse(f"d-{i}\n")
        now[0] += 10  # a minute after the first line
        refuse("d-7")
    finally:
        rt.db.close()
    first, second = _refusals(caplog)
    assert "d-1 push" in first and "no X-Hub-Signature-256" in first, first
    assert "more refused" not in first, first
    assert "d-7 push" in second and "5 more refused since the last such line" in second
    assert "d-2" not in caplog.text


def test_an_event_without_an_action_is_logged_as_the_event_alone(tmp_path, caplog):
    # it read "pull_request.None ignored", form-encoded (as a repository hook may send
    # it) or JSON alike
    caplog.set_level(logging.INFO)
    payload = pr_payload()
    del payload["action"]
    form = ("payload=" + quote(json.dumps(payload))).encode()
    with serving(make_settings(tmp_path)) as (client, _rt):
        kind = {"Content-Type": "application/x-www-form-urlencoded"}
        r = post(client, "pull_request", form, delivery="d-form", headers=kind)
        assert r.status_code == 202
        assert post(client, "pull_request", payload, delivery="d-json").status_code == 202
    said = [r.getMessage() for r in caplog.records if " ignored: " in r.getMessage()]
    assert said == [
        f"delivery d-{how} pull_request ignored: no handler for pull_request"
        for how in ("form", "json")
    ]


def test_a_signed_delivery_refused_as_malformed_is_logged_with_why(tmp_path, caplog):
    # GitHub does not send a delivery answered 400 again: without a line naming it and
    # why, only the access log and a counter said one was lost
    caplog.set_level(logging.INFO)
    bad_number = pr_payload()
    bad_number["pull_request"]["number"] = "x"
    with serving(make_settings(tmp_path)) as (client, _rt):
        assert post(client, "pull_request", b"[1, 2]", delivery="d-list").status_code == 400
        assert post(client, "pull_request", bad_number, delivery="d-shape").status_code == 400
        assert post(client, "installation", {"action": 3}, delivery="d-inst").status_code == 400
        body = json.dumps(pr_payload()).encode()
        headers = {"X-Hub-Signature-256": sign(SECRET, body), "X-GitHub-Event": "ping"}
        assert client.post("/webhook", content=body, headers=headers).status_code == 400
    said = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and "refused (400)" in r.getMessage()
    ]
    assert len(said) == 4, said
    assert "d-list pull_request refused (400): body is not a JSON object" in said[0]
    assert "d-shape pull_request refused (400): malformed pull_request payload" in said[1]
    assert "d-inst installation refused (400): malformed installation payload" in said[2]
    assert "(none) unknown refused (400): missing X-GitHub-Event or X-GitHub-Delivery" in said[3]
    assert SECRET not in caplog.text


def test_an_upgrade_leaves_failed_deliveries_to_review_notes_retry(tmp_path, monkeypatch):
    # The README's Deploy (now docs/operating.md) said an upgrade "resumes what the old
    # one left pending, processing or failed"; an operator upgrading to a release that
    # fixes what made deliveries fail read that as: they run again. They do not
    # (Runtime.start -> queue.recover puts back `processing` ones only, as after any
    # restart): the docs now say they wait for `review-notes retry --all`. Both are
    # checked, so they cannot part again.
    from bot import cli

    operating = doc("operating.md")
    upgrading = operating[operating.index("Upgrading keeps the database") :]
    upgrading = " ".join(upgrading[: upgrading.index("\n\n")].split())
    assert "resumes what the old one left pending or processing" in upgrading, upgrading[:300]
    assert "left failed stay failed" in upgrading and "review-notes retry --all" in upgrading

    db = tmp_path / "bot.sqlite3"
    with serving(make_settings(tmp_path, db_path=db)) as (client, rt):  # the old release
        for delivery, number in (("failed-before", 7001), ("interrupted-before", 7002)):
            r = post(client, "pull_request", pr_payload(number=number), delivery=delivery)
            assert r.status_code == 202
        assert wait_idle(rt.queue, 20)
    with sqlite3.connect(db) as conn:  # one had failed there, one was cut short
        conn.execute(
            "UPDATE deliveries SET state = 'failed', last_error = 'GitHubError: 502'"
            " WHERE id = 'failed-before'"
        )
        conn.execute("UPDATE deliveries SET state = 'processing' WHERE id = 'interrupted-before'")
    conn.close()
    with serving(make_settings(tmp_path, db_path=db)) as (client, rt):  # the new release
        wait_until(lambda: str(rt.queue.get("interrupted-before").state) == "done")
        assert str(rt.queue.get("failed-before").state) == "failed"
        monkeypatch.setenv("REVIEW_NOTES_DB_PATH", str(db))
        assert cli.main(["retry", "--all"]) == 0  # as docs/operating.md says
        wait_until(lambda: str(rt.queue.get("failed-before").state) == "done")


def test_app_credentials_github_refuses_stop_the_start(tmp_path, fake_github, app_key):
    # An operator who put the installation id (or another App's id) in GITHUB_APP_ID got
    # a server that started, logged nothing and answered /healthz "ok": GitHub was first
    # asked at the first PR event, which failed ("401 A JSON web token could not be
    # decoded"). The check at construction only signed a JWT locally.
    from tests.webhook_kit import app_settings

    settings = app_settings(tmp_path, fake_github, app_key, github_app_id="987654")
    with pytest.raises(SettingsError) as exc:
        build_runtime(settings)
    problem = str(exc.value)
    assert "\n" not in problem and problem.startswith("GITHUB_APP_ID: GitHub refused"), problem
    assert "401" in problem and "GITHUB_PRIVATE_KEY" in problem, problem
    assert len(fake_github.calls("GET", "/app")) == 1  # asked once, not retried


@pytest.mark.parametrize("fault", ["502", "dropped"])
def test_a_start_while_github_is_down_warns_and_starts(
    tmp_path, fake_github, app_key, caplog, fault
):
    # a restart during a GitHub outage must work: the deliveries wait in the queue
    from tests.fake_github import Fault
    from tests.webhook_kit import app_settings

    caplog.set_level(logging.INFO)
    fake_github.inject("GET", "/app", Fault.error(502) if fault == "502" else Fault.dropped())
    with serving(app_settings(tmp_path, fake_github, app_key)) as (client, _rt):
        assert client.get("/healthz").json()["status"] == "ok"
    warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("starting anyway" in m and "GITHUB_APP_ID" in m for m in warned), warned
    assert len(fake_github.calls("GET", "/app")) == 1  # one try: no outage waited out


def test_the_start_asks_for_the_app_once_for_the_login_too(tmp_path, fake_github, app_key):
    from tests.fake_github import DEFAULT_APP_SLUG
    from tests.webhook_kit import app_settings

    with serving(app_settings(tmp_path, fake_github, app_key)) as (_client, rt):
        assert rt.ctx.github.bot_login() == f"{DEFAULT_APP_SLUG}[bot]"
    assert len(fake_github.calls("GET", "/app")) == 1


# --- /favicon.ico under the public URL's path ---


def test_favicon_ico_is_the_icon_under_the_public_url_path(tmp_path):
    # the plain-text source page names no icon: the browser's /favicon.ico was a 404
    settings = make_settings(tmp_path, public_url="https://example.org/review-notes")
    proxy = stripping_proxy("/review-notes", create_app(build_runtime(settings)))
    with TestClient(proxy, base_url="https://example.org") as client:
        first = client.get("/review-notes/favicon.ico", follow_redirects=False)
        assert first.headers["location"] == "https://example.org/review-notes/assets/favicon.svg"
        icon = client.get("/review-notes/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"


# --- the webhook signature's check ---


# kills: bot/signature.py:verify hmac.compare_digest(...) -> sign(...) == header.strip()
def test_signature_is_compared_in_constant_time(monkeypatch):
    seen = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr("bot.signature.hmac.compare_digest", spy)
    body = b'{"x": 1}'
    assert verify("s3cret", body, sign("s3cret", body))
    assert not verify("s3cret", body, sign("other", body))
    assert len(seen) == 2


# kills: bot/signature.py:verify header.strip().encode -> header.encode
def test_signature_header_with_trailing_whitespace_still_verifies():
    body = b"payload"
    assert verify("k", body, sign("k", body) + " \r\n")


# --- the start's redelivery sweep on a stop; the refusals' log and put-backs ---


def test_a_server_shutting_down_asks_github_for_no_more_redeliveries(tmp_path):
    """The start's redelivery sweep runs in its own thread: a stop (the first signal, or
    Runtime.stop) left it asking GitHub for every delivery it had listed."""
    from bot.redelivery import Redeliverer
    from tests.test_redelivery import FakeLog, item

    rt = build_runtime(make_settings(tmp_path))
    github = FakeLog([item(i, f"g{i}", 0) for i in range(1, 4)])
    rt.stopping.set()  # as handle_exit does at the first signal
    sweeps = Redeliverer(github, rt.queue, rt.ctx.metrics, rt.stopping, on_start=True, every_s=3600)
    sweeps.run()  # returns at once: no sweep after it either
    assert github.asked == []
    rt.stopping.clear()
    rt.stop()
    assert rt.stopping.is_set()


def test_a_stopped_server_leaves_no_redelivery_sweep_calling_github(tmp_path, fake_github, app_key):
    """Runtime.stop set `stopping` but did not wait for the start's sweep: stopped (its
    database and GitHub client closed), the server still had a thread waiting to try a
    redelivery GitHub had answered 502 again, which then called GitHub. Stop now waits
    for the sweep (bounded), which stops after the call under way."""
    from tests.fake_github import Fault
    from tests.webhook_kit import app_settings

    fake = fake_github
    for n in (1, 2, 3):  # sent while no server ran: all three to ask for again
        assert fake.send_webhook("pull_request", pr_payload(number=n)).status_code == 0
    attempts = "/app/hook/deliveries/*/attempts"
    fake.inject("POST", attempts, Fault.error(502))  # retried after retry_backoff (1 s)
    rt = build_runtime(app_settings(tmp_path, fake, app_key))
    rt.start()
    thread = rt.redeliver_in_background()
    assert thread is not None
    wait_until(lambda: fake.calls("POST", attempts), what="the first redelivery asked")
    rt.stop()
    stopped = len(fake.requests)
    assert not thread.is_alive()
    assert [c.status for c in fake.calls("POST", attempts)] == [502, 202]  # then it stopped
    time.sleep(1.5)  # a sweep left running would have asked again by now
    assert len(fake.requests) == stopped


def test_the_docs_say_how_a_token_setup_gets_a_refused_delivery_again():
    # The README (now docs/operating.md) sent the operator of a full disk only to
    # `review-notes redeliver`, which needs the App's credentials: with a token (a
    # repository webhook) it refuses, and the way left, the webhook's Recent Deliveries,
    # was not named.
    operating = " ".join(doc("operating.md").split())
    healthz = operating[operating.index("- **`intake_error`**:") :]
    healthz = healthz[: healthz.index("- **`worker_error`**")]  # Reading /healthz's item
    reliability = " ".join(doc("reliability.md").split())  # how each failure is handled
    disk = reliability[reliability.index("When SQLite cannot store a delivery as it arrives") :]
    disk = disk[: disk.index("When SQLite cannot store a delivery's outcome")]
    for text in (healthz, disk):
        assert "review-notes redeliver" in text and "Recent Deliveries" in text, text


def test_the_refusal_log_spacing_and_the_put_backs_come_from_the_settings(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    settings = make_settings(tmp_path, max_deferrals=3, seconds_between_unverified_logs=10)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    now = [1000.0]
    endpoint.unverified.clock = lambda: now[0]
    headers = {b"x-github-event": b"push", b"x-github-delivery": b"d-1"}
    try:
        assert rt.queue.max_deferrals == 3
        assert endpoint.check(headers, b"{}")[0] == 401
        now[0] += 9.9
        assert endpoint.check(headers, b"{}")[0] == 401  # held back
        now[0] += 0.1
        assert endpoint.check(headers, b"{}")[0] == 401
    finally:
        rt.db.close()
    assert len(_refusals(caplog)) == 2


# --- a stop while the redelivery sweep lists GitHub's delivery log ---


def test_a_stop_during_the_redelivery_listing_is_bounded(tmp_path, fake_github, app_key):
    """Runtime.stop "waits (10 s at most) for the start's redelivery sweep", which "stops
    after the call under way" ("Bounded, as every stage"). Neither holds while the sweep
    lists GitHub's delivery log: it checks `stopping` only between redeliveries, and the
    listing (GitHubClient.hook_deliveries: 100 a page, following the Link cursor back to
    `since`, up to three days after a long outage) is many calls with no check between
    them, each holding the client's `app_lock` (`GitHubSessions`). After the 10 s join,
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


def test_a_stop_during_the_listing_logs_no_traceback(tmp_path, fake_github, app_key, caplog):
    """A sweep stopped while it lists reads nothing from the queue (closed by the stop):
    one warning saying so, no "redelivery at start failed" with a traceback."""
    fake = fake_github
    for n in range(150):  # two pages
        assert fake.send_webhook("pull_request", pr_payload(number=n + 1)).status_code == 0
    listing = "/app/hook/deliveries"
    fake.inject("GET", listing, Fault(delay=1.0, apply=True))
    rt = build_runtime(app_settings(tmp_path, fake, app_key))
    rt.start()
    with caplog.at_level(logging.INFO):
        thread = rt.redeliver_in_background()
        assert thread is not None
        time.sleep(0.3)  # the first page is under way
        rt.stop()
        thread.join(5)
    assert not thread.is_alive()
    assert len(fake.calls("GET", listing)) == 1
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    stopped = [r.getMessage() for r in caplog.records if "while listing" in r.getMessage()]
    assert len(stopped) == 1 and "100 attempts listed" in stopped[0], stopped


# --- malformed deliveries, another process's lock, the start's first write ---


# kills: webhook.WebhookEndpoint.check: RecursionError dropped from the parse errors
def test_a_body_nested_past_pythons_stack_is_400_not_a_crash(app):
    client, rt = app
    r = post(client, "pull_request", b"[" * 100_000, delivery="too-deep")
    assert r.status_code == 400 and rt.queue.get("too-deep") is None


# kills: webhook.WebhookEndpoint.triage: `pr_number < 2**53` -> `pr_number <= 2**53`
@pytest.mark.parametrize("number", [2**53])  # (0 never routes: not a PR, so ignored)
def test_a_pull_request_number_out_of_range_is_400(app, number):
    client, rt = app
    r = post(client, "pull_request", pr_payload(number=number), delivery=f"n-{number}")
    assert r.status_code == 400 and "out of range" in r.json()["error"]
    assert rt.queue.get(f"n-{number}") is None


# kills: webhook.WebhookEndpoint.triage: AttributeError, OverflowError dropped from the 400s
@pytest.mark.parametrize("shape", ["repository", "number"])
def test_a_signed_payload_not_of_githubs_shape_is_400(app, shape):
    client, rt = app
    payload = pr_payload()
    if shape == "repository":
        payload["repository"] = ["vllm-project/vllm"]  # AttributeError
    else:
        payload["pull_request"]["number"] = float("inf")  # OverflowError
    r = post(client, "pull_request", payload, delivery="misshapen")
    assert r.status_code == 400 and "malformed" in r.json()["error"]


# kills: bot/webhook.py:WebhookEndpoint.installation TypeError dropped from the 400s (a 500 for
# GitHub to retry)
# kills: bot/webhook.py:WebhookEndpoint Python's own message of the error answered, not only its
# kind
def test_a_check_that_raises_is_400_naming_only_the_errors_kind(tmp_path):
    # every shape the sweeps found is named by a check now (MalformedPayload); one a check
    # still reads wrong answers its kind only, never Python's message of the payload
    def check(payload: dict) -> str | None:
        raise TypeError(f"unsupported operand: {payload['action']}")

    dispatcher = Dispatcher()
    dispatcher.add(Route("pull_request", None, lambda ctx, d: "run", check))
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    body = json.dumps(pr_payload(action="op-secret")).encode()
    headers = {
        b"x-github-event": b"pull_request",
        b"x-github-delivery": b"d-1",
        b"x-hub-signature-256": sign(SECRET, body).encode(),
    }
    assert endpoint.check(headers, body) == (
        400,
        {"error": "malformed pull_request payload: TypeError"},
    )
    rt.queue.db.close()


def test_a_signed_review_whose_body_is_no_string_is_400(app):
    client, rt = app
    base = next(e for e in octokit_examples("pull_request_review") if e["action"] == "submitted")
    payload = dict(base, repository=dict(base["repository"], full_name="vllm-project/vllm"))
    payload["review"] = dict(base["review"], body=1)  # TypeError where triage reads it
    r = post(client, "pull_request_review", payload, delivery="review-body")
    assert r.status_code == 400 and r.json()["error"] == (
        "malformed pull_request_review payload: review.body: not a string (int)"
    )
    assert rt.queue.get("review-body") is None


@pytest.mark.parametrize(
    ("event", "field", "value"),
    [
        ("pull_request", "repository", ["vllm-project/vllm"]),
        ("pull_request", "sender", "octo-dev"),
        ("pull_request", "repository", ""),  # was read as no repository: ignored
        ("pull_request", "changes", 7),
        ("issue_comment", "sender", 5),
        ("issue_comment", "comment", "/notes"),
        ("issue_comment", "comment.user", "octo-dev"),
        ("issue_comment", "comment.body", ["/notes"]),
    ],
)
def test_a_signed_payload_with_another_type_for_an_object_names_the_field(app, event, field, value):
    # answered "malformed EVENT payload: AttributeError" (or TypeError): the operator's
    # log line named no field of a payload GitHub will not send again
    from tests.test_fuzz import comment_base

    client, rt = app
    payload = pr_payload() if event == "pull_request" else comment_base()
    *parents, last = field.split(".")
    node = payload
    for key in parents:
        node = node[key]
    node[last] = value
    r = post(client, event, payload, delivery="misshapen")
    kind = "not a string" if last == "body" else "not an object"
    said = f"malformed {event} payload: {field}: {kind} ({type(value).__name__})"
    assert (r.status_code, r.json()) == (400, {"error": said})
    assert rt.queue.get("misshapen") is None


# kills: terminal.shown: `value[:limit]` dropped
# kills: terminal.shown: `inert(...)` dropped (a header's line break written as it is)
def test_a_refused_deliverys_headers_are_logged_cut_and_escaped(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    forged = "d\nFAKE LOG LINE " + "x" * 200
    headers = {b"x-github-event": b"push", b"x-github-delivery": forged.encode()}
    try:
        assert endpoint.check(headers, b"{}")[0] == 401
    finally:
        rt.db.close()
    (line,) = _refusals(caplog)
    assert "\n" not in line and "d\\nFAKE LOG LINE" in line
    assert "x" * 84 in line and "x" * 85 not in line  # the first 100 characters


# kills: bot/webhook.py:WebhookEndpoint.triage a refused delivery without its headers logged as
# "None None"
def test_a_refused_delivery_without_its_headers_says_so_in_the_log(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    endpoint = WebhookEndpoint(settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries)
    try:
        assert endpoint.check({}, b"{}")[0] == 401
    finally:
        rt.db.close()
    (line,) = _refusals(caplog)
    assert line.startswith("delivery (none) (none) refused (401)"), line


# kills: webhook.WebhookEndpoint.check: `not isinstance(payload, dict)` -> `payload is None`
def test_a_ping_whose_body_is_a_json_list_is_400(app):
    client, _ = app
    assert post(client, "ping", b"[]", delivery="list-ping").status_code == 400


# kills: webhook._read_body: `if not length.isdigit(): raise ValueError` dropped
# kills: webhook.WebhookEndpoint.__call__ a bad Content-Length answered `{"detail": ...}` where
# every other refusal says `{"error": ...}`, and counted in no metric
def test_a_negative_content_length_is_400_said_and_counted_as_other_refusals(app):
    client, _ = app
    headers = {"Content-Length": "-1", "X-GitHub-Event": "ping"}
    r = client.post("/webhook", content=b"{}", headers=headers)
    assert r.status_code == 400 and r.json() == {
        "error": "Content-Length is not a number of bytes"
    }, r.text
    line = 'review_notes_deliveries_total{event="unverified",outcome="bad_length"} 1.0'
    assert line in client.get("/metrics").text


def test_a_webhook_under_another_process_lock_waits_its_5_s_then_is_answered_503_in_time(
    tmp_path, monkeypatch
):
    """docs/reliability.md (Another process holding the database): a delivery arriving
    while another process holds the write lock waits for it once (LOCK_WAIT_SECONDS, 5 s)
    and is answered 503, within GitHub's 10 s. Each worker's claim held the Database's
    in-process lock through a busy wait of its own, and the intake's write waited behind
    them: 28 s, the event loop held meanwhile, and GitHub had given up long before."""
    with _served_under_another_process_lock(tmp_path, monkeypatch, 90) as (rt, http, holder):
        took = _answered_503_in_time(http, 2, "under-the-lock", "a webhook under the lock")
        assert took > LOCK_WAIT_SECONDS - 0.5, f"answered after {took:.1f}s: no wait"
        holder.execute("ROLLBACK")
        # the lock gone, the delivery sent again is stored and run
        again = post(http, "pull_request", pr_payload(number=2), delivery="under-the-lock")
        assert again.status_code == 202, again.text
        wait_until(lambda: rt.queue.counts()["done"] == 2, what="the second one done")


@contextlib.contextmanager
def _served_under_another_process_lock(tmp_path, monkeypatch, timeout: float, **more):
    """A server of two workers on a real port, SQLite's busy timeout its own, one
    delivery done; then another process holds the write lock (its connection, `holder`:
    a ROLLBACK lets go) and both workers claim under it, refused. Yields the runtime, an
    HTTP client with `timeout` and the holder; `more`: settings of the test's own."""
    with _served_with_a_lock_holder(tmp_path, monkeypatch, timeout, **more) as (rt, http, holder):
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        time.sleep(0.5)  # both workers claiming under it, refused
        yield rt, http, holder


@contextlib.contextmanager
def _served_with_a_lock_holder(tmp_path, monkeypatch, timeout: float, **more):
    """`_served_under_another_process_lock`, the lock not yet taken: `holder` (a
    connection any thread may use) takes it with BEGIN IMMEDIATE."""
    import httpx

    import bot.db as bot_db
    from tests.browser_kit import serving_in_thread

    monkeypatch.setattr(bot_db, "BUSY_TIMEOUT_SECONDS", 10.0)  # the server's own
    settings = make_settings(tmp_path, workers=2, workers_poll_seconds=0.05, **more)
    rt = build_runtime(settings)
    rt.start()
    path = tmp_path / "bot.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        app = create_app(rt)
        with serving_in_thread(app) as base, httpx.Client(base_url=base, timeout=timeout) as http:
            assert post(http, "pull_request", pr_payload(number=1)).status_code == 202
            wait_until(lambda: rt.queue.counts()["done"] == 1, what="the delivery done")
            yield rt, http, holder
    finally:
        holder.close()  # (a transaction still open rolled back)
        rt.stop()


def _answered_503_in_time(http, number: int, delivery: str, what: str) -> float:
    """POST a pull_request delivery that meets another process's lock: it must be
    answered 503 (GitHub sends it again) within GitHub's 10 s; `what` names the figure
    printed. Returns how long the answer took."""
    started = time.monotonic()
    r = post(http, "pull_request", pr_payload(number=number), delivery=delivery)
    took = time.monotonic() - started
    print(f"{what}: {r.status_code} in {took:.2f}s")
    assert r.status_code == 503, r.text
    assert took < 9, f"answered after {took:.1f}s: past GitHub's 10 s"
    return took


def _posted_in_thread(http, number: int, delivery: str) -> tuple[threading.Thread, dict]:
    """POST a pull_request delivery from a thread of its own; its answer and how long it
    took land in the dict once the thread ends."""
    answer: dict = {}

    def send() -> None:
        started = time.monotonic()
        try:
            payload = pr_payload(number=number)
            answer["response"] = post(http, "pull_request", payload, delivery=delivery)
        except Exception as exc:  # (a client timeout: the test says so)
            answer["error"] = exc
        answer["took"] = time.monotonic() - started

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread, answer


# kills: bot/webhook.py:GroupCommit._in_thread its wait not bounded by the delivery's arrival
def test_a_webhook_arriving_as_a_worker_records_an_outcome_under_the_lock_is_answered_in_time(
    tmp_path, monkeypatch
):
    """docs/reliability.md (Another process holding the database): a worker whose run
    ends while another process holds the write lock records its outcome with a short
    wait, tried again until stored; it held the Database's in-process lock through
    SQLite's 10 s busy timeout at each try, and a delivery arriving waited behind it,
    then its own 10 s: answered 500 after 20 s, long after GitHub's 10 s."""
    with _served_with_a_lock_holder(tmp_path, monkeypatch, 60) as (rt, http, holder):
        running, go = threading.Event(), threading.Event()
        process = rt.workers.process

        def gated(delivery) -> None:
            process(delivery)  # its own writes made before the lock
            if delivery.id == "running":
                running.set()
                assert go.wait(30)

        rt.workers.process = gated
        first = post(http, "pull_request", pr_payload(number=2), delivery="running")
        assert first.status_code == 202, first.text
        assert running.wait(10)
        holder.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        go.set()  # the run ends under the lock: its outcome waits for it
        time.sleep(0.5)
        said = "a webhook as an outcome is recorded under the lock"
        _answered_503_in_time(http, 3, "arriving", said)
        assert rt.queue.get("running").state == "processing"  # its outcome not stored yet
        holder.execute("ROLLBACK")
        # the lock gone, the outcome is stored, and the delivery sent again too
        wait_until(lambda: rt.queue.get("running").state == "done", what="the outcome stored")
        again = post(http, "pull_request", pr_payload(number=3), delivery="arriving")
        assert again.status_code == 202, again.text
        wait_until(lambda: rt.queue.counts()["done"] == 3, what="all three done")


# kills: bot/webhook.py:GroupCommit._flush a lock waited for on the event loop
def test_the_server_answers_while_a_webhook_waits_out_another_process_lock(tmp_path, monkeypatch):
    """docs/reliability.md (Another process holding the database): a delivery arriving
    under another process's lock waits for it in a thread, and is stored once the lock
    ends in time. Its wait ran on the event loop: /healthz, /metrics and every other
    request waited with it, up to the busy timeout (10 s; the HEALTHCHECK gives 4 s)."""
    with _served_under_another_process_lock(tmp_path, monkeypatch, 4) as (rt, http, holder):
        thread, answer = _posted_in_thread(http, 2, "waiting")
        time.sleep(0.5)  # its write waits for the lock
        started = time.monotonic()
        health = http.get("/healthz")
        print(f"/healthz as a webhook waits out the lock: {time.monotonic() - started:.2f}s")
        assert health.status_code == 200, health.text
        assert "review_notes_queue_depth" in http.get("/metrics").text
        holder.execute("ROLLBACK")  # the lock ends within the delivery's wait
        thread.join(10)
        print(f"a webhook under a lock of 1 s: {answer}")
        assert "error" not in answer, answer
        assert answer["response"].status_code == 202, answer["response"].text
        wait_until(lambda: rt.queue.get("waiting").state == "done", what="the delivery run")


# kills: bot/webhook.py:WebhookEndpoint.answer a delivery's wait for a lock counted from its
#   body's end, not its request's start
def test_a_webhook_whose_body_came_in_slowly_waits_for_a_lock_no_later_than_its_answer_is_due(
    tmp_path, monkeypatch
):
    """docs/reliability.md (Another process holding the database): a delivery's wait for
    the lock ends by ANSWER_SECONDS from its request's start, GitHub's 10 s less the
    answer's way back. It waited 5 s from its body's end: a body 6 s in coming (408 only
    past 10 s) was answered after 11 s, to a GitHub given up a second before."""
    from bot import webhook

    monkeypatch.setattr(webhook, "ANSWER_SECONDS", 2.0, raising=False)  # (9 s: scaled down)
    with _served_under_another_process_lock(tmp_path, monkeypatch, 30) as (rt, http, holder):
        body = json.dumps(pr_payload(number=2)).encode()
        head = (
            "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "X-GitHub-Event: pull_request\r\nX-GitHub-Delivery: slow-body\r\n"
            f"X-Hub-Signature-256: {sign(SECRET, body)}\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        port = int(str(http.base_url).rstrip("/").rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
            started = time.monotonic()
            s.sendall(head.encode() + body[:-1])
            time.sleep(1.2)  # its last byte comes in 1.2 s later, as GitHub's 2 s run on
            s.sendall(body[-1:])
            answer = s.recv(4096).decode()
            took = time.monotonic() - started
        assert rt.queue.get("slow-body") is None  # (503: not stored; GitHub is told so)
    print(f"a webhook with a slow body under the lock: {answer.splitlines()[0]} in {took:.2f}s")
    assert answer.startswith("HTTP/1.1 503 "), answer
    assert took < 2.7, f"answered {took:.1f}s after its request began: past its 2 s"
    assert took > 1.9, f"answered after {took:.1f}s: before its answer was due"


def _sqlite_error(tmp_path, make) -> sqlite3.OperationalError:
    """The error SQLite itself raises on a write `make` sets up."""
    path = tmp_path / f"{make.__name__}.sqlite3"
    conn = sqlite3.connect(path, timeout=0.05)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    try:
        make(path, conn)
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        conn.close()
    raise AssertionError(f"{make.__name__} wrote")


def _read_only(path, _conn):
    sqlite3.connect(f"file:{path}?mode=ro", uri=True).execute("INSERT INTO t VALUES (1)")


def _locked(path, conn):
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT INTO t VALUES (1)")
    finally:
        other.execute("ROLLBACK")
        other.close()


def _full(_path, conn):
    conn.execute("PRAGMA max_page_count = 2")
    conn.execute("INSERT INTO t VALUES (randomblob(100000))")


def _no_such_table(_path, conn):
    conn.execute("INSERT INTO no_such_table VALUES (1)")


@pytest.mark.parametrize(
    ("make", "kind", "words"),
    [
        (_read_only, SettingsError, "REVIEW_NOTES_DB_PATH: "),
        (_locked, StartupError, "is locked by another process"),
        (_full, StartupError, "the disk is full"),
        (_no_such_table, StartupError, "no such table"),
    ],
)
def test_the_starts_first_write_failing_is_said_in_words(tmp_path, make, kind, words):
    # the first write of the start (claim_pr_state) failing was a traceback
    from bot.server import _unwritable

    exc = _sqlite_error(tmp_path, make)
    told = _unwritable(tmp_path / "bot.sqlite3", exc)
    assert type(told) is kind and words in str(told), (exc.sqlite_errorname, told)
    assert str(tmp_path / "bot.sqlite3") in str(told)


# --- the redelivery sweeps counted; what gets a refused delivery sent again ---


def test_each_sweep_of_the_delivery_log_is_counted_by_outcome(tmp_path):
    # an alert on `failed` tells the operator that nothing asks GitHub again any more
    from bot.github_port import GitHubError
    from bot.redelivery import Redeliverer, Sweeps
    from tests.test_redelivery import SINCE, FakeLog, item

    class RefusedLog(FakeLog):
        def hook_deliveries(self, since, stopping=None):
            raise GitHubError("GitHub list the App's webhook deliveries: 401", status=401)

    rt = build_runtime(make_settings(tmp_path))
    try:
        sweeps = Sweeps(SINCE)
        for log in (FakeLog([item(1, "a", 0), item(2, "b", 502)], refuse={2}), RefusedLog([])):
            metrics = rt.ctx.metrics
            sweeper = Redeliverer(log, rt.queue, metrics, rt.stopping, on_start=True, every_s=0)
            sweeper._sweep(sweeps, "now")
        metrics = rt.ctx.metrics.render().decode()
    finally:
        rt.db.close()
    for outcome, n in (("done", 1), ("failed", 1)):
        assert f'review_notes_redelivery_sweeps_total{{outcome="{outcome}"}} {n}.0' in metrics
    for outcome, n in (("asked", 1), ("refused", 1), ("given_up", 0)):
        assert f'review_notes_redeliveries_total{{outcome="{outcome}"}} {n}.0' in metrics


def test_a_refused_delivery_says_what_gets_it_sent_again(tmp_path, fake_github, app_key):
    # the ERROR of a delivery SQLite refused named the App's sweep even with a token or
    # with the sweeps turned off
    from bot.webhook import _redelivered_by
    from tests.webhook_kit import app_settings

    assert "Recent Deliveries" in _redelivered_by(make_settings(tmp_path))
    app = app_settings(tmp_path, fake_github, app_key)
    assert _redelivered_by(app).startswith("the redelivery sweeps ask GitHub for it")
    off = app_settings(tmp_path, fake_github, app_key, redeliver_every_minutes=0)
    assert _redelivered_by(off) == "run `review-notes redeliver`"


# --- what a start resumes and a stop leaves behind ---


# kills: bot/server.py:Runtime.start a start with pending deliveries but none interrupted said
# nothing
def test_a_start_names_the_pending_deliveries_it_found_and_works_them(tmp_path, caplog):
    # A delivery stored but never claimed (the server stopped before a worker took it)
    # is no interruption: the start must still say it resumes it, and work it.
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = Database(tmp_path / "bot.sqlite3")
    DeliveryQueue(db).enqueue("left-1", "pull_request", "opened", pr_payload(number=3), "o/r", 3)
    db.close()
    with caplog.at_level(logging.INFO, logger="review_notes"):
        with serving(make_settings(tmp_path)) as (client, rt):
            drain(rt)
            assert rt.queue.get("left-1").state == "done"
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("resuming")]
    assert said == ["resuming 1 pending deliveries (0 were interrupted)"], said


# kills: bot/server.py:Runtime.stop a stop that left the GitHub client open
def test_a_stopped_server_starts_no_further_github_call(tmp_path, fake_github, app_key):
    # A worker still busy past the drain bound must not go on writing to GitHub once
    # the server stopped: the next start resumes its delivery, and a write made after
    # the stop would be made twice.
    from bot.github_port import GitHubError
    from tests.fake_github import DEFAULT_INSTALLATION_ID, DEFAULT_REPO
    from tests.webhook_kit import app_settings

    fake_github.add_pull(DEFAULT_REPO, 7, files=MATCHING_FILES, title=MATCHING_TITLE)
    ref = PRRef(DEFAULT_REPO, 7, DEFAULT_INSTALLATION_ID)
    with serving(app_settings(tmp_path, fake_github, app_key)) as (_, rt):
        assert rt.ctx.github.get_pull(ref) is not None  # open while serving
    with pytest.raises(GitHubError, match="closed"):
        rt.ctx.github.get_pull(ref)


# kills: bot/server.py:Runtime.stop a stop that left the workers claiming from a closed database
# kills: bot/server.py:Runtime.stop a stop that left the retention sweep pruning a closed database
def test_a_stopped_server_leaves_no_thread_running_and_its_delivery_recorded(tmp_path):
    # A delivery handled before the stop is recorded done, and no worker is left to
    # claim the next one against the database the stop closed (it would fail there and
    # count an interruption against it at the next start).
    with serving(make_settings(tmp_path)) as (client, rt):
        threads = [*rt.workers._threads, rt.retention._thread]
        deliver_pr(client, rt, title=MATCHING_TITLE)
    assert threads and not any(t.is_alive() for t in threads)
    from bot.db import Database
    from bot.queue import DeliveryQueue

    db = Database(tmp_path / "bot.sqlite3")
    try:
        assert DeliveryQueue(db).counts()["done"] == 1
    finally:
        db.close()


# kills: bot/server.py:claim_pr_state every start of the same kind dropped the /notes wrong records
def test_a_restart_of_the_same_kind_keeps_the_feedback_records(tmp_path):
    # Only going live on a dry run's database drops them (their comment was never seen).
    with serving(make_settings(tmp_path)) as (_, rt):
        rt.ctx.feedback.keep_numbering("o/r", 1, "origin-1", ("note-a",))
    with serving(make_settings(tmp_path)) as (_, rt):
        assert rt.ctx.feedback.numbering("o/r", 1, "origin-1") == ("note-a",)


# kills: bot/server.py:claim_pr_state every live start had the redelivery sweep look back all
#   GitHub keeps, not only the first on a dry run's database
# kills: bot/redelivery.py:going_live the sweep kept as looking back less than GitHub keeps
def test_only_going_live_on_a_dry_runs_database_has_the_sweep_look_back_all_github_keeps(
    tmp_path, fake_github, app_key, caplog
):
    # the dry run's replays are no delivery from the App (the e2e test
    # test_going_live_after_replays_into_the_dry_run_asks_for_what_github_sent_it_before)
    from datetime import UTC, datetime, timedelta

    from bot.redelivery import KEPT_HOURS

    live = app_settings(
        tmp_path, fake_github, app_key, redeliver_on_start=False, redeliver_every_minutes=0
    )
    with serving(make_settings(tmp_path)):  # a dry run
        pass
    before = datetime.now(UTC) - timedelta(hours=KEPT_HOURS)
    caplog.set_level("WARNING", logger="review_notes")
    with serving(live) as (_, rt):  # going live: kept, though this start sweeps nothing
        after = datetime.now(UTC) - timedelta(hours=KEPT_HOURS)
        kept = rt.queue.sweep_since()
        assert kept is not None and before <= datetime.fromisoformat(kept) <= after, kept
        rt.queue.keep_sweep_since("2030-01-01T00:00:00+00:00")  # a later sweep's
    # a dry run that saw nothing left nothing to drop: no warning of counts all 0
    assert not [m for m in caplog.messages if "dry run's database" in m], caplog.messages
    with serving(live) as (_, rt):
        assert rt.queue.sweep_since() == "2030-01-01T00:00:00+00:00"


@pytest.mark.parametrize(
    ("counts", "said"),
    [
        ((0, 0, 0), None),
        ((2, 0, 0), "dropped the PR state of 2 PRs, as the dry run's comment ids are"),
        ((0, 1, 0), "dropped 1 /notes wrong mark on the dry run's comments, as"),
        ((1, 3, 1), "dropped the PR state of 1 PR and 3 /notes wrong marks on the"),
        ((0, 0, 1), "the redelivery sweep (App mode) looks back all GitHub keeps, and of the 1"),
    ],
)
def test_going_live_says_only_the_counts_that_are_not_0(counts, said):
    # one long warning of "0 PRs, 0 marks, 0 deliveries" at every first live start
    from bot.server import going_live_said

    text = going_live_said(*counts)
    assert text == said if said is None else text is not None and text.startswith(said), text
    if text is not None:
        assert " 0 " not in text and "1 PRs" not in text and "1 deliveries" not in text
        assert ("redelivery sweep" in text) == bool(counts[2])


# --- the server's wiring ---


# kills: bot/server.py:Runtime.__post_init__ redeliver_every_minutes taken for seconds (`* 1.0`, not
# `* 60.0`)
def test_the_redelivery_sweeps_are_spaced_by_the_minutes_the_setting_says(tmp_path):
    # the sweeps' own tests set redeliver_every_s: nothing read it from the setting
    rt = build_runtime(make_settings(tmp_path, redeliver_every_minutes=7))
    try:
        assert rt.redeliver_every_s == 7 * 60
    finally:
        rt.db.close()


# kills: bot/server.py:_load_library `read_taxonomy(...)[1]` (its problems) taken for the topics
# kills: bot/server.py:_load_library the matching file's problems left out when the notes are broken
def test_a_refused_start_names_the_matching_files_unknown_topic_beside_the_notes(tmp_path):
    # one refused start names every file a renamed topic is still in, not the notes
    # first and the matching file at the next start
    bad, text = _matching_file_with_unknown_family(tmp_path)
    empty = tmp_path / "notes"
    empty.mkdir()
    topics = shutil.copy(ROOT / "config" / "topics.toml", tmp_path)
    with pytest.raises(LibraryError) as exc:
        settings = make_settings(tmp_path, notes_dir=empty, matching_file=bad, topics_file=topics)
        build_runtime(settings)
    said = [str(p) for p in exc.value.problems]
    line = text.split("\n").index('family_topics = ["kv-connectors"]') + 1
    assert len(said) == 2, said
    assert said[0].startswith(
        f"{bad}:{line}: family_topics: unknown topic 'kv-connectors': no topic has this id in"
        f" {topics}; did you mean"
    )
    assert said[1].startswith(f"{empty}:1: notes: no notes"), said


# kills: bot/server.py:Runtime.__post_init__ the retention given a fixed number of days, not the
# setting's
def test_the_retention_keeps_deliveries_for_the_days_the_setting_says(tmp_path):
    from bot.times import utcnow

    rt = build_runtime(make_settings(tmp_path, delivery_retention_days=3))
    try:
        for delivery, days_ago in (("4-days-old", 4), ("2-days-old", 2)):
            rt.queue.enqueue(delivery, "pull_request", "opened", {})
            rt.queue.complete(delivery)
            received = utcnow(-days_ago * 86400)
            rt.db.execute(
                "UPDATE deliveries SET received_at = ?, updated_at = ? WHERE id = ?",
                (received, received, delivery),
            )
        rt.retention.prune()
        assert rt.queue.get("4-days-old") is None
        assert rt.queue.get("2-days-old") is not None
    finally:
        rt.db.close()


# kills: bot/server.py:Runtime._prunings the commands kept on a locked PR never pruned
def test_the_retention_keeps_commands_kept_for_an_unlock_for_the_days_the_setting_says(tmp_path):
    """A locked PR's kept comment goes after REVIEW_NOTES_DELIVERY_RETENTION_DAYS, as
    deliveries do (docs/commands.md, Locked conversations)."""
    from bot.command_policy import Actor
    from bot.command_source import Source
    from bot.queue import Delivery
    from bot.times import utcnow

    rt = build_runtime(make_settings(tmp_path, delivery_retention_days=3))
    try:
        ref = PRRef("owner/repo", 7, 1001)
        for comment_id, days_ago in ((1, 4), (2, 2)):
            source = Source("/notes help", None, comment_id, Actor("m", False), "a", {})
            rt.ctx.locked.keep(
                ref, Delivery(f"d{comment_id}", "issue_comment", "created", {}), source
            )
            rt.ctx.prs.db.execute(
                "UPDATE locked_commands SET kept_at = ? WHERE comment_id = ?",
                (utcnow(-days_ago * 86400), comment_id),
            )
        rt.retention.prune()
        assert [k.comment_id for k in rt.ctx.locked.kept("owner/repo", 7)] == [2]
    finally:
        rt.db.close()
    said = " ".join(doc("commands.md").split())
    assert "for longer than `REVIEW_NOTES_DELIVERY_RETENTION_DAYS`" in said


# kills: bot/server.py:Runtime each pass's prunes counted once (`inc()`), not by their number
# kills: bot/server.py:Runtime.__post_init__ every prune counted under state "done"
def test_the_pruned_deliveries_are_counted_by_their_number_and_state(tmp_path):
    rt = build_runtime(make_settings(tmp_path))
    try:
        for delivery in ("done-1", "done-2", "failed-1"):
            rt.queue.enqueue(delivery, "pull_request", "opened", {})
            rt.queue.complete(delivery)
        rt.queue.fail("failed-1", "RuntimeError: no luck")
        rt.retention.prune(before="9999-12-31T00:00:00.000000Z")  # all of them are old
        metrics = rt.ctx.metrics.render().decode()
    finally:
        rt.db.close()
    assert 'review_notes_deliveries_pruned_total{state="done"} 2.0' in metrics
    assert 'review_notes_deliveries_pruned_total{state="failed"} 1.0' in metrics


# kills: bot/server.py:live_github the timeout of an http_timeout under a second made 2 (`max(2,
# ...)`)
# kills: bot/server.py:live_github each setting of the client left at a default or another value
# kills: bot/server.py:live_github a deadline under the timeout taken as set (every call
#   past it failed, however it went)
@pytest.mark.parametrize(
    ("values", "timeout", "backoff_max", "deadline"),
    [
        (dict(http_timeout=2.5, retry_backoff=0.5, retry_backoff_max=7), 3, 7, 60),
        (dict(http_timeout=0.4, retry_backoff=0.5, retry_backoff_max=0.2), 1, 0.5, 60),
        (dict(http_timeout=20, http_deadline=45.5, retry_backoff=0.5), 20, 30, 45.5),
        (dict(http_timeout=20, http_deadline=5, retry_backoff=0.5), 20, 30, 20),
    ],
)
def test_the_github_client_is_made_of_the_settings(
    tmp_path, fake_github, app_key, values, timeout, backoff_max, deadline
):
    # the tests' settings are mostly the defaults a client is made with anyway; these
    # are none of them. (White-box: a timeout or a spacing shows only in time taken.)
    from bot.github_retry import RetryPolicy
    from bot.server import live_github

    settings = app_settings(
        tmp_path,
        fake_github,
        app_key,
        max_retries=5,
        retry_max_wait=77,
        retry_sleep_max=3,
        seconds_between_requests=0.125,
        seconds_between_writes=2.5,
        bot_login="notes-bot[bot]",
        **values,
    )
    client = live_github(settings)
    try:
        assert client.policy == RetryPolicy(
            attempts=6, backoff=0.5, backoff_max=backoff_max, max_wait=77, sleep_max=3
        )
        assert client._sessions._options["timeout"] == timeout
        assert client._sessions._deadline == deadline
        assert client._sessions._between == (0.125, 2.5)
        assert client.bot_login() == "notes-bot[bot]"
    finally:
        client.close()
    assert fake_github.requests == []  # the login was the setting's, not GitHub's


# kills: bot/server.py:_open_database a directory not told apart (`if path.is_dir()` never true)
# kills: bot/server.py:_open_database a file in the database's directory's place not said so
# kills: bot/server.py:_open_database a directory that cannot be made not said so
# kills: bot/server.py:_open_database another kind of file not said to be no SQLite database
@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("directory", "a directory; name the SQLite file in it"),
        ("under_a_file", "{tmp}/other is a file, not a directory"),
        ("not_sqlite", "not an SQLite database (file is not a database)"),
        (
            "no_directory",
            "cannot create the directory /proc/review-notes: No such file or directory",
        ),
    ],
)
def test_a_database_path_sqlite_cannot_use_is_a_settings_error_saying_why(tmp_path, kind, why):
    # the start's words for each, where the CLI's test sees only REVIEW_NOTES_DB_PATH
    from bot.server import _open_database

    other = tmp_path / "other"
    other.write_text("not a database\n" * 10)
    path = {
        "directory": tmp_path,
        "under_a_file": other / "bot.sqlite3",
        "not_sqlite": other,
        "no_directory": Path("/proc/review-notes/bot.sqlite3"),  # /proc takes no directory
    }[kind]
    with pytest.raises(SettingsError) as exc:
        _open_database(path, 3)
    assert str(exc.value) == f"REVIEW_NOTES_DB_PATH: {path}: {why.format(tmp=tmp_path)}"


# kills: bot/server.py:build_runtime a start refused for the App's credentials left GitHub's
# connection open
# kills: bot/server.py:build_runtime a start refused for the App's credentials left the database
# open
def test_a_start_refused_for_the_apps_credentials_leaves_nothing_open(
    tmp_path, fake_github, app_key
):
    # `refused` keeps what the start made referenced, as a caller's traceback would:
    # only closing them frees the database's files and the kept-alive connection
    settings = app_settings(tmp_path, fake_github, app_key, github_app_id="987654")
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    named = []
    for fd in Path("/proc/self/fd").iterdir():
        with contextlib.suppress(FileNotFoundError):  # the fake's threads close theirs
            named.append(os.readlink(fd))
    database = str(settings.db_path)
    assert not [name for name in named if name.startswith(database)], named
    server = fake_github._server
    wait_until(lambda: not server._open, timeout=10, what="GitHub's connection closed")
    assert "GitHub refused" in str(refused.value)


# kills: bot/server.py:check_app_credentials the refusal named GITHUB_PRIVATE_KEY for a key read
# from its path
def test_refused_app_credentials_name_the_key_variable_that_was_set(tmp_path, fake_github, app_key):
    pem = tmp_path / "app.pem"
    pem.write_text(app_key.private_pem)
    settings = app_settings(
        tmp_path,
        fake_github,
        app_key,
        github_app_id="987654",
        github_private_key=None,
        github_private_key_path=pem,
    )
    with pytest.raises(SettingsError, match=r"and GITHUB_PRIVATE_KEY_PATH one of its private keys"):
        build_runtime(settings)


def test_a_404_for_the_app_at_an_api_url_set_by_hand_names_github_api_url_too(
    tmp_path, fake_github, app_key
):
    # A GitHub Enterprise Server's host given without /api/v3 (or the web host): GET /app
    # is answered 404, and the refusal named only GITHUB_APP_ID and the key, which were
    # right. Never the URL itself: it may carry a password.
    from bot.github_port import GitHubError
    from bot.server import _api_url_hint

    wrong = fake_github.base_url + "/ghe"  # no API is served under it
    settings = app_settings(tmp_path, fake_github, app_key, github_api_url=wrong)
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    first, second = str(refused.value).split("\n")
    assert first.startswith("GITHUB_APP_ID: GitHub refused") and "404" in first, first
    assert second.startswith("GITHUB_API_URL: or is it not the REST API's base?"), second
    assert "https://HOST/api/v3" in second and wrong not in second
    # github.com's own API: a 404 there says the App ID is wrong, not the base
    github_com = load_settings(env_file=None, db_path=tmp_path / "x.sqlite3")
    assert _api_url_hint(github_com, GitHubError("404 Not Found", status=404)) == ""
    assert _api_url_hint(settings, GitHubError("401 Bad credentials", status=401)) == ""


def test_a_page_for_the_app_at_start_refuses_it_naming_github_api_url(
    tmp_path, fake_github, app_key, caplog
):
    # GITHUB_API_URL at a web site (github.com's, a proxy's login page): GET /app answered
    # 200 with a page was taken as GitHub out of reach, "starting anyway", and each
    # delivery then waited an hour as in an outage. It names GITHUB_API_URL, not the App's
    # credentials, which GitHub never saw
    fake_github.inject("GET", "/app", Fault(status=200, raw=b"<html><body>Sign in</body></html>"))
    settings = app_settings(tmp_path, fake_github, app_key)
    with pytest.raises(SettingsError) as refused, caplog.at_level(logging.WARNING):
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith("GITHUB_API_URL: GitHub get the App: 200 "), text
    assert "https://HOST/api/v3" in text and "GITHUB_APP_ID" not in text, text
    assert fake_github.base_url not in text  # it may carry a user and password
    assert not [r for r in caplog.records if "starting anyway" in r.getMessage()]


def token_start_settings(tmp_path, fake, token="ghp_start", scopes=None, **values):
    """Token mode against the fake GitHub, which knows the token `ghp_start`: a classic
    one with `scopes`, else a fine-grained one."""
    fake.add_pat("ghp_start", "notes-bot", scopes=scopes)
    values.setdefault("github_api_url", fake.base_url)
    return make_settings(
        tmp_path, github_token=token, public_url="https://notes.example.org", **values
    )


def start_check_answered(tmp_path, fake, app_key, mode: str, answer: Fault):
    """Settings of `mode` ("app" or "token") whose start's check (GET /app, or GET
    /rate_limit with a token) GitHub answers with `answer`."""
    fake.inject("GET", "/app" if mode == "app" else "/rate_limit", answer)
    if mode == "app":
        return app_settings(tmp_path, fake, app_key)
    return token_start_settings(tmp_path, fake)


# With a token the start asked GitHub nothing: a mistyped or revoked token, or a
# GITHUB_API_URL at a web site, showed only when the first delivery failed, maybe hours
# later. It now asks once for the token's rate limit (GET /rate_limit: it spends none)
def test_a_token_github_refuses_at_start_refuses_it_naming_github_token(tmp_path, fake_github):
    settings = token_start_settings(tmp_path, fake_github, token="ghp_revoked")
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith("GITHUB_TOKEN: GitHub refused the token (GitHub check the"), text
    assert "401 Bad credentials" in text and "ghp_revoked" not in text, text
    assert [r.status for r in fake_github.calls("GET", "/rate_limit")] == [401]


def test_a_page_for_the_token_at_start_refuses_it_naming_github_api_url(tmp_path, fake_github):
    page = Fault(status=200, raw=b"<html><body>Sign in</body></html>")
    fake_github.inject("GET", "/rate_limit", page)
    with pytest.raises(SettingsError) as refused:
        build_runtime(token_start_settings(tmp_path, fake_github))
    text = str(refused.value)
    assert text.startswith("GITHUB_API_URL: GitHub check the token: 200 a web page"), text
    assert "https://HOST/api/v3" in text and "GITHUB_TOKEN" not in text, text
    assert fake_github.base_url not in text  # it may carry a user and password


# A proxy in front of GitHub Enterprise redirecting to its login page: GET /app's 302 was
# read as an App with no fields, and the server started as "None[bot]"
@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_redirect_to_a_login_page_at_start_refuses_it_naming_github_api_url(
    tmp_path, fake_github, app_key, mode
):
    login = Fault(status=302, raw=b"", headers={"Location": "https://sso.example.com/in?t=s3"})
    settings = start_check_answered(tmp_path, fake_github, app_key, mode, login)
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith("GITHUB_API_URL: GitHub "), text
    said = ": 302 a redirect GitHub's API does not make, to https://sso.example.com/in ("
    assert said in text and "https://HOST/api/v3" in text and "s3" not in text, text


# GITHUB_API_URL at another web server (Python's http.server answers a GET it does not
# serve "501 Unsupported method", as a page): taken as GitHub down, "starting anyway",
# and every delivery then waited out an outage that was a setting. GitHub's REST API
# describes a 501 for none of the routes the start asks (GHES's for one other alone): the
# start now refuses it, naming GITHUB_API_URL
@pytest.mark.parametrize("mode", ["app", "token"])
@pytest.mark.parametrize("kind", ["page", "json"])
def test_a_501_to_the_start_check_refuses_it_naming_github_api_url(
    tmp_path, fake_github, app_key, caplog, mode, kind
):
    page = b"<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 501</p></body></html>"
    answer = Fault(status=501, raw=page, foreign=True) if kind == "page" else Fault.error(501)
    settings = start_check_answered(tmp_path, fake_github, app_key, mode, answer)
    with pytest.raises(SettingsError) as refused, caplog.at_level(logging.WARNING):
        build_runtime(settings)
    text = str(refused.value)
    what = "get the App" if mode == "app" else "check the token"
    assert text.startswith(
        f"GITHUB_API_URL: GitHub {what}: 501 Not Implemented, which GitHub's API never"
        " answers: another server there ("
    ), text
    assert "https://HOST/api/v3" in text and fake_github.base_url not in text, text
    assert "GITHUB_APP_ID" not in text and "GITHUB_TOKEN" not in text, text
    assert not [r for r in caplog.records if "starting anyway" in r.getMessage()]


def test_a_token_start_check_spends_no_call_and_a_dry_run_asks_nothing(
    tmp_path, fake_github, caplog
):
    # GitHub answers GET /rate_limit with every call of the hour spent, and counts it not
    fake_github.spend_rate_limit(leave=0)
    with caplog.at_level(logging.WARNING, logger="review_notes"):
        build_runtime(token_start_settings(tmp_path / "token", fake_github)).db.close()
    assert [r.status for r in fake_github.calls()] == [200]
    assert not [r for r in caplog.records if r.name == "review_notes"]
    # a GitHub Enterprise Server whose rate limiting is off answers it 404: the API's answer
    fake_github.inject("GET", "/rate_limit", Fault.error(404, "Rate limiting is not enabled."))
    with caplog.at_level(logging.WARNING, logger="review_notes"):
        build_runtime(token_start_settings(tmp_path / "ghes", fake_github)).db.close()
    assert not [r for r in caplog.records if r.name == "review_notes"]
    fake_github.clear_requests()
    dry = make_settings(tmp_path / "dry", github_api_url=fake_github.base_url)
    assert dry.is_dry_run
    build_runtime(dry).db.close()
    assert fake_github.requests == []


@pytest.mark.parametrize("down", ["502", "refused", "404", "403"])
def test_github_failing_when_the_token_is_checked_at_start_warns_and_starts(
    tmp_path, fake_github, caplog, down
):
    # a restart during GitHub's outage must still start (the deliveries wait in the queue);
    # so must one at an API answering the check 404 (not the rate limit's words), or 403,
    # GitHub's own answers: warned
    settings = token_start_settings(tmp_path, fake_github)
    if down == "refused":
        with socket.socket() as free:  # a port nothing listens on
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        settings = token_start_settings(
            tmp_path, fake_github, github_api_url=f"http://127.0.0.1:{port}"
        )
    else:
        fake_github.inject("GET", "/rate_limit", Fault.error(int(down), "Not Found"))
    with caplog.at_level(logging.WARNING):
        build_runtime(settings).db.close()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    warned = [m for m in said if m.startswith("could not check GITHUB_TOKEN with GitHub (")]
    assert len(warned) == 1 and "starting anyway" in warned[0], said
    assert ("connection failed" if down == "refused" else down) in warned[0], warned
    assert ("is GITHUB_API_URL the API's address" in warned[0]) == (down == "404"), warned


# A classic token without the scope to comment (public_repo, or repo) started, and every
# delivery failed at its first write; GitHub names a classic token's scopes in the start
# check's answer (X-OAuth-Scopes), so the start now refuses it, naming what to add
def test_a_classic_token_that_cannot_comment_is_refused_at_start_naming_the_scope(
    tmp_path, fake_github
):
    settings = token_start_settings(tmp_path, fake_github, scopes=("read:org", "gist"))
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith(
        "GITHUB_TOKEN: the classic token's scopes (read:org, gist) include neither"
        " public_repo nor repo, so it cannot comment on a pull request: give it public_repo"
        " (repo for a private repository) ("
    ), text
    assert "ghp_start" not in text
    assert [r.status for r in fake_github.calls("GET", "/rate_limit")] == [200]
    # a GitHub Enterprise Server with its rate limiting off names them on its 404 too
    off = {"message": "Rate limiting is not enabled."}
    fake_github.inject(
        "GET", "/rate_limit", Fault(status=404, body=off, headers={"X-OAuth-Scopes": "gist"})
    )
    with pytest.raises(SettingsError, match=r"scopes \(gist\) include neither"):
        build_runtime(token_start_settings(tmp_path / "ghes", fake_github, scopes=("repo",)))


@pytest.mark.parametrize("scopes", [("public_repo",), ("gist", "repo"), ("repo", "public_repo")])
def test_a_classic_token_that_may_comment_starts_saying_nothing(
    tmp_path, fake_github, caplog, scopes
):
    fake_github.add_repo(DEFAULT_REPO).public = True  # the allow-list's (vllm-project/vllm)
    with caplog.at_level(logging.INFO):
        build_runtime(token_start_settings(tmp_path, fake_github, scopes=scopes)).db.close()
    assert not [r for r in caplog.records if "GITHUB_TOKEN" in r.getMessage()], caplog.text
    # public_repo alone reaches public repositories only: the allow-list's is asked for
    asked = [(r.method, r.path, r.status) for r in fake_github.calls()]
    looked = [("GET", f"/repos/{DEFAULT_REPO}", 200)] if "repo" not in scopes else []
    assert asked == [("GET", "/rate_limit", 200), *looked], asked


# A classic token with public_repo but not repo started on a private repository, and
# every delivery there failed at its first call: GitHub hides a private repository from
# such a token (404, as for one that does not exist). The start asks GitHub for each
# repository of the allow-list when the token's scopes lack repo, and refuses one it
# cannot see, or that GitHub calls private, naming the scope to add
@pytest.mark.parametrize("answer", ["hidden", "told private"])
def test_a_public_repo_token_on_a_private_repository_is_refused_at_start(
    tmp_path, fake_github, answer
):
    fake_github.add_repo("acme/open").public = True
    fake_github.add_repo(DEFAULT_REPO)  # private, as the fake's repositories are
    if answer == "told private":  # a GitHub that shows it, private, to such a token
        told = {"id": 1, "full_name": DEFAULT_REPO, "private": True}
        fake_github.inject("GET", f"/repos/{DEFAULT_REPO}", Fault(status=200, body=told))
    settings = token_start_settings(
        tmp_path, fake_github, scopes=("public_repo",), repos="acme/open,vllm-project/vllm"
    )
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = " ".join(str(refused.value).split())
    if answer == "hidden":
        assert text.startswith(
            "GITHUB_TOKEN: GitHub does not show vllm-project/vllm (REVIEW_NOTES_REPOS) to"
            " the classic token (GitHub get vllm-project/vllm: 404 Not Found): its scopes"
            " (public_repo) reach public repositories only, so it cannot comment on a"
            " private one: give it repo ("
        ), text
        assert "or, if vllm-project/vllm does not exist, fix REVIEW_NOTES_REPOS" in text, text
    else:
        assert text.startswith(
            "GITHUB_TOKEN: vllm-project/vllm (REVIEW_NOTES_REPOS) is private and the classic"
            " token's scopes (public_repo) reach public repositories only, so it cannot"
            " comment on it: give it repo ("
        ), text
    assert "acme/open" not in text and "ghp_start" not in text, text
    asked = [(r.method, r.path) for r in fake_github.calls()]
    assert asked == [
        ("GET", "/rate_limit"),
        ("GET", "/repos/acme/open"),
        ("GET", f"/repos/{DEFAULT_REPO}"),
    ], asked


# A proxy's page answering the repository's look-up is GITHUB_API_URL's fault, as at the
# token's own check: never taken for GitHub hiding a private repository
def test_a_page_for_a_repository_at_start_refuses_it_naming_github_api_url(tmp_path, fake_github):
    page = Fault(status=404, raw=b"<html><body>Not here</body></html>", foreign=True)
    fake_github.inject("GET", f"/repos/{DEFAULT_REPO}", page)
    settings = token_start_settings(tmp_path, fake_github, scopes=("public_repo",))
    with pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith(
        f"GITHUB_API_URL: GitHub get {DEFAULT_REPO}: 404 a web page, not GitHub's JSON ("
    ), text
    assert "GITHUB_TOKEN" not in text and "REVIEW_NOTES_REPOS" not in text, text


# GitHub failing when the start asks for a repository of the allow-list: a restart during
# an outage must still start, as when the token itself cannot be checked
def test_github_failing_when_a_repository_is_looked_at_at_start_warns_and_starts(
    tmp_path, fake_github, caplog
):
    fake_github.inject("GET", f"/repos/{DEFAULT_REPO}", Fault.error(502))
    settings = token_start_settings(tmp_path, fake_github, scopes=("public_repo",))
    with caplog.at_level(logging.WARNING):
        build_runtime(settings).db.close()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert said == [
        "could not ask GitHub whether GITHUB_TOKEN (scopes: public_repo) reaches"
        " vllm-project/vllm (GitHub get vllm-project/vllm: 502 Server Error): starting"
        " anyway; a private repository needs the scope repo"
    ], said


# GitHub failing for one repository of the allow-list fails for the next too: the start
# asked each in turn, every one waiting out its timeout in an outage (REVIEW_NOTES_HTTP_TIMEOUT
# per repository before the server listened) and each warned. It stops at the first
@pytest.mark.parametrize("fault", ["dropped", "rate limited"])
def test_github_failing_for_one_repository_at_start_asks_for_no_other(
    tmp_path, fake_github, caplog, fault
):
    failing = Fault(drop=True) if fault == "dropped" else Fault.too_many_requests(60)
    for _ in range(3):
        fake_github.inject("GET", "/repos/*/*", failing)
    settings = token_start_settings(
        tmp_path, fake_github, scopes=("public_repo",), repos="acme/a,acme/b,vllm-project/vllm"
    )
    with caplog.at_level(logging.WARNING):
        build_runtime(settings).db.close()
    asked = [(r.method, r.path) for r in fake_github.calls()]
    assert asked == [("GET", "/rate_limit"), ("GET", "/repos/acme/a")], asked
    said = [r.getMessage() for r in caplog.records if "GITHUB_TOKEN" in r.getMessage()]
    assert len(said) == 1, said
    assert said[0].startswith(
        "could not ask GitHub whether GITHUB_TOKEN (scopes: public_repo) reaches acme/a ("
    ), said
    assert said[0].endswith(
        "): starting anyway, acme/b and vllm-project/vllm not asked either; a private"
        " repository needs the scope repo"
    ), said


# A fine-grained token's permissions no answer tells (GitHub sends it no X-OAuth-Scopes):
# not guessed at, said once; a classic token with no scope at all (an empty header) only
# warns, as that answer is not known to be a classic token's alone. No header is not known
# to be a fine-grained token's either (a proxy dropping GitHub's headers, an App's token
# put in GITHUB_TOKEN): the log said "(a fine-grained token)", and now says what is known
@pytest.mark.parametrize("kind", ["no header", "no scope"])
def test_a_token_whose_scopes_tell_nothing_starts_and_says_so(tmp_path, fake_github, caplog, kind):
    scopes = None if kind == "no header" else ()
    with caplog.at_level(logging.INFO):
        build_runtime(token_start_settings(tmp_path, fake_github, scopes=scopes)).db.close()
    said = [r for r in caplog.records if r.getMessage().startswith("GITHUB_TOKEN: ")]
    assert len(said) == 1, caplog.text
    level = logging.INFO if kind == "no header" else logging.WARNING
    assert said[0].levelno == level, said[0]
    message = said[0].getMessage()
    if kind == "no header":
        assert message == (
            "GITHUB_TOKEN: GitHub names no scopes for it (no X-OAuth-Scopes header):"
            " whether it may comment shows at its first write (a fine-grained token's"
            " permissions no answer tells)"
        )
    else:
        assert "public_repo (repo for a private" in message
    assert "ghp_start" not in caplog.text


# An answer trickled in a byte at a time (each before REVIEW_NOTES_HTTP_TIMEOUT) held the
# start's check as long as it went on; past REVIEW_NOTES_HTTP_DEADLINE it now fails as a
# timeout does: warned, and the server starts
@pytest.mark.parametrize("mode", ["app", "token"])
def test_a_start_check_trickled_in_past_the_deadline_warns_and_starts(
    tmp_path, fake_github, app_key, caplog, mode
):
    fake_github.inject("GET", "/app" if mode == "app" else "/rate_limit", Fault.trickled(0.2))
    short = dict(http_timeout=1, http_deadline=1)
    if mode == "app":
        settings = app_settings(tmp_path, fake_github, app_key, redeliver_on_start=False, **short)
    else:
        settings = token_start_settings(tmp_path, fake_github, **short)
    started: list[object] = []
    with caplog.at_level(logging.WARNING):
        start = threading.Thread(target=lambda: started.append(build_runtime(settings)))
        start.start()
        start.join(60)  # the test's own bound on its wait, generous
    assert not start.is_alive() and started, "the start did not end"
    started[0].db.close()  # type: ignore[attr-defined]
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    warned = [m for m in said if m.startswith("could not ")]
    assert len(warned) == 1 and "timed out" in warned[0], said


# A refusal of the start's check that is surely not GitHub's (a web page; or no header
# GitHub puts on every answer: a proxy's, another server's at a wrong GITHUB_API_URL): with
# a token, a 404 or a proxy's 403 page only warned and the server started, to fail every
# delivery, and a 401 was named as the token; in App mode each was named as GITHUB_APP_ID
# and the key, which GitHub never saw. Each now refuses the start naming GITHUB_API_URL.
# GitHub's own 404 and 403 still warn with a token: a GitHub Enterprise Server with its
# rate limiting off may answer so in words the check does not know
FOREIGN_REFUSALS = {
    "page": dict(raw=b"<html><body><h1>Not Found</h1></body></html>"),
    "proxy-page": dict(raw=b"<!DOCTYPE html><title>Forbidden</title>", foreign=True),
    "not-github-json": dict(body={"error": "no such route"}, foreign=True),
    # an API gateway's (AWS's, Kong's): a message, but no GitHub docs link
    "gateway-json": dict(body={"message": "no Route matched with those values"}, foreign=True),
}


@pytest.mark.parametrize("mode", ["app", "token"])
@pytest.mark.parametrize("status", [401, 403, 404])
@pytest.mark.parametrize("kind", list(FOREIGN_REFUSALS))
def test_a_refusal_at_start_not_from_github_refuses_it_naming_github_api_url(
    tmp_path, fake_github, app_key, caplog, mode, status, kind
):
    answer = Fault(status=status, **FOREIGN_REFUSALS[kind])  # type: ignore[arg-type]
    settings = start_check_answered(tmp_path, fake_github, app_key, mode, answer)
    with caplog.at_level(logging.WARNING), pytest.raises(SettingsError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    what = "get the App" if mode == "app" else "check the token"
    assert text.startswith(f"GITHUB_API_URL: GitHub {what}: {status} "), text
    assert "https://HOST/api/v3" in text and "\n" not in text, text
    assert "GITHUB_TOKEN" not in text and "GITHUB_APP_ID" not in text, text
    said = "a web page" if answer.raw else "no header GitHub's API sends (X-GitHub-Request-Id"
    assert said in text, text
    assert not [r for r in caplog.records if "starting anyway" in r.getMessage()]


def stripped(answer: Fault) -> Fault:
    """`answer` as a proxy that strips GitHub's headers from it passes it on."""
    return Fault(status=answer.status, body=answer.body, foreign=True)


# The start reads a refusal by the rule every later call does: GitHub's error JSON through
# a proxy in front of it that strips GitHub's headers is GitHub's. Read as the proxy's, a
# token GitHub refused was named as GITHUB_API_URL, and a GitHub Enterprise Server with
# its rate limiting off refused the start
@pytest.mark.parametrize("mode", ["app", "token"])
def test_github_s_own_refusal_at_start_through_a_proxy_stripping_its_headers_is_github_s(
    tmp_path, fake_github, app_key, caplog, mode
):
    refused = stripped(Fault.bad_credentials())
    settings = start_check_answered(tmp_path, fake_github, app_key, mode, refused)
    with pytest.raises(SettingsError) as failed:
        build_runtime(settings)
    setting = "GITHUB_APP_ID" if mode == "app" else "GITHUB_TOKEN"
    assert str(failed.value).startswith(f"{setting}: GitHub refused the "), str(failed.value)
    if mode == "token":
        off = {"message": "Rate limiting is not enabled.", "documentation_url": DOCS}
        fake_github.inject("GET", "/rate_limit", stripped(Fault(status=404, body=off)))
        with caplog.at_level(logging.WARNING, logger="review_notes"):
            build_runtime(token_start_settings(tmp_path / "ghes", fake_github)).db.close()
        assert not [r for r in caplog.records if r.name == "review_notes"]


# kills: bot/server.py:check_app_credentials a JWT refused for this machine's clock taken for
#   wrong credentials
@pytest.mark.parametrize(("github_off", "said"), [(-400, "ahead of"), (400, "behind")])
def test_a_clock_github_refuses_the_apps_token_for_is_named_not_the_credentials(
    tmp_path, fake_github, app_key, github_off, said
):
    # A host whose clock is minutes off (no NTP in a VM, a container's host): GitHub
    # refuses the JWT's `iat` (issued in its future) or `exp` (expired) with a 401, and
    # the start asked whether GITHUB_APP_ID and the key were right, which they were
    fake_github.clock_offset = github_off
    settings = app_settings(tmp_path, fake_github, app_key)
    with pytest.raises(StartupError) as refused:
        build_runtime(settings)
    text = str(refused.value)
    assert text.startswith("GitHub get the App: 401 '"), text
    # by GitHub's Date header: whole seconds, read a moment after it was written
    off = re.search(rf"this machine's clock is (\d+) s {said} GitHub's \(its answer's", text)
    assert off and 395 <= int(off[1]) <= 405, text
    assert "set the clock right (NTP" in text and "GITHUB_APP_ID" not in text
    # within the JWT's leeway (issued 60 s before, expiring 300 s after), it starts
    fake_github.clock_offset = -30 if github_off < 0 else 200
    build_runtime(app_settings(tmp_path / "ok", fake_github, app_key)).db.close()


# kills: bot/github_retry.py:Retrier._failure (hand) a JWT refused for its times after the
#   start recorded as GitHub's words alone, as before such a refusal named the clock
def test_a_clock_that_drifts_after_the_start_is_named_in_each_delivery_it_fails(
    tmp_path, fake_github, app_key, caplog
):
    # The start checks the clock against GitHub's (above); a clock that drifts later
    # (a VM resumed from a snapshot, NTP stopped) failed every delivery with GitHub's
    # 401 text alone, "'Issued at' claim ('iat') must be an Integer...", in the log,
    # /healthz and `retry`, nothing saying that the clock is what GitHub refused
    settings = app_settings(tmp_path, fake_github, app_key)
    with serving(settings) as (client, rt), caplog.at_level(logging.WARNING):
        fake_github.clock_offset = -400  # this machine now 400 s ahead of GitHub
        r = post(client, "pull_request", pr_payload(title=MATCHING_TITLE))
        assert r.status_code == 202
        drain(rt)
        failures = client.get("/healthz").json()["recent_failures"]
    assert len(failures) == 1, failures
    error = failures[0]["error"]
    assert error.startswith("GitHubError: GitHub mint a token for installation"), error
    off = re.search(r": this machine's clock is (\d+) s ahead of GitHub's \(its answer's", error)
    assert off and 395 <= int(off[1]) <= 405, error
    assert "then run `review-notes retry --all` for the deliveries that failed on it" in error
    assert "private key" not in error  # the clock's refusal, not the key's
    logged = [r.getMessage() for r in caplog.records if r.name == "bot.workers"]
    assert any("s ahead of GitHub's" in m for m in logged), logged
    warned = [m for m in logged if " failed: " in m]  # the reason's advice, not twice
    assert warned and all(m.count("`review-notes retry") == 1 for m in warned), warned
    # GitHub's other refusals of a call say nothing of the clock
    fake_github.clock_offset = 0
    fake_github.inject("GET", "/repos/*/pulls/*/files", Fault(status=404))
    with serving(app_settings(tmp_path / "b", fake_github, app_key)) as (client, rt):
        post(client, "pull_request", pr_payload(title=MATCHING_TITLE))
        drain(rt)
        failures = client.get("/healthz").json()["recent_failures"]
    assert failures and all("clock" not in f["error"] for f in failures), failures


# kills: bot/server.py:check_app_credentials GitHub out of reach at start taken for refused
#   credentials
# kills: bot/server.py:check_app_credentials the start going on unsaid when GitHub was out of reach
def test_github_failing_when_asked_for_the_app_at_start_warns_and_starts(
    tmp_path, fake_github, app_key, caplog
):
    # a restart during GitHub's outage must still start (the deliveries wait in the queue)
    fake_github.inject("GET", "/app", Fault(status=502))
    settings = app_settings(tmp_path, fake_github, app_key)
    with caplog.at_level(logging.WARNING):
        build_runtime(settings).db.close()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        m.startswith(
            "could not ask GitHub for the App to check GITHUB_APP_ID and GITHUB_PRIVATE_KEY"
        )
        and "502" in m
        and "starting anyway" in m
        for m in said
    ), said


# kills: bot/github_errors.py:jwt_clock_problem a 401 for the JWT's times read without
#   GitHub's Date header
def test_a_jwt_refused_for_its_times_with_no_date_says_the_clock_is_off():
    from github import GithubException

    from bot.github_errors import jwt_clock_problem

    exp = "'Expiration time' claim ('exp') is too far in the future"
    said = jwt_clock_problem(GithubException(401, {"message": exp}, {}), time.time())
    assert said is not None and said.startswith("this machine's clock is off from GitHub's")
    dated = {"Date": "Sun, 06 Dec 2026 06:00:00 GMT"}
    at = 1796536800.0  # that Date
    assert "is 90 s behind" in (
        jwt_clock_problem(GithubException(401, {"message": exp}, dated), at - 90) or ""
    )
    # within the JWT's leeway, the Date tells nothing of how far: only that it is off
    near = jwt_clock_problem(GithubException(401, {"message": exp}, dated), at + 60)
    assert near is not None and "is off from GitHub's" in near
    # other refusals are the credentials'
    for status, message in [
        (401, "Bad credentials"),
        (403, exp),
        (401, "A JSON web token could not be decoded"),
    ]:
        assert jwt_clock_problem(GithubException(status, {"message": message}, dated), at) is None
    assert jwt_clock_problem(None, at) is None


# kills: bot/server.py:_load_library the notes checked against the shipped taxonomy, not the
# configured
# kills: bot/server.py:_load_library the matching file checked against the shipped taxonomy too
def test_a_topic_renamed_in_the_configured_taxonomy_is_named_wherever_it_is_still_used(
    tmp_path,
):
    # REVIEW_NOTES_TOPICS_FILE renames a topic: one refused start names the note and the
    # matching file that still use the old name
    text = (ROOT / "config" / "topics.toml").read_text()
    topics = tmp_path / "topics.toml"
    topics.write_text(text.replace('id = "kv-connector"', 'id = "kv-connectors"'))
    with pytest.raises(LibraryError) as exc:
        build_runtime(make_settings(tmp_path, topics_file=topics))
    using = sorted(
        str(note)
        for note in (ROOT / "seeds" / "notes").rglob("*.md")
        if '"kv-connector"' in note.read_text()
    )
    said = [p.path for p in exc.value.problems]
    assert said == [str(ROOT / "config" / "matching.toml"), *using], exc.value
    assert all("unknown topic 'kv-connector'" in p.message for p in exc.value.problems)


def test_the_live_start_line_names_a_login_set_or_says_when_it_is_learnt(tmp_path, app_key):
    # the App's check warned (GitHub out of reach): no slug yet; a token's check learns none
    from bot.server import live_line

    live = {"public_url": "https://notes.example.org"}
    key = app_key.private_pem
    app = make_settings(
        tmp_path, github_app_id="Iv1.8a61f9b3a7aba766", github_private_key=key, **live
    )
    token = make_settings(tmp_path, github_token="ghp_x", **live)
    assert live_line(app, None).startswith(
        "LIVE, posting to GitHub as the App's bot (App Iv1.8a61f9b3a7aba766; its name is"
        " asked at the first event) through https://api.github.com; repositories: "
    )
    assert "as alice (GITHUB_TOKEN) through" in live_line(token, "alice")


# kills: bot/server.py:build_runtime a library given to build_runtime read again from the settings'
# files
def test_a_library_given_to_the_start_is_the_one_served(tmp_path):
    # run_server's `library`: the notes already loaded, whatever the settings name
    from bot.library import check_library

    library, problems = check_library()
    assert library is not None, problems
    empty = tmp_path / "notes"
    empty.mkdir()  # the settings' notes: none, which a start reading them would refuse
    rt = build_runtime(make_settings(tmp_path, notes_dir=empty), library=library)
    try:
        assert rt.ctx.library is library
    finally:
        rt.db.close()


def _documented_endpoints() -> set[str]:
    """The paths the endpoint table (docs/operating.md, Deploy) names in its first column."""
    text = doc("operating.md")
    table = text.split("| endpoint | what |", 1)[1].split("\n\n", 1)[0]
    firsts = "\n".join(line.split(" | ", 1)[0] for line in table.splitlines()[2:])
    return set(re.findall(r"(/[^`,\s]*)`", firsts))


def _route_paths(routes) -> list[str]:
    """Every path the app routes, its included routers' too (FastAPI keeps each included
    router whole, as `original_router`)."""
    out: list[str] = []
    for route in routes:
        if hasattr(route, "path"):
            out.append(route.path)
        else:
            out += _route_paths(route.original_router.routes)
    return out


def test_the_docs_endpoint_table_names_every_route_the_server_answers(app):
    client, _ = app
    named = _documented_endpoints()
    paths = set(_route_paths(client.app.routes))
    assert {"/openapi.json", "/healthz", "/notes/{note_id}"} <= paths
    for path in paths:
        # the table writes a route's parameter `<id>`, the stylesheet and icon `/assets/...`,
        # the punctuation pasted after a link `.`
        shown = re.sub(r"\{[^}]*:pasted\}", ".", path.rstrip("/"))
        shown = re.sub(r"\{[^}]*\}", "<id>", shown)
        shown = "/assets/..." if shown.startswith("/assets/") else shown
        assert shown in named, path


# kills: bot/server.py:Runtime.start `if resumed or pending` -> `and` (a start with work left
#   pending, none interrupted, said nothing of it)
@pytest.mark.parametrize("interrupted", [0, 1])
def test_a_start_says_how_many_deliveries_it_resumes_and_were_interrupted(
    tmp_path, caplog, interrupted
):
    rt = build_runtime(make_settings(tmp_path))
    for i in range(1 + interrupted):
        rt.queue.enqueue(f"d-{i}", "pull_request", "opened", {}, "vllm-project/vllm", i + 1)
    rt.db.execute("UPDATE deliveries SET state = 'processing' WHERE id = 'd-1'")
    with caplog.at_level(logging.INFO, logger="review_notes"):
        rt.start()
    rt.stop()
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("resuming ")]
    pending = 1 + interrupted
    assert said == [f"resuming {pending} pending deliveries ({interrupted} were interrupted)"]


@pytest.mark.parametrize("path", ["/", "/review-notes/webhook", "/healthz"])
def test_a_delivery_posted_to_another_path_is_answered_and_logged_with_the_path_to_use(
    tmp_path, fake_github, caplog, path
):
    # The App's webhook URL entered without /webhook (or with the path a proxy serves the
    # bot under, passed on): every delivery failed with the router's bare 404 (405 on a
    # GET route), and the server's log said nothing at INFO.
    import urllib.error
    import urllib.request

    from tests.browser_kit import serving_in_thread
    from tests.fake_github import webhook_request

    rt = build_runtime(make_settings(tmp_path))
    rt.start()
    try:
        with (
            caplog.at_level(logging.WARNING, logger="review_notes"),
            serving_in_thread(create_app(rt)) as base,
        ):
            fake_github.webhook_secret = SECRET
            fake_github.webhook_url = base + path
            sent = fake_github.send_webhook("pull_request", pr_payload())
            again = fake_github.send_webhook("pull_request", pr_payload(number=7002))
            body = json.dumps(pr_payload()).encode()
            request = webhook_request(base + path, "pull_request", "by-hand", body, SECRET)
            with pytest.raises(urllib.error.HTTPError) as answered:
                urllib.request.urlopen(request, timeout=10)
            error = json.loads(answered.value.read())["error"]
            stored = sum(rt.queue.counts().values())
            with urllib.request.urlopen(base + "/metrics", timeout=10) as scraped:
                metrics = scraped.read().decode()
    finally:
        rt.stop()
    assert (sent.status_code, again.status_code, answered.value.code) == (404, 404, 404)
    assert error == f"no webhook at {path}: the webhook URL must end in /webhook"
    (line,) = [r.getMessage() for r in caplog.records if "answered 404" in r.getMessage()]
    assert line.startswith(f"delivery {sent.guid} pull_request sent to {path}, answered 404")
    assert "webhook URL to this server's address ending in /webhook" in line
    assert stored == 0
    # the log holds back all but the first line; the counter an alert reads has them all
    assert 'review_notes_deliveries_total{event="unverified",outcome="wrong_path"} 3.0' in metrics


# --- the start's one claim of the database; a body too slow to arrive ---


def test_serve_claims_the_database_once_before_its_port_then_only_resumes(tmp_path):
    # `serve` claims the file before its port (another server on it is the likelier
    # news), then Runtime.claim makes the rest of the start's writes: it claimed the file
    # again, a second write transaction of the PR state's owner and event times for
    # nothing, under the lock it already held.
    from bot.server import claim_database

    rt = build_runtime(make_settings(tmp_path))
    try:
        claim_database(rt)  # as run_server, before its socket
        statements: list[str] = []
        rt.db._conn.set_trace_callback(statements.append)  # SQLite's own statement trace
        rt.claim()
        rt.db._conn.set_trace_callback(None)
    finally:
        rt.db.close()
    assert statements and not [s for s in statements if "pr_state" in s], statements
    assert any("state = 'processing'" in s for s in statements)  # what it resumed


# kills: bot/webhook.py:WebhookEndpoint.__call__ (hand) the body read with no deadline
def test_a_body_still_coming_in_after_github_would_have_given_up_is_answered_408(
    tmp_path, monkeypatch
):
    # an outsider's unsigned 25 MB bodies, each held back by its last byte,
    # kept their memory for as long as the sender liked (8 of them: +200 MB). GitHub
    # waits 10 s for an answer: a body not all in by then is no delivery it awaits.
    import socket

    from bot import webhook
    from tests.browser_kit import serving_in_thread

    monkeypatch.setattr(webhook, "BODY_SECONDS", 0.5)
    rt = build_runtime(make_settings(tmp_path))
    rt.start()
    try:
        with serving_in_thread(create_app(rt)) as base:
            port = int(base.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(
                    b"POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b'X-GitHub-Event: ping\r\nContent-Length: 1000\r\n\r\n{"zen": '
                )
                started = time.monotonic()
                answer = s.recv(4096).decode()
                waited = time.monotonic() - started
                head, _, body = answer.partition("\r\n\r\n")
                length = int(re.search(r"content-length: (\d+)", head).group(1))
                while len(body.encode()) < length:
                    body += s.recv(4096).decode()
            client = TestClient(create_app(rt))
            pong = post(client, "ping", {"zen": "z", "hook_id": 1})
            text = client.get("/metrics").text
    finally:
        rt.stop()
    assert answer.startswith("HTTP/1.1 408 "), answer
    assert json.loads(body) == {"error": "payload not all sent within 0.5 s"}
    assert waited >= 0.4  # not refused before the deadline (no timing bound above)
    assert pong.status_code == 200  # a whole body is read as before
    assert 'review_notes_deliveries_total{event="unverified",outcome="too_slow"} 1.0' in text


# --- a wrong method on a page, headers cut in log lines, the oldest delivery's wait ---


# kills: bot/server.py:create_app.no_such_page (hand) a browser's wrong method on a notes page
#   answered FastAPI's JSON {"detail": "Method Not Allowed"} (a form posted to /notes by a
#   page of another site, a bookmarklet), not the site's page; the webhook's 405 stays JSON
# kills: bot/server.py:create_app.no_such_page (hand) the page's 405 without Allow: GET, a
#   browser's 405 on /webhook made a page too, or the JSON 405 of a page path sent without Vary
def test_a_wrong_method_on_a_notes_page_is_a_page_for_a_browser(app):
    from test_pages import CHROME_ACCEPT

    client, _ = app
    r = client.post("/notes/n1?repo=acme/widgets", headers={"accept": CHROME_ACCEPT})
    assert r.status_code == 405 and r.headers["content-type"].startswith("text/html")
    assert r.headers["allow"] == "GET, HEAD" and r.headers["vary"] == "Accept"
    assert "<title>Method not allowed · review notes</title>" in r.text
    assert "POST" in r.text
    for path, accept in [("/notes/n1", "*/*"), ("/webhook", CHROME_ACCEPT)]:
        r = client.request("PUT" if path != "/webhook" else "GET", path, headers={"accept": accept})
        assert r.status_code == 405 and r.json() == {"detail": "Method Not Allowed"}, path
        assert r.headers.get("vary") == ("Accept" if path != "/webhook" else None)


def test_an_unhandled_event_header_is_cut_in_its_reason_and_log_line(app, caplog):
    # The signature covers the body only: anyone replaying a signed body chooses the
    # X-GitHub-Event header, and "no handler for {event}" carried all of it (up to the
    # server's header limit) into the INFO line and the answer
    caplog.set_level(logging.INFO)
    client, rt = app
    event = "e" * 5000
    r = post(client, event, pr_payload(), delivery="long-event")
    assert r.status_code == 202
    reason = r.json()["reason"]
    assert reason == "no handler for " + "e" * 100 + "....opened"
    (line,) = [m.getMessage() for m in caplog.records if "ignored: no handler" in m.getMessage()]
    assert "e" * 101 not in line and len(line) < 400
    # kills: bot/terminal.py:shown "..." after a header of exactly `limit` characters
    r = post(client, "e" * 100, pr_payload(), delivery="event-at-the-limit")
    assert r.json()["reason"] == "no handler for " + "e" * 100 + ".opened"
    assert rt.queue.counts()["pending"] == 0


def test_the_oldest_pending_delivery_s_wait_is_a_gauge(app):
    # queue_depth cannot tell a queue waiting out a rate limit from one stalled: how long
    # the longest-waiting pending delivery has waited can, beside the pause gauge
    from datetime import UTC, datetime, timedelta

    from prometheus_client.parser import text_string_to_metric_families

    from bot.queue import OLDEST_PENDING
    from bot.times import stored_time

    client, rt = app
    name = "review_notes_queue_oldest_pending_seconds"

    def oldest() -> float:
        text = client.get("/metrics").text
        families = text_string_to_metric_families(text)
        (value,) = [s.value for f in families for s in f.samples if s.name == name]
        return value

    post(client, "pull_request", pr_payload(), delivery="finished")
    drain(rt)
    assert oldest() == 0  # none pending
    rt.workers.stop()
    post(client, "pull_request", pr_payload(number=8), delivery="waiting")
    post(client, "pull_request", pr_payload(number=9), delivery="newer")

    def hours_ago(hours: float) -> str:
        return stored_time(datetime.now(UTC) - timedelta(hours=hours))

    set_at = "UPDATE deliveries SET updated_at = ? WHERE id = ?"
    rt.queue.db.execute(set_at, (hours_ago(2), "finished"))  # done: not waiting
    rt.queue.db.execute(set_at, (hours_ago(1), "waiting"))
    assert 3600 <= oldest() < 3600 + 600
    rt.queue.db.execute(set_at, (hours_ago(-1), "waiting"))  # a clock stepped back
    rt.queue.db.execute(set_at, (hours_ago(-1), "newer"))
    assert oldest() == 0
    plan = " ".join(
        r["detail"]
        for r in rt.queue.db.execute(
            "EXPLAIN QUERY PLAN " + OLDEST_PENDING.format(kept="TRUE"), (hours_ago(0),)
        )
    )
    assert "deliveries_state (state=?)" in plan, plan


# kills: bot/webhook.py:WebhookEndpoint.check a long X-GitHub-Delivery taken in (with it
#        refused there, the installation line's own cut has nothing left to cut)
def test_an_installation_event_s_delivery_header_is_cut_in_its_log_line(app, caplog):
    # An installation event is answered at once, never refused as a replay: anyone holding
    # one signed body may send it again under any X-GitHub-Delivery, which its INFO line
    # carried whole (up to the server's header limit), as the ignored and replay lines did
    caplog.set_level(logging.INFO)
    client, _ = app
    accepted = next(
        p for p in octokit_examples("installation") if p["action"] == "new_permissions_accepted"
    )
    r = post(client, "installation", accepted, delivery="d" * 99)
    assert r.status_code == 200 and r.json()["status"] == "noted"
    (line,) = [
        m.getMessage() for m in caplog.records if "new_permissions_accepted" in m.getMessage()
    ]
    assert line.startswith("delivery " + "d" * 99 + " "), line[:300]
    # a longer one is refused before it is logged whole (its `delivery` field was)
    r = post(client, "installation", accepted, delivery="d" * 5000)
    assert r.status_code == 400


# kills: bot/webhook.py:WebhookEndpoint.check an X-GitHub-Delivery no GitHub delivery has taken in
@pytest.mark.parametrize("event", ["installation", "pull_request", "issue_comment", "ping"])
@pytest.mark.parametrize("delivery", [b"d" * 5000, b"a\x85b"], ids=["5000 characters", "NEL"])
def test_a_delivery_header_no_github_delivery_has_is_refused_and_logged_cut(
    app, caplog, event, delivery
):
    # The signature covers the body only: anyone holding one signed body may send it again
    # under any X-GitHub-Delivery. The log lines' text had it cut and escaped, but their
    # `delivery` field carried it whole (5,000 characters; a NEL, a line break to
    # str.splitlines, which the JSON lines leave raw), and a queued one was in every line
    # of its run. GitHub's is a GUID: one over 100 characters or not printable is refused
    caplog.set_level(logging.INFO)
    client, rt = app
    body = json.dumps(next(iter(octokit_examples(event)))).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-Hub-Signature-256": sign(SECRET, body),
    }
    r = client.post("/webhook", content=body, headers=headers)
    assert r.status_code == 400 and "X-GitHub-Delivery" in r.json()["error"]
    assert rt.queue.counts()["pending"] == 0
    for record in caplog.records:
        for text in (record.getMessage(), *(str(v) for v in vars(record).values())):
            assert len(text) < 2000 and "\x85" not in text, text[:200]
    (refused,) = [m for m in caplog.records if "refused (400)" in m.getMessage()]
    # (the NEL sent as UTF-8, C2 85, read as Latin-1: the Â is printable, the NEL escaped)
    assert refused.delivery in ("d" * 100 + "...", "a\u00c2\\x85b")


# --- a PR's damaged state row or page: the event fails saying what to do ---


# kills: bot/prstate.py:PRStore.get a PR's damaged state row failing its events with
#   SQLite's words alone (no PR named, no fix), /healthz saying ok
# kills: bot/prstate.py:PRStore._damaged the row said at each event, or not set aside
def test_an_event_of_a_pr_whose_state_is_damaged_fails_saying_what_to_do(
    tmp_path, fake_github, app_key, caplog
):
    # A failing disk damaged PR 1's state row (its file list's pages). Each event of the
    # PR failed with "DatabaseError: database disk image is malformed", nothing naming
    # the PR nor what to do, and /healthz said ok unless retention had met the row. The
    # row cannot be replaced by a fresh state (SQLite can neither change nor delete it):
    # the event still fails, saying why and what to do, the row is set aside (named
    # once, /healthz failing), and other PRs' events run.
    from bot.prstate import PRState
    from tests.damage_kit import break_overflow_chain
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE, live_settings

    fake = fake_github
    for n in (1, 2):
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    rt = build_runtime(settings)
    rt.ctx.prs.put(PRState(DEFAULT_REPO, 1, files_sha="abc", files=(f"{'Z' * 20_000}.py",)))
    rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    rt.db.close()
    break_overflow_chain(settings.db_path, b"Z" * 200)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"), serving(settings) as (client, rt):
        for action, n in (("opened", 1), ("reopened", 1), ("opened", 2)):
            r = post(client, "pull_request", pr_payload(action, number=n, title=MATCHING_TITLE))
            assert r.status_code == 202, r.text
            drain(rt)
        health = client.get("/healthz")
        failed = rt.queue.failed()
    assert [f.pr_number for f in failed] == [1, 1]
    for f in failed:
        assert f.last_error.startswith(
            f"DamagedState: PR {DEFAULT_REPO}#1: SQLite cannot read its state"
        ), f.last_error
        assert "restore it from a backup" in f.last_error
    assert health.status_code == 503, health.text
    assert [d["pr"] for d in health.json()["damaged_prs"]] == [f"{DEFAULT_REPO}#1"]
    said = [r.getMessage() for r in caplog.records if r.name == "bot.prstate"]
    assert len(said) == 1 and said[0].startswith(f"PR {DEFAULT_REPO}#1: SQLite cannot read")
    assert len(fake.comments(DEFAULT_REPO, 2)) == 1 and fake.comments(DEFAULT_REPO, 1) == []


def test_a_start_goes_past_a_prs_damaged_state_its_last_event_marked(
    tmp_path, fake_github, app_key, monkeypatch, caplog
):
    # A PR's state row holds, past its file list, the id of the event that alone set its
    # time (event_by), which each start forgets for every PR. A PR handled since the
    # last start whose file list's pages a failing disk damaged: that forgetting met
    # the row, and the server refused to start at all, every PR's events waiting on a
    # restore, where a damaged state fails only its own PR's events. The row is set
    # aside at the start now, named once, and the other PRs are served.
    from tests.damage_kit import break_overflow_chain
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE, live_settings, ours

    clean_env(monkeypatch)
    fake = fake_github
    for n in (1, 2):
        fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        deliver_pr(client, rt, number=1, title=MATCHING_TITLE, files=MATCHING_FILES)
        long_list = json.dumps([f"vllm/{'Z' * 20_000}.py"])
        rt.db.execute("UPDATE pr_state SET files = ? WHERE number = 1", (long_list,))
        [(owner,)] = rt.db.execute("SELECT event_by FROM pr_state WHERE number = 1")
        rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    assert owner is not None  # as the event left it
    break_overflow_chain(settings.db_path, b"Z" * 200)
    with caplog.at_level(logging.ERROR, logger="bot.prstate"), serving(settings) as (client, rt):
        deliver_pr(client, rt, number=2, title=MATCHING_TITLE, files=MATCHING_FILES)
        deliver_pr(client, rt, action="reopened", number=1, title=MATCHING_TITLE)
        health = client.get("/healthz").json()
        [failed] = rt.queue.failed()
    assert len(ours(fake, 2)) == 1
    assert failed.pr_number == 1 and failed.last_error.startswith("DamagedState: PR"), failed
    assert [d["pr"] for d in health["damaged_prs"]] == [f"{DEFAULT_REPO}#1"]
    said = [r.getMessage() for r in caplog.records if r.name == "bot.prstate"]
    assert len(said) == 1 and said[0].startswith(f"PR {DEFAULT_REPO}#1: SQLite cannot read")


def test_an_event_of_a_pr_whose_damaged_state_is_kept_under_its_old_name_says_so(
    tmp_path, fake_github, app_key, monkeypatch
):
    # The repository was renamed; its PR's state, kept under the old name until the PR's
    # next event moves it, has damaged pages. That event failed with SQLite's words
    # alone ("DatabaseError: database disk image is malformed"), no PR named nor the fix,
    # and /healthz said ok: the check looked for the state under the new name only.
    from tests.damage_kit import break_overflow_chain
    from tests.fake_github import DEFAULT_REPO
    from tests.test_e2e import _renamed_notes
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE, live_settings

    clean_env(monkeypatch)
    fake, new_repo = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, 1, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        deliver_pr(client, rt, number=1, title=MATCHING_TITLE, files=MATCHING_FILES)
        long_list = json.dumps([f"vllm/{'Z' * 20_000}.py"])
        rt.db.execute("UPDATE pr_state SET files = ? WHERE number = 1", (long_list,))
        rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    break_overflow_chain(settings.db_path, b"Z" * 200)
    fake.transfer(DEFAULT_REPO, new_repo)
    notes = _renamed_notes(tmp_path, DEFAULT_REPO, new_repo)
    settings = live_settings(tmp_path, fake, app_key, repos=new_repo, notes_dir=notes)
    with serving(settings) as (client, rt):
        payload = pr_payload("reopened", number=1, repo=new_repo, title=MATCHING_TITLE)
        assert post(client, "pull_request", payload).status_code == 202
        drain(rt)
        health = client.get("/healthz")
        [failed] = rt.queue.failed()
    assert failed.last_error.startswith(
        f"DamagedState: PR {DEFAULT_REPO}#1: SQLite cannot read its state"
    ), failed.last_error
    assert health.status_code == 503, health.text
    assert [d["pr"] for d in health.json()["damaged_prs"]] == [f"{DEFAULT_REPO}#1"]


# A failing disk damaged a page of another table a command reads or writes (who was let
# run it, the numbers its `wrong` means, the marks, its replies): its delivery failed as
# "DatabaseError: database disk image is malformed", SQLite's words alone, where a PR's
# damaged state, and every other damage the server, `retry` and retention meet, say what
# to do. Each such failure now says it, from the one place a delivery's run fails.
@pytest.mark.parametrize(
    ("table", "command", "login"),
    [
        ("command_decisions", "/notes off", "octo-dev"),  # a writer's: their permission kept
        ("numbering", "/notes wrong 1", "pr-author"),
        ("feedback", "/notes wrong 1", "pr-author"),
        ("pr_replies", "/notes topic rocm", "octo-dev"),
    ],
)
def test_a_command_meeting_a_damaged_table_fails_saying_what_to_do(
    tmp_path, fake_github, app_key, monkeypatch, caplog, table, command, login
):
    from tests.command_kit import AUTHOR, N, say, tune
    from tests.damage_kit import damage_root_page
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE, live_settings

    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        deliver_pr(client, rt, number=N, title=MATCHING_TITLE, files=MATCHING_FILES)
        rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    damage_root_page(settings.db_path, table)
    with caplog.at_level(logging.WARNING, logger="bot.workers"), serving(settings) as (client, rt):
        tune(rt)
        say(client, rt, fake, command, login=login)
        [failed] = rt.queue.failed()
    assert failed.last_error.startswith(
        "DamagedDatabase: SQLite found the database file damaged (database disk image is"
        " malformed); the delivery fails until it is restored: stop the server, then restore"
        " it from a backup"
    ), failed.last_error
    said = [r.getMessage() for r in caplog.records if r.name == "bot.workers"]
    assert any(failed.last_error in line for line in said), said


# A damaged page the intake's insert meets (the deliveries', or the index of when GitHub
# first sent a delivery, read with each): every delivery answered 500, logged and shown in
# /healthz as "DatabaseError: database disk image is malformed", nothing saying what to do
# while GitHub's deliveries were being lost.
@pytest.mark.parametrize("page", ["deliveries", "sqlite_autoindex_first_sent_1"])
def test_a_delivery_not_stored_for_a_damaged_page_says_what_to_do(tmp_path, caplog, page):
    from tests.damage_kit import damage_root_page
    from tests.webhook_kit import MATCHING_TITLE

    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    rt.db.close()
    damage_root_page(settings.db_path, page)
    with caplog.at_level(logging.ERROR, logger="review_notes"), serving(settings) as (client, rt):
        r = post(client, "pull_request", pr_payload(number=5, title=MATCHING_TITLE))
        health = client.get("/healthz")
    assert r.status_code == 500, r.text
    error = health.json()["intake_error"]
    assert error.startswith(
        "DamagedDatabase: SQLite found the database file damaged (database disk image is"
        " malformed); deliveries are not stored until it is restored: stop the server"
    ), error
    said = [r.getMessage() for r in caplog.records if r.name == "review_notes"]
    assert any(error in line for line in said), said


# kills: bot/server.py:Runtime.process (hand) only the PR's damaged state said with the fix
@pytest.mark.parametrize("table", ["dry_run_comments", "pr_state_listed"])  # a table, an index
def test_a_dry_runs_event_meeting_a_damaged_page_fails_saying_what_to_do(tmp_path, table):
    # the dry run's would-be comments; an index of the PR states, whose rows read
    from tests.damage_kit import damage_root_page
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE

    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    payload = pr_payload(number=5, title=MATCHING_TITLE, files=MATCHING_FILES)
    rt.queue.enqueue("d1", "pull_request", "opened", payload, DEFAULT_REPO, 5)
    rt.process(rt.queue.claim())  # the PR's comment (and its file list) kept
    rt.queue.complete("d1")
    rt.queue.keep_sweep_since("2030-01-01T00:00:00Z")  # (else opening it reads every row)
    rt.db.close()
    damage_root_page(settings.db_path, table)
    rt = build_runtime(settings)
    later = "2026-09-01T11:00:00Z"
    payload = pr_payload("reopened", number=5, title="Fix a typo", updated_at=later)
    rt.queue.enqueue("d2", "pull_request", "reopened", payload, DEFAULT_REPO, 5)
    with pytest.raises(Exception) as failed:
        rt.process(rt.queue.claim())
    assert f"{failed.type.__name__}: {failed.value}".startswith(
        "DamagedDatabase: SQLite found the database file damaged (database disk image is"
        " malformed); the delivery fails until it is restored: stop the server"
    ), failed.value
    assert rt.ctx.prs.set_aside == {}  # no PR's row is damaged


# kills: bot/server.py:Runtime.process (mutant) a database error that is not a PR's damaged
#   state failing its event as a TypeError (raise None), not as itself
def test_a_database_error_not_a_prs_damaged_state_fails_the_event_as_itself(tmp_path):
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import MATCHING_TITLE

    rt = build_runtime(make_settings(tmp_path))
    payload = pr_payload(number=5, title=MATCHING_TITLE)
    rt.queue.enqueue("d1", "pull_request", "opened", payload, DEFAULT_REPO, 5)
    delivery = rt.queue.claim()
    rt.db.execute("PRAGMA query_only = ON")  # as a read-only remount
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        rt.process(delivery)


# kills: bot/prstate.py:PRStore.damaged_state (the names read from the table) an event of a
#   renamed repository's PR whose old-name state is on a damaged page failing as SQLite's words
def test_an_event_of_a_pr_whose_old_name_state_is_on_a_damaged_page_says_so(tmp_path):
    # As above, with a whole page of the PR states damaged (the test above damages the
    # row's file list only): the check read the old names from the table's rows, which
    # the damaged page hides, looked under the new name alone, found nothing damaged, and
    # the event failed as "DatabaseError: database disk image is malformed", the fix
    # unsaid. The names are read from the indexes alone now.
    from bot.prstate import PRState
    from tests.test_e2e import _renamed_notes
    from tests.test_prstate import follow
    from tests.test_queue import _damage_root_page
    from tests.webhook_kit import MATCHING_TITLE

    old, new = "vllm-project/vllm", "vllm-org/vllm"
    settings = make_settings(tmp_path, repos=new, notes_dir=_renamed_notes(tmp_path, old, new))
    payload = pr_payload("reopened", number=5, repo=new, title=MATCHING_TITLE)
    repo_id = payload["repository"]["id"]
    rt = build_runtime(settings)
    rt.ctx.prs.put(PRState(old, 5, comment_id=50))
    follow(rt.ctx.prs, old, 5, repo_id)  # kept under the old name, marked with the id
    _damage_root_page(rt.queue, settings.db_path, "pr_state")
    rt = build_runtime(settings)
    rt.queue.enqueue("d1", "pull_request", "reopened", payload, new, 5)
    with pytest.raises(Exception) as failed:
        rt.process(rt.queue.claim())
    assert f"{failed.type.__name__}: {failed.value}".startswith(
        f"DamagedState: PR {old}#5: SQLite cannot read its state (database disk image is"
        " malformed); its events fail until the database file is restored: stop the server"
    ), failed.value
    assert list(rt.ctx.prs.set_aside) == [f"{old}#5"]


# --- edges a reader and an operator meet ---


# kills: bot/server.py:_SecuredApp.build_middleware_stack (hand) the app not wrapped: the
#   trailing slash's 307, FastAPI's own 404 JSON, a 405, a 422, the operator's answers and a
#   crash's 500 sent without the headers every notes page carried
# kills: bot/pages.py:SecurityHeaders.__call__.secured a header the answer set itself replaced, or
#   the body's messages taken for the start's (the page cut off after its headers)
def test_every_answer_of_the_server_carries_the_security_headers(tmp_path, monkeypatch):
    # The notes pages sent the CSP and nosniff each, so the answers made elsewhere did not:
    # /notes/ (its 307), a JSON 404 FastAPI makes, POST /healthz's 405, a 422, /healthz,
    # /metrics, the webhook's 401 and a crash's 500. A browser sent to one of them framed
    # or sniffed it; now one place sets them on every answer, over HTTP as a client has it.
    import urllib.error
    import urllib.request

    from bot.pages import SECURITY_HEADERS
    from tests.browser_kit import serving_in_thread

    rt = build_runtime(make_settings(tmp_path))
    asked = [
        ("GET", "/notes/", "text/html", 307),
        ("GET", "/nope", "application/json", 404),
        ("POST", "/healthz", "*/*", 405),
        ("HEAD", "/healthz", "*/*", 200),
        ("GET", "/dry-run/comments?number=0", "*/*", 422),
        ("GET", "/metrics", "*/*", 200),
        ("POST", "/webhook", "*/*", 401),
        ("GET", "/favicon.ico", "*/*", 307),
        ("GET", "/notes", "text/html", 200),
        ("GET", "/assets/notes.css", "*/*", 200),
        ("GET", "/metrics", "*/*", 500),  # its collector crashed
    ]
    answers = []
    bodies: dict[str, bytes] = {}

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with serving_in_thread(create_app(rt)) as base:
            for method, path, accept, status in asked:
                if status == 500:
                    monkeypatch.setattr(rt.ctx.metrics, "render", lambda: 1 / 0)
                request = urllib.request.Request(
                    base + path,
                    method=method,
                    headers={"Accept": accept},
                    data=b"{}" if method == "POST" else None,
                )
                try:
                    with opener.open(request, timeout=10) as r:
                        answers.append((path, r.status, r.headers))
                        bodies[path] = r.read()
                except urllib.error.HTTPError as exc:
                    answers.append((path, exc.code, exc.headers))
    finally:
        rt.db.close()
    assert [status for _, status, _ in answers] == [status for *_, status in asked]
    for path, status, headers in answers:
        for name, value in SECURITY_HEADERS.items():
            assert headers.get(name) == value, (path, status, name)
    assert SECURITY_HEADERS["X-Frame-Options"] == "DENY"
    assert SECURITY_HEADERS["Referrer-Policy"] == "no-referrer"
    assert bodies["/notes"].rstrip().endswith(b"</html>")  # the body passes on whole


# kills: bot/server.py:allowing_head a 405 of a notes page or /healthz naming GET alone in
#   Allow, though HEAD is answered there
# kills: bot/server.py:allowing_head HEAD added to the webhook's Allow: POST (HEAD is a 405 there),
#   or after a method that follows GET
def test_a_405_allows_head_where_get_is_answered(app):
    client, _ = app
    for path in ["/healthz", "/notes", "/notes/vllm-0436d44c"]:
        r = client.post(path)
        assert r.status_code == 405 and r.headers["allow"] == "GET, HEAD", path
        assert client.head(path).status_code == 200, path  # as Allow says
    r = client.put("/webhook")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert client.head("/webhook").status_code == 405
    # a route of two methods keeps its order, HEAD beside GET
    from bot.server import allowing_head

    assert allowing_head("GET, POST") == "GET, HEAD, POST"
    assert allowing_head("POST, GET, HEAD") == "POST, GET, HEAD"


# --- an error page's links and the repository they keep ---


# kills: bot/pages.py:NotesSite.error (hand) the request's ?repo= kept whether or not any
#   note is of it: a 405 (or a 404 of no page) carried a rejected repository in its links
@pytest.mark.parametrize("method", ["POST", "GET"])
def test_an_error_pages_links_keep_a_repository_with_notes_and_drop_one_without(tmp_path, method):
    # A form of another site posted to /notes?repo=acme/widgets (no note is of it: a GET
    # of it is a 404 naming those that have notes) got the 405 page whose brand, Notes,
    # Topics and search kept ?repo=acme/widgets: each a link to that 404. A repository
    # with notes is kept, as every page keeps the one a reader chose
    from tests.test_e2e import _renamed_notes
    from tests.test_pages import CHROME_ACCEPT

    notes = _renamed_notes(tmp_path, "vllm-project/vllm", "vllm-org/vllm")
    path = "/notes" if method == "POST" else "/no-such-page"
    with serving(make_settings(tmp_path, notes_dir=notes)) as (client, _):
        for repo, kept in [("acme/widgets", None), ("vllm-org/vllm", "vllm-org%2Fvllm")]:
            r = client.request(
                method, path, params={"repo": repo}, headers={"accept": CHROME_ACCEPT}
            )
            assert r.status_code == (405 if method == "POST" else 404)
            links = re.findall(r'href="(/(?:notes|topics)[^"]*)"', r.text)
            assert len(links) >= 4, r.text  # the brand, Notes, Topics, Browse all notes
            shown = {re.sub(r"^[^?]*\??", "", h) for h in links}
            assert shown == {f"repo={kept}" if kept else ""}, (repo, links)
            hidden = re.findall(r'name="repo" value="([^"]*)"', r.text)
            assert hidden == ([repo] if kept else []), (repo, r.text)


# --- the pages' default repository; /healthz under another process's write lock ---


# kills: bot/server.py:create_app (hand) the pages' default repository left vllm-project/vllm
#   whatever REVIEW_NOTES_REPOS names: an install for another repository showed no notes
#   at /notes, and kept ?repo= in every link to its own notes
def test_the_pages_default_repository_is_the_first_the_bot_is_installed_for(tmp_path):
    # An operator who set REVIEW_NOTES_REPOS=acme/widgets (a fork's install, its notes of
    # Acme/Widgets as GitHub spells it) got /notes and /topics of vllm-project/vllm, which
    # has no note here, and links to its own notes that each carried ?repo=
    from tests.test_e2e import _renamed_notes
    from tests.test_pages import CHROME_ACCEPT

    notes = _renamed_notes(tmp_path, "vllm-project/vllm", "Acme/Widgets")
    count = len(list(notes.glob("*.md")))
    settings = make_settings(tmp_path, notes_dir=notes, repos="acme/widgets,vllm-project/vllm")
    browser = {"accept": CHROME_ACCEPT}
    with serving(settings) as (client, _):
        r = client.get("/notes", headers=browser)
        assert r.status_code == 200 and f"{count} of {count} notes" in r.text
        assert "No notes of" not in r.text and 'name="repo"' not in r.text
        links = re.findall(r'href="(/(?:notes|topics)[^"]*)"', r.text)
        assert len(links) > count and not [h for h in links if "repo=" in h], links
        # a note's page shows its repository as the note spells it: the default still
        note = re.search(r'href="(/notes/vllm-[0-9a-f]+)"', r.text)[1]
        for page in (note, "/topics"):
            r = client.get(page, headers=browser)
            assert r.status_code == 200 and "No notes of" not in r.text, page
            assert not re.findall(r'href="[^"]*repo=', r.text) and 'name="repo"' not in r.text
        # its list, and an error page (a mistyped link), asked as its notes spell it
        for page, status in [("/notes", 200), ("/no-such-page", 404)]:
            r = client.get(page, params={"repo": "Acme/Widgets"}, headers=browser)
            assert r.status_code == status and 'name="repo"' not in r.text, page
            assert not re.findall(r'href="[^"]*repo=', r.text), page
        data = client.get("/notes", headers={"accept": "application/json"}).json()
        assert data["repo"] == "acme/widgets" and data["count"] == count
        # vllm-project/vllm, allowed but without notes here, is no default to fall back on
        r = client.get("/notes", params={"repo": "vllm-project/vllm"})
        assert r.status_code == 404 and "notes are kept for Acme/Widgets" in r.text


# kills: bot/server.py:Runtime.__post_init__ Workers not given `workers_stuck_seconds`
def test_healthz_and_metrics_answer_while_another_process_holds_the_write_lock(
    tmp_path, monkeypatch, caplog
):
    """docs/reliability.md (Another process holding the database): a `VACUUM` or a
    `sqlite3` shell left in a transaction holds the write lock; /healthz answers at once,
    200 with the queue as last stored, then 503 with `worker_error` once a worker has
    failed long enough (here 2 s), within the image's HEALTHCHECK (4 s). Each
    worker's claim waited SQLite's 10 s busy timeout holding the Database's in-process
    lock, and /healthz's reads, each behind a claim, took 37-47 s: the container
    unhealthy, with no answer to say why."""
    served = _served_under_another_process_lock(tmp_path, monkeypatch, 4, workers_stuck_seconds=2)
    with served as (rt, http, _):
        started = time.monotonic()  # each answer within 4 s, as the HEALTHCHECK's
        r = http.get("/healthz")
        print(f"/healthz under the lock: {time.monotonic() - started:.2f}s")
        assert r.status_code == 200 and r.json()["done"] == 1, r.text
        assert 'review_notes_queue_depth{state="done"} 1.0' in http.get("/metrics").text

        def failing() -> dict | None:
            body = http.get("/healthz").json()
            return body if body["status"] == "failing" else None

        body = wait_until(failing, what="/healthz naming the failing claim", timeout=30)
        assert body["worker_error"].startswith("claiming a delivery has failed"), body
        assert "database is locked" in body["worker_error"], body

        def warned() -> list[logging.LogRecord]:
            return [r for r in caplog.records if " refused for " in r.getMessage()]

        # the claims refused, quiet till then, are a WARNING once /healthz says so
        said = wait_until(warned, what="a warning of the refused claims")
        assert said[0].levelname == "WARNING" and not said[0].exc_info, said

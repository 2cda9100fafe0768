"""Bad input against the running app (ASGI test client, dry run, real SQLite file).

Whatever arrives: never a 5xx, the app keeps answering, nothing unverified is queued
or commented, and hostile PR text renders inert. Hypothesis runs a modest, fixed set
of examples (derandomized, no deadline) so the suite stays fast and stable.
"""

from __future__ import annotations

import copy
import gzip
import json
import uuid
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.commands import CommandConfig
from bot.server import Runtime, build_runtime, create_app
from bot.signature import sign
from bot.times import utcnow
from tests.command_kit import AUTHOR, N, say, state
from tests.test_render import assert_inert
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    REPO,
    SECRET,
    app_settings,
    clean_env,
    deliver_pr,
    drain,
    make_settings,
    octokit_examples,
    ours,
    pr_payload,
    serving,
)

FUZZ = settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


@contextmanager
def app_at(tmp_path) -> Iterator[tuple[TestClient, Runtime]]:
    """The app with workers; a server error comes back as a 500, not an exception."""
    rt = build_runtime(make_settings(tmp_path))
    with TestClient(create_app(rt), raise_server_exceptions=False) as client:
        yield client, rt


def send(
    client: TestClient,
    body: bytes,
    *,
    event: str = "pull_request",
    signature: str | None = None,
    content_type: str = "application/json",
) -> Any:
    return client.post(
        "/webhook",
        content=body,
        headers={
            "Content-Type": content_type,
            "X-GitHub-Event": event,
            "X-GitHub-Delivery": str(uuid.uuid4()),
            # bytes: any Latin-1 header value goes through as is
            "X-Hub-Signature-256": (
                signature if signature is not None else sign(SECRET, body)
            ).encode("latin-1"),
        },
    )


def queued(rt: Runtime) -> int:
    return sum(rt.queue.counts().values())


def still_healthy(client: TestClient, rt: Runtime) -> dict:
    drain(rt)
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json()["processing"] == 0
    return health.json()


# --- unverified requests ----------------------------------------------------------

header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=80)


def test_unverified_requests_never_reach_the_queue_or_a_comment(tmp_path):
    with app_at(tmp_path) as (client, rt):

        @FUZZ
        @given(
            body=st.one_of(
                st.binary(max_size=2000),
                st.builds(lambda p: json.dumps(p).encode(), st.just(pr_payload())),
            ),
            signature=st.one_of(
                header_text,
                st.builds(lambda h: "sha256=" + h, st.text("0123456789abcdefABCDEF", max_size=70)),
            ),
            event=st.sampled_from(["pull_request", "issue_comment", "ping", "push", ""]),
        )
        def check(body: bytes, signature: str, event: str) -> None:
            r = send(client, body, event=event or "pull_request", signature=signature)
            assert r.status_code == 401, (r.status_code, r.text)

        check()
        # A correct signature made with another secret is refused the same way.
        body = json.dumps(pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)).encode()
        assert send(client, body, signature=sign("not-the-secret", body)).status_code == 401
        assert queued(rt) == 0
        still_healthy(client, rt)
        assert rt.dry_run.comments() == []


# --- signed, but malformed --------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
# Where a broken GitHub (or a forger holding the secret) could put the wrong thing.
PATHS = [
    ("action",),
    ("number",),
    ("repository",),
    ("repository", "full_name"),
    ("pull_request",),
    ("pull_request", "number"),
    ("pull_request", "title"),
    ("pull_request", "body"),
    ("pull_request", "labels"),
    ("pull_request", "head"),
    ("pull_request", "head", "sha"),
    ("pull_request", "draft"),
    ("pull_request", "state"),
    ("pull_request", "updated_at"),
    ("pull_request", "user"),
    ("sender",),
    ("sender", "type"),
    ("sender", "login"),
    ("installation",),
    ("installation", "id"),
    ("changes",),
    ("files",),
]
BASE = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)


def mutate(payload: dict, path: tuple[str, ...], value: Any, delete: bool) -> dict:
    out = copy.deepcopy(payload)
    node = out
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            return out
    if delete:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value
    return out


def test_signed_payloads_of_any_shape_are_never_a_server_error(tmp_path):
    with app_at(tmp_path) as (client, rt):
        statuses: set[int] = set()

        @FUZZ
        @given(
            changes=st.lists(
                st.tuples(st.sampled_from(PATHS), json_values, st.booleans()),
                min_size=1,
                max_size=3,
            ),
            action=st.sampled_from(["opened", "edited", "synchronize", "labeled", "closed"]),
        )
        def check(changes, action) -> None:
            payload = dict(BASE, action=action)
            for path, value, delete in changes:
                payload = mutate(payload, path, value, delete)
            r = send(client, json.dumps(payload).encode())
            statuses.add(r.status_code)
            assert r.status_code < 500, (r.status_code, r.text, changes)

        check()
        health = still_healthy(client, rt)
        # Some were refused (400), some ignored or queued (202); what was queued ended
        # done or failed with its error, and the workers are still there.
        assert {400, 202} <= statuses
        assert health["pending"] == 0
        ok = send(client, json.dumps(pr_payload(number=8001, title=MATCHING_TITLE)).encode())
        assert ok.status_code == 202
        drain(rt)
        assert rt.queue.get(ok.json()["delivery"]).state == "done"


COMMENT_PATHS = [
    ("action",),
    ("comment",),
    ("comment", "body"),
    ("comment", "id"),
    ("comment", "user"),
    ("issue",),
    ("issue", "number"),
    ("issue", "pull_request"),
    ("changes",),
    ("changes", "body"),
    ("sender",),
    ("sender", "login"),
    ("repository", "full_name"),
]


def comment_base(body: str = "/notes\n/notes search EAGLE") -> dict:
    base = next(e for e in octokit_examples("issue_comment") if e["action"] == "created")
    who = {"login": "octo-dev", "id": 5, "type": "User"}
    now = f"{utcnow()[:19]}Z"
    return dict(
        base,
        repository=dict(base["repository"], full_name=REPO, name="vllm"),
        issue={
            "number": 8301,
            "title": MATCHING_TITLE,
            "user": who,
            "state": "open",
            "pull_request": {"url": "https://api.github.com/repos/x/y/pulls/8301"},
        },
        # written now: the example's 2019 is older than deliveries are kept, a replay
        comment=dict(
            base["comment"], id=123456, body=body, user=who, created_at=now, updated_at=now
        ),
        sender=who,
        installation={"id": 1001},
    )


def test_signed_comment_payloads_of_any_shape_are_never_a_server_error(tmp_path):
    with app_at(tmp_path) as (client, rt):
        # no flood window: a `/notes` is answered at once, not 5 s later
        rt.ctx = replace(rt.ctx, commands=CommandConfig(min_update_interval_s=0))
        statuses: set[int] = set()
        base = comment_base()

        @FUZZ
        @given(
            changes=st.lists(
                st.tuples(st.sampled_from(COMMENT_PATHS), json_values, st.booleans()),
                min_size=1,
                max_size=3,
            ),
            action=st.sampled_from(["created", "edited", "deleted"]),
        )
        def check(changes, action) -> None:
            payload = dict(base, action=action)
            for path, value, delete in changes:
                payload = mutate(payload, path, value, delete)
            r = send(client, json.dumps(payload).encode(), event="issue_comment")
            statuses.add(r.status_code)
            assert r.status_code < 500, (r.status_code, r.text, changes)

        check()
        health = still_healthy(client, rt)
        assert {400, 202} <= statuses and health["pending"] == 0
        # bytes no example sent (a body seen before is a replay: a duplicate, 200)
        ok = send(client, json.dumps(comment_base(), indent=1).encode(), event="issue_comment")
        assert ok.status_code == 202
        drain(rt)
        assert rt.queue.get(ok.json()["delivery"]).state == "done"


@FUZZ
@given(body=st.binary(max_size=300))
def test_any_signed_bytes_are_answered_without_a_server_error(body):
    # One app for every example: build it once, lazily.
    client, rt = _shared_app()
    r = send(client, body)
    assert r.status_code in (200, 202, 400), (r.status_code, r.text)


_APP: dict[str, Any] = {}


def _shared_app() -> tuple[TestClient, Runtime]:
    return _APP["app"]


@pytest.fixture(autouse=True, scope="module")
def _module_app(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        clean_env(mp)
        with app_at(tmp_path_factory.mktemp("fuzz")) as app:
            _APP["app"] = app
            yield
            _APP.clear()


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000,  # json.loads raises RecursionError
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        b'{"action": "opened", "pull_request": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    ],
    ids=["arrays", "objects", "inside-a-payload"],
)
def test_deeply_nested_json_is_400_not_500(body):
    client, rt = _shared_app()
    r = send(client, body)
    assert r.status_code == 400 and r.json()["error"] == "body nests deeper than 1024 levels"


def test_json_orjson_refuses_and_nested_past_json_loads_is_400_saying_so():
    # NaN: read by json.loads, which gives up near 1000 levels (RecursionError)
    body = b'{"x": NaN, "a": ' + b"[" * 1010 + b"]" * 1010 + b"}"
    r = send(_shared_app()[0], body)
    assert (r.status_code, r.json()["error"]) == (400, "body nests deeper than about 1000 levels")


# 1010: past json.loads's recursion limit, within orjson's 1024, which the webhook reads
# with: the worker must read back whatever the webhook accepted, or the delivery stays
# `processing` and holds up the PR's next ones
@pytest.mark.parametrize("depth", [400, 1010])
def test_json_nested_deep_is_accepted_and_processed(tmp_path, depth):
    with app_at(tmp_path) as (client, rt):
        payload = pr_payload(title=MATCHING_TITLE, files=MATCHING_FILES)
        payload["pull_request"]["extra"] = "EXTRA"
        text = json.dumps(payload).replace('"EXTRA"', "[" * depth + "]" * depth)
        r = send(client, text.encode())
        assert r.status_code == 202
        drain(rt)
        assert rt.queue.get(r.json()["delivery"]).state == "done"
        assert client.get("/healthz").status_code == 200


NOT_AN_OBJECT = "body is not a JSON object"
GZIPPED = "body is gzip-compressed: GitHub sends plain JSON"
JSON, FORM = "application/json", "application/x-www-form-urlencoded"


@pytest.mark.parametrize(
    ("body", "content_type", "error"),
    [
        (b'{"action": "opened", "title": "\xff\xfe"}', JSON, "body is not UTF-8"),
        (b"payload=%7B%7D\xff", FORM, "body is not UTF-8"),
        (gzip.compress(b'{"action": "opened"}'), JSON, GZIPPED),
        (gzip.compress(b"payload=%7B%7D"), FORM, GZIPPED),
        (b"{'action': 'opened'}", JSON, NOT_AN_OBJECT),  # not JSON
        (b"\xef\xbb\xbf[1]", JSON, NOT_AN_OBJECT),  # BOM, then not an object
        (b"", JSON, NOT_AN_OBJECT),
        (b"null", JSON, NOT_AN_OBJECT),
        (b'"a string"', JSON, NOT_AN_OBJECT),
        (b"action=opened", FORM, NOT_AN_OBJECT),  # no `payload` field
    ],
)
def test_bodies_that_are_not_a_json_object_are_400_saying_why(body, content_type, error):
    # a 400 is not sent again by GitHub: its reason (Recent Deliveries, the WARNING) is
    # all the operator has of it, and "not a JSON object" said nothing of a gzip body
    r = send(_shared_app()[0], body, content_type=content_type)
    assert (r.status_code, r.json()["error"]) == (400, error)


def test_a_number_out_of_range_is_400_not_a_database_error():
    client, rt = _shared_app()
    payload = pr_payload()
    payload["pull_request"]["number"] = 2**70
    r = send(client, json.dumps(payload).encode())
    assert r.status_code == 400 and "out of range" in r.json()["error"]


@pytest.mark.parametrize(("number", "status"), [(2**53 - 1, 202), (2**53, 400)])
def test_pr_numbers_up_to_2_to_the_53_are_taken(number, status):
    # past 2**53 a number no longer survives every JSON reader exactly: refused
    client, _ = _shared_app()
    payload = pr_payload(action="labeled", state="closed")  # ignored after the number
    payload["pull_request"]["number"] = number
    assert send(client, json.dumps(payload).encode()).status_code == status


@pytest.mark.parametrize("number", ["1e400", "-1e400", "Infinity"])
def test_a_pr_number_past_a_double_is_400_not_500(number):
    # json.loads reads it as infinity, which int() refuses with OverflowError
    client, rt = _shared_app()
    text = json.dumps(pr_payload(number=7001)).replace('"number": 7001', f'"number": {number}')
    assert f'"number": {number}' in text
    r = send(client, text.encode())
    assert r.status_code == 400 and "malformed" in r.json()["error"]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(pr_payload()).replace('"action": "opened"', '"action": "op\\ud800"'),
        '{"zen": "Keep it logically awesome.\\ud800", "hook_id": 1}',
    ],
    ids=["quoted-in-the-reason", "ping-zen"],
)
def test_a_lone_surrogate_the_answer_quotes_is_no_server_error(text):
    # valid JSON; the answer quotes it, and UTF-8 cannot encode it: the answer is ASCII
    client, _ = _shared_app()
    event = "ping" if "zen" in text else "pull_request"
    r = send(client, text.encode(), event=event)
    assert r.status_code in (200, 202), r.text
    assert "\\ud800" in r.text  # escaped, as JSON allows


@pytest.mark.parametrize("field", ["repository", "sender"])
def test_a_signed_payload_with_a_list_for_an_object_is_400(field):
    client, _ = _shared_app()
    payload = pr_payload()
    payload[field] = [1]
    r = send(client, json.dumps(payload).encode())
    assert r.status_code == 400 and "malformed" in r.json()["error"]


def test_utf16_json_is_accepted_stored_and_processed(tmp_path):
    with app_at(tmp_path) as (client, rt):
        payload = pr_payload(number=8101, title=MATCHING_TITLE, files=MATCHING_FILES)
        r = send(client, json.dumps(payload).encode("utf-16"))
        assert r.status_code == 202
        drain(rt)
        assert rt.queue.get(r.json()["delivery"]).state == "done"
        assert len(rt.dry_run.comments(number=8101)) == 1


# --- hostile pull request text ------------------------------------------------------

HOSTILE = (
    "@everyone @vllm-project/maintainers <script>alert(1)</script> <img src=x onerror=y> "
    "**bold** [link](https://evil.example) fixes #123 GH-45 vllm-project/vllm#46 "
    "https://github.com/vllm-project/vllm/pull/52419 <!-- review-notes:v1 --> "
    "\u200b\u200d\u2060\ufeff \u202e\u2066RTL\u2069\u202c /notes off \ud800"
)


def hostile_title(extra: str) -> str:
    return f"[Spec Decode][{extra[:40]}] {MATCHING_TITLE} {extra}"


def test_hostile_pr_text_renders_inert_end_to_end(tmp_path):
    with app_at(tmp_path) as (client, rt):
        cases = [
            ("injection", hostile_title(HOSTILE), HOSTILE),
            ("100 KB title", hostile_title("@everyone " * 10_000), "x"),
            ("1 MB description", MATCHING_TITLE, (HOSTILE + "\n") * 4_000),
            ("command lines", MATCHING_TITLE, "/notes off\n/notes why\n"),
        ]
        for number, (name, title, body) in enumerate(cases, start=8200):
            payload = pr_payload(number=number, title=title, body=body, files=MATCHING_FILES)
            payload["pull_request"]["labels"] = [{"name": HOSTILE, "id": 1, "color": "fff"}]
            r = send(client, json.dumps(payload).encode())
            assert r.status_code == 202, name
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        for number, (name, *_) in enumerate(cases, start=8200):
            (comment,) = rt.dry_run.comments(number=number)
            body = comment["body"]
            assert_inert(body)
            assert "<script" not in body and "<img" not in body, name
            assert "@everyone" not in body and "\u202e" not in body, name


def _notes_made(tmp_path, fake_github, app_key, payload: dict) -> str:
    """The notes comment's body the delivery of `payload` (a PR event) wrote, run to done."""
    with serving(app_settings(tmp_path, fake_github, app_key)) as (client, rt):
        r = send(client, json.dumps(payload).encode())
        assert r.status_code == 202, r.text
        drain(rt)
        assert rt.queue.get(r.json()["delivery"]).state == "done", rt.queue.failed()
    (comment,) = ours(fake_github, payload["number"], REPO)
    return comment.body


def test_a_lone_surrogate_in_pr_text_reaches_github_as_unicode(tmp_path, fake_github, app_key):
    # JSON escapes carry a lone surrogate (a signed payload, however made); GitHub refuses
    # such text in a write (the fake too: 422), so the delivery failed at every retry
    lone = "\ud800"
    # a file of a note's folder is named in the comment; the payload's list (our
    # examples') is taken as the PR's: the text all comes from the delivery
    files = [f"vllm/distributed/elastic_ep/deferred{lone}.py"]
    fake_github.add_pull(REPO, 8301, files=["vllm/distributed/elastic_ep/deferred.py"])
    title = f"[ROCm] Fix the elastic EP scaling deadlock {lone}"
    payload = pr_payload(number=8301, title=title, body=f"x {lone}", files=files)
    payload["pull_request"]["labels"] = [{"name": f"bug{lone}", "id": 1, "color": "fff"}]
    payload["pull_request"]["user"]["login"] = f"octo{lone}"
    body = _notes_made(tmp_path, fake_github, app_key, payload)
    assert lone not in body and "deferred\ufffd.py" in body


def test_a_lone_surrogate_in_github_s_answers_reaches_github_and_sqlite_as_unicode(
    tmp_path, fake_github, app_key
):
    # the same text read back from GitHub's API, not the delivery: a file name in its
    # file list (cached in SQLite, named in the comment) failed the delivery at every retry
    lone = "\ud800"
    fake_github.add_pull(REPO, 8302, files=[f"vllm/distributed/elastic_ep/deferred{lone}.py"])
    payload = pr_payload(number=8302, title="[ROCm] Fix the elastic EP scaling deadlock")
    body = _notes_made(tmp_path, fake_github, app_key, payload)
    assert lone not in body and "deferred\ufffd.py" in body


def test_a_lone_surrogate_in_a_command_kept_for_a_locked_conversation_breaks_nothing(live):
    # a command met the lock and is kept in SQLite till the unlock, which cannot store a
    # lone surrogate: the delivery failed at each retry
    client, rt, fake = live
    fake.lock(REPO, N, "too heated")
    say(client, rt, fake, "/notes off \ud800", login=AUTHOR)
    assert rt.queue.counts()["failed"] == 0, [d.last_error for d in rt.queue.failed()]
    fake.unlock(REPO, N)
    deliver_pr(client, rt, action="unlocked", title=MATCHING_TITLE)
    assert rt.queue.counts()["failed"] == 0, [d.last_error for d in rt.queue.failed()]
    assert state(rt).opted_out  # run at the unlock, as `/notes off ?`


@FUZZ
@given(
    extra=st.text(
        st.characters(blacklist_categories=("Cs",))
        | st.sampled_from(["@", "#", "<", ">", "`", "*", "[", "]", "\u202e", "\u200b", "\n"]),
        max_size=200,
    )
)
def test_any_pr_title_and_body_give_an_inert_comment(extra):
    client, rt = _shared_app()
    number = 9000 + zlib.crc32(extra.encode("utf-8", "surrogatepass")) % 100_000
    payload = pr_payload(
        number=number, title=hostile_title(extra), body=extra, files=MATCHING_FILES
    )
    payload["pull_request"]["updated_at"] = f"2026-09-01T10:00:00.{uuid.uuid4().int % 10**6}Z"
    r = send(client, json.dumps(payload).encode())
    assert r.status_code == 202
    drain(rt)
    assert rt.queue.get(r.json()["delivery"]).state == "done"
    (comment,) = rt.dry_run.comments(number=number)  # the files match whatever the text
    assert_inert(comment["body"])

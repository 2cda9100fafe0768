"""Structured logs carry context and never secrets; metrics render in Prometheus format."""

import io
import json
import logging

from bot.logs import Redactor, setup_logging
from bot.metrics import Metrics


def _log_lines(secrets, emit):
    stream = io.StringIO()
    setup_logging("DEBUG", secrets=secrets, stream=stream)
    try:
        emit(logging.getLogger("t"))
    finally:
        logging.getLogger().handlers[:] = []
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_one_json_object_per_line_with_context_fields():
    lines = _log_lines([], lambda log: log.info("processed", extra={"delivery": "d-1", "pr": 7}))
    assert lines == [
        {**lines[0], "level": "info", "logger": "t", "msg": "processed", "delivery": "d-1", "pr": 7}
    ]


def test_configured_secret_and_token_shapes_are_redacted():
    token = "ghs_" + "A" * 36
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"
    lines = _log_lines(
        ["my-webhook-secret"],
        lambda log: log.warning(
            "auth %s %s %s", "my-webhook-secret", token, pem, extra={"hdr": "Bearer " + "x" * 30}
        ),
    )
    text = json.dumps(lines)
    for leaked in ("my-webhook-secret", token, "MIIEabc", "x" * 30):
        assert leaked not in text
    assert text.count("[redacted]") == 4


def test_the_app_manifest_code_in_an_access_line_is_redacted():
    # uvicorn's access log (on at DEBUG) writes the redirect's query: the one-hour code
    # that GitHub exchanges for the App's private key and webhook secret
    code = "0123456789abcdef0123"
    lines = _log_lines(
        [],
        lambda log: log.info(
            '%s - "%s %s HTTP/%s" %d',
            "127.0.0.1:5000",
            "GET",
            f"/github/app-created?code={code}",
            "1.1",
            200,
        ),
    )
    assert code not in json.dumps(lines)
    assert "/github/app-created[redacted] HTTP/1.1" in lines[0]["msg"]  # the query, all of it


def test_redactor_leaves_ordinary_text_alone():
    assert Redactor(["s3cr3t"])("PR 52419 matched 2 notes") == "PR 52419 matched 2 notes"


def test_metrics_render_prometheus_text_and_run_collect_hooks():
    m = Metrics()
    m.deliveries.labels("pull_request", "done").inc()
    m.on_collect(lambda: m.queue_depth.labels("pending").set(4))
    text = m.render().decode()
    assert 'review_notes_deliveries_total{event="pull_request",outcome="done"} 1.0' in text
    assert 'review_notes_queue_depth{state="pending"} 4.0' in text
    # Two apps in one process do not collide.
    Metrics().deliveries.labels("ping", "done").inc()


# --- found by review 'r16a' ------------------------------------------------------------


def test_a_secret_is_redacted_also_as_a_json_line_escapes_it():
    # the redactor looked for the secret in the JSON line, where a `"` or `\` in it is
    # escaped: a webhook secret typed as sw0rd"fish\2026 went to the log whole
    secret = 'sw0rd"fish\\2026'

    def emit(log):
        try:
            raise RuntimeError(f"refused header 'X-Hub-Signature: {secret}'")
        except RuntimeError:
            log.exception("delivery d-1 failed")
        log.warning("secret was %s", secret)

    lines = _log_lines([secret], emit)
    assert len(lines) == 2
    assert all(secret not in str(v) for entry in lines for v in entry.values()), lines
    assert Redactor([secret])(f"x {secret} y") == "x [redacted] y"  # a plain text too


def test_the_manifest_code_is_redacted_at_a_trailing_slash_and_after_other_fields():
    # GitHub sends the browser to the redirect URL the operator typed: with a trailing
    # slash (answered by a redirect) the access line held the one-hour code in clear
    code = "0123456789abcdef0123"
    redact = Redactor()
    for path in (f"/github/app-created/?code={code}", f"/github/app-created?state=s&code={code}"):
        line = redact(f'127.0.0.1:5000 - "GET {path} HTTP/1.1" 307')
        assert code not in line and line.endswith('[redacted] HTTP/1.1" 307'), line


def test_a_library_logger_with_its_own_handler_writes_nothing_unredacted():
    # PyGithub adds a StreamHandler (stderr) to the "github" logger at import: its records
    # went out twice, once redacted as JSON and once as they were (review r25c)
    import github  # noqa: F401 (its import is what adds the handler)

    raw = io.StringIO()
    own = [h for h in logging.getLogger("github").handlers if isinstance(h, logging.StreamHandler)]
    kept = [h.setStream(raw) for h in own]  # what it writes, read here, not on stderr
    token = "ghs_" + "B" * 36
    try:
        lines = _log_lines(
            ["my-webhook-secret"],
            lambda _: logging.getLogger("github.Requester").info(
                "Following Github server redirection from /x?t=%s&s=%s", token, "my-webhook-secret"
            ),
        )
    finally:
        for handler, stream in zip(own, kept, strict=True):
            handler.setStream(stream)
    assert raw.getvalue() == ""
    assert [line["logger"] for line in lines] == ["github.Requester"]
    assert token not in json.dumps(lines) and "my-webhook-secret" not in json.dumps(lines)


def test_the_log_level_holds_for_pygithubs_records_too():
    # PyGithub's import sets its "github" logger to INFO itself: with
    # REVIEW_NOTES_LOG_LEVEL=WARNING its INFO lines (a redirect followed) still went out
    import github  # noqa: F401 (its import is what sets the level)

    pygithub = logging.getLogger("github")
    before = pygithub.level
    stream = io.StringIO()
    try:
        for level in ("WARNING", "ERROR", "INFO"):
            setup_logging(level, stream=stream)
            logging.getLogger("github.Requester").info("Following Github server redirection")
            logging.getLogger("github.Requester").debug("GET /repos/o/r ==> 200")
        setup_logging("DEBUG", stream=stream)  # its DEBUG lines stay off, as they were
        logging.getLogger("github.Requester").debug("GET /repos/o/r ==> 200")
    finally:
        logging.getLogger().handlers[:] = []
        pygithub.setLevel(before)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["level"], line["msg"]) for line in lines] == [
        ("info", "Following Github server redirection")  # the INFO run only
    ]


def test_plain_lines_for_a_terminal_are_redacted_too():
    # the CLI's commands that call GitHub (notes refs, redeliver) log as plain lines
    stream = io.StringIO()
    token = "ghs_" + "C" * 36
    setup_logging("INFO", secrets=["my-webhook-secret"], stream=stream, plain=True)
    try:
        logging.getLogger("bot.github_retry").warning("GitHub get: %s; my-webhook-secret", token)
        logging.getLogger("bot.github_retry").debug("not at INFO")
    finally:
        logging.getLogger().handlers[:] = []
    assert stream.getvalue() == "warning: bot.github_retry: GitHub get: [redacted]; [redacted]\n"

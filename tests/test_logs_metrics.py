"""Structured logs carry context and never secrets; metrics render in Prometheus format."""

import io
import json
import logging
import subprocess

import pytest

from bot.logs import Redactor, logging_kept, setup_logging
from bot.metrics import Metrics


def _log_lines(secrets, emit):
    stream = io.StringIO()
    with logging_kept():  # the suite's later tests log as before (their level, pytest's)
        setup_logging("DEBUG", secrets=secrets, stream=stream)
        emit(logging.getLogger("t"))
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


# --- redaction: JSON escapes, the manifest code, PyGithub's records, plain lines ------


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
    # went out twice, once redacted as JSON and once as they were
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


# A PyGithub record logged once its client is made, as a command calling GitHub would
# meet one (a redirect followed), then the start stopped there.
_PYGITHUB_LINE = """
import logging, sys
from bot import server
from bot.cli import main
made = server.live_github

def live_github(settings):
    made(settings)
    logging.getLogger("github.Requester").warning("followed with ghs_" + "F" * 36)
    raise server.StartupError("stopped here")

server.live_github = live_github
sys.exit(main(sys.argv[1:]))
"""


# PyGithub is imported only when a command calls GitHub, after its log setup: its
# import's own stderr handler is taken off where the bot imports it (bot.github_errors),
# in each command that can call GitHub
@pytest.mark.parametrize("command", [["serve", "--port", "1"], ["notes", "refs"], ["redeliver"]])
def test_no_pygithub_line_escapes_unredacted_from_a_command_calling_github(
    command, tmp_path, fake_github, app_key
):
    from bot.db import Database
    from bot.queue import DeliveryQueue
    from tests.webhook_kit import PY, ROOT, app_env

    DeliveryQueue(Database(tmp_path / "bot.sqlite3"))  # what redeliver reads
    r = subprocess.run(
        [PY, "-c", _PYGITHUB_LINE, *command],
        cwd=tmp_path,
        env=app_env(tmp_path, fake_github, app_key) | {"PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "stopped here" in r.stderr, r.stderr[-500:]
    assert "ghs_" not in r.stderr, r.stderr[-500:]
    (line,) = [x for x in r.stderr.splitlines() if "followed with" in x]
    assert "github.Requester" in line and "[redacted]" in line, line


def test_the_log_level_holds_for_pygithubs_records_too():
    # PyGithub's import sets its "github" logger to INFO itself: with
    # REVIEW_NOTES_LOG_LEVEL=WARNING its INFO lines (a redirect followed) still went out
    import github  # noqa: F401 (its import is what sets the level)

    stream = io.StringIO()
    with logging_kept():
        for level in ("WARNING", "ERROR", "INFO"):
            setup_logging(level, stream=stream)
            logging.getLogger("github.Requester").info("Following Github server redirection")
            logging.getLogger("github.Requester").debug("GET /repos/o/r ==> 200")
        setup_logging("DEBUG", stream=stream)  # its DEBUG lines stay off, as they were
        logging.getLogger("github.Requester").debug("GET /repos/o/r ==> 200")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [(line["level"], line["msg"]) for line in lines] == [
        ("info", "Following Github server redirection")  # the INFO run only
    ]


def test_plain_lines_for_a_terminal_are_redacted_too():
    # the CLI's commands that call GitHub (notes refs, redeliver) log as plain lines
    stream = io.StringIO()
    token = "ghs_" + "C" * 36
    with logging_kept():
        setup_logging("INFO", secrets=["my-webhook-secret"], stream=stream, plain=True)
        logging.getLogger("bot.github_retry").warning("GitHub get: %s; my-webhook-secret", token)
        logging.getLogger("bot.github_retry").debug("not at INFO")
    assert stream.getvalue() == "warning: bot.github_retry: GitHub get: [redacted]; [redacted]\n"


# --- redaction of every token, header, key and secret; the log's context fields ----------


# kills: bot/logs.py:_SECRET_PATTERNS `gh[opsur]_` narrowed (to `ghs_`): a personal, OAuth,
#        user or refresh token reached the log whole; the fine-grained `github_pat_` pattern
#        dropped
def test_every_kind_of_github_token_is_redacted():
    tokens = [f"gh{kind}_" + "Tk9" * 12 for kind in "opsur"]
    tokens.append("github_pat_" + "11AB_" * 8)
    lines = _log_lines([], lambda log: log.warning("tokens %s", " ".join(tokens)))
    assert lines[0]["msg"] == "tokens " + " ".join(["[redacted]"] * len(tokens))


# kills: bot/logs.py:_SECRET_PATTERNS the `token` scheme or the case-blindness dropped (an
#        Authorization header as PyGithub writes it); the webhook signature pattern
#        dropped; the App's JWT pattern dropped
def test_auth_headers_signatures_and_the_apps_jwt_are_redacted():
    opaque = "0f" * 20  # a credential of no known shape, after an auth scheme
    jwt = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjM0NSJ9.c2lnbmF0dXJlLWJ5dGVz"
    signature = "sha256=" + "ab12" * 16
    for shown in (f"Authorization: token {opaque}", f"authorization: bearer {opaque}"):
        assert Redactor()(shown).endswith(" [redacted]"), shown
    lines = _log_lines([], lambda log: log.info("jwt %s sig %s", jwt, signature))
    assert lines[0]["msg"] == "jwt [redacted] sig [redacted]"


def test_the_old_sha1_webhook_signature_is_redacted_too():
    # GitHub still sends X-Hub-Signature (HMAC-SHA1) beside X-Hub-Signature-256: a
    # line showing the headers shows both
    sha1 = "sha1=" + "ab12" * 10
    assert Redactor()(f"X-Hub-Signature: {sha1}") == "X-Hub-Signature: [redacted]"


# kills: bot/logs.py:_SECRET_PATTERNS `re.S` dropped: a key's lines are real newlines in a
#        plain line (a JSON line escapes them, so only the plain form shows it); also a
#        PKCS#8 key, no algorithm named in its armour
def test_a_private_key_over_several_lines_is_redacted_in_plain_text():
    for armour in ("RSA PRIVATE KEY", "PRIVATE KEY"):
        pem = f"-----BEGIN {armour}-----\nMIIEabc\ndef\n-----END {armour}-----"
        assert Redactor()(f"key:\n{pem}\nend") == "key:\n[redacted]\nend"


# kills: bot/logs.py:Redactor.__init__ `len(s) >= 4` -> `> 4`: a configured secret of four
#        characters was logged; the floor itself keeps a one-letter "secret" from blanking every
#        line
def test_configured_secrets_of_four_characters_are_redacted_shorter_ones_not():
    assert Redactor(["k3y!"])("the k3y! here") == "the [redacted] here"
    assert Redactor(["abc"])("abc def") == "abc def"


# kills: bot/logs.py:Redactor.__init__ secrets replaced shortest first: a secret that holds another
#        (a webhook secret that begins with the proxy's password) left its tail in the line
def test_a_secret_that_contains_another_is_redacted_whole():
    redact = Redactor(["pa55", "pa55word-for-the-webhook"])
    assert redact("secret pa55word-for-the-webhook") == "secret [redacted]"


# kills: bot/logs.py:JsonFormatter.format the context loop dropped (lines without the delivery being
#        worked on); `reversed` dropped (the outer block's value over the inner's); setdefault ->
#        assignment (the block's value over the record's own `extra`)
def test_log_context_fields_nest_inner_first_and_yield_to_extra():
    from bot.logs import log_context

    def emit(log):
        with log_context(delivery="d-outer", repo="o/r"):
            with log_context(delivery="d-inner"):
                log.info("inner")
                log.info("own", extra={"repo": "x/y"})
            log.info("outer")
        log.info("after")

    lines = _log_lines([], emit)
    fields = [(e["msg"], e.get("delivery"), e.get("repo")) for e in lines]
    assert fields == [
        ("inner", "d-inner", "o/r"),
        ("own", "d-inner", "x/y"),
        ("outer", "d-outer", "o/r"),
        ("after", None, None),
    ]


# kills: bot/logs.py:JsonFormatter.format and :PlainFormatter.format the traceback dropped from a
#        JSON line and from a plain line (an exception logged without where it came from)
def test_a_logged_exception_keeps_its_traceback_redacted():
    def fail(log):
        try:
            raise RuntimeError("bad ghs_" + "D" * 36)
        except RuntimeError:
            log.exception("failed")

    [entry] = _log_lines([], fail)
    assert "Traceback" in entry["exc"] and "RuntimeError: bad [redacted]" in entry["exc"]
    stream = io.StringIO()
    with logging_kept():
        setup_logging("INFO", stream=stream, plain=True)
        fail(logging.getLogger("t"))
    text = stream.getvalue()
    assert text.startswith("error: t: failed\nTraceback") and "bad [redacted]" in text


# kills: bot/logs.py:Redactor.__init__ the escaped form written with `ensure_ascii=True` or cut one
#        character short (`[2:-1]`), and bot/logs.py:JsonFormatter.format the line written with
#        `ensure_ascii=True`: a secret with a quote and a non-ASCII letter, as the line
#        escapes it, matched no form the redactor knew (or left its first letter)
def test_a_non_ascii_secret_with_a_quote_is_redacted_whole_in_a_json_line():
    secret = 'pä"ss-wörd'
    lines = _log_lines([secret], lambda log: log.warning("secret was %s", secret))
    assert lines[0]["msg"] == "secret was [redacted]"


# --- the outcomes an alert watches start at zero --------------------------------------


# kills: bot/metrics.py:Metrics.__init__ the outcomes an alert watches left without a sample
#        until their first count
def test_the_outcomes_an_alert_watches_have_a_zero_sample_from_the_start():
    # A labelled series is born at its first count: `increase(...[1h]) > 0` sees nothing
    # of a series that starts at 1, so the start's redelivery sweep failing (the first
    # sweep after every restart and upgrade), or the first request refused 401, went by
    # no alert. Each outcome docs/operating.md says to alert on is there at 0 before any happens.
    from tests.test_observability import samples, value

    found = samples(Metrics().render().decode())
    for outcome in ("done", "stopped", "waiting", "failed"):
        assert value(found, "review_notes_redelivery_sweeps_total", outcome=outcome) == 0
    for outcome in ("asked", "refused", "given_up"):
        assert value(found, "review_notes_redeliveries_total", outcome=outcome) == 0
    for outcome in ("bad_signature", "wrong_path", "too_large", "too_slow", "bad_length"):
        deliveries = "review_notes_deliveries_total"
        assert value(found, deliveries, event="unverified", outcome=outcome) == 0
    for budget in ("write", "reply"):
        assert value(found, "review_notes_commands_refused_total", budget=budget) == 0
    for outcome in ("done", "failed"):
        assert value(found, "review_notes_retention_passes_total", outcome=outcome) == 0

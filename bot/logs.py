"""Structured logs: one JSON object per line, secrets redacted.

Fields passed with `extra={"delivery": ..., "repo": ..., "pr": ...}` become keys
of the object, so a delivery can be followed through the log with one grep.
Inside `with log_context(delivery=..., pr=...)` every record logged by that thread
(the GitHub client's retries, the libraries' lines) carries those fields too.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

# Shapes of credentials that must never reach a log line, whatever logged them.
_SECRET_PATTERNS = [
    re.compile(r"gh[opsur]_[A-Za-z0-9_-]{20,}"),  # GitHub tokens (ghs_ = installation)
    re.compile(r"github_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"(?i)(bearer|token)\s+[A-Za-z0-9._\-]{16,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S),
    re.compile(r"sha256=[0-9a-f]{64}|sha1=[0-9a-f]{40}"),  # webhook signatures, both headers
    re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),  # JWTs (App auth)
    # the App manifest flow's one-hour code (exchanged for the App's key and secret),
    # in the access log line of its redirect: the whole query, whatever the order of its
    # fields, also at the address typed with a trailing slash (answered by a redirect)
    re.compile(r"(?<=/github/app-created)/?\?[^\s\"]+"),
]
_context: ContextVar[tuple[tuple[str, Any], ...]] = ContextVar("review_notes_log", default=())


@contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Add these fields to every record this thread logs inside the block."""
    token = _context.set((*_context.get(), *fields.items()))
    try:
        yield
    finally:
        _context.reset(token)


# Not fields of a line: the record's own attributes, and uvicorn's copy of its message
# with terminal colour codes (ANSI escapes in a JSON log help no reader).
_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime", "color_message"}


class Redactor:
    """Replace known secret values and credential-shaped strings with a placeholder."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = {s for s in secrets if s and len(s) >= 4}
        # as a JSON log line writes them too: a `"` or `\\` in a secret is escaped there
        values |= {json.dumps(s, ensure_ascii=False)[1:-1] for s in values}
        self.secrets = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, "[redacted]")
        for pattern in _SECRET_PATTERNS:
            text = pattern.sub("[redacted]", text)
        return text


class JsonFormatter(logging.Formatter):
    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        for key, value in reversed(_context.get()):  # inner first; in the logging thread
            entry.setdefault(key, value)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return self.redact(json.dumps(entry, ensure_ascii=False, default=str))


class PlainFormatter(logging.Formatter):
    """`warning: bot.github_retry: GitHub ...`: a line a person reads at a terminal
    (the CLI's commands that call GitHub), redacted as the server's JSON lines are."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        text = f"{record.levelname.lower()}: {record.name}: {record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return self.redact(text)


def setup_logging(
    level: str = "INFO", secrets: Iterable[str] = (), stream=None, *, plain: bool = False
) -> None:
    """Send every log record, ours and the libraries', as redacted JSON lines (the
    server), or as redacted plain lines (`plain`: a CLI command that calls GitHub).
    Inside `logging_kept()` (the CLI's commands), undone at the block's end."""
    handler = logging.StreamHandler(stream or sys.stderr)
    redact = Redactor(secrets)
    handler.setFormatter(PlainFormatter(redact) if plain else JsonFormatter(redact))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    quiet_pygithub()


def quiet_pygithub() -> None:
    """Take off the stderr handler PyGithub's import gives its "github" logger, which
    wrote each of its records a second time as it was: unredacted, not JSON; and hold
    its level to the root's. Called by `setup_logging`, and where the bot imports PyGithub
    (`bot.github_errors`), as a command imports it only when it calls GitHub: after its log
    setup."""
    pygithub = logging.getLogger("github")
    pygithub.handlers[:] = [h for h in pygithub.handlers if isinstance(h, logging.NullHandler)]
    # Its import also sets its logger to INFO, which let its INFO lines through a WARNING
    # or ERROR level: now the root's level, never below INFO (its DEBUG lines, every
    # request and answer, stay off as they were)
    pygithub.setLevel(max(logging.INFO, logging.getLogger().level))


@contextmanager
def logging_kept() -> Iterator[None]:
    """Put the root and PyGithub's loggers back as they were on entry (their handlers and
    levels, which `setup_logging` replaces) when the block ends. A command run in-process
    (a test, a wrapper) left its handler on the stderr of its run: a caller's capture of
    it, closed once read, was written to by any later record (a queue worker's), and
    Python's "--- Logging error --- ... I/O operation on closed file" went to the stderr
    of whatever ran then."""
    kept = [(log, log.handlers[:], log.level) for log in map(logging.getLogger, ("", "github"))]
    try:
        yield
    finally:
        for log, handlers, level in kept:
            log.handlers[:] = handlers
            log.setLevel(level)

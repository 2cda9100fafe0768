"""The store of commands a locked conversation kept from being heard
(bot.locked_commands), on real SQLite; end to end, at the unlock: tests/test_unlocks.py."""

from __future__ import annotations

from bot.command_policy import Actor
from bot.command_source import Source
from bot.db import Database
from bot.github_port import PRRef
from bot.locked_commands import LockedCommands
from bot.order_keys import comment_key
from bot.queue import Delivery

REF = PRRef("Owner/Repo", 7, 1001)


def _said(body: str, at: str, old_body: str | None = None) -> tuple[Delivery, Source]:
    delivery = Delivery(f"d-{at}", "issue_comment", "edited" if old_body else "created", {})
    source = Source(
        body=body,
        old_body=old_body,
        comment_id=42,
        actor=Actor("maintainer", False),
        pr_author="someone",
        pull={},
        said_at=comment_key(at, 42),
    )
    return delivery, source


# kills: bot/locked_commands.py:LockedCommands.keep an older text run late kept over a newer
def test_a_comment_text_run_late_does_not_replace_a_newer_one_kept(tmp_path):
    """The edit made while locked ran first, its comment's `created` after (a retry, a
    redelivery): the newer text stays kept, with the older one's pre-lock text (none)."""
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    assert store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    assert store.keep(REF, *_said("/notes why", "2026-09-01T10:05:00Z", "/notes help"))
    assert not store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    (kept,) = LockedCommands(Database(tmp_path / "bot.sqlite3")).kept("owner/repo", 7)
    assert (kept.body, kept.old_body, kept.delivery) == (
        "/notes why",
        None,
        "d-2026-09-01T10:05:00Z",
    )

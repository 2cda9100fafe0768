"""A GitHubPort that writes nothing to GitHub: it records what it would post.

Used when no credentials are configured (`review-notes serve` out of the box), or
when REVIEW_NOTES_DRY_RUN=true. Comments and reactions go to SQLite and the log;
`GET /dry-run/comments` lists them. Changed files are unknown without GitHub, so
matching uses the title, body and labels, plus a `files` list when the payload carries
one (our examples do).
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import Any

from bot.db import Database
from bot.github_port import (
    FileList,
    Outcome,
    PRRef,
    RestoreOutcome,
    RestoreResult,
    StickyResult,
    write_asked,
)
from bot.installations import InstallationChange
from bot.markers import ends_with_key, opens_with
from bot.prstate import NO_HISTORY, WriteBackHistory
from bot.times import utcnow

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS dry_run_comments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    repo        TEXT NOT NULL,
    number      INTEGER NOT NULL,
    body        TEXT NOT NULL,
    sticky      INTEGER NOT NULL,          -- 1: the bot's sticky comment, 0: a reply
    edits       INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS dry_run_reactions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    repo        TEXT NOT NULL,
    number      INTEGER NOT NULL,
    comment_id  INTEGER NOT NULL,
    content     TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
"""


class DryRunGitHub:
    """GitHubPort implementation for dry runs (same contract as the real client)."""

    calls = None  # no HTTP calls to count

    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)

    def get_pull(self, ref: PRRef) -> None:
        return None  # the caller matches on what the event carried

    def list_files(self, ref: PRRef, *, expected: int | None = None) -> FileList:
        log.info("dry run: changed files of %s PR %s are unknown", ref.repo, ref.number)
        return FileList()

    def upsert_sticky(
        self,
        ref: PRRef,
        body: str,
        marker: str,
        *,
        create: bool,
        known_id: int | None = None,
        known_differs: bool = False,
        given_back: Collection[int] = (),
    ) -> StickyResult:
        # `known_id` and `known_differs` need no look of their own: this table never lags
        # behind a write. `given_back`: none is kept in a dry run (its comments are never
        # rewritten), but one given is passed over, as the live client does
        now = utcnow()
        with self.db.tx() as conn:
            listed = conn.execute(
                "SELECT id, body FROM dry_run_comments WHERE repo = ? AND number = ? AND sticky = 1"
                " ORDER BY id",
                (ref.repo, ref.number),
            ).fetchall()
            # as the live client: the notes comment opens with the marker (quoted further
            # down, it is not the notes comment)
            rows = [
                r for r in listed if opens_with(r["body"], marker) and r["id"] not in given_back
            ]
            row = rows[0] if rows else None  # the oldest is kept; the others go, as on GitHub
            for copy in rows[1:]:
                conn.execute("DELETE FROM dry_run_comments WHERE id = ?", (copy["id"],))
                log.info("dry run: would have deleted duplicate comment %s", copy["id"])
            if row is not None and row["body"] == body:
                return StickyResult(Outcome.UNCHANGED, row["id"])
            if row is not None or create:
                write_asked()  # as the live client, for its PATCH or POST (never held back here)
            if row is not None:
                conn.execute(
                    "UPDATE dry_run_comments SET body = ?, edits = edits + 1, updated_at = ?"
                    " WHERE id = ?",
                    (body, now, row["id"]),
                )
                result = StickyResult(Outcome.UPDATED, row["id"])
            elif create:
                cur = conn.execute(
                    "INSERT INTO dry_run_comments (repo, number, body, sticky, created_at,"
                    " updated_at) VALUES (?, ?, ?, 1, ?, ?)",
                    (ref.repo, ref.number, body, now, now),
                )
                result = StickyResult(Outcome.CREATED, cur.lastrowid)
            else:
                return StickyResult(Outcome.SKIPPED)
        log.info(
            "dry run: would have %s comment %s on %s PR %s:\n%s",
            result.outcome,
            result.comment_id,
            ref.repo,
            ref.number,
            body,
        )
        return result

    def delete_sticky(self, ref: PRRef, comment_id: int, marker: str) -> bool:
        # (a dry run's comments are not on GitHub: no deletion of GitHub's reaches here)
        with self.db.tx() as conn:
            cur = conn.execute(
                "DELETE FROM dry_run_comments WHERE id = ? AND repo = ? AND number = ?"
                " AND sticky = 1",
                (comment_id, ref.repo, ref.number),
            )
        return cur.rowcount > 0

    def restore_text(
        self,
        ref: PRRef,
        comment_id: int,
        text: str,
        marker: str,
        *,
        history: WriteBackHistory = NO_HISTORY,
    ) -> RestoreResult:
        # a dry run's comments are not on GitHub: none of them is there to write onto
        return RestoreResult(RestoreOutcome.GONE)

    def _replies_under(self, ref: PRRef, key: str) -> list[int]:
        """The ids of the PR's replies under `key`, oldest first."""
        rows = self.db.execute(
            "SELECT id, body FROM dry_run_comments WHERE repo = ? AND number = ? AND sticky = 0"
            " AND instr(body, ?) > 0 ORDER BY id",
            (ref.repo, ref.number, key),
        )
        # its key ends the reply: another reply may quote it, echoing what a user typed
        return [int(row["id"]) for row in rows if ends_with_key(row["body"], key)]

    def find_comment(self, ref: PRRef, key: str) -> int | None:
        found = self._replies_under(ref, key)
        return found[0] if found else None

    def delete_reply_copies(self, ref: PRRef, key: str) -> tuple[int | None, list[int]]:
        found = self._replies_under(ref, key)
        if not found:
            return None, []
        for copy in found[1:]:
            self.db.execute("DELETE FROM dry_run_comments WHERE id = ?", (copy,))
        return found[0], found[1:]

    def comment_text(self, ref: PRRef, comment_id: int) -> str | None:
        """Its own comment's text (a notes comment read back: bot.command_feedback); a
        person's comment is never here (a dry run's writes are never refused as locked)."""
        rows = self.db.execute(
            "SELECT body FROM dry_run_comments WHERE id = ? AND repo = ? AND number = ?",
            (comment_id, ref.repo, ref.number),
        )
        return rows[0]["body"] if rows else None

    def create_comment(self, ref: PRRef, body: str) -> int:
        now = utcnow()
        rows = self.db.execute(
            "INSERT INTO dry_run_comments (repo, number, body, sticky, created_at, updated_at)"
            " VALUES (?, ?, ?, 0, ?, ?) RETURNING id",
            (ref.repo, ref.number, body, now, now),
        )
        log.info("dry run: would have replied on %s PR %s:\n%s", ref.repo, ref.number, body)
        return int(rows[0]["id"])

    def add_reaction(
        self, ref: PRRef, comment_id: int, content: str, *, on_diff: bool = False
    ) -> None:
        self.db.execute(
            "INSERT INTO dry_run_reactions (repo, number, comment_id, content, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (ref.repo, ref.number, comment_id, content, utcnow()),
        )
        log.info("dry run: would have reacted %s to comment %s", content, comment_id)

    def permission(self, ref: PRRef, login: str) -> str:
        return "write"  # local development: everyone may run every command

    def forget_installation(self, change: InstallationChange) -> None:
        """Nothing cached: a dry run mints no tokens."""

    def repository_now(self, ref: PRRef) -> int | None:
        return None  # no GitHub to ask

    def bot_login(self) -> str | None:
        return None  # no account: events sent by a bot are judged on REVIEW_NOTES_BOT_LOGIN

    def close(self) -> None:
        """Nothing open: the database belongs to the runtime, which closes it."""

    # --- inspection (GET /dry-run/comments) ---

    def comments(self, repo: str | None = None, number: int | None = None) -> list[dict[str, Any]]:
        rows = self._rows("dry_run_comments", repo, number)
        return [dict(r) | {"sticky": bool(r["sticky"])} for r in rows]

    def reactions(self, repo: str | None = None, number: int | None = None) -> list[dict[str, Any]]:
        return [dict(r) for r in self._rows("dry_run_reactions", repo, number)]

    def _rows(self, table: str, repo: str | None, number: int | None) -> list[Any]:
        """A table's rows, of one repository and PR when given, oldest first."""
        where: list[str] = []
        params: list[object] = []
        if repo is not None:
            where.append("lower(repo) = lower(?)")
            params.append(repo)
        if number is not None:
            where.append("number = ?")
            params.append(number)
        sql = f"SELECT * FROM {table}" + (" WHERE " + " AND ".join(where) if where else "")
        return self.db.execute(sql + " ORDER BY id", tuple(params))

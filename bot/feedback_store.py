"""The marks of `/notes wrong` in the bot's SQLite file, `feedback`, and the numbers each
comment's `wrong` was read with, `numbering` (shell).

What a mark means, and the curators' report built from the marks, are bot/feedback.py.
"""

from __future__ import annotations

import json
import sqlite3

from bot.db import Database
from bot.feedback import Mark
from bot.prstate import PRStore
from bot.times import utcnow

SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id            INTEGER PRIMARY KEY,
    repo          TEXT NOT NULL,             -- lower-case owner/name
    number        INTEGER NOT NULL,
    note_id       TEXT NOT NULL,
    rank          INTEGER NOT NULL,          -- its place in the comment when marked (1 = first)
    login         TEXT NOT NULL,             -- who marked it
    reason        TEXT NOT NULL DEFAULT '',  -- what they wrote after the note's number
    evidence      TEXT NOT NULL DEFAULT '[]',  -- the reasons the comment gave for the note (JSON)
    at            TEXT NOT NULL,
    withdrawn_at  TEXT,                      -- `/notes restore` took the mark back
    origin        TEXT NOT NULL DEFAULT '',  -- the comment or review it was written in
    shown         TEXT NOT NULL DEFAULT '[]' -- the notes the comment numbered then (JSON)
);
-- one standing mark per note and PR: marking it again (or a retried delivery) adds nothing
CREATE UNIQUE INDEX IF NOT EXISTS feedback_standing
    ON feedback (repo, number, note_id) WHERE withdrawn_at IS NULL;
-- the notes comment's numbers as they were when the bot first read a `wrong` in a
-- comment or review: a run of it after the notes comment changed reads them so
CREATE TABLE IF NOT EXISTS numbering (
    repo    TEXT NOT NULL,                   -- lower-case owner/name
    number  INTEGER NOT NULL,
    origin  TEXT NOT NULL,                   -- `comment:ID`, `diff:ID` or `review:ID`
    shown   TEXT NOT NULL,                   -- the notes, best first (JSON)
    at      TEXT NOT NULL,
    delivery TEXT NOT NULL DEFAULT '',       -- the delivery whose run kept them
    PRIMARY KEY (repo, number, origin)
);
"""


# The PRs' rows of pr_state pruning the kept numbers read before `?` reads (their
# updated_at, past a long file list's pages), by rowid from the indexes alone: where
# PRStore.past_damage looks for a damaged one. {kept}: not set aside (on s.rowid).
NUMBERED_STATES = (
    "SELECT s.rowid FROM numbering n JOIN pr_state s ON s.repo = n.repo AND s.number = n.number"
    " WHERE n.at < ? AND {kept}"
)


class FeedbackStore:
    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)
        db.add_missing_columns(  # a table made before marks kept their origin
            "feedback",
            {"origin": "TEXT NOT NULL DEFAULT ''", "shown": "TEXT NOT NULL DEFAULT '[]'"},
        )
        # numbers kept before their delivery was: no run takes them for its own
        db.add_missing_columns("numbering", {"delivery": "TEXT NOT NULL DEFAULT ''"})

    def record(self, mark: Mark) -> bool:
        """Keep a mark; False when the note already has a standing mark on this PR."""
        with self.db.tx() as conn:
            cursor = conn.execute(
                """
                INSERT OR IGNORE INTO feedback (repo, number, note_id, rank, login, reason,
                                                evidence, at, origin, shown)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    mark.repo.lower(),
                    mark.number,
                    mark.note_id,
                    mark.rank,
                    mark.login,
                    mark.reason,
                    json.dumps(list(mark.evidence), ensure_ascii=False),
                    mark.at or utcnow(),
                    mark.origin,
                    json.dumps(list(mark.shown)),
                ),
            )
            return cursor.rowcount == 1

    def keep_numbering(
        self, repo: str, number: int, origin: str, shown: tuple[str, ...], delivery: str = ""
    ) -> bool:
        """The notes comment's notes (best first) as a comment or review holding a `wrong`
        is first read, before anything can fail (a permission check GitHub answers 502):
        a retry after the notes comment changed means the notes its author read. Kept
        once per comment or review; a later call changes nothing. True: the numbers are
        `delivery`'s, kept by this call or by an earlier run of it (a retry, a put-back),
        not by another delivery of the comment (its creation, an edit): only their
        keeper may forget them (`forget_numbering`)."""
        if not origin:
            return False
        key = (repo.lower(), number, origin)
        with self.db.tx() as conn:
            if shown:  # none shown: a later edit reads the comment as it is then
                conn.execute(
                    "INSERT OR IGNORE INTO numbering (repo, number, origin, shown, at, delivery)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (*key, json.dumps(list(shown)), utcnow(), delivery),
                )
            row = conn.execute(
                "SELECT delivery FROM numbering WHERE repo = ? AND number = ? AND origin = ?",
                key,
            ).fetchone()
        return row is not None and bool(delivery) and row["delivery"] == delivery

    def forget_numbering(self, repo: str, number: int, origin: str) -> None:
        """Drop a comment's kept numbers: none of its `wrong`s was let run (refused, a bot's,
        over the budget), so no retry needs them, and a flood of such comments from
        anyone who can comment must not grow the file."""
        self.db.execute(
            "DELETE FROM numbering WHERE repo = ? AND number = ? AND origin = ?",
            (repo.lower(), number, origin),
        )

    def prune_numbering(self, before: str, limit: int, prs: PRStore) -> int:
        """Delete up to `limit` kept numbers read before `before` (utcnow format) on PRs not
        handled since (bot.retention, as the PRs' file lists): one a mark was made with
        lives on in the mark; the rest serve an edit or a retry of a comment that made
        none, not likely after that long. How many were deleted. `prs`: the PR states,
        which set aside a PR's row SQLite cannot read (PRStore.past_damage): its numbers
        are kept."""
        return prs.past_damage(
            lambda: self._prune_numbering(before, limit, prs.not_set_aside("s.rowid")),
            lambda: NUMBERED_STATES.format(kept=prs.not_set_aside("s.rowid")),
            (before,),
        )

    def _prune_numbering(self, before: str, limit: int, kept: str) -> int:
        """`kept`: an SQL condition on `s.rowid`, true of the PR rows not set aside; of one
        set aside, when it was handled is not known: its numbers stay."""
        not_handled_since = (
            "NOT EXISTS (SELECT 1 FROM pr_state s WHERE s.repo = numbering.repo AND"
            f" s.number = numbering.number AND (NOT {kept} OR s.updated_at >= ?))"
        )
        return self.db.delete_before("numbering", "at", before, limit, not_handled_since, (before,))

    def numbering(self, repo: str, number: int, origin: str) -> tuple[str, ...] | None:
        """The notes, best first, that a comment or review numbered when it first marked
        one, else when the bot first read a `wrong` in it. None: not known. Its `wrong N`
        means them, however often it runs. The mark first: one made before numbers were
        kept apart (an upgrade) has the numbers its `wrong` was read with."""
        if not origin:
            return None
        key = (repo.lower(), number, origin)
        rows = self.db.execute(
            "SELECT shown FROM feedback WHERE repo = ? AND number = ? AND origin = ?"
            " ORDER BY id LIMIT 1",
            key,
        ) or self.db.execute(
            "SELECT shown FROM numbering WHERE repo = ? AND number = ? AND origin = ?", key
        )
        return tuple(json.loads(rows[0]["shown"])) if rows else None

    def set_reason(self, repo: str, number: int, note_id: str, login: str, reason: str) -> bool:
        """A standing mark's reason, as the reviewer who made it last wrote it (an edit
        added one); False when the mark is another reviewer's (or none stands): the
        report names its author with the words, so another's must not replace them."""
        with self.db.tx() as conn:
            cursor = conn.execute(
                "UPDATE feedback SET reason = ? WHERE repo = ? AND number = ? AND note_id = ?"
                " AND withdrawn_at IS NULL AND login = ? COLLATE NOCASE",
                (reason, repo.lower(), number, note_id, login),
            )
            return cursor.rowcount == 1

    def withdraw(self, repo: str, number: int) -> int:
        """`/notes restore`: take back every standing mark on the PR; how many there were."""
        with self.db.tx() as conn:
            cursor = conn.execute(
                "UPDATE feedback SET withdrawn_at = ? WHERE repo = ? AND number = ?"
                " AND withdrawn_at IS NULL",
                (utcnow(), repo.lower(), number),
            )
            return cursor.rowcount

    def drop_all(self, conn: sqlite3.Connection) -> int:
        """In the caller's transaction: delete every mark (a dry run's, going live), and
        the numbers kept for them; how many marks."""
        conn.execute("DELETE FROM numbering")
        return conn.execute("DELETE FROM feedback").rowcount

    def move(self, conn: sqlite3.Connection, old: str, new: str, number: int) -> int:
        """In the caller's transaction: the PR's marks kept under its repository's old
        name go to the new one, or those of another repository's PR set aside
        (bot.prstate.PRStore.follow); how many moved."""
        # one standing mark per note and PR: one under the new name stands for both
        conn.execute(
            "DELETE FROM feedback WHERE repo = ? AND number = ? AND withdrawn_at IS NULL"
            " AND note_id IN (SELECT note_id FROM feedback WHERE repo = ? AND number = ?"
            " AND withdrawn_at IS NULL)",
            (old, number, new, number),
        )
        conn.execute(  # a comment's numbers: its id is GitHub's, the same under either name
            "UPDATE OR IGNORE numbering SET repo = ? WHERE repo = ? AND number = ?",
            (new, old, number),
        )
        return conn.execute(
            "UPDATE feedback SET repo = ? WHERE repo = ? AND number = ?", (new, old, number)
        ).rowcount

    def marks(self, *, withdrawn: bool = False) -> list[Mark]:
        """Every standing mark (and the withdrawn ones too with withdrawn=True), oldest first."""
        where = "" if withdrawn else " WHERE withdrawn_at IS NULL"
        rows = self.db.execute(f"SELECT * FROM feedback{where} ORDER BY id")
        return [
            Mark(
                repo=r["repo"],
                number=r["number"],
                note_id=r["note_id"],
                rank=r["rank"],
                login=r["login"],
                reason=r["reason"],
                evidence=tuple(json.loads(r["evidence"])),
                at=r["at"],
                withdrawn=r["withdrawn_at"] is not None,
                origin=r["origin"],
                shown=tuple(json.loads(r["shown"])),
            )
            for r in rows
        ]

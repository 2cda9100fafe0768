"""Who was allowed or refused each slash command of a delivery, as its first run judged
(`bot.command_policy.judge`), in the bot's SQLite file, `command_decisions` (shell).

A re-run of the delivery (a failed one run again by the queue or `review-notes retry`, a
put-back for a rate limit, a run a restart resumed) reads them instead of asking GitHub
for the author's permission again: one taken away meanwhile must not answer as refused a
command that already took effect. A record lasts as long as its delivery can run again.
"""

from __future__ import annotations

import sqlite3

from bot.command_policy import Decision, Judged
from bot.commands import Kind
from bot.db import DELIVERY_GONE, Database
from bot.times import utcnow

SCHEMA = """
CREATE TABLE IF NOT EXISTS command_decisions (
    delivery  TEXT NOT NULL,     -- the delivery whose run judged it (GitHub's id)
    line      INTEGER NOT NULL,  -- the command's place among those the delivery runs
    kind      TEXT NOT NULL,     -- its kind (`off`, `wrong`, ...)
    decision  TEXT NOT NULL,     -- `allow` or `refuse`
    at        TEXT NOT NULL,
    PRIMARY KEY (delivery, line)
);
"""


class DecisionStore:
    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)  # an older file gains the table here, at start

    def recorded(self, delivery: str) -> dict[tuple[int, Kind], Decision]:
        """The decisions an earlier run of `delivery` recorded; a kind or decision this
        release does not know is left out (judged anew)."""
        rows = self.db.execute(
            "SELECT line, kind, decision FROM command_decisions WHERE delivery = ?", (delivery,)
        )
        kinds, decisions = {str(k): k for k in Kind}, {str(d): d for d in Decision}
        return {
            (r["line"], kinds[r["kind"]]): decisions[r["decision"]]
            for r in rows
            if r["kind"] in kinds and r["decision"] in decisions
        }

    def record(self, delivery: str, judged: Judged) -> None:
        """Keep `delivery`'s decisions, before any of them takes effect; one recorded
        before stays (a run judges once: the first record is the decision)."""
        if not judged:
            return
        at = utcnow()
        with self.db.tx() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO command_decisions (delivery, line, kind, decision, at)"
                " VALUES (?, ?, ?, ?, ?)",
                [(delivery, line, str(kind), str(d), at) for (line, kind), d in judged.items()],
            )

    def prune(self, before: str, limit: int) -> int:
        """Delete up to `limit` decisions made before `before` (utcnow format) whose
        delivery is gone (bot.retention: as the reply records): a failed one kept longer
        may still run again and must find them."""
        return self.db.delete_before("command_decisions", "at", before, limit, DELIVERY_GONE)

    def drop_all(self, conn: sqlite3.Connection) -> int:
        """In the caller's transaction: delete every decision (a dry run's, going live:
        a dry run lets everyone run everything, and its deliveries GitHub sent run again
        live, judged then); how many."""
        return conn.execute("DELETE FROM command_decisions").rowcount

"""Reviewers' verdicts on the notes the bot shows: `/notes wrong N [why]` and `/notes restore`.

A note marked as not relevant is hidden on that PR from then on. No other note takes its
place: a reviewer said the matcher was wrong here, so showing the next-best guess would
repeat the mistake. The mark is kept for curators with the evidence the note was shown
on, so `review-notes notes feedback` can tell which notes, and which of their terms, link
PRs they do not fit: the graded audits' question, answered by the reviewers themselves.

Pure: `pick_note` (which shown note a command means), `hide_dismissed` and `summarise`.
`FeedbackStore` is one SQLite table.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from bot.db import Database, utcnow
from bot.matching import MatchResult

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
    withdrawn_at  TEXT                       -- `/notes restore` took the mark back
);
-- one standing mark per note and PR: marking it again (or a retried delivery) adds nothing
CREATE UNIQUE INDEX IF NOT EXISTS feedback_standing
    ON feedback (repo, number, note_id) WHERE withdrawn_at IS NULL;
"""


class Problem(StrEnum):
    """Why a `wrong` command names no note of the comment."""

    NO_NOTES = "no notes"  # the comment shows no note (or there is no comment)
    WHICH = "which"  # several notes shown and the command does not say which
    RANGE = "range"  # a number that is not one of the comment's notes
    NOT_SHOWN = "not shown"  # a note id the comment does not show


@dataclass(frozen=True)
class Pick:
    note_id: str | None
    rank: int = 0  # 1-based place in the comment
    reason: str = ""
    problem: Problem | None = None
    asked: str = ""  # the selector as typed, for the answer to a problem


def pick_note(args: Iterable[str], shown: tuple[str, ...], known: Collection[str] = ()) -> Pick:
    """Which of the comment's notes (`shown`, best first) `wrong ARGS` means.

    The first word may be the note's number in the comment (`2`, `#2`, `2.`) or its
    id (`vllm-0436d44c`); the rest is the reason. With one note shown the number may be
    left out: every word is then the reason. `known`: every note id, so that naming a
    note the comment does not show is told apart from a reason.
    """
    words = list(args)
    if not shown:
        return Pick(None, problem=Problem.NO_NOTES)
    first = words[0] if words else ""
    selector = first.strip().lstrip("#").rstrip(".:,)").casefold()
    by_id = {n.casefold(): i for i, n in enumerate(shown)}
    if selector.isdigit():
        rank = int(selector)
        if not 1 <= rank <= len(shown):
            return Pick(None, problem=Problem.RANGE, asked=first)
        return Pick(shown[rank - 1], rank, " ".join(words[1:]))
    if selector in by_id:
        i = by_id[selector]
        return Pick(shown[i], i + 1, " ".join(words[1:]))
    if selector in {k.casefold() for k in known}:
        return Pick(None, problem=Problem.NOT_SHOWN, asked=first)
    if len(shown) == 1:
        return Pick(shown[0], 1, " ".join(words))
    return Pick(None, problem=Problem.WHICH)


def hide_dismissed(result: MatchResult, dismissed: Iterable[str]) -> tuple[MatchResult, int]:
    """The result without the notes marked as not relevant on this PR, and how many went."""
    gone = set(dismissed)
    if not gone:
        return result, 0
    kept = tuple(m for m in result.matches if m.note.id not in gone)
    return replace(result, matches=kept), len(result.matches) - len(kept)


# --- what curators read ---------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    repo: str
    number: int
    note_id: str
    rank: int
    login: str
    reason: str = ""
    evidence: tuple[str, ...] = ()
    at: str = ""
    withdrawn: bool = False


@dataclass(frozen=True)
class NoteFeedback:
    note_id: str
    shown: int  # PRs whose comment showed the note (marked ones included)
    marks: tuple[Mark, ...]  # standing marks, newest first

    @property
    def share(self) -> float:
        return len(self.marks) / self.shown if self.shown else 0.0


def summarise(marks: Iterable[Mark], shown: Mapping[str, int]) -> list[NoteFeedback]:
    """Per note: how often it was shown and marked not relevant; most marked first.

    Withdrawn marks do not count. Notes shown but never marked are listed too (with no
    marks), so a curator sees the whole library's record.
    """
    standing: dict[str, list[Mark]] = {}
    for m in marks:
        if not m.withdrawn:
            standing.setdefault(m.note_id, []).append(m)
    ids = set(shown) | set(standing)
    out = [
        NoteFeedback(
            i,
            max(shown.get(i, 0), len(standing.get(i, ()))),
            tuple(sorted(standing.get(i, ()), key=lambda m: m.at, reverse=True)),
        )
        for i in ids
    ]
    return sorted(out, key=lambda f: (-len(f.marks), -f.share, -f.shown, f.note_id))


class FeedbackStore:
    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)

    def record(self, mark: Mark) -> bool:
        """Keep a mark; False when the note already has a standing mark on this PR."""
        with self.db.tx() as conn:
            cursor = conn.execute(
                """
                INSERT OR IGNORE INTO feedback (repo, number, note_id, rank, login, reason,
                                                evidence, at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
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
                ),
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
            )
            for r in rows
        ]

"""Reviewers' verdicts on the notes the bot shows: `/notes wrong N [why]` and `/notes restore`.

A note marked as not relevant is hidden on that PR from then on. No other note takes its
place: a reviewer said the matcher was wrong here, so showing the next-best guess would
repeat the mistake. The mark is kept for curators with the evidence the note was shown
on, so `review-notes notes feedback` can tell which notes, and which of their terms, link
PRs they do not fit: the graded audits' question, answered by the reviewers themselves.

Pure: `Mark`, `hide_dismissed`, `summarise` and the curators' report. Which shown note a
command means is bot/wrong_reading.py (`pick_note`); the marks are kept by
bot/feedback_store.py (one SQLite table).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from bot.match_result import MatchResult
from bot.reasons import evidence_terms
from bot.terminal import inert


def hide_dismissed(result: MatchResult, dismissed: Iterable[str]) -> tuple[MatchResult, int]:
    """The result without the notes marked as not relevant on this PR, and how many went
    of those linked. Gone from the notes scored and held back too: why mode would name a
    linked one hidden as "too little evidence", held by no rule."""
    gone = set(dismissed)
    if not gone:
        return result, 0
    kept = tuple(m for m in result.matches if m.note.id not in gone)
    return replace(
        result,
        matches=kept,
        candidates=tuple(m for m in result.candidates if m.note.id not in gone),
        held_back=tuple(h for h in result.held_back if h[0] not in gone),
    ), len(result.matches) - len(kept)


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
    # `comment:ID`, `diff:ID` or `review:ID`: a command run again (an edit that adds a
    # reason, a delivery resumed after a crash) reads its numbers as they were then
    origin: str = ""
    shown: tuple[str, ...] = ()  # the comment's notes, best first, when it was written


@dataclass(frozen=True)
class TermRecord:
    """One piece of evidence (a word, a tag, a path) behind a note's marks."""

    term: str
    marked: int  # marks whose evidence holds it
    shown: int  # PRs showing the note, or marked, with it in their evidence


@dataclass(frozen=True)
class NoteFeedback:
    note_id: str
    shown: int  # PRs whose comment showed the note (marked ones included)
    marks: tuple[Mark, ...]  # standing marks, newest first
    # the evidence behind the marks made since the note's update, most marked first
    terms: tuple[TermRecord, ...] = ()
    updated: str = ""  # the note's `updated` date (YYYY-MM-DD); "": not given

    @property
    def share(self) -> float:
        return len(self.marks) / self.shown if self.shown else 0.0

    def before_update(self, mark: Mark) -> bool:
        """A mark made before the note's last update: about a note a curator has changed
        since (perhaps to answer it), so it no longer counts against the note as it is.
        One of the update's day counts: a date cannot tell which came first."""
        return bool(self.updated) and mark.at[:10] < self.updated

    @property
    def current(self) -> tuple[Mark, ...]:
        """The marks made since the note's update (all of them, without one)."""
        return tuple(m for m in self.marks if not self.before_update(m))


def summarise(
    marks: Iterable[Mark],
    shown: Mapping[str, int],
    shown_evidence: Iterable[tuple[str, int, str, tuple[str, ...]]] = (),
    updated: Mapping[str, str] = {},
) -> list[NoteFeedback]:
    """Per note: how often it was shown and marked not relevant; most marked since the
    note's update (`updated`: note id -> its `updated` date) first.

    Withdrawn marks do not count. Notes shown but never marked are listed too (with no
    marks), so a curator sees the whole library's record. `shown_evidence` gives, for
    each PR a note is shown on, (repo, number, note id, the reasons shown for it): with
    the marks' own evidence, it tells how often each term behind a mark also linked PRs
    nobody objected to.
    """
    standing: dict[str, list[Mark]] = {}
    for m in marks:
        if not m.withdrawn:
            standing.setdefault(m.note_id, []).append(m)
    marked_pairs = {(m.repo.lower(), m.number, m.note_id) for ms in standing.values() for m in ms}
    unmarked: dict[str, Counter[str]] = {}
    for repo, number, note_id, reasons in shown_evidence:
        if (repo.lower(), number, note_id) not in marked_pairs:  # marked, not yet hidden
            unmarked.setdefault(note_id, Counter()).update(evidence_terms(reasons))
    ids = set(shown) | set(standing)
    out = [
        NoteFeedback(
            i,
            max(shown.get(i, 0), len(standing.get(i, ()))),
            tuple(sorted(standing.get(i, ()), key=lambda m: m.at, reverse=True)),
            updated=updated.get(i, ""),
        )
        for i in ids
    ]
    out = [replace(f, terms=_terms(f.current, unmarked.get(f.note_id, Counter()))) for f in out]
    return sorted(out, key=_rank)


def _rank(f: NoteFeedback) -> tuple:
    """Most marked since the note's update first, then most marked, by share, by showings."""
    return (-len(f.current), -len(f.marks), -f.share, -f.shown, f.note_id)


def _terms(marks: Iterable[Mark], unmarked: Counter[str]) -> tuple[TermRecord, ...]:
    marked: Counter[str] = Counter()
    for m in marks:
        marked.update(evidence_terms(m.evidence))
    records = [TermRecord(t, n, n + unmarked[t]) for t, n in marked.items()]
    return tuple(sorted(records, key=lambda r: (-r.marked, -r.marked / r.shown, r.term)))


def report_lines(records: Iterable[NoteFeedback], titles: Mapping[str, str]) -> list[str]:
    """`review-notes notes feedback`: per note, its marks with their evidence, and the
    terms behind them (each with how many PRs showing the note it linked). What came
    from GitHub is shown with control characters escaped (`bot.terminal.inert`)."""
    records = list(records)
    lines: list[str] = []
    for f in records:
        title = titles.get(f.note_id, "(not in the library)")
        lines.append(
            f"{f.note_id}  shown on {f.shown} PR(s), marked not relevant on {len(f.marks)}"
            f" ({f.share:.0%})  {inert(title)}"
        )
        if stale := len(f.marks) - len(f.current):
            lines.append(
                f"    {stale} of the marks came before the note was updated on {f.updated}:"
                " they may be answered already, and the terms behind the marks leave them out"
            )
        for m in f.marks:
            said = f": {inert(m.reason)}" if m.reason else ""
            before = ", before the update" if f.before_update(m) else ""
            lines.append(
                f"    {inert(m.repo)} PR {m.number} (note {m.rank} of the comment),"
                f" {inert(m.at[:10])}{before}, by {inert(m.login)}{said}"
            )
            lines += [f"        - {inert(reason)}" for reason in m.evidence]
        if f.terms:
            said = ", ".join(f"{inert(t.term)} {t.marked} of {t.shown}" for t in f.terms)
            lines.append(f"    behind the marks (marked of PRs shown with it): {said}")
    marked = sum(len(f.marks) for f in records)
    lines.append(
        f"{marked} mark(s) on {sum(1 for f in records if f.marks)} of {len(records)} note(s)"
        " shown; the evidence is what each comment said when the note was marked"
    )
    return lines


def report_json(records: Iterable[NoteFeedback]) -> list[dict[str, object]]:
    """The same, one object per note (`--json`)."""
    return [
        {
            "note": f.note_id,
            "shown": f.shown,
            "updated": f.updated or None,
            "marks": [
                {
                    "repo": m.repo,
                    "number": m.number,
                    "rank": m.rank,
                    "login": m.login,
                    "reason": m.reason,
                    "evidence": list(m.evidence),
                    "at": m.at,
                    "before_update": f.before_update(m),
                }
                for m in f.marks
            ],
            "terms": [{"term": t.term, "marked": t.marked, "shown": t.shown} for t in f.terms],
        }
        for f in records
    ]

"""What a note's source PR says it relates to: candidates for `read_with` and `issues`.

A source PR's description often names the PRs and issues its change belongs with: "Fixes
#51593", "Follow-up to #51430", "Reverts #50011", "Builds on #49870". PRs related that
way were graded "changes the same mechanism" nine times in ten, so they belong in the
note's `read_with` (PRs) or `issues` (issues it fixes: another fix of the same bug gets
the note). A mere mention ("see #123 for numbers") says nothing and is left out.

Pure: text and facts in, suggestions out. `review-notes notes refs` fetches the
descriptions and tells issues from PRs on GitHub, then prints what this module suggests.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.notes import Note
from bot.prfacts import referenced_prs, without_comments_and_code


class Relation(StrEnum):
    FIXES = "fixes"
    REVERTS = "reverts"
    FOLLOWS = "follows up on"
    SUPERSEDES = "supersedes"
    BUILDS_ON = "builds on"


# Phrases that relate a PR to the reference right after them. GitHub's closing keywords
# (close, fix, resolve and their forms) are one kind; the rest are vLLM's usual wording.
_PHRASES: dict[Relation, list[str]] = {
    relation: phrases.split("|")
    for relation, phrases in {
        Relation.FIXES: "fix|fixes|fixed|close|closes|closed|resolve|resolves|resolved|addresses",
        Relation.REVERTS: "revert|reverts|reverting|revert of|partially reverts",
        Relation.FOLLOWS: "follow-up to|follow up to|followup to|follow-up of|follow up of"
        "|follow-up for|follow-up from|follow-up|continuation of|continues",
        Relation.SUPERSEDES: "supersede|supersedes|replaces|replacement for|alternative to"
        "|consolidates|reland of|relands|re-land of|redo of",
        Relation.BUILDS_ON: "builds on|built on|build on|based on|on top of|extends|depends on"
        "|stacked on|part of|taken from|ported from|cherry-pick of|cherry-picked from"
        "|split from|split out of|split out from",
    }.items()
}
_REF = (
    r"(?:[\w.-]+/[\w.-]+)?#\d{1,7}\b|https?://github\.com/[\w.-]+/[\w.-]+/(?:pull|issues)/\d{1,7}\b"
)
# A phrase, optional filler ("PR", "the draft", "for the bug in", ":"), then one or more refs
# joined by commas or "and": "Fixes #1, #2 and #3".
_RELATED = re.compile(
    r"(?i)(?<![\w-])(?P<phrase>"
    + "|".join(
        re.escape(p).replace(r"\ ", r"\s+")
        for p in sorted({p for ps in _PHRASES.values() for p in ps}, key=len, reverse=True)
    )
    + r")(?![\w-])[\s:]*"
    + r"(?:(?:for|to|of|in|from|the|this|that|draft|earlier|original|previous|prior|pr"
    + r"|pull\s+request|issue|bug|regression)s?\b[\s:]*){0,4}"
    + rf"(?P<refs>(?:{_REF})(?:\s*(?:,|and|&)\s*(?:{_REF}))*)"
)
_RELATION_OF = {p: r for r, ps in _PHRASES.items() for p in ps}


@dataclass(frozen=True)
class Related:
    number: int
    relation: Relation
    quote: str  # the words that say so, for the curator to judge


def related_refs(body: str, repo: str, *, own_number: int | None = None) -> list[Related]:
    """The PRs/issues of `repo` the description relates itself to, first mention first."""
    text = without_comments_and_code(body or "")
    found: dict[int, Related] = {}
    for m in _RELATED.finditer(text):
        phrase = re.sub(r"\s+", " ", m.group("phrase").lower())
        relation = _RELATION_OF[phrase]
        quote = re.sub(r"\s+", " ", m.group(0)).strip()
        for n in referenced_prs(m.group("refs"), repo):
            if n != own_number and n not in found:
                found[n] = Related(n, relation, quote)
    return list(found.values())


@dataclass(frozen=True)
class Suggestion:
    field: str  # "read_with" or "issues"
    number: int
    relation: Relation
    quote: str


def suggest(
    note: Note, related: Iterable[Related], is_pull: Mapping[int, bool | None]
) -> list[Suggestion]:
    """What to add to the note: related PRs to `read_with`, issues it fixes to `issues`.

    `is_pull[n]`: True for a PR, False for an issue, None when GitHub did not know it.
    An issue the PR only follows up or builds on (an RFC, a tracker) is left out: every
    PR of that effort would then get the note.
    """
    known = {note.source_pr, *note.read_with, *note.issues}
    out: list[Suggestion] = []
    for r in related:
        kind = is_pull.get(r.number)
        if r.number in known or kind is None:
            continue
        if kind:
            out.append(Suggestion("read_with", r.number, r.relation, r.quote))
        elif r.relation is Relation.FIXES:
            out.append(Suggestion("issues", r.number, r.relation, r.quote))
    return out


def mentioned(body: str, note: Note, related: Iterable[Related]) -> list[int]:
    """Numbers the description names with no relation stated, that the note does not list.

    Prose relates PRs too ("#51430 narrowed the region ... restoring the pre-#51430
    region"): the curator reads those and decides; nothing is suggested for them.
    """
    skip = {note.source_pr, *note.read_with, *note.issues, *(r.number for r in related)}
    found = referenced_prs(without_comments_and_code(body or ""), note.repo)
    return [n for n in found if n not in skip]


def render(
    note: Note,
    suggestions: list[Suggestion],
    names: Iterable[int] = (),
    unknown: Iterable[int] = (),
) -> list[str]:
    """Lines for the curator: the note, each suggestion with its quote, the TOML to paste.

    `names`: numbers named with no relation (`mentioned`); `unknown`: related numbers
    GitHub has neither as PR nor as issue (a typo in the description, another repository).
    """
    lines = [f"{note.id} (PR {note.source_pr}):"]
    for label, numbers, why in (
        ("also names", names, "no relation stated: read the PR and decide"),
        ("GitHub does not know", unknown, "left out"),
    ):
        listed = ", ".join(f"#{n}" for n in numbers)
        if listed:
            lines.append(f"  {label} {listed} ({why})")
    if not suggestions:
        return lines + ["  nothing to add"]
    for s in suggestions:
        lines.append(f'  {s.field} += {s.number}  ({s.relation}: "{s.quote}")')
    for name, current in (("read_with", note.read_with), ("issues", note.issues)):
        new = [s.number for s in suggestions if s.field == name]
        if new:
            lines.append(f"  {name} = [{', '.join(str(n) for n in [*current, *new])}]")
    return lines

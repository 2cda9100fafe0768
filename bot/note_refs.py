"""What a note's source PR says it relates to: candidates for `read_with` and `issues`.

A source PR's description often names the PRs and issues its change belongs with: "Fixes
#51593", "Follow-up to #51430", "Reverts #50011", "Builds on #49870". PRs related that
way were graded "changes the same mechanism" nine times in ten, so they belong in the
note's `read_with` (PRs) or `issues` (issues it fixes: another fix of the same bug gets
the note). A mere mention ("see #123 for numbers") says nothing and is left out.

Pure: relations (`bot.relations`) and facts in, suggestions out. `review-notes notes refs`
fetches the descriptions and tells issues from PRs on GitHub, then prints what this
module suggests.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.notes import Note
from bot.pr_text import reference_text, referenced_prs
from bot.relations import Related, Relation
from bot.terminal import inert


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
    out: list[Suggestion] = []
    for r in related:
        kind = is_pull.get(r.number)
        if r.number in note.listed_numbers or kind is None:
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
    skip = note.listed_numbers | {r.number for r in related}
    found = referenced_prs(reference_text(body or ""), note.repo)
    return [n for n in found if n not in skip]


def render_refs(
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
        lines.append(f'  {s.field} += {s.number}  ({s.relation}: "{inert(s.quote)}")')
    for name, current in (("read_with", note.read_with), ("issues", note.issues)):
        new = [s.number for s in suggestions if s.field == name]
        if new:
            lines.append(f"  {name} = [{', '.join(str(n) for n in [*current, *new])}]")
    return lines

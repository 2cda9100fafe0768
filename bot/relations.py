"""How a PR's description relates it to other PRs and issues of its repository.

"Fixes #51593", "Follow-up to #51430 and #51768", "Reverts vllm-project/vllm#50011"
(GitHub's revert button writes that), "Builds on https://github.com/.../pull/49870":
words that say the PR changes the same thing. A mere mention ("see #123 for numbers")
says nothing and is not read. Pure: text in, relations out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from bot.pr_text import REF_HASH, REF_URL, reference_text, referenced_prs


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
# A reference as bot.prfacts reads one (ASCII word edges: "Reverts #52401中的改动"), bare
# or as the target of a Markdown link ("Revert [#51430](https://github.com/.../pull/51430)",
# bounded as bot.prfacts bounds links; its target, not its text, is what it refers to).
_REF = (
    rf"{REF_HASH}|https?://{REF_URL}"
    rf"|\[[^\[\]\n]{{0,500}}\]\([ \t]*<?https?://{REF_URL}[^()\n]{{0,2000}}\)"
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
    + r"(?P<filler>(?:(?:for|to|of|in|from|the|this|that|draft|earlier|original|previous|prior"
    + r"|pr|pull\s+request|issue|bug|regression)s?\b[\s:]*){0,4})"
    + rf"(?P<refs>(?:{_REF})(?:\s*(?:,|and|&)\s*(?:{_REF}))*)"
)
_RELATION_OF = {p: r for r, ps in _PHRASES.items() for p in ps}
# Participles that are adjectives too: "revisits closed PR #51750" names a closed PR. Right
# before a noun they are one; as verbs a reference or a determiner follows ("Closed #5",
# "Resolved the issue #3").
_ADJECTIVES = frozenset({"closed", "resolved"})
_NOUN_FIRST = re.compile(r"(?i)\s*(?:pr|pull\s+request|issue|bug|regression)s?\b")
# "does not fix #1", "Not a revert of #2", "isn't a follow-up to #3", "cannot fix #4",
# "doesn’t fix #5" (a typographic apostrophe): the words just before the phrase deny it
# ("This should fix #6" does not, and stays a tie; nor does "not just a follow-up to #7",
# which says it is one, and more, but after a modal "just" keeps the denial: "we can't
# just revert #8").
_DENIED = re.compile(
    r"(?i)(?:(?:\b(?:can)?not|n['’]t|\bnever|\bno)\s+(?:(?:a|an|the|really|yet)\s+)*"
    r"|\b(?:can|ca|could|should|would|must|wo|will|shall)(?:\s*not|n['’]t)\s+just\s+"
    r"(?:(?:a|an|the)\s+)*)$"
)


@dataclass(frozen=True)
class Related:
    number: int
    relation: Relation
    quote: str  # the words that say so, for the curator to judge


def related_refs(body: str, repo: str, *, own_number: int | None = None) -> list[Related]:
    """The PRs/issues of `repo` the description relates itself to, first mention first."""
    text = reference_text(body or "")
    found: dict[int, Related] = {}
    for m in _RELATED.finditer(text):
        if _DENIED.search(text, max(0, m.start() - 40), m.start()):
            continue
        phrase = re.sub(r"\s+", " ", m.group("phrase").lower())
        if phrase in _ADJECTIVES and _NOUN_FIRST.match(m.group("filler")):
            continue
        relation = _RELATION_OF[phrase]
        quote = re.sub(r"\s+", " ", m.group(0)).strip()
        for n in referenced_prs(m.group("refs"), repo):
            if n != own_number and n not in found:
                found[n] = Related(n, relation, quote)
    return list(found.values())

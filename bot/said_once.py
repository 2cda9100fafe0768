"""A word the PR says once counts once and is named once (pure): where its title and
description say each evidence's words, and which of them lie inside the note's own
keywords or another evidence's longer mention. `Scan`, what the PR hits, is built by
`CompiledMatcher._scan` (bot/matching.py); bot/term_spans.py tells which spans lie inside
others."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.match_result import Evidence, EvidenceKind, Said, Saying
from bot.prfacts import PRFacts
from bot.reasons import KEYWORD, mentions, tagged
from bot.term_spans import Cover, apart, holder, within
from bot.terms import TermHit


@dataclass
class Scan:
    """What the PR's text, files and labels hit, before scoring."""

    tags: dict[str, tuple[str, TermHit]]  # key -> (its first tag, hit)
    title: dict[str, TermHit]  # keys in the title outside its tags
    body: dict[str, TermHit]
    topic_files: dict[str, list[str]]
    note_files: dict[int, list[str]]
    labels: dict[str, list[str]]  # topic id -> labels
    n_files: int  # changed files, a rename one (`PRFacts.file_count`)
    words: frozenset[str]  # the title's words, when similarity is on
    # topics of the files the PR only moves or re-imports: no evidence, but a label
    # mergify derives from them is that same non-fact
    moved_topics: frozenset[str]
    # key -> every place the title says it: (each tag, hit), (the title's text, hit)
    said: dict[str, list[tuple[str, TermHit]]]
    text: str  # the title's text, without its tags
    # file -> docs or examples (`aux_files`), and -> tests or CI (`upkeep_files`): asked
    # once per file, not per topic a file falls under (`CompiledMatcher._is_aux`, `_code_first`)
    aux: dict[str, bool] = field(default_factory=dict)
    upkeep: dict[str, bool] = field(default_factory=dict)
    shared: dict[int, list[tuple[str, float]]] = field(default_factory=dict)  # `_shared`


def said_in(kind: EvidenceKind, scan: Scan) -> tuple[dict[str, TermHit], str]:
    """The terms a title or description evidence rests on, and its keys' prefix."""
    return (scan.title, "title:") if kind is EvidenceKind.TITLE else (scan.body, "body:")


def own_mentions(own: Iterable[Evidence], scan: Scan) -> dict[EvidenceKind, list[tuple[int, int]]]:
    """Where the note's own keywords are said in the title's text and the description
    (sorted spans, by kind of evidence): a topic word inside one of them is that mention."""
    covers: dict[EvidenceKind, list[tuple[int, int]]] = {}
    for e in own:
        if e.gloss != KEYWORD or e.kind not in (EvidenceKind.TITLE, EvidenceKind.BODY):
            continue
        field, prefix = said_in(e.kind, scan)
        for k in e.keys:
            if (hit := field.get(k.removeprefix(prefix))) is not None:
                covers.setdefault(e.kind, []).extend(hit.spans)
    return {kind: sorted(spans) for kind, spans in covers.items()}


def title_cover(keys: Iterable[str], scan: Scan) -> dict[str, list[tuple[int, int]]]:
    """Where the title says these terms (`title:` evidence keys): each place, a tag or
    the title's text, with the sorted spans of its mentions."""
    cover: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for k in keys:
        if k.startswith("title:"):
            for place, hit in scan.said.get(k.removeprefix("title:"), ()):
                cover[place].extend(hit.spans)
    return {place: sorted(spans) for place, spans in cover.items()}


def said_apart(key: str, own: Iterable[Evidence], scan: Scan) -> str | Said | None:
    """Where the title says this term outside every mention of the note's own keywords,
    in a reviewer's words (None: only inside them, `metrics` in "connector metrics", or
    not at all). Each tag and the title's text is looked at, every mention in each."""
    keywords = (
        k
        for e in own
        if e.gloss == KEYWORD and e.kind in (EvidenceKind.TITLE, EvidenceKind.TAG)
        for k in e.keys
    )
    cover = title_cover(keywords, scan)
    for place, hit in scan.said.get(key, ()):
        if (alone := apart(hit, cover.get(place, []), place)) is None:
            continue
        if place != scan.text:
            return tagged(place, hit)
        return mentions(Saying.TITLE, [alone])
    return None


def same_mentions(e: Evidence, own: Iterable[Evidence], scan: Scan) -> set[str]:
    """The keys of the note's own keyword evidence said by exactly the mentions of this
    topic evidence (the note's `tool call` and the topic's `tool calls`, both hitting
    "tool calls"): one mention, so the note's evidence counts only what it adds."""
    if e.kind not in (EvidenceKind.TITLE, EvidenceKind.BODY):
        return set()
    field, prefix = said_in(e.kind, scan)
    spans = {span for k in e.keys if (h := field.get(k.removeprefix(prefix))) for span in h.spans}
    out: set[str] = set()
    for o in own:
        if o.kind is e.kind and o.gloss == KEYWORD:
            for k in o.keys - e.keys:
                hit = field.get(k.removeprefix(prefix))
                if hit is not None and set(hit.spans) <= spans:
                    out.add(k)
    return out


def wider_mentions(evidence: list[Evidence], scan: Scan, facts: PRFacts) -> dict[int, Said]:
    """The title and description evidence (by id) whose words are each said only inside
    a longer mention another piece of it quotes, quoted as that mention: `EP` of expert
    parallelism inside `Elastic EP` of elastic EP is one thing the title says, named
    once with both reasons (`reasons.reason_lines` merges lines by the words quoted). A
    note's aspect is title evidence too: 'MLA' inside the topic's 'sparse MLA'."""
    out: dict[int, Said] = {}
    for kind in (EvidenceKind.TITLE, EvidenceKind.BODY):
        field, prefix = said_in(kind, scan)
        text = facts.title_text if kind is EvidenceKind.TITLE else facts.clean_body
        hits = {
            id(e): [
                field[k] for k in (k.removeprefix(prefix) for k in sorted(e.keys)) if k in field
            ]
            for e in evidence
            if e.kind is kind or (kind is EvidenceKind.TITLE and e.kind is EvidenceKind.ASPECT)
        }
        for e in evidence:
            if id(e) not in hits or not isinstance(e.what, Said):
                continue
            spans = [sp for i, hs in hits.items() if i != id(e) for h in hs for sp in h.spans]
            wider: dict[str, str] = {}
            longer = Cover(spans).holds_longer
            for h in hits[id(e)]:
                first = holder(h.spans[0], spans) if all(map(longer, h.spans)) else None
                if first is not None:
                    start, end = first
                    wider[h.text] = text[start:end]
            quoted = tuple(dict.fromkeys(wider.get(n, n) for n in e.what.names))
            if quoted != e.what.names:
                out[id(e)] = Said(e.what.saying, quoted, e.what.more)
    return out


def shows_topic(e: Evidence, own: dict[str, list[tuple[int, int]]], scan: Scan) -> bool:
    """The evidence makes its topic present for a note: a file or a label, or a title
    word or tag said somewhere other than where the note's own keywords and aspects
    are (`own`, `title_cover`: one mention counts once, whatever its spelling); a
    description is no showing."""
    if e.kind is EvidenceKind.BODY:
        return False
    if e.kind not in (EvidenceKind.TITLE, EvidenceKind.TAG):
        return True
    return any(
        not within(hit.spans, own.get(place, []))
        for k in e.keys
        for place, hit in scan.said.get(k.removeprefix("title:"), ())
    )

"""Where a text says a term, as spans (pure): one mention counts once. Keywords of a
topic and of a note overlap (`connector stats` inside `get_kv_connector_stats`), so the
matcher asks which hits lie inside longer ones before it counts or quotes them."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Mapping
from itertools import accumulate

from bot.terms import TermHit


def one_per_mention(keys: Iterable[str], hits: Mapping[str, TermHit]) -> list[str]:
    """The keys found in one text, in order, but those every mention of which lies inside
    a longer one's: `get_kv_connector_stats` is one mention, not three, of a note whose
    keywords also include `KVConnectorStats` and `connector stats`."""
    found = [k for k in keys if k in hits]
    kept: list[str] = []
    cover: list[tuple[int, int]] = []
    for key in sorted(found, key=lambda k: -max(e - s for s, e in hits[k].spans)):
        if not cover or not within(hits[key].spans, cover):
            kept.append(key)
            cover += hits[key].spans
    return [k for k in found if k in kept]


def quoted_apart(keys: list[str], hits: Mapping[str, TermHit], text: str) -> dict[str, TermHit]:
    """The hits of these keys (one per mention, `one_per_mention`), each quoted where
    the text says it apart from the others: `connector stats` where the title writes
    it, not inside the `get_kv_connector_stats` it also hits."""
    out: dict[str, TermHit] = {}
    for key in keys:
        cover = [span for k in keys if k != key for span in hits[k].spans]
        out[key] = apart(hits[key], cover, text) or hits[key]
    return out


def apart(
    hit: TermHit, cover: list[tuple[int, int]], text: str, keep: Collection = ()
) -> TermHit | None:
    """The hit's mentions that lie outside `cover` (spans; those in `keep` stay
    whatever), quoted at the first of them; None when none does."""
    held = Cover(cover).holds  # sorted once: a description says a term thousands of times
    spans = [sp for sp in hit.spans if sp in keep or not held(sp)]
    if len(spans) == len(hit.spans):
        return hit
    if not spans:
        return None
    start, end = spans[0]
    return TermHit(hit.key, text[start:end], len(spans), tuple(spans))


def distinct(hits: list[TermHit]) -> list[TermHit]:
    """The hits of one text, one per mention (`one_per_mention`): the topic keywords
    `capture size` and `capture sizes` both hit "capture sizes", which is one word said
    once, quoted and counted once, in its longest spelling."""
    by_key = {h.key: h for h in hits}
    return [by_key[k] for k in one_per_mention(by_key, by_key)]


def inside(hits: list[TermHit], kept: list[TermHit]) -> list[TermHit]:
    """The hits every mention of which lies inside the kept ones' (those included): what
    the kept evidence rests on, so that a note's own keyword on it counts once."""
    cover = [span for h in kept for span in h.spans]
    held = Cover(cover).holds  # sorted once, for every hit
    return [h for h in hits if cover and all(map(held, h.spans))]


def within(spans: Iterable[tuple[int, int]], cover: list[tuple[int, int]]) -> bool:
    """Every span lies inside one of `cover`."""
    return all(map(Cover(cover).holds, spans))


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """The text with these spans (sorted) made spaces."""
    out, at = [], 0
    for start, end in spans:
        if start > at:
            out.append(text[at:start])
        out.append(" " * (end - max(start, at)) if end > at else "")
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def holder(span: tuple[int, int], spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The longest of `spans` that holds this one and is longer, the first of equals
    (None: none does)."""
    start, end = span
    held = [(a, b) for a, b in spans if a <= start and end <= b and b - a > end - start]
    return min(held, key=lambda ab: (ab[0] - ab[1], ab[0]), default=None)


class Cover:
    """Spans sorted once, then asked of many spans whether one of them holds each, at
    O(log n) a span: a description saying a term thousands of times held each mention
    against every other, one by one (seconds of CPU at GitHub's 64 KB)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [start for start, _ in ordered]
        # the furthest end of the first i spans by start (-1: none)
        self._reach = [-1, *accumulate((end for _, end in ordered), max)]

    def holds(self, span: tuple[int, int]) -> bool:
        """One of the spans holds this one: it starts where this one does or before, and
        reaches its end."""
        start, end = span
        return self._reach[bisect_right(self._starts, start)] >= end

    def holds_longer(self, span: tuple[int, int]) -> bool:
        """One of the spans holds this one and is longer (`holder` finds which): it starts
        before this one and reaches its end, or starts where it does and reaches past it."""
        start, end = span
        before = self._reach[bisect_left(self._starts, start)]
        return before >= end or self._reach[bisect_right(self._starts, start)] > end

"""What a Markdown reader sees as code, in text people write (pure).

Slash commands in comments and the opt-out marker in a PR description must not count
when they are shown as code. Inline code spans are found in one linear pass: a
description or comment of 65,536 backticks costs a few milliseconds, not minutes.
"""

from __future__ import annotations

import re

_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")
_BACKTICKS = re.compile(r"`+")


def code_span_ranges(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) of each inline code span: a run of n backticks up to the next run of n."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(paragraph)]
    # next_same[i]: the next run as long as run i (linear, so a hostile text stays cheap)
    next_same: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        width = runs[i][1] - runs[i][0]
        next_same[i] = last.get(width)
        last[width] = i
    spans = []
    i = 0
    while i < len(runs):
        j = next_same[i]
        if j is None:
            i += 1
            continue
        spans.append((runs[i][0], runs[j][1]))
        i = j + 1
    return spans


def paragraph_code_spans(text: str) -> list[tuple[int, int]]:
    """The code spans of a whole text: a span never crosses a blank line."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for part in _PARAGRAPH_BREAK.split(text):
        spans += [(offset + s, offset + e) for s, e in code_span_ranges(part)]
        offset += len(part)
    return spans


def without_code_spans(text: str) -> str:
    """The text with its inline code spans removed."""
    out, pos = [], 0
    for start, end in paragraph_code_spans(text):
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)

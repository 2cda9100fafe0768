"""What a Markdown reader sees as code, in a PR description (pure).

Matching leaves a description's code blocks and logs out: fenced blocks (also one
opened on a list item's line), indented blocks and inline code spans. Everything is
found in linear passes: a text of 65,536 backticks costs milliseconds, not minutes.
Indented blocks depend on what holds them (a list item's continuation lines are its
text, four columns beyond its content are code), so for matching they are located by
cmark-gfm, GitHub's own engine, as it renders the text (`without_indented_code`).
(Slash commands, where a hidden command running is the worse error, are read with it
too: `bot.comment_prose`; and the opt-out marker, which counts only where GitHub keeps
it as an HTML comment: `as_html`.)
"""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

# Where a code span ends at the latest: a blank line, or a line opening another block (a
# list item, a heading, a quote), as GitHub ends the paragraph there: a stray backtick
# in one bullet does not pair with one in the next
_PARAGRAPH_BREAK = re.compile(
    r"(\n[ \t]*\n|\n(?=[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]|[ \t]{0,3}(?:#{1,6}[ \t]|>)))"
)
_BACKTICKS = re.compile(r"`+")
# A fence may open on a list item's first line (`- ```` ), as CommonMark renders it.
_FENCE_OPEN = re.compile(r"^ {0,3}(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*$")
# The same at any depth: a fence in a nested list item of a PR description.
_NESTED_OPEN = re.compile(r"^[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$")
_NESTED_CLOSE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*$")
# A block quote's markers (`> `, `> > `): a fence may open inside a quote too.
_QUOTED = re.compile(r"^(?:[ \t]*>)+[ \t]?")
# An HTML comment as a browser (and GitHub) closes it: `<!-->` and `<!--->` are empty
# ones; an unclosed one runs to the end, taken in one match (trying `.*?-->` again from
# each later `<!--` would be quadratic).
HTML_COMMENT = re.compile(r"<!--(?:-?>|.*?-->|.*\Z)", re.S)
# A code block as cmark-gfm renders it with CMARK_OPT_SOURCEPOS, and the block quotes and
# list items that may hold one (their end tags too): first and last lines (a last column
# of 0 is the end of the line before). Raw HTML in the text is never rendered as such
# (no CMARK_OPT_UNSAFE), so only the renderer writes these tags.
_CODE_OR_HOLDER = re.compile(
    r'<(pre|blockquote|li) data-sourcepos="(\d+):\d+-(\d+):(\d+)"|</(?:blockquote|li)>'
)


def _fence_opened(line: str, nested: bool = False) -> str:
    """The fence (its run of backticks or tildes) this line opens, or "". `nested`: at
    any indent, not only up to 3 spaces (deeper is indented code at the top level)."""
    m = (_NESTED_OPEN if nested else _FENCE_OPEN).match(line)
    # A backtick fence's info string may not contain a backtick: "```a`b" is inline code.
    if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
        return m.group(1)
    return ""


def _fence_closed(line: str, fence: str, nested: bool = False) -> bool:
    """Whether this line closes `fence`: a run of its character at least as long."""
    m = (_NESTED_CLOSE if nested else _FENCE_CLOSE).match(line)
    return m is not None and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)


def _quoted(line: str) -> tuple[int, str]:
    """How deep in block quotes a line is, and the line without the quote's markers."""
    m = _QUOTED.match(line)
    return (m.group(0).count(">"), line[m.end() :]) if m else (0, line)


def without_fences(text: str, nested: bool = False) -> str:
    """The text with its fenced code blocks' lines left empty (an unclosed fence runs to
    the end). `nested`: fences at any indent and inside block quotes count (a PR quoting
    the issue's log), as in the nested lists of a PR description, where what matters is
    leaving logs out, not CommonMark's fine print; a quoted fence ends with its quote."""
    out: list[str] = []
    fence, depth = "", 0
    # GitHub sends descriptions typed on github.com with CRLF: "```\r" must close a fence
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        quotes, inner = _quoted(line) if nested else (0, line)
        if fence and quotes >= depth:
            if _fence_closed(inner, fence, nested):
                fence = ""
            out.append("")
        elif opened := _fence_opened(inner, nested):
            fence, depth = opened, quotes
            out.append("")
        else:
            fence = ""  # the quote that held the fence has ended
            out.append(line)
    return "\n".join(out)


def without_indented_code(text: str) -> str:
    """The text with the lines of its code blocks left empty, as GitHub renders them:
    indented blocks (four columns of indent after a blank line or another block, at the
    top level, in a block quote, or four beyond a list item's content; not a list item's
    continuation lines, not a paragraph's lazy ones) and any fenced block still there.
    `text` has "\n" line ends. Without four spaces or a tab in a row, nor a fence (one
    in a block quote is left to this), a text has none, and is returned as it is
    without being parsed."""
    if not any(mark in text for mark in ("    ", "\t", "```", "~~~")):
        return text
    html = _render(text, Options.CMARK_OPT_SOURCEPOS)
    if "<pre" not in html:
        return text
    lines = text.split("\n")
    for first, last in _code_lines(html):
        for n in range(first - 1, min(last, len(lines))):
            lines[n] = ""
    return "\n".join(lines)


def _code_lines(html: str) -> list[tuple[int, int]]:
    """(first, last) line of each code block cmark-gfm rendered, ending with what holds
    it at the latest: it gives a fence left open in a quote or a list item the next line
    too ("> ```" then "<!-- no-review-notes -->": the comment is outside, as shown)."""
    out: list[tuple[int, int]] = []
    ends: list[int] = []  # the last lines of the open holders, innermost last
    for m in _CODE_OR_HOLDER.finditer(html):
        if not m.group(1):
            ends.pop()
            continue
        last = int(m.group(3)) - (m.group(4) == "0")
        last = min(last, ends[-1]) if ends else last
        if m.group(1) == "pre":
            out.append((int(m.group(2)), last))
        else:
            ends.append(last)
    return out


def as_html(text: str) -> str:
    """The HTML cmark-gfm, GitHub's engine, makes of a Markdown text, raw HTML passed on:
    an HTML comment left in it is one GitHub keeps as HTML (hidden), while one the text
    shows as code is escaped there (`&lt;!--`). Whatever holds the code (a quote, a list
    item, an HTML block) is decided by the parser, not guessed line by line."""
    return _render(text, Options.CMARK_OPT_UNSAFE)


def _render(text: str, options: int) -> str:
    """cmark-gfm's HTML of a text; a lone surrogate (a JSON escape) cannot be encoded,
    so it becomes a "?" of its own (lines kept)."""
    safe = text.encode("utf-8", "replace").decode("utf-8")
    return cmarkgfm.markdown_to_html(safe, options=options)


def _code_span_ranges(paragraph: str) -> list[tuple[int, int]]:
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
    """The code spans of a whole text: a span never crosses a blank line or the start of
    a list item, heading or quote."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for part in _PARAGRAPH_BREAK.split(text):
        if "`" in part:  # most paragraphs have none: 64 KB of blank lines stays cheap
            spans += [(offset + s, offset + e) for s, e in _code_span_ranges(part)]
        offset += len(part)
    return spans


def replace_code_spans(text: str, mark: str = "") -> str:
    """The text with each inline code span replaced by `mark` (removed, by default)."""
    out: list[str] = []
    pos = 0
    for start, end in paragraph_code_spans(text):
        out += (text[pos:start], mark)
        pos = end
    out.append(text[pos:])
    return "".join(out)

"""Where a slash command may start in a GitHub comment: lines a reader sees as prose (pure).

GitHub renders comments as CommonMark (plus GFM extensions that hide nothing), so the
comment is read with a CommonMark parser (markdown-it-py): fenced and indented code,
quotes, HTML blocks, link reference definitions and list structure come out as GitHub
sees them, which no line-by-line guess managed (a fence opened on a list item's line
ends with the list; a quote's lazy lines; a `<pre>` block ends at its `</pre>` line).

What the parser leaves to the browser is done here: raw HTML (HTML blocks and inline
tags, in document order) is read as a browser reads it. An HTML comment hides everything
up to the next `-->` in raw HTML (an unclosed one hides the rest, whatever block it was
opened in); `<pre>` and `<code>` elements hide up to their end tag, a `<pre>` also ends
with the quote or list item it was opened in. A comment inside `<pre>` nests.

A line counts only when its source starts with the command word, at most three spaces
in: `> /notes`, `- /notes` or `\\/notes` are text about a command. A command on a quote's
lazy line or on its own line under a list item runs: the author typed it there.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

HIDDEN = "\x00"  # stands in for a character the reader does not see as prose
_MARK = "\ue000"  # put before a candidate command; where it lands says what GitHub shows

# Blocks first, inline text only where a command may be: lists and quotes nest up to 100
# deep (what lies deeper is not read: the safe side), links 20 (each level multiplies the
# cost of a text of brackets). Emphasis changes how text looks, never whether it shows.
_MD = MarkdownIt("commonmark", {"maxNesting": 100}).disable(["inline", "text_join"])
_INLINE = MarkdownIt("commonmark", {"maxNesting": 20}).disable(["emphasis"])

_COMMENT_OPEN = "<!--"
# `<!-->` and `<!--->` are empty comments, closed at once (HTML, and GitHub)
_COMMENT_END = re.compile(r"(?<=<!--)-?>|-->")
# an element whose content is not prose; `<pre/>` opens one too, as do attributes that run
# on past the line
_ELEMENT_OPEN = re.compile(r"<!--|<(pre|code)(?=[\s/>]|$)[^>]*(?:>|$)", re.I)


class _RawHtml:
    """A browser's view of the raw HTML met so far: what still hides the text after it."""

    def __init__(self) -> None:
        # open hiders, innermost last: (closing pattern, element name, container depth)
        self.open: list[tuple[re.Pattern[str], str, int]] = []

    @property
    def hiding(self) -> bool:
        return bool(self.open)

    def feed(self, html: str, depth: int) -> str:
        """`html` as shown: what an open comment or element hides becomes HIDDEN."""
        out, pos = [], 0
        while pos < len(html):
            closer = self.open[-1][0] if self.open else None
            # inside an element a comment may open (and hide its end tag); inside a
            # comment nothing opens
            opener = None if closer is _COMMENT_END else _ELEMENT_OPEN.search(html, pos)
            end = closer.search(html, pos) if closer else None
            if end and (opener is None or end.start() < opener.start()):
                out.append(HIDDEN * (end.end() - pos))
                self.open.pop()
                pos = end.end()
            elif opener:
                shown = html[pos : opener.start()]
                out.append(shown if not self.open else HIDDEN * len(shown))
                out.append(HIDDEN * (opener.end() - opener.start()))
                self.open.append(self._closer(opener, depth))
                pos = opener.end()
            else:
                rest = html[pos:]
                out.append(HIDDEN * len(rest) if self.open else rest)
                break
        return "".join(out)

    @staticmethod
    def _closer(opener: re.Match[str], depth: int) -> tuple[re.Pattern[str], str, int]:
        if opener.group(0) == _COMMENT_OPEN:
            return _COMMENT_END, "!--", depth
        name = opener.group(1).lower()
        return re.compile(rf"</{name}\s*>", re.I), name, depth

    def leave(self, depth: int) -> None:
        """A quote or list item closes: so do the `<pre>` elements opened in it. An HTML
        comment runs on; a `<code>` is a formatting element the browser opens again."""
        while self.open and self.open[-1][1] == "pre" and self.open[-1][2] >= depth:
            self.open.pop()


def _starts_with(line: str, word: str) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    end = indent + len(word)
    head = line[indent:end]
    return indent <= 3 and head.lower() == word and (end == len(line) or line[end].isspace())


def command_lines(text: str, word: str) -> list[str]:
    """The lines of a comment where GitHub shows `word` as prose at the line's start, from
    the word on: inline code kept with its backticks, raw HTML as HIDDEN. `word` is
    lower case."""
    text = text.replace(HIDDEN, "").replace(_MARK, "")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    candidates = [i for i, line in enumerate(lines) if _starts_with(line, word)]
    if not candidates:
        return []  # most comments: no parse at all
    starts = set(candidates)
    env: dict[str, Any] = {}
    html = _RawHtml()
    found: list[str] = []
    depth = 0
    for tok in _MD.parse(text, env):
        if tok.type in ("blockquote_open", "list_item_open"):
            depth += 1
        elif tok.type in ("blockquote_close", "list_item_close"):
            html.leave(depth)
            depth -= 1
        elif tok.type == "html_block" and tok.map:
            for i, line in enumerate(tok.content.split("\n")):
                shown = html.feed(line, depth)
                if _starts_with(shown, word) and tok.map[0] + i in starts:
                    found.append(shown.lstrip(" "))
        elif tok.type == "inline" and tok.map:
            found += _inline_commands(tok, candidates, starts, word, env, html, depth)
    return found


def _marked(tok: Token, candidates: set[int], word: str) -> str:
    """The block's inline text with _MARK before each candidate line's word."""
    assert tok.map is not None
    rows = tok.content.split("\n")
    if len(rows) != tok.map[1] - tok.map[0]:
        return tok.content  # lines out of step with the source: mark none (the safe side)
    for i, row in enumerate(rows):
        if tok.map[0] + i in candidates and _starts_with(row, word):
            at = len(row) - len(row.lstrip(" "))
            rows[i] = row[:at] + _MARK + row[at:]
    return "\n".join(rows)


def _inline_commands(
    tok: Token,
    candidates: list[int],
    starts: set[int],
    word: str,
    env: dict[str, Any],
    html: _RawHtml,
    depth: int,
) -> list[str]:
    """The commands GitHub shows in one block's inline text (`candidates`: the lines
    starting with the word, sorted; `starts`: the same as a set)."""
    assert tok.map is not None
    at = bisect_left(candidates, tok.map[0])
    marked = at < len(candidates) and candidates[at] < tok.map[1]
    if not marked and "<" not in tok.content:
        return []  # no command here, and no raw HTML to follow
    source = _marked(tok, starts, word) if marked else tok.content
    children: list[Token] = []
    _INLINE.inline.parse(source, _INLINE, env, children)
    found: list[str] = []
    current: list[str] | None = None
    line_start = True
    for child in children:
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            if current is not None:
                found.append("".join(current))
                current = None
            line_start = True
            continue
        if kind == "html_inline":
            shown = html.feed(child.content, depth)
            piece = HIDDEN * len(shown)
        elif kind in ("text", "text_special"):
            piece = HIDDEN * len(child.content) if html.hiding else child.content
            if line_start and piece.startswith(_MARK):
                current = []
        elif kind == "code_inline":
            piece = child.markup + child.content + child.markup
            if html.hiding:
                piece = HIDDEN * len(piece)
        elif kind == "image":
            piece = HIDDEN  # its text is the image's alt, not shown
        else:
            piece = ""  # a link's start and end
        if current is not None:
            current.append(piece.replace(_MARK, ""))
        line_start = False
    if current is not None:
        found.append("".join(current))
    return found

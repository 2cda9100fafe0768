"""Where a slash command may start in a GitHub comment: lines GitHub shows as prose (pure).

A command runs only where a reader sees it. Rather than re-derive GitHub's rendering, the
comment is rendered the way GitHub renders it: cmark-gfm (GitHub's own Markdown engine,
with its extensions and raw HTML passed through), and the HTML read by an HTML5 parser
(Lexbor), as GitHub's sanitizer and the browser read it. Code blocks and spans, quotes,
lists, link labels and titles, HTML comments, tags and attributes, `<pre>` and `<code>`
elements all come out as GitHub shows them; both engines are C and linear in the text.

How a line is found: each line whose source starts with the command word (at most three
spaces in) gets a private-use character before the word, one the comment does not use.
A command counts where that character lands in the HTML as text, at the start of a line,
outside any element that shows code or nothing (`<pre>`, `<code>`, `<template>`, ...).
`> /notes`, `- /notes` or `\\/notes` are text about a command: their source does not start
with the word. A command on a quote's lazy line or on its own line under a list item
runs: the author typed it there.

A mark may change one thing: a full reference link's label (`[see][` newline `/notes
off]`) is not shown, and with the mark in it, it matches no definition and no link forms.
When the marks change the links, nothing is read (the safe side).
"""

from __future__ import annotations

import re
from itertools import chain

import cmarkgfm
from cmarkgfm.cmark import Options
from selectolax.lexbor import LexborHTMLParser, LexborNode

_EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS  # as in comments

# Elements whose text a reader does not see as prose: code, or nothing at all.
_HIDING = frozenset(
    {"pre", "code", "template", "textarea", "script", "style", "title", "noscript"}
    | {"xmp", "iframe", "noembed", "noframes", "plaintext", "head"}
)
# Elements a line may run through (a command may start inside a link or emphasis).
_INLINE = frozenset(
    {"a", "em", "strong", "del", "s", "span", "b", "i", "u", "ins", "mark", "small", "sub"}
    | {"sup", "abbr", "cite", "q", "dfn", "font", "strike", "big", "bdi", "bdo"}
)
_TEXT, _COMMENT = "-text", "_comment"
# An HTML5 parser's work grows with the depth of open elements (32,768 nested quotes fit in
# 64 KB and take it seconds); no browser or sanitizer keeps such a tree either. Deeper
# than this, a comment is not read: the safe side.
MAX_DEPTH = 400
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^<>]*?(/?)>")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)


def _starts_with(line: str, word: str) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    end = indent + len(word)
    head = line[indent:end]
    return indent <= 3 and head.lower() == word and (end == len(line) or line[end].isspace())


def _free_mark(text: str) -> str | None:
    """A private-use character the comment does not contain (None: it holds all 71,000)."""
    used = set(text)
    for code in chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE)):
        if chr(code) not in used:
            return chr(code)
    return None


def command_lines(text: str, word: str) -> list[str]:
    """The lines of a comment where GitHub shows `word` as prose at the line's start, from
    the word to the line's end as shown (inline code with its backticks, HTML comments
    left out). `word` is lower case."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    candidates = [i for i, line in enumerate(lines) if _starts_with(line, word)]
    if not candidates:
        return []  # most comments: nothing to render
    mark = _free_mark(text)
    if mark is None:
        return []  # not a comment anyone types: read nothing
    for i in candidates:
        at = len(lines[i]) - len(lines[i].lstrip(" "))
        lines[i] = lines[i][:at] + mark + lines[i][at:]
    html = _render("\n".join(lines))
    if _links(html) != _links(_render(text)):
        return []  # a mark sits in a link's hidden label
    if _depth(html) > MAX_DEPTH:
        return []
    found = []
    for node in LexborHTMLParser(html).root.traverse(include_text=True):
        if node.tag != _TEXT or mark not in (node.text_content or "") or _hidden(node):
            continue
        pieces = (node.text_content or "").split(mark)
        newline, tail = "\n" in pieces[0], pieces[0].rsplit("\n", 1)[-1]
        for piece in pieces[1:]:
            if _line_starts(node, newline, tail):
                line, *more = piece.split("\n", 1)
                found.append((line if more else line + _line_after(node)).replace(mark, ""))
            if "\n" in piece:
                newline, tail = True, piece.rsplit("\n", 1)[1]
            else:
                tail += mark + piece  # a mark is one per source line: this stays short
    return found


def _render(text: str) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(text, options=_OPTIONS, extensions=_EXTENSIONS)


def _links(html: str) -> tuple[int, int]:
    return html.count("<a "), html.count("<img ")


def _depth(html: str) -> int:
    """How deep the elements nest, counted from the tags (an unclosed tag counts open)."""
    depth = deepest = 0
    for m in _TAG.finditer(html):
        if m.group(3) or m.group(2).lower() in _VOID:
            continue
        depth += -1 if m.group(1) else 1
        deepest = max(deepest, depth)
    return deepest


def _hidden(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.tag in _HIDING:
            return True
        parent = parent.parent
    return False


def _line_starts(node: LexborNode, newline: bool, tail: str) -> bool:
    """Whether a mark in `node` starts a shown line: `tail` is the node's text before it,
    since the last newline (`newline`: there is one)."""
    if newline or tail.strip():
        return not tail.strip()
    while True:  # back through what precedes it on the line
        prev = node.prev
        while prev is not None:
            if prev.tag == "br":
                return True
            if prev.tag == _TEXT:
                shown = prev.text_content or ""
                if "\n" in shown:
                    return not shown.rsplit("\n", 1)[1].strip()
                if shown.strip():
                    return False
            elif prev.tag != _COMMENT:
                return False  # an element before it on its line: not at the start
            prev = prev.prev
        parent = node.parent
        if parent is None or parent.tag not in _INLINE:
            return True  # the start of a block
        node = parent


def _line_after(node: LexborNode) -> str:
    """The rest of the line after `node`: siblings, and past the end of inline parents,
    up to a line break or the end of the block."""
    out: list[str] = []
    while True:
        sibling = node.next
        while sibling is not None:
            if sibling.tag == "br":
                return "".join(out)
            if sibling.tag == _TEXT:
                shown = sibling.text_content or ""
                if "\n" in shown:
                    return "".join(out) + shown.split("\n", 1)[0]
                out.append(shown)
            elif sibling.tag == "code":
                out.append("`" + sibling.text(deep=True) + "`")
            elif sibling.tag in _INLINE:
                out.append(sibling.text(deep=True).split("\n", 1)[0])
            sibling = sibling.next
        parent = node.parent
        if parent is None or parent.tag not in _INLINE:
            return "".join(out)
        node = parent

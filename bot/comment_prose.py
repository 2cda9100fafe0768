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
import unicodedata
from itertools import chain

import cmarkgfm
from cmarkgfm.cmark import Options
from selectolax.lexbor import LexborHTMLParser, LexborNode

_EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
# as in comments: raw HTML passed on (GitHub's sanitizer reads it), newlines as breaks,
# footnotes (an unreferenced definition is not shown)
_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_FOOTNOTES

# Elements whose text a reader does not see as prose: code, or nothing at all.
_HIDING = frozenset(
    {"pre", "code", "template", "textarea", "script", "style", "title", "noscript"}
    | {"xmp", "iframe", "noembed", "noframes", "plaintext", "head", "rp"}  # rp: display none
)
# Elements a line may run through (a command may start inside a link or emphasis).
_INLINE = frozenset(
    {"a", "em", "strong", "del", "s", "span", "b", "i", "u", "ins", "mark", "small", "sub"}
    | {"sup", "abbr", "cite", "q", "dfn", "font", "strike", "big", "bdi", "bdo"}
)
_TEXT, _COMMENT = "-text", "-comment"
_SKIPPED = frozenset({_COMMENT, "img", "input", "wbr"})  # neither text nor the line's end
# An HTML5 parser's work grows with the depth of open elements (32,768 nested quotes fit in
# 64 KB and take it seconds); no browser or sanitizer keeps such a tree either. Deeper
# than this, a comment is not read: the safe side.
MAX_DEPTH = 400
_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9-]*)(?:[^<>"']|"[^"]*"|'[^']*')*>""")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)
# a start tag of one of these closes an open one of its kind (`<p><p>`, `<li><li>`)
_SIBLINGS = frozenset({"p", "li", "dt", "dd", "option", "tr", "td", "th"})


def _starts_with(line: str, word: str) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    end = indent + len(word)
    head = line[indent:end]
    return indent <= 3 and head.lower() == word and (end == len(line) or _space(line[end]))


def _space(char: str) -> bool:
    """A space a reader sees: not a control character Python also calls white space."""
    return char in " \t" or unicodedata.category(char) == "Zs"


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
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    math = _display_math(lines)
    candidates = [i for i, line in enumerate(lines) if _starts_with(line, word) and i not in math]
    if not candidates:
        return []  # most comments: nothing to render
    mark = _free_mark(text)
    if mark is None:
        return []  # not a comment anyone types: read nothing
    for i in candidates:
        at = len(lines[i]) - len(lines[i].lstrip(" "))
        lines[i] = lines[i][:at] + mark + lines[i][at:]
    html = _render("\n".join(lines))
    if html.replace(mark, "") != _render(text):
        return []  # a mark changed more than itself (it sits in a link's hidden label)
    if _depth(html) > MAX_DEPTH:
        return []
    found = []
    hides: dict[int, bool] = {}  # element -> whether it or an ancestor hides its text
    for node in LexborHTMLParser(html).root.traverse(include_text=True):
        text = (node.text_content or "") if node.tag == _TEXT else ""
        if mark not in text or _hidden(node.parent, hides):
            continue
        # a newline in raw HTML is a space to the browser: only the node's first mark can
        # start a line, and the line runs on to a break or a block's end
        before, _, after = text.partition(mark)
        if not before.strip() and _line_starts(node):
            found.append((after + _line_after(node)).replace(mark, "").replace("\n", " "))
    return found


def _render(text: str) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(text, options=_OPTIONS, extensions=_EXTENSIONS)


def _display_math(lines: list[str]) -> set[int]:
    """The lines inside `$$` blocks, which GitHub shows as a formula, not as text."""
    inside: set[int] = set()
    start = None
    for i, line in enumerate(lines):
        if start is None:
            stripped = line.strip()
            if stripped.startswith("$$") and "$$" not in stripped[2:]:
                start = i
        elif "$$" in line:
            inside.update(range(start + 1, i))
            start = None
    if start is not None:
        inside.update(range(start + 1, len(lines)))
    return inside


def _depth(html: str) -> int:
    """How deep the elements nest, as an HTML5 parser roughly builds them (errs deep): a
    start tag opens (`<q/>` too), an end tag closes up to its element if one is open and
    else nothing. Linear: a count per name says whether one is open."""
    stack: list[str] = []
    open_by_name: dict[str, int] = {}
    deepest = 0
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
        if name in _VOID:
            continue
        if not m.group(1):
            if name in _SIBLINGS and stack and stack[-1] == name:
                continue  # closes the last and opens a new one: the same depth
            stack.append(name)
            open_by_name[name] = open_by_name.get(name, 0) + 1
            deepest = max(deepest, len(stack))
        elif open_by_name.get(name):
            while stack:
                top = stack.pop()
                open_by_name[top] -= 1
                if top == name:
                    break
    return deepest


def _hidden(element: LexborNode | None, hides: dict[int, bool]) -> bool:
    """Whether `element` or an ancestor hides its text; `hides` remembers each element's
    answer, so a walk up stops at the first one known (every element is walked once)."""
    path = []
    while element is not None and element.mem_id not in hides:
        path.append(element)
        element = element.parent
    hidden = hides[element.mem_id] if element is not None else False
    for node in reversed(path):
        hidden = hidden or node.tag in _HIDING
        hides[node.mem_id] = hidden
    return hidden


def _line_starts(node: LexborNode) -> bool:
    """Whether nothing shown precedes `node` on its line: back to a line break or the
    start of its block, through inline elements."""
    while True:
        prev = node.prev
        while prev is not None:
            if prev.tag == "br":
                return True
            if prev.tag == _TEXT:
                if (prev.text_content or "").strip():
                    return False
            elif prev.tag != _COMMENT:
                return False  # an element before it on its line: not at the start
            prev = prev.prev
        parent = node.parent
        if parent is None or parent.tag not in _INLINE:
            return True  # the start of a block
        node = parent


def _backref(element: LexborNode) -> bool:
    """The link back from a footnote to where it is cited (an arrow, not words)."""
    return "footnote-backref" in (element.attributes.get("class") or "")


def _line_after(node: LexborNode) -> str:
    """The rest of the line after `node`: siblings, and past the end of inline parents,
    up to a line break or the end of the block."""
    out: list[str] = []
    while True:
        sibling = node.next
        while sibling is not None:
            if sibling.tag == _TEXT:
                out.append(sibling.text_content or "")
            elif sibling.tag == "code":
                out.append("`" + sibling.text(deep=True) + "`")
            elif sibling.tag in _INLINE and not _backref(sibling):
                out.append(sibling.text(deep=True))
            elif sibling.tag not in _SKIPPED:
                return "".join(out)  # a line break, or a block
            sibling = sibling.next
        parent = node.parent
        if parent is None or parent.tag not in _INLINE:
            return "".join(out)
        node = parent

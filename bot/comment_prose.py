"""Where a slash command may start in a GitHub comment: lines GitHub shows as prose (pure).

A command runs only where a reader sees it. Rather than re-derive GitHub's rendering, the
comment is rendered the way GitHub renders it: cmark-gfm (GitHub's own Markdown engine,
with its extensions and raw HTML passed through), and the HTML read by an HTML5 parser
(Lexbor), as GitHub's sanitizer and the browser read it. Code blocks and spans, quotes,
lists, link labels and titles, HTML comments, tags and attributes, `<pre>` and `<code>`
elements all come out as GitHub shows them; both engines are C. Their work is linear
in the text once nesting and expansion are capped (`MAX_DEPTH`, `_too_costly`,
`MAX_EXPANSION`).

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): what in a
comment is a command; it must never run one a reader does not see as such. How a line
is found, and what the engines leave to GitHub: `command_lines`. Each rule is a test in
tests/test_commands.py.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from itertools import chain

import cmarkgfm
from cmarkgfm.cmark import Options
from selectolax.lexbor import LexborHTMLParser, LexborNode

from bot.emoji_names import NAMES as EMOJI_NAMES
from bot.full_width import FULL_WIDTH
from bot.markdown_text import HTML_COMMENT, without_fences

_EXTENSIONS = ["table", "strikethrough", "autolink", "tagfilter", "tasklist"]
# as in comments: raw HTML passed on (GitHub's sanitizer reads it), newlines as breaks,
# footnotes (an unreferenced definition is not shown)
_OPTIONS = Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS | Options.CMARK_OPT_FOOTNOTES

# Elements no browser displays (rp: display none); their text is not in a line.
_NOT_DISPLAYED = frozenset({"template", "script", "style", "title", "noscript", "head", "rp"})
# Elements whose text a reader does not see as prose: code, or nothing at all.
_HIDING = _NOT_DISPLAYED | {
    *("pre", "code", "textarea", "xmp", "iframe", "noembed", "noframes", "plaintext")
}
# Elements that start and end a line of their own; any other element is inline, and a
# line runs through it (a command may start inside a link, emphasis or an unknown tag).
# Only blocks GitHub's sanitizer keeps: it strips <aside>, <article>, <nav>, ... and keeps
# their text, which then runs on in the line it is in.
_BLOCKS = frozenset(
    {"blockquote", "body", "dd", "details", "div", "dl", "dt", "figcaption", "figure", "h1"}
    | {"h2", "h3", "h4", "h5"}
    | {"h6", "hr", "html", "li", "ol", "p", "pre", "section", "summary", "table", "tbody"}
    | {"td", "tfoot", "th", "thead", "tr", "ul"}
)
_TEXT, _COMMENT = "-text", "-comment"
# GitHub's sanitizer strips <svg> and <math> and keeps what is in them, which the browser
# then reads as HTML (a <td> in them is no table cell): read them as <span>s. An <image>
# is an <img> to an HTML parser (Lexbor forgets that inside a table).
_FOREIGN = re.compile(r"<(/?)(?:svg|math)(?=[\s/>])", re.I)
_IMAGE = re.compile(r"<image(?=[\s/>])", re.I)
# The comment as part of GitHub's page: no quirks mode (a <table> closes a <p>), inside a
# <div> after content (a <frameset> in the comment cannot take over the document).
_PAGE = "<!DOCTYPE html><html><body><br><div>{}</div></body></html>"
_BREAKS = _BLOCKS | {"br"}
_NO_TEXT = frozenset({_COMMENT, "img", "input", "wbr"})  # nothing for a line's words, no end
# An HTML5 parser's work grows with the depth of open elements (32,768 nested quotes fit in
# 64 KB and take it seconds); no browser or sanitizer keeps such a tree either. Deeper
# than this, a comment is not read: the safe side.
MAX_DEPTH = 400
# HTML this many times the comment's length (plus a page's worth) is not read either: a
# table whose short rows cmark-gfm pads to hundreds of cells, or footnote references,
# turn 64 KB into megabytes, whose reading takes seconds (prose renders to about 1-3x).
MAX_EXPANSION = 20
_EXPANSION_SLACK = 4096
# A table's delimiter row (`|-|:-:|`): every row after it is padded to its columns, so
# the table's size in HTML is known before cmark-gfm spends time rendering it.
_DELIMITER_ROW = re.compile(r"^ {0,3}\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$", re.M)
_CELL_HTML = len("<td></td>\n")
_DASHES = re.compile(r"-+")
_CHAR_REF = re.compile(r"&#(?:0*(\d{1,7})|[xX]0*([0-9a-fA-F]{1,6}))")
# what may precede a block's first character: indent, quote markers, a list item's marker
_CONTAINER = re.compile(r"(?: {0,3}(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])[ \t]+))*")
_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9-]*)(?:[^<>"']|"[^"]*"|'[^']*')*>""")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source"}
    | {"track", "wbr", "param"}
)
_FORMATTING = frozenset(
    {"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong"}
    | {"tt", "u"}
)
# Start tags that close an open element of the kinds named (end tags may be left out):
# `<li>` an open `<li>`, `<dd>` a `<dt>`, a block a `<p>`, within the top few elements.
# The search stops at the element that scopes them (an `<li>` closes no `<li>` of an
# outer list).
_LISTS, _TABLE = frozenset({"ul", "ol"}), frozenset({"table"})
_TERM, _CELL = frozenset({"dt", "dd"}), frozenset({"td", "th"})
_CLOSES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset({"li", "p"}), _LISTS),
    "dt": (_TERM | {"p"}, frozenset({"dl"})),
    "dd": (_TERM | {"p"}, frozenset({"dl"})),
    "tr": (_CELL | {"tr"}, _TABLE),
    "td": (_CELL, _TABLE),
    "th": (_CELL, _TABLE),
    "option": (frozenset({"option"}), frozenset({"select"})),
    "p": (frozenset({"p"}), frozenset()),
} | dict.fromkeys(
    ("div", "ul", "ol", "dl", "table", "pre", "blockquote", "details", "section", "hr")
    + ("h1", "h2", "h3", "h4", "h5", "h6", "summary", "figure"),
    (frozenset({"p"}), frozenset()),
)
_IMPLIED_REACH = 8  # how far down the open elements an implied end tag is looked for
# A quote typed in HTML (`<blockquote>`, a line of its own, the command on the next): the
# page shows it quoted, as `> /notes`, which its writer quoted. A `>` quote's lazy line
# is in a quote on the page too, but typed by its author under it: it runs. Told apart by
# where cmark-gfm's blocks come from (`_SOURCE`, only when the text types a blockquote:
# rendering so costs more); raw HTML has none. Its size and text are read without them.
_TYPED_QUOTE = re.compile(r"<blockquote(?=[\s/>])", re.I)
_SOURCE = "data-sourcepos"
_SOURCEPOS = re.compile(r' data-sourcepos="[0-9:-]*"')


def as_ascii(text: str) -> str:
    """`text` with its full-width forms as the ASCII they stand for, one character for one
    (the same places): a command word or sub-command as typed (`／ｎｏｔｅｓ`, `ｏｆｆ`, or
    `／notes` when only its `/` was)."""
    return text.translate(FULL_WIDTH)


def _starts_with(line: str, word: str, glued: Collection[str]) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    if indent > 3:
        return False
    start = _past_invisible(line, indent)  # a zero-width space or BOM pasted before it
    end = start + len(word)
    if as_ascii(line[start:end]).lower() != word:
        return False
    # markup may follow the word (`/notes<!-- -->`, `/notes<br>`, a `\` line break,
    # `/notes&nbsp;`): the page decides, after rendering; invisible characters show nothing
    end = _past_invisible(line, end)
    markup = "<\\&"
    return _word_ends(line, end, markup) or _colon_glued(line, end, glued, markup)


# A word glued to the command word by a colon, as people label what they type: `/notes:why`
# (`as_ascii`: full-width forms read as ASCII)
_GLUED_WORD = re.compile("[A-Za-z]+")


def _colon_glued(line: str, at: int, glued: Collection[str], markup: str = "") -> bool:
    """Whether a colon at `at` glues one of the `glued` words (lower case) to the command
    word, the word ending there (`/notes:why`, `/notes:off.`, or in the source before the
    `markup` that may follow it, `/notes:why<br>`, as `_word_ends`): a command. Any other word
    after it is someone else's (`/notes:8080`, `/notes:foo:bar`, `/notes:why.py`), and so
    is an emoji's shortcode (`/notes:on:pray:`, which the page shows as `/notes🔛pray:`)."""
    start = colon_label(line, at)
    found = None if start is None else _GLUED_WORD.match(as_ascii(line), start)
    return (
        found is not None
        and found[0].lower() in glued
        and _word_ends(line, _past_invisible(line, found.end()), markup)
    )


def colon_label(text: str, at: int) -> int | None:
    """Where the word starts that a colon after the command word labels (`at`: where the
    command word ends), past the colon and the spaces or invisible characters around it:
    `/notes:why`, `/notes: why`, `/notes : why`, `/notes :why`, and as a Chinese input
    method types the colon, `/notes：why`. None: no colon there, or one that is not alone
    (`::`, or an emoji's shortcode, `:on:`, `:pray:`)."""
    start = run_end(_GAP, text, at)
    if as_ascii(text[start : start + 1]) != ":" or marks_end(text, start) != start + 1:
        return None
    return run_end(_GAP, text, start + 1)


# Sentence punctuation: a sentence's end or pause right after a word (`/notes.`, as an
# input method types it, `/notes。`), a full-width one (and `…`) with no space after it;
# a tilde is the friendly full stop of informal Chinese (`/notes off～`, `谢谢~`), and
# Japanese's wave dash (U+301C, which NFKC leaves as it is) of informal Japanese. The
# full-width full stop is what a full-width mode types for `.` (`/notes off．`), and for a
# file name's dot too (`／ｎｏｔｅｓ．ｐｙ`): as `.`, a space or the line's end follows it.
_FULL_STOP = "\uff0e"
SENTENCE_MARKS = ".,!?;:…。，、！？；：~～\u301c" + _FULL_STOP
# The parts of an emoji that are no symbol of their own: variation selectors (❤️), the
# joiner (👩‍💻), the keycap (1️⃣) and a flag's tags (🏴 and Scotland's letters)
_EMOJI_PARTS = "\ufe0e\ufe0f\u200d\u20e3" + "".join(map(chr, range(0xE0020, 0xE0080)))


def is_symbol(char: str) -> bool:
    """An emoji or symbol a writer glues to a word as they would a full stop (`/notes
    off🙏`, `rocm👍🏽`, `why❤️`): Unicode's other and modifier symbols beyond ASCII (So:
    emoji, ✅, ™; Sk: skin tones), and an emoji's parts. ASCII's (`^`, a backtick) are
    Markdown's or a path's."""
    if char in BLANKS:
        return False  # the braille blank (So) shows nothing: a space (`_SPACES`)
    return char > "\x7f" and (unicodedata.category(char) in ("So", "Sk") or char in _EMOJI_PARTS)


def is_mark(char: str) -> bool:
    """Sentence punctuation or an emoji: what may end a command's word (`_word_ends`) and
    is no part of a sub-command or a topic's name."""
    return char in SENTENCE_MARKS or is_symbol(char)


# The full-width parenthesis, which opens the writer's own remark in Chinese prose: after the
# command word it is no sub-command (`/notes（先刷新）`). A quote may name one (`「why」`).
_ASIDE = "\uff08"


def opens_a_quote(char: str) -> bool:
    """An opening quote or bracket beyond ASCII (`「`, `“`, `『`, `【`, and the full-width
    `（`, `［`), which Chinese puts no space before: `/notes topic「投机解码」` is `topic` and
    its quoted name, `/notes off（先关掉）` is `off` and the writer's aside, `/notes wrong
    2「只是改名」` note 2 and its reason. Asked of the character as typed, not of the ASCII
    a full-width form stands for: ASCII's `(` glued to a word is a call's or a path's
    (`topic(rocm)`, `off()`: someone else's word), a full-width one is prose, which no
    code or path is written with."""
    return not char.isascii() and unicodedata.category(char) in ("Ps", "Pi")


# A GitHub emoji shortcode (`:pray:`, `:+1:`): the comment's text keeps it where the page
# shows the emoji (typed out whole, or pasted from a chat that copies emoji so). GitHub
# shows one only for a name it knows (`emoji_names`, lower-case letters, digits, `_`, `+`
# and `-`); any other stays text as typed: `:rocm:`, `:latest:`, a port's `:8080:`.
_SHORTCODE = re.compile(r":([a-z0-9_+-]{1,40}):")


def _shortcode_end(text: str, at: int) -> int:
    """Where an emoji's shortcode at `at` ends (`at`: none there)."""
    code = _SHORTCODE.match(text, at)
    return code.end() if code is not None and code[1] in EMOJI_NAMES else at


# Shortcodes one after another, touching no other colon (`torch::jit::script` holds none)
# nor a word after them (`:foo:bar` ends no emoji)
_SHORTCODE_RUN = re.compile(r"(?<!:)(?::[a-z0-9_+-]{1,40}:)+(?![:A-Za-z0-9_])")


def without_shortcodes(text: str) -> str:
    """`text` with its emoji shortcodes (`_SHORTCODE`) as a space: the page shows an emoji
    there, no word (`/notes search deadlock :+1:` asks for no `1`)."""

    def blank(run: re.Match[str]) -> str:
        at = run.start()
        while at < run.end():
            end = _shortcode_end(text, at)
            if end == at:
                return run[0]  # `:8080:`: a port's, no emoji's
            at = end
        return " "

    return _SHORTCODE_RUN.sub(blank, text)


def _mark_run(text: str, at: int) -> tuple[int, bool]:
    """Where the run of marks from `at` ends (`at`: none there), and whether it ends in a
    shortcode (`_SHORTCODE`), which is an emoji."""
    coded = False
    while at < len(text):
        if (code := _shortcode_end(text, at)) > at:
            at, coded = code, True
        elif is_mark(text[at]):
            at, coded = at + 1, False
        else:
            break
    return at, coded


def run_end(pattern: re.Pattern[str], text: str, at: int = 0) -> int:
    """Where `pattern`'s match at `at` ends: a run (`[...]*`), which matches everywhere."""
    found = pattern.match(text, at)
    assert found is not None, pattern.pattern
    return found.end()


def marks_end(text: str, at: int) -> int:
    """Where the run of marks (`is_mark`, or an emoji's shortcode: `:pray:`) from `at`
    ends (`at`: none there)."""
    return _mark_run(text, at)[0]


def without_end_marks(text: str) -> str:
    """`text` without the sentence punctuation or emoji it ends in (`is_mark`: `deadlock.`,
    `rocm?`, `默认。`, `why🙏`), read a character at a time from the end: a shortcode's
    letters are no mark (`rocm:pray:` keeps `rocm:pray`), unlike `marks_end`'s reading."""
    end = len(text)
    while end and is_mark(text[end - 1]):
        end -= 1
    return text[:end]


def _word_ends(line: str, at: int, markup: str = "") -> bool:
    """Whether the command word ends at `at`: the line's end, a space, the `markup` that
    may follow it in the source, or sentence punctuation that ends there too (`/notes.`,
    `/notes, ...`) or is the full-width kind a Chinese writer puts no space after
    (`/notes。谢谢`), or an emoji (`/notes🙏`, `/notes:pray:`, no space after it either),
    or a full-width parenthesis opening the writer's aside, which Chinese puts no space
    before (`/notes（先刷新）`). `/notes.py`, `/notes/foo`, `/notes:8080` or `/notes(x)` are
    paths, calls and such."""
    end, coded = _mark_run(line, at)
    last = line[at:end].rstrip(_EMOJI_PARTS)[-1:]  # an emoji's selector or tags are the emoji
    if last and not last.isascii() and last != _FULL_STOP:
        return True
    if coded and not line[end : end + 1].isascii():
        return True  # `/notes:pray:谢谢`, as `/notes🙏谢谢`; `/notes:x:y` is no emoji's end
    at = at if end == at else _past_invisible(line, end)
    after = line[at : at + 1]
    return not after or _space(after) or after in markup or after == _ASIDE


def ends_a_sentence(word: str) -> bool:
    """Whether a word after the command word starts with marks that end the writer's
    sentence, as `_word_ends` reads them glued to the command word: marks alone (`...`,
    `🙏`), or a run ending in a kind no space follows (`。谢谢`, `🙏谢谢`), or an aside
    (`（先刷新）`: `_ASIDE`). `.x` is a word, and so is one with no marks: what follows its
    start is no space (`WORDS`)."""
    return _word_ends(word, 0)


def starts_with_marks(text: str) -> bool:
    """Whether `text` (what follows a command word) starts with sentence punctuation or an
    emoji, invisible characters aside: the word ended a sentence (`/notes.`, `/notes🙏`)."""
    start = _past_invisible(text, 0)
    return marks_end(text, start) > start


def _past_invisible(line: str, at: int) -> int:
    """Where the invisible format characters from `at` on end (`at`: none there). Every
    line of a comment is looked at: an ASCII character, the common case, is no such."""
    return run_end(_INVISIBLE, line, at) if line[at : at + 1] > "\x7f" else at


def _space(char: str) -> bool:
    """A space a reader sees (`_SPACES`), not a control character that shows nothing
    (`\x1c`-`\x1f`), which Python also calls white space."""
    return char in _SPACES


# Invisible format characters (Unicode Cf, as of Unicode 15.1: the soft hyphen, zero-width
# space and joiners, bidi controls, the word joiner, the BOM, tags): a reader sees nothing
# of them, before the command word or right after it. Written out (a scan of Unicode costs
# 80 ms at import): tests/test_commands.py checks Python's own table is within it.
FORMAT_CHARS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)  # a regular expression's character class, without its brackets
_INVISIBLE = re.compile(f"[{FORMAT_CHARS}]*")

# Blanks that are no space separator (Zs) to Unicode: the rest of its White_Space (the
# line and paragraph separators U+2028 and U+2029, vertical tab, form feed, NEL), and the
# characters drawn as an empty space (the braille blank U+2800, a symbol; the Hangul
# fillers, letters), pasted as a gap from another page or a chat. Every blank between
# words is one: `/notes⠀why` and `/notes\u2028why` are `why`, as `/notes\u3000why` is.
BLANKS = "\x0b\x0c\x85\u2028\u2029\u2800\u115f\u1160\u3164\uffa0"
_SPACES = (
    "\t" + "".join(chr(c) for c in range(0x3001) if unicodedata.category(chr(c)) == "Zs") + BLANKS
)
# a command's words: between the spaces a reader sees
WORDS = re.compile(f"[^{re.escape(_SPACES)}]+")
# what a reader sees as a gap between words: spaces, and what shows nothing
_GAP = re.compile(f"[{re.escape(_SPACES)}{FORMAT_CHARS}]*")


def _free_mark(text: str) -> str | None:
    """A private-use character the comment does not contain, typed or as a numeric
    character reference (raw HTML passes `&#xE000;` to the browser, which decodes it);
    None: it holds all 71,000."""
    used = set(text)
    for m in _CHAR_REF.finditer(text):
        digits, hexa = m.groups()
        code = int(digits) if digits else int(hexa, 16)
        if code < 0x110000:
            used.add(chr(code))
    for code in chain(range(0xE000, 0xF900), range(0xF0000, 0xFFFFE)):
        if chr(code) not in used:
            return chr(code)
    return None


def command_lines(text: str, word: str, glued: Collection[str] = ()) -> list[str]:
    """The lines of a comment where GitHub shows `word` as prose at the line's start, from
    the word to the line's end as shown (inline code with its backticks, HTML comments
    left out). `word` is lower case; so are the `glued` words, which may follow it after
    a colon with no space (`/notes:why`: `_colon_glued`).

    How a line is found: each line whose source starts with the command word (at most three
    spaces in; invisible format characters before and right after it show nothing, and are
    skipped; typed in full-width forms too, `／ｎｏｔｅｓ`: `FULL_WIDTH`), ended by a space,
    the line's end, sentence punctuation or an emoji (`/notes.`, `/notes🙏`, not `/notes.py`:
    `_word_ends`), gets a private-use character before the word, one the comment does not use.
    A command counts where that character lands in the HTML as text, at the start of a line,
    outside any element that shows code or nothing (`<pre>`, `<code>`, `<template>`, ...).
    `> /notes`, `- /notes` or `\\/notes` are text about a command: their source does not start
    with the word; in a `<blockquote>` typed in HTML it is quoted (`_TYPED_QUOTE`), and so
    is what an email reply quotes under its header (`_email_quote_line`). A
    command on a `>` quote's lazy line or on its own line under a list item runs: the
    author typed it there.

    A mark may change what it sits in: a full reference link's label (`[see][` newline
    `/notes off]`) is not shown, and with the mark in it, it matches no definition and no
    link forms. When the rendering with marks, marks taken out, differs from the rendering
    of the comment as typed, nothing is read (the safe side).

    What the engines leave to GitHub is modelled here: the page around the comment (no
    quirks mode), the sanitizer (the blocks it keeps, a collapsed `<details>`, `<rp>`),
    `$$` math blocks (from the source; cmark-gfm knows no math) and the layout of a line
    (where it breaks, what shows nothing).
    """
    # as cmark-gfm reads it: a leading BOM is no text; a lone surrogate (a JSON escape)
    # cannot be rendered and is no character anyone typed
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = text.encode("utf-8", "replace").decode("utf-8")
    lines = text.split("\n")
    quoted = _email_quote_line(text, lines)
    candidates = [i for i, line in enumerate(lines[:quoted]) if _starts_with(line, word, glued)]
    if candidates:
        math = _display_math(lines)
        candidates = [i for i in candidates if i not in math]
    if not candidates:
        return []  # most comments: nothing to render
    if _expands_too_far(text, _table_cells(text) * _CELL_HTML):
        return []  # tables padded to megabytes: not even rendered
    mark = _free_mark(text)
    if mark is None:
        return []  # not a comment anyone types: read nothing
    for i in candidates:
        at = len(lines[i]) - len(lines[i].lstrip(" "))
        lines[i] = lines[i][:at] + mark + lines[i][at:]
    typed_quotes = _TYPED_QUOTE.search(text) is not None
    html = _render("\n".join(lines), typed_quotes)
    plain = _SOURCEPOS.sub("", html) if typed_quotes else html  # (the mark moves columns)
    if _expands_too_far(text, len(plain)):
        return []  # not read: the safe side, as for a tree too deep
    if plain.replace(mark, "") != _render(text):
        return []  # a mark changed more than itself (it sits in a link's hidden label)
    if _too_costly(html):
        return []
    found = []
    hides: dict[int, bool] = {}  # element -> whether its content is hidden
    depths: dict[int, int] = {}  # element -> its ancestors (document order: parents first)
    root = LexborHTMLParser(_PAGE.format(_as_sanitized(html))).root
    assert root is not None  # (a page of `_PAGE`'s, whatever its content)
    for walked, node in enumerate(root.traverse(include_text=True)):
        if walked > len(html) or _depth(node, depths) > MAX_DEPTH:
            return []  # a tree larger than its text, or deeper than MAX_DEPTH: not read
        text = (node.text_content or "") if node.tag == _TEXT else ""
        if mark not in text or _hidden(node.parent, hides, typed_quotes):
            continue
        # a newline in raw HTML is a space to the browser: only the node's first mark can
        # start a line, and the line runs on to a break or a block
        before, _, after = text.partition(mark)
        if not before.strip() and _line_starts(node):
            rest = [after]
            _line_after(node, rest, hides)
            line = "".join(rest).replace(mark, "").replace("\n", " ").replace("\r", " ")
            line = _unbroken(line[_past_invisible(line, 0) :])  # from the word (_starts_with)
            end = _past_invisible(line, len(word))
            if _word_ends(line, end) or _colon_glued(line, end, glued):  # `/notes<b>x</b>`
                found.append(line)
    return found


# The header an email client writes above the notification a reply by email quotes ("On
# ..., Alice <notifications@github.com> wrote:", Outlook's "From: Alice
# <notifications@github.com>"): GitHub's sender address closed by `>`, which a reply's
# text on GitHub shows hidden as every address in it is ("Alice ***@***.***> wrote:").
# An address in the replier's own words has no `>`, or, named as `Name <address>` (`cc
# Jane <jane@example.com>`, hidden so too), no header's shape around it (`_heads_quote`).
# An older Outlook on Windows writes it `From: Alice [mailto:notifications@github.com]`.
_EMAIL_QUOTE = re.compile(
    r"(?:notifications@github\.com|\*\*\*@\*\*\*\.\*\*\*)>"
    r"|\[mailto:(?:notifications@github\.com|\*\*\*@\*\*\*\.\*\*\*)\]",
    re.I,
)
# An attribution's end, a colon, as in every language (`wrote:`, `写道：`, `a écrit :`,
# Japanese Gmail's `<address>:`)
_ENDS_IN_COLON = re.compile("[:\uff1a][ \t]*$")
# A header field's label at a line's start, as Outlook's block has one on each line
# (`From:`, `Sent:`, `发件人:`, `Date d'envoi :`, and bold in a converted HTML mail,
# `*From:*`): a word's letter first (no command word's `/`), a few words, a colon
_HEADER_FIELD = re.compile(r"[ \t*_]*[^\W\d_][^\n:\uff1a/<>@]{0,30}[:\uff1a]")


def _email_quote_line(text: str, lines: list[str]) -> int | None:
    """The line (of `lines`, the text's) where the quote of an email reply starts, or
    None: the comment it answers, quoted with no `>` (Outlook, iOS Mail), which GitHub
    folds away behind "…"; its commands are that comment's, not the replier's. A quote in
    `>` lines is no command already, and what follows it is the replier's again (written
    below the quote)."""
    judged = -1  # the start of the line judged last: each line once, whatever it holds
    row = 0  # that line's number
    fields = _HeaderFields(lines)
    for found in _EMAIL_QUOTE.finditer(text):
        start = text.rfind("\n", 0, found.start()) + 1
        if start == judged:
            continue
        row += text.count("\n", max(judged, 0), start)
        judged = start
        end = text.find("\n", found.end())
        end = len(text) if end < 0 else end
        if _heads_quote(text, start, found.end(), end) or fields.mail_block(row):
            below = _QUOTED_BELOW.match(text, min(end + 1, len(text)))
            return None if below else row
    return None


def _heads_quote(text: str, start: int, after: int, end: int) -> bool:
    """Whether the line of `text` from `start` to `end` that has the sender's address
    (`_EMAIL_QUOTE`) up to `after` is an email client's header: an attribution, ending in
    a colon on its line, or on the next one where Gmail wraps it (`Alice <address>
    wrote:`; `Alice <address>`, then `wrote:`). Outlook's block, the line a header field
    (`From: Alice <address>`) in a block of them that is a mail's, is
    `_HeaderFields.mail_block`'s to tell. A name and address in prose (`cc Jane
    <jane@example.com>`, which GitHub hides as `Jane ***@***.***>` in a reply by email) is
    neither."""
    next_end = text.find("\n", end + 1)
    following = text[end + 1 : len(text) if next_end < 0 else next_end]
    if _ENDS_IN_COLON.search(text, after, end):
        return True
    return bool(_ENDS_IN_COLON.search(following)) and following.lstrip()[:1].isalnum()


# What a mail's header block has besides the sender: the date it was sent, under the label a
# mail client gives it (`Sent: Monday, December 7, 2026 1:00 PM`, `发送时间: 2026年12月7日
# 13:00`, Thunderbird's `Date:`: a year or a time of day), or GitHub's subject, which names
# the repository in any language (`Subject: Re: [vllm-project/vllm] ...`). A date under
# another label is the replier's own (`Due: 2026-12-09`, `截止: 2026年12月9日`), no mail's.
_SENT_LABELS = (
    "sent|date|date d'envoi|envoy[ée]e?|gesendet|datum|enviad[oa](?: el| em)?|fecha|inviato"
    "|data|verzonden|skickat|sendt|dato|lähetetty|päivämäärä|päiväys|odesláno|gönderildi"
    "|gönderilen|tarih|elküldve|dátum|отправлено|надіслано|відправлено|дата|wysłano"
    "|发送时间|日期|寄件日期|傳送時間|送信日時|日付|보낸 날짜|날짜"
)
_SENT_FIELD = re.compile(
    rf"[ \t*_]*(?i:{_SENT_LABELS})[ \t*_]*[:\uff1a].*?"
    r"(?<![0-9])(?:(?:19|20)[0-9]{2}|[0-9]{1,2}:[0-5][0-9])(?![0-9])"
)
_GITHUB_SUBJECT = re.compile(r"\[[^\]\s/]+/[^\]\s/]+\]")
_MOST_FIELDS = 8  # the lines of a header block looked at, either side of the sender's


# what a line is as a mail's header (`_HeaderFields`): not read yet, no header field
# (`_HEADER_FIELD`), a field, a field with a mail's date or GitHub's subject
_UNREAD, _NO_FIELD, _FIELD, _DATED = range(4)


class _HeaderFields:
    """A comment's lines read as a mail's header fields, each line once however many
    senders' lines it is near: every line may name the sender, and 64 KB of `From: a
    ***@***.***>` lines, each read again for every sender near it, took 75 ms."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self._kinds = bytearray(len(lines))  # line -> what it is, `_UNREAD` until read

    def mail_block(self, row: int) -> bool:
        """Whether line `row` (the sender's) is a header field of a mail's header block:
        among the header fields around it, lines of their own next to it (Outlook puts
        `Sent:` under `From:`, Thunderbird `Date:` above it), one another than it has a
        date under a mail's label or GitHub's subject (`_SENT_FIELD`, `_GITHUB_SUBJECT`); no
        list of names and addresses in the replier's own words (`Owner: Jane <address>`,
        then `Reviewer: Bob <address>`)."""
        if (self._kinds[row] or self._read(row)) == _NO_FIELD:
            return False
        above = range(row - 1, max(row - 1 - _MOST_FIELDS, -1), -1)
        below = range(row + 1, min(row + 1 + _MOST_FIELDS, len(self._lines)))
        return self._dated_among(above) or self._dated_among(below)

    def _dated_among(self, rows: range) -> bool:
        """Whether one of the header fields `rows` start with, up to the first line that
        is none, has a date or GitHub's subject."""
        kinds = self._kinds
        for row in rows:
            kind = kinds[row] or self._read(row)
            if kind != _FIELD:
                return kind == _DATED
        return False

    def _read(self, row: int) -> int:
        line = self._lines[row]
        if not _HEADER_FIELD.match(line):
            kind = _NO_FIELD
        else:
            kind = _DATED if _SENT_FIELD.match(line) or _GITHUB_SUBJECT.search(line) else _FIELD
        self._kinds[row] = kind
        return kind


# the quote's first line under its header, blank lines aside, is a `>` line
_QUOTED_BELOW = re.compile(r"(?:[ \t]*\n)*[ ]{0,3}>")


def _unbroken(line: str) -> str:
    """The line without a backslash it ends in: the source's Markdown line break (a `\\`
    at a line's end), which GitHub shows as typed where no line of the paragraph follows
    it (the comment's last line, a blank line after it). Its writer broke the line there,
    as on any other line, where the page shows nothing of it (`/notes why\\` is `why`,
    whatever follows it)."""
    shown = line.rstrip()
    return shown[:-1] if shown.endswith("\\") else line


def _expands_too_far(text: str, html_size: int) -> bool:
    return html_size > MAX_EXPANSION * len(text) + _EXPANSION_SLACK


def _table_cells(text: str) -> int:
    """About how many cells the text's tables render to: each table's columns (its
    delimiter row's, when the header above has as many cells) times its rows, up to a
    blank line (another block may end it sooner: an upper bound, as tight as it needs to
    be for a comment built to be slow). Fenced code holds no table. One pass."""
    cells, columns, header = 0, 0, ""
    for line in without_fences(text).split("\n"):  # a fenced line is left empty
        line = line[run_end(_CONTAINER, line) :]  # in a list item or a quote too
        if not line.strip():
            columns, header = 0, ""
        elif columns:
            cells += columns
        elif _DELIMITER_ROW.match(line) and _cells(header) == (n := len(_DASHES.findall(line))):
            columns = n
        else:
            header = line
    return cells


def _cells(row: str) -> int:
    """The cells of a table row as GFM splits it (at `|` not escaped, outer ones aside)."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return len(re.split(r"(?<!\\)\|", inner))


def _as_sanitized(html: str) -> str:
    return _IMAGE.sub("<img", _FOREIGN.sub(r"<\1span", html))


def _render(text: str, sourcepos: bool = False) -> str:
    """`sourcepos`: the blocks cmark-gfm makes carry their source lines, raw HTML's none
    (`_TYPED_QUOTE`)."""
    options = _OPTIONS | (Options.CMARK_OPT_SOURCEPOS if sourcepos else 0)
    return cmarkgfm.markdown_to_html_with_extensions(text, options=options, extensions=_EXTENSIONS)


def _display_math(lines: list[str]) -> set[int]:
    """The lines inside `$$` blocks, which GitHub shows as a formula, not as text. A block
    opens on a line of its own, also behind quote or list markers; a `$$` in a fenced or
    indented code block opens none."""
    inside: set[int] = set()
    start = None
    # behind quote and list markers, code and HTML comments open no formula (blanked,
    # their lines kept)
    bare = "\n".join(line[run_end(_CONTAINER, line) :] for line in lines)
    plain = HTML_COMMENT.sub(lambda m: "\n" * m[0].count("\n"), without_fences(bare))
    for i, line in enumerate(plain.split("\n")):
        if start is None:
            rest = line.rstrip()
            opening = rest.lstrip(" ")  # a paragraph's indent: up to 3 spaces (4: code)
            if len(rest) - len(opening) <= 3 and opening.startswith("$$"):
                if "$$" not in opening[2:]:
                    start = i
        elif "$$" in line:  # what comes before the closing `$$` is in the formula too
            inside.update(range(start + 1, i + 1))
            start = None
    if start is not None:
        inside.update(range(start + 1, len(lines)))
    return inside


def _too_costly(html: str) -> bool:
    """Whether an HTML5 parser would build a tree too deep or too large for its size, as
    far as the tags say (a cheap first look; the walk counts the real tree): elements
    nested past MAX_DEPTH (a start tag opens, `<q/>` too; an end tag closes up to its
    element if one is open, else nothing), or formatting elements left open that the
    parser opens again in every later block (`<b a=1>`... then many paragraphs)."""
    stack: list[str] = []
    open_by_name: dict[str, int] = {}
    formatting = reopened = 0
    for m in _TAG.finditer(html):
        name = m.group(2).lower()
        if name in _VOID:
            continue
        if not m.group(1):
            if name in _FORMATTING:
                formatting += 1
            else:
                reopened += formatting  # the open formatting elements are built again
                if reopened > len(html):
                    return True
            if name in _CLOSES:
                _close_implied(*_CLOSES[name], stack, open_by_name)
            stack.append(name)
            open_by_name[name] = open_by_name.get(name, 0) + 1
            if len(stack) > MAX_DEPTH:
                return True
        elif open_by_name.get(name):
            if name in _FORMATTING and formatting:
                formatting -= 1
            while stack:
                top = stack.pop()
                open_by_name[top] -= 1
                if top == name:
                    break
    return False


def _close_implied(
    kinds: frozenset[str], scope: frozenset[str], stack: list[str], open_by_name: dict[str, int]
) -> None:
    """Pop up to the nearest open element of `kinds` among the top few, unless an element
    of `scope` comes first."""
    for i in range(len(stack) - 1, max(len(stack) - 1 - _IMPLIED_REACH, -1), -1):
        if stack[i] in scope:
            return
        if stack[i] in kinds:
            for top in stack[i:]:
                open_by_name[top] -= 1
            del stack[i:]
            return


def _depth(node: LexborNode, depths: dict[int, int]) -> int:
    """How many ancestors `node` has, from its parent's count (met before it)."""
    parent = node.parent
    depth = 0 if parent is None else depths.get(parent.mem_id, 0) + 1
    if node.tag != _TEXT:
        depths[node.mem_id] = depth
    return depth


def _hidden(element: LexborNode | None, hides: dict[int, bool], typed_quotes: bool) -> bool:
    """Whether the content of `element` is hidden: by it or an ancestor (`_HIDING`, a
    `<details>` without `open`, all but its `<summary>`, or with `typed_quotes` a
    `<blockquote>` typed in HTML: `_TYPED_QUOTE`). `hides` remembers each element's
    answer, so a walk up stops at the first one known (each element is walked once)."""
    if element is None:
        return False
    asked, path = element, []
    while element is not None and element.mem_id not in hides:
        path.append(element)
        element = element.parent
    for node in reversed(path):
        parent = node.parent
        hidden = parent is not None and hides[parent.mem_id]
        if node.tag == "summary" and parent is not None and parent.tag == "details":
            if _first_summary(node):  # a collapsed details shows its (first) summary
                grand = parent.parent
                hidden = grand is not None and hides[grand.mem_id]
        collapsed = node.tag == "details" and "open" not in node.attributes
        typed = typed_quotes and node.tag == "blockquote" and _SOURCE not in node.attributes
        hides[node.mem_id] = hidden or node.tag in _HIDING or collapsed or typed
    return hides[asked.mem_id]


def _ends_in_break(element: LexborNode) -> bool:
    """Whether what `element` shows last is a line break or a block (so the line after it
    is a new one); whitespace, comments and what is not displayed (`<rp><br></rp>`) at
    its end do not count."""
    if element.tag in _NOT_DISPLAYED:
        return False
    if element.tag in _BREAKS:
        return True
    child = element.last_child
    while child is not None:
        if child.tag == _TEXT:
            if (child.text_content or "").strip():
                return False
        elif child.tag not in (_COMMENT, None) and child.tag not in _NOT_DISPLAYED:
            return _ends_in_break(child)
        child = child.prev
    return False


def _shows_nothing(node: LexborNode) -> bool:
    """A comment, a processing instruction (`<?php ?>`: a comment to the browser) or an
    inline element with no text and no image (`<a name="top"></a>`, `<wbr>`)."""
    if node.tag in (_COMMENT, None) or node.is_comment_node or node.tag in _NOT_DISPLAYED:
        return True
    if node.tag in ("img", "input") or node.css_first("img, input") is not None:
        return False
    return not node.text(deep=True).strip()


def _first_summary(summary: LexborNode) -> bool:
    prev = summary.prev
    while prev is not None:
        if prev.tag == "summary":
            return False
        prev = prev.prev
    return True


def _line_starts(node: LexborNode) -> bool:
    """Whether nothing shown precedes `node` on its line: back to a line break, a block
    before it, or the start of its block, through inline elements."""
    while True:
        prev = node.prev
        while prev is not None:
            if prev.tag in _BREAKS:
                return True
            if prev.tag == _TEXT:
                if (prev.text_content or "").strip():
                    return False
            elif _ends_in_break(prev):
                return True  # `<b>x<br></b>`, `<span><div>x</div></span>`: a new line after
            elif not _shows_nothing(prev):
                return False  # an inline element before it on its line
            prev = prev.prev
        parent = node.parent
        if parent is None or parent.tag in _BLOCKS:
            return True  # the start of a block
        node = parent


def _shown_inline(element: LexborNode, out: list[str], hides: dict[int, bool]) -> bool:
    """Add what `element` shows on the current line to `out`; True when the line ends in it
    (a break or a block)."""
    child = element.child
    while child is not None:
        if _takes(child, out, hides):
            return True
        child = child.next
    return False


def _takes(node: LexborNode, out: list[str], hides: dict[int, bool]) -> bool:
    """Add one node's share of the line to `out`; True when the line ends at it."""
    if node.tag == _TEXT:
        out.append(node.text_content or "")
    elif node.tag == "code":  # shown as code, with what it shows of its own
        inner: list[str] = []
        ended = _shown_inline(node, inner, hides)
        if shown := "".join(inner):
            out.append(f"`{shown}`")
        return ended
    elif node.tag in _BREAKS:
        return True
    elif node.tag not in _NO_TEXT and not _unshown(node):
        return _shown_inline(node, out, hides)
    return False


def _unshown(element: LexborNode) -> bool:
    """An inline element whose text is not part of the line: hidden (`<rp>`), or a
    footnote's reference number or back-link as cmark-gfm writes them (a `class` typed in
    raw HTML is stripped by GitHub, so it alone proves nothing)."""
    return _footnote_link(element) or element.tag in _HIDING


def _footnote_link(element: LexborNode) -> bool:
    """cmark-gfm's footnote reference (`<sup><a data-footnote-ref>2</a></sup>`) or back
    link (`<a data-footnote-backref>↩</a>`). The attribute may be typed in raw HTML, so
    what the link shows must be what cmark-gfm writes too: a number, or the arrow."""
    link = element.child if element.tag == "sup" else element
    if link is None or link.tag != "a":
        return False
    attributes, shown = link.attributes, link.text(deep=True)
    if "data-footnote-ref" in attributes:
        return element.tag == "sup" and shown.isascii() and shown.isdigit()
    return "data-footnote-backref" in attributes and shown == "↩"


def _line_after(node: LexborNode, out: list[str], hides: dict[int, bool]) -> None:
    """Add the rest of the line after `node` to `out`: its siblings, and past the end of
    inline parents, up to a line break or a block."""
    while True:
        sibling = node.next
        while sibling is not None:
            if _takes(sibling, out, hides):
                return
            sibling = sibling.next
        parent = node.parent
        if parent is None or parent.tag in _BLOCKS:
            return
        node = parent

"""Where each key and table of a TOML text is, by line (pure).

tomllib gives values, not lines; a problem must name the line of its key (or of the
array element at fault: the strings a value holds, by line, too). This scans
the text as TOML does: a table header (`[weights]`, `[["topic"]]`) or a key (bare,
quoted or dotted) at the start of a line, and values skipped whole, so a multi-line
string or array that holds a `[[topic]]` or `key =` line is never read as one. It
expects text tomllib accepted; on anything else it reads on without failing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")  # what a key is made of unquoted
_SPACE = " \t"
# A string's characters by its quote and whether it is multi-line, matched at once (a
# header's strings are most of it): to its closing quote (a one-line string's line end
# too), a `\` in a "..." string taking the character after it, whatever it is
_BODIES = {
    ('"', False): re.compile(r'(?:[^"\\\n]+|\\[\s\S])*'),
    ('"', True): re.compile(r'(?:[^"\\]+|"(?!"")|\\[\s\S])*'),
    ("'", False): re.compile(r"[^'\n]*"),
    ("'", True): re.compile(r"(?:[^']+|'(?!''))*"),
}
# what a value holds between its strings, comments, brackets and line ends
_IN_VALUE = re.compile(r"[^\"'\n#\[\]{}]+")


@dataclass(frozen=True)
class Entry:
    """One key or table header: its 0-based line and its full key path."""

    line: int
    path: tuple[str, ...]
    array: bool = False  # an `[[array]]` table header
    table: bool = False  # a `[table]` or `[[array]]` header, not a `key = value`


class _Scanner:
    def __init__(self, text: str):
        self.text, self.i, self.line = text, 0, 0
        self.comments: list[int] = []  # where each comment's `#` is
        self.strings: list[tuple[int, int, int]] = []  # each value's string: line, start, end

    def rest_of_line(self) -> None:
        """To the start of the next line, noting a comment on the way."""
        self.skip_space()
        if self.peek() == "#":
            self.comments.append(self.i)
        self.skip_line()

    def peek(self, n: int = 1) -> str:
        return self.text[self.i : self.i + n]

    def skip_space(self) -> None:
        while self.peek() and self.peek() in _SPACE:
            self.i += 1

    def skip_line(self) -> None:
        """To the start of the next line (a comment or junk after a value)."""
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end == -1 else end

    def string(self) -> str:
        """Skip a string of any kind at i; its text (escapes left as written)."""
        quote = self.peek()
        multi = self.peek(3) == quote * 3  # runs to the closing triple quote
        start = self.i = self.i + (3 if multi else 1)
        body = _BODIES[quote, multi].match(self.text, start)
        self.i = body.end() if body else start  # (it always matches: a body may be empty)
        if self.peek() == "\\":  # a `\` last in the text, escaping nothing: the string's
            self.i += 1
        self.line += self.text.count("\n", start, self.i)
        text = self.text[start : self.i]
        if multi:
            self.i += 3
            while self.peek() == quote:  # `""""` closes with a quote inside
                self.i += 1
        elif self.peek() == quote:
            self.i += 1
        return text

    def key(self) -> tuple[str, ...]:
        """A key path at i (`a."b c".d`); empty when there is none."""
        parts: list[str] = []
        while True:
            self.skip_space()
            if self.peek() in ('"', "'"):
                parts.append(self.string())
            elif m := BARE_KEY.match(self.text, self.i):
                parts.append(m[0])
                self.i = m.end()
            else:
                return tuple(parts)
            self.skip_space()
            if self.peek() != ".":
                return tuple(parts)
            self.i += 1

    def value(self) -> None:
        """Skip a value at i: strings, and arrays and inline tables to their closing
        bracket, over as many lines as they take, noting each string on the way."""
        depth = 0
        while self.i < len(self.text):
            c = self.peek()
            if c in ('"', "'"):
                line, start = self.line, self.i
                self.string()  # (left open, it ends past the text's end)
                self.strings.append((line, start, min(self.i, len(self.text))))
                continue
            if c == "\n":
                if depth == 0:
                    return
                self.line += 1
            elif c == "#":
                self.rest_of_line()
                continue
            elif c in "[{":
                depth += 1
            elif c in "]}":
                depth -= 1
            elif m := _IN_VALUE.match(self.text, self.i):  # numbers, commas, spaces
                self.i = m.end()
                continue
            self.i += 1


def scan(text: str) -> list[Entry]:
    """Every key and table header of a TOML text, in order, with its line."""
    return _scanned(text)[0]


def comments(text: str) -> dict[int, int]:
    """Each 0-based line holding a comment -> the column of its `#` (a `#` inside a
    string, `source = "d.txt#1"`, is none)."""
    return scan_with_comments(text)[1]


def scan_with_comments(text: str) -> tuple[list[Entry], dict[int, int]]:
    """`scan` and `comments` of a text, in one scan."""
    entries, s = _scanned(text)
    found = {}
    for at in s.comments:
        start = text.rfind("\n", 0, at) + 1
        found[text.count("\n", 0, at)] = at - start
    return entries, found


@dataclass(frozen=True)
class Layout:
    """A TOML text's keys (as `first_lines` gives them) and the strings its values hold,
    each as written, quotes and all, with the 0-based line it opens on: an array's
    elements, not a quote of one in a comment or inside another string. One scan."""

    keys: dict[str, int]
    strings: list[tuple[int, str]]


def layout(text: str) -> Layout:
    entries, s = _scanned(text)
    return Layout(_first_lines(entries), [(line, text[a:b]) for line, a, b in s.strings])


def _scanned(text: str) -> tuple[list[Entry], _Scanner]:
    s, entries = _Scanner(text), []
    table: tuple[str, ...] = ()
    while s.i < len(text):
        s.skip_space()
        c = s.peek()
        if c == "\n":
            s.i += 1
            s.line += 1
        elif c == "#" or not c:
            s.rest_of_line()
        elif c == "[":
            array = s.peek(2) == "[["
            s.i += 2 if array else 1
            line, table = s.line, s.key()
            entries.append(Entry(line, table, array=array, table=True))
            s.skip_space()
            s.i += 2 if s.peek(2) == "]]" else 1 if s.peek() == "]" else 0
            s.rest_of_line()
        else:
            line, path = s.line, s.key()
            if not path:  # not TOML: read on from the next line
                s.skip_line()
                continue
            entries.append(Entry(line, table + path))
            s.skip_space()
            if s.peek() == "=":
                s.i += 1
                s.value()
            s.rest_of_line()
    return entries, s


def first_lines(text: str) -> dict[str, int]:
    """Each key path, dotted (`weights.path`), and each of its prefixes (`weights`) ->
    the 0-based line it first appears on."""
    return _first_lines(scan(text))


def _first_lines(entries: list[Entry]) -> dict[str, int]:
    lines: dict[str, int] = {}
    for entry in entries:
        for n in range(1, len(entry.path) + 1):
            lines.setdefault(".".join(entry.path[:n]), entry.line)
    return lines

"""What tomllib's error on a TOML text means, said so a curator can fix it (pure).

tomllib says where it stopped, not always why: a date that is none (`2026-13-04`) is a
statement that does not end, a key set twice is named neither with its key nor with the
line that set it first, a forgotten `]` is reported on the next key, and a `，` typed
for `,` leaves an array "unclosed". `note_files.parse_toml` asks these for the problem
it reports.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Collection
from datetime import date

from bot.note_dump import toml_string
from bot.note_terms import ascii_typed_as, describe_character
from bot.toml_lines import BARE_KEY, scan

# year, month and day, between `-` as TOML writes them, or `/`, `.` or 年月日 as other
# locales do (a Chinese one: 2026/11/20, 2026年11月20日)
_DATE_LINE = re.compile(
    r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*"
    r"((\d{4})([-/.]|年)(\d{1,2})(?:\4|月)(\d{1,2})日?)[ \t]*(?:#.*)?"
)


_YEAR_FIRST = re.compile(r"(\d{4})([-/.]|年)(\d{1,2})(?:\2|月)(\d{1,2})日?")


def year_first_date(written: str) -> date | None:
    """The date `written` names year first, between `-`, `/`, `.` or 年月日 (`2026-8-15`,
    `2026/08/15`, `2026年8月15日`), or None: the curator's own date, to tell them back."""
    m = _YEAR_FIRST.fullmatch(written.strip())
    try:
        return None if m is None else date(int(m[1]), int(m[3]), int(m[4]))
    except ValueError:  # 2026-02-30
        return None


def bad_date(line: str) -> tuple[str, str] | None:
    """The key and why, when the line sets a key to what is meant as a date but is none
    (`created = 2026-13-04`, `2026-8-15`, `2026/08/15`), which tomllib reports as a
    statement that does not end."""
    m = _DATE_LINE.fullmatch(line)
    if m is None:  # day or month first (14/08/2026, 14 Aug 2026): tomllib reads the 14
        other = _OTHER_DATE_LINE.fullmatch(line)
        said = None if other is None else date_fix(other[2])
        return None if other is None or said is None else (other[1], said)
    key, written, (year, month, day) = m[1], m[2], (int(m[3]), int(m[5]), int(m[6]))
    try:
        when = date(year, month, day)
    except ValueError as exc:
        return key, f"{written} is not a date ({exc}): write year-month-day, as 2026-08-15"
    if m[4] == "-" and len(m[5]) == 2 and len(m[6]) == 2:
        return None  # a real date: tomllib's error is another
    why = "TOML writes a date with '-'" if m[4] != "-" else "month and day take two digits"
    # the date they wrote, in TOML's form
    return key, f"{written} is not a date ({why}): write year-month-day, as {when.isoformat()}"


# a date as another locale writes it, the year last: 14/08/2026, 14.08.2026, 14 Aug 2026
_OTHER_DATE_LINE = re.compile(
    r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*(\d{1,2}[/.\- ][^#]*?\d{4})[ \t]*(?:#.*)?"
)
_NUMERIC_DATE = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})")
_NAMED_DATE = re.compile(
    r"(?:([A-Za-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?|(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z]+)\.?)"
    r",? (\d{4})"
)
_TOML_DATE = "write it year-month-day, without quotes"


def date_fix(written: str) -> str | None:
    """What to write for a date typed as a locale writes it (`Aug 14 2026`, `14/08/2026`):
    the TOML date when it reads as one date, both when either number may be the day, else
    the form; None for no date's shape (a title typed as `12 Angry Men 2026`), or a month
    by no name of one."""
    told = other_date(written)
    return None if told is None else f"{written} is no TOML date{told[0]}: {_TOML_DATE}, {told[1]}"


def other_date(written: str) -> tuple[str, str] | None:
    """A date written day or month first, or with its month named, told back: why it is
    none (" (day is out of range for month)", or "") and what to write ("as 2026-08-14";
    "as 2026-12-07 if 07 is the day, 2026-07-12 if it is the month"; the form's example
    for no date); None for no date's shape."""
    numeric, named = _NUMERIC_DATE.fullmatch(written), _NAMED_DATE.fullmatch(written)
    if numeric is not None:
        first, second, year = int(numeric[1]), int(numeric[3]), int(numeric[4])
        if 0 < first <= 12 and 0 < second <= 12 and first != second:  # 03/04: either is the day
            day_first, month_first = date(year, second, first), date(year, first, second)
            either = f"{day_first} if {numeric[1]} is the day, {month_first} if it is the month"
            return "", f"as {either}"
        month, day = (second, first) if first > 12 else (first, second)
    elif named is not None and (month := _month(named[1] or named[4])):
        day, year = int(named[2] or named[3]), int(named[5])
    else:
        return None
    try:
        when = date(year, month, day)
    except ValueError as exc:
        return f" ({exc})", "as 2026-08-15"
    return "", f"as {when.isoformat()}"


def _month(name: str) -> int:
    """The month an English name or its abbreviation names (Aug, August, Sept), or 0."""
    name = name.lower()
    found = [
        i
        for i in range(1, 13)
        if len(name) >= 3 and calendar.month_name[i].lower().startswith(name)
    ]
    return found[0] if found else 0


_STRING_START = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=[ \t]*([\"'])")


def ended_early(line: str, error: str) -> tuple[str, str] | None:
    """The key and why, when a one-line string ends before its line does because a quote
    was typed inside it (`summary_en = "the "load-bearing" check"`), which tomllib reports
    as a statement that does not end."""
    stop = re.search(r"after a statement \(at line \d+, column (\d+)\)", error)
    m = _STRING_START.match(line)
    if stop is None or m is None or line.startswith(m[2] * 3, m.end() - 1):  # multi-line
        return None
    quote, read = m[2], line[: int(stop[1]) - 1].rstrip(" \t")
    if not read.endswith(quote) or quote not in line[len(read) :]:  # ended by no quote
        return None
    if quote == '"':
        fix = "write it as \\\" or put the string between ' quotes"
    else:
        fix = 'put the string between " quotes'
    return m[1], f"a {quote} inside the string ends it (column {len(read)}): {fix}"


_KEY_LINE = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=")
_BACKSLASHED = re.compile(r'"((?:[^"\\]|\\.)*\\(?:[^"\\]|\\.)*)"')
_PATH_KEYS = ("paths", "aux_files", "upkeep_files")


def bad_escape(lines: list[str], at: int, error: str, first: int = 1) -> tuple[str, str] | None:
    """The key and what to do when a `\\` in a "..." string on line `at` (1-based) starts
    no escape TOML knows: a path copied from Windows (`vllm\\models\\x.py`) or a regular
    expression in a summary; or a `\\u` with no four hex digits after it, which TOML reads
    as a character's code (`vllm\\utils\\x.py`). tomllib names neither the key nor the fix.
    `first` is the text's first line in its file."""
    if not error.startswith(("Unescaped '\\'", "Invalid hex value")):
        return None
    if (long := _in_long_string(lines, at, error, first)) is not None:
        return long
    key = next((m[1] for ln in reversed(lines[:at]) if (m := _KEY_LINE.match(ln))), None)
    string = _BACKSLASHED.search(lines[at - 1])
    if key is None or string is None:
        return None
    said = f"\"{string[1]}\" holds '\\', which TOML reads as an escape: "
    if key in _PATH_KEYS:
        return key, said + f"a path uses '/': write \"{string[1].replace(chr(92), '/')}\""
    return key, said + "write '\\\\' for a backslash, or put the string between ' quotes"


_COLUMN = re.compile(r"column (\d+)\)")


def _in_long_string(lines: list[str], at: int, error: str, first: int) -> tuple[str, str] | None:
    """`bad_escape`'s key and fix for a `\\` inside a multi-line string (three `"`), which
    may run over lines below its key's: the escape as typed and its column, the string's
    first line when it is another. tomllib's column is past the escape's letter."""
    m = _COLUMN.search(error)
    line = lines[at - 1]
    slash = line.rfind("\\", 0, int(m[1]) - 1) if m else -1
    if slash == -1:
        return None
    _, multi, _ = _left_open([*lines[: at - 1], line[:slash]])
    if multi is None or multi[1] != '"""' or (key := _KEY_OF.match(lines[multi[0]])) is None:
        return None
    typed = line[slash : slash + 2]
    where = "" if multi[0] == at - 1 else f" (line {first + multi[0]})"
    return key[1], (
        f"'{typed}' (column {slash + 1}) is no escape TOML knows: write '\\{typed}' for a"
        f" backslash, or open and close the multi-line string{where} with ''' (a literal"
        " string takes '\\' as typed)"
    )


def set_twice(text: str) -> tuple[str, int, int] | None:
    """The first key set twice (dotted), its 0-based line and that of its first setting.
    Each `[[array]]` header opens a new table: the keys of the one before are forgotten
    (every `[[topic]]` sets its own `id`)."""
    seen: dict[tuple[str, ...], int] = {}
    for entry in scan(text):
        if entry.array:
            n = len(entry.path)
            seen = {path: line for path, line in seen.items() if path[:n] != entry.path}
        if entry.table:
            continue
        if entry.path in seen:
            return ".".join(entry.path), entry.line, seen[entry.path]
        seen[entry.path] = entry.line
    return None


def table_twice(text: str, error: str, first: int) -> tuple[int, str, str] | None:
    """The 0-based line, table and what to do when tomllib refuses a table header for one
    of the same name before it: `[topic]` typed among `[[topic]]` ("Cannot declare
    ('topic',) twice" on it, or "Cannot overwrite a value" on the `[[topic]]` after it),
    or a `[table]` declared twice. `first` is the text's first line in its file."""
    m = re.search(
        r"(?:Cannot declare \(.*\) twice|Cannot overwrite a value) \(at line (\d+)", error
    )
    if m is None:
        return None
    headers = [entry for entry in scan(text) if entry.table]
    stop = next((h for h in headers if h.line == int(m[1]) - 1), None)
    if stop is None:  # stopped at a key (`a = 1` then `[[a]]`): not this
        return None
    # a table inside an `[[array]]` (`[topic.weights]`) is one per element: count from
    # the last element's header
    opened = [
        h.line
        for h in headers
        if h.array
        and h.line < stop.line
        and len(h.path) < len(stop.path)
        and stop.path[: len(h.path)] == h.path
    ]
    start = max(opened, default=-1)
    before = [h for h in headers if h.path == stop.path and start < h.line < stop.line]
    single = next((h for h in before if not h.array), None)
    name = ".".join(stop.path)
    mixed = (
        f"`[{name}]` declares a single table, but the others are `[[{name}]]`, a list:"
        f" write `[[{name}]]`"
    )
    if stop.array:  # a `[[name]]` cannot add to the table a `[name]` above it declared
        return (single.line, name, mixed) if single is not None else None
    if any(h.array for h in before):
        return stop.line, name, mixed
    if single is None:
        return None
    return (
        stop.line,
        name,
        f"`[{name}]` is declared twice (first on line {first + single.line}): merge the two,"
        f" or write each as `[[{name}]]` to make a list",
    )


_KEY_START = re.compile(r"[ \t]*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')[ \t]*[.=]")


def left_open(text: str, error: str) -> tuple[int, str] | None:
    """When tomllib stops at the start of a key line inside an array or inline table
    (`topics = ["a", "b"` with its `]` forgotten: "Unclosed array" or "Invalid value" on
    the NEXT key), the 0-based line where that bracket opened, and the bracket."""
    m = re.search(
        r"(Unclosed array|Unclosed inline table|Invalid value) \(at line (\d+), column (\d+)\)",
        error,
    )
    if m is None:
        return None
    lines, at, column = text.split("\n"), int(m[2]) - 1, int(m[3])
    if at >= len(lines) or not _KEY_START.match(lines[at]):
        return None
    if lines[at][: column - 1].strip(" \t"):  # inside the line, not at its key
        return None
    return _open_bracket(lines[:at])


def _open_bracket(lines: list[str]) -> tuple[int, str] | None:
    """The outermost bracket (`[`, `{`) the lines leave open: its 0-based line, itself."""
    stack = _left_open(lines)[0]
    return stack[0] if stack else None


_Opened = tuple[int, str]  # a 0-based line and what opened there: a bracket, quotes


def _left_open(lines: list[str]) -> tuple[list[_Opened], _Opened | None, _Opened | None]:
    """The brackets (`[`, `{`) the lines leave open, a multi-line string they leave open,
    and the first one-line string that runs past its line's end (taken to end there),
    each with its line (None if none). Comments skipped."""
    stack: list[_Opened] = []
    quote, opened, runs_on = "", 0, None
    for no, line in enumerate(lines):
        i = 0
        while i < len(line):
            c = line[i]
            if quote:
                if line.startswith(quote, i):
                    i, quote = i + len(quote), ""
                    continue
                i += 2 if c == "\\" and quote[0] == '"' else 1
                continue
            if line.startswith(('"""', "'''"), i):
                quote, opened, i = line[i : i + 3], no, i + 3
                continue
            if c in "\"'":
                quote, opened = c, no
            elif c == "#":
                break
            elif c in "[{":
                stack.append((no, c))
            elif c in "]}" and stack:
                stack.pop()
            i += 1
        if len(quote) == 1:
            runs_on, quote = runs_on or (opened, quote), ""
    return stack, ((opened, quote) if quote else None), runs_on


_KEY_OF = re.compile(r"[ \t]*([A-Za-z0-9_-]+)[ \t]*=")
_INVALID_VALUE = re.compile(r"Invalid value \(at line (\d+), column (\d+)\)")
# a comment after a value, as TOML reads it once the value is quoted
_COMMENT_AFTER = re.compile(r"[ \t]+#")


def unquoted(
    text: str, error: str, numbers: Collection[str] = (), dates: Collection[str] = ()
) -> tuple[int, str, str] | None:
    """A value written without its quotes (`verdict = quick`, `topics = [rocm]`, a title
    as typed), `True` or `yes` for `true`, or a PR's `#`, which TOML reads as a comment's
    start: tomllib says "Invalid value". Its 0-based line, its key (the array's, for an
    element on a line of its own) and what to write; None for an array left open, which
    stops at the next key's line (`left_open`). A key in `numbers` or `dates` is told the
    number or the date to write: quoted, it would be a string, which they are not."""
    m = _INVALID_VALUE.search(error)
    if m is None or typed_hint(text, error):  # a Chinese quote, `“deep”`: that is the fix
        return None
    lines, at = text.split("\n"), int(m[1]) - 1
    line = lines[at]  # "at line N": one of the text's
    start = int(m[2]) - 1
    in_array = not _KEY_OF.match(line[:start]) or line[:start].rstrip(" \t").endswith(("[", ","))
    word = re.split(r"[,\]]", line[start:])[0] if in_array else line[start:]
    word = word.rstrip(" \t")
    keys = (k[1] for i in range(at, -1, -1) if (k := _KEY_OF.match(lines[i])))
    key = next(keys, None)  # the array's, above an element on a line of its own
    if not word or key is None:
        return None
    if not key.startswith(("title", "summary")):  # a '#' in a title as typed is its text
        word = _COMMENT_AFTER.split(word, maxsplit=1)[0]  # `verdict = deep  # 精读`
    if word.startswith("#") and word[1:].isdigit():  # `source_pr = #52419`
        fix = f"TOML reads '#' as a comment's start: write the number alone, as {word[1:]}"
    elif key in dates:  # `created = Aug 14 2026`
        return at, key, date_fix(word) or f"{word} is no TOML date: {_TOML_DATE}, as 2026-08-15"
    elif key in numbers:  # `source_pr = PR 52401`
        digits = re.findall(r"[1-9][0-9]*", word)
        fix = "write the number alone, " + (
            f"as {digits[0]}" if len(digits) == 1 else "without quotes"
        )
    elif word.lower() in ("true", "false"):
        fix = f"write {word.lower()}, in lower case"
    elif word.lower() in ("yes", "no", "on", "off"):  # YAML's and INI's booleans
        fix = "TOML's yes and no are true and false"
    else:
        fix = f"text takes quotes: {toml_string(word)}"
    return at, key, f"{word} is no TOML value: {fix}"


# where tomllib stops a string left open: a basic one-line string at its line's end; a
# multi-line one, or a literal one (it seeks the closing `'` past the line), at the end
_ILLEGAL_NEWLINE = re.compile(r"Illegal character '\\n' \(at line (\d+)")
_RAN_TO_THE_END = re.compile(r"(?:Unterminated string|Expected \"'+\") \(at end of document\)")


def unclosed_string(text: str, error: str) -> tuple[int, str, str] | None:
    """A string left open: its 0-based line, its key and what to do (tomllib names where
    it stopped, for a multi-line string the end of the text, far below it)."""
    lines = text.split("\n")
    stop = _ILLEGAL_NEWLINE.search(error)
    if stop is not None:
        at = int(stop[1]) - 1
        m = _STRING_START.match(lines[at]) if at < len(lines) else None
        if m is None:  # in an array, say: tomllib's words
            return None
        return at, m[1], f"string not closed on its line: end it with {m[2]}"
    if not _RAN_TO_THE_END.search(error):
        return None
    _, multi, runs_on = _left_open(lines)
    opened = multi or runs_on
    if opened is None or (key := _KEY_OF.match(lines[opened[0]])) is None:
        return None
    said = "multi-line string not closed" if multi else "string not closed on its line"
    return opened[0], key[1], f"{said}: end it with {opened[1]}"


def typed_hint(text: str, error: str) -> str:
    """A hint when tomllib stops at a character a Chinese input method typed for ASCII
    (`["a"，"b"]` is an "Unclosed array", whose cause the message does not say) or at an
    unusual space or an invisible character, which the curator cannot see, or at a key
    written in another script (`标题 = ...`), where tomllib names no cause; or when it finds
    no `=` after a key (`verdict: "deep"`, `source pr = 1`)."""
    m = re.search(r"line (\d+), column (\d+)", error)
    if m is None:
        return ""
    lines, line, column = text.split("\n"), int(m[1]), int(m[2])
    ch = lines[line - 1][column - 1 : column] if line <= len(lines) else ""
    if ch in ("", " ", "\t"):  # an ASCII control character (ESC, form feed) is unseen too
        return ""
    no_equals = _no_equals(lines[line - 1], column, ch) if "after a key" in error else None
    why = no_equals or _unseen_or_typed(ch, error)
    return f"; it stops at {describe_character(ch)}, {why}" if why else ""


def _unseen_or_typed(ch: str, error: str) -> str | None:
    """Why tomllib stopped at `ch`, when the curator cannot see it or typed it in another
    script; None for any other character."""
    typed, kind = ascii_typed_as(ch), unicodedata.category(ch)
    if typed is None and ch.isalpha() and not ch.isascii():
        if "Invalid statement" in error or "after a key" in error:
            # a key in the curator's language (`标题 = "..."`, `title标题 = "..."`): tomllib
            # says "Invalid statement" or "Expected '=' after a key", naming no cause
            return "a key's name is ASCII letters, digits, '_' and '-': name the field in English"
        return None
    if typed is not None:
        return f"typed by a Chinese input method: type {typed!r}"
    if kind == "Zs":  # a no-break space pasted from a page, an input method's U+3000
        return "which looks like a space: type a plain one"
    if kind in ("Cc", "Cf", "Zl", "Zp"):  # a zero-width space pasted with the text
        return "an invisible character: delete it"
    return None


def _no_equals(line: str, column: int, ch: str) -> str | None:
    """Why tomllib found no `=` after the key that ends before `column`: a colon for it
    (YAML's way, or a Chinese input method's `：`, whose ASCII would not do either), a
    space inside an English field's name (`source pr`), or no `=` on the line at all.
    None for another character: `_unseen_or_typed` names it."""
    key, rest = line[: column - 1].strip(), line[column - 1 :]
    if ":" in (ch, ascii_typed_as(ch)):
        if rest[1:].lstrip(" \t").startswith("="):  # `title := "..."`: '=' is there
            return "delete it"
        return "TOML joins a field and its value with '=': type '='"
    if not ch.isascii():
        return None
    if "=" not in rest and "＝" not in rest:
        return f"TOML writes field = value: is '=' missing after {key!r}?"
    # `source pr = 1` (a name in Chinese is told to be English); an '=' after words no
    # name is made of (`title zh "a = b"`, `verdict deep  # x=1`) is a value's or a comment's
    words = f"{key} {re.split('[=＝]', rest)[0]}".split()
    if ch.isalnum() and all(BARE_KEY.fullmatch(word) for word in words):
        return f"a field's name has no spaces: write {'_'.join(words)!r}"
    return None

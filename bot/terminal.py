"""Text for a terminal or a log line (pure): what the CLI prints, or the log says, that a
PR's author, a commenter or a webhook's sender wrote.

A PR title, a changed file's path, a `/notes wrong` reason or a description's words are
anyone's to write, and an escape sequence in them (ESC, BEL, a bidi override, a line
break) would move the cursor, plant a hyperlink or rewrite the lines above when a
curator or the operator prints them. In a log line (`shown`), a line break starts a
line of the sender's own that no reader tells from the bot's.

`argument` shows such a word where a command to run is shown (a failed delivery's id after
`review-notes retry`): pasted into a shell, it is that one argument, never an option.

`count_of` says a number with its noun, as each line does: "put back 1 time", not "1 times";
a notes comment and a web page count with it too.
"""

from __future__ import annotations

import shlex
import unicodedata


def inert(text: str) -> str:
    """The text with each control or format character (and line or paragraph separator)
    shown escaped, as `\\x1b`; spaces stay."""
    if text.isprintable():
        return text
    return "".join(
        ch
        if ch == " " or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp")
        else ascii(ch)[1:-1]
        for ch in text
    )


def argument(word: str) -> str:
    """`word` as a command line passes it to a command as one argument: quoted for a shell
    (`x$(touch pwned)` ran what it held), after `--` when it starts with a dash, which
    argparse read as an option (`--all`). A GUID stays bare."""
    quoted = shlex.quote(word)
    return f"-- {quoted}" if word.startswith("-") else quoted


def shown(value: object, limit: int = 100) -> str:
    """What a sender chose, as a log line or an answer carries it: a delivery's header
    (the signature covers the body only, so anyone replaying a signed body chooses its
    X-GitHub-Event, up to the server's header limit), a payload's action, login or
    repository name. Its first `limit` characters, `inert` (the plain log writes a line
    break as it is; the JSON one leaves NEL and U+2028 raw, line breaks to
    str.splitlines). "(none)" for None; another value (a number or an object where text
    belongs) by its type: its repr could be the whole body."""
    if value is None:
        return "(none)"
    if not isinstance(value, str):
        return f"({type(value).__name__})"
    return inert(value[:limit]) + ("..." if len(value) > limit else "")


def count_of(n: int, one: str, many: str | None = None) -> str:
    """`n` and its noun: `one` for 1, else `many` (by default `one` and an "s")."""
    return f"{n} {one if n == 1 else many or one + 's'}"

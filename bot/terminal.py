"""Text for a terminal (pure): what the CLI prints that a PR's author or a commenter wrote.

A PR title, a changed file's path, a `/notes wrong` reason or a description's words are
anyone's to write, and an escape sequence in them (ESC, BEL, a bidi override, a line
break) would move the cursor, plant a hyperlink or rewrite the lines above when a
curator or the operator prints them.
"""

from __future__ import annotations

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

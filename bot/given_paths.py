"""Changed-file paths as a curator gives them to `review-notes match` (pure): git's quoted
paths decoded, and the paths GitHub never lists (so no note's glob meets them) named."""

from __future__ import annotations

import re

# What git's quote_c_style writes (core.quotePath, the default): the path in double quotes,
# \" \\ and \a \b \f \n \r \t \v, and any other byte below 0x20, from 0x7f, as three octal
# digits (UTF-8's bytes each alone). Read back as git's unquote_c_style reads it.
_QUOTED = re.compile(r'"((?:[^"\\]|\\(?:[abfnrtv"\\]|[0-3][0-7]{2}))*)"')
_ESCAPE = re.compile(r'\\(?:([abfnrtv"\\])|([0-3][0-7]{2}))')
_CONTROLS = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def unquote_git_path(path: str) -> str:
    """`path` as git names the file: a quoted one decoded (its octal bytes read as UTF-8,
    as GitHub names files), any other as it is. A file's own name never starts and ends
    with a quote in git's listing: git quotes such a name."""
    quoted = _QUOTED.fullmatch(path)
    if quoted is None:
        return path
    out = bytearray()
    at = 0
    inner = quoted.group(1)
    for escape in _ESCAPE.finditer(inner):
        out += inner[at : escape.start()].encode("utf-8")  # core.quotePath=false: as is
        named, octal = escape.groups()
        out.append(_CONTROLS[named] if named else int(octal, 8))
        at = escape.end()
    out += inner[at:].encode("utf-8")
    return out.decode("utf-8", errors="replace")  # no file GitHub lists is other bytes

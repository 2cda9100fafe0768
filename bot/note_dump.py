"""Writing a note file (pure): the header's fields as TOML between `+++` lines, known
fields in a fixed order, then the guidance; `note_files` reads it back, and
parse_note(dump_note(n)) == n.
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotation only: notes imports note_terms, which imports this
    from bot.notes import Note

FENCE = "+++"

FIELD_ORDER = (
    "id",
    "formerly",
    "retired",
    "repo",
    "source_pr",
    "read_with",
    "issues",
    "verdict",
    "topics",
    "keywords",
    "aspects",
    "paths",
    "title_zh",
    "title_en",
    "summary_en",
    "created",
    "updated",
    "source",
)
_ESCAPES = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPES |= {'"': '\\"', "\\": "\\\\"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')
_LINE_WIDTH = 100


def toml_string(value: str) -> str:
    """A TOML basic string; non-ASCII text stays readable."""
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m[0], f"\\u{ord(m[0]):04x}"), value) + '"'


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, tuple | list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return toml_string(str(value))


def _toml_line(key: str, value: Any) -> str:
    line = f"{key} = {toml_value(value)}"
    if isinstance(value, tuple | list) and len(value) > 1 and len(line) > _LINE_WIDTH:
        # One element a line: easier to edit and to diff, and errors point at the element.
        return "\n".join([f"{key} = ["] + [f"  {toml_value(v)}," for v in value] + ["]"])
    return line


def field_line(key: str, value: Any) -> str:
    """One header field as `dump_fields` writes it (a long array over several lines)."""
    return _toml_line(key, value)


def dump_fields(fields: dict[str, Any], guidance: str) -> str:
    """Note file text from header fields (known ones in order, then any others) and a body."""
    keys = [k for k in FIELD_ORDER if k in fields] + sorted(set(fields) - set(FIELD_ORDER))
    out = [FENCE]
    for key in keys:
        value = fields[key]
        if value is None or value is False or value == () or value == [] or value == "":
            continue  # unset, or the default (`retired = false`)
        out.append(_toml_line(key, value))
    out.append(FENCE)
    return "\n".join(out) + "\n" + guidance + "\n"


def dump_note(note: Note) -> str:
    """Serialise a note to its file text; parse_note(dump_note(n)) == n."""
    return dump_fields({k: getattr(note, k) for k in FIELD_ORDER}, note.guidance)

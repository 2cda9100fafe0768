"""What a PR's diff shows beside its file names (pure): the code names its changed
lines name, and the files it only moves or changes in their imports."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.terms import is_code_name

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
MAX_CODE_NAMES = 20_000  # a 3,000-file PR still costs a bounded set


def code_names_in(patches: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Identifiers with an underscore or an inner capital (`deep_gemm_warmup`,
    `KVConnectorStats`) on the added and removed lines of unified diffs, each with
    the files that name it: what the PR's code changes name, not the lines around."""
    names: dict[str, dict[str, None]] = {}
    for path, patch in patches:
        for line in patch.splitlines():
            if line[:1] not in ("+", "-") or line.startswith(("+++", "---")):
                continue
            for name in _IDENTIFIER.findall(line):
                if name in names:
                    names[name][path] = None
                elif len(names) < MAX_CODE_NAMES and is_code_name(name):
                    names[name] = {path: None}
    return {name: tuple(files) for name, files in sorted(names.items())}


@dataclass(frozen=True)
class FileChange:
    """One entry of GitHub's list of a PR's files (`GET /pulls/{n}/files`)."""

    filename: str
    status: str = "modified"  # added, removed, modified, renamed, copied, changed
    previous_filename: str | None = None  # a rename's old path, or a copy's source
    changes: int = 0  # lines added + removed
    patch: str | None = None  # None: binary, or too large for GitHub to show


# An import statement's first line: Python's `import x` / `from x import y`, C's `#include`.
_IMPORT = re.compile(r"\s*(?:import\s+[\w.]|from\s+[\w.]+\s+import\b|#\s*include\b)")


def incidental_files(changes: Iterable[FileChange]) -> frozenset[str]:
    """The files a PR changes only by moving them or by editing their import lines
    (both paths of a move): a module moved, and every file importing it follows. They
    show where code went, not a change to what it does. A copy's source is not one: it
    stays (as list_files reads it), changed or not by an entry of its own."""
    out: set[str] = set()
    for f in changes:
        renamed = f.status == "renamed"
        if (renamed and not f.changes) or (f.patch and imports_only(f.patch)):
            out.add(f.filename)
            if renamed and f.previous_filename:
                out.add(f.previous_filename)
    return frozenset(out)


def imports_only(patch: str) -> bool:
    """Every added or removed line of this unified diff (blank ones aside) is part of
    an import statement, a parenthesised `from x import (...)` included."""
    changed = False
    in_import = False  # inside `from x import (` ... `)`, as the hunk's lines show it
    for line in patch.splitlines():
        if line.startswith("@@"):
            in_import = False  # a new hunk starts somewhere else in the file
            continue
        mark, text = line[:1], line[1:]
        if mark not in (" ", "+", "-"):
            continue  # "\ No newline at end of file"
        opens = bool(_IMPORT.match(text))
        part = in_import or opens
        if opens and "(" in text and ")" not in text:
            in_import = True
        elif in_import and ")" in text:
            in_import = False
        if mark != " " and text.strip():
            if not part:
                return False
            changed = True
    return changed

"""Changed-file paths as a curator gives them to `review-notes match` (pure): git's quoted
paths decoded, and the paths GitHub never lists (which the notes' globs, written for
GitHub's, are not meant to meet) named."""

from __future__ import annotations

import re

# What git's quote_c_style writes (core.quotePath, the default): the path in double quotes,
# \" \\ and \a \b \f \n \r \t \v, and any other byte below 0x20, from 0x7f, as three octal
# digits (UTF-8's bytes each alone). Read back as git's unquote_c_style reads it.
_QUOTED = re.compile(r'"((?:[^"\\]|\\(?:[abfnrtv"\\]|[0-3][0-7]{2}))*)"')
_ESCAPE = re.compile(r'\\(?:([abfnrtv"\\])|([0-3][0-7]{2}))')
_CONTROLS = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def _unquoted(inner: str) -> str:
    """What git's quotes hold (`inner`, quotes off) as the file's name: its octal bytes read
    as UTF-8, as GitHub names files."""
    out = bytearray()
    at = 0
    for escape in _ESCAPE.finditer(inner):
        out += inner[at : escape.start()].encode("utf-8")  # core.quotePath=false: as is
        named, octal = escape.groups()
        out.append(_CONTROLS[named] if named else int(octal, 8))
        at = escape.end()
    out += inner[at:].encode("utf-8")
    return out.decode("utf-8", errors="replace")  # no file GitHub lists is other bytes


def given_path(token: str) -> tuple[str, str | None]:
    """The repository path a --file or --files-from entry names, and why GitHub would list
    no such path (None when it would). A path git quotes is decoded, and none of git's
    paths needs a warning (a `\\` in one is the file's own); a leading ./ (`find .`, the
    shell's completion) is dropped, as GitHub names the file without it."""
    # git quotes a name starting and ending with a quote itself: this is no file's own name
    if quoted := _QUOTED.fullmatch(token):
        return _unquoted(quoted.group(1)), None
    path = token.removeprefix("./")
    return path, path_problem(path)


# C:\vllm\x.py, C:/vllm/x.py (cmd, PowerShell, Windows' Explorer) and \\server\share\x.py
_WINDOWS_ROOT = re.compile(r"[A-Za-z]:[\\/]|\\\\")

_FIX = "name it from the repository root (vllm/x.py), as `git diff --name-only` writes it"


def path_problem(path: str) -> str | None:
    """Why `path` is no path GitHub lists (none absolute, none with '\\' or a '.' part, no
    directory), said with the fix; None when it may be one. The notes' globs are matched
    against GitHub's paths, so such a path matches none of them, or others than the file
    would (vllm/v1/../core/x.py is under vllm/v1), in silence."""
    parts = re.split(r"[\\/]", path)
    if not path:
        return "an empty path matches no note"
    if _QUOTED.fullmatch(path):  # a script that wrote git's listing into JSON
        return (
            "a path in git's quotes is no path GitHub lists:"
            " `git diff -z --name-only` lists it unquoted"
        )
    if "://" in path:  # the file's address copied from the browser
        return f"a URL is no path GitHub lists: {_FIX}"
    if path.startswith("/") or _WINDOWS_ROOT.match(path):
        return f"an absolute path matches no note: {_FIX}"
    if ".." in parts:
        return f"a path through '..' is no path GitHub lists: {_FIX}"
    if "\\" in path:  # PowerShell's completion writes .\vllm\x.py
        return f"a path with '\\' between its names is no path GitHub lists: {_FIX}"
    if "." in parts or "" in parts[:-1]:
        return f"a path with a '.' or an empty name in it is no path GitHub lists: {_FIX}"
    if path.endswith("/"):
        return (
            "a directory is no changed file GitHub lists: name the files in it"
            " (`git diff --name-only -- DIR` lists them)"
        )
    return None

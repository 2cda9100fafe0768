"""Changed-file paths as a curator gives them to `review-notes match` (pure): a
--files-from listing read (`git diff` --name-only, --name-status or -z; gh's JSON and
other commands' output refused), git's quoted paths decoded, and the paths GitHub never
lists (which the notes' globs, written for GitHub's, are not meant to meet) named."""

from __future__ import annotations

import json
import re

from bot.terminal import inert

# A path, and why GitHub would list no such path (None when it may be one)
Given = tuple[str, str | None]

# What git's quote_c_style writes (core.quotePath, the default): the path in double quotes,
# \" \\ and \a \b \f \n \r \t \v, and any other byte below 0x20, from 0x7f, as three octal
# digits (UTF-8's bytes each alone). Read back as git's unquote_c_style reads it.
_QUOTED = re.compile(r'"((?:[^"\\]|\\(?:[abfnrtv"\\]|[0-3][0-7]{2}))*)"')
_ESCAPE = re.compile(r'\\(?:([abfnrtv"\\])|([0-3][0-7]{2}))')
_CONTROLS = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, '"': 34, "\\": 92}


def _c_unquoted(inner: str) -> str:
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


def given_path(token: str) -> Given:
    """The repository path a --file or --files-from entry names, and why GitHub would list
    no such path (None when it would). A path git quotes is decoded, and none of git's
    paths needs a warning (a `\\` in one is the file's own); a leading ./ (`find .`, the
    shell's completion) is dropped, as GitHub names the file without it."""
    # git quotes a name starting and ending with a quote itself: this is no file's own name
    if quoted := _QUOTED.fullmatch(token):
        return _c_unquoted(quoted.group(1)), None
    path = token.removeprefix("./")
    return path, path_problem(path)


def given_file_flag(token: str) -> Given:
    """What a --file names, as given_path reads it, and also why paths joined by commas
    (`--file a.py,b.py`, as other tools' flags take a list; `a.py,` copied from one) are
    no path GitHub lists: each part names a file (a `/` or a `.` in it). A file's own name
    may hold a comma, and git's quoted one is its own: matched as given either way."""
    path, problem = given_path(token)
    parts = [part for part in (p.strip() for p in path.split(",")) if part]
    joined = "," in path and bool(parts) and all("/" in p or "." in p for p in parts)
    if problem is None and joined and not _QUOTED.fullmatch(token):
        problem = "a ',' in a path: one path a --file, no commas (--file a.py --file b.py)"
    return path, problem


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
    if "\n" in path:  # --file "$(git diff --name-only main...)": all of them in one
        return "a line break in a path: one path a --file; --files-from reads a list (-: stdin)"
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


def _lines(text: str) -> list[str]:
    """Lines ended by LF (or CRLF) only: str.splitlines() also cuts at U+2028, U+2029 and
    NEL, which a JSON string or a file name may hold."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def _as_lf(text: str) -> str:
    """Line ends made LF, as open() reads them (a list with CR ends is still lines)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# A line of `git diff --name-status`: a status (M, A, D, T, R100, C75...), a tab, the path;
# a rename or copy names the old path, a tab, the new one. Git quotes a path holding a tab,
# so a tab after a status letter is that listing's, not part of a file's name.
_STATUS = re.compile(r"[ADMTUXB]|[RC][0-9]{0,3}")
_NAME_STATUS = re.compile(rf"({_STATUS.pattern})\t(.+)")


def _listed(line: str) -> list[str]:
    """The paths one --files-from line names: the line, or what follows a --name-status
    status (both paths of a rename, as GitHub's listing gives the bot both; a copy's new
    path alone)."""
    status = _NAME_STATUS.fullmatch(line)
    return _changed(status.group(1), status.group(2).split("\t")) if status else [line]


def _changed(status: str, paths: list[str]) -> list[str]:
    """The paths a status line's change touches: a copy (C75: git's -C) leaves its source
    as it was, so the PR changes the new path only; a rename moves the file away from the
    old one, which GitHub lists with the new."""
    return paths[-1:] if status.startswith("C") else paths


def _listed_z(fields: list[str], path: str) -> list[list[str]]:
    """The changed files `git diff -z` fields name: each field a path (--name-only), or a
    status and then its path, a rename's or copy's two (--name-status)."""
    if not _STATUS.fullmatch(fields[0]):  # --name-only (a root file named M would be misread)
        return [[f] for f in fields]
    entries: list[list[str]] = []
    at = 0
    while at < len(fields):
        status = fields[at]
        count = 2 if status.startswith(("R", "C")) else 1
        paths = fields[at + 1 : at + 1 + count]
        if not _STATUS.fullmatch(status) or len(paths) < count:
            raise ValueError(
                f"{path}: field {at + 1} ({inert(status)!r}): not `git diff -z --name-status`"
                " output: a status, then its path, a rename's two"
            )
        entries.append(_changed(status, paths))
        at += 1 + count
    return entries


def listed_files(text: str, path: str) -> list[list[Given]]:
    """The changed files a --files-from list (the text of file `path`, its line ends as
    they are) names, each as its paths (a rename's two) with what given_path says of each.
    Another command's output than a listing of paths is refused (ValueError)."""
    if "\0" in text:  # `git diff -z`: a NUL after each field, no newline; git's own paths
        fields = text.removesuffix("\0").split("\0")  # (a \r in one is a file name's)
        return [[(p, None) for p in paths] for paths in _listed_z(fields, path)]
    if _is_json(text):  # `gh pr view N --json files > files.json`
        raise ValueError(
            f"{path}: JSON, not one path a line: `gh pr view N --json files --jq"
            " '.files[].path'` lists the paths (or give gh's JSON to --batch)"
        )
    # a mark on a later line too: `cat a.txt b.txt` puts b's there
    lines = [ln.removeprefix("\ufeff") for ln in _lines(_as_lf(text))]
    if other := _other_listing(lines):
        raise ValueError(f"{path}: {other}")
    return [[given_path(p) for p in _listed(ln.strip())] for ln in lines if ln.strip()]


# `git show` and `git log` start each commit so (--name-only: its paths after its message)
_COMMIT = re.compile(r"commit [0-9a-f]{40}(?: .*)?")
# `git status --short` and --porcelain: two status columns (staged, work tree), a space
_STATUS_SHORT = re.compile(r"[ MTADRCU?!]{2} \S.*")


# `git diff`, `gh pr diff`: a patch; `git diff --stat`: its summary line last
_DIFF = re.compile(r"diff --git .*")
_STAT = re.compile(r" ?[0-9]+ files? changed(?:, .*)?")


def _other_listing(lines: list[str]) -> str | None:
    """Which other git command's output `lines` are, with the one listing the paths only;
    None for a list of paths. Read as paths, its commit headers and messages would count
    as changed files, its status letters would stay on each path."""
    if any(_DIFF.fullmatch(ln) for ln in lines):
        return "a diff, not one path a line: `git diff --name-only` lists the paths it changes"
    if any(_STAT.fullmatch(ln) for ln in lines):
        return "`git diff --stat` output, not one path a line: `git diff --name-only` lists them"
    if any(_COMMIT.fullmatch(ln) for ln in lines):
        return (
            "`git show` or `git log` output, not one path a line: `git show --name-only"
            " --format= REV` lists a commit's paths, `git diff --name-only main...` a branch's"
        )
    shown = [ln for ln in lines if ln.strip()]
    if shown and all(_STATUS_SHORT.fullmatch(ln) for ln in shown):  # a name could, not all
        return (
            "`git status --short` output, not one path a line: `git diff --name-only HEAD`"
            " lists the paths changed since the last commit (a new file once added)"
        )
    return None


def _is_json(text: str) -> bool:
    """Whether `text` is a JSON object or array (no list of paths is one; a file may be
    named 2024 or null)."""
    if not text.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True

"""Path globs for changed files, compiled to regular expressions (pure).

Semantics follow CODEOWNERS, which vLLM curators already know:
- `*` matches within one path segment, `?` one character, `[abc]` a class;
- `**` matches any number of segments (`vllm/**/cuda_graph.py`); glued to other characters
  (`fused_moe**`) it is any run of characters, `/` too, where CODEOWNERS reads it as `*`
  (`notes check` warns of it: bot.notes_lint.glued_double_stars);
- a pattern without `/` matches the file name at any depth (`*.cu`); a leading `/`
  anchors it at the repository root (`/setup.py`, not `tools/setup.py`);
- a pattern naming a directory (`vllm/v1/core` or `vllm/v1/core/`) matches everything under it;
  one ending in `/` names directories only (`cmake/` is no file named `cmake`).
"""

from __future__ import annotations

import re
from functools import lru_cache

_GLOB_CHARS = set("*?[")
_LITERAL = re.compile(r"[^*?\[\]]+")  # what the translation copies as it is


class GlobError(ValueError):
    """A path pattern that cannot be compiled; the message says why."""


# The control characters TOML's escapes in a "..." string make, by the letter after `\`
_ESCAPED = {"\b": "b", "\t": "t", "\n": "n", "\f": "f", "\r": "r"}
_NAMES = {"\t": "a tab", "\n": "a line break", "\r": "a line break", "\b": "a backspace"}
# What an unclosed '[' is told: a class is what it starts; the character itself is a class
_OPEN_CLASS = (
    "'[' starts a class of characters, as in '[abc]': close it with ']',"
    " or write '[[]' for a '[' in a file's name"
)


def _windows_path(pattern: str) -> str | None:
    r"""The path with '/', when `pattern` reads as one copied from Windows whose `\` started
    TOML escapes (`vllm\tests\foo.py` is read `vllm<tab>ests<form feed>oo.py`): no `/`,
    and each control character one an escape makes, with a name after it."""
    controls = [i for i, c in enumerate(pattern) if c < " " or c == "\x7f"]
    if "/" in pattern or any(pattern[i] not in _ESCAPED for i in controls):
        return None
    if controls[-1] == len(pattern) - 1:  # `x.py<tab>`: pasted with the path, no escape
        return None
    return "".join(f"/{_ESCAPED[c]}" if c in _ESCAPED else c for c in pattern)


def _control_said(ch: str, pattern: str) -> str:
    """What a control character in a pattern is told: the path with '/' when it was one
    copied from Windows (`_windows_path`); else a tab or line break pasted with the path,
    or another one typed as an escape."""
    path = _windows_path(pattern)
    if path is not None:
        name = _NAMES.get(ch, "a form feed")
        return (
            f"holds {name} (U+{ord(ch):04X}), which is what '\\{_ESCAPED[ch]}' in a \"...\""
            f" string is: a path uses '/': write {path!r}"
        )
    if ch == "\t":
        return "holds a tab (U+0009), which no file's path holds: delete it"
    if ch in "\n\r":
        return f"holds a line break (U+{ord(ch):04X}): write one path per string"
    return f"holds U+{ord(ch):04X}, a control character no file's path holds: delete it"


def glob_to_regex(pattern: str) -> str:
    """Translate one path glob to an anchored regular expression source."""
    if not pattern or not pattern.strip():
        raise GlobError("empty pattern: delete it")
    if "\\" in pattern:
        said = "use '/' as the path separator, not '\\'"
        # a path copied from Windows (each separator doubled in a '...' string), told only
        # when the path with '/' is accepted: `.\x.py` is refused for its '.', `\*` escapes
        slashed = re.sub(r"\\+", "/", pattern)
        try:
            glob_to_regex(slashed)
        except GlobError:
            raise GlobError(said) from None
        raise GlobError(f"{said}: write {slashed!r}")
    control = next((c for c in pattern if c < " " or c == "\x7f"), None)
    if control is not None:  # a tab is legal in a TOML string: the path would match nothing
        raise GlobError(_control_said(control, pattern))
    if pattern != pattern.strip():
        raise GlobError(f"leading or trailing whitespace: write {pattern.strip()!r}")
    if pattern.startswith("!"):
        raise GlobError("negation ('!') is not supported; list the paths that should match")
    pat = pattern.lstrip("/")
    if not pat:
        raise GlobError("pattern matches nothing but '/'")
    if "://" in pattern:  # the file's address copied from the browser
        raise GlobError("a URL, not a path: write the file's path from the repository's root")
    if {".", ".."} & set(pat.split("/")):  # what a shell's completion gives: ./vllm/...
        raise GlobError("GitHub's paths have no '.' or '..' parts: write it from the root")
    if "//" in pattern:  # matches no path, which has no empty part
        raise GlobError("GitHub's paths have no empty parts: write one '/' between names")
    directory = pat.endswith("/")
    pat = pat.rstrip("/")
    shift = len(pattern) - len(pattern.lstrip("/"))  # so positions count in `pattern`
    if "/" not in pat and not pattern.startswith("/"):
        pat = "**/" + pat
        shift -= 3
    has_glob = any(ch in _GLOB_CHARS for ch in pattern)
    covers_below = directory or not has_glob  # `(?:/.*)?` follows: it may need a segment
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if pat.startswith("**/", i):
            # before a last segment alone, all the directories are taken at once (`*+`):
            # giving them back one by one costs segments squared on a deep path
            rest = pat[i + 3 :]  # (a `**` in it crosses directories: it needs them back)
            last = "/" not in rest and "**" not in rest and not covers_below
            out.append("(?:[^/]+/)*+" if last else "(?:[^/]+/)*")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pat.find("]", i + 2)
            if end == -1:
                raise GlobError(f"unclosed '[' at position {i + 1 + shift}: {_OPEN_CLASS}")
            body = pat[i + 1 : end]
            negated = body[0] in "!^"
            # `[`, `&`, `~`, `|` are literal in a glob's class; escaped, `re` reads no nested
            # set or set operation (`[[]`, `[&&]`), which it warns a later Python will
            body = re.sub(r"[\[&~|]", r"\\\g<0>", body[1:] if negated else body)
            if negated:  # a negated class still never crosses a path separator
                body = "^/" + body
            out.append("[" + body + "]")
            i = end + 1
        elif c == "]":
            raise GlobError(
                f"unmatched ']' at position {i + 1 + shift}: write '[]]' for a ']' in a file's name"
            )
        else:  # the literal run from here at once (a character at a time cost a long glob)
            run = _LITERAL.match(pat, i)
            end = run.end() if run else i + 1  # (c starts one)
            out.append(re.escape(pat[i:end]))
            i = end
    source = "".join(out)
    # A pattern ending in '/' names directories: what lies below one, never a file of
    # that name (`disaggregated*/` is no `disaggregated_serving.py`). A literal path may
    # name a file or a directory: itself, and what lies below it.
    if directory:
        source += "/.*"
    elif covers_below:
        source += "(?:/.*)?"
    return source


@lru_cache(maxsize=4096)
def compile_glob(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(r"\A(?:" + glob_to_regex(pattern) + r")\Z")
    except re.error as exc:  # e.g. a bad range inside [...]
        raise GlobError(str(exc)) from exc


def glob_matches(pattern: str, path: str) -> bool:
    return compile_glob(pattern).match(path) is not None

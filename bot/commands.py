"""Slash commands in PR comments (pure: comment text in, commands out).

A command is a line that starts with the command word (`/notes` by default),
followed by a sub-command and its arguments:

    /notes                    -> refresh
    /notes why
    /notes topic cuda-graphs
    /notes search prefix cache
    /notes wrong 2 only renames the flag   (note 2 of the comment is not relevant here)
    /notes restore

Only lines a reader sees as plain text count: lines inside fenced or indented
code, inline code, `<pre>`/`<code>` elements, HTML comments or `>` quotes are
ignored, so quoting or documenting a command never runs it. A command on the line
right after a quote runs, although GitHub shows that line inside the quote (a lazy
continuation): the author typed it there, under what they quoted. `/notesfoo`,
`/ci run` and `/lgtm` are other bots' business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bot.config_files import read_toml, validate
from bot.library import ROOT
from bot.markdown_text import (
    INDENTED,
    backtick_runs,
    fence_closed,
    fence_opened,
    paragraph_code_spans,
)

DEFAULT_COMMANDS_FILE = ROOT / "config" / "commands.toml"
WORD_PATTERN = r"^/[A-Za-z][A-Za-z0-9_-]{0,31}$"


class CommandConfig(BaseModel):
    """config/commands.toml: the command word, per-comment caps, flood control."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str = Field(default="/notes", pattern=WORD_PATTERN)
    max_commands: int = Field(default=5, ge=1, le=50)
    max_arg_chars: int = Field(default=100, ge=10, le=1000)
    max_results: int = Field(default=10, ge=1, le=50)
    min_update_interval_s: float = Field(default=5.0, ge=0)
    reply_burst: int = Field(default=5, ge=1)
    reply_refill_s: float = Field(default=30.0, gt=0)


def load_command_config(path: Path = DEFAULT_COMMANDS_FILE) -> CommandConfig:
    """Read config/commands.toml; a bad file raises ValueError naming the file and field."""
    return validate(CommandConfig, read_toml(path), path)


class Kind(StrEnum):
    REFRESH = "refresh"
    WHY = "why"
    TOPIC = "topic"
    SEARCH = "search"
    OFF = "off"
    ON = "on"
    WRONG = "wrong"  # a note of the comment is not relevant to this PR: hide it, record why
    RESTORE = "restore"  # show the notes hidden with `wrong` again
    HELP = "help"
    UNKNOWN = "unknown"

    @property
    def updates_sticky(self) -> bool:
        """Answered by (re)writing the sticky comment rather than by a reply."""
        return self in (Kind.REFRESH, Kind.WHY, Kind.OFF, Kind.ON, Kind.WRONG, Kind.RESTORE)

    @property
    def replies(self) -> bool:
        """Answered by a new reply comment."""
        return self in (Kind.TOPIC, Kind.SEARCH, Kind.HELP, Kind.UNKNOWN)


_SUBCOMMANDS = {k.value: k for k in Kind if k is not Kind.UNKNOWN}


@dataclass(frozen=True)
class Command:
    """One parsed command. For UNKNOWN, args[0] is the sub-command as typed."""

    kind: Kind
    args: tuple[str, ...] = ()
    line: str = ""  # the source line, stripped and capped

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """Identity for de-duplication and edit diffing: case does not matter."""
        return (self.kind.value, tuple(a.casefold() for a in self.args))

    @property
    def text(self) -> str:
        """The arguments as one string (search words, topic id)."""
        return " ".join(self.args)


# --- what a reader sees as plain text ----------------------------------------

# Raw HTML whose content is not prose: comments, <pre> and <code> elements.
_HIDE_OPEN = re.compile(r"<!--|<(pre|code)(?=[\s>])", re.I)
_QUOTE = re.compile(r"^ {0,3}>")


HIDDEN = "\x00"  # stands in for a character the reader does not see as prose

Closer = re.Pattern[str]
_COMMENT_END = re.compile(r"-->")


def _hide(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] != "\n":
            chars[k] = HIDDEN


class _RawHTML:
    """The raw HTML openers of a text in order: `<!--`, or a `<pre>`/`<code>` tag whose
    `>` is on its line. Linear: a hostile run of `<pre ` with no `>` costs one scan."""

    def __init__(self, text: str):
        self.text = text
        self.gt = self.nl = -2  # the next '>' and newline after the last look (-1: none)

    def next(self, pos: int) -> tuple[int, int, Closer] | None:
        """(start, end, what closes it) of the first opener at or after `pos`."""
        text = self.text
        for m in _HIDE_OPEN.finditer(text, pos):
            if m.group(1) is None:
                return m.start(), m.end(), _COMMENT_END
            if -1 < self.gt < m.end() or self.gt == -2:
                self.gt = text.find(">", m.end())
            if -1 < self.nl < m.end() or self.nl == -2:
                self.nl = text.find("\n", m.end())
            if self.gt != -1 and (self.nl == -1 or self.gt < self.nl):
                return m.start(), self.gt + 1, re.compile(rf"</{m.group(1)}\s*>", re.I)
        return None


def _hide_html(paragraph: str) -> tuple[str, Closer | None]:
    """Hide the raw HTML of one paragraph; return it and the closer still awaited.

    Left to right, as GitHub reads inline markup: a code span that opens first holds
    any `<!--` inside it as text (`` `<!--` ``), an HTML comment that opens first holds
    any backtick; backticks with no closing run are text.
    """
    runs, next_same = backtick_runs(paragraph)
    chars = list(paragraph)
    openers = _RawHTML(paragraph)
    pos, i = 0, 0
    html = openers.next(0)
    while html is not None:
        start, end, closer = html
        while i < len(runs) and runs[i][0] < pos:
            i += 1
        if i < len(runs) and runs[i][0] < start:  # a code span, or literal ticks
            j = next_same[i]
            pos, i = (runs[j][1], j + 1) if j is not None else (runs[i][1], i + 1)
        else:
            close = closer.search(paragraph, end)
            if close is None:
                _hide(chars, start, len(chars))
                return "".join(chars), closer
            _hide(chars, start, close.end())
            pos = close.end()
        if start < pos:
            html = openers.next(pos)
    return "".join(chars), None


def _block_pass(lines: list[str]) -> list[str]:
    """Blank fenced code, quotes and indented code; hide raw HTML; in source order.

    Raw HTML is found per paragraph (`_hide_html`). An unclosed fence or HTML comment
    runs to the end of the comment, as GitHub renders it. Hidden characters stay in
    place, so a command after them on the same line is not at the start of its line.
    """
    out: list[str] = []
    fence = ""
    closer: Closer | None = None
    paragraph: list[str] = []

    def end_paragraph() -> None:
        nonlocal closer
        if paragraph:
            text, closer = _hide_html("\n".join(paragraph))
            out.extend(text.split("\n"))
            paragraph.clear()

    for line in lines:
        if fence:
            if fence_closed(line, fence):
                fence = ""
            out.append("")
            continue
        if closer is None and not paragraph_goes_on(line):
            end_paragraph()  # which may leave raw HTML open, hiding this line too
        if closer is not None:  # inside raw HTML left open: hidden up to its end
            close = closer.search(line)
            if close is None:
                out.append(HIDDEN * len(line))
                continue
            closer, line = None, HIDDEN * close.end() + line[close.end() :]
            paragraph.append(line)
        elif opened := fence_opened(line):
            fence = opened
            out.append("")
        elif _QUOTE.match(line) or INDENTED.match(line):
            out.append("")
        elif line.strip():
            paragraph.append(line)
        else:
            out.append(line)
    end_paragraph()
    return out


def paragraph_goes_on(line: str) -> bool:
    """Whether the line continues a paragraph: not blank, no fence, quote or indented code."""
    return bool(line.strip()) and not (
        fence_opened(line) or _QUOTE.match(line) or INDENTED.match(line)
    )


def prose_lines(text: str) -> list[tuple[str, str]]:
    """(mask, line) for each line of the comment, in place.

    `line` is the text with code blocks and quotes blanked and raw HTML hidden;
    `mask` also hides inline code, which may cross lines within a paragraph. A
    command must start in the mask; its arguments are read from `line`, so
    `search `kv_cache`` keeps its word.
    """
    text = text.replace(HIDDEN, "").replace("\r\n", "\n").replace("\r", "\n")
    joined = "\n".join(_block_pass(text.split("\n")))
    mask = list(joined)
    for start, end in paragraph_code_spans(joined):
        for k in range(start, end):
            if mask[k] != "\n":
                mask[k] = HIDDEN
    return list(zip("".join(mask).split("\n"), joined.split("\n"), strict=True))


# --- parsing -------------------------------------------------------------------


def check_word(word: str) -> str:
    if not re.fullmatch(WORD_PATTERN, word):
        raise ValueError(f"command word must look like '/notes' ({WORD_PATTERN}), not {word!r}")
    return word.lower()


def _cap_args(words: list[str], max_chars: int) -> tuple[str, ...]:
    """Keep whole words while their joined length stays within max_chars."""
    kept: list[str] = []
    used = -1
    for w in words:
        if used + 1 + len(w) > max_chars:
            if not kept:
                kept.append(w[:max_chars])
            break
        kept.append(w)
        used += 1 + len(w)
    return tuple(kept)


def _parse_line(mask: str, line: str, word: str, max_arg_chars: int) -> Command | None:
    indent = len(mask) - len(mask.lstrip(" "))
    end = indent + len(word)
    if indent > 3 or mask[indent:end].lower() != word:
        return None
    if end < len(mask) and not mask[end].isspace():
        return None  # `/notesfoo`, `/notes-x`: someone else's command
    rest = line[end:].replace(HIDDEN, " ")
    words = rest.split()
    source = " ".join([line[indent:end], *words])[: len(word) + 1 + max_arg_chars]
    if not words:
        return Command(Kind.REFRESH, (), source)
    kind = _SUBCOMMANDS.get(words[0].lower(), Kind.UNKNOWN)
    args = words if kind is Kind.UNKNOWN else words[1:]
    return Command(kind, _cap_args(args, max_arg_chars), source)


def _all_commands(text: str, word: str, max_arg_chars: int) -> list[Command]:
    word = check_word(word)
    found: list[Command] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for mask, line in prose_lines(text):
        cmd = _parse_line(mask, line, word, max_arg_chars)
        if cmd is not None and cmd.key not in seen:
            seen.add(cmd.key)
            found.append(cmd)
    return found


def parse_commands(
    text: str, word: str = "/notes", *, max_commands: int = 5, max_arg_chars: int = 100
) -> list[Command]:
    """The commands in a comment, in order, identical ones once, at most max_commands."""
    return _all_commands(text or "", word, max_arg_chars)[:max_commands]


def changed_commands(
    old_text: str | None,
    new_text: str,
    word: str = "/notes",
    *,
    max_commands: int = 5,
    max_arg_chars: int = 100,
) -> list[Command]:
    """For an edited comment: the commands of new_text that old_text did not have.

    Fixing a typo elsewhere in a comment must not run its commands again; adding
    or changing a command line runs just that command.
    """
    old = {c.key for c in _all_commands(old_text or "", word, max_arg_chars)}
    new = _all_commands(new_text or "", word, max_arg_chars)
    return [c for c in new if c.key not in old][:max_commands]

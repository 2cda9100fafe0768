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
from bot.markdown_text import INDENTED, fence_closed, fence_opened, paragraph_code_spans

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

# Raw HTML whose content is not prose: comments, <pre> and <code> elements (`<pre/>` is
# one too; a tag whose attributes go on past the line opens it as well).
_HIDE_OPEN = re.compile(r"<!--|<(pre|code)(?=[\s/>]|$)[^>]*(?:>|$)", re.I)
_QUOTE = re.compile(r"^ {0,3}>")


HIDDEN = "\x00"  # stands in for a character the reader does not see as prose


# `<!-->` and `<!--->` are empty comments, closed at once (HTML, and GitHub)
_COMMENT_END = re.compile(r"(?<=<!--)-?>|-->")


def _hide_close(opener: re.Match[str]) -> re.Pattern[str]:
    if opener.group(0) == "<!--":
        return _COMMENT_END
    return re.compile(rf"</{opener.group(1)}\s*>", re.I)


def _hide_html(line: str, closer: re.Pattern[str] | None) -> tuple[str, re.Pattern[str] | None]:
    """Hide raw HTML on one line; return the line and the closer still awaited."""
    out = []
    pos = 0
    while pos < len(line):
        if closer is None:
            m = _HIDE_OPEN.search(line, pos)
            if not m:
                out.append(line[pos:])
                break
            out.append(line[pos : m.start()] + HIDDEN * (m.end() - m.start()))
            closer, pos = _hide_close(m), m.end()
        else:
            m = closer.search(line, pos)
            end = m.end() if m else len(line)
            out.append(HIDDEN * (end - pos))
            pos = end
            if m:
                closer = None
    return "".join(out), closer


def _block_pass(lines: list[str]) -> list[str]:
    """Blank fenced code, quotes and indented code; hide raw HTML; in source order.

    An unclosed fence or HTML comment runs to the end of the comment, as GitHub
    renders it. Hidden characters stay in place, so a command after them on the
    same line is not at the start of its line.
    """
    out: list[str] = []
    fence = ""
    closer: re.Pattern[str] | None = None
    prose = False  # the line before was a paragraph's: indented code cannot interrupt it
    for line in lines:
        if fence:
            if fence_closed(line, fence):
                fence = ""
            out.append("")
            continue
        if closer is None:
            if opened := fence_opened(line):
                fence = opened
                out.append("")
                prose = False
                continue
            if _QUOTE.match(line) or (INDENTED.match(line) and not prose):
                out.append("")
                prose = False
                continue
        prose = bool(line.strip())
        line, closer = _hide_html(line, closer)
        out.append(line)
    return out


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

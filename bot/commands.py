"""Slash commands in PR comments (pure: comment text in, commands out).

A command is a line that starts with the command word (`/notes` by default),
followed by a sub-command and its arguments:

    /notes                    -> refresh
    /notes why
    /notes topic cuda-graphs
    /notes search prefix cache
    /notes wrong 2 only renames the flag   (note 2 of the comment is not relevant here)
    /notes restore

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): what a comment asks.
It must never run a command a reader does not see as one (quoted, in code). Which lines
count, and where a sub-command ends: `parse_commands`.
"""

from __future__ import annotations

import copy
import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from bot.comment_prose import (
    WORDS,
    as_ascii,
    colon_label,
    command_lines,
    ends_a_sentence,
    is_mark,
    marks_end,
    opens_a_quote,
    starts_with_marks,
)
from bot.config_files import ROOT, read_config
from bot.markdown_safety import joins_emoji
from bot.notes import BRACKET_PAIRS, QUOTE_PAIRS, Topic, topic_key, topics_by_key
from bot.search import query_terms
from bot.wrong_reading import as_said

DEFAULT_COMMANDS_FILE = ROOT / "config" / "commands.toml"
WORD_PATTERN = r"^/[A-Za-z][A-Za-z0-9_-]{0,31}$"


class CommandConfig(BaseModel):
    """config/commands.toml: the command word, per-comment caps, flood control.

    Its times are finite (TOML reads `inf` and `nan`): a refill of `inf` is a budget
    that never refills, a one-off allowance, and an interval of `inf` an update never
    made. Its counts are integers, which are finite already."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    word: str = Field(default="/notes", pattern=WORD_PATTERN)
    max_commands: int = Field(default=5, ge=1, le=50)
    max_arg_chars: int = Field(default=100, ge=10, le=1000)
    max_results: int = Field(default=10, ge=1, le=50)
    min_update_interval_s: float = Field(default=5.0, ge=0, allow_inf_nan=False)
    reply_burst: int = Field(default=5, ge=1)
    reply_refill_s: float = Field(default=30.0, gt=0, allow_inf_nan=False)
    installation_reply_burst: int = Field(default=10, ge=1)
    installation_reply_refill_s: float = Field(default=36.0, gt=0, allow_inf_nan=False)
    installation_write_burst: int = Field(default=40, ge=1)
    installation_write_refill_s: float = Field(default=12.0, gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _holds_one_comment(self) -> CommandConfig:
        """A comment is run only when its most writes fit (bot.command_policy.most_writes):
        a smaller burst would refuse a comment of `max_commands` commands for good. Checked
        whichever keys the file names: a file that raises `max_commands` and leaves the
        burst at its default is held to it too. The error goes to the key the file sets,
        the burst when it names it, else `max_commands` (a default has no line)."""
        most = most_comment_writes(self.max_commands)
        burst = self.installation_write_burst
        if burst >= most:
            return self
        if "installation_write_burst" in self.model_fields_set:
            field, value = "installation_write_burst", burst
            message = (
                f"must be at least {most}: a comment of max_commands commands may write"
                " that many times (3 reactions, a reply each, one more reply or edit)"
            )
        else:
            field, value = "max_commands", self.max_commands
            message = (
                f"must be at most {burst - 4} with installation_write_burst at its default"
                f" ({burst}): a comment of {self.max_commands} commands may write {most}"
                f" times (3 reactions, a reply each, one more reply or edit); set"
                f" installation_write_burst to at least {most} to allow it"
            )
        raise ValidationError.from_exception_data(
            type(self).__name__,
            [
                InitErrorDetails(
                    type=PydanticCustomError("value_error", message),
                    loc=(field,),
                    input=value,
                )
            ],
        )


def most_comment_writes(max_commands: int) -> int:
    """The most content writes one comment's commands may make: its three reactions
    (👀, 😕, 👍), a reply per command, and one more (the reply to what could not be done
    beside the notes comment's edit: a `wrong` may end in either)."""
    return 3 + max_commands + 1


def load_command_config(path: Path = DEFAULT_COMMANDS_FILE) -> CommandConfig:
    """Read config/commands.toml; a bad file raises ConfigError (a ValueError) naming
    the file, line and field."""
    return read_config(path).validate(CommandConfig)


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
    def reads_args(self) -> bool:
        """Whether its words after it count; the others' are a reason or thanks, ignored
        (`/notes off for now` is `off`)."""
        return self in (Kind.TOPIC, Kind.SEARCH, Kind.WRONG, Kind.UNKNOWN)

    @property
    def updates_sticky(self) -> bool:
        """Answered by (re)writing the sticky comment rather than by a reply."""
        return self in (Kind.REFRESH, Kind.WHY, Kind.OFF, Kind.ON, Kind.WRONG, Kind.RESTORE)


_SUBCOMMANDS = {k.value: k for k in Kind if k is not Kind.UNKNOWN}


@dataclass(frozen=True)
class Command:
    """One parsed command. For UNKNOWN, args[0] is the sub-command as typed."""

    kind: Kind
    args: tuple[str, ...] = ()
    line: str = ""  # the source line, stripped and capped
    # a `topic`'s: the id of the topic it names (`named_topic_in`), when the parse was given
    # the topics; "" for one naming none
    topic: str = field(default="", compare=False)

    @functools.cached_property  # (read over and over: sets, edits' diffs, an unlock's release)
    def key(self) -> tuple[str, tuple[str, ...]]:
        """Identity for de-duplication and edit diffing: case does not matter, nor do words
        a command ignores (an edit of the reason after an `off` runs no `off` again), nor
        full-width forms, which every command reads as the ASCII they stand for (an edit
        retyping `ｍｏｅ` as `moe` posts no second reply), nor the sentence punctuation and
        emoji at a word's end, which every command reads as no part of it (`topic:rocm:` is
        `topic rocm`, `wrong 2🙏` is `wrong 2`: an edit between them runs nothing again);
        a topic's name is keyed as `topic` reads it (`「ROCm」`, `（rocm）`, `#rocm` and `rocm`
        alike), a `wrong`'s note and reason as `pick_note` does (`第2条 — x`, `(2) x` and
        `2 x` alike), its reason without quotes around all of it (`2「x」`: `as_said`), a
        search's words as it searches them (`search「rocm」` and `search rocm`). A topic the
        command names is keyed by its id, however it is named (`Prefix caching`, its full
        name, `前缀缓存与KV缓存管理`, `prefix-caching please`): its reply is that topic's."""
        args = self.args if self.kind.reads_args else ()
        if self.kind is Kind.TOPIC and self.topic:
            return (self.kind.value, (topic_key(self.topic),))  # as its id typed is keyed
        if self.kind is Kind.TOPIC:  # the name as `topic` reads it: `「ROCm」`, `（rocm）`, `rocm`
            args = (" ".join(map(_unmarked, named_topic(self.text).split(" "))),)
        elif self.kind is Kind.WRONG:  # `第2条 — 只是改名` is `2 只是改名`
            args = as_said(args)
        elif self.kind is Kind.SEARCH:  # the terms searched: `「rocm」`, `（rocm）`, `rocm`
            args = tuple(query_terms(self.text))
        read = (as_ascii(_unmarked(a)).casefold() for a in args)
        read = (topic_key(w) if self.kind is Kind.TOPIC else w for w in read)
        return (self.kind.value, tuple(word for word in read if word))

    @property
    def text(self) -> str:
        """The arguments as one string (search words, topic id)."""
        return " ".join(self.args)


# What may stand before a topic's name as a tag's or a label's mark, no name's start (ids
# start with a letter or digit): a hashtag's `#` (`/notes topic #rocm`) and a colon
# (`/notes topic :rocm`, `/notes topic : rocm`), full-width too (`＃`, `：`)
_TAG_MARKS = "#:\uff03\uff1a"


def named_topic(text: str) -> str:
    """What a `topic` command names (its words, `Command.text`): without a tag's `#` or a
    label's `:` before it (`#rocm`, `:rocm`) nor the brackets its start opens
    (`unbracketed`: `（rocm）`). For the reply and the command's key alike."""
    return unbracketed(text.lstrip(_TAG_MARKS).lstrip())


def named_topic_in(by_key: Mapping[str, Topic], text: str) -> Topic | None:
    """The topic (of `by_key`: `notes.topics_by_key`) the longest leading part of `text`
    (`named_topic`) names, cut at a space or punctuation: the whole (`cuda graphs`), or its
    start with more words (`rocm please`, `CUDA graphs, thanks`, `cuda-graphs，谢谢`).
    Longest first: a name with a comma in it (`Sampler, logits processors and reasoning
    budget`) is read whole. For the reply and the command's key alike."""
    for start in name_starts(text):
        topic = by_key.get(topic_key(start))
        if topic is not None:
            return topic
    return None


# The quotes and brackets that close a name (of bot.notes.QUOTE_PAIRS, the closings that
# open nothing; `"` may open the next): what follows them is not part of it (`「投机解码」谢谢`:
# Chinese puts no space after `」`)
NAME_CLOSING = "".join(c for o, c in QUOTE_PAIRS.items() if c != o)


def name_starts(text: str) -> list[str]:
    """The leading parts of `text` that may be a topic's name, longest first: cut where a
    name may end, at a space, or at sentence punctuation a Chinese writer puts no space
    after (`cuda-graphs，谢谢`, `投机解码。谢谢`) or an emoji (`rocm🙏`), or after its closing
    quote (`「投机解码」谢谢`)."""
    cuts = {len(text)} | {
        i
        for i in range(1, len(text))
        if text[i] == " " or is_mark(text[i]) or text[i - 1] in NAME_CLOSING
    }
    return [text[:cut] for cut in sorted(cuts, reverse=True)]


def unbracketed(text: str) -> str:
    """`text` without the brackets its start opens and what closes them (`（rocm）` is
    `rocm`, `（rocm）谢谢` is `rocm 谢谢`); as typed when it opens none or they stay open."""
    # the brackets a writer may put a topic's name in beside bot.notes.QUOTES, which hold no
    # name's start: full-width as Chinese puts them (`/notes topic（rocm）`, glued on as after
    # `off`) and ASCII's, as a PR title tags its subject (`/notes topic [ROCm]`)
    close = BRACKET_PAIRS.get(text[:1])
    end = text.find(close) if close else -1
    return text if end < 0 else " ".join(f"{text[1:end]} {text[end + 1 :]}".split())


def _unmarked(word: str) -> str:
    """The word without the run of marks it ends in (`comment_prose.marks_end`: sentence
    punctuation, emoji, an emoji's shortcode whole): `rocm:`, `2🙏`, `2:pray:` and `2。`
    are `rocm` and `2`; `2.5` and `torch::jit` keep theirs, which end no word. A word of
    marks alone is empty. One pass: each run of marks is read once, from its start."""
    past = 0  # where the run of marks read last ends
    for at in range(len(word)):
        if at >= past:
            past = marks_end(word, at)
            if past == len(word):
                return word[:at]
    return word


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


def _visible(word: str) -> str:
    """The word as a reader sees it: without invisible format characters (Unicode Cf:
    zero-width space, word joiner, BOM, bidi controls; an emoji sequence's joiners stay).
    GitHub shows `/notes off` and a zero-width space pasted after it as `/notes off`,
    which is what its author meant."""
    return "".join(
        ch for i, ch in enumerate(word) if unicodedata.category(ch) != "Cf" or joins_emoji(word, i)
    )


# Sentence punctuation or an emoji after a sub-command (`/notes off.`, `/notes why?`,
# `/notes off🙏`, and as a Chinese input method types it, `/notes off。`, `/notes off，谢谢`
# with no space after the comma): the writer ended or paused a sentence. No sub-command
# has either in it, so reading the word before them loses nothing; the rest of the word
# is its first argument.
_LETTERS = re.compile("[A-Za-z]+")


# Inline code as the rendered line shows it (comment_prose keeps a code span's backticks)
_CODE_SPAN = re.compile("`([^`]+)`")


def _uncoded(word: str) -> str:
    """The word without the backticks of a code span holding a sub-command alone, marks
    after it aside (`` `why` ``, `` `off`. ``: people format commands so); as typed else
    (`` `frobnicate` `` is quoted back so)."""
    code = _CODE_SPAN.match(word)
    if code is None or as_ascii(code[1]).lower() not in _SUBCOMMANDS:
        return word
    return code[1] + word[code.end() :] if marks_end(word, code.end()) == len(word) else word


def _names_others(words: list[str]) -> bool:
    """Whether a word after the first holds a sub-command in code: the line names the
    sub-commands (`` `off`, `on` or `why` ``, a maintainer telling the author what the
    bot takes), its first run by no one."""
    return any(
        as_ascii(code[1]).lower() in _SUBCOMMANDS
        for w in words[1:]
        for code in _CODE_SPAN.finditer(w)
    )


def _split_subcommand(words: list[str]) -> list[str]:
    """The words with a known sub-command as ASCII (`ｏｆｆ`: a Chinese input method's
    full-width mode) and its trailing marks, or an opening quote, cut off its first word;
    in inline code too (`_uncoded`), unless the line names others in code."""
    words = words if _names_others(words) else [_uncoded(words[0]), *words[1:]]
    typed = as_ascii(words[0])
    sub = _LETTERS.match(typed)
    if sub is None or sub[0].lower() not in _SUBCOMMANDS:
        return words
    end = marks_end(words[0], sub.end())
    if end == sub.end() < len(typed) and not opens_a_quote(words[0][end]):
        return words  # `offx`: someone else's word
    rest = words[0][end:]
    return [sub[0], *([rest] if rest else []), *words[1:]]


# Question marks alone (`/notes ?`, `/notes ？`) ask what the commands are: an unknown
# sub-command, whose reply lists them.
_QUESTION = re.compile("[?？]+")


def _sentence_ended(word: str) -> bool:
    """A word of sentence punctuation or emoji (`/notes 🙏`, `/notes 👍🏽!`, `/notes ...`,
    `/notes 。`), or one they start as they would glued to the command word (`/notes
    🙏谢谢`): the sentence ended at the command word, as in `/notes.`; not a sub-command,
    unless its marks are a question (`_QUESTION`)."""
    question = _QUESTION.fullmatch(word, 0, marks_end(word, 0)) is not None
    return ends_a_sentence(word) and not question


def _aside(word: str) -> bool:
    """A word after the command word opening an ASCII parenthesis (`/notes (please)`, and
    as a half-width mode types Chinese, `/notes (先刷新)`): the writer's aside, no
    sub-command, as the full-width one is (`ends_a_sentence`). Glued to the word it is a
    call's or a path's (`/notes(x)`: no command line), after a sub-command its argument."""
    return word.startswith("(")


def _shortcode_shaped(rest: str, start: int) -> bool:
    """Whether the word a colon labels (`start`, in `rest` as ASCII) is glued between it and
    another colon, as an emoji's shortcode is written (`/notes :off:`, `/notes:why:`): the
    writer's emoji-ish text, GitHub's name for an emoji or not. `:on:` shows 🔛 and is the
    bare /notes, as `:thanks:` is: so is `:off:`, no `off`."""
    word = _LETTERS.match(rest, start)
    return rest[start - 1] == ":" and word is not None and rest[word.end() : word.end() + 1] == ":"


def _labelled(rest: str) -> str | None:
    """What follows a colon after the command word (`rest`: what follows the word), to be
    read as typed apart from it (`comment_prose.colon_label`: `: why`, `:why?`, ` : why`,
    ` :why`, as people label what they type): a sub-command, or one with stray symbols
    glued on (`: why&`, read as `/notes why&` is: the writer's, mistyped, told so). "" for
    a word of its own (`: thanks`, ` :thanks`, `: offline`) or none: the bare `/notes`, as
    after a full stop, and so for a sub-command between colons (`:off:`: `_shortcode_shaped`).
    None: no colon that labels (`::`, an emoji's `:pray:`)."""
    start = colon_label(rest, 0)
    if start is None:
        return None
    if _shortcode_shaped(as_ascii(rest), start):
        return ""  # `:off:`, as `:on:` (🔛) and `:thanks:` are
    first = next((w for w in map(_visible, WORDS.findall(rest[start:])) if w), "")
    if first and _split_subcommand([first])[0].lower() in _SUBCOMMANDS:
        return rest[start:]  # `why`, `why?`, `off（先关掉）`
    typed = as_ascii(first)
    sub = _LETTERS.match(typed)
    if sub is None or sub[0].lower() not in _SUBCOMMANDS:
        return ""
    stray = not any(ch.isalnum() for ch in typed[sub.end() :])  # `why&`, not `on-call`
    return rest[start:] if stray else ""


def _parse_line(line: str, word: str, max_arg_chars: int) -> Command:
    """A line that starts with the command word (`/notesfoo` is someone else's).

    Sentence punctuation or an emoji right after the word (`/notes.`, `/notes。谢谢`, as
    iOS types a double space `/notes. `, `/notes🙏`), or a word of them alone (`/notes 🙏`,
    `/notes ...`), ended the writer's sentence there: the command is the bare one, and
    what follows is prose, not a sub-command (`/notes. Off topic, but ...`); a colon, which
    labels what follows, is followed by a sub-command (`/notes: why`: `_labelled`)."""
    rest = line[len(word) :]
    rest = " " + labelled if (labelled := _labelled(rest)) is not None else rest
    words = [w for w in map(_visible, WORDS.findall(rest)) if w]
    if not words or starts_with_marks(rest) or _sentence_ended(words[0]) or _aside(words[0]):
        return Command(Kind.REFRESH, (), line[: len(word)])
    words = _split_subcommand(words)
    kind = _SUBCOMMANDS.get(words[0].lower(), Kind.UNKNOWN)
    args = words if kind is Kind.UNKNOWN else words[1:]
    head = line[: len(word)] if kind is Kind.UNKNOWN else f"{line[: len(word)]} {words[0]}"
    # The echo quotes the arguments the command runs with (whole words, as capped), so a
    # reply never claims it answered words it dropped.
    capped = _cap_args(args, max_arg_chars)
    return Command(kind, capped, " ".join([head, *capped]))


def _all_commands(
    text: str, word: str, max_arg_chars: int, by_key: Mapping[str, Topic]
) -> list[Command]:
    """Every command of `text`, identical ones once; `by_key`: the topics a `topic` may
    name (`notes.topics_by_key`, built by the caller: it costs more than most parses)."""
    word = check_word(word)
    found: list[Command] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for line in command_lines(text, word, _SUBCOMMANDS):
        cmd = _parse_line(line, word, max_arg_chars)
        if cmd.kind is Kind.TOPIC and (named := named_topic_in(by_key, named_topic(cmd.text))):
            cmd = replace(cmd, topic=named.id)  # keyed by the topic, not by how it was named
        if cmd.key not in seen:
            seen.add(cmd.key)
            found.append(cmd)
    return found


# The pure parser's caps when a caller names none: config/commands.toml's defaults, for
# tests and the bench. The shell reads with the configured ones, through `Reading.of`.
_DEFAULT_CAPS = CommandConfig.model_fields
_MAX_COMMANDS: int = _DEFAULT_CAPS["max_commands"].default
_MAX_ARG_CHARS: int = _DEFAULT_CAPS["max_arg_chars"].default


def parse_commands(
    text: str,
    word: str = "/notes",
    *,
    max_commands: int = _MAX_COMMANDS,
    max_arg_chars: int = _MAX_ARG_CHARS,
    topics: Iterable[Topic] = (),
) -> list[Command]:
    """The commands in a comment, in order, identical ones once, at most max_commands.
    `topics`: the library's, so that a `topic` is keyed by the topic it names (`Command.key`):
    every caller whose keys are compared passes the same.

    Only lines a reader sees as plain text count: lines inside fenced or indented
    code, inline code, `<pre>`/`<code>` elements, HTML comments or quotes (`>`, or a
    `<blockquote>` typed in HTML) are ignored, so quoting or documenting a command never
    runs it. A command on the line
    right after a quote runs, although GitHub shows that line inside the quote (a lazy
    continuation): the author typed it there, under what they quoted. Sentence punctuation
    or an emoji after a sub-command (`/notes off.`, `/notes why?`, `/notes off。`,
    `/notes off🙏`) is no part of it; right after the command word (`/notes.`, `/notes🙏`)
    it ends the command, the bare one, as a full-width parenthesis opening the writer's aside
    does (`/notes（先刷新）`; after a sub-command it starts its argument: `/notes off（先关掉）`),
    but for a colon, which labels the sub-command after it (`/notes: why`, `/notes:why`,
    `/notes : why`).
    The word and sub-command may be typed full-width, as a Chinese input method's full-width
    mode types them (`／ｎｏｔｅｓ　ｏｆｆ`).
    `/notesfoo`, `/notes.py`, `/ci run` and `/lgtm` are other bots' business.
    """
    return _all_commands(text or "", word, max_arg_chars, topics_by_key(topics))[:max_commands]


def changed_commands(
    old_text: str | None,
    new_text: str,
    word: str = "/notes",
    *,
    max_commands: int = _MAX_COMMANDS,
    max_arg_chars: int = _MAX_ARG_CHARS,
    topics: Iterable[Topic] = (),
) -> list[Command]:
    """For an edited comment: the commands of new_text that old_text did not have.

    Fixing a typo elsewhere in a comment must not run its commands again; adding
    or changing a command line runs just that command.
    """
    by_key = topics_by_key(topics)
    old = _all_commands(old_text or "", word, max_arg_chars, by_key)
    return _new_in(old, _all_commands(new_text or "", word, max_arg_chars, by_key))[:max_commands]


def _new_in(old: list[Command], new: list[Command]) -> list[Command]:
    """The commands of `new` that `old` does not have (by key)."""
    had = {c.key for c in old}
    return [c for c in new if c.key not in had]


@dataclass(frozen=True)
class Reading:
    """How a comment's commands are read: the command word, config/commands.toml's caps
    and the library's topics (`BotContext.command_reading`). Every reader whose keys are
    compared (a comment's run, the commands kept while locked) reads with the same one:
    past a cap, keys read with others differ (a kept command answered twice, or never).
    No caps of its own: built from the config (`of`), not from defaults."""

    word: str
    max_commands: int
    max_arg_chars: int
    topics: tuple[Topic, ...] = ()
    # the topics by every name a reader types: built once, not per parse (a few of them
    # per kept comment at an unlock)
    by_key: Mapping[str, Topic] = field(init=False, repr=False, compare=False)
    # each text's commands, by text, in a reading from `remembering`; None: none kept
    _read: dict[str, list[Command]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_key", topics_by_key(self.topics))

    def remembering(self) -> Reading:
        """This reading, remembering each text it parses: for one caller that reads the
        same texts again and again (an unlock's release reads each kept comment's texts in
        several steps), and dropped with it, so that no process keeps every text it read."""
        copied = copy.copy(self)  # (its topics by name too: not built again)
        object.__setattr__(copied, "_read", {})
        return copied

    @classmethod
    def of(cls, config: CommandConfig, word: str = "", topics: Iterable[Topic] = ()) -> Reading:
        """The reading `config` sets: its caps, and its word unless `word` overrides it
        (REVIEW_NOTES_COMMAND)."""
        return cls(word or config.word, config.max_commands, config.max_arg_chars, tuple(topics))

    def parse(self, text: str | None) -> list[Command]:
        """As `parse_commands` reads `text` with these caps and topics."""
        return self._all(text)[: self.max_commands]

    def changed(self, old_text: str | None, new_text: str) -> list[Command]:
        """As `changed_commands` reads the edit with these caps and topics."""
        return _new_in(self._all(old_text), self._all(new_text))[: self.max_commands]

    def _all(self, text: str | None) -> list[Command]:
        """Every command of `text` (its callers copy the list: a remembered one is shared)."""
        text = text or ""
        found = None if self._read is None else self._read.get(text)
        if found is None:
            found = _all_commands(text, self.word, self.max_arg_chars, self.by_key)
            if self._read is not None:
                self._read[text] = found
        return found

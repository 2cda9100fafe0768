"""Why a keyword, tag, label or path can never be found in a PR as written (pure).

A PR's titles, files and diffs write plain spaces and ASCII punctuation: a term holding
an unusual space or an invisible character, a Chinese list separator (`a、b`) or a
character a Chinese input method typed for ASCII (`ＬｏＲＡ`) never matches. `check_term`,
`check_label` and `check_glob` validate the model's terms, labels and paths (`notes.Term`,
`notes.Label`, `notes.Glob`); `toml_errors` uses `ascii_typed_as` and
`describe_character` to explain a TOML error.
"""

from __future__ import annotations

import re
import unicodedata

from bot.full_width import FULL_WIDTH
from bot.globs import GlobError, compile_glob
from bot.note_dump import toml_string


def check_glob(pattern: str) -> str:
    mistyped = _mistyped(pattern, "path")
    if mistyped is not None:
        raise ValueError(mistyped)
    try:
        compile_glob(pattern)
    except GlobError as exc:
        raise ValueError(f"bad glob {pattern!r}: {exc}") from None
    return pattern


def _unseen_character(term: str) -> str | None:
    """The first character of `term` that a PR's text does not hold where it looks like it
    stands: a space other than U+0020 (a no-break space pasted from a web page), a format
    character (zero-width space or joiner, soft hyphen) or a control character (NEL). It
    makes an English keyword non-ASCII, found as written only, so it never matches (an
    ASCII tab is a separator between words like any other). A zero-width joiner inside
    an emoji (a label such as 🧑‍💻) is part of the emoji."""
    for i, ch in enumerate(term):
        if ch.isascii():
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Zs"):
            if ch == "\u200d" and _emoji_sides(term[i - 1 : i], term[i + 1 : i + 2]):
                continue
            return ch
    return None


def _emoji_sides(before: str, after: str) -> bool:
    return all(c and not c.isascii() and not c.isalnum() for c in (before, after))


# What a Chinese input method types for a list's comma: the enumeration comma and the
# full-width comma and semicolon. One between two terms makes them one term.
LIST_SEPARATORS = "、，；"


# What a Chinese input method types, in its punctuation mode, for these ASCII keys
_TYPED_FOR = {
    "、": ",",
    "。": ".",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "【": "[",
    "】": "]",
    "《": "<",
    "》": ">",
    "—": "_",  # shift and `-` type "——"
    "·": "`",
    "…": "^",
}


def ascii_typed_as(ch: str) -> str | None:
    """The ASCII character a Chinese input method typed `ch` for, or None: a full-width
    form (`Ｌ`, `，`, `（`: `FULL_WIDTH`) or the punctuation its Chinese mode types (`。`
    for `.`, `“` for `"`). Not every compatibility form (`²`): a PR may write those as
    they are."""
    return FULL_WIDTH.get(ord(ch)) or _TYPED_FOR.get(ch)


# Ideographs, kana, hangul: a term holding them matches text in that script, which
# writes full-width punctuation (`前缀缓存（APC）`), though never full-width letters
_CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# what the input method types twice for one key (shift and `-`: `——` for `_`)
_TYPED_TWICE = {"——": "_", "……": "^"}


def _as_typed_for(term: str) -> str:
    """The term with each character an input method typed for ASCII put back."""
    for pair, ascii_char in _TYPED_TWICE.items():
        term = term.replace(pair, ascii_char)
    return "".join(ascii_typed_as(c) or c for c in term)


def _typed_for_ascii(term: str) -> str | None:
    """The first character of `term` an input method typed for ASCII, or None. In a term
    in Chinese (Japanese, Korean) script only letters and digits count: its punctuation
    is that text's own."""
    in_script = _CJK.search(term) is not None
    for c in term:
        typed = ascii_typed_as(c)
        if typed is not None and (not in_script or typed.isalnum()):
            return c
    return None


def describe_character(ch: str) -> str:
    """`'，' (U+FF0C FULLWIDTH COMMA)`; an invisible one by its code point alone."""
    name = unicodedata.name(ch, "")
    if unicodedata.category(ch)[0] in "CZ":  # a space or an invisible one: printed, unseen
        return f"U+{ord(ch):04X}" + (f" ({name})" if name else "")
    return f"{ch!r} (U+{ord(ch):04X}" + (f" {name})" if name else ")")


def _mistyped(term: str, noun: str) -> str | None:
    """Why `term` (a keyword, tag, label or path) can never be found in a PR as written, or
    None: a character the PR's text (a label: its labels) does not hold where it seems to
    stand (an unusual space, an invisible one), or one a Chinese input method typed for
    ASCII. A PR's titles, files and diffs write ASCII punctuation and letters, so `ＬｏＲＡ`
    never matches, and `a、b` is one term that no PR's text holds."""
    text = "a GitHub label's name" if noun == "label" else "a PR's text"  # what it is met in
    unseen = _unseen_character(term)
    if unseen is not None:
        char = describe_character(unseen)
        if unseen.isspace():
            return f"{term!r} holds {char} where {text} has a plain space: write a plain space"
        return f"{term!r} holds {char}, invisible and absent from {text}: delete it"
    separator = next((c for c in term if c in LIST_SEPARATORS), None)
    if separator is not None:
        parts = [p.strip() for p in re.split(f"[{LIST_SEPARATORS}]", term) if p.strip()]
        listed = ", ".join(toml_string(p) for p in parts)
        return (
            f"{term!r} holds {describe_character(separator)}, a Chinese list separator: write"
            f" one {noun} per string, [{listed}]"
        )
    wide = _typed_for_ascii(term)
    if wide is not None:
        typed = _as_typed_for(term)
        return (
            f"{term!r} holds {describe_character(wide)}, typed by a Chinese input method for"
            f" {ascii_typed_as(wide)!r}, which {text} has instead: write {typed!r}"
        )
    return None


# What a regular expression writes and a term never means: alternatives, a wildcard, an
# escape (`\d`, `\.`), an anchor at either end
_REGEX_SYNTAX = re.compile(r"\||\.[*+?]|\\[A-Za-z.]|^\^|\$$")
_REGEX_TOKEN = re.compile(r"\\[A-Za-z.]|\.[*+?]|[\^$()|*+?]")


def _as_regex(term: str) -> str | None:
    """What a term written as a regular expression is told, else None. A term matches by
    its words (bot.terms), its punctuation a separator: `(prefix|cache)` is the phrase
    "prefix cache", never either word, `partial.*hit` only "partial hit"."""
    m = _REGEX_SYNTAX.search(term)
    if m is None:
        return None
    said = (
        f"{term!r} is written as a regular expression ({m[0]!r}); a term is matched as"
        " words, not as a pattern: "
    )
    if "|" in term:
        parts = [words for p in term.split("|") if (words := _regex_words(p))]
        listed = ", ".join(toml_string(p) for p in parts)
        return said + f"write each alternative as a term of its own, [{listed}]"
    return said + f"write the words a PR's text has, as {_regex_words(term)!r}"


def _regex_words(pattern: str) -> str:
    return " ".join(_REGEX_TOKEN.sub(" ", pattern).split())


LABEL_MAX = 50  # characters: GitHub refuses a longer name ("name is too long")


def check_label(label: str) -> str:
    """A GitHub label's name: matched whole (bot.matching), in any case, never by its words
    nor as a pattern, so `bug|regression`, `release$` or `C++` are names like any other
    (GitHub allows them); only what no label's name can hold as written is refused, and a
    name longer than GitHub takes."""
    _check_written(label, "label")
    if len(label) > LABEL_MAX:
        raise ValueError(
            f"{label!r} is {len(label)} characters long: a GitHub label's name is"
            f" {LABEL_MAX} at most, so no PR carries it"
        )
    return label


def _check_written(term: str, noun: str) -> None:
    if not term.strip():
        raise ValueError(f"empty {noun}")
    if term != term.strip():
        raise ValueError(f"{term!r} has leading or trailing whitespace")
    mistyped = _mistyped(term, noun)
    if mistyped is not None:
        raise ValueError(mistyped)


def check_term(term: str) -> str:
    _check_written(term, "term")
    if (pattern := _as_regex(term)) is not None:
        raise ValueError(pattern)
    if term.isascii():
        # an English keyword matches by its letters and digits (bot.terms): `C++` would be
        # `c`, every standalone C; `++` nothing at all
        key = "".join(c for c in term if c.isalnum())
        if len(key) < 2 and key == term:  # `a`: no symbol to spell out
            raise ValueError(f"{term!r} is one character: too short to name anything")
        if len(key) < 2:
            raise ValueError(
                f"{term!r} matches by its letters and digits only, {key!r}: too short to"
                " name anything (spell it out, e.g. 'C++ extension' or 'cpp')"
            )
    return term

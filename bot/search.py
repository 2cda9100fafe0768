"""Finding notes by words (pure): one search, two ways of asking.

The notes pages filter (`/notes?q=`: `FILTER`, every term must occur) and the `/notes
search` reply ranks (`RANKED`, any term, notes with more first). Outside the flow from
event to comment: it answers a reader, for the notes pages and the `/notes search`
command. Pure: it never reads a file or the network. How each mode reads a query and
what a hit is: `SearchMode`; a PR or issue reference and punctuation: `query_terms`;
how text is compared: `fold`.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from types import MappingProxyType
from typing import NamedTuple

from bot.comment_prose import without_end_marks, without_shortcodes
from bot.notes import QUOTE_PAIRS, QUOTES, SEARCHED_GUIDANCE_CHARS, Note, Topic
from bot.pr_text import REF_HASH, REF_URL

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# A Latin word, its parts joined by hyphens as by underscores (`all-reduce`, `kv-cache`):
# one compound to `_compound`, as on the pages; split, `all` and `up` of `warm-up` found
# every note saying "all" or "up" and not the one writing allreduce or warmup
_LATIN_WORD = rf"[^\W{_CJK}]+(?:-+[^\W{_CJK}]+)*"
# A path or file name (`kv_cache_coordinator.py`, `vllm/v1/core`) is one term: split at
# its dots, its `py` would find every note that lists a Python file
_PATH_TERM = rf"{_LATIN_WORD}(?:[./]{_LATIN_WORD})+"


# The patterns with the CJK character class are compiled at the first search, not at
# import: their classes cost 25 ms to compile, which every process importing this module
# paid, whether it searched or not (the server, at its start)
@cache
def _word_term() -> re.Pattern[str]:
    return re.compile(rf"{_PATH_TERM}|[{_CJK}]+|{_LATIN_WORD}")


@cache
def _is_cjk() -> re.Pattern[str]:
    return re.compile(rf"[{_CJK}]")


# A PR or issue as GitHub writes it is its number, when it is of a repository the
# search looks at: a link (github.com's, or the redirect the bot's replies print; its
# scheme and what follows the number go with it; groups 1, 2), `owner/name#N` or `#N`
# (3, 4), as bot.prfacts reads them, and `GH-N` (5). Text is folded: lower case.
_PR_REF = re.compile(
    rf"(?:https?://)?(?:www\.|redirect\.)?{REF_URL}[^\s,;]*"
    rf"|{REF_HASH}"
    r"|(?<![a-z0-9_])gh-(\d+)(?![a-z0-9_])"
)

FIELDS = (
    "id",
    "title_en",
    "title_zh",
    "keywords",
    "summary_en",
    "guidance",
    "source_pr",
    "aspects",
    "paths",
    "read_with",
    "issues",
    "topics",
)
# A filter's term: a phrase in double quotes or backticks (`"prefix cache"`, `“前缀 缓存”`,
# `「…」`, a closing mark after it) is one, found as written, as a search box reads it;
# else what lies between whitespace or list separators (a Chinese input method's `、`;
# `，` and `；` are `,` and `;` once folded). The quotes are bot.notes.QUOTE_PAIRS' but
# single quotes, which make no phrase (apostrophes), and the brackets a tag or a title is
# put in (`【ROCm】`, `《…》`); full-width `＂` is `"` once folded, as the filter reads it.
_NO_PHRASE = "'‘【《"  # openings
_PHRASE_QUOTES = tuple(o + c for o, c in QUOTE_PAIRS.items() if o not in _NO_PHRASE)
_PHRASE = "|".join(f"{q[0]}[^{q[1]}]+{q[1]}" for q in _PHRASE_QUOTES)  # none a regex's mark
_SEPARATORS = ",;、"  # and whitespace
_FILTER_TERM = re.compile(rf"(?:{_PHRASE})[^\s{_SEPARATORS}]*|[^\s{_SEPARATORS}]+")
# What the filter cuts at or quotes with, whitespace aside (no other character folds to one)
_FILTER_MARKS = frozenset("".join(_PHRASE_QUOTES) + _SEPARATORS)


# An apostrophe as a phone's keyboard types it (`mock’s`: iOS's smart punctuation) or a
# curator's editor wrote it, which NFKC keeps: each found the other's text no more
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2018\u2019\u02bc", "'"))


def fold(text: str) -> str:
    """Normalise for search: text is compared after NFKC (full-width ＡＢＣ, the
    ideographic space), case folding and with one apostrophe (`’`, `‘`, `ʼ` are `'`)."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)


@dataclass(frozen=True)
class SearchMode:
    """How a query is read and what a hit is.

    The notes pages filter (`/notes?q=`): every term (separated by whitespace, commas,
    semicolons or `、`; a phrase in double quotes is one, `"prefix cache"`, found as
    written, its parts joined any way, a space beside a Chinese character there or not,
    typed or not: `“前缀 缓存”` finds 前缀缓存, `前缀缓存` 前缀 缓存) must occur somewhere
    in a note, as a substring of any field (its id, paths, PR numbers (source, read with,
    issues) and its topics' ids and names included), so `n-rocm`, `<script>`,
    `kv_cache_coordinator.py`, `CUDA graphs` or half a Chinese phrase find what they name;
    hyphens, underscores and
    spaces between parts of two letters or more aside too, so `allreduce` finds
    `all-reduce` and `KV-cache` `KV cache`, but `isa` not `is a`, and a word of four
    letters two of two, or a letter alone, only joined by a hyphen or underscore (`noop`
    finds `no-op`, `topk` `top_k`, `isin` not `is in`). A number is a whole number, as in
    the reply: `5241` does not find PR 52419. An English plural finds its singular too, in
    both modes (`deadlocks` finds `deadlock`, `hashes` `hash`: `_singulars`), and a word
    of letters its other forms, whole words (`preempted` finds `preemption`,
    `registering` `registration`, `capturing` `capture`: `_stems`), ranked after the
    notes holding it as typed.

    The `/notes search` reply ranks: a query is split into words (runs of Chinese
    or Japanese characters are one term each, a space between its characters in the text
    there or not, as in the filter); a Latin word matches whole words only
    (`ROC` is not `ROCm`), its parts joined any way as in the filter (`allreduce` finds
    `all-reduce`, `kv_cache` `KV cache`; `all-reduce` is one word, as `all_reduce` is, and
    finds `allreduce`), a CJK term any part of the text; a note needs one term,
    and notes with more terms, and with them in heavier fields (titles, the source PR,
    keywords), come first.
    """

    words: bool  # split into words and CJK runs, Latin words whole; else substrings, not numbers
    require_all: bool  # every term must occur (a filter); else any term (ranked by coverage)
    weights: Mapping[str, float]  # the fields looked at and what a term found in each is worth
    max_terms: int | None = None  # a long query is cut to its first terms

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(FIELDS)
        if unknown:
            raise ValueError(f"unknown search fields: {sorted(unknown)}")


# The notes pages' `q`: a filter over every field.
FILTER = SearchMode(
    words=False, require_all=True, weights=MappingProxyType(dict.fromkeys(FIELDS, 1.0))
)
# `/notes search`: ranked; titles, the source PR and keywords say what a note is about
# (every reply names a note by its source PR: `52419` finds it). The id is left out:
# every id starts with the repository's name; aspects are common words by design.
RANKED = SearchMode(
    words=True,
    require_all=False,
    weights=MappingProxyType(
        {
            "title_en": 4.0,
            "title_zh": 4.0,
            "source_pr": 4.0,
            "keywords": 3.0,
            "topics": 2.0,
            "summary_en": 2.0,
            "paths": 2.0,
            "guidance": 1.0,
            "read_with": 1.0,
            "issues": 1.0,
        }
    ),
    max_terms=8,
)


@dataclass(frozen=True)
class SearchHit:
    note: Note
    score: float  # the sum of field weights over (term, field) matches
    fields: tuple[str, ...] = field(default=())  # the fields that matched, heaviest first
    as_typed: int = 0  # of those terms, how many as typed (or a plural's singular)
    found: tuple[str, ...] = ()  # the query terms the note contains, folded, in order

    @property
    def terms(self) -> int:
        """How many query terms the note contains."""
        return len(self.found)


def query_terms(
    query: str, mode: SearchMode = RANKED, repos: frozenset[str] | None = None
) -> list[str]:
    """The query's distinct terms, folded, in order. A PR or issue reference (`#N`,
    `GH-N`, a link) is its number; `repos` (lower case): whose references named with
    their repository count so (None: any repository's).

    Both read a PR or issue as GitHub writes it (`#52419`, `GH-52419`, `owner/name#52419`,
    a link) as its number, when it is of the repository searched; brackets or punctuation
    around it (`(#52419)`, as a squash commit's title ends) and a term of punctuation alone
    ask for nothing, nor does a term's closing sentence mark (`deadlock.`, `rocm?`, `默认。`)
    or the quotes around it (`"deadlock"`, `“死锁”`, `「死锁」`, backticks).
    """

    def number(ref: re.Match[str]) -> str:
        repo, digits = ref.group(1) or ref.group(3), ref.group(2) or ref.group(4) or ref.group(5)
        if repos is None or repo is None or repo in repos:
            return f" {digits} "
        # another repository's: a filter keeps it as typed (a dropped term would widen it)
        return " " if mode.words else ref.group(0)

    # an emoji's shortcode in a comment is the emoji the page shows, which no word holds
    folded = _PR_REF.sub(number, fold(without_shortcodes(query) if mode.words else query))
    found = _word_term().findall(folded) if mode.words else _filter_terms(folded)
    found = [t for t in map(_unquoted, found) if _asks_something(t)]
    terms = list(dict.fromkeys(found))
    return terms if mode.max_terms is None else terms[: mode.max_terms]


def filter_words(query: str) -> list[str]:
    """A filter's query cut into its words as typed (`query_terms` folds them), each one
    asking for something, once: what a page can name back to its reader."""
    words: dict[tuple[str, ...], str] = {}
    # cut where the filter cuts the query folded, each word as typed
    for found in _FILTER_TERM.finditer(_marks_folded(query)):
        word = query[found.start() : found.end()]
        terms = tuple(query_terms(word, FILTER))
        if terms:
            words.setdefault(terms, word)
    return list(words.values())


def _marks_folded(query: str) -> str:
    """The query, each character that folds to one of the filter's quotes or separators
    made it (full-width, small and vertical forms: `"deadlock scheduler＂` is a phrase
    once folded, `a，b` two words), the others as typed: one character each, so a
    place in it is the same place in the query."""
    return "".join(f if len(f := fold(c)) == 1 and f in _FILTER_MARKS else c for c in query)


def _filter_terms(query: str) -> list[str]:
    """A filter's terms as typed, a quoted phrase one with its spaces one each."""
    return [" ".join(term.split()) for term in _FILTER_TERM.findall(query)]


def _unquoted(term: str) -> str:
    """A term without the quotes or backticks around it (`"deadlock"`, `“死锁”`, `「死锁」`,
    `` `kv_cache` ``) and its closing marks, inside them or after (`"deadlock."`,
    `"deadlock".`, `rocm?`, a link pasted at a sentence's end): no field holds the quotes
    a reader puts around a word, so a filter's term kept them and found nothing, nor the
    mark that closes a sentence, so it found only the notes holding that mark right
    there."""
    return without_end_marks(without_end_marks(term).strip(QUOTES))


def _asks_something(term: str) -> bool:
    """A term with no letter or digit is none: the brackets a reference was cut out of
    (`(#102)`, a squash commit's title), a sentence's full stop, a lone `-`. As a
    filter's term it would only keep the notes that happen to hold that character."""
    return any(ch.isalnum() for ch in term)


# Between the parts of a compound, written three ways (`all-reduce`, `allreduce`,
# `all reduce`; `KV-cache`, `kv_cache`, `KV cache`)
_JOINERS = re.compile(r"[-_\s]+")
# A term's joiners at its ends join nothing to it (`_custom_ops`, `--enforce-eager`)
_EDGES = re.compile(r"([-_\s]*)(.*?)([-_\s]*)", re.S)
# What a filter's compound may not follow: a letter or digit (`_` is a joiner)
_ALNUM = r"[^\W_]"
# A reply's Latin word is whole: no Latin letter, digit or `_` either side; CJK text
# around it is a boundary ("ROCm默认")
_WORD_CHAR = rf"[^\W{_CJK}]"
_WORD_END = rf"(?!{_WORD_CHAR})"


def _not_after(before: str, first: str, head: str = "") -> str:
    """The character `first`, where none of class `before` stands before it, or before
    `head` right before it: the character, then the look behind it. A pattern opening
    with a lookbehind (or an optional `head`) is tried at every position of a text, one
    opening with a character only where that character is (bench/bench_search.py: a word
    that a long guidance lacks is found missing 20 times as fast, or more); it finds what
    `(?<!before)(?:head)?first` finds."""
    char, headed = re.escape(first), re.escape(head + first)
    if not head:  # a second branch would be the first, tried again where it failed: 2x
        return f"{char}(?<!{before}{char})"
    return f"{char}(?:(?<!{before}{char})|(?<={headed})(?<!{before}{headed}))"


def _compound(term: str, before: str, end: str = "") -> re.Pattern[str]:
    """A term as a compound written with or without hyphens, underscores or spaces between
    its parts, not after a character of class `before` (to `end`): a reviewer's spelling
    finds the note's (`allreduce` its `all-reduce`), in the pages' filter and the reply
    alike; anchored, so `n-rocm` is not found in `on ROCm`."""
    return re.compile("".join(_compound_parts(term, before, end)))


def _compound_parts(term: str, before: str, end: str = "") -> tuple[str, str]:
    """`_compound`'s regex as its opening (`_not_after`: the first letter, the look
    behind it) and the rest."""
    edges = _EDGES.fullmatch(term)
    assert edges is not None  # (it matches any text)
    head, core, tail = edges.groups()
    letters = _JOINERS.sub("", core)
    joiners = _joiners_after(core, len(letters))
    # its ends' joiners may be there or not: `__init__` finds `__init__` (and `init`), a
    # whole word only when its `_` are, `--enforce-eager` finds `enforce_eager`
    inner = "".join(re.escape(c) + joiners.get(i, "") for i, c in enumerate(letters[1:], 2))
    rest = joiners.get(1, "") + inner
    return _not_after(before, letters[0], head), f"{rest}(?:{re.escape(tail)})?{end}"


_ANY_JOINER = "[-_\\s]*"
# between two parts of two letters: English writes such pairs of words apart as prose
# (torch's `isin` is no "is in", `onto` no "on to", `tome` no "to me"); a name joins them
# (`no-op`, `re_do`)
_JOINED = "[-_]*"
_TWO_PAIRS = 4  # letters


def _joiners_after(core: str, size: int) -> dict[int, str]:
    """After how many of a term's `size` letters a joiner may stand, and which: where it
    has one, any; and where a part of two letters or more is left either side (`kv|cache`,
    `all|reduce`), any, or a hyphen or underscore only between two parts of two (`no|op`).
    A letter alone is a part only with a hyphen or underscore (`topk` finds vLLM's `top_k`
    and `top-k`), so `isa` (the CPU's) is not found in "is a", nor `ina` in "in a" or
    `a100` in "a 100"."""
    typed = {len(_JOINERS.sub("", p)) for p in (core[: m.start()] for m in _JOINERS.finditer(core))}
    untyped = _ANY_JOINER if size > _TWO_PAIRS else _JOINED
    parts = {i: untyped for i in range(2, size - 1)}
    return dict.fromkeys(range(1, size), _JOINED) | parts | dict.fromkeys(typed, _ANY_JOINER)


def _is_path(term: str) -> bool:
    return "/" in term or "." in term


def _text_of(field: str, mode: SearchMode, pathlike: bool) -> str:
    """The folded text a term is looked for in: a ranked search's word looks at the
    paths below their top directory only."""
    return "path_names" if field == "paths" and mode.words and not pathlike else field


@cache
def _beside_cjk() -> re.Pattern[str]:
    """A space beside a CJK character in a term (`“前缀 缓存”`, `"KV 缓存"`)."""
    return re.compile(rf"(?<=[{_CJK}])\s+|\s+(?=[{_CJK}])")


def _cjk_spaced(term: str) -> re.Pattern[str]:
    """A term holding a CJK character, a space beside each of its CJK characters there
    or not, typed or not: Chinese writes no space between words, and a reader may type
    one, or a note have one or a line break (`前缀缓存`, `前缀 缓存`, `KV 缓存`, `KV缓存`
    find one another). Its English words keep the space between them (`dead lock` is
    no `deadlock`), as without a CJK character."""
    bare = _beside_cjk().sub("", term)
    spaced = [re.escape(bare[0])]
    for before, char in itertools.pairwise(bare):
        if _is_cjk().match(before) or _is_cjk().match(char):
            spaced.append(r"\s*")
        spaced.append(re.escape(char))
    return re.compile("".join(spaced))


# An English plural's last word: three letters or more and `s`, not `ss`, `is` or `us`
# (`class`, `basis`, `focus`) but an acronym's `pus` (`GPUs`, `CPUs`); `-es` after a
# sibilant (`batches`, `processes`, `fixes`) and `-ies` are the rest of its ending
_PLURAL = re.compile(r"(?<![a-z])[a-z]{2,}(?<![si])(?<![^p]u)s$")
_SIBILANT_ES = re.compile(r"(?:ss|sh|ch|x|z)es$")
_SINGULAR_MIN = 3  # letters: `uses` is no `us`, `ops` no `op`
_LAST_LETTERS = re.compile(r"[a-z]*$")


def _last_letters(word: str) -> int:
    """How many letters a-z end the word (`_LAST_LETTERS`, which any word has, if none)."""
    found = _LAST_LETTERS.search(word)
    assert found is not None
    return len(found[0])


def _singulars(term: str) -> list[str]:
    """What an English plural term also finds: its singular (`deadlocks` a note's
    `deadlock`, `failures` `failure`, `hashes` `hash`, `queries` `query`, `GPUs` `GPU`),
    each written without the ending, as the reader typed its plural."""
    if not term.isascii() or not _PLURAL.search(term):
        return []
    forms = [term[:-1]]
    if _SIBILANT_ES.search(term):
        forms.append(term[:-2])
    if term.endswith("ies"):
        forms.append(term[:-3] + "y")
    return [f for f in forms if _last_letters(f) >= _SINGULAR_MIN and f not in _OTHER_WORDS_S]


# A word whose other forms are looked for: English letters, its parts joined by hyphens
# (`kv-caching`). An identifier (`kv_cache`, `_align_cacheable`), a name with a digit
# (`fp8`), a flag (`--enforce-eager`), a number or a phrase is found as it is.
_ENGLISH_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")
_MIN_STEM = 3  # letters, of the last part: `used` is no `us`, `adding` no `ad`
# But a verb of three letters in -e (`use`, `age`) has a stem of two, a vowel and a
# consonant, before an ending only (`used`, `using`, `uses`: `us`); not `do` of `doing`
# (`doe`), `be` of `being` (`bee`), `fe` of `feed`, nor `th` of `the` (`thing`)
_SHORT_E_STEM = re.compile(r"(?<![a-z])[aeiou][^aeiou]$")
_VOWEL = re.compile(r"[aeiouy]")  # every stem's last part holds one: `string` is no `str`
# an -ion or -ation noun's stem is longer: `portion` is no `port`, `station` no `state`
_MIN_NOUN_STEM = 5
_VERB_ENDINGS = ("ings", "ing", "ed")  # what a query word loses to its stem
# `committ` of `committed`: `commit`; `l` too, as `control` and the British (`cancelled`)
# double it (one syllable's `ll` is its own, `stall`, `poll`: no single is cut from it)
_DOUBLED = re.compile(r"([bdglmnprt])\1$")
# A `c` doubles as `ck` (`panic`, `panicked`): past one syllable, whose `ck` is its own
# (`pick`, `picked`)
_IC_K = re.compile(r"[aeiouy][^aeiouy]+ick$")
# One syllable ending in one vowel and one consonant: such a verb doubles the consonant
# before -ed and -ing (`plan`, `planned`), so `stated` is state's, not stat's
_ONE_SHORT_SYLLABLE = re.compile(r"^[^aeiouy]*[aeiouy][^aeiouwxy]$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")  # `query`: `queries`, `queried`
_CONSONANT_I = re.compile(r"[^aeiou]i$")  # `queri` of `query`, `ti` of `tie`
# A verb of one syllable in -ie (`tie`, `lie`, `die`): its -ing is `y`'s (`tying`)
_SHORT_IE = re.compile(r"(?<![a-z])([^aeiouy])(?:ie|ied|ying)$")
_CONSONANT_ER = re.compile(r"[^aeiouy]er$")  # `register`: `registration`
_CONSONANT_R = re.compile(r"[^aeiouy]r$")  # `registr` of `registration`: `register`
# Words whose -ion or -ation noun is another word's: `production` is produce's,
# `integration` integrate's, `projection` project's as a verb, `exception` no prose's
# `except`; neither finds the other
_OTHER_WORDS_NOUN = frozenset(
    ("product", "integer", "project", "direct", "content", "express", "object", "subject")
    + ("concept", "except", "access", "process", "success")
)
# Words whose -ed and -ing words are another word's, where no spelling tells: `pasted`
# is paste's, `meaning`, `evening` and `heading` nouns of their own (vLLM's `head` is an
# attention head), `tried` try's, not the noun `trie`'s, `united` unite's (as `limited`
# is limit's), `canned`, `willing` and `butted` no modal's or conjunction's (as `pinned`
# is pin's); neither finds the other, doubled or not
_OTHER_WORDS_ED_ING = frozenset(
    ("past", "mean", "even", "head", "trie", "unit", "can", "will", "but")
)
# Words whose -s is another word: `news`, `does` (do's); neither finds the other
_OTHER_WORDS_S = frozenset(("new", "doe"))
# `batches`, `hashes`, `indexes`, `echoes`; a `y` respelled: `queries`
_TAKES_ES = re.compile(r"(?:[sxzo]|[cs]h|[^aeiou]i)$")


class _Stem(NamedTuple):
    """What a word shares with its other forms (`_stems`)."""

    text: str
    alone: bool  # a word by itself (`preempt`), not only before an ending (`captur`)
    # it may have lost a silent `e` (`captur`, `stat` of `stated`); not the word as
    # typed, nor `plan` of `planned`, whose doubled consonant says it had none, nor a
    # consonant's `y` (`query` of `queried`) or its `i` (`queri`)
    lost_e: bool = True


def _stems(term: str) -> list[_Stem]:
    """The stems an English word shares with its other forms: `preempted`, `preempt` and
    `preemption` have `preempt`; `capturing`, `capture` and `captured` `captur` (no word
    alone); `quantized` and `quantization` `quantiz`; `registering` `register`, whose
    -ation noun drops its `e`, `registr`. Only a verb's inflections, an -ion or -ation
    noun and a silent `e`: other endings (`-er`, `-able`, `-ive`) make other words
    (`worker`, `cacheable`). An -ed or -ing word is cut to the stem it likely has:
    `planned` to `plan`, `stated` to `stat` before an ending only (`state`), never the
    word `stat` (`_cut_stems`)."""
    if not _ENGLISH_WORD.fullmatch(term):
        return []
    size = _last_letters(term)
    found = []
    cut = next((e for e in ("ied", *_VERB_ENDINGS) if term.endswith(e)), "")
    if short_ie := _SHORT_IE.search(term):  # `tie`, `tied`, `tying`: `ti` (and `ty`)
        found.append(_Stem(term[: short_ie.start()] + short_ie[1] + "i", False))
    elif cut == "ied" and size - 2 >= _MIN_STEM:
        found.append(_Stem(term[:-3] + "y", True, lost_e=False))
    elif cut and size - len(cut) >= _MIN_STEM and _has_vowel(term[: -len(cut)]):
        found += _cut_stems(term[: -len(cut)], size - len(cut))
        if size - len(cut) == _MIN_STEM:  # so short, a word of its own: `embed`, `speed`
            found.append(_Stem(term, True, lost_e=False))
    elif cut and _SHORT_E_STEM.search(term[: -len(cut)]):  # `used`, `using`: `us`
        found.append(_Stem(term[: -len(cut)], False))
    elif (
        term.endswith("e")
        and (size > _MIN_STEM or _SHORT_E_STEM.search(term[:-1]))
        and term not in _OTHER_WORDS_ED_ING
    ):
        found.append(_Stem(term[:-1], False))
    for noun, alone in (("ation", False), ("ion", True)):
        if term.endswith(noun) and size - len(noun) >= _MIN_NOUN_STEM:
            stem = term[: -len(noun)]
            if (noun == "ation" or stem[-1] in "st") and stem not in _OTHER_WORDS_NOUN:
                found.append(_Stem(stem, alone))
    if not found and size >= _MIN_STEM:
        found.append(_Stem(term, True, lost_e=False))  # none of those endings: itself
    return _respelled(term, found)


def _has_vowel(text: str) -> bool:
    """Whether the last part of a stem holds a vowel, as a word's does: `string` is no
    -ing of `str`, `per` no `pr` before -e as `register` is `registr` before -ation."""
    return _VOWEL.search(text[-_last_letters(text) :]) is not None


def _cut_stems(stem: str, size: int) -> list[_Stem]:
    """The stems of a word that lost -ed or -ing (`stem`, its last part `size` letters):
    a doubled consonant's single (`planned`: `plan`, which had no `e` to lose); a
    stem that would have doubled its consonant (`stat` of `stated`), or whose own -ed
    and -ing are no form of it (`past` of `pasted`), a word only with the `e` it lost;
    an -ing that kept its `e` (`queueing`) the stem its other endings take (`queu`)."""
    if (_DOUBLED.search(stem) or _IC_K.search(stem[-size:])) and size > _MIN_STEM:
        single = stem[:-1]
        if stem.endswith("ll") and _ONE_SHORT_SYLLABLE.search(single[1 - size :]):
            # `polled` is poll's: `pol` is no word; `willing` no modal's
            return [_Stem(stem, not _ed_ing_are_anothers(stem[-size:]))]
        if single[1 - size :] in _OTHER_WORDS_ED_ING:  # `canned` is no modal's
            return [_Stem(stem, True)]
        return [_Stem(stem, True), _Stem(single, True, lost_e=False)]
    found = [_Stem(stem, not _ed_ing_are_anothers(stem[-size:]))]
    if stem.endswith(("ee", "ue")) and size > _MIN_STEM:  # not `refere` of `refereed`
        found.append(_Stem(stem[:-1], False))
    return found


def _ed_ing_are_anothers(word: str) -> bool:
    """Whether a word's -ed and -ing, its last letter single, are another word's: after
    one short syllable (`stated` is state's, `planed` plane's: `stat` and `plan` double
    it), or one of `_OTHER_WORDS_ED_ING`."""
    return bool(_ONE_SHORT_SYLLABLE.search(word)) or word in _OTHER_WORDS_ED_ING


def _respelled(term: str, stems: list[_Stem]) -> list[_Stem]:
    """The stems with how English respells them before an ending: `register` as `registr`
    before -ation (and back), `query` as `queri` (`queried`), a British `-is-` as `-iz-`
    (`normalised`, `normalized`)."""
    found = dict.fromkeys(stems)
    for stem, alone, lost_e in stems:
        if alone and _CONSONANT_ER.search(stem) and stem not in _OTHER_WORDS_NOUN:
            if _has_vowel(stem[:-2]):
                found[_Stem(stem[:-2] + "r", False)] = None
        if not alone and _CONSONANT_R.search(stem) and stem[:-1] + "er" not in _OTHER_WORDS_NOUN:
            found[_Stem(stem[:-1] + "er", True)] = None
        if alone and _CONSONANT_Y.search(stem):
            found[_Stem(stem[:-1] + "i", False, lost_e=False)] = None
        if not alone and lost_e and _CONSONANT_I.search(stem):  # `untie`: `untying`
            found[_Stem(stem[:-1] + "y", False, lost_e=False)] = None
        if stem.endswith(("is", "iz")) and stem != term:  # `analysis` is no `analysiz`
            found[_Stem(stem[:-1] + ("z" if stem.endswith("s") else "s"), alone, lost_e)] = None
    return list(found)


def _spellings(stem: _Stem, typed: bool) -> str:
    """The endings a stem takes, as a regex (what follows the stem in a word of its forms):
    a verb's inflections, -ion after `t` or `s` (`preempt`: `preemption`), -ation unless
    the stem is the word as typed (`compil`, `quantiz`: `compilation`, `quantization`;
    `valid` does not find `validation`, `specific` `specification`), its last consonant
    doubled (`commit`: `committed`; `canceled`'s `cancel`: `cancelled`), but not after one
    short syllable that may have lost an `e` (`plane`'s `plan` is never `planned`), and
    only doubled after one that lost none (`plan`: `planned`, as `planed` is plane's). A
    silent `e` only where one may have been cut off (`captur`, `stat` of `stated`; kept
    before -ing by `queueing`): the word as typed plus `e` is another word (`stat`,
    `state`; `local`, `locale`), and it takes `-es` only after a sibilant or `o`
    (`batches`) or as a `y` respelled (`queri`: `queries`)."""
    text = stem.text
    last = text[-_last_letters(text) :]
    inflected = _inflections(text)
    if stem.lost_e:
        endings = [*inflected, "e", "es", "eings?"]  # `queu`: `queuing`, `queueing`
    else:
        endings = [] if _ed_ing_are_anothers(last) else inflected
        if _TAKES_ES.search(text):
            endings.append("es")
    if doubled := _doubled(last, stem.lost_e):
        endings.append(f"{doubled}(?:ed|ings?)")
    if stem.alone and not text.endswith("s") and text not in _OTHER_WORDS_S:
        endings.append("s")  # (a word's `ss` is its own: `miss` is no plural of `mis`)
    if _last_letters(text) >= _MIN_NOUN_STEM and text not in _OTHER_WORDS_NOUN:
        if text[-1] in "st":
            endings.append("ions?")
        if not typed:
            endings.append("ations?")
    return f"(?:{'|'.join(endings)}){'?' if stem.alone else ''}"


def _doubled(last: str, lost_e: bool) -> str:
    """The last letter a stem's last part (`last`) doubles before -ed and -ing, or none:
    one vowel's consonant (`commit`: `committed`), but not one short syllable's that may
    have lost an `e` (`plane`'s `plan`), nor its `l` or `s` (`poll`, `stall`, `miss` are
    words: `pol` and `mis` take none); a `c` as `ck` past one syllable (`panic`:
    `panicked`), never after a lost `e`, which kept it soft (`replaced`), nor one
    syllable's (`doc` is no `docked`), nor a word whose -ed and -ing are another's (`can`
    is no `canned`)."""
    if not re.search(r"[aeiou][^aeiouwxy]$", last) or last in _OTHER_WORDS_ED_ING:
        return ""
    one_short_syllable = _ONE_SHORT_SYLLABLE.search(last) is not None
    if last.endswith("c"):
        return "" if lost_e or one_short_syllable else "k"
    if one_short_syllable and (lost_e or last.endswith(("l", "s"))):
        return ""
    return last[-1]


def _inflections(text: str) -> list[str]:
    """The -ed and -ing a stem takes, as regexes: after a consonant, `y` takes -ing, its
    -ed is its `i`'s (`query`: `querying`; `queri`: `queried`; `dying` is no `dyed`).
    None without a vowel: an acronym (`llm`: `llms`), `str` no `string`."""
    if not _has_vowel(text):
        return []
    if _CONSONANT_Y.search(text):
        return ["ings?"]
    return ["ed", "ings?"]


def _forms(terms: list[str], before: str, end: str) -> tuple[re.Pattern[str], ...]:
    """The English words' other forms (`_stems`), as whole words not after a character
    of class `before`, their parts joined any way. One pattern for the stems that open
    alike (a word's all do), their rests its branches: joined whole, they no longer open
    with a character, and a search took twice as long; apart, each read the text again
    (`tie`'s `ti` and `ty`, as `tying`, took three times as long as `tie`)."""
    rests: dict[str, list[str]] = {}
    for term, stem in ((t, s) for t in terms for s in _stems(t)):
        ending = _spellings(stem, stem.text == term) + end
        opening, rest = _compound_parts(stem.text, before, ending)
        rests.setdefault(opening, []).append(rest)
    return tuple(re.compile(f"{o}(?:{'|'.join(r)})") for o, r in rests.items())


@dataclass(frozen=True)
class _Matcher:
    """Whether a text holds a term: as typed (or a plural's singular), or in another of
    its forms (`preempted` as `preemption`), which ranks after."""

    exact: Callable[[str], bool]
    forms: tuple[re.Pattern[str], ...] = ()

    def found(self, text: str) -> bool | None:
        """True: as typed; False: as another form; None: not at all."""
        if self.exact(text):
            return True
        return False if any(f.search(text) for f in self.forms) else None


def _matcher(term: str, words: bool) -> _Matcher:
    if _is_cjk().search(term):
        phrase = _cjk_spaced(term)
        return _Matcher(lambda text: phrase.search(text) is not None)
    if words and _is_path(term):
        return _Matcher(lambda text: term in text)  # a path's piece, in a longer path
    if term.isascii() and term.isdigit():
        # a number is whole in a filter too: `5241` is not PR 52419, nor `5006` PR 50062
        number = re.compile(_not_after(_WORD_CHAR, term[0]) + term[1:] + _WORD_END)
        return _Matcher(lambda text: number.search(text) is not None)
    singular = [term, *_singulars(term)]
    if words:  # a whole word, its parts joined any way
        whole = [_compound(f, _WORD_CHAR, _WORD_END) for f in singular]
        forms = _forms(singular[1:] or singular, _WORD_CHAR, _WORD_END)
        return _Matcher(lambda text: any(w.search(text) for w in whole), forms)
    compounds = [_compound(f, _ALNUM) for f in singular]
    forms = _forms(singular[1:] or singular, _ALNUM, f"(?!{_ALNUM})")
    return _Matcher(
        lambda text: any(f in text for f in singular) or any(c.search(text) for c in compounds),
        forms,
    )


@lru_cache(maxsize=8192)  # notes are frozen; folding every note on every search adds up
def _folded(note: Note) -> dict[str, str]:
    return {
        "id": fold(note.id),
        "title_en": fold(note.title_en),
        "title_zh": fold(note.title_zh),
        "keywords": fold("\n".join(note.keywords)),
        "summary_en": fold(note.summary_en),
        "guidance": fold(note.guidance[:SEARCHED_GUIDANCE_CHARS]),
        "source_pr": str(note.source_pr or ""),
        "aspects": fold("\n".join(note.aspects)),
        "paths": fold("\n".join(note.paths)),
        # what a word (not a path) finds among the paths: their parts below the top
        # directory (`vllm`, `tests`), which nearly every note's paths start with
        "path_names": fold("\n".join(p.strip("/").partition("/")[2] for p in note.paths)),
        "read_with": "\n".join(map(str, note.read_with)),
        "issues": "\n".join(map(str, note.issues)),
    }


def _topic_texts(topics: Mapping[str, Topic]) -> dict[str, str]:
    """Each topic's id and names, folded: what a note's `topics` field is searched by."""
    return {t.id: fold(f"{t.id}\n{t.name_en}\n{t.name_zh}") for t in topics.values()}


def search_notes(
    notes: Iterable[Note],
    query: str,
    mode: SearchMode = RANKED,
    limit: int | None = None,
    topics: Mapping[str, Topic] | None = None,
) -> list[SearchHit]:
    """The notes the query finds, ranked by `_rank`: most terms first, then most found as
    typed, weight, verdict, newest source PR.

    `topics`: the taxonomy, so a topic's names find its notes (else its id alone does).
    A query without terms finds every note in a filter (nothing to filter on) and
    none in a ranked search (nothing to rank by).
    """
    notes = list(notes)
    terms = query_terms(query, mode, frozenset(n.repo.lower() for n in notes))
    if not terms:
        return [SearchHit(n, 0.0) for n in notes] if mode.require_all else []
    matchers = [(_matcher(t, mode.words), _is_path(t)) for t in terms]
    order = {name: i for i, name in enumerate(sorted(mode.weights, key=lambda k: -mode.weights[k]))}
    named = _topic_texts(topics or {})
    hits = []
    for note in notes:
        texts = _folded(note)
        if "topics" in mode.weights:
            texts = texts | {"topics": "\n".join(named.get(t, t) for t in note.topics)}
        found_terms: list[str] = []
        as_typed, score, where = 0, 0.0, set()
        for term, (matcher, pathlike) in zip(terms, matchers, strict=True):
            found = {k: matcher.found(texts[_text_of(k, mode, pathlike)]) for k in mode.weights}
            fields = [k for k, how in found.items() if how is not None]
            if fields:
                found_terms.append(term)
                as_typed += any(found.values())
                score += sum(mode.weights[k] for k in fields)
                where.update(fields)
            elif mode.require_all:
                break
        if found_terms and (len(found_terms) == len(terms) or not mode.require_all):
            heaviest = tuple(sorted(where, key=order.__getitem__))
            hits.append(SearchHit(note, score, heaviest, as_typed, tuple(found_terms)))
    hits.sort(key=_rank)
    return hits if limit is None else hits[:limit]


def _rank(hit: SearchHit) -> tuple[int, int, float, int, int, str]:
    """Most terms first, then most found as typed (`preempted` before `preemption`), then
    weight, verdict, newest source PR."""
    note = hit.note
    return (
        -hit.terms,
        -hit.as_typed,
        -hit.score,
        note.verdict.rank,
        -(note.source_pr or 0),
        note.id,
    )

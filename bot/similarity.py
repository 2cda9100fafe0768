"""How much a PR title resembles a note's title, word by word (pure: the vocabulary file
is read by bot/config_files.py `load_vocabulary`).

vLLM titles rarely carry a note's exact keywords, but they often say the same thing in
the same words: "Narrow DeepSeek V4 eager CUDA graph region" against the note "Pick the
DeepSeek V4 eager CUDA-graph region per model runner". Words are weighed by how rare
they are in vLLM's PR titles (inverse document frequency over a vocabulary built from
the repository's history, config/title_vocabulary.json): sharing `region` and `eager`
says much, sharing `fix` or `model` nothing: words below an IDF floor are not counted, and
English function words, most of which are rarer than that floor, are left out by name.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass

_PR_SUFFIX = re.compile(r"\(#\d+\)")
# Split identifiers where a capitalised word starts: MegaMoE -> Mega MoE, KVConnector ->
# KV Connector; acronyms stay whole (MoE, LoRA, DSv4).
CAMEL_CUT = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")
_WORD = re.compile(r"[a-z0-9]+")
# English function words (prepositions, conjunctions, determiners, pronouns, auxiliary
# verbs, particles): most are rare enough in titles to pass the IDF floor (`between` is
# in 1 title in 500), and none is what a title is about. `all` is not among them: it is
# half of `all-reduce` and `all-gather`.
_FUNCTION_WORDS = frozenset(
    """
    a an the this that these those each every both either neither some any such no
    and or but nor so yet if than then because unless whether though although
    about above across after against along among around as at before behind below
    beneath beside besides between beyond by despite down during except for from in
    inside into like near of off on onto out outside over past per since through
    throughout till to toward towards under underneath unlike until up upon versus
    via vs with within without
    it its they them their we our you your he she his her me my us
    is are was were be been being has have had do does did can could may might must
    shall should will would
    how what who why whom whose when where which while
    not also again ever never here there now once only instead too very just more
    most same other own etc one two
    """.split()
)


def title_words(text: str) -> frozenset[str]:
    """The words of a title, lower case: identifiers split at `_` and where a capitalised
    word starts, a plural `s` dropped; numbers, single letters and English function
    words left out."""
    text = CAMEL_CUT.sub(" ", _PR_SUFFIX.sub(" ", text))
    words = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word.isdigit() or word in _FUNCTION_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return frozenset(words)


def only_uncounted_words(text: str) -> bool:
    """Whether the text writes only ASCII words and `title_words` leaves out every one
    (`the`, `in the`, `a`, `100`): words too common, or too meaningless, for the
    vocabulary to count, so no title frequency measures them. Not a text with other
    letters (`P/D 分离`): those say what it is about."""
    if any(ch.isalpha() and not ch.isascii() for ch in text):
        return False
    return bool(_WORD.search(text.lower())) and not title_words(text)


_NAME = re.compile(r"[A-Za-z0-9_]+")


def names_in(text: str) -> frozenset[str]:
    """The identifiers and words a text writes, as written (`get_kv_connector_stats`,
    `DeepSeek`): what `written_form` may quote whole. Case counts: `Deepseek` is one
    title word, `DeepSeek` two."""
    return frozenset(_names(text))


def _names(text: str) -> list[str]:
    """The identifiers and words a text writes, in order, its `(#123)` suffix aside."""
    return _NAME.findall(_PR_SUFFIX.sub(" ", text))


def written_form(
    text: str, word: str, said: frozenset[str], along: frozenset[str] = frozenset()
) -> str:
    """How a reason quotes a title word it shares with a note: as the title writes it,
    but never more than the note says. The identifier the word was read from when it is
    that word alone (`stats`, `DSpark`) or the note writes it too (`said`, `names_in` of
    the note's title or keywords: `DeepSeek`, `get_kv_connector_stats`); else the word's
    own piece of it (`stats` of `get_kv_connector_stats` against a note titled "KV
    connector stats"). The note writes a name in any case (`DeepGEMM` for the title's
    `DeepGemm`), and a name the note writes within the title's is quoted whole
    (`DeepSeek` of `DeepSeekV4`), never a syllable of it (`Deep`); so is a name whose
    every word is quoted with it from the same side of the note (`along`: `DeepGemm` for
    `deep` and `gemm`, both of the note's keyword `deep_gemm_warmup`). The word itself when
    the title has no written form of it (the Kelvin sign lower-cases to an ASCII k)."""
    piece = ""
    said_lower = frozenset(s.lower() for s in said)
    for name, words, pieces in _named_pieces(text):
        if word not in words:
            continue
        if name.lower() in said_lower or _only(along | {word}, name, words, pieces):
            return name
        at = next((n for n, p in enumerate(pieces) if p[2] == word), None)
        if at is not None and (run := _said_run(name, pieces, at, said_lower)):
            return run
        if not piece and at is not None:
            # the word's own piece, with any letters glued to it that are no word (the `D`
            # of `DSpark_config`, the `C` of `CMake_args`)
            part = pieces[at][3]
            first = last = at
            while first > 0 and not pieces[first - 1][2] and pieces[first - 1][3] == part:
                first -= 1
            while (
                last + 1 < len(pieces) and not pieces[last + 1][2] and pieces[last + 1][3] == part
            ):
                last += 1
            piece = name[pieces[first][0] : pieces[last][1]]
    return piece or word


def _said_run(name: str, pieces, at: int, said_lower: frozenset[str]) -> str:
    """The longest name the note writes (`said_lower`, lower case) within `name` around
    piece `at`, as the title writes it; "" for none. It starts where a piece does and
    ends where one does or before a capital or digit (`DeepSeek` of `DeepSeekV4`, whose
    pieces are `Deep` and `SeekV4`), not inside a word (`Seek` of `Seeking`)."""
    starts, ends = {p[0] for p in pieces}, {p[1] for p in pieces}
    a, b = pieces[at][0], pieces[at][1]
    lowered, best = name.lower(), ""
    for s in said_lower:
        i = lowered.find(s)
        while i != -1:
            j = i + len(s)
            ends_well = j == len(name) or j in ends or not name[j].islower()
            if i <= a and b <= j and i in starts and ends_well and j - i > len(best):
                best = name[i:j]
            i = lowered.find(s, i + 1)
    return best


def _only(quoted: frozenset[str], name: str, words: frozenset[str], pieces) -> bool:
    """The name writes no word but these (`EC`, `DSpark`: its `D` is no word), not even
    one left uncounted (`ec_both`: `both` is a function word)."""
    return words <= quoted and not any(
        name[a:b].lower() in _FUNCTION_WORDS for a, b, _, _ in pieces
    )


@functools.lru_cache(maxsize=64)
def _named_pieces(
    text: str,
) -> tuple[tuple[str, frozenset[str], tuple[tuple[int, int, str, int], ...]], ...]:
    """Each name the title writes, with its words and pieces (read once per title: every
    note the title resembles quotes from them)."""
    return tuple((name, title_words(name), tuple(_pieces(name))) for name in _names(text))


def _pieces(name: str) -> list[tuple[int, int, str, int]]:
    """(start, end, its title word or "", which `_`-separated part) of each piece of an
    identifier, cut where `title_words` cuts it: at `_` and where a capitalised word
    starts."""
    out = []
    for n, part in enumerate(re.finditer(r"[A-Za-z0-9]+", name)):
        cuts = [0, *(m.start() for m in CAMEL_CUT.finditer(part.group(0))), len(part.group(0))]
        for a, b in itertools.pairwise(cuts):
            words = title_words(part.group(0)[a:b])
            out.append((part.start() + a, part.start() + b, next(iter(words), ""), n))
    return out


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Document frequencies of title words over `titles` PR titles. Words seen fewer
    than twice are not stored: they count as never seen (the rarest)."""

    titles: int
    df: dict[str, int]

    def idf(self, word: str) -> float:
        return math.log((self.titles + 1) / (self.df.get(word, 0) + 1))


def shared_words(
    pr_words: frozenset[str], note_words: frozenset[str], vocab: Vocabulary, floor: float
) -> list[tuple[str, float]]:
    """The words both share that are rare enough to say something, rarest first."""
    found = [(w, vocab.idf(w)) for w in pr_words & note_words]
    return sorted(((w, i) for w, i in found if i >= floor), key=lambda wi: (-wi[1], wi[0]))


def build_vocabulary(titles: list[str], min_count: int = 2) -> dict:
    """The vocabulary file's content for these titles."""
    counts: dict[str, int] = {}
    for title in titles:
        for word in title_words(title):
            counts[word] = counts.get(word, 0) + 1
    kept = {w: n for w, n in sorted(counts.items()) if n >= min_count}
    return {"titles": len(titles), "df": kept}

"""How much a PR title resembles a note's title, word by word (pure: the vocabulary file
is read by bot/config_files.py `load_vocabulary`).

vLLM titles rarely carry a note's exact keywords, but they often say the same thing in
the same words: "Narrow DeepSeek V4 eager CUDA graph region" against the note "Pick the
DeepSeek V4 eager CUDA-graph region per model runner". Words are weighed by how rare
they are in vLLM's PR titles (inverse document frequency over a vocabulary built from
the repository's history, config/title_vocabulary.json): sharing `region` and `eager`
says much, sharing `fix` or `model` nothing: words below an IDF floor are not counted,
and only English function words, which sit near that floor, are left out by name.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_PR_SUFFIX = re.compile(r"\(#\d+\)")
# Split identifiers where a capitalised word starts: MegaMoE -> Mega MoE, KVConnector ->
# KV Connector; acronyms stay whole (MoE, LoRA, DSv4).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])|(?<=[A-Z])(?=[A-Z][a-z]{2})")
_WORD = re.compile(r"[a-z0-9]+")
# English function words: frequent enough in titles to sit near the IDF floor, and never
# what a title is about.
_FUNCTION_WORDS = frozenset(
    "a an and are as at be but by for from if in into is it its not of on onto or per so "
    "than that the then this to via when where which while with without".split()
)


def title_words(text: str) -> frozenset[str]:
    """The words of a title, lower case: identifiers split at `_` and where a capitalised
    word starts, a plural `s` dropped; numbers, single letters and English function
    words left out."""
    text = _CAMEL.sub(" ", _PR_SUFFIX.sub(" ", text))
    words = set()
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word.isdigit() or word in _FUNCTION_WORDS:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return frozenset(words)


def word_forms(text: str) -> dict[str, str]:
    """Each title word -> the identifier or word it was read from, as written
    (`seek` -> `DeepSeek`, `state` -> `swap_states`): what a reason should quote."""
    forms: dict[str, str] = {}
    for chunk in re.findall(r"[A-Za-z0-9_]+", _PR_SUFFIX.sub(" ", text)):
        for word in title_words(chunk):
            forms.setdefault(word, chunk)
    return forms


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

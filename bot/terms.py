"""Find keywords in text, all of them at once (pure).

Step 3 of the flow (event -> PR facts -> matches -> comment -> GitHub): bot.matching
finds the topics' and notes' keywords in the PR's words with it. How a keyword matches:
`TermIndex`.

Every keyword is compiled into one regular expression shaped like a trie (several, one
after another, when keywords nest deep: `trie_regex`), so a text is scanned once however
many keywords there are; overlapping hits are all reported, each with where it is
(`TermHit.spans`), so a caller can count one mention once.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

# Where an identifier may be cut into words: case changes and letter/digit changes. An
# acronym's plural is not cut: `PDFs` is PDF plural, not `PD` + `Fs` (`KVConnector` is
# KV + Connector).
_INNER_EDGE = (
    r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])(?![A-Z]s(?![A-Za-z0-9]))"
    r"|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)
_START = r"(?-i:(?<![A-Za-z0-9])|" + _INNER_EDGE + ")"
_END = r"(?-i:(?![A-Za-z0-9])|" + _INNER_EDGE + ")"
# What may stand between the words of a keyword: up to four spaces (a no-break one
# too), joiners and Unicode dashes, dots and parentheses ("EC (encoder cache)
# connector"), not what ends a phrase or a quote (`prefix. Cache`, "the `kv cache`
# manager", `prefix, caching`).
_SEP = r"(?:[^\S\n]|[_\-/+<=>~*()→⇒←↔\u2010-\u2015\u2212]|\.(?!\s)){0,4}"
_SEP_MARK = "\x00"  # trie edge standing for _SEP
_PLURAL = r"(?:e?s)?"

_WORDS = re.compile(r"[A-Za-z0-9]+")
_SPLIT = re.compile(_INNER_EDGE)


def _chunks(term: str) -> list[str]:
    """`KVConnector stats` -> ['kv', 'connector', 'stats']."""
    out: list[str] = []
    for word in _WORDS.findall(term):
        out += [c.lower() for c in _SPLIT.split(word) if c]
    return out


_CAMEL = re.compile(r"[a-z][A-Z]")


def is_code_name(term: str) -> bool:
    """A name from the code (`persistent_topk`, `KVConnectorStats`), not a phrase: one ASCII
    token with an underscore or a lower-to-upper case change."""
    return (
        term.isascii()
        and not any(c.isspace() for c in term)
        and ("_" in term.strip("_") or bool(_CAMEL.search(term)))
    )


def is_private_name(term: str) -> bool:
    """`_capturing`: a private name, matched as written."""
    return term.isascii() and term.startswith("_") and bool(_WORDS.search(term))


def term_key(term: str) -> str:
    """The identity of a keyword: spellings that match the same texts share a key."""
    if is_private_name(term):
        return term.strip().lower()
    if term.isascii():
        return "".join(_chunks(term))
    return re.sub(r"\s+", " ", term.strip().lower())


@dataclass(frozen=True)
class TermHit:
    key: str
    text: str  # the first occurrence, as written in the text
    count: int
    spans: tuple[tuple[int, int], ...] = ()  # (start, end) of each occurrence, in order


def _balanced(text: str, start: int, end: int) -> str:
    """The text of a hit as a reason quotes it: a match that runs across a bracket of the
    text (separators may be brackets) is quoted with its partner, and with the name an
    opening bracket explains: 'EC (encoder cache) connector', not 'encoder cache)
    connector'. Brackets pair by depth; one with no partner in the text leaves the hit
    as it is."""
    open_at = _partner(text, start, end)
    if open_at is None:
        return text[start:end]
    start, end = open_at
    if text[start] == "(":  # the name the bracket explains, before a run of brackets
        lead = start
        while lead > 0 and text[lead - 1] == "(":
            lead -= 1
        if (name := _name_before(text, lead)) is not None:
            # the run's other brackets close after it: 'EC ((encoder cache) connector)'
            start, end = _partner(text, name, end) or (start, end)
    return text[start:end]


def _name_before(text: str, at: int) -> int | None:
    """Where the name before a bracket at `at` starts (`EC (`: a run of letters, digits
    and `_.+-`, then spaces on the same line), or None. Walked back from the bracket: a
    regex anchored at its end is tried from every start before it, quadratic in a long
    run of word characters (7 s at 32 KB)."""
    gap = at
    while gap > 0 and text[gap - 1] != "\n" and text[gap - 1].isspace():
        gap -= 1
    start = gap
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.+-"):
        start -= 1
    return start if start < gap else None


def _partner(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The hit widened to the partners of the brackets it holds alone; None when one has
    none (or nothing needs widening: then the hit itself)."""
    depth = low = 0
    for ch in text[start:end]:
        depth += (ch == "(") - (ch == ")")
        low = min(low, depth)
    need_open, need_close = -low, depth - low  # unmatched ) before, ( after
    if not need_open and not need_close:
        return start, end
    while need_open:
        start -= 1
        if start < 0:
            return None
        need_open += (text[start] == ")") - (text[start] == "(")
    while need_close:
        if end >= len(text):
            return None
        need_close += (text[end] == "(") - (text[end] == ")")
        end += 1
    return start, end


# `re` parses and compiles a group inside another by recursion, two frames a level, and
# keywords each a prefix of the next (`kk`, `kkk`, ...) nest one level each: some 500 of
# them passed Python's recursion limit. A trie deeper than this is written as several
# shallower ones, one after another.
_MAX_NESTING = 100
_AFTER_ANY_CHAR = sys.maxunicode + 1


def trie_regex(sequences: Iterable[str]) -> str:
    """One alternation for many strings, factored on common prefixes (so a scan tries
    a few branches per position, not one per string).

    At a position the pattern tries the strings in one order (`_trie_order`), and takes
    the first that matches there with what follows it; tries of consecutive runs of that
    order, written one after another, try them in the same order, so cutting a deep trie
    into runs nesting at most `_MAX_NESTING` groups changes no match."""
    ordered = sorted(set(sequences), key=_trie_order)
    tries = [_trie_pattern(run) for run in _shallow_runs(ordered)]
    if len(tries) == 1:
        return tries[0]
    return "(?:" + "|".join(tries) + ")" if tries else ""


def _trie_order(seq: str) -> tuple[int, ...]:
    """The order a trie's pattern tries its strings in: a node's children by character,
    then the string ending there (greedy: the longer first)."""
    return (*map(ord, seq), _AFTER_ANY_CHAR)


def _shallow_runs(ordered: list[str]) -> list[list[str]]:
    """`ordered` (in trie order) cut into consecutive runs whose tries nest at most
    `_MAX_NESTING` groups: each run as long as it can be."""
    runs: list[list[str]] = []
    frames: list[tuple[int, int, int]] = []
    for seq in ordered:
        if runs:
            shared = _common_prefix(runs[-1][-1], seq)
            grown = _grown(frames, shared, shared == len(seq))
            if _nesting(grown) <= _MAX_NESTING:
                runs[-1].append(seq)
                frames = grown
                continue
        runs.append([seq])
        frames = []
    return runs


# How deep a trie nests groups, kept while strings are added to it in trie order: a
# frame for each node on the path to the last string added that opens a group, as
# (depth in characters, groups it opens, deepest nesting of its finished children). A
# node opens one group when a string ends there and others go on (the longer are
# optional), one when it branches. Every other node is a plain character.


def _grown(
    frames: list[tuple[int, int, int]], shared: int, ends: bool
) -> list[tuple[int, int, int]]:
    """The frames once a string is added whose first `shared` characters are the last
    string's: ending there (`ends`, the last string goes on) or branching off there."""
    frames = list(frames)
    below = 0  # the nesting of the subtree left behind, under the node at `shared`
    while frames and frames[-1][0] > shared:
        _, opens, done = frames.pop()
        below = opens + max(done, below)
    opens, done = frames.pop()[1:] if frames and frames[-1][0] == shared else (0, 0)
    # a new end always opens a group; a new branch only the node's first
    frames.append((shared, opens + 1 if ends or not opens else opens, max(done, below)))
    return frames


def _nesting(frames: list[tuple[int, int, int]]) -> int:
    nesting = 0
    for _, opens, done in reversed(frames):
        nesting = opens + max(done, nesting)
    return nesting


def _common_prefix(a: str, b: str) -> int:
    """How many leading characters `a` and `b` share (bisected: slices compare in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _trie_pattern(sequences: Iterable[str]) -> str:
    """The pattern of one trie of `sequences`."""
    root: dict = {}
    for seq in sequences:
        node = root
        for ch in seq:
            node = node.setdefault(ch, {})
        node[""] = {}
    # Written from a stack, not by recursion: a keyword a thousand characters long is a
    # thousand nodes deep, past Python's recursion limit.
    parts: list[str] = []
    todo: list[str | dict] = [root]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            parts.append(item)
        else:
            todo += reversed(_node_parts(item))
    return "".join(parts)


def _node_parts(node: dict) -> list[str | dict]:
    """A trie node's pattern, with its children left as nodes to write in their place."""
    chars = sorted(k for k in node if k)
    if not chars:
        return []
    end = "" in node  # a shorter keyword ends here: the longer branches are optional
    out: list[str | dict] = ["(?:"] if end else []
    if len(chars) > 1:
        out.append("(?:")
    for i, ch in enumerate(chars):
        if i:
            out.append("|")
        out += (_SEP if ch == _SEP_MARK else re.escape(ch), node[ch])
    if len(chars) > 1:
        out.append(")")
    if end:
        out.append(")?")
    return out


@dataclass
class TermIndex:
    """Every keyword of a library, compiled for one-pass scanning.

    Rules, the same for topics and notes:
    - An ASCII keyword matches as whole words, case-insensitively: `EP` hits `elastic EP`,
      `DP+EP` and `ElasticEP`, never `step` or `EPLB`. Word edges are non-alphanumerics and
      the case and letter/digit changes inside identifiers (`KVConnectorStats`, `EAGLE3`),
      but an acronym's plural is one word (`PD` never hits `PDFs`).
    - A keyword ending in an acronym (`EP`, `elastic EP`: its last word all capitals) is
      plural only written so, its capitals and a lower-case `s`: `EPs`, not `eps`
      (epsilon, `rms_norm_eps`) nor `TPS` (tokens per second).
    - Inside a keyword, separators are loose (up to four spaces, joiners, dots, parentheses,
      so an arrow ` -> ` too; not what ends a phrase or a quote: `.` before a space, a comma,
      a backtick): `thinking budget` also matches `thinking-budget`, `thinking_budget` and
      `ThinkingBudget`; `KVConnector` also matches `KV connector`. A trailing plural
      `s`/`es` is allowed (`CUDA graph` hits `CUDA graphs`).
    - A keyword with any non-ASCII character (Chinese) matches as a plain substring.
    - A keyword with a leading underscore names a private identifier (`_capturing`,
      `_align_cacheable`): it matches only as written, underscores included, case aside, so
      `_capturing` never hits the English word "capturing".
    """

    terms: Iterable[str]
    keys: set[str] = field(init=False, default_factory=set)
    # the sources of `_ascii`, `_other` and `_ident`, compiled at the first scan: most of
    # a start's compiling, which a run that scans nothing (`notes check`) does not pay
    _sources: dict[str, tuple[str, int]] = field(init=False, default_factory=dict)
    _prefixes: dict[str, list[str]] = field(init=False, default_factory=dict)
    _single: dict[str, re.Pattern[str]] = field(init=False, default_factory=dict)
    # key -> the length of the acronym every spelling of it ends in (`EP`: 2)
    _acronyms: dict[str, int] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        # key -> its trie sequences: `all-reduce` and `allreduce` share a key but not words
        ascii_seqs: dict[str, list[str]] = {}
        other: set[str] = set()
        idents: set[str] = set()
        acronyms: dict[str, int | None] = {}  # None: a spelling of the key ends in no acronym
        for term in self.terms:
            key = term_key(term)
            if not key:
                continue  # nothing to match (punctuation only)
            self.keys.add(key)
            if is_private_name(term):
                idents.add(key)
            elif term.isascii():
                seq = _SEP_MARK.join(_chunks(term))
                if seq not in ascii_seqs.setdefault(key, []):
                    ascii_seqs[key].append(seq)
                n = _acronym_end(term)
                acronyms[key] = n if acronyms.get(key, n) == n else None
            else:
                other.add(key)
        self._acronyms = {k: n for k, n in acronyms.items() if n}
        if ascii_seqs:
            trie = trie_regex(seq for seqs in ascii_seqs.values() for seq in seqs)
            self._sources["ascii"] = (
                r"(?=(" + _START + r"(?=[A-Za-z0-9])" + trie + _PLURAL + _END + "))",
                re.I,
            )
            self._prefixes = _prefix_keys(ascii_seqs)
            self._seqs = ascii_seqs
        if other:
            self._sources["other"] = ("(?=(" + trie_regex(other) + "))", re.I)
        if idents:
            self._sources["ident"] = (
                r"(?<![A-Za-z0-9_])(" + trie_regex(idents) + r")(?![A-Za-z0-9_])",
                re.I,
            )

    def _compiled(self, name: str) -> re.Pattern[str] | None:
        source = self._sources.get(name)
        return None if source is None else re.compile(*source)

    @cached_property
    def _ascii(self) -> re.Pattern[str] | None:
        return self._compiled("ascii")

    @cached_property
    def _other(self) -> re.Pattern[str] | None:
        return self._compiled("other")

    @cached_property
    def _ident(self) -> re.Pattern[str] | None:
        return self._compiled("ident")

    def find(self, text: str) -> dict[str, TermHit]:
        """Every keyword present in `text`, by key, with its first spelling and count."""
        found: dict[str, tuple[str, list[tuple[int, int]]]] = {}

        def add(key: str, spelled: str, start: int) -> None:
            found.setdefault(key, (spelled, []))[1].append((start, start + len(spelled)))

        if self._ascii is not None and text:
            for m in self._ascii.finditer(text):
                spelled = m.group(1)
                keys = [k for k in self._keys_of(spelled) if self._plural_ok(k, spelled)]
                for key in keys:  # `tool calls` is `tool calls` and the plural of `tool call`
                    add(key, spelled, m.start())
                if keys:
                    for shorter in self._prefixes.get(keys[0], ()):
                        sm = self._single_regex(shorter).match(text, m.start())
                        if sm and shorter not in keys and self._plural_ok(shorter, sm.group(0)):
                            add(shorter, sm.group(0), m.start())
        if self._ident is not None and "_" in text:
            for m in self._ident.finditer(text):
                add(m.group(1).lower(), m.group(1), m.start(1))
        if self._other is not None and text and not text.isascii():
            for m in self._other.finditer(text):
                spelled = m.group(1)
                add(re.sub(r"\s+", " ", spelled.lower()), spelled, m.start())
        return {
            key: TermHit(key, _balanced(text, *spans[0]), len(spans), tuple(spans))
            for key, (spelled, spans) in found.items()
        }

    def _keys_of(self, spelled: str) -> list[str]:
        """The keys a matched spelling stands for, longest first: itself, and the singular
        it is a plural of, when both are keywords."""
        key = "".join(c for c in spelled.lower() if c.isascii() and c.isalnum())
        candidates = [key]
        if key.endswith("s"):
            candidates.append(key[:-1])
        if key.endswith("es"):
            candidates.append(key[:-2])
        return [c for c in candidates if c in self.keys]

    def _plural_ok(self, key: str, spelled: str) -> bool:
        """A keyword ending in an acronym is plural only as `EPs`: the acronym in
        capitals, then a lower-case `s` or `es` (`eps` is epsilon, `TPS` tokens per
        second). Any other spelling of a keyword is as good as another."""
        n = self._acronyms.get(key)
        if n is None:
            return True
        extra = sum(c.isascii() and c.isalnum() for c in spelled) - len(key)
        if extra <= 0:
            return True  # the keyword itself, not a plural
        stem, suffix = spelled[:-extra], spelled[-extra:]
        return suffix.islower() and not any(c.islower() for c in stem[-n:])

    def _single_regex(self, key: str) -> re.Pattern[str]:
        rx = self._single.get(key)
        if rx is None:
            bodies = (re.escape(q).replace(re.escape(_SEP_MARK), _SEP) for q in self._seqs[key])
            rx = re.compile(_START + "(?:" + "|".join(bodies) + ")" + _PLURAL + _END, re.I)
            self._single[key] = rx
        return rx


def _acronym_end(term: str) -> int | None:
    """How long the acronym is that the keyword ends in (`elastic EP`: 2), or None: its
    last word has a lower-case letter (`CUDA graph`, `LoRA`, whose `loras` is a plural),
    or no letter (`SM90`)."""
    words = _WORDS.findall(term)
    last = words[-1] if words else ""
    return len(last) if len(last) > 1 and last.isupper() and last.isalpha() else None


def _prefix_keys(seqs: dict[str, list[str]]) -> dict[str, list[str]]:
    """For each keyword, the other keywords that are its leading words (`CUDA` of `CUDA graph`),
    also in the plural (`CUDA arch` of `cuda_archs_loose_intersection`).

    The trie regex reports the longest keyword starting at a position; these are
    re-checked there so that a shorter keyword still counts.
    """
    # words -> [the key a sequence of them spells, the words that may follow]: a walk down
    # a keyword's words meets its leading keywords, where a look-up of each leading run of
    # words cost as many words again (keywords each a prefix of the next, `ab`, `ab ab`,
    # ...: cubic, minutes for 2,000)
    by_words: dict[str, list] = {}
    for key, many in seqs.items():
        for seq in many:
            node = by_words
            *head, last = seq.lower().split(_SEP_MARK)
            for word in head:
                node = node.setdefault(word, [None, {}])[1]
            node.setdefault(last, [None, {}])[0] = key
    out: dict[str, list[str]] = {}
    for key, many in seqs.items():
        shorter: dict[str, None] = {}  # in order, once each
        for seq in many:
            node = by_words
            for last in seq.lower().split(_SEP_MARK)[:-1]:
                singulars = [last[: -len(end)] for end in ("s", "es") if last.endswith(end)]
                for word in [last, *singulars]:
                    lead = node[word][0] if word in node else None
                    if lead is not None and lead != key:
                        shorter[lead] = None
                node = node[last][1]
        if shorter:
            out[key] = list(shorter)
    return out

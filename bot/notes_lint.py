"""What `notes check` warns of in a library that loads (pure): notes the matcher can
miss or will overmatch, a verdict the guidance contradicts, PRs a note names but does
not list. Errors (what stops a library from loading) are `bot.library`'s; the words
`notes check` says these in, each on its line, `bot.lint_messages`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from bot.library import Library
from bot.notes import Note, Topic, Verdict, stated_verdict
from bot.render import SUMMARY_MAX, TITLE_MAX
from bot.similarity import Vocabulary, only_uncounted_words, title_words
from bot.terms import is_code_name, term_key


def diff_blind(library: Library) -> list[Note]:
    """Notes with no code name (`snake_case`, `CamelCase`) among their keywords: the
    matcher finds them by titles and files only, never on the changed lines of a diff,
    where a PR that changes the mechanism without naming it in its title shows it."""
    return [n for n in library.notes if not any(is_code_name(k) for k in n.keywords)]


def redundant_aspects(library: Library) -> list[tuple[Note, str]]:
    """Aspects that are also the note's own keywords: the keyword already counts without
    the topic, so the aspect adds nothing (the curator meant one or the other)."""
    found = []
    for note in library.notes:
        keys = {term_key(k) for k in note.keywords}
        found += [(note, a) for a in note.aspects if term_key(a) in keys]
    return found


def common_keywords(
    library: Library, vocab: Vocabulary, share: float
) -> list[tuple[Note, str, float | None]]:
    """Note keywords that are one title word found in at least `share` of vLLM's PR
    titles (`fix`), or only words the vocabulary leaves out (`the`, `in the`, `100`;
    share None: function words are in nearly every PR's text): each links unrelated PRs.
    Aspects are common words by design. A keyword with any other character (`MoE 内核`)
    matches only as written (bot.terms), never by its English words: no title share
    measures it."""
    found: list[tuple[Note, str, float | None]] = []
    for note in library.notes:
        for keyword in note.keywords:
            if not keyword.isascii():
                continue
            words = title_words(keyword)
            if only_uncounted_words(keyword):
                found.append((note, keyword, None))
            elif len(words) == 1:
                seen = vocab.df.get(next(iter(words)), 0) / vocab.titles
                if seen >= share:
                    found.append((note, keyword, seen))
    return found


def traditional_characters(term: str) -> str:
    """The ideographs of `term` only Traditional Chinese writes (`綴`, `緩` of `前綴緩存`):
    in Big5, Taiwan's and Hong Kong's character set, not in GB2312, which holds the
    Simplified ones in use (and the forms both share)."""
    return "".join(dict.fromkeys(c for c in term if "\u4e00" <= c <= "\u9fff" and _big5_only(c)))


def _big5_only(ch: str) -> bool:
    try:
        ch.encode("gb2312")
    except UnicodeEncodeError:
        try:
            ch.encode("big5")
        except UnicodeEncodeError:
            return False  # a rare character of neither: no telling
        return True
    return False


def traditional_terms(library: Library) -> list[tuple[Note, str, str, str]]:
    """Keywords and aspects written in Traditional characters: note, field, term, those
    characters. A Chinese term matches as written (bot.terms), and the Chinese a PR's
    text holds is Simplified as the notes' guidance is (an input method left in
    Traditional mode types `前綴緩存` for 前缀缓存), so it would never match."""
    return [
        (note, field, term, chars)
        for note in library.notes
        for field in ("keywords", "aspects")
        for term in getattr(note, field)
        if (chars := traditional_characters(term))
    ]


# Chinese, Japanese and Korean characters, each about a word; a stretch of them, their
# punctuation within it (`模型加载失败，显存不足`); and an English word
_CJK_CHARACTER = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_STRETCH = re.compile(
    "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
    "(?:[\u3000-\u303f\uff00-\uff0f\uff1a-\uff20 ]*"
    "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff])*"
)
_LATIN_WORD = re.compile("[A-Za-z]+")


def _mostly_chinese(text: str) -> bool:
    """More CJK characters than English words in `text`; in one stretch, as a Chinese term
    or message quoted in English (`Keep 前缀缓存 hits`), more than twice as many: a
    Chinese word is about two characters, and the English around it makes the line."""
    characters, words = len(_CJK_CHARACTER.findall(text)), len(_LATIN_WORD.findall(text))
    if len(_CJK_STRETCH.findall(text)) == 1:
        return characters > 2 * words
    return characters > words


def untranslated_lines(library: Library) -> list[tuple[Note, str]]:
    """English lines (`title_en`, `summary_en`) written mostly in Chinese (`_mostly_chinese`),
    as `title_zh` copied and not translated. The comment shows them as the English title
    and summary; a Chinese term named in English (`Keep 前缀缓存 hits`) is fine."""
    return [
        (note, field)
        for note in library.notes
        for field in ("title_en", "summary_en")
        if _mostly_chinese(getattr(note, field))
    ]


# The sentence marks a Chinese input method types for ASCII ones; not its quotes or
# dashes, which English typography writes as well (`“load-bearing”`, `—`)
_SENTENCE_MARKS = {"，": ",", "。": ".", "：": ":", "；": ";", "！": "!", "？": "?", "、": ","}


def _mark_between_english(text: str) -> str | None:
    """The first Chinese sentence mark in `text` with no Chinese on either side (spaces
    aside): typed with the input method left in Chinese mode (`region，per`). Chinese
    quoted in an English line keeps its own marks (`'模型加载失败，显存不足'`)."""
    for i, ch in enumerate(text):
        if ch not in _SENTENCE_MARKS:
            continue
        before, after = text[:i].rstrip()[-1:], text[i + 1 :].lstrip()[:1]
        if not _CJK_CHARACTER.match(before) and not _CJK_CHARACTER.match(after):
            return ch
    return None


def marks_between_english(library: Library) -> list[tuple[Note, str, str, str]]:
    """Chinese sentence marks between English words in `title_en` and `summary_en`: note,
    field, the mark and the ASCII one to write. The comment shows them as typed."""
    found = []
    for note in library.notes:
        for field in ("title_en", "summary_en"):
            mark = _mark_between_english(getattr(note, field))
            if mark is not None:
                found.append((note, field, mark, _SENTENCE_MARKS[mark]))
    return found


def unchinese_titles(library: Library) -> list[Note]:
    """Notes whose `title_zh` holds no Chinese (title_en pasted in both lines): the
    comment shows it as the original Chinese title (原题)."""
    return [note for note in library.notes if not _CJK_CHARACTER.search(note.title_zh)]


# what the comment cuts at a limit (bot.render), with the limit
_CLIPPED = (("title_en", TITLE_MAX), ("title_zh", TITLE_MAX), ("summary_en", SUMMARY_MAX))


def clipped_fields(library: Library) -> list[tuple[Note, str, int, int]]:
    """Titles and summaries longer than the comment shows: note, field, length (spacing
    collapsed, as the comment writes it) and the limit. The comment cuts them with `…`;
    the notes pages show them whole, so a curator reading there sees nothing wrong."""
    found = []
    for note in library.notes:
        for field, limit in _CLIPPED:
            length = len(" ".join(getattr(note, field).split()))
            if length > limit:
                found.append((note, field, length, limit))
    return found


_WILDCARD = re.compile(r"\*+|\?|\[[^\]]*\]?")
_FILE_TYPE = re.compile(r"(?:\.[A-Za-z0-9]+)+$")
# file names found in many directories of a Python tree: `**/` before one says nothing
_REPEATED_NAME = re.compile(r"__\w+__\.py|conftest\.py|utils\.py|CMakeLists\.txt|README\.md")


def _names_something(segment: str) -> bool:
    """A segment naming a file or directory: literal, or with a name beside its wildcards
    (`fused_moe*`, `test_*.py`); `*.py` and `*` name only a file type or nothing."""
    if not _WILDCARD.search(segment):
        return True
    return bool(_FILE_TYPE.sub("", _WILDCARD.sub("", segment)))


def broad_glob(pattern: str) -> bool:
    """A path glob matching everywhere (`*`, `**/*.py`: no segment without a wildcard), a
    whole directory named at the top (`vllm`, `vllm/`, `/vllm`, `vllm/**`: one name, a
    directory's as `bot.globs` reads it; `setup.py`, a file's, is specific), any file
    below one (`vllm/**/*.py`, `vllm/*/*.py`: nothing named below the top directory,
    where a file type is no name; `vllm/*/`), or a name every package repeats
    (`**/__init__.py`, `vllm/**/utils.py`): a note's path is to be specific."""
    segments = [s for s in pattern.strip("/").split("/") if s]
    directory = pattern.endswith("/")
    while segments and segments[-1] == "**":  # `vllm/**` is `vllm/`
        segments.pop()
        directory = True
    literal = [s for s in segments if not _WILDCARD.search(s)]
    if not literal:
        return True
    named = [i for i, s in enumerate(segments) if _names_something(s)]
    recursive = any("**" in s for s in segments)
    # `vllm/**/*.py`, `csrc/**.cu`, `vllm/*/*.py`, `vllm/*/`: everything of a kind below
    if named == [0] and (recursive or len(segments) > 2 or (directory and len(segments) > 1)):
        return True
    return _repeated_anywhere(pattern, segments, named, recursive) or (
        len(segments) == 1 and (directory or "." not in segments[0])
    )


def _repeated_anywhere(
    pattern: str, segments: list[str], named: list[int], recursive: bool
) -> bool:
    """`**/__init__.py`, `__init__.py`, `vllm/**/utils.py`: a name every package repeats,
    anywhere (below the top directory at most); `/CMakeLists.txt` is the root's one."""
    last = len(segments) - 1
    if not _REPEATED_NAME.fullmatch(segments[last]):
        return False
    if named == [last]:
        return not (pattern.startswith("/") and last == 0)
    return named == [0, last] and recursive


def broad_paths(library: Library) -> list[tuple[Note, str]]:
    return [(n, p) for n in library.notes for p in n.paths if broad_glob(p)]


def glued_double_star(glob: str) -> bool:
    """A path glob with a `**` beside other characters in one segment (`vllm/**foo.py`,
    `a**/b`, `fused_moe**`): `bot.globs` matches it across directories (`.*`), while
    CODEOWNERS and .gitignore, which curators know, take `**` only as a whole segment
    (else as `*`), so the glob likely matches files its curator did not mean."""
    return any("**" in segment and segment != "**" for segment in glob.split("/"))


def glued_double_stars(library: Library) -> list[tuple[Note, str]]:
    """The notes' path globs with a `**` glued to other characters."""
    return [(n, p) for n in library.notes for p in n.paths if glued_double_star(p)]


def glued_topic_globs(library: Library) -> list[tuple[Topic, str]]:
    """The taxonomy's path globs with a `**` glued to other characters: read as a note's."""
    return [(t, p) for t in library.topics.values() for p in t.paths if glued_double_star(p)]


def glued_config_globs(files: Mapping[str, Iterable[str]]) -> list[tuple[str, str]]:
    """The matching config's file lists' globs (field -> globs: `aux_files`,
    `upkeep_files`) with a `**` glued to other characters, with their field."""
    return [(f, p) for f, globs in files.items() for p in globs if glued_double_star(p)]


def long_guidance(library: Library, limit: int) -> list[tuple[Note, int]]:
    """Notes whose guidance is longer than `limit` characters, with its length: a PR's
    diff or discussion pasted in. The pages show it whole, and every search reads it."""
    return [(n, len(n.guidance)) for n in library.notes if len(n.guidance) > limit]


def contradicted_verdicts(library: Library) -> list[tuple[Note, str, Verdict]]:
    """Notes whose verdict the guidance's wording seems to contradict, with the phrase
    and the verdict it states. Verdicts come from that wording (the importer derives
    the field from it), but the reading is a heuristic: a phrase negated or quoted
    ("并非值得精读") reads as the phrase. So a warning, never a refusal."""
    found = []
    for note in library.notes:
        stated = stated_verdict(note.guidance)
        if stated is not None and stated[1] != note.verdict:
            found.append((note, *stated))
    return found


# "#38390", "PR 54416", "PRs 38390 (...), 49994 (...) and 47941", "PR#38390",
# "vllm-project/vllm#38390", "https://github.com/vllm-project/vllm/pull/38390": numbers the
# text gives as pull requests (a list after "PRs" runs on through commas, "and" and
# parentheses); "NVIDIA/nccl#574" is another repository's. Word edges are ASCII: Chinese
# text runs into the number without a space ("建议与#38390串读", "另见PR 47941").
_PR_MENTION = re.compile(
    r"""
    (?:(?<=PR)|(?<![A-Za-z0-9_/.-]))\#(?P<hash>\d{2,7})(?![0-9])   # "#38390", "PR#38390"
    | (?<![A-Za-z0-9_/.-])(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)  # "vllm-project/vllm#1"
        \#(?P<in_repo>\d{2,7})(?![0-9])
    | github\.com/(?P<url_repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)    # a PR's address
        /pull/(?P<url>\d{2,7})(?![0-9])
    | (?<![A-Za-z0-9_])PRs?\s*(?P<list>\d{2,7}               # "PR 54416", "另见PR47941"
        (?:(?:\s*\([^)]*\))?(?:,|\s+and)\s+\d{2,7})*)        # "PRs 1 (the base), 2 and 3"
    """,
    re.VERBOSE,
)


def unlisted_prs(library: Library) -> list[tuple[Note, int, str, int]]:
    """PRs a note's text names that are none of its source PR, `read_with` and `issues`:
    the curator may want the note shown on them too (or the number is an issue). Each
    with where its text first names it: `summary_en` or `guidance`, and the line of that
    text (0 its first)."""
    found = []
    for note in library.notes:
        named: dict[int, tuple[str, int]] = {}
        for field in ("summary_en", "guidance"):
            text = getattr(note, field)
            for m in _PR_MENTION.finditer(text):
                repo = m["repo"] or m["url_repo"]
                if repo is not None and repo.lower() != note.repo.lower():
                    continue  # another repository's
                said = m["hash"] or m["in_repo"] or m["url"] or re.sub(r"\([^)]*\)", "", m["list"])
                for n in re.findall(r"\d{2,7}", said):
                    named.setdefault(int(n), (field, text.count("\n", 0, m.start())))
        found += [(note, n, *at) for n, at in named.items() if n not in note.listed_numbers]
    return found


# the fields a copied note keeps from the one it was copied from (docs/curating.md: "copy an
# existing note") that no two notes share: two notes on one PR are the curators' to merge
_OWN_FIELDS = ("source_pr", "title_en", "summary_en", "source")


def shared_fields(library: Library) -> list[tuple[Note, str, Note]]:
    """Each note's field whose value an earlier note (by id) has too: the note, the
    field and that note. A copy left unrewritten shows the other note's title, summary or
    PR in the comment; two notes on one PR are both posted on it."""
    found = []
    first: dict[tuple[str, object], Note] = {}
    for note in library.notes:
        for field in _OWN_FIELDS:
            value = getattr(note, field)
            if value is None or value == "":  # no source_pr, no `source`
                continue
            key = (field, (note.repo.lower(), value) if field == "source_pr" else value)
            other = first.setdefault(key, note)
            if other is not note:
                found.append((note, field, other))
    return found

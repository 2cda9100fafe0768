"""The notes library: every note file plus the topic taxonomy, loaded and checked.

Parsing and checking are pure (text in, models and problems out); `load_library`
and `check_library` are the one place that reads the disk. Loading is
deterministic: notes are sorted by id, topics keep file order.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from bot.notes import (
    FENCE,
    Header,
    LibraryError,
    Note,
    NoteSource,
    Problem,
    Topic,
    Verdict,
    decode_utf8,
    normalise_text,
    parse_toml,
    pydantic_problems,
    read_note,
    split_front_matter,
    stated_verdict,
)
from bot.similarity import Vocabulary, only_uncounted_words, title_words
from bot.terms import is_code_name, term_key
from bot.toml_lines import scan

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NOTES_DIR = ROOT / "seeds" / "notes"
DEFAULT_TOPICS_FILE = ROOT / "config" / "topics.toml"
NOTE_SUFFIX = ".md"


@dataclass(frozen=True)
class Library:
    """All notes and topics, with the indexes the matcher and the pages need."""

    notes: tuple[Note, ...]
    topics: dict[str, Topic]
    # note id -> its file under the notes directory ("eagle/vllm-0436d44c.md"), for links
    # to the file; a note read from elsewhere is `<id>.md` at the top
    files: dict[str, str] = field(default_factory=dict, compare=False)
    by_id: dict[str, Note] = field(init=False)
    by_topic: dict[str, tuple[Note, ...]] = field(init=False)
    by_repo: dict[str, tuple[Note, ...]] = field(init=False)  # key: repo, lower case

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {n.id: n for n in self.notes})
        topic_index: dict[str, list[Note]] = {t: [] for t in self.topics}
        repo_index: dict[str, list[Note]] = {}
        for note in self.notes:
            for t in note.topics:
                topic_index.setdefault(t, []).append(note)
            repo_index.setdefault(note.repo.lower(), []).append(note)
        object.__setattr__(self, "by_topic", {t: tuple(ns) for t, ns in topic_index.items()})
        object.__setattr__(self, "by_repo", {r: tuple(ns) for r, ns in repo_index.items()})

    def for_repo(self, repo: str) -> tuple[Note, ...]:
        return self.by_repo.get(repo.lower(), ())


# --- the taxonomy ----------------------------------------------------------------


def parse_taxonomy(text: str, path: str) -> list[Topic]:
    """Parse config/topics.toml (an array of [[topic]] tables); raise LibraryError."""
    text = normalise_text(text)
    data = parse_toml(text, path, 1, "taxonomy")
    extra = sorted(set(data) - {"topic"})
    if extra:
        line = Header(text, 1).line_of(extra[0])
        raise LibraryError([Problem(path, line, extra[0], "unknown top-level key")])
    raw_topics = data.get("topic", [])
    if not raw_topics:
        raise LibraryError([Problem(path, 1, "taxonomy", "no [[topic]] tables")])
    if not isinstance(raw_topics, list) or not all(isinstance(t, dict) for t in raw_topics):
        raise LibraryError([Problem(path, 1, "taxonomy", "'topic' must be [[topic]] tables")])
    lines = text.split("\n")
    # scanned as TOML: `[["topic"]]` is one too, a `[[topic]]` line in a string is not
    starts = [e.line for e in scan(text) if e.array and e.path == ("topic",)]
    if len(starts) != len(raw_topics):  # e.g. `topic = [{...}]`: lines are unknown
        starts = [0] * len(raw_topics)
    ends = starts[1:] + [len(lines)]
    problems: list[Problem] = []
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for raw, start, end in zip(raw_topics, starts, ends, strict=True):
        block = Header("\n".join(lines[start + 1 : end]), start + 2)
        table_line = start + 1
        try:
            topic = Topic.model_validate(raw)
        except ValidationError as exc:
            problems += pydantic_problems(exc, path, block, raw, table_line)
            continue
        id_line = block.line_of("id", default=table_line)
        if topic.id in seen:
            msg = f"duplicate topic id {topic.id!r} (first at line {seen[topic.id]})"
            problems.append(Problem(path, id_line, "id", msg))
            continue
        if not (topic.keywords or topic.tags or topic.paths or topic.labels):
            msg = "no keywords, tags, paths or labels: nothing can select this topic"
            problems.append(Problem(path, id_line, "topic", msg))
        seen[topic.id] = id_line
        topics.append(topic)
    if problems:
        raise LibraryError(problems)
    return topics


# --- the notes -------------------------------------------------------------------


def did_you_mean(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


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
    Aspects are common words by design."""
    found: list[tuple[Note, str, float | None]] = []
    for note in library.notes:
        for keyword in note.keywords:
            words = title_words(keyword)
            if only_uncounted_words(keyword):
                found.append((note, keyword, None))
            elif len(words) == 1:
                seen = vocab.df.get(next(iter(words)), 0) / vocab.titles
                if seen >= share:
                    found.append((note, keyword, seen))
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


def header_of(notes_dir: Path, library: Library, note: Note) -> tuple[str, Header]:
    """The file of a loaded note and its header, to put a warning on its line."""
    path = notes_dir / library.files.get(note.id, note.filename)
    header_text, _, first = split_front_matter(_read(path), str(path))
    return str(path), Header(header_text, first)


# "#38390", "PR 54416", "PRs 38390 (...), 49994 (...) and 47941", "PR#38390",
# "vllm-project/vllm#38390": numbers the text gives as pull requests (a list after "PRs"
# runs on through commas, "and" and parentheses); "NVIDIA/nccl#574" is another
# repository's. Word edges are ASCII: Chinese text runs into the number without a space
# ("建议与#38390串读", "另见PR 47941").
_PR_MENTION = re.compile(
    r"""
    (?:(?<=PR)|(?<![A-Za-z0-9_/.-]))\#(?P<hash>\d{2,7})(?![0-9])   # "#38390", "PR#38390"
    | (?<![A-Za-z0-9_/.-])(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)  # "vllm-project/vllm#1"
        \#(?P<in_repo>\d{2,7})(?![0-9])
    | (?<![A-Za-z0-9_])PRs?\s*(?P<list>\d{2,7}               # "PR 54416", "另见PR47941"
        (?:(?:\s*\([^)]*\))?(?:,|\s+and)\s+\d{2,7})*)        # "PRs 1 (the base), 2 and 3"
    """,
    re.VERBOSE,
)


def unlisted_prs(library: Library) -> list[tuple[Note, int]]:
    """PRs a note's text names that are none of its source PR, `read_with` and `issues`:
    the curator may want the note shown on them too (or the number is an issue)."""
    found = []
    for note in library.notes:
        named: dict[int, None] = {}
        for m in _PR_MENTION.finditer(note.summary_en + "\n" + note.guidance):
            if m["repo"] is not None and m["repo"].lower() != note.repo.lower():
                continue  # another repository's
            text = m["hash"] or m["in_repo"] or re.sub(r"\([^)]*\)", "", m["list"])
            for n in re.findall(r"\d{2,7}", text):
                named[int(n)] = None
        found += [(note, n) for n in named if n not in note.listed_numbers]
    return found


def check_notes(sources: Iterable[NoteSource], topics: dict[str, Topic]) -> list[Problem]:
    """Checks beyond one file's own content: file names, topics, duplicate ids."""
    problems: list[Problem] = []
    first_seen: dict[str, str] = {}
    for src in sources:
        note, path, where = src.note, src.path, src.header
        if os.path.basename(path) != note.filename:
            msg = f"file name must be {note.filename!r} (the importer finds notes by it)"
            problems.append(Problem(path, where.line_of("id"), "id", msg))
        problems += _unknown_topics(note.topics, path, where, topics)
        if note.id in first_seen:
            msg = f"duplicate id {note.id!r} (also in {first_seen[note.id]})"
            problems.append(Problem(path, where.line_of("id"), "id", msg))
        else:
            first_seen[note.id] = path
    return problems


def _unknown_topics(
    named: Iterable[object], path: str, where: Header, topics: dict[str, Topic]
) -> list[Problem]:
    if not topics:  # the taxonomy did not load: its own problems say why
        return []
    return [
        Problem(
            path,
            where.line_of("topics", t),
            "topics",
            f"unknown topic {t!r}" + did_you_mean(t, topics),
        )
        for t in dict.fromkeys(named)  # once each: a topic listed twice is its own problem
        if isinstance(t, str) and t not in topics
    ]


def _problems_of_an_unread_note(text: str, path: str, topics: dict[str, Topic]) -> list[Problem]:
    """What the library checks would also say of a note that did not validate, so that a
    curator sees every problem at once: its unknown topics, when its header parses."""
    try:
        header_text, _, first = split_front_matter(text, path)
        data = parse_toml(header_text, path, first, "header")
    except LibraryError:
        return []  # the header itself is broken: that is the one problem to fix first
    named = data.get("topics")
    if not isinstance(named, list):
        return []
    return _unknown_topics(named, path, Header(header_text, first), topics)


def note_files(notes_dir: Path) -> list[str]:
    """Every `*.md` under the directory, dot-files and dot-directories skipped, sorted.
    A directory reached twice (a symlink to it, or a loop: `current -> .`) is read once."""
    return _scan(notes_dir)[0]


def _scan(notes_dir: Path) -> tuple[list[str], list[str]]:
    """The note files (`note_files`) and every other file beside them, each sorted."""
    found: list[str] = []
    others: list[str] = []
    stack, seen = [str(notes_dir)], set()
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in seen:
            continue
        seen.add(real)
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir():
                    stack.append(entry.path)
                elif entry.name.endswith(NOTE_SUFFIX):
                    found.append(entry.path)
                else:
                    others.append(entry.path)
    return sorted(found), sorted(others)


def _holds_a_header(file: str) -> bool:
    """Whether a file opens as a note does, with a `+++` line (after a byte-order mark)."""
    try:
        with open(file, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(FENCE.encode())


def _stray_notes(others: list[str]) -> list[Problem]:
    """Notes saved under another name (`x.md.txt` from Notepad, `x.MD`): never loaded, so
    lost without a word unless named. Other files (images, a README.txt) are no notes."""
    msg = f"a note not named *{NOTE_SUFFIX} is not loaded: rename it to <id>{NOTE_SUFFIX}"
    return [Problem(file, 1, "file", msg) for file in others if _holds_a_header(file)]


def _read(file: str | Path) -> str:
    with open(file, "rb") as f:
        return decode_utf8(f.read(), str(file))


def read_taxonomy(topics_file: Path) -> tuple[dict[str, Topic], list[Problem]]:
    """The topics by id, or none and the problems that kept the file from loading."""
    try:
        return {t.id: t for t in parse_taxonomy(_read(topics_file), str(topics_file))}, []
    except LibraryError as exc:
        return {}, exc.problems
    except OSError as exc:
        return {}, [Problem(str(topics_file), 1, "taxonomy", f"cannot read: {exc.strerror}")]


def check_library(
    notes_dir: Path = DEFAULT_NOTES_DIR, topics_file: Path = DEFAULT_TOPICS_FILE
) -> tuple[Library | None, list[Problem]]:
    """Read and check everything; return the library (None if any problem) and the problems."""
    topics, problems = read_taxonomy(topics_file)
    sources: list[NoteSource] = []
    try:
        files, others = _scan(notes_dir)
    except OSError as exc:
        problems.append(Problem(str(notes_dir), 1, "notes", f"cannot read: {exc.strerror}"))
        files = []
    else:
        problems += _stray_notes(others)
        # A wrong directory or an empty volume mounted over it: with no notes, the server
        # would edit every comment it made to say that no note matches any more.
        if not files:
            msg = f"no notes (*{NOTE_SUFFIX} files) in this directory"
            problems.append(Problem(str(notes_dir), 1, "notes", msg))
    for file in files:
        try:
            text = _read(file)
        except LibraryError as exc:  # not UTF-8
            problems += exc.problems
            continue
        except OSError as exc:
            problems.append(Problem(file, 1, "file", f"cannot read: {exc.strerror}"))
            continue
        try:
            sources.append(read_note(text, file, curated=True))
        except LibraryError as exc:
            problems += exc.problems + _problems_of_an_unread_note(text, file, topics)
    problems += check_notes(sources, topics)
    if problems:
        return None, sorted(problems)
    notes = tuple(sorted((s.note for s in sources), key=lambda n: n.id))
    files = {s.note.id: Path(s.path).relative_to(notes_dir).as_posix() for s in sources}
    return Library(notes=notes, topics=topics, files=files), []


def load_library(
    notes_dir: Path = DEFAULT_NOTES_DIR, topics_file: Path = DEFAULT_TOPICS_FILE
) -> Library:
    """Read and validate every note and the taxonomy; raise LibraryError listing all problems."""
    library, problems = check_library(notes_dir, topics_file)
    if library is None:
        raise LibraryError(problems)
    return library

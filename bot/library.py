"""The notes library: every note file plus the topic taxonomy, loaded and checked.

Parsing and checking are pure (text in, models and problems out); what reads the disk
is here too: `load_library` and `check_library`, and for them `note_files`,
`read_taxonomy` and `header_of` (a loaded note's header, to put a warning on its line;
`headers_of` reads each once). Loading is deterministic: notes are sorted by id, topics
keep file order. The warnings `notes check` adds for a library that loads are
`bot.notes_lint`'s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

# the shipped files, named in config_files (the settings' defaults) and here as before
from bot.config_files import DEFAULT_MATCHING_FILE as DEFAULT_MATCHING_FILE
from bot.config_files import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE
from bot.config_files import ROOT as ROOT
from bot.note_dump import FENCE, toml_string
from bot.note_files import (
    Header,
    LibraryError,
    NoteSource,
    Problem,
    closest,
    decode_utf8,
    normalise_text,
    parse_toml,
    pydantic_problems,
    read_note,
    split_front_matter,
)
from bot.note_terms import LIST_SEPARATORS, describe_character
from bot.notes import ID_PATTERN, Note, Topic, note_id_shape, topic_key, topics_by_key
from bot.toml_lines import scan

NOTE_SUFFIX = ".md"


@dataclass(frozen=True)
class Library:
    """All notes and topics, with the indexes the matcher and the pages need."""

    notes: tuple[Note, ...]
    topics: dict[str, Topic]
    # note id -> its file under the notes directory ("eagle/vllm-0436d44c.md"), for links
    # to the file; a note read from elsewhere is `<id>.md` at the top
    files: dict[str, str] = field(default_factory=dict, compare=False)
    # notes the curators retired (`retired = true`), by id: in no index above, linked on
    # no PR; kept to tell their pages and marks from a mistyped id's
    retired: dict[str, Note] = field(default_factory=dict, compare=False)
    # the file the topics were read from, which a problem naming an unknown topic names
    # (the matching config's too: bot/match_config.py); one built in memory reads none
    taxonomy: str = field(default="the taxonomy", compare=False)
    by_id: dict[str, Note] = field(init=False)
    by_topic: dict[str, tuple[Note, ...]] = field(init=False)
    by_repo: dict[str, tuple[Note, ...]] = field(init=False)  # key: repo, lower case
    # an id a note had before a curator renamed it (the importer's, derived from its
    # repository and Chinese title, or one in its `formerly`) -> its id now: stored
    # hidden notes, marks and links keep working
    renamed: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        by_id = {n.id: n for n in self.notes}
        object.__setattr__(self, "by_id", by_id)
        every = (*self.notes, *self.retired.values())  # a note renamed, then retired
        renamed = {
            old: n.id
            for n in every
            for old in (*n.derived_ids, *n.formerly)
            if old != n.id and old not in by_id and old not in self.retired
        }
        object.__setattr__(self, "renamed", renamed)
        topic_index: dict[str, list[Note]] = {t: [] for t in self.topics}
        repo_index: dict[str, list[Note]] = {}
        for note in self.notes:
            for t in note.topics:
                topic_index.setdefault(t, []).append(note)
            repo_index.setdefault(note.repo.lower(), []).append(note)
        object.__setattr__(self, "by_topic", {t: tuple(ns) for t, ns in topic_index.items()})
        object.__setattr__(self, "by_repo", {r: tuple(ns) for r, ns in repo_index.items()})

    def file_of(self, note: Note) -> str:
        """The file `note` was read from, under its notes directory (`files`)."""
        return self.files.get(note.id, note.filename)

    def for_repo(self, repo: str) -> tuple[Note, ...]:
        return self.by_repo.get(repo.lower(), ())

    @property
    def id_shape(self) -> re.Pattern[str]:
        """The shape of the ids the importer gives this library's notes (`note_id_shape`)."""
        return note_id_shape(n.repo for n in (*self.notes, *self.retired.values()))

    def current_id(self, note_id: str) -> str:
        """The id a stored note id (a PR's hidden notes, a mark, a link) names now: the
        same, or the note's new id after a curator renamed it."""
        return note_id if note_id in self.by_id else self.renamed.get(note_id, note_id)


# --- the taxonomy ----------------------------------------------------------------


def _topic_blocks(text: str, count: int) -> list[tuple[Header, int]]:
    """The lines of each of the taxonomy's `count` [[topic]] tables, and its `[[topic]]`
    line: where its problems go."""
    lines = text.split("\n")
    # scanned as TOML: `[["topic"]]` is one too, a `[[topic]]` line in a string is not
    starts = [e.line for e in scan(text) if e.array and e.path == ("topic",)]
    if len(starts) != count:  # e.g. `topic = [{...}]`: lines are unknown
        starts = [0] * count
    ends = starts[1:] + [len(lines)]
    return [
        (Header("\n".join(lines[start + 1 : end]), start + 2), start + 1)
        for start, end in zip(starts, ends, strict=True)
    ]


def topic_headers(topics_file: Path) -> dict[str, Header]:
    """Each topic's table in a taxonomy that loads, by id: to put a warning on its line."""
    text = normalise_text(_read(topics_file))
    raw = parse_toml(text, str(topics_file), 1, "taxonomy")["topic"]
    blocks = _topic_blocks(text, len(raw))
    return {t["id"]: block for t, (block, _) in zip(raw, blocks, strict=True)}


def parse_taxonomy(text: str, path: str) -> list[Topic]:
    """Parse config/topics.toml (an array of [[topic]] tables); raise LibraryError."""
    text = normalise_text(text)
    data = parse_toml(text, path, 1, "taxonomy")
    extra = sorted(set(data) - {"topic"})
    if extra:
        line = Header(text, 1).line_of(extra[0])
        msg = "unknown top-level key" + did_you_mean(extra[0], ["topic"])  # `[[topics]]`
        raise LibraryError([Problem(path, line, extra[0], msg)])
    raw_topics = data.get("topic", [])
    if not raw_topics:
        raise LibraryError([Problem(path, 1, "taxonomy", "no [[topic]] tables")])
    if not isinstance(raw_topics, list) or not all(isinstance(t, dict) for t in raw_topics):
        raise LibraryError([Problem(path, 1, "taxonomy", "'topic' must be [[topic]] tables")])
    problems: list[Problem] = []
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    named: dict[str, tuple[str, int]] = {}  # id or name as read (topic_key) -> (id, line)
    for raw, (block, table_line) in zip(
        raw_topics, _topic_blocks(text, len(raw_topics)), strict=True
    ):
        try:
            topic = Topic.model_validate(raw)
        except ValidationError as exc:
            problems += pydantic_problems(
                exc, path, block, raw, table_line, Topic.model_fields, "a topic's"
            )
            continue
        id_line = block.line_of("id", default=table_line)
        if topic.id in seen:
            first = seen[topic.id]
            msg = f"duplicate topic id {topic.id!r} (first at line {first}): give this topic"
            msg += " an id of its own"
            problems.append(Problem(path, id_line, "id", msg))
            continue
        # comments print names, and `/notes topic` takes a name or an id: each, as the
        # command reads it, must say one topic
        # and the names replies write in brackets, without brackets of their own
        shown = {"bracketed_en": "name_en", "bracketed_zh": "name_zh"}
        checked: set[str] = set()  # the keys of this topic's own fields
        for key_field in ("id", "name_en", "name_zh", "short_en", *shown):
            if not getattr(topic, key_field):
                continue  # no short_en: its name_en
            key = topic_key(getattr(topic, key_field))
            field = shown.get(key_field, key_field)
            if field != key_field and key in checked:
                continue  # no brackets: the name itself; or its short_en: checked above
            checked.add(key)
            line = block.line_of(field, default=id_line)
            other = named.get(key)
            if other is not None and other[0] != topic.id:
                said = "without its brackets, " if field != key_field else ""
                msg = f"{said}`/notes topic` reads it as topic {other[0]!r} (line {other[1]}):"
                msg += " write one only this topic has"
                problems.append(Problem(path, line, field, msg))
            else:
                named.setdefault(key, (topic.id, line))
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
    close = closest(word, known)
    return f"; did you mean {close!r}?" if close else ""


def topic_did_you_mean(word: str, topics: Mapping[str, Topic]) -> str:
    """The topic id `word`, not a topic's id, stands for: a topic's name as the comments
    and the /topics page show it (`ROCm platform`, `投机解码`) or its id written otherwise
    (`spec_decode`), read as `/notes topic` reads them; else the id it seems a misspelling
    of, which a name is not (`ROCm platform` is closest to `other-platforms`)."""
    named = topics_by_key(topics.values()).get(topic_key(word))
    if named is None:
        return did_you_mean(word, topics)
    if topic_key(word) == topic_key(named.id):
        return f"; did you mean {named.id!r}?"
    return f"; did you mean {named.id!r}? (that is the topic's name: name it by its id)"


def header_of(notes_dir: Path, library: Library, note: Note) -> tuple[str, Header]:
    """The file of a loaded note and its header, to put a warning on its line."""
    path = notes_dir / library.file_of(note)
    header_text, _, first = split_front_matter(_read(path), str(path))
    return str(path), Header(header_text, first)


# a loaded note -> its file and header (`headers_of`)
NoteHeader = Callable[[Note], tuple[str, Header]]


def headers_of(notes_dir: Path, library: Library) -> NoteHeader:
    """`header_of` for one run over `library`, each note's file read and its header scanned
    once: `notes check` puts a warning per broad path, so hundreds may go on one note, and a
    scan per warning cost the header's length times theirs."""
    found: dict[str, tuple[str, Header]] = {}

    def header(note: Note) -> tuple[str, Header]:
        if note.id not in found:
            found[note.id] = header_of(notes_dir, library, note)
        return found[note.id]

    return header


def check_notes(
    sources: Sequence[NoteSource], topics: dict[str, Topic], taxonomy: str
) -> list[Problem]:
    """Checks beyond one file's own content: file names, topics (of `taxonomy`, the
    file they were read from), duplicate ids, a note copied under another id, former
    ids that name another note."""
    problems: list[Problem] = []
    ids = {src.note.id for src in sources}
    # an id's note is the file named after it: a copy of it (a new note begun from it,
    # its id not yet changed) is the duplicate, whichever sorts first
    first_seen: dict[str, str] = {}
    for src in sources:
        if os.path.basename(src.path) == src.note.filename:
            first_seen.setdefault(src.note.id, src.path)
    same_note: dict[tuple[str, str], str] = {}
    by_path = {src.path: src.note for src in sources}
    for src in sources:
        note, path, where = src.note, src.path, src.header
        first_seen.setdefault(note.id, path)
        if first_seen[note.id] != path:  # renaming it to the id's file would overwrite
            msg = f"duplicate id {note.id!r} (also in {first_seen[note.id]}): " + _own_id(path, ids)
            problems.append(Problem(path, where.line_of("id"), "id", msg))
            problems += _unknown_topics(note.topics, path, where, topics, taxonomy)
            # a copy with its id unchanged: its title_zh is the other field to change
            if by_path[first_seen[note.id]].identity == note.identity:
                problems.append(_same_note(first_seen[note.id], path, where))
            continue
        if os.path.basename(path) != note.filename:
            problems.append(Problem(path, where.line_of("id"), "id", _misnamed(note)))
        problems += _unknown_topics(note.topics, path, where, topics, taxonomy)
        if note.identity in same_note:  # a copy under another id: PRs would get it twice
            problems.append(_same_note(same_note[note.identity], path, where))
        else:
            same_note[note.identity] = path
    return problems + _ids_naming_two_notes(sources)


def _same_note(first: str, path: str, where: Header) -> Problem:
    """A note with the repo and title_zh of the note in file `first`."""
    msg = (
        f"the same note as {first} (same repo and title_zh, what a note is known by): keep"
        " one file, or give a new note its own PR's Chinese title"
    )
    return Problem(path, where.line_of("title_zh"), "title_zh", msg)


def _misnamed(note: Note) -> str:
    """What a note whose file is not named after its id is told. An id written as the
    file's name (`x.md`) is the mistake: `x.md.md` would be no fix."""
    if note.id.endswith(".md"):
        return f"an id is the file's name without .md: write id = {toml_string(note.id[:-3])}"
    return f"file name must be {note.filename!r} (the importer finds notes by it)"


def _own_id(path: str, ids: set[str]) -> str:
    """What a note whose id another has is told to do: take its file's name as its id,
    when that is an id no note has."""
    stem = os.path.basename(path).removesuffix(".md")
    if re.match(ID_PATTERN, stem) and stem not in ids:
        return f'give this note an id of its own, as its file\'s name: id = "{stem}"'
    return "give this note an id of its own, and name its file <id>.md"


def _ids_naming_two_notes(sources: Sequence[NoteSource]) -> list[Problem]:
    """An id stored marks and links may hold must name one note: a note's id, the ids
    the importer gives it (found after a rename) and its `formerly` may be no other
    note's id, importer id or former id."""
    problems: list[Problem] = []
    current = {src.note.id: src.path for src in sources}
    derived: dict[str, str] = {}  # an importer id a note no longer has -> that note's file
    identity = {src.path: src.note.identity for src in sources}
    for src in sources:
        for old in src.note.derived_ids - {src.note.id}:
            derived.setdefault(old, src.path)
    for src in sources:  # reusing a renamed note's importer id takes its marks and links
        other = derived.get(src.note.id)
        # a copy of this note under another id is no rename: check_notes names the copy
        if other is not None and identity[other] != src.note.identity:
            msg = (
                f"{src.note.id!r} is the id the importer gave {other} (renamed since), which"
                " marks and links still name it by: choose another id"
            )
            problems.append(Problem(src.path, src.header.line_of("id"), "id", msg))
    claimed: dict[str, str] = {}
    for src in sources:  # a former id must name one note: not another's now, nor two
        for former in src.note.formerly:
            if former in current:
                msg = f"{former!r} is the id of {current[former]}: a former id names one note"
            elif derived.get(former, src.path) != src.path:
                msg = (
                    f"{former!r} is the id the importer gave {derived[former]}: it names that note"
                )
            elif former in claimed:
                msg = f"{former!r} is a former id of {claimed[former]} too: it names one note"
            else:
                claimed[former] = src.path
                continue
            line = src.header.line_of("formerly", former)
            problems.append(Problem(src.path, line, "formerly", msg))
    return problems


def _unknown_topics(
    named: Iterable[object],
    path: str,
    where: Header,
    topics: dict[str, Topic],
    taxonomy: str,
) -> list[Problem]:
    if not topics:  # the taxonomy did not load: its own problems say why
        return []
    return [
        Problem(path, where.line_of("topics", t), "topics", unknown_topic(t, topics, taxonomy))
        # once each (a topic listed twice is its own problem); a list or table where a
        # topic's id goes is its own problem too, and cannot be hashed
        for t in dict.fromkeys(t for t in named if isinstance(t, str))
        if t not in topics
    ]


def unknown_topic(topic: str, topics: Mapping[str, Topic], taxonomy: str) -> str:
    """What a note or the matching config naming `topic` is told: the taxonomy file it is
    not in (a topic new in a scratch copy of topics.toml, the check or `match` run without
    its `--topics`: "unknown" alone sent the curator to look at a file that has it), and
    the topic it seems a misspelling of, if any (a near id does not say which file was
    read either)."""
    meant = joined_topics(topic, topics) or topic_did_you_mean(topic, topics)
    meant = meant or f"; {UNKNOWN_TOPIC_FIX}"
    return f"unknown topic {topic!r}: no topic has this id in {taxonomy}{meant}"


# what separates topics typed in one string: a list's comma, and a Chinese input method's
_JOINING = re.compile(f"[,;{LIST_SEPARATORS}]")


def joined_topics(word: str, topics: Mapping[str, Topic]) -> str:
    """What a string of topics a separator joins (`"cuda-graphs，rocm"`) is told: the
    list of their ids to write, or "" (the nearest id, the first's, would drop the rest)."""
    parts = [p.strip() for p in _JOINING.split(word)]
    by_key = topics_by_key(topics.values())
    meant = [by_key.get(topic_key(p)) for p in parts]
    if len(parts) < 2 or None in meant:
        return ""
    ids = ", ".join(toml_string(m.id) for m in meant if m is not None)
    joiner = describe_character(next(c for c in word if _JOINING.match(c)))
    return f"; it joins topics with {joiner}: write each as a string of its own, [{ids}]"


# what a topic no taxonomy has is told to do, when it is no misspelling of one
UNKNOWN_TOPIC_FIX = (
    "write the id of one of its topics, or add the topic there (docs/curating.md: Add a topic)"
)


def _problems_of_an_unread_note(
    text: str, path: str, topics: dict[str, Topic], taxonomy: str
) -> list[Problem]:
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
    return _unknown_topics(named, path, Header(header_text, first), topics, taxonomy)


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


# What an editor saves a text as when told no better (`x.md.txt` from Notepad, `x.MD`,
# `x.markdown`, no suffix at all); an editor's backup (`x.md~`, `x.md.orig`, `x.md.bak`)
# is a copy, no note lost
_TEXT_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".txt", ".text", ""})


def _stray_notes(others: list[str]) -> list[Problem]:
    """Notes saved under another name (`x.md.txt`, `x.MD`): never loaded, so lost without
    a word unless named. Other files (images, a README.txt, backups) are no notes."""
    msg = f"a note not named *{NOTE_SUFFIX} is not loaded: rename it to <id>{NOTE_SUFFIX}"
    return [
        Problem(file, 1, "file", msg)
        for file in others
        if os.path.splitext(file)[1].lower() in _TEXT_SUFFIXES and _holds_a_header(file)
    ]


def notes_above(notes_dir: Path) -> list[str]:
    """Notes saved in the directory that holds the notes' (`seeds/x.md` beside
    `seeds/notes/`), sorted: never loaded, and lost without a word unless named, as a
    note under another name is (`_stray_notes`). Its files only: a sibling directory
    (`seeds/raw/`) holds other things."""
    above = notes_dir.parent if notes_dir.name not in ("", "..") else notes_dir.resolve().parent
    if above.resolve() == notes_dir.resolve():  # the root: its files are the notes' own
        return []
    try:
        with os.scandir(above) as entries:
            files = [e.path for e in entries if not e.name.startswith(".") and e.is_file()]
    except OSError:  # not ours to read: the notes' own check says what matters
        return []
    text = (f for f in files if os.path.splitext(f)[1].lower() in _TEXT_SUFFIXES)
    return sorted(f for f in text if _holds_a_header(f))


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
    except NotADirectoryError:  # `notes check seeds/notes/<new-id>.md`: one's own note
        msg = (
            "a file, not the notes' directory: a note is checked with the others (ids,"
            f" titles), so name their directory, {notes_dir.parent}"
            if notes_dir.suffix == ".md"
            # `notes check config/topics.toml`: its directory holds no notes
            else "a file, not the notes' directory: name the directory of the notes"
            " (*.md files); the taxonomy goes after --topics"
        )
        problems.append(Problem(str(notes_dir), 1, "notes", msg))
        files = []
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
            problems.append(Problem(file, 1, "file", _unreadable(file, exc)))
            continue
        try:
            sources.append(read_note(text, file, curated=True))
        except LibraryError as exc:
            unread = _problems_of_an_unread_note(text, file, topics, str(topics_file))
            problems += exc.problems + unread
    problems += check_notes(sources, topics, str(topics_file))
    if problems:
        return None, sorted(problems)
    notes = tuple(sorted((s.note for s in sources if not s.note.retired), key=lambda n: n.id))
    file_of = {s.note.id: Path(s.path).relative_to(notes_dir).as_posix() for s in sources}
    retired = {s.note.id: s.note for s in sources if s.note.retired}
    return Library(notes, topics, file_of, retired, taxonomy=str(topics_file)), []


def _unreadable(file: str, exc: OSError) -> str:
    """Why a note file cannot be read: a link to a file gone (a note moved or deleted
    since) is said to be one, not "No such file" of a file the directory lists."""
    if os.path.islink(file) and not os.path.exists(file):
        target = os.path.join(os.path.dirname(file), os.readlink(file))
        return (
            f"a symbolic link to {target}, which does not exist: point it at the note, or delete it"
        )
    return f"cannot read: {exc.strerror}"


def load_library(
    notes_dir: Path = DEFAULT_NOTES_DIR, topics_file: Path = DEFAULT_TOPICS_FILE
) -> Library:
    """Read and validate every note and the taxonomy; raise LibraryError listing all problems."""
    library, problems = check_library(notes_dir, topics_file)
    if library is None:
        raise LibraryError(problems)
    return library

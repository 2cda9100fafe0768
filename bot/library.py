"""The notes library: every note file plus the topic taxonomy, loaded and checked.

Parsing is pure (text in, models out); `load_library` is the one place that reads
the disk. Loading is deterministic: notes are sorted by id, topics keep file order.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from bot.notes import LibraryError, Note, Problem, Topic, key_lines, parse_note, pydantic_problems

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_NOTES_DIR = ROOT / "seeds" / "notes"
DEFAULT_TOPICS_FILE = ROOT / "config" / "topics.toml"

_TABLE = re.compile(r"^\s*\[\[\s*topic\s*\]\]\s*(#.*)?$")


@dataclass(frozen=True)
class Library:
    """All notes and topics, with the indexes the matcher and the pages need."""

    notes: tuple[Note, ...]
    topics: dict[str, Topic]
    by_id: dict[str, Note] = field(init=False)
    by_topic: dict[str, tuple[Note, ...]] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {n.id: n for n in self.notes})
        index: dict[str, list[Note]] = {t: [] for t in self.topics}
        for note in self.notes:
            for t in note.topics:
                index.setdefault(t, []).append(note)
        object.__setattr__(self, "by_topic", {t: tuple(ns) for t, ns in index.items()})

    def for_repo(self, repo: str) -> tuple[Note, ...]:
        return tuple(n for n in self.notes if n.repo.lower() == repo.lower())


def parse_taxonomy(text: str, path: str) -> list[Topic]:
    """Parse config/topics.toml (an array of [[topic]] tables); raise LibraryError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise LibraryError(
            [Problem(path, int(m.group(1)) if m else 1, "taxonomy", f"malformed TOML: {exc}")]
        ) from None
    extra = sorted(set(data) - {"topic"})
    if extra:
        raise LibraryError([Problem(path, 1, extra[0], "unknown top-level key")])
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if _TABLE.match(line)] + [len(lines)]
    problems: list[Problem] = []
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data.get("topic", [])):
        first = starts[i] + 1 if i < len(starts) - 1 else 1
        block = lines[starts[i] + 1 : starts[i + 1]] if i < len(starts) - 1 else []
        where = key_lines(block, first + 1)
        try:
            topic = Topic.model_validate(raw)
        except ValidationError as exc:
            problems += pydantic_problems(exc, path, where, first)
            continue
        if topic.id in seen:
            problems.append(
                Problem(
                    path,
                    where.get("id", first),
                    "id",
                    f"duplicate topic id {topic.id!r} (first at line {seen[topic.id]})",
                )
            )
            continue
        seen[topic.id] = where.get("id", first)
        topics.append(topic)
    if problems:
        raise LibraryError(problems)
    return topics


def check_notes(
    notes: Iterable[tuple[str, Note]], topics: dict[str, Topic], texts: dict[str, str]
) -> list[Problem]:
    """Cross-file checks: unknown topics and duplicate ids."""
    problems: list[Problem] = []
    first_seen: dict[str, str] = {}
    for path, note in notes:
        lines = key_lines(texts[path].split("\n"), 1)
        for t in note.topics:
            if t not in topics:
                problems.append(
                    Problem(path, lines.get("topics", 1), "topics", f"unknown topic {t!r}")
                )
        if note.id in first_seen:
            problems.append(
                Problem(
                    path,
                    lines.get("id", 1),
                    "id",
                    f"duplicate id {note.id!r} (also in {first_seen[note.id]})",
                )
            )
        else:
            first_seen[note.id] = path
    return problems


def load_library(
    notes_dir: Path = DEFAULT_NOTES_DIR, topics_file: Path = DEFAULT_TOPICS_FILE
) -> Library:
    """Read and validate every note and the taxonomy; raise LibraryError listing all problems."""
    problems: list[Problem] = []
    topics: dict[str, Topic] = {}
    try:
        topics = {t.id: t for t in parse_taxonomy(topics_file.read_text("utf-8"), str(topics_file))}
    except LibraryError as exc:
        problems += exc.problems
    except OSError as exc:
        problems.append(Problem(str(topics_file), 1, "taxonomy", f"cannot read: {exc.strerror}"))
    parsed: list[tuple[str, Note]] = []
    texts: dict[str, str] = {}
    if not notes_dir.is_dir():
        problems.append(Problem(str(notes_dir), 1, "notes", "not a directory"))
        files: list[Path] = []
    else:
        files = sorted(notes_dir.rglob("*.md"))
    for file in files:
        path = str(file)
        try:
            texts[path] = file.read_text("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(path, 1, "file", f"not UTF-8: {exc.reason}"))
            continue
        try:
            parsed.append((path, parse_note(texts[path], path)))
        except LibraryError as exc:
            problems += exc.problems
    if topics:
        problems += check_notes(parsed, topics, texts)
    if problems:
        raise LibraryError(problems)
    notes = tuple(sorted((n for _, n in parsed), key=lambda n: n.id))
    return Library(notes=notes, topics=topics)

"""Turn a raw review digest into note files.

A digest (seeds/raw/*.txt) is: line 1 the repository, then blocks separated by
blank lines, alternating a one-line Chinese title and a guidance paragraph.
Parsing is pure; `import_digest` writes files and never overwrites one that
exists unless forced, so importing the same digest twice changes nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from bot.notes import REPO_PATTERN, LibraryError, Note, Problem, Verdict, dump_note


@dataclass(frozen=True)
class DigestEntry:
    title: str
    guidance: str
    line: int  # line of the title in the digest
    index: int  # 1-based position in the digest


# Checked in order on the lead sentence, then on the whole text: the first hit wins.
# Negations come first so that "不值得精读" is not read as "值得精读", and the quick-read
# forms come before the "no deep read" forms so that "值得快速阅读，不建议深入精读" is quick.
_VERDICT_RULES: list[tuple[str, Verdict]] = [
    ("不值得", Verdict.SKIP),
    ("值得精读", Verdict.DEEP),
    ("值得深入阅读", Verdict.DEEP),
    ("值得快速阅读", Verdict.QUICK),
    ("值得快速浏览", Verdict.QUICK),
    ("不需要精读", Verdict.SKIP),
    ("不需精读", Verdict.SKIP),
    ("无需精读", Verdict.SKIP),
    ("可直接略过", Verdict.SKIP),
]


def derive_verdict(guidance: str) -> Verdict | None:
    """The verdict the guidance's wording states, or None when it states none."""
    lead = re.split(r"[。！？!?\n]", guidance, maxsplit=1)[0]
    for text in (lead, guidance):
        for phrase, verdict in _VERDICT_RULES:
            if phrase in text:
                return verdict
    return None


def note_id(repo: str, title: str) -> str:
    """A stable id from the repository and the original title."""
    digest = hashlib.sha256(f"{repo}\n{title}".encode()).hexdigest()[:8]
    return f"{repo.split('/')[-1].lower()}-{digest}"


def parse_digest(text: str, path: str) -> tuple[str, list[DigestEntry]]:
    """Split a digest into (repo, entries); raise LibraryError on any defect."""
    lines = text.split("\n")
    repo = lines[0].strip().lstrip("\ufeff") if lines else ""
    if not re.match(REPO_PATTERN, repo):
        raise LibraryError([Problem(path, 1, "repo", f"line 1 must be owner/name, got {repo!r}")])
    chunks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for no, line in enumerate(lines[1:], start=2):
        if line.strip():
            if not current:
                start = no
            current.append(line)
        elif current:
            chunks.append((start, current))
            current = []
    if current:
        chunks.append((start, current))
    problems: list[Problem] = []
    entries: list[DigestEntry] = []
    if not chunks:
        problems.append(Problem(path, 1, "notes", "no title/guidance blocks after line 1"))
    for k in range(0, len(chunks), 2):
        t_line, t_lines = chunks[k]
        if len(t_lines) != 1:
            problems.append(
                Problem(path, t_line, "title", f"a title is one line; found {len(t_lines)} lines")
            )
            continue
        if k + 1 >= len(chunks):
            problems.append(Problem(path, t_line, "guidance", "title without a guidance paragraph"))
            continue
        g_line, g_lines = chunks[k + 1]
        guidance = "\n".join(g_lines)
        if derive_verdict(guidance) is None:
            problems.append(
                Problem(
                    path,
                    g_line,
                    "verdict",
                    "guidance states no verdict (值得精读 / 值得快速阅读 / 不需要精读 ...)",
                )
            )
            continue
        entries.append(DigestEntry(t_lines[0].strip(), guidance, t_line, len(entries) + 1))
    seen: dict[str, int] = {}
    for e in entries:
        if e.title in seen:
            problems.append(
                Problem(path, e.line, "title", f"duplicate title (first at line {seen[e.title]})")
            )
        seen.setdefault(e.title, e.line)
    if problems:
        raise LibraryError(problems)
    return repo, entries


def digest_notes(text: str, path: str, today: date) -> list[Note]:
    """The uncurated notes a digest describes (topics are left for the curator)."""
    repo, entries = parse_digest(text, path)
    name = Path(path).name
    return [
        Note.model_construct(
            id=note_id(repo, e.title),
            repo=repo,
            source_pr=None,
            verdict=derive_verdict(e.guidance),
            topics=(),
            keywords=(),
            paths=(),
            title_zh=e.title,
            title_en="",
            summary_en="",
            guidance=e.guidance,
            created=today,
            updated=today,
            source=f"{name}#{e.index}",
        )
        for e in entries
    ]


@dataclass(frozen=True)
class ImportResult:
    written: list[Path]
    kept: list[Path]  # existed already; left as the curator has it


def import_digest(
    digest: Path, notes_dir: Path, *, force: bool = False, today: date | None = None
) -> ImportResult:
    """Write one note file per digest entry; nothing is written if the digest is malformed."""
    notes = digest_notes(digest.read_text("utf-8"), str(digest), today or date.today())
    notes_dir.mkdir(parents=True, exist_ok=True)
    written, kept = [], []
    for note in notes:
        target = notes_dir / note.filename
        if target.exists() and not force:
            kept.append(target)
            continue
        target.write_text(dump_note(note), "utf-8")
        written.append(target)
    return ImportResult(written, kept)

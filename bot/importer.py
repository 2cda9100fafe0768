"""Turn a raw review digest into note files.

A digest (seeds/raw/*.txt) is: line 1 the repository, then blocks separated by
blank lines, alternating a one-line Chinese title and a guidance paragraph.
Parsing is pure. The text is kept exactly, except what no reader can see: a
byte-order mark, CRLF line ends and whitespace at the end of a line.

`import_digest` writes one file per entry and never touches a note that exists
unless forced; then it refreshes only what the digest owns (title, guidance,
verdict, provenance) and keeps the curator's fields. Importing the same digest
twice changes nothing. A malformed digest writes nothing.
"""

from __future__ import annotations

import errno
import os
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from bot.library import note_files
from bot.note_dump import FENCE, dump_fields, dump_note, field_line
from bot.note_files import (
    Header,
    LibraryError,
    Problem,
    decode_utf8,
    normalise_text,
    parse_toml,
    repo_of_address,
    split_front_matter,
)
from bot.notes import (
    REPO_PATTERN,
    Note,
    Verdict,
    control_character,
    derive_verdict,
    near_verdict,
    note_id,
)
from bot.toml_lines import scan, scan_with_comments


@dataclass(frozen=True)
class DigestEntry:
    title: str
    guidance: str
    verdict: Verdict  # what its guidance states (derive_verdict)
    line: int  # line of the title in the digest
    index: int  # 1-based position in the digest


VERDICT_HINT = "值得精读 / 值得快速阅读 / 值得快速浏览 / 不需要精读 / 可直接略过"


def _blocks(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Runs of non-blank lines after line 1, each with the line number it starts on."""
    blocks: list[tuple[int, list[str]]] = []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        if blocks and blocks[-1][0] + len(blocks[-1][1]) == no:
            blocks[-1][1].append(line)
        else:
            blocks.append((no, [line]))
    return blocks


def _an_entry_at(blocks: list[tuple[int, list[str]]], k: int) -> bool:
    """Whether block `k` and the next read as an entry: a one-line title, then a
    paragraph stating a verdict."""
    if k + 1 >= len(blocks) or len(blocks[k][1]) != 1:
        return False
    return derive_verdict("\n".join(blocks[k + 1][1])) is not None


def _goes_on(blocks: list[tuple[int, list[str]]], k: int) -> str:
    """A hint for block `k`, read as a title, when the block above it is a guidance: it
    may be that guidance's next paragraph; "" otherwise."""
    if k == 0 or derive_verdict("\n".join(blocks[k - 1][1])) is None:
        return ""
    return (
        f"if line {blocks[k][0]} goes on with the guidance above, delete the blank line"
        " before it: a guidance is one paragraph"
    )


def _not_a_repo(lines: list[str]) -> str:
    """What a digest whose line 1 is no repository is told: the repository its address
    names (copied from the browser), the blank lines before it to delete, or that the file
    is empty."""
    written = [i for i, line in enumerate(lines) if line.strip()]
    if not written:
        return "the file is empty: line 1 is the repository as owner/name, then the entries"
    repo = lines[0].strip()
    msg = f"line 1 must be the repository as owner/name, got {repo!r}"
    if not repo and re.match(REPO_PATTERN, lines[written[0]].strip()):
        blank = "the blank lines" if written[0] > 1 else "the blank line"
        return msg + f": delete {blank} before line {written[0] + 1}"
    if repo and (named := repo_of_address(repo)) is not None:
        return msg + f": write {named}"
    return msg


def parse_digest(text: str, path: str) -> tuple[str, list[DigestEntry]]:
    """Split a digest into (repo, entries); raise LibraryError listing every defect."""
    lines = [line.rstrip(" \t") for line in normalise_text(text).split("\n")]
    repo = lines[0].strip()
    if not re.match(REPO_PATTERN, repo):
        raise LibraryError([Problem(path, 1, "repo", _not_a_repo(lines))])
    blocks = _blocks(lines)
    if not blocks:
        raise LibraryError([Problem(path, 1, "notes", "no title/guidance blocks after line 1")])
    problems: list[Problem] = []
    entries: list[DigestEntry] = []
    k = 0
    while k < len(blocks):
        t_line, t_lines = blocks[k]
        if derive_verdict(t_lines[0]) is not None:
            # A guidance where a title should be: report it and pair up again after it.
            msg = "this looks like a guidance paragraph (it states a verdict); is a title missing?"
            if k > 0 and len(blocks[k - 1][1]) > 1:  # a blank line left out before the title
                last = blocks[k - 1][0] + len(blocks[k - 1][1]) - 1
                msg += f" Line {last}, the last of the paragraph above, may be it: put a blank"
                msg += " line before it"
            problems.append(Problem(path, t_line, "title", msg))
            k += 1
            continue
        if len(t_lines) != 1:
            msg = f"a title is one line, found {len(t_lines)}; is a blank line missing after it?"
            # its guidance in the block, or a paragraph of its own before an entry whole:
            # the next block is the next entry's title
            whole = derive_verdict("\n".join(t_lines[1:])) is not None
            stray = not whole and _an_entry_at(blocks, k + 1)
            if not whole and (goes_on := _goes_on(blocks, k)):
                msg += f" {goes_on[0].upper()}{goes_on[1:]}"
            problems.append(Problem(path, t_line, "title", msg))
            if whole or stray:
                k += 1
                continue
        elif said := control_character(t_lines[0].strip()):
            # the note would be refused, its id made of it
            problems.append(Problem(path, t_line, "title", said))
        elif k + 1 >= len(blocks):
            msg = "title without a guidance paragraph"
            if goes_on := _goes_on(blocks, k):
                msg += f"; {goes_on}"
            problems.append(Problem(path, t_line, "guidance", msg))
        else:
            g_line, g_lines = blocks[k + 1]
            guidance = "\n".join(g_lines)
            stated = derive_verdict(guidance)
            if stated is None and _an_entry_at(blocks, k + 1):
                # the title's guidance left out: what follows is the next entry, whole; or
                # its guidance lacks a verdict and the next title is left out (both said)
                msg = (
                    f"title without a guidance paragraph: line {g_line} is the next entry's"
                    " title (the paragraph after it states a verdict); if it is this title's"
                    f" guidance, it states no verdict ({VERDICT_HINT})"
                )
                if goes_on := _goes_on(blocks, k):
                    msg += f"; {goes_on}"
                problems.append(Problem(path, t_line, "guidance", msg))
                k += 1
                continue
            if stated is None:
                msg = f"the guidance states no verdict ({VERDICT_HINT})"
                if (near := near_verdict(guidance)) is not None:  # `值得 精读`, `值得精讀`
                    msg += f"; {near[0]!r} reads as {near[1]}: write it so"
                problems.append(Problem(path, g_line, "verdict", msg))
            else:
                title = t_lines[0].strip()
                entries.append(DigestEntry(title, guidance, stated, t_line, len(entries) + 1))
        k += 2
    seen: dict[str, int] = {}
    for e in entries:
        if e.title in seen:
            msg = f"duplicate title (first at line {seen[e.title]}): it would give the same id"
            problems.append(Problem(path, e.line, "title", msg))
        seen.setdefault(e.title, e.line)
    if problems:
        raise LibraryError(problems)
    return repo, entries


# What the digest owns; everything else in a note file belongs to the curator. `source`
# (provenance) is refreshed with the rest but a new file name alone is no change.
DIGEST_FIELDS = ("repo", "verdict", "title_zh", "guidance", "source")
CONTENT_FIELDS = ("repo", "verdict", "title_zh", "guidance")


def digest_notes(text: str, path: str, today: date) -> list[Note]:
    """The uncurated notes a digest describes (topics, English lines, the PR and its
    creation date are the curator's: a digest names no PR). `updated` is the import's
    day, when the note changed."""
    repo, entries = parse_digest(text, path)
    name = Path(path).name
    return [
        Note.model_construct(
            id=note_id(repo, e.title),
            repo=repo,
            source_pr=None,
            verdict=e.verdict,
            topics=(),
            keywords=(),
            paths=(),
            title_zh=e.title,
            title_en="",
            summary_en="",
            guidance=e.guidance,
            created=None,  # the PR's creation date: the digest does not know it
            updated=today,
            source=f"{name}#{e.index}",
        )
        for e in entries
    ]


@dataclass
class ImportResult:
    created: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)  # --force: the digest's fields refreshed
    unchanged: list[Path] = field(default_factory=list)  # exists and agrees with the digest
    kept: list[Path] = field(default_factory=list)  # exists, differs; left alone without --force
    # --force: updated for `source` alone: the entry is at another position in its digest
    moved: list[Path] = field(default_factory=list)
    # --force: the lines (and keys) whose value it rewrote under the curator's comment,
    # kept after it
    commented: dict[Path, list[tuple[int, str]]] = field(default_factory=dict)
    # kept notes the curator must look at (not merely different): why kept, and the
    # problem (exit 1) or notice (nothing is lost) as file:line: field: message
    why: dict[Path, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notices: list[Problem] = field(default_factory=list)


def _digest_fields(note: Note) -> dict[str, Any]:
    return {k: getattr(note, k) for k in DIGEST_FIELDS}


def _same(key: str, old: Any, new: Any) -> bool:
    """The note already says what the digest says (a repository in any case: GitHub's
    names ignore it)."""
    if key == "repo":
        return str(old).lower() == str(new).lower()
    return str(old) == str(new)


def _digest_of(source: Any) -> str | None:
    """The digest file a `source` (`<digest file>#<position>`) names, if it names one."""
    if not isinstance(source, str) or not source.strip():
        return None
    return source.split("#")[0]


def _from_another_digest(note_source: Any, entry_source: str) -> bool:
    """The note's provenance names a digest file other than the entry's: a title two
    digests share (a short one, 调整 CI 中 lint 脚本的顺序) gives the same id, and the
    entry may be another PR's. A note without provenance cannot tell."""
    named = _digest_of(note_source)
    return named is not None and named != _digest_of(entry_source)


def _moved_in_its_digest(note_source: Any, entry_source: str) -> bool:
    """The note's `source` names the entry's digest at another position: an entry put
    before it, or taken out, shifted it; `#2` would name another entry (the new one,
    which says `#2` too)."""
    return _digest_of(note_source) == _digest_of(entry_source) and note_source != entry_source


def _follows_a_later_digest(note_source: Any, entry_source: str) -> bool:
    """The note's `source` names a digest whose file name sorts after the entry's: digests
    are numbered as they come (`000_...`, `004_...`), and `seeds/raw/*.txt` imports them
    in that order, so the note follows a later digest and is refreshed from it after this
    one. The earlier digest's entry is history the curator moved on from (following the
    collision's advice, `source` set to the later entry), not news to import."""
    named, entry = _digest_of(note_source), _digest_of(entry_source)
    return named is not None and entry is not None and named > entry


def _source_line(path: str, text: str) -> int:
    """The file line of the note's `source`, where a collision is reported."""
    header, _, first = split_front_matter(text, path)
    return Header(header, first).line_of("source")


def _collision(path: str, text: str, data: dict[str, Any], note: Note, force: bool) -> Problem:
    action = "--force would replace" if force else "it would replace"
    msg = (
        f"this note came from another digest ({data['source']}) and has the same repository"
        f" and Chinese title as entry {note.source}, so the same id; the entry's guidance"
        f" differs: it may be another PR's, and {action} this note's guidance. Nothing was"
        " written to it, and the entry was not imported (the digest's other entries were)."
        " If the entry is another PR's, give it a title of its own in the digest and import"
        " again (a new note); if it is this note's guidance, moved to this digest, set"
        f' `source = "{note.source}"` here and import with --force'
    )
    return Problem(path, _source_line(path, text), "source", msg)


def _superseded(path: str, text: str, data: dict[str, Any], note: Note) -> Problem:
    msg = (
        f"notice: entry {note.source} was not imported: this note has its repository and"
        f" Chinese title but follows a later digest ({data['source']}), which refreshes it;"
        " the note is left as it is. Nothing to do if the entry is this note's earlier"
        " guidance; if it is another PR's, give it a title of its own in the digest and"
        " import again (a new note)"
    )
    return Problem(path, _source_line(path, text), "source", msg)


def _existing_fields(text: str, path: str) -> tuple[dict[str, Any], str]:
    """The header fields and guidance of an existing note, validated or not."""
    header, body, first = split_front_matter(text, path)
    data = parse_toml(header, path, first, "header")
    return data, body.removesuffix("\n")


def _patched(
    text: str, changes: dict[str, Any], expected: dict[str, Any], guidance: str, path: str
) -> tuple[str, list[tuple[int, str]]] | None:
    """The note with only `changes` rewritten in its header, line by line, so that the
    curator's other lines, comments included, stay as they are, and the file lines of
    the values rewritten under a comment: it stays after the new value. A header that
    cannot be patched so is rewritten whole when it has no comment to lose; else None."""
    header, _, first = split_front_matter(text, path)
    lines = header.split("\n")
    entries, remarks = scan_with_comments(header)
    keys = [e for e in entries if not e.table]
    commented: list[tuple[int, str]] = []
    for key, value in changes.items():
        at = [e.line for e in keys if e.path == (key,)]
        new = field_line(key, value)
        if not at:
            lines.append(new)
        elif len(at) == 1 and "\n" not in new:
            old = lines[at[0]]
            column = remarks.get(at[0])
            if column is not None:  # `verdict = "deep"  # why`: the comment stays
                spaces = len(old[:column]) - len(old[:column].rstrip(" \t"))
                new += old[column - spaces :]
                commented.append((first + at[0], key))
            lines[at[0]] = new
        else:
            break
    else:
        patched = "\n".join([FENCE, *lines, FENCE]) + "\n" + guidance + "\n"
        try:
            if parse_toml("\n".join(lines), path, first, "header") == expected:
                return patched, commented
        except LibraryError:
            pass
    if remarks:  # a comment, on a line of its own or after a value: keep it
        return None
    return dump_fields(expected, guidance), []


@dataclass
class _Existing:
    """The note files by what finds an entry's note besides its id: the repository (lower
    case) and the Chinese title, what the id is derived from; or the repository and the
    guidance (its words, spacing aside), for an entry the digest has retitled since.
    Files that do not read are left out (the id's file name still finds them)."""

    by_title: dict[tuple[str, str], Path] = field(default_factory=dict)
    by_guidance: dict[tuple[str, str], Path] = field(default_factory=dict)

    @classmethod
    def of(cls, files: list[Path]) -> _Existing:
        found = cls()
        for file in files:
            try:
                text = decode_utf8(file.read_bytes(), str(file))
                data, guidance = _existing_fields(text, str(file))
            except (LibraryError, OSError):
                continue
            repo, title = data.get("repo"), data.get("title_zh")
            if not isinstance(repo, str):
                continue
            if isinstance(title, str):
                found.by_title.setdefault((repo.lower(), title), file)
            found.by_guidance.setdefault((repo.lower(), _words(guidance)), file)
        return found

    def find(self, note: Note) -> tuple[Path | None, bool]:
        """The file of this entry's note, if any, and whether only its guidance found it
        (the digest gives it another Chinese title)."""
        repo = note.repo.lower()
        if (titled := self.by_title.get((repo, note.title_zh))) is not None:
            return titled, False
        retitled = self.by_guidance.get((repo, _words(note.guidance)))
        return retitled, retitled is not None


def _words(guidance: str) -> str:
    return " ".join(guidance.split())


class NotWritten(OSError):
    """A note file, or the notes directory (`directory`), the import could not write.
    Its `filename` is the note's or the directory's: a full disk names no file, a
    temporary file's name is none the curator knows."""

    def __init__(self, cause: OSError, path: Path, *, directory: bool = False) -> None:
        super().__init__(cause.errno, cause.strerror or str(cause), str(path))
        self.directory = directory


def _write_atomically(target: Path, text: str) -> None:
    # A dot-file that is not *.md, so a crash never leaves a half note the loader reads.
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise NotWritten(exc, target) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException as exc:
        os.unlink(tmp)
        if isinstance(exc, OSError):
            raise NotWritten(exc, target) from exc
        raise


def _target(
    note: Note, notes_dir: Path, existing: dict[str, Path], known: _Existing
) -> tuple[Path, bool]:
    """The file the note goes to, and whether it is found by its guidance under another
    Chinese title (retitled). A note imported before ids ignored the repository's case
    keeps its file and id, and so does one a curator renamed (file and id): it still
    has the digest's title."""
    earlier = f"{note_id(note.repo, note.title_zh, as_written=True)}.md"
    target = existing.get(note.filename) or existing.get(earlier)
    if target is not None:
        return target, False
    found, retitled = known.find(note)
    return found or notes_dir / note.filename, retitled


def _keep_another_digests(
    result: ImportResult, target: Path, text: str, data: dict[str, Any], note: Note, force: bool
) -> None:
    """A note of another digest under the same file: a decision about this note alone.
    It is kept, the digest's other entries are imported, and the curator is told (a
    problem only when the entry may be news that is otherwise lost: see
    _follows_a_later_digest)."""
    result.kept.append(target)
    if _follows_a_later_digest(data.get("source"), note.source):
        result.why[target] = "not refreshed: it follows a later digest: see the notice below"
        result.notices.append(_superseded(str(target), text, data, note))
    else:
        result.why[target] = "not refreshed: another digest's note: see the problem below"
        result.problems.append(_collision(str(target), text, data, note, force))


def _refreshed(
    text: str,
    data: dict[str, Any],
    guidance: str,
    note: Note,
    fresh: dict[str, Any],
    today: date,
    path: str,
) -> tuple[str, list[tuple[int, str]]] | Problem:
    """The note file's text with the digest's fields (`--force`), or why it cannot be
    patched. A line whose value is the digest's stays as written, its comment with it."""
    changes = {
        k: v
        for k, v in fresh.items()
        if k != "guidance" and (k not in data or not _same(k, data[k], v))
    }
    # a new day only for what a reader reads anew: a retitle answers no mark
    # (`notes feedback` ages the marks made before `updated`)
    if not _same("guidance", guidance, note.guidance) or "verdict" in changes:
        changes["updated"] = today
    patched = _patched(text, changes, {**data, **changes}, note.guidance, path)
    if patched is None:
        header, _, first = split_front_matter(text, path)
        key = _over_lines(header, changes) or next(iter(changes), "header")
        return Problem(
            path,
            Header(header, first).line_of(key, default=first),
            key,
            "--force would rewrite this header and lose its comments (a field it refreshes"
            " spans several lines); refresh the note by hand",
        )
    return patched


def _over_lines(header: str, keys: Iterable[str]) -> str | None:
    """The first of `keys` whose value runs over lines (a line after its own that is
    neither blank, a comment nor another key's), where the curator is sent: --force
    rewrites a value on its own line only."""
    entries = scan(header)
    lines = header.split("\n")
    for key in keys:
        at = [e.line for e in entries if e.path == (key,) and not e.table]
        if len(at) != 1:
            continue
        end = min((e.line for e in entries if e.line > at[0]), default=len(lines))
        rest = [line.strip() for line in lines[at[0] + 1 : end]]
        if any(line and not line.startswith("#") for line in rest):
            return key
    return None


def plan_import(
    notes: list[Note], notes_dir: Path, *, force: bool, today: date
) -> tuple[dict[Path, str], ImportResult]:
    """Decide what to write (target -> text) without writing; raise LibraryError if stuck."""
    writes: dict[Path, str] = {}
    result = ImportResult()
    problems: list[Problem] = []
    # a note a curator moved into a sub-folder (the loader reads them all) is still there
    files = [Path(f) for f in note_files(notes_dir)] if notes_dir.is_dir() else []
    existing = {f.name: f for f in files}
    known = _Existing.of(files)
    for note in notes:
        target, retitled = _target(note, notes_dir, existing, known)
        fresh = _digest_fields(note)
        if not target.exists():
            writes[target] = dump_note(note)
            result.created.append(target)
            continue
        try:
            text = decode_utf8(target.read_bytes(), str(target))
            data, guidance = _existing_fields(text, str(target))
        except (LibraryError, OSError) as exc:
            unread = (
                exc.problems
                if isinstance(exc, LibraryError)
                else [Problem(str(target), 1, "file", f"cannot read: {exc.strerror}")]
            )
            if force:
                problems += unread
            else:  # it exists: left alone, and said not to read (not to differ)
                result.kept.append(target)
                result.why[target] = (
                    "not compared with the digest: it does not read: see the problem below"
                )
                result.problems += unread
            continue
        old = {**data, "guidance": guidance}
        if all(_same(k, old.get(k, ""), fresh[k]) for k in CONTENT_FIELDS):
            # --force: `source` alone, when the entry moved in its digest; a header it
            # cannot patch stays as it is (a position is no reason to stop the import)
            patched = None
            if force and _moved_in_its_digest(data.get("source"), note.source):
                patched = _refreshed(text, data, guidance, note, fresh, today, str(target))
            if isinstance(patched, tuple):
                writes[target], commented = patched
                result.updated.append(target)
                result.moved.append(target)
                if commented:
                    result.commented[target] = commented
            else:
                result.unchanged.append(target)
        elif _from_another_digest(data.get("source"), note.source):
            _keep_another_digests(result, target, text, data, note, force)
        elif not force:
            result.kept.append(target)
            if retitled:  # not a new note: the same guidance under another title
                result.why[target] = (
                    "the digest gives it another Chinese title, with the same guidance;"
                    " --force refreshes it, its id and file stay"
                )
        else:
            patched = _refreshed(text, data, guidance, note, fresh, today, str(target))
            if isinstance(patched, Problem):
                problems.append(patched)
                continue
            writes[target], commented = patched
            result.updated.append(target)
            if commented:
                result.commented[target] = commented
    if problems:
        raise LibraryError(problems)
    return writes, result


def import_digest(
    digest: Path, notes_dir: Path, *, force: bool = False, today: date | None = None
) -> ImportResult:
    """Write the digest's notes; a malformed digest or a stuck merge writes nothing."""
    text = decode_utf8(digest.read_bytes(), str(digest))
    today = today or date.today()
    notes = digest_notes(text, str(digest), today)
    if notes_dir.exists() and not notes_dir.is_dir():  # mkdir would say only "File exists"
        no_dir = NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(notes_dir))
        raise NotWritten(no_dir, notes_dir, directory=True)
    try:
        notes_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a parent that is a file, or that this user cannot write
        raise NotWritten(exc, Path(exc.filename or notes_dir), directory=True) from exc
    writes, result = plan_import(notes, notes_dir, force=force, today=today)
    for target, content in writes.items():
        _write_atomically(target, content)
    return result

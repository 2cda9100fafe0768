"""`review-notes notes ...`: the curators' commands on the notes library: `import` a
digest into note files, `check` the library (problems, then warnings and hints), `refs`
(what each note's source PR says it relates to, read on GitHub) and `feedback` (what
reviewers marked with `/notes wrong`)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import (
    command_parser,
    command_settings,
    config_argument,
    database_argument,
    database_failed,
    database_of,
    log_plainly,
    notes_dir_default,
    print_json,
    server_library,
    topics_argument,
)
from bot.library import (
    Library,
    NoteHeader,
    check_library,
    headers_of,
    load_library,
    notes_above,
    read_taxonomy,
    topic_headers,
)
from bot.lint_messages import (
    fenced_conflict,
    glued_elsewhere,
    note_hints,
    note_warnings,
    outside_notes_dir,
    placed,
)
from bot.note_files import LibraryError, Problem, merge_conflict

if TYPE_CHECKING:
    from bot.importer import NotWritten
    from bot.match_config import MatchConfig
    from bot.settings import Settings


def add_notes_parser(sub) -> None:
    notes = command_parser(sub, "notes")
    notes_sub = notes.add_subparsers(dest="notes_command", required=True)
    imp = notes_sub.add_parser("import", help="turn digest files into note files")
    imp.add_argument("digest", nargs="+", help="digest file(s) in the seed format")
    imp.add_argument(
        "--notes-dir",
        dest="dir",
        help="where the note files go " + notes_dir_default(),
    )
    imp.add_argument(
        "--force",
        action="store_true",
        help="refresh title, guidance and verdict of notes that exist (curated fields are kept)",
    )
    imp.set_defaults(func=_cmd_notes_import)

    chk = notes_sub.add_parser(
        "check", help="validate every note, the taxonomy and the matching config against them"
    )
    _library_arguments(chk)
    config_argument(chk)
    chk.set_defaults(func=_cmd_notes_check)
    refs = notes_sub.add_parser(
        "refs",
        help="suggest read_with and issues from what each note's source PR says (reads GitHub)",
    )
    _library_arguments(refs)
    refs.add_argument("--note", action="append", metavar="ID", help="only this note (repeatable)")
    refs.set_defaults(func=_cmd_notes_refs)
    fb = notes_sub.add_parser(
        "feedback",
        help="the notes reviewers marked as not relevant (`/notes wrong`), with the evidence",
    )
    _library_arguments(fb)
    database_argument(fb)
    fb.add_argument("--json", action="store_true", help="one JSON object per note")
    fb.set_defaults(func=_cmd_notes_feedback)


def _cmd_notes_import(args: argparse.Namespace) -> int:
    from bot.importer import NotWritten, import_digest

    if not server_library(args):
        return 2
    status = 0
    for digest in args.digest:
        try:
            result = import_digest(Path(digest), Path(args.dir), force=args.force)
        except LibraryError as exc:
            print(exc, file=sys.stderr)
            print(f"{digest}: nothing written", file=sys.stderr)
            status = 1
            continue
        except NotWritten as exc:  # a place on disk, with no line to name
            print(_not_written(exc), file=sys.stderr)
            status = 1
            continue
        except OSError as exc:  # the digest: a write is NotWritten
            print(f"{digest}:1: file: cannot read: {exc.strerror}", file=sys.stderr)
            status = 1
            continue
        for path in result.created:
            print(f"created {path}")
        for path in result.updated:
            if path in result.moved:
                print(f"updated {path} (source: the entry's new position in the digest)")
            else:
                print(f"updated {path} (title, guidance and verdict from the digest)")
            for line, key in result.commented.get(path, []):
                print(
                    f"{path}:{line}: {key}: value refreshed; its comment stays: check it still"
                    " holds"
                )
        for path in result.kept:
            if path in result.why:
                print(f"kept    {path} ({result.why[path]})")
            else:
                print(
                    f"kept    {path} (differs from the digest; --force refreshes its digest fields)"
                )
        counts = ", ".join(
            f"{len(paths)} {name}"
            for name, paths in [
                ("created", result.created),
                ("updated", result.updated),
                ("unchanged", result.unchanged),
                ("kept", result.kept),
            ]
        )
        print(f"{digest}: {counts}")
        for notice in result.notices:
            print(notice)
        for problem in result.problems:
            print(problem, file=sys.stderr)
            status = 1
        if result.created:
            print(
                "next: give each new note topics, title_en and summary_en, its PR as source_pr"
                " and the PR's creation date as created (the digest knows neither), then"
                " `notes check`"
            )
    return status


def _not_written(exc: NotWritten) -> str:
    """What the import could not write, as `path: field: message`: a directory has no
    line, nor has a note not written; the message says so, for the editor's sake."""
    if exc.directory:
        return (
            f"{exc.filename}: notes directory: cannot write notes there: {exc.strerror} (the"
            " directory the notes go to, named by --notes-dir, else REVIEW_NOTES_NOTES_DIR: no"
            " line of a file is at fault)"
        )
    return (
        f"{exc.filename}: file: cannot write: {exc.strerror} (the note is not written, so no"
        " line of it is at fault: import again once it can be; the notes written before it"
        " are then unchanged)"
    )


def _cmd_notes_check(args: argparse.Namespace) -> int:
    settings = _loaded_settings()  # read once: the paths not given, the repositories served
    if not server_library(args, settings):
        return 2
    library, problems = check_library(Path(args.dir), Path(args.topics))
    config = None
    if library is not None:  # the server refuses to start on a config naming a lost topic
        problems, config = _matching_problems(library, Path(args.config))
    else:  # the config too, so one run names every file a renamed topic is still in
        from bot.match_config import config_problems

        topics = Path(args.topics)
        problems += config_problems(Path(args.config), read_taxonomy(topics)[0], topics)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    assert library is not None and config is not None
    retired = f" ({len(library.retired)} retired)" if library.retired else ""
    print(f"ok: {len(library.notes)} notes{retired}, {len(library.topics)} topics")
    served = settings.repos if settings is not None else ()
    header = headers_of(Path(args.dir), library)  # one read and scan per note
    warnings = _warnings(library, config, args, header, served)  # likely wrong
    for warning in sorted(warnings):
        print(warning)
    for hint in sorted(placed(note_hints(library), header)):  # advice, not a defect
        print(hint)
    return 0


def _warnings(
    library: Library,
    config: MatchConfig,
    args: argparse.Namespace,
    header: NoteHeader,
    served: tuple[str, ...],
) -> list[Problem]:
    """What a clean library likely has wrong, as `lint_messages` words it: the notes'
    fields, each on its line (`header`), and what only the files show (a merge conflict's
    markers in a code block, a note above the notes directory, a glued `**` in the
    taxonomy or the matching config), read here."""
    from bot.config_files import read_config

    notes_dir, taxonomy = Path(args.dir), Path(args.topics)
    warnings = placed(note_warnings(library, config, notes_dir, served), header)
    warnings += _fenced_conflicts(library, notes_dir)
    # a note saved a directory too high (`seeds/` for `seeds/notes/`) is not loaded; a
    # warning, not a problem: another tool's files (Hugo's) may open with `+++` too
    warnings += [outside_notes_dir(file, notes_dir) for file in notes_above(notes_dir)]
    topics, config_file = topic_headers(taxonomy), read_config(Path(args.config))
    return warnings + glued_elsewhere(library, config, str(taxonomy), topics, config_file)


def _matching_problems(library: Library, path: Path) -> tuple[list[Problem], MatchConfig | None]:
    """What the server would refuse in the matching config with this library, if
    anything; else the config."""
    from bot.match_config import checked_match_config

    try:
        return [], checked_match_config(library, path)
    except LibraryError as exc:  # a ConfigError: each problem on its line
        return exc.problems, None


def _loaded_settings() -> Settings | None:
    """The server's settings (environment, .env, bot.toml), or None, quietly, when they do
    not load: a check of explicit paths still runs (without the repositories served)."""
    from bot.settings import SettingsError, load_settings

    try:
        return load_settings(dry_run=True)
    except SettingsError:
        return None


def _fenced_conflicts(library: Library, notes_dir: Path) -> list[Problem]:
    """A warning for each note whose guidance holds a merge conflict's markers in a code
    block: a sample of them, or a conflict git left there (not an error, which would
    refuse a note showing a sample; outside code blocks it is one)."""
    warnings = []
    for note in library.notes:
        if "<<<<<<< " not in note.guidance:  # most notes: no file read
            continue
        path = notes_dir / library.file_of(note)
        line = merge_conflict(path.read_bytes().decode("utf-8"), fenced=True)
        if line is not None:
            warnings.append(fenced_conflict(str(path), line))
    return warnings


def _cmd_notes_refs(args: argparse.Namespace) -> int:
    """Read each note's source PR on GitHub; print the PRs and issues it says it relates to."""
    from bot.github_port import GitHubError, PRRef
    from bot.note_refs import mentioned, render_refs, suggest
    from bot.relations import related_refs
    from bot.server import StartupError, live_github
    from bot.settings import SettingsError

    # it only reads: no webhook secret or public URL needed
    settings = command_settings(dry_run=True)
    if settings is None or not server_library(args, settings):
        return 2
    if not settings.has_credentials:
        print(
            "review-notes: notes refs reads GitHub: set GITHUB_TOKEN (or the App's"
            " GITHUB_APP_ID and GITHUB_PRIVATE_KEY)",
            file=sys.stderr,
        )
        return 2
    library, problems = check_library(Path(args.dir), Path(args.topics))
    if library is None:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1
    wanted = set(args.note or ())
    notes = [n for n in library.notes if n.source_pr and (not wanted or n.id in wanted)]
    missing = sorted(wanted - {n.id for n in notes})
    if missing:
        print(f"review-notes: no such note with a source PR: {', '.join(missing)}", file=sys.stderr)
        return 2
    log_plainly(settings)
    try:
        github, failed = live_github(settings), 0
    except (SettingsError, StartupError) as exc:  # e.g. a PEM that is not a usable key
        print(f"review-notes: {exc}", file=sys.stderr)
        return 2
    try:
        for note in notes:
            assert note.source_pr is not None  # (only notes with one are listed)
            try:
                pull = github.get_pull(PRRef(note.repo, note.source_pr))
                related = related_refs(pull.body, note.repo, own_number=note.source_pr)
                kinds = {
                    r.number: github.is_pull(PRRef(note.repo, r.number))
                    for r in related
                    if r.number not in note.listed_numbers
                }
            except GitHubError as exc:  # say which note, go on with the others
                print(f"{note.id} (PR {note.source_pr}): not read: {exc}", file=sys.stderr)
                failed += 1
                continue
            names = mentioned(pull.body, note, related)
            unknown = [n for n, kind in kinds.items() if kind is None]
            print("\n".join(render_refs(note, suggest(note, related, kinds), names, unknown)))
    finally:
        github.close()
    return 1 if failed else 0


def _cmd_notes_feedback(args: argparse.Namespace) -> int:
    """What reviewers said with `/notes wrong`, per note, from the bot's database."""
    from dataclasses import replace

    from bot.feedback import report_json, report_lines, summarise
    from bot.feedback_store import FeedbackStore
    from bot.prstate import PRStore

    db = database_of(args)
    if db is None or not server_library(args):
        return 2
    library = _report_library(args.dir, args.topics)
    # a note renamed since: its marks and showings, filed under the ids it had, are one
    # row under its id now
    now = library.current_id if library is not None else str
    try:
        prs = PRStore(db)
        marks = [replace(m, note_id=now(m.note_id)) for m in FeedbackStore(db).marks()]
        shown = [(repo, n, now(i), why) for repo, n, i, why in prs.shown_evidence()]
        records = summarise(marks, prs.shown_counts(now), shown, _updated_of(library))
    except sqlite3.DatabaseError as exc:
        return database_failed(db.path, exc)
    finally:
        db.close()
    if args.json:
        for row in report_json(records):
            print_json(row)
        return 0
    print("\n".join(report_lines(records, _titles_of(library))))
    return 0


def _report_library(notes_dir: str, topics: str) -> Library | None:
    """The library the feedback report reads titles and ids from; None (said) when it
    does not load: the report is then by the ids as stored, untitled."""
    try:
        return load_library(Path(notes_dir), Path(topics))
    except LibraryError as exc:
        print(f"review-notes: notes left untitled: {exc}", file=sys.stderr)
        return None


def _note_titles(notes_dir: str, topics: str) -> dict[str, str]:
    """Each note's title, for reading the feedback; none when the library does not load."""
    return _titles_of(_report_library(notes_dir, topics))


def _updated_of(library: Library | None) -> dict[str, str]:
    """Each note's `updated` date, retired ones' too: marks made before it are older than
    the note as it is."""
    if library is None:
        return {}
    notes = [*library.notes, *library.retired.values()]
    return {n.id: n.updated.isoformat() for n in notes if n.updated is not None}


def _titles_of(library: Library | None) -> dict[str, str]:
    if library is None:
        return {}
    titles = {n.id: n.title_en or n.title_zh for n in library.notes}
    titles |= {i: f"{n.title_en or n.title_zh} (retired)" for i, n in library.retired.items()}
    # marks made before a curator renamed the note (and maybe retired it since): filed
    # under the id it had then
    titles |= {old: f"{titles[now]} (now {now})" for old, now in library.renamed.items()}
    return titles


def _library_arguments(parser: argparse.ArgumentParser) -> None:
    """The notes library a `notes` sub-command reads: a directory and the taxonomy, by
    default the server's (`server_library`)."""
    parser.add_argument(
        "dir",
        nargs="?",
        default=argparse.SUPPRESS,  # --notes-dir's default stands when neither is given
        action=_OneDirectory,
        help="notes directory " + notes_dir_default(),
    )
    # the same, as `match` and `notes import` name it: a curator types it after them
    parser.add_argument("--notes-dir", dest="dir", action=_OneDirectory, help="the same as dir")
    topics_argument(parser)


class _OneDirectory(argparse.Action):
    """The notes directory, given as `dir` or `--notes-dir`: both is refused, not one of
    them silently dropped."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        if getattr(namespace, "dir", None) is not None:
            parser.error("give the notes directory as dir or as --notes-dir, not both")
        namespace.dir = values

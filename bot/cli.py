"""`review-notes` command line: one sub-command per job, each a thin shell over the core."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.library import (
    DEFAULT_NOTES_DIR,
    DEFAULT_TOPICS_FILE,
    ROOT,
    Library,
    check_library,
    header_of,
    load_library,
    read_taxonomy,
)
from bot.note_dump import toml_string
from bot.note_files import LibraryError, Problem, merge_conflict
from bot.notes import Note
from bot.notes_lint import (
    broad_paths,
    common_keywords,
    contradicted_verdicts,
    diff_blind,
    redundant_aspects,
    shared_fields,
    unlisted_prs,
)
from bot.terminal import inert

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.match_config import MatchConfig
    from bot.settings import Settings


def _cmd_notes_import(args: argparse.Namespace) -> int:
    from bot.importer import import_digest

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
        except OSError as exc:
            if exc.filename is not None and Path(exc.filename) != Path(digest):
                # the notes directory (--notes-dir), or a note in it, not the digest
                print(f"{exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
            else:
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
            for line in result.commented.get(path, []):
                print(f"{path}:{line}: value refreshed; its comment stays: check it still holds")
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

        problems += config_problems(Path(args.config), read_taxonomy(Path(args.topics))[0])
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    assert library is not None and config is not None
    retired = f" ({len(library.retired)} retired)" if library.retired else ""
    print(f"ok: {len(library.notes)} notes{retired}, {len(library.topics)} topics")
    served = settings.repos if settings is not None else ()
    for warning in _warnings(library, config, Path(args.dir), served):  # likely wrong
        print(warning)

    def file_of(note: Note) -> Path:  # as the warnings name it: a sub-folder's too
        return Path(args.dir) / library.files.get(note.id, note.filename)

    for note in diff_blind(library):  # advice, not a defect
        print(
            f"hint: {file_of(note)}: no code name (snake_case or CamelCase) among its keywords;"
            " the bot cannot see this note's mechanism in a PR's changed lines"
        )
    for note, number in unlisted_prs(library):
        own = "" if note.source_pr else f"set source_pr = {number} if the note is about it, or "
        print(
            f"hint: {file_of(note)}: its text names PR {number}; {own}add it to read_with if a"
            " reviewer of that PR should get this note (to issues if it is an issue its PR"
            " fixes)"
        )
    for note, aspect in redundant_aspects(library):
        print(
            f"hint: {file_of(note)}: aspect {aspect!r} is also one of its keywords, which counts"
            " without the topic; keep it in one list"
        )
    return 0


def _matching_problems(library: Library, path: Path) -> tuple[list[Problem], MatchConfig | None]:
    """What the server would refuse in the matching config with this library, if anything;
    else the config."""
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


def _warnings(
    library: Library, config: MatchConfig, notes_dir: Path, served: tuple[str, ...] = ()
) -> list[Problem]:
    """What a clean library likely has wrong: a note for a repository the bot does not
    serve (`served`, lower case), a keyword as common as `fix`, a path glob matching
    everywhere. Each as `file:line: field: warning: message`."""
    found: list[tuple[Note, str, str | None, str]] = []  # note, field, value, message
    for note in library.notes:
        if served and note.repo.lower() not in served:
            msg = (
                f"{note.repo!r} is not a repository the bot serves (REVIEW_NOTES_REPOS:"
                f" {', '.join(served)}): no PR gets this note"
            )
            found.append((note, "repo", None, msg))
    if config.vocabulary is not None:
        vocab = config.vocabulary
        for note, keyword, share in common_keywords(library, vocab, config.common_keyword_share):
            how_common = (
                "holds only English function words, single letters or numbers, which most"
                " PRs' text has"
                if share is None
                else f"is in {share:.0%} of vLLM's PR titles (common_keyword_share"
                f" {config.common_keyword_share:g})"
            )
            msg = f"{keyword!r} {how_common}: it links unrelated PRs; name the mechanism"
            found.append((note, "keywords", keyword, msg))
    for note, glob in broad_paths(library):
        msg = f"path {glob!r} matches files all over the tree: list a file or a narrow directory"
        found.append((note, "paths", glob, msg))
    for note, phrase, stated in contradicted_verdicts(library):
        msg = (
            f"{note.verdict.value!r} ({note.verdict.label_en}), but the guidance reads as"
            f" {phrase} ({stated.label_en}): the comment would show both; write verdict ="
            f" {toml_string(stated.value)} or reword the guidance (fine as it is if it"
            " negates or quotes that phrase)"
        )
        found.append((note, "verdict", None, msg))
    for note, field, other in shared_fields(library):
        found.append((note, field, None, _shared_field(field, notes_dir, library, other)))
    warnings = _fenced_conflicts(library, notes_dir)
    for note, field, value, msg in found:
        path, header = header_of(notes_dir, library, note)
        warnings.append(Problem(path, header.line_of(field, value), field, f"warning: {msg}"))
    return sorted(warnings)


def _fenced_conflicts(library: Library, notes_dir: Path) -> list[Problem]:
    """A warning for each note whose guidance holds a merge conflict's markers in a code
    block: a sample of them, or a conflict git left there (not an error, which would
    refuse a note showing a sample; outside code blocks it is one)."""
    warnings = []
    for note in library.notes:
        if "<<<<<<< " not in note.guidance:  # most notes: no file read
            continue
        path = notes_dir / library.files.get(note.id, note.filename)
        line = merge_conflict(path.read_bytes().decode("utf-8"), fenced=True)
        if line is not None:
            msg = (
                "warning: a code block holds a git merge conflict's <<<<<<<, ======= and"
                " >>>>>>> lines: fine if it shows them; if git left them, keep the text"
                " meant and delete the three marker lines"
            )
            warnings.append(Problem(str(path), line, "guidance", msg))
    return warnings


def _shared_field(field: str, notes_dir: Path, library: Library, other: Note) -> str:
    """The warning for a field whose value `other` has too, as a note copied from it and
    left unrewritten keeps it."""
    where = notes_dir / library.files.get(other.id, other.filename)
    if field == "source_pr":
        return (
            f"PR {other.source_pr} is the source_pr of {where} too, so the PR gets both notes:"
            " give a note copied from it its own PR, or merge the two"
        )
    if field == "source":
        return (
            f"{other.source!r} is the digest entry of {where} too: `source` is the importer's;"
            " drop it from a note written by hand"
        )
    what = {"title_en": "English title", "summary_en": "English summary"}[field]
    return (
        f"the same {what} as {where}: a comment showing both could not tell them apart;"
        " write this note's own"
    )


def _cmd_notes_refs(args: argparse.Namespace) -> int:
    """Read each note's source PR on GitHub; print the PRs and issues it says it relates to."""
    from bot.github_port import GitHubError, PRRef
    from bot.note_refs import mentioned, render_refs, suggest
    from bot.relations import related_refs
    from bot.server import StartupError, live_github
    from bot.settings import SettingsError

    settings = _settings(dry_run=True)  # it only reads: no webhook secret or public URL needed
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
    _log_plainly(settings)
    try:
        github, failed = live_github(settings), 0
    except (SettingsError, StartupError) as exc:  # e.g. a PEM that is not a usable key
        print(f"review-notes: {exc}", file=sys.stderr)
        return 2
    try:
        for note in notes:
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

    db = _database_of(args)
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
        return _database_failed(db.path, exc)
    finally:
        db.close()
    if args.json:
        for row in report_json(records):
            print_json(row)
        return 0
    print("\n".join(report_lines(records, _titles_of(library))))
    return 0


# Tables a server creates at start: a file with none of them is not the bot's.
BOT_TABLES = ("deliveries", "pr_state", "feedback")


def _database_of(args: argparse.Namespace):
    """The database `--db` (else the settings') names, when it exists; None after saying why."""
    settings = _settings(db_path=args.db, dry_run=True)  # (see _cmd_retry)
    return None if settings is None else _existing_database(settings.db_path)


def _existing_database(path: Path | str):
    """The bot's database at `path`, or None after saying why (a command that reads it
    must not create an empty one at a mistyped path and report that nothing is there)."""
    from contextlib import closing

    from bot.db import DAMAGED_FIX, Database, access_hint, is_damaged

    where = "(--db or REVIEW_NOTES_DB_PATH)"
    if Path(path).is_dir():  # --db /var/lib/review-notes: the folder, not the file in it
        print(f"review-notes: {path} is a directory, not a database {where}", file=sys.stderr)
        return None
    if not Path(path).is_file():
        print(f"review-notes: no database at {path} {where}", file=sys.stderr)
        return None
    # Look before Database() and the stores write to it (WAL mode, their tables): another
    # application's SQLite file named by mistake must stay as it is.
    try:
        with closing(sqlite3.connect(path)) as conn:  # not SQLite fails here
            tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        why = "" if tables & set(BOT_TABLES) else "none of its tables"
    except sqlite3.OperationalError as exc:  # locked by another process, unreadable
        print(f"review-notes: {path}: {exc}{access_hint(exc)}", file=sys.stderr)
        return None
    except sqlite3.DatabaseError as exc:
        if is_damaged(exc):
            print(
                f"review-notes: {path}: a damaged SQLite database ({exc}): {DAMAGED_FIX}",
                file=sys.stderr,
            )
            return None
        why = str(exc)
    if why:
        msg = f"{path} is not a review-notes database ({why}) {where}"
        print(f"review-notes: {msg}", file=sys.stderr)
        return None
    return Database(path)


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


def _settings(**values: object):
    """Settings for a command, or None after printing every problem."""
    from bot.settings import SettingsError, load_settings

    try:
        return load_settings(**{k: v for k, v in values.items() if v is not None})
    except SettingsError as exc:
        print("review-notes: configuration error", file=sys.stderr)
        print(exc, file=sys.stderr)
        return None


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.stop_signals import StopSignals

    # uvicorn drains on SIGTERM/SIGINT, then raises the signal again for the handler
    # that was there before it: this one only notes it, so a drained stop exits 0; a
    # stop while starting (from now: before the server's modules import) is kept, and
    # ends the run once the server is up.
    early = StopSignals().install()
    from bot.logs import setup_logging
    from bot.server import StartupError, run_server
    from bot.settings import SettingsError, unknown_variables

    settings = _settings(host=args.host, port=args.port)
    unknown = unknown_variables(os.environ)
    if settings is None:  # a misspelt name may be why: say so with the errors
        for warning in unknown:
            print(warning, file=sys.stderr)
        return 2
    setup_logging(settings.log_level, secrets=settings.secret_values())
    for warning in unknown:
        logging.getLogger("review_notes").warning(warning)
    try:
        return run_server(settings, early=early)
    except LibraryError as exc:
        print(exc, file=sys.stderr)
        print(
            f"review-notes: {len(exc.problems)} problem(s) in the notes library and its"
            " configuration; not starting",
            file=sys.stderr,
        )
        return 1
    except StartupError as exc:
        print(f"review-notes: {exc}", file=sys.stderr)
        return 1
    except SettingsError as exc:
        print("review-notes: configuration error", file=sys.stderr)
        print(exc, file=sys.stderr)
        return 2


def _cmd_replay(args: argparse.Namespace) -> int:
    from bot.replay import posts_to_github, read_payload, send

    try:  # first: a mistyped path is said without settings or a server
        body, payload = read_payload(Path(args.file))
    except ValueError as exc:
        print(f"review-notes replay: {exc}", file=sys.stderr)
        return 1
    secret, url = args.secret, args.url
    if secret is None or url is None:  # it only signs and sends (see _cmd_retry)
        settings = _settings(dry_run=True)
        if settings is None:
            return 2
        secret = secret if secret is not None else settings.webhook_secret()
        url = url or f"{settings.local_url()}/webhook"
    # an example is a real PR: sent to a live server, its notes are posted on GitHub
    if not args.live and posts_to_github(url):
        print(
            f"review-notes replay: the server at {url} is not a dry run: it posts to GitHub,"
            " so the payload's PR would get a real comment; pass --live to send it anyway",
            file=sys.stderr,
        )
        return 2
    try:
        status, answer = send(
            body,
            payload,
            url=url,
            secret=secret,
            event=args.event,
            delivery_id=args.delivery,
        )
    except (OSError, ValueError) as exc:
        print(f"review-notes replay: {exc}", file=sys.stderr)
        return 1
    print(f"{status} {answer}")
    if status == 401:  # the server's body names the header, not what to do
        print(
            "review-notes replay: the server refused the signature: sign with its "
            "GITHUB_WEBHOOK_SECRET (--secret, or run where the server's settings are)",
            file=sys.stderr,
        )
    if status == 200 and _answered(answer) == "duplicate":  # a second look after an edit
        print(
            "review-notes replay: not run again: it is the body the server stored last for"
            " its PR. After editing a note, restart the server (it reads the notes at start)"
            ' and send the payload changed (another "action", as "synchronize"), or run the'
            " dry run on a new REVIEW_NOTES_DB_PATH; `review-notes match --payload` reads the notes"
            " as they are now",
            file=sys.stderr,
        )
    return 0 if 200 <= status < 300 else 1


def _answered(answer: str) -> object:
    """The `status` of the webhook's JSON answer, or None."""
    try:
        said = json.loads(answer)
    except ValueError:
        return None
    return said.get("status") if isinstance(said, dict) else None


def _database_failed(path: Path, exc: sqlite3.DatabaseError) -> int:
    """A database error met past the opening (locked by another process past the busy
    timeout, damaged, read-only), said in a line with what to do: exit 1."""
    from bot.db import DAMAGED_FIX, access_hint, is_damaged

    fix = f": {DAMAGED_FIX}" if is_damaged(exc) else access_hint(exc)  # a read-only file
    print(f"review-notes: {path}: {exc}{fix}", file=sys.stderr)
    return 1


def _cmd_retry(args: argparse.Namespace) -> int:
    # it posts nothing: a GITHUB_TOKEN exported in the operator's shell (for gh) must not
    # make it a live server's settings, which need a webhook secret and a public URL
    settings = _settings(db_path=args.db, dry_run=True)
    db = None if settings is None else _existing_database(settings.db_path)
    if settings is None or db is None:
        return 2
    _log_plainly(settings)  # a damaged row the queue sets aside is named in its log
    try:
        return _retry(args, db)
    except sqlite3.DatabaseError as exc:
        return _database_failed(db.path, exc)


def _retry(args: argparse.Namespace, db) -> int:
    from bot.queue import DeliveryQueue

    queue = DeliveryQueue(db)
    if not args.all and not args.ids:
        failed = queue.failed(limit=1000)  # a damaged row is set aside, named in the log
        for d in failed:
            what = inert(f"{d.id}  {d.event}.{d.action}  {d.repo} PR {d.pr_number}  {d.last_error}")
            print(what)  # the delivery's fields came in a webhook
        total = queue.counts()["failed"]  # the listing stops at 1000; the count, as /healthz
        damaged = len(queue.set_aside)
        shown = f" (the newest {len(failed)} listed)" if total - damaged > len(failed) else ""
        aside = f", {damaged} of them damaged (named above)" if damaged else ""
        print(
            f"{total} failed deliveries{shown}{aside}; `review-notes retry ID` or `--all` re-queues"
        )
        return 1 if damaged else 0
    done = queue.retry(None if args.all else args.ids)
    for did in done:
        print(f"re-queued {did}")
    missing = set(args.ids) - set(done) - set(queue.set_aside)  # those named already
    for did in sorted(missing):
        print(f"{did}: no failed delivery with this id", file=sys.stderr)
    aside = f", {len(queue.set_aside)} damaged (named above)" if queue.set_aside else ""
    if not done or _server_running(db):
        print(f"{len(done)} re-queued{aside}; a running server picks them up within a second")
    else:  # (the operator may take them to run at once, as the line above says)
        print(
            f"{len(done)} re-queued{aside}; no review-notes server is running on {db.path}:"
            " they run once one starts"
        )
    return 1 if missing or queue.set_aside else 0


def _cmd_redeliver(args: argparse.Namespace) -> int:
    """Ask GitHub again for the events it failed to deliver (the server was down) in
    the last `--since` hours that the queue does not hold."""
    settings = _settings(db_path=args.db)
    if settings is None:
        return 2
    why = _no_delivery_log(settings)
    if why:
        print(f"review-notes redeliver: {why}", file=sys.stderr)
        return 2
    db = _existing_database(settings.db_path)
    if db is None:
        return 2
    _log_plainly(settings)
    try:
        return _redeliver(settings, db, args.since)
    except sqlite3.DatabaseError as exc:  # before any is asked again: the queue is read first
        return _database_failed(db.path, exc)
    finally:
        db.close()


def _server_running(db) -> bool:
    """Whether a review-notes server holds the database (its server lock). The probe's
    lock is given up at once: held, it keeps out a server that starts meanwhile."""
    try:
        server_up = not db.acquire_server_lock()
    except OSError:  # no lock file can be made there: say nothing of the server
        return True
    if not server_up:
        db.release_server_lock()
    return server_up


def _log_plainly(settings: Settings) -> None:
    """The log's lines (the GitHub client's: a retry, a token minted again; the queue's:
    a damaged row set aside) on stderr as plain text, with the settings' secrets and
    every credential-shaped string redacted, as the server's are: not as Python's
    last-resort handler writes them, unredacted and without their level."""
    from bot.logs import setup_logging

    setup_logging(settings.log_level, secrets=settings.secret_values(), plain=True)


def _no_delivery_log(settings: Settings) -> str | None:
    """Why there is no webhook delivery log to redeliver from; None when the App's is."""
    if settings.is_dry_run and settings.has_credentials:
        return (
            "REVIEW_NOTES_DRY_RUN=true: a dry run asks GitHub for nothing; run this with"
            " the live server's settings (without it)"
        )
    if settings.is_dry_run:
        return (
            "a dry run (no GitHub App credentials): GitHub sends it nothing, so there is"
            " nothing to redeliver from"
        )
    if not settings.github_app_id:
        return (
            "needs the App's credentials (GITHUB_APP_ID and GITHUB_PRIVATE_KEY): only the"
            " App can read its webhook deliveries (GET /app/hook/deliveries), not a token"
        )
    return None


def _redeliver(settings: Settings, db, hours: int) -> int:
    from datetime import UTC, datetime, timedelta

    from bot.github_port import GitHubError
    from bot.queue import DeliveryQueue
    from bot.redelivery import sweep
    from bot.server import StartupError, live_github
    from bot.settings import SettingsError

    since = datetime.now(UTC) - timedelta(hours=hours)
    try:
        github = live_github(settings)
    except (SettingsError, StartupError) as exc:  # e.g. a PEM that is not a usable key
        print(f"review-notes redeliver: {exc}", file=sys.stderr)
        return 2
    try:
        queue = DeliveryQueue(db)
        done = sweep(github, queue.held, since, run_again=queue.run_again)
    except GitHubError as exc:
        print(f"review-notes redeliver: {exc}", file=sys.stderr)
        return 1
    finally:
        github.close()
    for guid in done.run_again:
        print(inert(f"run again: {guid}  (GitHub sent it to the dry run before going live)"))
    for d in done.asked:
        print(inert(f"asked again: {d.guid}  {d.kind}  (GitHub delivery {d.id})"))
    for d, error in done.refused:
        print(inert(f"not asked: {d.guid}  {d.kind}: {error}"), file=sys.stderr)
    server_up = _server_running(db)  # probed after the sweep
    print(
        f"{len(done.asked)} asked again, {len(done.refused)} refused, of {done.listed}"
        f" delivery attempts since {since:%Y-%m-%d %H:%M} UTC"
        + ("; the server gets them shortly" if server_up else "")
    )
    if not server_up and done.asked:
        print(
            f"review-notes redeliver: no review-notes server is running on {db.path}:"
            " GitHub's redeliveries fail as the first attempts did; start it (its start asks"
            " GitHub again, unless REVIEW_NOTES_REDELIVER_ON_START=false) or run this once"
            " it is up",
            file=sys.stderr,
        )
    if done.stopped is not None:
        print(f"stopped ({done.stopped}): {done.not_asked} not asked again", file=sys.stderr)
    return 1 if done.refused or done.stopped else 0


def _library_arguments(parser: argparse.ArgumentParser) -> None:
    """The notes library a `notes` sub-command reads: a directory and the taxonomy, by
    default the server's (`server_library`)."""
    parser.add_argument(
        "dir",
        nargs="?",
        help="notes directory (default: the server's, REVIEW_NOTES_NOTES_DIR or "
        f"{DEFAULT_NOTES_DIR.relative_to(ROOT)})",
    )
    topics_argument(parser)


def topics_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--topics",
        help="topic taxonomy (default: the server's, REVIEW_NOTES_TOPICS_FILE or "
        f"{DEFAULT_TOPICS_FILE.relative_to(ROOT)})",
    )


def config_argument(parser: argparse.ArgumentParser) -> None:
    from bot.match_config import DEFAULT_MATCHING_FILE

    parser.add_argument(
        "--config",
        help="matching weights (default: the server's, REVIEW_NOTES_MATCHING_FILE or "
        f"{DEFAULT_MATCHING_FILE.relative_to(ROOT)})",
    )


def server_library(args: argparse.Namespace, settings: Settings | None = None) -> bool:
    """Fill in the paths not given (the notes, the taxonomy, and the matching config where
    the command takes one) with the server's (its environment, .env and bot.toml), so a
    curator checks what the bot serves. The settings are read once, unless `settings`
    are given. False after printing a configuration error."""
    missing = [name for name in ("dir", "topics", "config") if getattr(args, name, "") is None]
    if not missing:
        return True
    settings = settings or _settings(dry_run=True)
    if settings is None:
        return False
    server = {
        "dir": settings.notes_dir,
        "topics": settings.topics_file,
        "config": settings.matching_file,
    }
    for name in missing:
        setattr(args, name, str(server[name]))
    return True


def _database_argument(parser: argparse.ArgumentParser) -> None:
    """The bot's database a command reads (`_database_of`)."""
    parser.add_argument(
        "--db", type=_some_path, help="database file (default: REVIEW_NOTES_DB_PATH)"
    )


def _version() -> str:
    """`review-notes X.Y.Z`: the installed distribution's version, so a bug report can name
    the release it ran (pyproject's version, as `pip install` recorded it)."""
    from importlib.metadata import version

    return f"review-notes {version('review-notes')}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="review-notes", description=__doc__)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    notes = sub.add_parser("notes", help="manage the notes library")
    notes_sub = notes.add_subparsers(dest="notes_command", required=True)
    imp = notes_sub.add_parser("import", help="turn digest files into note files")
    imp.add_argument("digest", nargs="+", help="digest file(s) in the seed format")
    imp.add_argument(
        "--notes-dir",
        dest="dir",
        help="where the note files go (default: the server's, REVIEW_NOTES_NOTES_DIR or "
        f"{DEFAULT_NOTES_DIR.relative_to(ROOT)})",
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
    _database_argument(fb)
    fb.add_argument("--json", action="store_true", help="one JSON object per note")
    fb.set_defaults(func=_cmd_notes_feedback)
    from bot.cli_match import add_match_parser  # it imports this module's helpers

    add_match_parser(sub)

    serve = sub.add_parser("serve", help="run the webhook server (dry run without credentials)")
    serve.add_argument("--host", help="bind address (default: REVIEW_NOTES_HOST or 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=whole_number("a port (1 to 65535)", 1, 65535),
        help="port (default: REVIEW_NOTES_PORT or 8000)",
    )
    serve.set_defaults(func=_cmd_serve)

    rep = sub.add_parser("replay", help="sign a webhook payload file and send it to a server")
    rep.add_argument("file", help="a JSON payload, e.g. examples/pr-52419-opened.json")
    rep.add_argument("--url", help="default: the webhook of a local serve (settings port)")
    rep.add_argument("--secret", help="webhook secret (default: as the server's settings)")
    rep.add_argument("--event", help="X-GitHub-Event (default: guessed from the payload)")
    rep.add_argument("--delivery", help="X-GitHub-Delivery (default: a new UUID)")
    rep.add_argument(
        "--live",
        action="store_true",
        help="send to a server that posts to GitHub too (the PR gets a real comment)",
    )
    rep.set_defaults(func=_cmd_replay)

    retry = sub.add_parser("retry", help="list failed deliveries, or re-queue them")
    retry.add_argument("ids", nargs="*", metavar="ID", help="delivery ids to re-queue")
    retry.add_argument("--all", action="store_true", help="re-queue every failed delivery")
    _database_argument(retry)
    retry.set_defaults(func=_cmd_retry)

    from bot.redelivery import KEPT_HOURS

    again = sub.add_parser(
        "redeliver",
        help="ask GitHub again for the webhooks it failed to deliver (the server was down)",
        description="Read the App's webhook delivery log (GET /app/hook/deliveries) and"
        " ask GitHub to send again (POST /app/hook/deliveries/{id}/attempts) each event of"
        " the last --since hours that no attempt delivered and the queue does not hold."
        " Needs the App's credentials; GitHub never redelivers by itself.",
    )
    again.add_argument(
        "--since",
        type=whole_number(
            f"a number of hours from 1 to {KEPT_HOURS} (GitHub keeps 3 days)", 1, KEPT_HOURS
        ),
        default=KEPT_HOURS,
        metavar="HOURS",
        help=f"look this many hours back (default: {KEPT_HOURS}, all GitHub keeps)",
    )
    _database_argument(again)
    again.set_defaults(func=_cmd_redeliver)
    return parser


def whole_number(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, else an error naming the
    flag, as `what` says (checked here: `--port` must not be reported as REVIEW_NOTES_PORT)."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < low or (high is not None and int(text) > high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return int(text)

    return parse


def _some_path(text: str) -> str:
    """An argparse type: a path, not an empty one (an unset shell variable), which the
    settings would report as their environment variable, not as the flag."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return text


def _writes_unicode() -> bool:
    """Whether stdout's encoding holds every character (a UTF), as a Chinese note needs."""
    import codecs

    try:
        return codecs.lookup(getattr(sys.stdout, "encoding", None) or "").name.startswith("utf")
    except LookupError:
        return False


def print_json(value: object, indent: int | None = None) -> None:
    """`value` as JSON on stdout: Chinese as written, or as \\u escapes where stdout cannot
    hold it (escaped by the stream instead, an emoji would be \\U0001f600, no JSON)."""
    import json

    print(json.dumps(value, ensure_ascii=not _writes_unicode(), indent=indent))


def _escape_what_stdout_cannot_hold() -> None:
    """On a stdout that is not UTF-8 (PYTHONIOENCODING=ascii, a Latin-1 locale, Windows'
    code page redirected to a file), a note's Chinese title is written as \\u escapes, as
    stderr does by default: strict, the first one stopped the output with a traceback."""
    if not _writes_unicode() and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _escape_what_stdout_cannot_hold()
    try:
        try:
            args = _parsed(build_parser(), argv)
        except SystemExit:  # --help, -h or a usage error: what argparse printed goes out here
            _flush_output()
            raise
        code = args.func(args)
        _flush_output()
        return code
    except BrokenPipeError:
        # the reader went away (`review-notes match --batch ... | head`, `--help | true`, a
        # usage error's reader on stderr): stop quietly, and keep Python from complaining
        # again when it flushes the stream at exit
        for stream in (sys.stdout, sys.stderr):
            _drop_if_broken(stream)
        return 141  # what a shell reports for SIGPIPE
    except KeyboardInterrupt:
        # Ctrl-C at the terminal: stop without a traceback, but by the signal, as Python
        # does by itself, so that a shell's loop running this stops too (a shell says 130)
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130  # (not reached)


def _parsed(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The arguments, as parse_args reads them; words left over after a --title are said
    to be its own, unquoted (`--title [Bugfix] Fix x`: the shell splits it at spaces)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        title = getattr(args, "title", None)
        words = _title_rest(sys.argv[1:] if argv is None else argv, title, extra)
        hint = ""
        if title and words:
            quoted = shlex.quote(" ".join([title, *words]))
            hint = f" (a title of several words goes in quotes: --title {quoted})"
        parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def _title_rest(argv: list[str], title: str | None, extra: list[str]) -> list[str]:
    """The words left over that come right after --title's one word on the command line:
    the rest of a title the shell split. A title holding a space was quoted, and a word
    after another flag's value (`--file a.py b.py`) is not the title's."""
    if not title or any(c.isspace() for c in title):
        return []
    for at in range(len(argv) - 1, -1, -1):  # the last --title is the one argparse kept
        if argv[at] == f"--title={title}" or argv[at - 1 : at + 1] == ["--title", title]:
            words = []
            for word, left in zip(argv[at + 1 :], extra, strict=False):
                if word != left or word.startswith("-"):
                    break
                words.append(word)
            return words
    return []


def _flush_output() -> None:
    """Flush stdout and stderr here, not at exit: their reader may be gone (`| true`), and
    a BrokenPipeError at exit is Python's "Exception ignored" and exit 120. (argparse
    itself passes over a write to stderr that fails, and leaves the text buffered.)"""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:  # None: started with it closed (`>&-`)
            stream.flush()


def _drop_if_broken(stream: TextIO | None) -> None:
    """Send what `stream` still holds to /dev/null if its reader is gone: a flush of the
    same bytes at exit would fail again."""
    if stream is None:
        return
    try:
        stream.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


if __name__ == "__main__":
    sys.exit(main())

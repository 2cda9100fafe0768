"""`review-notes` command line: one sub-command per job, each a thin shell over the core."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sqlite3
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Callable

    from bot.settings import Settings

# The sub-commands are in cli_notes (the curators' `notes ...`), cli_match (`match`) and
# cli_server (the operators' commands), each one's module in COMMANDS below; this module
# reads the command line, runs the one named, and holds what they share.


def main(argv: list[str] | None = None) -> int:
    _escape_what_stdout_cannot_hold()
    try:
        try:
            given = sys.argv[1:] if argv is None else argv
            args = _parsed(build_parser(given), given)
        except SystemExit:  # --help, -h or a usage error: what argparse printed goes out here
            _flush_output()
            raise
        with _logging_of(args):
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


def _logging_of(args: argparse.Namespace) -> AbstractContextManager[None]:
    """A command's log setup ends with it (a command run in-process: the tests), but the
    server's, which lasts as long as its process."""
    from bot.logs import logging_kept

    return nullcontext() if getattr(args, "logs_for_the_process", False) else logging_kept()


# Each sub-command's module and the function adding its parser, in the order `--help`
# lists them. A command's run imports its own module alone and builds its own parser
# (the others' imports, the notes library's and GitHub's among them, cost a run that
# needs none of them a tenth of a second and more); `--help` and `--version` import
# none (their summaries are here, in SUMMARIES).
COMMANDS = {
    "notes": ("bot.cli_notes", "add_notes_parser"),
    "match": ("bot.cli_match", "add_match_parser"),
    "serve": ("bot.cli_server", "add_serve_parser"),
    "replay": ("bot.cli_server", "add_replay_parser"),
    "retry": ("bot.cli_server", "add_retry_parser"),
    "redeliver": ("bot.cli_server", "add_redeliver_parser"),
    "salvage": ("bot.cli_server", "add_salvage_parser"),
}
# Each sub-command's line in `review-notes --help`
SUMMARIES = {
    "notes": "manage the notes library",
    "match": "show which notes a PR would get, ranked, with the reasons",
    "serve": "run the webhook server (dry run without credentials)",
    "replay": "sign a webhook payload file and send it to a server",
    "retry": "list failed deliveries, or re-queue them",
    "redeliver": "ask GitHub again for the webhooks it failed to deliver (the server was down)",
    "salvage": "copy what a damaged database file still holds into a new file",
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """Every sub-command's parser; given `argv`, only the one of the sub-command it names
    (its first word not a flag), the others there by name and summary alone (what
    `--help` and the usage line show of them), and none when it names none."""
    import importlib

    parser = argparse.ArgumentParser(prog="review-notes", description=__doc__)
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    named = next((word for word in argv or () if not word.startswith("-")), None)
    for name, (module, adder) in COMMANDS.items():
        if argv is None or name == named:  # imported here: they import this module
            getattr(importlib.import_module(module), adder)(sub)
        else:
            command_parser(sub, name)
    return parser


def command_parser(sub: Any, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """The parser of the sub-command `name`, with its summary (SUMMARIES)."""
    parser: argparse.ArgumentParser = sub.add_parser(name, help=SUMMARIES[name], **kwargs)
    return parser


class _Version(argparse.Action):
    """`--version`, looked up when asked for: importlib.metadata costs a run that makes
    no pydantic model (`--help`) 15-20 ms (argparse's action takes the text when the
    parser is built)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(_version())
        parser.exit()


def _version() -> str:
    """`review-notes X.Y.Z`: the installed distribution's version, so a bug report can name
    the release it ran (pyproject's version, as `pip install` recorded it)."""
    from importlib.metadata import version

    return f"review-notes {version('review-notes')}"


def _parsed(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The arguments, as parse_args reads them; words left over after a --title are said
    to be its own, unquoted (`--title [Bugfix] Fix x`: the shell splits it at spaces)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        title = getattr(args, "title", None)
        words = _title_rest(argv, title, extra)
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


# --- what the sub-commands share: their settings, the library's paths, flag types ---


def command_settings(**values: Any):
    """Settings for a command, or None after printing every problem."""
    from bot.settings import SettingsError, load_settings

    try:
        return load_settings(**{k: v for k, v in values.items() if v is not None})
    except SettingsError as exc:
        print("review-notes: configuration error", file=sys.stderr)
        print(exc, file=sys.stderr)
        return None


def server_library(args: argparse.Namespace, settings: Settings | None = None) -> bool:
    """Fill in the paths not given (the notes, the taxonomy, and the matching config where
    the command takes one) with the server's (its environment, .env and bot.toml), so a
    curator checks what the bot serves; and `match`'s repository, the first the server
    is for (its notes are of it). The settings are read once, unless `settings` are
    given. False after printing a configuration error."""
    names = ("dir", "topics", "config", "repo")
    missing = [name for name in names if getattr(args, name, "") is None]
    if not missing:
        return True
    settings = settings or command_settings(dry_run=True)
    if settings is None:
        return False
    server = {
        "dir": settings.notes_dir,
        "topics": settings.topics_file,
        "config": settings.matching_file,
        "repo": settings.repos[0],
    }
    for name in missing:
        setattr(args, name, str(server[name]))
    return True


def notes_dir_default() -> str:
    """How every sub-command reading a notes directory names its default."""
    from bot.library import DEFAULT_NOTES_DIR, ROOT

    where = DEFAULT_NOTES_DIR.relative_to(ROOT)
    return f"(default: the server's, REVIEW_NOTES_NOTES_DIR or {where})"


def topics_argument(parser: argparse.ArgumentParser) -> None:
    from bot.library import DEFAULT_TOPICS_FILE, ROOT

    parser.add_argument(
        "--topics",
        help="topic taxonomy (default: the server's, REVIEW_NOTES_TOPICS_FILE or "
        f"{DEFAULT_TOPICS_FILE.relative_to(ROOT)})",
    )


def config_argument(parser: argparse.ArgumentParser) -> None:
    from bot.library import DEFAULT_MATCHING_FILE, ROOT

    parser.add_argument(
        "--config",
        help="matching weights (default: the server's, REVIEW_NOTES_MATCHING_FILE or "
        f"{DEFAULT_MATCHING_FILE.relative_to(ROOT)})",
    )


def whole_number(what: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high`, else an error naming the
    flag, as `what` says (checked here: `--port` must not be reported as REVIEW_NOTES_PORT)."""

    def parse(text: str) -> int:
        if not text.strip().isdigit() or int(text) < low or (high is not None and int(text) > high):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return int(text)

    return parse


def invoked_as() -> str:
    """`review-notes` as this run was started, for a command a message suggests to run
    from the same directory: the name alone when PATH finds that file (the image, an
    activated venv), else the path as typed (`.venv/bin/review-notes` in a checkout, where
    the bare name is no command), or the interpreter with `-m bot.cli`."""
    import shutil

    typed = sys.argv[0] if sys.argv else ""
    if Path(typed).name == "review-notes":  # the console script
        found = shutil.which("review-notes")
        if found and os.path.abspath(found) == os.path.abspath(typed):
            return "review-notes"
        return shlex.quote(typed)
    if typed and os.path.abspath(typed) == os.path.abspath(__file__):  # python -m bot.cli
        return f"{shlex.quote(sys.executable)} -m bot.cli"
    return "review-notes"  # started otherwise (main() called in-process): the documented name


def log_plainly(settings: Settings) -> None:
    """The log's lines (the GitHub client's: a retry, a token minted again; the queue's:
    a damaged row set aside) on stderr as plain text, with the settings' secrets and
    every credential-shaped string redacted, as the server's are: not as Python's
    last-resort handler writes them, unredacted and without their level."""
    from bot.logs import setup_logging

    setup_logging(settings.log_level, secrets=settings.secret_values(), plain=True)


# --- the bot's database, which `retry`, `redeliver` and `notes feedback` read ---


# Tables a server creates at start: a file with none of them is not the bot's.
BOT_TABLES = ("deliveries", "pr_state", "feedback")


def database_argument(parser: argparse.ArgumentParser) -> None:
    """The bot's database a command reads (`database_of`)."""
    parser.add_argument(
        "--db", type=_some_path, help="database file (default: REVIEW_NOTES_DB_PATH)"
    )


def _some_path(text: str) -> str:
    """An argparse type: a path, not an empty one (an unset shell variable), which the
    settings would report as their environment variable, not as the flag."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path")
    return text


def database_of(args: argparse.Namespace):
    """The database `--db` (else the settings') names, when it exists; None after saying why."""
    settings = command_settings(db_path=args.db, dry_run=True)  # (see cli_server._cmd_retry)
    return None if settings is None else existing_database(settings.db_path)


def existing_database(path: Path | str):
    """The bot's database at `path`, or None after saying why (a command that reads it
    must not create an empty one at a mistyped path and report that nothing is there)."""
    from contextlib import closing

    from bot.db import DAMAGED_FIX, Database, NewerDatabase, access_hint, is_damaged

    where = "(--db or REVIEW_NOTES_DB_PATH)"
    if Path(path).is_dir():  # --db /var/lib/review-notes: the folder, not the file in it
        print(f"review-notes: {path} is a directory, not a database {where}", file=sys.stderr)
        return None
    if not Path(path).is_file():
        if not Path(path).expanduser().is_absolute():  # the default, from elsewhere than the server
            where = (
                f"(in {Path.cwd()}, the working directory: run this where the server runs, whose"
                " .env names its file, or give --db or REVIEW_NOTES_DB_PATH)"
            )
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
    try:
        return Database(path)
    except NewerDatabase as exc:
        print(f"review-notes: {exc}", file=sys.stderr)
        return None


def database_failed(path: Path, exc: sqlite3.DatabaseError) -> int:
    """A database error met past the opening (locked by another process past the busy
    timeout, damaged, read-only), said in a line with what to do: exit 1."""
    from bot.db import DAMAGED_FIX, access_hint, is_damaged

    fix = f": {DAMAGED_FIX}" if is_damaged(exc) else access_hint(exc)  # a read-only file
    print(f"review-notes: {path}: {exc}{fix}", file=sys.stderr)
    return 1


# --- output: JSON, and a stdout that cannot hold Chinese or whose reader is gone ---


def print_json(value: object, indent: int | None = None) -> None:
    """`value` as JSON on stdout: Chinese as written, or as \\u escapes where stdout cannot
    hold it (escaped by the stream instead, an emoji would be \\U0001f600, no JSON)."""

    print(json.dumps(value, ensure_ascii=not _writes_unicode(), indent=indent))


def _writes_unicode() -> bool:
    """Whether stdout's encoding holds every character (a UTF), as a Chinese note needs."""
    import codecs

    try:
        return codecs.lookup(getattr(sys.stdout, "encoding", None) or "").name.startswith("utf")
    except LookupError:
        return False


def _escape_what_stdout_cannot_hold() -> None:
    """On a stdout that is not UTF-8 (PYTHONIOENCODING=ascii, a Latin-1 locale, Windows'
    code page redirected to a file), a note's Chinese title is written as \\u escapes, as
    stderr does by default: strict, the first one stopped the output with a traceback."""
    if not _writes_unicode() and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")


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

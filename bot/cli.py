"""`review-notes` command line: one sub-command per job, each a thin shell over the core."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, check_library
from bot.notes import LibraryError


def _cmd_notes_import(args: argparse.Namespace) -> int:
    from bot.importer import import_digest

    status = 0
    for digest in args.digest:
        try:
            result = import_digest(Path(digest), Path(args.notes_dir), force=args.force)
        except LibraryError as exc:
            print(exc, file=sys.stderr)
            print(f"{digest}: nothing written", file=sys.stderr)
            status = 1
            continue
        except OSError as exc:
            print(f"{digest}:1: file: cannot read: {exc.strerror}", file=sys.stderr)
            status = 1
            continue
        for path in result.created:
            print(f"created {path}")
        for path in result.updated:
            print(f"updated {path} (title, guidance and verdict from the digest)")
        for path in result.kept:
            print(f"kept    {path} (differs from the digest; --force refreshes its digest fields)")
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
        if result.created:
            print("next: give each new note topics, title_en and summary_en, then `notes check`")
    return status


def _cmd_notes_check(args: argparse.Namespace) -> int:
    library, problems = check_library(Path(args.dir), Path(args.topics))
    if library is None:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"{len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"ok: {len(library.notes)} notes, {len(library.topics)} topics")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="review-notes", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    notes = sub.add_parser("notes", help="manage the notes library")
    notes_sub = notes.add_subparsers(dest="notes_command", required=True)
    imp = notes_sub.add_parser("import", help="turn digest files into note files")
    imp.add_argument("digest", nargs="+", help="digest file(s) in the seed format")
    imp.add_argument("--notes-dir", default=str(DEFAULT_NOTES_DIR))
    imp.add_argument(
        "--force",
        action="store_true",
        help="refresh title, guidance and verdict of notes that exist (curated fields are kept)",
    )
    imp.set_defaults(func=_cmd_notes_import)
    chk = notes_sub.add_parser("check", help="validate every note and the taxonomy")
    chk.add_argument("dir", nargs="?", default=str(DEFAULT_NOTES_DIR))
    chk.add_argument("--topics", default=str(DEFAULT_TOPICS_FILE))
    chk.set_defaults(func=_cmd_notes_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

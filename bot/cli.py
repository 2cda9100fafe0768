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
    from bot.logs import setup_logging
    from bot.server import StartupError, run_server
    from bot.settings import SettingsError

    settings = _settings(host=args.host, port=args.port)
    if settings is None:
        return 2
    secrets = [settings.webhook_secret()]
    for secret in (settings.github_token, settings.github_private_key):
        if secret is not None:
            secrets.append(secret.get_secret_value())
    setup_logging(settings.log_level, secrets=secrets)
    try:
        return run_server(settings)
    except LibraryError as exc:
        print(exc, file=sys.stderr)
        print(
            f"review-notes: the notes library has {len(exc.problems)} problem(s); not starting",
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
    from bot.replay import replay

    secret, url = args.secret, args.url
    if secret is None or url is None:
        settings = _settings()
        if settings is None:
            return 2
        secret = secret if secret is not None else settings.webhook_secret()
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        url = url or f"http://{host}:{settings.port}/webhook"
    try:
        status, body = replay(
            Path(args.file),
            url=url,
            secret=secret,
            event=args.event,
            delivery_id=args.delivery,
        )
    except (OSError, ValueError) as exc:
        print(f"review-notes replay: {exc}", file=sys.stderr)
        return 1
    print(f"{status} {body}")
    return 0 if 200 <= status < 300 else 1


def _cmd_retry(args: argparse.Namespace) -> int:
    from bot.db import Database
    from bot.queue import DeliveryQueue

    settings = _settings(db_path=args.db)
    if settings is None:
        return 2
    queue = DeliveryQueue(Database(settings.db_path))
    if not args.all and not args.ids:
        failed = queue.failed(limit=1000)
        for d in failed:
            print(f"{d.id}  {d.event}.{d.action}  {d.repo} PR {d.pr_number}  {d.last_error}")
        print(f"{len(failed)} failed deliveries; `review-notes retry ID` or `--all` re-queues")
        return 0
    done = queue.retry(None if args.all else args.ids)
    for did in done:
        print(f"re-queued {did}")
    missing = set(args.ids) - set(done)
    for did in sorted(missing):
        print(f"{did}: no failed delivery with this id", file=sys.stderr)
    print(f"{len(done)} re-queued; a running server picks them up within a second")
    return 1 if missing else 0


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

    serve = sub.add_parser("serve", help="run the webhook server (dry run without credentials)")
    serve.add_argument("--host", help="bind address (default: REVIEW_NOTES_HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: REVIEW_NOTES_PORT or 8000)")
    serve.set_defaults(func=_cmd_serve)

    rep = sub.add_parser("replay", help="sign a webhook payload file and send it to a server")
    rep.add_argument("file", help="a JSON payload, e.g. examples/pr-52419-opened.json")
    rep.add_argument("--url", help="default: the webhook of a local serve (settings port)")
    rep.add_argument("--secret", help="webhook secret (default: as the server's settings)")
    rep.add_argument("--event", help="X-GitHub-Event (default: guessed from the payload)")
    rep.add_argument("--delivery", help="X-GitHub-Delivery (default: a new UUID)")
    rep.set_defaults(func=_cmd_replay)

    retry = sub.add_parser("retry", help="list failed deliveries, or re-queue them")
    retry.add_argument("ids", nargs="*", metavar="ID", help="delivery ids to re-queue")
    retry.add_argument("--all", action="store_true", help="re-queue every failed delivery")
    retry.add_argument("--db", help="database file (default: REVIEW_NOTES_DB_PATH)")
    retry.set_defaults(func=_cmd_retry)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

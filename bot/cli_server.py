"""The operators' commands: `review-notes serve` (the webhook server), `replay` (a payload
signed and sent to it), `retry` (failed deliveries listed or re-queued), `redeliver`
(GitHub asked again for the webhooks it could not deliver while the server was down) and
`salvage` (what a damaged database file still holds, copied into a new one)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import (
    command_parser,
    command_settings,
    database_argument,
    database_failed,
    existing_database,
    invoked_as,
    log_plainly,
    whole_number,
)
from bot.terminal import argument, count_of, inert

if TYPE_CHECKING:
    from bot.settings import Settings


# One function adds each command's parser: a command's run builds its own parser alone
# (`redeliver`'s imports the sweep's module, which no other command needs, for its bound).


def add_serve_parser(sub) -> None:
    serve = command_parser(
        sub,
        "serve",
        description="Run the webhook server, the notes pages and /healthz. Settings come from"
        " the environment, then .env in the working directory, then config/bot.toml"
        " (docs/operating.md, Settings); with no GitHub credentials it is a dry run. In the"
        " Docker image set REVIEW_NOTES_PORT rather than --port: its HEALTHCHECK reads the"
        " variable.",
    )
    serve.add_argument("--host", help="bind address (default: REVIEW_NOTES_HOST or 127.0.0.1)")
    serve.add_argument(
        "--port",
        type=whole_number("a port (1 to 65535)", 1, 65535),
        help="port (default: REVIEW_NOTES_PORT or 8000)",
    )
    # its log's handler is the process's: records of a thread that outlives a bounded
    # stop must still be redacted, not left to Python's last-resort handler
    serve.set_defaults(func=_cmd_serve, logs_for_the_process=True)


def add_replay_parser(sub) -> None:
    rep = command_parser(
        sub,
        "replay",
        description="Sign a webhook payload file (as in examples/) with the server's webhook"
        " secret and POST it to its /webhook, as GitHub would. It asks the server's"
        " /healthz first: to a server that posts to GitHub (not a dry run) it sends only"
        " with --live, as the PR would get a comment on the GitHub the server's"
        " GITHUB_API_URL names: a real one, unless that GitHub is a fake.",
    )
    rep.add_argument("file", help="a JSON payload, e.g. examples/pr-52419-opened.json")
    rep.add_argument(
        "--url",
        help="the server's webhook, or its address (/webhook added);"
        " default: the webhook of a local serve (settings port)",
    )
    rep.add_argument("--secret", help="webhook secret (default: as the server's settings)")
    rep.add_argument("--event", help="X-GitHub-Event (default: guessed from the payload)")
    rep.add_argument("--delivery", help="X-GitHub-Delivery (default: a new UUID)")
    rep.add_argument(
        "--live",
        action="store_true",
        help="send to a server that posts to GitHub too (the PR gets a comment there)",
    )
    rep.add_argument(
        "--now",
        action="store_true",
        help="move the payload's times (each ..._at) so the newest is now: a live server"
        " refuses a comment older than it keeps deliveries",
    )
    rep.set_defaults(func=_cmd_replay)


def add_retry_parser(sub) -> None:
    retry = command_parser(
        sub,
        "retry",
        description="With no ID, list the failed deliveries (the newest 1,000) with their"
        " errors; with IDs or --all, queue them again: a server running on the database"
        " picks them up within its workers_poll_seconds (5 s by default), else the next"
        " one started on it does. Nothing is posted by this command.",
    )
    retry.add_argument("ids", nargs="*", metavar="ID", help="delivery ids to re-queue")
    retry.add_argument("--all", action="store_true", help="re-queue every failed delivery")
    database_argument(retry)
    retry.set_defaults(func=_cmd_retry)


def add_redeliver_parser(sub) -> None:
    from bot.redelivery import KEPT_HOURS

    again = command_parser(
        sub,
        "redeliver",
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
    database_argument(again)
    again.set_defaults(func=_cmd_redeliver)


def add_salvage_parser(sub) -> None:
    save = command_parser(
        sub,
        "salvage",
        description="Copy every row SQLite can still read of the database (damaged: 'database"
        " disk image is malformed'), and what reads of a damaged row, into NEW_FILE, and"
        " name each row lost or copied in part. The database is only read; the server must"
        " be stopped. Then move the database aside with its -wal and -shm files and put"
        " NEW_FILE in its place.",
    )
    save.add_argument("new_file", metavar="NEW_FILE", help="the new database (must not exist)")
    database_argument(save)
    save.set_defaults(func=_cmd_salvage)


def _cmd_serve(args: argparse.Namespace) -> int:
    from bot.stop_signals import StopSignals

    # uvicorn drains on SIGTERM/SIGINT, then raises the signal again for the handler
    # that was there before it: this one only notes it, so a drained stop exits 0; a
    # stop while starting (from now: before the server's modules import) is kept, and
    # ends the run once the server is up.
    early = StopSignals().install()
    from bot.settings import SettingsError, credentials_emptied, unknown_variables

    settings = command_settings(host=args.host, port=args.port)
    if settings is None:  # a misspelt name may be why: say so with the errors
        for warning in unknown_variables(os.environ, github=True):
            print(warning, file=sys.stderr)
        return 2
    # after the settings: refusing them does not wait for FastAPI's and uvicorn's import
    from bot.logs import setup_logging
    from bot.note_files import LibraryError
    from bot.server import StartupError, run_server

    unknown = unknown_variables(os.environ)
    setup_logging(settings.log_level, secrets=settings.secret_values())
    if not settings.has_credentials:
        unknown += credentials_emptied(settings)
    for warning in unknown:
        logging.getLogger("review_notes").warning(warning)
    try:
        return run_server(settings, early=early, command=invoked_as())
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
    from bot.replay import brought_to_now, posts_to_github, read_payload, send, webhook_url

    try:  # first: a mistyped path is said without settings or a server
        body, payload = read_payload(Path(args.file))
    except ValueError as exc:
        print(f"review-notes replay: {exc}", file=sys.stderr)
        return 1
    if args.now:  # the file stays as it is: what is signed and sent is the new body
        payload = brought_to_now(payload, datetime.now(UTC))
        body = json.dumps(payload).encode()
    secret, url = args.secret, args.url
    if secret is None or url is None:  # it only signs and sends (see _cmd_retry)
        settings = command_settings(dry_run=True)
        if settings is None:
            return 2
        secret = secret if secret is not None else settings.webhook_secret()
        url = url or f"{settings.local_url()}/webhook"
    url = webhook_url(url)  # a server's address given: its webhook
    # an example is a real PR: sent to a live server, its notes are posted on its GitHub.
    # /healthz says only that it posts: a GITHUB_API_URL on the server's own machine may be
    # a proxy to GitHub, not a fake (scripts/fake_github.py), so a fake's server needs --live
    if not args.live and posts_to_github(url):
        print(
            f"review-notes replay: the server at {url} is not a dry run: it posts to GitHub"
            " (the one its GITHUB_API_URL names), so the payload's PR there would get a"
            " comment: a real one, unless that GitHub is a fake; pass --live to send it anyway",
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
        # a comment has no "synchronize": another comment, or its text changed, is new
        commented = isinstance(payload, dict) and isinstance(payload.get("comment"), dict)
        changed = (
            'another "id" or "body" in its "comment"'
            if commented
            else 'another "action", as "synchronize"'
        )
        print(
            "review-notes replay: not run again: it is the body the server stored last for"
            " its PR. After editing a note, restart the server (it reads the notes at start)"
            f" and send the payload changed ({changed}), or run the dry run on a new"
            " REVIEW_NOTES_DB_PATH; `review-notes match --payload` reads the notes as they"
            " are now",
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


def _cmd_retry(args: argparse.Namespace) -> int:
    # it posts nothing: a GITHUB_TOKEN exported in the operator's shell (for gh) must not
    # make it a live server's settings, which need a webhook secret and a public URL
    settings = command_settings(db_path=args.db, dry_run=True)
    db = None if settings is None else existing_database(settings.db_path)
    if settings is None or db is None:
        return 2
    log_plainly(settings)  # a damaged row the queue sets aside is named in its log
    try:
        return _retry(args, db, settings.workers_poll_seconds)
    except sqlite3.DatabaseError as exc:
        return database_failed(db.path, exc)


def _retry(args: argparse.Namespace, db, poll_seconds: float) -> int:
    """`poll_seconds`: how often a server's idle workers look at the queue (this process
    cannot wake them)."""
    from bot.queue import DeliveryQueue

    queue = DeliveryQueue(db)
    if not args.all and not args.ids:
        failed = queue.failed(limit=1000)  # a damaged row is set aside, named in the log
        for d in failed:
            # the delivery's fields came in a webhook; its id as `retry` takes it, pasted
            # into a shell (the sender chose it: the signature does not cover it)
            row = f"{d.event}.{d.action}  {d.repo} PR {d.pr_number}  {d.last_error}"
            print(inert(f"{argument(d.id)}  {row}"))
        _list_waiting(queue)
        total = queue.counts()["failed"]  # the listing stops at 1000; the count, as /healthz
        damaged = len(queue.set_aside)
        shown = f" (the newest {len(failed)} listed)" if total - damaged > len(failed) else ""
        aside = f", {damaged} of them damaged (named above)" if damaged else ""
        failed_n = count_of(total, "failed delivery", "failed deliveries")
        print(f"{failed_n}{shown}{aside}; `review-notes retry ID` or `--all` re-queues")
        return 1 if damaged else 0
    done = queue.retry(None if args.all else args.ids)
    for did in done:
        print(f"re-queued {did}")
    missing = set(args.ids) - set(done) - set(queue.set_aside)  # those named already
    waiting = {d.id: d for d in queue.waiting_on_github(1000)[1] if d.id in missing}
    for d in waiting.values():  # not failed, and no retry's to run: it runs by itself
        print(inert(f"{d.id}: {_waiting(d)}; it runs again by itself, not failed"))
    missing -= set(waiting)
    for did in sorted(missing):
        print(f"{did}: no failed delivery with this id", file=sys.stderr)
    aside = f", {len(queue.set_aside)} damaged (named above)" if queue.set_aside else ""
    if not done:  # nothing for a server to pick up: the ids were said above
        print(f"0 re-queued{aside}")
    elif not _server_running(db):  # (the operator may take them to run at once)
        print(
            f"{len(done)} re-queued{aside}; no review-notes server is running on {db.path}:"
            " they run once one starts"
        )
    elif (paused := queue.outage_paused_until()) is not None:  # the pause, then its probe
        print(f"{len(done)} re-queued{aside}; {_outage_said(paused)}")
    else:
        print(
            f"{len(done)} re-queued{aside}; a running server picks them up within"
            f" {poll_seconds:g} s (workers_poll_seconds)"
        )
    return 1 if missing or queue.set_aside else 0


def _outage_said(paused: str) -> str:
    """When re-queued deliveries run in an outage: after its pause, then one at a time
    until GitHub answers one. A pause over (its probe not answered yet) names no time:
    one already past read as a wait still to come."""
    from bot.times import utcnow

    if paused > utcnow():  # stored times sort as the times they name
        return (
            f"GitHub failed and the queue is paused: they run after {paused} (UTC),"
            " one delivery at a time until GitHub answers one"
        )
    return (
        "GitHub failed and has not answered since: they run one delivery at a time until"
        " GitHub answers one"
    )


def _list_waiting(queue) -> None:
    """The deliveries put back as GitHub failed: no retry's to run (they run again by
    themselves), yet none is hidden from the operator who asks what did not run."""
    total, waiting = queue.waiting_on_github(1000)
    for d in waiting:
        when = _waiting(d)
        print(
            inert(
                f"{d.id}  {d.event}.{d.action}  {d.repo} PR {d.pr_number}  {when}: {d.last_error}"
            )
        )
    if total == 1:
        print(
            "1 delivery waits for GitHub to answer again (put back as it failed): it runs"
            " again by itself, not failed"
        )
    elif total:
        print(
            f"{total} deliveries wait for GitHub to answer again (put back as it failed): they"
            " run again by themselves, not failed"
        )


def _waiting(d) -> str:
    return f"waiting until {d.not_before} (put back {count_of(d.outages, 'time')})"


def _cmd_redeliver(args: argparse.Namespace) -> int:
    """Ask GitHub again for the events it failed to deliver (the server was down) in
    the last `--since` hours that the queue does not hold."""
    settings = command_settings(db_path=args.db)
    if settings is None:
        return 2
    why = _no_delivery_log(settings)
    if why:
        print(f"review-notes redeliver: {why}", file=sys.stderr)
        return 2
    db = existing_database(settings.db_path)
    if db is None:
        return 2
    log_plainly(settings)
    try:
        return _redeliver(settings, db, args.since)
    except sqlite3.DatabaseError as exc:  # before any is asked again: the queue is read first
        return database_failed(db.path, exc)
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
        done = sweep(
            github,
            queue.held,
            since,
            run_again=queue.run_again,
            keep_first=queue.keep_first_sent,
        )
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
        f"{len(done.asked)} asked again, {len(done.refused)} refused, of"
        f" {count_of(done.listed, 'delivery attempt')} since {since:%Y-%m-%d %H:%M} UTC"
        + ("; the server gets them shortly" if server_up and (done.asked or done.run_again) else "")
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


def _cmd_salvage(args: argparse.Namespace) -> int:
    """Copy what the damaged database still reads into a new file, saying what was lost:
    exit 0 when every row was copied whole, 1 when some were lost or copied in part (the
    new file is made all the same), 2 when nothing was made."""
    from bot.db import servers_kept_out

    settings = command_settings(db_path=args.db, dry_run=True)  # (see _cmd_retry)
    if settings is None:
        return 2
    source, target = Path(settings.db_path), Path(args.new_file)
    why = _not_salvageable(source, target)
    if why:
        print(f"review-notes salvage: {why}", file=sys.stderr)
        return 2
    with servers_kept_out(source) as kept_out:
        if not kept_out:
            print(
                f"review-notes salvage: a review-notes server is running on {source}: stop"
                " it first (what it writes meanwhile would not be in the copy)",
                file=sys.stderr,
            )
            return 2
        return _salvage(source, target)


def _not_salvageable(source: Path, target: Path) -> str | None:
    """Why the copy must not start; None when it may."""
    if not source.is_file():
        return f"no database at {source} (--db or REVIEW_NOTES_DB_PATH)"
    for made in _files_of(target):
        if made.exists() or made.is_symlink():  # (a -wal beside it would be read into it)
            return f"{made} exists: name a new file"
    if not target.parent.is_dir():
        return f"no directory {target.parent} for {target}"
    return None


def _salvage(source: Path, target: Path) -> int:
    from contextlib import closing

    from bot.cli import BOT_TABLES
    from bot.salvage import (
        NewFileError,
        SalvageError,
        integrity,
        read_only,
        report,
        salvage,
        tables_of,
    )

    made = False
    try:
        with closing(read_only(source)) as conn:
            if not {name for _, name, _, _ in tables_of(conn)} & set(BOT_TABLES):
                print(
                    f"review-notes salvage: {source} is not a review-notes database"
                    " (none of its tables)",
                    file=sys.stderr,
                )
                return 2
            with open(target, "x"):  # made here, never over a file made meanwhile
                made = True
            copies = salvage(conn, target)
    except (SalvageError, sqlite3.Error, OSError) as exc:
        if made:
            _remove_made(target)
        of = "" if isinstance(exc, NewFileError) else f"{source}: "  # (it names the new file)
        print(f"review-notes salvage: {of}{exc}", file=sys.stderr)
        return 2
    for line in report(copies):
        print(inert(line))  # rows are named by what webhooks wrote
    checked = integrity(target)
    incomplete = [c for c in copies if not c.complete]
    print(
        f"{target}: made, SQLite's integrity check: {checked};"
        + (
            " nothing lost"
            if not incomplete
            else " rows lost or copied in part, said above (a backup holds what it was taken"
            " with, not what was written since: restore it instead if that loses less)"
        )
        + f". To use this copy: with the server stopped, move {source} aside with its -wal"
        f" and -shm files, put {target} in its place, and start the server"
    )
    return 1 if incomplete or checked != "ok" else 0


def _remove_made(target: Path) -> None:
    """Remove what a copy that failed made (the new file, its -wal and -shm)."""
    for made in _files_of(target):
        made.unlink(missing_ok=True)


def _files_of(database: Path) -> tuple[Path, ...]:
    """The database file and the -wal and -shm files SQLite keeps beside it."""
    return (database, Path(f"{database}-wal"), Path(f"{database}-shm"))

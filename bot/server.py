"""The webhook server: verify, queue durably, answer at once; workers do the rest.

POST /webhook        verify, queue in SQLite, answer 202 (bot.webhook says how it answers);
                     /webhook/ is the same endpoint (GitHub follows no redirect)
GET /healthz         200 {status, dry_run, notes, pending, processing, failed, done, ...};
                     503 while deliveries cannot be stored, or the workers cannot claim
                     or record them, or a worker's thread has ended (`failing`)
GET /metrics         Prometheus text (deliveries, queue depth, GitHub calls, comments)
GET /notes, /notes/{id}, /notes/{id}/source, /topics, /favicon.ico, /assets/...
                     the notes pages the comment links to (bot.pages)
GET /dry-run/comments  what the dry run would have posted (dry run only)
GET /github/app-created  the App manifest flow's redirect: how to exchange the code
"""

from __future__ import annotations

import gc
import json
import logging
import re
import shlex
import shutil
import socket
import sqlite3
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote, urlsplit, urlunsplit

import uvicorn
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from starlette.types import ASGIApp

from bot import (
    command_events,
    command_updates,
    deletion_events,
    files_recheck,
    pr_events,
    reply_copies,
)
from bot.commands import DEFAULT_COMMANDS_FILE, load_command_config
from bot.context import BotContext
from bot.db import (
    DAMAGED_FIX,
    Database,
    NewerDatabase,
    access_hint,
    damaged_error,
    is_damaged,
)
from bot.dispatch import Dispatcher, event_shown
from bot.dryrun import DryRunGitHub
from bot.github_port import GitHubError, GitHubPort, repository_id
from bot.library import ROOT, Library, check_library, read_taxonomy
from bot.logs import Redactor, log_context
from bot.match_config import checked_matcher, config_problems
from bot.matching import CompiledMatcher
from bot.metrics import Metrics
from bot.note_files import LibraryError
from bot.page_json import prefers_html
from bot.pages import SecurityHeaders, notes_site
from bot.prstate import LiveStateError, PRStore, Writer
from bot.queue import Delivery, DeliveryQueue, Recovered
from bot.redelivery import DeliveryLog, Redeliverer, going_live
from bot.retention import Pruning, Retention
from bot.settings import Settings, SettingsError
from bot.stop_signals import StopSignals
from bot.terminal import count_of, shown
from bot.webhook import WebhookEndpoint
from bot.workers import OutageWaits, Workers, retry_hint

if TYPE_CHECKING:  # imported where used: a dry run never loads PyGithub
    from bot.github_client import GitHubClient

log = logging.getLogger("review_notes")


# How long a stop waits for the start's redelivery sweep to end its call under way
REDELIVERY_JOIN_SECONDS = 10.0
# How long a stop waits for the workers' deliveries in hand; then, the GitHub client
# closed, for those still busy to hand theirs back (a call under way ends at its timeout)
WORKERS_JOIN_SECONDS = 20.0
WORKERS_CLOSED_JOIN_SECONDS = 5.0
# what a delivery's run that met a damaged page says of it (bot.db.damaged_error)
_DELIVERY_FAILS = "the delivery fails until it is restored"
# what a classic token needs to comment (bot.github_errors.COMMENT_SCOPES), as an operator adds it
_COMMENT_SCOPE_FIX = "public_repo (repo for a private repository)"
# where a classic token's scopes are changed, and the other way
_CLASSIC_TOKENS = (
    "(GitHub's Settings → Developer settings → Personal access tokens → Tokens (classic)),"
    " or use a fine-grained token"
)
_REPO_SCOPE_FIX = f"repo {_CLASSIC_TOKENS}"


def build_dispatcher() -> Dispatcher:
    """The routes of each feature: its events, their checks and handlers."""
    d = Dispatcher()
    features = (
        pr_events,
        command_events,
        command_updates,
        files_recheck,
        reply_copies,
        deletion_events,
    )
    for feature in features:
        feature.register(d)
    return d


class StartupError(Exception):
    """The server cannot start; the message says why."""


@dataclass
class Runtime:
    """The wired application: settings, library, store, queue, GitHub port, workers."""

    settings: Settings
    db: Database
    queue: DeliveryQueue
    dispatcher: Dispatcher
    ctx: BotContext
    dry_run: DryRunGitHub | None
    login: str | None = None  # live: the account it posts as, when the start check said it
    workers: Workers = field(init=False)
    retention: Retention = field(init=False)
    # set once the server shuts down: the start's redelivery sweep stops asking GitHub
    stopping: threading.Event = field(init=False, default_factory=threading.Event)
    redelivery: threading.Thread | None = field(init=False, default=None)  # the sweeps
    redeliver_every_s: float = field(init=False)  # redeliver_every_minutes; 0: never
    recovered: Recovered | None = field(init=False, default=None)  # once claimed (claim)
    database_claimed: bool = field(init=False, default=False)  # (claim_database)

    def __post_init__(self) -> None:
        self.redeliver_every_s = self.settings.redeliver_every_minutes * 60.0
        redact = Redactor(self.settings.secret_values())
        self.workers = Workers(
            self.queue,
            self.process,
            self.settings.workers,
            redact,
            self._count_outcome,
            OutageWaits(
                self.settings.outage_wait,
                self.settings.outage_wait_max,
                self.settings.outage_wait_total,
            ),
            self.settings.workers_poll_seconds,
            stuck_seconds=self.settings.workers_stuck_seconds,
        )
        failing = self.ctx.metrics.workers_failing
        self.ctx.metrics.on_collect(lambda: failing.set(self.workers.failures.failing_for()))
        ended = self.ctx.metrics.workers_ended
        self.ctx.metrics.on_collect(lambda: ended.set(len(self.workers.ended())))
        read_around = self.ctx.metrics.pr_values_read_around
        self.ctx.metrics.on_collect(lambda: read_around.set(len(self.ctx.prs.read_around)))
        self.ctx.metrics.zero_failures(self.dispatcher.events())
        pruned, passes = self.ctx.metrics.pruned, self.ctx.metrics.retention_passes
        self.retention = Retention(
            self.queue,
            self.settings.delivery_retention_days,
            lambda state, n: pruned.labels(state).inc(n),
            self._prunings(),
            on_pass=lambda outcome: passes.labels(outcome).inc(),
        )

    def _prunings(self) -> list[Pruning]:
        """What retention prunes beside deliveries. The file lists of idle PRs only when
        live: there GitHub lists them again; a dry run's came with its replays alone."""
        prs = self.ctx.prs
        also = [
            Pruning("records of replies posted by deliveries now gone", prs.prune_replies),
            Pruning(
                "kept numbers of /notes wrong comments on PRs not handled since",
                partial(self.ctx.feedback.prune_numbering, prs=prs),
            ),
            Pruning("decisions on commands of deliveries now gone", self.ctx.decisions.prune),
            Pruning(
                "comments of commands kept for an unlock that has not come", self.ctx.locked.prune
            ),
        ]
        if self.dry_run is None:
            also.append(Pruning("changed-file lists of PRs not handled since", prs.prune_files))
        return also

    def _count_outcome(self, delivery: Delivery, outcome: str) -> None:
        self.ctx.metrics.deliveries.labels(delivery.event, outcome).inc()

    def process(self, delivery: Delivery) -> None:
        metrics = self.ctx.metrics
        started = time.monotonic()
        context = {"delivery": delivery.id, "repo": delivery.repo, "pr": delivery.pr_number}
        try:
            with log_context(**context):
                summary = self.dispatcher.dispatch(self.ctx, delivery)
        except sqlite3.DatabaseError as exc:  # damaged: said so, with the fix
            # the PR's state (named, set aside), else any other table's page or an index
            damaged = self._damaged_state(delivery, exc) or damaged_error(exc, _DELIVERY_FAILS)
            if damaged is None:
                raise
            raise damaged from exc
        finally:  # its outcome is counted by the worker, as stored (Workers.counted)
            metrics.processing_seconds.labels(delivery.event).observe(time.monotonic() - started)
        log.info(
            "delivery %s %s PR %s %s: %s",
            delivery.id,
            event_shown(delivery.event, delivery.action),
            delivery.repo,
            delivery.pr_number,
            summary,
            extra=context,
        )

    def _damaged_state(self, delivery: Delivery, exc: sqlite3.DatabaseError) -> Exception | None:
        if delivery.repo is None or delivery.pr_number is None:
            return None
        repo_id = repository_id(delivery.payload)  # its state may be under an older name
        return self.ctx.prs.damaged_state(delivery.repo, delivery.pr_number, exc, repo_id)

    def claim(self) -> Recovered:
        """The start's writes to the database, under the server lock: `serve` makes them
        before it listens, so a refusal (a full disk, a lock) is said in one line; the
        app's start-up makes them otherwise. Resumes what a killed process left
        `processing`, once: what it resumed."""
        if self.recovered is not None:
            return self.recovered
        claim_database(self)
        try:
            recovered = self.queue.recover()
        except sqlite3.OperationalError as exc:
            path = self.settings.db_path
            raise _unreadable_rows(path, self.queue, exc) or _unwritable(path, exc) from None
        for failed in recovered.given_up:  # as a worker says and counts a failure
            log.warning(
                "delivery %s (%s, %s#%s) failed: %s%s",
                failed.id,
                failed.event,
                failed.repo,
                failed.pr_number,
                failed.last_error,
                retry_hint(failed.id),  # interrupted: no advice of its own
                extra={"delivery": failed.id, "repo": failed.repo, "pr": failed.pr_number},
            )
            self.ctx.metrics.deliveries.labels(failed.event, "failed").inc()
        if recovered.pause_ended is not None:
            log.warning(
                "a GitHub outage's pause (until %s) found at start has no delivery waiting"
                " behind it (an older release ran them, or they ended otherwise): ended; the"
                " next delivery GitHub fails pauses the queue again",
                recovered.pause_ended,
            )
        self.recovered = recovered
        return recovered

    def start(self) -> None:
        resumed = self.claim().resumed
        self.db.checkpoint_in_background()
        pending = self.queue.counts()["pending"]
        if resumed or pending:
            log.info("resuming %d pending deliveries (%d were interrupted)", pending, resumed)
        self.workers.start()
        self.retention.start()

    def redeliver_in_background(self) -> threading.Thread | None:
        """Ask GitHub again for what it failed to deliver while no server ran (an
        upgrade stops the old one first), since where the last complete sweep left off
        (`redeliver_on_start`); then every `redeliver_every_minutes`, for what it failed
        to deliver since (an outage in front of the running server). Called once the
        server listens: GitHub sends a redelivery at once. Only in App mode: a token or a
        dry run has no delivery log."""
        github = self.ctx.github
        every = self.redeliver_every_s
        if not (self.settings.redeliver_on_start or every) or not self.settings.github_app_id:
            return None
        if self.dry_run is not None or not isinstance(github, DeliveryLog):
            return None
        sweeper = Redeliverer(
            github,
            self.queue,
            self.ctx.metrics,
            self.stopping,
            on_start=self.settings.redeliver_on_start,
            every_s=every,
        )
        thread = threading.Thread(target=sweeper.run, name="redeliver", daemon=True)
        thread.start()
        self.redelivery = thread
        return thread

    def stop(self) -> None:
        self.stopping.set()
        self.retention.stop()
        self.workers.stop(WORKERS_JOIN_SECONDS)
        self._join_redelivery()
        self.ctx.github.close()
        # a worker still busy now finds its next call refused (its back-off cut short):
        # it hands its delivery back (Workers._hand_back) while the database is open
        self.workers.stop(WORKERS_CLOSED_JOIN_SECONDS)
        self.db.close()

    def _join_redelivery(self) -> None:
        """Wait for the sweeps' thread (it drained alongside the workers): it stops after
        the call under way, whose retries may wait; a stopped server must not leave it
        calling GitHub with a closed client and database. Bounded, as every stage."""
        thread = self.redelivery
        if thread is None:
            return
        thread.join(REDELIVERY_JOIN_SECONDS)
        if thread.is_alive():
            log.warning(
                "the redelivery sweep did not stop within %.0fs; stopping without it",
                REDELIVERY_JOIN_SECONDS,
            )


def claim_database(rt: Runtime) -> None:
    """One server per database file (resuming `processing` deliveries is only safe then),
    whatever path names it, and its PR state of one kind of server (claim_pr_state);
    once: `serve` claims it before its port, then the rest (Runtime.claim)."""
    if rt.database_claimed:
        return
    db, settings = rt.db, rt.settings
    if db.link_count() > 1:  # a path to change, as the other REVIEW_NOTES_DB_PATH errors
        raise SettingsError(
            f"REVIEW_NOTES_DB_PATH: {settings.db_path} has other hard links: SQLite keeps"
            " its WAL by file name, and a server using another name would not see this"
            " one's lock; give the database one name (copy it, or remove the other link)"
        )
    if not db.acquire_server_lock():
        raise StartupError(
            # salvage holds the same lock while it copies the file (db.servers_kept_out)
            f"another review-notes server, or a `review-notes salvage` copying"
            f" {settings.db_path}, is using it; stop it or wait for the copy, or set"
            " REVIEW_NOTES_DB_PATH"
        )
    try:
        claim_pr_state(rt.ctx, rt.queue, settings.db_path, dry_run=rt.dry_run is not None)
    except sqlite3.OperationalError as exc:  # the start's first write
        raise _unwritable(settings.db_path, exc) from None
    except sqlite3.DatabaseError as exc:  # a damaged page the start reads whole
        if not is_damaged(exc):
            raise
        raise StartupError(
            f"{settings.db_path}: a damaged SQLite database ({exc}); not starting: {DAMAGED_FIX}"
        ) from None
    rt.database_claimed = True


def _unwritable(path: Path, exc: sqlite3.OperationalError) -> Exception:
    """Why opening the database or the start's first write failed, in words: a file this
    user cannot open or write (a backup restored as root opens fine: the first write
    fails) is a path to change; one another process holds past the busy timeout (a
    VACUUM, a `sqlite3` shell; on an upgrade, a new table or column is the first
    write) is to wait for."""
    # (Python's sqlite3 raises some of its own, nameless: text that is not UTF-8)
    name = getattr(exc, "sqlite_errorname", None) or ""
    kind = name.split("_")[1:2]  # SQLITE_BUSY_SNAPSHOT -> BUSY
    if kind in (["BUSY"], ["LOCKED"]):
        return StartupError(
            f"{path} is locked by another process (a VACUUM, a sqlite3 shell in a"
            f" transaction?): {exc}; not starting: start again once it is done"
        )
    if access_hint(exc):
        return SettingsError(f"REVIEW_NOTES_DB_PATH: {path}: {exc}{access_hint(exc)}")
    if kind == ["FULL"]:
        return StartupError(
            f"{path}: the disk is full ({exc}; {_free_space(path)}): make room on it, then"
            " start again; not starting"
        )
    if name == "SQLITE_IOERR_SHMSIZE":  # SQLite's words for a full disk here
        return StartupError(
            f"{path}: {exc}: no room for its shared-memory file ({path.name}-shm, 32 KB),"
            f" disk full? ({_free_space(path)}): make room on it, then start again; not starting"
        )
    return StartupError(f"{path}: {exc}; not starting")


def _free_space(path: Path) -> str:
    """The room left where the database is, in words (a quota or a file-size limit may
    refuse writes before the disk is full)."""
    try:
        return f"{shutil.disk_usage(path.parent).free} bytes free there"
    except OSError:
        return "free space not known"


def claim_pr_state(ctx: BotContext, queue: DeliveryQueue, path: Path, *, dry_run: bool) -> None:
    """Record which kind of server writes the PR state; here, under the server lock, so
    neither a refused second server nor a command (`retry`, `notes feedback`) changes it.
    Going live drops a dry run's state (its comment ids are not GitHub's) and its `/notes
    wrong` marks (they number a comment nobody saw), and has the redelivery sweeps look
    back all GitHub keeps and run again what GitHub sent the dry run (`going_live`); a
    dry run refuses to start on a live server's, which it would overwrite."""
    marks = answered = 0
    ctx.prs.forget_event_owners()
    try:
        with ctx.prs.db.tx() as conn:
            dropped = ctx.prs.claim_for(conn, Writer.DRY_RUN if dry_run else Writer.LIVE)
            if dropped is not None:
                marks = ctx.feedback.drop_all(conn)
                ctx.decisions.drop_all(conn)  # who the dry run let run what: everyone
                answered = going_live(queue, datetime.now(UTC))  # in this transaction: once
    except LiveStateError:
        raise SettingsError(
            f"REVIEW_NOTES_DB_PATH: {path} holds a live server's PR state (its comments on"
            " GitHub); a dry run would write its would-be comment ids over it: give the dry"
            " run a database of its own (another REVIEW_NOTES_DB_PATH)"
        ) from None
    if dropped is not None and (said := going_live_said(dropped, marks, answered)):
        log.warning("going live on a dry run's database (%s): %s", path, said)


def going_live_said(dropped: int, marks: int, answered: int) -> str | None:
    """What going live on a dry run's database changed, in words: each non-zero count
    (the PRs whose state was dropped, their `/notes wrong` marks, the deliveries the
    dry run received); None when all are 0, as a dry run that saw nothing left nothing."""
    gone = [f"the PR state of {count_of(dropped, 'PR')}"] if dropped else []
    if marks:
        gone.append(f"{count_of(marks, '/notes wrong mark')} on the dry run's comments")
    said = []
    if gone:
        said.append(
            f"dropped {' and '.join(gone)}, as the dry run's comment ids are not GitHub's:"
            " each PR is handled as new at its next event (the dry run's would-be comments"
            " are kept)"
        )
    if answered:
        said.append(
            "the redelivery sweep (App mode) looks back all GitHub keeps, and of the"
            f" {count_of(answered, 'delivery', 'deliveries')} the dry run received in that"
            " time (those it left queued included), runs those GitHub's delivery log shows"
            " it sent (not replays)"
        )
    return "; ".join(said) or None


def build_runtime(
    settings: Settings, *, library: Library | None = None, github: GitHubPort | None = None
) -> Runtime:
    """Wire everything; raises LibraryError on a broken notes library, StartupError on
    a broken config file."""
    if library is None:
        library = _load_library(settings)
    matcher = _matcher(settings, library)
    try:
        commands = load_command_config()  # read here, so a broken file stops the start
    except OSError as exc:
        raise StartupError(f"{DEFAULT_COMMANDS_FILE}: cannot read: {exc.strerror}") from None
    except ValueError as exc:  # it names the file
        raise StartupError(str(exc)) from None
    db, queue, prs = _open_database(settings.db_path, settings.max_deferrals)
    made_github, dry_run, login = github is None, None, None
    if github is None:
        if settings.is_dry_run:
            github = dry_run = DryRunGitHub(db)
        else:
            github = live_github(settings)
            try:
                check_credentials(github, settings)
            except SettingsError:
                github.close()
                db.close()
                raise
            login = github.known_login()
    elif isinstance(github, DryRunGitHub):
        dry_run = github
    metrics = Metrics()
    try:  # its stores add their tables and columns: an older file's first write
        ctx = BotContext(
            settings, library, matcher, github, prs, metrics, commands=commands, queue=queue
        )
    except sqlite3.OperationalError as exc:  # refused as the start's other writes are
        if made_github:
            github.close()
        db.close()
        raise _unwritable(settings.db_path, exc) from None
    _collect_metrics(metrics, queue, github)
    return Runtime(settings, db, queue, build_dispatcher(), ctx, dry_run, login)


def _load_library(settings: Settings) -> Library:
    """The notes library, or a LibraryError naming every problem `notes check` would:
    the matching config's too, so that one refused start names every file a renamed
    topic is still in (not the notes, then the config at the next start)."""
    library, problems = check_library(settings.notes_dir, settings.topics_file)
    if library is None:
        topics = read_taxonomy(settings.topics_file)[0]
        config = config_problems(settings.matching_file, topics, settings.topics_file)
        raise LibraryError(sorted(problems + config))
    return library


def _unreadable_rows(
    path: Path, queue: DeliveryQueue, exc: sqlite3.OperationalError
) -> StartupError | None:
    """Why resuming failed when rows it reads back cannot be read (a damaged disk): each
    named, with the command that deletes it; nothing else in the file need be lost.
    None when every row reads (the write itself failed)."""
    try:
        rows = queue.unreadable_in_progress()
    except sqlite3.Error:  # the file cannot be read at all: said as before
        return None
    if not rows:
        return None
    named = ", ".join(f"delivery {name} (seq {seq})" for seq, name in rows.items())
    where = " OR ".join(f"seq = {seq}" for seq in rows)
    delete = _sqlite_command(path, f"DELETE FROM deliveries WHERE {where}")
    return StartupError(
        f"{path}: {exc}; not starting: {named} cannot be read back (a damaged disk?):"
        f" delete it (`{delete}`), then start again; if more is damaged, {DAMAGED_FIX}"
    )


def _sqlite_command(path: Path, sql: str) -> str:
    """A shell command running `sql` on the database at `path` with this Python's sqlite3
    module: the image has no `sqlite3` command. (JSON's string is Python's too, in double
    quotes: the shell's single quotes hold it as it is.)"""
    file, statement = (json.dumps(text, ensure_ascii=False) for text in (str(path), sql))
    code = f"import sqlite3; sqlite3.connect({file}, isolation_level=None).execute({statement})"
    return shlex.join([sys.executable, "-c", code])


def _open_database(path: Path, max_deferrals: int) -> tuple[Database, DeliveryQueue, PRStore]:
    """The database and its stores. A path SQLite cannot use (a directory, under a file,
    another kind of file, a volume this user cannot write) is a settings error naming
    REVIEW_NOTES_DB_PATH, not a traceback from deep in the start."""
    if path.is_dir():
        why = "a directory; name the SQLite file in it"
    else:
        try:
            db = Database(path)
            return db, DeliveryQueue(db, max_deferrals), PRStore(db)
        except NewerDatabase as exc:  # the operator's file: no path to change
            raise StartupError(exc.said(": not starting")) from None
        except FileExistsError as exc:  # creating its directory: a file is in the way
            why = f"{exc.filename} is a file, not a directory"
        except OSError as exc:
            why = f"cannot create the directory {exc.filename}: {exc.strerror}"
        except sqlite3.OperationalError as exc:  # an upgrade's new column is a first write
            raise _unwritable(path, exc) from None
        except sqlite3.Error as exc:
            if is_damaged(exc):  # the bot's file: no path to change
                raise StartupError(
                    f"{path}: a damaged SQLite database ({exc}); not starting: {DAMAGED_FIX}"
                ) from None
            why = f"not an SQLite database ({exc})"
    raise SettingsError(f"REVIEW_NOTES_DB_PATH: {path}: {why}")


def _matcher(settings: Settings, library: Library) -> CompiledMatcher:
    """The matcher, compiled once against the library and kept for every PR: a matching
    file that is broken, or names a topic the taxonomy lacks, stops the start rather
    than fail every delivery."""
    try:
        return checked_matcher(library, settings.matching_file)
    except ValueError as exc:  # it names the file
        raise StartupError(f"REVIEW_NOTES_MATCHING_FILE: {exc}") from None


def _collect_metrics(metrics: Metrics, queue: DeliveryQueue, github: GitHubPort) -> None:
    """Before each scrape: queue depth from SQLite, GitHub calls from the client's counter."""

    def queue_depth() -> None:
        for state, n in queue.counts().items():
            metrics.queue_depth.labels(state).set(n)
        since = queue.oldest_pending_since()
        waited = (datetime.now(UTC) - since).total_seconds() if since is not None else 0.0
        metrics.queue_oldest_pending.set(max(waited, 0.0))  # a clock stepped back: not < 0
        metrics.queue_waiting_on_github.set(queue.waiting_on_github(0)[0])

    metrics.on_collect(queue_depth)
    calls = github.calls
    if calls is None:
        return
    seen: dict[tuple[str, str, str], int] = {}
    pauses_seen = [0]

    def github_calls() -> None:
        for key, n in calls.snapshot().items():
            if n > seen.get(key, 0):
                metrics.github_calls.labels(*key).inc(n - seen.get(key, 0))
                seen[key] = n
        for identity, left in calls.remaining().items():
            metrics.ratelimit_remaining.set(identity, left)
        if calls.pauses > pauses_seen[0]:
            metrics.ratelimit_pauses.inc(calls.pauses - pauses_seen[0])
            pauses_seen[0] = calls.pauses
        metrics.ratelimit_paused.set(calls.paused_for())

    metrics.on_collect(github_calls)


def live_github(settings: Settings) -> GitHubClient:
    """The PyGithub client, configured from the settings (App or token)."""
    import math

    from bot.github_client import GitHubClient
    from bot.github_retry import RetryPolicy
    from bot.github_sessions import UnusableKeyError

    app_id: int | str | None = settings.github_app_id
    if isinstance(app_id, str) and app_id.isdigit():
        app_id = int(app_id)  # an App ID; a client ID ("Iv1...") stays a string
    token = settings.github_token.get_secret_value() if settings.github_token else None
    timeout = max(1, math.ceil(settings.http_timeout))  # PyGithub takes whole seconds
    try:
        return GitHubClient(
            base_url=settings.github_api_url,
            app_id=app_id,
            private_key=settings.private_key_pem(),
            token=token,
            timeout=timeout,
            deadline=max(timeout, settings.http_deadline),
            retry=RetryPolicy(
                attempts=settings.max_retries + 1,
                backoff=settings.retry_backoff,
                backoff_max=max(settings.retry_backoff, settings.retry_backoff_max),
                max_wait=settings.retry_max_wait,
                sleep_max=settings.retry_sleep_max,
                lost_create_wait=settings.lost_create_wait,
            ),
            seconds_between_requests=settings.seconds_between_requests,
            seconds_between_writes=settings.seconds_between_writes,
            bot_login=settings.bot_login,
            address_repos_by=settings.address_repos_by,
            removed_installation_kept=settings.removed_installation_kept_seconds,
        )
    except UnusableKeyError as exc:  # a PEM that is not a usable RSA key
        raise SettingsError(f"{_key_setting(settings)}: {exc}") from None
    except ValueError as exc:  # not the credential's (the settings check the API URL)
        raise StartupError(f"cannot make the GitHub client: {exc}") from None


def _key_setting(settings: Settings) -> str:
    """The variable the App's private key came from, for an error to name."""
    return "GITHUB_PRIVATE_KEY_PATH" if settings.github_private_key_path else "GITHUB_PRIVATE_KEY"


def check_credentials(github: GitHubClient, settings: Settings) -> None:
    """Ask GitHub once at start whether it takes the credentials, App or token."""
    if settings.github_token is not None:
        check_token_credentials(github, settings.repos)
    else:
        check_app_credentials(github, settings)


def check_token_credentials(github: GitHubClient, repos: tuple[str, ...]) -> None:
    """Ask GitHub for the token's rate limit once at start (token mode; GET /rate_limit
    spends none of it): a token GitHub refuses (401) stops the start, and so does a web
    page or a redirect out of the API for it (GITHUB_API_URL at a web site, a proxy's
    login page), or a 401, 403 or 404 that is not GitHub's (a page, or neither a header
    GitHub's API sends nor its error JSON), where the server would otherwise look
    healthy until the first event failed. GitHub down or out of reach, or any other
    answer, GitHub's own 403 and 404 too (a GitHub Enterprise Server with its rate
    limiting off, in words the check does not know), only warns, as in App mode: a
    restart during an outage must still start. What the token may do: `check_token_scopes`,
    and on each repository of the allow-list `repos`: `check_token_reach`."""
    from bot.github_errors import NOT_THE_API, NotTheAPI  # PyGithub's: live mode only

    try:
        scopes = github.check_token()
    except GitHubError as exc:
        if isinstance(exc.__cause__, NotTheAPI):  # GitHub never saw the token
            raise SettingsError(f"GITHUB_API_URL: {exc}") from None
        if not exc.transient:
            raise SettingsError(
                f"GITHUB_TOKEN: GitHub refused the token ({exc}): is it mistyped, expired"
                " or revoked?"
            ) from None
        hint = f" ({NOT_THE_API})" if exc.status == 404 else ""  # the API lacks /rate_limit
        log.warning(
            "could not check GITHUB_TOKEN with GitHub (%s)%s: starting anyway; it is first"
            " used at the next event",
            exc,
            hint,
        )
        return
    check_token_scopes(scopes)
    check_token_reach(github, scopes, repos)


def check_token_scopes(scopes: tuple[str, ...] | None) -> None:
    """Judge what GitHub's answer at start said the token may do (`check_token`). A
    classic token's scopes without `repo` or `public_repo` stop the start, as a token
    GitHub refuses does: every comment would be refused. One with no scope at all only
    warns: that empty header is not known to be a classic token's alone. No header is not
    known to be a fine-grained token's (a proxy may drop GitHub's headers, an App's token
    gets none): said as no scopes named; a fine-grained token's permissions no answer
    tells, they show at its first write."""
    from bot.github_errors import COMMENT_SCOPES  # PyGithub's: live mode only

    if scopes is None:
        log.info(
            "GITHUB_TOKEN: GitHub names no scopes for it (no X-OAuth-Scopes header):"
            " whether it may comment shows at its first write (a fine-grained token's"
            " permissions no answer tells)"
        )
    elif not scopes:
        log.warning(
            "GITHUB_TOKEN: GitHub names no scopes for it (an empty X-OAuth-Scopes): a"
            " classic token without %s cannot comment, and its first write fails; starting"
            " anyway",
            _COMMENT_SCOPE_FIX,
        )
    elif not COMMENT_SCOPES.intersection(scopes):
        raise SettingsError(
            f"GITHUB_TOKEN: the classic token's scopes ({shown(', '.join(scopes), 200)})"
            " include neither public_repo nor repo, so it cannot comment on a pull request:"
            f" give it {_COMMENT_SCOPE_FIX} {_CLASSIC_TOKENS}"
        )


def check_token_reach(
    github: GitHubClient, scopes: tuple[str, ...] | None, repos: tuple[str, ...]
) -> None:
    """A classic token whose scopes name public_repo but not repo reaches public
    repositories only: ask GitHub for each repository of the allow-list, and stop the
    start at one GitHub calls private or does not show the token at all (a 404: GitHub
    hides a private repository from such a token, as one that does not exist). Other
    tokens are not asked: `repo` reaches every repository, and a fine-grained token's
    reach no answer tells. GitHub failing for one (an outage, a rate limit) only warns,
    as the token's own check does, and the rest are not asked: each would wait out the
    same failure before the server listens."""
    if scopes is None or "repo" in scopes or "public_repo" not in scopes:
        return
    named = shown(", ".join(scopes), 200)
    for at, repo in enumerate(repos):
        try:
            private = _private_at_start(github, repo, named)
        except GitHubError as exc:  # one GitHub may get over
            rest = repos[at + 1 :]
            unasked = f", {' and '.join(rest)} not asked either" if rest else ""
            log.warning(
                "could not ask GitHub whether GITHUB_TOKEN (scopes: %s) reaches %s (%s):"
                " starting anyway%s; a private repository needs the scope repo",
                named,
                repo,
                exc,
                shown(unasked, 400),
            )
            return
        if private:
            raise SettingsError(
                f"GITHUB_TOKEN: {repo} (REVIEW_NOTES_REPOS) is private and the classic"
                f" token's scopes ({named}) reach public repositories only, so it cannot"
                f" comment on it: give it {_REPO_SCOPE_FIX}"
            )


def _private_at_start(github: GitHubClient, repo: str, named: str) -> bool:
    """Whether GitHub calls `repo` private, asked with the token whose scopes are `named`;
    SettingsError when GitHub does not show it (or GITHUB_API_URL is not the API). A
    failure GitHub may get over (an outage) raises its GitHubError (transient)."""
    from bot.github_errors import NotTheAPI  # PyGithub's: live mode only

    try:
        return github.repo_private(repo)
    except GitHubError as exc:
        if isinstance(exc.__cause__, NotTheAPI):
            raise SettingsError(f"GITHUB_API_URL: {exc}") from None
        if not exc.transient:
            raise SettingsError(
                f"GITHUB_TOKEN: GitHub does not show {repo} (REVIEW_NOTES_REPOS) to the"
                f" classic token ({exc}): its scopes ({named}) reach public repositories"
                f" only, so it cannot comment on a private one: give it {_REPO_SCOPE_FIX};"
                f" or, if {repo} does not exist, fix REVIEW_NOTES_REPOS"
            ) from None
        raise


def check_app_credentials(github: GitHubClient, settings: Settings) -> None:
    """Ask GitHub for the App once at start (App mode): credentials GitHub refuses (the
    installation's id in GITHUB_APP_ID, another App's key) stop the start, where the
    server would otherwise look healthy until the first PR event failed. GitHub down
    or out of reach only warns: a restart during an outage must still start. A JWT whose
    times GitHub refused is this machine's clock, said so; a web page for the App, a
    redirect out of the API, or a 401, 403 or 404 that is not GitHub's (neither a header
    its API sends nor its error JSON), is GITHUB_API_URL (a web site's address, a
    proxy's login page), which every call would meet, so it stops the start too."""
    from bot.github_errors import NotTheAPI, jwt_clock_problem  # PyGithub's: live mode only

    try:
        github.check_app()
    except GitHubError as exc:
        key = _key_setting(settings)
        clock = jwt_clock_problem(exc.__cause__, time.time())
        if clock is not None:  # not the credentials' fault: no setting to change
            raise StartupError(f"{exc}: {clock}") from None
        if isinstance(exc.__cause__, NotTheAPI):  # GitHub never saw the credentials
            raise SettingsError(f"GITHUB_API_URL: {exc}") from None
        if not exc.transient:
            raise SettingsError(
                f"GITHUB_APP_ID: GitHub refused the App's credentials ({exc}): is"
                f" GITHUB_APP_ID the App's ID (not an installation's) and {key} one of"
                " its private keys?" + _api_url_hint(settings, exc)
            ) from None
        log.warning(
            "could not ask GitHub for the App to check GITHUB_APP_ID and %s (%s):"
            " starting anyway; they are first used at the next event",
            key,
            exc,
        )


def _api_url_hint(settings: Settings, exc: GitHubError) -> str:
    """A second line naming GITHUB_API_URL when GitHub answered GET /app with a 404 at
    one set by hand: the likelier fault then is the base (a GitHub Enterprise Server's
    host without /api/v3, the web host), which every call is built on. Not echoed: it
    may carry a user and password."""
    default = Settings.model_fields["github_api_url"].default
    if exc.status != 404 or settings.github_api_url == default:
        return ""
    return (
        "\nGITHUB_API_URL: or is it not the REST API's base? (GitHub Enterprise Server's"
        " is https://HOST/api/v3; github.com's https://api.github.com)"
    )


# --- HTTP -------------------------------------------------------------------------


WEBHOOK_PATHS = ("/webhook", "/webhook/")


def _reply(code: int, **content: Any) -> JSONResponse:
    return JSONResponse(content, status_code=code)


def _route_with_other_slash(app: FastAPI, request: Request) -> str | None:
    """`/notes/` as `/notes` (or `/x` as `/x/`) when that is a route: the path
    Starlette's redirect_slashes would send the browser to."""
    path = request.scope["path"]
    if path == "/":
        return None
    other = path.rstrip("/") if path.endswith("/") else path + "/"
    scope = {**request.scope, "path": other}
    if any(route.matches(scope)[0] is not Match.NONE for route in app.router.routes):
        return other
    return None


class _SecuredApp(FastAPI):
    """FastAPI inside `SecurityHeaders`: every answer, also those made outside the routes
    and exception handlers (a crash's 500 by Starlette's error middleware), carries the
    security headers."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())


def create_app(rt: Runtime) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rt.start()
        try:
            yield
        finally:
            await run_in_threadpool(rt.stop)

    # Starlette's own trailing-slash redirect builds its Location from the request,
    # which loses the path a proxy strips: `no_such_page` redirects instead.
    app = _SecuredApp(
        title="review-notes",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        redirect_slashes=False,
    )
    app.state.runtime = rt
    settings = rt.settings
    webhook = WebhookEndpoint(
        settings,
        rt.dispatcher,
        rt.queue,
        rt.ctx.metrics.deliveries,
        on_installation=rt.ctx.github.forget_installation,
    )
    # "/webhook/" too, as the same endpoint: GitHub does not follow the redirect the
    # router would answer a hook URL entered with a trailing slash.
    for path in WEBHOOK_PATHS:  # GET /webhook: 405, as for any route
        app.router.routes.append(Route(path, webhook, methods=["POST"]))  # an ASGI app
    app.add_middleware(WebhookFirst, paths=WEBHOOK_PATHS, endpoint=webhook)
    app.add_middleware(HeadAsGet)

    # The notes pages the comment links to (pages mode), served by the same app.
    site = notes_site(
        rt.ctx.library,
        public_url=settings.public_url or "",
        link_mode=settings.note_links,
        notes_repo_url=settings.notes_repo_url(),
        notes_branch=settings.notes_github_branch,
        notes_dir=settings.notes_github_dir,
        # the repository the bot is installed for, not vLLM's of a fork's install
        default_repo=settings.repos[0],
    )
    site_routes = site.router()
    app.include_router(site_routes)

    @app.exception_handler(StarletteHTTPException)
    async def no_such_page(request: Request, exc: StarletteHTTPException) -> Response:
        # a browser following a mistyped or stale link gets a page with the site's
        # links; API clients keep FastAPI's JSON
        other = _route_with_other_slash(app, request) if exc.status_code == 404 else None
        if other is not None:
            query = request.url.query
            return RedirectResponse(site.public(quote(other)) + ("?" + query if query else ""))
        if exc.status_code == 404 and prefers_html(request):
            return site.error(request, 404, f"no page at {request.url.path}")
        # a notes page asked with another method than GET (a form of another site posted
        # to it): the page, as for a 404; the webhook's 405 stays FastAPI's
        on_a_page = exc.status_code == 405 and _matches(site_routes, request)
        if on_a_page and prefers_html(request):
            said = f"{request.method} {request.url.path}: the notes pages are read with GET"
            answer = site.error(request, 405, said)
            answer.headers.update(exc.headers or {})  # Allow: GET
            return answer
        answer = await http_exception_handler(request, exc)
        if exc.status_code == 404 or on_a_page:  # a cache must not give it a browser
            answer.headers["Vary"] = "Accept"
        return answer

    app.include_router(_operator_routes(rt, webhook))
    return app


def _matches(router: APIRouter, request: Request) -> bool:
    """Whether the request's path is one of the router's (with any method)."""
    return any(route.matches(request.scope)[0] is not Match.NONE for route in router.routes)


def _operator_routes(rt: Runtime, webhook: WebhookEndpoint) -> APIRouter:
    """What the operator asks the server: its health, its metrics, a dry run's comments,
    and the GitHub App manifest flow's last step."""
    router = APIRouter()
    settings = rt.settings

    @router.get("/healthz")
    async def healthz() -> JSONResponse:
        counts = await run_in_threadpool(rt.queue.counts)
        failed = await run_in_threadpool(rt.queue.failed, 10)
        # pending, and running again by themselves: not failed, nor hidden in `pending`
        waiting, oldest_waiting = await run_in_threadpool(rt.queue.waiting_on_github, 10)
        outage_until = await run_in_threadpool(rt.queue.outage_paused_until)
        calls = rt.ctx.github.calls
        failing = webhook.failing
        # workers that cannot claim or record (a full disk, a read-only remount, a lock)
        # retry forever: the queue stands still while no delivery comes to say so
        stuck = rt.workers.failures.stuck(settings.workers_stuck_seconds)
        damaged = rt.queue.set_aside  # rows of a damaged file: the operator's to restore
        damaged_prs = rt.ctx.prs.set_aside  # as retention's pruning met them
        # a run raised what ends a thread: fewer workers (none: the queue stands) until a
        # restart, which runs its delivery again
        ended = rt.workers.ended()
        fault = bool(failing or stuck or damaged or damaged_prs or ended)
        return _reply(
            # a rate limit pause is no fault: a restart would forget it and call GitHub;
            # deliveries SQLite refuses (a full disk) are lost: that is one
            503 if fault else 200,
            status="failing" if fault else "ok",
            intake_error=failing,
            worker_error=stuck,
            workers_ended=ended,
            damaged=[{"id": i, "error": error} for i, error in damaged.items()],
            damaged_prs=[{"pr": pr, "error": error} for pr, error in damaged_prs.items()],
            # read around, no fault (the PRs work): the log's ERROR lines say what was taken
            values_read_around=[
                {"pr": pr, "value": value} for pr, value in rt.ctx.prs.read_around[:10]
            ],
            dry_run=rt.dry_run is not None,
            notes=len(rt.ctx.library.notes),
            **counts,
            github_paused_for=round(calls.paused_for(), 1) if calls is not None else 0.0,
            waiting_on_github=waiting,
            github_down_until=outage_until,
            oldest_waiting_on_github=[
                {"id": d.id, "event": d.event, "action": d.action, "error": d.last_error}
                | {"put_backs": d.outages, "runs_after": d.not_before}
                for d in oldest_waiting
            ],
            recent_failures=[
                {"id": d.id, "event": d.event, "action": d.action, "error": d.last_error}
                for d in failed
            ],
        )

    @router.get("/metrics")
    async def metrics() -> Response:
        text = await run_in_threadpool(rt.ctx.metrics.render)
        return Response(text, media_type=rt.ctx.metrics.content_type)

    @router.get("/dry-run/comments")
    async def dry_run_comments(
        repo: str | None = None,
        number: Annotated[int | None, Query(ge=1, le=2**53 - 1)] = None,  # as a delivery's
    ) -> JSONResponse:
        if rt.dry_run is None:
            return _reply(404, error="not in dry-run mode")
        comments = await run_in_threadpool(rt.dry_run.comments, repo, number)
        reactions = await run_in_threadpool(rt.dry_run.reactions, repo, number)
        return _reply(200, comments=comments, reactions=reactions)

    @router.get("/github/app-created", response_class=PlainTextResponse)
    async def app_created(code: str = "") -> str:
        # The manifest flow's redirect_url: GitHub sends the browser here with a
        # one-hour code; the operator exchanges it for the App's id, key and secret.
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", code):
            return (
                "No valid ?code= from GitHub. Start again from the manifest form"
                ' (docs/operating.md, "Create the GitHub App").\n'
            )
        return (
            "GitHub App created. Within one hour, exchange the code for its credentials\n"
            "(umask 077 first: app.json holds the App's private key and secrets):\n\n"
            "  umask 077\n"
            "  curl -X POST -H 'Accept: application/vnd.github+json' "
            f"{_shown_url(settings.github_api_url)}/app-manifests/{code}/conversions > app.json\n"
            "  python3 -c \"import json; print(json.load(open('app.json'))['pem'], end='')\""
            " > app.pem\n\n"
            "app.json holds id, pem (now in app.pem) and webhook_secret: set GITHUB_APP_ID, "
            "GITHUB_PRIVATE_KEY_PATH (app.pem's path) and GITHUB_WEBHOOK_SECRET,\n"
            "and REVIEW_NOTES_PUBLIC_URL to this server's public address (the comments "
            "link to its note pages); then\n"
            "install the App on the repository and restart review-notes. GitHub's first "
            "ping was signed with\nthe new secret before this server had it (401): its "
            "start asks GitHub to send it again,\nas it does for any delivery GitHub "
            "could not make while it was down.\n"
        )

    return router


def _shown_url(url: str) -> str:
    """GITHUB_API_URL as a page open to anyone shows it: without a user and password
    (a proxy's basic auth) in it; the exchange needs none."""
    parts = urlsplit(url.rstrip("/"))
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


# uvicorn's HTTP parser and event loop, named rather than left to "auto" (which picks
# whatever is installed). httptools (C) parses a 21 KB delivery for a fraction of
# h11's cost (pure Python): 2,800 -> 3,900 acks/s at 100 senders (bench_load.py,
# which runs its bare endpoint with the same two). uvloop measured within noise.
UVICORN_HTTP = "httptools"
UVICORN_LOOP = "asyncio"


class WebhookFirst:
    """Hand POST /webhook to its endpoint before the exception handlers and the router,
    and a GitHub delivery POSTed elsewhere to its answer naming the path (`elsewhere`).

    Inside the app's error middleware (a crash is still a logged 500), outside what
    only routed requests need: ~8% of the ack path's CPU (bench/bench_load.py).
    """

    def __init__(self, app: Any, paths: tuple[str, ...], endpoint: Any):
        self.app, self.paths, self.endpoint = app, paths, endpoint

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            if scope["path"] in self.paths:
                await self.endpoint(scope, receive, send)
                return
            if any(name == b"x-github-event" for name, _ in scope["headers"]):
                await self.endpoint.elsewhere(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HeadAsGet:
    """Answer HEAD like GET, headers only (RFC 9110: every server supports HEAD; uptime
    monitors and link checkers send it). FastAPI's GET routes alone answer it 405; and
    their 405s name GET alone in `Allow`, which HEAD is added to (`allowing_head`)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"

        async def answered(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                headers = MutableHeaders(scope=message)
                if "allow" in headers:
                    headers["allow"] = allowing_head(headers["allow"])
            elif message["type"] == "http.response.body" and head:
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"} if head else scope, receive, answered)


def allowing_head(allow: str) -> str:
    """A 405's `Allow` with HEAD after GET: HeadAsGet answers HEAD wherever GET is."""
    methods = [m.strip() for m in allow.split(",") if m.strip()]
    if "GET" in methods and "HEAD" not in methods:
        methods.insert(methods.index("GET") + 1, "HEAD")
    return ", ".join(methods)


# SIGTERM/SIGINT: stop accepting, answer the requests under way, let each worker
# finish the delivery in hand (claiming no new one), then exit. Each stage is bounded.
DRAIN_SECONDS = 10


# The delivery the dry-run banner suggests replaying (relative to the checkout, or to /app
# in the image, which copies examples/ for this).
DRY_RUN_EXAMPLE = "examples/pr-52419-opened.json"


class DrainingServer(uvicorn.Server):
    """uvicorn's server; on the first stop signal the workers stop claiming at once."""

    def __init__(self, config: uvicorn.Config, rt: Runtime, early: StopSignals | None = None):
        super().__init__(config)
        self.rt = rt
        self.early = early

    async def startup(self, sockets: list[Any] | None = None) -> None:
        await super().startup(sockets)
        if self.early is not None and self.early.seen:  # stopped while starting
            self.handle_exit(self.early.seen[0], None)
        elif not self.should_exit:
            self.rt.redeliver_in_background()

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.rt.stopping.set()
        self.rt.workers.stop_claiming()
        super().handle_exit(sig, frame)


def run_server(
    settings: Settings,
    library: Library | None = None,
    early: StopSignals | None = None,
    command: str = "review-notes",
) -> int:
    """`review-notes serve`: start uvicorn; print why when it cannot start. `early`: the
    stop signals' handler installed before (a stop while starting ends the run once up).
    `command`: review-notes as the user ran it (`cli.invoked_as`), for the banner's
    suggestion."""
    rt = build_runtime(settings, library=library)
    claim_database(rt)  # before the port: another server on the file is the likelier news
    sock = _listening_socket(settings.host, settings.port)  # before saying where it listens
    rt.claim()  # and the rest of the start's writes: a refusal said before listening
    base = settings.local_url()
    lines = [
        f"review-notes: {len(rt.ctx.library.notes)} notes, {len(rt.ctx.library.topics)} topics;"
        f" queue and state in {settings.db_path}",
        f"review-notes: webhook at {base}/webhook, health at {base}/healthz",
    ]
    if rt.dry_run is not None:
        lines.append(
            "review-notes: DRY RUN, nothing is written to GitHub; would-be comments at "
            f"{base}/dry-run/comments"
        )
    if rt.dry_run is None:
        lines.append(f"review-notes: {live_line(settings, rt.login)}")
    if rt.dry_run is not None and not settings.uses_dev_secret:
        lines.append(
            "review-notes: GITHUB_WEBHOOK_SECRET is set: what GitHub sends is answered and"
            " only recorded; going live on this database (App mode) runs again what GitHub"
            " sent in the last 72 h"
        )
    if settings.uses_dev_secret:
        lines.append(
            f"review-notes: development webhook secret: {settings.webhook_secret()}"
            "  (set GITHUB_WEBHOOK_SECRET for real deliveries)"
        )
        example = _replay_example()
        if example is not None:
            lines.append(f"review-notes: try  {command} replay {example} --url {base}/webhook")
    print("\n".join(lines), flush=True)
    app = create_app(rt)
    # The library, the app and the modules live as long as the process: keep them out
    # of the collector's full passes, which otherwise stall requests (p99 under load).
    gc.collect()
    gc.freeze()
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # keep our JSON, redacting log handler for uvicorn's loggers too
        log_level=settings.log_level.lower(),
        access_log=settings.log_level == "DEBUG",
        timeout_graceful_shutdown=DRAIN_SECONDS,  # open requests get this long
        http=UVICORN_HTTP,
        loop=UVICORN_LOOP,
    )
    DrainingServer(config, rt, early).run(sockets=[sock])
    return 0


def live_line(settings: Settings, login: str | None) -> str:
    """What a live start says of itself, as a dry run says it is one: the account it
    posts as (`login`, when known without asking GitHub), with which credentials,
    through which API and for which repositories. Never a secret: the API's URL is shown
    without a proxy's user and password."""
    return (
        f"LIVE, posting to GitHub {_posting_as(settings, login)} through"
        f" {_shown_url(settings.github_api_url)}; repositories: {', '.join(settings.repos)}"
    )


def _posting_as(settings: Settings, login: str | None) -> str:
    """`as LOGIN (CREDENTIALS)`; unknown, the login is the account GitHub names at the
    first event (the start's check warned, or a token's check learns no login)."""
    if settings.github_token is not None:
        credentials, account, learnt = "GITHUB_TOKEN", "the token's user", "its login"
    else:
        credentials, account, learnt = f"App {settings.github_app_id}", "the App's bot", "its name"
    if login:
        return f"as {login} ({credentials})"
    return f"as {account} ({credentials}; {learnt} is asked at the first event)"


def _replay_example() -> str | None:
    """The example the banner suggests replaying, as a shell in the working directory
    names it: relative when it is below (the checkout, the image's /app), else its full
    path; None when the code has no examples/ beside it."""
    path = ROOT / DRY_RUN_EXAMPLE
    if not path.is_file():
        return None
    try:
        here = Path.cwd()
    except OSError:  # the directory was removed under it: the full path works anywhere
        return shlex.quote(str(path))
    return shlex.quote(str(path.relative_to(here) if path.is_relative_to(here) else path))


def _listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound as uvicorn binds it; a port in use (another server) or an
    address not of this host is a StartupError naming it, where uvicorn logs it in a JSON
    line after the banner said where the webhook is, and exits 3."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        raise StartupError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock

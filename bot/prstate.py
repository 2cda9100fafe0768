"""What the bot remembers about each pull request (SQLite).

Between steps 2 and 5 of the flow (event -> PR facts -> matches -> comment -> GitHub):
`bot.sticky` reads the PR's state before matching and saves what GitHub confirmed
after. It must never take an unconfirmed write for done. What it holds, and how it
follows a renamed repository: `PRStore`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from itertools import chain
from typing import Any, TypeVar

from bot.db import (
    DAMAGED_FIX,
    DELIVERY_GONE,
    DamagedRows,
    Database,
    is_damaged,
    read_through_indexes,
)
from bot.order_keys import comment_part, latest, said_before
from bot.times import utcnow

log = logging.getLogger(__name__)

T = TypeVar("T")


class DamagedState(Exception):
    """A PR's state row SQLite cannot read (a failing disk): the PR's event fails with
    what to do. Not replaced by a fresh state rebuilt from GitHub: SQLite can neither
    change nor delete a damaged row, and its key stays taken."""


SCHEMA = """
CREATE TABLE IF NOT EXISTS pr_state (
    repo        TEXT NOT NULL,            -- lower-case owner/name
    number      INTEGER NOT NULL,
    comment_id  INTEGER,                  -- our sticky comment, once posted
    body_hash   TEXT,                     -- sha256 of the body last posted
    head_sha    TEXT,                     -- head the last render matched against
    notes       TEXT NOT NULL DEFAULT '[]',  -- note ids shown, best first (JSON)
    files_sha   TEXT,                     -- head SHA the cached file list belongs to
    files_base  TEXT,                     -- `list key:base branch` it is the diff against
    files       TEXT,                     -- cached changed files (JSON)
    code_names  TEXT,                     -- names on their changed lines (JSON), same head
    incidental  TEXT,                     -- files moved or changed in imports only (JSON)
    renamed     TEXT,                     -- a rename's old path -> its new one (JSON)
    event_at    TEXT,                     -- pull_request.updated_at of the last render
    opted_out   INTEGER NOT NULL DEFAULT 0,
    verbose     INTEGER NOT NULL DEFAULT 0,
    updated_at  TEXT NOT NULL,
    pending     TEXT,                     -- a comment update owed to commands (JSON), or NULL
    dismissed   TEXT,                     -- note ids marked not relevant here (JSON)
    evidence    TEXT,                     -- note id -> the reasons shown for it (JSON)
    paused      TEXT,                     -- what the posted comment says paused it, if it does
    had_notes   INTEGER,                  -- the comment has shown notes (NULL: not known)
    switched_at TEXT,                     -- when the `off`/`on` that set opted_out was said
    unconfirmed INTEGER NOT NULL DEFAULT 0,  -- a write to the comment GitHub did not confirm
    resumed_at  TEXT,                     -- `comment id:body hash` when `on` counted; NULL: none
    files_listed TEXT,                    -- `files_sha:n`: GitHub listed n entries for files
    repo_id     INTEGER,                  -- the repository's id (NULL: not known yet)
    verbose_at  TEXT,                     -- when the `/notes` or `why` that set verbose was said
    dismissed_at TEXT,                    -- when the last `wrong`/`restore` applied was said
    restored_at TEXT,                     -- when the last `restore` applied was said
    event_by    TEXT,                     -- the event (delivery id) that alone set event_at;
                                          -- NULL: several of that second, or not known
    replaced    TEXT,                     -- `comment id:id` of the comment kept and the one
                                          -- it replaced, found gone after `on` (`:found` after
                                          -- it: found gone by a person's write); NULL: none
    owed_delete INTEGER,                  -- our comment a deletion asked gone, left up as
                                          -- the conversation was locked; NULL: none
    write_back  TEXT,                     -- a rewrite's words owed back onto our comment
                                          -- (JSON: comment, text); NULL: none
    given_back  TEXT,                     -- our notes comments a rewrite gave a person, never
                                          -- ours again (JSON: their ids); NULL: none
    PRIMARY KEY (repo, number)
);
CREATE TABLE IF NOT EXISTS pr_replies (
    key         TEXT PRIMARY KEY,         -- bot.markers.reply_key: delivery, command
    repo        TEXT NOT NULL,
    number      INTEGER NOT NULL,
    comment_id  INTEGER NOT NULL,
    posted_at   TEXT NOT NULL,
    delivery    TEXT                      -- the delivery that posted it (deliveries.id)
);
CREATE INDEX IF NOT EXISTS pr_replies_posted ON pr_replies (posted_at);
CREATE TABLE IF NOT EXISTS meta (
    key         TEXT PRIMARY KEY,         -- e.g. 'pr_state_writer' (Writer)
    value       TEXT NOT NULL
);
"""

WRITER_KEY = "pr_state_writer"


class Writer(StrEnum):
    """The kind of server that writes the PR state (recorded by the server's start only)."""

    LIVE = "live"
    DRY_RUN = "dry run"


class LiveStateError(Exception):
    """A dry run was to write over the PR state of a live server (GitHub's comment ids)."""


@dataclass(frozen=True)
class PendingUpdate:
    """A sticky-comment update that slash commands are waiting for (flood control).

    Kept in SQLite, so a restart loses neither the update nor the `+1` its
    commands are owed.
    """

    acks: tuple[int, ...] = ()  # comments to react `+1` to once it is done
    # the last command that said: see the notes (`/notes`, `why`, `wrong`), or `off`
    show: bool = False
    diff_acks: tuple[int, ...] = ()  # the same for comments on lines of the diff
    # the order key (bot.order_keys) of the command `show` is from: the one
    # written last decides it, whatever order they run in; and one written before the
    # command that set what the comment shows now does not rewrite it (bot.command_updates)
    said: str | None = None

    def add(
        self,
        comment_id: int | None,
        show: bool | None,
        on_diff: bool = False,
        said: str | None = None,
    ) -> PendingUpdate:
        """Owe one more comment's commands; `show` None: they said neither (`on`). `said`:
        their order key (None: not known, taken as the newest)."""
        acks, diff_acks = self.acks, self.diff_acks
        if comment_id is not None and on_diff and comment_id not in diff_acks:
            diff_acks = (*diff_acks, comment_id)
        elif comment_id is not None and not on_diff and comment_id not in acks:
            acks = (*acks, comment_id)
        # run late: what one written after it asked stands
        if show is None or said_before(said, self.said):
            return PendingUpdate(acks, self.show, diff_acks, self.said)
        return PendingUpdate(acks, show, diff_acks, said)


@dataclass(frozen=True)
class WriteBackHistory:
    """What earlier write-backs onto a comment did, for telling words of ours shown there
    from a person's same words (`GitHubPort.restore_text`): GitHub keeps no edit author."""

    # words the bot wrote back onto it, kept until its next write of the notes comment:
    # landed after a later edit of theirs, they are written over too (bot.write_backs)
    over: str | None = None
    # GitHub's time of that write (None: not known): the comment edited since shows a
    # person's text, even those very words put back (an undo), never written over
    over_at: str | None = None
    # words a write-back of ours sent in a call that failed (a 5xx at every try, a
    # timeout): perhaps landed, its answer lost. And our time when that call gave up
    # (as `times.utcnow`): shown, edited no later (give or take the clocks' slack), they
    # are ours; edited later, a person's (bot.write_backs). None: no such call
    tried: str | None = None
    tried_at: str | None = None
    # the words and times of failed calls before that one, oldest first (at most
    # `EARLIER_TRIES`): a second failed call must not lose a first one's words, which
    # may show, landed, the second not carried out (bot.write_backs `_restore`)
    tried_before: tuple[tuple[str, str], ...] = ()

    @property
    def ours_may_show(self) -> bool:
        """Words of a write-back of ours may show: one landed, or one failed."""
        return self.over is not None or self.tried is not None

    @property
    def failed_calls(self) -> tuple[tuple[str, str], ...]:
        """(words, time it gave up) of each failed call known, oldest first."""
        if self.tried is None or self.tried_at is None:
            return self.tried_before
        return (*self.tried_before, (self.tried, self.tried_at))


# no write-back of ours known: the first one's call
NO_HISTORY = WriteBackHistory()


@dataclass(frozen=True)
class WriteBack:
    """A person's words their rewrite put on our notes comment `comment_id` (our marker
    gone), to be written back should an edit of ours show there (bot.write_backs)."""

    comment_id: int
    text: str
    # the order key of the edit that put them there (`deletion_events._edited_at`; None:
    # not known, or kept by a release before it was), so that a later edit's words win
    at: str | None = None
    history: WriteBackHistory = NO_HISTORY


# failed write-back calls kept beyond the last (`WriteBackHistory.tried_before`): one per edit of
# theirs whose write-back failed; beyond it the oldest is dropped (docs/commands.md)
EARLIER_TRIES = 4


# The index SQLite keeps of pr_state's key (repo, number), with each row's rowid: a PR
# whose row does not read (a damaged page of the table) is named from it alone.
KEY_INDEX = "sqlite_autoindex_pr_state_1"
# the names PR `number` of repository `repo_id` is kept under, read from the indexes
# alone: the rowids from the index of ids, their names from the key's
NAMES_OF_ID = (
    f"SELECT repo FROM pr_state INDEXED BY {KEY_INDEX} WHERE number = ? AND rowid IN"
    " (SELECT rowid FROM pr_state INDEXED BY pr_state_repo_id WHERE repo_id = ? AND number = ?)"
)
# the PRs last handled before a time that still hold a file list, oldest first, read
# from the index pr_state_listed alone; {kept}: not set aside (PRStore.not_set_aside)
IDLE_LISTS = (
    "SELECT rowid FROM pr_state WHERE files IS NOT NULL AND updated_at < ? AND {kept}"
    " ORDER BY updated_at LIMIT ?"
)


@dataclass(frozen=True)
class PRState:
    repo: str
    number: int
    comment_id: int | None = None
    body_hash: str | None = None
    head_sha: str | None = None
    notes: tuple[str, ...] = ()
    files_sha: str | None = None
    files: tuple[str, ...] | None = None
    # how many entries GitHub listed for `files` (a rename: one entry, two paths), so a
    # cached partial list is not taken for the whole; None: not known (one per path)
    files_listed: int | None = None
    # the base branch the cached files are the diff against (a retarget changes them
    # under the same head); None: not known (cached before it was kept)
    files_base: str | None = None
    event_at: str | None = None
    # the event (its delivery's id, a files re-check's original's) that alone set
    # event_at, so its own re-run is not a tie of the same second; None: several were
    # handled of that second, or not known
    event_by: str | None = None
    # updates off on this PR: `/notes off`, or our comment deleted (the opt-out label
    # and `<!-- no-review-notes -->` are read from the PR at each event, not kept here);
    # `paused` below is only what the posted comment says about it
    opted_out: bool = False
    verbose: bool = False  # why mode (`/notes why`): the comment lists all the evidence
    pending: PendingUpdate | None = None
    # names the diff at files_sha changes -> the files naming them
    code_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # files that diff only moves or changes in their imports
    incidental: frozenset[str] = frozenset()
    # a rename's old path -> its new one, of the same list
    renamed: Mapping[str, str] = field(default_factory=dict)
    dismissed: tuple[str, ...] = ()  # `/notes wrong`: hidden on this PR
    evidence: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # of the notes shown
    paused: str | None = None  # the PauseCause the posted comment names, if it says paused
    # the comment has shown notes: only then does "no note matches" say "any more"
    # None: not known (a comment posted before this was recorded; see bot.sticky)
    had_notes: bool | None = False
    # the order key (bot.order_keys) of the `/notes off|on` that set
    # opted_out, or of the deletion of our comment that did (bot.sticky: said when
    # noticed): an older one run late must not override it
    switched_at: str | None = None
    # a write to the comment was begun and GitHub has not confirmed it (an answer lost,
    # or what it answered not saved): GitHub may hold a comment, or a text, that the
    # fields above do not know of, so they are not trusted to skip a call
    unconfirmed: bool = False
    # `/notes on` counted and no write has found the comment since: one found gone may
    # have been deleted before it (while off), so it is posted anew (docs/commands.md), not
    # taken for a new deletion, by whichever refresh runs first (the `on`'s, or a PR event's).
    # The comment known then, `id:body hash` (`0:` for none): a comment posted or edited
    # since by a release that does not know this field (a rollback) ends the state.
    resumed_at: str | None = None
    # The same order keys for the other things commands change, so that one run late (a
    # retry, a redelivery) changes nothing a command said after it changed, nor what it
    # did itself before: the `/notes` or `why` that set verbose (bot.command_updates);
    # the last `wrong` or `restore` that changed `dismissed`, and the last `restore`
    # (these two per command: `said_at#index`, as they are applied one by one;
    # bot.command_feedback).
    verbose_at: str | None = None
    dismissed_at: str | None = None
    restored_at: str | None = None
    # the notes comment a write after `/notes on` (resumed) found gone and replaced with
    # `comment_id`: GitHub's word of its deletion may come after (both sent late), and a
    # deletion made after the `on` is of the comment kept then (bot.deletion_events)
    replaced_id: int | None = None
    # the notes comment a person's write (`/notes`, `why`, `wrong`, `restore`) found gone
    # and replaced with `comment_id` (the one they asked for): a deletion dated then only
    # by a guess (just after the last `off`/`on`, bot.sticky); GitHub's word of it, when
    # it comes, dates it and decides again (bot.deletion_events)
    found_gone_id: int | None = None
    # our notes comment a maintainer's deletion asked gone (the one kept after an `on`
    # the deletion outranks, bot.deletion_events) that GitHub refused to delete as the
    # conversation was locked: deleted at the unlock (bot.pr_events)
    owed_delete: int | None = None
    # a person's rewrite of our notes comment whose words are owed back onto it, should an
    # edit of ours show there (bot.write_backs)
    write_back: WriteBack | None = None
    # our notes comments a person's rewrite made theirs (bot.deletion_events): still the
    # App's and, should they paste our text back, opening with our marker, but never the
    # notes comment again (bot.sticky `_write`)
    given_back: tuple[int, ...] = ()

    def resume_mark(self) -> str:
        """What `resumed_at` holds when `/notes on` counts now."""
        return f"{self.comment_id or 0}:{self.body_hash or ''}"

    @property
    def trusted(self) -> bool:
        """Whether the comment as remembered may stand for GitHub's, to skip a call: not
        while a write is unconfirmed (a comment we cannot name may be up, or another
        text), nor while resumed (it may be gone, and only a call finds out and ends it)."""
        return not self.unconfirmed and not self.resumed

    @property
    def shown_unknown(self) -> bool:
        """Whether the notes the comment shows may not be those kept: no text of it is
        known (`notes` that did not read, which `read_values` takes from the reasons kept,
        as none while paused or when those do not read either, the hash cleared; or a
        write begun, unconfirmed). GitHub's text tells (bot.command_feedback `notes_shown`)."""
        return self.comment_id is not None and self.body_hash is None

    @property
    def resumed(self) -> bool:
        """An `on` counted and no write found the comment since: the comment known then
        is the comment now, with the text it had (or a write of ours begun on it, which
        clears the hash until GitHub confirms)."""
        if self.resumed_at is None:
            return False
        comment, _, text = self.resumed_at.partition(":")
        same_text = self.body_hash is None or self.body_hash == text
        return comment == str(self.comment_id or 0) and same_text

    def files_for(self, head_sha: str, base_ref: str = "") -> tuple[str, ...] | None:
        """The cached file list when it belongs to this head and base branch (files change
        on a push, and on a retarget: an event of the new base run before the retarget's
        own must not take the old base's). When the event names its base, a list of no
        known base (cached before it was kept, or by a release without it) is asked for
        again; an event naming none (a command on a dry run's PR) takes the head's."""
        if not head_sha or self.files_sha != head_sha or self.files is None:
            return None
        if base_ref and base_ref != self.files_base:
            return None
        return self.files


def showing_key(state: PRState) -> str | None:
    """The order key of the command written last of those that set what the comment
    shows: a `/notes`, `why`, `wrong` or `restore` (the notes), or while paused the `off`
    (or the deletion of the comment) that paused it. One written before it, run late,
    does not rewrite the comment (bot.command_updates); a files re-check a lock refused
    owes its update dated so (bot.files_recheck)."""
    dismissed = state.dismissed_at and comment_part(state.dismissed_at)
    return latest(state.verbose_at, dismissed, state.switched_at if state.opted_out else None)


def _listed_for(stored: str | None, files_sha: str | None) -> int | None:
    """The count stored with the files, if it is of these: an older release (a rollback)
    caches a new head's files and leaves the count of the old head's in place."""
    sha, _, count = (stored or "").rpartition(":")
    return int(count) if stored and sha == str(files_sha) and count.isdigit() else None


def _replaced_of(stored: str | None, comment_id: int | None, *, found: bool = False) -> int | None:
    """The comment replaced after an `on` (found: by a person's write), if stored with the
    comment kept now: a release before it (a rollback) posts or forgets comments and
    leaves the one before's in place (and reads a `:found` one as none)."""
    kept, _, replaced = (stored or "").partition(":")
    replaced, _, by = replaced.partition(":")
    ok = replaced.isdigit() and kept == str(comment_id) and (by == "found") == found
    return int(replaced) if ok else None


def _stored_replaced(state: PRState) -> str | None:
    """`replaced` as stored (`_replaced_of` reads it)."""
    if state.replaced_id is not None:
        return f"{state.comment_id}:{state.replaced_id}"
    if state.found_gone_id is not None:
        return f"{state.comment_id}:{state.found_gone_id}:found"
    return None


def _list_key(files_json: str) -> str:
    return hashlib.sha256(files_json.encode()).hexdigest()[:16]


def _stored_base(base: str | None, files: tuple[str, ...] | None) -> str | None:
    """`files_base` as stored: tied to the list it is of (its key)."""
    if base is None or files is None:
        return None
    return f"{_list_key(json.dumps(list(files)))}:{base}"


def _base_for(stored: str | None, files_json: str | None) -> str | None:
    """The base branch stored with the files, if it is of these: a release before it (a
    rollback) caches another list, for the same head when it was retargeted, and leaves
    the base of the one before in place."""
    key, _, base = (stored or "").partition(":")  # no `:` in a branch name
    return base if files_json and base and key == _list_key(files_json) else None


class PRStore:
    """Per PR: the sticky comment's id and the hash of the body last posted (so an unchanged
    render costs no API call), both saved only once GitHub confirms a write, and whether
    a write is begun but not confirmed (then GitHub is asked, not these); the files
    seen at a head SHA (a `labeled` event does not change files), the notes shown, and
    the PR's switches: opted out (`/notes off`) and verbose (`/notes why` stays until a
    plain `/notes`), each with when the command that set it was written, so that an older
    one run late leaves it. The notes a reviewer marked as not relevant here (`/notes wrong`),
    and the reasons the comment gave for each note it shows (kept with such a mark).
    While slash commands wait for a coalesced comment update, what that update owes them.
    And the replies posted to commands, by key, so that a re-run of a delivery knows what
    it posted even after a maintainer deleted it. And which kind of server wrote all this
    (`meta`): a dry run's comment ids are not GitHub's.

    Everything is kept under the repository's name, which a rename or a transfer changes;
    the repository's id (`repository.id`), which neither changes, is kept with each PR's
    state, so that the PR's first event under the new name takes its state along (`follow`).
    Another repository's state found under a name it gave up waits under its id (`held_name`).
    """

    def __init__(self, db: Database):
        self.db = db
        db.script(SCHEMA)
        # pending: since slash commands; code_names: since matching on the diff's names;
        # incidental: since moved files stopped counting as evidence; dismissed, evidence:
        # since `/notes wrong`; paused: since a paused comment showing notes stays as it is;
        # had_notes: since "any more" needs notes shown before (NULL: not known);
        # switched_at: since an older `off`/`on` run late no longer overrides a newer one
        # unconfirmed: since a write GitHub applied but never confirmed is looked for;
        # resumed_at: since a comment deleted while off is posted anew after `/notes on`;
        # files_listed: since a rename's two paths no longer pass a partial list for whole;
        # repo_id: since a PR's state follows its repository renamed or transferred;
        # verbose_at, dismissed_at, restored_at: since an older `why`, `wrong` or `restore`
        # run late no longer undoes a newer command; event_by: since a re-run of an event
        # is not taken for a tie with itself; files_base: since an event of a retargeted
        # PR's new base run before the retarget does not take the old base's files;
        # replaced: since a deletion of the comment an `on` found gone can outrank it;
        # renamed: since a reason names a renamed file by its new path;
        # owed_delete: since a deletion refused on a locked conversation is made after the unlock
        # write_back: since a rewrite's words a lock or a failure kept from going back are owed
        # given_back: since a rewritten comment our text is pasted back onto stays theirs
        db.add_missing_columns(
            "pr_state",
            {
                "pending": "TEXT",
                "code_names": "TEXT",
                "incidental": "TEXT",
                "renamed": "TEXT",
                "dismissed": "TEXT",
                "evidence": "TEXT",
                "paused": "TEXT",
                "had_notes": "INTEGER",
                "switched_at": "TEXT",
                "unconfirmed": "INTEGER NOT NULL DEFAULT 0",
                "resumed_at": "TEXT",
                "files_listed": "TEXT",
                "repo_id": "INTEGER",
                "verbose_at": "TEXT",
                "dismissed_at": "TEXT",
                "restored_at": "TEXT",
                "event_by": "TEXT",
                "files_base": "TEXT",
                "replaced": "TEXT",
                "owed_delete": "INTEGER",
                "write_back": "TEXT",
                "given_back": "TEXT",
            },
        )
        db.script(  # after the column: an older table gains it just above
            "CREATE INDEX IF NOT EXISTS pr_state_repo_id ON pr_state (repo_id, number)"
            " WHERE repo_id IS NOT NULL;"
            # the PRs still holding a file list, by when last handled (prune_files)
            "CREATE INDEX IF NOT EXISTS pr_state_listed ON pr_state (updated_at)"
            " WHERE files IS NOT NULL"
        )
        # delivery: since a reply's record lasts as long as its delivery can run again
        db.add_missing_columns("pr_replies", {"delivery": "TEXT"})
        # rows SQLite found damaged, left out of retention's prunings until a restart: by
        # rowid, their PR and the error (`past_damage`, and `get` for a PR's event)
        self._unreadable = DamagedRows()
        # the damaged values `get` read around and said: (repo, number, column, value)
        self._values_said: set[tuple[str, int, str, object]] = set()

    def get(self, repo: str, number: int) -> PRState:
        rows = self.db.execute(
            "SELECT * FROM pr_state WHERE repo = ? AND number = ?", (repo.lower(), number)
        )
        if not rows:
            return PRState(repo.lower(), number)
        r, parsed = self._read_around(rows[0])
        return PRState(
            repo=r["repo"],
            number=r["number"],
            comment_id=r["comment_id"],
            body_hash=r["body_hash"],
            head_sha=r["head_sha"],
            notes=tuple(parsed["notes"]),
            files_sha=r["files_sha"],
            files=tuple(parsed["files"]) if parsed["files"] is not None else None,
            files_listed=_listed_for(r["files_listed"], r["files_sha"]),
            files_base=_base_for(r["files_base"], r["files"]),
            event_at=r["event_at"],
            opted_out=bool(r["opted_out"]),
            verbose=bool(r["verbose"]),
            pending=_pending(parsed["pending"]),
            code_names={k: tuple(v) for k, v in (parsed["code_names"] or {}).items()},
            incidental=frozenset(parsed["incidental"] or ()),
            renamed=dict(parsed["renamed"] or {}),
            dismissed=tuple(parsed["dismissed"] or ()),
            evidence={k: tuple(v) for k, v in (parsed["evidence"] or {}).items()},
            paused=r["paused"],
            had_notes=(
                (None if r["comment_id"] is not None else False)
                if r["had_notes"] is None
                else bool(r["had_notes"])
            ),
            switched_at=r["switched_at"],
            unconfirmed=bool(r["unconfirmed"]),
            resumed_at=r["resumed_at"],
            verbose_at=r["verbose_at"],
            dismissed_at=r["dismissed_at"],
            restored_at=r["restored_at"],
            event_by=r["event_by"],
            replaced_id=_replaced_of(r["replaced"], r["comment_id"]),
            found_gone_id=_replaced_of(r["replaced"], r["comment_id"], found=True),
            owed_delete=r["owed_delete"],
            write_back=parsed["write_back"],
            given_back=parsed["given_back"],
        )

    def _read_around(self, row: sqlite3.Row) -> tuple[dict[str, Any], dict[str, Any]]:
        """The row with each JSON value that does not read replaced by what the server
        takes in its place (`read_values`), what did not said once per value: SQLite
        reads damaged text as any, and a value that does not parse must not make the
        whole row unreadable (every event of the PR failed, its comment's id and opt-out
        unread). The next write of the state keeps what read. With the row, its JSON
        values as read (`ValuesRead.parsed`: each parsed once)."""
        repo, number = row["repo"], row["number"]
        values = dict(zip(row.keys(), row, strict=True))
        reading = read_values(values, lambda: self._standing_marks(repo, number))
        for column, why in reading.why:
            said = (repo, number, column, row[column])
            if said in self._values_said:
                continue
            self._values_said.add(said)
            log.error(
                "PR %s#%s: its %s does not read: %s; the rest of its state read, and its"
                " next write keeps what read. The database file may be damaged (`sqlite3"
                " FILE 'PRAGMA integrity_check'` says); if it is: %s",
                repo,
                number,
                column,
                why,
                DAMAGED_FIX,
            )
        return reading.stored, reading.parsed

    def _standing_marks(self, repo: str, number: int) -> list[str] | None:
        """The PR's standing `/notes wrong` marks (none when their table is not here: a
        PRStore without bot.feedback_store's, as in tools that read the state alone), or
        None when SQLite finds them damaged (`read_values` says so in the value's line)."""
        try:
            rows = self.db.execute(STANDING_MARKS, (repo, number))
        except sqlite3.DatabaseError as exc:
            if is_damaged(exc):
                return None
            if not isinstance(exc, sqlite3.OperationalError) or "no such table" not in str(exc):
                raise
            return []
        return list(dict.fromkeys(r["note_id"] for r in rows))

    @property
    def read_around(self) -> list[tuple[str, str]]:
        """The values `get` read around since the start: (PR as `owner/name#N`, column)."""
        said = tuple(self._values_said)  # (a copy: workers add to it as /healthz reads)
        return sorted({(f"{r}#{n}", c) for r, n, c, _ in said})

    def put(self, state: PRState) -> None:
        self.db.execute(
            """
            INSERT INTO pr_state (repo, number, comment_id, body_hash, head_sha, notes, files_sha,
                                  files, event_at, opted_out, verbose, updated_at, pending,
                                  code_names, incidental, dismissed, evidence, paused,
                                  had_notes, switched_at, unconfirmed, resumed_at, files_listed,
                                  verbose_at, dismissed_at, restored_at, event_by, files_base,
                                  replaced, renamed, owed_delete, write_back, given_back)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                    ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (repo, number) DO UPDATE SET
                comment_id = excluded.comment_id, body_hash = excluded.body_hash,
                head_sha = excluded.head_sha, notes = excluded.notes,
                files_sha = excluded.files_sha, files = excluded.files,
                event_at = excluded.event_at, opted_out = excluded.opted_out,
                verbose = excluded.verbose, updated_at = excluded.updated_at,
                pending = excluded.pending, code_names = excluded.code_names,
                incidental = excluded.incidental, dismissed = excluded.dismissed,
                evidence = excluded.evidence, paused = excluded.paused,
                had_notes = excluded.had_notes, switched_at = excluded.switched_at,
                unconfirmed = excluded.unconfirmed, resumed_at = excluded.resumed_at,
                files_listed = excluded.files_listed, verbose_at = excluded.verbose_at,
                dismissed_at = excluded.dismissed_at, restored_at = excluded.restored_at,
                event_by = excluded.event_by, files_base = excluded.files_base,
                replaced = excluded.replaced, renamed = excluded.renamed,
                owed_delete = excluded.owed_delete, write_back = excluded.write_back,
                given_back = excluded.given_back
            """,
            (
                state.repo.lower(),
                state.number,
                state.comment_id,
                state.body_hash,
                state.head_sha,
                json.dumps(list(state.notes)),
                state.files_sha,
                json.dumps(list(state.files)) if state.files is not None else None,
                state.event_at,
                int(state.opted_out),
                int(state.verbose),
                utcnow(),
                json.dumps(asdict(state.pending)) if state.pending is not None else None,
                json.dumps({k: list(v) for k, v in state.code_names.items()}),
                json.dumps(sorted(state.incidental)),
                json.dumps(list(state.dismissed)),
                json.dumps({k: list(v) for k, v in state.evidence.items()}, ensure_ascii=False),
                state.paused,
                None if state.had_notes is None else int(state.had_notes),
                state.switched_at,
                int(state.unconfirmed),
                state.resumed_at,
                None if state.files_listed is None else f"{state.files_sha}:{state.files_listed}",
                state.verbose_at,
                state.dismissed_at,
                state.restored_at,
                state.event_by,
                _stored_base(state.files_base, state.files),
                _stored_replaced(state),
                json.dumps(dict(state.renamed)),
                state.owed_delete,
                _stored_write_back(state.write_back),
                json.dumps(list(state.given_back)) if state.given_back else None,
            ),
        )

    def record_reply(
        self, repo: str, number: int, key: str, comment_id: int, delivery: str
    ) -> None:
        """A reply GitHub confirmed posting, under its key, with the delivery that posted
        it (its record lasts as long as that delivery can run again)."""
        self.db.execute(
            "INSERT OR REPLACE INTO pr_replies"
            " (key, repo, number, comment_id, posted_at, delivery) VALUES (?, ?, ?, ?, ?, ?)",
            (key, repo.lower(), number, comment_id, utcnow(), delivery),
        )

    def prune_replies(self, before: str, limit: int) -> int:
        """Delete up to `limit` reply records posted before `before` (utcnow format) whose
        delivery is gone: a failed one kept longer (retried, failed again) may still run
        again and must know its replies."""
        return self.db.delete_before("pr_replies", "posted_at", before, limit, DELIVERY_GONE)

    def prune_files(self, before: str, limit: int) -> int:
        """Forget the changed-file lists (and the diff's names) of up to `limit` PRs last
        handled before `before` (utcnow format), oldest first. They are the bulk of a row
        (a few KB; 300 KB for a PR of 3,000 files) and only spare a GitHub call on the
        PR's next event; the rest of its state (its comment, opt-out, marks) is kept."""
        return self.past_damage(
            lambda: self._prune_files(before, limit),
            lambda: IDLE_LISTS.format(kept=self.not_set_aside()),
            (before, limit),
        )

    def _prune_files(self, before: str, limit: int) -> int:
        idle = IDLE_LISTS.format(kept=self.not_set_aside())
        with self.db.tx() as conn:
            return conn.execute(
                "UPDATE pr_state SET files = NULL, files_sha = NULL, files_listed = NULL,"
                " files_base = NULL, code_names = NULL, incidental = NULL, renamed = NULL"
                f" WHERE rowid IN ({idle})",
                (before, limit),
            ).rowcount

    def past_damage(
        self, step: Callable[[], T], among: Callable[[], str], params: tuple[object, ...]
    ) -> T:
        """`step`'s result; should SQLite find a PR's row it reads damaged ("database disk
        image is malformed": a failing disk, likely on the pages of a long file list), after
        setting aside every damaged row of those `among()` selects (SQL of their rowids,
        read from an index alone, with `params`; rows set aside left out) and running
        `step` again, as long as each run meets a row not set aside before (a batch run
        again past one is another batch). The step leaves the rows set aside out
        (`not_set_aside`): a damaged row can be neither read, nor changed, nor deleted,
        and retention's pruning met it again at each pass: the oldest idle PR's, it kept
        every other PR's file list for good."""
        while True:
            try:
                return step()
            except sqlite3.DatabaseError as exc:
                if not is_damaged(exc) or not self._set_aside_unreadable(among(), params):
                    raise

    def not_set_aside(self, rowid: str = "rowid") -> str:
        """An SQL condition leaving out the rows set aside, by `rowid` (the column as the
        query names it; ints: no quoting)."""
        return self._unreadable.not_among(rowid)

    def _set_aside_unreadable(self, among: str, params: tuple[object, ...]) -> bool:
        """Set aside each row `among` selects that SQLite cannot read whole, said once;
        whether any was. False: the damage is elsewhere."""
        seen = len(self._unreadable)
        for (rowid,) in self.db.execute(among, params):
            try:
                self.db.execute("SELECT * FROM pr_state WHERE rowid = ?", (rowid,))
            except sqlite3.DatabaseError as exc:
                if not is_damaged(exc):
                    raise
                name = self._pr_of(rowid)
                self._unreadable.add(rowid, name, exc)
                log.error(
                    "PR %s: SQLite cannot read its state (%s): set aside, neither its file"
                    " list nor its kept numbers pruned (retention). The database file is"
                    " damaged: %s",
                    name,
                    exc,
                    DAMAGED_FIX,
                )
        return len(self._unreadable) > seen

    def damaged_state(
        self, repo: str, number: int, exc: sqlite3.DatabaseError, repo_id: int | None = None
    ) -> DamagedState | None:
        """What an event of the PR that met `exc` fails with, when that is SQLite finding
        the PR's own state row damaged (its reads are many: any may meet it): the row set
        aside (`set_aside`) and said once, as retention's pruning sets it aside. The PR's
        rows are the one under `repo` and those its repository `repo_id` (renamed or
        transferred since) left under older names, which the event moves (`follow`).
        None when the damage is not theirs."""
        if not is_damaged(exc):
            return None
        names = [repo.lower()]
        if repo_id is not None:
            try:  # by the indexes alone: a damaged page of the table hides its rows' names
                rows = self.db.execute(NAMES_OF_ID, (number, repo_id, number))
            except sqlite3.DatabaseError:
                rows = []
            names += sorted({r["repo"] for r in rows} - {repo.lower()})
        for name in names:
            try:
                self.db.execute(
                    "SELECT * FROM pr_state WHERE repo = ? AND number = ?", (name, number)
                )
            except sqlite3.DatabaseError as again:
                return self._damaged(name, number, again) if is_damaged(again) else None
        return None

    def _damaged(self, repo: str, number: int, exc: sqlite3.DatabaseError) -> DamagedState:
        """The error a PR's event fails with when its row is damaged, the row set aside
        and said in an ERROR the first time (the rowid read from the key's index alone;
        not set aside when that fails too: the damage is not the row's)."""
        name = f"{repo}#{number}"
        try:
            [(rowid,)] = self.db.execute(
                "SELECT rowid FROM pr_state WHERE repo = ? AND number = ?", (repo, number)
            )
        except (sqlite3.DatabaseError, ValueError):
            rowid = None
        if rowid is not None and rowid not in self._unreadable:
            self._unreadable.add(rowid, name, exc)
            log.error(
                "PR %s: SQLite cannot read its state (%s): set aside, each event of the PR"
                " fails. The database file is damaged: %s",
                name,
                exc,
                DAMAGED_FIX,
            )
        return DamagedState(
            f"PR {name}: SQLite cannot read its state ({exc}); its events fail until the"
            f" database file is restored: {DAMAGED_FIX}"
        )

    @property
    def set_aside(self) -> dict[str, str]:
        """The PRs whose state was set aside as damaged since the start: PR -> error."""
        return self._unreadable.by_name()

    def _pr_of(self, rowid: int) -> str:
        """A damaged row's PR, from the row or the key's index, which holds the name too."""
        row = read_through_indexes(
            self.db.execute, "pr_state", "repo, number", "rowid", rowid, [KEY_INDEX]
        )
        if row is None:
            return f"of row {rowid} (its name unreadable)"
        return f"{row['repo']}#{row['number']}"

    def reply_recorded(self, key: str) -> bool:
        """Whether a reply was posted under this key (it may be deleted since)."""
        return bool(self.db.execute("SELECT 1 FROM pr_replies WHERE key = ?", (key,)))

    def notes_of(self, repo: str, number: int, numbers: list[int]) -> dict[int, tuple[str, ...]]:
        """The notes shown on each of these PRs of the repository of PR `number` of `repo`
        (those with none are left out). Found by that PR's repository id (its event
        marked its state with it): a PR whose state is still kept under an older name
        (renamed or transferred: it moves at the PR's own next event, `follow`), or set
        aside (`held_name`), counts; one kept under `repo` with another repository's id
        (the name reused) does not: it is another repository's PR of that number. Under
        both names, the state under `repo` is the PR's. No id known: by name alone."""
        if not numbers:
            return {}
        marks = ",".join("?" * len(numbers))
        name = repo.lower()
        rows = self.db.execute(
            "WITH own AS (SELECT repo_id AS id FROM pr_state WHERE repo = ? AND number = ?)"
            f" SELECT repo, number, notes FROM pr_state WHERE number IN ({marks})"
            " AND (repo_id = (SELECT id FROM own) OR (repo = ? AND (repo_id IS NULL"
            " OR (SELECT id FROM own) IS NULL))) ORDER BY repo = ?",  # this name's last: it wins
            (name, number, *numbers, name, name),
        )
        shown = {r["number"]: note_ids_of(r["notes"]) for r in rows}
        return {n: ids for n, ids in shown.items() if ids}

    def shown_counts(self, now: Callable[[str], str] = str) -> Counter[str]:
        """How many PRs' comments showed each note: the notes shown, those hidden with
        `/notes wrong`, and those a paused comment showed last (their evidence is kept).
        `now`: a stored id -> the note's id now (`Library.current_id`), once per PR."""
        counts: Counter[str] = Counter()
        for r in self.db.execute("SELECT notes, dismissed, evidence FROM pr_state"):
            shown = set(note_ids_of(r["notes"])) | set(note_ids_of(r["dismissed"]))
            counts.update({now(i) for i in shown | set(_evidence_read(r["evidence"])[0])})
        return counts

    def shown_evidence(self) -> list[tuple[str, int, str, tuple[str, ...]]]:
        """(repo, number, note id, the reasons shown for it) for each note each PR's
        comment shows."""
        rows = self.db.execute(
            "SELECT repo, number, evidence FROM pr_state WHERE evidence IS NOT NULL"
        )
        return [
            (r["repo"], r["number"], note_id, tuple(reasons))
            for r in rows
            for note_id, reasons in _evidence_read(r["evidence"])[0].items()
        ]

    def kept_under(self, repo: str, number: int, repo_id: int | None) -> str | None:
        """The other name PR `number` of repository `repo_id` is kept under now (an event
        under its new name moved it there), or None: kept under `repo`, not kept, set
        aside (`held_name`: its repository's name now is not known), or no id known (a
        payload without one: found by name alone)."""
        if repo_id is None:
            return None
        rows = self.db.execute(
            "SELECT repo FROM pr_state WHERE repo_id = ? AND number = ? ORDER BY updated_at DESC",
            (repo_id, number),
        )
        names = [r["repo"] for r in rows]
        if not names or repo.lower() in names or names[0] == held_name(repo_id):
            return None
        return names[0]

    def kept_for(self, repo: str, number: int) -> int | None:
        """The id of the repository whose PR `number` the state under `repo` is (None:
        no state, or not marked with one)."""
        rows = self.db.execute(
            "SELECT repo_id FROM pr_state WHERE repo = ? AND number = ?", (repo.lower(), number)
        )
        return rows[0]["repo_id"] if rows else None

    def must_follow(self, repo: str, number: int, repo_id: int) -> bool:
        """Whether `follow` has work: the PR's state is kept under another name of its
        repository, or is not yet marked with the repository's id."""
        rows = self.db.execute(
            "SELECT repo, repo_id FROM pr_state WHERE number = ? AND (repo = ? OR repo_id = ?)",
            (number, repo.lower(), repo_id),
        )
        return [(r["repo"], r["repo_id"]) for r in rows] != [(repo.lower(), repo_id)]

    def follow(self, conn: sqlite3.Connection, repo: str, number: int, repo_id: int) -> Moved:
        """In the caller's transaction: move the PR's state kept under other names of the
        repository `repo_id` (renamed or transferred since) to `repo`, and mark the state
        under `repo` with the id, a row with no state yet when there is none (so that
        what this event writes carries it). Ids are unique: no other repository's state
        moves in; a state under `repo` with another id is set aside under `held_name` of
        its id (`Moved.held`), whence it follows its own repository. The marks of
        `/notes wrong` (bot.feedback_store) are the caller's to move likewise."""
        new = repo.lower()
        # a row under this name with another id is a repository's that had the name
        # before (renamed away or deleted, a new one made with it): its PR of this number
        # is another PR, by other people, so none of it is this one's (its comment, read
        # as ours, got GitHub's 404 taken for a maintainer's deletion; its opt-out and
        # hidden notes were said by others). Nor is it to be lost: renamed away, that
        # repository's event under its new name may come later and finds it by its id.
        # Set aside before any move, which keeps the row written last
        other = conn.execute(
            "SELECT repo_id FROM pr_state WHERE repo = ? AND number = ? AND repo_id IS NOT NULL"
            " AND repo_id != ?",
            (new, number, repo_id),
        ).fetchone()
        held = held_name(other["repo_id"]) if other is not None else None
        if held is not None:
            _move_state(conn, new, held, number)
            conn.execute(
                "UPDATE pr_replies SET repo = ? WHERE repo = ? AND number = ?", (held, new, number)
            )
        rows = conn.execute(
            "SELECT repo FROM pr_state WHERE repo_id = ? AND number = ? AND repo != ?"
            " ORDER BY updated_at",
            (repo_id, number, new),
        ).fetchall()
        moved = Moved(new, number, tuple(r["repo"] for r in rows), held=held)
        for old in moved.old:
            kept, dropped = _move_state(conn, old, new, number)
            replies = conn.execute(
                "UPDATE pr_replies SET repo = ? WHERE repo = ? AND number = ?", (new, old, number)
            ).rowcount
            moved = replace(
                moved,
                states=moved.states + kept,
                dropped=moved.dropped + dropped,
                replies=moved.replies + replies,
            )
        conn.execute(
            "INSERT INTO pr_state (repo, number, updated_at, repo_id) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (repo, number) DO UPDATE SET repo_id = excluded.repo_id",
            (new, number, utcnow(), repo_id),
        )
        return moved

    def update(self, repo: str, number: int, **changes: Any) -> PRState:
        """Change some fields (e.g. `opted_out=True`) and return the new state."""
        with self.db.tx():
            state = replace(self.get(repo, number), **changes)
            self.put(state)
        return state

    def forget_event_owners(self) -> None:
        """At a server's start, in a transaction of its own: no PR's event time is known
        as one event's own any more (`event_by`). A release before it (a rollback) left
        it as it was while handling another event of that second, so a re-run would not
        take that real tie for one; once forgotten, a re-run after a restart reads the
        PR once more, the safe side. A damaged row (event_by comes after the file list,
        on the pages a failing disk most likely meets) is set aside, as retention's
        pruning sets it aside: it failed the start, and the other PRs' events with it.
        (Not in the start's other transaction: after SQLite found damage in a write
        transaction, its next writes fail too.)"""
        self.past_damage(
            self._forget_event_owners,
            lambda: f"SELECT rowid FROM pr_state WHERE {self.not_set_aside()}",
            (),
        )

    def _forget_event_owners(self) -> None:
        with self.db.tx() as conn:  # (the rows set aside left out before their column is read)
            conn.execute(
                f"UPDATE pr_state SET event_by = NULL WHERE {self.not_set_aside()}"
                " AND event_by IS NOT NULL"
            )

    def claim_for(self, conn: sqlite3.Connection, writer: Writer) -> int | None:
        """In the caller's transaction: record `writer` as the PR state's writer. A live
        server taking over a dry run's state drops it, the sticky comments' and the
        replies' records (their ids are the dry run's, not GitHub's: GitHub's 404 for one
        reads as a maintainer's deletion, an unchanged text posts nothing), and returns
        how many PRs it was about; else None (the caller drops the `/notes wrong` marks
        then too: they number a comment nobody saw). Raises LiveStateError, recording
        nothing, for a dry run on a live server's state. No record (a new file, or one
        from before this was kept): `writer` is recorded, nothing dropped."""
        rows = conn.execute("SELECT value FROM meta WHERE key = ?", (WRITER_KEY,)).fetchall()
        before = rows[0]["value"] if rows else None
        if before == writer:
            return None
        if before == Writer.LIVE:
            raise LiveStateError(WRITER_KEY)
        dropped = None
        if before == Writer.DRY_RUN:
            dropped = conn.execute(
                "SELECT COUNT(*) FROM (SELECT repo, number FROM pr_state"
                " UNION SELECT repo, number FROM pr_replies)"
            ).fetchone()[0]
            conn.execute("DELETE FROM pr_state")
            conn.execute("DELETE FROM pr_replies")
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (WRITER_KEY, writer.value)
        )
        return dropped


@dataclass(frozen=True)
class Moved:
    """A PR's state moved to its repository's current name (`PRStore.follow`)."""

    new: str  # the name it is kept under now
    number: int
    old: tuple[str, ...] = ()  # the names it was kept under, oldest state first
    states: int = 0  # pr_state rows moved
    dropped: int = 0  # rows of either name dropped: both had one, the older one goes
    replies: int = 0  # pr_replies rows moved
    # the state under `new` was another repository's: set aside under this name
    held: str | None = None


def held_name(repo_id: int) -> str:
    """Where a PR's state waits whose repository's name another repository took (its own
    name now not known): no repository's name (those are `owner/name`), found by its id."""
    return f"repository id {repo_id}"


def _move_state(conn: sqlite3.Connection, old: str, new: str, number: int) -> tuple[int, int]:
    """Move the PR's row from `old` to `new` (rows moved, rows dropped). When `new` has
    one too (written before the upgrade, or by an event under that name still running
    when the state moved away), the one written last is the PR's state, the other goes."""
    written = {
        r["repo"]: r["updated_at"]
        for r in conn.execute(
            "SELECT repo, updated_at FROM pr_state WHERE number = ? AND repo IN (?, ?)",
            (number, old, new),
        )
    }
    both = new in written
    take = not both or written[old] > written[new]
    gone = new if take else old
    if both:
        conn.execute("DELETE FROM pr_state WHERE repo = ? AND number = ?", (gone, number))
    if take:
        conn.execute(
            "UPDATE pr_state SET repo = ? WHERE repo = ? AND number = ?", (new, old, number)
        )
    return int(take), int(both)


def _pending(data: dict[str, Any] | None) -> PendingUpdate | None:
    """An owed update from its stored JSON, parsed (None: none owed)."""
    if data is None:
        return None
    return PendingUpdate(
        tuple(data.get("acks") or ()),
        bool(data.get("show")),
        tuple(data.get("diff_acks") or ()),
        data.get("said"),  # None: written before it was kept, taken as the newest
    )


# a value's JSON shape, as said of one that is not the shape the server keeps
_JSON_SHAPES: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
_JSON_SHAPES |= {int: "a number", float: "a number", bool: "true or false"}


def json_shape(value: object) -> str:
    """What a JSON value read is, as said (None, or no text at all: "null or not text")."""
    return _JSON_SHAPES.get(type(value), "null or not text")


def _is_comment_id(value: object) -> bool:
    return type(value) is int and value > 0  # (a bool is an int to Python)


class _Unread:
    """A value SQLite could not read at all (salvage: on a damaged page): `UNREAD`."""

    def __repr__(self) -> str:
        return "UNREAD"


# in a row given `read_values`, a value that did not read: read as one that does not
# parse, so that it is stood in for as the server stands in for one (`STOOD_IN`)
UNREAD = _Unread()
# the values that did not read whose stand-in is not what NULL or their default reads as:
# the notes shown (from their reasons, the comment written again), the notes hidden (from
# the standing marks), the update owed to commands (still owed while the file's queue holds
# an update of the PR to make: bot.salvage; else none, as a PR's state mostly holds). (Not
# `evidence`: nothing stands in for reasons, matched afresh at the next update; NULL reads
# as none kept, the notes then taken as none should `notes` not read either)
STOOD_IN = {("pr_state", c) for c in ("notes", "dismissed", "pending")}


def _json_of(stored: object) -> tuple[object, str | None]:
    """`stored` parsed as JSON, or why it is not JSON (a BLOB, no text: read as null)."""
    if stored is UNREAD:
        return None, "unreadable"
    try:
        return (json.loads(stored) if isinstance(stored, str) else None), None
    except ValueError as exc:
        return None, f"not JSON ({exc})"


# what a comment given back whose id is lost may come to, said when one is
GIVEN_BACK_LOST = (
    "a comment given back whose id is lost may be taken for ours should our notes text"
    " be pasted back onto it"
)


def given_back_of(stored: object) -> tuple[tuple[int, ...], str | None]:
    """pr_state.given_back as the server reads it (a JSON list of comment ids; NULL or
    empty: none): the ids that read, and why not all of it did (None: all did). Not JSON
    or not a list: none; a list keeps its comment ids (salvage reads it so too)."""
    if stored is None or stored == "":
        return (), None
    data, not_json = _json_of(stored)
    if not_json is not None:
        return (), f"{not_json}: emptied ({GIVEN_BACK_LOST})"
    if not isinstance(data, list):
        return (), f"not a list of comment ids ({json_shape(data)}): emptied ({GIVEN_BACK_LOST})"
    ids = tuple(i for i in data if _is_comment_id(i))
    if len(ids) == len(data):
        return ids, None
    return ids, (
        f"{len(data) - len(ids)} of its {len(data)} entries are no comment id: dropped,"
        f" {len(ids)} kept ({GIVEN_BACK_LOST})"
    )


# what a write-back that does not read whole comes to, said when one does not
NO_WRITE_BACK = (
    "no words owed back (a debt read in part could write older words, or write over a"
    " person's own edit on a guess)"
)


def write_back_of(stored: object) -> tuple[WriteBack | None, str | None]:
    """pr_state.write_back as the server reads it (a JSON object: comment, text, and the
    order key `at`, `over`, `over_at`, `tried`, `tried_at`, each a text or null, and
    `tried_before`, a list of [text, time] pairs; NULL: none owed), and why it did not
    read (None: it did). It reads whole or not at all: none owed is the safe side of a
    debt written over what a comment shows (bot.write_backs). A key the server does not
    know (a newer release's) is left unread."""
    if stored is None:
        return None, None
    data, not_json = _json_of(stored)
    if not_json is not None:
        return None, f"{not_json}: {NO_WRITE_BACK}"
    if not isinstance(data, dict):
        return None, f"not an object ({json_shape(data)}): {NO_WRITE_BACK}"
    wrong = _write_back_wrong(data)
    if wrong is not None:
        return None, f"{wrong}: {NO_WRITE_BACK}"
    history = WriteBackHistory(
        data.get("over"),
        data.get("over_at"),
        data.get("tried"),
        data.get("tried_at"),
        tuple((text, at) for text, at in data.get("tried_before") or ()),
    )
    return WriteBack(data["comment"], data["text"], data.get("at"), history), None


def _write_back_wrong(data: dict[str, object]) -> str | None:
    """Which key of a stored write-back is not as the server writes it (None: none)."""
    if "comment" not in data or "text" not in data:
        return f"{'comment' if 'comment' not in data else 'text'}: missing"
    if not _is_comment_id(data["comment"]):
        return f"comment: no comment id ({json_shape(data['comment'])})"
    for key in ("text", "at", "over", "over_at", "tried", "tried_at"):
        value = data.get(key)
        if not (isinstance(value, str) or (value is None and key != "text")):
            return f"{key}: not a text ({json_shape(value)})"
    return _tries_wrong(data.get("tried_before"))


def _tries_wrong(tries: object) -> str | None:
    """What is wrong with a write-back's `tried_before` (None: nothing; a list of
    [text, time] pairs, or null)."""
    if tries is None:
        return None
    if not isinstance(tries, list):
        return f"tried_before: not a list ({json_shape(tries)})"
    for pair in tries:
        if not (_is_texts(pair) and len(pair) == 2):
            return f"tried_before: not a [text, time] pair ({json_shape(pair)})"
    return None


def _stored_write_back(owed: WriteBack | None) -> str | None:
    """`write_back` as stored (`write_back_of` reads it)."""
    if owed is None:
        return None
    kept: dict[str, object] = {"comment": owed.comment_id, "text": owed.text, "at": owed.at}
    history = owed.history  # (flat beside the rest, each key only when known: a release
    # before it reads the rest as ever)
    if history.over is not None:
        kept["over"] = history.over
    if history.over_at is not None:
        kept["over_at"] = history.over_at
    if history.tried is not None:
        kept["tried"] = history.tried
    if history.tried_at is not None:
        kept["tried_at"] = history.tried_at
    if history.tried_before:
        kept["tried_before"] = [list(pair) for pair in history.tried_before]
    return json.dumps(kept)


# what the standing `/notes wrong` marks of a PR are (bot.feedback_store's table, in the
# same file): a hidden-notes list that does not read is taken from them
STANDING_MARKS = (
    "SELECT note_id FROM feedback WHERE repo = ? AND number = ? AND withdrawn_at IS NULL"
    " ORDER BY rowid"
)
# The cached file list and what its diff shows, kept and forgotten together (as retention
# forgets them, PRStore.prune_files): one that does not read drops them all
FILE_LIST = (
    "files",
    "files_sha",
    "files_listed",
    "files_base",
    "code_names",
    "incidental",
    "renamed",
)
FILE_LIST_LOST = (
    "the PR's file list dropped, with what its diff shows: listed again at its next event"
)
NOTES_LOST = (
    "the notes shown taken from the reasons kept for them (none while paused), and the"
    " comment written again at the PR's next update, which keeps those it shows"
)
PENDING_LOST = (
    "an update is still owed to commands, taken as said before every command known (what"
    " the last of them showed stands, else a PR event's rules make it); the `+1`s they"
    " were owed are not given (which comments is not known)"
)
# the stand-in's order key: before every key (bot.order_keys), as what its commands said
# and when is not known. Not None, which is taken as the newest: on an opted-out PR it
# said `off`'s "show nothing" over a later `/notes`, and cut its notes to the paused line
OWED_UNKNOWN = PendingUpdate(said="")
DISMISSED_LOST = "the notes hidden taken from the PR's standing `/notes wrong` marks"
# with those marks damaged too: none hidden, as showing a note a reviewer hid is wrong but
# seen (and marked again), where hiding notes on a guess would hide them unseen
DISMISSED_UNMARKED = (
    "the notes hidden taken as none: the PR's standing `/notes wrong` marks do not read"
    " either (SQLite finds them damaged), so the notes they hid show again until marked"
    " again"
)
EVIDENCE_LOST = (
    "no reasons kept for those notes until the PR's next update (a `wrong` mark made before"
    " it keeps none)"
)


# The shapes below check a parsed JSON value by its elements' types, counted in C
# (`set(map(type, ...))`): a JSON string parses to a str, never a subclass of one, so
# it is `isinstance` (a check of each element in Python was most of what reading a big
# PR's state cost: bench/bench_prstate_read.py).


def _is_texts(data: object) -> bool:
    return isinstance(data, list) and set(map(type, data)) <= {str}


def _is_names(data: object) -> bool:
    """A code name -> the files naming it (`code_names`)."""
    if not isinstance(data, dict) or not set(map(type, data.values())) <= {list}:
        return False
    return set(map(type, chain.from_iterable(data.values()))) <= {str}


def _is_renames(data: object) -> bool:
    return isinstance(data, dict) and set(map(type, data.values())) <= {str}


def _whole(
    stored: object, shape: Callable[[object], bool], said: str, *, null: bool = True
) -> tuple[Any, str | None]:
    """`stored` (JSON; NULL: none, when `null`) parsed, and why it does not read as `said`
    (None: it does). What does not read gives None for its parsed value, never a part."""
    if stored is None and null:
        return None, None
    data, not_json = _json_of(stored)
    if not_json is not None:
        return None, not_json
    return (data, None) if shape(data) else (None, f"not {said} ({json_shape(data)})")


def note_ids_of(stored: object) -> tuple[str, ...]:
    """A list of note ids as stored (`notes`, `dismissed`), or none when it does not read
    (for the readers of many PRs' lists: the PR's own reading, `PRStore.get`, says it)."""
    data, wrong = _whole(stored, _is_texts, "a list of note ids")
    return () if data is None or wrong is not None else tuple(data)


def _pending_read(stored: object) -> tuple[Any, str | None]:
    """A stored PendingUpdate parsed (None: none owed), and why it does not read whole
    (None: it does)."""
    if stored is None:
        return None, None
    data, not_json = _json_of(stored)
    if not_json is not None:
        return None, not_json
    wrong = _pending_wrong(data)
    return (data, None) if wrong is None else (None, wrong)


def _pending_wrong(data: object) -> str | None:
    """Why a parsed PendingUpdate does not read whole (None: it does)."""
    if not isinstance(data, dict):
        return f"not an object ({json_shape(data)})"
    for key in ("acks", "diff_acks"):
        ids = data.get(key) or []
        if not (isinstance(ids, list) and all(_is_comment_id(i) for i in ids)):
            return f"{key}: not a list of comment ids"
    if not isinstance(data.get("show", False), bool):
        return f"show: not true or false ({json_shape(data.get('show'))})"
    said = data.get("said")  # (None: kept before it was)
    if said is not None and not isinstance(said, str):
        return f"said: not a text ({json_shape(said)})"
    return None


def _evidence_read(stored: object) -> tuple[dict[str, list[str]], str | None]:
    """`evidence` (note id -> the reasons shown): the entries that read, and why not all."""
    if stored is None:
        return {}, None
    data, not_json = _json_of(stored)
    if not_json is not None:
        return {}, f"{not_json}: emptied ({EVIDENCE_LOST})"
    if not isinstance(data, dict):
        return {}, f"not an object of reasons ({json_shape(data)}): emptied ({EVIDENCE_LOST})"
    kept = {k: v for k, v in data.items() if _is_texts(v)}
    if len(kept) == len(data):
        return kept, None
    return kept, (
        f"{len(data) - len(kept)} of its {len(data)} entries are no list of reasons: dropped,"
        f" {len(kept)} kept ({EVIDENCE_LOST})"
    )


# the JSON values of the file list, each with its shape, as said of one that is not it
_FILE_VALUES: dict[str, tuple[Callable[[object], bool], str]] = {
    "files": (_is_texts, "a list of paths"),
    "code_names": (_is_names, "an object of names"),
    "incidental": (_is_texts, "a list of paths"),
    "renamed": (_is_renames, "an object of paths"),
}


@dataclass(frozen=True)
class ValuesRead:
    """A pr_state row as the server reads it (`read_values`): `stored`, the row with each
    JSON value that does not read replaced by its stand-in in the form `PRStore.put` stores
    it; `parsed`, each JSON value of the row as read (parsed once; None: NULL, or the file
    list dropped), stand-ins included; `why`, what did not read and why, by column."""

    stored: dict[str, Any]
    parsed: dict[str, Any]
    why: list[tuple[str, str]]


def read_values(row: Mapping[str, object], marks: Callable[[], list[str] | None]) -> ValuesRead:
    """A pr_state row's JSON values as the server reads them: each that does not read
    (damaged text SQLite reads as any text) replaced by what the server takes in its
    place, in the form `PRStore.put` stores it (so salvage copies what the server reads),
    and why, by column. Columns not in `row` are left out; one that did not read at all
    is UNREAD (salvage: on a damaged page), stood in for as one that does not parse. `marks`:
    the PR's standing `/notes wrong` marks (STANDING_MARKS; None: they do not read either,
    and none are taken: DISMISSED_UNMARKED). Each column's reading is the one that writes
    nothing wrong to GitHub (docs/internals.md). Every value is parsed once, both to
    check it and to read it (`PRStore.get` reads a PR's state at every event)."""
    got: dict[str, Any] = dict(row)
    parsed: dict[str, Any] = {}
    why: list[tuple[str, str]] = []
    if "evidence" in row:
        evidence, wrong = _evidence_read(row["evidence"])
        parsed["evidence"] = evidence
        if wrong is not None:
            got["evidence"] = json.dumps(evidence, ensure_ascii=False)
            why.append(("evidence", wrong))
    if "notes" in row:
        parsed["notes"], notes = _whole(row["notes"], _is_texts, "a list of note ids", null=False)
        if notes:
            # whole or not at all: `wrong N` numbers it (a list read in part hides another
            # note); the reasons kept are of the notes the same update showed, in order
            paused = got.get("paused") is not None
            shown = [] if paused else list(parsed.get("evidence") or {})
            got["notes"] = json.dumps(shown)
            parsed["notes"] = shown
            why.append(("notes", f"{notes}: {NOTES_LOST}"))
            if "body_hash" in row:  # not trusted to skip the write that puts them back
                got["body_hash"] = None
    for column, (shape, said) in _FILE_VALUES.items():
        if column in row:
            parsed[column], wrong = _whole(row[column], shape, said)
            if wrong:
                why.append((column, f"{wrong}: {FILE_LIST_LOST}"))
    if any(c in _FILE_VALUES for c, _ in why):
        got.update({c: None for c in FILE_LIST if c in row})
        parsed.update({c: None for c in _FILE_VALUES if c in row})
    if "pending" in row:
        parsed["pending"], wrong = _pending_read(row["pending"])
        if wrong:
            parsed["pending"] = asdict(OWED_UNKNOWN)
            got["pending"] = json.dumps(parsed["pending"])
            why.append(("pending", f"{wrong}: {PENDING_LOST}"))
    if "dismissed" in row:
        parsed["dismissed"], wrong = _whole(row["dismissed"], _is_texts, "a list of note ids")
        if wrong:
            standing = marks()
            parsed["dismissed"] = standing or []
            got["dismissed"] = json.dumps(parsed["dismissed"])
            lost = DISMISSED_LOST if standing is not None else DISMISSED_UNMARKED
            why.append(("dismissed", f"{wrong}: {lost}"))
    if "given_back" in row:
        ids, wrong = given_back_of(row["given_back"])
        parsed["given_back"] = ids
        if wrong is not None:
            got["given_back"] = json.dumps(list(ids)) if ids else None  # (none: NULL)
            why.append(("given_back", wrong))
    if "write_back" in row:
        parsed["write_back"], wrong = write_back_of(row["write_back"])
        if wrong is not None:
            got["write_back"] = None
            why.append(("write_back", wrong))
    return ValuesRead(got, parsed, why)

"""A PR's state whose `given_back` or `write_back` value does not read (damaged text
where the server keeps JSON) is read around: what reads is kept, the rest of the row
read, what was dropped said once (bot.prstate `PRStore.get`)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from bot.db import Database
from bot.feedback import Mark
from bot.feedback_store import FeedbackStore
from bot.markdown_safety import link_target
from bot.markers import REPLY_MARKER, SIGNATURE_OPENING, signed_text
from bot.prstate import PendingUpdate, PRState, PRStore, WriteBack, WriteBackHistory
from tests.command_kit import AUTHOR, N, comment_payload, edit, replies, say, sticky, tune
from tests.damage_kit import damage_root_page
from tests.fake_github import DEFAULT_REPO, DEFAULT_REPO_ID
from tests.test_comment_rewrites import rewritten
from tests.test_deletion_events import served  # noqa: F401 (a fixture)
from tests.test_rollback import old_release
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    SECRET,
    clean_env,
    deliver_pr,
    drain,
    labeled_one_more_note,
    live_settings,
    ours,
    post,
    serving,
    title_with_one_more_note,
)

# the release before the earlier failed write-backs were kept (`WriteBackHistory.tried_before`)
BEFORE_EARLIER_TRIES = "3896752"

OWED = WriteBack(
    10, "their words", "2026-09-01T10:00:00Z/~", WriteBackHistory("wrote", "2026-09-01T10:00:03Z")
)


@pytest.fixture
def prs(tmp_path):
    db = Database(tmp_path / "p.sqlite3")
    store = PRStore(db)
    first = PRState("o/r", 1, comment_id=10, opted_out=True, given_back=(41, 42), write_back=OWED)
    store.put(first)
    store.put(PRState("o/r", 2, comment_id=20, given_back=(43,), write_back=OWED))
    yield store
    db.close()


def said(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.prstate"]


# kills: bot/prstate.py:PRStore.get a damaged given_back fails the PR's every read
# kills: bot/prstate.py:given_back_of a list read in part taken whole, or emptied
@pytest.mark.parametrize(
    ("stored", "kept", "why"),
    [
        ("[41, 42", (), "not JSON"),
        ('{"41": true}', (), "not a list of comment ids (an object)"),
        ('[41, "x", 42, null, true, -3, 4.5]', (41, 42), "5 of its 7 entries are no comment id"),
        ('"41"', (), "not a list of comment ids (a string)"),
        ("[1, 0]", (1,), "1 of its 2 entries are no comment id: dropped, 1 kept"),
    ],
    ids=["not JSON", "an object", "a list in part", "a string", "no comment 0"],
)
def test_a_given_back_that_does_not_read_is_read_around_and_said_once(
    prs, caplog, stored, kept, why
):
    """SQLite reads a damaged value as any text: the server failed to read the whole row
    (its comment's id, its opt-out), so every event of the PR failed, each retry too."""
    prs.db.execute("UPDATE pr_state SET given_back = ? WHERE number = 1", (stored,))
    caplog.set_level(logging.WARNING)
    got = prs.get("o/r", 1)
    assert (got.comment_id, got.opted_out, got.write_back, got.given_back) == (10, True, OWED, kept)
    [line] = said(caplog)
    assert line.startswith("PR o/r#1: its given_back does not read: "), line
    assert why in line and stored not in line, line  # (its text is not logged: theirs)
    prs.get("o/r", 1)
    assert len(said(caplog)) == 1  # said once, not at each read
    assert prs.get("o/r", 2).given_back == (43,)
    prs.update("o/r", 1, verbose=True)  # the next write keeps what read
    assert prs.get("o/r", 1).given_back == kept and len(said(caplog)) == 1


# kills: bot/prstate.py:PRStore.get a damaged write_back fails the PR's every read
# kills: bot/prstate.py:write_back_of a write-back read in part kept owed
@pytest.mark.parametrize(
    ("stored", "why"),
    [
        ('{"comment": 10, "text": "their', "not JSON"),
        ('[10, "their words"]', "not an object (a list)"),
        ('{"comment": "10", "text": "their words"}', "comment: no comment id (a string)"),
        ('{"comment": true, "text": "their words"}', "comment: no comment id (true or false)"),
        ('{"comment": 10}', "text: missing"),
        ('{"comment": 10, "text": 5}', "text: not a text (a number)"),
        ('{"comment": 10, "text": "w", "at": 7}', "at: not a text (a number)"),
        ('{"comment": 10, "text": "w", "over": "x", "over_at": [1]}', "over_at: not a text"),
        ('{"comment": 10, "text": "w", "over": {}}', "over: not a text (an object)"),
        ('{"comment": 10, "text": "w", "tried": "x", "tried_at": 3}', "tried_at: not a text"),
        ('{"comment": 10, "text": "w", "tried": ["x"]}', "tried: not a text (a list)"),
        ('{"comment": 10, "text": "w", "tried_before": "x"}', "tried_before: not a list"),
        ('{"comment": 10, "text": "w", "tried_before": [["x", 3]]}', "not a [text, time] pair"),
        ('{"comment": 10, "text": "w", "tried_before": [["x"]]}', "not a [text, time] pair"),
    ],
)
def test_a_write_back_that_does_not_read_is_dropped_whole_and_said(prs, caplog, stored, why):
    """Words owed back onto our comment are written over what it shows: a debt read in
    part could write older words (its `at` lost), or write over a person's undo (its
    `over_at` lost: told by the text alone). None owed is the safe side: nothing of a
    person's is written over on a guess; the comment shows our text, which a
    maintainer can edit. The rest of the row reads."""
    prs.db.execute("UPDATE pr_state SET write_back = ? WHERE number = 1", (stored,))
    caplog.set_level(logging.WARNING)
    got = prs.get("o/r", 1)
    assert (got.comment_id, got.opted_out, got.given_back, got.write_back) == (
        10,
        True,
        (41, 42),
        None,
    )
    [line] = said(caplog)
    assert line.startswith("PR o/r#1: its write_back does not read: "), line
    assert why in line and "no words owed back" in line, line
    assert "their" not in line  # (a person's words are not logged)
    assert prs.get("o/r", 2).write_back == OWED


def test_a_write_back_kept_by_an_older_release_or_a_newer_one_reads(prs, caplog):
    """Not damage: a state kept before `over`, `over_at`, `tried` or `tried_at` has none
    (read as not known: no call failed), and a key a newer release adds is left unread."""
    caplog.set_level(logging.WARNING)
    older = '{"comment": 10, "text": "w", "at": null}'
    newer = (
        '{"comment": 10, "text": "w", "at": "k", "over": "x", "over_at": "t",'
        ' "tried": "y", "tried_at": "u", "more": 1}'
    )
    prs.db.execute("UPDATE pr_state SET write_back = ? WHERE number = 1", (older,))
    assert prs.get("o/r", 1).write_back == WriteBack(10, "w")
    prs.db.execute("UPDATE pr_state SET write_back = ? WHERE number = 1", (newer,))
    assert prs.get("o/r", 1).write_back == WriteBack(
        10, "w", "k", WriteBackHistory("x", "t", "y", "u")
    )
    assert said(caplog) == []


# kills: bot/prstate.py:_stored_write_back the words a failed write-back sent, or when, not kept
def test_a_write_back_tried_is_kept_as_it_reads(prs):
    tried = WriteBack(
        10, "w", "k", WriteBackHistory(tried="x", tried_at="2026-12-07T08:00:00.000000Z")
    )
    prs.update("o/r", 1, write_back=tried)
    assert prs.get("o/r", 1).write_back == tried
    stored = prs.db.execute("SELECT write_back FROM pr_state WHERE number = 1")[0][0]
    assert json.loads(stored) == {
        "comment": 10,
        "text": "w",
        "at": "k",
        "tried": "x",
        "tried_at": "2026-12-07T08:00:00.000000Z",
    }  # (no key for what is not known: a release before it reads it as ever)


# kills: bot/prstate.py:_stored_write_back the failed calls before the last one not kept
# kills: bot/prstate.py:write_back_of the failed calls before the last one not read
def test_the_failed_write_backs_before_the_last_are_kept_as_they_read(prs):
    before = (("x", "2026-12-07T08:00:00.000000Z"), ("y", "2026-12-07T08:05:00.000000Z"))
    last = WriteBackHistory(tried="z", tried_at="2026-12-07T08:09:00.000000Z", tried_before=before)
    tried = WriteBack(10, "w", "k", last)
    prs.update("o/r", 1, write_back=tried)
    assert prs.get("o/r", 1).write_back == tried
    stored = prs.db.execute("SELECT write_back FROM pr_state WHERE number = 1")[0][0]
    assert json.loads(stored)["tried_before"] == [list(pair) for pair in before]
    assert json.loads(stored)["tried"] == "z"  # the last, where a release before reads it


# kills: bot/prstate.py:_stored_write_back the failed calls before the last one kept so that
#        the release before them cannot read the row (its words owed dropped as damaged)
def test_the_release_before_the_earlier_tries_reads_the_row_with_its_last_try(prs, tmp_path):
    """Rolled back, the release before `tried_before` leaves it unread (docs/upgrading.md):
    the row reads, owed, with the last failed call's words and time."""
    before = (("x", "2026-12-07T08:00:00.000000Z"),)
    prs.update(
        "o/r", 1, write_back=WriteBack(10, "w", "k", WriteBackHistory(None, None, "z", "t", before))
    )
    stored = prs.db.execute("SELECT write_back FROM pr_state WHERE number = 1")[0][0]
    reads = (
        "import sys; from bot.prstate import write_back_of;"
        " owed, wrong = write_back_of(sys.argv[1]); print(repr((wrong, owed)))"
    )
    old = old_release(tmp_path, BEFORE_EARLIER_TRIES)
    out = subprocess.run(
        [sys.executable, "-c", reads, stored],
        env={"PYTHONPATH": str(old)},
        cwd=old,  # (not this tree: `-c` reads modules from its directory first)
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == (
        "(None, WriteBack(comment_id=10, text='w', at='k', over=None, over_at=None,"
        " tried='z', tried_at='t'))"
    )


# kills: bot/prstate.py:PRStore.get the PR's event fails on a damaged value
def test_a_prs_event_runs_past_its_damaged_values_and_edits_its_comment_in_place(
    served,  # noqa: F811
    caplog,
):
    """End to end: a PR's state with both values damaged. Its next event read nothing of
    it and failed (each retry too); it now edits the comment it knows, and writes the
    state back with what read."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    before = c.body
    rt.ctx.prs.db.execute(
        "UPDATE pr_state SET given_back = '[41, ', write_back = '{\"comment\": 9'"
    )
    caplog.set_level(logging.WARNING)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:09Z"))
    assert rt.queue.counts()["failed"] == 0
    assert [x.id for x in ours(fake)] == [c.id] and c.body != before
    kept = rt.ctx.prs.db.execute("SELECT given_back, write_back FROM pr_state")
    assert [tuple(r) for r in kept] == [(None, None)]
    assert sorted(line.split(":")[:2] for line in said(caplog)) == [
        [f"PR {DEFAULT_REPO}#{N}", " its given_back does not read"],
        [f"PR {DEFAULT_REPO}#{N}", " its write_back does not read"],
    ]


SHOWN = {"n-a": ("path a.py",), "n-b": ("word b",)}


@pytest.fixture
def state(tmp_path):
    """PR o/r#1 with every JSON value the server keeps, and a mark of `/notes wrong`."""
    db = Database(tmp_path / "s.sqlite3")
    store = PRStore(db)
    FeedbackStore(db).record(Mark("o/r", 1, "n-hid", 1, "rev"))
    store.put(
        PRState(
            "o/r",
            1,
            comment_id=10,
            body_hash="h",
            opted_out=True,
            notes=("n-a", "n-b"),
            files_sha="s1",
            files=("a.py", "b.py"),
            files_listed=2,
            files_base="main",
            code_names={"f": ("a.py",)},
            incidental=frozenset({"b.py"}),
            renamed={"o.py": "a.py"},
            pending=PendingUpdate((5,), True, (6,), "k"),
            dismissed=("n-hid",),
            evidence=SHOWN,
        )
    )
    yield store
    db.close()


NO_FILES = dict(
    files=None,
    files_sha=None,
    files_listed=None,
    files_base=None,
    code_names={},
    incidental=frozenset(),
    renamed={},
)


# kills: bot/prstate.py:PRStore.get a damaged JSON value fails the PR's every read
# kills: bot/prstate.py:read_values a value that does not read taken for another reading
@pytest.mark.parametrize(
    ("column", "stored", "taken", "why"),
    [
        ("notes", '["n-a", "n-', dict(notes=("n-a", "n-b"), body_hash=None), "not JSON"),
        ("notes", '["n-a", 2]', dict(notes=("n-a", "n-b"), body_hash=None), "a list"),
        ("notes", "[]x", dict(notes=("n-a", "n-b"), body_hash=None), "reasons kept"),
        ("files", '{"a.py": 1}', NO_FILES, "not a list of paths (an object)"),
        ("code_names", '{"f": "a.py"}', NO_FILES, "not an object of names"),
        ("incidental", "[b.py]", NO_FILES, "listed again at its next event"),
        ("renamed", '{"o.py": null}', NO_FILES, "not an object of paths"),
        ("pending", '{"acks": [5, "x"]}', dict(pending=PendingUpdate(said="")), "acks: not a list"),
        ("pending", '{"show": "yes"}', dict(pending=PendingUpdate(said="")), "the `+1`s"),
        ("pending", "[5]", dict(pending=PendingUpdate(said="")), "not an object (a list)"),
        ("dismissed", '["n-hid"', dict(dismissed=("n-hid",)), "standing `/notes wrong` marks"),
        (
            "evidence",
            '{"n-a": ["path a.py"], "n-b": 3}',
            dict(evidence={"n-a": ("path a.py",)}),
            "1 of its 2 entries are no list of reasons",
        ),
        ("evidence", "{", dict(evidence={}, notes=("n-a", "n-b")), "emptied"),
    ],
)
def test_a_json_value_that_does_not_read_is_read_around_and_said_once(
    state, caplog, column, stored, taken, why
):
    """Each value is read as what writes nothing wrong to GitHub: the notes shown are
    those the reasons were kept for, and the comment is written again (a `wrong N`
    numbers them: a list read in part would hide another note); the file list is dropped
    whole and listed again; an update is still owed, without the `+1`s; the notes hidden
    are the PR's standing marks; the reasons keep the entries that read."""
    state.db.execute(f"UPDATE pr_state SET {column} = ? WHERE number = 1", (stored,))
    caplog.set_level(logging.WARNING)
    got = state.get("o/r", 1)
    assert (got.comment_id, got.opted_out) == (10, True)
    assert {k: getattr(got, k) for k in taken} == taken
    [line] = said(caplog)
    assert line.startswith(f"PR o/r#1: its {column} does not read: "), line
    assert why in line and stored not in line, line
    state.get("o/r", 1)
    assert len(said(caplog)) == 1  # said once a start
    assert state.read_around == [("o/r#1", column)]
    state.update("o/r", 1, verbose=True)  # the next write keeps what read
    assert {k: getattr(state.get("o/r", 1), k) for k in taken} == taken
    assert len(said(caplog)) == 1


def test_notes_that_do_not_read_on_a_paused_comment_are_none(state, caplog):
    """A paused comment's reasons are those it showed before the pause: not what it shows."""
    state.db.execute("UPDATE pr_state SET notes = 'x', paused = 'command' WHERE number = 1")
    caplog.set_level(logging.WARNING)
    got = state.get("o/r", 1)
    assert (got.notes, got.body_hash, got.paused) == ((), None, "command")


def test_values_kept_by_an_older_release_read_as_ever(state, caplog):
    """Not damage: NULL where a release before a column kept none, and a pending update
    kept before its order key (`said`)."""
    caplog.set_level(logging.WARNING)
    state.db.execute(
        "UPDATE pr_state SET code_names = NULL, incidental = NULL, renamed = NULL,"
        ' dismissed = NULL, evidence = NULL, pending = \'{"acks": [5], "show": true}\''
    )
    got = state.get("o/r", 1)
    assert got.pending == PendingUpdate((5,), True) and got.files == ("a.py", "b.py")
    assert said(caplog) == [] and state.read_around == []


def test_the_readers_of_many_prs_read_around_a_damaged_value(state):
    """Another PR's notes (the related PRs a comment names) and the pages' counts: a
    damaged value reads as none, and fails neither another PR's event nor a page."""
    state.put(PRState("o/r", 2, notes=("n-c",), evidence={"n-c": ("x",)}))
    state.db.execute(
        "UPDATE pr_state SET notes = '[', dismissed = '{', evidence = '[' WHERE number = 1"
    )
    assert state.notes_of("o/r", 2, [1, 2]) == {2: ("n-c",)}
    assert state.shown_counts() == {"n-c": 1}
    assert state.shown_evidence() == [("o/r", 2, "n-c", ("x",))]


# kills: bot/prstate.py:PRStore.get the PR's event fails on a damaged JSON value
def test_a_prs_event_runs_past_every_damaged_json_value_and_edits_its_comment(
    served,  # noqa: F811
    caplog,
):
    """End to end: every JSON value of a PR's state damaged. Its next event read nothing
    of it and failed (each retry too); it now lists the files again, edits the comment
    it knows (no second one), and writes the state back as it read."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    c = sticky(fake)
    before = c.body
    damaged = ("notes", "files", "code_names", "pending", "dismissed", "evidence")
    rt.ctx.prs.db.execute(
        "UPDATE pr_state SET " + ", ".join(f"{column} = '[x'" for column in damaged)
    )
    caplog.set_level(logging.WARNING)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:09Z"))
    assert rt.queue.counts()["failed"] == 0
    assert [x.id for x in ours(fake)] == [c.id] and c.body != before
    got = rt.ctx.prs.get(DEFAULT_REPO, N)
    assert len(got.notes) == 2 and set(got.evidence) == set(got.notes) and got.files
    assert sorted(line.split(":")[1] for line in said(caplog)) == sorted(
        f" its {column} does not read" for column in damaged
    )


# kills: bot/server.py:_operator_routes.healthz a value read around not shown (salvage due unseen)
def test_a_value_read_around_shows_in_healthz_and_metrics_without_failing(
    served,  # noqa: F811
):
    """The PR works, so /healthz stays 200 `ok`; but the file may be damaged, and the log
    line was the only sign: /healthz lists the value, /metrics counts it."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    rt.ctx.prs.db.execute("UPDATE pr_state SET notes = '[x', dismissed = '{'")
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:09Z"))
    health = client.get("/healthz")
    assert (health.status_code, health.json()["status"]) == (200, "ok")
    assert health.json()["values_read_around"] == [
        {"pr": f"{DEFAULT_REPO}#{N}", "value": "dismissed"},
        {"pr": f"{DEFAULT_REPO}#{N}", "value": "notes"},
    ]
    assert "\nreview_notes_pr_values_read_around 2.0\n" in client.get("/metrics").text


# kills: bot/prstate.py:PRStore.get each JSON value parsed to check it, then again to read it
def test_each_json_value_of_a_prs_state_is_parsed_once_a_read(state, monkeypatch):
    """Reading around costs no second parse (a PR's state is read at every event, and a
    big one holds thousands of paths: bench/bench_prstate_read.py): every JSON value the
    row holds is parsed once, and reads as it was put."""
    state.update("o/r", 1, write_back=OWED, given_back=(41, 42))
    put = state.get("o/r", 1)
    parsed: list[str] = []
    loads = json.loads

    def counted(text, *args, **kwargs):
        parsed.append(text)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted)
    assert state.get("o/r", 1) == put
    [row] = state.db.execute("SELECT * FROM pr_state WHERE number = 1")
    values = [row[c] for c in JSON_COLUMNS if row[c] is not None]
    assert len(values) == len(JSON_COLUMNS)  # (each is read)
    assert sorted(parsed) == sorted(values)


# the JSON values of pr_state (bot.prstate `read_values` reads each around)
JSON_COLUMNS = (
    "notes",
    "files",
    "code_names",
    "incidental",
    "renamed",
    "pending",
    "dismissed",
    "evidence",
    "given_back",
    "write_back",
)


def hidden_notes_unread_with_their_marks(path: Path) -> None:
    """A database at `path` with PR o/r#1 (comment 10, off) whose `dismissed`, note n-hid,
    does not read (not JSON), nor do its standing marks (their table's page damaged)."""
    db = Database(path)
    FeedbackStore(db).record(Mark("o/r", 1, "n-hid", 1, "rev"))
    PRStore(db).put(PRState("o/r", 1, comment_id=10, opted_out=True, dismissed=("n-hid",)))
    db.execute("UPDATE pr_state SET dismissed = '[\"n-hid\"' WHERE number = 1")
    db.close()
    damage_root_page(path, "feedback_standing")  # (the marks read from it alone)


# kills: bot/prstate.py:PRStore._standing_marks a damaged marks' table fails the PR's read
def test_hidden_notes_that_do_not_read_with_their_marks_damaged_too_are_none(tmp_path, caplog):
    """A PR's `dismissed` that does not read is taken from its standing marks; when SQLite
    finds their table damaged too, the notes hidden are taken as none (not the PR's every
    read failed): a note a reviewer hid shows again, which is wrong but seen and marked
    again, where hiding notes on a guess would hide them unseen. Said in the value's line."""
    path = tmp_path / "s.sqlite3"
    hidden_notes_unread_with_their_marks(path)
    db = Database(path)
    store = PRStore(db)
    caplog.set_level(logging.WARNING)
    got = store.get("o/r", 1)
    assert (got.comment_id, got.opted_out, got.dismissed) == (10, True, ())
    [line] = said(caplog)
    assert line.startswith("PR o/r#1: its dismissed does not read: not JSON"), line
    assert "taken as none: the PR's standing `/notes wrong` marks do not read either" in line
    assert store.read_around == [("o/r#1", "dismissed")]
    db.close()


def _paused_showing_two_notes(client, rt, fake) -> tuple[str, ...]:
    """The PR's comment showing two notes under the paused line (`/notes` said while off),
    its `notes` value then damaged: the notes it shows, in order."""
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:01Z"))
    say(client, rt, fake, "/notes off", login=AUTHOR)
    say(client, rt, fake, "/notes", login=AUTHOR)
    shown = rt.ctx.prs.get(DEFAULT_REPO, N).notes
    assert len(shown) == 2 and "Automatic updates are paused" in sticky(fake).body
    rt.ctx.prs.db.execute("UPDATE pr_state SET notes = '[x'")
    return shown


# kills: bot/command_feedback.py:notes_shown a paused comment's notes that did not read
#        taken as none (GitHub's text not read back)
def test_wrong_on_a_paused_comment_whose_notes_do_not_read_hides_the_note_it_shows(
    served,  # noqa: F811
):
    """While paused, notes that do not read are taken as none (the reasons kept may be
    those of the notes before the pause): `/notes wrong 2` on a comment showing two notes
    under the paused line was answered that it shows no note, and again at each `wrong`
    until a `/notes`. The notes are read back from GitHub's text of the comment (one GET):
    note 2 as the reviewer sees it is hidden, and marked."""
    client, rt, fake = served
    shown = _paused_showing_two_notes(client, rt, fake)
    fake.clear_requests()
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR)
    assert replies(fake) == []
    assert len(fake.calls("GET", "/repos/*/issues/comments/*")) == 1
    got = rt.ctx.prs.get(DEFAULT_REPO, N)
    assert got.dismissed == (shown[1],) and got.notes == (shown[0],)
    assert [m.note_id for m in rt.ctx.feedback.marks()] == [shown[1]]


def test_wrong_on_the_short_paused_line_whose_notes_do_not_read_hides_nothing(
    served,  # noqa: F811
):
    """The short paused line shows no note, though the reasons kept are those of the notes
    it showed before the pause: GitHub's text says so, nothing is hidden."""
    client, rt, fake = served
    deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
    say(client, rt, fake, "/notes off", login=AUTHOR)
    assert rt.ctx.prs.get(DEFAULT_REPO, N).evidence  # (the notes before the pause)
    rt.ctx.prs.db.execute("UPDATE pr_state SET notes = '[x'")
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    [reply] = replies(fake)
    assert "The notes comment on this pull request shows no note; nothing was hidden." in (
        reply.body
    )
    assert rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == () and rt.ctx.feedback.marks() == []


# kills: bot/render.py:notes_read_back a link to no note as linked now taken for a guess
def test_wrong_on_a_comment_whose_notes_neither_read_nor_read_back_says_so(
    served,  # noqa: F811
):
    """GitHub's text names its notes by links to no note as linked now (written under
    another public URL): which note is N is not known, so none is hidden, and the reply
    says how to have them listed again; that `/notes` then numbers them anew."""
    client, rt, fake = served
    shown = _paused_showing_two_notes(client, rt, fake)
    c = sticky(fake)
    c.body = c.body.replace("/notes/", "/old-notes/")
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    [reply] = replies(fake)
    assert "The notes the notes comment shows could not be read; nothing was hidden." in (
        reply.body
    )
    assert "Reply `/notes` to have it list them again" in reply.body
    assert rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == () and rt.ctx.feedback.marks() == []
    say(client, rt, fake, "/notes", login=AUTHOR)
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == (shown[0],)


# kills: bot/command_answers.py:run_commands the notes comment read again by each `wrong` of a
#        comment, and by a run of a comment whose numbers are kept
def test_a_comments_wrongs_read_the_notes_comment_once_and_not_when_its_numbers_are_kept(
    served,  # noqa: F811
):
    """The read-back is one GET a comment: each `wrong` read GitHub's text again when it
    did not tell (four GETs for a comment of three), and an edit of a comment whose numbers
    are kept (its mark's) read it though they decide."""
    client, rt, fake = served
    shown = _paused_showing_two_notes(client, rt, fake)
    c = sticky(fake)
    written, c.body = c.body, c.body.replace("/notes/", "/old-notes/")
    fake.clear_requests()
    say(
        client,
        rt,
        fake,
        "/notes wrong 1\n/notes wrong 2 off topic\n/notes wrong 1 old",
        login=AUTHOR,
    )
    assert len(fake.calls("GET", "/repos/*/issues/comments/*")) == 1
    [reply] = replies(fake)
    assert "The notes the notes comment shows could not be read" in reply.body
    c.body = written
    said = say(client, rt, fake, "/notes wrong 2", login=AUTHOR)
    assert rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == (shown[1],)
    rt.ctx.prs.db.execute("UPDATE pr_state SET notes = '[x'")
    fake.clear_requests()
    edit(client, rt, fake, said, "/notes wrong 2 not about this")
    assert fake.calls("GET", "/repos/*/issues/comments/*") == []
    [mark] = rt.ctx.feedback.marks()
    assert (mark.note_id, mark.reason) == (shown[1], "not about this")


# kills: bot/command_feedback.py:notes_shown notes taken as none from reasons that did not
#        read either, on a comment not paused (GitHub's text not read back)
def test_wrong_on_a_comment_whose_notes_and_reasons_do_not_read_hides_the_note_it_shows(
    served,  # noqa: F811
):
    """Not paused, notes that do not read are taken from the reasons kept for them; those
    damaged too, as none: `/notes wrong 1` on the comment showing two notes was answered
    that it shows no note. GitHub's text of it tells: note 1 is hidden."""
    client, rt, fake = served
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:01Z"))
    shown = rt.ctx.prs.get(DEFAULT_REPO, N).notes
    assert len(shown) == 2
    rt.ctx.prs.db.execute("UPDATE pr_state SET notes = '[x', evidence = '[x'")
    say(client, rt, fake, "/notes wrong 1", login=AUTHOR)
    assert replies(fake) == []
    got = rt.ctx.prs.get(DEFAULT_REPO, N)
    assert got.dismissed == (shown[0],) and got.notes == (shown[1],)


def _two_notes_not_known(client, rt, fake, *, reasons: bool) -> tuple[str, ...]:
    """The PR's comment showing two notes, its `notes` value then damaged (and the
    reasons kept for them too, unless `reasons`): the notes it shows, in order."""
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:01Z"))
    shown = rt.ctx.prs.get(DEFAULT_REPO, N).notes
    assert len(shown) == 2
    damaged = "notes = '[x'" if reasons else "notes = '[x', evidence = '[x'"
    rt.ctx.prs.db.execute(f"UPDATE pr_state SET {damaged}")
    return shown


def _links_swapped(rt, body: str, note_id: str, other: str) -> str:
    """The comment's text with one note's guidance link made another note's."""
    ctx = rt.ctx
    link, to = (link_target(ctx.links.url(ctx.library.by_id[i])) for i in (note_id, other))
    assert body.count(link) == 1
    return body.replace(link, to)


# kills: bot/command_feedback.py:notes_shown a maintainer's edit of the notes comment's
#        links taken for the notes the bot showed
def test_wrong_on_a_notes_comment_whose_links_a_maintainer_swapped_marks_no_other_note(
    served,  # noqa: F811
):
    """Anyone who may edit the notes comment could swap its note 2's link for another
    note's, and `/notes wrong 2` marked that note, never shown on the PR, for the
    curators in the name of whoever typed it. The text is not the bot's as signed: it
    does not tell, nothing is hidden, and the reply says how to have the notes listed."""
    client, rt, fake = served
    shown = _two_notes_not_known(client, rt, fake, reasons=False)
    other = next(n.id for n in rt.ctx.library.notes if n.id not in shown)
    c = sticky(fake)
    rewritten(client, rt, fake, c, _links_swapped(rt, c.body, shown[1], other))
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR)
    [reply] = replies(fake)
    assert "The notes the notes comment shows could not be read; nothing was hidden." in (
        reply.body
    )
    assert rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == () and rt.ctx.feedback.marks() == []


def test_wrong_on_an_edited_notes_comment_takes_the_notes_the_bot_kept(
    served,  # noqa: F811
):
    """The text edited does not tell; the notes taken from the reasons kept do: note 2
    as the bot showed it is hidden, not the note the edit linked."""
    client, rt, fake = served
    shown = _two_notes_not_known(client, rt, fake, reasons=True)
    other = next(n.id for n in rt.ctx.library.notes if n.id not in shown)
    c = sticky(fake)
    rewritten(client, rt, fake, c, _links_swapped(rt, c.body, shown[1], other))
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR)
    assert replies(fake) == []
    assert [m.note_id for m in rt.ctx.feedback.marks()] == [shown[1]]


@pytest.mark.parametrize(
    "change",
    [None, "for its name", "tampered", "unsigned", "another PR's", "another repository's"],
)
def test_a_notes_comment_reads_back_only_while_its_signature_verifies(
    served,  # noqa: F811
    change,
):
    """The unedited text reads back (its notes by their links: note 2 is hidden), and so
    does one signed for the repository's name (as before the id was signed for); with
    its signature changed by one digit, gone (as on a comment posted before signatures
    were kept), or that of another PR's comment of the same text (another number, or
    another repository's id), it does not tell."""
    client, rt, fake = served
    shown = _two_notes_not_known(client, rt, fake, reasons=False)
    c = sticky(fake)
    key = rt.ctx.comment_key
    text, _, last = c.body.rstrip().rpartition("\n")
    at = len(SIGNATURE_OPENING)
    assert last.startswith(SIGNATURE_OPENING)
    flipped = f"{last[:at]}{'1' if last[at] != '1' else '2'}{last[at + 1 :]}"
    assert c.body == signed_text(text, key, DEFAULT_REPO, N, DEFAULT_REPO_ID)  # for the id
    if change is not None:
        changed = {
            "tampered": f"{text}\n{flipped}\n",
            "unsigned": text.rstrip() + "\n",
            "for its name": signed_text(text, key, DEFAULT_REPO, N),
            "another PR's": signed_text(text, key, DEFAULT_REPO, N + 1, DEFAULT_REPO_ID),
            "another repository's": signed_text(text, key, DEFAULT_REPO, N, DEFAULT_REPO_ID + 1),
        }[change]
        rewritten(client, rt, fake, c, changed)
    say(client, rt, fake, "/notes wrong 2", login=AUTHOR)
    if change in (None, "for its name"):
        assert replies(fake) == [] and rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == shown[1:]
        return
    [reply] = replies(fake)
    assert "could not be read; nothing was hidden." in reply.body
    assert rt.ctx.feedback.marks() == []


def _asked_to_mark_note_2(client, rt, fake, repo: str = DEFAULT_REPO, secret: str = SECRET):
    """The PR's author says `/notes wrong 2` on PR N of `repo` (its name now), delivered
    signed with `secret`, and it runs."""
    c = fake.add_comment(repo, N, "/notes wrong 2", login=AUTHOR)
    payload = comment_payload(c)
    payload["repository"] = dict(payload["repository"], full_name=repo)
    assert post(client, "issue_comment", payload, secret=secret).status_code == 202
    drain(rt)


# kills: bot/context.py:BotContext.comment_keys the previous webhook secret not tried
@pytest.mark.parametrize("previous", [None, SECRET])
def test_a_notes_comment_signed_before_the_webhook_secret_was_rotated_reads_back_with_it_kept(
    tmp_path, fake_github, app_key, monkeypatch, previous
):
    """The operator rotates the webhook secret; a `wrong N` that must read the notes
    comment's notes on GitHub finds it signed with the secret before. Without that secret
    kept (GITHUB_PREVIOUS_WEBHOOK_SECRET) the text does not tell until the comment's next
    write: nothing is hidden and the reply asks for a `/notes`; with it, note 2 is."""
    clean_env(monkeypatch)
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    with serving(live_settings(tmp_path, fake, app_key)) as (client, rt):
        tune(rt)
        shown = _two_notes_not_known(client, rt, fake, reasons=False)
    rotated = live_settings(
        tmp_path,
        fake,
        app_key,
        github_webhook_secret="rotated-webhook-secret",
        github_previous_webhook_secret=previous,
    )
    with serving(rotated) as (client, rt):
        tune(rt)
        _asked_to_mark_note_2(client, rt, fake, secret="rotated-webhook-secret")
        if previous is not None:
            assert replies(fake) == [] and rt.ctx.prs.get(DEFAULT_REPO, N).dismissed == shown[1:]
            return
        [reply] = replies(fake)
        assert "could not be read; nothing was hidden." in reply.body
        assert rt.ctx.feedback.marks() == []


# kills: bot/sticky.py:_write the notes comment signed for the repository's name
def test_a_notes_comment_reads_back_after_its_repository_was_renamed(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Renamed (or transferred), a repository keeps its id and its PRs their numbers: the
    notes comment signed for the PR before reads back under the new name."""
    clean_env(monkeypatch)
    fake, elsewhere = fake_github, "vllm-org/vllm"
    fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key, repos=f"{DEFAULT_REPO},{elsewhere}")
    with serving(settings) as (client, rt):
        tune(rt)
        shown = _two_notes_not_known(client, rt, fake, reasons=False)
        fake.transfer(DEFAULT_REPO, elsewhere)
        _asked_to_mark_note_2(client, rt, fake, repo=elsewhere)
        assert [c for c in ours(fake, repo=elsewhere) if c.body.startswith(REPLY_MARKER)] == []
        assert rt.ctx.prs.get(elsewhere, N).dismissed == shown[1:]
        assert [(m.repo, m.note_id) for m in rt.ctx.feedback.marks()] == [(elsewhere, shown[1])]

"""The store of commands a locked conversation kept from being heard
(bot.locked_commands), on real SQLite; end to end, at the unlock: tests/test_unlocks.py."""

from __future__ import annotations

from dataclasses import replace

from bot.command_policy import Actor
from bot.command_source import Source
from bot.commands import CommandConfig, Reading
from bot.db import Database
from bot.github_port import PRRef
from bot.library import load_library
from bot.locked_commands import STILL, Kept, LockedCommands, _as_read, _as_said
from bot.order_keys import comment_key
from bot.queue import Delivery

REF = PRRef("Owner/Repo", 7, 1001)


def _said(body: str, at: str, old_body: str | None = None) -> tuple[Delivery, Source]:
    delivery = Delivery(f"d-{at}", "issue_comment", "edited" if old_body else "created", {})
    source = Source(
        body=body,
        old_body=old_body,
        comment_id=42,
        actor=Actor("maintainer", False),
        pr_author="someone",
        pull={},
        said_at=comment_key(at, 42),
    )
    return delivery, source


# kills: bot/locked_commands.py:LockedCommands.keep an older text run late kept over a newer
def test_a_comment_text_run_late_does_not_replace_a_newer_one_kept(tmp_path):
    """The edit made while locked ran first, its comment's `created` after (a retry, a
    redelivery): the newer text stays kept, with the older one's pre-lock text (none)."""
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    assert store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    assert store.keep(REF, *_said("/notes why", "2026-09-01T10:05:00Z", "/notes help"))
    assert not store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    (kept,) = LockedCommands(Database(tmp_path / "bot.sqlite3")).kept("owner/repo", 7)
    assert (kept.body, kept.old_body, kept.delivery) == (
        "/notes why",
        None,
        "d-2026-09-01T10:05:00Z",
    )


# kills: bot/locked_commands.py:LockedCommands.keep the text an edit kept was made from,
#        its own delivery run late, left out (its commands never answered)
def test_a_comment_whose_created_runs_after_its_edit_kept_keeps_both_texts_commands(tmp_path):
    """Said while locked (`/notes help`) and edited (a `why` added) while still locked;
    the edit's delivery ran first and was kept with its `from`, the text said first, as
    the text before the lock: the unlock ran the `why` alone. The `created` run after it
    met the lock too, and was refused as older than the text kept: the help was never
    answered. The text the kept edit was made from is kept with it: the unlock runs both.
    A text that is not the one the edit was made from (a retry once that is in) is not."""
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    assert store.keep(REF, *_said("/notes help\n/notes why", "2026-09-01T10:05:00Z", "/notes help"))
    assert store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"), heard=True)
    assert not store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    (kept,) = store.kept("owner/repo", 7)
    assert (kept.body, kept.old_body, kept.heard) == ("/notes help\n/notes why", None, True)
    assert kept.delivery == "d-2026-09-01T10:05:00Z"


def _aged(db: Database, comment_id: int, kept_at: str) -> None:
    db.execute("UPDATE locked_commands SET kept_at = ? WHERE comment_id = ?", (kept_at, comment_id))


def _keep(store: LockedCommands, ref: PRRef, comment_id: int) -> None:
    delivery, source = _said("/notes help", "2026-09-01T10:00:00Z")
    assert store.keep(ref, delivery, replace(source, comment_id=comment_id))


# kills: bot/locked_commands.py:LockedCommands.prune rows kept since the cut, or past its limit,
# deleted; the count not returned
def test_retention_prunes_comments_kept_longer_than_it_keeps_deliveries(tmp_path, caplog):
    """A row kept for an unlock that has not come in the retention's days goes, named in
    the log; a newer one stays; a batch deletes at most its limit."""
    caplog.set_level("INFO")
    db = Database(tmp_path / "bot.sqlite3")
    store = LockedCommands(db)
    for comment_id in (1, 2, 3):
        _keep(store, REF, comment_id)
    _aged(db, 1, "2026-08-01T00:00:00.000000Z")
    _aged(db, 2, "2026-08-02T00:00:00.000000Z")
    _aged(db, 3, "2026-09-01T00:00:00.000000Z")
    cut = "2026-08-15T00:00:00.000000Z"
    assert store.prune(cut, 1) == 1
    assert store.prune(cut, 5) == 1
    assert store.prune(cut, 5) == 0
    assert [k.comment_id for k in store.kept("owner/repo", 7)] == [3]
    said = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("owner/repo#7: the commands of comment 1, kept since") for m in said)


# kills: bot/locked_commands.py:LockedCommands.drop another PR's rows dropped too
def test_a_closed_prs_kept_comments_are_dropped_and_no_other_prs(tmp_path):
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    _keep(store, REF, 1)
    _keep(store, REF, 2)
    _keep(store, PRRef("Owner/Repo", 8, 1001), 3)
    assert store.drop("Owner/Repo", 7) == 2
    assert store.kept("owner/repo", 7) == [] and len(store.kept("owner/repo", 8)) == 1


# kills: bot/locked_commands.py:LockedCommands.keep an edit kept over a heard comment losing
#        its 👀 (added a second time at the unlock)
def test_a_heard_comment_edited_while_locked_stays_heard(tmp_path):
    """Kept with its 👀 shown (the lock met its reply), then edited while locked (the
    edit's 👀 refused): the 👀 still shows, and the unlock adds none."""
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    assert store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"), heard=True)
    assert store.keep(REF, *_said("/notes why", "2026-09-01T10:05:00Z", "/notes help"))
    (kept,) = store.kept("owner/repo", 7)
    assert (kept.body, kept.heard) == ("/notes why", True)
    _keep(store, REF, 43)  # (not heard: its 👀 was refused)
    assert {k.comment_id: k.heard for k in store.kept("owner/repo", 7)} == {42: True, 43: False}


def test_a_file_kept_before_heard_was_known_gains_it_at_start(tmp_path):
    """A database whose table lacks the column (an older release's) gains it, its rows
    not heard: the unlock adds their 👀, as before."""
    db = Database(tmp_path / "bot.sqlite3")
    db.script(
        "CREATE TABLE locked_commands (repo TEXT NOT NULL, number INTEGER NOT NULL,"
        " comment_id INTEGER NOT NULL, delivery TEXT NOT NULL, event TEXT NOT NULL,"
        " payload TEXT NOT NULL, body TEXT NOT NULL, old_body TEXT, said_at TEXT,"
        " kept_at TEXT NOT NULL, PRIMARY KEY (repo, number, comment_id));"
        "INSERT INTO locked_commands VALUES ('owner/repo', 7, 42, 'd', 'issue_comment', '{}',"
        " '/notes help', NULL, NULL, '2026-09-01T00:00:00.000000Z');"
    )
    (kept,) = LockedCommands(db).kept("owner/repo", 7)
    assert (kept.body, kept.heard) == ("/notes help", False)


DEFAULTS = Reading.of(CommandConfig())  # config/commands.toml's defaults


def _asked(kept: Kept, still: str | None, reading: Reading = DEFAULTS) -> tuple[str, list[str]]:
    """The action of the payload the unlock queues for `kept`, and the commands it asks
    for as any release reads it: its `from` against its text, `review_notes_still` unread
    (a release before it, after a rollback)."""
    payload = _as_said(kept, still, reading)
    old = (payload.get("changes") or {}).get("body", {}).get("from")
    return payload["action"], [c.line for c in reading.changed(old, kept.body)]


# kills: bot/locked_commands.py:_as_said,_with_taken_back a command the edit took out asked
#        for by the payload's `from` (an older release runs it)
def test_the_unlocks_payload_asks_no_release_for_a_command_an_edit_took_out():
    """Kept, then edited once unlocked: the payload's `from` has the kept commands the
    edit took out, above the text before the lock, so a release that reads no
    `review_notes_still` runs the rest alone, as this one does."""
    new = Kept(1, "d", "issue_comment", {}, "/notes help\n> a quote\n/notes search cache", None)
    assert _asked(new, "/notes help") == ("edited", ["/notes help"])
    assert _asked(new, "/notes search cache") == ("edited", ["/notes search cache"])
    assert _asked(new, new.body) == ("created", ["/notes help", "/notes search cache"])
    assert _asked(new, None) == ("created", ["/notes help", "/notes search cache"])
    edited = replace(new, body=f"/notes why\n{new.body}", old_body="/notes why\n> a quote")
    assert _asked(edited, "/notes why\n/notes help") == ("edited", ["/notes help"])
    assert _asked(edited, "/notes why") == ("edited", [])
    assert _asked(edited, edited.body) == ("edited", ["/notes help", "/notes search cache"])
    assert _as_said(edited, "/notes why", DEFAULTS)[STILL] == "/notes why"  # (this release reads)


# kills: bot/locked_commands.py:_with_taken_back the kept commands read with the default caps
def test_the_unlocks_payload_reads_the_kept_commands_with_the_configured_caps():
    """`max_commands = 7`: kept, six searches, the sixth taken out by an edit since. Read
    with the default cap (5) the kept text had no sixth, so the payload's `from` did not
    take it back, and a release reading no `review_notes_still` answered it."""
    searches = [f"/notes search {w}" for w in ("cache", "cuda", "eagle", "lora", "moe", "rocm")]
    kept = Kept(1, "d", "issue_comment", {}, "\n".join(searches), None)
    still = "\n".join(searches[:5])
    assert _asked(kept, still, replace(DEFAULTS, max_commands=7)) == ("edited", searches[:5])


# kills: bot/locked_commands.py:_one_key a line read with the default argument cap
def test_the_unlocks_payload_takes_back_a_long_command_as_its_run_keys_it():
    """`max_arg_chars = 200`: kept, `help` and a `wrong` whose reason is 150 characters,
    the `wrong` taken out by an edit since. Its line read with the default cap (100) was
    keyed as no command taken out: the payload's `from` did not take it back."""
    reason = " ".join(["it only renames a flag and touches no cache path"] * 3)
    assert 100 < len(reason) < 200
    kept = Kept(1, "d", "issue_comment", {}, f"/notes help\n/notes wrong 1 {reason}", None)
    assert _asked(kept, "/notes help", replace(DEFAULTS, max_arg_chars=200)) == (
        "edited",
        ["/notes help"],
    )


def _reading() -> Reading:
    """The defaults' caps and the library's topics, as the shell reads commands."""
    return Reading.of(CommandConfig(), topics=load_library().topics.values())


# kills: bot/locked_commands.py:_with_deferred an older edit's text kept without the lines
#        of the kept commands an edit said after it left to the release
def test_an_older_edit_kept_after_a_deferral_keeps_the_deferred_lines(tmp_path):
    """Kept `/notes help`; an edit said at 10:02 put the help back and left it to the
    release (`defer`); an edit said at 10:01, which took it out, is kept after: above its
    text, the help's line, in the payload the unlock runs too. A text said after the
    deferral is kept as it is."""
    store, reading = LockedCommands(Database(tmp_path / "bot.sqlite3")), _reading()
    assert store.keep(REF, *_said("/notes help", "2026-09-01T10:00:00Z"))
    at, said = "2026-09-01T10:02:00Z", "/notes search x"
    _, putting_back = _said(f"{said}\n/notes help", at, said)
    store.defer(REF, putting_back, {("help", ())}, reading)
    delivery, taking_out = _said("/notes search x", "2026-09-01T10:01:00Z", "/notes help")
    delivery = replace(delivery, payload={"comment": {"body": taking_out.body}})
    assert store.keep(REF, delivery, taking_out)
    (kept,) = store.kept(REF.repo, REF.number)
    assert kept.body == kept.payload["comment"]["body"] == "/notes help\n\n/notes search x"
    assert kept.old_body is None
    assert store.keep(REF, *_said("/notes why", "2026-09-01T10:03:00Z", "/notes search x"))
    assert store.kept(REF.repo, REF.number)[0].body == "/notes why"


# kills: bot/locked_commands.py:_as_read a key stored by the topic it names read again
#        otherwise, or another command's key changed
# kills: bot/locked_commands.py:_as_read a `wrong` list stored with its reason, or a quoted
#        id stored as a reason, not read as this release keys them
def test_a_stored_key_is_read_as_the_reading_keys_it():
    """A `topic` key stored by its spelling is the topic it names; a `wrong` list stored
    with its reason is the list alone, a quoted id stored as a reason (`-<id>`) the id
    too; one stored as keyed now, an unknown topic's and another command's are as stored."""
    reading = _reading()
    topic = reading.parse("/notes topic prefix caching please")[0].key
    assert topic == reading.parse("/notes topic prefix-caching")[0].key  # (by its id)
    assert topic in _as_read(("topic", ("prefix", "caching", "please")), reading)
    assert _as_read(topic, reading) == {topic}
    listed = reading.parse("/notes wrong 1,2 only renames")[0].key
    assert listed == ("wrong", ("1,2",))
    assert listed in _as_read(("wrong", ("1,2", "only", "renames")), reading)
    quoted = reading.parse("/notes wrong 「vllm-0436d44c」")[0].key
    assert quoted == ("wrong", ("vllm-0436d44c",))
    assert quoted in _as_read(("wrong", ("-vllm-0436d44c",)), reading)
    for said in ["topic no such topic", "search prefix cache", "help", "wrong 2 not here"]:
        key = reading.parse(f"/notes {said}")[0].key
        assert _as_read(key, reading) == {key}
    for said in ["wrong 1,2", "wrong 「vllm-0436d44c 只是改名」", "wrong . vllm-0436d44c"]:
        key = reading.parse(f"/notes {said}")[0].key
        assert key in _as_read(key, reading)


# kills: bot/locked_commands.py:_still_answered an older release's key of a kept command the
#        edit kept over it says again left answered (the command never answered)
def test_a_kept_command_said_again_is_owed_whatever_release_stored_its_answer(tmp_path):
    """Kept `wrong 1,2 only renames`, answered by an edit's run of an older release, which
    keyed it with its reason. A newer edit, met by a second lock, says it again (its
    `from` lacks it): kept over the row, it is owed again, though stored keyed otherwise."""
    store = LockedCommands(Database(tmp_path / "bot.sqlite3"))
    reading, command = _reading(), "/notes wrong 1,2 only renames"
    assert store.keep(REF, *_said(command, "2026-09-01T10:00:00Z"), reading=reading)
    store.db.execute(  # as the older release stored it
        "UPDATE locked_commands SET answered = ?",
        ('[["wrong", ["1,2", "only", "renames"]]]',),
    )
    again = _said(f"/notes why\n{command}", "2026-09-01T10:05:00Z", "/notes why")
    assert store.keep(REF, *again, reading=reading)
    (kept,) = store.kept(REF.repo, REF.number)
    assert kept.answered == frozenset()

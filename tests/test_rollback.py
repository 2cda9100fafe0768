"""Rollback: the release before session 14 (7bd576a, from git) run as a real server on
this release's database, then this release again."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import pytest

from bot.markers import SIGNATURE_OPENING
from bot.prstate import NO_HISTORY
from tests.command_kit import (
    AUTHOR,
    N,
    maintainer_deletes,
    say,
    state,
    sticky,
    tune,
)
from tests.fake_github import DEFAULT_REPO, Fault
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    ROOT,
    LiveServer,
    app_env,
    clean_env,
    deliver_pr,
    labeled_one_more_note,
    live_settings,
    ours,
    post,
    pr_payload,
    send_signed,
    serving,
    title_with_one_more_note,
    wait_until,
)

OLD = "7bd576a"  # the release before today's changes


def old_release(tmp_path: Path, rev: str = OLD) -> Path:
    """The code of an older release (bot/, config/, seeds/; by default the one before
    session 14's) in its own tree, as an operator's rollback checks it out."""
    known = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"])
    if known.returncode != 0:  # a shallow clone or an exported tree: no older release
        pytest.skip(f"release {rev} is not in this checkout's history")
    where = tmp_path / f"release-{rev}"
    where.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "bot", "config", "seeds"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(where)
    return where


# Upgrade, rollback, forward again: a stale `resumed` must not repost a deleted comment
# docs/upgrading.md: "Rolling back runs on the new database too". `resumed` (new column)
# is armed by `/notes on` and cleared only by a write of THIS release; an older release
# writes pr_state with its own column list (ON CONFLICT DO UPDATE of the columns it
# knows), so its writes leave `resumed` as it was. After going forward again the state
# still says "the comment may have been deleted before an `on`": a maintainer's later
# deletion ("go away") is then answered by a NEW comment from the next PR event, which
# the README promises never happens ("once deleted by a maintainer, never posted again by
# a PR event (a new comment would notify everyone)").
# Scenario: on a draft (no notes comment yet) the author says `/notes off`, then `/notes
# on`, which arms `resumed` (a draft waits, so nothing is written, and nothing clears
# it; the same holds for an `on` whose update failed or was deferred). The operator
# rolls back; the old release posts the notes when the PR is ready for review
# (correct). Forward again; a maintainer deletes that comment; the next PR event posts a
# new one instead of turning the updates off.


def _a_matching_pr(monkeypatch, tmp_path: Path, fake, app_key, head: str | None = None):
    """A clean environment, PR N on `fake` whose title and files get a note (its head
    commit `head`, when given), and the App-mode settings of a server against `fake`."""
    from tests.command_kit import N

    clean_env(monkeypatch)
    pull = fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    if head is not None:
        pull.head_sha = head
    return live_settings(tmp_path, fake, app_key)


def old_server(tmp_path: Path, fake, app_key, settings, rev: str = OLD) -> LiveServer:
    """The older release as a real server on this release's database (a rollback)."""
    env = app_env(tmp_path, fake, app_key)
    env["PYTHONPATH"] = str(old_release(tmp_path, rev))
    env["REVIEW_NOTES_DB_PATH"] = str(settings.db_path)
    return LiveServer(tmp_path, env)


def test_rollback_then_forward_a_deleted_comment_is_not_posted_again(
    tmp_path, fake_github, app_key, monkeypatch
):
    clean_env(monkeypatch)
    fake = fake_github
    n = 7301
    fake.add_pull(
        DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR, draft=True
    )
    settings = live_settings(tmp_path, fake, app_key)
    # this release
    with serving(settings) as (client, rt):
        tune(rt)
        deliver_pr(
            client,
            rt,
            number=n,
            title=MATCHING_TITLE,
            draft=True,
            updated_at="2030-01-01T10:00:00Z",
        )
        say(client, rt, fake, "/notes off", number=n, login=AUTHOR)
        say(client, rt, fake, "/notes on", number=n, login=AUTHOR)
        assert sticky(fake, n) is None and not state(rt, n).opted_out  # a draft waits
        assert state(rt, n).resumed
    # rollback to the older release, on the same database
    server = old_server(tmp_path, fake, app_key, settings)
    fake.pull(DEFAULT_REPO, n).draft = False
    with server.run():
        ready = pr_payload(
            "ready_for_review", number=n, title=MATCHING_TITLE, updated_at="2030-01-01T11:00:00Z"
        )
        assert send_signed(server.base, "pull_request", ready, "rollback-ready") == 202
        wait_until(lambda: sticky(fake, n) is not None, what="the old release posts the notes")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    posted_by_old = sticky(fake, n)
    # forward again
    with serving(settings) as (client, rt):
        tune(rt)
        stale = state(rt, n).resumed  # the `on` before the rollback, never cleared
        maintainer_deletes(fake, posted_by_old)  # a maintainer's "go away", long after the `on`
        deliver_pr(client, rt, number=n, **labeled_one_more_note(updated_at="2030-01-02T10:00:00Z"))
        assert ours(fake, n) == [], (
            "a PR event posted anew a notes comment a maintainer deleted: the older release's"
            f" writes left resumed={stale} from the `on` before the rollback"
        )
        assert state(rt, n).opted_out


# The older release edits the resumed comment itself
# 884085a: "A comment other than the one resumed ends the state" -- but an older
# release (rollback) that EDITS the comment the `on` resumed leaves comment_id as it was
# and resumed_for untouched (it does not know the column), so `resumed` stays True.
# Forward again, a maintainer's later deletion of that comment ("go away", well after
# the `on` and after an update found the comment) is taken for one made while off and
# the next PR event posts a NEW comment (notifying everyone). README: once deleted by a
# maintainer, never posted again by a PR event. The same scenario as
# tests/test_rollback.py, with a comment that existed at the `on` (the common case:
# `off` paused it, `on` resumes it) whose update failed (or was deferred) before the
# rollback.


def test_rollback_editing_the_resumed_comment_then_a_deletion_is_a_go_away(
    tmp_path, fake_github, app_key, monkeypatch
):
    clean_env(monkeypatch)
    fake = fake_github
    n = 7311
    fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR)
    settings = live_settings(tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        deliver_pr(client, rt, number=n, title=MATCHING_TITLE, updated_at="2030-01-01T10:00:00Z")
        first = sticky(fake, n)
        assert first is not None
        say(client, rt, fake, "/notes off", login=AUTHOR, number=n)
        assert state(rt, n).opted_out and "paused" in sticky(fake, n).body
        # the `on`'s own update fails (GitHub down for each try): the delivery fails
        listing = f"/repos/{DEFAULT_REPO}/issues/{n}/comments"
        fake.inject("GET", listing, *[Fault.error(502)] * 3)
        say(client, rt, fake, "/notes on", login=AUTHOR, number=n)
        assert rt.queue.counts()["failed"] == 1 and not state(rt, n).opted_out
        assert state(rt, n).resumed
    # rollback: the older release edits the SAME comment on the next PR event
    server = old_server(tmp_path, fake, app_key, settings)
    with server.run():
        payload = pr_payload(  # a push
            "synchronize",
            number=n,
            title=MATCHING_TITLE,
            head_sha="b" * 40,
            updated_at="2030-01-01T11:00:00Z",
        )
        assert send_signed(server.base, "pull_request", payload, "rollback-push") == 202
        wait_until(
            lambda: "paused" not in sticky(fake, n).body, what="the old release edits the notes"
        )
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    edited = sticky(fake, n)
    assert edited.id == first.id  # the same comment, found and edited after the `on`
    # forward again: a maintainer deletes the comment, long after the `on`
    with serving(settings) as (client, rt):
        tune(rt)
        stale = state(rt, n).resumed_at
        maintainer_deletes(fake, edited)
        deliver_pr(client, rt, number=n, **labeled_one_more_note(updated_at="2030-01-02T10:00:00Z"))
        assert ours(fake, n) == [], (
            "a PR event posted anew a notes comment a maintainer deleted after the older"
            f" release had found and edited it: resumed_at={stale} (the same comment id)"
        )
        assert state(rt, n).opted_out


# --- pr_state.event_by left stale by a rollback ---------------------------------------

OPT_OUT = "no-review-notes"


# pr_state.event_by, rollback then forward again: the older release writes
# pr_state with its own column list (ON CONFLICT DO UPDATE of the columns it knows), so
# handling a second event of the same second does not clear event_by. Forward again, a
# re-run (`review-notes retry`) of the first event finds event_by == its own id and is
# taken for "no tie", so it is matched on its out-of-date payload (no opt-out label)
# instead of the PR as GitHub has it now (labelled): notes posted on an opted-out PR.
# A server now forgets event_by at start.
def test_a_stale_event_by_after_a_rollback_hides_no_real_tie(
    tmp_path, fake_github, app_key, monkeypatch
):
    clean_env(monkeypatch)
    fake = fake_github
    n = 7711
    at = "2030-01-01T10:00:00Z"
    pr = fake.add_pull(DEFAULT_REPO, n, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    # this release: `opened` (no label) fails on GitHub errors, after recording its time
    with serving(settings) as (client, rt):
        fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}/files", *[Fault.error()] * 40)
        opened = pr_payload(number=n, title=MATCHING_TITLE, updated_at=at)
        assert post(client, "pull_request", opened, delivery="d-opened").status_code == 202
        wait_until(lambda: rt.queue.get("d-opened").state == "failed", timeout=30, what="fail")
        assert rt.ctx.prs.get(DEFAULT_REPO, n).event_by == "d-opened"
    fake._faults.clear()
    # rollback: the older release handles `labeled` (opt-out) of the same second
    env = app_env(tmp_path, fake, app_key)
    env["PYTHONPATH"] = str(old_release(tmp_path, "4979cc7"))  # before event_by
    env["REVIEW_NOTES_DB_PATH"] = str(settings.db_path)
    server = LiveServer(tmp_path, env)
    pr.labels = [OPT_OUT]
    with server.run():
        labeled = pr_payload(
            "labeled", number=n, title=MATCHING_TITLE, labels=(OPT_OUT,), updated_at=at
        )
        labeled["label"] = {"id": 1, "name": OPT_OUT, "color": "ededed"}
        assert send_signed(server.base, "pull_request", labeled, "d-labeled") == 202
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    gets_before = len(fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}"))
    # forward again: the operator retries the failed `opened`
    with serving(settings) as (client, rt):
        assert rt.queue.retry(["d-opened"]) == ["d-opened"]
        wait_until(lambda: rt.queue.get("d-opened").state == "done", timeout=30, what="rerun")
        gets = len(fake.calls("GET", f"/repos/{DEFAULT_REPO}/pulls/{n}")) - gets_before
        shown = [c.body for c in ours(fake, n)]
        assert gets == 1 and not any("paused" not in b.lower() for b in shown), (
            f"a re-run after another event of its second was handled (by the older release)"
            f" was taken for no tie: GET of the PR {gets} times, comments {shown!r}; the PR"
            " carries the opt-out label"
        )


# --- a rollback's retry starts the put-backs' waits afresh ----------------------------


# kills: bot/queue.py:DeliveryQueue.defer a rollback's retry's waits left over read as
#        this run's: the delivery failed at its first put-back held back by another's limit
# kills: bot/queue.py:_delivery the workers' log counting the waits left over
def test_a_rollbacks_retry_starts_the_put_backs_held_back_afresh_too(tmp_path, monkeypatch):
    # The release before the waits column re-queues a failed delivery with deferrals = 0
    # (`review-notes retry`), leaving its waits: 100, all it had, once it had failed put
    # back 100 times behind other calls' limits. Forward again, it failed at its next
    # put-back behind a limit, after the operator had re-run it.
    from bot.db import Database
    from bot.github_port import call_paused
    from bot.queue import MAX_WAITS, DeliveryQueue, State
    from bot.workers import Workers
    from tests.test_queue import _limited_by, _put_back_again, add
    from tests.webhook_kit import base_env, cli

    clean_env(monkeypatch)
    path = tmp_path / "bot.sqlite3"
    q = DeliveryQueue(Database(path))
    add(q, "d1")
    held = Workers(q, _limited_by(call_paused), 1)
    q.claim()
    held.run_one(q.get("d1"))
    q.db.execute("UPDATE deliveries SET deferrals = ?, waits = ? WHERE id = 'd1'", (100, 99))
    for _ in range(2):
        _put_back_again(q, held, "d1")
    assert (q.get("d1").state, q.get("d1").waits) == (State.FAILED, MAX_WAITS)
    q.db.close()

    old = base_env(tmp_path, PYTHONPATH=str(old_release(tmp_path, "0d0177e^")))
    retried = cli("retry", "d1", env=old, cwd=tmp_path)
    assert retried.returncode == 0, retried.stderr

    q = DeliveryQueue(Database(path))
    assert (q.get("d1").state, q.get("d1").deferrals, q.get("d1").waits) == (State.PENDING, 0, 0)
    assert q.claim().id == "d1"
    held = Workers(q, _limited_by(call_paused), 1)
    held.run_one(q.get("d1"))
    d1 = q.get("d1")
    assert (d1.state, d1.deferrals, d1.waits) == (State.PENDING, 1, 1), d1.last_error
    assert q.db.execute("SELECT waits FROM deliveries WHERE id = 'd1'")[0][0] == 1
    q.db.close()


# --- what an older release leaves behind: owed deletions, pauses, kept commands -------


# kills: bot/deletion_events.py:delete_owed a debt an older release's `on` took back, paid
def test_a_deletion_owed_on_a_locked_pr_is_not_paid_after_a_rollbacks_on_kept_the_comment(
    tmp_path, fake_github, app_key, monkeypatch
):
    """A maintainer's deletion outranking an `on`, told while the PR was locked, owes the
    comment C the `on` posted (`owed_delete`). Unlocked, the operator rolls back: the
    release before owed deletions runs the author's `/notes on`, said after the deletion,
    which finds C and resumes the updates on it, but leaves `owed_delete` as it was (its
    writes list the columns it knows). Forward again, the PR's next event deleted C as
    owed, then found the comment it had kept gone and took that for a maintainer's
    deletion: the updates off, no comment, the `on` undone by the bot itself."""
    from tests.command_kit import N, comment_payload
    from tests.test_deletion_events import on_run_before_a_missed_deletion, swept
    from tests.webhook_kit import HEAD

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key, head=HEAD)
    with serving(settings) as (client, rt):
        tune(rt)
        _, attempt, c = on_run_before_a_missed_deletion(client, rt, fake, 200)
        fake.lock(DEFAULT_REPO, N)
        swept(rt, fake, attempt)
        assert state(rt).opted_out and state(rt).owed_delete == c.id
    fake.unlock(DEFAULT_REPO, N)
    server = old_server(tmp_path, fake, app_key, settings, "b87d60c")
    with server.run():
        on = fake.add_comment(DEFAULT_REPO, N, "/notes on", login=AUTHOR)
        assert send_signed(server.base, "issue_comment", comment_payload(on), "old-on") == 202
        wait_until(lambda: server.health()["done"] >= 1, what="the older release runs the on")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    assert ours(fake) == [c] and "paused" not in c.body  # C resumed, kept
    with serving(settings) as (client, rt):
        tune(rt)
        assert not state(rt).opted_out and state(rt).owed_delete == c.id  # (left as it was)
        deliver_pr(client, rt, **labeled_one_more_note(updated_at="2026-09-01T10:00:06Z"))
        assert ours(fake) == [c] and not state(rt).opted_out, (
            "the PR's event deleted the comment an `on` said after the deletion had kept"
        )


PAUSELESS = "41bab80"  # the release before outage waits and the queue's pause


def test_a_pause_an_older_release_outlived_holds_nothing_once_forward_again(
    tmp_path, fake_github, app_key, monkeypatch, caplog
):
    # a GitHub outage paused the queue (github_outage), then the operator rolled back:
    # the older release knows no pause and ran the delivery put back, GitHub answering.
    # Forward again, the pause it left held the queue until its time (up to a quarter
    # of an hour, its put-backs' waits grown), then one delivery at a time
    from bot.db import Database

    clean_env(monkeypatch)
    fake = fake_github
    n, m = 7321, 7322
    for number in (n, m):
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key, outage_wait_total=3600.0)
    with serving(settings) as (client, rt):
        fake.inject("*", "*", *[Fault.error(502)] * 100_000)  # GitHub down
        post(client, "pull_request", pr_payload(number=n, title=MATCHING_TITLE))
        wait_until(lambda: rt.queue.outage_paused_until() is not None, what="the pause")
    fake.clear_faults()
    db = Database(settings.db_path)  # its waits grown: a quarter of an hour ahead, as due now
    db.execute("UPDATE github_outage SET until = '2999-01-01T00:00:00.000000Z'")
    db.execute("UPDATE deliveries SET not_before = NULL")
    db.close()
    server = old_server(tmp_path, fake, app_key, settings, rev=PAUSELESS)
    with server.run():
        wait_until(lambda: sticky(fake, n) is not None, what="the old release posts the notes")
    caplog.set_level("WARNING", logger="review_notes")
    with serving(settings) as (client, rt):
        assert rt.queue.outage_paused_until() is None
        deliver_pr(client, rt, number=m, title=MATCHING_TITLE)
        assert sticky(fake, m) is not None
    assert (
        "a GitHub outage's pause (until 2999-01-01T00:00:00.000000Z) found at start has no"
        " delivery waiting behind it (an older release ran them, or they ended otherwise):"
        " ended; the next delivery GitHub fails pauses the queue again"
    ) in caplog.messages


STILL_LESS = "4a6ca3b"  # the release before a kept comment edited since runs what it still has


# kills: bot/locked_commands.py:_as_said the kept commands an edit took out left for an
#        older release to run (its payload's `from` without them)
def test_an_older_release_runs_no_kept_command_an_edit_took_out(
    tmp_path, fake_github, app_key, monkeypatch
):
    """`/notes help` and `/notes search cache` kept on the locked PR; once unlocked, the
    search taken back by an edit before the unlock's event ran. The unlock queues the help
    alone, said by a payload field (`review_notes_still`) an older release does not read:
    rolled back before that delivery ran, it ran the comment's text kept, the search with
    it, a reply to a command taken back. The queued payload says it to any release: its
    `from` has the commands the edit took out, so none takes them for new."""
    from bot.github_port import PRRef
    from bot.locked_commands import release
    from bot.server import build_runtime
    from tests.command_kit import N, replies
    from tests.test_unlocks import said_while_locked

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        fake.lock(DEFAULT_REPO, N)
        c = said_while_locked(client, rt, fake, "/notes help\n/notes search cache")
    fake.unlock(DEFAULT_REPO, N)
    c.body = "/notes help"  # in the web UI, before the unlock's event ran
    rt = build_runtime(settings)  # no workers: the unlock's release queues, nothing runs
    assert release(rt.ctx, PRRef(DEFAULT_REPO, N, 1001)) == (
        "1 comment(s) of commands kept while locked queued"
    )
    rt.ctx.github.close()
    rt.db.close()
    server = old_server(tmp_path, fake, app_key, settings, rev=STILL_LESS)
    with server.run():
        wait_until(lambda: server.health()["done"] >= 1, what="the older release runs it")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    assert len(replies(fake)) == 1  # the help's; none to the search taken back


# --- rolled back to the release deployed before today's, forward again ---

DEPLOYED = "e4dcbb5"  # the release before `tried`, and `deferred`/`answered` on kept rows
KEYED_WITH_REASONS = "6d5e023"  # a list keyed with its reason; `「<id>」` read as a reason
UNSIGNED = "1340fc1"  # the release before the notes comment was signed; `"2"` a reason
SIGNED_FOR_NAMES = "c128102"  # the release that signed it for the repository's name


def _run_on_the_older_release(
    server: LiveServer, sends: list[tuple[str, dict]], tag: str = "older"
) -> None:
    """The older release, started on the file, handles each event sent, and drains."""
    with server.run():
        failed, done = server.health()["failed"], server.health()["done"]  # (this release's)
        for i, (event, payload) in enumerate(sends):
            assert send_signed(server.base, event, payload, f"{tag}-{i}") == 202
        wait_until(
            lambda: server.health()["done"] >= done + len(sends), what="the older release ran"
        )
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
        assert server.health()["failed"] == failed


def _older_failing_at_once(
    tmp_path: Path, fake, app_key, settings, rev: str = DEPLOYED
) -> LiveServer:
    """An older release (by default the deployed one) on the file, a delivery GitHub fails
    with a 5xx failed at once (no outage waits), for the operator's retry."""
    env = app_env(tmp_path, fake, app_key, REVIEW_NOTES_OUTAGE_WAIT_TOTAL="0")
    env["PYTHONPATH"] = str(old_release(tmp_path, rev))
    env["REVIEW_NOTES_DB_PATH"] = str(settings.db_path)
    return LiveServer(tmp_path, env)


def test_a_rollback_past_tried_drops_it_and_loses_none_of_their_words(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'A rollback past the release that keeps a failed write-back's
    words': this release's write-back landed under 5xx answers (`tried` kept, the
    delivery failed). Rolled back, the older release starts, reads the state and runs
    their second edit's event: their newest words owed (it does not read `tried`), what
    GitHub shows left as it is, `tried` dropped at its write. Forward again: the failed
    delivery's retry reads that as no call failed and writes nothing over their words,
    and the bot's next write drops their second edit's words (our write-back landed
    over it, the first shown): the limit upgrading.md says. (Without the rollback they
    are written back: test_comment_rewrites.)"""
    from tests.test_comment_rewrites import AGAIN, THEIRS, _a_write_back_landed_its_answers_5xx
    from tests.test_deletion_events import say_after
    from tests.webhook_kit import HEAD

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key, head=HEAD)
    with serving(settings) as (client, rt):
        tune(rt)
        c, made = _a_write_back_landed_its_answers_5xx(client, rt, fake)
        assert state(rt).write_back.history.tried == THEIRS
    _run_on_the_older_release(
        old_server(tmp_path, fake, app_key, settings, DEPLOYED), [("issue_comment", made[1])]
    )
    assert fake.comment(c.id).body == THEIRS  # shown as GitHub has it
    with serving(settings) as (client, rt):
        tune(rt)
        owed = state(rt).write_back
        assert (owed.text, owed.history) == (AGAIN, NO_HISTORY)
        assert rt.queue.retry() != []
        wait_until(lambda: rt.queue.counts()["failed"] == 0, what="the retry ran")
        assert fake.comment(c.id).body == THEIRS  # their words, never written over
        say_after(client, rt, fake, "/notes on")  # the bot's next write: nothing owed after
        assert state(rt).write_back is None
    assert fake.comment(c.id).body == THEIRS  # their second edit, landed over, not back


def test_a_rollback_past_answered_answers_a_kept_command_again_as_documented(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'A rollback past the release that records what a kept comment's
    edits ran or left': kept `/notes help`, taken out and put back by two edits said while
    locked, whose events ran after the real unlock, before its own; the second answered
    the help (`answered`). Rolled back before the unlock's event: the older release starts
    on the file with the row's new columns filled, runs the unlock and answers the help
    again (two replies, as that release always did), nothing failed, nothing kept after."""
    from tests.command_kit import N, comment_payload, replies
    from tests.fake_github import iso_time
    from tests.test_unlocks import _help_kept_then_edited_twice_while_locked
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        c, kept, first = _help_kept_then_edited_twice_while_locked(client, rt, fake)
        for body, old, at in [(c.body, first, 20), (first, kept, 10)]:
            payload = comment_payload(c, action="edited", old_body=old)
            payload["comment"].update(body=body, updated_at=iso_time(c.created_at + at))
            payload["issue"].update(locked=True, active_lock_reason="too heated")
            assert post(client, "issue_comment", payload).status_code == 202
            drain(rt)
        assert len(replies(fake)) == 1
        (row,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
        assert row.answered  # the new column, filled
    unlock = pr_payload(
        "unlocked", number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:01:00Z"
    )
    _run_on_the_older_release(
        old_server(tmp_path, fake, app_key, settings, DEPLOYED), [("pull_request", unlock)]
    )
    assert len(replies(fake)) == 2  # the help's again, as the older release always did
    with serving(settings) as (client, rt):  # forward again: nothing left to run
        tune(rt)
        assert rt.ctx.locked.kept(DEFAULT_REPO, N) == []
        assert rt.queue.counts()["failed"] == 0 and len(replies(fake)) == 2


@pytest.mark.parametrize("rev", [DEPLOYED, KEYED_WITH_REASONS])
def test_an_upgrade_from_the_deployed_release_runs_what_it_kept_and_left_failed_once(
    tmp_path, fake_github, app_key, monkeypatch, rev
):
    """The upgrade walked: the deployed release keeps `/notes help` said on a locked PR
    (its row without today's columns) and leaves another PR's delivery failed (GitHub
    down). This release on the same file: the unlock answers the help once, with its
    thumb; the operator's retry posts the other PR's notes; nothing failed or answered
    twice, and the older release's rows read as 'no edit ran or left anything'. The same
    from the release before lists were keyed by their numbers alone."""
    from tests.command_kit import N, comment_payload, reactions, replies
    from tests.webhook_kit import drain

    clean_env(monkeypatch)
    fake = fake_github
    m = N + 1
    for number in (N, m):
        fake.add_pull(DEFAULT_REPO, number, files=MATCHING_FILES, title=MATCHING_TITLE)
    settings = live_settings(tmp_path, fake, app_key)
    fake.lock(DEFAULT_REPO, N)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="maintainer")
    locked = comment_payload(c)
    locked["issue"].update(locked=True, active_lock_reason="too heated")
    fake.inject("GET", f"/repos/{DEFAULT_REPO}/pulls/{m}/files", *[Fault.error(502)] * 40)
    server = _older_failing_at_once(tmp_path, fake, app_key, settings, rev)
    with server.run():
        assert send_signed(server.base, "issue_comment", locked, "older-kept") == 202
        opened = pr_payload(number=m, title=MATCHING_TITLE)
        assert send_signed(server.base, "pull_request", opened, "older-failed") == 202
        wait_until(lambda: server.health()["failed"] == 1, timeout=30, what="GitHub down")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    fake.clear_faults()
    assert replies(fake) == [] and sticky(fake, m) is None
    with serving(settings) as (client, rt):
        tune(rt)
        (k,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
        assert k.comment_id == c.id and not k.answered
        fake.unlock(DEFAULT_REPO, N)
        deliver_pr(client, rt, action="unlocked", title=MATCHING_TITLE)
        assert rt.queue.retry(["older-failed"]) == ["older-failed"]
        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        assert len(replies(fake)) == 1 and "+1" in reactions(fake, c)
        assert sticky(fake, m) is not None and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


def test_a_rollback_past_deferred_between_two_edits_events_answers_what_that_release_did(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'A rollback past the release that records what a kept comment's
    edits ran or left': `/notes help` said just before the lock (kept), edited (a search
    for the help) and again (the help put back), both before the lock. This release ran
    the second edit's event: the help it put back left to the release (`deferred`).
    Rolled back before the first edit's event: the older release, meeting the lock, keeps
    that edit's text over the row, which held the help's line in `deferred` alone: the
    unlock answers the search, and the help is not answered (as that release always
    did). Forward again, nothing is left kept, and nothing failed."""
    from tests.command_kit import N, replies
    from tests.fake_github import iso_time
    from tests.test_unlocks import _edited_unlocked, _help_kept_then_edited_twice
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        c, kept, first = _help_kept_then_edited_twice(client, rt, fake)
        second = _edited_unlocked(c, c.body, first, c.created_at + 20)
        assert post(client, "issue_comment", second).status_code == 202
        drain(rt)
        row = rt.ctx.locked.db.execute("SELECT deferred FROM locked_commands")[0]
        assert row["deferred"] == '["/notes help"]'  # the new column, filled
    earlier = _edited_unlocked(c, first, kept, c.created_at + 10)
    unlock = pr_payload(
        "unlocked", number=N, title=MATCHING_TITLE, updated_at=iso_time(c.created_at + 200)
    )
    server = old_server(tmp_path, fake, app_key, settings, DEPLOYED)
    _run_on_the_older_release(server, [("issue_comment", earlier)])
    fake.unlock(DEFAULT_REPO, N)
    _run_on_the_older_release(server, [("pull_request", unlock)], "older-unlock")
    assert len(replies(fake)) == 1  # the search's; the help's lost, as that release did
    with serving(settings) as (client, rt):
        tune(rt)
        assert rt.ctx.locked.kept(DEFAULT_REPO, N) == [] and rt.queue.counts()["failed"] == 0


@pytest.mark.parametrize("rev", [DEPLOYED, KEYED_WITH_REASONS])
def test_an_upgrade_from_the_deployed_release_pays_the_write_back_it_owed(
    tmp_path, fake_github, app_key, monkeypatch, rev
):
    """The upgrade walked: under the deployed release a maintainer rewrites the notes
    comment twice while its late edit is in flight, which lands over both; the first
    rewrite's write-back fails (GitHub down: the delivery failed, their words owed). This
    release on the same file: the retry writes their first words back, their second
    edit's event its own over them, and the PR's next event leaves the comment, given
    back, as it is (the rewrite counted as a deletion): their newest words shown, no
    comment posted anew, nothing failed. The same from the release before write-backs
    answered a `RestoreOutcome`: the state one keeps is stored as it was."""
    from tests.command_kit import N
    from tests.test_comment_rewrites import AGAIN, THEIRS, rewrite, sent
    from tests.webhook_kit import HEAD, drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key, head=HEAD)
    made: list[dict] = []
    server = _older_failing_at_once(tmp_path, fake, app_key, settings, rev)
    with server.run():
        opened = pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:01Z")
        _run_on_the_older_release(server, [("pull_request", opened)], "older-opened")
        c = sticky(fake, N)

        def twice() -> None:
            made.append(rewrite(fake, c, THEIRS, ago=2))
            made.append(rewrite(fake, fake.comment(c.id), AGAIN, ago=1))

        fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", Fault.landed_after(twice))
        late = pr_payload(**labeled_one_more_note(number=N, updated_at="2026-09-01T10:00:05Z"))
        _run_on_the_older_release(server, [("pull_request", late)], "older-late")
        assert fake.comment(c.id).body.startswith("<!--")  # ours, over both rewrites
        fake.inject("PATCH", f"/repos/*/issues/comments/{c.id}", *[Fault.error(502)] * 20)
        assert send_signed(server.base, "issue_comment", made[0], "older-rewrite") == 202
        wait_until(lambda: server.health()["failed"] == 1, what="the write-back failed")
    fake.clear_faults()
    with serving(settings) as (client, rt):
        tune(rt)
        assert state(rt, N).write_back.text == THEIRS  # owed by the older release
        assert rt.queue.retry(["older-rewrite"]) == ["older-rewrite"]
        drain(rt)
        assert fake.comment(c.id).body == THEIRS
        sent(client, rt, made[1])
        assert fake.comment(c.id).body == AGAIN
        deliver_pr(client, rt, number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:01:00Z")
        assert rt.queue.counts()["failed"] == 0 and fake.comment(c.id).body == AGAIN
        assert [x.id for x in ours(fake, N)] == [c.id]  # no comment posted anew
        assert state(rt, N).given_back == (c.id,) and state(rt, N).opted_out


def test_an_upgrade_between_two_edits_events_leaves_what_the_older_release_left_unanswered(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The walk above the other way round (an upgrade, the limit docs/upgrading.md says):
    `/notes help` said just before the lock, edited twice before it (taken out for a
    search, put back). The deployed release keeps the comment and runs the second edit's
    event, which leaves the help to the unlock, recording nothing. Upgraded before the
    first edit's event: this release, meeting the lock, keeps that edit's text over the
    row (no `deferred` to keep above it), and the unlock answers the search alone."""
    import time

    from tests.command_kit import N, comment_payload, replies, unlocked
    from tests.test_unlocks import _edited_unlocked
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    fake.lock(DEFAULT_REPO, N)
    c = fake.add_comment(DEFAULT_REPO, N, "/notes help", login="octo-dev")
    c.created_at = c.updated_at = time.time() - 120
    said = comment_payload(c)
    said["issue"].update(locked=False, active_lock_reason=None)
    kept, first = c.body, "/notes search cache"
    c.body = f"{first}\n/notes help"  # both edits in the web UI, before the lock
    second = _edited_unlocked(c, c.body, first, c.created_at + 20)
    server = old_server(tmp_path, fake, app_key, settings, DEPLOYED)
    _run_on_the_older_release(server, [("issue_comment", said)], "older-said")
    _run_on_the_older_release(server, [("issue_comment", second)], "older-second")
    assert replies(fake) == []
    with serving(settings) as (client, rt):
        tune(rt)
        (row,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
        assert row.body == kept
        earlier = _edited_unlocked(c, first, kept, c.created_at + 10)
        assert post(client, "issue_comment", earlier).status_code == 202
        drain(rt)
        unlocked(client, rt, fake, "2026-09-01T10:01:00Z")
        assert rt.queue.counts()["failed"] == 0
        assert len(replies(fake)) == 1  # the search's: the help, left by the older release, lost


# settings the deployed release took and this one refuses, and the variable upgrading.md
# must name for them (the server does not start on them)
_REFUSED_SINCE_DEPLOYED = [
    ("REVIEW_NOTES_NOTES_GITHUB_BRANCH", "my branch"),
    ("REVIEW_NOTES_NOTES_GITHUB_BRANCH", "notes..old"),
    ("REVIEW_NOTES_NOTES_GITHUB_DIR", "seeds/./notes"),
    ("REVIEW_NOTES_NOTES_GITHUB_DIR", "seeds//notes"),
    ("GITHUB_WEBHOOK_SECRET", "s3cret"),  # shorter than 16 characters: guessed
    ("GITHUB_PREVIOUS_WEBHOOK_SECRET", "s3cret"),
]
_LOADS = (
    "from bot.settings import load_settings\n"
    "try:\n    load_settings(env_file=None)\n"
    "except Exception as exc:\n    print(exc)\n    raise SystemExit(1)\n"
)


@pytest.mark.parametrize(("name", "value"), _REFUSED_SINCE_DEPLOYED)
def test_a_setting_the_deployed_release_took_and_this_one_refuses_is_in_upgrading(
    tmp_path, name, value
):
    """docs/upgrading.md lists what this release refuses that an older one took, to check
    before upgrading: the deployed release starts on each of these, this one does not."""
    from tests.docs_kit import doc
    from tests.webhook_kit import PY, base_env

    env = base_env(tmp_path, REVIEW_NOTES_PUBLIC_URL="https://notes.example.org")
    env.update(GITHUB_TOKEN="t", GITHUB_WEBHOOK_SECRET="s3cret-of-the-hook")
    env[name] = value
    for where, refused in [(old_release(tmp_path, DEPLOYED), False), (ROOT, True)]:
        loaded = subprocess.run(
            [PY, "-c", _LOADS],
            env=env | {"PYTHONPATH": str(where)},
            cwd=tmp_path,  # (not this checkout: `-c` puts the directory first on the path)
            capture_output=True,
            text=True,
        )
        assert (loaded.returncode != 0) == refused, (where, loaded.stdout, loaded.stderr)
        if refused:
            assert name in loaded.stdout  # named at start, with what to change
    refusals = doc("upgrading.md").split("## What this release refuses")[1].split("\n## ")[0]
    assert f"`{name}`" in refusals, f"upgrading.md does not name {name} among the refusals"


def test_a_rollback_after_both_edits_events_runs_the_deferred_lines_kept_in_the_text(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'A rollback past the release that records what a kept comment's
    edits ran or left': the walk above, both edits' events run by this release (the
    first, meeting the lock, keeps the help's line above its text: `_with_deferred`).
    Rolled back before the unlock's event: the older release runs the kept text, which
    has the help's line, and answers the search and the help, once each."""
    from tests.command_kit import N, replies
    from tests.test_unlocks import _edited_unlocked, _help_kept_then_edited_twice
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        c, kept, first = _help_kept_then_edited_twice(client, rt, fake)
        for body, old, at in [(c.body, first, 20), (first, kept, 10)]:
            assert post(client, "issue_comment", _edited_unlocked(c, body, old, c.created_at + at))
            drain(rt)
        (row,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
        assert row.body.startswith("/notes help\n\n")  # the deferred line, above the text
    fake.unlock(DEFAULT_REPO, N)
    unlock = pr_payload("unlocked", number=N, title=MATCHING_TITLE)
    server = old_server(tmp_path, fake, app_key, settings, DEPLOYED)
    _run_on_the_older_release(server, [("pull_request", unlock)])
    assert len(replies(fake)) == 2  # the search's and the help's, once each


# --- the release before lists were keyed by their numbers alone and quoted ids named notes

# `wrong`s that release keyed otherwise (`Command.key`): a list with a reason, and a note's id
# in quotes (not one the test PR shows: named so now, it is answered that it is not shown)
REKEYED_WRONGS = ["/notes wrong 1,2 only renames", "/notes wrong 「vllm-17f5148d」"]
# `wrong`s the release before this one keyed with a reason: numbers joined by `and` (the
# first, `and 3` its reason), a note's number in quotes
AND_LIST, QUOTED_NUMBER = "/notes wrong 2 and 3", '/notes wrong "2"'


def _one_by_one(server: LiveServer, sends: list[tuple[str, dict]], tag: str) -> None:
    """The older release, started on the file, handles each event sent in turn, and drains."""
    with server.run():
        for i, (event, payload) in enumerate(sends):
            done = server.health()["done"]
            assert send_signed(server.base, event, payload, f"{tag}-{i}") == 202
            wait_until(lambda d=done: server.health()["done"] > d, what="the older release ran")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
        assert server.health()["failed"] == 0


def _opened_then_said_locked(fake, command: str) -> tuple[object, list[tuple[str, dict]]]:
    """The test PR's `opened` (its notes comment), then `command` said by a maintainer on
    it locked (kept for the unlock, GitHub refusing its 👀): the comment and the events."""
    from tests.command_kit import N, comment_payload

    fake.lock(DEFAULT_REPO, N)
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    c = fake.add_comment(DEFAULT_REPO, N, command, login="maintainer")
    said = comment_payload(c)
    said["issue"].update(locked=True, active_lock_reason="too heated")
    opened = pr_payload(number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:00:00Z")
    return c, [("pull_request", opened), ("issue_comment", said)]


def _taken_out_and_put_back_while_locked(c, command: str) -> list[tuple[str, dict]]:
    """The kept comment `c` edited twice while locked, the command taken out for a `why`
    and put back (in the web UI; the PR unlocked since, their events not run): the
    events, in order. The second's run answers the kept command (`answered`)."""
    from tests.command_kit import comment_payload
    from tests.fake_github import iso_time

    first, c.body = "/notes why", f"/notes why\n{command}"
    sends = []
    for body, old, at in [(first, command, 10), (c.body, first, 20)]:
        payload = comment_payload(c, action="edited", old_body=old)
        payload["comment"].update(body=body, updated_at=iso_time(c.created_at + at))
        payload["issue"].update(locked=True, active_lock_reason="too heated")
        sends.append(("issue_comment", payload))
    return sends


@pytest.mark.parametrize("command", REKEYED_WRONGS)
def test_an_upgrade_answers_no_kept_wrong_an_older_releases_edit_answered_again(
    tmp_path, fake_github, app_key, monkeypatch, command
):
    """The upgrade walked: kept `command` on a locked PR, edited while locked to take it
    out and again to put it back; unlocked, the older release ran both edits' events (the
    second answered it, its key in `answered` as that release keyed it). This release runs
    the unlock's event: the kept `wrong`, keyed otherwise now, was not found answered and
    was run again, a second reply notifying everyone."""
    from tests.command_kit import N, replies

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    c, sends = _opened_then_said_locked(fake, command)
    server = old_server(tmp_path, fake, app_key, settings, KEYED_WITH_REASONS)
    _one_by_one(server, sends, "older-said")
    fake.unlock(DEFAULT_REPO, N)  # its event after the edits'
    _one_by_one(server, _taken_out_and_put_back_while_locked(c, command), "older-edit")
    answered, hidden = len(replies(fake)), None
    with serving(settings) as (client, rt):
        tune(rt)
        (kept,) = rt.ctx.locked.kept(DEFAULT_REPO, N)
        assert kept.answered  # as the older release keyed it
        hidden = state(rt, N).dismissed
        deliver_pr(client, rt, action="unlocked", title=MATCHING_TITLE)
        assert rt.queue.counts()["failed"] == 0
        assert len(replies(fake)) == answered, "the kept `wrong` an edit answered, run again"
        assert state(rt, N).dismissed == hidden and rt.ctx.locked.kept(DEFAULT_REPO, N) == []


@pytest.mark.parametrize("command", REKEYED_WRONGS)
def test_an_upgrade_runs_no_kept_wrong_an_older_releases_unlock_ran_again(
    tmp_path, fake_github, app_key, monkeypatch, command
):
    """The upgrade walked: kept `command`, edited once unlocked, before the unlock's
    event (taken out for a `why`, put back). The older release ran the unlock's event,
    which ran the kept `wrong` and stored its key (`released_still`) as that release
    keyed it. This release runs the second edit's event, said before that run read the
    comment: its `wrong`, keyed otherwise now, was not found run, and was run again."""
    import time

    from tests.command_kit import N, replies
    from tests.test_unlocks import _edited_unlocked

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    c, sends = _opened_then_said_locked(fake, command)
    c.created_at = c.updated_at = time.time() - 120  # both edits before the unlock read it
    server = old_server(tmp_path, fake, app_key, settings, KEYED_WITH_REASONS)
    _one_by_one(server, sends, "older-said")
    fake.unlock(DEFAULT_REPO, N)
    first, c.body = "/notes why", f"/notes why\n{command}"  # both edits in the web UI
    unlock = pr_payload("unlocked", number=N, title=MATCHING_TITLE)
    _one_by_one(server, [("pull_request", unlock)], "older-unlock")
    answered = len(replies(fake))
    with serving(settings) as (client, rt):
        tune(rt)
        hidden = state(rt, N).dismissed
        second = _edited_unlocked(c, c.body, first, c.created_at + 20)
        assert post(client, "issue_comment", second).status_code == 202
        from tests.webhook_kit import drain

        drain(rt)
        assert rt.queue.counts()["failed"] == 0
        assert len(replies(fake)) == answered, "the kept `wrong` the unlock ran, run again"
        assert state(rt, N).dismissed == hidden


@pytest.mark.parametrize(
    ("rev", "command"),
    [
        (KEYED_WITH_REASONS, REKEYED_WRONGS[0]),
        (UNSIGNED, AND_LIST),
        (UNSIGNED, QUOTED_NUMBER),
    ],
    ids=["list-with-reason", "and-list", "quoted-number"],
)
def test_a_rollback_past_lists_keyed_alone_answers_a_kept_wrong_once(
    tmp_path, fake_github, app_key, monkeypatch, rev, command
):
    """docs/upgrading.md, 'A rollback past the release that keys a list of notes by its
    numbers alone': the walks above the other way round. Kept `command`, taken out and put
    back by two edits said locked, their events run by this release after the unlock (the
    second answers it: `answered`); rolled back, the older release runs the unlock's
    event. Kept again, edited once unlocked: this release's unlock runs it
    (`released_still`); the older release runs the edit said before that run read it.
    Defect: this release stored the keys alone, which an older release keys otherwise
    (`1,2 only renames` with its reason, `"2"` as a reason, `2 and 3` as 2 with the reason
    `and 3`): it answered such a `wrong` again each time, a second reply, or, for `wrong
    "2"` on the PR showing one note, that note hidden. Stored with its words as typed,
    which that release keys as it keys the command, it answers none again. (A quoted id
    is still answered again by KEYED_WITH_REASONS, which reads stored keys as stored and
    keys `「<id>」` as a reason: documented.)"""
    import time

    from tests.command_kit import N, replies
    from tests.test_unlocks import _edited_unlocked
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    c, sends = _opened_then_said_locked(fake, command)
    with serving(settings) as (client, rt):
        tune(rt)
        for event, payload in sends:
            assert post(client, event, payload).status_code == 202
            drain(rt)
        fake.unlock(DEFAULT_REPO, N)
        for event, payload in _taken_out_and_put_back_while_locked(c, command):
            assert post(client, event, payload).status_code == 202
            drain(rt)
        assert len(replies(fake)) == 1 and state(rt, N).dismissed == ()
    server = old_server(tmp_path, fake, app_key, settings, rev)
    unlock = pr_payload(
        "unlocked", number=N, title=MATCHING_TITLE, updated_at="2026-09-01T10:01:00Z"
    )
    _one_by_one(server, [("pull_request", unlock)], "older-unlock")
    assert len(replies(fake)) == 1  # answered by the edit's run: not again
    # kept again, on the PR locked again; edited once unlocked, before the unlock's event
    fake.lock(DEFAULT_REPO, N)
    d, said = _opened_then_said_locked(fake, command)
    d.created_at = d.updated_at = time.time() - 120  # both edits before the unlock read it
    first = "/notes why"
    with serving(settings) as (client, rt):
        tune(rt)
        assert post(client, "issue_comment", said[1][1]).status_code == 202
        drain(rt)
        fake.unlock(DEFAULT_REPO, N)
        d.body = f"{first}\n{command}"  # both edits in the web UI
        deliver_pr(
            client, rt, action="unlocked", title=MATCHING_TITLE, updated_at="2026-09-01T10:02:00Z"
        )
        assert len(replies(fake)) == 2 and rt.queue.counts()["failed"] == 0
    second = _edited_unlocked(d, d.body, first, d.created_at + 20)
    _one_by_one(server, [("issue_comment", second)], "older-second")
    assert len(replies(fake)) == 2  # run by the unlock's run: not again
    with serving(settings) as (client, rt):
        assert state(rt, N).dismissed == ()  # no note hidden by the older release


def test_a_rollback_past_the_signature_edits_the_signed_comment_and_forward_signs_it(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The signature goes last: the release before it finds the signed comment by the
    marker that still opens it and edits it in place (no second comment, which would
    notify everyone), unsigned; forward again, the next change of its text signs it."""
    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2030-01-01T10:00:00Z")
        signed = sticky(fake)
        assert SIGNATURE_OPENING in signed.body
    server = old_server(tmp_path, fake, app_key, settings, UNSIGNED)
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    with server.run():
        payload = pr_payload(**labeled_one_more_note(updated_at="2030-01-01T11:00:00Z"))
        assert send_signed(server.base, "pull_request", payload, "rollback-label") == 202
        wait_until(lambda: "**2. " in signed.body, what="the older release edits the comment")
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what="old queue drained",
        )
    assert ours(fake) == [signed] and SIGNATURE_OPENING not in signed.body
    with serving(settings) as (client, rt):
        tune(rt)
        say(client, rt, fake, "/notes why", login=AUTHOR)
        assert ours(fake) == [signed] and SIGNATURE_OPENING in signed.body


_LOST_EDITS = ("PATCH", f"/repos/{DEFAULT_REPO}/issues/comments/*")


def _one_more_note_edit_lost(fake, deliver) -> None:
    """The PR gets one note more, and the notes comment's edit that shows it lands on
    GitHub with every answer lost (502): the delivery (`deliver()`) fails, the state
    keeps the one note shown before and no text it trusts."""
    fake.pull(DEFAULT_REPO, N).title = title_with_one_more_note()
    fake.inject(*_LOST_EDITS, *[Fault.error(502, apply=True)] * 20)
    deliver()
    fake.clear_faults()
    assert "**2. " in sticky(fake).body  # GitHub shows note 2


def _wrong_2(fake) -> tuple[str, dict]:
    """The PR's author says `/notes wrong 2` of the comment as GitHub shows it."""
    from tests.command_kit import comment_payload

    said = fake.add_comment(DEFAULT_REPO, N, "/notes wrong 2", login=AUTHOR)
    return "issue_comment", comment_payload(said)


def test_an_upgrade_reads_back_a_notes_comment_the_release_before_signed_for_the_name(
    tmp_path, fake_github, app_key, monkeypatch
):
    """The release before signed the notes comment for the repository's name; this one
    signs it for the id, and still verifies the name's: a comment that release wrote,
    its write's answer lost (the state not knowing what it shows), reads back after the
    upgrade, and `/notes wrong 2` hides the note 2 GitHub shows."""
    from tests.command_kit import replies
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    server = _older_failing_at_once(tmp_path, fake, app_key, settings, SIGNED_FOR_NAMES)
    with server.run():
        opened = pr_payload(title=MATCHING_TITLE, updated_at="2030-01-01T10:00:00Z")
        assert send_signed(server.base, "pull_request", opened, "older-opened") == 202
        wait_until(lambda: sticky(fake) is not None, what="the older release posts the notes")

        def labeled() -> None:
            more = pr_payload(**labeled_one_more_note(updated_at="2030-01-01T11:00:00Z"))
            assert send_signed(server.base, "pull_request", more, "older-labeled") == 202
            wait_until(lambda: server.health()["failed"] == 1, what="the edit's answers lost")

        _one_more_note_edit_lost(fake, labeled)
    with serving(settings) as (client, rt):
        tune(rt)
        kept = state(rt)
        assert kept.shown_unknown and len(kept.notes) == 1
        event, payload = _wrong_2(fake)
        assert post(client, event, payload).status_code == 202
        drain(rt)
        assert replies(fake) == []
        (note,) = state(rt).dismissed
        assert note != kept.notes[0] and [m.note_id for m in rt.ctx.feedback.marks()] == [note]


def test_a_rollback_to_the_release_signing_for_the_name_reads_no_id_signed_comment_back(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'The release that signs the notes comment': this release signs
    for the repository's id, which the release before does not verify. Its comment, the
    edit's answer lost, is read by that release's `/notes wrong 2` as a text that does
    not tell: it takes the one note kept, says the comment shows no note 2 and hides
    nothing (nothing marked, nothing posted but that reply, the comment left as it is).
    Forward again, the same command reads the comment back and hides note 2."""
    from tests.command_kit import replies
    from tests.webhook_kit import drain

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        tune(rt)
        deliver_pr(client, rt, title=MATCHING_TITLE, updated_at="2030-01-01T10:00:00Z")

        def labeled() -> None:
            more = labeled_one_more_note(updated_at="2030-01-01T11:00:00Z")
            assert rt.queue.get(deliver_pr(client, rt, **more)["delivery"]).state == "failed"

        _one_more_note_edit_lost(fake, labeled)
        kept = state(rt)
        assert kept.shown_unknown and len(kept.notes) == 1
    shown = sticky(fake).body
    server = old_server(tmp_path, fake, app_key, settings, SIGNED_FOR_NAMES)
    _run_on_the_older_release(server, [_wrong_2(fake)])
    (reply,) = replies(fake)
    assert "There is no note `2` in the notes comment" in reply.body
    assert "nothing was hidden" in reply.body
    assert len(ours(fake)) == 2 and sticky(fake).body == shown  # the comment and the reply
    with serving(settings) as (client, rt):
        tune(rt)
        assert state(rt).dismissed == () and rt.ctx.feedback.marks() == []
        event, payload = _wrong_2(fake)
        assert post(client, event, payload).status_code == 202
        drain(rt)
        assert len(replies(fake)) == 1
        (note,) = state(rt).dismissed
        assert note != kept.notes[0] and [m.note_id for m in rt.ctx.feedback.marks()] == [note]


# --- owed runs and reply-copies checks across a rollback ---


def _pending_due_now(rt) -> None:
    """What waits in this release's queue (for a budget's refill, a delay) made due now."""
    from bot.times import utcnow

    due = "UPDATE deliveries SET not_before = ? WHERE state = 'pending'"
    rt.queue.db.execute(due, (utcnow(),))


def _older_release_runs_the_queue(server: LiveServer, what: str) -> None:
    """The older release started on the queue this one left, until it has run `what`
    and the rest, none failed."""
    with server.run():
        wait_until(
            lambda: server.health()["pending"] == server.health()["processing"] == 0,
            what=f"the older release ran {what}",
        )
        assert server.health()["failed"] == 0


def test_a_rollback_runs_an_owed_kept_command_and_answers_none_again(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Kept `/notes help` and `/notes search deadlock` on the locked PR, with one reply of
    the PR's two left at the unlock: the release's run answers `help` and leaves `search`
    owed, queued again (`#owed1`) for when the budget refills. Rolled back before it ran,
    the release before owed runs reads the run's payload as the kept comment's: it
    answered nothing ("no new command"), the unlock's read (`released_still`) taken for
    an answer to both, and `search` was lost. It must answer `search`, and not `help` a
    second time (a duplicate reply, everyone notified)."""
    from bot.commands import CommandConfig
    from tests.command_kit import replies, unlocked
    from tests.test_unlocks import said_while_locked

    fake = fake_github
    settings = _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    with serving(settings) as (client, rt):
        now = [50.0]
        tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=2), clock=lambda: now[0])
        say(client, rt, fake, "/notes")
        say(client, rt, fake, "/notes help")  # one of the PR's two replies
        fake.lock(DEFAULT_REPO, N)
        said_while_locked(client, rt, fake, "/notes help\n\n/notes search deadlock")
        unlocked(client, rt, fake, "2026-09-01T10:01:00Z", drained=False)
        wait_until(lambda: rt.queue.counts()["pending"] == 1, what="the release's run")
        assert len(replies(fake)) == 2  # `help` answered; `search` owed
        (owed,) = rt.queue.db.execute("SELECT id FROM deliveries WHERE state = 'pending'")
        assert owed["id"].endswith("#owed1")
        _pending_due_now(rt)  # the budget's refill is over by the time the older release runs
    server = old_server(tmp_path, fake, app_key, settings, UNSIGNED)
    _older_release_runs_the_queue(server, "the owed run")
    bodies = [r.body for r in replies(fake)]
    assert len(bodies) == 3, bodies  # `search` answered, `help` not again
    assert "search" in bodies[2].lower() and "/notes topic" not in bodies[2]


def test_a_rollback_leaves_a_reply_copies_check_done_unrun_and_says_so(
    tmp_path, fake_github, app_key, monkeypatch
):
    """docs/upgrading.md, 'A rollback past the release that deletes a reply's later
    copies': a reply posted twice (its answer lost, the list lagging) queues a check of
    the bot's own. Rolled back before it ran, the release before it has no handler for
    it: done (not failed, not run again), the log naming it, both copies left as that
    release always left them; forward again, nothing runs it."""
    from bot.commands import CommandConfig
    from bot.reply_copies import CHECK_ACTION
    from tests.command_kit import replies

    fake = fake_github
    _a_matching_pr(monkeypatch, tmp_path, fake, app_key)
    settings = live_settings(
        tmp_path, fake, app_key, lost_create_wait=0.05, reply_copies_check_after=3600
    )
    with serving(settings) as (client, rt):
        tune(rt, CommandConfig(min_update_interval_s=0, reply_burst=2), clock=lambda: 50.0)
        fake.lag_comment_lists(seconds=0.4)
        fake.inject(
            "POST", f"/repos/{DEFAULT_REPO}/issues/{N}/comments", Fault.error(502, apply=True)
        )
        say(client, rt, fake, "/notes help", wait=False)
        wait_until(lambda: len(replies(fake)) == 2, what="the reply posted twice")
        fake.lag_comment_lists()
        wait_until(lambda: rt.queue.counts()["pending"] == 1, what="the copies' check queued")
        (check,) = rt.queue.db.execute("SELECT id FROM deliveries WHERE state = 'pending'")
        _pending_due_now(rt)
    server = old_server(tmp_path, fake, app_key, settings, UNSIGNED)
    _older_release_runs_the_queue(server, "the check")
    logged = server.logs[-1].read_text()
    assert f"{check['id']} pull_request.{CHECK_ACTION}" in logged
    assert f"ignored: no handler for pull_request.{CHECK_ACTION}" in logged
    assert len(replies(fake)) == 2  # as the older release left every copy
    with serving(settings) as (client, rt):
        assert rt.queue.get(check["id"]).state == "done"
        assert rt.queue.counts()["pending"] == 0


# --- what this release refuses of a library the release before it took ---


def _regex_aspect(text: str) -> str:
    return text.replace("aspects = [", 'aspects = ["partial.*hit", ', 1)


def _pasted_second_note(text: str) -> str:
    return text + '\n+++\nid = "vllm-99999999"\nrepo = "vllm-project/vllm"\n+++\nguidance\n'


def _invisible_title(text: str) -> str:
    import re

    return re.sub(r'^title_en = ".*"$', 'title_en = "\u200b"', text, count=1, flags=re.M)


_NOTES_REFUSED_SINCE_UNSIGNED = [
    (_regex_aspect, "regular expression"),
    (_pasted_second_note, "second note"),
    (_invisible_title, "invisible characters alone"),
]


@pytest.mark.parametrize(("edit", "named"), _NOTES_REFUSED_SINCE_UNSIGNED)
def test_a_note_the_release_before_took_and_this_one_refuses_is_in_upgrading(tmp_path, edit, named):
    """docs/upgrading.md lists the notes this release refuses that an older one took: the
    server does not start on them, so a curator checks them before the upgrade. The
    release before took each of these (its `notes check` says ok), this one does not."""
    import shutil

    from tests.docs_kit import doc
    from tests.webhook_kit import PY, base_env

    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "seeds" / "notes", notes)
    note = next(p for p in sorted(notes.glob("*.md")) if "\naspects = [" in p.read_text())
    note.write_text(edit(note.read_text("utf-8")), "utf-8")
    for where, refused in [(old_release(tmp_path, UNSIGNED), False), (ROOT, True)]:
        checked = subprocess.run(
            [PY, "-m", "bot.cli", "notes", "check", str(notes)]
            + ["--topics", str(where / "config" / "topics.toml")]
            + ["--config", str(where / "config" / "matching.toml")],
            env=base_env(tmp_path) | {"PYTHONPATH": str(where)},
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert (checked.returncode != 0) == refused, (where, checked.stdout, checked.stderr)
    refusals = doc("upgrading.md").split("## What this release refuses")[1].split("\n## ")[0]
    assert named in " ".join(refusals.split()), f"upgrading.md does not name a {named!r} note"

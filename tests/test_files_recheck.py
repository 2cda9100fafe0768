"""bot.files_recheck's reading of the PR's state: whether the list it holds is short of
the PR's files at its head (then a command's update looks again), and whether the
comment shows the notes a command asked for under a paused line (then shown again).
Its re-check (`handle_recheck`) on the real refresh and SQLite, through the dry-run
port answering the PR as GitHub would. End to end, with the fake's lag:
tests/test_command_updates.py."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.commands import load_command_config
from bot.context import BotContext
from bot.db import Database
from bot.dryrun import DryRunGitHub
from bot.files_recheck import _LOOK, RECHECK_ACTION, _schedule, handle_recheck, short_at_head
from bot.github_port import ConversationLocked, FileList, FilesNotReady, PRRef, listed_short
from bot.library import load_library
from bot.markers import MARKER
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher
from bot.prfacts import PRFacts
from bot.prstate import PRState, PRStore
from bot.queue import Delivery, DeliveryQueue
from bot.render import PauseCause, render_paused
from bot.sticky import body_hash
from tests.test_listing_lag import NOTE_FILE
from tests.webhook_kit import MATCHING_FILES, UNRELATED_TITLE, clean_env, make_settings

HEAD = "b" * 40


def _pr(changed: int | None, head: str = HEAD) -> PRFacts:
    return PRFacts(repo="o/r", number=1, title="t", head_sha=head, changed_files=changed)


def _held(listed: int | None, at: str | None = HEAD) -> PRState:
    return PRState(repo="o/r", number=1, files_sha=at, files=("a.py",), files_listed=listed)


@pytest.mark.parametrize(
    ("state", "facts", "short"),
    [
        (_held(0), _pr(2), True),  # GitHub's list lags the push
        (_held(2), _pr(2), False),  # the whole list
        (_held(0, at="a" * 40), _pr(2), False),  # another head's: a push's event looks
        (_held(None), _pr(2), False),  # a list given by hand, no count of GitHub's
        (_held(0), _pr(None), False),  # no count of the PR's to hold it to
        (_held(0, at=""), _pr(2, head=""), False),  # no head known: nothing to hold
    ],
)
def test_a_list_is_short_at_the_head_only_by_github_s_count_of_that_head(state, facts, short):
    assert short_at_head(state, facts) is short


# --- handle_recheck: the real refresh on real SQLite, through the dry-run port (its
# comments a table) answering the PR as GitHub's GET and file list would -------------

REF = PRRef("vllm-project/vllm", 7301, 1001)
REPO_ID = 42
DOCS = "docs/contributing.md"  # no note's path
DELAYS = (60.0, 120.0)


class LaggingPort(DryRunGitHub):
    """The PR at HEAD with two changed files, GitHub's list of which holds `paths` (short
    of them: FilesNotReady, as bot.github_client.list_files raises); `closed`, `locked`
    (a write refused) as set; `pulls=False`: no PR to GET, as a dry run."""

    def __init__(self, db: Database):
        super().__init__(db)
        self.paths = [DOCS]
        self.closed = self.locked = False
        self.pulls = True
        self.listings = 0

    def get_pull(self, ref):
        if not self.pulls:
            return None
        return PRFacts(
            repo=ref.repo,
            number=ref.number,
            title=UNRELATED_TITLE,
            head_sha=HEAD,
            changed_files=2,
            closed=self.closed,
        )

    def list_files(self, ref, *, expected=None):
        self.listings += 1
        if expected is not None and listed_short(len(self.paths), expected):
            raise FilesNotReady(ref, len(self.paths), expected)
        return FileList(self.paths, {}, frozenset(), listed=len(self.paths), head=HEAD)

    def upsert_sticky(self, ref, body, marker, **kw):
        if self.locked:
            raise ConversationLocked("locked")
        return super().upsert_sticky(ref, body, marker, **kw)


@pytest.fixture
def ctx(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    db = Database(tmp_path / "recheck.sqlite3")
    settings = make_settings(tmp_path, files_recheck_delays=DELAYS)
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    yield BotContext(
        settings,
        lib,
        matcher,
        LaggingPort(db),
        PRStore(db),
        commands=load_command_config(),
        queue=DeliveryQueue(db),
    )
    db.close()


def _held_short(ctx, **changes) -> None:
    """The PR's state as a command's update left it: GitHub's list at HEAD held, one
    file of the two (short)."""
    state = PRState(REF.repo, REF.number, files_sha=HEAD, files=(DOCS,), files_listed=1)
    ctx.prs.put(replace(state, **changes))
    ctx.prs.db.execute("UPDATE pr_state SET repo_id = ?", (REPO_ID,))  # as a delivery marks it


def _rechecked(ctx, look: int) -> str:
    """Re-check `look` as the command queued it, run as a worker would (claimed, then
    done, whatever it raised: the PR's next delivery may run); what it said."""
    _schedule(ctx, REF, look, 0.0, REPO_ID)
    delivery = _claimed(ctx)
    try:
        return handle_recheck(ctx, delivery)
    finally:
        ctx.queue.complete(delivery.id)


def _claimed(ctx) -> Delivery:
    delivery = ctx.queue.claim()
    assert delivery is not None and delivery.action == RECHECK_ACTION
    return delivery


def _caught_up(ctx) -> None:
    ctx.github.paths = [DOCS, MATCHING_FILES[0]]


def _shown(ctx) -> list[str]:
    return [c["body"] for c in ctx.github.comments(REF.repo, REF.number)]


def test_a_re_check_on_a_list_still_short_with_looks_left_queues_the_next(ctx):
    _held_short(ctx)
    said = _rechecked(ctx, 1)
    assert said == "GitHub listed 1 of 2 changed files; looking again in 120s"
    assert ctx.github.listings == 1 and _shown(ctx) == []
    ctx.queue.db.execute("UPDATE deliveries SET not_before = NULL")  # due now
    assert _claimed(ctx).payload[_LOOK] == 2


def test_the_last_re_check_takes_the_list_as_it_is(ctx):
    _held_short(ctx)
    ctx.github.paths = [MATCHING_FILES[0]]  # still one of the two: a note's
    said = _rechecked(ctx, len(DELAYS))
    shown = _shown(ctx)
    assert len(shown) == 1 and ctx.queue.claim() is None
    comment = ctx.prs.get(REF.repo, REF.number).comment_id
    assert said == f"created (comment {comment}): 1 note(s)"


def test_a_re_check_whose_list_is_whole_now_looks_at_nothing(ctx):
    _held_short(ctx, files_listed=2)  # a look since had the PR's files
    said = _rechecked(ctx, 1)
    assert said == "nothing to look at again: the list held is not short of the PR's files now"
    assert ctx.github.listings == 0 and _shown(ctx) == [] and ctx.queue.claim() is None


def test_a_re_check_with_no_pr_to_get_looks_at_nothing(ctx):
    _held_short(ctx)
    ctx.github.pulls = False  # a dry run's port
    said = _rechecked(ctx, 1)
    assert said.startswith("nothing to look at again")
    assert ctx.github.listings == 0 and _shown(ctx) == []


def test_a_re_check_of_a_pr_kept_under_its_repositorys_new_name_is_queued_there_at_once(ctx):
    moved = "vllm-project/vllm-renamed"
    _held_short(ctx)
    ctx.prs.db.execute("UPDATE pr_state SET repo = ?", (moved,))
    said = _rechecked(ctx, 2)
    assert said == f"the PR's state is kept under {moved} now: its re-check is queued there"
    again = _claimed(ctx)  # due at once
    assert (again.repo, again.payload[_LOOK]) == (moved, 2)
    assert ctx.github.listings == 0


def _paused_showing(ctx, body: str) -> None:
    """Updates off (`/notes off`), the comment showing `body`, the list held short."""
    made = ctx.github.upsert_sticky(REF, body, MARKER, create=True)
    _held_short(
        ctx, opted_out=True, paused="command", comment_id=made.comment_id, body_hash=body_hash(body)
    )


def test_a_re_check_leaves_the_paused_line_alone_and_shows_notes_asked_for_again(ctx):
    short = render_paused(ctx.render_options(), by=PauseCause.COMMAND)
    _paused_showing(ctx, short)
    _caught_up(ctx)
    assert _rechecked(ctx, 1).startswith("skipped")
    assert _shown(ctx) == [short]  # as a PR event leaves it
    asked = f"{short}\n\nthe notes a command asked for"
    ctx.github.upsert_sticky(REF, asked, MARKER, create=False)
    _paused_showing(ctx, asked)
    _rechecked(ctx, 1)
    (body,) = _shown(ctx)
    assert body != asked and NOTE_FILE in body  # shown again, on the whole list


def test_a_closed_prs_notes_asked_for_are_not_shown_again(ctx):
    short = render_paused(ctx.render_options(), by=PauseCause.COMMAND)
    asked = f"{short}\n\nthe notes a command asked for"
    _paused_showing(ctx, asked)
    _caught_up(ctx)
    ctx.github.closed = True
    assert _rechecked(ctx, 1).startswith("skipped")
    assert _shown(ctx) == [asked]


def test_a_lock_owes_the_notes_asked_for_to_the_unlock_and_nothing_else(ctx):
    short = render_paused(ctx.render_options(), by=PauseCause.COMMAND)
    _paused_showing(ctx, f"{short}\n\nthe notes a command asked for")
    _caught_up(ctx)
    ctx.github.locked = True
    with pytest.raises(ConversationLocked):
        _rechecked(ctx, 1)
    owed = ctx.prs.get(REF.repo, REF.number).pending
    assert owed is not None and owed.show  # the unlock shows them
    ctx.prs.update(REF.repo, REF.number, pending=None, opted_out=False, paused=None)
    with pytest.raises(ConversationLocked):  # not forced: a PR event's write, owes nothing
        _rechecked(ctx, 1)
    assert ctx.prs.get(REF.repo, REF.number).pending is None

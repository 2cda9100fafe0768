"""The file cache when GitHub's listing lags behind a push: the real
`refresh_sticky` on real SQLite, through a port that lists a PR's files at a chosen
commit (as GitHub names it in `contents_url`) and answers the PR's own head as GitHub's
GET would. A listing at another head than the event's is looked at again when the PR is
at the event's head (GitHub's list lags), taken when the PR moved on.
"""

from __future__ import annotations

import pytest

from bot.commands import load_command_config
from bot.context import BotContext
from bot.db import Database
from bot.dryrun import DryRunGitHub
from bot.github_port import FileList, FilesNotReady, GitHubError, PRRef, listed_short
from bot.library import load_library
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher
from bot.prfacts import PRFacts
from bot.prstate import PRStore
from bot.sticky import refresh_sticky
from tests.webhook_kit import MATCHING_FILES, UNRELATED_TITLE, clean_env, make_settings

REF = PRRef("vllm-project/vllm", 7301, 1001)
A, B, C = "a" * 40, "b" * 40, "c" * 40
DOCS = ["docs/contributing.md"]  # no note's path
NOTE_FILE = "kv_cache_coordinator.py`"  # how the comment names MATCHING_FILES[0] (a code span)


class ListingPort(DryRunGitHub):
    """The dry-run port (SQLite comments), listing the PR's files as GitHub would: at the
    commit `head` (FileList.head, read from contents_url), `listed` entries, and short of
    `expected` raising FilesNotReady as bot.github_client.list_files does."""

    def __init__(self, db: Database):
        super().__init__(db)
        self.paths: list[str] = list(DOCS)
        self.head = self.pr_head = A
        self.listings = 0

    def at(self, head: str, paths: list[str]) -> None:
        self.head, self.paths = head, list(paths)

    def get_pull(self, ref):
        """The PR as GitHub's GET has it: at the head of the event or command in hand
        (`pr_head`), whatever its file list has caught up with."""
        return PRFacts(
            repo=ref.repo, number=ref.number, title=UNRELATED_TITLE, head_sha=self.pr_head
        )

    def list_files(self, ref, *, expected=None):
        self.listings += 1
        if expected is not None and listed_short(len(self.paths), expected):
            raise FilesNotReady(ref, len(self.paths), expected)
        return FileList(self.paths, {}, frozenset(), listed=len(self.paths), head=self.head)


@pytest.fixture
def ctx(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    db = Database(tmp_path / "listing-lag.sqlite3")
    settings = make_settings(tmp_path)
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    port = ListingPort(db)
    yield BotContext(settings, lib, matcher, port, PRStore(db), commands=load_command_config())
    db.close()


def _event(ctx, head: str, at: str, changed: int, *, expected: bool = True, pr_head: str = ""):
    """A PR event (as bot.pr_events hands it to refresh_sticky): its head, time and
    `changed_files`; `expected=False`: out of patience (the last re-check); `pr_head`:
    GitHub's PR is at another head already (else at the event's: pushed)."""
    ctx.github.pr_head = pr_head or head
    facts = PRFacts(
        repo=REF.repo,
        number=REF.number,
        title=UNRELATED_TITLE,
        head_sha=head,
        base_ref="main",
        changed_files=changed,
    )
    return refresh_sticky(
        ctx, REF, facts, event_at=at, expected_files=changed if expected else None
    )


def _command(ctx, head: str):
    """`/notes` (bot.command_updates): the PR as GitHub's GET has it, forced, no count."""
    ctx.github.pr_head = head
    facts = PRFacts(
        repo=REF.repo, number=REF.number, title=UNRELATED_TITLE, head_sha=head, base_ref="main"
    )
    return refresh_sticky(ctx, REF, facts, force=True)


def _bodies(ctx) -> list[str]:
    return [c["body"] for c in ctx.github.comments(REF.repo, REF.number)]


# --- the file cache: "the head before" is not the state's head -----------------------


def test_a_push_after_a_push_still_waiting_is_matched_on_the_head_before_it(ctx):
    """Two quick pushes, A -> B -> C. B's `synchronize` finds GitHub still listing at A
    (the state's head): FilesNotReady, as 7db4af0 claims, and B's re-check waits. C's
    `synchronize` is handled next, while GitHub's list has caught up only with B (the
    head before C, and a note's file; same count, so `changed_files` cannot tell). The
    check compares the listing's commit with `state.head_sha`, the last head MATCHED
    (still A: B's event raised before anything was saved), not with the head before the
    event's, so it does not fire: C's event, the newest, is matched and written on B's
    files, and cached under B, although C touches only docs. The comment names a file C
    does not change until some later event. Cause: bot/sticky.py `_with_files` (the
    `listed.head == state.head_sha` condition)."""
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)  # docs at A: no note, state.head_sha = A
    ctx.github.at(A, DOCS)  # GitHub has not caught up with B yet
    with pytest.raises(FilesNotReady):
        _event(ctx, B, "2026-09-01T10:00:10Z", 1)
    ctx.github.at(B, MATCHING_FILES)  # now it lists B's files; C (docs) was pushed since
    try:
        _event(ctx, C, "2026-09-01T10:00:20Z", 1)
    except FilesNotReady:
        pass  # looked at again later: right
    shown = "\n".join(_bodies(ctx))
    assert NOTE_FILE not in shown, (
        "head C (a docs change) was matched on head B's listing: " + shown[:300]
    )


def test_a_command_after_a_push_hides_the_lag_from_the_push_s_own_event(ctx):
    """Push A -> B; a reviewer's `/notes` runs before B's `synchronize` (a command
    answers at once: no count, no FilesNotReady) and GitHub still lists at A, so the
    command matches on A's docs change (accepted for a command) and saves
    `state.head_sha = B` with A's list cached under A. Then B's `synchronize`, with all
    its patience, lists again (the cache is A's) and GitHub still answers at A: the
    listing's commit is not the event's head, it is the head before (A), yet the check
    compares it with `state.head_sha`, now B, so no FilesNotReady: the push's own event
    settles on A's files and B's note (its file is a note's path) is never shown. The
    same happens after a last re-check out of patience (it too saves the event's head
    with another head's list). Cause: bot/sticky.py `_with_files` takes the state's head
    for "the head before this event's"; it is only the head last matched."""
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)  # docs at A: no note
    ctx.github.at(A, DOCS)  # B (a note's file) pushed; GitHub's list still A's
    _command(ctx, B)
    try:
        _event(ctx, B, "2026-09-01T10:00:10Z", 1)
    except FilesNotReady:
        pass  # looked at again later: right
    else:
        shown = "\n".join(_bodies(ctx))
        assert NOTE_FILE in shown, "B's synchronize settled on A's listing: " + shown[:300]


# --- a listing at neither the event's head nor the PR's; a failing GET of the PR ------


def test_a_listing_at_neither_the_events_head_nor_the_prs_is_not_taken_as_the_prs_now(ctx):
    """Pushes A -> B -> C in quick succession (B and C change a note's file, A only docs).
    B's `synchronize` runs while GitHub's PR is already at C and its file list still at A.
    e7ba2e7 claims: a listing at another head than the event's costs one GET; "else the
    PR moved on and the list is the PR's now, cached under its commit". Here the GET says
    C, the list says A: the list is neither the event's nor the PR's now, it lags behind
    both, yet it is taken: B's event is settled (no re-check) on A's docs list and shows
    no note, although both B and C change the note's file. At 2e3b310 (the commit before)
    the same event raised FilesNotReady (the listing was at the state's head A) and was
    looked at again; the harm lasts until C's own event lists again.
    Cause: bot/sticky.py `_with_files` raises only when `now.head_sha == head_sha`.
    Fix: take the list only when `listed.head == now.head_sha` (the PR's now); any other
    listed head lags: FilesNotReady."""
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)  # docs at A: no note, state.head_sha = A
    ctx.github.at(A, DOCS)  # B, C pushed; GitHub's list still A's
    try:
        _event(ctx, B, "2026-09-01T10:00:10Z", 1, pr_head=C)
    except FilesNotReady:
        return  # looked at again later: right
    shown = "\n".join(_bodies(ctx))
    assert NOTE_FILE in shown, (
        "B's event was settled on A's listing (neither B's nor the PR's head C): "
        + repr(shown[:300])
    )


class _FailingGet:
    """Makes the port's GET of the PR fail as bot.github_client.get_pull does once its
    tries are used up."""

    def __init__(self, status: int):
        self.status, self.calls = status, 0

    def __call__(self, ref):
        self.calls += 1
        raise GitHubError(
            f"GitHub get {ref.repo} PR {ref.number}: {self.status}",
            status=self.status,
            transient=self.status >= 500,
        )


@pytest.mark.parametrize("status", [502, 404])
def test_a_failing_get_of_a_pr_that_moved_on_does_not_fail_an_event_that_did_not_need_it(
    ctx, status
):
    """B's `synchronize` runs while the PR has moved on to C and GitHub lists C's files
    (a note's file): at 696968a and 2e3b310 the list was taken (cached under C, the note
    shown) with no further call. e7ba2e7 first GETs the PR to tell a lag from a move, and a GitHub
    error on that GET (a 502 after the client's tries, a 404) escapes `refresh_sticky`:
    the delivery is left `failed` (bot/github_port.py GitHubError: only a rate limit
    puts a delivery back), where it succeeded before. Cause: bot/sticky.py `_with_files`
    calls `ctx.github.get_pull` unguarded. Fix: on a GitHubError from that GET, fall back
    to what needs no call (take the list, or FilesNotReady while re-checks remain)."""
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)  # docs at A
    ctx.github.at(C, MATCHING_FILES)  # the PR moved on to C; GitHub lists C's files
    ctx.github.get_pull = _FailingGet(status)
    try:
        _event(ctx, B, "2026-09-01T10:00:10Z", 1, pr_head=C)
    except FilesNotReady:
        pass  # looked at again later: acceptable
    except GitHubError as err:
        pytest.fail(f"the event fails on the new GET of the PR: {err}")


def test_a_failing_get_on_a_lagging_listing_does_not_fail_the_event_instead_of_a_recheck(ctx):
    """Push A -> B; B's `synchronize` finds GitHub's list still at A (the head before,
    the state's head). At 2e3b310: FilesNotReady, the event looked at again later, no
    GET (at 696968a: no lag check, no GET, no failure).
    e7ba2e7 GETs the PR first; a 502 on it (tries used up) fails the delivery for
    good instead (left `failed` until `review-notes retry` or a redelivery), and B's
    note is never shown by this event. Cause: bot/sticky.py `_with_files` (the unguarded
    `ctx.github.get_pull`). Fix: a failed GET means "cannot tell": FilesNotReady while
    re-checks remain (the re-check costs no more than a failed delivery)."""
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)
    ctx.github.at(A, DOCS)
    ctx.github.get_pull = _FailingGet(502)
    try:
        _event(ctx, B, "2026-09-01T10:00:10Z", 1, pr_head=B)
    except FilesNotReady:
        pass  # looked at again later: right (as at 2e3b310)
    except GitHubError as err:
        pytest.fail(f"a lagging list now fails its event instead of a re-check: {err}")


# kills: bot/sticky.py:_with_files `moved_on = False` (GET failed) -> `moved_on = True`
def test_a_failing_get_on_a_listing_at_another_head_is_looked_at_again_not_taken(ctx):
    # the GET cannot tell a lag from a move: while re-checks remain the event waits, and
    # nothing of the listing (at A, the head before B) is matched or saved as B's
    _event(ctx, A, "2026-09-01T10:00:00Z", 1)  # docs at A: no note
    ctx.github.at(A, DOCS)  # B pushed; GitHub's list still A's
    ctx.github.get_pull = _FailingGet(502)
    with pytest.raises(FilesNotReady) as short:
        _event(ctx, B, "2026-09-01T10:00:10Z", 1, pr_head=B)
    assert f"files at {A[:12]}" in str(short.value) and ctx.github.get_pull.calls == 1
    assert ctx.prs.get(REF.repo, REF.number).head_sha == A, "A's list was taken for B"

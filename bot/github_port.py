"""What the bot needs from GitHub, as one narrow interface (`GitHubPort`), and the words
the handlers and the workers share about GitHub without importing the client.

The real implementation is `bot.github_client.GitHubClient` (PyGithub); the dry run
(`bot.dryrun`) records instead of writing. Handlers depend on this Protocol only, so the
core never imports PyGithub. Beside it:

- which PR a call is about (`PRRef`, read from a payload by `ref_from_payload`);
- what its answers are (`FileList`, `StickyResult`, `Outcome`, `RestoreResult`);
- how a call failed (`GitHubError`, `NotInstalled`, `ClientClosed`, `FilesNotReady`,
  `ConversationLocked`), and what the workers make of it: a rate limit to wait out
  (`rate_limit_wait`), an outage (`github_outage`), a call never sent (`never_sent`);
- what a run's calls did, told to the caller without passing it through every
  signature: the comment writes it asked for (`counting_writes`) and the rate limits it
  met (`watching_limits`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from bot.prstate import NO_HISTORY, WriteBackHistory
from bot.times import utcnow

if TYPE_CHECKING:
    from bot.installations import InstallationChange
    from bot.prfacts import PRFacts


@dataclass(frozen=True)
class PRRef:
    """Which pull request, and through which App installation (None: plain token)."""

    repo: str  # "owner/name"
    number: int
    installation_id: int | None = None
    # `repository.id` (a rename keeps it): GitHub is addressed by it where known, so a
    # late delivery reaches this repository's PR, not one of the repository that took
    # its name since. None (the CLI, older queued payloads): by `repo`.
    repo_id: int | None = field(default=None, compare=False)


def ref_from_payload(payload: dict[str, Any], number: int) -> PRRef:
    """PR `number` of a webhook payload's repository, through the payload's installation
    (none: a repository webhook's, token setup). An installation of another type (a
    signed body is still anyone's with the secret) is a ValueError naming the field,
    where it failed the delivery with "'int' object has no attribute 'get'"."""
    installation = payload.get("installation")
    if installation is not None and not isinstance(installation, dict):
        raise ValueError(f"installation: not an object ({type(installation).__name__})")
    found = (installation or {}).get("id")
    if found is not None and type(found) is not int:
        raise ValueError(f"installation.id: not an integer ({type(found).__name__})")
    return PRRef(
        repo=payload["repository"]["full_name"],
        number=number,
        installation_id=found or None,
        repo_id=repository_id(payload),
    )


# SQLite's INTEGER: a larger id (not GitHub's) is no id rather than an overflow
_MAX_ID = 2**63 - 1


def repository_id(payload: dict[str, Any]) -> int | None:
    """The payload's repository's id (`repository.id`), which a rename or a transfer
    keeps; None when it has none (hand-made payloads, our own deferred deliveries)."""
    repo = payload.get("repository")
    found = repo.get("id") if isinstance(repo, dict) else None
    return found if type(found) is int and 0 < found <= _MAX_ID else None


def own_payload(
    ref: PRRef, action: str, repo_id: int | None, pull: dict[str, Any]
) -> dict[str, Any]:
    """The payload of a `pull_request` delivery the bot queues for itself (a re-check, a
    deferred update): what `ref_from_payload` and `repository_id` read back, `ref` and
    `repo_id` (None: found by name alone), and the `pull` fields its handler asks for."""
    repository: dict[str, Any] = {"full_name": ref.repo}
    if repo_id is not None:
        repository["id"] = repo_id
    payload: dict[str, Any] = {"action": action, "repository": repository, "pull_request": pull}
    if ref.installation_id is not None:
        payload["installation"] = {"id": ref.installation_id}
    return payload


# GitHub lists at most this many files of a PR (REST `pulls/list-files`).
MAX_LISTED_FILES = 3000


def listed_short(listed: int, changed_files: int) -> bool:
    """GitHub listed fewer files than the PR's `changed_files` (up to its cap): its list
    has not caught up with a push yet."""
    return listed < min(changed_files, MAX_LISTED_FILES)


class Advisable(Exception):
    """A failure whose message may say itself what to do about it. `advised`: it names the
    fix and the `review-notes retry` to run once it is made (the App not installed, a
    permission lacking, the App's JWT refused), so a failed delivery's WARNING does not
    say it twice (`bot.workers.retry_hint`). Set where those words are written: nothing
    reads them back out of the text."""

    def __init__(self, message: str, *, advised: bool = False):
        super().__init__(message)
        self.advised = advised


class GitHubError(Advisable):
    """A GitHub call failed for good: not retryable, attempts used up, or asked to wait too long.

    `transient`: what kind of failure, not what happens next. True when its cause may
    pass with no change on our side (5xx, network, rate limit), False for a refusal
    that would repeat (404, 403 permission, 422). Nothing retries a call for it: the
    client has already used its tries. Only a rate limit with a `retry_after`
    (`rate_limit_wait`) puts its delivery back in the queue; any other failure, a
    transient 5xx included, leaves the delivery `failed` until `review-notes retry` or
    a redelivery. At start, `check_app_credentials` (`check_token_credentials` with a
    token) warns on a transient one instead of refusing the credentials. `retry_after`:
    seconds GitHub asked us to wait, when it said so. `sent`: False when the call never
    went out: none of its tries did (each was held back, by a rate limit pause or the
    client's close, or failed connecting, or another server than GitHub's API answered
    it), or it was never tried (its token's mint failed, a 404 kept from a call before):
    GitHub saw nothing of it (`never_sent`). `advised`: see `Advisable`.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        transient: bool = False,
        retry_after: float | None = None,
        sent: bool = True,
        advised: bool = False,
    ):
        super().__init__(message, advised=advised)
        self.status = status
        self.transient = transient
        self.retry_after = retry_after
        self.sent = sent


class ClientClosed(GitHubError):
    """A call not made: the server is stopping and closed its GitHub client while a
    delivery's run was still under way (a worker left behind by the stop). Nothing is
    wrong with the delivery nor with GitHub: it runs again at the next start."""

    def __init__(self, message: str):
        super().__init__(message, sent=False)


class NotInstalled(GitHubError):
    """GitHub's 404 saying the App is not installed where a call needs it: to a token's
    mint (the installation removed) or to finding a repository's installation (the
    repository taken off the App, or deleted); or that answer kept, the call not sent
    (bot.github_sessions). Not a resource gone: a comment the call was for may be there,
    for a retry once the App is installed again."""

    def __init__(self, message: str, *, sent: bool = True, advised: bool = False):
        super().__init__(message, status=404, sent=sent, advised=advised)


def never_sent(exc: BaseException) -> bool:
    """`exc` failed a call that never went out: a write of it is no write GitHub counts."""
    return isinstance(exc, GitHubError) and not exc.sent


def github_outage(exc: BaseException) -> bool:
    """`exc` is GitHub failing in a way that passes with time and no change of ours (a
    5xx, a timeout, a dropped or refused connection: its tries used up), not a refusal
    (4xx) nor a rate limit (`rate_limit_wait`, which names its own wait)."""
    return isinstance(exc, GitHubError) and exc.transient and exc.retry_after is None


def rate_limit_wait(exc: BaseException) -> float | None:
    """Seconds GitHub asked to wait when `exc` is a rate limit it named a wait for (the
    delivery goes back to the queue until then); None for any other failure."""
    if isinstance(exc, GitHubError) and exc.transient and exc.retry_after is not None:
        return exc.retry_after
    return None


class FilesNotReady(Exception):
    """GitHub listed fewer files than the PR's `changed_files` says, or listed them at the
    head before the event's: right after a push the list can lag behind. Matching on it
    would link the wrong notes; look again later."""

    def __init__(self, ref: PRRef, listed: int, expected: int, at: str = ""):
        said = (
            f" files at {at[:12]}, not the event's head" if at else f" of {expected} changed files"
        )
        super().__init__(f"GitHub listed {listed}{said}")
        self.ref, self.listed, self.expected = ref, listed, expected


class ConversationLocked(Exception):
    """GitHub refused a write because the PR's conversation is locked: there only people
    with write access may comment, and no one may react, so the App is refused (403,
    "Unable to create comment because issue is locked."). No retry helps until someone
    unlocks it: what answered a command or an event so is done, not failed."""


class FileList(list[str]):
    """Changed file paths, as a list, plus what the diff shows (both empty when it was
    not seen): `code_names`, the names on its changed lines -> the files naming them
    (`bot.pr_diff.code_names_in`), and `incidental`, the files only moved or changed in
    their imports (`bot.pr_diff.incidental_files`). `listed`: how many entries GitHub
    listed (a rename is one entry and two paths); None: one per path. `head`: the commit
    GitHub listed them at (its entries' `contents_url` name it), which a push made while
    the event waited has moved past the event's head; None: not known, "": the entries
    disagree (a push between two pages)."""

    def __init__(
        self,
        paths: Iterable[str] = (),
        code_names: Mapping[str, tuple[str, ...]] | None = None,
        incidental: frozenset[str] = frozenset(),
        listed: int | None = None,
        head: str | None = None,
        renamed: Mapping[str, str] | None = None,
    ):
        super().__init__(paths)
        self.renamed: Mapping[str, str] = renamed or {}  # a rename's old path -> its new
        self.code_names: Mapping[str, tuple[str, ...]] = code_names or {}
        self.incidental = incidental
        self.listed = listed
        self.head = head


class Outcome(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"  # the rendered body equals what is posted: no write
    SKIPPED = "skipped"  # nothing posted and nothing to post (e.g. no match, no comment yet)


@dataclass(frozen=True)
class StickyResult:
    outcome: Outcome
    comment_id: int | None = None


class RestoreOutcome(StrEnum):
    """What `restore_text` found on the comment, and did."""

    WRITTEN = "written"  # our text showed: their words written over it now
    LANDED = "landed"  # their words show, written by an earlier call of ours, its answer lost
    THEIRS = "theirs"  # a person's text shows (their words, or others): nothing written
    GONE = "gone"  # deleted, or not on this PR: nothing written

    @property
    def wrote(self) -> bool:
        """Their words show now, by a write of ours."""
        return self in (RestoreOutcome.WRITTEN, RestoreOutcome.LANDED)


@dataclass(frozen=True)
class RestoreResult:
    outcome: RestoreOutcome
    # GitHub's time of the write (WRITTEN, LANDED; as GitHub writes times): a person's
    # edit after it is theirs. None: nothing written, or GitHub gave no time
    at: str | None = None


class CallStats(Protocol):
    """The GitHub HTTP calls a port made, for /metrics (`GitHubClient.calls`)."""

    pauses: int  # rate limit answers that paused every call of an identity (one per pause)

    def snapshot(self) -> dict[tuple[str, str, str], int]:
        """Calls so far by (method, route template, status)."""
        ...

    def remaining(self) -> dict[str, int]:
        """The last x-ratelimit-remaining seen, by identity ("installation", "app", "token")."""
        ...

    def paused_for(self) -> float:
        """Seconds left of the rate limit pause under way (no call to GitHub until then)."""
        ...


class GitHubPort(Protocol):
    @property
    def calls(self) -> CallStats | None:
        """None: this port makes no HTTP calls (dry run). Read-only here, so that a port
        may keep its own kind (`GitHubClient`'s CallCounter, the dry run's None)."""
        ...

    def get_pull(self, ref: PRRef) -> PRFacts | None:
        """The PR as it is now, without its files (one call); None when this port
        cannot ask GitHub (dry run). For events that do not carry the PR (comments)."""
        ...

    def list_files(self, ref: PRRef, *, expected: int | None = None) -> FileList:
        """Changed file paths of the PR (renames also give the previous path), and the
        names its diff changes (from the same listing: no extra call).

        `expected`: the PR's `changed_files` from the event; a shorter list (up to
        GitHub's cap) raises FilesNotReady. A port that cannot ask GitHub ignores it."""
        ...

    def upsert_sticky(
        self,
        ref: PRRef,
        body: str,
        marker: str,
        *,
        create: bool,
        known_id: int | None = None,
        known_differs: bool = False,
        given_back: Collection[int] = (),
    ) -> StickyResult:
        """Create or edit the bot's one comment opening with `marker`.

        Only a comment that opens with the marker AND was written by the bot's own
        account is ours. Identical body: no write. `create=False`: edit an
        existing comment but never create one (SKIPPED when there is none).
        More than one of ours: the oldest is the one kept and edited, the others are
        deleted (they would show stale notes for good). `known_id`: the comment last
        posted, when one was; a comment list lacking it is not taken at its word (a
        list can lag behind a write): that comment is asked for, so that its absence
        means it was deleted. `known_differs`: the text last posted to `known_id` was
        not `body`; a list showing `body` there lags behind that write (as it can behind
        a create), and the edit is sent anyway. `given_back`: comments of ours a person's
        rewrite made theirs (bot.deletion_events): still the bot's account's, opening with
        the marker again should they paste our text back, but never ours to keep, edit or
        delete as a copy.
        """
        ...

    def delete_sticky(self, ref: PRRef, comment_id: int, marker: str) -> bool:
        """Delete comment `comment_id` when it is still the bot's own comment opening with
        `marker` on this PR (asked for by its id first: never another's, nor one a
        maintainer rewrote into their text). False: it is not, or is gone already."""
        ...

    def restore_text(
        self,
        ref: PRRef,
        comment_id: int,
        text: str,
        marker: str,
        *,
        history: WriteBackHistory = NO_HISTORY,
    ) -> RestoreResult:
        """Write `text`, a person's words their rewrite put on comment `comment_id`, back
        over an edit of ours GitHub applied after it: only when the comment (asked for by
        its id) is still the bot's own on this PR and shows our text. Our text is `marker`
        opening it, or words `history` knows we wrote there: written back, not edited
        since our write (`over`, `over_at`), or sent by a failed call, edited no later
        than it gave up (`tried`, `tried_before`; give or take the clocks' slack). GitHub
        keeps no edit author: the same words edited later are a person's, never written
        over."""
        ...

    def find_comment(self, ref: PRRef, key: str) -> int | None:
        """The id of the bot's own comment whose last line is `key` (a reply posted by an
        earlier run of the same delivery), else None: a reply of ours may quote another's
        key mid-text, echoing what a user typed."""
        ...

    def delete_reply_copies(self, ref: PRRef, key: str) -> tuple[int | None, list[int]]:
        """Delete the later copies of the reply whose last line is `key`: the bot's own
        comments opening with the reply marker and ending with `key` (a create posted
        again while the comment list lagged behind its lost first try), all but the
        oldest. The oldest's id (None: no such reply now) and the ids deleted."""
        ...

    def comment_text(self, ref: PRRef, comment_id: int) -> str | None:
        """The text of comment `comment_id` on the PR's conversation now (one GET); None
        when it is gone (deleted) or on another issue."""
        ...

    def create_comment(self, ref: PRRef, body: str) -> int:
        """Post a new comment (replies to commands); return its id."""
        ...

    def add_reaction(
        self, ref: PRRef, comment_id: int, content: str, *, on_diff: bool = False
    ) -> None:
        """React to an issue comment (`on_diff`: a comment on a line of the diff):
        eyes, +1, confused, ..."""
        ...

    def permission(self, ref: PRRef, login: str) -> str:
        """The user's permission on the repo: admin, maintain, write, triage, read or none."""
        ...

    def forget_installation(self, change: InstallationChange) -> None:
        """An installation event: forget the tokens and lookups it makes stale."""
        ...

    def repository_now(self, ref: PRRef) -> int | None:
        """The id of the repository GitHub answers `ref.repo` with now (one call; a
        renamed repository's old name leads to it, until another one takes the name);
        None when this port cannot ask GitHub (dry run)."""
        ...

    def bot_login(self) -> str | None:
        """The login this port comments as (`<slug>[bot]` for an App), to drop events our
        own App sent when REVIEW_NOTES_BOT_LOGIN is unset; None when it cannot tell."""
        ...

    def close(self) -> None:
        """Release what the port holds open (HTTP sessions); called once, at shutdown."""
        ...


@dataclass
class WritesAsked:
    """How many comment writes (a POST, a PATCH, a DELETE; each try) a port sent, or may
    have, inside `counting_writes`: a caller that paid for a write in advance learns
    whether one was asked for, also when the run raised (a rate limit on a read before
    it: none; a write a pause held back or whose connection was never made: none).
    `landed`: of those, the ones GitHub carried out or may have (taken, or its answer
    lost), not refused: a create's POSTs, more than one landed, may show as copies.
    Not counted: the DELETE of a later copy (bot.github_client's `_delete_copy`), a
    clean-up no caller paid for, which would read as its own write sent and landed."""

    count: int = 0
    landed: int = 0


_WRITES_ASKED: ContextVar[WritesAsked | None] = ContextVar("writes_asked", default=None)


@contextmanager
def counting_writes() -> Iterator[WritesAsked]:
    """Count the writes asked inside the block; a count around it counts them too (a
    write-back's own count inside a deferred update's: bot.write_backs)."""
    outer = _WRITES_ASKED.get()
    asked = WritesAsked()
    token = _WRITES_ASKED.set(asked)
    try:
        yield asked
    finally:
        _WRITES_ASKED.reset(token)
        if outer is not None:
            outer.count += asked.count
            outer.landed += asked.landed


def write_asked(*, landed: bool = True) -> None:
    """A port calls it for each try of a comment's POST, PATCH or DELETE that went out, or
    may have (answered, refused, its answer lost): not one held back or never connected.
    `landed`: GitHub carried it out or may have; False when it refused it."""
    asked = _WRITES_ASKED.get()
    if asked is not None:
        asked.count += 1
        asked.landed += landed


@dataclass
class LimitsSeen:
    """What GitHub's rate limits did to the calls made inside `watching_limits`. `met`:
    an answer to one was a rate limit, or spent the last call before the reset (each
    pauses the identity). `paused`: one was not sent, its identity paused already. A run
    put back for a rate limit whose calls met none was held back by another call's limit
    only (`others_only`): bot.workers does not count that put-back. `answered`: GitHub
    answered one (any status but a 5xx), so it is up: when the last such call was sent
    (`utcnow()` format; None: none). Only such a run ends an outage's pause of the queue
    (a run that called nothing, or met only 5xx, says nothing of it), a run in hand as
    the pause began only by a call sent after (an answer to one sent before may be from
    before GitHub went down)."""

    met: bool = False
    paused: bool = False
    answered: str | None = None

    @property
    def others_only(self) -> bool:
        return self.paused and not self.met


_LIMITS_SEEN: ContextVar[LimitsSeen | None] = ContextVar("limits_seen", default=None)


@contextmanager
def watching_limits() -> Iterator[LimitsSeen]:
    seen = LimitsSeen()
    token = _LIMITS_SEEN.set(seen)
    try:
        yield seen
    finally:
        _LIMITS_SEEN.reset(token)


def limit_met() -> None:
    """A port calls it when GitHub's answer to one of its calls pauses the identity."""
    if (seen := _LIMITS_SEEN.get()) is not None:
        seen.met = True


def call_answered(sent: str | None = None) -> None:
    """A port calls it when GitHub answered one of its calls with anything but a 5xx,
    sent at `sent` (`utcnow()` format; None: now)."""
    if (seen := _LIMITS_SEEN.get()) is not None:
        seen.answered = max(seen.answered or "", sent or utcnow())


def call_paused() -> None:
    """A port calls it when it does not send a call, its identity being paused."""
    if (seen := _LIMITS_SEEN.get()) is not None:
        seen.paused = True

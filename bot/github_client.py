"""GitHubPort over PyGithub: the operations the bot asks of GitHub, and the writes that
must not be doubled.

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub): `bot.sticky`'s
writes and the shell's reads reach GitHub here. It must never repeat a create blindly,
nor edit or delete a comment the bot did not write. How the calls are made, and why:
`GitHubClient`.

Who a call is made as (App or token auth), through which thread's `Github`, paced,
paused and counted (`client.calls`), is `bot.github_sessions`; the retries, and the
GitHubError a call that failed raises, are `bot.github_retry`. What an answer or
exception means (rate limited, locked, retryable) is decided in `bot.github_errors`;
the spacing, the pauses and the counting are `bot.github_pacing`.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Collection
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qs, quote, urlsplit

from github import Github, GithubException
from github.IssueComment import IssueComment
from github.PullRequestComment import PullRequestComment
from github.Repository import Repository
from github.Requester import Requester

from bot.github_errors import (
    NOT_THE_API,
    TRANSPORT_ERRORS,
    NotTheAPI,
    detail,
    headers_of,
    may_have_applied,
    oauth_scopes,
    rate_limited,
)
from bot.github_http import DEFAULT_DEADLINE
from bot.github_pacing import CallCounter, Paused
from bot.github_port import (
    FileList,
    FilesNotReady,
    GitHubError,
    NotInstalled,
    Outcome,
    PRRef,
    RestoreOutcome,
    RestoreResult,
    StickyResult,
    listed_short,
    write_asked,
)
from bot.github_retry import Retrier, RetryPolicy, went_out
from bot.github_sessions import GitHubSessions
from bot.installations import InstallationChange
from bot.markers import REPLY_MARKER, ends_with_key, opens_with, written_by_us
from bot.pr_diff import FileChange, code_names_in, incidental_files
from bot.prfacts import PRFacts, facts_from_payload
from bot.prstate import NO_HISTORY, WriteBackHistory
from bot.redelivery import delivered_at
from bot.terminal import shown
from bot.times import as_github_time

log = logging.getLogger(__name__)

T = TypeVar("T")

REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})
ROLES = ("admin", "maintain", "write", "triage", "read")
# How a call names a repository (REVIEW_NOTES_ADDRESS_REPOS_BY): "id", /repositories/{id}
# (a webhook's repository.id, which a rename keeps), or "name", /repos/{owner}/{repo}
AddressBy = Literal["id", "name"]
# The permission each call needs (github_facts 2.3), named in its failure and keyed on by
# GitHubSessions: one a new token was refused too is not minted for again. A comment is
# either permission's (a PR's conversation is its issue's).
READ_PULLS = "pull_requests: read"  # the PR, its files
READ_ISSUES = "issues: read"  # the issue view of a number
READ_COMMENTS = "issues: read or pull_requests: read"
WRITE_COMMENTS = "issues: write or pull_requests: write"  # list, create, edit, delete
READ_METADATA = "metadata: read"  # the repository, a collaborator's permission
# How far GitHub's clock may be from ours when looking for a comment we may have made.
CLOCK_SLACK = timedelta(minutes=2)


def _same_text(a: str | None, b: str) -> bool:
    def norm(s: str) -> str:
        return s.replace("\r\n", "\n").rstrip()

    return a is not None and norm(a) == norm(b)


# --- the client -----------------------------------------------------------------


class GitHubClient:
    """The real GitHubPort. Give either `app_id` + `private_key` (PEM text) or `token`.

    - Calls. `lazy=True`, so objects the webhook payload already names (repo, PR, issue,
      comment) cost no GET. The repository is addressed by its id where the payload gave
      one (`/repositories/{id}/...`): a rename keeps it, a name taken since is another's
      (`address_repos_by="name"`, REVIEW_NOTES_ADDRESS_REPOS_BY: by name, as before). So is
      the lookup of its installation, when a delivery names none or the one it names no
      longer holds it (`/repositories/{id}/installation`, `bot.github_sessions`).
      Lists use per_page=100. A new PR costs three calls: its
      files, its comments, the comment create; a slash command that updates the
      comment adds one GET of the PR (a comment event does not carry its head).
    - A create that may have reached GitHub (timeout, dropped connection, 5xx) is never
      blindly repeated: the comments are listed again and ours is taken if it is there;
      missing, they are listed once more after `RetryPolicy.lost_create_wait` (a list
      can lag behind the write) before it is posted again.
    - A comment list can lag behind a write: the notes comment last posted, when the list
      lacks it, is asked for by its id before it counts as gone (a maintainer deleted it).
      A 404 to a call on one comment counts so only while GitHub shows its repository
      and not it (`_gone_when_called`).
    - Only comments written by the bot's own login are ever edited or deleted; deleted are
      only its second notes comments (the oldest is kept and edited), as Prow does, and
      a reply's later copies (`delete_reply_copies`).
    """

    def __init__(
        self,
        *,
        base_url: str = "https://api.github.com",
        app_id: int | str | None = None,
        private_key: str | None = None,
        token: str | None = None,
        timeout: int = 10,
        deadline: float = DEFAULT_DEADLINE,
        retry: RetryPolicy | None = None,
        seconds_between_requests: float = 0.25,
        seconds_between_writes: float = 1.0,
        bot_login: str | None = None,
        address_repos_by: AddressBy = "id",
        token_refresh_margin: float = 300.0,
        removed_installation_kept: float = 300.0,
        user_agent: str = "review-notes",
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if (app_id is None) == (token is None) or (app_id is not None and not private_key):
            raise ValueError("GitHubClient needs app_id and private_key, or token (not both)")
        if address_repos_by not in ("id", "name"):
            raise ValueError(f"address_repos_by is 'id' or 'name', not {address_repos_by!r}")
        self._by_id = address_repos_by == "id"
        self.calls = CallCounter(clock)
        self.policy = retry or RetryPolicy()
        self._retry = Retrier(self.policy, sleep)
        self._bot_login = bot_login
        self._lock = threading.Lock()  # guards _bot_login
        self._app_id = str(app_id)  # the App's id, or its client ID
        self._sessions = GitHubSessions(
            base_url=base_url,
            app_id=app_id,
            private_key=private_key,
            token=token,
            address_by_id=self._by_id,
            timeout=timeout,
            deadline=deadline,
            user_agent=user_agent,
            seconds_between_requests=seconds_between_requests,
            seconds_between_writes=seconds_between_writes,
            token_refresh_margin=token_refresh_margin,
            removed_installation_kept=removed_installation_kept,
            clock=clock,
            sleep=sleep,
            calls=self.calls,
            retry=self._retry,
        )

    # --- GitHubPort ---------------------------------------------------------

    def get_pull(self, ref: PRRef) -> PRFacts:
        def op(gh: Github) -> PRFacts:
            pull = self._repo_of(gh, ref).get_pull(ref.number)  # lazy: no request yet
            data = self._retry.call(f"get {_pr(ref)}", lambda: pull.raw_data)
            _check_answer(f"get {_pr(ref)}", data, ref.number)
            try:
                return facts_from_payload(
                    {"repository": {"full_name": ref.repo}, "pull_request": data}
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise GitHubError(f"GitHub get {_pr(ref)}: a malformed answer: {exc}") from None

        return self._sessions.as_installation(ref, op, READ_PULLS)

    def list_files(self, ref: PRRef, *, expected: int | None = None) -> FileList:
        def op(gh: Github) -> FileList:
            files = self._repo_of(gh, ref).get_pull(ref.number).get_files()
            # Re-iterating a PaginatedList yields the pages already fetched and goes on
            # from the one that failed, so a retry does not start over.
            fetched = self._retry.call(f"list files of {_pr(ref)}", lambda: list(files))
            if expected is not None and listed_short(len(fetched), expected):
                raise FilesNotReady(ref, len(fetched), expected)
            paths: dict[str, None] = {}
            for f in fetched:
                paths[f.filename] = None
                # a rename changes both paths; a copy (`copied`) leaves its source as it was
                if f.status == "renamed" and f.previous_filename:
                    paths[f.previous_filename] = None
            # `patch` is absent for binary and very large files: their names go unseen
            names = code_names_in((f.filename, f.patch) for f in fetched if f.patch)
            changes = (
                FileChange(f.filename, f.status, f.previous_filename, f.changes, f.patch)
                for f in fetched
            )
            # a removed file's `contents_url` names the commit before (it is gone at the head)
            listed = (f.contents_url for f in fetched if f.status != "removed")
            heads = {at for url in listed if (at := _listed_at(url))}
            head = (heads.pop() if len(heads) == 1 else "") if heads else None
            incidental = incidental_files(changes)
            renamed = {
                f.previous_filename: f.filename
                for f in fetched
                if f.status == "renamed" and f.previous_filename
            }
            return FileList(
                paths, names, incidental, listed=len(fetched), head=head, renamed=renamed
            )

        return self._sessions.as_installation(ref, op, READ_PULLS)

    def is_pull(self, ref: PRRef) -> bool | None:
        """Whether the number is a PR (True) or an issue (False); None: the repo has neither."""

        def op(gh: Github) -> bool | None:
            issue = self._repo_of(gh, ref).get_issue(ref.number)  # lazy: no request yet
            try:
                data = self._retry.call(f"get {ref.repo}#{ref.number}", lambda: issue.raw_data)
            except GitHubError as err:
                if err.status in (404, 410):  # 410: a deleted issue
                    return None
                raise
            _check_answer(f"get {ref.repo}#{ref.number}", data, ref.number)
            return data.get("pull_request") is not None

        return self._sessions.as_installation(ref, op, READ_ISSUES)

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
        if not marker or not body.startswith(marker):
            raise ValueError("the sticky comment body must open with its marker")

        # The marker opens the sticky comment; elsewhere it may be a reply of ours
        # quoting a command that carried it (shown as code), which is not the sticky. One
        # given back to a person is theirs, whatever it shows (also when a create whose
        # answer was unclear looks for the comment it made).
        def sticky_of_ours(c: IssueComment) -> bool:
            return opens_with(c.body, marker) and c.id not in given_back

        # a run again after a 401 or 403 (a new token) whose list lags a create of the
        # first run, its answer lost, looks for it before posting (as `create_comment`)
        unclear = _Unclear()

        def op(gh: Github) -> StickyResult:
            login = self.bot_login()
            repo = self._repo_of(gh, ref)
            issue = repo.get_issue(ref.number)
            pages = issue.get_comments()  # resumable on retry, like the files
            comments = self._retry.call(f"list comments of {_pr(ref)}", lambda: list(pages))
            ours = [c for c in comments if self._is_ours(c, login) and sticky_of_ours(c)]
            if not ours and known_id is not None:
                ours = self._listed_late(ref, repo, known_id, login, sticky_of_ours)
            while ours:
                sticky, *copies = ours  # the oldest: where readers saw it first
                # showing `body` where we last wrote another text: the list lags that edit
                lags = known_differs and sticky.id == known_id
                if _same_text(sticky.body, body) and not lags:
                    result = StickyResult(Outcome.UNCHANGED, sticky.id)
                    break
                if self._edit(ref, repo, sticky, body):
                    result = StickyResult(Outcome.UPDATED, sticky.id)
                    break
                ours = copies  # deleted since the list: as if the list had come later
            else:
                if not create:
                    return StickyResult(Outcome.SKIPPED)
                made = self._create(ref, issue, body, sticky_of_ours, None, unclear)
                return StickyResult(Outcome.CREATED, made.id)
            # Two can exist (deliveries racing, or a create whose answer was lost while the
            # comment list lagged behind it); only the oldest is ever edited, so another
            # would show stale notes for good. Prow removes them so too.
            for copy in copies:  # after the edit: the comment kept is current even if one fails
                self._delete_copy(ref, repo, copy, f"notes comment {sticky.id}")
            return result

        return self._sessions.as_installation(ref, op, WRITE_COMMENTS)

    def _edit(self, ref: PRRef, repo: Repository, comment: IssueComment, body: str) -> bool:
        """Edit our comment; False when it is gone: deleted (by a maintainer) after the
        comment list (`_gone_when_called`). The caller goes on as if the list had not
        shown it, which is no failure of the delivery."""
        what = f"edit comment {comment.id} on {_pr(ref)}"

        def edit() -> None:
            _written(lambda: comment.edit(body))

        if self._gone_when_called(ref, repo, comment.id, what, edit):
            log.info("comment %s on %s was deleted before our edit", comment.id, _pr(ref))
            return False
        return True

    def _listed_late(
        self,
        ref: PRRef,
        repo: Repository,
        comment_id: int,
        login: str,
        sticky_of_ours: Callable[[IssueComment], bool],
    ) -> list[IssueComment]:
        """The comment last posted, asked for by its id when the comment list lacks it:
        a list can lag behind a write, and the caller takes a comment gone for one a
        maintainer deleted (and leaves the PR alone from then on). One GET, only then.
        GitHub serves any comment of the repository by its id: one on another issue is
        not this PR's to edit, whatever the state says. By the number alone: under a
        repository's old name GitHub answers with the comment at its new one."""
        comment = self._our_sticky(ref, repo, comment_id, login, sticky_of_ours)
        if comment is None:
            return []
        log.info("comment %s on %s was missing from the comment list", comment_id, _pr(ref))
        return [comment]

    def _our_sticky(
        self,
        ref: PRRef,
        repo: Repository,
        comment_id: int,
        login: str,
        sticky_of_ours: Callable[[IssueComment], bool],
    ) -> IssueComment | None:
        """Comment `comment_id`, asked for by its id (one GET), when it is our notes
        comment on this PR; None when it is gone, on another issue, or not ours."""
        comment = self._on_this_pr(ref, repo, comment_id)
        if comment is None or not (self._is_ours(comment, login) and sticky_of_ours(comment)):
            return None  # not ours, or no longer our notes comment (its marker edited away)
        return comment

    def _on_this_pr(self, ref: PRRef, repo: Repository, comment_id: int) -> IssueComment | None:
        """Comment `comment_id`, asked for by its id (one GET); None when it is gone
        (`_gone_when_called`) or on another issue."""
        comment, what = _comment_get(ref, repo, comment_id)
        if self._gone_when_called(
            ref, repo, comment_id, what, lambda: comment.raw_data, looked=True
        ):
            return None
        on = str(comment.raw_data.get("issue_url") or "")
        if not on.endswith(f"/issues/{ref.number}"):
            log.warning(
                "comment %s is on another issue (%s), not on %s: left alone",
                comment_id,
                on or "none named",
                _pr(ref),
            )
            return None
        return comment

    def delete_sticky(self, ref: PRRef, comment_id: int, marker: str) -> bool:
        def op(gh: Github) -> bool:
            repo = self._repo_of(gh, ref)
            comment = self._our_sticky(
                ref, repo, comment_id, self.bot_login(), lambda c: opens_with(c.body, marker)
            )
            if comment is None:
                return False

            def delete() -> None:
                _written(comment.delete)

            what = f"delete comment {comment_id} on {_pr(ref)}"
            return not self._gone_when_called(ref, repo, comment_id, what, delete)

        return self._sessions.as_installation(ref, op, WRITE_COMMENTS)

    def restore_text(
        self,
        ref: PRRef,
        comment_id: int,
        text: str,
        marker: str,
        *,
        history: WriteBackHistory = NO_HISTORY,
    ) -> RestoreResult:
        # a run of `op` sent our PATCH: one re-run after a 401 (`as_installation`) finds
        # the words shown, landed with their answer lost, and tells them as written
        sent = [False]

        def landed(c: IssueComment) -> bool:
            # words of ours whose answer was lost: sent by this call, or by one that failed
            # (`history.failed_calls`), edited no later than that one gave up. It sent
            # them after seeing our text there, so they were put there since; a person's
            # same words put there after it gave up (they pasted theirs back over ours)
            # are theirs
            if sent[0] and c.body == text:
                return True
            tries = history.failed_calls
            return any(c.body == words and _landed_by(c.updated_at, by) for words, by in tries)

        def written_over(c: IssueComment) -> bool:
            if opens_with(c.body, marker) or landed(c):
                return True
            # the words we wrote, unless edited since: a person's undo to them is theirs
            # (GitHub's times have whole seconds: one made in our write's second is not
            # told. Nothing in REST's answers tells it: the comment and the PATCH's answer
            # show the same text and second for both, and no editor or edit history.
            # GraphQL's IssueComment.editor names who edited last: a call and an API this
            # client does not use, for a tie within one second)
            over = history.over
            return over is not None and c.body == over and not _later(c.updated_at, history.over_at)

        def op(gh: Github) -> RestoreResult:
            repo = self._repo_of(gh, ref)
            login = self.bot_login()
            comment = self._on_this_pr(ref, repo, comment_id)
            if comment is None:
                return RestoreResult(RestoreOutcome.GONE)
            if not (self._is_ours(comment, login) and written_over(comment)):
                return RestoreResult(RestoreOutcome.THEIRS)
            if comment.body == text:
                # shown already: ours when landed; else a person's own identical words
                # (not told apart: never over)
                if not landed(comment):
                    return RestoreResult(RestoreOutcome.THEIRS)
                found = RestoreOutcome.WRITTEN if sent[0] else RestoreOutcome.LANDED
                return RestoreResult(found, _as_github_time(comment.updated_at))
            sent[0] = True
            if not self._edit(ref, repo, comment, text):
                return RestoreResult(RestoreOutcome.GONE)
            return RestoreResult(RestoreOutcome.WRITTEN, _as_github_time(comment.updated_at))

        return self._sessions.as_installation(ref, op, WRITE_COMMENTS)

    def _delete_copy(self, ref: PRRef, repo: Repository, copy: IssueComment, of: str) -> None:
        """Delete a later copy of a comment of ours (`of`: the one kept, as the log names
        it). Already gone (e.g. a retry after a lost answer): done. Not through `_written`:
        no write asked (`WritesAsked`)."""
        what = f"delete comment {copy.id} on {_pr(ref)}"
        self._gone_when_called(ref, repo, copy.id, what, copy.delete)
        log.info("deleted comment %s on %s: a copy of %s of ours", copy.id, _pr(ref), of)

    def _gone_when_called(
        self,
        ref: PRRef,
        repo: Repository,
        comment_id: int,
        what: str,
        fn: Callable[[], object],
        *,
        looked: bool = False,
    ) -> bool:
        """Run a call on comment `comment_id` of `repo` (retried as any: its GET, edit or
        delete); True when the comment is gone (deleted since it was listed), which the
        callers take as an answer, not a failure: a PR's notes comment gone is a
        maintainer's deletion, which turns its updates off (bot.sticky).

        GitHub's 404 says so only when it still shows the repository and not the
        comment: a repository the token no longer sees (taken off the App, deleted) is
        answered 404 too, and a 404 to an edit of a comment that is there is none of a
        deletion. Only then, a GET of the comment (unless `fn` was it: `looked`) and of
        the repository tell; any other 404 is raised, out of `op` to `as_installation`,
        which finds where the repository is now (bot.github_sessions), else it fails
        the delivery, for a retry. (The session's NotInstalled comes from around `op`,
        never from a call in it.)"""
        try:
            self._retry.call(what, fn)
        except GitHubError as err:
            if err.status != 404:
                raise
            self._confirm_gone(ref, repo, comment_id, err, looked=looked)
            return True
        return False

    def _confirm_gone(
        self, ref: PRRef, repo: Repository, comment_id: int, err: GitHubError, *, looked: bool
    ) -> None:
        """Raise `err`, said why, unless GitHub shows `repo` and not comment `comment_id`
        (`looked`: the 404 was the comment's own GET, `_comment_get`'s)."""
        if not looked:
            comment, what = _comment_get(ref, repo, comment_id)
            if not self._not_found(what, lambda: comment.raw_data):
                raise _no_deletion(err, "the comment is still there") from err
        if self._not_found(f"get {ref.repo}", lambda: repo.raw_data):
            why = f"GitHub answers 404 for {ref.repo} too: the App may no longer see it"
            raise _no_deletion(err, why) from err

    def _not_found(self, what: str, fn: Callable[[], object]) -> bool:
        """Run a call (retried as any); True when GitHub answers 404."""
        try:
            self._retry.call(what, fn)
        except GitHubError as err:
            if err.status != 404:
                raise
            return True
        return False

    def find_comment(self, ref: PRRef, key: str) -> int | None:
        def op(gh: Github) -> int | None:
            issue = self._repo_of(gh, ref).get_issue(ref.number)
            found = self._retry.call(
                f"look for a comment on {_pr(ref)}",
                lambda: self._find(issue, lambda c: ends_with_key(c.body, key), None),
            )
            return found.id if found is not None else None

        return self._sessions.as_installation(ref, op, READ_COMMENTS)

    def delete_reply_copies(self, ref: PRRef, key: str) -> tuple[int | None, list[int]]:
        def copy_of_ours(c: IssueComment, login: str) -> bool:
            return (
                self._is_ours(c, login)
                and opens_with(c.body, REPLY_MARKER)
                and ends_with_key(c.body, key)
            )

        def op(gh: Github) -> tuple[int | None, list[int]]:
            login = self.bot_login()
            repo = self._repo_of(gh, ref)
            pages = repo.get_issue(ref.number).get_comments()
            comments = self._retry.call(f"list comments of {_pr(ref)}", lambda: list(pages))
            ours = [c for c in comments if copy_of_ours(c, login)]
            if not ours:
                return None, []
            kept, *copies = ours  # the oldest: the one readers saw first
            for copy in copies:
                self._delete_copy(ref, repo, copy, f"reply {kept.id}")
            return kept.id, [c.id for c in copies]

        return self._sessions.as_installation(ref, op, WRITE_COMMENTS)

    def comment_text(self, ref: PRRef, comment_id: int) -> str | None:
        def op(gh: Github) -> str | None:
            comment = self._on_this_pr(ref, self._repo_of(gh, ref), comment_id)
            return None if comment is None else comment.body

        return self._sessions.as_installation(ref, op, READ_COMMENTS)

    def create_comment(self, ref: PRRef, body: str) -> int:
        since = datetime.now(UTC) - CLOCK_SLACK
        # run again after a 401 or 403 (a new token): a POST of the first run whose answer
        # was lost may have landed; one GitHub refused did not, and is not looked for
        unclear = _Unclear()

        def op(gh: Github) -> int:
            issue = self._repo_of(gh, ref).get_issue(ref.number)
            return self._create(ref, issue, body, same_text, since, unclear).id

        def same_text(c: IssueComment) -> bool:
            return _same_text(c.body, body)

        return self._sessions.as_installation(ref, op, WRITE_COMMENTS)

    def add_reaction(
        self, ref: PRRef, comment_id: int, content: str, *, on_diff: bool = False
    ) -> None:
        if content not in REACTIONS:
            raise ValueError(f"not a GitHub reaction: {content!r}")

        def op(gh: Github) -> None:
            comment: IssueComment | PullRequestComment
            if on_diff:  # lazy objects: the one request is the POST
                comment = self._repo_of(gh, ref).get_pull(ref.number).get_review_comment(comment_id)
            else:
                comment = self._repo_of(gh, ref).get_issue(ref.number).get_comment(comment_id)
            # GitHub answers 200 for a reaction that exists: repeating is harmless
            self._retry.call(
                f"react to comment {comment_id}", lambda: comment.create_reaction(content)
            )

        # GitHub's permission for the reaction: an issue comment's is under issues only
        needs = "pull_requests: write" if on_diff else "issues: write"
        self._sessions.as_installation(ref, op, needs)

    def permission(self, ref: PRRef, login: str) -> str:
        """admin, maintain, write, triage, read or none (custom roles give their base)."""

        def op(gh: Github) -> dict[str, Any]:
            url = f"{self._path_of(ref)}/collaborators/{quote(login, safe='')}/permission"
            _, data = self._retry.call(
                f"permission of {shown(login)} on {ref.repo}",  # (a sender's: data)
                lambda: gh.requester.requestJsonAndCheck("GET", url),
            )
            return data

        try:  # a 404 out of `op`: the repository may have left the installation
            data = self._sessions.as_installation(ref, op, READ_METADATA)
        except GitHubError as err:
            # no such user: no rights. The App not installed says nothing of the user: a
            # "none" would be the decision a retry once it is installed reads back
            if err.status == 404 and not isinstance(err, NotInstalled):
                return "none"
            raise
        role = data.get("role_name")
        return role if role in ROLES else data.get("permission") or "none"

    def repository_now(self, ref: PRRef) -> int:
        def op(gh: Github) -> int:
            repo = gh.get_repo(ref.repo)  # by name: which repository holds it now
            data = self._retry.call(f"get {ref.repo}", lambda: repo.raw_data)
            found = data.get("id") if isinstance(data, dict) else None
            if type(found) is not int:
                raise GitHubError(f"GitHub get {ref.repo}: a malformed answer: id {found!r}")
            return found

        return self._sessions.as_installation(ref, op, READ_METADATA)

    def _repo_of(self, gh: Github, ref: PRRef) -> Repository:
        return _repo(gh, ref, self._by_id)

    def _path_of(self, ref: PRRef) -> str:
        return _repo_path(ref, self._by_id)

    # --- identity ---------------------------------------------------------------

    def bot_login(self) -> str:
        """Our own login (`<slug>[bot]` for an App), asked once and cached."""
        with self._lock:
            if self._bot_login:
                return self._bot_login
        if self._sessions.integration is not None:
            integration = self._sessions.integration
            slug = self._sessions.as_app("get the App", lambda: integration.get_app().slug)
            login = f"{slug}[bot]"
        else:
            gh = self._sessions.token_github()
            login = self._retry.call("get the token's user", lambda: gh.get_user().login)
        with self._lock:
            self._bot_login = login
        return login

    def known_login(self) -> str | None:
        """Our login when known without asking GitHub (REVIEW_NOTES_BOT_LOGIN, or the App's
        from `check_app`), else None: the start says it, and must not wait on GitHub."""
        with self._lock:
            return self._bot_login

    def check_app(self) -> None:
        """Ask GitHub once for the App (GET /app, signed with the JWT), not retried: a
        start must not wait out an outage. Raises GitHubError (`_asked_at_start`): refused
        are a 401, a 403 not a rate limit, a 404 (no such App); one surely not GitHub's
        comes as `NotTheAPI` (`github_http.refusal_githubs`). Keeps the App's login,
        which `bot_login` would ask for."""
        integration = self._sessions.integration
        if integration is None:
            return

        def ask() -> str:
            with self._sessions.app_lock:
                return integration.get_app().slug

        slug = _asked_at_start("get the App", ask, refusals=(401, 403, 404))
        with self._lock:
            self._bot_login = self._bot_login or f"{slug}[bot]"

    def check_token(self) -> tuple[str, ...] | None:
        """Ask GitHub once for the token's rate limit (GET /rate_limit: it spends none of
        it), not retried, as `check_app`. Raises GitHubError (`_asked_at_start`): refused
        is a 401 (a token mistyped, expired or revoked), and a 401, 403 or 404 surely not
        GitHub's, which comes as `NotTheAPI` (`github_http.refusal_githubs`). A GitHub
        Enterprise Server whose rate limiting is off answers 404 saying so: the API's
        answer, taken; GitHub's other 404s, and its 403s, are not refused (transient):
        such a server may word it otherwise. Returns the scopes the answer's
        X-OAuth-Scopes names (() for none), which GitHub sends for a classic token only:
        None without it (a fine-grained token's, whose permissions no answer tells, an
        App's, or any behind a proxy that drops GitHub's headers)."""
        if self._sessions.integration is not None:
            return None
        requester = self._sessions.token_github().requester

        def ask() -> tuple[str, ...] | None:
            try:
                headers, _ = requester.requestJsonAndCheck("GET", "/rate_limit")
            except GithubException as exc:
                if not _limits_off(exc):
                    raise
                headers = headers_of(exc)
            return oauth_scopes(headers)

        return _asked_at_start("check the token", ask, refusals=(401,))

    def repo_private(self, full_name: str) -> bool:
        """Whether GitHub calls the repository `full_name` private (GET /repos/{owner}/{repo}
        with the token), asked once at start, not retried, as `check_token`. Raises
        GitHubError (`_asked_at_start`): refused is a 404, GitHub's answer for a repository
        the token may not see (a private one, to a classic token without `repo`) or that
        does not exist; one surely not GitHub's comes as `NotTheAPI`."""
        requester = self._sessions.token_github().requester
        owner, name = full_name.split("/", 1)
        path = f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

        def ask() -> bool:
            _, data = requester.requestJsonAndCheck("GET", path)
            return isinstance(data, dict) and data.get("private") is True

        return _asked_at_start(f"get {full_name}", ask, refusals=(404,))

    # --- the App's webhook deliveries (JWT) ---------------------------------------

    def hook_deliveries(
        self, since: datetime, stopping: Callable[[], bool] | None = None
    ) -> list[dict[str, Any]]:
        """The App's delivery attempts from now back to `since` (GET /app/hook/deliveries,
        newest first), page by page through the Link header's cursor. Stops at the first
        page reaching back past `since`: GitHub keeps three days, one page may be all.
        Also, with the pages so far, once `stopping()` (the server shuts down) is true
        after a page: the caller asks it again to tell a short listing."""
        requester = self._app_requester("list the App's webhook deliveries")
        url: str | None = "/app/hook/deliveries"
        params: dict[str, Any] | None = {"per_page": 100}
        found: list[dict[str, Any]] = []
        while url is not None:
            headers, page = self._sessions.as_app(
                "list the App's webhook deliveries",
                functools.partial(requester.requestJsonAndCheck, "GET", url, parameters=params),
            )
            found += page
            older = any(delivered_at(d) < since for d in page)
            url, params = (None if older else _next_link(headers)), None  # the link has them
            if stopping is not None and stopping():
                break
        return found

    def redeliver(self, delivery_id: int) -> None:
        """Ask GitHub to send a delivery again (POST .../deliveries/{id}/attempts, 202).
        Retried like any call: a 5xx may have reached GitHub, which at worst sends the
        event twice, and the queue refuses the copy by its delivery id."""
        requester = self._app_requester("redeliver a webhook delivery")
        path = f"/app/hook/deliveries/{int(delivery_id)}/attempts"
        self._sessions.as_app(
            f"redeliver webhook delivery {delivery_id}",
            lambda: requester.requestJsonAndCheck("POST", path),
        )

    def _app_requester(self, what: str) -> Requester:
        """The GithubIntegration's requester, which signs each call with the App's JWT (as
        `check_app`'s GET /app); a token cannot read the App's deliveries."""
        integration = self._sessions.integration
        if integration is None:
            raise GitHubError(f"GitHub {what}: needs the App's credentials, not a token")
        return integration.requester

    # --- installations and the end ---------------------------------------------

    def forget_installation(self, change: InstallationChange) -> None:
        """An installation event: the next call of that installation, or of a repository
        it names, mints and looks up afresh (`GitHubSessions.forget_installation`)."""
        self._sessions.forget_installation(change)

    def close(self) -> None:
        """Close every Github this client made, in any thread, and the GithubIntegration;
        no call starts after it."""
        self._retry.close()  # first: no try starts, not even a retry of a call under way
        self._sessions.close()

    # --- writes that must not be doubled ----------------------------------------

    def _is_ours(self, comment: IssueComment, login: str) -> bool:
        """Written by the bot's account (bot.markers.written_by_us): renaming the App
        renames its bot account, and the login cached at start no longer matches what it
        wrote; the comment still names the App that wrote it."""
        user = comment.user
        if user is None:
            return False
        app = comment.performed_via_github_app
        keys = (app.id, app.client_id) if app is not None else ()
        our_app = self._app_id if self._sessions.integration is not None else None
        return written_by_us(user.login, user.type, keys, {login}, our_app)

    def _find(
        self, issue: Any, matches: Callable[[IssueComment], bool], since: datetime | None
    ) -> IssueComment | None:
        """Our first comment on the issue that `matches`, created since `since` (None: ever)."""
        login = self.bot_login()
        for c in issue.get_comments():
            recent = since is None or c.created_at is None or c.created_at >= since
            if self._is_ours(c, login) and matches(c) and recent:
                return c
        return None

    def _made_before(
        self,
        ref: PRRef,
        issue: Any,
        matches: Callable[[IssueComment], bool],
        since: datetime | None,
    ) -> IssueComment | None:
        """The comment a try whose answer was lost may have posted. A list lacking it is
        read again after `lost_create_wait`: GitHub's may lag behind the write for a second
        or more, and the comment posted again would notify everyone a second time."""
        found = self._find(issue, matches, since)
        wait = self.policy.lost_create_wait
        if found is None and wait > 0:
            log.info("a comment on %s may have been posted: looking again in %gs", _pr(ref), wait)
            self._retry.pause(wait, f"look again for a comment on {_pr(ref)}")
            found = self._find(issue, matches, since)
        return found

    def _create(
        self,
        ref: PRRef,
        issue: Any,
        body: str,
        matches: Callable[[IssueComment], bool],
        since: datetime | None,
        unclear: _Unclear,
    ) -> IssueComment:
        """POST a comment; after an unclear failure (of this call's tries, or of an earlier
        run's sharing `unclear`), look for it before posting again."""

        def attempt() -> IssueComment:
            found = self._made_before(ref, issue, matches, since) if unclear.posted else None
            if found is not None:
                log.info("comment %s on %s had been created; not posting again", found.id, _pr(ref))
                return found
            try:
                return _written(lambda: issue.create_comment(body))
            except Exception as exc:
                unclear.posted = unclear.posted or may_have_applied(exc)
                raise

        return self._retry.call(f"create a comment on {_pr(ref)}", attempt)


def _written(send: Callable[[], T]) -> T:
    """One try of a comment write (POST, PATCH, DELETE), counted for the write budgets
    (`write_asked`) when it went out or may have: not one a pause held back, nor one whose
    connection was never made (`went_out`), which a budget pays nothing for; landed unless
    GitHub refused it (`may_have_applied`): a create's next try after a refusal is no
    copy."""
    try:
        done = send()
    except BaseException as exc:
        if went_out(exc):
            write_asked(landed=may_have_applied(exc))
        raise
    write_asked()
    return done


class _Unclear:
    """Whether a POST of one create may have landed with its answer lost (a timeout, a
    dropped connection, a 5xx): its next POST, a retry's or a run's again, looks first."""

    def __init__(self) -> None:
        self.posted = False


_NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')
# A 501 at start: GitHub's REST description (@octokit/openapi) names one for none of the
# routes asked then; another web server there answers a GET it does not serve so
_NOT_IMPLEMENTED = "Not Implemented, which GitHub's API never answers: another server there"


def _asked_at_start(what: str, ask: Callable[[], T], refusals: tuple[int, ...]) -> T:
    """`ask()`'s answer, asked once. Raises GitHubError: `transient` unless GitHub refused
    the credentials (a status of `refusals` that is no rate limit) or a web page, a
    redirect out of the API or a 501 answered (`NotTheAPI`: GITHUB_API_URL is not the
    API's; the error's cause, for the caller to name)."""
    try:
        return ask()
    except Paused as paused:
        raise GitHubError(f"GitHub {what}: {paused}", transient=True) from paused
    except (GithubException, *TRANSPORT_ERRORS) as exc:
        status = exc.status if isinstance(exc, GithubException) else None
        cause: BaseException = exc
        if status == 501:  # no outage to start through: not GitHub's API
            cause = NotTheAPI(501, _NOT_IMPLEMENTED)
        refused = isinstance(cause, NotTheAPI) or (status in refusals and not rate_limited(exc))
        raise GitHubError(
            f"GitHub {what}: {detail(cause)}", status=status, transient=not refused
        ) from cause


def _limits_off(exc: GithubException) -> bool:
    """GitHub Enterprise Server's 404 to GET /rate_limit when its rate limiting is off
    ("Rate limiting is not enabled.", once "No rate limit for white listed users")."""
    return exc.status == 404 and "rate limit" in detail(exc).lower()


def _next_link(headers: dict[str, Any]) -> str | None:
    """The next page's URL in an answer's Link header; None on the last page."""
    found = _NEXT_LINK.search(str(headers.get("link") or ""))
    return found.group(1) if found else None


def _check_answer(what: str, data: Any, number: int) -> None:
    """GitHub's answer is the PR or issue asked for: a GITHUB_API_URL that is not the API
    may answer with JSON that is no PR (a page is `NotTheAPI` before PyGithub reads it)."""
    if not isinstance(data, dict) or data.get("number") != number:
        raise GitHubError(
            f"GitHub {what}: the answer is not that pull request or issue ({NOT_THE_API})"
        )


def _listed_at(contents_url: str | None) -> str:
    """The commit a listed file is of: the `ref` of its `contents_url` ("" when absent)."""
    refs = parse_qs(urlsplit(contents_url or "").query).get("ref")
    return refs[0] if refs else ""


def _repo(gh: Github, ref: PRRef, by_id: bool) -> Repository:
    """The ref's repository, lazy (no request): `by_id` (REVIEW_NOTES_ADDRESS_REPOS_BY)
    and the ref has an id, by that id, so a late delivery of a repository renamed away
    reaches its own PR, not the PR of the repository that took the name since (GitHub
    serves every /repos/{owner}/{repo}/... route under /repositories/{id}/...); else by
    name."""
    return gh.get_repo(ref.repo_id if by_id and ref.repo_id is not None else ref.repo)


def _repo_path(ref: PRRef, by_id: bool) -> str:
    """The API path of `_repo`'s repository."""
    if by_id and ref.repo_id is not None:
        return f"/repositories/{ref.repo_id}"
    return f"/repos/{ref.repo}"


def _comment_get(ref: PRRef, repo: Repository, comment_id: int) -> tuple[IssueComment, str]:
    """Comment `comment_id` asked for under the PR, lazy (its GET is reading `raw_data`),
    and that GET in words."""
    comment = repo.get_issue(ref.number).get_comment(comment_id)  # lazy: no request yet
    return comment, f"get comment {comment_id} on {_pr(ref)}"


def _no_deletion(err: GitHubError, why: str) -> GitHubError:
    """`err`, a 404 to a call on a comment, said not to be the comment's deletion; a 404
    still, for `as_installation` to look for where the repository is now."""
    return GitHubError(
        f"{err} ({why}: not taken for its deletion)",
        status=404,
        sent=err.sent,
        advised=err.advised,
    )


def _pr(ref: PRRef) -> str:
    return f"{ref.repo} PR {ref.number}"


def _as_github_time(at: datetime | None) -> str | None:
    """A time PyGithub read as GitHub writes it (None: none)."""
    return None if at is None else as_github_time(at.isoformat())


def _landed_by(at: datetime | None, by: str | None) -> bool:
    """Whether GitHub's time `at` is no later than our time `by` (as `times.utcnow`), give
    or take the clocks' slack; not when either is not known."""
    if at is None or by is None:
        return False
    try:
        until = datetime.fromisoformat(by)
    except ValueError:
        return False
    return _in_utc(at) <= _in_utc(until) + CLOCK_SLACK


def _in_utc(at: datetime) -> datetime:
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at  # (no zone: UTC, as GitHub's)


def _later(at: datetime | None, than: str | None) -> bool:
    """Whether GitHub's time `at` is after `than` (as GitHub writes times); not when
    either is not known."""
    when = _as_github_time(at)
    return when is not None and than is not None and when > than

"""Keep a PR's one sticky comment in step with its matches (the product's main job).

Where the core meets the shell in the flow (event -> PR facts -> matches -> comment ->
GitHub): it reads the PR's state and changed files, hands the core the facts, and makes
the write the core chose. Which rule applies is decided on plain data in
`bot.comment_plan` (`skip_reason`, `plan_write`, `deleted_by_maintainer`); this module
reads and saves the PR's state, matches, renders, and makes the calls. It never deletes
the comment, never posts anew one a maintainer deleted, and changes the PR's state only
once GitHub confirms a write. Entry points: `refresh_sticky` (the rules) and
`pause_sticky` (`/notes off`); a write's unconfirmed mark: `_begin_write`.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.comment_plan import Skip, Write, deleted_by_maintainer, plan_write, skip_reason
from bot.context import BotContext
from bot.feedback import hide_dismissed
from bot.github_port import (
    FilesNotReady,
    GitHubError,
    Outcome,
    PRRef,
    StickyResult,
    listed_short,
)
from bot.markdown_text import as_html
from bot.markers import MARKER, signed_text
from bot.match_result import MatchResult
from bot.order_keys import after_second, just_after
from bot.prfacts import PRFacts
from bot.prstate import PRState
from bot.relations import related_refs
from bot.render import PauseCause, render, render_paused
from bot.times import as_github_time, github_time
from bot.write_backs import write_back_owed

log = logging.getLogger(__name__)

MAX_RELATED = 50  # related PRs looked up per PR


@dataclass(frozen=True)
class Refresh:
    outcome: Outcome
    reason: str
    comment_id: int | None = None
    notes: tuple[str, ...] = ()  # note ids now shown, best first


def body_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def refresh_sticky(
    ctx: BotContext,
    ref: PRRef,
    facts: PRFacts,
    *,
    force: bool = False,
    verbose: bool | None = None,
    files: Sequence[str] | None = None,
    event_at: str | None = None,
    expected_files: int | None = None,
    event_by: str | None = None,
) -> Refresh:
    """Match the PR, render, and create/edit/leave the sticky comment.

    PR events call it, and slash commands with `force=True` (act now, even on a draft or
    an opted-out PR, even if the body looks unchanged); the mode shown (`/notes why` or
    plain `/notes`) is the PR state's `verbose`, which the command sets first
    (`verbose=` overrides it: tests). A forced refresh of an opted-out PR carries a line
    saying updates are paused.

    Rules: create the comment when notes first match; edit it in place when they
    change; no write when the rendered body is what we last posted; when nothing
    matches any more, edit it to say so (never delete); no comment at all for a PR
    that never matched; a closed PR is left alone unless a human asks (`force`): triage
    keeps PR events off one, this keeps off `/notes on`, which updates as they would,
    but for a comment still saying `/notes off` paused it, which `on` edits (never posts:
    `comment_plan.outdated_pause`), lest it ask for the `on` just said. A
    comment we posted that is gone was deleted by a maintainer, the plainest "go away":
    no PR event posts it anew (a new comment notifies everyone); the PR is opted out as
    by `/notes off` said when the deletion was noticed (so an `off`/`on` written before
    then and run late changes nothing), `/notes` still answers and `/notes on` resumes:
    until a write finds the comment again (`PRState.resumed`), a comment found gone is
    no new deletion (it may have gone while off) and a new one is posted once notes
    match (a draft still waits). The state kept per PR saves API calls: the last body
    hash, and the changed files for the current head SHA (a push or a new base branch
    changes them).

    files: the changed files when the caller knows them (a payload that carries
    them); otherwise the cached list for this head SHA (unless GitHub listed it short
    of the PR's `changed_files`), else GitHub is asked.
    event_at: the PR's `updated_at` from the payload; an older event than the one
    last rendered is stale and changes nothing (deliveries can arrive late).
    verbose: None keeps the PR's current mode.
    expected_files: the event's `changed_files`; GitHub listing fewer raises
    FilesNotReady (nothing is written or cached).
    event_by: the event's own id (`seen_event`).
    """
    newer = seen_event(ctx, ref, event_at, event_by) if event_at and not force else None
    state = ctx.prs.get(ref.repo, ref.number)
    off = opted_out_by_pr(facts, ctx.settings.opt_out_label)
    waits = _draft_waits(ctx, facts)
    gate = skip_reason(
        state,
        force=force,
        stale=newer is not None,
        closed=facts.closed,
        draft_waits=waits,
        paused_by_pr=off is not None,
    )
    if gate is Skip.STALE:
        return Refresh(Outcome.SKIPPED, f"stale event ({event_at} < {newer})")
    if gate is Skip.PAUSED_BY_PR and off is not None:
        return pause_sticky(ctx, ref, by=off, noticed_at=event_at)
    if gate is not None:
        return Refresh(Outcome.SKIPPED, str(gate), state.comment_id)

    facts, state = _with_files(ctx, ref, facts, state, files, expected_files)
    posted_verbose = state.verbose  # how the comment as posted was rendered
    if verbose is not None:
        state = replace(state, verbose=verbose)
    shown = _render_now(ctx, facts, state, posted_verbose, paused_by_pr=off)
    matched, new_hash = bool(shown.notes), body_hash(shown.body)
    plan = plan_write(
        state,
        matched=matched,
        body_hash=new_hash,
        force=force,
        draft_waits=waits,
        closed=facts.closed,
    )
    if plan is Write.CREATE and deleted_by_maintainer(state):
        # A human asking (force) while the comment kept may be gone: gone, a maintainer
        # deleted it, as a PR event's write would find (updates off), whether or not
        # GitHub's word of it came first; the comment posted anew then says paused
        found = _carry_out(ctx, ref, state, Write.EDIT, shown, event_at=event_at)
        if found.outcome is not Outcome.SKIPPED:
            return found
        gone, undated = state.comment_id, state.switched_at is None
        state = ctx.prs.get(ref.repo, ref.number)  # off, the comment forgotten
        if undated:  # no `off`/`on` to date it after: GitHub's word of it dates it
            state = replace(state, switched_at=None)  # (an `on` run late counts till then)
        shown = _render_now(ctx, facts, state, state.verbose, paused_by_pr=off)
        posted = _carry_out(ctx, ref, state, plan, shown, event_at=event_at)
        if posted.outcome is Outcome.CREATED:
            # the deletion's time is a guess (`_deletion_key`): GitHub's word of it dates
            # it, and a late `on` run meanwhile is then judged by that (bot.deletion_events)
            ctx.prs.update(ref.repo, ref.number, found_gone_id=gone)
        return posted
    return _carry_out(ctx, ref, state, plan, shown, event_at=event_at)


@dataclass(frozen=True)
class _Shown:
    """The comment as rendered now, and what the PR's state keeps of it once posted."""

    body: str
    head_sha: str | None  # the head matched against
    notes: tuple[str, ...]  # note ids shown, best first
    evidence: dict[str, tuple[str, ...]]  # the reasons shown per note: kept with a `wrong` mark
    had_notes: bool
    paused: PauseCause | None  # what the paused line names, if there is one


def _render_now(
    ctx: BotContext,
    facts: PRFacts,
    state: PRState,
    posted_verbose: bool,
    *,
    paused_by_pr: PauseCause | None,
) -> _Shown:
    """Match the PR (its files known) and render the comment as it should read now."""
    facts = replace(facts, related_notes=notes_of_related_prs(ctx, facts))
    # `/notes wrong`: a note a reviewer ruled out stays out, and nothing takes its place
    # by the notes' ids now: a note renamed since it was hidden stays hidden
    dismissed = [ctx.library.current_id(n) for n in state.dismissed]
    result, hidden = hide_dismissed(ctx.matcher.match(facts), dismissed)
    had_notes = _had_notes(ctx, state, result, hidden, posted_verbose)
    opts = ctx.render_options(verbose=state.verbose, had_notes=had_notes)
    # only a command renders a paused PR; the PR's own opt-out outlasts `/notes on`
    paused = paused_by_pr or (PauseCause.COMMAND if state.opted_out else None)
    opts = replace(opts, paused=paused, hidden=hidden, repo=facts.repo)
    # No commit SHA in the body: a push that leaves the matches as they were must
    # leave the comment untouched (no write, no "edited" churn on busy PRs).
    body = render(result, ctx.library, opts=opts)
    notes = tuple(m.note.id for m in result.matches)
    evidence = {m.note.id: m.reasons for m in result.matches}
    return _Shown(body, facts.head_sha or None, notes, evidence, had_notes, paused)


def _carry_out(
    ctx: BotContext,
    ref: PRRef,
    state: PRState,
    plan: Write,
    shown: _Shown,
    *,
    event_at: str | None,
) -> Refresh:
    """Make the write `plan_write` chose (if any) and remember what the PR now shows."""
    if plan is Write.NONE:
        ctx.prs.put(replace(state, head_sha=shown.head_sha))  # its files stay cached
        return Refresh(Outcome.SKIPPED, "no note matches (and no comment to update)")
    seen: dict[str, Any] = dict(
        event_at=event_at or state.event_at, evidence=shown.evidence, had_notes=shown.had_notes
    )
    if plan is Write.UNCHANGED:
        ctx.prs.put(replace(state, **seen))
        ctx.metrics.comments.labels(str(Outcome.UNCHANGED)).inc()  # no call needed to know
        return Refresh(Outcome.UNCHANGED, "same body as posted", state.comment_id, shown.notes)
    written = _write(
        ctx,
        ref,
        state,
        shown.body,
        create=plan is Write.CREATE,
        gone="no note matches",
        noticed_at=event_at,
        head_sha=shown.head_sha,
        notes=shown.notes,
        paused=str(shown.paused) if shown.paused else None,
        **seen,
    )
    if written.outcome == Outcome.SKIPPED:
        return written
    what = f"{len(shown.notes)} note(s)" if shown.notes else "no note matches any more"
    return Refresh(written.outcome, what, written.comment_id, shown.notes)


@dataclass(frozen=True)
class _Files:
    """A PR's changed files and what its diff shows, with where the list is from."""

    files: tuple[str, ...]
    names: Mapping[str, tuple[str, ...]]  # code name -> the files whose diff names it
    incidental: frozenset[str]  # the files it only moves or changes in their imports
    entries: int | None  # how many GitHub listed, when it listed them
    base: str  # the base branch the list is the diff against ("": not known)
    listed_at: str  # the head GitHub listed them at ("": pages of two commits)
    renamed: Mapping[str, str]  # a rename's old path -> its new one


def _with_files(
    ctx: BotContext,
    ref: PRRef,
    facts: PRFacts,
    state: PRState,
    files: Sequence[str] | None,
    expected_files: int | None,
) -> tuple[PRFacts, PRState]:
    """The PR's facts and state with its changed files and what its diff shows: the
    caller's files, else the list cached for the head SHA, else GitHub's (which raises
    FilesNotReady when it lists fewer than `expected_files`). The list is cached under
    the commit GitHub listed it at, which may be newer than the event's head, and the
    base branch it is the diff against."""
    head_sha = facts.head_sha or (state.head_sha or "")
    if files is not None:
        got: _Files | None = _Files(
            tuple(files),
            names={},
            incidental=frozenset(),
            entries=None,
            base=facts.base_ref,
            listed_at=head_sha,
            renamed={},
        )
    else:
        got = _cached(state, facts, head_sha)
    if got is None:
        got = _listed(ctx, ref, state, facts, head_sha, expected_files)
    seen: dict[str, Any] = dict(
        code_names=got.names, incidental=got.incidental, renamed=got.renamed
    )
    facts = replace(facts, files=got.files, head_sha=head_sha, listed_files=got.entries, **seen)
    state = replace(
        state,
        files_sha=got.listed_at or None,
        files_base=got.base or None,
        files=got.files,
        files_listed=got.entries,
        **seen,
    )
    return facts, state


def _cached(state: PRState, facts: PRFacts, head_sha: str) -> _Files | None:
    """The list cached for the event's head and base, unless GitHub may have caught up
    with a push since (`_lagged`); None: none to take."""
    files = state.files_for(head_sha, facts.base_ref)
    if files is not None and _lagged(state, facts):
        files = None  # ask again: GitHub has had time to catch up since
    if files is None and not head_sha and state.files is not None:
        # a command on a PR whose head no event has told: the last list seen. Not
        # when the head is known: the list cached is of another head or base
        files = state.files
    return None if files is None else _kept(state, files, facts, head_sha)


def _kept(state: PRState, files: Sequence[str], facts: PRFacts, listed_at: str) -> _Files:
    """A list the PR's state keeps, with what its diff showed and GitHub's count; its
    base the event's, else the one kept with it."""
    base = facts.base_ref or (state.files_base or "")
    return _Files(
        tuple(files),
        names=state.code_names,
        incidental=state.incidental,
        entries=state.files_listed,
        base=base,
        listed_at=listed_at,
        renamed=_renames_of(state.renamed, files),
    )


def _renames_of(renamed: Mapping[str, str], files: Sequence[str]) -> dict[str, str]:
    """The renames kept of a list: those whose two paths it holds (GitHub lists both). A
    release before renames were kept (a rollback) caches another head's list with the
    columns it knows, leaving the renames of the list before: a move pushed away since
    was named as the PR's."""
    listed = set(files)
    return {old: new for old, new in renamed.items() if old in listed and new in listed}


def _listed(
    ctx: BotContext,
    ref: PRRef,
    state: PRState,
    facts: PRFacts,
    head_sha: str,
    expected_files: int | None,
) -> _Files:
    """GitHub's list of the PR's files, taken only when it is of the event's head or of
    the head the PR is at now (FilesNotReady: it lags behind a push, look again later)."""
    listed = ctx.github.list_files(ref, expected=expected_files)
    if listed.head and head_sha and listed.head != head_sha and expected_files is not None:
        # listed at another head: GitHub moved on since the event (the list is the
        # PR's now), or its list lags behind a push (the event's, or one since): the
        # PR's own head tells which (a call only then)
        try:
            now = ctx.github.get_pull(ref)
            moved_on = now is None or now.head_sha == listed.head  # None: cannot ask
        except GitHubError:
            moved_on = False  # cannot tell: look again later, as for a lag
        if not moved_on:
            raise FilesNotReady(ref, len(listed), expected_files, at=listed.head)
    # "": pages of two commits, cached for none
    listed_at = listed.head if listed.head is not None else head_sha
    if listed.listed is None and not listed and (kept := state.files_for(head_sha)):
        # a port that cannot list (a dry run): the head's last list, whatever its base
        # (one cached before bases were kept has none)
        return _kept(state, kept, facts, listed_at)
    return _Files(
        tuple(listed),
        names=listed.code_names,
        incidental=listed.incidental,
        entries=listed.listed,
        base=facts.base_ref,
        listed_at=listed_at,
        renamed=listed.renamed,
    )


def _had_notes(
    ctx: BotContext, state: PRState, result: MatchResult, hidden: int, verbose: bool
) -> bool:
    """Whether "no note matches" may say "any more": notes were shown before (also by a
    release that kept `notes` but not `had_notes`, after a rollback). Not known for a
    comment posted before `had_notes` was kept: the comment as posted tells, if it is
    the plain "no note matches" (its hash); otherwise it is taken to have shown notes,
    as before `had_notes` existed."""
    if state.had_notes is not None or state.notes:
        return bool(state.had_notes) or bool(state.notes)
    posted = ctx.render_options(verbose=verbose, had_notes=False)
    paused = PauseCause(state.paused) if state.paused else None
    plain = render(result, ctx.library, opts=replace(posted, paused=paused, hidden=hidden))
    return body_hash(plain) != state.body_hash


def seen_event(ctx: BotContext, ref: PRRef, event_at: str, by: str | None = None) -> str | None:
    """Remember a PR event's `updated_at` as the newest seen, whatever the event then
    does (match nothing, wait for a draft, pause, or note that the PR closed). Returns
    the newer time already seen when this event is older: it is stale and must change
    nothing (deliveries arrive late, `retry` re-runs old ones, a files re-check re-runs
    its event after newer ones).

    `by`: the event's id, kept as the one that set the time (`PRState.event_by`); a
    second event of that time clears it: from then on every run of that second is a tie.
    """
    # one delivery per PR runs at a time (bot.queue), so nothing changes it in between
    state = ctx.prs.get(ref.repo, ref.number)
    standing = as_github_time(state.event_at)  # (one stored before times were checked)
    if standing and event_at < standing:
        return standing
    if event_at != state.event_at:
        ctx.prs.put(replace(state, event_at=event_at, event_by=by))
    elif state.event_by is not None and state.event_by != by:
        ctx.prs.put(replace(state, event_by=None))
    return None


def notes_of_related_prs(ctx: BotContext, facts: PRFacts) -> dict[str, tuple[int, str]]:
    """The notes shown on the PRs this one fixes, reverts, follows up on, supersedes or
    builds on, by what its description says: a revert of a PR that got a note, or the
    fix of its bug, changes the same mechanism."""
    # the first few: a description listing thousands of "fixes #N" costs one small query
    related = related_refs(facts.body, facts.repo, own_number=facts.number)[:MAX_RELATED]
    shown = ctx.prs.notes_of(facts.repo, facts.number, [r.number for r in related])
    found: dict[str, tuple[int, str]] = {}
    for r in related:
        for note_id in shown.get(r.number, ()):  # by its id now: it may have been renamed
            found.setdefault(ctx.library.current_id(note_id), (r.number, r.relation.value))
    return found


def opted_out_by_pr(facts: PRFacts, label: str) -> PauseCause | None:
    """Whether the PR itself asks for no notes: the opt-out label (matched as GitHub
    matches labels, case-insensitively), or that label in an HTML comment in the
    description (`<!-- no-review-notes -->`, invisible, for authors who cannot label)."""
    label = label.strip().lower()
    if not label:
        return None
    if any(x.strip().lower() == label for x in facts.labels):
        return PauseCause.LABEL
    # every event asks, and most bodies never name the label: skip the pass over code then
    if not re.search(re.escape(label), facts.body, re.IGNORECASE):
        return None
    marker = rf"<!--\s*{re.escape(label)}\s*-->"
    # as GitHub renders it: shown as code (escaped in the HTML), it is no opt-out
    if re.search(marker, as_html(facts.body), re.IGNORECASE):
        return PauseCause.DESCRIPTION
    return None


def pause_sticky(
    ctx: BotContext,
    ref: PRRef,
    *,
    by: PauseCause = PauseCause.COMMAND,
    noticed_at: str | None = None,
) -> Refresh:
    """`/notes off`, the opt-out label or the description's marker: edit our comment, if
    there is one, to say updates are paused. noticed_at: as for `_write`. (`/notes off`
    sets `opted_out` in the state, then calls this.)

    Never creates a comment and never deletes one; costs nothing when there is no
    comment or it says so already, also when it shows notes under the paused line (a
    `/notes` asked for them: later events must not take them away).
    """
    why = "paused" if by is PauseCause.COMMAND else f"opt-out {by}"
    state = ctx.prs.get(ref.repo, ref.number)
    if state.comment_id is None and not state.unconfirmed:
        return Refresh(Outcome.SKIPPED, f"{why} (no comment to edit)")
    body = render_paused(ctx.render_options(), by=by)
    # A PR event (label, marker) finds the comment naming its cause already: leave it,
    # notes and all; `/notes off` itself always brings it back to the short line.
    says_so = state.paused == str(by) and by is not PauseCause.COMMAND
    if state.trusted and (says_so or state.body_hash == body_hash(body)):
        return Refresh(Outcome.UNCHANGED, f"{why} (the comment says so)", state.comment_id)
    written = _write(
        ctx,
        ref,
        state,
        body,
        create=False,
        gone=why,
        noticed_at=noticed_at,
        notes=(),
        paused=str(by),
    )
    return replace(written, reason=why if written.comment_id else written.reason)


def _write(
    ctx: BotContext,
    ref: PRRef,
    state: PRState,
    body: str,
    *,
    create: bool,
    gone: str,
    noticed_at: str | None = None,
    **changes: Any,
) -> Refresh:
    """Create or edit the sticky comment and remember what was posted. `gone` starts the
    reason given when the comment to edit is not there (`create=False`); noticed_at, the
    PR event's `updated_at` (None: a command's write), dates a deletion found so. A
    rewrite's words owed back go first (bot.write_backs): this write, knowing no comment,
    would take theirs showing our text for ours. GitHub gets `body` signed for the PR
    (bot.markers `signed_text`: by its repository's id where the event gave it, which a
    rename keeps); `body_hash` is of `body`, as every render compares it."""
    if state.write_back is not None:
        write_back_owed(ctx, ref)  # (a lock refusing it refuses this write too)
        state = replace(state, write_back=None)
    _begin_write(ctx, ref, shows_notes=bool(changes.get("notes")))
    # what we last posted, if known (an unconfirmed write cleared it): a comment list
    # showing this body instead lags behind that write, and is not taken for "unchanged"
    differs = state.body_hash is not None and state.body_hash != body_hash(body)
    sticky = ctx.github.upsert_sticky(
        ref,
        signed_text(body, ctx.comment_key, ref.repo, ref.number, ref.repo_id),
        MARKER,
        create=create,
        known_id=state.comment_id,
        known_differs=differs,
        given_back=_given_back(state),
    )
    ctx.metrics.comments.labels(str(sticky.outcome)).inc()
    if sticky.outcome == Outcome.SKIPPED:
        return _found_gone(ctx, ref, state, gone=gone, noticed_at=noticed_at)
    comment_id = sticky.comment_id or state.comment_id
    written = replace(state, comment_id=comment_id, body_hash=body_hash(body), **changes)
    still = sticky.comment_id in (None, state.comment_id)  # the comment known is kept
    written = replace(
        written,
        replaced_id=_replaced(state, sticky),
        found_gone_id=state.found_gone_id if still else None,
    )
    # GitHub answered: what it holds is known, and the comment is there (or new)
    written = replace(written, unconfirmed=False, resumed_at=None)
    if written.owed_delete == comment_id:  # kept now (an `on` said since): not deleted
        written = replace(written, owed_delete=None)
    # notes shown now count; a not-known had_notes (None) stays so until one is shown
    ctx.prs.put(replace(written, had_notes=bool(written.notes) or written.had_notes))
    return Refresh(sticky.outcome, "written", comment_id)


def _given_back(state: PRState) -> tuple[int, ...]:
    """The comments a person's rewrite made theirs (bot.deletion_events), which no write
    takes for the notes comment should they paste our text back; but for the one the
    state keeps: a release before they were kept (a rollback) took it back as its notes
    comment and wrote it since, as it does a write-back owed onto it (bot.write_backs)."""
    return tuple(i for i in state.given_back if i != state.comment_id)


def _replaced(state: PRState, sticky: StickyResult) -> int | None:
    """The comment a write after `/notes on` found gone and replaced with the one it
    posted: its deletion, told later, may have been made after the `on`
    (bot.deletion_events). Kept while that comment is the one kept; another since (a
    `/notes` that found it gone too and posted its own) is no `on`'s doing. Not when the
    write kept an older copy of ours and deleted the one known itself (converging): that
    deletion is the bot's, told by a token's login as a person's."""
    if state.resumed and sticky.outcome == Outcome.CREATED:
        return state.comment_id
    same = sticky.comment_id in (None, state.comment_id)
    return state.replaced_id if same else None


def _found_gone(
    ctx: BotContext, ref: PRRef, state: PRState, *, gone: str, noticed_at: str | None
) -> Refresh:
    """A write found no comment of ours: forget it, and if a maintainer deleted it
    (`comment_plan.deleted_by_maintainer`), turn updates off as `/notes off` would."""
    if not deleted_by_maintainer(state):
        forget_comment(ctx, state)
        return Refresh(Outcome.SKIPPED, f"{gone} (no comment of ours found)")
    # the maintainer's `/notes off`, said when noticed: an older `on` run late must
    # not post the comment again
    record_deletion(ctx, ref, state, state.comment_id, _deletion_key(state, noticed_at))
    return Refresh(Outcome.SKIPPED, f"{gone} (our comment was deleted: updates off)")


# what is known of a comment that is gone
_FORGOTTEN: dict[str, Any] = dict(
    comment_id=None,
    body_hash=None,
    paused=None,
    had_notes=False,
    resumed_at=None,
    replaced_id=None,
    found_gone_id=None,
)


def forget_comment(ctx: BotContext, state: PRState) -> None:
    """The notes comment the PR's state keeps is no longer ours (gone, or a person's
    now): forgotten, the updates as they stand; the next write posts a new one."""
    ctx.prs.put(replace(state, **_FORGOTTEN, unconfirmed=False))


def record_deletion(
    ctx: BotContext, ref: PRRef, state: PRState, comment_id: int | None, key: str
) -> None:
    """Our notes comment `comment_id` was deleted by a maintainer: forget it and turn
    updates off as `/notes off` said at order key `key` would (`/notes on` resumes)."""
    off: dict[str, Any] = dict(opted_out=True, switched_at=key)
    ctx.prs.put(replace(state, **_FORGOTTEN, unconfirmed=False, **off))
    log.info(
        "%s PR %s: our comment %s was deleted; automatic updates are off on it, as by"
        " `/notes off` (`/notes on` resumes them)",
        ref.repo,
        ref.number,
        comment_id,
    )


def _deletion_key(state: PRState, noticed_at: str | None) -> str:
    """The order key (bot.order_keys) of a deletion noticed at this PR event's
    `updated_at` (GitHub's clock, as the keys it is compared with): after every comment
    of that second, so any `off`/`on` written before it ranks below and one written
    later above. Never below the switch already recorded: that one ran before the
    deletion was noticed. Noticed by a command's write (`/notes off`): just after that
    command (its key is the switch recorded), not at the bot's clock, so an `on` written
    after the `off` still wins however late it ran."""
    if noticed_at is None and state.switched_at:
        return just_after(state.switched_at)
    key = after_second(github_time(noticed_at))
    return max(key, just_after(state.switched_at)) if state.switched_at else key


def _lagged(state: PRState, facts: PRFacts) -> bool:
    """The cached files are a listing GitHub gave short of the PR's `changed_files`: one
    made before its list caught up with a push, by a caller that could not wait for it
    (a command answers at once) or had waited long enough. Not the PR's files: matching
    on them again would keep the wrong notes until the next push. A list given by hand
    (no count of GitHub's: a payload's, a dry run's) stands as given."""
    listed, changed = state.files_listed, facts.changed_files
    return listed is not None and changed is not None and listed_short(listed, changed)


def _draft_waits(ctx: BotContext, facts: PRFacts) -> bool:
    """A draft gets no comment from PR events until it is ready for review."""
    return facts.draft and not ctx.settings.comment_on_drafts


def _begin_write(ctx: BotContext, ref: PRRef, *, shows_notes: bool) -> None:
    """The PR's state changes only once GitHub confirms a write. A write it applied but
    never confirmed (the answers lost, or the new comment's id not saved) would leave it
    believing in no comment, or in an older text, and skip the call that fixes it: so a
    write is marked `unconfirmed` before it is made, and until one is confirmed the next
    refresh asks GitHub instead of trusting the state.

    Mark the PR's comment as being written, before the call: should GitHub apply the
    write but its answer be lost (or saving it fail), the next refresh must look at
    GitHub rather than skip on a state that knows neither the comment nor its text.
    The hash goes too, so that even a release that does not know the mark (a rollback)
    does not take the text for unchanged."""
    marks: dict[str, object] = dict(unconfirmed=True, body_hash=None)
    if shows_notes:  # they may be up now: a later "no note matches" says "any more"
        marks["had_notes"] = True
    ctx.prs.update(ref.repo, ref.number, **marks)

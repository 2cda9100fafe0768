"""The upsert rules, through the dry-run port (a real SQLite-backed GitHubPort)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.commands import load_command_config
from bot.context import BotContext
from bot.db import Database
from bot.dryrun import DryRunGitHub
from bot.github_port import FileList, Outcome, PRRef, counting_writes
from bot.library import load_library
from bot.markers import MARKER
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher
from bot.prfacts import PRFacts
from bot.prstate import PRStore
from bot.render import PauseCause
from bot.sticky import opted_out_by_pr, pause_sticky, refresh_sticky, seen_event
from bot.times import as_github_time
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    clean_env,
    make_settings,
    title_with_one_more_note,
)

REF = PRRef("vllm-project/vllm", 7001, 1001)
SHA1 = "1111111111111111111111111111111111111111"
SHA2 = "2222222222222222222222222222222222222222"


class CountingPort(DryRunGitHub):
    """The dry-run port, counting the calls made through it (in `counted`: `calls` is the
    port's HTTP call statistics)."""

    def __init__(self, db: Database, files: list[str] | None = None):
        super().__init__(db)
        self.counted: Counter[str] = Counter()
        self.files = files or []
        self.code_names: set[str] = set()
        self.incidental: frozenset[str] = frozenset()

    def list_files(self, ref, *, expected=None):
        self.counted["list_files"] += 1
        names = {n: tuple(self.files[:1]) for n in self.code_names}
        return FileList(self.files, names, self.incidental)

    def upsert_sticky(
        self, ref, body, marker, *, create, known_id=None, known_differs=False, given_back=()
    ):
        self.counted["upsert_sticky"] += 1
        done = super().upsert_sticky(
            ref, body, marker, create=create, known_id=known_id, known_differs=known_differs
        )
        if self.answers_lost:  # GitHub did the write; its answer never came
            self.answers_lost -= 1
            raise ConnectionError("answer lost")
        return done

    answers_lost = 0


@pytest.fixture
def ctx(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    db = Database(tmp_path / "s.sqlite3")
    port = CountingPort(db, MATCHING_FILES)
    settings = make_settings(tmp_path)
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    yield BotContext(settings, lib, matcher, port, PRStore(db), commands=load_command_config())
    db.close()


def facts(title=MATCHING_TITLE, sha=SHA1, number=REF.number, **kw) -> PRFacts:
    return PRFacts(repo=REF.repo, number=number, title=title, head_sha=sha, **kw)


def bodies(ctx) -> list[str]:
    return [c["body"] for c in ctx.github.comments(REF.repo, REF.number)]


def test_create_then_unchanged_costs_no_call(ctx):
    r = refresh_sticky(ctx, REF, facts())
    assert r.outcome == Outcome.CREATED and r.notes
    assert ctx.github.counted == {"list_files": 1, "upsert_sticky": 1}
    again = refresh_sticky(ctx, REF, facts(labels=("unrelated-label",)))
    assert again.outcome == Outcome.UNCHANGED
    assert ctx.github.counted == {"list_files": 1, "upsert_sticky": 1}  # files cached per head
    assert len(bodies(ctx)) == 1


def test_update_in_place_when_matches_change(ctx):
    refresh_sticky(ctx, REF, facts())
    before = bodies(ctx)[0]
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert r.outcome == Outcome.UPDATED
    (after,) = bodies(ctx)
    assert after != before and after.startswith(MARKER)


def test_a_push_refetches_files_but_same_notes_write_nothing(ctx):
    refresh_sticky(ctx, REF, facts(sha=SHA1))
    r = refresh_sticky(ctx, REF, facts(sha=SHA2))
    assert r.outcome == Outcome.UNCHANGED
    assert ctx.github.counted["list_files"] == 2
    assert "1111111" not in bodies(ctx)[0]  # no commit SHA in the body


def test_no_longer_matching_edits_to_say_so_and_never_deletes(ctx):
    refresh_sticky(ctx, REF, facts())
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert r.outcome == Outcome.UPDATED and r.notes == ()
    (body,) = bodies(ctx)
    assert "No review note matches this pull request any more" in body
    # and back again
    ctx.github.files = MATCHING_FILES
    assert refresh_sticky(ctx, REF, facts(sha=SHA1)).outcome == Outcome.UPDATED
    assert len(bodies(ctx)) == 1


def test_never_matched_means_no_comment_and_no_comment_call(ctx):
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE))
    assert r.outcome == Outcome.SKIPPED
    assert bodies(ctx) == []
    assert ctx.github.counted == {"list_files": 1}


def test_draft_waits_but_a_command_can_force_it(ctx):
    assert refresh_sticky(ctx, REF, facts(draft=True)).outcome == Outcome.SKIPPED
    assert ctx.github.counted == {}
    assert refresh_sticky(ctx, REF, facts(draft=True), force=True).outcome == Outcome.CREATED
    # Once a comment exists, a draft keeps it up to date.
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(draft=True, title=UNRELATED_TITLE, sha=SHA2))
    assert r.outcome == Outcome.UPDATED


def test_comment_on_drafts_setting(ctx):
    ctx2 = replace(ctx, settings=ctx.settings.model_copy(update={"comment_on_drafts": True}))
    assert refresh_sticky(ctx2, REF, facts(draft=True)).outcome == Outcome.CREATED


def test_forced_refresh_with_no_match_still_answers(ctx):
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE), force=True)
    assert r.outcome == Outcome.CREATED
    assert "No review note matches this pull request." in bodies(ctx)[0]


def test_verbose_mode_sticks_until_turned_off(ctx):
    refresh_sticky(ctx, REF, facts(), force=True, verbose=True)
    assert "(why mode)" in bodies(ctx)[0]
    refresh_sticky(ctx, REF, facts(sha=SHA2))  # a later push keeps the mode
    assert "(why mode)" in bodies(ctx)[0]
    refresh_sticky(ctx, REF, facts(sha=SHA2), force=True, verbose=False)
    assert "(why mode)" not in bodies(ctx)[0]


def test_opted_out_pr_is_left_alone_unless_asked(ctx):
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.SKIPPED
    assert ctx.github.counted == {}
    assert refresh_sticky(ctx, REF, facts(), force=True).outcome == Outcome.CREATED
    assert refresh_sticky(ctx, REF, facts(sha=SHA2)).outcome == Outcome.SKIPPED  # still off


def test_stale_event_changes_nothing(ctx):
    refresh_sticky(ctx, REF, facts(), event_at="2026-09-01T10:00:05Z")
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE), event_at="2026-09-01T10:00:00Z")
    assert r.outcome == Outcome.SKIPPED and "stale" in r.reason
    assert "No review note" not in bodies(ctx)[0]


def test_files_from_the_payload_skip_the_files_call(ctx):
    r = refresh_sticky(ctx, REF, facts(), files=MATCHING_FILES)
    assert r.outcome == Outcome.CREATED
    assert ctx.github.counted == {"upsert_sticky": 1}


def test_state_is_per_pr_and_repo_case_insensitive(ctx):
    refresh_sticky(ctx, REF, facts())
    state = ctx.prs.get("VLLM-project/vllm", 7001)
    assert state.comment_id is not None and state.notes
    assert ctx.prs.get("vllm-project/vllm", 7002).comment_id is None


def test_a_revert_or_fix_of_a_pr_that_got_notes_gets_them_with_the_reason(ctx):
    first = refresh_sticky(ctx, REF, facts())
    assert first.notes

    def other(number: int, body: str):
        pr = facts(UNRELATED_TITLE, number=number, body=body)
        return refresh_sticky(ctx, PRRef(REF.repo, number), pr, files=["docs/README.md"])

    r = other(7002, f"Reverts {REF.repo}#{REF.number}\n\nIt broke the nightly run.")
    assert r.outcome == Outcome.CREATED and r.notes == first.notes
    posted = ctx.github.comments(REF.repo, 7002)[0]["body"]
    assert f"reverts PR {REF.number}, which got this note" in posted
    # a mere mention is no relation, and a PR the bot showed nothing on gives nothing
    assert other(7003, f"See #{REF.number} for the numbers.").outcome == Outcome.SKIPPED
    assert other(7004, "Reverts #7003").outcome == Outcome.SKIPPED
    # thousands of relations cost one bounded query, and the related PR is still found
    many = "Fixes " + ", ".join(f"#{n}" for n in range(1, 5000)) + f". Reverts #{REF.number}"
    assert other(7005, many).outcome == Outcome.SKIPPED  # past the first 50
    first_few = f"Reverts #{REF.number}. Fixes " + ", ".join(f"#{n}" for n in range(1, 5000))
    assert other(7006, first_few).notes == first.notes


def test_body_identical_but_comment_deleted_by_a_human_is_recreated_on_force(ctx):
    # a deletion is seen only by a call: with the same render, a PR event spends none.
    # `/notes` is a human asking (as when paused by `/notes off`): it posts the comment
    # anew. Found gone, it was deleted: the updates go off, as GitHub's word of the
    # deletion turns them off whether it comes before the `/notes` or after it
    # (docs/commands.md), and the comment posted anew says so
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.UNCHANGED  # no call spent
    assert refresh_sticky(ctx, REF, facts(), force=True).outcome == Outcome.CREATED
    assert ctx.prs.get(REF.repo, REF.number).opted_out
    (body,) = bodies(ctx)
    assert "Automatic updates are paused" in body
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == [body]


def test_the_opt_out_label_keeps_the_bot_away_until_removed(ctx):
    off = ("bug", "No-Review-Notes")  # GitHub labels are matched case-insensitively
    r = refresh_sticky(ctx, REF, facts(labels=off))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == []
    assert ctx.github.counted == {}  # not even the files were asked for
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.CREATED
    assert "the label `no-review-notes`" in bodies(ctx)[0]  # the footer says how

    paused = refresh_sticky(ctx, REF, facts(labels=off))
    assert paused.outcome == Outcome.UPDATED and len(bodies(ctx)) == 1  # edited, not deleted
    assert "paused on this pull request by the label `no-review-notes`" in bodies(ctx)[0]
    assert "52419" not in bodies(ctx)[0]  # the notes are gone until the label is
    assert refresh_sticky(ctx, REF, facts(labels=off, sha=SHA2)).outcome == Outcome.UNCHANGED
    assert refresh_sticky(ctx, REF, facts(labels=off), force=True).outcome == Outcome.UPDATED
    assert "52419" in bodies(ctx)[0]  # a human asking with /notes still gets the notes

    assert refresh_sticky(ctx, REF, facts()).outcome in (Outcome.UPDATED, Outcome.UNCHANGED)
    assert "52419" in bodies(ctx)[0] and "paused" not in bodies(ctx)[0]


def test_the_marker_in_the_description_keeps_the_bot_away_until_removed(ctx):
    body = "Fixes a cache bug.\n\n<!--   No-Review-Notes -->\n"  # invisible once rendered
    r = refresh_sticky(ctx, REF, facts(body=body))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == [] and ctx.github.counted == {}
    assert refresh_sticky(ctx, REF, facts(body="Fixes a cache bug.")).outcome == Outcome.CREATED
    paused = refresh_sticky(ctx, REF, facts(body=body, sha=SHA2))
    assert paused.outcome == Outcome.UPDATED and "opt-out description" in paused.reason
    (text,) = bodies(ctx)
    assert "by `<!-- no-review-notes -->` in its description. Remove it to resume them" in text
    assert "52419" not in text
    assert refresh_sticky(ctx, REF, facts(body=body), force=True).outcome == Outcome.UPDATED
    assert "52419" in bodies(ctx)[0]  # `/notes` still answers


@pytest.mark.parametrize(
    ("labels", "body", "label", "cause"),
    [
        (("no-review-notes",), "", "no-review-notes", PauseCause.LABEL),
        ((), "x <!--no-review-notes--> y", "no-review-notes", PauseCause.DESCRIPTION),
        ((), "no-review-notes, said in prose", "no-review-notes", None),  # visible text: no
        ((), "<!-- no-review-notes-please -->", "no-review-notes", None),
        ((), "write `<!-- no-review-notes -->` to opt out", "no-review-notes", None),  # code
        ((), "so:\n\n```md\n<!-- no-review-notes -->\n```\n", "no-review-notes", None),
        ((), "- ```\n  <!-- no-review-notes -->\n  ```", "no-review-notes", None),  # list fence
        ((), "Opt out:\n\n    <!-- no-review-notes -->\n\nDone.", "no-review-notes", None),
        (
            (),
            "`x` then <!-- no-review-notes --> and `y`",
            "no-review-notes",
            PauseCause.DESCRIPTION,
        ),
        ((), "<!-- skip.notes -->", "skip.notes", PauseCause.DESCRIPTION),
        ((), "<!-- skipxnotes -->", "skip.notes", None),  # the label is text, not a pattern
        (("no-review-notes",), "", "No-Review-Notes", PauseCause.LABEL),  # configured so
        ((), "<!-- no-review-notes -->", " No-Review-Notes ", PauseCause.DESCRIPTION),
        ((), "Opt out:\n\n\t<!-- no-review-notes -->", "no-review-notes", None),  # tab: code
        # a list item's continuation line is the item's text, not code, as GitHub shows it
        ((), "- opt out\n    <!-- no-review-notes -->", "no-review-notes", PauseCause.DESCRIPTION),
        (("no-review-notes",), "<!-- no-review-notes -->", "", None),  # empty: feature off
    ],
)
def test_what_opts_a_pr_out(labels, body, label, cause):
    pr = facts(labels=labels, body=body)
    assert opted_out_by_pr(pr, label) is cause


@pytest.mark.parametrize(
    ("body", "cause"),
    [
        # a fence opened on a list item's line ends with the item: the comment after it
        # is hidden, as GitHub shows it (read as code to the end before)
        ("Fixes it.\n\n- ```\n  boom\n<!-- no-review-notes -->", PauseCause.DESCRIPTION),
        # an HTML block holds what looks like a fence: raw HTML, the comment hidden
        ("<details>\n~~~\n<!-- no-review-notes -->\n</details>", PauseCause.DESCRIPTION),
        # a fence at the margin after a list item's fence opens a new block: code
        ("- ```x\n```\n<!-- no-review-notes -->", None),
    ],
)
def test_the_opt_out_counts_where_github_keeps_it_as_a_comment(body, cause):
    # GitHub's engine decides what holds the code, not a guess line by line
    assert opted_out_by_pr(facts(body=body), "no-review-notes") is cause


def test_a_pr_paused_by_its_label_and_a_command_names_the_label(ctx):
    # `/notes on` would not resume it while the label is there: the label is the cause
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    refresh_sticky(ctx, REF, facts(labels=("no-review-notes",)), force=True)
    (body,) = bodies(ctx)
    assert "paused on this pull request by the label `no-review-notes`" in body
    assert "`/notes on` resumes" not in body


def test_an_empty_opt_out_label_turns_the_feature_off(ctx):
    ctx2 = replace(ctx, settings=ctx.settings.model_copy(update={"opt_out_label": ""}))
    assert refresh_sticky(ctx2, REF, facts(labels=("",))).outcome == Outcome.CREATED
    assert "label" not in bodies(ctx2)[0].split("<sub>")[-1]


def test_the_names_a_diff_changes_are_cached_with_its_files(ctx):
    ctx.github.files = ["vllm/v1/sample/logits_processor/state.py"]
    ctx.github.code_names = {"MoveDirectionality"}
    title = "Fix batch updates for pooling models"
    first = refresh_sticky(ctx, REF, facts(title=title))
    assert first.outcome == Outcome.CREATED and first.notes == ("vllm-dea4fb5e",)
    assert "MoveDirectionality" in bodies(ctx)[0]
    # a label later: same head, no new listing, the same names, the same comment
    again = refresh_sticky(ctx, REF, facts(title=title, labels=("v1",)))
    assert again.outcome == Outcome.UNCHANGED and ctx.github.counted["list_files"] == 1
    assert ctx.prs.get(REF.repo, REF.number).code_names == {
        "MoveDirectionality": ("vllm/v1/sample/logits_processor/state.py",)
    }


def test_files_only_moved_are_cached_with_the_files_and_are_no_evidence(ctx):
    warmup = "vllm/model_executor/warmup/deep_gemm_warmup.py"  # the warmup note's own file
    ctx.github.files = [warmup]
    ctx.github.incidental = frozenset({warmup})  # the PR only fixed its imports
    title = "Update imports after the experts move"
    first = refresh_sticky(ctx, REF, facts(title=title))
    assert first.outcome == Outcome.SKIPPED and first.notes == ()
    assert ctx.prs.get(REF.repo, REF.number).incidental == {warmup}
    # a label later: same head, the cached listing, still no note
    again = refresh_sticky(ctx, REF, facts(title=title, labels=("v1",)))
    assert again.notes == () and ctx.github.counted["list_files"] == 1
    # a push that changes the file for real: a new listing, and the note
    ctx.github.incidental = frozenset()
    pushed = refresh_sticky(ctx, REF, facts(title=title, sha=SHA2))
    assert pushed.outcome == Outcome.CREATED and pushed.notes == ("vllm-d1bdb5d7",)


def test_a_command_reuses_the_files_of_the_head_and_keeps_them_cached_for_it(ctx):
    # a command's payload has no head SHA: it must use the head last seen, so the next
    # event on that same head still finds its files cached (one listing in all)
    refresh_sticky(ctx, REF, facts(sha=SHA1))
    refresh_sticky(ctx, REF, facts(sha=""), force=True)
    assert refresh_sticky(ctx, REF, facts(labels=("v1",))).outcome == Outcome.UNCHANGED
    assert ctx.github.counted["list_files"] == 1


def test_a_command_on_a_pr_that_never_matched_reuses_its_last_file_list(ctx):
    # nothing written yet (no head kept), but the files seen for the event are: a
    # command with no head in its payload answers from them without listing again
    ctx.github.files = []
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE))
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=""), force=True)
    assert r.outcome == Outcome.CREATED
    assert ctx.github.counted["list_files"] == 1
    # and the next event on the same head still finds them cached
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE))
    assert ctx.github.counted["list_files"] == 1


def test_a_comment_deleted_by_a_human_is_not_recreated_to_say_nothing_matches(ctx):
    # with nothing to show, a missing comment stays missing (never a "no note" comment
    # out of nowhere). It used to be forgotten, and created again once notes matched
    # again; a deleted comment is a maintainer's "go away" now: the PR is opted out as
    # by `/notes off`, and stays without a comment
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert r.outcome == Outcome.SKIPPED and "deleted" in r.reason
    state = ctx.prs.get(REF.repo, REF.number)
    assert bodies(ctx) == [] and state.comment_id is None and state.opted_out
    ctx.github.files = MATCHING_FILES
    assert refresh_sticky(ctx, REF, facts(sha=SHA1)).outcome == Outcome.SKIPPED
    assert bodies(ctx) == []


def test_a_command_keeps_the_newest_event_time_so_an_older_event_stays_stale(ctx):
    # a command carries no `updated_at`: writing the comment must not forget the
    # newest event seen, or a late older delivery would overwrite a newer state
    refresh_sticky(ctx, REF, facts(), event_at="2026-09-01T10:00:05Z")
    refresh_sticky(ctx, REF, facts(), force=True, verbose=True)
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE), event_at="2026-09-01T10:00:00Z")
    assert r.outcome == Outcome.SKIPPED and "stale" in r.reason


def test_the_first_relation_named_gives_the_reason_for_a_note_both_related_prs_got(ctx):
    # the description's first mention wins: "reverts PR 7001", not the later "fixes"
    first = refresh_sticky(ctx, REF, facts())
    refresh_sticky(ctx, PRRef(REF.repo, 7002), facts(number=7002))
    pr = facts(UNRELATED_TITLE, number=7003, body="Reverts #7001. Fixes #7002")
    r = refresh_sticky(ctx, PRRef(REF.repo, 7003), pr, files=["docs/README.md"])
    assert r.notes == first.notes
    posted = ctx.github.comments(REF.repo, 7003)[0]["body"]
    assert f"reverts PR {REF.number}, which got this note" in posted
    assert "PR 7002" not in posted


@pytest.mark.parametrize(("before", "found"), [(49, True), (50, False)])
def test_the_first_fifty_relations_are_looked_up(ctx, before, found):
    # MAX_RELATED: the 50th relation in the description still counts, the 51st does not
    first = refresh_sticky(ctx, REF, facts())
    others = ", ".join(f"#{n}" for n in range(1, before + 1))
    pr = facts(UNRELATED_TITLE, number=7002, body=f"Fixes {others}. Reverts #{REF.number}")
    r = refresh_sticky(ctx, PRRef(REF.repo, 7002), pr, files=["docs/README.md"])
    assert r.notes == (first.notes if found else ())


def test_a_paused_comment_shows_no_note_and_pausing_again_costs_no_write(ctx):
    off = ("no-review-notes",)
    refresh_sticky(ctx, REF, facts())
    refresh_sticky(ctx, REF, facts(labels=off))
    state = ctx.prs.get(REF.repo, REF.number)
    assert state.notes == () and state.evidence  # none shown now; what was shown is kept
    writes = ctx.github.counted["upsert_sticky"]
    again = refresh_sticky(ctx, REF, facts(labels=off, sha=SHA2))
    assert again.outcome == Outcome.UNCHANGED
    assert ctx.github.counted["upsert_sticky"] == writes  # the comment says so already


def test_pausing_never_recreates_a_comment_a_human_deleted(ctx):
    # nor does removing the label later: the deletion opted the PR out, as `/notes off`
    # (a deleted comment is a maintainer's "go away")
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    r = refresh_sticky(ctx, REF, facts(labels=("no-review-notes",)))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == []
    assert ctx.prs.get(REF.repo, REF.number).opted_out
    assert refresh_sticky(ctx, REF, facts(sha=SHA2)).outcome == Outcome.SKIPPED
    assert bodies(ctx) == []


# a deleted comment's reason, and "any more" across an upgrade through a pause or why mode


def test_a_deleted_comment_reason_is_words_not_a_dict(ctx):
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert r.outcome == Outcome.SKIPPED
    assert r.reason == "no note matches (our comment was deleted: updates off)", r.reason


def test_a_pause_on_a_deleted_comment_names_the_pause(ctx):
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    r = pause_sticky(ctx, REF)
    assert r.outcome == Outcome.SKIPPED
    assert r.reason == "paused (our comment was deleted: updates off)", r.reason


def test_any_more_survives_a_pause_after_an_upgrade(ctx):
    # notes shown, then none: the comment says "any more"
    refresh_sticky(ctx, REF, facts(sha=SHA1))
    ctx.github.files = []
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert "matches this pull request any more" in bodies(ctx)[0]
    # the same, without the upgrade: `/notes off`, `/notes on` keep "any more"
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    pause_sticky(ctx, REF)
    ctx.prs.update(REF.repo, REF.number, opted_out=False)
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), force=True)
    assert "matches this pull request any more" in bodies(ctx)[0]
    # as the previous release left the row: had_notes NULL, the comment saying "any more"
    ctx.prs.db.execute("UPDATE pr_state SET had_notes = NULL")
    assert ctx.prs.get(REF.repo, REF.number).had_notes is not False  # None at HEAD
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    pause_sticky(ctx, REF)  # the first event after the upgrade: `/notes off`
    ctx.prs.update(REF.repo, REF.number, opted_out=False)
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), force=True)
    # 515b4a0 said "any more" here; HEAD drops it (the pause stored had_notes=False)
    assert "matches this pull request any more" in bodies(ctx)[0]


def test_any_more_survives_why_mode_after_an_upgrade(ctx):
    # the hash comparison recognises only a body rendered exactly as before: the first
    # event after the upgrade being `/notes why` (or a setting/footer change, or a paused
    # line) reads the "any more" comment as one that never showed notes
    refresh_sticky(ctx, REF, facts(sha=SHA1))
    ctx.github.files = []
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert "matches this pull request any more" in bodies(ctx)[0]
    ctx.prs.db.execute("UPDATE pr_state SET had_notes = NULL")  # as the previous release
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), force=True, verbose=True)
    assert "matches this pull request any more" in bodies(ctx)[0]


def test_a_second_notes_comment_is_deleted_in_a_dry_run_too(ctx):
    # the dry run keeps the port's contract: the oldest is kept and edited, the others go
    refresh_sticky(ctx, REF, facts())
    (first,) = ctx.github.comments(REF.repo, REF.number)
    ctx.github.db.execute(
        "INSERT INTO dry_run_comments (repo, number, body, sticky, created_at, updated_at)"
        " SELECT repo, number, body, sticky, created_at, updated_at FROM dry_run_comments"
    )
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert r.outcome == Outcome.UPDATED and r.comment_id == first["id"]
    (kept,) = ctx.github.comments(REF.repo, REF.number)
    assert kept["id"] == first["id"] and kept["body"] != first["body"]


def _dry_run_comment(ctx, body: str) -> None:
    """A comment already on the PR in a dry run, flagged as the notes comment's table
    flags it (the dry run's own reading decides whether it is ours)."""
    ctx.github.db.execute(
        "INSERT INTO dry_run_comments (repo, number, body, sticky, created_at, updated_at)"
        " VALUES (?, ?, ?, 1, '2026-09-01T10:00:00Z', '2026-09-01T10:00:00Z')",
        (REF.repo, REF.number, body),
    )


def test_a_dry_run_takes_for_its_notes_comment_only_one_that_opens_with_the_marker(ctx):
    # as the live client: the marker quoted further down a comment does not make it ours
    _dry_run_comment(ctx, f"quoted:\n{MARKER}\nnot the notes")
    r = refresh_sticky(ctx, REF, facts())
    assert r.outcome == Outcome.CREATED
    quoted, notes = bodies(ctx)
    assert quoted == f"quoted:\n{MARKER}\nnot the notes" and notes.startswith(MARKER)


# a write GitHub applied but never confirmed is looked for, not trusted away (end to
# end in test_faults.py)


def test_a_create_never_confirmed_is_looked_for_once_nothing_matches(ctx):
    ctx.github.answers_lost = 1
    with pytest.raises(ConnectionError):
        refresh_sticky(ctx, REF, facts())
    state = ctx.prs.get(REF.repo, REF.number)
    assert (state.comment_id, state.unconfirmed, state.body_hash) == (None, True, None)
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2))
    assert r.outcome == Outcome.UPDATED and r.notes == ()
    (body,) = bodies(ctx)
    assert "No review note matches this pull request any more" in body
    state = ctx.prs.get(REF.repo, REF.number)
    assert state.comment_id == r.comment_id and not state.unconfirmed
    # confirmed: the shortcuts hold again
    again = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2, labels=("x",)))
    assert again.outcome == Outcome.UNCHANGED and ctx.github.counted["upsert_sticky"] == 2


def test_an_unconfirmed_write_that_never_landed_costs_one_look_then_nothing(ctx):
    # nothing of ours is up: the look finds nothing, and that answer is a confirmation
    ctx.github.files = []
    ctx.prs.update(REF.repo, REF.number, unconfirmed=True)
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == []
    assert not ctx.prs.get(REF.repo, REF.number).unconfirmed
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, labels=("x",)))
    assert ctx.github.counted["upsert_sticky"] == 1


def test_an_edit_never_confirmed_is_not_taken_for_the_text_posted(ctx):
    refresh_sticky(ctx, REF, facts())
    first = bodies(ctx)[0]
    ctx.github.answers_lost = 1
    with pytest.raises(ConnectionError):
        refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert bodies(ctx)[0] != first  # applied
    r = refresh_sticky(ctx, REF, facts(labels=("x",)))  # the render of the hash kept before
    assert r.outcome == Outcome.UPDATED and bodies(ctx) == [first]


def test_a_pause_looks_for_a_comment_a_write_never_confirmed(ctx):
    ctx.github.answers_lost = 1
    with pytest.raises(ConnectionError):
        refresh_sticky(ctx, REF, facts())
    r = refresh_sticky(ctx, REF, facts(labels=("no-review-notes",)))
    assert r.outcome == Outcome.UPDATED
    assert "paused on this pull request by the label" in bodies(ctx)[0]


# a notes comment a maintainer deleted is a "go away" (end to end in test_e2e.py)


def test_a_deleted_comment_is_not_posted_again_and_the_pr_is_opted_out(ctx, caplog):
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    with caplog.at_level("INFO", logger="bot.sticky"):
        r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert r.outcome == Outcome.SKIPPED and bodies(ctx) == []
    assert "was deleted; automatic updates are off on it" in caplog.text
    assert ctx.prs.get(REF.repo, REF.number).opted_out
    # later events cost nothing, as after `/notes off`
    calls = dict(ctx.github.counted)
    assert refresh_sticky(ctx, REF, facts(sha=SHA2)).outcome == Outcome.SKIPPED
    assert ctx.github.counted == calls
    # `/notes` shows the notes, saying updates are paused; `/notes on` resumes them
    assert refresh_sticky(ctx, REF, facts(), force=True).outcome == Outcome.CREATED
    assert "`/notes on` resumes them" in bodies(ctx)[0]
    ctx.prs.update(REF.repo, REF.number, opted_out=False)
    assert refresh_sticky(ctx, REF, facts(sha=SHA2)).outcome == Outcome.UPDATED
    assert "paused" not in bodies(ctx)[0] and len(bodies(ctx)) == 1


def test_a_create_never_confirmed_and_not_found_is_no_deletion(ctx):
    # no id known: the create may never have landed, which is no one's "go away"
    ctx.prs.update(REF.repo, REF.number, unconfirmed=True)
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE))
    assert r.outcome == Outcome.SKIPPED and "no comment of ours found" in r.reason
    assert not ctx.prs.get(REF.repo, REF.number).opted_out
    ctx.github.files = MATCHING_FILES
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.CREATED


def _said(when: str, comment_id: int) -> str:  # as bot.command_events.said_at
    return f"{when}/{comment_id:020d}"


def _deleted_then_noticed(ctx, **switches) -> str:
    """Post the comment, record `switches`, delete it; a pause (a command's) finds it
    gone. Returns the deletion's order key."""
    refresh_sticky(ctx, REF, facts(), force=True)
    ctx.prs.update(REF.repo, REF.number, **switches)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    assert "deleted" in pause_sticky(ctx, REF).reason
    return ctx.prs.get(REF.repo, REF.number).switched_at


def test_a_deletion_is_an_off_said_when_it_was_noticed(ctx):
    # its order key (switched_at) ranks above every `off`/`on` written before (an older
    # one run late must not post the comment again), and below those written later
    refresh_sticky(ctx, REF, facts())
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    event_at = "2030-01-01T10:00:05Z"  # by a PR event: at its time, after that second
    refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()), event_at=event_at)
    key = ctx.prs.get(REF.repo, REF.number).switched_at
    assert _said(event_at, 10**19) < key < _said("2030-01-01T10:00:06Z", 1)
    # by a command: now, written as GitHub writes times (a fraction would sort below)
    before = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    key = _deleted_then_noticed(ctx, switched_at=None)
    after = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert before <= key.removesuffix("/~") <= after and key.endswith("Z/~")
    # never below the switch recorded: it ran before the deletion was noticed
    on = _said("2099-01-01T00:00:00Z", 7)
    key = _deleted_then_noticed(ctx, switched_at=on, opted_out=False)
    assert on < key < _said("2099-01-01T00:00:00Z", 8)


# After `/notes on` (resumed): our comment found gone is no new deletion, whichever
# refresh finds it (end to end in test_command_updates.py)


def _paused_then_deleted(ctx) -> None:
    """`/notes off` paused the comment; a maintainer deleted it; `/notes on` follows."""
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    pause_sticky(ctx, REF)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, opted_out=False, resumed_at=mark)  # as `/notes on`


def test_notes_on_posts_a_comment_deleted_while_off_anew(ctx):
    _paused_then_deleted(ctx)
    r = refresh_sticky(ctx, REF, facts())
    assert r.outcome == Outcome.CREATED and len(bodies(ctx)) == 1
    assert "paused" not in bodies(ctx)[0]
    assert not ctx.prs.get(REF.repo, REF.number).opted_out


@pytest.mark.parametrize("labels", [(), ("no-review-notes",)])
def test_notes_on_with_nothing_to_show_forgets_the_deleted_comment_and_stays_on(ctx, labels):
    # no note matches, or the opt-out label pauses: nothing is posted, and updates stay
    # on (a new comment once notes match, or once the label is removed)
    _paused_then_deleted(ctx)
    if not labels:
        ctx.github.files = []
    title = MATCHING_TITLE if labels else UNRELATED_TITLE
    r = refresh_sticky(ctx, REF, facts(title=title, labels=labels, sha=SHA2))
    assert r.outcome == Outcome.SKIPPED and "deleted" not in r.reason
    state = ctx.prs.get(REF.repo, REF.number)
    assert bodies(ctx) == [] and state.comment_id is None and not state.opted_out
    ctx.github.files = MATCHING_FILES
    assert refresh_sticky(ctx, REF, facts(sha=SHA1)).outcome == Outcome.CREATED


def test_after_notes_on_a_comment_deleted_while_off_waits_on_a_draft(ctx):
    # "a draft still waits": no new comment on it until it is ready for review
    _paused_then_deleted(ctx)
    r = refresh_sticky(ctx, REF, replace(facts(), draft=True))
    assert r.outcome == Outcome.SKIPPED and "deleted" not in r.reason and bodies(ctx) == []
    state = ctx.prs.get(REF.repo, REF.number)
    assert state.comment_id is None and not state.opted_out and not state.resumed
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.CREATED  # ready for review


def test_a_write_that_finds_the_comment_ends_the_resumed_state(ctx):
    # once a write finds the comment, a later deletion is a maintainer's "go away" again
    refresh_sticky(ctx, REF, facts())
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, resumed_at=mark)
    r = refresh_sticky(ctx, REF, facts(), force=True)  # `/notes`: edits the comment
    assert r.comment_id is not None and not ctx.prs.get(REF.repo, REF.number).resumed
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    at = "2099-01-01T00:00:00Z"
    r = refresh_sticky(ctx, REF, facts(), verbose=True, event_at=at)  # another text
    assert "deleted" in r.reason and ctx.prs.get(REF.repo, REF.number).opted_out


# --- refreshing the notes comment: staleness, closed PRs, comments gone, ties ---


# kills: bot/sticky.py:refresh_sticky `if not force and event_at` -> `if event_at`
def test_a_forced_refresh_is_never_stale(ctx):
    refresh_sticky(ctx, REF, facts(), event_at="2026-09-01T10:00:05Z")
    ctx.github.files = []
    old = "2026-09-01T10:00:00Z"  # older than the event seen: stale for a PR event
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), force=True, event_at=old)
    assert r.outcome == Outcome.UPDATED
    assert "No review note" in bodies(ctx)[0]


# kills: bot/sticky.py:refresh_sticky `if facts.closed and not force:` -> `if facts.closed:`
def test_a_human_asking_on_a_closed_pr_gets_an_answer(ctx):
    assert refresh_sticky(ctx, REF, facts(closed=True)).outcome == Outcome.SKIPPED
    assert refresh_sticky(ctx, REF, facts(closed=True), force=True).outcome == Outcome.CREATED


# kills: bot/sticky.py:refresh_sticky drop `and trusted` from the unchanged shortcut
def test_after_notes_on_an_unchanged_body_still_looks_for_the_comment(ctx):
    refresh_sticky(ctx, REF, facts())
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, resumed_at=mark)  # as `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")  # deleted while off
    r = refresh_sticky(ctx, REF, facts())  # same body as the one remembered
    assert r.outcome == Outcome.CREATED and len(bodies(ctx)) == 1


# kills: bot/sticky.py:_with_files `if files is not None and _lagged(state, facts):` -> `if False:`
def test_files_listed_short_of_changed_files_are_asked_for_again(ctx, monkeypatch):
    calls = []

    def short_list(ref, *, expected=None):
        calls.append(ref)
        return FileList(ctx.github.files, {}, frozenset(), listed=len(ctx.github.files))

    monkeypatch.setattr(ctx.github, "list_files", short_list)
    many = len(ctx.github.files) + 3
    refresh_sticky(ctx, REF, facts(changed_files=many))
    refresh_sticky(ctx, REF, facts(changed_files=many))
    assert len(calls) == 2  # the cached list was short: GitHub is asked again
    refresh_sticky(ctx, REF, facts(changed_files=len(ctx.github.files)))
    assert len(calls) == 2  # a full list is reused


# kills: bot/sticky.py:seen_event `event_at < state.event_at` -> `event_at <= state.event_at`
def test_an_event_of_the_same_second_is_not_stale(ctx):
    at = "2026-09-01T10:00:05Z"
    refresh_sticky(ctx, REF, facts(), event_at=at)
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), event_at=at)
    assert r.outcome == Outcome.UPDATED and "stale" not in r.reason


# kills: bot/sticky.py:_lagged drop `listed is not None and` in _lagged
def test_a_list_given_without_githubs_count_stands_as_given(ctx):
    # the counting port lists without a count (listed=None): a later event carrying
    # `changed_files` reuses the cached list instead of comparing with nothing
    refresh_sticky(ctx, REF, facts(changed_files=50))
    r = refresh_sticky(ctx, REF, facts(changed_files=50, labels=("x",)))
    assert r.outcome == Outcome.UNCHANGED
    assert ctx.github.counted["list_files"] == 1


# kills: bot/sticky.py:_write `sticky.comment_id or state.comment_id` -> swapped
def test_a_comment_posted_anew_is_remembered_by_its_new_id(ctx):
    first = refresh_sticky(ctx, REF, facts()).comment_id
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, resumed_at=mark)  # as `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")  # deleted while off
    r = refresh_sticky(ctx, REF, facts(), force=True)
    (posted,) = ctx.github.comments(REF.repo, REF.number)
    assert posted["id"] != first
    assert r.comment_id == posted["id"] == ctx.prs.get(REF.repo, REF.number).comment_id


# kills: bot/sticky.py:_write `bool(written.notes) or written.had_notes` -> `written.had_notes`
def test_notes_shown_for_the_first_time_are_remembered_as_shown(ctx):
    refresh_sticky(ctx, REF, facts())
    assert ctx.prs.get(REF.repo, REF.number).had_notes is True


# kills: bot/sticky.py:pause_sticky drop `state.trusted and` in pause_sticky
def test_a_pause_after_notes_on_looks_for_a_comment_that_may_be_gone(ctx):
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    pause_sticky(ctx, REF)  # the comment says "paused"
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, opted_out=False, resumed_at=mark)  # `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    r = pause_sticky(ctx, REF)  # `/notes off` again: same body as remembered
    assert r.outcome == Outcome.SKIPPED and "no comment of ours found" in r.reason
    assert ctx.prs.get(REF.repo, REF.number).comment_id is None


# kills: bot/sticky.py:_write drop `state.body_hash is not None and` (known_differs)
def test_after_an_unconfirmed_edit_the_text_posted_is_not_claimed_to_differ(ctx, monkeypatch):
    # the hash was cleared: what the comment shows is unknown, so a comment list showing
    # this very body must not be taken for one lagging behind another text (a needless edit)
    refresh_sticky(ctx, REF, facts())
    ctx.github.answers_lost = 1
    with pytest.raises(ConnectionError):
        refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert ctx.prs.get(REF.repo, REF.number).body_hash is None
    asked = []
    upsert = ctx.github.upsert_sticky

    def spy(ref, body, marker, **kw):
        asked.append(kw["known_differs"])
        return upsert(ref, body, marker, **kw)

    monkeypatch.setattr(ctx.github, "upsert_sticky", spy)
    refresh_sticky(ctx, REF, facts(title=title_with_one_more_note(), labels=("x",)))
    assert asked == [False]
    refresh_sticky(ctx, REF, facts())  # the hash is known again, and this text differs
    assert asked == [False, True]


# kills: bot/sticky.py:_deletion_key `if noticed_at is None and state.switched_at:` -> `if False:`
def test_a_deletion_noticed_by_a_command_ranks_just_after_that_command(ctx):
    said = "2020-01-01T00:00:00Z/00000000000000000007"  # the `/notes off` that paused it
    refresh_sticky(ctx, REF, facts(), force=True)
    ctx.prs.update(REF.repo, REF.number, switched_at=said)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    pause_sticky(ctx, REF)
    key = ctx.prs.get(REF.repo, REF.number).switched_at
    assert said < key < "2020-01-01T00:00:00Z/00000000000000000008"  # not the bot's clock


# kills: bot/sticky.py:_deletion_key `max(key, just_after(state.switched_at))` -> `key`
def test_a_deletion_noticed_by_an_event_never_ranks_below_the_switch_recorded(ctx):
    on = "2099-01-01T00:00:00Z/00000000000000000007"  # a switch later than the event
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, switched_at=on)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    refresh_sticky(
        ctx, REF, facts(title=title_with_one_more_note()), event_at="2030-01-01T10:00:05Z"
    )
    key = ctx.prs.get(REF.repo, REF.number).switched_at
    assert on < key < "2099-01-01T00:00:00Z/00000000000000000008"


# kills: bot/sticky.py:seen_event `elif state.event_by is not None and ...:` -> `elif False:`
def test_a_second_event_of_the_same_second_makes_every_run_of_it_a_tie(ctx):
    at = "2026-09-01T10:00:05Z"
    assert seen_event(ctx, REF, at, "delivery-a") is None
    assert ctx.prs.get(REF.repo, REF.number).event_by == "delivery-a"
    assert seen_event(ctx, REF, at, "delivery-a") is None  # its own re-run: still its own
    assert ctx.prs.get(REF.repo, REF.number).event_by == "delivery-a"
    assert seen_event(ctx, REF, at, "delivery-b") is None  # another event of that second
    assert ctx.prs.get(REF.repo, REF.number).event_by is None


# --- payload times kept as GitHub writes them -----------------------------------------


@pytest.mark.parametrize(
    "given, kept",
    [
        ("2026-09-02T10:00:00Z", "2026-09-02T10:00:00Z"),
        ("2026-09-02T06:00:00-04:00", "2026-09-02T10:00:00Z"),  # other objects' offsets
        ("2026-09-02T10:00:00.123+00:00", "2026-09-02T10:00:00Z"),
        ("2026-09-02T10:00:00", "2026-09-02T10:00:00Z"),  # no zone: UTC
        ("not a date", None),
        ("", None),
        (None, None),
        (1756807200, None),
        ("0001-01-01T00:00:00+01:00", None),  # before year 1 in UTC
    ],
)
def test_a_payload_time_is_kept_as_github_writes_it_or_not_at_all(given, kept):
    # Times are compared as text: "not a date" would outrank every real one.
    assert as_github_time(given) == kept


def test_an_event_time_stored_before_times_were_checked_does_not_outrank_real_ones(ctx):
    ref = REF
    ctx.prs.put(replace(ctx.prs.get(ref.repo, ref.number), event_at="not a date"))
    assert seen_event(ctx, ref, "2026-09-02T10:00:00Z", "d1") is None
    assert ctx.prs.get(ref.repo, ref.number).event_at == "2026-09-02T10:00:00Z"


# --- a PR known from commands only; a payload time without a zone ---


# kills: sticky._with_files: drop "no head in the payload: use the last files seen"
def test_commands_on_a_pr_no_event_has_told_the_head_of_list_its_files_once(ctx):
    # only commands so far (their payloads carry no head SHA): no head is kept, the
    # files listed by the first are still what the second matches on
    refresh_sticky(ctx, REF, facts(sha=""), force=True)
    again = refresh_sticky(ctx, REF, facts(sha=""), force=True)
    assert again.outcome == Outcome.UNCHANGED and again.notes
    assert ctx.github.counted["list_files"] == 1


# kills: times.as_github_time: a time without a zone read as UTC (`replace(tzinfo=UTC)`) dropped
def test_a_payload_time_without_a_zone_is_utc_whatever_the_servers_zone(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert as_github_time("2026-09-02T10:00:00") == "2026-09-02T10:00:00Z"
    finally:
        monkeypatch.undo()
        time.tzset()


# --- a command after a retarget reads the new diff ------------------------------------


def test_a_command_after_a_retarget_matches_the_new_diff_not_the_old_bases_files(ctx):
    """A retarget (`edited` with `changes.base`) clears `files_sha` so that the files are
    listed again: the diff is against another base now (bot/pr_events.py). When that
    event's own refresh stops early (the PR is opted out, closed, or a draft waiting),
    the next `/notes` has no head SHA in its payload and `_with_files` falls back to
    `state.files`, the OLD base's list, meant only for a PR whose head was never seen.
    It matches on it and caches it as the head's files (`files_sha` = the head again),
    so every later event on that head matches the stale diff too, until a push."""
    ctx.github.files = MATCHING_FILES
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA1))
    ctx.prs.update(REF.repo, REF.number, opted_out=True)  # `/notes off`
    # retargeted: the new base's diff has no file a note names; pr_events clears the
    # cached files' head, and the event's refresh stops at the opt-out
    ctx.github.files = ["docs/contributing.md"]
    ctx.prs.update(REF.repo, REF.number, files_sha=None)
    refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA1))
    asked = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=""), force=True)  # `/notes`
    assert ctx.github.counted["list_files"] == 2, "the new base's diff was never listed"
    assert asked.notes == ()


# --- the cached file list: its base, its count, renames ---


# kills: bot/sticky.py:_with_files `base = base or (state.files_base or "")` -> `base and ...`
def test_a_command_naming_no_base_keeps_the_base_its_cached_files_are_of(ctx):
    # a command on a dry run's PR (an issue comment's copy of the PR names neither head
    # nor base) matches on the head's cached list; recaching it must keep the base it is
    # the diff against, or the PR's next event, naming that base, lists it again
    refresh_sticky(ctx, REF, facts(base_ref="master"))
    assert ctx.prs.get(REF.repo, REF.number).files_base == "master"
    asked = refresh_sticky(ctx, REF, facts(sha=""), force=True)  # `/notes`
    assert asked.notes and ctx.github.counted["list_files"] == 1
    assert ctx.prs.get(REF.repo, REF.number).files_base == "master"
    refresh_sticky(ctx, REF, facts(base_ref="master", labels=("ready",)))
    assert ctx.github.counted["list_files"] == 1, "the cached list was asked for again"


# kills: bot/sticky.py:_with_files `base or (state.files_base or "")` -> `base and ...`
def test_a_port_that_cannot_list_is_asked_once_for_a_new_base_not_at_each_event(ctx):
    # a dry run's PR, its files given by the payload on `master`, then retargeted: the
    # port lists nothing, so the head's last list stands for the new base, cached so
    ctx.github.files = []  # the dry run lists nothing
    refresh_sticky(ctx, REF, facts(base_ref="master"), files=MATCHING_FILES)
    assert ctx.github.counted["list_files"] == 0
    for _ in range(2):
        shown = refresh_sticky(ctx, REF, facts(base_ref="feature", labels=("ready",)))
        assert shown.notes, "the head's last list was not matched"
        assert ctx.prs.get(REF.repo, REF.number).files_base == "feature"
    assert ctx.github.counted["list_files"] == 1, "asked again at each event of that base"


# kills: bot/sticky.py:_with_files `entries = state.files_listed` (a cached list) -> None (by hand)
def test_a_reused_list_keeps_githubs_count_of_its_entries(ctx, monkeypatch):
    # a rename is one entry of GitHub's and two paths: reusing the cached list must keep
    # the count, or the PR's size (`file_count`) and a later lag check read the paths
    renamed = [*MATCHING_FILES, "vllm/v1/core/kv_cache_coordinator_old.py"]
    calls = []

    def listing(ref, *, expected=None):
        calls.append(ref)
        return FileList(renamed, {}, frozenset(), listed=1)

    monkeypatch.setattr(ctx.github, "list_files", listing)
    refresh_sticky(ctx, REF, facts(changed_files=1))
    refresh_sticky(ctx, REF, facts(changed_files=1, labels=("ready",)))
    assert len(calls) == 1  # the cached list was reused
    assert ctx.prs.get(REF.repo, REF.number).files_listed == 1


# kills: bot/sticky.py:_kept a cached list's renames left out (the old path named again)
def test_a_renamed_file_is_named_by_its_new_path_also_from_the_cached_list(ctx, monkeypatch):
    # GitHub lists a rename's two paths; the note's path is the old one: the comment said
    # "changes vllm/v1/core/kv_cache_coordinator.py", a path the PR's diff shows only as
    # where the file came from. The next event reuses the list kept in the PR's state:
    # its renames are kept with it, or the comment would name the old path again
    old, new = "vllm/v1/core/kv_cache_coordinator.py", "vllm/v1/core/kv_cache/coordinator.py"

    def listing(ref, *, expected=None):
        return FileList([new, old], {}, frozenset(), listed=1, renamed={old: new})

    monkeypatch.setattr(ctx.github, "list_files", listing)
    # no glob holds the new path: the move is named (tests/test_reasons.py)
    shown, gone = f"changes `{old} → {new}`", f"changes `{old}` ("
    refresh_sticky(ctx, REF, facts(changed_files=1))
    assert shown in bodies(ctx)[-1] and gone not in bodies(ctx)[-1]
    assert ctx.prs.get(REF.repo, REF.number).renamed == {old: new}
    monkeypatch.setattr(ctx.github, "list_files", lambda ref, *, expected=None: 1 / 0)
    refresh_sticky(ctx, REF, facts(changed_files=1, labels=("ready",)))  # the cached list
    assert shown in bodies(ctx)[-1] and gone not in bodies(ctx)[-1]


# kills: bot/sticky.py:_kept the renames kept from another head's list (a rollback's)
def test_a_cached_list_takes_no_rename_its_paths_do_not_hold(ctx, monkeypatch):
    # A release before renames were kept (a rollback) caches a newer head's list with the
    # columns it knows: `renamed` stays the older head's. The push reverted the move, and
    # the file is changed where it was: forward again, the comment named a move the
    # PR's diff no longer shows ("changes old → new", new listed nowhere)
    old, new = "vllm/v1/core/kv_cache_coordinator.py", "vllm/v1/core/kv_cache/coordinator.py"
    monkeypatch.setattr(
        ctx.github,
        "list_files",
        lambda ref, *, expected=None: FileList([new, old], listed=1, renamed={old: new}),
    )
    refresh_sticky(ctx, REF, facts(changed_files=1))
    assert "→" in bodies(ctx)[-1]
    # the older release's list of the next head, written over the files it knows
    ctx.prs.update(REF.repo, REF.number, files=(old,), files_sha=SHA2, head_sha=SHA2)
    monkeypatch.setattr(ctx.github, "list_files", lambda ref, *, expected=None: 1 / 0)
    refresh_sticky(ctx, REF, facts(sha=SHA2, changed_files=1))  # the cached list
    assert "→" not in bodies(ctx)[-1], bodies(ctx)[-1]
    assert f"changes `{old}` (" in bodies(ctx)[-1]


# --- the dry run's client as the live one ---


# kills: bot/dryrun.py:DryRunGitHub.upsert_sticky `row is not None or create` -> `row is None or
# create`, `... and create`
def test_a_dry_run_counts_its_comment_writes_as_the_live_client_does(tmp_path):
    # a command's update paid for its notes comment write in advance gets it back when it
    # raised before asking for one (command_updates.handle_refresh): the dry run counts,
    # as the live client does, each edit and each create, never an unchanged or a
    # skipped comment
    port = DryRunGitHub(Database(tmp_path / "dry.sqlite3"))

    def upsert(body: str, *, create: bool) -> tuple[Outcome, int]:
        with counting_writes() as asked:
            done = port.upsert_sticky(REF, f"{MARKER}\n{body}", MARKER, create=create)
        return done.outcome, asked.count

    assert upsert("notes", create=False) == (Outcome.SKIPPED, 0)  # none to edit
    assert upsert("notes", create=True) == (Outcome.CREATED, 1)
    assert upsert("notes", create=True) == (Outcome.UNCHANGED, 0)
    assert upsert("more notes", create=False) == (Outcome.UPDATED, 1)  # an edit needs no create


# kills: bot/dryrun.py:DryRunGitHub.comment_text its own notes comment not read back
def test_a_dry_run_reads_its_own_comment_back_as_the_live_client_does(tmp_path):
    # a `wrong N` on a paused comment whose notes did not read asks the port for its
    # text (bot.command_feedback): a dry run gives its own comment's, on that PR only
    port = DryRunGitHub(Database(tmp_path / "dry.sqlite3"))
    made = port.upsert_sticky(REF, f"{MARKER}\nnotes", MARKER, create=True).comment_id
    assert made is not None and port.comment_text(REF, made) == f"{MARKER}\nnotes"
    assert port.comment_text(replace(REF, number=REF.number + 1), made) is None
    assert port.comment_text(REF, made + 1) is None


# kills: bot/dryrun.py:DryRunGitHub.upsert_sticky hand: `.lstrip()` dropped from the marker check
def test_a_dry_run_takes_a_notes_comment_whose_marker_follows_blank_lines(ctx):
    # as the live client reads GitHub's comments (blank lines before the marker still
    # open the notes comment): it is edited, not doubled
    _dry_run_comment(ctx, f"\n\n{MARKER}\nold notes")
    r = refresh_sticky(ctx, REF, facts())
    (kept,) = ctx.github.comments(REF.repo, REF.number)
    assert r.outcome == Outcome.UPDATED and r.comment_id == kept["id"]
    assert kept["body"].startswith(MARKER) and kept["edits"] == 1


# --- a source PR of the PR's own repository named by its number ---


def test_the_comment_names_a_source_pr_of_the_prs_own_repository_by_its_number(ctx):
    # it said "source: vllm-project/vllm PR 52419" on a vllm PR
    assert refresh_sticky(ctx, REF, facts()).outcome == Outcome.CREATED
    (body,) = bodies(ctx)
    assert " · source: [PR 52419](https://redirect.github.com/vllm-project/vllm/pull/52419)" in body
    assert "vllm-project/vllm PR" not in body

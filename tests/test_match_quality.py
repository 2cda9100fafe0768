"""The shipped notes, taxonomy and weights on hand-graded real vLLM PRs (bench/graded/).

A guard, not the target: a taxonomy or weight change that makes the bot link wrong notes
or comment on PRs no note is about fails here. The figures it guards were measured when
the sets were new (bench/graded/README.md); the floors leave room for small trades
between precision and recall, not for a regression.
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def figures(ev, path: Path, title_only: bool) -> dict[str, float]:
    """The evaluation script's figures (`ev`: scripts/eval_matching.py) for one set."""
    matcher = ev.Matcher.load(
        ev.DEFAULT_NOTES_DIR, ev.DEFAULT_TOPICS_FILE, ev.DEFAULT_MATCHING_FILE, ev.DEFAULT_INDEX
    )
    tally = ev.evaluate(matcher, path, title_only).tally
    return {
        "precision": tally.good / tally.linked if tally.linked else 1.0,
        "recall": tally.grade2_found / tally.grade2 if tally.grade2 else 1.0,
        "false_comments": tally.empty_commented / tally.empty_prs,
        "wrong_comments": tally.empty_commented,
    }


# Sets 3 and 4 hold what the earlier rounds of searching left: few grade-2 PRs, most of
# them with titles that do not name the mechanism (bench/graded/README.md).
FLOORS = {  # name: (precision, grade-2 recall[, share of false comments, default 3%])
    "notes_era_1.jsonl": (0.95, 0.65),
    "notes_era_2.jsonl": (0.93, 0.65),
    "notes_era_3.jsonl": (0.85, 0.40),
    "notes_era_4.jsonl": (0.93, 0.40),
    # its hard negatives share the notes' words ([DCP] on a KV-connector fix, DCP for MLA
    # in NIXL, an EC connector docs example): 2-3 of them get a comment (target: 3%)
    "notes_era_5.jsonl": (0.83, 0.50, 0.07),
    # what five rounds left: 6 grade-2 pairs; [DCP][MLA] on dense MLA and a thinking-budget
    # validation PR are its hard negatives
    "notes_era_6.jsonl": (0.85, 0.66, 0.07),
    # 141 PRs as searches on the notes' subsystems returned them: 10 grade-2 pairs
    "subsystem_sample.jsonl": (0.90, 0.15),
    # the same, PRs of 2026-06 and later only: 99 PRs, 7 grade-2 pairs
    "subsystem_sample_2.jsonl": (0.90, 0.10),
    # 68 PRs of 2026-05..09 sampled across all of vLLM: one is related to a note
    "everyday_mix.jsonl": (0.93, 0.0),
}
# PRs of vLLM's history to 2026-05 with all their files and the names their diff changes,
# graded from the diff; the notes' own mechanisms came later, so most grade-2 PRs are
# their forerunners. The bot always has a PR's files and patches, so these are guarded
# with them only, and with the descriptions' starts the search showed (232 of 267 PRs).
WITH_FILES = {
    "history_with_files.jsonl": (0.90, 0.30),
    "history_with_files_2.jsonl": (0.90, 0.22),
}

# Natural traffic, graded blind from the diff: every PR the bot of the day commented on
# among the 7,848 (audit 1) and 15,964 (audit 2) PRs of the history no other set holds,
# mixed with random PRs and near misses. What reviewers would see, and the hardest set:
# upkeep, moves and busy files. Its false-comment share is of a sample built around the
# comments, so the guard counts them: 11 of 7,848 PRs and 4 of 15,964 at their first
# runs, 6 and 3 since (bench/graded/README.md).
NATURAL = {  # name: (precision, most false comments)
    "natural_traffic.jsonl": (0.78, 7),
    "natural_traffic_2.jsonl": (0.60, 4),
    # audit 3: 3,203 PRs of 2026-05..08 (the notes' era), titles and the files the graders
    # saw; 7 wrong comments at its first run (title only)
    "natural_traffic_3.jsonl": (0.74, 7),
    # audit 4: 2,030 PRs of 2026-08..10 with their first four files; 21 wrong comments at
    # its first run (4.2% commented), 15 since EPD stopped naming the EC connector topic
    # and PP stopped being an aspect of the draft-loader note
    "natural_traffic_4.jsonl": (0.77, 15),
    # audit 5: 1,502 PRs of 2026-07..08 with their first four files, run after audit 4's
    # changes: 13 comments, all relevant, at its first run
    "natural_traffic_5.jsonl": (0.92, 1),
    # audit 6: 1,431 PRs of 2026-06..07, the same matcher: 15 comments, 10 relevant, 4 on
    # PRs no note is about at its first run; 3 since `PP` stopped being an aspect
    "natural_traffic_6.jsonl": (0.75, 3),
    # audit 7: 529 PRs opened 2026-07..10 that no set or pool holds, as daily digests of new
    # PRs list them (title, labels, the description's first ~300 characters; no files):
    # 18 comments (3.4%), 14 relevant, 4 on PRs no note is about at its first run
    "natural_traffic_7.jsonl": (0.75, 4),
    # audit 8: 8,299 PRs of 2025-08..2026-10 no set or pool held, by their titles: 6
    # comments (0.07%), 3 relevant, 3 on PRs no note is about at its first run
    "natural_traffic_8.jsonl": (0.50, 3),
}


def check(got: dict[str, float], precision: float, recall: float, comments: float = 0.03) -> None:
    assert got["precision"] >= precision, got
    assert got["false_comments"] <= comments, got
    assert got["recall"] >= recall, got


@pytest.mark.parametrize("title_only", [True, False], ids=["title-only", "with-description"])
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_graded_prs_get_relevant_notes_and_unrelated_prs_no_comment(name, title_only, eval_script):
    check(figures(eval_script, ROOT / "bench" / "graded" / name, title_only), *FLOORS[name])


@pytest.mark.parametrize("name", sorted(WITH_FILES))
def test_graded_prs_with_their_files(name, eval_script):
    check(figures(eval_script, ROOT / "bench" / "graded" / name, False), *WITH_FILES[name])


@pytest.mark.parametrize("name", sorted(NATURAL))
def test_natural_traffic_with_its_files(name, eval_script):
    got = figures(eval_script, ROOT / "bench" / "graded" / name, False)
    precision, most_wrong = NATURAL[name]
    assert got["precision"] >= precision, got
    assert got["wrong_comments"] <= most_wrong, got


# Every PR merged to vLLM 2026-06-01..10-05, as weekly change reports list them (title,
# the first four files, their count): 5,349 PRs, the notes' era. And the 886 PRs daily
# digests of new PRs list as they were opened, 2026-07-02..10-10 (title, labels, the
# description's start). Graded or not, the bot must stay quiet on most of them
# (bench/graded/README.md: 4.3% of each when it was added, the graded PRs near the notes
# included; 2.3% of June's merged PRs, 6.3% of September's, the notes' month).
POOLS = {  # file: the PRs it holds, the largest share commented on
    "weekly_2026-06-01_10-05.jsonl": (5349, 0.05),
    "digests_2026-07-02_10-10.jsonl": (886, 0.05),
    # The weekly tracker's older lists, 2025-08..2026-08 (and 27 PRs up to 2026-10), less
    # every PR a set or pool held: the bot commented on 6 by their titles (0.07%) when
    # they were added (audit 8).
    "tracker_2025-08_2026-10.jsonl": (8299, 0.005),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_the_bot_comments_on_few_of_the_prs_of_the_notes_era(name, eval_script):
    matcher = eval_script.Matcher.load(
        eval_script.DEFAULT_NOTES_DIR,
        eval_script.DEFAULT_TOPICS_FILE,
        eval_script.DEFAULT_MATCHING_FILE,
        eval_script.DEFAULT_INDEX,
    )
    # counted as `eval_matching.py --all --split` prints it, the figure the README gives
    commented, prs = eval_script.pool_comments(matcher, eval_script.POOLS_DIR / name)
    count, most_commented = POOLS[name]
    assert prs == count
    assert commented / prs <= most_commented, (commented, prs)

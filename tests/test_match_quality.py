"""The shipped notes, taxonomy and weights on hand-graded real vLLM PRs (bench/graded/).

A guard, not the target: a taxonomy or weight change that makes the bot link wrong notes
or comment on PRs no note is about fails here. The figures it guards were measured when
the sets were new (README, "Matching quality"); the floors leave room for small trades
between precision and recall, not for a regression.
"""

import json
from pathlib import Path

import pytest

from bot.library import load_library
from bot.matching import load_match_config, match_pr
from bot.prfacts import facts_from_record

ROOT = Path(__file__).resolve().parent.parent
INDEX = json.loads((ROOT / "seeds" / "raw" / "notes_prs.json").read_text("utf-8"))


def figures(path: Path, title_only: bool) -> dict[str, float]:
    library, config = load_library(), load_match_config()
    by_pr = {n.source_pr: n.id for n in library.notes}
    note_of = {str(e["note_index"]): by_pr[e["pr_number"]] for e in INDEX}
    linked = wrong = g2 = g2_found = empty = empty_commented = 0
    for line in path.read_text("utf-8").splitlines():
        record = json.loads(line)
        if title_only:
            record = {**record, "body": "", "files": []}
        grades = {note_of[k]: v for k, v in record["relevant"].items()}
        links = [m.note.id for m in match_pr(facts_from_record(record), library, config).matches]
        linked += len(links)
        wrong += sum(1 for n in links if n not in grades)
        g2 += sum(1 for g in grades.values() if g == 2)
        g2_found += sum(1 for n in links if grades.get(n) == 2)
        if not grades:
            empty += 1
            empty_commented += bool(links)
    return {
        "precision": (linked - wrong) / linked if linked else 1.0,
        "recall": g2_found / g2 if g2 else 1.0,
        "false_comments": empty_commented / empty,
    }


# Set 3 holds what the first two rounds of searching left: few grade-2 PRs, most of them
# with titles that do not name the mechanism (README, "Matching quality").
FLOORS = {  # name: (precision, grade-2 recall)
    "notes_era_1.jsonl": (0.93, 0.45),
    "notes_era_2.jsonl": (0.93, 0.45),
    "notes_era_3.jsonl": (0.85, 0.25),
    # 68 PRs of 2026-05..09 sampled across all of vLLM: one is related to a note
    "everyday_mix.jsonl": (0.93, 0.0),
}


@pytest.mark.parametrize("title_only", [True, False], ids=["title-only", "with-description"])
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_graded_prs_get_relevant_notes_and_unrelated_prs_no_comment(name, title_only):
    got = figures(ROOT / "bench" / "graded" / name, title_only)
    precision, recall = FLOORS[name]
    assert got["precision"] >= precision, got
    assert got["false_comments"] <= 0.03, got
    assert got["recall"] >= recall, got

"""scripts/search_weights.py: its shortcut (one scan per PR across configs) must not
change what the matcher links, and its figures must be the evaluation's."""

import random
from pathlib import Path

import pytest

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, load_library
from bot.match_config import DEFAULT_MATCHING_FILE, load_match_config
from bot.matching import CompiledMatcher
from bot.prfacts import facts_from_record
from tests.conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
SETS = ("dev_prs", "history_with_files", "natural_traffic_4")  # files, bodies, titles


@pytest.fixture(scope="module")
def sw(eval_script):
    """The script as a module; it imports eval_matching, loaded by `eval_script`."""
    return load_script("search_weights")


@pytest.fixture(scope="module")
def setup(sw, eval_script):
    library = load_library(DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE)
    base = load_match_config(DEFAULT_MATCHING_FILE)
    paths = [p for p in eval_script.graded_sets(eval_script.DEFAULT_PRS) if p.stem in SETS]
    assert sorted(p.stem for p in paths) == sorted(SETS)
    by_set = sw.load_cases(paths, eval_script.note_index(library, eval_script.DEFAULT_INDEX))
    return library, base, paths, by_set


def test_the_search_splits_the_sets_into_the_halves_eval_matching_totals(sw, tmp_path):
    # one list of the halves (bench/graded/halves.toml): the script's own differed from it
    # in the everyday mix, and a new set had to be put in both
    case = sw.Case(facts_from_record({"number": 1, "title": "x"}), {})
    by_set = {"one": [case], "two": [case, case], "three": [case]}
    halves = tmp_path / "halves.toml"
    halves.write_text('tune = ["one", "three", "gone"]\nheld = ["two"]\n', "utf-8")
    assert {h: len(cases) for h, cases in sw.split(by_set, halves).items()} == {
        "TUNE": 2,
        "HELD": 2,
    }
    halves.write_text('tune = ["one"]\nheld = ["two"]\n', "utf-8")
    with pytest.raises(SystemExit, match="three in neither half"):
        sw.split(by_set, halves)


def test_todays_config_measures_as_the_evaluation_does(sw, eval_script, setup):
    library, base, paths, by_set = setup
    matcher = eval_script.Matcher.load(
        DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, DEFAULT_MATCHING_FILE, eval_script.DEFAULT_INDEX
    )
    for path in paths:
        want = eval_script.evaluate(matcher, path, False).tally
        got = sw.measure(sw.ScanOnce(library, base, {}), by_set[path.stem]).tally
        seen = (got.linked, got.good, got.grade2, got.grade2_found, got.empty_commented)
        assert seen == (
            want.linked,
            want.good,
            want.grade2,
            want.grade2_found,
            want.empty_commented,
        ), path.stem
        assert got.linked > 0


def test_a_scan_kept_across_configs_links_what_the_plain_matcher_links(sw, setup):
    library, base, _, by_set = setup
    cases = [c for cases in by_set.values() for c in cases]
    space = sw.knobs(base)
    today = sw.current(base, [k.name for k in space])
    rng = random.Random(27)
    # every knob moved at once, three times: a knob the scan read would show
    points = [{k.name: k.draw(rng) for k in space} for _ in range(3)]
    memo: dict = {}
    linked = 0
    for point in [today, *points]:
        config = sw.configured(base, point)
        fast, plain = sw.ScanOnce(library, config, memo), CompiledMatcher(library, config)
        for case in cases:
            a = [m.note.id for m in fast.match(case.facts).matches]
            assert a == [m.note.id for m in plain.match(case.facts).matches], case.facts.number
            linked += len(a)
    assert len(memo) == len(cases)  # one scan per PR, kept
    assert linked > 0

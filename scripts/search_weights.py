"""How far the matcher's current features reach by their numbers alone, held out.

The graded sets (those `eval_matching.py --all` reads) are split into two halves by
set, TUNE and HELD as bench/graded/halves.toml names them, the halves `eval_matching.py
--all --split` totals (until session 48 this script kept its own, A and B, with the
everyday mix on HELD's side). On one half a random search and then a coordinate
descent move the numeric knobs of config/matching.toml (`knobs`: the weights,
threshold, relative_floor, topic_cap, coverage_power, body_terms, min_specific,
files_only_share, path_share_floor, max_notes and the topic_scale factors, each broad
factor kept under 1 and each narrow one over 1, since which side of 1 a factor is on
is a rule, not a number). Two objectives, each searched: the grade-2 recall with
precision >= 0.95 and false comments <= 3% ("recall"), and the precision with grade-2
recall and false comments no worse than today's on that half ("precision"). Each goal
descends twice, from the best random config and from today's, and each result is
pruned (a moved knob goes back to today's value when that costs the training half
nothing). The winners are measured on the other half, then the halves swap (the
second pass tunes on HELD, which a matcher change is measured on once); a check at the
end replays them without the scan cache.
Figures are eval_matching's, as captured (`Tally`): precision, grade-2 recall, false
comments; the matcher is the real one, only rebuilt per config.

Run `.venv/bin/python scripts/search_weights.py` (`--random 150 --passes 1`: about 12
minutes; `--out FILE` keeps the winners as JSON). It runs single-process: about 0.3 s
a config per half, some 20 minutes at the defaults.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from eval_matching import (  # noqa: E402
    DEFAULT_INDEX,
    DEFAULT_PRS,
    GRADED_DIR,
    HALVES_FILE,
    Tally,
    graded_records,
    graded_sets,
    half_of,
    load_halves,
    note_index,
)

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, Library, load_library  # noqa: E402
from bot.match_config import DEFAULT_MATCHING_FILE, MatchConfig, load_match_config  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.prfacts import PRFacts, facts_from_record  # noqa: E402
from bot.said_once import Scan  # noqa: E402

MIN_PRECISION = 0.95
MAX_FALSE_COMMENTS = 0.03


@dataclass(frozen=True)
class Knob:
    """One number of the config: where it lives, its range, whether it is whole."""

    name: str  # "threshold", "weights.path", "topic_scale.rocm"
    low: float
    high: float
    whole: bool = False

    def draw(self, rng: random.Random) -> float:
        value = rng.uniform(self.low, self.high)
        return float(round(value)) if self.whole else round(value, 2)

    def grid(self, steps: int) -> list[float]:
        if self.whole:
            return [float(v) for v in range(int(self.low), int(self.high) + 1)]
        span = self.high - self.low
        return [round(self.low + span * k / (steps - 1), 2) for k in range(steps)]


def knobs(base: MatchConfig) -> list[Knob]:
    """The knobs searched: every weight but `source_pr` (a note's own PR always gets it),
    the limits, and each topic_scale factor on its side of 1."""
    out = [
        Knob("threshold", 2.5, 7.0),
        Knob("relative_floor", 0.0, 1.0),
        Knob("topic_cap", 2.0, 8.0),
        Knob("coverage_power", 0.0, 3.0),
        Knob("body_terms", 0, 5, whole=True),
        Knob("min_specific", 0.0, 5.0),
        Knob("files_only_share", 0.0, 1.0),
        Knob("path_share_floor", 0.0, 1.0),
        Knob("max_notes", 1, 4, whole=True),
    ]
    for name, value in base.weights.model_dump().items():
        if name != "source_pr":
            out.append(Knob(f"weights.{name}", 0.0, max(2.0, 2.5 * value)))
    for topic, factor in base.topic_scale.items():
        low, high = (0.1, 0.95) if factor < 1 else (1.05, 3.0)
        out.append(Knob(f"topic_scale.{topic}", low, high))
    return out


Point = dict[str, float]  # knob name -> value


def current(base: MatchConfig, names: Sequence[str]) -> Point:
    """Today's value of each knob."""
    point: Point = {}
    for name in names:
        group, _, key = name.partition(".")
        if group == "weights":
            point[name] = getattr(base.weights, key)
        elif group == "topic_scale":
            point[name] = base.topic_scale[key]
        else:
            point[name] = float(getattr(base, name))
    return point


def configured(base: MatchConfig, point: Point) -> MatchConfig:
    """The base config with these knobs set, validated as the file's loader would."""
    data = base.model_dump()
    for name, value in point.items():
        group, _, key = name.partition(".")
        if group in ("weights", "topic_scale"):
            data[group][key] = value
        else:
            data[name] = int(value) if name in ("body_terms", "max_notes") else value
    return MatchConfig.model_validate({**data, "vocabulary": base.vocabulary})


class ScanOnce(CompiledMatcher):
    """The matcher, with each PR's scan kept across configs: `_scan` reads only the
    compiled term and path indexes and the vocabulary, which no knob searched here
    changes (its per-PR memos, `shared` included, rest on unsearched settings).
    `verify` checks the result is the plain matcher's."""

    def __init__(self, library: Library, config: MatchConfig, memo: dict[int, Scan]):
        super().__init__(library, config)
        self._memo = memo

    def _scan(self, facts: PRFacts) -> Scan:
        key = id(facts)  # the facts live as long as the search
        if key not in self._memo:
            self._memo[key] = super()._scan(facts)
        return self._memo[key]


@dataclass(frozen=True)
class Case:
    facts: PRFacts
    grades: dict[str, int]  # note id -> grade


@dataclass(frozen=True)
class Score:
    precision: float
    recall: float
    false_rate: float
    tally: Tally

    def cell(self) -> str:
        t = self.tally
        return (
            f"P {self.precision:.3f} ({t.good}/{t.linked})  "
            f"R2 {self.recall:.3f} ({t.grade2_found}/{t.grade2})  "
            f"FC {t.empty_commented}/{t.empty_prs} ({self.false_rate:.1%})"
        )


def load_cases(sets: Sequence[Path], index: dict[int, str]) -> dict[str, list[Case]]:
    """Each set's PRs as captured, parsed once, by set name."""
    out: dict[str, list[Case]] = {}
    for path in sets:
        out[path.stem] = [
            Case(
                facts_from_record(r),
                {index[int(k)]: int(v) for k, v in (r.get("relevant") or {}).items()},
            )
            for r in graded_records(path)
        ]
    return out


def measure(matcher: CompiledMatcher, cases: Sequence[Case]) -> Score:
    """eval_matching's figures for these PRs under this matcher."""
    tally = Tally()
    for case in cases:
        tally.add([m.note.id for m in matcher.match(case.facts).matches], case.grades)
    return Score(
        tally.good / tally.linked if tally.linked else 1.0,
        tally.grade2_found / tally.grade2 if tally.grade2 else 0.0,
        tally.empty_commented / tally.empty_prs if tally.empty_prs else 0.0,
        tally,
    )


Objective = Callable[[Score], tuple[float, ...]]


def recall_objective(s: Score) -> tuple[float, ...]:
    """Grade-2 recall among configs with precision >= 0.95 and false comments <= 3%;
    below those, the nearer the better."""
    short = max(0.0, MIN_PRECISION - s.precision) + max(0.0, s.false_rate - MAX_FALSE_COMMENTS)
    if short == 0:
        return (1.0, s.recall, s.precision, -s.false_rate)
    return (0.0, -short, s.recall)


def precision_objective(today: Score) -> Objective:
    """Precision among configs whose grade-2 recall and false comments are no worse
    than today's on the same PRs."""

    def objective(s: Score) -> tuple[float, ...]:
        short = max(0.0, today.recall - s.recall) + max(0.0, s.false_rate - today.false_rate)
        if short == 0:
            return (1.0, s.precision, s.recall, -s.false_rate)
        return (0.0, -short, s.precision)

    return objective


@dataclass
class Search:
    """Evaluates configs on one half, remembering every one tried."""

    library: Library
    base: MatchConfig
    cases: list[Case]
    memo: dict[int, Scan]
    seen: dict[str, Score]

    def score(self, point: Point) -> Score:
        key = json.dumps(point, sort_keys=True)
        if key not in self.seen:
            matcher = ScanOnce(self.library, configured(self.base, point), self.memo)
            self.seen[key] = measure(matcher, self.cases)
        return self.seen[key]

    def random_phase(self, start: Point, space: list[Knob], n: int, rng: random.Random) -> None:
        """`n` configs, each moving about a third of the knobs anywhere in their range."""
        for _ in range(n):
            point = dict(start)
            for knob in space:
                if rng.random() < 0.3:
                    point[knob.name] = knob.draw(rng)
            self.score(point)

    def best(self, objective: Objective) -> Point:
        key = max(self.seen, key=lambda k: objective(self.seen[k]))
        return json.loads(key)

    def descend(self, start: Point, space: list[Knob], objective: Objective, passes: int) -> Point:
        """Each knob in turn set to the best of a grid of its range (and its current
        value), the others held; `passes` rounds, or until a round changes nothing."""
        point = dict(start)
        for _ in range(passes):
            moved = False
            for knob in space:
                trials = [{**point, knob.name: v} for v in knob.grid(7)]
                winner = max([point, *trials], key=lambda p: objective(self.score(p)))
                if winner[knob.name] != point[knob.name]:
                    point, moved = winner, True
            if not moved:
                break
        return point

    def prune(self, today: Point, found: Point, objective: Objective) -> Point:
        """Each moved knob put back to today's value when that costs nothing on this half:
        a move the training PRs do not ask for is noise that held-out PRs pay for."""
        point = dict(found)
        for name in sorted(moved(today, found)):
            trial = {**point, name: today[name]}
            if objective(self.score(trial)) >= objective(self.score(point)):
                point = trial
        return point


def verify(library: Library, base: MatchConfig, points: list[Point], cases: list[Case]) -> None:
    """The cached-scan matcher links what the plain one links, for these configs."""
    memo: dict[int, Scan] = {}
    for point in points:
        config = configured(base, point)
        fast, plain = ScanOnce(library, config, memo), CompiledMatcher(library, config)
        for case in cases:
            a = [m.note.id for m in fast.match(case.facts).matches]
            b = [m.note.id for m in plain.match(case.facts).matches]
            if a != b:
                raise SystemExit(f"scan cache changed PR {case.facts.number}: {a} != {b}")


def moved(today: Point, found: Point) -> dict[str, str]:
    """The knobs that differ from today's, "before -> after"."""
    return {k: f"{today[k]:g} -> {v:g}" for k, v in found.items() if v != today[k]}


def figures(
    on: Callable[[list[Case], Point], Score],
    sides: dict[str, list[Case]],
    today: Point,
    found: Point,
) -> dict[str, str]:
    """Today's figures and the found config's, on each side."""
    return {
        f"{side} {label}": on(cases, point).cell()
        for side, cases in sides.items()
        for label, point in (("today", today), ("found", found))
    }


def split(by_set: dict[str, list[Case]], halves_file: Path) -> dict[str, list[Case]]:
    """The cases of TUNE and of HELD, the halves a matcher change is judged on
    (bench/graded/halves.toml, as `eval_matching.py --all --split` reads them); a set in
    neither is refused."""
    halves = load_halves(halves_file)
    half = half_of(halves, by_set, halves_file)
    return {h: [c for s in sorted(by_set) if half[s] == h for c in by_set[s]] for h in halves}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--random", type=int, default=300, help="random configs per half")
    ap.add_argument("--passes", type=int, default=2, help="coordinate-descent rounds")
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--config", type=Path, default=DEFAULT_MATCHING_FILE)
    ap.add_argument("--out", type=Path, help="write the winners and their figures as JSON")
    args = ap.parse_args(argv)

    library = load_library(DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE)
    base = load_match_config(args.config)
    by_set = load_cases(graded_sets(DEFAULT_PRS), note_index(library, DEFAULT_INDEX))
    halves = split(by_set, GRADED_DIR / HALVES_FILE)
    everything = [c for cases in by_set.values() for c in cases]
    space = knobs(base)
    today = current(base, [k.name for k in space])
    memo: dict[int, Scan] = {}

    def on(cases: list[Case], point: Point) -> Score:
        return measure(ScanOnce(library, configured(base, point), memo), cases)

    rng = random.Random(args.seed)
    results: list[dict] = []
    for train, held in (("TUNE", "HELD"), ("HELD", "TUNE")):
        started = time.process_time()
        search = Search(library, base, halves[train], memo, {})
        search.random_phase(today, space, args.random, rng)
        goals = {
            "recall": recall_objective,
            "precision": precision_objective(search.score(today)),
        }
        for (goal, objective), start in itertools.product(goals.items(), ("random", "today")):
            origin = search.best(objective) if start == "random" else today
            found = search.descend(origin, space, objective, args.passes)
            found = search.prune(today, found, objective)
            sides = {f"train {train}": halves[train], f"held {held}": halves[held]}
            row = {"train": train, "goal": goal, "start": start, "moved": moved(today, found)}
            row |= figures(on, {**sides, "all": everything}, today, found)
            row["point"] = found
            results.append(row)
            print(json.dumps(row, indent=1), flush=True)
        spent = time.process_time() - started
        print(f"half {train}: {len(search.seen)} configs, {spent:.0f} s CPU", flush=True)
    verify(library, base, [today, *(r["point"] for r in results)], everything)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

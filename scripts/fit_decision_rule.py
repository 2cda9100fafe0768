"""Does another decision rule over the matcher's own evidence hold on graded sets it was
not fitted on? (issue 3; bench/graded/README.md, "Tried and left out", session 38)

Today's matcher adds evidence weights into a score and links what reaches the threshold
past bot/link_rules.py. This script keeps every note the matcher scores for a PR
(`MatchResult.candidates`, linked or not) and describes it by what the matcher already
computes (`features`): its score and the part not resting on broad topics, the flags
link_rules reads, the kinds of its own evidence (a title word, a description word, its
path, a diff name, a title like its own, an aspect), how many of its topics the PR hits
and how it shows the first one, how many notes share that topic (breadth), its rank
among the candidates and its margin to the next, whether today's matcher links it and
its score on the title alone. Two learners decide from those:
- `logistic`: a logistic model of "graded relevant" (grade-2 pairs weighed twice; L2,
  standardised features, plain SGD); a candidate is linked when its probability reaches
  a cut chosen on the training sets;
- `rules`: today's links edited by at most `--max-rules` rules, each one or two
  conditions (`feature >= cut`, `feature < cut`) that add a candidate today holds back
  or drop one it links, chosen greedily on the training sets.
A note's own PR still gets it first, and at most `max_notes` are linked, in the
matcher's order.

Folds: leave one graded set out (the dev set and each file of bench/graded/): fitted on
the others, measured on the one left out, beside today's matcher on the same PRs. Two
goals choose the cut and the rules on the training sets: `recall` (most grade-2 links,
precision and false comments no worse than today's there) and `precision` (best
precision, grade-2 links and false comments no worse). Today's matcher was tuned on
every set, the held-out one too: it is flattered, the fitted rules are not.

    PYTHONPATH=. .venv/bin/python scripts/fit_decision_rule.py [--learner logistic|rules|both]
        [--sets A.jsonl B.jsonl ...] [--max-rules 3] [--epochs 30]

About seven minutes of CPU for both learners on every set (the logistic one alone: two);
pure Python, no dependency beyond the bot's.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from eval_matching import DEFAULT_INDEX, DEFAULT_PRS, Tally, graded_records, graded_sets  # noqa: E402
from eval_matching import note_index as read_note_index  # noqa: E402

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, load_library  # noqa: E402
from bot.match_config import DEFAULT_MATCHING_FILE, load_match_config  # noqa: E402
from bot.match_result import Evidence, EvidenceKind, Match, MatchResult  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.prfacts import PRFacts, facts_from_record  # noqa: E402

GOALS = ("recall", "precision")


class Recorder(CompiledMatcher):
    """The matcher, keeping each scored note's own evidence for the PR last matched (the
    list `_score_note` appends an aspect to is the one kept)."""

    own: dict[str, list[Evidence]]

    def match(self, facts: PRFacts) -> MatchResult:
        self.own = {}
        return super().match(facts)

    def _own_evidence(self, i: int, facts: PRFacts, scan) -> list[Evidence]:
        evidence = super()._own_evidence(i, facts, scan)
        self.own[self.notes[i].id] = evidence
        return evidence


@dataclass
class Row:
    """One candidate note of one PR."""

    note: str
    grade: int
    today: bool  # today's matcher links it
    score: float
    x: dict[str, float]


@dataclass
class PR:
    set: str
    number: int
    grades: dict[str, int]
    sources: list[str]  # the notes whose own PR this is: linked first, whatever the rule
    rows: list[Row] = field(default_factory=list)  # the other candidates, the matcher's order


_OWN_KINDS = {
    "own_title": (EvidenceKind.TITLE, EvidenceKind.TAG),
    "own_body": (EvidenceKind.BODY,),
    "own_path": (EvidenceKind.PATH,),
    "own_diff": (EvidenceKind.DIFF,),
    "own_similar": (EvidenceKind.SIMILAR,),
    "own_aspect": (EvidenceKind.ASPECT,),
}
_MAIN_KINDS = {
    "main_path": EvidenceKind.PATH,
    "main_tag": EvidenceKind.TAG,
    "main_title": EvidenceKind.TITLE,
    "main_body": EvidenceKind.BODY,
    "main_label": EvidenceKind.LABEL,
}


def features(
    m: Match,
    rank: int,
    ranked: Sequence[Match],
    result: MatchResult,
    own: list[Evidence],
    title_score: float | None,
    breadth: dict[str, int],
    linked: bool,
    threshold: float,
) -> dict[str, float]:
    """What the matcher knows of one candidate, as numbers (flags as 0/1)."""
    note = m.note
    hits = {h.topic.id: h for h in result.topic_hits if h.topic.id in note.topics}
    main = hits.get(note.topics[0])
    main_kinds = {e.kind for e in main.evidence} if main else set()
    kinds = {e.kind for e in own}
    after = ranked[rank + 1].score if rank + 1 < len(ranked) else 0.0
    x = {
        "score": min(m.score, 20.0),
        "specific": min(m.specific, 20.0),
        "over_threshold": float(m.score >= threshold),
        "linked_today": float(linked),
        "on_topic": float(m.on_topic),
        "path_alone": float(m.path_alone),
        "swept": float(m.swept),
        "named": float(m.named),
        "own": float(m.own),
        "tied": float(m.tied),
        "own_kinds": float(len(kinds)),
        "own_weight": sum(e.weight for e in own),
        "topics_hit_share": len(hits) / len(note.topics),
        "topic_score": sum(h.score for h in hits.values()),
        "main_hit": float(main is not None),
        "notes_on_main": float(breadth[note.topics[0]]),
        "rivals_on_main": float(sum(note.topics[0] in r.note.topics for r in ranked) - 1),
        "rank": float(rank),
        "margin_next": m.score - after,
        "ratio_best": m.score / ranked[0].score if ranked[0].score > 0 else 0.0,
        "title_candidate": float(title_score is not None),
        "title_score": min(title_score or 0.0, 20.0),
        "candidates": float(len(ranked)),
    }
    x |= {name: float(bool(kinds.intersection(ks))) for name, ks in _OWN_KINDS.items()}
    x |= {name: float(kind in main_kinds) for name, kind in _MAIN_KINDS.items()}
    return x


def collect(paths: Sequence[Path]) -> list[PR]:
    """Every graded PR of these sets, with its candidates described, as captured."""
    library = load_library(DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE)
    config = load_match_config(DEFAULT_MATCHING_FILE)
    matcher = Recorder(library, config)
    index = read_note_index(library, DEFAULT_INDEX)
    breadth = {t: sum(t in n.topics for n in library.notes) for t in library.topics}
    prs = []
    for path in paths:
        titles = graded_records(path, title_only=True)
        for record, title_record in zip(graded_records(path), titles, strict=True):
            titled = matcher.match(facts_from_record(title_record)).candidates
            title_scores = {c.note.id: c.score for c in titled}
            result = matcher.match(facts_from_record(record))
            grades = {index[int(k)]: int(v) for k, v in (record.get("relevant") or {}).items()}
            linked = {m.note.id for m in result.matches}
            sources = [m.note.id for m in result.candidates if m.source]
            ranked = [m for m in result.candidates if not m.source]
            pr = PR(path.stem, record["number"], grades, sources)
            for rank, m in enumerate(ranked):
                x = features(
                    m,
                    rank,
                    ranked,
                    result,
                    matcher.own.get(m.note.id, []),
                    title_scores.get(m.note.id),
                    breadth,
                    m.note.id in linked,
                    config.threshold,
                )
                row = Row(m.note.id, grades.get(m.note.id, 0), m.note.id in linked, m.score, x)
                pr.rows.append(row)
            if decide(pr, lambda r: r.today, config.max_notes) != [
                m.note.id for m in result.matches
            ]:
                raise SystemExit(f"{path.stem} #{record['number']}: today's links not replayed")
            prs.append(pr)
    return prs


def decide(pr: PR, accept: Callable[[Row], bool], cap: int) -> list[str]:
    """The notes linked when `accept` says which candidates may be: the source notes,
    then the accepted in the matcher's order, at most `cap`."""
    return (pr.sources + [r.note for r in pr.rows if accept(r)])[:cap]


def measure(prs: Sequence[PR], accept: Callable[[Row], bool], cap: int) -> Tally:
    tally = Tally()
    for pr in prs:
        tally.add(decide(pr, accept, cap), pr.grades)
    return tally


def cell(t: Tally) -> str:
    p = f"{t.good / t.linked:.3f}" if t.linked else "  -  "
    fc = f"FC {t.empty_commented:>2}/{t.empty_prs:<3}"
    return f"P {p} {t.good:>3}/{t.linked:<3} R2 {t.grade2_found:>3}/{t.grade2:<3} {fc}"


def precision(t: Tally) -> float:
    return t.good / t.linked if t.linked else 1.0


def false_rate(t: Tally) -> float:
    return t.empty_commented / t.empty_prs if t.empty_prs else 0.0


def goal_key(goal: str, today: Tally) -> Callable[[Tally], tuple]:
    """Orders tallies for a goal: those where today's other figures hold first, by the
    goal's figure; below them, the nearer to holding the better (as search_weights.py)."""

    def key(t: Tally) -> tuple:
        over = max(0.0, false_rate(t) - false_rate(today))
        if goal == "recall":
            short = over + max(0.0, precision(today) - precision(t))
            return (short == 0, -short, t.grade2_found, precision(t))
        lost = max(0, today.grade2_found - t.grade2_found) / max(today.grade2_found, 1)
        short = over + lost
        return (short == 0, -short, precision(t), t.grade2_found)

    return key


# --- logistic ------------------------------------------------------------------------


@dataclass(frozen=True)
class Logistic:
    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    cut: float = 0.5

    def z(self, x: dict[str, float]) -> list[float]:
        return [(x[n] - mu) / s for n, mu, s in zip(self.names, self.mean, self.scale, strict=True)]

    def p(self, x: dict[str, float]) -> float:
        t = self.bias + sum(w * v for w, v in zip(self.weights, self.z(x), strict=True))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, t))))


def fit_logistic(rows: Sequence[Row], epochs: int, l2: float, seed: int) -> Logistic:
    """Plain SGD on the log loss; relevant = graded 1 or 2, a grade-2 row weighs twice.
    (AdaGrad's step per weight ends at the same training loss, 0.278 on every set.)"""
    names = tuple(sorted(rows[0].x))
    cols = [[r.x[n] for r in rows] for n in names]
    mean = tuple(sum(c) / len(c) for c in cols)
    scale = tuple(
        math.sqrt(sum((v - mu) ** 2 for v in c) / len(c)) or 1.0
        for c, mu in zip(cols, mean, strict=True)
    )
    model = Logistic(names, mean, scale, (0.0,) * len(names), 0.0)
    data = [(model.z(r.x), float(r.grade >= 1), 2.0 if r.grade == 2 else 1.0) for r in rows]
    w, b = [0.0] * len(names), 0.0
    rng = random.Random(seed)
    for epoch in range(epochs):
        rate = 0.05 / (1 + epoch)
        rng.shuffle(data)
        for z, y, weight in data:
            t = b + sum(wi * zi for wi, zi in zip(w, z, strict=True))
            g = weight * (1 / (1 + math.exp(-max(-30.0, min(30.0, t)))) - y)
            b -= rate * g
            for k, zk in enumerate(z):
                w[k] -= rate * (g * zk + l2 * w[k] / len(data))
    return Logistic(names, mean, scale, tuple(w), b)


def choose_cut(model: Logistic, prs: Sequence[PR], goal: str, cap: int) -> Logistic:
    """The probability cut best for the goal on these PRs."""
    today = measure(prs, lambda r: r.today, cap)
    p = {id(r): model.p(r.x) for pr in prs for r in pr.rows}
    values = sorted(set(round(v, 3) for v in p.values()))
    step = max(1, len(values) // 200)
    key = goal_key(goal, today)
    best = max(
        values[::step] + [1.01],
        key=lambda c: key(measure(prs, lambda r: p[id(r)] >= c, cap)),
    )
    return Logistic(model.names, model.mean, model.scale, model.weights, model.bias, best)


# --- rules ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Cond:
    feature: str
    at_least: bool
    cut: float

    def holds(self, x: dict[str, float]) -> bool:
        return (x[self.feature] >= self.cut) == self.at_least

    def __str__(self) -> str:
        return f"{self.feature} {'>=' if self.at_least else '<'} {self.cut:g}"


@dataclass(frozen=True)
class Rule:
    add: bool  # add a candidate today holds back, else drop one it links
    conds: tuple[Cond, ...]

    def holds(self, x: dict[str, float]) -> bool:
        return all(c.holds(x) for c in self.conds)

    def __str__(self) -> str:
        return f"{'add' if self.add else 'drop'} if {' and '.join(map(str, self.conds))}"


def ruled(rules: Sequence[Rule]) -> Callable[[Row], bool]:
    """Today's decision, edited by each rule in turn."""

    def accept(r: Row) -> bool:
        on = r.today
        for rule in rules:
            if rule.add != on and rule.holds(r.x):
                on = rule.add
        return on

    return accept


def conditions(rows: Sequence[Row]) -> list[Cond]:
    """Each feature at a few cuts (0.5 for a flag, its quantiles otherwise), both ways."""
    out = []
    for name in sorted(rows[0].x):
        values = sorted(r.x[name] for r in rows)
        if set(values) <= {0.0, 1.0}:
            cuts = {0.5}
        else:
            cuts = {
                round(values[int(q * (len(values) - 1))], 2) for q in (0.1, 0.25, 0.5, 0.75, 0.9)
            }
        for cut in sorted(cuts):
            out += [Cond(name, True, cut), Cond(name, False, cut)]
    return out


def fit_rules(
    prs: Sequence[PR], goal: str, cap: int, max_rules: int, shortlist: int = 40
) -> list[Rule]:
    """Greedily, the rule (one or two conditions) that most improves the goal on these
    PRs, up to `max_rules`; candidate rules ranked by their pair counts first (as bit
    sets over the rows), the shortlist measured exactly."""
    rows = [r for pr in prs for r in pr.rows]
    conds = conditions(rows)
    bits = {c: _bits(c.holds(r.x) for r in rows) for c in conds}
    g2 = _bits(r.grade == 2 for r in rows)
    bad = _bits(r.grade == 0 for r in rows)
    today = measure(prs, lambda r: r.today, cap)
    key = goal_key(goal, today)
    rules: list[Rule] = []
    best = key(today)
    for _ in range(max_rules):
        on = _bits(ruled(rules)(r) for r in rows)
        scored = []
        for n, a in enumerate(conds):
            for b in [None, *conds[n + 1 :]]:
                if b is not None and a.feature == b.feature:
                    continue
                hit = bits[a] & bits[b] if b is not None else bits[a]
                pair = (a,) if b is None else (a, b)
                adds, drops = hit & ~on, hit & on
                # a rough gain, to shortlist: a false (grade-0) link weighs more than a
                # grade-2 one found, a grade-2 link lost most, grade 1 nothing; the
                # shortlist is then measured by the goal (`key`), which decides
                gain_add = (adds & g2).bit_count() * 2 - (adds & bad).bit_count() * 3
                gain_drop = (drops & bad).bit_count() * 3 - (drops & g2).bit_count() * 4
                if adds:
                    scored.append((gain_add, Rule(True, pair)))
                if drops:
                    scored.append((gain_drop, Rule(False, pair)))
        scored.sort(key=lambda s: -s[0])
        found = None
        for _, rule in scored[:shortlist]:
            k = key(measure(prs, ruled([*rules, rule]), cap))
            if k > best:
                best, found = k, rule
        if found is None:
            break
        rules.append(found)
    return rules


def _bits(flags) -> int:
    return int("".join("1" if f else "0" for f in reversed(list(flags))) or "0", 2)


# --- folds ---------------------------------------------------------------------------


def folds(prs: Sequence[PR], learners: Sequence[str], cap: int, args) -> list[dict]:
    """Leave one set out: today's figures and each learner's, per goal, on that set."""
    out = []
    for held in dict.fromkeys(pr.set for pr in prs):
        train = [pr for pr in prs if pr.set != held]
        test = [pr for pr in prs if pr.set == held]
        row = {"set": held, "today": measure(test, lambda r: r.today, cap)}
        model = logistic(train, args) if "logistic" in learners else None
        for learner, goal in ((a, g) for a in learners for g in GOALS):
            if learner == "logistic":
                cut = choose_cut(model, train, goal, cap)
                accept = lambda r, m=cut: m.p(r.x) >= m.cut  # noqa: E731
            else:
                accept = ruled(fit_rules(train, goal, cap, args.max_rules))
            row[f"{learner}/{goal}"] = measure(test, accept, cap)
        out.append(row)
        print(f"  {held}: fitted", file=sys.stderr, flush=True)
    return out


def logistic(train: Sequence[PR], args) -> Logistic:
    """The logistic model fitted on these PRs' candidates, its cut not yet chosen."""
    return fit_logistic([r for pr in train for r in pr.rows], args.epochs, args.l2, args.seed)


def verdict(today: Tally, t: Tally) -> str:
    """Against today's on one set: '+' better, '=' the same, '-' worse, for precision,
    grade-2 links and false comments."""

    def sign(a: float, b: float) -> str:
        return "+" if a > b else "=" if a == b else "-"

    return (
        sign(precision(t), precision(today))
        + sign(t.grade2_found, today.grade2_found)
        + sign(false_rate(today), false_rate(t))
    )


def report(rows: list[dict], learners: Sequence[str]) -> None:
    names = ["today", *(f"{a}/{g}" for a in learners for g in GOALS)]
    totals = {n: Tally() for n in names}
    print("held-out set, then per decision: precision, grade-2 found, false comments;")
    print("[P R2 FC] against today on that set: + better, = same, - worse")
    for row in rows:
        print(f"== {row['set']}")
        for n in names:
            totals[n].merge(row[n])
            mark = "" if n == "today" else f"  [{verdict(row['today'], row[n])}]"
            print(f"  {n:<20} {cell(row[n])}{mark}")
    print("== all held-out sets")
    for n in names:
        print(f"  {n:<20} {cell(totals[n])}")
        if n != "today":
            marks = [verdict(row["today"], row[n]) for row in rows]
            wins = sum(m[0] == "+" and m[1] != "-" for m in marks)
            holds = sum(m[0] != "-" and m[1] != "-" and m[2] != "-" for m in marks)
            print(
                f"  {'':<20} sets better in precision, grade-2 kept: {wins}/{len(rows)};"
                f" no figure worse: {holds}/{len(rows)}"
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=Path, nargs="+", help="graded sets (default: every one)")
    ap.add_argument("--learner", choices=("logistic", "rules", "both"), default="both")
    ap.add_argument("--max-rules", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=38)
    ap.add_argument("--show", action="store_true", help="also fit on every set and print the fits")
    args = ap.parse_args(argv)
    paths = args.sets or graded_sets(DEFAULT_PRS)
    learners = ("logistic", "rules") if args.learner == "both" else (args.learner,)
    cap = load_match_config(DEFAULT_MATCHING_FILE).max_notes
    prs = collect(paths)
    report(folds(prs, learners, cap, args), learners)
    if args.show:
        for learner, goal in ((a, g) for a in learners for g in GOALS):
            print(f"== {learner}/{goal} fitted on every set")
            if learner == "rules":
                for rule in fit_rules(prs, goal, cap, args.max_rules):
                    print(f"  {rule}")
            else:
                model = choose_cut(logistic(prs, args), prs, goal, cap)
                print(f"  cut {model.cut:g}, bias {model.bias:.2f}")
                for n, w in sorted(
                    zip(model.names, model.weights, strict=True), key=lambda p: -abs(p[1])
                ):
                    print(f"  {n:<18} {w:+.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Measure the matcher on a graded set of real PRs (default: the dev set).

Each line of the PR file has number, title, body, labels, files, optionally
`code_names` ({name: [files]}, a file as a path or its index in `files`: the names on
the diff's changed lines, as the bot reads them from GitHub's file listing;
`bot.pr_diff.code_names_in`), optionally `incidental` (the files, as paths or indexes,
the PR only moves or changes in their imports: `bot.pr_diff.incidental_files`),
optionally `changed_files` (the PR's own count: when `files` holds that many, the list
is whole) and `relevant`:
{note index: grade}, grade 2 = the note is what a reviewer of this PR needs,
1 = related, absent = not relevant. A note index is the note's position in
seeds/raw/notes_prs.json; it is mapped to a library note by that entry's PR
number (the note's source_pr) or, failing that, its Chinese title.

Printed figures:
- precision: linked notes graded >= 1 / linked notes;
- grade-2 recall: grade-2 pairs linked / grade-2 pairs;
- false-comment rate: PRs with no relevant note that still get a comment / such PRs;
- per note: how often linked, how often wrongly, its grade-2 recall.
Each figure is given over all PRs and over the PRs that are not some note's own
source PR (those get their note by the source-PR rule, which flatters the numbers).

Any JSONL with those fields works (`relevant` may be absent: then every link counts
as wrong, which is what a set of PRs no note is about should show). `--show` lists
every linked (PR, note) pair with its grade, score and reasons, for hand review;
`--misses` every grade-2 note a PR did not get, with its score and evidence: where a
note's keywords or aspects fall short.

    python scripts/eval_matching.py [--prs FILE] [--title-only] [-v] [--show] [--misses]
    python scripts/eval_matching.py --all [--split] [--before NOTES_DIR]
                                          [--before-config FILE] [--before-topics FILE]
    python scripts/eval_matching.py [--all] --scan-terms [--title-only]

`--all` tabulates every graded set (the dev set and bench/graded/), title only and with
what was captured, with totals. `--split` adds the totals of the two halves a matcher
change is judged on, TUNE first and HELD once (bench/graded/halves.toml), and the
comments on the ungraded pools of bench/pools/. `--before` compares with another
library (a copy of seeds/notes/ taken before an edit; `--before-config` another
matching.toml, `--before-topics` another topics.toml) and lists every link the edit
gained (+) or lost (-) with its grade: what a curator's change does; with `--split`,
each half's totals and each pool's comments before the edit too.
`--scan-terms` takes each note's aspects and keywords out one at a time and lists the
links each one's absence loses or gains, by grade: which terms earn their keep.

Graded sets shipped with the project are in bench/graded/ (same fields plus the
grader's `why`, `kind`, `url`); bench/graded/README.md says how each was found and
graded, and what the matcher scored on it when it was new.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, Library, load_library  # noqa: E402
from bot.match_config import DEFAULT_MATCHING_FILE, MatchConfig, load_match_config  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.prfacts import facts_from_record  # noqa: E402
from bot.terminal import count_of  # noqa: E402

DEFAULT_PRS = Path("/work/shared/eval/dev_prs.jsonl")
DEFAULT_INDEX = ROOT / "seeds" / "raw" / "notes_prs.json"
GRADED_DIR = ROOT / "bench" / "graded"
HALVES_FILE = "halves.toml"  # in GRADED_DIR
POOLS_DIR = ROOT / "bench" / "pools"


def note_index(library: Library, index_file: Path) -> dict[int, str]:
    """Note index (1-based, as graded) -> note id."""
    by_pr = {n.source_pr: n.id for n in library.notes if n.source_pr}
    by_title = {n.title_zh: n.id for n in library.notes}
    out: dict[int, str] = {}
    for entry in json.loads(index_file.read_text("utf-8")):
        nid = by_pr.get(entry.get("pr_number")) or by_title.get(entry.get("note_title"))
        if nid is None:
            raise SystemExit(f"{index_file}: note {entry['note_index']} matches no library note")
        out[int(entry["note_index"])] = nid
    return out


def note_name(label: dict[str, int], nid: str) -> str:
    """How a line names a note: its graded number, else its id (a note added since the
    sets were graded, or taken out, has no number; '?' told the curator nothing)."""
    return str(label[nid]) if nid in label else nid


def grade_said(label: dict[str, int], nid: str, grade: int | None) -> str:
    """A link's grade as a line shows it. A note outside the sets' numbering (added since
    they were graded) was never put to a grader: its "grade 0" would read as a grader's
    "not relevant"."""
    if grade is None:
        return "ungraded"
    if nid not in label:
        return "ungraded: a note the sets were not graded against"
    return f"grade {grade}"


def graded_records(path: Path, title_only: bool = False) -> Iterator[dict]:
    """The PR records of a graded file; with `title_only`, as if only the title (and
    labels) had been captured."""
    for line in path.read_text("utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        if title_only:
            record = {**record, "body": "", "files": [], "code_names": {}, "incidental": []}
        yield record


@dataclass
class Tally:
    prs: int = 0
    linked: int = 0
    good: int = 0  # linked and graded >= 1
    grade2: int = 0
    grade2_found: int = 0
    related: int = 0  # graded >= 1
    related_found: int = 0
    empty_prs: int = 0  # PRs with no relevant note
    empty_commented: int = 0
    # note id -> [linked, wrong, grade-2, grade-2 found]
    per_note: dict[str, list[int]] = field(default_factory=dict)

    def merge(self, other: Tally) -> None:
        """Add another tally's counts."""
        for f in fields(self):
            if f.name != "per_note":
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        for nid, row in other.per_note.items():
            mine = self.per_note.setdefault(nid, [0, 0, 0, 0])
            mine[:] = [a + b for a, b in zip(mine, row, strict=True)]

    def add(self, linked: list[str], grades: dict[str, int]) -> None:
        self.prs += 1
        self.linked += len(linked)
        self.good += sum(1 for n in linked if grades.get(n, 0) >= 1)
        for nid, g in grades.items():
            self.related += g >= 1
            self.related_found += g >= 1 and nid in linked
            self.grade2 += g == 2
            self.grade2_found += g == 2 and nid in linked
        if not any(g >= 1 for g in grades.values()):
            self.empty_prs += 1
            self.empty_commented += bool(linked)
        for nid in set(linked) | set(grades):
            row = self.per_note.setdefault(nid, [0, 0, 0, 0])
            row[0] += nid in linked
            row[1] += nid in linked and grades.get(nid, 0) < 1
            row[2] += grades.get(nid) == 2
            row[3] += grades.get(nid) == 2 and nid in linked


def ratio(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else "n/a (0/0)"


# Issue 3's targets, for PRs the team has not seen: (figure, at least?, share).
TARGETS = (
    ("precision", True, 0.95),
    ("grade-2 recall", True, 0.85),
    ("false comments", False, 0.03),
)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of k in n: the shares a true rate could have and
    still give k in n. Unlike k/n +- a normal margin, it stays inside [0, 1] and
    holds for the small counts of one note or one set."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def against_targets(t: Tally) -> list[str]:
    """Each target beside its figure and interval: met or not, and whether the target
    lies inside the interval (other PRs could land on either side) or outside it."""
    counts = {
        "precision": (t.good, t.linked),
        "grade-2 recall": (t.grade2_found, t.grade2),
        "false comments": (t.empty_commented, t.empty_prs),
    }
    lines = []
    for name, at_least, target in TARGETS:
        k, n = counts[name]
        if not n:
            lines.append(f"  {name:<15} n/a (0/0)")
            continue
        low, high = wilson(k, n)
        met = k / n >= target if at_least else k / n <= target
        where = "inside" if low <= target <= high else "outside"
        lines.append(
            f"  {name:<15} {ratio(k, n):<17} {low:.3f}-{high:.3f}  "
            f"target {'>=' if at_least else '<='} {target}: {'met' if met else 'not met'}, "
            f"{where} the interval"
        )
    return lines


def report(name: str, t: Tally) -> None:
    print(f"== {name}: {t.prs} PRs")
    print(f"  precision          {ratio(t.good, t.linked)}")
    print(f"  grade-2 recall     {ratio(t.grade2_found, t.grade2)}")
    print(f"  grade>=1 recall    {ratio(t.related_found, t.related)}")
    print(f"  false-comment rate {ratio(t.empty_commented, t.empty_prs)}")


def show_links(record: dict, matches, grades: dict[str, int], label: dict[str, int]) -> None:
    """One block per linked note: what a reviewer grading the link needs to see."""
    if not matches:
        return
    files = record.get("files") or []
    more = f" (+{len(files) - 5} more)" if len(files) > 5 else ""
    print(f"#{record['number']} {record['title']}")
    if files:
        print(f"   files: {' '.join(files[:5])}{more}")
    for m in matches:
        grade = grades.get(m.note.id, 0) if "relevant" in record else None
        shown = grade_said(label, m.note.id, grade)
        print(f"   -> note {label.get(m.note.id, '?')} {m.note.id} ({shown}, score {m.score:g})")
        print(f"      {m.note.title_en or m.note.title_zh}")
        for reason in m.reasons:
            print(f"        - {reason}")


def show_misses(record: dict, result, grades: dict[str, int], label: dict[str, int]) -> None:
    """One block per grade-2 note the PR did not get: how far it came, and on what."""
    linked = {m.note.id for m in result.matches}
    missed = [nid for nid, g in grades.items() if g == 2 and nid not in linked]
    if not missed:
        return
    print(f"#{record['number']} {record['title']}")
    candidates = {m.note.id: m for m in result.candidates}
    for nid in missed:
        m = candidates.get(nid)
        if m is None:
            print(f"   missed note {label.get(nid, '?')} {nid}: no evidence at all")
            continue
        held = [
            why
            for why, holds in (
                ("its first topic not shown", not m.on_topic),
                ("files of a sweep", m.swept),
                ("nothing of its own", not m.own),
            )
            if holds
        ]
        print(
            f"   missed note {label.get(nid, '?')} {nid}: score {m.score:g}, specific"
            f" {m.specific:g}{'; ' + ', '.join(held) if held else ''}"
        )
        for reason in m.reasons:
            print(f"        - {reason}")


@dataclass
class Run:
    """One pass of the matcher over one graded set."""

    tally: Tally = field(default_factory=Tally)
    links: dict[tuple[int, str], int] = field(default_factory=dict)  # (PR, note id) -> grade
    titles: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Matcher:
    compiled: CompiledMatcher  # built once, for every PR of every set
    index: dict[int, str]  # note index -> note id

    @property
    def library(self) -> Library:
        return self.compiled.library

    @property
    def config(self) -> MatchConfig:
        return self.compiled.config

    @classmethod
    def load(cls, notes: Path, topics: Path, config: Path, index_file: Path) -> Matcher:
        library = load_library(notes, topics)
        compiled = CompiledMatcher(library, load_match_config(config))
        return cls(compiled, note_index(library, index_file))


def evaluate(
    matcher: Matcher, path: Path, title_only: bool, each: Callable[..., None] | None = None
) -> Run:
    """Match every PR of the set; `each(record, result, grades)` sees every one."""
    run = Run()
    for record in graded_records(path, title_only):
        grades = {matcher.index[int(k)]: int(v) for k, v in (record.get("relevant") or {}).items()}
        result = matcher.compiled.match(facts_from_record(record))
        linked = [m.note.id for m in result.matches]
        run.tally.add(linked, grades)
        run.links.update({(record["number"], nid): grades.get(nid, 0) for nid in linked})
        run.titles[record["number"]] = record["title"]
        if each is not None:
            each(record, result, grades)
    return run


def graded_sets(dev: Path) -> list[Path]:
    """The dev set (when present) and every shipped set graded against the notes. Each is
    named by its file's name (the tables, the halves, the term scan): a dev set of a graded
    set's name is refused, as one of the two would go uncounted."""
    sets = [dev] if dev.exists() else []
    for path in sorted(GRADED_DIR.glob("*.jsonl")):
        first = next(iter(path.read_text("utf-8").splitlines()), "")
        if first.strip() and "relevant" in json.loads(first):  # not the second grader's
            if path.stem == dev.stem and dev.exists():
                raise SystemExit(
                    f"{dev}: a graded set is named `{path.stem}` too ({path}): --all names"
                    " each set by its file's name; give --prs a file of another name"
                )
            sets.append(path)
    return sets


def brief(t: Tally) -> str:
    """Precision, grade-2 recall and false comments, in one cell of a table."""
    return (
        f"{ratio(t.good, t.linked):>15} {ratio(t.grade2_found, t.grade2):>15} "
        f"{t.empty_commented:>4}/{t.empty_prs:<4}"
    )


MODES = (("title only", True), ("as captured", False))
ByMode = dict[str, Tally]  # mode (MODES) -> tally


@dataclass
class AllRuns:
    """What `--all` measured: each set's tallies by mode (set name -> ByMode), with the
    `--before` library too when given, and the links that differ."""

    now: dict[str, ByMode] = field(default_factory=dict)
    before: dict[str, ByMode] = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)


def summed(tallies: Iterable[ByMode]) -> ByMode:
    """Several sets' tallies added up, mode by mode."""
    totals = {mode: Tally() for mode, _ in MODES}
    for by_mode in tallies:
        for mode, tally in by_mode.items():
            totals[mode].merge(tally)
    return totals


def table_row(name: str, by_mode: ByMode) -> str:
    """One row of `--all`'s table: PRs, then each mode's figures."""
    cells = " | ".join(brief(by_mode[mode]) for mode, _ in MODES)
    return f"{name:<28} {by_mode['title only'].prs:>4} | {cells}"


def print_header(first: str) -> None:
    """The two header lines of `--all`'s table, `first` naming its first column."""
    cell = f"{'precision':>15} {'grade-2 recall':>15} {'false com.':>9}"
    width = len(cell)
    print(f"{'':<28} {'':>4} | {'title only':^{width}} | {'as captured':^{width}}")
    print(f"{first:<28} {'PRs':>4} | {cell} | {cell}")


def report_all(matcher: Matcher, sets: list[Path], before: Matcher | None) -> AllRuns:
    """A table of every set, title only and with what was captured; every set's tallies
    and the links that differ from `before`'s, one line each."""
    print_header("set")
    runs = AllRuns()
    for path in sets:
        for mode, title_only in MODES:
            run = evaluate(matcher, path, title_only)
            runs.now.setdefault(path.stem, {})[mode] = run.tally
            if before is not None:
                then = evaluate(before, path, title_only)
                runs.before.setdefault(path.stem, {})[mode] = then.tally
                runs.changes += link_changes(run, then, path, mode, matcher)
        print(table_row(path.stem, runs.now[path.stem]))
    totals = summed(runs.now.values())
    print(table_row("all sets", totals))
    print(
        "== all sets as captured against issue 3's targets, with 95% Wilson intervals"
        " (the sets were tuned on after their blind first runs: bench/graded/README.md)"
    )
    print("\n".join(against_targets(totals["as captured"])))
    print_per_note(matcher.index, totals)
    return runs


def load_halves(path: Path) -> dict[str, tuple[str, ...]]:
    """TUNE and HELD, each the names of its sets (bench/graded/halves.toml)."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SystemExit(f"{path}: {e}") from None
    lists = set(data) == {"tune", "held"} and all(
        isinstance(names, list) and all(isinstance(n, str) for n in names)
        for names in data.values()
    )
    if not lists:
        raise SystemExit(f"{path}: wants `tune` and `held`, each a list of set names")
    both = set(data["tune"]) & set(data["held"])
    if both:
        raise SystemExit(f"{path}: {', '.join(sorted(both))} in both halves")
    return {"TUNE": tuple(data["tune"]), "HELD": tuple(data["held"])}


def half_of(halves: dict[str, tuple[str, ...]], sets: Iterable[str], path: Path) -> dict[str, str]:
    """Each set's half. A set in neither stops the run before anything is measured: its
    PRs would count in all sets and in no half, and the halves would no longer add up."""
    where = {name: half for half, names in halves.items() for name in names}
    unplaced = [name for name in sets if name not in where]
    if unplaced:
        raise SystemExit(
            f"{path}: {', '.join(unplaced)} in neither half: put each in `tune` or `held`"
        )
    return {name: where[name] for name in sets}


def print_split(halves: dict[str, tuple[str, ...]], path: Path, runs: AllRuns) -> None:
    """TUNE, HELD and all sets in `--all`'s columns, each with `--before`'s row below it
    when given: the figures a matcher change is judged on."""
    half = half_of(halves, runs.now, path)
    print(f"== the halves of {path.name}: a change judged on TUNE first, measured on HELD once")
    print_header("half")
    for name in (*halves, "all sets"):
        sets = [s for s in runs.now if name in ("all sets", half[s])]
        label = name if name == "all sets" else f"{name} ({count_of(len(sets), 'set')})"
        print(table_row(label, summed(runs.now[s] for s in sets)))
        if runs.before:
            print(table_row("  before", summed(runs.before[s] for s in sets)))


def pool_comments(matcher: Matcher, path: Path) -> tuple[int, int]:
    """How many PRs of an ungraded pool the bot comments on, of how many."""
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    commented = sum(1 for r in records if matcher.compiled.match(facts_from_record(r)).matches)
    return commented, len(records)


def print_pools(matcher: Matcher, before: Matcher | None) -> None:
    """The comments on each pool of bench/pools/ (what was captured), and `before`'s."""
    print("== comments on the ungraded pools: PRs commented on / PRs")
    for path in sorted(POOLS_DIR.glob("*.jsonl")):
        commented, prs = pool_comments(matcher, path)
        then = ""
        if before is not None:
            then = f"  before {pool_comments(before, path)[0]}/{prs}"
        print(f"  {path.stem:<28} {commented:>4}/{prs}{then}")


def without_term(matcher: Matcher, note_id: str, attr: str, term: str) -> Matcher:
    """The same matcher with one aspect or keyword taken out of one note."""
    notes = tuple(
        n.model_copy(update={attr: tuple(t for t in getattr(n, attr) if t != term)})
        if n.id == note_id
        else n
        for n in matcher.library.notes
    )
    library = Library(notes=notes, topics=matcher.library.topics)
    return Matcher(CompiledMatcher(library, matcher.config), matcher.index)


def links_of(
    matcher: Matcher, sets: list[Path], title_only: bool = False
) -> dict[tuple[str, int, str], int]:
    """Every (set, PR, note) link, with what was captured or by the title alone, and
    its grade."""
    return {
        (path.stem, number, nid): grade
        for path in sets
        for (number, nid), grade in evaluate(matcher, path, title_only).links.items()
    }


def scan_terms(
    matcher: Matcher, sets: list[Path], title_only: bool = False
) -> list[tuple[str, str, str, Counter]]:
    """Each note's aspects and keywords taken out one at a time: how many links of each
    grade the term's absence loses and gains (counts keyed "lost G" / "gained G"), for
    curators weighing a term. Terms whose absence changes nothing are left out."""
    base = links_of(matcher, sets, title_only)
    found = []
    for note in matcher.library.notes:
        for attr in ("aspects", "keywords"):
            for term in getattr(note, attr):
                after = links_of(without_term(matcher, note.id, attr, term), sets, title_only)
                change = Counter(f"lost {g}" for k, g in base.items() if k not in after)
                change.update(f"gained {g}" for k, g in after.items() if k not in base)
                if change:
                    found.append((note.id, attr, term, change))
    return found


def print_scan(found: list[tuple[str, str, str, Counter]], title_only: bool = False) -> None:
    mode = "title only" if title_only else "as captured"
    print(f"== without each term: links lost / gained by grade (0 = not relevant), {mode}")
    for note_id, attr, term, change in found:
        cells = " ".join(
            f"{kind}: {change[f'{kind} 0']}/{change[f'{kind} 1']}/{change[f'{kind} 2']}"
            for kind in ("lost", "gained")
        )
        print(f"  {note_id} {attr[:-1]} {term!r}: {cells}")


def print_per_note(index: dict[int, str], tallies: dict[str, Tally]) -> None:
    """Per note: how often linked, how often wrongly, grade-2 pairs found of all."""
    print("== per note: linked / wrong / grade-2 found of grade-2")
    for i in sorted(index):
        nid = index[i]
        cells = []
        for mode, t in tallies.items():
            linked, wrong, g2, g2f = t.per_note.get(nid, [0, 0, 0, 0])
            cells.append(f"{mode}: linked {linked:>3}  wrong {wrong:>2}  grade-2 {g2f:>2}/{g2:<3}")
        print(f"  {i:>2} {nid}  " + " | ".join(cells))


def link_changes(now: Run, then: Run, path: Path, mode: str, matcher: Matcher) -> list[str]:
    """`+` a link gained, `-` a link lost, with its grade: what a change did."""
    label = {nid: i for i, nid in matcher.index.items()}
    out = []
    for sign, a, b in (("+", now, then), ("-", then, now)):
        for (number, nid), grade in sorted(a.links.items()):
            if (number, nid) not in b.links:
                out.append(
                    f"{sign} {path.stem} ({mode}) #{number} note {note_name(label, nid)} "
                    f"({grade_said(label, nid, grade)}): {now.titles[number][:80]}"
                )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prs", type=Path, default=DEFAULT_PRS)
    ap.add_argument("--index", type=Path, default=DEFAULT_INDEX, help="notes_prs.json")
    ap.add_argument("--notes", type=Path, default=DEFAULT_NOTES_DIR)
    ap.add_argument("--topics", type=Path, default=DEFAULT_TOPICS_FILE)
    ap.add_argument("--config", type=Path, default=DEFAULT_MATCHING_FILE)
    ap.add_argument(
        "--all",
        action="store_true",
        help="every graded set (the dev set and bench/graded/), title only and as captured, "
        "in one table",
    )
    ap.add_argument(
        "--before",
        type=Path,
        metavar="NOTES_DIR",
        help="compare with another library (say, a copy taken before an edit): prints every "
        "link gained (+) or lost (-), with its grade",
    )
    ap.add_argument(
        "--before-config", type=Path, metavar="FILE", help="the same for another matching.toml"
    )
    ap.add_argument(
        "--before-topics", type=Path, metavar="FILE", help="the same for another topics.toml"
    )
    ap.add_argument(
        "--split",
        action="store_true",
        help="with --all: the totals of TUNE and HELD (bench/graded/halves.toml) and the "
        "comments on the ungraded pools (bench/pools/); with --before, before's too",
    )
    ap.add_argument(
        "--scan-terms",
        action="store_true",
        help="take each note's aspects and keywords out one at a time and list the links "
        "each one's absence loses or gains (with --all: on every set; a run per term)",
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per PR")
    ap.add_argument(
        "--show", action="store_true", help="every linked PR/note pair with grade and reasons"
    )
    ap.add_argument(
        "--misses",
        action="store_true",
        help="every grade-2 note a PR did not get, with how far it came (for curators)",
    )
    ap.add_argument(
        "--title-only",
        action="store_true",
        help="match on the title (and labels) alone, as for PRs whose description and files "
        "were not captured",
    )
    args = ap.parse_args(argv)
    refused = ignored_options(args)
    if refused:
        ap.error(refused)

    matcher = Matcher.load(args.notes, args.topics, args.config, args.index)
    before = None
    if args.before or args.before_config or args.before_topics:
        before = Matcher.load(
            args.before or args.notes,
            args.before_topics or args.topics,
            args.before_config or args.config,
            args.index,
        )
    if args.scan_terms:
        sets = graded_sets(args.prs) if args.all else [args.prs]
        print_scan(scan_terms(matcher, sets, args.title_only), args.title_only)
        return 0
    if args.all:
        report_every_set(matcher, before, args.prs, args.split)
        return 0

    label = {nid: i for i, nid in matcher.index.items()}
    sources = {n.source_pr for n in matcher.library.notes if n.source_pr}
    unseen = Tally()

    def each(record: dict, result, grades: dict[str, int]) -> None:
        linked = [m.note.id for m in result.matches]
        is_source = record["number"] in sources
        if not is_source:
            unseen.add(linked, grades)
        if args.verbose:
            shown = " ".join(f"{note_name(label, n)}:{grades.get(n, 0)}" for n in linked) or "-"
            missed = " ".join(
                note_name(label, n) for n, g in grades.items() if g == 2 and n not in linked
            )
            flag = "S" if is_source else " "
            print(
                f"{flag} {record['number']:>6} linked [{shown}]"
                f"{' missed g2 [' + missed + ']' if missed else ''}  {record['title'][:70]}"
            )
        if args.show:
            show_links(record, result.matches, grades, label)
        if args.misses:
            show_misses(record, result, grades, label)

    run = evaluate(matcher, args.prs, args.title_only, each)
    everything = run.tally
    report("all PRs", everything)
    report("excluding notes' source PRs", unseen)
    print_per_note(matcher.index, {"all PRs": everything})
    if before is not None:
        mode = "title only" if args.title_only else "as captured"
        changes = link_changes(
            run, evaluate(before, args.prs, args.title_only), args.prs, mode, matcher
        )
        print_changes(changes)
    return 0


def report_every_set(matcher: Matcher, before: Matcher | None, dev: Path, split: bool) -> None:
    """`--all`: the table of every set; with `split`, the halves and the pools; with
    `before`, what differs."""
    sets = graded_sets(dev)
    halves_file = GRADED_DIR / HALVES_FILE
    halves: dict[str, tuple[str, ...]] = {}
    if split:  # a set in neither half stops the run before anything is measured
        halves = load_halves(halves_file)
        half_of(halves, [p.stem for p in sets], halves_file)
    runs = report_all(matcher, sets, before)
    if split:
        print_split(halves, halves_file, runs)
        print_pools(matcher, before)
    if before is not None:
        print_changes(runs.changes)


def ignored_options(args: argparse.Namespace) -> str | None:
    """Options the chosen report would leave unused, said rather than ignored: a curator
    reading `--all --misses` would take an empty list for "no misses"."""
    per_pr = {"--show": args.show, "--misses": args.misses, "-v": args.verbose}
    if args.split and not args.all:
        return "--split divides the sets of --all into halves: give --all too"
    if args.scan_terms:
        per_pr |= {"--before": bool(args.before or args.before_config or args.before_topics)}
        per_pr |= {"--split": args.split}
        unused = [name for name, given in per_pr.items() if given]
        return f"--scan-terms lists terms, {', '.join(unused)} would go unused" if unused else None
    if args.all:
        unused = [name for name, given in per_pr.items() if given]
        if args.title_only:
            unused.append("--title-only (--all shows both modes)")
        if unused:
            named = ", ".join(unused)
            return f"--all tabulates the sets, {named} would go unused: give one set, --prs FILE"
    return None


def print_changes(changes: list[str]) -> None:
    print(f"== links that differ from --before: {len(changes)}")
    for line in changes:
        print(f"  {line}")


if __name__ == "__main__":
    sys.exit(main())

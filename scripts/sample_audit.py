"""Draw a natural-traffic audit: what the bot would comment on, among PRs it has not seen.

    python scripts/sample_audit.py draw PRS.jsonl --out DIR [--near 30] [--random 50]
        [--show-files] [--show-description]
    python scripts/sample_audit.py merge DIR GRADED.jsonl > bench/graded/natural_traffic_N.jsonl

`draw` matches every PR of PRS.jsonl (the fields of the graded sets: number, title and,
when known, body, labels, files, changed_files, code_names, incidental) that no graded set
holds and that is no note's source PR, and prints the comment rate. It samples every PR
the matcher comments on, `--near` near misses (a note scoring `--near-score` or more, not
linked) and `--random` of the rest, and writes them mixed, in a seeded random order, to
DIR/to_grade.jsonl (number and title, with `--show-files` also the files as captured, with
`--show-description` the labels and description: graders must not know which PRs the bot
commented on), which sample each came from to
DIR/sample.json, and the drawn PRs as captured to DIR/drawn.jsonl.

`merge` joins each line of the graders' file to its drawn PR: the captured fields come
from DIR/drawn.jsonl (a grader cannot change what the matcher is measured on), `relevant`,
`why` and any field the capture lacks (files a grader looked up) from the graders, plus
the `sample`. It checks that every drawn PR was graded once. Run the result once with
scripts/eval_matching.py: that first run is the audit's honest figure.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.library import load_library  # noqa: E402
from bot.match_config import load_match_config  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.prfacts import facts_from_record  # noqa: E402

DEFAULT_DEV = Path("/work/shared/eval/dev_prs.jsonl")
GRADED_DIR = ROOT / "bench" / "graded"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def seen_numbers(dev: Path, graded_dir: Path) -> set[int]:
    """PRs some graded set already holds."""
    files = [dev] if dev.exists() else []
    return {r["number"] for f in [*files, *graded_dir.glob("*.jsonl")] for r in read_jsonl(f)}


def draw(args: argparse.Namespace) -> int:
    matcher = CompiledMatcher(load_library(), load_match_config())  # once, for every PR
    library = matcher.library
    # graded already, or some note's own PR: an audit is of PRs nobody tuned on
    left_out = seen_numbers(args.dev, args.graded) | {n.source_pr for n in library.notes}
    every = read_jsonl(args.prs)
    pool = [r for r in every if r["number"] not in left_out]
    commented, near, rest = [], [], []
    for record in pool:
        result = matcher.match(facts_from_record(record))
        if result.matches:
            commented.append(record)
        elif any(m.score >= args.near_score for m in result.candidates):
            near.append(record)
        else:
            rest.append(record)
    rng = random.Random(args.seed)
    picked = (
        [(r, "commented") for r in commented]
        + [(r, "near") for r in rng.sample(near, min(args.near, len(near)))]
        + [(r, "random") for r in rng.sample(rest, min(args.random, len(rest)))]
    )
    rng.shuffle(picked)
    args.out.mkdir(parents=True, exist_ok=True)
    shown = ("number", "title")
    shown += ("files", "changed_files") if args.show_files else ()
    shown += ("labels", "body") if args.show_description else ()
    lines = [json.dumps({k: r[k] for k in shown if k in r}) for r, _ in picked]
    (args.out / "to_grade.jsonl").write_text("".join(f"{line}\n" for line in lines), "utf-8")
    drawn = [json.dumps(r, ensure_ascii=False) for r, _ in picked]
    (args.out / "drawn.jsonl").write_text("".join(f"{line}\n" for line in drawn), "utf-8")
    kinds = {str(r["number"]): kind for r, kind in picked}
    (args.out / "sample.json").write_text(json.dumps(kinds, indent=0) + "\n", "utf-8")
    rate = len(commented) / len(pool) if pool else 0.0
    print(
        f"{len(pool)} PRs no graded set holds ({len(every) - len(pool)} left out); the matcher"
        f" comments on {len(commented)} ({rate:.2%}), {len(near)} near misses;"
        f" {len(picked)} to grade in {args.out / 'to_grade.jsonl'}"
    )
    return 0


def merge(args: argparse.Namespace) -> int:
    kinds: dict[str, str] = json.loads((args.dir / "sample.json").read_text("utf-8"))
    graded = read_jsonl(args.graded)
    numbers = [str(r["number"]) for r in graded]
    missing = sorted(set(kinds) - set(numbers), key=int)
    extra = sorted(set(numbers) - set(kinds), key=int)
    twice = sorted({n for n in numbers if numbers.count(n) > 1}, key=int)
    if missing or extra or twice:
        print(
            f"{args.graded}: not graded {missing or '-'}; not drawn {extra or '-'};"
            f" graded twice {twice or '-'}",
            file=sys.stderr,
        )
        return 1
    drawn = {str(r["number"]): r for r in read_jsonl(args.dir / "drawn.jsonl")}
    for record in sorted(graded, key=lambda r: r["number"]):
        if "relevant" not in record:
            print(f"{args.graded}: PR {record['number']} has no 'relevant'", file=sys.stderr)
            return 1
        captured = drawn[str(record["number"])]
        merged = {**record, **captured, "relevant": record["relevant"]}
        merged["sample"] = kinds[str(record["number"])]
        print(json.dumps(merged, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="match a pool of PRs and draw the sample to grade")
    d.add_argument("prs", type=Path, help="JSONL of PRs (number, title, ...)")
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--near", type=int, default=30)
    d.add_argument("--random", type=int, default=50)
    d.add_argument("--near-score", type=float, default=2.5)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    d.add_argument("--graded", type=Path, default=GRADED_DIR, help="folder of graded sets")
    d.add_argument(
        "--show-files", action="store_true", help="graders also see the files as captured"
    )
    d.add_argument(
        "--show-description",
        action="store_true",
        help="graders also see the labels and description as captured",
    )
    m = sub.add_parser("merge", help="add each drawn PR's sample to the graders' file")
    m.add_argument("dir", type=Path, help="the folder `draw` wrote")
    m.add_argument("graded", type=Path, help="the graders' JSONL")
    args = ap.parse_args(argv)
    return draw(args) if args.command == "draw" else merge(args)


if __name__ == "__main__":
    sys.exit(main())

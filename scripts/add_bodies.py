"""Merge captured PR descriptions into a graded set.

    python scripts/add_bodies.py bench/graded/SET.jsonl BODIES.jsonl

BODIES.jsonl holds one line per PR looked up: `{"number": N, "body": "...", "body_seen":
"search excerpt"}`, or `"body": ""` with `"body_seen": "not found"` when the lookup found no
description. Each set PR it names gets that `body` and `body_seen` (placed after `body`);
the others are left as they were, so a partial capture is recorded as partial. A number the
set does not hold, or one given twice, is refused and nothing is written: a description
must not land on another PR. The set is rewritten in place, its other fields and order kept.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def merge_bodies(records: list[dict], bodies: list[dict]) -> list[dict]:
    """`records` with each captured PR's body and body_seen; ValueError on a stray number."""
    by_number: dict[int, dict] = {}
    for capture in bodies:
        number = capture["number"]
        if number in by_number:
            raise ValueError(f"PR {number} is captured twice")
        by_number[number] = capture
    stray = sorted(set(by_number) - {r["number"] for r in records})
    if stray:
        raise ValueError(f"PRs not in the set: {stray}")
    merged = []
    for record in records:
        capture = by_number.get(record["number"])
        if capture is None:
            merged.append(record)
            continue
        out = {}
        for key, value in record.items():
            if key != "body_seen":
                out[key] = value
            if key == "body":  # keeps body_seen next to body
                out["body_seen"] = None
        out["body"], out["body_seen"] = capture["body"], capture["body_seen"]
        merged.append(out)
    return merged


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", type=Path, help="the graded set, rewritten in place")
    ap.add_argument("bodies", type=Path, help="JSONL of captures: number, body, body_seen")
    args = ap.parse_args(argv)
    records = read_jsonl(args.set)
    bodies = read_jsonl(args.bodies)
    try:
        merged = merge_bodies(records, bodies)
    except ValueError as exc:
        print(f"{args.bodies}: {exc}", file=sys.stderr)
        return 1
    lines = [json.dumps(r, ensure_ascii=False) for r in merged]
    args.set.write_text("".join(f"{line}\n" for line in lines), "utf-8")
    seen = sum(1 for b in bodies if b["body"])
    print(f"{args.set}: {len(bodies)} PRs looked up, {seen} with a description, of {len(records)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

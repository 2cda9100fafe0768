"""How fast the notes library loads: a generated library of N notes, timed.

    .venv/bin/python bench/bench_library.py [--notes 10000] [--repeat 5]

Prints the best of `repeat` runs for: reading the files only (the floor), the real
load_library (read, parse, validate, check, index), and load_library with the fast
header path switched off (every header through tomllib), with the ratios between
them. Not a test: the machine is shared, so figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import note_files as note_reader  # noqa: E402
from bot.library import DEFAULT_TOPICS_FILE, load_library, note_files  # noqa: E402
from bot.note_dump import dump_note  # noqa: E402


def generate(directory: Path, count: int) -> None:
    """`count` valid notes, cycling through the seeds with fresh ids, keywords and PRs."""
    seeds = load_library().notes
    for i in range(count):
        seed = seeds[i % len(seeds)]
        note = seed.model_copy(
            update={
                "id": f"gen-{i:06d}",
                "title_zh": f"{seed.title_zh}（{i}）",  # another note, not a copy of the seed
                "source_pr": 100_000 + i,
                "keywords": (*seed.keywords, f"generated_term_{i}"),
            }
        )
        (directory / note.filename).write_text(dump_note(note), "utf-8")


def read_only(directory: Path) -> int:
    total = 0
    for path in note_files(directory):
        with open(path, "rb") as f:
            total += len(f.read().decode("utf-8"))
    return total


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        start = time.perf_counter()
        generate(directory, args.notes)
        print(f"generated {args.notes} notes in {time.perf_counter() - start:.2f} s")

        def load() -> object:
            library = load_library(directory, DEFAULT_TOPICS_FILE)
            assert len(library.notes) == args.notes
            return library

        floor = best_of(args.repeat, lambda: read_only(directory))
        loaded = best_of(args.repeat, load)
        fast_toml = note_reader.fast_toml
        note_reader.fast_toml = lambda text: None  # every header through tomllib
        try:
            slow = best_of(args.repeat, load)
        finally:
            note_reader.fast_toml = fast_toml
        seeds = best_of(args.repeat, load_library)

    per_note = loaded / args.notes * 1e6
    print(f"read files only         {floor * 1000:8.1f} ms")
    print(
        f"load_library            {loaded * 1000:8.1f} ms  ({per_note:.0f} us/note, "
        f"{loaded / floor:.1f}x reading)"
    )
    print(f"load_library, tomllib   {slow * 1000:8.1f} ms  ({slow / loaded:.1f}x the fast path)")
    print(f"the 16 seed notes       {seeds * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

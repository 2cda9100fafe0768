"""How fast a search reads notes with long guidance; prints figures, asserts nothing.

    python bench/bench_search.py [--notes 20] [--repeat 5]

The shipped notes and `notes` more, each with a guidance of SEARCHED_GUIDANCE_CHARS
(what a search reads at most of one) in English and Chinese prose holding none of the
queries' words, so every word pattern runs through every text to its end. Each query is
timed in the ranked `/notes search` and in the pages' filter (best of `repeat`); the
machine is shared, so figures are printed, never asserted. Run it before and after a
change to bot/search.py's patterns and compare.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.library import load_library  # noqa: E402
from bot.search import FILTER, RANKED, SEARCHED_GUIDANCE_CHARS, search_notes  # noqa: E402

# Latin words (whole words in the reply, compounds in the filter), a number, a word
# with joiners at its ends (`_custom_ops`), a CJK term (a substring in both), and a word
# of several stems (`tying`: `ti`, `ty`) opening with a letter the prose is full of
QUERIES = ("zeroth", "kv_cache", "allreduce", "999999", "_custom_ops", "零拷贝", "tying")
PROSE = "The scheduler waits on the worker; 调度器等待工作进程。 "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    shipped = load_library()
    guidance = "值得精读。" + (PROSE * (SEARCHED_GUIDANCE_CHARS // len(PROSE) + 1))
    long = [
        n.model_copy(update={"id": f"{n.id}-long{i}", "guidance": guidance})
        for i, n in zip(range(args.notes), shipped.notes * args.notes, strict=False)
    ]
    notes = [*shipped.notes, *long]
    print(f"{len(notes)} notes, {len(long)} with {len(guidance):,} characters of guidance")
    for query in QUERIES:
        for name, mode in (("ranked", RANKED), ("filter", FILTER)):
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                search_notes(notes, query, mode, topics=shipped.topics)
                best = min(best, time.perf_counter() - start)
            print(f"{query!r:>14} {name}: {best * 1000:8.1f} ms")


if __name__ == "__main__":
    main()

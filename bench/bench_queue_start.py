"""What opening the delivery queue costs on a large database; prints figures, asserts nothing.

    python bench/bench_queue_start.py [--rows N] [--quick]

A database of N deliveries (200,000 by default: weeks of a busy repository, kept by
retention) with payloads of 2 KB to 25 KB, as GitHub's pull_request bodies run, 1 in 50
failed. Times `DeliveryQueue(...)`, as the server's start and every `review-notes retry`
do it, and the `review-notes retry` listing (queue, failed deliveries, count). The
baseline, timed in the same run on the same file: the queue opened once a sweep of
GitHub's delivery log has kept where it left off (the server with an App key), when no
check of the bot's own old rows runs at all. Token mode and dry runs keep no sweep.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.db import Database  # noqa: E402
from bot.queue import DeliveryQueue  # noqa: E402
from bot.times import utcnow  # noqa: E402


def build(path: Path, rows: int) -> None:
    """`rows` deliveries, written straight into the queue's own schema."""
    DeliveryQueue(Database(path)).db.close()
    rnd = random.Random(29)
    bodies = [json.dumps({"body": "x" * rnd.randint(2_000, 25_000)}) for _ in range(64)]
    db = Database(path)
    now = utcnow()
    batch = 5_000
    for start in range(0, rows, batch):
        with db.tx() as conn:
            conn.executemany(
                "INSERT INTO deliveries (id, event, action, payload, repo, pr_number, pr_key,"
                " state, received_at, updated_at) VALUES (?, 'pull_request', 'synchronize',"
                " ?, 'o/r', ?, ?, ?, ?, ?)",
                (
                    (
                        f"guid-{i}",
                        bodies[i % len(bodies)],
                        i % 3000,
                        f"o/r#{i % 3000}",
                        "failed" if i % 50 == 0 else "done",
                        now,
                        now,
                    )
                    for i in range(start, min(start + batch, rows))
                ),
            )
    db.close()


def timed(run: Callable[[], object], repeat: int) -> float:
    """Median seconds of `repeat` runs (the file is in the OS's cache after the first)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def open_queue(path: Path) -> None:
    DeliveryQueue(Database(path)).db.close()


def retry_listing(path: Path) -> None:
    """What `review-notes retry` (no ids) reads: bot.cli_server._retry."""
    queue = DeliveryQueue(Database(path))
    queue.failed(limit=1000)
    queue.counts()
    queue.db.close()


def keep_sweep(path: Path, keep: bool) -> None:
    db = Database(path)
    if keep:
        DeliveryQueue(db).keep_sweep_since(utcnow())
    else:
        db.execute("DELETE FROM redelivery WHERE key = 'since'")
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--quick", action="store_true", help="20,000 rows")
    args = parser.parse_args()
    rows = 20_000 if args.quick else args.rows
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "q.sqlite3"
        t = time.perf_counter()
        build(path, rows)
        size = path.stat().st_size / 1e6
        print(f"{rows:,} deliveries, {size:,.0f} MB, built in {time.perf_counter() - t:.1f} s")
        open_queue(path)
        cases = {}
        for label, keep in (("sweep kept (baseline)", True), ("no sweep kept", False)):
            keep_sweep(path, keep)
            cases[label] = (
                timed(lambda: open_queue(path), 5),
                timed(lambda: retry_listing(path), 5),
            )
        base_open, base_list = cases["sweep kept (baseline)"]
        print(f"{'':24} {'DeliveryQueue()':>16} {'ratio':>6} {'retry listing':>14} {'ratio':>6}")
        for label, (opened, listed) in cases.items():
            print(
                f"{label:24} {opened * 1000:13.1f} ms {opened / base_open:6.1f}"
                f" {listed * 1000:11.1f} ms {listed / base_list:6.1f}"
            )


if __name__ == "__main__":
    main()

"""How idle workers wait for the queue; prints figures, asserts nothing.

    python bench/bench_worker_waits.py [--idle S] [--due N] [--quick]

Workers as the server runs them (config/bot.toml's `workers`, the default fallback poll)
over a real SQLite queue. Three figures:
- wake-ups per idle minute: the claims the workers make, all of them together, over
  `--idle` seconds with nothing queued, scaled to a minute (each one a write transaction
  on the database for nothing);
- delay past due: for `--due` deliveries queued to wait (as a deferred comment update,
  an outage's put-back, a files re-check are), from the time each was due to the start
  of its run: median and worst;
- a new delivery's wait: from `enqueue` to the start of its run, on idle workers.
Run it on the code before and after a change to the wait to compare.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.db import Database  # noqa: E402
from bot.queue import DeliveryQueue  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.times import STORED_TIME, utcnow  # noqa: E402
from bot.workers import Workers  # noqa: E402


def _started(started: dict[str, datetime], done: threading.Event, want: int):
    def process(delivery) -> None:
        started[delivery.id] = datetime.now(UTC)
        if len(started) >= want:
            done.set()

    return process


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--idle", type=float, default=20.0, help="seconds idle (default 20)")
    ap.add_argument("--due", type=int, default=8, help="deliveries queued to wait (default 8)")
    ap.add_argument("--quick", action="store_true", help="3 s idle, 3 deliveries")
    args = ap.parse_args()
    idle, due = (3.0, 3) if args.quick else (args.idle, args.due)
    count = Settings.model_fields["workers"].default
    with tempfile.TemporaryDirectory() as tmp:
        q = DeliveryQueue(Database(Path(tmp) / "q.sqlite3"))
        claims: list[float] = []
        claim = q.claim
        q.claim = lambda: claims.append(time.monotonic()) or claim()  # type: ignore[method-assign]
        started: dict[str, datetime] = {}
        done = threading.Event()
        w = Workers(q, _started(started, done, due + 1), count)
        poll = getattr(w, "poll_seconds", getattr(w, "POLL_SECONDS", None))
        w.start()
        try:
            time.sleep(0.2)  # each worker found nothing and waits
            claims.clear()
            time.sleep(idle)
            idle_claims = len(claims)
            wanted: dict[str, datetime] = {}
            for i in range(due):  # due at uneven times, off any poll's beat
                at = utcnow(after_s=0.5 + i * 0.37)
                wanted[f"due-{i}"] = datetime.strptime(at, STORED_TIME).replace(tzinfo=UTC)
                q.enqueue(f"due-{i}", "pull_request", "opened", {}, "o/r", i + 1, not_before=at)
            time.sleep(0.5 + due * 0.37 + 0.3)  # all were due: the workers idle again
            queued = datetime.now(UTC)
            q.enqueue("new", "pull_request", "opened", {}, "o/r", 999)
            if not done.wait(120):
                sys.exit(f"not all ran: {sorted(started)}")
        finally:
            w.stop()
            q.db.close()
    late = [(started[k] - at).total_seconds() * 1000 for k, at in wanted.items()]
    new = (started["new"] - queued).total_seconds() * 1000
    print(f"{count} workers, fallback poll {poll} s")
    print(f"wake-ups per idle minute: {idle_claims / idle * 60:.1f} ({idle_claims} in {idle:g} s)")
    print(
        f"delay past due, {due} deliveries: median {statistics.median(late):.0f} ms,"
        f" worst {max(late):.0f} ms"
    )
    print(f"a new delivery's wait on idle workers: {new:.0f} ms")


if __name__ == "__main__":
    main()

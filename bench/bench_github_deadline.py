"""What a GitHub call's whole-call deadline costs each call; prints figures, asserts nothing.

    python bench/bench_github_deadline.py [--calls N] [--threads T] [--quick]

`within_deadline` (bot.github_deadline) around a call that answers at once, so that the
deadline's own cost is all there is, against that call bare: in one thread, then in
`--threads` threads at once (as a client's workers call). Each figure is the time per call
over the bare call's, for the one watchdog thread of a client (`Watchdog`) and for a
threading.Timer per call (how each call was watched before; kept here alone), run in this
process one after the other; then the ratio of the two, and the threads each started.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.github_deadline import PastDeadline, Watchdog, within_deadline  # noqa: E402

DEADLINE = 60.0  # seconds: REVIEW_NOTES_HTTP_DEADLINE's default, never reached here


class _TimerWatch:
    """A call's deadline as a threading.Timer of its own (the way replaced; its shut of
    the connection left out: no call here reaches its deadline)."""

    def __init__(self, seconds: float):
        self._lock = threading.Lock()
        self._over = False
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def over(self) -> None:
        with self._lock:
            self._over = True
        self._timer.cancel()

    def _expire(self) -> None:
        with self._lock:
            if not self._over:
                self.expired = True


_timer_current = threading.local()


def within_timer(seconds: float, call: Callable[[], str]) -> str:
    """`within_deadline` as it was: a Timer started and cancelled around each call."""
    watch = _TimerWatch(seconds)
    _timer_current.watch = watch
    watch._timer.start()
    try:
        answer = call()
    finally:
        watch.over()
        _timer_current.watch = None
    if watch.expired:
        raise PastDeadline(seconds)
    return answer


def _answer() -> str:
    return "answer"


def _per_call(way: Callable[[], str], calls: int, threads: int) -> float:
    """Seconds per call, `calls` made in each of `threads` threads at once."""

    def run(_: int) -> None:
        for _ in range(calls):
            way()

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, range(threads)))
    return (time.perf_counter() - started) / (calls * threads)


def _threads_started(way: Callable[..., str], calls: int) -> int:
    """Threads seen by `calls` calls made `way` that were not there before them."""
    before = set(threading.enumerate())
    seen: set[threading.Thread] = set()

    def call() -> str:
        seen.update(threading.enumerate())
        return "answer"

    for _ in range(calls):
        way(call)
    return len(seen - before)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=20000, help="calls per thread (20000)")
    ap.add_argument("--threads", type=int, default=8, help="threads at once (8)")
    ap.add_argument("--quick", action="store_true", help="2000 calls per thread")
    args = ap.parse_args()
    calls = 2000 if args.quick else args.calls
    watchdog = Watchdog()
    ways: dict[str, Callable[..., str]] = {
        "bare call": lambda call=_answer: call(),
        "Timer per call": lambda call=_answer: within_timer(DEADLINE, call),
        "one watchdog": _on(watchdog),
    }
    print(f"{calls} calls a thread, deadline {DEADLINE:g}s (never reached)")
    for threads in (1, args.threads):
        for way in ways.values():  # warm-up: the pool's threads, the watchdog's start
            _per_call(way, calls // 10, threads)
        times = {name: _per_call(way, calls, threads) for name, way in ways.items()}
        bare = times["bare call"]
        timer, dog = times["Timer per call"] - bare, times["one watchdog"] - bare
        print(f"{threads} thread(s): per call, over the bare call ({bare * 1e6:.2f} µs):")
        print(f"  Timer per call  {timer * 1e6:8.2f} µs")
        print(f"  one watchdog    {dog * 1e6:8.2f} µs")
        print(f"  ratio           {timer / dog:8.1f}x")
    watchdog.close()
    fresh = Watchdog()  # its thread not started yet
    for name, way in (("Timer per call", ways["Timer per call"]), ("one watchdog", _on(fresh))):
        print(f"threads started over 1000 calls, {name}: {_threads_started(way, 1000)}")
    fresh.close()


def _on(watchdog: Watchdog) -> Callable[..., str]:
    return lambda call=_answer: within_deadline(DEADLINE, call, watchdog)


if __name__ == "__main__":
    main()

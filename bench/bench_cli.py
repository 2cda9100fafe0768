"""How fast the command line answers; prints figures, asserts nothing.

    python bench/bench_cli.py [--runs N] [CHECKOUT ...]

Wall time of each `review-notes` command a curator or an operator runs, as a new process
(the interpreter's start and the imports included), best of N runs: `--version`, `retry
--help`, `notes check` and `match --title` on the shipped notes, `retry` and `notes
feedback` on an empty database, and a dry-run `serve` until its /healthz answers 200.
Given other checkouts (another branch's, as a before), their runs are interleaved with
this one's, so that the machine's load falls on all alike; each column is one checkout.
Where the time goes: `python -X importtime -m bot.cli ...`.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS: dict[str, list[str]] = {
    "--version": ["--version"],
    "retry --help": ["retry", "--help"],
    "notes check": ["notes", "check"],
    "match --title": ["match", "--title", "[Core] Keep prefix-cache hits for EAGLE"],
    "retry": ["retry"],
    "notes feedback": ["notes", "feedback"],
}
SERVE = "serve to /healthz 200"


def environment(checkout: Path, db: Path) -> dict[str, str]:
    """No credentials (a dry run), the checkout's code, a database of the run's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "REVIEW_NOTES_"))}
    return env | {"PYTHONPATH": str(checkout), "REVIEW_NOTES_DB_PATH": str(db)}


def run(checkout: Path, db: Path, args: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *args],
        env=environment(checkout, db),
        cwd=db.parent,  # not a checkout: -m would import the code found there
        capture_output=True,
    )
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{checkout}: {' '.join(args)}: {done.stderr.decode()[-500:]}")
    return took


def serve(checkout: Path, db: Path) -> float:
    """From the start of `serve` to its first /healthz 200."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    start = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--port", str(port)],
        env=environment(checkout, db),
        cwd=db.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while time.perf_counter() - start < 60:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return time.perf_counter() - start
            except OSError:  # not listening yet
                time.sleep(0.005)
        raise SystemExit(f"{checkout}: serve answered no /healthz in 60 s")
    finally:
        server.terminate()
        server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each (best kept)")
    parser.add_argument("checkouts", nargs="*", type=Path, help="other checkouts to compare")
    args = parser.parse_args()
    checkouts = [ROOT, *(c.resolve() for c in args.checkouts)]
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {c: Path(tmp, str(i), "bot.sqlite3") for i, c in enumerate(checkouts)}
        for checkout, db in dbs.items():
            db.parent.mkdir()
            serve(checkout, db)  # creates the database `retry` and `notes feedback` read
        best: dict[tuple[str, Path], float] = {}
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                for checkout, db in dbs.items():
                    took = run(checkout, db, argv)
                    best[name, checkout] = min(best.get((name, checkout), took), took)
            for checkout, db in dbs.items():
                took = serve(checkout, db)
                best[SERVE, checkout] = min(best.get((SERVE, checkout), took), took)
    print(f"best of {args.runs} runs, seconds; " + ", ".join(map(str, checkouts)))
    for name in [*COMMANDS, SERVE]:
        figures = "  ".join(f"{best[name, c]:6.3f}" for c in checkouts)
        print(f"  {name:<22} {figures}")


if __name__ == "__main__":
    main()

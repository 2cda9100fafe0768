"""How fast the command line answers; prints figures, asserts nothing.

    python bench/bench_cli.py [--runs N] [--imports N] [CHECKOUT ...]

Wall time of each `review-notes` command a curator or an operator runs, as a new process
(the interpreter's start and the imports included), median and best of N runs, and the
least CPU time (user and system) of the process, which a loaded machine moves less:
`--version`, `--help`, `retry --help`, `notes check` and `match --title` on the shipped
notes, `retry` and `notes feedback` on an empty database, `replay` refused (no server
listens), and a dry-run `serve` until its /healthz answers 200. Given other checkouts
(another branch's, as a before), their runs are interleaved with this one's, so that the
machine's load falls on all alike; each column is one checkout. With --imports, where the
time goes: each command's N costliest imports in this checkout (`python -X importtime`,
the time of a module with what it imports).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# a port nothing listens on: `replay` reads its settings and the payload, then is refused
NO_SERVER = "http://127.0.0.1:9/webhook"
COMMANDS: dict[str, list[str]] = {
    "--version": ["--version"],
    "--help": ["--help"],
    "retry --help": ["retry", "--help"],
    "notes check": ["notes", "check"],
    "match --title": ["match", "--title", "[Core] Keep prefix-cache hits for EAGLE"],
    "retry": ["retry"],
    "notes feedback": ["notes", "feedback"],
    "replay (refused)": ["replay", "{root}/examples/pr-52419-opened.json", "--url", NO_SERVER],
}
SERVE = "serve to /healthz 200"


def environment(checkout: Path, db: Path) -> dict[str, str]:
    """No credentials (a dry run), the checkout's code, a database of the run's own; the
    bytecode cached as an installed package has it (without, a checkout whose cache is
    missing or stale compiles its modules from source at every run, and is slower)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "REVIEW_NOTES_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env | {"PYTHONPATH": str(checkout), "REVIEW_NOTES_DB_PATH": str(db)}


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def run(checkout: Path, db: Path, args: list[str]) -> tuple[float, float]:
    """The wall time and the CPU time of one run."""
    cpu = cpu_of_children()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *(a.format(root=checkout) for a in args)],
        env=environment(checkout, db),
        cwd=db.parent,  # not a checkout: -m would import the code found there
        capture_output=True,
    )
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{checkout}: {' '.join(args)}: {done.stderr.decode()[-500:]}")
    return took, cpu_of_children() - cpu


def costliest_imports(db: Path, args: list[str], count: int) -> list[tuple[int, str]]:
    """The `count` top-level imports of a run of this checkout that took longest, in µs
    with what each imported (as `-X importtime` writes them on stderr)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bot.cli"] + [a.format(root=ROOT) for a in args],
        env=environment(ROOT, db),
        cwd=db.parent,
        capture_output=True,
        text=True,
    )
    found = re.findall(r"^import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", done.stderr, re.M)
    return sorted(((int(us), name) for us, name in found), reverse=True)[:count]


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
    parser.add_argument("--runs", type=int, default=5, help="runs of each")
    parser.add_argument("--imports", type=int, default=0, help="costliest imports listed")
    parser.add_argument("checkouts", nargs="*", type=Path, help="other checkouts to compare")
    args = parser.parse_args()
    checkouts = [ROOT, *(c.resolve() for c in args.checkouts)]
    with tempfile.TemporaryDirectory() as tmp:
        dbs = {c: Path(tmp, str(i), "bot.sqlite3") for i, c in enumerate(checkouts)}
        for checkout, db in dbs.items():
            db.parent.mkdir()
            serve(checkout, db)  # creates the database `retry` and `notes feedback` read
            for argv in COMMANDS.values():  # untimed: each module's bytecode written
                run(checkout, db, argv)
        took: dict[tuple[str, Path], list[float]] = {}
        cpu: dict[tuple[str, Path], list[float]] = {}
        for _ in range(args.runs):
            for name, argv in COMMANDS.items():
                for checkout, db in dbs.items():
                    wall, used = run(checkout, db, argv)
                    took.setdefault((name, checkout), []).append(wall)
                    cpu.setdefault((name, checkout), []).append(used)
            for checkout, db in dbs.items():
                took.setdefault((SERVE, checkout), []).append(serve(checkout, db))
        print(
            f"{args.runs} runs, seconds: wall median (best), least CPU; "
            + ", ".join(map(str, checkouts))
        )
        for name in [*COMMANDS, SERVE]:
            figures = "  ".join(
                f"{statistics.median(took[name, c]):6.3f} ({min(took[name, c]):5.3f}) "
                + (f"{min(cpu[name, c]):5.3f}" if (name, c) in cpu else "    -")
                for c in checkouts
            )
            print(f"  {name:<22} {figures}")
        if args.imports:
            print(f"costliest imports (ms, with what they import), {ROOT}:")
            for name, argv in COMMANDS.items():
                top = costliest_imports(dbs[ROOT], argv, args.imports)
                print(f"  {name:<22} " + ", ".join(f"{m} {us / 1000:.0f}" for us, m in top))


if __name__ == "__main__":
    main()

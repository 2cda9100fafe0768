"""The benchmarks still run (smoke runs: figures printed, no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("script", "args", "printed"),
    [
        ("bench_matching.py", ["--quick"], "generated library: 10000 notes, 1000 topics"),
        ("bench_library.py", ["--notes", "200", "--repeat", "1"], "the 16 seed notes"),
        ("bench_load.py", ["--quick"], "failed deliveries: 0"),
        ("bench_commands.py", ["--quick"], "x prose"),
        ("bench_queue_start.py", ["--rows", "2000"], "no sweep kept"),
        ("bench_worker_waits.py", ["--quick"], "wake-ups per idle minute"),
        ("bench_scenarios.py", ["--from", "9", "--to", "9"], "1 of 1 seeds passed"),
    ],
)
def test_benchmark_runs_and_prints_its_figures(script, args, printed):
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert printed in run.stdout

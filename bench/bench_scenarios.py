"""Run many seeds of the randomized PR-event scenarios; print how many kept every invariant.

    python bench/bench_scenarios.py [--seeds N | --from A --to B]

Each seed is tests/test_scenarios.py's (`run_seed`): PR events in and out of order,
redeliveries, GitHub faults, a maintainer deleting (GitHub's `deleted` webhook at once,
late, twice or never) or rewriting the notes comment, `/notes off` and `on` said by the
PR's author or a writer, a human copying its marker, outages, restarts; even seeds play
the deletion rules' orders densely (test_scenarios.mode); then README's promises
checked. CI runs a handful; this runs as many as asked (from seed 0 too), each against
its own fake GitHub and database, and names each failing seed with its first broken
invariant (rerun one with `SCENARIO_SEEDS=S-S pytest tests/test_scenarios.py` for the
whole story).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import AppKey, new_app_key  # noqa: E402
from tests.fake_github import (  # noqa: E402
    DEFAULT_APP_ID,
    DEFAULT_APP_SLUG,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeGitHub,
)
from tests.test_scenarios import run_seed  # noqa: E402


def one(seed: int, key: AppKey) -> str | None:
    """None when the seed kept every invariant, else the first one it broke."""
    fake = FakeGitHub(
        app_public_key=key.public_pem, app_id=DEFAULT_APP_ID, app_slug=DEFAULT_APP_SLUG
    )
    fake.add_installation(DEFAULT_INSTALLATION_ID, [DEFAULT_REPO])
    with fake, tempfile.TemporaryDirectory() as tmp:
        try:
            run_seed(seed, Path(tmp), fake, key)
        except AssertionError as e:
            return str(e).splitlines()[0]
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100, help="seeds 1..N")
    parser.add_argument("--from", dest="start", type=int, help="first seed (with --to)")
    parser.add_argument("--to", type=int, help="last seed")
    args = parser.parse_args()
    seeds = range(args.start, args.to + 1) if args.start is not None else range(1, args.seeds + 1)
    for name in list(os.environ):  # the scenarios set their own; a developer's would leak in
        if name.startswith(("GITHUB_", "REVIEW_NOTES_")):
            del os.environ[name]
    logging.disable(logging.CRITICAL)  # a fault's retry lines, by the hundred
    key, failed, began = new_app_key(), [], time.monotonic()
    for seed in seeds:
        broken = one(seed, key)
        if broken:
            failed.append(broken)
            print(broken, flush=True)
    took = time.monotonic() - began
    passed, each = len(seeds) - len(failed), took / len(seeds)
    print(f"{passed} of {len(seeds)} seeds passed ({each:.1f} s a seed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

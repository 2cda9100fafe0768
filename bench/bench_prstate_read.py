"""What reading a PR's state costs (`PRStore.get`); prints figures, asserts nothing.

    python bench/bench_prstate_read.py [--repeat N]

`PRStore.get` reads every JSON value of a PR's state around when damaged
(`read_values`). This times it, in one process, against the floor: the same row
fetched and each JSON value parsed once, with no check. Two rows: a big one (3,000
files, 2,000 code names, 50 notes with their reasons) and a typical one (40 files,
30 code names, 3 notes). The ratio is what reading around costs over parsing alone.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.db import Database  # noqa: E402
from bot.feedback_store import FeedbackStore  # noqa: E402
from bot.prstate import PendingUpdate, PRState, PRStore, WriteBack, WriteBackHistory  # noqa: E402

JSON_VALUES = (
    "notes",
    "files",
    "code_names",
    "incidental",
    "renamed",
    "dismissed",
    "evidence",
    "pending",
    "write_back",
    "given_back",
)


def state(number: int, files: int, names: int, notes: int) -> PRState:
    paths = tuple(f"vllm/module_{i // 50}/file_{i}.py" for i in range(files))
    ids = tuple(f"vllm-{i:08d}" for i in range(notes))
    return PRState(
        "o/r",
        number,
        comment_id=10 + number,
        head_sha="a" * 40,
        notes=ids,
        files_sha="a" * 40,
        files=paths,
        code_names={f"name_{i}": paths[i % files : i % files + 2] for i in range(names)},
        incidental=frozenset(paths[: files // 10]),
        renamed={p: p + ".old" for p in paths[: files // 20]},
        dismissed=ids[:2],
        evidence={i: ("vllm/a.py: a reason", "vllm/b.py: another") for i in ids},
        pending=PendingUpdate((1, 2), True, (3,), "2026-12-01T10:00:00Z/~"),
        write_back=WriteBack(
            10, "their words", "2026-12-01T10:00:00Z/~", WriteBackHistory("wrote")
        ),
        given_back=(41, 42),
    )


def per_read(reads: list[Callable[[], object]], repeat: int) -> list[float]:
    """Each read's best of seven runs of `repeat`, in ms a read: runs taken in turn (so a
    busy spell of the machine falls on both) and the collector off, as timeit does."""
    best = [float("inf")] * len(reads)
    gc.disable()
    try:
        for _ in range(7):
            for i, read in enumerate(reads):
                start = time.perf_counter()
                for _ in range(repeat):
                    read()
                best[i] = min(best[i], time.perf_counter() - start)
    finally:
        gc.enable()
    return [b / repeat * 1000 for b in best]


def parsed_once(store: PRStore, number: int) -> dict[str, object]:
    """The floor: the row fetched, each JSON value parsed once, nothing checked."""
    row = store.db.execute("SELECT * FROM pr_state WHERE repo = ? AND number = ?", ("o/r", number))
    r = row[0]
    return {c: json.loads(r[c]) if r[c] is not None else None for c in JSON_VALUES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="reads a run (typical row)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Database(Path(tmp) / "b.sqlite3")
        FeedbackStore(db)  # (its table: a damaged `dismissed` reads the marks)
        store = PRStore(db)
        rows = {"big": state(1, 3000, 2000, 50), "typical": state(2, 40, 30, 3)}
        for row in rows.values():
            store.put(row)
        print("PRStore.get against the floor (the row fetched, each JSON value parsed once):")
        for name, row in rows.items():
            repeat = max(1, args.repeat // 20) if name == "big" else args.repeat
            assert store.get("o/r", row.number).files == row.files  # (reads what was put)
            reads = [partial(store.get, "o/r", row.number), partial(parsed_once, store, row.number)]
            got, floor = per_read(reads, repeat)
            print(
                f"  {name} row ({len(row.files or ())} files, {len(row.code_names)} code"
                f" names): get {got:.3f} ms, floor {floor:.3f} ms, ratio {got / floor:.2f}"
            )
        db.close()


if __name__ == "__main__":
    main()

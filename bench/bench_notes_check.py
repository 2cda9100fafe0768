"""How fast `review-notes notes check` answers on a library that loads, warnings and all.

    .venv/bin/python bench/bench_notes_check.py [--notes 1000] [--warnings 150]
        [--globs 2000] [--repeat 3]

Runs the command in this process (imports excluded: bench_cli.py times a new process) on
the shipped notes, on a generated library of `notes` notes (bench_library.py's), and on
the shipped notes plus one note with `warnings` broad paths, a warning each. Each is run
as the code is and as it was (each warning reading its note's file and scanning its
header again, the header's strings scanned a character at a time: the scanner that
tests/test_check.py keeps), with the ratio; the two must print the same. Then the path
glob index (`bot.pathindex`, built by `notes check`, `match` and the server's start) on
`globs` globs whose literal runs are each a prefix of the next (`*jj*`, `*jjj*`, ...),
as it is and listing each run's shorter runs as it did. Not a test: the machine is
shared, so figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from bench_library import generate  # noqa: E402
from test_check import CharByCharScanner  # noqa: E402

from bot import cli_notes, library, pathindex, toml_lines  # noqa: E402
from bot.cli import main  # noqa: E402
from bot.globs import compile_glob  # noqa: E402
from bot.library import DEFAULT_NOTES_DIR  # noqa: E402


def check(notes_dir: Path) -> str:
    """What `notes check` prints (it must pass: warnings, no problems)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["notes", "check", str(notes_dir)])
    if status != 0:
        raise SystemExit(f"notes check {notes_dir}: exit {status}\n{err.getvalue()[-2000:]}")
    return out.getvalue()


def best_of(repeat: int, notes_dir: Path) -> tuple[float, str]:
    best, said = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        said = check(notes_dir)
        best = min(best, time.perf_counter() - start)
    return best, said


def a_read_per_warning(notes_dir: Path, loaded: library.Library) -> library.NoteHeader:
    """The header lookup as it was: the file read and scanned again for each warning."""
    return lambda note: library.header_of(notes_dir, loaded, note)


@contextlib.contextmanager
def as_it_was() -> Iterator[None]:
    """`notes check` as it was: a read per warning, a character at a time."""
    kept = cli_notes.headers_of, toml_lines._Scanner
    cli_notes.headers_of, toml_lines._Scanner = a_read_per_warning, CharByCharScanner
    try:
        yield
    finally:
        cli_notes.headers_of, toml_lines._Scanner = kept


def prefix_lists(runs: Iterable[str]) -> dict[str, str | None]:
    """Each run's shorter runs found as the index found them before: every prefix sliced
    and looked up (n squared slices of up to n characters for n nested runs)."""
    known = set(runs)
    lists = {r: [r[:k] for k in range(1, len(r)) if r[:k] in known] for r in known}
    return {r: (found[-1] if found else None) for r, found in lists.items()}


def index_build(repeat: int, globs: list[tuple[str, int]]) -> float:
    best = float("inf")
    for _ in range(repeat):
        compile_glob.cache_clear()  # each glob compiled afresh, as at a start
        start = time.perf_counter()
        pathindex.GlobIndex(globs)
        best = min(best, time.perf_counter() - start)
    return best


def one_note_warned(directory: Path, warnings: int) -> None:
    """The shipped notes, one of them given `warnings` broad paths, one a line."""
    shutil.copytree(DEFAULT_NOTES_DIR, directory)
    note = sorted(directory.glob("*.md"))[0]
    text = note.read_text("utf-8")
    paths = "".join(f'  "vllm_part_{i:04d}/**/*.py",\n' for i in range(warnings))
    start = text.index("\npaths = ") + 1
    end = text.index("\n", start)
    note.write_text(text[:start] + f"paths = [\n{paths}]" + text[end:], "utf-8")


def main_bench() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1_000)
    parser.add_argument("--warnings", type=int, default=150)
    parser.add_argument("--globs", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        generated, warned = Path(tmp, "generated"), Path(tmp, "warned")
        generated.mkdir()
        generate(generated, args.notes)
        one_note_warned(warned, args.warnings)
        cases = {
            "shipped notes": DEFAULT_NOTES_DIR,
            f"{args.notes:,} generated notes": generated,
            f"one note with {args.warnings} warnings": warned,
        }
        check(DEFAULT_NOTES_DIR)  # imports and first-use caches out of the figures
        print(f"notes check, best of {args.repeat}, seconds: now, before, ratio")
        for name, notes_dir in cases.items():
            now, said = best_of(args.repeat, notes_dir)
            with as_it_was():
                before, said_before = best_of(args.repeat, notes_dir)
            lines = said.count("\n") - 1  # the `ok:` line
            same = "same output" if said == said_before else "OUTPUT DIFFERS"
            print(
                f"  {name:<32} {now:7.3f} {before:7.3f} {before / now:6.1f}x"
                f"  ({lines:,} warnings and hints, {same})"
            )
    print(f"glob index build, best of {args.repeat}, seconds: now, before, ratio")
    for count in sorted({args.globs // 4, args.globs // 2, args.globs}):
        globs = [(f"*{'j' * n}*", n) for n in range(2, count + 2)]
        now = index_build(args.repeat, globs)
        kept = pathindex._shorter_runs
        pathindex._shorter_runs = prefix_lists
        try:
            before = index_build(args.repeat, globs)
        finally:
            pathindex._shorter_runs = kept
        name = f"{count:,} nested globs"
        print(f"  {name:<32} {now:7.3f} {before:7.3f} {before / now:6.1f}x")


if __name__ == "__main__":
    main_bench()

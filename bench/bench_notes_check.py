"""How fast `review-notes notes check` answers on a library that loads, warnings and all.

    .venv/bin/python bench/bench_notes_check.py [--notes 1000] [--warnings 150] [--repeat 3]

Runs the command in this process (imports excluded: bench_cli.py times a new process) on
the shipped notes, on a generated library of `notes` notes (bench_library.py's), and on
the shipped notes plus one note with `warnings` broad paths, a warning each. Each is run
as the code is, and with each warning reading its note's file and scanning its header
again (before the headers were kept for the run), with the ratio; the two must print the
same. Not a test: the machine is shared, so figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_library import generate  # noqa: E402

from bot import cli_notes, library  # noqa: E402
from bot.cli import main  # noqa: E402
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
        kept = cli_notes.headers_of
        print(f"best of {args.repeat}, seconds: headers kept, a read per warning, ratio")
        for name, notes_dir in cases.items():
            now, said = best_of(args.repeat, notes_dir)
            cli_notes.headers_of = a_read_per_warning
            try:
                before, said_before = best_of(args.repeat, notes_dir)
            finally:
                cli_notes.headers_of = kept
            lines = said.count("\n") - 1  # the `ok:` line
            same = "same output" if said == said_before else "OUTPUT DIFFERS"
            print(
                f"  {name:<32} {now:7.3f} {before:7.3f} {before / now:6.1f}x"
                f"  ({lines:,} warnings and hints, {same})"
            )


if __name__ == "__main__":
    main_bench()

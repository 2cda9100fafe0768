"""How fast slash commands are read from a comment; prints figures, asserts nothing.

    python bench/bench_commands.py [--quick]

Comments of GitHub's largest size (65,536 characters), each ending in a command so the
comment must be rendered: ordinary prose, then texts built to be slow for a
Markdown parser (brackets, backticks, HTML openers, deep lists) or for the look for
an email reply's quoted header (lines of mail header fields). Each is printed with
its ratio to the prose comment, timed in the same run; a comment with no command at a
line's start is not parsed at all, and its figure is printed too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.commands import Reading, load_command_config  # noqa: E402

SIZE = 65_536
COMMAND = "\n/notes why"  # in the same paragraph: its inline text must be read
READING = Reading.of(load_command_config())  # the caps a run reads with
SENDER = "From: a ***@***.***>\n"  # Outlook's header field naming GitHub's sender


def comment(body: str) -> str:
    return body[: SIZE - len(COMMAND)] + COMMAND


CASES: dict[str, str] = {
    "prose (baseline)": comment(
        "Thanks, `kv_cache` looks right; see the [docs](https://x).\n" * 2000
    ),
    "no command at a line start": ("LGTM, run /notes why later.\n" * 3000)[:SIZE],
    "brackets [": comment("[" * SIZE),
    "image openers ![": comment("![" * SIZE),
    "link openers [a](": comment("[a](" * SIZE),
    "backtick runs": comment("`" * SIZE),
    "backtick pairs": comment("` " * SIZE),
    "growing backtick runs": comment("".join("`" * i + " " for i in range(1, 400))),
    "<pre without >": comment("<pre " * SIZE),
    "<!-- never closed": comment("<!--" * SIZE),
    "< characters": comment("<" * SIZE),
    "entities &#": comment("&#" * SIZE),
    "backslashes": comment("\\" * SIZE),
    "one-line paragraphs": comment("a\n" * SIZE),
    "quote markers > ": comment("> " * SIZE),
    "list markers - ": comment("- " * SIZE),
    "nested list, 2 levels a line": comment(
        "\n".join("  " * (i % 60) + "- a" for i in range(SIZE // 40))
    ),
    "deep quote, lazy lines": comment(">" * 99 + "a\n" + "b\n" * SIZE),
    "quotes 32,768 deep": comment("> " * SIZE),
    "raw <div> 13,000 deep": comment("<div>" * SIZE),
    "<q/> 8,000 deep, then commands": ("<q/>" * 8000 + "\n/notes why" * 4600)[:SIZE],
    "<span> 398 deep, then commands": ("<span>" * 398 + "\n/notes" * 9000)[:SIZE],
    "quotes 390 deep, lazy commands": ("> " * 390 + "x" + "\n/notes" * 9000)[:SIZE],
    "399 commands opening <b>": ("/notes <b>\n" * 399 + "a\n" * SIZE)[:SIZE],
    "commands on every line": "\n".join(["/notes why"] * (SIZE // 11)),
    "a command in every paragraph": "\n\n".join(["/notes why"] * (SIZE // 12)),
    # rendered to megabytes: cmark-gfm pads each one-cell row to the header's width
    "table of 300 columns, 1-cell rows": (
        "/notes why\n" + "|a" * 300 + "|\n" + "|-" * 300 + "|\n" + "a\n" * SIZE
    )[:SIZE],
    "footnote references [^a]": ("[^a]: x\n\n/notes why\n" + "[^a]" * SIZE)[:SIZE],
    "'-|' lines in a code block": ("/notes why\n\n```\n" + "-|\n" * SIZE)[:SIZE],
    # an email reply's header is looked for before anything else, in every comment: each
    # sender's line has the header fields around it looked at
    "mail header fields 'To: x'": comment("To: x\n" * SIZE),
    # whole lines: a `From:` cut under the last would be Gmail's wrapped `wrote:`, and the
    # command under it the quoted mail's (not rendered)
    "sender lines 'From: a <address>'": comment(
        "\n".join([SENDER.rstrip()] * (SIZE // len(SENDER)))
    ),
    "sender lines, no command": (SENDER * SIZE)[:SIZE],
    "sender lines and 'To: x' in turn": comment((SENDER + "To: x\n") * SIZE),
    # senders over long date fields: each line's fields read once, however long
    "mail sender, long field lines": comment(
        ("From: a ***@***.***>\n" + ("Sent: " + "1" * 2000 + "\n") * 8) * 4
    ),
}


def median_ms(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        READING.parse(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one run per case")
    args = ap.parse_args()
    repeat = 1 if args.quick else 5
    baseline = median_ms(CASES["prose (baseline)"], repeat)
    print(f"reading commands from a {SIZE:,}-character comment (median of {repeat}):")
    for name, text in CASES.items():
        ms = baseline if name == "prose (baseline)" else median_ms(text, repeat)
        print(f"  {name:32s} {ms:9.2f} ms  {ms / baseline:7.2f}x prose")


if __name__ == "__main__":
    main()

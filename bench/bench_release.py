"""What the unlock's release of the commands kept while locked costs; prints figures, asserts
nothing.

    python bench/bench_release.py [--quick]

`locked_commands.release` reads each kept comment again (one GET), works out which of its
kept commands still stand (parsing the comment's texts with the library's topics), queues
it again and forgets it. This times a release of 1, 10 and 100 kept comments on one PR,
in one process, on a real SQLite file and the shipped library's topics, three ways:

- deleted since (the baseline): the GET and the SQLite rows alone, no text parsed;
- showing the text kept (the usual case): its kept commands read from that text and the
  text before it;
- edited since, the kept commands left in place and a line added: the same, and the
  edit's text read too, and each line of the kept text (the commands it took out).

The GET is answered in process (`comment_text` from a dict), so the figures are the bot's
own work, not the network's. Each is printed per release and per kept comment, with its
ratio to the baseline of the same count, timed in the same run; and one parse of the kept
text (`Reading.parse`), as the unit of the work a kept comment adds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.command_policy import Actor  # noqa: E402
from bot.command_source import Source  # noqa: E402
from bot.commands import load_command_config  # noqa: E402
from bot.context import BotContext  # noqa: E402
from bot.db import Database  # noqa: E402
from bot.dryrun import DryRunGitHub  # noqa: E402
from bot.github_port import PRRef  # noqa: E402
from bot.library import load_library  # noqa: E402
from bot.locked_commands import release  # noqa: E402
from bot.match_config import load_match_config  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.prstate import PRStore  # noqa: E402
from bot.queue import Delivery, DeliveryQueue  # noqa: E402
from bot.settings import load_settings  # noqa: E402

REF = PRRef("vllm-project/vllm", 7001, installation_id=1)
COUNTS = (1, 10, 100)
# a maintainer's comment as said on a locked PR: prose around three commands; each kept
# comment's text is its own (`{n}`), as on a PR, so that no parse is shared between them
KEPT = (
    "Thanks, the partial-hash-hit path looks right to me now ({n}).\n\n"
    "/notes why\n"
    "/notes topic prefix caching please\n"
    "/notes search eagle cache registration\n\n"
    "I'd still like a second pair of eyes on the `_align_cacheable` change."
)
CASES = {
    "deleted since (baseline)": None,
    "showing the text kept": KEPT,
    "edited since, a line added": f"{KEPT}\n\n/notes help",
}


class Comments(DryRunGitHub):
    """A dry run's port whose kept comments read as `texts` says (None: deleted)."""

    texts: dict[int, str | None]

    def comment_text(self, ref: PRRef, comment_id: int) -> str | None:
        return self.texts.get(comment_id)


def context(path: Path) -> BotContext:
    db = Database(path / "bench.sqlite3")
    settings = load_settings(env_file=None, db_path=path / "bench.sqlite3")
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    port = Comments(db)
    port.texts = {}
    return BotContext(
        settings,
        lib,
        matcher,
        port,
        PRStore(db),
        commands=load_command_config(),
        queue=DeliveryQueue(db),
    )


def keep(ctx: BotContext, count: int) -> list[int]:
    """Keep `count` comments saying KEPT, as their runs meeting the lock keep them."""
    ids = []
    for i in range(count):
        comment_id = 10_000 + i
        text = KEPT.format(n=comment_id)
        source = Source(
            text,
            None,
            comment_id,
            Actor("maintainer"),
            "author",
            {},
            origin=f"comment:{comment_id}",
            said_at=f"2026-09-01T10:00:00Z#{comment_id:012d}",
        )
        payload = {"action": "created", "comment": {"id": comment_id, "body": text}}
        delivery = Delivery(str(uuid.uuid4()), "issue_comment", "created", payload)
        ctx.locked.keep(REF, delivery, source, reading=ctx.command_reading)
        ids.append(comment_id)
    return ids


def release_ms(ctx: BotContext, count: int, text: str | None, repeat: int) -> float:
    """The median time of a release of `count` kept comments reading as `text` now."""
    times = []
    for _ in range(repeat):
        ids = keep(ctx, count)
        ctx.github.texts = {i: None if text is None else text.format(n=i) for i in ids}
        start = time.perf_counter()
        release(ctx, REF)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def parse_ms(ctx: BotContext, repeat: int) -> float:
    reading = ctx.command_reading
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        reading.parse(KEPT.format(n=1))
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer runs per case")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ctx = context(Path(tmp))
        topics = len(ctx.library.topics)
        unit = parse_ms(ctx, 20 if args.quick else 200)
        print(f"one parse of the kept comment ({topics} topics): {unit:.3f} ms")
        for count in COUNTS:
            repeat = max(1, (30 if args.quick else 300) // count)
            print(f"a release of {count} kept comment(s) (median of {repeat}):")
            baseline = 0.0
            for name, text in CASES.items():
                ms = release_ms(ctx, count, text, repeat)
                baseline = baseline or ms
                print(
                    f"  {name:28s} {ms:9.2f} ms  {ms / count:7.3f} ms a comment"
                    f"  {ms / baseline:6.2f}x baseline"
                )


if __name__ == "__main__":
    main()

"""How fast the matcher is; prints figures, asserts nothing.

    python bench/bench_matching.py [--quick]

- the shipped library (16 seed notes) on the dev-set PRs;
- a generated library of 10,000 notes over 1,000 topics: build (compile) time and
  time per PR;
- how the time per PR grows with the description (1 KB .. 1 MB) and with the number
  of changed files (1 .. 3,000);
- descriptions built to be slow: 64 KB of what a parser walks again and again, and
  1 KB .. 1 MB saying one term over and over inside a longer one (the seed notes').
Times are medians over repeated runs, in milliseconds per PR; each ratio is against a
run of this process (the same PRs without title similarity, without diff names, the
size before, 64 KB of prose), so it holds on a slower or busier machine.

`--quick` (the smoke run of tests/test_benchmarks.py) measures every size above, the
10,000 notes included, with fewer repetitions: 5 rather than 20 (3 for the largest
inputs), so its figures are noisier; the line it starts with says so. Where the dev set
(DEV) is not on the machine, the seed library runs on a graded set shipped in
bench/graded/ instead, and the line says which.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.library import Library, load_library  # noqa: E402
from bot.match_config import load_match_config  # noqa: E402
from bot.matching import CompiledMatcher  # noqa: E402
from bot.notes import Note, Topic  # noqa: E402
from bot.pr_diff import code_names_in  # noqa: E402
from bot.prfacts import PRFacts, facts_from_record  # noqa: E402

DEV = Path("/work/shared/eval/dev_prs.jsonl")
SHIPPED = ROOT / "bench" / "graded" / "notes_era_1.jsonl"  # real PRs, where DEV is absent
REPO = "vllm-project/vllm"


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def words(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9))) for _ in range(n)]


def generated_library(rng: random.Random, n_topics: int, n_notes: int):
    """Topics with 5 keywords and 3 globs each; notes with 1-3 topics, 0-3 keywords, 0-2 paths
    and a 6-word English title."""
    vocab = words(rng, 30000)
    dirs = [f"vllm/{a}/{b}" for a, b in zip(words(rng, 400), words(rng, 400), strict=True)]
    topics = []
    for t in range(n_topics):
        kw = rng.sample(vocab, 4) + [" ".join(rng.sample(vocab, 2))]
        d = rng.choice(dirs)
        paths = [
            f"{d}/{rng.choice(vocab)}",
            f"{d}/*{rng.choice(vocab)}*",
            f"**/*{rng.choice(vocab)}*",
        ]
        topics.append(
            Topic(
                id=f"topic-{t:04d}",
                name_en=f"Topic {t}",
                name_zh=f"主题 {t}",
                keywords=tuple(kw),
                paths=tuple(paths),
                labels=(f"label-{t}",),
            )
        )
    notes = []
    for i in range(n_notes):
        d = rng.choice(dirs)
        notes.append(
            Note(
                id=f"gen-{i:05d}",
                repo=REPO,
                source_pr=100000 + i,
                verdict=rng.choice(["deep", "quick", "skip"]),
                topics=tuple(t.id for t in rng.sample(topics, rng.randint(1, 3))),
                keywords=tuple(rng.sample(vocab, rng.randint(0, 3)))
                + ((f"{rng.choice(vocab)}_{rng.choice(vocab)}",) if rng.random() < 0.5 else ()),
                paths=tuple(f"{d}/{w}.py" for w in rng.sample(vocab, rng.randint(0, 2))),
                title_zh=f"笔记 {i}",
                title_en=" ".join(rng.sample(vocab, 6)),
                guidance="值得精读。",
            )
        )
    return Library(notes=tuple(notes), topics={t.id: t for t in topics}), vocab, dirs


FILLER = words(random.Random(1), 3000)  # prose words that are nobody's keyword


def make_pr(rng: random.Random, vocab: list[str], dirs: list[str], body_bytes: int, n_files: int):
    """A PR whose title names a few keywords and whose body is prose with 1 word in 50 a keyword."""
    title = (
        "["
        + rng.choice(vocab)
        + "] "
        + " ".join(rng.choices(FILLER, k=6) + rng.choices(vocab, k=2))
    )
    body_words: list[str] = []
    size = 0
    while size < body_bytes:
        w = rng.choice(vocab) if rng.random() < 0.02 else rng.choice(FILLER)
        body_words.append(w)
        size += len(w) + 1
    lines = [" ".join(body_words[i : i + 12]) for i in range(0, len(body_words), 12)]
    body = "\n".join(lines)[:body_bytes]
    files = tuple(f"{rng.choice(dirs)}/{rng.choice(vocab)}.py" for _ in range(n_files))
    return PRFacts(repo=REPO, number=1, title=title, body=body, files=files)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    rep = 5 if args.quick else 20
    config = load_match_config()
    if args.quick:
        print(
            f"quick: every size measured, {rep} repetitions per figure (20 without --quick,"
            f" at least 3 for the largest inputs): noisier figures"
        )

    # -- the shipped library on the dev set --
    library = load_library()
    start = time.perf_counter()
    seeded = CompiledMatcher(library, config)  # once, as the server does at start
    build = (time.perf_counter() - start) * 1000
    source = DEV if DEV.exists() else SHIPPED
    lines = source.read_text("utf-8").splitlines()
    prs = [facts_from_record(json.loads(line)) for line in lines if line.strip()]
    which = "dev-set PRs" if source == DEV else f"PRs of {source.relative_to(ROOT)} (no dev set)"
    start = time.perf_counter()
    seeded.match(prs[0])  # the first scan compiles the keyword patterns (bot.terms)
    first = (time.perf_counter() - start) * 1000
    per_pr = median_ms(lambda: [seeded.match(p) for p in prs], rep) / len(prs)
    plain = CompiledMatcher(library, config.model_copy(update={"vocabulary": None}))
    per_pr_plain = median_ms(lambda: [plain.match(p) for p in prs], rep) / len(prs)
    print(f"seed library: {len(library.notes)} notes, {len(library.topics)} topics")
    print(f"  matcher build {build:.1f} ms, first PR {first:.1f} ms (compiles its keywords)")
    print(f"  {per_pr:.3f} ms per PR over {len(prs)} {which}")
    print(
        f"  without title similarity: {per_pr_plain:.3f} ms per PR"
        f" (similarity x{per_pr / per_pr_plain:.2f})"
    )

    # -- a generated library --
    rng = random.Random(42)
    start = time.perf_counter()
    big, vocab, dirs = generated_library(rng, 1000, 10000)
    made = time.perf_counter() - start
    start = time.perf_counter()
    matcher = CompiledMatcher(
        big,
        config.model_copy(
            update={"topic_scale": {}, "family_topics": frozenset(), "upkeep_topics": frozenset()}
        ),
    )
    build = (time.perf_counter() - start) * 1000
    print(f"generated library: {len(big.notes)} notes, {len(big.topics)} topics")
    print(f"  models built in {made:.1f} s (pydantic validation, not matching)")
    typical = [make_pr(rng, vocab, dirs, 2048, 20) for _ in range(20)]
    start = time.perf_counter()
    matcher.match(typical[0])  # the first scan compiles the keyword patterns (bot.terms)
    first = (time.perf_counter() - start) * 1000
    print(
        f"  matcher build {build:.0f} ms, first PR {first:.0f} ms (compiles its keywords;"
        " once per library and config, then kept)"
    )
    base = median_ms(lambda: [matcher.match(p) for p in typical], rep) / len(typical)
    found = statistics.mean(len(matcher.match(p).candidates) for p in typical)
    print(f"  typical PR (2 KB body, 20 files): {base:.2f} ms per PR ({found:.0f} candidate notes)")

    code_words = [k for n in big.notes for k in n.keywords if "_" in k]
    patch = "\n".join(
        f"+    {rng.choice(vocab)}_{rng.choice(vocab)} = {rng.choice(code_words)}()"
        if i % 50 == 0
        else f"-    {rng.choice(vocab)}_{rng.choice(vocab)}({rng.choice(vocab)}Stats)"
        for i in range(20_000)
    )
    start = time.perf_counter()
    names = code_names_in([("vllm/big.py", patch)])
    read = (time.perf_counter() - start) * 1000
    print(f"  reading a {len(patch) // 1024} KB diff: {read:.0f} ms, {len(names)} names (capped)")
    named = [replace(p, code_names=names) for p in typical]
    with_names = median_ms(lambda: [matcher.match(p) for p in named], rep) / len(named)
    print(
        f"  typical PR with those names: {with_names:.2f} ms per PR"
        f" (x{with_names / base:.1f} the same PR without)"
    )

    print("  by description size (20 files):")
    prev = None
    for kb in (1, 10, 100, 1000):
        facts = make_pr(rng, vocab, dirs, kb * 1024, 20)
        t = median_ms(lambda f=facts: matcher.match(f), max(3, rep // (1 + kb // 100)))
        ratio = f"  x{t / prev:.1f} for x10 text" if prev else ""
        print(f"    {kb:>5} KB: {t:8.2f} ms{ratio}")
        prev = t

    print("  by changed files (2 KB body):")
    prev, prev_n = None, None
    for n in (1, 10, 100, 1000, 3000):
        facts = make_pr(rng, vocab, dirs, 2048, n)
        t = median_ms(lambda f=facts: matcher.match(f), max(3, rep // (1 + n // 500)))
        ratio = f"  x{t / prev:.1f} for x{n // prev_n} files" if prev else ""
        print(f"    {n:>5} files: {t:8.2f} ms{ratio}")
        prev, prev_n = t, n

    # Descriptions an author could write to stall the bot: each should cost about what
    # ordinary prose of the same size costs (these were quadratic once: minutes at 64 KB).
    print("  hostile 64 KB descriptions (20 files), against 64 KB of prose:")
    size = 64 * 1024
    prose = make_pr(rng, vocab, dirs, size, 20)
    # a new PRFacts each run: its cleaned description is cached per object
    base_t = median_ms(lambda: matcher.match(replace(prose)), max(3, rep // 4))
    print(f"    {'prose':>18}: {base_t:8.2f} ms")
    # one long word, then a topic's two-word keyword across a bracket: the quote walks
    # back to the name the bracket explains (a regex did, quadratically)
    pair = next(k for t in big.topics.values() for k in t.keywords if " " in k).split()
    across = f" x ({pair[0]}) {pair[1]}"
    bodies = {
        **{name: (unit * (size // len(unit) + 1))[:size] for name, unit in HOSTILE_BODIES.items()},
        "word before bracket": "a" * (size - len(across)) + across,
    }
    for name, body in bodies.items():
        facts = replace(prose, body=body)
        t = median_ms(lambda f=facts: matcher.match(replace(f)), max(3, rep // 4))
        print(f"    {name:>18}: {t:8.2f} ms  x{t / base_t:.1f} prose")

    repeated_terms(seeded, rep)
    return 0


# A title naming a seed note, and a description saying its words over and over, each
# mention inside a longer one: looked up against every other mention, this was quadratic
# (2 to 18 s of CPU at 64 KB, over an hour at 1 MB).
REPEATED = {
    "elastic EP ": "[ROCm] Fix elastic EP scaling deadlock",  # a topic's `EP` in another's
    "PTX global PTX ": "[Build] global PTX gencode",  # a note's `PTX` in its `global PTX`
    "JIT compile ": "[Kernel] JIT compile warmup provider",  # a topic's `JIT` in a note's
}


def repeated_terms(matcher: CompiledMatcher, rep: int) -> None:
    """How the time per PR grows with a description repeating one term (`REPEATED`)."""
    print("  seed library, a description repeating a term (no files):")
    for unit, title in REPEATED.items():
        prev = None
        for kb in (1, 10, 100, 1000):
            body = (unit * (kb * 1024 // len(unit) + 1))[: kb * 1024]
            facts = PRFacts(repo=REPO, number=1, title=title, body=body, files=())
            # a new PRFacts each run: its cleaned description is cached per object
            t = median_ms(lambda f=facts: matcher.match(replace(f)), max(3, rep // (1 + kb // 100)))
            ratio = f"  x{t / prev:.1f} for x10 text" if prev else ""
            print(f"    {unit!r:>18} {kb:>5} KB: {t:8.2f} ms{ratio}")
            prev = t


HOSTILE_BODIES = {
    "blank lines": "\n",
    "unclosed links": "[x](",
    "open brackets": "[",
    "backticks": "`",
    "fence lines": "```\n",
    "template headings": "#\n",
    "numbered refs": "Fixes #1 ",
    "unclosed tags": "<a",
    # indented lines make clean_body parse the text with cmark-gfm (indented code blocks)
    "indented code": "    x = 1\n",
    "code in list items": "- a\n\n      b\n",
    "table rule starts": "| -\n",  # each line opened a scan to the end of the text
}


if __name__ == "__main__":
    sys.exit(main())

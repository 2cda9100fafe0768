"""Build config/title_vocabulary.json: how often each word occurs in vLLM PR titles.

The matcher weighs the words a PR title shares with a note's title by their rarity
(bot/similarity.py); this counts them over a repository's history. Titles come from a
git checkout (squash-merge subjects ending in "(#N)", one per PR) or from a file (JSON
lines with a "title" field, or one title per line).

    python scripts/build_title_vocabulary.py --git ~/src/vllm [--out config/title_vocabulary.json]
    python scripts/build_title_vocabulary.py --titles titles.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.similarity import build_vocabulary  # noqa: E402

_SQUASHED = re.compile(r"^(?P<title>.*\S)\s*\(#(?P<number>\d+)\)$")


def titles_from_git(repo: Path, name: str) -> tuple[list[str], str]:
    log = subprocess.run(
        ["git", "-C", str(repo), "log", "--no-merges", "--format=%s%x09%ad", "--date=short"],
        check=True,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
    ).stdout
    by_number: dict[int, str] = {}
    dates = []
    for line in log.splitlines():
        subject, _, date = line.rpartition("\t")
        m = _SQUASHED.match(subject)
        if m:
            by_number.setdefault(int(m["number"]), m["title"])
            dates.append(date)
    span = f"{min(dates)}..{max(dates)}" if dates else "empty"
    return list(by_number.values()), f"squash-merged PR titles of {name}, {span}"


def titles_from_file(path: Path) -> tuple[list[str], str]:
    titles = []
    for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                titles.append(str(json.loads(line)["title"]))
            except (ValueError, KeyError) as exc:
                raise SystemExit(f"{path}:{n}: no 'title' field ({exc})") from None
        else:
            titles.append(line)
    return titles, f"titles from {path.name}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--git", type=Path, help="a git checkout of the repository")
    src.add_argument("--titles", type=Path, help="JSON lines with 'title', or plain lines")
    ap.add_argument("--name", default="vllm-project/vllm", help="the repository, for the record")
    ap.add_argument("--out", type=Path, default=ROOT / "config" / "title_vocabulary.json")
    ap.add_argument("--min-count", type=int, default=2, help="drop rarer words (count as unseen)")
    args = ap.parse_args(argv)
    if args.git:
        titles, source = titles_from_git(args.git, args.name)
    else:
        titles, source = titles_from_file(args.titles)
    if not titles:
        raise SystemExit("no titles found")
    vocab = {"source": source, **build_vocabulary(titles, args.min_count)}
    args.out.write_text(json.dumps(vocab, indent=0, ensure_ascii=False) + "\n", "utf-8")
    print(f"{args.out}: {vocab['titles']} titles, {len(vocab['df'])} words ({source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

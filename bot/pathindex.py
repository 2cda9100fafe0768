"""Which path globs a changed file falls under, for many globs at once (pure).

Same semantics as `bot.globs` (CODEOWNERS style), but indexed so that a PR with
thousands of files against a library with thousands of globs costs a few dict
look-ups per file rather than one regex per (file, glob):
- a literal path or directory (`vllm/v1/spec_decode`) is looked up by each of the
  file's ancestors (one ending in `/`, a directory, by its directories only);
- a literal name without `/` (`conftest.py`, `cmake`) is looked up by each path part
  (`cmake/` by its directories only);
- a glob is filed under its literal leading directories (`vllm/models` for
  `vllm/models/deepseek*/**`) and only tried on files below them;
- a glob with no leading directory (`*rocm*`, `**/*.cu`) is filed under the longest
  literal run it needs (`rocm`, `.cu`); one scan of the path finds which runs occur.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

from bot.globs import compile_glob, glob_to_regex
from bot.terms import trie_regex

Owner = TypeVar("Owner", bound=Hashable)

_GLOB_CHARS = re.compile(r"[*?\[\]]")


class GlobIndex(Generic[Owner]):
    """Maps a file path to the owners whose globs match it."""

    def __init__(self, entries: Iterable[tuple[str, Owner]]):
        self._exact: dict[str, set[Owner]] = defaultdict(set)  # literal path or directory
        self._part: dict[str, set[Owner]] = defaultdict(set)  # literal name at any depth
        # the same, written with a trailing `/`: a directory, never the file itself
        self._exact_dir: dict[str, set[Owner]] = defaultdict(set)
        self._part_dir: dict[str, set[Owner]] = defaultdict(set)
        self._under: dict[str, list[tuple[re.Pattern[str], Owner]]] = defaultdict(list)
        self._by_run: dict[str, list[tuple[re.Pattern[str], Owner]]] = defaultdict(list)
        self._always: list[tuple[re.Pattern[str], Owner]] = []
        for pattern, owner in entries:
            self._add(pattern, owner)
        # the deepest literal directory or path: a file's ancestors below it find nothing
        literal = [*self._exact, *self._exact_dir, *self._under]
        self._depth = max((key.count("/") + 1 for key in literal), default=0)
        runs = sorted(self._by_run, key=len, reverse=True)
        # The scan reports the longest run at each position; shorter runs that are its
        # prefixes occur there too, each reached from the next longer one.
        self._shorter_run = _shorter_runs(runs)
        self._runs = re.compile("(?=(" + trie_regex(runs) + "))") if runs else None

    def _add(self, pattern: str, owner: Owner) -> None:
        pat = pattern.lstrip("/").rstrip("/")
        if not _GLOB_CHARS.search(pat):  # a name anywhere, unless `/` anchors it at the root
            glob_to_regex(pattern)  # validates (raises GlobError) without compiling
            anchored = "/" in pat or pattern.startswith("/")
            if pattern.endswith("/"):
                (self._exact_dir if anchored else self._part_dir)[pat].add(owner)
            else:
                (self._exact if anchored else self._part)[pat].add(owner)
            return
        rx = compile_glob(pattern)  # (raises GlobError as glob_to_regex does)
        parts = pat.split("/")
        if len(parts) > 1:
            lead = []
            for part in parts[:-1]:
                if _GLOB_CHARS.search(part):
                    break
                lead.append(part)
            if lead:
                self._under["/".join(lead)].append((rx, owner))
                return
        # a class may start with `]` (or `!]`, `^]`), which is then one of its characters
        runs = [r for r in re.split(r"[*?]+|\[[!^]?\]?[^\]]*\]|/", pat.removeprefix("**/")) if r]
        if runs:
            self._by_run[max(runs, key=len)].append((rx, owner))
        else:
            self._always.append((rx, owner))

    def owners(self, path: str) -> set[Owner]:
        """Every owner with a glob matching `path` (a repository-relative file path)."""
        found: set[Owner] = set()
        parts = path.split("/")
        prefix = ""
        for i, part in enumerate(parts):
            below = i < len(parts) - 1  # a directory of the path, not the file
            if part in self._part:
                found |= self._part[part]
            if below and part in self._part_dir:
                found |= self._part_dir[part]
            if i >= self._depth:
                continue  # (building ever longer prefixes of a deep path costs its square)
            prefix = part if i == 0 else prefix + "/" + part
            if prefix in self._exact:
                found |= self._exact[prefix]
            if below and prefix in self._exact_dir:
                found |= self._exact_dir[prefix]
            if below and prefix in self._under:
                found.update(
                    o for rx, o in self._under[prefix] if o not in found and rx.match(path)
                )
        if self._runs is not None:
            present: set[str] = set()
            for found_run in set(self._runs.findall(path)):  # repeated in a long path: once
                run: str | None = found_run
                while run is not None and run not in present:  # (its prefixes are in too)
                    present.add(run)
                    run = self._shorter_run[run]
            for run in present:
                found.update(o for rx, o in self._by_run[run] if o not in found and rx.match(path))
        found.update(o for rx, o in self._always if o not in found and rx.match(path))
        return found


def _shorter_runs(runs: Iterable[str]) -> dict[str, str | None]:
    """Each run -> the longest other run that is a prefix of it, or None. In sorted order a
    run's prefixes come before it and the runs starting with one follow it together, so
    a stack holds the current run's: n nested runs (`j`, `jj`, ...) cost n steps, where
    listing each one's prefixes cost n squared slices of up to n characters."""
    shorter: dict[str, str | None] = {}
    stack: list[str] = []
    for run in sorted(runs):
        while stack and not run.startswith(stack[-1]):
            stack.pop()
        shorter[run] = stack[-1] if stack else None
        stack.append(run)
    return shorter

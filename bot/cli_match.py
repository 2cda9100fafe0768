"""`review-notes match`: which notes a PR would get, ranked, with the reasons, without a
server or credentials (from flags, a `pull_request` payload, or a batch of JSON lines)."""

from __future__ import annotations

import argparse
import codecs
import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import config_argument, print_json, server_library, topics_argument, whole_number
from bot.given_paths import given_path, path_problem
from bot.library import DEFAULT_NOTES_DIR, ROOT, load_library
from bot.note_files import LibraryError
from bot.prfacts import DEFAULT_REPO
from bot.terminal import inert

if TYPE_CHECKING:
    from bot.matching import CompiledMatcher


def _match_result_json(result) -> dict:
    """The linked notes, the topics hit, and the notes above the threshold held back, with
    the rule that held each (as the text output lists them under "held back")."""
    scores = {m.note.id: m.score for m in result.candidates}
    return {
        "notes": [
            {
                "id": m.note.id,
                "pr": m.note.source_pr,
                "score": m.score,
                "verdict": m.note.verdict.value,
                "reasons": list(m.reasons),
            }
            for m in result.matches
        ],
        "topics": list(result.topics),
        "held_back": [
            {"id": note_id, "score": scores[note_id], "rule": why}
            for note_id, why in result.held_back
        ],
    }


def _print_match(facts, result, config) -> None:
    # the title, paths and labels are the PR author's: printed inert
    print(f"PR {inert(facts.repo)} {facts.number}: {inert(facts.title)}")
    if not result.matches and not result.held_back:
        print(f"no note reaches the threshold ({config.threshold:g})")
    elif not result.matches:
        print(f"no note linked; above the threshold ({config.threshold:g}) but held back:")
    for rank, m in enumerate(result.matches, 1):
        source = f", reviews PR {m.note.source_pr}" if m.note.source_pr else ""
        print(f"{rank}. {m.note.id}  {m.note.verdict.label_en}  score {m.score:g}{source}")
        for line in (m.note.title_en, m.note.title_zh):
            if line:
                print(f"   {line}")
        for reason in m.reasons:
            print(f"   - {inert(reason)}")
    if result.matches and result.held_back:
        print("held back:")
    scores = {m.note.id: m.score for m in result.candidates}
    for note_id, why in result.held_back:
        print(f"   - {note_id} (score {scores[note_id]:g}): {inert(why)}")
    if result.topic_hits:
        hits = ", ".join(f"{h.topic.id} ({h.score:g})" for h in result.topic_hits)
        print(f"topics: {hits}")
    bare = result.topics_without_notes
    if bare:
        print("topics with no note yet: " + ", ".join(h.topic.id for h in bare))


def _lines(text: str) -> list[str]:
    """Lines ended by LF (or CRLF) only: str.splitlines() also cuts at U+2028, U+2029 and
    NEL, which a JSON string or a file name may hold."""
    return [line.removesuffix("\r") for line in text.split("\n")]


# Windows PowerShell 5.1 (Windows' own) writes `>` and Out-File as UTF-16, with this mark
_UTF16_MARKS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _read_text(path: str) -> str:
    """A file given to `match` (- for stdin), as text (UTF-8, or UTF-16 after its
    byte-order mark) with its line ends as they are (the matcher reads a description's CRLF
    as GitHub sends it), without the mark some editors write (json.loads refuses it; before
    a path it would be part of the path)."""
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    encoding = "utf-16" if data[:2] in _UTF16_MARKS else "utf-8"
    try:
        return data.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:  # three files may be on the command line: say which
        raise ValueError(
            f"{path}: cannot read: not {encoding.upper()} (byte {exc.start})"
        ) from None


def _as_lf(text: str) -> str:
    """Line ends made \n, as open() reads them (a list with CR ends is still lines)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# A line of `git diff --name-status`: a status (M, A, D, T, R100, C75...), a tab, the path;
# a rename or copy names the old path, a tab, the new one. Git quotes a path holding a tab,
# so a tab after a status letter is that listing's, not part of a file's name.
_STATUS = re.compile(r"[ADMTUXB]|[RC][0-9]{0,3}")
_NAME_STATUS = re.compile(rf"(?:{_STATUS.pattern})\t(.+)")


def _listed(line: str) -> list[str]:
    """The paths one --files-from line names: the line, or what follows a --name-status
    status (both paths of a rename, as GitHub's listing gives the bot both)."""
    status = _NAME_STATUS.fullmatch(line)
    return status.group(1).split("\t") if status else [line]


def _listed_z(fields: list[str], path: str) -> list[list[str]]:
    """The changed files `git diff -z` fields name: each field a path (--name-only), or a
    status and then its path, a rename's or copy's two (--name-status)."""
    if not _STATUS.fullmatch(fields[0]):  # --name-only (a root file named M would be misread)
        return [[f] for f in fields]
    entries: list[list[str]] = []
    at = 0
    while at < len(fields):
        status = fields[at]
        count = 2 if status.startswith(("R", "C")) else 1
        paths = fields[at + 1 : at + 1 + count]
        if not _STATUS.fullmatch(status) or len(paths) < count:
            raise ValueError(
                f"{path}: field {at + 1} ({inert(status)!r}): not `git diff -z --name-status`"
                " output: a status, then its path, a rename's two"
            )
        entries.append(paths)
        at += 1 + count
    return entries


def _listed_entries(path: str) -> list[list[str]]:
    """The changed files a --files-from file names, each as its paths (a rename's two)."""
    text = _read_text(path)  # a \r in a -z listing is a file name's
    if "\0" in text:  # `git diff -z`: a NUL after each field, no newline; git's own paths
        return _listed_z(text.removesuffix("\0").split("\0"), path)
    if _is_json(text):  # `gh pr view N --json files > files.json`
        raise ValueError(
            f"{path}: JSON, not one path a line: `gh pr view N --json files --jq"
            " '.files[].path'` lists the paths (or give gh's JSON to --batch)"
        )
    # a mark on a later line too: `cat a.txt b.txt` puts b's there
    lines = [ln.removeprefix("\ufeff") for ln in _lines(_as_lf(text))]
    if other := _other_listing(lines):
        raise ValueError(f"{path}: {other}")
    return [[_checked(p) for p in _listed(ln.strip())] for ln in lines if ln.strip()]


# `git show` and `git log` start each commit so (--name-only: its paths after its message)
_COMMIT = re.compile(r"commit [0-9a-f]{40}(?: .*)?")
# `git status --short` and --porcelain: two status columns (staged, work tree), a space
_STATUS_SHORT = re.compile(r"[ MTADRCU?!]{2} \S.*")


def _other_listing(lines: list[str]) -> str | None:
    """Which other git command's output `lines` are, with the one listing the paths only;
    None for a list of paths. Read as paths, its commit headers and messages would count
    as changed files, its status letters would stay on each path."""
    if any(_COMMIT.fullmatch(ln) for ln in lines):
        return (
            "`git show` or `git log` output, not one path a line: `git show --name-only"
            " --format= REV` lists a commit's paths, `git diff --name-only main...` a branch's"
        )
    shown = [ln for ln in lines if ln.strip()]
    if shown and all(_STATUS_SHORT.fullmatch(ln) for ln in shown):  # a name could, not all
        return (
            "`git status --short` output, not one path a line: `git diff --name-only HEAD`"
            " lists the paths changed since the last commit (a new file once added)"
        )
    return None


def _is_json(text: str) -> bool:
    """Whether `text` is a JSON object or array (no list of paths is one; a file may be
    named 2024 or null)."""
    import json

    if not text.lstrip().startswith(("{", "[")):
        return False
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _checked(token: str) -> str:
    """The path a --file or a --files-from line names, one GitHub never lists named."""
    path, problem = given_path(token)  # git's quoting decoded, a leading ./ dropped
    if problem:
        print(f"review-notes match: {inert(token)}: {problem}", file=sys.stderr)
    return path


def _given_files(args: argparse.Namespace) -> tuple[list[str], int]:
    """The changed files the command line names (each --file, then --files-from's lines),
    and how many files they are: a rename line is one file and two paths."""
    entries = [[_checked(f)] for f in args.file or []]
    if args.files_from:
        entries += _listed_entries(args.files_from)
    return [f for paths in entries for f in paths], len(entries)


def _facts_from_args(args: argparse.Namespace):
    """PR facts from --payload or from --title/--body-file/--label; the files from
    --file/--files-from."""
    from bot.prfacts import PRFacts

    files, count = _given_files(args)
    if args.payload:
        return _facts_from_payload_file(args.payload, files, count, args.label or ())
    body = _read_text(args.body_file) if args.body_file else ""
    return PRFacts(
        repo=args.repo,
        number=args.number,
        title=args.title or "",
        body=body,
        labels=tuple(args.label or ()),
        files=tuple(files),
        # a curator names the PR's changed files: the whole list, as GitHub's listing is
        # to the bot, so the tests-only and docs-only rules apply as they do there; with
        # --changed-files above their count, the files someone happened to see
        changed_files=args.changed_files or (count if files else None),
        listed_files=count if count != len(files) else None,  # a rename: two paths, one file
    )


def _facts_from_payload_file(path: str, files: list[str], count: int, labels: Sequence[str]):
    """PR facts from a pull_request webhook payload file, plus `labels`. The files are
    those the command line names (`count` files: a rename is one of two paths), else the
    payload's own `files` list (our examples'), read as the dry-run server reads it: the
    preview shows what the dry run posts."""
    import json

    from bot.prfacts import PRFacts, facts_from_payload, payload_files

    try:
        payload = json.loads(_read_text(path))
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deep") from None
    except json.JSONDecodeError as exc:  # an empty file (a failed curl), a cut-off one
        raise ValueError(f"{path}: not JSON: {exc}") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("pull_request"), dict):
        # `gh pr view N --json ...` or `gh api .../pulls/N` > pr.json: the PR itself
        own = isinstance(payload, dict) and {"number", "title"} <= payload.keys()
        hint = ": it is a PR's own fields, as gh writes them: give it to --batch" if own else ""
        raise ValueError(f"{path}: not a pull_request webhook payload{hint}")
    try:
        facts = facts_from_payload(payload, files or payload_files(payload) or ())
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: malformed pull_request payload: {exc}") from None
    if files and count != len(files):  # a rename counted once, as GitHub's listing is
        facts = replace(facts, listed_files=count)
    extra = tuple(lb for lb in labels if lb not in facts.labels)
    return PRFacts(**{**facts.__dict__, "labels": facts.labels + extra}) if extra else facts


def _cmd_match(args: argparse.Namespace) -> int:

    from bot.match_config import checked_matcher

    if problem := _match_flags_problem(args):
        print(problem, file=sys.stderr)
        return 2
    args.repo = DEFAULT_REPO if args.repo is None else args.repo
    args.number = 0 if args.number is None else args.number
    if not server_library(args):
        return 2
    try:
        library = load_library(Path(args.dir), Path(args.topics))
        matcher = checked_matcher(library, Path(args.config))  # as check and the server; once
    except (LibraryError, OSError, ValueError) as exc:  # each names its file
        print(exc, file=sys.stderr)
        return 1
    if args.batch:
        return _match_batch(args.batch, args.repo, matcher)
    try:
        facts = _facts_from_args(args)
    except OSError as exc:
        print(f"{exc.filename}: cannot read: {exc.strerror}", file=sys.stderr)
        return 1
    except ValueError as exc:  # also json.JSONDecodeError
        print(exc, file=sys.stderr)
        return 1
    result = matcher.match(facts)
    if args.json:
        print_json(_match_result_json(result), indent=2)
    else:
        _print_match(facts, result, matcher.config)
    return 0


def _match_flags_problem(args: argparse.Namespace) -> str | None:
    """Flags given together that cannot be: a payload or a batch line says the PR's
    title, files, labels... itself."""
    if args.changed_files is not None and args.title is None:
        return (
            "--changed-files goes with --title: a payload's or a batch line's PR says how"
            " many files it changes (changed_files) itself"
        )
    stdin = [
        f for f, v in (("--payload", args.payload), ("--body-file", args.body_file)) if v == "-"
    ]
    if stdin and args.files_from == "-":
        return f"{stdin[0]} and --files-from both read -: stdin holds one of them"
    source = "--payload" if args.payload else "--batch" if args.batch else None
    given = {
        "--body-file": args.body_file is not None,
        "--number": args.number is not None,
        "--repo": args.repo is not None and not args.batch,  # a batch line may leave it out
        "--file": args.file is not None and bool(args.batch),
        "--files-from": args.files_from is not None and bool(args.batch),
        "--label": args.label is not None and bool(args.batch),
    }
    for flag in (f for f, is_given in given.items() if is_given and source):
        what = "payload" if source == "--payload" else "batch line"
        return f"{flag} goes with --title, not {source}: a {what} says it itself"
    return None


def _match_batch(path: str, repo: str, matcher: CompiledMatcher) -> int:
    """One JSON object per PR line of `path`, with its number; a line that cannot be read
    is skipped and named (exit 1), the others still matched."""
    import json

    from bot.prfacts import facts_from_record

    status = 0
    try:
        # `gh pr list --json ... | jq -c '.[]' | review-notes match --batch -`
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        if data[:2] in _UTF16_MARKS:  # Windows PowerShell 5.1's `>`: read as a whole
            data = data.decode("utf-16").encode("utf-8")
        lines = data.split(b"\n")  # each line decoded alone
    except OSError as exc:
        print(f"{path}: cannot read: {exc.strerror}", file=sys.stderr)
        return 1
    except UnicodeDecodeError as exc:  # a UTF-16 mark on a file cut at an odd byte
        print(f"{path}: cannot read: not UTF-16 (byte {exc.start})", file=sys.stderr)
        return 1
    for no, raw in enumerate(lines, 1):
        try:
            line = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as exc:
            print(f"{path}:{no}: skipped: not UTF-8 (byte {exc.start})", file=sys.stderr)
            status = 1
            continue
        # the byte-order mark some editors write: on any line, as `cat a.jsonl b.jsonl` puts
        # the second file's after the first one's last newline
        line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if isinstance(record, list):  # `gh pr list --json ...` prints one array
                raise ValueError("a JSON array, not one PR: one object a line (jq -c '.[]')")
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            facts = facts_from_record(record, repo=repo)
        except RecursionError:
            print(f"{path}:{no}: skipped: JSON nested too deep", file=sys.stderr)
            status = 1
            continue
        except (ValueError, TypeError) as exc:
            print(f"{path}:{no}: skipped: {exc}", file=sys.stderr)
            status = 1
            continue
        for file in facts.files:  # matched all the same, as --files-from's
            if problem := path_problem(file):
                print(f"{path}:{no}: {inert(file)}: {problem}", file=sys.stderr)
        out = {"number": facts.number, **_match_result_json(matcher.match(facts))}
        print_json(out)
    return status


def add_match_parser(sub) -> None:

    m = sub.add_parser(
        "match",
        help="show which notes a PR would get, ranked, with the reasons",
        description="Match one PR (from flags or a pull_request webhook payload) or a batch "
        "of PRs (JSON lines: number, title, body, labels, files) against the notes.",
    )
    src = m.add_mutually_exclusive_group(required=True)
    src.add_argument("--title", help="the PR title")
    src.add_argument(
        "--payload",
        metavar="EVENT.json",
        help="a pull_request webhook payload (-: stdin); matched on its top-level `files`"
        " list when it has one (as by the dry run), unless --file/--files-from give the files",
    )
    src.add_argument(
        "--batch", metavar="PRS.jsonl", help="one PR per line (-: stdin); JSON lines out"
    )
    m.add_argument("--body-file", help="file holding the PR description (-: stdin)")
    m.add_argument("--label", action="append", help="a PR label (repeatable)")
    m.add_argument(
        "--file",
        action="append",
        help="a changed file path (repeatable); with --files-from, every file the PR changes"
        " (a --payload's changed_files says how many)",
    )
    m.add_argument(
        "--files-from",
        metavar="FILE",
        help="changed file paths from the repository root, one per line, as `git diff"
        " --name-only` writes them (or --name-status: both paths of a rename; or -z);"
        " -: stdin",
    )
    m.add_argument(
        "--changed-files",
        type=whole_number("a count of files (1 or more)", 1),
        metavar="N",
        help="how many files the PR changes in all, when --file/--files-from list only some"
        " (default: as many as they list; a --payload says itself)",
    )
    m.add_argument("--repo", help=f"owner/name (default: {DEFAULT_REPO})")
    m.add_argument(
        "--number", type=whole_number("a PR number (1 or more)", 1), help="the PR number"
    )
    m.add_argument("--json", action="store_true", help="print JSON instead of text")
    m.add_argument(
        "--notes-dir",
        dest="dir",
        help="notes directory (default: the server's, REVIEW_NOTES_NOTES_DIR or "
        f"{DEFAULT_NOTES_DIR.relative_to(ROOT)})",
    )
    topics_argument(m)
    config_argument(m)
    m.set_defaults(func=_cmd_match)

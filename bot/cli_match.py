"""`review-notes match`: which notes a PR would get, ranked, with the reasons, without a
server or credentials (from flags, a `pull_request` payload, or a batch of JSON lines)."""

from __future__ import annotations

import argparse
import codecs
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.cli import (
    command_parser,
    config_argument,
    notes_dir_default,
    print_json,
    server_library,
    topics_argument,
    whole_number,
)
from bot.given_paths import given_file_flag, listed_files, path_problem
from bot.library import load_library
from bot.note_files import LibraryError, encoding_hint
from bot.notes import BACKGROUND_LABELS, BACKGROUND_WHY
from bot.prfacts import DEFAULT_REPO
from bot.terminal import inert

if TYPE_CHECKING:
    from bot.match_result import Match
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
                "verdict": m.note.verdict.value,  # the curators', whatever the badge
                "badge": "background" if m.background else m.note.verdict.value,
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


def _badge_text(match: Match) -> str:
    """The note's badge as the comment shows it, in English: its verdict, or Background
    with the verdict after it."""
    verdict = match.note.verdict.label_en
    if match.background:
        return f"{BACKGROUND_LABELS[0]} ({BACKGROUND_WHY}; rated {verdict})"
    return verdict


def _print_match(facts, result, config) -> None:
    # the title, paths and labels are the PR author's: printed inert
    number = f" {facts.number}" if facts.number else ""  # 0: no --number given, no PR's
    print(f"PR {inert(facts.repo)}{number}: {inert(facts.title)}")
    if not result.matches and not result.held_back:
        print(f"no note reaches the threshold ({config.threshold:g})")
    elif not result.matches:
        print(f"no note linked; above the threshold ({config.threshold:g}) but held back:")
    for rank, m in enumerate(result.matches, 1):
        source = f", reviews PR {m.note.source_pr}" if m.note.source_pr else ""
        print(f"{rank}. {m.note.id}  {_badge_text(m)}  score {m.score:g}{source}")
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
        hint = encoding_hint(data, exc.start) if encoding == "utf-8" else ""
        raise ValueError(
            f"{path}: cannot read: not {encoding.upper()} (byte {exc.start}){hint}"
        ) from None


def _given_files(args: argparse.Namespace) -> tuple[list[str], int]:
    """The changed files the command line names (each --file, then --files-from's lines),
    and how many files they are: a rename line is one file and two paths. A path GitHub
    never lists is named on stderr, and matched as given."""
    entries = [[given_file_flag(f)] for f in args.file or []]
    if args.files_from:
        entries += listed_files(_read_text(args.files_from), args.files_from)
    for path, problem in (given for paths in entries for given in paths):
        if problem:
            print(f"review-notes match: {inert(path)}: {problem}", file=sys.stderr)
    return [path for paths in entries for path, _ in paths], len(entries)


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
    args.number = 0 if args.number is None else args.number
    if not server_library(args):
        return 2
    try:
        library = load_library(Path(args.dir), Path(args.topics))
        matcher = checked_matcher(library, Path(args.config))  # as check does
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
            hint = encoding_hint(raw, exc.start)
            print(f"{path}:{no}: skipped: not UTF-8 (byte {exc.start}){hint}", file=sys.stderr)
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
        # a line that gives no number is numbered 0, no PR's: null, not a PR 0
        out = {"number": facts.number or None, **_match_result_json(matcher.match(facts))}
        print_json(out)
    return status


def add_match_parser(sub) -> None:

    m = command_parser(
        sub,
        "match",
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
    m.add_argument(
        "--repo",
        help="owner/name (default: the server's, the first of REVIEW_NOTES_REPOS or"
        f" {DEFAULT_REPO})",
    )
    m.add_argument(
        "--number", type=whole_number("a PR number (1 or more)", 1), help="the PR number"
    )
    m.add_argument("--json", action="store_true", help="print JSON instead of text")
    m.add_argument(
        "--notes-dir",
        dest="dir",
        help="notes directory " + notes_dir_default(),
    )
    topics_argument(m)
    config_argument(m)
    m.set_defaults(func=_cmd_match)

"""What we know about a pull request, as plain data (pure).

Built from a `pull_request` webhook payload (or a dev-set line) plus the PR's
changed files, which the payload does not carry. The derived views the matcher
reads (title tags, cleaned description, referenced PRs) are computed once per
facts object: the text views by bot/pr_text.py (the description is cleaned before
matching: vLLM's PR template, HTML comments, code blocks and logs say nothing about the
subsystem a PR touches, yet are full of words that would look like evidence), what the
diff shows by bot/pr_diff.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from bot.pr_text import (
    prose,
    referenced_prs,
    title_tags,
    title_text,
    without_comments_and_code,
    without_inline_code,
)

# The repository the bot and its notes are for, where nothing names another
DEFAULT_REPO = "vllm-project/vllm"

# --- the facts -------------------------------------------------------------------


@dataclass(frozen=True)
class PRFacts:
    repo: str  # "owner/name"
    number: int
    title: str
    body: str = ""  # raw, as the author wrote it; see `clean_body` for what is matched
    labels: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    draft: bool = False
    # GitHub's `state` is "closed" (merged or not): PR events leave such a PR alone.
    closed: bool = False
    author: str = ""
    head_sha: str = ""
    # the branch it would merge into (`base.ref`): its files are the diff against it, so
    # a retarget changes them under the same head; "": not known
    base_ref: str = ""
    # Names from the code the PR changes (identifiers on its added and removed lines,
    # see `pr_diff.code_names_in`) -> the files whose diff names them; empty: diff not seen.
    code_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The PR's own count of its changed files (`changed_files`), when known: it tells
    # the whole list (GitHub's listing) from a partial one (files someone happened to see).
    changed_files: int | None = None
    # How many entries GitHub's listing of `files` had: a rename is one entry and two
    # paths, so the paths overcount it. None: one per path (a list given by hand).
    listed_files: int | None = None
    # Files it changes only by moving them or editing their imports (`pr_diff.incidental_files`):
    # they say where code went, not what it does. Empty: the diff was not seen.
    incidental: frozenset[str] = frozenset()
    # A rename's old path -> its new one (GitHub's `previous_filename` -> `filename`):
    # `files` holds both, and a reason names the new one, which a reviewer sees in the
    # diff. Empty: none known (a list given by hand, or of a release that kept none).
    renamed: Mapping[str, str] = field(default_factory=dict)
    # Notes the bot showed on the PRs this one says it fixes, reverts, follows up on,
    # supersedes or builds on (`bot.relations`): note id -> (that PR, the relation).
    # Filled by the shell from what it remembers; empty when matching a PR alone.
    related_notes: Mapping[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def files_complete(self) -> bool:
        """`files` is every file the PR changes (a rename lists both paths)."""
        listed = len(self.files) if self.listed_files is None else self.listed_files
        return bool(self.files) and self.changed_files is not None and listed >= self.changed_files

    @cached_property
    def file_count(self) -> int:
        """How many files the PR changes, as GitHub lists them: a rename is one, though
        `files` holds both its paths (`listed_files`); without that count, one per path.
        GitHub's own count (`changed_files`) when a list is partial (GitHub lists 3,000
        at most): a share of the files seen is no share of the PR's. 0: none known."""
        paths = len(set(self.files))
        listed = paths if self.listed_files is None else min(self.listed_files, paths)
        return max(listed, self.changed_files or 0) if paths else 0

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """Title tags such as `Bugfix`, `Spec Decode`, `ROCm`."""
        return title_tags(self.title)

    @cached_property
    def title_text(self) -> str:
        """The title without its tags."""
        return title_text(self.title)

    @cached_property
    def body_without_code(self) -> str:
        """The description minus HTML comments and code blocks (`without_comments_and_code`),
        read once for both `clean_body` and `refs`."""
        return without_comments_and_code(self.body)

    @cached_property
    def clean_body(self) -> str:
        """The description with template, code blocks, logs and markup removed."""
        return prose(self.body_without_code)

    @cached_property
    def refs(self) -> tuple[int, ...]:
        """Numbers of this repo's PRs/issues the title or description refers to.

        Read from the raw body minus comments and code, so links count but the
        template's `FIX #xxxx` placeholder and code samples do not, inline code spans
        (`` `#52419` ``) and `<code>` included (`reference_text`).
        """
        raw = without_inline_code(self.body_without_code)
        title = without_inline_code(self.title.replace("\r", " ").replace("\n", " "))
        return tuple(n for n in referenced_prs(title + "\n" + raw, self.repo) if n != self.number)


# A file named by an object: gh's `{"path": ...}`, GitHub's list-files `{"filename": ...}`
_FILE_KEYS = ("path", "filename")


def payload_files(payload: dict[str, Any]) -> list[str] | None:
    """Changed files, when a payload carries them (our examples do, GitHub's don't), read
    as a `--batch` line's; ValueError naming an entry of no such shape (taken for "no
    files", a replay would match without its paths and say nothing)."""
    files = payload.get("files")
    return None if files is None else list(_names(files, "files", _FILE_KEYS))


def facts_from_payload(payload: dict[str, Any], files: Iterable[str] = ()) -> PRFacts:
    """PR facts from a `pull_request` event payload (body may be null)."""
    pr = payload["pull_request"]
    user = _object(pr.get("user"), "user")
    return PRFacts(
        repo=payload["repository"]["full_name"],
        number=int(pr["number"]),
        title=_text(pr.get("title"), "title"),
        body=_text(pr.get("body"), "body"),
        labels=_label_names(pr.get("labels")),
        files=tuple(files),
        draft=bool(pr.get("draft")),
        closed=pr.get("state") == "closed",
        author=_text(user.get("login"), "user.login"),
        head_sha=_text(_object(pr.get("head"), "head").get("sha"), "head.sha"),
        base_ref=_text(_object(pr.get("base"), "base").get("ref"), "base.ref"),
        changed_files=_count(pr.get("changed_files")),
    )


def _object(value: Any, field: str) -> dict[str, Any]:
    """A payload's object (null or absent: empty), else an error naming its field."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{field}: not an object ({type(value).__name__})")
    return value


def _label_names(value: Any) -> tuple[str, ...]:
    """A payload's labels: objects with a `name` (one without a name is left out)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"labels: not a list ({type(value).__name__})")
    names = []
    for i, label in enumerate(value):
        if not isinstance(label, dict):
            raise ValueError(f"labels[{i}]: not an object with 'name' ({type(label).__name__})")
        name = _text(label.get("name"), f"labels[{i}].name")
        if name:
            names.append(name)
    return tuple(names)


def facts_from_record(record: dict[str, Any], repo: str = DEFAULT_REPO) -> PRFacts:
    """PR facts from one line of an evaluation file (number, title, body, labels, files).

    `code_names` maps a name to the files naming it, each a path or its index in `files`
    (compact: a 1,500-file PR's diff names thousands of identifiers); `incidental` lists
    the files moved or changed in their imports only, the same way."""
    files = _names(record.get("files"), "files", _FILE_KEYS)

    def paths(where: Any, what: str) -> tuple[str, ...]:
        if not isinstance(where, list):
            raise ValueError(f"{what}: not a list ({type(where).__name__})")
        for i, f in enumerate(where):
            if isinstance(f, bool) or not isinstance(f, (str, int)):
                raise ValueError(f"{what}[{i}]: not a path or an index in files")
        bad = [f for f in where if isinstance(f, int) and not 0 <= f < len(files)]
        if bad:
            raise ValueError(f"{what}: no file at index {bad[0]} (files lists {len(files)})")
        return tuple(files[f] if isinstance(f, int) else f for f in where)

    number = record.get("number") or 0
    if isinstance(number, bool) or not (
        (isinstance(number, int) and number >= 0)  # as a string's digits: -5 is no PR
        or (isinstance(number, str) and number.isascii() and number.isdigit())
    ):
        raise ValueError(f"number: not a PR number ({str(number)[:40]!r})")
    names = record.get("code_names") or {}
    if not isinstance(names, dict) or not all(isinstance(v, list) for v in names.values()):
        raise ValueError("code_names: not an object of lists")
    return PRFacts(
        repo=_text(record.get("repo", repo), "repo"),
        number=int(number),
        title=_text(record.get("title"), "title"),
        body=_text(record.get("body"), "body"),
        labels=_names(record.get("labels"), "labels", ("name",)),
        files=files,
        code_names={k: paths(v, f"code_names[{k!r}]") for k, v in names.items()},
        changed_files=_file_count(record.get("changed_files")),
        incidental=frozenset(paths(record.get("incidental") or [], "incidental")),
    )


def _text(value: Any, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{field}: not a string ({type(value).__name__})")
    return value


def _names(value: Any, field: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """A list of strings, or of objects naming one (`gh pr view --json labels,files` gives
    `{"name": ...}` labels and `{"path": ...}` files)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"{field}: not a list ({type(value).__name__})")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            item = next((item[k] for k in keys if isinstance(item.get(k), str)), None)
        if not isinstance(item, str):
            named = " or ".join(repr(k) for k in keys)
            raise ValueError(f"{field}[{i}]: not a string or an object with {named}")
        out.append(item)
    return tuple(out)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _file_count(value: Any) -> int | None:
    """A line's `changed_files`: absent (None), or a count, else an error naming it (taken
    for "unknown", the tests-only and docs-only rules would silently never apply)."""
    if value is not None and _count(value) is None:
        raise ValueError(f"changed_files: not a count of files ({str(value)[:40]!r})")
    return value

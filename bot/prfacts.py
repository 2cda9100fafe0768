"""What we know about a pull request, as plain data (pure).

Built from a `pull_request` webhook payload (or a dev-set line) plus the PR's
changed files, which the payload does not carry.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PRFacts:
    repo: str  # "owner/name"
    number: int
    title: str
    body: str = ""
    labels: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    draft: bool = False
    author: str = ""
    author_is_bot: bool = False
    head_sha: str = ""


def facts_from_payload(payload: dict[str, Any], files: Iterable[str] = ()) -> PRFacts:
    """PR facts from a `pull_request` event payload (body may be null)."""
    pr = payload["pull_request"]
    user = pr.get("user") or {}
    return PRFacts(
        repo=payload["repository"]["full_name"],
        number=int(pr["number"]),
        title=pr.get("title") or "",
        body=pr.get("body") or "",
        labels=tuple(lb["name"] for lb in pr.get("labels") or () if lb.get("name")),
        files=tuple(files),
        draft=bool(pr.get("draft")),
        author=user.get("login") or "",
        author_is_bot=user.get("type") == "Bot",
        head_sha=(pr.get("head") or {}).get("sha") or "",
    )


def facts_from_record(record: dict[str, Any], repo: str = "vllm-project/vllm") -> PRFacts:
    """PR facts from one line of an evaluation file (number, title, body, labels, files)."""
    return PRFacts(
        repo=record.get("repo", repo),
        number=int(record.get("number") or 0),
        title=record.get("title") or "",
        body=record.get("body") or "",
        labels=tuple(record.get("labels") or ()),
        files=tuple(record.get("files") or ()),
    )

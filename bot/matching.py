"""Which notes a PR should get, ranked, with the reasons (pure).

First version: topic evidence from title keywords, body keywords, path globs and
labels; a note scores the evidence of its topics. To be deepened (issue 3).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bot.globs import glob_matches
from bot.library import ROOT, Library
from bot.notes import Note
from bot.prfacts import PRFacts

DEFAULT_MATCHING_FILE = ROOT / "config" / "matching.toml"


class Weights(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    path: float = 3.0
    label: float = 2.0
    title: float = 2.0
    body: float = 0.5
    source_pr: float = 100.0


class MatchConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    threshold: float = 3.0
    max_notes: int = Field(default=3, ge=1)
    weights: Weights = Weights()


def load_match_config(path: Path = DEFAULT_MATCHING_FILE) -> MatchConfig:
    return MatchConfig.model_validate(tomllib.loads(path.read_text("utf-8")))


@dataclass(frozen=True)
class Match:
    note: Note
    score: float
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class MatchResult:
    matches: tuple[Match, ...]  # linked notes, best first
    topics: tuple[str, ...]  # every topic the PR hit, strongest first


def _term_regex(term: str) -> re.Pattern[str]:
    if term.isascii():
        return re.compile(r"(?<![A-Za-z0-9_])" + re.escape(term) + r"(?![A-Za-z0-9_])", re.I)
    return re.compile(re.escape(term))


def match_pr(facts: PRFacts, library: Library, config: MatchConfig) -> MatchResult:
    w = config.weights
    topic_score: dict[str, float] = {}
    topic_reasons: dict[str, list[str]] = {}

    def hit(topic_id: str, weight: float, reason: str) -> None:
        topic_score[topic_id] = topic_score.get(topic_id, 0.0) + weight
        topic_reasons.setdefault(topic_id, []).append(reason)

    for topic in library.topics.values():
        name = topic.name_en
        for term in topic.keywords:
            rx = _term_regex(term)
            if rx.search(facts.title):
                hit(topic.id, w.title, f"title mentions '{term}' (topic: {name})")
            elif rx.search(facts.body):
                hit(topic.id, w.body, f"description mentions '{term}' (topic: {name})")
        for f in facts.files:
            if any(glob_matches(p, f) for p in topic.paths):
                hit(topic.id, w.path, f"changes {f} (topic: {name})")
                break
        for label in facts.labels:
            if label in topic.labels:
                hit(topic.id, w.label, f"labelled '{label}' (topic: {name})")
    matches = []
    for note in library.for_repo(facts.repo):
        score = sum(topic_score.get(t, 0.0) for t in note.topics)
        reasons = [r for t in note.topics for r in topic_reasons.get(t, [])]
        if note.source_pr == facts.number:
            score += w.source_pr
            reasons.insert(0, f"this PR is the note's source PR ({facts.number})")
        if score >= config.threshold:
            matches.append(Match(note, score, tuple(reasons)))
    matches.sort(key=lambda m: (-m.score, m.note.verdict.rank, m.note.id))
    topics = sorted(topic_score, key=lambda t: (-topic_score[t], t))
    return MatchResult(tuple(matches[: config.max_notes]), tuple(topics))

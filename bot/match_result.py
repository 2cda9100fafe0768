"""What the matcher finds, as data: the evidence for each note and topic, in a
reviewer's words, and the notes linked, best first."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.notes import Note, Topic
from bot.terminal import count_of


class EvidenceKind(StrEnum):
    PATH = "path"
    TAG = "tag"
    TITLE = "title"
    LABEL = "label"
    BODY = "body"
    DIFF = "diff"  # the diff's changed lines name one of the note's code names
    SIMILAR = "similar"  # the title shares rare words with the note's title
    ASPECT = "aspect"  # the title names the note's aspect of a subsystem the PR shows


class Saying(StrEnum):
    """What a reason line that names things says of them."""

    CHANGES = "changes"
    TAG = "title is tagged"  # its one name: the tag as written (`reasons.tag_text`)
    TITLE = "title mentions"
    BODY = "description mentions"
    BOTH = "title and description mention"  # the same words for the same reasons (`reasons`)


@dataclass(frozen=True)
class Said:
    """A reason line that names changed files or words, as data: the files it names and
    how many more it counts, or the words it quotes. Lines naming the same file or word
    are merged on this (`reasons.reason_lines`); `str()` is the line as a reviewer reads it."""

    saying: Saying
    names: tuple[str, ...]  # the files named, or the words quoted, as written
    more: int = 0  # files counted but not named
    # the paths those are, in the line's order, for a line left naming none of its own
    # (`reasons._name_counted`); not part of the line's identity: lines merge as before
    counted: tuple[str, ...] = field(default=(), compare=False)

    @property
    def size(self) -> int:
        """How many things it names or counts: its weight is theirs, in equal shares."""
        return len(self.names) + self.more

    def __str__(self) -> str:
        if self.saying is Saying.TAG:
            return f"{self.saying} [{self.names[0]}]"
        if self.saying is not Saying.CHANGES:
            return f"{self.saying} " + ", ".join(f"'{name}'" for name in self.names)
        if not self.names:
            return f"changes {count_of(self.more, 'other file')}"
        tail = f" and {count_of(self.more, 'more file')}" if self.more else ""
        return f"changes {', '.join(self.names)}{tail}"


@dataclass(frozen=True)
class Evidence:
    kind: EvidenceKind
    weight: float
    what: str | Said  # in a reviewer's words, e.g. "title mentions 'EAGLE'"
    keys: frozenset[str] = frozenset()  # what it rests on, to count shared evidence once
    gloss: str = ""  # why it speaks for the note, e.g. "a term this note is about"

    @property
    def detail(self) -> str:
        return str(self.what)


@dataclass(frozen=True)
class TopicHit:
    """One topic the PR touches, with the evidence, and the notes the library has on it."""

    topic: Topic
    score: float
    evidence: tuple[Evidence, ...]
    note_ids: tuple[str, ...]  # notes of this topic for the PR's repository

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(e.detail for e in self.evidence)

    @property
    def present(self) -> bool:
        """Shown by more than the description, which names neighbouring subsystems all
        the time."""
        return any(e.kind is not EvidenceKind.BODY for e in self.evidence)


@dataclass(frozen=True)
class Match:
    note: Note
    score: float
    reasons: tuple[str, ...]
    specific: float = 0.0  # the part of `score` that does not rest on broad topics
    # False when the note rests on topic evidence only and the PR does not show the note's
    # first topic, its main subsystem; or on a path of its own that no topic agrees with
    on_topic: bool = True
    # True when all that speaks for the note is a path of its own and no topic of the
    # note is hit: a path needs one of them to agree (so `on_topic` is False too)
    path_alone: bool = False
    # True when the note rests on a few changed files of a PR that is mostly elsewhere
    swept: bool = False
    # True when the title names the note itself (one of its own keywords, or its PR)
    named: bool = False
    # True when something beyond its topics speaks for the note: its own words, paths or
    # code, a title like its own, a reference to its PR
    own: bool = True
    # True when the PR is the note's source PR: the guidance is on this very PR
    source: bool = False
    # True when the PR is tied to the note's PR (refers to it, is read with it, fixes
    # the same issue, relates to a PR that got the note): linked whatever else it matches
    tied: bool = False
    # The family topic a title tag names, when the note is not on it and an aspect word
    # is all the note has of its own: the word is that member's (`aspect_beside_family_tag`)
    other_member: str = ""

    @property
    def background(self) -> bool:
        """Linked on its topics alone: the comment badges it "Background", its verdict
        after it (`render.badge_line`), and `review-notes match` says so."""
        return not self.own


@dataclass(frozen=True)
class MatchResult:
    matches: tuple[Match, ...]  # linked notes, best first
    topics: tuple[str, ...]  # every topic the PR hit, strongest first
    topic_hits: tuple[TopicHit, ...] = ()  # the same topics, with their evidence
    candidates: tuple[Match, ...] = ()  # every note with any evidence, linked or not, best first
    # changed files left out as evidence: the PR only moves them or changes their imports
    not_counted: tuple[str, ...] = ()
    # notes at or above the threshold not linked, best first, with the rule that held
    # each back (for the `match` preview: a curator asks why a strong note is missing)
    held_back: tuple[tuple[str, str], ...] = ()

    @property
    def topics_without_notes(self) -> tuple[TopicHit, ...]:
        """Topics the PR hit that no note covers yet."""
        return tuple(h for h in self.topic_hits if not h.note_ids)

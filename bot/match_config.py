"""The matcher's configuration: config/matching.toml as data (weights of each kind of
evidence, the threshold, how many notes, the curated lists), read and checked with the
file, line and field of any fault. bot/matching.py explains what each setting does."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, InstanceOf, field_validator

from bot.config_files import ConfigError, ConfigFile, load_vocabulary, read_config
from bot.library import DEFAULT_MATCHING_FILE, Library, unknown_topic
from bot.matching import CompiledMatcher
from bot.note_files import Problem
from bot.notes import SEARCHED_GUIDANCE_CHARS, Glob, Term, Topic
from bot.similarity import Vocabulary


class Weights(BaseModel):
    """How much each kind of evidence says (see config/matching.toml, whose values are
    the defaults here: tests/test_matching.py checks they agree)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    path: float = Field(default=3.0, ge=0)
    tag: float = Field(default=2.5, ge=0)
    title: float = Field(default=2.0, ge=0)
    label: float = Field(default=1.5, ge=0)
    body: float = Field(default=0.5, ge=0)
    aux_path: float = Field(default=1.0, ge=0)
    note_path: float = Field(default=4.0, ge=0)
    note_tag: float = Field(default=3.0, ge=0)
    note_title: float = Field(default=3.0, ge=0)
    note_code: float = Field(default=4.0, ge=0)
    note_body: float = Field(default=0.75, ge=0)
    note_body_code: float = Field(default=2.0, ge=0)
    note_diff: float = Field(default=3.0, ge=0)
    note_similar: float = Field(default=4.0, ge=0)
    note_aspect: float = Field(default=3.0, ge=0)
    source_ref: float = Field(default=4.0, ge=0)
    source_pr: float = Field(default=100.0, ge=0)


class MatchConfig(BaseModel):
    """config/matching.toml. Each number and switch defaults to the shipped file's value
    (tests/test_matching.py checks they agree), so `MatchConfig()` matches as production
    does. The lists default to empty (off): the topics they name depend on the taxonomy
    (a topic it lacks is refused), and the globs, words and vocabulary are curated data
    that live in the file only."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    threshold: float = Field(default=4.0, gt=0)
    max_notes: int = Field(default=3, ge=1)
    relative_floor: float = Field(default=0.5, ge=0, le=1)
    topic_cap: float = Field(default=4.0, gt=0)
    coverage_power: float = Field(default=1.0, ge=0)
    body_terms: int = Field(default=2, ge=0)
    path_share_floor: float = Field(default=0.5, ge=0, le=1)
    min_specific: float = Field(default=2.0, ge=0)
    main_topic_first: bool = True
    extra_links_need_own: bool = True
    # A note whose topics are all broad: an aspect no topic lists, beside its first
    # topic, counts its topics' evidence at full weight (bot/matching.py).
    broad_note_aspect: bool = True
    # An aspect all a note has of its own, in a title tagged with a family member the
    # note is not on, is that member's word: the note is held back (bot/link_rules.py).
    aspect_beside_family_tag: bool = True
    files_only_share: float = Field(default=0.33, ge=0, le=1)
    # Docs and examples: a PR changing only these under a topic discusses the topic
    # (`weights.aux_path`), it does not change its mechanism.
    aux_files: tuple[Glob, ...] = ()
    # Title words that say the change is cosmetic (a typo, comments, a clean-up).
    cosmetic_words: tuple[Term, ...] = ()  # checked as a keyword is: `清理、typo` never matches
    # Tests and CI configuration: a PR changing only these (all its files known) keeps
    # them working; it gets notes on `upkeep_topics` or notes its title names.
    upkeep_files: tuple[Glob, ...] = ()
    upkeep_topics: frozenset[str] = frozenset()
    # A title resembling a note's title (bot/similarity.py): words rarer than
    # `similar_floor` (IDF) count; from `similar_from` on, each `similar_span` of summed
    # IDF adds one point, up to `weights.note_similar`. No vocabulary: not used. The
    # file names the vocabulary's file; the config loader (`load_match_config`) reads it,
    # so matching is given the data and never reads a file.
    vocabulary: InstanceOf[Vocabulary] | None = None
    similar_floor: float = Field(default=3.0, ge=0)
    similar_from: float = Field(default=12.0, ge=0)
    similar_span: float = Field(default=5.0, gt=0)
    similar_min_words: int = Field(default=2, ge=1)
    # `notes check` only: a one-word note keyword in this share of titles is too common
    common_keyword_share: float = Field(default=0.02, gt=0, le=1)
    # `notes check` only: a note's guidance longer than this many characters is warned of;
    # at most what a search reads of one (`_searched_whole`)
    guidance_max_chars: int = Field(default=20_000, ge=1)
    weights: Weights = Weights()
    # Broad topics (a platform, CI, a kernel family everyone touches) say less about any
    # one note: their score is multiplied by this, after the cap. Topic id -> factor.
    # each factor 0 to 10, checked per topic: a bad one is named on its own line
    topic_scale: dict[str, Annotated[float, Field(ge=0, le=10)]] = Field(default_factory=dict)
    # Family topics (every KV connector): full weight, but like broad topics they cannot
    # carry a note, whose mechanism is one member or one aspect of the family.
    family_topics: frozenset[str] = frozenset()

    @field_validator("guidance_max_chars")
    @classmethod
    def _searched_whole(cls, limit: int) -> int:
        """A limit above what a search reads of a guidance lets `notes check` pass a note
        whose end no search finds: refused, saying why, as the server refuses the file."""
        if limit > SEARCHED_GUIDANCE_CHARS:
            raise ValueError(
                f"{limit:,} is more than a search reads of a guidance, its first"
                f" {SEARCHED_GUIDANCE_CHARS:,} characters (bot/search.py): a note `notes check`"
                f" passes would not be found by the words past them; set"
                f" {SEARCHED_GUIDANCE_CHARS:,} or less"
            )
        return limit


def load_match_config(path: Path = DEFAULT_MATCHING_FILE) -> MatchConfig:
    """Read config/matching.toml; a bad file raises ValueError (ConfigError) naming the
    file, line and field."""
    return match_config(read_config(path))


def checked_matcher(library: Library, path: Path = DEFAULT_MATCHING_FILE) -> CompiledMatcher:
    """The matching config, read and compiled against the library: the matcher the
    server builds once at start and keeps for every PR, and `notes match` for its PRs.
    Any fault, a topic the taxonomy lacks included, is a ValueError naming the file; an
    unknown topic's names the taxonomy file the library was read from (`Library.taxonomy`),
    so that no caller names another."""
    try:
        file = read_config(path)
    except OSError as exc:
        raise ConfigError([Problem(str(path), 1, "file", f"cannot read: {exc.strerror}")]) from None
    config = match_config(file)
    unknown = unknown_topics(file, library.topics, library.taxonomy)
    if unknown:
        raise ConfigError(unknown)
    try:
        return CompiledMatcher(library, config)
    except ValueError as exc:
        raise ConfigError([Problem(str(path), 1, "config", str(exc))]) from None


def checked_match_config(library: Library, path: Path = DEFAULT_MATCHING_FILE) -> MatchConfig:
    """The matching config, checked as `checked_matcher` checks it (compiled included):
    what `notes check` runs before the server does."""
    return checked_matcher(library, path).config


class _MatchFile(MatchConfig):
    """config/matching.toml as written: `vocabulary` is the name of a file."""

    vocabulary: Path | None = None  # type: ignore[assignment]


def match_config(file: ConfigFile) -> MatchConfig:
    data = dict(file.data)
    if isinstance(data.get("vocabulary"), str):  # relative to the config file
        data["vocabulary"] = file.path.parent / data["vocabulary"]
    written = file.validate(_MatchFile, data)
    vocabulary = None
    if written.vocabulary is not None:
        try:
            vocabulary = load_vocabulary(written.vocabulary)  # a bad file fails here, named
        except ValueError as exc:
            raise ConfigError([file.problem("vocabulary", str(exc))]) from None
    return MatchConfig.model_validate({**dict(written), "vocabulary": vocabulary})


# The fields of the config naming topics: a renamed topic must be renamed there too.
_TOPIC_FIELDS = ("topic_scale", "family_topics", "upkeep_topics")


def unknown_topics(file: ConfigFile, topics: Mapping[str, Topic], taxonomy: str) -> list[Problem]:
    """Each topic the config names that the taxonomy (`topics`, by id, read from the file
    `taxonomy`) lacks, on its line: its key in the `topic_scale` table, its element in a
    list; said as a note's is, naming the taxonomy file read."""
    problems = []
    for field in _TOPIC_FIELDS:
        named = file.data.get(field)
        for topic in dict.fromkeys(named if isinstance(named, dict | list) else ()):
            if not isinstance(topic, str) or topic in topics:
                continue
            msg = unknown_topic(topic, topics, taxonomy)
            problem = file.problem(field, msg, topic)
            if isinstance(named, dict):
                line = file.header.line_of(f"{field}.{topic}", default=problem.line)
                problem = Problem(problem.path, line, field, msg)
            problems.append(problem)
    return problems


def config_problems(path: Path, topics: Mapping[str, Topic], taxonomy: Path) -> list[Problem]:
    """What the server would refuse in the config that needs no notes: its own faults and
    the topics the taxonomy lacks. For `notes check` when the notes do not load, so that a
    renamed topic is named in the notes and here in one run. No topics (the taxonomy did
    not load, its problems say why): none is checked."""
    try:
        file = read_config(path)
        match_config(file)
    except OSError as exc:
        return [Problem(str(path), 1, "file", f"cannot read: {exc.strerror}")]
    except ConfigError as exc:
        return exc.problems
    return unknown_topics(file, topics, str(taxonomy)) if topics else []

"""Which of the scored notes a PR gets, and why each other one is held back (pure).

Step 3 of the flow (event -> PR facts -> matches -> comment -> GitHub), once the notes
are scored. The matcher (bot/matching.py) says what each note's evidence is (`Match.own`,
`named`, `on_topic`, ...); these rules only read it. Limits live in
config/matching.toml. The rules: `LinkRules.link`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.match_result import Match
from bot.notes import Verdict
from bot.pathindex import GlobIndex
from bot.prfacts import PRFacts
from bot.terms import TermIndex

if TYPE_CHECKING:  # the config is data here; match_config, its loader, imports the matcher
    from bot.match_config import MatchConfig

_VERDICT_RANK = {v: v.rank for v in Verdict}  # deep before quick before skip


@dataclass(frozen=True)
class Linking:
    ranked: tuple[Match, ...]  # every scored note, best first (source notes first)
    linked: tuple[Match, ...]
    held_back: tuple[tuple[str, str], ...]  # (note id, the first rule that held it)


class LinkRules:
    """The rules of config/matching.toml that decide, once notes are scored, which are
    linked. Built once per matcher."""

    def __init__(self, config: MatchConfig, broad: frozenset[str]):
        self.config = config
        self.broad = broad  # broad and family topics: context, they single out nothing
        self.aux: GlobIndex[int] = GlobIndex((g, 0) for g in config.aux_files)
        self.upkeep: GlobIndex[int] = GlobIndex((g, 0) for g in config.upkeep_files)
        self._cosmetic = TermIndex(list(config.cosmetic_words))

    def link(
        self, scored: list[Match], source_ids: set[str], facts: PRFacts, shown: set[str]
    ) -> Linking:
        """The notes to link, best first, and those held back. `source_ids`: the notes
        whose source PR this is; `shown`: the topics the PR shows.

        A note is linked when its score reaches the threshold and is not far below the best
        linked note's (`relative_floor`); at most `max_notes`, best first, deep reads before
        quick reads at equal score. A PR that is a note's source PR gets that note first,
        whatever the rules below. Before that, a note above the threshold is held back when:
        - its own evidence (without broad and family topics) is under `min_specific`;
        - its only evidence of its own is its path (a title like the note's aside), and none
          of its topics agrees;
        - it has no evidence of its own and the PR does not show its first topic, its
          subsystem: the others say where it applies (`main_topic_first`);
        - changed files alone show it (no word of its own, no title word, tag or label of its
          topics), and they are under `files_only_share` of the PR's: a sweep across the tree
          touches a test file of every subsystem;
        - an aspect is all it has of its own and the title's tag names a member of a family
          topic it is not on, and none of its topics (`aspect_beside_family_tag`);
        - the kind of change needs no guidance on it: a title that says the change is
          cosmetic (`cosmetic_words`) or a PR of docs and examples only (`aux_files`) gets only
          notes its title names by their own words; one of tests and CI only (`upkeep_files`)
          those or notes on CI and test plumbing (`upkeep_topics`). Both need the whole file
          list (`PRFacts.files_complete`): a partial one may have missed the code;
        - it rests on its topics alone and is not the best note, or those topics fit another
          note as well (`extra_links_need_own`).
        """

        def rank(m: Match) -> tuple:
            return (m.note.id not in source_ids, -m.score, _VERDICT_RANK[m.note.verdict], m.note.id)

        ranked = sorted(scored, key=rank)
        sources = [m for m in ranked if m.note.id in source_ids]
        others = [m for m in ranked if m.note.id not in source_ids]
        eligible, held = self._eligible(others, ranked, facts, shown, first=0 if sources else 1)
        linked = sources + eligible
        cap = self.config.max_notes
        held += [(m, f"over the limit of {cap} notes") for m in linked[cap:]]
        return Linking(
            ranked=tuple(ranked),
            linked=tuple(linked[:cap]),
            held_back=tuple((m.note.id, why) for m, why in sorted(held, key=lambda h: rank(h[0]))),
        )

    def _ambiguous(self, best: Match, scored: list[Match], shown: set[str]) -> bool:
        """Another note resting on its topics alone has every topic the PR shows of
        this one: the topic evidence does not single out either. A broad topic is
        context and singles out nothing: [ROCm] on a sparse-MLA CUDA-graph PR does not
        make it the ROCm one of three sparse-MLA CUDA-graph notes."""
        mine = shown.intersection(best.note.topics) - self.broad
        return any(
            not m.own and m.note.id != best.note.id and mine.issubset(m.note.topics) for m in scored
        )

    def _kind_problem(self, facts: PRFacts) -> Callable[[Match], str | None]:
        """Why a note does not suit the kind of change (None: it does): a typo fix, a
        clean-up or a docs-only change in a subsystem needs no reading guidance on it,
        unless its title names the note's own mechanism; a change to tests and CI alone
        needs guidance on tests and CI, or on what its title names."""
        # in its text or a tag of its own (`[Cleanup]`, `[Typo]`)
        cosmetic = any(self._cosmetic.find(t) for t in (facts.title_text, *facts.tags))
        docs = self._only(self.aux, facts)
        upkeep = self._only(self.upkeep, facts)
        upkeep_topics = self.config.upkeep_topics

        def problem(m: Match) -> str | None:
            if m.named:
                return None
            if cosmetic:
                return "the title says the change is cosmetic, and names no word of the note"
            if docs:
                return (
                    "the PR changes only docs and examples, and its title names no word of the note"
                )
            if upkeep and upkeep_topics.isdisjoint(m.note.topics):
                return "the PR changes only tests and CI, and the note is not on their plumbing"
            return None

        return problem

    @staticmethod
    def _only(kind: GlobIndex[int], facts: PRFacts) -> bool:
        """Every file the PR changes is of this kind (docs, tests and CI...), and the
        list is the whole of them: a partial one may have missed the code."""
        return facts.files_complete and all(kind.owners(f) for f in facts.files)

    def _eligible(
        self, ranked: list[Match], scored: list[Match], facts: PRFacts, shown: set[str], first: int
    ) -> tuple[list[Match], list[tuple[Match, str]]]:
        """The scored notes (not source notes, best first) that may be linked: above the
        threshold and not far below the best, on topic, not a sweep's, fitting the kind of
        change; only the first `first` of them may rest on their topics alone. Also the
        notes above the threshold held back, each with the first rule that held it."""
        cfg, kind_problem = self.config, self._kind_problem(facts)
        eligible: list[Match] = []
        held: list[tuple[Match, str]] = []
        for m in ranked:
            if m.score < cfg.threshold:
                continue
            why = self._held_by_evidence(m) or kind_problem(m)
            if why:
                held.append((m, why))
            else:
                eligible.append(m)
        if cfg.extra_links_need_own:
            # the best note may rest on its topics, unless they fit another note as well
            # (three notes on sparse-MLA CUDA graphs: a PR on that pair names none of
            # them); a second note on the same subsystem evidence would only repeat it
            kept = []
            for n, m in enumerate(eligible):
                if m.own or (n < first and not self._ambiguous(m, scored, shown)):
                    kept.append(m)
                elif n < first:
                    held.append((m, "rests on its topics alone, which fit another note as well"))
                else:
                    held.append((m, "rests on its topics alone, and is not the best note"))
            eligible = kept
        if eligible:  # relative to the best note that is linked, not to one left out
            # a note tied to the PR (another fix of its PR's bug) stays, whatever else
            # the PR is about
            floor = cfg.relative_floor * eligible[0].score
            low = [m for m in eligible if m.score < floor and not m.tied]
            held += [(m, f"far below the best note ({eligible[0].note.id})") for m in low]
            eligible = [m for m in eligible if m not in low]
        return eligible, held

    def _held_by_evidence(self, m: Match) -> str | None:
        """Why the kind of evidence for a note above the threshold does not carry it."""
        cfg = self.config
        if m.specific < cfg.min_specific:
            return (
                f"rests on broad or family topics: its own evidence scores {m.specific:g},"
                f" under {cfg.min_specific:g}"
            )
        if m.path_alone:
            return "shown by a path of its own alone: none of its topics agrees"
        if not m.on_topic and cfg.main_topic_first:
            return f"the PR does not show the note's first topic ({m.note.topics[0]})"
        if m.swept:
            return "shown by changed files alone, too small a share of the PR's files"
        if m.other_member:
            return (
                "rests on an aspect word, and the title's tag names a member of the"
                f" {m.other_member} family, which the note is not on"
            )
        return None

"""Which notes a PR should get, ranked, with the reasons (pure: no I/O, no global state).

Step 3 of the flow (event -> PR facts -> matches -> comment -> GitHub): every note is
scored against the PR's facts (title, tags, description, labels, changed files), and
`bot.link_rules` links the best. The way through, and the evidence each note collects:
`CompiledMatcher.match`.

`CompiledMatcher(library, config)` builds the indexes: every keyword in one trie-shaped
regex, every glob in a path index, topic -> notes. Whoever matches many PRs builds it once
and keeps it (the server on its `BotContext`, the scripts and the bench in a variable);
`match_pr` compiles one for a single PR.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.library import Library
from bot.link_rules import LinkRules
from bot.match_result import Evidence, EvidenceKind, Match, MatchResult, Said, Saying, TopicHit
from bot.notes import Note
from bot.pathindex import GlobIndex
from bot.prfacts import PRFacts
from bot.reasons import (
    ALSO_IN,
    ASPECT,
    IS_SOURCE,
    KEYWORD,
    OWN_CODE,
    OWN_PATH,
    READ_WITH,
    TOPIC,
    Weighed,
    also_in,
    changes,
    diff_names,
    labeled,
    mentions,
    reason_lines,
    refers_to_issue,
    refers_to_source,
    related_via,
    shared_detail,
    tagged,
)
from bot.said_once import (
    Scan,
    own_mentions,
    said_apart,
    said_in,
    same_mentions,
    shows_topic,
    title_cover,
    wider_mentions,
)
from bot.similarity import Vocabulary, names_in, shared_words, title_words
from bot.term_spans import (
    apart,
    blanked,
    distinct,
    inside,
    one_per_mention,
    quoted_apart,
)
from bot.terms import TermHit, TermIndex, is_code_name, is_private_name, term_key

if TYPE_CHECKING:  # matching takes the config as data; match_config, its loader, imports this
    from bot.match_config import MatchConfig

_FIRST_HAND = (
    EvidenceKind.PATH,
    EvidenceKind.TAG,
    EvidenceKind.TITLE,
)  # what labels are derived from


def _files_alone(evidence: Iterable[Evidence]) -> set[str] | None:
    """The changed files this evidence rests on, or None when a word, tag or label
    is part of it (a description word alone counts as neither)."""
    files: set[str] = set()
    for e in evidence:
        if e.kind is EvidenceKind.PATH:
            files |= e.keys
        elif e.kind is not EvidenceKind.BODY:
            return None
    return files


def _quoted(words: list[tuple[str, float]]) -> list[str]:
    """The shared words a similar-title line quotes: the four rarest."""
    return [w for w, _ in words[:4]]


def _shared_paths(own: list[Evidence], hit: list[TopicHit]) -> list[str]:
    """The changed files both the note's own paths and its topics hold: named once,
    with both reasons (`_named_by`)."""
    mine = frozenset().union(*(e.keys for e in own if e.kind is EvidenceKind.PATH))
    topics = frozenset().union(
        *(e.keys for th in hit for e in th.evidence if e.kind is EvidenceKind.PATH)
    )
    return sorted(mine & topics)


def _named_by(said: str | Said, files: frozenset[str], both: list[str]) -> str | Said:
    """A changed-files line naming the files both the note's own paths and a topic
    hold (`both`), and counting the rest: each of those files gets one line with both
    reasons ("changes a.py (a path of this note; topic: X)"), the rest of each side
    its "N other files", none named on one line and counted again on another. The rest
    keep their order, the file the line named first first: it is the one a reader sees
    on the line left counting them (`reasons._name_counted`)."""
    names = tuple(f for f in both if f in files)
    if not names or not isinstance(said, Said):
        return said
    rest = tuple(f for f in (*said.names, *said.counted) if f not in names)
    return Said(said.saying, names, max(said.size - len(names), 0), rest)


def _as_seen(scored: list[Weighed], renamed: Mapping[str, str]) -> list[Weighed]:
    """The changed-files lines naming a renamed file by its new path (`renamed`: old ->
    new), the one a reviewer sees in the diff: GitHub lists both paths, and a note's or
    topic's glob may hold the old one only ("changes vllm/old/x.py" of a file that is now
    vllm/new/x.py). A rename's two paths on one line are its one file, named once. A file
    whose new path no line holds (moved out of every glob that took it) is said as GitHub's
    diff heads a rename, "old → new": named by the new path alone it would read as a path
    of the note, and `reasons.evidence_terms` takes the old one, which the note holds."""
    if not renamed:
        return scored
    held = {
        path
        for _, what, _ in scored
        if isinstance(what, Said) and what.saying is Saying.CHANGES
        for path in (*what.names, *what.counted)
    }
    seen = {old: new if new in held else f"{old} → {new}" for old, new in renamed.items()}
    out: list[Weighed] = []
    for weight, what, why in scored:
        if isinstance(what, Said) and what.saying is Saying.CHANGES:
            names = tuple(dict.fromkeys(seen.get(n, n) for n in what.names))
            rest = (seen.get(f, f) for f in what.counted)
            counted = tuple(dict.fromkeys(f for f in rest if f not in names))
            more = min(what.more, len(counted)) if what.counted else what.more
            what = Said(what.saying, names, more, counted)
        out.append((weight, what, why))
    return out


def _title_evidence(hits: list[TermHit], weight: float) -> Evidence:
    """The title's mentions of a topic's keywords, one evidence (`capture sizes` is one
    mention of two keywords)."""
    keys = frozenset("title:" + h.key for h in hits)
    return Evidence(EvidenceKind.TITLE, weight, mentions(Saying.TITLE, distinct(hits)), keys)


def _file_count(paths: Collection[str], scan: Scan) -> int:
    """How many of the PR's files these paths are: as many as the paths, but never more
    than the PR's files (a rename's two paths are one file: "changes scale.py", not
    "scale.py and 1 more file"). Which paths pair up is not kept, so a rename whose two
    paths both fall under the same globs still counts twice when the PR has other files."""
    return min(len(paths), scan.n_files) if scan.n_files else len(paths)


def _changed_by(name: str, facts: PRFacts) -> tuple[str, ...]:
    """The files whose diff names this code name, but those the PR only moves or changes
    in their imports: a name on an import line that follows a move is no evidence."""
    return tuple(f for f in facts.code_names.get(name, ()) if f not in facts.incidental)


@dataclass(frozen=True)
class _Flags:
    """What the kind of a note's evidence says (`CompiledMatcher._hold_back_flags`), as in Match."""

    on_topic: bool
    path_alone: bool
    swept: bool
    named: bool
    own: bool


class CompiledMatcher:
    """The library and configuration, indexed for matching many PRs. Build it once and
    keep it: `match` only reads the indexes (but for TermIndex's memo of per-keyword
    regexes, whose single dict assignments store what any thread would compute the
    same), so the delivery workers share one across their threads. An index that names
    a topic the library lacks raises ValueError here."""

    def __init__(self, library: Library, config: MatchConfig):
        self.library = library
        self.config = config
        self.notes = library.notes
        self._by_id = {note.id: i for i, note in enumerate(self.notes)}
        self._repo = [n.repo.lower() for n in self.notes]
        # In keyword order, not a set: reasons must come out the same on every run, or the
        # sticky comment would be rewritten for nothing.
        self._note_keys = [
            tuple(dict.fromkeys(filter(None, map(term_key, n.keywords)))) for n in self.notes
        ]
        # Code names as written, to look up in the names a diff changes (exact: code).
        self._code_words = [tuple(k for k in n.keywords if is_code_name(k)) for n in self.notes]
        self._aspect_keys = [
            tuple(dict.fromkeys(filter(None, map(term_key, n.aspects)))) for n in self.notes
        ]
        self._code_keys = [frozenset(map(term_key, words)) for words in self._code_words]
        self._code_notes: dict[str, list[int]] = defaultdict(list)
        for i, words in enumerate(self._code_words):
            for word in words:
                self._code_notes[word].append(i)
        topic_terms, topic_globs = self._index_topics()
        note_terms, note_globs = self._index_notes()
        named = set(config.topic_scale) | config.family_topics | config.upkeep_topics
        unknown = sorted(named - set(library.topics))
        if unknown:
            raise ValueError(
                "topic_scale, family_topics or upkeep_topics names unknown topic(s): "
                + ", ".join(unknown)
            )
        self._broad = config.family_topics | {t for t, f in config.topic_scale.items() if f < 1}
        self._narrow = frozenset(t for t, f in config.topic_scale.items() if f > 1)
        self._terms = TermIndex(topic_terms + note_terms)
        self._globs: GlobIndex[tuple[str, str | int]] = GlobIndex(topic_globs + note_globs)
        self._rules = LinkRules(config, frozenset(self._broad))
        self._aux, self._upkeep = self._rules.aux, self._rules.upkeep  # asked when saying files
        self._vocab: Vocabulary | None = config.vocabulary
        self._index_titles()

    def _index_topics(self) -> tuple[list[str], list[tuple[str, tuple[str, str | int]]]]:
        """Each topic's keywords, tags and labels, to its ids; its terms and globs to
        compile (a glob's owner: ("t", topic id))."""
        self._term_topics: dict[str, list[str]] = defaultdict(list)
        self._tag_topics: dict[str, list[str]] = defaultdict(list)
        self._label_topics: dict[str, list[str]] = defaultdict(list)
        terms: list[str] = []
        globs: list[tuple[str, tuple[str, str | int]]] = []
        for topic in self.library.topics.values():
            for term in topic.keywords:
                key = term_key(term)
                if key and topic.id not in self._term_topics[key]:
                    self._term_topics[key].append(topic.id)
                terms.append(term)
            for term in topic.tags:  # `[Build]`: found in a title tag only
                key = term_key(term)
                if key and topic.id not in self._tag_topics[key]:
                    self._tag_topics[key].append(topic.id)
                terms.append(term)
            globs += [(p, ("t", topic.id)) for p in topic.paths]
            for label in topic.labels:
                self._label_topics[label.lower()].append(topic.id)
        return terms, globs

    def _index_notes(self) -> tuple[list[str], list[tuple[str, tuple[str, str | int]]]]:
        """Each note's keywords, topics, source PR, PRs to read with it and issues, to
        the note; its terms and globs to compile (a glob's owner: ("n", note index))."""
        self._term_notes: dict[str, list[int]] = defaultdict(list)
        self._notes_by_topic: dict[str, list[int]] = defaultdict(list)
        self._by_source: dict[tuple[str, int], list[int]] = defaultdict(list)
        self._by_reading: dict[tuple[str, int], list[int]] = defaultdict(list)
        self._by_issue: dict[tuple[str, int], list[int]] = defaultdict(list)
        terms: list[str] = []
        globs: list[tuple[str, tuple[str, str | int]]] = []
        for i, note in enumerate(self.notes):
            for term in note.keywords:
                key = term_key(term)
                if key and i not in self._term_notes[key]:
                    self._term_notes[key].append(i)
                terms.append(term)
            terms += note.aspects  # found like keywords; a note's candidacy comes from its topic
            globs += [(p, ("n", i)) for p in note.paths]
            for t in note.topics:
                self._notes_by_topic[t].append(i)
            if note.source_pr is not None:
                self._by_source[(note.repo.lower(), note.source_pr)].append(i)
            for n in note.read_with:
                self._by_reading[(note.repo.lower(), n)].append(i)
            for n in note.issues:
                self._by_issue[(note.repo.lower(), n)].append(i)
        return terms, globs

    def _index_titles(self) -> None:
        """The words of each note's title and keywords, for a title like the note's."""
        # the note's title and its keywords say what it is about: a title may share either.
        # A private name (`_capturing`) matches only as written, as a keyword: its words
        # are no English words the title shares ("Fix capturing flag" is not `_capturing`)
        public = [" ".join(k for k in n.keywords if not is_private_name(k)) for n in self.notes]
        self._title_words = [
            title_words(f"{n.title_en} {words}")
            for n, words in zip(self.notes, public, strict=True)
        ]
        self._title_only = [title_words(n.title_en) for n in self.notes]
        self._keyword_words = [
            [title_words(k) for k in n.keywords if not is_private_name(k)] for n in self.notes
        ]
        # what they write, for a reason to quote no more than the note says
        self._names = [
            (names_in(n.title_en), names_in(words))
            for n, words in zip(self.notes, public, strict=True)
        ]

    # -- scanning --

    def _scan(self, facts: PRFacts) -> Scan:
        said: dict[str, list[tuple[str, TermHit]]] = defaultdict(list)
        for tag in facts.tags:
            for key, hit in self._terms.find(tag).items():
                said[key].append((tag, hit))
        tags = {key: places[0] for key, places in said.items()}
        in_text = self._terms.find(facts.title_text)
        for key, hit in in_text.items():
            said[key].append((facts.title_text, hit))
        title = {k: h for k, h in in_text.items() if k not in tags}
        body = self._terms.find(facts.clean_body)
        topic_files: dict[str, list[str]] = defaultdict(list)
        note_files: dict[int, list[str]] = defaultdict(list)
        moved: set[str] = set()
        for path in dict.fromkeys(facts.files):
            if path in facts.incidental:
                # moved, or changed in its imports: not a change to its subsystem
                moved.update(str(o) for kind, o in self._globs.owners(path) if kind == "t")
                continue
            for kind, owner in self._globs.owners(path):
                if kind == "t":
                    topic_files[owner].append(path)  # type: ignore[index]
                else:
                    note_files[owner].append(path)  # type: ignore[index]
        labels: dict[str, list[str]] = defaultdict(list)
        for label in dict.fromkeys(facts.labels):
            for tid in self._label_topics.get(label.lower(), ()):
                labels[tid].append(label)
        n_files = facts.file_count  # GitHub's entries: a rename is one file, two paths
        words = title_words(facts.title_text) if self._vocab is not None else frozenset()
        return Scan(
            tags,
            title,
            body,
            topic_files,
            note_files,
            labels,
            n_files,
            words,
            frozenset(moved),
            said,
            facts.title_text,
        )

    def _share(self, matched: int, total: int) -> float:
        """A file under the subsystem says less when it is one of hundreds."""
        floor = self.config.path_share_floor
        return floor + (1 - floor) * (matched / total if total else 1.0)

    # -- topics --

    def _topic_hits(self, facts: PRFacts, scan: Scan, repo: str) -> list[TopicHit]:
        w = self.config.weights
        by_topic: dict[str, dict[EvidenceKind, list]] = defaultdict(lambda: defaultdict(list))
        for key, (tag, hit) in scan.tags.items():
            for tid in dict.fromkeys(
                (*self._term_topics.get(key, ()), *self._tag_topics.get(key, ()))
            ):
                by_topic[tid][EvidenceKind.TAG].append((tag, hit))
        for place, kind in ((scan.title, EvidenceKind.TITLE), (scan.body, EvidenceKind.BODY)):
            for key, hit in place.items():
                for tid in self._term_topics.get(key, ()):
                    by_topic[tid][kind].append(hit)
        for tid in scan.topic_files:
            by_topic[tid][EvidenceKind.PATH] = scan.topic_files[tid]
        for tid in scan.labels:
            by_topic[tid][EvidenceKind.LABEL] = scan.labels[tid]

        # mergify derives a label from files and title words; once any topic carrying that
        # label shows them, the label is that fact again, for every topic that carries it
        # (`ci/build` from a cmake/ file says nothing more about CI pipelines). A file the
        # PR only moves is no evidence, and neither is the label derived from it.
        shown = {tid for tid, found in by_topic.items() if any(k in found for k in _FIRST_HAND)}
        shown |= scan.moved_topics
        hits = []
        for tid, found in by_topic.items():
            ev: list[Evidence] = []
            if files := found.get(EvidenceKind.PATH):
                aux = all(self._is_aux(f, scan) for f in files)
                n = _file_count(files, scan)
                weight = (w.aux_path if aux else w.path) * self._share(n, scan.n_files)
                said = changes(self._code_first(files, scan), n)
                ev.append(Evidence(EvidenceKind.PATH, weight, said, frozenset(files)))
            if in_tags := found.get(EvidenceKind.TAG):
                keys = frozenset("title:" + h.key for _, h in in_tags)
                ev.append(Evidence(EvidenceKind.TAG, w.tag, tagged(*in_tags[0]), keys))
            if in_title := found.get(EvidenceKind.TITLE):
                ev.append(_title_evidence(in_title, w.title))
            if in_body := found.get(EvidenceKind.BODY):
                ev.append(self._body_evidence(in_body))
            labels = [
                lb
                for lb in found.get(EvidenceKind.LABEL, ())
                if not shown.intersection(self._label_topics.get(lb.lower(), ()))
            ]
            if labels:
                ev.append(Evidence(EvidenceKind.LABEL, w.label, labeled(labels), frozenset(labels)))
            scale = self.config.topic_scale.get(tid, 1.0)
            score = min(self.config.topic_cap, sum(e.weight for e in ev)) * scale
            if score <= 0:
                continue
            ev.sort(key=lambda e: -e.weight)
            note_ids = tuple(
                self.notes[i].id for i in self._notes_by_topic.get(tid, ()) if self._repo[i] == repo
            )
            hits.append(TopicHit(self.library.topics[tid], score, tuple(ev), note_ids))
        order = {tid: n for n, tid in enumerate(self.library.topics)}
        hits.sort(key=lambda h: (-round(h.score, 6), order[h.topic.id]))
        return hits

    # -- match --

    def match(self, facts: PRFacts) -> MatchResult:
        """Scan the PR, score every note with any evidence, and link the ones that hold.

        The way through, in `CompiledMatcher.match`: `_scan` finds what the PR's title, tags,
        description, files and labels hit; `_topic_hits` scores the topics; `_score_note` scores
        each candidate note (its topics' part, `_topic_part`, plus its own evidence,
        `_own_evidence`, plus what ties it to the PR, `_ties`); `bot.link_rules` links the best.
        Each piece of evidence carries its words for the reader; bot/said_once.py sees that a
        word the PR says once counts once and is named once (`_said_once` here for the
        similar-title line), bot/reasons.py words the lines, and bot/term_spans.py tells which
        mentions lie inside others.

        Evidence is gathered per topic of the taxonomy, then per note:
        - a topic is hit by its path globs (changed files, except those the PR only moves or
          changes in their imports: `PRFacts.incidental`), its keywords (title tags, the
          title, the cleaned description) and its GitHub labels. A label only counts when
          neither a file nor the title already showed the topic: vLLM's mergify derives its
          labels from those, so counting both would count one fact twice. A topic's score is
          capped, so one subsystem cannot outweigh everything else. Files that are all docs or
          examples (`aux_files`) weigh less: the PR discusses the topic, not its mechanism.
        - a note collects the scores of its topics, scaled by the share of its topics the PR
          hits (a note about "elastic EP on ROCm" is not about every ROCm PR), plus its own
          keywords and paths, which are more specific than a topic's, and a code name of its
          own (`deep_gemm_warmup`) on the changed lines of the PR's diff (`note_diff`), and a
          title that says what the note's English title says in the same rare words
          (`note_similar`, bot/similarity.py), and a word naming what the note teaches of its
          first topic (`aspects`: `metrics` of KV connectors) when the PR shows that topic
          (`note_aspect`). The same word counts once, at the stronger of its weights.
        - broad topics (a platform, CI, test plumbing: `topic_scale` below 1) are context. They
          weigh less in that share too, and they cannot carry a note: the part of its score
          resting on its own keywords and paths, references to its PR and its other topics
          must reach `min_specific`. Family topics (every KV connector: `family_topics`) count
          at full weight but cannot carry a note either: a note teaches one member or one
          aspect of the family, which a PR on another member does not show; a note whose first
          topic is a family or broad needs words or files of its own (with `main_topic_first`).
        - a PR that is a note's source PR always gets that note, first; a PR that refers to a
          note's source PR, or that the note lists to read with it (`read_with`: PRs its text
          names, and those its source PR fixes, reverts or builds on), or that refers to an issue
          the note's PR fixes (`issues`: another fix of the same bug), gets strong evidence for it;
          so does one whose description relates it to a PR the bot showed the note on
          (`PRFacts.related_notes`, filled by the shell: "reverts PR 53155, which got this note").
        - a title tag naming a narrow first topic (`topic_scale` above 1: `[DCP]`) counts in
          full, whatever the note's other topics; a broad topic does not single out one of the
          notes its other topics fit.
        Which scored notes are linked, and why the others are held back (the threshold, the
        PR's kind of change, a note resting on its topics alone...): bot/link_rules.py. Weights
        and limits live in config/matching.toml.
        """
        repo = facts.repo.lower()
        scan = self._scan(facts)
        topic_hits = self._topic_hits(facts, scan, repo)
        by_id = {h.topic.id: h for h in topic_hits}
        scored = [
            self._score_note(i, facts, scan, by_id)
            for i in self._candidates(facts, scan, topic_hits)
            if self._repo[i] == repo
        ]
        source_ids = {self.notes[i].id for i in self._by_source.get((repo, facts.number), ())}
        shown = {h.topic.id for h in topic_hits if h.present}
        linking = self._rules.link(scored, source_ids, facts, shown)
        return MatchResult(
            matches=linking.linked,
            held_back=linking.held_back,
            topics=tuple(h.topic.id for h in topic_hits),
            topic_hits=tuple(topic_hits),
            candidates=linking.ranked,
            not_counted=tuple(f for f in dict.fromkeys(facts.files) if f in facts.incidental),
        )

    def _candidates(self, facts: PRFacts, scan: Scan, topic_hits: list[TopicHit]) -> set[int]:
        """Every note with some evidence: through the indexes, never note by note."""
        repo = facts.repo.lower()
        found: set[int] = set(self._by_source.get((repo, facts.number), ()))
        found.update(self._by_reading.get((repo, facts.number), ()))
        for h in topic_hits:
            found.update(self._notes_by_topic.get(h.topic.id, ()))
        for key in (*scan.tags, *scan.title, *scan.body):
            found.update(self._term_notes.get(key, ()))
        found.update(scan.note_files)
        names, index = facts.code_names, self._code_notes
        for word in index if len(index) < len(names) else names:
            if word in index and word in names:
                found.update(index[word])
        for ref in facts.refs:
            found.update(self._by_source.get((repo, ref), ()))
            found.update(self._by_issue.get((repo, ref), ()))
        found.update(self._by_id[n] for n in facts.related_notes if n in self._by_id)
        return found

    def _is_source(self, i: int, facts: PRFacts) -> bool:
        note = self.notes[i]
        return note.source_pr == facts.number and self._repo[i] == facts.repo.lower()

    # -- a note's score --

    def _score_note(
        self, i: int, facts: PRFacts, scan: Scan, topic_hits: dict[str, TopicHit]
    ) -> Match:
        """The note's score and reasons: its topics' evidence, scaled by how much of the
        note the PR shows, plus what speaks for the note itself; and the flags that keep
        a scored note from being linked (`bot.link_rules`)."""
        note, w = self.notes[i], self.config.weights
        hit = [topic_hits[t] for t in note.topics if t in topic_hits]
        main = note.topics[0]
        own = self._own_evidence(i, facts, scan)
        main_shown = any(th.topic.id == main and self._shows(th, scan) for th in hit)
        # An aspect word is common (`metrics`): where the files are known, they must be
        # the subsystem's too ("prompt token metrics for P/D" changes engine metrics).
        if main_shown and (not scan.n_files or main in scan.topic_files):
            if aspect := self._aspect(i, scan, own):
                own.append(aspect)
        both = _shared_paths(own, hit)
        scored, shared, broad = self._topic_part(note, hit, own, scan, facts, both)
        # an aspect said inside a topic's longer mention is quoted as that mention
        aspects = [e for e in own if e.kind is EvidenceKind.ASPECT]
        topical = [e for th in hit for e in th.evidence if e.kind is EvidenceKind.TITLE]
        wider = wider_mentions(topical + aspects, scan, facts) if aspects else {}
        for e in own:  # what the topics already counted of it counts once
            already = max((shared.get(k, 0.0) for k in e.keys), default=0.0)
            gain = (
                e.weight - already
                if e.kind not in (EvidenceKind.PATH, EvidenceKind.DIFF)
                else e.weight
            )
            what = _named_by(e.what, e.keys, both) if e.kind is EvidenceKind.PATH else e.what
            what = wider.get(id(e), what)
            if gain > 0:
                scored.append((gain, what, e.gloss))
        ties, tied, is_source = self._ties(i, facts)
        score = sum(s for s, _, _ in (*scored, *ties))  # before the reasons regroup it
        shown = self._said_once(i, facts, scan, own, scored)
        # a tie links the note alone: it comes before the words and files, whatever they weigh
        shown = _as_seen(shown, facts.renamed)
        written = {Saying.TITLE: facts.title, Saying.BODY: facts.clean_body}
        reasons = (*(str(what) for _, what, _ in ties), *reason_lines(shown, written))
        if is_source:
            score += w.source_pr
            reasons = (IS_SOURCE, *reasons)
        flags = self._hold_back_flags(i, own, hit, scan, main_shown=main_shown, tied=tied)
        member = "" if tied else self._other_member(note, own, topic_hits)
        return Match(
            note,
            round(score, 2),
            reasons,
            specific=round(score - broad, 2),
            on_topic=flags.on_topic,
            path_alone=flags.path_alone,
            swept=flags.swept,
            named=flags.named,
            own=flags.own,
            source=is_source,
            tied=tied,
            other_member=member,
        )

    def _topic_part(
        self,
        note: Note,
        hit: list[TopicHit],
        own: list[Evidence],
        scan: Scan,
        facts: PRFacts,
        both: list[str],
    ) -> tuple[list[Weighed], dict[str, float], float]:
        """What the note's topics contribute: (weight, what, why) per piece of evidence,
        scaled by the share of the note's topics the PR shows; the weight each evidence
        key got (so the note's own evidence on the same word counts once); and the part
        resting on broad topics alone. A topic word said only inside a mention of the
        note's own keyword (`warmup` in `deep_gemm_warmup`) is that one mention: it
        counts for the keyword, not for the topic too."""
        cfg = self.config
        main = note.topics[0]
        own_keys = frozenset().union(*(e.keys for e in own))
        covers = own_mentions(own, scan)
        kept = [
            (th, [e for e in (self._outside(e, covers, scan, facts) for e in th.evidence) if e])
            for th in hit
        ]
        # A topic the description alone mentions adds its (small) score but does not make
        # the topic present: descriptions name neighbouring subsystems all the time; nor
        # does a word counted as the note's own keyword (one mention counts once). A
        # broad topic weighs in the share as it weighs in the score.
        weight = {t: cfg.topic_scale.get(t, 1.0) for t in note.topics}
        own_said = title_cover(own_keys, scan)
        present = sum(
            weight[th.topic.id]
            for th, evidence in kept
            if any(shows_topic(e, own_said, scan) for e in evidence)
        )
        total = sum(weight.values())
        coverage = (present / total) ** cfg.coverage_power if total else 0.0
        scored: list[Weighed] = []
        shared: dict[str, float] = {}  # evidence key -> weight it already contributed
        broad = 0.0  # what broad topics contributed beyond the note's own words and files
        wider = wider_mentions([e for _, evidence in kept for e in evidence], scan, facts)
        full = cfg.broad_note_aspect and self._broad_note_aspect(note, own)
        for th, evidence in kept:
            said = sum(e.weight for e in th.evidence)
            capped = (min(cfg.topic_cap, said) if full else th.score) / said
            # A title tag naming a narrow main topic ([PCP], [watermarking]) says what the
            # PR is about: it counts in full, whatever other topics the note has.
            narrow_tag = th.topic.id == main and main in self._narrow
            for e in evidence:
                scale = capped * (1.0 if narrow_tag and e.kind is EvidenceKind.TAG else coverage)
                what = wider.get(id(e), e.what)
                if e.kind is EvidenceKind.PATH:
                    what = _named_by(what, e.keys, both)
                scored.append((e.weight * scale, what, TOPIC.format(th.topic.short)))
                for k in e.keys | same_mentions(e, own, scan):
                    shared[k] = max(shared.get(k, 0.0), e.weight * scale)
                if th.topic.id in self._broad and not e.keys & own_keys:
                    broad += e.weight * scale
        return scored, shared, broad

    def _broad_note_aspect(self, note: Note, own: list[Evidence]) -> bool:
        """Every topic of the note is broad and the title names an aspect of its own, a
        word no topic lists: the note's own word singles it out, and its topics may
        count at full weight (`broad_note_aspect`), so aspect and subsystem reach the
        threshold as they do for a note on topics of full weight. `conftest`, a word of
        test plumbing, is that topic's evidence, not the note's."""
        if not all(t in self._broad for t in note.topics):
            return False
        listed = (self._term_topics, self._tag_topics)
        return any(
            e.kind is EvidenceKind.ASPECT
            and not any(terms.get(k.removeprefix("title:")) for k in e.keys for terms in listed)
            for e in own
        )

    def _outside(
        self,
        e: Evidence,
        covers: dict[EvidenceKind, list[tuple[int, int]]],
        scan: Scan,
        facts: PRFacts,
    ) -> Evidence | None:
        """A topic's title or description evidence without its mentions that lie inside
        the note's own keywords' (`covers`); None when nothing is left of it. A mention
        that is the keyword's own (`tool calls`, the plural of the note's `tool call`)
        stays: it is one evidence key, counted once (`same_mentions`)."""
        cover = covers.get(e.kind)
        if not cover:
            return e
        title = e.kind is EvidenceKind.TITLE
        field, prefix = said_in(e.kind, scan)
        text = facts.title_text if title else facts.clean_body
        exact = set(cover)
        hits = [field[k] for k in (k.removeprefix(prefix) for k in sorted(e.keys)) if k in field]
        # quoted where the PR says it outside the keyword
        left = [h for h in (apart(h, cover, text, keep=exact) for h in hits) if h]
        if left == hits:
            return e
        if not left:
            return None
        return _title_evidence(left, e.weight) if title else self._body_evidence(left)

    def _shows(self, th: TopicHit, scan: Scan) -> bool:
        """The PR shows this topic itself: a title word, tag or label, or changed files
        that are a fair share of its files (two attention files renamed in an 18-file
        refactor touch the subsystem; they do not make the PR about it)."""
        files = _files_alone(th.evidence)
        if files is None:
            return True
        share = self.config.files_only_share * scan.n_files
        return bool(files) and _file_count(files, scan) >= share

    def _body_evidence(self, hits: list[TermHit]) -> Evidence:
        """The description's mentions of a topic's keywords: the `body_terms` said most,
        each worth `weights.body`."""
        said = sorted(distinct(hits), key=lambda h: -h.count)[: max(self.config.body_terms, 1)]
        weight = self.config.weights.body * min(len(said), self.config.body_terms)
        keys = frozenset("body:" + h.key for h in inside(hits, said))
        return Evidence(EvidenceKind.BODY, weight, mentions(Saying.BODY, said), keys)

    def _ties(self, i: int, facts: PRFacts) -> tuple[list[Weighed], bool, bool]:
        """What ties the PR to note `i` whatever its words and files: (weight, what, why)
        per tie, whether there is one, and whether the PR is the note's own (its score is
        added by the caller, its reason first). The note's own PR, one building on it, one
        the note says to read, one on the bug its PR fixes, or one related to a PR that
        got the note: each is enough alone."""
        note, w = self.notes[i], self.config.weights
        is_source = self._is_source(i, facts)
        cited = note.source_pr if note.source_pr in facts.refs else None  # (None: a note has none)
        refers = cited is not None
        reading = facts.number in note.read_with and self._repo[i] == facts.repo.lower()
        issue = next((n for n in note.issues if n in facts.refs), None)
        via = facts.related_notes.get(note.id)  # a PR it reverts, fixes... got this note
        tied = is_source or refers or reading or issue is not None or via is not None
        ties: list[Weighed] = []
        if cited is not None:
            ties.append((w.source_ref, refers_to_source(cited), ""))
        if reading:
            ties.append((w.source_ref, READ_WITH, ""))
        if issue is not None:
            ties.append((w.source_ref, refers_to_issue(issue), ""))
        if via is not None and not (is_source or refers or reading):
            ties.append((w.source_ref, related_via(via[1], via[0]), ""))
        return ties, tied, is_source

    # -- a note's own evidence --

    def _own_evidence(self, i: int, facts: PRFacts, scan: Scan) -> list[Evidence]:
        w = self.config.weights
        ev: list[Evidence] = []
        mine = self._note_keys[i]
        code = self._code_keys[i]
        in_text = quoted_apart(one_per_mention(mine, scan.title), scan.title, facts.title_text)
        in_title = list(in_text)
        for tag in dict.fromkeys(tag for tag, _ in scan.tags.values()):
            in_tag = {k: hit for k, (t, hit) in scan.tags.items() if t == tag}
            in_title += one_per_mention(mine, in_tag)
        for key in mine:
            said: str | Said | None
            if key in in_text:
                said = mentions(Saying.TITLE, [in_text[key]])
            elif key not in in_title or not (said := said_apart(key, (), scan)):
                continue
            kind = EvidenceKind.TAG if key in scan.tags else EvidenceKind.TITLE
            weight = w.note_tag if kind is EvidenceKind.TAG else w.note_title
            if key in code:  # a name from the note's code says more than a phrase
                weight = max(weight, w.note_code)
            ev.append(Evidence(kind, weight, said, frozenset({"title:" + key}), KEYWORD))

        # the `body_terms` strongest (a code name before a phrase), then the most said
        # (weighed per hit of this note, not per word of the description: a long one
        # names thousands of keywords, and every candidate note would weigh them all)
        def weigh(key: str) -> float:
            return w.note_body_code if key in code else w.note_body

        in_body = sorted(
            quoted_apart(one_per_mention(mine, scan.body), scan.body, facts.clean_body).values(),
            key=lambda h: (-weigh(h.key), -h.count),
        )
        for hit in in_body[: self.config.body_terms]:
            ev.append(
                Evidence(
                    EvidenceKind.BODY,
                    weigh(hit.key),
                    mentions(Saying.BODY, [hit]),
                    frozenset({"body:" + hit.key}),
                    KEYWORD,
                )
            )
        if files := scan.note_files.get(i):
            n = _file_count(files, scan)
            weight = w.note_path * self._share(n, scan.n_files)
            ev.append(
                Evidence(
                    EvidenceKind.PATH,
                    weight,
                    changes(self._code_first(files, scan), n),
                    frozenset(files),
                    OWN_PATH,
                )
            )
        titled = {"title:" + k for k in mine if k in scan.tags or k in scan.title}
        diff = {word: _changed_by(word, facts) for word in self._code_words[i]}
        named = [word for word in diff if diff[word] and "title:" + term_key(word) not in titled]
        if named:  # once per note: three names in a diff are one piece of evidence
            naming = frozenset(f for word in named for f in diff[word])
            detail = diff_names(named[:3])
            ev.append(Evidence(EvidenceKind.DIFF, w.note_diff, detail, naming, OWN_CODE))
        if similar := self._similar(i, facts, scan, ev):
            ev.append(similar)
        return ev

    def _aspect(self, i: int, scan: Scan, own: list[Evidence]) -> Evidence | None:
        """The title names what the note covers in one of its topics (`metrics`; glossed
        with the topic holding the word, `_aspect_topic`), once, outside a mention of the
        note's own keyword (`connector metrics` is that one mention, counted as the
        keyword). The caller asks it only where the note's first topic is shown."""
        for key in self._aspect_keys[i]:
            if not (said := said_apart(key, own, scan)):
                continue
            weight = self.config.weights.note_aspect
            gloss = ASPECT.format(self.library.topics[self._aspect_topic(i, key)].short)
            return Evidence(EvidenceKind.ASPECT, weight, said, frozenset({"title:" + key}), gloss)
        return None

    def _other_member(self, note: Note, own: list[Evidence], hits: dict[str, TopicHit]) -> str:
        """The family topic the title's tag names when the note is not on it and an
        aspect is all the note has of its own (a title like the note's aside, which
        finds no note alone): "[Nixl][PD] DCP support for MLA models" is about NIXL's
        MLA, not the PCP+DCP note's (`aspect_beside_family_tag`). "" when none."""
        if not self.config.aspect_beside_family_tag:
            return ""
        if {e.kind for e in own} - {EvidenceKind.SIMILAR} != {EvidenceKind.ASPECT}:
            return ""
        tagged = [t for t, h in hits.items() if any(e.kind is EvidenceKind.TAG for e in h.evidence)]
        if any(t in note.topics for t in tagged):  # tagged with the note's subsystem too
            return ""
        return next((t for t in tagged if t in self.config.family_topics), "")

    def _aspect_topic(self, i: int, key: str) -> str:
        """The note's topic an aspect is of: the first whose terms hold it (`DSpark`, a
        drafter, is Speculative decoding's, not Sparse MLA's), else its first topic."""
        topics = self.notes[i].topics
        holding = self._term_topics.get(key, ())
        return next((t for t in topics if t in holding), topics[0])

    def _similar(self, i: int, facts: PRFacts, scan: Scan, own: list[Evidence]) -> Evidence | None:
        """The title says what the note's title says, in the same rare words; not when
        every word it shares is said inside the note's own keywords: "Handle a partial
        hash hit" is one mention of `partial hash hit`, counted as the keyword, not
        again as a title like the note's."""
        cfg = self.config
        if self._vocab is None or not cfg.weights.note_similar:
            return None
        words = self._shared(i, scan)
        if len(words) < cfg.similar_min_words:
            return None
        if cover := own_mentions(own, scan).get(EvidenceKind.TITLE):
            outside = title_words(blanked(facts.title_text, cover))
            if not outside.intersection(w for w, _ in words):
                return None
        rarity = sum(idf for _, idf in words)
        weight = min(cfg.weights.note_similar, (rarity - cfg.similar_from) / cfg.similar_span)
        weight = round(weight, 2)  # as shown; 0.004 is nothing, of the note's own either
        if weight <= 0:
            return None
        detail = shared_detail(_quoted(words), self._title_only[i], self._names[i], facts)
        keys = frozenset("similar:" + w for w, _ in words)  # the words it rests on
        return Evidence(EvidenceKind.SIMILAR, weight, detail, keys)

    def _shared(self, i: int, scan: Scan) -> list[tuple[str, float]]:
        """The rare words the PR's title shares with note `i`'s title and keywords, rarest
        first (`similarity.shared_words`); asked once per note and PR."""
        if i not in scan.shared:
            assert self._vocab is not None
            floor = self.config.similar_floor
            scan.shared[i] = shared_words(scan.words, self._title_words[i], self._vocab, floor)
        return scan.shared[i]

    # -- what the evidence is, for link_rules --

    def _hold_back_flags(
        self,
        i: int,
        own: list[Evidence],
        hit: list[TopicHit],
        scan: Scan,
        *,
        main_shown: bool,
        tied: bool,
    ) -> _Flags:
        """What the kind of evidence for note `i` says, for `bot.link_rules` to hold it back
        or not (`LinkRules._held_by_evidence`); a tie to the PR (`_ties`) outweighs each."""
        main = self.notes[i].topics[0]
        # A family or a broad topic (test plumbing, CI) as the subsystem does not say
        # which member or which failure: words or files of the note's own have to, or a
        # title resembling the note's. That title alone does not show the subsystem: it
        # shares words, and those may come from another one.
        similar = any(e.kind is EvidenceKind.SIMILAR for e in own)
        # A path of the note's own is strong evidence, but not alone: a file of the
        # note's says where the PR is, not that it is about what the note teaches, so one
        # of the note's topics has to agree (be hit by something).
        kinds = {e.kind for e in own} - {EvidenceKind.SIMILAR}
        path_alone = kinds == {EvidenceKind.PATH} and not hit
        on_topic = (bool(kinds) and not path_alone) or (
            main_shown and (similar or main not in self._broad)
        )
        # Files and the names their diff changes can both be a sweep's (a typing clean-up
        # of 900 files names everything); words cannot.
        own_words = [e for e in own if e.kind not in (EvidenceKind.PATH, EvidenceKind.DIFF)]
        own_files = frozenset().union(
            *(e.keys for e in own if e.kind in (EvidenceKind.PATH, EvidenceKind.DIFF))
        )
        swept = not own_words and not tied and self._swept(hit, scan, own_files)
        named = any(e.kind in (EvidenceKind.TITLE, EvidenceKind.TAG) for e in own_words)
        return _Flags(
            on_topic=on_topic or tied,
            path_alone=path_alone and not tied,
            swept=swept,
            named=named or tied,
            own=self._singles_out(own, hit, scan) or tied,
        )

    def _singles_out(self, own: list[Evidence], hit: list[TopicHit], scan: Scan) -> bool:
        """Something of the note's own speaks for it; not a title sharing only words its
        topics already show ('CUDA graph capture'), which says no more of this note than
        of any other on those topics."""
        return any(
            e.kind is not EvidenceKind.SIMILAR
            or not {k.removeprefix("similar:") for k in e.keys} <= self._topic_words(hit, scan)
            for e in own
        )

    @staticmethod
    def _topic_words(hit: list[TopicHit], scan: Scan) -> frozenset[str]:
        """The title words inside the mentions (and tags) of these topics' keywords."""
        words: set[str] = set()
        for e in (e for th in hit for e in th.evidence):
            for key in (k.removeprefix("title:") for k in e.keys if k.startswith("title:")):
                for place, h in scan.said.get(key, ()):
                    spans = h.spans if place == scan.text else [(0, len(place))]
                    words.update(*(title_words(place[a:b]) for a, b in spans))
        return frozenset(words)

    def _swept(self, hit: list[TopicHit], scan: Scan, own_files: frozenset[str]) -> bool:
        """Topics (and the note's own paths) shown by changed files alone (no word, tag or
        label), which are a small part of the PR's files: a sweep across the tree (a
        refactor of thirty test files, a typing clean-up of 900) brushes many subsystems
        without changing any one's mechanism."""
        files = _files_alone(e for th in hit for e in th.evidence)
        if files is None:
            return False
        return _file_count(files | own_files, scan) < self.config.files_only_share * scan.n_files

    # -- saying it once, code first --

    def _said_once(
        self,
        i: int,
        facts: PRFacts,
        scan: Scan,
        own: list[Evidence],
        scored: list[Weighed],
    ) -> list[Weighed]:
        """A title word the similar-title line shares with the note that another line of
        it quotes too ("title mentions 'EAGLE' (topic: ...)", "title is tagged [PCP]") is
        said once, on that line:
        "also in this note's title" (or keywords, unless the line says it is a keyword of
        the note) when the note's title, or one keyword, writes every word of the name
        that line quotes; else the gloss names the words ("'warmup' also in this note's
        title" of 'kernel warmup'). The similar line keeps the other words; its weight is
        shared between them and the first line that took a word, in its place (it orders
        the lines; the score is summed before)."""
        sim = next((e for e in own if e.kind is EvidenceKind.SIMILAR), None)
        at = next((n for n, s in enumerate(scored) if sim and s[1] == sim.what), None)
        if sim is None or at is None or self._vocab is None:
            return scored
        quoting: dict[str, tuple[Said, str]] = {}  # word -> the first line quoting it, the name
        whys: dict[str | Said, set[str]] = defaultdict(set)
        for _, what, why in scored:
            whys[what].add(why)
            if isinstance(what, Said) and what.saying in (Saying.TITLE, Saying.TAG):
                for name in what.names:
                    for word in title_words(name):
                        quoting.setdefault(word, (what, name))
        words = _quoted(self._shared(i, scan))
        told = [w for w in words if w in quoting]
        if not told:
            return scored
        whole: dict[tuple[Said, str], set[str]] = defaultdict(set)  # (line, side) -> names
        parts: dict[tuple[Said, str, str], list[str]] = defaultdict(list)  # -> words
        for w in told:
            line, name = quoting[w]
            side = "title" if w in self._title_only[i] else "keywords"
            if side == "keywords" and KEYWORD in whys[line]:
                continue  # the line says it is the note's keyword already
            if self._writes(i, side, name):
                whole[line, side].add(name)
            else:
                parts[line, name, side].append(w)
        weight, out = scored[at][0], scored[:at] + scored[at + 1 :]
        for (line, side), names in whole.items():
            said = Said(line.saying, tuple(n for n in line.names if n in names))
            out.append((0.0, said, f"also in {ALSO_IN[side]}"))
        for (line, name, side), some in parts.items():
            gloss = also_in(facts.title_text, name, some, side)
            out.append((0.0, Said(line.saying, (name,)), gloss))
        kept = [w for w in words if w not in told]
        share = weight * len(kept) / len(words)
        out.insert(at, (weight - share, quoting[told[0]][0], ""))
        if kept:
            detail = shared_detail(kept, self._title_only[i], self._names[i], facts)
            out.insert(at, (share, detail, ""))
        return out

    def _writes(self, i: int, side: str, name: str) -> bool:
        """Note `i`'s title (side "title") or one of its keywords writes every word of the
        name: 'KV Transfer' is not "also in" a title writing only 'KV'."""
        words = title_words(name)
        if side == "title":
            return words <= self._title_only[i]
        return any(words <= keyword for keyword in self._keyword_words[i])

    def _code_first(self, files: list[str], scan: Scan) -> list[str]:
        """The files a "changes" line lists, the code first: the one file it names says
        what the PR changes, not its test or docs (`upkeep_files`, `aux_files`)."""

        def beside(path: str) -> bool:
            if self._is_aux(path, scan):
                return True
            if path not in scan.upkeep:
                scan.upkeep[path] = bool(self._upkeep.owners(path))
            return scan.upkeep[path]

        return sorted(files, key=beside)

    def _is_aux(self, path: str, scan: Scan) -> bool:
        """A docs or examples file (`aux_files`), asked once per PR."""
        if path not in scan.aux:
            scan.aux[path] = bool(self._aux.owners(path))
        return scan.aux[path]


# --- entry points -------------------------------------------------------------------------


def match_pr(facts: PRFacts, library: Library, config: MatchConfig) -> MatchResult:
    """The notes this PR should get, ranked, with the reasons; and the topics it hit.
    It compiles the matcher for this one PR: to match many, build a `CompiledMatcher`
    once and call its `match`."""
    return CompiledMatcher(library, config).match(facts)

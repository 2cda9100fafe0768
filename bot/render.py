"""The sticky PR comment, rendered from a match result (pure: data in, Markdown out).

Everything that comes from notes or PRs passes through `bot.markdown_safety`,
so the comment never pings anyone, never creates a backlink and never injects
Markdown or HTML. Commands are only ever shown in inline code in the middle of
a sentence, so the bot's own comment can never trigger it. The marker is the
first line, so no truncation can remove it, and the body stays within a budget
well under GitHub's 65,536 limit by dropping whole notes, lowest ranked first, and
why mode's topics when not even one note fits with them (the "no match" body too).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from bot.library import Library
from bot.links import note_file_url, note_page_url
from bot.markdown_safety import clip, code, link_target, pr_link, safe_text, safe_text_quoting
from bot.markers import MARKER
from bot.match_result import Match, MatchResult
from bot.notes import BACKGROUND_LABELS, BACKGROUND_WHY, Note, Verdict
from bot.reasons import note_names, short_view, under_topics_line

GITHUB_BODY_LIMIT = 65_536
BUDGET = 60_000  # leave room for GitHub counting differently (UTF-16, entities)

# a note's title and summary past these are cut in the comment (`notes check` warns of it)
TITLE_MAX = 300
SUMMARY_MAX = 1_500
_REASON_MAX = 300
_REASONS_SHORT = 12
_FILES_SHOWN = 5  # files named in why mode's "not counted" line
_CONSIDERED_SHOWN = 5  # notes named in why mode's "considered but not linked" list
_REASONS_VERBOSE = 60

_TOPICS_CUT = (
    "_The notes considered but not linked and the topics this pull request touches are not"
    " shown: the comment would be too long._"
)

# The guidance a note links to is Chinese only (its English is the summary shown here):
# the link says so, as 原题 (original title) labels the Chinese title.
GUIDANCE_LINK = "full guidance (Chinese)"

_BADGE = {Verdict.DEEP: "🟢", Verdict.QUICK: "🟡", Verdict.SKIP: "⚪"}


@dataclass(frozen=True)
class NoteLinks:
    """Where a note's full guidance lives."""

    mode: Literal["pages", "github"] = "pages"
    base_url: str = "http://127.0.0.1:8000"  # pages: {base_url}/notes/{id}
    repo: str | None = None  # github: the repository holding the note files
    branch: str = "main"
    directory: str = "seeds/notes"
    files: Mapping[str, str] = field(default_factory=dict)  # Library.files

    def url(self, note: Note) -> str:
        if self.mode == "github" and self.repo:
            return note_file_url(
                note,
                notes_repo_url=f"https://github.com/{self.repo}",
                branch=self.branch,
                directory=self.directory,
                file=self.files.get(note.id),
            )
        return note_page_url(note, public_url=self.base_url)


class PauseCause(StrEnum):
    COMMAND = "command"  # `/notes off`
    LABEL = "label"  # the opt-out label
    DESCRIPTION = "description"  # `<!-- no-review-notes -->` in the PR's description


@dataclass(frozen=True)
class RenderOptions:
    links: NoteLinks = NoteLinks()
    command: str = "/notes"
    verbose: bool = False  # `/notes why`: every reason, notes considered, topics without notes
    budget: int = BUDGET
    had_notes: bool = True  # a "no match" body says "any more" only after earlier notes
    paused: PauseCause | None = None  # automatic updates are off on this PR, and why
    opt_out_label: str = ""  # the label that also pauses them ("" none)
    hidden: int = 0  # notes that matched but were marked not relevant here (`/notes wrong`)
    repo: str = ""  # the PR's repository: a source PR there is "PR N" ("": not known)


# --- the comment -------------------------------------------------------------


def render(result: MatchResult, library: Library, *, opts: RenderOptions) -> str:
    """The sticky comment for this match result (the short "no match" body when empty)."""
    if not result.matches:
        return render_no_match(result, library, opts=opts)
    matches = list(result.matches)
    blocks = [_note_block(rank, m, library, opts) for rank, m in enumerate(matches, 1)]
    # why mode's topics go only when even one note does not fit with them: notes first
    for topics in (True, False):
        least = 1 if topics else 0  # with the topics, at least one note; else drop them
        for shown in range(len(matches), least - 1, -1):
            body = _compose(
                blocks[:shown],
                matches[:shown],
                len(matches) - shown,
                result,
                library,
                opts,
                topics=topics,
            )
            if len(body) <= opts.budget:
                return body
    return body  # the fixed lines alone: only a budget set below them gets here


def render_no_match(result: MatchResult | None, library: Library, *, opts: RenderOptions) -> str:
    """The short body when no note matches: left in place when notes matched before
    (`opts.had_notes`: "any more"), or posted when one is asked for (`/notes`)."""
    any_more = " any more" if opts.had_notes else ""
    what = "is left to show on" if opts.hidden else "matches"
    parts = _opening(
        opts, f"No review note {what} this pull request{'' if opts.hidden else any_more}."
    )
    if opts.hidden:
        parts += ["", _hidden_line(opts)]
    head = list(parts)
    if opts.verbose and result is not None:
        parts = [*head, "", *_why_extras(result, library, (), opts)]
        body = "\n".join([*parts, "", _footer(opts, shown=0)]) + "\n"
        if len(body) <= opts.budget:
            return body
        parts = [*head, "", _TOPICS_CUT]
    parts += ["", _footer(opts, shown=0)]
    return "\n".join(parts) + "\n"


def opt_out_marker(label: str) -> str:
    """The description's opt-out marker: the opt-out label in an HTML comment (invisible)."""
    return f"<!-- {label.strip()} -->"


def render_paused(opts: RenderOptions, *, by: PauseCause = PauseCause.COMMAND) -> str:
    """The short body left in place by `/notes off`, the opt-out label or the
    description's marker (the comment is never deleted)."""
    c = opts.command
    if by is PauseCause.LABEL:
        why = f"{_paused_by(by, opts)}. Remove the label to resume them"
    elif by is PauseCause.DESCRIPTION:
        why = f"{_paused_by(by, opts)}. Remove it to resume them"
    else:
        why = f"({code(c + ' off')}). Reply {code(c + ' on')} to resume them"
    said = (
        f"Automatic updates are paused on this pull request {why}, or reply {code(c)}"
        " to see the matching notes once."
    )
    # not `_opening`: this body is the pause's notice, with no footer to leave why mode by
    return "\n".join([MARKER, _HEADING, "", said]) + "\n"


def _compose(
    blocks: list[list[str]],
    shown: list[Match],
    hidden: int,
    result: MatchResult,
    library: Library,
    opts: RenderOptions,
    *,
    topics: bool = True,
) -> str:
    parts = _opening(opts, f"Reviewers' reading guidance on {_guided(result.matches)}.")
    for block in blocks:
        parts += ["", *block]
    if hidden:
        more = (
            "1 more note matched but is" if hidden == 1 else f"{hidden} more notes matched but are"
        )
        parts += ["", f"_{more} not shown: the comment would be too long._"]
    if opts.hidden:
        parts += ["", _hidden_line(opts)]
    if opts.verbose:
        parts += ["", *(_why_extras(result, library, shown, opts) if topics else [_TOPICS_CUT])]
    parts += ["", _footer(opts, shown=len(blocks))]
    return "\n".join(parts) + "\n"


def _opening(opts: RenderOptions, sentence: str) -> list[str]:
    """How the comment opens, with notes or none: the marker, the heading, its first
    sentence, then the line saying its updates are paused when they are."""
    parts = [MARKER, _heading(opts), "", sentence]
    if opts.paused:
        parts += ["", _paused_line(opts)]
    return parts


_HEADING = "### 📚 Review notes"  # under the marker, whatever the comment says


def _heading(opts: RenderOptions) -> str:
    """Why mode says so, with notes or none: its footer offers the short comment back."""
    return _HEADING + (" (why mode)" if opts.verbose else "")


def _guided(matches: tuple[Match, ...]) -> str:
    """What the notes are guidance on: past pull requests, or this one (a note's source
    PR always gets its note), or both. Two notes on one past PR are guidance on one PR; a
    note that names no source PR counts as its own."""
    past = len({_source_of(m.note) for m in matches if not m.source})
    what = "a past pull request" if past == 1 else f"{past} past pull requests"
    if not any(m.source for m in matches):
        return f"{what} related to this one"
    return f"this pull request and on {what} related to it" if past else "this pull request"


def _source_of(note: Note) -> tuple[str, int] | str:
    return (note.repo.lower(), note.source_pr) if note.source_pr else note.id


def badge_line(
    note: Note, guidance_url: str, here: str = "", this_pr: bool = False, topics_only: bool = False
) -> str:
    """The line under a note's title, in the comment and in a command's reply: verdict in
    English and Chinese, source PR, link to the (Chinese) guidance. `here`: the repository
    the PR is in, whose name a source PR there goes without (`pr_link`). `this_pr`: the
    PR is the note's source, named so: a link would lead to the page the reader is on.
    `topics_only`: the note is linked on its topics alone, the PR's subsystem and nothing
    of the note's own: its badge is "Background", a quick read's at most, the curators'
    verdict said after it (a lone `[Warmup]` tag showed a 🟢 Deep read)."""
    v = note.verdict
    source = ""
    if note.source_pr:
        said = "this pull request" if this_pr else pr_link(note.repo, note.source_pr, here)
        source = f" · source: {said}"
    guidance = f"[{GUIDANCE_LINK}]({link_target(guidance_url)})"
    verdict = f"{_BADGE[v]} **{v.label_en}** · {v.label_zh}"
    if topics_only:
        weaker = max(v, Verdict.QUICK, key=lambda x: x.rank)  # never stronger than `v`
        rated = f"{BACKGROUND_WHY}; rated {v.label_en} · {v.label_zh}"
        en, zh = BACKGROUND_LABELS
        verdict = f"{_BADGE[weaker]} **{en}** · {zh} · {rated}"
    return f"{verdict}{source} · {guidance}"


def _note_block(rank: int, match: Match, library: Library, opts: RenderOptions) -> list[str]:
    """A note's lines. The first note's summary shows; a further note's original title and
    summary are folded (with its evidence in the short comment): three open summaries made
    the comment three screens long, and the title, verdict and source say enough at a
    glance of a note ranked below the first."""
    note = match.note
    title = note.title_en or note.title_zh
    head = f"**{rank}. {safe_text(title, TITLE_MAX)}**"
    badge = badge_line(note, opts.links.url(note), opts.repo, match.source, match.background)
    lines = [head, badge]
    about = (
        [f"原题 (original title): {safe_text(note.title_zh, TITLE_MAX)}"] if note.title_en else []
    )
    if note.summary_en:
        about += ["", f"> {safe_text(note.summary_en, SUMMARY_MAX)}"]
    topics = [library.topics[t] for t in note.topics if t in library.topics]
    named = ["Topics: " + ", ".join(safe_text(t.name_en) for t in topics)] if topics else []
    limit = _REASONS_VERBOSE if opts.verbose else _REASONS_SHORT
    said = match.reasons if opts.verbose else short_view(match.reasons, note_names(note, topics))
    said = under_topics_line(said, [t.short for t in topics])
    reasons = [f"- {reason_markdown(r)}" for r in said[:limit]]
    if len(said) > limit:
        reasons.append(f"- … and {len(said) - limit} more")
    # no score in why mode: the lines carry no weights to read a total against, and being
    # linked is not a score over one bar (ties, a floor relative to the best note)
    why = ["Why this note:", *reasons]
    if rank == 1 or not about:
        lines += [*about, *_spaced(named), ""]
        return [*lines, *why] if opts.verbose else [*lines, *_fold("Why this note", reasons)]
    held = "Summary" if note.summary_en else "Original title"  # the fold named for it
    if opts.verbose:  # the evidence is what why mode is for: only the summary is folded
        return [*lines, "", *_fold(held, about), *_spaced(named), "", *why]
    folded = [*about, *_spaced(named), "", *why]
    return [*lines, "", *_fold(f"{held} and why this note", folded)]


def _fold(summary: str, lines: list[str]) -> list[str]:
    """Lines folded under a summary a reader opens."""
    return [f"<details><summary>{summary}</summary>", "", *lines, "", "</details>"]


def _spaced(lines: list[str]) -> list[str]:
    """Lines after a blank one, or none."""
    return ["", *lines] if lines else []


# A note's number as its block opens (`_note_block`), and its guidance link (`badge_line`)
_NUMBERED = re.compile(r"\*\*([0-9]+)\. ")
_GUIDANCE = re.compile(rf"\[{re.escape(GUIDANCE_LINK)}\]\(([^\s()]+)\)")


def notes_read_back(body: str, library: Library, links: NoteLinks) -> tuple[str, ...] | None:
    """The notes a comment of ours shows, in its numbers' order, read back from its text:
    each numbered note by the guidance link on the line after its number. None when the
    text does not tell: not ours, numbers out of order, or a link that is no note's as
    linked now (a note renamed since, or another public URL): a guess would let a
    `wrong N` hide a note the reader does not see as N."""
    if not body.startswith(MARKER):
        return None
    every = (*library.notes, *library.retired.values())  # (shown before it was retired)
    linked = {link_target(links.url(note)): note.id for note in every}
    lines = body.splitlines()
    shown: list[str] = []
    for at, line in enumerate(lines):
        number = _NUMBERED.match(line)
        if number is None:
            continue
        link = _GUIDANCE.search(lines[at + 1]) if at + 1 < len(lines) else None
        note = linked.get(link[1]) if link else None
        if int(number[1]) != len(shown) + 1 or note is None:
            return None
        shown.append(note)
    return tuple(shown)


# What a reason line names as things a reader may look up: the files it changes, the
# tag the title carries ("changes a.py, b.py and 2 more files", "title is tagged [X]")
_NAMES_FILES = re.compile(r"(changes )(?!\d+ other files?\b)(.+?)(?= and \d+ more files?\b| \(|$)")
_NAMES_TAG = re.compile(r"(title is tagged )(\[[^\]]+\])")


def reason_markdown(reason: str) -> str:
    """A reason line as the comment writes it: the files, tag and quoted terms it names as
    code spans (`safe_text_quoting`), which read as typed in the raw Markdown of GitHub's
    notification email too, where an escaped `kv\\_cache\\_coordinator.py` did not."""
    reason = clip(" ".join(reason.split()), _REASON_MAX)
    m = _NAMES_FILES.match(reason) or _NAMES_TAG.match(reason)
    if not m:
        return safe_text_quoting(reason)
    names = m.group(2).split(", ") if m.re is _NAMES_FILES else [m.group(2)]
    rest = safe_text_quoting(reason[m.end() :])  # " and 2 more files (...)", " (...)"
    return m.group(1) + ", ".join(map(code, names)) + (" " + rest if rest else "")


def _why_extras(
    result: MatchResult, library: Library, shown: Sequence[Match], opts: RenderOptions
) -> list[str]:
    """Why mode past the notes: the notes considered but not linked, then the topics."""
    considered = _considered(result, library, shown, opts)
    return [*considered, *([""] if considered else []), *_topics_section(result, library, shown)]


def _considered(
    result: MatchResult, library: Library, shown: Sequence[Match], opts: RenderOptions
) -> list[str]:
    """The notes scored but not linked, closest first, each with what held it back: a rule
    of bot/link_rules.py, or too little evidence (its strongest named). A reviewer asking
    why a note is missing sees that it was weighed, and against what. A note `/notes wrong`
    hid is not among them (`feedback.hide_dismissed`): the hidden line counts it."""
    linked = {m.note.id for m in result.matches}
    rest = [m for m in result.candidates if m.note.id not in linked]
    if not rest:
        return []
    held = dict(result.held_back)
    numbers = {m.note.id: n for n, m in enumerate(shown, 1)}
    lines = ["Notes considered but not linked, closest first:"]
    for m in rest[:_CONSIDERED_SHOWN]:
        title = safe_text(m.note.title_en or m.note.title_zh, TITLE_MAX)
        url = link_target(opts.links.url(m.note))
        said = _held_said(m, held.get(m.note.id), numbers, library)
        lines.append(f"- [{title}]({url}): {said}")
    if len(rest) > _CONSIDERED_SHOWN:
        lines.append(f"- … and {len(rest) - _CONSIDERED_SHOWN} more, with less evidence")
    return lines


# What a rule of bot/link_rules.py says for `review-notes match` and a reader cannot use:
# an id in brackets (a note's, a topic's), the scores it compares
_RULE_ID = re.compile(r" ?\(([a-z0-9][a-z0-9._-]*)\)")  # notes.ID_PATTERN
_RULE_SCORES = re.compile(r"its own evidence scores [0-9.]+, under [0-9.]+")


def _held_said(match: Match, rule: str | None, numbers: Mapping[str, int], library: Library) -> str:
    """Why a note scored was not linked: the rule that held it (no rule: below the
    threshold) in the comment's words: the note a rule compares it with by its number in
    the comment (none when the comment does not show it: hidden, or cut for length), a
    topic by its short name, as the reasons name it, and no score (why mode shows none)."""
    if rule is None:
        strongest = f"; the strongest: {reason_markdown(match.reasons[0])}" if match.reasons else ""
        return f"too little evidence to link{strongest}"

    def named(found: re.Match[str]) -> str:
        what = found[1]
        if what in numbers:
            return f" (note {numbers[what]})"
        topic = library.topics.get(what)  # else a note the comment does not show
        return f" ({topic.short})" if topic else ""

    rule = _RULE_SCORES.sub("too little evidence of its own", _RULE_ID.sub(named, rule))
    member = library.topics.get(match.other_member)
    if member:
        rule = rule.replace(f" {match.other_member} family", f" {member.short} family")
    return safe_text_quoting(rule)


def _topics_section(result: MatchResult, library: Library, shown: Sequence[Match]) -> list[str]:
    lines = _not_counted(result.not_counted)
    if not result.topics:
        return ["This pull request hit no topic of the notes taxonomy.", *lines]
    return _topics_lines(result, library, shown) + lines


def _not_counted(files: tuple[str, ...]) -> list[str]:
    """The files left out as evidence, so that a reviewer sees why a path did not count."""
    if not files:
        return []
    more = len(files) - _FILES_SHOWN
    names = ", ".join(code(f) for f in files[:_FILES_SHOWN])
    tail = f" and {more} more" if more > 0 else ""
    return [
        "",
        f"Not counted: {names}{tail} (this pull request only moves "
        f"{'it' if len(files) == 1 else 'them'} or changes {'its' if len(files) == 1 else 'their'}"
        " imports).",
    ]


def _topics_lines(result: MatchResult, library: Library, shown: Sequence[Match]) -> list[str]:
    linked = {t for m in shown for t in m.note.topics}
    names = [_topic_name(library, t) for t in result.topics]
    lines = ["Topics this pull request touches, strongest first: " + ", ".join(names) + "."]
    if result.topic_hits:  # the matcher knows which topics have notes for this repository
        bare = [(h.topic.id, h.reasons) for h in result.topics_without_notes]
    else:
        bare = [(t, ()) for t in result.topics if not library.by_topic.get(t) and t not in linked]
    if bare:
        lines += ["", "Of these, the topics with no note yet:"]
        for topic_id, reasons in bare:
            why = "; ".join(reason_markdown(r) for r in reasons[:_REASONS_SHORT])
            lines.append(f"- {_topic_name(library, topic_id)}" + (f": {why}" if why else ""))
    return lines


def _topic_name(library: Library, topic_id: str) -> str:
    """A topic in English, as a note's "Topics:" line names it: its Chinese name in
    brackets said it twice ("Model runner (V1 / V2) (Model Runner)")."""
    topic = library.topics.get(topic_id)
    return safe_text(topic.name_en if topic else topic_id)


def _paused_by(cause: PauseCause, opts: RenderOptions) -> str:
    """What pauses the PR, as the comment names it: its label or its description's marker."""
    if cause is PauseCause.LABEL:
        return f"by the label {code(opts.opt_out_label)}"
    return f"by {code(opt_out_marker(opts.opt_out_label))} in its description"


def _paused_line(opts: RenderOptions) -> str:
    c = opts.command
    if opts.paused is PauseCause.LABEL:
        by, resume = f" {_paused_by(opts.paused, opts)}", "removing the label resumes them"
    elif opts.paused is PauseCause.DESCRIPTION:
        by, resume = f" {_paused_by(opts.paused, opts)}", "removing it resumes them"
    else:
        by, resume = "", f"{code(c + ' on')} resumes them"
    return (
        f"_Automatic updates are paused on this pull request{by}: this comment changes only"
        f" when someone asks with {code(c)}; {resume}._"
    )


def _hidden_line(opts: RenderOptions) -> str:
    n, c = opts.hidden, opts.command
    what = "1 note that matched was" if n == 1 else f"{n} notes that matched were"
    them = "it" if n == 1 else "them"
    return f"_{what} marked not relevant here and hidden; {code(c + ' restore')} shows {them}._"


def _footer(opts: RenderOptions, *, shown: int) -> str:
    """The commands a reader of this comment needs, `help` for the rest (topic, search,
    on: the paused line says how to resume); `wrong N` only under numbered notes (none to
    name otherwise; under one, `wrong` alone names it: no number to work out), `off` only
    while the updates run (paused, it offered to stop them, the label too when the label
    paused them). `shown`: how many notes the comment shows."""
    c = opts.command
    notes_shown = shown > 0
    label = f" (or the label {code(opts.opt_out_label)})" if opts.opt_out_label else ""
    wrong = ""
    if shown == 1:
        wrong = f" {code(c + ' wrong')} if this note does not fit,"
    elif notes_shown:
        wrong = f" {code(c + ' wrong N')} if note N does not fit,"
    off = "" if opts.paused else f" {code(c + ' off')}{label} to stop its updates here,"
    # why mode stays until a plain `/notes`: its footer offers that, not `why` again; with
    # no note shown, why mode shows the notes weighed and the topics the PR touches: no
    # evidence of a note linked
    shows = (
        "all the evidence"
        if notes_shown
        else "the notes considered and the topics this pull request touches"
    )
    first = (
        f"{code(c)} for the short comment" if opts.verbose else f"{code(c + ' why')} to see {shows}"
    )
    return (
        f"<sub>Reply {first},{wrong}{off} or {code(c + ' help')} for all commands."
        " This comment is edited in place.</sub>"
    )

"""What `notes check` says of a library that loads (pure): each warning and hint
`notes_lint` finds, worded for the curator (what is wrong, what to write instead, when it
is fine as it is) and put on the line it is about, `file:line: field: warning: message`.
The shell reads the files (each note's header, the taxonomy's, the matching config's)
and hands them in; `cli_notes` prints what this returns.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bot.library import Library, NoteHeader
from bot.note_dump import toml_string
from bot.note_files import Header, Problem
from bot.note_terms import describe_character
from bot.notes import SEARCHED_GUIDANCE_CHARS, Note
from bot.notes_lint import (
    broad_paths,
    clipped_fields,
    common_keywords,
    contradicted_verdicts,
    diff_blind,
    glued_config_globs,
    glued_double_stars,
    glued_topic_globs,
    long_guidance,
    marks_between_english,
    redundant_aspects,
    shared_fields,
    traditional_terms,
    unchinese_titles,
    unlisted_prs,
    untranslated_lines,
)

if TYPE_CHECKING:
    from bot.config_files import ConfigFile
    from bot.match_config import MatchConfig


@dataclass(frozen=True)
class Remark:
    """A warning or hint about a note, worded (`warning: ...`, `hint: ...`), before it is
    put on its line (`placed`): the line of `field`, or of `value` in that field's list;
    for the guidance, its line `guidance_line` (0 the first)."""

    note: Note
    field: str
    message: str
    value: str | None = None
    guidance_line: int = 0


def placed(remarks: Iterable[Remark], header: NoteHeader) -> list[Problem]:
    """Each remark on its line of its note's file (`header`: the file and its header)."""
    problems = []
    for remark in remarks:
        path, lines = header(remark.note)
        if remark.field == "guidance":
            line = lines.body_line + remark.guidance_line
        else:
            line = lines.line_of(remark.field, remark.value)
        problems.append(Problem(path, line, remark.field, remark.message))
    return problems


# --- hints: what a clean library may want -------------------------------------------


def note_hints(library: Library) -> list[Remark]:
    """The keywords with no code name, the line of the text naming a PR it does not
    list, an aspect that is also a keyword: advice, not a defect."""
    return [*_diff_blind(library), *_unlisted_prs(library), *_redundant_aspects(library)]


def _diff_blind(library: Library) -> list[Remark]:
    msg = (
        "hint: no code name (snake_case or CamelCase) among its keywords; the bot cannot see"
        " this note's mechanism in a PR's changed lines"
    )
    return [Remark(note, "keywords", msg) for note in diff_blind(library)]


def _unlisted_prs(library: Library) -> list[Remark]:
    """On the guidance's own line; a summary's key (a wrapped one's lines are one value)."""
    found = []
    for note, number, field, at in unlisted_prs(library):
        own = "" if note.source_pr else f"set source_pr = {number} if the note is about it, or "
        msg = (
            f"hint: its text names PR {number}; {own}add it to read_with if a reviewer of that"
            " PR should get this note (to issues if it is an issue its PR fixes)"
        )
        found.append(Remark(note, field, msg, guidance_line=at))
    return found


def _redundant_aspects(library: Library) -> list[Remark]:
    return [
        Remark(
            note,
            "aspects",
            f"hint: aspect {aspect!r} is also one of its keywords, which counts without the"
            " topic; keep it in one list",
            aspect,
        )
        for note, aspect in redundant_aspects(library)
    ]


# --- warnings: what a clean library likely has wrong -------------------------------


def note_warnings(
    library: Library, config: MatchConfig, notes_dir: Path, served: tuple[str, ...] = ()
) -> list[Remark]:
    """A note for a repository the bot does not serve (`served`, lower case; none: not
    asked), a keyword as common as `fix`, a path glob matching everywhere, and the rest of
    `notes_lint`'s findings on a note's fields (`notes_dir` names another note's file)."""
    return [
        *_unserved(library, served),
        *_common_keywords(library, config),
        *_broad_paths(library),
        *_glued_paths(library),
        *_clipped(library),
        *_untranslated(library),
        *_marks_between_english(library),
        *_unchinese_titles(library),
        *_traditional_terms(library),
        *_contradicted_verdicts(library),
        *_shared_fields(library, notes_dir),
        *_long_guidance(library, config),
    ]


def _warning(note: Note, field: str, message: str, value: str | None = None) -> Remark:
    return Remark(note, field, f"warning: {message}", value)


def _unserved(library: Library, served: tuple[str, ...]) -> list[Remark]:
    msg = "{!r} is not a repository the bot serves (REVIEW_NOTES_REPOS: {}): no PR gets this note"
    return [
        _warning(note, "repo", msg.format(note.repo, ", ".join(served)))
        for note in library.notes
        if served and note.repo.lower() not in served
    ]


def _common_keywords(library: Library, config: MatchConfig) -> list[Remark]:
    if config.vocabulary is None:
        return []
    found = []
    limit = config.common_keyword_share
    for note, keyword, share in common_keywords(library, config.vocabulary, limit):
        how_common = (
            "holds only English function words, single letters or numbers, which most PRs' text has"
            if share is None
            else f"is in {share:.0%} of vLLM's PR titles (common_keyword_share {limit:g})"
        )
        msg = f"{keyword!r} {how_common}: it links unrelated PRs; name the mechanism"
        found.append(_warning(note, "keywords", msg, keyword))
    return found


def _broad_paths(library: Library) -> list[Remark]:
    msg = "path {!r} matches files all over the tree: list a file or a narrow directory"
    return [_warning(note, "paths", msg.format(glob), glob) for note, glob in broad_paths(library)]


def glued(glob: str) -> str:
    """The warning for a path glob with `**` glued to other characters."""
    return (
        f"path {glob!r}: '**' glued to other characters matches across directories here"
        " (`vllm/**foo.py` is any path below vllm/ ending in foo.py), where CODEOWNERS and"
        " .gitignore read it as '*': write '**' alone between slashes (`vllm/**/*foo.py`)"
        " or '*' for one segment (`vllm/*foo.py`)"
    )


def _glued_paths(library: Library) -> list[Remark]:
    return [
        _warning(note, "paths", glued(glob), glob) for note, glob in glued_double_stars(library)
    ]


def _clipped(library: Library) -> list[Remark]:
    found = []
    for note, field, length, limit in clipped_fields(library):
        fix = (
            "a summary is one or two sentences; the guidance says the rest"
            if field == "summary_en"
            else "a title names the mechanism; the summary says the rest"
        )
        msg = f"{length:,} characters, of which the comment shows {limit:,} (cut with '…'): {fix}"
        found.append(_warning(note, field, msg))
    return found


def _untranslated(library: Library) -> list[Remark]:
    found = []
    for note, field in untranslated_lines(library):
        what = "title" if field == "title_en" else "summary"
        text = getattr(note, field)
        shown = text if len(text) <= 60 else text[:60] + "…"  # a summary may be long
        msg = (
            f"{shown!r} is mostly Chinese: the comment shows it as the English"
            f" {what}, beside title_zh; write it in English"
        )
        found.append(_warning(note, field, msg))
    return found


def _marks_between_english(library: Library) -> list[Remark]:
    found = []
    for note, field, mark, typed in marks_between_english(library):
        msg = (
            f"{describe_character(mark)} typed by a Chinese input method between English"
            f" words: the comment shows it as typed; write {typed!r}"
        )
        found.append(_warning(note, field, msg))
    return found


def _unchinese_titles(library: Library) -> list[Remark]:
    msg = (
        "{!r} has no Chinese: the comment shows it as the original Chinese title (原题);"
        " write the digest's title (fine as it is if the PR's original title is English)"
    )
    return [
        _warning(note, "title_zh", msg.format(note.title_zh)) for note in unchinese_titles(library)
    ]


def _traditional_terms(library: Library) -> list[Remark]:
    found = []
    for note, field, term, chars in traditional_terms(library):
        msg = (
            f"{term!r} is written in Traditional characters ({', '.join(chars)}): a Chinese"
            " term matches only as written, and a PR's Chinese text is Simplified, as the"
            " guidance is; write it in Simplified"
        )
        found.append(_warning(note, field, msg, term))
    return found


def _contradicted_verdicts(library: Library) -> list[Remark]:
    found = []
    for note, phrase, stated in contradicted_verdicts(library):
        msg = (
            f"{note.verdict.value!r} ({note.verdict.label_en}), but the guidance reads as"
            f" {phrase} ({stated.label_en}): the comment would show both; write verdict ="
            f" {toml_string(stated.value)} or reword the guidance (fine as it is if it"
            " negates or quotes that phrase)"
        )
        found.append(_warning(note, "verdict", msg))
    return found


def _shared_fields(library: Library, notes_dir: Path) -> list[Remark]:
    return [
        _warning(note, field, _shared_field(field, notes_dir / library.file_of(o), o))
        for note, field, o in shared_fields(library)
    ]


def _shared_field(field: str, where: Path, other: Note) -> str:
    """The warning for a field whose value `other` (in file `where`) has too, as a note
    copied from it and left unrewritten keeps it."""
    if field == "source_pr":
        return (
            f"PR {other.source_pr} is the source_pr of {where} too, so the PR gets both notes:"
            " give a note copied from it its own PR, or merge the two"
        )
    if field == "source":
        return (
            f"{other.source!r} is the digest entry of {where} too: `source` is the importer's;"
            " drop it from a note written by hand"
        )
    what = {"title_en": "English title", "summary_en": "English summary"}[field]
    return (
        f"the same {what} as {where}: a comment showing both could not tell them apart;"
        " write this note's own"
    )


def _long_guidance(library: Library, config: MatchConfig) -> list[Remark]:
    """On the guidance's first line."""
    found = []
    for note, length in long_guidance(library, config.guidance_max_chars):
        cut = (
            f"; a search reads its first {SEARCHED_GUIDANCE_CHARS:,} only"
            if length > SEARCHED_GUIDANCE_CHARS
            else ""
        )
        msg = (
            f"{length:,} characters of guidance (guidance_max_chars"
            f" {config.guidance_max_chars:,}): reading guidance says what to read in the PR and"
            f" why; the PR, its diff or its discussion pasted in is for GitHub to show{cut}"
        )
        found.append(_warning(note, "guidance", msg))
    return found


# --- warnings beyond a note's fields --------------------------------------------------


def fenced_conflict(path: str, line: int) -> Problem:
    """The warning for a merge conflict's markers in a code block of a note's guidance,
    at `line` of its file: a sample of them, or a conflict git left there."""
    msg = (
        "warning: a code block holds a git merge conflict's <<<<<<<, ======= and"
        " >>>>>>> lines: fine if it shows them; if git left them, keep the text"
        " meant and delete the three marker lines"
    )
    return Problem(path, line, "guidance", msg)


def outside_notes_dir(file: str, notes_dir: Path) -> Problem:
    """The warning for a note saved a directory too high (`seeds/` for `seeds/notes/`):
    never loaded."""
    msg = f"warning: a note outside the notes directory is not loaded: move it into {notes_dir}"
    return Problem(file, 1, "file", msg)


# the matching config's lists of path globs
_CONFIG_GLOBS = ("aux_files", "upkeep_files")


def glued_elsewhere(
    library: Library,
    config: MatchConfig,
    taxonomy: str,
    topics: Mapping[str, Header],
    config_file: ConfigFile,
) -> list[Problem]:
    """A warning for each path glob of the taxonomy's topics (file `taxonomy`, each
    topic's table in `topics`) and of the matching config (`config_file`) with `**` glued
    to other characters, on its line, as a note's."""
    warnings = []
    for topic, glob in glued_topic_globs(library):
        line = topics[topic.id].line_of("paths", glob) if topic.id in topics else 1
        warnings.append(Problem(taxonomy, line, "paths", f"warning: {glued(glob)}"))
    lists = {field: getattr(config, field) for field in _CONFIG_GLOBS}
    for field, glob in glued_config_globs(lists):
        warnings.append(config_file.problem(field, f"warning: {glued(glob)}", glob))
    return warnings

"""Reply comments for slash commands (pure: command and library in, Markdown out).

Every reply is safe to post: the commands it mentions sit in inline code
mid-sentence (so no bot, ours included, runs them), and all text goes through
`bot.markdown_safety` (no ping, no backlink, no markup); whatever the user
typed comes back inside a code span. Search is `bot.search`'s RANKED mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.commands import Command, Kind, check_word, name_starts, named_topic, named_topic_in
from bot.comment_prose import without_end_marks
from bot.library import Library
from bot.markdown_safety import code, link_target, safe_text
from bot.markers import REPLY_MARKER
from bot.notes import QUOTE_PAIRS, Note, Topic, topic_key, topics_by_key
from bot.render import BUDGET, TITLE_MAX, badge_line
from bot.search import query_terms, search_notes
from bot.terminal import count_of
from bot.wrong_reading import Pick, PickProblem

ECHO_LIMIT = 80  # characters of what the user typed that a reply shows back
WORD_ECHO_LIMIT = 40  # of one word of it: an unknown command, the note a `wrong` names
REPLY_BUDGET = BUDGET  # as the notes comment: well under GitHub's 65,536
_NAME_MAX = 100  # a topic's name in the list of topics
_CUT = "_The rest is not shown: the reply would be too long._"
NoteUrl = Callable[[Note], str]
TopicUrl = Callable[[str], str]

# --- pieces --------------------------------------------------------------------


def note_line(
    note: Note, note_url: NoteUrl, extra: str = "", here: str = "", pr: int | None = None
) -> str:
    """One list item, headed as the notes comment heads a note: the title, then a line
    of verdict, source PR and link to the note's (Chinese) guidance, then the Chinese
    title beside an English one, then `extra`. Lines, not one: in a reply's width the
    two titles, two links and where a search matched ran to four lines of wrapped text
    with no line a reviewer could scan (GitHub shows a comment's newlines as breaks).
    `here`: the PR's repository, as `badge_line` takes it; `pr`: its number, which on the
    note's own source PR makes the source "this pull request" (no link to the page)."""
    title = note.title_en if note.title_en.strip() else note.title_zh
    badge = badge_line(note, note_url(note), here, _is_source(note, here, pr))
    lines = [f"- **{safe_text(title, TITLE_MAX)}**", badge]
    if note.title_en.strip() and note.title_zh.strip():
        lines.append(f"原题 (original title): {safe_text(note.title_zh, TITLE_MAX)}")
    if extra:
        lines.append(extra)
    return "\n  ".join(lines)


def _is_source(note: Note, repo: str, pr: int | None) -> bool:
    return pr is not None and note.source_pr == pr and note.repo.casefold() == repo.casefold()


def _apart(items: list[str]) -> str:
    """Notes' list items a blank line apart, as the comment's notes are: each of four lines,
    ten of them ran together as one block of forty."""
    return "\n\n".join(items)


def _matched(found: Sequence[str], asked: int, fields: str, forms: int = 0) -> str:
    """Where a search found a note, and how much of what was asked, naming the words found
    when not all were (else "1 of 2 words" leaves the reader to guess which); `forms`: how
    many of the words it holds only as another form (`registering` as "registration"),
    which a reader would look for in those fields in vain."""
    if asked == 1:
        return f"Found in its {fields}" + (", as another form of the word." if forms else ".")
    n = len(found)
    named = _listing([code(w, ECHO_LIMIT) for w in found], "and")
    words = (
        "both words"
        if n == asked == 2
        else (f"all {asked} words" if n == asked else f"{n} of {asked} words, {named},")
    )
    other = "one of them as another form" if forms == 1 else f"{forms} of them as other forms"
    return f"Found {words} in its {fields}" + (f", {other}." if forms else ".")


def _header(*commands: Command) -> str:
    lines = _listing([code(c.line, ECHO_LIMIT) for c in commands], "and")
    return f"{REPLY_MARKER}\nIn reply to {lines}:\n"


def _listing(items: Sequence[str], last: str) -> str:
    """`a`, `a and b`, `a, b and c` (with `last` for "and")."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def _once(items: Sequence[str]) -> list[str]:
    """The items without repeats (case aside), in their order."""
    kept: dict[str, str] = {}
    for item in items:
        kept.setdefault(item.casefold(), item)
    return list(kept.values())


def _topic_list(library: Library, repo: str | None) -> str:
    """Every topic's id, those with notes (of `repo`) first, each with its name: the ones
    a `topic` command lists notes of. Those with none after, apart, as the topics page
    sets them: asked for, each answers "No notes on ... yet" (and the search that finds
    notes mentioning it, if any)."""
    having = {t for n in library.notes if _in_repo(n, repo) for t in n.topics}
    topics = library.topics.values()
    # names without brackets of their own (`Topic.bracketed_en`): they go in brackets
    named = [
        f"{code(t.id)} ({safe_text(t.bracketed_en, _NAME_MAX)})" for t in topics if t.id in having
    ]
    bare = ", ".join(code(t.id) for t in topics if t.id not in having)
    if not named:
        return f"No topic has notes yet: {bare}"
    return f"Topics: {', '.join(named)}" + (f"; no notes yet: {bare}" if bare else "")


def _order(notes: tuple[Note, ...] | list[Note]) -> list[Note]:
    """Strongest verdict first, then the newest source PR."""
    return sorted(notes, key=lambda n: (n.verdict.rank, -(n.source_pr or 0), n.id))


# --- help ----------------------------------------------------------------------


def render_help(word: str = "/notes") -> str:
    """The commands, briefly, each line led by what it does; each command in inline code,
    mid-sentence, so it never runs."""
    w = check_word(word)
    return "\n".join(
        [
            REPLY_MARKER,
            f"**review-notes commands** (this list: `{w} help`). Write one per line, at the"
            " start of a line, in a comment on the pull request (not in code or quotes):",
            "",
            f"- Match this PR again now and update the notes comment: `{w}` or `{w} refresh`"
            " (also on drafts and when automatic updates are off).",
            f"- See the full evidence for each note, and the topics this PR touches that have"
            f" no note yet: `{w} why` (until a plain `{w}`).",
            f"- Look up notes: `{w} topic ID` lists one topic's, `{w} search WORDS` finds them"
            " by words (English or Chinese).",
            f"- Stop or resume automatic updates on this PR: `{w} off` or `{w} on`"
            " (PR author or collaborators with write access).",
            f"- Hide note N of the notes comment when it does not fit this PR, and tell the"
            f" curators: `{w} wrong N`, with a few words why if you like; `{w} restore` shows"
            " hidden notes again (PR author or collaborators with write access).",
        ]
    )


def render_unknown(command: Command, word: str = "/notes") -> str:
    return _render_unknown([command], word)


def _render_unknown(commands: Sequence[Command], word: str) -> str:
    subs = _once([c.args[0] if c.args else "" for c in commands])
    typed = _listing([code(s, WORD_ECHO_LIMIT) for s in subs], "or")
    return (
        f"{_header(*commands)}\nThere is no {typed}"
        f" command.{_meant_commands(subs, word)} The commands are"
        f" `{word}`, `{word} why`, `{word} topic ID`, `{word} search WORDS`,"
        f" `{word} off`, `{word} on`, `{word} wrong N`, `{word} restore` and `{word} help`"
        " (which explains them)."
    )


def _meant_commands(subs: Sequence[str], word: str) -> str:
    """The sub-commands these typos are one slip from (a letter more, less, changed, or two
    swapped: `serach`, `offf`, `wyh`), or name in quotes (`"why"`, `「wyh」`), as a
    question; mid-sentence in code, so the reply runs none of them. Not a guess further
    off: `stop` is no `topic`."""
    known = [k.value for k in Kind if k is not Kind.UNKNOWN]
    typed = [_unquoted(s).lower() for s in subs]
    meant = _once([k for t in typed if len(t) > 1 for k in known if t == k or _one_slip(t, k)])
    if not meant:
        return ""
    return f" Did you mean {_listing([f'`{word} {m}`' for m in meant], 'or')}?"


def _unquoted(sub: str) -> str:
    """The sub-command without a pair of quotes around it, nor the sentence's marks after
    them or inside (`"why"?`, `“off”。`, `"why?!"`); as typed when it has none."""
    quoted = without_end_marks(sub)
    if len(quoted) > 2 and QUOTE_PAIRS.get(quoted[0]) == quoted[-1]:
        return without_end_marks(quoted[1:-1])
    return sub


def _one_slip(typed: str, word: str) -> bool:
    """`typed` is `word` with one letter added, dropped or changed, or two next to each
    other swapped."""
    if typed == word or abs(len(typed) - len(word)) > 1:
        return False
    if len(typed) == len(word):
        apart = [i for i, (a, b) in enumerate(zip(typed, word, strict=True)) if a != b]
        swapped = len(apart) == 2 and apart[1] == apart[0] + 1
        return len(apart) == 1 or (
            swapped and typed[apart[0]] == word[apart[1]] and typed[apart[1]] == word[apart[0]]
        )
    short, long = sorted((typed, word), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _render_refused(commands: Sequence[Command], word: str) -> str:
    """Why `off`/`on`/`wrong`/`restore` was not done for this user (`render_errors`)."""
    uses = _listing([f"`{word} {kind}`" for kind in _once([c.kind.value for c in commands])], "and")
    return (
        f"{_header(*commands)}\nOnly the PR author or a collaborator with write access can"
        f" use {uses}; nothing was changed."
    )


@dataclass(frozen=True)
class Unanswered:
    """A command of a comment that was not done, answered in the comment's error reply."""

    command: Command
    refused: bool = False  # not allowed for whoever wrote it
    unpicked: str | None = None  # `wrong` naming no note shown: its reply (render_unpicked)

    @property
    def outcome(self) -> str:
        return "refused" if self.refused else "no such note" if self.unpicked else "unknown"


def render_errors(errors: Sequence[Unanswered], word: str = "/notes") -> str:
    """ONE reply to every command of a comment that was not done: three typos in a
    comment are one notification to everyone watching the PR, and one reply from its
    budget, not three. The unknown ones share a sentence, the refused ones another; a
    `wrong` naming no note keeps its own answer. One error alone reads as it always did."""
    word = check_word(word)
    unknown = [e.command for e in errors if e.outcome == "unknown"]
    refused = [e.command for e in errors if e.outcome == "refused"]
    sections: dict[str, str] = {}  # by group, in the order the comment first has them
    for i, e in enumerate(errors):
        if e.outcome == "no such note":
            sections[f"note {i}"] = e.unpicked or ""
        elif e.outcome not in sections:
            group = refused if e.outcome == "refused" else unknown
            render = _render_refused if e.outcome == "refused" else _render_unknown
            sections[e.outcome] = render(group, word)
    opening = f"{REPLY_MARKER}\n"
    return opening + "\n\n".join(s.removeprefix(opening) for s in sections.values())


def render_unpicked(
    command: Command, pick: Pick, shown: int, word: str = "/notes", *, commented: bool = True
) -> str:
    """`wrong` that names none of the comment's notes: which ones it can name.
    `commented`: the bot has a notes comment on the pull request."""
    ranged = pick.problem is PickProblem.RANGE  # its number may be any length: shortened
    head = _header(replace(command, line=_shortened(command.line)) if ranged else command)
    example = f"`{word} wrong 1`"
    if pick.problem is PickProblem.NO_NOTES and not commented:
        return f"{head}\nThere is no notes comment on this pull request; nothing was hidden."
    if pick.problem is PickProblem.NO_NOTES:
        return f"{head}\nThe notes comment on this pull request shows no note; nothing was hidden."
    if pick.problem is PickProblem.WHICH and shown == 1:  # a list, `1,2`: one note is shown
        takes = f"A `{word} wrong` takes one note, and the notes comment shows only note 1"
        return f"{head}\n{takes} (say {example}); nothing was hidden."
    if pick.problem is PickProblem.WHICH:  # no number, or a list (`1 and 2`): say it takes one
        numbers = _numbers(shown, "or")
        said = f"Say which note does not fit, by its number in the notes comment ({numbers})"
        one = f"a `{word} wrong` takes one note: write a line for each"
        return f"{head}\n{said}, as in {example} ({one}); nothing was hidden."
    if pick.problem is PickProblem.NOT_SHOWN:
        asked = code(pick.asked, WORD_ECHO_LIMIT)
        return f"{head}\nThe notes comment does not show {asked}; nothing was hidden."
    asked = code(_shortened(pick.asked), WORD_ECHO_LIMIT)
    shows = "only note 1" if shown == 1 else f"notes {_numbers(shown, 'and')}"
    if any(ch.isalpha() for ch in pick.asked):  # `the second`, `第9条`: their number first
        asked = f"{_shortened(str(pick.rank))} ({asked})"
    return (
        f"{head}\nThere is no note {asked} in the notes comment: it shows {shows}"
        f" (say {example}); nothing was hidden."
    )


def _numbers(shown: int, two: str) -> str:
    """The comment's note numbers as English says them: `1 and 2` (`1 or 2` when one is
    to be picked), `1 to 3`; "1 to 2" read as a typo."""
    return f"1 {two} 2" if shown == 2 else f"1 to {shown}"


def render_notes_unread(command: Command, word: str = "/notes") -> str:
    """`wrong` on a notes comment whose notes could not be read back (its record of them
    damaged, and GitHub's text of it not telling which they are): nothing hidden, and how
    to have them listed again, numbered anew."""
    return (
        f"{_header(command)}\nThe notes the notes comment shows could not be read; nothing was"
        f" hidden. Reply `{word}` to have it list them again, then `{word} wrong N` with the"
        " number it shows then."
    )


# A number no notes comment reaches (it shows a few notes): `/notes wrong` followed by 50
# digits was quoted back whole, twice, a wall of digits; its first digits say which it was
_LONG_NUMBER = re.compile("[0-9\uff10-\uff19]{7,}")
_NUMBER_SHOWN = 4  # digits


def _shortened(text: str) -> str:
    """`text` with each run of more than six digits as its first four and an ellipsis
    (`9999…`), ASCII or full-width."""
    return _LONG_NUMBER.sub(lambda run: run[0][:_NUMBER_SHOWN] + "…", text)


# --- topic ---------------------------------------------------------------------


def _named_topic(library: Library, text: str) -> Topic | None:
    """The topic the longest leading part of `text` names (`commands.named_topic_in`)."""
    return named_topic_in(topics_by_key(library.topics.values()), text)


_MOST_GUESSES = 3  # more topics holding the words is no guess at all (`kv`, `a`)


def _guesses(library: Library, text: str) -> list[Topic]:
    """The topics whose id or name holds what was typed, as part of it (`前缀缓存` of
    `前缀缓存与 KV 缓存管理`, `speculative`): a Chinese name is long, and the list of topics
    names them in English only. What was typed is read as `_named_topic` reads it, its
    longest start that any name holds (`前缀缓存～`, `前缀缓存，谢谢`, `speculative🙏`). None
    when more than a few hold it."""
    names = [
        (t, [topic_key(n) for n in (t.id, t.name_en, t.name_zh)]) for t in library.topics.values()
    ]
    for start in name_starts(text):
        wanted = topic_key(start)
        found = [t for t, keys in names if wanted and any(wanted in key for key in keys)]
        if found:
            return found if len(found) <= _MOST_GUESSES else []
    return []


def _did_you_mean(library: Library, text: str, word: str, repo: str | None) -> str:
    """The topics guessed from what was typed, or, with no guess, every topic. Not both:
    a reply is a new comment that notifies everyone on the PR, and three guesses before
    the 35 topics were lost in 1,400 characters of list; `topic` alone gives the list."""
    named = [
        f"{code(t.id)} ({safe_text(t.bracketed_en, _NAME_MAX)},"
        f" {safe_text(t.bracketed_zh, _NAME_MAX)})"
        for t in _guesses(library, text)
    ]
    if not named:
        return f" {_topic_list(library, repo)}."
    return (
        f" Did you mean {_listing(named, 'or')}? {code(word + ' topic')} alone lists every topic."
    )


def _in_repo(note: Note, repo: str | None) -> bool:
    return repo is None or note.repo.lower() == repo.lower()


def render_topic(
    command: Command,
    library: Library,
    note_url: NoteUrl,
    *,
    word: str = "/notes",
    max_results: int = 10,
    topic_url: TopicUrl | None = None,
    repo: str | None = None,
    pr: int | None = None,
) -> str:
    """The notes of the topic command.text names (its id, English or Chinese name); unknown ->
    what was asked, as typed, then the topics guessed from it, else the valid ids."""
    head = _header(command)
    if not command.args:
        example = f"`{word} topic cuda-graphs`"
        return f"{head}\nName a topic, as in {example}. {_topic_list(library, repo)}."
    named = named_topic(command.text)  # `（rocm）`, `#rocm`: no part of the name
    topic = _named_topic(library, named)
    if topic is None:
        return (
            f"{head}\nThere is no topic {code(command.text, ECHO_LIMIT)}."
            f"{_did_you_mean(library, named, word, repo)}"
        )
    # the PR's repository's notes, as on the page the link opens
    notes = _order([n for n in library.by_topic.get(topic.id, ()) if _in_repo(n, repo)])
    title = f"**{safe_text(topic.name_en)}** ({safe_text(topic.bracketed_zh)}, {code(topic.id)})"
    if not notes:  # a link to "all notes" of a topic with none would list nothing
        return f"{head}\nNo notes on {title} yet.{_search_instead(library, topic, word, repo)}"
    if topic_url is not None:
        title += f", [all notes of this topic]({link_target(topic_url(topic.id))})"
    lines = [f"{head}\n{count_of(len(notes), 'note')} on {title}:", ""]
    lines.append(
        _apart([note_line(n, note_url, here=repo or "", pr=pr) for n in notes[:max_results]])
    )
    if len(notes) > max_results:
        lines.append(f"\n{len(notes) - max_results} more not shown.")
    return "\n".join(lines)


def _search_instead(library: Library, topic: Topic, word: str, repo: str | None) -> str:
    """The search for a topic with no notes yet, when it finds notes filed under others
    (`deepseek` has none, the DeepSeek V4 notes are under `sparse-mla`): the next step.
    The words are the topic's id, so each name of the topic gets the same answer. Counted:
    the notes holding every word, which the search lists first; it finds a note by any
    word, and one holding `other` alone does not mention `other-platforms`."""
    words = topic.id.replace("-", " ")  # `mla-attention` as one word would find none
    notes = [n for n in library.notes if _in_repo(n, repo)]
    hits = search_notes(notes, words, topics=library.topics) if notes else []
    every = len(query_terms(words))
    found = [h for h in hits if h.terms == every]
    if not found:
        return ""
    said = code(f"{word} search {words}")
    mention = "mentions" if len(found) == 1 else "mention"
    return f" {said} finds {count_of(len(found), 'note')} that {mention} it."


# --- search ---

_FIELD_NAMES = {
    "title_en": "title",
    "title_zh": "Chinese title",
    "source_pr": "source PR",
    "keywords": "keywords",
    "topics": "topics",
    "summary_en": "summary",
    "paths": "paths",
    "guidance": "guidance",
    "read_with": "PRs to read with it",
    "issues": "issues",
}


def render_search(
    command: Command,
    library: Library,
    note_url: NoteUrl,
    *,
    word: str = "/notes",
    max_results: int = 10,
    repo: str | None = None,
    pr: int | None = None,
) -> str:
    """The notes best matching command.args, one line each with where they matched (the
    PR's repository's notes only, as `topic` lists)."""
    head = _header(command)
    terms = query_terms(command.text)
    if not terms:
        return f"{head}\nGive some words to look for, as in `{word} search prefix cache`."
    notes = [n for n in library.notes if _in_repo(n, repo)]
    hits = search_notes(notes, command.text, topics=library.topics)
    if not hits:  # a topic's name finds its notes: the words name none that has any
        return (
            f"{head}\nNo note matches {code(command.text, ECHO_LIMIT)}."
            f" `{word} topic` lists the topics and which have notes."
        )
    shown = hits[:max_results]
    match = "matches" if len(hits) == 1 else "match"
    found = f"{count_of(len(hits), 'note')} {match} {code(command.text, ECHO_LIMIT)}"
    order = "" if len(hits) == 1 else ", best first"  # one note found has no order to tell
    lines = [f"{head}\n{found}{order}:", ""]
    items = []
    for h in shown:
        where = _listing([_FIELD_NAMES[f] for f in h.fields], "and")
        found = _matched(h.found, len(terms), where, h.terms - h.as_typed)
        items.append(note_line(h.note, note_url, found, here=repo or "", pr=pr))
    lines.append(_apart(items))
    if len(hits) > max_results:
        lines.append(f"\n{len(hits) - max_results} more not shown; add words to narrow the search.")
    return "\n".join(lines)


# --- dispatch ------------------------------------------------------------------


def _within_budget(body: str, budget: int = REPLY_BUDGET) -> str:
    """The body, or its first lines that fit and a line saying the rest is cut (a line
    is a note, a sentence: never cut inside one, so no markup is left open)."""
    if len(body) <= budget:
        return body
    kept, size = [], len(_CUT) + 1  # the blank line before the note that the rest is cut
    for line in body.split("\n"):
        if size + len(line) + 1 > budget:
            break
        kept.append(line)
        size += len(line) + 1
    return "\n".join([*kept, "", _CUT])


def render_reply(
    command: Command,
    library: Library,
    note_url: NoteUrl,
    *,
    word: str = "/notes",
    max_results: int = 10,
    topic_url: TopicUrl | None = None,
    repo: str | None = None,
    pr: int | None = None,
) -> str:
    """The reply comment for a command answered by a reply (a Kind that does not
    `updates_sticky`), within REPLY_BUDGET: whole lines from the end go first. `repo`
    and `pr`: the PR it is posted on (its notes alone are listed; its own note's source
    is "this pull request")."""
    word = check_word(word)
    if command.kind is Kind.HELP:
        body = render_help(word)
    elif command.kind is Kind.TOPIC:
        body = render_topic(
            command,
            library,
            note_url,
            word=word,
            max_results=max_results,
            topic_url=topic_url,
            repo=repo,
            pr=pr,
        )
    elif command.kind is Kind.SEARCH:
        body = render_search(
            command, library, note_url, word=word, max_results=max_results, repo=repo, pr=pr
        )
    elif command.kind is Kind.UNKNOWN:
        body = render_unknown(command, word)
    else:
        raise ValueError(
            f"{command.kind.value!r} is answered in the sticky comment, not by a reply"
        )
    return _within_budget(body)

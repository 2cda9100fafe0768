"""Reasons in a reviewer's words: the evidence lines of a match ("changes a.py (a path
of this note; topic: Prefix caching)", a topic by its short name: the note's "Topics:"
line above names it in full), one line per thing the PR does, strongest
first, each file or word named once, with every reason it counts for."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping

from bot.match_result import Said, Saying
from bot.notes import Note, Topic
from bot.prfacts import PRFacts
from bot.similarity import CAMEL_CUT, names_in, written_form
from bot.terms import TermHit


def mentions(saying: Saying, hits: list[TermHit]) -> Said:
    return Said(saying, tuple(h.text for h in hits))


def changes(files: list[str], count: int | None = None) -> Said:
    """The first file named, the others counted; `count`: how many files they are, when
    fewer than the paths (a rename's two paths are one file)."""
    n = len(files) if count is None else count
    return Said(Saying.CHANGES, (files[0],), n - 1, tuple(files[1:]))


_PLAIN_TAG = re.compile(r"[\w ./+-]+")


def tag_text(tag: str, hit: TermHit) -> str:
    """The tag as written, unless it carries more than words (a mention, a reference)."""
    return tag if _PLAIN_TAG.fullmatch(tag) else hit.text


def tagged(tag: str, hit: TermHit) -> Said:
    """ "title is tagged [Spec Decode]": the tag as `tag_text` quotes it."""
    return Said(Saying.TAG, (tag_text(tag, hit),))


# One piece of evidence on its way to a reason line: (its weight, what the PR does, why
# that counts for the note: "a term this note is about", "topic: X", "" for nothing to add).
Weighed = tuple[float, str | Said, str]

# Why a line counts for the note (a line's gloss, in brackets), in a reviewer's words:
# a note's keywords are "terms this note is about", its aspects "a subject of this note,
# under <topic>", as the note page labels them (templates/note.html). Marks kept in older
# wordings ("keyword of this note", "this note's focus within X", "what this note is
# about in X") are read back the same: `evidence_terms` reads no gloss
KEYWORD = "a term this note is about"
ASPECT = "a subject of this note, under {}"  # the note's topic the aspect is of
TOPIC = "topic: {}"
OWN_PATH = "a path of this note"
OWN_PATHS = "paths of this note"  # OWN_PATH, of a line naming or counting more than one file
OWN_CODE = "code of this note"

# Lines of their own: what ties the PR to the note, whatever its words and files
IS_SOURCE = "this PR is the one this note reviews"
READ_WITH = "this note lists this PR as one to read with it"
# READ_WITH as marks kept in its older wording wrote it ("its own": the note's PR, which
# a reader had to guess), read back by `evidence_terms`
_READ_WITH_BEFORE = "this note lists this PR to read with its own"


def refers_to_source(number: int) -> str:
    return f"refers to PR {number}, the PR this note reviews"


def refers_to_issue(number: int) -> str:
    return f"refers to issue {number}, which this note's PR fixes"


def related_via(relation: str, number: int) -> str:
    """ "reverts PR 53155, which got this note": the PR relates to one shown the note."""
    return f"{relation} PR {number}, which got this note"


def labeled(labels: list[str]) -> str:
    return "labeled " + ", ".join(f"'{lb}'" for lb in labels)


def diff_names(names: list[str]) -> str:
    return "its changed lines name " + ", ".join(f"'{n}'" for n in names)


def reason_lines(
    scored: list[Weighed], written: Mapping[Saying, str] | None = None
) -> tuple[str, ...]:
    """One line per thing the PR does, strongest first, with every reason it counts:
    "changes a.py (a path of this note; topic: Prefix caching)", not the file twice.
    A file or title word that two lines name (the note's path and a topic's files, the
    note's aspect and a topic's keywords) gets a line of its own with both reasons.
    `written`: the title and description, by the saying that quotes them, to quote
    words merged on one line in their order (`_alike_merged`)."""
    lines: dict[str | Said, tuple[float, list[str]]] = {}
    for weight, what, why in scored:
        total, whys = lines.get(what, (0.0, []))
        lines[what] = (total + weight, whys + [why] if why and why not in whys else whys)
    ranked = sorted(_one_per_thing(lines), key=lambda line: -line[1])  # stable: ties keep order
    # words merged (ranked strongest first, then in the order their place writes them),
    # the line placed by their total
    ranked = _alike_merged(ranked, written or {})
    ranked = sorted(_both_places(ranked), key=lambda line: -line[1])
    ranked = _name_counted(ranked)
    return tuple(
        f"{what} ({'; '.join(_glosses(what, whys))})" if whys else str(what)
        for what, _, whys in ranked
    )


def _glosses(what: str | Said, whys: list[str]) -> list[str]:
    """A line's reasons as its brackets say them: the note's own first, topics once."""
    whys = _topics_once(sorted(_unrepeated(whys), key=_topic_last))
    if isinstance(what, Said) and what.saying is Saying.CHANGES and what.size > 1:
        return [OWN_PATHS if why == OWN_PATH else why for why in whys]  # files, named or counted
    if isinstance(what, Said) and len(what.names) > 1:  # words merged (`_alike_merged`)
        return [KEYWORDS if why == KEYWORD else why for why in whys]
    return whys


# Lines that quote words with the same reasons are one: a title and a description say
# what the PR does in words, and "title mentions 'workspace' (a term this note is about)"
# over "title mentions 'ubatch' (a term this note is about)" read as two things the PR does
# where it is one, the note's words in its title, as a topic's line quotes its own
_ALIKE = (Saying.TITLE, Saying.BODY)
KEYWORDS = "terms this note is about"  # KEYWORD, of a line quoting more than one word
# Where else the note writes a word another line quotes (`also_in`), by side
ALSO_IN = {"title": "this note's title", "keywords": KEYWORD}


def _alike_merged(
    lines: list[tuple[str | Said, float, list[str]]], written: Mapping[Saying, str]
) -> list[tuple[str | Said, float, list[str]]]:
    """The lines, those quoting words in one place (the title, the description) with the
    same reasons made one, at the first's place, with their weights added: "title
    mentions 'ubatch', 'workspace' (terms this note is about)", the words in the order the
    place writes them (`written`), as a topic's line and the similar-title line quote
    theirs; one it does not write (no text given) after, strongest first. Lines with no
    reason of their own are left apart: what they quote is said for no one reason."""
    out: list[tuple[str | Said, float, list[str]]] = []
    at: dict[tuple[Saying, frozenset[str]], int] = {}  # -> the merged line's place in `out`
    for what, weight, whys in lines:
        key = (what.saying, frozenset(whys)) if isinstance(what, Said) else None
        if key is None or not whys or key[0] not in _ALIKE:
            out.append((what, weight, whys))
        elif key not in at:
            at[key] = len(out)
            out.append((what, weight, whys))
        else:
            first, total, reasons = out[at[key]]
            assert isinstance(first, Said) and isinstance(what, Said)  # (`key`: it is)
            names = tuple(dict.fromkeys((*first.names, *what.names)))
            text = written.get(first.saying, "")
            names = tuple(sorted(names, key=lambda name: _place(text, name)))  # stable
            out[at[key]] = (Said(first.saying, names), total + weight, reasons)
    return out


def _both_places(
    lines: list[tuple[str | Said, float, list[str]]],
) -> list[tuple[str | Said, float, list[str]]]:
    """The lines, a title's and a description's quoting the same words (case aside) for
    the same reasons made one, "title and description mention 'DSA' (topic: Sparse MLA)",
    at the title's place, with their weights added: a line each read as the same thing
    said twice. Lines whose words or reasons differ stay apart: each says where what it
    quotes is ("title mentions 'DSA'" over "description mentions 'DSA', 'indexer'")."""

    def key(what: Said, whys: list[str]) -> tuple[frozenset[str], frozenset[str]]:
        return frozenset(n.casefold() for n in what.names), frozenset(whys)

    bodies = {
        key(what, whys): n
        for n, (what, _, whys) in enumerate(lines)
        if isinstance(what, Said) and what.saying is Saying.BODY
    }
    pairs: dict[int, int] = {}  # the title's line -> the description's
    for n, (what, _, whys) in enumerate(lines):
        if isinstance(what, Said) and what.saying is Saying.TITLE:
            body = bodies.get(key(what, whys))
            if body is not None and body not in pairs.values():
                pairs[n] = body
    out: list[tuple[str | Said, float, list[str]]] = []
    for n, (what, weight, whys) in enumerate(lines):
        if n in pairs.values():
            continue
        if n in pairs and isinstance(what, Said):
            what, weight = Said(Saying.BOTH, what.names), weight + lines[pairs[n]][1]
        out.append((what, weight, whys))
    return out


# How many of its files a line left counting only ("changes 3 other files") names
OTHERS_NAMED = 2


def _name_counted(
    ranked: list[tuple[str | Said, float, list[str]]],
) -> list[tuple[str | Said, float, list[str]]]:
    """Each line that names none of the files it counts names its first ones (two at
    most, `OTHERS_NAMED`): "changes b.py and 1 more file (topic: A)", not "changes 2
    other files", which a reader cannot find in the PR. A file another line names is
    not named again (nor on two such lines: the stronger names it); a line whose files
    all are keeps its count. Which lines there are and their weights stay as they were."""
    taken = {n for what, _, _ in ranked if isinstance(what, Said) for n in what.names}
    out: list[tuple[str | Said, float, list[str]]] = []
    for what, weight, whys in ranked:
        if isinstance(what, Said) and not what.names and what.more:
            free = [f for f in what.counted if f not in taken][: min(OTHERS_NAMED, what.more)]
            taken.update(free)
            what = Said(what.saying, tuple(free), what.more - len(free), what.counted)
        out.append((what, weight, whys))
    return out


def _topics_once(whys: list[str]) -> list[str]:
    """ "topics: A, B" for "topic: A; topic: B": a file of two topics read as the same
    words said twice (as the note's "Topics:" line, names joined by commas)."""
    topic = TOPIC.format("")
    names = [w.removeprefix(topic) for w in whys if w.startswith(topic)]
    if len(names) < 2:
        return whys
    return [w for w in whys if not w.startswith(topic)] + ["topics: " + ", ".join(names)]


def _unrepeated(whys: list[str]) -> list[str]:
    """Without "topic: X" where "a subject of this note, under X" says it already."""
    topic = TOPIC.format("")
    return [
        w
        for w in whys
        if not (w.startswith(topic) and ASPECT.format(w.removeprefix(topic)) in whys)
    ]


# A thing a line names or counts: a file or word (a str), or the files a line counts
# whose paths are not known one by one (the line itself: a rename's two paths are one)
Thing = str | Said


def _things(said: Said) -> list[tuple[Thing, int, bool]]:
    """The things a line names or counts, one by one, each with how many of the line's
    `size` it is and whether the line names it: a file or word is one; so is each file
    it counts, when it knows which (`counted`), so that a file counted here and named on
    another line is one thing, said once with both reasons (not "changes a.py and 2 more
    files (topic: A)" over "changes b.py (topic: B)" with b.py among the 2). When the
    paths it counts are more than its count (a rename's two paths, one file), the files
    it counts are one thing, the line itself, of their number: no other line names them."""
    things: list[tuple[Thing, int, bool]] = [(name, 1, True) for name in said.names]
    rest = [f for f in dict.fromkeys(said.counted) if f not in said.names]
    if said.more and len(rest) == said.more:
        things += [(path, 1, False) for path in rest]
    elif said.more:
        things.append((said, said.more, False))
    return things


def _one_per_thing(
    lines: dict[str | Said, tuple[float, list[str]]],
) -> list[tuple[str | Said, float, list[str]]]:
    """The lines regrouped so that no file or word is named by two of them, nor named by
    one and counted by another: each thing goes on a line with the things the same lines
    name or count, with their reasons, and with the share of each line's weight its
    things carry (a line's weight is its things', in equal shares: "changes a.py and 2
    more files" split leaves "changes 2 other files" two thirds of it). A file is named
    there when a line named it, else counted. Lines that share nothing come out as they
    went in, in their order."""
    naming: dict[tuple[Saying, Thing], list[Said]] = {}  # (saying, thing) -> lines with it
    for what in lines:
        if isinstance(what, Said):
            for thing, _, _ in _things(what):
                naming.setdefault((what.saying, thing), []).append(what)
    if all(len(whats) == 1 for whats in naming.values()):
        return [(what, weight, whys) for what, (weight, whys) in lines.items()]
    Group = tuple[Saying, tuple[Said, ...]]  # (saying, the lines naming its things)
    order: list[str | Group] = []  # a line, or a group of things
    groups: dict[Group, list[Thing]] = {}  # the things of each group
    named: set[tuple[Saying, Thing]] = set()  # the things a line names
    carried: dict[Group, Counter[Said]] = defaultdict(Counter)  # of each line's `size`
    for what in lines:
        if not isinstance(what, Said):
            order.append(what)
            continue
        for thing, n, is_named in _things(what):
            key = (what.saying, tuple(naming[what.saying, thing]))
            if key not in groups:
                groups[key] = []
                order.append(key)
            if thing not in groups[key]:
                groups[key].append(thing)
            if is_named:
                named.add((what.saying, thing))
            carried[key][what] += n
    out: list[tuple[str | Said, float, list[str]]] = []
    for item in order:
        if isinstance(item, str):
            out.append((item, *lines[item]))
            continue
        saying, whats = item
        weight = sum(lines[what][0] * n / what.size for what, n in carried[item].items())
        whys = list(dict.fromkeys(why for what in whats for why in lines[what][1]))
        things = groups[item]
        names = tuple(t for t in things if isinstance(t, str) and (saying, t) in named)
        files = [t for t in things if isinstance(t, str) and (saying, t) not in named]
        counts = [t for t in things if isinstance(t, Said)]
        more = len(files) + sum(t.more for t in counts)
        counted = tuple(dict.fromkeys([*files, *(f for t in counts for f in t.counted)]))
        out.append((Said(saying, names, more, counted), weight, whys))
    return out


def _topic_last(why: str) -> bool:
    return why.startswith(TOPIC.format(""))  # the note's own reason first: it says more


def _place(text: str, form: str) -> int:
    """Where the title writes this form first (case aside) as a word or a piece of a name
    ('EC' not inside "Respect": after a non-letter, or a capital after a small letter);
    else where `title_words` cuts a name after capitals (the 'Cache' of `KVCacheManager`;
    'Connector' is placed at "EC Connector", not in an earlier `SHMConnector`); after all
    else if nowhere."""
    after_capitals = len(text)
    for m in re.finditer(re.escape(form), text, re.IGNORECASE):
        at = m.start()
        before = text[at - 1] if at else " "
        if not before.isalnum() or (before.islower() and text[at].isupper()):
            return at
        if before.isalpha() != text[at].isalpha():  # a letter/digit edge: `DSv4`
            return at
        if after_capitals == len(text) and CAMEL_CUT.match(text, at):
            after_capitals = at
    return after_capitals


def also_in(text: str, name: str, words: list[str], side: str) -> str:
    """The gloss naming the words of a quoted name the note also writes, in the name's
    order, as the title writes them: "'thinking', 'budget' also in this note's title"
    ("'Draft' also in a term this note is about": `ALSO_IN`)."""
    forms = dict.fromkeys(written_form(text, w, frozenset()) for w in words)
    quoted = ", ".join(f"'{f}'" for f in sorted(forms, key=lambda f: _place(name, f)))
    return f"{quoted} also in {ALSO_IN[side]}"


def shared_detail(
    words: list[str],
    in_title: frozenset[str],
    names: tuple[frozenset[str], frozenset[str]],
    facts: PRFacts,
) -> str:
    """The words a PR title shares with a note, quoted as the PR wrote them, each said to
    come from where it is: the note's title (`in_title`: its words) or, failing that, its
    keywords; in the order the title writes them. A quote holds no more than the note
    says (`similarity.written_form`; `names`: what the note's title and its keywords
    write, `similarity.names_in`): `stats`, not the PR's `get_kv_connector_stats`, unless
    the note writes that too."""
    text = facts.title_text

    def quoted(some: list[str], said: frozenset[str]) -> str:
        along = frozenset(some)  # `DeepGemm` whole, for `deep` and `gemm` of `deep_gemm`
        forms = dict.fromkeys(written_form(text, w, said, along) for w in some)
        in_order = sorted(forms, key=lambda f: _place(text, f))  # the phrase as the title has it
        return ", ".join(f"'{f}'" for f in in_order)

    titled = [w for w in words if w in in_title]
    keyed = [w for w in words if w not in in_title]
    if not keyed:
        return f"title shares {quoted(titled, names[0])} with this note's title"
    if not titled:
        return f"title shares {quoted(keyed, names[1])} with {KEYWORDS}"
    both = (
        f"{quoted(titled, names[0])} with this note's title and "
        f"{quoted(keyed, names[1])} with terms it is about"
    )
    return f"title shares {both}"


# A title like the note's counts as one piece of evidence, resting on two rare words
# at least (`similar_min_words`); the words another line quotes are said there ("also in
# this note's title", or the line names the note's keyword) and the similar line keeps
# the rest, at times one word. Alone on its line, "title shares 'Keep' with this note's
# title" reads as a common word counted as evidence: the comment's short view leaves it
# to `/notes why`, where every line is. Not a name ('DeepSeek', 'H200', 'DSv4': a capital
# after its first letter, or a digit): a model, a chip or a class the two titles both name
# is what a reviewer reads as the resemblance. The vocabulary's rarity cannot tell them
# apart: 'keep' is in fewer vLLM titles than 'deepseek' (20 and 88 of 16,673). A word in
# capitals alone is a name only where the note or its topics write it as one ('MLA',
# 'EAGLE'): titles put plain words in capitals too ('SPARSE' of `FLASHINFER_MLA_SPARSE`,
# 'KV' against a note that writes only `KVOutputAggregator`).
_ONE_WORD_SHARED = re.compile(
    r"title shares '([^'\n]+)' with (?:this note's (?:title|keywords)|terms this note is about)"
)  # "keywords": the older wording


def _name_shaped(word: str) -> bool:
    """'DeepSeek', 'H200', 'EAGLE', 'DSv4': written as a name is, not as a word ('Keep')."""
    return any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def _a_name(word: str, defined: frozenset[str]) -> bool:
    """A name as `_name_shaped` says, a word in capitals ('SPARSE', 'MOE') only when it is
    one of the note's own terms (`defined`, `note_names`: 'MLA', and 'MoE' for 'MOE')."""
    if len(word) > 1 and word.isalpha() and word.isupper():
        return word.casefold() in defined
    return _name_shaped(word)


def note_names(note: Note, topics: Iterable[Topic]) -> frozenset[str]:
    """The names (`_name_shaped`, case folded) a note and its topics write as words of
    their own, in titles, keywords, aspects, topic names and tags: 'mla', 'eagle', 'moe';
    not the 'kv' inside `KVOutputAggregator`."""
    texts = [note.title_en, note.title_zh, *note.keywords, *note.aspects]
    for t in topics:
        texts += [t.name_en, t.short_en, *t.keywords, *t.tags]
    return frozenset(w.casefold() for text in texts for w in names_in(text) if _name_shaped(w))


def short_view(reasons: tuple[str, ...], defined: frozenset[str]) -> tuple[str, ...]:
    """The reason lines the comment shows before `/notes why`: without a similar-title
    line left with one word, unless that word is a name (`_a_name`; `defined`: the
    note's, `note_names`) or the line is the only one."""
    kept = tuple(
        r
        for r in reasons
        if not ((m := _ONE_WORD_SHARED.fullmatch(r)) and not _a_name(m.group(1), defined))
    )
    return kept or reasons


def under_topics_line(reasons: tuple[str, ...], topics: list[str]) -> tuple[str, ...]:
    """The lines as a comment shows them under a note's "Topics:" line (`topics`: the
    short names of the topics it names). Naming one topic, it says what "topic: X" after
    a note's own reason would ("title mentions 'CMake' (also in this note's title; topic:
    CMake build)"): that is left out. A line with no other reason keeps it: it says why
    the line counts, through the topic and not the note's own words or paths."""
    if len(topics) != 1:
        return reasons
    said = f"; {TOPIC.format(topics[0])})"  # last: `_topic_last`
    return tuple(r.removesuffix(said) + ")" if r.endswith(said) else r for r in reasons)


# The lines above read back, as `notes feedback` does from the lines a mark kept (any
# release's): the term each one rests on (None: the line names no term of its own).
# Change a line's words above and its pattern here with them.
_TERM_PATTERNS = (
    # the rest of a file set whose files other lines name (or a mark kept before the
    # rest was named, `_name_counted`): "changes 2 other files (topic: X)"
    (re.compile(r"^changes \d+ other files?\b"), lambda m: None),
    # its first file: "changes a.py, b.py and 1 more file" rests on a.py, not "a.py,"
    (re.compile(r"^changes (\S+)"), lambda m: m.group(1).removesuffix(",")),
    (re.compile(r"^title is tagged (\[[^\]]+\])"), lambda m: m.group(1)),
    # "labelled": the spelling of marks kept before GitHub's "labeled" was used
    (re.compile(r"^label(?:l)?ed (.+?)(?: \(|$)"), lambda m: f"label {m.group(1)}"),
    (re.compile(r"^title shares "), lambda m: "(a title like the note's)"),
    (re.compile(r"^refers to (PR|issue) "), lambda m: "(refers to the note's PR or issue)"),
    (
        re.compile(f"^(?:{re.escape(READ_WITH)}|{re.escape(_READ_WITH_BEFORE)})"),
        lambda m: "(a PR the note lists to read with it)",
    ),
    (re.compile(r"^\w[\w ]* PR \d+, which got this note"), lambda m: "(relates to a PR with it)"),
)
_QUOTED = re.compile(r"'([^'\n]{1,100})'")


def evidence_terms(reasons: Iterable[str]) -> set[str]:
    """The words, tags, paths and links a note's evidence rests on (what a curator edits)."""
    terms: set[str] = set()
    for reason in reasons:
        for pattern, term in _TERM_PATTERNS:
            if m := pattern.match(reason):
                if (found := term(m)) is not None:
                    terms.add(found)
                break
        else:
            terms.update(f"'{q}'" for q in _QUOTED.findall(_claim(reason)))
    return terms


def _claim(reason: str) -> str:
    """The line without its gloss in brackets, which starts at the first " (" outside a
    quote: the apostrophe of "this note's" in a gloss is no quote's."""
    at = 0
    for m in _QUOTED.finditer(reason):
        if " (" in reason[at : m.start()]:
            break
        at = m.end()
    cut = reason.find(" (", at)
    return reason if cut < 0 else reason[:cut]

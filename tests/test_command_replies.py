"""Reply comments for slash commands: content, ranking on the real notes, and safety."""

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from bot.command_replies import (
    _CUT,
    REPLY_BUDGET,
    REPLY_MARKER,
    Unanswered,
    _render_refused,
    _within_budget,
    render_errors,
    render_help,
    render_reply,
    render_search,
    render_topic,
    render_unknown,
    render_unpicked,
)
from bot.commands import Command, parse_commands
from bot.library import Library, load_library
from bot.markdown_safety import ZWSP, code
from bot.markers import written_by_review_notes
from bot.notes import Note, Topic, Verdict
from bot.search import query_terms, search_notes
from bot.wrong_reading import pick_note
from tests.docs_kit import doc
from tests.test_render import linked_by_github


@pytest.fixture(scope="module")
def library() -> Library:
    return load_library()


def note_url(note: Note) -> str:
    return f"https://notes.example/n/{note.id}"


def command(line: str, word: str = "/notes") -> Command:
    (cmd,) = parse_commands(line, word)
    return cmd


def reply(line: str, library: Library, **kw) -> str:
    return render_reply(command(line), library, note_url, **kw)


_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def outside_code(body: str) -> str:
    return _CODE_SPAN.sub(" ", body)


def items(body: str) -> list[str]:
    """A reply's list items, each with the lines it goes on with (indented)."""
    return re.findall(r"^- .*(?:\n  .*)*", body, re.M)


def assert_safe(body: str, word: str = "/notes") -> None:
    """What every reply must satisfy before it is posted on GitHub."""
    assert parse_commands(body, word) == [], "a reply must never contain a runnable command"
    assert not re.search(r"(?m)^\s*/", body), "no line may start like any bot's command"
    assert not re.search(r"@[A-Za-z0-9]", body), "live mention"
    assert not re.search(r"#\d|\bGH-\d", body, re.I), "issue reference (backlink)"
    linked = linked_by_github(body)  # a URL in code is shown as typed: GitHub links none
    assert not re.search(r"//(www\.)?github\.com/[^\s)]*/(pull|issues|discussions)/\d", linked), (
        "backlink URL"
    )
    assert written_by_review_notes(body), "the reply must open with our marker"
    prose = outside_code(body).replace(REPLY_MARKER, "")
    assert "<" not in prose and ">" not in prose, "raw HTML outside code"
    assert not re.search(r"[\u0000-\u0008\u000b-\u001f\u202a-\u202e\u2066-\u2069]", body)


# --- help and unknown ---------------------------------------------------------------


@pytest.mark.parametrize("word", ["/notes", "/review-notes"])
def test_help_names_every_command_and_runs_none(word):
    body = render_help(word)
    for sub in ["", " refresh", " why", " topic ID", " search WORDS", " off", " on", " help"]:
        assert f"`{word}{sub}`" in body
    assert_safe(body, word)
    assert_safe(body, "/notes")
    # commands are mid-sentence: never the first thing on a line, even after a bullet
    assert not re.search(r"(?m)^(?:- )?`/", body)


def test_unknown_sub_command_gets_a_short_help_naming_it(library):
    body = reply("/notes frobnicate", library)
    assert "`frobnicate`" in body
    assert "`/notes help`" in body
    assert len(body) < 600
    assert body == render_unknown(command("/notes frobnicate"))
    assert_safe(body)


def test_refusal_says_who_may(library):
    body = render_errors([Unanswered(command("/notes off"), refused=True)])
    assert "PR author" in body and "write access" in body and "`/notes off`" in body
    assert_safe(body)


# --- one reply to the commands of a comment that were not done --------------------------


def unpicked(line: str, shown: int = 2) -> Unanswered:
    cmd = command(line)
    pick = pick_note(cmd.args, tuple(f"vllm-{i:08x}" for i in range(shown)))
    return Unanswered(cmd, unpicked=render_unpicked(cmd, pick, shown))


def test_one_error_alone_reads_as_its_own_reply_did():
    assert render_errors([Unanswered(command("/notes hlep"))]) == render_unknown(
        command("/notes hlep")
    )
    off = command("/notes off")
    assert render_errors([Unanswered(off, refused=True)]) == _render_refused([off], "/notes")
    assert render_errors([unpicked("/notes wrong 7")]) == unpicked("/notes wrong 7").unpicked


def test_an_unknown_command_close_to_one_is_told_which_it_may_be():
    # `/notes serach deadlock` was told the whole list of commands, none pointed at
    typos = [Unanswered(command(f"/notes {w}")) for w in ("serach deadlock", "offf", "frobnicate")]
    body = render_errors(typos)
    assert (
        "There is no `serach`, `offf` or `frobnicate` command. Did you mean `/notes search` or"
        " `/notes off`? The commands are"
    ) in body
    assert parse_commands(body) == []  # the suggestion, mid-sentence in code, runs nothing
    assert_safe(body)
    assert "Did you mean" not in render_errors([Unanswered(command("/notes frobnicate"))])
    slipped = render_errors([Unanswered(command("/rn wyh", "/rn"))], "/rn")
    assert "Did you mean `/rn why`?" in slipped  # the installation's own command word
    assert "`stop`" in render_errors([Unanswered(command("/notes stop"))])
    assert "Did you mean" not in render_errors([Unanswered(command("/notes stop"))])


def test_a_command_typed_in_quotes_is_told_the_command_it_names():
    # `/notes "why"` was told "There is no `"why"` command." and no more
    for said, meant in [('"why"', "why"), ("'help'", "help"), ("“off”", "off"), ("「wyh」", "why")]:
        body = render_errors([Unanswered(command(f"/notes {said}"))])
        assert f"Did you mean `/notes {meant}`?" in body, body
        assert parse_commands(body) == []
    assert "Did you mean" not in render_errors([Unanswered(command('/notes "frobnicate"'))])


def test_a_command_in_quotes_is_told_the_command_with_the_sentence_s_marks_about_it():
    # `/notes "why"?` and `/notes “off”。` were told only "There is no ... command.", the
    # marks after the closing quote hiding the quotes around the command, as marks inside
    # them did more than one (`"why?!"`)
    for said, meant in [('"why"?', "why"), ("“off”。", "off"), ('"Help"!', "help")]:
        body = render_errors([Unanswered(command(f"/notes {said}"))])
        assert f"Did you mean `/notes {meant}`?" in body, body
    body = render_errors([Unanswered(command('/notes "why?!"'))])
    assert "Did you mean `/notes why`?" in body, body
    assert "Did you mean" not in render_errors([Unanswered(command('/notes "?"!'))])


def test_several_unknown_commands_share_one_sentence():
    typos = [Unanswered(command(f"/notes {w}")) for w in ("hlep", "refersh", "wyh", "HLEP x")]
    body = render_errors(typos)
    assert body.count(REPLY_MARKER) == 1 and body.count("The commands are") == 1
    assert "In reply to `/notes hlep`, `/notes refersh`, `/notes wyh` and `/notes HLEP x`:" in body
    assert "There is no `hlep`, `refersh` or `wyh` command." in body  # `hlep` once
    assert_safe(body)


def test_refusals_share_one_sentence_and_other_errors_keep_theirs():
    errors = [
        Unanswered(command("/notes frobnicate")),
        Unanswered(command("/notes off"), refused=True),
        unpicked("/notes wrong 7"),
        Unanswered(command("/notes restore"), refused=True),
        Unanswered(command("/notes wyh")),
    ]
    body = render_errors(errors)
    assert body.count(REPLY_MARKER) == 1
    sections = body.removeprefix(REPLY_MARKER + "\n").split("\n\n")
    # in the comment's order, each group where the comment first has one
    assert [s.split("\n")[0] for s in sections[::2]] == [
        "In reply to `/notes frobnicate` and `/notes wyh`:",
        "In reply to `/notes off` and `/notes restore`:",
        "In reply to `/notes wrong 7`:",
    ]
    assert "There is no `frobnicate` or `wyh` command." in body
    assert "can use `/notes off` and `/notes restore`; nothing was changed." in body
    assert "There is no note `7` in the notes comment: it shows notes 1 and 2" in body
    assert_safe(body)


def test_a_bad_word_never_reaches_a_reply(library):
    with pytest.raises(ValueError, match="command word"):
        render_help("/notes`\n/lgtm")
    with pytest.raises(ValueError, match="command word"):
        reply("/notes help", library, word="/notes @x")


def test_sticky_commands_have_no_reply(library):
    for line in ["/notes", "/notes why", "/notes off", "/notes on"]:
        with pytest.raises(ValueError, match="sticky"):
            reply(line, library)


# --- topic ---------------------------------------------------------------------------


def test_topic_lists_its_notes_strongest_first_with_links(library):
    body = reply("/notes topic sparse-mla", library)
    expected = library.by_topic["sparse-mla"]
    assert len(expected) >= 2
    for note in expected:
        assert f"({note_url(note)})" in body
        assert f"https://redirect.github.com/{note.repo}/pull/{note.source_pr})" in body
        assert note.title_zh in body
    assert "**Deep read** · 值得精读" in body
    assert "Sparse MLA" in body  # the topic's English name
    assert_safe(body)


# kills: bot/command_replies.py:_order the newest-source-PR tie-break dropped: notes by id alone
def test_topic_lists_deep_reads_first_then_the_newest_source_pr(library):
    # Every shipped note of a topic is a deep read, so an order checked on them holds
    # whatever the order: these notes differ in verdict and source PR, given shuffled.
    base = library.by_topic["rocm"][0]

    def n(nid: str, verdict: Verdict, pr: int) -> Note:
        return base.model_copy(update={"id": nid, "verdict": verdict, "source_pr": pr})

    # (the ids sort the other way round, so an order by id alone, the last tie-break, fails)
    given = (
        n("t-quick", Verdict.QUICK, 300),
        n("t-skip", Verdict.SKIP, 400),
        n("t-a-old", Verdict.DEEP, 100),
        n("t-b-new", Verdict.DEEP, 200),
    )
    lib = Library(notes=given, topics=library.topics)
    body = reply("/notes topic rocm", lib)
    lines = items(body)
    assert [next(m.id for m in given if note_url(m) in x) for x in lines] == [
        "t-b-new",
        "t-a-old",
        "t-quick",
        "t-skip",
    ]
    capped = reply("/notes topic rocm", lib, max_results=2)  # the cap keeps the strongest
    assert [m.id for m in given if note_url(m) in capped] == ["t-a-old", "t-b-new"]


def test_topic_shows_english_title_first_when_the_note_has_one(library):
    title = "Watermarks meet spec decode"
    note = library.by_topic["watermarking"][0].model_copy(update={"title_en": title})
    lib = Library(notes=(note,), topics=library.topics)
    body = reply("/notes topic watermarking", lib)
    [item] = items(body)
    assert item.startswith(f"- **{title}**\n"), item
    assert f"\n  原题 (original title): {note.title_zh}" in item, item


def test_topic_id_is_case_insensitive_and_may_be_in_backticks(library):
    a = reply("/notes topic ROCM", library)
    b = reply("/notes topic `rocm`", library)
    assert a.split("\n", 2)[2] == b.split("\n", 2)[2]  # same answer after the header
    assert all(note_url(n) in a for n in library.by_topic["rocm"])


# a hashtag's `#` or a label's `:` before a topic's name is no part of it: `/notes topic
#   #rocm` and `/notes topic :rocm` were answered "There is no topic `#rocm`", no id or
#   name starting with either
@pytest.mark.parametrize(
    "typed", ["#rocm", ":rocm", "＃ROCm", "：rocm", ": rocm", "# ROCm", "#「ROCm」"]
)
def test_a_tag_or_label_mark_before_a_topics_name_is_no_part_of_it(library, typed):
    tagged = reply(f"/notes topic {typed}", library)
    plain = reply("/notes topic rocm", library)
    assert tagged.split("\n", 2)[2] == plain.split("\n", 2)[2]  # same answer after the header
    assert command(f"/notes topic {typed}").key == command("/notes topic rocm").key


def test_a_mark_inside_or_after_a_topics_name_is_still_asked_as_typed(library):
    assert "There is no topic `ro#cm`." in reply("/notes topic ro#cm", library)
    assert command("/notes topic #").key == command("/notes topic").key  # a mark alone: none


def test_unknown_topic_lists_the_valid_ids(library):
    body = reply("/notes topic zzzq", library)  # nothing to guess from: the list
    assert "no topic `zzzq`" in body
    for topic_id in library.topics:
        assert f"`{topic_id}`" in body
    assert "redirect.github.com" not in body  # no notes listed
    assert_safe(body)


def test_topic_without_id_lists_the_valid_ids(library):
    body = reply("/notes topic", library)
    assert all(f"`{t}`" in body for t in library.topics)


@pytest.mark.parametrize("line", ["/notes topic", "/notes topic zzzq"])
def test_the_list_of_topics_sets_apart_those_with_no_notes_yet(library, line):
    """The 35 topics were listed as one, each asked for with `topic` alike, though 17 have
    no note (`deepseek`, `quantization`...): a reviewer who picked one from a reply was
    answered only 'No notes on ... yet', where the topics page sets them apart ('17
    without notes yet'). The topics with notes (the PR's repository's) come first, with
    their names; the others after, apart, by their ids."""
    body = reply(line, library, repo="vllm-project/vllm")
    having, rest = body.split("; no notes yet: ")
    for topic_id in library.topics:
        with_notes = any(n.repo == "vllm-project/vllm" for n in library.by_topic.get(topic_id, ()))
        assert (f"`{topic_id}` (" in having) is with_notes, (topic_id, body)
        assert (f"`{topic_id}`" in rest) is not with_notes, (topic_id, body)
    # kills: bot/command_replies.py:_topic_list the list's punctuation (each name's
    #   closing bracket, the commas of either part)
    assert "Topics: `cuda-graphs` (CUDA graphs), `prefix-caching` (Prefix caching" in having
    assert rest.startswith("`deepseek`, `mla-attention`, "), rest
    # another repository's notes: none of its topics has one there
    other = reply(line, library, repo="acme/widgets")
    assert "; no notes yet: " not in other and "No topic has notes yet" in other, other
    assert all(f"`{t}`" in other for t in library.topics)
    assert_safe(body)


def test_topic_with_no_notes_yet(library):
    lib = Library(notes=(), topics=library.topics)
    assert "No notes on **CUDA graphs**" in reply("/notes topic cuda-graphs", lib)


def test_a_topic_with_no_notes_points_to_the_notes_that_mention_it(library):
    # `/notes topic deepseek` said only "No notes on **DeepSeek models** (DeepSeek 模型,
    # `deepseek`) yet.", a dead end on a DeepSeek PR, while notes on DeepSeek V4 are filed
    # under other topics: the reply now says the search that finds them (by the topic's
    # id, however the topic was named).
    assert not library.by_topic["deepseek"]
    found = search_notes(library.notes, "deepseek", topics=library.topics)
    assert found
    body = reply("/notes topic deepseek please", library, repo="vllm-project/vllm")
    assert body.splitlines()[-1] == (
        "No notes on **DeepSeek models** (DeepSeek 模型, `deepseek`) yet."
        f" `/notes search deepseek` finds {len(found)} notes that mention it."
    ), body
    assert parse_commands(body) == []  # mid-sentence in code: the reply runs nothing
    assert_safe(body)
    named = reply("/notes topic「DeepSeek 模型」", library, repo="vllm-project/vllm")
    assert named.splitlines()[-1] == body.splitlines()[-1], named
    words = reply("/notes topic mla-attention", library).splitlines()[-1]
    assert "`/notes search mla attention` finds" in words, words
    # none in another repository, and none that mention it: no search to point to
    assert "search" not in reply("/notes topic deepseek", library, repo="acme/widgets")
    assert reply("/notes topic documentation", library).endswith("`documentation`) yet.")


def test_the_search_for_a_topic_with_no_notes_counts_one_note_in_english(library):
    # one note found read "finds 1 note that mention it"
    one = search_notes(library.notes, "deepseek", topics=library.topics)[0].note
    lib = Library(notes=(one,), topics=library.topics)
    body = reply("/notes topic deepseek", lib)
    assert body.endswith(" `/notes search deepseek` finds 1 note that mentions it."), body


def test_the_search_for_a_topic_with_no_notes_counts_the_notes_holding_all_its_words(library):
    # `/notes topic other-platforms` said "`/notes search other platforms` finds 3 notes
    # that mention it", notes holding "other" or "platforms" alone; `model-runner` counted
    # 8 where 2 hold both words: the ranked search finds a note by any of the words
    vllm = [n for n in library.notes if n.repo == "vllm-project/vllm"]
    partial = 0
    for topic_id in library.topics:
        if any(n.repo == "vllm-project/vllm" for n in library.by_topic.get(topic_id, ())):
            continue
        words = topic_id.replace("-", " ")
        hits = search_notes(vllm, words, topics=library.topics)
        whole = [h for h in hits if h.terms == len(query_terms(words))]
        partial += len(hits) - len(whole)
        body = reply(f"/notes topic {topic_id}", library, repo="vllm-project/vllm")
        said = f"`/notes search {words}` finds {len(whole)} note"
        assert (said in body) is bool(whole), (topic_id, len(whole), body)
        assert ("search" in body) is bool(whole), body
    assert partial, "no topic's search finds a note by some of its words only"
    assert "search" not in reply("/notes topic other-platforms", library, repo="vllm-project/vllm")


def test_topic_answer_is_capped(library):
    body = reply("/notes topic sparse-mla", library, max_results=2)
    total = len(library.by_topic["sparse-mla"])
    assert sum(note_url(n) in body for n in library.notes) == 2
    assert f"{total - 2} more not shown" in body


def test_topic_url_is_linked_when_given(library):
    body = render_reply(
        command("/notes topic rocm"), library, note_url, topic_url=lambda t: f"https://x.test/t/{t}"
    )
    assert "(https://x.test/t/rocm)" in body


# --- search ----------------------------------------------------------------------------


def ids(hits) -> list[str]:
    return [h.note.id for h in hits]


def test_query_terms_split_ascii_words_and_cjk_runs():
    assert query_terms("EAGLE 缓存注册, kv-cache!") == ["eagle", "缓存注册", "kv-cache"]
    assert query_terms("ROCm默认") == ["rocm", "默认"]
    assert query_terms("a a A") == ["a"]
    assert query_terms("?? ...") == []
    assert len(query_terms(" ".join(f"w{i}" for i in range(50)))) == 8


def test_search_ranks_notes_with_every_word_in_the_title_first(library):
    hits = search_notes(library.notes, "EAGLE 缓存")
    first = hits[0].note
    assert "EAGLE" in first.title_zh and "缓存" in first.title_zh
    assert hits[0].terms == 2
    # at equal coverage, a title match outranks a guidance-only match
    for a, b in zip(hits, hits[1:], strict=False):
        assert a.terms >= b.terms
        if a.terms == b.terms and b.fields == ("guidance",):
            assert a.score >= b.score


def test_search_ascii_is_case_insensitive_and_word_wise(library):
    assert ids(search_notes(library.notes, "rocm")) == ids(search_notes(library.notes, "ROCm"))
    rocm = search_notes(library.notes, "ROCm")
    assert rocm
    assert all(re.search(r"(?<![A-Za-z0-9_])ROCm", h.note.title_zh + h.note.guidance) for h in rocm)
    assert search_notes(library.notes, "ROC") == []  # a piece of a word is not a word
    # "cuda" is found exactly where it stands as a word, never inside "cudagraph"
    cuda = set(ids(search_notes(library.notes, "cuda", limit=100)))
    for n in library.notes:
        text = "\n".join([n.title_en, n.title_zh, n.summary_en, n.guidance, *n.keywords])
        assert (n.id in cuda) == bool(re.search(r"(?i)(?<![a-z0-9_])cuda(?![a-z0-9_])", text))
    assert any("cudagraph" in n.guidance.lower() for n in library.notes)


def test_search_cjk_matches_substrings(library):
    hits = search_notes(library.notes, "水印")
    assert hits and all("水印" in h.note.title_zh + h.note.guidance for h in hits)
    assert set(ids(search_notes(library.notes, "缓存注册"))) <= set(
        ids(search_notes(library.notes, "缓存"))
    )


def test_search_latin_word_next_to_cjk_text_matches():
    note = Note(
        id="t-1",
        repo="vllm-project/vllm",
        verdict=Verdict.QUICK,
        topics=("rocm",),
        title_zh="恢复ROCm默认",
        guidance="值得快速阅读。",
    )
    lib = Library(notes=(note,), topics={})
    assert ids(search_notes(lib.notes, "rocm")) == ["t-1"]
    assert ids(search_notes(lib.notes, "默认")) == ["t-1"]
    assert search_notes(lib.notes, "roc") == []


def test_search_ties_break_by_verdict_then_newest_pr(library):
    # every guidance says how worth reading it is
    hits = search_notes(library.notes, "值得", limit=100)
    assert len(hits) == len(library.notes)
    keys = [(h.note.verdict.rank, -(h.note.source_pr or 0)) for h in hits]
    assert keys == sorted(keys)


def test_search_reply_is_capped_and_says_how_many_more(library):
    body = reply("/notes search 值得", library, max_results=10)
    assert sum(note_url(n) in body for n in library.notes) == 10
    assert f"{len(library.notes) - 10} more not shown" in body
    assert_safe(body)


def test_replies_count_their_notes_in_english(library):
    one = next(t for t in library.topics if len(library.by_topic.get(t, ())) == 1)
    assert "\n1 note on **" in reply(f"/notes topic {one}", library)
    many = max(library.topics, key=lambda t: len(library.by_topic.get(t, ())))
    assert f"\n{len(library.by_topic[many])} notes on **" in reply(f"/notes topic {many}", library)
    assert "\n1 note matches `EAGLE`:\n" in reply("/notes search EAGLE", library)
    assert f"\n{len(library.notes)} notes match `值得`, best first:" in reply(
        "/notes search 值得", library
    )


def test_search_reply_says_where_each_note_matched(library):
    body = reply("/notes search EAGLE 缓存", library)
    first = items(body)[0]
    assert "\n  Found both words in its title, Chinese title" in first, first


# the reply said "Found in its title." of a title holding only another form of the word
# (`registering`, the title "registration"), which a reader looked for there in vain
def test_search_reply_says_a_word_was_found_as_another_form(library):
    first = items(reply("/notes search registering", library))[0]
    assert "\n  Found in its title, as another form of the word." in first, first
    first = items(reply("/notes search registering EAGLE", library))[0]
    said = "Found both words in its title, Chinese title and summary, one of them as another form."
    assert f"\n  {said}" in first, first
    first = items(reply("/notes search registration", library))[0]
    assert "\n  Found in its title." in first, first


def test_search_with_no_hit_or_no_words(library):
    assert "No note matches `zzzqqq`" in reply("/notes search zzzqqq", library)
    assert "Give some words" in reply("/notes search", library)
    assert "Give some words" in reply("/notes search ?!", library)


def test_search_lists_only_the_prs_repositorys_notes(library):
    # like `topic`: another repository's note on the allow-list (maybe a private one) was
    # listed on a vLLM PR
    other = library.notes[0].model_copy(
        update={"id": "other-eagle", "repo": "acme/private-engine", "source_pr": 77}
    )
    both = Library(notes=(*library.notes, other), topics=library.topics)
    word = other.title_en.split()[0] if other.title_en else other.title_zh
    here = reply(f"/notes search {word}", both, repo="vllm-project/vllm")
    assert "other-eagle" not in here and "acme/private-engine" not in here
    there = reply(f"/notes search {word}", both, repo="acme/private-engine")
    assert "other-eagle" in there and "1 note matches" in there
    assert "other-eagle" in reply(f"/notes search {word}", both)  # no repository: every note


def test_a_reply_stays_within_the_budget_however_long_the_library(library):
    # titles and topic names had no limit in a reply: fifty long-titled notes, or a long
    # list of topics, passed GitHub's 65,536 characters
    base = library.notes[0]
    long = tuple(
        base.model_copy(
            update={"id": f"long-{i}", "title_en": "EAGLE " + "t" * 5_000, "title_zh": "长" * 5_000}
        )
        for i in range(50)
    )
    topics = {
        f"t{i}": t.model_copy(update={"id": f"t{i}", "name_en": "n" * 2_000})
        for i, t in enumerate([*library.topics.values()] * 20)
    }
    big = Library(notes=long, topics={**library.topics, **topics})
    for line in ("/notes search EAGLE", f"/notes topic {base.topics[0]}", "/notes topic nope"):
        body = reply(line, big, max_results=50)
        assert len(body) <= REPLY_BUDGET < 65_536, line
        assert_safe(body)
    assert "…" in reply("/notes search EAGLE", big, max_results=50)  # titles are clipped
    cut = _within_budget("\n".join(["head", *(f"- line {i}" for i in range(10))]), budget=90)
    assert cut.startswith("head\n- line 0") and cut.endswith("the reply would be too long._")
    assert len(cut) <= 90


# --- safety ----------------------------------------------------------------------------

HOSTILE = [
    "/notes search @octocat #123 gh-9 <script>alert(1)</script>",
    "/notes search **bold** [x](https://evil.example) ![i](https://evil.example/i.png)",
    "/notes search https://github.com/vllm-project/vllm/pull/1 www.github.com/a/b/issues/2",
    "/notes search ``` `tick` ``` `",
    "/notes search \u202eevil\u2066 @\u200bx",
    "/notes topic @octocat",
    "/notes topic <img src=x onerror=alert(1)>",
    "/notes @here please #42",
    "/notes search fix #123 and close #456 @vllm-project/maintainers",
]


@pytest.mark.parametrize("line", HOSTILE)
def test_hostile_input_echoed_back_is_harmless(line, library):
    body = reply(line, library)
    assert_safe(body)


def test_code_span_holds_any_text():
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert code("line\nbreak\ttab") == "`line break tab`"
    assert code("x" * 500, limit=10) == "`" + "x" * 9 + "…`"
    assert code("\u202eabc\x07") == "`abc`"


def test_a_code_span_defuses_mentions_and_references():
    assert code("@octocat") == f"`@{ZWSP}octocat`"
    assert code("see #12 and GH-3") == f"`see #{ZWSP}12 and GH-{ZWSP}3`"
    assert code("C# and issue #") == "`C# and issue #`"
    assert code("mail a@b") == f"`mail a@{ZWSP}b`"


def test_curated_text_is_neutralized_too(library):
    note = library.by_topic["rocm"][0].model_copy(
        update={"title_en": "Fix <T> for @someone, see #50062", "title_zh": "修复 @某人 #1"}
    )
    lib = Library(notes=(note,), topics=library.topics)
    body = reply("/notes topic rocm", lib)
    assert_safe(body)
    assert "&lt;T&gt;" in body


# kills: bot/command_replies.py:note_line a note's title, links and match said on one line
# kills: bot/command_replies.py:_apart the notes run together as one block
def test_a_search_replys_notes_read_line_by_line_on_github(library):
    # each note was one list line: "**Deep read** · 值得精读 — English title / Chinese
    # title — source: [PR] — [full guidance (Chinese)](...) — matched 2/2 word(s) in title,
    # Chinese title, keywords, topics, summary, paths, guidance", 360 characters of text
    # wrapped over four lines of a reply, the titles in the middle. GitHub shows a
    # comment's newlines as breaks (cmark-gfm's hardbreaks); a note reads as the comment's do
    body = reply("/notes search warmup deepgemm", library)
    page = cmarkgfm.github_flavored_markdown_to_html(
        body, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_HARDBREAKS
    )
    # each note a paragraph of its own (a loose list), a blank line apart as in the comment
    notes = re.findall(r"<li>\n<p>(.*?)</p>\n</li>", page, re.S)
    assert len(notes) == 2, page
    for li, found in zip(notes, ["both words", "1 of 2 words, warmup,"], strict=True):
        lines = [html.unescape(re.sub(r"<[^>]+>", "", x)).strip() for x in li.split("<br />")]
        title, badge, chinese, matched = lines
        assert li.startswith(f"<strong>{html.escape(title)}</strong>"), li
        assert any(n.title_en == title for n in library.notes), title
        assert badge.startswith("🟢 Deep read · 值得精读 · source: vllm-project/vllm PR "), badge
        assert badge.endswith(" · full guidance (Chinese)"), badge
        assert chinese.startswith("原题 (original title): "), chinese
        assert matched.startswith(f"Found {found} in its title, Chinese title"), matched
        assert all(len(line) <= 110 for line in lines), lines


# kills: bot/command_replies.py:note_line a note with no source PR named with one
def test_a_note_with_no_source_pr_names_none_in_a_reply(library):
    note = library.by_topic["watermarking"][0].model_copy(update={"source_pr": None})
    [item] = items(reply("/notes topic watermarking", Library((note,), library.topics)))
    assert "source:" not in item and "值得精读 · [full guidance (Chinese)](" in item, item


def test_search_reply_finds_a_note_by_its_topics_name(library):
    # most spec-decode notes never write "speculative decoding": their topic's name does
    body = reply("/notes search Speculative decoding", library)
    tagged = [n for n in library.notes if "spec-decode" in n.topics]
    assert len(tagged) > 1 and all(n.title_en in body for n in tagged)
    assert sum("topics" in item.rsplit("\n", 1)[1] for item in items(body)) >= len(tagged) - 1


# --- a topic without notes; a note found by its source PR's number -----------------------


def test_a_topic_with_no_notes_is_answered_in_a_sentence(library):
    # `/notes topic performance` said "No notes on **Benchmarks and performance**
    # (基准测试与性能, `performance`), [all notes of this topic](...) yet.": a link to the
    # notes of a topic that has none, between "No notes on" and "yet" (render_topic put
    # it into the title it reuses). A topic with notes keeps its link.
    assert not library.by_topic["performance"]

    def topic_url(topic_id: str) -> str:
        return f"https://notes.example.org/notes?topic={topic_id}"

    def topic(topic_id: str) -> str:
        command = parse_commands(f"/notes topic {topic_id}")[0]
        return render_topic(
            command, library, note_url, topic_url=topic_url, repo="vllm-project/vllm"
        )

    empty = topic("performance")
    assert empty.splitlines()[-1].startswith(
        "No notes on **Benchmarks and performance** (基准测试与性能, `performance`) yet."
    )
    assert "all notes of this topic" not in empty
    assert f"[all notes of this topic]({topic_url('rocm')}):" in topic("rocm")


def test_search_by_a_notes_source_pr_number_finds_it(library):
    # A reviewer asks `/notes search 52419` for the note on PR 52419. The reply said "No
    # note contains `52419`", although the note's own line in every other reply reads
    # "source: vllm-project/vllm PR 52419", and the notes page the reply links to
    # (`/notes?q=52419`) finds it (bot.search.RANKED left the PR numbers and paths out).
    # A PR to read with it and a path it lists find it too.
    def search(words: str) -> str:
        command = parse_commands(f"/notes search {words}")[0]
        return render_search(command, library, note_url, repo="vllm-project/vllm")

    found = search("52419")
    assert "1 note matches `52419`" in found, found
    assert f"({note_url(library.by_id['vllm-0436d44c'])})" in found
    assert "\n  Found in its source PR." in found
    assert "vllm-64eca4f8" in search("53010")  # its read_with
    first = items(search("kv_cache_coordinator"))[0]  # a path of the note
    assert "vllm-0436d44c" in first and "in its paths" in first
    assert "No note matches `zzzqqq`." in search("zzzqqq")


def test_a_reply_on_a_notes_own_source_pr_names_it_this_pull_request(library):
    """A `search` or `topic` reply on PR 52419 listed its note with "source: PR 52419",
    a link to the page the reader is on, as the notes comment did. It says "source:
    this pull request" there, with no link; on another PR, or from another repository's
    note, the source stays the link it was."""
    link = "[PR 52419](https://redirect.github.com/vllm-project/vllm/pull/52419)"
    for line in ("/notes search 52419", "/notes topic prefix-caching"):
        here = reply(line, library, repo="vllm-project/vllm", pr=52419)
        (own,) = [i for i in items(here) if "vllm-0436d44c" in i]
        assert " · source: this pull request · " in own and "/pull/52419" not in here, line
        elsewhere = reply(line, library, repo="vllm-project/vllm", pr=52420)
        assert f" · source: {link} · " in elsewhere, line


# --- what a PR's link or a word of the notes' paths finds ---


def test_searching_the_source_prs_url_finds_its_note(library):
    # 2ff3cc8: "/notes search 52419" finds the note every reply names by that PR. The
    # reply links the PR (https://redirect.github.com/vllm-project/vllm/pull/52419), and
    # a reader pastes that link or the PR's github.com address: 5508be3 joins
    # `project/vllm/pull/52419` into one path term, found as a substring of nothing,
    # so the search answers "No note matches" though the number alone finds the note.
    assert [h.note.id for h in search_notes(library.notes, "52419", topics=library.topics)] == [
        "vllm-0436d44c"
    ]
    for url in (
        "https://github.com/vllm-project/vllm/pull/52419",
        "https://redirect.github.com/vllm-project/vllm/pull/52419",
    ):
        hits = search_notes(library.notes, url, topics=library.topics)
        assert "vllm-0436d44c" in [h.note.id for h in hits], url
        assert "No note matches" not in reply(f"/notes search {url}", library)


def test_a_word_searches_the_paths_below_their_top_directory(library):
    # `vllm` is in nearly every note's paths: it found 14 of the 16 notes by them
    hits = search_notes(library.notes, "vllm", topics=library.topics)
    assert all("paths" not in h.fields for h in hits)
    assert [h.fields for h in search_notes(library.notes, "kv_cache_coordinator")] == [("paths",)]


def test_search_a_link_to_another_repositorys_pr_finds_no_vllm_note(library):
    # a PR link was taken for its number whatever repository it named: sglang's PR
    # 52419 found vLLM's note of PR 52419
    url = "https://github.com/sgl-project/sglang/pull/52419"
    assert search_notes(library.notes, url, topics=library.topics) == []


@pytest.mark.parametrize(
    ("query", "note_id"),
    [
        ("logits_processor", "vllm-dea4fb5e"),  # vllm/v1/sample/logits_processor/state.py
        ("kv_connector", "vllm-505c8870"),  # vllm/distributed/kv_transfer/kv_connector/...
        ("deepseek_v4", "vllm-e7ef894d"),  # vllm/models/deepseek_v4/sparse_mla.py
    ],
)
def test_search_a_package_name_finds_the_notes_whose_paths_hold_it(library, query, note_id):
    # a word looked at each path's file name only, which lost every directory name
    hits = search_notes(library.notes, query, topics=library.topics)
    assert note_id in [h.note.id for h in hits]


# --- `/notes topic` found by the names a reader types; a reply's echo and its note links ---


def test_topic_reply_does_not_misquote_a_topic_name_as_its_first_word(library):
    # `/notes topic cuda graphs` (the name the comment's "Topics:" line prints) was
    # answered "There is no topic `cuda`.", quoting a word alone, then listing
    # `cuda-graphs` (CUDA graphs): the topic is found by its id or English name now
    body = reply("/notes topic cuda graphs", library)
    assert "There is no topic `cuda`." not in body, body
    assert "**CUDA graphs**" in body, body
    answer = body.split("\n", 2)[2]  # after the marker and the "In reply to" echo
    for asked in ["CUDA graphs", "cuda_graphs", "Cuda-Graphs", "cuda-graphs"]:
        assert reply(f"/notes topic {asked}", library).split("\n", 2)[2] == answer, asked


def test_a_topic_is_found_by_its_chinese_name_too(library):
    # the comment prints a topic's Chinese name beside its English one, and a curator
    # writing Chinese types it (an input method's full-width brackets or ASCII ones); a
    # sentence's end after a name is no part of it. Each was "There is no topic".
    answer = reply("/notes topic cuda-graphs", library).split("\n", 2)[2]
    for asked in ["CUDA Graph 捕获", "cuda graph 捕获", "cuda-graphs.", "CUDA graphs。"]:
        assert reply(f"/notes topic {asked}", library).split("\n", 2)[2] == answer, asked
    for asked, name in [
        # the name in the reply's brackets without its own
        ("上下文并行（PCP / DCP）", "上下文并行"),
        ("上下文并行(PCP / DCP)", "上下文并行"),
        ("投机解码。", "投机解码"),
    ]:
        body = reply(f"/notes topic {asked}", library)
        assert f"({name}, `" in body and "There is no topic" not in body, body


# kills: bot/command_replies.py:render_topic (hand) the name read with its brackets:
#   `/notes topic（rocm）`, the argument glued on as after `off`, was answered "There is no
#   topic `（rocm）`"
def test_a_topic_named_in_brackets_is_that_topic(library):
    answer = reply("/notes topic rocm", library).split("\n", 2)[2]
    # glued on as Chinese writes them; ASCII's glued on is a call's (`topic(rocm)`: no command)
    for asked in ["（rocm）", "（ROCm）谢谢", " (rocm)", " [ROCm]", "［rocm］", "【ROCm】"]:
        assert reply(f"/notes topic{asked}", library).split("\n", 2)[2] == answer, asked
    for asked in ["（rocm", "（）", "(no such topic)"]:  # left open, empty or no name: as typed
        body = reply(f"/notes topic {asked}", library)
        assert f"There is no topic `{asked}`." in body, body


def test_a_topic_is_found_by_the_short_name_the_comments_reasons_give_it(library):
    # a comment's reason says "topic: Kernel warmup" under the note's "Topics:" line,
    # which names it in full ("Kernel warmup and JIT precompilation"): a reviewer who types
    # what the reason said was told "There is no topic `Kernel warmup`"
    shorts = [t for t in library.topics.values() if t.short_en]
    assert len(shorts) >= 10
    for topic in shorts:
        answer = reply(f"/notes topic {topic.id}", library).split("\n", 2)[2]
        asked = reply(f"/notes topic {topic.short_en}", library).split("\n", 2)[2]
        assert asked == answer, topic.short_en


# kills: bot/command_replies.py:_guesses at most 3 made fewer (`<`): `cuda` names 3 topics
@pytest.mark.parametrize(
    ("asked", "guessed"),
    [
        ("前缀缓存", ["prefix-caching"]),  # part of a Chinese name
        ("speculative", ["spec-decode"]),
        ("cuda", ["cuda-graphs", "cmake-build", "hardware-ci"]),
        ("a", []),  # in most names: no guess
        ("frobnicate", []),
    ],
)
def test_an_unknown_topic_guesses_the_topics_whose_names_hold_it(library, asked, guessed):
    # the list of topics names them in English: a reviewer who typed part of a Chinese
    # name was told "There is no topic" and shown names they had not typed
    body = reply(f"/notes topic {asked}", library)
    assert f"There is no topic `{asked}`." in body, body
    mean = re.search(r"Did you mean (.*?)\? `/notes topic` alone", body)
    assert re.findall(r"`([a-z0-9-]+)` \(", mean[1] if mean else "") == guessed, body
    if asked == "前缀缓存":  # each guess is named in Chinese too, as it was asked
        assert "(Prefix caching and KV cache manager, 前缀缓存与 KV 缓存管理)" in body, body
    assert_safe(body)


def test_an_unknown_topic_with_guesses_names_them_without_every_topic(library):
    """`/notes topic cuda` answered "Did you mean `cuda-graphs`, `cmake-build` or
    `hardware-ci`?" and then every one of the 35 topics, 1,400 characters in a new comment
    that notifies everyone on the PR, the guesses lost in the list. With guesses the reply
    names them and says how to see the list; with none, the list."""
    body = reply("/notes topic cuda", library, repo="vllm-project/vllm")
    assert "Did you mean `cuda-graphs` (CUDA graphs, " in body, body
    assert "`spec-decode`" not in body and "no notes yet" not in body, body
    assert body.rstrip().endswith("`/notes topic` alone lists every topic."), body
    assert len(body) < 600, len(body)
    assert_safe(body)
    # the command word as the server's config names it
    other = render_reply(
        command("/review-notes topic cuda", "/review-notes"),
        library,
        note_url,
        word="/review-notes",
    )
    assert "`/review-notes topic` alone lists every topic." in other, other
    # no guess: every topic, as before
    lost = reply("/notes topic frobnicate", library, repo="vllm-project/vllm")
    assert "Did you mean" not in lost and "alone lists every topic" not in lost, lost
    assert all(f"`{t}`" in lost for t in library.topics), lost


def test_an_unknown_topic_is_quoted_as_typed(library):
    body = reply("/notes topic cuda graph things", library)
    assert "There is no topic `cuda graph things`." in body, body


def test_reply_echo_quotes_the_link_the_user_typed(library):
    # the echo, inline code where GitHub links nothing, said "In reply to `/notes search
    # https://redirect.github.com/...`": a URL the user never typed
    typed = "/notes search https://github.com/vllm-project/vllm/pull/52419"
    body = reply(typed, library)
    assert body.splitlines()[1] == f"In reply to `{typed}`:", body
    assert f"matches `{typed.removeprefix('/notes search ')}`" in body, body
    assert_safe(body)


def test_a_reply_labels_the_notes_link_as_chinese_as_the_comment_does(library):
    # replies linked "read the note", the comment "full guidance": neither said the
    # guidance they open is Chinese only
    body = reply("/notes topic rocm", library)
    notes = library.by_topic["rocm"]
    for note in notes:
        assert f"[full guidance (Chinese)]({note_url(note)})" in body, body
    assert "read the note" not in body


@pytest.mark.parametrize(
    ("asked", "topic_id"),
    [
        ("前缀缓存与KV缓存管理", "prefix-caching"),
        ("CUDA Graph捕获", "cuda-graphs"),
        ("上下文并行（PCP/DCP）", "context-parallel"),
        ("专家并行与弹性EP", "expert-parallel"),
        ("Model Runner(V1/V2)", "model-runner"),
        ("KVConnector", "kv-connector"),  # as vLLM's code writes it
    ],
)
def test_a_topic_name_typed_without_its_spaces_is_found(library, asked, topic_id):
    # the names put a space between Chinese and Latin letters and around a slash, which
    # many writers of Chinese leave out: each was "There is no topic"
    body = reply(f"/notes topic {asked}", library)
    assert f", `{topic_id}`)" in body and "There is no topic" not in body, body


# --- where a topic's name typed after `/notes topic` ends, words after it ---


def test_a_topic_named_by_its_first_word_with_more_words_after_it(library):
    # reading the whole text as the topic's name (`cuda graphs`) lost what the first
    # word alone had found: `/notes topic rocm please` answered "There is no topic"
    a = reply("/notes topic rocm please", library)
    assert "There is no topic" not in a
    assert a.split("\n", 2)[2] == reply("/notes topic rocm", library).split("\n", 2)[2]


def test_a_topic_name_ends_at_punctuation_with_words_after_it(library):
    # a Chinese input method puts no space after its comma or full stop, so the name and a
    # "thanks" were read as one name: "There is no topic `cuda-graphs，谢谢`"; a name of
    # several words before a comma was looked up whole with the thanks, or by its first
    # word alone (`cuda`)
    answer = reply("/notes topic cuda-graphs", library).split("\n", 2)[2]
    for asked in [
        "cuda-graphs，谢谢",
        "CUDA graphs。谢谢",
        "cuda graphs, thanks",
        "CUDA Graph 捕获，谢谢！",
        "cuda-graphs；please",
        "“CUDA graphs”，谢谢",  # quoted as iOS quotes: no part of the name (topic_key)
        "cuda-graphs～谢谢",
    ]:
        assert reply(f"/notes topic {asked}", library).split("\n", 2)[2] == answer, asked
    # a name with a comma of its own is read whole, up to the comma that ends it
    for asked, name in [
        (
            "Sampler, logits processors and reasoning budget, thanks",
            "采样、logits 处理器与思考预算",
        ),
        ("采样、logits 处理器与思考预算，谢谢", "采样、logits 处理器与思考预算"),
        ("分布式执行（TP/PP/DP、集合通信），谢谢", "分布式执行"),  # shown without brackets
    ]:
        body = reply(f"/notes topic {asked}", library)
        assert f"({name}, `" in body and "There is no topic" not in body, body


def test_the_longest_name_typed_is_the_topic_asked_for(library):
    # `rocm ci, thanks` names ROCm CI, though its first word names ROCm
    ci = Topic(id="rocm-ci", name_en="ROCm CI", name_zh="ROCm 持续集成")
    lib = Library(notes=library.notes, topics={**library.topics, ci.id: ci})
    body = reply("/notes topic rocm ci, thanks", lib)
    assert "No notes on **ROCm CI** (ROCm 持续集成, `rocm-ci`) yet." in body, body
    assert "`rocm`" not in reply("/notes topic rocm-ci，谢谢", lib).split("\n", 2)[2]


# kills: bot/command_replies.py:_named_topic a name of one character not cut off what follows it
def test_a_topic_named_by_one_character_ends_at_punctuation_too(library):
    locks = Topic(id="locks", name_en="Locks", name_zh="锁")
    lib = Library(notes=library.notes, topics={**library.topics, locks.id: locks})
    assert "No notes on **Locks** (锁, `locks`) yet." in reply("/notes topic 锁，谢谢", lib)


# --- replies at their edges: cut commands and replies, numbers out of range, counts ---


# kills: bot/command_replies.py:note_line a note with no English title shows an empty one
def test_a_note_without_an_english_title_shows_its_chinese_title_alone(library):
    note = library.by_topic["watermarking"][0].model_copy(update={"title_en": ""})
    lib = Library(notes=(note,), topics=library.topics)
    [item] = items(reply("/notes topic watermarking", lib))
    assert item.startswith(f"- **{note.title_zh}**\n") and "原题" not in item, item


# kills: bot/command_replies.py:note_line a note line without extra words ends in a dangling dash
def test_a_topics_note_lines_end_with_the_link_to_the_guidance(library):
    body = reply("/notes topic rocm", library)
    found = items(body)
    assert found and all(x == x.rstrip() for x in found), found


# kills: bot/command_replies.py:_header the command echoed in the header is not cut
def test_a_long_command_is_echoed_cut_short_in_the_reply(library):
    words = " ".join(["prefix"] * 60)
    body = reply(f"/notes search {words}", library)
    header = body.split("\n")[1]
    assert header.startswith("In reply to `/notes search prefix")
    assert len(header) < 110, header
    assert_safe(body)


# kills: bot/command_replies.py:_render_unknown an unknown sub-command is echoed whole, however long
def test_a_long_unknown_sub_command_is_named_cut_short():
    sub = "x" * 300
    body = render_unknown(command(f"/notes {sub}"))
    named = re.search(r"There is no (`[^`]*`) command\.", body)
    assert named and len(named.group(1)) <= 45, body
    assert_safe(body)


# kills: bot/command_replies.py:_render_refused the same refused command twice named twice
def test_the_same_refused_command_twice_is_named_once():
    twice = [Unanswered(command("/notes off"), refused=True) for _ in range(2)]
    body = render_errors(twice)
    assert "can use `/notes off`; nothing was changed." in body, body


# kills: bot/command_replies.py:render_errors a second unpicked `wrong`'s answer replaces the
# first's
def test_two_wrongs_naming_no_note_keep_an_answer_each():
    body = render_errors([unpicked("/notes wrong 7"), unpicked("/notes wrong 9")])
    assert body.count(REPLY_MARKER) == 1
    assert "There is no note `7` in the notes comment" in body
    assert "There is no note `9` in the notes comment" in body


# kills: bot/command_replies.py:render_unpicked no notes comment at all said to show no note
# kills: bot/command_replies.py:render_unpicked a note id the comment does not show taken for a
# number
# kills: bot/command_replies.py:render_unpicked one note shown said as "notes 1"
def test_a_wrong_naming_no_note_is_told_what_the_comment_shows():
    def answer(line: str, shown: int, commented: bool = True) -> str:
        cmd = command(line)
        ids = tuple(f"vllm-{i:08x}" for i in range(shown))
        pick = pick_note(cmd.args, ids, known=(*ids, "vllm-deadbeef"))
        return render_unpicked(cmd, pick, shown, commented=commented).split("\n")[-1]

    assert answer("/notes wrong 1", 0, commented=False) == (
        "There is no notes comment on this pull request; nothing was hidden."
    )
    assert answer("/notes wrong 1", 0) == (
        "The notes comment on this pull request shows no note; nothing was hidden."
    )
    assert answer("/notes wrong vllm-deadbeef", 2) == (
        "The notes comment does not show `vllm-deadbeef`; nothing was hidden."
    )
    assert answer("/notes wrong 3", 1) == (
        "There is no note `3` in the notes comment: it shows only note 1 (say `/notes wrong 1`);"
        " nothing was hidden."
    )


# kills: bot/command_replies.py:render_unpicked a list of notes, one note shown, asked which
#   note "(1)": the reviewer had said which, two of them; a `wrong` takes one
@pytest.mark.parametrize(
    "typed", ["1,2", "1 2", "1- 2", "1 - 2", "(1)(2)", "第1、2条", "1，2 只是改名"]
)
def test_a_list_of_notes_with_one_note_shown_is_told_a_wrong_takes_one(typed):
    cmd = command(f"/notes wrong {typed}")
    body = render_unpicked(cmd, pick_note(cmd.args, ("vllm-00000000",)), 1)
    takes = (
        "A `/notes wrong` takes one note, and the notes comment shows only note 1"
        " (say `/notes wrong 1`)"
    )
    assert body.split("\n")[-1] == f"{takes}; nothing was hidden.", body
    assert_safe(body)
    several = render_unpicked(cmd, pick_note(cmd.args, ("vllm-00000000", "vllm-00000001")), 2)
    # two notes are "1 or 2", not "1 to 2"; and a list is told why it named none
    assert "Say which note does not fit, by its number in the notes comment (1 or 2)" in several
    assert "a `/notes wrong` takes one note: write a line for each" in several
    assert f'("{takes}")' in " ".join(doc("commands.md").split())


def test_the_notes_to_pick_from_read_as_english_counts_them():
    cmd = command("/notes wrong 9")
    shown = ("vllm-00000000", "vllm-00000001", "vllm-00000002")
    assert "it shows notes 1 and 2 " in render_unpicked(cmd, pick_note(cmd.args, shown[:2]), 2)
    assert "it shows notes 1 to 3 " in render_unpicked(cmd, pick_note(cmd.args, shown), 3)
    bare = command("/notes wrong")
    assert "comment (1 to 3), as in" in render_unpicked(bare, pick_note(bare.args, shown), 3)


def test_a_note_number_out_of_range_is_quoted_as_typed_and_links_nothing():
    # `#9` in a comment is a link to issue 9 on GitHub: the answer quotes what the
    # reviewer typed, `#9` or as Chinese counts `第9条`, and never makes it one
    for typed, number in [("#9", ""), ("＃9", ""), ("第9条", "9 "), ("第 9 条", "9 ")]:
        cmd = command(f"/notes wrong {typed}")
        pick = pick_note(cmd.args, ("vllm-00000000", "vllm-00000001"))
        body = render_unpicked(cmd, pick, 2)
        shown = typed.replace("#", "#" + ZWSP)
        quoted = f"(`{shown}`)" if number else f"`{shown}`"
        assert f"There is no note {number}{quoted} in the notes comment" in body, typed
        assert_safe(body)


# a note's number of many digits was quoted back whole, in the reply's header and its
#   answer (50 digits twice; bounded by max_arg_chars only in the header): a number no
#   comment reaches is shown by its first digits and an ellipsis, in code, linking nothing
@pytest.mark.parametrize(
    ("typed", "answer"),
    [
        ("9" * 50, "There is no note `9999…` in the notes comment"),
        ("#" + "9" * 50 + "，只是改名", f"There is no note `#{ZWSP}9999…` in the notes comment"),
        ("９" * 20, "There is no note `９９９９…` in the notes comment"),
        ("note " + "9" * 50, "There is no note 9999… (`note 9999…`) in the notes comment"),
        ("第" + "9" * 30 + "条", "There is no note 9999… (`第9999…条`) in the notes comment"),
        ("1234567", "There is no note `1234…` in the notes comment"),
        ("123456", "There is no note `123456` in the notes comment"),  # six digits: whole
    ],
)
def test_a_long_note_number_out_of_range_is_shown_by_its_first_digits(typed, answer):
    cmd = command(f"/notes wrong {typed}")
    body = render_unpicked(cmd, pick_note(cmd.args, ("vllm-00000000",)), 1)
    assert f"{answer}: it shows only note 1" in body, body
    assert not re.search("[0-9\uff10-\uff19]{7}", body), body
    assert_safe(body)


def test_a_note_id_of_many_digits_not_shown_is_quoted_whole():
    cmd = command("/notes wrong vllm-12345678")
    pick = pick_note(cmd.args, ("vllm-00000000",), known=("vllm-12345678",))
    body = render_unpicked(cmd, pick, 1)
    assert body.count("vllm-12345678") == 2, body  # the header's and the answer's


# kills: bot/command_replies.py:render_unpicked (hand) a number said in words quoted where the
#   number goes: `/notes wrong the second` with one note shown was answered "There is no
#   note `the second` in the notes comment", and `note 3` "There is no note `note 3`"
@pytest.mark.parametrize(
    ("typed", "answer"),
    [
        ("the second", "There is no note 2 (`the second`) in the notes comment"),
        ("ｔｈｅ ｓｅｃｏｎｄ", "There is no note 2 (`ｔｈｅ ｓｅｃｏｎｄ`) in the notes comment"),
        ("second one", "There is no note 2 (`second one`) in the notes comment"),
        ("3rd note", "There is no note 3 (`3rd note`) in the notes comment"),
        ("note 3: only renames", "There is no note 3 (`note 3`) in the notes comment"),
        ("ｎｏｔｅ ３", "There is no note 3 (`ｎｏｔｅ ３`) in the notes comment"),
        ("第十条", "There is no note 10 (`第十条`) in the notes comment"),
        ("五", "There is no note 5 (`五`) in the notes comment"),
        ("第2、3条", "There is no note 2 (`第2、3条`) in the notes comment"),
        # a number in digits is the number: quoted alone, as typed
        ("3", "There is no note `3` in the notes comment"),
        ("３", "There is no note `３` in the notes comment"),
        ("#3", f"There is no note `#{ZWSP}3` in the notes comment"),
        ("2,3", "There is no note `2,3` in the notes comment"),
    ],
)
def test_a_note_number_out_of_range_said_in_words_is_answered_with_its_number(typed, answer):
    cmd = command(f"/notes wrong {typed}")
    body = render_unpicked(cmd, pick_note(cmd.args, ("vllm-00000000",)), 1)
    assert f"{answer}: it shows only note 1 (say `/notes wrong 1`)" in body, body
    assert_safe(body)


# kills: bot/notes.py:_NAME_GAPS a dash in a typed topic name not read as a gap
# kills: bot/notes.py:topics_by_key a topic not found by its English name
def test_a_topic_is_found_by_its_english_name_however_its_words_are_joined(library):
    answer = reply("/notes topic spec-decode", library).split("\n", 2)[2]
    assert "There is no topic" not in answer
    for asked in ["Speculative decoding", "speculative-decoding", "SPECULATIVE_decoding"]:
        assert reply(f"/notes topic {asked}", library).split("\n", 2)[2] == answer, asked


# kills: bot/command_replies.py:_in_repo the PR's repository in another case lists none of its notes
def test_a_repository_named_in_another_case_still_lists_its_notes(library):
    lower = reply("/notes topic rocm", library, repo="vllm-project/vllm")
    upper = reply("/notes topic rocm", library, repo="VLLM-Project/vLLM")
    assert upper == lower and "No notes on" not in upper
    assert reply("/notes search EAGLE", library, repo="VLLM-Project/vLLM") == reply(
        "/notes search EAGLE", library, repo="vllm-project/vllm"
    )


# kills: bot/command_replies.py:render_topic a topic with exactly as many notes as shown says "0
# more"
def test_a_topic_whose_notes_all_fit_says_nothing_about_more(library):
    total = len(library.by_topic["moe-kernels"])
    body = reply("/notes topic moe-kernels", library, max_results=total)
    assert sum(note_url(n) in body for n in library.notes) == total
    assert "more not shown" not in body, body


# kills: bot/command_replies.py:render_search a note matching some of the words said to match them
# all; :_matched which of the words it found left unsaid ("Found 1 of 2 words in its title.")
def test_a_search_says_which_of_its_words_each_note_matched(library):
    body = reply("/notes search EAGLE zzzqqq", library)
    found = items(body)
    assert found and all("\n  Found 1 of 2 words, `eagle`, in its " in x for x in found), found
    assert_safe(body)
    both = items(reply("/notes search prefix cache zzzqqq", library))
    assert any("\n  Found 2 of 3 words, `prefix` and `cache`, in its " in x for x in both), both


# kills: bot/command_replies.py:render_search a search whose hits all fit says "0 more"
def test_a_search_whose_hits_all_fit_says_nothing_about_more(library):
    body = reply("/notes search EAGLE", library, max_results=1)
    assert "1 note matches `EAGLE`" in body and "more not shown" not in body, body


# kills: bot/command_replies.py:_within_budget a line that fits exactly is cut (`>=`)
# kills: bot/command_replies.py:_within_budget each kept line counted a character long
def test_a_cut_reply_keeps_every_line_that_fits():
    # a line that made the cut reply exactly the budget long was cut as well: the note that
    # the rest is cut was counted with one newline too many
    lines = [f"line {i}" * (i % 3 + 1) for i in range(60)]
    body = "\n".join(lines)
    for budget in range(80, 200):
        cut = _within_budget(body, budget)
        kept = cut.split("\n")[:-2]  # before the blank line and the note that it is cut
        assert kept == lines[: len(kept)], budget
        one_more = _within_budget("\n".join(lines[: len(kept) + 1]), len(body))
        assert len("\n".join([one_more, "", _CUT])) > budget, (budget, len(kept))


# kills: bot/command_replies.py:_within_budget a reply exactly the budget long is cut
# kills: bot/command_replies.py:_within_budget the cut line's own size not counted: the reply
# overflows
def test_a_reply_cut_to_the_budget_never_exceeds_it_and_one_that_fits_is_whole():
    body = "\n".join(["a"] * 400)
    for budget in range(60, 140):
        cut = _within_budget(body, budget)
        assert len(cut) <= budget, (budget, len(cut))
        assert cut.endswith("_The rest is not shown: the reply would be too long._")
    assert _within_budget(body, len(body)) == body


# --- a compound's spellings in a search; where a topic's name ends ---


def test_search_reply_finds_a_compound_however_its_parts_are_joined(library):
    # A reviewer types vLLM's spelling (`allreduce`, as in custom_allreduce.py); the seed
    # note writes all-reduce. The notes page's filter found it, the reply said "No note
    # matches": the two now share bot.search's compound rule.
    written = [n for n in library.notes if "all-reduce" in n.guidance + n.title_en]
    assert written
    body = reply("/notes search allreduce", library)
    assert "No note matches" not in body
    assert all(note_url(n) in body for n in written)
    assert "No note matches" in reply("/notes search allreducex", library)


# kills: bot/command_replies.py:_named_topic (hand) a name ended at punctuation only: `rocm🙏`
#   was answered "There is no topic"
def test_a_topic_name_ends_at_an_emoji(library):
    answer = reply("/notes topic rocm", library).split("\n", 2)[2]
    for asked in ["rocm\U0001f64f", "ROCm\U0001f44d\U0001f3fd谢谢", "rocm \u2764\ufe0f"]:
        assert reply(f"/notes topic {asked}", library).split("\n", 2)[2] == answer, asked


# `/notes topic:rocm:` was answered with the list of topics: `:rocm:` was read as an emoji's
# shortcode, which GitHub shows for no such name, and the topic was lost
def test_a_topic_between_colons_that_name_no_emoji_is_the_topic(library):
    answer = reply("/notes topic rocm", library).split("\n", 2)[2]
    for typed in ["/notes topic:rocm:", "/notes topic rocm:", "/notes topic rocm:pray:"]:
        assert reply(typed, library).split("\n", 2)[2] == answer, typed


# `/notes topic「ROCm」`, typed as Chinese is (no space before `「`), was answered "There is no
# `topic「ROCm」` command"; with a space it named ROCm
def test_a_quoted_topic_glued_to_the_subcommand_is_the_topic(library):
    answer = reply("/notes topic rocm", library).split("\n", 2)[2]
    for typed in ["/notes topic「ROCm」", "/notes topic“rocm”"]:
        assert reply(typed, library).split("\n", 2)[2] == answer, typed


# kills: bot/commands.py:name_starts (hand) a name's closing quote no place to cut it:
#   `/notes topic「投机解码」谢谢`, thanks glued on after the quote as Chinese writes it (no space),
#   was answered "There is no topic `「投机解码」谢谢`", with no guess
def test_a_topics_name_ends_at_its_closing_quote(library):
    for typed, plain in [
        ("「投机解码」谢谢", "投机解码"),
        ("“CUDA graphs”谢谢", "cuda graphs"),
        ("【ROCm】麻烦了", "rocm"),
    ]:
        answer = reply(f"/notes topic {plain}", library).split("\n", 2)[2]
        for line in [f"/notes topic{typed}", f"/notes topic {typed}"]:
            assert reply(line, library).split("\n", 2)[2] == answer, line
    # a guess is read so too: `「前缀缓存」谢谢`, did you mean `prefix-caching`
    assert "Did you mean `prefix-caching`" in reply("/notes topic「前缀缓存」谢谢", library)


# `/notes topic【ROCm】` and `/notes topic《投机解码》`: the brackets Chinese puts around a tag
# or a name glue on as its quotes do, and were read as the topic's name, `【ROCm】`, which no
# topic has ("There is no topic `【ROCm】`"), with a space before them too
def test_a_topic_in_chinese_brackets_is_the_topic(library):
    for typed, plain in [
        ("【ROCm】", "rocm"),
        ("《投机解码》", "投机解码"),
        ("【rocm】，谢谢", "rocm"),
    ]:
        answer = reply(f"/notes topic {plain}", library).split("\n", 2)[2]
        assert "There is no topic" not in answer
        for line in [f"/notes topic{typed}", f"/notes topic {typed}"]:
            assert reply(line, library).split("\n", 2)[2] == answer, line


# kills: bot/command_replies.py:_named_topic a name cut anywhere, not only at a space or a mark
def test_a_topics_name_is_not_found_inside_a_longer_word(library):
    assert "There is no topic `rocmish`." in reply("/notes topic rocmish", library)
    assert "There is no topic `rocmish\U0001f64f`." in reply(
        "/notes topic rocmish\U0001f64f", library
    )


# --- guesses from a topic's name as typed; the help's lines ---


# kills: bot/command_replies.py:_guesses (hand) what was typed read whole, not as
#   _named_topic reads it: a tilde, an emoji or words after a full-width comma, which end a
#   topic's name, made `/notes topic 前缀缓存～` guess nothing where `前缀缓存。` guessed
@pytest.mark.parametrize(
    ("asked", "guessed"),
    [
        ("前缀缓存～", ["prefix-caching"]),
        ("前缀缓存，谢谢", ["prefix-caching"]),
        ("speculative\U0001f64f", ["spec-decode"]),
        ("speculative please", ["spec-decode"]),
        ("a\U0001f64f", []),  # in most names still
    ],
)
def test_an_unknown_topic_guesses_from_the_name_as_typed_before_a_mark(library, asked, guessed):
    body = reply(f"/notes topic {asked}", library)
    assert "There is no topic" in body, body
    mean = re.search(r"Did you mean (.*?)\? `/notes topic` alone", body)
    assert re.findall(r"`([a-z0-9-]+)` \(", mean[1] if mean else "") == guessed, body


def test_help_leads_each_line_with_what_it_does():
    # every line began "- Use `/notes ...`", and the last was
    # "Use `/notes help` to show this message" on the message itself: a reader scanning
    # for what they want to do read six times the same word
    lines = [ln for ln in render_help().splitlines() if ln.startswith("- ")]
    firsts = [ln.split()[1] for ln in lines]
    assert len(set(firsts)) == len(firsts) == 5, firsts
    assert "this message" not in render_help()
    assert "`/notes why` (until a plain `/notes`)" in render_help()  # the way back, said


# --- topics' names in brackets, source PRs by number, a search that finds nothing ---


def bracket_depth(text: str) -> int:
    """How deep brackets nest in the text outside code spans (ASCII and full-width)."""
    depth = deepest = 0
    for ch in re.sub(r"`[^`\n]*`", "", text):
        if ch in "(（":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")）":
            depth -= 1
    return deepest


@pytest.mark.parametrize(
    ("line", "named"),
    [
        # every topic: "`context-parallel` (Context parallelism (PCP / DCP))"
        ("/notes topic", "`context-parallel` (Context parallelism)"),
        # a guess, with its Chinese name "上下文并行（PCP / DCP）"
        ("/notes topic context", "`context-parallel` (Context parallelism, 上下文并行)"),
        ("/notes topic model", "`model-runner` (Model runner, Model Runner)"),
        # its notes, headed by its names: its English name is outside the brackets
        ("/notes topic context-parallel", "**Context parallelism (PCP / DCP)** (上下文并行, `"),
    ],
)
def test_a_topics_name_in_brackets_holds_no_brackets_of_its_own(library, line, named):
    """Seven topics' names hold brackets ("Context parallelism (PCP / DCP)", "Hardware CI
    (ROCm, NPU, CUDA runners)"), and replies named them inside brackets of their own:
    "`context-parallel` (Context parallelism (PCP / DCP), 上下文并行（PCP / DCP）)", a
    nesting a reader has to count. Inside brackets a name is given without its own (the
    names a `topic` command takes: "Context parallelism" is its short name)."""
    body = reply(line, library, repo="vllm-project/vllm")
    assert bracket_depth(body) == 1, body
    assert named in body, body


def test_a_topics_name_as_a_reply_gives_it_in_brackets_finds_it(library):
    # the names above are typed back: `/notes topic 上下文并行` was "There is no topic"
    for topic in library.topics.values():
        for name in (topic.bracketed_en, topic.bracketed_zh):
            body = reply(f"/notes topic {name}", library, repo="vllm-project/vllm")
            assert "There is no topic" not in body, (topic.id, name, body)
            assert f", `{topic.id}`)" in body, (topic.id, name, body)


def test_a_replys_notes_name_their_source_pr_by_its_number_in_its_repository(library):
    # it was "source: vllm-project/vllm PR 52419" in a reply on a vllm PR
    link = "[PR 52419](https://redirect.github.com/vllm-project/vllm/pull/52419)"
    for line in ("/notes search 52419", "/notes topic prefix-caching"):
        body = reply(line, library, repo="vllm-project/vllm")
        assert f" · source: {link} · " in body, body
        assert "vllm-project/vllm PR" not in body, body


def test_a_search_that_finds_nothing_points_to_the_topics_in_one_line(library):
    """`/notes search` that found no note answered with every topic, 35 of them in 1,400
    characters, a new comment that notifies everyone on the PR. Its words named no topic
    either (a topic's name finds its notes), so the list held nothing closer than `/notes
    topic` gives: the reply says that, in one line."""
    for repo in ("vllm-project/vllm", None, "acme/widgets"):
        body = reply("/notes search zzzq frobnicate", library, repo=repo)
        said = body.split("\n", 2)[2].strip()
        assert said == (
            "No note matches `zzzq frobnicate`. `/notes topic` lists the topics and which"
            " have notes."
        ), body
    # the command word the App answers to
    body = render_reply(command("/rn search zzzq", "/rn"), library, note_url, word="/rn")
    assert body.endswith(
        "No note matches `zzzq`. `/rn topic` lists the topics and which have notes."
    )

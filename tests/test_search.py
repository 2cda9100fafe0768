"""The one note search, in its two modes: the pages' filter and the reply's ranking."""

import re
import sys
import unicodedata

import pytest

import bot.search
from bot.library import Library
from bot.notes import Note, Topic, Verdict
from bot.search import (
    FILTER,
    RANKED,
    SearchMode,
    _marks_folded,
    filter_words,
    query_terms,
    search_notes,
)


def note(nid: str, title_zh: str, guidance: str, **kw) -> Note:
    return Note(
        id=nid,
        repo="vllm-project/vllm",
        verdict=kw.pop("verdict", Verdict.QUICK),
        topics=kw.pop("topics", ("rocm",)),
        title_zh=title_zh,
        guidance=guidance,
        **kw,
    )


NOTES = (
    note("n-a", "恢复ROCm默认", "值得快速阅读。ROCm kernels.", source_pr=101),
    note(
        "n-b",
        "修复调度",
        "值得精读。scheduler deadlock.",
        verdict=Verdict.DEEP,
        source_pr=102,
        topics=("scheduling",),
    ),
)
LIB = Library(notes=NOTES, topics={})


def ids(hits) -> list[str]:
    return [h.note.id for h in hits]


def test_filter_needs_every_term_as_a_substring_of_any_field():
    assert ids(search_notes(LIB.notes, "roc 默认", FILTER)) == ["n-a"]  # pieces of words count
    assert ids(search_notes(LIB.notes, "n-b", FILTER)) == ["n-b"]  # the id is a field
    assert ids(search_notes(LIB.notes, "102", FILTER)) == ["n-b"]  # so is the source PR
    assert search_notes(LIB.notes, "rocm deadlock", FILTER) == []  # both terms, one note
    assert len(search_notes(LIB.notes, "  ", FILTER)) == 2  # no term: nothing filtered out


def test_ranked_takes_whole_words_and_any_term_most_terms_first():
    assert search_notes(LIB.notes, "roc", RANKED) == []
    # one term each, in the guidance: the deep read first
    assert ids(search_notes(LIB.notes, "kernels deadlock", RANKED)) == ["n-b", "n-a"]
    # the same coverage, but a title match weighs more than the verdict
    assert ids(search_notes(LIB.notes, "rocm deadlock", RANKED)) == ["n-a", "n-b"]
    hits = search_notes(LIB.notes, "ROCm 默认 deadlock", RANKED)
    assert ids(hits) == ["n-a", "n-b"] and hits[0].terms == 2
    assert hits[0].fields == ("title_zh", "topics", "guidance")  # its topic's id is rocm
    assert search_notes(LIB.notes, "vllm", RANKED) == []  # ids are not searched
    assert search_notes(LIB.notes, "?!", RANKED) == []


def test_full_width_text_is_folded():
    assert query_terms("ＲＯＣｍ　Kernels", FILTER) == ["rocm", "kernels"]
    assert ids(search_notes(LIB.notes, "ＲＯＣｍ", RANKED)) == ["n-a"]


TOPICS = {
    "rocm": Topic(id="rocm", name_en="AMD ROCm", name_zh="AMD 平台"),
    "scheduling": Topic(id="scheduling", name_en="Scheduler", name_zh="调度器与抢占"),
}


def test_a_topic_finds_its_notes_by_id_and_by_name():
    assert ids(search_notes(LIB.notes, "scheduling", FILTER)) == ["n-b"]  # the id alone
    assert search_notes(LIB.notes, "AMD", FILTER) == []  # names need the taxonomy
    assert ids(search_notes(LIB.notes, "amd", FILTER, topics=TOPICS)) == ["n-a"]
    assert ids(search_notes(LIB.notes, "抢占", FILTER, topics=TOPICS)) == ["n-b"]
    hits = search_notes(LIB.notes, "AMD platform", RANKED, topics=TOPICS)
    assert ids(hits) == ["n-a"] and hits[0].fields == ("topics",)


def test_ranked_finds_a_note_by_its_pr_numbers_and_paths():
    # the reply names each note by its source PR, yet searching
    # that number found nothing; its source PR weighs as a title, the PRs to read with
    # it, its issues and its paths count too
    listed = note(
        "n-c",
        "修复注册",
        "值得精读。registration.",
        source_pr=103,
        read_with=(201,),
        issues=(301,),
        paths=("vllm/v1/core/kv_cache_coordinator.py",),
    )
    notes = (*NOTES, listed)
    assert ids(search_notes(notes, "103", RANKED)) == ["n-c"]
    assert search_notes(notes, "103", RANKED)[0].fields == ("source_pr",)
    assert ids(search_notes(notes, "201", RANKED)) == ["n-c"]
    assert ids(search_notes(notes, "301", RANKED)) == ["n-c"]
    assert ids(search_notes(notes, "kv_cache_coordinator", RANKED)) == ["n-c"]
    assert search_notes(notes, "10", RANKED) == []  # a number is a whole word, as any


def test_a_path_is_one_term_found_inside_longer_paths():
    # split at its dot, `kv_cache_coordinator.py` searched every note listing a `.py`
    n = note("n-c", "缓存", "值得精读。", paths=("vllm/v1/core/kv_cache_coordinator.py",))
    other = note("n-d", "其他", "值得精读。", paths=("vllm/v1/worker/gpu_model_runner.py",))
    assert query_terms("see kv_cache_coordinator.py, vllm/v1/core") == [
        "see",
        "kv_cache_coordinator.py",
        "vllm/v1/core",
    ]
    for q in ("kv_cache_coordinator.py", "v1/core", "KV_Cache_Coordinator.PY"):
        assert ids(search_notes([n, other], q, RANKED)) == ["n-c"], q
    assert query_terms("EAGLE. Then kv-cache") == ["eagle", "then", "kv-cache"]


# kills: bot/search.py:_is_path a path without a dot (or any term) not taken for a path
def test_a_path_from_its_top_directory_finds_the_note_listing_it():
    # a word looks below the top directory only (`vllm` is in nearly every path); a path
    # is looked for in the whole path, its top directory too
    n = note("n-c", "缓存", "值得精读。", paths=("vllm/v1/core/kv_cache_coordinator.py",))
    other = note("n-d", "其他", "值得精读。", paths=("vllm/v1/worker/gpu_model_runner.py",))
    assert ids(search_notes([n, other], "vllm/v1/core", RANKED)) == ["n-c"]
    assert ids(search_notes([n, other], "core/kv_cache", RANKED)) == ["n-c"]


# kills: bot/search.py:search_notes a filter without terms counts one term found in every note
def test_a_filter_without_terms_keeps_every_note_having_matched_no_term():
    assert [(h.terms, h.score) for h in search_notes(LIB.notes, " , ", FILTER)] == [(0, 0.0)] * 2


# kills: bot/search.py:search_notes a note without a source PR ranked as one with PR 1
def test_a_note_without_a_source_pr_comes_after_one_with_the_oldest_pr():
    first = note("n-z", "甲", "值得快速阅读。kernels.", source_pr=1)
    no_pr = note("n-a", "乙", "值得快速阅读。kernels.")
    assert ids(search_notes([no_pr, first], "kernels", RANKED)) == ["n-z", "n-a"]


# kills: bot/search.py:search_notes the limit applied only when there is none
def test_a_limit_keeps_the_best_hits():
    assert ids(search_notes(LIB.notes, "kernels deadlock", RANKED, limit=1)) == ["n-b"]
    assert ids(search_notes(LIB.notes, "kernels deadlock", RANKED, limit=None)) == ["n-b", "n-a"]


def test_a_filter_keeps_another_repositorys_pr_link_as_a_term():
    # dropping the link as no number of ours left the filter no term: every note shown
    url = "https://github.com/sgl-project/sglang/pull/101"
    assert search_notes(LIB.notes, url, FILTER) == []
    assert query_terms(url, FILTER, frozenset({"vllm-project/vllm"})) == [url]


# --- a PR or issue number as GitHub writes it ---


def test_a_pr_or_issue_number_as_github_writes_it_is_the_number_in_both_modes():
    # `?q=#52419` found nothing on the notes page (the filter looked for the text
    # "#52419"), while `?q=52419` found the note; a filter now reads a reference as the
    # command's search did a link: `#N`, `GH-N`, `owner/name#N` of ours, a link of ours
    ours = frozenset({"vllm-project/vllm"})
    for q in ("#102", "GH-102", "vllm-project/vllm#102", "github.com/vllm-project/vllm/pull/102"):
        assert query_terms(q, FILTER, ours) == ["102"], q
        assert ids(search_notes(LIB.notes, q, FILTER)) == ["n-b"], q
        assert ids(search_notes(LIB.notes, q, RANKED)) == ["n-b"], q
    # another repository's reference stays a term of a filter, which it then finds nowhere
    assert query_terms("sgl-project/sglang#102", FILTER, ours) == ["sgl-project/sglang#102"]
    assert search_notes(LIB.notes, "sgl-project/sglang#102", FILTER) == []
    assert query_terms("c# GH-", FILTER) == ["c#", "gh-"]  # no number: no reference


def test_a_number_is_a_whole_number_in_a_filter_as_in_the_reply():
    listed = note(
        "n-c", "修复注册", "值得精读。见 #5006 和 v0.10。", source_pr=52419, read_with=(50062,)
    )
    notes = (*NOTES, listed)
    for q in ("5241", "2419", "500", "0062", "1", "0"):  # `v0.10`: its 0 is in a word
        assert search_notes(notes, q, FILTER) == [], q
        assert search_notes(notes, q, RANKED) == [], q
    for q in ("52419", "50062", "5006", "10"):  # whole, beside `#`, `.` or Chinese
        assert ids(search_notes(notes, q, FILTER)) == ["n-c"], q
    assert ids(search_notes(notes, "n-c 52419", FILTER)) == ["n-c"]  # other terms: substrings


# --- a reference in brackets; a term of punctuation alone ---


def _search_note(**kw) -> Note:
    return Note(
        id="n-sched",
        repo="vllm-project/vllm",
        verdict=Verdict.DEEP,
        topics=("scheduling",),
        title_zh="修复调度",
        guidance="值得精读。scheduler deadlock.",
        source_pr=102,
        **kw,
    )


@pytest.mark.parametrize("q", ["(#102)", "[#102]", "#102.", "Fix scheduler deadlock (#102)"])
def test_a_reference_in_brackets_finds_its_note_in_the_filter(q):
    # GitHub writes a squashed PR as "Title (#102)"; pasted into ?q=, the reference was
    # cut out of its brackets and '(', ')' (or '[', ']', a trailing '.') were left as
    # terms every field was searched for: a note holding none was not found, though
    # ?q=#102 finds it. (The reviewer's note had no "fix" in any field, which a filter
    # asks for too: here it bears its PR's title, as a note does.)
    notes = (_search_note(title_en="Fix scheduler deadlock"),)
    assert [h.note.id for h in search_notes(notes, "#102", FILTER)] == ["n-sched"]
    found = [h.note.id for h in search_notes(notes, q, FILTER)]
    assert found == ["n-sched"], f"?q={q!r} finds nothing: {found}"


def test_a_term_of_punctuation_alone_asks_for_nothing():
    assert query_terms("( ) [ ] - . 、", FILTER) == []
    assert query_terms("<script> a.py (x)", FILTER) == ["<script>", "a.py", "(x)"]


# --- a compound, however its parts are joined, in the filter and the reply ---

COMPOUNDS = (
    note("n-c", "通信", "值得快速阅读。Custom all-reduce on ROCm; the KV cache grows."),
    note("n-d", "预热", "值得快速阅读。The warmup_steps of cudagraph capture.", topics=("x",)),
)


# kills: bot/search.py:_matcher (hand) a filter's term only as a substring: `allreduce` missed
#   the note writing all-reduce, `KV-cache` the one writing KV cache, `warm-up` warmup
# kills: bot/search.py:_compound (hand) the word-start anchor dropped: `n-rocm` was found in
#   "on ROCm", `m-all` in "Custom all-reduce"
@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("allreduce", ["n-c"]),
        ("all_reduce", ["n-c"]),
        ("KV-cache", ["n-c"]),
        ("kvcache", ["n-c"]),
        ("warm-up steps", ["n-d"]),
        ("CUDA-graph", ["n-d"]),
        ("n-rocm", []),  # its n is the end of "on": no compound there
        ("m-all", []),  # nor is the end of "Custom"
    ],
)
def test_a_compound_is_found_however_its_parts_are_joined(q, expected):
    assert ids(search_notes(COMPOUNDS, q, FILTER)) == expected


# kills: bot/search.py:_matcher (hand) a reply's word matched as typed: `allreduce` missed the
#   note writing all-reduce, `kvcache` the one writing KV cache, as the filter did before
# kills: bot/search.py:_matcher (hand) the word's end dropped: `cudagraph` found `cudagraphs`
@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("allreduce", ["n-c"]),
        ("all_reduce", ["n-c"]),
        ("kvcache", ["n-c"]),
        ("warm_up", []),  # the note writes warmup_steps: one word, not warmup
        ("cuda", []),  # nor is cuda a word of cudagraph
        ("rocm", ["n-c"]),
        ("mall", []),  # whole words: not the end of "Custom" and the start of "all-reduce"
        ("cudagrap", []),
    ],
)
def test_a_replys_word_is_found_however_its_parts_are_joined(q, expected):
    assert ids(search_notes(COMPOUNDS, q, RANKED)) == expected


# kills: bot/search.py:_matcher (hand) a filter's path or file name taken as a substring only
def test_a_filters_file_name_is_found_however_its_parts_are_joined():
    # a reviewer types the module as the prose names it (`kv-cache`, `all-reduce`); the
    # path joins its parts with underscores
    listed = note("n-e", "注册", "值得精读。", paths=("vllm/v1/core/kv_cache_coordinator.py",))
    assert ids(search_notes([listed], "kv-cache_coordinator.py", FILTER)) == ["n-e"]
    assert ids(search_notes([listed], "kv-cache_coordinator.pyi", FILTER)) == []


IDENTIFIERS = (
    note(
        "n-f",
        "注册",
        "值得精读。Registers ops in vllm/_custom_ops.py and __init__; honours enforce_eager.",
        paths=("vllm/_custom_ops.py",),
    ),
)


# kills: bot/search.py:_compound (hand) a term's leading and trailing underscores dropped:
#   `_custom_ops` and `__init__` found nothing in the reply, an `_` before a word's letters
#   making them no whole word
# kills: bot/search.py:_compound (hand) a term's end joiners required: `--enforce-eager` no
#   longer found enforce_eager on the notes pages
@pytest.mark.parametrize(
    ("q", "mode", "expected"),
    [
        ("_custom_ops", RANKED, ["n-f"]),
        ("__init__", RANKED, ["n-f"]),
        ("custom_ops", RANKED, []),  # a whole word: not the end of _custom_ops
        ("_init", RANKED, []),
        ("--enforce-eager", FILTER, ["n-f"]),  # a flag's dashes join nothing to it
        ("enforce-eager--", FILTER, ["n-f"]),
    ],
)
def test_joiners_at_a_terms_ends_are_its_own(q, mode, expected):
    assert ids(search_notes(IDENTIFIERS, q, mode)) == expected


# --- what is part of a compound; a term's closing sentence mark ---

PROSE = (note("n-g", "通信", "值得快速阅读。This is a fix in a hot path on a 100 GPUs warm-up."),)


# kills: bot/search.py:_joiners_after (hand) a joiner read after any letter: the reply's
#   `isa` (a CPU's ISA) found "is a", `ina` "in a", `a100` "a 100", and the filter's `isa`
#   and `ona` the same, in plain English prose; `afixin` "a fix in": the first
#   letter's joiner is read on its own, where the word's pattern opens with that letter
@pytest.mark.parametrize("q", ["isa", "ina", "ona", "a100", "fixi", "afixin"])
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_letter_alone_is_no_part_of_a_compound(q, mode):
    assert ids(search_notes(PROSE, q, mode)) == []


# kills: bot/search.py:_joiners_after (hand) the joiners a term was typed with dropped: `a-100`
#   and `is-a` are compounds of the reader's making, found as joined in the note
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_joiner_typed_in_a_term_may_stand_there(mode):
    assert ids(search_notes(PROSE, "is_a", mode)) == ["n-g"]
    assert ids(search_notes(PROSE, "hot-path", mode)) == ["n-g"]
    assert ids(search_notes(PROSE, "hotpath", mode)) == ["n-g"]


# kills: bot/search.py:_joiners_after no joiner before a last part of two letters (`warm|up`)
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_compounds_parts_may_be_two_letters(mode):
    assert ids(search_notes(PROSE, "warmup", mode)) == ["n-g"]
    assert ids(search_notes(PROSE, "thisis", mode)) == ["n-g"]


def test_a_terms_closing_sentence_mark_is_dropped_in_the_filter_as_in_the_reply():
    """`/notes?q=scheduler.` (a link pasted at a sentence's end, or the box typed into as
    prose) looked for `scheduler.`, which n-b's "scheduler deadlock." does not hold: 'No
    notes match', where `/notes search scheduler.` found n-b."""
    for q in ("scheduler.", "scheduler?", "Scheduler!", "scheduler…", "scheduler👍", "修复。"):
        assert ids(search_notes(LIB.notes, q, FILTER)) == ["n-b"], q
        assert ids(search_notes(LIB.notes, q, RANKED)) == ["n-b"], q
    assert query_terms("rocm.", FILTER) == query_terms("rocm.") == ["rocm"]
    # a mark inside a term stays: a path's dot, a version's
    assert query_terms("kv_cache.py. v0.6.", FILTER) == ["kv_cache.py", "v0.6"]
    assert query_terms("... ？", FILTER) == []


# --- quotes and phrases in a query; the words named back ---


# kills: bot/search.py:query_terms (hand) a filter's term kept the quotes around it:
#   `?q="deadlock"`, `“死锁”` or `「死锁」` found nothing, no field holding the quotes
@pytest.mark.parametrize(
    "q", ['"deadlock"', "“deadlock”", "'deadlock'", "`deadlock`", '"deadlock."', '"deadlock".']
)
def test_quotes_around_a_term_are_no_part_of_it(q):
    assert ids(search_notes(LIB.notes, q, FILTER)) == ["n-b"]
    assert ids(search_notes(LIB.notes, q, RANKED)) == ["n-b"]
    assert query_terms(q, FILTER) == query_terms(q) == ["deadlock"]


# `【修复】`, `《修复》`: the brackets Chinese puts around a tag or a name (bot.notes.QUOTES)
@pytest.mark.parametrize(
    "q", ["“修复”", "「修复」", "『修复』", "＂修复＂", "【修复】", "《修复》"]
)
def test_chinese_quotes_around_a_term_are_no_part_of_it(q):
    assert ids(search_notes(LIB.notes, q, FILTER)) == ["n-b"]
    assert ids(search_notes(LIB.notes, q, RANKED)) == ["n-b"]


# kills: bot/search.py:query_terms a filter's quoted phrase read as its words, each found
#   anywhere: `?q="deadlock scheduler"` found the note saying "scheduler deadlock"
@pytest.mark.parametrize("quoted", ['"{}"', "“{}”", "「{}」", "『{}』", "`{}`", "＂{}＂"])
def test_a_filters_quoted_phrase_is_found_as_written(quoted):
    phrase = quoted.format("scheduler deadlock")
    assert query_terms(phrase, FILTER) == ["scheduler deadlock"]
    assert ids(search_notes(LIB.notes, phrase, FILTER)) == ["n-b"]
    assert ids(search_notes(LIB.notes, quoted.format("scheduler-deadlock"), FILTER)) == ["n-b"]
    assert search_notes(LIB.notes, quoted.format("deadlock scheduler"), FILTER) == []
    assert search_notes(LIB.notes, f"{quoted.format('rocm kernels')} 修复", FILTER) == []
    # the reply ranks by words: any of them finds a note
    assert query_terms(phrase) == ["scheduler", "deadlock"]


def test_a_quote_left_open_or_inside_a_word_quotes_no_phrase():
    assert query_terms('"scheduler deadlock', FILTER) == ["scheduler", "deadlock"]
    assert query_terms("don't", FILTER) == ["don't"]  # a quote inside a word stays
    assert query_terms("don't say 'scheduler deadlock'", FILTER) == [
        "don't",
        "say",
        "scheduler",
        "deadlock",
    ]  # single quotes are apostrophes too: no phrase
    assert query_terms('"scheduler  deadlock". rocm', FILTER) == ["scheduler deadlock", "rocm"]


def test_a_search_finding_nothing_names_a_quoted_phrase_as_one_word():
    assert filter_words('"deadlock scheduler" rocm') == ['"deadlock scheduler"', "rocm"]


def test_the_words_named_back_are_those_the_filter_searched():
    # the filter reads the query folded (NFKC): a full-width quote, backtick, comma or
    # semicolon is its ASCII one there, and the words named back must be cut the same way
    for q, words in (
        ('"deadlock scheduler＂ rocm', ['"deadlock scheduler＂', "rocm"]),
        ("｀deadlock scheduler｀", ["｀deadlock scheduler｀"]),
        ("deadlock，rocm；cuda", ["deadlock", "rocm", "cuda"]),
    ):
        assert [query_terms(w, FILTER) for w in filter_words(q)] == [
            [t] for t in query_terms(q, FILTER)
        ]
        assert filter_words(q) == words


def test_every_character_folded_to_a_quote_or_separator_cuts_the_words_named_back():
    marks = set('"`,;、“”「」『』')
    for char in map(chr, range(sys.maxunicode + 1)):
        folded = unicodedata.normalize("NFKC", char)
        if folded != char and folded in marks:
            typed, ascii_form = (filter_words(f"{c}a b{c}x") for c in (char, folded))
            assert len(typed) == len(ascii_form), char


# The table bot/search.py kept by hand until it was derived (`_marks_folded`): each
# character NFKC makes one of the filter's quotes or separators, as it makes them
HAND_TABLE = str.maketrans(
    "\uff02\u1fef\uff40\u037e\ufe14\ufe54\uff1b\ufe10\ufe50\uff0c\ufe11\ufe51\uff64"
    "\ufe41\uff62\ufe42\uff63\ufe43\ufe44",
    '"``;;;;,,,、、、「「」」『』',
)


# kills: bot/search.py:_marks_folded (hand) the rule that replaced the hand-kept table
#   changing a character the table did not, or missing one it did
def test_the_derived_folding_of_the_filters_marks_is_the_hand_kept_table():
    bmp = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000)
    assert _marks_folded(bmp) == bmp.translate(HAND_TABLE)


PAIRS = (
    note(
        "n-h",
        "原地",
        "值得快速阅读。The mask is in place; it falls on to me to check the if-else arms, a"
        " no-op on re_do, set up once.",
    ),
)


# kills: bot/search.py:_joiners_after a word of four letters read as two parts of two apart:
#   torch's `isin` found the prose "is in", `onto` "on to" and `tome` "to me"
@pytest.mark.parametrize("q", ["isin", "onto", "tome"])
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_two_parts_of_two_letters_are_prose_not_a_compound(q, mode):
    assert ids(search_notes(PAIRS, q, mode)) == []
    assert ids(search_notes(PAIRS, q[:2] + "-" + q[2:], mode)) == ["n-h"]  # joined as typed


# kills: bot/search.py:_joiners_after (hand) no compound with a part of two letters: `inplace`
#   missed "in place", `ifelse` "if-else"; nor two of two joined: `noop` missed "no-op"
# kills: bot/search.py:_joiners_after (hand) _TWO_PAIRS 5: `setup` (three and two) missed "set up"
# kills: bot/search.py:_joiners_after (hand) the untyped joiners win over those typed: `is-in`
#   missed "is in"
@pytest.mark.parametrize("q", ["inplace", "ifelse", "falls-on", "noop", "redo", "setup"])
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_part_of_two_letters_beside_a_longer_one_is_a_compound(q, mode):
    assert ids(search_notes(PAIRS, q, mode)) == ["n-h"]


# kills: bot/search.py:query_terms the reply's query not cut to its first 8 terms (a pasted
#   paragraph searched for every word of it)
def test_a_replys_long_query_is_cut_to_its_first_terms_and_a_filters_is_not():
    words = "one two three four five six seven eight nine ten"
    assert query_terms(words) == words.split()[:8]
    assert query_terms(words, FILTER) == words.split()


# --- a hyphenated word or path is one term ---

HYPHENATED = (
    note("n-i", "通信", "值得快速阅读。Custom allreduce; ranks come up in order."),
    note("n-j", "预热", "值得快速阅读。All ranks finish warmup before capture."),
)


# kills: bot/search.py:query_terms (hand) a reply's word split at its hyphens: `all-reduce`
#   searched `all` and `reduce` and listed the note saying "All ranks", not the one writing
#   allreduce, which the pages' filter found; `warm-up` the one saying "come up"
@pytest.mark.parametrize(
    ("q", "expected"),
    [("all-reduce", ["n-i"]), ("warm-up", ["n-j"]), ("All-Reduce.", ["n-i"])],
)
def test_a_replys_hyphenated_word_is_one_compound_as_on_the_pages(q, expected):
    assert ids(search_notes(HYPHENATED, q, RANKED)) == expected
    assert ids(search_notes(HYPHENATED, q, FILTER)) == expected


# kills: bot/search.py:_PATH_TERM (hand) a path's parts without hyphens: split in two
# kills: bot/search.py:_LATIN_WORD (hand) one hyphen between parts: `all--reduce` split
def test_a_hyphenated_word_or_path_is_one_term():
    assert query_terms("kv-cache, see .github/pre-commit.yml all--reduce") == [
        "kv-cache",
        "see",
        "github/pre-commit.yml",
        "all--reduce",
    ]
    assert query_terms("--enforce-eager") == ["enforce-eager"]  # a flag's dashes: no word


# --- emoji shortcodes and thanks in a reply's words ---

SHORTCODED = (
    note("n-one", "修复", "TP=1 的时候 deadlock 不复现", title_en="Fix rank 1 hang"),
    note("n-dead", "死锁", "值得精读。", title_en="Scheduler deadlock"),
)


# kills: bot/comment_prose.py:without_shortcodes (hand) a run with a port's `:8080:` taken out
# kills: bot/comment_prose.py:_SHORTCODE_RUN (hand) no colon before it looked at: `c10::cuda:`
#   lost `cuda`
# kills: bot/comment_prose.py:without_shortcodes a shortcode taken out with no space: 死锁:pray:调度
#   one word
# kills: bot/comment_prose.py:_shortcode_end (hand) any lower-case name an emoji's: `sqlite
#   :memory:` searched `sqlite` alone
@pytest.mark.parametrize(
    ("q", "terms"),
    [
        ("deadlock :+1:", ["deadlock"]),
        ("deadlock:pray::tada:", ["deadlock"]),  # glued on, as GitHub shows 🙏🎉 there
        (":memo: 死锁", ["死锁"]),
        ("死锁:pray:调度", ["死锁", "调度"]),  # two words, as 死锁🙏调度 is
        ("port :8080:", ["port", "8080"]),  # no emoji's name: a port's
        ("torch::jit::script", ["torch", "jit", "script"]),  # C++'s scopes, no emoji
        ("c10::cuda: stream", ["c10", "cuda", "stream"]),
        ("foo:bar:baz", ["foo", "bar", "baz"]),  # a word after it: no emoji's end
        ("deadlock :Pray:", ["deadlock", "pray"]),  # GitHub reads no upper case in a name
        ("sqlite :memory:", ["sqlite", "memory"]),  # no emoji's name: GitHub shows it as typed
        ("rocm :latest: image", ["rocm", "latest", "image"]),
        ("deadlock :shipit:", ["deadlock"]),  # GitHub's own image
    ],
)
def test_a_replys_emoji_shortcode_asks_for_no_word(q, terms):
    assert query_terms(q) == terms


# kills: bot/search.py:query_terms (hand) the pages' filter without shortcodes too: its box
#   shows what was typed, no emoji, and SQLite's `:memory:` is a word
def test_the_pages_filter_keeps_what_looks_like_a_shortcode():
    assert query_terms("sqlite :memory:", FILTER) == ["sqlite", ":memory"]


# kills: bot/search.py:query_terms (hand) a reply's shortcodes read as words: `deadlock :+1:`
#   (as GitHub's editor completes 👍) searched `1` too and listed a note saying "rank 1" first
def test_a_thanks_after_a_replys_words_changes_no_note_found():
    hits = search_notes(SHORTCODED, "deadlock :+1:", RANKED)
    assert [h.note.id for h in hits] == ["n-dead", "n-one"]
    assert {h.terms for h in hits} == {1}


SAMPLING = (
    note(
        "n-k", "采样", "值得快速阅读。Clamp top_k before the sort; a top-p of 1 keeps all q_proj."
    ),
    note("n-rows", "行", "值得快速阅读。Take the top k rows of the scores."),
)


# kills: bot/search.py:_joiners_after (hand) a letter alone no part even joined: `/notes search
#   topk` found no note writing vLLM's `top_k` or `top-k`, which `top_k` found
# kills: bot/search.py:_joiners_after (hand) a letter alone a part however joined: `topk` found
#   the prose "top k rows", as `isa` would "is a"
# kills: bot/search.py:_joiners_after a letter alone at a word's start no part: `qproj` missed
#   `q_proj`
@pytest.mark.parametrize(
    ("q", "expected"), [("topk", ["n-k"]), ("topp", ["n-k"]), ("qproj", ["n-k"])]
)
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_letter_alone_is_a_part_when_a_hyphen_or_underscore_joins_it(q, expected, mode):
    assert ids(search_notes(SAMPLING, q, mode)) == expected


# --- a huge guidance, searched in its first characters only ---


# kills: bot/search.py:_folded (hand) the whole guidance searched: a note of 28 MB of
#   guidance made every `/notes?q=` take 0.7 s, and a ranked `/notes search` more
@pytest.mark.parametrize("mode", [RANKED, FILTER])
def test_a_huge_guidance_is_searched_in_its_first_characters_only(mode):
    from bot.search import SEARCHED_GUIDANCE_CHARS

    filler = "值得精读。" + "说明 " * (SEARCHED_GUIDANCE_CHARS // 3)
    huge = note("n-huge", "大", filler + " deadlock allreduce", keywords=("rocm_kernel",))
    small = note("n-small", "小", "值得精读。An allreduce deadlock.")
    early = note("n-early", "早", "值得精读。deadlock " + filler)
    found = [n.id for n in (huge, small, early) if search_notes([n], "deadlock", mode)]
    assert found == ["n-small", "n-early"]  # past the bound: not read
    assert ids(search_notes([huge], "rocm_kernel", mode)) == ["n-huge"]  # its other fields


# --- a word's pattern; spaces beside Chinese characters ---

# A Latin word's pattern opens with its first letter, the look behind it after (bot.search
# _not_after): fast where a long guidance lacks the letter. It must find what the pattern
# opening with the lookbehind (`(?<!before)(?:head)?first`) finds, in both modes.
ADVERSARIAL = (
    "__init__ _init init_ x__init__ 默认__init__ a_init",
    "_custom_ops x_custom_ops custom_ops_ -custom-ops 默认custom_ops _-_custom_ops",
    "--enforce-eager x--enforce-eager enforce_eager 调度-enforce-eager",
    "kv cache KV-cache xkv_cache kv_cachex 缓存kv_cache",
    "5241 52419 x5241 5241x 默认5241 #5241",
    "isin is in topk top_k top-k atopk no-op ano-op",
    "a\nb a-b _a b_ 默认a",
    "all-reduce allreduce xallreduce all_reducex",
)
ADVERSARIAL_TERMS = (
    "__init__",
    "_init",
    "init_",
    "_custom_ops",
    "custom_ops",
    "-custom-ops",
    "--enforce-eager",
    "enforce-eager",
    "kv_cache",
    "kv",
    "5241",
    "52419",
    "isin",
    "topk",
    "noop",
    "a",
    "b",
    "allreduce",
    "all-reduce",
    "_-_custom",
)


def _lookbehind_first(before: str, first: str, head: str = "") -> str:
    return f"(?<!{before})(?:{re.escape(head)})?{re.escape(first)}"


def _shipped_queries(notes) -> list[str]:
    """Words of the shipped notes' keywords, titles and paths, and some longer spans."""
    words = set()
    for n in notes:
        for text in (*n.keywords, *n.paths, n.title_en, n.summary_en):
            words.update(text.split())
            words.update(re.split(r"[\s/.]+", text))
        words.update(n.guidance.split()[:40])
    return sorted(w for w in words if w)


def test_a_word_pattern_opening_with_its_letter_finds_what_the_lookbehind_first_did(
    monkeypatch,
):
    from bot.library import load_library

    shipped = load_library()
    # a note for each text, and one for each of its words: which of them a term finds
    texts = [*ADVERSARIAL, *(w for t in ADVERSARIAL for w in t.split(" "))]
    adversarial = [note(f"n-{i}", "对抗", f"值得精读。{t}") for i, t in enumerate(texts)]
    cases = [
        (shipped.notes, [*_shipped_queries(shipped.notes), *ADVERSARIAL_TERMS]),
        (adversarial, list(ADVERSARIAL_TERMS)),
    ]

    def found() -> list[list[tuple[str, int, float]]]:
        return [
            [(h.note.id, h.terms, h.score) for h in search_notes(notes, q, mode)]
            for notes, queries in cases
            for q in queries
            for mode in (RANKED, FILTER)
        ]

    now = found()
    monkeypatch.setattr(bot.search, "_not_after", _lookbehind_first)
    before = found()
    assert now == before
    assert sum(map(bool, now)) > len(now) // 3  # most queries find something


# kills: bot/search.py:_matcher (hand) a CJK phrase found as typed: `“前缀 缓存”` did not
#   find 前缀缓存, Chinese writing no space between words (docs/commands.md said it did)
@pytest.mark.parametrize("quoted", ['"{}"', "“{}”", "「{}」", "`{}`"])
def test_a_space_beside_a_chinese_character_in_a_phrase_may_be_there_or_not(quoted):
    texts = (
        "前缀缓存",
        "前缀 缓存",
        "前缀\n缓存",
        "KV缓存",
        "KV 缓存",
        "dead lock死锁",
        "deadlock 死锁",
    )
    notes = [note(f"n-{i}", "短语", f"值得精读。{t}。") for i, t in enumerate(texts)]

    def found(phrase: str) -> list[str]:
        return [
            texts[int(h.note.id[2:])] for h in search_notes(notes, quoted.format(phrase), FILTER)
        ]

    assert found("前缀 缓存") == found("前缀  缓存") == ["前缀缓存", "前缀 缓存", "前缀\n缓存"]
    assert found("kv 缓存") == ["KV缓存", "KV 缓存"]
    # the English words keep the space between them: `dead lock` is no `deadlock`
    assert found("dead lock 死锁") == ["dead lock死锁"]
    assert found("缓 存 前缀") == []


# kills: bot/search.py:_matcher (hand) a CJK term typed without a space found only as
#   typed: `“前缀缓存”` did not find 前缀 缓存 (nor a line break there), where `“前缀 缓存”`
#   found 前缀缓存; Chinese writes no space between words, a note may still have one
@pytest.mark.parametrize("quoted", ["{}", '"{}"', "“{}”", "「{}」", "`{}`"])
def test_a_chinese_term_typed_without_a_space_finds_the_text_with_one(quoted):
    texts = ("前缀缓存", "前缀 缓存", "前缀\n缓存", "KV缓存", "KV 缓存", "dead lock死锁")
    texts += ("缓存前缀",)
    notes = [note(f"n-{i}", "短语", f"值得精读。{t}。") for i, t in enumerate(texts)]

    def found(term: str, mode=FILTER) -> list[str]:
        hits = search_notes(notes, quoted.format(term), mode)
        return sorted(texts[int(h.note.id[2:])] for h in hits)

    assert found("前缀缓存") == ["前缀\n缓存", "前缀 缓存", "前缀缓存"]
    assert found("kv缓存") == ["KV 缓存", "KV缓存"]  # beside a Latin letter too
    assert found("dead lock死锁") == ["dead lock死锁"]
    assert found("deadlock死锁") == []  # the English words keep their space
    # the reply's search reads a CJK run the same way
    assert found("前缀缓存", RANKED) == ["前缀\n缓存", "前缀 缓存", "前缀缓存"]


# --- words as readers type them: apostrophes, an English word's other forms ---


# kills: bot/search.py:fold (hand) an apostrophe compared as typed: a phone's keyboard types
#   `mock’s` (U+2019, iOS's smart punctuation), which found no note writing `mock's`, and
#   `vLLM's` found none writing `vLLM’s`
@pytest.mark.parametrize("typed", ["mock's", "mock’s", "mockʼs"])
@pytest.mark.parametrize("written", ["mock's", "mock’s"])
def test_an_apostrophe_is_one_however_it_is_typed(typed, written):
    notes = [
        note(
            "n-1",
            "补齐 mock 配置",
            "值得快速阅读。",
            summary_en=f"Complete the test {written} config.",
        ),
        note("n-2", "其他", "值得快速阅读。", summary_en="Unrelated mocks."),
    ]
    assert ids(search_notes(notes, f"{typed} config", FILTER)) == ["n-1"]
    # a quoted term's curly quotes still go: `‘mock’s’` is `mock's`
    assert ids(search_notes(notes, f"‘{typed}’", FILTER)) == ["n-1"]


def _found_by(typed: str, written: str, mode: SearchMode) -> list[str]:
    """The ids `typed` finds in `mode` among one note whose summary says `written`."""
    notes = [note("n-1", "修复", "值得精读。", summary_en=f"Fixes {written} on ROCm.")]
    return ids(search_notes(notes, typed, mode))


def _about(typed: str, written: str, mode: SearchMode) -> list[str]:
    """The ids `typed` finds in `mode` among a note whose summary says `written` and one
    whose says nothing like it (`_found_by`'s note says "Fixes", which `fix` finds)."""
    notes = [
        note("n-1", "短词", "值得精读。", summary_en=f"About {written} on ROCm."),
        note("n-2", "其他", "值得精读。", summary_en="Unrelated text."),
    ]
    return ids(search_notes(notes, typed, mode))


def _found_cases(pairs, found=_about):
    """Each (typed, written, mode) where `typed` must find `found`'s note saying `written`.
    The filter finds a term inside a longer word whatever the form rules (`_singulars`,
    `_stems`) do (`use` in "used", `unit` in "units"), so a pair runs in the filter only
    where the filter without them misses it, as `_unfound_cases` leaves out what it finds:
    every case that runs can fail."""
    for typed, written in pairs:
        yield pytest.param(typed, written, RANKED, id=f"{typed}-ranked")
        with pytest.MonkeyPatch.context() as no_form_rules:
            no_form_rules.setattr(bot.search, "_singulars", lambda term: [])
            no_form_rules.setattr(bot.search, "_stems", lambda term: [])
            plain = found(typed, written, FILTER) == ["n-1"]
        if not plain:
            yield pytest.param(typed, written, FILTER, id=f"{typed}-filter")


# kills: bot/search.py:_matcher (hand) a plural found only as typed: `deadlocks` found no
#   note whose summary says "a scaling deadlock", nor `CI failures` the one titled "fix
#   the H200 MIG CI failure", `hashes` "hash", `regressions` "regression tests"
_PLURALS = [
    ("deadlocks", "a scaling deadlock"),
    ("failures", "the CI failure"),
    ("hashes", "the prefix hash"),
    ("batches", "one batch"),
    ("processes", "each process"),
    ("queries", "the query"),
    ("GPUs", "one GPU"),
    ("kv-caches", "the KV cache"),
    ("cudagraphs", "a CUDA graph"),
]


# kills: bot/search.py:_matcher (hand) a word found in its own form only: a reader types
#   `preempted` and the note says "preemption", `registering` and the title says
#   "registration", `quantized` "quantization", `capturing` "capture"; each found nothing
_OTHER_FORMS = [
    ("preempted", "after preemption"),
    ("preemption", "requests preempted"),
    ("registering", "the block registration"),
    ("registration", "blocks registered late"),
    ("quantized", "FP8 quantization"),
    ("quantization", "a quantized model"),
    ("capturing", "graph capture"),
    ("capture", "capturing graphs"),
    ("allocation", "blocks allocated"),
    ("committed", "commit order"),
    ("queried", "one query"),
    ("normalised", "normalized logits"),
    ("prefix-caching", "the prefix cache"),
    # a US -ed or -ing finds the British doubled `l`: its stem may have lost an `e`, but
    # only one short syllable's doubling makes another word (`planned` is no `plane`'s)
    ("canceled", "requests cancelled"),
    ("labeling", "PRs labelled ready"),
    ("modeling", "the modelling code"),
    # a doubled `l` as the British write it, or as `control` doubles it, is its verb's
    ("cancelled", "cancel a request"),
    ("modelling", "the model runner"),
    ("controlled", "control flow"),
    # a verb whose -ing keeps its `e` (`queueing`, as vLLM also writes `queuing`)
    ("queueing", "requests queued"),
    ("queuing", "the queueing delay"),
    ("queue", "the queueing delay"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_PLURALS + _OTHER_FORMS)))
def test_an_english_word_finds_its_other_forms(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# what ends in s and is no plural, or whose singular is too short to search by, is found as
# typed only: `class` is no `clas`, `focus` no `focu`, `this` no `thi`, `ops` no `op`, `uses`
# no `us`
@pytest.mark.parametrize("mode", [FILTER, RANKED])
@pytest.mark.parametrize("typed", ["class", "focus", "basis", "ops", "uses", "cases"])
def test_a_word_ending_in_s_that_is_no_plural_is_found_as_typed(typed, mode):
    texts = ("clas", "focu", "basi", "op", "us", "cas", "cast")
    notes = [
        note(f"n-{i}", "文本", f"值得精读。{t} end.", summary_en=t) for i, t in enumerate(texts)
    ]
    assert search_notes(notes, typed, mode) == []


# what is no form of the word stays unfound: an -er noun, -able, a word's own stem as
# another word, a stem too short; identifiers, names with digits, numbers and a quoted
# phrase of the filter are found as typed
_NO_FORMS = [
    ("workers", "the work queue"),
    ("caching", "cacheable blocks"),
    ("valid", "input validation"),
    ("specific", "the specification"),
    ("validation", "a valid input"),
    ("specification", "specifics"),
    ("portion", "the port"),
    ("station", "the state"),
    ("used", "the user"),
    ("adding", "an ad"),
    ("kv_cache", "kv_caching"),
    ("_align_cacheable", "_align_cached"),
    ("fp8s", "fp8ed"),
    ("52419", "524190"),
    ('"preempted requests"', "preemption requests"),
    ("apply", "the web application"),  # in vLLM's notes a program, no form of apply
    ("application", "apply the patch"),
    ("refereed", "referred to"),  # its -ed cut to `refere`, no -ing that kept an `e`
]


def _unfound_cases(pairs, inside=lambda typed: typed):
    """Each (typed, written, mode) that must find nothing: the reply reads a quoted phrase
    as its words, each with its forms, and the filter finds a term inside a longer word
    (`valid` in "validation"; `inside` gives the part of it the filter looks for), so
    those pairs are left out of that mode, not checked there with nothing to fail."""
    for typed, written in pairs:
        for mode, name in ((FILTER, "filter"), (RANKED, "ranked")):
            if mode is RANKED and typed.startswith('"'):
                continue
            if mode is FILTER and inside(typed) in written:
                continue
            yield pytest.param(typed, written, mode, id=f"{typed}-{name}")


def _singular(typed: str) -> str:
    return typed.removesuffix("s")


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NO_FORMS)))
def test_what_is_no_form_of_the_word_is_not_found(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_spellings (hand) a word as typed taking a silent `e` as though it
#   had lost one: `stats` found the shipped note titled "... thinking-budget state ...",
#   `past` "paste", `local` "locale", `suit` "suite": each another word
_NO_SILENT_E = [
    ("stats", "the state object"),
    ("stat", "batch states"),
    ("past", "copy and paste"),
    ("local", "the locale"),
    ("suit", "the test suite"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NO_SILENT_E, _singular)))
def test_a_word_as_typed_takes_no_silent_e(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_OTHER_WORDS_NOUN (hand) an -ion or -ation noun of another word
#   taken for the word's: `products` found the two shipped notes saying "production"
#   (produce's), `integer` "integration" (integrate's), `exception` the prose's "except"
_OTHER_WORDS_ION = [
    ("products", "a mirror of production logic"),
    ("production", "the product of two shapes"),
    ("integer", "integration tests"),
    ("integration", "integer overflow"),
    ("exception", "all ranks except one"),
    ("projection", "the project"),
    ("direction", "direct I/O"),
    ("content", "lock contention"),
    ("contention", "the message content"),
    ("expression", "express"),
    ("objection", "a Python object"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_OTHER_WORDS_ION, _singular)))
def test_another_words_ion_noun_is_no_form_of_the_word(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_stems (hand) an -ed or -ing word cut to a stem that is another
#   word: `stated` found "stat", `graded` "grad", `pasted` "past", `planned` "plane",
#   `meaning` "mean", `evening` "even", `heading` "head", and each word as typed the
#   other way round
WORD_NOTES = [
    note(f"n-{word}", "词", "值得精读。", summary_en=f"Fixes {text} on ROCm.")
    for word, text in {
        "stat": "the stat counters",
        "state": "the state object",
        "stated": "as stated above",
        "grad": "grad accumulation",
        "grade": "grade the outputs",
        "plan": "the execution plan",
        "plane": "the control plane",
        "planned": "as planned",
        "past": "past PRs",
        "paste": "copy and paste",
        "pasted": "code pasted in",
        "mean": "the mean latency",
        "meaning": "the meaning of max_tokens",
        "even": "an even split",
        "evening": "every evening",
        "head": "one attention head",
        "heading": "a Markdown heading",
    }.items()
]
# typed -> the words of WORD_NOTES it finds
_WORD_FINDS = {
    "stated": ["stated", "state"],
    "stating": ["stated", "state"],
    "graded": ["grade"],
    "grading": ["grade"],
    "planned": ["planned", "plan"],
    "planning": ["planned", "plan"],
    "pasted": ["pasted", "paste"],
    "pasting": ["pasted", "paste"],
    "meaning": ["meaning"],
    "evening": ["evening"],
    "heading": ["heading"],
    "states": ["state", "stated"],
}
# a word as typed inside a longer one is found there by the filter, so these are ranked only
_WORD_FINDS_RANKED = {
    "stat": ["stat"],
    "grad": ["grad"],
    "plan": ["plan", "planned"],
    "plane": ["plane"],
    "past": ["past"],
    "mean": ["mean"],
    "even": ["even"],
    "head": ["head"],
}


@pytest.mark.parametrize(
    "typed, words, mode",
    [
        pytest.param(t, w, m, id=f"{t}-{name}")
        for t, w in _WORD_FINDS.items()
        for m, name in ((FILTER, "filter"), (RANKED, "ranked"))
    ]
    + [pytest.param(t, w, RANKED, id=f"{t}-ranked") for t, w in _WORD_FINDS_RANKED.items()],
)
def test_an_ed_or_ing_word_finds_the_stem_it_likely_has(typed, words, mode):
    assert sorted(ids(search_notes(WORD_NOTES, typed, mode))) == sorted(f"n-{w}" for w in words)


# the forms a word as typed does take: `-es` after a sibilant or an `o`, `-ed`, `-ing`
_ES_ED_ING = [("batch", "two batches"), ("hash", "hashes"), ("echo", "echoes"), ("stats", "stat")]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_ES_ED_ING, _found_by)))
def test_a_word_as_typed_finds_its_es_ed_and_ing(typed, written, mode):
    assert _found_by(typed, written, mode) == ["n-1"]


# a note holding the word as typed comes before one holding another of its forms, even
# in a heavier field
@pytest.mark.parametrize("mode", [FILTER, RANKED])
def test_the_word_as_typed_ranks_before_its_other_forms(mode):
    notes = [
        note("n-form", "修复", "值得精读。", title_en="Keep preemption exact", source_pr=2),
        note("n-typed", "修复", "值得精读。requests preempted twice.", source_pr=1),
    ]
    hits = search_notes(notes, "preempted", mode)
    assert ids(hits) == ["n-typed", "n-form"]
    assert [h.as_typed for h in hits] == [1, 0]


# kills: bot/search.py:_MIN_STEM (hand) a verb of three letters had no forms: `fixed` found
#   no note saying "fix", nor `fix` one saying "fixed", `padded` "pad" (its dd cut back to
#   a single only above four letters), `fused` "fuse", `tried` "try"
_SHORT_VERBS = [
    ("padded", "the pad token"),
    ("padding", "pad the inputs"),
    ("pad", "inputs padded to 16"),
    ("pads", "the padding mask"),
    ("fused", "fuse the kernels"),
    ("fusing", "fused MoE"),
    ("fuse", "fusing the norm"),
    ("fixed", "the fix"),
    ("fixing", "fixes"),
    ("fix", "a bug fixed twice"),
    ("added", "add a test"),
    ("tried", "try again"),
    ("try", "retries tried"),
    # a word an -ed or -ing cut to three letters may be: its own forms still found
    ("embed", "embedding the tokens"),
    ("speed", "speeds up"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_SHORT_VERBS)))
def test_a_verb_of_three_letters_finds_its_other_forms(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# kills: bot/search.py:_SHORT_E_STEM (hand) a verb of three letters in -e had no -ed or
#   -ing: `use` found no note saying "used" or "using" (the shipped "kept using the
#   capture-time stride"), nor `used` or `using` one saying "use": their stem `us`, two
#   letters, was too short to be one
_SHORT_E_VERBS = [
    ("use", "the pool is used twice"),
    ("use", "kept using the capture-time stride"),
    ("used", "use the pool"),
    ("used", "using the pool"),
    ("using", "uses the pool"),
    ("uses", "used once"),
    ("re-used", "re-use the blocks"),
    ("age", "aged blocks"),
    ("aging", "the block's age"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_SHORT_E_VERBS)))
def test_a_verb_of_three_letters_in_e_finds_its_other_forms(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# a stem of two letters is one only before an ending, and only a vowel and a consonant as
# a verb in -e has (`us`, `ag`): not `us` itself, nor `do`, `be` or `fe` (`doing` is no
# `doe`, `being` no `bee`, `feed` no `fee`, nor the other way), nor a word without a vowel
# (`the`, `thing`)
# kills: bot/search.py:_SHORT_E_STEM (hand) any word of three letters in -e cut to two:
#   `bee` found "being", `fee` "feed", `doe` "doing" (`the`, its `th` taking no -ing
#   without a vowel, killed nothing)
_NOT_SHORT_E_VERBS = [
    ("used", "for us"),
    ("using", "let us"),
    ("use", "the user"),
    ("doing", "a doe"),
    ("being", "a bee"),
    ("feed", "the fee"),
    ("doe", "doing"),
    ("bee", "being"),
    ("fee", "feed"),
    ("the", "one thing"),
    ("thing", "the"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NOT_SHORT_E_VERBS)))
def test_a_stem_of_two_letters_is_no_other_word(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_has_vowel (hand) a stem of three letters without a vowel:
#   `string` found "str", `per` "pre" (as `register` is `registr`)
# kills: bot/search.py:_inflections (hand) a `y` respelled `i` taking a silent `e`: `tried`
#   found "the trie" once `try` was a stem
# kills: bot/search.py:_cut_stems (hand) one syllable's `ll` cut to a single: `polling`
#   found "pol", `calling` "cal"
_NOT_SHORT_VERBS = [
    ("string", "a str"),
    ("strings", "the str type"),
    ("str", "a string"),
    ("per", "pre-commit"),
    ("tried", "a prefix trie"),
    ("try", "a prefix trie"),
    ("trie", "tried twice"),
    ("trie", "trying"),
    ("polling", "the pol value"),
    ("pol", "polling"),
    ("calling", "one cal"),
    ("stalled", "stal"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NOT_SHORT_VERBS, _singular)))
def test_a_short_stem_is_no_other_word(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_SHORT_IE (hand) a verb of one syllable in -ie had no forms: `tying`
#   found no note saying "tie" (an -ie verb writes `y` before -ing), nor `tie` one saying
#   "tying" or "tied", `dying` "dies"
_IE_VERBS = [
    ("tying", "tie the embeddings"),
    ("tying", "tied embeddings"),
    ("tied", "weight tying"),
    ("tie", "weight tying"),
    ("tie", "tied embeddings"),
    ("ties", "tying"),
    ("weight-tying", "the weight tied"),
    ("untie", "untying"),
    ("dying", "the worker dies"),
    ("lie", "lying"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_IE_VERBS)))
def test_a_verb_in_ie_finds_its_ying(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# kills: bot/search.py:_inflections (hand) a consonant's `y` taking -ed: `dying` found
#   "dyed", dye's
@pytest.mark.parametrize(
    "typed, written, mode", list(_unfound_cases([("dying", "dyed"), ("die", "dyed")]))
)
def test_a_verb_in_ie_finds_no_other_word(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_IC_K (hand) a verb in -ic had no -ed or -ing: `panicked` found no
#   note saying "panic", nor `panic` one saying "panicked" (its `c` doubled as `ck`)
_IC_VERBS = [
    ("panicked", "a panic"),
    ("panicking", "panics"),
    ("panic", "the worker panicked"),
    ("panics", "panicking"),
    ("mimicked", "mimic the API"),
    ("mimic", "mimicking"),
    ("trafficking", "traffic"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_IC_VERBS)))
def test_a_verb_in_ic_finds_its_ck(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# kills: bot/search.py:_doubled (hand) one syllable's `ck` cut to `c`, or a `c` doubled there:
#   `picked` found "pic", `docked` "doc", `doc` "docked", `blocked` "bloc"; nor a soft `c`
#   before a lost `e` (`replaced` is no `replacked`)
_NOT_IC_VERBS = [
    ("picked", "a pic"),
    ("docked", "the doc"),
    ("doc", "docked"),
    ("blocked", "a bloc"),
    ("bloc", "blocked"),
    ("cherry-picked", "cherry-pic"),
    ("replaced", "replacked"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NOT_IC_VERBS)))
def test_a_ck_of_one_syllable_is_its_own(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# kills: bot/search.py:_forms (hand) a pattern for each stem: `tie`'s `ti` and `ty` (as
#   `tying`) each read a long guidance again, and `tie` took three times as long
@pytest.mark.parametrize("words", [True, False])
def test_a_words_forms_are_one_pattern(words):
    assert len(bot.search._matcher("tie", words).forms) == 1
    assert len(bot.search._matcher("batches", words).forms) == 1  # its singulars' stems too


def _a_pattern_a_stem(terms, before, end):
    s = bot.search
    return tuple(
        re.compile(
            "".join(s._compound_parts(stem.text, before, s._spellings(stem, t == stem.text) + end))
        )
        for t in terms
        for stem in s._stems(t)
    )


def test_a_words_forms_in_one_pattern_find_what_a_pattern_each_did(monkeypatch):
    pairs = [
        *_OTHER_FORMS,
        *_SHORT_VERBS,
        *_NOT_SHORT_VERBS,
        *_IE_VERBS,
        *_IC_VERBS,
        *_NOT_IC_VERBS,
    ]
    written = sorted({w for _, w in pairs})
    notes = [note(f"n-{i}", "形式", f"值得精读。{w}") for i, w in enumerate(written)]
    queries = sorted({t for t, _ in pairs} | {w for w in written if " " not in w})

    def found() -> list[list[tuple[str, int, float, int]]]:
        return [
            [(h.note.id, h.terms, h.score, h.as_typed) for h in search_notes(notes, q, mode)]
            for q in queries
            for mode in (RANKED, FILTER)
        ]

    now = found()
    monkeypatch.setattr(bot.search, "_forms", _a_pattern_a_stem)
    assert now == found()
    assert sum(h[3] == 0 for hits in now for h in hits) > 100  # found as another form


# kills: bot/search.py:_OTHER_WORDS_ED_ING (hand) a word whose -ed and -ing are another
#   word's took them, no spelling telling `unit` from `limit`, `can` from `pin`: `unit`
#   found "united" and "uniting" (unite's), `can` (the shipped "a CI fix you can skip")
#   "canned" and "canning", `will` "willing", `but` "butted" (butt's); nor the other way
_NOT_ED_ING = [
    ("unit", "the united states"),
    ("unit", "uniting the pools"),
    ("units", "united"),
    ("united", "unit tests"),
    ("uniting", "two units"),
    ("can", "canned responses"),
    ("can", "canning"),
    ("canned", "a CI fix you can skip"),
    ("will", "a willing reviewer"),
    ("willing", "what it will run"),
    ("but", "butted"),
    ("butting", "but"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NOT_ED_ING, _singular)))
def test_a_words_ed_and_ing_that_are_anothers_are_not_found(typed, written, mode):
    assert _found_by(typed, written, mode) == []


# what those words still find: their plural, and the other word its own forms; a word
# no list names keeps its -ed and -ing, doubled or not
_STILL_FOUND = [
    ("unit", "two units"),
    ("units", "a unit test"),
    ("united", "unite the pools"),
    ("uniting", "united"),
    ("limit", "a limited pool"),
    ("pin", "pinned memory"),
    ("canned", "canning"),
]


@pytest.mark.parametrize("typed, written, mode", list(_found_cases(_STILL_FOUND)))
def test_those_words_still_find_their_other_forms(typed, written, mode):
    assert _about(typed, written, mode) == ["n-1"]


# kills: bot/search.py:_OTHER_WORDS_S (hand) a word's -s another word: `new` found "news"
#   and `news` "new", `doe` "does" (do's) and `does` "doe"
# kills: bot/search.py:_spellings (hand) a word in -s took a bare -s: `mis` found "miss"
# kills: bot/search.py:_doubled (hand) one syllable's `s` doubled: `mis` found "missed" and
#   "missing" (miss's: one syllable's `ss` is its own, as its `ll`)
_NOT_S_FORMS = [
    ("new", "the news"),
    ("news", "a new cache"),
    ("doe", "what it does"),
    ("does", "a doe"),
    ("mis", "a miss"),
    ("mis", "the hit missed"),
    ("mis", "missing keys"),
]


@pytest.mark.parametrize("typed, written, mode", list(_unfound_cases(_NOT_S_FORMS)))
def test_a_word_in_s_and_its_plural_are_told_apart(typed, written, mode):
    assert _found_by(typed, written, mode) == []

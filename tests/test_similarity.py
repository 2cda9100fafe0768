"""Title similarity: words, their rarity, the vocabulary file and its builder."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config_files import load_vocabulary
from bot.prfacts import PRFacts
from bot.reasons import shared_detail
from bot.similarity import (
    Vocabulary,
    build_vocabulary,
    names_in,
    only_uncounted_words,
    shared_words,
    title_words,
    written_form,
)

ROOT = Path(__file__).resolve().parent.parent


def test_title_words_split_identifiers_and_drop_plurals_numbers_and_function_words():
    assert title_words("Fix the MegaMoE call in KVConnectorStats (#123)") == {
        "fix",
        "mega",
        "moe",
        "call",
        "kv",
        "connector",
        "stat",
    }
    assert title_words("InputBatch.swap_states for LoRA adapters on DSv4") == {
        "input",
        "batch",
        "swap",
        "state",
        "lora",
        "adapter",
        "dsv4",
    }
    assert title_words("a 2 x of") == frozenset()
    assert title_words("class address") == {"class", "address"}  # no "clas"


def test_a_word_is_quoted_as_written_in_the_title_and_no_more_than_the_note_says():
    title = "Narrow DeepSeek V4 region in InputBatch.swap_states (#12)"
    note = names_in("Pick the DeepSeek V4 eager region per InputBatch")
    assert written_form(title, "seek", note) == "DeepSeek"  # the note writes it too
    assert written_form(title, "v4", note) == "V4"  # the word alone
    assert written_form(title, "batch", note) == "InputBatch"
    # the note's title does not write `swap_states`: only the word shared is quoted
    assert written_form(title, "state", note) == "states"
    assert written_form(title, "state", names_in("swap_states")) == "swap_states"
    # a letter glued to the word is no word of its own (`DSpark`: "d" and "spark")
    assert written_form("Fix DSpark_config loading", "spark", frozenset()) == "DSpark"
    assert written_form("Fix CMake", "make", frozenset()) == "CMake"
    # a function word is a word, though not counted: `ec_both` is more than `ec`
    assert written_form("Add ec_both role", "ec", frozenset()) == "ec"
    assert written_form("Add ec_both role EC connector", "ec", frozenset()) == "EC"
    # the same name in another case is the same name, quoted as the title writes it
    # ('Deep', 'Gemm' of the title's `DeepGemm` for a note writing `DeepGEMM`)
    assert written_form("Fix DeepSeek", "seek", names_in("Deepseek")) == "DeepSeek"
    assert written_form("Fix DeepGemm", "deep", names_in("DeepGEMM")) == "DeepGemm"
    # a name the note writes inside the title's is quoted whole, never a syllable of it
    assert written_form("DeepSeekV4-Pro", "deep", names_in("DeepSeek V4")) == "DeepSeek"
    assert written_form("Fix DeepSeeking", "deep", names_in("DeepSeek")) == "Deep"  # no cut
    # a name all of whose words are quoted with it from the note (`deep_gemm`)
    along = frozenset({"deep", "gemm"})
    assert written_form("Respect DeepGemm", "gemm", names_in("deep_gemm"), along) == "DeepGemm"
    assert written_form("Respect DeepGemm", "gemm", names_in("deep_gemm")) == "Gemm"
    # no written form (the Kelvin sign lower-cases to an ASCII k): the word itself
    assert written_form("Fix \u212aV cache", "kv", frozenset()) == "kv"


def test_a_similar_titles_reason_quotes_only_what_the_note_says():
    # reasons.shared_detail quoted the whole PR identifier a shared word was read from
    # ("title shares 'get_kv_connector_stats' with this note's title" for a note whose
    # title says "KV connector stats")
    facts = PRFacts(repo="o/r", number=1, title="[NIXL] Fix connector_worker in get_kv_stats")
    title = "Aggregate KV connector stats"
    keywords = "get_kv_stats connector worker"
    detail = shared_detail(
        ["stat", "worker"], title_words(title), (names_in(title), names_in(keywords)), facts
    )
    assert detail == (
        "title shares 'stats' with this note's title and 'worker' with terms it is about"
    )
    detail = shared_detail(["stat"], frozenset(), (names_in(title), names_in(keywords)), facts)
    assert detail == "title shares 'get_kv_stats' with terms this note is about"


def test_rare_words_weigh_more_and_unseen_words_most():
    vocab = Vocabulary(titles=1000, df={"fix": 500, "eager": 5})
    assert vocab.idf("fix") < vocab.idf("eager") < vocab.idf("never-seen")


def test_shared_words_keep_rare_ones_rarest_first():
    vocab = Vocabulary(titles=1000, df={"fix": 500, "graph": 40, "eager": 5})
    pr, note = title_words("Fix eager graph region"), title_words("Eager CUDA graph region")
    words = [w for w, _ in shared_words(pr, note, vocab, floor=3.0)]
    assert words == ["region", "eager", "graph"]  # `fix` is below the floor, and not shared
    assert [w for w, _ in shared_words(pr, note, vocab, floor=4.0)] == ["region", "eager"]


def test_build_vocabulary_counts_titles_not_occurrences():
    vocab = build_vocabulary(["Fix fix graph", "Fix eager", "Add graphs"], min_count=2)
    assert vocab == {"titles": 3, "df": {"fix": 2, "graph": 2}}


def test_load_vocabulary_names_the_file_and_field(tmp_path):
    good = tmp_path / "v.json"
    good.write_text(json.dumps({"titles": 10, "df": {"eager": 2}}))
    assert load_vocabulary(good).df == {"eager": 2}
    for content, field in [
        ("not json", "cannot read"),
        (json.dumps({"df": {}}), "'titles'"),
        (json.dumps({"titles": 3, "df": {"x": 9}}), "'df'"),
        (json.dumps([1, 2]), "'titles'"),
    ]:
        bad = tmp_path / f"bad{len(content)}.json"
        bad.write_text(content)
        with pytest.raises(ValueError, match=field) as err:
            load_vocabulary(bad)
        assert str(bad) in str(err.value)
    with pytest.raises(ValueError, match="cannot read"):
        load_vocabulary(tmp_path / "missing.json")


def test_build_script_reads_squash_merged_titles_from_git(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    for subject in [
        "[Bugfix] Fix eager region (#10)",
        "Narrow eager graphs (#11)",
        "local commit without a PR number",
        "[Bugfix] Fix eager region (#10)",  # a cherry-pick: the same PR counts once
    ]:
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", subject], check=True)
    out = tmp_path / "vocab.json"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_title_vocabulary.py"),
            "--git",
            str(repo),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    vocab = json.loads(out.read_text())
    assert vocab["titles"] == 2
    assert vocab["df"] == {"eager": 2}  # fix/region/graph/narrow/bugfix occur once
    assert "vllm-project/vllm" in vocab["source"]
    assert load_vocabulary(out).titles == 2


def test_shipped_vocabulary_loads_and_knows_common_words():
    vocab = load_vocabulary(ROOT / "config" / "title_vocabulary.json")
    assert vocab.titles > 10_000
    assert vocab.idf("fix") < 2 < 5 < vocab.idf("watermarking")


# --- shared words: their forms, quotes and rarity ---


# kills: bot/similarity.py:title_words `len(word) > 3` -> `len(word) > 2`
def test_a_three_letter_word_ending_in_s_keeps_its_s():
    assert title_words("bus gas ops") == {"bus", "gas", "ops"}
    assert title_words("graphs") == {"graph"}


# kills: bot/similarity.py:only_uncounted_words non-ASCII letters guard -> `if False:`
def test_a_text_with_other_letters_is_not_only_uncounted_words():
    assert not only_uncounted_words("P/D 分离")
    assert only_uncounted_words("in the")


# kills: bot/similarity.py:only_uncounted_words drop `and not title_words(text)`
def test_a_text_with_counted_words_is_not_only_uncounted_words():
    assert not only_uncounted_words("prefix cache")


# kills: bot/similarity.py:written_form `if not piece and at is not None:` -> `if at is not None:`
def test_a_shared_word_is_quoted_from_its_first_name_in_the_title():
    # both names write `stats` among other words; the first one's piece is the quote
    assert written_form("kv_stats_x and CStats_foo", "stat", frozenset()) == "stats"


# kills: bot/similarity.py:shared_words `i >= floor` -> `i > floor`
def test_a_word_exactly_as_rare_as_the_floor_counts():
    vocab = Vocabulary(titles=99, df={"region": 9})
    floor = vocab.idf("region")
    assert shared_words(frozenset({"region"}), frozenset({"region"}), vocab, floor) == [
        ("region", floor)
    ]


# kills: bot/reasons.py:shared_detail words shared with the note's title quoted as its keywords
# write them
# kills: bot/reasons.py:shared_detail words shared with the keywords quoted as the note's title
# writes them
# kills: bot/reasons.py:shared_detail.quoted two words read from one identifier quote it twice
def test_each_shared_word_is_quoted_as_the_part_of_the_note_it_comes_from_writes_it():
    facts = PRFacts(repo="o/r", number=1, title="Fix get_kv_stats in connector_worker")
    title, keywords = "get_kv_stats aggregation", "connector_worker"
    names = (names_in(title), names_in(keywords))
    # the note's title writes `get_kv_stats`, its keywords do not: quoted whole
    detail = shared_detail(["stat"], title_words(title), names, facts)
    assert detail == "title shares 'get_kv_stats' with this note's title"
    # the keywords write `connector_worker`, the title does not: quoted whole
    detail = shared_detail(["stat", "worker"], title_words(title), names, facts)
    assert detail == (
        "title shares 'get_kv_stats' with this note's title and 'connector_worker' with terms"
        " it is about"
    )
    # `kv` and `stat` both read from `get_kv_stats`: one quote
    detail = shared_detail(["kv", "stat"], title_words(title), names, facts)
    assert detail == "title shares 'get_kv_stats' with this note's title"


# kills: bot/similarity.py:written_form the glue to the left of a name's first piece wrapping round
# to its last piece; :written_form what is glued on the right being words, not what is no word, or
# stopping one piece short; :written_form the glue on the right skipping a piece
def test_a_shared_word_is_quoted_with_the_uncounted_word_glued_after_it():
    # `Up` is a function word: `setUp` is `set`'s own piece, not `set` alone nor `Up`
    assert written_form("Fix the flaky setUp of the scheduler tests", "set", frozenset()) == "setUp"
    # a word after it is a piece of its own
    assert written_form("Fix KVConnectorStats", "connector", frozenset()) == "Connector"


# kills: bot/similarity.py:Vocabulary.idf a title count or a missing word's count one off in the IDF
def test_a_words_rarity_is_the_log_of_titles_over_those_that_write_it_each_plus_one():
    vocab = Vocabulary(titles=99, df={"region": 9})
    assert vocab.idf("region") == pytest.approx(math.log(100 / 10))
    assert vocab.idf("watermarking") == pytest.approx(math.log(100))  # never seen: rarest


# kills: bot/similarity.py:shared_words words of equal rarity left in the sets' order (which string
# hashing changes from run to run) instead of alphabetical
def test_words_of_equal_rarity_are_shared_in_alphabetical_order():
    words = frozenset("eager region capture graph kernel stream fence queue warmup shard".split())
    vocab = Vocabulary(titles=99, df={})
    shared = shared_words(words, words, vocab, 1.0)
    assert [w for w, _ in shared] == sorted(words)


# kills: bot/config_files.py:load_vocabulary a vocabulary of one title refused
# kills: bot/config_files.py:load_vocabulary a word counted in no title refused
# kills: bot/config_files.py:load_vocabulary a vocabulary with one good count among bad ones taken
def test_load_vocabulary_takes_every_count_from_0_to_titles_and_no_other(tmp_path):
    good = tmp_path / "one.json"
    good.write_text(json.dumps({"titles": 1, "df": {"never": 0, "always": 1}}))
    assert load_vocabulary(good).df == {"never": 0, "always": 1}
    for name, content, field in [
        ("none", {"titles": 0, "df": {}}, "'titles'"),
        ("negative", {"titles": 3, "df": {"x": -1}}, "'df'"),
        ("one-bad", {"titles": 3, "df": {"a": 1, "x": 9}}, "'df'"),
    ]:
        bad = tmp_path / f"{name}.json"
        bad.write_text(json.dumps(content))
        with pytest.raises(ValueError, match=field):
            load_vocabulary(bad)

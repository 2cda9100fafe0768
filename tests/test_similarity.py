"""Title similarity: words, their rarity, the vocabulary file and its builder."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config_files import load_vocabulary
from bot.similarity import (
    Vocabulary,
    build_vocabulary,
    shared_words,
    title_words,
    word_forms,
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


def test_a_word_is_quoted_as_written_in_the_title():
    forms = word_forms("Narrow DeepSeek V4 region in InputBatch.swap_states (#12)")
    assert forms["seek"] == "DeepSeek" and forms["v4"] == "V4"
    assert forms["state"] == "swap_states" and forms["batch"] == "InputBatch"
    assert set(forms) == title_words("Narrow DeepSeek V4 region in InputBatch.swap_states")


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

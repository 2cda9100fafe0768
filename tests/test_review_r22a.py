"""Failing tests for defects found by mutation run 'r22a' (bot/globs.py, pathindex, terms,
note_terms, relations, similarity, comment_plan).

Each test is one defect: the comment above it says what a user sees and why it is wrong.
"""

from __future__ import annotations

import pytest

from bot.terms import TermIndex

# --- a keyword inside a longer keyword that starts with its plural -------------------------


# Found beside the mutants: a check that an index of many keywords finds each one where an
# index of that keyword alone does (bot/terms.py: "overlapping hits are all reported").
# The trie regex reports the longest keyword at a position; `_prefix_keys` re-checks the
# keywords that are its leading words, compared as written. A keyword whose leading words
# hold another's plural (`cuda_archs_loose_intersection` against `CUDA arch`) is not
# re-checked, so the shorter one is lost wherever the longer one matches, though alone it
# matches there (`cuda_archs`, its plural), and does when the longer one writes it singular
# (`cuda_arch_list`). The shipped library holds this pair: the cmake-build topic's keyword
# and note vllm-6e24c63c's aspect `CUDA arch`, and that note's keyword
# `cuda_archs_loose_intersection`. What a curator sees: the title "Fix
# cuda_archs_loose_intersection for SM120" gives no "title mentions 'cuda_archs'" for the
# topic, while "Fix CUDA archs for SM120" does.
@pytest.mark.xfail(
    strict=True,
    reason="r22a: a keyword is lost where a longer keyword starting with its plural matches",
)
def test_a_keyword_is_found_inside_a_longer_keyword_that_starts_with_its_plural():
    title = "Fix cuda_archs_loose_intersection for SM120"
    assert set(TermIndex(["CUDA arch"]).find(title)) == {"cudaarch"}  # alone: found
    # written singular in the longer keyword: both found
    both = TermIndex(["CUDA arch", "cuda_arch_list"]).find("Fix cuda_arch_list")
    assert set(both) == {"cudaarch", "cudaarchlist"}
    # written plural: the shorter one is lost
    found = TermIndex(["CUDA arch", "cuda_archs_loose_intersection"]).find(title)
    assert set(found) == {"cudaarch", "cudaarchslooseintersection"}
    assert found["cudaarch"].text == "cuda_archs"


# --- "cannot" denies as "can't" does ---------------------------------------------------------


# Found beside the mutants, probing what bot/relations.py's `_DENIED` reads as a denial
# ("does not fix #1", "isn't a follow-up to #3": the words just before the phrase deny
# it). It knows `not` as a word of its own (`\bnot`) and `n't`, so "can't fix #5" is no
# relation, but "cannot fix #5", the same words written as one, reads as "fixes #5" (`not`
# inside `cannot` has no word edge). What a PR author sees: a description saying "This
# cannot fix #5 on its own" gets a sticky comment that shows #5's notes as the notes of
# the PR it fixes (bot.sticky.related_notes gives the relation as the reason).
def test_cannot_denies_a_relation_as_cant_does():
    from bot.relations import related_refs

    repo = "vllm-project/vllm"
    assert related_refs("This can't fix #5 on its own; see below.", repo) == []
    assert related_refs("This cannot fix #5 on its own; see below.", repo) == []
    assert related_refs("This doesn’t fix #5 on its own; see below.", repo) == []
    assert related_refs("This should fix #5.", repo)[0].number == 5  # a tie still

"""What the notes comment's "Why this note" lines say on real vLLM PRs, read as a vLLM
reviewer reads them (bot/reasons.py; defects found by a reader's review). Each test
builds a real PR's facts (title and changed files as GitHub lists them), matches it
against the shipped notes and checks a property of the reasons a reader sees; none
checks which notes are linked or their scores (the PRs below all get a note today; a PR
that got none would show no reasons)."""

from __future__ import annotations

import json
import random
import re

import pytest

from bot.library import ROOT, load_library
from bot.match_config import load_match_config
from bot.matching import match_pr
from bot.prfacts import PRFacts
from bot.reasons import ALSO_IN
from bot.render import NoteLinks, RenderOptions, render
from bot.similarity import title_words, written_form
from bot.terms import _balanced
from tests.webhook_kit import MATCHING_FILES

LIB = load_library()
CFG = load_match_config()
OPTS = RenderOptions(links=NoteLinks(base_url="https://notes.example.org"))

QUOTE = re.compile(r"'([^']*)'")
GRADED = ROOT / "bench" / "graded"


def also_said_of(line: str, side: str) -> list[str]:
    """What a line says is "also in this note's <side>": the words its gloss names
    ("'warmup' also in this note's title"), else every name the line quotes."""
    cut = line.find("' (")
    claim, gloss = (line[: cut + 1], line[cut + 2 :]) if cut >= 0 else (line, "")
    where = ALSO_IN[side]
    named = re.search(rf"((?:'[^']+', )*'[^']+') also in {re.escape(where)}", gloss)
    return QUOTE.findall(named.group(1) if named else claim)


def reasons_of(title: str, files: tuple[str, ...] = (), number: int = 1) -> list[str]:
    """Every reason line of every note the PR gets, as the comment lists them."""
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=number,
        title=title,
        files=files,
        changed_files=len(files) if files else None,
    )
    res = match_pr(facts, LIB, CFG)
    assert res.matches, "the PR gets no note any more: pick another real PR"
    body = render(res, LIB, opts=OPTS)
    assert "Why this note" in body
    return [r for m in res.matches for r in m.reasons]


def reasons_by_note(title: str, files: tuple[str, ...] = ()) -> list[list[str]]:
    facts = PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files)
    res = match_pr(facts, LIB, CFG)
    assert res.matches, "the PR gets no note any more: pick another real PR"
    return [list(m.reasons) for m in res.matches]


def claim(reason: str) -> str:
    """A reason without its gloss in parentheses, and without the `'` of "note's"."""
    return reason.split(" (", 1)[0].replace("note's", "note")


def quoted_title_words(reason: str) -> set[str]:
    """The title words a reason line quotes (`prefix-cache` is `prefix` and `cache`)."""
    if not reason.startswith("title "):
        return set()
    return {
        w for q in QUOTE.findall(claim(reason)) for w in re.split(r"[^a-z0-9_]+", q.lower()) if w
    }


# --- 1. the same title word named on two lines ----------------------------------------


def each_word_once(title: str, reasons: list[str]) -> None:
    """No title word is quoted by two of a note's reason lines (their glosses aside)."""
    seen: dict[str, str] = {}
    for line in reasons:
        for word in quoted_title_words(line):
            assert word not in seen, f"{title!r}: {word!r} quoted twice:\n  {seen[word]}\n  {line}"
            seen[word] = line


def test_a_title_word_is_named_on_one_reason_line():
    """PR from the README ("[Core] Keep prefix-cache hits for EAGLE after preemption",
    changes vllm/v1/core/kv_cache_coordinator.py) and PR 52445 ("[Bugfix][Model] Kimi-K3
    MegaMoE: pass situ_beta/situ_linear_beta to fp8_fp4_mega_moe"). The reader sees

        - title mentions 'hits' (what this note teaches of Prefix caching ...)
        - title shares 'hits', 'Keep', 'EAGLE', 'prefix' with this note's title
        - title mentions 'EAGLE' (topic: Speculative decoding)
        - title mentions 'prefix-cache' (topic: Prefix caching and KV cache manager)

    'hits', 'EAGLE' and 'prefix' each twice; on 52445 'situ_beta' is a keyword line and
    again in the "title shares" line. Four or five lines that are really two pieces of
    evidence read as padding, and contradict bot/reasons.py's own promise ("each file or
    word named once, with every reason it counts for"). The "title shares" line is a
    plain string, so `reasons._one_per_thing` cannot merge it with the other lines."""
    for title, files in (
        (
            "[Core] Keep prefix-cache hits for EAGLE after preemption",
            ("vllm/v1/core/kv_cache_coordinator.py",),
        ),
        (
            "[Bugfix][Model] Kimi-K3 MegaMoE: pass situ_beta/situ_linear_beta to fp8_fp4_mega_moe",
            (),
        ),
    ):
        for reasons in reasons_by_note(title, files):
            each_word_once(title, reasons)


# --- 2. a fragment of a name quoted as a shared word ----------------------------------


def test_a_shared_word_is_not_a_fragment_cut_out_of_a_name():
    """PR 47261 "[Bugfix] Respect DeepGemm disable state during warmup" reads

        - title mentions 'DeepGemm' (topic: FP8 kernels and DeepGEMM)
        - title shares 'warmup' with this note's title and 'Gemm', 'Deep' with terms it is about

    and PR 42604 "DeepSeekV4-Pro enable cuda graph full and piecewise mode" reads
    "title shares 'Deep', 'graph', 'cuda' with this note's title". Neither title writes
    'Deep' or 'Gemm' as a word: they are halves of `DeepGemm` and `DeepSeekV4`, quoted
    back to front in 47261 (the note writes `DeepGEMM` and `DeepSeek`). A reviewer reads
    "the title shares 'Deep'" as the bot matching on a meaningless syllable. The name
    should be quoted whole ('DeepGemm', 'DeepSeek'). Cause: `similarity.written_form`
    quotes each word's own piece when the note does not write the title's name exactly
    (case-sensitive `name in said`; no prefix `DeepSeek` of `DeepSeekV4`)."""
    for title, files in (
        ("[Bugfix] Respect DeepGemm disable state during warmup", ()),
        (
            "DeepSeekV4-Pro enable cuda graph full and piecewise mode",
            ("vllm/v1/attention/backends/mla/rocm_aiter_mla_sparse_dsv4.py",),
        ),
    ):
        for line in reasons_of(title, files):
            quotes = QUOTE.findall(claim(line))
            assert "Deep" not in quotes and "Gemm" not in quotes, f"{title!r}: {line}"


# --- 3. shared words out of the title's order -----------------------------------------


def test_shared_words_are_quoted_in_the_order_the_title_writes_them():
    """The README's own example, "[Core] Keep prefix-cache hits for EAGLE after
    preemption", read "title shares 'hits', 'Keep', 'EAGLE', 'prefix' with this note's
    title"; PR 28294 "[Bugfix] Adjust Marlin CUDA arch selection to 8.0+PTX;9.0+PTX"
    read "... and 'arch', 'CUDA' with terms it is about" (the title says "CUDA arch"). A list
    of words a title "shares" in scrambled order reads like a word salad; in the title's
    order the reader recognises the phrase. Cause: `reasons.shared_detail` kept the
    rarity order of `similarity.shared_words`. Checked on every such line of two graded
    sets of real PRs."""
    checked = 0
    for name in ("natural_traffic_4", "notes_era_1"):
        for line in (GRADED / f"{name}.jsonl").read_text("utf-8").splitlines():
            pr = json.loads(line)
            facts = PRFacts(
                repo="vllm-project/vllm",
                number=pr["number"],
                title=pr["title"],
                files=tuple(pr.get("files") or ()),
            )
            for m in match_pr(facts, LIB, CFG).matches:
                for reason in m.reasons:
                    if not reason.startswith("title shares "):
                        continue
                    for part in re.split(
                        r" with this note's title and | with terms it is about", reason
                    ):
                        words = QUOTE.findall(part.replace("note's", "note"))
                        at = [facts.title_text.lower().find(w.lower()) for w in words]
                        assert at == sorted(at), f"{pr['title']!r}: {reason}"
                        checked += 1
    assert checked > 10


# --- 4. a test file named where the PR changes the code -------------------------------


def test_a_changes_line_names_the_code_rather_than_a_test():
    """PR 17398 "[v1][Spec Decode] Make sliding window compatible with eagle prefix
    caching" changes vllm/v1/core/kv_cache_manager.py and its tests; the reader sees

        - changes tests/v1/core/test_prefix_caching.py and 1 more file (topic: Prefix caching ...)

    The one file named is the test, the one that says least (docs/matching.md: topic examples and
    tests "weigh less"); the kv_cache_manager.py change that makes the PR a prefix-caching
    PR is hidden in "1 more file". 30 such lines over the graded sets (tests/ sorts before
    vllm/). Cause: `matching.CompiledMatcher` topic evidence calls `reasons.changes(files)`
    with the files in the PR's (alphabetical) order; it should name a file that is not an
    aux file (`config.aux_files`) first."""
    files = (
        "tests/v1/core/test_prefix_caching.py",
        "tests/v1/core/test_specialized_manager.py",
        "vllm/v1/core/kv_cache_manager.py",
        "vllm/v1/core/specialized_manager.py",
    )
    title = "[v1][Spec Decode] Make sliding window compatible with eagle prefix caching"
    named = [
        claim(line).removeprefix("changes ").split(" and ")[0]
        for line in reasons_of(title, files, number=17398)
        if line.startswith("changes ") and re.search(r" and \d+ more files?\b", line)
    ]
    assert named and not any(n.startswith("tests/") for n in named), named


# --- 5. the aspect gloss --------------------------------------------------------------


def test_the_aspect_gloss_says_why_the_word_counts_in_plain_english():
    """PR 47404 "[ROCm] Synchronize sparse MLA metadata before graph replay" reads

        - title mentions 'metadata' (what this note teaches of CUDA graphs)

    and PR 48153 "[Model] Migrate MistralLarge3ForCausalLM to AutoWeightsLoader" reads
    "title mentions 'Loader' (what this note teaches of Speculative decoding)". "Teaches
    of" is not idiomatic English, and the parenthesis reads as a claim that the note
    teaches "metadata" (or "Loader") - a reviewer cannot tell that it means "this note's
    angle on CUDA graphs is metadata, and this PR shows that topic". The aspect line is
    also usually the first reason (92 of ~580 linked notes). Cause: `reasons.ASPECT`;
    something like "(the part of CUDA graphs this note is about)" says it."""
    for title, files in (
        ("[ROCm] Synchronize sparse MLA metadata before graph replay", ()),
        (
            "[Model] Migrate MistralLarge3ForCausalLM to AutoWeightsLoader",
            ("vllm/model_executor/models/mistral_large_3_eagle.py",),
        ),
    ):
        for line in reasons_of(title, files):
            assert "teaches of" not in line, line


def test_a_notes_terms_and_aspects_are_glossed_in_plain_words():
    """Read as a reviewer reads the comment, "title mentions 'partial-hash-hit' (keyword of
    this note)", "'Draft' also in this note's keywords" and "(this note's focus within CUDA
    graphs)" are the curators' words (a note's keywords, its aspects), which a reviewer has
    to decode. The glosses say what they are, the keyword and its "also in" form in the same
    words, as the note page's labels say them."""
    lines = {
        line
        for title, files in (
            ("[ROCm] Synchronize sparse MLA metadata before graph replay", ()),
            (
                "[CI] Shard (H200 MIG 18GB) Spec Decode Draft Model across whole-directory"
                " replicas",
                (".buildkite/test_areas/spec_decode.yaml",),
            ),
            ("[Bugfix] Keep EAGLE prefix-cache registration on the partial-hash-hit path", ()),
        )
        for line in reasons_of(title, files)
    }
    assert "title mentions 'metadata' (a subject of this note, under CUDA graphs)" in lines
    assert (
        "title mentions 'Draft Model' ('Draft' also in a term this note is about;"
        " topic: Speculative decoding)"
    ) in lines
    assert (
        "title mentions 'partial-hash-hit' (a term this note is about; also in this note's title)"
    ) in lines
    for line in lines:
        assert "keyword" not in line and "focus" not in line, line


# --- 6. the decisive tie listed under weaker evidence ---------------------------------

TIES = ("this note lists this PR as one to read with it", "refers to PR ", "refers to issue ")


def test_a_tie_the_curator_made_is_the_first_reason():
    """PR 56233 "[watermarking] context deduplication during generation" reads

        - title is tagged [watermarking] (topic: Watermarking)
        - this note lists this PR to read with its own
        - title mentions 'deduplication' (what this note teaches of Watermarking)

    and PR 49994 "[EC Connector] EC Offloading Connector use events instead of
    StepTracker" puts "title is tagged [EC Connector]" above "this note lists this PR to
    read with its own" too (9 PRs of the graded sets: 51430, 51768, 53782, 56393...). The
    curator naming this very PR (or the PR or issue it refers to) is what links the note
    whatever the words (`matching._ties`: "each is enough alone"); a tag any PR of the
    subsystem carries is the weakest reason, yet comes first. The source-PR line is put
    first (`_score_note`); the other ties go through `reasons.reason_lines`' weight sort
    with the title words and take its place among them."""
    for number, title in (
        (56233, "[watermarking] context deduplication during generation"),
        (49994, "[EC Connector] EC Offloading Connector use events instead of StepTracker"),
    ):
        facts = PRFacts(repo="vllm-project/vllm", number=number, title=title)
        res = match_pr(facts, LIB, CFG)
        tied = [m for m in res.matches if any(r.startswith(TIES) for r in m.reasons)]
        assert tied, f"PR {number} no longer gets the note that lists it"
        for m in tied:
            assert m.reasons[0].startswith(TIES), f"PR {number}: {list(m.reasons)}"


# --- the "title shares" line: what it says, in which order, at what weight ------------

ALSO_TITLE = "also in this note's title;"  # the title alone (not "title and keywords")


def _matches(number: int, title: str, files: tuple[str, ...] = ()):
    facts = PRFacts(repo="vllm-project/vllm", number=number, title=title, files=files)
    res = match_pr(facts, LIB, CFG)
    assert res.matches, f"PR {number} gets no note any more: pick another real PR"
    return res.matches, facts


def test_also_in_this_notes_title_is_not_said_of_a_phrase_the_notes_title_does_not_write():
    """Real PRs of the graded sets. PR 44055 "[Docs][KV Connector][NIXL] document KV
    Transfer stat logging and Prometheus metrics" now reads

        - title mentions 'KV Transfer' (also in this note's title; topic: KV connector ...)

    for the note "Expose HiSparse cache metrics through the KVConnectorStats pipeline",
    whose title writes no 'transfer'; PR 46634 "[Perf][1/N] Expand Triton kernel warmup
    coverage, DSv4" reads "title mentions 'kernel warmup' (also in this note's title;
    topic: Kernel warmup ...)" for "Fix DeepGEMM FP8 warmup coverage and remove ...",
    which writes no 'kernel' (before: "title shares 'coverage', 'warmup' with this note's
    title", exact; now 'coverage' is said nowhere). A reviewer reads the gloss as the
    note's title saying that phrase: a quote holding more than the note says, which
    `reasons.shared_detail` promises never to do. Cause: `matching._said_once` hangs
    "also in this note's title" on the whole name a topic line quotes ('KV Transfer')
    when only one of its words ('kv') is the shared one; it should say the shared word
    ("'KV' also in this note's title") or leave that word on the "title shares" line."""
    cases = (
        (
            44055,
            "[Docs][KV Connector][NIXL] document KV Transfer stat logging and Prometheus metrics",
            (),  # as natural_traffic_3 has it: title only
        ),
        (
            46634,
            "[Perf][1/N] Expand Triton kernel warmup coverage, DSv4",
            (
                "vllm/model_executor/warmup/kernel_warmup.py",
                "vllm/model_executor/warmup/sparse_mla_triton_warmup.py",
                "vllm/model_executor/warmup/v1_block_table_warmup.py",
            ),
        ),
    )
    checked = 0
    readme = ("[Core] Keep prefix-cache hits for EAGLE after preemption", MATCHING_FILES)
    for number, title, files in (*cases, (52419, *readme)):  # README's: 'EAGLE' is the note's
        matches, _ = _matches(number, title, tuple(files))
        for m in matches:
            in_title = title_words(m.note.title_en) | title_words(m.note.title_zh)
            for line in m.reasons:
                if ALSO_TITLE not in line:
                    continue
                checked += 1
                for quoted in also_said_of(line, "title"):
                    extra = title_words(quoted) - in_title
                    assert not extra, (
                        f"PR {number}: {line!r}: the note's title ({m.note.title_en!r})"
                        f" writes no {sorted(extra)}"
                    )
    assert checked, "no line says 'also in this note's title' any more"
    # the word a phrase held beyond the note's title stays said, on the shares line
    matches, _ = _matches(*cases[1])
    assert any("'coverage'" in r for m in matches for r in m.reasons), [m.reasons for m in matches]


def test_shared_words_are_in_title_order_when_one_is_a_piece_of_an_earlier_word():
    """The commit promises shared words "in the title's order" (docs/matching.md: "the 'title
    shares' line quotes the rest, in the title's order"). "Respect the scheduler metadata
    channel for EC workers" reads "title shares 'EC', 'channel', 'workers' with this
    note's title": 'EC' first, though the title writes it after 'channel'. Cause:
    `reasons._place` finds each quoted form with a plain substring search, and 'ec' is
    found inside "Respect" (any `spec`, `select`, `exec`, `decode`... does the same for
    'EC', and `SHMConnector` for 'Connector'); it should find the form where the title
    writes it as a name or a piece of one (`similarity._named_pieces`). The test in
    tests/test_reasons.py checks the order with the same substring search, so it cannot
    see this."""
    title = "Respect the scheduler metadata channel for EC workers"
    matches, facts = _matches(1, title)
    text = facts.title_text
    checked = 0
    for m in matches:
        for line in m.reasons:
            if not line.startswith("title shares "):
                continue
            for part in re.split(r" with this note's title and | with terms it is about", line):
                words = QUOTE.findall(part.replace("note's", "note"))
                at = []
                for w in words:
                    found = re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![a-z])", text, re.I)
                    assert found, f"{w!r} is not a word of {text!r}"
                    at.append(found.start())
                checked += 1
                assert at == sorted(at), f"{line!r}: not in the order of {text!r}"
    assert checked, "no 'title shares' line any more: pick another title"


def test_scores_are_unchanged_when_the_similar_lines_weight_moves_to_another_line():
    """7fa4148 says "Scores and links are unchanged". Real PR 55171 ("[XPU][CI] Remove
    pip install dependency in test yaml files", graded set notes_era_3) scored 3.7 for
    note vllm-17f5148d before and 3.69 now. `matching._said_once` takes the "title
    shares 'pip', 'install'" line (0.07) out of its place and appends its weight at the
    end, on the 'pip' line (and 'install', the one word left, is said nowhere any more):
    0.625 + 0.07 + 3.0 was 3.6950000000000003, 0.625 + 3.0 + 0.0 + 0.07 is 3.695, and
    `round(score, 2)` falls on the other side. A score at a link's edge (`threshold`
    4.0, `relative_floor`, `min_specific`) can flip the same way. Fix: sum the scores in
    their first order (before `_said_once` moves any), or keep the weight at the similar
    line's place (`out.insert(at, ...)`). A later rule, `broad_note_aspect`, counts this
    note's broad topics in full beside its `pip` aspect (4.32, linked); the rounding this
    test pins is the one without that rule, so it is measured with the rule off."""
    cfg = CFG.model_copy(update={"broad_note_aspect": False})
    graded = (ROOT / "bench" / "graded" / "notes_era_3.jsonl").read_text("utf-8")
    (pr,) = [p for p in map(json.loads, graded.splitlines()) if p["number"] == 55171]
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=pr["number"],
        title=pr["title"],
        files=tuple(pr.get("files") or ()),
        body=pr.get("body") or "",
    )
    (m,) = [m for m in match_pr(facts, LIB, cfg).candidates if m.note.id == "vllm-17f5148d"]
    assert m.score == 3.7, (m.score, m.reasons)  # 696968a: 3.7


# --- what a reason quotes: shared words, parentheses, keywords, the aspect gloss ------


def _reasons(title: str, files: tuple[str, ...] = ()) -> list[list[str]]:
    facts = PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files)
    res = match_pr(facts, LIB, CFG)
    assert res.matches, f"{title!r} gets no note any more: pick another real PR"
    return [list(m.reasons) for m in res.matches]


def test_a_shared_word_is_not_quoted_again_when_the_other_lines_phrase_is_not_the_notes():
    """Real PRs of the graded sets. PR 46634 (natural_traffic_6) "[Perf][1/N] Expand Triton
    kernel warmup coverage, DSv4" reads, for "Fix DeepGEMM FP8 warmup coverage ...":

        - title mentions 'kernel warmup' (topic: Kernel warmup and JIT precompilation)
        - title shares 'warmup', 'coverage' with this note's title

    and PR 44275 (notes_era_3) "[Breakable Graph] add eager break for unified attention":

        - title mentions 'eager break' (a term this note is about)
        - title shares 'eager' with this note's title and 'attention' with terms it is about

    'warmup' and 'eager' are quoted twice, the padding 7fa4148 set out to remove ("a word
    the 'title shares' line quoted that another line quotes is said once"); the same on
    34182 ('connector'), 57128 ('prefix'), 45984/41674/38277 ('thinking', 'budget').
    Cause: 7efe4ae's fix in bot/matching.py `_said_once` leaves a word on the shares line
    whenever the other line's phrase holds a word the note's title lacks ('kernel',
    'break'), so the word stays on both lines. It should be said once: e.g. the shares
    line drops it and the other line says "'warmup' also in this note's title", or the
    phrase line names the note's word alone."""
    cases = (
        (
            "[Perf][1/N] Expand Triton kernel warmup coverage, DSv4",
            (
                "vllm/model_executor/warmup/kernel_warmup.py",
                "vllm/model_executor/warmup/sparse_mla_triton_warmup.py",
                "vllm/model_executor/warmup/v1_block_table_warmup.py",
            ),
        ),
        ("[Breakable Graph] add eager break for unified attention", ()),
    )
    for title, files in cases:
        for reasons in _reasons(title, files):
            each_word_once(title, reasons)


def test_a_quote_does_not_cut_through_the_titles_parentheses():
    """PR 34182 (history_with_files) "[Misc] Introduce ec_both role EC (encoder cache)
    connector", for "EC connector: a metadata channel from workers to the scheduler":

        - title mentions 'encoder cache) connector' (topic: EC (encoder cache) connector)

    A quote with a stray ')' is no phrase the title writes as such; the description line
    of another PR reads "'Encoder Cache) connector'" too. Cause: bot/terms.py `_SEP`
    (the separators a keyword's words may have between them) holds '(' and ')', so
    `TermIndex.find` lets the topic keyword "encoder cache connector" span the title's
    ')' and the reason quotes the span as written (`TermHit.text`). A keyword should not
    match across a closing bracket it does not open (or the quote should be cut to
    balanced text)."""
    files = (
        "vllm/config/ec_transfer.py",
        "vllm/distributed/ec_transfer/ec_connector/base.py",
        "vllm/v1/worker/ec_connector_model_runner_mixin.py",
    )
    title = "[Misc] Introduce ec_both role EC (encoder cache) connector"
    for reasons in _reasons(title, files):
        for line in reasons:
            for q in QUOTE.findall(line.split(" (", 1)[0]):
                assert q.count("(") == q.count(")"), f"unbalanced quote {q!r} in {line!r}"


def test_also_in_this_notes_keywords_is_not_said_of_a_phrase_no_keyword_writes():
    """Real PRs of the graded sets. PR 58193 (natural_traffic_4) "[CI] Shard (H200 MIG
    18GB) Spec Decode Draft Model across whole-directory replicas" reads, for "Complete
    the DSpark test mock's config to fix the H200 MIG CI failure" (keywords
    `get_pp_safe_draft_load_config`, `load_dspark_model`):

        - title mentions 'Draft Model' (also in a term this note is about; ...)

    and PR 21426 "[Bugfix] Fix CUDA arch flags for MoE permute" reads "'arch flags' (also
    in this note's keywords)" for a note whose keywords are `cuda_archs_loose_intersection`
    and `set_gencode_flags_for_srcs`. No keyword of either note writes that phrase: its
    words come from two different keywords. Before 7fa4148 the shares line quoted
    'Draft' alone "with terms it is about", exact. The 7efe4ae fix (a name's words must all be
    the note's) was made for the title side only. Cause: bot/matching.py `_said_once`
    checks a keywords-side name against `_title_words[i]`, the title's and every
    keyword's words pooled; it should ask that one keyword (or the title) write them all,
    else leave the word on the shares line."""
    cases = (
        (
            "[CI] Shard (H200 MIG 18GB) Spec Decode Draft Model across whole-directory replicas",
            (".buildkite/test_areas/spec_decode.yaml",),
        ),
        ("[Bugfix] Fix CUDA arch flags for MoE permute", ("CMakeLists.txt",)),
    )
    checked = 0
    for title, files in cases:
        res = match_pr(
            PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files), LIB, CFG
        )
        for m in res.matches:
            writes = [title_words(k) for k in (*m.note.keywords, m.note.title_en)]
            for line in m.reasons:
                if "also in a term this note is about" not in line:
                    continue
                checked += 1
                for q in also_said_of(line, "keywords"):
                    assert any(title_words(q) <= w for w in writes), (
                        f"{title!r}: {line!r}: no keyword of the note writes {q!r}"
                        f" (keywords: {m.note.keywords})"
                    )
    assert checked, "no line says 'also in a term this note is about' any more"


def test_a_rare_word_the_title_shares_with_the_note_is_still_said():
    """PR 58193 "[CI] Shard (H200 MIG 18GB) Spec Decode Draft Model ..." shares 'MIG',
    'H200' (and 'Draft') with "Complete the DSpark test mock's config to fix the H200 MIG
    CI failure". Before 7fa4148: "title shares 'MIG', 'H200' with this note's title and
    'Draft' with terms it is about". Now 'MIG' and 'Draft' are said on other lines and 'H200',
    left alone, is said nowhere, though it is the GPU the note's CI failure is on (its
    rarity, 6.5, is the similar line's second; the similar line's weight went to 'MIG').
    Likewise PR 45013 "[EPLB] Enable nixl eplb communicator for elastic ep" no longer
    says 'communicator' (rarity 7.2) for "Fix the ROCm elastic-EP scaling deadlock by
    deferring communicator warm-up to commit". Cause: bot/matching.py `_said_once` drops
    the shares line when fewer than `similar_min_words` words are left, a rule meant for
    'Keep' but blind to what the word is. A lone word left should stay said (e.g. on the
    line that takes the weight: "(also in this note's title, with 'H200')") unless it is
    a word any title uses."""
    cases = (
        (
            "[CI] Shard (H200 MIG 18GB) Spec Decode Draft Model across whole-directory replicas",
            (".buildkite/test_areas/spec_decode.yaml",),
            "vllm-cdd35ec7",
            "H200",
        ),
        (
            "[EPLB] Enable nixl eplb communicator for elastic ep",
            (),
            "vllm-64eca4f8",
            "communicator",
        ),
    )
    for title, files, note, word in cases:
        res = match_pr(
            PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files), LIB, CFG
        )
        (m,) = [m for m in res.matches if m.note.id == note]
        assert any(f"'{word}'" in r for r in m.reasons), (title, m.reasons)


def test_the_aspect_gloss_names_the_topic_the_aspect_is_of():
    """PRs 52783 "[Spec Decode] Enable adaptive DSpark on SM100 sparse MLA" and 52795
    "[Spec Decode] Enable adaptive verification on DSv4 + sm90" (changes
    vllm/v1/attention/backends/mla/indexer.py), for "Fix seven DeepSeek V4 sparse-MLA
    defects so plain decode, MTP and DSpark work end to end" (topics sparse-mla,
    spec-decode, cuda-graphs; aspects DSpark, spec decode, speculative), read

        - title mentions 'DSpark' (the part of Sparse MLA and DeepSeek attention kernels
          this note is about; also in this note's title; topic: Speculative decoding)
        - title is tagged [Spec Decode] (the part of Sparse MLA and DeepSeek attention
          kernels this note is about; topic: Speculative decoding)

    Speculative decoding is not a part of Sparse MLA; DSpark is a drafter, a keyword of
    the Speculative decoding topic (config/topics.toml), itself a topic of this note and
    named on the same line. 7fa4148's gloss states the aspect IS "the part of <topic>"
    the note is about, so it now says something false (the old "what this note teaches
    of X" was vague, not wrong) and contradicts the line's own "topic:" reason; the same
    for 'MLA' / [MLA] "the part of Context parallelism" (37 lines over the graded sets;
    'MLA' is the Sparse MLA topic's). Cause: bot/matching.py (aspect evidence,
    `ASPECT.format(topic)` with `self.notes[i].topics[0]`) always names the note's first
    topic; it should name the note's topic whose terms hold the aspect (then
    `reasons._unrepeated` drops the repeated "topic:"), the first only when none does."""
    cases = (
        (52783, "[Spec Decode] Enable adaptive DSpark on SM100 sparse MLA", ()),
        (
            52795,
            "[Spec Decode] Enable adaptive verification on DSv4 + sm90",
            ("vllm/v1/attention/backends/mla/indexer.py",),
        ),
    )
    part_of = "what this note covers in Sparse MLA and DeepSeek attention kernels"
    for number, title, files in cases:
        facts = PRFacts(repo="vllm-project/vllm", number=number, title=title, files=files)
        (m,) = [m for m in match_pr(facts, LIB, CFG).matches if m.note.id == "vllm-a4696815"]
        for line in m.reasons:
            assert not (part_of in line and "topic: Speculative decoding" in line), line


def test_a_name_the_note_writes_at_the_end_of_the_titles_name_does_not_crash_quoting():
    """Latent (no shipped note writes such a name yet): a note titled "Run __post_init__
    checks once per config" and a PR title writing `ModelConfig__post_init__` (dunders
    glued to a class name happen in generated or mangled names). 7fa4148's
    bot/similarity.py `_said_run` computes `ends_well = j in ends or not
    name[j].islower()` for every occurrence of a name the note writes; when it ends the
    title's name and that name ends in `_` (no piece ends there), `name[j]` is past the
    end: IndexError, raised through `reasons.shared_detail` (no handler) out of
    `match_pr` whenever such a title is similar enough to the note to be quoted, so the
    delivery fails on every retry. Fix: `j == len(name) or j in ends or
    not name[j].islower()`."""
    said = frozenset({"Run", "__post_init__", "checks", "once", "per", "config"})
    title = "[Bugfix] Fix ModelConfig__post_init__ ordering"
    assert written_form(title, "init", said)  # a quote, not an IndexError


# --- an aspect in another topic's tag or inside a topic's phrase ----------------------


def _lines(title: str, files: tuple[str, ...] = ()) -> dict[str, list[str]]:
    facts = PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files)
    return {m.note.id: list(m.reasons) for m in match_pr(facts, LIB, CFG).matches}


def test_an_aspect_said_in_the_tag_of_the_notes_other_topic_is_not_glossed_with_the_first():
    """PR 50365 (history_with_files) "[Perf][Sparse MLA] Drop the atomic contention in the
    index remap", for "Enable PCP + DCP on sparse-MLA models" (topics context-parallel,
    sparse-mla; aspect `MLA`) reads:

        - title is tagged [Sparse MLA] (the part of Context parallelism (PCP / DCP) this
          note is about; topic: Sparse MLA and DeepSeek attention kernels)

    One line calling the same tag the part of Context parallelism AND a mention of the
    Sparse MLA topic: the first gloss is false (the tag names the note's second topic).
    7db4af0 claims an aspect "names the note's topic whose terms hold it"; its key 'mla'
    is held by no topic of the note ('mla-attention' holds it), so `_aspect_topic` falls
    back to the note's first topic, although the very phrase it was said in ('sparse
    mla', a term of sparse-mla) names the other. Cause: bot/matching.py `_aspect_topic`
    looks up the bare key in `_term_topics` only (not the topics of the term the mention
    is part of, nor `_tag_topics`). Fix: gloss with the note's topic whose term covers
    the mention (here sparse-mla), or drop the aspect gloss where a topic line says it."""
    files = (
        "tests/v1/attention/test_indexer_dcp_localize.py",
        "tests/v1/attention/test_sparse_mla_backends.py",
        "vllm/v1/attention/backends/mla/sparse_utils.py",
    )
    lines = _lines("[Perf][Sparse MLA] Drop the atomic contention in the index remap", files)
    # an earlier fix was the gloss's wording: it says what the note is about in its topic,
    # not that the tag is a part of it (the test passed by any other wording since: it
    # now looks for the line it is about)
    (line,) = [r for r in lines["vllm-d996c45a"] if r.startswith("title is tagged [Sparse MLA]")]
    assert "the part of" not in line
    assert line.startswith("title is tagged [Sparse MLA] (a subject of this note, under Context")


def test_an_aspect_word_inside_a_topic_phrase_is_not_quoted_on_a_line_of_its_own():
    """PR 52377 (notes_era_1) "[Bugfix][DCP] Handle sparse MLA metadata after DCP Manager
    refactor" and PR 48196 (notes_era_6) "[Attention] DCP sparse MLA output-merge
    optimizations" write 'MLA' once, yet "Enable PCP + DCP on sparse-MLA models" reads:

        - title mentions 'MLA' (the part of Context parallelism (PCP / DCP) this note is about)
        - title mentions 'sparse MLA' (also in this note's title; topic: Sparse MLA ...)

    The one 'MLA' of the title is quoted by two lines (and glossed with two different
    topics of the note): the padding the "said once" work removes for shared words.
    Cause: bot/matching.py `_aspect` -> `said_apart(key, own, scan)` keeps the aspect
    apart only from the note's OWN evidence, not from the topic mention ('sparse MLA')
    that covers the same span; `reason_lines` regroups by the quoted name, and 'MLA' is
    not 'sparse MLA'. Fix: an aspect inside a topic mention of the note's topics is said
    on that line ("the part of ..."), or not at all."""
    titles = (
        "[Bugfix][DCP] Handle sparse MLA metadata after DCP Manager refactor",
        "[Attention] DCP sparse MLA output-merge optimizations",
    )
    for title in titles:
        quoting = [
            line
            for line in _lines(title)["vllm-d996c45a"]
            if line.startswith("title mentions") and "MLA" in line.split(" (", 1)[0]
        ]
        assert len(quoting) == 1, f"{title!r}: its one 'MLA' is quoted by {quoting}"


# --- quotes across brackets, closed, unmatched or nested ------------------------------


def test_a_quote_across_a_bracket_keeps_the_name_the_bracket_explains():
    """PR 34182 (history_with_files) "[Misc] Introduce ec_both role EC (encoder cache)
    connector". 7db4af0's `_balanced` docstring promises such a hit is quoted "with its
    other half, 'EC (encoder cache) connector', not 'encoder cache) connector'"; the
    comment reads instead:

        - title mentions '(encoder cache) connector' ('connector' also in this note's ...)
        - title shares 'ec' with this note's title

    a quote opening on a bracket, with the name the bracket glosses ('EC') cut off and
    sent to another line, as 'ec' (the spelling of `ec_both`). Cause: bot/terms.py
    `_balanced` moves the start to the '(' and no further: the word the bracket follows
    is dropped. Fix: take the word before the '(' too (as the docstring says), or cut
    the quote after the ')' instead ('connector' alone is the keyword's tail)."""
    files = (
        "vllm/config/ec_transfer.py",
        "vllm/distributed/ec_transfer/ec_connector/base.py",
        "vllm/v1/worker/ec_connector_model_runner_mixin.py",
    )
    title = "[Misc] Introduce ec_both role EC (encoder cache) connector"
    lines = [line for found in _lines(title, files).values() for line in found]
    quotes = [q for line in lines for q in re.findall(r"'([^']*)'", line.split(" (", 1)[0])]
    cut = [q for q in quotes if q.startswith("(")]
    assert not cut, f"a quote opens on the bracket and drops 'EC': {cut} in {lines}"


def _depth_ok(quote: str) -> bool:
    """Every ')' of the quote closes a '(' of it, and every '(' is closed."""
    depth = 0
    for ch in quote:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def test_a_quote_across_two_brackets_is_balanced_in_order_not_in_count():
    """A title with two bracketed groups side by side, "[Core] EC (encoder cache)
    (connector) API" (the topic keyword "encoder cache connector" may span up to four
    separators, ') (' among them), reads:

        - title mentions 'encoder cache) (connector' (...)

    a ')' it does not open and a '(' it does not close: 7db4af0's claim "a hit is
    quoted with the bracket's other half" does not hold. Cause: bot/terms.py `_balanced`
    compares the COUNTS of '(' and ')' in the span (one each: "balanced") instead of
    their order. Fix: walk the span's depth; extend left while it goes below zero and
    right while it ends above zero (or cut the quote at the brackets)."""
    files = ("vllm/distributed/ec_transfer/ec_connector/base.py",)
    title = "[Core] EC (encoder cache) (connector) API"
    lines = [line for found in _lines(title, files).values() for line in found]
    quotes = [q for line in lines for q in re.findall(r"'([^']*)'", line)]
    assert quotes and all(_depth_ok(q) for q in quotes), f"an unbalanced quote in {lines}"
    # the span the keyword matched, as TermIndex.find gives it to `_balanced`
    start, end = title.index("encoder"), title.index(" API") - 1
    assert title[start:end] == "encoder cache) (connector"
    assert _depth_ok(_balanced(title, start, end)), _balanced(title, start, end)


def test_a_tag_with_brackets_is_not_quoted_as_a_tag_the_title_does_not_have():
    """A bracket inside a title tag, "[EC (Encoder Cache) Connector] Fix shutdown",
    reads "title is tagged [(Encoder Cache) Connector]": a tag the title does not carry,
    opening on a bracket, its 'EC' dropped (before 7db4af0: "[Encoder Cache) Connector]").
    The tag is not plain words (`_PLAIN_TAG`), so `tag_text` quotes the hit, and the hit
    is `_balanced`'s '(' onward. Cause: bot/terms.py `_balanced` (start moved to the '('
    only), through bot/reasons.py `tag_text`. Fix: quote the tag as written when the hit
    was cut at a bracket, or extend to the word before the '('."""
    files = ("vllm/distributed/ec_transfer/ec_connector/base.py",)
    title = "[EC (Encoder Cache) Connector] Fix shutdown"
    lines = [line for found in _lines(title, files).values() for line in found]
    tagged = [line for line in lines if line.startswith("title is tagged [")]
    assert tagged, lines
    for line in tagged:
        tag = line[len("title is tagged [") : line.index("]")]
        assert not tag.startswith("("), f"a tag the title does not have: {line!r}"


EC_FILES = ("vllm/distributed/ec_transfer/ec_connector/base.py",)


def _quotes(title: str, files: tuple[str, ...] = EC_FILES) -> list[str]:
    facts = PRFacts(repo="vllm-project/vllm", number=1, title=title, files=files)
    lines = [line for m in match_pr(facts, LIB, CFG).matches for line in m.reasons]
    said = (re.match(r"title mentions '(.*?)'(?: \(|$)", line) for line in lines)
    return [m.group(1) for m in said if m]


def test_an_unmatched_close_does_not_reach_back_through_a_closed_bracket_to_another_name():
    """A title with a stray ')' after a closed bracket, "[Core] Fix EAGLE (spec) and
    encoder cache) connector", reads (note "EC (encoder cache) connector"):

        - title mentions 'EAGLE (spec) and encoder cache) connector' (topic: EC ...)

    The keyword 'encoder cache connector' is quoted with 'EAGLE (spec) and' before it:
    'EAGLE' (a speculative-decoding name) is said to be what the EC connector topic
    matched, and the quote is still unbalanced. e7ba2e7 claims brackets are "balanced in
    order, not by count"; the ')' has no '(' of its own, yet `_balanced` takes the
    nearest '(' before the hit (`text.rfind`), one that '(spec)' already closed, then
    prefixes the word before it as "the name the bracket explains". Cause: bot/terms.py
    `_balanced` (rfind without depth; `_NAME_BEFORE` on a bracket the hit does not
    open; before e7ba2e7 it quoted '(spec) and encoder cache) connector').
    Fix: scan back counting depth for the '(' this ')' closes; none: leave the
    hit as it is (or cut it at the stray bracket)."""
    title = "[Core] Fix EAGLE (spec) and encoder cache) connector"
    quotes = _quotes(title)
    assert quotes, "the EC connector note should match"
    for q in quotes:
        assert "EAGLE" not in q and "spec" not in q, f"a quote reaches back: {q!r}"


def test_an_unmatched_open_does_not_reach_forward_to_a_later_brackets_close():
    """ "[Core] encoder cache (connector and EC (ec) bug" (a '(' never closed) reads:

        - title mentions 'encoder cache (connector and EC (ec)' (...)

    The quote runs on to the ')' of a later, balanced '(ec)', still has an unclosed '(',
    and quotes 'and EC (ec)' the keyword never matched. Cause: bot/terms.py `_balanced`
    extends to `text.find(")", end)`, the first ')' after the hit whoever opened it, not
    the one closing the hit's '(' (depth). Fix: scan forward counting depth; no close
    of its own: leave the hit unextended."""
    quotes = _quotes("[Core] encoder cache (connector and EC (ec) bug")
    assert quotes, "the EC connector note should match"
    for q in quotes:
        assert "(ec)" not in q, f"a quote reaches forward to another bracket: {q!r}"


def test_a_quote_opening_on_a_nested_bracket_keeps_the_name_it_explains():
    """ "[Core] EC ((encoder cache) connector)" reads "title mentions '(encoder cache)
    connector'": a quote opening on a bracket, the name 'EC' dropped, though e7ba2e7
    claims a quote across brackets "keeps the name the bracket explains". The hit
    'encoder cache) connector' is extended to the inner '(' only; `_NAME_BEFORE` then
    looks before it and finds '(' (not a name character): no name. Cause: bot/terms.py
    `_balanced` (the name is looked for before the innermost bracket only). Fix: skip
    the opening brackets before the start, or quote without the leading '('."""
    quotes = _quotes("[Core] EC ((encoder cache) connector)")
    assert quotes, "the EC connector note should match"
    for q in quotes:
        assert not q.startswith("("), f"a quote opens on a bracket, its name dropped: {q!r}"


def test_the_name_before_a_bracket_is_found_as_the_pattern_it_stands_for():
    # `_name_before` walks back from the bracket instead of searching with a regex
    # anchored at it, which tried every start before it (7 s before a 32 KB word); the
    # names it finds are the regex's (anchored by `\Z`: `$` also matched before a line
    # break, taking a name on the line above the bracket)
    from bot.terms import _name_before

    pattern = re.compile(r"[\w.+-]+[^\S\n]*\Z")
    rng = random.Random(23)
    for _ in range(3000):
        text = "".join(rng.choice("ab_.+- \n\tü1(") for _ in range(rng.randint(0, 12)))
        at = rng.randint(0, len(text))
        found = pattern.search(text, 0, at)
        assert _name_before(text, at) == (found.start() if found else None), (text, at)


# --- a tag's words said again on the "title shares" line -------------------------------

TAGGED = re.compile(r"^title is tagged \[([^\]]+)\]")


def test_a_tags_words_are_not_quoted_again_on_the_title_shares_line():
    """PR 42423 "[EC Connector] Add shutdown API to EC Connector." read

        - title is tagged [EC Connector] (topic: EC (encoder cache) connector)
        - title shares 'EC', 'Connector' with this note's title

    and PR 53903 "[NIXL][PCP] Report replicated-PCP ranks ..." read "title is tagged
    [PCP]" and "title shares 'PCP', 'ranks'": one word of the title on two lines. A tag
    line was a plain string, so `_said_once` (which folds such words into the line that
    quotes them) did not see it. Now the tag line carries "also in this note's title" and
    the shares line keeps the other words, or goes."""
    cases = (
        ("[EC Connector] Add shutdown API to EC Connector.", ()),
        (
            "[NIXL][PCP] Report replicated-PCP ranks > 0 as done sending instead of hiding them",
            (),
        ),
        ("[PCP&DCP] move CUDAGraph check for PCP&DCP to the check func of platforms", ()),
    )
    glossed = 0
    for title, files in cases:
        for reasons in reasons_by_note(title, files):
            tags = [m.group(1) for line in reasons if (m := TAGGED.match(line))]
            tag_words = {w for tag in tags for w in title_words(tag)}
            for line in reasons:
                if line.startswith("title shares"):
                    shared = {w for q in QUOTE.findall(claim(line)) for w in title_words(q)}
                    assert not shared & tag_words, f"{title!r}: {line!r} repeats a tag's word"
            glossed += sum(1 for line in reasons if TAGGED.match(line) and ALSO_TITLE in line)
    assert glossed >= 3, "the tag lines no longer say what the note's title shares"


def graded_facts(number: int) -> PRFacts:
    """A real PR of the graded sets, as captured (title, description, labels, files)."""
    for path in sorted(GRADED.glob("*.jsonl")):
        for line in path.read_text("utf-8").splitlines():
            pr = json.loads(line)
            if pr["number"] == number:
                files = tuple(pr.get("files") or ())
                return PRFacts(
                    repo="vllm-project/vllm",
                    number=number,
                    title=pr["title"],
                    body=pr.get("body") or "",
                    labels=tuple(pr.get("labels") or ()),
                    files=files,
                    changed_files=pr.get("changed_files") or len(files) or None,
                )
    raise AssertionError(f"PR {number} is in no graded set")


def test_the_words_a_gloss_names_are_in_the_order_the_name_writes_them():
    """PR 45984 "... Fix thinking_token_budget not enforced ..." read "'budget',
    'thinking' also in this note's title", and PR 26851 "... in get_kv_connector_stats"
    "'stats', 'connector' also in this note's title": the gloss listed the words in the
    similar-title line's order (rarest first), which reads as a shuffle of the name it
    is about. Now in the name's order."""
    checked = 0
    for number in (45984, 26851):
        for m in match_pr(graded_facts(number), LIB, CFG).matches:
            for line in m.reasons:
                found = re.search(
                    r"'([^']+)' \(.*?((?:'[^']+', )+'[^']+') also in this note's", line
                )
                if not found:
                    continue
                name, named = found.group(1), QUOTE.findall(found.group(2))
                at = [name.lower().find(w.lower()) for w in named]
                assert at == sorted(at), f"PR {number}: {line!r} names its words out of order"
                checked += 1
    assert checked >= 2, "no gloss names two words of a name any more"


# --- where a quote starts and ends; a line counting for two topics -----------------


# kills: bot/terms.py:_balanced `lead -= 1` -> `lead -= 2`: the walk back over a run of opening
# brackets overshot it by one: past a one-letter name, or onto the line break before the
# run, taking a name from the line above into the quote
def test_a_quote_across_a_run_of_brackets_keeps_its_name_and_no_more():
    assert _balanced("E((encoder cache) connector)", 4, 27) == "E((encoder cache) connector)"
    text = "Use the EC\n((encoder cache) connector) here"
    start, end = text.index("cache"), text.index(" here") - 1
    assert text[start:end] == "cache) connector"
    assert _balanced(text, start, end) == "(encoder cache) connector"


# kills: bot/terms.py:_partner `start < 0` -> `start <= 0` (and `< 1`): the partner of a ')' the
# hit holds alone, when it opens the text, was not looked at
def test_a_quote_takes_the_bracket_that_opens_the_text():
    from bot.terms import TermIndex

    found = TermIndex(["encoder cache connector"]).find("(encoder cache) connector fails")
    assert found["encodercacheconnector"].text == "(encoder cache) connector"


# kills: bot/reasons.py:_place a capital after a small letter no piece of a name (`and`),
# :shared_detail a letter/digit edge placed nowhere (None), :_one_per_thing a form the title does
# not write placed nowhere (None)
def test_a_shared_word_is_placed_where_the_title_writes_it_as_a_word_or_a_piece_of_a_name():
    from bot.reasons import _place, shared_detail
    from bot.similarity import names_in

    def shares(title: str, words: list[str], note_title: str) -> str:
        facts = PRFacts(repo="vllm-project/vllm", number=1, title=title)
        names = (names_in(note_title), frozenset())
        return shared_detail(words, title_words(note_title), names, facts)

    assert _place("Speed up DeepGemm region", "Gemm") == len("Speed up Deep")
    assert shares("Speed up DeepGemm region", ["region", "gemm"], "gemm region") == (
        "title shares 'Gemm', 'region' with this note's title"
    )
    assert _place("Split 2stage prefill", "stage") == len("Split 2")
    assert shares("Split 2stage prefill", ["prefill", "stage"], "stage prefill") == (
        "title shares 'stage', 'prefill' with this note's title"
    )
    assert _place("Fix eager region", "capture") == len("Fix eager region")


def test_a_shared_word_a_name_writes_after_capitals_is_placed_where_the_title_writes_it():
    """The "title shares" line quotes its words "in the title's order" (docs/matching.md),
    and `similarity.written_form` quotes the piece of a name a word is, cut where
    `title_words` cuts it: 'Cache' of `KVCacheManager`, 'Graph' of `CUDAGraphMode`.
    `reasons._place` took a piece to start only after a non-letter or a capital after a
    small letter, so a piece after capitals (the `KV` of `KVCache`) was "nowhere", placed
    after every other word: "Fix KVCacheManager eviction" read "title shares 'eviction',
    'Cache' with this note's title". 97 words of 94 of the 2,388 graded titles are such
    pieces (`RMSNorm`, `LLMEngine`, `KVConnector`...); none is on a "title shares" line of a
    linked note today. Such a piece is placed where the title writes it, but after a place
    as a word: PR 33714 "SHMConnector: Share Memory based EC Connector" keeps reading 'EC',
    'Connector' (a review named `SHMConnector` as no place of 'Connector')."""
    from bot.reasons import _place, shared_detail
    from bot.similarity import names_in

    def shares(title: str, words: list[str], note_title: str) -> str:
        facts = PRFacts(repo="vllm-project/vllm", number=1, title=title)
        names = (names_in(note_title), frozenset())
        return shared_detail(words, title_words(note_title), names, facts)

    assert shares("Fix KVCacheManager eviction", ["eviction", "cache"], "cache eviction") == (
        "title shares 'Cache', 'eviction' with this note's title"
    )
    assert shares("Set CUDAGraphMode for DCP", ["dcp", "graph"], "DCP graph mode") == (
        "title shares 'Graph', 'DCP' with this note's title"
    )
    # the piece's place, not an earlier one inside a word ('Precache'), nor a later word
    # instead of a piece after a small letter ('DeepGEMM'); inside words alone: nowhere
    assert _place("Precache KVCache blocks", "Cache") == len("Precache KV")
    assert _place("Speed up DeepGEMM and gemm", "GEMM") == len("Speed up Deep")
    assert _place("Respect the rules", "EC") == len("Respect the rules")
    # a place as a word first: PR 33714 keeps reading 'EC', 'Connector', as "EC Connector"
    title = "[EC Connector] SHMConnector: Share Memory based EC Connector"
    assert shares(title, ["connector", "ec"], "EC connector") == (
        "title shares 'EC', 'Connector' with this note's title"
    )


def test_a_line_counting_for_two_topics_names_them_after_one_topics():
    # PR 44987 ("[XPU] Enable XPU eplb") read "changes tests/distributed/test_elastic_ep.py
    # (a path of this note; topic: Elastic EP scaling; topic: Expert parallelism and
    # elastic EP)": the word said twice read as a line repeated.
    files = ("tests/conftest.py", "tests/distributed/test_elastic_ep.py")
    res = match_pr(
        PRFacts("vllm-project/vllm", 44987, "[XPU] Enable XPU eplb", files=files), LIB, CFG
    )
    reasons = res.matches[0].reasons
    assert (
        "changes tests/distributed/test_elastic_ep.py (a path of this note;"
        " topics: Elastic EP scaling, Expert parallelism)"
    ) in reasons, reasons
    assert not any("; topic: " in r or r.count("topic") > 1 for r in reasons), reasons
    assert "title mentions 'eplb' (topic: Expert parallelism)" in reasons


# --- reason lines saying the same kind of thing ---------------------------------------


def test_words_the_title_says_for_one_reason_are_one_line():
    """PR 46372 (dev set, "... breakable ... eager break ..."): the eager-region note read

        - title mentions 'breakable' (a term this note is about)
        - title mentions 'eager break' (a term this note is about)

    two lines for one thing the PR does, its title naming the note's words, where a
    topic's line quotes its words on one ("description mentions 'ROCm', 'gfx950' (topic:
    ROCm platform)"). Lines quoting words in the same place with the same reasons are
    one, strongest word first; a line of the title and one of the description, or with
    other reasons, stay apart."""
    from bot.match_result import Said, Saying
    from bot.reasons import KEYWORD, reason_lines

    def said(saying: Saying, word: str) -> Said:
        return Said(saying, (word,))

    scored = [
        (1.0, said(Saying.TITLE, "breakable"), KEYWORD),
        (0.6, said(Saying.TITLE, "cudagraph"), "topic: CUDA graphs"),
        (0.5, said(Saying.BODY, "eager region"), KEYWORD),
        (1.5, said(Saying.TITLE, "eager break"), KEYWORD),  # rarer: it weighs more
        (0.9, said(Saying.TITLE, "MRV1"), "also in this note's title"),
        (0.4, said(Saying.TITLE, "ROCm"), ""),  # no reason of its own: said for none
        (0.3, said(Saying.TITLE, "gfx950"), ""),
    ]
    assert reason_lines(scored) == (
        "title mentions 'eager break', 'breakable' (terms this note is about)",  # 2.5 in all
        "title mentions 'MRV1' (also in this note's title)",
        "title mentions 'cudagraph' (topic: CUDA graphs)",
        "description mentions 'eager region' (a term this note is about)",
        "title mentions 'ROCm'",
        "title mentions 'gfx950'",
    )
    # a merged line ranks by its words' total: above a line stronger than either word
    scored = [
        (1.0, said(Saying.TITLE, "a"), KEYWORD),
        (1.5, said(Saying.TITLE, "c"), "topic: C"),
        (1.0, said(Saying.TITLE, "b"), KEYWORD),
    ]
    assert reason_lines(scored) == (
        "title mentions 'a', 'b' (terms this note is about)",
        "title mentions 'c' (topic: C)",
    )


def test_a_shipped_notes_keywords_the_title_names_read_on_one_line():
    # the same on the shipped library, PR 46372's title
    lines = reasons_of("fix: make NCCL collectives eager break points in breakable cudagraph")
    own = [line for line in lines if "this note is about" in line and line.startswith("title")]
    assert len(own) == 1, lines
    assert own[0].endswith("(terms this note is about)") and own[0].count("'") >= 4, lines
    # kills: bot/reasons.py:_alike_merged (hand) the words quoted strongest first: the line
    #   read "'breakable', 'eager break'" of a title saying "eager break ... breakable",
    #   where a topic's line, the similar-title line and "also in this note's title" all
    #   quote in the title's order
    assert own[0].startswith("title mentions 'eager break', 'breakable'"), lines


def test_words_merged_on_one_line_are_quoted_in_the_order_their_place_writes_them():
    from bot.match_result import Said, Saying
    from bot.reasons import KEYWORD, reason_lines

    title = "Honor ubatch overrides in workspace slot routing"
    body = "The workspace is shared; each ubatch slot reads it"
    scored = [
        (1.5, Said(Saying.TITLE, ("workspace",)), KEYWORD),  # the stronger, written second
        (1.0, Said(Saying.TITLE, ("ubatch",)), KEYWORD),
        (1.2, Said(Saying.TITLE, ("nowhere",)), KEYWORD),  # not in the text: after, by weight
        (1.5, Said(Saying.BODY, ("ubatch",)), KEYWORD),
        (1.0, Said(Saying.BODY, ("workspace",)), KEYWORD),
    ]
    written = {Saying.TITLE: title, Saying.BODY: body}
    assert reason_lines(scored, written) == (
        "title mentions 'ubatch', 'workspace', 'nowhere' (terms this note is about)",
        "description mentions 'workspace', 'ubatch' (terms this note is about)",
    )
    # with no text to place them by, the strongest first
    assert reason_lines(scored)[0] == (
        "title mentions 'workspace', 'nowhere', 'ubatch' (terms this note is about)"
    )


def test_the_same_words_for_the_same_reasons_in_title_and_description_are_one_line():
    """PR 30903 (notes_era_3) "[UX] Reduce DeepGEMM warmup log output to single progress
    bar", whose description names DeepGEMM warmup too, read

        - title mentions 'DeepGEMM warmup' (a term this note is about)
        - description mentions 'DeepGEMM warmup' (a term this note is about)

    the same words for the same reason, twice over (43 such pairs in the comments of the
    graded sets: 'DSA', 'CUDAGraph', 'HiSparse'...). They are one line saying both
    places, at the place of their total weight; words or reasons that differ stay apart."""
    from bot.match_result import Said, Saying
    from bot.reasons import KEYWORD, reason_lines

    scored = [
        (1.0, Said(Saying.TITLE, ("DSA",)), "topic: Sparse MLA"),
        (1.2, Said(Saying.TITLE, ("CUDAGraph",)), "topic: CUDA graphs"),
        (0.9, Said(Saying.BODY, ("CUDAGraph",)), "topic: CUDA graphs"),
        (0.5, Said(Saying.BODY, ("dsa",)), "topic: Sparse MLA"),  # case aside: the title's
        (2.0, Said(Saying.TITLE, ("topk",)), KEYWORD),
        (0.4, Said(Saying.BODY, ("topk",)), "topic: Top-k"),  # another reason
        (1.9, Said(Saying.BODY, ("indexer",)), KEYWORD),  # another word
    ]
    assert reason_lines(scored) == (
        "title and description mention 'CUDAGraph' (topic: CUDA graphs)",  # 2.1
        "title mentions 'topk' (a term this note is about)",
        "description mentions 'indexer' (a term this note is about)",
        "title and description mention 'DSA' (topic: Sparse MLA)",  # 1.5
        "description mentions 'topk' (topic: Top-k)",
    )
    graded = (GRADED / "notes_era_3.jsonl").read_text("utf-8")
    (pr,) = [p for p in map(json.loads, graded.splitlines()) if p["number"] == 30903]
    facts = PRFacts(
        repo="vllm-project/vllm", number=pr["number"], title=pr["title"], body=pr["body"]
    )
    (m,) = match_pr(facts, LIB, CFG).matches
    assert "title and description mention 'DeepGEMM warmup' (a term this note is about)" in (
        m.reasons
    ), m.reasons
    assert not any(r.startswith(("title mentions", "description mentions")) for r in m.reasons)


@pytest.mark.parametrize(
    "new", ["vllm/v1/core/kv_cache/coordinator.py", "vllm/legacy/coordinator.py"]
)
def test_a_file_renamed_out_of_every_glob_is_said_as_the_move(new):
    """A hand-made PR moving vllm/v1/core/kv_cache_coordinator.py, the eager-prefix
    note's path, where neither the note's paths nor Prefix caching's globs reach: GitHub
    lists both paths. The reason named the old path alone ("changes vllm/v1/core/
    kv_cache_coordinator.py"), where the diff shows the file under its new one; named by
    the new path alone, it read as a path of the note and of the topic, which it is not,
    and notes feedback took that path for the term a curator would look for in the note.
    The line names the move, as GitHub's diff heads it."""
    from dataclasses import replace

    from bot.reasons import evidence_terms

    old = "vllm/v1/core/kv_cache_coordinator.py"
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=1,
        title="[Core] Keep EAGLE prefix-cache registration on partial hits",
        files=(new, old, "tests/v1/core/test_prefix_caching.py"),
        listed_files=2,
        changed_files=2,
        renamed={old: new},
    )
    (before,) = match_pr(replace(facts, renamed={}), LIB, CFG).matches
    (after,) = match_pr(facts, LIB, CFG).matches
    assert f"changes {old} (a path of this note; topic: Prefix caching)" in before.reasons
    moved = f"changes {old} → {new} (a path of this note; topic: Prefix caching)"
    assert moved in after.reasons, after.reasons
    assert sum(old in r or new in r for r in after.reasons) == 1, after.reasons
    assert old in evidence_terms(after.reasons)  # the path the note holds
    assert (after.note.id, after.score) == (before.note.id, before.score)  # wording only


def test_a_renames_two_paths_on_one_line_are_its_one_file():
    from bot.match_result import Said, Saying
    from bot.matching import _as_seen
    from bot.reasons import changes

    renamed = {"old/b.py": "new/b.py"}
    # both paths under one glob, with another file: one path named, the other counted
    (_, said, _), *_ = _as_seen([(1.0, changes(["a.py", "old/b.py", "new/b.py"], 2), "")], renamed)
    assert said == Said(Saying.CHANGES, ("a.py",), 1) and said.counted == ("new/b.py",)
    # the old path named, the new one counted: the file once, nothing more
    (_, said, _), *_ = _as_seen([(1.0, changes(["old/b.py", "new/b.py"], 1), "")], renamed)
    assert str(said) == "changes new/b.py" and not said.counted
    (_, said, _), *_ = _as_seen(
        [(1.0, Said(Saying.CHANGES, ("old/b.py", "a.py"), 1, ("new/b.py",)), "")], renamed
    )
    assert str(said) == "changes new/b.py, a.py"
    assert _as_seen([(1.0, "title mentions 'x'", "")], renamed) == [(1.0, "title mentions 'x'", "")]
    # the new path held by another line (a topic's glob): both lines name it, to merge
    lines = [(1.0, changes(["old/b.py"]), "own"), (1.0, changes(["c.py", "new/b.py"]), "t")]
    (_, own, _), (_, topic, _) = _as_seen(lines, renamed)
    assert (str(own), topic.counted) == ("changes new/b.py", ("new/b.py",))
    # held by no line: the move, named or counted
    (_, said, _), *_ = _as_seen([(1.0, changes(["old/b.py"]), "")], renamed)
    assert str(said) == "changes old/b.py → new/b.py"
    (_, said, _), *_ = _as_seen([(1.0, changes(["a.py", "old/b.py"]), "")], renamed)
    assert said.counted == ("old/b.py → new/b.py",)
    # a title's word that is the new path holds no file
    lines = [(1.0, changes(["old/b.py"]), ""), (1.0, Said(Saying.TITLE, ("new/b.py",)), "")]
    assert str(_as_seen(lines, renamed)[0][1]) == "changes old/b.py → new/b.py"


def test_a_changes_line_of_several_of_the_notes_files_says_paths():
    # "changes a.py, b.py (a path of this note)" read as if the two files were one path,
    # as the comment said of a watermarking PR changing three files of tests/watermarking/
    from bot.reasons import OWN_PATH, changes, reason_lines

    scored = [
        (1.0, changes(["tests/w/a.py", "tests/w/b.py"]), OWN_PATH),
        (0.5, changes(["c.py", "d.py", "e.py"], 3), OWN_PATH),
        (0.4, changes(["f.py"]), OWN_PATH),
    ]
    assert reason_lines(scored) == (
        "changes tests/w/a.py and 1 more file (paths of this note)",
        "changes c.py and 2 more files (paths of this note)",
        "changes f.py (a path of this note)",
    )
    # on the shipped library: PR 56809, three of its files (of 7) under tests/watermarking/
    files = (
        ".buildkite/test_areas/misc.yaml",
        "tests/watermarking/__init__.py",
        "tests/watermarking/generate_goldens.py",
        "tests/watermarking/golden_candidates.py",
    )
    title = "[watermarking] golden tests for backwards compatibility"
    facts = PRFacts(
        repo="vllm-project/vllm", number=56809, title=title, files=files, changed_files=7
    )
    res = match_pr(facts, LIB, CFG)
    lines = [r for m in res.matches for r in m.reasons]
    own = [line for line in lines if "of this note" in line and line.startswith("changes")]
    assert own and all("(paths of this note" in line for line in own), lines

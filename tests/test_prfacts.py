"""PR facts: title tags, description cleaning, referenced PRs, payload parsing."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.markdown_text import (
    HTML_COMMENT,
    as_html,
    paragraph_code_spans,
    replace_code_spans,
    without_fences,
    without_indented_code,
)
from bot.pr_text import clean_body, referenced_prs, title_tags, title_text
from bot.prfacts import PRFacts, facts_from_payload, facts_from_record
from bot.render import PauseCause

EXAMPLES = Path(__file__).resolve().parent.parent / (
    "node_modules/@octokit/webhooks-examples/api.github.com/index.json"
)

# vLLM's PR template (.github/PULL_REQUEST_TEMPLATE.md) as an author leaves it, filled in.
TEMPLATE_FILLED = (Path(__file__).parent / "data" / "vllm_pr_body.md").read_text("utf-8")


def test_title_tags_in_order_with_spaces_and_anywhere():
    assert title_tags("[Bugfix][Spec Decode] Keep EAGLE cache") == ("Bugfix", "Spec Decode")
    assert title_tags("[Misc] [CI/Build] [CMake] PTX Warning") == ("Misc", "CI/Build", "CMake")
    assert title_tags("Fix foo [ROCm]") == ("ROCm",)
    assert title_tags("No tags at all") == ()


def test_conventional_commit_scope_is_a_tag():
    assert title_tags("feat(spec-decode): add drafter") == ("spec-decode",)
    assert title_tags("fix: make NCCL collectives eager") == ()


def test_title_text_drops_the_tags():
    assert title_text("[Bugfix][Spec Decode] Keep EAGLE cache") == "Keep EAGLE cache"
    assert title_text("[Misc] [CI/Build]  PTX Warning") == "PTX Warning"


def test_template_boilerplate_code_and_logs_are_removed():
    cleaned = clean_body(TEMPLATE_FILLED)
    assert "Keep the EAGLE drafter's cache registration" in cleaned
    for gone in (
        "PLEASE FILL IN",
        "## Purpose",
        "Test Plan",
        "pytest",  # code block
        "watermark",  # in a code block and in a log line of the result section
        "12.5",
        "Checklist",
        "The purpose of the PR",
        "BEFORE SUBMITTING",
        "Kernel",  # below the template's cut line
        "markdownlint",  # HTML comment
    ):
        assert gone not in cleaned, gone


def test_unterminated_code_block_and_comment_run_to_the_end():
    assert clean_body("Fix the sampler.\n```\nEAGLE traceback") == "Fix the sampler."
    assert clean_body("Fix the sampler.\n~~~python\nEAGLE") == "Fix the sampler."
    assert clean_body("Fix the sampler.<!-- EAGLE") == "Fix the sampler."


def test_an_empty_html_comment_closes_at_once():
    # `<!-->` and `<!--->` hid the rest of the description, references included
    for empty in ("<!-->", "<!--->"):
        body = f"{empty}\nReverts #52401: it broke the ROCm default."
        assert clean_body(body) == "Reverts #52401: it broke the ROCm default.", empty
        assert PRFacts("vllm-project/vllm", 1, "Revert", body=body).refs == (52401,), empty


def test_a_one_line_triple_backtick_span_is_inline_code_not_a_fence():
    # CommonMark: a backtick fence's info string has no backtick, so this is a code span
    body = "Run ```pytest -k eagle``` to see it.\n\nThe EAGLE prefix cache loses hits."
    assert "The EAGLE prefix cache loses hits." in clean_body(body)


def test_a_longer_closing_fence_closes_the_block():
    body = "````\nlog /notes\n``````\nThe EAGLE path.\n~~~\ncode\n~~~~~\nAfter."
    assert clean_body(body) == "The EAGLE path.\n\nAfter."


def test_fences_in_list_items_and_nested_lists_are_code():
    # Descriptions put their logs under steps: "1. run it:" then an indented fence.
    body = (
        "Steps:\n1. run it:\n    ```\n    ERROR MTP traceback\n    ```\n"
        "- ```\n  EAGLE log\n  ```\nThe sampler."
    )
    assert clean_body(body) == "Steps:\n1. run it:\n\nThe sampler."


def test_a_fenced_block_inside_a_quote_is_code():
    # "> ```" opens a code block GitHub shows as such (a PR quoting the log); a
    # quoted fence ends with its quote
    body = (
        "Fixes the crash reported in the issue:\n\n"
        "> ```\n> RuntimeError: EAGLE drafter failed in spec_decode\n> ```\n\n"
        "> > ```\n> > EAGLE log\n\nThe drafter now waits."
    )
    assert clean_body(body) == "Fixes the crash reported in the issue:\n\nThe drafter now waits."


INDENTED_REPRO = (
    "This fixes the spec decode loader for Qwen3.\n"
    "\n"
    "Repro:\n"
    "\n"
    "    from vllm.v1.worker.gpu.spec_decode.dspark.utils import load_dspark_model\n"
    "    load_dspark_model(get_pp_safe_draft_load_config(cfg))\n"
)


def test_an_indented_code_block_is_left_out_of_the_description():
    # docs/matching.md: the description is matched "without vLLM's PR template, HTML
    # comments, code blocks, <details>, test results and logs"; bot/markdown_text.py:
    # "Matching leaves a description's code blocks ... out: fenced blocks ..., indented
    # blocks". A four-space block after a blank line (not in a list) is a code block on
    # GitHub, yet clean_body kept it.
    cleaned = clean_body(INDENTED_REPRO)
    assert "load_dspark_model" not in cleaned, cleaned
    assert "This fixes the spec decode loader for Qwen3." in cleaned


def test_indented_code_is_what_github_shows_as_code_not_every_indented_line():
    # CommonMark, as cmark-gfm reads it: a list item's continuation lines and a
    # paragraph's lazy ones are text at any indent; four columns beyond a list item's
    # content, in a quote, or after a tab, a block is code
    body = (
        "Fix the drafter.\n"
        "- first step\n"
        "    keeps the EAGLE cache\n"
        "    - a nested step on MTP\n"
        "- second step\n"
        "\n"
        "      drafter_log_in_item()\n"
        "\n"
        "A paragraph\n"
        "    with a lazy line on DCP\n"
        "\n"
        "> quoted:\n"
        ">\n"
        ">     quoted_code_line()\n"
        "\n"
        "\ttabbed_code_line()\n"
        "\n"
        "The end."
    )
    cleaned = clean_body(body)
    for kept in ("keeps the EAGLE cache", "a nested step on MTP", "with a lazy line on DCP"):
        assert kept in cleaned, kept
    for gone in ("drafter_log_in_item", "quoted_code_line", "tabbed_code_line"):
        assert gone not in cleaned, gone
    assert cleaned.endswith("The end.")
    # CRLF and a lone surrogate (a JSON escape) keep the lines where they were
    crlf = clean_body(INDENTED_REPRO.replace("\n", "\r\n").replace("Qwen3", "Qwen3\ud800"))
    assert "load_dspark_model" not in crlf and "spec decode loader" in crlf


def test_crlf_descriptions_close_their_fences():
    # GitHub sends descriptions typed on github.com with CRLF: "```\r" closes the fence,
    # so what follows a log block (references, the opt-out marker) is still read.
    from bot.relations import related_refs
    from bot.sticky import opted_out_by_pr

    body = "Log:\r\n```\r\nerror\r\n```\r\nFixes #52419\r\n<!-- no-review-notes -->\r\n"
    pr = PRFacts(repo="vllm-project/vllm", number=7001, title="x", body=body)
    assert 52419 in pr.refs
    assert [r.number for r in related_refs(body, pr.repo)] == [52419]
    assert opted_out_by_pr(pr, "no-review-notes") is PauseCause.DESCRIPTION


@pytest.mark.parametrize(
    ("unit", "tail"),
    [
        ("\n", "EAGLE"),
        ("[x](", "EAGLE"),
        ("[", "EAGLE"),
        ("`", ""),  # a line of backticks alone opens a fence (unclosed: the rest is code)
        ("`x", "EAGLE"),
        ("```\n", ""),  # the last fence is unclosed: the tail is in code
        ("#\n", "EAGLE"),
        ("## Test Result\n", ""),  # a results section runs to the next heading
        ("<a", "EAGLE"),
        ("</a ", "EAGLE"),
        ("    x = 1\n", "EAGLE"),  # indented code: cmark-gfm reads the text
        ("- a\n\n      b\n", "EAGLE"),  # code in list items
        (">    ", "EAGLE"),  # 16,384 nested quotes on one line
        ("| -\n", "EAGLE"),  # table-rule-like lines: 3-5 s
    ],
)
def test_hostile_descriptions_of_github_s_maximum_size_are_cleaned(unit, tail):
    # These were quadratic (minutes at this size); bench/bench_matching.py prints their
    # cost against prose. Here: the right text comes out of a 65,536-character body.
    body = unit * (65_536 // len(unit)) + "\n\nEAGLE"
    assert clean_body(body).endswith(tail)


def test_as_html_keeps_comments_and_escapes_code_spans_and_blocks():
    body = "a `<!-- x -->` b\n\n```\n<!-- y -->\n```\n<!-- z --> ``c`` d"
    assert re.findall(r"<!--.*?-->", as_html(body)) == ["<!-- z -->"]
    # four columns in, after the list item's fence, is the item's own HTML (two beyond
    # its content), not code: six are
    listed = "- ```\n  <!-- y -->\n  ```\n\n    <!-- held -->\n\n      <!-- code -->\n\nz"
    assert re.findall(r"<!--.*?-->", as_html(listed)) == ["<!-- held -->"]


def test_the_test_result_section_includes_its_sub_headings():
    # "### Before" / "### After" under "## Test Result" are still results, not prose
    body = (
        "## Purpose\nSpeed up the Qwen3 tokenizer.\n\n## Test Result\n"
        "### Before\nAcceptance rate: 62.3 with the EAGLE drafter\n"
        "### After\nAcceptance rate: 62.4 with the EAGLE drafter\n"
        "## Notes\nNone."
    )
    assert clean_body(body) == "Speed up the Qwen3 tokenizer.\n\n## Notes\nNone."


def test_nested_details_are_removed_whole():
    # the outer <details> ended at the inner </details>, leaving the rest of its logs
    body = (
        "Fix the tokenizer.\n\n<details><summary>Logs</summary>\n\n"
        "<details><summary>before</summary>\nwarmup log\n</details>\n\n"
        "EAGLE drafter acceptance rate dropped in the after run\n</details>\nDone."
    )
    assert clean_body(body) == "Fix the tokenizer.\n\nDone."


def test_html_shown_as_inline_code_hides_nothing():
    # a PR talking about `<details>`, `<!--` or `<pre>` lost the rest of its description,
    # references included; GitHub shows them as text
    for opener in ("`<details>`", "`<!--`", "`<pre>`"):
        body = f"Wrap the logs in a {opener} block.\n\nFollow-up to #52401."
        assert clean_body(body).endswith("Follow-up to #52401."), opener
        assert PRFacts("vllm-project/vllm", 1, "x", body=body).refs == (52401,), opener


def test_links_keep_their_text_but_not_the_url():
    cleaned = clean_body(
        "See [the MoE docs](https://docs.vllm.ai/spec_decode.html) and https://x.io/eagle"
    )
    assert cleaned == "See the MoE docs and"


def test_log_lines_and_tracebacks_are_removed():
    body = (
        "Fix ROCm hang.\nTraceback (most recent call last):\n"
        '  File "x.py", line 3, in f\nERROR EAGLE died\n'
        "(VllmWorker pid=12) spec decode\n$ vllm serve eagle"
    )
    assert clean_body(body) == "Fix ROCm hang."


def test_log_lines_with_worker_ray_and_rank_prefixes_are_removed():
    # vLLM's multiproc and Ray workers and torch distributed prefix every log line; a code
    # name in such a stack frame counted as prose
    logs = (
        "(VllmWorker rank=0 pid=3340) ERROR 06-05 02:08:42 [multiproc_executor.py:522] "
        "return KVConnectorStats(data=self._stats)\n"
        "(RayWorkerWrapper pid=3436, ip=172.31.9.67) INFO [eagle.py:80] Loading EAGLE\n"
        '[rank0]:   File "/opt/vllm/vllm/v1/spec_decode/eagle.py", line 312, in propose\n'
    )
    assert clean_body("Fix the NIXL handshake.\n" + logs) == "Fix the NIXL handshake."


def test_a_whole_python_traceback_is_removed():
    # each frame's source line and the exception line stayed as the author's words
    body = (
        "Fix the drafter crash below.\n\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/vllm/vllm/v1/engine/core.py", line 88, in step\n'
        "    draft_token_ids = self.drafter.propose(spec_decode_metadata)\n"
        "                      ^^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: CUDA error: an illegal memory access during EAGLE graph capture\n"
        "\nIt now waits for the capture."
    )
    assert clean_body(body) == "Fix the drafter crash below.\n\nIt now waits for the capture."


def test_crlf_and_empty_bodies():
    assert clean_body("") == ""
    assert clean_body("a\r\nb") == "a\nb"


def test_referenced_prs():
    text = (
        "Follow-up to #52419 and vllm-project/vllm#51318, see "
        "https://github.com/vllm-project/vllm/pull/49613 and other/repo#7 and "
        "https://github.com/other/repo/pull/8; FIX #xxxx"
    )
    assert referenced_prs(text, "vllm-project/vllm") == (52419, 51318, 49613)


def test_a_link_to_another_host_ending_in_github_com_is_no_reference():
    # `notgithub.com/vllm-project/vllm/pull/5` was read as PR 5; `www.`,
    # a scheme or Chinese text before github.com still refer
    repo = "vllm-project/vllm"
    for host in ("https://notgithub.com", "x-github.com", "https://mygithub.com"):
        assert referenced_prs(f"see {host}/vllm-project/vllm/pull/5", repo) == ()
    hosts = ("https://github.com", "www.github.com", "https://www.github.com", "见github.com")
    # the same host fully qualified or with its port, as the comment's redirect takes it
    hosts += ("https://github.com.", "https://github.com:443", "http://www.github.com:80")
    for host in hosts:
        assert referenced_prs(f"see {host}/vllm-project/vllm/pull/5", repo) == (5,)
    assert referenced_prs("see https://github.com:8443/vllm-project/vllm/pull/5", repo) == ()


def test_html_character_references_are_not_pr_references():
    # "&#10004;" (a check mark) read as PR 10004, "&#52401;" as a note's source PR
    assert referenced_prs("Status: &#10004; done, &#52401; fixed", "vllm-project/vllm") == ()


def test_a_reference_written_into_chinese_text_is_read():
    # Chinese characters are word characters to Python's `\w` and `\b`, so "回退#52401中的改动"
    # referred to nothing
    text = (
        "回退#52401中的改动，修复vllm-project/vllm#52402引入的回归，"
        "见github.com/vllm-project/vllm/pull/52403中"
    )
    assert referenced_prs(text, "vllm-project/vllm") == (52401, 52402, 52403)


def test_a_markdown_link_refers_to_its_target_not_its_text():
    # vLLM's nightly CI-failure PRs write the Buildkite build as "[#75919](https://
    # buildkite.com/...)": read as PR 75919, a build numbered as a note's source PR linked
    # that note at source_ref alone
    body = (
        "Nightly main [#52401](https://buildkite.com/vllm/ci/builds/52401): timed out; "
        "sglang [#7](https://github.com/sgl-project/sglang/pull/7); "
        "reverts [#51430](https://github.com/vllm-project/vllm/pull/51430), "
        "[this issue](https://github.com/vllm-project/vllm/issues/50877) and #49613"
    )
    assert referenced_prs(body, "vllm-project/vllm") == (51430, 50877, 49613)
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="[CI] Raise a timeout", body=body)
    assert 52401 not in facts.refs


def test_refs_skip_code_and_the_pr_itself():
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=100,
        title="Revert #51318 (#100)",
        body="Fixes #200\n```\nsee #300\n```\n<!-- #400 -->",
    )
    assert facts.refs == (51318, 200)
    # an indented code block is code too: GitHub makes no reference of it
    indented = PRFacts(repo="vllm-project/vllm", number=100, title="x", body="Log:\n\n    #500\n")
    assert indented.refs == ()


def test_derived_views_are_cached_and_fields_unchanged():
    facts = PRFacts(repo="o/r", number=1, title="[ROCm] x", body="<!-- c -->text")
    assert facts.tags is facts.tags
    assert facts.body == "<!-- c -->text"  # raw stays raw
    assert facts.clean_body == "text"
    assert facts == PRFacts(repo="o/r", number=1, title="[ROCm] x", body="<!-- c -->text")


def test_facts_from_record_tolerates_missing_fields():
    facts = facts_from_record({"number": 7, "title": "t", "body": None, "labels": None})
    assert (facts.repo, facts.number, facts.body, facts.labels, facts.files) == (
        "vllm-project/vllm",
        7,
        "",
        (),
        (),
    )


def test_code_names_in_a_record_name_files_by_path_or_index():
    facts = facts_from_record(
        {"number": 1, "files": ["a.py", "b.py"], "code_names": {"run_x": [1, "c.py"], "Y_z": [0]}}
    )
    assert facts.code_names == {"run_x": ("b.py", "c.py"), "Y_z": ("a.py",)}
    with pytest.raises(
        ValueError, match=r"code_names\['run_x'\]: no file at index 2 \(files lists 2\)"
    ):
        facts_from_record({"number": 1, "files": ["a.py", "b.py"], "code_names": {"run_x": [2]}})


def _example(action: str) -> dict:
    groups = json.loads(EXAMPLES.read_text("utf-8"))
    pr = next(g for g in groups if g["name"] == "pull_request")
    return next(e for e in pr["examples"] if e["action"] == action)


@pytest.mark.skipif(not EXAMPLES.exists(), reason="webhook examples not installed")
def test_facts_from_a_real_webhook_payload():
    payload = _example("labeled")
    facts = facts_from_payload(payload, ["a.py", "b.py"])
    pr = payload["pull_request"]
    assert facts.repo == payload["repository"]["full_name"]
    assert facts.number == pr["number"]
    assert facts.title == pr["title"]
    assert facts.labels == tuple(lb["name"] for lb in pr["labels"])
    assert facts.files == ("a.py", "b.py")
    assert facts.author == pr["user"]["login"]
    assert facts.head_sha == pr["head"]["sha"]
    assert facts.changed_files == pr["changed_files"]
    assert facts.files_complete == (len(facts.files) >= pr["changed_files"])
    assert facts.closed == (pr["state"] == "closed")
    assert facts_from_payload(_example("closed")).closed


def test_files_are_complete_only_when_they_number_the_prs_own_count():
    def facts(files, count):
        return facts_from_record({"number": 1, "files": files, "changed_files": count})

    assert facts(["a.py", "b.py"], 2).files_complete
    assert facts(["old.py", "new.py"], 1).files_complete  # a rename lists both paths
    assert not facts(["a.py"], 2).files_complete  # what someone happened to see
    assert not facts(["a.py"], None).files_complete  # count unknown
    assert not facts([], 0).files_complete  # nothing to judge by
    for not_a_count in ("2", True, -3, 1.5):  # refused, not taken for unknown
        with pytest.raises(ValueError, match="changed_files"):
            facts(["a.py"], not_a_count)
    # GitHub listed 1 of 2 entries, one a rename: two paths, still partial
    listed = replace(facts(["old.py", "new.py"], 2), listed_files=1)
    assert not listed.files_complete
    assert replace(listed, listed_files=2).files_complete


def test_null_body_and_labels_in_a_payload():
    payload = {
        "repository": {"full_name": "o/r"},
        "pull_request": {"number": 3, "title": "x", "body": None, "labels": None, "user": None},
    }
    facts = facts_from_payload(payload)
    assert (facts.body, facts.labels, facts.author) == ("", (), "")


def test_code_names_are_the_identifiers_on_changed_lines_with_their_files():
    from bot.pr_diff import code_names_in

    a = "\n".join(
        [
            "--- a/x.py",
            "+++ b/x.py",
            "@@ -1,3 +1,3 @@ class KVCacheManager:",  # hunk header: context, not a change
            " unchanged_context_name = 1",
            "-old = KVConnectorStats()",
            "+new = KVConnectorStats(_align_cacheable)  # plain words, and a_b is too short",
        ]
    )
    b = "@@ -1 +1 @@\n+x = KVConnectorStats"
    assert code_names_in([("x.py", a), ("y.py", b)]) == {
        "KVConnectorStats": ("x.py", "y.py"),
        "_align_cacheable": ("x.py",),
    }
    assert code_names_in([]) == {}


# --- files a PR only moves or changes in their imports --------------------------------


def _patch(*lines: str) -> str:
    return "\n".join(["@@ -10,6 +10,6 @@ import os", *lines])


def test_a_patch_of_import_lines_only_is_incidental():
    from bot.pr_diff import imports_only

    assert imports_only(_patch(" import os", "-from vllm.a import X", "+from vllm.b.a import X"))
    assert imports_only(_patch("-import vllm.a as a", "+import vllm.b.a as a", "+", " x = 1"))
    assert imports_only(_patch('-#include "old/ops.h"', '+#include "new/ops.h"'))
    # names inside a parenthesised import, the statement opening in the context lines
    block = _patch(
        " from vllm.model_executor.layers.fused_moe import (",
        "-    DeepGemmExperts,",
        "+    TritonOrDeepGemmExperts,",
        " )",
    )
    assert imports_only(block)
    # ...but not the code after the closing parenthesis, nor a name before the hunk's
    # own view of the statement (a new hunk may start inside some other block)
    assert not imports_only(block + "\n-run(DeepGemmExperts)\n+run(TritonOrDeepGemmExperts)")
    assert not imports_only("@@ -3,2 +3,2 @@\n-    DeepGemmExperts,\n+    Triton,")
    assert not imports_only(_patch("-x = load()", "+x = load(strict=True)"))
    assert not imports_only(_patch("-# import the old way", "+# import the new way"))
    assert not imports_only(_patch(" import os"))  # nothing changed
    assert not imports_only(_patch("+from vllm.a import X", "+X.run()"))


def test_incidental_files_are_pure_moves_and_import_only_changes():
    from bot.pr_diff import FileChange, incidental_files

    imports = _patch("-from vllm.a import X", "+from vllm.b import X")
    code = _patch("-x = 1", "+x = 2")
    got = incidental_files(
        [
            FileChange("new/mod.py", "renamed", "old/mod.py", 0, None),  # moved as is
            FileChange("new/b.py", "renamed", "old/b.py", 2, imports),  # moved, imports fixed
            FileChange("user.py", "modified", None, 2, imports),  # follows the move
            FileChange("new/c.py", "renamed", "old/c.py", 2, code),  # moved and changed
            FileChange("core.py", "modified", None, 2, code),
            FileChange("weights.bin", "modified", None, 0, None),  # binary: unknown
            FileChange("huge.py", "modified", None, 9000, None),  # too large to show: unknown
        ]
    )
    assert got == {"new/mod.py", "old/mod.py", "new/b.py", "old/b.py", "user.py"}


def test_a_copy_fixing_its_imports_leaves_its_source_counted():
    # git -C takes a file changed in the same push for a copy's source: GitHub lists the
    # source as its own entry too, and its changes are evidence, whatever the copy's
    from bot.pr_diff import FileChange, incidental_files

    imports = _patch("-from vllm.a import X", "+from vllm.b import X")
    code = _patch("-x = 1", "+x = 2")
    got = incidental_files(
        [
            FileChange("vllm/b/mod.py", "copied", "vllm/a/mod.py", 2, imports),
            FileChange("vllm/a/mod.py", "modified", None, 2, code),
        ]
    )
    assert got == {"vllm/b/mod.py"}


def test_a_record_lists_incidental_files_by_path_or_index():
    facts = facts_from_record(
        {"number": 1, "title": "t", "files": ["a.py", "b.py", "c.py"], "incidental": [0, "c.py"]}
    )
    assert facts.incidental == {"a.py", "c.py"}
    assert facts_from_record({"number": 1, "title": "t"}).incidental == frozenset()
    with pytest.raises(ValueError, match=r"incidental: no file at index 3 \(files lists 1\)"):
        facts_from_record({"number": 1, "title": "t", "files": ["a.py"], "incidental": [3]})


# `<!--` shown as code: in a fenced block (a fence with a blank line inside is not
# mistaken for a code span) or an indented one
CODE_COMMENT_BODIES = [
    "Repro:\n\n```html\n<!-- the template's hint\n\nis not closed here\n```\n\n",
    "Repro:\n\n    <!-- the template's hint, shown as code\n\n    and not closed here\n\n",
]


@pytest.mark.parametrize("code", CODE_COMMENT_BODIES, ids=["fenced", "indented"])
def test_an_html_comment_opener_inside_a_code_block_hides_nothing(code):
    # comments were removed before code blocks, so `<!--` shown as code ran to the end of
    # the description: the references, the relations and the author's prose after it
    # were lost. The fix of commit 4c1df37 covered inline code only.
    body = code + "Fixes #123. The prefix cache keeps its hits."
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="t", body=body)
    assert facts.refs == (123,)
    assert "prefix cache" in facts.clean_body
    assert "template's hint" not in facts.clean_body


def test_an_indented_line_inside_an_html_comment_stays_hidden():
    # inside a comment an indented line is not code: the comment still ends at its "-->"
    body = "<!-- hint\n\n    indented inside the hint\n\n-->\nThe prefix cache keeps its hits."
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="t", body=body)
    assert "indented inside" not in facts.clean_body
    assert "prefix cache" in facts.clean_body


# --- tags, code spans and renames as GitHub reads them ---------------------------------


def test_img_alt_attribute_is_not_description_text():
    # GitHub's uploader wrote `<img width=".." alt="<file name>" src="https://...">`: the
    # URL, its last attribute, must not take the tag's `">` and leave the tag open
    screenshot = (
        '<img width="1000" alt="image" '
        'src="https://github.com/user-attachments/assets/5c9b1c1a-1f0e-4b7a-9d1e-0c3d2b1a9f00">'
    )
    cleaned = clean_body("Cut TTFT of the first request.\n\n" + screenshot + "\n")
    assert "alt=" not in cleaned and "image" not in cleaned, cleaned
    assert cleaned == "Cut TTFT of the first request."


@pytest.mark.parametrize(
    "shown", ["`#52419`", "``#52419``", "<code>#52419</code>", "<pre>#52419</pre>"]
)
def test_a_number_shown_as_code_is_no_reference(shown):
    # GitHub links no `#N` written as code, inline as well as in a block: a build
    # number in backticks is no tie to that PR
    body = f"Broken since nightly wheel {shown} (Buildkite), see #77."
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="t", body=body)
    assert facts.refs == (77,)
    title = PRFacts(repo="vllm-project/vllm", number=1, title="Revert `#52419` #78", body="")
    assert title.refs == (78,)


def test_brackets_in_a_title_code_span_are_not_tags():
    # a code span is text as written, brackets and all
    title = "[Bugfix] Fix merging `dict[str, KVConnectorStats]` across DP ranks"
    assert title_tags(title) == ("Bugfix",)
    assert title_text(title) == "Fix merging `dict[str, KVConnectorStats]` across DP ranks"
    # a code span inside a tag leaves it a tag
    assert title_tags("[`torch.compile`] Fix `a[0]` [ROCm]") == ("`torch.compile`", "ROCm")
    assert title_text("[`torch.compile`] Fix `a[0]` [ROCm]") == "Fix `a[0]`"


def test_a_rename_is_one_of_the_prs_files():
    # GitHub lists a rename once, with both paths
    files = ("vllm/a_new.py", "vllm/a_old.py", "vllm/b.py")
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="t", files=files, listed_files=2)
    assert facts.file_count == 2
    assert PRFacts(repo="vllm-project/vllm", number=1, title="t", files=files).file_count == 3


# --- a backtick or a code tag that hid a reference ---


def test_a_stray_backtick_in_one_bullet_does_not_hide_a_reference_in_the_next():
    """GitHub reads each list item as its own block: a lone backtick ("the runner`s") in
    one bullet opens no code span, and `#52419` in the next is a link. reference_text
    pairs that backtick with the first one of a later bullet (paragraph_code_spans only
    splits at blank lines), so "Follow-up to #52419" is read as code: the note of PR
    52419 (source_ref) is no longer linked, and the relation tie is lost. Before the
    change (no inline-code removal) the tie held."""
    from bot.library import load_library
    from bot.match_config import load_match_config
    from bot.matching import match_pr
    from bot.relations import related_refs

    lib, cfg = load_library(), load_match_config()
    body = (
        "## Purpose\n"
        "- Fix the runner`s crash when the hash table is empty\n"
        "- Follow-up to #52419\n"
        "- Add a `--max-model-len` check\n"
    )
    facts = PRFacts(
        repo="vllm-project/vllm", number=60000, title="Fix crash on empty hash table", body=body
    )
    assert 52419 in facts.refs
    assert [r.number for r in related_refs(body, "vllm-project/vllm")] == [52419]
    linked = [m.note.id for m in match_pr(facts, lib, cfg).matches]
    assert "vllm-0436d44c" in linked  # the note of PR 52419


def test_code_tags_written_as_inline_code_hide_no_reference():
    """ "`<code>`" and "`</code>`" written in backticks are literal text on GitHub, not an
    element; `without_inline_code` removes `<code>` elements before the inline code
    spans, so it takes the two quoted tags for one element and drops the "Fixes #52419"
    between them: the relation (and the PR's reference) is lost."""
    from bot.relations import Relation, related_refs

    body = (
        "The docs page now wraps names in `<code>`.\n"
        "Fixes #52419.\n"
        "The stray `</code>` at the end of the page is gone too."
    )
    assert [(r.number, r.relation) for r in related_refs(body, "vllm-project/vllm")] == [
        (52419, Relation.FIXES)
    ]
    assert (
        52419
        in PRFacts(
            repo="vllm-project/vllm", number=60000, title="Docs: fix code tags", body=body
        ).refs
    )


# --- code spans, fences and HTML comments as CommonMark reads them ---


# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a blank line holding spaces does not end a paragraph
# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a `1)` list item does not end a paragraph
def test_a_code_span_does_not_cross_a_spaces_only_line_or_a_parenthesis_list_item():
    assert paragraph_code_spans("a `x\n  \ny` b") == []
    assert paragraph_code_spans("1) `a\n2) b`") == []


# kills: bot/markdown_text.py:_PARAGRAPH_BREAK seven `#` taken for a heading
# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a `#` indented four spaces taken for a heading
def test_lines_that_are_no_heading_keep_a_code_span_in_its_paragraph():
    assert paragraph_code_spans("a `x\n####### y`") == [(2, 15)]
    assert paragraph_code_spans("a `x\n    # y`") == [(2, 13)]


# kills: bot/markdown_text.py:_FENCE_OPEN two backticks open a fence
# kills: bot/markdown_text.py:_FENCE_CLOSE a fence closed by a line with an info string
# kills: bot/markdown_text.py:_fence_closed a tilde line closes a backtick fence
def test_what_opens_and_closes_a_fence_as_commonmark_says():
    assert without_fences("``\ncode\n``") == "``\ncode\n``"  # inline code, no fence
    assert without_fences("```\na\n``` x\nb") == "\n\n\n"  # "``` x" closes nothing
    assert without_fences("```\na\n~~~\nb") == "\n\n\n"


# kills: bot/markdown_text.py:_fence_opened a tilde fence with a backtick in its info string refused
# kills: bot/markdown_text.py:_fence_opened a backtick fence with a backtick in its info string
# taken
def test_only_a_backtick_fence_may_not_have_a_backtick_in_its_info_string():
    assert without_fences("~~~ a`b\ncode\n~~~\nafter") == "\n\n\nafter"
    assert without_fences("```a`b\ncode") == "```a`b\ncode"


# kills: bot/markdown_text.py:_NESTED_OPEN a `1)` list item's fence not seen at depth
def test_a_fence_on_a_nested_parenthesis_list_items_line_is_code():
    assert without_fences("  1) ```\n  code\n  ```\nafter", nested=True) == "\n\n\nafter"


# kills: bot/markdown_text.py:_quoted every quote counted one deep
# kills: bot/markdown_text.py:without_fences a fence stays open after the quote that held it ended
def test_a_quoted_fence_ends_with_its_quote():
    assert without_fences("> > ```\n> > code\n> after", nested=True) == "\n\n> after"
    assert without_fences("> ```\n> code\nplain\n> more", nested=True) == "\n\nplain\n> more"


# kills: bot/markdown_text.py:without_fences a lone carriage return is no line end
def test_a_fence_in_a_text_with_carriage_returns_only_is_found():
    assert without_fences("```\ra\r```\rb") == "\n\n\nb"


# kills: bot/markdown_text.py:without_indented_code a text indented with tabs only is returned
# unparsed
def test_a_code_block_indented_with_a_tab_is_code():
    assert without_indented_code("para\n\n\tcode\nafter") == "para\n\n\nafter"


# kills: bot/markdown_text.py:_code_span_ranges backtick runs of any length pair
# kills: bot/markdown_text.py:_code_span_ranges the run after an unpaired one skipped
def test_a_code_span_closes_only_at_a_run_as_long_as_its_opening():
    assert paragraph_code_spans("``a`b`` c") == [(0, 7)]
    assert paragraph_code_spans("` ``a``") == [(2, 7)]


# kills: bot/markdown_text.py:replace_code_spans the mark for a code span left out
def test_code_spans_are_replaced_by_the_mark_given():
    assert replace_code_spans("a `b` c", "X") == "a X c"


# kills: bot/markdown_text.py:HTML_COMMENT an HTML comment left open is not matched
def test_an_html_comment_left_open_runs_to_the_end_of_the_text():
    assert HTML_COMMENT.sub("", "a<!-- b\nc") == "a"


# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a `+` bullet does not end a paragraph
# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a quote's line does not end a paragraph
# kills: bot/markdown_text.py:_PARAGRAPH_BREAK a dash glued to a word (`-y`) taken for a list item
def test_a_code_span_stops_at_a_plus_bullet_or_a_quote_but_not_at_a_glued_dash():
    assert paragraph_code_spans("- `a\n+ b`") == []
    assert paragraph_code_spans("a `x\n> y`") == []
    assert paragraph_code_spans("a `x\n-y` z") == [(2, 8)]


# kills: bot/markdown_text.py:_NESTED_CLOSE a nested fence closed by a line with an info string
# kills: bot/markdown_text.py:without_fences a quoted fence's closing line not read inside its quote
def test_a_nested_or_quoted_fence_closes_only_at_a_bare_run_of_its_own():
    assert without_fences("```\na\n``` x\nb", nested=True) == "\n\n\n"
    assert without_fences("> ```\n> code\n> ```\n> after", nested=True) == "\n\n\n> after"


# kills: bot/markdown_text.py:without_fences quote markers stripped outside nested mode
def test_outside_nested_mode_a_fence_in_a_quote_is_not_blanked_line_by_line():
    # (the strict reading leaves block quotes to the renderer: comment_prose's own use)
    assert without_fences("> ```\nx\n> ```") == "> ```\nx\n> ```"


def test_a_fenced_block_inside_a_quote_is_code_whatever_else_the_text_holds():
    # The opt-out used to be read on the text without its code, where a quoted fence was
    # left to cmark-gfm, which was skipped when the text had no four spaces or tab: a PR
    # quoting the opt-out instruction ("> ```\n> <!-- no-review-notes -->\n> ```")
    # opted out of notes unless an indented line was somewhere else in it
    from bot.sticky import opted_out_by_pr

    quoted = "> To opt out, add:\n> ```\n> <!-- no-review-notes -->\n> ```\n"
    for body in (quoted + "\n    x = 1\n", quoted, quoted.replace("```", "~~~")):
        pr = PRFacts("vllm-project/vllm", 1, "Fix", body=body)
        assert opted_out_by_pr(pr, "no-review-notes") is None, body


# --- title tags, a description's clean-up, references and code names ---


# kills: bot/pr_text.py:_TAG a tag may be at most 39 characters, not 40
def test_a_tag_is_at_most_forty_characters():
    assert title_tags("[" + "x" * 40 + "] Fix") == ("x" * 40,)
    assert title_tags("[" + "x" * 41 + "] Fix") == ()


# kills: bot/pr_text.py:_CC_PREFIX a conventional-commit prefix with `!` (breaking) is not read
def test_a_breaking_conventional_commit_scope_is_a_tag_too():
    assert title_tags("feat(core)!: drop the v0 engine") == ("core",)
    assert title_text("feat(core)!: drop the v0 engine") == "drop the v0 engine"


# kills: bot/pr_text.py:_CC_PREFIX a conventional-commit prefix after leading spaces is not read
def test_a_conventional_commit_prefix_after_leading_spaces_is_read():
    assert title_tags("  fix(spec-decode): keep the cache") == ("spec-decode",)


# kills: bot/pr_text.py:title_tags the conventional-commit scope goes after the bracketed tags
# kills: bot/pr_text.py:title_tags the conventional-commit scope keeps its spaces
def test_a_conventional_commit_scope_comes_first_and_stripped():
    assert title_tags("feat( core ): [Misc] add a flag") == ("core", "Misc")


# kills: bot/pr_text.py:title_tags a tag's text keeps its surrounding spaces
# kills: bot/pr_text.py:title_text an empty tag (`[ ]`) is kept
def test_tags_are_stripped_and_an_empty_one_is_no_tag():
    assert title_tags("[ Bugfix ][ ] Keep EAGLE cache") == ("Bugfix",)


# kills: bot/pr_text.py:title_text a tag removed from inside a word run leaves no space
def test_a_tag_inside_a_word_run_leaves_a_word_break():
    assert title_text("Fix foo[ROCm]bar") == "Fix foo bar"


# kills: bot/pr_text.py:title_text only runs of three or more spaces collapse
def test_runs_of_spaces_in_a_title_are_one_space():
    assert title_text("[Bugfix] Keep  EAGLE\t\tcache") == "Keep EAGLE cache"


# kills: bot/pr_text.py:_DETAILS_TAG `</DETAILS>` (upper case) does not close a details element
# kills: bot/pr_text.py:_PRE_END `</PRE>` (upper case) does not close a pre element
def test_upper_case_details_and_pre_end_tags_close_their_element():
    body = (
        "<DETAILS><summary>log</summary>hidden words</DETAILS>\nKept one.\n"
        "<PRE>hidden too</PRE>\nKept two."
    )
    cleaned = clean_body(body)
    assert "Kept one." in cleaned and "Kept two." in cleaned
    assert "hidden" not in cleaned


# kills: bot/pr_text.py:_HTML_TAG closing HTML tags (`</b>`) are left in the text
def test_closing_html_tags_are_removed_with_the_opening_ones():
    assert clean_body("Speeds up <b>fused MoE</b> on <sub>H100</sub>.") == (
        "Speeds up fused MoE on H100."
    )


# kills: bot/pr_text.py:_TEMPLATE_TAIL an indented "**BEFORE SUBMITTING" line does not cut the
#   template
# kills: bot/pr_text.py:prose the template's tail is never cut
def test_an_indented_template_tail_is_cut_too():
    body = "Fix the cache.\n  **BEFORE SUBMITTING, PLEASE READ the checklist**\nKernel"
    assert clean_body(body) == "Fix the cache."


# kills: bot/pr_text.py:_TEMPLATE_LINES template headings are removed only in the template's case
def test_template_headings_are_removed_whatever_their_case():
    assert clean_body("## purpose\nFix the cache.\n## TEST PLAN\nrun it") == (
        "Fix the cache.\n\nrun it"
    )


# kills: bot/pr_text.py:_LOG_LINE `WARN` log lines are kept
# kills: bot/pr_text.py:_LOG_LINE log lines with an ISO `T` timestamp are kept
# kills: bot/pr_text.py:_LOG_LINE `>>> ` prompt lines are kept
def test_warn_iso_timestamped_and_python_prompt_lines_are_removed():
    body = (
        "Fix the cache.\nWARN cache is full\n2025-01-02T03:04:05 worker started\n"
        ">>> import vllm\nDone."
    )
    assert clean_body(body) == "Fix the cache.\n\nDone."


# kills: bot/pr_text.py:_LOG_LINE a table row whose first cell is empty is taken for a rule row
def test_a_table_row_with_an_empty_first_cell_is_no_rule_row():
    body = "| | EAGLE drafter |\n| --- | --- |\n| fixed | yes |"
    assert clean_body(body) == "| | EAGLE drafter |\n\n| fixed | yes |"


# kills: bot/pr_text.py:_TRACEBACK a traceback's closing `KeyboardInterrupt` line is kept
def test_a_traceback_ended_by_keyboard_interrupt_is_removed_whole():
    body = (
        "Stop the server cleanly.\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/vllm/vllm/entrypoints/api_server.py", line 9, in main\n'
        "KeyboardInterrupt\n"
        "It now exits."
    )
    assert clean_body(body) == "Stop the server cleanly.\n\nIt now exits."


# kills: bot/pr_text.py:_MOSTLY_NUMBERS a line of underscores (a rule) is not "mostly numbers"
def test_a_rule_of_underscores_is_removed():
    assert clean_body("Fix the cache.\n___\nMore words.") == "Fix the cache.\nMore words."


# kills: bot/pr_text.py:REF_HASH a reference has at most six digits
def test_a_reference_has_up_to_seven_digits():
    assert referenced_prs("see #1234567", "vllm-project/vllm") == (1234567,)
    assert referenced_prs("see #12345678", "vllm-project/vllm") == ()


# kills: bot/pr_text.py:_numeric_line a line exactly half digits is taken for figures
def test_a_line_half_of_digits_is_words_not_figures():
    assert clean_body("Tested on:\ngfx942") == "Tested on:\ngfx942"


# kills: bot/prfacts.py:PRFacts a figures line must also be all non-letters (`or` made `and`)
def test_a_benchmark_row_with_units_is_figures():
    assert clean_body("Faster decode.\n| 128 | 2048 | 1.25x |") == "Faster decode."


# kills: bot/pr_text.py:_without_result_sections a Test Result section with no later heading keeps
# its content
def test_a_test_result_section_runs_to_the_end_without_a_later_heading():
    assert clean_body("Fix the cache.\n## Test Result\nEAGLE throughput is up") == (
        "Fix the cache."
    )


# kills: bot/pr_text.py:_HEADING a heading with nothing after its `#`s does not end a section
def test_an_empty_heading_ends_the_test_result_section():
    body = "Fix the cache.\n## Test Result\nEAGLE throughput is up\n##\nAlso renames the flag."
    assert clean_body(body) == "Fix the cache.\nAlso renames the flag."


# kills: bot/pr_text.py:_details_end an unclosed `<details>` hides only its own tag
# kills: bot/pr_text.py:_pre_end an unclosed `<pre>` hides only its own tag
def test_an_unclosed_details_or_pre_hides_the_rest_of_the_description():
    body = "Fix the cache.\n<details><summary>logs</summary>\nEAGLE crash log"
    assert clean_body(body) == "Fix the cache."
    assert clean_body("Fix the cache.\n<pre>\nEAGLE crash log") == "Fix the cache."


# kills: bot/pr_text.py:_without_hiding a code span ending where a comment opens still holds it
# (hangs)
def test_a_comment_right_after_an_inline_code_span_is_hidden():
    assert clean_body("Use `x`<!-- a hint -->here.") == "Use `x`here."


# kills: bot/pr_text.py:_CODE_HINT a tab-indented code block is not looked for
def test_a_comment_opener_in_tab_indented_code_hides_nothing():
    cleaned = clean_body("Fix the cache.\n\n\t<!-- a literal opener\n\nKept words.")
    assert cleaned == "Fix the cache.\n\nKept words."


# kills: bot/pr_text.py:prose trailing spaces are kept on each line
def test_trailing_spaces_are_trimmed_from_each_line():
    assert clean_body("Fix the cache.   \nMore words. ") == "Fix the cache.\nMore words."


# kills: bot/pr_text.py:without_comments_and_code a lone `\r` is not a line end before comments are
# read (crashes)
def test_a_lone_carriage_return_ends_a_line_before_comments_are_read():
    assert clean_body("Use `x`.\r<!-- a hint -->\rMore words.") == "Use `x`.\n\nMore words."


# kills: bot/pr_text.py:_CODE_ELEMENT an upper-case `<CODE>` element is not shown as code
def test_an_upper_case_code_element_is_no_reference():
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="x", body="See <CODE>#52419</CODE>")
    assert facts.refs == ()


# kills: bot/pr_text.py:referenced_prs `owner/name#N` must spell the repository in its own case
# kills: bot/pr_text.py:referenced_prs a github.com link must spell the repository in its own case
def test_a_reference_names_the_repository_in_any_case():
    text = "see VLLM-Project/vllm#51318 and https://github.com/vLLM-project/VLLM/pull/49613"
    assert referenced_prs(text, "vllm-project/vllm") == (51318, 49613)


# kills: bot/prfacts.py:PRFacts.file_count `listed_files` is taken as is, above the distinct paths
def test_a_files_listing_count_never_exceeds_its_distinct_paths():
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="x", files=("a.py",), listed_files=3)
    assert facts.file_count == 1


# kills: bot/prfacts.py:PRFacts.refs a line break in the title is kept, ending a code span in it
def test_a_code_span_in_a_title_hides_a_reference_across_a_line_break():
    facts = PRFacts(repo="vllm-project/vllm", number=1, title="Fix `build\n\n#52419`", body="")
    assert facts.refs == ()


# kills: bot/pr_diff.py:code_names_in a diff's `---`/`+++` file headers are read as changed lines
def test_the_file_headers_of_a_diff_name_no_code():
    from bot.pr_diff import code_names_in

    patch = "--- a/vllm/old_module.py\n+++ b/vllm/new_module.py\n@@ -1 +1 @@\n+x = warmup_step"
    assert code_names_in([("vllm/new_module.py", patch)]) == {
        "warmup_step": ("vllm/new_module.py",)
    }


# kills: bot/pr_diff.py:code_names_in one name more than MAX_CODE_NAMES is kept
def test_code_names_stop_at_their_bound_but_known_ones_still_gain_files():
    from bot.pr_diff import MAX_CODE_NAMES, code_names_in

    many = "\n".join(f"+name_{n} = 1" for n in range(MAX_CODE_NAMES + 2))
    names = code_names_in([("a.py", many), ("b.py", "+name_0 = 2")])
    assert len(names) == MAX_CODE_NAMES
    assert names["name_0"] == ("a.py", "b.py")


# kills: bot/pr_diff.py:imports_only a new hunk stays inside the previous hunk's `import (`
def test_a_new_hunk_does_not_continue_a_parenthesised_import():
    from bot.pr_diff import imports_only

    patch = (
        "@@ -1,2 +1,2 @@\n from vllm.a import (\n-    Old,\n+    New,\n"
        "@@ -50,1 +50,1 @@\n-    x = Old\n+    x = New"
    )
    assert not imports_only(patch)


# kills: bot/pr_diff.py:imports_only a one-line `from x import (a, b)` opens an import block
def test_a_one_line_parenthesised_import_opens_no_block():
    from bot.pr_diff import imports_only

    patch = "@@ -1,1 +1,2 @@\n-from vllm.a import (X)\n+from vllm.a import (X, Y)\n+run(Y)"
    assert not imports_only(patch)


# kills: bot/prfacts.py:payload_files a payload's files list with a non-path in it is taken
def test_a_payload_files_list_with_a_non_path_is_refused():
    from bot.prfacts import payload_files

    assert payload_files({"files": ["a.py", "b.py"]}) == ["a.py", "b.py"]
    with pytest.raises(ValueError, match=r"^files\[1\]: not a string"):
        payload_files({"files": ["a.py", 3]})


# kills: bot/prfacts.py:_label_names a payload label with an empty name is kept
def test_a_payload_label_without_a_name_is_left_out():
    labels = [{"name": ""}, {"name": "ci/build"}, {}]
    payload = {
        "repository": {"full_name": "o/r"},
        "pull_request": {"number": 3, "title": "x", "labels": labels},
    }
    assert facts_from_payload(payload).labels == ("ci/build",)


# kills: bot/prfacts.py:facts_from_record a record number in non-ASCII digits (Arabic-Indic) is
# taken
def test_a_record_number_in_non_ascii_digits_is_no_pr_number():
    with pytest.raises(ValueError, match="number"):
        facts_from_record({"number": "\u0661\u0662", "title": "t"})


# kills: bot/prfacts.py:facts_from_record a negative number taken (written as a string, refused)
@pytest.mark.parametrize("number", [-5, "-5"])
def test_a_record_number_below_0_is_no_pr_number(number):
    # `review-notes match --batch` printed {"number": -5, ...} for the one, skipped the other
    with pytest.raises(ValueError, match="number: not a PR number"):
        facts_from_record({"number": number, "title": "t"})
    assert facts_from_record({"number": 0, "title": "t"}).number == 0  # none given, as --title


# kills: bot/pr_text.py:_numeric_line none: a defect seen while studying the survivor that made a
# line exactly half digits "figures" (`digits * 2 >=`): a list item naming a GPU was one too
def test_a_list_of_the_gpus_a_pr_was_tested_on_is_words_not_figures():
    # "- H100" is 3 digits of 5 characters: `_numeric_line` takes it for a benchmark row,
    # and the description loses topic keywords (H100 and B200 are the nvidia topic's)
    # that "Tested on H100 and B200." keeps
    assert clean_body("Tested on:\n- H100\n- B200") == "Tested on:\n- H100\n- B200"
    # a row of figures is still one, with the GPU it ran on in it
    assert clean_body("On:\n- H100\n| 123.4 | 56.78 |\nB200 | 1234.5 | 67.89") == "On:\n- H100"


# --- "cannot" denies as "can't" does ---


# Found beside the mutants (fixed), probing what bot/relations.py's `_DENIED` reads as a denial
# ("does not fix #1", "isn't a follow-up to #3": the words just before the phrase deny
# it). It knows `not` as a word of its own (`\bnot`) and `n't`, so "can't fix #5" is no
# relation, but "cannot fix #5", the same words written as one, reads as "fixes #5" (`not`
# inside `cannot` has no word edge). What a PR author sees: a description saying "This
# cannot fix #5 on its own" gets a sticky comment that shows #5's notes as the notes of
# the PR it fixes (bot.sticky.notes_of_related_prs gives the relation as the reason).
def test_cannot_denies_a_relation_as_cant_does():
    from bot.relations import related_refs

    repo = "vllm-project/vllm"
    assert related_refs("This can't fix #5 on its own; see below.", repo) == []
    assert related_refs("This cannot fix #5 on its own; see below.", repo) == []
    assert related_refs("This doesn’t fix #5 on its own; see below.", repo) == []
    assert related_refs("This should fix #5.", repo)[0].number == 5  # a tie still


# --- scopes, paragraphs, fences and comments; code names and import-only patches ---


# kills: bot/pr_text.py:title_text a tag inside a conventional commit's scope cut again, leaving
# `):`
def test_a_tag_inside_a_conventional_commit_scope_leaves_no_trace_in_the_text():
    assert title_text("feat([Core]): keep the EAGLE cache") == "keep the EAGLE cache"


def test_a_tag_written_as_a_conventional_commit_scope_is_one_tag():
    # the scope `[Core]` was read twice, as `[Core]` and as `Core`
    assert title_tags("feat([Core]): keep the EAGLE cache") == ("Core",)
    assert title_tags("feat([Core]): [Spec Decode] keep it") == ("Core", "Spec Decode")


# kills: bot/pr_text.py:_numeric_line a line of spaces taken for a row of figures and dropped
def test_a_line_of_spaces_still_separates_two_paragraphs():
    body = "Fix the sampler.\n   \nKeep the EAGLE cache."
    assert clean_body(body) == "Fix the sampler.\n\nKeep the EAGLE cache."


# kills: bot/pr_text.py:_without_result_sections a test result section run on to the last heading of
# its level
def test_a_test_result_section_ends_at_the_first_heading_of_its_level():
    body = (
        "## Test Result\n12 passed in 3.1s\n"
        "## Notes\nKeep the EAGLE cache.\n"
        "## Follow-up\nThe drafter comes next."
    )
    cleaned = clean_body(body)
    assert "passed" not in cleaned
    assert "Keep the EAGLE cache." in cleaned and "The drafter comes next." in cleaned


# kills: bot/pr_text.py:without_comments_and_code a fence indented past a list item's paragraph left
# as text
def test_a_fence_indented_too_far_in_a_list_item_is_code():
    # GitHub reads it as the paragraph's lazy lines; it is the author's command all the same
    body = "- Run the server:\n      ```\n      vllm serve --speculative-config eagle\n      ```\n"
    assert clean_body(body + "- Keep the cache.") == "- Run the server:\n\n- Keep the cache."


# kills: bot/pr_text.py:_code_spans a comment opener in such a fence taken for a comment
def test_a_comment_opener_in_a_tilde_fence_indented_too_far_hides_nothing():
    body = "- Run the server:\n      ~~~\n      vllm serve <!-- x\n      ~~~\n- Keep the cache."
    assert "Keep the cache." in clean_body(body + " -->")


# kills: bot/pr_text.py:referenced_prs.blank a link blanked to its target's length, shifting what
# follows
def test_references_after_links_keep_the_order_they_are_written_in():
    text = (
        "Follows [the forum thread on the EAGLE drafter's cache registration](https://discuss.vllm.ai/t/1)"
        " and [the first fix](https://github.com/vllm-project/vllm/pull/5); fixes #7."
    )
    assert referenced_prs(text, "vllm-project/vllm") == (5, 7)


# kills: bot/pr_diff.py:code_names_in removed lines not read for code names
def test_a_code_name_only_on_a_removed_line_is_named():
    from bot.pr_diff import code_names_in

    patch = "@@ -1 +1 @@\n-x = deep_gemm_warmup()\n+x = None"
    assert code_names_in([("warmup.py", patch)]) == {"deep_gemm_warmup": ("warmup.py",)}


# kills: bot/pr_diff.py:_IDENTIFIER a four-character name (`q_pe`, MLA's) too short to be read
def test_code_names_of_four_characters_are_read_and_three_are_not():
    from bot.pr_diff import code_names_in

    patch = "@@ -1 +1 @@\n+q_pe, k_pe = split(a_b)"
    assert code_names_in([("mla.py", patch)]) == {"k_pe": ("mla.py",), "q_pe": ("mla.py",)}


# kills: bot/pr_diff.py:code_names_in code names in the order the diff names them, not sorted
def test_code_names_come_sorted_whatever_order_the_diff_names_them_in():
    from bot.pr_diff import code_names_in

    patch = "@@ -1 +1 @@\n+use(warmup_step, KVConnectorStats, _align_cacheable)"
    names = code_names_in([("x.py", patch)])
    assert list(names) == ["KVConnectorStats", "_align_cacheable", "warmup_step"]


# kills: bot/pr_diff.py:_IMPORT an indented import (`if TYPE_CHECKING:`) taken for code
# kills: bot/pr_diff.py:_IMPORT `#  include` (an include nested in an `#if`) taken for code
def test_indented_imports_and_spaced_includes_are_import_lines():
    from bot.pr_diff import imports_only

    assert imports_only(
        _patch(" if TYPE_CHECKING:", "-    from vllm.a import X", "+    from vllm.b import X")
    )
    assert imports_only(_patch(" #if USE_ROCM", '-#  include "old/ops.h"', '+#  include "new.h"'))


# kills: bot/pr_diff.py:_IMPORT a docstring line "from those imported ..." taken for an import
def test_a_line_opening_with_from_and_an_import_word_is_no_import():
    from bot.pr_diff import imports_only

    assert not imports_only(
        _patch("-    from those imported before,", "+    from those imported here,")
    )


# kills: bot/pr_diff.py:imports_only a call's open parenthesis taken for an import block
def test_arguments_of_a_call_split_over_lines_are_no_import():
    from bot.pr_diff import imports_only

    assert not imports_only(_patch(" run(", "-    strict=False,", "+    strict=True,", " )"))


# kills: bot/pr_diff.py:imports_only `\ No newline at end of file` read as a changed line
def test_a_no_newline_marker_leaves_an_import_only_patch_one():
    from bot.pr_diff import imports_only

    patch = _patch("-from vllm.a import X", "+from vllm.b import X", "\\ No newline at end of file")
    assert imports_only(patch)


# kills: bot/pr_diff.py:imports_only an added line of spaces taken for code
def test_added_lines_of_spaces_are_blank_lines():
    from bot.pr_diff import imports_only

    assert imports_only(_patch("-from vllm.a import X", "+from vllm.b import X", "+    "))


# kills: bot/pr_diff.py:imports_only a patch's first lines, before any hunk header, read as an
# import
def test_a_patch_without_a_hunk_header_starts_outside_any_import():
    from bot.pr_diff import imports_only

    assert not imports_only("+x = load()")


# cmark-gfm gives a fence left open in a block quote (or a list item in one) the line after the
# quote too, so an opt-out written there was taken for code and the bot kept commenting on a PR
# whose author had asked it not to
def test_an_opt_out_after_a_fence_left_open_in_a_quote_is_read():
    from bot.sticky import opted_out_by_pr

    for held in ("> ```\n> RuntimeError: boom\n", "> - ```\n>   boom\n"):
        body = "Fixes the sampler.\n\n" + held + "<!-- no-review-notes -->"
        pr = PRFacts("vllm-project/vllm", 1, "Fix", body=body)
        assert opted_out_by_pr(pr, "no-review-notes") is PauseCause.DESCRIPTION, held
    assert without_indented_code("> > ```\n> > boom\n> after") == "\n\n> after"

"""`notes refs`: what a note's source PR says it relates to, read from GitHub."""

from __future__ import annotations

import http.server
import threading

import pytest
from test_check import VALID
from webhook_kit import base_env, clear_error, cli, run_cli

from bot.library import ROOT
from bot.note_refs import Suggestion, mentioned, render_refs, suggest
from bot.notes import Note
from bot.relations import Related, Relation, related_refs
from tests.fake_github import Fault

REPO = "vllm-project/vllm"


def rel(body: str, own: int | None = None) -> list[tuple[int, str]]:
    return [(r.number, r.relation.value) for r in related_refs(body, REPO, own_number=own)]


@pytest.mark.parametrize(
    "body, expected",
    [
        ("Fixes #52448", [(52448, "fixes")]),
        ("closes: #7, #8 and #9", [(7, "fixes"), (8, "fixes"), (9, "fixes")]),
        ("Follow-up to #51430.", [(51430, "follows up on")]),
        ("follow up of PR #12", [(12, "follows up on")]),
        ("Fix for the bug in #4242", [(4242, "fixes")]),
        ("This reverts #1 partially", [(1, "reverts")]),
        ("Supersedes vllm-project/vllm#33", [(33, "supersedes")]),
        ("Based on https://github.com/vllm-project/vllm/pull/50011", [(50011, "builds on")]),
        ("Builds on https://github.com/vllm-project/vllm/issues/600", [(600, "builds on")]),
        # a reference written as a Markdown link: its target is this repository's PR
        # (PRs 52093 and 50932)
        (
            "- Revert [#51430](https://github.com/vllm-project/vllm/pull/51430) and restore",
            [(51430, "reverts")],
        ),
        (
            "fixes [#50877](https://github.com/vllm-project/vllm/issues/50877), "
            "[that bug](https://github.com/vllm-project/vllm/issues/9) and #10",
            [(50877, "fixes"), (9, "fixes"), (10, "fixes")],
        ),
        ("Fixes [#75919](https://buildkite.com/vllm/ci/builds/75919)", []),
        # as real source PRs put it
        ("Supersedes the draft #53010, which restricts", [(53010, "supersedes")]),
        ("This consolidates #51042 after coordination", [(51042, "supersedes")]),
        ("(taken from https://github.com/vllm-project/vllm/pull/56233)", [(56233, "builds on")]),
        # mere mentions say nothing
        ("See #123 for the numbers; cc #456", []),
        ("Benchmarks as in #5 and #6", []),
        # another repository's numbers are not this repository's PRs
        ("Fixes other/repo#7 and https://github.com/other/repo/pull/8", []),
        # the template's hint lives in a comment, samples in code blocks
        ("<!-- FIX #xxxx (link existing issues) Fixes #999 -->\nNo refs.", []),
        ("```\nReverts #1\n```\nplain text", []),
        # a word that only contains a phrase is no phrase
        ("prefix #3 and hotfixes #4", []),
        # a denied relation is none ("should fix" is the author's way to say it fixes)
        ("This PR does not fix #51593; a separate PR will.", []),
        ("Not a revert of #123, only a rename", []),
        ("This isn't a follow-up to #6", []),
        ("This should fix #4", [(4, "fixes")]),
        # "closed" and "resolved" before a noun are adjectives: they close nothing
        ("This revisits closed PR #51750 with a new design", []),
        ("as the resolved issue #3 asked", []),
        ("Closed #5; resolved: #6", [(5, "fixes"), (6, "fixes")]),
        # as verbs before a determiner they still close
        ("Resolved the issue #1234", [(1234, "fixes")]),
        ("Closed the previous PR #5", [(5, "fixes")]),
        ("This PR resolved the regression from #51750", [(51750, "fixes")]),
        ("Fixed the bug in #7", [(7, "fixes")]),
        ("Reverts #9. Not related to #10", [(9, "reverts")]),
        ("No tests needed. Fixes #12", [(12, "fixes")]),  # a negation elsewhere denies nothing
        ("This never fixed #13", []),
        ("It is not really a revert of #14", []),
        # Chinese text runs into the number: ASCII word edges, as bot.prfacts reads
        # references
        ("Reverts #52401中的改动，恢复 ROCm 默认。", [(52401, "reverts")]),
        ("修复：Fixes vllm-project/vllm#53155中提到的问题", [(53155, "fixes")]),
    ],
)
def test_related_refs_reads_relations_not_mentions(body, expected):
    assert rel(body) == expected


def test_the_first_relation_of_a_number_wins_and_the_own_number_is_skipped():
    body = "Fixes #10. Follow-up to #10 and #11. Reverts #5"
    assert rel(body, own=5) == [(10, "fixes"), (11, "follows up on")]
    quote = related_refs("Follow-up to #11, #12", REPO)[1].quote
    assert quote == "Follow-up to #11, #12"


def note(**extra) -> Note:
    fields = dict(
        id="vllm-test0001",
        repo=REPO,
        source_pr=100,
        verdict="deep",
        topics=["cuda-graphs"],
        title_zh="标题",
        title_en="A title",
        guidance="值得精读。",
    )
    return Note.model_validate({**fields, **extra})


def test_suggest_puts_prs_in_read_with_and_fixed_issues_in_issues():
    related = [
        Related(1, Relation.FOLLOWS, "Follow-up to #1"),  # a PR
        Related(2, Relation.FIXES, "Fixes #2"),  # an issue it fixes
        Related(3, Relation.BUILDS_ON, "Part of #3"),  # an issue: an RFC or tracker
        Related(4, Relation.FIXES, "Fixes #4"),  # a PR whose bug it fixes
        Related(5, Relation.FIXES, "Fixes #5"),  # GitHub does not know it
        Related(6, Relation.REVERTS, "Reverts #6"),  # listed already
    ]
    kinds = {1: True, 2: False, 3: False, 4: True, 5: None, 6: True}
    got = suggest(note(read_with=[6]), related, kinds)
    assert [(s.field, s.number) for s in got] == [("read_with", 1), ("issues", 2), ("read_with", 4)]
    lines = render_refs(note(read_with=[6]), got)
    assert lines[0] == "vllm-test0001 (PR 100):"
    assert '  read_with += 1  (follows up on: "Follow-up to #1")' in lines
    assert "  read_with = [6, 1, 4]" in lines and "  issues = [2]" in lines


def test_suggest_nothing_new_but_show_what_prose_names():
    n = note(issues=[2], read_with=[3])
    related = [Related(2, Relation.FIXES, "Fixes #2")]
    assert suggest(n, related, {2: False}) == []
    assert render_refs(n, []) == ["vllm-test0001 (PR 100):", "  nothing to add"]
    body = "#51430 narrowed the region; this restores the pre-#51430 one. Fixes #2. See #3, #100."
    assert mentioned(body, n, related) == [51430]
    assert render_refs(n, [], [51430]) == [
        "vllm-test0001 (PR 100):",
        "  also names #51430 (no relation stated: read the PR and decide)",
        "  nothing to add",
    ]


# a valid note whose source PR is 100 and that lists PR 20 already
NOTE_FILE = VALID.replace("source_pr = 52401", "source_pr = 100\nread_with = [20]")


def test_cli_reads_the_source_pr_and_tells_issues_from_prs(tmp_path, fake_github):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vllm-test0001.md").write_text(NOTE_FILE, "utf-8")
    (notes / "vllm-test0002.md").write_text(
        NOTE_FILE.replace("test0001", "test0002")
        .replace("source_pr = 100", "source_pr = 404")
        .replace("按 runner 选择 eager 区域", "另一篇"),  # another note, not a copy
        "utf-8",
    )
    body = (
        "## Purpose\nFollow-up to #20 and #21. Fixes #30, fixes #31.\n"
        "Part of #40. See #50 for numbers. Closes #99 (no such number)."
    )
    fake_github.add_pull(REPO, 100, body=body)
    fake_github.add_pull(REPO, 21)
    fake_github.add_pull(REPO, 31)
    fake_github.add_issue(REPO, 30)
    fake_github.add_issue(REPO, 40)
    fake_github.add_pat("ghp_curator", "curator")
    env = base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        GITHUB_TOKEN="ghp_curator",
        GITHUB_API_URL=fake_github.base_url,
    )

    run = cli("notes", "refs", str(notes), "--note", "vllm-test0001", env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "vllm-test0001 (PR 100):",
        "  also names #50 (no relation stated: read the PR and decide)",
        "  GitHub does not know #99 (left out)",
        '  read_with += 21  (follows up on: "Follow-up to #20 and #21")',
        '  issues += 30  (fixes: "Fixes #30")',
        '  read_with += 31  (fixes: "fixes #31")',
        "  read_with = [20, 21, 31]",
        "  issues = [30]",
    ]
    asked = {r.path for r in fake_github.requests}
    # a number already listed is not looked up; an unrelated mention neither
    assert f"/repos/{REPO}/issues/21" in asked
    assert f"/repos/{REPO}/issues/20" not in asked and f"/repos/{REPO}/issues/50" not in asked

    # every note: the one whose PR GitHub does not have is named, the others still printed
    run = cli("notes", "refs", str(notes), env=env, cwd=tmp_path)
    assert run.returncode == 1
    assert "vllm-test0002 (PR 404): not read:" in run.stderr
    assert "vllm-test0001 (PR 100):" in run.stdout
    assert "ghp_curator" not in run.stdout + run.stderr


def test_refs_says_on_stderr_what_the_github_client_logs_in_plain_redacted_lines(
    tmp_path, fake_github
):
    # a retry was written by Python's last-resort handler: the bare message, unredacted
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vllm-test0001.md").write_text(NOTE_FILE, "utf-8")
    fake_github.add_pull(REPO, 100, body="Follow-up to #21.")
    fake_github.add_pull(REPO, 21)
    fake_github.add_pat("ghp_curator", "curator")
    fake_github.inject("GET", f"/repos/{REPO}/pulls/100", Fault.error(502, "ghp_curator"))
    env = base_env(
        tmp_path,
        PYTHONPATH=str(ROOT),
        GITHUB_TOKEN="ghp_curator",
        GITHUB_API_URL=fake_github.base_url,
        REVIEW_NOTES_RETRY_BACKOFF="0",
    )
    run = cli("notes", "refs", str(notes), env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (line,) = [x for x in run.stderr.splitlines() if "try 2 of" in x]
    assert line.startswith("warning: bot.github_retry: GitHub "), line
    assert "[redacted]" in line and "ghp_curator" not in run.stderr


def test_cli_needs_usable_credentials_and_a_known_note(tmp_path, fake_github):
    env = base_env(tmp_path, PYTHONPATH=str(ROOT))
    run = cli("notes", "refs", env=env, cwd=tmp_path)
    assert run.returncode == 2 and "set GITHUB_TOKEN" in run.stderr
    env.update(GITHUB_TOKEN="ghp_x", GITHUB_API_URL=fake_github.base_url)
    run = cli("notes", "refs", "--note", "vllm-nope", env=env, cwd=tmp_path)
    assert run.returncode == 2 and "no such note with a source PR: vllm-nope" in run.stderr
    del env["GITHUB_TOKEN"]
    bad_key = "-----BEGIN RSA PRIVATE KEY-----\nnot a key\n-----END RSA PRIVATE KEY-----"
    env.update(GITHUB_APP_ID="1", GITHUB_PRIVATE_KEY=bad_key)
    run = cli("notes", "refs", env=env, cwd=tmp_path)
    assert run.returncode == 2 and "GITHUB_PRIVATE_KEY" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "not a key" not in run.stderr


def test_a_relation_after_a_fenced_html_comment_opener_is_read():
    assert [
        (r.number, r.relation)
        for r in related_refs(
            "Repro:\n\n```html\n<!-- a hint\n\nnot closed\n```\n\nFixes #123.", "vllm-project/vllm"
        )
    ] == [(123, Relation.FIXES)]


def test_a_quote_from_a_description_is_printed_inert():
    # the quote is the PR author's words, printed to a terminal
    got = [Suggestion("read_with", 1, Relation.FOLLOWS, "Follow-up to \x1b]8;;x\x07#1")]
    (line,) = [x for x in render_refs(note(), got) if "+=" in x]
    assert "\x1b" not in line and "\\x1b]8;;x\\x07#1" in line


# --- a reference shown as code --------------------------------------------------------


def test_a_reference_shown_as_code_relates_nothing():
    # GitHub links no `#N` shown as code; and a code span between a phrase and a
    # reference still keeps them apart, as the backticks did
    assert rel("Reverts `#6`, follows up on <code>#7</code>. Fixes #5") == [(5, "fixes")]
    assert rel("Fixes `x` #12") == []
    body = "Numbers: `#52419` and #52420"
    assert mentioned(body, note(), []) == [52420]


# --- `notes refs` with a GITHUB_API_URL that is not the API ---------------------------


class _HTMLHandler(http.server.BaseHTTPRequestHandler):
    """A GitHub Enterprise host's web UI: every path a 200 HTML page."""

    def do_GET(self):  # noqa: N802
        body = b"<html><body>Sign in to GitHub Enterprise</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET  # noqa: N815

    def log_message(self, *args):
        pass


def test_notes_refs_with_an_api_url_that_is_not_the_api_is_no_traceback(tmp_path):
    # docs/operating.md: GITHUB_API_URL for GHE is https://HOST/api/v3; given https://HOST, every
    # answer is a 200 HTML page. `notes refs` dies with KeyError: 'number' (prfacts) on
    # the first note, and the other notes are never read, where docs/curating.md promises "a note
    # whose PR cannot be read is named and the others still printed (exit 1)".
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HTMLHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        r = run_cli(
            tmp_path,
            "notes",
            "refs",
            "--note",
            "vllm-0436d44c",
            "--note",
            "vllm-0341d216",
            str(ROOT / "seeds/notes"),
            "--topics",
            str(ROOT / "config/topics.toml"),
            GITHUB_TOKEN="ghp_example",
            GITHUB_API_URL=f"http://127.0.0.1:{server.server_port}",
            REVIEW_NOTES_MAX_RETRIES="0",
            REVIEW_NOTES_SECONDS_BETWEEN_REQUESTS="0",
        )
    finally:
        server.shutdown()
    clear_error(r, "vllm-0436d44c", "vllm-0341d216")
    assert r.returncode == 1


# --- `notes refs`' suggestions: the numbers named, in order ---


# kills: bot/note_refs.py:render_refs the numbers named are joined without commas
def test_several_numbers_named_or_unknown_are_listed_with_commas():
    lines = render_refs(note(), [], [51430, 51431], [7, 8])
    assert "  also names #51430, #51431 (no relation stated: read the PR and decide)" in lines
    assert "  GitHub does not know #7, #8 (left out)" in lines


# kills: bot/note_refs.py:render_refs a field nothing is suggested for is printed unchanged
def test_only_the_fields_with_suggestions_get_a_line_to_paste():
    got = [Suggestion("read_with", 1, Relation.FOLLOWS, "Follow-up to #1")]
    lines = render_refs(note(read_with=[6], issues=[2]), got)
    assert "  read_with = [6, 1]" in lines
    assert not any(line.startswith("  issues = ") for line in lines)


# kills: bot/note_refs.py:mentioned a description GitHub sends as null is read as a string
def test_a_source_pr_without_a_description_names_nothing():
    assert mentioned(None, note(), []) == []


# kills: bot/note_refs.py:mentioned the numbers named reordered (sorted), not first mention first
def test_numbers_named_are_listed_in_the_order_the_description_names_them():
    assert mentioned("See #900, then #12 and #500.", note(), []) == [900, 12, 500]


# --- relations a description states: wordings, wrapped lines, partial reverts, denials ---


# kills: bot/relations.py:_PHRASES hand: each phrase dropped from `_PHRASES`, `&` dropped from
# the joiners, `no` and `yet` dropped from `_DENIED`, `pull request` and the plural dropped
# from `_NOUN_FIRST`, `-` dropped from the phrase's left edge
@pytest.mark.parametrize(
    "body, expected",
    [
        ("Addresses #52448", [(52448, "fixes")]),
        ("Reverting #50011: it broke the ROCm build", [(50011, "reverts")]),
        ("followup to #51430", [(51430, "follows up on")]),
        ("Continuation of #51430", [(51430, "follows up on")]),
        ("Continues #51430 for the MoE path", [(51430, "follows up on")]),
        ("Replaces #53010", [(53010, "supersedes")]),
        ("A replacement for #53010", [(53010, "supersedes")]),
        ("An alternative to #53010 without the extra copy", [(53010, "supersedes")]),
        ("Reland of #50011", [(50011, "supersedes")]),
        ("Relands #50011 with the fix", [(50011, "supersedes")]),
        ("Re-land of #50011", [(50011, "supersedes")]),
        ("Redo of #50011", [(50011, "supersedes")]),
        ("Built on #49870", [(49870, "builds on")]),
        ("Build on #49870 once it lands", [(49870, "builds on")]),
        ("On top of #49870", [(49870, "builds on")]),
        ("Extends #49870 to the V1 engine", [(49870, "builds on")]),
        ("Depends on #49870", [(49870, "builds on")]),
        ("Split from #49870", [(49870, "builds on")]),
        ("Split out of #49870", [(49870, "builds on")]),
        ("Split out from #49870", [(49870, "builds on")]),
        ("Fixes #1 & #2", [(1, "fixes"), (2, "fixes")]),
        # denials: "no" and "not yet" say it does not
        ("This is no replacement for #53010", []),
        ("This does not yet fix #3", []),
        # "closed" before a noun, a plural or "pull request", is an adjective
        ("Revisits the closed PRs #1 and #2", []),
        ("Same idea as the closed pull request #5", []),
        # a phrase inside a hyphenated word is no phrase
        ("Reopens the long-closed #4321", []),
    ],
)
def test_each_wording_vllm_uses_relates_the_pr(body, expected):
    assert rel(body) == expected


# kills: bot/relations.py:related_refs hand: the phrase and the quote keep the description's
# line breaks (the phrase then names no relation: KeyError)
def test_a_relation_wrapped_over_lines_is_read_and_quoted_on_one_line():
    (got,) = related_refs("This is a follow up\nto #51430, as\ndiscussed.", REPO)
    assert (got.number, got.relation) == (51430, Relation.FOLLOWS)
    assert got.quote == "follow up to #51430"


# kills: bot/relations.py:_PHRASES hand: "partially reverts" dropped ("reverts" still reads it)
def test_a_partial_revert_is_quoted_as_partial():
    (got,) = related_refs("Partially reverts #50011 (the ROCm part only)", REPO)
    assert (got.relation, got.quote) == (Relation.REVERTS, "Partially reverts #50011")


# Found beside the mutants (fixed): `_DENIED` took "not just" for a denial, so "This is
# not just a follow-up to #3; it also adds tests", which says it IS a follow-up (and more),
# related nothing: the sticky comment lost #3's notes and `notes refs` did not suggest it
def test_not_just_a_relation_is_still_that_relation():
    assert rel("This is not just a follow-up to #3; it also adds tests") == [(3, "follows up on")]
    assert rel("This doesn't just revert #5, it restores the old default") == [(5, "reverts")]
    assert rel("This is not really a revert of #14") == []  # still denied
    # after a modal, "just" keeps the denial: this PR does not revert #12
    assert rel("We can't just revert #12: it also fixed the ROCm build") == []
    assert rel("We cannot just revert #12, so this restores the default") == []
    assert rel("You shouldn't just revert #12") == []
    assert rel("It won’t just fix #9") == []


# --- `notes refs`' exit codes ---


# kills: bot/cli_notes.py:_cmd_notes_refs settings that do not load taken for success (exit 0,
#   nothing
# read)
# kills: bot/cli_notes.py:_cmd_notes_refs a library that does not load exiting 2 (or 0), not 1 as
#   `notes check` does for the same problems
def test_refs_exits_1_on_a_broken_library_and_2_on_broken_settings(tmp_path, fake_github):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "vllm-test0001.md").write_text(NOTE_FILE.replace('"rocm"', '"nope"'), "utf-8")
    env = base_env(
        tmp_path, PYTHONPATH=str(ROOT), GITHUB_TOKEN="ghp_x", GITHUB_API_URL=fake_github.base_url
    )
    run = cli("notes", "refs", str(notes), env=env, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "vllm-test0001.md:7: topics: unknown topic 'nope'" in run.stderr
    run = cli("notes", "refs", env=env | {"REVIEW_NOTES_PORT": "not a port"}, cwd=tmp_path)
    assert run.returncode == 2 and "configuration error" in run.stderr
    assert fake_github.requests == []

"""The sticky comment's text: safe (no pings, no backlinks, no injection), bounded, complete."""

from __future__ import annotations

import html
import re
from dataclasses import replace

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.library import DEFAULT_TOPICS_FILE as TOPICS
from bot.library import Library, load_library
from bot.markdown_safety import ZWSP, link_target
from bot.markdown_text import as_html
from bot.markers import (
    MARKER,
    SIGNATURE_OPENING,
    comment_key,
    opens_with,
    reply_key,
    signed_text,
    verified_text,
    written_by_review_notes,
)
from bot.match_config import load_match_config
from bot.match_result import Evidence, EvidenceKind, Match, MatchResult, TopicHit
from bot.matching import match_pr
from bot.notes import Note, Verdict
from bot.prfacts import PRFacts
from bot.render import (
    BUDGET,
    GITHUB_BODY_LIMIT,
    GUIDANCE_LINK,
    NoteLinks,
    PauseCause,
    RenderOptions,
    _not_counted,
    code,
    notes_read_back,
    render,
    render_no_match,
    render_paused,
    safe_text,
)
from bot.render import reason_markdown as md
from tests.test_check import VALID, problems_of, write

LIB = load_library()
OPTS = RenderOptions(links=NoteLinks(base_url="https://notes.example.org"))
SHA = "0123456789abcdef0123456789abcdef01234567"

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LIVE_MENTION = re.compile(r"(?<![A-Za-z0-9`])@[A-Za-z0-9]")
ISSUE_REF = re.compile(r"#\d")
GH_REF = re.compile(r"(?<![A-Za-z0-9_])GH-\d", re.I)  # ASCII word characters, as GitHub
# A github.com PR, issue or discussion URL where GitHub links one: with a scheme, or from
# where a word starts (GFM autolinks `www.` after a space, `(`, `*`, `_` or `~`);
# `0github.com/...` and `redirect.github.com/...` are other domains.
PULL_URL = re.compile(
    r"(?:https?://(?:www\.)?|(?<![^\s*_~(])www\.|(?<![^\s(]))"
    r"github\.com/[^/\s)]+/[^/\s)]+/(pull|issues|discussions)/\d",
    re.I,
)

# A word GitHub links as a commit of the repository: 7 to 40 hex digits, a digit and a
# letter among them, as a word of its own (ASCII word characters, as GitHub)
COMMIT = re.compile(
    r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z])", re.I
)


# An autolink `<https://...>`: prose has its `<` escaped, so only a URL the bot wrote as a
# link is one. GitHub reads no mention or reference in a link's text.
AUTOLINK = re.compile(r"<(?:https?|ftp)://[^\s<>]*>", re.I)


def gfm(markdown: str) -> str:
    """HTML as github.com renders a comment (cmark-gfm with GitHub's extensions)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def outside_code(text: str) -> str:
    return CODE_SPAN.sub("", AUTOLINK.sub("", text))


def linked_by_github(body: str) -> str:
    """What GitHub may link of a comment: its text and link targets as rendered, but not
    what it shows as code (GitHub links no URL or reference there)."""
    page = re.sub(r"<code>.*?</code>", " ", gfm(body), flags=re.S)
    hrefs = re.findall(r'href="([^"]*)"', page)
    return html.unescape(" ".join([re.sub(r"<[^>]+>", " ", page), *hrefs]))


def unlinked_text(body: str) -> str:
    """The text GitHub may link a reference or commit in: rendered, but not in code or in a
    link (a URL the bot wrote as one may hold a SHA: GitHub reads none there)."""
    page = re.sub(r"<code>.*?</code>|<a\b.*?</a>", " ", gfm(body), flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def assert_inert(body: str) -> None:
    """The properties every rendered body must have, whatever went in."""
    prose = outside_code(body)
    assert not LIVE_MENTION.search(AUTOLINK.sub("", body)), "live @mention"
    assert not ISSUE_REF.search(prose), "#N outside code"
    assert not GH_REF.search(prose), "GH-N outside code"
    assert not PULL_URL.search(linked_by_github(body)), (
        "github.com PR/issue/discussion URL (backlink)"
    )
    assert not COMMIT.search(unlinked_text(body)), "commit SHA outside code (a commit link)"
    assert body.startswith(MARKER + "\n") and written_by_review_notes(body)
    assert len(body) <= BUDGET < GITHUB_BODY_LIMIT
    for line in body.splitlines():
        assert not line.lstrip().startswith("/"), f"a command at the start of a line: {line!r}"


def note(i: int = 1, *, trusted: bool = True, **kw) -> Note:
    """A note; trusted=False skips validation: rendering must not rely on it."""
    data = dict(
        id=f"test-{i:04d}",
        repo="vllm-project/vllm",
        source_pr=50000 + i,
        verdict=Verdict.DEEP,
        topics=("spec-decode",),
        title_zh="测试笔记",
        title_en=f"Test note {i}",
        summary_en="A summary.",
        guidance="值得精读。",
    )
    data.update(kw)
    return Note(**data) if trusted else Note.model_construct(**data)


def matched(number: int, title: str, *files: str) -> MatchResult:
    """What the matcher finds for vllm-project/vllm PR `number`, its title and files."""
    return match_pr(
        PRFacts("vllm-project/vllm", number, title, files=files), LIB, load_match_config()
    )


def result(*notes: Note, reasons: tuple[str, ...] = ("title mentions 'EAGLE'",)) -> MatchResult:
    matches = tuple(Match(n, 10.0 - i, reasons) for i, n in enumerate(notes))
    return MatchResult(matches, ("spec-decode",))


# --- content ----------------------------------------------------------------------


def test_comment_for_a_real_seed_pr_has_every_part():
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=52419,
        title="[Bugfix][Spec Decode] Keep EAGLE cache registration on the partial-hash-hit path",
        files=("vllm/v1/core/kv_cache_coordinator.py",),
        head_sha=SHA,
    )
    res = match_pr(facts, LIB, load_match_config())
    assert res.matches
    body = render(res, LIB, opts=OPTS)
    first = res.matches[0].note
    assert first.source_pr == 52419
    assert "**Deep read** · 值得精读" in body
    assert first.title_zh in body
    # the note's source is this PR: named so, not linked to the page the reader is on
    assert " · source: this pull request · " in body and "/pull/52419" not in body
    assert f"https://notes.example.org/notes/{first.id}" in body
    assert "<details><summary>Why this note</summary>" in body
    # no commit SHA, though the facts carry one: a push that keeps the same notes must
    # leave the body unchanged (docs/commands.md)
    assert "0123456" not in body and "commit" not in body
    for word in ("/notes why", "/notes wrong", "/notes off", "/notes help"):
        assert f"`{word}`" in body
    assert_inert(body)
    # the note on this very PR is not guidance "on a past pull request related to this one"
    assert [m.source for m in res.matches] == [True]
    assert body.splitlines()[3].startswith("Reviewers' reading guidance on this pull request.")


def test_the_lead_says_which_notes_are_on_this_pull_request():
    own, other, third = note(1), note(2), note(3)

    def lead(*matches: Match) -> str:
        return render(MatchResult(matches, ("spec-decode",)), LIB, opts=OPTS).splitlines()[3]

    said = "Reviewers' reading guidance on"
    assert lead(Match(other, 9, ())) == f"{said} a past pull request related to this one."
    assert lead(Match(own, 9, (), source=True)) == f"{said} this pull request."
    assert lead(Match(own, 99, (), source=True), Match(other, 9, ())) == (
        f"{said} this pull request and on a past pull request related to it."
    )
    assert lead(Match(own, 99, (), source=True), Match(other, 9, ()), Match(third, 8, ())) == (
        f"{said} this pull request and on 2 past pull requests related to it."
    )


def test_the_lead_counts_past_pull_requests_not_notes(tmp_path):
    # two notes on one past PR (52401), both linked to a follow-up
    # of it, and the comment opened "guidance on 2 past pull requests related to this
    # one" while both notes' source links named the same PR (`_guided` counted notes)
    write(tmp_path, VALID)
    second = (
        VALID.replace("vllm-test0001", "vllm-test0002")
        .replace("Pick the eager region per model runner", "Restore the ROCm default eager region")
        .replace("按 runner 选择 eager 区域", "恢复 ROCm 默认 eager 区域")
    )
    write(tmp_path, second, "vllm-test0002.md")
    assert problems_of(tmp_path) == []
    library = load_library(tmp_path, TOPICS)
    facts = PRFacts(
        repo="vllm-project/vllm",
        number=60002,
        title="[Bugfix] Follow-up fix for the eager region",
        body="Follow-up to #52401.",
    )
    res = match_pr(facts, library, load_match_config())
    assert [m.note.source_pr for m in res.matches] == [52401, 52401]
    lead = render(res, library, opts=OPTS).splitlines()[3]
    assert lead == "Reviewers' reading guidance on a past pull request related to this one."
    # a note naming no source PR is one of its own; the same number in another
    # repository is another PR
    said = "Reviewers' reading guidance on"
    pair = (note(1, source_pr=52401), note(2, source_pr=52401))
    others = (note(3, source_pr=None), note(4, source_pr=52401, repo="other/repo"))
    assert render(result(*pair, *others), LIB, opts=OPTS).splitlines()[3] == (
        f"{said} 3 past pull requests related to this one."
    )


def test_english_title_and_summary_with_the_original_chinese_title():
    body = render(
        result(note(title_en="Keep EAGLE cache", summary_en="Why it matters.")),
        LIB,
        opts=OPTS,
    )
    assert "**1. Keep EAGLE cache**" in body
    assert "原题 (original title): 测试笔记" in body
    assert "> Why it matters." in body


# kills: bot/markdown_safety.py:_escape_prose (hand) no shortcode broken: GitHub showed a
#   note's `:rocket:` as 🚀 in the notes comment, its title, summary, topics and reasons alike
def test_an_emoji_shortcode_in_a_notes_text_is_shown_as_written():
    from tests.test_markdown_safety import emoji_shown

    n = note(title_en=":rocket: decode", title_zh="加速 :zap:", summary_en="x:tada:y")
    page = gfm(render(result(n, reasons=("title mentions ':fire:'",)), LIB, opts=OPTS))
    assert emoji_shown(page) == []
    text = html.unescape(re.sub(r"<[^>]+>", "", page)).replace(ZWSP, "")
    # a quoted term is a code span, where GitHub shows no emoji either
    for said in (":rocket: decode", "加速 :zap:", "x:tada:y", "title mentions :fire:"):
        assert said in text


def folded_away(page: str) -> str:
    """The rendered comment as it first shows: every <details> closed, its summary kept."""
    return re.sub(r"<details>\s*<summary>(.*?)</summary>.*?</details>", r"\1", page, flags=re.S)


def test_only_the_first_notes_summary_shows_the_others_fold_with_their_evidence():
    # a comment linking three notes showed three summaries of ~500 characters open: three
    # screens of prose for a reviewer who reads the first note, glances at the others
    three = [note(i, summary_en=f"Summary {i}.", title_zh=f"原题{i}") for i in (1, 2, 3)]
    res = result(*three, reasons=("title mentions 'EAGLE'", "changes a.py"))
    page = gfm(render(res, LIB, opts=OPTS))
    shown = folded_away(page)
    assert "Summary 1." in shown and "原题1" in shown
    for i in (2, 3):  # title, verdict and source at a glance; the rest a click away
        assert f"Test note {i}" in shown and f"PR 5000{i}" in shown
        assert f"Summary {i}." not in shown and f"原题{i}" not in shown
        assert f"Summary {i}." in page and f"原题{i}" in page
    assert shown.count("Summary and why this note") == 2 and shown.count("Why this note") == 1
    assert page.count("<blockquote>") == 3 and page.count("<li>") == 6
    # why mode: the evidence is what it is for, open under every note; only the summary
    # of a note past the first folds
    why = gfm(render(res, LIB, opts=replace(OPTS, verbose=True)))
    shown = folded_away(why)
    assert shown.count("<li>") == 6 and "Summary 1." in shown and "Summary 2." not in shown
    # one note, as nearly every comment has: as it was
    one = render(result(three[0]), LIB, opts=OPTS)
    assert "Summary and why" not in one and one.count("<details>") == 1


def test_a_fold_is_named_for_what_it_holds_a_note_with_no_summary_has_no_summary_fold():
    # a note past the first with no English summary (one a curator has not summarised yet)
    # folded its original title alone under "Summary": a reader opened it for a summary
    first, bare = note(1), note(2, summary_en="", title_zh="原题2")
    res = result(first, bare, reasons=("title mentions 'EAGLE'",))
    why = render(res, LIB, opts=replace(OPTS, verbose=True))
    assert "<details><summary>Original title</summary>\n\n原题 (original title): 原题2\n" in why
    assert "<summary>Summary</summary>" not in why
    short = render(res, LIB, opts=OPTS)
    assert "<details><summary>Original title and why this note</summary>" in short
    assert "Summary and why this note" not in short


@pytest.mark.parametrize(
    "summary",
    ["# of KV blocks was miscounted", "- a list?", "+ b", "* c", "1. d", "2024) e", "> f"]
    + ["---", "===", "```python x", "- - -", "## x", "#"],
)
def test_a_summary_starting_with_a_block_marker_stays_one_paragraph(summary):
    # "# of KV blocks..." after "> " was an <h1> in the quote, its '#' gone; "2024. " a
    # list
    n = note(summary_en=summary, trusted=False)
    reason = f"title mentions {summary!r}"
    page = gfm(render(result(n, reasons=(summary, reason)), LIB, opts=OPTS))
    quote = page[page.index("<blockquote>") + 12 : page.index("</blockquote>")].strip()
    assert quote == f"<p>{html.escape(summary, quote=False)}</p>"
    reasons = page[page.index("Why this note") : page.index("</details>")]
    assert f"<li>{html.escape(summary, quote=False)}</li>" in reasons


def test_note_text_cannot_close_or_open_the_why_details_or_hide_the_rest():
    # what a curator or a PR title could put where the comment has its
    # <details> (the reasons are inside it, the title and summary before it)
    tricks = (
        "</details> out",
        "<details open><summary>x</summary>",
        "</summary> y",
        "<!-- hide the rest",
        "``a`` ` b` `c",
        "`` </details> ``",
    )
    n = note(title_en=" ".join(tricks), summary_en="<!--", title_zh="</details>", trusted=False)
    page = gfm(render(result(n, reasons=tricks), LIB, opts=OPTS))
    assert page.count("<details>") == 1 and page.count("</details>") == 1
    assert page.count("<summary>") == 1 and page.count("<!--") == 1  # our marker only
    inside = page[page.index("<summary>Why this note</summary>") : page.index("</details>")]
    assert inside.count("<li>") == len(tricks)
    assert "Reply " in page[page.index("</details>") :]  # the footer still shows


@pytest.mark.parametrize(
    "repo",
    [
        "vllm-project/vllm\n@someone",
        "other/x`a\r\n@someone",
    ],
)
def test_a_source_link_s_target_holding_a_line_break_stays_one_link(repo):
    # the source PR's link target is built from the note's repository: a line break there
    # ended the link, the text after it prose, `@someone` a live mention
    n = note(repo=repo, trusted=False)
    body = render(result(n), LIB, opts=OPTS)
    assert_inert(body)
    (line,) = [x for x in body.splitlines() if "full guidance" in x]
    page = gfm(line)
    assert page.count("<a ") == 2 and "<code>" not in page, page


@pytest.mark.parametrize(
    ("verdict", "en", "zh"),
    [
        (Verdict.DEEP, "Deep read", "值得精读"),
        (Verdict.QUICK, "Quick read", "值得快速阅读"),
        (Verdict.SKIP, "No deep read needed", "不需要精读"),
    ],
)
def test_verdict_badge_in_english_and_chinese(verdict, en, zh):
    body = render(result(note(verdict=verdict)), LIB, opts=OPTS)
    assert f"**{en}** · {zh}" in body


def test_a_note_linked_on_its_topics_alone_is_badged_background_not_its_verdict():
    # "[Warmup] Show CuTeDSL compilation progress" got the DeepGEMM warmup note on the
    # title's tag alone, under a 🟢 Deep read: the strongest call on the weakest evidence
    # (of such links in the graded sets 29 of 144 were what the reviewer needed, of those
    # on evidence of the note's own 182 of 384; on one tag alone 3 of 24)
    tag_only = matched(48881, "[Warmup] Show CuTeDSL compilation progress")
    [m] = tag_only.matches
    assert not m.own and m.note.verdict is Verdict.DEEP
    body = render(tag_only, LIB, opts=OPTS)
    assert "🟢" not in body and "**Deep read**" not in body
    # in English and Chinese, as every verdict is: 背景参考, background to consult
    said = "🟡 **Background** · 背景参考 · linked by topic only; rated Deep read · 值得精读"
    assert f"{said} · source: " in body
    # the note's own words in the title: its verdict, as the curators gave it
    named = matched(48882, "[Warmup] Add DeepGEMM warmup for FP8 kernels")
    assert named.matches[0].own
    assert "🟢 **Deep read** · 值得精读 · source: " in render(named, LIB, opts=OPTS)
    # never stronger than the verdict: a note needing no deep read stays ⚪
    skip = MatchResult((Match(note(verdict=Verdict.SKIP), 5.0, ("x",), own=False),), ())
    said = "⚪ **Background** · 背景参考 · linked by topic only; rated No deep read needed"
    assert f"{said} · 不需要精读" in render(skip, LIB, opts=OPTS)


def test_command_word_comes_from_settings():
    body = render(result(note()), LIB, opts=RenderOptions(command="/rn"))
    assert "`/rn why`" in body and "`/notes" not in body


def test_github_link_mode_points_at_the_note_file():
    links = NoteLinks(mode="github", repo="acme/notes", branch="live", directory="seeds/notes/")
    body = render(result(note(7)), LIB, opts=RenderOptions(links=links))
    assert "(https://github.com/acme/notes/blob/live/seeds/notes/test-0007.md?plain=1)" in body
    assert_inert(body)


def test_no_match_body_is_short_and_keeps_the_marker():
    body = render(MatchResult((), ()), LIB, opts=OPTS)
    assert body == render_no_match(MatchResult((), ()), LIB, opts=OPTS)
    assert body.startswith(MARKER + "\n")
    assert "No review note matches this pull request any more" in body
    assert len(body) < 1000
    assert_inert(body)
    # no numbered note to name: `wrong N` is not offered
    assert "wrong N" not in body and "`/notes why` to see the notes considered" in body
    assert "`/notes wrong` if this note does not fit" in render(
        MatchResult((Match(note(), 9.0, ()),), ()), LIB, opts=OPTS
    )


def test_the_footer_offers_wrong_without_a_number_under_one_note():
    """Nearly every comment shows one note, and its footer said "`/notes wrong N` if note N
    does not fit": a number to work out, and an `N` a reviewer copying the command kept
    (taken as the reason). With one note shown the number may be left out (a bare `wrong`
    hides note 1): the footer says so; under two it names N."""
    from bot.wrong_reading import pick_note

    one = render(result(note(1)), LIB, opts=OPTS)
    assert "`/notes wrong` if this note does not fit," in one and "wrong N" not in one
    two = render(result(note(1), note(2)), LIB, opts=OPTS)
    assert "`/notes wrong N` if note N does not fit," in two
    why = render(result(note(1)), LIB, opts=replace(OPTS, verbose=True))
    assert "`/notes wrong` if this note does not fit," in why
    # what the footer offers does what it says: the one note shown, no reason
    pick = pick_note((), ("test-0001",))
    assert (pick.note_id, pick.rank, pick.reason, pick.problem) == ("test-0001", 1, "", None)


def test_verbose_shows_all_evidence_and_topics_without_notes():
    reasons = tuple(f"reason {i}" for i in range(30))
    res = MatchResult((Match(note(), 42.5, reasons),), ("spec-decode", "not-a-real-topic"))
    short = render(res, LIB, opts=OPTS)
    why = render(res, LIB, opts=RenderOptions(links=OPTS.links, verbose=True))
    assert "reason 29" in why and "reason 29" not in short  # short view caps the list
    # a total with nothing to read it against said nothing: the evidence is what why
    # mode is for (a score and the rule that held a note are the operators' `explain`)
    assert "Why this note:\n- reason 0" in why and "42.5" not in why and "<details>" not in why
    assert "Of these, the topics with no note yet:\n- not-a-real-topic" in why
    # named in English, as each note's "Topics:" line and the pages name them
    assert "first: Speculative decoding, not-a-real-topic." in why and "投机解码" not in why
    assert_inert(why)


def test_verbose_no_match_lists_the_topics_considered():
    res = MatchResult((), ("rocm",))
    body = render(res, LIB, opts=RenderOptions(verbose=True))
    assert "ROCm" in body
    assert_inert(body)
    # headed as why mode, as a comment with notes is: its footer offers the short comment
    # back (`/notes`), which a heading of the short comment left unexplained
    assert body.startswith(f"{MARKER}\n### 📚 Review notes (why mode)\n"), body
    assert "for the short comment" in body
    plain = render(res, LIB, opts=OPTS)
    assert plain.startswith(f"{MARKER}\n### 📚 Review notes\n"), plain


def test_why_mode_names_the_notes_considered_but_not_linked_and_what_held_each():
    # a reviewer asking "why not note X" read the linked notes' evidence and the topics, and
    # nothing of X: not whether it was weighed, nor what held it back
    linked, held, below, over = note(1), note(2), note(3), note(4)
    rest = [note(i) for i in range(5, 9)]
    res = MatchResult(
        (Match(linked, 9.0, ("title mentions 'EAGLE'",)),),
        ("spec-decode",),
        candidates=(
            Match(linked, 9.0, ("title mentions 'EAGLE'",)),
            Match(over, 6.0, ("x",)),
            Match(held, 5.0, ("y",), own=False),
            Match(below, 3.0, ("title mentions 'draft'", "changes a.py")),
            *(Match(n, 2.0 - i / 10, ("z",)) for i, n in enumerate(rest)),
        ),
        held_back=(
            ("test-0004", "far below the best note (test-0001)"),
            ("test-0002", "rests on its topics alone, and is not the best note"),
        ),
    )
    why = render(res, LIB, opts=replace(OPTS, verbose=True))
    assert_inert(why)
    url = "https://notes.example.org/notes/test-000"
    assert (
        "Notes considered but not linked, closest first:\n"
        f"- [Test note 4]({url}4): far below the best note (note 1)\n"
        f"- [Test note 2]({url}2): rests on its topics alone, and is not the best note\n"
        f"- [Test note 3]({url}3): too little evidence to link; the strongest: title mentions"
        " `draft`\n"
        f"- [Test note 5]({url}5): too little evidence to link; the strongest: z\n"
        f"- [Test note 6]({url}6): too little evidence to link; the strongest: z\n"
        "- … and 2 more, with less evidence\n\nTopics this pull request touches"
    ) in why
    # a list, not notes the comment shows: `wrong N` numbers the linked ones alone
    a, b = (Match(n, 9.0 - i, ("why",)) for i, n in enumerate(LIB.notes[:2]))
    real = render(MatchResult((a,), (), candidates=(a, b)), LIB, opts=replace(OPTS, verbose=True))
    assert b.note.id in real and notes_read_back(real, LIB, OPTS.links) == (a.note.id,)
    assert "considered" not in render(res, LIB, opts=OPTS)  # why mode's alone
    # with none linked, the note-less comment names them: where "why not X" is asked most
    none = replace(res, matches=())
    body = render(none, LIB, opts=replace(OPTS, verbose=True))
    assert "No review note matches" in body and f"- [Test note 1]({url}1): too little" in body
    # a note `/notes wrong` hid is counted by the hidden line, not named "too little evidence"
    from bot.feedback import hide_dismissed

    kept, hidden = hide_dismissed(res, ["test-0001", "test-0002"])
    body = render(kept, LIB, opts=replace(OPTS, verbose=True, hidden=hidden))
    assert "Test note 1" not in body and "Test note 2" not in body
    assert "1 note that matched was marked not relevant here and hidden" in body


def test_why_mode_says_what_held_a_note_back_without_ids_or_scores():
    # the rules of bot/link_rules.py name topics by id and quote scores for `review-notes
    # match`; the comment named them so too ("first topic (sparse-mla)", "its own evidence
    # scores 0, under 2"), which a reviewer can neither read nor use, and why mode shows no
    # score. The rules' own text, so that a rewording there is read here too.
    from bot.feedback import hide_dismissed
    from bot.link_rules import LinkRules

    rules = LinkRules(load_match_config(), frozenset())
    best, off, broad, aside, low = (note(i, topics=("sparse-mla",)) for i in range(1, 6))

    def held(m: Match) -> tuple[str, str]:
        why = rules._held_by_evidence(m)
        assert why is not None
        return m.note.id, why

    considered = (
        Match(off, 5.0, ("x",), specific=9.0, on_topic=False),
        Match(broad, 4.9, ("x",), specific=0.0),
        Match(aside, 4.8, ("x",), specific=9.0, other_member="kv-connector"),
        Match(low, 4.7, ("x",)),
    )
    held_back = (*map(held, considered[:3]), (low.id, "far below the best note (test-0001)"))
    top = Match(best, 9.0, ("title mentions 'MLA'",))
    res = MatchResult((top,), ("sparse-mla",), candidates=(top, *considered), held_back=held_back)
    why = render(res, LIB, opts=replace(OPTS, verbose=True))
    url = "https://notes.example.org/notes/test-000"
    assert (
        f"- [Test note 2]({url}2): the PR does not show the note's first topic (Sparse MLA)\n"
        f"- [Test note 3]({url}3): rests on broad or family topics: too little evidence of its"
        " own\n"
        f"- [Test note 4]({url}4): rests on an aspect word, and the title's tag names a member"
        " of the KV connector family, which the note is not on\n"
        f"- [Test note 5]({url}5): far below the best note (note 1)\n"
    ) in why
    # the best note hidden by `/notes wrong`: no number to give it, and no id either
    kept, hidden = hide_dismissed(res, [best.id])
    body = render(kept, LIB, opts=replace(OPTS, verbose=True, hidden=hidden))
    assert f"- [Test note 5]({url}5): far below the best note\n" in body
    assert not re.search(r"test-0001|sparse-mla|kv-connector|scores", body), body


def test_why_mode_names_the_files_not_counted_as_evidence():
    warmup = "vllm/model_executor/warmup/deep_gemm_warmup.py"
    moved = PRFacts(
        "vllm-project/vllm", 1, "Update imports", files=(warmup,), incidental=frozenset({warmup})
    )
    res = match_pr(moved, LIB, load_match_config())
    assert res.not_counted == (warmup,) and not res.matches
    why = render_no_match(res, LIB, opts=RenderOptions(verbose=True))
    assert (
        f"Not counted: `{warmup}` (this pull request only moves it or changes its imports)." in why
    )
    assert "Not counted" not in render_no_match(res, LIB, opts=RenderOptions())
    many = tuple(f"vllm/m{i}.py" for i in range(7))
    res = MatchResult((), (), not_counted=many)
    why = render_no_match(res, LIB, opts=RenderOptions(verbose=True))
    assert (
        "`vllm/m4.py` and 2 more (this pull request only moves them or changes their imports)"
        in why
    )
    assert "m5.py" not in why
    assert_inert(why)


# --- safety ------------------------------------------------------------------------


NASTY = (
    "@octocat and @vllm-project/maintainers, fixes #123 and vllm-project/vllm#456, GH-789, "
    "see https://github.com/vllm-project/vllm/pull/52419 and www.github.com/a/b/issues/9 "
    "<script>alert(1)</script> <img src=x onerror=y> **bold** _it_ [link](http://x) "
    "`code` | table | ~~strike~~ $x^2$ &amp; \\ <!-- review-notes:v1 --> /notes off"
)


def test_untrusted_note_text_is_neutralised():
    n = note(title_en=NASTY, summary_en=NASTY, title_zh=NASTY, trusted=False)
    body = render(result(n, reasons=(NASTY,)), LIB, opts=OPTS)
    assert_inert(body)
    assert "<script>" not in body and "<img" not in body
    assert "&lt;script&gt;" in body
    assert body.count(MARKER) == 1  # a note cannot forge a second marker
    assert "https://redirect.github.com/vllm-project/vllm/pull/52419" in body
    assert "\\*\\*bold\\*\\*" in body and "\\[link\\]" in body


def test_safe_text_breaks_references_but_keeps_them_readable():
    out = safe_text("see #12 and @bob")
    assert out.replace("\u200b", "") == "see #12 and @bob"
    assert not ISSUE_REF.search(out) and not LIVE_MENTION.search(out)


def test_code_spans_survive_backticks_and_defuse_mentions():
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"
    assert "@\u200bbob" in code("@bob")


# Random text almost never holds "@a", "#1", "GH-2" or a github.com PR URL, so with
# st.text() alone this test passed with mentions, references and links left live: build
# text from the pieces those rules are about as well. A URL without a scheme comes after
# a space or `_`, where GitHub links it (`0github.com/...` is another domain).
HOSTILE_PIECES = st.sampled_from(
    ["@a", "#1", "GH-2", "gh-3", "o/r#4", " github.com/o/r/pull/5", " www.github.com/o/r/issues/6"]
    + ["_www.github.com/o/r/pull/7", "https://github.com/o/r/pull/8", "@", "#", "1", "a", "_"]
    + ["https://github.com/o/r/discussions/9", "abc1234", "0f1e2d3c4b", "o/r@9a8b7c6"]
    + ["`", "/", "-", ".", " ", "\n"]
)
HOSTILE_TEXT = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(HOSTILE_PIECES, st.text(max_size=3)), max_size=60).map("".join),
)


@settings(max_examples=150, deadline=None)
@given(HOSTILE_TEXT, HOSTILE_TEXT)
def test_any_text_renders_inert(title, reason):
    n = note(title_en=title, summary_en=title, title_zh=title or "x", trusted=False)
    body = render(result(n, reasons=(reason,)), LIB, opts=OPTS)
    assert_inert(body)


# --- size ---------------------------------------------------------------------------


def test_over_budget_drops_lowest_ranked_notes_whole():
    big = "长" * 1400
    notes = [
        note(i, title_en=f"Note number {i}", summary_en=big, title_zh=big, trusted=False)
        for i in range(60)
    ]
    reasons = tuple("r" * 290 for _ in range(12))
    res = MatchResult(tuple(Match(n, 100 - i, reasons) for i, n in enumerate(notes)), ())
    body = render(res, LIB, opts=OPTS)
    assert_inert(body)
    shown = [i for i in range(60) if f"**{i + 1}. Note number {i}**" in body]
    assert shown == list(range(len(shown)))  # a prefix: the best ones, in order
    assert 0 < len(shown) < 60
    assert f"{60 - len(shown)} more notes matched but are not shown" in body
    assert body.rstrip().endswith("</sub>")  # footer intact: nothing was cut mid-markdown


def test_one_huge_note_is_clipped_not_dropped():
    n = note(title_en="T" * 100_000, summary_en="S" * 100_000, trusted=False)
    body = render(result(n, reasons=("R" * 100_000,) * 100), LIB, opts=OPTS)
    assert_inert(body)
    assert "**1. " in body and "…" in body


def test_why_mode_whose_topics_alone_are_over_budget_still_renders():
    # every topic hit, each with long evidence: the note-less comment was over the budget,
    # and render() raised AssertionError('unreachable'), render_no_match had no check
    evidence = tuple(Evidence(EvidenceKind.TITLE, 1.0, "r" * 290) for _ in range(12))
    hits = tuple(TopicHit(t, 1.0, evidence, ()) for t in LIB.topics.values())
    topics = tuple(h.topic.id for h in hits)
    why = RenderOptions(links=OPTS.links, verbose=True)
    one = render(
        MatchResult((Match(note(), 9.0, ("title mentions 'EAGLE'",)),), topics, hits),
        LIB,
        opts=why,
    )
    none = render_no_match(MatchResult((), topics, hits), LIB, opts=why)
    for body in (one, none):
        assert_inert(body)
        assert "topics this pull request touches are not shown" in body
        assert body.rstrip().endswith("</sub>")
    assert "**1. Test note 1**" in one  # the note is kept, its topics go
    # a few topics still fit, and are shown
    few = MatchResult((), topics[:2], hits[:2])
    assert "Of these, the topics with no note yet:" in render_no_match(few, LIB, opts=why)


def test_code_spans_in_curated_text_stay_code():
    body = render(
        result(note(summary_en="Both bounds go through one `_align_cacheable` helper.")),
        LIB,
        opts=OPTS,
    )
    assert "one `_align_cacheable` helper." in body
    assert_inert(body)


def test_verbose_lists_bare_topics_with_their_evidence_from_the_matcher():
    res = matched(
        1,
        "[Frontend] Stream tool calls from the OpenAI-compatible API server",
        "vllm/entrypoints/openai/serving_chat.py",
        "vllm/tool_parsers/hermes.py",
    )
    bare = res.topics_without_notes
    if not bare:
        pytest.skip("every topic this PR hits has a note now")
    body = render(res, LIB, opts=RenderOptions(verbose=True))
    assert "Of these, the topics with no note yet:" in body
    assert f"- {bare[0].topic.name_en}" in body
    assert_inert(body)


def test_paused_comment_and_the_paused_line_are_inert():
    paused = render_paused(OPTS)
    assert_inert(paused)
    assert "paused" in paused and "`/notes on`" in paused and "`/notes`" in paused
    body = render(result(note()), LIB, opts=replace(OPTS, paused=PauseCause.COMMAND))
    assert_inert(body)
    assert "_Automatic updates are paused on this pull request" in body
    assert "paused" not in render(result(note()), LIB, opts=OPTS)
    labelled = replace(OPTS, paused=PauseCause.LABEL, opt_out_label="no-review-notes")
    body = render(result(note()), LIB, opts=labelled)
    assert "paused on this pull request by the label `no-review-notes`" in body
    assert "removing the label resumes them" in body and "`/notes on` resumes" not in body
    described = replace(labelled, paused=PauseCause.DESCRIPTION)
    body = render(result(note()), LIB, opts=described)
    assert "by `<!-- no-review-notes -->` in its description" in body
    assert_inert(body)


# kills: bot/render.py:render_paused headed as `_opening` heads a comment: why mode's heading
#   with no footer offering the short comment back, or the paused line said twice
def test_the_paused_comment_is_headed_alike_in_why_mode_and_says_the_pause_once():
    paused = render_paused(OPTS)
    assert paused.startswith(f"{MARKER}\n### 📚 Review notes\n\nAutomatic updates are paused")
    assert render_paused(replace(OPTS, verbose=True, paused=PauseCause.COMMAND)) == paused


def test_what_review_notes_writes_is_told_by_where_its_markers_stand():
    # With a token the bot writes as its owner does: its comments are the ones that open
    # with a marker (the notes comment, a reply) or end with a reply's key.
    key = "<!-- review-notes:reply-to d1/0 -->"
    for body in [
        render_paused(OPTS),
        render(MatchResult((), ()), LIB, opts=OPTS),
        "<!-- review-notes:reply -->\nIn reply to `/notes help`:\n",
        f"\n{MARKER}\nedited by hand, the marker kept\n",
        f"the reply's opening cut away\n{key}\n",
    ]:
        assert written_by_review_notes(body), body
    # what a person writes, ours quoted in it (as anyone may), is not
    for body in [
        "",
        "/notes",
        f"> {MARKER}\n> ### 📚 Review notes\n\n/notes why",
        f"It said:\n\n{render_paused(OPTS)}\n/notes on",
        f"{key} is what it wrote\n/notes",
        f"MARKER is {MARKER}",
    ]:
        assert not written_by_review_notes(body), body


# kills: bot/markers.py:written_by_review_notes the last line's indent kept: an indented key no
# longer ours
def test_a_reply_whose_key_was_indented_in_an_edit_is_still_ours():
    # indented by up to three spaces, the key is still an HTML comment: it shows nothing
    key = reply_key("d1", 0)
    for indent in (" ", "   "):
        assert written_by_review_notes(f"In reply to `/notes help`:\n{indent}{key}\n"), indent
    assert not written_by_review_notes(f"In reply to `/notes help`:\n  see {key}\n")


# kills: bot/markers.py:reply_key every delivery's replies keyed "none" (`or` made `and`)
# kills: bot/markers.py:reply_key no key at all (None)
def test_each_delivery_and_command_has_its_own_reply_key():
    guid = "72d3a1c0-92f1-11ef-8f3e-3c8d0d8e1f2a"  # GitHub's X-GitHub-Delivery
    assert reply_key(guid, 2) == f"<!-- review-notes:reply-to {guid}/2 -->"
    keys = {reply_key(d, i) for d in (guid, "d2") for i in (0, 1, "errors")}
    assert len(keys) == 6  # a re-run finds its own reply, never another's
    # what could end the HTML comment, or is no id at all, is left out
    assert reply_key("x --> @someone", 0) == "<!-- review-notes:reply-to x--someone/0 -->"
    assert reply_key("<>", 0) == "<!-- review-notes:reply-to none/0 -->"
    assert written_by_review_notes(f"In reply to `/notes help`:\n\n{reply_key(guid, 0)}\n")


def test_the_readme_shows_the_comment_the_bot_renders():
    # README: "A comment, rendered from the shipped notes for a PR titled ..."; a matcher
    # or note change that alters it must update the README too.
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    shown = readme.split("````markdown\n", 1)[1].split("````", 1)[0]
    title = "[Core] Keep prefix-cache hits for EAGLE after preemption"
    files = ("vllm/v1/core/kv_cache_coordinator.py",)
    assert f'titled "{title[:20]}' in readme.replace("\n", " ") and files[0] in readme
    facts = PRFacts("vllm-project/vllm", 60001, title, files=files)
    links = NoteLinks(base_url="https://review-notes.example.org")
    opts = RenderOptions(links=links, opt_out_label="no-review-notes", repo=facts.repo)
    body = render(match_pr(facts, LIB, load_match_config()), LIB, opts=opts)
    assert body.rstrip("\n") == shown.rstrip("\n")


def test_why_mode_keeps_a_note_rather_than_the_topics_when_both_do_not_fit():
    # render() tried every note count with the topics first, down to none, and only then
    # dropped the topics: a comment could show the topics and no note, though the note
    # fitted without them (notes are kept first)
    evidence = tuple(Evidence(EvidenceKind.TITLE, 1.0, "r" * 290) for _ in range(12))
    hits = tuple(TopicHit(t, 1.0, evidence, ()) for t in list(LIB.topics.values())[:6])
    topics = tuple(h.topic.id for h in hits)
    big = note(summary_en="s " * 2000)  # a 4,000-character note block
    result = MatchResult((Match(big, 9.0, ("title mentions 'EAGLE'",)),), topics, hits)
    why = replace(OPTS, verbose=True, budget=10**6)
    full = render(result, LIB, opts=why)
    body = render(result, LIB, opts=replace(why, budget=len(full) - 1))
    assert "**1. Test note 1**" in body  # the note is kept ...
    assert "topics this pull request touches are not shown" in body  # ... its topics go


# --- the full guidance link says the guidance is in Chinese ---


def test_full_guidance_link_says_the_guidance_is_in_chinese():
    # "[full guidance](...)" opens a page whose guidance is Chinese only, and nothing
    # said so: an English reader clicked expecting more English than the summary
    result = matched(
        60001,
        "[Bugfix][Spec Decode] Keep EAGLE cache registration on the partial-hash-hit path",
        "vllm/v1/core/kv_cache_coordinator.py",
    )
    body = render(result, LIB, opts=OPTS)
    links = re.findall(r"\[([^\]]*guidance[^\]]*)\]\(https://notes\.example\.org/notes/", body)
    assert links and set(links) == {"full guidance (Chinese)"}, body


# --- the comment's budget and counts at their edges ---


# kills: bot/render.py:render `len(body) <= opts.budget` -> `<`
def test_a_comment_exactly_at_the_budget_shows_every_note():
    res = result(note(1), note(2))
    full = render(res, LIB, opts=OPTS)
    assert render(res, LIB, opts=replace(OPTS, budget=len(full))) == full


# kills: bot/render.py:render_no_match `len(body) <= opts.budget` -> `<` (no-match body, why mode)
def test_a_no_match_body_exactly_at_the_budget_keeps_its_topics():
    res = MatchResult((), ("rocm",))
    why = RenderOptions(verbose=True)
    full = render(res, LIB, opts=why)
    assert "ROCm" in full
    assert render(res, LIB, opts=replace(why, budget=len(full))) == full


# kills: bot/render.py:_compose `if hidden == 1 else` -> `if hidden == 0 else`
def test_one_note_left_out_for_the_budget_is_named_in_the_singular():
    res = result(note(1), note(2))
    full = render(res, LIB, opts=OPTS)
    body = render(res, LIB, opts=replace(OPTS, budget=len(full) - 1))
    assert "Test note 1" in body and "Test note 2" not in body
    assert "_1 more note matched but is not shown: the comment would be too long._" in body


# kills: bot/render.py:_note_block `len(match.reasons) > limit` -> `>=`
def test_exactly_the_shown_number_of_reasons_adds_no_more_line():
    reasons = tuple(f"reason {i}" for i in range(12))  # _REASONS_SHORT
    body = render(result(note(1), reasons=reasons), LIB, opts=OPTS)
    assert "reason 11" in body and "more" not in body.split("</details>")[0].split("reason 11")[1]
    assert "… and 0 more" not in body


# kills: bot/render.py:_not_counted `if more > 0` -> `if more >= 0`
def test_five_files_not_counted_are_all_named_with_no_and_more():
    (line,) = [x for x in _not_counted(tuple(f"f{i}.py" for i in range(5))) if x]
    assert "and 0 more" not in line and "`f4.py`" in line
    (line,) = [x for x in _not_counted(tuple(f"f{i}.py" for i in range(6))) if x]
    assert "and 1 more" in line


# kills: bot/render.py:_hidden_line `them = "it" if n == 1 else "them"` -> `them = "them"`
def test_one_hidden_note_is_shown_again_as_it():
    body = render(MatchResult((), ()), LIB, opts=RenderOptions(hidden=1))
    assert "_1 note that matched was marked not relevant here and hidden;" in body
    assert "restore` shows it._" in body
    body = render(MatchResult((), ()), LIB, opts=RenderOptions(hidden=2))
    assert "restore` shows them._" in body


# --- the comment read as a reviewer new to the bot ------------------------------


def test_the_footer_names_only_the_commands_a_reader_of_the_comment_needs():
    # the footer listed eight commands in one 380-character line (refresh, why, wrong N,
    # topic ID, search WORDS, off, on, help): the line was skimmed past; topic, search and
    # refresh are in `/notes help`, and `on` in the paused line, where it applies
    body = render(result(note()), LIB, opts=replace(OPTS, opt_out_label="no-review-notes"))
    footer = body.rstrip("\n").rsplit("\n", 1)[1]
    assert footer.startswith("<sub>") and footer.endswith("</sub>")
    commands = re.findall(r"`(/notes[^`]*)`", footer)
    assert commands == ["/notes why", "/notes wrong", "/notes off", "/notes help"], footer
    assert "`no-review-notes`" in footer and len(footer) < 250
    paused = render(result(note()), LIB, opts=replace(OPTS, paused=PauseCause.COMMAND))
    assert "`/notes on` resumes them" in paused


def test_a_lone_word_the_title_shares_with_the_notes_title_is_left_to_why_mode():
    # README's PR, "[Core] Keep prefix-cache hits for EAGLE after preemption", resembles the
    # note's title in four words; three are said on their own lines ("also in this note's
    # title"), and the last line read "title shares 'Keep' with this note's title": a
    # common word, as a reviewer reads it, counted as evidence (PR 53155 got "'default'")
    title = "[Core] Keep prefix-cache hits for EAGLE after preemption"
    res = matched(60001, title, "vllm/v1/core/kv_cache_coordinator.py")
    lone = "title shares 'Keep' with this note's title"
    assert lone in res.matches[0].reasons  # the matcher still counts it ...
    assert lone not in render(res, LIB, opts=OPTS)  # ... the comment leaves it to why mode
    assert f"- {md(lone)}" in render(res, LIB, opts=replace(OPTS, verbose=True))
    # two words shared are a resemblance, and a lone line is kept when it is all there is
    two = "title shares 'Kimi', 'K3' with this note's title"
    assert f"- {md(two)}" in render(
        result(note(), reasons=("title mentions 'MoE'", two)), LIB, opts=OPTS
    )
    assert f"- {md(lone)}" in render(result(note(), reasons=(lone,)), LIB, opts=OPTS)
    keywords = "title shares 'Draft' with terms this note is about"
    body = render(result(note(), reasons=("title mentions 'MTP'", keywords)), LIB, opts=OPTS)
    assert "Draft" not in body


def test_a_shared_verb_the_similar_line_rests_on_is_still_said():
    # A reviewer's walk found similar-title lines quoting a PR's verb ("title shares
    # 'Enable', 'MLA'"), which reads as noise. The verb is still said when it counts:
    # 'enable' is in 3% of vLLM's titles, above the similarity floor, and here the line
    # exists only with it (with 'Support', under the floor, the title shares too little).
    # Hiding it would claim a resemblance on 'MLA' the matcher did not find; the short
    # view already leaves a lone common word to why mode.
    def shares(title: str) -> list[str]:
        found = [m for m in matched(59462, title, file).matches if m.note.id == pcp_dcp]
        return [r for m in found for r in m.reasons if r.startswith("title shares")]

    pcp_dcp, file = "vllm-d996c45a", "vllm/v1/attention/backends/mla/common.py"
    title = "[DCP] Enable TokenSpeed MLA with block-interleaved DCP"
    line = "title shares 'Enable', 'MLA' with this note's title"
    assert shares(title) == [line]
    assert shares(title.replace("Enable", "Support")) == []
    assert f"- {md(line)}" in render(matched(59462, title, file), LIB, opts=OPTS)


def test_a_reason_names_a_topic_by_its_short_name_under_the_topics_line():
    # PR 44987, "[XPU] Enable XPU eplb", gets the elastic-EP deadlock note, whose "Topics:"
    # line reads "Elastic EP scaling, Expert parallelism and elastic EP, ROCm platform";
    # each reason under it said a long name over again: "changes tests/distributed/
    # test_elastic_ep.py (a path of this note; topics: Elastic EP scaling, Expert
    # parallelism and elastic EP)", then "(topic: Expert parallelism and elastic EP)" twice
    res = matched(
        44987,
        "[XPU] Enable XPU eplb",
        "tests/conftest.py",
        "tests/distributed/eplb_utils.py",
        "tests/distributed/test_elastic_ep.py",
        "tests/distributed/test_eplb_algo.py",
    )
    body = render(res, LIB, opts=OPTS)
    assert "Topics: Elastic EP scaling, Expert parallelism and elastic EP, ROCm platform" in body
    assert (
        "- changes `tests/distributed/test_elastic_ep.py` (a path of this note;"
        " topics: Elastic EP scaling, Expert parallelism)"
    ) in body, body
    assert "- title mentions `eplb` (topic: Expert parallelism)" in body, body
    # a topic's full name is said once, on the Topics line, wherever a short one is given
    for topic in LIB.topics.values():
        if topic.short_en:
            assert f"topic: {topic.name_en}" not in body and f", {topic.name_en})" not in body


# kills: bot/reasons.py:under_topics_line a note's one topic said again after its own reason
def test_the_other_files_a_reason_names_render_inert():
    # a line left counting a topic's other files names the first two (bot.reasons):
    # paths a PR author chose, escaped as every path in a reason is
    from bot.reasons import OWN_PATH, changes, reason_lines

    odd = ["docs/@vllm-team/#123.md", "www.example.com/GH-7/x.py", "c.py"]
    reasons = reason_lines(
        [(2.0, changes(["a.py", *odd]), "topic: A"), (1.0, changes(["a.py"]), OWN_PATH)]
    )
    assert f"changes {odd[0]}, {odd[1]} and 1 more file (topic: A)" in reasons, reasons
    for opts in (OPTS, replace(OPTS, verbose=True)):
        body = render(result(note(), reasons=reasons), LIB, opts=opts)
        assert_inert(body)
        assert "vllm-team" in body and "and 1 more file (topic: A)" in body, body


def test_a_notes_one_topic_is_not_said_again_after_a_reason_of_its_own():
    # PR 49532, "[XPU] Support EC connector KV Offloading on XPU", gets the EC connector
    # note, whose "Topics:" line names that one topic; its title line read "title mentions
    # 'EC connector' (also in this note's title; topic: EC connector)", the topic said a
    # third time where the note's title already says why the line counts
    res = matched(
        49532,
        "[XPU] Support EC connector KV Offloading on XPU",
        "tests/v1/ec_connector/unit/test_ec_cpu_connector.py",
        "vllm/distributed/ec_transfer/ec_connector/cpu/worker/descriptor_buffers.py",
    )
    (match,) = res.matches
    said = "title mentions 'EC connector' (also in this note's title"
    assert f"{said}; topic: EC connector)" in match.reasons, match.reasons  # the matcher's
    for opts in (OPTS, replace(OPTS, verbose=True)):
        body = render(res, LIB, opts=opts)
        assert "\nTopics: EC (encoder cache) connector\n" in body, body
        assert f"- {md(said)})\n" in body, body
        # a line the topic alone explains keeps it: it says why a file counts
        assert "1 more file (topic: EC connector)\n" in body, body
    # under a Topics line of two topics, the gloss says which (README's example)
    two = note(topics=("spec-decode", "prefix-caching"))
    line = "title mentions 'EAGLE' (also in this note's title; topic: Speculative decoding)"
    assert f"- {md(line)}\n" in render(result(two, reasons=(line,)), LIB, opts=OPTS)
    one = render(result(note(), reasons=(line,)), LIB, opts=OPTS)
    assert "- title mentions `EAGLE` (also in this note's title)\n" in one, one


# kills: bot/reasons.py:short_view a lone shared name hidden as a lone common word is
def test_a_lone_name_the_title_shares_with_the_notes_title_stays_in_the_short_comment():
    # PR 42604, "DeepSeekV4-Pro enable cuda graph full and piecewise mode", gets the note
    # "Pick the DeepSeek V4 eager CUDA-graph region ..." and its last line, "title shares
    # 'DeepSeek' with this note's title", was left to why mode as 'Keep' is: by the line's
    # shape, though a model both titles name is what a reviewer reads as the resemblance
    res = matched(
        42604,
        "DeepSeekV4-Pro enable cuda graph full and piecewise mode",
        "vllm/model_executor/layers/mhc.py",
        "vllm/v1/attention/backends/mla/rocm_aiter_mla_sparse_dsv4.py",
    )
    named = "title shares 'DeepSeek' with this note's title"
    assert any(named in m.reasons for m in res.matches), [m.reasons for m in res.matches]
    assert f"- {md(named)}" in render(res, LIB, opts=OPTS)
    # a chip, an acronym the note's topic writes (spec-decode: EAGLE, MTP), a name with a
    # digit are names; a word capitalised to open the title, or in lower case, is not
    for word, shown in [
        ("H200", True),
        ("EAGLE", True),
        ("MTP", True),
        ("DSv4", True),
        ("KServe", True),
        ("Keep", False),
        ("default", False),
        ("ranks", False),
        ("SPARSE", False),  # in capitals, but a word the note does not write as a name
    ]:
        lone = f"title shares '{word}' with terms this note is about"
        body = render(result(note(), reasons=("title mentions 'MoE'", lone)), LIB, opts=OPTS)
        assert (f"- {md(lone)}" in body) is shown, word


# kills: bot/reasons.py:_a_name a word in capitals taken for a name whatever the note writes
def test_a_lone_word_in_capitals_is_a_name_only_where_the_note_writes_it_as_one():
    # PR 46076, "[Attention][DSA] support dcp for FLASHINFER_MLA_SPARSE", gets the PCP+DCP
    # note on sparse-MLA models, and its last line, "title shares 'SPARSE' with this note's
    # title", stayed in the short comment as a name would: by its capitals alone, though
    # the note writes "sparse-MLA", a plain word beside the acronym. 'KV' against a note
    # writing only `KVOutputAggregator` read the same (PR 49532).
    res = matched(46076, "[Attention][DSA] support dcp for FLASHINFER_MLA_SPARSE")
    lone = "title shares 'SPARSE' with this note's title"
    assert lone in res.matches[0].reasons, res.matches[0].reasons
    body = render(res, LIB, opts=OPTS)
    assert "SPARSE`" not in body and "- title mentions `MLA` (" in body, body
    assert f"- {md(lone)}" in render(res, LIB, opts=replace(OPTS, verbose=True))
    # an acronym the note or its topics write as a word of their own is a name, in any
    # case they write it: 'DCP' of the note's title, 'MOE' for a keyword 'MoE', 'EAGLE' of
    # spec-decode's keywords; not the 'KV' of a name, nor one a topic it lacks writes
    dcp = note(title_en="Enable PCP + DCP on sparse-MLA models")
    moe = note(keywords=("MoE",))
    kv = note(keywords=("KVOutputAggregator",))
    for word, shown_on, hidden_on in [
        ("DCP", dcp, note()),
        ("MOE", moe, note()),
        ("KV", note(topics=("prefix-caching",)), kv),  # "KV cache" of Prefix caching's
        ("EAGLE", note(), note(topics=("prefix-caching",))),
    ]:
        line = f"title shares '{word}' with this note's title"
        for on, shown in ((shown_on, True), (hidden_on, False)):
            said = render(result(on, reasons=("title mentions 'x'", line)), LIB, opts=OPTS)
            assert (f"- {md(line)}" in said) is shown, (word, on)


def test_why_modes_footer_offers_the_short_comment_back_not_why_again():
    # why mode stays until a plain `/notes` (docs/commands.md); with the footer cut to four commands
    # it offered `/notes why` on the comment already showing all the evidence, and no way back
    why = replace(OPTS, verbose=True)
    for body in (render(result(note()), LIB, opts=why), render_no_match(None, LIB, opts=why)):
        footer = body.rstrip("\n").rsplit("\n", 1)[1]
        assert "`/notes` for the short comment" in footer and "`/notes why`" not in footer
    assert "`/notes why` to see all the evidence" in render(result(note()), LIB, opts=OPTS)


def test_a_comment_showing_no_note_offers_why_for_the_topics_not_the_evidence():
    # "No review note matches this pull request" over "Reply `/notes why` to see all the
    # evidence": evidence of no note, which a reviewer cannot tell what it is of; there why
    # mode shows the topics the pull request touches (and the files not counted)
    hidden = replace(OPTS, hidden=1)
    for body in (render_no_match(None, LIB, opts=OPTS), render_no_match(None, LIB, opts=hidden)):
        footer = body.rstrip("\n").rsplit("\n", 1)[1]
        # and the notes weighed and not linked: "why not note X" is asked most where none is
        said = "`/notes why` to see the notes considered and the topics this pull request touches,"
        assert said in footer, footer
        assert "evidence" not in footer, footer
    assert "`/notes why` to see all the evidence" in render(result(note()), LIB, opts=OPTS)


# kills: bot/render.py:_footer `off` offered on a paused comment
def test_a_paused_comments_footer_does_not_offer_to_stop_its_updates_again():
    # cut to four commands, the footer kept "`/notes off` (or the label `no-review-notes`)
    # to stop its updates here" under the paused line, whose updates were stopped already,
    # by that label too; the paused line says how to resume them
    for cause in PauseCause:
        paused = replace(OPTS, paused=cause, opt_out_label="no-review-notes")
        for body in (
            render(result(note()), LIB, opts=paused),
            render(result(note()), LIB, opts=replace(paused, verbose=True)),
            render_no_match(None, LIB, opts=replace(paused, had_notes=True)),
        ):
            footer = body.rstrip("\n").rsplit("\n", 1)[1]
            assert "/notes off" not in footer and "no-review-notes" not in footer, footer
            assert footer.endswith(
                "or `/notes help` for all commands. This comment is edited in place.</sub>"
            )
            assert "resumes them._" in body


# kills: bot/render.py:_note_block the 原题 line, summary quote and Topics shown empty
def test_a_note_without_english_shows_its_chinese_title_once_and_no_empty_quote():
    # rendering must not rely on validation (title_en and summary_en are required fields)
    bare = note(trusted=False, title_en="", summary_en="")
    body = render(result(bare), LIB, opts=OPTS)
    assert "**1. 测试笔记**" in body and body.count("测试笔记") == 1, body
    assert "原题" not in body and "\n> " not in body, body
    # a topic the taxonomy no longer has is left out, and with none left no "Topics:" line
    gone = render(result(note(trusted=False, topics=("no-such-topic",))), LIB, opts=OPTS)
    assert "Topics:" not in gone and "no-such-topic" not in gone, gone


# kills: bot/render.py:_note_block the count of the reasons not shown left out
def test_the_short_view_shows_twelve_reasons_and_counts_the_rest():
    many = tuple(f"title mentions 'w{i}'" for i in range(14))
    body = render(result(note(), reasons=many), LIB, opts=OPTS)
    assert "- title mentions `w11`" in body and "`w12`" not in body
    assert "- … and 2 more" in body
    why = render(result(note(), reasons=many), LIB, opts=replace(OPTS, verbose=True))
    assert "- title mentions `w13`" in why and "more\n" not in why.split("Why this note:")[1]


# --- the comment read as a plain-text notification email -----------------------


def test_a_reasons_paths_and_quoted_terms_are_code_spans_that_read_cleanly_raw():
    # GitHub's email of a new comment carries the raw Markdown: a reason read
    # "changes kv\_cache\_coordinator.py" and "'worker -&gt; scheduler'". In a code span
    # nothing is escaped, and nothing pings, links or renders either.
    reasons = (
        "changes vllm/v1/core/kv_cache_coordinator.py, a_b.py and 2 more files"
        " (a path of this note)",
        "its changed lines name 'worker -> scheduler', 'x`y' (topic: Spec Decode)",
        "title mentions '@someone #123', 'a*b*' (a term this note is about)",
        "title is tagged [Spec_Decode]",
        "labeled 'ci/build'",
        "changes 2 other files (topic: Spec Decode)",
        "title mentions 'don't' and 'x's (keyword)",
    )
    body = render(result(note(), reasons=reasons), LIB, opts=OPTS)
    assert (
        "- changes `vllm/v1/core/kv_cache_coordinator.py`, `a_b.py` and 2 more files"
        " (a path of this note)" in body
    )
    assert "- its changed lines name `worker -> scheduler`, ``x`y`` (topic: Spec Decode)" in body
    assert (
        f"- title mentions `@{ZWSP}someone #{ZWSP}123`, `a*b*` (a term this note is about)" in body
    )
    assert "- title is tagged `[Spec_Decode]`" in body
    assert "- labeled `ci/build`" in body
    assert "- changes 2 other files (topic: Spec Decode)" in body
    # an apostrophe that opens or closes no quote stays prose, escaped where it must be
    assert "- title mentions 'don't' and 'x's (keyword)" in body
    page = gfm(body)
    assert "<code>worker -&gt; scheduler</code>" in page and "<code>x`y</code>" in page
    assert not LIVE_MENTION.search(outside_code(body)) and not ISSUE_REF.search(outside_code(body))


def test_why_mode_names_the_topics_in_english_alone():
    """Why mode named each topic the PR touches with its Chinese name in brackets after
    the English one: "Model runner (V1 / V2) (Model Runner)", "Distributed execution
    (TP/PP/DP, collectives) (分布式执行)", a name said twice for a reader of English and two
    brackets in a row, where each note's "Topics:" line and the notes pages (the Chinese
    name as a tooltip) give the English alone. (Earlier still, the Chinese name's own
    brackets sat inside the brackets holding it.)"""
    res = matched(1, "[Model Runner V2] Fix input batch", "vllm/v1/worker/gpu_model_runner.py")
    assert [t.topic.id for t in res.topics_without_notes] == ["model-runner"]
    body = render(res, LIB, opts=RenderOptions(verbose=True))
    assert "\n- Model runner (V1 / V2): changes " in body, body
    assert "first: Model runner (V1 / V2)." in body, body
    assert "(Model Runner)" not in body, body


def test_a_topics_short_name_holds_no_brackets():
    """A reason says "(topic: X)": a topic with no short_en and brackets in its name
    would read "(topic: Model runner (V1 / V2))"."""
    from bot.notes import Topic

    topic = Topic(id="t", name_en="Model runner (V1 / V2)", name_zh="模型（V1）")
    assert topic.short == "Model runner"
    assert Topic(id="u", name_en="EC (encoder cache) connector", name_zh="x").short == (
        "EC connector"
    )
    assert Topic(id="v", name_en="(odd)", name_zh="x").short == "(odd)"  # nothing else


def test_a_source_pr_in_the_prs_own_repository_is_named_by_its_number():
    """Every note on a vllm PR read "source: vllm-project/vllm PR 52419", the repository
    the reviewer is in said again. A note from the PR's repository (GitHub's names: case
    aside) says "source: PR 52419"; one from another repository keeps its repository. The
    link is the same, through redirect.github.com: no backlink on the source PR."""
    link = "(https://redirect.github.com/vllm-project/vllm/pull/50001)"
    for repo, said in (
        ("vllm-project/vllm", "[PR 50001]"),
        ("VLLM-Project/vllm", "[PR 50001]"),
        ("acme/vllm", "[vllm-project/vllm PR 50001]"),
        ("", "[vllm-project/vllm PR 50001]"),  # not known: as before
    ):
        body = render(result(note()), LIB, opts=replace(OPTS, repo=repo))
        assert f" · source: {said}{link} · " in body, (repo, body)
        assert_inert(body)


def test_on_its_own_source_pr_a_notes_badge_says_this_pull_request():
    """On a note's own source PR the badge read "source: PR 50001", a link to the page
    the reviewer is reading. There it says "source: this pull request", with no link;
    the other notes of that comment keep theirs."""
    matches = (Match(note(), 9, (), source=True), Match(note(2), 8, ()))
    body = render(MatchResult(matches, ()), LIB, opts=replace(OPTS, repo="vllm-project/vllm"))
    own, rest = body.split("**2. ")
    assert " · source: this pull request · " in own and "/pull/50001" not in body
    assert " · source: [PR 50002](https://redirect.github.com/vllm-project/vllm/pull/50002)" in rest
    assert_inert(body)


def test_a_pr_number_in_a_notes_summary_stays_plain_text():
    """A review asked whether "PR 50062" in a note's summary should be a link. It
    stays text (docs/commands.md, The notes comment in detail): GitHub links no "PR N",
    so it makes no backlink, and a number in a curator's prose may be another
    repository's PR or an issue, which a link would guess. "#N" and a PR's URL are made
    inert as everywhere else."""
    summary = "A rewrite in PR 50062 lost it (#50062)."
    body = render(result(note(summary_en=summary)), LIB, opts=OPTS)
    assert f"> A rewrite in PR 50062 lost it (#{ZWSP}50062)." in body
    assert "/pull/50062" not in body and "/pull/50062" not in linked_by_github(body)
    assert_inert(body)


# kills: bot/render.py:notes_read_back the notes a comment shows read back out of order,
#        or a link to no note taken for one
@pytest.mark.parametrize(
    "links",
    [
        NoteLinks(base_url="https://notes.example.org"),
        NoteLinks(mode="github", repo="acme/notes", branch="live", files={}),
    ],
    ids=["pages", "github"],
)
@pytest.mark.parametrize("verbose", [False, True], ids=["plain", "why mode"])
def test_the_notes_a_comment_shows_read_back_from_its_text(links, verbose):
    """What a `wrong N` numbers when the PR's state lost it (bot.command_feedback): the
    comment's notes in its order, by their guidance links; the text that does not tell
    (not ours, a link to no note as linked now) reads as not known, never as a guess."""
    shown = LIB.notes[:3]
    opts = RenderOptions(links=links, verbose=verbose, paused=PauseCause.COMMAND)
    res = MatchResult(tuple(Match(n, 9.0 - i, ("why",)) for i, n in enumerate(shown)), ())
    body = render(res, LIB, opts=opts)
    assert notes_read_back(body, LIB, links) == tuple(n.id for n in shown)
    assert notes_read_back(render_paused(opts), LIB, links) == ()
    assert notes_read_back(body.removeprefix(MARKER), LIB, links) is None
    moved = NoteLinks(base_url="https://elsewhere.example.org", mode=links.mode, repo="acme/o")
    assert notes_read_back(body, LIB, moved) is None
    swapped = body.replace("**1. ", "**9. ", 1)
    assert notes_read_back(swapped, LIB, links) is None


# kills: bot/markers.py:verified_text an edited notes comment read back as the bot's
def test_a_signed_notes_comment_verifies_only_as_written_for_its_pr():
    """The signature line: last, invisible, after MARKER (which a release before it finds
    first); the text verifies back to the body rendered, also with GitHub's CRLF line
    ends, and the repository in another case (GitHub's names ignore case); an edit of a
    word, another PR, another key, a flipped digit or no signature do not."""
    key = comment_key("secret")
    res = MatchResult(tuple(Match(n, 9.0 - i, ("why",)) for i, n in enumerate(LIB.notes[:2])), ())
    body = render(res, LIB, opts=OPTS)
    written = signed_text(body, key, "o/r", 7)
    assert opens_with(written) and written_by_review_notes(written)
    last = written.rstrip().rsplit("\n", 1)[-1]
    assert last.startswith(SIGNATURE_OPENING) and len(last) < 60
    shown = as_html(written)  # MARKER and the signature kept as HTML comments: hidden
    assert last in shown and shown.count("<!--") == 2
    assert verified_text(written, [key], "o/r", 7) == body
    assert verified_text(written.replace("\n", "\r\n"), [key], "O/R", 7) == body
    assert (
        verified_text(written.replace("Review notes", "Review notez", 1), [key], "o/r", 7) is None
    )
    assert verified_text(written, [key], "o/r", 8) is None
    assert verified_text(written, [key], "o/other", 7) is None
    assert verified_text(written, [comment_key("another")], "o/r", 7) is None
    assert verified_text(body, [key], "o/r", 7) is None
    at = written.index(SIGNATURE_OPENING) + len(SIGNATURE_OPENING)
    flipped = written[:at] + ("1" if written[at] != "1" else "2") + written[at + 1 :]
    assert verified_text(flipped, [key], "o/r", 7) is None


# kills: bot/markers.py:signed_text a PR signed for by its repository's name alone
def test_a_notes_comment_signed_for_its_repositorys_id_verifies_under_any_name_of_it():
    """Signed for repository 42's PR 7: it verifies under the repository's new name (a
    rename or a transfer keeps the id), not for another repository's id or another PR;
    without an id to check, only a signature for the name verifies. One signed for the
    name (an earlier write, or one with no id known) verifies while the name stays."""
    key, body = comment_key("secret"), "<!-- review-notes:v1 -->\nnotes\n"
    by_id = signed_text(body, key, "o/r", 7, 42)
    assert by_id != signed_text(body, key, "o/r", 7)
    assert verified_text(by_id, [key], "o/renamed", 7, 42) == body
    assert verified_text(by_id, [key], "o/r", 7, 43) is None
    assert verified_text(by_id, [key], "o/r", 8, 42) is None
    assert verified_text(by_id, [key], "o/r", 7) is None
    by_name = signed_text(body, key, "o/r", 7)
    assert verified_text(by_name, [key], "O/R", 7, 42) == body
    assert verified_text(by_name, [key], "o/renamed", 7, 42) is None


# kills: bot/markers.py:verified_text only the first key tried
def test_a_notes_comment_signed_with_a_key_kept_from_before_a_rotation_verifies():
    """Signed with the key of the webhook secret before a rotation: it verifies while that
    key is one of those given, before or after the current one, and not once it is not."""
    old, new = comment_key("before"), comment_key("after")
    written = signed_text("<!-- review-notes:v1 -->\nnotes\n", old, "o/r", 7)
    assert verified_text(written, [new, old], "o/r", 7) == "<!-- review-notes:v1 -->\nnotes\n"
    assert verified_text(written, [old, new], "o/r", 7) is not None
    assert verified_text(written, [new], "o/r", 7) is None
    assert verified_text(written, [], "o/r", 7) is None


# Every layout the renderer makes, read back: why mode, paused, hidden notes, notes dropped
# for the budget, retired notes, links with spaces and parentheses in their URL, and titles,
# summaries and reasons that look like a note's number or guidance link.
_READ_BACK_LINKS = [
    NoteLinks(base_url="https://notes.example.org"),
    NoteLinks(base_url=""),  # root-relative
    NoteLinks(base_url="https://example.org/my notes (v2)/"),
    NoteLinks(mode="github", repo="acme/notes", branch="a b", directory="seeds/my notes (x)"),
]
_LOOKALIKE = st.one_of(
    HOSTILE_TEXT,
    st.sampled_from(
        ["", "**2. x**", "1. two", "\n**2. x", "[full guidance (Chinese)](/notes/test-0002)"]
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    picks=st.lists(st.integers(1, 8), max_size=5, unique=True),
    texts=st.lists(_LOOKALIKE, min_size=8, max_size=8),
    retired=st.sets(st.integers(1, 8)),
    in_folder=st.sets(st.integers(1, 8)),
    links=st.sampled_from(_READ_BACK_LINKS),
    verbose=st.booleans(),
    paused=st.sampled_from([None, *PauseCause]),
    hidden=st.integers(0, 2),
    budget=st.sampled_from([BUDGET, 2_500]),
)
def test_any_comment_reads_back_as_the_notes_it_shows(
    picks, texts, retired, in_folder, links, verbose, paused, hidden, budget
):
    """notes_read_back agrees with render: the notes whose blocks the body holds, in order
    (those the budget dropped not among them), and none on a paused body."""
    notes = {
        i: note(i, title_en=t, summary_en=t, title_zh=t or "x", trusted=False)
        for i, t in enumerate(texts, 1)
    }
    files = {n.id: f"sub dir/{n.id}.md" if i in in_folder else n.filename for i, n in notes.items()}
    lib = Library(
        tuple(n for i, n in notes.items() if i not in retired),
        LIB.topics,
        files,
        {n.id: n for i, n in notes.items() if i in retired},  # shown before they were retired
    )
    links = replace(links, files=files)
    opts = RenderOptions(links=links, verbose=verbose, paused=paused, hidden=hidden, budget=budget)
    shown = [notes[i] for i in picks]
    res = MatchResult(tuple(Match(n, 9.0 - k, (texts[0],)) for k, n in enumerate(shown)), ())
    body = render(res, lib, opts=opts)
    # a note is shown when its guidance link is (a note's own text may quote the bare
    # target, not the link: `[` is escaped in it)
    kept = [n.id for n in shown if f"[{GUIDANCE_LINK}]({link_target(links.url(n))})" in body]
    assert kept == [n.id for n in shown[: len(kept)]]  # (a prefix: the best ones)
    assert notes_read_back(body, lib, links) == tuple(kept)
    assert notes_read_back(render_paused(opts), lib, links) == ()

"""Tests written by review r18b (a hand-made mutation run): each one kills a mutant
that the module's own tests let survive. The mutant is named on the `# kills:` line."""

from __future__ import annotations

import hmac
from dataclasses import replace

import pytest

from bot import signature
from bot.command_policy import Admission, RateLimiter
from bot.commands import changed_commands, parse_commands
from bot.github_port import FileList, Outcome
from bot.markdown_safety import clip, code, link_target, pr_link, printable, safe_text
from bot.match_result import MatchResult
from bot.reasons import reason_lines
from bot.render import RenderOptions, _not_counted, render
from bot.similarity import (
    Vocabulary,
    only_uncounted_words,
    shared_words,
    title_words,
    written_form,
)
from bot.sticky import pause_sticky, refresh_sticky
from bot.terms import TermIndex
from tests import test_render as _rt
from tests.test_sticky import REF, SHA2, UNRELATED_TITLE, bodies, ctx, facts  # noqa: F401
from tests.webhook_kit import title_with_one_more_note

# --- bot/signature.py -----------------------------------------------------------


# kills: bot/signature.py:19 hmac.compare_digest(...) -> sign(...) == header.strip()
def test_signature_is_compared_in_constant_time(monkeypatch):
    seen = []
    real = hmac.compare_digest

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(signature.hmac, "compare_digest", spy)
    body = b'{"x": 1}'
    assert signature.verify("s3cret", body, signature.sign("s3cret", body))
    assert not signature.verify("s3cret", body, signature.sign("other", body))
    assert len(seen) == 2


# kills: bot/signature.py:19 header.strip().encode -> header.encode
def test_signature_header_with_trailing_whitespace_still_verifies():
    body = b"payload"
    assert signature.verify("k", body, signature.sign("k", body) + " \r\n")


# --- bot/markdown_safety.py -------------------------------------------------------


# kills: bot/markdown_safety.py:86 0 < i -> 0 <= i
def test_a_leading_zero_width_joiner_is_dropped_even_between_emoji_ends():
    # text[-1] is an emoji: the mutant reads it as the joiner's left neighbour
    assert printable("\u200d😀😀") == "😀😀"
    assert printable("😀\u200d😀") == "😀\u200d😀"


# kills: bot/markdown_safety.py:93 len(text) <= limit -> len(text) < limit
def test_clip_keeps_text_exactly_at_the_limit():
    assert clip("abcde", 5) == "abcde"
    assert clip("abcdef", 5) == "abcd…"


# kills: bot/markdown_safety.py:121 text.replace("&", "&amp;") -> text
def test_entities_in_prose_are_escaped_so_no_encoded_mention_or_reference_comes_back():
    out = safe_text("&#64;someone and &#35;12")
    assert out == "&amp;#\u200b64;someone and &amp;#\u200b35;12"
    assert "&#64;" not in out and "&#35;" not in out


# kills: bot/markdown_safety.py:144 entity-end branch of _url_end -> elif False
def test_a_url_ends_before_a_trailing_entity():
    assert safe_text("see https://example.com/a&quot;") == "see <https://example.com/a>&amp;quot;"


# kills: bot/markdown_safety.py:158 url.replace("&", "&amp;") -> url
def test_an_ampersand_inside_an_autolink_is_written_as_an_entity():
    assert safe_text("https://x.org/?a=1&copy=2") == "<https://x.org/?a=1&amp;copy=2>"


# kills: bot/markdown_safety.py:156 url[:4].lower() == "www." -> url[:4] == "www."
def test_an_upper_case_www_link_gets_a_scheme():
    assert safe_text("WWW.example.com/x") == "<http://WWW.example.com/x>"


# kills: bot/markdown_safety.py:193 drop `or text.endswith("`")`
def test_code_pads_text_that_ends_with_a_backtick():
    assert code("a`") == "`` a` ``"


# kills: bot/markdown_safety.py:199 drop .replace("(", "%28")
def test_link_target_escapes_an_opening_parenthesis():
    assert link_target("https://x.org/a(b") == "https://x.org/a%28b"


# kills: bot/markdown_safety.py:46 (?<![A-Za-z0-9_])GH- -> (?<![A-Za-z0-9])GH-
def test_gh_reference_glued_to_an_identifier_is_left_as_typed():
    # GitHub links no `GH-12` after a word character (`_` is one): no needless ZWSP
    assert safe_text("snake_GH-12 and GH-12") == "snake\\_GH-12 and GH-\u200b12"


# --- bot/sticky.py ---------------------------------------------------------------


# kills: bot/sticky.py:94 `if not force and event_at` -> `if event_at`
def test_a_forced_refresh_is_never_stale(ctx):  # noqa: F811
    refresh_sticky(ctx, REF, facts(), event_at="2026-09-01T10:00:05Z")
    ctx.github.files = []
    old = "2026-09-01T10:00:00Z"  # older than the event seen: stale for a PR event
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), force=True, event_at=old)
    assert r.outcome == Outcome.UPDATED
    assert "No review note" in bodies(ctx)[0]


# kills: bot/sticky.py:99 `if facts.closed and not force:` -> `if facts.closed:`
def test_a_human_asking_on_a_closed_pr_gets_an_answer(ctx):  # noqa: F811
    assert refresh_sticky(ctx, REF, facts(closed=True)).outcome == Outcome.SKIPPED
    assert refresh_sticky(ctx, REF, facts(closed=True), force=True).outcome == Outcome.CREATED


# kills: bot/sticky.py:132 drop `and trusted` from the unchanged shortcut
def test_after_notes_on_an_unchanged_body_still_looks_for_the_comment(ctx):  # noqa: F811
    refresh_sticky(ctx, REF, facts())
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, resumed_at=mark)  # as `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")  # deleted while off
    r = refresh_sticky(ctx, REF, facts())  # same body as the one remembered
    assert r.outcome == Outcome.CREATED and len(bodies(ctx)) == 1


# kills: bot/sticky.py:186 `if files is not None and _lagged(state, facts):` -> `if False:`
def test_files_listed_short_of_changed_files_are_asked_for_again(ctx, monkeypatch):  # noqa: F811
    calls = []

    def short_list(ref, *, expected=None):
        calls.append(ref)
        return FileList(ctx.github.files, {}, frozenset(), listed=len(ctx.github.files))

    monkeypatch.setattr(ctx.github, "list_files", short_list)
    many = len(ctx.github.files) + 3
    refresh_sticky(ctx, REF, facts(changed_files=many))
    refresh_sticky(ctx, REF, facts(changed_files=many))
    assert len(calls) == 2  # the cached list was short: GitHub is asked again
    refresh_sticky(ctx, REF, facts(changed_files=len(ctx.github.files)))
    assert len(calls) == 2  # a full list is reused


# kills: bot/sticky.py:235 `event_at < state.event_at` -> `event_at <= state.event_at`
def test_an_event_of_the_same_second_is_not_stale(ctx):  # noqa: F811
    at = "2026-09-01T10:00:05Z"
    refresh_sticky(ctx, REF, facts(), event_at=at)
    ctx.github.files = []
    r = refresh_sticky(ctx, REF, facts(title=UNRELATED_TITLE, sha=SHA2), event_at=at)
    assert r.outcome == Outcome.UPDATED and "stale" not in r.reason


# kills: bot/sticky.py:390 drop `listed is not None and` in _lagged
def test_a_list_given_without_githubs_count_stands_as_given(ctx):  # noqa: F811
    # the counting port lists without a count (listed=None): a later event carrying
    # `changed_files` reuses the cached list instead of comparing with nothing
    refresh_sticky(ctx, REF, facts(changed_files=50))
    r = refresh_sticky(ctx, REF, facts(changed_files=50, labels=("x",)))
    assert r.outcome == Outcome.UNCHANGED
    assert ctx.github.counted["list_files"] == 1


# kills: bot/sticky.py:360 `sticky.comment_id or state.comment_id` -> swapped
def test_a_comment_posted_anew_is_remembered_by_its_new_id(ctx):  # noqa: F811
    first = refresh_sticky(ctx, REF, facts()).comment_id
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, resumed_at=mark)  # as `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")  # deleted while off
    r = refresh_sticky(ctx, REF, facts(), force=True)
    (posted,) = ctx.github.comments(REF.repo, REF.number)
    assert posted["id"] != first
    assert r.comment_id == posted["id"] == ctx.prs.get(REF.repo, REF.number).comment_id


# kills: bot/sticky.py:365 `bool(written.notes) or written.had_notes` -> `written.had_notes`
def test_notes_shown_for_the_first_time_are_remembered_as_shown(ctx):  # noqa: F811
    refresh_sticky(ctx, REF, facts())
    assert ctx.prs.get(REF.repo, REF.number).had_notes is True


# kills: bot/sticky.py:298 drop `state.trusted and` in pause_sticky
def test_a_pause_after_notes_on_looks_for_a_comment_that_may_be_gone(ctx):  # noqa: F811
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, opted_out=True)
    pause_sticky(ctx, REF)  # the comment says "paused"
    mark = ctx.prs.get(REF.repo, REF.number).resume_mark()
    ctx.prs.update(REF.repo, REF.number, opted_out=False, resumed_at=mark)  # `/notes on`
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    r = pause_sticky(ctx, REF)  # `/notes off` again: same body as remembered
    assert r.outcome == Outcome.SKIPPED and "no comment of ours found" in r.reason
    assert ctx.prs.get(REF.repo, REF.number).comment_id is None


# kills: bot/sticky.py:332 drop `state.body_hash is not None and` (known_differs)
def test_after_an_unconfirmed_edit_the_text_posted_is_not_claimed_to_differ(ctx, monkeypatch):  # noqa: F811
    # the hash was cleared: what the comment shows is unknown, so a comment list showing
    # this very body must not be taken for one lagging behind another text (a needless edit)
    refresh_sticky(ctx, REF, facts())
    ctx.github.answers_lost = 1
    with pytest.raises(ConnectionError):
        refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert ctx.prs.get(REF.repo, REF.number).body_hash is None
    asked = []
    upsert = ctx.github.upsert_sticky

    def spy(ref, body, marker, **kw):
        asked.append(kw["known_differs"])
        return upsert(ref, body, marker, **kw)

    monkeypatch.setattr(ctx.github, "upsert_sticky", spy)
    refresh_sticky(ctx, REF, facts(title=title_with_one_more_note(), labels=("x",)))
    assert asked == [False]
    refresh_sticky(ctx, REF, facts())  # the hash is known again, and this text differs
    assert asked == [False, True]


# kills: bot/sticky.py:377 `if noticed_at is None and state.switched_at:` -> `if False:`
def test_a_deletion_noticed_by_a_command_ranks_just_after_that_command(ctx):  # noqa: F811
    said = "2020-01-01T00:00:00Z/00000000000000000007"  # the `/notes off` that paused it
    refresh_sticky(ctx, REF, facts(), force=True)
    ctx.prs.update(REF.repo, REF.number, switched_at=said)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    pause_sticky(ctx, REF)
    key = ctx.prs.get(REF.repo, REF.number).switched_at
    assert said < key < "2020-01-01T00:00:00Z/00000000000000000008"  # not the bot's clock


# kills: bot/sticky.py:380 `max(key, just_after(state.switched_at))` -> `key`
def test_a_deletion_noticed_by_an_event_never_ranks_below_the_switch_recorded(ctx):  # noqa: F811
    on = "2099-01-01T00:00:00Z/00000000000000000007"  # a switch later than the event
    refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, switched_at=on)
    ctx.github.db.execute("DELETE FROM dry_run_comments")
    refresh_sticky(
        ctx, REF, facts(title=title_with_one_more_note()), event_at="2030-01-01T10:00:05Z"
    )
    key = ctx.prs.get(REF.repo, REF.number).switched_at
    assert on < key < "2099-01-01T00:00:00Z/00000000000000000008"


# --- bot/command_policy.py ---------------------------------------------------------


class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


# kills: bot/command_policy.py:130 `lost_after_s <= 0` -> `lost_after_s < 0`
def test_a_zero_lost_after_is_refused():
    with pytest.raises(ValueError):
        RateLimiter(1.0, lost_after_s=0)


# kills: bot/command_policy.py:145 `now - run_at < self.lost_after_s` -> `<=`
def test_a_deferred_run_is_taken_as_lost_exactly_lost_after_s_past_its_time():
    clock = _Clock()
    limiter = RateLimiter(10.0, clock, lost_after_s=60.0)
    assert limiter.admit("k").admission is Admission.RUN
    clock.now += 1
    deferred = limiter.admit("k")
    assert deferred.admission is Admission.DEFER
    clock.now = deferred.run_at + 60.0 - 0.5
    assert limiter.admit("k").admission is Admission.MERGED
    clock.now = deferred.run_at + 60.0
    assert limiter.admit("k").admission is Admission.RUN


# kills: bot/command_policy.py:170 `len(self._windows) < self._max_keys` -> `<=`
def test_the_limiter_keeps_at_most_max_keys_windows():
    clock = _Clock()
    limiter = RateLimiter(1.0, clock, max_keys=2)
    for key in ("a", "b", "c", "d"):
        assert limiter.admit(key).admission is Admission.RUN
        clock.now += 5  # every earlier window is over: it may go
        assert len(limiter._windows) <= 2


# --- bot/commands.py ---------------------------------------------------------------


# kills: bot/commands.py:111 `used = -1` -> `used = 0`
def test_arguments_exactly_max_arg_chars_long_are_kept_whole():
    (cmd,) = parse_commands("/notes search abcd efghi", max_arg_chars=10)  # "abcd efghi": 10
    assert cmd.args == ("abcd", "efghi")
    (cmd,) = parse_commands("/notes search abcd efghij", max_arg_chars=10)
    assert cmd.args == ("abcd",)


# --- bot/similarity.py ---------------------------------------------------------------


# kills: bot/similarity.py:58 `len(word) > 3` -> `len(word) > 2`
def test_a_three_letter_word_ending_in_s_keeps_its_s():
    assert title_words("bus gas ops") == {"bus", "gas", "ops"}
    assert title_words("graphs") == {"graph"}


# kills: bot/similarity.py:69 non-ASCII letters guard -> `if False:`
def test_a_text_with_other_letters_is_not_only_uncounted_words():
    assert not only_uncounted_words("P/D 分离")
    assert only_uncounted_words("in the")


# kills: bot/similarity.py:71 drop `and not title_words(text)`
def test_a_text_with_counted_words_is_not_only_uncounted_words():
    assert not only_uncounted_words("prefix cache")


# kills: bot/similarity.py:104 `if not piece and at is not None:` -> `if at is not None:`
def test_a_shared_word_is_quoted_from_its_first_name_in_the_title():
    # both names write `stats` among other words; the first one's piece is the quote
    assert written_form("kv_stats_x and CStats_foo", "stat", frozenset()) == "stats"


# --- bot/render.py ---------------------------------------------------------------


def _two_note_result(reasons=("title mentions 'EAGLE'",)):
    return _rt.result(_rt.note(1), _rt.note(2), reasons=reasons)


# kills: bot/render.py:112 `len(body) <= opts.budget` -> `<`
def test_a_comment_exactly_at_the_budget_shows_every_note():
    res = _two_note_result()
    full = render(res, _rt.LIB, opts=_rt.OPTS)
    assert render(res, _rt.LIB, opts=replace(_rt.OPTS, budget=len(full))) == full


# kills: bot/render.py:136 `len(body) <= opts.budget` -> `<` (no-match body, why mode)
def test_a_no_match_body_exactly_at_the_budget_keeps_its_topics():
    res = MatchResult((), ("rocm",))
    why = RenderOptions(verbose=True)
    full = render(res, _rt.LIB, opts=why)
    assert "ROCm" in full
    assert render(res, _rt.LIB, opts=replace(why, budget=len(full))) == full


# kills: bot/render.py:203 `if hidden == 1 else` -> `if hidden == 0 else`
def test_one_note_left_out_for_the_budget_is_named_in_the_singular():
    res = _two_note_result()
    full = render(res, _rt.LIB, opts=_rt.OPTS)
    body = render(res, _rt.LIB, opts=replace(_rt.OPTS, budget=len(full) - 1))
    assert "Test note 1" in body and "Test note 2" not in body
    assert "_1 more note matched but is not shown: the comment would be too long._" in body


# kills: bot/render.py:247 `len(match.reasons) > limit` -> `>=`
def test_exactly_the_shown_number_of_reasons_adds_no_more_line():
    reasons = tuple(f"reason {i}" for i in range(12))  # _REASONS_SHORT
    body = render(_rt.result(_rt.note(1), reasons=reasons), _rt.LIB, opts=_rt.OPTS)
    assert "reason 11" in body and "more" not in body.split("</details>")[0].split("reason 11")[1]
    assert "… and 0 more" not in body


# kills: bot/render.py:269 `if more > 0` -> `if more >= 0`
def test_five_files_not_counted_are_all_named_with_no_and_more():
    (line,) = [x for x in _not_counted(tuple(f"f{i}.py" for i in range(5))) if x]
    assert "and 0 more" not in line and "`f4.py`" in line
    (line,) = [x for x in _not_counted(tuple(f"f{i}.py" for i in range(6))) if x]
    assert "and 1 more" in line


# kills: bot/similarity.py:166 `i >= floor` -> `i > floor`
def test_a_word_exactly_as_rare_as_the_floor_counts():
    vocab = Vocabulary(titles=99, df={"region": 9})
    floor = vocab.idf("region")
    assert shared_words(frozenset({"region"}), frozenset({"region"}), vocab, floor) == [
        ("region", floor)
    ]


# --- bot/reasons.py ---------------------------------------------------------------


# kills: bot/reasons.py:47 `why and why not in whys` -> `why`
def test_a_reason_given_twice_for_one_thing_is_said_once():
    said = (1.0, "changes a.py", "a path of this note")
    scored = [said, said]
    assert reason_lines(scored) == ("changes a.py (a path of this note)",)


# kills: bot/commands.py:177 drop `[:max_commands]` in changed_commands
def test_an_edit_runs_at_most_max_commands_new_commands():
    new = "/notes why\n/notes topic a\n/notes search b"
    assert [c.kind.value for c in changed_commands("hi", new, max_commands=2)] == ["why", "topic"]


# --- bot/terms.py ---------------------------------------------------------------


# kills: bot/terms.py:45 `{0,4}` -> `{0,5}` (separators between a keyword's words)
def test_at_most_four_separators_join_a_keywords_words():
    index = TermIndex(["thinking budget"])
    assert set(index.find("thinking    budget")) == {"thinkingbudget"}
    assert index.find("thinking     budget") == {}


# kills: bot/terms.py:160 `if not key: continue` -> `if False:`
def test_a_punctuation_only_keyword_matches_nothing():
    index = TermIndex(["---", "EP"])
    assert "" not in index.keys
    assert set(index.find("some text with EP")) == {"ep"}


# kills: bot/terms.py:170 `acronyms.get(key, n) == n` -> `True`
def test_a_keyword_spelled_with_and_without_its_acronym_takes_any_plural():
    # one spelling ends in no acronym: `elastic eps` is its plural, whichever comes last
    for terms in (["elastic EP", "elastic ep"], ["elastic ep", "elastic EP"]):
        assert "elasticep" in TermIndex(terms).find("elastic eps"), terms


# kills: bot/terms.py:204 drop `shorter not in keys and`
def test_a_shorter_keyword_already_found_at_a_place_is_counted_once_there():
    hits = TermIndex(["tool call", "tool call s"]).find("tool calls")
    assert hits["toolcall"].count == 1 and hits["toolcall"].spans == ((0, 10),)


# --- bot/queue.py ---------------------------------------------------------------


# kills: bot/queue.py:244 `d.not_before <= ?` -> `d.not_before < ?`
def test_a_delivery_put_back_is_due_at_its_not_before_exactly(tmp_path, monkeypatch):
    from bot import queue as queue_module
    from bot.db import Database
    from bot.queue import DeliveryQueue

    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d1", "pull_request", "opened", {"n": 1}, "o/r", 1)
    assert q.claim().id == "d1"
    monkeypatch.setattr(queue_module, "utcnow", lambda after_s=0.0: "2030-01-01T00:00:00.000000Z")
    assert q.defer("d1", 0, "rate limited")
    (row,) = q.db.execute("SELECT not_before FROM deliveries WHERE id = 'd1'")
    assert row["not_before"] == "2030-01-01T00:00:00.000000Z"
    assert q.claim().id == "d1"  # the clock reads its not_before: it is due


# kills: bot/queue.py:41 `MAX_DEFERRALS = 8` -> `9`
def test_a_delivery_is_put_back_eight_times_for_rate_limits_then_failed(tmp_path):
    # eight secondary back-offs of 300 s come to about half an hour (bot/queue.py)
    from bot.db import Database
    from bot.queue import DeliveryQueue, State

    q = DeliveryQueue(Database(tmp_path / "q.sqlite3"))
    q.enqueue("d1", "pull_request", "opened", {"n": 1}, "o/r", 1)
    for _ in range(8):
        assert q.claim().id == "d1"
        assert q.defer("d1", 0, "rate limited")
        q.db.execute("UPDATE deliveries SET not_before = NULL WHERE id = 'd1'")
    assert q.claim().id == "d1"
    assert not q.defer("d1", 0, "rate limited")
    assert q.get("d1").state == State.FAILED


# kills: bot/sticky.py:239 `elif state.event_by is not None and ...:` -> `elif False:`
def test_a_second_event_of_the_same_second_makes_every_run_of_it_a_tie(ctx):  # noqa: F811
    from bot.sticky import seen_event

    at = "2026-09-01T10:00:05Z"
    assert seen_event(ctx, REF, at, "delivery-a") is None
    assert ctx.prs.get(REF.repo, REF.number).event_by == "delivery-a"
    assert seen_event(ctx, REF, at, "delivery-a") is None  # its own re-run: still its own
    assert ctx.prs.get(REF.repo, REF.number).event_by == "delivery-a"
    assert seen_event(ctx, REF, at, "delivery-b") is None  # another event of that second
    assert ctx.prs.get(REF.repo, REF.number).event_by is None


# kills: bot/markdown_safety.py:61 `([#+=-])` -> `([#+-])`
def test_a_setext_underline_at_the_start_is_escaped():
    assert safe_text("=== big") == "\\=== big"


# kills: bot/markdown_safety.py:61 `\d{1,9}` -> `\d{1,8}`
def test_a_nine_digit_ordered_list_marker_at_the_start_is_escaped():
    assert safe_text("123456789. x") == "123456789\\. x"  # CommonMark: up to nine digits


# kills: bot/markdown_safety.py:56 `\[\]` -> `\[` (a closing bracket left bare)
def test_a_closing_bracket_is_escaped_so_it_cannot_end_a_link_text():
    assert safe_text("a]b") == "a\\]b"
    assert link_text_of(pr_link("own]er/repo", 5)) == "own\\]er/repo PR 5"


def link_text_of(link: str) -> str:
    assert link.startswith("[") and link.count("](") == 1
    return link[1 : link.index("](")]


# kills: bot/render.py:324 `them = "it" if n == 1 else "them"` -> `them = "them"`
def test_one_hidden_note_is_shown_again_as_it():
    body = render(MatchResult((), ()), _rt.LIB, opts=RenderOptions(hidden=1))
    assert "_1 note that matched was marked not relevant here and hidden;" in body
    assert "restore` shows it._" in body
    body = render(MatchResult((), ()), _rt.LIB, opts=RenderOptions(hidden=2))
    assert "restore` shows them._" in body

"""`/notes wrong` and `/notes restore`: picking the note, hiding it, keeping the mark.

The pure parts on plain data; the store and the sticky refresh on a real SQLite file
through the dry-run port (the end-to-end path is in test_command_feedback).
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import wrong_reading
from bot.cli import main
from bot.command_replies import render_unpicked
from bot.commands import Command, load_command_config, parse_commands
from bot.context import BotContext
from bot.db import Database
from bot.feedback import Mark, hide_dismissed, report_json, report_lines, summarise
from bot.feedback_store import FeedbackStore
from bot.github_port import Outcome
from bot.library import load_library
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher, match_pr
from bot.prfacts import PRFacts
from bot.prstate import SCHEMA, PRState, PRStore
from bot.reasons import evidence_terms
from bot.sticky import refresh_sticky
from bot.times import utcnow
from bot.wrong_reading import Pick, PickProblem, as_said, pick_note
from tests.test_sticky import REF, CountingPort, bodies, facts
from tests.webhook_kit import MATCHING_FILES, clean_env, make_settings, title_with_one_more_note

SHOWN = ("vllm-aaaa1111", "vllm-bbbb2222", "vllm-cccc3333")


def picked(typed: str, shown: tuple[str, ...] = SHOWN, **kw) -> Pick:
    """Which of `shown` the comment line `/notes wrong {typed}` means (`pick_note`)."""
    (command,) = parse_commands(f"/notes wrong {typed}")
    return pick_note(command.args, shown, **kw)


def assert_hides_2(typed: str, reason: str) -> None:
    """`/notes wrong {typed}` hides note 2 for the reason `reason`."""
    pick = picked(typed)
    assert (pick.note_id, pick.reason) == (SHOWN[1], reason)


def assert_lists_2_and_3(typed: str) -> None:
    """`/notes wrong {typed}` names notes 2 and 3: no one note is hidden, and its key is
    the list's, as `2,3` (an edit between the two ways of typing it runs nothing)."""
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    assert command.key == ("wrong", ("2,3",))


def assert_names_no_note(typed: str) -> tuple[Command, Pick]:
    """`/notes wrong {typed}` names no note (a count, no note's number): with several notes
    shown it asks which, nothing hidden; with one, that one is meant, all of it the reason."""
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], typed)
    return command, pick


def assert_names_no_note_2_alone(typed: str) -> tuple[Command, Pick]:
    """`/notes wrong {typed}` names note 2 with another: with several notes shown it asks
    which, nothing hidden; with one, it is answered there is no note 2."""
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank) == (None, PickProblem.RANGE, 2)
    return command, pick


# --- which note a command means ---------------------------------------------------------


@pytest.mark.parametrize("first", ["2", "#2", "2.", "2:", "2)", "VLLM-BBBB2222"])
def test_a_note_is_named_by_its_number_or_its_id(first):
    pick = pick_note((first, "only", "renames", "a", "flag"), SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == ("vllm-bbbb2222", 2, "only renames a flag")
    assert pick.problem is None


# a note's number in brackets, as a list or a footnote numbers items, is the number:
#   `/notes wrong (2)` and `[2]` were answered "say which note" (and with one note shown
#   hid it with the reason `(2)`), where `2)` and `#2` named note 2
@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("(2)", "2"),
        ("[2]", "2"),
        ("（２）", "2"),
        ("【2】", "2"),
        ("(#2)", "2"),
        ("(2) only renames", "2 only renames"),
        ("[2]: only renames", "2 only renames"),
        ("(2)只是改名", "2 只是改名"),
        ("(2)-", "2"),
        ("(2)- only renames", "2 only renames"),
        ("（２）「只是改名」", "2「只是改名」"),
    ],
)
def test_a_note_number_in_brackets_names_the_note(typed, plain):
    (bracketed,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    assert pick_note(bracketed.args, SHOWN) == pick_note(said.args, SHOWN)
    assert pick_note(bracketed.args, SHOWN).note_id == SHOWN[1]
    assert bracketed.key == said.key


@pytest.mark.parametrize("typed", ["(2,3)", "(2]", "[2)", "(see 2)", "(2x)", ",(2)"])
def test_brackets_holding_more_than_a_number_or_unmatched_name_no_note(typed):
    assert picked(typed).note_id is None


# two notes' numbers in brackets name no one note, as `2, 3` and `2 3` do not: `/notes wrong
#   (1) (2)` (or `(1), (2)`, `[1][2]`) hid note 1 with the reason `(2)`, half of what was
#   asked, its only word a number
@pytest.mark.parametrize(
    "typed",
    ["(1) (2)", "(1), (2)", "[1][2]", "(1)(2) both off", "（１）（２）", "(1)-(3)"],
)
def test_two_bracketed_numbers_name_no_one_note(typed):
    pick = picked(typed)
    assert (pick.note_id, pick.problem) == (None, PickProblem.WHICH)


# two numbers in one pair of brackets with one note shown hide nothing, as `2,3` does not:
#   `/notes wrong (2,3)` hid note 1 with the reason `(2,3)`, where the writer named two
#   notes the comment does not show
@pytest.mark.parametrize("typed", ["(2,3)", "[2,3]", "（２，３）", "(2、3) both off"])
def test_with_one_note_shown_two_bracketed_numbers_hide_nothing(typed):
    pick = picked(typed, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank) == (None, PickProblem.RANGE, 2)
    # the answer quotes the numbers asked, with no bracket left of the pair
    assert pick.asked == typed.split(" ")[0][1:-1]


# two bracketed numbers in one word read as two numbers, no bracket of theirs quoted back:
#   `/notes wrong (2)(3)` with one note shown was answered "There is no note `2)3`", its
#   closing bracket read as a separator between them; `(2)-(3)` as `2)-3`
@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("(2)(3)", "2 3"),
        ("[2][3]", "2 3"),
        ("（２）（３）", "２ ３"),
        ("(2)【3】", "2 3"),
        ("(2)(3) both off", "2 3 both off"),
        ("(2)(3)只是改名", "2 3)只是改名"),
        ("(2),(3)", "2,3"),
        ("(2)-(3)", "2-3"),
        ("(2)、(3)", "2、3"),
        ("(2),(3)x", "2,3)x"),
    ],
)
def test_bracketed_numbers_glued_together_are_read_as_typed_apart(typed, plain):
    (bracketed,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    for shown in (SHOWN[:1], SHOWN):
        assert pick_note(bracketed.args, shown) == pick_note(said.args, shown)
    assert bracketed.key == said.key


# a list's separator typed apart from the numbers reads as glued to them: `/notes wrong 1 ,
#   2` and `1 - 2` hid note 1 with the reason `, 2` / `2`, where `1,2` and `1-2` (which is
#   no range: two notes, or which is meant is not clear) are asked which note
@pytest.mark.parametrize(
    ("spaced", "glued"),
    [
        ("1 , 2", "1,2"),
        ("1 ,2", "1,2"),
        ("1 ， 2", "1，2"),
        ("1 、 2", "1、2"),
        ("1 - 2", "1-2"),
        ("1 – 2", "1–2"),
        ("1 — 2", "1—2"),
        ("1 : 2", "1:2"),
        ("1 , #2", "1,#2"),
        ("1 - 第2条", "1-第2条"),
        ("1 + 2", "1+2"),
        ("1 ＋ 2", "1＋2"),
        ("(1) , (2)", "(1),(2)"),
        ("(1) - (2)", "(1)-(2)"),
        ("1 , 2 both off", "1,2 both off"),
    ],
)
def test_a_list_separator_typed_apart_reads_as_glued(spaced, glued):
    (apart,), (together,) = (
        parse_commands(f"/notes wrong {spaced}"),
        parse_commands(f"/notes wrong {glued}"),
    )
    for shown in (SHOWN[:1], SHOWN):
        pick, wanted = pick_note(apart.args, shown), pick_note(together.args, shown)
        assert (pick.note_id, pick.problem) == (wanted.note_id, wanted.problem) != (None, None)


# (bracketed numbers read as glued, `(2)-(3)`, whose answer quotes both: "no note `2-3`")
@pytest.mark.parametrize(
    ("spaced", "asked"),
    [("2 , 3", "2"), ("2 - 3", "2"), ("2 + 3", "2"), ("(2) - (3)", "2-3"), ("(2) (3)", "2")],
)
def test_with_one_note_shown_a_spaced_list_hides_nothing(spaced, asked):
    pick = picked(spaced, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank) == (None, PickProblem.RANGE, 2)
    assert pick.asked == asked


# a separator alone is a list's only between two numbers: a dash before words still sets
#   the reason off (`2 - 3x faster`: a quantity), and one before the bracketed number is no
#   list's (`/notes wrong - (2)` with one note shown: the reason `(2)`, as typed)
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 - only renames", "only renames"),
        ("2 — 3x faster", "3x faster"),
        ("2 ， 3个文件只是改名", "3个文件只是改名"),
        ("2 - --enforce-eager", "--enforce-eager"),
    ],
)
def test_a_separator_before_words_keeps_them_the_reason(typed, reason):
    assert_hides_2(typed, reason)


# a comma typed apart from the number sets the reason off as one glued to it does
#   (`2，只是改名`, `2, only renames`): no word of the reason, ASCII or full-width, with a
#   space after it or none, as Chinese puts none
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 ， 只是改名", "只是改名"),
        ("2 ，只是改名", "只是改名"),
        ("2 、 只是改名", "只是改名"),
        ("2 , only renames", "only renames"),
        ("2 ,only renames", "only renames"),
        ("2 , , only renames", "only renames"),
        ("2 ， — 只是改名", "只是改名"),
    ],
)
def test_a_comma_typed_apart_sets_the_reason_off(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[1], reason)
    glued = parse_commands(f"/notes wrong 2，{reason}")[0]
    assert command.key == glued.key
    alone = pick_note(parse_commands(f"/notes wrong 1{typed[1:]}")[0].args, SHOWN[:1])
    assert (alone.note_id, alone.reason) == (SHOWN[0], reason)


# a dash or colon typed apart sets a reason off, and one that starts
#   with a number and goes on in words is the reason (`2 — 3 tests fail`), as it was before
#   a list's separator typed apart read as glued: those were asked which note, as `1 - 2` is
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 — 3 tests only renamed", "3 tests only renamed"),
        ("2 - 3 files are just moved", "3 files are just moved"),
        ("2 : 1 file only", "1 file only"),
        ("2 ： 2 个文件改名", "2 个文件改名"),
        ("2 - #1234 fixed it already", "#1234 fixed it already"),
        ("2 — 2024 change", "2024 change"),
    ],
)
def test_a_reason_set_off_by_a_dash_may_start_with_a_number(typed, reason):
    pick = picked(typed)
    assert (pick.note_id, pick.reason, pick.problem) == (SHOWN[1], reason, None)
    alone = pick_note(parse_commands(f"/notes wrong 1{typed[1:]}")[0].args, SHOWN[:1])
    assert (alone.note_id, alone.reason) == (SHOWN[0], reason)


# and numbers alone after it stay a list's: two notes, or which is meant is not clear
@pytest.mark.parametrize("typed", ["1 - 2 - 3", "1 - 2 3", "1 — 2, 3", "1 : 2 , 3", "1 , 2 files"])
def test_numbers_alone_after_a_dash_are_a_list(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    for shown in (SHOWN[:1], SHOWN):
        assert pick_note(command.args, shown).note_id is None, (typed, shown)


# a bracketed number is a list's, as a numbered list writes its items: after a dash or colon
# typed apart too (a reason does not start with `(2)`), whatever follows it
@pytest.mark.parametrize(
    "typed", ["(1) - (2) both off", "(1) — (2) 只是改名", "（1） ： （2） both off", "[1] - [2] x"]
)
def test_a_bracketed_number_after_a_dash_is_a_list_s(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    for shown in (SHOWN[:1], SHOWN):
        pick = pick_note(command.args, shown)
        assert (pick.note_id, pick.problem) == (None, PickProblem.WHICH), (typed, shown)


# kills: bot/wrong_reading.py:_list_glued, _list_head (mutation) a list keyed as spaced, or a
#   number and its reason glued into one
@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("1 , 2", ("1,2",)),
        ("1, 2", ("1,2",)),
        ("1. 2", ("1,2",)),  # a list by its numbers, whatever separates them
        ("1 2 3", ("1,2,3",)),
        ("1 - 2 , 3 x", ("1,2,3",)),  # no word after the numbers: the answer reads none
        ("1,2 , 3", ("1,2,3",)),
        ("1,2：(see 2)", ("1,2",)),  # nor one glued on
        ("1,2：x 3", ("1,2",)),
        ("2,二，只是改名", ("2,2",)),
        ("2,十十", ("2,十十",)),  # no numeral Chinese writes: as typed
        ("1 - 2 both off", ("1", "2", "both", "off")),
        ("2，只是改名 3", ("2", "只是改名", "3")),
        ("x 1 2", ("x", "1", "2")),
        ("1", ("1",)),
    ],
)
def test_a_list_is_said_as_glued(typed, said):
    assert as_said(typed.split(" ")) == said


# kills: bot/wrong_reading.py:_unbracketed (mutation) the words glued to the number counted wrong
@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("(1) - (2) x", ["1-2", "x"]),
        ("(1) (2) - (3) x", ["1", "2-3", "x"]),
        ("(1) - - (2)", ["1--2"]),
        ("(1) (2) (3)", ["1", "2", "3"]),
        ("(1) , (2) - (3)", ["1,2-3"]),
        ("(1) - x (2)", ["1", "-", "x", "(2)"]),
    ],
)
def test_bracketed_numbers_are_read_with_the_separators_between_them(typed, read):
    assert wrong_reading._unbracketed(typed.split(" ")) == read


def test_a_separator_before_a_bracketed_number_is_the_reason_s():
    assert picked("- (2)", SHOWN[:1]).reason == "(2)"


# kills: bot/wrong_reading.py:_unbracketed (mutation) a bracketed number after a glued reason
#   read as a number: the reason's words are the curators', as typed
def test_a_bracketed_number_in_the_reason_is_its_word():
    assert picked("(2)只是改名 (3)").reason == "只是改名 (3)"


def test_a_bracketed_number_out_of_range_is_answered_with_the_number():
    pick = picked("(9)")
    assert (pick.problem, pick.rank, pick.asked) == (PickProblem.RANGE, 9, "9")


# kills: bot/wrong_reading.py:pick_note note 1 of the comment taken for a number out of range
def test_the_first_and_the_last_note_are_named_by_their_numbers():
    pick = pick_note(("1", "only", "a", "rename"), SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[0], 1, "only a rename")
    assert (pick_note(("3",), SHOWN).note_id, pick_note(("3",), SHOWN).rank) == (SHOWN[2], 3)


# kills: bot/wrong_reading.py:pick_note the selector not stripped of a separator no command
#   word splits at
@pytest.mark.parametrize("space", ["\u2028", "\x85", "\x0b"])
def test_a_note_number_followed_by_a_line_separator_still_names_it(space):
    # a command's words split at these as at any blank a reader sees (comment_prose.BLANKS),
    # and a word ending in one (as pick_note may be given) still names the note
    pick = picked(f"2{space} only renames a flag")
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "only renames a flag")


@pytest.mark.parametrize(
    "line",
    [
        "/notes wrong 2， 只是改名",  # a Chinese keyboard's comma, as `2, ...` is read
        "/notes wrong 2，只是改名",  # and with no space after it, as Chinese is written
        "/notes wrong 2：只是改名",
        "/notes wrong 2。只是改名",
        "/notes wrong ２ 只是改名",  # a full-width digit
        "/notes wrong ＃2 只是改名",
    ],
)
def test_a_note_number_typed_on_a_chinese_keyboard_names_the_note(line):
    # The notes are Chinese reading guidance, and many of their reviewers type Chinese:
    # an input method writes full-width punctuation and digits, with no space after the
    # comma. The number names the note, the rest is the reason; it was answered "say
    # which note" though the reviewer had.
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "只是改名")


# kills: bot/wrong_reading.py:_reason (hand) a separator word kept: `/notes wrong 2 — only
#   renames` was kept for the curators as `— only renames`
@pytest.mark.parametrize(
    "line",
    [
        "/notes wrong 2 — only renames",
        "/notes wrong 2 —— only renames",  # a Chinese input method's dash, for `_`
        "/notes wrong 2 - only renames",
        "/notes wrong 2 -- only renames",
        "/notes wrong 2 – only renames",
        "/notes wrong 2 : only renames",
        "/notes wrong 2 ： only renames",
        "/notes wrong 2 —only renames",
        "/notes wrong 2— only renames",  # glued to the number, as `2, ...` is
        "/notes wrong 2——only renames",
        "/notes wrong 2 - - only renames",
    ],
)
def test_a_dash_or_colon_between_the_number_and_the_reason_is_no_part_of_it(line):
    # a reviewer sets the reason off from the number as a sentence sets off an aside; the
    # curators read `only renames`, as after `2:` or `2，`
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "only renames")


def test_a_dash_inside_the_reason_or_starting_a_flag_is_kept():
    # only what stands between the number and the words goes: `-O3` or `--enforce-eager`
    # glued to its name is the reason's own first word
    for line, reason in [
        ("/notes wrong 2 only re-names — not a fix", "only re-names — not a fix"),
        ("/notes wrong 2 --enforce-eager only", "--enforce-eager only"),
        ("/notes wrong 2 — --enforce-eager only", "--enforce-eager only"),
    ]:
        (command,) = parse_commands(line)
        assert pick_note(command.args, SHOWN).reason == reason, line
    # with one note shown, the reason alone may start with one
    assert picked("— only renames", SHOWN[:1]).reason == "only renames"


# kills: bot/wrong_reading.py:_ordinal (hand) Chinese's `第2条` not read: answered "say which note"
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 第2条", ""),
        ("/notes wrong 第 2 条", ""),
        ("/notes wrong 第２条", ""),
        ("/notes wrong 第二条", ""),
        ("/notes wrong 第二个", ""),
        ("/notes wrong 第二", ""),
        ("/notes wrong 第2个 只是改名", "只是改名"),
        ("/notes wrong 第2项，只是改名", "只是改名"),
        ("/notes wrong 第2条只是改名", "只是改名"),  # no space after it, as Chinese writes
        ("/notes wrong 第 2 条：只是改名", "只是改名"),
        ("/notes wrong 第2 只是改名", "只是改名"),
        ("/notes wrong 2号 只是改名", "只是改名"),
        ("/notes wrong 2号只是改名", "只是改名"),
        ("/notes wrong ２号", ""),
        ("/notes wrong 第2条「只是改名」", "「只是改名」"),
        # kills: bot/wrong_reading.py:_ordinal (hand) a numeral alone, or before 号, not read as
        #   its digit: `二` and `二号` were answered "say which note", and with one note shown
        #   `二` hid note 1 with the reason `二`
        ("/notes wrong 二", ""),
        ("/notes wrong 二号", ""),
        ("/notes wrong 二，只是改名", "只是改名"),
        ("/notes wrong 二 只是改名", "只是改名"),
    ],
)
def test_a_note_named_as_chinese_counts_it_names_the_note(line, reason):
    # a Chinese-speaking reviewer points at "item no. 2" so; it was answered "say which
    # note", and with one note shown hid that note with the reason `第2条`
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)


# kills: bot/wrong_reading.py:_ordinal (hand) English's `note 2` not read: answered "say which
#   note" with several shown, and with one shown `note 2` hid note 1 with the reason `note 2`
@pytest.mark.parametrize(
    ("line", "reason", "plain"),
    [
        # as the footer of several notes says it: "`/notes wrong N` if note N does not fit"
        ("/notes wrong note 2", "", "2"),
        ("/notes wrong Note 2", "", "2"),
        ("/notes wrong note #2 only renames", "only renames", "2 only renames"),
        ("/notes wrong note 2: only renames", "only renames", "2: only renames"),
        ("/notes wrong note 2, only renames", "only renames", "2, only renames"),
        ("/notes wrong note2", "", "2"),
        ("/notes wrong NOTE 2 — only renames", "only renames", "2 — only renames"),
    ],
)
def test_a_note_named_as_the_comment_says_it_in_english_names_the_note(line, reason, plain):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    # an edit writing it as the number alone is the same command, not one to answer again
    assert as_said(command.args) == as_said(plain.split())


# kills: bot/wrong_reading.py:_ordinal (hand) English's ordinals not read: `2nd` and `second`
#   were answered "say which note", and with one note shown hid note 1 with them as the reason
@pytest.mark.parametrize(
    ("line", "reason", "plain"),
    [
        ("/notes wrong 2nd", "", "2"),
        ("/notes wrong second", "", "2"),
        ("/notes wrong Second", "", "2"),
        ("/notes wrong 2ND", "", "2"),
        ("/notes wrong 2th", "", "2"),  # the suffix aside, the number is clear
        ("/notes wrong ２nd", "", "2"),
        ("/notes wrong 2nd only renames", "only renames", "2 only renames"),
        ("/notes wrong second, only renames", "only renames", "2, only renames"),
        ("/notes wrong second: only renames", "only renames", "2: only renames"),
        ("/notes wrong second — only renames", "only renames", "2 — only renames"),
        ("/notes wrong Second，只是改名", "只是改名", "2，只是改名"),
        ("/notes wrong 2nd note", "", "2"),
        ("/notes wrong second one only renames", "only renames", "2 only renames"),
        ("/notes wrong second note: only renames", "only renames", "2: only renames"),
        ("/notes wrong 2nd notebook only", "notebook only", "2 notebook only"),
        ("/notes wrong 2nd.", "", "2"),
        ("/notes wrong second🙏", "", "2"),
        # kills: bot/wrong_reading.py:_ORDINAL (hand) no `the` before it: `the second` was the
        #   reason, "Say which note" with several shown, note 1 hidden with one
        ("/notes wrong the second", "", "2"),
        ("/notes wrong The second one", "", "2"),
        ("/notes wrong the 2nd", "", "2"),
        ("/notes wrong the second one is unrelated", "is unrelated", "2 is unrelated"),
        ("/notes wrong the second, only renames", "only renames", "2, only renames"),
        ("/notes wrong the 2nd only renames", "only renames", "2 only renames"),
        ("/notes wrong the second 只是改名", "只是改名", "2 只是改名"),
    ],
)
def test_a_note_named_as_english_counts_it_names_the_note(line, reason, plain):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    # an edit writing it as the number is the same command, not one to answer again
    assert command.key == parse_commands(f"/notes wrong {plain}")[0].key


# a full-width mode's English (`ｎｏｔｅ ２`, the footer's words, `ｔｈｅ ｓｅｃｏｎｄ`) names the
#   note as ASCII does, as every command reads full-width forms (docs/commands.md); it was
#   "Say which note" with several shown, and with one shown the reason of note 1
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("ｎｏｔｅ ２", ""),
        ("ｎｏｔｅ　２：ｏｎｌｙ ｒｅｎａｍｅｓ", "ｏｎｌｙ ｒｅｎａｍｅｓ"),
        ("ｓｅｃｏｎｄ", ""),
        ("ｔｈｅ ｓｅｃｏｎｄ ｏｎｅ", ""),
        ("２ｎｄ 只是改名", "只是改名"),
        ("the ２ｎｄ", ""),
    ],
)
def test_a_note_named_in_full_width_english_names_the_note(typed, reason):
    (command,) = parse_commands(f"／ｎｏｔｅｓ ｗｒｏｎｇ {typed}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    # an ordinal qualifying a word is that word's adjective, full-width or not
    assert picked("ｔｈｅ ｓｅｃｏｎｄ ｈａｌｆ ｉｓ ｄｏｃｓ").problem is PickProblem.WHICH


# a reason glued on to the number (`2，只是改名`, `第2条只是改名`, `2:only`) is keyed as after a
#   space: docs/commands.md says an edit setting them apart another way runs nothing again
@pytest.mark.parametrize(
    ("glued", "spaced"),
    [
        ("2，只是改名", "2 只是改名"),
        ("第2条只是改名", "第2条 只是改名"),
        ("第2条只是改名", "2 只是改名"),
        ("2:only renames", "2 only renames"),
        ("#2，只是改名", "#2 只是改名"),
    ],
)
def test_a_reason_glued_to_the_number_is_keyed_as_one_set_apart(glued, spaced):
    (edited,), (plain,) = (
        parse_commands(f"/notes wrong {glued}"),
        parse_commands(f"/notes wrong {spaced}"),
    )
    assert pick_note(edited.args, SHOWN).reason == pick_note(plain.args, SHOWN).reason
    assert edited.key == plain.key


# kills: bot/wrong_reading.py:as_said (hand) a note's number keyed as typed: `/notes wrong #2`,
#   `2)` and `02` name note 2 as `2` does, but an edit between them ran the `wrong` again
#   (👀, the PR and its comments read, 👍), where docs/commands.md says a `wrong`'s note is
#   keyed as pick_note reads it
@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("#2", "2"),
        ("＃２", "2"),
        ("2)", "2"),
        ("02", "2"),
        ("#2 only renames", "2 only renames"),
        ("2) only renames", "2 only renames"),
        ("#2，只是改名", "2 只是改名"),
        ("#2,", "2"),
    ],
)
def test_a_wrongs_key_names_the_note_by_the_number_it_reads(typed, plain):
    (edited,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    assert pick_note(edited.args, SHOWN) == pick_note(said.args, SHOWN)
    assert edited.key == said.key


# a reason in quotes is keyed without them: `/notes wrong 2「只是改名」` was keyed
#   `2「只是改名」` (the quote not set apart, as pick_note sets it) and `2 「只是改名」` with
#   its quotes, so an edit between them and `2 只是改名` ran the `wrong` again (👀, the PR
#   and its comments read, 👍) for one request
@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("2「只是改名」", "2 只是改名"),
        ("2 「只是改名」", "2 只是改名"),
        ("2“只是改名”", "2 只是改名"),
        ("2，「只是改名」", "2 只是改名"),
        ("第2条「只是改名」", "2 只是改名"),
        ('2 "only renames"', "2 only renames"),
        ("2 `only renames`", "2 only renames"),
        ("2 【只是 改名】", "2 只是 改名"),
        # a full stop or an emoji after the closing quote ends the sentence, no word
        ("2「只是改名」。", "2 只是改名"),
        ('2 "only renames".', "2 only renames"),
        ("2 「只是改名」🙏", "2 只是改名"),
    ],
)
def test_a_wrongs_key_reads_a_quoted_reason_without_its_quotes(typed, plain):
    (edited,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    assert pick_note(edited.args, SHOWN).note_id == pick_note(said.args, SHOWN).note_id
    assert edited.key == said.key


# kills: bot/wrong_reading.py:_unquoted (mutation) empty quotes kept as a word of the reason, and a
#   lone quote read as a pair around nothing
def test_empty_quotes_are_no_reason_and_a_lone_quote_is_a_word():
    (empty,), (lone,), (bare,) = (parse_commands(f"/notes wrong 2 {r}") for r in ("「」", '"', ""))
    assert empty.key == bare.key
    assert lone.key != bare.key


def test_with_one_note_shown_a_quoted_reason_is_keyed_without_its_quotes():
    (edited,), (said,) = (
        parse_commands("/notes wrong 「只是改名」"),
        parse_commands("/notes wrong 只是改名"),
    )
    assert edited.key == said.key


@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ("2「只是」改名", "2 只是改名"),
        ('2 "a" or "b"', "2 a or b"),
        ("2 「只是改名", "2 只是改名"),
        ("2 「只是改名』", "2 只是改名"),
        ("2 」只是改名」", "2 只是改名"),
        ("「", ""),
    ],
)
def test_quotes_around_part_of_a_reason_are_its_words(typed, plain):
    (edited,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    assert edited.key != said.key


# kills: bot/wrong_reading.py:as_said (mutation) the reason keyed as one word: the punctuation its
#   words end in counted, which every command's key leaves out (docs/commands.md), so an
#   edit adding a comma ran the `wrong` again
def test_a_wrongs_key_leaves_out_the_punctuation_its_reasons_words_end_in():
    (edited,) = parse_commands("/notes wrong 2 only, renames")
    assert edited.key == parse_commands("/notes wrong 2 only renames")[0].key


@pytest.mark.parametrize(
    ("first", "rank"),
    [("first", 1), ("1st", 1), ("third", 3), ("3rd", 3), ("fourth", 4), ("4th", 4)]
    + [("fifth", 5), ("5th", 5), ("11th", 11), ("FIRST", 1)],
)
def test_each_english_ordinal_is_its_number(first, rank):
    shown = tuple(f"vllm-{i:08x}" for i in range(12))
    pick = pick_note((first,), shown)
    assert (pick.note_id, pick.rank) == (shown[rank - 1], rank)


@pytest.mark.parametrize(
    ("first", "problem", "asked"),
    [
        ("2nd", PickProblem.RANGE, "2nd"),  # quoted as typed, no reason to hide note 1
        ("second", PickProblem.RANGE, "second"),
        ("second one", PickProblem.RANGE, "second one"),
        ("the second", PickProblem.RANGE, "the second"),
        ("sixth", None, ""),  # no ordinal read past fifth: the reason
        ("secondly", None, ""),  # words an ordinal starts are words
        ("second-hand", None, ""),
        ("first-class", None, ""),
    ],
)
def test_with_one_note_shown_an_english_ordinal_past_1_is_out_of_range(first, problem, asked):
    (command,) = parse_commands(f"/notes wrong {first}")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.problem, pick.asked) == (problem, asked)
    if problem is None:
        assert (pick.note_id, pick.reason) == (SHOWN[0], first)
        assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


def test_two_english_ordinals_name_no_one_note():
    for line in ("/notes wrong 2nd 3rd", "/notes wrong second, third"):
        (command,) = parse_commands(line)
        assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH, line


# kills: bot/wrong_reading.py:_ordinal (hand) an English ordinal word read as the number before
#   any word: `first time contributor, unrelated` hid note 1 with the reason `time
#   contributor, unrelated` (with two notes shown too, where none was named), and with one
#   shown `second half is docs` was answered that there is no note 2
@pytest.mark.parametrize(
    "reason",
    [
        "first time contributor, the note is unrelated",
        "second half of the PR is docs only",
        "first of all, this is a docs change",
        "Third party code only",
        "first 2-GPU run is unrelated",  # a word starting with a letter or digit, whatever after
        "first A卡 run is unrelated",  # (`A卡`: AMD GPUs) an English start is enough
    ],
)
def test_an_english_ordinal_starting_a_sentence_is_a_word_of_the_reason(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], reason)
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    # set off from the words after it, it is the note's number, as before
    word = reason.split()[0]
    for said in (f"{word}, x", f"{word} - x", word, f"{word} 只是改名"):  # Chinese: no adjective
        (command,) = parse_commands(f"/notes wrong {said}")
        rank = ("first", "second", "third").index(reason.split()[0].lower()) + 1
        assert pick_note(command.args, ("a", "b", "c")).rank == rank, said


# `the` changes nothing of the rule above: the ordinal before a word is its adjective
@pytest.mark.parametrize(
    "reason", ["the second half of the PR is docs only", "the first time contributor, unrelated"]
)
def test_an_english_ordinal_after_the_before_a_word_is_a_word_of_the_reason(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    assert (pick_note(command.args, SHOWN[:1]).reason) == reason
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_is_number (hand) `the` and an ordinal after a note's number read as
#   a second number: `2 the first one fits` was "Say which note", though it names note 2
def test_the_and_an_ordinal_after_a_notes_number_are_words_of_the_reason():
    pick = picked("2 the first one fits, this one does not")
    assert (pick.rank, pick.reason) == (2, "the first one fits, this one does not")


@pytest.mark.parametrize("first", ["note 2", "Note 2: only renames", "note #2"])
def test_with_one_note_shown_note_2_is_a_number_out_of_range_not_a_reason(first):
    # the reviewer read another comment than this one: hiding note 1 is not what they asked
    pick = picked(first, SHOWN[:1])
    assert (pick.note_id, pick.problem) == (None, PickProblem.RANGE)
    assert pick.asked == first.removesuffix(": only renames")  # quoted as typed


# (`notes 2 fit better` names note 2: `test_notes_before_a_number_names_it_as_note_does`)
@pytest.mark.parametrize("reason", ["noteworthy only for CI", "note", "notes"])
def test_words_starting_with_note_but_no_number_are_kept_as_typed(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    assert pick_note(command.args, SHOWN[:1]).reason == reason
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_chinese_number tens and ones misread (a comment may show more than
#   ten notes: `max_notes` is the matching config's)
@pytest.mark.parametrize(
    ("first", "rank"),
    [("第十条", 10), ("第十二条", 12), ("第二十条", 20), ("第二十一条", 21), ("第九条", 9)],
)
def test_a_note_counted_in_chinese_numerals_past_ten_is_that_note(first, rank):
    shown = tuple(f"vllm-{i:08x}" for i in range(25))
    pick = pick_note((first,), shown)
    assert (pick.note_id, pick.rank) == (shown[rank - 1], rank)


# kills: bot/wrong_reading.py:_ordinal (hand) words that start so rewritten though they name no
#   number: with one note shown, `第一次见到` ("seen for the first time") was kept as `1次见到`
@pytest.mark.parametrize(
    "reason", ["第一次见到这种 PR，不相关", "十分不相关", "一般不用看", "二十分钟就改完了"]
)
def test_words_starting_as_a_chinese_count_are_kept_as_typed(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    assert pick_note(command.args, SHOWN[:1]).reason == reason
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


@pytest.mark.parametrize(
    ("first", "problem", "asked"),
    [
        ("第9条", PickProblem.RANGE, "第9条"),  # quoted as typed in the answer
        ("第 9 条", PickProblem.RANGE, "第 9 条"),
        ("第十条", PickProblem.RANGE, "第十条"),
        ("五", PickProblem.RANGE, "五"),  # with one note shown, not its reason
        ("九号", PickProblem.RANGE, "九号"),
        ("第2、3条", PickProblem.WHICH, ""),  # two notes: which is meant is not clear
        ("第2，3条", PickProblem.WHICH, ""),
        ("第2条、第3条", PickProblem.WHICH, ""),
        ("2号、3号", PickProblem.WHICH, ""),
        # kills: bot/wrong_reading.py:_is_number a count after a number read as the reason
        ("2 第3条", PickProblem.WHICH, ""),
        ("第2条 3号", PickProblem.WHICH, ""),
        ("2条", PickProblem.WHICH, ""),  # "two of them", no note's number
        ("第", PickProblem.WHICH, ""),
        # kills: bot/wrong_reading.py:_ordinal numerals that are no number read as one
        ("第二二条", PickProblem.WHICH, ""),
        ("第十十条", PickProblem.WHICH, ""),
    ],
)
def test_a_chinese_count_naming_no_one_note_hides_nothing(first, problem, asked):
    (command,) = parse_commands(f"/notes wrong {first}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.problem, pick.asked) == (None, problem, asked)
    # with one note shown, a note's number out of range is not the reason for hiding it
    if problem is PickProblem.RANGE:
        assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.RANGE


# kills: bot/wrong_reading.py:_reason_quoted (hand) a full-width bracket asked of as its ASCII:
#   `/notes wrong 2（只是改名）` was answered "say which note", and with one note shown hid
#   note 1 with the reason `2（只是改名）`
def test_a_reason_in_full_width_brackets_glued_to_the_number_is_its_reason():
    (command,) = parse_commands("/notes wrong 2（只是改名）")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "（只是改名）")
    assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.RANGE
    # ASCII's glued on is no separator, as before: which note is meant is not clear
    assert picked("2(only renames)").problem is PickProblem.WHICH
    # a quote inside a reason glued to the number is the reason's, kept as typed
    assert picked("2，只改了名「后续」").reason == "只改了名「后续」"


# kills: bot/wrong_reading.py:pick_note a reason glued to a number with no separator between
@pytest.mark.parametrize("first", ["2,3", "２，３", "2.5", "2,#3", "2nds", "2x"])
def test_two_numbers_glued_together_name_no_note(first):
    # `2,3` may mean two notes: hiding note 2 with the reason "3" would do half of it;
    # a number glued to letters is no number either, as before
    pick = pick_note((first, "both", "off"), SHOWN)
    assert (pick.note_id, pick.problem) == (None, PickProblem.WHICH)


# kills: bot/wrong_reading.py:pick_note a glued reason kept with the line separator before it
def test_a_reason_glued_to_the_number_is_kept_as_typed():
    # the number is read in ASCII; the reviewer's words are the curators', unchanged
    (command,) = parse_commands("/notes wrong 2，只改了名（ＰＲ 后续）")
    assert pick_note(command.args, SHOWN).reason == "只改了名（ＰＲ 后续）"
    # a separator no command word splits at (test above) is no part of the reason
    assert picked("2，\u2028只改了名").reason == "只改了名"


def test_a_number_out_of_range_glued_to_its_reason_hides_nothing():
    # With one note shown, words that name no note are the reason for hiding it; but
    # `2，不对` names note 2, which the comment does not show: it hid note 1, which the
    # reviewer did not name.
    pick = picked("2，不对", SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, "2")


def test_with_one_note_shown_the_number_may_be_left_out():
    assert pick_note((), SHOWN[:1]).note_id == SHOWN[0]
    pick = pick_note(("the", "proxy", "is", "not", "the", "connector"), SHOWN[:1])
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[0], 1, "the proxy is not the connector")


@pytest.mark.parametrize(
    ("args", "shown", "problem"),
    [
        (("1",), (), PickProblem.NO_NOTES),
        ((), SHOWN, PickProblem.WHICH),
        (("not", "relevant"), SHOWN, PickProblem.WHICH),
        (("4",), SHOWN, PickProblem.RANGE),
        (("0",), SHOWN, PickProblem.RANGE),
        (("vllm-dddd4444", "why"), SHOWN, PickProblem.NOT_SHOWN),
        (("①",), SHOWN, PickProblem.WHICH),  # a digit to str.isdigit, not to int()
        (("²",), SHOWN, PickProblem.WHICH),
    ],
)
def test_a_command_naming_no_shown_note_says_why(args, shown, problem):
    pick = pick_note(args, shown, known={*SHOWN, "vllm-dddd4444"})
    assert pick.note_id is None and pick.problem is problem


def test_with_one_note_shown_an_unknown_word_is_a_reason_and_an_id_shaped_one_a_note():
    # A word the library does not know may be the reviewer's own reason; but one shaped
    # like the importer's ids names a note, one deleted since the reviewer read it:
    # taking it for the reason would hide the one note left.
    pick = pick_note(("flaky-test", "only"), SHOWN[:1], known=set(SHOWN))
    assert pick.note_id == SHOWN[0] and pick.reason == "flaky-test only"
    shape = re.compile(r"vllm-[0-9a-f]{8}")  # Library.id_shape of a vllm library
    pick = pick_note(("vllm-dddd4444",), SHOWN[:1], known=set(SHOWN), id_shape=shape)
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)
    # a date or a commit after a word is no note id: the reason
    pick = pick_note(("nightly-20250101", "fixed"), SHOWN[:1], known=set(SHOWN), id_shape=shape)
    assert pick.note_id == SHOWN[0] and pick.reason == "nightly-20250101 fixed"


# kills: bot/wrong_reading.py:pick_note (hand) a note's link not read as its id: with several
#   notes shown "say which note" to a reviewer who pasted which, and with one shown a link
#   to another note hid that one with the link as the reason
@pytest.mark.parametrize(
    "link",
    [
        "https://review-notes.example.org/notes/vllm-bbbb2222",  # the comment's "full guidance"
        "https://review-notes.example.org/notes/VLLM-BBBB2222/source",
        "http://127.0.0.1:8000/notes/vllm-bbbb2222/source?format=text",
        "https://review-notes.example.org/notes/vllm-bbbb2222.",  # the sentence's full stop
        "<https://review-notes.example.org/notes/vllm-bbbb2222>",
        # REVIEW_NOTES_NOTE_LINKS=github: the note's file, in a curator's sub-folder
        "https://github.com/o/notes/blob/main/seeds/notes/spec/vllm-bbbb2222.md?plain=1",
    ],
)
def test_a_notes_link_pasted_from_the_comment_names_that_note(link):
    (command,) = parse_commands(f"/notes wrong {link} only renames")
    pick = pick_note(command.args, SHOWN, known=set(SHOWN))
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "only renames")
    # with one note shown, a link to another is no reason to hide the one there
    pick = pick_note(command.args, SHOWN[:1], known=set(SHOWN))
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)
    shape = re.compile(r"vllm-[0-9a-f]{8}")  # a note deleted since: as its id typed
    pick = pick_note(command.args, SHOWN[:1], id_shape=shape)
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)


# kills: bot/wrong_reading.py:_linked_id (hand) a link a Chinese sentence runs on from read whole:
#   "say which note" to a reviewer who pasted which, and with one note shown a link to
#   another hid that one with the link as the reason
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        # GitHub's autolinker, as the note's page (docs/commands.md), takes all up to an
        # ASCII space: the Chinese sentence run on from the link is the reason
        ("https://review-notes.example.org/notes/vllm-bbbb2222，只是改名", "只是改名"),
        ("https://review-notes.example.org/notes/vllm-bbbb2222。", ""),  # a full stop
        ("https://review-notes.example.org/notes/vllm-bbbb2222/source）。 只是改名", "只是改名"),
    ],
)
def test_a_notes_link_with_a_chinese_sentence_run_on_from_it_names_that_note(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN, known=set(SHOWN))
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    pick = pick_note(command.args, SHOWN[:1], known=set(SHOWN))
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)


@pytest.mark.parametrize(
    "reason",
    [
        "https://github.com/o/r/issues/9 says it is a rename",  # a link naming no note
        "https://review-notes.example.org/notes?topic=rocm is the topic",
        "https://example.org/notes/howto explains",  # a page of some other site's notes
    ],
)
def test_a_link_naming_no_note_is_the_reason(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    shape = re.compile(r"vllm-[0-9a-f]{8}")
    assert pick_note(command.args, SHOWN[:1], known=set(SHOWN), id_shape=shape).reason == reason
    assert pick_note(command.args, SHOWN, known=set(SHOWN)).problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:pick_note (hand) a note's id in quotes or inline code read as the
#   reviewer's words, no id: with one note shown, `"<another note's id>"` hid the one
#   shown, with the id for its reason; with several, naming the note by id asked which
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ('"vllm-bbbb2222"', ""),
        ("「vllm-bbbb2222」", ""),
        ("『VLLM-BBBB2222』。", ""),  # its case, and a full stop after the quote
        ("“vllm-bbbb2222” only renames", "only renames"),
        ("`vllm-bbbb2222`: only renames", "only renames"),  # in inline code
        ("'vllm-bbbb2222'", ""),
        ("《vllm-bbbb2222》", ""),
        ("「vllm-bbbb2222」只是改名", "只是改名"),  # a reason glued on, as Chinese writes it
        ("【vllm-bbbb2222】只是改名", "只是改名"),
        # what ends a sentence or a word glued on between them is no word of it, as after
        # a number (`2。只是改名`, `2🙏只是改名`)
        ("「vllm-bbbb2222」。只是改名", "只是改名"),
        ("【vllm-bbbb2222】！只是改名", "只是改名"),
        ("「vllm-bbbb2222」🙏只是改名", "只是改名"),
        ('"https://review-notes.example.org/notes/vllm-bbbb2222"', ""),
    ],
)
def test_a_note_id_in_quotes_names_that_note(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN, known=set(SHOWN))
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    # the one note shown, named by its id: hidden
    pick = pick_note(command.args, SHOWN[1:2], known=set(SHOWN))
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 1, reason)
    # another note, or one deleted since: not shown, and the one shown stays
    pick = pick_note(command.args, SHOWN[:1], known=set(SHOWN))
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)
    shape = re.compile(r"vllm-[0-9a-f]{8}")
    pick = pick_note(command.args, SHOWN[:1], id_shape=shape)
    assert (pick.note_id, pick.problem) == (None, PickProblem.NOT_SHOWN)


def test_words_in_quotes_that_name_no_note_are_the_reason():
    # a quoted word of an id's shape that names no note is the reviewer's, as bare
    for typed in ('"fp8" only', "「flaky-test1」", "`torch.compile2`"):
        (command,) = parse_commands(f"/notes wrong {typed}")
        shape = re.compile(r"vllm-[0-9a-f]{8}")
        pick = pick_note(command.args, SHOWN[:1], known=set(SHOWN), id_shape=shape)
        assert (pick.note_id, pick.reason) == (SHOWN[0], typed), typed
        assert pick_note(command.args, SHOWN, known=set(SHOWN)).problem is PickProblem.WHICH


def test_a_former_id_of_a_renamed_note_names_it():
    # `renamed`: former id -> id now; either id names the note, whichever was numbered
    renamed = {"vllm-0ld00001": SHOWN[1]}
    assert pick_note(("vllm-0ld00001", "why"), SHOWN, renamed=renamed).rank == 2
    numbered_before = (SHOWN[0], "vllm-0ld00001")
    assert pick_note((SHOWN[1],), numbered_before, renamed=renamed).note_id == "vllm-0ld00001"
    assert pick_note(("VLLM-0LD00001",), numbered_before, renamed=renamed).rank == 2


# --- hiding ----------------------------------------------------------------------------


def two_note_result():
    library = load_library()
    pr = PRFacts(
        repo=REF.repo, number=1, title=title_with_one_more_note(), files=tuple(MATCHING_FILES)
    )
    result = match_pr(pr, library, load_match_config())
    assert len(result.matches) >= 2
    return result


def test_a_hidden_note_leaves_a_gap_nothing_fills():
    result = two_note_result()
    first, second = (m.note.id for m in result.matches[:2])
    kept, hidden = hide_dismissed(result, [first, "vllm-not-matched"])
    assert hidden == 1
    assert [m.note.id for m in kept.matches] == [m.note.id for m in result.matches[1:]]
    assert kept.matches[0].note.id == second and kept.topics == result.topics
    assert hide_dismissed(result, []) == (result, 0)


# --- what curators read -------------------------------------------------------------------


def mark(note_id: str, number: int, at: str, **kw) -> Mark:
    return Mark("vllm-project/vllm", number, note_id, 1, "reviewer", at=at, **kw)


def test_report_lines_say_each_mark_and_only_the_words_written():
    marks = [
        mark("a", 1, "2026-12-01", reason="proxy only", evidence=("title mentions 'EPD'",)),
        mark("a", 2, "2026-12-02"),
    ]
    lines = report_lines(summarise(marks, {"a": 4}), {"a": "A note"})
    assert lines[0] == "a  shown on 4 PR(s), marked not relevant on 2 (50%)  A note"
    assert (
        "    vllm-project/vllm PR 1 (note 1 of the comment), 2026-12-01, by reviewer: proxy only"
        in lines
    )
    assert "    vllm-project/vllm PR 2 (note 1 of the comment), 2026-12-02, by reviewer" in lines
    assert "        - title mentions 'EPD'" in lines
    assert lines[-1].startswith("2 mark(s) on 1 of 1 note(s) shown")


def test_summary_ranks_equal_marks_by_share_and_terms_likewise():
    marks = [mark("a", 1, "t"), mark("b", 2, "t")]
    rows = summarise(marks, {"a": 10, "b": 2})
    assert [f.note_id for f in rows] == ["b", "a"]  # one mark each: 1 of 2 before 1 of 10
    mtp, ep = "title mentions 'MTP' (aspect)", "title mentions 'EP' (topic: EP)"
    repo = "vllm-project/vllm"
    marked = [mark("c", 1, "t", evidence=(mtp, ep))]
    shown = [(repo, 5, "c", (ep,)), (repo, 6, "c", (ep,))]
    (c,) = summarise(marked, {"c": 3}, shown)
    assert [t.term for t in c.terms] == ["'MTP'", "'EP'"]  # 1 of 1 before 1 of 3


def test_summary_counts_standing_marks_most_marked_first():
    marks = [
        mark("a", 1, "2026-12-01"),
        mark("a", 2, "2026-12-02"),
        mark("b", 3, "2026-12-01"),
        mark("b", 4, "2026-12-01", withdrawn=True),
    ]
    rows = summarise(marks, {"a": 10, "b": 2, "c": 5})
    assert [(f.note_id, f.shown, len(f.marks)) for f in rows] == [
        ("a", 10, 2),
        ("b", 2, 1),
        ("c", 5, 0),
    ]
    assert [m.number for m in rows[0].marks] == [2, 1]  # newest first
    assert rows[1].share == 0.5 and rows[2].share == 0.0
    # a mark on a PR the database no longer counts as shown still counts as shown once
    assert summarise([mark("d", 1, "x")], {})[0].shown == 1


def test_marks_made_before_the_notes_update_are_flagged_and_rank_behind_current_ones():
    # marks never aged: one made before a curator fixed the note looked current
    epd = ("title mentions 'EPD' (topic: EPD)",)
    marks = [
        mark("a", 1, "2026-12-01T09:00:00.000000Z", evidence=epd),
        mark("a", 2, "2026-12-02T09:00:00.000000Z", evidence=epd),
        mark("b", 3, "2026-12-05T09:00:00.000000Z", evidence=epd),  # the update's day
    ]
    updated = {"a": "2026-12-03", "b": "2026-12-05"}
    rows = summarise(marks, {"a": 4, "b": 4}, (), updated)
    assert [(f.note_id, len(f.marks), len(f.current)) for f in rows] == [("b", 1, 1), ("a", 2, 0)]
    assert [t.term for t in rows[0].terms] == ["'EPD'"] and rows[1].terms == ()
    lines = report_lines(rows, {})
    assert (
        "    2 of the marks came before the note was updated on 2026-12-03: they may be"
        " answered already, and the terms behind the marks leave them out"
    ) in lines
    said = "(note 1 of the comment), 2026-12-01, before the update, by reviewer"
    assert f"    vllm-project/vllm PR 1 {said}" in lines
    assert "    vllm-project/vllm PR 3 (note 1 of the comment), 2026-12-05, by reviewer" in lines
    assert sum("came before" in line for line in lines) == 1  # b's mark is of b as it is
    (b, a) = report_json(rows)
    assert (a["updated"], [m["before_update"] for m in a["marks"]]) == ("2026-12-03", [True] * 2)
    assert (b["updated"], [m["before_update"] for m in b["marks"]]) == ("2026-12-05", [False])
    (none,) = summarise(marks[:1], {"a": 1})  # no `updated`: every mark counts
    assert none.current == none.marks and report_json([none])[0]["updated"] is None


def test_the_terms_of_the_matchers_evidence():
    reasons = (
        "changes vllm/v1/core/kv_cache_coordinator.py (a path of this note; topic: Prefix caching)",
        "title shares 'partial', 'hit' with this note's title",
        "title mentions 'partial-hash-hit' (keyword of this note)",  # the older wording
        "title mentions 'partial-hash-hit' (a term this note is about)",
        "title is tagged [Spec Decode] (topic: Speculative decoding)",
        "description mentions 'EAGLE', 'MTP' (topic: Speculative decoding)",
        "labelled speculative-decoding (topic: Speculative decoding)",  # a mark kept before
        "labeled 'ci/build' (topic: CI)",  # GitHub's spelling
        "refers to PR 52419, the PR this note reviews",
        "reverts PR 53155, which got this note",
        # the rest of a shared file set gave the term '2'
        "changes 2 other files (topic: Speculative decoding)",
        "this note lists this PR to read with its own",  # a mark kept in the older wording
        "this note lists this PR as one to read with it",
        # the rest of a file set, named by its files now: its first path, no comma
        "changes vllm/spec_decode/a.py, vllm/spec_decode/b.py and 1 more file (topic: X)",
    )
    assert evidence_terms(reasons) == {
        "vllm/v1/core/kv_cache_coordinator.py",
        "vllm/spec_decode/a.py",
        "(a title like the note's)",
        "'partial-hash-hit'",
        "[Spec Decode]",
        "'EAGLE'",
        "'MTP'",
        "label speculative-decoding",
        "label 'ci/build'",
        "(refers to the note's PR or issue)",
        "(relates to a PR with it)",
        "(a PR the note lists to read with it)",
    }


def test_the_terms_behind_the_marks_against_the_prs_shown_with_them():
    mtp = ("title mentions 'MTP' (aspect of this note)",)
    marks = [
        mark("a", 1, "t1", evidence=(*mtp, "changes x.py (a path of this note)")),
        mark("a", 2, "t2", evidence=mtp),
        mark("a", 3, "t3", evidence=mtp, withdrawn=True),
    ]
    repo = "vllm-project/vllm"
    shown = [
        (repo, 1, "a", mtp),  # marked, and not hidden yet: counted once
        (repo, 5, "a", mtp),
        (repo, 6, "a", ("changes y.py (a path of this note)",)),
        (repo, 7, "b", mtp),
    ]
    (a, b) = summarise(marks, {"a": 4, "b": 1}, shown)
    assert [(t.term, t.marked, t.shown) for t in a.terms] == [("'MTP'", 2, 3), ("x.py", 1, 1)]
    assert b.terms == ()


def test_a_mark_kept_in_an_older_wording_counts_its_terms_as_the_comments_now_word_them():
    # the reasons' wording changed (an aspect's gloss was "what this note covers in X", a
    # topic its full name): a mark kept before is read beside PRs shown since, the term
    # behind both one term (an apostrophe in "this note's focus" is no quote's)
    old = (
        "title mentions 'prefix cache' (what this note covers in Prefix caching and KV cache"
        " manager)",
        "changes x.py (a path of this note; topics: Elastic EP scaling, Expert parallelism"
        " and elastic EP)",
    )
    new = (
        "title mentions 'prefix cache' (a subject of this note, under Prefix caching)",
        "changes x.py (a path of this note; topics: Elastic EP scaling, Expert parallelism)",
    )
    shown = [("vllm-project/vllm", 5, "a", new)]
    (a,) = summarise([mark("a", 1, "t1", evidence=old)], {"a": 2}, shown)
    assert [(t.term, t.marked, t.shown) for t in a.terms] == [
        ("'prefix cache'", 1, 2),
        ("x.py", 1, 2),
    ]


def test_the_store_keeps_one_standing_mark_per_note_and_pr(tmp_path):
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    first = mark("vllm-aaaa1111", 7, "t1", reason="只改了名字", evidence=("title mentions 'X'",))
    assert store.record(first)
    assert not store.record(mark("vllm-aaaa1111", 7, "t2"))  # again, or a retried delivery
    assert store.record(mark("vllm-aaaa1111", 8, "t3"))
    (kept, _) = store.marks()
    assert kept.reason == "只改了名字" and kept.evidence == ("title mentions 'X'",)
    assert store.withdraw("VLLM-project/vllm", 7) == 1 and store.withdraw(REF.repo, 7) == 0
    assert [m.number for m in store.marks()] == [8]
    assert [m.withdrawn for m in store.marks(withdrawn=True)] == [True, False]
    assert store.record(mark("vllm-aaaa1111", 7, "t4"))  # marked again after a restore
    # a repository named with capitals is one repository, whatever the spelling
    assert store.record(Mark("VLLM-Project/vLLM", 9, "vllm-aaaa1111", 1, "x", origin="c:1"))
    assert store.numbering("vllm-project/vllm", 9, "c:1") == ()
    assert store.withdraw("vllm-project/VLLM", 9) == 1
    db.close()


# kills: bot/feedback_store.py:FeedbackStore.drop_all drop_all says None instead of how many marks
#   went
def test_dropping_every_mark_says_how_many_went(tmp_path):
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    assert store.record(mark("vllm-aaaa1111", 7, "t1"))
    assert store.record(mark("vllm-bbbb2222", 8, "t2"))
    assert store.withdraw(REF.repo, 8) == 1  # a withdrawn mark goes too, and counts
    with db.tx() as conn:
        assert store.drop_all(conn) == 2
    assert store.marks(withdrawn=True) == []
    db.close()


def test_the_store_remembers_what_each_comment_numbered(tmp_path):
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    shown = ("vllm-aaaa1111", "vllm-bbbb2222")
    assert store.numbering(REF.repo, 7, "comment:5") is None
    store.record(mark("vllm-aaaa1111", 7, "t1", origin="comment:5", shown=shown))
    store.record(mark("vllm-bbbb2222", 7, "t2", origin="comment:5", shown=shown[1:]))
    assert store.numbering(REF.repo, 7, "comment:5") == shown  # the first mark's
    assert store.numbering(REF.repo, 7, "comment:6") is None
    assert store.numbering(REF.repo, 7, "") is None  # no origin: nothing to remember
    assert store.set_reason(REF.repo, 7, "vllm-aaaa1111", "reviewer", "renames only")
    assert [m.reason for m in store.marks()] == ["renames only", ""]
    db.close()


# A second reviewer's `wrong` on a note already marked replaced
# the first reviewer's words, and the curators' report named the first as their author.


def test_only_the_reviewer_who_made_a_mark_changes_its_words(tmp_path):
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    store.record(mark("vllm-aaaa1111", 7, "t1", reason="only renames the flag"))
    assert not store.set_reason(REF.repo, 7, "vllm-aaaa1111", "maintainer", "wrong subsystem")
    assert [(m.login, m.reason) for m in store.marks()] == [("reviewer", "only renames the flag")]
    assert store.set_reason(REF.repo, 7, "vllm-aaaa1111", "Reviewer", "a flag rename")
    assert [(m.login, m.reason) for m in store.marks()] == [("reviewer", "a flag rename")]
    db.close()


def test_marks_move_with_their_pr_to_its_repositorys_new_name(tmp_path):
    # bot.dispatch.follow_repository: a note marked under both names stays marked once
    old, new = "vllm-project/vllm", "vllm-org/vllm"
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    store.record(Mark(old, 7, "vllm-aaaa1111", 1, "a"))
    store.withdraw(old, 7)  # `/notes restore`: its history moves too
    store.record(Mark(old, 7, "vllm-aaaa1111", 1, "a2"))
    store.record(Mark(old, 7, "vllm-bbbb2222", 2, "a"))
    store.record(Mark(new, 7, "vllm-aaaa1111", 1, "b"))  # marked anew before the move
    store.record(Mark(old, 8, "vllm-aaaa1111", 1, "c"))  # another PR: moves with its own
    with db.tx() as conn:
        assert store.move(conn, old, new, 7) == 2
    assert [
        (m.repo, m.number, m.note_id, m.login, m.withdrawn) for m in store.marks(withdrawn=True)
    ] == [
        (new, 7, "vllm-aaaa1111", "a", True),
        (new, 7, "vllm-bbbb2222", "a", False),
        (new, 7, "vllm-aaaa1111", "b", False),
        (old, 8, "vllm-aaaa1111", "c", False),
    ]
    db.close()


def test_a_comments_numbers_are_kept_once_and_follow_its_pr(tmp_path):
    # a `wrong` run again after the notes comment changed reads the numbers
    # as first read; they move with a renamed repository and go with a dry run's marks
    old, new = "vllm-project/vllm", "vllm-org/vllm"
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    assert store.numbering(old, 7, "comment:1") is None
    store.keep_numbering(old, 7, "comment:1", ("vllm-aaaa1111", "vllm-bbbb2222"))
    store.keep_numbering(old, 7, "comment:1", ("vllm-bbbb2222",))  # read again: kept as was
    store.keep_numbering(old, 7, "comment:2", ())  # none shown: an edit reads it anew
    store.keep_numbering(old, 7, "", ("vllm-cccc3333",))  # no origin: nothing to key it by
    assert store.numbering(old, 7, "comment:1") == ("vllm-aaaa1111", "vllm-bbbb2222")
    assert store.numbering(old, 7, "comment:2") is None
    assert store.numbering(old, 8, "comment:1") is None  # another PR's comment
    with db.tx() as conn:
        store.move(conn, old, new, 7)
    assert store.numbering(new, 7, "comment:1") == ("vllm-aaaa1111", "vllm-bbbb2222")
    assert store.numbering(old, 7, "comment:1") is None
    with db.tx() as conn:
        store.drop_all(conn)
    assert store.numbering(new, 7, "comment:1") is None
    db.close()


def test_a_feedback_table_of_this_mornings_shape_gains_origin_and_shown(tmp_path):
    db = Database(tmp_path / "old.sqlite3")
    db.script(
        "CREATE TABLE feedback (id INTEGER PRIMARY KEY, repo TEXT NOT NULL, number INTEGER"
        " NOT NULL, note_id TEXT NOT NULL, rank INTEGER NOT NULL, login TEXT NOT NULL,"
        " reason TEXT NOT NULL DEFAULT '', evidence TEXT NOT NULL DEFAULT '[]',"
        " at TEXT NOT NULL, withdrawn_at TEXT);"
        "INSERT INTO feedback (repo, number, note_id, rank, login, at)"
        " VALUES ('vllm-project/vllm', 7, 'vllm-aaaa1111', 1, 'x', 't');"
    )
    store = FeedbackStore(db)
    (old,) = store.marks()
    assert (old.origin, old.shown) == ("", ())
    db.close()


# --- the sticky comment on SQLite ---------------------------------------------------------


@pytest.fixture
def ctx(tmp_path, monkeypatch):
    clean_env(monkeypatch)
    db = Database(tmp_path / "s.sqlite3")
    port = CountingPort(db, MATCHING_FILES)
    lib = load_library()
    matcher = CompiledMatcher(lib, load_match_config())
    yield BotContext(
        make_settings(tmp_path), lib, matcher, port, PRStore(db), commands=load_command_config()
    )
    db.close()


def test_refresh_keeps_the_evidence_shown_and_leaves_hidden_notes_out(ctx):
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    state = ctx.prs.get(REF.repo, REF.number)
    assert set(state.evidence) == set(r.notes) and all(state.evidence.values())
    first = r.notes[0]
    ctx.prs.update(REF.repo, REF.number, dismissed=(first,))
    again = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    assert again.notes == r.notes[1:]
    (body,) = bodies(ctx)
    assert first not in body and "1 note that matched was marked not relevant here" in body
    assert "`/notes restore`" in body
    assert ctx.prs.shown_counts()[first] == 1  # hidden, but it was shown


def test_an_unchanged_comment_still_records_the_evidence_of_its_notes(ctx):
    # a row from before the evidence column (or any stale copy) is filled in by the
    # next event even when the comment needs no write: a `wrong` mark keeps it
    r = refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, evidence={})
    assert refresh_sticky(ctx, REF, facts(labels=("v1",))).outcome == Outcome.UNCHANGED
    state = ctx.prs.get(REF.repo, REF.number)
    assert set(state.evidence) == set(r.notes) and all(state.evidence.values())


def test_when_every_note_is_hidden_the_comment_says_so(ctx):
    r = refresh_sticky(ctx, REF, facts())
    ctx.prs.update(REF.repo, REF.number, dismissed=r.notes)
    assert refresh_sticky(ctx, REF, facts()).notes == ()
    (body,) = bodies(ctx)
    assert "No review note is left to show on this pull request" in body
    assert "any more" not in body and "marked not relevant here and hidden" in body


def test_a_paused_comment_still_counts_the_notes_it_showed(tmp_path):
    # `/notes off` edits the comment to a paused line (notes=()), keeping the evidence:
    # the note was shown there, and the feedback report's share must say so
    db = Database(tmp_path / "s.sqlite3")
    prs = PRStore(db)
    for number in (1, 2):
        prs.update(REF.repo, number, notes=("vllm-aaaa1111",), evidence={"vllm-aaaa1111": ("x",)})
    prs.update(REF.repo, 2, notes=())  # paused
    assert prs.shown_counts()["vllm-aaaa1111"] == 2
    db.close()


def test_an_older_database_gains_the_new_columns(tmp_path):
    new = ("dismissed", "evidence")
    old = "\n".join(x for x in SCHEMA.splitlines() if not x.strip().startswith(new))
    db = Database(tmp_path / "old.sqlite3")
    db.script(old)
    db.execute(
        "INSERT INTO pr_state (repo, number, notes, updated_at) VALUES (?, ?, ?, ?)",
        (REF.repo, 1, json.dumps(["vllm-aaaa1111"]), "t"),
    )
    prs = PRStore(db)
    assert prs.get(REF.repo, 1).dismissed == () and prs.get(REF.repo, 1).evidence == {}
    assert prs.shown_counts() == {"vllm-aaaa1111": 1}
    db.close()


# --- review-notes notes feedback ------------------------------------------------------------


def test_the_feedback_command_lists_marks_with_their_evidence(ctx, capsys):
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    evidence = ctx.prs.get(REF.repo, REF.number).evidence[r.notes[1]]
    at = utcnow()  # after the shipped note's last update: the mark is of the note as it is
    ctx.feedback.record(
        Mark(REF.repo, REF.number, r.notes[1], 2, "octo-dev", "proxy only", evidence, at)
    )
    db_path = str(ctx.prs.db.path)
    assert main(["notes", "feedback", "--db", db_path]) == 0
    out = capsys.readouterr().out
    title = ctx.library.by_id[r.notes[1]].title_en
    assert f"{r.notes[1]}  shown on 1 PR(s), marked not relevant on 1 (100%)  {title}" in out
    assert f"{REF.repo} PR {REF.number} (note 2 of the comment), {at[:10]}, by octo-dev" in out
    assert f"        - {evidence[0]}" in out
    assert f"{r.notes[0]}  shown on 1 PR(s), marked not relevant on 0 (0%)" in out
    assert "1 mark(s) on 1 of" in out
    terms = evidence_terms(evidence)
    assert "    behind the marks (marked of PRs shown with it): " in out
    assert all(f"{t} 1 of 1" in out for t in terms) and terms

    assert main(["notes", "feedback", "--db", db_path, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0]["note"] == r.notes[1] and rows[0]["marks"][0]["evidence"] == list(evidence)
    assert {t["term"] for t in rows[0]["terms"]} == terms


def test_the_feedback_command_flags_marks_older_than_the_notes_update(ctx, capsys):
    r = refresh_sticky(ctx, REF, facts(title=title_with_one_more_note()))
    note = ctx.library.by_id[r.notes[0]]
    assert note.updated is not None, "a shipped note gives when it last changed"
    ctx.feedback.record(Mark(REF.repo, REF.number, note.id, 1, "octo-dev", at="2026-01-01T00"))
    assert main(["notes", "feedback", "--db", str(ctx.prs.db.path)]) == 0
    out = capsys.readouterr().out
    assert f"1 of the marks came before the note was updated on {note.updated}" in out
    assert "(note 1 of the comment), 2026-01-01, before the update, by octo-dev" in out


def test_the_feedback_command_never_creates_a_database(tmp_path, monkeypatch, capsys):
    clean_env(monkeypatch)
    missing = tmp_path / "nowhere.sqlite3"
    assert main(["notes", "feedback", "--db", str(missing)]) == 2
    assert "no database at" in capsys.readouterr().err and not missing.exists()


def test_every_reason_the_matcher_gives_on_real_prs_names_its_term():
    # the report reads its terms back from the reasons' words (bot.reasons): a sentence
    # the patterns misread gave a number for a term ("changes 2 other files" -> '2')
    from bot.library import ROOT
    from bot.prfacts import facts_from_record

    matcher = CompiledMatcher(load_library(), load_match_config())  # once, for every PR
    seen = 0
    for name in ("history_with_files.jsonl", "notes_era_1.jsonl"):
        for line in (ROOT / "bench" / "graded" / name).read_text("utf-8").splitlines():
            record = {"repo": "vllm-project/vllm", **json.loads(line)}
            for m in matcher.match(facts_from_record(record)).candidates:
                for reason in m.reasons:
                    seen += 1
                    terms = evidence_terms([reason])
                    if reason.startswith("changes ") and " other file" in reason:
                        assert not terms, reason  # the rest of a set another line names
                    else:
                        assert terms, reason
                        assert not any(t.strip("'").isdigit() for t in terms), (reason, terms)
    assert seen > 1000


# --- `notes feedback`'s report: marked PRs, notes never marked, ids shown, days ---


# kills: bot/feedback.py:summarise a mark's repository not lower-cased; :summarise a shown PR's
# repository not lower-cased (GitHub's names ignore case)
@pytest.mark.parametrize(
    ("marked_in", "shown_in"), [("Vllm-Project/vLLM", "vllm-project/vllm"), ("o/r", "O/R")]
)
def test_a_marked_pr_is_not_counted_as_unmarked_whatever_the_case_of_its_repository(
    marked_in, shown_in
):
    mtp = ("title mentions 'MTP' (aspect of this note)",)
    marked = Mark(marked_in, 1, "a", 1, "reviewer", evidence=mtp, at="t")
    (a,) = summarise([marked], {"a": 1}, [(shown_in, 1, "a", mtp)])
    assert [(t.term, t.marked, t.shown) for t in a.terms] == [("'MTP'", 1, 1)]


# kills: bot/feedback.py:summarise the notes of equal marks and share not ranked most shown first
def test_notes_never_marked_are_listed_most_shown_first():
    rows = summarise([], {"a": 2, "b": 7, "c": 5})
    assert [f.note_id for f in rows] == ["b", "c", "a"]


# kills: bot/wrong_reading.py:pick_note an id the comment shows taken for a renamed note's former id
def test_an_id_the_comment_shows_names_the_note_shown_under_it_though_a_note_had_it_before():
    shown = ("vllm-aaaa1111", "vllm-bbbb2222")
    renamed = {"vllm-aaaa1111": "vllm-bbbb2222", "vllm-bbbb2222": "vllm-cccc3333"}
    assert pick_note(("vllm-aaaa1111",), shown, renamed=renamed).rank == 1
    # kills: bot/wrong_reading.py:pick_note the id shown keyed only as the note's id now
    assert pick_note(("vllm-bbbb2222",), shown, renamed=renamed).rank == 2


# kills: bot/feedback.py:_terms a mark's time said in full, not its date
def test_a_marks_line_says_the_day_it_was_made():
    lines = report_lines(summarise([mark("a", 1, "2026-12-01T09:30:00Z")], {"a": 1}), {})
    assert "    vllm-project/vllm PR 1 (note 1 of the comment), 2026-12-01, by reviewer" in lines


def test_each_line_the_reasons_word_is_read_back_to_its_term():
    """`notes feedback` reads a mark's terms back from the lines it kept. Each line
    bot/reasons.py words is read back here, so a change of words there that its pattern
    does not follow fails (the graded PRs above seldom show a tie)."""
    from bot import reasons as r
    from bot.match_result import Said, Saying

    assert evidence_terms([r.refers_to_source(52419)]) == {"(refers to the note's PR or issue)"}
    assert evidence_terms([r.refers_to_issue(7)]) == {"(refers to the note's PR or issue)"}
    assert evidence_terms([r.READ_WITH]) == {"(a PR the note lists to read with it)"}
    # as marks kept in the older wording
    old = "this note lists this PR to read with its own"
    assert evidence_terms([old]) == {"(a PR the note lists to read with it)"}
    assert evidence_terms([r.related_via("reverts", 53155)]) == {"(relates to a PR with it)"}
    assert evidence_terms([r.labeled(["rocm", "ci/build"])]) == {"label 'rocm', 'ci/build'"}
    assert evidence_terms([r.diff_names(["deep_gemm_warmup"])]) == {"'deep_gemm_warmup'"}
    assert evidence_terms([str(Said(Saying.TAG, ("Spec Decode",)))]) == {"[Spec Decode]"}
    assert evidence_terms([str(r.changes(["a/b.py", "c.py"]))]) == {"a/b.py"}


# --- `notes feedback`: a line's gloss gives no term -----------------------------------


def test_a_lines_gloss_gives_no_term_of_its_own():
    """`notes feedback` reads a mark's terms from the quotes of the lines it kept; a line
    whose gloss names words ("'JIT' also in this note's keywords; 'warmup' also in this
    note's title", `reasons.also_in`, 8 lines of the graded sets) gave the curators the
    terms "' also in this note'" and "'s keywords; '": `_QUOTED` paired the apostrophe of
    "note's" with the next gloss's quote. The gloss says where the note writes a word of
    the name the line quotes; the term is that name."""
    line = (
        "title mentions 'JIT warmup' ('JIT' also in this note's keywords; 'warmup' also in"
        " this note's title; topic: Kernel warmup and JIT precompilation)"
    )
    assert evidence_terms([line]) == {"'JIT warmup'"}
    line = (  # as the gloss says it now
        "title mentions 'JIT warmup' ('JIT' also in a term this note is about; 'warmup' also"
        " in this note's title; topic: Kernel warmup and JIT precompilation)"
    )
    assert evidence_terms([line]) == {"'JIT warmup'"}
    # a quote holding " (" is the name, not the start of the gloss
    line = "title mentions 'EC (encoder cache) connector' ('EC' also in this note's title)"
    assert evidence_terms([line]) == {"'EC (encoder cache) connector'"}


# --- `notes feedback` on a library that does not load; its JSON as written ---


def one_mark_database(tmp_path, reason: str = "") -> str:
    """A bot database holding one mark on vllm-aaaa1111 of a PR that showed it."""
    db = Database(tmp_path / "bot.sqlite3")
    PRStore(db).update(REF.repo, REF.number, notes=("vllm-aaaa1111",), evidence={})
    FeedbackStore(db).record(
        Mark(REF.repo, REF.number, "vllm-aaaa1111", 1, "octo-dev", reason, (), utcnow())
    )
    db.close()
    return str(tmp_path / "bot.sqlite3")


# kills: bot/cli_notes.py:_updated_of and :_titles_of a library that does not load crashing the
#   report (the curator fixing the library still reads what reviewers said, by id)
def test_the_feedback_report_of_a_library_that_does_not_load_is_by_id(tmp_path, capsys):
    db_path = one_mark_database(tmp_path)
    broken = tmp_path / "topics.toml"
    broken.write_text("[[topic]\n", "utf-8")
    argv = ["notes", "feedback", str(tmp_path), "--topics", str(broken), "--db", db_path]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "review-notes: notes left untitled:" in captured.err
    assert "vllm-aaaa1111  shown on 1 PR(s), marked not relevant on 1 (100%)" in captured.out
    assert main([*argv, "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (row["note"], row["shown"], row["updated"]) == ("vllm-aaaa1111", 1, None)


# kills: bot/cli_notes.py:_cmd_notes_feedback a reviewer's Chinese reason printed as \u escapes in
#   --json (`notes feedback --json | grep 不相关` found nothing)
def test_the_feedback_json_keeps_a_reviewers_words_as_written(tmp_path, capsys):
    db_path = one_mark_database(tmp_path, reason="只改了文档，不相关")
    assert main(["notes", "feedback", "--db", db_path, "--json"]) == 0
    out = capsys.readouterr().out
    assert '"reason": "只改了文档，不相关"' in out


# --- `/notes wrong`: an emoji or a second number after a note's number ----------------


# kills: bot/wrong_reading.py:pick_note (hand) an emoji after the number read as a letter: `2🙏`
#   was answered "say which note", and with one note shown hid note 1 with the reason `2🙏`
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2\U0001f64f", ""),
        ("/notes wrong 2\U0001f64f 只是改名", "只是改名"),
        ("/notes wrong 2\U0001f44d\U0001f3fd只是改名", "只是改名"),  # as after `，`
        ("/notes wrong #2\u2764\ufe0f only a rename", "only a rename"),
    ],
)
def test_an_emoji_glued_to_a_note_number_is_its_full_stop(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    one = pick_note(command.args, SHOWN[:1])
    assert (one.note_id, one.problem) == (None, PickProblem.RANGE)


def test_an_emoji_glued_to_a_note_id_names_it():
    pick = pick_note((f"{SHOWN[2]}\U0001f64f", "renamed"), SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[2], "renamed")


# kills: bot/wrong_reading.py:pick_note (hand) a second number after a space taken as the reason
# kills: bot/wrong_reading.py:_NUMBER (hand) its separators giving one back: `2,,3` read as 2, `,3`
# kills: bot/wrong_reading.py:_is_number the word not stripped of a line separator first
# kills: bot/wrong_reading.py:Pick a pick naming no note placed at 1, not 0
@pytest.mark.parametrize(
    "line",
    [
        "/notes wrong 2, 3",  # a list of two notes, as English writes it
        "/notes wrong 2 3",
        "/notes wrong 2 #3 both only rename",
        "/notes wrong 2 3，只是改名",
        "/notes wrong 2、 ３",
        "/notes wrong 2,,3",
        "/notes wrong 2\U0001f64f,3",
        "/notes wrong 2 3\u2028 both",  # a line separator no command word splits at
    ],
)
def test_two_note_numbers_apart_name_no_note_as_glued_ones(line):
    # `2,3` names no note (which is meant is not clear); `2, 3` hid note 2 with the
    # reason "3", half of what the reviewer asked, and `2,,3` note 2 with the reason ",3"
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.problem) == (None, 0, PickProblem.WHICH)


# kills: bot/wrong_reading.py:pick_note a list of numbers taken for the one shown note's reason
@pytest.mark.parametrize(
    ("first", "asked"),
    [
        ("2,3", "2,3"),
        ("２，３", "２，３"),
        ("2、3", "2、3"),
        ("#2,#3", "#2,#3"),
        ("第2、3条", "第2、3条"),
        ("第2条、第3条", "第2条、第3条"),
        ("2号、3号", "2号、3号"),
        ("2、第3条", "2、第3条"),
        ("2.5", "2.5"),  # named no note with three shown either
    ],
)
def test_with_one_note_shown_a_list_of_numbers_is_no_reason_to_hide_it(first, asked):
    # With one note shown the number may be left out, and `/notes wrong 第2、3条` or `2,3`
    # hid note 1 with that list for its reason: what the reviewer named, notes 2 and 3,
    # the comment does not show, as `/notes wrong 5` names none (answered, nothing hidden)
    pick = picked(f"{first} 只是改名", SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, asked)
    # naming the one note shown and another: which is meant is not clear, as `1 2`
    (command,) = parse_commands(
        f"/notes wrong {first.translate(str.maketrans('23２３', '12１２'))}"
    )
    assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.WHICH
    # with three shown, a list names none, as before; past them, the first is named
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    (command,) = parse_commands(
        f"/notes wrong {first.translate(str.maketrans('23２３', '56５６'))}"
    )
    pick = pick_note(command.args, SHOWN)
    assert (pick.problem, pick.asked) == (PickProblem.RANGE, command.args[0])


# kills: bot/wrong_reading.py:_is_number a list after a number read as the reason
# kills: bot/wrong_reading.py:pick_note a count spaced out after a number read as the reason
@pytest.mark.parametrize("rest", ["3,4", "第 3 条", "第 3 条 只是改名"])
def test_a_number_then_a_list_or_a_spaced_count_names_no_note(rest):
    # `2 3,4` hid note 2 with the reason "3,4"; `2 第 3 条` (as `第 2 条` names note 2) with
    # the reason "第 3 条": the second number was read from its first word alone
    (command,) = parse_commands(f"/notes wrong 2 {rest}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.RANGE


def test_a_reason_starting_with_a_figure_is_still_a_reason():
    pick = picked("2. 3x slower is another PR's claim")
    assert (pick.note_id, pick.reason) == (SHOWN[1], "3x slower is another PR's claim")


# --- `/notes wrong`: marks and emoji shortcodes ending a note's number ----------------


# kills: bot/wrong_reading.py:_as_ascii (hand) only an emoji read as the number's full stop, not
#   the other marks that end a command's word (`/notes off～`, `/notes off!` are off)
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2\uff5e", ""),  # the friendly full stop of informal Chinese
        ("/notes wrong 2~ 只是改名", "只是改名"),
        ("/notes wrong 2!", ""),
        ("/notes wrong 2\uff01谢谢", "谢谢"),
        ("/notes wrong #2\u2026 only a rename", "only a rename"),
        ("/notes wrong 2; only a rename", "only a rename"),
    ],
)
def test_every_mark_that_ends_a_command_word_ends_a_note_number(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)


# kills: bot/wrong_reading.py:_as_ascii (hand) a shortcode's marks read one by one: `/notes wrong
#   2:pray:` (GitHub shows `2🙏`) hid note 2 with the reason `pray:`, its first colon taken
#   as the number's full stop
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2:pray:", ""),
        ("/notes wrong 2:+1::pray:", ""),
        ("/notes wrong #2:pray: only a rename", "only a rename"),
        ("/notes wrong 2:pray:只是改名", "只是改名"),  # as `2🙏只是改名`
        ("/notes wrong 2:rocm: only", "rocm: only"),  # no emoji: GitHub shows `2:rocm:`
    ],
)
def test_an_emoji_shortcode_glued_to_a_note_number_is_its_full_stop(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)


# kills: bot/wrong_reading.py:_reason an emoji's shortcode alone kept in the reason
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2 :pray: 只是改名", "只是改名"),  # the page shows `2 🙏 只是改名`
        ("/notes wrong 2 只是改名 :pray:", "只是改名"),
        ("/notes wrong 2 :pray: — 只是改名", "只是改名"),  # then the dash setting it off
        ("/notes wrong 2 only :+1::pray: renames", "only renames"),
        ("/notes wrong 2 :pray:", ""),
        # kept as typed: a name no emoji has, a shortcode glued to words, a path's colons
        ("/notes wrong 2 :rocm: only", ":rocm: only"),
        ("/notes wrong 2 :pray:只是改名", ":pray:只是改名"),
        ("/notes wrong 2 torch::jit :8080: breaks", "torch::jit :8080: breaks"),
    ],
)
def test_an_emoji_shortcode_as_a_word_of_its_own_is_no_part_of_the_reason(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    # with one note shown and the number left out, the same words are its reason
    pick = pick_note(command.args[1:], SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], reason)


def test_an_emoji_shortcode_glued_to_a_note_id_names_it():
    pick = pick_note((f"{SHOWN[2]}:pray:", "renamed"), SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[2], "renamed")


def test_a_note_id_with_a_mark_after_it_names_the_note():
    pick = pick_note((f"{SHOWN[2]}\uff5e", "renamed"), SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[2], "renamed")


# --- `/notes wrong`: a reason quoted right after a note's number ----------------------


# kills: bot/wrong_reading.py:pick_note (hand) a reason quoted right after the number read with it:
#   `/notes wrong 2「只是改名」` (Chinese puts no space before `「`, as after `topic`) was
#   answered "say which note", and with one note shown hid note 1 with the reason `2「只是改名」`
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 2「只是改名」", "「只是改名」"),
        ("/notes wrong #2“只是改名” 而已", "“只是改名” 而已"),
        ("/notes wrong ２【不相关】", "【不相关】"),
        ("/notes wrong 2，「只是改名」", "「只是改名」"),  # after a separator, as before
    ],
)
def test_a_reason_quoted_right_after_a_note_number_is_its_reason(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, reason)
    one = pick_note(command.args, SHOWN[:1])
    number = re.match(r"[#0-9０-９]+", line.split()[2])[0]  # the answer quotes no reason
    assert (one.note_id, one.problem, one.asked) == (None, PickProblem.RANGE, number)


# ASCII's quotes and brackets, a closing one, or one after no number, are read as before
@pytest.mark.parametrize(
    ("first", "reason"),
    [('2"x"', None), ("2(x)", None), ("2」x", None), ("这个「不相关」", "这个「不相关」")],
)
def test_only_an_opening_quote_beyond_ascii_after_a_number_starts_its_reason(first, reason):
    pick = pick_note((first,), SHOWN[:1])
    assert pick.reason == (first if reason is None else reason)


# --- `/notes wrong`: figures, numerals, ranges and signs after a note's number --------


# kills: bot/wrong_reading.py:_LISTED a figure with a unit (`2.5x`) read as two note numbers
@pytest.mark.parametrize("figure", ["2.5x", "1.5GB", "0.8ms", "1,000tok"])
def test_a_figure_with_a_unit_is_a_reason_not_a_list_of_numbers(figure):
    # `/notes wrong 2 2.5x faster` hid note 2 with its reason until `2.5` came to be read
    # as two numbers, its `x` aside: then "say which note", and with one note shown
    # `/notes wrong 2.5x faster` was answered "There is no note `2.5x`", nothing hidden
    pick = picked(f"2 {figure} faster")
    assert (pick.note_id, pick.reason) == (SHOWN[1], f"{figure} faster")
    (command,) = parse_commands(f"/notes wrong {figure} faster")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], f"{figure} faster")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    # a figure alone is still two numbers, which is meant not clear
    assert picked(f"2 {figure.rstrip('xGBmstok')} faster").problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_LISTED a Chinese numeral after a note's number read as its reason
# kills: bot/wrong_reading.py:pick_note (hand) `_NUMBER` read before `_LISTED`
@pytest.mark.parametrize(
    ("first", "one"),
    [
        ("二、三", "二、三"),
        ("第二、三条", "第二、三条"),
        ("2、三", "2、三"),
        ("二，三号", "二，三号"),
        ("第二、三条，只是改名", "第二、三条"),  # quoted without the reason glued on
    ],
)
def test_a_list_of_chinese_numerals_names_no_note(first, one):
    # `/notes wrong 二、三` ("two, three") hid note 2 with the reason '三', `第二、三条` ("the
    # second and third") with '三条', where `2,3` and `第2、3条` named none
    (command,) = parse_commands(f"/notes wrong {first}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.problem) == (None, PickProblem.WHICH)
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, one)


# A numeral with more after it in the word starts the reason: a count of things, a word
@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ("2，三个文件只是改名", "三个文件只是改名"),  # "three files only renamed"
        ("二、三十分钟就能复现", "三十分钟就能复现"),  # "30 minutes"
        ("2、一般不相关", "一般不相关"),  # "generally not relevant"
        ("第二条，十分不相关", "十分不相关"),  # "not relevant at all"
    ],
)
def test_a_word_a_numeral_starts_after_a_note_number_is_the_reason(first, reason):
    assert_hides_2(first, reason)


# kills: bot/wrong_reading.py:_LISTED `2-3` (notes 2 to 3) the one shown note's reason
@pytest.mark.parametrize(
    ("first", "problem"),
    [("2-3", "range"), ("1-2", "which"), ("第2-3条", "range"), ("2+3", "range"), ("1+2", "which")],
)
def test_a_range_of_note_numbers_names_no_note_with_one_shown(first, problem):
    # `2-3` named no note with several shown, as the command's doc says, but with one the
    # number may be left out and it hid that note with the reason '2-3'
    (command,) = parse_commands(f"/notes wrong {first}")
    assert pick_note(command.args, SHOWN[:1]).problem == problem
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    # a flag's dashes, or a range with a unit, are the reason's, as before
    assert picked("2--enforce-eager only", SHOWN[:1]).reason == "2--enforce-eager only"
    assert picked("2-3x slower", SHOWN[:1]).reason == "2-3x slower"
    # `2 + 3` (notes 2 and 3) hid note 2 with the reason `+ 3`, and `2+3` with one note
    # shown hid it with the reason `2+3`: a plus joins notes' numbers as a comma does
    assert picked("2 + 3x faster").reason == "+ 3x faster"


# a plus glued to a number typed apart from the note's is a sign, GitHub's `+1` or a diff's
#   `+5 lines`: `/notes wrong 2 +1` hid note 2 with the reason `+1`, then asked which note
#   as if `2 + 1` named notes 2 and 1
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 +1", "+1"),
        ("2 +1 to the above", "+1 to the above"),
        ("2 ＋1，同上", "＋1，同上"),
        ("2 +5 lines only", "+5 lines only"),
        ("#2 +30 lines, only renames", "+30 lines, only renames"),
    ],
)
def test_a_plus_glued_to_the_number_after_the_notes_is_the_reasons_sign(typed, reason):
    pick = picked(typed)
    assert (pick.note_id, pick.reason, pick.problem) == ("vllm-bbbb2222", reason, None)
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert command.key[1][0] == "2"  # keyed as note 2 and its reason, no list
    # typed apart from both numbers, or glued to both, it still joins notes' numbers
    assert picked(typed.replace("+", "+ ", 1).replace("＋", "＋ ", 1)).problem is not None


# kills: bot/wrong_reading.py:pick_note an emoji's shortcode before the number read as the reason
@pytest.mark.parametrize(
    ("line", "asked"),
    [("/notes wrong :-1: 2 只是改名", "2"), ("/notes wrong :pray::-1: #2 只是改名", "#2")],
)
def test_an_emoji_shortcode_before_the_note_number_is_no_part_of_the_command(line, asked):
    # The shortcode was left out of the reason wherever it stood, and out of the command's
    # key (an edit adding it ran nothing), but not before picking the note: with several
    # shown `/notes wrong :-1: 2 只是改名` asked which note, and with one it hid that note
    # with the reason '2 只是改名', though `/notes wrong 2` is answered there is no note 2
    (command,) = parse_commands(line)
    assert as_said(command.args) == ("2", "只是改名")  # keyed as read, `#2` as `2`
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.rank, pick.reason) == (SHOWN[1], 2, "只是改名")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, asked)
    # alone, it is no reason either: one note shown is hidden without one
    assert picked(":pray:", SHOWN[:1]) == pick_note((), SHOWN[:1])


# --- a comment's numbers are its keeper's to forget -----------------------------------


def test_a_comments_numbers_are_their_keepers_alone(tmp_path):
    # Only the delivery that kept a comment's numbers (its run, or a re-run of it) may
    # forget them: another delivery of the comment (its edit) refused must leave them.
    db = Database(tmp_path / "f.sqlite3")
    store = FeedbackStore(db)
    shown = ("vllm-aaaa1111", "vllm-bbbb2222")
    assert store.keep_numbering("o/r", 7, "comment:1", shown, "created") is True
    assert store.keep_numbering("o/r", 7, "comment:1", shown[1:], "created") is True  # re-run
    assert store.keep_numbering("o/r", 7, "comment:1", shown[1:], "edited") is False
    assert store.keep_numbering("o/r", 7, "comment:1", (), "created") is True  # none shown now
    assert store.keep_numbering("o/r", 7, "comment:1", shown, "") is False  # no delivery named
    assert store.numbering("o/r", 7, "comment:1") == shown
    assert store.keep_numbering("o/r", 7, "", shown, "created") is False  # nothing to key by
    assert [r["origin"] for r in db.execute("SELECT origin FROM numbering")] == ["comment:1"]


# --- `/notes wrong`'s parser nits: counts, decimals and emoji after a note's number ---


# kills: bot/wrong_reading.py:_LISTED (hand) a count of digits after a note's number read as a
#   second note's (`3个文件`), where a count of numerals is the reason (`三个文件`)
@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ("2，3个文件只是改名", "3个文件只是改名"),  # "3 files only renamed", as `2，三个文件…`
        ("第2条，3个文件只是改名", "3个文件只是改名"),
    ],
)
def test_a_count_in_digits_after_a_note_number_is_the_reason_as_in_numerals(first, reason):
    assert_hides_2(first, reason)
    numerals = first.replace("30", "三十").replace("3个", "三个")
    assert picked(numerals).note_id == SHOWN[1]


# the other side of the same rule: a second number with nothing after it in its word but
# a counting word or a separator names two notes, in digits as in numerals
@pytest.mark.parametrize("first", ["2、3个", "2，三个", "2、3条", "2，三条", "2,3", "2、三"])
def test_a_second_number_alone_in_its_word_names_no_note_in_digits_as_in_numerals(first):
    (command,) = parse_commands(f"/notes wrong {first}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.RANGE


# kills: bot/wrong_reading.py:_LISTED (hand) a figure with a unit beyond ASCII (`1.5倍`) read as a
#   list of note numbers
@pytest.mark.parametrize("figure", ["1.5倍", "2.5倍", "3.2秒", "1.5x", "１．５倍"])
def test_a_decimal_with_a_chinese_unit_after_the_number_is_the_reason(figure):
    # `/notes wrong 2 1.5倍` ("note 2: 1.5 times") asked which note, `1.5` read as notes
    # 1 and 5, where `2 1.5x` hid note 2 with its reason
    pick = picked(f"2 {figure}")
    assert (pick.note_id, pick.reason) == (SHOWN[1], figure)
    # glued to the number it is no number: `2.1.5倍` and `1.5倍` name no note
    assert picked(figure).problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_NUMBER (hand) a decimal with a unit glued to the note's number by a
#   separator read as a list of note numbers (`2，1.5倍`: notes 2 and 1)
@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ("2，1.5倍", "1.5倍"),  # "note 2, 1.5 times": the figure with its unit, as `2 1.5倍`
        ("2，0.5秒就能复现", "0.5秒就能复现"),  # "reproduces in 0.5 s", as `2，30分钟…`
        ("第2条，1.5倍", "1.5倍"),
        ("二，1.5倍", "1.5倍"),
        ("2：2.5x faster", "2.5x faster"),
        ("2,１．５倍", "１．５倍"),
    ],
)
def test_a_decimal_with_a_unit_glued_on_after_the_number_and_a_separator_is_the_reason(
    first, reason
):
    # docs/commands.md: a figure with a unit glued on is a quantity, not two numbers
    assert_hides_2(first, reason)
    # with no unit it stays a number: which note is meant is not clear (`2，1.5`), and a
    # decimal after a point is the note number's own (`2.1.5倍`: 2.1)
    for unclear in ("2，1.5", "2.1.5倍"):
        assert picked(unclear).problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_number_glued (hand) an integer with an English unit glued on by a
#   full-width comma or colon read as no number (`2，4bit only`: which note?), where
#   docs/commands.md gives note 2 the quantity as the reason, as `2，1.5倍`
@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ("2，4bit only", "4bit only"),
        ("2：4-bit only", "4-bit only"),
        ("2，3x faster", "3x faster"),
        ("２，４ｂｉｔ only", "４ｂｉｔ only"),
    ],
)
def test_an_english_quantity_glued_on_by_a_full_width_separator_is_the_reason(first, reason):
    (command,) = parse_commands(f"/notes wrong {first}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[1], reason)
    spaced = first.replace("，", "， ").replace("：", "： ")
    assert as_said(command.args) == as_said(spaced.split(" "))
    # after ASCII's comma, point or colon the digits may be a figure's (`1,000tok`, a
    # European `2,4bit`, `2.4bit`) or a ratio's (`2:4`): which note is meant is not clear
    ascii_glue = first.translate(str.maketrans("，：２４ｂｉｔ", ",:24bit"))
    for unclear in (ascii_glue, ascii_glue.replace(",", ".").replace(":", ".")):
        assert picked(unclear).problem is PickProblem.WHICH, unclear


# kills: bot/wrong_reading.py:_reason (hand) an emoji alone kept as a word of the reason, where its
#   shortcode (`:pray:`) is left out
# kills: bot/wrong_reading.py:as_said (hand) an emoji before a number said as a word read with it:
#   `👎 第2条` and `👎 second` were keyed as typed, not as note 2, so an edit dropping the
#   emoji ran the `wrong` again
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("/notes wrong 🙏 第2条 只是改名", "只是改名"),
        ("/notes wrong 🙏 second, 只是改名", "只是改名"),
        ("/notes wrong 2 🙏", ""),
        ("/notes wrong 2 🙏 只是改名", "只是改名"),
        ("/notes wrong 2 只是改名 👍🏽", "只是改名"),
        ("/notes wrong 2 只是改名 ❤️", "只是改名"),
        ("/notes wrong 🙏 2 只是改名", "只是改名"),  # before the number, as `:-1: 2`
        ("/notes wrong 2 只是改名🙏", "只是改名🙏"),  # glued to a word: kept as typed
        ("/notes wrong 2 只是改名 ...", "只是改名 ..."),  # punctuation is the writer's words
    ],
)
def test_an_emoji_alone_is_no_word_of_the_reason_as_its_shortcode_is_not(line, reason):
    (command,) = parse_commands(line)
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[1], reason)
    # nor of the command's key: adding one in an edit runs nothing again
    (plain,) = parse_commands(line.replace(" 🙏", "").replace(" 👍🏽", "").replace(" ❤️", ""))
    assert as_said(command.args) == as_said(plain.args) or "🙏" in reason or "." in reason


# kills: bot/wrong_reading.py:pick_note (hand) the reason glued to a number out of range quoted
#   with it in the answer
@pytest.mark.parametrize(
    ("first", "asked"),
    [
        ("9，只是改名", "9"),
        ("９，只是改名", "９"),
        ("#9：只是改名", "#9"),
        ("9🙏只是改名", "9"),
        ("9.", "9"),
        ("第9条，只是改名", "第9条"),
        ("第9条只是改名", "第9条"),
        ("9「只是改名」", "9"),
        ("#9", "#9"),  # as before: the number as typed
        ("第9条", "第9条"),
    ],
)
def test_a_number_out_of_range_is_quoted_without_the_reason_glued_to_it(first, asked):
    # "There is no note `9，只是改名`": the answer quoted the reviewer's whole word, their
    # reason with the number, where it names the number it cannot find
    (command,) = parse_commands(f"/notes wrong {first}")
    for shown in (SHOWN, SHOWN[:1]):
        pick = pick_note(command.args, shown)
        assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, asked)


# --- the numbers a comment showed, kept for a PR handled at the retention's cut ---


# kills: bot/feedback_store.py:FeedbackStore._prune_numbering (hand) `s.updated_at >= ?` ->
#   `>`: the numbers of a PR handled at the cut itself pruned, as if it were idle since
def test_the_numbers_of_a_pr_handled_at_the_cut_are_kept(tmp_path):
    db = Database(tmp_path / "f.sqlite3")
    prs, store = PRStore(db), FeedbackStore(db)
    cut = "2026-02-01T00:00:00.000000Z"
    for number, handled in ((1, cut), (2, "2026-01-31T23:59:59.999999Z")):
        prs.put(PRState("o/r", number))
        store.keep_numbering("o/r", number, "comment:9", ("vllm-aaaa1111",), "d1")
        db.execute("UPDATE pr_state SET updated_at = ? WHERE number = ?", (handled, number))
    db.execute("UPDATE numbering SET at = '2000'")
    assert store.prune_numbering(cut, 10, prs) == 1
    assert store.numbering("o/r", 1, "comment:9") == ("vllm-aaaa1111",)
    assert store.numbering("o/r", 2, "comment:9") is None


# --- `/notes wrong`'s parser nits: dashes, quotes, lists and counts after a note's number ---


# An ASCII dash glued after a note's number with a space after it (`1- 2`) is a stray dash,
# as typed apart (`1 - 2`): before a number, a list's (two notes, a range: which note? also
# with one note shown, where the words would else all be its reason, `1- 2`); before words,
# what sets the reason off (`1- only renames`); alone, no part of the command (`1-`). Never
# the note's number read as its reason.
@pytest.mark.parametrize("typed", ["1- 2", "1-- 2", "(1)- 2", "1)- 2", "１－ ２", "1- 2 - 3"])
def test_a_number_a_dash_glued_to_it_and_another_are_a_list(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    for shown in (SHOWN[:1], SHOWN):
        pick = pick_note(command.args, shown)
        assert (pick.note_id, pick.problem) == (None, PickProblem.WHICH), (typed, shown)
    assert as_said(command.args) == as_said(["1-2", *typed.split(" ")[2:]])


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("1-", ""),
        ("1- only renames", "only renames"),
        ("1-- 只是改名", "只是改名"),
        # a full-width hyphen (U+FF0D) is read as the ASCII one, glued or typed apart
        ("1－ 只是改名", "只是改名"),
        ("１－－ 只是改名", "只是改名"),
        ("1 － 只是改名", "只是改名"),
        ("1－", ""),
    ],
)
def test_a_dash_glued_to_a_note_s_number_sets_its_reason_off(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    for shown in (SHOWN[:1], SHOWN):
        pick = pick_note(command.args, shown)
        assert (pick.note_id, pick.reason, pick.problem) == (SHOWN[0], reason, None), shown
    assert as_said(command.args) == as_said(f"1 {reason}".split())


# One dash glued between a note's number and a word sets the reason off as the dash typed
# apart does, where the number is marked as a note's (`#2-only`, `(2)-only renames`), typed
# full-width (`２－only renames`, an input method's) or the word is Chinese (`2-只是改名`):
# note 2 and its reason, or with one note shown no note 2, nothing hidden
@pytest.mark.parametrize(
    ("typed", "apart"),
    [
        ("2-只是改名", "2 - 只是改名"),
        ("(2)-only renames", "(2) - only renames"),
        ("#2-only", "#2 - only"),
        ("２－only renames", "２ － only renames"),
    ],
)
def test_a_dash_between_a_note_s_number_and_a_word_sets_the_reason_off(typed, apart):
    (command,), (spaced,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {apart}"),
    )
    for shown in (SHOWN[:1], SHOWN):
        pick = pick_note(command.args, shown)
        assert pick == pick_note(spaced.args, shown), shown
        assert pick.reason in ("", "only renames", "只是改名", "only"), shown
    assert as_said(command.args) == as_said(spaced.args)


# Bare ASCII digits, one dash and an English word are English's quantity (`4-bit only`,
# `1-line fix`, `2-way TP`), as a unit glued on without the dash is (`4bit only`, `2.5x
# faster`): with one note shown, the reason of note 1, all of it; with three, which note?
# Read as note N and the rest, `1-line fix` hid note 1 with the reason `line fix` where the
# reviewer left the number out, and `4-bit only` with one note shown said there is no note 4
@pytest.mark.parametrize("typed", ["4-bit only", "1-line fix", "2-way TP", "2-only renames"])
def test_a_number_glued_by_one_dash_to_an_english_word_is_a_quantity(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    (unit,) = parse_commands(f"/notes wrong {typed.replace('-', '', 1)}")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], typed)
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    assert pick_note(unit.args, SHOWN).problem is PickProblem.WHICH
    # keyed as typed: an edit to `N - words`, which names note N, is answered
    assert as_said(command.args) != as_said(f"{typed[0]} - {typed[2:]}".split())


# A curator's id may open with digits and a dash (`notes.ID_PATTERN`: `2-bit-awq`): named,
# it names that note, not the note numbered by its digits with the rest as the reason
def test_a_note_id_opening_with_a_number_and_a_dash_names_that_note():
    shown = (*SHOWN, "2-bit-awq")
    pick = picked("2-bit-awq only renames", shown)
    assert (pick.note_id, pick.rank, pick.reason) == ("2-bit-awq", 4, "only renames")


# A list glued by a dash to a number in Chinese (`2-第3条`, `2-二`) is a list as before the
# dash glued to a word set the reason off: with one note shown it is quoted whole
@pytest.mark.parametrize("typed", ["2-第3条", "2-二"])
def test_a_list_glued_by_a_dash_to_a_counted_number_is_quoted_whole(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.problem, pick.rank, pick.asked) == (PickProblem.RANGE, 2, typed)
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


def test_a_number_out_of_range_with_a_dash_glued_to_it_is_named_without_it():
    pick = pick_note(parse_commands("/notes wrong 9- 2")[0].args, SHOWN[:1])
    assert (pick.rank, pick.problem) == (9, PickProblem.RANGE)


# kills: bot/wrong_reading.py:_BRACKETED a number alone in quotes read as the reviewer's words
@pytest.mark.parametrize(
    ("typed", "plain"),
    [
        ('"2"', "2"),
        ("'2'", "2"),
        ("“2”", "2"),
        ("「2」", "2"),
        ("＂２＂", "２"),
        ("「2」。", "2"),
        ('"2, 3"', "2,3"),
        ('"2 3"', "2,3"),
        ("「2、3」", "2、3"),
        ("(2, 3)", "2,3"),
        ('"2" only renames', "2 only renames"),
        ('"2"，只是改名', "2，只是改名"),
    ],
)
def test_a_number_alone_in_quotes_names_its_note(typed, plain):
    # `/notes wrong "2"` with one note shown hid it with the reason '"2"', and with several
    # asked which note: the reviewer quoted the number they meant, as `(2)` or `【2】`
    (quoted,), (said,) = (
        parse_commands(f"/notes wrong {typed}"),
        parse_commands(f"/notes wrong {plain}"),
    )
    for shown in (SHOWN[:1], SHOWN):
        assert pick_note(quoted.args, shown) == pick_note(said.args, shown)
    assert quoted.key == said.key  # an edit between them runs nothing again
    assert pick_note(quoted.args, SHOWN[:1]).problem is PickProblem.RANGE  # no note 2


def test_a_number_quoted_with_other_words_stays_the_reason():
    (command,) = parse_commands('/notes wrong "2 is a rename"')
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], '"2 is a rename"')  # as typed
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
    assert picked('"1"', SHOWN[:1]) == pick_note((), SHOWN[:1])  # note 1, no reason


# kills: bot/wrong_reading.py:_ordinal a Chinese list of notes' numbers with the reason glued on
#   read as its first number and a reason (`第2、3条只是改名`: note 2, '3条只是改名'), and
#   numbers joined by `和` ("and") read as words
@pytest.mark.parametrize(
    ("typed", "one"),
    [
        ("第2、3条只是改名", "2 (`第2、3条`)"),
        ("第2和第3条只是改名", "2 (`第2和第3条`)"),
        ("第2条、第3条只是改名", "2 (`第2条、第3条`)"),
        ("第2条和第3条", "2 (`第2条和第3条`)"),
        ("第二、三条只是改名", "2 (`第二、三条`)"),
        ("2和3", "2 (`2和3`)"),
        ("2和3只是改名", "2 (`2和3`)"),
        ("2 和 3", "2 (`2 和 3`)"),
        ("二和三", "2 (`二和三`)"),
    ],
)
def test_notes_numbers_listed_as_chinese_lists_them_name_no_one_note(typed, one):
    # "items 2 and 3 are just renames": with several notes shown it hid note 2 with the
    # reason '3条只是改名', and with one shown (`2和3`) hid that one with all of it
    command, pick = assert_names_no_note_2_alone(typed)
    assert f"There is no note {one} in the notes comment" in render_unpicked(command, pick, 1)
    assert command.key == ("wrong", ("2,3",))  # as `2,3`: an edit between them runs nothing


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("第2条，3个文件只是改名", "3个文件只是改名"),  # "3 files": a count, as before
        ("二和三十分钟", ""),  # no list: with one shown, all of it the reason
        ("2还有3处没改", "还有3处没改"),  # `还有`: "there are still", no pair of counts
    ],
)
def test_a_count_after_a_note_number_stays_the_reason(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    if reason:
        assert pick_note(command.args, SHOWN).reason == reason
    else:
        assert pick_note(command.args, SHOWN[:1]).reason == typed


# `多` or `余` ("-odd") between the last number joined by `和` and a counting word says a
#   count, never a note's number (no note is "30-odd"): `2和30多个文件` ("2 and 30-odd
#   files") is a pair of counts, as `2和3张卡` is. Read as notes 2 and 30 (keyed `2,30`), it
#   was answered, with one note shown, that there is no note 30; it hid note 2 before that
@pytest.mark.parametrize(
    "typed", ["2和30多个文件", "2与10多个文件有关", "2和3余条", "2 和 30多个文件"]
)
def test_a_counting_word_said_about_after_and_is_a_count(typed):
    command, _ = assert_names_no_note(typed)
    assert "," not in command.key[1][0]  # keyed as no list of notes (`2,30`)


# a count's range or choice (`到`, `至`: "to", `或`: "or") counts with both numbers, no note's:
#   `/notes wrong 2到3倍` ("2 to 3 times") with one note shown was answered "There is no note
#   2 (`2到3`)", where `2-3倍` and `2~3倍` are that note's reason, all of it; alone, or with a
#   counting word, they are notes' numbers (`2到3`, `2或3条`)
# So does a pair joined by `和` ("and": Chinese's joins nouns, never clauses, so the number
#   before it shares the count's measure word): `/notes wrong 2和3张卡都能复现` ("it
#   reproduces on both 2 and 3 cards") hid note 2 with the reason `和3张卡都能复现`; and typed
#   apart, `2 到 3 倍` and `2 和 3 张卡` hid note 2 as well
@pytest.mark.parametrize(
    "typed",
    [
        "2到3倍",
        "2至30分钟就能复现",
        "2或3处改名",
        "2或者3行",
        "2和3张卡都能复现",
        "2与3台机器上都复现",
        "2和30分钟就能复现",
        "2 到 3 倍",
        "2 和 3 张卡都能复现",
        "2 和 30 分钟就能复现",
        "2和 3张卡",
    ],
)
def test_a_range_of_counts_joined_in_chinese_is_no_note_number(typed):
    command, _ = assert_names_no_note(typed)
    for notes in ("2到3", "2或3条", "2至3只是改名"):
        (command,) = parse_commands(f"/notes wrong {notes}")
        assert command.key == ("wrong", ("2,3",))


# So does a pair joined by `、`, the enumeration comma, with a measure word after the second
#   (`2、3张卡`, "2 or 3 cards", as `2和3张卡`): `/notes wrong 2、3张卡都能复现` hid note 2 with
#   the reason `3张卡都能复现`, and `2、30分钟就能复现` ("within 2 or 30 minutes"), pinned
#   before as note 2 and its reason, hid note 2 too; typed apart, `2、3 张卡` was read as
#   notes 2 and 3, answered with one note shown that there is no note 2. A comma sets a
#   reason off as before (`2，3个文件…`); a bare counting word ends a list (`2、3条`)
@pytest.mark.parametrize(
    "typed",
    [
        "2、3张卡都能复现",
        "2、30分钟就能复现",
        "2、3倍",
        "2 、 3 张卡",
        "2、 3张卡",
        "２、３张卡",
        "2、30多个文件",
    ],
)
def test_a_pair_of_counts_enumerated_in_chinese_is_no_note_number(typed):
    command, _ = assert_names_no_note(typed)
    assert command.key[1][0] not in ("2", "2,3")  # keyed as no note's number, no list


# kills: bot/wrong_reading.py:_ENUMERATED_COUNTS, _COUNT_RANGE a decimal count after `、`, `和`
#   or `到` read as a reason set off from note 2: `/notes wrong 2、3.5倍` and `2到3.5倍` ("2 to
#   3.5 times") hid note 2 with the reason `3.5倍`, `到3.5倍`, where `2、3倍` and `2到3倍`
#   name no note. A count is a count with a decimal point too; a comma still sets it off
#   (`2，3.5倍`: note 2 and its reason, as `2，1.5倍`)
@pytest.mark.parametrize(
    "typed",
    [
        "2、3.5倍",
        "2到3.5倍",
        "2 到 3.5 倍",
        "2和0.5秒都能复现",
        "2、 1.5倍",
        "２、３．５倍",
        "2或2.5倍",
    ],
)
def test_a_decimal_count_joined_in_chinese_is_no_note_number(typed):
    command, _ = assert_names_no_note(typed)
    assert command.key[1][0] not in ("2", "2,3")  # keyed as no note's number, no list
    assert_hides_2("2，3.5倍", "3.5倍")


# but a counting word after the second (`个`, `条`, `号`) ends a list of notes, as after `和`
#   (`2和3个文件`, `2和3条只是改名` ask which): `/notes wrong 2、3个文件` and `2、3条只是改名`
#   hid note 2 with the reason `3个文件`, `3条只是改名`, and `2、3号机` ("machines 2 and 3")
#   with `3号机`. So does `点` ("point", as items are numbered, not the hour's `3点钟`):
#   `2、3点只是改名` ("points 2 and 3 are only renames") with one note shown hid that note,
#   all of it the reason, as `2和3点只是改名` did
@pytest.mark.parametrize(
    ("typed", "one"),
    [
        ("2、3个文件", "2 (`2、3个`)"),
        ("2、3条只是改名", "2 (`2、3条`)"),
        ("2、3号机上跑过了", "2 (`2、3号`)"),
        ("2、 3个文件", "2 (`2、 3个`)"),
        ("2、3点只是改名", "2 (`2、3点`)"),
        ("2和3点只是改名", "2 (`2和3点`)"),
    ],
)
def test_a_counting_word_after_two_enumerated_numbers_ends_a_list(typed, one):
    assert_lists_2_and_3(typed)
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank) == (None, PickProblem.RANGE, 2)
    assert f"There is no note {one} in the notes comment" in render_unpicked(command, pick, 1)
    assert picked("2、3点钟", SHOWN[:1]).note_id == SHOWN[0]  # "2 or 3 o'clock": a count


# kills: bot/wrong_reading.py:_BETWEEN notes' numbers in brackets or quotes joined by `和`
#   ("and") read as the first note and a reason: `「2」和「3」` hid note 2 with `和「3」`,
#   where `2和3` names no one note (before quoted numbers were read, it asked which)
@pytest.mark.parametrize(
    "typed", ["「2」和「3」", "【2】和【3】", "(2)和(3)", "“2”与“3”只是改名", "【2】 和 【3】"]
)
def test_bracketed_numbers_joined_by_and_in_chinese_name_no_one_note(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    (said,) = parse_commands("/notes wrong 2和3")
    assert pick_note(command.args, SHOWN[:1]).note_id is None
    assert command.key == said.key  # as `2和3`: an edit between them runs nothing


# kills: bot/wrong_reading.py:_ENUMERATED, _BETWEEN notes' numbers joined by English's `and` or
#   `&` read as the first note and a reason: `2 and 3` hid note 2 with the reason `and 3`,
#   where `2和3` names no one note
@pytest.mark.parametrize(
    "typed",
    [
        "2 and 3",
        "2 & 3",
        "2&3",
        "2 AND 3",
        "2 and 3 are renames",
        "2 and 3: only renames",
        "2 and 3 is a rename",  # `is`: no count, though it ends as a plural does
        "(2) and (3)",
        "[2] & [3] both off",
        "「2」and「3」",
        "notes 2 and 3",
        "Notes 2 & 3 are renames",
        "notes 2 and 3 fit better",
        "note 2 and note 3",
        "#2 and #3",
        "(2) and 3",
    ],
)
def test_notes_numbers_joined_by_and_in_english_name_no_one_note(typed):
    command, _ = assert_names_no_note_2_alone(typed)
    assert command.key == ("wrong", ("2,3",))  # as `2,3`: an edit between them runs nothing


# kills: bot/wrong_reading.py:_ENGLISH_LIST ordinals joined by `and` read as the first note and a
#   reason: `2nd and 3rd`, `second and third` hid note 2 with the reason `and 3rd`, or (an
#   ordinal word before `and` read as an adjective) with one note shown hid note 1 with
#   all of it, where `2 and 3` and `第2和第3条` name no one note
@pytest.mark.parametrize(
    "typed",
    [
        "2nd and 3rd",
        "second and third",
        "the second and the third",
        "2nd & 3rd",
        "the 2nd and 3rd",
        "2 and 3rd",
        "2nd and 3",
        "2 and third",
        "second and third ones",
        "2nd and 3rd notes",
        "second and third are renames",
        "2nd and 3rd: only renames",
        "second third",  # as `2nd 3rd`, `second, third`
    ],
)
def test_ordinals_joined_by_and_in_english_name_no_one_note(typed):
    command, _ = assert_names_no_note_2_alone(typed)
    assert command.key == ("wrong", ("2,3",))  # as `2,3`: an edit between them runs nothing


# kills: bot/wrong_reading.py:_ORDINAL `notes` before a number read as a word: `notes 2,3` and
#   `notes 2` with one note shown hid note 1 with all of it the reason, where `note 2`
#   and `notes 2 and 3` name note 2
@pytest.mark.parametrize(
    ("typed", "rank", "key"),
    [
        ("notes 2,3", 0, ("2,3",)),
        ("notes 2, 3", 0, ("2,3",)),
        ("notes 2 3", 0, ("2,3",)),
        ("notes 2", 2, ("2",)),
        ("Notes #2", 2, ("2",)),
        ("notes 2 fit better", 2, ("2", "fit", "better")),
        ("notes 2: only renames", 2, ("2", "only", "renames")),
    ],
)
def test_notes_before_a_number_names_it_as_note_does(typed, rank, key):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN)
    assert pick.rank == rank and (pick.note_id is None) == (rank == 0)
    one = pick_note(command.args, SHOWN[:1])
    assert (one.note_id, one.problem, one.rank) == (None, PickProblem.RANGE, 2)
    assert command.key == ("wrong", key)


# An ordinal as an adjective (`3rd-party`, `3rd party`, `first-time`) after `and` is the
# reason's, as a count is
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 and 3rd-party deps", "and 3rd-party deps"),
        ("2 and 3rd party deps", "and 3rd party deps"),
        ("2 and first-time contributors", "and first-time contributors"),
        ("2 and second half of the diff", "and second half of the diff"),
        ("2 and thirdly", "and thirdly"),
    ],
)
def test_an_ordinal_adjective_after_and_stays_the_reason(typed, reason):
    assert_hides_2(typed, reason)


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 and this is unrelated", "and this is unrelated"),
        ("2 and 30 files changed", "and 30 files changed"),  # a count, as `2、30分钟` is
        ("2 and 3 tests fail", "and 3 tests fail"),
        ("2 and 3 PRs later", "and 3 PRs later"),
        ("2 and 3x faster", "and 3x faster"),  # a unit glued on, as `2，1.5倍`
        ("2 and 2.5 times slower", "and 2.5 times slower"),
        ("2 and 30% slower", "and 30% slower"),
        ("(2) and 30 files changed", "and 30 files changed"),
        ("2 android", "android"),
    ],
)
def test_a_count_after_and_stays_the_reason(typed, reason):
    assert_hides_2(typed, reason)


# but `both` after the count says the two numbers are a pair of counts, as Chinese's
#   `2和3张卡都能复现` is: `/notes wrong 2 and 3 GPUs both reproduce` hid note 2 with the
#   reason `and 3 GPUs both reproduce`, where `3 GPUs both` is no English
@pytest.mark.parametrize(
    "typed", ["2 and 3 GPUs both reproduce", "2 & 3 tests both fail", "2 and 4x both slower"]
)
def test_a_pair_of_counts_said_both_in_english_is_no_note_number(typed):
    assert_names_no_note(typed)


# `to` between two notes' numbers is a range of notes, as `2-3` and `2到3` are: `/notes
#   wrong 2 to 3` hid note 2 with the reason `to 3`, where `2 or 3` names no one note
#   So in brackets: `(2) to (3)` hid note 2 with `to (3)`, where `(2) and (3)` asks; and a
#   count in them too, as typed without them (`(2) to (3) files`, "2 to 3 files")
@pytest.mark.parametrize(
    "typed",
    ["2 to 3", "notes 2 to 3", "2 to 3 are renames", "#2 to #3", "(2) to (3)", "【2】 to 【3】"],
)
def test_numbers_joined_by_to_in_english_name_no_one_note(typed):
    assert_lists_2_and_3(typed)
    assert picked("(2) to (3) files changed").problem is PickProblem.WHICH
    assert picked("(2) to (3) files changed", SHOWN[:1]).note_id == SHOWN[0]


# `or` or `to` before a count join two counts, as Chinese's `2或3处` and `2到3倍` do (no
#   "note 2, or 3 files changed"): `/notes wrong 2 or 3 files changed` hid note 2 with the
#   reason `or 3 files changed`. A count is a noun no verb can be: `2 to 3 files` alone,
#   pinned before as a count, may be "note 2 or 3 files [a bug]", as `2 or 3 matches` is
#   notes 2 or 3 and their reason: with one note shown, it is answered there is no note 2
@pytest.mark.parametrize(
    "typed",
    [
        "2 or 3 files changed",
        "2 or 3x slower",
        "2 to 3 files changed",
        "2 to 30% slower",
        "2 or 3 GPUs fail",
        "2 or 3 files are renames",
        "2 or 3 files aren't renames",
        "2 or 3 tests failed.",
    ],
)
def test_a_choice_or_range_of_counts_in_english_is_no_note_number(typed):
    assert_names_no_note(typed)


# but a `-s` word after `or` or `to` a verb may be (English says `2 or 3 needs`) is no count:
#   `/notes wrong 2 or 3 needs a rename` with one note shown hid that note, all of it the
#   reason, where the reviewer named notes 2 or 3 (before `or` joined counts, it was
#   answered there is no note 2); a linking verb before an `-ed` word too (`gets renamed`)
@pytest.mark.parametrize(
    "typed",
    [
        "2 or 3 needs a rename",
        "2 or 3 matches",
        "2 or 3 belongs here",
        "2 to 3 files",
        "2 or 3 gets renamed",
        "2 or 3 breaks nested calls",
        "(2) or (3) needs a rename",
        "2, or 3 matches",
    ],
)
def test_a_verb_after_or_or_to_in_english_makes_no_count(typed):
    command, _ = assert_names_no_note_2_alone(typed)
    assert command.key == ("wrong", ("2,3",))  # the list's, as `2 or 3`


# kills: bot/wrong_reading.py:_COUNTED a verb after `2 and 3` read as a count's plural noun, as
#   any `-s` word was: `/notes wrong 2 and 3 needs a rename` hid note 2 with the reason `and 3
#   needs a rename`, where `2 or 3 needs a rename` asks which note. A verb as English's
#   grammar tells it: one a list goes on with (`needs`, `gets`, as after `or`), or one an
#   article follows, its object (`fixes the bug`), which no plural noun after a count takes
@pytest.mark.parametrize(
    "typed",
    [
        "2 and 3 needs a rename",
        "2 and 3 gets renamed",
        "2 and 3 fixes the bug",
        "2 & 3 touches an old path",
        "2, and 3 breaks the build",
        "notes 2 and 3 needs a rename",
        "(2) and (3) needs a rename",
    ],
)
def test_a_verb_after_and_in_english_makes_no_count(typed):
    command, _ = assert_names_no_note_2_alone(typed)
    assert command.key == ("wrong", ("2,3",))  # the list's, as `2 and 3`
    # a plural noun, before a verb or not, is a count's, the reason's, as before
    assert_hides_2("2 and 3 files need a rename", "and 3 files need a rename")


# kills: bot/wrong_reading.py:_COUNTED an article after a count's noun read as a verb's object
#   where the noun is no verb: `/notes wrong 2 and 3 times the memory` asked which note, where
#   `2 and 3x the memory` hides note 2 with its reason, and `2 and 3 PRs a day` (a rate) did
#   too. `times` is `x` spelled out, and an acronym's plural is no verb, as after `or`
@pytest.mark.parametrize(
    "typed",
    [
        "2 and 3 times the memory",
        "2 and 3 times a day",
        "2 and 3 PRs a day",
        "2, and 30 GPUs a node",
    ],
)
def test_a_count_noun_before_an_article_after_and_is_no_verb(typed):
    assert_hides_2(typed, typed[2:].lstrip(", "))
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert command.key[1][0] == "2"  # note 2 and its reason, as `2 and 3x the memory`
    assert_hides_2("2 and 3x the memory", "and 3x the memory")


# a note's number and those after it are several notes, which a `wrong` does not take:
#   `/notes wrong 2以后的都不相关` ("2 and those after are all not relevant") hid note 2 alone
#   with the reason `以后的都不相关`, and `2 and later` with `and later`, the later notes
#   left shown as if the reviewer had not named them
@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        ("2以后的都不相关", "2"),
        ("2及以后都只是改名", "2"),
        ("第2条之后的都不相关", "第2条"),
        ("2 and later", "2"),
        ("2, and later are renames", "2"),
        ("#2 onwards", "#2"),
        ("2+", "2+"),
        # set apart from the number, `及以后` ("and after") or `以后的` ("those after") say
        #   so too, as `, and later` does: `/notes wrong 2，及以后都不相关` hid note 2 alone
        ("2，及以后都不相关", "2"),
        ("2 及以后", "2"),
        ("2，以后的都不相关", "2"),
        ("2 之后的也只是改名", "2"),
        ("2，以后的不相关", "2"),
        ("2 之后的是重复的", "2"),
        ("2，之后", "2"),
        # how many of them, or what is said of them, other than `都`, `也`, `不`, `是`…:
        #   `/notes wrong 2，以后的全都不相关` ("2 and all those after are unrelated") hid
        #   note 2 alone once `以后的` before a noun was read as "later"
        ("2，以后的全都不相关", "2"),
        ("2，以后的所有都不相关", "2"),
        ("2 之后的几个都不相关", "2"),
        ("2，之后的同理", "2"),
        ("2，以后的一样", "2"),
        ("2，以后的无关", "2"),
    ],
)
def test_a_note_number_and_the_notes_after_it_name_no_one_note(typed, asked):
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank, pick.asked) == (
        None,
        PickProblem.RANGE,
        2,
        asked,
    )
    assert command.key == ("wrong", ("2+",))  # however said: an edit between them runs nothing
    # a word that only starts so is the reason's, as before
    (command,) = parse_commands("/notes wrong 2 and lateral moves only")
    assert pick_note(command.args, SHOWN).reason == "and lateral moves only"


# `以后` ("later") set apart from the number, with more words after it, is a time, the
#   reason's word (`2，以后再说`, "2, let's talk later"), as English's `after` before a noun
#   is; glued to it, `2以后` is "after 2" (Chinese's `以后` takes the word before it), the
#   notes from 2 on, as English's `2 and later` is whatever follows: `2以后再说` asks which
#   note, and hides none
#   So is `以后的` ("later") before a noun: `/notes wrong 2，以后的版本会修` ("later versions
#   fix it") asked which note, read as "those after 2"
@pytest.mark.parametrize(
    "typed",
    [
        "2，以后再说",
        "2 以后再说",
        "2：以后再看",
        "2 之后再改",
        "2，以后的版本会修",
        "2 之后的提交已经修了",
    ],
)
def test_later_set_apart_from_a_note_number_is_its_reason(typed):
    reason = typed[2:]
    assert picked(typed) == Pick(SHOWN[1], 2, reason)
    glued = typed[0] + reason  # `2以后再说`
    assert picked(glued).problem is PickProblem.WHICH
    (command,) = parse_commands(f"/notes wrong {glued}")
    assert command.key == ("wrong", ("2+",))


# kills: bot/wrong_reading.py:_ONWARDS_GLUED a full stop typed as a point (`.`, or `．` as a
#   full-width mode types it) read as `以后` glued to the number: `/notes wrong 2.以后再说`
#   ("2. later") asked which note, read as "2 and those after", where `2。以后再说` and
#   `2，以后再说` hide note 2 with their reason. A counting word is no full stop: `第2条以后`
#   is "after item 2", as `2以后` is
@pytest.mark.parametrize("typed", ["2.以后再说", "2．以后再说", "２．以后再说", "#2.之后再改"])
def test_a_full_stop_sets_later_apart_from_a_note_number_as_a_comma_does(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    (comma,) = parse_commands(f"/notes wrong {typed.replace('．', '，').replace('.', '，')}")
    (stop,) = parse_commands(f"/notes wrong {typed.replace('．', '。').replace('.', '。')}")
    reason = typed[-4:]
    assert pick_note(command.args, SHOWN) == Pick(SHOWN[1], 2, reason)
    assert pick_note(stop.args, SHOWN) == pick_note(comma.args, SHOWN) == Pick(SHOWN[1], 2, reason)
    assert command.key == stop.key == comma.key == ("wrong", ("2", reason))
    # said of the notes after it, or alone, it is still those notes; counted, glued on
    for onwards in ("2.以后的都不相关", "2.及以后", "2.以后", "第2条以后再说", "第二条之后再改"):
        assert picked(onwards).problem is PickProblem.WHICH, onwards


# `after` or `following` before a noun, and `the rest` said to be fine, go on from note 2
#   alone: `/notes wrong 2 and the rest is fine` and `2 and after the refactor it is moot`
#   asked which note, read as note 2 and the notes after it, where the reviewer named one
@pytest.mark.parametrize(
    "reason",
    [
        "and the rest is fine",
        "and the rest are fine",
        "and the rest look good",
        "and after the refactor it is moot",
        "and after this PR it is moot",
        "and following the docs it works",
    ],
)
def test_a_note_number_and_words_going_on_from_it_alone_is_that_note(reason):
    (command,) = parse_commands(f"/notes wrong 2 {reason}")
    assert pick_note(command.args, SHOWN) == Pick(SHOWN[1], 2, reason)
    assert command.key[1][0] == "2"
    # with nothing after them, or said of them all, they are the notes after it, as before
    for onwards in ("and after", "and the rest are unrelated", "and following are renames"):
        (command,) = parse_commands(f"/notes wrong 2 {onwards}")
        assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH


# a note's number, then a reason that starts with a count, is that note and its reason: the
#   documented `wrong N words`, a space between them. Read as a count with no note's number,
#   `/notes wrong 2 tests are flaky, not CUDA graphs` asked which note, and with one note
#   shown hid it where note 2, the one named, was not shown (`2个文件`, a measure word glued
#   on, is a count, no note's: Chinese sets a note's number apart, `2 文件只是改名`)
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2 tests are flaky, not CUDA graphs", "tests are flaky, not CUDA graphs"),
        ("2 commits ago this was reverted", "commits ago this was reverted"),
        ("2 GPUs are not involved", "GPUs are not involved"),
        ("2 files only renamed", "files only renamed"),
        ("２ files only renamed", "files only renamed"),
        ("#2 files only renamed", "files only renamed"),
        ("note 2 files only", "files only"),
        ("2: files only renamed", "files only renamed"),
        ("2 - files only", "files only"),
        ("2 文件只是改名", "文件只是改名"),
        ("2 MB more is noise", "MB more is noise"),
        ("2 covers another path", "covers another path"),
    ],
)
def test_a_note_number_before_a_counted_noun_keeps_it_the_notes(typed, reason):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.reason, pick.problem) == (SHOWN[1], reason, None)
    assert command.key[1][0] == "2"  # keyed as note 2, as `2, files…` is
    # with one note shown, note 2 is none of it: no such note, nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.rank) == (None, PickProblem.RANGE, 2)
    (command,) = parse_commands("/notes wrong 3 configs only")
    assert pick_note(command.args, SHOWN).note_id == SHOWN[2]
    (command,) = parse_commands("/notes wrong 1 file")
    assert pick_note(command.args, SHOWN) == Pick(SHOWN[0], 1, "file")
    # and an ordinal after it is a second number, no count of seconds: `1 second` is `1,2`
    (command,) = parse_commands("/notes wrong 1 second (3)")
    assert pick_note(command.args, SHOWN[:1]).problem is PickProblem.WHICH
    assert command.key == parse_commands("/notes wrong 1,2")[0].key


# --- `/notes wrong`'s readings: numbers and counts glued to a reason ---


# kills: bot/wrong_reading.py:_LISTED (hand) a second number with a Chinese reason glued on
#   (`2、3只是改名`, "2 and 3 are only renames") read as a count, the reason's first word
@pytest.mark.parametrize(
    "typed",
    ["2、3只是改名", "2，3只是改名", "2,3只是改名", "2、3都不相关", "2 3只是改名", "#2、#3只是"],
)
def test_a_second_number_with_a_reason_glued_on_that_counts_nothing_is_a_lists(typed):
    # with several notes shown it hid note 2 with the reason '3只是改名'
    command, _ = assert_names_no_note_2_alone(typed)
    assert command.key == ("wrong", ("2,3",))  # as `2、3 只是改名`: an edit runs nothing


# kills: bot/wrong_reading.py:_SAID_OF_THEM (hand) a second number in numerals with a reason
#   glued on (`2、三只是改名`) read as note 2 and the reason '三只是改名': it hid note 2
@pytest.mark.parametrize(
    "typed", ["2、三只是改名", "2，三都不相关", "二、三只是改名", "第2、三只是改名", "2、三也是"]
)
def test_a_second_number_in_numerals_with_a_reason_about_them_is_a_lists(typed):
    assert_lists_2_and_3(typed)
    # a word a numeral starts stays the reason's (`十分`, "very"; `一般`; `三方`, "third-party")
    for reason in ("十分不相关", "一般不用看", "三方库的改动", "三个文件只是改名"):
        assert_hides_2(f"2，{reason}", reason)


# kills: bot/wrong_reading.py:_ENUMERATED (hand) `第` before the number after `和` (`2和第3条`,
#   "2 and the 3rd"): note 2 was hidden with the reason '和第3条'
@pytest.mark.parametrize(
    "typed", ["2和第3条", "2 和 第3条", "(2)和第3条", "2和第3条只是改名", "2及第3"]
)
def test_a_number_after_and_counted_with_di_joins_the_list(typed):
    assert_lists_2_and_3(typed)


# the other side: digits with a unit or a measure word glued on count something, the
# reason's first word, as before (`30分钟`, `3个文件`, `3处`, `2行`); so are more than two
# digits, which number no note (`4090上`: the GPU)
@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("2，3个文件只是改名", "3个文件只是改名"),
        ("2，3处只是改名", "3处只是改名"),
        ("2，2行改动", "2行改动"),
        ("2，8卡上没问题", "8卡上没问题"),
        ("2，2阶段的逻辑", "2阶段的逻辑"),
        ("2，2级缓存", "2级缓存"),
        ("2，4090上没问题", "4090上没问题"),
    ],
)
def test_a_count_glued_after_a_note_number_stays_the_reason(typed, reason):
    assert_hides_2(typed, reason)


# kills: bot/wrong_reading.py:_UNITS (hand) a count whose measure word was not listed read as a
#   note's number with a reason glued on: `3例都没复现` ("3 cases did not reproduce"),
#   typed without the note's number, hid note 3 of three shown, where it asked which
@pytest.mark.parametrize(
    "typed",
    ["3例都没复现", "2成以上只是改名", "10多个文件只是改名", "2片GPU上复现", "3颗芯片上没问题"]
    + ["3日就修了"],
)
def test_a_count_with_a_measure_word_glued_on_is_no_note_number(typed):
    _, pick = assert_names_no_note(typed)
    pick = picked(f"2，{typed}")
    assert (pick.note_id, pick.reason) == (SHOWN[1], typed)
    # the words those characters start are a reason's, glued on (`例如`, "for example")
    for word in ("例如", "成功", "成本", "成员变量", "日志", "多余", "片面"):
        pick = picked(f"2{word}")
        assert (pick.note_id, pick.reason) == (SHOWN[1], word)


# a tilde between digits writes a range, as a hyphen does: `/notes wrong 2~3个文件只是改名`
#   ("2 to 3 files only renamed") hid note 2 with the reason `3个文件只是改名`, the tilde
#   read as the comma of `2，3个文件…`; `2-3个文件…` asked which note, a count, no note's
@pytest.mark.parametrize("typed", ["2~3个文件只是改名", "2～3个文件", "2〜3处改名", "２～３倍"])
def test_a_count_written_as_a_range_with_a_tilde_is_no_note_number(typed):
    command, _ = assert_names_no_note(typed)
    (command,) = parse_commands(f"/notes wrong 2 {typed}")
    assert pick_note(command.args, SHOWN).reason == typed
    # with nothing after it, a range of notes: which note? as `2-3`
    for notes in ("2~3", "2～3", "1~2 都不相关"):
        (command,) = parse_commands(f"/notes wrong {notes}")
        assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
        assert pick_note(command.args, SHOWN[:1]).problem is PickProblem(
            "which" if notes.startswith("1") else "range"
        )


# kills: bot/wrong_reading.py:_NUMBER (hand) a note's number with a Chinese reason glued on
#   (`2只是改名`, Chinese puts no space there) read as no number: with one note shown
#   it hid that note with the reason '2只是改名', with several it asked which
@pytest.mark.parametrize("typed", ["2只是改名", "#2只是改名", "２只是改名"])
def test_a_reason_glued_on_to_a_note_number_is_set_apart_as_after_a_comma(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    pick = pick_note(command.args, SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[1], "只是改名")
    assert command.key == parse_commands("/notes wrong 2，只是改名")[0].key
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.problem, pick.asked) == (None, PickProblem.RANGE, typed[:-4])
    # a count is no number: the reason, as typed
    assert picked("30分钟就能复现", SHOWN[:1]).reason == "30分钟就能复现"


_CHINESE_REASONS = ["只是改名", "都不相关", "跟本PR无关", "没关系", "也只是重命名", "处理的是别的"]
_CHINESE_COUNTS = ["个文件只是改名", "分钟就能复现", "处改名", "行改动", "倍", "卡上没问题", "处"]


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(
    first=st.integers(1, 3),
    second=st.integers(1, 99),
    separator=st.sampled_from(["、", "，", ",", " ", "、#"]),
    reason=st.sampled_from(_CHINESE_REASONS),
    count=st.sampled_from(_CHINESE_COUNTS),
)
def test_digits_and_a_chinese_word_glued_on_read_as_a_number_and_its_reason(
    first, second, separator, reason, count
):
    # a word that counts nothing glued to a number: the number's reason, as after a comma
    (alone,) = parse_commands(f"/notes wrong {first}{reason}")
    assert pick_note(alone.args, SHOWN) == pick_note(
        parse_commands(f"/notes wrong {first}，{reason}")[0].args, SHOWN
    )
    # after a second number: a list, whatever the reason (which note? nothing hidden)
    (listed,) = parse_commands(f"/notes wrong {first}{separator}{second}{reason}")
    assert pick_note(listed.args, SHOWN).problem is PickProblem.WHICH
    assert listed.key == ("wrong", (f"{first},{second}",))
    # a unit or measure word glued on: a count, the reason's first word
    (counted,) = parse_commands(f"/notes wrong {first}，{second}{count}")
    pick = pick_note(counted.args, SHOWN)
    assert (pick.note_id, pick.reason) == (SHOWN[first - 1], f"{second}{count}")


# kills: bot/wrong_reading.py:_ENGLISH_LIST (hand) `notes` after the last number of a list read as
#   a count's plural noun (`2 and 3 notes`: note 2 and the reason 'and 3 notes')
@pytest.mark.parametrize(
    "typed",
    [
        "2 and 3 notes",
        "2 and 3 notes are renames",
        "notes 2 and 3 notes",
        "2 & 3 ones",
        "#2 and #3 notes",
    ],
)
def test_notes_after_a_list_of_numbers_counts_them_as_notes_no_count(typed):
    assert_lists_2_and_3(typed)
    # a count after `and` stays the reason
    assert picked("2 and 3 files are renames").reason == "and 3 files are renames"


# kills: bot/wrong_reading.py:_numbers_unbracketed (hand) `and` glued after a bracketed number
#   (`(2)and 3`) read as a reason glued on, where `(2) and 3` names two notes
@pytest.mark.parametrize("typed", ["(2)and 3", "(2)and (3)", "(2)& 3", "(2)和3", "(2)和3只是改名"])
def test_and_glued_after_a_bracketed_number_joins_a_list_as_typed_apart(typed):
    assert_lists_2_and_3(typed)
    # a word that only starts so is the reason glued on, as after `(2)`
    assert picked("(2)android only").reason == "android only"


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(
    first=st.integers(1, 3),  # shown: which of them? (9 would be no note 9)
    second=st.integers(1, 9),
    shape=st.sampled_from(
        ["{a} and {b}", "({a})and {b}", "({a}) and ({b})", "({a})&{b}", "({a})和{b}", "{a}和{b}"]
    ),
    counting=st.sampled_from(["", " notes", " ones"]),
    reason=st.sampled_from(["", " are renames", " 只是改名", ", only renames"]),
)
def test_numbers_joined_by_and_however_glued_or_counted_are_a_list(
    first, second, shape, counting, reason
):
    counting = "" if "和" in shape else counting  # (English's counting words)
    typed = shape.format(a=first, b=second) + counting + reason
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    assert command.key == ("wrong", (f"{first},{second}",))


@pytest.mark.parametrize("typed", ["first and foremost a rename", "2 first and foremost a rename"])
def test_first_and_foremost_is_the_reasons_words_no_ordinal(typed):
    # read right already (an ordinal before `and` and no second one is no list, and no
    # number either: `first` is a word before another): kept so
    (command,) = parse_commands(f"/notes wrong {typed}")
    said = typed.removeprefix("2 ")
    if typed.startswith("2 "):
        pick = pick_note(command.args, SHOWN)
        assert (pick.note_id, pick.reason) == (SHOWN[1], said)
    else:
        assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH
        assert pick_note(command.args, SHOWN[:1]).reason == said


# --- `/notes wrong`'s readings: notes hidden that were not meant ---


# kills: bot/wrong_reading.py:_ordinal (hand) an ordinal in digits before a noun it qualifies
#   (`3rd party`, `1st time`, `2nd half`) read as the note's number: `3rd party deps only`
#   hid note 3 of three shown, `1st time contributor` note 1, where no note was named
@pytest.mark.parametrize(
    "reason",
    ["3rd party deps only", "1st time contributor, unrelated", "2nd half of the PR is docs"]
    + ["2nd order effect only", "3rd Party code"],
)
def test_an_ordinal_in_digits_before_a_noun_it_qualifies_is_the_reason(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], reason)
    # before any other word it is the note's number, as before
    pick = picked("2nd is a rename")
    assert (pick.note_id, pick.reason) == (SHOWN[1], "is a rename")


# kills: bot/wrong_reading.py:_ORDINAL (hand) `号` numbering a machine or a GPU (`2号机`, "machine
#   no. 2", `1号卡`, `3号GPU`) read as a note's number: `2号机上跑过了` ("ran it on machine
#   2") hid note 2 with the reason '机上跑过了'
@pytest.mark.parametrize(
    "reason", ["2号机上跑过了", "1号卡OOM和这个无关", "3号GPU上没问题", "2号節點", "２号ＧＰＵ上"]
)
def test_a_number_a_machine_or_gpu_is_given_is_no_notes_number(reason):
    (command,) = parse_commands(f"/notes wrong {reason}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], reason)
    assert picked(f"2，{reason}").reason == reason
    # a reason glued on to a note's number so is its reason, as before
    pick = picked("2号只是改名")
    assert (pick.note_id, pick.reason) == (SHOWN[1], "只是改名")


# kills: bot/wrong_reading.py:_MEASURES (hand) counts whose measure word was not listed read as a
#   note's number with a reason glued on: `2款模型都没问题` ("2 models are fine") hid note 2
#   of three shown with the reason '款模型都没问题'; so `2家厂商`, `2代`, `2以上的TP`, `2季度`
@pytest.mark.parametrize(
    "typed",
    ["2款模型都没问题", "2家厂商的卡都试了", "3代卡上没问题", "2以上的TP才走这里", "2以内的误差"]
    + ["2以下没问题", "2季度就有了", "2档位", "2场测试都过了", "2及以上的TP才走这里"],
)
def test_a_count_with_a_further_measure_word_glued_on_is_no_note_number(typed):
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    pick = pick_note(command.args, SHOWN[:1])
    assert (pick.note_id, pick.reason) == (SHOWN[0], typed)
    assert picked(f"2，{typed}").reason == typed
    # the words those characters start are a reason's, glued on (`代码`, "code")
    for word in ("代码只是格式化", "代替了旧的", "代表的是别的"):
        pick = picked(f"2{word}")
        assert (pick.note_id, pick.reason) == (SHOWN[1], word)


# kills: bot/wrong_reading.py:_ZH_AND (hand) numbers joined by `跟`, `同` ("and"), `或` ("or"),
#   `到` or `至` ("to") read as the first note's number with a reason glued on: `2或3`
#   ("2 or 3") hid note 2 with the reason '或3', `1跟2都不相关` note 1
@pytest.mark.parametrize(
    ("typed", "key"),
    [
        ("2或3", "2,3"),
        ("2跟3都不相关", "2,3"),
        ("1跟2都不相关", "1,2"),
        ("2同3", "2,3"),
        ("2到3", "2,3"),
        ("1至3都不相关", "1,3"),
        ("(2)或(3)", "2,3"),
        ("二或三", "2,3"),
    ],
)
def test_numbers_joined_by_or_and_to_in_chinese_name_no_one_note(typed, key):
    (command,) = parse_commands(f"/notes wrong {typed}")
    assert pick_note(command.args, SHOWN).problem is PickProblem.WHICH  # nothing hidden
    assert command.key == ("wrong", (key,))
    # with one word of them a reason glued on, it stays the note's (`跟TP无关`, "unrelated to TP")
    pick = picked("2跟TP无关")
    assert (pick.note_id, pick.reason) == (SHOWN[1], "跟TP无关")


# kills: bot/wrong_reading.py:_ENUMERATED (hand) numbers joined by `或者` ("or"), `以及` or `还有`
#   ("and") read as the first note's number with a reason glued on: `2或者3` hid note 2
@pytest.mark.parametrize("typed", ["2或者3", "2以及3", "2还有3都不相关", "(2)或者(3)", "二以及三"])
def test_numbers_joined_by_a_two_character_and_or_or_name_no_one_note(typed):
    assert_lists_2_and_3(typed)
    pick = picked("2还有别的问题")  # "2 has other problems too"
    assert (pick.note_id, pick.reason) == (SHOWN[1], "还有别的问题")


# kills: bot/wrong_reading.py:_EN_AND (hand) numbers joined by `or` (`2 or 3`, unsure which) read
#   as note 2 and the reason 'or 3': it hid note 2
# So in brackets, as `(2) and (3)`: `/notes wrong (2) or (3)` hid note 2 with `or (3)`
@pytest.mark.parametrize(
    "typed",
    ["2 or 3", "#2 or #3", "2 or 3, not sure which", "note 2 or 3", "(2) or (3)", "[2] OR [3]"],
)
def test_numbers_joined_by_or_in_english_name_no_one_note(typed):
    assert_lists_2_and_3(typed)
    # a count after `or` makes both counts (`2 or 3 files`), as `2或3处` does: no note
    assert picked("2 or 3 files are renames").problem is PickProblem.WHICH


# kills: bot/wrong_reading.py:_EN_AND (hand) a comma before `and` or `or` (`2, and 3`, as English
#   may list two) read as note 2 and the reason 'and 3': it hid note 2
@pytest.mark.parametrize("typed", ["2, and 3", "2, and 3 too", "2, or 3", "#2, and #3"])
def test_numbers_joined_by_a_comma_and_and_name_no_one_note(typed):
    assert_lists_2_and_3(typed)
    assert picked("2, and 30 files are renames").reason == "and 30 files are renames"  # a count


# kills: bot/wrong_reading.py:_ENUMERATED (hand) a comma before Chinese's join (`2，和3`, as `2,
#   and 3`) read as note 2 and the reason '和3': it hid note 2
@pytest.mark.parametrize("typed", ["2，和3", "2, 和 3", "2，或者3", "2、以及3都不相关"])
def test_numbers_joined_by_a_comma_and_he_name_no_one_note(typed):
    assert_lists_2_and_3(typed)
    assert picked("2，和TP无关").reason == "和TP无关"  # "2, unrelated to TP"

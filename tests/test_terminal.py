"""Text for a terminal or a log line (bot.terminal): what anyone may write is printed inert."""

from __future__ import annotations

import pytest

from bot.terminal import count_of, inert, shown

# --- escaping controls for a terminal and the log ---


# kills: bot/terminal.py:inert hand: "Cf" (a bidi override) left out of what is escaped
# kills: bot/terminal.py:inert hand: "Zl" (the line separator) left out of what is escaped
# kills: bot/terminal.py:inert hand: "Zp" (the paragraph separator) left out of what is escaped
@pytest.mark.parametrize(
    ("char", "shown"),
    [("\x1b", "\\x1b"), ("\u202e", "\\u202e"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")],
)
def test_each_kind_of_control_or_separator_is_shown_escaped(char, shown):
    # a bidi override reverses what follows on the line; a separator breaks it
    assert inert(f"fix{char}ed") == f"fix{shown}ed"


# kills: bot/terminal.py:inert every character but a space escaped (and, not or)
def test_the_rest_of_a_text_with_a_control_in_it_is_printed_as_written():
    # a Chinese title or a Windows path is read as written, around the escaped BEL
    assert inert("修复 C:\\tmp é\x07") == "修复 C:\\tmp é\\x07"


def test_a_senders_text_in_a_log_line_is_cut_and_escaped_and_other_values_named_by_type():
    # a header, a payload's action or login: one line of at most `limit` characters and
    # "...", the Chinese as written; no value's repr (it could be the whole body)
    assert shown("opened\nerror: forged\x85") == "opened\\nerror: forged\\x85"
    assert shown("修复" * 60, limit=100) == "修复" * 50 + "..."
    assert shown("e" * 100) == "e" * 100
    assert (shown(None), shown(5), shown({"a": [1] * 10**5})) == ("(none)", "(int)", "(dict)")


def test_a_count_of_one_takes_the_nouns_singular():
    # "put back 1 times" in the CLI's listing and a delivery's error
    assert [count_of(n, "time") for n in (0, 1, 2)] == ["0 times", "1 time", "2 times"]
    assert count_of(1, "delivery", "deliveries") == "1 delivery"
    assert count_of(3, "delivery", "deliveries") == "3 deliveries"

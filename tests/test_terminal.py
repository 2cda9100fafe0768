"""Text for a terminal (bot.terminal.inert): what anyone may write is printed inert."""

from __future__ import annotations

import pytest

from bot.terminal import inert

# --- found by mutation run 'r27c' ---


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

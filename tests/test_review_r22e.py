"""Defects found by review 'r22e' (a mutation run of the notes model, `notes check`'s
warnings, the dispatcher, the pages' JSON and the TOML readers): each test states the
behaviour expected and fails until the defect is fixed."""

from __future__ import annotations

import pytest

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, check_library


@pytest.mark.xfail(
    strict=True,
    reason="r22e: toml_errors.set_twice keys by path only, so the `id` every [[topic]]"
    " table sets is taken for the key set twice: a curator's doubled line in a later"
    " topic is reported as `topic.id` on the next topic's `id` line",
)
def test_a_key_set_twice_in_a_later_topic_is_named_on_its_own_line(tmp_path):
    lines = DEFAULT_TOPICS_FILE.read_text("utf-8").split("\n")
    second = [i for i, line in enumerate(lines) if line.strip() == "[[topic]]"][1]
    name = next(i for i in range(second, len(lines)) if lines[i].startswith("name_en ="))
    lines.insert(name + 1, lines[name])  # the second topic's English name, pasted twice
    topics = tmp_path / "topics.toml"
    topics.write_text("\n".join(lines), "utf-8")
    _, problems = check_library(DEFAULT_NOTES_DIR, topics)
    (problem,) = [str(p) for p in problems]
    first, again = name + 1, name + 2  # 1-based
    assert problem.startswith(f"{topics}:{again}: "), problem
    assert "name_en" in problem and f"(first on line {first})" in problem, problem

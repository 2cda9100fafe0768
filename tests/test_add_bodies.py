"""scripts/add_bodies.py: captured descriptions merged into a graded set, on a tiny set."""

import json
import re

import pytest

from tests.conftest import load_script

SET = [
    {"number": 1, "title": "a", "body": "", "files": ["x.py"], "relevant": {"3": 2}},
    {"number": 2, "title": "b", "body": "", "files": [], "relevant": {}},
    {"number": 3, "body_seen": "search excerpt", "title": "c", "body": "old", "relevant": {}},
    {"number": 4, "title": "d", "labels": [], "relevant": {}},
]


@pytest.fixture(scope="module")
def add_bodies():
    return load_script("add_bodies")


def write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_captured_prs_get_body_and_where_it_was_seen(add_bodies):
    bodies = [
        {"number": 3, "body": "", "body_seen": "not found"},
        {"number": 1, "body": "Fixes #9 ‖ 修复", "body_seen": "search excerpt"},
        {"number": 4, "body": "d's", "body_seen": "search excerpt"},
    ]
    merged = add_bodies.merge_bodies(SET, bodies)
    assert [r["number"] for r in merged] == [1, 2, 3, 4]
    # body_seen follows body; the other fields keep their values and order
    assert list(merged[0]) == ["number", "title", "body", "body_seen", "files", "relevant"]
    assert merged[0]["body"] == "Fixes #9 ‖ 修复"
    assert merged[0]["files"] == ["x.py"] and merged[0]["relevant"] == {"3": 2}
    assert merged[1] == SET[1]  # not looked up: left as it was
    assert merged[2] == {**SET[2], "body": "", "body_seen": "not found"}
    assert list(merged[2]) == ["number", "title", "body", "body_seen", "relevant"]  # moved
    assert merged[3] == {**SET[3], "body": "d's", "body_seen": "search excerpt"}
    assert SET[0]["body"] == ""  # the input is not changed


@pytest.mark.parametrize(
    "bodies, reason",
    [
        ([{"number": 5, "body": "x", "body_seen": "search excerpt"}], "not in the set: [5]"),
        (
            [
                {"number": 2, "body": "x", "body_seen": "search excerpt"},
                {"number": 2, "body": "", "body_seen": "not found"},
            ],
            "PR 2 is captured twice",
        ),
    ],
)
def test_a_stray_or_repeated_number_is_refused(add_bodies, bodies, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        add_bodies.merge_bodies(SET, bodies)


def test_the_script_rewrites_the_set_or_leaves_it_whole(add_bodies, tmp_path, capsys):
    path = write(tmp_path / "set.jsonl", SET)
    before = path.read_text("utf-8")
    stray = write(tmp_path / "stray.jsonl", [{"number": 7, "body": "x", "body_seen": "s"}])
    assert add_bodies.main([str(path), str(stray)]) == 1
    assert capsys.readouterr().err == f"{stray}: PRs not in the set: [7]\n"
    assert path.read_text("utf-8") == before

    good = write(tmp_path / "bodies.jsonl", [{"number": 2, "body": "é", "body_seen": "s"}])
    assert add_bodies.main([str(path), str(good)]) == 0
    lines = path.read_text("utf-8").splitlines()
    assert lines[0] == before.splitlines()[0]  # untouched lines are byte for byte the same
    assert '"body": "é", "body_seen": "s", "files": []' in lines[1]  # written as UTF-8
    assert json.loads(lines[1]) == {**SET[1], "body": "é", "body_seen": "s"}
    assert [json.loads(line)["number"] for line in lines] == [1, 2, 3, 4]
    assert capsys.readouterr().out == f"{path}: 1 PRs looked up, 1 with a description, of 4\n"

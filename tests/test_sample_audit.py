"""scripts/sample_audit.py: drawing a natural-traffic audit and merging its grades."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from bot.library import load_library

ROOT = Path(__file__).resolve().parent.parent
COMMENTED = "[Misc] Warn when CUDA PTX arch flags are ignored"  # the PTX note's words
NEAR = "[Misc] Use functions instead of PTX for the PDL instruction"  # PTX alone: short of it


@pytest.fixture(scope="module")
def audit():
    path = ROOT / "scripts" / "sample_audit.py"
    spec = importlib.util.spec_from_file_location("sample_audit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    return path


def test_draw_samples_the_comments_near_misses_and_random_prs_unlabelled(tmp_path, capsys, audit):
    source = next(n.source_pr for n in load_library().notes if n.source_pr)
    graded = tmp_path / "graded"
    graded.mkdir()
    jsonl(graded / "set.jsonl", [{"number": 7, "title": COMMENTED, "relevant": {}}])
    pool = [
        {"number": 7, "title": COMMENTED},  # graded already: left out
        {"number": source, "title": "the note's own PR"},  # left out
        {"number": 8, "title": COMMENTED, "files": ["csrc/a.cu"], "changed_files": 5},
        {"number": 9, "title": NEAR},
        *({"number": 100 + i, "title": f"[Frontend] Add option {i}"} for i in range(10)),
    ]
    out = tmp_path / "audit"
    argv = ["draw", str(jsonl(tmp_path / "pool.jsonl", pool)), "--out", str(out)]
    argv += ["--graded", str(graded), "--dev", str(tmp_path / "no-dev.jsonl")]
    assert audit.main([*argv, "--near", "5", "--random", "3"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("12 PRs no graded set holds (2 left out); the matcher comments on 1")
    kinds = json.loads((out / "sample.json").read_text())
    assert kinds["8"] == "commented" and kinds["9"] == "near"
    assert sorted(kinds.values()) == ["commented", "near", "random", "random", "random"]
    to_grade = [json.loads(line) for line in (out / "to_grade.jsonl").read_text().splitlines()]
    assert {r["number"] for r in to_grade} == {int(n) for n in kinds}
    assert all(set(r) == {"number", "title"} for r in to_grade)  # graders see no sample
    drawn = {json.loads(line)["number"]: json.loads(line) for line in (out / "drawn.jsonl").open()}
    assert drawn[8] == pool[2]  # the PR as captured, for `merge`

    assert audit.main([*argv, "--near", "5", "--random", "3", "--show-files"]) == 0
    to_grade = [json.loads(line) for line in (out / "to_grade.jsonl").read_text().splitlines()]
    shown = {r["number"]: r for r in to_grade}
    assert shown[8] == {k: pool[2][k] for k in ("number", "title", "files", "changed_files")}
    assert set(shown[9]) == {"number", "title"}  # no files captured: none shown

    pool[3] |= {"labels": ["ci/build"], "body": "Prints a warning."}
    jsonl(tmp_path / "pool.jsonl", pool)
    assert audit.main([*argv, "--near", "5", "--random", "3", "--show-description"]) == 0
    to_grade = [json.loads(line) for line in (out / "to_grade.jsonl").read_text().splitlines()]
    shown = {r["number"]: r for r in to_grade}
    assert shown[9] == {k: pool[3][k] for k in ("number", "title", "labels", "body")}
    assert set(shown[8]) == {"number", "title"}  # files stay hidden without --show-files


def test_merge_adds_the_sample_and_refuses_an_incomplete_grading(tmp_path, capsys, audit):
    out = tmp_path / "audit"
    out.mkdir()
    (out / "sample.json").write_text(json.dumps({"8": "commented", "9": "random"}))
    captured = {"number": 8, "title": "t", "files": ["a.py"], "changed_files": 9}
    jsonl(out / "drawn.jsonl", [captured, {"number": 9, "title": "u"}])
    row = {"title": "t", "relevant": {}, "why": "no note"}
    # a grader's copy of the title or files does not replace the capture; what it lacks is added
    graded = jsonl(
        tmp_path / "graded.jsonl",
        [
            {"number": 9, **row, "files": ["looked/up.py"], "seen": "description"},
            {"number": 8, **row, "title": "edited", "files": [], "relevant": {"3": 2}},
        ],
    )
    assert audit.main(["merge", str(out), str(graded)]) == 0
    merged = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["number"], r["sample"]) for r in merged] == [(8, "commented"), (9, "random")]
    assert merged[0] == {**captured, "relevant": {"3": 2}, "why": "no note", "sample": "commented"}
    assert merged[1]["title"] == "u" and merged[1]["files"] == ["looked/up.py"]
    jsonl(graded, [{"number": 8, **row}, {"number": 8, **row}, {"number": 5, **row}])
    assert audit.main(["merge", str(out), str(graded)]) == 1
    err = capsys.readouterr().err
    assert "not graded ['9']; not drawn ['5']; graded twice ['8']" in err

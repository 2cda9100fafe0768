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
        {"number": 8, "title": COMMENTED},
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


def test_merge_adds_the_sample_and_refuses_an_incomplete_grading(tmp_path, capsys, audit):
    out = tmp_path / "audit"
    out.mkdir()
    (out / "sample.json").write_text(json.dumps({"8": "commented", "9": "random"}))
    row = {"title": "t", "relevant": {}, "why": "no note"}
    graded = jsonl(tmp_path / "graded.jsonl", [{"number": 9, **row}, {"number": 8, **row}])
    assert audit.main(["merge", str(out), str(graded)]) == 0
    merged = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["number"], r["sample"]) for r in merged] == [(8, "commented"), (9, "random")]
    jsonl(graded, [{"number": 8, **row}, {"number": 8, **row}, {"number": 5, **row}])
    assert audit.main(["merge", str(out), str(graded)]) == 1
    err = capsys.readouterr().err
    assert "not graded ['9']; not drawn ['5']; graded twice ['8']" in err

"""Defects found by blind review r19e (the curator's view): each test fails today."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from bot.importer import import_digest
from bot.library import DEFAULT_TOPICS_FILE
from bot.notes import parse_toml, split_front_matter

TOPICS = DEFAULT_TOPICS_FILE
TODAY = date(2026, 12, 2)

NOTE = """\
+++
id = "vllm-test0001"
repo = "vllm-project/vllm"
source_pr = 52401
verdict = "deep"
topics = ["moe-kernels"]
keywords = ["fused_moe_kernel"]
paths = ["vllm/model_executor/layers/fused_moe/fused_moe.py"]
title_zh = "MoE 内核分块调优"
title_en = "Tune the fused MoE kernel's block sizes"
summary_en = "Shows how the fused MoE kernel picks its block sizes per shape."
created = 2026-08-14
updated = 2026-12-02
+++
值得精读。正文。
"""


def write(directory: Path, text: str, name: str = "vllm-test0001.md") -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def header_fields(text: str) -> dict:
    header, _, first = split_front_matter(text, "x")
    return parse_toml(header, "x", first, "header")


def test_import_does_not_write_the_import_date_as_the_prs_creation_date(tmp_path):
    """Defect (low): `notes import` writes `created = <today>` into every new note, and
    its "next:" line asks only for topics, title_en and summary_en, so a curated note
    says its PR was created the day it was imported (the notes pages sort by it, newest
    first). A digest does not know the PR's date: the field should be left out (or the
    curator told to fill it).
    README (field table): "`created` | no | the PR's creation date"."""
    digest = tmp_path / "d.txt"
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    (path,) = import_digest(digest, tmp_path / "notes", today=TODAY).created
    assert header_fields(path.read_text("utf-8")).get("created") != TODAY


def _digest(tmp_path: Path, guidance: str) -> Path:
    digest = tmp_path / "d.txt"
    digest.write_text(f"vllm-project/vllm\n\n标题一\n\n{guidance}\n", "utf-8")
    return digest

"""`review-notes notes import`: digests in, note files out, text kept exactly."""

from __future__ import annotations

import json
import re
import resource
import shutil
import signal
import subprocess
from datetime import date
from pathlib import Path

import pytest

from bot.cli import main
from bot.db import Database
from bot.feedback import Mark
from bot.feedback_store import FeedbackStore
from bot.importer import derive_verdict, import_digest, note_id, parse_digest
from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, ROOT, check_library, load_library
from bot.note_files import LibraryError, parse_note, parse_toml, split_front_matter
from bot.notes import Verdict
from bot.prstate import PRStore
from bot.queue import DeliveryQueue
from tests.fake_github import DEFAULT_REPO
from tests.webhook_kit import PY, base_env, clean_env, clear_error, run_cli

RAW = ROOT / "seeds" / "raw"
DIGESTS = sorted(RAW.glob("*.txt"))
TODAY = date(2026, 12, 2)

# Read by hand from the two seed digests: (digest, position) -> verdict.
EXPECTED_VERDICTS = {
    ("000_592c10ca5a9ed86e.txt", 6): Verdict.SKIP,  # 值得快速合入的确定性 bugfix，不需精读
    ("000_592c10ca5a9ed86e.txt", 7): Verdict.QUICK,  # 值得快速阅读
    ("004_8895db6335a0d0f8.txt", 4): Verdict.SKIP,  # 不需要精读，属于可直接略过的
    ("004_8895db6335a0d0f8.txt", 5): Verdict.QUICK,  # 值得快速阅读，不建议深入精读
    ("004_8895db6335a0d0f8.txt", 8): Verdict.QUICK,  # 值得快速浏览 ... 无需深入精读
}


def notes_in(directory: Path) -> dict[str, str]:
    return {p.name: p.read_text("utf-8") for p in sorted(directory.iterdir())}


def header_fields(text: str) -> dict:
    """The header of a note file, whether or not it is curated yet."""
    header, _, first = split_front_matter(text, "x")
    return parse_toml(header, "x", first, "header")


def imported(tmp_path: Path) -> Path:
    out = tmp_path / "notes"
    for digest in DIGESTS:
        import_digest(digest, out, today=TODAY)
    return out


def test_seed_digests_give_sixteen_notes_with_the_right_verdicts(tmp_path):
    out = imported(tmp_path)
    notes = [header_fields(text) for text in notes_in(out).values()]
    assert len(notes) == 16
    got = {(n["source"].split("#")[0], int(n["source"].split("#")[1])): n["verdict"] for n in notes}
    assert len(got) == 16
    expected = {key: EXPECTED_VERDICTS.get(key, Verdict.DEEP) for key in got}
    assert got == expected
    counts = {v: list(got.values()).count(v) for v in Verdict}
    assert counts == {Verdict.DEEP: 11, Verdict.QUICK: 3, Verdict.SKIP: 2}


def test_titles_and_guidance_are_byte_identical_to_the_raw_paragraphs(tmp_path):
    out = imported(tmp_path)
    files = notes_in(out)
    for digest in DIGESTS:
        paragraphs = digest.read_text("utf-8").split("\n\n")  # independent of the importer
        repo, pairs = paragraphs[0], paragraphs[1:]
        assert len(pairs) == 16
        for title, guidance in zip(pairs[0::2], pairs[1::2], strict=True):
            name = f"{note_id(repo, title)}.md"
            _, body, _ = split_front_matter(files[name], name)
            assert body == guidance.removesuffix("\n") + "\n"
            assert f'title_zh = "{title}"' in files[name]


def test_ids_and_bodies_match_the_shipped_seed_notes(tmp_path):
    out = imported(tmp_path)
    shipped = notes_in(DEFAULT_NOTES_DIR)
    fresh = notes_in(out)
    assert sorted(shipped) == sorted(fresh)
    for name in shipped:  # curation never touched the guidance
        body = split_front_matter(shipped[name], name)[1]
        assert body == split_front_matter(fresh[name], name)[1]


def test_fresh_notes_wait_for_curation(tmp_path):
    out = imported(tmp_path)
    text = notes_in(out)["vllm-0341d216.md"]
    assert text.startswith(
        '+++\nid = "vllm-0341d216"\nrepo = "vllm-project/vllm"\nverdict = "deep"\n'
        'title_zh = "按 runner 选择 DSV4 eager 区域，修复 MRV1 并恢复 ROCm 默认"\n'
        'updated = 2026-12-02\nsource = "000_592c10ca5a9ed86e.txt#1"\n+++\n'
    )  # no `created`: the PR's creation date, which a digest does not know


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("值得精读。其余。", Verdict.DEEP),
        ("值得精读：它清晰展示了...", Verdict.DEEP),
        ("值得快速阅读，不建议深入精读。核心看点是...", Verdict.QUICK),
        ("值得快速浏览：它展示了...。无需深入精读。", Verdict.QUICK),
        ("值得快速合入的确定性 bugfix，不需精读。可关注的点是...", Verdict.SKIP),
        ("不需要精读，属于可直接略过的 CI 修复类 PR；但有两处值得作为经验留存", Verdict.SKIP),
        ("可直接略过。", Verdict.SKIP),
        ("不值得精读。", Verdict.SKIP),
        ("无需深入精读。", Verdict.SKIP),
        ("背景介绍。\n值得精读。", Verdict.DEEP),  # no verdict in the lead: the whole text
        ("值得精读。文中提到不需要精读的部分。", Verdict.DEEP),  # the lead wins
        ("这个 PR 很好。", None),
        # the first phrase wins, a negation where it starts
        ("不太值得精读，只是改名。", Verdict.SKIP),
        ("值得快速浏览，但不值得精读。", Verdict.QUICK),
        ("值得精读，测试部分值得快速浏览。", Verdict.DEEP),
        ("不需要深入精读，看改动即可。", Verdict.SKIP),
    ],
)
def test_verdict_from_wording(text, verdict):
    assert derive_verdict(text) == verdict


def test_crlf_bom_and_trailing_whitespace_give_the_same_notes(tmp_path):
    digest = DIGESTS[0]
    plain = digest.read_text("utf-8")
    messy = "\ufeff" + plain.replace("\n", "  \t\r\n")
    messy_file = tmp_path / digest.name
    messy_file.write_bytes(messy.encode())
    import_digest(messy_file, tmp_path / "messy", today=TODAY)
    import_digest(digest, tmp_path / "plain", today=TODAY)
    assert notes_in(tmp_path / "messy") == notes_in(tmp_path / "plain")


# a title without guidance, read the other way: its guidance lacks a verdict, the next
# entry its title
OR_NO_VERDICT = (
    "; if it is this title's guidance, it states no verdict (值得精读 / 值得快速阅读 /"
    " 值得快速浏览 / 不需要精读 / 可直接略过)"
)

MALFORMED = [
    pytest.param(
        "vllm\n\n标题\n\n值得精读。\n",
        ["1: repo: line 1 must be the repository as owner/name, got 'vllm'"],
        id="no-repo",
    ),
    # the repository's address copied from the browser, a blank line before it, or an
    #   empty file were "got 'https://...'" or "got ''": nothing of what to write
    pytest.param(
        "https://github.com/vllm-project/vllm\n\n标题\n\n值得精读。\n",
        [
            "1: repo: line 1 must be the repository as owner/name, got"
            " 'https://github.com/vllm-project/vllm': write vllm-project/vllm"
        ],
        id="repo-as-its-address",
    ),
    pytest.param(
        "\nvllm-project/vllm\n\n标题\n\n值得精读。\n",
        [
            "1: repo: line 1 must be the repository as owner/name, got '': delete the blank"
            " line before line 2"
        ],
        id="blank-line-before-the-repo",
    ),
    pytest.param(
        "",
        ["1: repo: the file is empty: line 1 is the repository as owner/name, then the entries"],
        id="empty-file",
    ),
    pytest.param("o/r\n\n\n", ["1: notes: no title/guidance blocks after line 1"], id="empty"),
    pytest.param(
        "o/r\n\n标题一\n第二行\n\n值得精读。\n",
        ["3: title: a title is one line, found 2; is a blank line missing after it?"],
        id="two-line-title",
    ),
    pytest.param(
        "o/r\n\n值得精读。没有标题。\n\n标题二\n\n值得精读。\n",
        [
            "3: title: this looks like a guidance paragraph (it states a verdict); is a title "
            "missing?"
        ],
        id="missing-title",
    ),
    # the blank line after a guidance left out, the next title
    # was read as its last line, and only the next guidance was named, "is a title missing?"
    pytest.param(
        "o/r\n\n标题一\n\n值得精读。一。\n标题二\n\n值得精读。二。\n",
        [
            "8: title: this looks like a guidance paragraph (it states a verdict); is a title "
            "missing? Line 6, the last of the paragraph above, may be it: put a blank line"
            " before it"
        ],
        id="no-blank-line-after-a-guidance",
    ),
    pytest.param(  # the paragraph above one line: no title of this one's in it
        "o/r\n\n标题一\n\n值得精读。一。\n\n值得精读。二。\n",
        [
            "7: title: this looks like a guidance paragraph (it states a verdict); is a title "
            "missing?"
        ],
        id="second-guidance-after-a-one-line-one",
    ),
    pytest.param(
        "o/r\n\n标题\n\n这是一段没有结论的说明。\n",
        [
            "5: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过)"
        ],
        id="no-verdict",
    ),
    # a verdict's words with a space, in Traditional characters or one character mistyped
    #   were "states no verdict", beside the very words: now named, with the words meant
    pytest.param(
        "o/r\n\n标题\n\n这个 PR 值得 精读。\n",
        [
            "5: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过); '值得 精读' reads as 值得精读: write it so"
        ],
        id="verdict-with-a-space",
    ),
    pytest.param(
        "o/r\n\n标题\n\n值得精讀：很好。\n",
        [
            "5: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过); '值得精讀' reads as 值得精读: write it so"
        ],
        id="verdict-in-traditional-characters",
    ),
    pytest.param(
        "o/r\n\n标题\n\n值得精度。\n",
        [
            "5: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过); '值得精度' reads as 值得精读: write it so"
        ],
        id="verdict-mistyped",
    ),
    pytest.param(
        "o/r\n\n标题\n\n值得精读。\n\n孤立的标题\n",
        [  # a title, or the guidance's second paragraph: the digest cannot tell
            "7: guidance: title without a guidance paragraph; if line 7 goes on with the"
            " guidance above, delete the blank line before it: a guidance is one paragraph"
        ],
        id="title-without-guidance",
    ),
    # kills: bot/importer.py:parse_digest (hand) a title whose guidance was left out: the
    #   next entry's title taken for its guidance ("5: verdict: states no verdict") and
    #   that entry's guidance for a title ("7: title: ...is a title missing?"): two
    #   problems, neither on the title the guidance is missing from
    pytest.param(
        "o/r\n\n标题一\n\n标题二\n\n值得精读。二。\n\n标题三\n\n说明。\n",
        [
            "3: guidance: title without a guidance paragraph: line 5 is the next entry's"
            " title (the paragraph after it states a verdict)" + OR_NO_VERDICT,
            "11: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过)",
        ],
        id="title-without-guidance-before-an-entry",
    ),
    pytest.param(  # the entry after it the digest's last
        "o/r\n\n标题一\n\n标题二\n\n值得精读。二。\n",
        [
            "3: guidance: title without a guidance paragraph: line 5 is the next entry's"
            " title (the paragraph after it states a verdict)" + OR_NO_VERDICT
        ],
        id="title-without-guidance-before-the-last-entry",
    ),
    # kills: bot/importer.py:parse_digest (hand) a guidance stating no verdict, its next
    #   entry's title left out, said to be a title: only "title without a guidance
    #   paragraph: line 5 is the next entry's title", of a paragraph that is its guidance
    pytest.param(
        "o/r\n\n标题一\n\n说明一没有结论。\n\n值得精读。二。\n\n标题三\n\n值得精读。三。\n",
        [
            "3: guidance: title without a guidance paragraph: line 5 is the next entry's"
            " title (the paragraph after it states a verdict)" + OR_NO_VERDICT
        ],
        id="guidance-without-verdict-before-a-title-left-out",
    ),
    # a tab in a title (pasted from a table) made a note `notes check` refuses ("title_zh:
    # holds a tab"), under an id derived from the tab: said in the digest, on its line
    pytest.param(
        "o/r\n\n标题\t一\n\n值得精读。\n",
        ["3: title: holds a tab (U+0009), which a title prints as typed: type a space"],
        id="tab-in-title",
    ),
    # an "empty" line pasted from a rich-text editor (a zero-width space) made a note with
    # no title to show: the comment wrote `**1. **`
    pytest.param(
        "o/r\n\n\u200b\n\n值得精读。\n",
        [
            "3: title: holds only invisible characters (U+200B first), which no title shows:"
            " write it"
        ],
        id="invisible-title",
    ),
    pytest.param(
        "o/r\n\n标题\n\n值得精读。\n\n标题\n\n可直接略过。\n",
        ["7: title: duplicate title (first at line 3): it would give the same id"],
        id="duplicate-title",
    ),
    pytest.param(
        "o/r\n\n标题一\n第二行\n\n值得精读。\n\n标题二\n\n说明。\n",
        [
            "3: title: a title is one line, found 2; is a blank line missing after it?",
            "10: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过)",
        ],
        id="every-problem-at-once",
    ),
    # the blank line between a title and its guidance left out: the entry after it was
    #   read as that guidance, and the next two blocks out of step (a title told it states
    #   no verdict, the guidance's real problem not named)
    pytest.param(
        "o/r\n\n标题一\n值得精读。一。\n\n标题二\n\n说明。\n\n标题三\n",
        [
            "3: title: a title is one line, found 2; is a blank line missing after it?",
            "8: verdict: the guidance states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / "
            "不需要精读 / 可直接略过)",
            "10: guidance: title without a guidance paragraph",
        ],
        id="title-and-guidance-run-together",
    ),
    # a guidance written in two paragraphs: its second was told it is a title without a
    #   guidance, or the next title's, naming neither the blank line nor the fix
    pytest.param(
        "o/r\n\n标题一\n\n值得精读。一。\n\n第二段。\n",
        [
            "7: guidance: title without a guidance paragraph; if line 7 goes on with the"
            " guidance above, delete the blank line before it: a guidance is one paragraph"
        ],
        id="guidance-in-two-paragraphs-last",
    ),
    pytest.param(
        "o/r\n\n标题一\n\n值得精读。一。\n\n第二段，\n第二行。\n\n标题二\n\n值得精读。二。\n",
        [
            "7: title: a title is one line, found 2; is a blank line missing after it? If line 7"
            " goes on with the guidance above, delete the blank line before it: a guidance is"
            " one paragraph"
        ],
        id="guidance-in-two-paragraphs-multi-line",
    ),
    pytest.param(
        "o/r\n\n标题一\n\n值得精读。一。\n\n第二段。\n\n标题二\n\n值得精读。二。\n",
        [
            "7: guidance: title without a guidance paragraph: line 9 is the next entry's title"
            " (the paragraph after it states a verdict); if it is this title's guidance, it"
            " states no verdict (值得精读 / 值得快速阅读 / 值得快速浏览 / 不需要精读 / 可直接略过);"
            " if line 7 goes on with the guidance above, delete the blank line before it: a"
            " guidance is one paragraph"
        ],
        id="guidance-in-two-paragraphs-then-an-entry",
    ),
]


@pytest.mark.parametrize(("text", "expected"), MALFORMED)
def test_malformed_digest_names_file_line_field_and_writes_nothing(tmp_path, text, expected):
    digest = tmp_path / "bad.txt"
    digest.write_text(text, "utf-8")
    out = tmp_path / "notes"
    with pytest.raises(LibraryError) as exc:
        import_digest(digest, out, today=TODAY)
    assert str(exc.value).splitlines() == [f"{digest}:{e}" for e in expected]
    assert not out.exists() or not any(out.iterdir())


def test_malformed_digest_via_cli(tmp_path, capsys):
    digest = tmp_path / "bad.txt"
    digest.write_bytes("o/r\n\n标题\n\n值得精读。\n".encode() + b"\n\xff\n")
    out = tmp_path / "notes"
    assert main(["notes", "import", str(digest), "--notes-dir", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == f"{digest}:7: file: not UTF-8: invalid start byte\n{digest}: nothing written\n"
    assert not out.exists()
    assert main(["notes", "import", str(tmp_path / "missing.txt"), "--notes-dir", str(out)]) == 1
    assert "missing.txt:1: file: cannot read: No such file or directory" in capsys.readouterr().err


def test_import_without_notes_dir_writes_into_the_servers_library(tmp_path, capsys, monkeypatch):
    # a curator importing on the deployment adds to the notes the bot serves
    monkeypatch.chdir(tmp_path)
    served = tmp_path / "served"
    monkeypatch.setenv("REVIEW_NOTES_NOTES_DIR", str(served))
    assert main(["notes", "import", str(DIGESTS[0])]) == 0
    assert len(list(served.glob("*.md"))) == 8
    assert f"{DIGESTS[0]}: 8 created" in capsys.readouterr().out


AS_WRITTEN_TITLE = "调度器抢占路径修复"


def moved_to_its_as_written_id(tmp_path, edit=lambda text: text) -> tuple[Path, Path, Path]:
    """A note imported from a digest whose repository line is `VLLM-Project/vllm`, moved
    to the id hashing the repository as written (its id before ids ignored case), its
    text changed by `edit`: the notes directory, the digest and the moved note."""
    out, digest = tmp_path / "notes", tmp_path / "d.txt"
    body = f"VLLM-Project/vllm\n\n{AS_WRITTEN_TITLE}\n\n值得精读。核心是释放顺序。\n"
    digest.write_text(body, "utf-8")
    (created,) = import_digest(digest, out, today=TODAY).created
    earlier = note_id("VLLM-Project/vllm", AS_WRITTEN_TITLE, as_written=True)
    assert earlier != created.stem
    old = out / f"{earlier}.md"
    old.write_text(edit(created.read_text("utf-8").replace(created.stem, earlier)), "utf-8")
    created.unlink()
    return out, digest, old


def test_reimport_finds_a_note_whose_id_hashed_the_repository_as_written(tmp_path):
    # ids hashed the repository as the digest wrote it before they ignored its case: such
    # a note must be found again, not doubled under a new id
    out, digest, old = moved_to_its_as_written_id(tmp_path)
    result = import_digest(digest, out, today=TODAY)
    assert (result.created, result.unchanged) == ([], [old])
    assert sorted(p.name for p in out.iterdir()) == [old.name]


def test_reimport_is_a_no_op(tmp_path, capsys):
    out = imported(tmp_path)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()}
    for digest in DIGESTS:
        assert main(["notes", "import", str(digest), "--notes-dir", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{d}: 0 created, 0 updated, 8 unchanged, 0 kept" for d in DIGESTS
    ]
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before
    for digest in DIGESTS:  # --force with nothing new rewrites nothing either
        result = import_digest(digest, out, force=True, today=date(2027, 1, 1))
        assert (result.created, result.updated, len(result.unchanged)) == ([], [], 8)
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.iterdir()} == before


def test_reimport_with_the_repository_in_another_case_is_a_no_op(tmp_path):
    # GitHub's repository names ignore case: `VLLM-Project/vllm` is the same repository,
    # the same notes (the id hashed the repo as written: a second note, same guidance)
    out = tmp_path / "notes"
    digest = tmp_path / "d.txt"
    body = "\n\n调度器抢占路径修复\n\n值得精读。核心是释放顺序。\n"
    digest.write_text("vllm-project/vllm" + body, "utf-8")
    (created,) = import_digest(digest, out, today=TODAY).created
    digest.write_text("VLLM-Project/vllm" + body, "utf-8")
    result = import_digest(digest, out, today=TODAY)
    assert (result.created, result.kept, result.unchanged) == ([], [], [created])
    assert list(out.iterdir()) == [created]
    assert note_id("VLLM-Project/vllm", "t") == note_id("vllm-project/vllm", "t")


def test_shipped_notes_keep_the_ids_the_importer_gives():
    # never change an id: the shipped repos are lower case, ids hashed them as written
    for path in DEFAULT_NOTES_DIR.glob("*.md"):
        note = parse_note(path.read_text("utf-8"), str(path))
        assert (
            note.id
            == note_id(note.repo, note.title_zh)
            == note_id("vllm-project/vllm", note.title_zh)
        )


def test_reimport_finds_notes_a_curator_moved_into_sub_folders(tmp_path):
    out = imported(tmp_path)
    (out / "by-topic").mkdir()
    for p in list(out.glob("*.md"))[:5]:
        p.rename(out / "by-topic" / p.name)
    for digest in DIGESTS:
        result = import_digest(digest, out, force=False, today=date(2027, 1, 1))
        assert result.created == [] and len(result.unchanged) == 8
    assert len(list(out.rglob("*.md"))) == 16  # no copy written beside the moved ones


def _edited_digest(tmp_path: Path) -> Path:
    """The first seed digest with the first guidance reworded (same title, same id)."""
    text = DIGESTS[0].read_text("utf-8")
    first_guidance = text.split("\n\n")[2]
    edited = tmp_path / DIGESTS[0].name
    edited.write_text(text.replace(first_guidance, "值得快速阅读。改写后的说明。"), "utf-8")
    return edited


def shipped_notes(tmp_path: Path) -> Path:
    """A copy of the shipped notes to import into."""
    out = tmp_path / "notes"
    out.mkdir()
    for name, text in notes_in(DEFAULT_NOTES_DIR).items():
        (out / name).write_text(text, "utf-8")
    return out


def test_curated_note_is_kept_without_force_and_refreshed_with_it(tmp_path, capsys):
    out = shipped_notes(tmp_path)
    target = out / "vllm-0341d216.md"
    curated = parse_note(target.read_text("utf-8"), "x")
    digest = _edited_digest(tmp_path)

    assert main(["notes", "import", str(digest), "--notes-dir", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"kept    {target} (differs from the digest; --force refreshes its digest fields)",
        f"{digest}: 0 created, 0 updated, 7 unchanged, 1 kept",
    ]
    assert parse_note(target.read_text("utf-8"), "x") == curated

    result = import_digest(digest, out, force=True, today=date(2027, 1, 5))
    assert result.updated == [target] and len(result.unchanged) == 7
    refreshed = parse_note(target.read_text("utf-8"), "x")
    assert refreshed.guidance == "值得快速阅读。改写后的说明。"
    assert refreshed.verdict is Verdict.QUICK
    assert refreshed.updated == date(2027, 1, 5)
    keep = {"guidance", "verdict", "updated"}
    assert refreshed.model_dump(exclude=keep) == curated.model_dump(exclude=keep)


def test_force_keeps_the_curators_other_header_lines_and_comments(tmp_path):
    out = shipped_notes(tmp_path)
    target = out / "vllm-0341d216.md"
    before = target.read_text("utf-8")
    commented = before.replace(
        "\nkeywords = [", "\n# keywords trimmed after audit 6: see bench/graded\nkeywords = [", 1
    )
    target.write_text(commented, "utf-8")
    result = import_digest(_edited_digest(tmp_path), out, force=True, today=date(2027, 1, 5))
    assert result.updated == [target]
    after = target.read_text("utf-8")
    assert "# keywords trimmed after audit 6: see bench/graded\n" in after
    old_lines = commented.split("+++")[1].splitlines()
    new_lines = after.split("+++")[1].splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert [a.split(" =")[0] for a, _ in changed] == ["verdict", "updated"]  # only those lines


def test_force_keeps_a_comment_on_a_line_whose_value_did_not_change(tmp_path):
    # only the refreshed lines are rewritten: `repo` and `verdict` lines the digest agrees
    # with keep their comments (and a repository in another case stays as written)
    out = tmp_path / "notes"
    digest = tmp_path / "d.txt"
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。第一版。\n", "utf-8")
    (path,) = import_digest(digest, out, today=TODAY).created
    text = path.read_text("utf-8")
    text = text.replace('repo = "vllm-project/vllm"', 'repo = "VLLM-project/vllm"  # upstream')
    text = text.replace('verdict = "deep"', 'verdict = "deep"  # checked by hand')
    path.write_text(text, "utf-8")
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。第二版。\n", "utf-8")
    assert import_digest(digest, out, force=True, today=date(2027, 1, 5)).updated == [path]
    after = path.read_text("utf-8")
    assert after == text.replace("第一版", "第二版").replace(
        f"updated = {TODAY}", "updated = 2027-01-05"
    )


def test_force_adds_a_refreshed_field_the_header_lacks_and_keeps_comments(tmp_path):
    out = shipped_notes(tmp_path)
    target = out / "vllm-0341d216.md"
    text = target.read_text("utf-8")
    text = re.sub(r"\nupdated = [0-9-]+", "\n# updated left out on purpose", text, count=1)
    target.write_text(text, "utf-8")
    result = import_digest(_edited_digest(tmp_path), out, force=True, today=date(2027, 1, 5))
    assert result.updated == [target]
    after = target.read_text("utf-8")
    assert "# updated left out on purpose" in after and "updated = 2027-01-05" in after


def test_force_refuses_rather_than_lose_a_comment_it_cannot_keep(tmp_path):
    out = shipped_notes(tmp_path)
    target = out / "vllm-0341d216.md"
    text = target.read_text("utf-8")
    # a header field the import refreshes, written over two lines, and a comment
    for comment in ("\n# why deep", "  # why deep", "\n    # why deep"):  # any place
        multi = text.replace('verdict = "deep"', f'verdict = """\ndeep"""{comment}', 1)
        target.write_text(multi, "utf-8")
        with pytest.raises(LibraryError, match="lose its comments"):
            import_digest(_edited_digest(tmp_path), out, force=True, today=date(2027, 1, 5))
        assert target.read_text("utf-8") == multi  # nothing written


def test_force_does_not_touch_anything_when_a_note_cannot_be_merged(tmp_path):
    out = imported(tmp_path)
    broken = out / "vllm-0341d216.md"
    broken.write_text("+++\nverdict = deep\n+++\ntext\n", "utf-8")
    other = out / "vllm-0436d44c.md"
    other.write_text(other.read_text("utf-8").replace("值得精读", "值得快速阅读"), "utf-8")
    garbled = out / "vllm-dea4fb5e.md"
    garbled.write_bytes(garbled.read_bytes().replace("值得".encode(), b"\xff"))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(LibraryError) as exc:
        import_digest(DIGESTS[0], out, force=True, today=TODAY)
    assert str(exc.value).splitlines() == [
        f'{broken}:2: verdict: deep is no TOML value: text takes quotes: "deep"',
        f"{garbled}:9: file: not UTF-8: invalid start byte",  # no `created` line,
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    result = import_digest(DIGESTS[0], out, today=TODAY)  # without --force they are just kept
    assert sorted(result.kept) == [broken, other, garbled]


def test_writes_leave_no_temporary_files(tmp_path):
    out = imported(tmp_path)
    import_digest(_edited_digest(tmp_path), out, force=True, today=TODAY)
    assert all(p.suffix == ".md" and not p.name.startswith(".") for p in out.iterdir())


def test_parse_digest_positions():
    text = "o/r\n\n\nT1\n\nG1 值得精读\n第二行\n\n\nT2\n\n可直接略过\n"
    repo, entries = parse_digest(text, "d.txt")
    assert repo == "o/r"
    assert [(e.title, e.guidance, e.line, e.index) for e in entries] == [
        ("T1", "G1 值得精读\n第二行", 4, 1),
        ("T2", "可直接略过", 10, 2),
    ]


# --- a renamed or retitled note, found again by an import ------------------------------


def test_a_renamed_note_imported_again_is_not_a_second_note(tmp_path, capsys):
    # docs/curating.md: the id "never change it"; a curator renames one anyway (file and id, as
    # `notes check` asks). Importing the digest again, which docs/curating.md calls a no-op,
    # created the note anew under its old id ("1 created": the importer found notes by
    # their derived id only), and once its fields were filled in `notes check` said ok
    # with the same guidance twice. The importer now also finds a note by what the id is
    # derived from, its repository and Chinese title: the import changes nothing.
    notes = tmp_path / "notes"
    shutil.copytree(DEFAULT_NOTES_DIR, notes)
    old = notes / "vllm-64eca4f8.md"
    renamed = notes / "elastic" / "vllm-elastic-ep-deadlock.md"  # in a sub-folder too
    renamed.parent.mkdir()
    renamed.write_text(
        old.read_text("utf-8").replace('id = "vllm-64eca4f8"', 'id = "vllm-elastic-ep-deadlock"'),
        "utf-8",
    )
    old.unlink()
    before = {p: p.read_bytes() for p in notes.rglob("*.md")}
    digest = ROOT / "seeds" / "raw" / "004_8895db6335a0d0f8.txt"
    assert main(["notes", "import", "--notes-dir", str(notes), str(digest)]) == 0
    assert capsys.readouterr().out == f"{digest}: 0 created, 0 updated, 8 unchanged, 0 kept\n"
    assert {p: p.read_bytes() for p in notes.rglob("*.md")} == before
    # --force refreshes the renamed file when the digest's guidance changed
    edited = tmp_path / digest.name
    edited.write_text(
        digest.read_text("utf-8").replace("核心设计决策是", "核心设计决策（修订）是"), "utf-8"
    )
    result = import_digest(edited, notes, force=True, today=TODAY)
    assert (result.created, result.updated) == ([], [renamed])
    assert "核心设计决策（修订）是" in renamed.read_text("utf-8")
    assert not old.exists()


def _a_digest_retitling_a_note(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    """The shipped notes copied, and a copy of a seed digest that gives its first entry
    another Chinese title: (notes dir, that digest, the note's file, its old title)."""
    notes = tmp_path / "notes"
    shutil.copytree(DEFAULT_NOTES_DIR, notes)
    digest = ROOT / "seeds" / "raw" / "004_8895db6335a0d0f8.txt"
    lines = digest.read_text("utf-8").split("\n")
    old_title = lines[2]
    retitled = tmp_path / digest.name
    retitled.write_text("\n".join([*lines[:2], old_title + "（修订）", *lines[3:]]), "utf-8")
    (note,) = [p for p in notes.glob("*.md") if f'title_zh = "{old_title}"' in p.read_text()]
    return notes, retitled, note, old_title


def test_an_entry_the_digest_retitled_is_found_by_its_guidance_not_made_a_second_note(
    tmp_path, capsys
):
    # A digest whose Chinese title of an entry was changed (the id's source) made the
    # note anew: the same guidance twice in the library, and on every PR it matched
    notes, retitled, note, old_title = _a_digest_retitling_a_note(tmp_path)
    before = {p: p.read_bytes() for p in notes.rglob("*.md")}
    assert main(["notes", "import", "--notes-dir", str(notes), str(retitled)]) == 0
    out = capsys.readouterr().out
    assert f"kept    {note} (the digest gives it another Chinese title, with the same" in out
    assert out.endswith(f"{retitled}: 0 created, 0 updated, 7 unchanged, 1 kept\n")
    assert {p: p.read_bytes() for p in notes.rglob("*.md")} == before
    result = import_digest(retitled, notes, force=True, today=TODAY)
    assert (result.created, result.updated) == ([], [note])  # its id and file stay
    assert f'title_zh = "{old_title}（修订）"' in note.read_text("utf-8")
    assert import_digest(retitled, notes, today=TODAY).unchanged.count(note) == 1
    assert sorted(notes.rglob("*.md")) == sorted(before)


# --- a bad --notes-dir, named as itself and not as the digest ---


@pytest.mark.parametrize("kind", ["file", "unmakeable"])
def test_notes_import_bad_notes_dir_names_the_notes_dir_not_the_digest(tmp_path, kind):
    # "digest.txt:1: file: cannot read: File exists": the digest reads fine; the
    # --notes-dir (a file, or a directory that cannot be made) is the problem.
    digest = tmp_path / "digest.txt"
    digest.write_text("vllm-project/vllm\n\n标题\n\n值得精读。正文。\n", "utf-8")
    target = tmp_path / "notes.toml"
    target.write_text("x = 1\n")
    notes_dir = target if kind == "file" else target / "notes"
    r = run_cli(tmp_path, "notes", "import", "--notes-dir", str(notes_dir), str(digest))
    clear_error(r, str(target))
    assert "digest.txt:1: file: cannot read" not in r.stderr, r.stderr


# --- what --force overwrites and keeps; a note that does not read; the created date ---


def test_force_import_of_another_digest_with_the_same_title_overwrites_an_unrelated_note(
    tmp_path,
):
    """Defect (medium): a note is found by its repository and Chinese title only, and
    `notes import` refuses a duplicate title inside one digest ("it would give the same
    id") but not across digests. A later digest about another PR whose entry happens to
    carry the same short title (调整 CI 中 lint 脚本的顺序) is taken for the existing note:
    without --force the import says "kept ... differs from the digest; --force refreshes
    its digest fields", and with --force the first PR's guidance and verdict are replaced
    by the second PR's, under the first note's curated source_pr, topics and keywords. The
    first guidance is gone from the library, and nothing said so.
    docs/curating.md: "With `--force`, a note whose guidance changed in the digest
    gets the digest's title, guidance and verdict"; the team's standard: "Bad input gets a
    clear error and loses nothing". It is another digest's note, not a changed one."""
    out = tmp_path / "notes"
    first = tmp_path / "d1.txt"
    first.write_text(
        "vllm-project/vllm\n\n调整 CI 中 lint 脚本的顺序\n\n"
        "不需要精读。仅调整 pre-commit 钩子顺序，没有行为变化。\n",
        "utf-8",
    )
    (path,) = import_digest(first, out, today=TODAY).created
    # the curator curates it (its PR, topics, English lines)
    text = path.read_text("utf-8").replace(
        'verdict = "skip"\n',
        'source_pr = 50001\nverdict = "skip"\ntopics = ["hardware-ci"]\n'
        'title_en = "Reorder the lint hooks"\nsummary_en = "Only the hook order changes."\n',
    )
    path.write_text(text, "utf-8")
    assert check_library(out, DEFAULT_TOPICS_FILE)[1] == []

    # weeks later, another digest: another PR, by chance the same short title
    second = tmp_path / "d2.txt"
    second.write_text(
        "vllm-project/vllm\n\n调整 CI 中 lint 脚本的顺序\n\n"
        "值得快速阅读。这是另一个 PR：把 ruff 移到 mypy 之前，"
        "并修复 `format.sh` 在 macOS 上的问题。\n",
        "utf-8",
    )
    try:
        import_digest(second, out, force=True, today=date(2027, 1, 5))
    except LibraryError:
        pass  # refusing the collision, naming it, would be fine
    library_text = "".join(p.read_text("utf-8") for p in sorted(out.rglob("*.md")))
    assert "仅调整 pre-commit 钩子顺序，没有行为变化。" in library_text, (
        "the first PR's guidance was overwritten by another digest's note:\n"
        + path.read_text("utf-8")
    )


def test_a_note_from_another_digest_with_the_same_title_is_reported_not_kept_silently(
    tmp_path, capsys
):
    # without --force the entry is not imported either: the curator is told why and
    # what to do, and setting the note's `source` to the entry's lets --force refresh it
    out = tmp_path / "notes"
    first, second = tmp_path / "d1.txt", tmp_path / "d2.txt"
    first.write_text("vllm-project/vllm\n\n调整 lint 顺序\n\n不需要精读。第一个 PR。\n", "utf-8")
    second.write_text("vllm-project/vllm\n\n调整 lint 顺序\n\n值得快速阅读。另一个。\n", "utf-8")
    (path,) = import_digest(first, out, today=TODAY).created
    before = path.read_bytes()
    assert main(["notes", "import", str(second), "--notes-dir", str(out)]) == 1
    said = capsys.readouterr()
    assert (
        f"kept    {path} (not refreshed: another digest's note: see the problem below)" in said.out
    )
    assert said.err.startswith(f"{path}:7: source: this note came from another digest (d1.txt#1)")
    assert "give it a title of its own in the digest" in said.err
    assert 'set `source = "d2.txt#1"` here' in said.err
    assert path.read_bytes() == before
    path.write_text(before.decode().replace("d1.txt#1", "d2.txt#1"), "utf-8")
    assert import_digest(second, out, force=True, today=TODAY).updated == [path]
    assert path.read_text("utf-8").endswith("值得快速阅读。另一个。\n")


def test_force_does_not_drop_a_comment_on_a_line_it_rewrites(tmp_path):
    """Defect (low-medium): `notes import --force` rewrites a refreshed single-line field
    whole, so a curator's comment after it (`verdict = "deep"  # deep: audit 6 found the
    race`) disappears, without a word, when the digest's verdict changes. The same
    comment on a verdict written over two lines makes --force refuse ("would ... lose its
    comments; refresh the note by hand", tests/test_importer.py), so the loss is not
    intended; the comment could be kept after the new value, or the note reported.
    docs/curating.md: --force keeps "every other header line as written, comments included ... a
    header where that is impossible and that holds a comment is reported, not
    rewritten"; standard: "loses nothing"."""
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    text = path.read_text("utf-8").replace(
        'verdict = "deep"', 'verdict = "deep"  # deep: audit 6 found the race'
    )
    path.write_text(text, "utf-8")
    try:
        import_digest(
            _digest(tmp_path, "值得快速阅读。第二版。"), out, force=True, today=date(2027, 1, 5)
        )
    except LibraryError:
        pass  # reported, not rewritten: fine
    assert "# deep: audit 6 found the race" in path.read_text("utf-8"), path.read_text("utf-8")


def _digest(tmp_path: Path, guidance: str) -> Path:
    digest = tmp_path / "d.txt"
    digest.write_text(f"vllm-project/vllm\n\n标题一\n\n{guidance}\n", "utf-8")
    return digest


def test_force_keeps_a_comment_after_the_value_it_rewrites_and_says_so(tmp_path, capsys):
    # the comment may be about the old value: the curator is pointed at its line
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    text = path.read_text("utf-8").replace('verdict = "deep"', 'verdict = "deep"\t# why: the race')
    path.write_text(text, "utf-8")
    digest = _digest(tmp_path, "值得快速阅读。第二版。")
    assert main(["notes", "import", "--force", str(digest), "--notes-dir", str(out)]) == 0
    assert 'verdict = "quick"\t# why: the race\n' in path.read_text("utf-8")
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"updated {path} (title, guidance and verdict from the digest)",
        f"{path}:4: verdict: value refreshed; its comment stays: check it still holds",
    ]


def test_force_rewrites_a_header_without_comments_whose_key_is_indented(tmp_path, capsys):
    """Defect (low): a note whose `verdict` line is indented (`  verdict = "deep"`, valid
    TOML, `notes check` says ok) and that holds no comment at all is refused by `notes
    import --force` with "--force would rewrite this header and lose its comments (a
    field it refreshes spans several lines); refresh the note by hand": there is no
    comment (the `#` it saw is the one in `source = "d.txt#1"`, which every imported note
    has) and no field spans several lines. The curator is sent to edit by hand for a
    reason that is false.
    docs/curating.md: with --force a changed note gets the digest's title, guidance and verdict;
    only "a header where that is impossible and that holds a comment is reported"."""
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    text = path.read_text("utf-8").replace('\nverdict = "deep"', '\n  verdict = "deep"')
    path.write_text(text, "utf-8")
    assert not any(line.lstrip().startswith("#") for line in text.split("\n"))
    digest = _digest(tmp_path, "值得快速阅读。第二版。")
    status = main(["notes", "import", "--force", str(digest), "--notes-dir", str(out)])
    err = capsys.readouterr().err
    assert "lose its comments" not in err, err
    assert status == 0
    assert path.read_text("utf-8").endswith("值得快速阅读。第二版。\n")


def test_import_does_not_call_a_note_that_does_not_read_different_from_the_digest(tmp_path, capsys):
    """Defect (low): `notes import` (no --force) over a note whose header is malformed
    (an unclosed string: `notes check` names it) prints "kept <file> (differs from the
    digest; --force refreshes its digest fields)" and exits 0. It cannot know that the
    note differs (it did not read it), the problem is not named, and the advice sends the
    curator to --force, which then fails on the TOML error.
    Standard: "Bad input gets a clear error ... a malformed note names file, line and
    field"."""
    out = tmp_path / "notes"
    digest = _digest(tmp_path, "值得精读。第一版。")
    (path,) = import_digest(digest, out, today=TODAY).created
    text = path.read_text("utf-8").replace('title_zh = "标题一"', 'title_zh = "标题一')
    path.write_text(text, "utf-8")
    assert check_library(out, DEFAULT_TOPICS_FILE)[1]  # malformed: check says so
    main(["notes", "import", str(digest), "--notes-dir", str(out)])
    said = capsys.readouterr()
    assert "differs from the digest" not in said.out + said.err, said.out


def test_import_names_a_note_that_does_not_read_and_keeps_it(tmp_path, capsys):
    out = tmp_path / "notes"
    digest = _digest(tmp_path, "值得精读。第一版。")
    (path,) = import_digest(digest, out, today=TODAY).created
    text = path.read_text("utf-8").replace('title_zh = "标题一"', 'title_zh = "标题一')
    path.write_text(text, "utf-8")
    assert main(["notes", "import", str(digest), "--notes-dir", str(out)]) == 1
    said = capsys.readouterr()
    assert said.out.splitlines()[0] == (
        f"kept    {path} (not compared with the digest: it does not read: see the problem below)"
    )
    assert said.err.startswith(f"{path}:5: title_zh: string not closed on its line")
    assert path.read_text("utf-8") == text


def test_import_does_not_write_the_import_date_as_the_prs_creation_date(tmp_path):
    """Defect (low): `notes import` writes `created = <today>` into every new note, and
    its "next:" line asks only for topics, title_en and summary_en, so a curated note
    says its PR was created the day it was imported (the notes pages sort by it, newest
    first). A digest does not know the PR's date: the field should be left out (or the
    curator told to fill it).
    docs/curating.md (field table): "`created` | no | the PR's creation date"."""
    digest = tmp_path / "d.txt"
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    (path,) = import_digest(digest, tmp_path / "notes", today=TODAY).created
    assert header_fields(path.read_text("utf-8")).get("created") != TODAY


def test_import_asks_the_curator_for_the_prs_creation_date(tmp_path, capsys):
    digest = _digest(tmp_path, "值得精读。正文。")
    assert main(["notes", "import", str(digest), "--notes-dir", str(tmp_path / "notes")]) == 0
    (hint,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("next:")]
    assert "the PR's creation date as created" in hint and "source_pr" in hint


# --- one PR's entry in two digests: collisions, with and without --force ---

NOTES = ROOT / "seeds" / "notes"
FIRST = "000_592c10ca5a9ed86e.txt"
EAGLE_TITLE = "修复 EAGLE 分支在部分哈希命中路径上丢失缓存注册"  # 000_592c10ca5a9ed86e.txt#2


def _curators_library(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the shipped digests and notes, as a curator has them."""
    raw, notes = tmp_path / "raw", tmp_path / "notes"
    shutil.copytree(RAW, raw)
    shutil.copytree(NOTES, notes)
    return raw, notes


def _digest_blocks(path: Path) -> list[str]:
    return path.read_text("utf-8").rstrip("\n").split("\n\n")


def _eagle_note(notes: Path) -> Path:
    (path,) = [p for p in notes.glob("*.md") if EAGLE_TITLE in p.read_text("utf-8")]
    return path


def _follow_up_digest(raw: Path) -> Path:
    """A later digest holding the same PR's entry (same title), its guidance extended."""
    blocks = _digest_blocks(raw / FIRST)
    assert blocks[3] == EAGLE_TITLE
    later = raw / "005_followup.txt"
    later.write_text(
        f"{blocks[0]}\n\n{blocks[3]}\n\n{blocks[4]}（补充：PR 52500 随后补上了测试。）\n", "utf-8"
    )
    return later


def test_the_collision_way_out_breaks_the_ordinary_force_import_of_all_digests(tmp_path, capsys):
    """Defect (medium): two digests holding one PR's entry (a later digest repeats it with
    more guidance). The import reports the collision and says what to do: "if it is this
    note's guidance, moved to this digest, set `source = "005_followup.txt#1"` here and
    import with --force". The curator does so. From then on the workflow docs/curating.md gives for
    refreshing notes, `notes import --force seeds/raw/*.txt`, fails on every run: the old
    digest's entry now collides the other way (its message asks to set `source` back to
    000_...#2, a ping-pong), exit 1, and "000_...: nothing written", so no other change
    of that digest (an edited guidance, a new entry) is ever imported with --force, and
    `notes import seeds/raw/*.txt` exits 1 forever too. The only ways out are editing the
    raw digest (dropping the entry) or giving it a new title, which creates a duplicate
    note of the same PR. Before 4c38ee7 the same run exited 0 (refreshing the
    note from each digest in turn, the later digest last)."""
    raw, notes = _curators_library(tmp_path)
    later = _follow_up_digest(raw)
    note = _eagle_note(notes)
    assert main(["notes", "import", str(later), "--notes-dir", str(notes)]) == 1
    said = capsys.readouterr().err
    assert 'set `source = "005_followup.txt#1"` here and import with --force' in said
    note.write_text(
        note.read_text("utf-8").replace(f'"{FIRST}#2"', '"005_followup.txt#1"'), "utf-8"
    )
    assert main(["notes", "import", "--force", str(later), "--notes-dir", str(notes)]) == 0
    capsys.readouterr()

    # the old digest gets another entry's guidance edited, as digests are
    first = raw / FIRST
    blocks = _digest_blocks(first)
    blocks[6] += "（修订）"
    first.write_text("\n\n".join(blocks) + "\n", "utf-8")

    digests = [str(p) for p in sorted(raw.glob("*.txt"))]
    status = main(["notes", "import", "--force", *digests, "--notes-dir", str(notes)])
    said = capsys.readouterr()
    library = "".join(p.read_text("utf-8") for p in notes.glob("*.md"))
    assert status == 0 and "（修订）" in library, (
        f"after the way out the import told of, `notes import --force seeds/raw/*.txt`"
        f" exits {status} and refreshes nothing of {FIRST}:\n{said.err[-900:]}"
    )


def test_one_collision_under_force_withholds_every_other_entry_of_the_digest(tmp_path):
    """Defect (low-medium): with --force, a collision (a note from another digest with an
    entry's title) is a problem of the whole plan, so nothing of the digest is written:
    not the other notes whose guidance changed, and not the digest's new entries. Without
    --force the same run creates the new notes and keeps only the colliding one, so
    `--force` does less than a plain import, and a curator refreshing a new digest that
    repeats one title of an old one gets none of its new notes (docs/curating.md: "importing
    creates" the digest's notes; the collision "is never refreshed" — that note, not the
    rest)."""
    raw, notes = _curators_library(tmp_path)
    other = raw / "006_next.txt"
    other.write_text(
        "vllm-project/vllm\n\n"
        f"{EAGLE_TITLE}\n\n值得快速阅读。另一个 PR 碰巧用了同一个标题。\n\n"
        "新增 CPU offload 的单元测试\n\n不需要精读。只加了测试。\n",
        "utf-8",
    )
    plain = tmp_path / "plain"
    shutil.copytree(notes, plain)
    created = import_digest(other, plain).created
    assert len(created) == 1  # without --force: the new entry's note, the collision kept
    try:
        result = import_digest(other, notes, force=True)
        made = result.created
    except Exception as exc:  # LibraryError: the collision
        made, why = [], exc
    else:
        why = None
    assert len(made) == 1, (
        f"--force created none of the digest's new notes because one entry collides: {why}"
    )


def test_an_earlier_digests_entry_of_a_note_that_follows_a_later_one_is_a_notice(tmp_path, capsys):
    # the way out taken (the note's `source` set to the later digest's entry): importing
    # the earlier digest alone says the entry was not imported, and why, and exits 0;
    # the note is left as it is
    raw, notes = _curators_library(tmp_path)
    later = _follow_up_digest(raw)
    note = _eagle_note(notes)
    note.write_text(
        note.read_text("utf-8").replace(f'"{FIRST}#2"', '"005_followup.txt#1"'), "utf-8"
    )
    assert main(["notes", "import", "--force", str(later), "--notes-dir", str(notes)]) == 0
    before = note.read_bytes()
    capsys.readouterr()
    assert main(["notes", "import", "--force", str(raw / FIRST), "--notes-dir", str(notes)]) == 0
    said = capsys.readouterr()
    assert f"kept    {note} (not refreshed: it follows a later digest: see the notice below)" in (
        said.out
    )
    assert f"source: notice: entry {FIRST}#2 was not imported" in said.out
    assert "(005_followup.txt#1)" in said.out and said.err == ""
    assert note.read_bytes() == before


def test_a_later_digests_colliding_entry_still_fails_a_run_of_all_digests(tmp_path, capsys):
    # the case in docs/curating.md's workflow that once lost data: the note's own digest is in
    # the run, but the
    # later digest's entry (maybe another PR's) would be imported nowhere: exit 1, every
    # run, until the curator retitles the entry or moves the note to it
    raw, notes = _curators_library(tmp_path)
    (raw / "006_next.txt").write_text(
        f"vllm-project/vllm\n\n{EAGLE_TITLE}\n\n值得快速阅读。另一个 PR 碰巧用了同一个标题。\n",
        "utf-8",
    )
    note = _eagle_note(notes)
    before = note.read_bytes()
    digests = [str(p) for p in sorted(raw.glob("*.txt"))]
    assert main(["notes", "import", "--force", *digests, "--notes-dir", str(notes)]) == 1
    said = capsys.readouterr().err
    assert f"{note}:" in said and "entry 006_next.txt#1, so the same id" in said
    assert note.read_bytes() == before


# --- a digest's spacing and capitals; collisions, failed writes, the notes directory ---


# kills: bot/notes.py:note_id the id's name part keeps the repository's case
def test_a_digest_naming_the_repository_in_capitals_writes_the_same_note_file(tmp_path):
    lower, upper = tmp_path / "lower.txt", tmp_path / "upper.txt"
    lower.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    upper.write_text("VLLM-Project/vLLM\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    (a,) = import_digest(lower, tmp_path / "a", today=TODAY).created
    (b,) = import_digest(upper, tmp_path / "b", today=TODAY).created
    assert a.name == b.name == f"{note_id('vllm-project/vllm', '标题一')}.md"
    assert a.name.startswith("vllm-")


# kills: bot/importer.py:_blocks a line of full-width spaces not taken for a blank line
def test_a_line_of_full_width_spaces_separates_a_title_from_its_guidance(tmp_path):
    # an IME's full-width space (U+3000) shows as a blank line to whoever reads the digest
    text = "vllm-project/vllm\n\n标题一\n\u3000\u3000\n值得精读。正文。\n"
    repo, entries = parse_digest(text, "d.txt")
    assert [(e.title, e.guidance, e.line) for e in entries] == [("标题一", "值得精读。正文。", 3)]


# kills: bot/importer.py:parse_digest the repository line not stripped of leading spaces
def test_an_indented_repository_line_still_names_the_repository(tmp_path):
    digest = tmp_path / "d.txt"
    digest.write_text("  vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    (path,) = import_digest(digest, tmp_path / "notes", today=TODAY).created
    assert header_fields(path.read_text("utf-8"))["repo"] == "vllm-project/vllm"
    assert path.name == f"{note_id('vllm-project/vllm', '标题一')}.md"


# kills: bot/importer.py:parse_digest the title not stripped of whitespace no reader sees
def test_whitespace_around_a_title_is_not_part_of_it(tmp_path):
    plain = parse_digest("vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "d.txt")
    padded = parse_digest("vllm-project/vllm\n\n  标题一\u3000\n\n值得精读。正文。\n", "d.txt")
    assert padded == plain
    assert padded[1][0].title == "标题一"


# kills: bot/importer.py:parse_digest a third copy of a title names the second as the first
def test_each_repeat_of_a_title_points_at_its_first_line(tmp_path):
    text = "o/r\n\n标题\n\n值得精读。\n\n标题\n\n可直接略过。\n\n标题\n\n值得快速阅读。\n"
    with pytest.raises(LibraryError) as exc:
        parse_digest(text, "d.txt")
    assert str(exc.value).splitlines() == [
        "d.txt:7: title: duplicate title (first at line 3): it would give the same id",
        "d.txt:11: title: duplicate title (first at line 3): it would give the same id",
    ]


# kills: bot/importer.py:DIGEST_FIELDS --force leaves `source` at the entry's old position
# kills: bot/importer.py:_digest_of a new position in the same digest taken for another digest
def test_force_refreshes_the_position_of_an_entry_that_moved_in_its_digest(tmp_path):
    out = tmp_path / "notes"
    digest = tmp_path / "d.txt"
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。第一版。\n", "utf-8")
    (path,) = import_digest(digest, out, today=TODAY).created
    assert header_fields(path.read_text("utf-8"))["source"] == "d.txt#1"
    # the digest gains an entry before it, and its guidance changes
    digest.write_text(
        "vllm-project/vllm\n\n标题零\n\n值得精读。新的。\n\n标题一\n\n值得快速阅读。第二版。\n",
        "utf-8",
    )
    result = import_digest(digest, out, force=True, today=date(2027, 1, 5))
    assert result.updated == [path]
    fields = header_fields(path.read_text("utf-8"))
    assert (fields["source"], fields["verdict"]) == ("d.txt#2", "quick")


# kills: bot/importer.py:_digest_of a blank `source` taken for another digest's name
# kills: bot/importer.py:_from_another_digest a note without `source` taken for another digest's
#   note
@pytest.mark.parametrize(
    "edit",
    [('source = "d.txt#1"', 'source = ""'), ('source = "d.txt#1"\n', "")],
    ids=["blank source", "no source line"],
)
def test_a_note_without_a_source_is_refreshed_not_reported_as_another_digests(tmp_path, edit):
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    path.write_text(path.read_text("utf-8").replace(*edit), "utf-8")
    digest = _digest(tmp_path, "值得快速阅读。第二版。")
    kept = import_digest(digest, out, today=TODAY)
    assert (kept.kept, kept.problems, kept.notices) == ([path], [], [])
    assert import_digest(digest, out, force=True, today=TODAY).updated == [path]
    text = path.read_text("utf-8")
    assert text.endswith("值得快速阅读。第二版。\n")
    assert header_fields(text)["source"] == "d.txt#1"


# kills: bot/importer.py:_collision the collision names --force where none was given, and back
# kills: bot/importer.py:plan_import the collision's words leave out whether --force was given
@pytest.mark.parametrize(("force", "said"), [(False, "it would"), (True, "--force would")])
def test_a_collision_says_what_this_import_would_have_done(tmp_path, force, said):
    out = tmp_path / "notes"
    first, second = tmp_path / "d1.txt", tmp_path / "d2.txt"
    first.write_text("vllm-project/vllm\n\n调整 lint 顺序\n\n不需要精读。第一个 PR。\n", "utf-8")
    second.write_text("vllm-project/vllm\n\n调整 lint 顺序\n\n值得快速阅读。另一个。\n", "utf-8")
    import_digest(first, out, today=TODAY)
    try:
        problems = import_digest(second, out, force=force, today=TODAY).problems
    except LibraryError as exc:
        problems = exc.problems
    [problem] = problems
    assert f"and {said} replace this note's guidance" in problem.message


# kills: bot/importer.py:_Existing.of a renamed note whose repository has capitals not found by
#   title
def test_a_renamed_note_naming_its_repository_in_capitals_is_found_by_its_title(tmp_path):
    out = tmp_path / "notes"
    digest = tmp_path / "d.txt"
    digest.write_text("VLLM-Project/vLLM\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    (path,) = import_digest(digest, out, today=TODAY).created
    old_id = path.stem
    renamed = out / "my-own-name.md"
    renamed.write_text(
        path.read_text("utf-8").replace(f'id = "{old_id}"', 'id = "my-own-name"'), "utf-8"
    )
    path.unlink()
    result = import_digest(digest, out, today=TODAY)
    assert (result.created, result.unchanged) == ([], [renamed])
    assert sorted(p.name for p in out.iterdir()) == ["my-own-name.md"]


# kills: bot/importer.py:plan_import a note under its earlier id that does not read is doubled
def test_a_note_under_its_earlier_id_that_does_not_read_is_kept_not_doubled(tmp_path):
    # the curator's half-finished edit: its header does not read, so no title finds it
    unclosed = f'title_zh = "{AS_WRITTEN_TITLE}'
    out, digest, old = moved_to_its_as_written_id(
        tmp_path, lambda text: text.replace(f'{unclosed}"', unclosed)
    )
    result = import_digest(digest, out, today=TODAY)
    assert (result.created, result.kept) == ([], [old])
    assert result.problems and result.problems[0].path == str(old)
    assert sorted(p.name for p in out.iterdir()) == [old.name]


# kills: bot/importer.py:_write_atomically a write that fails leaves its temporary file behind
def test_a_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    # the rename can fail (another file system, a full disk): nothing half-done stays
    out = tmp_path / "notes"
    out.mkdir()

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("bot.importer.os.replace", refuse)
    with pytest.raises(OSError, match="No space left"):
        import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY)
    assert list(out.iterdir()) == []


# kills: bot/importer.py:plan_import a new provenance alone counted as a change
def test_the_same_digest_under_another_file_name_changes_nothing(tmp_path):
    out = tmp_path / "notes"
    first, renamed = tmp_path / "d1.txt", tmp_path / "d1-renamed.txt"
    first.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。正文。\n", "utf-8")
    renamed.write_bytes(first.read_bytes())
    (path,) = import_digest(first, out, today=TODAY).created
    before = path.read_bytes()
    for force in (False, True):
        result = import_digest(renamed, out, force=force, today=date(2027, 1, 5))
        assert (result.unchanged, result.problems, result.kept) == ([path], [], [])
    assert path.read_bytes() == before


# kills: bot/importer.py:import_digest a --notes-dir that is a file told only "File exists"
def test_a_notes_dir_that_is_a_file_is_said_to_be_no_directory(tmp_path, capsys):
    digest = _digest(tmp_path, "值得精读。第一版。")
    target = tmp_path / "notes.toml"
    target.write_text("x = 1\n")
    assert main(["notes", "import", "--notes-dir", str(target), str(digest)]) != 0
    err = capsys.readouterr().err
    assert "Not a directory" in err and str(target) in err, err
    assert target.read_text() == "x = 1\n"


# kills: bot/importer.py:import_digest a --notes-dir whose parent does not exist yet is not made
def test_import_makes_a_notes_dir_whose_parents_do_not_exist_yet(tmp_path):
    out = tmp_path / "library" / "vllm" / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    assert path.parent == out and path.is_file()


# --- a retitle taken with --force and the note's marks -----------------------------------

MARKED = "2027-01-05T09:00:00.000000Z"  # a `/notes wrong`, after the note's last update
TAKEN = date(2027, 1, 10)  # the day a curator takes the digest's new title (--force)


def test_a_retitle_taken_with_force_ages_every_mark_of_a_note_whose_guidance_is_unchanged(
    tmp_path, capsys, monkeypatch
):
    """af76aa8 reads a note's `updated` as the day a curator changed the note "to answer
    its marks" (docs/curating.md: "So set `updated` when you change a note to answer its marks"):
    marks older than it are said to be "before the update", "may be answered already",
    leave the terms line and rank behind. 572cc50 lets `notes import --force` take a
    digest's new Chinese title for a note found by its guidance ("the same guidance under
    another title", its id and file unchanged); that refresh sets `updated` to today, as
    any --force refresh does. So a curator taking a mere retitle (no word of the
    guidance, keywords or paths changed: the note links the same PRs and says the same
    thing) silently ages every standing `/notes wrong` mark of it: the report then says
    they may be answered already and drops their terms, though nothing answered them.
    Cause: bot/importer.py `plan_import` (`changes["updated"] = today` on every --force
    refresh) meeting bot/feedback.py `NoteFeedback.before_update`. Fix: a refresh that
    changes neither guidance nor what matching reads (keywords, aspects, paths, topics,
    titles' words) keeps `updated`; or feedback ages marks by a date only such changes
    set."""
    clean_env(monkeypatch)
    notes, retitled, path, _ = _a_digest_retitling_a_note(tmp_path)
    before = load_library(notes).by_id[path.stem]
    db_path = tmp_path / "bot.sqlite3"
    db = Database(db_path)
    DeliveryQueue(db), PRStore(db)
    evidence = ("changes vllm/v1/core/kv_cache_coordinator.py (a path of this note)",)
    FeedbackStore(db).record(
        Mark(DEFAULT_REPO, 7, before.id, 1, "reviewer", "not this", evidence, MARKED)
    )
    db.close()
    assert before.updated is not None and before.updated.isoformat() < MARKED[:10]

    def report() -> dict:
        assert main(["notes", "feedback", str(notes), "--db", str(db_path), "--json"]) == 0
        rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
        (row,) = [r for r in rows if r["note"] == before.id]
        return row

    assert [m["before_update"] for m in report()["marks"]] == [False]  # made since
    result = import_digest(retitled, notes, force=True, today=TAKEN)
    assert result.updated == [path]
    after = load_library(notes).by_id[path.stem]
    # the note as it matches and advises: unchanged but for its Chinese title
    same = ("guidance", "keywords", "aspects", "paths", "topics", "title_en", "summary_en")
    assert [getattr(after, k) for k in same] == [getattr(before, k) for k in same]
    row = report()
    assert [m["before_update"] for m in row["marks"]] == [False], (
        f"a retitle taken on {row['updated']} aged the mark of {MARKED[:10]}: the report now"
        " says it may be answered already and leaves its terms out, though the note's"
        f" guidance and matching did not change; terms: {row.get('terms')}"
    )


# --- `notes import` on broken settings writes nothing ---------------------------------


# kills: bot/cli_notes.py:_cmd_notes_import `notes import` without --notes-dir exiting 0 on settings
#   that do not load (a script importing on the deployment took it for done)
def test_import_into_the_servers_library_on_broken_settings_fails_and_writes_nothing(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    served = tmp_path / "served"
    monkeypatch.setenv("REVIEW_NOTES_NOTES_DIR", str(served))
    monkeypatch.setenv("REVIEW_NOTES_PORT", "not a port")
    assert main(["notes", "import", str(DIGESTS[0])]) == 2
    assert "configuration error" in capsys.readouterr().err
    assert not served.exists()


# --- an entry that moved in its digest, or follows another digest ---


def test_force_gives_a_note_whose_entry_only_moved_its_new_position(tmp_path, capsys):
    """Defect: an entry put before others in a digest shifts their positions; the notes
    of the entries after it did not change, so even --force left their `source` at the
    old position, which the new entry's note then also claimed (`d.txt#1` twice)."""
    out, digest = tmp_path / "notes", tmp_path / "d.txt"
    digest.write_text("vllm-project/vllm\n\n标题一\n\n值得精读。第一版。\n", "utf-8")
    (path,) = import_digest(digest, out, today=TODAY).created
    curated = path.read_text("utf-8").replace(
        'source = "d.txt#1"', 'source = "d.txt#1"  # the digest of December'
    )
    path.write_text(curated, "utf-8")
    digest.write_text(
        "vllm-project/vllm\n\n标题零\n\n值得精读。新的。\n\n标题一\n\n值得精读。第一版。\n", "utf-8"
    )
    argv = ["notes", "import", str(digest), "--notes-dir", str(out)]
    assert main(argv) == 0  # without --force a note that exists is never touched
    assert path.read_text("utf-8") == curated
    capsys.readouterr()
    assert main([*argv, "--force"]) == 0
    assert path.read_text("utf-8") == curated.replace("d.txt#1", "d.txt#2")  # nothing else
    said = capsys.readouterr().out.splitlines()
    assert f"updated {path} (source: the entry's new position in the digest)" in said
    line = next(i for i, s in enumerate(curated.split("\n"), 1) if s.startswith("source ="))
    refreshed = "value refreshed; its comment stays: check it still holds"
    assert f"{path}:{line}: source: {refreshed}" in said
    assert f"{digest}: 0 created, 1 updated, 1 unchanged, 0 kept" in said
    assert main([*argv, "--force"]) == 0  # and then it agrees with the digest
    assert f"{digest}: 0 created, 0 updated, 2 unchanged, 0 kept" in capsys.readouterr().out


# kills: bot/importer.py:_moved_in_its_digest a note of another digest file (the same PR's
#   entry copied, the way out of a collision) taken for one that moved in it
def test_force_leaves_the_source_of_a_note_that_follows_another_digest(tmp_path):
    out = tmp_path / "notes"
    first, later = tmp_path / "000_a.txt", tmp_path / "004_b.txt"
    text = "vllm-project/vllm\n\n标题一\n\n值得精读。第一版。\n"
    first.write_text(text, "utf-8")
    later.write_text(
        text.replace("\n\n标题一", "\n\n标题零\n\n值得精读。新的。\n\n标题一"), "utf-8"
    )
    (path,) = import_digest(first, out, today=TODAY).created
    before = path.read_text("utf-8")
    result = import_digest(later, out, force=True, today=TODAY)
    assert path in result.unchanged and path.read_text("utf-8") == before


# --- every line of `notes import` names file:line: field, or says why no line applies ---


def test_a_value_refreshed_under_a_comment_names_its_field(tmp_path, capsys):
    """`notes import --force` printed `file:4: value refreshed; ...` without the field,
    unlike every other line it prints (`file:line: field: message`)."""
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    text = path.read_text("utf-8").replace('verdict = "deep"', 'verdict = "deep"  # why')
    path.write_text(text, "utf-8")
    digest = _digest(tmp_path, "值得快速阅读。第二版。")
    assert main(["notes", "import", "--force", str(digest), "--notes-dir", str(out)]) == 0
    line = text.split("\n").index('verdict = "deep"  # why') + 1
    said = capsys.readouterr().out.splitlines()
    refreshed = "value refreshed; its comment stays: check it still holds"
    assert f"{path}:{line}: verdict: {refreshed}" in said


def test_force_refused_on_a_value_over_lines_names_that_fields_line(tmp_path, capsys):
    """The header --force cannot patch (a value it refreshes runs over lines, and a
    comment would be lost) was named at line 2, field `header`: the curator is to edit
    by hand the line of the value that runs over lines, its own."""
    out = tmp_path / "notes"
    (path,) = import_digest(_digest(tmp_path, "值得精读。第一版。"), out, today=TODAY).created
    text = path.read_text("utf-8").replace('verdict = "deep"', 'verdict = """\ndeep"""  # why')
    path.write_text(text, "utf-8")
    digest = _digest(tmp_path, "值得快速阅读。第二版。")
    assert main(["notes", "import", "--force", str(digest), "--notes-dir", str(out)]) == 1
    line = text.split("\n").index('verdict = """') + 1
    err = capsys.readouterr().err
    assert f"{path}:{line}: verdict: --force would rewrite this header" in err, err
    assert path.read_text("utf-8") == text


def _no_room_past(size: int):
    """For a child process: writes past `size` bytes of a file fail (EFBIG, SIGXFSZ
    ignored), as on a full disk: an error that names no file."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def test_a_note_that_cannot_be_written_is_named_not_the_digest(tmp_path):
    """A write that fails without naming a file (a full disk) was told as the digest's:
    `d.txt:1: file: cannot read: File too large`; the digest read fine. The note is
    named, said not written (so it has no line yet), and what to do."""
    digest = _digest(tmp_path, "值得精读。" + "很长的指导。" * 200)  # a note over 2 KB
    out = tmp_path / "notes"
    out.mkdir()
    r = subprocess.run(
        [PY, "-m", "bot.cli", "notes", "import", str(digest), "--notes-dir", str(out)],
        env=base_env(tmp_path, PYTHONPATH=str(ROOT)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_no_room_past(1024),
    )
    clear_error(r)
    note = out / f"{note_id('vllm-project/vllm', '标题一')}.md"
    assert "cannot read" not in r.stderr, r.stderr
    assert f"{note}: file: cannot write: File too large" in r.stderr, r.stderr
    assert "no line of it" in r.stderr, r.stderr
    assert list(out.iterdir()) == []  # nothing half-written


def test_a_notes_dir_that_cannot_hold_notes_names_the_setting(tmp_path, capsys):
    """`notes.toml: cannot write: Not a directory` named neither a line nor what the path
    is: the notes directory (--notes-dir or REVIEW_NOTES_NOTES_DIR), which has no line."""
    target = tmp_path / "notes.toml"
    target.write_text("x = 1\n")
    digest = _digest(tmp_path, "值得精读。第一版。")
    assert main(["notes", "import", "--notes-dir", str(target), str(digest)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{target}: notes directory: cannot write notes there: Not a directory")
    assert "--notes-dir" in err and "no line of a file" in err, err

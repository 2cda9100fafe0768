"""Failing tests of blind review r19g (defects found, not fixed)."""

from __future__ import annotations

import shutil
from pathlib import Path

from bot.cli import main
from bot.importer import import_digest
from bot.library import ROOT
from tests.fake_github import DEFAULT_REPO, Fault
from tests.test_command_events import (
    AUTHOR,
    INSTANT,
    N,
    live,  # noqa: F401 (a fixture)
    reactions,
    replies,
    review_payload,
    say,
    state,
    sticky,
    tune,
)
from tests.test_e2e import live_settings
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    drain,
    post,
    serving,
    wait_until,
)

RAW = ROOT / "seeds" / "raw"
NOTES = ROOT / "seeds" / "notes"
FIRST = "000_592c10ca5a9ed86e.txt"
EAGLE_TITLE = "修复 EAGLE 分支在部分哈希命中路径上丢失缓存注册"  # 000_592c10ca5a9ed86e.txt#2


def _library(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the shipped digests and notes, as a curator has them."""
    raw, notes = tmp_path / "raw", tmp_path / "notes"
    shutil.copytree(RAW, raw)
    shutil.copytree(NOTES, notes)
    return raw, notes


def _blocks(path: Path) -> list[str]:
    return path.read_text("utf-8").rstrip("\n").split("\n\n")


def _eagle_note(notes: Path) -> Path:
    (path,) = [p for p in notes.glob("*.md") if EAGLE_TITLE in p.read_text("utf-8")]
    return path


def _follow_up_digest(raw: Path) -> Path:
    """A later digest holding the same PR's entry (same title), its guidance extended."""
    blocks = _blocks(raw / FIRST)
    assert blocks[3] == EAGLE_TITLE
    later = raw / "005_followup.txt"
    later.write_text(
        f"{blocks[0]}\n\n{blocks[3]}\n\n{blocks[4]}（补充：PR 52500 随后补上了测试。）\n", "utf-8"
    )
    return later


def test_r19g_the_collision_way_out_breaks_the_ordinary_force_import_of_all_digests(
    tmp_path, capsys
):
    """Defect (medium): two digests holding one PR's entry (a later digest repeats it with
    more guidance). The import reports the collision and says what to do: "if it is this
    note's guidance, moved to this digest, set `source = "005_followup.txt#1"` here and
    import with --force". The curator does so. From then on the workflow README gives for
    refreshing notes, `notes import --force seeds/raw/*.txt`, fails on every run: the old
    digest's entry now collides the other way (its message asks to set `source` back to
    000_...#2, a ping-pong), exit 1, and "000_...: nothing written", so no other change
    of that digest (an edited guidance, a new entry) is ever imported with --force, and
    `notes import seeds/raw/*.txt` exits 1 forever too. The only ways out are editing the
    raw digest (dropping the entry) or giving it a new title, which creates a duplicate
    note of the same PR. Before 4c38ee7 the same run exited 0 (refreshing the
    note from each digest in turn, the later digest last)."""
    raw, notes = _library(tmp_path)
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
    blocks = _blocks(first)
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


def test_r19g_one_collision_under_force_withholds_every_other_entry_of_the_digest(tmp_path):
    """Defect (low-medium): with --force, a collision (a note from another digest with an
    entry's title) is a problem of the whole plan, so nothing of the digest is written:
    not the other notes whose guidance changed, and not the digest's new entries. Without
    --force the same run creates the new notes and keeps only the colliding one, so
    `--force` does less than a plain import, and a curator refreshing a new digest that
    repeats one title of an old one gets none of its new notes (README: "importing
    creates" the digest's notes; the collision "is never refreshed" — that note, not the
    rest)."""
    raw, notes = _library(tmp_path)
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


# --- commands: a comment left with 👀 by a failed run, re-run by `review-notes retry` ---


def test_r19g_a_failed_command_retried_under_a_spent_budget_is_left_with_eyes(live):  # noqa: F811
    """Defect (medium, the r19f defect through the other door): 2f1889c keeps a comment's
    write reservation only when its run is put back for a rate limit. A run that fails
    halfway for any other reason (the reply's POST answered 422/5xx after the 👀) still
    gives its reservation back; the delivery is failed, and README's way out is
    `review-notes retry`. The retry reserves anew, and with the installation's write
    budget spent meanwhile it is refused whole (`_not_run`: no 😕 once the spell has
    begun) and marked done ("not run"), so the comment keeps its 👀 with no answer for
    good and no further retry brings it back: the halfway state the reservation
    ("answered whole or not at all, never left with 👀 and no answer") promises away."""
    client, rt, fake = live
    tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill: the budget is what the test spends
    comments = f"/repos/{DEFAULT_REPO}/issues/{N}/comments"
    fake.inject("POST", comments, Fault.error(422, "Validation Failed"))
    c = say(client, rt, fake, "/notes help")
    assert reactions(fake, c) == {"eyes"} and not replies(fake)
    assert rt.queue.counts()["failed"] == 1
    # meanwhile a flood on the installation's other PRs spends the write budget
    flood = rt.ctx.flood
    assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
    assert flood.reserve_writes(1001, 4).first  # the flood's comment got the spell's 😕
    assert rt.queue.retry() != []  # the operator: `review-notes retry --all`
    drain(rt)
    answered = reactions(fake, c)
    assert replies(fake) or "confused" in answered or rt.queue.counts()["failed"], (
        f"failed halfway, retried, refused whole: the comment is left with {answered} and"
        f" no reply, and the delivery is {rt.queue.counts()}"
    )


def test_r19g_a_review_off_put_back_for_a_rate_limit_on_its_edit_is_never_applied(
    tmp_path, fake_github, app_key, monkeypatch
):
    """Defect (medium): 2f1889c keeps the reservation only when the run "began writing"
    (`spent.writes > 0`), on the ground that a run put back before its first write "has
    no 👀 to strand, and it pays anew". But a command changes the PR's state before it
    writes (`off` sets opted_out, `wrong`/`restore` the dismissed notes), and a review has
    no reactions: `/notes off` in a review body whose pausing edit GitHub rate limits has
    spent nothing (the edit counts only once written), so its reservation is refunded,
    and its re-run, with the installation's write budget spent meanwhile, is refused
    whole and marked done ("not run"). The PR's state says off, the notes comment keeps
    its notes unpaused, and no retry brings it back: the very `off` case 2f1889c fixed,
    through a review (README: a review's command "is answered like one in a comment")."""
    clean_env(monkeypatch)
    fake = fake_github
    head = fake.add_pull(
        DEFAULT_REPO, N, files=MATCHING_FILES, title=MATCHING_TITLE, author=AUTHOR
    ).head_sha
    settings = live_settings(tmp_path, fake, app_key, retry_sleep_max=1)
    with serving(settings) as (client, rt):
        tune(rt, INSTANT, clock=lambda: 1000.0)  # no refill
        say(client, rt, fake, "/notes")
        notes = sticky(fake)
        assert "Automatic updates are paused" not in notes.body
        edits = f"/repos/{DEFAULT_REPO}/issues/comments/{notes.id}"
        fake.inject("PATCH", edits, Fault.secondary_rate_limit(retry_after=2))
        r = post(
            client,
            "pull_request_review",
            review_payload("/notes off", login=AUTHOR, head_sha=head),
        )
        assert r.status_code == 202
        wait_until(
            lambda: rt.queue.counts()["pending"] == 1 and fake.calls("PATCH", edits),
            what="the review's `off` put back after its edit was refused",
        )
        assert state(rt).opted_out
        # meanwhile a flood on the installation's other PRs spends the write budget
        flood = rt.ctx.flood
        assert flood.reserve_writes(1001, int(flood.installation_writes.left(1001))) is None
        drain(rt, 20)
        body = sticky(fake).body
        assert "Automatic updates are paused" in body, (
            f"the review's `off` was put back, then refused whole: the PR is off, its notes"
            f" comment is not paused; the delivery is {rt.queue.counts()}"
        )

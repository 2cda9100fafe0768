"""The notes library changes while the bot runs for months.

Curators add, delete, rename and merge notes and change topics; the operator restarts
the server to pick that up. Meanwhile the SQLite database keeps each PR's state (the
comment's notes, the notes hidden with `/notes wrong`, the marks) written under the
old library. Each test is one defect found this way: the comment above it says what a
user saw and why it was wrong.
"""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.library import DEFAULT_NOTES_DIR, DEFAULT_TOPICS_FILE, check_library, load_library
from bot.note_files import LibraryError
from tests.command_kit import (
    AUTHOR,
    INSTANT,
    N,
    edit,
    replies,
    say,
    state,
    sticky,
    tune,
)
from tests.fake_github import DEFAULT_REPO
from tests.test_pages import client_for
from tests.webhook_kit import (
    MATCHING_FILES,
    clean_env,
    drain,
    live_settings,
    post,
    pr_payload,
    serving,
    title_with_one_more_note,
)


def library_copy(tmp_path: Path) -> Path:
    """The shipped notes, copied where a test may edit them (a curator's working copy)."""
    notes = tmp_path / "notes"
    shutil.copytree(DEFAULT_NOTES_DIR, notes)
    return notes


@contextmanager
def server(tmp_path, fake, app_key, notes: Path):
    """One run of the server on the test's database and this notes directory: leaving
    the block stops it, entering another one is the operator's restart."""
    with serving(live_settings(tmp_path, fake, app_key, notes_dir=notes)) as (client, rt):
        tune(rt, INSTANT)
        yield client, rt


def comment_shows(tmp_path, fake, app_key, notes: Path, title: str) -> tuple[str, str]:
    """One run of the server in which `/notes` posts the PR's comment: its two notes."""
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
    return first, second


def push(client, rt, title: str, sha: str) -> None:
    """A `synchronize` event on the PR: the next PR event after a restart."""
    post(client, "pull_request", pr_payload(action="synchronize", title=title, head_sha=sha))
    drain(rt)


@pytest.fixture
def two_notes(tmp_path, fake_github, app_key, monkeypatch):
    """A PR whose comment shows two notes, under the curators' library as it was."""
    clean_env(monkeypatch)
    title = title_with_one_more_note()
    fake_github.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR)
    notes = library_copy(tmp_path)
    return fake_github, notes, title


# --- /notes wrong naming a note the library no longer has ------------------------------


def test_wrong_naming_a_removed_note_does_not_hide_the_one_note_left(tmp_path, app_key, two_notes):
    # The PR's comment showed notes A and B (the reviewer got it by e-mail, with B's link
    # `.../notes/<B's id>`). A curator deleted B; after the restart a push re-rendered
    # the comment, which now shows A alone. The reviewer writes `/notes wrong <B's id>`.
    # What they see: note A, the one they did NOT name, disappears from the comment, and
    # the curators' report says a reviewer marked A not relevant, with B's id as the
    # reason. docs/commands.md ("/notes wrong"): "A number or id the comment does not show gets a
    # short reply (😕) and hides nothing." An id the bot itself showed on this very PR is
    # a note id, not a reason: only ids still in the library are taken as ids.
    fake, notes, title = two_notes
    first, second = comment_shows(tmp_path, fake, app_key, notes, title)
    (notes / f"{second}.md").unlink()  # the curator deletes note B
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        push(client, rt, title, "e" * 40)
        assert state(rt).notes == (first,)  # the comment shows A alone now
        say(client, rt, fake, f"/notes wrong {second}", login=AUTHOR, title=title)
        assert first in state(rt).notes, "note A was hidden by a command naming note B"
        assert [m.note_id for m in rt.ctx.feedback.marks()] == []
        assert "nothing was hidden" in replies(fake)[-1].body
        # only this library's id shape (`vllm-` and 8 hex digits) is a note's: a dated
        # build is the reason, and the one note shown is hidden
        wrong = "/notes wrong nightly-20250101 has the fix"
        say(client, rt, fake, wrong, login=AUTHOR, title=title)
        assert [(m.note_id, m.reason) for m in rt.ctx.feedback.marks()] == [
            (first, "nightly-20250101 has the fix")
        ]


# --- a note renamed (file and id) --------------------------------------------------------


def rename_note(notes: Path, old: str, new: str) -> None:
    """What a curator does to rename a note, which the importer still finds afterwards
    (docs/curating.md: "after a curator renamed a note (file and id)"): the file
    and its `id` line change, the Chinese title (what the id derives from) stays."""
    text = (notes / f"{old}.md").read_text(encoding="utf-8")
    (notes / f"{old}.md").unlink()
    (notes / f"{new}.md").write_text(text.replace(f'id = "{old}"', f'id = "{new}"'), "utf-8")


def test_a_note_hidden_with_wrong_stays_hidden_after_the_curator_renames_it(
    tmp_path, app_key, two_notes
):
    # A reviewer hid note B on this PR with `/notes wrong 2` ("it is hidden on this PR
    # from then on", docs/commands.md). Months later a curator renames B's file and id (the
    # importer supports it: it finds the note by its repository and Chinese title) and
    # the operator restarts the server. What the reviewer sees at the next push: note B
    # is back in the comment, and the line "1 note that matched was marked not relevant
    # here" is gone, although nobody ran `/notes restore`. Nothing warned: `notes check`
    # prints ok, the start logs nothing. The reviewer's verdict is silently undone (and
    # the curators' report files the mark under an id "not in the library").
    fake, notes, title = two_notes
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        second = state(rt).notes[1]
        say(client, rt, fake, "/notes wrong 2", login=AUTHOR, title=title)
        assert "marked not relevant here" in sticky(fake).body
    renamed = "vllm-renamed01"
    rename_note(notes, second, renamed)
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        assert renamed in rt.ctx.library.by_id  # the library loads: the rename is valid
        push(client, rt, title, "f" * 40)
        body = sticky(fake).body
        assert renamed not in state(rt).notes, "the note the reviewer hid is shown again"
        assert "marked not relevant here" in body


# --- notes check: a note copied under a new id ---------------------------------------


def test_check_flags_a_note_copied_under_a_new_id(tmp_path, monkeypatch, capsys):
    # A curator "renames" a note by copying its file under a new id (or merges two notes
    # into one and forgets to delete the old file): two notes now have the same repo,
    # source PR and Chinese title, the very things the id is derived from and the
    # importer finds a note by. `notes check` prints "ok" with no warning, and the
    # server starts. What reviewers then see: the source PR 52419 gets the same note
    # twice ("1. Keep EAGLE prefix-cache ... 2. Keep EAGLE prefix-cache ..."), and so
    # does every PR that refers to it; `notes import --force` refreshes only one of the
    # two copies (the file named after the derived id), so they drift apart.
    from bot.cli import main
    from bot.library import DEFAULT_TOPICS_FILE, load_library
    from bot.note_files import LibraryError

    clean_env(monkeypatch)
    notes = library_copy(tmp_path)
    old, copy = "vllm-0436d44c", "vllm-0436d44d"
    text = (notes / f"{old}.md").read_text(encoding="utf-8")
    (notes / f"{copy}.md").write_text(text.replace(f'id = "{old}"', f'id = "{copy}"'), "utf-8")

    with pytest.raises(LibraryError) as refused:  # the server does not start on it either
        load_library(notes, DEFAULT_TOPICS_FILE)
    assert f"the same note as {notes / old}.md" in str(refused.value)

    main(["notes", "check", str(notes), "--topics", str(DEFAULT_TOPICS_FILE)])
    out = capsys.readouterr()
    said = [
        line
        for line in (out.out + out.err).splitlines()
        if f"{copy}.md" in line and ("source_pr" in line or "title_zh" in line)
    ]
    assert said, "notes check says nothing of two notes with one source PR and title"


# kills: bot/library.py:_ids_naming_two_notes a copy's importer id taken for a renamed note's
def test_check_tells_only_the_copy_of_a_note_to_go_not_the_note_to_change_its_id(tmp_path):
    # A curator adds a note by copying one, as docs/curating.md says, and keeps its title_zh.
    # Beside "the same note as ...: keep one file", the note copied from was told its own
    # id "is the id the importer gave <the copy> (renamed since) ...: choose another id":
    # renaming a shipped note, whose id comments and marks hold, for a copy's sake. And
    # "keep one file" alone left out the curator's case, a new note: its own title_zh.
    notes = library_copy(tmp_path)
    text = (notes / "vllm-0436d44c.md").read_text(encoding="utf-8")
    copy = text.replace('id = "vllm-0436d44c"', 'id = "vllm-step3p5-fix"')
    (notes / "vllm-step3p5-fix.md").write_text(copy, "utf-8")
    problems = [str(p) for p in check_library(notes, DEFAULT_TOPICS_FILE)[1]]
    assert problems == [
        f"{notes / 'vllm-step3p5-fix.md'}:11: title_zh: the same note as"
        f" {notes / 'vllm-0436d44c.md'} (same repo and title_zh, what a note is known by):"
        " keep one file, or give a new note its own PR's Chinese title"
    ]


def test_check_tells_a_copy_with_its_id_unchanged_both_of_its_problems_at_once(tmp_path):
    # A note copied to start a new one, neither its id nor its title_zh changed yet, was
    # told only its duplicate id; its title_zh, the other field a new note must change,
    # came on the next run, after the id was fixed. Whichever file sorts first.
    notes = library_copy(tmp_path)
    text = (notes / "vllm-0436d44c.md").read_text(encoding="utf-8")
    for name in ("vllm-0000-new", "vllm-zzzz-new"):
        (notes / f"{name}.md").write_text(text, "utf-8")
    problems = [str(p) for p in check_library(notes, DEFAULT_TOPICS_FILE)[1]]
    assert problems == [
        line
        for name in ("vllm-0000-new", "vllm-zzzz-new")
        for line in (
            f"{notes / name}.md:2: id: duplicate id 'vllm-0436d44c' (also in"
            f" {notes / 'vllm-0436d44c.md'}): give this note an id of its own, as its file's"
            f' name: id = "{name}"',
            f"{notes / name}.md:11: title_zh: the same note as {notes / 'vllm-0436d44c.md'}"
            " (same repo and title_zh, what a note is known by): keep one file, or give a"
            " new note its own PR's Chinese title",
        )
    ]


# --- notes check: two topics under one English name --------------------------------------


def test_check_flags_two_topics_with_one_english_name(tmp_path, monkeypatch, capsys):
    # A curator folds "Elastic EP scaling" into "Expert parallelism and elastic EP" by
    # giving it that name (keeping the id, which notes name). Two topic ids with the same
    # id are refused, two with the same English name pass: `notes check` prints "ok".
    # What readers then see: note vllm-64eca4f8's comment block says "Topics: Expert
    # parallelism and elastic EP, Expert parallelism and elastic EP, ROCm platform", and
    # `/notes topic Expert parallelism and elastic EP` (the name as the comment prints
    # it; the command takes names because "the comment prints names, not ids") always
    # answers with the first of the two topics' notes: the other's can be reached by id
    # only, which no comment shows.
    from bot.cli import main
    from bot.library import DEFAULT_TOPICS_FILE, load_library
    from bot.note_files import LibraryError

    clean_env(monkeypatch)
    topics = tmp_path / "topics.toml"
    text = DEFAULT_TOPICS_FILE.read_text(encoding="utf-8")
    folded = 'name_en = "Expert parallelism and elastic EP"'
    topics.write_text(text.replace('name_en = "Elastic EP scaling"', folded, 1), "utf-8")
    line = text[: text.index('name_en = "Elastic EP scaling"')].count("\n") + 1

    with pytest.raises(LibraryError):  # the server does not start on it either
        load_library(DEFAULT_NOTES_DIR, topics)

    main(["notes", "check", str(DEFAULT_NOTES_DIR), "--topics", str(topics)])
    out = capsys.readouterr()
    said = [
        s for s in (out.out + out.err).splitlines() if f"{topics}:{line}:" in s and "name_en" in s
    ]
    assert said, "notes check says nothing of two topics with one English name"


# --- a topic renamed: the server's refusal names half of what to fix -----------------------


def test_start_after_a_topic_rename_names_every_file_to_fix_at_once(tmp_path, monkeypatch):
    # A curator renames the topic `rocm` to `amd-rocm` in config/topics.toml; two notes
    # and config/matching.toml (its topic_scale) still name `rocm`. `notes check`
    # prints all three problems. The operator restarts the server instead: it refuses to
    # start naming the two notes only ("the notes library has 2 problem(s); not
    # starting"). They fix the notes, restart, and are refused again, now for
    # matching.toml, a second outage round for one rename. docs/curating.md: the server
    # "refuses to start with the same messages" as `notes check`, which checks the
    # matching config "as the server does at start, in the same run as the notes".
    from bot.library import DEFAULT_TOPICS_FILE
    from bot.note_files import LibraryError
    from bot.server import StartupError, build_runtime
    from bot.settings import SettingsError
    from tests.webhook_kit import make_settings

    clean_env(monkeypatch)
    topics = tmp_path / "topics.toml"
    text = DEFAULT_TOPICS_FILE.read_text(encoding="utf-8")
    topics.write_text(text.replace('id = "rocm"', 'id = "amd-rocm"', 1), "utf-8")
    settings = make_settings(tmp_path, topics_file=topics)
    with pytest.raises((LibraryError, StartupError, SettingsError)) as refused:
        build_runtime(settings)
    said = str(refused.value)
    assert "vllm-0341d216.md:7: topics: unknown topic 'rocm'" in said
    from bot.match_config import DEFAULT_MATCHING_FILE

    lines = DEFAULT_MATCHING_FILE.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if text.startswith("rocm ="))
    assert f"matching.toml:{line}: topic_scale: unknown topic 'rocm'" in said, (
        "the start names the notes only; matching.toml refuses the next start"
    )


# --- a failed `/notes wrong N`, retried after the library changed --------------------------


def test_a_retried_wrong_hides_the_note_its_reviewer_numbered(tmp_path, app_key, two_notes):
    # The comment showed 1. A, 2. B. A maintainer wrote `/notes wrong 1 not about EAGLE`
    # (note A); GitHub failed the permission check past the client's retries, so the
    # delivery was kept as `failed` before anything was hidden. Meanwhile a curator
    # deleted note A and the server was restarted; a push re-rendered the comment, which
    # now shows B alone, as note 1. The operator then runs `review-notes retry --all`
    # (README: after an upgrade or an outage). What the PR shows: note B, which nobody
    # objected to, is hidden, and the curators' report says the maintainer marked B not
    # relevant "not about EAGLE". docs/commands.md ("wrong"): "The number is the note's place in
    # the comment as last posted, what the reviewer read ... a delivery run again after
    # a crash, means the same note, not the one the comment now shows first."
    from tests.fake_github import Fault

    fake, notes, title = two_notes
    fake.set_permission(DEFAULT_REPO, "maintainer", "write")
    asked = f"/repos/{DEFAULT_REPO}/collaborators/maintainer/permission"
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
        fake.inject("GET", asked, *[Fault.error(502)] * 3)
        say(client, rt, fake, "/notes wrong 1 not about EAGLE", login="maintainer", title=title)
        assert rt.queue.counts()["failed"] == 1 and fake.pending_faults() == 0
        assert state(rt).dismissed == ()  # nothing was hidden yet
    (notes / f"{first}.md").unlink()  # the curator deletes note A
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        push(client, rt, title, "e" * 40)
        assert state(rt).notes == (second,)
        assert rt.queue.retry()  # `review-notes retry --all`
        drain(rt)
        assert second in state(rt).notes, "the retried `wrong 1` hid note B, not note A"
        assert second not in [m.note_id for m in rt.ctx.feedback.marks()]


def test_the_curators_report_titles_a_mark_made_before_the_note_was_renamed(tmp_path):
    # A mark filed under the note's former id is the renamed note's: the report says
    # which note it is now, not "(not in the library)".
    from bot.cli_notes import _note_titles
    from bot.library import DEFAULT_TOPICS_FILE

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    titles = _note_titles(str(notes), str(DEFAULT_TOPICS_FILE))
    assert titles["vllm-0436d44c"] == f"{titles['vllm-renamed01']} (now vllm-renamed01)"


@pytest.mark.parametrize("prefix", ["", "/review-notes"])
def test_a_link_to_a_renamed_note_leads_to_it(tmp_path, prefix):
    # Posted comments (and e-mails of them) link the note by the id it had: after a
    # curator renames it, the link redirects to the note's page under its id now, the
    # source and the JSON alike; an id no note ever had is still a 404.
    from bot.library import DEFAULT_TOPICS_FILE, load_library
    from tests.test_pages import client_for

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    client = client_for(load_library(notes, DEFAULT_TOPICS_FILE), prefix=prefix)
    for old, new in [
        ("/notes/vllm-0436d44c", "/notes/vllm-renamed01"),
        ("/notes/vllm-0436d44c/source", "/notes/vllm-renamed01/source"),
        ("/notes/vllm-0436d44c?format=json", "/notes/vllm-renamed01?format=json"),
    ]:
        r = client.get(prefix + old, follow_redirects=False)
        assert (r.status_code, r.headers["location"]) == (308, prefix + new)
        assert client.get(prefix + old).status_code == 200
    assert client.get(f"{prefix}/notes/vllm-00000000").status_code == 404


# --- a note retired: gone from comments, not brought back by the importer ------------------


def retire(notes: Path, note_id: str) -> None:
    """What a curator does to take a note out of use: `retired = true` in its header."""
    path = notes / f"{note_id}.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace(f'id = "{note_id}"\n', f'id = "{note_id}"\nretired = true\n'))


def test_a_retired_note_is_linked_no_more_and_importing_its_digest_does_not_bring_it_back(
    tmp_path, monkeypatch, capsys
):
    # Deleting a note's file was the only way to take it out, and `notes import --force
    # seeds/raw/*.txt` (routine) made it again as a stub with no topics, which the next
    # start refused. A retired note stays a file the importer finds, and nothing else
    # sees it: no PR gets it, its page says it was retired, the report still names it.
    from bot.cli import main
    from bot.cli_notes import _note_titles
    from bot.library import DEFAULT_TOPICS_FILE, load_library
    from bot.match_config import load_match_config
    from bot.matching import match_pr
    from bot.prfacts import PRFacts
    from tests.test_pages import client_for

    clean_env(monkeypatch)
    notes = library_copy(tmp_path)
    retire(notes, "vllm-0436d44c")
    before = {p.name: p.read_bytes() for p in notes.iterdir()}
    library = load_library(notes, DEFAULT_TOPICS_FILE)
    assert "vllm-0436d44c" not in library.by_id and "vllm-0436d44c" in library.retired
    own = PRFacts(repo=DEFAULT_REPO, number=52419, title="Keep EAGLE prefix-cache hits")
    assert "vllm-0436d44c" not in [
        m.note.id for m in match_pr(own, library, load_match_config()).matches
    ]

    raw = sorted((DEFAULT_NOTES_DIR.parent / "raw").glob("*.txt"))
    assert main(["notes", "import", "--force", *map(str, raw), "--notes-dir", str(notes)]) == 0
    assert {p.name: p.read_bytes() for p in notes.iterdir()} == before  # nothing made again
    capsys.readouterr()
    assert main(["notes", "check", str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]) == 0
    assert capsys.readouterr().out.startswith(f"ok: {len(before) - 1} notes (1 retired), ")

    page = client_for(library).get("/notes/vllm-0436d44c")
    assert page.status_code == 410 and "retired" in page.text
    assert _note_titles(str(notes), str(DEFAULT_TOPICS_FILE))["vllm-0436d44c"].endswith("(retired)")


def test_a_retired_note_file_reads_back_as_written():
    from bot.library import load_library
    from bot.note_dump import dump_note
    from bot.note_files import parse_note

    note = load_library().notes[0]
    retired = note.model_copy(update={"retired": True})
    text = dump_note(retired)
    assert f'id = "{note.id}"\nretired = true\n' in text
    assert parse_note(text, "x.md") == retired
    assert "retired" not in dump_note(note)  # the default is not written


def test_formerly_may_not_name_a_note_of_the_library_or_the_note_itself(tmp_path, capsys):
    from bot.cli import main
    from bot.library import DEFAULT_TOPICS_FILE

    notes = library_copy(tmp_path)
    path = notes / "vllm-0436d44c.md"
    text = path.read_text(encoding="utf-8")
    for formerly, said in [
        ("vllm-0341d216", f"'vllm-0341d216' is the id of {notes / 'vllm-0341d216.md'}"),
        ("vllm-0436d44c", "vllm-0436d44c is the note's id now"),
    ]:
        line = f'id = "vllm-0436d44c"\nformerly = ["{formerly}"]\n'
        path.write_text(text.replace('id = "vllm-0436d44c"\n', line), "utf-8")
        assert main(["notes", "check", str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]) == 1
        err = capsys.readouterr().err
        assert f"{path}:3: formerly: " in err and said in err, err  # line 1 is +++


# --- redirects of a renamed note's links, behind a proxy -------------------------------


def test_a_renamed_notes_link_redirects_under_public_urls_path(tmp_path):
    # The operator serves the bot under https://example.org/review-notes (a proxy that
    # strips the prefix: docs/operating.md / notes_site, "a path in it ... is kept in every link the
    # pages make"). A reviewer clicks an old comment's link to a note a curator renamed,
    # https://example.org/review-notes/notes/vllm-0436d44c. What they get: a 308 to
    # `/notes/vllm-renamed01`, i.e. https://example.org/notes/vllm-renamed01, outside the
    # bot's path: a 404 of whatever else the host serves, not the note. The favicon
    # redirect and every page link keep the prefix; this redirect drops it.
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    library = load_library(notes, DEFAULT_TOPICS_FILE)
    client = client_for(library, public_url="https://example.org/review-notes")
    r = client.get("/notes/vllm-0436d44c", follow_redirects=False)
    assert r.status_code == 308
    assert r.headers["location"] in (
        "/review-notes/notes/vllm-renamed01",
        "https://example.org/review-notes/notes/vllm-renamed01",
    ), r.headers["location"]


# --- the kept numbering, over marks made before it was kept -----------------------------


def test_editing_a_wrong_made_before_the_upgrade_hides_the_same_note(tmp_path, app_key, two_notes):
    # Before this version, a comment's numbering was kept only in its first mark's
    # `shown` (feedback table); `numbering()` still falls back to it ("kept before that
    # was, when it first marked one"). A reviewer wrote `/notes wrong 1` before the
    # upgrade: note A was hidden, the comment now shows B as note 1. After the upgrade
    # they edit the comment to add why (`/notes wrong 1 not about EAGLE`), which docs/commands.md
    # says "means the same note, not the one the comment now shows first". What they
    # see: note B disappears too, and the report says they marked B not relevant.
    # run_commands stores the comment's numbering *now* (B first) in the new table
    # before `numbering()` is read, and the new table wins over the mark's own `shown`.
    fake, notes, title = two_notes
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
        c = say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)
        assert state(rt).dismissed == (first,)
        # the database as the previous version left it: the mark's `shown`, no table row
        rt.ctx.feedback.db.execute("DELETE FROM numbering")
        edit(client, rt, fake, c, "/notes wrong 1 not about EAGLE")
        marked = [m.note_id for m in rt.ctx.feedback.marks()]
        assert second not in marked and second in state(rt).notes, (
            "the edit hid note B, which the comment showed second when it was written"
        )


# --- a retired note's id in `/notes wrong` ------------------------------------------------


def test_wrong_naming_a_retired_note_does_not_hide_the_one_note_left(tmp_path, app_key, two_notes):
    # A curator renamed note B to `vllm-renamed01` (docs/curating.md allows any id of
    # `[a-z0-9][a-z0-9._-]*`); the PR's comment showed A and vllm-renamed01. Later the
    # curator retired it (`retired = true`, docs/curating.md: "Retire a note rather than delete
    # its file"); after the restart a push re-rendered the comment, which now shows A
    # alone. The reviewer, reading the e-mail of the comment as it was, writes
    # `/notes wrong vllm-renamed01`. What they see: note A, the one they did NOT name,
    # disappears, and the report files a mark on A with "vllm-renamed01" as the reason.
    # docs/commands.md: "A number or id the comment does not show gets a short reply (😕) and
    # hides nothing". The id of a note the library still holds (retired) is not taken
    # for a note id: `known` is `library.by_id`, which leaves retired notes out, and
    # the id is not shaped like the importer's (DERIVED_ID).
    from tests.command_kit import replies
    from tests.test_library_changes import push, retire

    fake, notes, title = two_notes
    first, second = comment_shows(tmp_path, fake, app_key, notes, title)
    rename_note(notes, second, "vllm-renamed01")
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        push(client, rt, title, "e" * 40)
        assert set(state(rt).notes[:2]) == {first, "vllm-renamed01"}
    retire(notes, "vllm-renamed01")
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        push(client, rt, title, "f" * 40)
        assert state(rt).notes == (first,)
        say(client, rt, fake, "/notes wrong vllm-renamed01", login=AUTHOR, title=title)
        assert first in state(rt).notes, "note A was hidden by a command naming a retired note"
        assert [m.note_id for m in rt.ctx.feedback.marks()] == []
        assert "nothing was hidden" in replies(fake)[-1].body


# --- a renamed note, retired since: its former id's link ----------------------------------


def test_a_link_to_a_renamed_then_retired_note_says_it_was_retired(tmp_path):
    # Comments posted before a curator renamed note vllm-0436d44c link it as
    # /notes/vllm-0436d44c; the link redirected to its page while it was in use. Then the
    # curator retired it. docs/curating.md (`retired`): "its page answers 410 saying so". What a
    # reader of those comments gets: 404 "no note with id 'vllm-0436d44c'", as for a
    # mistyped id: `Library.renamed` is built from the notes in use only, so a retired
    # note's former ids name nothing (the curators' report titles its marks under the
    # former id "not in the library" likewise).
    from tests.test_library_changes import retire

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    retire(notes, "vllm-renamed01")
    client = client_for(load_library(notes, DEFAULT_TOPICS_FILE))
    assert client.get("/notes/vllm-renamed01").status_code == 410
    r = client.get("/notes/vllm-0436d44c", follow_redirects=False)
    assert r.status_code in (308, 410), (r.status_code, r.text[:200])
    assert client.get("/notes/vllm-0436d44c").status_code == 410


# --- the kept numbering of a comment that found no notes ---------------------------------


def test_a_wrong_edited_once_the_notes_comment_exists_hides_the_note(tmp_path, app_key, two_notes):
    # A reviewer writes `/notes wrong 1` before the bot has a notes comment on the PR;
    # the bot answers "There is no notes comment on this pull request; nothing was
    # hidden." Someone runs `/notes`: the comment now shows 1. A, 2. B. The reviewer
    # edits their comment to `/notes wrong 1 not relevant` (an edit is run again, as
    # docs/commands.md says of an edit that adds why). What they see: the reply "The notes comment
    # on this pull request shows no note; nothing was hidden", false, under a comment
    # showing two notes; note A stays, and so it does at every later edit of that
    # comment. The first read kept an empty numbering (nothing numbered), and
    # `command_feedback.take_feedback` takes an empty kept numbering as the comment's
    # (`is None`, where 9617002 read `or state.notes`): before today the edit hid note A.
    from tests.command_kit import replies

    fake, notes, title = two_notes
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        c = say(client, rt, fake, "/notes wrong 1", login=AUTHOR, title=title)
        assert state(rt).notes == ()
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
        edit(client, rt, fake, c, "/notes wrong 1 not relevant")
        assert "shows no note" not in replies(fake)[-1].body, replies(fake)[-1].body
        assert state(rt).dismissed == (first,), "the edited `wrong 1` hid nothing"


# --- two topics one name to `/notes topic` -------------------------------------------------


def test_check_flags_two_topic_names_that_notes_topic_reads_as_one(tmp_path):
    # The check added for a review refuses two topics with one English name "in any case"
    # (docs/curating.md), because "comments print names, and `/notes topic` takes one". But
    # `/notes topic` reads a name with spaces, `-` and `_` as one gap (`_topic_key`:
    # `cuda graphs`, `cuda_graphs` and `cuda-graphs` are one), and the check compares
    # case only. A curator names a topic "Expert-parallelism and elastic EP" beside
    # "Expert parallelism and elastic EP": `notes check` prints ok, the server starts.
    # What a reviewer sees: `/notes topic Expert-parallelism and elastic EP`, typed as
    # the comment prints it, answers with the other topic's notes; this topic's notes
    # are reached by its id only, which no comment shows.
    from bot.command_replies import _named_topic
    from bot.note_files import LibraryError

    topics = tmp_path / "topics.toml"
    text = DEFAULT_TOPICS_FILE.read_text(encoding="utf-8")
    hyphened = 'name_en = "Expert-parallelism and elastic EP"'
    topics.write_text(text.replace('name_en = "Elastic EP scaling"', hyphened, 1), "utf-8")
    try:
        library = load_library(library_copy(tmp_path), topics)
    except LibraryError:
        return  # refused, as two names differing in case are
    named = [t.id for t in library.topics.values() if "xpert" in t.name_en]
    found = _named_topic(library, "Expert-parallelism and elastic EP")
    raise AssertionError(f"loaded; /notes topic for {named} answers {found and found.id!r} only")


# --- a reason's first word taken for a note id ---------------------------------------------


def test_a_reason_starting_with_a_dated_build_is_a_reason():
    # The comment shows one note, so the number may be left out and "every word is then
    # the reason" (docs/commands.md). A reviewer writes `/notes wrong nightly-20250101 already has
    # this fix`. docs/commands.md says the word taken for a note not shown is one "shaped like a
    # note id (`vllm-` and 8 hex digits, a note deleted since)"; DERIVED_ID takes any
    # `<anything>-<8 hex digits>`, and a date is 8 hex digits. What they see: 😕 "not a
    # note the comment shows", nothing hidden, a note id they never typed in the reply.
    # (Likewise `main-1a2b3c4d` for a commit, `cu128-20250612` for a wheel.)
    from bot.wrong_reading import pick_note

    shown = ("vllm-0436d44c",)
    pick = pick_note(("nightly-20250101", "already", "has", "this", "fix"), shown, shown)
    assert pick.note_id == "vllm-0436d44c", pick
    assert pick.reason == "nightly-20250101 already has this fix"


# --- a note renamed twice --------------------------------------------------------------


def test_a_note_renamed_twice_is_still_found_by_the_id_it_had_in_between(tmp_path):
    # docs/curating.md (`id`): "a note renamed (file and id, its repository and Chinese title
    # kept) is still found by its former id: PRs it was hidden on keep it hidden, links
    # to it redirect". A curator renames vllm-0436d44c to vllm-renamed01; comments are
    # re-rendered with that id and a reviewer hides it on a PR (`dismissed` holds
    # vllm-renamed01). Later the curator renames it again, to vllm-renamed02. What users
    # see: the link /notes/vllm-renamed01 in the comments (and e-mails) is a 404, and at
    # the PR's next push the note hidden there is back. `Library.renamed` knows only the
    # ids the importer derives (from the repository and Chinese title), never an id a
    # curator gave, so only the first rename is followed.
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    rename_note(notes, "vllm-renamed01", "vllm-renamed02")
    # the fix: an id of the curator's own is no derived one: renaming it, they list it
    path = notes / "vllm-renamed02.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            'id = "vllm-renamed02"\n', 'id = "vllm-renamed02"\nformerly = ["vllm-renamed01"]\n'
        ),
        "utf-8",
    )
    library = load_library(notes, DEFAULT_TOPICS_FILE)
    assert library.current_id("vllm-0436d44c") == "vllm-renamed02"  # the first id: found
    assert library.current_id("vllm-renamed01") == "vllm-renamed02", "the hidden note is back"
    r = client_for(library).get("/notes/vllm-renamed01", follow_redirects=False)
    assert r.status_code == 308, r.status_code


# --- a renamed note, as a related PR's stored notes name it ---------------------------------


def test_a_revert_of_a_pr_that_got_a_renamed_note_gets_it(tmp_path, app_key, two_notes):
    # PR 7001's comment shows notes A and B. A curator renames B (file and id; docs/curating.md:
    # "a note renamed ... is still found by its former id") and the server restarts.
    # PR 7002 opens: "This reverts #7001". docs/matching.md ("Ties between PRs"): a PR "whose
    # description says it ... reverts ... a PR the bot showed the note on" gets the note
    # "by what the bot remembers in SQLite"; before the rename it got A and B. What its
    # author sees now: note A only. PR 7001's stored notes still name B by its former
    # id, and `related_notes` hands those ids to the matcher unmapped (the sticky
    # comment maps only `dismissed` through `Library.current_id`), which drops an id
    # the library lacks.
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import drain, post, pr_payload

    fake, notes, title = two_notes
    first, second = comment_shows(tmp_path, fake, app_key, notes, title)
    rename_note(notes, second, "vllm-renamed01")
    body, files, revert = (
        "This reverts #7001, which broke the nightly.",
        ["docs/usage/faq.md"],
        7002,
    )
    fake.add_pull(DEFAULT_REPO, revert, files=files, title="Revert a tidy-up", body=body)
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        payload = pr_payload(number=revert, title="Revert a tidy-up", body=body, files=files)
        post(client, "pull_request", payload)
        drain(rt)
        assert first in state(rt, revert).notes  # the note not renamed: got by the revert
        assert "vllm-renamed01" in state(rt, revert).notes, "the renamed note is lost"


def test_a_copy_is_one_note_whatever_the_case_of_its_repository(tmp_path):
    # (a review's note: no test had two copies whose repo differs only in case)
    from bot.note_files import LibraryError

    notes = library_copy(tmp_path)
    text = (notes / "vllm-0436d44c.md").read_text(encoding="utf-8")
    copy = text.replace('id = "vllm-0436d44c"', 'id = "vllm-copy0001"')
    copy = copy.replace('repo = "vllm-project/vllm"', 'repo = "VLLM-Project/vllm"')
    (notes / "vllm-copy0001.md").write_text(copy, "utf-8")
    with pytest.raises(LibraryError, match="the same note as"):
        load_library(notes, DEFAULT_TOPICS_FILE)


def test_a_note_imported_under_its_repositorys_written_case_is_found_after_a_rename(tmp_path):
    # Its id hashed the repository as the digest wrote it (`VLLM-Project/vllm`), before
    # ids ignored case: renamed since, stored marks under that id still find it.
    from bot.notes import note_id

    notes = library_copy(tmp_path)
    text = (notes / "vllm-0436d44c.md").read_text(encoding="utf-8")
    title = load_library(notes, DEFAULT_TOPICS_FILE).by_id["vllm-0436d44c"].title_zh
    written = note_id("VLLM-Project/vllm", title, as_written=True)
    assert written != "vllm-0436d44c"
    (notes / "vllm-0436d44c.md").unlink()
    moved = text.replace('id = "vllm-0436d44c"', 'id = "vllm-renamed01"')
    moved = moved.replace('repo = "vllm-project/vllm"', 'repo = "VLLM-Project/vllm"')
    (notes / "vllm-renamed01.md").write_text(moved, "utf-8")
    library = load_library(notes, DEFAULT_TOPICS_FILE)
    assert library.current_id(written) == "vllm-renamed01"
    assert library.current_id("vllm-0436d44c") == "vllm-renamed01"


def test_one_former_id_listed_by_two_notes_is_refused(tmp_path, capsys):
    from bot.cli import main

    notes = library_copy(tmp_path)
    for note_id in ("vllm-0436d44c", "vllm-0341d216"):
        path = notes / f"{note_id}.md"
        line = f'id = "{note_id}"\nformerly = ["vllm-eagle-fix"]\n'
        path.write_text(path.read_text("utf-8").replace(f'id = "{note_id}"\n', line), "utf-8")
    assert main(["notes", "check", str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]) == 1
    err = capsys.readouterr().err
    first, second = sorted(notes / f"{n}.md" for n in ("vllm-0436d44c", "vllm-0341d216"))
    assert f"{second}:3: formerly: 'vllm-eagle-fix' is a former id of {first} too" in err, err


def test_the_report_titles_a_mark_on_a_note_renamed_then_retired(tmp_path):
    from bot.cli_notes import _note_titles

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    retire(notes, "vllm-renamed01")
    titles = _note_titles(str(notes), str(DEFAULT_TOPICS_FILE))
    assert titles["vllm-0436d44c"] == f"{titles['vllm-renamed01']} (now vllm-renamed01)"
    assert titles["vllm-renamed01"].endswith("(retired)")


# --- for the sections below: a note's former ids, as a curator lists them ---


def add_formerly(notes: Path, note_id: str, *former: str) -> None:
    """A curator lists ids the note had before (`formerly = [...]`, docs/curating.md)."""
    path = notes / f"{note_id}.md"
    text = path.read_text(encoding="utf-8")
    listed = ", ".join(f'"{f}"' for f in former)
    line = f'id = "{note_id}"\nformerly = [{listed}]\n'
    path.write_text(text.replace(f'id = "{note_id}"\n', line), "utf-8")


# --- the curators' report with a renamed, then retired note --------------------------------


def test_the_curators_report_loads_titles_with_a_renamed_then_retired_note(tmp_path):
    # A curator renames vllm-0436d44c to vllm-renamed01, later retires it (both
    # supported, docs/curating.md). b776eb7 builds `Library.renamed` from retired notes too, so
    # it maps vllm-0436d44c -> vllm-renamed01, a retired note. `_note_titles` (the
    # titles of `review-notes notes feedback`) looks `titles[now]` up among the notes
    # in use only, before adding the retired ones: KeyError 'vllm-renamed01'. What a
    # curator sees: `notes feedback` dies with a traceback instead of the report.
    from bot.cli_notes import _note_titles

    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    retire(notes, "vllm-renamed01")
    titles = _note_titles(str(notes), str(DEFAULT_TOPICS_FILE))
    assert titles["vllm-renamed01"].endswith("(retired)")
    assert "vllm-renamed01" in titles["vllm-0436d44c"]


# --- a former id two notes are found by -----------------------------------------------------


@pytest.mark.parametrize(
    ("renames", "formerly", "said"),
    [
        (
            [("vllm-0341d216", "vllm-000renamed")],
            ("vllm-0436d44c", "vllm-0341d216"),
            "formerly: 'vllm-0341d216' is the id the importer gave",
        ),
        (
            [("vllm-0341d216", "vllm-renamed01"), ("vllm-0436d44c", "vllm-0341d216")],
            None,
            "id: 'vllm-0341d216' is the id the importer gave",
        ),
    ],
    ids=["listed-in-formerly", "taken-as-an-id"],
)
def test_a_renamed_notes_importer_id_is_refused_to_any_other_note(
    tmp_path, renames, formerly, said
):
    # A renamed note is still found by the id the importer gave it: posted links and
    # the marks of PRs it was hidden on name it so. Another note listing that id in
    # `formerly`, or taking it as its id, passed `notes check`, and then old links
    # opened the other note and hid it where the first had been hidden.
    notes = library_copy(tmp_path)
    for old, new in renames:
        rename_note(notes, old, new)
    if formerly is not None:
        add_formerly(notes, *formerly)
    with pytest.raises(LibraryError, match=said):
        load_library(notes, DEFAULT_TOPICS_FILE)


def test_two_notes_listing_one_former_id_are_refused(tmp_path):
    # Two curators each list `formerly = ["vllm-eagle-fix"]` (a merge done twice, a
    # copy-paste of a header). The check's message says "a former id names one note";
    # nothing refuses this one: `notes check` prints ok. What users see: the link
    # /notes/vllm-eagle-fix in posted comments leads to one of the two notes, chosen by
    # the ids' sort order, and a PR where vllm-eagle-fix was hidden hides that one; the
    # curators' report files the marks under it likewise.
    notes = library_copy(tmp_path)
    add_formerly(notes, "vllm-0436d44c", "vllm-eagle-fix")
    add_formerly(notes, "vllm-0341d216", "vllm-eagle-fix")
    with pytest.raises(LibraryError, match="formerly"):
        library = load_library(notes, DEFAULT_TOPICS_FILE)
        raise AssertionError(f"loaded: vllm-eagle-fix -> {library.current_id('vllm-eagle-fix')}")


# --- two topics `/notes topic` reads as one, by a name and an id ----------------------------


@pytest.mark.parametrize(
    "old, new",
    [
        # a topic named as another topic's id reads: `/notes topic Elastic EP`
        ('name_en = "Watermarking"', 'name_en = "Elastic EP"'),
        # two topic ids one key apart: `elastic-ep` and `elastic_ep`
        ('id = "watermarking"', 'id = "elastic_ep"'),
    ],
)
def test_check_flags_a_topic_name_or_id_that_notes_topic_reads_as_another_topics(
    tmp_path, old, new
):
    # b776eb7 refuses two topic *names* `/notes topic` reads as one (topic_key), but
    # `/notes topic` matches a topic's id as well as its name (`_named_topic`), and the
    # check compares names with names only. A curator names the watermarking topic
    # "Elastic EP" (or gives it the id `elastic_ep`): `notes check` prints ok. What a
    # reviewer sees: `/notes topic Elastic EP`, typed as the comment prints the
    # watermarking topic, answers with the elastic-ep topic's notes (the first topic in
    # the file whose id or name reads so); the watermarking topic is unreachable.
    from bot.command_replies import _named_topic

    topics = tmp_path / "topics.toml"
    text = DEFAULT_TOPICS_FILE.read_text(encoding="utf-8")
    assert old in text
    topics.write_text(text.replace(old, new, 1), "utf-8")
    if old.startswith("id ="):  # the notes about it name its id
        notes = library_copy(tmp_path)
        for path in notes.glob("*.md"):
            body = path.read_text(encoding="utf-8")
            path.write_text(body.replace('"watermarking"', '"elastic_ep"'), "utf-8")
    else:
        notes = library_copy(tmp_path)
    try:
        library = load_library(notes, topics)
    except LibraryError:
        return  # refused: fine
    if old.startswith("name_en"):
        typed = "Elastic EP"
        moved = next(t for t in library.topics.values() if t.name_en == typed)
    else:
        typed, moved = "elastic_ep", library.topics["elastic_ep"]
    found = _named_topic(library, typed)
    raise AssertionError(
        f"loaded; /notes topic {typed} answers {found and found.id!r}, not {moved.id!r}"
    )


def test_the_curators_report_gives_a_renamed_note_one_row_under_its_id_now(
    tmp_path, monkeypatch, capsys
):
    # Its showings and marks, stored under the id it had, and those since, under its new
    # one, were two rows: half the record each, the old one titled "(now ...)".
    import json

    from bot.cli import main
    from bot.db import Database
    from bot.feedback import Mark
    from bot.feedback_store import FeedbackStore
    from bot.prstate import PRStore

    clean_env(monkeypatch)
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    db = Database(tmp_path / "bot.sqlite3")
    prs, marks = PRStore(db), FeedbackStore(db)
    why = ("title mentions 'EAGLE'",)
    for number, shown in ((1, "vllm-0436d44c"), (2, "vllm-renamed01")):  # before, after
        prs.update(DEFAULT_REPO, number, notes=(), dismissed=(shown,), evidence={shown: why})
        marks.record(Mark(DEFAULT_REPO, number, shown, 1, "octo-dev", "", why, "2026-12-03"))
    db.close()
    argv = ["notes", "feedback", "--db", str(tmp_path / "bot.sqlite3"), "--json"]
    argv += [str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]
    assert main(argv) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    renamed = [r for r in rows if r["note"] in ("vllm-0436d44c", "vllm-renamed01")]
    assert [(r["note"], r["shown"], len(r["marks"])) for r in renamed] == [("vllm-renamed01", 2, 2)]


# --- the curators' report on retired and renamed notes ---


# kills: bot/cli_notes.py:_updated_of a retired note's marks made before its last update not flagged
#   (the curators weigh a mark on the note as it was, then retire it: the report must
#   still say which marks are older than the note's last change)
def test_the_curators_report_flags_marks_older_than_a_retired_notes_update(
    tmp_path, monkeypatch, capsys
):
    from bot.cli import main
    from bot.db import Database
    from bot.feedback import Mark
    from bot.feedback_store import FeedbackStore
    from bot.prstate import PRStore

    clean_env(monkeypatch)
    notes = library_copy(tmp_path)
    retire(notes, "vllm-0436d44c")  # updated = 2026-12-02
    db = Database(tmp_path / "bot.sqlite3")
    PRStore(db).update(DEFAULT_REPO, 1, notes=("vllm-0436d44c",), evidence={})
    FeedbackStore(db).record(Mark(DEFAULT_REPO, 1, "vllm-0436d44c", 1, "octo-dev", at="2026-11-30"))
    db.close()
    argv = ["notes", "feedback", str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]
    assert main([*argv, "--db", str(tmp_path / "bot.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "1 of the marks came before the note was updated on 2026-12-02" in out
    assert "(note 1 of the comment), 2026-11-30, before the update, by octo-dev" in out


# kills: bot/cli_notes.py:_cmd_notes_feedback a PR that showed the note under the id it had,
#   unmarked, left out of its terms' counts: the term behind the marks looked as if it linked
#   nothing else
def test_the_curators_report_counts_a_term_on_the_prs_that_showed_a_renamed_note_unmarked(
    tmp_path, monkeypatch, capsys
):
    import json

    from bot.cli import main
    from bot.db import Database
    from bot.feedback import Mark
    from bot.feedback_store import FeedbackStore
    from bot.prstate import PRStore

    clean_env(monkeypatch)
    notes = library_copy(tmp_path)
    rename_note(notes, "vllm-0436d44c", "vllm-renamed01")
    db = Database(tmp_path / "bot.sqlite3")
    prs = PRStore(db)
    why = ("title mentions 'EAGLE'",)
    for number in (1, 2):  # shown under the id it had, on PR 1 marked
        prs.update(DEFAULT_REPO, number, notes=("vllm-0436d44c",), evidence={"vllm-0436d44c": why})
    FeedbackStore(db).record(Mark(DEFAULT_REPO, 1, "vllm-0436d44c", 1, "octo-dev", "", why, "t"))
    db.close()
    argv = ["notes", "feedback", "--db", str(tmp_path / "bot.sqlite3"), "--json"]
    assert main([*argv, str(notes), "--topics", str(DEFAULT_TOPICS_FILE)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    (row,) = [r for r in rows if r["note"] in ("vllm-0436d44c", "vllm-renamed01")]
    assert row["note"] == "vllm-renamed01" and row["shown"] == 2
    assert row["terms"] == [{"term": "'EAGLE'", "marked": 1, "shown": 2}]

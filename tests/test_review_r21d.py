"""Review 'r21d': defects in the changes since 9617002 (renamed and retired notes, the
kept numbering of `/notes wrong`, the redirects). Each test is one defect: the comment
above it says what a user sees and why it is wrong."""

from __future__ import annotations

from bot.library import DEFAULT_TOPICS_FILE, load_library
from tests.test_command_events import AUTHOR, edit, say, state
from tests.test_library_changes import library_copy, rename_note, server, two_notes  # noqa: F401
from tests.test_pages import client_for

# --- redirects of a renamed note's links, behind a proxy -------------------------------


def test_a_renamed_notes_link_redirects_under_public_urls_path(tmp_path):
    # The operator serves the bot under https://example.org/review-notes (a proxy that
    # strips the prefix: README / notes_site, "a path in it ... is kept in every link the
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


def test_editing_a_wrong_made_before_the_upgrade_hides_the_same_note(tmp_path, app_key, two_notes):  # noqa: F811
    # Before this version, a comment's numbering was kept only in its first mark's
    # `shown` (feedback table); `numbering()` still falls back to it ("kept before that
    # was, when it first marked one"). A reviewer wrote `/notes wrong 1` before the
    # upgrade: note A was hidden, the comment now shows B as note 1. After the upgrade
    # they edit the comment to add why (`/notes wrong 1 not about EAGLE`), which README
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


def test_wrong_naming_a_retired_note_does_not_hide_the_one_note_left(tmp_path, app_key, two_notes):  # noqa: F811
    # A curator renamed note B to `vllm-renamed01` (README allows any id of
    # `[a-z0-9][a-z0-9._-]*`); the PR's comment showed A and vllm-renamed01. Later the
    # curator retired it (`retired = true`, README: "Retire a note rather than delete
    # its file"); after the restart a push re-rendered the comment, which now shows A
    # alone. The reviewer, reading the e-mail of the comment as it was, writes
    # `/notes wrong vllm-renamed01`. What they see: note A, the one they did NOT name,
    # disappears, and the report files a mark on A with "vllm-renamed01" as the reason.
    # README: "A number or id the comment does not show gets a short reply (😕) and
    # hides nothing". The id of a note the library still holds (retired) is not taken
    # for a note id: `known` is `library.by_id`, which leaves retired notes out, and
    # the id is not shaped like the importer's (DERIVED_ID).
    from tests.test_command_events import replies
    from tests.test_library_changes import push, retire

    fake, notes, title = two_notes
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
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
    # curator retired it. README (`retired`): "its page answers 410 saying so". What a
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


def test_a_wrong_edited_once_the_notes_comment_exists_hides_the_note(tmp_path, app_key, two_notes):  # noqa: F811
    # A reviewer writes `/notes wrong 1` before the bot has a notes comment on the PR;
    # the bot answers "There is no notes comment on this pull request; nothing was
    # hidden." Someone runs `/notes`: the comment now shows 1. A, 2. B. The reviewer
    # edits their comment to `/notes wrong 1 not relevant` (an edit is run again, as
    # README says of an edit that adds why). What they see: the reply "The notes comment
    # on this pull request shows no note; nothing was hidden", false, under a comment
    # showing two notes; note A stays, and so it does at every later edit of that
    # comment. The first read kept an empty numbering (nothing numbered), and
    # `_take_feedback` takes an empty kept numbering as the comment's (`is None`, where
    # 9617002 read `or state.notes`): before today the edit hid note A.
    from tests.test_command_events import replies

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
    # The check added for r21c refuses two topics with one English name "in any case"
    # (README), because "comments print names, and `/notes topic` takes one". But
    # `/notes topic` reads a name with spaces, `-` and `_` as one gap (`_topic_key`:
    # `cuda graphs`, `cuda_graphs` and `cuda-graphs` are one), and the check compares
    # case only. A curator names a topic "Expert-parallelism and elastic EP" beside
    # "Expert parallelism and elastic EP": `notes check` prints ok, the server starts.
    # What a reviewer sees: `/notes topic Expert-parallelism and elastic EP`, typed as
    # the comment prints it, answers with the other topic's notes; this topic's notes
    # are reached by its id only, which no comment shows.
    from bot.command_replies import _find_topic
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
    found = _find_topic(library, "Expert-parallelism and elastic EP")
    raise AssertionError(f"loaded; /notes topic for {named} answers {found and found.id!r} only")


# --- a reason's first word taken for a note id ---------------------------------------------


def test_a_reason_starting_with_a_dated_build_is_a_reason():
    # The comment shows one note, so the number may be left out and "every word is then
    # the reason" (README). A reviewer writes `/notes wrong nightly-20250101 already has
    # this fix`. README says the word taken for a note not shown is one "shaped like a
    # note id (`vllm-` and 8 hex digits, a note deleted since)"; DERIVED_ID takes any
    # `<anything>-<8 hex digits>`, and a date is 8 hex digits. What they see: 😕 "not a
    # note the comment shows", nothing hidden, a note id they never typed in the reply.
    # (Likewise `main-1a2b3c4d` for a commit, `cu128-20250612` for a wheel.)
    from bot.feedback import pick_note

    shown = ("vllm-0436d44c",)
    pick = pick_note(("nightly-20250101", "already", "has", "this", "fix"), shown, shown)
    assert pick.note_id == "vllm-0436d44c", pick
    assert pick.reason == "nightly-20250101 already has this fix"


# --- a note renamed twice --------------------------------------------------------------


def test_a_note_renamed_twice_is_still_found_by_the_id_it_had_in_between(tmp_path):
    # README (`id`): "a note renamed (file and id, its repository and Chinese title
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
    library = load_library(notes, DEFAULT_TOPICS_FILE)
    assert library.current_id("vllm-0436d44c") == "vllm-renamed02"  # the first id: found
    assert library.current_id("vllm-renamed01") == "vllm-renamed02", "the hidden note is back"
    r = client_for(library).get("/notes/vllm-renamed01", follow_redirects=False)
    assert r.status_code == 308, r.status_code


# --- a renamed note, as a related PR's stored notes name it ---------------------------------


def test_a_revert_of_a_pr_that_got_a_renamed_note_gets_it(tmp_path, app_key, two_notes):  # noqa: F811
    # PR 7001's comment shows notes A and B. A curator renames B (file and id; README:
    # "a note renamed ... is still found by its former id") and the server restarts.
    # PR 7002 opens: "This reverts #7001". README ("Ties between PRs"): a PR "whose
    # description says it ... reverts ... a PR the bot showed the note on" gets the note
    # "by what the bot remembers in SQLite"; before the rename it got A and B. What its
    # author sees now: note A only. PR 7001's stored notes still name B by its former
    # id, and `related_notes` hands those ids to the matcher unmapped (the sticky
    # comment maps only `dismissed` through `Library.current_id`), which drops an id
    # the library lacks.
    from tests.fake_github import DEFAULT_REPO
    from tests.webhook_kit import drain, post, pr_payload

    fake, notes, title = two_notes
    with server(tmp_path, fake, app_key, notes) as (client, rt):
        say(client, rt, fake, "/notes", title=title)
        first, second = state(rt).notes[:2]
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

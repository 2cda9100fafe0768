"""Slash-command parsing: what counts as a command, and what is only text about one."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.commands import (
    CommandConfig,
    Kind,
    changed_commands,
    load_command_config,
    parse_commands,
)


def kinds(text: str, **kw) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.kind.value, c.args) for c in parse_commands(text, **kw)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("/notes", [("refresh", ())]),
        ("/notes refresh", [("refresh", ())]),
        ("/notes why", [("why", ())]),
        ("/notes topic cuda-graphs", [("topic", ("cuda-graphs",))]),
        ("/notes search prefix cache", [("search", ("prefix", "cache"))]),
        ("/notes off", [("off", ())]),
        ("/notes on", [("on", ())]),
        ("/notes help", [("help", ())]),
        ("/notes frobnicate now", [("unknown", ("frobnicate", "now"))]),
        # case, spacing, tabs
        ("/NOTES Why", [("why", ())]),
        ("/Notes   SEARCH   EAGLE   缓存", [("search", ("EAGLE", "缓存"))]),
        ("/notes\twhy", [("why", ())]),
        ("   /notes why   ", [("why", ())]),
        # trailing words are kept, and do not change the sub-command
        ("/notes refresh please", [("refresh", ("please",))]),
        ("/notes off for this PR", [("off", ("for", "this", "PR"))]),
    ],
)
def test_one_command(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "/notesfoo",
        "/notes-bar why",
        "/notes.",
        "/ci run",
        "/lgtm",
        "/hold cancel",
        "notes why",
        "please run /notes why",  # not at the start of the line
        "- /notes why",  # a list item is text about the command
        "# /notes why",
        "",
        "   ",
    ],
)
def test_not_our_command(text):
    assert parse_commands(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "```\n/notes why\n```",
        "```python\n/notes why\n```",
        "~~~\n/notes why\n~~~",
        "~~~~ text\n/notes why\n~~~\nstill code\n~~~~",  # a shorter fence does not close it
        "````\n```\n/notes why\n````",  # nor does a shorter fence of the same kind
        "```\nunclosed fence\n\n/notes why",  # runs to the end, as GitHub renders it
        "  ```\n/notes why\n  ```",
        "To pause it:\n\n- ```\n  /notes off\n  ```",  # a fence opened on a list item's line
        "1. ```\n   /notes off\n   ```",
        "  * ~~~\n    /notes why\n    ~~~",
        "```\n/notes why\n~~~\n/notes off\n```",  # a tilde line does not close backticks
        "    /notes why",  # indented code
        "\t/notes why",
        "`/notes why`",
        "`` /notes why ``",
        "see `code\n/notes why` here",  # a code span may cross lines in a paragraph
        "`x`/notes why",
        "> /notes why",
        ">> /notes why",
        "> quoted\n> /notes off",
        "   > /notes why",
        "<!-- /notes why -->",
        "<!--\n/notes why\n-->",
        "<!-- unclosed comment\n/notes why",
        "<!-- x --> /notes why",
        "<pre>\n/notes why\n</pre>",
        "<code>/notes why</code>",
    ],
)
def test_commands_in_code_quotes_and_comments_are_ignored(text):
    assert parse_commands(text) == []


def test_a_quote_hides_its_own_lines_and_nothing_after_them():
    # A <pre> opened in a quote ends with the quote (the browser closes it with the
    # </blockquote>), so the next line is prose.
    assert kinds("> <pre>\n/notes off") == [("off", ())]
    # typed under a quote without a blank line: GitHub shows it in the quote, but the
    # author wrote it as their answer (README: a quoted command never runs; this is not one)
    assert kinds("> can the bot skip this PR?\n/notes off") == [("off", ())]


def test_an_html_comment_left_open_hides_the_rest_whatever_block_opened_it():
    # GitHub's HTML is "<blockquote><!-- ...</blockquote><p>/notes why</p>": the comment
    # runs to the next "-->" in raw HTML, and a "-->" typed as text is escaped (--&gt;)
    assert kinds("> <!-- left open in the quote\n/notes why") == []
    assert kinds("> <!--\n/notes why\n-->") == []
    assert kinds("> <!--\n\n/notes off\n\n<div>-->\n\n/notes why") == [("why", ())]


def test_a_fence_indented_four_spaces_is_indented_code_not_a_fence():
    # it opens nothing, so the command after it is read
    assert [c.kind for c in parse_commands("    ```\n/notes why")] == [Kind.WHY]


def test_after_a_fence_in_a_list_item_commands_are_read_again():
    text = "- ```\n  /notes off\n  ```\n\n/notes why"
    assert [c.kind for c in parse_commands(text)] == [Kind.WHY]


def test_text_after_a_closed_block_is_read_again():
    text = (
        "```sh\n/notes off\n```\n"
        "<!-- /notes on -->\n"
        "> /notes help\n"
        "~~~\n/notes search x\n~~~\n"
        "`a`\n"
        "/notes why\n"
    )
    assert kinds(text) == [("why", ())]


def test_a_fence_inside_an_html_comment_opens_nothing():
    assert kinds("<!--\n```\n-->\n/notes why") == [("why", ())]


def test_an_html_comment_inside_a_fence_hides_nothing_after_it():
    assert kinds("```html\n<!-- never closed\n```\n/notes why") == [("why", ())]


def test_backtick_fence_with_backtick_in_info_string_is_inline_code_not_a_fence():
    # "```a`b" is not a fence opener, so the next line is prose.
    assert kinds("```a`b\n/notes why") == [("why", ())]


def test_code_in_arguments_keeps_its_words_and_hidden_html_is_dropped():
    cmds = parse_commands("/notes search `kv_cache` <!-- not this --> manager")
    assert cmds[0].kind is Kind.SEARCH
    assert cmds[0].args == ("`kv_cache`", "manager")
    assert cmds[0].line == "/notes search `kv_cache` manager"


def test_several_commands_in_one_comment_in_order():
    text = "Thanks!\n/notes why\nsome text\n/notes topic rocm\n\n/notes search EAGLE\n"
    assert kinds(text) == [("why", ()), ("topic", ("rocm",)), ("search", ("EAGLE",))]


def test_crlf_and_cr_line_endings():
    assert kinds("hello\r\n/notes why\r\n/notes off\r\n") == [("why", ()), ("off", ())]
    assert kinds("hello\r/notes why") == [("why", ())]
    assert kinds("```\r\n/notes why\r\n```\r\n/notes help") == [("help", ())]


def test_identical_commands_count_once_whatever_their_case():
    text = "/notes\n/notes refresh\n/NOTES REFRESH\n/notes search Foo\n/notes search foo"
    assert kinds(text) == [("refresh", ()), ("search", ("Foo",))]


def test_cap_on_commands_per_comment():
    text = "\n".join(f"/notes topic t{i}" for i in range(20))
    cmds = parse_commands(text)
    assert [c.args[0] for c in cmds] == ["t0", "t1", "t2", "t3", "t4"]
    assert len(parse_commands(text, max_commands=2)) == 2


def test_cap_on_argument_length_keeps_whole_words():
    words = " ".join(["word"] * 100)  # 499 characters
    cmd = parse_commands(f"/notes search {words}")[0]
    assert len(cmd.text) <= 100
    assert set(cmd.args) == {"word"}
    long_one = parse_commands("/notes search " + "x" * 5000, max_arg_chars=50)[0]
    assert long_one.args == ("x" * 50,)
    assert len(long_one.line) <= len("/notes ") + 50


def test_configurable_word():
    text = "/notes why\n/review-notes why\n/review-notes"
    assert kinds(text, word="/review-notes") == [("why", ()), ("refresh", ())]
    assert kinds(text, word="/Review-Notes") == [("why", ()), ("refresh", ())]


@pytest.mark.parametrize("word", ["notes", "/", "/no tes", "/notes\n", "", "/" + "x" * 40])
def test_bad_word_is_a_clear_error(word):
    with pytest.raises(ValueError, match="command word"):
        parse_commands("/notes", word=word)


def test_kind_tells_how_the_command_is_answered():
    sticky = {k for k in Kind if k.updates_sticky}
    reply = {k for k in Kind if k.replies}
    assert sticky == {Kind.REFRESH, Kind.WHY, Kind.OFF, Kind.ON, Kind.WRONG, Kind.RESTORE}
    assert reply == {Kind.TOPIC, Kind.SEARCH, Kind.HELP, Kind.UNKNOWN}


# --- edited comments ---------------------------------------------------------------


def test_edit_that_touches_only_prose_runs_nothing():
    old = "/notes why\nthanks"
    assert changed_commands(old, "/notes why\nthanks a lot!", "/notes") == []


def test_edit_that_adds_a_command_runs_only_that_one():
    old = "/notes why"
    new = "/notes why\n/notes topic rocm"
    assert [(c.kind.value, c.args) for c in changed_commands(old, new)] == [("topic", ("rocm",))]


def test_edit_that_changes_a_command_runs_the_new_version():
    got = changed_commands("/notes search EAGLE", "/notes search MTP")
    assert [(c.kind.value, c.args) for c in got] == [("search", ("MTP",))]


def test_edit_that_only_changes_case_or_spacing_runs_nothing():
    assert changed_commands("/notes search EAGLE", "/NOTES  search  eagle") == []


def test_edit_that_unquotes_a_command_runs_it():
    got = changed_commands("> /notes off", "/notes off")
    assert [c.kind for c in got] == [Kind.OFF]


def test_edit_with_unknown_previous_body_runs_everything():
    got = changed_commands(None, "/notes why\n/notes off")
    assert [c.kind for c in got] == [Kind.WHY, Kind.OFF]


def test_edit_diff_is_capped_after_diffing():
    old = "\n".join(f"/notes topic t{i}" for i in range(5))
    new = old + "\n/notes topic extra"
    got = changed_commands(old, new, max_commands=5)
    assert [c.args for c in got] == [("extra",)]


# --- configuration -----------------------------------------------------------------


def test_shipped_config_loads_and_matches_defaults():
    cfg = load_command_config()
    assert cfg.word == "/notes"
    assert cfg.max_commands >= 1


def test_bad_config_is_rejected(tmp_path: Path):
    bad = tmp_path / "commands.toml"
    bad.write_text('word = "notes"\n', "utf-8")
    with pytest.raises(ValueError, match="word"):
        load_command_config(bad)
    bad.write_text("max_comands = 3\n", "utf-8")
    with pytest.raises(ValueError, match="max_comands"):
        load_command_config(bad)
    bad.write_text("max_results = [\n", "utf-8")  # the file named, for the start-up message
    with pytest.raises(ValueError, match=f"{bad}: malformed TOML"):
        load_command_config(bad)
    assert CommandConfig().word == "/notes"


def test_a_command_on_a_list_items_line_is_text_one_on_its_own_line_under_it_runs():
    assert kinds("- /notes off") == [] and kinds("1. /notes why") == []
    # its own line under the item: the author typed it there, as right after a quote
    assert kinds("- ask the author, who writes\n  /notes off") == [("off", ())]
    assert kinds("1. step\n\n   /notes why") == [("why", ())]
    assert kinds("1. step\n\n    /notes why") == []  # four spaces: indented code


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<!-->\n/notes why", [("why", ())]),  # empty comments, closed at once
        ("<!--->\n/notes why", [("why", ())]),
        ("<!---->\n/notes why", [("why", ())]),
        ("<!--\n->\n/notes why", []),  # not a close on a later line
        ('<pre\nclass="x">\n/notes off\n</pre>', []),  # attributes on the next line
        ("text <code\nclass=x>\n/notes off\n</code>", []),
        ("<pre/>\n/notes off\n</pre>", []),  # a <pre> start tag to a browser
        ("<predator>\n/notes why", [("why", ())]),
    ],
)
def test_html_comments_and_pre_tags_as_a_browser_reads_them(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # indented code cannot interrupt a paragraph: the line goes on with it, and a
        # code span runs through it
        ("a `\n    b\n/notes off\n`", []),
        ("a\n    ```\n/notes off\n    ```", []),
        ("text\n    /notes why", []),  # four spaces: not a command either way
        # after a blank line it is indented code, as before
        ("text\n\n    `\n/notes why\n`", [("why", ())]),  # its backtick pairs nothing
        ("text\n\n    <!--\n/notes why", [("why", ())]),
    ],
)
def test_an_indented_line_right_after_a_paragraphs_line_continues_it(text, expected):
    assert kinds(text) == expected


def test_a_command_in_an_html_comment_after_a_code_span_across_lines_stays_text():
    # "`foo\nbar`" is one code span; the `<!--` after it hides the lines up to `-->`
    assert kinds("see `foo\nbar` and <!-- a ` in here\n/notes off\n-->") == []


# --- GitHub's blocks, as a CommonMark parser reads them -------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a fence opened on a list item's line ends with the item: the line after the
        # list is prose, and a fence typed later opens anew
        ("- ```\n/notes why\n```", [("why", ())]),
        ("- ```\n  x\n\n```\n/notes why\n```", []),
        # a <pre> block ends at the line of its </pre>; an HTML comment inside it nests and
        # hides that </pre> and everything after, since a "-->" typed as text is escaped
        ("<pre>\nx\n</pre>\n/notes why", [("why", ())]),
        ("<pre>\n<!--\n</pre>\n/notes why\n-->", []),
        # a link reference definition is not shown, nor is a link's title
        ('[foo]: /url "title\n/notes why"\n\n[foo]', []),
        ("[a](https://x 'title\n/notes why')", []),
        ("[a\n/notes why](https://x)", [("why", ())]),  # link text is shown
        # raw HTML written as inline code is code, not HTML
        ("use `<!--` to hide\n/notes why", [("why", ())]),
        ("`<pre>`\n/notes why", [("why", ())]),
        # "<!--" with no "-->" in its paragraph is text (GitHub shows "<!-- b")
        ("a <!-- b\n\n/notes why", [("why", ())]),
        # a <div> shows its text; a <code> opened inline hides to its end tag, across blocks
        ("<div>\n/notes why\n</div>", [("why", ())]),
        ("see <code>\n\n/notes off\n\n</code>\n\n/notes why", [("why", ())]),
        # a heading is shown: a command right above a rule is read
        ("/notes off\n---\nthanks", [("off", ())]),
        ("\\/notes why", []),  # an escaped slash: the source is not the command
        ("![a\n/notes why](https://x/i.png)", []),  # an image's alt text is not shown
    ],
)
def test_blocks_and_inline_html_as_github_shows_them(text, expected):
    assert kinds(text) == expected


def test_a_command_under_a_deep_list_or_quote_is_still_read():
    deep_list = "\n".join("  " * i + "- item" for i in range(12))
    assert kinds(deep_list + "\n\n/notes why") == [("why", ())]
    assert kinds("> " * 300 + "x\n\n/notes why") == [("why", ())]
    # past MAX_DEPTH (400) elements deep nothing is read: the safe side, and a bounded cost
    assert kinds("> " * 500 + "x\n\n/notes why") == []


def test_comments_without_the_word_at_a_line_start_are_not_rendered(monkeypatch):
    from bot import comment_prose

    calls = []
    real = comment_prose._render
    monkeypatch.setattr(comment_prose, "_render", lambda text: calls.append(text) or real(text))
    assert parse_commands("LGTM, thanks! see /notes why\n> /notes off") == []
    assert calls == []
    assert kinds("/notes why") == [("why", ())] and len(calls) == 2  # marked, and as typed


_PIECES = [
    *("> ", "- ", "1. ", "   ", "    ", "\t", "```", "~~~", "`", "<!--", "-->", "<pre>"),
    *("</pre>", "<div>", "<code>", "[a]: /u 'x", "'", "[a](", ")", "x", "#", "---", "*"),
    *("\\", "<", ">", "&amp;", "![a](b)", "/notes why", "/notes off", "\n", "\n", "\n\n"),
]
_MARKDOWN = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(text=_MARKDOWN)
def test_nothing_inside_a_fence_runs_and_nothing_breaks_the_parser(text):
    parse_commands(text)  # any text: no error
    text = re.sub("`{8,}", "`", text)  # nothing in it closes the fence below
    assert parse_commands("````````\n" + text + "\n````````") == []


# --- raw HTML, as the browser reads what cmark-gfm passes through (review 'parser') ---
# Each was checked against cmark-gfm and an HTML5 parser (html5lib) by the review.


@pytest.mark.parametrize(
    "text",
    [
        # a start tag still open at a line's end: the next lines are its attributes
        "<div\n/notes off\n>",
        '<div title="\n/notes off\n">',
        '<div>\n<img alt="\n/notes off\n">\n</div>',
        "<p><x\n/notes off",
        # "<?", "<!X", "<![CDATA[" and "</ " open a bogus comment to the next ">"
        "<?x\n/notes off\n?>",
        "<!X\n/notes off\n>",
        "<![CDATA[\n/notes off\n]]>",
        "<div>\n</ \n/notes off\n>\n</div>",
        # an end tag inside an attribute or a bogus comment closes nothing
        '<pre>\n<a title="</pre>">\n/notes off\n</pre>',
        'x <code><span title="</code>">y\n/notes off\n</code>',
        "<pre>\n<? </pre> ?>\n/notes off\n</pre>",
        # GFM's extended autolink takes the backtick, so the next two pair around the command
        "www.a.com/` `\n/notes off\n`",
        "see https://a.com/x` `\n/notes off\n`",
        # a private-use character the comment holds is kept, as GitHub keeps it
        "a `\ue000`` \n/notes off\n``",
        # a full reference link's label is not shown
        "[see][\n/notes off]\n\n[/notes off]: https://x",
        "![see][\n/notes off]\n\n[/notes off]: https://x",
        # raw HTML left open in a quote nested deeper than any parser limit
        "> " * 101 + "<!--\n\n/notes off",
        "> " * 101 + "x <code>\n\n/notes off",
    ],
)
def test_what_github_hides_in_raw_html_and_links_does_not_run(text):
    assert kinds(text) == []


def test_a_comment_holding_every_private_use_character_reads_nothing():
    every = "".join(chr(c) for c in (*range(0xE000, 0xF900), *range(0xF0000, 0xFFFFE)))
    assert kinds("/notes why\n" + every) == []
    assert kinds("/notes why\n" + every[1:]) == [("why", ())]  # one left free for the mark


# --- review 'parser2': what the renderer alone does not say -------------------------


@pytest.mark.parametrize(
    "text",
    [
        # the depth guard as an HTML5 parser nests: "<q/>" opens, a stray end tag closes
        # nothing, a "<" in an attribute value is no tag
        "<q/>" * 500 + "\n/notes why",
        "<div/>" * 500 + "\n/notes why",
        "</x>" * 500 + "<q>" * 500 + "\n/notes why",
        "<q title='<'>" * 500 + "\n/notes why",
        # a newline in raw HTML is a space: GitHub shows "please do not type /notes off"
        "<div>\nplease do not type\n/notes off\n</div>",
        "<div>\nsee <b>this</b>\n/notes off\n</div>",
        # <rp> is allowed by GitHub's sanitizer and not displayed
        "<ruby>x<rp>\n/notes off\n</rp></ruby>",
        "<rp>\n/notes off\n</rp>",
        # a link label holding a link of its own is still a hidden label
        "[a][\n/notes off\n<a href=x>]\n\n[/notes off <a href=x>]: https://x",
        "[a][\n/notes off\n<http://x.com>]\n\n[/notes off <http://x.com>]: https://x",
        # a footnote nothing refers to is not shown; a $$ block is a formula
        "[^x]: hidden\n/notes off",
        "$$\n/notes off\n$$",
        "The bound:\n$$\n/notes off\n$$",
        # a control character is no space: GitHub shows "/notesoff"
        "/notes\x1coff",
    ],
)
def test_what_github_hides_or_joins_does_not_run(text):
    assert kinds(text) == []


def test_a_referenced_footnote_and_text_after_a_math_block_are_read():
    assert kinds("see[^x]\n\n[^x]: a footnote\n/notes why") == [("why", ())]
    assert kinds("$$\nx^2\n$$\n/notes why") == [("why", ())]

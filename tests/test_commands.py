"""Slash-command parsing: what counts as a command, and what is only text about one."""

import re
from itertools import takewhile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot import commands, comment_prose, notes, search, wrong_reading
from bot.command_policy import Decision, most_writes
from bot.commands import (
    Command,
    CommandConfig,
    Kind,
    changed_commands,
    load_command_config,
    parse_commands,
    unbracketed,
)
from bot.comment_prose import BLANKS, command_lines, is_symbol
from bot.flood_control import FloodControl
from bot.library import load_library
from tests.test_flood_control import FakeClock


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
        # sentence punctuation after the sub-command ends a sentence, as an input method
        # types it too (no space after a Chinese comma); an unknown word keeps its own
        ("/notes off.", [("off", ())]),
        ("/notes why?", [("why", ())]),
        ("/notes on!", [("on", ())]),
        ("/notes off。", [("off", ())]),
        ("/notes help！", [("help", ())]),
        ("/notes off，谢谢", [("off", ("谢谢",))]),
        ("/notes topic: cuda-graphs", [("topic", ("cuda-graphs",))]),
        ("/notes off～", [("off", ())]),  # informal Chinese ends a sentence with a tilde
        ("/notes restore~", [("restore", ())]),
        ("/notes off\u301c", [("off", ())]),  # Japanese's wave dash, as the tilde
        ("/notes frob.", [("unknown", ("frob.",))]),
        # the same right after the command word: the writer ended the sentence with it
        # (a line "/notes." under "please run:", iOS typing a double space "/notes. "),
        # so it is the bare command, and what follows is the next sentence, not a
        # sub-command (`/notes. Off topic, but ...` must not turn the bot off)
        ("/notes.", [("refresh", ())]),
        ("/notes. ", [("refresh", ())]),
        ("/notes。", [("refresh", ())]),
        ("/notes!", [("refresh", ())]),
        ("/notes？", [("refresh", ())]),
        ("/notes...", [("refresh", ())]),
        ("/notes……", [("refresh", ())]),
        ("/notes. Off topic, but thanks", [("refresh", ())]),
        ("/notes。谢谢", [("refresh", ())]),
        ("/notes，off", [("refresh", ())]),
        ("/notes～谢谢", [("refresh", ())]),
        ("/notes~", [("refresh", ())]),
        ("/notes\u301cありがとう", [("refresh", ())]),
        ("/NOTES\u200b.", [("refresh", ())]),
        ("/notes.\u200b", [("refresh", ())]),
    ],
)
def test_one_command(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "/notesfoo",
        "/notes-bar why",
        # the singular is not our word: left alone, no did-you-mean reply (another tool's
        # `/note`, or a person's label, would get one; a typo shows itself by no 👀)
        "/note why",
        "/note wrong 2",
        # punctuation that does not end a sentence there: a path, a URL's port or query
        "/notes.py",
        "/notes.md is where they live",
        "/notes/foo",
        "/notes:8080",
        "/notes~backup",
        "/notes?x=1",
        "/notes.<b>x</b>",  # shown as "/notes.x"
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
    # author wrote it as their answer (docs/commands.md: a quoted command never runs; this
    # is not one)
    assert kinds("> can the bot skip this PR?\n/notes off") == [("off", ())]


@pytest.mark.parametrize(
    "text",
    [
        "<blockquote>\n/notes wrong 1\n</blockquote>",
        "<BLOCKQUOTE>\n/notes off</BLOCKQUOTE>",
        "<blockquote>\n\n/notes wrong 1 renames only\n\n</blockquote>",
        "<blockquote>quoted<br>\n/notes off\n</blockquote>",
        "<blockquote cite='x'>\n<p>\n/notes off\n</p>\n</blockquote>",
        # a `>` quote's lazy line, inside a quote typed in HTML: quoted all the same
        "<blockquote>\n\n> asked\n/notes off\n\n</blockquote>",
        "> asked\n<blockquote>\n/notes off\n</blockquote>",
    ],
)
def test_a_command_inside_a_blockquote_typed_in_html_is_quoted_text(text):
    # GitHub shows it inside a quote, as `> /notes wrong 1`: whoever wrapped it in
    # <blockquote> quoted it (a reply quoting someone's command must not run it); only a
    # `>` quote's lazy line is the author's own, typed under the quote
    assert kinds(text) == []
    # the quote typed in HTML ends, and what follows it is read again
    assert kinds(text + "\n\n/notes why") == [("why", ())]


# A reply by email from Outlook: the original quoted under its header, with no `>`; GitHub
# keeps the reply's addresses hidden in its text (`***@***.***`)
OUTLOOK_REPLY = (
    "Thanks, that makes sense.\n\n"
    "________________________________\n"
    "From: Alice ***@***.***>\n"
    "Sent: Monday, December 7, 2026 1:00 PM\n"
    "To: vllm-project/vllm ***@***.***>\n"
    "Cc: Subscribed ***@***.***>\n"
    "Subject: Re: [vllm-project/vllm] [Core] Keep prefix-cache hits (PR #52419)\n\n"
    "/notes wrong 1\n\n"
    "/notes off\n\n"
    "—\n"
    "Reply to this email directly, view it on GitHub, or unsubscribe.\n"
)


@pytest.mark.parametrize(
    "text",
    [
        OUTLOOK_REPLY,
        OUTLOOK_REPLY.replace("\n", "\r\n"),
        # iOS Mail quotes with no `>` either
        "ok\n\nOn Dec 7, 2026, at 1:00 PM, Alice ***@***.***> wrote:\n\n\n\n/notes wrong 1\n",
        "ok\n\nOn Mon, Dec 7, 2026 at 1:00 PM Alice <notifications@github.com> wrote:\n\n"
        "/notes wrong 1\n",
        # Gmail wraps its header line; the address opens the quote all the same
        "ok\n\nOn Mon, Dec 7, 2026 at 1:00 PM Alice <\nNotifications@GitHub.com> wrote:\n"
        "/notes off\n",
    ],
)
def test_the_comment_an_email_reply_quotes_runs_no_command(text):
    # an email client quoting the notification without `>` (Outlook) left the comment it
    # answers in the reply's text, commands at their lines' starts; GitHub folds the quote
    # away behind "…", and its commands are the other person's: run again as the replier's
    # (another reply notifying everyone, or an `off` someone took back) they must not be
    assert kinds(text) == []
    # what the replier wrote above the quote runs
    assert kinds("/notes why\n\n" + text) == [("why", ())]


def test_below_an_email_replys_quote_in_gt_lines_the_replier_writes_again():
    # Gmail and mutt quote with `>`: those lines run nothing, and what follows them is the
    # reply written below the quote
    reply = "On Mon, Dec 7, 2026 at 1:00 PM Alice ***@***.***> wrote:\n\n> /notes off?\n>\n\n"
    assert kinds(reply + "/notes off\n") == [("off", ())]
    assert kinds(reply) == []


@pytest.mark.parametrize(
    "text",
    [
        # an email reply naming someone by address in its own words (GitHub hides it)
        "Thanks ***@***.*** for the catch.\n\n/notes wrong 1 unrelated\n\n"
        "On Mon, Dec 7, 2026 at 1:00 PM Alice ***@***.***> wrote:\n\n> hi\n",
        # a comment typed on GitHub that names the sender's address in its prose or code
        "Our filter drops mail from notifications@github.com, so:\n\n/notes wrong 1 unrelated\n",
        "Mail from `notifications@github.com` is filtered.\n/notes wrong 1 unrelated\n",
    ],
)
def test_an_address_in_the_repliers_own_words_is_no_email_quotes_header(text):
    # only a header line names the sender as `Name <address>` (hidden: `Name ***@***.***>`);
    # an address in prose above a command took the command for quoted text
    assert kinds(text) == [("wrong", ("1", "unrelated"))]


@pytest.mark.parametrize(
    "above",
    [
        # by email, GitHub hides every address of the reply as it hides the header's
        "cc Jane ***@***.***>",
        "Looping in Jane ***@***.***> here.",
        "Cc: Jane ***@***.***>",  # a label, but no header block under it
        "Jane ***@***.***> wrote the fix;",
        # typed on GitHub: an autolink, as the header names the sender
        "cc GitHub <notifications@github.com>",
    ],
)
def test_a_name_and_address_in_the_repliers_own_words_is_no_email_quotes_header(above):
    # the address closed by `>` took any line naming someone so for the header of a quote:
    # the replier's own command under it ran nothing
    assert kinds(f"{above}\n/notes wrong 2\n") == [("wrong", ("2",))]
    assert kinds(f"{above}\n\n/notes wrong 2\n") == [("wrong", ("2",))]
    # and a real header below it still quotes what follows it
    reply = "On Mon, Dec 7, 2026 at 1:00 PM Alice ***@***.***> wrote:\n\n/notes off\n"
    assert kinds(f"{above}\n/notes wrong 2\n\n{reply}") == [("wrong", ("2",))]


@pytest.mark.parametrize(
    "header",
    [
        # Gmail in Chinese, Japanese and French: the attribution ends in a colon after the
        # address, as `wrote:` does
        "Alice ***@***.***> 于2026年12月7日周一 13:00写道：",
        "2026年12月7日(月) 13:00 Alice ***@***.***>:",
        "Le lun. 7 déc. 2026 à 13:00, Alice ***@***.***> a écrit :",
        # Gmail wrapping its attribution: `wrote:` on a line of its own, or the date's end
        "On Mon, Dec 7, 2026 at 1:00 PM Alice Somebody-With-A-Long-Name ***@***.***>\nwrote:",
        "Alice ***@***.***> 于2026年12月7日周一\n下午1:00写道：",
        # Outlook's block, in Chinese too: the sender's line, then more of the header's
        "From: Alice ***@***.***>\nSent: Monday, December 7, 2026 1:00 PM",
        "发件人: Alice ***@***.***>\n发送时间: 2026年12月7日 13:00",
        "*From:* Alice ***@***.***>\n*Date:* Monday, December 7, 2026 1:00 PM",
        # Outlook's label for the date in Spanish, Finnish, Czech, Turkish, Hungarian and
        #   Ukrainian: `Enviado el:` (a word after `Enviado`) and these were read as the
        #   replier's own fields, and the quoted command under them ran
        "De: Alice ***@***.***>\nEnviado el: lunes, 7 de diciembre de 2026 13:00",
        "Lähettäjä: Alice ***@***.***>\nLähetetty: maanantai 7. joulukuuta 2026 13.00",
        "Od: Alice ***@***.***>\nOdesláno: 7. prosince 2026 13:00",
        "Kimden: Alice ***@***.***>\nGönderildi: 7 Aralık 2026 Pazartesi 13:00",
        "Feladó: Alice ***@***.***>\nElküldve: 2026. december 7. 13:00",
        "Від: Alice ***@***.***>\nНадіслано: 7 грудня 2026 р. 13:00",
        # and the date's other labels in those languages that mail parsers list (Yahoo
        #   Mail's, Apple Mail's and the new Outlook's): they were the replier's own fields
        "Kimden: Alice ***@***.***>\nGönderilen: 7 Aralık 2026 Pazartesi 13:00",
        "Kimden: Alice ***@***.***>\nTarih: 7 Aralık 2026 13:00",
        "Від: Alice ***@***.***>\nВідправлено: понеділок, 7 грудня 2026 р. 13:00",
        "Lähettäjä: Alice ***@***.***>\nPäivämäärä: 7. joulukuuta 2026 klo 13.00",
        "Lähettäjä: Alice ***@***.***>\nPäiväys: 7.12.2026 13.00",
        "Feladó: Alice ***@***.***>\nDátum: 2026. december 7. 13:00",
        # an older Outlook on Windows: the address in `[mailto:...]`
        "From: Alice [mailto:***@***.***]\nSent: Monday, December 7, 2026 1:00 PM",
        "From: Alice [mailto:notifications@github.com]\nSent: Monday, December 7, 2026",
        # Thunderbird's block: the date above the sender
        "Subject: Re: x\nDate: Mon, 7 Dec 2026 13:00\nFrom: Alice ***@***.***>\nTo: y",
    ],
)
def test_an_email_clients_header_in_any_language_quotes_what_follows(header):
    assert kinds(f"ok\n\n{header}\n\n/notes wrong 1\n") == []
    assert kinds(f"/notes why\n\n{header}\n/notes wrong 1\n") == [("why", ())]


# a block of fields naming people by address in the replier's own words is no mail's header:
#   `Owner: Jane <address>` over `Reviewer: Bob <address>`, both lines a header field's shape,
#   read as Outlook's block (`From:` over `Sent:`) and the reply's command under it ran nothing
@pytest.mark.parametrize(
    "block",
    [
        "Owner: Jane ***@***.***>\nReviewer: Bob ***@***.***>",
        "负责人: Jane ***@***.***>\n审阅人: Bob ***@***.***>",
        "Owner: Jane <notifications@github.com>\nBackup: Bob ***@***.***>\nTeam: Core",
        # a date of the replier's own (a deadline) is no mail's: `Due: 2026-12-09` read as
        #   Outlook's `Sent:` and the command under it ran nothing
        "Owner: Jane ***@***.***>\nDue: 2026-12-09",
        "Due: 2026-12-09 17:00\nOwner: Jane ***@***.***>",
        "负责人: Jane ***@***.***>\n截止: 2026年12月9日",
    ],
)
def test_fields_naming_people_in_the_repliers_own_words_are_no_email_quotes_header(block):
    assert kinds(f"{block}\n/notes wrong 2\n") == [("wrong", ("2",))]
    assert kinds(f"{block}\n\n/notes wrong 2\n") == [("wrong", ("2",))]
    # a mail's block has its date, or GitHub's subject naming the repository, by the sender
    for field in ("Sent: Monday, December 7, 2026", "Date: 13:00", "Subject: Re: [o/r] x"):
        assert kinds(f"{block}\n{field}\n\n/notes wrong 2\n") == []


_HEADERS = [
    "On Mon, Dec 7, 2026 at 1:00 PM Alice ***@***.***> wrote:",
    "On Dec 7, 2026, at 1:00 PM, Alice <notifications@github.com> wrote:",
    "Alice ***@***.***> 于2026年12月7日周一 13:00写道：",
    "On Mon, Dec 7, 2026 at 1:00 PM Alice ***@***.***>\nwrote:",
    "From: Alice ***@***.***>\nSent: Monday, December 7, 2026 1:00 PM\nSubject: Re: x",
]
# the replier's own words: names, addresses as GitHub hides them, prose; no colon
_OWN_WORDS = st.lists(
    st.sampled_from(
        ["cc", "Jane", "***@***.***>", "<notifications@github.com>", "thanks", "see", "，", "."]
    ),
    min_size=1,
    max_size=8,
).map(" ".join)


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(
    lines=st.lists(_OWN_WORDS, min_size=1, max_size=4),
    header=st.sampled_from(_HEADERS),
    blank=st.booleans(),
)
def test_own_words_never_hide_a_command_and_a_header_below_them_still_quotes(lines, header, blank):
    above = ("\n\n" if blank else "\n").join(lines)
    assert kinds(f"{above}\n/notes wrong 2\n") == [("wrong", ("2",))]
    assert kinds(f"{above}\n/notes wrong 2\n\n{header}\n\n/notes off\n") == [("wrong", ("2",))]
    assert kinds(f"{above}\n\n{header}\n/notes wrong 2\n") == []


# Lines an email reply's header, the replier's own fields and prose are made of: senders'
# lines (a header field or not), fields with the mail's date or subject, other fields
_MAIL_LINES = st.sampled_from(
    [
        "From: Alice ***@***.***>",
        "Cc: Bob <notifications@github.com>",
        "From: Alice [mailto:***@***.***]",
        "发件人: Alice ***@***.***>",
        "cc Jane ***@***.***>",
        "Alice ***@***.***> wrote:",
        "Sent: Monday, December 7, 2026 1:00 PM",
        "*Date:* 13:00",
        "Subject: Re: [o/r] x",
        "To: x",
        "Owner: Jane",
        "Due: 2026-12-09",
        "2026",
        "wrote:",
        "> /notes off",
        "/notes why",
        "",
    ]
)


def _mail_block_from_the_text(text: str, start: int, end: int) -> bool:
    """Whether the line from `start` to `end` is a header field in a mail's block, read
    from the text as the rule says it (the lines around it cut from the text, each read
    again for every sender near it: the reading `_HeaderFields` must agree with)."""
    most, field = comment_prose._MOST_FIELDS, comment_prose._HEADER_FIELD.match
    above = text[: start - 1].rsplit("\n", most)[-most:] if start else []
    below = text[end + 1 :].split("\n", most)[:most]
    fields = [*takewhile(field, reversed(above)), *takewhile(field, below)]
    sent, subject = comment_prose._SENT_FIELD.match, comment_prose._GITHUB_SUBJECT.search
    dated = any(sent(line) or subject(line) for line in fields)
    return bool(field(text, start, end)) and dated


def _quote_line_line_by_line(lines: list[str]) -> int | None:
    """Where an email reply's quote starts, each line judged on its own, in order."""
    text = "\n".join(lines)
    for row, line in enumerate(lines):
        start = sum(len(above) + 1 for above in lines[:row])
        end = start + len(line)
        found = comment_prose._EMAIL_QUOTE.search(text, start, end)
        if found is None:
            continue
        header = comment_prose._heads_quote(text, start, found.end(), end)
        if header or _mail_block_from_the_text(text, start, end):
            below = comment_prose._QUOTED_BELOW.match(text, min(end + 1, len(text)))
            return None if below else row
    return None


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(lines=st.lists(_MAIL_LINES, max_size=40), order=st.randoms(use_true_random=False))
def test_a_mail_header_block_read_once_a_line_reads_as_the_text_around_each_sender(lines, order):
    # each line is read once, whichever sender's line asks first: in any order, every
    # line's answer is the one read from the text around it
    text, fields = "\n".join(lines), comment_prose._HeaderFields(lines)
    rows = list(range(len(lines)))
    order.shuffle(rows)
    for row in rows:
        start = sum(len(above) + 1 for above in lines[:row])
        expected = _mail_block_from_the_text(text, start, start + len(lines[row]))
        assert fields.mail_block(row) == expected
    assert comment_prose._email_quote_line(text, lines) == _quote_line_line_by_line(lines)


@pytest.mark.parametrize("between, quotes", [(0, True), (7, True), (8, False)])
def test_a_mail_header_block_is_looked_at_eight_lines_either_side_of_the_sender(between, quotes):
    # the date 8 lines above or below the sender's, fields between, is the mail's; 9 is not
    fields = ["To: x"] * between
    sender = "From: Alice ***@***.***>"
    for block in ([sender, *fields, "Sent: 2026"], ["Date: 13:00", *fields, sender]):
        text = "\n".join(block) + "\n\n/notes why\n"
        assert kinds(text) == ([] if quotes else [("why", ())])


class _CountingPattern:
    """A compiled pattern that counts the calls made of it."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.calls = pattern, 0

    def match(self, *args):
        self.calls += 1
        return self.pattern.match(*args)

    def search(self, *args):
        self.calls += 1
        return self.pattern.search(*args)


# kills: bot/comment_prose.py:_HeaderFields each line read again for every sender's line
#   near it: 64 KB of `From: a ***@***.***>` lines took 17 readings a line (75 ms)
def test_every_line_naming_the_sender_reads_each_line_as_a_header_field_once(monkeypatch):
    lines = ["From: a ***@***.***>"] * 3000 + ["/notes why"]
    counted = [
        _CountingPattern(comment_prose._HEADER_FIELD),
        _CountingPattern(comment_prose._SENT_FIELD),
        _CountingPattern(comment_prose._GITHUB_SUBJECT),
    ]
    monkeypatch.setattr(comment_prose, "_HEADER_FIELD", counted[0])
    monkeypatch.setattr(comment_prose, "_SENT_FIELD", counted[1])
    monkeypatch.setattr(comment_prose, "_GITHUB_SUBJECT", counted[2])
    assert command_lines("\n".join(lines), "/notes") == ["/notes why"]
    calls = [pattern.calls for pattern in counted]
    assert max(calls) <= len(lines), calls


def test_a_blockquote_typed_elsewhere_leaves_a_lazy_line_under_a_quote_its_authors():
    text = "<blockquote>\nthe bot said\n</blockquote>\n\n> can it skip this PR?\n/notes off"
    assert kinds(text) == [("off", ())]


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
    assert len(long_one.line) <= len("/notes search ") + 50


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
    reply = set(Kind) - sticky  # the others are answered by a reply comment
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


# kills: bot/commands.py:_unmarked (hand) the word whole: an edit of `/notes topic:rocm:` into
#   `/notes topic rocm`, which name the same topic, posted the same reply again
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/notes topic:rocm:", "/notes topic rocm"),
        ("/notes topic rocm", "/notes topic rocm🙏"),
        ("/notes topic rocm", "/notes topic ROCm！"),
        ("/notes wrong 2", "/notes wrong 2🙏"),
        ("/notes wrong 2", "/notes wrong 2:pray:"),
        ("/notes wrong 2", "/notes wrong 2。"),
        ("/notes wrong 2 only renames", "/notes wrong 2 only renames."),
        ("/notes search deadlock", "/notes search deadlock :+1:"),
        ("/notes search deadlock", "/notes search deadlock 🙏"),
    ],
)
def test_an_edit_of_the_marks_at_a_words_end_runs_nothing(old, new):
    # every command reads a word without the punctuation or emoji it ends in: the edit
    # changed no command, and one comment saying both runs it once
    assert changed_commands(old, new) == []
    assert len(parse_commands(f"{old}\n{new}")) == 1


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/notes wrong 2", "/notes wrong 2.5"),  # no mark at its end: another word
        ("/notes wrong 2", "/notes wrong 2,3"),
        ("/notes wrong 2", "/notes wrong 2 🙏只是改名"),  # a reason added after the emoji
        ("/notes search torch", "/notes search torch::jit"),
        ("/notes topic rocm", "/notes topic rocm:8080"),
    ],
)
def test_an_edit_of_marks_inside_a_word_runs_it(old, new):
    assert [c.line for c in changed_commands(old, new)] == [new]


# kills: bot/commands.py:Command.key (hand) the words after `off`, `why`, `refresh` part of
#   its key: an edit of a reason or thanks after them ran them again
# kills: bot/commands.py:Kind.reads_args (hand) a kind that reads its words left out: an edit
#   of a topic, a note's number or an unknown word ran nothing
def test_edit_of_words_a_command_ignores_runs_nothing():
    assert changed_commands("/notes off for now", "/notes off for now \U0001f64f") == []
    assert changed_commands("/notes why", "/notes why please") == []
    assert changed_commands("/notes", "/notes refresh please") == []
    assert kinds("/notes help\n/notes help me") == [("help", ())]  # one reply
    for old, new in [
        ("/notes topic rocm", "/notes topic cuda-graphs"),
        ("/notes wrong 2", "/notes wrong 3"),
        ("/notes wrng 2", "/notes wrng 3"),
        ("/notes search EAGLE", "/notes search MTP"),
    ]:
        assert [c.line for c in changed_commands(old, new)] == [new], new


def test_edit_that_only_changes_case_or_spacing_runs_nothing():
    assert changed_commands("/notes search EAGLE", "/NOTES  search  eagle") == []


# kills: bot/commands.py:Command.key (hand) a full-width argument not read as its ASCII: an
#   edit retyping `ｍｏｅ` or `２` in half-width ran the command again
def test_edit_that_only_retypes_full_width_words_in_ascii_runs_nothing():
    for old, new in [
        ("/notes search ｍｏｅ ｋｖ－ｃａｃｈｅ", "/notes search MoE kv-cache"),
        ("／ｎｏｔｅｓ\u3000ｗｒｏｎｇ\u3000２，只是改名", "/notes wrong 2,只是改名"),
        ("/notes ｏｆｆｘ", "/notes offx"),
    ]:
        assert changed_commands(old, new) == [], new
    assert kinds("/notes search ｍｏｅ\n/notes search moe") == [("search", ("ｍｏｅ",))]
    # `²` is no full-width form: `wrong` reads no number in it, so the edit to `2` runs
    assert [c.line for c in changed_commands("/notes wrong ²", "/notes wrong 2")] != []


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
    # the model's defaults (a BotContext built without the file) say what the file says
    assert load_command_config() == CommandConfig()
    assert CommandConfig().word == "/notes"


def test_bad_config_is_rejected(tmp_path: Path):
    bad = tmp_path / "commands.toml"
    bad.write_text('word = "notes"\n', "utf-8")
    with pytest.raises(ValueError, match="word"):
        load_command_config(bad)
    # file, line and field, as notes check names a note's (the line too)
    bad.write_text("# caps\nmax_comands = 3\n", "utf-8")
    with pytest.raises(ValueError, match=f"^{bad}:2: max_comands: unknown field"):
        load_command_config(bad)
    bad.write_text("max_results = [\n", "utf-8")  # the file named, for the start-up message
    with pytest.raises(ValueError, match=f"{bad}:1: config: malformed TOML"):
        load_command_config(bad)
    assert CommandConfig().word == "/notes"


def test_an_installation_write_burst_too_small_for_one_comment_is_rejected(tmp_path: Path):
    """A comment runs only when the most it can write fits the installation's write
    burst: a smaller burst would never run a comment of `max_commands` commands."""
    bad = tmp_path / "commands.toml"
    bad.write_text("max_commands = 5\ninstallation_write_burst = 8\n", "utf-8")
    with pytest.raises(ValueError, match=f"^{bad}:2: installation_write_burst: .*at least 9"):
        load_command_config(bad)
    bad.write_text("max_commands = 2\ninstallation_write_burst = 6\n", "utf-8")
    assert load_command_config(bad).installation_write_burst == 6
    bad.write_text("installation_write_refill_s = 0\n", "utf-8")
    with pytest.raises(ValueError, match="installation_write_refill_s"):
        load_command_config(bad)


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
    monkeypatch.setattr(
        comment_prose, "_render", lambda text, *pos: calls.append(text) or real(text, *pos)
    )
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


# --- raw HTML, as the browser reads what cmark-gfm passes through ---------------------
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


# --- what the renderer alone does not say -------------------------------------------


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


def test_a_leading_bom_is_no_text_and_a_lone_surrogate_breaks_nothing():
    assert kinds("\ufeff/notes why") == [("why", ())]  # cmark-gfm drops it, as GitHub shows
    assert kinds("/notes search a\ud800b") == [("search", ("a?b",))]


# --- lines and their arguments as the browser lays them out ---------------------------


def test_a_newline_inside_an_inline_element_of_raw_html_is_a_space_too():
    # cmark-gfm passes the HTML block through untouched: "<div>\nplease do not type
    # <kbd>\n/notes off</kbd>\n</div>". A newline in raw HTML is a space, so GitHub shows
    # one line, "please do not type [/notes off]" (<kbd>, <samp>, <var> and <tt> are in
    # GitHub's allowlist and are inline; a tag GitHub does not allow, like <x>, is stripped
    # and its text stays in the line). The bot's line-start walk only climbs through the
    # elements of its _INLINE list and takes any other parent for the start of a block, so
    # the mid-sentence command runs. The same comment with <b> instead is read right.
    assert kinds("<div>\nplease do not type <b>\n/notes off</b>\n</div>") == []
    for tag in ("kbd", "samp", "var", "tt", "x"):
        text = f"<div>\nplease do not type <{tag}>\n/notes off</{tag}>\n</div>"
        assert kinds(text) == [], tag


def test_the_arguments_stop_at_a_line_break_inside_a_link_or_emphasis():
    # "/notes <b>\noff</b>" renders "<p>/notes <b><br />\noff</b></p>": GitHub shows
    # "/notes" on one line and a bold "off" on the next, a plain refresh. The bot reads
    # the rest of the line as the whole text of each inline element after the word
    # (sibling.text(deep=True)), through the <br> inside it, and runs `/notes off`. A
    # link whose text starts on the next line does the same ("/notes [\noff](https://x)").
    assert kinds("/notes <b>\noff</b>") == [("refresh", ())]
    assert kinds("/notes [\noff](https://x)") == [("refresh", ())]
    # and a command on the next line is read twice, once as the first one's arguments
    assert kinds("/notes search <b>\n/notes off</b>") == [("search", ()), ("off", ())]
    # a block inside the inline element ends the line too: GitHub shows "/notes", then
    # "off" as a block of its own
    assert kinds("<div>\n/notes <b><div>off</div></b>\n</div>") == [("refresh", ())]


def test_the_lines_read_are_not_longer_than_the_comment():
    # Same cause as above, as a cost: 399 nested inline elements, each opened on a line
    # with a command ("/notes <b>" newline, repeated), then ~60 KB of short lines. Every
    # command's "line" is the whole text of the element after it, so the bot reads 399
    # copies of the rest of the comment: about 0.6 s for 64 KB on the reviewer's machine
    # (prose 11 ms; docs/commands.md says at most about 70 ms for 64 KB built to be slow). On
    # GitHub each of these lines is "/notes" alone. The work, not the time, is asserted:
    # what the bot reads as lines adds up to far more than the comment.
    text = ("/notes <b>\n" * 399 + "a\n" * 40000)[:65536]
    lines = command_lines(text, "/notes")
    assert sum(len(line) for line in lines) <= len(text)


def test_a_footnote_reference_is_not_part_of_an_argument():
    # "/notes wrong 2[^1]" renders "/notes wrong 2<sup ...><a href="#fn-1">1</a></sup>":
    # GitHub shows note 2 with a footnote marker (superscript "1", a link to the footnote).
    # The bot joins the marker to the word and hides note 21 (or answers that the comment
    # shows no note 21); "/notes topic rocm[^a]" looks up the topic "rocm1". The code
    # already leaves out a footnote's back-reference arrow; the reference is the same kind
    # of apparatus, not words.
    cmds = parse_commands("/notes wrong 2[^1]\n\n[^1]: it is about the scheduler")
    assert cmds[0].args[:1] == ("2",)
    cmds = parse_commands("/notes topic rocm[^a]\n\n[^a]: see the ROCm notes")
    assert cmds[0].args[:1] == ("rocm",)


def test_a_collapsed_details_element_hides_what_it_holds():
    # "<details><summary>logs</summary>\n\n/notes off\n\n</details>" passes through
    # cmark-gfm as is; GitHub shows a closed disclosure "▸ logs" and nothing of its
    # content until the reader clicks it. A `/notes off` tucked under a summary like
    # "logs" pauses the bot without anyone reading it: the smuggled command docs/commands.md's
    # rule is about. Decided: collapsed is hidden (running nothing there is the lesser
    # error: the author sees no 👀 and can move the line out). <details open> is shown,
    # and so is the <summary> line.
    assert kinds("<details open><summary>logs</summary>\n\n/notes why\n\n</details>") == [
        ("why", ())
    ]
    assert kinds("<details><summary>\n\n/notes why\n\n</summary></details>") == [("why", ())]
    assert kinds("<details><summary>logs</summary>\n\n/notes off\n\n</details>") == []
    assert kinds("<details>\n/notes off\n</details>") == []


def test_a_math_block_opened_on_a_list_items_or_a_quotes_line_is_a_formula():
    # The `$$` block is found on raw source lines whose text starts with "$$", so a block
    # opened after a list marker or a quote marker is missed: "1. $$\n   /notes off\n   $$"
    # is a list item whose content is "$$ / /notes off / $$", which GitHub renders as a
    # display formula, as it does "$$\n/notes off\n$$" at the top level (already a test).
    # A quote's lazy lines ("> $$\n/notes off\n$$") are the same formula, inside the quote.
    assert kinds("1. $$\n   /notes off\n   $$") == []
    assert kinds("- $$\n  x^2\n/notes off\n$$") == []
    assert kinds("> $$\n/notes off\n$$") == []


def test_a_dollar_pair_in_code_opens_no_math_block():
    # "```tex\n$$\n```\n\n/notes why": the "$$" is inside a code block, so GitHub shows
    # it as code and "/notes why" below as a paragraph. The bot's math scan does not know
    # code and takes the "$$" line for the opening of a formula that runs to the end of the
    # comment, so every later command is dropped (the lesser error, but a plain visible
    # command that does nothing). Indented code ("    $$") does the same.
    assert kinds("```tex\n$$\n```\n\n/notes why") == [("why", ())]
    assert kinds("    $$\n\n/notes why") == [("why", ())]


def test_a_command_on_its_own_line_right_after_an_html_block_runs():
    # The lesser error, in a common shape: logs pasted in a <details> block (or a centred
    # <div>, an <h3>, a table) and the command typed on the next line, no blank line
    # between. cmark-gfm keeps "/notes why" in the HTML block ("</details>\n/notes why"),
    # the browser puts the text after the block element, and GitHub shows "/notes why" on
    # a line of its own under the block. The bot's line-start walk stops at any element
    # before the text ("an element before it on its line") although a block element ends
    # the line, so the command does nothing. An inline element before it, like an <img>,
    # does share its line: "<img src=x>\n/notes why" rightly runs nothing.
    assert kinds("<img src=x>\n/notes why") == []
    assert kinds("<details><summary>logs</summary>\n\nlots of logs\n\n</details>\n/notes why") == [
        ("why", ())
    ]
    assert kinds('<div align="center"><img src="x"></div>\n/notes why') == [("why", ())]
    assert kinds("<h3>Benchmarks</h3>\n/notes why") == [("why", ())]


def test_hidden_text_inside_an_inline_element_is_not_an_argument():
    # "/notes <span><rp>off</rp></span> on": GitHub shows "/notes on" (an <rp> is never
    # displayed, GitHub's sanitizer keeps it, and the bot itself treats it as hiding when a
    # line starts in one). The rest of the line is read as the whole text of each inline
    # element after the word (sibling.text(deep=True)), hidden descendants included, so
    # the bot pauses itself on a comment that reads "/notes on". A bare "<rp>" sibling is
    # not read (the walk stops there); wrapped in a <span> or <b> it is.
    assert kinds("/notes <rp>off</rp> on") != [("off", ("on",))]  # as reviewed: refresh
    assert kinds("/notes <span><rp>off</rp></span> on") == [("on", ())]
    assert kinds("/notes <b><rp>off</rp></b>") == [("refresh", ())]


# --- GitHub's sanitizer, character references, the cost guard --------------------------


def test_only_the_first_summary_of_a_collapsed_details_is_shown():
    # HTML standard: "the first summary element child of the details element" is its
    # legend; everything else, a second <summary> included, is the details' content and
    # hidden while it is closed. GitHub shows "▸ logs" and nothing more. _hidden shows
    # every <summary> child of a <details>, so the command in the second one runs.
    text = "<details><summary>logs</summary><summary>\n\n/notes off\n\n</summary></details>"
    assert kinds(text) == []
    # the first summary is still shown
    shown = "<details><summary>\n\n/notes why\n\n</summary><summary>x</summary></details>"
    assert kinds(shown) == [("why", ())]


def test_a_block_element_github_strips_is_no_line_break():
    # GitHub's sanitizer removes <article>, <aside>, <header>, <footer>, <nav>, <main>,
    # <address>, <fieldset> and <form>, keeping their text (rehype-github's fixtures: the
    # elements are gone from GitHub's HTML; <section> is kept; <figure> and <figcaption>
    # are on html-pipeline's allow-list). So "please do not type
    # <aside>" newline "/notes off</aside>" in a <div> reaches the browser as one line of
    # prose with the command mid-sentence. The bot's _BLOCKS listed these elements
    # as blocks, so the text inside starts a line and the command runs.
    for tag in ("aside", "article", "header", "nav", "address"):
        text = f"<div>\nplease do not type <{tag}>\n/notes off</{tag}>\n</div>"
        assert kinds(text) == [], tag


def test_a_class_typed_in_raw_html_does_not_make_a_footnote_reference():
    # GitHub drops class attributes from the HTML a user writes (only those its own
    # renderer adds survive), so "/notes <span class="footnote-ref">on</span> off" shows
    # "/notes on off": an `on` with the word "off" after it. The bot recognises footnote
    # apparatus by the class alone, leaves "on" out and pauses itself on `/notes off`, a
    # command the page does not show.
    assert kinds('/notes <span class="footnote-ref">on</span> off') == [("on", ("off",))]
    assert kinds('/notes wrong <sup class="footnote-ref">1</sup>2') != [("wrong", ("2",))]


def test_a_private_use_character_written_as_an_entity_is_not_the_mark():
    # _free_mark picks a private-use character the comment's text does not hold, but an
    # HTML block is passed through verbatim and the HTML parser decodes "&#xE000;" into
    # that very character. The bot then takes it for one of its marks: the line
    # "&#xE000;/notes off" (shown as "\ue000/notes off", a character before the word; its
    # source does not start with the command either, like "\\/notes off") runs `off`.
    # Any other comment that makes the bot render (here a `/notes why`) is enough.
    assert kinds("/notes why\n\n<div>\n&#xE000;/notes off\n</div>") == [("why", ())]
    assert kinds("/notes why\n\n<div>\nplease type<br>&#57344;/notes off\n</div>") == [("why", ())]


def test_a_control_character_inside_the_arguments_joins_words():
    # The word boundary after "/notes" is a space a reader sees (_space: "a control
    # character is no space: GitHub shows /notesoff", already a test). The arguments are
    # then split with str.split(), which also splits at \x1c-\x1f and \x85: GitHub shows
    # "/notes off\x1fnow" as "/notes offnow" (an unknown sub-command); the bot pauses.
    assert [c.kind.value for c in parse_commands("/notes off\x1fnow")] != ["off"]
    assert [c.args for c in parse_commands("/notes wrong 1\x1f2")] != [("1", "2")]


def test_a_code_element_after_the_word_is_read_as_the_page_shows_it():
    # _takes reads a <code> element whole (node.text(deep=True)), unlike any other inline
    # element: an <rp> inside it (never displayed) is read as part of the argument, and a
    # <br> or block inside it does not end the line. "/notes topic <code>ro<rp>(</rp>cm
    # </code>" shows the topic `rocm`; the bot looks up "ro(cm". "/notes <code><br>off
    # </code>" shows "/notes" and, on the next line, `off` in code: a refresh; the bot
    # answers an unknown sub-command "`off`".
    assert parse_commands("/notes topic <code>ro<rp>(</rp>cm</code>")[0].args == ("`rocm`",)
    assert kinds("/notes <code><br>off</code>") == [("refresh", ())]


def test_a_math_block_opened_behind_a_list_and_a_quote_or_two_lists_is_a_formula():
    # The math scan allows quote markers and then one list marker before "$$"
    # (_CONTAINER), so a block opened behind a list marker then a quote marker, or behind
    # two list markers, is missed. "- > $$\n/notes off\n$$" is a list item holding a quote
    # whose paragraph is "$$ / /notes off / $$" (the lines after are lazy continuations):
    # the same formula as "> $$\n/notes off\n$$", already a test. The command runs.
    assert kinds("- > $$\n/notes off\n$$") == []
    assert kinds("- - $$\n/notes off\n$$") == []
    assert kinds("1. - $$\n/notes off\n$$") == []


def test_a_fence_that_is_paragraph_text_does_not_hide_a_math_block():
    # The math scan first blanks fenced code with without_fences(nested=True), which takes
    # a "```" at any indent for a fence. Right after a paragraph line, "    ```" is not
    # code: indented code cannot interrupt a paragraph, so it is paragraph text, and so are
    # the lines after it. GitHub renders the paragraph "x ``` $$ /notes off $$" with the
    # "$$ ... $$" as a formula (as "The bound:\n$$\n/notes off\n$$", already a test); the
    # scan saw an unclosed fence, found no "$$" line, and the command runs.
    assert kinds("x\n    ```\n$$\n/notes off\n$$") == []


def test_a_dollar_pair_in_an_html_comment_opens_no_math_block():
    # The lesser error: "<!--\n$$\n-->\n\n/notes why" shows nothing of the comment and
    # "/notes why" as a paragraph. The math scan does not know HTML comments (it was taught
    # code blocks only), takes the "$$" line for a formula that runs to the end of the
    # comment, and drops every later command.
    assert kinds("<!--\n$$\n-->\n\n/notes why") == [("why", ())]


def test_nesting_deeper_than_400_is_not_read_however_the_tags_are_written():
    # docs/commands.md: "A comment whose elements nest more than 400 deep is not read".
    # _depth counts
    # tags with a regular expression, but the HTML parser nests where it sees none, or
    # where _depth thinks they close:
    # - "</div>" inside an HTML comment closes nothing ("<div><!--</div>-->" x 3,600 nests
    #   3,600 divs; _depth says 2);
    # - an unquoted attribute value may hold "<" ("<ul/<>" opens a <ul>; _TAG does not
    #   match it at all: 10,900 nested lists, _depth 1, about 0.17 s to read);
    # - an end tag whose element is out of scope is ignored ("<div><marquee></div>": the
    #   </div> does not cross the <marquee>; 6,500 deep, _depth 3).
    # Each ends in a visible command under the 400 limit's own reading, which runs.
    head, tail = "<div>\n", "\n/notes off\n</div>"
    for unit in ("<div><!--</div>-->", "<ul/<>", "<div><marquee></div>"):
        text = head + unit * 1000 + tail
        assert kinds(text) == [], unit


def test_reconstructed_formatting_elements_do_not_multiply_the_work(monkeypatch):
    # Formatting elements opened in a paragraph (distinct attributes, so the HTML parser's
    # "Noah's Ark" clause keeps them all; under the depth guard), then "<p>x" repeated:
    # each <p> closes the paragraph and its open elements, and the HTML parser rebuilds
    # all of them around each "x". With 390 of them ("<b a=0>" ... ; _depth 393) 64 KB
    # become ~6 million elements: parse_commands took 7.1 s and changed_commands 3.8 s on
    # the reviewer's machine; with the 50 used here, 0.7 s and 0.34 s (docs/commands.md: at most
    # about 95 ms for 64 KB built to be slow). GitHub shows 16,000 lines "x". The work,
    # not the time, is asserted: the reader must not walk more elements than the comment
    # has characters.
    head = "/notes why\n\n<div>\n<p>" + "".join(f"<b a={i}>" for i in range(50))
    tail = "\n</div>"
    text = head + "<p>x" * ((65536 - len(head) - len(tail)) // 4) + tail
    parsers = []
    real = comment_prose.LexborHTMLParser
    monkeypatch.setattr(
        comment_prose, "LexborHTMLParser", lambda html: parsers.append(real(html)) or parsers[-1]
    )
    changed_commands(None, text)
    walked = 0
    for parser in parsers:
        for _ in parser.root.traverse(include_text=True):
            walked += 1
            if walked > len(text):
                break
    assert walked <= len(text)


def test_a_math_marker_inside_a_quoted_code_block_does_not_hide_later_commands():
    # _display_math blanks fences with markdown_text.without_fences (strict mode), which
    # does not see a fence opened behind `> `, so the `$$` inside the quoted code block
    # opens a formula that never closes and every later command is dropped, though GitHub
    # shows `/notes why` as a paragraph (cmark-gfm: <blockquote><pre>..</pre></blockquote>
    # <p>/notes why</p>). `comment_prose._display_math` says a `$$` in a fenced block opens none.
    comment = "> ```\n> $$\n> ```\n\n/notes why\n"
    assert [(c.kind.value, c.args) for c in parse_commands(comment)] == [("why", ())]


def test_a_command_in_a_formula_after_an_empty_html_comment_does_not_run():
    # `<!-->` and `<!--->` are empty comments, closed at once (HTML; cmark-gfm's HTML
    # block ends on the line holding `-->`), so the `$$` block after them is a formula on
    # GitHub and the command inside it must not run. markdown_text.HTML_COMMENT closes
    # them at once; a comment pattern running from them to the next `-->` (`<!--.*?-->`,
    # as the math scan once used) hid the `$$` block from _display_math, and cmark-gfm
    # (which knows no math) showed the command as a paragraph: it ran -- the unsafe
    # direction.
    for empty in ("<!-->", "<!--->"):
        comment = f"{empty}\n\n$$\n/notes off\n$$\n\n<!-- done -->\n"
        assert parse_commands(comment) == [], empty


# --- the comment as part of GitHub's page -------------------------------------------


def test_a_comment_without_a_command_line_is_not_scanned_for_math(monkeypatch):
    # docs/commands.md: "Reading costs next to nothing for a comment with no `/notes` at a
    # line's start: it is not rendered".
    # command_lines runs _display_math before it looks for candidate lines, and the math
    # scan blanks HTML comments with the lazy regex "<!--.*?-->" (re.S): each "<!--"
    # without a "-->" after it scans to the end of the text, so the scan is quadratic.
    # "<!--" * 16,384 (64 KB, no "/notes" anywhere) took 5.5 s in parse_commands and
    # 9.3 s in changed_commands on the reviewer's machine; "a <!-- b\n" * 7,000 (63 KB,
    # any text with a "<!--" on each line) 1.7 s. With a command line in it the same
    # comment is as slow ("/notes why\n" + "<!--" * 16,384: 4.6 s / 9.3 s;
    # "/notes why\n\n<div>\n" + "<!--x" * 12,000: 2.8 s / 5.6 s), all of it in
    # _display_math. GitHub shows a paragraph of "<!--" text. The work, not the time, is
    # asserted: a comment with no command line does not reach the math scan.
    calls = []
    real = comment_prose._display_math
    monkeypatch.setattr(
        comment_prose, "_display_math", lambda lines: calls.append(1) or real(lines)
    )
    text = "<!--" * 2000  # small: the test stays fast
    assert parse_commands(text) == [] and changed_commands(None, text) == []
    assert calls == []


def test_the_comment_is_read_as_part_of_githubs_page_not_as_a_document_of_its_own():
    # The bot gives cmark-gfm's HTML to Lexbor as a whole document with no doctype: a
    # quirks-mode document whose start is the start of <html>. GitHub's page has a
    # doctype (no-quirks) and the comment sits inside its <body>.
    # - In no-quirks mode a <table> closes an open <p> (HTML standard, "in body", a start
    #   tag "table"); in quirks mode it does not. "see <code>this<table><tr><td>\n/notes
    #   why" renders "<p>see <code>this<table><tr><td><br />\n/notes why...": GitHub shows
    #   "see `this`" and, below it, a table whose cell reads "/notes why" as text (the
    #   <code> is closed with the <p>, and not rebuilt inside a cell). Lexbor, in quirks
    #   mode, nests the table inside the <code>, so the bot takes the cell for code and
    #   runs nothing. The same with an <rp> (the cell is "hidden" in it).
    # - The worse error, same cause: text the parser moves out of a table (foster
    #   parenting) lands right before the table. "<p>\n/notes\n<table>off</table>" is
    #   passed through by cmark-gfm; in no-quirks mode the <p> ends at <table>, so the page
    #   shows "/notes" (a refresh) and, on the next line, "off". In quirks mode the table
    #   and the "off" before it stay inside the <p>, and the bot pauses on `/notes off`.
    # - A comment that starts with "<frameset>" makes Lexbor build a frameset document and
    #   drop everything after it; inside a page's body the parser ignores <frameset> (and
    #   GitHub's sanitizer strips it), so "/notes why" is a paragraph on the page.
    assert kinds("<p>\n/notes\n<table>off</table>") == [("refresh", ())]
    assert kinds("<div>\n<p>\n/notes\n<table><tr><td>x</td>off</tr></table>\n</div>") == [
        ("refresh", ())
    ]
    assert kinds("see <code>this<table><tr><td>\n/notes why\n</td></tr></table>") == [("why", ())]
    assert kinds("text <rp>x<table><tr><td>\n/notes why\n</td></tr></table>") == [("why", ())]
    assert kinds("<frameset>\n\n/notes why") == [("why", ())]


def test_a_processing_instruction_is_a_comment_to_the_browser():
    # "<?php ... ?>" in raw HTML is a bogus comment to an HTML5 parser (HTML standard:
    # "<?" starts a bogus comment, which ends at the next ">"): nothing is shown. Lexbor
    # keeps it as a processing-instruction node (tag None), and _line_starts takes any
    # node before the text that is not text or "-comment" for "an inline element before
    # it on its line". So "<div>\n<?php echo 1; ?>\n/notes why\n</div>", shown by GitHub
    # as a div whose only line is "/notes why", runs nothing. "<!-- x -->" there works.
    assert kinds("<div>\n<!-- x -->\n/notes why\n</div>") == [("why", ())]
    assert kinds("<div>\n<?php echo 1; ?>\n/notes why\n</div>") == [("why", ())]


def test_an_empty_inline_element_before_the_command_shows_nothing():
    # "<div>\n<a name="top"></a>\n/notes why\n</div>": an empty anchor (or a <wbr>, an
    # empty <b>) shows nothing, so GitHub shows "/notes why" at the start of the div.
    # _line_starts stops at any element before the text ("an inline element before it on
    # its line"), whether or not it shows anything; <wbr> is even listed in
    # _NOTHING_SHOWN ("no text, and no line end"), and still ends the look back. An
    # <img> before it does share its line (already a test), as it shows an image.
    assert kinds('<div>\n<a name="top"></a>\n/notes why\n</div>') == [("why", ())]
    assert kinds("<div>\n<wbr>\n/notes why\n</div>") == [("why", ())]
    assert kinds("<div>\n<b></b>\n/notes why\n</div>") == [("why", ())]


def test_markup_right_after_the_word_is_not_text_after_it():
    # _starts_with wants a space (or the line's end) right after the word in the source,
    # so a line where markup follows it is no candidate, whatever the page shows.
    # "/notes<!-- c --> off" shows "/notes off" (the HTML comment is not shown, the space
    # after it is), a visible `/notes off` that does nothing; "/notes<br>thanks" and
    # "/notes\\" + newline (a hard break) show "/notes" alone on its line, a refresh.
    assert kinds("/notes<!-- c --> off") == [("off", ())]
    assert kinds("/notes<br>thanks") == [("refresh", ())]
    assert kinds("/notes\\\nthanks") == [("refresh", ())]


# kills: bot/comment_prose.py:command_lines (hand) a backslash ending a paragraph read as
#   part of the line: `/notes:why\\` as a comment's last line was no command and `/notes
#   why\\` an unknown `why\\`, where the same line with another after it (the backslash a
#   line break) runs why; GitHub shows the backslash only because no line follows it
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/notes\\", [("refresh", ())]),
        ("/notes why\\", [("why", ())]),
        ("/notes:why\\", [("why", ())]),
        ("/notes: why\\", [("why", ())]),
        ("/notes : why \\", [("why", ())]),
        ("/notes wrong 2\\", [("wrong", ("2",))]),
    ],
)
@pytest.mark.parametrize("after", ["", "\n", "\n\nthanks", "\nthanks"])
def test_a_backslash_ending_a_line_is_its_break_whatever_follows(line, after, expected):
    assert kinds(line + after) == expected


def test_end_tags_html_lets_you_leave_out_do_not_count_as_nesting():
    # docs/commands.md: "A comment whose elements nest more than 400 deep is not read". _too_costly
    # guesses the depth from the tags, and treats an optional end tag as missing only when
    # the same element follows right away (_SIBLINGS: "<p><p>", "<li><li>"). A definition
    # list written the usual HTML way, "<dl>\n<dt>term\n<dd>meaning\n..." (a <dt> or <dd>
    # closes an open <dt> or <dd>), is three elements deep whatever its length, but every
    # "<dt>" after a "<dd>" (and back) counts one level more: at 201 entries the guess
    # passes 400 and the whole comment is not read, so the "/notes why" on its first line,
    # a plain paragraph on the page, does nothing. Likewise a table whose rows are
    # "<tr><td>a<td>b" (a <tr> closes the open cell and row) and a list of "<li><p>item"
    # (an <li> closes the open <p> and <li>). 199 entries are read.
    head = "/notes why\n\n"
    assert kinds(head + "<dl>\n" + "<dt>term\n<dd>meaning\n" * 201 + "</dl>") == [("why", ())]
    assert kinds(head + "<table>\n" + "<tr><td>a<td>b\n" * 201 + "</table>") == [("why", ())]
    assert kinds(head + "<ul>\n" + "<li><p>item\n" * 201 + "</ul>") == [("why", ())]


# --- line ends inside inline elements, references after the word ----------------------


def test_a_line_starts_after_an_inline_element_that_ends_in_a_block():
    # "<div>\n<b><p>bold</p></b>\n/notes why\n</div>": GitHub shows a bold paragraph
    # "bold" and, on the line below it (after the block), "/notes why", at the start of
    # its line. _line_starts looks back from the text and stops at any inline element
    # that shows something ("an inline element before it on its line"), though this one
    # ends in a block, which ends the line. Lexbor also builds this tree when it moves
    # a block out of a <p> ("<ins>\n\n<pre>x</pre>\n\n</ins>": the </ins> closes after
    # the <pre>). The lesser error: a visible command does nothing.
    assert kinds("<div>\n<b><p>bold</p></b>\n/notes why\n</div>") == [("why", ())]
    assert kinds("<div>\n<span><div>x</div></span>\n/notes why\n</div>") == [("why", ())]
    assert kinds("<ins>\n\n<pre>x</pre>\n\n</ins>\n/notes why") == [("why", ())]
    # the same with a <br> as the element's last content ("x", then "/notes why" on the
    # next line), and with an empty block in an element that shows no text: _shows_nothing
    # takes "<span><p></p></span>" for nothing and looks on back to "see", but the <p>
    # ends the line "see" (a block in inline content splits it)
    assert kinds("<div>\n<b>x<br></b>\n/notes why\n</div>") == [("why", ())]
    assert kinds("<div>\nsee\n<span><p></p></span>\n/notes why\n</div>") == [("why", ())]


def test_a_character_reference_right_after_the_word_is_the_space_it_shows():
    # "/notes&#32;off" renders "<p>/notes off</p>": GitHub shows "/notes off", the same
    # characters as a typed one; "/notes&nbsp;off" shows "/notes\xa0off", which the bot
    # reads as `off` when the no-break space is typed ("/notes\xa0off" runs). _starts_with
    # takes markup after the word only when it starts with "<" or "\\" (review parser5's
    # "/notes<!-- c --> off"), so an entity there makes the line no candidate: a visible
    # command does nothing (the lesser error), whatever the page shows.
    assert kinds("/notes\u00a0off") == [("off", ())]  # typed: read (passes)
    assert kinds("/notes&#32;off") == [("off", ())]
    assert kinds("/notes&nbsp;off") == [("off", ())]
    assert kinds("/notes&#9;why") == [("why", ())]


def test_a_carriage_return_written_as_a_reference_in_raw_html_is_a_space():
    # In a paragraph cmark-gfm writes "&#13;" as a raw CR, which the HTML parser turns into
    # a newline (the bot reads "/notes off&#13;now" as `off now`, rightly). In an HTML
    # block the reference is passed through and the HTML parser decodes it into U+000D in
    # the text; CSS shows a carriage return as a space ("treated identically to spaces",
    # CSS Text 3, white space processing). So "<div>\n/notes off&#13;\n</div>" shows
    # "/notes off", and "<div>\n/notes wrong 1&#13;2\n</div>" "/notes wrong 1 2". The bot
    # splits words at its _SPACES (no CR) and replaces only "\n": it answers an unknown
    # sub-command "off\r" and reads note "1\r2".
    assert kinds("/notes off&#13;now") == [("off", ("now",))]  # a paragraph: read (passes)
    assert kinds("<div>\n/notes off&#13;\n</div>") == [("off", ())]
    assert kinds("<div>\n/notes wrong 1&#13;2\n</div>") == [("wrong", ("1", "2"))]


def test_list_items_nested_in_lists_count_as_nesting():
    # _too_costly, the cheap look before the HTML parser runs, takes "<li>" to close any
    # open <li> among the top 8 elements (_close_implied), but an HTML parser's <li> closes
    # one only up to the nearest <ul>/<ol> (a "special" element stops the search; <dt>/<dd>
    # likewise stop at a <dl>). So "<ul><li>" repeated, a list nested in each item, looks
    # two elements deep to _too_costly and is 16,000 deep to Lexbor, which builds it in
    # time that grows with the square of the depth: "/notes why\n\n<div>\n" + "<ul><li>"
    # to 64 KB took 0.22 s in parse_commands and 0.45 s in changed_commands on the
    # reviewer's machine ("<dl><dd>" 0.24 s / 0.50 s; docs/commands.md: at most about 110 ms for
    # 64 KB built to be slow), and the walk then finds it past MAX_DEPTH and reads nothing.
    # The work, not the time, is asserted: the cheap look must see the depth.
    from bot import comment_prose

    for unit in ("<ul><li>", "<ol><li>x", "<dl><dt>", "<dl><dd>"):
        html = comment_prose._render("/notes why\n\n<div>\n" + unit * 300)
        assert comment_prose._too_costly(html), unit


def test_figure_and_figcaption_are_blocks():
    # GitHub's sanitizer keeps <figure> and <figcaption> (html-pipeline's allowlist: "...
    # summary details caption figure figcaption abbr ..."), and the browser shows them as
    # blocks. They are missing from _BLOCKS, so the bot reads them as inline elements:
    # "<div>\n/notes <figure>off</figure>\n</div>" shows "/notes" on its line and "off" as
    # a block below it, a refresh; the bot runs the rest of the line through the figure
    # and pauses itself on `/notes off` (the worse error: an `off` not on the command's
    # line). And a command right after a figure is taken for text after it on its line.
    assert kinds("<div>\n/notes <figure>off</figure>\n</div>") == [("refresh", ())]
    assert kinds("<div>\n/notes <figcaption>off</figcaption>\n</div>") == [("refresh", ())]
    assert kinds("<div>\n<figure>x</figure>\n/notes why\n</div>") == [("why", ())]


# --- hidden elements, typed footnote attributes, foreign content ------------------------


def test_a_hidden_element_ending_in_a_break_does_not_end_the_line():
    # "<div>\nplease do not type <rp><br></rp>\n/notes off\n</div>": an <rp> is never
    # displayed (HTML's rendering rules: "rp { display: none }"; GitHub's sanitizer keeps
    # it; the bot's _HIDING lists it), so the <br> or block inside it breaks no line.
    # A newline in raw HTML is a space: GitHub shows one line, "please do not type
    # /notes off", the command mid-sentence. _line_starts looks back from the text and
    # takes any element that _ends_in_break for the end of the previous line, without
    # asking whether that element is shown (_ends_in_break reads only the tags), so the
    # bot pauses itself on a sentence that quotes the command. The same through an inline
    # element holding the <rp> last, and with a <p>, <div> or <hr> in the <rp>.
    for hidden in ("<rp><br></rp>", "<b>now<rp><br></rp></b>", "<rp><p></p></rp>", "<rp><hr></rp>"):
        text = f"<div>\nplease do not type {hidden}\n/notes off\n</div>"
        assert kinds(text) == [], hidden


def test_a_footnote_attribute_typed_in_raw_html_does_not_hide_what_the_element_shows():
    # _unshown leaves out of a command's line any <a> (or <sup> around one) carrying
    # data-footnote-ref or data-footnote-backref, as cmark-gfm marks its footnote
    # references. Raw HTML can carry the same attribute: "/notes <a data-footnote-ref>on</a>
    # off" is shown by GitHub as "/notes on off" (the link text "on" is shown whether the
    # sanitizer keeps the attribute or strips it), a `/notes on`; the bot leaves "on"
    # out and pauses itself on `/notes off`. With a <br> inside ("/notes <a
    # data-footnote-ref><br></a>off") GitHub shows "/notes" and "off" on the next line, a
    # refresh; the bot skips the break and reads `/notes off`. Review 'parser4' found the
    # same with a typed class="footnote-ref"; the attribute proves no more than the class.
    assert kinds("/notes <a data-footnote-ref>on</a> off") == [("on", ("off",))]
    assert kinds("/notes <sup><a data-footnote-ref>on</a></sup> off") == [("on", ("off",))]
    assert kinds('/notes <a data-footnote-backref href="#x">on</a> off') == [("on", ("off",))]
    assert kinds("/notes <a data-footnote-ref><br></a>off") == [("refresh", ())]


def test_an_image_tag_in_a_table_is_an_image_before_the_text():
    # HTML's parser reads a start tag "image" as "img" (in body: "Parse error. Change the
    # token's tag name to img and reprocess it"); in a table it is foster-parented before
    # the table, and so is the text after it. "<table><image src=x>\n/notes off\n</table>"
    # (an HTML block cmark-gfm passes through) is, per the standard and html5lib,
    # '<img src="x"> /notes off <table></table>': GitHub shows an image and "/notes off"
    # after it on the same line, as for "<img src=x>\n/notes why", which
    # tests/test_commands.py expects not to run. Lexbor drops an <image> it fosters (the
    # same "<table><img src=x>" keeps the <img>, and "<p><image src=x>" becomes an <img>), so
    # the bot finds the text at the start of its line and pauses itself.
    assert kinds("<table><img src=x>\n/notes off\n</table>") == []  # passes
    assert kinds("<table><image src=x>\n/notes off\n</table>") == []


def test_lines_read_stay_within_the_comment_when_hidden_breaks_repeat():
    # A cost, from the first two defects: each "/notes x" is taken for a line start (an
    # <rp><br></rp> before it "ends" the line), and each command's line is read by
    # _line_after, which rightly skips the hidden <rp> and so runs on through every later
    # command to the end of the <div>. "<div>\n" + "/notes x <rp><br></rp>\n" to 64 KB:
    # 2,849 lines adding up to 40.6 million characters; parse_commands took 4.1 s and
    # changed_commands 8.1 s on the reviewer's machine ("/notes x<rp><p></p></rp>": 3.4 s
    # / 6.8 s; docs/commands.md: at most about 110 ms for 64 KB built to be slow). The same with
    # "<a data-footnote-ref><br></a>" in place of the <rp> (1.4 s / 2.7 s). GitHub shows
    # one line. The work, not the time, is asserted, as in
    # test_the_lines_read_are_not_longer_than_the_comment.
    for hidden in ("<rp><br></rp>", "<a data-footnote-ref><br></a>"):
        text = ("<div>\n" + f"/notes x {hidden}\n" * 400)[:12000]
        lines = command_lines(text, "/notes")
        assert sum(len(line) for line in lines) <= len(text), hidden


def test_a_table_cell_tag_inside_svg_or_math_is_no_line_break():
    # Inside <svg> or <math> an HTML5 parser builds a foreign element for any tag that does
    # not break out of it (<td>, <th>, <tr>, <tbody> do not; <p>, <div>, <br> do), so
    # "<div>\nplease do not type <svg><td>\n/notes off\n</td></svg>\n</div>" holds an SVG
    # element named "td", no table cell. GitHub does not show it as one either way:
    # <svg>/<math> are not on its sanitizer's allow-list (stripped, text kept), and a
    # "<td>" left outside a table is removed by the sanitizer (html-pipeline: "Table child
    # elements that are not contained by a <table> are removed") or ignored by the browser
    # ("in body": a start tag "td" is a parse error and ignored); kept in SVG, text outside
    # <text> is not drawn at all. So GitHub shows "please do not type /notes off" on one
    # line (or nothing). Lexbor reports the foreign element's tag as "td", and _BLOCKS /
    # _BREAKS go by the tag name alone, so the bot takes the cell for a block, finds the
    # command at the start of its line, and pauses itself. Likewise after an empty one.
    for root in ("svg", "math"):
        for tag in ("td", "th", "tr", "tbody"):
            text = (
                f"<div>\nplease do not type <{root}><{tag}>\n/notes off\n</{tag}></{root}>\n</div>"
            )
            assert kinds(text) == [], (root, tag)
    assert kinds("<div>\nplease do not type <svg><td></td></svg>\n/notes off\n</div>") == []


# --- invisible characters in and around a command's words -----------------------------


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff", "\u200e"])
def test_an_invisible_format_character_is_not_part_of_a_command_word(invisible):
    # `/notes off` with a zero-width space pasted after it shows as `/notes off`: it was
    # read as the unknown sub-command `off<ZWSP>`, and the reply's code span, which drops
    # such characters, said "There is no `off` command"
    assert kinds(f"/notes off{invisible}") == [("off", ())]
    assert kinds(f"/notes {invisible}why") == [("why", ())]
    assert kinds(f"/notes wrong 1{invisible} too {invisible} broad") == [
        ("wrong", ("1", "too", "broad"))
    ]
    assert parse_commands(f"/notes off{invisible}")[0].line == "/notes off"
    # one command, however many invisible characters an edit adds
    assert changed_commands("/notes off", f"/notes off{invisible}") == []


@pytest.mark.parametrize("invisible", ["\u200b", "\u2060", "\ufeff", "\u200e", "\u00ad"])
def test_an_invisible_character_around_the_command_word_is_no_part_of_it(invisible):
    # dea517c dropped them from the words after the command word, but one right after
    # `/notes` itself (the page shows `/notes off`) made the line no command at all, nor
    # one pasted before it
    assert kinds(f"/notes{invisible} off") == [("off", ())]
    assert kinds(f"/notes{invisible}{invisible}") == [("refresh", ())]
    assert kinds(f"{invisible}/notes off") == [("off", ())]
    assert kinds(f"Done.\n\n  {invisible}/notes{invisible} why") == [("why", ())]
    assert parse_commands(f"{invisible}/notes{invisible} off")[0].line == "/notes off"
    # still not where a reader sees something else: `/notesoff`, code, an indented block
    assert kinds(f"/notes{invisible}off") == []
    assert kinds(f"`/notes{invisible} off`") == []
    assert kinds(f"    {invisible}/notes off") == []
    assert changed_commands("/notes off", f"{invisible}/notes{invisible} off") == []


def test_a_comment_opening_with_a_bom_may_hold_a_command_at_intake():
    from bot.command_events import _MAY_HOLD_COMMAND

    assert kinds("\ufeff/notes off") == [("off", ())]  # as cmark-gfm reads it
    for body in ("\ufeff/notes off", "\ufeff  /notes", "x\n \u200b\u2060/notes", "/notes"):
        assert _MAY_HOLD_COMMAND.search(body), repr(body)
    for body in ("x /notes", "    /notes", "\u200b x/notes", "LGTM"):
        assert not _MAY_HOLD_COMMAND.search(body), repr(body)


def test_the_invisible_characters_are_all_of_pythons_format_characters():
    import unicodedata

    table = re.compile(f"[{comment_prose.FORMAT_CHARS}]")
    for code in range(0x110000):
        ch = chr(code)
        assert bool(table.match(ch)) == (unicodedata.category(ch) == "Cf") or (
            table.match(ch) and unicodedata.category(ch) == "Cn"  # named by a later Unicode
        ), f"U+{code:04X}"


def test_an_emoji_sequence_keeps_its_joiners_in_a_commands_words():
    # dropping every format character split 👩‍💻 (woman, ZWJ, laptop) into two emoji
    coder, family = "\U0001f469\u200d\U0001f4bb", "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    flag = "\U0001f3f3\ufe0f\u200d\U0001f308"  # rainbow flag: a variation selector first
    assert kinds(f"/notes wrong 1 for {coder} {family} {flag}") == [
        ("wrong", ("1", "for", coder, family, flag))
    ]
    # a joiner anywhere else is still dropped: next to a letter, or at a word's end
    assert kinds("/notes wrong 1 o\u200dk \U0001f469\u200d") == [
        ("wrong", ("1", "ok", "\U0001f469"))
    ]


# --- comments that render to megabytes ------------------------------------------------


def test_a_comment_that_renders_to_far_more_html_than_text_is_not_read(monkeypatch):
    # a table whose one-cell rows cmark-gfm pads to the header's 240 cells (6 KB of text,
    # 1.7 MB of HTML) or 4,000 footnote references took seconds to read; the HTML is
    # now measured first and not scanned or parsed (the safe side, as for depth)
    scanned = []
    real = comment_prose._too_costly
    monkeypatch.setattr(comment_prose, "_too_costly", lambda html: scanned.append(1) or real(html))
    k = 240
    table = "/notes off\n" + "|a" * k + "|\n" + "|-" * k + "|\n" + "a\n" * k
    footnotes = "[^a]: x\n\n/notes off\n" + "[^a]" * 4000
    for text in (table, footnotes):
        assert kinds(text) == [] and scanned == [], len(text)
    # the padded table's size is known from its delimiter row: not even rendered
    rendered = []
    monkeypatch.setattr(comment_prose, "_render", lambda text, *pos: rendered.append(1) or "")
    assert kinds(table) == [] and rendered == []
    monkeypatch.undo()
    # a table anyone writes beside a command is read as ever
    monkeypatch.setattr(comment_prose, "_too_costly", lambda html: scanned.append(1) or real(html))
    modest = "/notes off\n\n| model | before | after |\n|-|-|-|\n| Llama | 1.0 | 1.2 |\n"
    assert kinds(modest) == [("off", ())] and scanned == [1]


def test_a_table_then_a_spaces_only_line_and_a_log_is_read():
    # 520e107 estimates a table's HTML as its delimiter row's columns times every line
    # up to the next "\n\n". GFM ends a table at any blank line, one holding spaces
    # too (and at a fence); the estimate runs on through the log after it and takes a
    # comment that renders to 1.4x its size for one padded to megabytes: the command
    # under it is not read.
    layers = 40
    table = (
        "Per-layer latency (ms) before/after:\n\n"
        + "| "
        + " | ".join(f"L{i}" for i in range(layers))
        + " |\n"
        + "|"
        + "|".join(["---"] * layers)
        + "|\n"
        + "\n".join("| " + " | ".join("0.1" for _ in range(layers)) + " |" for _ in range(2))
    )
    log = "\n".join(f"step {i}: 0.{i % 97:02d}" for i in range(600))
    body = f"{table}\n   \n```\n{log}\n```\n\n/notes why\n"
    import cmarkgfm

    assert len(cmarkgfm.github_flavored_markdown_to_html(body)) < 3 * len(body)
    assert command_lines(body, "/notes") == ["/notes why"]


def test_delimiter_like_lines_in_a_code_block_are_no_table():
    # _table_cells (520e107) scans, for every line shaped like a delimiter row, the text
    # on to the next blank line (`find` and `count` from each): quadratic. A 64 KB
    # comment whose `-|` lines sit in a fenced code block (no table, nothing expands)
    # was read in 17 ms before; now each comment event spends about 0.75 s estimating
    # tables that do not exist (docs/commands.md: "at most about 110 ms for 64 KB built to be
    # slow"), then drops the command the comment plainly gives.
    # (its cost: bench/bench_commands.py; here, that no table is counted in code at all)
    body = "/notes why\n\n```\n" + "-|\n" * 21800 + "```\n"
    assert comment_prose._table_cells(body) == 0
    assert command_lines(body, "/notes") == ["/notes why"]


def test_a_table_padded_to_megabytes_inside_a_list_item_is_not_rendered(monkeypatch):
    """bench_commands' "table of 300 columns, 1-cell rows" inside a list item renders to
    5.4 MB (82 times its length): the estimate is there so such a comment is "not even
    rendered". `_cells` reads the header line with its list marker (`- |a|a|...`), counts
    one cell too many, and the table is not counted at all (0 cells; the old estimate
    had 900,060), so cmark-gfm renders the megabytes every time (about 0.2 s against
    0.03 s before; docs/commands.md: at most about 110 ms for 64 KB built to be slow)."""
    size = 65_536
    text = ("/notes why\n\n- " + "|a" * 300 + "|\n  " + "|-" * 300 + "|\n" + "  a\n" * size)[:size]
    rendered = []
    real = comment_prose._render

    def render(t: str, *pos: bool) -> str:
        rendered.append(len(t))
        return real(t, *pos)

    monkeypatch.setattr(comment_prose, "_render", render)
    assert command_lines(text, "/notes") == []
    assert rendered == []  # refused by the estimate, before rendering


# --- the bounds on a command's arguments and on an edit's new commands ---


# kills: bot/commands.py:_cap_args `used = -1` -> `used = 0`
def test_arguments_exactly_max_arg_chars_long_are_kept_whole():
    (cmd,) = parse_commands("/notes search abcd efghi", max_arg_chars=10)  # "abcd efghi": 10
    assert cmd.args == ("abcd", "efghi")
    (cmd,) = parse_commands("/notes search abcd efghij", max_arg_chars=10)
    assert cmd.args == ("abcd",)


# kills: bot/commands.py:changed_commands drop `[:max_commands]` in changed_commands
def test_an_edit_runs_at_most_max_commands_new_commands():
    new = "/notes why\n/notes topic a\n/notes search b"
    assert [c.kind.value for c in changed_commands("hi", new, max_commands=2)] == ["why", "topic"]


# `line` was cut to the command word plus max_arg_chars, a
# count that took in the sub-command, so a reply's "In reply to" echo quoted less than the
# arguments it answered
def test_the_line_keeps_every_argument_kept():
    from bot.command_replies import Unanswered, render_errors

    (cmd,) = parse_commands("/notes wrong 12 ab", max_arg_chars=10)  # "12 ab": 5
    assert cmd.args == ("12", "ab")
    assert cmd.line == "/notes wrong 12 ab"
    assert "In reply to `/notes wrong 12 ab`:" in render_errors([Unanswered(cmd, refused=True)])
    (cmd,) = parse_commands("/notes search abcd efghi", max_arg_chars=10)
    assert cmd.args == ("abcd", "efghi") and cmd.line == "/notes search abcd efghi"


# --- the echoed command line's arguments ----------------------------------------------


def test_the_echoed_command_line_quotes_only_the_arguments_the_command_ran_with():
    """`_cap_args` keeps whole words (`/notes search abcd efghijklmn` with max_arg_chars
    10 searches for "abcd" alone), but `Command.line`, the "In reply to" echo, was cut by
    characters and still showed half of the dropped word: `/notes search abcd efghi`."""
    cmd = parse_commands("/notes search abcd efghijklmn", max_arg_chars=10)[0]
    assert cmd.args == ("abcd",)
    assert cmd.line == "/notes search abcd"


# --- config/commands.toml's limits ----------------------------------------------------


def _commands_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "commands.toml"
    path.write_text(text)
    return path


def test_a_raised_max_commands_is_checked_against_the_default_write_burst(tmp_path):
    """`_holds_one_comment` ("the burst must hold one comment's most, max_commands + 4")
    is a pydantic field_validator, which runs only when the file names
    installation_write_burst: a commands.toml that raises max_commands (up to 50 is
    allowed) and leaves the new key out, as every operator's file written before this
    change does, loads with the default burst of 40. A comment of 38 reply commands (or
    37 with a `wrong`) then needs more writes than the budget can ever hold: refused on
    a full budget, none of its commands ever runs, and because the budget is full each
    refusal begins a new spell (`_Spells.mend`), so EVERY such comment gets a 😕 and a
    WARNING outside the budget: a flood of them writes without bound, the very thing
    the budget is for. Either the load refuses the file (as it does when the key is
    written: "must be at least 54") or such a comment can run on a full budget."""
    path = _commands_file(tmp_path, "max_commands = 50\n")
    try:
        config = load_command_config(path)
    except ValueError:
        return  # refused at load, naming the file: fixed
    clock = FakeClock()
    flood = FloodControl(config, clock)
    judged = [(Command(Kind.SEARCH, (f"word{i}",)), Decision.ALLOW) for i in range(50)]
    reserved = most_writes(judged, reacts=True)
    refusals = [flood.reserve_writes(1001, reserved) for _ in range(3)]
    # on a full budget: refused, and each refusal the "first" of a spell (😕 + warning)
    assert refusals[0] is None, (
        f"a comment of max_commands={config.max_commands} commands reserves {reserved}"
        f" writes, the burst is {config.installation_write_burst}: never run, and each"
        f" refusal begins a spell: {refusals}"
    )


def test_a_raised_max_commands_past_the_default_burst_is_named_on_its_line(tmp_path: Path):
    """The file sets max_commands alone: the problem is on its line, with what to do."""
    bad = tmp_path / "commands.toml"
    bad.write_text("# caps\nmax_commands = 37\n", "utf-8")
    with pytest.raises(
        ValueError, match=f"^{bad}:2: max_commands: must be at most 36 .*at least 41"
    ):
        load_command_config(bad)
    bad.write_text("max_commands = 36\n", "utf-8")  # 40 writes: fits the default burst
    assert load_command_config(bad).installation_write_burst == 40
    bad.write_text("max_commands = 50\ninstallation_write_burst = 54\n", "utf-8")
    assert load_command_config(bad).max_commands == 50


def test_a_write_budget_that_never_refills_is_refused_at_load(tmp_path):
    """installation_write_refill_s is checked `gt=0` only: TOML's `inf` (or any huge
    value) loads, and the installation's write budget then never refills. Once its 40
    writes are spent (13 ordinary commands), no command of the installation ever runs
    again, for the life of the process, and each comment is dropped without a word
    after the first 😕: the starvation the budget's refunds are careful to avoid. The
    file's other checks (burst >= max_commands + 4, refill > 0) say the key is meant to
    be validated; a value that makes the budget a one-off allowance is not a rate."""
    path = _commands_file(tmp_path, "installation_write_refill_s = inf\n")
    try:
        config = load_command_config(path)
    except ValueError:
        return  # refused at load: fixed
    clock = FakeClock()
    flood = FloodControl(config, clock)
    for _ in range(13):  # thirteen ordinary `/notes`: 4 reserved, 3 written each
        assert flood.reserve_writes(1001, 4) is None
        flood.refund_writes(1001, 1)
    assert flood.reserve_writes(1001, 4) is not None  # 1 left
    clock.advance(7 * 24 * 3600)  # a week later, nothing else happened
    assert flood.reserve_writes(1001, 4) is None, (
        "installation_write_refill_s = inf loaded: a week later the budget has not refilled"
        f" ({flood.installation_writes.left(1001)} left): commands never run again"
    )


@pytest.mark.parametrize(
    "key",
    [
        "min_update_interval_s",
        "reply_refill_s",
        "installation_reply_refill_s",
        "installation_write_refill_s",
        "reply_burst",
        "installation_reply_burst",
        "installation_write_burst",
    ],
)
@pytest.mark.parametrize("value", ["inf", "+inf", "nan", "-nan", "-inf"])
def test_no_time_or_count_of_commands_toml_may_be_infinite_or_nan(tmp_path: Path, key, value):
    """Every float key had the hole (an interval of `inf` deferred the notes comment's
    update forever: `utcnow(after_s=inf)` raises), named with file, line and field."""
    bad = _commands_file(tmp_path, f"# flood control\n{key} = {value}\n")
    with pytest.raises(ValueError, match=f"^{bad}:2: {key}: .*finite number"):
        load_command_config(bad)


# kills: bot/commands.py:CommandConfig max_commands = 1 refused (its lower bound raised to 2)
# kills: bot/commands.py:CommandConfig max_results = 1 refused
# kills: bot/commands.py:CommandConfig min_update_interval_s = 0 refused (an update never deferred)
# kills: bot/commands.py:CommandConfig reply_burst = 1 refused
# kills: bot/commands.py:CommandConfig a reply_refill_s under a second refused
# kills: bot/commands.py:CommandConfig installation_reply_burst = 1 refused
# kills: bot/commands.py:CommandConfig an installation_reply_refill_s under a second refused
# kills: bot/commands.py:CommandConfig an installation_write_refill_s under a second refused
def test_the_least_values_commands_toml_allows_load(tmp_path: Path):
    least = {
        "max_commands": 1,
        "max_results": 1,
        "min_update_interval_s": 0.0,
        "reply_burst": 1,
        "reply_refill_s": 0.5,
        "installation_reply_burst": 1,
        "installation_reply_refill_s": 0.5,
        "installation_write_burst": 5,  # most_comment_writes(1): 3 reactions, 2 replies
        "installation_write_refill_s": 0.5,
    }
    path = _commands_file(tmp_path, "".join(f"{k} = {v}\n" for k, v in least.items()))
    config = load_command_config(path)
    assert {k: getattr(config, k) for k in least} == least


# --- what GitHub shows around a command: blanks, markup, math, footnotes, nesting ---


# kills: bot/comment_prose.py:_SPACES U+3000 (the ideographic space) left out of the spaces
def test_an_ideographic_space_after_the_word_separates_it_from_the_arguments():
    # a CJK input method types U+3000 for a space: "/notes　why" is `/notes why`
    assert kinds("/notes\u3000why") == [("why", ())]
    assert kinds("/notes why\u3000please") == [("why", ("please",))]


# every blank a reader sees between words is a space: `/notes⠀why` (the braille blank,
#   U+2800, a symbol to Unicode) was read as an emoji ending the sentence, the bare /notes,
#   while the line and paragraph separators, vertical tab, form feed, NEL and the Hangul
#   fillers after the word made no command at all, and between a sub-command and its
#   words one unknown word (`why\u2028x`)
@pytest.mark.parametrize("blank", list(BLANKS))
def test_every_blank_between_words_is_a_space(blank):
    assert kinds(f"/notes{blank}why") == [("why", ())]
    assert kinds(f"/notes why{blank}please") == [("why", ("please",))]
    assert kinds(f"/notes wrong 2{blank}only{blank}renames") == [
        ("wrong", ("2", "only", "renames"))
    ]
    assert kinds(f"/notes{blank}{blank}topic{blank}rocm") == [("topic", ("rocm",))]
    assert changed_commands("/notes off", f"/notes{blank}off") == []  # one command


def test_a_blank_is_no_symbol_and_a_control_showing_nothing_is_no_space():
    assert not any(map(is_symbol, BLANKS))
    assert kinds("/notes\x1cwhy") == []  # GitHub shows `/noteswhy`: someone else's word
    assert kinds("/notes\u200bwhy") == []  # a zero-width space shows nothing either


# kills: bot/comment_prose.py:_free_mark a reference to U+110000 (past Unicode) taken as a character
def test_a_character_reference_past_unicode_breaks_nothing():
    # "&#1114112;" is 0x110000, no character: chr() of it raises
    assert kinds("&#1114112; &#x110000;\n/notes why") == [("why", ())]


# kills: bot/comment_prose.py:command_lines letters shown right after the word are not checked
def test_markup_that_shows_letters_right_after_the_word_glues_them_to_it():
    # GitHub shows "/notesoff", no command; read as `/notes off`, the bot paused itself
    assert kinds("/notes<b>off</b>") == []
    assert kinds("/notes<span>why</span> now") == []


# kills: bot/comment_prose.py:_expands_too_far no slack: a short comment held to 20 times its length
def test_a_short_comment_whose_footnotes_render_large_is_still_read():
    # three references to one footnote: 39 characters, 865 of HTML (22 times as long)
    text = "/notes why\n\n" + "a[^1] " * 3 + "\n\n[^1]: x"
    assert len(comment_prose._render(text)) > comment_prose.MAX_EXPANSION * len(text)
    assert command_lines(text, "/notes") == ["/notes why"]


# kills: bot/comment_prose.py:_table_cells a spaces-only line does not end a table's estimate
def test_a_table_ends_at_a_spaces_only_line_before_a_long_paragraph():
    cols = 40
    table = (
        "| " + " | ".join(f"L{i}" for i in range(cols)) + " |\n"
        "|" + "|".join(["---"] * cols) + "|\n"
        "| " + " | ".join("0.1" for _ in range(cols)) + " |\n"
    )
    log = "\n".join(f"step {i}: 0.{i % 97:02d}" for i in range(600))
    text = "/notes why\n\n" + table + "   \n" + log + "\n"
    assert comment_prose._table_cells(text) == cols
    assert kinds(text) == [("why", ())]


# kills: bot/comment_prose.py:_table_cells the header row is kept across a blank line
# kills: bot/comment_prose.py:_table_cells a delimiter row is a table whatever its header's cells
def test_dash_rows_that_make_no_table_are_not_counted_as_one():
    head = "/notes why\n\n"
    rows = "a\n" * 240
    # a blank line between the header and the dashes: GFM sees two paragraphs
    apart = head + "|a" * 240 + "|\n\n" + "|-" * 240 + "|\n" + rows
    # a header of one cell over 240 dashes: no table either (the cells must agree)
    narrow = head + "|a|\n" + "|-" * 240 + "|\n" + rows
    for text in (apart, narrow):
        assert comment_prose._table_cells(text) == 0
        assert kinds(text) == [("why", ())]


# kills: bot/comment_prose.py:_display_math a one-line `$$x$$` opens a math block
# kills: bot/comment_prose.py:_display_math a `$$` inside a line opens a math block
def test_inline_math_or_dollars_inside_a_line_open_no_math_block():
    assert kinds("$$x^2$$\n/notes why") == [("why", ())]
    assert kinds("it costs $$ more\n/notes why\n$$") == [("why", ())]
    assert kinds("a$$ b\n/notes why\n$$") == [("why", ())]  # a `$$` not first, alone


# kills: bot/comment_prose.py:_display_math a `$$` block left open hides nothing after it
# kills: bot/comment_prose.py:_display_math a `$$` block left open spares the comment's last line
def test_a_math_block_left_open_hides_the_lines_after_it():
    assert kinds("$$\nx = 1\n/notes why") == []


# kills: bot/comment_prose.py:_too_costly void elements (a hard break's <br />) counted as nesting
def test_a_paragraph_of_more_than_400_lines_is_no_deep_nesting():
    # each newline in a paragraph is a <br />, which opens nothing
    text = "/notes why\n\n" + "\n".join(f"line {i}" for i in range(500))
    assert kinds(text) == [("why", ())]


# kills: bot/comment_prose.py:_too_costly a closed bold element still counted as open formatting
def test_bold_words_closed_in_many_paragraphs_are_not_reconstructed_work():
    text = "/notes why\n\n" + "**a** b\n\n" * 300
    assert kinds(text) == [("why", ())]


# kills: bot/comment_prose.py:_too_costly an end tag closes every open element, not up to its own
def test_an_inline_element_closed_deep_inside_keeps_the_blocks_around_it_open():
    assert comment_prose._too_costly("<div>" * 300 + "<b>x</b>" + "<div>" * 150)
    assert not comment_prose._too_costly("<div>" * 300 + "<b>x</b>" + "<div>" * 50)


# kills: bot/comment_prose.py:_hidden a <summary> outside a <details> shown as if it were one
def test_a_summary_inside_a_pre_is_as_hidden_as_the_pre():
    assert kinds("<div><pre><summary>\n/notes why\n</summary></pre></div>") == []


# kills: bot/comment_prose.py:_ends_in_break a hidden <rp> last in an element hides the <br> before
# it
def test_a_line_starts_after_a_break_followed_by_a_hidden_rp():
    assert kinds("<div><b>x<br><rp>(</rp></b>\n/notes why\n</div>") == [("why", ())]


# kills: bot/comment_prose.py:_shows_nothing an <rp>, not displayed, taken to show its text
def test_an_rp_before_the_command_shows_nothing_on_its_line():
    assert kinds("<div><rp>(</rp>\n/notes why\n</div>") == [("why", ())]


# kills: bot/comment_prose.py:_shows_nothing an image inside a link before the command not seen
def test_an_image_link_before_the_command_shares_its_line():
    assert kinds('<div><a href="x"><img src="y"></a>\n/notes why\n</div>') == []


# kills: bot/comment_prose.py:_shows_nothing an element holding only a space taken to show something
def test_an_element_holding_only_a_space_before_the_command_shows_nothing():
    assert kinds("<div><b> </b>\n/notes why\n</div>") == [("why", ())]


# kills: bot/comment_prose.py:_footnote_link a data-footnote-ref link without its <sup> left out
# kills: bot/comment_prose.py:_footnote_link a footnote number in non-ASCII digits left out
# kills: bot/comment_prose.py:_footnote_link any element carrying data-footnote-ref taken for the
# link
def test_only_cmark_gfms_exact_footnote_reference_is_left_out_of_the_line():
    assert kinds("/notes why <a data-footnote-ref>2</a>") == [("why", ("2",))]
    assert kinds("/notes why <sup><a data-footnote-ref>٣</a></sup>") == [("why", ("٣",))]
    assert kinds("/notes why <sup><span data-footnote-ref>1</span></sup>") == [("why", ("1",))]


# kills: bot/comment_prose.py:command_lines the walk may visit ten times more nodes than the HTML's
# length
def test_a_tree_with_more_nodes_than_the_html_has_characters_is_not_read():
    # four bold elements the parser rebuilds in each "<p>x": six nodes for four
    # characters, while the tags' guess (_too_costly) lets it pass
    text = "/notes why\n\n<div>\n<p>" + "".join(f"<b a={i}>" for i in range(4))
    text += "<p>x" * 2000 + "\n</div>"
    assert not comment_prose._too_costly(comment_prose._render(text))
    assert command_lines(text, "/notes") == []


# kills: bot/comment_prose.py:_too_costly rebuilt formatting elements allowed up to twice the HTML's
# length
def test_formatting_rebuilt_more_times_than_the_html_has_characters_is_too_costly():
    html = "<div>\n<p>" + "".join(f"<b a={i}>" for i in range(5)) + "<p>x" * 2000 + "\n</div>"
    assert comment_prose._too_costly(html)


# kills: bot/comment_prose.py:_takes a <br> inside inline code does not end the line
def test_a_break_inside_inline_code_ends_the_commands_line():
    assert command_lines("/notes why <code>a<br></code>off", "/notes") == ["/notes why `a`"]


# kills: bot/comment_prose.py:_hidden a collapsed details' summary shown inside another one
def test_a_summary_in_a_details_inside_a_collapsed_details_is_hidden():
    inner = "<details><summary>\n/notes why\n</summary></details>"
    assert kinds(f"<details><summary>a</summary>{inner}</details>") == []
    assert kinds(f"<details open><summary>a</summary>{inner}</details>") == [("why", ())]


# kills: bot/comment_prose.py:_free_mark the mark taken only from the first plane-15 characters
def test_the_mark_comes_from_plane_15_when_the_bmps_private_use_area_is_used():
    bmp = "".join(chr(c) for c in range(0xE000, 0xF900))
    assert kinds("/notes why\n" + bmp + "\U000f0000") == [("why", ())]


# kills: bot/comment_prose.py:_cells a table row's outer spaces counted as a cell
def test_a_header_row_with_spaces_around_it_has_the_cells_between_its_pipes():
    assert comment_prose._table_cells("|a|b| \n|-|-|\n|1|2|\n") == 2
    assert comment_prose._table_cells("  |a|b|\n  |-|-|\n  |1|2|\n") == 2


# kills: bot/comment_prose.py:_too_costly 401 nested elements allowed by the tags' guess
def test_the_tags_guess_allows_400_nested_elements_not_401():
    assert not comment_prose._too_costly("<div>" * 400)
    assert comment_prose._too_costly("<div>" * 401)


# kills: bot/comment_prose.py:command_lines the walk allows one level more than MAX_DEPTH
def test_the_walk_reads_text_400_levels_deep_not_401():
    # "<ul/<>" nests a list the tags' guess does not see; the command's text sits under
    # <html>, <body>, GitHub's <div>, the comment's <div> and the lists
    head, tail = "<div>\n", "\n/notes off\n</div>"
    assert kinds(head + "<ul/<>" * 395 + tail) == [("off", ())]
    assert kinds(head + "<ul/<>" * 396 + tail) == []


# the closing line's text before its `$$` was read as prose
def test_a_command_before_the_closing_dollars_of_a_math_block_is_in_the_formula():
    # GitHub shows "x = 1 /notes off" as one display formula, up to the closing "$$"; the
    # math scan counts only the lines between the two "$$" lines as the formula, and the
    # bot pauses itself on `/notes off` (args "$$") that no reader sees as a command
    assert kinds("$$\nx = 1\n/notes off $$") == []


# a `$$` opened a formula only at the line's very start; a paragraph's indent of 1-3
# spaces is no part of its text
def test_a_math_block_opened_by_a_dollar_pair_indented_one_to_three_spaces_is_a_formula():
    # " $$" is the paragraph line "$$" (CommonMark strips up to three spaces of indent),
    # the same formula as "$$\n/notes off\n$$" and "1. $$\n   /notes off\n   $$", which
    # are already tests; the math scan strips an indent only before a list or quote marker
    assert kinds(" $$\nx = 1\n/notes off\n $$") == []
    assert kinds("   $$\n/notes off\n$$") == []
    assert kinds("    $$\n/notes off\n$$") == [("off", ())]  # 4 spaces: code, no formula


# kills: bot/comment_prose.py:_starts_with the word compared case-folded (a long s is then an s)
def test_a_word_that_only_case_folds_to_the_command_is_not_it():
    assert kinds("/note\u017f why") == []  # "/noteſ": casefold() makes it "/notes"


# kills: bot/comment_prose.py:command_lines a text's last mark taken for where its line starts
# kills: bot/comment_prose.py:command_lines a later line's mark left in the line as a space
def test_two_command_lines_joined_by_raw_html_are_one_line_from_the_first():
    # a newline in raw HTML is a space: GitHub shows "/notes why /notes off" on one line
    text = "<div>\n/notes why\n/notes off\n</div>"
    assert [line.rstrip() for line in command_lines(text, "/notes")] == ["/notes why /notes off"]
    assert kinds(text) == [("why", ("/notes", "off"))]


# --- the command config frozen; punctuation and marks after the command word ---


# kills: bot/commands.py:CommandConfig the config shared by every handler changeable in place
def test_the_command_config_cannot_be_changed_in_place():
    # one CommandConfig serves every delivery's context on the server's threads: a handler
    # that set a cap would set it for every PR
    config = load_command_config()
    with pytest.raises(ValidationError, match="frozen"):
        config.max_commands = 50
    assert config.max_commands == 5


# kills: bot/comment_prose.py:_word_ends markup after the punctuation that ends the word refused
def test_markup_after_the_punctuation_that_ends_the_word_is_left_to_the_page():
    # as after the bare word (`/notes<!-- -->`): GitHub shows "/notes." and the command runs
    assert kinds("/notes.<!-- from the template -->") == [("refresh", ())]
    assert kinds("/notes.<br>thanks") == [("refresh", ())]
    assert kinds("/notes.<b>x</b>") == []  # shown as "/notes.x"


# kills: bot/comment_prose.py:_word_ends the run of marks judged by its first mark, not its last
def test_a_run_of_marks_ending_in_a_full_width_one_needs_no_space_after_it():
    # what follows the run decides: a writer switching input methods mid-run ("?！")
    # ended on the Chinese mark, after which no space comes
    assert kinds("/notes?！谢谢") == [("refresh", ())]
    assert kinds("/notes！.py") == []


# --- an emoji glued to a command ------------------------------------------------------

PRAY, THUMB_MEDIUM, HEART = "\U0001f64f", "\U0001f44d\U0001f3fd", "\u2764\ufe0f"
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"


# kills: bot/comment_prose.py:_word_ends (hand) an emoji after the word read as a letter:
#   `/notes🙏` was no command
# kills: bot/commands.py:_split_subcommand (hand) only punctuation cut off a sub-command:
#   `/notes off🙏` was answered "There is no `off🙏` command"
# kills: bot/commands.py:_parse_line (hand) a word of emoji read as a sub-command: `/notes 🙏`
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # contributors thank the bot with no space before the emoji, as they would end
        # a sentence with a full stop: the emoji is no part of the word
        (f"/notes off{PRAY}", [("off", ())]),
        (f"/notes{PRAY}", [("refresh", ())]),
        (f"/notes{PRAY}谢谢", [("refresh", ())]),  # as after `。`: no space after it
        (f"/notes{PRAY} off", [("refresh", ())]),  # as `/notes. off`: the sentence ended
        (f"/notes {PRAY}", [("refresh", ())]),  # a thank-you, not a sub-command
        (f"/notes {THUMB_MEDIUM}!", [("refresh", ())]),
        (f"/notes why{THUMB_MEDIUM}", [("why", ())]),  # a skin tone (Sk) is the emoji's
        (f"/notes off{HEART}", [("off", ())]),  # and so is its variation selector
        (f"/notes why{FAMILY}", [("why", ())]),  # and a sequence's joiners
        ("/notes off\u2705", [("off", ())]),  # ✅ and ™ are symbols (So) too
        ("/notes off\u2122.", [("off", ())]),
        (f"/notes off{PRAY}谢谢", [("off", ("谢谢",))]),  # as `/notes off，谢谢`
        (f"/notes topic rocm{PRAY}", [("topic", (f"rocm{PRAY}",))]),  # the reply reads it
        # an emoji after a word is no part of a path either: still not commands
        ("/notes.py", []),
        (f"/notes{PRAY}.py", []),
        ("/notes^", []),  # ASCII's modifier symbols are Markdown's and paths'
        ("/notes`x`", []),
        ("/notes?", [("refresh", ())]),
        ("/notes ?", [("unknown", ("?",))]),  # a question: the reply lists the commands
        (f"/notes offx{PRAY}", [("unknown", (f"offx{PRAY}",))]),
    ],
)
def test_an_emoji_glued_to_a_command_is_no_part_of_it(text, expected):
    assert kinds(text) == expected


# kills: bot/comment_prose.py:_word_ends (hand) an emoji's variation selector judged alone:
#   `/notes~` then a joiner ended the word, though nothing shown follows the tilde but `foo`
def test_an_emojis_parts_alone_after_a_word_are_not_an_emoji():
    assert kinds("/notes~\u200dfoo") == []
    assert kinds("/notes\ufe0ffoo") == []
    assert kinds("/notes off\ufe0f") == [("off", ())]


def test_every_emoji_and_symbol_is_one_by_its_unicode_category():
    import unicodedata

    for char in ["\U0001f64f", "\U0001f3fd", "\u2705", "\u2122", "\u00a9", "\U0001f1e8"]:
        assert comment_prose.is_symbol(char), unicodedata.name(char)
    for char in ["^", "`", "a", "\u4e2d", "\u2192", " ", "#"]:  # → is a math symbol (Sm)
        assert not comment_prose.is_symbol(char), repr(char)


# --- punctuation alone after the command word -----------------------------------------


# kills: bot/commands.py:_parse_line (hand) a word of punctuation alone read as a sub-command:
#   `/notes 。` was answered "There is no `。` command", while `/notes 🙏` and `/notes。` were
#   the bare command
# kills: bot/commands.py:_sentence_ended (hand) a question mark alone read as the bare command
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the sentence ended at the command word, with a space before its punctuation (a
        # French writer's `/notes !`, a phone's stray space): as `/notes.`, the bare command
        ("/notes 。", [("refresh", ())]),
        ("/notes !", [("refresh", ())]),
        ("/notes ...", [("refresh", ())]),  # as `/notes...`; no write the bare one would not do
        ("/notes …", [("refresh", ())]),
        ("/notes . thanks", [("refresh", ())]),  # the next sentence, as after `/notes.`
        ("/notes ... off", [("refresh", ())]),  # as `/notes. off`: not turned off
        (f"/notes .{PRAY}", [("refresh", ())]),
        # a question asks what the commands are: the unknown reply lists them
        ("/notes ?", [("unknown", ("?",))]),
        ("/notes ？", [("unknown", ("？",))]),
        ("/notes ??", [("unknown", ("??",))]),
        # a word with a letter after ASCII punctuation is still a word
        ("/notes .x", [("unknown", (".x",))]),
        ("/notes frob.", [("unknown", ("frob.",))]),
    ],
)
def test_a_word_of_punctuation_alone_is_the_bare_command(text, expected):
    assert kinds(text) == expected


# kills: bot/commands.py:_parse_line (hand) only a word of marks alone read as the sentence's
#   end: `/notes 🙏谢谢` was answered "There is no `🙏谢谢` command", `/notes🙏谢谢` refreshed
# kills: bot/commands.py:_sentence_ended (hand) the question judged on the whole word
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # full-width punctuation or an emoji takes no space after it, as glued to the
        # command word (`/notes。谢谢`, `/notes🙏谢谢`): what follows is the next sentence
        (f"/notes {PRAY}谢谢", [("refresh", ())]),
        ("/notes 。谢谢", [("refresh", ())]),
        ("/notes ，off", [("refresh", ())]),  # as `/notes，off`
        ("/notes ？谢谢", [("unknown", ("？谢谢",))]),  # a question, then thanks
        ("/notes .py", [("unknown", (".py",))]),  # ASCII punctuation needs a space after
    ],
)
def test_a_word_that_starts_by_ending_the_sentence_is_the_bare_command(text, expected):
    assert kinds(text) == expected


# --- a command typed full-width -------------------------------------------------------


# kills: bot/comment_prose.py:_starts_with (hand) the word compared as typed: `／ｎｏｔｅｓ`, a
#   Chinese input method's full-width mode, was no command and was answered by nothing
# kills: bot/commands.py:_split_subcommand (hand) the sub-command compared as typed: `ｏｆｆ`
#   was answered "There is no `ｏｆｆ` command"
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("／ｎｏｔｅｓ", [("refresh", ())]),
        ("／notes off", [("off", ())]),  # only the slash typed full-width
        ("/ｎｏｔｅｓ why", [("why", ())]),
        ("／ｎｏｔｅｓ\u3000ｏｆｆ", [("off", ())]),  # the ideographic space between them
        ("／ＮＯＴＥＳ\u3000ＯＦＦ！", [("off", ())]),
        ("／ｎｏｔｅｓ\u3000ｗｒｏｎｇ\u3000２，不相关", [("wrong", ("２，不相关",))]),
        ("／ｎｏｔｅｓ\u3000ｔｏｐｉｃ\u3000ＲＯＣｍ", [("topic", ("ＲＯＣｍ",))]),
        ("／ｎｏｔｅｓ。谢谢", [("refresh", ())]),
        ("/notes ｏｆｆｘ", [("unknown", ("ｏｆｆｘ",))]),  # quoted as typed
        ("Thanks!\n／ｎｏｔｅｓ\u3000ｗｈｙ", [("why", ())]),
    ],
)
def test_a_command_typed_full_width_is_the_command(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "／ｎｏｔｅｓｆｏｏ",
        "／ｎｏｔｅｓ／ｆｏｏ",  # a path typed full-width
        "／notes.py",
        "請看 ／notes",  # not at the line's start
        "> ／ｎｏｔｅｓ\u3000ｏｆｆ",
        "`／notes off`",
        "    ／notes off",
        "\\／notes off",
    ],
)
def test_a_full_width_command_word_is_text_where_the_ascii_one_is(text):
    assert parse_commands(text) == []


# kills: bot/comment_prose.py:_word_ends (hand) the full-width full stop read as `。`, which
#   takes no space after it: `／ｎｏｔｅｓ．ｐｙ`, a file name typed full-width, refreshed
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a full-width mode's `.`: `/notes off．` was "There is no `off．` command"
        ("/notes off．", [("off", ())]),
        ("/notes．", [("refresh", ())]),
        ("／ｎｏｔｅｓ　ｗｈｙ．", [("why", ())]),
        ("/notes ．", [("refresh", ())]),
        # as `.`, a space or the line's end follows it
        ("/notes．py", []),
        ("／ｎｏｔｅｓ．ｐｙ", []),
        ("/notes ．py", [("unknown", ("．py",))]),
    ],
)
def test_a_full_width_full_stop_ends_a_word_as_a_full_stop_does(text, expected):
    assert kinds(text) == expected


# --- emoji shortcodes -----------------------------------------------------------------


# kills: bot/comment_prose.py:_mark_run (hand) a shortcode not read as an emoji: `/notes :+1:`
#   was answered "There is no `:+1:` command", `/notes:pray:` was no command at all, though
#   the page shows `/notes 👍` and `/notes🙏`, which refresh
# kills: bot/comment_prose.py:_word_ends (hand) a shortcode read as ASCII punctuation: what
#   follows it glued (`:pray:谢谢`) made the word no command's end
# kills: bot/comment_prose.py:_word_ends looked two characters past a shortcode: `:pray:x谢谢`
# kills: bot/comment_prose.py:_mark_run (hand) a run kept as a shortcode's past the ASCII
#   marks after it: `:pray:.谢谢` (as `🙏.谢谢`, a `.` needs a space after)
# kills: bot/comment_prose.py:_SHORTCODE (hand) names of four letters at most: `:thinking:`
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the comment's text holds the shortcode (typed out, or pasted from a chat)
        ("/notes:pray:", [("refresh", ())]),
        ("/notes :+1:", [("refresh", ())]),
        ("/notes :-1:", [("refresh", ())]),
        ("/notes :100:", [("refresh", ())]),
        ("/notes :pray::pray:", [("refresh", ())]),
        ("/notes:pray:谢谢", [("refresh", ())]),
        ("/notes :pray:谢谢", [("refresh", ())]),
        ("/notes :pray: off", [("refresh", ())]),  # as `/notes 🙏 off`: not turned off
        ("/notes off:pray:", [("off", ())]),  # as `/notes off🙏`
        ("/notes why:+1:", [("why", ())]),
        ("/notes :thinking:", [("refresh", ())]),
        ("/notes:slightly_smiling_face:", [("refresh", ())]),
        # no emoji's name: a port, upper case, digits, a word glued on
        ("/notes:8080:", []),
        ("/notes:foo:bar", []),
        ("/notes:pray:.py", []),
        ("/notes:pray:x谢谢", []),
        ("/notes:pray:.谢谢", []),
        ("/notes:Pray:", []),
        ("/notes:1:", []),
        # after a space, a colon that is no emoji's labels the word after it: no
        # sub-command, the bare `/notes`, as `/notes : Pray:`
        ("/notes :Pray:", [("refresh", ())]),
    ],
)
def test_an_emoji_shortcode_is_read_as_the_emoji_it_shows(text, expected):
    assert kinds(text) == expected


# --- a colon after the command word ---------------------------------------------------


# kills: bot/commands.py:_labelled (hand) a colon read as a full stop: `/notes: why` was
#   the bare `/notes`; bot/comment_prose.py:_colon_glued (hand) `/notes:why` no command
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes: why", [("why", ())]),
        ("/notes:why", [("why", ())]),
        ("/notes：why", [("why", ())]),  # as a Chinese input method types the colon
        ("/notes：ｗｈｙ", [("why", ())]),
        ("/notes:ｗｈｙ", [("why", ())]),
        ("/NOTES:OFF", [("off", ())]),
        ("/notes:why?", [("why", ())]),
        ("/notes: why?", [("why", ())]),
        ("/notes:off（先关掉）", [("off", ("（先关掉）",))]),
        ("/notes: wrong 2 only renames", [("wrong", ("2", "only", "renames"))]),
        ("/notes:topic rocm", [("topic", ("rocm",))]),
        ("/notes:\u200bwhy", [("why", ())]),  # invisible, as the page shows it
        # no sub-command after it: the bare one, as after a full stop, not an unknown one
        ("/notes: thanks!", [("refresh", ())]),
        ("/notes: 🙏", [("refresh", ())]),
        ("/notes:", [("refresh", ())]),
        ("/notes:: why", [("refresh", ())]),  # a colon alone labels it
        ("/notes. why", [("refresh", ())]),  # a full stop still ends the sentence
        ("/notes:on:", [("refresh", ())]),  # the page shows `/notes🔛`: an emoji
        # glued with no space, only a sub-command whose word ends there is one
        ("/notes:whyx", []),
        ("/notes:why.py", []),
        ("/notes:why(x)", []),
        ("/notes::why", []),
        ("/notes:8080", []),
        ("see /notes: why", []),  # at a line's start only, as ever
        ("> /notes: why", []),
        ("`/notes:why`", []),
    ],
)
def test_a_colon_after_the_command_word_labels_the_sub_command(text, expected):
    assert kinds(text) == expected


# kills: bot/comment_prose.py:colon_label (hand) a colon after a space read as a full stop:
#   `/notes : why` was the bare `/notes` (the plain comment, no why mode) and `/notes :why`
#   an unknown sub-command's reply, where `/notes: why` runs why; and an invisible character
#   between the word and its colon, which the page does not show, made `/notes:why` the
#   bare `/notes`
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes : why", [("why", ())]),
        ("/notes :why", [("why", ())]),
        ("/notes ： why", [("why", ())]),
        ("/notes ：why", [("why", ())]),  # a full-width colon needs no space after it
        ("／ｎｏｔｅｓ　：　ｗｈｙ", [("why", ())]),  # a full-width mode's space too
        ("/notes\t:\twhy", [("why", ())]),
        ("/notes : wrong 2 only renames", [("wrong", ("2", "only", "renames"))]),
        ("/notes\u200b:why", [("why", ())]),
        ("/notes\u200b: why", [("why", ())]),
        ("/notes :\u200bwhy", [("why", ())]),
        # kills: bot/comment_prose.py:_colon_glued (hand) no markup after a glued word in the
        #   source: `/notes:why<br>` and `/notes:why` + a `\` line break were no command,
        #   where `/notes why<br>` and `/notes: why<br>` run why
        ("/notes:why<br>", [("why", ())]),
        ("/notes:why\\\nthanks", [("why", ())]),
        ("/notes:why<!-- x -->", [("why", ())]),
        ("/notes:why&amp;", []),  # the page shows `/notes:why&`: someone else's word
        # no sub-command after it: as after a full stop, the bare `/notes`, with or without
        # a space after the colon
        ("/notes : thanks!", [("refresh", ())]),
        ("/notes : : why", [("refresh", ())]),
        ("/notes :: why", [("refresh", ())]),
        ("/notes :thanks", [("refresh", ())]),
        ("/notes :whyx", [("refresh", ())]),
        ("/notes :on:", [("refresh", ())]),  # `/notes 🔛`
        # a shortcode's colon labels nothing: the page shows `/notes🔛pray:`, an emoji and
        # ASCII glued on, as `/notes:pray:x谢谢`
        ("/notes:on:pray:", []),
    ],
)
def test_a_colon_labels_the_sub_command_with_spaces_invisible_characters_or_markup(text, expected):
    assert kinds(text) == expected
    if expected and expected[0][0] == "why":  # an edit between the forms runs nothing again
        assert changed_commands(text, "/notes why") == []


# kills: bot/commands.py:_labelled (hand) a sub-command with a stray symbol glued on read as
#   no sub-command after a colon: `/notes : why&amp;` (shown `/notes : why&`) was the bare
#   `/notes`, a 👍 for a why mode never shown, where `/notes why&amp;` is told there is no
#   `why&` command; and `/notes :thanks` was an unknown sub-command `:thanks` where
#   `/notes : thanks` and `/notes: thanks` are the bare `/notes`
@pytest.mark.parametrize(
    ("tail", "expected"),
    [
        # a sub-command with stray symbols glued on: the writer's, mistyped; told so
        ("why&amp;", [("unknown", ("why&",))]),
        ("ｗｈｙ＆", [("unknown", ("ｗｈｙ＆",))]),
        ("off* for now", [("unknown", ("off*", "for", "now"))]),
        ("why.", [("why", ())]),
        ("wrong 2 x", [("wrong", ("2", "x"))]),
        # a word of its own: prose after the command word, as after a full stop
        ("thanks", [("refresh", ())]),
        ("thanks!", [("refresh", ())]),
        ("whyx", [("refresh", ())]),
        ("offline", [("refresh", ())]),
        ("on-call", [("refresh", ())]),
        ("why2", [("refresh", ())]),
        ("latest:", [("refresh", ())]),
        ("Pray:", [("refresh", ())]),
        ("1:", [("refresh", ())]),
        ("", [("refresh", ())]),
    ],
)
@pytest.mark.parametrize("colon", [": ", " : ", " :", "：", " ： "])
def test_every_colon_form_reads_the_word_after_it_alike(colon, tail, expected):
    assert kinds(f"/notes{colon}{tail}") == expected
    # a colon labelling a sub-command reads as the sub-command typed apart
    if expected[0][0] != "refresh":
        assert kinds(f"/notes {tail}") == expected


def test_a_colon_labelled_sub_command_is_the_same_command_as_typed_apart():
    # an edit between the two forms runs nothing again
    (labelled,) = parse_commands("/notes: why")
    (spaced,) = parse_commands("/notes why")
    assert labelled.key == spaced.key and labelled.line == spaced.line
    assert changed_commands("/notes: why", "/notes why") == []


# --- quotes, brackets and parentheses glued to a command ------------------------------


# kills: bot/commands.py:_split_subcommand (hand) an opening quote glued to a sub-command read
#   as part of it: `/notes topic「ROCm」` (Chinese puts no space before `「`) was answered
#   "There is no `topic「ROCm」` command"
# kills: bot/comment_prose.py:opens_a_quote ASCII's quotes and brackets taken too
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes topic「ROCm」", [("topic", ("「ROCm」",))]),
        ("/notes topic“CUDA graphs”", [("topic", ("“CUDA", "graphs”"))]),
        ("/notes search『前缀缓存』", [("search", ("『前缀缓存』",))]),
        ("／ｎｏｔｅｓ　ｔｏｐｉｃ「投机解码」", [("topic", ("「投机解码」",))]),
        # ASCII's, or a closing one, glued on: someone else's word, as `offx` is
        ("/notes topic(rocm)", [("unknown", ("topic(rocm)",))]),
        ('/notes topic"rocm"', [("unknown", ('topic"rocm"',))]),
        ("/notes topic」", [("unknown", ("topic」",))]),
    ],
)
def test_an_opening_quote_glued_to_a_subcommand_starts_its_argument(text, expected):
    assert kinds(text) == expected


# kills: bot/commands.py:_split_subcommand (hand) a full-width bracket asked of as its ASCII:
#   `/notes off（先关掉）`, an aside glued on as Chinese writes it, was answered "There is no
#   `off（先关掉）` command" and the notes stayed on
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes off（先关掉）", [("off", ("（先关掉）",))]),
        ("/notes why（想看证据）", [("why", ("（想看证据）",))]),
        ("／ｎｏｔｅｓ　ｏｆｆ（先关掉）", [("off", ("（先关掉）",))]),
        ("/notes off［暂时］", [("off", ("［暂时］",))]),
        ("/notes wrong（第2条）", [("wrong", ("（第2条）",))]),
        # ASCII's, glued on, is a call's or a path's (`topic(rocm)`, `off()`): not ours
        ("/notes off(先关掉)", [("unknown", ("off(先关掉)",))]),
        ("/notes off()", [("unknown", ("off()",))]),
        # the word must be ours whole: a longer word with a bracket is someone else's
        ("/notes offload（卸载）", [("unknown", ("offload（卸载）",))]),
    ],
)
def test_a_full_width_bracket_glued_to_a_subcommand_starts_its_argument(text, expected):
    # a full-width bracket is Chinese punctuation, which no code or path is written with,
    # and which Chinese puts no space before: what it opens is the writer's own aside
    assert kinds(text) == expected


# kills: bot/comment_prose.py:_word_ends (hand) a full-width parenthesis no end of the word:
#   `/notes（先刷新一下）` was no command at all, and `/notes （先刷新）` answered "There is no
#   `（先刷新）` command"
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes（先刷新一下）", [("refresh", ())]),
        ("/notes （先刷新）", [("refresh", ())]),
        ("／ｎｏｔｅｓ（先刷新）", [("refresh", ())]),
        ("/notes（", [("refresh", ())]),
        # ASCII's is a call's or a path's, and a quote may name a sub-command: not read so
        ("/notes(先刷新)", []),
        ("/notes()", []),
        ("/notes「why」", []),
    ],
)
def test_a_full_width_parenthesis_after_the_command_word_is_the_writers_aside(text, expected):
    # as after a sub-command (`/notes off（先关掉）`): the bare `/notes`, with the writer's
    # own remark after it, which is no sub-command
    assert kinds(text) == expected


# kills: bot/commands.py:_parse_line (hand) an ASCII parenthesis after a space no aside:
#   `/notes (please)` and `/notes (先刷新)`, typed in half-width mode, were answered "There is
#   no `(please)` command", where `/notes （先刷新）` and `/notes: (please)` are the bare
#   `/notes`
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes (please)", [("refresh", ())]),
        ("/notes (先刷新)", [("refresh", ())]),
        ("/notes (re-run after the rebase) thanks", [("refresh", ())]),
        ("/notes (why)", [("refresh", ())]),  # as `/notes （why）`
        ("/notes （why）", [("refresh", ())]),
        ("/notes\u3000(先刷新)", [("refresh", ())]),
        # glued on it is a call's or a path's, and after a sub-command its argument
        ("/notes(please)", []),
        ("/notes off (for now)", [("off", ("(for", "now)"))]),
        ("/notes topic (rocm)", [("topic", ("(rocm)",))]),
        ("/notes [please]", [("unknown", ("[please]",))]),  # a link's or a list's, no aside
    ],
)
def test_a_parenthesis_after_a_space_is_the_writers_aside_ascii_or_full_width(text, expected):
    assert kinds(text) == expected


# --- sub-commands in inline code ------------------------------------------------------


# kills: bot/commands.py:_uncoded (hand) a sub-command in inline code read with its
#   backticks: `/notes \`why\`` (the command word as prose, its sub-command formatted as
#   code, as people write commands) was answered "There is no `` `why` `` command", where a
#   topic's name or a search's words in code are read as their text (`/notes topic \`rocm\``)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes `why`", [("why", ())]),
        ("/notes ``why``", [("why", ())]),
        ("/notes `off` for now", [("off", ("for", "now"))]),
        ("/notes `why`?", [("why", ())]),
        ("/notes `ｗｈｙ`", [("why", ())]),
        ("/notes `wrong` 2", [("wrong", ("2",))]),
        ("/notes: `why`", [("why", ())]),
        ("/notes : `why`", [("why", ())]),
        # code that is no sub-command alone is quoted back as typed
        ("/notes `frobnicate`", [("unknown", ("`frobnicate`",))]),
        ("/notes `why please`", [("unknown", ("`why", "please`"))]),
        ("/notes `why`x", [("unknown", ("`why`x",))]),
        ("`/notes why`", []),  # the command word in code: text, as ever
    ],
)
def test_a_sub_command_in_inline_code_is_the_sub_command(text, expected):
    assert kinds(text) == expected


# kills: bot/commands.py:_split_subcommand (hand) a line naming sub-commands in code read
#   as running its first: `/notes \`off\`, \`on\` or \`why\`` (a
#   maintainer telling the author what the bot takes) paused the notes on the PR
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes `off`, `on` or `why`", [("unknown", ("`off`,", "`on`", "or", "`why`"))]),
        (
            "/notes `off` pauses, `on` resumes",
            [("unknown", ("`off`", "pauses,", "`on`", "resumes"))],
        ),
        ("/notes: `off`, `on`", [("unknown", ("`off`,", "`on`"))]),
        # one sub-command in code, other code among its words: that sub-command
        ("/notes `wrong` `2` only renames", [("wrong", ("`2`", "only", "renames"))]),
        ("/notes `off` until `main` is green", [("off", ("until", "`main`", "is", "green"))]),
    ],
)
def test_a_line_naming_several_sub_commands_in_code_runs_none(text, expected):
    assert kinds(text) == expected


# --- names GitHub shows as emoji, and a sub-command between colons --------------------


# kills: bot/comment_prose.py:_shortcode_end (hand) any lower-case name read as an emoji's:
#   `/notes topic:rocm:` lost its topic (an emoji after `topic`), `/notes:latest:` was the
#   bare `/notes`, though GitHub shows `:rocm:` and `:latest:` as typed
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # no emoji's name: GitHub shows it as typed, so it is text (the topic reads `rocm:`
        # as `rocm`, its punctuation aside)
        ("/notes topic:rocm:", [("topic", ("rocm:",))]),
        ("/notes topic :rocm:", [("topic", (":rocm:",))]),
        ("/notes:latest:", []),
        ("/notes :latest:", [("refresh", ())]),  # a colon labelling no sub-command
        ("/notes off:latest:", [("off", ("latest:",))]),  # as `/notes off:foo`
        # gemoji's names, GitHub's own images and the newest emoji are emoji
        ("/notes :shipit:", [("refresh", ())]),
        ("/notes:octocat:", [("refresh", ())]),
        ("/notes :melting_face:", [("refresh", ())]),
        ("/notes off:on:", [("off", ())]),  # 🔛: a name of two letters
    ],
)
def test_only_a_name_github_shows_as_an_emoji_is_a_shortcode(text, expected):
    assert kinds(text) == expected


# a sub-command between colons after the command word is written as an emoji's shortcode
#   is: `/notes :on:` (🔛 on the page) was the bare /notes while `/notes :off:`, no emoji's
#   name, turned the updates off, and `:why:`, `:help:`, `:wrong: 2` ran theirs. Each is
#   now the bare /notes, as `:on:` and `:thanks:` are; a colon with a space after it, or
#   one after the sub-command only, still labels or ends it
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/notes :off:", [("refresh", ())]),
        ("/notes:off:", [("refresh", ())]),
        ("/notes：off：", [("refresh", ())]),
        ("/notes :ｏｆｆ:", [("refresh", ())]),
        ("/notes :why:", [("refresh", ())]),
        ("/notes :help:", [("refresh", ())]),
        ("/notes :wrong: 2", [("refresh", ())]),
        ("/notes :off: for now", [("refresh", ())]),
        ("/notes :on:", [("refresh", ())]),
        ("/notes :thanks:", [("refresh", ())]),
        ("/notes : off:", [("off", ())]),
        ("/notes: off:", [("off", ())]),
        ("/notes :off", [("off", ())]),
        ("/notes off:", [("off", ())]),
        ("/notes :off-topic:", [("refresh", ())]),
        ("/notes :offx:", [("refresh", ())]),
    ],
)
def test_a_sub_command_between_colons_is_emoji_ish_text_as_on_is(text, expected):
    assert kinds(text) == expected


# --- a topic's name in brackets -------------------------------------------------------


# kills: bot/commands.py:unbracketed what follows the closing bracket cut short (`end + 2`)
@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("（rocm）", "rocm"),
        ("（rocm）谢谢", "rocm 谢谢"),
        ("(cuda graphs) please", "cuda graphs please"),
        ("［ROCm］", "ROCm"),
        ("（rocm", "（rocm"),  # left open: as typed
        ("rocm（AMD）", "rocm（AMD）"),  # a bracket inside the name is the name's
        ("", ""),
    ],
)
def test_a_topics_name_is_read_without_the_brackets_its_start_opens(typed, read):
    assert unbracketed(typed) == read


# --- what an edit runs again: a command's key -----------------------------------------


# A list's separator typed apart reads as glued (`wrong_reading._is_number`), and so is keyed:
# an edit spacing it out asks the same again and is answered once; one that makes the list
# a note and a reason (`1 - 2 both off`: note 1, `2 both off`) is a new command
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("1,2", "1 , 2"),
        ("1,2", "1, 2"),
        ("1,2", "1 ,2"),
        ("1,2", "1 2"),
        ("1-2", "1 - 2"),
        ("1，2", "1 ， 2"),
        ("1、2", "1 、 2"),
        ("1,2 both off", "1 , 2 both off"),
        ("1,2,3", "1 , 2 , 3"),
        ("(1),(2)", "(1) , (2)"),
        ("(1)-(2) both off", "(1) - (2) both off"),
    ],
)
def test_a_list_of_numbers_is_keyed_as_glued_however_spaced(old, new):
    (before,), (after,) = (parse_commands(f"/notes wrong {typed}") for typed in (old, new))
    assert before.key == after.key
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong {new}") == []


def _picked(old: str, new: str, shown: tuple[str, ...]) -> list[wrong_reading.Pick]:
    """How `pick_note` reads `/notes wrong OLD`, then `/notes wrong NEW`, with `shown`."""
    said = [parse_commands(f"/notes wrong {t}")[0].args for t in (old, new)]
    return [wrong_reading.pick_note(args, shown) for args in said]


def _is_a_new_wrong(old: str, new: str) -> None:
    """An edit from `/notes wrong OLD` to `/notes wrong NEW` runs the new one: its key
    differs."""
    (changed,) = changed_commands(f"/notes wrong {old}", f"/notes wrong {new}")
    assert changed.line == f"/notes wrong {new}"


@pytest.mark.parametrize(
    ("old", "new"),
    [("1 2 both off", "1 - 2 both off"), ("1,2", "1,3"), ("1,2 both off", "1 both off")],
)
def test_an_edit_making_a_list_a_note_and_its_reason_is_a_new_wrong(old, new):
    _is_a_new_wrong(old, new)


# A list's answer (which note? or no note N) reads no word after its numbers: keyed with
# them, an edit adding, changing or dropping a reason after a list got a second reply, the
# same answer, one more notification to everyone watching the PR
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("1,2", "1,2 both off"),
        ("1 , 2", "1 , 2 both off"),
        ("9,3 only renames", "9,3 只是改名"),
        ("2 3", "2 3，只是改名"),
        ("第2、3条", "第2、3条 — 只是改名"),
        ("(1)(2) x", "(1)(2)"),
        ("1 3-3", "1 3-3 “only renames”"),
        ("2 2，只是改名", "2 2，只是重命名"),
        ("2,3，x", "2,3"),
    ],
)
def test_an_edit_to_the_words_after_a_list_is_no_new_wrong(old, new):
    for shown in (("a",), ("a", "b", "c")):
        answers = [(p.note_id, p.rank, p.problem) for p in _picked(old, new, shown)]
        assert answers[0] == answers[1] and answers[0][2] is not None, (old, new, shown)
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong {new}") == []


# kills: bot/commands.py:Command.key a `wrong`'s reading of its words given to other kinds
def test_an_edit_naming_the_same_note_another_way_is_no_new_wrong_but_a_new_search():
    assert changed_commands("/notes wrong 第2条 — 只是改名", "/notes wrong 2 只是改名") == []
    (search,) = changed_commands("/notes search 第2条 — kv", "/notes search 2 kv")
    assert search.kind is Kind.SEARCH  # the words searched changed


# kills: bot/commands.py:Command.key (hand) a search's words keyed as typed, not as searched
def test_an_edit_of_a_search_changing_no_word_it_searches_runs_nothing_again():
    for old, new in [
        ("/notes search「前缀缓存」", "/notes search 前缀缓存"),
        ("/notes search（rocm）", "/notes search ROCm."),
        ("/notes search c", "/notes search c++"),  # search reads `c++` as `c` (bot.search)
        ("/notes search torch::jit", "/notes search torch jit"),
    ]:
        assert changed_commands(old, new) == [], new
    (search,) = changed_commands("/notes search rocm", "/notes search rocm kv")
    assert search.line == "/notes search rocm kv"


# --- the quote and bracket pairs' one table -------------------------------------------


# The quote and bracket pairs have one table (bot.notes.QUOTE_PAIRS, BRACKET_PAIRS); each
# reader's view of it is the table that reader kept before, pair for pair, and reads every
# pair of marks as before (the old tables and pattern, as they were written)
_OLD_QUOTES = "`\"'“”‘’「」『』【】《》"
_OLD_QUOTE_PAIRS = dict(zip("「『“‘【《\"'`", "」』”’】》\"'`", strict=True))
_OLD_CLOSING = {"(": ")", "[": "]", "【": "】"}
_OLD_BRACKETS = {"(": ")", "\uff08": "\uff09", "[": "]", "\uff3b": "\uff3d"}
# the numbers in brackets, as before, and, since a number alone in quotes names its note
# (`"2"`, `「2」`), in quotes too
_NOW_BRACKETED = re.compile(
    r"(?P<open>[(\[【`\"'“‘「『《])(?P<number>#*[0-9]+(?:[-.:,、]+#*[0-9]+)*)"
    r"(?P<close>[)\]】`\"'”’」』》])"
)
_MARKS = _OLD_QUOTES + "()（）[]［］{}｛｝<>〈〉〔〕«»＂＇｀"


def test_each_reader_s_quote_and_bracket_pairs_are_as_before():
    assert notes.QUOTES == _OLD_QUOTES
    assert wrong_reading.QUOTE_PAIRS == _OLD_QUOTE_PAIRS
    assert wrong_reading._CLOSING == _OLD_CLOSING
    assert commands.BRACKET_PAIRS == _OLD_BRACKETS
    for opening in _MARKS:
        for closing in _MARKS:
            for inner in ("2", "2,3", "x", ""):
                text = f"{opening}{inner}{closing}"
                old = _NOW_BRACKETED.fullmatch(text)
                new = wrong_reading._BRACKETED.fullmatch(text)
                assert (old and old.groupdict()) == (new and new.groupdict()), text
                assert commands.unbracketed(text + " y") == _old_unbracketed(text + " y")
                assert wrong_reading._unquoted(text) == _old_unquoted(text)
            held = f"{opening}{closing}x{closing}"  # a closing quote inside: as typed
            assert wrong_reading._unquoted(held) == _old_unquoted(held), held


# The search's phrase quotes and the reply's closing marks are views of the table too: as
# before, pair for pair, but the search's `＂＂`, which no text reaches (the query is folded,
# NFKC, before it is cut: `＂` is `"` by then), and reading every pair of marks as before
_OLD_PHRASE_QUOTES = ('""', "“”", "「」", "『』", "＂＂", "``")
_OLD_REPLY_CLOSING = "”’」』】》"


def test_the_search_s_and_the_reply_s_quotes_are_as_before():
    assert set(search._PHRASE_QUOTES) == set(_OLD_PHRASE_QUOTES) - {"＂＂"}
    assert commands.NAME_CLOSING == _OLD_REPLY_CLOSING
    old_phrase = "|".join(f"{o}[^{c}]+{c}" for o, c in _OLD_PHRASE_QUOTES)
    old_term = re.compile(rf"(?:{old_phrase})[^\s,;、]*|[^\s,;、]+")
    old_marks = frozenset("".join(_OLD_PHRASE_QUOTES) + ",;、")
    for opening in _MARKS:
        for closing in _MARKS:
            for text in (f"{opening}a b{closing}", f"x {opening}a, b{closing}c", opening + closing):
                folded = search.fold(text)
                assert search._FILTER_TERM.findall(folded) == old_term.findall(folded), text
                marked = "".join(
                    f if len(f := search.fold(c)) == 1 and f in old_marks else c for c in text
                )
                assert search._marks_folded(text) == marked, text
                assert commands.name_starts(text + "y") == _old_starts(text + "y"), text


def _old_starts(text: str) -> list[str]:
    cuts = {len(text)} | {
        i
        for i in range(1, len(text))
        if text[i] == " " or comment_prose.is_mark(text[i]) or text[i - 1] in _OLD_REPLY_CLOSING
    }
    return [text[:cut] for cut in sorted(cuts, reverse=True)]


def _old_unbracketed(text: str) -> str:
    close = _OLD_BRACKETS.get(text[:1])
    end = text.find(close) if close else -1
    return text if end < 0 else " ".join(f"{text[1:end]} {text[end + 1 :]}".split())


def _old_unquoted(reason: str) -> str:
    close = _OLD_QUOTE_PAIRS.get(reason[:1])
    end = reason.rfind(close, 1) if close else -1
    if end < 0 or close in reason[1:end] or comment_prose.marks_end(reason, end + 1) != len(reason):
        return reason
    return reason[1:end].strip()


# --- what an edit runs again: separators, ids, lists and topics in a key --------------


# A separator typed before the number is not read past by `pick_note` (`, 3` with three
# notes shown asks which; with one, `3` is the reason): keyed as `3`, an edit to the number
# alone, which hides note 3, ran nothing
@pytest.mark.parametrize("old", [",3", "，3", "， 3", "— 3", "- 3", ": 3 x", "，3 只是改名"])
def test_an_edit_dropping_a_separator_before_the_number_is_a_new_wrong(old):
    new = old.lstrip(",，—-: ")
    picks = _picked(old, new, ("a", "b", "c"))
    assert picks[0] != picks[1]  # which note, then note 3
    _is_a_new_wrong(old, new)


# So with a note's id or its link after the separator or a word of marks alone (`, vllm-…`,
# `. <link>`): `pick_note` reads no note past them (which note?), and the id alone hides
# that note. Keyed as the id alone, an edit dropping them ran nothing
@pytest.mark.parametrize(
    "old",
    [
        ", vllm-0000000b",
        "，vllm-0000000b 只是改名",
        "— vllm-0000000b",
        ". vllm-0000000b",
        "🙏， vllm-0000000b x",
        ", https://notes.example/notes/vllm-0000000b",
        ", 2-bit-awq",
    ],
)
def test_an_edit_dropping_a_separator_before_a_note_id_is_a_new_wrong(old):
    shown = ("vllm-0000000a", "vllm-0000000b", "vllm-0000000c", "2-bit-awq")
    new = old.lstrip(",，—-: .🙏")
    picks = _picked(old, new, shown)
    assert picks[0].problem is wrong_reading.PickProblem.WHICH and picks[1].note_id is not None
    _is_a_new_wrong(old, new)


# A word of marks alone (`～`, `.`), which the key drops, before a reason in quotes or set
# off by a dash kept the key from reading past it: `2 ～ 「只是改名」` was keyed with the
# quotes, `2「只是改名」` without, so an edit between them, answered alike, ran again
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("2 ～ 「只是改名」", "2「只是改名」"),
        ("2 … “only renames”", "2 “only renames”"),
        (". [1] - only renames", ", [1] - only renames"),
        (". 第9: “only renames”", ", 第9, “only renames”"),
    ],
)
def test_marks_alone_before_a_quoted_or_set_off_reason_are_keyed_as_dropped(old, new):
    for shown in (("a",), ("a", "b", "c")):
        picks = _picked(old, new, shown)
        assert picks[0].note_id == picks[1].note_id and picks[0].problem == picks[1].problem
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong {new}") == []


# A note's link ends, as GitHub links it, at its first non-ASCII character: `<link>；x` names
# its note, with the reason `x`, while `<link>;x` is one word, naming no note (which note?).
# The key read `；` as `;` (`as_ascii`) and keyed them alike: an edit between them, answered
# differently, ran nothing
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("{}!only renames", "{}！only renames"),
        ("{},x only", "{}，x only"),
        ("{}:2 only", "{}：2 only"),
    ],
)
def test_an_edit_between_a_note_link_glued_by_ascii_and_by_full_width_is_a_new_wrong(old, new):
    link = "https://notes.example/notes/vllm-0000000b"
    shown = ("vllm-0000000a", "vllm-0000000b", "vllm-0000000c")
    old, new = old.format(link), new.format(link)
    picks = _picked(old, new, shown)
    assert picks[0].problem is wrong_reading.PickProblem.WHICH and picks[1].note_id == shown[1]
    _is_a_new_wrong(old, new)


# A note's id or link in brackets (`【vllm-…】`, `[vllm-…]`, `（<its link>）`) or quotes
# (`「vllm-…」`, `"vllm-…"`, inline code) names that note, as `【2】` names note 2: read as no
# id, it asked which note, and with one note shown hid that one, whichever the reviewer
# named; keyed as the id alone, an edit taking the brackets or quotes off runs nothing
@pytest.mark.parametrize(
    "typed",
    [
        "【vllm-0000000b】 only renames",
        "[vllm-0000000b]: only renames",
        "（https://notes.example/notes/vllm-0000000b）",
        "【2-bit-awq】。",
        "「vllm-0000000b」",
        '"vllm-0000000b" only renames',
        "`vllm-0000000b`",
        "「https://notes.example/notes/vllm-0000000b」",
        "「2-bit-awq」",
    ],
)
def test_a_note_id_in_brackets_or_quotes_names_that_note(typed):
    shown = ("vllm-0000000a", "vllm-0000000b", "vllm-0000000c", "2-bit-awq")
    (command,) = parse_commands(f"/notes wrong {typed}")
    named = "2-bit-awq" if "awq" in typed else "vllm-0000000b"
    assert wrong_reading.pick_note(command.args, shown).note_id == named
    pick = wrong_reading.pick_note(command.args, shown[:1], known=shown)
    assert (pick.note_id, pick.problem) == (None, wrong_reading.PickProblem.NOT_SHOWN)
    bare = re.sub(r"^[【\[（「\"`](.*?)[】\]）」\"`]", r"\1", typed)
    assert changed_commands(f"/notes wrong {typed}", f"/notes wrong {bare}") == []


# A list is answered by its first number alone (which note? or, out of range, that there is
# none), whatever separates its numbers: keyed as `1,2` however it is typed, so an edit
# between `1. 2` and `1, 2`, keyed alike before lists were glued, asks nothing again
@pytest.mark.parametrize(
    ("old", "new"),
    [("2: 2", "2 2"), ("1. 2", "1, 2"), ("#2 3", "2 3"), ("2) 3", "2 , 3"), ("1-2", "1,2")],
)
def test_a_list_is_keyed_by_its_numbers_whatever_separates_them(old, new):
    shown = ("a", "b", "c")
    said = [parse_commands(f"/notes wrong {t}")[0].args for t in (old, new)]
    assert wrong_reading.pick_note(said[0], shown) == wrong_reading.pick_note(said[1], shown)
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong {new}") == []


# A word of marks alone before the number (`. 3`, `、 3`, `🙏， 3`) is read past by neither:
# `pick_note` reads no number after it (which note? with one note shown, all of it the
# reason), and the key drops the word (no word of the command): keyed as `3`, an edit to
# the number alone, which hides note 3, ran nothing; so with a separator glued to the number
# after it (`. ，3`) or more such words (`. . 3`)
@pytest.mark.parametrize(
    ("old", "new"),
    [(". 3", "3"), ("。 3 x", "3 x"), ("🙏， 2,3", "2,3"), (". ，3", "3"), (". . 3 x", "3 x")],
)
def test_an_edit_dropping_a_word_of_marks_before_the_number_is_a_new_wrong(old, new):
    one = _picked(old, new, ("a",))
    assert one[0].reason and one[1].problem is wrong_reading.PickProblem.RANGE  # note 3 of one
    three = _picked(old, new, ("a", "b", "c"))
    assert three[0].problem is wrong_reading.PickProblem.WHICH  # which note (`2,3` too)
    _is_a_new_wrong(old, new)
    # read as a separator before the number is: which note, keyed alike
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong , {new}") == []
    # a word ending in marks is a word (with one note shown, the reason's first)
    assert changed_commands(f"/notes wrong x{old}", f"/notes wrong , {new}") != []


# A number `pick_note` does not read, for a word of marks alone before its brackets
# (`. 【1】`): which note? with one note shown, all of it the reason. The key took the
# brackets off (as around a reason) and dropped the marks: keyed as `1`, an edit to `1`,
# which hides note 1, ran nothing. (A number alone in quotes, `「1」`, is read as the number:
# tests/test_feedback.py::test_a_number_alone_in_quotes_names_its_note.)
@pytest.mark.parametrize("old", [". 【1】", "🙏， 【2】"])
def test_an_edit_to_a_number_from_one_not_read_as_a_number_is_a_new_wrong(old):
    new = old.strip('「」".🙏， 【】').replace("】", "")
    three = _picked(old, new, ("a", "b", "c"))
    assert three[0].problem is wrong_reading.PickProblem.WHICH and three[1].note_id is not None
    _is_a_new_wrong(old, new)
    # keyed as the separator before the number it reads as: which note, alike
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong , {new}") == []


# A list glued from numbers typed apart is keyed by its numbers as any list is, though its
# second holds a dash (`1 3-3`: a list, answered by its first number, as `1,3,3` is); it
# was keyed `1,3-3`, as `, 1,3-3` is, which `pick_note` reads no number in (which note? with
# one note shown, all of it the reason): an edit between them ran nothing
def test_a_list_glued_from_numbers_apart_is_keyed_by_its_numbers():
    shown = ("a", "b", "c")
    said = [parse_commands(f"/notes wrong {t}")[0] for t in ("1 3-3 x", ", 1,3-3 x", "1,3 3 x")]
    assert [wrong_reading.pick_note(c.args, shown[:1]).note_id for c in said] == [None, "a", None]
    assert said[0].key == said[2].key != said[1].key
    (changed,) = changed_commands("/notes wrong , 1,3-3 x", "/notes wrong 1 3-3 x")
    assert changed.line == "/notes wrong 1 3-3 x"


# An ordinal typed apart after a note's number (`1 second`) is a list's second number
# (which note?), as in `1 2`; glued on after a separator (`1:second`, `1，second`), the
# reason of note 1. Both were keyed as `1,second` reads (note 1, its reason `second`): an
# edit from the list to note 1 ran nothing, and note 1 was never hidden
@pytest.mark.parametrize("glued", ["1:second", "1，second", "1)second"])
def test_an_ordinal_typed_apart_after_a_number_is_a_list_s_not_a_reason(glued):
    apart = "1 second"
    picks = _picked(apart, glued, ("a", "b", "c"))
    assert picks[0].problem is wrong_reading.PickProblem.WHICH and picks[1].note_id == "a"
    _is_a_new_wrong(apart, glued)
    # keyed as the list it is: `1 2`, `1,2`
    assert changed_commands(f"/notes wrong {apart}", "/notes wrong 1 2") == []


def test_an_edit_changing_the_separator_before_the_number_asks_nothing_again():
    # `- 3`, `: 3`, `， 3` are answered alike (which note?), keyed alike
    assert changed_commands("/notes wrong - 3", "/notes wrong ： 3") == []
    assert changed_commands("/notes wrong , 3 x", "/notes wrong — 3 x") == []


# A list is answered by its first number alone, however its numbers are written: keyed by
# them as digits, whatever separates them (`、`, `，`, `,`) and whichever way they are
# counted (`二`, `第3条`), with a reason glued on set apart as after a space (`2 2，只是改名`:
# the notes `2,2`, the reason `只是改名`), so an edit between them asks nothing again
@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("2,二", "2,2"),
        ("2 二", "2 2"),
        ("2 2，只是改名", "2 2, 只是改名"),
        ("2,3，只是改名", "2,3 只是改名"),
        ("2、3", "2,3"),
        ("2、3，只是改名", "2,3, 只是改名"),
        ("2、3条", "2,3"),
        ("第2、3条", "2,3"),
        ("第2条、第3条", "2,3"),
        ("二、三", "2,3"),
        ("1,2：(see 2)", "1,2 (see 2)"),
    ],
)
def test_a_list_is_keyed_by_its_numbers_as_digits_and_its_glued_reason_apart(old, new):
    (before,), (after,) = (parse_commands(f"/notes wrong {typed}") for typed in (old, new))
    assert before.key == after.key
    assert changed_commands(f"/notes wrong {old}", f"/notes wrong {new}") == []


# Other notes are a new `wrong` (its answer quotes them: no note `2,4`); another reason
# after them is not (`test_an_edit_to_the_words_after_a_list_is_no_new_wrong`)
@pytest.mark.parametrize(("old", "new"), [("2、3", "2、4"), ("2,二", "2,三"), ("2,3，x", "3,3，x")])
def test_a_list_with_other_notes_is_a_new_wrong(old, new):
    _is_a_new_wrong(old, new)


# A `topic` given the library's topics is keyed by the topic it names, as its reply is that
# topic's: its id, short name, full name, Chinese name and words after the name alike
_TOPICS = tuple(load_library().topics.values())


@pytest.mark.parametrize(
    "new",
    [
        "prefix-caching",
        "Prefix caching and KV cache manager",
        "前缀缓存与 KV 缓存管理",
        "「前缀缓存与KV缓存管理」，谢谢",
        "#prefix_caching please",
    ],
)
def test_a_topic_is_keyed_by_the_topic_it_names_not_its_spelling(new):
    old = "/notes topic Prefix caching"
    assert changed_commands(old, f"/notes topic {new}", topics=_TOPICS) == []
    (one,) = parse_commands(f"{old}\n/notes topic {new}", topics=_TOPICS)  # one reply
    assert one.topic == "prefix-caching"


def test_a_topic_naming_another_topic_or_none_is_a_new_command():
    old = "/notes topic Prefix caching"
    for new in ["KV connector", "前缀缓存", "prefix"]:  # another topic; no topic's name
        (changed,) = changed_commands(old, f"/notes topic {new}", topics=_TOPICS)
        assert changed.line == f"/notes topic {new}"
    (unknown,) = parse_commands("/notes topic frobnicate", topics=_TOPICS)
    assert unknown.topic == "" and unknown.key == ("topic", ("frobnicate",))
    # without the topics, as spelt (the bench, a caller with no library)
    assert changed_commands(old, "/notes topic 前缀缓存与 KV 缓存管理") != []
    assert changed_commands("/notes topic cuda graphs", "/notes topic CUDA-graphs") == []


# --- reading commands with the configured caps ----------------------------------------


# the shell reads commands with config/commands.toml's caps, through one
# `commands.Reading` (BotContext.command_reading). A Reading has no caps of its own: one
# built without the config would read keys with other caps than the run's.
def test_a_reading_takes_its_caps_and_word_from_the_commands_config():
    config = CommandConfig(word="/nb", max_commands=7, max_arg_chars=200, reply_burst=7)
    topic = _TOPICS[0]
    reading = commands.Reading.of(config, topics=[topic])
    assert reading == commands.Reading("/nb", 7, 200, (topic,))
    assert commands.Reading.of(config, "/notes").word == "/notes"  # REVIEW_NOTES_COMMAND
    with pytest.raises(TypeError):
        commands.Reading()  # type: ignore[call-arg]


# kills: bot/commands.py:Reading._all a remembered text's commands handed out as kept, so
#        that a caller's change to its list changes what the next read of the text gets
def test_a_remembering_reading_reads_as_its_reading_and_shares_no_list():
    """An unlock's release reads each kept comment's texts in several steps, through one
    `remembering` reading (each text parsed once): it reads as the reading does, and what
    a caller does with the list it got does not change the next read."""
    reading = commands.Reading.of(CommandConfig(), topics=_TOPICS)
    remembering = reading.remembering()
    text = "/notes why\n/notes topic 前缀缓存与KV缓存管理"
    assert remembering == reading and remembering.by_key == reading.by_key
    for _ in range(2):  # read, then read again as remembered
        got = remembering.parse(text)
        assert got == reading.parse(text) and len(got) == 2 and got[1].topic
        got.clear()
        assert remembering.changed("/notes why", text) == reading.changed("/notes why", text)
    assert reading.parse(text) == remembering.parse(text) != []


def test_the_parser_s_default_caps_are_the_commands_config_s():
    config = CommandConfig()
    text = "\n".join(f"/notes search {i}" + "x" * 200 for i in range(9))
    (first, *_) = found = parse_commands(text)
    assert len(found) == config.max_commands
    assert len(first.text) == config.max_arg_chars
    assert found == commands.Reading.of(config).parse(text)


def test_no_shell_module_reads_commands_but_through_a_configured_reading():
    """Only bot/commands.py calls the parser; the shell reads through `Reading.of`."""
    bot = Path(__file__).resolve().parent.parent / "bot"
    for path in sorted(bot.glob("*.py")):
        if path.name == "commands.py":
            continue
        code = path.read_text(encoding="utf-8")
        for name in ("parse_commands", "changed_commands", "_all_commands"):
            assert not re.search(rf"\b{name}\b", code), (path.name, name)
        assert not re.search(r"\bReading\(", code), path.name  # `Reading.of(config, …)`


# --- a line or paragraph separator between two commands -------------------------------


@pytest.mark.parametrize("between", ["\u2028", "\u2029"])
def test_a_line_or_paragraph_separator_between_two_commands_is_one_line_as_shown(between):
    # GitHub shows `/notes why /notes off` on one line (tests/test_browser.py measures it):
    # the second is words after the first, as a reader sees them, no command of its own
    assert kinds(f"/notes why{between}/notes off") == [("why", ("/notes", "off"))]
    assert kinds(f"/notes wrong 2{between}/notes wrong 3") == [
        ("wrong", ("2", "/notes", "wrong", "3"))
    ]

"""Untrusted text made inert for GitHub Markdown (pure): one set of rules for every comment.

Note text, PR titles, matcher reasons and what users type all reach the bot's
comments. Whatever goes in, what comes out:

- pings nobody: `@` gets a zero-width space (`@someone`, `@org/team`);
- creates no backlink: `#123`, `owner/repo#123`, `GH-123` and a commit SHA in prose
  are broken up, and github.com PR, issue and discussion URLs in prose go through
  redirect.github.com (in code, where GitHub links none, a URL stays as typed);
- injects no markup: in prose, HTML and Markdown characters are escaped, while
  inline code spans the text already had stay code, and a URL stays the link it is
  (an autolink `<url>`, inside which no escape applies and GitHub reads no mention
  or reference); text shown as typed is one inline code span;
- hides nothing: control and format characters (bidi overrides) are dropped;
- shows text as written: an emoji's shortcode in prose (`:rocket:`) gets a zero-width
  space, so GitHub shows no emoji for it (in code it shows none anyway).

Commands are never made inert here: callers show them in inline code, in the
middle of a sentence, so no bot (ours included) runs them.
"""

from __future__ import annotations

import re
import unicodedata

from bot.emoji_names import NAMES as EMOJI_NAMES
from bot.links import GITHUB_HOST, pr_url

ZWSP = "\u200b"

# A github.com PR, issue or discussion URL (a discussion gets a "mentioned" backlink too;
# an organization's is `orgs/<org>/discussions/N`), with or without its scheme; not
# redirect.github.com.
# GitHub links `https://...` after anything but a letter (`v2.https://...`) and `www.`
# after `_` too (`see_www.github.com/...`); a bare `github.com/...` only as a word.
_GITHUB_REF_URL = re.compile(
    # a URL's user info (`https://me@github.com/...`) goes with it: the redirect needs none
    r"(?:https?://(?:[^\s/@<>#?]+@)?(?:www\.)?|(?:(?<![\w.-])|(?<=_)(?=www\.))(?:www\.)?)"
    + GITHUB_HOST
    + r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/(?:pull|issues|discussions)/\d+)",
    re.I,
)
# A URL where GitHub links one (a scheme after a non-letter, `www.` where a word starts),
# up to a space or `<`: shown as an autolink `<url>`, in which nothing is escaped.
_URL = re.compile(r"(?:(?<![A-Za-z])(?:https?|ftp)://|(?<![^\s*_~(])www\.)[^\s<>`]+", re.I)
_URL_TRAIL = "?!.,:*_~'\""  # punctuation that ends a sentence, not the URL
_ENTITY_END = re.compile(r"&[A-Za-z0-9]+;$")
_URL_HOST = re.compile(r"(?:[a-z]+://|www\.)[A-Za-z0-9]", re.I)
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
# GitHub's word characters are ASCII ones: `修复GH-12` links, so `\b` (Unicode) is not it
_ISSUE_REF = re.compile(r"(#|(?<![A-Za-z0-9_])GH-)(?=\d)", re.I)
# A word GitHub may link as a commit: 7 to 40 hex digits, a digit and a letter among them.
# A URL's scheme right after it ends the word too: GitHub links `http://x.org` in
# `abc1234http://x.org`, leaving `abc1234` a word of its own.
_SHA = re.compile(
    r"(?<![0-9A-Za-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}"
    r"(?!(?!(?:https?|ftp)://)[0-9A-Za-z])",
    re.I,
)
_SHA_PART = 6  # shorter than any commit GitHub links
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~$])")
_SPACE = re.compile(r"\s+")
# What would open a block where the text starts a line ("> " + summary, "- " + reason):
# a heading `#`, a list item `-`/`+` or `1.`/`2024)`, a rule or setext line `---`/`===`
# (`*`, `_`, `>`, `<`, backticks, `~`, `|` and `[` are escaped wherever they are).
_BLOCK_START = re.compile(r"^(?:([#+=-])|(\d{1,9})([.)]))")
_CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def printable(text: str) -> str:
    """Drop control and format characters (bidi overrides, zero-width marks); keep white
    space and the joiners of emoji sequences."""
    if text.isprintable():
        return text
    return "".join(
        ch
        for i, ch in enumerate(text)
        if ch.isspace() or unicodedata.category(ch) not in ("Cc", "Cf") or joins_emoji(text, i)
    )


# What may end an emoji before a joiner: the emoji presentation selector, a skin tone
_EMOJI_TAILS = frozenset("\ufe0f\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff")


def joins_emoji(text: str, i: int) -> bool:
    """Whether text[i] is a zero-width joiner inside an emoji sequence (👩‍💻, a
    family): a format character, but dropping it splits what a reader sees as one."""
    return (
        text[i] == "\u200d"
        and 0 < i < len(text) - 1
        and (unicodedata.category(text[i - 1]) == "So" or text[i - 1] in _EMOJI_TAILS)
        and unicodedata.category(text[i + 1]) == "So"
    )


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else _cut(text, limit - 1) + "…"


def _cut(text: str, at: int) -> str:
    """The text before `at`, a letter kept with its combining marks (e + U+0301 is é)."""
    while 0 < at < len(text) and unicodedata.combining(text[at]):
        at -= 1
    return text[:at].rstrip()


def _clip_prose(text: str, limit: int) -> str:
    """`clip`, cutting before a code span the limit falls in: an open span's backtick
    would show as typed."""
    if len(text) <= limit:
        return text
    at = limit - 1
    for m in _CODE_SPAN.finditer(text):
        if m.start() >= at:
            break
        if m.end() > at:
            at = m.start()
            break
    return _cut(text, at) + "…"


def redirect_github_links(text: str) -> str:
    """github.com PR/issue/discussion URLs -> redirect.github.com: the same page, no backlink."""
    return _GITHUB_REF_URL.sub(r"https://redirect.github.com/\1", text)


def _defuse(text: str) -> str:
    text = _MENTION.sub("@" + ZWSP, text)
    return _ISSUE_REF.sub(lambda m: m.group(1) + ZWSP, text)


def _escape(text: str) -> str:
    # Links first: escaping `_` in an owner name would hide the URL from the redirect.
    text = redirect_github_links(text)
    out, pos = [], 0
    for m in _URL.finditer(text):
        url = _url_end(m.group(0))
        if not _URL_HOST.match(url):
            continue  # a scheme or `www.` alone links nothing
        out += [_escape_prose(text[pos : m.start()]), _autolink(url)]
        pos = m.start() + len(url)
    out.append(_escape_prose(text[pos:]))
    return "".join(out)


def _escape_prose(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # shortcodes before `_` is escaped: `:thumbs\_up:` is `:thumbs_up:` on the page
    text = _break_shortcodes(text)
    return _defuse(_break_shas(_MD_SPECIAL.sub(r"\\\1", text)))


# A colon that opens an emoji's shortcode (`:rocket:`, `:+1:`): GitHub shows the emoji for a
# name it knows (`emoji_names`) wherever the text is not code, also glued to a word
# (`fp8:e4m3:` holds none, `x:tada:` one). Each such colon is broken, not only the first
# of a run: in `:a:b:` GitHub finds `:a:`, and with that one broken, `:b:`.
_SHORTCODE_OPENS = re.compile(r":(?=([a-z0-9_+-]+):)")


def _break_shortcodes(text: str) -> str:
    """An emoji's shortcode in prose reads the same but shows no emoji: a zero-width space
    after its opening colon (a note's title `:rocket: faster decode` is shown as typed)."""
    return _SHORTCODE_OPENS.sub(lambda m: ":" + ZWSP if m[1] in EMOJI_NAMES else ":", text)


def _break_shas(text: str) -> str:
    """A commit SHA in prose reads the same but links nothing: a zero-width space every
    six digits (GitHub links seven or more). In code, where GitHub links none, it stays."""

    def broken(m: re.Match[str]) -> str:
        sha = m.group(0)
        return ZWSP.join(sha[i : i + _SHA_PART] for i in range(0, len(sha), _SHA_PART))

    return _SHA.sub(broken, text)


def _url_end(url: str) -> str:
    """Where GitHub ends a URL in prose: not on a sentence's punctuation, a closing
    parenthesis it did not open, or an entity-like `&gt;`."""
    while url:
        if url[-1] in _URL_TRAIL:
            url = url[:-1]
        elif url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1]
        elif url.endswith(";") and (entity := _ENTITY_END.search(url)):
            url = url[: entity.start()]
        else:
            break
    return url


def _autolink(url: str) -> str:
    """The URL as a CommonMark autolink: no escape applies inside, so the link is the
    URL as written (a URL holds no space, `<` or `>`, so it always is one); `&` is
    written `&amp;`, as entities are read there. GitHub reads no mention, reference or
    commit in a link's text."""
    if url[:4].lower() == "www.":
        url = "http://" + url  # what GitHub links `www.` to; an autolink needs a scheme
    return "<" + url.replace("&", "&amp;") + ">"


def safe_text(text: str, limit: int | None = None) -> str:
    """One line of untrusted prose: escaped, except its own inline code spans stay code;
    it may start a line (a block marker at its start is escaped) or sit mid-line."""
    text = _SPACE.sub(" ", printable(text or "")).strip()
    if limit is not None:
        text = _clip_prose(text, limit)
    return _BLOCK_START.sub(_escape_block_start, _prose(text))


def _prose(text: str) -> str:
    """Prose escaped, its own inline code spans kept code."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape(text[pos : m.start()]))
        out.append(code(m.group(2)))
        pos = m.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


# A term in single quotes ('worker -> scheduler', 'don't' aside): the quote opens where a
# word may start and closes where one ends, so the apostrophe of "note's" is neither
_QUOTED_TERM = re.compile(r"(?<![^\s(\[])'([^'\n]+)'(?=$|[\s,;)\]])")


def safe_text_quoting(text: str) -> str:
    """`safe_text`, with each term in single quotes shown as a code span in their place:
    GitHub's email of a comment is its raw Markdown, where an escaped term reads
    `kv\\_cache` or `-&gt;`; in code nothing needs escaping (nor pings, links or renders),
    so the term reads as typed, raw and rendered."""
    text = _SPACE.sub(" ", printable(text or "")).strip()
    out, pos = [], 0
    for m in _QUOTED_TERM.finditer(text):
        out += [_prose(text[pos : m.start()]), code(m.group(1))]
        pos = m.end()
    out.append(_prose(text[pos:]))
    return _BLOCK_START.sub(_escape_block_start, "".join(out))


def _escape_block_start(m: re.Match[str]) -> str:
    """`# of blocks` stays a sentence at a line's start: the marker is escaped."""
    if m.group(1):
        return "\\" + m.group(1)
    return m.group(2) + "\\" + m.group(3)


def code(text: str, limit: int | None = None) -> str:
    """Text as one inline code span, however many backticks it holds: no markup applies.
    GitHub links no URL in code, so a github.com one stays as typed (a redirect would
    misquote it); mentions and references only get their invisible zero-width space."""
    text = " ".join(printable(text).split())
    if limit is not None:
        text = clip(text, limit)
    text = _defuse(text)
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# What ends a link's target, or reads as something else inside it, percent-encoded (as
# UTF-8): the parentheses, a backslash (an escape), a backtick (a code span across the
# link), `<` and `>` (HTML), and white space or an invisible character: a line break
# ended the link and left the rest prose, a mention live there. Whatever its parts came
# from; a URL's other characters stay as written (a page's link read back: render).
_LINK_BREAKS = frozenset("()<>`\\")


def link_target(url: str) -> str:
    """A URL safe inside `[text](url)`: one link, whatever it holds."""
    return "".join(
        _percent(ch) if ch in _LINK_BREAKS or ch.isspace() or not ch.isprintable() else ch
        for ch in url
    )


def _percent(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8", "replace"))


def pr_link(repo: str, number: int, here: str = "") -> str:
    """A link to a PR through redirect.github.com, so the linked PR gets no backlink;
    "PR 52419" when it is in `here`, the repository the text is posted in (GitHub's
    names, case aside), which the reader is in: its name said again is noise."""
    target = link_target(pr_url(repo, number))
    name = "" if here and repo.casefold() == here.casefold() else f"{safe_text(repo)} "
    return f"[{name}PR {int(number)}]({target})"

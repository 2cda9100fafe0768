"""The one sanitizer behind the sticky comment and the replies."""

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from bot.emoji_names import NAMES as EMOJI_NAMES
from bot.markdown_safety import (
    ZWSP,
    clip,
    code,
    link_target,
    pr_link,
    printable,
    redirect_github_links,
    safe_text,
    safe_text_quoting,
)


def test_links_are_redirected_once_with_or_without_scheme():
    once = redirect_github_links(
        "see github.com/o/r/pull/7 and https://www.github.com/o/r/issues/8"
    )
    assert once == (
        "see https://redirect.github.com/o/r/pull/7 and https://redirect.github.com/o/r/issues/8"
    )
    assert redirect_github_links(once) == once  # a redirect link is left alone
    # GitHub links `www.` and `https://` after `_` too (a file path quoted in a reason)
    for glued in ("see_www.github.com/o/r/pull/7", "see_https://github.com/o/r/pull/7"):
        assert redirect_github_links(glued) == "see_https://redirect.github.com/o/r/pull/7"
    assert redirect_github_links("notgithub.com/o/r/pull/7") == "notgithub.com/o/r/pull/7"
    # and `https://` after any non-letter: the scheme goes too, not "https://https://..."
    for glue in ".-1":
        glued = f"v2{glue}https://github.com/o/r/pull/7"
        assert redirect_github_links(glued) == f"v2{glue}https://redirect.github.com/o/r/pull/7"


def test_prose_and_code_follow_the_same_rules():
    for text in ["@octocat #12 GH-3 https://github.com/o/r/pull/7", "@org/team fixes o/r#4"]:
        prose, span = safe_text(text), code(text)
        for out in (prose, span):
            assert "@" + ZWSP in out
            assert not re.search(r"#\d", out)
            assert not re.search(r"GH-\d", out, re.I)  # GH-3 links an issue too
        assert not re.search(r"(?<!redirect\.)github\.com/o/r", prose)
        # GitHub links no URL in code: the span quotes it as typed
        assert span.replace(ZWSP, "") == f"`{text}`"


def test_hidden_characters_are_dropped_everywhere():
    text = "a\u202eb\u2066c\x07d"
    assert safe_text(text) == "abcd"
    assert code(text) == "`abcd`"


def test_markup_is_escaped_but_code_spans_stay_code():
    assert safe_text("**x** <b> `a_b` _y_") == r"\*\*x\*\* &lt;b&gt; `a_b` \_y\_"


def test_pr_link_goes_through_redirect():
    assert pr_link("vllm-project/vllm", 5) == (
        "[vllm-project/vllm PR 5](https://redirect.github.com/vllm-project/vllm/pull/5)"
    )
    # in the repository the text is posted in: its number, the same link
    for here in ("vllm-project/vllm", "vLLM-Project/VLLM"):
        assert pr_link("vllm-project/vllm", 5, here) == (
            "[PR 5](https://redirect.github.com/vllm-project/vllm/pull/5)"
        )
    for here in ("acme/vllm", "vllm-project/vllm-ascend", ""):
        assert pr_link("vllm-project/vllm", 5, here).startswith("[vllm-project/vllm PR 5](")


def gfm(markdown: str) -> str:
    """HTML as github.com renders a comment (cmark-gfm with GitHub's extensions)."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


@pytest.mark.parametrize(
    ("url", "href"),
    [
        ("https://docs.vllm.ai/en/latest/design/cuda_graphs.html", None),
        ("https://github.com/vllm-project/vllm/blob/main/vllm/v1/core/kv_cache_manager.py", None),
        ("https://example.org/a_b?x=1&y=*2*&z=$3$&lt=4#frag_1", None),
        ("https://en.wikipedia.org/wiki/Bit_(disambiguation)", None),
        ("https://github.com/o/my_repo/pull/7", "https://redirect.github.com/o/my_repo/pull/7"),
        ("www.example.org/a_b", "http://www.example.org/a_b"),
    ],
)
def test_a_url_in_prose_stays_the_link_it_was(url, href):
    # `_` (and `*`, `&`...) were escaped inside URLs too, and GitHub linked the URL with the
    # backslashes: ".../cuda%5C_graphs.html", a 404
    page = gfm(safe_text(f"Read {url}, then (see {url}). @bob #12"))
    hrefs = [html.unescape(h) for h in re.findall(r'<a href="([^"]+)"', page)]
    assert hrefs == [href or url] * 2
    text = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "\\" not in text and "@" + ZWSP + "bob" in text and "#" + ZWSP + "12" in text


def test_a_commit_sha_in_prose_is_broken_up_but_not_in_code():
    # a bare SHA in a note's summary was linked as a commit of the repository the comment
    # is on
    sha = "4f0c2a9e1b7d3c5a8e6f2b1d9c0a7e3f5b8d2c4a"
    for text in (f"The regression came from commit {sha} in PR 50062.", "see abc1234."):
        out = safe_text(text)
        assert not re.search(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])", out), out
        assert out.replace(ZWSP, "") == text
    assert (
        safe_text("1234567 deadbeef v0.11.0") == "1234567 deadbeef v0.11.0"
    )  # no digit or no letter
    assert code(sha) == f"`{sha}`" and f"`{sha}`" in safe_text(f"see `{sha}`")


def test_printable_keeps_an_emoji_sequences_joiners_only():
    from bot.markdown_safety import printable

    coder = "\U0001f469\u200d\U0001f4bb"
    assert printable(f"by {coder}\u200b!") == f"by {coder}!"
    assert printable("a\u200db \u200d\U0001f4bb \U0001f469\u200d") == "ab \U0001f4bb \U0001f469"


def test_a_gh_reference_right_after_chinese_text_is_broken_up():
    # `\bGH-` missed "回退GH-1234" (Python counts a Chinese
    # character as a word character; GitHub's word characters are ASCII, so it links)
    from bot.markdown_safety import safe_text

    for text in ("回退GH-1234引入的改动", "（GH-12）", "x:gh-7"):
        shown = safe_text(text)
        assert not re.search(r"(?<![A-Za-z0-9_])GH-\d", shown, re.I), shown
        assert shown.replace("\u200b", "") == text
    assert safe_text("aGH-1") == "aGH-1"  # not a reference on GitHub either: left as is


def test_a_github_url_with_user_info_a_port_or_a_final_dot_is_redirected_whole():
    # the user info was left before the redirect: `https://x@https://redirect.github.com/`
    from bot.markdown_safety import safe_text

    for url in (
        "https://x@github.com/o/r/pull/8",
        "http://user:pw@www.github.com/o/r/issues/9",
        # the same host, fully qualified or with its port
        "https://github.com./o/r/pull/8",
        "https://github.com:443/o/r/pull/8",
        "http://www.github.com.:80/o/r/issues/9",
    ):
        shown = safe_text(f"see {url} now")
        assert shown.count("https://") == 1 and "@" not in shown, shown
        assert "<https://redirect.github.com/o/r/" in shown


def test_only_an_emoji_or_its_skin_tone_keeps_a_joiner_after_it():
    # a joiner after any modifier symbol (Sk: a backtick, `^`) was kept
    from bot.markdown_safety import printable

    assert printable("`\u200d\U0001f4bb ^\u200d\U0001f4bb") == "`\U0001f4bb ^\U0001f4bb"
    toned = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # woman, medium skin tone, laptop
    assert printable(toned) == toned


# --- a code span of the text keeps its URL as typed ---


def test_a_code_span_of_the_text_keeps_its_url_as_typed():
    # code spans were given redirect.github.com links too, misquoting the text: GitHub
    # links no URL in code, so only prose needs the redirect
    url = "https://github.com/o/r/pull/7"
    assert safe_text(f"see `{url}` or {url}") == (
        f"see `{url}` or <https://redirect.github.com/o/r/pull/7>"
    )
    page = gfm(safe_text(f"see `{url}`"))
    assert "<a " not in page and f"<code>{url}</code>" in page


# --- escaping's edges: joiners, the limit, entities, backticks, brackets ---


# kills: bot/markdown_safety.py:joins_emoji 0 < i -> 0 <= i
def test_a_leading_zero_width_joiner_is_dropped_even_between_emoji_ends():
    # text[-1] is an emoji: the mutant reads it as the joiner's left neighbour
    assert printable("\u200d😀😀") == "😀😀"
    assert printable("😀\u200d😀") == "😀\u200d😀"


# kills: bot/markdown_safety.py:clip len(text) <= limit -> len(text) < limit
def test_clip_keeps_text_exactly_at_the_limit():
    assert clip("abcde", 5) == "abcde"
    assert clip("abcdef", 5) == "abcd…"


# kills: bot/markdown_safety.py:_escape_prose text.replace("&", "&amp;") -> text
def test_entities_in_prose_are_escaped_so_no_encoded_mention_or_reference_comes_back():
    out = safe_text("&#64;someone and &#35;12")
    assert out == "&amp;#\u200b64;someone and &amp;#\u200b35;12"
    assert "&#64;" not in out and "&#35;" not in out


# Each case kills a mutant of bot/markdown_safety.py the other tests let live.
@pytest.mark.parametrize(
    "text, safe",
    [
        # :144 the entity-end branch of _url_end -> elif False
        ("see https://example.com/a&quot;", "see <https://example.com/a>&amp;quot;"),
        # :158 url.replace("&", "&amp;") -> url
        ("https://x.org/?a=1&copy=2", "<https://x.org/?a=1&amp;copy=2>"),
        # :156 url[:4].lower() == "www." -> url[:4] == "www."
        ("WWW.example.com/x", "<http://WWW.example.com/x>"),
        # :46 (?<![A-Za-z0-9_])GH- -> (?<![A-Za-z0-9])GH-: GitHub links no `GH-12` after
        # a word character (`_` is one), so no needless ZWSP
        ("snake_GH-12 and GH-12", "snake\\_GH-12 and GH-\u200b12"),
        # :61 `([#+=-])` -> `([#+-])`: a setext underline at the start
        ("=== big", "\\=== big"),
        # :61 `\d{1,9}` -> `\d{1,8}`: CommonMark ordered lists take up to nine digits
        ("123456789. x", "123456789\\. x"),
    ],
    ids=["url-before-entity", "amp-in-autolink", "upper-www", "glued-gh", "setext", "nine-digits"],
)
def test_safe_text_cases_the_mutation_run_found_untested(text, safe):
    assert safe_text(text) == safe


# kills: bot/markdown_safety.py:code drop `or text.endswith("`")`
def test_code_pads_text_that_ends_with_a_backtick():
    assert code("a`") == "`` a` ``"


# kills: bot/markdown_safety.py:link_target drop .replace("(", "%28")
def test_link_target_escapes_an_opening_parenthesis():
    assert link_target("https://x.org/a(b") == "https://x.org/a%28b"


# kills: bot/markdown_safety.py:link_target only spaces and parentheses encoded
@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("https://x.org/a\n@b", "https://x.org/a%0A@b"),  # a line break ended the link
        ("https://x.org/a\u2028b\u200bc", "https://x.org/a%E2%80%A8b%E2%80%8Bc"),
        ("https://x.org/`a`", "https://x.org/%60a%60"),
        ("https://x.org/<b>\\", "https://x.org/%3Cb%3E%5C"),
        ("https://x.org/中?topic=a&repo=b#c", "https://x.org/中?topic=a&repo=b#c"),
    ],
)
def test_link_target_encodes_what_would_end_the_link_or_read_as_markup(url, target):
    assert link_target(url) == target
    page = gfm(f"[t]({link_target(url)}) `x`")
    assert page.count("<a href=") == 1 and page.count("<code>") == 1, page


def link_text_of(link: str) -> str:
    assert link.startswith("[") and link.count("](") == 1
    return link[1 : link.index("](")]


# kills: bot/markdown_safety.py:_MD_SPECIAL `\[\]` -> `\[` (a closing bracket left bare)
def test_a_closing_bracket_is_escaped_so_it_cannot_end_a_link_text():
    assert safe_text("a]b") == "a\\]b"
    assert link_text_of(pr_link("own]er/repo", 5)) == "own\\]er/repo PR 5"


# --- the bot as an attacker's echo ---


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/vllm-project/vllm/discussions/1234",
        "https://github.com/orgs/vllm-project/discussions/56#discussioncomment-789",
        "www.github.com/o/r/discussions/7",
    ],
)
def test_a_discussion_url_in_prose_goes_through_redirect(url):
    # a discussion linked from a comment gets the "mentioned" backlink an issue or PR
    # gets (Renovate's massage-markdown-links redirects discussions, issues and pulls
    # alike): a note's summary pointing at one linked it from every PR showing the note
    page = gfm(safe_text(f"See {url} for the design."))
    hrefs = [html.unescape(h) for h in re.findall(r'<a href="([^"]+)"', page)]
    path = url.split("github.com/", 1)[1]
    assert hrefs == [f"https://redirect.github.com/{path}"], page
    assert code(url) == f"`{url}`"  # code links nothing: quoted as typed


# kills: bot/markdown_safety.py:safe_text the .strip() of the text dropped
def test_text_with_leading_spaces_still_has_its_block_marker_escaped():
    # a line's start is where the text starts only once its spaces go: ` # of blocks`
    # kept its space and its unescaped `#`, a heading after "> " (up to three spaces
    # may indent one)
    assert safe_text("  # of KV blocks \n") == "\\# of KV blocks"
    assert "<h1>" not in gfm("> " + safe_text(" # of KV blocks"))


def emoji_shown(page: str) -> list[str]:
    """The shortcodes GitHub shows as emoji on a rendered comment: its emoji filter, which
    finds `:name:` for a name it knows in any text outside code (html-pipeline's
    EmojiFilter skips `pre`, `code` and `tt`), glued to a word too, left to right."""
    prose = re.sub(r"<(pre|code|tt)>.*?</\1>", " ", page, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", "", prose))
    names = re.findall(r":([a-z0-9_+-]+):", text)  # non-overlapping, as a gsub
    return [n for n in names if n in EMOJI_NAMES]


# kills: bot/markdown_safety.py:_escape_prose (hand) no shortcode broken: a note titled
#   ":rocket: faster decode" was shown as "🚀 faster decode", `fp8:e4m3:fn` untouched either way
@pytest.mark.parametrize(
    "text",
    [
        ":rocket: faster decode",
        "Speed up :white_check_mark: checks",  # `_` escaped would still be read so
        "x:tada:y",  # glued to words
        ":a:b:",  # `:b:` shows once `:a:` is broken: every opening colon is broken
        ":+1::-1: both",
        "**:fire:** as typed",  # escaped markup around it
    ],
)
def test_an_emoji_shortcode_in_prose_shows_as_written(text):
    assert emoji_shown(gfm(text)), "the case must show an emoji unescaped"
    page = gfm(safe_text(text))
    assert emoji_shown(page) == []
    # as written: the zero-width spaces show nothing
    assert html.unescape(re.sub(r"<[^>]+>", "", page)).replace(ZWSP, "").strip() == text


@pytest.mark.parametrize("text", ["fp8:e4m3:fn", "torch::jit::script", "port :8080:", ":rocm:"])
def test_a_colon_pair_no_emoji_has_is_left_as_typed(text):
    # names GitHub shows as typed need no break: the text stays byte for byte
    assert safe_text(text) == text


def test_a_shortcode_in_code_is_left_as_typed():
    # GitHub shows no emoji in code: a zero-width space there would be copied with it
    assert safe_text("see `:rocket:` here") == "see `:rocket:` here"
    assert code(":rocket:") == "`:rocket:`"


# --- a quoted term as code, read raw in GitHub's notification email ---


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("name 'kv_cache' (x)", "name `kv_cache` (x)"),
        ("name 'a -> b', 'c'", "name `a -> b`, `c`"),
        ("name 'x`y'", "name ``x`y``"),
        ("name '`y'", "name `` `y ``"),
        ("name '@me #12 <b>'", f"name `@{ZWSP}me #{ZWSP}12 <b>`"),
        # an apostrophe inside a word opens or closes no quote: prose, escaped
        ("note's 'it's' x_y", "note's 'it's' x\\_y"),
        ("('a')", "(`a`)"),
        ("['a']", "\\[`a`\\]"),  # `[` stays escaped in prose
        ("x 'a';", "x `a`;"),
        ("'# h'", "`# h`"),
        ("# 'h'", "\\# `h`"),  # a block marker at the start is still escaped
        ("  'a'   b  ", "`a` b"),
        ("'a\tb' c", "`a b` c"),
    ],
)
def test_safe_text_quoting_shows_a_quoted_term_as_code(text, markdown):
    assert safe_text_quoting(text) == markdown
    page = gfm(markdown)
    assert "<h1>" not in page and "@me" not in page.replace("<code>@" + ZWSP, "")


def test_a_clipped_line_never_leaves_a_code_span_open():
    # a summary cut inside its `code span` showed the span's opening backtick as typed
    # ("read the `build_c12…"), Markdown showing through on the page
    text = "read the `build_c128a_topk_metadata` helper"
    clipped = safe_text(text, 20)
    assert clipped == "read the…", clipped
    html = cmarkgfm.github_flavored_markdown_to_html(clipped)
    assert "`" not in html, html
    # a span that ends before the cut stays code
    assert safe_text(text, 40) == "read the `build_c128a_topk_metadata` he…"
    # nor does a cut part a letter from its combining mark (é written e + U+0301)
    assert clip("cafe\u0301 noir", 5) == "caf…"

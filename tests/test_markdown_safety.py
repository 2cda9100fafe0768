"""The one sanitizer behind the sticky comment and the replies."""

import re

from bot.markdown_safety import ZWSP, code, neutralize, pr_link, redirect_github_links, safe_text


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
            assert not re.search(r"(?<!redirect\.)github\.com/o/r", out)
            assert not re.search(r"#\d", out)
            assert not re.search(r"GH-\d", out, re.I)  # GH-3 links an issue too
        assert neutralize(text) in span


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

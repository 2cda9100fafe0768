"""The notes pages' templates: one Jinja2 environment, autoescaping on, and the filters
that turn note text into safe HTML (escape everything first, then add the few tags)."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

TEMPLATES = Path(__file__).resolve().parent / "templates"

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# a run of blank lines (empty, or spaces, tabs and ideographic spaces only)
_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t\u3000]*\n)+")


def guidance_html(text: str) -> Markup:
    """Guidance as HTML: escape everything first, then turn `x` into <code>x</code>,
    blank lines into paragraphs and single newlines into <br>."""
    escaped = str(escape(text.replace("\r\n", "\n")))
    # the newlines added make blank lines at either end a break too; a break takes every
    # blank line of a run, so a part is text, or empty (an end)
    parts = _PARAGRAPH_BREAK.split(f"\n{escaped}\n")
    paragraphs = [p.strip("\n") for p in parts if p]
    html = (
        "<p>" + _CODE_SPAN.sub(r"<code>\1</code>", p).replace("\n", "<br>\n") + "</p>"
        for p in paragraphs
    )
    return Markup("\n".join(html))


def inline_html(text: str) -> Markup:
    """One line of text (a summary) with `x` shown as <code>x</code>, escaped first."""
    return Markup(_CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


# Chinese characters and punctuation (CJK, its symbols, full-width forms), a run of them
# taking a few Latin words between two of them ("修复 CUDA 图"), not an English sentence
_ZH = "\u2e80-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"
_ZH_RUN = re.compile(f"[{_ZH}]+(?:[ A-Za-z0-9._/+-]{{1,30}}[{_ZH}]+)*")


def zh_marked(text: str) -> Markup:
    """English text naming something Chinese (a note's title in an error), escaped, with
    each Chinese run marked lang="zh": its font and a screen reader's voice."""
    return Markup(_ZH_RUN.sub(r'<span lang="zh">\g<0></span>', str(escape(text))))


def template_environment() -> jinja2.Environment:
    """Autoescape every template (not only *.html) and fail loudly on a missing variable."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["guidance"] = guidance_html
    env.filters["inline"] = inline_html
    env.filters["zh"] = zh_marked
    return env

"""A PR's text as the matcher reads it (pure): its title's tags and the rest, its
description without what says nothing about the subsystem (vLLM's PR template, HTML
comments, code blocks, collapsed `<details>`, test results, log lines), and the PRs
and issues it refers to.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.links import GITHUB_HOST
from bot.markdown_text import (
    HTML_COMMENT,
    paragraph_code_spans,
    replace_code_spans,
    without_fences,
    without_indented_code,
)

# --- title -----------------------------------------------------------------------

# `[Bugfix][Spec Decode]`, `[Misc] [CI/Build]`: short bracketed groups anywhere in the title.
_TAG = re.compile(r"\[([^\[\]\n]{1,40})\]")
# Conventional-commit prefix `feat(spec-decode): ...`: the scope is a tag too.
_CC_PREFIX = re.compile(r"^\s*[A-Za-z]+\(([^()\n]{1,40})\)!?:\s*")


def _tags_in(title: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each bracketed tag, but brackets inside a code span:
    "Fix merging `dict[str, KVConnectorStats]`" quotes a type, GitHub shows it as code.
    A code span inside a tag ("[`torch.compile`]") leaves the tag one."""
    masked = title
    if "`" in title:
        for start, end in paragraph_code_spans(title):
            masked = masked[:start] + "\x00" * (end - start) + masked[end:]
    return [(m.start(), m.end(), title[m.start(1) : m.end(1)]) for m in _TAG.finditer(masked)]


def title_tags(title: str) -> tuple[str, ...]:
    """The subsystem tags the author put in the title, in order, stripped."""
    cc = _CC_PREFIX.match(title)
    scope_end = cc.end() if cc else 0
    # a tag written as the scope (`feat([Core]): `) is one tag, not two
    tags = [text.strip() for start, _, text in _tags_in(title) if start >= scope_end]
    if cc:
        tags.insert(0, cc.group(1).strip().strip("[]").strip())
    return tuple(t for t in tags if t)


def title_text(title: str) -> str:
    """The title without its tags (a conventional commit's `fix(scope): ` too, whose
    scope is a tag): the author's one-line summary."""
    cc = _CC_PREFIX.match(title)
    out: list[str] = []
    pos = cc.end() if cc else 0
    for start, end, _ in _tags_in(title):
        if start < pos:
            continue
        out += (title[pos:start], " ")
        pos = end
    out.append(title[pos:])
    return re.sub(r"\s{2,}", " ", "".join(out)).strip()


# --- description ----------------------------------------------------------------

# What hides the text after it up to its end (or the text's end): an HTML comment
# (`<!-->` and `<!--->` are empty ones, closed at once, as in HTML and on GitHub), a
# collapsed `<details>` (it nests: logs folded inside logs) and a `<pre>`.
_COMMENT_OPEN = re.compile(r"<!--")
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_TAG = re.compile(r"<details\b|</details\s*>", re.I)
_PRE_OPEN = re.compile(r"<pre\b", re.I)
_PRE_END = re.compile(r"</pre\s*>", re.I)
# No bracket inside the text, no parenthesis inside the target, and bounded: an
# unclosed "[x](" or "[" repeated along a line is then given up at the next one instead
# of being rescanned to the line's end from each (quadratic).
_IMAGE = re.compile(r"!\[[^\[\]\n]{0,500}\]\([^()\n]{0,2000}\)")
_LINK = re.compile(r"\[([^\[\]\n]{0,500})\]\([^()\n]{0,2000}\)")
_URL = re.compile(r"<?https?://[^\s)>\]]+>?")
# No `<` inside and bounded: "<a" repeated along a line is given up at the next `<`
_HTML_TAG = re.compile(r"</?[A-Za-z][^<>\n]{0,1000}>")

# vLLM's template (.github/PULL_REQUEST_TEMPLATE.md), old and new, as line patterns.
# Line starts are `^[ \t]*`, never `^\s*`: with re.M, `\s*` runs over every blank line
# that follows, at every line start, which is quadratic in a body of blank lines.
_TEMPLATE_TAIL = re.compile(r"^[ \t]*\*\*BEFORE SUBMITTING, PLEASE READ", re.M)
_TEMPLATE_LINES = re.compile(
    r"^[ \t]*(?:"
    r"(?:PLEASE )?FILL IN THE PR DESCRIPTION HERE.*"
    r"|FIX #xxxx.*"
    r"|#{1,6}\s*(?:Purpose|Test Plan|Test Results?|\(Optional\) Documentation Update)\s*:?\s*"
    r"|(?:[-*]\s*)?\[[ xX]\]\s*(?:The purpose of the PR|The test plan|The test results"
    r"|\(Optional\) The necessary documentation update|\(Optional\) Release notes update).*"
    r"|Essential Elements of an Effective PR Description Checklist.*"
    r"|-{3,}\s*"
    r")$",
    re.M | re.I,
)
# The template's "Test Result" section holds numbers and logs, its sub-headings too
# ("### Before", "### After"): it ends at the next heading of its level or above.
_RESULT_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]*Test Results?\b[^\n]*$", re.M | re.I)
_HEADING = re.compile(r"^[ \t]*(#{1,6})(?:[ \t]|$)", re.M)
_LOG_LINE = re.compile(
    r"^[ \t]*(?:"
    r"(?:INFO|WARNING|WARN|ERROR|DEBUG|CRITICAL)\b"
    # the process prefixes vLLM and torch put on each line: `(EngineCore pid=12)`,
    # `(VllmWorker rank=0 pid=3340)`, `(RayWorkerWrapper pid=3436, ip=...)`, `[rank0]:`
    r"|\(\w+[^()\n]{0,80}\bpid=\d+[^()\n]{0,80}\)"
    r"|\[rank\d+\]:"
    r"|\[?\d{4}-\d{2}-\d{2}[ T]\d"
    r"|Traceback \(most recent call last\)"
    r"|File \"[^\"]+\", line \d+"
    r"|(?:\$|>>>)\s"
    # a table's rule row, within its line: `\s` would run on to the end of the text
    # from every line opening with `|` (quadratic in a description of `| -` lines)
    r"|\|[ \t\-:|]*\|[ \t]*$"
    r").*$",
    re.M,
)
# A whole Python traceback: its header, the indented frames (file lines, source lines,
# `^^^` markers) and the exception line that ends it (`RuntimeError: ...`).
_TRACEBACK = re.compile(
    r"^[ \t]*Traceback \(most recent call last\)[^\n]*"
    r"(?:\n[ \t]+[^\n]*)*"
    r"(?:\n[ \t]*[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)\b[^\n]*)?",
    re.M,
)
_MOSTLY_NUMBERS = re.compile(r"^[\W\d_]*$")
_NAMED_NUMBER = re.compile(r"\b[A-Za-z]+\d[A-Za-z\d]*\b")  # H100, GB200, MI355X

# owner/name, bounded as GitHub bounds them (39 and 100): "_._._." repeated would
# otherwise be rescanned from each position for a `/` (quadratic). bot.relations too.
OWNER_NAME = r"[A-Za-z0-9_.-]{1,39}/[A-Za-z0-9_.-]{1,100}"  # ASCII, as GitHub's names are
# A reference to a PR or issue, `#N` / `owner/name#N` and a github.com link (group 1 the
# repository, 2 the number), as patterns bot.relations reads too. Word edges are ASCII:
# Chinese text runs into the number ("回退#52401中的改动"), as in bot.library. `&#10004;`
# is an HTML character reference, not PR 10004.
REF_HASH = rf"(?<![A-Za-z0-9_/&])(?:({OWNER_NAME}))?#(\d{{1,7}})(?![A-Za-z0-9_])"
# github.com as a host (bot.links.GITHUB_HOST), not the end of another one
# (`notgithub.com`); `www.`, a scheme, or Chinese text may stand before it
REF_URL = (
    rf"(?<![A-Za-z0-9-]){GITHUB_HOST}({OWNER_NAME})/(?:pull|issues)/(\d{{1,7}})(?![A-Za-z0-9_])"
)
_REF_HASH = re.compile(REF_HASH)
_REF_URL = re.compile(REF_URL)
# A Markdown link (or image), bounded as `_LINK` is: its target says what it refers to.
_LINK_TARGET = re.compile(r"!?\[[^\[\]\n]{0,500}\]\(([^()\n]{0,2000})\)")


def _numeric_line(line: str) -> bool:
    """A row of figures (benchmark tables, progress bars) carries no topic words; a name
    whose digits follow letters (`H100`, `MI355X`, `fp8`) is a word, not a figure: a
    line listing the GPUs a PR was tested on is kept."""
    stripped = line.strip()
    if not stripped:
        return False
    figures = _NAMED_NUMBER.sub("", stripped).replace(" ", "")
    digits = sum(c.isdigit() for c in figures)
    return digits * 2 > len(figures) or bool(_MOSTLY_NUMBERS.match(stripped))


def _without_result_sections(text: str) -> str:
    """The text minus each "Test Result" section, its sub-sections included."""
    out, pos = [], 0
    while section := _RESULT_HEADING.search(text, pos):
        out.append(text[pos : section.start()])
        level = len(section.group(1))
        pos = len(text)
        for heading in _HEADING.finditer(text, section.end()):
            if len(heading.group(1)) <= level:
                pos = heading.start()
                break
    out.append(text[pos:])
    return "".join(out)


def _comment_end(text: str, opened: re.Match[str]) -> int:
    end = HTML_COMMENT.match(text, opened.start())  # it always matches at a "<!--"
    return end.end() if end else len(text)


def _details_end(text: str, opened: re.Match[str]) -> int:
    """Nested `<details>` are counted: the outer one ends at its own end tag."""
    depth = 1
    for tag in _DETAILS_TAG.finditer(text, opened.end()):
        depth += -1 if tag.group(0).startswith("</") else 1
        if not depth:
            return tag.end()
    return len(text)


def _pre_end(text: str, opened: re.Match[str]) -> int:
    end = _PRE_END.search(text, opened.end())
    return end.end() if end else len(text)


def _without_hiding(
    text: str, opener: re.Pattern[str], end: Callable[[str, re.Match[str]], int]
) -> str:
    """The text minus each element `opener` finds, up to `end`. One written inside code
    (inline or a fenced block) is text: GitHub shows "wrap the logs in a `<details>`
    block" as is."""
    out, pos, k = [], 0, 0
    spans: list[tuple[int, int]] | None = None  # read once an element is found
    while opened := opener.search(text, pos):
        if spans is None:
            spans = _code_spans(text) if _CODE_HINT.search(text) else []
        while k < len(spans) and spans[k][1] <= opened.start():
            k += 1
        if k < len(spans) and spans[k][0] <= opened.start():
            out.append(text[pos : spans[k][1]])
            pos = spans[k][1]
            continue
        out.append(text[pos : opened.start()])
        pos = end(text, opened)
    out.append(text[pos:])
    return "".join(out)


# Without one of these a text has no code (backticks, a tilde fence, an indent of four)
_CODE_HINT = re.compile(r"`|~~~| {4}|\t")


def _code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of the code blocks' lines (fenced or indented) and the inline code
    spans, in order. `text` has "\n" line ends."""
    lines = text.split("\n")
    kept = without_indented_code(without_fences(text, nested=True)).split("\n")
    fenced, masked, pos = [], [], 0
    for line, shown in zip(lines, kept, strict=True):
        code = bool(line) and not shown
        if code:
            fenced.append((pos, pos + len(line)))
        masked.append(" " * len(line) if code else line)  # positions kept for the spans
        pos += len(line) + 1
    return sorted(fenced + paragraph_code_spans("\n".join(masked)))


def _without_comments(text: str) -> str:
    return _without_hiding(text, _COMMENT_OPEN, _comment_end)


def clean_body(body: str) -> str:
    """The author's own words in a PR description: template, code, logs and markup removed."""
    return prose(without_comments_and_code(body))


def prose(text: str) -> str:
    """`clean_body` of a description already without comments and code blocks."""
    text = _without_hiding(text, _DETAILS_OPEN, _details_end)
    text = _without_hiding(text, _PRE_OPEN, _pre_end)
    tail = _TEMPLATE_TAIL.search(text)
    if tail:
        text = text[: tail.start()]
    text = _without_result_sections(text)
    text = _TEMPLATE_LINES.sub("", text)
    text = _TRACEBACK.sub("", text)
    text = _LOG_LINE.sub("", text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    # tags before bare URLs: a URL the last attribute (`<img alt=".." src="https://..">`)
    # would otherwise take the tag's closing `">` with it, and leave the tag open
    text = _HTML_TAG.sub("", text)
    text = _URL.sub("", text)
    lines = [ln.rstrip() for ln in text.split("\n") if not _numeric_line(ln)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def without_comments_and_code(body: str) -> str:
    """The description minus HTML comments (the template's hints) and code blocks, fenced
    or indented: GitHub makes no reference of a `#N` shown as code."""
    body = body.replace("\r\n", "\n").replace("\r", "\n")
    return without_indented_code(without_fences(_without_comments(body), nested=True))


# A `<code>` element, up to its end tag or the next `<code` (so an unclosed one repeated
# along a text is given up at the next, not rescanned to the end from each).
_CODE_ELEMENT = re.compile(r"<code\b[^<>]*>(?:[^<]|<(?!/?code\b))*</code\s*>", re.I)
_SHOWN_AS_CODE = "\x00"  # what stands for inline code: no word, no space, no reference


def without_inline_code(text: str) -> str:
    """The text with each inline code span, `<code>` and `<pre>` element replaced by a
    mark that is neither a word nor a space (so "Fixes `x` #1" does not become "Fixes
    #1"): GitHub makes no reference of a `#N` shown as code (`` `#52419` ``, a build
    number), nor of one inside a `<code>` or `<pre>`. `text` has "\n" line ends."""
    if "`" in text:  # spans first: a `<code>` written in one is text, as GitHub shows it
        text = replace_code_spans(text, _SHOWN_AS_CODE)
    if "<" in text:
        text = _without_hiding(text, _PRE_OPEN, _pre_end)
        text = _CODE_ELEMENT.sub(_SHOWN_AS_CODE, text)
    return text


def reference_text(body: str) -> str:
    """The description where GitHub finds references: without HTML comments and without
    anything shown as code, blocks (`without_comments_and_code`) or inline
    (`without_inline_code`)."""
    return without_inline_code(without_comments_and_code(body))


def referenced_prs(text: str, repo: str) -> tuple[int, ...]:
    """PR/issue numbers of `repo` the text refers to (`#N`, `owner/name#N`, GitHub URLs).

    A Markdown link refers to what its target is, whatever its text says: GitHub shows
    "[#75919](https://buildkite.com/vllm/ci/builds/75919)" as a link to a Buildkite
    build, not to PR 75919, and "[#51430](https://github.com/vllm-project/vllm/pull/51430)"
    as one to PR 51430. First mention first."""
    links: list[tuple[int, str]] = []  # (where, target)

    def blank(link: re.Match[str]) -> str:
        links.append((link.start(), link.group(1)))
        return " " * len(link.group(0))  # a word edge, as the link was; places kept

    text = _LINK_TARGET.sub(blank, text) if "](" in text else text
    found: list[tuple[int, int]] = []  # (where, number)
    for m in _REF_HASH.finditer(text):
        if m.group(1) is None or m.group(1).lower() == repo.lower():
            found.append((m.start(), int(m.group(2))))
    urls = [(m.start(), m) for m in _REF_URL.finditer(text)]
    urls += [(where, m) for where, target in links for m in _REF_URL.finditer(target)]
    for where, m in urls:
        if m.group(1).lower() == repo.lower():
            found.append((where, int(m.group(2))))
    found.sort()
    return tuple(dict.fromkeys(n for _, n in found))

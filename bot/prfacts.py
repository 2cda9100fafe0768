"""What we know about a pull request, as plain data (pure).

Built from a `pull_request` webhook payload (or a dev-set line) plus the PR's
changed files, which the payload does not carry. The derived views the matcher
reads (title tags, cleaned description, referenced PRs) are computed once per
facts object.

The description is cleaned before matching: vLLM's PR template (its banner,
headings and checklist), HTML comments, code blocks, collapsed `<details>`
sections, test results and log lines say nothing about the subsystem a PR
touches, yet are full of words that would look like evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from bot.markdown_text import (
    HTML_COMMENT,
    paragraph_code_spans,
    replace_code_spans,
    without_fences,
    without_indented_code,
)
from bot.terms import is_code_name

# The repository the bot and its notes are for, where nothing names another
DEFAULT_REPO = "vllm-project/vllm"

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
    tags = [text.strip() for _, _, text in _tags_in(title)]
    cc = _CC_PREFIX.match(title)
    if cc:
        tags.insert(0, cc.group(1).strip())
    return tuple(t for t in tags if t)


def title_text(title: str) -> str:
    """The title without its tags (a conventional commit's `fix(scope): ` too, whose
    scope is a tag): the author's one-line summary."""
    cc = _CC_PREFIX.match(title)
    out, pos = [], cc.end() if cc else 0
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
REF_URL = rf"github\.com/({OWNER_NAME})/(?:pull|issues)/(\d{{1,7}})(?![A-Za-z0-9_])"
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
    return _prose(without_comments_and_code(body))


def _prose(text: str) -> str:
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


# --- the facts -------------------------------------------------------------------


@dataclass(frozen=True)
class PRFacts:
    repo: str  # "owner/name"
    number: int
    title: str
    body: str = ""  # raw, as the author wrote it; see `clean_body` for what is matched
    labels: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    draft: bool = False
    # GitHub's `state` is "closed" (merged or not): PR events leave such a PR alone.
    closed: bool = False
    author: str = ""
    head_sha: str = ""
    # the branch it would merge into (`base.ref`): its files are the diff against it, so
    # a retarget changes them under the same head; "": not known
    base_ref: str = ""
    # Names from the code the PR changes (identifiers on its added and removed lines,
    # see `code_names_in`) -> the files whose diff names them; empty: diff not seen.
    code_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The PR's own count of its changed files (`changed_files`), when known: it tells
    # the whole list (GitHub's listing) from a partial one (files someone happened to see).
    changed_files: int | None = None
    # How many entries GitHub's listing of `files` had: a rename is one entry and two
    # paths, so the paths overcount it. None: one per path (a list given by hand).
    listed_files: int | None = None
    # Files it changes only by moving them or editing their imports (`incidental_files`):
    # they say where code went, not what it does. Empty: the diff was not seen.
    incidental: frozenset[str] = frozenset()
    # Notes the bot showed on the PRs this one says it fixes, reverts, follows up on,
    # supersedes or builds on (`bot.relations`): note id -> (that PR, the relation).
    # Filled by the shell from what it remembers; empty when matching a PR alone.
    related_notes: Mapping[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def files_complete(self) -> bool:
        """`files` is every file the PR changes (a rename lists both paths)."""
        listed = len(self.files) if self.listed_files is None else self.listed_files
        return bool(self.files) and self.changed_files is not None and listed >= self.changed_files

    @cached_property
    def file_count(self) -> int:
        """How many files the PR changes, as GitHub lists them: a rename is one, though
        `files` holds both its paths (`listed_files`); without that count, one per path.
        GitHub's own count (`changed_files`) when a list is partial (GitHub lists 3,000
        at most): a share of the files seen is no share of the PR's. 0: none known."""
        paths = len(set(self.files))
        listed = paths if self.listed_files is None else min(self.listed_files, paths)
        return max(listed, self.changed_files or 0) if paths else 0

    @cached_property
    def tags(self) -> tuple[str, ...]:
        """Title tags such as `Bugfix`, `Spec Decode`, `ROCm`."""
        return title_tags(self.title)

    @cached_property
    def title_text(self) -> str:
        """The title without its tags."""
        return title_text(self.title)

    @cached_property
    def body_without_code(self) -> str:
        """The description minus HTML comments and code blocks (`without_comments_and_code`),
        read once for both `clean_body` and `refs`."""
        return without_comments_and_code(self.body)

    @cached_property
    def clean_body(self) -> str:
        """The description with template, code blocks, logs and markup removed."""
        return _prose(self.body_without_code)

    @cached_property
    def refs(self) -> tuple[int, ...]:
        """Numbers of this repo's PRs/issues the title or description refers to.

        Read from the raw body minus comments and code, so links count but the
        template's `FIX #xxxx` placeholder and code samples do not, inline code spans
        (`` `#52419` ``) and `<code>` included (`reference_text`).
        """
        raw = without_inline_code(self.body_without_code)
        title = without_inline_code(self.title.replace("\r", " ").replace("\n", " "))
        return tuple(n for n in referenced_prs(title + "\n" + raw, self.repo) if n != self.number)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")
MAX_CODE_NAMES = 20_000  # a 3,000-file PR still costs a bounded set


def code_names_in(patches: Iterable[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Identifiers with an underscore or an inner capital (`deep_gemm_warmup`,
    `KVConnectorStats`) on the added and removed lines of unified diffs, each with
    the files that name it: what the PR's code changes name, not the lines around."""
    names: dict[str, dict[str, None]] = {}
    for path, patch in patches:
        for line in patch.splitlines():
            if line[:1] not in ("+", "-") or line.startswith(("+++", "---")):
                continue
            for name in _IDENTIFIER.findall(line):
                if name in names:
                    names[name][path] = None
                elif len(names) < MAX_CODE_NAMES and is_code_name(name):
                    names[name] = {path: None}
    return {name: tuple(files) for name, files in sorted(names.items())}


@dataclass(frozen=True)
class FileChange:
    """One entry of GitHub's list of a PR's files (`GET /pulls/{n}/files`)."""

    filename: str
    status: str = "modified"  # added, removed, modified, renamed, copied, changed
    previous_filename: str | None = None  # a rename's old path
    changes: int = 0  # lines added + removed
    patch: str | None = None  # None: binary, or too large for GitHub to show


# An import statement's first line: Python's `import x` / `from x import y`, C's `#include`.
_IMPORT = re.compile(r"\s*(?:import\s+[\w.]|from\s+[\w.]+\s+import\b|#\s*include\b)")


def incidental_files(changes: Iterable[FileChange]) -> frozenset[str]:
    """The files a PR changes only by moving them or by editing their import lines
    (both paths of a move): a module moved, and every file importing it follows. They
    show where code went, not a change to what it does."""
    out: set[str] = set()
    for f in changes:
        moved = f.status == "renamed" and not f.changes
        if moved or (f.patch and imports_only(f.patch)):
            out.add(f.filename)
            if f.previous_filename:
                out.add(f.previous_filename)
    return frozenset(out)


def imports_only(patch: str) -> bool:
    """Every added or removed line of this unified diff (blank ones aside) is part of
    an import statement, a parenthesised `from x import (...)` included."""
    changed = False
    in_import = False  # inside `from x import (` ... `)`, as the hunk's lines show it
    for line in patch.splitlines():
        if line.startswith("@@"):
            in_import = False  # a new hunk starts somewhere else in the file
            continue
        mark, text = line[:1], line[1:]
        if mark not in (" ", "+", "-"):
            continue  # "\ No newline at end of file"
        opens = bool(_IMPORT.match(text))
        part = in_import or opens
        if opens and "(" in text and ")" not in text:
            in_import = True
        elif in_import and ")" in text:
            in_import = False
        if mark != " " and text.strip():
            if not part:
                return False
            changed = True
    return changed


def payload_files(payload: dict[str, Any]) -> list[str] | None:
    """Changed files, when a payload carries them (our examples do, GitHub's don't)."""
    files = payload.get("files")
    if isinstance(files, list) and all(isinstance(f, str) for f in files):
        return files
    return None


def facts_from_payload(payload: dict[str, Any], files: Iterable[str] = ()) -> PRFacts:
    """PR facts from a `pull_request` event payload (body may be null)."""
    pr = payload["pull_request"]
    user = _object(pr.get("user"), "user")
    return PRFacts(
        repo=payload["repository"]["full_name"],
        number=int(pr["number"]),
        title=_text(pr.get("title"), "title"),
        body=_text(pr.get("body"), "body"),
        labels=_label_names(pr.get("labels")),
        files=tuple(files),
        draft=bool(pr.get("draft")),
        closed=pr.get("state") == "closed",
        author=_text(user.get("login"), "user.login"),
        head_sha=_text(_object(pr.get("head"), "head").get("sha"), "head.sha"),
        base_ref=_text(_object(pr.get("base"), "base").get("ref"), "base.ref"),
        changed_files=_count(pr.get("changed_files")),
    )


def _object(value: Any, field: str) -> dict[str, Any]:
    """A payload's object (null or absent: empty), else an error naming its field."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{field}: not an object ({type(value).__name__})")
    return value


def _label_names(value: Any) -> tuple[str, ...]:
    """A payload's labels: objects with a `name` (one without a name is left out)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"labels: not a list ({type(value).__name__})")
    names = []
    for i, label in enumerate(value):
        if not isinstance(label, dict):
            raise ValueError(f"labels[{i}]: not an object with 'name' ({type(label).__name__})")
        name = _text(label.get("name"), f"labels[{i}].name")
        if name:
            names.append(name)
    return tuple(names)


def facts_from_record(record: dict[str, Any], repo: str = DEFAULT_REPO) -> PRFacts:
    """PR facts from one line of an evaluation file (number, title, body, labels, files).

    `code_names` maps a name to the files naming it, each a path or its index in `files`
    (compact: a 1,500-file PR's diff names thousands of identifiers); `incidental` lists
    the files moved or changed in their imports only, the same way."""
    files = _names(record.get("files"), "files", ("path", "filename"))

    def paths(where: Any, what: str) -> tuple[str, ...]:
        if not isinstance(where, list):
            raise ValueError(f"{what}: not a list ({type(where).__name__})")
        for i, f in enumerate(where):
            if isinstance(f, bool) or not isinstance(f, (str, int)):
                raise ValueError(f"{what}[{i}]: not a path or an index in files")
        bad = [f for f in where if isinstance(f, int) and not 0 <= f < len(files)]
        if bad:
            raise ValueError(f"{what}: no file at index {bad[0]} (files lists {len(files)})")
        return tuple(files[f] if isinstance(f, int) else f for f in where)

    number = record.get("number") or 0
    if isinstance(number, bool) or not (
        isinstance(number, int)
        or (isinstance(number, str) and number.isascii() and number.isdigit())
    ):
        raise ValueError(f"number: not a PR number ({str(number)[:40]!r})")
    names = record.get("code_names") or {}
    if not isinstance(names, dict) or not all(isinstance(v, list) for v in names.values()):
        raise ValueError("code_names: not an object of lists")
    return PRFacts(
        repo=_text(record.get("repo", repo), "repo"),
        number=int(number),
        title=_text(record.get("title"), "title"),
        body=_text(record.get("body"), "body"),
        labels=_names(record.get("labels"), "labels", ("name",)),
        files=files,
        code_names={k: paths(v, f"code_names[{k!r}]") for k, v in names.items()},
        changed_files=_file_count(record.get("changed_files")),
        incidental=frozenset(paths(record.get("incidental") or [], "incidental")),
    )


def _text(value: Any, field: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{field}: not a string ({type(value).__name__})")
    return value


def _names(value: Any, field: str, keys: tuple[str, ...]) -> tuple[str, ...]:
    """A list of strings, or of objects naming one (`gh pr view --json labels,files` gives
    `{"name": ...}` labels and `{"path": ...}` files)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ValueError(f"{field}: not a list ({type(value).__name__})")
    out = []
    for i, item in enumerate(value):
        if isinstance(item, dict):
            item = next((item[k] for k in keys if isinstance(item.get(k), str)), None)
        if not isinstance(item, str):
            raise ValueError(f"{field}[{i}]: not a string or an object with {keys[0]!r}")
        out.append(item)
    return tuple(out)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _file_count(value: Any) -> int | None:
    """A line's `changed_files`: absent (None), or a count, else an error naming it (taken
    for "unknown", the tests-only and docs-only rules would silently never apply)."""
    if value is not None and _count(value) is None:
        raise ValueError(f"changed_files: not a count of files ({str(value)[:40]!r})")
    return value

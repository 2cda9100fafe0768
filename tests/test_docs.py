"""The documentation's own links lead somewhere: every relative link in the README and in
docs/ names a file that exists and, when it names a section (`#anchor`), a heading of that
file; and the README's Documentation list links every file in docs/.

The reference moved out of the README into docs/ (one file per reader); a cross-reference
written as a link breaks silently when a section is renamed or moved again, so it is
checked here, with GitHub's rule for a heading's anchor.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs_kit import DOCS, readme
from tests.webhook_kit import ROOT

PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
# [text](target) and ![alt](target); the text may hold one level of brackets and run
# over a line break, as a wrapped paragraph writes it.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def prose(text: str) -> str:
    """The text a link can be in: fenced blocks and code spans taken out."""
    kept, fence = [], None
    for line in text.splitlines():
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and line.strip().startswith(fence[0] * len(fence)):
            fence = None
        elif fence is None:
            kept.append(line)
    return CODE_SPAN.sub("", "\n".join(kept))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    for line in prose(text).splitlines():
        heading = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            name, n = anchor(heading.group(1)), 1
            while name in found:  # GitHub numbers a repeated heading's anchor
                name, n = f"{anchor(heading.group(1))}-{n}", n + 1
            found.add(name)
    return found


def local_links(page: Path) -> list[str]:
    targets = LINK.findall(prose(page.read_text("utf-8")))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.I)]


def broken(page: Path, root: Path = ROOT) -> list[str]:
    """Each local link of the page that leads nowhere (or out of `root`), with why."""
    out = []
    for target in local_links(page):
        path, _, section = target.partition("#")
        file = (page.parent / path).resolve() if path else page.resolve()
        if not file.is_file() or not file.is_relative_to(root.resolve()):
            out.append(f"{target}: no file {path}")
        elif section and section not in anchors(file.read_text("utf-8")):
            out.append(f"{target}: no heading with the anchor #{section} in {path or page.name}")
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_a_heading_there(page):
    assert local_links(page) and broken(page) == []


def test_the_documentation_list_links_every_file_in_docs():
    listed = readme().split("\n## Documentation\n", 1)[1].split("\n## ", 1)[0]
    linked = {t.partition("#")[0] for t in LINK.findall(listed)}
    assert linked == {f"docs/{p.name}" for p in DOCS.glob("*.md")}


def test_anchors_follow_githubs_rule():
    assert anchor("Try it locally (dry run)") == "try-it-locally-dry-run"
    assert anchor("The notes comment, in detail") == "the-notes-comment-in-detail"
    assert anchor("Create the GitHub App (manifest flow)") == "create-the-github-app-manifest-flow"
    assert anchor("📚 Review notes") == "-review-notes"
    assert anchors("# A\n## A\n```\n# B\n```\n## A\n") == {"a", "a-1", "a-2"}


def test_a_broken_link_is_named(tmp_path):
    # The check must see a link to a missing file, to a missing heading, to a file out of
    # the repository (GitHub shows none), one wrapped over a line break, and leave alone
    # links in code and to other sites.
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "outside.md").write_text("# Outside\n", "utf-8")
    (root / "other.md").write_text("# Other\n\n## Its part\n", "utf-8")
    page = root / "page.md"
    page.write_text(
        "# Page\n\nSee [its\npart](other.md#its-part), [gone](gone.md), [a part](other.md#nope),"
        " [here](#page), [away](#away), [out](../outside.md) and [GitHub](https://github.com).\n\n"
        "`[code](gone.md)`\n\n```\n[fenced](gone.md)\n```\n",
        "utf-8",
    )
    assert broken(page, root=root) == [
        "gone.md: no file gone.md",
        "other.md#nope: no heading with the anchor #nope in other.md",
        "#away: no heading with the anchor #away in page.md",
        "../outside.md: no file ../outside.md",
    ]

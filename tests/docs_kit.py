"""The project's documentation as the tests read it: the README and the files in docs/.

A test that holds a page to the code names the file the text is in, so that a section
moved between files is read where it now is, and a test reading a file that is gone fails.
"""

from __future__ import annotations

from tests.webhook_kit import ROOT

DOCS = ROOT / "docs"


def readme() -> str:
    return (ROOT / "README.md").read_text("utf-8")


def doc(name: str) -> str:
    """The text of `docs/<name>` (`doc("operating.md")`)."""
    return (DOCS / name).read_text("utf-8")

"""Where a note lives on the web (pure: note and settings in, URL out).

The PR comment and the notes pages share these so a note has one address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args
from urllib.parse import quote

if TYPE_CHECKING:
    from bot.notes import Note

LinkMode = Literal["pages", "github"]
LINK_MODES: tuple[str, ...] = get_args(LinkMode)
NOTES_DIR_IN_REPO = "seeds/notes"
# github.com as a URL's host up to the path, also fully qualified (`github.com.`) or with
# its port: what bot.markdown_safety sends through redirect.github.com and bot.pr_text
# reads as a reference are the same links (a regular expression's text)
GITHUB_HOST = r"github\.com\.?(?::(?:443|80))?/"


def check_link_settings(link_mode: str, notes_repo_url: str) -> None:
    """Raise ValueError for settings that cannot produce a working link."""
    if link_mode not in LINK_MODES:
        raise ValueError(f"link_mode must be one of {', '.join(LINK_MODES)}, not {link_mode!r}")
    if link_mode == "github" and not notes_repo_url.strip():
        raise ValueError("link_mode 'github' needs notes_repo_url (e.g. https://github.com/o/r)")


def note_page_url(note: Note, *, public_url: str) -> str:
    """The note's page on our server; root-relative when public_url is empty."""
    return f"{public_url.rstrip('/')}/notes/{quote(note.id, safe='')}"


def note_file_url(
    note: Note,
    *,
    notes_repo_url: str,
    branch: str = "main",
    directory: str = NOTES_DIR_IN_REPO,
    file: str | None = None,
) -> str:
    """The note's file on GitHub: `file` under the notes directory (Library.files: a
    curator may sort notes into sub-folders), else `<id>.md`, as the importer writes it.
    Shown as written (`?plain=1`): GitHub renders a .md file's TOML `+++` header as prose,
    which runs the header and the guidance together into one paragraph."""
    path = f"{quote(directory.strip('/'), safe='/')}/{quote(file or note.filename, safe='/')}"
    path = path.lstrip("/")
    return f"{notes_repo_url.rstrip('/')}/blob/{quote(branch, safe='/')}/{path}?plain=1"


def pr_url(repo: str, number: int) -> str:
    """A pull request's URL through redirect.github.com, so that text posted on GitHub
    creates no "mentioned this" backlink on the linked PR."""
    return f"https://redirect.github.com/{repo}/pull/{int(number)}"


def issue_url(repo: str, number: int) -> str:
    """An issue's URL, through redirect.github.com for the same reason as `pr_url`."""
    return f"https://redirect.github.com/{repo}/issues/{int(number)}"

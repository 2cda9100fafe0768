"""Reading the TOML files of config/ into their pydantic models (pure but for the read).

A curator's mistake names the file and the field, never a traceback: malformed TOML,
a file saved in another encoding (TOML is UTF-8), a value out of range. `read_config`
also names the line, as `notes check` does for a note: `file:line: field: message`.
Where the shipped library and config files are (`ROOT`, the `DEFAULT_*` paths) is named
here too: the settings' defaults, read without the notes' model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from bot.note_files import (
    Header,
    LibraryError,
    Problem,
    decode_utf8,
    normalise_text,
    parse_toml,
    pydantic_problems,
)

if TYPE_CHECKING:  # imported where read: the settings read their file with this module
    from bot.similarity import Vocabulary

M = TypeVar("M", bound=BaseModel)

ROOT = Path(__file__).resolve().parent.parent
# the shipped library and config: the settings' defaults (`bot.library` names them too)
DEFAULT_NOTES_DIR = ROOT / "seeds" / "notes"
DEFAULT_TOPICS_FILE = ROOT / "config" / "topics.toml"
# the matching config checked with them (bot.match_config reads it): named here, so that
# the settings name the shipped files without importing the matcher
DEFAULT_MATCHING_FILE = ROOT / "config" / "matching.toml"


class ConfigError(LibraryError, ValueError):
    """A config file's problems, each on its line; a ValueError, as a bad config was."""


@dataclass(frozen=True)
class ConfigFile:
    """A config file's text and table, to put each problem on its line."""

    path: Path
    text: str
    data: dict[str, Any]

    @cached_property
    def header(self) -> Header:
        return Header(self.text, 1)

    def problem(self, field: str, message: str, value: Any = None) -> Problem:
        """A problem on the line of `field` (dotted: `weights.path`), or of its element
        `value`; line 1 when the file does not have it."""
        return Problem(str(self.path), self.header.line_of(field, value, 1), field, message)

    def validate(self, model: type[M], data: dict[str, Any] | None = None) -> M:
        """`model` from the table (or from `data`, the table amended); ConfigError with a
        problem per field at fault."""
        data = self.data if data is None else data
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(
                pydantic_problems(exc, str(self.path), self.header, data, 1, model.model_fields)
            ) from None


def read_config(path: Path) -> ConfigFile:
    """The file, read; ConfigError on the line of bad UTF-8 or malformed TOML. OSError
    when it cannot be read."""
    try:
        # as a note or topics.toml: an editor's byte-order mark or CR line ends are no fault
        text = normalise_text(decode_utf8(path.read_bytes(), str(path)))
        return ConfigFile(path, text, parse_toml(text, str(path), 1, "config"))
    except LibraryError as exc:
        raise ConfigError(exc.problems) from None


@lru_cache(maxsize=4)
def load_vocabulary(path: Path) -> Vocabulary:
    """Read a title vocabulary (config/title_vocabulary.json, bot/similarity.py); a bad
    one raises ValueError naming the file and field. Cached per path: every config
    naming the file shares one Vocabulary, so equal configs compare equal."""
    from bot.similarity import Vocabulary

    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read the title vocabulary: {exc}") from None
    if not isinstance(data, dict):
        data = {}
    titles, df = data.get("titles"), data.get("df")
    if not isinstance(titles, int) or titles < 1:
        raise ValueError(f"{path}: field 'titles' must be a positive integer")
    if not isinstance(df, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and 0 <= v <= titles for k, v in df.items()
    ):
        raise ValueError(f"{path}: field 'df' must map words to counts between 0 and 'titles'")
    return Vocabulary(titles, df)

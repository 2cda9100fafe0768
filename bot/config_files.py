"""Reading the TOML files of config/ into their pydantic models (pure but for the read).

A curator's mistake names the file and the field, never a traceback: malformed TOML,
a file saved in another encoding (TOML is UTF-8), a value out of range.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def read_toml(path: Path) -> dict[str, Any]:
    """The file's table; ValueError naming the file when it is not TOML."""
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: malformed TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8: {exc}") from None


def validate(model: type[M], data: dict[str, Any], path: Path) -> M:
    """`model` from the file's table; ValueError naming the file and each field at fault."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ValueError(f"{path}: {problems}") from None

"""Order keys (pure): strings that sort in the order things were said on a PR.

Commands run late, twice or out of order (retries, redeliveries, edits), so what the
PR's state keeps is who said it last, by these keys, compared as strings:

- a comment's key, `<GitHub time>/<id, 20 digits>`: its time first (whole seconds),
  then its id, since GitHub numbers comments as they are written (`comment_key`);
- a command's, `<comment's key>#<place, 2 digits>`: one comment's `wrong 1` then
  `restore` are ordered too, and a re-run of the comment finds each command's own key
  (`command_key`; `comment_part` takes the place off again);
- `~` sorts after every digit: `<time>/~` is after every comment of that second
  (`after_second`), `<key>~` right after `key` and before anything said later
  (`just_after`).
"""

from __future__ import annotations


def comment_key(when: str, comment_id: int) -> str:
    return f"{when}/{comment_id:020d}"


def command_key(said: str | None, index: int) -> str | None:
    """The key of the command at `index` of a comment said at `said` (None: unknown)."""
    return None if said is None else f"{said}#{index:02d}"


def comment_part(key: str) -> str:
    """A command's key without its place: the key of the comment that holds it."""
    return key.split("#")[0]


def after_second(when: str) -> str:
    """After every comment said at `when` (a GitHub time), before any said later."""
    return f"{when}/~"


def just_after(key: str) -> str:
    return f"{key}~"


def said_before(key: str | None, standing: str | None) -> bool:
    """Whether what has the key `key` was said before what has the key `standing` (None,
    either: not known, so not before: taken as the newest)."""
    return key is not None and standing is not None and key < standing


def latest(*keys: str | None) -> str | None:
    """The newest of these order keys (None: none known)."""
    known = [k for k in keys if k is not None]
    return max(known) if known else None

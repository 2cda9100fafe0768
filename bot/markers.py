"""The invisible marks review-notes puts in what it writes (pure): how its comments are
told apart, from the intake (bot.dispatch: the bot's own events are ignored) to the
write (bot.sticky, bot.command_answers: only a comment of ours is ever edited or found
again).

Every comment review-notes writes opens with a marker: MARKER (the notes comment) or
REPLY_MARKER (a reply, which also ends with its key, `reply_key`). Text alone proves
nothing (a person may paste ours): a comment is ours only when the bot's account wrote
it too.
"""

from __future__ import annotations

import re

MARKER = "<!-- review-notes:v1 -->"
REPLY_MARKER = "<!-- review-notes:reply -->"
REPLY_KEY_OPENING = "<!-- review-notes:reply-to "


def written_by_review_notes(body: str) -> bool:
    """Whether a comment's text is one review-notes writes: it opens with our marker or
    ends with a reply's key. With a token it tells the bot's comments from its owner's
    (see `bot.dispatch`)."""
    text = body.strip()
    last = text.rsplit("\n", 1)[-1].strip()
    return text.startswith((MARKER, REPLY_MARKER)) or last.startswith(REPLY_KEY_OPENING)


def opens_with(body: object, marker: str = MARKER) -> bool:
    """Whether a comment's text opens with `marker` (spacing before it aside, as GitHub
    keeps it): the notes comment, by default. Elsewhere it may be a reply of ours
    quoting a command that carried it (shown as code), or a person's text."""
    return isinstance(body, str) and body.lstrip().startswith(marker)


def ends_with_key(body: str | None, key: str) -> bool:
    """Whether a comment's last line is this reply key, as a reply of ours ends: one of
    our replies that echoes what a user typed may quote another reply's key mid-text."""
    return (body or "").rstrip().rsplit("\n", 1)[-1].strip() == key


def reply_key(delivery_id: str, index: int | str) -> str:
    """What marks the reply to one command of one delivery (`index`), or to all those it
    could not do (bot.command_answers.ERRORS), so that a re-run of the delivery (after a
    crash or `review-notes retry`) finds it instead of posting again."""
    safe = re.sub(r"[^A-Za-z0-9-]", "", delivery_id)[:64] or "none"
    return f"{REPLY_KEY_OPENING}{safe}/{index} -->"

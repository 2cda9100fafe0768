"""The invisible marks review-notes puts in what it writes (pure): how its comments are
told apart, from the intake (bot.dispatch: the bot's own events are ignored) to the
write (bot.sticky, bot.command_answers: only a comment of ours is ever edited or found
again).

Every comment review-notes writes opens with a marker: MARKER (the notes comment) or
REPLY_MARKER (a reply, which also ends with its key, `reply_key`). Text alone proves
nothing (a person may paste ours): a comment is ours only when the bot's account wrote
it too.

The notes comment also ends with a signature (`signed_text`): its text as the bot wrote
it for that PR is told from one edited since (anyone with write access may edit it).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence

MARKER = "<!-- review-notes:v1 -->"
REPLY_MARKER = "<!-- review-notes:reply -->"
REPLY_KEY_OPENING = "<!-- review-notes:reply-to "
SIGNATURE_OPENING = "<!-- review-notes:mac "
_SIGNATURE = re.compile(rf"{re.escape(SIGNATURE_OPENING)}([0-9a-f]{{32}}) -->")


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


def written_by_us(
    login: str | None,
    user_type: str | None,
    app_keys: Iterable[object],
    ours: Iterable[str],
    app_id: str | None,
) -> bool:
    """Whether the bot's account wrote a comment: its author's `login` is one of the
    bot's (`ours`; GitHub's logins ignore case), or GitHub says our App wrote it
    (`by_our_app`: a renamed App's login changed)."""
    if login and login.lower() in {x.lower() for x in ours}:
        return True
    return by_our_app(user_type, app_keys, app_id)


def by_our_app(user_type: str | None, app_keys: Iterable[object], app_id: str | None) -> bool:
    """Whether GitHub says our App wrote a comment as itself: its `performed_via_github_app`
    names the App (`app_keys`: its id and client ID) whose id or client ID GITHUB_APP_ID
    holds (`app_id`; None with a token: no App), and its author is a bot account (the
    App's `<slug>[bot]`, whatever its login since a rename). A person acting through the
    App (a user-to-server token) writes as themselves, with the App named too: theirs."""
    if not app_id or user_type != "Bot":
        return False
    return app_id in {str(k) for k in app_keys if k is not None}


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


def comment_key(secret: str) -> bytes:
    """The key that signs the notes comment, derived from the webhook secret: one secret
    to keep, and no signature made for one use is valid for the other."""
    return hmac.new(secret.encode("utf-8"), b"review-notes notes comment", hashlib.sha256).digest()


def signed_text(body: str, key: bytes, repo: str, number: int, repo_id: int | None = None) -> str:
    """The notes comment as written on a PR: `body`, then an invisible line that signs it
    for that PR (its repository and number, so a text copied from another PR's does not
    verify): the repository's id (`repo_id`), which a rename or a transfer keeps, else its
    name. It goes last: a release before signatures (a rollback) still finds MARKER
    first, and reads the notes the same."""
    text = _as_kept(body)
    pr = _pr_signed(repo if repo_id is None else repo_id, number)
    return f"{text}\n\n{SIGNATURE_OPENING}{_mac(text, key, pr)} -->\n"


def verified_text(
    body: str, keys: Sequence[bytes], repo: str, number: int, repo_id: int | None = None
) -> str | None:
    """The notes comment's text without its signature, when one of `keys` signed it for
    this PR: by its repository's id (`repo_id`, when known), or by its name (as comments
    were signed before ids, or with no id known); None when not: not signed (written
    before signatures were kept, or the line taken out), edited since, or signed for
    another PR or with another key (a webhook secret changed since, and not kept).
    Compared in constant time."""
    text, _, last = _as_kept(body).rpartition("\n")
    signature = _SIGNATURE.fullmatch(last.strip())
    if signature is None:
        return None
    text = _as_kept(text)
    prs = [_pr_signed(repo, number)]
    if repo_id is not None:
        prs.insert(0, _pr_signed(repo_id, number))
    if not any(hmac.compare_digest(signature[1], _mac(text, k, pr)) for k in keys for pr in prs):
        return None
    return text + "\n"


def _pr_signed(repo: str | int, number: int) -> str:
    """The PR as a signature names it: `repository <id>#N`, or `owner/name#N` (lower
    case: GitHub's names ignore case). A name holds a '/', so no id reads as one."""
    return f"repository {repo}#{number}" if isinstance(repo, int) else f"{repo.lower()}#{number}"


def _as_kept(body: str) -> str:
    """A text as GitHub may give it back: line ends as CRLF, trailing blanks dropped."""
    return body.replace("\r\n", "\n").rstrip()


def _mac(text: str, key: bytes, pr: str) -> str:
    """128 bits of HMAC-SHA256 (32 hex digits): enough against guesses each of which
    takes an edit of the comment and a `/notes wrong`."""
    return hmac.new(key, f"{pr}\n{text}".encode(), hashlib.sha256).hexdigest()[:32]

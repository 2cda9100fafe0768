"""A reply to a command posted twice, its second copy deleted: the reply's create whose
answer was lost (a 5xx, a dropped connection) is looked for in the PR's comment list
before it is posted again, and a list lagging behind the write past the second look
(`REVIEW_NOTES_LOST_CREATE_WAIT`) lets it be posted again: the same answer shown twice,
for good (a notes comment posted twice is tidied at the PR's next update).

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), after a reply's
write: it must never delete a comment the bot did not write, nor the copy readers saw
first. When a check is queued: `after_posted_again`; what it deletes: `handle_check`.
"""

from __future__ import annotations

from bot.context import BotContext
from bot.dispatch import Dispatcher, Route
from bot.github_port import PRRef, own_payload, ref_from_payload
from bot.queue import Delivery, own_delivery

CHECK_ACTION = "review_notes_reply_copies"  # not GitHub's: a reply's copies looked for
_KEY = "review_notes_reply_key"  # the reply's key (bot.markers.reply_key)


def register(d: Dispatcher) -> None:
    d.add(Route("pull_request", frozenset({CHECK_ACTION}), handle_check, follows=False))


def after_posted_again(ctx: BotContext, ref: PRRef, key: str) -> None:
    """Queue a look for copies of the reply under `key`, whose create sent its POST more
    than once (a try's answer lost, the comment list lacking it): after
    REVIEW_NOTES_REPLY_COPIES_CHECK_AFTER, when the list has caught up with both. None
    without a queue (a dry run's tries never fail) or with the setting at 0."""
    delay = ctx.settings.reply_copies_check_after
    if ctx.queue is None or delay <= 0:
        return
    payload = own_payload(ref, CHECK_ACTION, ref.repo_id, {"number": ref.number})
    payload[_KEY] = key
    ctx.queue.enqueue_own(own_delivery(CHECK_ACTION, ref.repo, ref.number), payload, delay)


def handle_check(ctx: BotContext, delivery: Delivery) -> str:
    """Delete the reply's later copies, the bot's own comments ending with its key (the
    oldest, which readers saw first, is kept; `GitHubPort.delete_reply_copies`). Its
    record and the budgets it was paid from are left as they are: the reply was posted,
    and paid once; a copy deleted is no answer owed again."""
    payload = delivery.payload
    ref = ref_from_payload(payload, int(payload["pull_request"]["number"]))
    kept, deleted = ctx.github.delete_reply_copies(ref, str(payload[_KEY]))
    if kept is None:
        return "no reply of ours under its key (deleted since)"
    if not deleted:
        return f"reply {kept} posted once"
    return f"reply {kept} kept; its later copies deleted: {', '.join(map(str, deleted))}"

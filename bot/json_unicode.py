"""JSON's text made valid Unicode (pure): a lone surrogate read as U+FFFD.

JSON allows the escape `\\ud800` alone, which is no Unicode: no UTF-8 encodes it, so text
holding one fails where it is hashed, stored in SQLite or written to GitHub (which
refuses it). Read so in the two places outside text enters the bot: a webhook's stored
payload (`bot.queue`) and GitHub's API answers (`bot.github_http`).
"""

from __future__ import annotations

import re
from typing import Any

# JSON's escape of a UTF-16 surrogate (a pair's half, or one alone)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# in a str, one stands alone: json.loads joins an escaped pair into its character
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escapes_a_surrogate(text: str) -> bool:
    """Whether JSON text may read as a lone surrogate (`valid_unicode` is then needed):
    UTF-8 text holds none, only JSON's escape does."""
    return _SURROGATE_ESCAPE.search(text) is not None


def valid_unicode(payload: Any) -> Any:
    """`payload` (JSON as read: changed in place) with each lone surrogate of its
    strings replaced by U+FFFD, as a UTF-8 decoder reads a bad byte.

    A PR title, path or command holding one failed its delivery at each retry (hashing
    our comment, storing a command in SQLite). Iterative: a payload may nest 1024 deep
    (orjson), past Python's recursion limit."""
    if isinstance(payload, str):
        return _LONE_SURROGATE.sub("\ufffd", payload)
    stack = [payload]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in [k for k in node if _LONE_SURROGATE.search(k)]:
                node[_LONE_SURROGATE.sub("\ufffd", key)] = node.pop(key)
            slots: Any = node.items()
        elif isinstance(node, list):
            slots = enumerate(node)
        else:
            continue
        for slot, value in list(slots):
            if isinstance(value, str):
                if _LONE_SURROGATE.search(value):
                    node[slot] = _LONE_SURROGATE.sub("\ufffd", value)
            elif isinstance(value, (dict, list)):
                stack.append(value)
    return payload

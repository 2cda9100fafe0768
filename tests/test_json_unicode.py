"""JSON's text made valid Unicode (bot.json_unicode): where it is read, in the queue and
the GitHub client, is tested there (test_queue, test_github_client)."""

from __future__ import annotations

import json

from bot.json_unicode import escapes_a_surrogate, valid_unicode


def test_only_a_lone_surrogate_is_replaced_a_pair_and_an_escaped_backslash_kept():
    raw = '{"t": "a\\ud800b", "k\\udc00": ["\\ud83d\\ude00", "C:\\\\ud800", "\\u00e9"]}'
    assert escapes_a_surrogate(raw)
    assert valid_unicode(json.loads(raw)) == {
        "t": "a\ufffdb",
        "k\ufffd": ["\U0001f600", "C:\\ud800", "é"],
    }
    assert valid_unicode("\udc00x") == "\ufffdx"
    # UTF-8 text holds no surrogate, and an escape of another character is none
    assert not escapes_a_surrogate('{"t": "\U0001f600 \\u00e9 \\ue000 ud800"}')


def test_a_payload_nested_past_the_recursion_limit_is_made_unicode():
    deep: list = ["\udfff"]
    for _ in range(5000):
        deep = [deep]
    inner = valid_unicode({"a": deep})["a"]
    for _ in range(5000):
        inner = inner[0]
    assert inner == ["\ufffd"]

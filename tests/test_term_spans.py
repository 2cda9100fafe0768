"""Term spans: which hits of one text are mentions of their own, and which lie inside
longer ones (bot.term_spans, read by the matcher to count and quote each mention once)."""

import random
from collections.abc import Iterator

from bot.term_spans import (
    Cover,
    apart,
    blanked,
    distinct,
    holder,
    inside,
    one_per_mention,
    quoted_apart,
    within,
)
from bot.terms import TermHit

TEXT = "get_kv_connector_stats and connector stats"
LONG = (0, 22)  # get_kv_connector_stats
INNER = (7, 22)  # connector_stats, inside it
OWN = (27, 42)  # connector stats, said apart


def hit(key: str, *spans: tuple[int, int]) -> TermHit:
    return TermHit(key, TEXT[spans[0][0] : spans[0][1]], len(spans), spans)


def test_spans_on_the_cover_edges_are_within_it():
    assert within([(2, 4)], [(0, 5)])
    assert within([(0, 5)], [(0, 5)])
    assert not within([(0, 6)], [(0, 5)])
    assert within([], [(0, 5)])


def test_a_span_starting_before_every_cover_or_with_no_cover_is_not_within():
    assert not within([(0, 3)], [(1, 5)])
    assert not within([(1, 2)], [])


def test_a_span_starting_where_a_later_cover_starts_is_within_that_one():
    assert within([(5, 7)], [(0, 3), (5, 7)])


def test_a_span_inside_an_earlier_longer_cover_is_within_it_past_a_shorter_one():
    # the cover (2, 4) starts nearer, but (0, 10), which started before it, holds (3, 9)
    assert within([(3, 9)], [(0, 10), (2, 4)])


def test_every_span_must_be_within():
    assert not within([(1, 2), (6, 9)], [(0, 5)])
    assert not within([(6, 9), (1, 2)], [(0, 5)])


def test_blanked_spans_become_spaces_in_place():
    text = "get_kv_connector_stats now"
    assert blanked(text, [(7, 16)]) == "get_kv_" + " " * 9 + "_stats now"
    assert blanked(text, []) == text
    assert blanked(text, [(0, 3), (3, 6)]) == " " * 6 + text[6:]


def test_overlapping_and_nested_spans_are_blanked_once():
    assert blanked("abcdefgh", [(1, 4), (2, 6)]) == "a     gh"
    assert blanked("abcdefgh", [(1, 6), (2, 4)]) == "a     gh"
    assert blanked("abcdefgh", [(1, 6), (2, 6), (7, 8)]) == "a     g "


def test_the_holder_is_the_longest_span_holding_one_and_longer_than_it():
    assert holder((2, 4), [(1, 5), (0, 10), (2, 4)]) == (0, 10)
    assert holder((2, 4), [(1, 5), (2, 10)]) == (2, 10)  # the longer, not the first
    assert holder((2, 4), [(2, 6)]) == (2, 6)  # same start
    assert holder((2, 4), [(0, 4)]) == (0, 4)  # same end


def test_a_span_of_the_same_length_or_not_holding_it_is_no_holder():
    assert holder((2, 4), [(2, 4)]) is None
    assert holder((2, 4), [(3, 10), (0, 3)]) is None
    assert holder((2, 4), []) is None


def test_the_first_of_equally_long_holders_is_the_holder():
    assert holder((3, 4), [(2, 5), (3, 6)]) == (2, 5)
    assert holder((3, 4), [(3, 6), (2, 5)]) == (2, 5)  # first in the text, not the list


def test_one_per_mention_drops_a_key_every_mention_of_which_is_inside_a_longer_one():
    hits = {
        "connector stats": hit("connector stats", INNER),
        "get_kv_connector_stats": hit("get_kv_connector_stats", LONG),
    }
    keys = ["connector stats", "get_kv_connector_stats", "not found"]
    assert one_per_mention(keys, hits) == ["get_kv_connector_stats"]


def test_one_per_mention_keeps_a_key_said_once_apart_in_the_keys_order():
    hits = {
        "connector stats": hit("connector stats", INNER, OWN),
        "get_kv_connector_stats": hit("get_kv_connector_stats", LONG),
    }
    keys = ["connector stats", "get_kv_connector_stats"]
    assert one_per_mention(keys, hits) == keys


def test_apart_quotes_a_hit_at_its_first_mention_outside_the_cover():
    both = hit("connector stats", INNER, OWN)
    said = apart(both, [LONG], TEXT)
    assert said == TermHit("connector stats", "connector stats", 1, (OWN,))
    assert TEXT[OWN[0] : OWN[1]] == "connector stats"


def test_apart_leaves_a_hit_outside_the_cover_as_it_is_and_none_inside():
    both = hit("connector stats", INNER, OWN)
    assert apart(both, [], TEXT) is both
    assert apart(both, [(100, 200)], TEXT) is both
    assert apart(hit("connector stats", INNER), [LONG], TEXT) is None


def test_apart_keeps_the_mentions_it_is_told_to_keep():
    both = hit("connector stats", INNER, OWN)
    assert apart(both, [LONG, OWN], TEXT, keep=[OWN]) == TermHit(
        "connector stats", "connector stats", 1, (OWN,)
    )
    assert apart(both, [LONG], TEXT, keep=[INNER]) is both


def test_quoted_apart_quotes_each_key_where_it_is_said_apart_from_the_others():
    hits = {
        "connector stats": hit("connector stats", INNER, OWN),
        "get_kv_connector_stats": hit("get_kv_connector_stats", LONG),
    }
    quoted = quoted_apart(list(hits), hits, TEXT)
    assert quoted["connector stats"] == TermHit("connector stats", "connector stats", 1, (OWN,))
    assert quoted["get_kv_connector_stats"] is hits["get_kv_connector_stats"]


def test_quoted_apart_keeps_a_hit_said_nowhere_apart_as_it_is():
    hits = {
        "connector stats": hit("connector stats", INNER),
        "get_kv_connector_stats": hit("get_kv_connector_stats", LONG),
    }
    assert quoted_apart(list(hits), hits, TEXT) == hits


def test_distinct_keeps_the_longest_spelling_of_one_mention():
    text = "capture sizes"
    size = TermHit("capture size", "capture size", 1, ((0, 12),))
    sizes = TermHit("capture sizes", text, 1, ((0, 13),))
    assert distinct([size, sizes]) == [sizes]
    assert distinct([sizes, size]) == [sizes]
    other = TermHit("cuda graph", "cuda graph", 1, ((20, 30),))
    assert distinct([size, other, sizes]) == [other, sizes]


def test_inside_is_the_hits_every_mention_of_which_lies_in_the_kept_ones():
    long, inner = hit("get_kv_connector_stats", LONG), hit("connector stats", INNER)
    both = hit("connector stats", INNER, OWN)
    assert inside([long, inner, both], [long]) == [long, inner]
    assert inside([long, inner], []) == []


# kills: bot/term_spans.py:one_per_mention keys ordered by their shortest mention, not their longest
def test_a_key_is_ranked_by_its_longest_mention():
    # `kv cache` written twice, once spelled out long: the short `cache` key lies in it
    kv = TermHit("kv cache", "kv cache", 2, ((0, 3), (10, 30)))
    cache = TermHit("cache", "cache", 1, ((12, 20),))
    assert one_per_mention(["cache", "kv cache"], {"kv cache": kv, "cache": cache}) == ["kv cache"]


# kills: bot/term_spans.py:one_per_mention the cover left in the order keys were kept, not sorted
def test_a_key_between_two_kept_ones_is_its_own_mention():
    hits = {
        "a": TermHit("a", "a", 1, ((30, 50),)),
        "b": TermHit("b", "b", 1, ((0, 15),)),
        "c": TermHit("c", "c", 1, ((20, 25),)),
    }
    assert one_per_mention(["a", "b", "c"], hits) == ["a", "b", "c"]


# kills: bot/term_spans.py:apart a hit quoted at its last mention apart, not its first
def test_apart_quotes_the_first_of_several_mentions_as_written():
    text = "get_kv_connector_stats, Connector stats and connector stats"
    hit = TermHit("connector stats", "connector_stats", 3, ((7, 22), (24, 39), (44, 59)))
    said = apart(hit, [LONG], text)
    assert said == TermHit("connector stats", "Connector stats", 2, ((24, 39), (44, 59)))


# --- a description that says one term thousands of times ------------------------------


def random_probes(seed: int) -> Iterator[tuple[Cover, list[tuple[int, int]], tuple[int, int]]]:
    """300 random sets of 8 short spans, each as a Cover and as a list, with every span
    (start, end) up to 8 long that starts before or just past them, for an oracle to check."""
    rng = random.Random(seed)
    for _ in range(300):
        spans = [(a, a + rng.randint(0, 6)) for a in (rng.randint(0, 20) for _ in range(8))]
        cover = Cover(spans)
        for start in range(22):
            for end in range(start, start + 8):
                yield cover, spans, (start, end)


def test_holds_longer_answers_as_holder_does():
    for cover, spans, span in random_probes(5):
        assert cover.holds_longer(span) == (holder(span, spans) is not None)


def test_holds_answers_as_a_scan_of_every_span_does():
    for cover, spans, (start, end) in random_probes(6):
        assert cover.holds((start, end)) == any(a <= start and end <= b for a, b in spans)


def test_wider_mentions_cost_linear_work_in_the_mentions(monkeypatch):
    # 64 KB of "elastic EP " (GitHub's most) took 2 s of CPU per event, 1 MB minutes: each
    # mention of `EP` was held against every mention of `elastic EP`, one by one
    import bot.said_once as said_once
    from bot.library import load_library
    from bot.match_config import load_match_config
    from bot.matching import CompiledMatcher
    from bot.prfacts import facts_from_record

    scanned: list[int] = []

    def counting(span, spans):
        scanned.append(len(spans))
        return holder(span, spans)

    monkeypatch.setattr(said_once, "holder", counting)
    matcher = CompiledMatcher(load_library(), load_match_config())
    title = "[ROCm] Fix elastic EP scaling deadlock"
    work = []
    for times in (500, 2000):
        scanned.clear()
        record = {"number": 1, "title": title, "body": "elastic EP " * times, "files": []}
        matcher.match(facts_from_record(record))
        work.append(sum(scanned))
    assert work[1] <= 5 * work[0], work  # 4x the mentions: about 4x the work, not 16x


class _CountedCover(list):
    """A cover that counts the spans read from it."""

    reads = 0

    def __iter__(self):
        for span in super().__iter__():
            self.reads += 1
            yield span


def test_apart_reads_the_cover_once_not_once_per_mention():
    # 64 KB of "global PTX " (the note's `global PTX` around its `PTX`, said apart once)
    # took 15 s of CPU per event: each mention was looked up in the cover sorted anew
    text = "PTX " + "global PTX " * 2000
    cover = _CountedCover((4 + 11 * i, 14 + 11 * i) for i in range(2000))
    ptx = TermHit("PTX", "PTX", 2001, ((0, 3), *((11 + 11 * i, 14 + 11 * i) for i in range(2000))))
    assert apart(ptx, cover, text) == TermHit("PTX", "PTX", 1, ((0, 3),))
    assert cover.reads <= 2 * len(cover), cover.reads

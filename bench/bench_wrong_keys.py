"""Whether `/notes wrong` spellings keyed alike are answered alike, and the reverse; prints figures.

    python bench/bench_wrong_keys.py [--count N] [--seed S ...] [--show N]

An edited command keyed as the command it replaces (`Command.key`) is not run again: two
spellings keyed alike must mean the same. This generates `wrong` spellings (a note's
number in digits, full-width, Chinese and English ordinals, brackets; its id or link;
lists; separators glued or typed apart; reasons glued or apart, quoted; stray punctuation
and emoji before and after; 40,000 drawn with a seed from some 25 million, as many with
each of several seeds, all with `--count 0`), reads each as the bot does (`parse_commands`,
then `pick_note` with one note shown and with three) and groups them by key. It prints how
many groups hold spellings answered differently, and the biggest such groups with a
spelling of each answer.

An answer is what the reviewer gets: the note hidden, or the problem (`PickProblem`) and
the number it names (its reply without the spelling it quotes back), and the reason kept.
Two figures: groups whose spellings hide different notes or get different problems (an
edit between them is not answered: the serious kind), and groups whose reasons differ
in their words, compared as read (case, full-width forms, punctuation, quotes and emoji
at a word's ends aside). That is more lenient than a key: compared as a key reads words
(marks at their end only), some 1,600 groups differ, all with one note shown and no
number read, where the reason kept is all that was typed, stray marks or a dash before it
included (`. ，. only renames`), and the key drops them: the same words to a curator.

The reverse: what reviewers said (`meaning`: with one note shown, three and nine, the note
hidden or the problem, and the reason's words as a key compares them) in spellings keyed
apart, for which an edit between two runs again. Most are lists by their numbers after
the first (`meaning` reads the first; an answer out of range quotes them all) and a note's
id or link beside its number (the key knows no ids; alike here only because that note is
shown): a `wrong` run again on the note it hid changes nothing a reviewer sees.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.commands import _unmarked, parse_commands  # noqa: E402
from bot.comment_prose import as_ascii  # noqa: E402
from bot.wrong_reading import pick_note  # noqa: E402

SHOWN = ("vllm-00000001", "vllm-00000002", "vllm-00000003")
NINE = tuple(f"vllm-0000000{n}" for n in range(1, 10))
NUMBERS = {  # a note's number, however typed: {n} is 1, 2 or 9
    "digits": "{n}",
    "full-width": "{w}",
    "hash": "#{n}",
    "full-width hash": "＃{w}",
    "point": "{n}.",
    "paren": "{n})",
    "bracketed": "({n})",
    "full-width brackets": "（{n}）",
    "square": "[{n}]",
    "tag": "【{n}】",
    "zero": "0{n}",
    "第N条": "第{n}条",
    "第 N 条": "第 {n} 条",
    "第中条": "第{z}条",
    "第N": "第{n}",
    "numeral": "{z}",
    "N号": "{n}号",
    "中号": "{z}号",
    "note N": "note {n}",
    "Note #N": "Note #{n}",
    "ordinal": "{o}",
    "the ordinal": "the {o}",
    "ordinal one": "{o} one",
    "Nth": "{t}",
    "Nth note": "{t} note",
    "id": "vllm-0000000{n}",
    "tagged id": "【vllm-0000000{n}】",
    "quoted id": "「vllm-0000000{n}」",
    "ASCII quoted id": '"vllm-0000000{n}"',
    "coded id": "`vllm-0000000{n}`",
    "link": "https://notes.example/notes/vllm-0000000{n}",
    "list": "{n},3",
    "list apart": "{n} 3",
    "list dashed": "{n}-3",
    "list 、": "{n}、3",
    "list spaced": "{n} , 3",
    "list bracketed": "({n})(3)",
    "list 第": "第{n}、3条",
    "list ranged": "{n} 3-3",
    "list mixed": "{n},二",
    "list 第 after": "{n}，第3条",
    "list in brackets": "({n},3)",
    "list ordinal": "{n} second",
    "list hashes": "#{n},#3",
    "list and": "{n} and 3",
    "list & bracketed": "({n}) & (3)",
    "list ordinals": "{t} and 3rd",
    "list ordinal words": "{o} and third",
    "list the ordinals": "the {o} and the third one",
    "list ordinals apart": "{o} third",
    "notes N": "notes {n}",
    "notes list": "notes {n},3",
    "decimal": "{n}.3",
    "N个": "{n}个",
    "第N个": "第{n}个",
    "Nth one": "the {t} one",
    "quoted": "「{n}」",
    "ASCII quoted": '"{n}"',
    "none": "",
}
SEPARATORS = [
    *("", " ", ",", "，", ", ", " , ", ":", "：", ": ", " : ", "、", ". ", ".", "。"),
    *(" - ", "- ", "-", "--", " — ", "——", "—", " – ", "－", " ～ ", "～", "!", "🙏", " 🙏 "),
    *(" :pray: ", "…", ";", "；", "）", " / "),
]
REASONS = [
    *("", "only renames", "Only renames.", "只是改名", "只是改名。", "3 files moved"),
    *("3个文件只是改名", "「只是改名」", '"only renames"', "“only renames”", "4-bit only"),
    *("2.5x faster", "second half", "first time", "#1234 fixed it", ":rocm: only", "`x` only"),
    *("(see 2)", "only renames 🙏", "ＯＮＬＹ renames", "-- only", "2 only renames"),
    *("second one fits", "3x faster", "二十分钟", "第3条也是", "3", "#3", "(3)", "三"),
    *("and 30 files changed", "and 3 are renames", "and 3rd-party deps", "and third party code"),
]
BEFORE = ["", ". ", "🙏 ", ", ", ". ，", "- ", ":-1: ", "👎 ", "。 ", "— ", "， "]
AFTER = ["", ".", "🙏", " 🙏", "。", "!", "?", "…", " :pray:", "～", " 谢谢"]
WIDE = str.maketrans("0123456789", "０１２３４５６７８９")
NUMERALS = {1: "一", 2: "二", 9: "九"}
ORDINALS = {1: "first", 2: "second", 9: "ninth"}
SUFFIXED = {1: "1st", 2: "2nd", 9: "9th"}


def spellings(count: int | None, seeds: Iterable[int] = (0,)) -> list[str]:
    """Every spelling (`count` None), or `count` of them drawn with each of `seeds` (a
    spelling two draw is read once)."""
    parts = (tuple(NUMBERS.values()), (1, 2, 9), SEPARATORS, REASONS, BEFORE, AFTER)
    total = math.prod(map(len, parts))
    combos: Iterable[tuple] = itertools.product(*parts)
    if count is not None and count < total:  # drawn by index: millions, never listed
        drawn = (i for seed in seeds for i in random.Random(seed).sample(range(total), count))
        combos = (_nth(parts, i) for i in drawn)
    typed: dict[str, None] = {}
    for shape, n, sep, reason, before, after in combos:
        wide = str(n).translate(WIDE)
        number = shape.format(n=n, w=wide, z=NUMERALS[n], o=ORDINALS[n], t=SUFFIXED[n])
        typed.setdefault(f"{before}{number}{sep if reason else ''}{reason}{after}".strip())
    return list(typed)


_ENDS = re.compile(r"^[\W_]+|[\W_]+$")  # punctuation, quotes, emoji at a word's ends


def _nth(parts: tuple[tuple, ...], index: int) -> tuple:
    """The `index`th of `itertools.product(*parts)`."""
    picked = []
    for part in reversed(parts):
        index, at = divmod(index, len(part))
        picked.append(part[at])
    return tuple(reversed(picked))


def _words(reason: str) -> tuple[str, ...]:
    """The reason's words as read: case, full-width forms and what ends them aside."""
    read = (_ENDS.sub("", as_ascii(w)).casefold() for w in reason.split(" "))
    return tuple(w for w in read if w)


def answer(args: tuple[str, ...]) -> tuple[tuple[object, ...], tuple[object, ...]]:
    """What the reviewer gets with one note shown and with three: the notes hidden or the
    problems, then the reasons."""
    done, reasons = [], []
    for shown in (SHOWN[:1], SHOWN):
        pick = pick_note(args, shown)
        done.append(("hides", pick.rank) if pick.note_id else (str(pick.problem), pick.rank))
        reasons.append(_words(pick.reason))
    return tuple(done), tuple(reasons)


def meaning(args: tuple[str, ...]) -> tuple[object, ...]:
    """What the reviewer said, as far as the bot can tell: with one note shown, three and
    nine (`9 only renames` gives note 9 its reason), the note hidden or the problem, and the
    reason's words as a key compares words (`_key_words`)."""
    said = []
    for shown in (SHOWN[:1], SHOWN, NINE):
        pick = pick_note(args, shown)
        did = ("hides", pick.rank) if pick.note_id else (str(pick.problem), pick.rank)
        said.append((did, _key_words(pick.reason)))
    return tuple(said)


def _key_words(reason: str) -> tuple[str, ...]:
    """The reason's words as `Command.key` compares them: case, full-width forms and the
    marks a word ends in aside (not those it starts with: `(3)` is no `3`)."""
    read = (as_ascii(_unmarked(w)).casefold() for w in reason.split(" "))
    return tuple(w for w in read if w)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=40_000, help="spellings drawn a seed (0: all)")
    ap.add_argument("--seed", type=int, nargs="+", default=[0], help="one draw each")
    ap.add_argument("--show", type=int, default=12, help="groups to print")
    args = ap.parse_args()
    done: Groups = defaultdict(lambda: defaultdict(list))
    said: Groups = defaultdict(lambda: defaultdict(list))
    keys: Groups = defaultdict(lambda: defaultdict(list))  # the reverse: answer -> key
    typed = spellings(args.count or None, args.seed)
    for text in typed:
        found = parse_commands(f"/notes wrong {text}")
        if not found:
            continue
        key = found[0].key
        did, reasons = answer(found[0].args)
        done[key][did].append(text)
        said[key][(did, reasons)].append(text)
        keys[meaning(found[0].args)][key].append(text)
    drawn = f"drawn with seeds {' '.join(map(str, args.seed))}" if args.count else "all"
    print(f"wrong spellings: {len(typed):,} ({drawn}); keys: {len(done):,}")
    show("hide different notes or get different problems", done, args.show)
    show("differ in the reason's words only", said, args.show, past=done)
    show_apart(keys, args.show)


Groups = defaultdict[tuple, defaultdict[tuple, list[str]]]


def show(what: str, groups: Groups, most: int, past: Groups | None = None) -> None:
    """How many groups of one key have more than one answer; the biggest, with examples.
    `past`: groups counted already (by a coarser answer), left out."""
    split = {k: v for k, v in groups.items() if len(v) > 1 and (past is None or len(past[k]) == 1)}
    print(f"keyed alike, answered differently: {len(split):,} groups {what}")
    biggest = sorted(split.items(), key=lambda kv: -sum(map(len, kv[1].values())))
    for key, answers in biggest[:most]:
        print(f"  key {key[1]!r}:")
        for got, texts in sorted(answers.items(), key=lambda kv: -len(kv[1]))[:4]:
            print(f"    {len(texts):5d} like {texts[0]!r}: {got}")


def show_apart(keys: Groups, most: int) -> None:
    """The reverse: what reviewers said (`meaning`) in spellings keyed apart; an edit
    between two of them runs the `wrong` again, for a second identical reply. How many
    meanings, how many keys too many, and the biggest with a spelling of each key. Ids
    and links are keyed apart from numbers (the key knows no ids): `vllm-00000001` and
    `1` mean alike here only because that note is shown first."""
    apart = {got: by_key for got, by_key in keys.items() if len(by_key) > 1}
    extra = sum(len(by_key) - 1 for by_key in apart.values())
    print(f"answered alike, keyed apart: {len(apart):,} meanings, {extra:,} keys too many")
    for got, by_key in sorted(apart.items(), key=lambda kv: -len(kv[1]))[:most]:
        print(f"  answer {got}: {len(by_key):,} keys")
        for key, texts in sorted(by_key.items(), key=lambda kv: -len(kv[1]))[:4]:
            print(f"    {len(texts):5d} like {texts[0]!r}: key {key[1]!r}")


if __name__ == "__main__":
    main()

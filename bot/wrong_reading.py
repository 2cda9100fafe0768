"""Reading a `/notes wrong N [why]`: which of the comment's notes a reviewer means, and why.

A reviewer names the note as it suits them: its number as typed in English or on a Chinese
keyboard (`2`, `#2`, `２，`, `第2条`, `note 2`, `the second one`), in brackets or quotes, its
id or its link. Several numbers (`2,3`, `2和3`, `2 and later`) name no one note, and a
count after the number (`2，3个文件`, `2，1.5倍`) starts the reason. `pick_note` reads a
command's words against the notes its comment showed into a `Pick`: the note and the
reason, or the problem that names none. `as_said` gives the words as `pick_note` reads
them: the key that tells an edit's `wrong` from the one answered before
(`commands.Command.key`).

Pure. The mark a pick makes, and the notes it hides, are bot/feedback.py's;
bot/command_feedback.py runs the command.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.comment_prose import is_symbol, marks_end, opens_a_quote, run_end, without_shortcodes
from bot.full_width import FULL_WIDTH
from bot.notes import BRACKET_PAIRS, ID_PATTERN, QUOTE_PAIRS


class PickProblem(StrEnum):
    """Why a `wrong` command names no note of the comment."""

    NO_NOTES = "no notes"  # the comment shows no note (or there is no comment)
    WHICH = "which"  # several notes shown and the command does not say which
    RANGE = "range"  # a number that is not one of the comment's notes
    NOT_SHOWN = "not shown"  # a note id the comment does not show


# A Chinese input method types full-width forms (`２`, `＃`, `，`, `：`, `）`, as a command's
# word: full_width.FULL_WIDTH) and its own full stop and enumeration comma: read as the
# ASCII a note number is written with. A dash glued to the number (`2——只是改名`, `2—only`)
# sets the reason off as a colon does; ASCII's `-` does not (`2-3` may be two notes).
_HALF_WIDTH = FULL_WIDTH | str.maketrans(
    {"\u3002": ".", "\u3001": ",", "\u2013": ":", "\u2014": ":"}
)
# A note's number, and the reason a separator glues to it (Chinese puts no space after
# `，`); not another number (`2,3`, `2.5`, `2,,3`, `2、第3条`: which note is meant is not
# clear), nor a figure (`2.5x`, `1,000tok`: digits after a point, or before ASCII), while a
# count in digits with a Chinese unit starts the reason, as in numerals (`2，3个文件…`,
# `2，三个文件…`), and so does a decimal with a unit glued on (`2，1.5倍`, `2: 2.5x`:
# `_FIGURE`). The separators are possessive: giving one back would let `,3` pass for a
# reason.
_FIGURE = r"(?!\.[0-9]++[^\W\d_])"  # after a number's digits: no decimal with a unit
# What a count in digits has glued on in Chinese: a unit or a measure word (`30分钟`,
# `3个文件`, `3处`, `2行`, `8卡`), which makes the digits a quantity, the reason's first word.
# Any other word glued to a note's number, one or two digits (no comment shows more notes;
# `4090上` is a GPU's), is the reason glued on, as Chinese puts no space there: `2只是改名`
# is note 2 and `只是改名`, as `2，只是改名` is, and `2、3只是改名` two notes, as `2、3` is.
# Only the measure words reviews count with: a word not here reads as a reason, and so a
# count it starts as a second note's number (which note? nothing hidden), but as the first
# word a note's, hidden (`3例`, "3 cases", was note 3): so those a word starts are kept
# apart from it (`例如`, "for example", `成功`, `日志`, `多余`, `代码`: a reason glued on).
# Asking which note is cheap, hiding one not meant is not: a count a word here misses hides one.
_MEASURES = (
    "[个個次倍秒天周週月年卡台核步遍份批段篇字句件套列千百元度路位人]|[处處](?!理)"
    "|行(?![为為])|分[钟鐘]|小[时時]|星期|[毫微纳納]秒|[张張块塊机機轮輪种種类類组組层層]"
    "|[页頁点點万萬亿億兆帧幀条條项項号號岁歲楼樓头頭维維阶階级級期]|[节節]点|[线線进進]程"
    "|比特|左右|版|[颗顆]|片(?!面)|例(?![外如])|成(?![为為功立本员員])|日(?![志誌])"
    "|[款家]|代(?![码碼替表])|及?以[上下内內]|季度|[档檔场場]"
)
# a number said about (`10多个`, `10余个`, "10-odd"): the unit after it counts
_UNITS = rf"[多余餘](?={_MEASURES})|{_MEASURES}"
# Chinese's joins of two numbers: `和`, `及`, `与`, `跟` or `同` ("and"), `或` ("or"), `到` or
# `至` ("to"); the characters, for a class: `[、{_ZH_AND}]`
_ZH_AND = "和及与跟同或到至"
# and with the words of two, `或者` ("or"), `以及` ("and"): `2或者3`, `2以及3`
_ZH_PAIR = rf"[{_ZH_AND}]|或者|以及"
# a range, a choice or a pair of counts (`2到3倍`, "2 to 3 times", `2或3处`, `2至30分钟`,
# `2和3张卡`, "2 and 3 cards"): the first number is the count's too, no note's, as in `2-3倍`
# and `2~3个文件`. Chinese's "and" joins nouns, never clauses: the number before it shares
# the count's measure word (no "note 2, and 3 cards", as English's `and` may say). Not
# `还有`, which also says "there are still" (`2还有3处没改`: note 2 and its reason).
# A decimal counts as digits do (`2到3.5倍`, "2 to 3.5 times": `_AMOUNT`).
_AMOUNT = r"[0-9]+(?:\.[0-9]+)?"
_COUNT_RANGE = rf"(?:{_ZH_PAIR}) ?{_AMOUNT} ?(?:{_UNITS})"
# right after a note's digits: a word glued on that counts nothing (not ASCII: `2.5x`)
_GLUED_REASON = rf"(?<![0-9]{{3}})(?=[^\W\d_])(?![\x00-\x7f]|{_UNITS}|{_COUNT_RANGE})"
_NUMBER = re.compile(
    r"#*(?P<rank>[0-9]+)"
    rf"(?:(?:[.:,)]++|{_GLUED_REASON})"
    rf"(?P<rest>(?![#第]|(?<=\.)[0-9]|[0-9]++{_FIGURE}(?:[\x00-\x7f]|$)).*))?",
    re.S,
)
# A note's number as Chinese counts items: `第2条` (the 2nd item; `个`, `项` too, or no
# word for it: `第2`), `第 2 条`, `第二条`, `2号`, `二号` (number 2), or a numeral as the
# digit is written (`二`, `二，只是改名`: `_ordinal` keeps words it starts, `二十分钟`). `2条`
# is "two items", no number of a note. `(?P<c>)` / `(?P<d>)`: a counting word, which ends
# the number as a separator does (`第2条只是改名`).
_NUMERALS = "[一二三四五六七八九十]{1,3}"
_COUNTER = "[条條个個项項号號]"  # a counting word after a number: `第2条`, `2、3条`
# what `号` numbers, glued after it, other than a note: a machine, a GPU, a node (`2号机`,
# `1号卡`, `3号GPU`)
_DEVICE = "[机機卡A-Za-z]|[节節][点點]"
# In English, as the footer of a comment of several notes says it ("`/notes wrong N` if
# note N does not fit"): `note 2`, `Note #2`, `note 2: only renames` (`(?P<e>)`), and
# `notes 2` as `notes 2 and 3` starts (`notes 2,3`: a list, as `2,3`); and as
# English counts items, `2nd`, `second` (`(?P<s>)`, `(?P<w>)`: any suffix after digits,
# `2th` is no other number), with `note` or `one` after it as a counting word (`(?P<k>)`:
# `2nd note`, `second one`), and `the` before it (`(?P<the>)`: `the second one`, `the
# 2nd`). A word it starts is no number (`secondly`, `first-time`: `_ordinal` keeps them as
# typed).
_ENGLISH_ORDINALS = ("first", "second", "third", "fourth", "fifth")
_ENGLISH_ORDINAL = "|".join(_ENGLISH_ORDINALS)
_ORDINAL = re.compile(
    rf"第 ?(?P<n>[0-9\uff10-\uff19]+|{_NUMERALS})(?: ?(?P<c>{_COUNTER}))?"
    rf"|(?P<m>[0-9\uff10-\uff19]+|{_NUMERALS}) ?(?P<d>[号號])(?!{_DEVICE})|(?P<b>{_NUMERALS})"
    r"|(?i:notes?) ?[#\uff03]?(?P<e>[0-9\uff10-\uff19]+)"
    rf"|(?i:(?P<the>the )?(?:(?P<s>[0-9\uff10-\uff19]+)(?:st|nd|rd|th)|(?P<w>{_ENGLISH_ORDINAL}))"
    r"(?: (?P<k>note|one)(?![^\W\d_]))?)"
)
_CHINESE_DIGITS = {c: i for i, c in enumerate("一二三四五六七八九", 1)}
# Notes' numbers listed as Chinese enumerates items (on the words as `_ORDINAL` reads them,
# full-width digits as ASCII): `第2、3条`, `第2和第3条`, `第二、三条` (`第` before the first,
# a counting word after the last, which ends the list as it ends one number, `第2、3条只是
# 改名`: the words after it are the reason's); `第2条、第3条`, `第2条和第3条`, each counted;
# and numbers joined by `和`, `及`, `与`, `跟` or `同` ("and"), `或` ("or"), `到` or `至` ("to":
# `_ZH_AND`; either way no one note is named), which join no quantity (`2和3`, `2 和 3`,
# `2，和3`, `2和3只是改名`, `二和三`; the second counted with `第` too, `2和第3条`; numerals
# only with no word glued after them: `二和三十分钟`; digits with no unit but a counting
# word glued after the last: `_ZH_COUNT`, `2和30分钟`, two counts: `_COUNT_RANGE`).
# In English, numbers joined by `and`, `or` or `&` (`2 and 3`, `2 or 3`, `#2 & #3`, `notes 2
# and 3`, `note 2 and note 3`, `(2) and (3)`: `_BETWEEN`), ordinals too (`2nd and 3rd`, `second and
# third`, `2 and the third one`), but not a count (`_COUNTED`: `2 and 30 files
# changed` is note 2 and its reason, as `2，30分钟` is).
# A list is read as `2,3`, which names no one note (`_LISTED`), the reason after it apart.
# Bare numbers after a comma stay `_LISTED`'s (`2，30分钟…`: a count, the reason); after `、`,
# a count's too, two counts (`2、30分钟`: `_ENUMERATED_COUNTS`), but with a counting word
# glued on, as after `和`, a list with the reason after it (`2、3个文件`, `2、3条只是改名`,
# `2、3号机`, "machines 2 and 3": which note? where `3个文件` hid note 2).
# Chinese's joins (`_ZH_PAIR`), and `还有` ("and"), which joins no counts (`_COUNT_RANGE`)
_ZH_JOIN = rf"{_ZH_PAIR}|[还還]有"
_ENUM_NUMBER = rf"(?:[0-9]+|{_NUMERALS})"
# What ends a list of numbers in digits as its counting word (`2和3条`, `2、3个`), glued on:
# `_COUNTER`'s, and `点` ("point", as items are numbered: `2、3点只是改名`, "points 2 and 3
# are only renames"), not the hour's (`3点钟`): a count of points or hours would hide the
# one note shown, all of it the reason, where asking which note hides nothing
_LIST_COUNTER = f"{_COUNTER}|[点點](?![钟鐘])"
# After the last number joined by `和`, what makes it a count, as English's `_COUNTED`: a unit
# or a measure word other than a counting word (`2和30分钟`, "2 and 30 minutes": both numbers
# the count's, `_COUNT_RANGE`), spaced or not; a bare counting word ends the list (`2和3条`),
# one said about is a count's (`2和30多个文件`, "2 and 30-odd files": no note is "30-odd")
_ZH_COUNT = rf" ?(?!{_LIST_COUNTER})(?:{_UNITS})"
# After the last number joined by `and`, what makes it a count: a unit, a decimal or `%`
# glued on (`3x`, `2.5`, `30%`), or a plural noun (`30 files`, `3 PRs`: a word ending in
# `s`), English's counting word; not a verb, the list's reason's, as English's grammar tells
# it from a noun: an `-s` word a list's reason starts with, which a count is not followed by
# (`_NOT_COUNTED`: `2 and 3 is a rename`, `2 and 3 as well`), a linking verb (`_LINKING`: `2
# and 3 needs a rename`, `gets renamed`), or one with its object after it, an article
# (`_OBJECT`: `2 and 3 fixes the bug`), where a plural noun has its verb (`3 tests fail`).
# Before an article too, a noun no verb can be (`_NO_VERB`) is a count's: an acronym's
# plural (`3 PRs a day`) or `times`, `x` spelled out (`3 times the memory`, as `3x the`)
_NOT_COUNTED = ("is", "was", "has", "does", "as", "this", "thus", "plus", "seems", "looks", "fits")
# linking verbs: an `-ed` word after one ends no plural noun's clause (`_COUNTED_PAIR`)
_LINKING = ("gets", "remains", "stays", "becomes", "appears", "feels", "sounds", "needs")
_LINKING_TOO = ("wants", "goes", "turns", "grows", "proves", "ends", "comes", "keeps")
_OBJECT = r"(?! (?:a|an|the)(?![^\W\d_]))"
_GLUED_UNIT = r"[0-9%]|\.[0-9]|[^\W\d_]"  # glued on: a unit, a decimal or `%` (`3x`, `2.5`)
_ACRONYM_PLURAL = r"(?-i: [A-Za-z]*[A-Z]s)(?![^\W\d_])"  # `3 GPUs`, `3 PRs`: no verb
_NO_VERB = rf"{_ACRONYM_PLURAL}| times(?![^\W\d_])"


def _plural(but: tuple[str, ...]) -> str:
    """A plural noun's pattern: a word ending in one `s` (`files`, `PRs`, no `class`), not
    one of the words `but`."""
    return rf"(?!(?:{'|'.join(but)})(?![^\W\d_]))[A-Za-z]*[A-Ra-rT-Zt-z]s"


_PLURAL = _plural(_NOT_COUNTED + _LINKING + _LINKING_TOO)
_COUNTED = rf"(?:{_GLUED_UNIT}|{_NO_VERB}| {_PLURAL}(?![^\W\d_]){_OBJECT})"
# After `or` or `to`, which join no clause to a note's number, a count as English's
# grammar tells it from a verb, since a `-s` word after `2 or 3` may be either (`2 or 3
# needs a rename`, `2 or 3 matches`: notes 2 or 3 and their reason, no count): a unit, a
# decimal or `%` glued on (`3x`, `30%`), an acronym's plural (`3 GPUs`, `3 PRs`: no verb),
# or a plural noun a verb cannot be: before a plural verb (`3 files are…`, no `needs are`),
# or before an `-ed` word that ends the clause (`3 files changed`), which only a linking
# verb takes (`_LINKING`: `2 or 3 gets renamed` is notes 2 or 3 and their reason)
_COUNTED_PAIR = (
    rf"(?:{_GLUED_UNIT}|{_ACRONYM_PLURAL}"
    rf"| {_PLURAL} (?:(?:are|were|have)(?:n['\u2019]t)?|don['\u2019]t)(?![^\W\d_])"
    rf"| {_PLURAL} [A-Za-z]+ed(?=[.,;:!?)]|\s*$))"
)
# English's `and` may join clauses (`2 and 30 files changed`: note 2 and its reason), but
# `both` after the count says a pair of counts, as `2和3张卡都能复现` is (`2 and 3 GPUs both
# reproduce`: `3 GPUs both` is no English): a plural noun or a unit glued on before it.
# `or` and `to` before a count (`_COUNTED_PAIR`) join two counts, as `或` and `到` do (`2 or
# 3 files changed`, `2 to 3x slower`); before any other word, two notes' numbers
_EN_COUNT_PAIR = (
    r"(?i: ?(?:and|&) ?[0-9]++\S*+(?: [a-z]+s)? both(?![^\W\d_])"
    rf"| (?:or|to) [0-9]++(?={_COUNTED_PAIR}))"
)
# the same typed apart from the number (`2 到 3 倍`, `2和 3张卡`), after its digits
_COUNTED_ON = re.compile(rf" ?{_COUNT_RANGE}|{_EN_COUNT_PAIR}")
# Chinese's enumeration comma joins two counts as `和` does (`2、3张卡`, "2 or 3 cards",
# `2、30分钟`, `2、3.5倍`): a unit or a measure word, not a counting word (`_ZH_COUNT`:
# `2、3条`, `2、3个文件` are lists), after the second, spaced or not. Read on the words as
# typed: as ASCII, `、` is the comma that sets a reason off (`2，3个文件…`, `2，3.5倍`: note 2
# and its reason)
_ENUMERATED_COUNTS = re.compile(rf"#*[0-9]+ ?、 ?{_AMOUNT}{_ZH_COUNT}")
# An item of an English list: a number or an ordinal (`3rd`, `third`, `the third`). The last,
# an ordinal, is an adjective, no note's, with a word glued on (`3rd-party`, `thirdly`) or
# before a noun an ordinal qualifies (`_ADJECTIVE_OF`): `2 and 3rd party deps` is note 2
# and its reason, as `2 and 30 files` is; a counting word after it is the list's (`2nd and
# 3rd notes`, `second and third ones`)
_EN_ITEM = rf"(?:the )?(?:note ?)?#*[0-9]+(?![0-9])(?:st|nd|rd|th)?|(?:the )?(?:{_ENGLISH_ORDINAL})"
# a comma before it too: `2, and 3`; `to`, a range of notes (`2 to 3`, as `2-3`), spaced
_EN_AND = r"(?:,? ?(?:and|or|&) ?| to )"
_ADJECTIVE_OF = ("party", "parties", "time", "times", "half", "hand", "pass", "order")
_EN_ORDINAL_LAST = (
    rf"(?:the )?(?:#*[0-9]+(?:st|nd|rd|th)|{_ENGLISH_ORDINAL})(?![-A-Za-z0-9_])"
    rf"(?! (?:{'|'.join(_ADJECTIVE_OF)})(?![^\W\d_]))(?: (?:notes?|ones?)(?![^\W\d_]))?"
)
_QUALIFIED = re.compile(rf"(?i:{'|'.join(_ADJECTIVE_OF)})(?![^\W\d_])")
# After a list's last number in digits: `notes` or `ones`, the list's own counting word
# (`2 and 3 notes`, as `2nd and 3rd notes`), no count's noun; else no count (`_COUNTED`)
_EN_COUNTING_WORD = rf"(?: (?:notes|ones)(?![^\W\d_])|(?!{_COUNTED}))"
# after `or` or `to`, no count as `_COUNTED_PAIR` tells one (`2 or 3 needs a rename`)
_EN_PAIR_COUNTING_WORD = rf"(?: (?:notes|ones)(?![^\W\d_])|(?!{_COUNTED_PAIR}))"
_ENGLISH_LIST = (
    rf"(?i:(?:notes? ?)?(?:{_EN_ITEM})(?:{_EN_AND}(?:{_EN_ITEM}))*"
    rf"(?:{_EN_AND}{_EN_ORDINAL_LAST}|,? ?(?:and|&) ?(?:note ?)?#*[0-9]+{_EN_COUNTING_WORD}"
    rf"|(?:,? ?or ?| to )(?:note ?)?#*[0-9]+{_EN_PAIR_COUNTING_WORD}))"
)
_ENUMERATED = re.compile(
    rf"第 ?{_ENUM_NUMBER}"
    rf"(?: ?[、{_ZH_AND}] ?(?:第 ?)?{_ENUM_NUMBER}"
    rf"| ?[,、{_ZH_AND}] ?第 ?{_ENUM_NUMBER})+ ?{_COUNTER}"
    rf"|第 ?{_ENUM_NUMBER} ?{_COUNTER}(?: ?[,、{_ZH_AND}] ?第 ?{_ENUM_NUMBER}(?: ?{_COUNTER})?)+"
    rf"|[0-9]+(?: ?(?:[,、]? ?(?:{_ZH_JOIN}) ?(?:第 ?)?|、 ?)[0-9]+)+"
    rf"(?![0-9]|\.[0-9]|{_ZH_COUNT})(?: ?(?:{_LIST_COUNTER}))?"
    rf"|{_NUMERALS}(?: ?(?:{_ZH_JOIN}) ?{_NUMERALS})+(?: ?{_COUNTER})?(?![^\W\d_])"
    rf"|{_ENGLISH_LIST}"
)
_ENUM_NUMBERS = re.compile(rf"{_ENUM_NUMBER}|(?i:{_ENGLISH_ORDINAL})")
# What a reason about several notes starts with, which no word a numeral starts goes on
# with (`十分`, `一般`, `三方` do): `都` ("both", "all"), `也` ("too"), `只是` ("only"),
# `均`, `皆` (`2、三只是改名`, `2，三都不相关`: notes 2 and 3, as `2、3只是改名` is)
_SAID_OF_THEM = "(?=只是|[都也均皆])"
# A note's number with another after a separator (`2,3`, `2、第3条`, `#2,#3`, `2.5`), where
# `_NUMBER` ends, a plus (`2+3`) or a hyphen (`2-3`, notes 2 to 3): several notes, or which
# is meant is not clear; no reason, also with one note shown, where the number may be left
# out. The second, in digits as in Chinese numerals, only with nothing after it in the word
# but a counting word or a separator (`2,3`, `2、3条`, `二、三`, `第二、三条`), or in digits a
# reason glued on that counts nothing (`2、3只是改名`: `_GLUED_REASON`): one with a unit
# glued on is a quantity, the reason's first word (`2.5x faster`, `1.5GB`, `1.5倍`,
# `2，3个文件只是改名`, `2，1.5倍`, `二、三十分钟`)
_LISTED = re.compile(
    r"#*(?P<rank>[0-9]+)[-+.:,)]++"
    rf"(?=[#第]|(?:[0-9]++{_FIGURE}|{_NUMERALS}){_COUNTER}?(?:[.:,)]|$)"
    rf"|[0-9]++{_GLUED_REASON}|{_NUMERALS}{_SAID_OF_THEM})"
)
# What sets a reason off from the number before it (`2 — only renames`, `2 ： 只是改名`,
# `2 - - x`): dashes and colons, ASCII's only as words of their own (`--enforce-eager` is a
# flag), the full-width hyphen `－` as the ASCII one it stands for (`_DASHED` reads it so:
# `1－ 只是改名`), and commas typed apart from the number, as glued to it (`2 , only
# renames`, `2 ，只是改名`, `2 、 只是改名`, as `2，只是改名`)
_SEPARATORS = re.compile(r"(?:(?:[-\uff0d:]+(?=\s|$)|[\u2012-\u2015\uff1a,\uff0c\u3001]+)\s*)*")


@dataclass(frozen=True)
class Pick:
    note_id: str | None
    rank: int = 0  # 1-based place in the comment; for a RANGE problem, the number asked
    reason: str = ""
    problem: PickProblem | None = None
    asked: str = ""  # the selector as typed, for the answer to a problem


def pick_note(
    args: Iterable[str],
    shown: tuple[str, ...],
    known: Collection[str] = (),
    renamed: Mapping[str, str] | None = None,
    id_shape: re.Pattern[str] | None = None,
) -> Pick:
    """Which of the comment's notes (`shown`, best first) `wrong ARGS` means.

    The first word may be the note's number in the comment (`2`, `#2`, `2.`, and as a
    Chinese input method types them, `２`, `2，`; the reason may follow such a separator
    with no space, `2，只是改名`) or its id (`vllm-0436d44c`); the rest is the reason.
    With one note shown the number may be left out: every word is then the reason.
    `known`: every note id, so that naming a note the comment does not show is told
    apart from a reason; so is a word of `id_shape` (`Library.id_shape`, the importer's
    ids: a note deleted since). `renamed`: a note's former id -> its id now
    (`Library.renamed`), so the id a reviewer read still names it.
    """
    words = _without_emoji(args)
    if not shown:
        return Pick(None, problem=PickProblem.NO_NOTES)
    words = _dash_apart(_reason_quoted(_unbracketed(words)))  # first: `9「只是改名」` asks for `9`
    words, asked = _ordinal(words)  # asked: as typed, for the answer to a problem
    first = words[0] if words else ""
    typed = first.strip()
    listed, number = _first_read(words)  # `2 到 3 倍`, `2、3张卡`: none, a count's
    # a note's id in brackets or quotes names it as the id alone (`【vllm-0436d44c】`,
    # `「vllm-0436d44c」`), as `【2】` is 2 (no number starts with a bracket: `_unbracketed`
    # read those), a reason glued on after them its reason (`「vllm-0436d44c」只是改名`)
    enclosed, glued = _enclosed_id(typed)
    typed = enclosed or typed
    ascii_form = _as_ascii(typed)
    # a note's link pasted from the comment names it as its id (one naming no note is read
    # as any word: the reason, with one note shown)
    linked, run_on = _linked_id(typed)
    run_on = " ".join(w for w in (run_on, glued) if w)
    selector = linked or ascii_form.lstrip("#").rstrip(".:,)").casefold()
    now = {k.casefold(): v.casefold() for k, v in (renamed or {}).items()}
    by_id: dict[str, int] = {}
    for i, shown_id in enumerate(shown):  # by the id shown, and by the note's id now
        by_id[shown_id.casefold()] = i
        by_id.setdefault(now.get(shown_id.casefold(), shown_id.casefold()), i)
    selector = selector if selector in by_id else now.get(selector, selector)
    if (onwards := _onwards(words)) is not None:  # `2以后`, `2 and later`: as `2,3`
        if 1 <= onwards <= len(shown):
            return Pick(None, problem=PickProblem.WHICH)
        typed_number = _number_typed(asked, typed, number) if number is not None else asked
        return Pick(None, onwards, problem=PickProblem.RANGE, asked=typed_number)
    if listed is not None:  # `2,3`: as `2 3`, the first out of range is named as such
        rank = int(listed["rank"])
        if 1 <= rank <= len(shown):
            return Pick(None, problem=PickProblem.WHICH)
        return Pick(None, rank, problem=PickProblem.RANGE, asked=_list_typed(asked, typed))
    if number is not None:  # ASCII digits: `①`, `²` are digits to str, not to int
        rank = int(number["rank"])
        if not 1 <= rank <= len(shown):
            asked = _number_typed(asked, typed, number)
            return Pick(None, rank, problem=PickProblem.RANGE, asked=asked)
        glued = _glued_reason(typed, number)[1].strip()
        if not glued and _is_number(words[1:]):  # all: `第 3 条` is three words
            return Pick(None, problem=PickProblem.WHICH)  # `2, 3`, `2 3`: as `2,3`
        return Pick(shown[rank - 1], rank, _reason([glued] if glued else [], words[1:]))
    if selector in by_id:
        i = by_id[selector]
        return Pick(shown[i], i + 1, _reason([run_on] if run_on else [], words[1:]))
    id_shaped = id_shape is not None and id_shape.fullmatch(selector)
    if selector in {k.casefold() for k in known} or id_shaped:
        return Pick(None, problem=PickProblem.NOT_SHOWN, asked=enclosed or asked)  # no quotes
    if len(shown) == 1:
        return Pick(shown[0], 1, _reason(words))
    return Pick(None, problem=PickProblem.WHICH)


def _first_read(words: list[str]) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """The first of a `wrong`'s words read as notes' numbers (`_number_read`), or as none
    where it starts a count with the words after it, as glued (`2到3倍`, `2、3张卡`): two
    joined by `、` (`_counts_enumerated`: `2 、 3 张卡`), or a range, a choice or a pair typed
    apart (`_counted_on`: `2 到 3 倍`). For `pick_note` and the command's key (`as_said`)
    alike."""
    typed = words[0].strip() if words else ""
    listed, number = _number_read(typed)
    if _counts_enumerated(words) or (number is not None and _counted_on(typed, words[1:], number)):
        return None, None
    return listed, number


def _counted_on(typed: str, after: list[str], number: re.Match[str]) -> bool:
    """Whether a note's number (`number`, of `typed` as ASCII) goes on, in the words `after`
    it too, as the first of a range, a choice or a pair of counts typed apart (`2 到 3 倍`,
    `2 和 30 分钟`, `2和 3张卡`: `_COUNTED_ON`), which make it no note's, as glued."""
    said = _as_ascii(" ".join([typed, *after]))  # one character for one: `typed` first
    return _COUNTED_ON.match(said, number.end("rank")) is not None


def _counts_enumerated(words: list[str]) -> bool:
    """Whether `words` start with two counts joined by `、` (`_ENUMERATED_COUNTS`: `2、3张卡`,
    `2 、 3 张卡`, full-width digits too), which are no notes' numbers."""
    return _ENUMERATED_COUNTS.match(" ".join(words).translate(FULL_WIDTH)) is not None


# A note's link as the comment gives it (`<public url>/notes/<id>`, its `/source` page, or
# with REVIEW_NOTES_NOTE_LINKS=github the note's file, `.../seeds/notes/<id>.md?plain=1`)
_NOTE_LINK = re.compile(
    r"(?:https?://|www\.)\S*?/notes/(?:[^\s?#]*?/)??(?P<id>[^\s/?#]+?)(?:\.md)?(?:/source)?/?"
    r"(?:[?#]\S*)?",
    re.I,
)


def _enclosed_id(word: str) -> tuple[str, str]:
    """The id or link `word` holds in a pair of brackets or quotes (`_ENCLOSING`:
    `【vllm-0436d44c】`, `[vllm-0436d44c]`, `（<its link>）`, `「vllm-0436d44c」`, `"…"`, inline
    code's backticks), and the reason glued on after them (`「vllm-0436d44c」只是改名`: Chinese
    puts no space there), marks after them aside (`【vllm-0436d44c】。`, `「…」。只是改名`, as
    after a number): a writer tags or quotes the note they mean so, as `【2】` holds note 2.
    ("", "") when it holds none: a word without a digit (`(see)`, `[only]`) is a reason's,
    as `_idlike` reads it, and a number is `_unbracketed`'s (`_numbered`: one it did not
    read is no number; in quotes with other words, `「1 x」`, the reviewer's). Read, an id
    names its note: as no id, a quoted id of another note hid the one note shown, all of
    it the reason, where the id alone is answered that its note is not shown."""
    close = _ENCLOSING.get(_as_ascii(word[:1]))
    end = _as_ascii(word).find(close, 1) if close else -1
    inner = word[1:end] if end > 1 else ""
    if not inner or _numbered(inner) or not _idlike(inner):
        return "", ""  # a number in brackets `_unbracketed` did not read is no number
    return inner, word[marks_end(word, end + 1) :]


def _linked_id(word: str) -> tuple[str, str]:
    """The note id a link to a note's page or file names (`https://…/notes/vllm-0436d44c`),
    casefolded, and the reason run on from it; ("", "") when the word is no such link. A
    reviewer copies the link the comment gives a note ("full guidance") to say which one
    they mean. As GitHub's autolinker and the note's page (`pages.pasted_off`) read it,
    the link ends at its first non-ASCII character: a Chinese sentence run on from it
    (`…/notes/<id>，只是改名`, `…/notes/<id>。`) is the reason, its punctuation aside."""
    link, run_on = _run_on(word)
    found = _NOTE_LINK.fullmatch(link.rstrip(".,;:!)>").lstrip("<"))
    if found is None:
        return "", ""
    return found["id"].casefold(), run_on.lstrip(_LEADING_PUNCTUATION)


def _link_run_on(word: str) -> tuple[str, str] | None:
    """A note's link with words run on from it (`_linked_id`: `<link>，只是改名`, `<link>！x`),
    as the link and those words, as typed; None for any other word (a link alone, or one
    whose ASCII punctuation, `<link>,x`, `pick_note` reads as part of it). For the key,
    which reads `，` as `,` (`as_ascii`): the link does not, it ends before `，`."""
    link, run_on = _run_on(word)
    return (link, run_on) if run_on and _linked_id(link)[0] else None


_RUN_ON = re.compile(r"([\x00-\x7f]*)(.*)", re.S)


def _run_on(word: str) -> tuple[str, str]:
    """The word's ASCII start, and what runs on from it (`_RUN_ON`, which matches any word)."""
    found = _RUN_ON.match(word)
    assert found is not None
    return found[1], found[2]


# what sets a Chinese sentence off from the link before it: `，`, `。`, `）`, `：` …
_LEADING_PUNCTUATION = "，。、；：！？）」』】》〉"


def _number_typed(asked: str, typed: str, number: re.Match[str]) -> str:
    """The note's number as typed (`asked`), without the reason glued on (`typed`, read as
    `number`) nor what set it off: `9，只是改名` and `9🙏` ask for `9`, `第9条只是改名` for
    `第9条`. The answer names the number it cannot find, not the reviewer's words."""
    if number["rest"] is None:
        return asked
    reason = typed[number.start("rest") :]
    head = asked[: len(asked) - len(reason)] if asked.endswith(reason) else asked
    return head.rstrip(typed[number.end("rank") : number.start("rest")]) or asked


def _list_typed(asked: str, typed: str) -> str:
    """A list's numbers as typed (`asked`), without the reason glued on after them (`typed`,
    as read: `2,3，只是改名` and `(2,3)只是改名` ask for `2,3`) nor what set it off, as for one
    number (`_number_typed`); as typed when none is glued on. The key reads no word after a
    list's numbers: an edit adding one is answered by the reply given, which names them."""
    numbers = _list_numbers(typed)
    glued = numbers[1] if numbers else ""
    if not glued or not asked.endswith(glued):
        return asked
    head = asked[: len(asked) - len(glued)]
    return head[: len(_as_ascii(head).rstrip("-+.:,)"))] or asked  # one character for one


def as_said(args: Iterable[str]) -> tuple[str, ...]:
    """A `wrong`'s words as `pick_note` reads them, whichever way the number and reason were
    set apart: a number as Chinese counts items as its digits (`第2条`, `二号`: `2`), no dash
    or colon before the reason (`2 — 只是改名`: `2 只是改名`). What tells an edit's `wrong`
    from the one answered before (`commands.Command.key`). A reason in quotes is keyed
    without them (`2「只是改名」`, `2 “只是改名”`: `2 只是改名`): they mark where it starts and
    ends, no word of it, and an edit adding or dropping them asks for nothing new."""
    # read as `pick_note` reads them; with one note shown, a dash may start the reason
    words = _dash_apart(_reason_quoted(_unbracketed(_without_emoji(args))))  # `2「x」`: `2` apart
    read = _ordinal(words)[0]
    if (onwards := _onwards(read)) is not None:  # `2以后`, `2 and later`: notes from 2 on
        return (f"{onwards}+",)  # and no word after them, as after a list's numbers
    # `1 3-3`: a list, as `1,3-3` is not; `2 、 3 张卡`: two counts, no list to glue
    glued_list = read if _counts_enumerated(read) else _list_glued(read)
    typed = " ".join(glued_list)
    text = _reason([typed])
    head, *rest = text.split(" ")
    if text != typed and _selects(head):  # `, 3`, `— 3`: `pick_note` reads no number past
        # them (which note? or, with one shown, all of it the reason): not keyed as `3` is,
        # but as `-3`, whichever separators they are (their answer is the same); so an id
        return (f"-{head}", *rest)
    past = _past_separators(rest) if rest and marks_end(head, 0) == len(head) else []
    if past and _selects(past[0]):
        # `. 3`, `🙏， 3`: a word of marks alone, which the key drops (no word of the
        # command), read past by `pick_note` no more than a separator (which note?): as `, 3`;
        # so with more such words, or a separator glued to the number (`. . 3`, `. ，3`)
        return (f"-{past[0]}", *past[1:])
    listed, number = _first_read([head, *rest])  # `2 到 3 倍`: keyed as no number (`_no_number`)
    a_list = listed is not None or glued_list != read
    quoted = False  # quotes around all of it taken off: no note is read in it
    if a_list and (numbers := _list_numbers(head)) is not None:
        # a list is answered by its first number alone, whatever separates them (`1. 2`,
        # `#1-2`, `2、3`) and however they are counted (`2,二`, `第2、3条`): keyed by its
        # numbers, `1,2`, which the answer quotes, and by no word after them, glued on or
        # not (`2,3，只是改名`, `1 2 both off`): its answer, which note?, reads none
        return (numbers[0],)
    if number is not None:  # a reason glued on (`2，只是改名`) is set apart, as after a space
        glued = _glued_reason(head, number)[1]
        rest = [glued, *rest] if glued else rest
        head = str(int(number["rank"]))  # `#2`, `2)`, `02`: note 2, as pick_note reads it
    elif run_on := _link_run_on(head):  # `<link>，只是改名`: the link, then what runs on
        head = " ".join(run_on)  # one word, as typed; no typed word holds a space
    elif (enclosed := _enclosed_id(head))[0] and not enclosed[1]:
        # `【vllm-0436d44c】`: the id, as `pick_note` reads it; with a reason glued on, as
        # typed (`「vllm-0436d44c」只是改名`: with one note shown, a note not known is all the
        # reason)
        head = enclosed[0]
    elif _unquoted(text) != text:  # with one note shown, all of it the reason: `「只是改名」`
        head, rest, quoted = "", [text], True
    said = [w for w in (head, *_unquoted(_reason(rest)).split(" ")) if w]
    said = said if quoted else _reason_past_marks(said)
    if not (a_list or number):  # no number read: `「1 x」`, `. 【1】` are a reason, no note 1
        return _no_number(said, quoted)
    return tuple(said)


def _reason_past_marks(said: list[str]) -> list[str]:
    """A `wrong`'s words (`said`) with the reason after the first word the key keeps read as
    after the number (`_reason`: no dash or colon setting it off, no quotes around all of
    it) past words of marks alone (`2 ～ 「只是改名」`, `. 第9: “only renames”`, `. [1] - only`:
    as `2 「只是改名」`, `, 第9, “only renames”` and `, [1] - only` are keyed): the key drops
    those words (no word of the command), and `pick_note` answers alike with them."""
    first = next((i for i, w in enumerate(said) if marks_end(w, 0) < len(w)), len(said))
    after = said[first + 1 :]
    while after:  # words of marks alone and a reason's separators, in any order
        alone = marks_end(after[0], 0) == len(after[0])
        past = [w for w in (after[1:] if alone else _reason(after).split(" ")) if w]
        if past == after:
            break
        after = past
    reason = _unquoted(" ".join(after)).split(" ")
    return said if not after or reason == said[first + 1 :] else [*said[: first + 1], *reason]


def _no_number(said: list[str], quoted: bool) -> tuple[str, ...]:
    """A `wrong`'s words (`said`) in which `pick_note` reads no number, keyed so that none
    reads as one: the first word the key keeps (it drops words of marks alone) is keyed as
    after a separator (`-1`) when it reads as a number once the quotes around all of it are
    off (`「1 x」`, `"1 only"`) or after marks alone (`. 【1】`): which note? or, with one note
    shown, all of it the reason. So a note's id or link (`_idlike`) once quotes around more
    than it are off (`quoted`: `「vllm-0436d44c 只是改名」`) or after marks alone; bare, or in
    quotes of its own (`_enclosed_id`), it names its note."""
    first = next((i for i, w in enumerate(said) if marks_end(w, 0) < len(w)), len(said))
    if first == len(said):
        return tuple(said)
    shielded = quoted or first > 0
    if _numbered(said[first]) or (shielded and _idlike(said[first])):
        said[first] = f"-{said[first]}"
    return tuple(said)


def _list_glued(words: list[str]) -> list[str]:
    """The words with a list of notes' numbers typed apart (`1 , 2`, `1, 2`, `1 - 2`) glued
    as `1,2`, `1-2` are typed, and `1 2` as `1,2`: as `pick_note` reads them (`_is_number`),
    so an edit spacing a list out asks nothing new. A number and a reason it sets off
    (`1 - 2 both off`: note 1) stay apart."""
    while len(words) > 1 and _list_head(words[0]) and _is_number(words[1:]):
        past = _past_separators(words[1:])
        typed = " ".join(words[1:])
        between = typed[: len(typed) - len(" ".join(past))].replace(" ", "")
        glue = between or ("" if _as_ascii(words[0])[-1] in ".:,)" else ",")  # `1, 2`: `1,2`
        # the second number as `_is_number` read it: `1 second` is `1,2`, not `1,second`,
        # which reads as note 1 and a reason glued on (`1:second`)
        read = _ordinal(past, article=False)[0]
        words = [words[0] + glue + read[0], *read[1:]]
    return words


def _list_head(word: str) -> bool:
    """Whether a word is a list of numbers, or a note's number with no reason glued on, which
    `pick_note` reads a number after as a list's second (`2，只是改名 3`, `1,2：(see 2)`: the
    next word is the reason's)."""
    ascii_form = _as_ascii(word)
    listed, number = _number_read(word)
    if listed is not None:
        return _NUMBERS_ONLY.fullmatch(ascii_form) is not None
    return number is not None and not number["rest"]


_NUMBERS_ONLY = re.compile(r"[-+#0-9.:,)]+")  # a list's numbers and separators, as ASCII
# One number of a list (as ASCII: `_as_ascii`), as `_LISTED` reads its second: digits or
# numerals, `#` or `第` before them, a counting word after them, then the separators to the
# next or the word's end; not a quantity (`3个文件`, `1.5倍`, `三十分钟`: the reason's start)
_LIST_ITEM = re.compile(
    rf"(?:#*|第 ?)(?P<n>[0-9]++{_FIGURE}|{_NUMERALS})"
    rf"(?:{_COUNTER}?(?:[-+.:,)]+|$)|(?<=[0-9]){_GLUED_REASON}|(?<![0-9]){_SAID_OF_THEM})"
)


def _list_numbers(word: str) -> tuple[str, str] | None:
    """A word `_LISTED` reads as a list (`2、3`, `2,二`, `2,第3条`, `2,3，只是改名`) as its
    numbers in digits (`2,3`), and the reason glued on after them ("" if none); None when
    fewer than two numbers are read (`2,第`: as typed)."""
    ascii_form, numbers, at = _as_ascii(word), [], 0
    while at < len(word) and (item := _LIST_ITEM.match(ascii_form, at)) is not None:
        if (digits := _chinese_number(item["n"])) is None:  # `十十`: no number
            break
        numbers.append(str(int(digits)))
        at = item.end()
    return (",".join(numbers), word[at:]) if len(numbers) > 1 else None


def _unquoted(reason: str) -> str:
    """The reason without a pair of quotes around all of it (`「只是改名」`, `"only renames"`),
    nor the sentence's marks after its closing quote (`「只是改名」。`, `「只是改名」🙏`); as
    typed when they hold a part only (`「只是」改名`, `"a" or "b"`)."""
    close = QUOTE_PAIRS.get(reason[:1])  # the quotes a reason may be put in
    if close is None:
        return reason
    end = reason.rfind(close, 1)
    if end < 0 or close in reason[1:end] or marks_end(reason, end + 1) != len(reason):
        return reason
    return reason[1:end].strip()


def _without_emoji(args: Iterable[str]) -> list[str]:
    """A `wrong`'s words but an emoji or its shortcode alone, no word of the command
    (`_reason`), before the number too (`:-1: 2`, `👎 第2条`): for `pick_note` and the
    command's key (`as_said`) alike."""
    return [w for w in args if not _emoji_alone(w)]


def _number_read(typed: str) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """A word read (as ASCII) as notes' numbers: a list's start (`_LISTED`: `2,3`), else
    one note's number (`_NUMBER`, or `_QUANTITY_GLUED`'s); a list first, as `2,三` is
    `_NUMBER`'s too, `三` its reason. For `pick_note` and the command's key (`as_said`)
    alike."""
    ascii_form = _as_ascii(typed)
    listed = _LISTED.match(ascii_form)
    return listed, None if listed is not None else _number_glued(typed, ascii_form)


# A quantity in digits and an English unit (`4bit`, `4-bit`, `3x`) glued on after a
# full-width comma or colon, as a Chinese input method types them (`2，4bit only`, `2：4-bit
# only`): the reason, as `2，3个文件` and `2，1.5倍` are (`_NUMBER`). Only after those (as
# typed, `_FULL_WIDTH_GLUE`): after ASCII's comma or point the digits may be a figure's own
# (`1,000tok`, `2.4bit`, a European `2,4bit`), and `2:4` is a ratio (2:4 sparsity).
_QUANTITY_GLUED = re.compile(r"#*(?P<rank>[0-9]+)(?P<glue>[:,]+)(?P<rest>[0-9]+-?[A-Za-z].*)", re.S)
_FULL_WIDTH_GLUE = "\uff0c\uff1a"  # `，` and `：`


def _number_glued(typed: str, ascii_form: str) -> re.Match[str] | None:
    """`ascii_form` (of `typed`) read as one note's number (`_NUMBER`), or a number and a
    quantity glued on by a full-width comma or colon (`_QUANTITY_GLUED`); None if neither."""
    number = _NUMBER.fullmatch(ascii_form)
    if number is not None:
        return number
    glued = _QUANTITY_GLUED.fullmatch(ascii_form)
    as_typed = typed[glued.start("glue") : glued.end("glue")] if glued else ""
    return glued if as_typed and all(c in _FULL_WIDTH_GLUE for c in as_typed) else None


def _glued_reason(typed: str, number: re.Match[str]) -> tuple[str, str]:
    """A word read as a note's number (`number`, of `typed` as ASCII) cut into the
    number and the reason glued on to it (`2，只是改名`, `第2条只是改名`); "" if none."""
    if not number["rest"]:
        return typed, ""
    at = number.start("rest")
    return typed[:at], typed[at:]


def _reason(*parts: list[str]) -> str:
    """The reviewer's words, without the dash or colon setting them off from the number
    (`2 — only renames`: `only renames`) nor a word that is an emoji alone, or its
    shortcode (`2 🙏 只是改名`, `2 :pray: 只是改名`: `只是改名`): a gesture, no word of the
    reason, and the same on the page typed either way (the report would show a
    shortcode's markup). An emoji or shortcode glued to a word, or a name no emoji has
    (`:rocm:`), stays as typed."""
    text = " ".join(w for part in parts for w in part if not _emoji_alone(w))
    return text[run_end(_SEPARATORS, text) :]


def _emoji_alone(word: str) -> bool:
    """`🙏`, `👍🏽`, `:pray:`, `:+1:🙏`: emoji (`comment_prose.is_symbol`) or their shortcodes
    (`comment_prose.without_shortcodes`), all of it: what the page shows as emoji alone."""
    return all(c.isspace() or is_symbol(c) for c in without_shortcodes(word))


def _ordinal(words: list[str], *, article: bool = True) -> tuple[list[str], str]:
    """The words with a note's number said as Chinese counts items (`_ORDINAL`: `第2条`,
    `第 2 条`, `第二条`, `2号`) as the number, its counting word as a separator (`第2条只是
    改名`: `2.只是改名`; but `第2条以后`: `2以后`); and the number's words as typed, for the
    answer to a problem.
    `article`: whether `the second` (an ordinal after `the`) may name the note."""
    joined = " ".join(words)
    if (listed := _enumerated(joined)) and (article or not joined[:4].casefold() == "the "):
        return listed
    said = _ORDINAL.match(joined.translate(FULL_WIDTH))  # `ｎｏｔｅ ２`, `ｓｅｃｏｎｄ`: as ASCII
    number = None if said is None or (said["the"] and not article) else _number_said(said)
    if said is None or number is None:
        return words, words[0] if words else ""
    glued, *after = joined[said.end() :].split(" ")
    counted = said["c"] or said["d"] or said["k"]
    bare, next_word = not counted and not glued, after[0] if after else ""
    # `first time contributor`, `second half`: an adjective; not before another ordinal
    # (`second third`, as `2nd 3rd`: a list). Asked of a word ordinal only: it reads the
    # next word as an ordinal again, work no other number needs
    if said["w"] and bare and _english_word(next_word) and _ordinal(after[:1])[0] == after[:1]:
        return words, words[0]
    # in digits only before a noun an ordinal qualifies, as after `and` (`3rd party deps`,
    # `1st time`, `2nd half`): `2nd is a rename` names note 2
    if said["s"] and bare and _QUALIFIED.match(next_word):
        return words, words[0]
    # the counting word sets a word glued on apart as a point does, but `以后` glued after it
    # takes the number with it, as after digits (`第2条以后`, "after item 2": `2以后`)
    apart = counted and glued and not _AFTER_GLUED.match(glued)
    first = number + ("." if apart else "") + glued
    # `第一次…` ("the first time"): words; so a numeral a word is glued to (`十分不相关`,
    # `一般`, `三方`: Chinese words start so), which digits are not (`2只是改名`)
    if not _numbered(first) or (said["b"] and glued[:1].isalpha()):
        return words, words[0]
    return [first, *after], joined[: said.end()] + glued


def _enumerated(joined: str) -> tuple[list[str], str] | None:
    """`_ordinal`'s answer for words (`joined`) a list of numbers as Chinese enumerates
    them starts (`_ENUMERATED`: `第2、3条只是改名`): its numbers as `2,3`, a point before
    the reason glued on after them (`2,3.只是改名`, as `第2条只是改名` is `2.只是改名`), and
    the list's words as typed; None when they start with none."""
    said = _ENUMERATED.match(joined.translate(FULL_WIDTH))
    if said is None:
        return None
    digits = [_as_digits(n) for n in _ENUM_NUMBERS.findall(said[0])]
    if None in digits:  # `十十`: no number
        return None
    numbers = ",".join(str(int(d)) for d in digits if d is not None)
    glued, *after = joined[said.end() :].split(" ")
    return [numbers + ("." if glued else "") + glued, *after], joined[: said.end()] + glued


def _as_digits(word: str) -> str | None:
    """A number's word (a list's, `_ENUM_NUMBERS`, or one `_ORDINAL` read) in digits:
    `second` as `2`, `二` as `2`, digits as typed; None: not one (`_chinese_number`)."""
    if word.casefold() in _ENGLISH_ORDINALS:
        return str(_ENGLISH_ORDINALS.index(word.casefold()) + 1)
    return _chinese_number(word)


def _english_word(word: str) -> bool:
    """Whether a word starts as an English one does, which an ordinal before it, with
    nothing between, qualifies (`first time`); a Chinese reason after it (`second 只是改名`)
    is set off by the change of script, as after `2`."""
    start = word[:1].translate(FULL_WIDTH)  # `ｓｅｃｏｎｄ ｈａｌｆ` as `second half`
    return start.isascii() and start.isalnum()


def _number_said(said: re.Match[str]) -> str | None:
    """The digits of the number `_ORDINAL` read (`二`, `second`: `2`); None: not one."""
    return _as_digits(said["w"] or said["n"] or said["m"] or said["b"] or said["e"] or said["s"])


def _chinese_number(digits: str) -> str | None:
    """`digits` as a number's digits: as typed when they are digits (`2`, `２`), else
    Chinese's numerals up to 99 (`二`, `十二`, `二十`) in ASCII; None: not one."""
    if digits[0] not in "一二三四五六七八九十":
        return digits
    tens, ten, ones = digits.partition("十")
    if not ten:
        return str(_CHINESE_DIGITS[tens]) if len(tens) == 1 else None
    high = _CHINESE_DIGITS.get(tens) if tens else 1
    low = _CHINESE_DIGITS.get(ones) if ones else 0
    return None if high is None or low is None else str(high * 10 + low)


def _as_ascii(word: str) -> str:
    """A note's number or id as read, one character for one (the same places): full-width
    forms as ASCII, and what ends a command's word (`marks_end`: `2!`, `2～`, `2…`, an
    emoji, `2🙏只是改名`, an emoji's shortcode whole, `2:pray:`) as the separator it is, as
    after a sub-command (`/notes off～`): a point where one was typed (`2.5`, `２．５`: it may
    be a decimal's), a hyphen for a wave dash between digits (`_range_tilde`), else a comma
    (`2，3个文件`: a count, no decimal)."""
    read, at = [], 0
    while at < len(word):
        if _range_tilde(word, at):
            read.append("-")
            end = at + 1
        elif (end := marks_end(word, at)) > at:
            read.append("".join("." if c in ".\uff0e" else "," for c in word[at:end]))
        else:
            read.append(word[at].translate(_HALF_WIDTH))
            end = at + 1
        at = end
    return "".join(read)


_TILDES = "~\uff5e\u301c"  # `~`, and the wave dashes a Chinese input method types: `～`, `〜`
_DIGITS = "0123456789\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19"


def _range_tilde(word: str, at: int) -> bool:
    """Whether `word[at]` is one tilde between two digits, which writes a range as a hyphen
    does (`2~3`, `2～3`: notes 2 to 3, as `2-3` is), no comma setting a reason off:
    `2~3个文件` ("2 to 3 files") is a count, no note's, as `2-3个文件` is."""
    inside = 0 < at < len(word) - 1
    return inside and word[at] in _TILDES and word[at - 1] in _DIGITS and word[at + 1] in _DIGITS


# A note's number in brackets, as a list or a footnote numbers items (`(2)`, `[2]`, and as
# a Chinese input method types them, `（２）`, `【2】`): read as `2)`, its closing bracket a
# separator (`(2)只是改名`, `[2]: only renames`). So in quotes (`"2"`, `「2」`, `“2”`, `'2'`):
# a number alone in them is the note's, as the reviewer copied or marked it, no reason
# (quoted with other words, `"2 is a rename"`, it is the reason's). The pairs are matched on
# the word as ASCII (`_as_ascii`, one character for one: `（` is `(`).
# Several in one pair (`(2,3)`, `[1、2]`, `"2, 3"`) are a list's numbers, as `2,3` is.
# `_CLOSING`: the brackets as ASCII (bot.notes.BRACKET_PAIRS, and the tag's `【】`).
_CLOSING = {
    o.translate(FULL_WIDTH): c.translate(FULL_WIDTH)
    for o, c in (BRACKET_PAIRS | {"【": QUOTE_PAIRS["【"]}).items()
}
# What a note's number or id may be put in (`_enclosed_id`), as ASCII: those, and every quote
_ENCLOSING = _CLOSING | {
    o.translate(FULL_WIDTH): c.translate(FULL_WIDTH) for o, c in QUOTE_PAIRS.items()
}
_BRACKETED = re.compile(
    rf"(?P<open>[{re.escape(''.join(_ENCLOSING))}])(?P<number>#*[0-9]+(?:[-.:,、]+#*[0-9]+)*)"
    rf"(?P<close>[{re.escape(''.join(_ENCLOSING.values()))}])"
)
# The words one pair holds at most when read as a list's numbers typed apart (`(2, 3)`,
# `"2 , 3"`): a list of notes is short
_MOST_IN_A_PAIR = 8
# What may stand between two of them as between two numbers (`(1), (2)`, `(1)-(3)`), and
# Chinese's joins (`_ZH_JOIN`: `和`, `或者`), `and` or `&`, which join notes' numbers into a
# list (`「2」和「3」` as `2和3`, `(2) and (3)` as `2and3`: `_ENUMERATED`)
_BETWEEN = re.compile(rf"(?:[-.:,、&]|{_ZH_JOIN}|(?i:and))*")
# English's `or` and `to` as words of their own between two (`(2) or (3)`, `(2) to (3)`),
# which join notes' numbers only typed apart (`_EN_AND`: `2to3` is no list): the numbers
# are read as typed without the brackets, the words kept apart
_APART_JOIN = re.compile(r"(?i:or|to)")


def _unbracketed(words: list[str]) -> list[str]:
    """The words with the notes' numbers in brackets at their start (`_BRACKETED`) as the
    numbers: `(2)` as `2`, which names note 2 as `2` does, `(2)只是改名` as `2)只是改名` (the
    closing bracket a separator), and `(1) (2)`, `[1][2]`, `(1),(2)`, `(2,3)` as `1 2`,
    `1 2`, `1,2`, `2,3`: two numbers, as typed without the brackets. Other words in
    brackets (`(see 2)`, `(2]`) and those after a reason are as typed."""
    words = _pair_joined(words)
    read: list[str] = []
    taken = between = 0  # words read; of them, the separators since the last number
    for word in words:
        numbers, end = _numbers_unbracketed(word)
        # a list's separator typed as a word of its own between two (`(1) - (2)`)
        joins = bool(read) and _APART_JOIN.fullmatch(word) is not None  # `(2) or (3)`
        if not numbers and not (joins or (read and _BETWEEN.fullmatch(_as_ascii(word)))):
            break
        parts = (numbers + word[end:]).split(" ")
        if numbers and between and not _APART_JOIN.fullmatch(read[-1]):  # glued to both:
            # `(1) - (2) x` is `1-2 x`, a list, not note 1 with the reason `2 x` (`_is_number`)
            parts[0] = "".join(read[-between - 1 :]) + parts[0]
            del read[-between - 1 :]
        between = 0 if numbers else between + 1
        read += parts
        taken += 1
        if not joins and _BETWEEN.fullmatch(_as_ascii(word), end) is None:  # `(2)只是改名`
            break  # a reason glued on
    return read + words[taken:]


def _pair_joined(words: list[str]) -> list[str]:
    """The words with a pair of brackets or quotes the first opens, holding numbers typed
    apart (`(2, 3)`, `"2, 3"`, `「2 3」`), one word as typed glued (`(2,3)`), a comma where
    only a space stood (`"2 3"`: `"2,3"`), so that `_BRACKETED` reads the list; as typed
    when the pair holds anything else (`"2 is a rename"`) or closes in the first word."""
    close = _ENCLOSING.get(_as_ascii(words[0][:1])) if words else None
    if close is None or close in _as_ascii(words[0])[1:]:
        return words
    joined = words[0]
    for i, word in enumerate(words[1:_MOST_IN_A_PAIR], 1):
        glue = "," if joined[-1:].isdigit() and word[:1].isdigit() else ""
        joined += glue + word
        if close in _as_ascii(word):
            found = _BRACKETED.match(_as_ascii(joined))
            at = len(joined) - len(word) + _as_ascii(word).index(close) + 1
            return [joined, *words[i + 1 :]] if found and found.end() == at else words
    return words


def _numbers_unbracketed(word: str) -> tuple[str, int]:
    """The run of bracketed numbers `word` starts with, as the numbers typed apart: what
    stands between two as typed (`(1),(2)`: `1,2`), a space where nothing does (`(1)(2)`:
    `1 2`), and a closing bracket after the last where a reason is glued on (`(2)只是改名`:
    `2)只是改名`, a separator as after `2`); and where the run ends. ("", 0) when it starts
    with none."""
    ascii_form, at = _as_ascii(word), 0
    parts: list[str] = []
    for found in _BRACKETED.finditer(ascii_form):
        start = found.start()
        apart = start == at or (at > 0 and _BETWEEN.fullmatch(ascii_form, at, start))
        if not apart or _ENCLOSING[found["open"]] != found["close"]:
            break
        between = word[at:start] or " "  # `(1)(2)`: two numbers, as `1 2` is
        parts.append((between if parts else "") + word[start + 1 : found.end("number")])
        at = found.end()
    read = "".join(parts)
    # whatever follows the last is set apart by its `)`, as by the separator after `2` (a
    # dash is none: `(2)-` is `2)-`); a word of numbers alone has none (`(2,3)` is `2,3`,
    # which a reply may quote as the numbers asked); a word that joins a list is set apart
    # by a space, as typed apart (`(2)and 3`, `(2)和3`: `2 and 3`, `2 和3`)
    glue = ")" if 0 < at < len(word) else ""
    return read + (" " if glue and _JOINER.match(ascii_form, at) else glue), at


# What joins notes' numbers into a list (`_ENUMERATED`), glued after a bracketed one: `and`
# as a word of its own (`(2)android` is a reason's), `&`, Chinese's joins (`_ZH_JOIN`)
_JOINER = re.compile(rf"(?i:and)(?![^\W\d_])|&|{_ZH_JOIN}")


def _reason_quoted(words: list[str]) -> list[str]:
    """The words with a reason quoted right after the note's number (`2「只是改名」`, `2“只是
    改名”`: Chinese puts no space before an opening quote) a word of its own, as after a
    sub-command (`commands`: `/notes topic「投机解码」`). Only right after it: in a reason
    glued on (`2，只改了名（PR 后续）`) a quote is the reason's own, as typed."""
    first = words[0] if words else ""
    at = next((i for i in range(1, len(first)) if opens_a_quote(first[i])), 0)
    number = _NUMBER.fullmatch(_as_ascii(first[:at].strip())) if at else None
    if number is not None and not number["rest"]:
        return [first[:at], first[at:], *words[1:]]
    return words


# A note's number with ASCII dashes glued after it and nothing else (as ASCII: `1-`, `1--`,
# `1)-` of `(1)-`, `１－`), or one dash and a word's letter (`2-only`, `2-只是改名`; not a
# flag's two, `2--enforce-eager`, nor a number, `2-3`, nor one counted, `2-第3条`, `2-二`:
# `_LISTED`'s list): group 1, the dashes; group 2, the one
_DASHED = re.compile(r"#*[0-9]+[.:,)]*(?:(-+)$|(-)(?=[^\W\d_]))")
# ASCII digits, one dash and an English letter as typed: English's quantity (`4-bit`,
# `1-line`, `2-way`), a unit glued on as in `4bit` or `2.5x`, not a note and its reason
_QUANTITY = re.compile(r"[0-9]+-[A-Za-z]")


def _dash_apart(words: list[str]) -> list[str]:
    """The words with dashes glued after the note's number (`_DASHED`: `1- 2`, `1- only
    renames`, `2-只是改名`) a word of their own, as typed apart (`1 - 2`: a list; `1 -
    only renames`: the reason set off): a stray dash, not a flag's (`--enforce-eager`), nor
    a word with the number (`1-` is no note id), which would make the number the reason's
    first word (`2-只是改名`, `#2-only`: with one note shown, it hid note 1 with all of it).
    But not English's quantity (`_QUANTITY`: `4-bit only`, `1-line fix`), which with one
    note shown is the reason of the note the number was left out for, as `4bit only` is,
    and with more asks which note: a reviewer's `1-line fix` is no reason `line fix`."""
    ascii_form = _as_ascii(words[0]) if words else ""
    dashed = _DASHED.match(ascii_form)
    if dashed is None or (dashed[2] and _LISTED.match(ascii_form)):  # `2-第3条`: a list's
        return words
    if dashed[2] and _QUANTITY.match(words[0]):  # as typed: `２－only` is an input method's
        return words
    at = dashed.start(1) if dashed[1] else dashed.start(2)  # one for one: `１－` is `1-`
    end = dashed.end()  # the dashes' end: a word glued on after them is a word of its own
    return [
        words[0][:at],
        words[0][at:end],
        *([words[0][end:]] if words[0][end:] else []),
        *words[1:],
    ]


# A note's number and the notes after it, as Chinese says it glued on (`2以后的都不相关`, "2
# and those after are all not relevant", `2及以后`, `第2条之后`: `2之后`, `_ordinal`'s) or
# as `2+`; `_ONWARDS_WORDS`, as English says it in words after it (`2 and later`, `2
# onwards`). Several notes, which a `wrong` does not take (one note a command): which
# note? or, from a number out of range, no such note. (`2以下`, "2 or below", is a count:
# `_MEASURES`.) Glued on, `以后` takes the number before it ("after 2"), whatever follows, as
# English's `and later` is read: `2以后再说` asks too. A full stop sets it apart as a comma
# does, typed as a point too (`2.以后再说`, `2。以后再说`: `_ONWARDS_APART` reads it so)
_AFTER = "以后|之后|往后|以後|之後|后面|後面"
_AFTER_GLUED = re.compile(rf"(?:[及和]|以及)?(?:{_AFTER})")
_ONWARDS_GLUED = re.compile(rf"#*(?P<rank>[0-9]+)(?:{_AFTER_GLUED.pattern}|\+$)")
# What `_ONWARDS_APART` reads said of the notes after a number, or how many of them (`都`,
# `也`, `只是`, `不`, `是`, `无关`, `同理`, `一样`, `全`, `所有`, `几个`): `以后的` before it is
# "those after", before any other word (a noun) "later". Asking which note hides nothing;
# hiding note 2 for "2 and all those after" leaves the rest shown as if unnamed
_OF_THOSE_AFTER = "只是|[都也均皆不没沒是无無全几幾]|所有|同理|一[样樣]|[类類]似"
# Set apart from the number (`2，及以后都不相关`, `2 以后的都不相关`, `2，之后`), only as `及以后`
# ("and after"), `以后的` ("those after") before what is said of them or alone: a word of
# its own, `以后` may say "later", a time, the reason's (`2，以后再说`, "2, let's talk later",
# `2，以后的版本会修`, "later versions fix it"), as English's `after` before a noun is
# (`_ONWARDS_WORDS`)
_ONWARDS_APART = re.compile(
    rf"(?:[及和]|以及) ?(?:{_AFTER})|(?:{_AFTER})(?:的 ?(?:{_OF_THOSE_AFTER})|的?$)"
)
# (`after` or `following` before a noun, `2 and after the refactor…`, and `the rest` said
# to be fine, `2 and the rest is fine`, go on from note 2 alone: its reason)
_ONWARDS_WORDS = re.compile(
    r"(?i:,? ?and (?:later|below|beyond"
    r"|(?:after|following)(?! (?:the|a|an|this|that|these|those|it|its|my|our|your|their)\b)"
    r"|the rest(?! (?:(?:is|are|looks?|seems?)(?: all)? )?(?:fine|ok|okay|good|right|correct)\b))"
    r"|onwards?)(?![^\W\d_])"
)


def _onwards(words: list[str]) -> int | None:
    """The first of the notes `words` start with as a number and those after it
    (`_ONWARDS_GLUED`, `_ONWARDS_WORDS`, `_ONWARDS_APART`); None when they start with no
    such notes."""
    first = _as_ascii(words[0].strip()) if words else ""
    if (glued := _ONWARDS_GLUED.match(first)) is not None:
        return int(glued["rank"])
    number = _NUMBER.fullmatch(first)
    if number is None:
        return None
    said = " ".join([number["rest"], *words[1:]] if number["rest"] else words[1:])
    english = not number["rest"] and _ONWARDS_WORDS.match(said)  # `2 and later`, `2, and later`
    return int(number["rank"]) if english or _ONWARDS_APART.match(said) else None


# A plus glued to the number after it and typed apart from the one before (`2 +1`, `2 +5
# lines`): a sign, GitHub's `+1` or a diff's count, the reason's; no list (`2 + 1`, `2+1`)
_SIGNED = re.compile(r"\+[0-9]")


def _is_number(words: list[str]) -> bool:
    """Whether the first of `words`, past a list's separators (`_past_separators`: `2 , 3`),
    is a note's number (`3`, `#3`, `3，只是改名`, `3,4`). After a note's number, `the` and
    an ordinal are the reason's words (`2 the first one fits, this one does not`), no
    second number."""
    if words and _SIGNED.match(_as_ascii(words[0])):  # `2 +1`: GitHub's +1, no note 1
        return False
    past = _past_separators(words)
    read = _ordinal(past, article=False)[0]
    if not read or not _numbered(read[0]):
        return False
    # A dash or colon typed apart sets a reason off (`_reason`): one that starts with a
    # number and goes on in words is the reason (`2 — 3 tests only renamed`, `2 : 1 file
    # only`); a number alone after it, or more numbers, a list's (`1 - 2`, `1 : 2 , 3`)
    return not (_sets_off(words, past) and read[1:] and not _is_number(read[1:]))


def _sets_off(words: list[str], past: list[str]) -> bool:
    """Whether the separators `_past_separators` read before `past` hold a reason's dash or
    colon (`—`, `：` too: `_HALF_WIDTH`), not only a list's `,` or `.`."""
    typed = " ".join(words)
    return any(c in "-:" for c in typed[: len(typed) - len(" ".join(past))].translate(_HALF_WIDTH))


# A list's separators as `_LISTED` reads them after a number (as ASCII: `，`, `、`, `–`, `—`,
# `＋` too), here typed apart from it: `2 , 3`, `2 ,3`, `2 - 3`, `2 – 3`, `2 + 3` name two
# notes, as `2,3`, `2-3`, `2–3` and `2+3` do
_APART = re.compile(r"[-+.:,]*")


def _past_separators(words: list[str]) -> list[str]:
    """`words` without the list's separators they start with (`_APART`), words of their
    own or glued to the next (`, 3`, `,3`, `- 3`); none left when they are all there is."""
    for i, word in enumerate(words):
        at = run_end(_APART, _as_ascii(word))  # one character for one: `，` is `,`
        if at < len(word):
            return [word[at:], *words[i + 1 :]]
    return []


def _selects(word: str) -> bool:
    """Whether `pick_note` may read a word as the note meant, were it first: a note's number
    (`_numbered`) or, as the key knows no ids, what may be an id or a note's link (`_idlike`).
    """
    return _numbered(word) or _idlike(word)


def _idlike(word: str) -> bool:
    """Whether a word may name a note by its id (`vllm-0436d44c`, a curator's `2-bit-awq`)
    or its link, in brackets or quotes too (`_enclosed_id`: `【vllm-0436d44c】`): an id's
    shape with a digit in it (`only` may be an id, but is a reason's word far more often;
    keyed as an id, an edit between `, only` and `only`, answered alike, would be answered
    twice), or a link to a note's page or file."""
    read = _as_ascii(word.strip())
    selector = read.lstrip("#").rstrip(".:,)").casefold()
    shaped = re.match(ID_PATTERN, selector) is not None and any(c.isdigit() for c in selector)
    linked = bool(_linked_id(word.strip())[0])  # as `pick_note` reads a link
    return shaped or linked or bool(_enclosed_id(word.strip())[0])  # and one in brackets


def _numbered(word: str) -> bool:
    """Whether a word is a note's number (`_NUMBER`) or starts a list of them (`_LISTED`)."""
    listed, number = _number_read(word.strip())
    return number is not None or listed is not None

"""Slash commands end to end, in randomized scenarios: a seeded generator plays users of
different roles writing, editing and deleting comments, review bodies and diff comments
that hold commands (live ones, and ones in code, quotes or HTML that must not run), on a
PR that has its notes comment, delivered late, out of order and twice, while the fake
GitHub fails calls at random, the PR's title changes (the notes it matches, and their
numbers, with it), someone's permission changes, a maintainer deletes the notes comment
and the server restarts on its SQLite file; then checks what must hold once the queue is
drained and the failed deliveries retried (`check_invariants`).

A fixed handful of seeds runs in CI; `COMMAND_SCENARIO_SEEDS=500` (or `=1000-1500`) runs
that many more, and pytest's summary says how many passed. A failing seed prints its
steps: shrink it to a hand-written test in the `test_command_*.py` of its module.

Signed webhook -> queue -> worker -> GitHubClient -> fake GitHub (tests/command_kit.py).
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pytest

from bot import server
from bot.commands import CommandConfig, Kind, most_comment_writes, parse_commands
from bot.context import BotContext
from bot.dispatch import Dispatcher
from bot.markers import MARKER, REPLY_KEY_OPENING, REPLY_MARKER
from bot.order_keys import command_key, comment_key
from bot.prfacts import PRFacts
from tests.command_kit import (
    AUTHOR,
    N,
    comment_payload,
    diff_comment_payload,
    review_payload,
)
from tests.fake_github import DEFAULT_REPO, FakeComment, Fault, iso_time
from tests.webhook_kit import (
    BOT,
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    clean_env,
    drain,
    live_settings,
    post,
    pr_payload,
    serving,
    title_with_one_more_note,
)

# --- what may be written ------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """A block of a comment: a live command (`kind`, and `key`: what makes two lines the
    same command, as the docs say an edit compares them) or text that must not run."""

    text: str
    kind: Kind | None = None
    key: str = ""
    note: int | None = None  # `wrong N`


def _live(kind: Kind, key: str, *texts: str, note: int | None = None) -> list[Line]:
    return [Line(t, kind, key, note) for t in texts]


COMMANDS: list[Line] = [
    *_live(Kind.REFRESH, "refresh", "/notes", "/notes refresh", "/notes.", "／ｎｏｔｅｓ"),
    *_live(Kind.REFRESH, "refresh", "/notes（先刷新一下）", "/notes :pray:"),
    *_live(Kind.WHY, "why", "/notes why", "/notes why?", "/notes why（想看证据）", "/NOTES WHY"),
    *_live(
        Kind.OFF,
        "off",
        "/notes off",
        "/notes off，谢谢",
        "／ｎｏｔｅｓ　ｏｆｆ",
        "/notes off for now",
    ),
    *_live(Kind.OFF, "off", "/notes off～", "/notes off🙏"),
    *_live(Kind.ON, "on", "/notes on", "/notes on。", "/notes on please"),
    *_live(
        Kind.WRONG, "wrong 1", "/notes wrong 1", "/notes wrong 第1条", "/notes wrong 一号", note=1
    ),
    *_live(Kind.WRONG, "wrong 1 why", "/notes wrong 1 only renames @octocat see #123", note=1),
    *_live(Kind.WRONG, "wrong 2", "/notes wrong 2", "/notes wrong 第二条", note=2),
    *_live(Kind.WRONG, "wrong 9", "/notes wrong 9", "/notes wrong #9", note=9),
    *_live(Kind.RESTORE, "restore", "/notes restore", "/notes restore!"),
    *_live(Kind.HELP, "help", "/notes help"),
    *_live(
        Kind.TOPIC, "topic rocm", "/notes topic rocm", "/notes topic（rocm）", "/notes topic ROCm."
    ),
    *_live(
        Kind.TOPIC, "topic spec", "/notes topic「投机解码」", "/notes topic speculative-decoding"
    ),
    *_live(Kind.TOPIC, "topic @", "/notes topic @octocat #123"),
    *_live(Kind.SEARCH, "search eagle", "/notes search eagle", "/notes search EAGLE"),
    *_live(Kind.SEARCH, "search zh", "/notes search 前缀缓存", "/notes search「前缀缓存」"),
    *_live(
        Kind.SEARCH, "search @", "/notes search @octocat #42 github.com/vllm-project/vllm/pull/1"
    ),
    *_live(Kind.UNKNOWN, "frobnicate", "/notes frobnicate"),
    *_live(Kind.UNKNOWN, "hlep", "/notes hlep @octocat"),
]

INERT: list[str] = [
    "> /notes off",
    "`/notes off`",
    "- /notes wrong 1",
    "```\n/notes off\n```",
    "<!-- /notes restore -->",
    "    /notes off",
    "<details><summary>log</summary>\n\n/notes off\n\n</details>",
    "/notesoff",
    "/ci run",
    "please /notes off",
    "Thanks! LGTM @octocat, see #123",
]

# Who writes, and whether they may run `off`, `on`, `wrong` and `restore`.
WRITER, TRIAGER, OUTSIDER, OTHER_BOT = "maint-w", "triager", "drive-by", "helper-bot"
ROLES = {AUTHOR: None, WRITER: "write", TRIAGER: "triage", OUTSIDER: "read"}
MAY_SWITCH = {AUTHOR, WRITER}
OWNER_KINDS = {Kind.OFF, Kind.ON, Kind.WRONG, Kind.RESTORE}

# Calls a command makes, and what GitHub may do to one of them.
ROUTES = [
    ("POST", "/repos/*/issues/comments/*/reactions"),
    ("POST", "/repos/*/pulls/comments/*/reactions"),
    ("POST", f"/repos/*/issues/{N}/comments"),
    ("PATCH", "/repos/*/issues/comments/*"),
    ("GET", f"/repos/*/pulls/{N}"),
    ("GET", f"/repos/*/issues/{N}/comments"),
    ("GET", "/repos/*/collaborators/*/permission"),
]


TIMEOUT = 2.0  # the client's, for a call GitHub answers late


def _faults(rng: random.Random) -> list[Fault]:
    pick = rng.randrange(11)
    if pick in (0, 9, 10):
        return [Fault.error(502)] * 3  # past the client's tries: the delivery fails
    if pick == 1:
        return [Fault.error(502, apply=True)]  # done, but answered 502
    if pick == 2:
        return [Fault.secondary_rate_limit(retry_after=2)]  # put back
    if pick == 3:
        return [Fault.too_many_requests(retry_after=1)]  # slept
    if pick == 4:
        return [Fault.dropped(apply=rng.random() < 0.5)]
    if pick == 5:
        return [Fault.dropped()] * 3
    if pick == 6 and rng.random() < 0.3:
        return [Fault.slow(TIMEOUT + 0.3)]  # done, but answered after the client gave up
    return [Fault.error(rng.choice([500, 502, 503]))]


# --- one scenario -------------------------------------------------------------------


@dataclass
class Said:
    """One delivery the scenario sent GitHub's way: what it holds and who wrote it."""

    guid: str
    event: str
    payload: dict[str, Any]
    actor: str
    lines: list[Line]  # the commands it runs (an edit: those it added or changed)
    said: str  # its order key (command_events.said_at)
    comment: FakeComment | None = None


@dataclass
class Scenario:
    seed: int
    rng: random.Random
    client: Any
    rt: Any
    fake: Any
    head: str
    config: CommandConfig
    title: str
    said: list[Said] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    human: set[int] = field(default_factory=set)  # ids of comments not the bot's
    bodies: dict[int, list[Line]] = field(default_factory=dict)  # a comment's blocks now
    summaries: dict[str, list[str]] = field(default_factory=dict)
    clock: float = 0.0  # GitHub's time of the next thing said (epoch seconds)
    review_ids: int = 900_000_000
    failed_seen: list[tuple[str, str | None]] = field(default_factory=list)
    started: float = 0.0  # monotonic time the commands began (the writes counted since)
    settings: Any = None
    monkeypatch: Any = None
    stack: ExitStack = field(default_factory=ExitStack)  # the server running now
    restarts: int = 0  # each starts the budgets full (they are in memory)
    roles: dict[str, str | None] = field(default_factory=lambda: dict(ROLES))  # now
    flipped: set[str] = field(default_factory=set)  # logins whose permission changed
    deleted: bool = False  # a maintainer deleted the notes comment
    after_deletion: set[str] = field(default_factory=set)  # deliveries run since
    running: set[str] = field(default_factory=set)  # deliveries being run now
    pr_events: list[str] = field(default_factory=list)  # the title edits' deliveries

    def note(self, step: str) -> None:
        self.steps.append(step)

    def tick(self) -> float:
        self.clock += self.rng.choice([0, 0, 1, 2, 5])
        return self.clock


def _body(rng: random.Random, used: set[str] | None = None) -> list[Line]:
    """Up to 4 distinct commands (distinct keys: the bot runs a repeated one once) and
    some text that must not run, in random order."""
    used = set(used or ())
    lines: list[Line] = []
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
        line = rng.choice(COMMANDS)
        wrongs = line.kind is Kind.WRONG and any(k.startswith("wrong") for k in used)
        if line.key not in used and not wrongs:  # one `wrong` a comment: its summary tells
            used.add(line.key)
            lines.append(line)
    for _ in range(rng.choice([0, 0, 1, 2])):
        lines.insert(rng.randrange(len(lines) + 1), Line(rng.choice(INERT)))
    return lines


def _text(lines: list[Line]) -> str:
    return "\n\n".join(line.text for line in lines)


def _commands(lines: list[Line]) -> list[Line]:
    return [line for line in lines if line.kind is not None]


def _new_comment(s: Scenario, actor: str, *, on_diff: bool = False) -> Said | None:
    lines = _body(s.rng)
    text = _text(lines)
    when = s.tick()
    if on_diff:
        c = s.fake.add_review_comment(DEFAULT_REPO, N, text, login=actor)
    else:
        c = s.fake.add_comment(DEFAULT_REPO, N, text, login=actor, bot=actor == OTHER_BOT)
    c.created_at = c.updated_at = when
    s.human.add(c.id)
    s.bodies[c.id] = lines
    if on_diff:
        payload = diff_comment_payload(c, head_sha=s.head)
        event = "pull_request_review_comment"
    else:
        payload = comment_payload(c, title=s.title)
        event = "issue_comment"
    s.note(f"{'diff ' if on_diff else ''}comment {c.id} by {actor} at +{when - T0:.0f}s: {text!r}")
    if actor == OTHER_BOT:
        payload["sender"]["type"] = "Bot"
    return Said(
        str(uuid.uuid4()),
        event,
        payload,
        actor,
        [] if actor == OTHER_BOT else _commands(lines),
        comment_key(iso_time(when), c.id),
        c,
    )


def _edit(s: Scenario) -> Said | None:
    mine = [d for d in s.said if d.comment and d.actor != OTHER_BOT]
    if not mine:
        return None
    c = s.rng.choice(mine).comment
    assert c is not None
    on_diff = c.id not in {d.comment.id for d in s.said if d.event == "issue_comment" and d.comment}
    old = s.bodies[c.id]
    keep = [line for line in old if s.rng.random() < 0.6]
    new = keep + _body(s.rng, {line.key for line in keep if line.kind})
    if s.rng.random() < 0.3:  # retype a kept command another way: the same command
        for i, line in enumerate(new):
            same = [o for o in COMMANDS if line.kind and o.key == line.key and o != line]
            if same:
                new[i] = s.rng.choice(same)
                break
    when = max(s.tick(), c.updated_at)
    old_text, c.body, c.updated_at = _text(old), _text(new), when
    s.bodies[c.id] = new
    if on_diff:
        payload = diff_comment_payload(c, head_sha=s.head, action="edited")
        payload["changes"] = {"body": {"from": old_text}}
    else:
        payload = comment_payload(c, action="edited", old_body=old_text, title=s.title)
    actor = c.user.login
    if s.rng.random() < 0.2:  # a maintainer edits someone's comment: the edit is theirs
        actor = WRITER
        payload["sender"] = dict(payload["sender"], login=WRITER, id=s.fake.user(WRITER).id)
    before = {line.key for line in old if line.kind}
    added = [line for line in _commands(new) if line.key not in before]
    s.note(f"edit of {c.id} by {actor} at +{when - T0:.0f}s: {old_text!r} -> {c.body!r}")
    return Said(
        str(uuid.uuid4()),
        "pull_request_review_comment" if on_diff else "issue_comment",
        payload,
        actor,
        added,
        comment_key(iso_time(when), c.id),
        c,
    )


def _review(s: Scenario, actor: str) -> Said:
    lines = _body(s.rng)
    when = s.tick()
    s.review_ids += 1
    payload = review_payload(_text(lines), login=actor, head_sha=s.head)
    payload["review"] = dict(payload["review"], id=s.review_ids, submitted_at=iso_time(when))
    s.note(f"review {s.review_ids} by {actor} at +{when - T0:.0f}s: {_text(lines)!r}")
    return Said(
        str(uuid.uuid4()),
        "pull_request_review",
        payload,
        actor,
        _commands(lines),
        comment_key(iso_time(when), s.review_ids),
    )


T0 = 0.0  # the scenario's start, for the steps it prints


def _deliver(s: Scenario, d: Said, *, guid: str | None = None) -> int:
    r = post(s.client, d.event, d.payload, delivery=guid or d.guid)
    assert r.status_code in (200, 202), r.text
    return r.status_code


def play(s: Scenario, events: int) -> None:
    """Say `events` things, deliver them (late, out of order, twice), with faults."""
    rng = s.rng
    made: list[Said] = []
    for _ in range(events):
        pick = rng.random()
        actor = rng.choice([AUTHOR, AUTHOR, WRITER, TRIAGER, OUTSIDER, OTHER_BOT])
        if pick < 0.55:
            d = _new_comment(s, actor)
        elif pick < 0.72:
            d = _edit(s)
        elif pick < 0.85 and actor != OTHER_BOT:
            d = _review(s, actor)
        elif actor != OTHER_BOT:
            d = _new_comment(s, actor, on_diff=True)
        else:
            d = _new_comment(s, actor)
        if d is not None:
            made.append(d)
    # GitHub's order, then some swapped (a late delivery), some sent twice
    order = list(made)
    for i in range(len(order) - 1):
        if rng.random() < 0.25:
            order[i], order[i + 1] = order[i + 1], order[i]
    for d in order:
        if rng.random() < 0.45:
            method, path = rng.choice(ROUTES)
            faults = _faults(rng)
            s.fake.inject(method, path, *faults)
            s.note(f"fault {method} {path}: {[(f.status, f.drop, f.apply) for f in faults]}")
        if rng.random() < 0.1 and d.comment is not None and d.comment.id in s.human:
            _delete(s, d.comment)
        if rng.random() < 0.12:
            _retitle(s)
        if rng.random() < 0.06:
            _flip(s)
        if rng.random() < 0.03 and not s.deleted:
            _delete_notes_comment(s)
        if rng.random() < 0.03 and not s.restarts:
            _restart(s)
        status = _deliver(s, d)
        s.note(f"deliver {d.guid[:8]} ({d.event}, {d.actor}): {status}")
        if status == 202:
            s.said.append(d)
        if rng.random() < 0.15:  # GitHub sends it again (its redelivery keeps the GUID)
            s.note(f"again {d.guid[:8]}: {_deliver(s, d)}")
        if rng.random() < 0.5:
            drain(s.rt)
        if rng.random() < 0.1:  # the operator retries what failed so far (`retry`)
            drain(s.rt)
            s.failed_seen += [(f.id, f.last_error) for f in s.rt.queue.failed()]
            s.note(f"retry {[guid[:8] for guid in s.rt.queue.retry()]}")
        if rng.random() < 0.1 and s.said:  # a redelivery of an earlier one, after a while
            old = rng.choice(s.said)
            s.note(f"again {old.guid[:8]}: {_deliver(s, old)}")
    drain(s.rt)


# What else happens on a busy PR while its commands run.
TITLES = [MATCHING_TITLE, title_with_one_more_note(), UNRELATED_TITLE]
FLIPS = {WRITER: ("write", "read"), TRIAGER: ("triage", "write")}


def _retitle(s: Scenario) -> None:
    """The author edits the PR's title: the notes it matches change, and so do the
    numbers the notes comment gives them (a `wrong N` said before means the old ones)."""
    old = s.title
    s.title = s.rng.choice([t for t in TITLES if t != old])
    s.fake.pull(DEFAULT_REPO, N).title = s.title
    when = s.tick()
    payload = pr_payload(
        "edited",
        title=s.title,
        head_sha=s.head,
        sender=AUTHOR,
        updated_at=iso_time(when),
        changes={"title": {"from": old}},
    )
    guid = str(uuid.uuid4())
    status = post(s.client, "pull_request", payload, delivery=guid).status_code
    s.pr_events.append(guid)
    s.note(f"title at +{when - T0:.0f}s: {s.title[:40]!r} ({guid[:8]}: {status})")


def _flip(s: Scenario) -> None:
    """A maintainer changes someone's permission: their commands run before it and
    after it are judged each by the permission GitHub gives when its delivery first
    asks (a retry of it keeps that answer)."""
    login = s.rng.choice(sorted(FLIPS))
    first, second = FLIPS[login]
    now = s.roles[login] = second if s.roles[login] == first else first
    s.fake.set_permission(DEFAULT_REPO, login, now)
    s.flipped.add(login)
    s.note(f"permission of {login}: now {now}")


def _delete_notes_comment(s: Scenario) -> None:
    """A maintainer deletes the notes comment in the web UI."""
    ours = [c for c in s.fake.comments(DEFAULT_REPO, N) if c.body.startswith(MARKER)]
    for c in ours:
        _delete(s, c)
    s.deleted = True
    s.after_deletion |= s.running  # a run under way may find it gone
    s.note("the notes comment deleted")


def _serve(s: Scenario) -> None:
    """Start the server on the scenario's SQLite file (again, after a restart: the
    deliveries it resumes run before the test could tune it, so it starts tuned)."""
    s.client, s.rt = s.stack.enter_context(serving(s.settings))


def _instrument(s: Scenario) -> None:
    """Every server of the scenario: its commands config, budgets that never refill (a
    frozen clock), and each run's summary recorded."""
    s.monkeypatch.setattr(server, "load_command_config", lambda: s.config)
    s.monkeypatch.setattr(server, "BotContext", partial(BotContext, clock=lambda: 1000.0))
    dispatch = Dispatcher.dispatch

    def recorded(self, ctx, delivery):
        s.running.add(delivery.id)
        if s.deleted:
            s.after_deletion.add(delivery.id)
        try:
            summary = dispatch(self, ctx, delivery)
        finally:
            s.running.discard(delivery.id)
        s.summaries.setdefault(delivery.id, []).append(str(summary))
        return summary

    s.monkeypatch.setattr(Dispatcher, "dispatch", recorded)


def _restart(s: Scenario) -> None:
    """Stop the server, work queued or running, and start it again on the same file."""
    s.stack.close()
    s.restarts += 1
    s.note("restart")
    _serve(s)


def _delete(s: Scenario, c: FakeComment) -> None:
    """Its author deletes it in the web UI (GitHub's `deleted` event asks nothing of us)."""
    with s.fake._lock:
        if c.id in s.fake._comments:
            del s.fake._comments[c.id]
        elif c.id in s.fake._review_comments:
            del s.fake._review_comments[c.id]
    s.note(f"delete {c.id}")


def settle(s: Scenario) -> None:
    """Drain; record what failed (and why); retry it, as an operator does, until done."""
    for _ in range(8):
        drain(s.rt)
        failed = s.rt.queue.failed()
        if not failed:
            return
        s.failed_seen += [(d.id, d.last_error) for d in failed]
        s.note(f"retry {[d.id[:8] for d in failed]}")
        s.rt.queue.retry()
    raise AssertionError(f"still failing after 8 retries: {s.rt.queue.failed()}")


# --- what must hold ------------------------------------------------------------------


def _admitted(s: Scenario, d: Said) -> bool:
    """Its commands ran: its last run was neither refused by a budget nor empty."""
    last = (s.summaries.get(d.guid) or ["(never run)"])[-1]
    return not last.startswith(("not run:", "not answered:", "ignored", "(never run)"))


_LIVE_MENTION = re.compile(r"(?<![\w`\u200b])@[A-Za-z0-9]")
_BACKLINK = re.compile(r"(?<![\w&`\u200b])#\d|https?://github\.com/[^ )]*/(pull|issues)/\d")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def check_invariants(s: Scenario) -> None:
    rt, fake, state = s.rt, s.fake, s.rt.ctx.prs.get(DEFAULT_REPO, N)
    counts = rt.queue.counts()
    assert counts["pending"] == 0 and counts["processing"] == 0 and counts["failed"] == 0
    for guid, error in s.failed_seen:
        assert error, f"delivery {guid} failed with no reason"

    # the bot parses each body as the scenario wrote it: text in code, quotes or HTML not
    for d in s.said:
        created = d.payload.get("action") == "created" and d.actor != OTHER_BOT
        if d.event == "issue_comment" and created:
            body = d.payload["comment"]["body"]
            assert [c.kind for c in parse_commands(body)] == [c.kind for c in d.lines], body

    mine = [c for c in fake.comments(DEFAULT_REPO, N) if c.user.login == BOT]
    stickies = [c for c in mine if c.body.startswith(MARKER)]
    replies = [c for c in mine if c.body.startswith(REPLY_MARKER)]
    assert len(stickies) + len(replies) == len(mine)
    # README: deleted by a maintainer, it is never posted again by a PR event (a command
    # run since may post it anew: `/notes`, `on`)
    if s.deleted:
        since = [d for d in s.said if d.guid in s.after_deletion and d.lines]
        assert len(stickies) <= (1 if since else 0), [d.guid for d in since]
    else:
        assert len(stickies) == 1

    # each command answered at most once: one reply per key, each key a command's
    keys = Counter(c.body.rstrip().rsplit("\n", 1)[-1] for c in replies)
    assert all(n == 1 for n in keys.values()), keys
    by_guid = {re.sub(r"[^A-Za-z0-9-]", "", d.guid)[:64]: d for d in s.said}
    for key in keys:
        assert key.startswith(REPLY_KEY_OPENING), key
        guid, index = key[len(REPLY_KEY_OPENING) :].removesuffix(" -->").split("/")
        d = by_guid[guid]
        assert d.actor != OTHER_BOT
        if index != "errors":
            assert d.lines[int(index)].kind in (Kind.TOPIC, Kind.SEARCH, Kind.HELP), key
    # budgets: the clock is frozen, nothing refills (a restart starts them full)
    lives = 1 + s.restarts
    assert len(replies) <= min(s.config.reply_burst, s.config.installation_reply_burst) * lives
    rows = [rt.queue.get(d.guid) for d in s.said]
    reruns = sum(max(0, row.attempts - 1) for row in rows if row is not None)
    writes = [  # what GitHub took (a try it failed, which the client tries again, is not)
        f"{r.method} {r.path}"
        for r in fake.requests
        if r.method in ("POST", "PATCH") and r.time > s.started and r.status in (200, 201)
    ]
    most = most_comment_writes(s.config.max_commands)
    # PR events' notes comments are paid from no budget: one write a run at most
    pr_writes = sum(row.attempts for g in s.pr_events if (row := rt.queue.get(g)) is not None)
    budget = (s.config.installation_write_burst + 1) * lives
    most_writes = budget + most * reruns + _deferred(rt) + pr_writes
    assert len(writes) <= most_writes, writes

    # no comment but the bot's edited or deleted
    for r in fake.requests:
        if r.method in ("PATCH", "DELETE") and re.search(r"/comments/\d+$", r.path):
            assert int(r.path.rsplit("/", 1)[1]) not in s.human, r.path

    # no live @mention or backlink in what the bot wrote (code shows them as typed)
    for c in mine:
        prose = _CODE.sub("", c.body)
        assert not _LIVE_MENTION.search(prose), c.body
        assert not _BACKLINK.search(prose), c.body

    # the PR's state is what the commands said last, in GitHub's order
    ran = [
        (command_key(d.said, i), line, d)
        for d in s.said
        if _admitted(s, d)
        for i, line in enumerate(d.lines)
        if line.kind not in OWNER_KINDS or _may(s, d)
    ]
    ran.sort(key=lambda t: t[0])
    switches = [line.kind for _, line, _ in ran if line.kind in (Kind.OFF, Kind.ON)]
    modes = [line.kind for _, line, _ in ran if line.kind in (Kind.REFRESH, Kind.WHY)]
    feedback = [(line, d) for _, line, d in ran if line.kind in (Kind.WRONG, Kind.RESTORE)]
    opted_out = bool(switches) and switches[-1] is Kind.OFF
    # what the comment shows: the notes, unless the `off` is said after every command
    # that asked to see them (a `/notes`, `why`, `wrong` naming a note, `restore`)
    showing = [
        line.kind
        for _, line, d in ran
        if line.kind in (Kind.REFRESH, Kind.WHY, Kind.RESTORE, Kind.OFF)
        or (line.kind is Kind.WRONG and "no such note" not in s.summaries[d.guid][-1])
    ]
    # Not told apart here: a deletion taken as an `off` when an update found it gone.
    # (A command is judged once: a re-run after its author's permission changed finishes
    # it as first judged, so `_may` reads its last run's answer.)
    unsure = s.deleted
    if unsure:
        opted_out = state.opted_out
    assert state.opted_out == opted_out, switches
    assert state.verbose == (bool(modes) and modes[-1] is Kind.WHY), modes
    if feedback and not unsure:
        line, d = feedback[-1]
        said = [f"{x.kind} {x.text!r} by {x2.actor}" for x, x2 in feedback]
        if line.kind is Kind.RESTORE:
            assert state.dismissed == (), said
        elif "no such note" not in s.summaries[d.guid][-1]:  # it named a note shown then
            assert state.dismissed != (), said
    assert state.pending is None, state.pending  # a 👍 owed, given
    body = stickies[0].body if stickies else None
    if body is None or unsure:  # what a command posted anew: not checked here
        pass
    elif opted_out:
        assert "Automatic updates are paused" in body, body
        short = showing[-1] is Kind.OFF
        assert ("Reply `/notes on` to resume them" in body) == short, (showing, body)
    else:  # the last update wrote the comment as the state now is
        assert "Automatic updates are paused" not in body, body
        hidden = "marked not relevant here and hidden" in body
        assert not hidden or state.dismissed, body
        if set(state.dismissed) & _linked(rt, s.title):  # a note matched now is hidden
            assert hidden, (state.dismissed, body)
        if state.notes:  # notes left to show
            assert ("(why mode)" in body) == state.verbose, body

    # every command that wants a reply has one, unless a reply budget refused it
    for d in s.said:
        if not _admitted(s, d) or d.actor == OTHER_BOT:
            continue
        last = s.summaries[d.guid][-1]
        guid = re.sub(r"[^A-Za-z0-9-]", "", d.guid)[:64]
        for i, line in enumerate(d.lines):
            if line.kind in (Kind.TOPIC, Kind.SEARCH, Kind.HELP):
                key = f"{REPLY_KEY_OPENING}{guid}/{i} -->"
                assert key in keys or "over the reply budget" in last, (d.guid, line, last)
        refused = [x for x in d.lines if x.kind in OWNER_KINDS and not _may(s, d)]
        if refused or any(x.kind is Kind.UNKNOWN for x in d.lines):
            key = f"{REPLY_KEY_OPENING}{guid}/errors -->"
            assert key in keys or "over the reply budget" in last, (d.guid, d.lines, last)

    # every comment whose notes comment update ran is thanked, on GitHub's comment
    for d in s.said:
        alive = d.comment is not None and (fake.comment(d.comment.id) or d.event != "issue_comment")
        asked = [
            line
            for line in d.lines
            if line.kind in (Kind.REFRESH, Kind.WHY)
            or (line.kind in (Kind.OFF, Kind.ON) and _may(s, d))
        ]
        if alive and asked and _admitted(s, d) and d.event == "issue_comment" and not s.deleted:
            assert "+1" in _reactions(fake, d.comment.id), (d.guid, d.lines)
    for c in mine:
        assert not fake.reactions(c.id), c.body
    marks = rt.ctx.feedback.marks()
    assert {m.login for m in marks} <= MAY_SWITCH | s.flipped
    # a comment keeps one numbering: each of its marks names the note it numbered
    numberings: dict[str, set[tuple[str, ...]]] = {}
    for m in marks:
        assert m.shown[m.rank - 1] == m.note_id, m
        assert any(set(m.shown) <= _linked(rt, t) for t in TITLES), m  # as a title matched
        numberings.setdefault(m.origin, set()).add(m.shown)
    assert all(len(n) == 1 for n in numberings.values()), numberings


def _may(s: Scenario, d: Said) -> bool:
    """Whether `d`'s author may run off/on/wrong/restore: as GitHub said when its
    delivery first asked (its runs after keep that answer), when their permission changed
    during the scenario."""
    if d.actor not in s.flipped:
        return d.actor in MAY_SWITCH
    return "refused" not in (s.summaries.get(d.guid) or [""])[-1]


def _linked(rt, title: str) -> set[str]:
    """The notes the matcher links to the PR with this title."""
    facts = PRFacts(DEFAULT_REPO, N, title, files=tuple(MATCHING_FILES))
    return {m.note.id for m in rt.ctx.matcher.match(facts).matches}


def _reactions(fake, comment_id: int) -> set[str]:
    return {r.content for r in fake.reactions(comment_id) if r.user.login == BOT}


def _run(seed: int, tmp_path, fake, app_key, monkeypatch, events: int = 14) -> None:
    global T0
    rng = random.Random(seed)
    clean_env(monkeypatch)
    title = rng.choice([MATCHING_TITLE, title_with_one_more_note()])  # one note, or two
    head = fake.add_pull(DEFAULT_REPO, N, files=MATCHING_FILES, title=title, author=AUTHOR).head_sha
    for login, role in ROLES.items():
        if role:
            fake.set_permission(DEFAULT_REPO, login, role)
    config = CommandConfig(
        min_update_interval_s=rng.choice([0, 0, 0.2]),
        reply_burst=rng.choice([2, 5, 5]),
        installation_reply_burst=rng.choice([3, 10, 10]),
        installation_write_burst=rng.choice([most_comment_writes(5), 24, 40, 40]),
    )
    settings = live_settings(tmp_path, fake, app_key, retry_sleep_max=1, http_timeout=TIMEOUT)
    s = Scenario(seed, rng, None, None, fake, head, config, title)
    s.settings, s.monkeypatch = settings, monkeypatch
    _instrument(s)
    with s.stack:
        _serve(s)
        opened = pr_payload(title=title, head_sha=head, sender=AUTHOR)
        assert post(s.client, "pull_request", opened).status_code == 202
        drain(s.rt)
        s.started = time.monotonic()
        T0 = s.clock = time.time() - 1800
        try:
            play(s, events)
            settle(s)
            check_invariants(s)
        except AssertionError:
            print(f"seed {seed}, {config!r}:\n  " + "\n  ".join(s.steps))
            for guid, said in s.summaries.items():
                print(f"  {guid[:8]}: {said}")
            raise


def _deferred(rt) -> int:
    """The deferred updates queued (each writes once, paid by its command)."""
    return rt.queue.db.execute("SELECT COUNT(*) FROM deliveries WHERE by_bot = 1")[0][0]


def _seeds() -> list[int]:
    more = os.environ.get("COMMAND_SCENARIO_SEEDS", "")
    if "-" in more:
        low, high = map(int, more.split("-"))
        return list(range(low, high))
    return list(range(int(more))) if more else [1, 2, 3, 4, 7, 10]


@pytest.mark.parametrize("seed", _seeds())
def test_command_scenario(seed, tmp_path, fake_github, app_key, monkeypatch):
    _run(seed, tmp_path, fake_github, app_key, monkeypatch)

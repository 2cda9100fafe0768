"""Randomized end to end: seeded scenarios of PR events, GitHub faults and people, checked
against the invariants a user relies on.

Each seed plays, against the served App (in process, its workers running) and the
loopback fake GitHub: a few PRs, each a random run of `pull_request` events (opened, a
title or description edited so that notes come and go, pushes changing the files, labels
including the opt-out one, draft and ready, closed and reopened), sent in and out of
order and some twice (a redelivery: the same X-GitHub-Delivery); GitHub faults at random
(5xx, a secondary rate limit with Retry-After, a dropped connection, an answer past the
client's timeout, each before or after the write took effect); a maintainer deleting the
bot's comment or rewriting it into their own text (GitHub's `issue_comment` `deleted` or
`edited` webhook for it sent at once, late, twice or never); the PR's author or a writer
saying `/notes off` or `/notes on` in a comment (delivered at once, late or twice); a
human posting a comment that copies the bot's marker; an outage (GitHub delivers nothing
for a few steps, then sends it all again in order, as the redelivery sweep asks); a
restart of the server. Every time is on the machine's clock, as GitHub's would be: the
PR events' `updated_at` as the comments' times and the bot's receipts, which the bot
compares (docs/commands.md dates a deletion an update finds by the event's time). Then
the queue drains, what failed is re-run as an operator's `review-notes retry --all`
would, and `check` holds the outcome to README's "What the bot does" and
docs/commands.md's `/notes off`/`on` (see its docstring).

Odd seeds mix all of it; even seeds (`mode`: "overlaps") play the notes comment's
deletions and rewrites among `/notes off`/`on` and outages densely, and end with one of
the four orders of docs/commands.md's deletion rules on each PR (`_last_word`), whose
outcome is what `check` sees: a wrong rule there fails within CI's seeds (these hand
mutants of bot/deletion_events.py, bot/comment_plan.py and bot/sticky.py each fail in
seeds 1-8: `claims_rewrite` claiming nothing, `replaced_by_kept` False, the replaced
comment's deletion not taking the new one down, `_write` remembering none replaced, a
rewrite dated when told, `deletion_ignored` without its `said_before`).

CI runs SEEDS. More: `SCENARIO_SEEDS=1-500 pytest tests/test_scenarios.py` (a count
`N` or a range `A-B`), or `python bench/bench_scenarios.py --seeds 200`, which prints how
many passed and each failing seed's first broken invariant.
"""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.feedback import hide_dismissed
from bot.github_port import PRRef
from bot.markers import MARKER
from bot.pr_events import ACTIONS as PR_ACTIONS
from bot.prfacts import PRFacts
from bot.render import PauseCause, render, render_paused
from bot.server import Runtime
from bot.sticky import notes_of_related_prs, opted_out_by_pr
from tests.command_kit import AUTHOR, INSTANT, as_rendered, comment_payload, tune
from tests.fake_github import DEFAULT_INSTALLATION_ID, DEFAULT_REPO, FakeGitHub, Fault
from tests.test_render import assert_inert
from tests.webhook_kit import (
    BOT,
    MATCHING_FILES,
    MATCHING_TITLE,
    UNRELATED_TITLE,
    drain,
    live_settings,
    post,
    pr_payload,
    serving,
    title_with_one_more_note,
)

SEEDS = range(1, 9)  # CI's; each a few seconds

# What a step may do, and how often in each way of playing a seed (`mode`): "mixed" plays
# a bit of everything; "overlaps" plays the notes comment's deletions and rewrites among
# `/notes off`/`on` and GitHub's outages densely (the orders their rules are about, rare
# in a mixed seed), on PRs that match (so that there is a comment to delete), and ends
# with one on each PR (only the outcome is checked: a later `off` would hide a wrong one).
STEPS = ["fault", "list lag", "files lag", "delete", "rewrite", "human", "redeliver"]
STEPS += ["late", "event", "tokens expire", "chatter", "prune", "switch", "outage", "overlap"]
WEIGHTS = {
    "mixed": [25, 4, 3, 12, 2, 5, 10, 8, 30, 2, 2, 2, 14, 3, 0],
    "overlaps": [8, 1, 1, 6, 4, 2, 4, 6, 10, 1, 1, 1, 12, 4, 8],
}


OVERLAPS = INSTANT.model_copy(update={"installation_write_burst": 1000})


def mode(seed: int) -> str:
    """How seed `seed` plays (WEIGHTS): every other seed plays the overlaps."""
    return "overlaps" if seed % 2 == 0 else "mixed"


def _seeds(spec: str | None) -> list[int]:
    """SCENARIO_SEEDS: `N` (seeds 1..N) or `A-B`; unset: SEEDS."""
    if not spec:
        return list(SEEDS)
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi) + 1)) if hi else list(range(1, int(lo) + 1))


# --- what a PR may say ------------------------------------------------------------

OPT_OUT = "no-review-notes"


def titles() -> list[str]:
    return [
        MATCHING_TITLE,
        title_with_one_more_note(),
        f"{MATCHING_TITLE} (cc @alice, fixes #99, GH-12)",
        UNRELATED_TITLE,
        "Fix typo in README",
    ]


BODIES = [
    "",
    None,  # GitHub's null body
    "Speeds up prefix caching for EAGLE speculative decoding. cc @alice, see #123 and "
    "https://github.com/vllm-project/vllm/pull/4242",
    "Reworks the KV cache coordinator's block hashing.",
    f"Docs only.\n\n<!-- {OPT_OUT} -->",
    f"Shown as code, no opt-out: `<!-- {OPT_OUT} -->` @bob",
    f"```\n<!-- {OPT_OUT} -->\n```\nThe EAGLE drafter's prefix cache, fenced marker.",
]
FILES = [
    MATCHING_FILES,
    ["docs/contributing.md"],
    ["vllm/v1/core/kv_cache_coordinator.py", "vllm/v1/spec_decode/eagle.py"],
    ["vllm/v1/spec_decode/eagle.py"],
    ["README.md", "docs/usage.md"],
    [f"vllm/model_executor/models/m{i}.py" for i in range(35)],  # two pages
    [("vllm/v1/core/kv_cache_coordinator.py", "vllm/v1/core/kv_cache_manager.py")],  # renamed
]
LABELS = ["speculative-decoding", "documentation", "ready", OPT_OUT, "No-Review-Notes"]

# GitHub's routes the PR path calls, and the faults it may answer them with
ROUTES = [
    ("GET", "/repos/*/pulls/*/files"),
    ("GET", "/repos/*/pulls/*"),
    ("GET", "/repos/*/issues/*/comments"),
    ("POST", "/repos/*/issues/*/comments"),
    ("PATCH", "/repos/*/issues/comments/*"),
    ("DELETE", "/repos/*/issues/comments/*"),
]
TIMEOUT = 0.5  # the client's http_timeout here: a slow answer past it is given up on


def _lags(page: list[dict]) -> list[dict]:
    """GitHub's comment list, for a while after a create, without the new comment."""
    ours = [c for c in page if c["user"]["login"] == BOT]
    return [c for c in page if not ours or c is not ours[-1]]


def _fault(rng: random.Random, *, brief: bool = False) -> Fault:
    """A fault GitHub may answer with; `brief`: none that makes the bot wait a second or
    more (a rate limit's, an answer past the timeout)."""
    kinds = ["5xx", "5xx applied", "dropped", "dropped applied"]
    if not brief:
        kinds += ["secondary", "slow", "429", "primary", "secondary, long"]
    kind = rng.choice(kinds)
    if kind == "429":
        return Fault.too_many_requests(retry_after=1)
    if kind == "primary":
        return Fault.primary_rate_limit(reset_in=1.0)
    if kind == "secondary, long":  # past retry_sleep_max: the delivery waits in the queue
        return Fault.secondary_rate_limit(retry_after=3)
    if kind.startswith("5xx"):
        return Fault.error(rng.choice([500, 502, 503]), apply=kind.endswith("applied"))
    if kind == "secondary":
        return Fault.secondary_rate_limit(retry_after=1)
    if kind.startswith("dropped"):
        return Fault.dropped(apply=kind.endswith("applied"))
    return Fault.slow(TIMEOUT + 0.3)  # applied, answered too late


# --- the PRs as GitHub has them ---------------------------------------------------

WRITER = "maint-w"  # a collaborator with write permission: may say off/on, as the author
MAINTAINER = {"login": "maintainer", "id": 77, "type": "User"}
Key = tuple[int, int]  # an order on GitHub's clock: (second, comment id; later ids later)
FIRST: Key = (0, 0)  # before anything said


@dataclass
class Switch:
    """`/notes off` or `/notes on`, said in a comment, and its delivery."""

    on: bool
    key: Key
    delivery: str


@dataclass
class Deletion:
    """A maintainer deleted the notes comment (or rewrote it into their own text)."""

    second: int  # on GitHub's clock
    ran: Key  # the newest switch run by then (the bot dates the deletion after it)
    resumed: bool  # `/notes on` resumed the updates, and no update has found the comment since
    deliveries: list[str] = field(
        default_factory=list
    )  # its `deleted`/`edited` webhooks' (unsent yet)
    received: list[int] = field(default_factory=list)  # the seconds they reached the bot
    # the second its webhook reached the bot when it ran alone, the updates on: the
    # deletion is surely an `off` said then (None: another order may have been taken)
    dated: int | None = None
    # made while `/notes off` stood, of the one comment of ours, the one the bot kept
    # (confirmed): no PR event looks at the comment then, nor finds it gone, so once its
    # webhook reached the bot the deletion is dated no earlier than `second`, also after
    # an `on` written before it whose update found the comment gone and posted it anew
    # (the bot deletes that one: docs/commands.md)
    while_off: bool = False
    rewrite: bool = False  # a rewrite: dated when made (its `updated_at`), not when told


@dataclass
class PR:
    number: int
    title: str
    body: str | None
    labels: list[str]
    files: list[Any]  # a path, or (new path, old path)
    draft: bool
    head: str
    base: str = "master"
    closed: bool = False
    changed_at: int = 0  # the second of its last event, on GitHub's clock (`time.time()`)
    diffs: dict[tuple[str, str], list[Any]] = field(default_factory=dict)  # (head, base)
    switches: list[Switch] = field(default_factory=list)
    deletions: list[Deletion] = field(default_factory=list)
    states: list[PRFacts] = field(default_factory=list)  # as each event showed it
    # who matched it, in the order they ran, for a failing seed's report: "event" (a
    # `pull_request` event of GitHub's, or its files re-check) or what else ran (a
    # command, its deferred update or files re-check, a deletion's `on`), with the
    # number of files matched on (`Watch`)
    matched: list[tuple[str, int]] = field(default_factory=list)

    def paths(self) -> tuple[str, ...]:
        """Its changed files' paths, as GitHub lists them (a rename: both)."""
        out: list[str] = []
        for f in self.files:
            out += [f] if isinstance(f, str) else list(f)
        return tuple(out)

    def facts(self) -> PRFacts:
        return PRFacts(
            DEFAULT_REPO,
            self.number,
            self.title,
            self.body or "",
            tuple(self.labels),
            self.paths(),
            draft=self.draft,
            closed=self.closed,
            head_sha=self.head,
            base_ref=self.base,
            changed_files=len(self.files),
        )


def _at(second: int) -> str:
    """A second of GitHub's clock as GitHub writes times (`updated_at`)."""
    return datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _next_second() -> None:
    """Wait for the next second of GitHub's clock (whole seconds: a comment written then
    is later than everything before)."""
    second = int(time.time())
    while int(time.time()) == second:
        time.sleep(0.02)


def _sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(160):040x}"


def _next_event(rng: random.Random, pr: PR) -> tuple[str, dict[str, Any]]:
    """Change the PR as one event says, and return that event's action and extras."""
    if pr.closed:
        pr.closed = False
        return "reopened", {}
    actions = ["edited", "edited", "synchronize", "labeled", "unlabeled", "closed"]
    actions.append("ready_for_review" if pr.draft else "converted_to_draft")
    action = rng.choice(actions)
    if action == "edited":
        if rng.random() < 0.5:
            old, pr.title = pr.title, rng.choice(titles())
            return action, {"changes": {"title": {"from": old}}}
        if rng.random() < 0.7:
            old_body, pr.body = pr.body, rng.choice(BODIES)
            return action, {"changes": {"body": {"from": old_body or ""}}}
        # retargeted: the diff against the new base is other files, the head the same
        bases = [b for b in ("main", "master", "releases/v0.9") if b != pr.base]
        old_base, pr.base = pr.base, rng.choice(bases)
        # a head's diff against a branch is what it was (their merge base stays put)
        pr.files = pr.diffs.setdefault((pr.head, pr.base), list(rng.choice(FILES)))
        return action, {"changes": {"base": {"ref": {"from": old_base}}}}
    if action == "synchronize":
        pr.head, pr.files = _sha(rng), list(rng.choice(FILES))
        pr.diffs[pr.head, pr.base] = pr.files
    elif action == "labeled":
        name = rng.choice(LABELS)
        if name not in pr.labels:
            pr.labels.append(name)
    elif action == "unlabeled" and pr.labels:
        pr.labels.remove(rng.choice(pr.labels))
    elif action == "closed":
        pr.closed = True
    elif action in ("ready_for_review", "converted_to_draft"):
        pr.draft = action == "converted_to_draft"
    return action, {}


def _payload(pr: PR, action: str, extra: dict[str, Any]) -> dict[str, Any]:
    p = pr_payload(
        action,
        number=pr.number,
        title=pr.title,
        body=pr.body,
        labels=tuple(pr.labels),
        draft=pr.draft,
        head_sha=pr.head,
        updated_at=_at(pr.changed_at),
        state="closed" if pr.closed else "open",
        base_ref=pr.base,
        **extra,
    )
    p["pull_request"]["changed_files"] = len(pr.files)
    return p


def _show(fake: FakeGitHub, pr: PR) -> None:
    """GitHub's PR is now as `pr` says (its files listed at its head)."""
    pull = fake.add_pull(
        DEFAULT_REPO,
        pr.number,
        author=AUTHOR,
        files=pr.files,
        title=pr.title,
        body=pr.body,
        labels=pr.labels,
        draft=pr.draft,
    )
    pull.head_sha, pull.closed, pull.base_ref = pr.head, pr.closed, pr.base


class Watch:
    """Who matched each PR, in the order they ran (`PR.matched`): the workers' runs
    (`Dispatcher.dispatch`) and the matcher, watched from before the workers start. A
    PR's runs take turns (bot.queue), so their order is the PR's."""

    def __init__(self, prs: list[PR]):
        self.prs = {pr.number: pr for pr in prs}
        self.running = threading.local()  # the run a worker is in: its kind and PR

    def __call__(self, rt: Runtime) -> None:
        dispatch, match = rt.dispatcher.dispatch, rt.ctx.matcher.match

        def watched_dispatch(ctx, delivery):
            event = delivery.event == "pull_request" and delivery.action in PR_ACTIONS
            self.running.now = ("event" if event else delivery.event, delivery.pr_number)
            try:
                return dispatch(ctx, delivery)
            finally:
                self.running.now = None

        def watched_match(facts):
            kind, number = getattr(self.running, "now", None) or ("", None)
            pr = self.prs.get(number) if number == facts.number else None
            if pr is not None:
                pr.matched.append((kind, len(facts.files)))
            return match(facts)

        rt.dispatcher.dispatch = watched_dispatch  # type: ignore[method-assign]
        rt.ctx.matcher.match = watched_match  # type: ignore[method-assign]


# --- one scenario -----------------------------------------------------------------


@dataclass(frozen=True)
class Sent:
    """A webhook delivery: GitHub's event name, its id (X-GitHub-Delivery), its payload."""

    event: str
    delivery: str
    payload: dict[str, Any]


@dataclass
class Played:
    prs: list[PR]
    humans: dict[int, str]  # comment id -> its text, as its author (or editor) wrote it
    log: list[str]  # what happened, for a failing seed's report


class Scenario:
    def __init__(self, seed: int, tmp_path: Path, fake: FakeGitHub, key: Any):
        self.rng = random.Random(seed)
        self.mode = mode(seed)
        self.fake, self.tmp_path, self.key = fake, tmp_path, key
        self.sent: list[Sent] = []  # delivered
        self.held: list[Sent] = []  # to deliver later, out of order
        self.outage = 0  # steps left of an outage: GitHub delivers nothing meanwhile
        self.down: list[Sent] = []  # what it could not deliver, sent again in order after
        self.deletions: dict[
            str, Deletion
        ] = {}  # a `deleted`/`edited` webhook's id -> its deletion
        self.rt: Runtime | None = None  # the server running now
        self.humans: dict[int, str] = {}
        self.log: list[str] = []
        self.files_lagged = False
        self.files_lag = 0  # looks the next push's file list lags by (`files lag`)

    def settings(self):
        return live_settings(
            self.tmp_path,
            self.fake,
            self.key,
            http_timeout=TIMEOUT,
            files_recheck_delays=(0.05, 0.1),
            retry_sleep_max=2.0,
        )

    def play_and_check(self) -> Played:
        """Play the scenario (over two runs of the server, with a restart between, in
        some seeds) and check the outcome on the last run."""
        rng = self.rng
        # (the overlaps: a PR for each order of their last word, `_last_word`)
        count = rng.randint(1, 3) if self.mode == "mixed" else 4
        prs = [self._new_pr(7001 + i) for i in range(count)]
        steps = rng.randint(8, 20) if self.mode == "mixed" else rng.randint(5, 12)
        runs = 2 if rng.random() < 0.3 else 1
        played = Played(prs, self.humans, self.log)
        for run in range(runs):
            with serving(self.settings(), prepare=Watch(prs)) as (client, rt):
                # a command's update made at once, not one per 5 s window; the overlaps'
                # dozens of `off`/`on` within the installation's write budget
                tune(rt, INSTANT if self.mode == "mixed" else OVERLAPS)
                self.rt = rt
                self.log.append(f"server {'re' if run else ''}started ({self.mode})")
                if run == 0:
                    for pr in prs:
                        self._event(client, pr, "opened", {})
                for _ in range(steps // runs):
                    self._step(client, rt, prs)
                if run < runs - 1:
                    if rng.random() < 0.5:
                        drain(rt, 30)  # else stopped with work queued: the restart resumes it
                    continue
                if self.mode == "overlaps":
                    self._last_word(client, rt, prs)
                self._finish(client, rt)
                check(played, rt, self.fake)
        return played

    def _new_pr(self, number: int) -> PR:
        rng = self.rng
        pr = PR(
            number,
            rng.choice(titles()),
            rng.choice(BODIES),
            rng.sample(LABELS[:3], rng.randint(0, 1)),
            list(rng.choice(FILES)),
            rng.random() < 0.2,
            _sha(rng),
        )
        if self.mode == "overlaps":  # a ready PR that matches: its comment is posted
            pr.title, pr.body, pr.files, pr.draft = MATCHING_TITLE, "", list(MATCHING_FILES), False
        pr.diffs[pr.head, pr.base] = pr.files
        _show(self.fake, pr)
        self.fake.set_permission(DEFAULT_REPO, WRITER, "write")
        return pr

    def _step(self, client, rt: Runtime, prs: list[PR]) -> None:
        rng = self.rng
        what = rng.choices(STEPS, weights=WEIGHTS[self.mode])[0]
        if what == "fault":
            route = rng.choice(ROUTES)
            # three in a row outlast a worker's retries: the delivery fails
            brief = self.mode == "overlaps"  # (its steps are about the orders, not the waits)
            faults = [_fault(rng, brief=brief) for _ in range(3 if rng.random() < 0.3 else 1)]
            self.fake.inject(*route, *faults)
            self.log.append(f"fault {route} {faults}")
        elif what == "list lag":
            self.fake.lag_next_comment_list(_lags)
            self.log.append("the next comment list lags behind the bot's last write")
        elif what == "files lag" and not self.files_lagged:
            # GitHub's file list behind the next push (or new PR) for one or two looks
            # (fewer than the re-checks: past them the list is taken as it is, by design):
            # that PR's, from the push on, as GitHub's. Not any PR's next look: a command
            # on a PR with no push answers at once on a list found short (docs/settings.md,
            # REVIEW_NOTES_FILES_RECHECK_DELAYS) and no event of that PR may come to look
            # again, where after a push its own event does (when the PR's updates are off
            # then, the command that answers on the short list looks again itself)
            self.files_lag = rng.randint(1, 2)
            self.files_lagged = True
            self.log.append(f"the next push's first {self.files_lag} file lists are empty")
        elif what == "delete":
            self._maintainer_deletes(client, rt, rng.choice(prs))
        elif what == "rewrite":
            self._maintainer_rewrites(client, rt, rng.choice(prs))
        elif what == "human":
            self._human_copies_marker(rng.choice(prs))
        elif what == "redeliver" and self.sent:
            self.log.append("redeliver:")  # GitHub's redelivery: the same id
            self._deliver(client, rng.choice(self.sent))
        elif what == "tokens expire":
            self.log.append(f"{self.fake.expire_tokens()} installation tokens expire")
        elif what == "chatter":
            pr = rng.choice(prs)  # the notes comment, if any, on the first page no more
            for i in range(31):
                text = f"LGTM {i}, cc @carol" if i % 2 else f"{MARKER} quoted {i}"
                c = self.fake.add_comment(DEFAULT_REPO, pr.number, text, login=f"user{i}")
                self.humans[c.id] = text
            self.log.append(f"31 human comments on {pr.number}")
        elif what == "prune":
            drain(rt, 30)
            if rt.queue.counts()["failed"] == 0:  # (those failed wait for the final retry)
                rt.retention.prune(before="9999-12-31T00:00:00.000000Z")
                self.log.append("retention prunes every delivery and idle file list")
        elif what == "late" and self.held:
            self._deliver(client, self.held.pop(rng.randrange(len(self.held))))
        elif what == "outage" and not self.outage:
            self.outage = rng.randint(2, 6)
            self.log.append(f"outage: GitHub delivers nothing for {self.outage} steps")
        elif what == "switch":
            self._switch(client, rng.choice(prs))
        elif what == "overlap":
            self._overlap(client, rt, rng.choice(prs))
        else:
            pr = rng.choice(prs)
            action, extra = _next_event(rng, pr)
            self._event(client, pr, action, extra)
        if self.outage:
            self.outage -= 1
            if not self.outage:
                self._outage_ends(client)
        if rng.random() < 0.3:
            drain(rt, 30)

    def _outage_ends(self, client) -> None:
        """GitHub sends again, oldest first (as the redelivery sweep asks for them), what
        it could not deliver during the outage."""
        self.log.append(f"the outage ends: {len(self.down)} deliveries sent again in order")
        down, self.down = self.down, []
        for sent in down:
            self._send(client, sent)

    def _event(
        self, client, pr: PR, action: str, extra: dict[str, Any], *, now: bool = False
    ) -> None:
        # When GitHub changed the PR, on the clock its comments are written by and the bot
        # receives by (the machine's): a deletion the event finds is dated by it (its
        # `updated_at`, docs/commands.md), against the `off`/`on` written around it. The
        # events of one second (`gh pr create --label`) come in no promised order.
        pr.changed_at = int(time.time())
        _show(self.fake, pr)
        if self.files_lag and action in ("opened", "synchronize"):
            lags = [Fault(status=200, body=[])] * self.files_lag
            self.fake.inject("GET", f"/repos/*/pulls/{pr.number}/files", *lags)
            self.files_lag = 0
        pr.states.append(pr.facts())
        payload = _payload(pr, action, extra)
        delivery = f"{action}-{pr.number}-{pr.changed_at}-{uuid.uuid4().hex[:6]}"
        self.log.append(
            f"{delivery}: title={pr.title[:30]!r} body={str(pr.body)[:20]!r} labels={pr.labels}"
            f" files={pr.files} draft={pr.draft} closed={pr.closed}"
        )
        if now:
            self._send(client, Sent("pull_request", delivery, payload))
        else:
            self._send_or_hold(client, Sent("pull_request", delivery, payload))

    def _send_or_hold(self, client, sent: Sent) -> None:
        if self.rng.random() < 0.25:
            self.held.append(sent)  # GitHub sends it later
        else:
            self._deliver(client, sent)

    def _deliver(self, client, sent: Sent) -> None:
        """GitHub delivers it now, or after the outage under way."""
        if self.outage:
            self.down.append(sent)
        else:
            self._send(client, sent)

    def _send(self, client, sent: Sent) -> None:
        self.log.append(f"send {sent.event} {sent.delivery}")
        r = post(client, sent.event, sent.payload, delivery=sent.delivery)
        assert r.status_code in (200, 202), r.text
        self.sent.append(sent)
        deletion = self.deletions.get(sent.delivery)
        got = self._rt().queue.get(sent.delivery)
        if deletion is not None:  # (got None: answered at intake, not queued, now)
            deletion.received.append(int(time.time()) if got is None else _second(got.received_at))

    def _rt(self) -> Runtime:
        assert self.rt is not None
        return self.rt

    def _switch(self, client, pr: PR, on: bool | None = None, *, now: bool = False) -> None:
        """The PR's author or a writer says `/notes off` or `/notes on` (`on`; None: either)
        in a comment, delivered `now` (and run before the next step) or as GitHub may."""
        said, who = self.rng.random() < 0.5, self.rng.choice([AUTHOR, WRITER])
        on = said if on is None else on
        text = "/notes on" if on else "/notes off"
        c = self.fake.add_comment(DEFAULT_REPO, pr.number, text, login=who)
        delivery = f"comment-{c.id}-{uuid.uuid4().hex[:6]}"
        pr.switches.append(Switch(on, (int(c.created_at), c.id), delivery))
        self.log.append(f"{who} says {text} on {pr.number} (comment {c.id}, {delivery})")
        payload = comment_payload(c, number=pr.number, title=pr.title)
        if now:
            self._send(client, Sent("issue_comment", delivery, payload))
            drain(self._rt(), 30)
        else:
            self._send_or_hold(client, Sent("issue_comment", delivery, payload))

    def _overlap(self, client, rt: Runtime, pr: PR) -> None:
        """The orders the deletion rules of docs/commands.md are about, played densely: the
        PR's updates off with its comment up (an `off` run), then, during an outage, `/notes
        on` said and the comment deleted or rewritten by a maintainer after it. GitHub
        sends both again in order once the outage ends: the `on` first, whose update finds
        the comment gone and posts it anew, then the deletion, made after the `on`, which
        wins (the bot takes its new comment down again). Later steps may reorder them
        (the `on` or the webhook held back, sent twice) or add faults and a restart."""
        if self.outage:  # (its deliveries first: what was said before)
            self.outage = 0
            self._outage_ends(client)
        self._paused(client, rt, pr)
        self.outage = self.rng.randint(1, 4)
        self.log.append(f"outage: GitHub delivers nothing for {self.outage} steps")
        self._switch(client, pr, on=True)
        self._taken_away(client, rt, pr)

    def _paused(self, client, rt: Runtime, pr: PR) -> None:
        """The PR's updates off with its comment up: `/notes on` first when it has none
        (posted if notes match), then `/notes off`, each run at once."""
        drain(rt, 30)
        if not self._ours(pr):
            self._switch(client, pr, on=True, now=True)
        self._switch(client, pr, on=False, now=True)

    def _taken_away(self, client, rt: Runtime, pr: PR, rewrite: bool | None = None) -> None:
        """A maintainer deletes the notes comment, or rewrites it into their own text
        (`rewrite`; None: either)."""
        if rewrite is None:
            rewrite = self.rng.random() < 0.5
        if rewrite:
            self._maintainer_rewrites(client, rt, pr)
        else:
            self._maintainer_deletes(client, rt, pr)

    def _deleted(self, pr: PR, mine: list[Any], second: int | None = None) -> Deletion:
        """A deletion of `mine` (our comments on the PR) made now, or at `second`: what the
        bot had run of the PR's `off`/`on` by then, and whether it was off and kept the
        one comment (`Deletion.while_off`)."""
        queue = self._rt().queue
        done = [
            s.key
            for s in pr.switches
            if (d := queue.get(s.delivery)) is not None and d.state == "done"
        ]
        state = self._rt().ctx.prs.get(DEFAULT_REPO, pr.number)
        kept = [c.id for c in mine] == [state.comment_id] and not state.unconfirmed
        return Deletion(
            int(time.time()) if second is None else second,
            max(done, default=FIRST),
            state.resumed_at is not None,
            while_off=kept and state.opted_out,
        )

    def _send_deleted(
        self,
        client,
        pr: PR,
        comment: Any,
        deletion: Deletion,
        *,
        quiet: bool,
        old_body: str | None = None,
    ) -> None:
        """GitHub's `deleted` webhook for the comment (`edited` for a rewrite: `old_body`,
        its text before): at once, later, twice or never (a delivery GitHub failed, to
        be found by the sweep, as the restart tests do)."""
        when = self.rng.choices(["now", "later", "twice", "never"], weights=[4, 3, 2, 1])[0]
        action = "deleted" if old_body is None else "edited"
        payload = comment_payload(
            comment, action=action, old_body=old_body, number=pr.number, title=pr.title
        )
        payload["sender"] = dict(MAINTAINER)
        sent = Sent("issue_comment", f"{action}-{comment.id}-{uuid.uuid4().hex[:6]}", payload)
        self.log.append(f"its {action} webhook {sent.delivery}: {when}")
        if when == "never":
            return
        self.deletions[sent.delivery] = deletion
        deletion.deliveries.append(sent.delivery)
        if when == "later":
            self.held.append(sent)
            return
        if self.outage:  # sent after it, in order
            self.down.append(sent)
            if when == "twice":
                self.held.append(sent)
            return
        rt = self._rt()
        alone = quiet and not rt.ctx.prs.get(DEFAULT_REPO, pr.number).opted_out
        self._send(client, sent)
        if alone and deletion.dated is None and deletion.received:
            drain(rt, 30)  # nothing else ran since the deletion: its webhook dates it
            # (a rewrite's says when it was made: its `updated_at`)
            made = int(comment.updated_at) if old_body is not None else None
            deletion.dated = deletion.received[0] if made is None else made
        if when == "twice":
            self.held.append(sent)  # GitHub's redelivery, later

    def _maintainer_deletes(self, client, rt: Runtime, pr: PR) -> None:
        quiet = self.rng.random() < 0.5
        if quiet:
            drain(rt, 30)  # deleted in the web UI at a quiet moment, else while we work
        mine = self._ours(pr)
        if not mine:
            return
        with self.fake._lock:
            for c in mine:
                del self.fake._comments[c.id]
        deletion = self._deleted(pr, mine)
        pr.deletions.append(deletion)
        self.log.append(f"maintainer deletes the comment on {pr.number}: {deletion}")
        for c in mine:
            self._send_deleted(client, pr, c, deletion, quiet=quiet)

    def _maintainer_rewrites(self, client, rt: Runtime, pr: PR) -> None:
        """A maintainer edits the notes comment into their own text, the marker gone: it
        is theirs now (never written over), and the PR's updates go off as on a deletion
        (GitHub's `edited` webhook, sent as a deletion's is)."""
        quiet = self.rng.random() < 0.5
        if quiet:
            drain(rt, 30)
        mine = self._ours(pr)
        if not mine:
            return
        c, text = mine[0], "Moved the reading list to the description."
        before = c.body
        self.fake.set_body(c.id, text)
        c.updated_at = time.time()
        self.humans[c.id] = text  # as good as a human's comment now
        deletion = replace(self._deleted(pr, mine, int(c.updated_at)), rewrite=True)
        pr.deletions.append(deletion)
        self.log.append(f"maintainer rewrites comment {c.id} on {pr.number}: {deletion}")
        self._send_deleted(client, pr, c, deletion, quiet=quiet, old_body=before)

    def _ours(self, pr: PR) -> list[Any]:
        """The bot's comments on the PR, but for one a maintainer made theirs."""
        mine = self.fake.comments(DEFAULT_REPO, pr.number)
        return [c for c in mine if c.user.login == BOT and c.id not in self.humans]

    def _human_copies_marker(self, pr: PR) -> None:
        mine = self._ours(pr)
        text = mine[0].body if mine else f"{MARKER}\nI copied the marker"
        c = self.fake.add_comment(DEFAULT_REPO, pr.number, text, login="mallory")
        self.humans[c.id] = text
        self.log.append(f"human comment {c.id} with the marker on {pr.number}")

    def _last_word(self, client, rt: Runtime, prs: list[PR]) -> None:
        """The overlaps' last word on each PR (only the outcome is checked, which an
        earlier `off` or deletion would otherwise decide), once everything sent so far
        ran, GitHub well, in a second of its own (GitHub's times have whole seconds: a
        deletion that reaches the bot in the second of an `on` is dated after it, and a
        seed's steps take a second or two). Its updates off with its comment up, then,
        during an outage, either `/notes on` said and the comment deleted or rewritten
        after it (`_overlap`), or the comment taken away and `/notes on` said a second
        later: the `on` wins over a rewrite, dated when made, however late its webhook
        runs (and posts the comment anew), as over a deletion whose webhook never came."""
        self.outage = 0
        self._outage_ends(client)
        while self.held:
            self._send(client, self.held.pop(self.rng.randrange(len(self.held))))
        drain(rt, 60)
        self._github_well()  # (a fault could leave no comment to delete)
        _next_second()
        for pr in prs:
            self._matching(client, pr)
            self._paused(client, rt, pr)
        self.outage = 1  # until the end (`_finish`)
        self.log.append("outage: GitHub delivers nothing until the end")
        # each PR one of the four orders (`on` first or last, a deletion or a rewrite)
        orders = [(on_first, rewrite) for on_first in (True, False) for rewrite in (True, False)]
        self.rng.shuffle(orders)
        on_last = []
        for pr, (on_first, rewrite) in zip(prs, orders, strict=False):
            if on_first:
                self._switch(client, pr, on=True)
                self._taken_away(client, rt, pr, rewrite)
            else:
                self._taken_away(client, rt, pr, rewrite)
                on_last.append(pr)
        if on_last:
            _next_second()
            for pr in on_last:
                self._switch(client, pr, on=True)

    def _matching(self, client, pr: PR) -> None:
        """The PR's author makes it one that gets its notes comment (its events sent now):
        reopened, ready, the opt-out label and marker gone, a matching title and files."""
        if pr.closed:
            pr.closed = False
            self._event(client, pr, "reopened", {}, now=True)
        if pr.draft:
            pr.draft = False
            self._event(client, pr, "ready_for_review", {}, now=True)
        for name in [n for n in pr.labels if n.lower() == OPT_OUT]:
            pr.labels.remove(name)
            self._event(client, pr, "unlabeled", {}, now=True)
        if (pr.title, pr.body) != (MATCHING_TITLE, ""):
            old, pr.title, pr.body = pr.title, MATCHING_TITLE, ""
            self._event(client, pr, "edited", {"changes": {"title": {"from": old}}}, now=True)
        if pr.files != MATCHING_FILES:
            pr.head, pr.files = _sha(self.rng), list(MATCHING_FILES)
            pr.diffs[pr.head, pr.base] = pr.files
            self._event(client, pr, "synchronize", {}, now=True)

    def _github_well(self) -> None:
        """GitHub answers every call again: the faults not met yet are dropped."""
        with self.fake._lock:
            self.fake._faults.clear()
        self.log.append("GitHub is well again")

    def _finish(self, client, rt: Runtime) -> None:
        self.outage = 0
        self._outage_ends(client)
        while self.held:
            self._send(client, self.held.pop(self.rng.randrange(len(self.held))))
        drain(rt, 60)
        self._github_well()
        for d in rt.queue.failed(limit=1000):
            assert d.last_error, f"failed delivery {d.id} has no reason recorded"
            self.log.append(f"failed {d.id}: {d.last_error[:120]}")
        rt.queue.retry()  # the operator's `review-notes retry --all`
        drain(rt, 60)


# --- the invariants ---------------------------------------------------------------


def _second(received_at: str) -> int:
    """A queue's time (`2026-09-01T10:00:00.123456Z`) as the second GitHub's clock says."""
    return int(datetime.fromisoformat(received_at.replace("Z", "+00:00")).timestamp())


def switched(pr: PR) -> bool | None:
    """Whether the PR's updates are surely on (True) or off (False) once everything ran, as
    README and docs/commands.md say; None: not sure. Between comments the `off`/`on`
    written last on GitHub counts, whatever order they ran in; a maintainer's deletion
    (or rewrite) counts as an `off` said when its webhook reached the bot (a rewrite's:
    when made, its `updated_at`; when it never came, when an update found the comment
    gone): an `on` resumes the updates only when written after both."""
    said = [((*s.key, 0), s.on) for s in pr.switches]
    last = max(said + [(_at_least(d), False) for d in pr.deletions if d.received], default=None)
    if last is None:
        return None if pr.deletions else True
    key, on = last
    if not on:
        return False
    return True if all(_outranks(key, d) for d in pr.deletions) else None


def _outranks(key: tuple[int, ...], d: Deletion) -> bool:
    """Whether an `off`/`on` written at `key` surely outranks deletion `d`: written in a
    later second than it was made, and than its webhook reached the bot (the bot dates a
    deletion when told), or than a rewrite made while off was made (dated when made,
    whenever told; no PR event looks at the comment meanwhile, and none dates it)."""
    if key[0] <= d.second:
        return False
    return (d.rewrite and d.while_off) or all(key[0] > r for r in d.received)


def _at_least(d: Deletion) -> tuple[int, int, int]:
    """The earliest a deletion whose webhook ran may be dated: when it reached the bot (it
    ran alone, the updates on), or when it was made (while off: `Deletion.while_off`),
    else just after the newest `off`/`on` run by then (while an `on` had resumed the
    updates, before any: a comment posted again may be the one kept, and the deletion a
    second copy's)."""
    sure = _dated_from(d)
    if sure is not None:
        return (sure, 1 << 62, 0)
    return (0, 0, 0) if d.resumed else (*d.ran, 1)


def _dated_from(d: Deletion) -> int | None:
    """The second the bot surely dates a deletion at or after (after every comment of
    it), None when it may be dated earlier or not counted at all."""
    if d.dated is not None:
        return d.dated
    return d.second if d.while_off and d.received else None


def came_back_unasked(pr: PR) -> bool:
    """Whether a notes comment on the PR now is one posted again after the maintainer's
    last deletion with no `/notes on` that could have resumed the updates: one written
    after every `off`/`on` run by the deletion (the bot dates the deletion after them).
    Not counted: a deletion while an `on` had resumed the updates and no update had found
    the comment since (docs/commands.md: such a comment gone is taken for one deleted
    before the `on`)."""
    d = pr.deletions[-1]
    sure = _dated_from(d)
    if sure is not None:  # an `off` said then (or later)
        return not any(s.on and s.key[0] > sure for s in pr.switches)
    return not d.resumed and not any(s.on and s.key > d.ran for s in pr.switches)


def expected_body(rt: Runtime, pr: PR) -> str | None:
    """What the notes comment of this open PR should say now, through the core as
    bot.sticky computes it: the opt-out's paused line, or the matches rendered (None:
    nothing matches, and a PR never matched has no comment)."""
    ctx = rt.ctx
    facts = pr.facts()
    cause = opted_out_by_pr(facts, ctx.settings.opt_out_label)
    if cause is not None:
        return render_paused(ctx.render_options(), by=cause)
    state = ctx.prs.get(DEFAULT_REPO, pr.number)
    # GitHub's list now, whoever met it short (a command's update looks again later, as
    # an event does: bot.files_recheck)
    listed = ctx.github.list_files(PRRef(DEFAULT_REPO, pr.number, DEFAULT_INSTALLATION_ID))
    facts = replace(
        facts,
        files=tuple(listed),
        code_names=listed.code_names,
        incidental=listed.incidental,
        listed_files=listed.listed,
    )
    facts = replace(facts, related_notes=notes_of_related_prs(ctx, facts))
    result, hidden = hide_dismissed(ctx.matcher.match(facts), list(state.dismissed))
    opts = replace(ctx.render_options(had_notes=True), hidden=hidden, repo=facts.repo)
    return render(result, ctx.library, opts=opts)


def check(played: Played, rt: Runtime, fake: FakeGitHub) -> None:
    """README's "What the bot does", as a user sees it:
    - the queue is empty, nothing failed once GitHub is well and failures are re-run;
    - at most one notes comment per PR, none on a PR that never matched, none posted
      again after a maintainer deleted it unless a `/notes on` written after the
      deletion resumed the updates (`came_back_unasked`);
    - a PR whose `/notes off` (or a maintainer's deletion) was said last (`switched`)
      has its updates off and no comment but the paused line;
    - a human's comment (marker copied or not), and one of ours a maintainer rewrote
      without the marker, is never edited nor deleted;
    - an open PR's comment (draft or not: one already there is kept up to date) says
      what the matcher and renderer give for the PR as it is now, or that the PR's own
      opt-out pauses it; an open, ready PR that matches has its comment, unless its
      updates are off or a maintainer deleted it;
    - every text the bot wrote is inert (no live @mention, no backlink)."""
    counts = rt.queue.counts()
    assert counts["pending"] == counts["processing"] == 0, counts
    assert counts["failed"] == 0, [(d.id, d.last_error) for d in rt.queue.failed()]
    for cid, text in played.humans.items():
        c = fake.comment(cid)
        assert c is not None, f"the human comment {cid} was deleted"
        assert c.body == text, f"the human comment {cid} was edited"
    for pr in played.prs:
        mine = [
            c
            for c in fake.comments(DEFAULT_REPO, pr.number)
            if c.user.login == BOT and c.id not in played.humans  # (a maintainer's text)
        ]
        assert len(mine) <= 1, f"PR {pr.number}: {len(mine)} notes comments"
        for c in mine:
            assert_inert(c.body)
        if not any(rt.ctx.matcher.match(s).matches for s in pr.states):
            assert mine == [], f"PR {pr.number} never matched but has a comment"
        if pr.deletions and mine:
            came_back = came_back_unasked(pr)
            assert not came_back, f"PR {pr.number}: the comment a maintainer deleted came back"
        on = switched(pr)
        if on is False:
            state = rt.ctx.prs.get(DEFAULT_REPO, pr.number)
            assert state.opted_out, f"PR {pr.number}: its updates are on after an `off`"
        if on is False and mine and not any(s.closed for s in pr.states):
            paused = {render_paused(rt.ctx.render_options(), by=by) for by in PauseCause}
            shown = as_rendered(rt, mine[0], pr.number)
            assert shown in paused, f"PR {pr.number}: edited after `/notes off`"
        if on is not True or pr.closed:
            continue
        want = expected_body(rt, pr)
        if mine:
            held = rt.ctx.prs.get(DEFAULT_REPO, pr.number).files_listed
            assert as_rendered(rt, mine[0], pr.number) == want, (
                f"PR {pr.number}: the comment is not the PR's now ({held} files held of"
                f" {len(pr.files)}; runs that matched it, in turn: {pr.matched})"
            )
        elif not pr.draft and opted_out_by_pr(pr.facts(), OPT_OUT) is None:
            shows = "No review note matches" not in (want or "")
            assert not shows, f"PR {pr.number} matches now but has no comment"


def run_seed(seed: int, tmp_path: Path, fake: FakeGitHub, key: Any) -> None:
    scenario = Scenario(seed, tmp_path, fake, key)
    try:
        scenario.play_and_check()
    except AssertionError as e:
        raise AssertionError(f"seed {seed}: {e}\n" + "\n".join(scenario.log)) from None


@pytest.mark.parametrize("seed", _seeds(os.environ.get("SCENARIO_SEEDS")))
def test_a_random_scenario_keeps_what_readme_promises(seed, tmp_path, fake_github, app_key):
    run_seed(seed, tmp_path, fake_github, app_key)

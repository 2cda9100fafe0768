"""Flood control of slash commands: per PR, sticky-comment updates (coalesced) and
reply comments; per installation, its replies and every content write its commands
make. State in memory, behind a lock; the clock defaults to time.monotonic, tests
inject their own. Who may run a command and what it may cost: `bot.command_policy`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from bot.commands import CommandConfig

Clock = Callable[[], float]

K = TypeVar("K", bound=Hashable)


class Admission(StrEnum):
    RUN = "run"  # update now
    DEFER = "defer"  # schedule one update at `run_at`, then call `start(key)`
    MERGED = "merged"  # an update is already scheduled; it will cover this request


@dataclass(frozen=True)
class Ticket:
    admission: Admission
    run_at: float  # clock time the covering update runs (now for RUN)


@dataclass
class _Window:
    last_run: float
    deferred: bool = False  # a run is scheduled for the window's end


class UpdateWindows(Generic[K]):
    """At most one sticky-comment update per PR every `min_interval_s`; the rest coalesce.

    An update re-reads the PR when it runs, so one run at the end of a window
    covers every request made during it. Refusing instead would leave the comment
    stale after a burst (the last `/notes refresh` must win), and running each
    would spend GitHub's content-creation budget on identical writes. So:

    - the first request runs at once (RUN);
    - a request inside the window is DEFERred to the window's end; the caller
      schedules one job for `run_at` and calls `start(key)` when it begins;
    - requests while that job is pending are MERGED into it; if the job has not
      started `lost_after_s` after its time, it is taken as lost and the next
      request RUNs for all of them.

    This only times the runs: what a run owes (the state each command asked for, the
    comments to mark `+1`) is kept with the PR's state (`PRState.pending`), which a
    restart does not lose. Nothing is refused: each command is taken (`eyes`) and
    answered (`+1`). The windows are in memory, per process: losing them on restart
    costs at most one extra update.
    """

    def __init__(
        self,
        min_interval_s: float,
        clock: Clock = time.monotonic,
        *,
        lost_after_s: float = 60.0,
        max_keys: int = 4096,
    ):
        if min_interval_s < 0 or lost_after_s <= 0:
            raise ValueError("min_interval_s must be >= 0 and lost_after_s > 0")
        self.min_interval_s = min_interval_s
        self.lost_after_s = lost_after_s
        self._clock = clock
        self._max_keys = max_keys
        self._windows: dict[K, _Window] = {}
        self._lock = threading.Lock()

    def admit(self, key: K) -> Ticket:
        with self._lock:
            now = self._clock()
            window = self._windows.get(key)
            if window is not None and window.deferred:
                run_at = window.last_run + self.min_interval_s
                if now - run_at < self.lost_after_s:
                    return Ticket(Admission.MERGED, run_at)
                # The deferred job never started (lost in a restart or a crash):
                # run now for everything it was to cover, rather than wait forever.
                self._windows[key] = _Window(last_run=now)
                return Ticket(Admission.RUN, now)
            if window is None or now - window.last_run >= self.min_interval_s:
                self._prune(now)
                self._windows[key] = _Window(last_run=now)
                return Ticket(Admission.RUN, now)
            window.deferred = True
            return Ticket(Admission.DEFER, window.last_run + self.min_interval_s)

    def start(self, key: K) -> bool:
        """The deferred run begins: open a new window. False when none was pending (a
        duplicate job, or one taken as lost)."""
        with self._lock:
            window = self._windows.get(key)
            if window is None or not window.deferred:
                return False
            window.deferred = False
            window.last_run = self._clock()
            return True

    def _prune(self, now: float) -> None:
        if len(self._windows) < self._max_keys:
            return
        for k in [
            k
            for k, w in self._windows.items()
            if not w.deferred and now - w.last_run >= self.min_interval_s
        ]:
            del self._windows[k]


class ReplyBudget(Generic[K]):
    """Reply comments per PR: a token bucket of `burst`, one token back every `refill_s`.

    Replies (topic, search, help) are distinct answers, so they cannot be
    coalesced; past the budget a command gets `confused` and no reply, which
    stops a flood from turning into a wall of bot comments. The same bucket, keyed by
    installation, holds its commands' content writes (`FloodControl.reserve_writes`).
    """

    def __init__(
        self, burst: int, refill_s: float, clock: Clock = time.monotonic, *, max_keys: int = 4096
    ):
        if burst < 1 or refill_s <= 0:
            raise ValueError("burst must be >= 1 and refill_s > 0")
        self.burst = burst
        self.refill_s = refill_s
        self._clock = clock
        self._max_keys = max_keys
        self._buckets: dict[K, tuple[float, float]] = {}  # key -> (tokens, at)
        self._lock = threading.Lock()

    def _tokens(self, key: K, now: float) -> float:
        tokens, at = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - at) / self.refill_s)

    def left(self, key: K) -> float:
        """The replies `key` has now, spending none (below zero after a `take` past it)."""
        with self._lock:
            return self._tokens(key, self._clock())

    def allow(self, key: K, n: int = 1) -> bool:
        """Spend `n` tokens for `key` if that many are left (all or none)."""
        with self._lock:
            now = self._clock()
            tokens = self._tokens(key, now)
            if tokens < n:
                self._buckets[key] = (tokens, now)
                return False
            self._spend(key, tokens - n, now)
            return True

    def take(self, key: K, n: int = 1) -> None:
        """Spend `n` tokens for `key` whatever is left: the bucket may go below zero, and
        the refills pay that back before `allow` lets anything through again. For a cost
        already admitted once (a re-run of a command delivery), not refused twice."""
        with self._lock:
            now = self._clock()
            self._spend(key, self._tokens(key, now) - n, now)

    def _spend(self, key: K, tokens: float, now: float) -> None:
        if key not in self._buckets and len(self._buckets) >= self._max_keys:
            full = [k for k in self._buckets if self._tokens(k, now) >= self.burst]
            for k in full:
                del self._buckets[k]
        self._buckets[key] = (tokens, now)

    def refund(self, key: K, n: int = 1) -> None:
        """Give back `n` tokens `allow` spent for `key` that were not used (a reply not
        posted, a write not made)."""
        with self._lock:
            now = self._clock()
            self._buckets[key] = (min(float(self.burst), self._tokens(key, now) + n), now)


@dataclass(frozen=True)
class Overspent:
    """Why a reply (or a comment's writes) was not allowed: its PR's budget is spent, or
    (`installation`) the budget all the installation's PRs share. `first`: the
    installation's first refusal since that budget was last full, the one to say in the
    log (and, for writes, the one refused comment that still gets its 😕)."""

    installation: bool = False
    first: bool = False


class _Spells(Generic[K]):
    """Which keys a budget is refusing, so that a spell of refusals is said once: it
    begins at the first refusal and ends only once the budget is full again. Under a
    steady flood each refill lets one through, and ending the spell there would say it
    again at every refill (100 times an hour) for one flood. Not locked: its
    owner's lock guards it."""

    def __init__(self, budget: ReplyBudget[K], *, max_keys: int = 4096):
        self.budget = budget
        self._max_keys = max_keys
        self._refusing: set[K] = set()

    def mend(self, key: K) -> None:
        """End the key's spell if its budget is full again."""
        if self.budget.left(key) >= self.budget.burst:
            self._refusing.discard(key)

    def refuse(self, key: K) -> bool:
        """A refusal: True when it begins a spell."""
        first = key not in self._refusing
        if first and len(self._refusing) >= self._max_keys:
            # keyed by PR there may be many: forget the spells whose budget is full again
            self._refusing = {k for k in self._refusing if self.budget.left(k) < self.budget.burst}
        self._refusing.add(key)
        return first

    def refusing(self, key: K, n: int = 1) -> bool:
        """In a spell, and `n` tokens are not there yet."""
        return key in self._refusing and self.budget.left(key) < n


def _keep(kept: dict[str, None], key: str, max_kept: int) -> None:
    """Remember `key` in `kept` (insertion order), the oldest forgotten past `max_kept`:
    the process's bounded memory of what it admitted or paid for (never given back)."""
    while len(kept) >= max_kept:
        del kept[next(iter(kept))]
    kept[key] = None


def _claim(kept: dict[str, None], key: str) -> bool:
    """Whether `key` is remembered in `kept`, forgetting it: each is claimed once."""
    if key not in kept:
        return False
    del kept[key]
    return True


class FloodControl:
    """One process's limits, from config/commands.toml: per PR, sticky-comment updates
    (coalesced) and reply comments (a budget), with PR keys `owner/name#N`; per
    installation (keyed by installation id, None for a token's single identity), the
    reply comments of all its PRs, and every content write their commands make.

    The installation's budgets keep the commands far under GitHub's content-creation
    limit (github_facts §3.3: no more than 80 a minute and 500 an hour, reactions and
    edits included; calling on while limited risks a ban), which the per-PR budgets
    alone would pass: they grow with the open PRs. The write budget is what guards the
    limit (a reply is one write of several); the reply budget also keeps a flood from
    notifying everyone watching the PRs with a wall of replies. PR events' notes
    comments are paid from neither: they are the App's main job, and what the room
    left under GitHub's limit is for."""

    def __init__(self, config: CommandConfig, clock: Clock = time.monotonic):
        self.clock = clock
        self.sticky: UpdateWindows[str] = UpdateWindows(config.min_update_interval_s, clock)
        self.replies: ReplyBudget[str] = ReplyBudget(
            config.reply_burst, config.reply_refill_s, clock
        )
        self.installation_replies: ReplyBudget[int | None] = ReplyBudget(
            config.installation_reply_burst, config.installation_reply_refill_s, clock
        )
        self.installation_writes: ReplyBudget[int | None] = ReplyBudget(
            config.installation_write_burst, config.installation_write_refill_s, clock
        )
        self._reply_spells = _Spells(self.installation_replies)
        self._pr_reply_spells = _Spells(self.replies)
        self._write_spells = _Spells(self.installation_writes)
        # deliveries whose run was admitted by the write budget (insertion order: the
        # oldest forgotten first), so that only their re-runs pass it (`admitted`)
        self._admitted: dict[str, None] = {}
        # deferred updates (their delivery ids) whose notes comment write a command of
        # this process paid for in advance, not yet run (`prepaid`, `claim_prepaid`)
        self._prepaid: dict[str, None] = {}
        # replies (their keys) paid by a run whose POST failed unsure GitHub took it:
        # paid until a re-run finds the reply or posts it (`hold_reply`, `held_reply`)
        self._held: dict[str, None] = {}
        self._lock = threading.Lock()

    def allow_reply(self, pr: str, installation: int | None) -> Overspent | None:
        """Spend one reply of the PR's budget and one of its installation's; None when
        both had one, else what refused it (and nothing is spent)."""
        with self._lock:
            self._reply_spells.mend(installation)
            self._pr_reply_spells.mend(pr)
            if not self.replies.allow(pr):
                self._pr_reply_spells.refuse(pr)
                return Overspent()
            if not self.installation_replies.allow(installation):
                self.replies.refund(pr)
                return Overspent(installation=True, first=self._reply_spells.refuse(installation))
            return None

    def refusing(self, installation: int | None, pr: str | None = None) -> bool:
        """The installation's budget, or the PR's, refused a reply and has none yet. A
        command that wants a reply is then not answered at all: its 👀 and 😕 are content
        writes too, two a command, and a flood would pass GitHub's limit on them alone
        (the installation's) or spend the installation's write budget on them, leaving
        none for the commands on its other PRs (one PR's)."""
        with self._lock:
            if self._reply_spells.refusing(installation):
                return True
            return pr is not None and self._pr_reply_spells.refusing(pr)

    def take_reply(self, pr: str, installation: int | None) -> None:
        """Pay for a reply found on the PR that no run paid for (its run failed after
        GitHub took it, unsure it had, and gave it back), even past the budgets: it is
        there, notifying everyone watching the PR."""
        self.replies.take(pr)
        self.installation_replies.take(installation)

    def hold_reply(self, key: str, *, max_kept: int = 4096) -> None:
        """Keep paid the reply `key` whose POST failed unsure GitHub took it (a 5xx, an
        answer lost): given back, another command would spend it before the re-run finds
        the reply on the PR, one reply past the budgets. Its re-run claims it
        (`held_reply`). The oldest are forgotten past `max_kept` (never given back)."""
        with self._lock:
            _keep(self._held, key, max_kept)

    def held_reply(self, key: str) -> bool:
        """Whether an earlier run of this process paid the reply `key` and failed unsure
        it was posted (`hold_reply`): once. The re-run, finding it posted or posting it,
        pays nothing more; after a restart (budgets start full) it pays as a first run."""
        with self._lock:
            return _claim(self._held, key)

    def refund_reply(self, pr: str, installation: int | None) -> None:
        """Give back the reply `allow_reply` allowed when it was not posted."""
        self.replies.refund(pr)
        self.installation_replies.refund(installation)

    def reserve_writes(self, installation: int | None, writes: int) -> Overspent | None:
        """Take the most writes a comment's commands can make (`most_writes`) from its
        installation's write budget, all at once or none: a comment is answered whole
        or not run at all, never left with a 👀 and no answer because the budget ran
        out halfway. None when taken (give back what was not written with
        `refund_writes`), else the refusal (`first`: it begins a spell)."""
        with self._lock:
            self._write_spells.mend(installation)
            if self.installation_writes.allow(installation, writes):
                return None
            return Overspent(installation=True, first=self._write_spells.refuse(installation))

    def admit(self, delivery: str, *, max_kept: int = 4096) -> None:
        """Remember that this delivery's run was admitted by the write budget (reserved,
        or taken as a re-run's), so that its re-runs are answered whole (`take_writes`)."""
        with self._lock:
            self._admitted.pop(delivery, None)  # admitted again: the newest
            _keep(self._admitted, delivery, max_kept)

    def admitted(self, delivery: str) -> bool:
        """An earlier run of this delivery was admitted. A run stopped before the budget
        was asked (GitHub rate limited the permission check) was not: its re-run is
        admitted or refused like a first run, lest a flood put back that early pass the
        budget whole. In memory, as the budgets are: after a restart a re-run is asked
        for again, from budgets that start full."""
        with self._lock:
            return delivery in self._admitted

    def take_writes(self, installation: int | None, writes: int) -> None:
        """Take a re-run's writes (`most_writes`, as `reserve_writes`) from its
        installation's write budget, even past it (the budget goes below zero, and its
        refills pay that back before another comment is let through). Only a delivery not
        admitted yet is admitted or refused (a refused one is done, never run again); a
        re-run of an admitted run (`admitted`: put back for a rate limit, failed and
        retried) may follow its comment's 👀 and the PR state its commands set before
        their first write, so it must be answered whole.
        Its cost is bounded per delivery: its put-backs (`max_deferrals`) and manual
        retries. Give back what was not written with `refund_writes`."""
        if writes > 0:
            self.installation_writes.take(installation, writes)

    def refund_writes(self, installation: int | None, writes: int) -> None:
        """Give back the reserved writes a comment did not make (a reaction it did not
        add, a reply over a budget, a notes comment that was already right)."""
        if writes > 0:
            self.installation_writes.refund(installation, writes)

    def prepaid(self, delivery: str, *, max_kept: int = 4096) -> None:
        """A command paid, with its writes, the notes comment write of the deferred update
        `delivery` it queued: that update gives it back if it writes no comment
        (`claim_prepaid`). The oldest are forgotten past `max_kept` (never given back)."""
        with self._lock:
            _keep(self._prepaid, delivery, max_kept)

    def claim_prepaid(self, delivery: str) -> bool:
        """Whether the run that settles the deferred update `delivery` (its first that
        ends, or that raised after asking GitHub for a write) may give back its prepaid
        write: once, in the process whose command paid it (after a restart the budgets
        start full, the payment forgotten)."""
        with self._lock:
            return _claim(self._prepaid, delivery)

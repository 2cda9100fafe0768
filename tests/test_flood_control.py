"""Flood control of slash commands with a fake clock: the per-PR update windows and reply
budget, the installation's reply and write budgets, and their spells."""

import pytest

from bot.commands import CommandConfig, load_command_config
from bot.flood_control import (
    Admission,
    FloodControl,
    Overspent,
    ReplyBudget,
    UpdateWindows,
    _Spells,
)
from bot.markers import reply_key


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


# --- rate limiter --------------------------------------------------------------------


def test_first_request_runs_at_once():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock)
    t = rl.admit("pr1")
    assert t.admission is Admission.RUN
    assert t.run_at == clock.now
    assert rl.start("pr1") is False  # nothing deferred: no job to start


def test_a_flood_turns_into_one_deferred_run_at_the_end_of_the_window():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock)
    assert rl.admit("pr1").admission is Admission.RUN
    clock.advance(1)
    second = rl.admit("pr1")
    assert second.admission is Admission.DEFER
    assert second.run_at == 1005.0
    for _ in range(3, 30):
        clock.advance(0.1)
        t = rl.admit("pr1")
        assert t.admission is Admission.MERGED
        assert t.run_at == 1005.0
    clock.now = 1005.0
    assert rl.start("pr1") is True
    assert rl.start("pr1") is False  # a duplicate job finds nothing to do


def test_after_a_deferred_run_the_next_window_starts_from_it():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock)
    rl.admit("pr1")
    clock.advance(1)
    rl.admit("pr1")
    clock.now = 1005.0
    rl.start("pr1")
    clock.advance(1)  # 1 s after the deferred run: still inside its window
    t = rl.admit("pr1")
    assert t.admission is Admission.DEFER and t.run_at == 1010.0
    clock.now = 1010.0
    assert rl.start("pr1") is True
    clock.advance(5)
    assert rl.admit("pr1").admission is Admission.RUN


def test_requests_spaced_beyond_the_interval_all_run():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock)
    for _ in range(4):
        assert rl.admit("pr1").admission is Admission.RUN
        clock.advance(5)


def test_prs_are_limited_independently():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock)
    assert rl.admit(("o/r", 1)).admission is Admission.RUN
    assert rl.admit(("o/r", 2)).admission is Admission.RUN
    assert rl.admit(("o/r", 1)).admission is Admission.DEFER
    assert rl.admit(("o/x", 1)).admission is Admission.RUN


def test_a_lost_deferred_run_does_not_block_the_pr_forever():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock, lost_after_s=60)
    rl.admit("pr1")
    rl.admit("pr1")  # deferred to 1005; the job is then lost
    clock.now = 1005 + 59
    assert rl.admit("pr1").admission is Admission.MERGED
    clock.now = 1005 + 61
    assert rl.admit("pr1").admission is Admission.RUN  # for all of them
    assert rl.start("pr1") is False  # the lost job, should it start after all


def test_zero_interval_never_defers():
    rl = UpdateWindows(0.0, FakeClock())
    assert all(rl.admit("pr").admission is Admission.RUN for _ in range(5))


def test_limiter_memory_is_bounded():
    clock = FakeClock()
    rl = UpdateWindows(5.0, clock, max_keys=10)
    for i in range(10):
        rl.admit(i)
    rl.admit(0)  # deferred: must survive pruning
    clock.advance(10)
    for i in range(100, 200):
        rl.admit(i)
        clock.advance(10)
    assert len(rl._windows) <= 11
    assert rl.start(0) is True
    # pruning forgets only windows that are over: a PR that has just run stays limited
    # (forgetting it would let a flood through, one run per new PR seen)
    rl = UpdateWindows(5.0, clock, max_keys=2)
    rl.admit("a")
    rl.admit("b")
    rl.admit("c")  # the table is full, but a's and b's windows are still open
    assert rl.admit("a").admission is Admission.DEFER


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError):
        UpdateWindows(-1)
    with pytest.raises(ValueError):
        ReplyBudget(0, 10)
    with pytest.raises(ValueError):
        ReplyBudget(3, 0)


# --- reply budget ----------------------------------------------------------------------


def test_reply_budget_allows_a_burst_then_refills_slowly():
    clock = FakeClock()
    budget = ReplyBudget(3, 30.0, clock)
    assert [budget.allow("pr1") for _ in range(5)] == [True, True, True, False, False]
    assert budget.allow("pr2")  # another PR has its own budget
    clock.advance(29)
    assert not budget.allow("pr1")
    clock.advance(1)  # 30 s after the burst: one reply back (refused attempts cost nothing)
    assert budget.allow("pr1")
    assert not budget.allow("pr1")
    clock.advance(60)  # two more
    assert [budget.allow("pr1") for _ in range(3)] == [True, True, False]
    clock.advance(3600)
    assert [budget.allow("pr1") for _ in range(4)] == [True, True, True, False]


def test_reply_budget_memory_is_bounded():
    clock = FakeClock()
    budget = ReplyBudget(2, 10.0, clock, max_keys=10)
    for i in range(10):
        budget.allow(i)
    assert budget.allow(0) and not budget.allow(0)  # key 0 is spent
    clock.advance(100)  # every bucket is full again, so forgetting them loses nothing
    for i in range(100, 105):
        assert budget.allow(i)
    assert len(budget._buckets) <= 10
    # only full buckets are forgotten: forgetting a spent one would hand its PR a new burst
    budget = ReplyBudget(1, 3600.0, clock, max_keys=2)
    assert budget.allow("a") and budget.allow("b")  # both spent
    assert budget.allow("c")  # the table is full, with nothing full to forget
    assert not budget.allow("a")


# --- a reply not posted is refunded ---------------------------------------------------


def test_a_reply_not_posted_is_refunded_up_to_the_burst():
    """A reply GitHub refused (rate limited, put back) gives its token back, so the
    re-run of its delivery does not pay for it twice; never past the burst."""
    budget = ReplyBudget(1, 30.0, FakeClock())
    assert budget.allow("pr1") and not budget.allow("pr1")
    budget.refund("pr1")
    assert budget.allow("pr1") and not budget.allow("pr1")
    budget.refund("pr1")
    budget.refund("pr1")  # one spent, one back: no more
    assert budget.allow("pr1") and not budget.allow("pr1")


# --- the limiter's bounds: lost_after and max_keys ---


# kills: bot/flood_control.py:UpdateWindows.__init__ `lost_after_s <= 0` -> `lost_after_s < 0`
def test_a_zero_lost_after_is_refused():
    with pytest.raises(ValueError):
        UpdateWindows(1.0, lost_after_s=0)


# kills: bot/flood_control.py:UpdateWindows.admit `now - run_at < self.lost_after_s` -> `<=`
def test_a_deferred_run_is_taken_as_lost_exactly_lost_after_s_past_its_time():
    clock = FakeClock()
    limiter = UpdateWindows(10.0, clock, lost_after_s=60.0)
    assert limiter.admit("k").admission is Admission.RUN
    clock.now += 1
    deferred = limiter.admit("k")
    assert deferred.admission is Admission.DEFER
    clock.now = deferred.run_at + 60.0 - 0.5
    assert limiter.admit("k").admission is Admission.MERGED
    clock.now = deferred.run_at + 60.0
    assert limiter.admit("k").admission is Admission.RUN


# kills: bot/flood_control.py:UpdateWindows._prune `len(self._windows) < self._max_keys` -> `<=`
def test_the_limiter_keeps_at_most_max_keys_windows():
    clock = FakeClock()
    limiter = UpdateWindows(1.0, clock, max_keys=2)
    for key in ("a", "b", "c", "d"):
        assert limiter.admit(key).admission is Admission.RUN
        clock.now += 5  # every earlier window is over: it may go
        assert len(limiter._windows) <= 2


# --- replies across many PRs stay under GitHub's content-creation limit ---------------


def test_replies_across_many_prs_stay_under_githubs_hourly_content_creation_limit():
    """github_facts §3.3: "Content creation: 'In general, no more than 80
    content-generating requests per minute and no more than 500 per hour'" and
    "Continuing to make requests while you are rate limited may result in the banning of
    your integration"; anchors (c)3 (octokit/plugin-throttling#667, 500 content
    writes/hour).

    The only gate on reply comments was a per-PR token bucket (burst 5, one back every
    30 s), so the budget grew with the number of open PRs: one commenter (anyone may say
    `/notes help` on a public PR) asking once on each of 600 PRs within an hour got 600
    reply comments, each also costing two reactions. Past GitHub's 500/hour the App is
    blocked from creating content on every PR, for everyone. The installation's budget,
    shared by its PRs, refuses most of them: a reply and its two reactions, 3 content
    writes each, stay well under 500 an hour."""
    now = [0.0]
    flood = FloodControl(load_command_config(), clock=lambda: now[0])
    allowed = 0
    for i in range(600):  # one request every 6 s, each on another PR: one hour
        now[0] = i * 6.0
        allowed += flood.allow_reply(f"o/r#{1000 + i}", 1001) is None
    assert 3 * allowed < 500, f"{allowed} reply comments allowed in one hour"
    assert flood.allow_reply("o/r#1", 2002) is None  # another installation has its own


# --- the installation's budget says once that it starts refusing ----------------------


def test_the_installations_reply_budget_says_first_when_it_starts_refusing():
    """A refusal tells which budget refused, and whether it is the installation's first
    since its budget was last full (the one to log). A PR's spent budget costs the
    installation nothing; a refund gives both back."""
    clock = FakeClock()
    config = CommandConfig(
        reply_burst=1, installation_reply_burst=2, installation_reply_refill_s=60.0
    )
    flood = FloodControl(config, clock)
    assert flood.allow_reply("pr1", 7) is None
    assert flood.allow_reply("pr1", 7) == Overspent()  # the PR's budget, not the installation's
    assert flood.allow_reply("pr2", 7) is None
    assert flood.allow_reply("pr3", 7) == Overspent(installation=True, first=True)
    assert flood.allow_reply("pr4", 7) == Overspent(installation=True, first=False)
    clock.advance(60)
    assert flood.allow_reply("pr3", 7) is None  # pr3's own reply was not spent when refused
    # one refill is not the spell's end: not said again
    assert flood.allow_reply("pr4", 7) == Overspent(installation=True, first=False)
    flood.refund_reply("pr3", 7)
    assert flood.allow_reply("pr4", 7) is None
    clock.advance(120)  # full again: the spell is over
    assert flood.allow_reply("pr5", 7) is None
    assert flood.allow_reply("pr6", 7) is None
    assert flood.allow_reply("pr7", 7) == Overspent(installation=True, first=True)  # said again


def test_a_sustained_flood_is_warned_of_once_not_at_every_refill():
    """docs/commands.md: past the installation's budget "the log says once (a warning naming the
    installation) that replies are refused". A spell ended at the next allowed reply, and
    under a sustained flood the bucket lets one through every refill (36 s), so the flood
    the budget was made for (a command every 6 s on another PR, for an hour) logged 99
    warnings, one per refill, and an alert on WARNING fired all hour."""
    now = [0.0]
    flood = FloodControl(load_command_config(), clock=lambda: now[0])
    warned = 0
    for i in range(600):
        now[0] = i * 6.0
        refused = flood.allow_reply(f"o/r#{1000 + i}", 1001)
        warned += bool(refused and refused.first)
    assert warned <= 2, f"{warned} warnings for one hour-long flood"


# --- every write a command causes is paid from the installation's budget ---


def test_the_installations_write_budget_is_taken_whole_or_not_at_all():
    """A comment's writes are reserved at once: refused, nothing is spent, so a smaller
    comment may still fit; what was not written is given back. The first refusal
    since the budget was last full begins a spell (the one to log and 😕); a refill is
    not its end, a full budget is."""
    clock = FakeClock()
    config = CommandConfig(installation_write_burst=10, installation_write_refill_s=60.0)
    flood = FloodControl(config, clock)
    assert flood.reserve_writes(7, 4) is None
    assert flood.reserve_writes(7, 4) is None
    assert flood.reserve_writes(7, 4) == Overspent(installation=True, first=True)
    assert flood.reserve_writes(7, 3) == Overspent(installation=True, first=False)
    assert flood.reserve_writes(8, 4) is None  # another installation has its own
    flood.refund_writes(7, 1)  # one of them wrote 3
    assert flood.reserve_writes(7, 3) is None  # 2 left, and 1 back
    clock.advance(4 * 60)  # 4 back: not full, the spell goes on
    assert flood.reserve_writes(7, 5) == Overspent(installation=True, first=False)
    assert flood.reserve_writes(7, 4) is None
    flood.refund_writes(7, 0)  # nothing to give back
    clock.advance(10 * 60)  # full again: the spell is over
    assert flood.reserve_writes(7, 10) is None
    assert flood.reserve_writes(7, 1) == Overspent(installation=True, first=True)
    flood.refund_writes(7, 50)  # never past the burst
    assert flood.installation_writes.left(7) == 10


def test_commands_writes_across_many_prs_stay_under_githubs_hourly_limit_with_room_left():
    """github_facts §3.3: no more than 500 content-generating requests an hour (and 80 a
    minute), reactions and edits included. A command every 6 s for an hour, each on
    another PR, each the most a single `/notes` or `/notes help` writes (3, reserved 4):
    with the shipped config the commands write at most 300 an hour and the burst,
    leaving the rest to the notes comments of PR events; past the budget one 😕 a
    spell."""
    now = [0.0]
    config = load_command_config()
    flood = FloodControl(config, clock=lambda: now[0])
    writes = 0
    per_minute: dict[int, int] = {}
    for i in range(600):
        now[0] = i * 6.0
        refused = flood.reserve_writes(1001, 4)
        wrote = 3 if refused is None else int(refused.first)
        if refused is None:
            flood.refund_writes(1001, 1)
        writes += wrote
        per_minute[i // 10] = per_minute.get(i // 10, 0) + wrote
    assert writes <= 3600 / config.installation_write_refill_s + config.installation_write_burst
    assert writes <= 350, writes  # 150 left for the notes comments
    assert max(per_minute.values()) <= 40, per_minute  # of GitHub's 80 a minute


def test_a_prs_spent_reply_budget_refuses_its_next_reply_commands_until_it_has_one():
    """Past its PR's reply budget the first command is refused (😕); the next that want
    only replies are not answered at all (`refusing`), as past the installation's, so a
    flood on one PR does not spend the installation's write budget on 👀 and 😕."""
    clock = FakeClock()
    flood = FloodControl(CommandConfig(reply_burst=2, reply_refill_s=30.0), clock)
    assert not flood.refusing(7, "pr1")
    assert flood.allow_reply("pr1", 7) is None
    assert flood.allow_reply("pr1", 7) is None
    assert not flood.refusing(7, "pr1")  # no refusal yet: the next is told (😕)
    assert flood.allow_reply("pr1", 7) == Overspent()
    assert flood.refusing(7, "pr1") and not flood.refusing(7, "pr2") and not flood.refusing(7)
    clock.advance(30)  # one back: answered
    assert not flood.refusing(7, "pr1")
    assert flood.allow_reply("pr1", 7) is None
    assert flood.refusing(7, "pr1")  # none left, and the spell goes on


def test_spells_forget_the_keys_whose_budget_is_full_again():
    clock = FakeClock()
    budget: ReplyBudget[str] = ReplyBudget(1, 10.0, clock)
    spells = _Spells(budget, max_keys=2)
    for key in ("a", "b"):
        assert budget.allow(key) and spells.refuse(key)
    clock.advance(10)  # both full again
    assert budget.allow("c") and spells.refuse("c")
    assert spells._refusing == {"c"}


# --- a re-run's writes, past the budget ---


def test_a_re_runs_writes_are_taken_past_the_budget_and_paid_back_by_the_refills():
    """What `run_commands` takes for a delivery's re-run: its writes whatever the budget
    has left, the bucket going below zero; nothing is let through again (`allow`,
    `reserve_writes`) until the refills have paid that back, the spell lasts until the
    budget is full again, and a refund never fills it past its burst."""
    clock = FakeClock()
    flood = FloodControl(
        CommandConfig(installation_write_burst=10, installation_write_refill_s=60.0), clock
    )
    budget = flood.installation_writes
    assert flood.reserve_writes(7, 10) is None  # spent
    refused = flood.reserve_writes(7, 4)
    assert refused is not None and refused.first
    flood.take_writes(7, 4)  # a re-run: never refused
    assert budget.left(7) == -4
    flood.refund_writes(7, 1)  # one of them not written
    assert budget.left(7) == -3
    clock.advance(60 * 3)  # the refills pay back what the re-run took past the budget
    assert budget.left(7) == 0
    assert flood.reserve_writes(7, 1) == Overspent(installation=True, first=False)
    clock.advance(60)
    assert flood.reserve_writes(7, 1) is None
    flood.take_writes(8, 0)  # nothing to take: another installation untouched
    assert budget.left(8) == 10
    flood.refund_writes(7, 50)
    assert budget.left(7) == 10  # never past the burst
    clock.advance(60)
    assert flood.reserve_writes(7, 1) is None and flood.reserve_writes(7, 10).first


def test_take_prunes_full_buckets_past_max_keys_as_allow_does():
    clock = FakeClock()
    budget: ReplyBudget[str] = ReplyBudget(2, 10.0, clock, max_keys=2)
    budget.take("a", 3)
    assert budget.allow("b")
    clock.advance(100)  # both full again
    budget.take("c")
    assert set(budget._buckets) == {"c"} and budget.left("c") == 1


def test_only_deliveries_admitted_before_count_as_admitted_and_the_oldest_are_forgotten():
    flood = FloodControl(load_command_config(), clock=lambda: 0.0)
    assert not flood.admitted("d1"), "a delivery never admitted (put back before it asked)"
    flood.admit("d1", max_kept=2)
    flood.admit("d2", max_kept=2)
    assert flood.admitted("d1") and flood.admitted("d2")
    flood.admit("d1", max_kept=2)  # admitted again: the newest now
    flood.admit("d3", max_kept=2)
    assert flood.admitted("d1") and flood.admitted("d3") and not flood.admitted("d2")


# --- the budgets' edges: refills, prepaid writes, spells of refusals ---


# kills: bot/flood_control.py:UpdateWindows._prune `now - w.last_run >= self.min_interval_s` -> `>`
def test_pruning_forgets_windows_that_ended_exactly_now():
    """A window is over `min_interval_s` after its run (`admit` RUNs then), so the
    pruning that keeps the table at `max_keys` may forget it."""
    clock = FakeClock()
    limiter = UpdateWindows(5.0, clock, max_keys=2)
    limiter.admit("a")
    limiter.admit("b")
    clock.advance(5.0)
    assert limiter.admit("c").admission is Admission.RUN
    assert set(limiter._windows) == {"c"}


# kills: bot/flood_control.py:ReplyBudget.__init__ `refill_s <= 0` -> `refill_s <= 1`
def test_a_sub_second_refill_is_accepted():
    clock = FakeClock()
    budget = ReplyBudget(1, 0.5, clock)
    assert budget.allow("pr1") and not budget.allow("pr1")
    clock.advance(0.5)
    assert budget.allow("pr1")


# kills: bot/flood_control.py:Overspent `installation: bool = False` -> `True`,
#        bot/flood_control.py:Overspent `first: bool = False` -> `True`
def test_a_prs_spent_reply_budget_is_not_said_to_be_the_installations():
    flood = FloodControl(CommandConfig(reply_burst=1), FakeClock())
    assert flood.allow_reply("pr1", 7) is None
    refused = flood.allow_reply("pr1", 7)
    assert refused is not None
    assert (refused.installation, refused.first) == (False, False)


# kills: bot/flood_control.py:FloodControl.take_writes `writes > 0` -> `writes > 1`
def test_a_re_run_taking_one_write_spends_one():
    flood = FloodControl(CommandConfig(installation_write_burst=10), FakeClock())
    flood.take_writes(7, 1)
    assert flood.installation_writes.left(7) == 9


# kills: bot/flood_control.py:_keep `len(kept) >= max_kept` -> `>` (FloodControl.prepaid's),
#        and :_claim `return False` -> `return None` (claim_prepaid's)
def test_a_prepaid_write_is_claimed_once_and_the_oldest_are_forgotten():
    flood = FloodControl(load_command_config(), clock=lambda: 0.0)
    assert flood.claim_prepaid("d0") is False  # never prepaid
    for delivery in ("d1", "d2", "d3"):
        flood.prepaid(delivery, max_kept=2)
    assert flood.claim_prepaid("d1") is False  # forgotten past max_kept
    assert flood.claim_prepaid("d3") is True
    assert flood.claim_prepaid("d3") is False  # once
    assert flood.claim_prepaid("d2") is True


# kills (a hand mutant): bot/flood_control.py:FloodControl.allow_reply
# `self._pr_reply_spells.mend(pr)` dropped
def test_a_prs_spell_of_refusals_ends_once_its_budget_is_full_again():
    clock = FakeClock()
    flood = FloodControl(CommandConfig(reply_burst=2, reply_refill_s=30.0), clock)
    assert flood.allow_reply("pr1", 7) is None and flood.allow_reply("pr1", 7) is None
    assert flood.allow_reply("pr1", 7) == Overspent()
    clock.advance(60)  # full again: that spell is over
    assert flood.allow_reply("pr1", 7) is None and flood.allow_reply("pr1", 7) is None
    assert not flood.refusing(7, "pr1")  # spent, but not refused yet: the next is told (😕)


# kills (a hand mutant): bot/flood_control.py:FloodControl.admit `self._admitted.pop(delivery,
# None)` dropped
def test_admitting_a_delivery_again_forgets_no_other():
    flood = FloodControl(load_command_config(), clock=lambda: 0.0)
    for delivery in ("d1", "d2", "d3", "d2"):  # d2 again: the newest now, and no more kept
        flood.admit(delivery, max_kept=3)
    assert all(flood.admitted(d) for d in ("d1", "d2", "d3"))
    flood.admit("d4", max_kept=3)
    assert [flood.admitted(d) for d in ("d1", "d2", "d3", "d4")] == [False, True, True, True]


# --- refunds; refusals under the installation's spell; held replies ------------------------


# kills: bot/flood_control.py:ReplyBudget.refund its default `n=1` -> 2: a reply not posted
#        gave back two, one more than it spent (FloodControl.refund_reply uses the default)
def test_a_refund_gives_back_one_reply_not_more():
    budget = ReplyBudget(3, 60.0, FakeClock())
    assert budget.allow("pr1") and budget.allow("pr1")
    budget.refund("pr1")
    assert budget.left("pr1") == 2.0


def test_an_installations_spent_reply_budget_refuses_the_reply_commands_of_all_its_prs():
    """Past the installation's reply budget the first command is refused (😕, said in the
    log); then every command that wants only replies, on any of its PRs, is not answered
    at all, while another installation's (and the token's, keyed None) are, until a reply
    is back. The spell goes on until the budget is full again."""
    clock = FakeClock()
    flood = FloodControl(
        CommandConfig(reply_burst=5, installation_reply_burst=2, installation_reply_refill_s=30.0),
        clock,
    )
    assert flood.allow_reply("pr1", 7) is None and flood.allow_reply("pr2", 7) is None
    assert not flood.refusing(7) and not flood.refusing(7, "pr3")  # no refusal yet: 😕 next
    assert flood.allow_reply("pr3", 7) == Overspent(installation=True, first=True)
    assert flood.refusing(7) is True
    assert flood.refusing(7, "pr1") and flood.refusing(7, "pr3"), "its PRs' budgets are not spent"
    assert not flood.refusing(8, "pr1") and not flood.refusing(None, "pr1")
    clock.advance(30)  # one back: answered
    assert not flood.refusing(7, "pr3")
    assert flood.allow_reply("pr3", 7) is None
    assert flood.refusing(7, "pr4")  # none left, and the spell goes on


def test_the_tokens_installation_is_refused_on_its_own():
    """A token's single identity (installation None) has its spell, not shared with an
    installation's."""
    flood = FloodControl(CommandConfig(installation_reply_burst=1), FakeClock())
    assert flood.allow_reply("pr1", None) is None
    assert flood.allow_reply("pr2", None) == Overspent(installation=True, first=True)
    assert flood.refusing(None, "pr1") and flood.refusing(None)
    assert not flood.refusing(7, "pr1")


def test_a_held_reply_is_claimed_once_by_its_re_run_and_stays_paid():
    """A reply whose POST failed unsure GitHub took it is kept paid (`hold_reply`): its
    re-run claims it once (`held_reply`) and asks no budget; no other key is held, and
    holding it gives nothing back to the budgets."""
    flood = FloodControl(CommandConfig(reply_burst=2, installation_reply_burst=2), FakeClock())
    assert flood.held_reply(reply_key("d1", 0)) is False  # never held: the re-run pays
    assert flood.allow_reply("pr1", 7) is None
    flood.hold_reply(reply_key("d1", 0))
    assert flood.replies.left("pr1") == 1 and flood.installation_replies.left(7) == 1
    assert flood.held_reply(reply_key("d1", 1)) is False
    assert flood.held_reply(reply_key("d1", 0)) is True
    assert flood.held_reply(reply_key("d1", 0)) is False  # once: a later run pays as a first run


def test_the_oldest_held_replies_are_forgotten_past_max_kept():
    flood = FloodControl(load_command_config(), clock=lambda: 0.0)
    keys = [reply_key(delivery, 0) for delivery in ("d1", "d2", "d3")]
    for key in keys:
        flood.hold_reply(key, max_kept=2)
    assert [flood.held_reply(k) for k in keys] == [False, True, True]

"""Prometheus metrics for the server, one registry per app instance.

A registry of its own (not prometheus-client's global one) lets tests and
benchmarks build several apps in one process without duplicate-metric errors.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.deliveries = Counter(
            "review_notes_deliveries_total",
            "Webhook deliveries by event and outcome",
            ["event", "outcome"],
            registry=r,
        )
        self.pruned = Counter(
            "review_notes_deliveries_pruned_total",
            "Finished deliveries deleted after REVIEW_NOTES_DELIVERY_RETENTION_DAYS, by state",
            ["state"],
            registry=r,
        )
        self.retention_passes = Counter(
            "review_notes_retention_passes_total",
            "Passes of retention (at start and hourly) by outcome (done; failed: a pass that"
            " met an error, a read-only file, a full disk or a damaged page, tried again the"
            " next hour)",
            ["outcome"],
            registry=r,
        )
        self.queue_depth = Gauge(
            "review_notes_queue_depth", "Deliveries by queue state", ["state"], registry=r
        )
        self.queue_waiting_on_github = Gauge(
            "review_notes_queue_waiting_on_github",
            "Pending deliveries put back as GitHub failed (5xx, network): they run again by"
            " themselves; a count that stays up means GitHub, or the way to it, is down",
            registry=r,
        )
        self.queue_oldest_pending = Gauge(
            "review_notes_queue_oldest_pending_seconds",
            "Seconds since the longest-waiting pending delivery was queued or put back, or"
            " came due when queued for later (0: none pending and due); growing while no"
            " rate limit pause is under way: the queue is stalled",
            registry=r,
        )
        self.processing_seconds = Histogram(
            "review_notes_processing_seconds",
            "Time from claiming a delivery to finishing it",
            ["event"],
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
            registry=r,
        )
        self.github_calls = Counter(
            "review_notes_github_calls_total",
            "GitHub API calls by endpoint and HTTP status",
            ["method", "endpoint", "status"],
            registry=r,
        )
        self.ratelimit_remaining = LastSeenGauge(
            "review_notes_github_ratelimit_remaining",
            "Last x-ratelimit-remaining seen from GitHub, by identity (installation: the"
            " deliveries' calls; app: the App's JWT, its token mints and redelivery sweeps;"
            " token); no sample before GitHub's first answer",
            "identity",
            registry=r,
        )
        self.ratelimit_pauses = Counter(
            "review_notes_github_ratelimit_pauses_total",
            "GitHub rate limit answers that paused every call of an installation (or the"
            " token) until the time GitHub gave, one per pause",
            registry=r,
        )
        self.ratelimit_paused = Gauge(
            "review_notes_github_ratelimit_paused_seconds",
            "Seconds left of a GitHub rate limit pause under way: no call until then (0: none)",
            registry=r,
        )
        self.workers_failing = Gauge(
            "review_notes_workers_failing_seconds",
            "Seconds the longest-failing worker has failed to claim a delivery or record its"
            " outcome in the database (0: none is failing)",
            registry=r,
        )
        self.workers_ended = Gauge(
            "review_notes_workers_ended",
            "Workers whose thread ended while the server runs (a run raised what ends a"
            " thread): the queue goes on with fewer until a restart (0: none)",
            registry=r,
        )
        self.pr_values_read_around = Gauge(
            "review_notes_pr_values_read_around",
            "Values of PRs' state that did not read since the start (damaged text where the"
            " state keeps JSON), read around: those PRs work; the file may be damaged"
            " (0: none)",
            registry=r,
        )
        self.comments = Counter(
            "review_notes_comments_total",
            "Sticky comment upserts by outcome (created, updated, unchanged, skipped)",
            ["outcome"],
            registry=r,
        )
        self.feedback = Counter(
            "review_notes_marked_not_relevant_total",
            "Notes reviewers marked as not relevant to a PR (`/notes wrong`), by note",
            ["note"],
            registry=r,
        )
        self.commands_refused = Counter(
            "review_notes_commands_refused_total",
            "Comments whose commands were not run for a flood, by the budget that refused"
            " them (write: the installation's write budget; reply: a reply budget)",
            ["budget"],
            registry=r,
        )
        self.redelivery_sweeps = Counter(
            "review_notes_redelivery_sweeps_total",
            "Sweeps of GitHub's webhook delivery log (at start and every"
            " REVIEW_NOTES_REDELIVER_EVERY_MINUTES), by outcome (done, stopped: cut short by"
            " a rate limit or a stop; waiting: not run, no delivery from GitHub stored since"
            " the last one's redeliveries; failed: GitHub refused the listing or it broke)",
            ["outcome"],
            registry=r,
        )
        self.redeliveries = Counter(
            "review_notes_redeliveries_total",
            "Failed webhook deliveries the sweeps asked GitHub for again, by outcome (asked:"
            " GitHub accepted; refused; given_up: asked the most times, never delivered)",
            ["outcome"],
            registry=r,
        )
        self._zero_what_alerts_watch()
        self._collect_hooks: list[Callable[[], None]] = []
        # Prometheus run as a pair scrapes at the same moment, each scrape in a thread of
        # its own: a hook that copies running totals (what it copied, then the rest) counted
        # them twice when two ran at once
        self._rendering = threading.Lock()

    def _zero_what_alerts_watch(self) -> None:
        """A sample of 0 for each outcome docs/operating.md says to alert on, before its first
        count: a labelled series is born at its first count, and `increase()` sees no rise in a
        series that starts at 1 (the start's sweep failing, the first 401 of a rotated
        secret). The intake's refusals are named as bot.webhook counts them."""
        for outcome in ("done", "stopped", "waiting", "failed"):
            self.redelivery_sweeps.labels(outcome)
        for outcome in ("asked", "refused", "given_up"):
            self.redeliveries.labels(outcome)
        for outcome in ("done", "failed"):
            self.retention_passes.labels(outcome)
        for outcome in ("bad_signature", "wrong_path", "too_large", "too_slow", "bad_length"):
            self.deliveries.labels("unverified", outcome)
        for budget in ("write", "reply"):
            self.commands_refused.labels(budget)

    def zero_failures(self, events: Iterable[str]) -> None:
        """A sample of 0 for the deliveries of these events that fail (`failed`) or that
        SQLite refuses at intake (`error`), as for `_zero_what_alerts_watch`: the first to
        fail after a start showed an alert no rise."""
        for event in events:
            for outcome in ("failed", "error"):
                self.deliveries.labels(event, outcome)

    def on_collect(self, hook: Callable[[], None]) -> None:
        """Run `hook` before each scrape (e.g. to read queue depth from SQLite)."""
        self._collect_hooks.append(hook)

    def render(self) -> bytes:
        with self._rendering:
            for hook in self._collect_hooks:
                hook()
            return generate_latest(self.registry)


class LastSeenGauge:
    """A gauge of one label without a sample for a label value until `set`: a plain Gauge
    starts at 0, and a rate limit of 0 before any GitHub call (or ever, in dry run) reads
    as exhausted to an alert."""

    def __init__(self, name: str, documentation: str, label: str, registry: CollectorRegistry):
        self.name, self.documentation, self.label = name, documentation, label
        self.values: dict[str, float] = {}
        registry.register(self)

    def set(self, label_value: str, value: float) -> None:
        self.values[label_value] = value

    def _family(self) -> GaugeMetricFamily:
        return GaugeMetricFamily(self.name, self.documentation, labels=[self.label])

    def describe(self) -> list[Metric]:
        return [self._family()]

    def collect(self) -> Iterator[Metric]:
        family = self._family()
        for label_value, value in sorted(self.values.items()):
            family.add_metric([label_value], value)
        yield family

"""Everything a handler needs, wired once at start-up and shared by the workers."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from bot.commands import CommandConfig, Reading
from bot.decision_store import DecisionStore
from bot.feedback_store import FeedbackStore
from bot.flood_control import Clock, FloodControl
from bot.github_port import GitHubPort
from bot.library import Library
from bot.locked_commands import LockedCommands
from bot.markers import comment_key
from bot.matching import CompiledMatcher
from bot.metrics import Metrics
from bot.prstate import PRStore
from bot.queue import DeliveryQueue
from bot.render import NoteLinks, RenderOptions
from bot.settings import Settings


@dataclass(frozen=True)
class BotContext:
    settings: Settings
    library: Library
    matcher: CompiledMatcher  # the library and matching config, compiled once at start
    github: GitHubPort
    prs: PRStore
    metrics: Metrics = field(default_factory=Metrics)
    command_word: str = ""  # "" until resolved from the settings
    commands: CommandConfig = field(kw_only=True)  # config/commands.toml, read by the caller
    clock: Clock = time.monotonic  # flood control's clock (tests freeze it)
    queue: DeliveryQueue | None = None  # for follow-up work (a deferred comment update)
    flood: FloodControl = field(init=False, repr=False, compare=False)
    feedback: FeedbackStore = field(init=False, repr=False, compare=False)  # in the PRs' file
    decisions: DecisionStore = field(init=False, repr=False, compare=False)  # in the PRs' file
    locked: LockedCommands = field(init=False, repr=False, compare=False)  # in the PRs' file
    # how its commands are read, by every part that compares their keys (`command_reading`)
    _reading: Reading = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.matcher.library is not self.library:  # the comment would link other notes
            raise ValueError("the matcher was compiled for another library than the context's")
        if not self.command_word:  # REVIEW_NOTES_COMMAND, else the commands config's word
            object.__setattr__(self, "command_word", self.settings.command or self.commands.word)
        # Per process, like the workers: rebuilt by dataclasses.replace.
        object.__setattr__(self, "flood", FloodControl(self.commands, self.clock))
        object.__setattr__(self, "feedback", FeedbackStore(self.prs.db))
        object.__setattr__(self, "decisions", DecisionStore(self.prs.db))
        object.__setattr__(self, "locked", LockedCommands(self.prs.db))
        # built once: its topics by name cost more than a parse (a `topic` is keyed by the
        # topic it names)
        reading = Reading.of(self.commands, self.command_word, self.library.topics.values())
        object.__setattr__(self, "_reading", reading)

    @property
    def command_reading(self) -> Reading:
        """How its commands are read, by every part that compares their keys."""
        return self._reading

    @property
    def comment_key(self) -> bytes:
        """What signs the notes comment (bot.markers `signed_text`): from the webhook
        secret; a dry run's development secret is public, so a dry run's signatures
        prove nothing."""
        return comment_key(self.settings.webhook_secret())

    @property
    def comment_keys(self) -> tuple[bytes, ...]:
        """What a notes comment's signature verifies with: `comment_key`, then the key of
        the webhook secret before a rotation, while the operator keeps it (the comments
        signed with it are signed anew at their next write)."""
        previous = self.settings.previous_webhook_secrets()
        return (self.comment_key, *(comment_key(s) for s in previous))

    @property
    def links(self) -> NoteLinks:
        s = self.settings
        return NoteLinks(
            mode=s.note_links,
            base_url=s.links_base(),
            repo=s.notes_github_repo,
            branch=s.notes_github_branch,
            directory=s.notes_github_dir,
            files=self.library.files,
        )

    def render_options(self, *, verbose: bool = False, had_notes: bool = True) -> RenderOptions:
        return RenderOptions(
            links=self.links,
            command=self.command_word,
            verbose=verbose,
            had_notes=had_notes,
            opt_out_label=self.settings.opt_out_label,
        )

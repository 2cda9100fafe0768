"""The handlers' context (bot.context.BotContext), wired at start-up: what it refuses and
what of the settings reaches the comment through it."""

from __future__ import annotations

import pytest

from bot.commands import load_command_config
from bot.context import BotContext
from bot.db import Database
from bot.dryrun import DryRunGitHub
from bot.library import load_library
from bot.match_config import load_match_config
from bot.matching import CompiledMatcher
from bot.prstate import PRStore
from tests.webhook_kit import (
    MATCHING_FILES,
    MATCHING_TITLE,
    clean_env,
    deliver_pr,
    make_settings,
    serving,
)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


# --- a matcher compiled for another library; the command word and public URL ---


# kills: bot/context.py:BotContext.__post_init__ hand: a matcher compiled for another library is
# taken
def test_a_matcher_compiled_for_another_library_is_refused(tmp_path):
    # its note indexes point into the other library: the comment would link other notes
    db = Database(tmp_path / "s.sqlite3")
    matcher = CompiledMatcher(load_library(), load_match_config())
    with pytest.raises(ValueError, match="compiled for another library"):
        BotContext(
            make_settings(tmp_path),
            load_library(),
            matcher,
            DryRunGitHub(db),
            PRStore(db),
            commands=load_command_config(),
        )
    db.close()


# kills: bot/context.py:BotContext.__post_init__ hand: the command word is the commands config's,
# not REVIEW_NOTES_COMMAND
# kills: bot/context.py:BotContext.render_options hand: the comment names the default command word,
# not the context's
# kills: bot/context.py:BotContext.links hand: the note links ignore PUBLIC_URL
def test_the_comment_names_the_configured_command_word_and_links_under_public_url(tmp_path):
    settings = make_settings(tmp_path, command="/rn", public_url="https://notes.example.org")
    with serving(settings) as (client, rt):
        assert rt.ctx.command_word == "/rn"
        deliver_pr(client, rt, title=MATCHING_TITLE, files=MATCHING_FILES)
        (comment,) = rt.dry_run.comments("vllm-project/vllm", 7001)
    assert "`/rn off`" in comment["body"] and "/notes " not in comment["body"]
    assert "(https://notes.example.org/notes/" in comment["body"]

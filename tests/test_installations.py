"""Installation events: read from GitHub's own example payloads, answered at once."""

from __future__ import annotations

import json
import logging

import pytest

from bot.installations import describe, installation_change
from bot.server import build_runtime
from bot.signature import sign
from bot.webhook import WebhookEndpoint
from tests.fake_github import DEFAULT_REPO
from tests.webhook_kit import (
    SECRET,
    clean_env,
    make_settings,
    octokit_examples,
    post,
    renamed,
    serving,
)


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    clean_env(monkeypatch)


def test_every_example_payload_is_read():
    seen = set()
    for event in ("installation", "installation_repositories"):
        for payload in octokit_examples(event):
            change = installation_change(event, payload)
            assert change.installation_id == payload["installation"]["id"]
            assert change.account == payload["installation"]["account"]["login"]
            seen.add((event, change.action, change.repos))
    assert ("installation", "created", ("Codertocat/Hello-World",)) in seen
    assert ("installation", "suspend", ()) in seen
    assert ("installation_repositories", "added", ("Codertocat/Space",)) in seen
    assert ("installation_repositories", "removed", ("octocat/Hello-World",)) in seen


@pytest.mark.parametrize(
    ("mangle", "field"),
    [
        (lambda p: p.pop("installation"), "installation: not an object"),
        (lambda p: p["installation"].update(id="7"), "installation.id"),
        (lambda p: p["installation"].update(id=True), "installation.id"),
        (lambda p: p.update(action=3), "action"),
        (lambda p: p["repositories"].append({"name": "x"}), "repositories: an entry"),
        # kills: bot/installations.py:installation_change installation.id 0 or 2**63 taken for an id
        (lambda p: p["installation"].update(id=0), "installation.id"),
        (lambda p: p["installation"].update(id=2**63), "installation.id"),  # past SQLite's
        # kills: bot/installations.py:installation_change a full_name that is not a string taken for
        # a name
        (lambda p: p["repositories"].append({"full_name": 7}), "repositories: an entry"),
    ],
)
def test_a_payload_not_of_github_s_shape_names_the_field(mangle, field):
    payload = octokit_examples("installation")[1]  # created, one repository
    mangle(payload)
    with pytest.raises(ValueError, match=field):
        installation_change("installation", payload)


def test_the_log_names_repositories_the_allow_list_leaves_out_and_a_suspension():
    created = installation_change("installation", octokit_examples("installation")[1])
    what, warning = describe(created, lambda repo: repo == "vllm-project/vllm")
    assert what == "installation 957387 (Codertocat): installation.created [Codertocat/Hello-World]"
    assert "Codertocat/Hello-World, not on the allow-list" in warning
    assert describe(created, lambda repo: True)[1] == ""
    # a repository the allow-list leaves out taken off the App changes nothing the bot
    # does: INFO; an allow-listed one lost is a WARNING (test_losing_an_allow_listed_...)
    removed = [p for p in octokit_examples("installation_repositories") if p["action"] == "removed"]
    removal = installation_change("installation_repositories", removed[0])
    assert describe(removal, lambda repo: repo == "vllm-project/vllm")[1] == ""
    suspend = [p for p in octokit_examples("installation") if p["action"] == "suspend"]
    assert "is suspended" in describe(installation_change("installation", suspend[0]), bool)[1]


def test_installation_events_are_answered_at_once_and_nothing_is_queued(tmp_path, caplog):
    with serving(make_settings(tmp_path)) as (client, rt):
        for event in ("installation", "installation_repositories"):
            for i, payload in enumerate(octokit_examples(event)):
                with caplog.at_level(logging.INFO, logger="review_notes"):
                    r = post(client, event, payload, delivery=f"{event}-{i}")
                assert r.status_code == 200, r.text
                assert r.json() == {
                    "status": "noted",
                    "installation": payload["installation"]["id"],
                }
        assert rt.queue.counts() == {} or sum(rt.queue.counts().values()) == 0
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("Codertocat/Space, not on the allow-list" in w for w in warnings)
        bad = octokit_examples("installation")[0]
        bad["installation"]["id"] = "1"
        r = post(client, "installation", bad)
        assert r.status_code == 400 and "installation.id" in r.json()["error"]
        r = post(client, "installation", octokit_examples("installation")[0], secret="wrong")
        assert r.status_code == 401


def test_a_renamed_account_warns_that_the_allow_list_and_notes_name_the_old_one():
    change = installation_change("installation_target", renamed())
    assert (change.installation_id, change.account, change.renamed_from) == (
        4242,
        "vllm-org",
        "vllm-project",
    )
    what, warning = describe(change, bool)
    assert what == "installation 4242 (vllm-org): installation_target.renamed"
    assert "vllm-project/..." in warning and "REVIEW_NOTES_REPOS" in warning
    slug = renamed()
    slug["account"] = {"slug": "vllm-ent", "id": 3}
    slug["changes"] = {"slug": {"from": "old-ent"}}
    assert installation_change("installation_target", slug).renamed_from == "old-ent"
    broken = renamed()
    broken["changes"] = {"login": {"from": None}}
    with pytest.raises(ValueError, match="changes.login.from"):
        installation_change("installation_target", broken)


def test_a_rename_is_answered_at_once_with_a_warning(tmp_path, caplog):
    # that it forgets the installation's token: tests/test_e2e.py
    with serving(make_settings(tmp_path)) as (client, rt):
        with caplog.at_level(logging.INFO, logger="review_notes"):
            r = post(client, "installation_target", renamed())
        assert (r.status_code, r.json()) == (200, {"status": "noted", "installation": 4242})
        assert sum(rt.queue.counts().values()) == 0
        warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("was vllm-project" in w for w in warnings)
        broken = renamed()
        del broken["changes"]
        r = post(client, "installation_target", broken)
        assert r.status_code == 400 and "changes.login.from" in r.json()["error"]


# --- losing an allow-listed repository is a warning, as a suspension is ---


@pytest.mark.parametrize(
    ("event", "action"), [("installation", "deleted"), ("installation_repositories", "removed")]
)
def test_losing_an_allow_listed_repository_is_a_warning_like_a_suspension(event, action):
    # An owner uninstalls the App, or takes vllm-project/vllm out of its repositories:
    # GitHub sends no more events for it, so the bot goes quiet for good, /healthz stays
    # "ok" with nothing failed; the one trace was an INFO line, while a suspension (which
    # GitHub undoes) got a WARNING.
    payload = next(p for p in octokit_examples(event) if p["action"] == action)
    field = "repositories_removed" if event == "installation_repositories" else "repositories"
    payload[field] = [dict(payload[field][0], full_name=DEFAULT_REPO, name="vllm")]
    change = installation_change(event, payload)
    assert change.repos == (DEFAULT_REPO,)
    what, warning = describe(change, lambda repo: repo == DEFAULT_REPO)
    assert DEFAULT_REPO in warning and "no more events" in warning, f"only at INFO: {what!r}"


# --- installation events: unsuspended, an enterprise's slug, no login, renames ---


# kills: bot/installations.py:InstallationChange.adds unsuspend not counted as giving repositories
def test_an_unsuspended_installation_names_repositories_the_allow_list_leaves_out():
    # Unsuspended, the App acts again on every repository it covers: as on a new
    # installation, the operator learns which ones the allow-list leaves out.
    payload = next(p for p in octokit_examples("installation") if p["action"] == "unsuspend")
    payload["repositories"] = [{"id": 1, "name": "Space", "full_name": "Codertocat/Space"}]
    what, warning = describe(installation_change("installation", payload), lambda r: False)
    assert "installation.unsuspend [Codertocat/Space]" in what
    assert "Codertocat/Space, not on the allow-list" in warning


# kills: bot/installations.py:_login an enterprise's slug not read as its name
def test_an_enterprise_account_is_named_by_its_slug_in_the_log():
    slug = renamed()
    slug["account"] = {"slug": "vllm-ent", "id": 3}
    slug["changes"] = {"slug": {"from": "old-ent"}}
    what, warning = describe(installation_change("installation_target", slug), bool)
    assert what == "installation 4242 (vllm-ent): installation_target.renamed"
    assert "now name vllm-ent/..." in warning


# kills: bot/installations.py:installation_change an account with no login named "" instead of "?"
# kills: bot/installations.py:_login a login that is not a string taken for a name
@pytest.mark.parametrize("account", [None, {"login": 42, "id": 1}])
def test_an_installation_without_an_account_login_is_named_by_a_question_mark(account):
    payload = octokit_examples("installation")[1]
    payload["installation"]["account"] = account
    what, _ = describe(installation_change("installation", payload), bool)
    assert what.startswith("installation 957387 (?): installation.created")


# kills: bot/installations.py:_names the log line's list of names cut at nine, or "..." after ten
@pytest.mark.parametrize("count", [10, 11])
def test_the_log_line_names_the_first_ten_repositories_and_says_when_there_are_more(count):
    payload = octokit_examples("installation")[1]
    payload["repositories"] = [
        {"id": i, "name": f"r{i}", "full_name": f"org/r{i}"} for i in range(count)
    ]
    what, _ = describe(installation_change("installation", payload), bool)
    names = ", ".join(f"org/r{i}" for i in range(10))
    assert what.endswith(f"[{names}{' ...' if count > 10 else ''}]")


# kills: bot/installations.py:installation_change installation id 1, the lowest GitHub gives,
# refused (1 < id)
def test_installation_id_1_is_an_id():
    payload = octokit_examples("installation")[1]
    payload["installation"]["id"] = 1
    assert installation_change("installation", payload).installation_id == 1


# kills: bot/installations.py:installation_change any installation_target action read as a rename
# (its `changes.login.from` required): an action GitHub adds later answered 400, not noted
def test_an_installation_target_action_other_than_renamed_is_no_rename():
    payload = renamed()
    payload["action"] = "transferred"
    del payload["changes"]
    change = installation_change("installation_target", payload)
    assert (change.action, change.renamed_from) == ("transferred", "")


# kills: bot/webhook.py:WebhookEndpoint._log_unverified an installation event's change not handed
# on: the server's GitHub client (on_installation) kept the tokens and lookups the event made stale
# kills: bot/webhook.py:WebhookEndpoint._log_unverified the same, the call deleted
# kills: bot/webhook.py:WebhookEndpoint._log_unverified an installation event not counted
def test_an_installation_event_hands_its_change_on(tmp_path):
    settings = make_settings(tmp_path)
    rt = build_runtime(settings)
    changes = []
    endpoint = WebhookEndpoint(
        settings, rt.dispatcher, rt.queue, rt.ctx.metrics.deliveries, changes.append
    )
    payload = octokit_examples("installation_repositories")[0]
    body = json.dumps(payload).encode()
    headers = {
        b"x-github-event": b"installation_repositories",
        b"x-github-delivery": b"i-1",
        b"x-hub-signature-256": sign(SECRET, body).encode(),
    }
    try:
        assert endpoint.check(headers, body)[0] == 200
        noted = {"event": "installation_repositories", "outcome": "noted"}
        assert rt.ctx.metrics.registry.get_sample_value("review_notes_deliveries_total", noted) == 1
    finally:
        rt.db.close()
    assert changes == [installation_change("installation_repositories", payload)]

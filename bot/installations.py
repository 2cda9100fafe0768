"""What an `installation`, `installation_repositories` or `installation_target` event says
(pure).

GitHub sends them to every App (no subscription needed) when the App is installed,
uninstalled, suspended, given new permissions, given or refused repositories, or when the
account it is installed on is renamed. The bot
keeps no list of installations: it looks each repository's installation up when needed
and caches it with a token. These events make those caches stale, so the shell forgets
them at once (a token minted before `new_permissions_accepted` lacks the new permission
for up to an hour); and the operator learns from the log which repositories the App was
installed on that the allow-list leaves out, which allow-listed ones it lost (uninstalled
or taken off it: no more events, so the bot goes quiet there), or that a rename left it
naming an old account.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.terminal import shown

EVENTS = frozenset({"installation", "installation_repositories", "installation_target"})


@dataclass(frozen=True)
class InstallationChange:
    installation_id: int
    event: str
    action: str
    account: str  # the user or organisation the App is installed on
    repos: tuple[str, ...]  # the repositories the event names (listed, added or removed)
    renamed_from: str = ""  # installation_target.renamed: the account's old login

    @property
    def adds(self) -> bool:
        """Repositories the App may now act on."""
        return (self.event, self.action) in {
            ("installation", "created"),
            ("installation", "unsuspend"),
            ("installation_repositories", "added"),
        }

    @property
    def removes(self) -> bool:
        """Repositories the App may no longer act on, for good (a suspension is undone)."""
        return (self.event, self.action) in {
            ("installation", "deleted"),
            ("installation_repositories", "removed"),
        }


def installation_change(event: str, payload: dict[str, Any]) -> InstallationChange:
    """The change an installation event describes; ValueError naming the field when the
    payload is not GitHub's shape."""
    installation = payload.get("installation")
    if not isinstance(installation, dict):
        raise ValueError("installation: not an object")
    iid = installation.get("id")
    if not isinstance(iid, int) or isinstance(iid, bool) or not 0 < iid < 2**63:
        raise ValueError("installation.id: not a positive integer")
    action = payload.get("action")
    if not isinstance(action, str):
        raise ValueError("action: not a string")
    # installation_target names the account beside a bare installation (id, node_id)
    account = payload.get("account") if event == "installation_target" else None
    account = account or installation.get("account")
    login = _login(account)
    renamed = event == "installation_target" and action == "renamed"
    renamed_from = _renamed_from(payload) if renamed else ""
    field = "repositories"  # installation_repositories lists what was added or removed
    if event == "installation_repositories" and action in ("added", "removed"):
        field = f"repositories_{action}"
    listed = payload.get(field)
    repos = []
    for repo in listed if isinstance(listed, list) else []:
        name = repo.get("full_name") if isinstance(repo, dict) else None
        if not isinstance(name, str):
            raise ValueError(f"{field}: an entry without full_name")
        repos.append(name)
    return InstallationChange(iid, event, action, login or "?", tuple(repos), renamed_from)


def _login(account: Any) -> str | None:
    """An account's login (an enterprise has a slug instead)."""
    found = (account.get("login") or account.get("slug")) if isinstance(account, dict) else None
    return found if isinstance(found, str) else None


def _renamed_from(payload: dict[str, Any]) -> str:
    changes = payload.get("changes")
    for key in ("login", "slug"):
        old = changes.get(key) if isinstance(changes, dict) else None
        if isinstance(old, dict) and isinstance(old.get("from"), str):
            return old["from"]
    raise ValueError("changes.login.from: not a string")


def describe(change: InstallationChange, allows: Callable[[str], bool]) -> tuple[str, str]:
    """(what happened, a warning or "") for the log. The warning names the repositories
    the App was just given that the allow-list leaves out (their events are ignored), and
    the allow-listed ones it lost: the bot goes quiet there with nothing failed, so
    only the log can tell the operator. Losing a repository not on the allow-list
    changes nothing the bot does."""
    # the payload's text (signed, yet not GitHub's to a secret's holder) shown as data
    who = f"installation {change.installation_id} ({shown(change.account)})"
    what = f"{who}: {change.event}.{shown(change.action)}"
    if change.repos:
        what += f" [{_names(change.repos)}]"
    left_out = [r for r in change.repos if not allows(r)] if change.adds else []
    lost = [r for r in change.repos if allows(r)] if change.removes else []
    warning = ""
    if left_out:
        warning = (
            f"{who} covers {_names(left_out)}, not on the allow-list (REVIEW_NOTES_REPOS): "
            "the bot ignores their events"
        )
    elif lost:
        warning = (
            f"{who} no longer covers {_names(lost)}, on the allow-list: GitHub sends the bot"
            " no more events for them, so it comments there no more until the App is"
            " given them again"
        )
    elif change.renamed_from:
        old = shown(change.renamed_from)
        warning = (
            f"{who} was {old}: GitHub's events now name {shown(change.account)}/...; "
            f"REVIEW_NOTES_REPOS entries and notes' `repo` naming {old}/... no longer match "
            "them: rename those"
        )
    elif change.action == "suspend":
        warning = (
            f"{who} is suspended: GitHub "
            "refuses its calls until it is unsuspended; re-queue what failed meanwhile with "
            "`review-notes retry`"
        )
    return what, warning


def _names(repos: list[str] | tuple[str, ...]) -> str:
    """The first ten, for one log line."""
    return ", ".join(map(shown, repos[:10])) + (" ..." if len(repos) > 10 else "")

"""Event name -> handler, plus the filters every event passes first.

Step 1 of the flow (event -> PR facts -> matches -> comment -> GitHub): which handler a
delivery gets, or why it is ignored. It must never run an event the bot caused itself
(no loops), nor one for a repository off the allow-list or not about a pull request.
Each feature module (`bot.pr_events`, `bot.command_events`, `bot.command_updates`,
`bot.files_recheck`, `bot.reply_copies`, `bot.deletion_events`) exposes
`register(dispatcher)`; `server.build_dispatcher` calls each. `triage` runs twice: at
intake (so ignored deliveries never reach the queue and get a 202 at once) and again
before the work (settings may have changed since the delivery was queued). The rules:
which events pass and what is the bot's own, `Dispatcher.triage`; the bot's login and a
locked conversation, `Dispatcher.dispatch`; a renamed repository, `follow_repository`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.context import BotContext
from bot.github_port import ConversationLocked, ref_from_payload, repository_id
from bot.markers import written_by_review_notes
from bot.queue import Delivery
from bot.settings import Settings
from bot.terminal import shown

log = logging.getLogger(__name__)

Handler = Callable[[BotContext, Delivery], str]
Check = Callable[[dict[str, Any]], str | None]


@dataclass(frozen=True)
class Route:
    event: str  # X-GitHub-Event
    actions: frozenset[str] | None  # None: every action
    handler: Handler  # returns a one-line summary for the log
    check: Check | None = None  # a reason to ignore this payload, or None
    bots: bool = False  # also events sent by other bots (never those sent by the bot itself)
    # GitHub may send two real events with one body (`labeled` carries whole-second times
    # and no event id: a label added, removed, added back), so only the PR's latest body
    # again is a replay, refused; an older one must be harmless to the handler. False: a
    # body seen before under another delivery id is a replay, refused.
    same_bodies: bool = False
    # When the text the payload carries was written or last edited (GitHub's time, as
    # bot.times.as_github_time), None: not told. A body's copy is refused as a replay only
    # while its delivery is kept: intake ignores one older than that (bot.webhook).
    written: Callable[[dict[str, Any]], str | None] | None = None
    # The PR's state follows the payload's repository id before the handler runs
    # (`follow_repository`). False: our own deferred update, queued under the name its
    # command came by, which may be older than the state's; it looks the state up itself.
    follows: bool = True
    # The event is about a comment the bot wrote (its deletion, bot.deletion_events):
    # only who sent it tells whether it is the bot's own doing.
    by_sender: bool = False
    # Takes the payloads it claims from the route of the same event and action that
    # claims none (an edit of our notes comment that drops its marker is its deletion,
    # bot.deletion_events, while the slash commands' route has the other edits). On the
    # payload and who the bot is (`Us`); it may raise MalformedPayload (refused at
    # intake). Intake may not know the bot's login: a claim it cannot rule out is made
    # there, and the run, asking the login, routes the delivery again (`dispatch`).
    claims: Callable[[dict[str, Any], Us], bool] | None = None


@dataclass(frozen=True)
class Us:
    """Who the bot is, as far as known where a delivery is routed."""

    logins: frozenset[str] = frozenset()  # lowercased (`own_logins`)
    app_id: str | None = None  # GITHUB_APP_ID; None: a token, no App
    as_user: bool = False  # a token: the bot is a user account
    # the login GitHub gives is among `logins` (configured, or asked): a comment whose
    # author is none of them, and not our App's (`bot.markers.written_by_us`), is not ours
    known: bool = False


@dataclass(frozen=True)
class Triage:
    route: Route | None
    reason: str  # why ignored ("" when routed)
    repo: str | None = None
    pr_number: int | None = None


class MalformedPayload(ValueError):
    """A signed payload with a field GitHub never sends so: the message names the field
    and shows the value (cut short), not what int() said about it. At intake the webhook
    answers 400 with it; a delivery queued before this was checked fails with it."""


def _shown(value: object) -> str:
    """A payload's value as an error message may carry it: short, its type named, a
    container only by its type (its repr could be as long as the body, or nested
    deeper than repr can go). Not `terminal.shown`, which shows text and names any other
    value by its type alone: why an id is refused needs the number too (`int -4`,
    `float 1.5`), and JSON's name for None; repr keeps the text inert as shown does."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"str {value[:40]!r}" + ("..." if len(value) > 40 else "")
    if isinstance(value, bool | int | float):
        text = repr(value)
        return f"{type(value).__name__} {text[:40]}" + ("..." if len(text) > 40 else "")
    return type(value).__name__


def event_shown(event: str, action: object) -> str:
    """`event.action` as the log names a delivery, the action shown as data; the event
    alone when it has none (`push`, a hand-made body): not "pull_request.None"."""
    return event if action is None or action == "" else f"{event}.{shown(action)}"


# The objects a handled event's triage, claims and checks read (`.get` on each): one of
# another type named, not refused as "AttributeError", nor read as absent when falsy
_OBJECTS = (
    "repository",
    "sender",
    "installation",
    "pull_request",
    "issue",
    "comment",
    "review",
    "changes",
)


def check_objects(
    payload: dict[str, Any], fields: tuple[str, ...] = _OBJECTS, within: str = ""
) -> None:
    """MalformedPayload naming the first of `fields` the payload (the `within` object of
    one) holds that is neither an object nor null, as GitHub never sends them."""
    for field in fields:
        value = payload.get(field)
        if value is not None and not isinstance(value, dict):
            named = f"{within}.{field}" if within else field
            raise MalformedPayload(f"{named}: not an object ({type(value).__name__})")


def check_installation(payload: dict[str, Any]) -> None:
    """The payload's installation read as its handler reads it (`ref_from_payload`): one
    GitHub never sends so (`"installation": 5`, `{"id": "7"}`) is MalformedPayload
    naming the field, refused at intake, not queued to fail at each run."""
    try:
        ref_from_payload(payload, 0)
    except ValueError as exc:
        raise MalformedPayload(str(exc)) from exc


def payload_id(value: object, field: str) -> int:
    """`value`, a payload's id or number (`comment.id`, `issue.number`), as GitHub sends
    them: a JSON integer from 1 to 2**53 - 1 (past that, not every JSON reader reads it
    exactly). Else MalformedPayload naming `field`: int() took "7" and 1.5 (comment 1)
    and said "invalid literal for int() with base 10" of "abc"."""
    # (the webhook reads an integer past 64 bits as a float: out of range, as one)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(value, float) and not (value.is_integer() and abs(value) >= 2**53):
        number = False  # 1.5, 7.0, inf
    if not number:
        raise MalformedPayload(f"{field}: not a positive integer ({_shown(value)})")
    if not isinstance(value, int) or not 0 < value < 2**53:
        raise MalformedPayload(f"{field}: out of range ({_shown(value)})")
    return value


def pr_number(event: str, payload: dict[str, Any]) -> int | None:
    """The PR an event is about, or None (an issue comment on a plain issue).
    MalformedPayload when its number is not an integer."""
    pr = payload.get("pull_request")
    if isinstance(pr, dict) and pr.get("number"):
        return payload_id(pr["number"], "pull_request.number")
    issue = payload.get("issue")
    if isinstance(issue, dict) and issue.get("pull_request") and issue.get("number"):
        return payload_id(issue["number"], "issue.number")
    return None


class Dispatcher:
    def __init__(self) -> None:
        self._routes: dict[str, list[Route]] = {}

    def add(self, route: Route) -> None:
        # one route claiming some payloads may share an action with one claiming none;
        # two of a kind may not (which one claims first would be the order they came in)
        for other in self._routes.get(route.event, []):
            shared = other.actions is None or route.actions is None or other.actions & route.actions
            if shared and (other.claims is None) == (route.claims is None):
                raise ValueError(f"two handlers for {route.event} {route.actions}")
        self._routes.setdefault(route.event, []).append(route)

    def events(self) -> list[str]:
        return sorted(self._routes)

    def route(
        self,
        event: str,
        action: str | None,
        payload: dict[str, Any] | None = None,
        us: Us | None = None,
    ) -> Route | None:
        """The route of an event's action: the one that claims the payload (`Route.claims`),
        else the one that claims none. No payload: the latter. `us`: who the bot is (None:
        nothing known of it)."""
        routes = self._routes.get(event, [])
        routes = [r for r in routes if r.actions is None or action in r.actions]
        for r in routes:
            if r.claims is not None and payload is not None and r.claims(payload, us or Us()):
                return r
        return next((r for r in routes if r.claims is None), None)

    def triage(
        self,
        event: str,
        payload: dict[str, Any],
        settings: Settings,
        own_login: str | None = None,
    ) -> Triage:
        """Route a delivery or say why it is ignored. `own_login`: the bot's login
        when known from GitHub (REVIEW_NOTES_BOT_LOGIN counts in any case); "": asked,
        none (a dry run); None: not asked.

        Cross-cutting rules: only repositories on the allow-list, only pull requests,
        never events sent by the bot itself or about a comment or review it wrote (no
        loops), and events sent by other bots only on routes that ask for them
        (`Route.bots`): `pull_request` does, since vLLM's Mergify adds most labels; slash
        commands (comments, reviews) do not. What the bot wrote is known by who wrote it:
        a human may quote the bot's comment, markers and all. With a token the bot is a
        user account, whose comments look like anyone's and whose owner also acts on
        GitHub as a person (opens PRs, labels them, says `/notes` on a fork): there only
        a comment written by that login AND carrying our marker (`written_by_review_notes`)
        is the bot's own, and who sent an event says nothing; a human quoting the bot's
        comment is still not the bot. An event about a comment the bot wrote, sent by
        whoever acted on it (its deletion, or an edit that drops its marker:
        `Route.by_sender`), is the App's own when the App's login sent it; a token's
        login sending it may be its owner, which its handler tells apart."""
        action = payload.get("action")
        if event in self._routes:  # (another event is ignored, whatever its shape)
            check_objects(payload)
        us = _us(settings, own_login)
        route = self.route(event, action if isinstance(action, str) else None, payload, us)
        if route is None:
            named = event_shown(shown(event), action)
            return Triage(None, f"no handler for {named}")
        repo = (payload.get("repository") or {}).get("full_name")
        if not isinstance(repo, str) or not settings.allows(repo):
            named = repr(shown(repo)) if isinstance(repo, str) else shown(repo)
            return Triage(None, f"repository {named} is not on the allow-list")
        number = pr_number(event, payload)
        if number is None:
            return Triage(None, "not about a pull request", repo)
        sender = payload.get("sender") or {}
        login = str(sender.get("login") or "")
        ours = own_logins(settings, own_login)
        own = _our_own(payload, login, ours, as_user=_as_user(settings), by_sender=route.by_sender)
        if own:
            return Triage(None, own, repo, number)
        if sender.get("type") == "Bot" and not route.bots:
            return Triage(None, f"sent by a bot ({shown(login)})", repo, number)
        if route.check is not None:
            reason = route.check(payload)
            if reason:
                return Triage(None, reason, repo, number)
        return Triage(route, "", repo, number)

    def dispatch(self, ctx: BotContext, delivery: Delivery) -> str:
        """Run a queued delivery's handler, triaged again; a one-line summary for the log.

        The bot's own login is REVIEW_NOTES_BOT_LOGIN when set. Otherwise intake cannot
        know it without a GitHub call, so such a delivery is queued and `dispatch` asks the
        GitHub client for the login (asked once, cached; it is needed for the comment
        anyway) and ignores the delivery if it is our own: one sent by a bot (is it our
        App?), and with a token one about a comment carrying our marker. So too for one a
        route claimed (`Route.claims`) without knowing the login: routed again knowing it.

        A write GitHub refuses because the PR's conversation is locked (ConversationLocked)
        ends the delivery as done, logged: no retry can make it until someone unlocks it,
        and what the handler did before stays; the unlock makes what it left owed
        (bot.pr_events)."""
        t = self.triage(delivery.event, delivery.payload, ctx.settings)
        claimed = t.route is not None and t.route.claims is not None
        if t.route is not None and (
            _may_be_our_own(delivery.payload, ctx.settings)
            or (claimed and not ctx.settings.bot_login)
        ):
            # is it our own, or of our own? (intake knew REVIEW_NOTES_BOT_LOGIN only)
            # "": asked, and the bot has no login (a dry run: no account on GitHub, so
            # only REVIEW_NOTES_BOT_LOGIN names it, and no other comment is its own)
            own_login = ctx.github.bot_login() or ""
            t = self.triage(delivery.event, delivery.payload, ctx.settings, own_login)
        if t.route is None:
            return f"ignored: {t.reason}"
        if t.repo is not None and t.pr_number is not None and t.route.follows:
            stale = follow_repository(ctx, delivery.payload, t.repo, t.pr_number)
            if stale:
                return f"ignored: {stale}"
        try:
            return t.route.handler(ctx, delivery)
        except ConversationLocked as locked:
            # no retry can write there until someone unlocks it: done, not failed
            log.info(
                "delivery %s: %s#%s is locked, GitHub refused our write; left unanswered (%s)",
                delivery.id,
                t.repo,
                t.pr_number,
                locked,
            )
            return f"stopped: the conversation is locked ({locked})"


def follow_repository(
    ctx: BotContext, payload: dict[str, Any], repo: str, number: int
) -> str | None:
    """Move PR `number`'s state (per-PR state, reply records, `/notes wrong` marks, the
    commands a lock kept for the unlock) kept
    under another name of the payload's repository to `repo`, in one transaction, and
    mark its state with the repository's id; another repository's state kept under `repo`
    is set aside for it (`PRStore.follow`). Returns why the delivery must not run: it
    names a name another repository has taken since (`_taken_since`).

    Before its handler reads anything, a routed event's PR state follows the repository:
    kept under another name of the same repository (by `repository.id`: a rename or a
    transfer), it is moved to the name the event gives; not for our own deferred update
    (`Route.follows`), whose name may be the older one. A delivery whose name another
    repository has taken since it was sent is not run (`_taken_since`). Per PR: a PR's
    deliveries under one name run one at a time, while moving every PR of the repository
    at once could take another PR's state from under an event in flight under the other
    name (both names on the allow-list, a retry of an old delivery)."""
    repo_id = repository_id(payload)
    if repo_id is None or not ctx.prs.must_follow(repo, number, repo_id):
        return None  # no id (a hand-made payload, an older release's deferred update): by name
    stale = _taken_since(ctx, payload, repo, number, repo_id)
    if stale:
        return stale
    with ctx.prs.db.tx() as conn:
        moved = ctx.prs.follow(conn, repo, number, repo_id)
        held = ctx.feedback.move(conn, moved.new, moved.held, number) if moved.held else 0
        marks = sum(ctx.feedback.move(conn, old, moved.new, number) for old in moved.old)
        if moved.held:  # the commands a lock kept follow as the marks do
            ctx.locked.move(conn, moved.new, moved.held, number)
        kept = sum(ctx.locked.move(conn, old, moved.new, number) for old in moved.old)
    if moved.held:
        log.info(
            "%s#%d: the state kept under this name carries another repository's id (the"
            " name was reused): that repository's PR #%d is not this one; its state is set"
            " aside as %r (comment, /notes off, hidden notes, %d /notes wrong marks) until"
            " an event of that repository names the PR",
            moved.new,
            number,
            number,
            moved.held,
            held,
        )
    if moved.old:
        log.info(
            "repository %d renamed or transferred: PR #%d's state moved from %s to %s"
            " (%d PR state, %d reply records, %d /notes wrong marks, %d comments of commands"
            " kept for an unlock; %d older copies dropped)",
            repo_id,
            number,
            ", ".join(moved.old),
            moved.new,
            moved.states,
            moved.replies,
            marks,
            kept,
            moved.dropped,
        )
    return None


def _taken_since(
    ctx: BotContext, payload: dict[str, Any], repo: str, number: int, repo_id: int
) -> str | None:
    """Why a delivery whose PR state under `repo` is another repository's must not run:
    GitHub answers the name with that other repository now. The delivery is then one of
    the repository renamed away, sent before and run late (a retry, a redelivery): its
    calls by name would reach the other repository's PR (its comment edited with this
    one's notes, this one's state taking that comment's id). Else (the name is this
    repository's: the other one renamed away) None. Asked only on that conflict: with no
    conflict, the delivery's calls go by its repository's id (`PRRef.repo_id`), which
    reach its own PR whatever the name is now (unless REVIEW_NOTES_ADDRESS_REPOS_BY=name,
    which gives that case up: docs/internals.md)."""
    other = ctx.prs.kept_for(repo, number)
    if other is None or other == repo_id:
        return None
    now = ctx.github.repository_now(ref_from_payload(payload, number))
    if now is None or now == repo_id:
        return None
    log.warning(
        "%s#%d: this delivery is repository %d's, but GitHub answers %s with repository"
        " %d now (renamed away, the name taken since): not run, lest it write on that"
        " repository's PR; the PR's next event under its new name is handled",
        repo,
        number,
        repo_id,
        repo,
        now,
    )
    return f"{repo} is repository {now}'s name now, not this delivery's repository {repo_id}'s"


def _us(settings: Settings, own_login: str | None) -> Us:
    """Who the bot is, by the settings and the login GitHub gave (None: not asked; "":
    asked, none: a dry run)."""
    as_user = _as_user(settings)
    logins = frozenset(own_logins(settings, own_login))
    app_id = None if as_user else settings.github_app_id
    known = bool(settings.bot_login) or own_login is not None
    return Us(logins, app_id, as_user, known=known)


def own_logins(settings: Settings, own_login: str | None) -> set[str]:
    """The bot's logins, lowercased (GitHub's logins are not case-sensitive):
    REVIEW_NOTES_BOT_LOGIN and the one GitHub gave (`own_login`; None: not asked)."""
    return {x.lower() for x in (settings.bot_login, own_login) if x}


def _sent_by_a_bot(payload: dict[str, Any]) -> bool:
    return (payload.get("sender") or {}).get("type") == "Bot"


def _as_user(settings: Settings) -> bool:
    """The bot is a user account (a token), not an App."""
    return settings.github_token is not None


def _our_own(
    payload: dict[str, Any], login: str, ours: set[str], *, as_user: bool, by_sender: bool
) -> str | None:
    """Why this delivery is the bot's own doing (a loop), or None. `login`: who sent
    it; `ours`: the bot's logins, lowercased. An App is known by its login, as sender or
    as author (someone edited its comment). A user account is also a person: only its
    comments that carry our marker are the bot's, and what it sends as a person is not.
    by_sender: the event is about a comment of ours, sent by whoever acted on it; sent by
    an App's login, it is the bot's. A token's login is also its owner, acting as a
    person: the handler tells them apart by the comment (bot.deletion_events)."""
    if by_sender:
        if as_user:
            return None
        return f"sent by the bot itself ({login})" if login and login.lower() in ours else None
    author = _author(payload)
    if as_user:
        mine = author.lower() in ours and written_by_review_notes(_body(payload))
        return f"written by the bot itself ({author})" if mine else None
    if login and login.lower() in ours:
        return f"sent by the bot itself ({login})"
    if author and author.lower() in ours:
        return f"written by the bot itself ({author})"
    return None


def _may_be_our_own(payload: dict[str, Any], settings: Settings) -> bool:
    """Whether to ask GitHub for the bot's login to tell if the bot sent or wrote this:
    an App may have sent a bot's event; a user account (its login not in
    REVIEW_NOTES_BOT_LOGIN) may have written a comment that carries our marker (so may
    it have sent a deletion of one: `Route.by_sender`)."""
    if _as_user(settings):
        marked = bool(_author(payload)) and written_by_review_notes(_body(payload))
        return marked and not settings.bot_login
    return _sent_by_a_bot(payload)


def _item(payload: dict[str, Any]) -> dict[str, Any]:
    """The comment or review the event is about ({} for other events)."""
    item = payload.get("comment") or payload.get("review")
    return item if isinstance(item, dict) else {}


def _author(payload: dict[str, Any]) -> str:
    """Who wrote the comment or review the event is about ("" for other events)."""
    user = _item(payload).get("user")
    return str(user.get("login") or "") if isinstance(user, dict) else ""


def _body(payload: dict[str, Any]) -> str:
    body = _item(payload).get("body")
    return body if isinstance(body, str) else ""

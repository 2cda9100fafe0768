"""The fake GitHub answers as GitHub's REST API description says (`@octokit/openapi`).

A fake that drifts from GitHub hides the bot's bugs, so every route the fake serves is
driven over HTTP, mostly by the bot's own client (`bot.github_client`, PyGithub) doing
what the bot does (errors it reads included: 404s, a locked conversation, an expired
token, a renamed repository), the rest (what the client meets only in a race, and the
repository, which it never asks for) by plain requests. Every answer is then checked
against its operation in `node_modules/@octokit/openapi/generated/api.github.com.json`:

- its status is one the operation lists (or one of STATUSES_UNLISTED: GitHub answers
  them on every route, the description lists them on a few), and a 204 has no body;
- its body validates against that status's schema, `$ref`s resolved, by the small
  checker below (OpenAPI 3.0 is not quite JSON Schema: `nullable`, and a `oneOf` whose
  branches overlap): types (`nullable` too), formats date-time and uri, `enum`, `required`,
  properties, items, additionalProperties, allOf, anyOf and oneOf (one branch fitting
  is enough: GitHub's overlap, private-user is a public-user too).
- Every field the fake returns must be in the schema, with its type: a field the
  description does not have is a typo or an invention. A field the schema requires
  may be left out only when MISSING_ALLOWED says so (fields the bot never reads).

Skipped, with the reason, when the package is missing: `scripts/bootstrap.sh` installs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jwt
import pytest
import requests

from bot.github_client import GitHubClient
from bot.github_port import ConversationLocked, GitHubError, PRRef
from bot.github_retry import RetryPolicy
from tests.fake_github import (
    _ROUTES,
    DEFAULT_APP_ID,
    DEFAULT_INSTALLATION_ID,
    DEFAULT_REPO,
    FakeFile,
    FakeGitHub,
    Fault,
)

SPEC_PATH = Path(__file__).resolve().parent.parent / (
    "node_modules/@octokit/openapi/generated/api.github.com.json"
)
MARKER = "<!-- review-notes:v1 -->"

# Fields the description marks required that the fake leaves out, by the component
# schema they belong to and their path inside it ("[]": any item of an array). Only
# fields the bot never reads. What it reads: of a PR, number, title, body, labels[].name,
# draft, user.login and .type, head.sha, changed_files (bot.prfacts.facts_from_payload);
# of a file, filename, previous_filename, status, changes, patch; of an issue, whether
# it has pull_request; of a comment, id, body, created_at, user.login and .type,
# performed_via_github_app.id and .client_id; of a token, token and expires_at; of an
# installation, id; of the App, slug; of a permission, role_name and permission (not
# its user's); of the token's user (GET /user), login; of the rate limit, nothing (answered is
# enough: the start's check).
_USER_URLS = (  # API links of a user account
    "events_url",
    "followers_url",
    "following_url",
    "gists_url",
    "organizations_url",
    "received_events_url",
    "repos_url",
    "starred_url",
    "subscriptions_url",
)
_PROFILE = (  # GET /user's profile and counts
    "bio",
    "blog",
    "company",
    "created_at",
    "email",
    "followers",
    "following",
    "hireable",
    "location",
    "name",
    "public_gists",
    "public_repos",
    "updated_at",
)
_REPO_URLS = (  # API and clone links of a repository
    "archive_url",
    "assignees_url",
    "blobs_url",
    "branches_url",
    "clone_url",
    "collaborators_url",
    "comments_url",
    "commits_url",
    "compare_url",
    "contents_url",
    "contributors_url",
    "deployments_url",
    "downloads_url",
    "events_url",
    "forks_url",
    "git_commits_url",
    "git_refs_url",
    "git_tags_url",
    "git_url",
    "hooks_url",
    "issue_comment_url",
    "issue_events_url",
    "keys_url",
    "labels_url",
    "languages_url",
    "merges_url",
    "milestones_url",
    "mirror_url",
    "notifications_url",
    "releases_url",
    "ssh_url",
    "stargazers_url",
    "statuses_url",
    "subscribers_url",
    "subscription_url",
    "svn_url",
    "tags_url",
    "teams_url",
    "trees_url",
)
_REPO_FACTS = (  # a repository's settings, counts and dates (head.repo, base.repo, GET repo)
    "archived",
    "created_at",
    "description",
    "disabled",
    "fork",
    "forks",
    "forks_count",
    "has_issues",
    "has_pages",
    "has_projects",
    "has_wiki",
    "homepage",
    "language",
    "license",
    "open_issues",
    "open_issues_count",
    "pushed_at",
    "size",
    "stargazers_count",
    "updated_at",
    "watchers",
    "watchers_count",
)
MISSING_ALLOWED: dict[tuple[str, str], str] = {
    **{(c, f): "user link" for c in ("simple-user", "nullable-simple-user") for f in _USER_URLS},
    **{("nullable-collaborator", f): "user link" for f in _USER_URLS},
    ("nullable-collaborator", "role_name"): "the user's own; the bot reads the answer's",
    **{("public-user", f): "user link" for f in _USER_URLS},
    **{("public-user", f): "profile" for f in _PROFILE},
    **{(c, f): "repo link" for c in ("repository", "full-repository") for f in _REPO_URLS},
    **{(c, f): "repo facts" for c in ("repository", "full-repository") for f in _REPO_FACTS},
    ("repository", "has_downloads"): "repo facts",
    ("full-repository", "has_discussions"): "repo facts",
    ("full-repository", "network_count"): "repo facts",
    ("full-repository", "subscribers_count"): "repo facts",
    ("pull-request", "_links"): "the PR's links again",
    ("pull-request", "labels[].node_id"): "a label's ids and text: the bot reads its name",
    ("pull-request", "labels[].url"): "label link",
    ("pull-request", "labels[].description"): "label text",
    ("pull-request", "maintainer_can_modify"): "merge facts",
    ("pull-request", "mergeable_state"): "merge facts",
    ("pull-request", "merged_by"): "merge facts",
    ("issue", "assignee"): "issue facts: the bot asks an issue only whether it is a PR",
    ("issue", "milestone"): "issue facts",
    ("issue", "events_url"): "issue link",
    ("issue", "labels_url"): "issue link",
    ("issue", "repository_url"): "issue link",
}

# Statuses the fake answers, as GitHub does, where the operation does not list them: the
# description lists 401, 403, 404 and the redirects on some operations only, GitHub
# answers them on every route. The body must still be a basic-error.
STATUSES_UNLISTED: dict[tuple[str, int], str] = {
    ("pulls/get", 301): "a renamed repository's old name (PyGithub follows it)",
    ("issues/create-comment", 307): "a write to a renamed repository's old name",
    ("pulls/get", 401): "an expired installation token (the client mints a new one)",
    ("apps/get-authenticated", 401): "the start's check with another App's ID",
    ("issues/update-comment", 403): "an edit on a locked conversation",
    ("reactions/create-for-issue-comment", 403): "a reaction on a locked conversation",
    ("issues/update-comment", 404): "an edit of a comment deleted since it was listed",
    ("issues/delete-comment", 404): "a delete of a comment already gone",
}

ERROR_SCHEMA = "#/components/schemas/basic-error"


# --- the description ------------------------------------------------------------


@cache
def _spec() -> dict[str, Any]:
    if not SPEC_PATH.exists():
        pytest.skip("node_modules/@octokit/openapi missing: run scripts/bootstrap.sh")
    return json.loads(SPEC_PATH.read_text("utf-8"))


@cache
def _templates() -> list[tuple[re.Pattern[str], str, int]]:
    """Each path of the description as a pattern, with its count of literal segments."""
    out = []
    for template in _spec()["paths"]:
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        literal = sum(1 for part in template.split("/") if part and not part.startswith("{"))
        out.append((re.compile(pattern), template, literal))
    return out


def _operation(method: str, path: str) -> tuple[str, dict[str, Any]]:
    """The description's path template and operation for a request (the most literal
    template wins: /repos/{owner}/{repo}/issues/comments/{comment_id} over .../{issue_number}).
    A repository's route asked by its id (/repositories/{id}/..., where GitHub redirects a
    renamed repository's old name; the description lists none of them) is its /repos one."""
    path = re.sub(r"^/repositories/\d+(?=/|$)", "/repos/owner/repo", path)
    found = [(lit, t) for p, t, lit in _templates() if p.fullmatch(path)]
    assert found, f"{method} {path}: no such path in GitHub's REST description"
    template = max(found)[1]
    operation = _spec()["paths"][template].get(method.lower())
    assert operation is not None, f"{method} {template}: no such operation in the description"
    return template, operation


def _deref(schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The schema a $ref names, with the component's name; else the schema itself."""
    name = None
    while "$ref" in schema:
        ref = schema["$ref"]
        node: Any = _spec()
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
        schema, name = node, ref.rsplit("/", 1)[1]
    return schema, name


# --- the checker ------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    where: str  # JSON path in the answer
    component: str  # the component schema it is in, and the path inside it
    inner: str
    what: str
    missing: bool = False  # a required field left out (may be allowed)

    def allowed(self) -> bool:
        return self.missing and (self.component, self.inner) in MISSING_ALLOWED

    def __str__(self) -> str:
        return f"{self.where or '(body)'} [{self.component}: {self.inner or '.'}]: {self.what}"


_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _uri(value: str) -> bool:
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _date_time(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value


def check(
    value: Any,
    schema: dict[str, Any],
    where: str = "",
    component: str = "?",
    inner: str = "",
    whole: bool = True,
) -> list[Problem]:
    """What in `value` disagrees with `schema` (empty: it validates). Allowed missing
    fields are reported too (Problem.allowed): the caller filters them. `whole`: the
    schema describes all of the value, so a field it does not know is a problem; a
    branch of allOf (or anyOf, oneOf) is checked as a part, the whole knows its fields."""
    schema, name = _deref(schema)
    if name is not None:
        component, inner = name, ""

    def problem(what: str, missing: bool = False, at: str = where, sub: str = inner) -> Problem:
        return Problem(at, component, sub, what, missing)

    if value is None and (schema.get("nullable") or "null" in _type_list(schema)):
        return []
    problems: list[Problem] = []
    for sub in schema.get("allOf", []):
        problems += check(value, sub, where, component, inner, whole=False)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            tries = [check(value, s, where, component, inner, whole=False) for s in schema[key]]
            problems += min(tries, key=lambda t: sum(not p.allowed() for p in t))
    types = _type_list(schema)
    if types and not any(_TYPES[t](value) for t in types):
        shown = "null" if value is None else type(value).__name__
        return [*problems, problem(f"{shown} {value!r:.60}, the description says {types}")]
    if "enum" in schema and value not in schema["enum"]:
        problems.append(problem(f"{value!r} not one of {schema['enum']}"))
    if schema.get("format") == "date-time" and isinstance(value, str) and not _date_time(value):
        problems.append(problem(f"{value!r} is not a date-time"))
    if schema.get("format") == "uri" and isinstance(value, str) and not _uri(value):
        problems.append(problem(f"{value!r} is not a URI"))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for field in schema.get("required", []):
            if field not in value:
                at, sub = f"{where}.{field}".lstrip("."), f"{inner}.{field}".lstrip(".")
                problems.append(problem("required, missing", True, at, sub))
        extra = schema.get("additionalProperties")
        known = _known_fields(schema)
        for field, item in value.items():
            at, sub = f"{where}.{field}".lstrip("."), f"{inner}.{field}".lstrip(".")
            if field in props:
                problems += check(item, props[field], at, component, sub)
            elif isinstance(extra, dict):
                problems += check(item, extra, at, component, sub)
            elif whole and known is not None and field not in known:
                problems.append(problem("not in the description", at=at, sub=sub))
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            problems += check(item, schema["items"], f"{where}[{i}]", component, f"{inner}[]")
    return problems


def _known_fields(schema: dict[str, Any]) -> set[str] | None:
    """The fields an object of this schema may have, its branches' too; None: any."""
    schema, _ = _deref(schema)
    if schema.get("additionalProperties") not in (None, False):
        return None
    known = set(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []):
            more = _known_fields(sub)
            if more is None:
                return None
            known |= more
    if not known and schema.get("type") == "object":
        return None  # a free-form object
    return known


def _type_list(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    return [] if kind is None else [kind] if isinstance(kind, str) else list(kind)


# --- driving the fake -------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    """One request and the fake's answer, as the client got it."""

    method: str
    path: str
    status: int
    body: Any  # the JSON answer; None when there was no body
    raw: bytes


def _route_id(method: str, pattern: re.Pattern[str]) -> str:
    return f"{method} " + re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", pattern.pattern)


ROUTES = {_route_id(method, pattern): (method, pattern) for method, pattern, *_ in _ROUTES}


@pytest.fixture(scope="module")
def exchanges(app_key) -> Iterator[list[Exchange]]:
    """Every request of a run of the bot's client against the fake, and a few plain ones,
    with their answers (requests' Session.send, which PyGithub uses, is listened to)."""
    _spec()  # skip before starting anything when the description is missing
    seen: list[Exchange] = []
    send = requests.Session.send

    def listening(session: requests.Session, request: Any, **kwargs: Any) -> Any:
        response = send(session, request, **kwargs)
        path = urlsplit(request.url).path
        raw = response.content
        body = json.loads(raw) if raw else None
        seen.append(Exchange(request.method, path, response.status_code, body, raw))
        return response

    fake = FakeGitHub(app_public_key=app_key.public_pem, app_id=DEFAULT_APP_ID)
    fake.add_installation(DEFAULT_INSTALLATION_ID, [DEFAULT_REPO])
    with fake, pytest.MonkeyPatch.context() as mp:
        mp.setattr(requests.Session, "send", listening)
        deleted = _run_the_bot_calls(fake, app_key.private_pem)
        _ask_the_rest(fake, deleted)
        _after_a_transfer(fake, app_key.private_pem)
    yield seen


def _client(fake: FakeGitHub, **auth: Any) -> GitHubClient:
    return GitHubClient(
        base_url=fake.base_url,
        timeout=5,
        retry=RetryPolicy(attempts=1),  # an error answer is checked, not retried
        seconds_between_requests=0,
        seconds_between_writes=0,
        **auth,
    )


def _run_the_bot_calls(fake: FakeGitHub, private_key: str) -> int:
    """Each call of the GitHubPort the bot makes, with what GitHub answers to it: a PR
    found through the repository's installation, its files over two pages (a rename, a
    binary file without a patch), a draft PR with no description, the sticky comment
    created, edited, a second copy deleted, reactions, permissions, and the errors the
    client reads (404s, a locked conversation, a comment too long, a suspended
    installation)."""
    files: list[str | tuple[str, str] | FakeFile] = [f"vllm/f{i}.py" for i in range(120)]
    files += [("vllm/new.py", "vllm/old.py"), FakeFile("docs/logo.png", "added", patch=None)]
    files += [FakeFile("vllm/gone.py", "removed", additions=0, deletions=3)]
    fake.add_pull(DEFAULT_REPO, 7, files=files, title="[Core] Fix it", labels=["ci/build"])
    fake.add_pull(DEFAULT_REPO, 8, files=["a.py"], body=None, draft=True, author="drafter")
    fake.add_issue(DEFAULT_REPO, 9)
    fake.set_permission(DEFAULT_REPO, "maintainer", "maintain")
    fake.user("stranger")
    pr = PRRef(DEFAULT_REPO, 7, DEFAULT_INSTALLATION_ID)
    draft, issue = PRRef(DEFAULT_REPO, 8, DEFAULT_INSTALLATION_ID), PRRef(DEFAULT_REPO, 9, None)

    client = _client(fake, app_id=DEFAULT_APP_ID, private_key=private_key)
    try:
        client.check_app()  # as the server's start asks
        sent = fake.send_webhook("pull_request", {"action": "opened"})  # no server: failed
        since = datetime.now(UTC) - timedelta(hours=1)
        assert [d["guid"] for d in client.hook_deliveries(since)] == [sent.guid]
        client.redeliver(sent.id)  # as `review-notes redeliver` asks
        client.get_pull(PRRef(DEFAULT_REPO, 7, None))  # looks up the installation first
        client.get_pull(draft)
        assert client.list_files(pr).listed == 123
        assert client.is_pull(pr) is True
        assert client.is_pull(issue) is False
        assert client.is_pull(PRRef(DEFAULT_REPO, 404, None)) is None
        first = client.upsert_sticky(pr, f"{MARKER}\none", MARKER, create=True).comment_id
        client.upsert_sticky(pr, f"{MARKER}\ntwo", MARKER, create=True)
        copy = client.create_comment(pr, f"{MARKER}\na copy")
        assert client.upsert_sticky(pr, f"{MARKER}\nthree", MARKER, create=True).comment_id == first
        assert fake.comment(copy) is None
        client.upsert_sticky(draft, f"{MARKER}\nx", MARKER, create=False, known_id=copy)
        other = fake.add_comment(DEFAULT_REPO, 7, "/notes why", login="someone")
        assert client.find_comment(pr, "/notes why") is None  # someone's, not ours
        client.add_reaction(pr, other.id, "eyes")
        client.add_reaction(pr, other.id, "eyes")  # again: 200
        on_diff = fake.add_review_comment(DEFAULT_REPO, 7, "/notes")
        client.add_reaction(pr, on_diff.id, "+1", on_diff=True)
        assert client.permission(pr, "maintainer") == "maintain"
        assert client.permission(pr, "stranger") == "read"
        assert client.permission(pr, "no-such-user") == "none"
        fake.expire_tokens()
        client.get_pull(pr)  # 401, a new token, again
        fake.lock(DEFAULT_REPO, 9, "resolved")
        with pytest.raises(ConversationLocked):
            client.create_comment(issue, "hello")
        fake.lock(DEFAULT_REPO, 7)
        with pytest.raises(ConversationLocked):
            client.upsert_sticky(pr, f"{MARKER}\nfour", MARKER, create=True)
        with pytest.raises(ConversationLocked):
            client.add_reaction(pr, other.id, "rocket")
        fake.unlock(DEFAULT_REPO, 7)
        with pytest.raises(GitHubError, match="422"):
            client.create_comment(draft, "x" * 70_000)
        fake.suspend(DEFAULT_INSTALLATION_ID)
        with pytest.raises(GitHubError, match="403 This installation has been suspended"):
            client.create_comment(pr, "suspended")  # with the token minted before
    finally:
        client.close()

    # a fresh start finds the installation (suspended_at set), is refused a token
    fresh = _client(fake, app_id=DEFAULT_APP_ID, private_key=private_key)
    try:
        with pytest.raises(GitHubError, match="403 This installation has been suspended"):
            fresh.create_comment(PRRef(DEFAULT_REPO, 7, None), "suspended")
    finally:
        fresh.close()
    fake.unsuspend(DEFAULT_INSTALLATION_ID)

    other_app = _client(fake, app_id=DEFAULT_APP_ID + 1, private_key=private_key)
    try:
        with pytest.raises(GitHubError, match="401") as refused:
            other_app.check_app()  # the start refuses such credentials
        assert not refused.value.transient
    finally:
        other_app.close()

    fake.add_pat("ghp_conformance", "a-maintainer", scopes=("repo", "gist"))  # a classic one
    token = _client(fake, token="ghp_conformance")
    try:
        assert token.check_token() == ("repo", "gist")  # as the server's start asks
        assert token.bot_login() == "a-maintainer"
    finally:
        token.close()
    return copy


def _ask_the_rest(fake: FakeGitHub, deleted: int) -> None:
    """What the client meets only in a race, asked for directly: a comment by its id (a
    comment list lagging behind a write), an edit and a delete of a comment deleted
    since it was listed; and the repository, which the bot never asks for (lazy)."""
    sticky = fake.comments(DEFAULT_REPO, 7)[0]
    comments = f"{fake.base_url}/repos/{DEFAULT_REPO}/issues/comments"
    with requests.Session() as http:
        http.headers["Authorization"] = "token ghp_conformance"
        assert http.get(f"{fake.base_url}/repos/{DEFAULT_REPO}").status_code == 200
        assert http.get(f"{comments}/{sticky.id}").status_code == 200
        gone = http.patch(f"{comments}/{deleted}", json={"body": "x"})
        assert gone.status_code == 404 and gone.headers["X-OAuth-Scopes"] == "repo, gist"
        assert http.delete(f"{comments}/{deleted}").status_code == 404


def _after_a_transfer(fake: FakeGitHub, private_key: str) -> None:
    """The repository renamed: the old name's GET answers 301, a write 307, each to the
    repository's id route, where the call is answered."""
    fake.transfer(DEFAULT_REPO, "vllm-org/vllm")
    client = _client(fake, app_id=DEFAULT_APP_ID, private_key=private_key)
    try:
        pr = PRRef(DEFAULT_REPO, 7, DEFAULT_INSTALLATION_ID)
        client.get_pull(pr)
        client.create_comment(pr, "moved")
    finally:
        client.close()


# --- the checks ---------------------------------------------------------------------


def _problems(ex: Exchange) -> tuple[list[str], list[Problem], bool]:
    """What disagrees (in words), the allowed missing fields seen, and whether the
    status was one of STATUSES_UNLISTED."""
    template, operation = _operation(ex.method, ex.path)
    name = f"{ex.method} {ex.path} {ex.status} ({operation['operationId']})"
    responses = operation["responses"]
    unlisted = str(ex.status) not in responses
    if not unlisted:
        response, _ = _deref(responses[str(ex.status)])
    elif (operation["operationId"], ex.status) in STATUSES_UNLISTED:
        response = {"content": {"application/json": {"schema": {"$ref": ERROR_SCHEMA}}}}
    else:
        return [f"{name}: status not listed, the description has {sorted(responses)}"], [], True
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        words = [] if not ex.raw else [f"{name}: a body, the description has none"]
        return words, [], unlisted
    found = check(ex.body, schema)
    words = [f"{name}: {p}" for p in found if not p.allowed()]
    return words, [p for p in found if p.allowed()], unlisted


def _of(exchanges: list[Exchange], route: str) -> list[Exchange]:
    method, pattern = ROUTES[route]
    return [e for e in exchanges if e.method == method and pattern.fullmatch(e.path)]


def test_every_route_of_the_fake_is_driven(exchanges):
    """A route added to the fake is added to the run above, so its answers are checked."""
    idle = [r for r in ROUTES if not any(e.status < 300 for e in _of(exchanges, r))]
    assert not idle, f"routes of the fake with no successful answer checked: {idle}"


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_the_fake_answers_as_the_description_says(exchanges, route):
    problems = [words for e in _of(exchanges, route) for words in _problems(e)[0]]
    assert not problems, "\n".join(problems)


def test_the_allow_lists_hold_nothing_unused(exchanges):
    """An entry no answer needs any more (the fake now sends the field, or the status
    is listed) goes, so the lists stay what the fake really leaves out."""
    results = [_problems(e) for e in exchanges]
    used = {(p.component, p.inner) for _, allowed, _ in results for p in allowed}
    assert not set(MISSING_ALLOWED) - used
    statuses = {
        (_operation(e.method, e.path)[1]["operationId"], e.status)
        for e, (_, _, unlisted) in zip(exchanges, results, strict=True)
        if unlisted
    }
    assert not set(STATUSES_UNLISTED) - statuses


@pytest.mark.parametrize(
    "fault",
    [
        Fault.error(502),
        Fault.secondary_rate_limit(60),
        Fault.too_many_requests(),
        Fault.primary_rate_limit(),
        Fault.bad_credentials(),
        Fault.not_found(),
    ],
    ids=lambda f: f"{f.status} {(f.body or {}).get('message', '')[:30]}",
)
def test_the_faults_tests_inject_answer_github_errors(fault):
    """The errors the fault tests have the fake answer are GitHub's error bodies too."""
    _spec()
    assert not check(fault.body, {"$ref": ERROR_SCHEMA})


# --- the fake refuses as GitHub does: a spent rate limit, a comment too long ---


def test_fake_refuses_calls_once_the_primary_rate_limit_is_spent(fake_github):
    """github_facts §3.2: "Exceeding it gives 403 or 429 with `x-ratelimit-remaining: 0`.
    Do not retry before `x-ratelimit-reset`." The App relies on this: "Any other answer
    that spent the last call of the hour (x-ratelimit-remaining: 0 ...) pauses them ...
    so the next call is not one GitHub must refuse" (bot/github_sessions.py).

    The fake counted calls in its x-ratelimit-* headers but still answered 200 once the
    count was spent, so a client that ignored `remaining: 0` and went on calling would
    pass every test that does not inject a fault by hand: kinder than GitHub."""
    fake_github.add_pat("ghp_a_pat", "someone")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake_github.rate_limit = 3
    url = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/pulls/7"
    answers = [
        requests.get(url, headers={"Authorization": "token ghp_a_pat"}, timeout=5) for _ in range(4)
    ]
    assert [a.headers["x-ratelimit-remaining"] for a in answers[:3]] == ["2", "1", "0"]
    over = answers[3]
    assert over.status_code in (403, 429), (
        f"call over the limit answered {over.status_code} (remaining "
        f"{over.headers['x-ratelimit-remaining']})"
    )
    assert over.headers["x-ratelimit-remaining"] == "0"
    assert over.headers["x-ratelimit-reset"] == answers[0].headers["x-ratelimit-reset"]
    assert over.json()["message"].startswith("API rate limit exceeded")
    assert not check(over.json(), {"$ref": ERROR_SCHEMA})
    fake_github.reset_rate_limit()  # a new hour: answered again
    assert requests.get(url, headers={"Authorization": "token ghp_a_pat"}, timeout=5).ok


def test_fake_answers_a_too_long_comment_with_githubs_validation_error(fake_github):
    """github_facts §3.1: "Comment body limit: 422 {"message":"Validation Failed",
    "errors":[{"resource":"IssueComment","code":"unprocessable" or "custom","field":"data"
    or "body","message":"Body is too long (maximum is 65536 characters)"}]}".

    The fake answered `{"message": "Body is too long (maximum is 65536 characters)"}`: the
    reason where GitHub puts "Validation Failed", and no `errors`. A client (or a log
    line, or a test) that read the top-level message as the cause saw the reason with
    the fake and only "Validation Failed" on GitHub."""
    fake_github.add_pat("ghp_a_pat", "someone")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    answer = requests.post(
        f"{fake_github.base_url}/repos/{DEFAULT_REPO}/issues/7/comments",
        json={"body": "x" * 70_000},
        headers={"Authorization": "token ghp_a_pat"},
        timeout=5,
    )
    assert answer.status_code == 422
    data = answer.json()
    assert data.get("message") == "Validation Failed", data
    assert data.get("errors") == [
        {
            "resource": "IssueComment",
            "code": "custom",
            "field": "body",
            "message": "Body is too long (maximum is 65536 characters)",
        }
    ], data
    assert not check(data, {"$ref": "#/components/schemas/validation-error"})


# --- the fake as GitHub: a token's permissions, the JWTs refused, Link headers ---


def _mint(fake: FakeGitHub, private_pem: str) -> requests.Response:
    now = int(datetime.now(UTC).timestamp())
    claims = {"iat": now - 60, "exp": now + 300, "iss": str(DEFAULT_APP_ID)}
    app_jwt = jwt.encode(claims, private_pem, algorithm="RS256")
    return requests.post(
        f"{fake.base_url}/app/installations/{DEFAULT_INSTALLATION_ID}/access_tokens",
        headers={"Authorization": f"Bearer {app_jwt}"},
        timeout=5,
    )


def test_fake_refuses_what_a_tokens_permissions_do_not_cover(fake_github, app_key):
    """github_facts §2.3: a comment on a PR needs `issues` or `pull_requests` write; a
    reaction on an issue comment "listed only under issues (write) ... With only
    pull_requests: write, this call is expected to fail with 403 "Resource not
    accessible by integration"", one on a review comment comes under pull_requests.

    The fake let any installation token do everything (and said its tokens had
    `pull_requests: read`, yet let them react on review comments), so a test could not
    show what the bot does on an installation whose owner granted less."""
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    said = fake.add_comment(DEFAULT_REPO, 7, "/notes")
    on_diff = fake.add_review_comment(DEFAULT_REPO, 7, "/notes")
    api = f"{fake.base_url}/repos/{DEFAULT_REPO}"
    before = _mint(fake, app_key.private_pem).json()["token"]  # all the manifest asks
    fake.set_permissions(DEFAULT_INSTALLATION_ID, {"pull_requests": "write", "metadata": "read"})
    minted = _mint(fake, app_key.private_pem).json()
    assert minted["permissions"] == {"pull_requests": "write", "metadata": "read"}

    def answer(token: str, method: str, path: str, **body: str) -> int:
        headers = {"Authorization": f"token {token}"}
        return requests.request(
            method, api + path, json=body, headers=headers, timeout=5
        ).status_code

    pr_only = minted["token"]
    assert answer(pr_only, "POST", "/issues/7/comments", body="notes") == 201
    assert answer(pr_only, "GET", "/issues/7/comments") == 200
    assert answer(pr_only, "POST", f"/issues/comments/{said.id}/reactions", content="eyes") == 403
    assert answer(pr_only, "POST", f"/pulls/comments/{on_diff.id}/reactions", content="eyes") == 201
    assert answer(pr_only, "GET", "/issues/7") == 403  # the issue view: issues only
    # a token keeps what it was minted with
    assert answer(before, "POST", f"/issues/comments/{said.id}/reactions", content="eyes") == 201

    fake.set_permissions(DEFAULT_INSTALLATION_ID, {"issues": "read", "metadata": "read"})
    read_only = _mint(fake, app_key.private_pem).json()["token"]
    assert answer(read_only, "GET", "/issues/7/comments") == 200
    assert answer(read_only, "POST", "/issues/7/comments", body="notes") == 403
    assert answer(read_only, "GET", "/pulls/7") == 403
    assert answer(read_only, "GET", "") == 200  # metadata
    # a private repository the token cannot see is not found, whatever it may do
    fake.add_pull("someone/private", 1, files=["a.py"])
    elsewhere = f"{fake.base_url}/repos/someone/private/pulls/1"
    hidden = requests.get(elsewhere, headers={"Authorization": f"token {read_only}"}, timeout=5)
    assert hidden.status_code == 404


def _jwt_with(private_pem: str, **claims: Any) -> str:
    now = int(datetime.now(UTC).timestamp())
    base = {"iat": now - 60, "exp": now + 300, "iss": str(DEFAULT_APP_ID)}
    return jwt.encode({**base, **claims}, private_pem, algorithm="RS256")


def test_fake_refuses_the_jwts_github_refuses(fake_github, app_key):
    """github_facts §2.1: `iat` "60 seconds in the past", `exp` "no more than 10 minutes
    into the future", and "send it as `Authorization: Bearer <JWT>`; `token` is **not**
    accepted for JWTs". A fake that took such a JWT would let a client configured with a
    longer expiry (PyGithub's jwt_expiry), or a clock running ahead, pass every test and
    be refused by GitHub at its first App call."""
    url = f"{fake_github.base_url}/app"
    now = int(datetime.now(UTC).timestamp())

    def status(credential: str, scheme: str = "Bearer") -> int:
        headers = {"Authorization": f"{scheme} {credential}"}
        return requests.get(url, headers=headers, timeout=5).status_code

    assert status(_jwt_with(app_key.private_pem)) == 200
    assert status(_jwt_with(app_key.private_pem, exp=now + 700)) == 401  # too far ahead
    assert status(_jwt_with(app_key.private_pem, exp=now - 10)) == 401  # expired
    assert status(_jwt_with(app_key.private_pem, iat=now + 120)) == 401  # issued ahead
    assert status(_jwt_with(app_key.private_pem, iss=str(DEFAULT_APP_ID) + "0")) == 401
    assert status(_jwt_with(app_key.private_pem), scheme="token") == 401


def test_fake_writes_link_headers_as_github_does(fake_github):
    """github_facts §6.5: PyGithub splits `Link` on ", " and "; " and reads rel as
    rel[5:-1]; GitHub writes a middle page's links prev, next, last, first, with `page`
    after `per_page`, and none at all for a list that fits one page (an empty one too);
    it gives 100 a page at most, whatever per_page asks.
    The first and last pages are checked in test_github_client."""
    fake_github.add_pat("ghp_links", "someone")
    fake_github.add_pull(DEFAULT_REPO, 7, files=[f"f{i}.py" for i in range(5)])
    fake_github.add_pull(DEFAULT_REPO, 8, files=[])
    api = f"{fake_github.base_url}/repos/{DEFAULT_REPO}"
    auth = {"Authorization": "token ghp_links"}
    middle = requests.get(f"{api}/pulls/7/files?per_page=2&page=2", headers=auth, timeout=5)
    url = f"{api}/pulls/7/files"
    assert middle.headers["Link"] == ", ".join(
        [
            f'<{url}?per_page=2&page=1>; rel="prev"',
            f'<{url}?per_page=2&page=3>; rel="next"',
            f'<{url}?per_page=2&page=3>; rel="last"',
            f'<{url}?per_page=2&page=1>; rel="first"',
        ]
    )
    assert [f["filename"] for f in middle.json()] == ["f2.py", "f3.py"]
    fake_github.add_pull(DEFAULT_REPO, 9, files=[f"f{i}.py" for i in range(150)])
    capped = requests.get(f"{api}/pulls/9/files?per_page=500", headers=auth, timeout=5)
    assert len(capped.json()) == 100  # per_page "max 100" (github_facts §3.1)
    assert f"{api}/pulls/9/files?per_page=100&page=2>" in capped.headers["Link"]
    for path in ("/pulls/7/files?per_page=5", "/pulls/8/files", "/issues/8/comments"):
        whole = requests.get(api + path, headers=auth, timeout=5)
        assert whole.status_code == 200 and "Link" not in whole.headers, path


def test_fake_takes_a_comment_of_exactly_the_limit_and_no_empty_one(fake_github):
    """github_facts §3.1: "Body is too long (maximum is 65536 characters)": 65536 is
    taken, one more is not (the 70,000 above leaves the boundary open); an empty body
    is a validation error too. The bot's own budget (bot.render.BUDGET) is far below."""
    fake_github.add_pat("ghp_limit", "someone")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    url = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/issues/7/comments"

    def status(body: Any) -> int:
        headers = {"Authorization": "token ghp_limit"}
        return requests.post(url, json={"body": body}, headers=headers, timeout=5).status_code

    assert status("é" * 65_536) == 201
    assert status("x" * 65_537) == 422
    assert status("") == 422
    assert status(None) == 422


# --- GitHub's content-creation limit ---


def test_fake_refuses_writes_past_the_content_creation_limit_until_the_window_moves(fake_github):
    """github_facts §3.3: no more than 80 content-generating requests a minute and 500 an
    hour, answered 403 or 429 with a secondary rate limit's words, Retry-After not always
    sent. Opt-in: the fake let every write through, so no test could show the bot meet
    it. Reads go on; a refused write is neither carried out nor counted."""
    now = [0.0]
    limit = fake_github.limit_content_creation(
        per_minute=2, per_hour=3, status=429, retry_after=True, clock=lambda: now[0]
    )
    fake_github.add_pat("ghp_a_pat", "someone")
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    auth = {"Authorization": "token ghp_a_pat"}
    comments = f"{fake_github.base_url}/repos/{DEFAULT_REPO}/issues/7/comments"

    def write() -> requests.Response:
        return requests.post(comments, json={"body": "hi"}, headers=auth, timeout=5)

    assert [write().status_code for _ in range(2)] == [201, 201]
    now[0] = 20.0
    refused = write()
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "40"
    assert "secondary rate limit" in refused.json()["message"]
    assert not check(refused.json(), {"$ref": ERROR_SCHEMA})
    assert requests.get(comments, headers=auth, timeout=5).status_code == 200  # reads go on
    assert len(fake_github.comments(DEFAULT_REPO, 7)) == 2 and limit.refused == 1
    now[0] = 59.5  # never "Retry-After: 0"
    assert write().headers["Retry-After"] == "1"
    now[0] = 60.0  # the minute's first write has left it; the hour has room for one more
    assert write().status_code == 201
    refused = write()
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "3540"
    now[0] = 3600.0  # the hour's first two have left it
    assert [write().status_code for _ in range(2)] == [201, 201]
    limit.retry_after, limit.status = False, 403  # GitHub's other answer: no time named
    refused = write()
    assert refused.status_code == 403 and "Retry-After" not in refused.headers
    assert len(fake_github.comments(DEFAULT_REPO, 7)) == 5 and limit.refused == 4


# GitHub answers an installation's token only for the repositories the installation
# holds, asked by id (/repositories/{id}/...) as by name: a private one it does not hold
# is not found, a public one is read but not written ("not accessible by integration").
# The bot's writes by id lean on it: a late delivery under a token of the wrong
# installation is refused, never run on that installation's repository. The App's JWT
# finds the installation holding a repository by its id, as go-github's
# FindRepositoryInstallationByID asks.
def test_fake_refuses_a_repository_by_id_to_an_installation_not_holding_it(fake_github, app_key):
    fake = fake_github
    fake.add_installation(2002, ["acme/other"])
    theirs = fake.add_repo("acme/other")
    fake.add_pull("acme/other", 1, files=["b.py"])
    token = _mint(fake, app_key.private_pem).json()["token"]  # installation 1001's
    by_id = f"{fake.base_url}/repositories/{theirs.id}"

    def answer(method: str, path: str, auth: str, **body: str) -> requests.Response:
        headers = {"Authorization": auth}
        return requests.request(method, by_id + path, json=body, headers=headers, timeout=5)

    mine = f"token {token}"
    assert answer("GET", "/pulls/1", mine).status_code == 404
    assert answer("POST", "/issues/1/comments", mine, body="notes").status_code == 404
    theirs.public = True
    assert answer("GET", "/pulls/1", mine).status_code == 200
    refused = answer("POST", "/issues/1/comments", mine, body="notes")
    assert refused.status_code == 403
    assert refused.json()["message"] == "Resource not accessible by integration"
    assert fake.comments("acme/other", 1) == []
    app = f"Bearer {_jwt_with(app_key.private_pem)}"
    assert answer("GET", "/installation", app).json()["id"] == 2002
    assert answer("GET", "/installation", mine).status_code == 401  # the JWT's route
    own = fake.add_repo(DEFAULT_REPO).id
    asked = requests.get(
        f"{fake.base_url}/repositories/{own}/installation",
        headers={"Authorization": app},
        timeout=5,
    )
    assert asked.json()["id"] == DEFAULT_INSTALLATION_ID


# GitHub's classic scopes: `repo` reaches private repositories, `public_repo` public ones
# only; a private repository asked for with a token without `repo` is not found, reads
# and writes alike (GitHub's troubleshooting page: a 404 for an existing repository when
# the token lacks the scope). The fake told a classic token's scopes but let it do all its
# user may: a `public_repo` token commented on a private repository, so no test could see
# the start let such a token through. Each repository's JSON says its visibility too.
def test_fake_hides_a_private_repository_from_a_classic_token_without_repo(fake_github):
    fake = fake_github
    fake.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    fake.add_pull("acme/open", 1, files=["b.py"])
    fake.add_repo("acme/open").public = True
    fake.add_pat("ghp_public_repo", "someone", scopes=("public_repo",))
    fake.add_pat("ghp_repo", "someone", scopes=("repo",))
    fake.add_pat("ghp_fine_grained", "someone")

    def answer(method: str, path: str, token: str) -> requests.Response:
        return requests.request(
            method,
            f"{fake.base_url}/repos/{path}",
            json={"body": "notes"} if method == "POST" else None,
            headers={"Authorization": f"token {token}"},
            timeout=5,
        )

    private = DEFAULT_REPO
    for method, path in [
        ("GET", private),
        ("GET", f"{private}/pulls/7"),
        ("POST", f"{private}/issues/7/comments"),
    ]:
        hidden = answer(method, path, "ghp_public_repo")
        assert hidden.status_code == 404, (method, path, hidden.status_code)
        assert hidden.json()["message"] == "Not Found"
        assert hidden.headers["X-OAuth-Scopes"] == "public_repo"  # told on a refusal too
    assert fake.comments(DEFAULT_REPO, 7) == []
    assert answer("GET", private, "ghp_repo").json()["private"] is True
    assert answer("POST", f"{private}/issues/7/comments", "ghp_repo").status_code == 201
    assert answer("POST", f"{private}/issues/7/comments", "ghp_fine_grained").status_code == 201
    assert answer("GET", "acme/open", "ghp_public_repo").json()["private"] is False
    assert answer("POST", "acme/open/issues/1/comments", "ghp_public_repo").status_code == 201
    repo_id = fake.add_repo(DEFAULT_REPO).id  # by id as by name
    by_id = requests.get(
        f"{fake.base_url}/repositories/{repo_id}/pulls/7",
        headers={"Authorization": "token ghp_public_repo"},
        timeout=5,
    )
    assert by_id.status_code == 404

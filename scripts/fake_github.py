"""Run the tests' fake GitHub (tests/fake_github.py) by hand, seeded for examples/.

    .venv/bin/python scripts/fake_github.py [--port 8900] [--token]
        [--key-file PATH] [--examples DIR] [--fault "METHOD PATH KIND[:ARG][*N]"]...

It serves the GitHub REST API on 127.0.0.1 (no github.com, nothing real posted) holding
what the payloads of examples/ name: their repository (with its id and visibility),
their App installation, each PR with its title, body, author, labels and `files`, and
the comment of a comment payload under its id. It prints the settings that point a live
`review-notes serve` at it: an App (id and a private key generated into --key-file) or,
with --token, a classic token it accepts (scope public_repo, or repo when a payload's
repository is private); the webhook secret is made up too (all the same every run, the
key reused). Then it prints each request it answers. Replay the examples with
`review-notes replay --live --now` (docs/operating.md, "Try it against a fake GitHub").

--fault queues a fault for the next request(s) matching METHOD and PATH (`*` matches any
part, as in `POST /repos/*/issues/*/comments`), used once each, N times with `*N`. KIND is
one of FAULTS below (its ARG: a status, or seconds). Stop with Ctrl-C.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the fake is the tests', not part of the installed package

from bot.replay import read_json  # noqa: E402
from tests.fake_github import DEFAULT_APP_ID, FakeGitHub, Fault  # noqa: E402

DEFAULT_PORT = 8900
TOKEN_USER = "notes-operator"  # whom the --token's comments are written as
# made up, and the same every run (so is the key, reused: --key-file), so that .env is
# written once; the webhook secret is not the development one, so the server is live
WEBHOOK_SECRET = "fake-github-webhook-secret"
TOKEN = "fake_github_token"  # accepted by this fake alone

# the Fault constructors by name; ARG, when given, is their one argument
FAULTS: dict[str, tuple[Callable[..., Fault], Callable[[str], Any] | None, str]] = {
    "error": (Fault.error, int, "answer STATUS (default 502) with a message"),
    "not_found": (Fault.not_found, None, "404 Not Found"),
    "bad_credentials": (Fault.bad_credentials, None, "401 Bad credentials"),
    "primary_rate_limit": (
        Fault.primary_rate_limit,
        float,
        "403, rate limit spent, reset in SECONDS (default 1)",
    ),
    "secondary_rate_limit": (
        Fault.secondary_rate_limit,
        int,
        "403 secondary limit, Retry-After SECONDS if given",
    ),
    "too_many_requests": (Fault.too_many_requests, int, "429, Retry-After SECONDS (default 1)"),
    "dropped": (Fault.dropped, None, "close the connection without an answer"),
    "slow": (Fault.slow, float, "answer after SECONDS (carried out)"),
    "trickled": (Fault.trickled, float, "send the answer one byte every SECONDS"),
}


def parse_fault(text: str) -> tuple[str, str, list[Fault]]:
    """`METHOD PATH KIND[:ARG][*N]` as (method, path, faults); ValueError saying what is wrong."""
    words = text.split()
    if len(words) != 3:
        raise ValueError(
            f"{text!r}: want METHOD PATH KIND, e.g. 'POST /repos/*/issues/*/comments error:502'"
        )
    method, path, kind = words
    kind, _, times = kind.partition("*")
    name, _, arg = kind.partition(":")
    if name not in FAULTS:
        raise ValueError(f"{text!r}: no fault {name!r}; one of {', '.join(FAULTS)}")
    make, convert, _ = FAULTS[name]
    if arg and convert is None:
        raise ValueError(f"{text!r}: {name} takes no argument")
    try:
        count = int(times) if times else 1
        fault = make(convert(arg)) if arg and convert is not None else make()
    except ValueError:
        raise ValueError(f"{text!r}: {arg or times!r} is not a number") from None
    if count < 1:
        raise ValueError(f"{text!r}: *N wants N of 1 or more")
    return method.upper(), path, [fault] * count


def read_examples(folder: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The payloads of `folder`'s *.json, by name (an `opened` before its `edited`), and
    the files skipped as no webhook payload, each "PATH: why". ValueError naming the
    file that cannot be read or holds no JSON, as replay would name it."""
    payloads: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in sorted(folder.glob("*.json")):
        _, payload = read_json(path)
        if not isinstance(payload, dict):
            skipped.append(f"{path}: not a JSON object")
            continue
        if not isinstance(payload.get("repository"), dict):
            skipped.append(f"{path}: names no repository")
            continue
        if not isinstance(payload.get("installation"), dict):  # what a dry run would take
            raise ValueError(f"{path}: names no installation, as an App's payload does")
        payloads.append(payload)
    if not payloads:
        raise ValueError(f"{folder}: no webhook payload (*.json with a repository) in it")
    return payloads, skipped


def seed(fake: FakeGitHub, payloads: list[dict[str, Any]]) -> None:
    """What the payloads name: repositories (their ids and visibility), installations,
    PRs, comments."""
    installations: dict[int, list[str]] = {}
    for payload in payloads:
        repo = payload["repository"]
        seeded = fake.add_repo(repo["full_name"])
        seeded.id = repo["id"]
        # public as the payload says: the --token's scopes (public_repo) reach it then
        seeded.public = repo.get("private") is not True
        installed = installations.setdefault(payload["installation"]["id"], [])
        if repo["full_name"] not in installed:
            installed.append(repo["full_name"])
    for installation_id, repos in installations.items():
        fake.add_installation(installation_id, repos)
    seeded: set[tuple[str, int]] = set()
    for payload in payloads:
        name = payload["repository"]["full_name"]
        pull = payload.get("pull_request")
        if isinstance(pull, dict) and (name, pull["number"]) not in seeded:
            seeded.add((name, pull["number"]))  # the first (the opened) payload's PR
            fake.add_pull(
                name,
                pull["number"],
                files=payload.get("files", ()),
                title=pull["title"],
                body=pull.get("body"),
                author=pull["user"]["login"],
                labels=[label["name"] for label in pull.get("labels", ())],
                draft=bool(pull.get("draft")),
            )
        comment = payload.get("comment")
        if isinstance(comment, dict) and "issue" in payload:
            fake.add_comment(
                name,
                payload["issue"]["number"],
                comment["body"],
                login=comment["user"]["login"],
                comment_id=comment["id"],
            )


def app_key(path: Path) -> str:
    """The public half (PEM) of the App's private key at `path`: the one there from an
    earlier run (the settings stay as they were), else a new one written there (mode
    600). ValueError when the file holds no unencrypted private key: it is not replaced."""
    if path.exists():
        try:
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (TypeError, ValueError):
            raise ValueError(
                f"{path}: holds no private key to reuse; give another --key-file"
            ) from None
    else:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600, exist_ok=False)
        path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.TraditionalOpenSSL,
                serialization.NoEncryption(),
            )
        )
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return public.decode()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    kinds = "\n".join(f"  {name:21} {doc}" for name, (_, _, doc) in FAULTS.items())
    parser = argparse.ArgumentParser(
        prog="scripts/fake_github.py",
        description="Run the fake GitHub seeded for examples/ and print the settings for"
        " a `review-notes serve` against it.",
        epilog=f"fault kinds (--fault):\n{kinds}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    parser.add_argument(
        "--token", action="store_true", help="print a token's settings, not an App's"
    )
    parser.add_argument(
        "--key-file",
        type=Path,
        default=Path("fake-github-app.pem"),
        help="where the App's generated private key goes (default ./fake-github-app.pem)",
    )
    parser.add_argument(
        "--examples",
        type=Path,
        default=ROOT / "examples",
        help="the payloads to seed for (default: examples/)",
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="'METHOD PATH KIND[:ARG][*N]'",
        help="queue a fault (repeatable); kinds below",
    )
    return parser.parse_args(argv)


def token_scopes(payloads: list[dict[str, Any]]) -> tuple[str, ...]:
    """The runner's classic token's scopes: public_repo, the least that comments, or repo
    when a payload's repository is private, which public_repo does not reach."""
    private = any(payload["repository"].get("private") is True for payload in payloads)
    return ("repo",) if private else ("public_repo",)


def settings_lines(fake: FakeGitHub, token: str | None, key_file: Path) -> list[str]:
    """What to put in .env (or export) for a live serve against `fake`."""
    if token is not None:
        credentials = [f"GITHUB_TOKEN={token}"]
    else:
        credentials = [f"GITHUB_APP_ID={fake.app_id}", f"GITHUB_PRIVATE_KEY_PATH={key_file}"]
    return [
        f"GITHUB_API_URL={fake.base_url}",
        *credentials,
        f"GITHUB_WEBHOOK_SECRET={WEBHOOK_SECRET}",
        "REVIEW_NOTES_PUBLIC_URL=http://127.0.0.1:8000",
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        faults = [parse_fault(text) for text in args.fault]
        payloads, skipped = read_examples(args.examples)
    except (OSError, ValueError) as exc:
        print(f"fake_github: {exc}", file=sys.stderr)
        return 2
    for why in skipped:  # a payload cut short seeds nothing: say which files and why
        print(f"fake_github: skipped {why} (no webhook payload)", file=sys.stderr)
    key_file = args.key_file.resolve()
    try:
        public = None if args.token else app_key(key_file)
    except (OSError, ValueError) as exc:
        print(f"fake_github: {exc}", file=sys.stderr)
        return 2
    fake = FakeGitHub(app_public_key=public, app_id=DEFAULT_APP_ID)
    seed(fake, payloads)
    # the server's with --token, else one to look with curl: `repo` if a repository is
    # private (the fake hides one from public_repo alone, as GitHub does)
    token = TOKEN
    fake.add_pat(token, TOKEN_USER, scopes=token_scopes(payloads))
    for method, path, queued in faults:
        fake.inject(method, path, *queued)
    try:
        fake.start(args.port)
    except OSError as exc:
        print(f"fake_github: cannot listen on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"fake GitHub at {fake.base_url}; settings for review-notes serve:", flush=True)
    print("\n".join(settings_lines(fake, token if args.token else None, key_file)))
    print(f"# to look: curl -H 'Authorization: token {token}' {fake.base_url}/repos/...")
    print("requests as they come (method, path, status, who):", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    shown = 0
    try:
        while not stop.wait(0.2):
            shown = print_requests(fake, shown)
    except KeyboardInterrupt:
        pass
    fake.stop()
    return 0


def print_requests(fake: FakeGitHub, shown: int) -> int:
    """Print the requests after the first `shown`; how many are shown then."""
    seen = fake.requests
    for r in seen[shown:]:
        status = "dropped" if r.status is None else r.status
        fault = " (fault)" if r.faulted else ""
        print(f"{r.method} {r.path} {status} {r.login or '-'}{fault}", flush=True)
    return len(seen)


if __name__ == "__main__":
    sys.exit(main())

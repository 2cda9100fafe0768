"""How many webhook deliveries the server acknowledges, and how fast it turns them into
comments; prints figures, asserts nothing.

    python bench/bench_load.py [--quick]

1. Ack path. The real server (`review-notes serve` under uvicorn, in a subprocess,
   with a real SQLite file, posting to a loopback fake GitHub with the production
   request spacing) and a bare FastAPI endpoint that reads the body and answers 202
   (another subprocess, same uvicorn, same HTTP parser and event loop: printed) get
   the same signed `pull_request` deliveries
   (~21 KB, GitHub's own example) from this process at 1, 10 and 100 concurrent
   senders (one keep-alive connection each). Printed: acks/s, p50/p99 ack latency,
   the ratio real/bare, the server's peak RSS, and whether every acknowledged
   delivery is in the SQLite file.
2. End to end. A fresh server with no request spacing (our own cost, not GitHub's
   pacing) processes a realistic mix on many PRs: opened, labeled, synchronize
   without and with file changes, edited. Printed per kind: events/s from delivery
   to comment, and GitHub API calls per event as the fake GitHub counted them.

Every request goes to 127.0.0.1; request counts and run times are bounded; the run
stops by itself (about 30 s; --quick: about 6 s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PY = sys.executable
SECRET = "bench-webhook-secret"
REPO = "vllm-project/vllm"
LEVELS = (1, 10, 100)


# --- the bare endpoint (run in its own process with --bare PORT) ----------------------


def run_bare(port: int) -> None:
    import uvicorn

    app = FastAPI()

    @app.post("/webhook")
    async def webhook(request: Request) -> JSONResponse:
        await request.body()  # the real server must read it too
        return JSONResponse({"status": "queued"}, status_code=202)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        # the real server's (bot.server), passed by bench_ack: a fair ratio, and this
        # process does not import the bot (its RSS is printed next to the server's)
        http=os.environ["BENCH_UVICORN_HTTP"],
        loop=os.environ["BENCH_UVICORN_LOOP"],
    )


# --- processes --------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = check()
            if value:
                return value
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"bench: timed out waiting for {what}")


@dataclass
class Server:
    name: str
    proc: subprocess.Popen
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def peak_rss_mb(self) -> float:
        """VmHWM of the process: its peak resident set, from the kernel."""
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, timeout: float = 40) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def start(name: str, args: list[str], env: dict[str, str], log: Path) -> Server:
    port = free_port()
    out = open(log, "w")
    proc = subprocess.Popen(
        [*args, str(port)] if name == "bare" else [*args, "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    server = Server(name, proc, port)
    wait_for(lambda: get_json(f"{server.base}/healthz"), 60, f"{name} server start ({log})")
    return server


def server_env(db: Path, fake_url: str, private_pem: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "REVIEW_NOTES_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        GITHUB_APP_ID=str(APP_ID),
        GITHUB_PRIVATE_KEY=private_pem,
        GITHUB_WEBHOOK_SECRET=SECRET,
        GITHUB_API_URL=fake_url,
        REVIEW_NOTES_PUBLIC_URL="https://notes.example.org",
        REVIEW_NOTES_DB_PATH=str(db),
        REVIEW_NOTES_LOG_LEVEL="WARNING",
    )
    env.update(extra)
    return env


# --- a small HTTP/1.1 load generator (asyncio, keep-alive) -----------------------------


def request_bytes(port: int, event: str, payload: dict[str, Any], delivery: str) -> bytes:
    from bot.signature import sign

    body = json.dumps(payload).encode()
    head = (
        f"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\nUser-Agent: GitHub-Hookshot/bench\r\n"
        f"X-GitHub-Event: {event}\r\nX-GitHub-Delivery: {delivery}\r\n"
        f"X-Hub-Signature-256: {sign(SECRET, body)}\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if length:
        await reader.readexactly(length)
    return status


@dataclass
class LoadResult:
    sent: int
    acked: int  # 2xx answers
    seconds: float
    latencies: list[float]
    statuses: Counter
    cpu_ms: float = float("nan")  # the server's CPU time per answer

    @property
    def rate(self) -> float:
        return self.acked / self.seconds if self.seconds else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


async def _load(port: int, requests: list[bytes], senders: int, max_seconds: float) -> LoadResult:
    latencies: list[float] = []
    statuses: Counter = Counter()
    queue = iter(requests)
    deadline = time.perf_counter() + max_seconds

    async def sender() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for req in queue:
                t0 = time.perf_counter()
                writer.write(req)
                status = await _read_response(reader)
                latencies.append(time.perf_counter() - t0)
                statuses[status] += 1
                if t0 > deadline:
                    break
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(sender() for _ in range(senders)))
    seconds = time.perf_counter() - started
    acked = sum(n for s, n in statuses.items() if 200 <= s < 300)
    return LoadResult(len(latencies), acked, seconds, latencies, statuses)


def load(port: int, requests: list[bytes], senders: int, max_seconds: float) -> LoadResult:
    return asyncio.run(_load(port, requests, senders, max_seconds))


# --- payloads ----------------------------------------------------------------------

APP_ID = 4242
MARKER = "<!-- review-notes:v1 -->"  # the sticky comment's first line


def payload(number: int, action: str = "opened", **kw: Any) -> dict[str, Any]:
    from tests.webhook_kit import pr_payload

    return pr_payload(action, number=number, **kw)


# --- 1. the ack path ----------------------------------------------------------------


def bench_ack(tmp: Path, fake: Any, private_pem: str, quick: bool) -> dict[str, Any]:
    counts = {1: 600, 10: 3000, 100: 5000} if not quick else {1: 50, 10: 200, 100: 400}
    max_seconds = 8.0 if not quick else 2.0
    db = tmp / "ack.sqlite3"
    env = server_env(db, fake.base_url, private_pem)  # production pacing: workers mostly wait
    real = start("real", [PY, "-m", "bot.cli", "serve"], env, tmp / "real.log")
    from bot.server import UVICORN_HTTP, UVICORN_LOOP

    uvicorn = dict(os.environ, BENCH_UVICORN_HTTP=UVICORN_HTTP, BENCH_UVICORN_LOOP=UVICORN_LOOP)
    bare = start("bare", [PY, __file__, "--bare"], uvicorn, tmp / "bare.log")
    template = payload(1)
    acked_ids: list[str] = []
    rows: list[tuple[int, LoadResult, LoadResult]] = []
    number = 100_000
    try:
        for server in (bare, real):  # warm up: first requests, SQLite pages, the matcher
            fake.add_pull(REPO, 1, files=["vllm/v1/core/kv_cache_coordinator.py"])
            warm = [
                request_bytes(server.port, "pull_request", template, f"warm-{uuid.uuid4()}")
                for _ in range(20)
            ]
            load(server.port, warm, 2, 5)
        wait_for(lambda: get_json(f"{real.base}/healthz")["done"], 30, "the first delivery")
        for senders in LEVELS:
            results = {}
            for server in (bare, real):
                reqs, ids = [], []
                for _ in range(counts[senders]):
                    number += 1
                    fake.add_pull(REPO, number, files=["vllm/v1/core/kv_cache_coordinator.py"])
                    template["number"] = template["pull_request"]["number"] = number
                    ids.append(did := f"bench-{uuid.uuid4()}")
                    reqs.append(request_bytes(server.port, "pull_request", template, did))
                cpu = server.cpu_seconds()
                results[server.name] = r = load(server.port, reqs, senders, max_seconds)
                r.cpu_ms = (server.cpu_seconds() - cpu) * 1000 / max(r.sent, 1)
                if server is real:
                    acked_ids += ids[: r.sent]
            rows.append((senders, results["bare"], results["real"]))
        rss = real.peak_rss_mb()
        bare_rss = bare.peak_rss_mb()
    finally:
        code = real.stop()
        bare.stop()
    with sqlite3.connect(db) as conn:
        stored = {r[0] for r in conn.execute("SELECT id FROM deliveries")}
    real_acks = sum(r.acked for _, _, r in rows)
    missing = [i for i in acked_ids if i not in stored]
    print("\n1. Ack path: signed pull_request deliveries (21 KB), keep-alive senders, loopback")
    print(f"   both servers: uvicorn http={UVICORN_HTTP} loop={UVICORN_LOOP}")
    print(
        f"   {'senders':>7}  {'server':6} {'acks/s':>8} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'CPU ms/ack':>10}  answers"
    )
    for senders, b, r in rows:
        for name, res in (("bare", b), ("real", r)):
            answers = ", ".join(f"{n}x{s}" for s, n in sorted(res.statuses.items()))
            print(
                f"   {senders:>7}  {name:6} {res.rate:8.0f} {res.pct(0.5):8.1f}"
                f" {res.pct(0.99):8.1f} {res.cpu_ms:10.2f}  {answers}"
            )
        print(f"   {'':>7}  ratio real/bare throughput: {r.rate / b.rate:.2f}")
    print(
        f"   durably queued: {len(acked_ids) - len(missing)} of {real_acks} acknowledged"
        f" deliveries are in {db.name}" + (f"; MISSING {len(missing)}" if missing else "")
    )
    print(f"   peak RSS: real server {rss:.0f} MB, bare endpoint {bare_rss:.0f} MB")
    print(f"   real server exit code after SIGTERM: {code}")
    return {"rows": rows, "rss": rss}


# --- 2. end to end ----------------------------------------------------------------


def bench_e2e(tmp: Path, fake: Any, private_pem: str, quick: bool) -> None:
    from tests.webhook_kit import MATCHING_FILES, MATCHING_TITLE, UNRELATED_TITLE

    prs = 100 if not quick else 8
    db = tmp / "e2e.sqlite3"
    env = server_env(
        db,
        fake.base_url,
        private_pem,
        REVIEW_NOTES_SECONDS_BETWEEN_REQUESTS="0",
        REVIEW_NOTES_SECONDS_BETWEEN_WRITES="0",
    )
    real = start("real", [PY, "-m", "bot.cli", "serve"], env, tmp / "e2e.log")
    numbers = list(range(9000, 9000 + prs))
    # Half the PRs match a note (they get a comment), half do not (they must not).
    matching = set(numbers[::2])
    # What GitHub knows of each PR; every event below changes it first, like GitHub.
    title = {n: MATCHING_TITLE if n in matching else UNRELATED_TITLE for n in numbers}
    files = {n: MATCHING_FILES if n in matching else ["docs/contributing.md"] for n in numbers}
    sha = {n: f"{n:040x}" for n in numbers}

    def sync_fake(n: int) -> None:
        fake.add_pull(REPO, n, files=files[n], title=title[n], author="octo-dev").head_sha = sha[n]

    def pr_event(action: str, **kw: Any) -> Callable[[int, int], tuple[str, dict[str, Any]]]:
        def make(n: int, step: int) -> tuple[str, dict[str, Any]]:
            p = payload(n, action, title=title[n], head_sha=sha[n], **kw)
            p["pull_request"]["updated_at"] = f"2026-09-01T10:00:{step:02d}Z"
            return "pull_request", p

        return make

    def command(text: str) -> Callable[[int, int], tuple[str, dict[str, Any]]]:
        def make(n: int, step: int) -> tuple[str, dict[str, Any]]:
            return "issue_comment", comment_payload(fake.add_comment(REPO, n, text, login="dev"))

        return make

    def push(new_files: bool) -> Callable[[int], None]:
        def change(n: int) -> None:
            sha[n] = uuid.uuid4().hex + "0" * 8
            if new_files:
                files[n] = [*files[n], "vllm/config/new.py"]

        return change

    def retitle(n: int) -> None:
        title[n] = UNRELATED_TITLE if n in matching else MATCHING_TITLE

    edited = pr_event("edited", changes={"title": {"from": "the title before"}})
    steps: list[tuple[str, Callable[[int], None] | None, Callable]] = [
        ("opened", None, pr_event("opened")),
        ("labeled (no change)", None, pr_event("labeled", labels=("ci",))),
        ("synchronize, same files", push(False), pr_event("synchronize")),
        ("synchronize, a file added", push(True), pr_event("synchronize")),
        ("edited title", retitle, edited),
        ("comment: /notes", None, command("/notes")),
        ("comment: /notes search EAGLE", None, command("/notes search EAGLE")),
    ]
    print(f"\n2. End to end: {prs} PRs (half match a note), workers 2, no request spacing")
    print(f"   {'event':30} {'events/s':>9} {'GitHub calls/event':>19}  calls")
    total_events, total_seconds, total_calls = 0, 0.0, 0
    try:
        for step, (name, change, make) in enumerate(steps):
            bodies = []
            for n in numbers:
                if change is not None:
                    change(n)
                sync_fake(n)
                event, body = make(n, step)
                bodies.append(request_bytes(real.port, event, body, f"e2e-{uuid.uuid4()}"))
            fake.clear_requests()
            done_before = get_json(f"{real.base}/healthz")["done"]
            started = time.perf_counter()
            res = load(real.port, bodies, 10, 30)
            target = done_before + res.acked
            wait_for(lambda t=target: _drained(real, t), 60, f"{name} processed")
            seconds = time.perf_counter() - started
            calls = Counter(
                f"{r.method} {_route(r.path)}" for r in fake.requests if r.path.startswith("/repos")
            )
            n_calls = sum(calls.values())
            total_events += res.acked
            total_seconds += seconds
            total_calls += n_calls
            shown = ", ".join(f"{k} {v}" for k, v in sorted(calls.items()))
            rate, per_event = res.acked / seconds, n_calls / res.acked
            print(f"   {name:30} {rate:9.1f} {per_event:19.2f}  {shown or '-'}")
        health = get_json(f"{real.base}/healthz")
    finally:
        real.stop()
    stickies = [len(_bot_comments(fake, n, MARKER)) for n in numbers]
    print(
        f"   all kinds: {total_events} events in {total_seconds:.1f}s = "
        f"{total_events / total_seconds:.1f} events/s, {total_calls / total_events:.2f} calls/event"
    )
    print(
        f"   sticky comments: {stickies.count(1)} PRs with one, "
        f"{sum(1 for k in stickies if k > 1)} with more than one; "
        f"failed deliveries: {health['failed']}"
    )


def comment_payload(comment: Any) -> dict[str, Any]:
    """An `issue_comment` `created` delivery for a comment that exists in the fake, with
    its times (the example's are of 2019: older than deliveries are kept, such a
    delivery is refused as a replay)."""
    from tests.command_kit import _times
    from tests.webhook_kit import octokit_examples

    base = next(e for e in octokit_examples("issue_comment") if e["action"] == "created")
    who = {"login": comment.user.login, "id": comment.user.id, "type": "User"}
    return dict(
        base,
        repository=dict(base["repository"], full_name=REPO, name="vllm"),
        issue={
            "number": comment.number,
            "title": "",
            "user": who,
            "state": "open",
            "pull_request": {"url": f"https://api.github.com/repos/{REPO}/pulls/{comment.number}"},
        },
        comment=dict(
            base["comment"], id=comment.id, body=comment.body, user=who, **_times(comment)
        ),
        sender=who,
        installation={"id": 1001},
    )


def _drained(server: Server, done: int) -> bool:
    h = get_json(f"{server.base}/healthz")
    return h["done"] >= done and h["pending"] == 0 and h["processing"] == 0


def _route(path: str) -> str:
    parts = path.split("/")[4:]
    return "/".join("{n}" if p.isdigit() else p for p in parts) or "repo"


def _bot_comments(fake: Any, number: int, marker: str) -> list[Any]:
    return [
        c
        for c in fake.comments(REPO, number)
        if c.user.login.endswith("[bot]") and c.body.startswith(marker)
    ]


# --- main --------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer requests (a smoke run)")
    parser.add_argument("--bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare:
        run_bare(args.bare)
        return 0

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from tests.fake_github import FakeGitHub

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    began = time.monotonic()
    print(f"bench_load: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    with (
        tempfile.TemporaryDirectory(prefix="bench-load-") as d,
        FakeGitHub(app_public_key=public_pem, app_id=APP_ID) as fake,
    ):
        fake.add_installation(1001, [REPO])
        tmp = Path(d)
        bench_ack(tmp, fake, private_pem, args.quick)
        bench_e2e(tmp, fake, private_pem, args.quick)
    print(f"\n(run took {time.monotonic() - began:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

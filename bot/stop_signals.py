"""The stop signals' handler outside uvicorn's serving, in a module that imports nothing
heavy: `review-notes serve` installs it before it imports the server (FastAPI, uvicorn,
PyGithub: half a second), so a stop that early is kept too."""

from __future__ import annotations

import signal
import sys


class StopSignals:
    """The handler while the server starts (the modules import, the notes load, the
    database opens) and once uvicorn, having drained, raises the signal again for the
    handler it found. A signal seen while starting is kept, so the server drains and
    exits as soon as it is up: `docker stop` right after a start must not be lost (the
    server is the container's main process: a signal it has no handler for, the kernel
    drops, and the platform waits its whole grace period, then kills)."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, signum: int, frame: object) -> None:
        if signum not in self.seen:  # once: uvicorn's re-raise is the same stop
            print(f"review-notes: stopped by {signal.Signals(signum).name}", file=sys.stderr)
        self.seen.append(signum)

    def install(self) -> StopSignals:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self)
        return self

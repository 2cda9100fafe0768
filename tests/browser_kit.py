"""Headless Chromium and a uvicorn server on a free 127.0.0.1 port, for the browser test
and scripts/screenshot.py (which puts the repository root on sys.path to import this).

Debian's chromium + chromedriver are used by path, so selenium-manager looks nothing up
and downloads nothing.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from selenium import webdriver

HEADLESS_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chrome_options(chromium: str, profile: Path | str, *flags: str) -> webdriver.ChromeOptions:
    """Options for a quiet headless `chromium` with its own profile dir, plus `flags`."""
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*HEADLESS_FLAGS, f"--user-data-dir={profile}", *flags]:
        options.add_argument(flag)
    return options


@contextmanager
def serving_in_thread(app: FastAPI) -> Iterator[str]:
    """Serve `app` with uvicorn in a daemon thread; yield its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # a free port, held until uvicorn takes the socket
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("uvicorn did not start")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

"""A deadline for each whole HTTP call to GitHub, from its connection to its answer's
last byte.

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), under
`bot.github_http`, whose connections call through `within_deadline`. requests' timeout
(REVIEW_NOTES_HTTP_TIMEOUT) bounds each wait on the socket, not the call: a server or a
proxy trickling a byte every few seconds held one call, its worker with it (and the
start's check), for as long as it went on. Past the deadline
(REVIEW_NOTES_HTTP_DEADLINE) the call's connection is shut down, which wakes a read
blocked on it, and the call fails as a timeout does (`PastDeadline`), retried by the
same rules. Not covered: a TLS handshake trickled in (its socket is out of reach until
the handshake ends); Python's ssl bounds the whole handshake by the timeout instead.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

T = TypeVar("T")


class PastDeadline(requests.exceptions.Timeout):
    """No whole answer within the deadline: a timeout, as the client reads one."""

    def __init__(self, seconds: float):
        super().__init__(f"no whole answer within {seconds:g}s")


class _Watch:
    """One call's deadline. Past it, the connection the call is on is shut down: a read
    blocked on it returns at once, and each later step on it fails."""

    def __init__(self, seconds: float):
        self._lock = threading.Lock()  # against the timer's thread
        self._connection: HTTPConnection | None = None
        self._over = False
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def start(self) -> None:
        self._timer.start()

    def on(self, connection: HTTPConnection) -> None:
        """The call goes on over `connection` (it connects, or sends the request)."""
        with self._lock:
            self._connection = connection
            expired = self.expired
        if expired:  # the deadline passed while it connected
            _shut(connection)

    def over(self) -> None:
        """The call ended: its connection may carry the next call, untouched."""
        with self._lock:
            self._over = True
        self._timer.cancel()

    def _expire(self) -> None:
        # shut under the lock: once `over` returns, the pool may hand the connection, on
        # a new socket, to the thread's next call, which a shut after it would break
        with self._lock:
            if self._over:
                return
            self.expired = True
            if self._connection is not None:
                _shut(self._connection)


def _shut(connection: HTTPConnection) -> None:
    sock = connection.sock
    if sock is None:  # still connecting: `_Watch.on` shuts it when the request is sent
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # closed already, or handed to TLS mid-handshake
        pass


_current = threading.local()  # .watch: the call this thread is making


def within_deadline(seconds: float, call: Callable[[], T]) -> T:
    """`call()` (one HTTP request and its whole answer, in this thread), or PastDeadline
    once `seconds` have passed. An answer complete just as the deadline passed is taken
    as none too: a write's is then looked for as after any timeout."""
    watch = _Watch(seconds)
    _current.watch = watch
    watch.start()
    try:
        answer = call()
    except Exception as exc:
        if watch.expired:
            raise PastDeadline(seconds) from exc
        raise
    finally:
        watch.over()
        _current.watch = None
    if watch.expired:  # shut mid-answer: an answer read to its end (no length) is cut
        raise PastDeadline(seconds)
    return answer


class _Watched:
    """A urllib3 connection that tells this thread's call (`within_deadline`) it is the
    one to shut at the deadline."""

    def connect(self) -> None:
        _tell(self)
        super().connect()  # type: ignore[misc]

    def request(self, *args: Any, **kwargs: Any) -> None:
        _tell(self)
        super().request(*args, **kwargs)  # type: ignore[misc]


def _tell(connection: Any) -> None:
    watch: _Watch | None = getattr(_current, "watch", None)
    if watch is not None:
        watch.on(connection)


class _WatchedHTTP(_Watched, HTTPConnection):
    pass


class _WatchedHTTPS(_Watched, HTTPSConnection):
    pass


class _WatchedPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTP


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPS


_POOLS = {"http": _WatchedPool, "https": _WatchedHTTPSPool}


class DeadlineAdapter(HTTPAdapter):
    """requests' adapter, its connections (through an HTTP proxy too) `_Watched`."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS pools are urllib3's own kind
            manager.pool_classes_by_scheme = _POOLS
        return manager


def mount_watched(
    session: requests.Session, scheme: str, retry: Any, pool_size: int
) -> DeadlineAdapter:
    """A DeadlineAdapter mounted on `session` for `scheme` ("http://", "https://") in
    place of the one PyGithub made with the same `retry` and `pool_size`."""
    old = session.adapters.get(scheme)
    watched = DeadlineAdapter(max_retries=retry, pool_connections=pool_size, pool_maxsize=pool_size)
    session.mount(scheme, watched)
    if old is not None:
        old.close()
    return watched

"""A deadline for each whole HTTP call to GitHub, from its connection to its answer's
last byte.

Step 5 of the flow (event -> PR facts -> matches -> comment -> GitHub), under
`bot.github_http`, whose connections call through `within_deadline`. requests' timeout
(REVIEW_NOTES_HTTP_TIMEOUT) bounds each wait on the socket, not the call: a server or a
proxy trickling a byte every few seconds held one call, its worker with it (and the
start's check), for as long as it went on. Past the deadline
(REVIEW_NOTES_HTTP_DEADLINE) the call's connection is shut down, which wakes a read
blocked on it, and the call fails as a timeout does (`PastDeadline`), retried by the
same rules. One thread per client keeps the deadlines of all its calls (`Watchdog`).
Not covered: a TLS handshake trickled in (its socket is out of reach until the handshake
ends); Python's ssl bounds the whole handshake by the timeout instead. The same connections
mark a failure of their connect as one that sent nothing (`github_errors.connect_failed`).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from bot.github_errors import connect_failed

T = TypeVar("T")

log = logging.getLogger(__name__)


class PastDeadline(requests.exceptions.Timeout):
    """No whole answer within the deadline: a timeout, as the client reads one."""

    def __init__(self, seconds: float):
        super().__init__(f"no whole answer within {seconds:g}s")


class _Watch:
    """One call's deadline. Past it, the connection the call is on is shut down: a read
    blocked on it returns at once, and each later step on it fails."""

    def __init__(self, watchdog: Watchdog):
        self._watchdog = watchdog
        self._lock = threading.Lock()  # against the watchdog's thread
        self._connection: HTTPConnection | None = None
        self._over = False
        self.expired = False
        self.armed = True  # till it ends or expires; the watchdog's, under its condition

    def on(self, connection: HTTPConnection) -> None:
        """The call goes on over `connection` (it connects, has connected, or sends the
        request)."""
        with self._lock:
            self._connection = connection
            expired = self.expired
        if expired:  # the deadline passed while it connected
            _shut(connection)

    def over(self) -> None:
        """The call ended: its connection may carry the next call, untouched."""
        with self._lock:
            self._over = True
            self._connection = None
        self._watchdog.disarm(self)

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
    if sock is None:  # still connecting: `_Watch.on` shuts it once it has connected
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # closed already, or handed to TLS mid-handshake
        pass


class Watchdog:
    """One daemon thread that expires the deadlines of a client's calls, in every thread
    of it, soonest first: a timer thread per call cost each call a thread's start.

    Started by the first call. After `close` a call (a straggler of the closed client)
    starts it again, and it ends again once no call is under way. A call that ends leaves
    its deadline in the heap, skipped when it comes due (taking it out at once would cost
    a search), and the heap is swept when those are most of it.
    """

    def __init__(self) -> None:
        self._due = threading.Condition()
        self._heap: list[tuple[float, int, _Watch]] = []  # (monotonic time due, order, call)
        self._order = itertools.count()  # breaks ties: a _Watch has no order
        self._armed = 0  # calls under way
        self._stale = 0  # calls ended, their deadlines still in the heap
        self._thread: threading.Thread | None = None
        self._closing = False  # for good: the thread ends whenever no call is under way

    def arm(self, seconds: float) -> _Watch:
        """A deadline `seconds` from now for the calling thread's call."""
        watch = _Watch(self)
        with self._due:
            if self._thread is None:  # a thread that cannot start fails the call, unarmed
                thread = threading.Thread(
                    target=self._run, name="review-notes-deadlines", daemon=True
                )
                thread.start()
                self._thread = thread
            heapq.heappush(self._heap, (time.monotonic() + seconds, next(self._order), watch))
            self._armed += 1
            if self._heap[0][2] is watch:  # due before the one the thread waits for
                self._due.notify()
        return watch

    def disarm(self, watch: _Watch) -> None:
        """`watch`'s call ended (`_Watch.over`): its deadline no longer expires."""
        with self._due:
            if not watch.armed:  # expired already
                return
            watch.armed = False
            self._armed -= 1
            self._stale += 1
            if self._stale > 64 and 2 * self._stale > len(self._heap):
                self._heap = [entry for entry in self._heap if entry[2].armed]
                heapq.heapify(self._heap)
                self._stale = 0
            if self._closing and self._armed == 0:
                self._due.notify()

    def close(self) -> None:
        """Stop the thread: at once when no call is under way, else after the last one
        ends or expires (a call under way keeps its deadline), also one begun after it."""
        with self._due:
            self._closing = True
            thread, idle = self._thread, self._armed == 0
            if idle:
                self._thread = None  # which tells the thread to end
            self._due.notify()
        if thread is not None and idle:
            thread.join()

    def _run(self) -> None:
        me = threading.current_thread()
        while (watch := self._next_due(me)) is not None:
            try:
                watch._expire()  # out of the condition: `_Watch.over` takes them the other way
            except Exception:  # one call's, which must not end every later call's deadline
                log.exception("could not shut a call past its deadline")

    def _next_due(self, me: threading.Thread) -> _Watch | None:
        """The next call past its deadline, once it is; None when the thread is to end."""
        with self._due:
            while True:
                if self._closing and self._armed == 0 and self._thread is me:
                    self._thread = None
                if self._thread is not me:  # closed
                    return None
                while self._heap and not self._heap[0][2].armed:
                    heapq.heappop(self._heap)
                    self._stale -= 1
                if not self._heap:
                    self._due.wait()
                    continue
                wait = self._heap[0][0] - time.monotonic()
                if wait > 0:
                    self._due.wait(wait)
                    continue
                watch = heapq.heappop(self._heap)[2]
                watch.armed = False
                self._armed -= 1
                return watch


_current = threading.local()  # .watch: the call this thread is making


def within_deadline(seconds: float, call: Callable[[], T], watchdog: Watchdog) -> T:
    """`call()` (one HTTP request and its whole answer, in this thread), or PastDeadline
    once `seconds` have passed (`watchdog` expires it). An answer complete just as the
    deadline passed is taken as none too: a write's is then looked for as after any
    timeout."""
    watch = watchdog.arm(seconds)
    _current.watch = watch
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
    one to shut at the deadline; and marks a failure of its connect (TCP, a proxy's
    CONNECT, TLS: before the request is written, also where it connects inside `request`)
    as one that sent nothing (`github_errors.connect_failed`)."""

    def connect(self) -> None:
        _tell(self)
        try:
            super().connect()  # type: ignore[misc]
        except BaseException as exc:
            connect_failed(exc)
            raise
        # once more: a deadline passed as it connected found no socket to shut, and a
        # plain-HTTP connection connects inside `request`, after its tell
        _tell(self)

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

"""The whole-call deadline's watchdog (bot.github_deadline): one thread keeps the
deadlines of every call of a client, shuts only the expired call's connection, and ends
with the client. The deadline against a trickling fake GitHub: tests/test_github_client.py.
"""

from __future__ import annotations

import threading
import types
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.github_deadline import PastDeadline, Watchdog, _tell, within_deadline
from bot.github_port import PRRef
from tests.fake_github import DEFAULT_INSTALLATION_ID, DEFAULT_REPO
from tests.webhook_kit import wait_until

THREAD = "review-notes-deadlines"  # the watchdog's thread's name


class _Socket:
    """A connection's socket that records its shutdown, and wakes a call reading it."""

    def __init__(self) -> None:
        self.shut = threading.Event()

    def shutdown(self, how: int) -> None:
        self.shut.set()


def _read_on(connection: types.SimpleNamespace) -> Callable[[], str]:
    """A call on `connection` that reads till its socket is shut (an answer trickled in
    for ever), and gives up after 30 s, unshut, with an answer."""

    def call() -> str:
        _tell(connection)
        sock = connection.sock
        return "late" if not sock.shut.wait(30) else "cut short"

    return call


def _answer_on(connection: types.SimpleNamespace) -> Callable[[], str]:
    """A call on `connection` answered at once."""

    def call() -> str:
        _tell(connection)
        return "answer"

    return call


def _new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread not in before]


# Each call started a threading.Timer for its deadline, and stopped it: a thread's start
# on every call to GitHub
def test_a_thousand_calls_start_one_thread_not_one_each():
    watchdog = Watchdog()
    before = set(threading.enumerate())
    seen: set[threading.Thread] = set()
    counts: list[int] = []

    def call() -> str:
        seen.update(threading.enumerate())
        counts.append(threading.active_count())
        return "answer"

    for _ in range(1000):
        assert within_deadline(60, call, watchdog) == "answer"
    assert [thread.name for thread in seen - before] == [THREAD]
    assert max(counts) <= len(before) + 1
    watchdog.close()
    assert _new_threads(before) == []


# Many threads' calls share the one heap of deadlines: each deadline that passes shuts its
# own call's socket, never one of another call, nor the next call's on the connection. The
# calls answered at once have deadlines that come due after they end (skipped), or never.
def test_many_threads_calling_at_once_each_deadline_shuts_only_its_own_call():
    watchdog = Watchdog()

    def calls(worker: int) -> list[tuple[bool, str, _Socket]]:
        connection = types.SimpleNamespace(sock=None)  # the pool hands it to each next call
        made: list[tuple[bool, str, _Socket]] = []
        for n in range(2000):
            late = n % 97 == worker * 11  # some 20 calls of each thread
            sock = connection.sock = _Socket()
            call = _read_on(connection) if late else _answer_on(connection)
            try:
                got = within_deadline(0.01 if late else (0.02, 60)[n % 2], call, watchdog)
            except PastDeadline:
                got = "past"
            made.append((late, got, sock))
        return made

    with ThreadPoolExecutor(8) as pool:
        made = [call for calls_made in pool.map(calls, range(8)) for call in calls_made]
    watchdog.close()  # and any shut still to come is done
    late = [(got, sock.shut.is_set()) for is_late, got, sock in made if is_late]
    on_time = [(got, sock.shut.is_set()) for is_late, got, sock in made if not is_late]
    assert len(late) > 100 and len(on_time) > 15000
    assert set(late) == {("past", True)}
    # one descheduled past its deadline (a loaded machine) fails as the late ones do
    assert ("answer", False) in on_time and set(on_time) <= {("answer", False), ("past", True)}


def test_close_stops_the_thread_and_the_next_call_starts_it_again():
    watchdog = Watchdog()
    before = set(threading.enumerate())
    within_deadline(60, lambda: "answer", watchdog)
    (thread,) = _new_threads(before)
    watchdog.close()
    assert not thread.is_alive()
    connection = types.SimpleNamespace(sock=_Socket())
    with pytest.raises(PastDeadline, match=r"no whole answer within 0.05s"):
        within_deadline(0.05, _read_on(connection), watchdog)
    assert connection.sock.shut.is_set()
    watchdog.close()
    assert _new_threads(before) == []


# A call still under way as the client closes keeps its deadline: the thread ends after it
def test_close_while_a_call_is_under_way_leaves_it_its_deadline():
    watchdog = Watchdog()
    before = set(threading.enumerate())
    connection = types.SimpleNamespace(sock=_Socket())
    answers: list[str] = []

    def call() -> None:
        try:
            answers.append(within_deadline(0.5, _read_on(connection), watchdog))
        except PastDeadline:
            answers.append("past")

    caller = threading.Thread(target=call)
    caller.start()
    wait_until(lambda: any(t.name == THREAD for t in _new_threads(before)), what="the watch")
    watchdog.close()  # returns at once
    caller.join(30)
    assert answers == ["past"]
    wait_until(lambda: _new_threads(before) == [], what="the watchdog's end")


# A call begun after close while one was still under way (the next page of a listing the
# close found going on) took the close back: the thread outlived both calls, and the
# client it served, for good
def test_a_call_begun_after_close_leaves_no_thread_once_the_calls_end():
    watchdog = Watchdog()
    before = set(threading.enumerate())
    release = threading.Event()
    caller = threading.Thread(target=within_deadline, args=(60, release.wait, watchdog))
    caller.start()
    wait_until(lambda: any(t.name == THREAD for t in _new_threads(before)), what="the watch")
    watchdog.close()  # returns at once: a call is under way
    assert within_deadline(60, lambda: "answer", watchdog) == "answer"  # the straggler
    release.set()
    caller.join(30)
    wait_until(lambda: _new_threads(before) == [], timeout=5, what="the watchdog's end")


def test_closing_the_client_stops_its_deadlines_thread(fake_github, make_github_client):
    fake_github.add_pull(DEFAULT_REPO, 7, files=["a.py"])
    client = make_github_client()
    before = set(threading.enumerate())
    assert client.list_files(PRRef(DEFAULT_REPO, 7, DEFAULT_INSTALLATION_ID)) == ["a.py"]
    (watchdog,) = [thread for thread in _new_threads(before) if thread.name == THREAD]
    client.close()
    assert not watchdog.is_alive()

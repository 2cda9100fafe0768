"""The stop signals' handler outside uvicorn's serving (the server's start, uvicorn's
re-raise); `review-notes serve` with real signals is in test_cli_server."""

from __future__ import annotations

import signal

from bot.stop_signals import StopSignals

# --- the stop signals: kept every time, said once ----------------------------------------


# kills: bot/stop_signals.py:StopSignals.__call__ the once-only print dropped or inverted, the
#        append dropped (the stop forgotten: the server never drains), or the line sent to
#        stdout (the serve tests read both streams as one)
def test_a_stop_is_kept_every_time_and_said_once_on_stderr(capsys):
    handler = StopSignals()
    handler(signal.SIGTERM, None)
    handler(signal.SIGTERM, None)  # uvicorn's re-raise after draining
    handler(signal.SIGINT, None)
    assert handler.seen[0] == signal.SIGTERM  # the server stops by the first one
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        "review-notes: stopped by SIGTERM\nreview-notes: stopped by SIGINT\n",
    )


# kills: bot/stop_signals.py:StopSignals.install a signal left out of install(), and
#        :StopSignals.install `return self` -> None (`serve` keeps what install() returns)
def test_install_takes_both_stop_signals_and_returns_the_handler():
    before = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        handler = StopSignals()
        assert handler.install() is handler
        assert [signal.getsignal(sig) for sig in before] == [handler, handler]
    finally:
        for sig, previous in before.items():
            signal.signal(sig, previous)

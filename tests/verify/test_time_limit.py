"""The per-test limit behind `contracts verify --timeout` (contracts.verify.time_limit)."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest

from contracts.verify import time_limit as time_limits
from contracts.verify.time_limit import TimeLimitExceeded, time_limit


def test_code_still_running_at_the_limit_is_interrupted_and_the_alarm_disarmed() -> None:
    """A 10 s sleep under a 0.05 s limit raises TimeLimitExceeded naming the test; afterwards no timer is
    left running and the previous SIGALRM handler is back."""
    before = signal.getsignal(signal.SIGALRM)
    with pytest.raises(TimeLimitExceeded) as raised, time_limit(0.05, "t.py::t"):
        time.sleep(10)
    assert "t.py::t: still running after 0.05 s (--timeout); the engine did not return" == str(raised.value)
    assert ((0.0, 0.0), before) == (signal.getitimer(signal.ITIMER_REAL), signal.getsignal(signal.SIGALRM))


def test_code_that_returns_in_time_is_untouched() -> None:
    """Under a 60 s limit a quick body returns its value and leaves no timer."""
    with time_limit(60.0, "t.py::t"):
        assert (1, 0.0) == (1, 0.0)
        armed = signal.getitimer(signal.ITIMER_REAL)[0]
    assert (True, 0.0) == (0.0 < armed <= 60.0, signal.getitimer(signal.ITIMER_REAL)[0])


def test_no_limit_and_other_threads_arm_nothing() -> None:
    """None arms no timer; nor does a limit outside the main thread (SIGALRM goes to the main thread)."""
    seen: list[float] = []

    def elsewhere() -> None:
        with time_limit(0.01, "t.py::t"):
            time.sleep(0.05)
            seen.append(signal.getitimer(signal.ITIMER_REAL)[0])

    with time_limit(None, "t.py::t"):
        seen.append(signal.getitimer(signal.ITIMER_REAL)[0])
    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert [0.0, 0.0] == seen


def test_an_engine_catching_exception_cannot_swallow_the_limit() -> None:
    """TimeLimitExceeded is not an Exception: `except Exception` in an engine lets it through (and
    hypothesis re-raises it at once, without shrinking)."""
    assert not issubclass(TimeLimitExceeded, Exception)


def test_an_engine_that_disarms_the_alarm_meets_the_backstop(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body that sets SIGALRM to SIG_IGN and keeps sleeping is past the alarm's reach: the watchdog
    calls on_hang BACKSTOP_GRACE after the limit, with a message naming the test and the limit."""
    seen: list[str] = []
    before = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(time_limits, "BACKSTOP_GRACE", 1.0)
    with time_limit(0.05, "t.py::t", seen.append):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        time.sleep(1.6)
    message = (
        "t.py::t: still running 1.05 s after it started, past --timeout 0.05 s: the engine disarmed or "
        "swallowed the time limit; the run ends here"
    )
    assert ([message], before) == (seen, signal.getsignal(signal.SIGALRM))


def test_a_test_that_ends_in_time_never_meets_the_backstop(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watchdog is cancelled when the body ends: nothing is called after its time would have come."""
    seen: list[str] = []
    monkeypatch.setattr(time_limits, "BACKSTOP_GRACE", 1.0)
    with time_limit(0.05, "t.py::t", seen.append):
        pass
    time.sleep(1.3)
    assert [] == seen


def test_the_backstop_says_why_and_ends_the_process_with_a_failing_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """end_process prints its message on stderr, then ends the process at once with exit code 1."""
    ended: list[int] = []
    monkeypatch.setattr(os, "_exit", ended.append)
    time_limits.end_process("t.py::t: still running")
    assert (["t.py::t: still running"], [1]) == (capsys.readouterr().err.splitlines(), ended)


class AbandonLog:
    """A stand-in for verify's recorder: remembers which test it was told hung, and why."""

    def __init__(self, order: list[str]) -> None:
        self.order = order

    def abandon(self, nodeid: str, message: str) -> None:
        self.order.append(f"abandon {nodeid}: {message}")


@pytest.mark.parametrize("with_recorder", [True, False])
def test_a_hung_test_is_recorded_before_the_process_ends(
    monkeypatch: pytest.MonkeyPatch, with_recorder: bool
) -> None:
    """The backstop of one test tells verify's recorder (absent in an xdist worker) which test hung, and
    only then ends the process, so the results name the test."""
    order: list[str] = []
    monkeypatch.setattr(time_limits, "end_process", lambda message: order.append(f"end: {message}"))
    recorder = AbandonLog(order) if with_recorder else None
    time_limits.hung(recorder, "t.py::t", "t.py::t: still running")
    expected = ["abandon t.py::t: t.py::t: still running"] if with_recorder else []
    assert [*expected, "end: t.py::t: still running"] == order


def test_an_alarm_that_comes_as_the_body_ends_interrupts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The alarm's handler raises while the body runs; once the body has ended (the disarming under way)
    the same handler raises nothing, so a late alarm cannot cut the disarming short."""
    installed: list[Any] = []
    real_signal = signal.signal

    def remember(signum: int, handler: Any) -> Any:
        installed.append(handler)
        return real_signal(signum, handler)

    monkeypatch.setattr(signal, "signal", remember)
    monkeypatch.setattr(signal, "setitimer", lambda *args: (0.0, 0.0))  # no real alarm: called by hand
    with time_limit(60.0, "t.py::t", lambda message: None), pytest.raises(TimeLimitExceeded):
        installed[0](signal.SIGALRM, None)
    installed[0](signal.SIGALRM, None)

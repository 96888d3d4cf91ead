"""A time limit per test (`contracts verify --timeout`): an engine that hangs fails its test, with a
message saying so, instead of stalling the whole run."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

HUNG_EXIT = 1  # the process's exit code when the backstop ends it (pytest's "some test failed")
# seconds the alarm has, after the limit, to end the test before the backstop does: a test ending on
# TimeLimitExceeded (teardown, hypothesis's report) takes well under a second, more on a loaded machine
BACKSTOP_GRACE = 10.0


class TimeLimitExceeded(BaseException):
    """Not an Exception: hypothesis re-raises it at once instead of shrinking the example (each shrink
    step would wait out the limit again), and the engine's own `except Exception` cannot swallow it."""


def backstop(seconds: float) -> float:
    """When the backstop fires: BACKSTOP_GRACE after the alarm."""
    return seconds + BACKSTOP_GRACE


def end_process(message: str) -> None:
    """The backstop's default: say why on stderr and end this process (an xdist worker's end is a crash
    its controller reports as the test's failure; pytest's own, a run whose results say so first)."""
    print(message, file=sys.stderr, flush=True)
    os._exit(HUNG_EXIT)


@contextmanager
def time_limit(
    seconds: float | None, where: str, on_hang: Callable[[str], None] = end_process
) -> Iterator[None]:
    """Raise TimeLimitExceeded in the running code once `seconds` have passed (no limit: None). SIGALRM
    reaches Python code, sleeps and waits, not a C call that never returns; it is armed only in the main
    thread (pytest's and each xdist worker's). An engine can disarm the alarm (SIG_IGN) or swallow it
    (`except BaseException` in a loop): a watchdog thread then calls on_hang at backstop(seconds)."""
    return limited(seconds, where, on_hang)  # mutmut skips decorated functions: the logic is plain


def limited(seconds: float | None, where: str, on_hang: Callable[[str], None]) -> Iterator[None]:
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    late = backstop(seconds)
    watchdog = threading.Timer(
        late,
        on_hang,
        (
            f"{where}: still running {late:g} s after it started, past --timeout {seconds:g} s: the engine "
            "disarmed or swallowed the time limit; the run ends here",
        ),
    )
    watchdog.daemon = True

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeLimitExceeded(
            f"{where}: still running after {seconds:g} s (--timeout); the engine did not return"
        )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog.start()
    try:
        yield
    finally:
        watchdog.cancel()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

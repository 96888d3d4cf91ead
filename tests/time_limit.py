"""A time limit per test (`contracts verify --timeout`): an engine that hangs fails its test, with a
message saying so, instead of stalling the whole run."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class TimeLimitExceeded(BaseException):
    """Not an Exception: hypothesis re-raises it at once instead of shrinking the example (each shrink
    step would wait out the limit again), and the engine's own `except Exception` cannot swallow it."""


@contextmanager
def time_limit(seconds: float | None, where: str) -> Iterator[None]:
    """Raise TimeLimitExceeded in the running code once `seconds` have passed (no limit: None). SIGALRM
    reaches Python code, sleeps and waits, not a C call that never returns; it is armed only in the main
    thread (pytest's and each xdist worker's)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TimeLimitExceeded(
            f"{where}: still running after {seconds:g} s (--timeout); the engine did not return"
        )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)

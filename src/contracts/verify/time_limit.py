"""A time limit per test (`contracts verify --timeout`): an engine that hangs fails its test, with a
message saying so, instead of stalling the whole run. Only the test's call is timed (the suite's
session takes this module's pytest_runtest_call)."""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from types import FrameType
from typing import Any

import pytest

from contracts.verify.plugin import RECORDER
from pytest_contracts import TIMEOUT

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
    ended = False

    def expire(signum: int, frame: FrameType | None) -> None:
        if not ended:  # an alarm that comes as the body ends must not cut short the disarming below
            raise TimeLimitExceeded(
                f"{where}: still running after {seconds:g} s (--timeout); the engine did not return"
            )

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    watchdog.start()
    try:
        yield
    finally:
        ended = True  # first: a handler run from here on raises nothing, so the watchdog is cancelled
        signal.setitimer(signal.ITIMER_REAL, 0)
        watchdog.cancel()
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Each test's call within --contracts-test-timeout seconds, if given: a hanging engine fails its
    test. The suite's session takes this hook (not an autouse fixture): only the call is timed."""
    return arm(item)


def arm(item: pytest.Item) -> None:
    """Arm the limit as the test's call starts (before the test function runs) and disarm it first thing
    in its teardown (a finalizer added last runs first)."""
    limit = call_limit(item)
    limit.__enter__()
    item.addfinalizer(lambda: limit.__exit__(None, None, None))


def call_limit(item: pytest.Item) -> AbstractContextManager[None]:
    """The time limit of the test's call. pytest turns whatever the call raises into the test's failure;
    an alarm in a fixture's setup (an error, never the engine's) would judge the machine's load, not
    the engine."""
    recorder = item.config.pluginmanager.get_plugin(RECORDER)  # verify's, outside xdist workers
    on_hang = functools.partial(hung, recorder, item.nodeid)
    return time_limit(item.config.getoption(TIMEOUT, None), item.nodeid, on_hang)


def hung(recorder: Any, nodeid: str, message: str) -> None:
    """The backstop of test nodeid: the recorder (None in an xdist worker) writes the results, which say
    which test hung, before the process ends."""
    if recorder is not None:
        recorder.abandon(nodeid, message)
    end_process(message)

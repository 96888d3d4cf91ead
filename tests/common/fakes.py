"""Stand-ins for the clocks the tooling reads (`time.monotonic`, `time.sleep`), shared by its tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class ScriptedClock:
    """A monotonic clock that reads the given times in turn and fails when read once too often; its
    sleeps are logged (as ("sleep", seconds)) into calls, when given, without sleeping."""

    def __init__(self, readings: Iterable[float], calls: list[tuple[Any, ...]] | None = None) -> None:
        self.readings = iter(readings)
        self.calls = [] if calls is None else calls

    def monotonic(self) -> float:
        reading = next(self.readings, None)
        if reading is None:
            raise AssertionError("the clock was read once too often")
        return reading

    def sleep(self, seconds: float) -> None:
        self.calls.append(("sleep", seconds))


class SteadyClock:
    """A monotonic clock that advances by step at each reading, from start (the first reading is
    start + step)."""

    def __init__(self, start: float, step: float) -> None:
        self.start, self.step = start, step
        self.readings = 0

    def monotonic(self) -> float:
        self.readings += 1
        return self.start + self.readings * self.step

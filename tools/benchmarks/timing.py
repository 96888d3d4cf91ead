"""Interleaved timing with plain time.perf_counter: rounds of A, B, A, B, ..., medians, paired ratios.

Every candidate of a comparison runs in every round, in an order that alternates between rounds, so
slow drift of the machine (frequency, other processes) hits all candidates alike. A round times
`number` back-to-back calls of one candidate and records the time per call. gc.collect() runs before
each timed batch (outside the timer), so every batch starts from the same heap; the cyclic garbage
collector stays enabled during the timed calls unless gc_enabled is False, because a real training
loop pays for it.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    """Seconds per call of one candidate, one entry per round."""

    name: str
    per_call: tuple[float, ...]

    def median(self) -> float:
        return statistics.median(self.per_call)


@dataclass(frozen=True)
class Ratio:
    """measured / baseline: the median of per-round ratios, with their lower and upper quartile."""

    median: float
    low: float
    high: float


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    low, middle, high = statistics.quantiles(values, n=4, method="inclusive")
    return low, middle, high


def paired_ratio(measured: Sample, baseline: Sample) -> Ratio:
    """Ratios of the two candidates within each round (they ran side by side), summarized."""
    ratios = [m / b for m, b in zip(measured.per_call, baseline.per_call, strict=True)]
    low, middle, high = quartiles(ratios)
    return Ratio(middle, low, high)


def time_batch(function: Callable[[], object], number: int, gc_enabled: bool) -> float:
    """Seconds per call over `number` back-to-back calls."""
    gc.collect()
    if not gc_enabled:
        gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(number):
            function()
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    return elapsed / number


def compare(
    candidates: Mapping[str, Callable[[], object]],
    rounds: int,
    number: int = 1,
    gc_enabled: bool = True,
    warmup: int = 1,
) -> dict[str, Sample]:
    """Time every candidate in every round, alternating the order; returns a Sample per name."""
    names = list(candidates)
    for name in names:
        for _ in range(warmup):
            candidates[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for index in range(rounds):
        order = names if index % 2 == 0 else names[::-1]
        for name in order:
            times[name].append(time_batch(candidates[name], number, gc_enabled))
    return {name: Sample(name, tuple(times[name])) for name in names}


def calls_for(function: Callable[[], object], target_seconds: float, cap: int = 100_000) -> int:
    """How many back-to-back calls take about target_seconds (at least 1), from one timed call."""
    start = time.perf_counter()
    function()
    once = max(time.perf_counter() - start, 1e-9)
    return max(1, min(cap, int(target_seconds / once)))


def format_seconds(seconds: float) -> str:
    """A time with a unit that keeps three significant digits readable."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"

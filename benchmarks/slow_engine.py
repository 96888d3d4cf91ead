"""An engine 100 times slower than the reference, for timing `contracts verify --quick` (figure 6).

Every engine method (scalar, tensor, program and module calls alike) runs the reference's own code, then
sleeps 99 times as long as that took: the engine computes the reference's answers, 100 times slower.
The declarations (name, capabilities, conventions, error mappings) are the reference's, unchanged.

    contracts verify --quick --impl benchmarks.slow_engine:SlowReference    # from the clone's root
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from contracts.engines.reference import ReferenceEngine

SLOWDOWN = 100
# What the suite asks about the engine, not what it computes: answered at the reference's speed.
DECLARATIONS = frozenset({"lacks", "convention", "version", "error_family", "missing"})


def slowed(method: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            time.sleep((SLOWDOWN - 1) * (time.perf_counter() - started))

    return run


class SlowReference(ReferenceEngine):
    """The reference engine, each computing call 100 times as long."""

    name = "reference-slowed-100x"

    def __getattribute__(self, attribute: str) -> Any:
        found = super().__getattribute__(attribute)
        if attribute.startswith("_") or attribute in DECLARATIONS or not callable(found):
            return found
        return slowed(found)

"""An engine 100 times slower than the reference, for timing `contracts verify --quick` (figure 6).

Every engine method the suite calls (scalar, tensor, program and module calls alike) runs the reference's
own code, then sleeps 99 times as long as that took: the engine computes the reference's answers, 100
times slower. Calls the engine makes of itself are not slowed again.
The declarations (name, capabilities, conventions, error mappings) are the reference's, unchanged.

    contracts verify --quick --impl tools.benchmarks.slow_engine:SlowReference    # from the clone's root
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from contracts.engines.reference import ReferenceEngine

SLOWDOWN = 100
# What the suite asks about the engine, not what it computes: answered at the reference's speed.
DECLARATIONS = frozenset({"lacks", "convention", "version", "error_family", "missing"})


class Slowdown:
    """Sleeps SLOWDOWN - 1 times as long as each outermost engine call took. A call the engine makes of
    itself (module_forward calling run) is part of its caller's time: slowing it too would compound the
    factor (measured: 10^4 times, not 100, for module_forward)."""

    def __init__(self) -> None:
        self.depth = 0

    def slowed(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            self.depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                self.depth -= 1
                if self.depth == 0:
                    time.sleep((SLOWDOWN - 1) * (time.perf_counter() - started))

        return run


class SlowReference(ReferenceEngine):
    """The reference engine, each computing call from the suite 100 times as long."""

    name = "reference-slowed-100x"

    def __init__(self) -> None:
        self._slowdown = Slowdown()

    def __getattribute__(self, attribute: str) -> Any:
        found = super().__getattribute__(attribute)
        if attribute.startswith("_") or attribute in DECLARATIONS or not callable(found):
            return found
        slowdown: Slowdown = super().__getattribute__("_slowdown")
        return slowdown.slowed(found)

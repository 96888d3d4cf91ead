"""Adapters that differ from the reference only where the spec leaves engines free: they must pass.

A verdict is worth something only if a correct engine gets it green: these adapters prove the
engine-facing tests do not demand the reference's own wording, types or counters where the spec asks
for a family (tests/engines/test_refusal_conformance.py runs them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.reference import ReferenceEngine

EXP_LIMIT = 709.782712893384  # log(float64 max): exp above it overflows


class OwnDomainMessages(ReferenceEngine):
    """The reference, except that exp's overflow and log's domain refusals carry the engine's own words
    (the spec's families, OverflowError and ValueError, raised before any work)."""

    name: ClassVar[str] = "own-domain-messages"

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        values = np.asarray(inputs[0], dtype=np.float64) if inputs else np.zeros(())
        # the data first (T.order.unary): inf is above the limit too, but it is refused as non-finite
        if op == "exp" and bool(np.all(np.isfinite(values))) and bool(np.any(values > EXP_LIMIT)):
            raise OverflowError("exp would overflow on this input")
        if op == "log" and bool(np.any(values <= 0)):
            raise ValueError("log needs positive input")
        return super().tensor_vjp(op, inputs, upstream)

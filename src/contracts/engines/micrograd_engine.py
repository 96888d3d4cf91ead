"""micrograd (0.1.0, an optional extra) as an engine for the scalar family.

micrograd's Value has + - * / ** neg relu and backward, and no exp or log. Two rows fail on it by
design of micrograd, and are claimed so that they fail by name rather than hide:
S03.rule.deep-graph (its recursive topological sort raises RecursionError at a chain depth of about
1,000) and S03.rule.accumulate (a second backward re-seeds only the output, so the intermediate
gradients left from the first call are added again and the leaves over-accumulate).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from contracts.engines.base import (
    CONTRACT_FAMILIES,
    REFERENCE_ONLY,
    SCALAR_FORMS,
    TENSOR,
    Engine,
    MissingExtraError,
    Program,
    run_program,
)

MICROGRAD_OPS = ("add", "sub", "mul", "div", "neg", "pow", "relu")


def import_value() -> Any:
    """micrograd's Value class, or MissingExtraError naming the extra that installs it."""
    try:
        from micrograd.engine import Value
    except ImportError:
        raise MissingExtraError("micrograd", "micrograd", "micrograd") from None
    return Value


class MicrogradEngine(Engine):
    name: ClassVar[str] = "micrograd"
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {f"scalar.{op}" for op in MICROGRAD_OPS}
        | {"scalar.deep-graph", "scalar.accumulate", "scalar.program"}
    )
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.exp": "micrograd 0.1.0's Value has no exp",
        "scalar.log": "micrograd 0.1.0's Value has no log",
        "scalar.domain": "micrograd has no domain checks: 1/0 raises Python's own ZeroDivisionError "
        "from float division and (-8) ** 0.5 gives a complex number",
        **dict.fromkeys(sorted(TENSOR | {"tensor.program"}), "micrograd is a scalar engine"),
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
    }

    def __init__(self) -> None:
        self.value_type = import_value()

    def version(self) -> str | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("micrograd")
        except PackageNotFoundError:
            return None

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        if op not in MICROGRAD_OPS:
            raise ValueError(f"micrograd engine: op must be one of {sorted(MICROGRAD_OPS)}, got {op!r}")
        leaves = [self.value_type(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return float(out.data), tuple(float(leaf.grad) for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = self.value_type(1.0)
        out = x
        # Every micrograd node is in a reference cycle (its _backward closure): with the collector
        # on, building 10^6 of them takes ~13 s instead of ~3 s. The result does not change.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for _ in range(depth):
                out = out + 1.0
        finally:
            if collecting:
                gc.enable()
        failure: RecursionError | None = None
        try:
            out.backward()
        except RecursionError as error:
            failure = error
        if failure is not None:
            # Raised again from one place and outside the handler, so hypothesis sees one failure
            # (not one per frame where the limit happened to hit) and shrinks it to the smallest
            # failing depth. The failure itself is micrograd's.
            raise RecursionError(
                f"micrograd's recursive topological sort exceeded Python's recursion limit "
                f"({sys.getrecursionlimit()}) on a chain of depth {depth}"
            )
        return float(x.grad)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = self.value_type(a), self.value_type(b)
        shared = left * right
        out = shared * shared + left
        out.backward()
        out.backward()
        return float(left.grad), float(right.grad)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        unknown = sorted({op for op, _, _ in program} - set(MICROGRAD_OPS))
        if unknown:
            raise ValueError(f"micrograd engine: op must be one of {sorted(MICROGRAD_OPS)}, got {unknown}")
        nodes = [self.value_type(float(x)) for x in leaves]
        out = run_program(SCALAR_FORMS, nodes, program)
        out.backward()
        return float(out.data), tuple(float(node.grad) for node in nodes)

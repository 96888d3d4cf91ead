"""Adapters that declare another dtype or a per-case convention (dtype, conventions per case).

Float32Reference is the reference as a float32 engine would look from outside: every input is rounded
to float32 before the reference computes, and every number it returns is rounded to float32 (what a
float32 engine stores). Judged with float32 tolerances its gradient rows pass; the same numbers judged
with float64 tolerances (Float32JudgedAsFloat64) fail; a wrong gradient (Float32WrongMultiply) still
fails at float32 tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.base import Program
from contracts.engines.reference import ReferenceEngine
from contracts.tensor import reduce_to_shape


def to32(x: Any) -> Any:
    """x rounded to float32, held as float64 (the adapter protocol's boundary type)."""
    rounded = np.asarray(x, dtype=np.float32).astype(np.float64)
    return float(rounded) if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else rounded


def number32(value: Any) -> Any:
    """A float or int rounded to float32; anything else (a bool, a str, None) unchanged."""
    return to32(value) if isinstance(value, float | int) and not isinstance(value, bool) else value


def each32(values: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(to32(x) for x in values)


class Float32Reference(ReferenceEngine):
    """The reference with float32 inputs and float32 results; declares dtype float32."""

    name: ClassVar[str] = "reference-float32"
    dtype: ClassVar[str] = "float32"

    def scalar_vjp(
        self, op: str, inputs: Sequence[float], constants: Mapping[str, float] | None = None
    ) -> tuple[float, tuple[float, ...]]:
        # only numbers are rounded: a bool or str exponent reaches the engine as given (S03.fail.pow-exponent)
        rounded = None if constants is None else {name: number32(c) for name, c in constants.items()}
        value, grads = super().scalar_vjp(op, each32(inputs), rounded)
        return to32(value), each32(grads)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = super().scalar_backward_twice(to32(a), to32(b))
        return to32(left), to32(right)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        value, grads = super().scalar_program_grads(program, each32(leaves))
        return to32(value), each32(grads)

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_vjp(op, each32(inputs), None if upstream is None else to32(upstream))
        return to32(value), each32(grads)

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Any], upstream: Any, params: Mapping[str, Any]
    ) -> tuple[Any, tuple[Any, ...]]:
        rounded = None if upstream is None else to32(upstream)
        value, grads = super().tensor_vjp_with(op, each32(inputs), rounded, params)
        return to32(value), each32(grads)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Any], upstream: Any
    ) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_program_vjp(program, each32(leaves), to32(upstream))
        return to32(value), each32(grads)

    def tensor_from_data(self, data: Any) -> Any:
        """The engine's own tensor of the data: float32, as a float32 engine stores it."""
        return np.asarray(super().tensor_from_data(data), dtype=np.float32)


class Float32JudgedAsFloat64(Float32Reference):
    """The same float32 numbers, declared as float64: judged with float64 tolerances they fail."""

    name: ClassVar[str] = "reference-float32-as-float64"
    dtype: ClassVar[str] = "float64"


class Float32WrongMultiply(Float32Reference):
    """A float32 engine with a real bug: multiply's gradient for a is g * a (the swap forgotten)."""

    name: ClassVar[str] = "broken-float32-multiply"

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_vjp(op, inputs, upstream)
        if op != "multiply":
            return value, grads
        a = np.asarray(inputs[0], dtype=np.float64)
        g = np.ones(np.shape(value)) if upstream is None else np.asarray(upstream, dtype=np.float64)
        return value, (to32(reduce_to_shape(np, g * a, a.shape)), grads[1])


class TieSplitAtMaximum(ReferenceEngine):
    """An engine like torch: maximum splits a tie's gradient 0.5/0.5, relu'(0) is 0. It declares the
    maximum case of T.rule.tie as a convention; the relu case must still run (and pass)."""

    name: ClassVar[str] = "tie-split"
    conventions: ClassVar[Mapping[str, str]] = {
        "T.rule.tie[maximum]": "maximum splits the gradient 0.5/0.5 where a == b"
    }

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_vjp(op, inputs, upstream)
        a, b = (np.asarray(x, dtype=np.float64) for x in inputs) if op == "maximum" else (None, None)
        if a is None or b is None or a.shape != b.shape or upstream is None:
            return value, grads
        half = np.asarray(upstream, dtype=np.float64) / 2
        return value, (np.where(a == b, half, grads[0]), np.where(a == b, half, grads[1]))


class UnknownCase(ReferenceEngine):
    """Declares a convention for a case T.rule.tie does not list: verify must refuse it at load."""

    name: ClassVar[str] = "unknown-case"
    conventions: ClassVar[Mapping[str, str]] = {"T.rule.tie[sum]": "no such case"}


class UnknownDtype(ReferenceEngine):
    """Declares a dtype the spec's tolerance rule does not know: verify must refuse it at load."""

    name: ClassVar[str] = "unknown-dtype"
    dtype: ClassVar[str] = "bfloat16"


class Float64DeclaredFloat32(ReferenceEngine):
    """The reference's float64 numbers under a float32 declaration (looser tolerances, the float64-only
    rows n/a): verify must check the declaration even when --rows leaves T.rule.tolerance out."""

    name: ClassVar[str] = "float64-declared-float32"
    dtype: ClassVar[str] = "float32"

"""Deliberately broken adapters: `contracts verify` must name the rows they break, with a repro."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.core.errors import ShapeError
from contracts.engines.base import Engine, Program, TensorGraph
from contracts.engines.reference import ReferenceEngine


class WrongMulGradient(ReferenceEngine):
    """The reference, except mul reports d(a*b)/da = a and d(a*b)/db = b (the swap forgotten)."""

    name: ClassVar[str] = "broken-mul"

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        value, grads = super().scalar_vjp(op, inputs, constants)
        if op == "mul":
            return value, (float(inputs[0]), float(inputs[1]))
        return value, grads


class MatmulForgetsTranspose(ReferenceEngine):
    """The reference, except matmul's gradient for b is a @ g instead of aᵀ @ g (where that fits)."""

    name: ClassVar[str] = "broken-matmul"

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_vjp(op, inputs, upstream)
        if op != "matmul" or upstream is None or [np.ndim(x) for x in inputs] != [2, 2]:
            return value, grads
        a = np.asarray(inputs[0], dtype=np.float64)
        if a.shape[0] != a.shape[1]:
            return value, grads  # a @ g has b's shape only for a square a
        return value, (grads[0], a @ np.asarray(upstream, dtype=np.float64))


class ExpIgnoresUpstream(ReferenceEngine):
    """The reference, except exp's tensor gradient is exp(x), whatever the upstream gradient."""

    name: ClassVar[str] = "broken-exp"

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        value, grads = super().tensor_vjp(op, inputs, upstream)
        if op == "exp":
            return value, (np.exp(np.asarray(inputs[0], dtype=np.float64)),)
        return value, grads


class NotAnEngine:
    """Selected by a dotted path, but not an Engine: verify must refuse it."""


class DeclaresNothing(Engine):
    """An adapter that declares no capability and implements nothing: verify must verify nothing."""

    name: ClassVar[str] = "declares-nothing"


class ReferenceCopy(ReferenceEngine):
    """The reference's adapter methods under another name: every engine test must call it, and no
    reference-only test may count for it (verify reports not exercised / not applicable instead)."""

    name: ClassVar[str] = "reference-copy"


class MatmulFailsOnVectors(ReferenceEngine):
    """The reference, except matmul with a 1-D operand raises (wrapping the internal error it hit): one
    bug that several rows' tests see, which verify must report as one cause."""

    name: ClassVar[str] = "broken-matmul-1d"

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        if op == "matmul" and min(np.ndim(x) for x in inputs) == 1:
            cause = KeyError("no promotion rule for a 1-D operand")  # the internal failure it wraps
            raise RuntimeError("matmul backward: 1-D operands are not supported") from cause
        return super().tensor_vjp(op, inputs, upstream)


class ConstructorFails(Engine):
    """An adapter whose constructor raises: verify must say it could not start (exit 2)."""

    name: ClassVar[str] = "constructor-fails"

    def __init__(self) -> None:
        raise RuntimeError("no device available")


# ---------------------------------------------------------------- refusals


class ShapeErrorsMappedAsValueError(ReferenceEngine):
    """The reference, except its exception mapping sends ShapeError to the ValueError family (a wrong
    declaration): every row whose family is ShapeError must fail, no other."""

    name: ClassVar[str] = "broken-mapping"
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        **ReferenceEngine.error_families,
        ShapeError: "ValueError",
    }


class BackwardClearsGradsFirst(ReferenceEngine):
    """The reference, except backward zeroes every leaf's .grad in place before it runs (partial work
    when the backward is then refused)."""

    name: ClassVar[str] = "broken-backward"

    def tensor_backward(self, graph: TensorGraph, upstream: Any) -> None:
        for leaf in graph.leaves:
            if leaf.grad is not None:
                leaf.grad[...] = 0.0
        super().tensor_backward(graph, upstream)


class DataCastToFloat(ReferenceEngine):
    """The reference, except user data is cast with numpy to float64 first (bools become 1.0/0.0, a
    huge int raises numpy's OverflowError)."""

    name: ClassVar[str] = "broken-data"

    def tensor_from_data(self, data: Any) -> Any:
        return super().tensor_from_data(np.asarray(data, dtype=np.float64))


class ProgramDropsTheLastStep(ReferenceEngine):
    """The reference, except a program longer than 100 instructions loses its last one."""

    name: ClassVar[str] = "broken-program"

    def tensor_program_vjp(self, program: Program, leaves: Sequence[Any], upstream: Any) -> Any:
        return super().tensor_program_vjp(program[:-1] if len(program) > 100 else program, leaves, upstream)


class ReflectedSubtractionSwapped(ReferenceEngine):
    """The reference, except a program's c - v is computed as v - c (a reflected operator got wrong)."""

    name: ClassVar[str] = "broken-rsub"

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        swapped = [
            ("sub" if op == "rsub" else op, operands, constants) for op, operands, constants in program
        ]
        return super().scalar_program_grads(swapped, leaves)


class PowCastsBoolExponent(ReferenceEngine):
    """The reference, except a bool exponent is cast to float (x ** True becomes x ** 1.0)."""

    name: ClassVar[str] = "broken-pow"

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        cast = {name: float(k) if isinstance(k, bool) else k for name, k in (constants or {}).items()}
        return super().scalar_vjp(op, inputs, cast)


class HangsInChainGrad(ReferenceEngine):
    """The reference, except backward through a long chain never returns (a deadlocked engine)."""

    name: ClassVar[str] = "broken-hangs"

    def scalar_chain_grad(self, depth: int) -> float:
        time.sleep(3600)
        return super().scalar_chain_grad(depth)

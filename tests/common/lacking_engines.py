"""Adapters that lack capabilities the reference has, and fail loudly if the suite calls them for one:
a call the engine said it cannot serve must never reach it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.base import Array, Program, TensorGraph
from contracts.engines.reference import ReferenceEngine


class LackedCallError(RuntimeError):
    """The suite called the engine for something it declared it lacks."""


def refuse_op(op: str, lacked: str) -> None:
    if op == lacked:
        raise LackedCallError(f"called for {op!r}, which the engine does not declare")


def refuse_program(program: Program, lacked: str) -> None:
    for step in program:
        refuse_op(step[0], lacked)


class LacksExpReluEmbedding(ReferenceEngine):
    """The reference without tensor exp, scalar relu and the embedding module: capabilities it omits,
    and methods that raise LackedCallError when asked for them."""

    name: ClassVar[str] = "lacks-exp-relu-embedding"
    capabilities: ClassVar[frozenset[str]] = ReferenceEngine.capabilities - {
        "tensor.exp",
        "scalar.relu",
        "module.embedding",
    }

    def scalar_vjp(
        self, op: str, inputs: Sequence[float], constants: Mapping[str, float] | None = None
    ) -> tuple[float, tuple[float, ...]]:
        refuse_op(op, "relu")
        return super().scalar_vjp(op, inputs, constants)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        refuse_program(program, "relu")
        return super().scalar_program_grads(program, leaves)

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        refuse_op(op, "exp")
        return super().tensor_vjp(op, inputs, upstream)

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        refuse_op(op, "exp")
        return super().tensor_graph(op, inputs, requires_grad)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        refuse_program(program, "exp")
        return super().tensor_program_vjp(program, leaves, upstream)

    def module_embedding(self, vocab_size: int, context_length: int, width: int) -> Any:
        raise LackedCallError("called for an embedding, which the engine does not declare")


class LacksSum(ReferenceEngine):
    """The reference without tensor sum, the op a Stage 06 axis example draws first."""

    name: ClassVar[str] = "lacks-sum"
    capabilities: ClassVar[frozenset[str]] = ReferenceEngine.capabilities - {"tensor.sum"}

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        refuse_op(op, "sum")
        result: Array = super().tensor_forward_with(op, inputs, params)
        return result


class LacksSumMaxTakesAnyAxis(LacksSum):
    """LacksSum whose max reduces over every axis whatever axis it is given: a refusal bug in an op the
    engine has, found only by the examples that do not draw sum."""

    name: ClassVar[str] = "lacks-sum-max-takes-any-axis"

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        if op == "max":
            reduced: Array = np.asarray(np.asarray(inputs[0]).max())
            return reduced
        return super().tensor_forward_with(op, inputs, params)


class LacksEveryAxisOp(ReferenceEngine):
    """The reference without any op a Stage 06 out-of-range axis example can draw."""

    name: ClassVar[str] = "lacks-every-axis-op"
    lacked = ("sum", "max", "logsumexp", "softmax", "log_softmax", "cross_entropy", "rms_norm")
    capabilities: ClassVar[frozenset[str]] = ReferenceEngine.capabilities - {f"tensor.{op}" for op in lacked}

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        if op in self.lacked:
            raise LackedCallError(f"called for {op!r}, which the engine does not declare")
        result: Array = super().tensor_forward_with(op, inputs, params)
        return result

"""The reference implementation as an engine: every capability, no conventions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAMS,
    SCALAR,
    SCALAR_FORMS,
    TENSOR,
    Engine,
    Program,
    run_program,
)
from contracts.value import Value


class ReferenceEngine(Engine):
    name: ClassVar[str] = "reference"
    capabilities: ClassVar[frozenset[str]] = SCALAR | TENSOR | CONTRACT_FAMILIES | PROGRAMS

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        leaves = [Value(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return out.data, tuple(leaf.grad for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = Value(1.0)
        out = x
        for _ in range(depth):
            out = out + 1.0
        out.backward()
        return x.grad

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = Value(a), Value(b)
        shared = left * right
        out = shared * shared + left
        out.backward()
        out.backward()
        return left.grad, right.grad

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import reference_tensor_vjp  # the tensor slice provides it

        return reference_tensor_vjp(op, inputs, upstream)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        nodes = [Value(float(x)) for x in leaves]
        out = run_program(SCALAR_FORMS, nodes, program)
        out.backward()
        return out.data, tuple(node.grad for node in nodes)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Any], upstream: Any
    ) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import TENSOR_OPS, to_numpy
        from contracts.tensor.tensor import Tensor

        nodes = [Tensor(item, requires_grad=True) for item in leaves]
        out = run_program(TENSOR_OPS, nodes, program)
        out.backward(upstream)
        return to_numpy(out.data), tuple(
            np.zeros(node.shape) if node.grad is None else to_numpy(node.grad) for node in nodes
        )

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Any], upstream: Any, params: Mapping[str, Any]
    ) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import reference_tensor_vjp_with

        return reference_tensor_vjp_with(op, inputs, upstream, params)

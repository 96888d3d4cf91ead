"""The tensor family's engine entry point: one op, a forward and its vector-Jacobian products.

The reference engine (contracts.engines.reference) calls reference_tensor_vjp; inputs and results
are numpy float64 arrays. xp runs the same computation over another array namespace (e.g.
array_api_strict) and converts the results back to numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from contracts.tensor import norm, ops, reductions, softmax
from contracts.tensor.tensor import Tensor

Array = NDArray[np.float64]

TENSOR_OPS: dict[str, Callable[..., Tensor]] = {
    "add": ops.add,
    "multiply": ops.multiply,
    "maximum": ops.maximum,
    "exp": ops.exp,
    "log": ops.log,
    "matmul": ops.matmul,
    "relu": ops.relu,
}


# Ops with parameters (Stage 06 and 08): the differentiable inputs are leaves, params go by keyword
# (axis, keepdims; targets, a non-differentiable integer array; eps).
PARAM_OPS: dict[str, Callable[..., Tensor]] = {
    "sum": reductions.sum,
    "max": reductions.max,
    "logsumexp": softmax.logsumexp,
    "softmax": softmax.softmax,
    "log_softmax": softmax.log_softmax,
    "cross_entropy": softmax.cross_entropy,
    "rms_norm": norm.rms_norm,
}


def to_numpy(array: Any) -> Array:
    """A float64 array of any namespace as numpy (Tensor data and grads are always float64)."""
    return np.asarray(array)


def reference_tensor_vjp(
    op: str, inputs: Sequence[Array], upstream: Array | None, xp: Any = None
) -> tuple[Array, tuple[Array, ...]]:
    """op(inputs) and d(sum(upstream * out))/d(input) for each input (upstream None seeds 1)."""
    if op not in TENSOR_OPS:
        raise ValueError(f"reference_tensor_vjp: op must be one of {sorted(TENSOR_OPS)}, got {op!r}")
    namespace = np if xp is None else xp
    leaves = [Tensor(namespace.asarray(item), requires_grad=True, xp=namespace) for item in inputs]
    out = TENSOR_OPS[op](*leaves)
    out.backward(None if upstream is None else namespace.asarray(upstream))
    grads = tuple(to_numpy(leaf.grad) for leaf in leaves)
    return to_numpy(out.data), grads


def reference_tensor_vjp_with(
    op: str,
    inputs: Sequence[Array],
    upstream: Array | None,
    params: Mapping[str, Any],
    xp: Any = None,
) -> tuple[Array, tuple[Array, ...]]:
    """reference_tensor_vjp for an op with parameters (PARAM_OPS), passed by keyword."""
    if op not in PARAM_OPS:
        raise ValueError(f"reference_tensor_vjp_with: op must be one of {sorted(PARAM_OPS)}, got {op!r}")
    namespace = np if xp is None else xp
    leaves = [Tensor(namespace.asarray(item), requires_grad=True, xp=namespace) for item in inputs]
    out = PARAM_OPS[op](*leaves, **params)
    out.backward(None if upstream is None else namespace.asarray(upstream))
    return to_numpy(out.data), tuple(to_numpy(leaf.grad) for leaf in leaves)

"""The functions spec expressions may call, by name. A spec file lists the ones it uses.

Each comes in a scalar form (Python floats) and an array form (any array-API namespace), so one
spec row is an oracle for the scalar engine and for the tensor engine alike.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def step(x: float) -> float:
    """1 where x > 0 else 0: relu's derivative, with 0 at the kink."""
    return 1.0 if x > 0 else 0.0


def ge(a: float, b: float) -> float:
    """1 where a >= b else 0: maximum's first-argument mask (ties go to a)."""
    return 1.0 if a >= b else 0.0


def lt(a: float, b: float) -> float:
    """1 where a < b else 0: maximum's second-argument mask."""
    return 1.0 if a < b else 0.0


SCALAR: dict[str, Callable[..., Any]] = {
    "exp": math.exp,
    "log": math.log,
    "step": step,
    "ge": ge,
    "lt": lt,
    "max": max,
}


# Stage 06/08 reductions (each keeps the reduced axis, size 1, so expressions broadcast), the first
# maximal element's mask, a one-hot of integer targets along x's last axis, the batch size of x.
ARRAY_ONLY = frozenset({"matmul", "T", "rsum", "rmax", "rmean", "firstmax", "onehot", "mean", "rows", "sqrt"})
KNOWN = frozenset(SCALAR) | ARRAY_ONLY


def array_functions(xp: Any) -> dict[str, Callable[..., Any]]:
    """The same names over an array-API namespace xp (numpy >= 2, array_api_strict, ...)."""
    return {
        "exp": xp.exp,
        "log": xp.log,
        "step": lambda x: xp.astype(x > 0, x.dtype),
        "ge": lambda a, b: xp.astype(a >= b, a.dtype),
        "lt": lambda a, b: xp.astype(a < b, a.dtype),
        "max": xp.maximum,
        "matmul": xp.matmul,
        "T": xp.matrix_transpose,
        "rsum": lambda x, axis: xp.sum(x, axis=axis, keepdims=True),
        "rmax": lambda x, axis: xp.max(x, axis=axis, keepdims=True),
        "rmean": lambda x, axis: xp.mean(x, axis=axis, keepdims=True),
        "firstmax": lambda x, axis: first_index_mask(xp, x, axis),
        "onehot": lambda t, x: xp.where(
            xp.expand_dims(t, axis=-1) == xp.arange(x.shape[-1]), xp.ones_like(x), xp.zeros_like(x)
        ),
        "mean": xp.mean,
        "rows": lambda x: float(math.prod(x.shape[:-1])),
        "sqrt": xp.sqrt,
    }


def first_index_mask(xp: Any, x: Any, axis: int) -> Any:
    """1 at the first index along axis where x equals its max (a cumulative count of maxima == 1)."""
    is_max = xp.astype(x == xp.max(x, axis=axis, keepdims=True), x.dtype)  # no scalar pair: array API
    return xp.where(xp.cumulative_sum(is_max, axis=axis) == 1, is_max, xp.zeros_like(is_max))

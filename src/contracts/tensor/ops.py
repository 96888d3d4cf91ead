"""The seed's ops (Lucid's add, multiply, maximum, exp, log, matmul) and relu = maximum(0, x).

Each op is a plain class with forward and vjp (gradient formulas from the seed; g is the upstream
gradient, out the forward result); apply() in contracts.tensor.op does the rest.

Decisions where the seed is silent (specs/tensor_ops.toml):
* maximum at a tie (a == b) gives the whole gradient to its first argument (Lucid's a >= b mask),
  so relu = maximum(0, x) has gradient 0 at x = 0.
* log refuses any element <= 0 (ValueError) and exp any element above log(float64 max)
  (OverflowError), before a node exists; the messages give the count and the extreme value.
* matmul promotes 1-D operands as numpy does; its gradients undo the promotion (Lucid's own
  backward fails there) and are reduced over broadcast batch axes like every other gradient.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, ClassVar

from contracts.tensor.op import Op, apply, max_abs
from contracts.tensor.shapes import Shape, matmul_shape
from contracts.tensor.tensor import FLOAT64_MAX, Tensor

MAX_EXP_INPUT = math.log(FLOAT64_MAX)  # exp of anything larger overflows float64


def count_true(xp: Any, mask: Any) -> int:
    return int(xp.count_nonzero(mask))


class Add(Op):
    name: ClassVar[str] = "add"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        a, b = arrays
        return a + b

    def result_bound(self, xp: Any, *arrays: Any) -> float:
        a, b = arrays
        return max_abs(xp, a) + max_abs(xp, b)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        yield g
        yield g


class Multiply(Op):
    name: ClassVar[str] = "multiply"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        a, b = arrays
        return a * b

    def result_bound(self, xp: Any, *arrays: Any) -> float:
        a, b = arrays
        return max_abs(xp, a) * max_abs(xp, b)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        a, b = arrays
        yield g * b
        yield g * a


class Maximum(Op):
    name: ClassVar[str] = "maximum"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        a, b = arrays
        return xp.maximum(a, b)

    def result_bound(self, xp: Any, *arrays: Any) -> float:
        a, b = arrays
        return max(max_abs(xp, a), max_abs(xp, b))

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        a, b = arrays
        yield g * xp.astype(a >= b, xp.float64)  # a tie goes to the first argument
        yield g * xp.astype(a < b, xp.float64)


class Exp(Op):
    name: ClassVar[str] = "exp"
    arity: ClassVar[int] = 1

    def check(self, xp: Any, *arrays: Any) -> None:
        (x,) = arrays
        count = count_true(xp, x > MAX_EXP_INPUT)
        if count:
            raise OverflowError(
                f"exp: every element must be <= {MAX_EXP_INPUT!r} (exp overflows float64), "
                f"got {count} element(s) above it, the largest {float(xp.max(x))!r}"
            )

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        return xp.exp(x)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        yield g * out  # the seed's exp: the derivative is the result itself


class Log(Op):
    name: ClassVar[str] = "log"
    arity: ClassVar[int] = 1

    def check(self, xp: Any, *arrays: Any) -> None:
        (x,) = arrays
        count = count_true(xp, x <= 0)
        if count:
            raise ValueError(
                f"log: every element must be > 0, got {count} element(s) <= 0, "
                f"the smallest {float(xp.min(x))!r}"
            )

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        return xp.log(x)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        yield g / x  # from the input, as the seed's log keeps a


class Matmul(Op):
    name: ClassVar[str] = "matmul"

    def out_shape(self, *shapes: Shape) -> Shape:
        a, b = shapes
        return matmul_shape(a, b)

    def forward(self, xp: Any, *arrays: Any) -> Any:
        a, b = arrays
        return xp.matmul(a, b)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        """dA = g @ B^T and dB = A^T @ g on the promoted operands; dB drops a 1-D b's promoted column."""
        a, b = arrays
        a_is_vector = a.ndim == 1
        b_is_vector = b.ndim == 1
        if b_is_vector:
            b = xp.reshape(b, (b.shape[0], 1))
            g = xp.expand_dims(g, axis=-1)
        if a_is_vector:
            a = xp.expand_dims(a, axis=0)
            g = xp.expand_dims(g, axis=-2)
        # a 1-D a's promoted row is a leading axis of size 1 here: reduce_to_shape sums it away
        yield xp.matmul(g, xp.matrix_transpose(b))
        grad_b = xp.matmul(xp.matrix_transpose(a), g)
        yield xp.squeeze(grad_b, axis=-1) if b_is_vector else grad_b


ADD = Add()
MULTIPLY = Multiply()
MAXIMUM = Maximum()
EXP = Exp()
LOG = Log()
MATMUL = Matmul()
OPS: dict[str, Op] = {op.name: op for op in (ADD, MULTIPLY, MAXIMUM, EXP, LOG, MATMUL)}


def add(a: object, b: object) -> Tensor:
    return apply(ADD, a, b)


def multiply(a: object, b: object) -> Tensor:
    return apply(MULTIPLY, a, b)


def maximum(a: object, b: object) -> Tensor:
    """Elementwise max; at a tie the whole gradient goes to a."""
    return apply(MAXIMUM, a, b)


def exp(x: object) -> Tensor:
    return apply(EXP, x)


def log(x: object) -> Tensor:
    return apply(LOG, x)


def matmul(a: object, b: object) -> Tensor:
    return apply(MATMUL, a, b)


def relu(x: object) -> Tensor:
    """maximum(0, x): gradient 0 at x = 0 by the tie rule (the constant 0 is the first argument)."""
    return apply(MAXIMUM, 0.0, x)

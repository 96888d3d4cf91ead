"""The one op-definition mechanism (the seed's @func_op idea, without logic in a decorator).

An op declares only its shape rule, its domain check, its forward and its vector-Jacobian
products, as plain methods. apply() does everything else, in this order, for every op:
coerce the operands, validate shapes (ShapeError), check the domain, compute the forward, prove the
result finite (OverflowError), and only then create and count the graph node. A refused call
therefore creates no node. A broadcast result larger than its operands is proven finite from their
largest magnitudes where the op gives a bound (add, multiply, maximum), without another pass over it.

vjp yields each input's gradient in the broadcast frame (the op's output frame), one at a time; one
shared function, reduce_to_shape, sums each back to its input's shape as soon as it is yielded, so
only one broadcast-frame buffer is alive at a time.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import partial
from typing import Any, ClassVar

import numpy as np

from contracts.tensor.shapes import Shape, broadcast_shape, summed_axes
from contracts.tensor.tensor import Tensor, make_node


class Op:
    """An operation: name, arity, and the plain methods apply() and backward call."""

    name: ClassVar[str] = "op"
    arity: ClassVar[int] = 2

    def out_shape(self, *shapes: Shape) -> Shape:
        """The result shape, or ShapeError. Elementwise ops broadcast their operands."""
        return broadcast_shape(self.name, *shapes)

    def check(self, xp: Any, *arrays: Any) -> None:
        """Refuse inputs outside the op's domain (before a node exists). Default: none."""

    def forward(self, xp: Any, *arrays: Any) -> Any:
        raise NotImplementedError(f"{self.name}: forward")

    def result_bound(self, xp: Any, *arrays: Any) -> float:
        """An upper bound on |each result element| the finite operands give, as float64 rounds it
        (rounding is monotone, so no result element exceeds it); inf when the op knows none."""
        return math.inf

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        """Yield each input's gradient in the broadcast frame, in input order, given the upstream g."""
        raise NotImplementedError(f"{self.name}: vjp")

    def input_grads(self, xp: Any, g: Any, out: Any, arrays: Sequence[Any]) -> tuple[Any, ...]:
        """Each input's gradient, reduced to that input's shape as soon as vjp yields it."""
        # map holds no reference to a frame once it is reduced (a generator expression's loop
        # variable would keep the previous frame alive while vjp computes the next one)
        return tuple(map(partial(reduce_like, xp), self.vjp(xp, g, out, *arrays), arrays))


def shape_of(array: Any) -> Shape:
    return tuple(int(size) for size in array.shape)


def max_abs(xp: Any, array: Any) -> float:
    return float(xp.max(xp.abs(array)))


def operands_prove_finite(op: Op, xp: Any, arrays: Sequence[Any], result: Any) -> bool:
    """Whether the operands' bound proves every result element finite without reading the result;
    asked only when the operands hold fewer elements than a broadcast result (else one pass over the
    result is the cheaper proof)."""
    if sum(math.prod(shape_of(array)) for array in arrays) >= math.prod(shape_of(result)):
        return False
    return math.isfinite(op.result_bound(xp, *arrays))  # a bound past float64's max rounds to inf


def reduce_like(xp: Any, grad: Any, array: Any) -> Any:
    """grad summed back to array's shape."""
    return reduce_to_shape(xp, grad, shape_of(array))


def reduce_to_shape(xp: Any, grad: Any, shape: Shape) -> Any:
    """Sum grad over the axes broadcasting added or stretched, so it has exactly shape."""
    axes = summed_axes(shape_of(grad), shape)
    if axes:
        grad = xp.sum(grad, axis=axes)
    return xp.reshape(grad, shape)


def namespace_of(operands: Sequence[object], where: str) -> Any:
    """The namespace shared by the Tensor operands (numpy when there are none), or TypeError."""
    spaces = {id(item.xp): item.xp for item in operands if isinstance(item, Tensor)}
    if len(spaces) > 1:
        names = sorted(getattr(space, "__name__", repr(space)) for space in spaces.values())
        raise TypeError(f"{where}: operands must share one array namespace, got {names}")
    return next(iter(spaces.values()), np)


def as_operand(xp: Any, item: object) -> Tensor:
    """A Tensor operand as is; a number or array becomes a constant (no gradient) Tensor."""
    if isinstance(item, Tensor):
        return item
    return Tensor(item, xp=xp)


def apply(op: Op, *operands: object) -> Tensor:
    """Run op on operands: coerce, validate shapes, check the domain, compute, then wire a node."""
    if len(operands) != op.arity:
        raise TypeError(f"{op.name}: takes {op.arity} operand(s), got {len(operands)}")
    xp = namespace_of(operands, op.name)
    inputs = tuple(as_operand(xp, item) for item in operands)
    op.out_shape(*(item.shape_tuple() for item in inputs))
    arrays = tuple(item.data for item in inputs)
    op.check(xp, *arrays)
    result = op.forward(xp, *arrays)
    return make_node(xp, result, op, inputs, operands_prove_finite(op, xp, arrays, result))

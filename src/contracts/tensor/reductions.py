"""Reductions over one axis (sum, max) and the axis rule every axis-taking op shares.

Decisions (specs/stage06_softmax.toml):
* an axis is an int (bool refused, TypeError) in [-ndim, ndim) (ShapeError otherwise) and must not
  be empty (size 0): max and log-sum-exp have no value there, and sum follows the same rule;
* max over an axis is the left fold of maximum, so its tie rule is maximum's: the whole gradient
  goes to the first maximal element along the axis (S06.rule.max-tie).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

from contracts.core.errors import ShapeError
from contracts.tensor.op import Op, apply
from contracts.tensor.shapes import Shape
from contracts.tensor.tensor import Tensor


def checked_axis(where: str, axis: object) -> int:
    """axis as an int, or TypeError (a bool or a float is not an axis)."""
    if type(axis) is not int:
        raise TypeError(f"{where}: axis must be an int, got {axis!r} ({type(axis).__name__})")
    return axis


def normalize_axis(where: str, shape: Shape, axis: int) -> int:
    """axis in [0, ndim) for shape, or ShapeError: out of range, or an empty (size-0) axis."""
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"{where}: axis {axis} is out of range for shape {shape} (ndim {ndim})")
    positive = axis % ndim
    if shape[positive] == 0:
        raise ShapeError(f"{where}: axis {axis} of shape {shape} is empty (size 0); it needs an element")
    return positive


def reduced_shape(shape: Shape, axis: int, keepdims: bool) -> Shape:
    """shape with axis (already normalized) kept as 1 or dropped."""
    return shape[:axis] + ((1,) if keepdims else ()) + shape[axis + 1 :]


def first_max_mask(xp: Any, x: Any, axis: int) -> Any:
    """1.0 at the first maximal element along axis (argmax's first occurrence), 0.0 elsewhere."""
    first = xp.argmax(x, axis=axis, keepdims=True)
    size = int(x.shape[axis])
    positions = xp.reshape(xp.arange(size), (size,) + (1,) * (x.ndim - 1 - axis))
    return xp.astype(positions == first, xp.float64)


def kept(xp: Any, g: Any, axis: int, keepdims: bool) -> Any:
    """An upstream of the reduced shape with the reduced axis restored (size 1)."""
    return g if keepdims else xp.expand_dims(g, axis=axis)


class AxisOp(Op):
    """A unary op over one axis: the shape rule checks the axis before any array work."""

    arity: ClassVar[int] = 1

    def __init__(self, axis: object, keepdims: bool = False) -> None:
        self.axis = checked_axis(self.name, axis)
        self.keepdims = bool(keepdims)

    def out_shape(self, *shapes: Shape) -> Shape:
        (shape,) = shapes
        return reduced_shape(shape, normalize_axis(self.name, shape, self.axis), self.keepdims)

    def position(self, x: Any) -> int:
        """The axis in [0, ndim) (out_shape has checked it)."""
        return self.axis % int(x.ndim)


class Sum(AxisOp):
    name: ClassVar[str] = "sum"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        return xp.sum(x, axis=self.position(x), keepdims=self.keepdims)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        yield xp.broadcast_to(kept(xp, g, self.position(x), self.keepdims), x.shape)


class Max(AxisOp):
    name: ClassVar[str] = "max"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        return xp.max(x, axis=self.position(x), keepdims=self.keepdims)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        axis = self.position(x)
        yield kept(xp, g, axis, self.keepdims) * first_max_mask(xp, x, axis)


def sum(
    x: object, axis: object = -1, keepdims: bool = False
) -> Tensor:  # the op's name (shadows the builtin here only)
    """The sum over axis; its gradient is the upstream broadcast back over the axis."""
    return apply(Sum(axis, keepdims), x)


def max(
    x: object, axis: object = -1, keepdims: bool = False
) -> Tensor:  # the op's name (shadows the builtin here only)
    """The max over axis; the whole gradient goes to the first maximal element."""
    return apply(Max(axis, keepdims), x)

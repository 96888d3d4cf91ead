"""logsumexp, softmax, log_softmax and cross_entropy over an axis, all through the x − max path.

Every op here shares one computation (stable_parts): m = max(x), z = x − m (every z <= 0, so no
exp overflows) and L = log1p(Σ_{j ≠ first argmax} exp(z_j)) — log1p of the sum without the max's
own exp(0) = 1, so L keeps its relative accuracy when the other terms are tiny (log(1 + δ) would
round to 0). Then logsumexp = m + L, log_softmax = z − L, softmax = exp(z) / (1 + rest), and
cross_entropy = mean(L − z[target]). Each op is one node; its VJP is the analytic form of
specs/stage06_softmax.toml, with softmax recomputed from x (never from a rounded result).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, ClassVar, NamedTuple

from contracts.core.errors import ShapeError
from contracts.tensor.op import Op, apply, namespace_of
from contracts.tensor.reductions import AxisOp, first_max_mask, kept, normalize_axis
from contracts.tensor.shapes import Shape
from contracts.tensor.tensor import Tensor


class Parts(NamedTuple):
    """x − max(x), the exps of it, the sum of those without the first max's, and log1p of that."""

    z: Any
    e: Any
    rest: Any
    lse_shift: Any


def stable_parts(xp: Any, x: Any, axis: int) -> Parts:
    """The x − max pieces along axis (keepdims), shared by every op of this module."""
    z = x - xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(z)
    rest = xp.sum(e * (1.0 - first_max_mask(xp, x, axis)), axis=axis, keepdims=True)
    return Parts(z, e, rest, xp.log1p(rest))


def softmax_of(xp: Any, x: Any, axis: int) -> Any:
    parts = stable_parts(xp, x, axis)
    return parts.e / (1.0 + parts.rest)


class LogSumExp(AxisOp):
    name: ClassVar[str] = "logsumexp"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        axis = self.position(x)
        lse = xp.max(x, axis=axis, keepdims=True) + stable_parts(xp, x, axis).lse_shift
        return lse if self.keepdims else xp.squeeze(lse, axis=axis)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        axis = self.position(x)
        yield kept(xp, g, axis, self.keepdims) * softmax_of(xp, x, axis)


class Softmax(AxisOp):
    name: ClassVar[str] = "softmax"

    def out_shape(self, *shapes: Shape) -> Shape:
        (shape,) = shapes
        normalize_axis(self.name, shape, self.axis)
        return shape

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        return softmax_of(xp, x, self.position(x))

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        yield out * (g - xp.sum(g * out, axis=self.position(x), keepdims=True))  # s ⊙ (g − ⟨g, s⟩)


class LogSoftmax(Softmax):
    name: ClassVar[str] = "log_softmax"

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        parts = stable_parts(xp, x, self.position(x))
        return parts.z - parts.lse_shift

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        axis = self.position(x)
        yield g - softmax_of(xp, x, axis) * xp.sum(g, axis=axis, keepdims=True)  # g − s · Σg


def checked_targets(xp: Any, targets: object) -> Any:
    """targets as an integer array of xp (its own copy: the caller's array may change after the
    forward), or TypeError (bool and floating dtypes are refused)."""
    array = xp.asarray(targets, copy=True)
    if not xp.isdtype(array.dtype, "integral"):
        raise TypeError(
            f"cross_entropy: targets must be integer class indices (bool and float rejected), "
            f"got dtype {array.dtype}"
        )
    return array


def one_hot(xp: Any, targets: Any, classes: int) -> Any:
    return xp.astype(xp.expand_dims(targets, axis=-1) == xp.arange(classes), xp.float64)


class CrossEntropy(Op):
    """mean over the batch of −log_softmax(logits)[target], classes on the last axis."""

    name: ClassVar[str] = "cross_entropy"
    arity: ClassVar[int] = 1

    def __init__(self, targets: Any) -> None:
        self.targets = targets

    def out_shape(self, *shapes: Shape) -> Shape:
        (shape,) = shapes
        normalize_axis(self.name, shape, -1)  # the class axis
        for axis in range(len(shape) - 1):  # the mean needs a non-empty batch
            normalize_axis(self.name, shape, axis)
        target_shape = tuple(int(size) for size in self.targets.shape)
        if target_shape != shape[:-1]:
            raise ShapeError(
                f"cross_entropy: targets have shape {target_shape}, must equal the batch shape "
                f"{shape[:-1]} of logits {shape}"
            )
        return ()

    def check(self, xp: Any, *arrays: Any) -> None:
        (x,) = arrays
        classes = int(x.shape[-1])
        outside = xp.logical_or(self.targets < 0, self.targets >= classes)
        count = int(xp.count_nonzero(outside))
        if count:
            raise IndexError(
                f"cross_entropy: targets must be class indices in [0, {classes}), got {count} outside, "
                f"the smallest {int(xp.min(self.targets))} and the largest {int(xp.max(self.targets))}"
            )

    def losses(self, xp: Any, x: Any) -> tuple[Any, Parts]:
        parts = stable_parts(xp, x, x.ndim - 1)
        onehot = one_hot(xp, self.targets, int(x.shape[-1]))
        return xp.sum(onehot * (parts.lse_shift - parts.z), axis=-1), parts  # L − z[t] >= 0: no cancellation

    def forward(self, xp: Any, *arrays: Any) -> Any:
        (x,) = arrays
        losses, _ = self.losses(xp, x)
        return xp.mean(losses)

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        (x,) = arrays
        batch = math.prod(x.shape[:-1])  # B: the batch size (1 for 1-D logits)
        onehot = one_hot(xp, self.targets, int(x.shape[-1]))
        yield g * (softmax_of(xp, x, x.ndim - 1) - onehot) / batch  # (softmax − onehot) / B


def logsumexp(x: object, axis: object = -1, keepdims: bool = False) -> Tensor:
    """log Σ exp(x) over axis, as max + log1p(Σ over the rest of exp(x − max))."""
    return apply(LogSumExp(axis, keepdims), x)


def softmax(x: object, axis: object = -1) -> Tensor:
    return apply(Softmax(axis), x)


def log_softmax(x: object, axis: object = -1) -> Tensor:
    return apply(LogSoftmax(axis), x)


def cross_entropy(logits: object, targets: object) -> Tensor:
    """Mean cross-entropy of integer class targets (shape: logits' batch shape) against logits."""
    xp = namespace_of((logits,), CrossEntropy.name)
    return apply(CrossEntropy(checked_targets(xp, targets)), logits)

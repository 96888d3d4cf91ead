"""rms_norm(x, gain, eps) over the last axis: y = x / sqrt(mean(x²) + eps) ⊙ gain.

Computed scaled so no square overflows or loses the eps term, across the whole float64 range:
with c = max(max|x|, sqrt(eps)) per row, t = x / c (|t| <= 1) and u = mean(t²) + eps / c² (both
terms <= 1, and u >= min(1/n, 1)), mean(x²) + eps = c² u exactly in real arithmetic, so
y = t / sqrt(u) ⊙ gain; the VJP (specs/stage08_norm.toml) in the same variables is
dx = (g ⊙ gain − t · mean(g ⊙ gain ⊙ t) / u) / (c sqrt(u)) and dgain = Σ_batch g ⊙ t / sqrt(u).

Decisions: eps is a finite float (or int, bool refused) > 0: eps = 0 divides by zero at x = 0 and
nan/inf would silently produce nan or 0; gain has exactly the normalized shape (x.shape[-1],).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, ClassVar, NamedTuple

from contracts.core.errors import ShapeError
from contracts.tensor.op import Op, apply
from contracts.tensor.reductions import normalize_axis
from contracts.tensor.shapes import Shape
from contracts.tensor.tensor import Tensor


def checked_eps(eps: object) -> float:
    """eps as a float: a finite number > 0, or TypeError (not a number) / ValueError."""
    if isinstance(eps, bool) or not isinstance(eps, int | float):
        raise TypeError(f"rms_norm: eps must be a real number, got {eps!r} ({type(eps).__name__})")
    value = float(eps)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"rms_norm: eps must be finite and > 0, got {value!r}")
    return value


class Scaled(NamedTuple):
    """c = max(max|x|, sqrt(eps)) per row, t = x / c, and root = sqrt(mean(t²) + eps / c²)."""

    c: Any
    t: Any
    root: Any


def scaled(xp: Any, x: Any, eps: float) -> Scaled:
    c = xp.maximum(xp.max(xp.abs(x), axis=-1, keepdims=True), math.sqrt(eps))
    t = x / c
    return Scaled(c, t, xp.sqrt(xp.mean(t * t, axis=-1, keepdims=True) + (eps / c) / c))


class RmsNorm(Op):
    name: ClassVar[str] = "rms_norm"

    def __init__(self, eps: object) -> None:
        self.eps = checked_eps(eps)

    def out_shape(self, *shapes: Shape) -> Shape:
        x, gain = shapes
        normalize_axis(self.name, x, -1)
        if gain != x[-1:]:
            raise ShapeError(
                f"rms_norm: gain has shape {gain}, must equal the normalized shape {x[-1:]} of x {x}"
            )
        return x

    def forward(self, xp: Any, *arrays: Any) -> Any:
        x, gain = arrays
        parts = scaled(xp, x, self.eps)
        return parts.t / parts.root * gain

    def vjp(self, xp: Any, g: Any, out: Any, *arrays: Any) -> Iterator[Any]:
        x, gain = arrays
        parts = scaled(xp, x, self.eps)
        u = parts.root * parts.root
        weighted = g * gain
        projected = xp.mean(weighted * parts.t, axis=-1, keepdims=True) / u
        yield (weighted - parts.t * projected) / (parts.c * parts.root)
        yield g * parts.t / parts.root  # summed over the batch axes by the broadcast reduction


def rms_norm(x: object, gain: object, eps: object = 1e-6) -> Tensor:
    """RMSNorm over the last axis with a learned gain of shape (x.shape[-1],)."""
    return apply(RmsNorm(eps), x, gain)

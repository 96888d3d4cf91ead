"""The guarded forward's value bound, computed from S07.rule.forward-bound's statement alone.

Exact arithmetic (mpmath at 60 digits) over the data the module holds: the implementation's float64 bound
is only ever compared with it, never used to compute it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from mpmath import mp, mpf, sqrt

from contracts.core.block import Block
from contracts.core.linear import Linear
from contracts.core.model import MLP

mp.dps = 60
LIMIT = mpf(sys.float_info.max) / 2  # the statement's "half of float64's max", exactly
MARGIN = mpf("1e-9")  # bounds this close to LIMIT may round either way in float64: no verdict there
# Below float64's normal range a bound rounds toward 0 as the values it bounds do (rounding is monotone),
# so the exact bound of a later step is no longer the float64 one: no verdict after such a step.
TINY = mpf(2) ** -1000


def largest(values: Sequence[Any]) -> Any:
    return max(abs(mpf(v)) for v in values)


def layer_bound(layer: Linear, reads: Any) -> Any:
    """C_in·a·max|W| + max|b| (0 without a bias)."""
    weight = largest([v.data for v in layer.weight.values()])
    bias = largest([v.data for v in layer.bias.values]) if layer.bias is not None else mpf(0)
    return layer.plan.in_features * reads * weight + bias


def mlp_bounds(layers: Sequence[Linear], reads: Any) -> list[tuple[str, Any]]:
    """Each layer's bound from the bound on what it reads; a ReLU adds no step and grows nothing."""
    bounds = []
    for layer in layers:
        reads = layer_bound(layer, reads)
        bounds.append((layer.plan.name, reads))
    return bounds


def norm_bounds(block: Block, row_maxima: Sequence[Any]) -> tuple[Any, Any]:
    """RMSNorm: the largest of C·a², a² + eps, L^(-1/2), ½·L^(-3/2), max_t m_t·L_t^(-1/2) and that times
    max|gain|, with L_t = max(eps, m_t²/C) and L = min_t L_t; and the output bound (the last term)."""
    width, eps = block.plan.norm.width, mpf(block.plan.norm.eps)
    a = max(row_maxima)
    floors = [max(eps, m * m / width) for m in row_maxima]
    low = min(floors)
    scaled = max(m / sqrt(floor) for m, floor in zip(row_maxima, floors, strict=True))
    output = scaled * largest([v.data for v in block.gain.values])
    terms = [width * a * a, a * a + eps, 1 / sqrt(low), low ** mpf(-1.5) / 2, scaled, output]
    return max(terms), output


def spec_bounds(module: Any, x: Sequence[Sequence[float]]) -> list[tuple[str, Any]]:
    """(step name, exact bound) for every step of the module's forward over x, in step order."""
    row_maxima = [largest(row) for row in x]
    if isinstance(module, Linear):
        return mlp_bounds([module], max(row_maxima))
    if isinstance(module, MLP):
        return mlp_bounds(module.layers, max(row_maxima))
    assert isinstance(module, Block)
    norm, output = norm_bounds(module, row_maxima)
    inner = mlp_bounds(module.mlp.layers, output)
    return [(module.plan.norm.name, norm), *inner, ("residual", max(row_maxima) + inner[-1][1])]


def verdict(bounds: Sequence[tuple[str, Any]]) -> str | None:
    """The first step whose bound exceeds LIMIT (the refusal's), '' when every bound is below it, None
    when a bound up to that step is within MARGIN of LIMIT (either verdict may round out) or in (0, TINY)."""
    for step, bound in bounds:
        if abs(bound - LIMIT) <= MARGIN * LIMIT or 0 < bound < TINY:
            return None
        if bound > LIMIT:
            return step
    return ""

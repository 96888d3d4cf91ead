"""S08.rule.residual-magnitude: RMSNorm bounds the branch's input whatever x's scale; the residual carries x's
magnitude through the block, so a row's norm moves by at most the branch's bound B per block.

B comes from the parameters alone (the rule's note): z_0 = max|gain|·√C, z_k = ‖W_k‖_F·z_(k-1) + ‖b_k‖₂.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts import Matrix
from contracts.core.block import Block
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import forward_module
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require

pytestmark = reference_only(OWN_TYPES)

RELATIVE = 1e-9  # float64 rounding of norms of a few dozen terms, with room to spare
entry = st.floats(-2.0, 2.0, allow_nan=False)


def branch_bound(block: Block) -> float:
    """B = z_N with z_0 = max|gain|·√C and z_k = ‖W_k‖_F·z_(k-1) + ‖b_k‖₂ over the MLP's layers."""
    z = max(abs(g) for g in block.gain.data()) * math.sqrt(block.plan.norm.width)
    for layer in block.mlp.layers:
        bias = 0.0 if layer.bias is None else math.hypot(*layer.bias.data())
        z = math.hypot(*(w for row in layer.weight.data() for w in row)) * z + bias
    return z


def norms(rows: list[list[float]]) -> list[float]:
    """Euclidean norms, scaled (math.hypot: no square underflows or overflows)."""
    return [math.hypot(*r) for r in rows]


@st.composite
def block_case(draw: st.DrawFn) -> dict[str, Any]:
    """A block with drawn weights, biases, gains and eps, and x with a drawn scale (up to 1e6)."""
    widths = draw(s.block_widths())
    tokens = draw(s.token_count)
    pairs = list(itertools.pairwise(widths))
    names = [f"fc{index + 1}" for index in range(len(pairs))]
    scale = 10.0 ** draw(st.integers(0, 6))
    return {
        "via": "block",
        "widths": widths,
        "use_bias": draw(st.booleans()),
        "tokens": tokens,
        "eps": draw(st.floats(1e-6, 4.0)),
        "weights": {
            n: draw(st.lists(st.lists(entry, min_size=a, max_size=a), min_size=b, max_size=b))
            for n, (a, b) in zip(names, pairs, strict=True)
        },
        "biases": {
            n: draw(st.lists(entry, min_size=b, max_size=b)) for n, (_, b) in zip(names, pairs, strict=True)
        },
        "gain": draw(st.lists(entry, min_size=widths[0], max_size=widths[0])),
        "x": [
            [scale * v for v in draw(st.lists(entry, min_size=widths[0], max_size=widths[0]))]
            for _ in range(tokens)
        ],
        "repeats": draw(st.integers(1, 3)),
    }


@pytest.mark.spec("S08.rule.residual-magnitude")
@given(case=block_case())
def test_the_residual_carries_the_magnitude_the_norm_takes_off_the_branch(
    engine: Engine, case: dict[str, Any]
) -> None:
    """Per row: ‖RMSNorm(x)‖ <= max|gain|·√C at any scale of x; after k forwards a row's norm is within k·B of
    its input's (so it follows x's scale: no forward brings it back to √C)."""
    require(engine, "linear")
    block, _ = forward_module(case)
    bound = branch_bound(block)
    x = Matrix(case["x"])
    ceiling = max(abs(g) for g in case["gain"]) * math.sqrt(case["widths"][0])
    for row in x.rows:
        normalized = [v.data for v in block.normalize(row)]
        assert math.hypot(*normalized) <= ceiling * (1 + RELATIVE)
    before = norms(case["x"])
    for k in range(1, case["repeats"] + 1):
        x = block.forward(x)
        for start, now in zip(before, norms(x.data()), strict=True):
            assert abs(now - start) <= k * bound * (1 + RELATIVE) + RELATIVE * start, (k, start, now, bound)

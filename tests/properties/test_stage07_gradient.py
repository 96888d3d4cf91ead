"""Stage 07 properties: Linear's gradients against the spec's analytic form and central differences."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts import Matrix, Value, Vector
from contracts.core.linear import Linear, LinearPlan
from contracts.engines import Engine
from contracts.spec import evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.spec_rows import OWN_TYPES, assert_engine_gives, reference_only, require, row

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

GRADIENT = row("S07.gradient.linear-dot")
STEP = 1e-6


def one_output(point: dict[str, float]) -> tuple[dict[str, Value], Value]:
    """y = x0·w0 + x1·w1 through a bias-free Linear(2 -> 1); the four leaves by spec name."""
    leaves = {name: Value(point[name]) for name in ("x0", "x1", "w0", "w1")}
    layer = Linear(LinearPlan("fc", 2, 1), Matrix([[leaves["w0"], leaves["w1"]]]))
    out = layer.forward(Matrix([[leaves["x0"], leaves["x1"]]]))
    return leaves, out.rows[0][0]


@pytest.mark.spec("S07.gradient.linear-dot")
@given(point=s.symbol_values(GRADIENT["domain"]), upstream=st.floats(-2, 2))
def test_linear_gradient_equals_the_spec(engine: Engine, point: dict[str, float], upstream: float) -> None:
    """y and the VJPs g·dy/dx, g·dy/dw of a one-output Linear equal the spec's expressions."""
    require(engine, "linear", GRADIENT.id)
    leaves, y = one_output(point)
    (y * upstream).backward()
    bindings = {**point, "g": upstream}
    expected = {name: evaluate(GRADIENT["grads"][name], bindings) for name in GRADIENT["domain"]}
    assert_engine_gives(evaluate(GRADIENT["forward"], point), y.data, rel=1e-12, abs=1e-12)
    assert expected == pytest.approx({name: v.grad for name, v in leaves.items()}, rel=1e-12, abs=1e-12)


def weighted_loss(layer: Linear, x: Matrix, upstream: list[list[float]]) -> Value:
    """L = sum over t, o of g[t][o]·y[t][o] (so dL/dy = g, any upstream gradient)."""
    out = layer.forward(x)
    terms = [
        y * g
        for row_y, row_g in zip(out.rows, upstream, strict=True)
        for y, g in zip(row_y, row_g, strict=True)
    ]
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


@st.composite
def linear_case(draw: st.DrawFn) -> dict[str, Any]:
    c_in, c_out, tokens = draw(s.layer_width), draw(s.layer_width), draw(s.token_count)
    grid = st.floats(-2, 2, allow_nan=False)
    return {
        "use_bias": draw(st.booleans()),
        "weight": draw(s.input_rows(c_out, c_in)),
        "bias": draw(st.lists(grid, min_size=c_out, max_size=c_out)),
        "x": draw(s.input_rows(tokens, c_in)),
        "g": draw(s.input_rows(tokens, c_out)),
    }


def build(case: dict[str, Any]) -> tuple[Linear, Matrix]:
    weight = Matrix(case["weight"])
    c_out, c_in = weight.shape
    bias = Vector(case["bias"]) if case["use_bias"] else None
    return Linear(LinearPlan("fc", c_in, c_out, case["use_bias"]), weight, bias), Matrix(case["x"])


@pytest.mark.spec("S07.gradient.linear-dot")
@given(case=linear_case())
def test_linear_gradients_equal_the_analytic_form(engine: Engine, case: dict[str, Any]) -> None:
    """dL/dW = gᵀx, dL/db = sum_t g, dL/dx = g·W for L = sum g·y, at any T, C_in, C_out, bias."""
    require(engine, "linear", GRADIENT.id)
    layer, x = build(case)
    weighted_loss(layer, x, case["g"]).backward()
    g, xs, w = np.asarray(case["g"]), np.asarray(case["x"]), np.asarray(case["weight"])
    np.testing.assert_allclose(
        [[v.grad for v in r] for r in layer.weight.rows], g.T @ xs, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose([[v.grad for v in r] for r in x.rows], g @ w, rtol=1e-12, atol=1e-12)
    if layer.bias is not None:
        np.testing.assert_allclose([v.grad for v in layer.bias.values], g.sum(axis=0), rtol=1e-12, atol=1e-12)


@pytest.mark.spec("S07.gradient.linear-dot")
@given(case=linear_case())
def test_linear_gradients_match_central_differences(engine: Engine, case: dict[str, Any]) -> None:
    """Every weight, bias and input gradient equals float64 central differences of the forward."""
    require(engine, "linear", GRADIENT.id)
    layer, x = build(case)
    weighted_loss(layer, x, case["g"]).backward()
    leaves = [*layer.weight.values(), *(layer.bias.values if layer.bias else ()), *x.values()]
    for leaf in leaves:
        original = leaf.data
        leaf.data = original + STEP
        high = weighted_loss(layer, x, case["g"]).data
        leaf.data = original - STEP
        low = weighted_loss(layer, x, case["g"]).data
        leaf.data = original
        assert_engine_gives((high - low) / (2 * STEP), leaf.grad, rel=1e-6, abs=1e-6)

"""Stage 06 stability as a number: forward and gradient errors against an exact mpmath reference within
K·ε64 (condition-weighted), for logits up to ±1e4 and spreads up to 1e4; beside each bound, the test
that proves it has teeth: the naive compositions violate it on generated inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage06 import (
    assert_within_bound,
    cross_entropy_case,
    excess,
    naive_cross_entropy,
    naive_cross_entropy_grad,
    naive_log_softmax,
    naive_log_softmax_grad,
    naive_logsumexp,
    naive_softmax,
    naive_softmax_grad,
    softmax_case,
)
from contracts.spec_suite.spec_rows import require, row

FORWARD = row("S06.rule.forward-error")
GRADIENT = row("S06.rule.grad-error")
AXIS_OPS = ("softmax", "log_softmax", "logsumexp")
OPS = (*AXIS_OPS, "cross_entropy")


def run(engine: Engine, op: str, case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Any]:
    """The engine's value and gradient for op on the case (classes on axis 1), and the exact oracle."""
    x, g = case["x"], case["upstream"]
    if op == "cross_entropy":
        value, (grad,) = engine.tensor_vjp_with(op, [x], None, {"targets": case["targets"]})
        return value, grad, cross_entropy_case(x, case["targets"], 1.0)
    upstream = g[:, :1] if op == "logsumexp" else g
    kwargs = {"axis": 1, "keepdims": True} if op == "logsumexp" else {"axis": 1}
    value, (grad,) = engine.tensor_vjp_with(op, [x], upstream, kwargs)
    return value, grad, softmax_case(x, 1, upstream)


def exact_forward(op: str, oracle: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    exact, scale = oracle[op]
    if op == "logsumexp":  # the oracle repeats the slice's value along the axis
        return exact[:, :1], scale[:, :1]
    return exact, scale


@pytest.mark.spec("S06.rule.forward-error")
@pytest.mark.parametrize("op", OPS)
@given(case=s.wide_logits())
def test_forward_error_within_the_bound(engine: Engine, op: str, case: dict[str, Any]) -> None:
    """Every output is within K·ε64·(|y| + condition term) + K·tiny of the exact value."""
    require(engine, f"tensor.{op}", FORWARD.id)
    value, _, oracle = run(engine, op, case)
    assert_within_bound(value, *exact_forward(op, oracle), FORWARD["k"], case["x"])


@pytest.mark.spec("S06.rule.grad-error")
@pytest.mark.parametrize("op", OPS)
@given(case=s.wide_logits())
def test_gradient_error_within_the_bound(engine: Engine, op: str, case: dict[str, Any]) -> None:
    """Every VJP element is within K·ε64·scale + K·tiny of the exact VJP."""
    require(engine, f"tensor.{op}", GRADIENT.id)
    _, grad, oracle = run(engine, op, case)
    exact, scale = oracle[f"{op}.grad"]
    assert_within_bound(grad, exact, scale, GRADIENT["k"], case["x"])


# ---------------------------------------------------------------- the bounds have teeth

# A dominant logit: the rest sit 37..1e4 below it, so Σ_{j≠max} exp(z_j) < ε64 and log(1 + rest) = 0.
dominant = st.builds(
    lambda top, gaps: np.asarray([[top, *(top - gap for gap in gaps)]]),
    st.floats(-1e3, 1e3),
    st.lists(st.floats(37.0, 700.0), min_size=1, max_size=4),
)
# logsumexp = m + log(1 + δ) is only as accurate as m's size allows: the rounding of δ shows at m = 0.
dominant_at_zero = st.lists(st.floats(37.0, 700.0), min_size=1, max_size=4).map(
    lambda gaps: np.asarray([[0.0, *(-gap for gap in gaps)]])
)
# Logits past exp's overflow: exp(x) = inf, so exp(x) / Σ exp(x) = inf / inf = nan.
overflowing = st.builds(
    lambda top, rest: np.asarray([[top, *rest]]),
    st.floats(710.0, 1e4),
    st.lists(st.floats(-1e4, 1e4), min_size=0, max_size=4),
)


def rounded_logsumexp(x: np.ndarray) -> np.ndarray:
    """logsumexp over axis 1 as m + log Σ exp(x − m), rounded to float64: its absolute error is ε·|x|."""
    m = np.max(x, axis=1, keepdims=True)
    return np.asarray(m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True)), dtype=np.float64)


def through_rounded_logsumexp(x: np.ndarray) -> np.ndarray:
    """softmax as exp(x − logsumexp(x)), the logsumexp rounded first: its absolute error ε·|x| becomes a
    relative error of every element."""
    return np.asarray(np.exp(x - rounded_logsumexp(x)), dtype=np.float64)


def ce_through_rounded_logsumexp(x: np.ndarray, targets: np.ndarray) -> float:
    """cross_entropy as mean(logsumexp(x) − x_t) with the logsumexp rounded first."""
    picked = np.take_along_axis(x, targets[:, None], axis=1)
    return float(np.mean(rounded_logsumexp(x) - picked))


# Logits near ±1e4 with a small spread: well conditioned (ρ small), so rounding logsumexp shows.
near_ten_thousand = st.sampled_from(
    [np.asarray([[1e4, 1e4 - 1]]), np.asarray([[9999.5, 9998.25, 9997.0]]), np.asarray([[-1e4, -1e4 + 0.5]])]
)


@pytest.mark.spec("S06.rule.forward-error")
@pytest.mark.parametrize(
    ("op", "naive", "inputs"),
    [
        ("softmax", lambda x, t: naive_softmax(x, 1), overflowing),
        ("log_softmax", lambda x, t: naive_log_softmax(x, 1), dominant),
        ("logsumexp", lambda x, t: naive_logsumexp(x, 1), dominant_at_zero),
        ("cross_entropy", naive_cross_entropy, dominant),
        ("softmax", lambda x, t: through_rounded_logsumexp(x), near_ten_thousand),
        ("log_softmax", lambda x, t: x - rounded_logsumexp(x), near_ten_thousand),
        ("cross_entropy", ce_through_rounded_logsumexp, near_ten_thousand),
    ],
)
@given(data=st.data())
def test_naive_forward_violates_the_bound(
    engine: Engine, op: str, naive: Any, inputs: Any, data: st.DataObject
) -> None:
    """exp(x)/Σexp(x) (nan past 710), log(softmax(x)) and log(Σexp(x − m)) (log(1 + δ) rounds δ < ε to 0):
    the bound rejects them on inputs where the engine meets it, so the property above can fail; and
    softmax, log_softmax and cross_entropy taken through the rounded logsumexp are ~10⁴·ε64 off at
    |x| ~ 1e4 (tens to hundreds of bounds at K = 16, so K is tight: 1024·K would accept them)."""
    require(engine, f"tensor.{op}", FORWARD.id)
    x = data.draw(inputs)
    targets = np.zeros(1, dtype=np.int64)
    value, _, oracle = run(engine, op, {"x": x, "upstream": np.ones(x.shape), "targets": targets})
    exact, scale = exact_forward(op, oracle)
    assert (True, False) == (
        excess(value, exact, scale, FORWARD["k"]) <= 1.0,
        excess(naive(x, targets), exact, scale, FORWARD["k"]) <= 1.0,
    )


@pytest.mark.spec("S06.rule.grad-error")
@pytest.mark.parametrize(
    ("op", "naive", "inputs"),
    [
        ("softmax", lambda x, t, g: naive_softmax_grad(x, 1, g), overflowing),
        (
            "log_softmax",
            lambda x, t, g: naive_log_softmax_grad(x, 1, g),
            st.just(np.asarray([[0.0, -800.0]])),
        ),
        ("logsumexp", lambda x, t, g: g[:, :1] * naive_softmax(x, 1), overflowing),
        ("logsumexp", lambda x, t, g: g[:, :1] * through_rounded_logsumexp(x), near_ten_thousand),
        ("cross_entropy", lambda x, t, g: naive_cross_entropy_grad(x, t), overflowing),
    ],
)
@given(data=st.data())
def test_naive_gradient_violates_the_bound(
    engine: Engine, op: str, naive: Any, inputs: Any, data: st.DataObject
) -> None:
    """The naive VJPs (through exp(x)/Σexp(x), or autodiff of log(softmax)) give nan, and the softmax taken
    through the rounded logsumexp (torch's backward) is ~10⁴·ε64 off at |x| ~ 1e4 (about 200 bounds at
    K = 16, so the bound's K is tight: 1024·K would accept it), where the engine meets the bound."""
    require(engine, f"tensor.{op}", GRADIENT.id)
    x = data.draw(inputs)
    g = data.draw(s.float_arrays(x.shape, st.floats(0.5, 2)))
    targets = np.zeros(1, dtype=np.int64)
    _, grad, oracle = run(engine, op, {"x": x, "upstream": g, "targets": targets})
    exact, scale = oracle[f"{op}.grad"]
    assert (True, False) == (
        excess(grad, exact, scale, GRADIENT["k"]) <= 1.0,
        excess(naive(x, targets, g), exact, scale, GRADIENT["k"]) <= 1.0,
    )

"""The backward-stable precision rows (level values): the engine within 16·ε64 of the exact result with a
scale that grows with the logits' magnitude (Stage 06) or over the range an unscaled rms_norm stays in
(Stage 08); beside each bound, where it parts from the strict row (a result through the rounded log-sum
meets it and misses the strict one) and that it still has teeth (nan, eps outside the square root, and an
error of 2^-40 relative, 4,096·ε64, at small logits)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stable import (
    stable_cross_entropy_case,
    stable_softmax_case,
    through_rounded_log_sum,
)
from contracts.spec_suite.cases.stage06 import (
    cross_entropy_case,
    eps_outside_rms_norm,
    excess,
    naive_rms_norm,
    naive_softmax,
    rms_case,
    softmax_case,
)
from contracts.spec_suite.spec_rows import require, row

FORWARD = row("S06.rule.forward-error-stable")
GRADIENT = row("S06.rule.grad-error-stable")
STRICT_FORWARD = row("S06.rule.forward-error")
STRICT_GRADIENT = row("S06.rule.grad-error")
RMS = row("S08.rule.stability-stable")
OPS = ("softmax", "log_softmax", "logsumexp", "cross_entropy")
PERTURBATION = 2.0**-40  # 4,096·ε64: refused at K = 16, inside the bound at 1024·K


Oracles = dict[str, tuple[np.ndarray, np.ndarray]]


def run(engine: Engine, op: str, case: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, Oracles, Oracles]:
    """The engine's value and gradient for op on the case (classes on axis 1), and the exact values with
    their backward-stable and strict scales."""
    x, g = case["x"], case["upstream"]
    if op == "cross_entropy":
        value, (grad,) = engine.tensor_vjp_with(op, [x], None, {"targets": case["targets"]})
        targets = case["targets"]
        return value, grad, stable_cross_entropy_case(x, targets, 1.0), cross_entropy_case(x, targets, 1.0)
    upstream = g[:, :1] if op == "logsumexp" else g
    kwargs = {"axis": 1, "keepdims": True} if op == "logsumexp" else {"axis": 1}
    value, (grad,) = engine.tensor_vjp_with(op, [x], upstream, kwargs)
    return value, grad, stable_softmax_case(x, 1, upstream), softmax_case(x, 1, upstream)


def forward_of(op: str, oracle: Oracles) -> tuple[np.ndarray, np.ndarray]:
    exact, scale = oracle[op]
    if op == "logsumexp":  # the oracle repeats the slice's value along the axis
        return exact[:, :1], scale[:, :1]
    return exact, scale


def upstream_of(op: str, g: np.ndarray) -> np.ndarray:
    """The upstream the engine was given for op (keepdims for logsumexp; cross_entropy's is 1)."""
    return g[:, :1] if op == "logsumexp" else g


@pytest.mark.spec("S06.rule.forward-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(case=s.wide_logits())
def test_forward_error_within_the_stable_bound(engine: Engine, op: str, case: dict[str, Any]) -> None:
    """Every output is within K·ε64·(strict scale + (1 + max|x|)·λ) + K·tiny of the exact value."""
    require(engine, f"tensor.{op}", FORWARD.id)
    value, _, stable, _ = run(engine, op, case)
    assert excess(value, *forward_of(op, stable), FORWARD["k"]) <= 1.0


@pytest.mark.spec("S06.rule.grad-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(case=s.wide_logits())
def test_gradient_error_within_the_stable_bound(engine: Engine, op: str, case: dict[str, Any]) -> None:
    """Every VJP element is within K·ε64·(strict scale + (1 + max|x|)·λ) + K·tiny of the exact VJP."""
    require(engine, f"tensor.{op}", GRADIENT.id)
    _, grad, stable, _ = run(engine, op, case)
    assert excess(grad, *stable[f"{op}.grad"], GRADIENT["k"]) <= 1.0


# ---------------------------------------------------------------- where the stable and strict bounds part

# Logits near ±1e4 with a small spread: the rounded log-sum is ~ε64·1e4 off, which the strict bound refuses.
near_ten_thousand = st.sampled_from(
    [np.asarray([[1e4, 1e4 - 1]]), np.asarray([[9999.5, 9998.25, 9997.0]]), np.asarray([[-1e4, -1e4 + 0.5]])]
)
# A dominant logit at 0: log(1 + δ) rounds the tail δ < ε64 to 0, an absolute error below ε64.
dominant_at_zero = st.lists(st.floats(37.0, 700.0), min_size=1, max_size=4).map(
    lambda gaps: np.asarray([[0.0, *(-gap for gap in gaps)]])
)
ROUNDED_FORWARD = {
    "softmax": near_ten_thousand,
    "log_softmax": near_ten_thousand,
    "cross_entropy": near_ten_thousand,
    "logsumexp": dominant_at_zero,
}


def within(actual: np.ndarray, pair: tuple[np.ndarray, np.ndarray], k: float) -> bool:
    return excess(actual, *pair, k) <= 1.0


@pytest.mark.spec("S06.rule.forward-error-stable")
@pytest.mark.parametrize("op", sorted(ROUNDED_FORWARD))
@given(data=st.data())
def test_the_rounded_log_sum_meets_only_the_stable_forward_bound(
    engine: Engine, op: str, data: st.DataObject
) -> None:
    """A value formed from the rounded log-sum (exp(x − y), x − y, y − x_t, or log(1 + tail) = 0) is inside
    the stable bound and outside the strict one, where the engine meets the stable bound: the two rows
    differ exactly by what an ordinary stable engine does."""
    require(engine, f"tensor.{op}", FORWARD.id)
    x = data.draw(ROUNDED_FORWARD[op])
    targets = np.zeros(1, dtype=np.int64)
    value, _, stable, strict = run(engine, op, {"x": x, "upstream": np.ones(x.shape), "targets": targets})
    rounded = through_rounded_log_sum(op, x, 1, np.ones(x.shape), targets)
    if op == "logsumexp":
        rounded = rounded.reshape(value.shape)
    assert (True, True, False) == (
        within(value, forward_of(op, stable), FORWARD["k"]),
        within(rounded, forward_of(op, stable), FORWARD["k"]),
        within(rounded, forward_of(op, strict), STRICT_FORWARD["k"]),
    )


@pytest.mark.spec("S06.rule.grad-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(x=near_ten_thousand, data=st.data())
def test_the_rounded_log_sum_meets_only_the_stable_gradient_bound(
    engine: Engine, op: str, x: np.ndarray, data: st.DataObject
) -> None:
    """A VJP formed from s = exp(x − y) with the rounded log-sum y (torch's logsumexp backward) is ~10⁴·ε64
    relative off at |x| ~ 1e4: inside the stable bound, outside the strict one, where the engine meets the
    stable bound."""
    require(engine, f"tensor.{op}", GRADIENT.id)
    g = data.draw(s.float_arrays(x.shape, st.floats(0.5, 2)))
    targets = np.zeros(1, dtype=np.int64)
    _, grad, stable, strict = run(engine, op, {"x": x, "upstream": g, "targets": targets})
    upstream = 1.0 if op == "cross_entropy" else upstream_of(op, g)
    rounded = through_rounded_log_sum(f"{op}.grad", x, 1, np.asarray(upstream), targets)
    assert (True, True, False) == (
        within(grad, stable[f"{op}.grad"], GRADIENT["k"]),
        within(rounded, stable[f"{op}.grad"], GRADIENT["k"]),
        within(rounded, strict[f"{op}.grad"], STRICT_GRADIENT["k"]),
    )


# ---------------------------------------------------------------- the stable bounds have teeth

# Logits past exp's overflow: exp(x) = inf, so exp(x) / Σ exp(x) = inf / inf = nan.
overflowing = st.builds(
    lambda top, rest: np.asarray([[top, *rest]]),
    st.floats(710.0, 1e4),
    st.lists(st.floats(-1e4, 1e4), min_size=0, max_size=4),
)


def unshifted(op: str, x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """op's value or VJP through exp(x) / Σ exp(x), never shifted by the max (nan or inf past 710)."""
    s = naive_softmax(x, 1)
    with np.errstate(all="ignore"):
        forms: dict[str, Any] = {
            "softmax": lambda: s,
            "log_softmax": lambda: np.log(s),
            "logsumexp": lambda: np.log(np.sum(np.exp(x), axis=1, keepdims=True)),
            "cross_entropy": lambda: np.asarray(np.mean(-np.log(s[:, :1]))),
            "softmax.grad": lambda: s * (g - np.sum(g * s, axis=1, keepdims=True)),
            "log_softmax.grad": lambda: g - s * np.sum(g, axis=1, keepdims=True),
            "logsumexp.grad": lambda: g[:, :1] * s,
            "cross_entropy.grad": lambda: s - (np.arange(x.shape[1]) == 0),
        }
        return np.asarray(forms[op](), dtype=np.float64)


@pytest.mark.spec("S06.rule.forward-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(x=overflowing)
def test_the_unshifted_forward_violates_the_stable_bound(engine: Engine, op: str, x: np.ndarray) -> None:
    """exp(x)/Σexp(x) past x = 710 gives nan or inf: the stable bound refuses it where the engine meets it."""
    require(engine, f"tensor.{op}", FORWARD.id)
    targets = np.zeros(1, dtype=np.int64)
    value, _, stable, _ = run(engine, op, {"x": x, "upstream": np.ones(x.shape), "targets": targets})
    naive = unshifted(op, x, np.ones(x.shape)).reshape(value.shape)
    assert (True, False) == (
        within(value, forward_of(op, stable), FORWARD["k"]),
        within(naive, forward_of(op, stable), FORWARD["k"]),
    )


@pytest.mark.spec("S06.rule.grad-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(x=overflowing)
def test_the_unshifted_gradient_violates_the_stable_bound(engine: Engine, op: str, x: np.ndarray) -> None:
    """The VJPs through exp(x)/Σexp(x) past x = 710 give nan: refused, where the engine meets the bound."""
    require(engine, f"tensor.{op}", GRADIENT.id)
    targets = np.zeros(1, dtype=np.int64)
    _, grad, stable, _ = run(engine, op, {"x": x, "upstream": np.ones(x.shape), "targets": targets})
    naive = unshifted(f"{op}.grad", x, np.ones(x.shape))
    assert (True, False) == (
        within(grad, stable[f"{op}.grad"], GRADIENT["k"]),
        within(naive, stable[f"{op}.grad"], GRADIENT["k"]),
    )


@st.composite
def small_logits(draw: st.DrawFn) -> dict[str, Any]:
    """Logits in [1, 2] (M <= 2: the stable scale is a few times |result|), 2 to 5 classes, the upstream
    e_0 (so no VJP cancels to 0 everywhere: s_0 <= e/(e + 1) keeps 1 − s_0 away from 0), target 0."""
    classes = draw(st.integers(2, s.SOFTMAX_SIDE))
    x = draw(s.float_arrays((1, classes), st.floats(1.0, 2.0)))
    upstream = np.where(np.arange(classes) == 0, 1.0, 0.0)[np.newaxis]
    return {"x": x, "upstream": upstream, "targets": np.zeros(1, dtype=np.int64)}


@pytest.mark.spec("S06.rule.forward-error-stable", "S06.rule.grad-error-stable")
@pytest.mark.parametrize("op", OPS)
@given(case=small_logits())
def test_an_error_of_4096_eps_at_small_logits_is_refused(
    engine: Engine, op: str, case: dict[str, Any]
) -> None:
    """The engine's value and VJP, each scaled by 1 + 2^-40 (4,096·ε64 relative, far below any wrong formula
    and beyond what a stable computation rounds at |x| <= 2), leave both bounds, where the unscaled ones
    meet them: K is not loose by 2^10."""
    require(engine, f"tensor.{op}", FORWARD.id)
    require(engine, f"tensor.{op}", GRADIENT.id)
    value, grad, stable, _ = run(engine, op, case)
    forward = forward_of(op, stable)
    backward = stable[f"{op}.grad"]
    off = 1.0 + PERTURBATION
    assert (True, True, False, False) == (
        within(value, forward, FORWARD["k"]),
        within(grad, backward, GRADIENT["k"]),
        within(np.asarray(value) * off, forward, FORWARD["k"]),
        within(np.asarray(grad) * off, backward, GRADIENT["k"]),
    )


# ---------------------------------------------------------------- rms_norm in float64's normal range


def rms_call(engine: Engine, case: dict[str, Any]) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    return engine.tensor_vjp_with(
        "rms_norm", [case["x"], case["gain"]], case["upstream"], {"eps": case["eps"]}
    )


def normal(smallest: float, largest: float) -> st.SearchStrategy[float]:
    """0, or a float of either sign with magnitude in [smallest, largest]."""
    magnitude = st.floats(smallest, largest)
    return st.one_of(st.just(0.0), magnitude, magnitude.map(lambda v: -v))


@st.composite
def rms_in_normal_range(draw: st.DrawFn) -> dict[str, Any]:
    """A batch (<= 3 rows of n <= 5) whose x, gain and upstream elements are 0 or of magnitude in
    [1e-50, 1e50] (gain and upstream <= 2), and eps = 10^k, k in [-12, 0]."""
    batch = draw(st.integers(1, 3))
    n = draw(st.integers(1, s.SOFTMAX_SIDE))
    bounded = normal(1e-50, 2.0)
    return {
        "x": draw(s.float_arrays((batch, n), normal(1e-50, 1e50))),
        "gain": draw(s.float_arrays((n,), bounded)),
        "upstream": draw(s.float_arrays((batch, n), bounded)),
        "eps": draw(s.log_eps),
    }


@pytest.mark.spec("S08.rule.stability-stable")
@given(case=rms_in_normal_range())
def test_rms_norm_within_the_bound_wherever_an_unscaled_computation_stays_in_range(
    engine: Engine, case: dict[str, Any]
) -> None:
    """With every nonzero magnitude in [1e-50, 1e50] and eps from 1e-12 to 1: forward, dx and dgain within
    the bound, and so is the unscaled x / sqrt(mean(x²) + eps) · w computed in float64: in this range no
    scaling is needed."""
    require(engine, "tensor.rms_norm", RMS.id)
    value, (dx, dgain) = rms_call(engine, case)
    oracle = rms_case(case["x"], case["gain"], case["eps"], case["upstream"])
    unscaled = naive_rms_norm(case["x"], case["gain"], case["eps"])
    k = RMS["k"]
    assert [True] * 4 == [
        within(value, oracle["rms_norm"], k),
        within(dx, oracle["rms_norm.grad.x"], k),
        within(dgain, oracle["rms_norm.grad.gain"], k),
        within(unscaled, oracle["rms_norm"], k),
    ]


@pytest.mark.spec("S08.rule.stability-stable")
@given(n=st.integers(1, 5), eps=st.sampled_from([1e-12, 4e-12, 1e-11]))
def test_eps_outside_the_sqrt_violates_the_stable_bound(engine: Engine, n: int, eps: float) -> None:
    """Rows of ±1 and eps 1e-12..1e-11: x / (sqrt(mean(x²)) + eps) is eps/2 relative off (2,250 to
    22,500·ε64: 140 to 1,400 bounds at K = 16, 1024·K accepts the first two), where the engine meets it."""
    require(engine, "tensor.rms_norm", RMS.id)
    x = np.asarray([np.where(np.arange(n) % 2 == 0, 1.0, -1.0)])
    gain = np.ones(n)
    oracle = rms_case(x, gain, eps, np.ones(x.shape))
    value, _ = rms_call(engine, {"x": x, "gain": gain, "eps": eps, "upstream": np.ones(x.shape)})
    assert (True, False) == (
        within(value, oracle["rms_norm"], RMS["k"]),
        within(eps_outside_rms_norm(x, gain, eps), oracle["rms_norm"], RMS["k"]),
    )

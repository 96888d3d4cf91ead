"""Stage 08 properties: rms_norm against its spec row and central differences, the residual path, what eps
does (at x = 0, the gradient-norm bound f(eps), the regime where it changes the result), stability across
input scales with the naive forms beside it, and refusals before any node."""

from __future__ import annotations

import math
from typing import Any

import array_api_strict
import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage06 import (
    DPS,
    EPS64,
    assert_within_bound,
    eps_outside_rms_norm,
    excess,
    naive_rms_norm,
    refuse_with,
    rms_case,
    spec_vjp_with,
)
from contracts.spec_suite.cases.tensor import RecordingNamespace, assert_second_call_gives, require_reference
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    held_array,
    params,
    reference_only,
    require,
    row,
    rows,
    tolerance,
)
from contracts.tensor import Tensor, add
from contracts.tensor.engine_ops import reference_tensor_vjp_with
from contracts.tensor.norm import rms_norm

GRADIENT = row("S08.grad.rms-norm")
STABILITY = row("S08.rule.stability")
REGIME = row("S08.rule.eps-regime")
STEP = 1e-6
ROUNDING = 1 + 1e-12  # S08.rule.grad-bound's "up to rounding"


def call(engine: Engine, case: dict[str, Any]) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    return engine.tensor_vjp_with(
        "rms_norm", [case["x"], case["gain"]], case["upstream"], {"eps": case["eps"]}
    )


@pytest.mark.spec("S08.grad.rms-norm")
@given(case=s.rms_row_case(GRADIENT))
def test_each_call_gets_the_gradients_of_its_own_upstream(engine: Engine, case: dict[str, Any]) -> None:
    """Called on the same x and gain first with another upstream (2g + 1), then with g: dx and dgain are
    the spec's for g (no state kept between calls, e.g. a cache keyed on the inputs alone)."""
    require(engine, "tensor.rms_norm", GRADIENT.id)
    inputs = [case["x"], case["gain"]]
    _, expected_grads = spec_vjp_with(GRADIENT, inputs, case["upstream"], {"eps": case["eps"]})

    def vjp(upstream: np.ndarray | None) -> tuple[Any, tuple[Any, ...]]:
        return engine.tensor_vjp_with("rms_norm", inputs, upstream, {"eps": case["eps"]})

    assert_second_call_gives(engine, vjp, case["upstream"], expected_grads)


@pytest.mark.spec("S08.grad.rms-norm")
@given(case=s.rms_row_case(GRADIENT))
def test_value_and_gradients_match_spec(engine: Engine, case: dict[str, Any]) -> None:
    """The forward, dx and the gain's gradient (summed over the batch) equal the row's expressions."""
    require(engine, "tensor.rms_norm", GRADIENT.id)
    inputs = [case["x"], case["gain"]]
    expected_value, expected_grads = spec_vjp_with(GRADIENT, inputs, case["upstream"], {"eps": case["eps"]})
    value, grads = call(engine, case)
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"))
    assert [x.shape for x in inputs] == [g.shape for g in grads]
    for expected, actual in zip(expected_grads, grads, strict=True):
        assert_engine_gives(expected, actual, **tolerance(engine, "gradient"))


@pytest.mark.spec("S08.grad.rms-norm")
@given(case=s.rms_row_case(GRADIENT), data=st.data())
def test_gradients_match_central_differences(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Along random directions of x and gain, central differences of ⟨g, y⟩ equal ⟨dx, d⟩ + ⟨dgain, e⟩."""
    require(engine, "tensor.rms_norm", GRADIENT.id)
    inputs = [case["x"], case["gain"]]
    direction = data.draw(s.directions([x.shape for x in inputs]))
    _, grads = call(engine, case)

    def loss(t: float) -> float:
        moved = [x + t * d for x, d in zip(inputs, direction, strict=True)]
        value, _ = spec_vjp_with(GRADIENT, moved, case["upstream"], {"eps": case["eps"]})
        return float(np.sum(case["upstream"] * value))

    numeric = (loss(STEP) - loss(-STEP)) / (2 * STEP)
    analytic = sum(float(np.sum(grad * d)) for grad, d in zip(grads, direction, strict=True))
    assert_engine_gives(
        numeric,
        analytic,
        **tolerance(engine, "central"),
        what="directional derivative",
        source="the central difference of the spec's value",
    )


@reference_only(OWN_TYPES)
@pytest.mark.spec("S08.grad.rms-norm")
@given(case=s.rms_row_case(GRADIENT))
def test_rms_norm_over_array_api_strict(engine: Engine, case: dict[str, Any]) -> None:
    """Over array_api_strict (its functions asked for, not numpy's) the reference gives the spec's values
    and gradients."""
    require_reference(engine, GRADIENT.id)
    inputs = [case["x"], case["gain"]]
    expected_value, expected_grads = spec_vjp_with(GRADIENT, inputs, case["upstream"], {"eps": case["eps"]})
    space = RecordingNamespace(array_api_strict)
    value, grads = reference_tensor_vjp_with(
        "rms_norm", inputs, case["upstream"], {"eps": case["eps"]}, xp=space
    )
    assert set() != space.operations()  # the op ran over array_api_strict, not numpy
    assert_engine_gives(expected_value, value, rel=1e-12, abs=1e-12)
    for expected, actual in zip(expected_grads, grads, strict=True):
        assert_engine_gives(expected, actual, rel=1e-9, abs=1e-12)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S08.rule.residual")
@given(case=s.rms_case())
def test_residual_gradient_is_upstream_plus_the_branch(engine: Engine, case: dict[str, Any]) -> None:
    """y = x + rms_norm(x): y is the sum, dx = g + J_fᵀ g (the engine's rms_norm VJP), dgain = f's alone."""
    require_reference(engine, "S08.rule.residual")
    x = Tensor(case["x"], requires_grad=True)
    gain = Tensor(case["gain"], requires_grad=True)
    y = add(x, rms_norm(x, gain, case["eps"]))
    y.backward(case["upstream"])
    branch, (branch_dx, branch_dgain) = call(engine, case)
    assert_engine_gives(case["x"] + branch, y.data, rel=1e-15, abs=1e-300)
    assert_engine_gives(case["upstream"] + branch_dx, x.grad, rel=1e-15, abs=1e-300)
    assert branch_dgain.tolist() == gain.grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.spec("S08.rule.residual")
@given(case=s.rms_case(), data=st.data())
def test_residual_gradient_matches_central_differences(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """The residual's dx against central differences of ⟨g, x + f(x)⟩ (f from the spec row)."""
    require_reference(engine, "S08.rule.residual")
    (direction,) = data.draw(s.directions([case["x"].shape]))
    x = Tensor(case["x"], requires_grad=True)
    add(x, rms_norm(x, Tensor(case["gain"]), case["eps"])).backward(case["upstream"])

    def loss(t: float) -> float:
        moved = case["x"] + t * direction
        value, _ = spec_vjp_with(GRADIENT, [moved, case["gain"]], case["upstream"], {"eps": case["eps"]})
        return float(np.sum(case["upstream"] * (moved + value)))

    numeric = (loss(STEP) - loss(-STEP)) / (2 * STEP)
    assert_engine_gives(
        numeric,
        float(np.sum(x.grad * direction)),
        rel=1e-5,
        abs=1e-6,
        what="directional derivative",
        source="the central difference of the spec's value",
    )


@pytest.mark.spec("S08.rule.eps-at-zero")
@given(case=s.rms_case(eps=s.any_positive_eps))
def test_at_zero_eps_sets_the_gradient_scale(engine: Engine, case: dict[str, Any]) -> None:
    """At x = 0, for every eps the spec accepts (subnormals included): y = 0, dx = g ⊙ gain / sqrt(eps),
    dgain = 0 exactly."""
    require(engine, "tensor.rms_norm", "S08.rule.eps-at-zero")
    assert_zero_row(engine, case)


@pytest.mark.spec("S08.rule.eps-at-zero-normal")
@given(case=s.rms_case(eps=s.normal_range_eps))
def test_at_zero_eps_sets_the_gradient_scale_from_1e_200(engine: Engine, case: dict[str, Any]) -> None:
    """At x = 0, for eps from 1e-200 up: y = 0, dx = g ⊙ gain / sqrt(eps), dgain = 0 exactly."""
    require(engine, "tensor.rms_norm", "S08.rule.eps-at-zero-normal")
    assert_zero_row(engine, case)


def assert_zero_row(engine: Engine, case: dict[str, Any]) -> None:
    """rms_norm of a zero row: value and gain gradient zero, dx = g ⊙ gain / sqrt(eps)."""
    zero = {**case, "x": np.zeros(case["x"].shape)}
    value, (dx, dgain) = call(engine, zero)
    expected = case["upstream"] * case["gain"] / np.sqrt(case["eps"])
    assert (np.zeros(value.shape).tolist(), np.zeros(dgain.shape).tolist()) == (
        value.tolist(),
        dgain.tolist(),
    )
    assert_engine_gives(expected, dx, rel=4 * EPS64, abs=0)


def row_norms(array: np.ndarray) -> Any:
    """Each last-axis row's 2-norm, without underflow: squaring a 1e-158 entry would lose its digits
    to subnormals (math.hypot scales first)."""
    return np.apply_along_axis(lambda values: math.hypot(*values), -1, array)


@pytest.mark.spec("S08.rule.grad-bound")
@given(case=s.rms_case(scales=(-8, 8), eps=s.log_eps))
def test_gradient_norm_is_bounded_by_f_of_eps(engine: Engine, case: dict[str, Any]) -> None:
    """Per row ‖dx‖ <= ‖g‖ max|w| / sqrt(mean(x²) + eps) <= ‖g‖ max|w| / sqrt(eps)."""
    require(engine, "tensor.rms_norm", "S08.rule.grad-bound")
    _, (dx, _) = call(engine, case)
    x, g, eps = case["x"], case["upstream"], case["eps"]
    top = float(np.max(np.abs(case["gain"])))
    bound = row_norms(g) * top / np.sqrt(np.mean(x * x, axis=-1) + eps)
    # "up to rounding": the engine's own, at its dtype (T.rule.tolerance); the bound's own arithmetic here
    # is float64
    slack = 1 + tolerance(engine, "value")["rel"]
    assert bool(np.all(row_norms(dx) <= bound * slack))
    assert bool(np.all(bound <= row_norms(g) * top / np.sqrt(eps) * ROUNDING))


@pytest.mark.spec("S08.rule.grad-bound")
@given(case=s.rms_case(eps=s.log_eps), magnitude=st.floats(0.5, 2))
def test_gradient_norm_bound_is_attained_at_zero(
    engine: Engine, case: dict[str, Any], magnitude: float
) -> None:
    """With x = 0 and |gain| constant the bound is an equality: f(eps) is the least bound."""
    require(engine, "tensor.rms_norm", "S08.rule.grad-bound")
    n = case["gain"].shape[0]
    gain = magnitude * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    _, (dx, _) = call(engine, {**case, "x": np.zeros(case["x"].shape), "gain": gain})
    # at the numbers the engine holds (T.rule.tolerance): a float32 engine's upstream may round to 0
    g, top, eps = (held_array(engine, value) for value in (case["upstream"], magnitude, case["eps"]))
    expected = row_norms(g) * top / np.sqrt(eps)
    assert_engine_gives(expected, row_norms(dx), rel=tolerance(engine, "value")["rel"], abs=0)


def exact_normalized(x: np.ndarray, gain: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(x ⊙ w / sqrt(ms + eps), x ⊙ w / sqrt(ms)) per row, in mpmath."""
    with mpmath.workdps(DPS):
        with_eps, without = [], []
        for row_x in x.reshape(-1, x.shape[-1]):
            values = [mpmath.mpf(float(v)) for v in row_x]
            ms = mpmath.fsum(v * v for v in values) / len(values)
            with_eps.append([float(v * w / mpmath.sqrt(ms + eps)) for v, w in zip(values, gain.tolist())])
            without.append([float(v * w / mpmath.sqrt(ms)) for v, w in zip(values, gain.tolist())])
    return np.asarray(with_eps).reshape(x.shape), np.asarray(without).reshape(x.shape)


@pytest.mark.spec("S08.rule.eps-regime")
@given(case=s.rms_case(scales=(-7, 1), eps=s.log_eps))
def test_eps_scales_the_row_by_its_factor(engine: Engine, case: dict[str, Any]) -> None:
    """y = x ⊙ w / sqrt(ms) · sqrt(ms / (ms + eps)); eps <= ms·ε/4 leaves the eps-free result (2 ulp);
    eps >= 3·ms at least halves the row's norm."""
    require(engine, "tensor.rms_norm", REGIME.id)
    x = case["x"] + np.where(case["x"] == 0, 1e-3, 0.0)  # ms > 0 in every row
    value, _ = call(engine, {**case, "x": x})
    exact, free = exact_normalized(x, case["gain"], case["eps"])
    assert_within_bound(value, exact, np.abs(exact), REGIME["k"], x)
    ms = np.mean(x * x, axis=-1)
    invisible = case["eps"] <= ms * EPS64 / 4
    halved = case["eps"] >= 3 * ms
    for index in np.ndindex(ms.shape):
        if invisible[index]:
            assert free[index] == pytest.approx(value[index], rel=2 * EPS64, abs=0)
        if halved[index]:
            assert row_norms(value[index]) <= 0.5 * row_norms(free[index]) * ROUNDING


@pytest.mark.spec("S08.rule.eps-regime")
@given(scale=st.integers(-5, 5), n=st.integers(1, 5))
def test_the_regime_boundaries(engine: Engine, scale: int, n: int) -> None:
    """A row of ±10^k (ms = 10^2k): eps = ms·ε/8 changes nothing, eps = 3·ms halves it exactly."""
    require(engine, "tensor.rms_norm", REGIME.id)
    x = 10.0**scale * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    gain = np.ones(n)
    ms = float(np.mean(x * x))
    tiny, _ = engine.tensor_vjp_with("rms_norm", [x, gain], np.ones(n), {"eps": ms * EPS64 / 8})
    half, _ = engine.tensor_vjp_with("rms_norm", [x, gain], np.ones(n), {"eps": 3 * ms})
    signs = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    assert signs == pytest.approx(tiny, rel=2 * EPS64, abs=0)
    assert signs / 2 == pytest.approx(half, rel=4 * EPS64, abs=0)


@pytest.mark.spec("S08.rule.eps-regime")
@given(scale=st.integers(-5, 5), n=st.integers(1, 5), power=st.integers(36, 44))
def test_dropping_a_small_eps_violates_the_regime_bound(
    engine: Engine, scale: int, n: int, power: int
) -> None:
    """eps = ms·2^-power is small but not invisible: x / sqrt(ms) (eps dropped, as an engine that adds eps
    only at ms = 0 does) is 2^-(power+1) relative off, 8 to 2,048 bounds at K = 16 (1024·K accepts it
    from power 38 on), where the engine meets the bound."""
    require(engine, "tensor.rms_norm", REGIME.id)
    x = np.asarray([10.0**scale * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)])
    gain = np.ones(n)
    eps = float(np.mean(x * x)) * 2.0**-power
    value, _ = call(engine, {"x": x, "gain": gain, "eps": eps, "upstream": np.ones(x.shape)})
    exact, free = exact_normalized(x, gain, eps)
    assert (True, False) == (
        excess(value, exact, np.abs(exact), REGIME["k"]) <= 1.0,
        excess(free, exact, np.abs(exact), REGIME["k"]) <= 1.0,
    )


# ---------------------------------------------------------------- stability across scales, with teeth


def assert_within_stability_bound(engine: Engine, case: dict[str, Any]) -> None:
    value, (dx, dgain) = call(engine, case)
    oracle = rms_case(case["x"], case["gain"], case["eps"], case["upstream"])
    k = STABILITY["k"]
    # each output on its own: a list comparison would let the first element decide
    assert_within_bound(value, *oracle["rms_norm"], k, case["x"])
    assert_within_bound(dx, *oracle["rms_norm.grad.x"], k, case["x"])
    assert_within_bound(dgain, *oracle["rms_norm.grad.gain"], k, case["x"])


@pytest.mark.spec("S08.rule.stability")
@given(case=s.rms_case(scales=(-150, 150), eps=s.log_eps))
def test_stability_across_scales(engine: Engine, case: dict[str, Any]) -> None:
    """For max|x| from 1e-150 to 1e150 and eps from 1e-12 to 1: forward, dx and dgain within the bound."""
    require(engine, "tensor.rms_norm", STABILITY.id)
    assert_within_stability_bound(engine, case)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S08.rule.stability")
@given(case=s.rms_case(scales=(-300, 300), eps=s.log_eps))
def test_reference_is_stable_across_the_float_range(engine: Engine, case: dict[str, Any]) -> None:
    """The reference holds the same bound for max|x| from 1e-300 to 1e300 (it scales each row first)."""
    require_reference(engine, STABILITY.id)
    assert_within_stability_bound(engine, case)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S08.rule.stability")
@given(case=s.rms_case(eps=s.log_eps), scales=st.lists(st.integers(-300, 300), min_size=2, max_size=2))
def test_each_row_is_scaled_by_its_own_magnitude(
    engine: Engine, case: dict[str, Any], scales: list[int]
) -> None:
    """Rows of one batch at scales up to 1e600 apart (1e-300 and 1e300) are each within the bound."""
    require_reference(engine, STABILITY.id)
    n = case["gain"].shape[0]
    units = np.where(np.arange(n) % 2 == 0, 1.0, -0.5)
    x = np.stack([units * 10.0**k for k in scales])
    assert_within_stability_bound(engine, {**case, "x": x, "upstream": np.ones(x.shape)})


@pytest.mark.spec("S08.rule.stability")
@given(n=st.integers(1, 5), eps=st.sampled_from([1e-12, 4e-12, 1e-11]))
def test_eps_outside_the_sqrt_at_unit_scale_violates_the_bound(engine: Engine, n: int, eps: float) -> None:
    """Rows of ±1 and eps 1e-12..1e-11: x / (sqrt(mean(x²)) + eps) is eps/2 relative off (2,300 to
    23,000·ε64: 140 to 1,400 bounds at K = 16; 1024·K accepts the first two), where the engine meets
    the bound."""
    require(engine, "tensor.rms_norm", STABILITY.id)
    x = np.asarray([np.where(np.arange(n) % 2 == 0, 1.0, -1.0)])
    gain = np.ones(n)
    oracle = rms_case(x, gain, eps, np.ones(x.shape))
    value, _ = call(engine, {"x": x, "gain": gain, "eps": eps, "upstream": np.ones(x.shape)})
    assert (True, False) == (
        excess(value, *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
        excess(eps_outside_rms_norm(x, gain, eps), *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
    )


@pytest.mark.spec("S08.rule.stability")
@given(
    scale=st.integers(155, 300),
    units=st.lists(st.floats(1, 4), min_size=1, max_size=5),
    signs=st.lists(st.booleans(), min_size=5, max_size=5),
    eps=s.log_eps,
)
def test_unscaled_squares_violate_the_bound(
    engine: Engine, scale: int, units: list[float], signs: list[bool], eps: float
) -> None:
    """x / sqrt(mean(x²) + eps) without scaling: x² overflows from |x| = 1.4e154 (y = 0), out of bound."""
    require(engine, "tensor.rms_norm", STABILITY.id)
    x = np.asarray([[u * 10.0**scale * (1 if sign else -1) for u, sign in zip(units, signs)]])
    gain = np.ones(x.shape[-1])
    oracle = rms_case(x, gain, eps, np.ones(x.shape))
    value, _ = call(engine, {"x": x, "gain": gain, "eps": eps, "upstream": np.ones(x.shape)})
    assert (True, False) == (
        excess(value, *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
        excess(naive_rms_norm(x, gain, eps), *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
    )


@pytest.mark.spec("S08.rule.stability")
@given(case=s.rms_case(eps=s.log_eps), factor=st.floats(0.25, 4))
def test_eps_outside_the_sqrt_violates_the_bound(engine: Engine, case: dict[str, Any], factor: float) -> None:
    """x / (sqrt(mean(x²)) + eps): where mean(x²) is near eps (here ms = factor²·eps) the bound rejects it,
    and the engine meets it."""
    require(engine, "tensor.rms_norm", STABILITY.id)
    n = case["gain"].shape[0]
    x = np.full((1, n), factor * np.sqrt(case["eps"]))
    gain = np.ones(n)
    oracle = rms_case(x, gain, case["eps"], np.ones((1, n)))
    value, _ = call(engine, {"x": x, "gain": gain, "eps": case["eps"], "upstream": np.ones((1, n))})
    assert (True, False) == (
        excess(value, *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
        excess(eps_outside_rms_norm(x, gain, case["eps"]), *oracle["rms_norm"], STABILITY["k"]) <= 1.0,
    )


FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S08.fail.eps": s.bad_eps("value"),
    "S08.fail.eps-type": s.bad_eps("type"),
    "S08.fail.gain-shape": s.bad_gain(),
}


# the tensor op's failure rows; the block's are in test_stage08_block
TENSOR_FAILURES = [row(row_id) for row_id in FAILURE_CASES]


@pytest.mark.spec("S08.rule.messages")
@pytest.mark.parametrize("spec_row", params(TENSOR_FAILURES))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad eps or gain raises the row's exception and message, with no node created."""
    refuse_with(engine, spec_row, data.draw(FAILURE_CASES[spec_row.id]))


def test_failure_rows_all_have_generators() -> None:
    """No Stage 08 failure row is left without a generator of its bad input (here or the block's)."""
    from contracts.spec_suite.cases.stage08 import ATTEMPTS

    assert {r.id for r in rows(stage="08", kind="failure")} == set(FAILURE_CASES) | set(ATTEMPTS)


@pytest.mark.spec("S08.fail.eps")
@given(eps=st.floats(5e-324, 1e300), n=st.integers(1, 4))
def test_every_finite_positive_eps_is_accepted(engine: Engine, eps: float, n: int) -> None:
    """The boundary: every finite eps > 0 from the smallest subnormal (int too) is accepted, finite."""
    require(engine, "tensor.param-errors", "S08.fail.eps")
    for value in (eps, max(1, int(min(eps, 1e6)))):
        out, grads = engine.tensor_vjp_with("rms_norm", [np.ones(n), np.ones(n)], np.ones(n), {"eps": value})
        assert [True] * 3 == [bool(np.all(np.isfinite(a))) for a in (out, *grads)]

"""Stage 08 goldens: the hand-computed rms_norm, residual and eps examples of the spec rows (x = [1, −1, 1,
−1] with eps = 3 has r = 1/2), through the spec's expressions and the engine; the refused hand cases."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage06 import (
    EPS64,
    eps_outside_rms_norm,
    naive_rms_norm,
    refuse_with,
    spec_vjp_with,
)
from contracts.spec_suite.cases.tensor import require_reference
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    assert_hand_case,
    example_params,
    reference_only,
    require,
    row,
    tolerance,
)
from contracts.tensor import Tensor, add
from contracts.tensor.norm import rms_norm

GRADIENT = row("S08.grad.rms-norm")


def prepared(example: dict[str, Any]) -> tuple[list[np.ndarray], np.ndarray | None, dict[str, Any]]:
    inputs = [np.asarray(item, dtype=np.float64) for item in example["inputs"]]
    upstream = example.get("upstream")
    return (
        inputs,
        None if upstream is None else np.asarray(upstream, dtype=np.float64),
        dict(example["params"]),
    )


# the norm's hand cases: value and gradients at the example tolerance, gradients of x then of the gain (w)
NORM_CASE: dict[str, Any] = {"value_comparison": "example", "grad_names": ("x", "w")}


@pytest.mark.parametrize(("spec_row", "example"), example_params([GRADIENT]))
def test_gradient_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case: the spec's expressions and the engine give its value, dx and dgain."""
    require(engine, "tensor.rms_norm", spec_row.id)
    inputs, upstream, kwargs = prepared(example)
    assert_hand_case(
        spec_vjp_with(spec_row, inputs, upstream, kwargs), example, gave="the spec's expressions", **NORM_CASE
    )
    assert_hand_case(
        engine.tensor_vjp_with("rms_norm", inputs, upstream, kwargs), example, engine.dtype, **NORM_CASE
    )


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.residual")]))
def test_residual_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """x + rms_norm(x): value x + y, dx = g + the rms VJP (1.46875 = 1 + 0.46875), dgain = the branch's."""
    require_reference(engine, spec_row.id)
    (x_data, gain_data), upstream, kwargs = prepared(example)
    x, gain = Tensor(x_data, requires_grad=True), Tensor(gain_data, requires_grad=True)
    y = add(x, rms_norm(x, gain, kwargs["eps"]))
    y.backward(upstream)
    assert_hand_case((y.data, (x.grad, gain.grad)), example, gave="the reference", **NORM_CASE)


@pytest.mark.parametrize(
    ("spec_row", "example"),
    example_params([row("S08.rule.eps-at-zero"), row("S08.rule.eps-at-zero-normal")]),
)
def test_eps_at_zero_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """At x = 0: y = 0, dx = g ⊙ w / sqrt(eps) (eps = 1e-12 amplifies by 1e6), dgain = 0."""
    require(engine, "tensor.rms_norm", spec_row.id)
    inputs, upstream, kwargs = prepared(example)
    assert_hand_case(
        engine.tensor_vjp_with("rms_norm", inputs, upstream, kwargs), example, engine.dtype, **NORM_CASE
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.grad-bound")]))
def test_grad_bound_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """‖dx‖ = 30 = the bound at x = 0 (w = ±3, eps = 0.01); 0.2027 <= 0.25 <= 0.5345 at x = [3, 4]."""
    require(engine, "tensor.rms_norm", spec_row.id)
    (x, gain), upstream, kwargs = prepared(example)
    _, (dx, _) = engine.tensor_vjp_with("rms_norm", [x, gain], upstream, kwargs)
    assert upstream is not None
    scale = float(np.linalg.norm(upstream)) * float(np.max(np.abs(gain)))
    bound = scale / math.sqrt(float(np.mean(x * x)) + kwargs["eps"])
    eps_bound = scale / math.sqrt(kwargs["eps"])
    assert (example["norm"], example["bound"], example["eps_bound"]) == pytest.approx(
        (float(np.linalg.norm(dx)), bound, eps_bound), **tolerance(engine, "example")
    )
    assert example["norm"] <= example["bound"] <= example["eps_bound"]


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.eps-regime")]))
def test_eps_regime_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """eps = 3·ms halves the row (factor 1/2), eps = 1e-17·ms leaves it (factor 1), eps = 1e4·ms shrinks it
    a hundredfold: the value is the eps-free normalization times sqrt(ms / (ms + eps))."""
    require(engine, "tensor.rms_norm", spec_row.id)
    (x, gain), _, kwargs = prepared(example)
    value, _ = engine.tensor_vjp_with("rms_norm", [x, gain], np.ones(x.shape), kwargs)
    ms = float(np.mean(x * x))
    assert example["factor"] == pytest.approx(math.sqrt(ms / (ms + kwargs["eps"])), rel=2 * EPS64)
    assert_engine_gives(np.asarray(example["value"]), value, rel=spec_row["k"] * EPS64, abs=0)


NAIVE = {"unscaled": naive_rms_norm, "eps-outside": eps_outside_rms_norm}


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.stability")]))
def test_stability_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """x = ±1e200 normalizes to ±1 (unscaled squares give 0); 3e-100 is below eps (x / 1e-6, both agree);
    ms = eps = 1e-12 gives 1/√2 (eps outside the sqrt gives 0.999999)."""
    require(engine, "tensor.rms_norm", spec_row.id)
    (x, gain), _, kwargs = prepared(example)
    value, _ = engine.tensor_vjp_with("rms_norm", [x, gain], np.ones(x.shape), kwargs)
    assert_engine_gives(np.asarray(example["value"]), value, rel=spec_row["k"] * EPS64, abs=0)
    naive = NAIVE[example["naive_form"]](x, gain, kwargs["eps"])
    assert_engine_gives(example["naive"], naive, rel=1e-12, gave="the naive form", source="the example")


# the tensor op's failure rows; the block's are in test_stage08_block_golden
TENSOR_FAILURES = [row("S08.fail.eps"), row("S08.fail.eps-type"), row("S08.fail.gain-shape")]


@pytest.mark.spec("S08.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(TENSOR_FAILURES))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each refused hand case raises the row's exception and exact message, with no node created."""
    refuse_with(engine, spec_row, {"op": "rms_norm", **example})

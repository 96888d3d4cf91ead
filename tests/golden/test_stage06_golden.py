"""Stage 06 goldens: the hand-computed examples of the spec rows (x = [0, ln 3] has softmax [1/4, 3/4]),
through the spec's own expressions and through the engine; the refused hand cases."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage06 import (
    EPS64,
    cross_entropy_case,
    excess,
    naive_cross_entropy,
    naive_cross_entropy_grad,
    naive_log_softmax,
    naive_softmax,
    refuse_with,
    softmax_case,
    spec_vjp_with,
)
from contracts.spec_suite.cases.tensor import as_arrays, require_reference
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    assert_hand_case,
    assert_naive_form,
    example_params,
    reference_only,
    require,
    row,
    rows,
    tolerance,
)
from contracts.tensor import Tensor
from contracts.tensor.softmax import cross_entropy

GRADIENT_ROWS = rows(stage="06", kind="gradient")


def prepared(example: dict[str, Any]) -> tuple[list[np.ndarray], np.ndarray | None, dict[str, Any]]:
    inputs = [np.asarray(item, dtype=np.float64) for item in example["inputs"]]
    upstream = example.get("upstream")
    kwargs = dict(example["params"])
    if "targets" in kwargs:
        kwargs["targets"] = np.asarray(kwargs["targets"], dtype=np.int64)
    return inputs, None if upstream is None else np.asarray(upstream, dtype=np.float64), kwargs


@pytest.mark.parametrize(("spec_row", "example"), example_params(GRADIENT_ROWS))
def test_gradient_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case: the spec's expressions and the engine give its value and gradient."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    inputs, upstream, kwargs = prepared(example)
    assert_hand_case(
        spec_vjp_with(spec_row, inputs, upstream, kwargs), example, gave="the spec's expressions"
    )
    assert_hand_case(engine.tensor_vjp_with(spec_row["op"], inputs, upstream, kwargs), example, engine.dtype)


RULE_EXAMPLES = ("S06.rule.max-tie", "S06.rule.shift-path", "S06.rule.finite-logits", "S06.rule.log1p-path")


@pytest.mark.parametrize(("spec_row", "example"), example_params([row(row_id) for row_id in RULE_EXAMPLES]))
def test_rule_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Ties along the axis give everything to the first maximum; logits of ±1000 give finite exact values;
    logsumexp([0, -40]) keeps e^-40."""
    require(engine, f"tensor.{example['op']}", spec_row.id)
    inputs, upstream, kwargs = prepared(example)
    value, grads = engine.tensor_vjp_with(example["op"], inputs, upstream, kwargs)
    assert_hand_case((value, grads), example, engine.dtype)
    # a hand case's value is judged relatively too (logsumexp([0, -40]) = 4.2e-18 is below abs 1e-12)
    shaped = value.reshape(np.shape(example["value"]))
    assert_engine_gives(np.asarray(example["value"]), shaped, **tolerance(engine, "example"), what="value")


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S06.rule.targets-owned")]))
def test_targets_owned_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """x = (0, 1, 2), target 0, then the caller writes 2 into its targets: the loss and gradient of 0."""
    require_reference(engine, spec_row.id)
    (logits,) = as_arrays(example["inputs"])
    targets = np.asarray(example["targets"], dtype=np.int64)
    rewritten, classes = example["rewritten"], logits.shape[-1]
    # a rewrite that proves something: other valid classes (read late, they would change the gradient)
    assert [True] * len(rewritten) == [
        0 <= r < classes and r != t for r, t in zip(rewritten, targets, strict=True)
    ]
    x = Tensor(logits, requires_grad=True)
    loss = cross_entropy(x, targets)
    targets[...] = rewritten
    loss.backward()
    assert_engine_gives(example["value"], float(loss.data), rel=1e-15, abs=1e-12, what="loss")
    assert_engine_gives(
        np.ravel(example["grads"]["x"]), np.ravel(x.grad), rel=1e-15, abs=1e-12, what="∂loss/∂x"
    )


NAIVE_FORWARD = {
    "softmax": lambda x, t: naive_softmax(x, 0),
    "log_softmax": lambda x, t: naive_log_softmax(x, 0),
    "cross_entropy": naive_cross_entropy,
}


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S06.rule.forward-error")]))
def test_forward_error_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """log_softmax([0, −40])[0] = −4.25e-18 and CE of a 40-logit margin (log(1 + δ) keeps δ via log1p),
    softmax([800, 0]) = [1, 0]: the engine within the bound; the naive composition gives the example's
    wrong value (0 or nan), outside it."""
    require(engine, f"tensor.{example['op']}", spec_row.id)
    inputs, _, kwargs = prepared(example)
    (x,) = inputs
    exact = np.asarray(example["exact"])
    upstream = np.ones(x.shape) if example["op"] != "cross_entropy" else None
    value, _ = engine.tensor_vjp_with(example["op"], inputs, upstream, kwargs)
    assert_engine_gives(exact, value, rel=4 * EPS64, abs=0)
    naive = NAIVE_FORWARD[example["op"]](x, kwargs.get("targets"))
    assert_naive_form(example["naive"], naive)
    oracle = (
        cross_entropy_case(x, kwargs["targets"], 1.0)
        if example["op"] == "cross_entropy"
        else {op: (v.T, sc.T) for op, (v, sc) in softmax_case(x[np.newaxis], 1, np.ones((1, x.size))).items()}
    )
    exact_value, scale = oracle[example["op"]]
    assert (True, False) == (
        excess(value, exact_value.reshape(value.shape), scale.reshape(value.shape), spec_row["k"]) <= 1,
        excess(naive, exact_value.reshape(value.shape), scale.reshape(value.shape), spec_row["k"]) <= 1,
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S06.rule.grad-error")]))
def test_grad_error_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The CE gradient at an 800-logit margin is exactly [0, 0] (naive: nan); logsumexp's gradient at
    [1e4, 1e4 − 1] is [1/(1 + e^-1), e^-1/(1 + e^-1)], within 16·ε64 of it."""
    require(engine, f"tensor.{example['op']}", spec_row.id)
    inputs, _, kwargs = prepared(example)
    _, (grad,) = engine.tensor_vjp_with(example["op"], inputs, None, kwargs)
    exact = np.asarray(example["exact"])
    assert_engine_gives(exact, grad, rel=spec_row["k"] * EPS64, abs=0)
    if "naive" in example:
        naive = naive_cross_entropy_grad(inputs[0], kwargs["targets"])
        assert_naive_form(example["naive"], naive)


@pytest.mark.spec("S06.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="06", kind="failure")))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each refused hand case raises the row's exception and exact message, with no node created."""
    refuse_with(engine, spec_row, example)

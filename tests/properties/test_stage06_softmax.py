"""Stage 06 properties: reductions and the softmax family against the spec rows, central differences,
the tie rule, the x − max path, and refusals before any node."""

from __future__ import annotations

import math
from typing import Any

import array_api_strict
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.core.errors import ShapeError
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage06 import refuse_with, spec_vjp_with
from contracts.spec_suite.cases.tensor import RecordingNamespace, assert_second_call_gives, require_reference
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    held_array,
    params,
    reference_only,
    require,
    require_float64,
    row,
    rows,
    tolerance,
)
from contracts.tensor import Tensor
from contracts.tensor.engine_ops import reference_tensor_vjp_with
from contracts.tensor.reductions import Max, Sum
from contracts.tensor.softmax import LogSumExp, Softmax, cross_entropy

GRADIENT_ROWS = rows(stage="06", kind="gradient")
GRADIENT_OF = {spec_row["op"]: spec_row for spec_row in GRADIENT_ROWS}
KEEPDIMS_OPS = ("sum", "max", "logsumexp")  # the others keep x's shape
STEP = 1e-6


def draw_case(
    data: st.DataObject, spec_row: SpecRow
) -> tuple[list[np.ndarray], np.ndarray | None, dict[str, Any]]:
    """(inputs, upstream, params) for the row's op, x from the row's domain and its parameter (axis, or
    the targets t) from its constants: max keeps its maximum unique (ties: S06.rule.max-tie)."""
    op, elements = spec_row["op"], s.row_domain(spec_row, "x")
    if op == "cross_entropy":
        case = data.draw(s.ce_case(elements, s.row_domain(spec_row, "t")))
        seeded = data.draw(st.booleans())
        upstream = None if seeded else np.asarray(data.draw(st.floats(-2, 2)))
        return [case["x"]], upstream, {"targets": case["targets"]}
    strategy = s.axis_case(elements, s.row_domain(spec_row, "axis"))
    if op == "max":
        strategy = strategy.filter(s.distinct_max)
    case = data.draw(strategy)
    x, axis = case["x"], case["axis"]
    if op in KEEPDIMS_OPS:
        keepdims = case["keepdims"]
        upstream = case["upstream"] if keepdims else np.squeeze(case["upstream"], axis=axis)
        return [x], upstream, {"axis": axis, "keepdims": keepdims}
    return [x], data.draw(s.float_arrays(x.shape, st.floats(-2, 2))), {"axis": axis}


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_value_and_gradients_match_spec(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """The forward (in the op's output shape) and the VJP equal the row's expressions."""
    op = spec_row["op"]
    require(engine, f"tensor.{op}", spec_row.id)
    inputs, upstream, kwargs = draw_case(data, spec_row)
    expected_value, expected_grads = spec_vjp_with(spec_row, inputs, upstream, kwargs)
    value, grads = engine.tensor_vjp_with(op, inputs, upstream, kwargs)
    expected_shape = upstream.shape if upstream is not None else ()
    assert (expected_shape, [x.shape for x in inputs]) == (value.shape, [g.shape for g in grads])
    assert_engine_gives(expected_value.reshape(value.shape), value, **tolerance(engine, "value"))
    for expected, actual in zip(expected_grads, grads, strict=True):
        assert_engine_gives(expected, actual, **tolerance(engine, "gradient"))


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_each_call_gets_the_gradients_of_its_own_upstream(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """Called on the same inputs first with another upstream (2g + 1), then with g: the second call's VJP
    is the spec's for g (no state kept between calls, e.g. a cache keyed on the inputs alone)."""
    op = spec_row["op"]
    require(engine, f"tensor.{op}", spec_row.id)
    inputs, upstream, kwargs = draw_case(data, spec_row)
    _, expected_grads = spec_vjp_with(spec_row, inputs, upstream, kwargs)

    def vjp(g: np.ndarray | None) -> tuple[Any, tuple[Any, ...]]:
        return engine.tensor_vjp_with(op, inputs, g, kwargs)

    assert_second_call_gives(engine, vjp, upstream, expected_grads)


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_gradients_match_central_differences(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Along a random direction d, d/dt ⟨u, f(x + t d)⟩ by central differences equals ⟨grad, d⟩."""
    op = spec_row["op"]
    require(engine, f"tensor.{op}", spec_row.id)
    inputs, upstream, kwargs = draw_case(data, spec_row)
    direction = data.draw(s.directions([x.shape for x in inputs]))
    _, grads = engine.tensor_vjp_with(op, inputs, upstream, kwargs)
    weights = np.ones(()) if upstream is None else upstream

    def loss(t: float) -> float:
        moved = [x + t * d for x, d in zip(inputs, direction, strict=True)]
        value, _ = spec_vjp_with(spec_row, moved, upstream, kwargs)
        return float(np.sum(weights * value.reshape(weights.shape)))

    numeric = (loss(STEP) - loss(-STEP)) / (2 * STEP)
    analytic = sum(float(np.sum(grad * d)) for grad, d in zip(grads, direction, strict=True))
    assert numeric == pytest.approx(analytic, **tolerance(engine, "central"))


@reference_only(OWN_TYPES)
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_ops_over_array_api_strict(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Over array_api_strict (its functions asked for, not numpy's) the reference gives the spec's values
    and gradients."""
    require_reference(engine, spec_row.id)
    inputs, upstream, kwargs = draw_case(data, spec_row)
    expected_value, expected_grads = spec_vjp_with(spec_row, inputs, upstream, kwargs)
    if "targets" in kwargs:
        kwargs = {"targets": array_api_strict.asarray(kwargs["targets"])}
    space = RecordingNamespace(array_api_strict)
    value, grads = reference_tensor_vjp_with(spec_row["op"], inputs, upstream, kwargs, xp=space)
    assert set() != space.operations()  # the op ran over array_api_strict, not numpy
    assert_engine_gives(expected_value.reshape(value.shape), value, rel=1e-12, abs=1e-12)
    for expected, actual in zip(expected_grads, grads, strict=True):
        assert_engine_gives(expected, actual, rel=1e-9, abs=1e-12)


@pytest.mark.spec("S06.rule.max-tie")
@given(data=st.data())
def test_max_tie_goes_to_the_first_maximal_element(engine: Engine, data: st.DataObject) -> None:
    """With repeated maxima along the axis, the whole upstream goes to the lowest index, 0 to the rest."""
    require(engine, "tensor.max", "S06.rule.max-tie")
    case = data.draw(s.axis_case(st.integers(-2, 2).map(float)))
    x, axis = case["x"], case["axis"]
    _, (grad,) = engine.tensor_vjp_with("max", [x], case["upstream"], {"axis": axis, "keepdims": True})
    moved_x = np.moveaxis(x, axis, -1)
    expected = np.zeros(moved_x.shape)
    g = np.moveaxis(np.broadcast_to(held_array(engine, case["upstream"]), x.shape), axis, -1)
    for index in np.ndindex(moved_x.shape[:-1]):
        first = int(np.flatnonzero(moved_x[index] == moved_x[index].max())[0])
        expected[(*index, first)] = g[(*index, first)]
    assert np.moveaxis(expected, -1, axis).tolist() == grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.spec("S06.rule.targets-owned")
@given(case=s.ce_case(), data=st.data())
def test_targets_changed_after_the_forward_change_nothing(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Whatever the caller writes into its targets array after the forward, the loss and backward's
    gradient are those of the targets the forward checked (S06.grad.cross-entropy's expressions)."""
    require_reference(engine, "S06.rule.targets-owned")
    logits, targets = case["x"], np.array(case["targets"], dtype=np.int64)
    kept = targets.copy()
    x = Tensor(logits, requires_grad=True)
    loss = cross_entropy(x, targets)
    value = float(loss.data)
    classes = logits.shape[-1]
    targets[...] = data.draw(hnp.arrays(np.int64, targets.shape, elements=st.integers(0, classes - 1)))
    loss.backward()
    spec_value, (spec_grad,) = spec_vjp_with(row("S06.grad.cross-entropy"), [logits], None, {"targets": kept})
    assert_engine_gives(float(spec_value), value, rel=1e-12, abs=1e-12, what="loss")
    assert_engine_gives(np.ravel(spec_grad), np.ravel(x.grad), rel=1e-9, abs=1e-12, what="∂loss/∂x")


@pytest.mark.spec("S06.rule.shift-path")
@given(data=st.data())
def test_softmax_of_huge_logits_is_the_shifted_expression(engine: Engine, data: st.DataObject) -> None:
    """Logits up to ±1e300 (exp(x) overflows from 710): softmax and its VJP are finite and equal the spec's
    expressions, which divide exp(x − max) by its sum."""
    require(engine, "tensor.softmax", "S06.rule.shift-path")
    require_float64(engine, "logits up to ±1e300 are beyond a coarser dtype's range")
    inputs, upstream, kwargs = draw_case(data, GRADIENT_OF["softmax"])
    inputs = [data.draw(s.float_arrays(inputs[0].shape, st.floats(-1e300, 1e300)))]
    expected_value, (expected_grad,) = spec_vjp_with(GRADIENT_OF["softmax"], inputs, upstream, kwargs)
    value, (grad,) = engine.tensor_vjp_with("softmax", inputs, upstream, kwargs)
    assert (True, True) == (bool(np.all(np.isfinite(value))), bool(np.all(np.isfinite(grad))))
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"))
    assert_engine_gives(expected_grad, grad, **tolerance(engine, "gradient"))


@pytest.mark.spec("S06.rule.finite-logits")
@pytest.mark.parametrize("op", ["logsumexp", "softmax", "log_softmax", "cross_entropy"])
@given(data=st.data())
def test_huge_logits_give_finite_values_and_gradients(engine: Engine, op: str, data: st.DataObject) -> None:
    """Logits up to ±1e300 (exp(x) overflows from 710): every value and gradient is finite, softmax sums
    to 1 and lies in [0, 1], and log_softmax <= 0."""
    require(engine, f"tensor.{op}", "S06.rule.finite-logits")
    require_float64(engine, "logits up to ±1e300 are beyond a coarser dtype's range")
    huge = st.floats(-1e300, 1e300)
    inputs, upstream, kwargs = draw_case(data, GRADIENT_OF[op])
    inputs = [data.draw(s.float_arrays(inputs[0].shape, huge))]
    value, (grad,) = engine.tensor_vjp_with(op, inputs, upstream, kwargs)
    assert (True, True) == (bool(np.all(np.isfinite(value))), bool(np.all(np.isfinite(grad))))
    if op == "softmax":
        total = np.sum(value, axis=kwargs["axis"])
        assert_engine_gives(np.ones(total.shape), total, rel=1e-12, abs=1e-12, what="softmax's sum")
        assert (True, True) == (bool(np.all(value >= 0)), bool(np.all(value <= 1)))
    if op == "log_softmax":
        assert bool(np.all(value <= 0))


def log1p_of_tail(tail: list[float]) -> float:
    """log1p of the tail's exp sum, summed exactly: the log family's term beside the maximum 0."""
    return math.log1p(math.fsum(math.exp(z) for z in tail))


# what each op gives on [0, *tail] (target 0): logsumexp, log_softmax's first element, cross_entropy
TAIL_VALUE = {
    "logsumexp": lambda value: float(value),
    "log_softmax": lambda value: -float(value[0]),
    "cross_entropy": lambda value: float(value),
}


@pytest.mark.spec("S06.rule.log1p-path")
@pytest.mark.parametrize("op", sorted(TAIL_VALUE))
@given(tail=st.lists(st.floats(-700, -37), min_size=1, max_size=5))
def test_a_tail_below_epsilon_is_kept(engine: Engine, op: str, tail: list[float]) -> None:
    """Logits [0, z...] with every exp(z) below ε64: the log family gives log1p(Σ exp(z)) to 1e-12, not the
    0 that log(1 + Σ exp(z)) rounds to."""
    require(engine, f"tensor.{op}", "S06.rule.log1p-path")
    require_float64(engine, "a tail below eps64 is below a coarser dtype's resolution")
    x = np.asarray([0.0, *tail])
    kwargs: dict[str, Any] = {"targets": np.asarray(0)} if op == "cross_entropy" else {"axis": 0}
    upstream = None if op != "log_softmax" else np.zeros(x.shape)
    value, _ = engine.tensor_vjp_with(op, [x], upstream, kwargs)
    assert_engine_gives(
        log1p_of_tail(tail), TAIL_VALUE[op](value), rel=1e-12, what=op, source="log1p(Σ exp(z))"
    )


FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S06.fail.axis": s.axis_out_of_range(),
    "S06.fail.axis-type": s.axis_of_wrong_type(),
    "S06.fail.empty-axis": s.empty_axis(),
    "S06.fail.target-dtype": s.bad_targets("dtype"),
    "S06.fail.target-range": s.bad_targets("range"),
    "S06.fail.target-shape": s.bad_targets("shape"),
}


@pytest.mark.spec("S06.rule.messages")
@pytest.mark.parametrize("spec_row", params(rows(stage="06", kind="failure")))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad axis or target raises the row's exception and message, with no node created."""
    refuse_with(engine, spec_row, data.draw(FAILURE_CASES[spec_row.id]))


def test_failure_rows_all_have_generators() -> None:
    """No Stage 06 failure row is left without a generator of its bad input."""
    assert {r.id for r in rows(stage="06", kind="failure")} == set(FAILURE_CASES)


@pytest.mark.spec("S06.fail.target-range")
@given(case=s.bad_targets("range"))
def test_target_range_message_counts_and_names_extremes(engine: Engine, case: dict[str, Any]) -> None:
    """The refusal names the class count, how many targets are outside, and the smallest and largest."""
    require(engine, "tensor.param-errors", "S06.fail.target-range")
    targets = case["params"]["targets"]
    classes = case["inputs"][0].shape[-1]
    outside = int(np.sum((targets < 0) | (targets >= classes)))
    message = (
        f"cross_entropy: targets must be class indices in [0, {classes}), got {outside} outside, "
        f"the smallest {int(targets.min())} and the largest {int(targets.max())}"
    )
    with pytest.raises(IndexError) as raised:
        engine.tensor_vjp_with("cross_entropy", case["inputs"], None, case["params"])
    assert message == str(raised.value)


@pytest.mark.spec("S06.fail.axis", "S06.fail.empty-axis")
@given(case=s.axis_case())
def test_every_valid_axis_is_accepted(engine: Engine, case: dict[str, Any]) -> None:
    """The boundary: every axis in [-ndim, ndim) of a non-empty input is accepted by every axis op."""
    require(engine, "tensor.param-errors", "S06.fail.axis")
    x, axis = case["x"], case["axis"]
    for op in s.AXIS_OPS:
        kept = op in ("softmax", "log_softmax")
        upstream = np.ones(x.shape) if kept else np.squeeze(np.ones(case["kept"]), axis=axis)
        _, (grad,) = engine.tensor_vjp_with(op, [x], upstream, {"axis": axis})
        assert x.shape == grad.shape


@reference_only("it checks the spec rows' own constants against the tests' parameters, not an engine")
@pytest.mark.spec("S06.grad.cross-entropy")
def test_row_constants_name_the_op_parameters() -> None:
    """The spec rows' constants are exactly the parameters the tests pass (axis, or targets as t)."""
    assert {"t"} == set(row("S06.grad.cross-entropy")["constants"])
    assert [{"axis"}] * 5 == [set(r["constants"]) for r in GRADIENT_ROWS if r["op"] != "cross_entropy"]


@pytest.mark.spec("S06.fail.empty-axis")
@pytest.mark.parametrize("shape", [(0, 3), (2, 0, 3), (0, 2, 3), (1, 2, 0, 2)])
def test_cross_entropy_refuses_every_empty_batch_axis(engine: Engine, shape: tuple[int, ...]) -> None:
    """An empty batch axis anywhere (the mean would have no element) is refused, naming that axis."""
    require(engine, "tensor.param-errors", "S06.fail.empty-axis")
    empty = shape.index(0)
    message = f"cross_entropy: axis {empty} of shape {shape} is empty (size 0); it needs an element"
    with pytest.raises(ShapeError) as raised:
        engine.tensor_vjp_with(
            "cross_entropy", [np.ones(shape)], None, {"targets": np.zeros(shape[:-1], int)}
        )
    assert message == str(raised.value)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S06.grad.sum", "S06.grad.max", "S06.grad.logsumexp", "S06.grad.softmax")
@given(case=s.axis_case())
def test_out_shape_is_the_result_shape(engine: Engine, case: dict[str, Any]) -> None:
    """Each axis op's shape rule (checked before any node) gives the shape its forward produces."""
    require_reference(engine, "S06.grad.sum")
    x, axis, keepdims = case["x"], case["axis"], case["keepdims"]
    for op in (Sum(axis, keepdims), Max(axis, keepdims), LogSumExp(axis, keepdims), Softmax(axis)):
        assert op.forward(np, x).shape == op.out_shape(x.shape)

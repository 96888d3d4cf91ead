"""Stage T properties: tensor op gradients against the spec, central differences, Value, and numpy's rules."""

from __future__ import annotations

from typing import Any

import array_api_strict
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.tensor import (
    GRADIENT_ROWS,
    RecordingNamespace,
    assert_second_call_gives,
    gradient_row,
    require_reference,
    spec_forward,
    spec_vjp,
    sum_to_shape,
    value_vjp,
)
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    held_array,
    params,
    reference_only,
    require,
    row,
    tolerance,
)
from contracts.tensor import reduce_to_shape
from contracts.tensor.engine_ops import reference_tensor_vjp

STEP = 1e-5
BINARY_OPS = ("add", "multiply", "maximum", "matmul")
TIE_OPS = ("maximum", "relu")  # their ties (and relu at 0) belong to T.rule.tie, not to the gradient rows


def draw_case(data: st.DataObject, spec_row: SpecRow, smooth: bool = False) -> dict[str, Any]:
    """A case for the row; maximum and relu always keep their inputs apart (no ties, no x = 0)."""
    tie_free = smooth or spec_row["op"] in TIE_OPS
    case: dict[str, Any] = data.draw(s.tensor_case(spec_row["op"], spec_row["domain"], tie_free))
    return case


@pytest.mark.spec("T.rule.broadcast-reduction")
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_every_gradient_has_its_input_shape(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Each gradient has exactly its input's shape; the output has numpy's broadcast (or matmul) shape."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    case = draw_case(data, spec_row)
    value, grads = engine.tensor_vjp(spec_row["op"], case["inputs"], case["upstream"])
    assert [x.shape for x in case["inputs"]] == [grad.shape for grad in grads]
    assert case["upstream"].shape == value.shape
    assert [np.float64] * (len(grads) + 1) == [value.dtype.type, *(grad.dtype.type for grad in grads)]


@pytest.mark.spec("T.rule.grad-ownership")
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_engine_backward_writes_neither_the_upstream_nor_an_input(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """The engine's VJP leaves the upstream it is given, and every input's data, exactly as they were."""
    require(engine, f"tensor.{spec_row['op']}", "T.rule.grad-ownership")
    case = draw_case(data, spec_row)
    inputs, upstream = case["inputs"], case["upstream"]
    before = ([x.tolist() for x in inputs], upstream.tolist())
    engine.tensor_vjp(spec_row["op"], inputs, upstream)
    assert before == ([x.tolist() for x in inputs], upstream.tolist())


def engine_leaf_grads(engine: Engine, graph: Any) -> list[np.ndarray]:
    """Copies of every leaf's .grad now, read through the adapter (None: no gradient written)."""
    grads = engine.tensor_grads(graph)
    assert all(grad is not None for grad in grads), f"a leaf got no gradient: {grads}"
    return [np.array(grad, copy=True) for grad in grads]


@pytest.mark.spec("T.rule.grad-ownership")
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_engine_leaf_gradients_share_no_memory_with_the_upstream(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """After backward, writing into the caller's upstream array changes no leaf's .grad (each leaf owns
    its gradient: add's gradient is the upstream itself, and an engine that stores that very array as
    a leaf's grad hands the caller's writes into it)."""
    require(engine, "tensor.refusals", "T.rule.grad-ownership")
    case = draw_case(data, spec_row)
    inputs, upstream = case["inputs"], np.array(case["upstream"], copy=True)
    graph = engine.tensor_graph(spec_row["op"], inputs, requires_grad=True)
    engine.tensor_backward(graph, upstream)
    before = engine_leaf_grads(engine, graph)
    upstream[...] = 1e3
    assert [grad.tolist() for grad in before] == [grad.tolist() for grad in engine_leaf_grads(engine, graph)]


@pytest.mark.spec("T.rule.forward-data")
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_engine_backward_reads_the_data_its_forward_used(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """The caller's input arrays rewritten between the forward and backward (x -> 2x + 1) change nothing:
    the gradients are the spec's at the data the forward used (an engine that keeps the caller's array,
    as torch.from_numpy does, computes the rewritten data's)."""
    require(engine, "tensor.refusals", "T.rule.forward-data")
    case = draw_case(data, spec_row)
    inputs = [np.array(x, copy=True) for x in case["inputs"]]
    _, expected_grads = spec_vjp(spec_row, case["inputs"], case["upstream"])
    graph = engine.tensor_graph(spec_row["op"], inputs, requires_grad=True)
    for x in inputs:
        x[...] = 2 * x + 1
    engine.tensor_backward(graph, case["upstream"])
    for expected, actual in zip(expected_grads, engine_leaf_grads(engine, graph), strict=True):
        assert_engine_gives(expected, actual, **tolerance(engine, "gradient"))


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_value_and_gradients_match_spec(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Forward and every VJP equal the spec row's expressions, summed explicitly over the broadcast axes."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    case = draw_case(data, spec_row)
    expected_value, expected_grads = spec_vjp(spec_row, case["inputs"], case["upstream"])
    value, grads = engine.tensor_vjp(spec_row["op"], case["inputs"], case["upstream"])
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"), what="value")
    for index, (expected, actual) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(
            expected, actual, **tolerance(engine, "gradient"), what=f"gradient of input {index}"
        )


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_each_call_gets_the_gradients_of_its_own_upstream(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """Called on the same inputs first with another upstream (2g + 1), then with g: the second call's VJP
    is the spec's for g (no state kept between calls, e.g. a cache keyed on the inputs alone)."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    case = draw_case(data, spec_row)
    _, expected_grads = spec_vjp(spec_row, case["inputs"], case["upstream"])

    def vjp(upstream: np.ndarray | None) -> tuple[Any, tuple[Any, ...]]:
        return engine.tensor_vjp(spec_row["op"], case["inputs"], upstream)

    assert_second_call_gives(engine, vjp, case["upstream"], expected_grads)


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_gradients_match_central_differences(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Along a random direction d, d/dt sum(u * f(x + t d)) (central differences) equals sum(grad * d)."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    case = draw_case(data, spec_row, smooth=True)
    inputs, upstream = case["inputs"], case["upstream"]
    direction = data.draw(s.directions([x.shape for x in inputs]))
    _, grads = engine.tensor_vjp(spec_row["op"], inputs, upstream)

    def loss(t: float) -> float:
        moved = [x + t * d for x, d in zip(inputs, direction, strict=True)]
        return float(np.sum(upstream * spec_forward(spec_row, moved)))

    numeric = (loss(STEP) - loss(-STEP)) / (2 * STEP)
    analytic = sum(float(np.sum(grad * d)) for grad, d in zip(grads, direction, strict=True))
    assert_engine_gives(
        numeric, analytic, **tolerance(engine, "central"), what="sum(grad * d)", source="central difference"
    )


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_matches_the_value_engine_elementwise(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """The same computation done element by element with the scalar Value engine gives equal results."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    case = draw_case(data, spec_row, smooth=True)
    expected_value, expected_grads = value_vjp(spec_row["op"], case["inputs"], case["upstream"])
    value, grads = engine.tensor_vjp(spec_row["op"], case["inputs"], case["upstream"])
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"), what="value")
    for index, (expected, actual) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(
            expected, actual, **tolerance(engine, "gradient"), what=f"gradient of input {index}"
        )


@pytest.mark.spec("T.rule.constant-leaf")
@pytest.mark.parametrize("op", BINARY_OPS)
@given(data=st.data(), constant=st.sampled_from((0, 1)))
def test_a_constant_operand_gets_no_gradient(
    engine: Engine, op: str, data: st.DataObject, constant: int
) -> None:
    """With one operand built requiring no grad, backward leaves that operand's .grad None and gives the
    other the spec's VJP (the one it gets when both require grad)."""
    require(engine, "tensor.constants", "T.rule.constant-leaf")
    spec_row = gradient_row(op)
    case = draw_case(data, spec_row)
    variable = 1 - constant
    flags = tuple(index == variable for index in range(2))
    graph = engine.tensor_graph(op, case["inputs"], requires_grad=flags)
    engine.tensor_backward(graph, case["upstream"])
    _, expected = spec_vjp(spec_row, case["inputs"], case["upstream"])
    grads = engine.tensor_grads(graph)
    assert grads[constant] is None, f"the constant operand {constant} got a .grad: {grads[constant]}"
    assert_engine_gives(
        expected[variable],
        grads[variable],
        **tolerance(engine, "gradient"),
        what=f"gradient of input {variable}",
    )


@pytest.mark.spec("T.rule.broadcast-reduction")
@pytest.mark.parametrize("op", BINARY_OPS)
@given(data=st.data())
def test_broadcast_gradient_is_the_explicit_sum(engine: Engine, op: str, data: st.DataObject) -> None:
    """A broadcast input's gradient is its pre-broadcast copy's gradient summed over the broadcast axes."""
    spec_row = gradient_row(op)
    require(engine, f"tensor.{op}", "T.rule.broadcast-reduction")
    case = draw_case(data, spec_row)
    inputs, upstream = case["inputs"], case["upstream"]
    if op == "matmul":  # copy batch axes only; a 1-D operand has none (expanding it would change its meaning)
        batch = np.broadcast_shapes(*(x.shape[:-2] for x in inputs if x.ndim >= 2))
        expanded = [np.broadcast_to(x, batch + x.shape[-2:]).copy() if x.ndim >= 2 else x for x in inputs]
    else:
        frame = np.broadcast_shapes(*(x.shape for x in inputs))
        expanded = [np.broadcast_to(x, frame).copy() for x in inputs]
    _, frame_grads = engine.tensor_vjp(op, expanded, upstream)
    _, grads = engine.tensor_vjp(op, inputs, upstream)
    for x, frame_grad, grad in zip(inputs, frame_grads, grads, strict=True):
        expected = sum_to_shape(frame_grad, x.shape)
        assert_engine_gives(
            expected, grad, **tolerance(engine, "value"), what="reduced gradient", source="explicit sum"
        )


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.broadcast-reduction")
@pytest.mark.parametrize("xp", [np, array_api_strict], ids=["numpy", "array_api_strict"])
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=1, max_dims=s.TENSOR_DIMS, max_side=s.TENSOR_SIDE),
    data=st.data(),
)
def test_shared_reducer_is_the_explicit_sum(
    engine: Engine, xp: Any, shapes: hnp.BroadcastableShapes, data: st.DataObject
) -> None:
    """The one shared reducer sums exactly the axes the explicit sum does, in any namespace."""
    require_reference(engine, "T.rule.broadcast-reduction")
    (shape,) = shapes.input_shapes
    frame = data.draw(hnp.broadcastable_shapes(shape, max_dims=s.TENSOR_DIMS, max_side=s.TENSOR_SIDE))
    frame = np.broadcast_shapes(shape, frame)
    grad = data.draw(s.float_arrays(frame, st.floats(-4, 4)))
    expected = sum_to_shape(grad, shape)
    assert expected == pytest.approx(np.asarray(reduce_to_shape(xp, xp.asarray(grad), shape)), rel=1e-12)


@pytest.mark.spec("S03.rule.relu-subnormal")
@given(data=st.data())
def test_engine_relu_steps_at_subnormal_magnitudes(engine: Engine, data: st.DataObject) -> None:
    """relu away from 0 however close: x = ±5e-324 ... ±1e-300 (subnormals among them) gives x or 0 and
    the gradient g or 0 exactly (a mask computed in a coarser type, where they round to 0, gives 0 for a
    positive x); at the numbers a coarser-dtype engine holds, its own 0s are T.rule.tie's."""
    require(engine, "tensor.relu", "S03.rule.relu-subnormal")
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=3))
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.one_of(s.tiny, s.tiny.map(lambda v: -v))))
    upstream = data.draw(s.float_arrays(shape, st.floats(0.5, 2)))
    value, (grad,) = engine.tensor_vjp("relu", [x], upstream)
    held, g = held_array(engine, x), held_array(engine, upstream)
    assert (np.where(held > 0, held, 0.0).tolist(), np.where(held > 0, g, 0.0).tolist()) == (
        value.tolist(),
        grad.tolist(),
    )


def tie_at_maximum(engine: Engine, data: st.DataObject) -> None:
    """Wherever a == b, d maximum / da is exactly the upstream and d maximum / db exactly 0."""
    case = data.draw(s.tied_pair())
    tie = case["tie"]
    _, (grad_a, grad_b) = engine.tensor_vjp("maximum", [case["a"], case["b"]], case["upstream"])
    assert held_array(engine, case["upstream"])[tie].tolist() == grad_a[tie].tolist()
    assert [0.0] * int(tie.sum()) == grad_b[tie].tolist()


def tie_at_relu(engine: Engine, data: st.DataObject) -> None:
    """relu = maximum(0, x) at x = 0 (and -0.0) is 0 with gradient exactly 0: the tie goes to the 0."""
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=s.TENSOR_DIMS, max_side=s.TENSOR_SIDE))
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from([0.0, -0.0])))
    upstream = data.draw(s.float_arrays(x.shape, st.floats(-2, 2).filter(lambda u: u != 0)))
    value, (grad,) = engine.tensor_vjp("relu", [x], upstream)
    assert ([0.0] * x.size, [0.0] * x.size) == (value.ravel().tolist(), grad.ravel().tolist())


# T.rule.tie's cases, each checked through the op it names: the test is parametrized from the row's
# `cases`, so a case the spec adds without a check here fails instead of going unchecked
TIE_CHECKS = {"maximum": ("tensor.maximum", tie_at_maximum), "relu": ("tensor.relu", tie_at_relu)}


@pytest.mark.spec("T.rule.tie")
@pytest.mark.parametrize("case_id", list(row("T.rule.tie")["cases"]))
@given(data=st.data())
def test_each_tie_case_holds(engine: Engine, case_id: str, data: st.DataObject) -> None:
    """Each case T.rule.tie lists holds on the engine: maximum's tie goes wholly to a, relu's gradient at
    0 is 0 (a convention for one case leaves the other running)."""
    assert case_id in TIE_CHECKS, f"T.rule.tie lists case {case_id!r} and no property checks it"
    capability, check = TIE_CHECKS[case_id]
    require(engine, capability, "T.rule.tie", case=case_id)
    check(engine, data)


@pytest.mark.spec("T.rule.matmul-promotion")
@given(data=st.data())
def test_one_dimensional_matmul_follows_numpy_promotion(engine: Engine, data: st.DataObject) -> None:
    """With a 1-D operand: numpy's result, and gradients of the promoted operands with the axis dropped."""
    require(engine, "tensor.matmul", "T.rule.matmul-promotion")
    spec_row = gradient_row("matmul")
    case = data.draw(
        s.tensor_case("matmul", spec_row["domain"]).filter(lambda c: min(x.ndim for x in c["inputs"]) == 1)
    )
    a, b = case["inputs"]
    value, grads = engine.tensor_vjp("matmul", [a, b], case["upstream"])
    expected_value, expected_grads = spec_vjp(spec_row, [a, b], case["upstream"])
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"), what="value")
    assert [a.shape, b.shape] == [grad.shape for grad in grads]
    for index, (expected, actual) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(
            expected, actual, **tolerance(engine, "gradient"), what=f"gradient of input {index}"
        )


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.namespace")
@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_ops_over_array_api_strict(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Over array_api_strict the reference computes there and gives the spec's values and gradients, as
    numpy arrays (the adapter protocol's type)."""
    require_reference(engine, "T.rule.namespace")
    case = draw_case(data, spec_row)
    expected_value, expected_grads = spec_vjp(spec_row, case["inputs"], case["upstream"])
    xp = RecordingNamespace(array_api_strict)
    value, grads = reference_tensor_vjp(spec_row["op"], case["inputs"], case["upstream"], xp=xp)
    assert {"asarray", "isdtype", "astype", "sum"} <= xp.asked  # leaves, checks and backward ran in xp
    assert [np.ndarray] * (len(grads) + 1) == [type(array) for array in (value, *grads)]  # as numpy
    assert_engine_gives(expected_value, value, **tolerance(engine, "value"), what="value")
    for index, (expected, actual) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(
            expected, actual, **tolerance(engine, "gradient"), what=f"gradient of input {index}"
        )

"""Stage T goldens: every tensor example the spec rows hold (the seed's formulas on hand cases, Stage 05's
matmul), through the spec's own expressions and through the engine."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import array_api_strict
import numpy as np
import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.tensor import (
    GRADIENT_ROWS,
    OPS,
    as_arrays,
    assert_tensor_refused,
    chain,
    gradient_row,
    refused_by_reference_only,
    require_reference,
    spec_vjp,
)
from contracts.spec_suite.spec_rows import (
    FLOAT64,
    OWN_TYPES,
    TOLERANCE_ROW,
    Tolerance,
    assert_engine_gives,
    example_params,
    reference_only,
    require,
    row,
    rows,
    tolerance,
    tolerance_for,
)
from contracts.tensor import Tensor, add, multiply, summed_axes
from contracts.tensor.engine_ops import reference_tensor_vjp

NAMESPACES = {"numpy": np, "array_api_strict": array_api_strict}


def upstream_of(example: dict[str, Any]) -> np.ndarray | None:
    upstream = example.get("upstream")
    return None if upstream is None else np.asarray(upstream, dtype=np.float64)


def expected_of(spec_row: SpecRow, example: dict[str, Any]) -> tuple[np.ndarray, list[np.ndarray]]:
    grads = [np.asarray(example["grads"][name], dtype=np.float64) for name in spec_row["domain"]]
    return np.asarray(example["value"], dtype=np.float64), grads


FLOAT64_EXAMPLE = tolerance_for(FLOAT64, "example")  # the spec's own expressions and the reference


def assert_example(
    actual: tuple[np.ndarray, tuple[np.ndarray, ...]],
    spec_row: SpecRow,
    example: Any,
    within: Tolerance = FLOAT64_EXAMPLE,
) -> None:
    expected_value, expected_grads = expected_of(spec_row, example)
    value, grads = actual
    assert_engine_gives(expected_value, value, **within, what="value", source="the example")
    assert len(expected_grads) == len(grads)
    for index, (expected, grad) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(expected, grad, **within, what=f"gradient of input {index}", source="the example")


@pytest.mark.parametrize(("spec_row", "example"), example_params(GRADIENT_ROWS))
def test_gradient_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case: the spec's expressions (explicitly reduced) and the engine give its numbers."""
    require(engine, f"tensor.{spec_row['op']}", spec_row.id)
    inputs, upstream = as_arrays(example["inputs"]), upstream_of(example)
    assert_example(spec_vjp(spec_row, inputs, upstream), spec_row, example)
    assert_example(
        engine.tensor_vjp(spec_row["op"], inputs, upstream), spec_row, example, tolerance(engine, "example")
    )


@pytest.mark.parametrize(
    ("spec_row", "example"),
    example_params([row("T.rule.matmul-promotion"), row("T.rule.backward-seed")]),
)
def test_one_dimensional_matmul_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """vector·vector (seeded 1), vector @ matrix, matrix @ vector and vector @ batch give the example."""
    require(engine, "tensor.matmul", spec_row.id)
    inputs, upstream = as_arrays(example["inputs"]), upstream_of(example)
    matmul = gradient_row("matmul")
    assert_example(spec_vjp(matmul, inputs, upstream), matmul, example)
    assert_example(
        engine.tensor_vjp("matmul", inputs, upstream), matmul, example, tolerance(engine, "example")
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.broadcast-reduction")]))
def test_broadcast_reduction_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """(2, 1, 3) + (4, 1) in the frame (2, 4, 3): a sums axis 1, b axes 0 and 2; (2, 2, 3) @ (3, 2):
    b's gradient is summed over the batch axis. Distinct upstream values, so a wrong axis shows."""
    op = example["op"]
    require(engine, f"tensor.{op}", spec_row.id)
    inputs, upstream = as_arrays(example["inputs"]), upstream_of(example)
    _, spec_grads = spec_vjp(gradient_row(op), inputs, upstream)
    value, grads = engine.tensor_vjp(op, inputs, upstream)
    expected = [example["grads"]["a"], example["grads"]["b"]]
    assert (expected, expected) == ([g.tolist() for g in spec_grads], [g.tolist() for g in grads])
    assert tuple(example["frame"]) == tuple(value.shape)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.broadcast-reduction")
def test_summed_axes_example(engine: Engine) -> None:
    """The shared reducer sums axis 1 for (2, 1, 3) and axes 0, 2 for (4, 1) in the frame (2, 4, 3)."""
    require_reference(engine, "T.rule.broadcast-reduction")
    example = row("T.rule.broadcast-reduction")["examples"][0]  # the add: its summed axes are listed
    frame = tuple(example["frame"])
    assert example["axes"] == {
        name: list(summed_axes(frame, tuple(shape))) for name, shape in example["shapes"].items()
    }


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.tie")]))
def test_tie_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """At a tie the whole upstream goes to maximum's first argument; relu at 0 has gradient 0, exactly."""
    require(engine, f"tensor.{example['op']}", spec_row.id, case=example["case"])
    value, grads = engine.tensor_vjp(example["op"], as_arrays(example["inputs"]), upstream_of(example))
    expected_grads = list(example["grads"].values())
    assert (example["value"], expected_grads) == (value.tolist(), [grad.tolist() for grad in grads])


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.dtype")]))
def test_dtype_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """ints and floats become float64 Tensors with the same values."""
    require_reference(engine, spec_row.id)
    tensor = Tensor(example["data"])
    assert (example["dtype"], example["data"]) == (str(tensor.data.dtype), tensor.data.tolist())


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.accumulate")
def test_accumulate_example(engine: Engine) -> None:
    """x = [1, -2, 3], out = x * x + x: backward gives 2x + 1 (x reaches out by three paths)."""
    require_reference(engine, "T.rule.accumulate")
    (example,) = row("T.rule.accumulate")["examples"]
    x = Tensor(example["x"], requires_grad=True)
    out = add(multiply(x, x), x)
    out.backward(np.ones(out.shape))
    assert example["once"] == x.grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.backward-again")
def test_backward_again_example(engine: Engine) -> None:
    """x = [1, -2, 3], out = x * x + x: backward gives 2x + 1, a second backward doubles it."""
    require_reference(engine, "T.rule.backward-again")
    (example,) = row("T.rule.backward-again")["examples"]
    x = Tensor(example["x"], requires_grad=True)
    out = add(multiply(x, x), x)
    out.backward(np.ones(out.shape))
    once = x.grad.tolist()
    out.backward(np.ones(out.shape))
    assert (example["once"], example["twice"]) == (once, x.grad.tolist())


@pytest.mark.spec("T.rule.deep-graph")
def test_engine_deep_chain_example(engine: Engine) -> None:
    """The spec's chain of 5,000 adds through the engine's program VJP: x + 5000, gradient 1 everywhere."""
    require(engine, "tensor.program", "T.rule.deep-graph")
    (example,) = row("T.rule.deep-graph")["examples"]
    shape = tuple(example["shape"])
    value, (grad,) = engine.tensor_program_vjp(chain(example["depth"]), [np.zeros(shape)], np.ones(shape))
    assert (np.full(shape, float(example["depth"])).tolist(), np.full(shape, example["grad"]).tolist()) == (
        np.asarray(value).tolist(),
        np.asarray(grad).tolist(),
    )


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.deep-graph")
def test_deep_chain_example(engine: Engine) -> None:
    """A chain of 5,000 adds (five times Python's recursion limit) backpropagates gradient 1."""
    require_reference(engine, "T.rule.deep-graph")
    (example,) = row("T.rule.deep-graph")["examples"]
    shape = tuple(example["shape"])
    x = Tensor(np.zeros(shape), requires_grad=True)
    out = x
    for _ in range(example["depth"]):
        out = add(out, 1.0)
    out.backward(np.ones(shape))
    assert np.full(shape, example["grad"]).tolist() == x.grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.namespace")]))
def test_namespace_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The Stage 05 matmul and the maximum hand case give the same numbers over array_api_strict."""
    require_reference(engine, spec_row.id)
    namespace = NAMESPACES[example["namespace"]]
    actual = reference_tensor_vjp(
        example["op"], as_arrays(example["inputs"]), upstream_of(example), xp=namespace
    )
    assert_example(actual, gradient_row(example["op"]), example)


@pytest.mark.spec("T.rule.messages")
@pytest.mark.parametrize(
    ("spec_row", "example"), example_params(rows(stage="T", kind="failure"), refused_by_reference_only)
)
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each refused hand case raises the row's exception and message with no graph node created."""
    assert_tensor_refused(engine, spec_row, example)


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.grad-ownership")]))
def test_grad_ownership_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each leaf gets the hand-computed gradient in an array of its own: the leaves' grads share memory
    with neither the upstream nor each other, and the upstream is left as it was."""
    require_reference(engine, spec_row.id)
    upstream = np.asarray(example["upstream"])
    before = upstream.tolist()
    leaves = [Tensor(x, requires_grad=True) for x in example["inputs"]]
    out = OPS[example["op"]](*leaves)
    out.backward(upstream)
    grads = [leaf.grad for leaf in leaves]
    expected = [example["grads"]["a"], example["grads"]["b"]]
    assert (expected, before) == ([g.tolist() for g in grads], upstream.tolist())
    assert [False] * 3 == [bool(np.shares_memory(x, y)) for x, y in combinations([upstream, *grads], 2)]


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.constant-leaf")]))
def test_constant_leaf_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case through the engine's graph: the constant operand's .grad stays None and the
    other's is the hand-computed VJP."""
    require(engine, "tensor.constants", spec_row.id)
    graph = engine.tensor_graph(
        example["op"], as_arrays(example["inputs"]), requires_grad=example["requires_grad"]
    )
    engine.tensor_backward(graph, upstream_of(example))
    names = gradient_row(example["op"])["domain"]
    expected = [example["grads"].get(name) for name in names]
    actual = [None if grad is None else np.asarray(grad).tolist() for grad in engine.tensor_grads(graph)]
    assert expected == actual


@reference_only("the tolerance rule is how this suite judges an engine's numbers, not something it computes")
@pytest.mark.parametrize(("spec_row", "example"), example_params([row(TOLERANCE_ROW)]))
def test_tolerance_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The rule's worked tolerances: float64 keeps the suite's own; float32 allows 2^10 eps32 = 2^-13."""
    require_reference(engine, spec_row.id)
    assert {"rel": example["rel"], "abs": example["abs"]} == tolerance_for(
        example["dtype"], example["comparison"]
    )

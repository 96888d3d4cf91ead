"""Goldens of who owns a backward's arrays: every leaf's gradient is its own and the upstream is left as it
was (through the engine), backward computes with the data its forward used (through the engine), and the
reference's root gradient is the caller's float64 upstream itself (this project's Tensor)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.tensor import OPS, gradient_row, require_reference
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    example_params,
    reference_only,
    require,
    row,
    tolerance,
)
from contracts.tensor import Tensor


def expected_grads(example: dict[str, Any]) -> list[np.ndarray]:
    """The example's gradients in the order of its op's gradient row's inputs."""
    names = gradient_row(example["op"])["domain"]
    return [np.asarray(example["grads"][name], dtype=np.float64) for name in names]


def engine_grads(engine: Engine, graph: Any) -> list[np.ndarray]:
    """Copies of every leaf's .grad now, read through the adapter."""
    grads = engine.tensor_grads(graph)
    assert all(grad is not None for grad in grads), f"a leaf got no gradient: {grads}"
    return [np.array(grad, dtype=np.float64, copy=True) for grad in grads]


def assert_grads(engine: Engine, expected: list[np.ndarray], actual: list[np.ndarray]) -> None:
    assert len(expected) == len(actual)
    for index, (spec_says, engine_gave) in enumerate(zip(expected, actual, strict=True)):
        assert_engine_gives(spec_says, engine_gave, **tolerance(engine, "example"), what=f"gradient {index}")


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.grad-ownership")]))
def test_engine_grad_ownership_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case through the engine's graph: the leaves get the hand-computed gradients, the upstream
    is left as it was, and writing into it afterwards changes no leaf's .grad."""
    require(engine, "tensor.refusals", spec_row.id)
    inputs = [np.asarray(x, dtype=np.float64) for x in example["inputs"]]
    upstream = np.array(example["upstream"], copy=True)
    graph = engine.tensor_graph(example["op"], inputs, requires_grad=True)
    engine.tensor_backward(graph, upstream)
    assert example["upstream"] == upstream.tolist()
    before = engine_grads(engine, graph)
    assert_grads(engine, expected_grads(example), before)
    upstream[...] = 1000
    assert [grad.tolist() for grad in before] == [grad.tolist() for grad in engine_grads(engine, graph)]


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.forward-data")]))
def test_forward_data_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case with the caller's input arrays rewritten to 2x + 1 between the forward and backward:
    the engine's gradients are the hand-computed ones at the data the forward used."""
    require(engine, "tensor.refusals", spec_row.id)
    inputs = [np.array(x, dtype=np.float64) for x in example["inputs"]]
    graph = engine.tensor_graph(example["op"], inputs, requires_grad=True)
    for x in inputs:
        x[...] = 2 * x + 1
    engine.tensor_backward(graph, np.asarray(example["upstream"], dtype=np.float64))
    assert_grads(engine, expected_grads(example), engine_grads(engine, graph))


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.upstream-uncopied")]))
def test_upstream_uncopied_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """A finite float64 upstream is the root's .grad itself; an int one, or one whose sum overflows
    (1e308 twice), becomes a new float64 array of the same numbers."""
    require_reference(engine, spec_row.id)
    upstream = np.asarray(example["upstream"])
    leaves = [Tensor(x, requires_grad=True) for x in example["inputs"]]
    out = OPS[example["op"]](*leaves)
    out.backward(upstream)
    assert (example["root_is_upstream"], np.float64, upstream.tolist()) == (
        out.grad is upstream,
        out.grad.dtype.type,
        out.grad.tolist(),
    )

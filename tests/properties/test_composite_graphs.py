"""Gradients through random composite graphs: S03.rule.accumulate and T.rule.accumulate
proven on random DAGs (shared subexpressions reused by a shallow and a deep path, diamonds, a node used
three or more times, chains deeper than the recursion limit), not on hand-picked graphs.

Three oracles, none of them the engine under test:
* float64 central differences of an independent evaluator (Python's math / numpy, cases/dags.py),
  under the stated tolerance rule |fd - grad| <= 1e-4 |grad| + 1e-7 + 8 eps M / h, with h = 1e-6 max(1, |x|)
  and M the largest magnitude of any node value (the loss's, for tensors); draws whose perturbation flips a
  relu sign or a maximum mask are discarded (a kink, not a derivative);
* the same program rewritten as a tree (no node used twice, every leaf use a leaf of its own, the copies'
  gradients summed by the test), run on the same engine: sharing must not change any gradient;
* torch's float64 autograd, when torch is installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from contracts.core.value import Value
from contracts.engines import Engine
from contracts.engines.base import SCALAR_OPS, TENSOR_OPS
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.dags import (
    as_tree,
    evaluate_scalar,
    evaluate_tensor,
    magnitude,
    scalar_central_differences,
    summed_by_source,
    tensor_central_differences,
    tolerance,
)
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    reference_only,
    require,
    require_float64,
    rows,
    torch_peer,
)
from contracts.tensor import Tensor


def close(expected: Any) -> Any:
    """Equal up to the rounding of the same sums in another order (the tree, torch)."""
    return pytest.approx(expected, rel=1e-9, abs=1e-9)


# The random-DAG comparisons are at float64 rounding: the same sums in another order (the tree), float64
# central differences, torch's float64 autograd; an engine of a coarser dtype is judged by the rest.
DAG_AT_FLOAT64 = "the random DAG is compared at float64 rounding (tree rebuild, central differences, torch)"


def scalar_ops(engine: Engine) -> tuple[str, ...]:
    """The spec's Stage 03 ops this engine provides (micrograd: no exp, no log)."""
    return tuple(op for op in SCALAR_OPS if engine.lacks(f"scalar.{op}") is None)


def tensor_ops(engine: Engine) -> tuple[str, ...]:
    return tuple(op for op in TENSOR_OPS if engine.lacks(f"tensor.{op}") is None)


@st.composite
def engine_scalar_program(draw: st.DrawFn, engine: Engine) -> dict[str, Any]:
    return draw(s.scalar_programs(scalar_ops(engine)))


def assert_scalar_central_differences(case: dict[str, Any], value: float, grads: tuple[float, ...]) -> None:
    nodes, _ = evaluate_scalar(case["program"], case["leaves"])
    estimates = scalar_central_differences(case["program"], case["leaves"])
    assume(estimates is not None)
    assert estimates is not None
    assert nodes[-1] == pytest.approx(value, rel=1e-12, abs=1e-12)
    largest = magnitude(nodes)
    for index, (estimate, grad) in enumerate(zip(estimates, grads, strict=True)):
        x = case["leaves"][index]
        assert abs(estimate - grad) <= tolerance(grad, largest, x), (
            f"leaf {index}: fd {estimate}, grad {grad}"
        )


def assert_scalar_tree_equal(
    engine: Engine, case: dict[str, Any], value: float, grads: tuple[float, ...]
) -> None:
    tree, sources = as_tree(case["program"], len(case["leaves"]))
    tree_value, tree_grads = engine.scalar_program_grads(tree, [case["leaves"][i] for i in sources])
    assert tree_value == close(value)  # an engine may simplify a - (a + b) where a is one node: rounding
    assert summed_by_source(tree_grads, sources, case["leaves"]) == close(list(grads))


@pytest.mark.spec("S03.rule.accumulate")
@given(data=st.data())
def test_scalar_dag_gradients_match_central_differences_and_the_tree(
    engine: Engine, data: st.DataObject
) -> None:
    """Every leaf gradient of a random scalar DAG equals the float64 central difference (tolerance rule
    above) and the gradient of the same program rebuilt as a tree (no sharing)."""
    require(engine, "scalar.program", "S03.rule.accumulate")
    require_float64(engine, DAG_AT_FLOAT64)
    case = data.draw(engine_scalar_program(engine))
    value, grads = engine.scalar_program_grads(case["program"], case["leaves"])
    assert_scalar_tree_equal(engine, case, value, grads)
    assert_scalar_central_differences(case, value, grads)


@pytest.mark.spec("S03.rule.accumulate")
# a differential check against another engine: fewer draws suffice
@settings(max_examples=s.examples(20, quick=5))
@given(data=st.data())
def test_scalar_dag_gradients_equal_torch(engine: Engine, data: st.DataObject) -> None:
    """A random scalar DAG's value and leaf gradients equal torch's float64 autograd on the same program."""
    require(engine, "scalar.program", "S03.rule.accumulate")  # the engine's own reason first
    require_float64(engine, DAG_AT_FLOAT64)
    peer = torch_peer(engine)

    case = data.draw(engine_scalar_program(engine))
    value, grads = engine.scalar_program_grads(case["program"], case["leaves"])
    expected_value, expected_grads = peer.scalar_program_grads(case["program"], case["leaves"])
    assert expected_value == close(value)
    assert list(expected_grads) == close(list(grads))


@pytest.mark.spec("S03.rule.deep-graph")
@settings(max_examples=s.examples(3, quick=1))  # each example runs ~10^3 engine ops, twice
@given(data=st.data())
def test_scalar_deep_chain_inside_a_dag(engine: Engine, data: st.DataObject) -> None:
    """A chain deeper than the recursion limit between two uses of a shared node: central differences and
    the tree rebuild agree with the engine."""
    require(engine, "scalar.program", "S03.rule.deep-graph")
    require_float64(engine, DAG_AT_FLOAT64)
    require(engine, "scalar.deep-graph", "S03.rule.deep-graph")
    case = data.draw(s.deep_scalar_programs(scalar_ops(engine)))
    value, grads = engine.scalar_program_grads(case["program"], case["leaves"])
    assert_scalar_central_differences(case, value, grads)
    assert_scalar_tree_equal(engine, case, value, grads)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.backward-again")
@given(case=s.scalar_programs(SCALAR_OPS))
def test_second_backward_adds_one_copy_on_a_random_dag(engine: Engine, case: dict[str, Any]) -> None:
    """On a random DAG of Values a second backward doubles every leaf gradient and leaves every intermediate
    gradient exactly as the first call set it (recomputed, never compounded). Leaves to rounding only: Value
    adds each path's share into a leaf one at a time, so the second copy is summed in another order."""
    require(engine, "scalar.value-api", "S03.rule.backward-again")
    nodes: list[Value] = [Value(x) for x in case["leaves"]]
    from contracts.engines.base import SCALAR_FORMS

    for op, operands, constants in case["program"]:
        nodes.append(SCALAR_FORMS[op](*(nodes[i] for i in operands), *constants))
    leaf_count = len(case["leaves"])
    nodes[-1].backward()
    first = [node.grad for node in nodes]
    nodes[-1].backward()
    assert first[leaf_count:] == [node.grad for node in nodes[leaf_count:]]
    doubled = [2 * grad for grad in first[:leaf_count]]
    assert doubled == pytest.approx([node.grad for node in nodes[:leaf_count]], rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------- Tensor


@st.composite
def engine_tensor_program(draw: st.DrawFn, engine: Engine) -> dict[str, Any]:
    return draw(s.tensor_programs(tensor_ops(engine)))


def assert_tensor_central_differences(case: dict[str, Any], value: Any, grads: tuple[Any, ...]) -> None:
    nodes, _ = evaluate_tensor(case["program"], case["leaves"])
    estimates = tensor_central_differences(case["program"], case["leaves"], case["upstream"])
    assume(estimates is not None)
    assert estimates is not None
    assert np.shape(nodes[-1]) == value.shape
    assert nodes[-1] == pytest.approx(value, rel=1e-12, abs=1e-12)
    largest = magnitude(nodes) * float(np.sum(np.abs(case["upstream"])) + 1)
    for index, (estimate, grad) in enumerate(zip(estimates, grads, strict=True)):
        assert grad.shape == np.shape(case["leaves"][index])
        for position in np.ndindex(grad.shape):
            x = float(case["leaves"][index][position])
            bound = tolerance(float(grad[position]), largest, x)
            error = abs(estimate[position] - grad[position])
            assert error <= bound, f"leaf {index}{position}: fd {estimate[position]}, grad {grad[position]}"


def assert_tensor_tree_equal(
    engine: Engine, case: dict[str, Any], value: Any, grads: tuple[Any, ...]
) -> None:
    tree, sources = as_tree(case["program"], len(case["leaves"]))
    tree_value, tree_grads = engine.tensor_program_vjp(
        tree, [case["leaves"][i] for i in sources], case["upstream"]
    )
    assert np.asarray(tree_value) == close(value)  # as the scalar tree: rounding, not sharing
    summed = summed_by_source(tree_grads, sources, case["leaves"])
    for total, grad in zip(summed, grads, strict=True):
        assert np.asarray(total) == close(grad)


@pytest.mark.spec("T.rule.accumulate")
@given(data=st.data())
def test_tensor_dag_gradients_match_central_differences_and_the_tree(
    engine: Engine, data: st.DataObject
) -> None:
    """Every leaf element's gradient of a random Tensor DAG (broadcasting, matmul) equals the float64 central
    difference of sum(upstream * out) (tolerance rule above) and the gradient of the same program rebuilt
    as a tree (no sharing)."""
    require(engine, "tensor.program", "T.rule.accumulate")
    require_float64(engine, DAG_AT_FLOAT64)
    case = data.draw(engine_tensor_program(engine))
    value, grads = engine.tensor_program_vjp(case["program"], case["leaves"], case["upstream"])
    assert_tensor_tree_equal(engine, case, value, grads)
    assert_tensor_central_differences(case, value, grads)


@pytest.mark.spec("T.rule.accumulate")
# a differential check against another engine: fewer draws suffice
@settings(max_examples=s.examples(20, quick=5))
@given(data=st.data())
def test_tensor_dag_gradients_equal_torch(engine: Engine, data: st.DataObject) -> None:
    """A random Tensor DAG's output and leaf gradients equal torch's float64 autograd on the same program."""
    require(engine, "tensor.program", "T.rule.accumulate")  # the engine's own reason first
    require_float64(engine, DAG_AT_FLOAT64)
    peer = torch_peer(engine)

    case = data.draw(engine_tensor_program(engine))
    value, grads = engine.tensor_program_vjp(case["program"], case["leaves"], case["upstream"])
    expected_value, expected_grads = peer.tensor_program_vjp(
        case["program"], case["leaves"], case["upstream"]
    )
    assert (expected_value.shape, expected_value) == (value.shape, close(value))
    for expected, grad in zip(expected_grads, grads, strict=True):
        assert (expected.shape, expected) == (grad.shape, close(grad))


@pytest.mark.spec("T.rule.deep-graph")
@settings(max_examples=s.examples(2, quick=1))
@given(case=s.deep_tensor_programs())
def test_tensor_deep_chain_inside_a_dag(engine: Engine, case: dict[str, Any]) -> None:
    """A chain of adds deeper than the recursion limit between two uses of a shared Tensor node: the tree
    rebuild agrees with the engine (central differences over every element would cost ~10^5 ops)."""
    require(engine, "tensor.program", "T.rule.accumulate")
    require_float64(engine, DAG_AT_FLOAT64)
    value, grads = engine.tensor_program_vjp(case["program"], case["leaves"], case["upstream"])
    assert_tensor_tree_equal(engine, case, value, grads)


@pytest.mark.spec("T.rule.backward-again")
@pytest.mark.parametrize("op", TENSOR_OPS)
@given(data=st.data())
def test_engine_second_backward_adds_exactly_one_copy(engine: Engine, op: str, data: st.DataObject) -> None:
    """Through the engine's own graph (tensor_graph): a second backward with the same upstream leaves
    every leaf gradient exactly twice what the first left (one more copy, never two, never a reset)."""
    require(engine, "tensor.refusals", "T.rule.backward-again")  # the capability of the graph methods
    gradient_row = next(r for r in rows(kind="gradient") if r.id == f"T.grad.{op}")
    case = data.draw(s.tensor_case(op, gradient_row["domain"], smooth=True))
    graph = engine.tensor_graph(op, case["inputs"], requires_grad=True)
    engine.tensor_backward(graph, case["upstream"])
    once = [np.array(grad, copy=True) for grad in engine.tensor_grads(graph)]
    engine.tensor_backward(graph, case["upstream"])
    assert [(2 * grad).tolist() for grad in once] == [
        np.asarray(g).tolist() for g in engine.tensor_grads(graph)
    ]


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.backward-again")
@given(case=s.tensor_programs(TENSOR_OPS))
def test_second_tensor_backward_adds_one_copy_on_a_random_dag(engine: Engine, case: dict[str, Any]) -> None:
    """On a random Tensor DAG a second backward doubles every leaf gradient exactly and sets every
    intermediate gradient to what the first call set (recomputed, never compounded)."""
    require(engine, "tensor.api", "T.rule.backward-again")
    from contracts.tensor.engine_ops import TENSOR_OPS as FORMS

    nodes: list[Tensor] = [Tensor(x, requires_grad=True) for x in case["leaves"]]
    for op, operands, _ in case["program"]:
        nodes.append(FORMS[op](*(nodes[i] for i in operands)))
    leaf_count = len(case["leaves"])
    nodes[-1].backward(case["upstream"])
    first = [np.array(node.grad).tolist() for node in nodes]
    nodes[-1].backward(case["upstream"])
    doubled = [None if grad is None else (2 * np.asarray(grad)).tolist() for grad in first[:leaf_count]]
    expected = doubled + first[leaf_count:]  # a leaf the output does not reach keeps None
    assert expected == [np.array(node.grad).tolist() for node in nodes]


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.constant-leaf")
@given(case=s.tensor_programs(TENSOR_OPS), data=st.data())
def test_constant_leaves_of_a_random_dag_get_no_gradient(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """On a random Tensor DAG with a random set of leaves built as constants, backward leaves every
    constant's grad None and gives every other leaf the gradient it gets when all leaves require grad."""
    require(engine, "tensor.api", "T.rule.constant-leaf")
    from contracts.tensor.engine_ops import TENSOR_OPS as FORMS

    def build(flags: list[bool]) -> tuple[list[Tensor], Tensor]:
        leaves = [Tensor(x, requires_grad=flag) for x, flag in zip(case["leaves"], flags, strict=True)]
        nodes = list(leaves)
        for op, operands, _ in case["program"]:
            nodes.append(FORMS[op](*(nodes[i] for i in operands)))
        return leaves, nodes[-1]

    count = len(case["leaves"])
    every, out = build([True] * count)
    out.backward(case["upstream"])
    flags = data.draw(st.lists(st.booleans(), min_size=count, max_size=count))
    leaves, out = build(flags)
    reached = [flag and leaf.grad is not None for flag, leaf in zip(flags, every, strict=True)]
    assert any(reached) == out.requires_grad  # an op result requires grad when an operand does
    assume(out.requires_grad)
    out.backward(case["upstream"])
    for index, (flag, leaf, full) in enumerate(zip(flags, leaves, every, strict=True)):
        if not flag or full.grad is None:
            assert leaf.grad is None, f"leaf {index} (requires_grad={flag}) got a .grad"
        else:
            assert close(np.asarray(full.grad)) == np.asarray(leaf.grad), f"leaf {index}"

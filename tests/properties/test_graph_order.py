"""Direct properties of contracts.core.graph.topological_order on random DAGs: both backward
loops (Value, Tensor) walk it in reverse, so a node propagates only after every consumer added to it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.core.graph import topological_order
from contracts.core.value import Value
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require
from contracts.tensor import Tensor, multiply


class Node:
    """A bare graph node: its index and the nodes it was computed from (hashed by identity)."""

    def __init__(self, index: int, parents: tuple[Node, ...]) -> None:
        self.index = index
        self.parents = parents


def build(parents: list[tuple[int, ...]]) -> list[Node]:
    nodes: list[Node] = []
    for index, chosen in enumerate(parents):
        nodes.append(Node(index, tuple(nodes[i] for i in chosen)))
    return nodes


def reachable(root: int, parents: list[tuple[int, ...]]) -> set[int]:
    """The ancestors of root and root itself, by a plain worklist over the index lists."""
    seen = {root}
    work = [root]
    while work:
        for parent in parents[work.pop()]:
            if parent not in seen:
                seen.add(parent)
                work.append(parent)
    return seen


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.accumulate", "T.rule.accumulate")
@given(parents=s.random_dags(), data=st.data())
def test_order_holds_every_reachable_node_once_parents_first(
    engine: Engine, parents: list[tuple[int, ...]], data: st.DataObject
) -> None:
    """From any root: every reachable node exactly once, no other node, and each after all its parents."""
    require(engine, "scalar.value-api", "S03.rule.accumulate")  # the reference's own graph order
    root = data.draw(st.integers(0, len(parents) - 1))
    nodes = build(parents)
    order = [node.index for node in topological_order(nodes[root])]
    assert sorted(reachable(root, parents)) == sorted(order)
    assert len(set(order)) == len(order)
    position = {index: i for i, index in enumerate(order)}
    late = [
        (parent, index) for index in order for parent in parents[index] if position[parent] > position[index]
    ]
    assert [] == late
    assert root == order[-1]


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.accumulate", "T.rule.accumulate")
@given(parents=s.random_dags())
def test_order_is_deterministic(engine: Engine, parents: list[tuple[int, ...]]) -> None:
    """The same DAG built twice (fresh objects, other ids and hashes) gives the same order."""
    require(engine, "scalar.value-api", "S03.rule.accumulate")
    first = [node.index for node in topological_order(build(parents)[-1])]
    second = [node.index for node in topological_order(build(parents)[-1])]
    assert first == second


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.accumulate", "T.rule.accumulate")
@given(x=st.floats(-4, 4), used=st.booleans(), calls=st.integers(1, 3))
def test_backward_on_a_leaf_accumulates_like_any_leaf(
    engine: Engine, x: float, used: bool, calls: int
) -> None:
    """A leaf Value or Tensor (after one use in 2·leaf, gradient 2, or none): k backward calls on the
    leaf itself add 1 each, as every leaf gradient accumulates."""
    require(engine, "scalar.value-api", "S03.rule.accumulate")
    value, tensor = Value(x), Tensor(np.asarray(x), requires_grad=True)
    if used:
        (value * 2.0).backward()
        multiply(tensor, 2.0).backward()
    for _ in range(calls):
        value.backward()
        tensor.backward()
    expected = 2.0 * used + calls
    assert (expected, expected) == (value.grad, float(tensor.grad))


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.deep-graph", "T.rule.deep-graph")
def test_order_of_a_chain_deeper_than_the_recursion_limit(engine: Engine) -> None:
    """A 5,000-node chain with a skip edge on every node: ordered without recursion, parents first."""
    require(engine, "scalar.value-api", "S03.rule.deep-graph")
    parents: list[tuple[int, ...]] = [()] + [(i - 1, 0) for i in range(1, 5000)]
    order = [node.index for node in topological_order(build(parents)[-1])]
    assert list(range(5000)) == order

"""Composite graphs: random computation DAGs as plain data, deep chains."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from contracts.spec_suite.strategies.shapes import embedding_config, sized_op
from contracts.spec_suite.strategies.tensor import float_arrays

MAX_TREE = 96  # a node feeds an instruction only while its tree rewrite stays this small


MOTIF_TREE = 12  # the shared node's tree size (the motif copies it three times and more)


class ProgramBuilder:
    """Appends instructions whose op is the first, in a drawn order, that the domain check accepts."""

    def __init__(self, draw: st.DrawFn, leaves: list[Any], arity: Mapping[str, int], kind: str) -> None:
        self.draw = draw
        self.leaf_count = len(leaves)
        self.values: list[Any] = list(leaves)
        self.arity = arity
        self.kind = kind
        self.program: list[tuple[str, tuple[int, ...], tuple[float, ...]]] = []

    def sizes(self) -> list[int]:
        from contracts.spec_suite.cases.dags import tree_sizes

        return tree_sizes(self.program, self.leaf_count)

    def operands(self, count: int, limit: int = MAX_TREE) -> tuple[int, ...]:
        """count earlier nodes (repeats allowed: x * x), each small enough to be rewritten as a tree."""
        eligible = [i for i, size in enumerate(self.sizes()) if size <= limit]
        return tuple(self.draw(st.sampled_from(eligible)) for _ in range(count))

    def emit(
        self, operands: tuple[int, ...], candidates: list[str], fallback: str | None = None
    ) -> int | None:
        """The new node's index (the first candidate, in a drawn order, inside its domain, else the
        fallback), or None when no candidate fits and there is no fallback."""
        from contracts.spec_suite.cases.dags import POW_EXPONENTS

        exponent = (self.draw(st.sampled_from(POW_EXPONENTS)),)
        for op in self.draw(st.permutations(candidates)):
            if self.fits(op, operands, exponent if op == "pow" else ()):
                return self.append(op, operands, exponent if op == "pow" else ())
        return None if fallback is None else self.append(fallback, operands, ())

    def fits(self, op: str, operands: tuple[int, ...], constants: tuple[float, ...]) -> bool:
        from contracts.spec_suite.cases.dags import scalar_in_domain, tensor_in_domain

        args = [self.values[i] for i in operands[: self.arity[op]]]
        if self.kind == "scalar":
            return scalar_in_domain(op, args, constants)
        return tensor_in_domain(op, args)

    def append(self, op: str, operands: tuple[int, ...], constants: tuple[float, ...]) -> int:
        from contracts.spec_suite.cases.dags import SCALAR_MATH, TENSOR_NUMPY

        forward: Any = SCALAR_MATH[op] if self.kind == "scalar" else TENSOR_NUMPY[op]
        used = operands[: self.arity[op]]
        self.program.append((op, used, constants))
        self.values.append(forward(*(self.values[i] for i in used), *constants))
        return len(self.values) - 1

    def motif(self, ops: list[str], unary: str | None, binary: str) -> None:
        """s reused by a deep path (1-3 ops) and a shallow one, then once more: a diamond, three uses."""
        shared = self.operands(1, MOTIF_TREE)[0]
        deep = shared
        for _ in range(self.draw(st.integers(1, 3))):
            step = self.emit((deep, *self.operands(1, MOTIF_TREE)), ops, unary)
            deep = deep if step is None else step
        binaries = [op for op in ops if self.arity[op] == 2]
        # either operand order: a traversal may go wrong only when the shallow use comes first
        pair = (deep, shared) if self.draw(st.booleans()) else (shared, deep)
        joined = self.emit(pair, binaries, binary)
        assert joined is not None
        self.emit((joined, shared) if self.draw(st.booleans()) else (shared, joined), binaries, binary)


@st.composite
def scalar_programs(draw: st.DrawFn, ops: tuple[str, ...], max_body: int = 6) -> dict[str, Any]:
    """A random scalar DAG over ops (the spec's Stage 03 op set, or the part an engine provides)."""
    from contracts.spec_suite.cases.dags import SCALAR_ARITY

    leaves = draw(st.lists(st.floats(-2, 2).filter(lambda x: abs(x) > 0.1), min_size=1, max_size=4))
    builder = ProgramBuilder(draw, leaves, SCALAR_ARITY, "scalar")
    unary = "neg" if "neg" in ops else None
    for _ in range(draw(st.integers(0, max_body))):
        builder.emit(builder.operands(2), list(ops), unary)
    builder.motif(list(ops), unary, "sub" if "sub" in ops else "add")
    return {"leaves": leaves, "program": builder.program}


DAG_SIDE = st.integers(2, 3)


@st.composite
def tensor_leaf(draw: st.DrawFn, n: int) -> np.ndarray:
    """A leaf of shape (n, n), (1, n), (n, 1), (n,) or (): every pair of them broadcasts."""
    shape = draw(st.sampled_from([(n, n), (1, n), (n, 1), (n,), ()]))
    return draw(float_arrays(shape, st.floats(-2, 2).filter(lambda x: abs(x) > 0.1)))


@st.composite
def tensor_programs(draw: st.DrawFn, ops: tuple[str, ...], max_body: int = 5) -> dict[str, Any]:
    """A random Tensor DAG over ops (the spec's tensor op set), with broadcasting and matmul, and an
    upstream gradient of the output's shape."""
    from contracts.spec_suite.cases.dags import TENSOR_ARITY

    n = draw(DAG_SIDE)
    leaves = draw(st.lists(tensor_leaf(n), min_size=1, max_size=3))
    builder = ProgramBuilder(draw, leaves, TENSOR_ARITY, "tensor")
    for _ in range(draw(st.integers(0, max_body))):
        builder.emit(builder.operands(2), list(ops))
    builder.motif(list(ops), None, "add")
    upstream = draw(float_arrays(np.shape(builder.values[-1]), st.floats(-2, 2)))
    return {"leaves": leaves, "program": builder.program, "upstream": upstream}


# verify --quick's hypothesis profile, registered by this name in contracts.verify.profiles
QUICK_PROFILE = "quick"


def examples(full: int, quick: int) -> int:
    """A costly test's example count: `full`, or `quick` under verify --quick's profile (read when the
    test module is imported, after pytest has loaded the profile)."""
    return quick if settings.get_current_profile_name() == QUICK_PROFILE else full


# deeper than the recursion limit in force while the test runs (hypothesis raises Python's 1000 by ~2000)
DEEP_CHAIN = st.integers(100, 600).map(lambda extra: sys.getrecursionlimit() + extra)


@st.composite
def deep_scalar_programs(draw: st.DrawFn, ops: tuple[str, ...]) -> dict[str, Any]:
    """A small random DAG whose shared node s starts a chain deeper than the recursion limit, the chain
    adding or subtracting s or a leaf at every step, joined with s at the end."""
    case = draw(scalar_programs(ops, max_body=3))
    leaves, program = case["leaves"], list(case["program"])
    shared = len(leaves) + draw(st.integers(0, len(program) - 1))
    steps = draw(
        st.lists(st.sampled_from([op for op in ("add", "sub") if op in ops]), min_size=1, max_size=4)
    )
    users = [shared, *range(len(leaves))]
    node = shared
    for k in range(draw(DEEP_CHAIN)):
        program.append((steps[k % len(steps)], (node, users[k % len(users)]), ()))
        node = len(leaves) + len(program) - 1
    program.append(("mul", (node, shared), ()))
    return {"leaves": leaves, "program": program}


@st.composite
def deep_tensor_programs(draw: st.DrawFn) -> dict[str, Any]:
    """A small random Tensor DAG whose shared node starts a chain of adds deeper than the recursion
    limit, joined with it by a multiply at the end."""
    case = draw(tensor_programs(("add", "multiply", "exp", "log", "relu"), max_body=2))
    leaves, program = case["leaves"], list(case["program"])
    shared = len(leaves) + draw(st.integers(0, len(program) - 1))
    users = [shared, *range(len(leaves))]
    node = shared
    for k in range(draw(DEEP_CHAIN)):
        program.append(("add", (node, users[k % len(users)]), ()))
        node = len(leaves) + len(program) - 1
    program.append(("multiply", (node, shared), ()))
    from contracts.spec_suite.cases.dags import evaluate_tensor

    shape = np.shape(evaluate_tensor(program, leaves)[0][-1])
    return {"leaves": leaves, "program": program, "upstream": draw(float_arrays(shape, st.floats(-1, 1)))}


@st.composite
def random_dags(draw: st.DrawFn, max_nodes: int = 30) -> list[tuple[int, ...]]:
    """parents[i] for nodes 0..n-1: each parent an earlier node, repeats allowed (x * x), 0-3 of them."""
    count = draw(st.integers(1, max_nodes))
    return [tuple(draw(st.lists(st.integers(0, i - 1), max_size=3))) if i else () for i in range(count)]


@st.composite
def budgeted_op(draw: st.DrawFn) -> dict[str, Any]:
    """Every entry point that takes a budget: a sized operation, or an EmbeddingPlan (whose parameter budget
    guards the initializer calls, so a budget row's initializer_calls probe has something to read)."""
    if draw(st.booleans()):
        return draw(sized_op())
    return {"op": "embedding-plan", **draw(embedding_config)}

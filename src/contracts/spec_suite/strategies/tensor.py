"""Stage T: tensor shapes, broadcasting, matmul signatures, tensor ops and upstreams."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.spec_suite.strategies.common import from_domain, non_finite_float

TENSOR_SIDE = 4  # small shapes keep the tensor properties fast: side <= 4, <= 3 dims


TENSOR_DIMS = 3


ELEMENTWISE_BINARY = ("add", "multiply", "maximum")


UNARY = ("exp", "log", "relu")


# numpy's matmul signature: optional m and p are the 1-D cases; batch axes broadcast
MATMUL_SIGNATURE = "(m?,n),(n,p?)->(m?,p?)"


def tensor_shapes(op: str) -> st.SearchStrategy[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]]:
    """(input shapes, result shape) for op: mutually broadcastable, or matmul's signature."""
    if op == "matmul":
        shapes = hnp.mutually_broadcastable_shapes(signature=MATMUL_SIGNATURE, max_dims=2, max_side=3)
    elif op in UNARY:
        shapes = hnp.mutually_broadcastable_shapes(num_shapes=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)
    else:
        shapes = hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)
    return shapes.map(lambda s: (tuple(s.input_shapes), tuple(s.result_shape)))


def float_arrays(shape: tuple[int, ...], elements: st.SearchStrategy[float]) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=elements)


def away_from_kinks(op: str, position: int) -> st.SearchStrategy[float] | None:
    """maximum: a on the half-integers, b a quarter off them (|a - b| >= 1/4); relu: x likewise."""
    if op == "maximum":
        return st.integers(-8, 8).map(lambda k: k / 2 + position / 4)
    if op == "relu":
        return st.integers(-8, 7).map(lambda k: k / 2 + 1 / 4)
    return None


@st.composite
def tensor_case(
    draw: st.DrawFn, op: str, domains: Mapping[str, Mapping[str, Any]], smooth: bool = False
) -> dict[str, Any]:
    """op, inputs (in domain order) and an upstream gradient of the result's shape.

    smooth: inputs stay away from kinks and ties (for central differences and the Value engine).
    """
    input_shapes, result_shape = draw(tensor_shapes(op))
    inputs = []
    for position, (domain, shape) in enumerate(zip(domains.values(), input_shapes, strict=True)):
        kink_free = away_from_kinks(op, position) if smooth else None
        elements = from_domain(domain) if kink_free is None else kink_free
        inputs.append(draw(float_arrays(shape, elements)))
    upstream = draw(float_arrays(result_shape, st.floats(-2, 2)))
    return {"op": op, "inputs": inputs, "upstream": upstream}


def directions(shapes: list[tuple[int, ...]]) -> st.SearchStrategy[list[np.ndarray]]:
    """One random direction per input (for directional central differences)."""
    return st.tuples(*(float_arrays(shape, st.floats(-1, 1)) for shape in shapes)).map(list)


@st.composite
def tied_pair(draw: st.DrawFn) -> dict[str, Any]:
    """Same-shape a, b with b equal to a at a random (non-empty) set of positions."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    a = draw(float_arrays(shape, st.integers(-4, 4).map(float)))
    other = draw(float_arrays(shape, st.integers(-4, 4).map(float)))
    tie = draw(hnp.arrays(np.bool_, shape))
    tie.flat[draw(st.integers(0, tie.size - 1))] = True
    upstream = draw(float_arrays(shape, st.floats(-2, 2)))
    return {"a": a, "b": np.where(tie, a, other), "tie": tie, "upstream": upstream}


@st.composite
def non_broadcastable(draw: st.DrawFn) -> dict[str, Any]:
    """Two shapes that differ, at one aligned axis, in sizes that are both > 1."""
    shape = list(draw(hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, min_side=2, max_side=4)))
    axis = draw(st.integers(0, len(shape) - 1))
    other = list(shape)
    other[axis] = draw(st.integers(2, 5).filter(lambda n: n != shape[axis]))
    other = other[draw(st.integers(0, axis)) :]  # drop some leading axes, keep the bad one
    pair = [shape, other] if draw(st.booleans()) else [other, shape]
    op = draw(st.sampled_from(ELEMENTWISE_BINARY))
    return {"op": op, "inputs": [np.ones(s) for s in pair]}


@st.composite
def matmul_inner_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """a's last axis differs from b's contracted axis (b[-2], or b[0] when b is 1-D), batched or not (the
    batch axes, when both have them, broadcast: the inner axes are the only fault)."""
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 5).filter(lambda x: x != n))
    a_shape = (*draw(st.sampled_from([(), (2,), (3,), (2, 3)])), n)
    b_batch = draw(st.sampled_from([(), (1,), (2,)])) if len(a_shape) == 3 else ()
    b_shape = (k,) if draw(st.booleans()) else (*b_batch, k, draw(st.integers(1, 4)))
    return {"op": "matmul", "inputs": [np.ones(a_shape), np.ones(b_shape)]}


@st.composite
def matmul_batch_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """Matching inner axes, batch axes of sizes > 1 that differ."""
    m, n, p = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(st.integers(2, 4))
    other = draw(st.integers(2, 4).filter(lambda x: x != batch))
    return {"op": "matmul", "inputs": [np.ones((batch, m, n)), np.ones((other, n, p))]}


@st.composite
def matmul_scalar_operand(draw: st.DrawFn) -> dict[str, Any]:
    """One 0-d operand, the other of any shape."""
    scalar = np.asarray(draw(st.floats(-4, 4)))
    other = np.ones(draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)))
    pair = [scalar, other] if draw(st.booleans()) else [other, scalar]
    return {"op": "matmul", "inputs": pair}


@st.composite
def with_bad_elements(
    draw: st.DrawFn, good: st.SearchStrategy[float], bad: st.SearchStrategy[float]
) -> np.ndarray:
    """An array of good elements with at least one bad one."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    array = draw(float_arrays(shape, good))
    count = draw(st.integers(1, array.size))
    for index in draw(st.permutations(range(array.size)))[:count]:
        array.flat[index] = draw(bad)
    return array


log_domain_violation = with_bad_elements(st.floats(0.1, 10), st.floats(-10, 0))


exp_overflow = with_bad_elements(st.floats(-10, 10), st.floats(710, 1e5))


non_finite_tensor_data = with_bad_elements(st.floats(-10, 10), non_finite_float)


bad_dtype_data = st.one_of(
    hnp.arrays(np.bool_, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
    hnp.arrays(np.complex128, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
    st.booleans(),
)


real_tensor_data = st.one_of(
    hnp.arrays(
        st.sampled_from([np.int8, np.int32, np.int64, np.float32, np.float64]),
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
        elements=st.integers(-100, 100),
    ),
    st.integers(-100, 100),
    st.floats(-100, 100),
    st.lists(st.integers(-100, 100), min_size=1, max_size=4),
)


@st.composite
def wrong_upstream(draw: st.DrawFn) -> dict[str, Any]:
    """An add of two same-shape inputs and an upstream whose shape differs from the output's."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    other = draw(
        hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE).filter(lambda s: s != shape)
    )
    return {"op": "add", "inputs": [np.ones(shape), np.ones(shape)], "upstream": np.ones(other)}


non_scalar_shapes = hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)


# An upstream gradient away from 1: a vector-Jacobian product is linear in it, so a spec gradient
# that drops `g` differs from the engine's gradient scaled by it.
upstream_scalars = st.floats(-4.0, 4.0, allow_nan=False).filter(lambda u: abs(u - 1.0) > 0.25)

"""Numeric edges: overflowing ints, tiny and huge floats, assignments to validated objects."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from contracts.core.value import Value
from contracts.spec_suite.strategies.common import non_finite_float

FLOAT_MAX = 1.7976931348623157e308


# ints whose float would be inf: 10**309 and beyond, either sign
int_beyond_float_range = st.builds(
    lambda power, sign: sign * 10**power, st.integers(309, 420), st.sampled_from([1, -1])
)


huge = st.floats(1e300, FLOAT_MAX)


# below 1/FLOAT_MAX: 1/x overflows (subnormals included)
tiny = st.floats(5e-324, 5e-309, exclude_min=False)


@st.composite
def overflowing_operation(draw: st.DrawFn) -> dict[str, Any]:
    """A Value operation over finite operands whose result or local derivative overflows float64."""
    sign = draw(st.sampled_from([1.0, -1.0]))
    kind = draw(st.sampled_from(["sum", "product", "quotient", "log"]))
    if kind == "sum":
        a, b = sign * draw(huge.filter(lambda x: x >= 9e307)), sign * draw(st.floats(9e307, FLOAT_MAX))
        op = draw(st.sampled_from(["add", "radd"]))
        return {"op": op, "a": a, "b": b}
    if kind == "product":
        a, b = sign * draw(st.floats(1e155, FLOAT_MAX)), draw(st.floats(1e155, FLOAT_MAX))
        return {"op": draw(st.sampled_from(["mul", "rmul"])), "a": a, "b": b}
    if kind == "quotient":
        op = draw(st.sampled_from(["div", "rdiv"]))
        return {"op": op, "a": sign * draw(st.floats(1.0, 1e6)), "b": draw(tiny)}
    return {"op": "log", "a": draw(tiny)}


# log(a) * scale with a tiny: d/da = scale / a overflows while log(a) * scale stays finite
overflowing_gradient = st.builds(
    lambda a, scale: {"a": a, "scale": scale},
    st.floats(1e-300, 1e-295),
    st.floats(1e15, 1e100) | st.floats(-1e100, -1e15),
)


non_finite_number_operand = st.one_of(
    st.builds(
        lambda x, op: {"op": op, "x": x}, non_finite_float, st.sampled_from(["leaf", "add", "mul", "div"])
    ),
    st.builds(
        lambda p, op: {"op": op, "power": p}, st.integers(309, 400), st.sampled_from(["leaf", "add", "mul"])
    ),
)


@st.composite
def tensor_result_overflow(draw: st.DrawFn) -> dict[str, Any]:
    """Finite operands of add, multiply or matmul whose result has at least one inf element."""
    op = draw(st.sampled_from(["add", "multiply", "matmul"]))
    n = draw(st.integers(1, 3))
    big = draw(st.floats(1e200, FLOAT_MAX))
    if op == "add":
        a = [draw(st.floats(-1, 1)) for _ in range(n)]
        index = draw(st.integers(0, n - 1))
        a[index] = FLOAT_MAX
        return {"op": op, "inputs": [np.asarray(a), np.full(n, max(big, 1e300))]}
    if op == "multiply":
        return {"op": op, "inputs": [np.full(n, big), np.full(n, draw(st.floats(1e200, 1e300)))]}
    return {"op": op, "inputs": [np.full((1, n), big), np.full((n, 1), draw(st.floats(1e200, 1e300)))]}


tensor_gradient_overflow = st.one_of(
    st.builds(
        lambda x, n: {"op": "log", "inputs": [np.full(n, x)], "upstream": np.ones(n)},
        tiny,
        st.integers(1, 3),
    ),
    st.builds(
        lambda a, g: {
            "op": "multiply",
            "inputs": [np.full(1, a), np.full(1, 1e-200)],
            "upstream": np.full(1, g),
        },
        st.floats(1e200, 1e300),
        st.floats(1e200, 1e300),
    ),
)


not_a_value_type = st.fixed_dictionaries(
    {
        "target": st.sampled_from(
            ["Vector", "Matrix", "EmbeddingPlan", "LinearPlan", "ModelPlan", "BlockPlan"]
        ),
        "value_type": st.sampled_from(["int", "float", "str", "None", "a Value", "object"]),
    }
)


# anything a caller might assign to an attribute of a validated object
assigned_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**20),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.tuples(),
    st.lists(st.integers(0, 3), max_size=2),
    st.builds(Value, st.floats(-1, 1)),
)


@st.composite
def bool_among_numbers(draw: st.DrawFn) -> dict[str, Any]:
    """Nested Python data of ints and floats with at least one bool (Python's or numpy's) among them."""
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(2, 3))
    number = st.one_of(st.integers(-5, 5), st.floats(-5, 5))
    data: list[list[Any]] = [[draw(number) for _ in range(cols)] for _ in range(rows)]
    flag = draw(st.sampled_from([True, False, np.bool_(True), np.bool_(False)]))
    data[0][draw(st.integers(0, cols - 1))] = flag  # row 0: a flat draw keeps it
    return {"data": data if draw(st.booleans()) else data[0]}


@st.composite
def int_beyond_range_in_data(draw: st.DrawFn) -> dict[str, Any]:
    """A flat list of floats with one int beyond float64's range (either sign)."""
    data: list[Any] = draw(st.lists(st.floats(-5, 5), min_size=0, max_size=3))
    big = draw(int_beyond_float_range)
    data.insert(draw(st.integers(0, len(data))), big)
    return {"data": data, "bad": big}


# float64's edges and ordinary values, both signs: max, the smallest subnormal, 1/max's neighbourhood
edge_floats = st.one_of(
    st.sampled_from([FLOAT_MAX, 1e308, 1e200, 1e154, 1.0, 0.5, 1e-308, 5e-309, 5e-324]).flatmap(
        lambda x: st.sampled_from([x, -x])
    ),
    st.floats(allow_nan=False, allow_infinity=False),
)

"""one numeric rule for results and gradients (S03.rule.finite, T.rule.finite).

The oracle is numpy's float64 arithmetic (IEEE 754, computed independently of Value): an operation
is refused exactly when numpy gives a non-finite result or local derivative for the same operands.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from contracts import CountingValue, Matrix, Value, Vector
from contracts.core.init import InitSpec
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require
from contracts.tensor import Tensor, add, matmul, maximum, multiply, reset_node_counter

# These tests drive this project's own Value and Tensor: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

# op -> (Value form, numpy result and local derivatives from the float64 operands)
BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], tuple[Any, ...]]]] = {
    "add": (operator.add, lambda a, b: (a + b,)),
    "sub": (operator.sub, lambda a, b: (a - b,)),
    "mul": (operator.mul, lambda a, b: (a * b,)),
    "div": (operator.truediv, lambda a, b: (a / b, 1.0 / b, -(a / b) / b)),
}


def numpy_refuses(op: str, a: float, b: float) -> bool:
    with np.errstate(all="ignore"):
        values = BINARY[op][1](np.float64(a), np.float64(b))
    return not all(np.isfinite(values))


@pytest.mark.spec("S03.rule.finite", "S03.fail.result-overflow")
@given(op=st.sampled_from(sorted(BINARY)), a=s.edge_floats, b=s.edge_floats, constant=st.booleans())
def test_a_result_is_finite_or_the_operation_is_refused_before_a_node(
    engine: Engine, op: str, a: float, b: float, constant: bool
) -> None:
    """At float64's edges (max, 5e-324, ...) an op is refused exactly when numpy's result overflows."""
    require(engine, "scalar.value-api", "S03.rule.finite")
    if op == "div" and b == 0:
        return  # S03.fail.div-zero
    form = BINARY[op][0]
    x, y = CountingValue(a), CountingValue(b)
    counter = CountingValue.reset()
    if numpy_refuses(op, a, b):
        with pytest.raises(
            OverflowError, match=r"must be finite \(it overflows float64\); no node is created$"
        ):
            form(x, b if constant else y)
        assert 0 == counter.operations
        return
    result = form(x, b if constant else y)
    with np.errstate(all="ignore"):
        expected = float(BINARY[op][1](np.float64(a), np.float64(b))[0])
    assert (expected, 1) == (result.data, counter.operations)


@pytest.mark.spec("S03.rule.finite", "S03.fail.result-overflow")
@given(x=s.edge_floats.filter(lambda v: v > 0))
def test_log_is_refused_where_its_derivative_overflows(engine: Engine, x: float) -> None:
    """log(x) for x > 0 is refused exactly when 1/x is not finite (x below 1/float64 max)."""
    require(engine, "scalar.value-api", "S03.rule.finite")
    leaf = CountingValue(x)
    with np.errstate(all="ignore"):
        overflows = not np.isfinite(np.float64(1.0) / np.float64(x))
    if overflows:
        with pytest.raises(OverflowError, match=re.escape(f"Value.log: derivative 1 / x at x = {x!r} = inf")):
            leaf.log()
        return
    assert (math.log(x), 1.0 / x) == (leaf.log().data, leaf.log().local_grads[0])


@pytest.mark.spec("S03.rule.finite", "S03.fail.gradient-overflow")
@given(case=s.overflowing_gradient, earlier=st.booleans())
def test_an_overflowing_backward_leaves_every_grad_as_it_was(
    engine: Engine, case: dict[str, float], earlier: bool
) -> None:
    """log(x) * scale whose d/dx overflows: backward raises and every .grad keeps its earlier value."""
    require(engine, "scalar.value-api", "S03.rule.finite")
    x = Value(case["a"])
    y = x.log()
    out = y * case["scale"]
    if earlier:
        y.backward()
    before = [(v.data, v.grad) for v in (x, y, out)]
    with pytest.raises(OverflowError, match=r"^Value\.backward: the gradient of .+ is -?inf, must be finite"):
        out.backward()
    assert before == [(v.data, v.grad) for v in (x, y, out)]


@pytest.mark.spec("S03.rule.finite", "S03.fail.leaf-data", "S05.fail.element-range")
@given(big=s.int_beyond_float_range)
def test_ints_beyond_float_range_are_refused_naming_the_value_and_where(engine: Engine, big: int) -> None:
    """10**400 as a leaf, a number operand, a Vector/Matrix element or a gain: ValueError naming it."""
    require(engine, "scalar.value-api", "S03.fail.leaf-data")
    attempts: dict[str, Callable[[], object]] = {
        "Value": lambda: Value(big),
        "Value.__add__": lambda: Value(1.0) + big,
        "Value.__rmul__": lambda: big * Value(1.0),
        "Vector": lambda: Vector([1.0, big]),
        "Matrix": lambda: Matrix([[big]]),
        "InitSpec": lambda: InitSpec(gain=big),
    }
    for where, attempt in attempts.items():
        with pytest.raises(ValueError, match=rf"^{re.escape(where)}: .+ must be finite, got {big} \(beyond"):
            attempt()


class LyingFloat(float):
    """A float that says it is 1.0 when converted, and lies in every comparison."""

    def __float__(self) -> float:
        return 1.0

    def __gt__(self, other: object) -> bool:
        return True

    def __le__(self, other: object) -> bool:
        return False


class LyingInt(int):
    """An int that converts to 2.0 whatever it holds."""

    def __float__(self) -> float:
        return 2.0


@pytest.mark.spec("S03.rule.finite")
@given(x=st.floats(-1e6, 1e6), n=st.integers(-(10**6), 10**6))
def test_subclasses_and_numpy_scalars_enter_as_the_float_that_was_checked(
    engine: Engine, x: float, n: int
) -> None:
    """A number is converted once (float()) and that float is what is checked and stored: lying
    subclasses and numpy scalars become exact floats, so no later comparison meets the subclass."""
    require(engine, "scalar.value-api", "S03.rule.finite")
    values = [Value(LyingFloat(x)), Value(LyingInt(n)), Value(np.float64(x)), Value(cast(Any, np.int64(n)))]
    assert [(float, 1.0), (float, 2.0), (float, x), (float, float(n))] == [
        (type(v.data), v.data) for v in values
    ]
    vector = Vector([LyingFloat(x), cast(Any, np.float32(0.5)), LyingInt(n)])
    assert [1.0, 0.5, 2.0] == vector.data()
    assert [float, float, float] == [type(v) for v in vector.data()]
    assert [(float, 1.0)] == [(type(v.data), v.data) for v in (Value(3.0) * LyingFloat(x) * 1.0 / 3.0,)]
    with pytest.raises(TypeError, match=r"^Value\.__mul__: constant operand must be a real number"):
        Value(1.0) * cast(Any, np.bool_(True))


@pytest.mark.spec("T.rule.finite", "T.fail.result-overflow")
@given(
    op=st.sampled_from(["add", "multiply", "maximum", "matmul"]),
    a=st.lists(s.edge_floats, min_size=3, max_size=3),
    b=st.lists(s.edge_floats, min_size=3, max_size=3),
    outer=st.booleans(),
)
# broadcast results: an element overflows (refused); the operand bound overflows but no element does,
# and the bound proves every element finite (a node each)
@example(op="add", a=[s.FLOAT_MAX, 1.0, 1.0], b=[1.0, 1.0, 1e308], outer=True)
@example(op="multiply", a=[1e200, 1.0, 1.0], b=[1.0, 1.0, -1e200], outer=True)
@example(
    op="add",
    a=[s.FLOAT_MAX, s.FLOAT_MAX, s.FLOAT_MAX],
    b=[-s.FLOAT_MAX, -s.FLOAT_MAX, -s.FLOAT_MAX],
    outer=True,
)
@example(op="multiply", a=[1e200, 1.0, 1.0], b=[1.0, 1e-200, 1.0], outer=True)
def test_a_tensor_result_is_finite_or_refused_before_its_node(
    engine: Engine, op: str, a: list[float], b: list[float], outer: bool
) -> None:
    """add, multiply, maximum, matmul at float64's edges, elementwise ops also broadcast (3, 1) with
    (1, 3) (a result larger than its operands, proven finite from their magnitudes where they allow):
    refused (no node) exactly when numpy's result overflows."""
    require(engine, "tensor.api", "T.rule.finite")
    forms = {
        "add": (add, np.add),
        "multiply": (multiply, np.multiply),
        "maximum": (maximum, np.maximum),
        "matmul": (matmul, np.matmul),
    }
    ours, theirs = forms[op]
    shapes = ((3, 1), (1, 3)) if outer and op != "matmul" else ((3,), (3,))
    left_data, right_data = np.reshape(a, shapes[0]), np.reshape(b, shapes[1])
    with np.errstate(all="ignore"):
        expected = theirs(left_data, right_data)
    left, right = Tensor(left_data, requires_grad=True), Tensor(right_data)
    counter = reset_node_counter()
    if not np.all(np.isfinite(expected)):
        with pytest.raises(OverflowError, match=rf"^{op}: every result element must be finite"):
            ours(left, right)
        assert 0 == counter.nodes
        return
    assert (expected.tolist(), 1) == (ours(left, right).data.tolist(), counter.nodes)


@pytest.mark.spec("T.rule.finite", "T.fail.gradient-overflow")
@given(x=s.tiny, earlier=st.booleans())
def test_a_tensor_backward_that_overflows_writes_no_grad(engine: Engine, x: float, earlier: bool) -> None:
    """log at a subnormal: backward raises before any .grad is written, also after an earlier backward."""
    require(engine, "tensor.api", "T.rule.finite")
    from contracts.tensor import log

    leaf = Tensor([1.0, x], requires_grad=True)
    other = Tensor([2.0, 3.0], requires_grad=True)
    if earlier:
        add(leaf, other).backward(np.ones(2))
    before = [None if t.grad is None else t.grad.tolist() for t in (leaf, other)]
    out = add(log(leaf), other)
    with pytest.raises(OverflowError, match=r"^Tensor\.backward: the gradient of .+ no \.grad was written$"):
        out.backward(np.ones(2))
    assert (before, None) == ([None if t.grad is None else t.grad.tolist() for t in (leaf, other)], out.grad)


FORMS: dict[str, Callable[[Value, float], object]] = {
    "__add__": lambda v, c: v + c,
    "__radd__": lambda v, c: c + v,
    "__sub__": lambda v, c: v - c,
    "__rsub__": lambda v, c: c - v,
    "__mul__": lambda v, c: v * c,
    "__rmul__": lambda v, c: c * v,
    "__truediv__": lambda v, c: v / c,
    "__rtruediv__": lambda v, c: c / v,
}


# form -> (leaf data, number operand) whose result overflows (add and sub: both signs flipped together)
OVERFLOWING = {
    "__add__": (1.7e308, 1.7e308),
    "__radd__": (1.7e308, 1.7e308),
    "__sub__": (-1.7e308, 1.7e308),
    "__rsub__": (-1.7e308, 1.7e308),
    "__mul__": (1e300, 1e300),
    "__rmul__": (1e300, 1e300),
    "__truediv__": (1e300, 1e-300),
    "__rtruediv__": (1e-300, 1e300),
}


# form -> (the relation its refusal names, the result it refuses), for leaf data v and number operand c
RELATIONS: dict[str, Callable[[float, float], tuple[str, object]]] = {
    "__add__": lambda v, c: (f"{v!r} + {c!r}", v + c),
    "__radd__": lambda v, c: (f"{c!r} + {v!r}", c + v),
    "__sub__": lambda v, c: (f"{v!r} - {c!r}", v - c),
    "__rsub__": lambda v, c: (f"{c!r} - {v!r}", c - v),
    "__mul__": lambda v, c: (f"{v!r} * {c!r}", v * c),
    "__rmul__": lambda v, c: (f"{c!r} * {v!r}", c * v),
    "__truediv__": lambda v, c: (
        f"(x / y, 1 / y, -x / y²) at x = {v!r}, y = {c!r}",
        (v / c, 1 / c, -(v / c) / c),
    ),
    "__rtruediv__": lambda v, c: (f"(c / y, -c / y²) at c = {c!r}, y = {v!r}", (c / v, -(c / v) / v)),
}


@pytest.mark.spec("S03.fail.leaf-data", "S03.fail.result-overflow")
@given(form=st.sampled_from(sorted(FORMS)), bad=s.non_finite_float, sign=st.sampled_from([1.0, -1.0]))
def test_every_operator_form_names_itself(engine: Engine, form: str, bad: float, sign: float) -> None:
    """A non-finite number operand and an overflowing result are refused naming the exact operator, its
    operands and the result."""
    require(engine, "scalar.value-api", "S03.fail.leaf-data")
    with pytest.raises(ValueError, match=rf"^Value\.{form}: constant operand must be finite, got {bad!r}$"):
        FORMS[form](Value(2.0), bad)
    leaf, constant = OVERFLOWING[form]
    v, c = sign * leaf, sign * constant if form.endswith(("add__", "sub__")) else constant
    with pytest.raises(OverflowError) as refused:
        FORMS[form](Value(v), c)
    relation, result = RELATIONS[form](v, c)
    expected = (
        f"Value.{form}: {relation} = {result!r} must be finite (it overflows float64); no node is created"
    )
    assert expected == str(refused.value)


@pytest.mark.spec("T.fail.gradient-overflow")
def test_a_result_node_is_named_by_its_op() -> None:
    """op_name: a leaf is 'leaf', an op result its op's name (what a refusal message shows)."""
    from contracts.tensor.tensor import op_name

    leaf = Tensor([1.0], requires_grad=True)
    assert ["leaf", "multiply", "add"] == [op_name(t) for t in (leaf, multiply(leaf, 2.0), add(leaf, 1.0))]


@pytest.mark.spec("S03.fail.div-zero")
@given(numerator=s.finite_floats, zero=st.sampled_from([0.0, -0.0, 0]), as_value=st.booleans())
def test_a_zero_divisor_is_named_as_it_was_passed(
    engine: Engine, numerator: float, zero: float, as_value: bool
) -> None:
    """Messages name the offending value: x / y with y == 0 names the operand y itself (a Value by its
    repr, a constant as given), as c / y does, and creates no node."""
    require(engine, "scalar.domain")
    divisor = CountingValue(zero) if as_value else zero
    counter = CountingValue.reset()
    with pytest.raises(ZeroDivisionError) as refused:
        CountingValue(numerator) / divisor
    assert str(refused.value).endswith(f"got {divisor!r}")
    assert 0 == counter.operations

"""Stage 03 properties: every scalar gradient against the spec's analytic form and finite differences."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from contracts import CountingValue, Value, count_operation_nodes
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage03 import ATTEMPTS, spec_forward, spec_grads, split
from contracts.spec_suite.probes import assert_refused
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    SCALAR_REFUSALS,
    assert_engine_gives,
    held,
    params,
    reference_only,
    require,
    require_float64,
    rows,
    tolerance,
)

GRADIENT_ROWS = rows(stage="03", kind="gradient")
STEP = 1e-6


def point_in_domain(spec_row: SpecRow) -> st.SearchStrategy[dict[str, Any]]:
    return s.symbol_values({**spec_row["domain"], **spec_row.get("constants", {})})


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_value_and_gradient_match_spec(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Forward value and every input gradient equal the spec row's analytic expressions, also for an
    upstream gradient u != 1 (a vector-Jacobian product is linear in u: u times the engine's gradient)."""
    require(engine, f"scalar.{spec_row['op']}", spec_row.id)
    point = held(engine, data.draw(point_in_domain(spec_row)))
    upstream = data.draw(s.upstream_scalars)
    inputs, constants = split(spec_row, point)
    value, grads = engine.scalar_vjp(spec_row["op"], inputs, constants)
    assert_engine_gives(spec_forward(spec_row, point), value, **tolerance(engine, "value"), what="value")
    assert_engine_gives(spec_grads(spec_row, point), grads, **tolerance(engine, "gradient"), what="gradients")
    scaled = tuple(upstream * grad for grad in grads)
    assert_engine_gives(
        spec_grads(spec_row, point, upstream), scaled, **tolerance(engine, "gradient"), what="u * gradients"
    )


@pytest.mark.parametrize("spec_row", params(GRADIENT_ROWS))
@given(data=st.data())
def test_gradient_matches_central_differences(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Each engine gradient equals float64 central differences of the engine's own forward."""
    require(engine, f"scalar.{spec_row['op']}", spec_row.id)
    require_float64(engine, "central differences of the engine's own forward with step 1e-6")
    point = data.draw(point_in_domain(spec_row))
    inputs, constants = split(spec_row, point)
    assume(all(abs(x) > 1e-3 for x in inputs))  # away from relu's kink
    _, grads = engine.scalar_vjp(spec_row["op"], inputs, constants)
    for index in range(len(inputs)):
        up, down = list(inputs), list(inputs)
        up[index] += STEP
        down[index] -= STEP
        high, _ = engine.scalar_vjp(spec_row["op"], up, constants)
        low, _ = engine.scalar_vjp(spec_row["op"], down, constants)
        numeric = (high - low) / (2 * STEP)
        assert_engine_gives(
            numeric, grads[index], rel=1e-4, abs=1e-5, what=f"gradient {index}", source="central difference"
        )


@pytest.mark.spec("S03.rule.pow-negative-base")
@given(x=st.floats(-5, -0.1), k=st.integers(-3, 3))
def test_pow_of_a_negative_base_keeps_the_sign(engine: Engine, x: float, k: int) -> None:
    """x < 0, integer k: the value is x^k and the gradient k·x^(k−1), with their signs (Python's own
    powers of a negative float by an integer, which are real)."""
    require(engine, "scalar.pow", "S03.rule.pow-negative-base")
    value, (grad,) = engine.scalar_vjp("pow", [x], {"k": float(k)})
    assert_engine_gives(
        (x**k, k * x ** (k - 1)), (value, grad), **tolerance(engine, "value"), what="value and gradient"
    )


@pytest.mark.spec("S03.rule.relu-at-zero")
@given(x=st.one_of(st.just(0.0), st.just(-0.0), st.floats(-1e6, 0.0)))
def test_relu_gradient_is_zero_at_and_below_zero(engine: Engine, x: float) -> None:
    """relu(x) = 0 with gradient exactly 0 for every x <= 0, the kink x = 0 included."""
    require(engine, "scalar.relu", "S03.rule.relu-at-zero")
    assert engine.scalar_vjp("relu", [x]) == (0.0, (0.0,))


@pytest.mark.spec("S03.rule.backward-again")
@given(a=s.small_floats, b=s.small_floats)
def test_backward_twice_doubles_leaf_gradients(engine: Engine, a: float, b: float) -> None:
    """For out = h*h + a, h = a*b shared, two backward calls give twice (2ab² + 1, 2a²b)."""
    require(engine, "scalar.accumulate", "S03.rule.backward-again")
    expected = (2 * (2 * a * b * b + 1), 2 * (2 * a * a * b))
    assert_engine_gives(
        expected, engine.scalar_backward_twice(a, b), **tolerance(engine, "value"), what="leaf grads"
    )


BINARY_ROWS = [r for r in GRADIENT_ROWS if r["op"] in ("add", "sub", "mul", "div")]
FORMS: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.constant-operands")
@pytest.mark.parametrize("spec_row", params(BINARY_ROWS))
@given(data=st.data())
def test_number_operand_is_a_constant(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """v op c and c op v: value and v's gradient equal the row's with c fixed; c creates no node."""
    require(engine, "scalar.value-api", "S03.rule.constant-operands")
    point = data.draw(point_in_domain(spec_row))
    a, b = point["a"], point["b"]
    forward = FORMS[spec_row["op"]]
    for constant_side, (v, c) in (("b", (a, b)), ("a", (b, a))):
        leaf = CountingValue(v)
        counter = CountingValue.reset()
        out = forward(leaf, c) if constant_side == "b" else forward(c, leaf)
        out.backward()
        grads = dict(zip(spec_row["domain"], spec_grads(spec_row, point)))
        variable = "a" if constant_side == "b" else "b"
        assert (1, (leaf,)) == (counter.operations, out.parents)
        assert_engine_gives(spec_forward(spec_row, point), out.data, rel=1e-12, abs=1e-12)
        assert_engine_gives(grads[variable], leaf.grad, rel=1e-12, abs=1e-12)


def counted_expression(kind: type[Value], a: float, b: float, depth: int) -> tuple[Value, Value, Value]:
    """x, y and (((x * y) + x).relu() * y - x / 2) repeated depth times: 1 + 5 * depth operation nodes."""
    x, y = kind(a), kind(b)
    out = x * y
    for _ in range(depth):
        out = (out + x).relu() * y - x / 2.0
    return x, y, out


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.counting-transparent")
@given(a=s.small_floats, b=s.small_floats, depth=st.integers(1, 6))
def test_counting_value_counts_every_operation_node(engine: Engine, a: float, b: float, depth: int) -> None:
    """The counter reads the operation nodes built (1 + 5 per round), as many as walking parents finds."""
    require(engine, "scalar.value-api", "S03.rule.counting-transparent")
    counter = CountingValue.reset()
    _, _, out = counted_expression(CountingValue, a, b, depth)
    assert 1 + 5 * depth == counter.operations == count_operation_nodes(out)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.counting-values")
@given(a=s.small_floats, b=s.small_floats, depth=st.integers(1, 6))
def test_counting_value_computes_like_value(engine: Engine, a: float, b: float, depth: int) -> None:
    """The same expression over CountingValue and Value leaves gives the same data and gradients."""
    require(engine, "scalar.value-api", "S03.rule.counting-values")
    plain = counted_expression(Value, a, b, depth)
    counted = counted_expression(CountingValue, a, b, depth)
    for result in (plain, counted):
        result[2].backward()
    assert [(v.data, v.grad) for v in plain] == [(v.data, v.grad) for v in counted]


@pytest.mark.spec("S03.rule.deep-graph")
@given(depth=st.integers(1, 3000))
def test_chain_gradient_is_one_at_any_depth(engine: Engine, depth: int) -> None:
    """x + 1 + ... + 1 has gradient 1 at every depth, including past Python's recursion limit."""
    require(engine, "scalar.deep-graph", "S03.rule.deep-graph")
    assert engine.scalar_chain_grad(depth) == 1.0


FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S03.fail.log-domain": s.log_outside_domain,
    "S03.fail.exp-overflow": s.exp_overflowing,
    "S03.fail.div-zero": s.division_by_zero,
    "S03.fail.pow-domain": s.pow_outside_domain,
    "S03.fail.pow-exponent": s.pow_bad_exponent,
    "S03.fail.result-overflow": s.overflowing_operation(),
    "S03.fail.gradient-overflow": s.overflowing_gradient,
    "S03.fail.leaf-data": s.non_finite_number_operand,
}


@reference_only(SCALAR_REFUSALS)
@pytest.mark.spec("S03.rule.messages")
@pytest.mark.parametrize("spec_row", params(rows(stage="03", kind="failure")))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every input outside an operation's domain is refused before a node is created."""
    require(engine, "scalar.domain", spec_row.id)
    assert_refused(spec_row, ATTEMPTS[spec_row.id](data.draw(FAILURE_CASES[spec_row.id])))


def test_failure_rows_all_have_generators() -> None:
    """No Stage 03 failure row is left without a generator of its bad input."""
    assert {r.id for r in rows(stage="03", kind="failure")} == set(FAILURE_CASES)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.accumulate")
@given(x=st.floats(-5, 5))
def test_every_path_adds_into_a_shared_leaf(engine: Engine, x: float) -> None:
    """y = exp(x) + (-x) + 3x + relu(x): x gets every path's share, one-parent paths included."""
    require(engine, "scalar.value-api", "S03.rule.accumulate")
    leaf = Value(x)
    out = leaf.exp() + (-leaf) + leaf * 3.0 + leaf.relu()
    out.backward()
    expected = math.exp(x) - 1.0 + 3.0 + (1.0 if x > 0 else 0.0)
    assert_engine_gives(expected, leaf.grad, rel=1e-12, abs=1e-12)

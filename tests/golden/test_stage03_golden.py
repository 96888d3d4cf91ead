"""Stage 03 goldens: the gradient rows' hand cases, relu at 0, accumulation and the 10^6 chain."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts import CountingValue, Value, count_operation_nodes
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage03 import ATTEMPTS, spec_forward, spec_grads, split
from contracts.spec_suite.probes import assert_refused
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    SCALAR_REFUSALS,
    assert_engine_gives,
    example_params,
    reference_only,
    require,
    require_float64,
    row,
    rows,
    tolerance,
)


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="03", kind="gradient")))
def test_gradient_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case: the spec's expressions and the engine both give the example's numbers."""
    require(engine, f"scalar.{spec_row['op']}", spec_row.id)
    where = example["where"]
    expected_grads = tuple(example["grads"][name] for name in spec_row["domain"])
    assert example["value"] == pytest.approx(spec_forward(spec_row, where), rel=1e-12)
    assert expected_grads == pytest.approx(spec_grads(spec_row, where), rel=1e-12)
    inputs, constants = split(spec_row, where)
    value, grads = engine.scalar_vjp(spec_row["op"], inputs, constants)
    assert_engine_gives(
        example["value"], value, **tolerance(engine, "example"), what="value", source="the example"
    )
    assert_engine_gives(
        expected_grads, grads, **tolerance(engine, "example"), what="gradients", source="the example"
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S03.rule.pow-negative-base")]))
def test_pow_negative_base_example(engine: Engine, spec_row: SpecRow, example: dict[str, float]) -> None:
    """(-2)³ = -8 with gradient 12, (-2)² = 4 with -4, (-0.5)⁻¹ = -2 with -4, 0¹ = 0 with 1 (0⁰)."""
    require(engine, "scalar.pow", spec_row.id)
    assert (example["value"], (example["grad"],)) == engine.scalar_vjp(
        "pow", [example["x"]], {"k": example["k"]}
    )


@pytest.mark.spec("S03.rule.relu-at-zero")
def test_relu_at_zero_example(engine: Engine) -> None:
    """relu(0) = 0 and its gradient at 0 is 0; and 0 is the kink: just above it, by the smallest normal
    number the engine holds, the gradient is 1."""
    require(engine, "scalar.relu", "S03.rule.relu-at-zero")
    (example,) = row("S03.rule.relu-at-zero")["examples"]
    assert (example["value"], (example["grad"],)) == engine.scalar_vjp("relu", [example["x"]])
    smallest_normal = float(np.finfo(np.dtype(engine.dtype)).tiny)
    assert (1.0,) == engine.scalar_vjp("relu", [example["x"] + smallest_normal])[1]


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S03.rule.relu-subnormal")]))
def test_relu_subnormal_example(engine: Engine, spec_row: SpecRow, example: dict[str, float]) -> None:
    """relu(±5e-324), the smallest subnormals: 5e-324 with gradient 1, and 0 with gradient 0."""
    require(engine, "scalar.relu", spec_row.id)
    require_float64(engine, "float64's subnormals")
    assert 0 < abs(example["x"]) < np.finfo(np.float64).tiny  # the row's examples are subnormal
    assert (example["value"], (example["grad"],)) == engine.scalar_vjp("relu", [example["x"]])


@pytest.mark.spec("S03.rule.accumulate")
def test_accumulate_example(engine: Engine) -> None:
    """a = 2, b = 3, out = h*h + a with h = a*b one shared node: one backward gives (2ab² + 1, 2a²b) =
    (37, 24), the sum of every path through h."""
    require(engine, "scalar.program", "S03.rule.accumulate")
    (example,) = row("S03.rule.accumulate")["examples"]
    # leaves a, b; node 2 = h = a*b; node 3 = h*h (h used twice); node 4 = h*h + a (a used twice)
    program = [("mul", (0, 1), ()), ("mul", (2, 2), ()), ("add", (3, 0), ())]
    value, grads = engine.scalar_program_grads(program, [example["a"], example["b"]])
    assert (example["a"] * example["b"]) ** 2 + example["a"] == value
    assert tuple(example["once"]) == grads


@pytest.mark.spec("S03.rule.backward-again")
def test_backward_again_example(engine: Engine) -> None:
    """a = 2, b = 3, out = h*h + a with h = a*b: backward twice gives (74, 48), two copies of the
    single backward's (37, 24) (each call adds one more copy of each leaf gradient)."""
    require(engine, "scalar.accumulate", "S03.rule.backward-again")
    (example,) = row("S03.rule.backward-again")["examples"]
    twice = engine.scalar_backward_twice(example["a"], example["b"])
    assert tuple(example["twice"]) == twice
    assert tuple(2 * grad for grad in example["once"]) == twice


@pytest.mark.spec("S03.rule.deep-graph")
def test_million_node_chain(engine: Engine, deep_graph_depth: int | None) -> None:
    """Backward through a chain of 10^6 additions (or --deep-graph-depth) gives d out / d x = 1."""
    require(engine, "scalar.deep-graph", "S03.rule.deep-graph")
    (example,) = row("S03.rule.deep-graph")["examples"]
    assert example["grad"] == engine.scalar_chain_grad(deep_graph_depth or example["depth"])


@reference_only(SCALAR_REFUSALS)
@pytest.mark.spec("S03.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="03", kind="failure")))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """log(0), log(-1), exp(710), 1/0, (-8) ** 0.5, 0 ** -1, x ** True are refused with no node."""
    require(engine, "scalar.domain", spec_row.id)
    assert_refused(spec_row, ATTEMPTS[spec_row.id](example))


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.constant-operands")
def test_constant_operand_example(engine: Engine) -> None:
    """v = 3, c = 2: v + c = c + v = 5, v - c = 1, c - v = -1, v * c = 6, v / c = 1.5, c / v = 2/3."""
    require(engine, "scalar.value-api", "S03.rule.constant-operands")
    (example,) = row("S03.rule.constant-operands")["examples"]
    v, c = Value(example["v"]), example["c"]
    assert [example["add"], example["sub"], example["mul"], example["div"]] == [
        [(v + c).data, (c + v).data],
        [(v - c).data, (c - v).data],
        [(v * c).data, (c * v).data],
        [(v / c).data, (c / v).data],
    ]


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.counting-transparent")
def test_counting_example(engine: Engine) -> None:
    """out = h*h + a with h = a*b builds 3 operation nodes, counted both ways."""
    require(engine, "scalar.value-api", "S03.rule.counting-transparent")
    (example,) = row("S03.rule.counting-transparent")["examples"]
    counter = CountingValue.reset()
    a, b = CountingValue(example["a"]), CountingValue(example["b"])
    h = a * b
    out = h * h + a
    assert example["operations"] == counter.operations == count_operation_nodes(out)


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.counting-values")
def test_counting_values_example(engine: Engine) -> None:
    """out = h*h + a with h = a*b at (2, 3) is 38 with gradients (37, 24), over Value and CountingValue."""
    require(engine, "scalar.value-api", "S03.rule.counting-values")
    (example,) = row("S03.rule.counting-values")["examples"]
    for kind in (Value, CountingValue):
        a, b = kind(example["a"]), kind(example["b"])
        h = a * b
        out = h * h + a
        out.backward()
        assert (example["value"], example["grads"]) == (out.data, [a.grad, b.grad])

"""Stage 03 rows on the engine under test's own scalar type: a number operand on either
side of a binary op is a constant, and a power by something other than a numeric constant is refused
with the spec's family (through the adapter's declared mapping of the engine's exception types)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage03 import spec_forward, spec_grads
from contracts.spec_suite.spec_rows import (
    assert_engine_gives,
    assert_refused_as,
    example_params,
    params,
    require,
    row,
    tolerance,
)

from .test_stage03_autodiff import BINARY_ROWS, point_in_domain


@pytest.mark.spec("S03.rule.constant-operands")
@pytest.mark.parametrize("spec_row", params(BINARY_ROWS))
@given(data=st.data())
def test_engine_number_operand_is_a_constant(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """v op c and c op v through the engine's program VJP (the engine's own operators): the value and
    v's gradient equal the row's with c held fixed. (That c gets no node is the reference's own check.)"""
    require(engine, "scalar.program", "S03.rule.constant-operands")
    require(engine, f"scalar.{spec_row['op']}", "S03.rule.constant-operands")
    point = data.draw(point_in_domain(spec_row))
    grads = dict(zip(spec_row["domain"], spec_grads(spec_row, point), strict=True))
    op = spec_row["op"]
    for form, variable, constant in ((op, "a", "b"), (f"r{op}", "b", "a")):
        value, (grad,) = engine.scalar_program_grads([(form, (0,), (point[constant],))], [point[variable]])
        assert_engine_gives(
            spec_forward(spec_row, point), value, **tolerance(engine, "value"), what=f"{form} value"
        )
        assert_engine_gives(
            grads[variable], grad, **tolerance(engine, "value"), what=f"{form}: d out / d {variable}"
        )


@pytest.mark.parametrize("spec_row", params([row("S03.fail.pow-exponent")]))
@given(x=st.floats(-4, 4), exponent=st.sampled_from([True, False, "2", None]))
def test_engine_refuses_a_non_numeric_exponent(
    engine: Engine, spec_row: SpecRow, x: float, exponent: Any
) -> None:
    """x ** k with k a bool, a str or None (not a numeric constant) is refused with the row's family."""
    require(engine, "scalar.pow", spec_row.id)
    assert_refused_as(engine, spec_row, lambda: engine.scalar_vjp("pow", [x], {"k": exponent}))


# A domain failure row's example as one scalar_vjp call: (op, inputs, constants).
DOMAIN_CALLS: dict[str, Any] = {
    "S03.fail.log-domain": lambda e: ("log", [e["x"]], None),
    "S03.fail.exp-overflow": lambda e: ("exp", [e["x"]], None),
    "S03.fail.div-zero": lambda e: ("div", [e["a"], e["b"]], None),
    "S03.fail.pow-domain": lambda e: ("pow", [e["x"]], {"k": e["k"]}),
}


@pytest.mark.parametrize(("spec_row", "example"), example_params([row(row_id) for row_id in DOMAIN_CALLS]))
def test_engine_refuses_the_domain_examples(
    engine: Engine, spec_row: SpecRow, example: dict[str, Any]
) -> None:
    """log(0), log(-1), exp(710), 1/0, (-8) ** 0.5, 0 ** -1, 1.5 ** 1750 through the engine's scalar VJP
    raise the row's family (an engine that declares scalar.domain is held to it; IEEE inf/nan fails)."""
    op, inputs, constants = DOMAIN_CALLS[spec_row.id](example)
    require(engine, "scalar.domain", spec_row.id)
    require(engine, f"scalar.{op}", spec_row.id)
    assert_refused_as(engine, spec_row, lambda: engine.scalar_vjp(op, inputs, constants))

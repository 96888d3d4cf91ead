"""Stage 07 properties: every failure row, each with a generator of its bad input and probes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts import CountingValue, InitSpec, Linear, LinearPlan
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import ATTEMPTS, broken_model, counted_model, input_matrix
from contracts.spec_suite.probes import assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, params, reference_only, require, rows
from contracts.spec_suite.strategies import forward_bound as fb

from .test_stage07_contracts import weights

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S07.fail.invalid-plan": s.invalid_plan_values(),
    "S07.fail.init-spec": s.invalid_init_choices(),
    "S07.fail.plan-type": s.plan_type_values(),
    "S07.fail.width-mismatch": s.width_mismatch(),
    "S07.fail.parameter-budget": s.over_model_parameters(),
    "S07.fail.init-non-finite": s.bad_init_result(st.one_of(s.non_finite_float, s.int_beyond_float_range)),
    "S07.fail.init-type": s.bad_init_result(s.not_a_real),
    "S07.fail.duplicate-name": s.duplicate_names(),
    "S07.fail.parameter-alias": s.alias_case(),
    "S07.fail.storage-replaced": s.storage_swap(),
    "S07.fail.input-width": s.wrong_input_width(),
    "S07.fail.input-type": s.non_matrix_input(),
    "S07.fail.graph-budget": s.over_model_graph(),
    "S07.fail.parameter-state": s.broken_executor(s.WEIGHT_FAULTS),
    "S07.fail.output-shape": s.broken_executor(s.SHAPE_FAULTS),
    "S07.fail.parameter-non-finite": s.bad_parameter_data(
        st.one_of(s.non_finite_float, s.int_beyond_float_range)
    ),
    "S07.fail.parameter-type": s.bad_parameter_data(s.not_a_float_datum),
    "S07.fail.parameter-renamed": s.renamed_layer(),
    "S07.fail.storage-shape": s.storage_shape_mismatch(),
    "S07.fail.init-role": fb.init_role_case(),
    "S07.fail.input-non-finite": fb.input_data_case(st.one_of(s.non_finite_float, s.int_beyond_float_range)),
    "S07.fail.input-data-type": fb.input_data_case(s.not_a_float_datum),
    "S07.fail.forward-overflow": fb.overflow_case(),
}


def test_every_failure_row_has_a_generator() -> None:
    """The generator table covers exactly the Stage 07 failure rows."""
    assert {r.id for r in rows(stage="07", kind="failure")} == set(FAILURE_CASES)


@pytest.mark.spec("S07.rule.messages")
@pytest.mark.parametrize("spec_row", params(rows(stage="07", kind="failure")))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad input raises the row's exception and message with zero side effects."""
    require(engine, "linear", spec_row.id)
    case = data.draw(FAILURE_CASES[spec_row.id])
    assert_refused(spec_row, ATTEMPTS[spec_row.id](case))


# the words a plan-error message uses for each LinearPlan / InitSpec argument
FIELD_LABEL = {
    "name": "name",
    "in_features": "in_features C_in",
    "out_features": "out_features C_out",
    "use_bias": "use_bias",
    "init": "init",
    "gain": "gain",
    "seed": "seed",
    "distribution": "distribution",
    "role": "role",
}


@pytest.mark.spec("S07.fail.invalid-plan", "S07.fail.init-spec", "S07.fail.plan-type")
@given(data=st.data())
def test_a_plan_error_names_the_broken_field(engine: Engine, data: st.DataObject) -> None:
    """The message names the one argument the drawn case broke, and where (LinearPlan or InitSpec)."""
    require(engine, "linear")
    case = data.draw(st.one_of(s.invalid_plan_values(), s.invalid_init_choices(), s.plan_type_values()))
    (field,) = case
    with pytest.raises((TypeError, ValueError)) as raised:
        ATTEMPTS["S07.fail.plan-type"](case).action()
    owner = "InitSpec" if field in ("gain", "seed", "distribution", "role") else "LinearPlan"
    where, _, rest = str(raised.value).partition(": ")
    assert owner == where.split(" ")[0]
    assert rest.startswith(f"{FIELD_LABEL[field]} must be "), rest


@pytest.mark.spec("S07.fail.parameter-renamed")
@given(case=s.renamed_layer())
def test_a_rename_is_refused_naming_the_sealed_layer(engine: Engine, case: dict[str, Any]) -> None:
    """Renaming a sealed layer (or its model scope) is refused naming the layer it was sealed as."""
    require(engine, "linear")
    model = counted_model(case)
    layer = model.layers[case["layer"] % len(model.layers)]
    sealed = layer.plan.name
    if "new_scope" in case:
        layer.scope = case["new_scope"]
    else:
        layer.name = case["new_name"]
    with pytest.raises(ParameterIdentityError, match=rf"layer '{sealed}' parameter name or order changed"):
        model.forward(input_matrix(1, case["widths"][0]))


@pytest.mark.spec("S07.fail.parameter-state", "S07.fail.output-shape")
@pytest.mark.parametrize("fault", s.WEIGHT_FAULTS + s.SHAPE_FAULTS)  # each fault, never left to sampling
@settings(max_examples=s.examples(10, quick=3))
@given(data=st.data())
def test_a_failed_postcondition_restores_the_parameters(
    engine: Engine, fault: str, data: st.DataObject
) -> None:
    """After a postcondition refusal the next clean forward sees the sealed, unchanged parameters (a
    rescoped layer too: the scope is part of every parameter's name)."""
    require(engine, "linear")
    case = data.draw(s.broken_executor((fault,)))
    model = broken_model(case)
    sealed = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in model.seal.refs]
    x = input_matrix(case["tokens"], case["widths"][0])
    with pytest.raises((ParameterIdentityError, ShapeError), match="postcondition"):
        model.forward(x)
    model.fault = "none"
    counter = CountingValue.reset()
    out = model.forward(x)
    current = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in model.current_refs()]
    assert sealed == current
    assert (case["tokens"], case["widths"][-1]) == out.shape
    assert model.plan_forward(case["tokens"]).total_graph_nodes() == counter.operations


# Two invalid arguments in one call: the one earlier in the signature is named (S07.fail.invalid-plan's
# note); the middle column is what its message says. Each later argument is invalid on its own too (the
# last column), so every pair is real.
ARGUMENT_ORDER = [
    pytest.param(
        lambda: InitSpec("cauchy", 0.0),
        "distribution",
        lambda: InitSpec(gain=0.0),
        id="init-distribution-gain",
    ),
    pytest.param(lambda: InitSpec(gain=0.0, seed=-1), "gain", lambda: InitSpec(seed=-1), id="init-gain-seed"),
    pytest.param(
        lambda: InitSpec(seed=-1, role="x"), "seed", lambda: InitSpec(role="x"), id="init-seed-role"
    ),
    pytest.param(
        lambda: InitSpec(gain=True, role="x"), "gain", lambda: InitSpec(role="x"), id="init-gain-role"
    ),
    pytest.param(lambda: LinearPlan(" ", 0, 1), "name", lambda: LinearPlan("fc", 0, 1), id="plan-name-in"),
    pytest.param(
        lambda: LinearPlan("fc", 0, 0), "in_features", lambda: LinearPlan("fc", 1, 0), id="plan-in-out"
    ),
    pytest.param(
        lambda: LinearPlan("fc", 1, 0, cast(Any, 1)),
        "out_features",
        lambda: LinearPlan("fc", 1, 1, cast(Any, 1)),
        id="plan-out-use_bias",
    ),
    pytest.param(
        lambda: LinearPlan("fc", 1, 1, cast(Any, 1), cast(Any, "he")),
        "use_bias",
        lambda: LinearPlan("fc", 1, 1, False, cast(Any, "he")),
        id="plan-use_bias-init",
    ),
    pytest.param(
        lambda: Linear(LinearPlan("fc", 1, 2), cast(Any, [[0.5]]), None, cast(Any, 3)),
        "must be a Matrix",
        lambda: Linear(LinearPlan("fc", 1, 2), weights(2, 1), None, cast(Any, 3)),
        id="linear-weight-scope",
    ),
    pytest.param(
        lambda: Linear(LinearPlan("fc", 1, 2, True), weights(2, 1), None, cast(Any, 3)),
        "must be a Vector",
        lambda: Linear(LinearPlan("fc", 1, 2), weights(2, 1), None, cast(Any, 3)),
        id="linear-bias-scope",
    ),
]


@pytest.mark.spec("S07.fail.invalid-plan", "S07.fail.init-spec", "S07.fail.plan-type")
@pytest.mark.parametrize(("both", "named", "later_alone"), ARGUMENT_ORDER)
def test_the_earlier_invalid_argument_is_named(
    both: Callable[[], object], named: str, later_alone: Callable[[], object]
) -> None:
    """Of two invalid constructor arguments, the refusal names the one earlier in the signature (each is
    refused alone, so the pair is real)."""
    with pytest.raises(Exception) as alone:  # noqa: PT011 (any refusal: the later fault alone is real)
        later_alone()
    with pytest.raises(Exception) as refused:  # noqa: PT011 (the message says which argument)
        both()
    assert named in str(refused.value)
    assert str(alone.value) != str(refused.value)

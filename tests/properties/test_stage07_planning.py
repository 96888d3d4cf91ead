"""Stage 07 properties: parameter and graph counts, budgets, plans and the forward contract."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts import CountingValue, Matrix, Value, Vector
from contracts.core.errors import ParameterIdentityError, ResourceBudgetError
from contracts.core.init import InitSpec
from contracts.core.linear import LinearPlan
from contracts.core.model import MLP, ModelPlan
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import (
    ATTEMPTS,
    MEASURE,
    counted_model,
    graph_nodes,
    input_matrix,
    parameters_of,
    reference_forward,
    replace_storage,
    spec_model_cost,
    spec_model_parameters,
    spec_value,
    spec_weight_count,
)
from contracts.spec_suite.cases.stage08 import MEASURE as BLOCK_MEASURE
from contracts.spec_suite.probes import CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    params,
    reference_only,
    require,
    row,
    rows,
)

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

# Stage 07's MLP and Stage 08's block: every measured formula row, one test (the planner and executor differ).
MEASURED = {**MEASURE, **BLOCK_MEASURE}
COUNT_ROWS = [r for stage in ("07", "08") for r in rows(stage=stage, kind="formula") if r.id in MEASURED]


@pytest.mark.parametrize("spec_row", params(COUNT_ROWS))
@given(data=st.data())
def test_formula_equals_planner_executor_and_graph(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """For random widths, T, bias (and the block's C, Chid), the spec formula == planner == executor
    (== graph walk)."""
    require(engine, "linear", spec_row.id)
    symbols = data.draw(s.symbol_values(spec_row["symbols"]))
    expected = evaluate(spec_row["expr"], symbols)
    measured = MEASURED[spec_row.id](symbols)
    assert {kind: expected for kind in spec_row["compared_with"]} == {
        kind: measured[kind] for kind in spec_row["compared_with"]
    }


@pytest.mark.spec("S07.params.linear", "S07.params.mlp")
@given(case=s.mlp_case())
def test_any_depth_parameters_compose_from_the_spec(engine: Engine, case: dict[str, Any]) -> None:
    """Any depth: sum of spec P_linear == ModelPlan's count == CountingValues materialized."""
    require(engine, "linear")
    expected = spec_model_parameters(case["widths"], case["use_bias"])
    plan = ModelPlan.mlp(case["widths"], case["use_bias"])
    counter = CountingValue.reset()
    model = plan.materialize(value_type=CountingValue)
    assert (expected, expected, expected) == (plan.parameter_count(), counter.values, len(model.seal))


@pytest.mark.spec("S07.cost.linear", "S07.cost.relu", "S07.cost.mlp")
@given(case=s.mlp_case())
def test_any_depth_graph_composes_from_the_spec(engine: Engine, case: dict[str, Any]) -> None:
    """Any depth: sum of spec G_linear and G_ReLU == planned == operations run == nodes walked."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    expected = spec_model_cost(widths, tokens, case["use_bias"])
    model = counted_model(case)
    counter = CountingValue.reset()
    out = model.forward(input_matrix(tokens, widths[0]))
    planned = model.plan_forward(tokens).total_graph_nodes()
    assert (expected, expected, expected) == (planned, counter.operations, graph_nodes(out))


@pytest.mark.spec("S07.params.bias-delta", "S07.cost.bias-delta")
@given(case=s.mlp_case())
def test_any_depth_bias_adds_one_parameter_and_one_node_per_output(
    engine: Engine, case: dict[str, Any]
) -> None:
    """A bias adds sum(C_out) parameters and T·sum(C_out) nodes, at any depth, as the spec composes."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    expected = (
        spec_model_parameters(widths, True) - spec_model_parameters(widths, False),
        spec_model_cost(widths, tokens, True) - spec_model_cost(widths, tokens, False),
    )
    counts = []
    for use_bias in (True, False):
        model = counted_model({**case, "use_bias": use_bias})
        counter = CountingValue.reset()
        model.forward(input_matrix(tokens, widths[0]))
        counts.append((model.parameter_count(), counter.operations))
    assert expected == (counts[0][0] - counts[1][0], counts[0][1] - counts[1][1])


@pytest.mark.spec("S07.rule.graph-budget", "S07.fail.graph-budget")
@given(case=s.mlp_case(), single=st.booleans())
def test_graph_budget_boundary(engine: Engine, case: dict[str, Any], single: bool) -> None:
    """Budget G - 1: refused with zero operations; budget G: the planned shape and exactly G ops."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    used = widths[:2] if single else widths
    cost = spec_model_cost(used, tokens, case["use_bias"])
    refused = ATTEMPTS["S07.fail.graph-budget"]({**case, "budget": cost - 1, "single": single})
    assert_refused(row("S07.fail.graph-budget"), refused)
    with pytest.raises(ResourceBudgetError) as raised:
        refused.action()
    where = "Linear.forward" if single else "MLP.forward"
    assert f"{where}: needs {cost} graph nodes, budget is {cost - 1} (cost must be <= budget)" == str(
        raised.value
    )
    model = counted_model(case)
    module = model.layers[0] if single else model
    counter = CountingValue.reset()
    out = module.forward(input_matrix(tokens, widths[0]), cost)
    assert (cost, (tokens, used[-1])) == (counter.operations, out.shape)


@pytest.mark.spec("S07.rule.model-plan-order", "S07.fail.parameter-budget")
@given(case=s.mlp_case(), single=st.booleans())
def test_parameter_budget_boundary(engine: Engine, case: dict[str, Any], single: bool) -> None:
    """Budget P - 1: zero initializer calls and zero Values; budget P: one call per weight."""
    require(engine, "linear")
    widths = case["widths"][:2] if single else case["widths"]
    needed = spec_model_parameters(widths, case["use_bias"])
    attempt = ATTEMPTS["S07.fail.parameter-budget"]({**case, "budget": needed - 1, "single": single})
    assert_refused(row("S07.fail.parameter-budget"), attempt)
    with pytest.raises(ResourceBudgetError) as raised:
        attempt.action()
    where = "LinearPlan 'fc1'.materialize" if single else "ModelPlan"
    assert f"{where}: needs {needed} parameters, budget is {needed - 1} (cost must be <= budget)" == str(
        raised.value
    )
    initializer = CountingInitializer()
    counter = CountingValue.reset()
    if single:
        plan = LinearPlan("fc1", widths[0], widths[1], case["use_bias"])
        plan.materialize(initializer, CountingValue, parameter_budget=needed)
    else:
        ModelPlan.mlp(widths, case["use_bias"], parameter_budget=needed).materialize(
            initializer, CountingValue
        )
    assert (spec_weight_count(widths), needed) == (initializer.calls, counter.values)


@pytest.mark.spec("S07.rule.model-plan-order", "S07.fail.init-non-finite", "S07.fail.init-type")
@given(case=s.bad_init_result(st.one_of(s.non_finite_float, s.not_a_real)))
def test_every_raw_result_is_drawn_before_any_is_checked(engine: Engine, case: dict[str, Any]) -> None:
    """A bad result anywhere: every raw call happens (step 5), then step 6 refuses before any Value."""
    require(engine, "linear")
    bad = case["bad_value"]
    failure = "S07.fail.init-non-finite" if isinstance(bad, float) else "S07.fail.init-type"
    attempt = ATTEMPTS[failure](case)
    assert_refused(row(failure), attempt)
    assert attempt.initializer is not None
    assert spec_weight_count(case["widths"]) == attempt.initializer.calls


@pytest.mark.spec("S07.rule.model-plan-order")
@given(case=s.mlp_case())
def test_the_initializer_is_called_layer_by_layer_in_row_major_order(
    engine: Engine, case: dict[str, Any]
) -> None:
    """Step 5's calls come layer by layer, each weight row by row (o, then i): a stateful initializer (one
    random stream, as torch's init functions draw) builds one model only in one order."""
    require(engine, "linear")
    calls: list[tuple[str, int, int]] = []

    def initializer(tensor: str, o: int, i: int) -> float:
        calls.append((tensor, o, i))
        return 0.5

    widths = case["widths"]
    ModelPlan.mlp(widths, case["use_bias"]).materialize(initializer)
    expected = [
        (f"fc{layer + 1}.weight", o, i)
        for layer in range(len(widths) - 1)
        for o in range(widths[layer + 1])
        for i in range(widths[layer])
    ]
    assert expected == calls


@contextmanager
def allocations() -> Iterator[list[str]]:
    """Record every Value, Matrix or Vector created (checked or trusted) inside the block."""
    created: list[str] = []

    def recorder(kind: str, original: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            created.append(kind)
            return original(*args, **kwargs)

        return record

    with (
        mock.patch.object(Value, "__init__", autospec=True, side_effect=recorder("Value", Value.__init__)),
        mock.patch.object(Matrix, "__init__", autospec=True, side_effect=recorder("Matrix", Matrix.__init__)),
        mock.patch.object(Matrix, "trusted", side_effect=recorder("Matrix", Matrix.trusted)),
        mock.patch.object(Vector, "__init__", autospec=True, side_effect=recorder("Vector", Vector.__init__)),
        mock.patch.object(Vector, "trusted", side_effect=recorder("Vector", Vector.trusted)),
    ):
        yield created


@pytest.mark.spec("S07.rule.plan-no-allocation")
@given(case=s.mlp_case())
def test_plans_allocate_nothing(engine: Engine, case: dict[str, Any]) -> None:
    """LinearPlan, ModelPlan and plan_forward create no Value, Matrix or Vector, and no node."""
    require(engine, "linear")
    counter = CountingValue.reset()
    with allocations() as created:
        plan = ModelPlan.mlp(case["widths"], case["use_bias"])
        forward = plan.plan_forward(case["tokens"])
        LinearPlan("extra", 2, 3, case["use_bias"]).forward_step(case["tokens"])
    assert ([], 0, 0) == (created, counter.values, counter.operations)
    assert (case["tokens"], case["widths"][-1]) == forward.output_shape()


@pytest.mark.spec("S07.rule.plan-no-allocation")
@given(case=s.mlp_case())
def test_allocation_recorder_sees_materialization(engine: Engine, case: dict[str, Any]) -> None:
    """The recorder used above does see every Value a materialization creates (it can fail)."""
    require(engine, "linear")
    with allocations() as created:
        ModelPlan.mlp(case["widths"], case["use_bias"]).materialize()
    assert spec_model_parameters(case["widths"], case["use_bias"]) == created.count("Value")


@pytest.mark.spec("S07.rule.weight-layout")
@given(case=s.mlp_case(), data=st.data())
def test_output_is_x_times_w_transposed_plus_b(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """W is (C_out, C_in), b (C_out,); each layer computes x W^T + b; (T, C_in) -> (T, C_out)."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    model = ModelPlan.mlp(widths, case["use_bias"]).materialize()
    for layer in model.layers:
        if layer.bias is not None:
            for value in layer.bias.values:
                value.data = data.draw(st.floats(-1, 1))
    x = data.draw(s.input_rows(tokens, widths[0]))
    out = model.forward(Matrix(x))
    pairs = list(itertools.pairwise(widths))
    assert [(c_out, c_in) for c_in, c_out in pairs] == [layer.weight.shape for layer in model.layers]
    assert (tokens, widths[-1]) == out.shape
    np.testing.assert_allclose(out.data(), reference_forward(model, x), rtol=1e-12, atol=1e-12)


@pytest.mark.spec("S07.rule.layer-roles")
@given(widths=s.mlp_widths, init=s.init_spec_args)
def test_layers_fed_through_relu_get_the_he_role(
    engine: Engine, widths: list[int], init: dict[str, Any]
) -> None:
    """fc1 keeps role standard; every layer whose input comes through a ReLU gets role relu."""
    require(engine, "linear")
    plan = ModelPlan.mlp(widths, init=InitSpec(**init))
    expected_roles = ["standard"] + ["relu"] * (len(widths) - 2)
    assert expected_roles == [layer.init.role for layer in plan.layers]
    formula = {"standard": "S07.init.variance-standard", "relu": "S07.init.variance-relu"}
    expected = [
        spec_value(formula[role], gain=plan.layers[0].init.gain, Cin=width)
        for role, width in zip(expected_roles, widths, strict=False)
    ]
    actual = [layer.init.variance(layer.in_features) for layer in plan.layers]
    assert_engine_gives(expected, actual, rel=1e-12)


NAME = re.compile(r"^mlp\.fc(\d+)\.(weight\[(\d+),(\d+)\]|bias\[(\d+)\])$")


def expected_names(widths: list[int], use_bias: bool) -> list[str]:
    """mlp.fcK.weight[o,i] row-major, then mlp.fcK.bias[o], layer after layer."""
    return [
        name
        for k, (c_in, c_out) in enumerate(itertools.pairwise(widths))
        for name in [f"mlp.fc{k + 1}.weight[{o},{i}]" for o in range(c_out) for i in range(c_in)]
        + ([f"mlp.fc{k + 1}.bias[{o}]" for o in range(c_out)] if use_bias else [])
    ]


def stored_at(model: MLP, name: str) -> Value:
    """The Value at the storage position a logical name names."""
    match = NAME.match(name)
    assert match is not None, name
    layer = model.layers[int(match[1]) - 1]
    if match[3] is not None:
        return layer.weight.rows[int(match[3])][int(match[4])]
    assert layer.bias is not None
    return layer.bias.values[int(match[5])]


@pytest.mark.spec("S07.rule.parameter-identity")
@given(case=s.mlp_case())
def test_every_parameter_has_a_unique_name_and_its_own_value(engine: Engine, case: dict[str, Any]) -> None:
    """Names mlp.<layer>.weight[o,i] and .bias[o], unique, each holding the Value stored at that
    position; every Value distinct."""
    require(engine, "linear")
    widths = case["widths"]
    model = counted_model(case)
    refs = model.seal.refs
    count = spec_model_parameters(widths, case["use_bias"])
    assert sorted(expected_names(widths, case["use_bias"])) == sorted(ref.name for ref in refs)
    assert (count, count) == (len({ref.name for ref in refs}), len({ref.identity() for ref in refs}))
    assert [True] * count == [stored_at(model, ref.name) is ref.value for ref in refs]


@pytest.mark.spec("S07.rule.seal-order")
@given(case=s.mlp_case())
def test_the_seal_holds_layers_in_order_weights_row_major_then_bias(
    engine: Engine, case: dict[str, Any]
) -> None:
    """The seal lists layer after layer, each weight row-major (o, then i), then that layer's bias."""
    require(engine, "linear")
    model = counted_model(case)
    assert expected_names(case["widths"], case["use_bias"]) == [ref.name for ref in model.seal.refs]


@pytest.mark.spec("S07.rule.bias-absent")
@given(c_in=s.layer_width, c_out=s.layer_width, use_bias=st.booleans())
def test_bias_is_absent_or_an_independent_zero_vector(
    engine: Engine, c_in: int, c_out: int, use_bias: bool
) -> None:
    """No bias: no storage, no ref, no placeholder Value; a bias: C_out distinct zeros, never drawn."""
    require(engine, "linear")
    initializer = CountingInitializer()
    counter = CountingValue.reset()
    layer = LinearPlan("fc1", c_in, c_out, use_bias).materialize(initializer, CountingValue)
    expected = int(spec_value("S07.params.linear", Cin=c_in, Cout=c_out, bias=int(use_bias)))
    weight_only = int(spec_value("S07.params.linear", Cin=c_in, Cout=c_out, bias=0))
    bias_refs = [ref for ref in layer.seal.refs if ".bias[" in ref.name]
    assert (expected, weight_only) == (counter.values, initializer.calls)
    if not use_bias:
        assert (None, []) == (layer.bias, bias_refs)
        return
    assert layer.bias is not None
    weight_ids = {id(v) for v in layer.weight.values()}
    bias_ids = {id(v) for v in layer.bias.values}
    assert ((c_out,), [0.0] * c_out) == (layer.bias.shape, layer.bias.data())
    assert (c_out, set()) == (len(bias_ids), bias_ids & weight_ids)


@pytest.mark.spec("S07.rule.forward-contract", "S07.rule.forward-leaves-parameters")
@given(case=s.mlp_case(), data=st.data())
def test_forward_keeps_every_parameter_and_returns_the_planned_shape(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """After a forward: output shape == planned; every parameter's storage, data and grad unchanged."""
    require(engine, "linear")
    model = counted_model(case)
    for value in parameters_of(model):
        value.grad = data.draw(st.floats(-1, 1))
    before = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in model.current_refs()]
    out = model.forward(input_matrix(case["tokens"], case["widths"][0]))
    after = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in model.current_refs()]
    assert model.plan_forward(case["tokens"]).output_shape() == out.shape
    assert before == after


@pytest.mark.spec("S07.rule.seal-current-storage", "S07.fail.storage-replaced")
@given(case=s.storage_swap())
def test_a_storage_swap_is_refused_naming_the_layer(engine: Engine, case: dict[str, Any]) -> None:
    """Any swap (Matrix, rows, one element, bias, layer order) is refused naming the swapped layer."""
    require(engine, "linear")
    model = counted_model(case)
    index = case["layer"] % len(model.layers)
    name = "fc1" if case["mode"] == "reorder" else model.layers[index].plan.name
    x = input_matrix(1, case["widths"][0])
    model.forward(x)
    replace_storage(model, index, case["mode"])
    counter = CountingValue.reset()
    with pytest.raises(ParameterIdentityError, match=rf"layer '{name}' parameter storage identity changed"):
        model.forward(x)
    assert 0 == counter.operations


@pytest.mark.spec("S07.rule.seal-current-storage", "S07.rule.parameter-identity")
@given(case=s.mlp_case(), repeats=st.integers(2, 4))
def test_repeated_forwards_keep_every_identity(engine: Engine, case: dict[str, Any], repeats: int) -> None:
    """Forward after forward, the refs rebuilt from storage are the sealed refs, object for object."""
    require(engine, "linear")
    model = counted_model(case)
    sealed = [(ref.name, ref.identity()) for ref in model.seal.refs]
    for _ in range(repeats):
        model.forward(input_matrix(case["tokens"], case["widths"][0]))
        assert sealed == [(ref.name, ref.identity()) for ref in model.current_refs()]


@pytest.mark.spec("S07.rule.optimizer-update")
@given(case=s.mlp_case(), data=st.data())
def test_in_place_updates_between_forwards_are_used(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """p.data -= lr·step in place passes the seal, and the next forward computes with the new data."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    model = counted_model(case)
    x = data.draw(s.input_rows(tokens, widths[0]))
    model.forward(Matrix(x))
    for value in parameters_of(model):
        value.data -= 0.1 * data.draw(st.floats(-1, 1))
    out = model.forward(Matrix(x))
    np.testing.assert_allclose(out.data(), reference_forward(model, x), rtol=1e-12, atol=1e-12)

"""Stage 08 in the planned scalar model: x + MLP(RMSNorm(x)) counted, budgeted and sealed before it runs."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts import CountingValue, Matrix, Vector
from contracts.core.block import Block, BlockPlan
from contracts.core.errors import ParameterIdentityError, ResourceBudgetError
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import graph_nodes, input_matrix
from contracts.spec_suite.cases.stage08 import (
    ATTEMPTS,
    MEASURE,
    counted_block,
    reference_block,
    spec_block_cost,
    spec_block_parameters,
    spec_weight_count,
)
from contracts.spec_suite.probes import CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, params, reference_only, require, row, rows

from .test_stage07_planning import allocations

# These tests exercise this project's own Block (Value, Linear, MLP): reference-only. The rows a port has
# also run on the engine's own block (module.block): tests/properties/test_port_stage08.py and goldens.
pytestmark = reference_only(OWN_TYPES)

BLOCK_FAILURES = [row(row_id) for row_id in ATTEMPTS]

FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S08.fail.norm-config": s.bad_norm_config(),
    "S08.fail.norm-type": s.bad_norm_type(),
    "S08.fail.norm-width": s.norm_width_mismatch(),
    "S08.fail.residual-width": s.residual_mismatch(),
    "S08.fail.block-parameter-budget": s.over_block_parameters(),
    "S08.fail.block-graph-budget": s.over_block_graph(),
    "S08.fail.gain-replaced": s.gain_swap(),
    "S08.fail.gain-state": s.broken_block_executor(),
}


def test_every_formula_and_failure_row_is_measured() -> None:
    """MEASURE covers every Stage 08 formula row; the generators cover exactly the block's failure rows."""
    assert {r.id for r in rows(stage="08", kind="formula")} == set(MEASURE)
    assert set(ATTEMPTS) == set(FAILURE_CASES)


@pytest.mark.spec("S08.params.rms-norm", "S08.params.block")
@given(case=s.block_case())
def test_any_depth_parameters_compose_from_the_spec(engine: Engine, case: dict[str, Any]) -> None:
    """Any MLP depth: spec C + sum P_linear == BlockPlan's count == CountingValues made == sealed refs."""
    require(engine, "linear")
    expected = spec_block_parameters(case["widths"], case["use_bias"])
    plan = BlockPlan.rmsnorm_mlp(case["widths"], case["eps"], case["use_bias"])
    counter = CountingValue.reset()
    block = plan.materialize(value_type=CountingValue)
    assert (expected,) * 4 == (
        plan.parameter_count(),
        counter.values,
        len(block.seal),
        block.parameter_count(),
    )


@pytest.mark.spec("S08.cost.rms-norm", "S08.cost.residual", "S08.cost.block")
@given(case=s.block_case())
def test_any_depth_graph_composes_from_the_spec(engine: Engine, case: dict[str, Any]) -> None:
    """Any MLP depth and T: spec G_RMSNorm + G_MLP + G_residual == planned == operations run == walked."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    expected = spec_block_cost(widths, tokens, case["use_bias"])
    block = counted_block(case)
    counter = CountingValue.reset()
    out = block.forward(input_matrix(tokens, widths[0]))
    planned = block.plan_forward(tokens).total_graph_nodes()
    assert (expected, expected, expected) == (planned, counter.operations, graph_nodes(out))
    assert expected == block.plan_forward(tokens, expected).total_graph_nodes()  # a budget it fits
    with pytest.raises(ResourceBudgetError, match=rf"^BlockPlan\.plan_forward: needs {expected} graph nodes"):
        block.plan_forward(tokens, expected - 1)


@pytest.mark.spec("S08.rule.messages")
@pytest.mark.parametrize("spec_row", params(BLOCK_FAILURES))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad config, width, budget or gain: the row's error, zero side effects."""
    require(engine, "linear", spec_row.id)
    case = data.draw(FAILURE_CASES[spec_row.id])
    assert_refused(spec_row, ATTEMPTS[spec_row.id](case))


@pytest.mark.spec("S08.rule.block-forward")
@given(case=s.block_case(), data=st.data())
def test_forward_is_x_plus_mlp_of_rms_norm(engine: Engine, case: dict[str, Any], data: st.DataObject) -> None:
    """Random gains, biases and x: Block.forward == numpy x + MLP(x·g/sqrt(mean(x²)+eps)), shape (T, C)."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    block = BlockPlan.rmsnorm_mlp(widths, case["eps"], case["use_bias"]).materialize()
    for value in block.gain.values:
        value.data = data.draw(st.floats(-2, 2))
    for layer in block.mlp.layers:
        for value in layer.bias.values if layer.bias is not None else ():
            value.data = data.draw(st.floats(-1, 1))
    x = data.draw(s.input_rows(tokens, widths[0]))
    out = block.forward(Matrix(x))
    assert (tokens, widths[0]) == out.shape
    np.testing.assert_allclose(out.data(), reference_block(block, x), rtol=1e-9, atol=1e-9)


@pytest.mark.spec("S08.rule.block-plan")
@given(case=s.block_case())
def test_block_plan_allocates_nothing_and_lists_its_steps(engine: Engine, case: dict[str, Any]) -> None:
    """Plans make no Value, Matrix, Vector or node; steps: norm, the MLP's, residual; (T, C) at the ends."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    counter = CountingValue.reset()
    with allocations() as created:
        forward = BlockPlan.rmsnorm_mlp(widths, case["eps"], case["use_bias"]).plan_forward(tokens)
    layers = len(widths) - 1
    middle = [name for k in range(layers) for name in (f"fc{k + 1}", f"relu{k + 1}")][:-1]
    assert ([], 0, 0) == (created, counter.values, counter.operations)
    assert ["norm", *middle, "residual"] == [step.name for step in forward.steps]
    assert ["rmsnorm", "residual"] == [forward.steps[0].kind, forward.steps[-1].kind]
    shape = (tokens, widths[0])
    assert (shape, shape, shape, shape) == (
        forward.input_shape(),
        forward.steps[0].output_shape,
        forward.steps[-1].input_shape,
        forward.output_shape(),
    )


@pytest.mark.spec("S08.rule.block-plan", "S08.fail.block-parameter-budget")
@given(case=s.block_case())
def test_parameter_budget_boundary(engine: Engine, case: dict[str, Any]) -> None:
    """Budget P - 1: zero initializer calls and Values; budget P: one call per MLP weight, P Values."""
    require(engine, "linear")
    widths, use_bias = case["widths"], case["use_bias"]
    needed = spec_block_parameters(widths, use_bias)
    refused = ATTEMPTS["S08.fail.block-parameter-budget"]({**case, "budget": needed - 1})
    assert_refused(row("S08.fail.block-parameter-budget"), refused)
    with pytest.raises(ResourceBudgetError) as raised:
        refused.action()
    assert f"BlockPlan: needs {needed} parameters, budget is {needed - 1} (cost must be <= budget)" == str(
        raised.value
    )
    initializer = CountingInitializer()
    counter = CountingValue.reset()
    BlockPlan.rmsnorm_mlp(widths, case["eps"], use_bias, parameter_budget=needed).materialize(
        initializer, CountingValue
    )
    assert (spec_weight_count(widths), needed) == (initializer.calls, counter.values)


@pytest.mark.spec("S08.rule.block-plan", "S08.fail.block-graph-budget")
@given(case=s.block_case())
def test_graph_budget_boundary(engine: Engine, case: dict[str, Any]) -> None:
    """Budget G - 1: refused with zero operations; budget G: the (T, C) output and exactly G operations."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    cost = spec_block_cost(widths, tokens, case["use_bias"])
    refused = ATTEMPTS["S08.fail.block-graph-budget"]({**case, "budget": cost - 1})
    assert_refused(row("S08.fail.block-graph-budget"), refused)
    with pytest.raises(ResourceBudgetError) as raised:
        refused.action()
    assert f"Block.forward: needs {cost} graph nodes, budget is {cost - 1} (cost must be <= budget)" == str(
        raised.value
    )
    block = counted_block(case)
    counter = CountingValue.reset()
    out = block.forward(input_matrix(tokens, widths[0]), cost)
    assert (cost, (tokens, widths[0])) == (counter.operations, out.shape)


GAIN_NAME = re.compile(r"^block\.norm\.gain\[(\d+)\]$")


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case(), repeats=st.integers(1, 3))
def test_gains_are_sealed_first_and_kept_by_every_forward(
    engine: Engine, case: dict[str, Any], repeats: int
) -> None:
    """The seal opens with block.norm.gain[0..C-1], every Value distinct; forwards keep every identity."""
    require(engine, "linear")
    width = case["widths"][0]
    block = counted_block(case)
    names = [ref.name for ref in block.seal.refs]
    count = spec_block_parameters(case["widths"], case["use_bias"])
    assert [f"block.norm.gain[{i}]" for i in range(width)] == names[:width]
    assert [] == [name for name in names[width:] if GAIN_NAME.match(name)]
    assert (count, count) == (len(set(names)), len({ref.identity() for ref in block.seal.refs}))
    sealed = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in block.seal.refs]
    for _ in range(repeats):
        block.forward(input_matrix(case["tokens"], width))
        now = [(ref.name, ref.identity(), ref.value.data, ref.value.grad) for ref in block.current_refs("t")]
        assert sealed == now


def refused_before_any_operation(block: Block, x: Matrix, pattern: str) -> None:
    """The next forward raises ParameterIdentityError matching pattern, and no operation ran."""
    counter = CountingValue.reset()
    with pytest.raises(ParameterIdentityError, match=pattern):
        block.forward(x)
    assert 0 == counter.operations


@pytest.mark.spec("S08.rule.gain-seal", "S08.fail.gain-replaced")
@given(case=s.gain_swap())
def test_a_replaced_gain_is_refused_naming_the_norm(engine: Engine, case: dict[str, Any]) -> None:
    """Any gain swap after a forward (Vector, element, list) is refused by the next, naming 'norm'."""
    require(engine, "linear")
    from contracts.spec_suite.cases.stage08 import replace_gain

    block = counted_block(case)
    x = input_matrix(1, case["widths"][0])
    block.forward(x)
    replace_gain(block, case["mode"])
    refused_before_any_operation(block, x, r"^Block\.forward: layer 'norm' parameter storage identity")


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case())
def test_a_gain_aliasing_an_mlp_weight_is_refused_as_an_alias(engine: Engine, case: dict[str, Any]) -> None:
    """A gain element replaced by an MLP weight's Value is refused block-wide as an alias naming both
    positions (not only as a changed storage), before any operation."""
    require(engine, "linear")
    block = counted_block(case)
    x = input_matrix(1, case["widths"][0])
    block.forward(x)
    values = list(block.gain.values)
    values[-1] = block.mlp.layers[0].weight.rows[0][0]
    block.gain = Vector.trusted(tuple(values))
    refused_before_any_operation(
        block,
        x,
        r"^Block\.forward: undeclared parameter alias: '[\w.]*norm\.gain\[\d+\]' and "
        r"'[\w.]*mlp\.fc1\.weight\[0,0\]' are the same Value object \(layer 'fc1'\)",
    )


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case().filter(lambda case: len(case["widths"]) >= 3))
def test_an_alias_across_the_blocks_mlp_layers_is_refused_as_an_alias(
    engine: Engine, case: dict[str, Any]
) -> None:
    """The last layer's weight[0,0] replaced by fc1's Value is refused as an alias naming both positions
    by their block-wide names (not as that layer's changed storage), before any operation."""
    require(engine, "linear")
    block = counted_block(case)
    x = input_matrix(1, case["widths"][0])
    block.forward(x)
    first, last = block.mlp.layers[0], block.mlp.layers[-1]
    rows = [list(row) for row in last.weight.rows]
    rows[0][0] = first.weight.rows[0][0]
    last.weight = Matrix.trusted(tuple(tuple(row) for row in rows))
    name = f"fc{len(block.mlp.layers)}"
    refused_before_any_operation(
        block,
        x,
        rf"^Block\.forward: undeclared parameter alias: '[\w.]*mlp\.fc1\.weight\[0,0\]' and "
        rf"'[\w.]*mlp\.{name}\.weight\[0,0\]' are the same Value object \(layer '{name}'\)",
    )


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case(), data=st.data())
def test_in_place_gain_updates_between_forwards_are_used(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """g.data -= lr·step in place passes the seal and the next forward scales by the new gains."""
    require(engine, "linear")
    widths, tokens = case["widths"], case["tokens"]
    block = BlockPlan.rmsnorm_mlp(widths, case["eps"], case["use_bias"]).materialize()
    x = data.draw(s.input_rows(tokens, widths[0]))
    block.forward(Matrix(x))
    for value in block.gain.values:
        value.data -= data.draw(st.floats(-1, 1))
    out = block.forward(Matrix(x))
    np.testing.assert_allclose(out.data(), reference_block(block, x), rtol=1e-9, atol=1e-9)


@pytest.mark.spec("S08.rule.gain-init", "S08.fail.norm-config")
@given(widths=s.block_widths(), gain_init=st.floats(-4, 4), use_bias=st.booleans())
def test_gains_start_at_gain_init_and_are_never_drawn(
    engine: Engine, widths: list[int], gain_init: float, use_bias: bool
) -> None:
    """C distinct gains equal to gain_init; the initializer is called once per MLP weight only."""
    require(engine, "linear")
    initializer = CountingInitializer(lambda *_: 0.25)
    plan = BlockPlan.rmsnorm_mlp(widths, use_bias=use_bias, gain_init=gain_init)
    block = plan.materialize(initializer, CountingValue)
    gains = block.gain.values
    assert ([gain_init] * widths[0], widths[0]) == ([v.data for v in gains], len({id(v) for v in gains}))
    assert spec_weight_count(widths) == initializer.calls


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case(), rebuild=st.sampled_from(["gain", "layers", "both"]))
def test_new_containers_of_the_sealed_values_pass_the_seal(
    engine: Engine, case: dict[str, Any], rebuild: str
) -> None:
    """Identity is per Value: a new Vector of the sealed gains (or a new tuple of the sealed layers) passes,
    and the forward computes exactly what it computed before."""
    require(engine, "linear")
    block = counted_block(case)
    x = input_matrix(case["tokens"], case["widths"][0])
    before = block.forward(x).data()
    if rebuild in ("gain", "both"):
        block.gain = Vector.trusted(tuple(block.gain.values))
    if rebuild in ("layers", "both"):
        block.mlp.layers = tuple(list(block.mlp.layers))
    sealed = [(ref.name, ref.identity()) for ref in block.seal.refs]
    assert sealed == [(ref.name, ref.identity()) for ref in block.verify_seal("test")]
    assert before == block.forward(x).data()


@pytest.mark.spec("S08.rule.gain-init", "S08.rule.block-plan")
@given(widths=s.block_widths(), bad=s.non_finite_float, use_bias=st.booleans(), last=st.booleans())
def test_a_refused_block_materialize_creates_no_value_not_even_a_gain(
    engine: Engine, widths: list[int], bad: float, use_bias: bool, last: bool
) -> None:
    """Every weight is drawn and checked before any Value exists, gains included: an initializer that
    returns a non-finite value (at the first or the last call) leaves zero Values created."""
    require(engine, "linear")
    calls = spec_weight_count(widths)
    bad_call = calls if last else 1
    initializer = CountingInitializer()
    initializer.produce = lambda *_: bad if initializer.calls == bad_call else 0.5
    plan = BlockPlan.rmsnorm_mlp(widths, use_bias=use_bias)
    counter = CountingValue.reset()
    with pytest.raises(ValueError, match="must be finite"):
        plan.materialize(initializer, CountingValue)
    assert (0, 0, calls) == (counter.values, counter.operations, initializer.calls)

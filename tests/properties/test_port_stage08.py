"""Stage 08's block x + MLP(RMSNorm(x)) on the engine under test's own modules (port conformance).

The adapter builds the block (module.block) and reports plain data: parameter names, shapes and
counts are compared with the spec's formulas, the forward with numpy over the values the adapter
reports, identities with the suite's own check (cases.port.identity_changes), construction
refusals by the exception family the adapter declares. The block's own planner (graph-node counts,
budgets, BlockPlan allocating nothing, the frozen plans, the order of its checks) is this project's
concept: those rows stay reference-only (tests/properties/test_stage08_block.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.core.init import InitSpec
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.port import (
    BLOCK_MLP,
    GAIN,
    block_names,
    block_shapes,
    build_or_reject,
    identity_changes,
    input_array,
    named_state,
    numpy_block,
    numpy_norm,
    refused_when_built,
    scalar_names,
)
from contracts.spec_suite.cases.stage08 import spec_block_cost, spec_block_parameters
from contracts.spec_suite.spec_rows import params, require, row


def block(engine: Engine, case: dict[str, Any], init: InitSpec | None = None, gain_init: float = 1.0) -> Any:
    """The engine's block over the case's widths (C = widths[0]); sizes it cannot run are rejected."""
    widths = case["widths"]
    return build_or_reject(
        engine,
        lambda: engine.module_block(widths[0], widths, case["eps"], case["use_bias"], init, gain_init),
    )


def randomize(engine: Engine, module: Any, data: st.DataObject) -> None:
    """Gains in [-2, 2] and biases in [-1, 1], written in place (a port's loaded state)."""
    for info in engine.module_parameters(module):
        if info.name == GAIN or info.name.endswith(".bias"):
            bound = 2.0 if info.name == GAIN else 1.0
            drawn = data.draw(st.lists(st.floats(-bound, bound), min_size=info.count, max_size=info.count))
            engine.module_assign(module, info.name, np.array(drawn).reshape(info.shape))


# ---------------------------------------------------------------- parameters


@pytest.mark.spec("S08.params.rms-norm", "S08.params.block")
@given(data=st.data(), eps=s.block_eps)
def test_port_block_parameters(engine: Engine, data: st.DataObject, eps: float) -> None:
    """C -> Chid -> C: the gain (C,) holds the spec's P_RMSNorm = C, the block the spec's
    C + P_MLP; names block.norm.gain then block.mlp.fcK.weight/bias with the spec's shapes."""
    require(engine, "module.block", "S08.params.block")
    spec_row = row("S08.params.block")
    symbols = data.draw(s.symbol_values(spec_row["symbols"]))
    widths, use_bias = [symbols["C"], symbols["Chid"], symbols["C"]], bool(symbols["bias"])
    module = block(engine, {"widths": widths, "eps": eps, "use_bias": use_bias})
    reported = engine.module_parameters(module)
    assert block_names(widths, use_bias) == [info.name for info in reported]
    assert block_shapes(widths, use_bias) == [info.shape for info in reported]
    assert [int(np.prod(info.shape)) for info in reported] == [info.count for info in reported]
    norm = evaluate(row("S08.params.rms-norm")["expr"], {"C": symbols["C"]})
    assert norm == reported[0].count
    assert evaluate(spec_row["expr"], symbols) == sum(info.count for info in reported)


@pytest.mark.spec("S08.params.block")
@given(case=s.block_case())
def test_port_any_depth_block_parameters(engine: Engine, case: dict[str, Any]) -> None:
    """Any MLP depth: the engine's block holds C + Σ P_linear (the S08 and S07 rows composed)."""
    require(engine, "module.block", "S08.params.block")
    module = block(engine, case)
    reported = engine.module_parameters(module)
    assert block_names(case["widths"], case["use_bias"]) == [info.name for info in reported]
    assert spec_block_parameters(case["widths"], case["use_bias"]) == sum(info.count for info in reported)


# ---------------------------------------------------------------- forward


@pytest.mark.spec("S08.rule.block-forward")
@given(case=s.block_case(), data=st.data())
def test_port_block_forward_is_x_plus_mlp_of_rms_norm(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Random gains, biases and x: the engine's forward == numpy x + MLP(x·g/sqrt(mean(x²)+eps)) over
    the reported values, shape (T, C)."""
    require(engine, "module.block", "S08.rule.block-forward")
    widths, tokens = case["widths"], case["tokens"]
    module = block(engine, case)
    randomize(engine, module, data)
    x = np.array(data.draw(s.input_rows(tokens, widths[0])), dtype=np.float64)
    output = engine.module_forward(module, x)
    assert (tokens, widths[0]) == output.shape
    expected = numpy_block(named_state(engine, module, "block"), x, case["eps"], len(widths) - 1)
    np.testing.assert_allclose(output, expected, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- planner == executor on the engine's graph


@pytest.mark.spec("S08.cost.rms-norm", "S08.cost.residual", "S08.cost.block")
@given(case=s.block_case())
def test_port_block_graph_nodes_equal_the_plan(engine: Engine, case: dict[str, Any]) -> None:
    """Nodes one block forward creates, counted by walking the engine's graph, equal the spec's
    G_RMSNorm + the MLP's G_linear and G_ReLU + G_residual for the same widths, bias and tokens."""
    require(engine, "module.graph-count", "S08.cost.block")
    require(engine, "module.block", "S08.cost.block")
    widths, tokens = case["widths"], case["tokens"]
    module = block(engine, case)
    nodes = engine.module_graph_nodes(module, input_array(tokens, widths[0]))
    assert spec_block_cost(widths, tokens, case["use_bias"]) == nodes


# ---------------------------------------------------------------- the gains: names, identity, init


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case(), repeats=st.integers(1, 3))
def test_port_gains_come_first_distinct_and_kept_by_forwards(
    engine: Engine, case: dict[str, Any], repeats: int
) -> None:
    """The first tensor's scalars are block.norm.gain[0..C-1] and no later tensor is a gain; every
    scalar parameter has storage of its own; repeated forwards keep every identity and value."""
    require(engine, "module.block", "S08.rule.gain-seal")
    require(engine, "module.identity", "S08.rule.gain-seal")
    widths = case["widths"]
    module = block(engine, case)
    reported = engine.module_parameters(module)
    names = [name for info in reported for name in scalar_names(info.name, info.shape)]
    assert [f"{GAIN}[{i}]" for i in range(widths[0])] == names[: widths[0]]
    assert [] == [name for name in names[widths[0] :] if not name.startswith(f"{BLOCK_MLP}.")]
    before, values = engine.module_identities(module), named_state(engine, module, "block")
    storage = [key for item in before for key in item.storage]
    count = spec_block_parameters(widths, case["use_bias"])
    assert (count, count) == (len(set(names)), len(set(storage)))
    x = np.ones((case["tokens"], widths[0]))
    for _ in range(repeats):
        engine.module_forward(module, x)
        assert [] == identity_changes(before, engine.module_identities(module))
        now = named_state(engine, module, "block")
        assert [] == [name for name in values if not np.array_equal(values[name], now[name])]


@pytest.mark.spec("S08.rule.gain-seal")
@given(case=s.block_case(), data=st.data())
def test_port_replaced_gain_detected_and_in_place_updates_used(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """An SGD step and new gains written in place keep every identity, and the next forward's RMSNorm
    scales by the new gains; a gain storage swapped for a copy is named by the suite's check, alone."""
    require(engine, "module.block", "S08.rule.gain-seal")
    require(engine, "module.identity", "S08.rule.gain-seal")
    width = case["widths"][0]
    module = block(engine, case)
    x = np.array(data.draw(s.input_rows(case["tokens"], width)), dtype=np.float64)
    before = engine.module_identities(module)
    engine.module_forward(module, x)
    engine.module_sgd_step(module, x, 0.125)
    gains = np.array(data.draw(st.lists(st.floats(-2, 2), min_size=width, max_size=width)))
    engine.module_assign(module, GAIN, gains)
    assert [] == identity_changes(before, engine.module_identities(module))
    np.testing.assert_allclose(
        numpy_norm(gains, x, case["eps"]), engine.module_norm_forward(module, x), rtol=1e-9, atol=1e-9
    )
    old = engine.module_replace_parameter(module, GAIN)  # held: its id and memory cannot be reused
    assert [GAIN] == identity_changes(before, engine.module_identities(module))
    assert old is not None


@pytest.mark.spec("S08.rule.gain-init")
@given(
    widths=s.block_widths(), gain_init=st.floats(-4, 4), use_bias=st.booleans(), seed=st.integers(0, 2**20)
)
def test_port_gains_start_at_gain_init_and_are_never_drawn(
    engine: Engine, widths: list[int], gain_init: float, use_bias: bool, seed: int
) -> None:
    """C distinct gains equal to gain_init; built under two InitSpec seeds, every weight is drawn
    anew and the gains stay gain_init (the initializer never draws a gain)."""
    require(engine, "module.block", "S08.rule.gain-init")
    require(engine, "module.init", "S08.rule.gain-init")
    case = {"widths": widths, "eps": 1e-6, "use_bias": use_bias}
    first = engine.module_state(block(engine, case, InitSpec("normal", 1.0, seed), gain_init))
    other = engine.module_state(block(engine, case, InitSpec("normal", 1.0, seed + 1), gain_init))
    assert [gain_init] * widths[0] == first[GAIN].tolist() == other[GAIN].tolist()
    weights = [name for name in first if name.endswith(".weight")]
    assert [] == [name for name in weights if np.array_equal(first[name], other[name])]


# ---------------------------------------------------------------- a forward leaves the gains alone


@pytest.mark.spec("S08.fail.gain-state")
@given(case=s.block_case(), data=st.data())
def test_port_forward_leaves_every_gain_as_it_was(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """The suite's postcondition over the engine's reports: after forwards, every gain (and every other
    parameter) has the values and the storage identity it had before (what S08.fail.gain-state refuses
    a forward for breaking)."""
    require(engine, "module.block", "S08.fail.gain-state")
    require(engine, "module.identity", "S08.fail.gain-state")
    module = block(engine, case)
    randomize(engine, module, data)
    before, values = engine.module_identities(module), named_state(engine, module, "block")
    x = np.array(data.draw(s.input_rows(case["tokens"], case["widths"][0])), dtype=np.float64)
    engine.module_forward(module, x)
    engine.module_forward(module, x)
    after = named_state(engine, module, "block")
    assert [] == identity_changes(before, engine.module_identities(module))
    assert [] == [name for name in values if not np.array_equal(values[name], after[name])]


# ---------------------------------------------------------------- construction refusals


def norm_arguments(bad: st.SearchStrategy[Any], key: str) -> st.SearchStrategy[dict[str, Any]]:
    return bad.map(lambda value: {key: value})


# The norm's own arguments an engine takes (width, eps, gain_init); the norm's name is the adapter's
# logical naming, not an argument of the engine's RMSNorm, so the name cases stay the reference's.
REFUSALS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S08.fail.norm-config": st.one_of(
        norm_arguments(st.integers(-5, 0), "width"),
        norm_arguments(s.bad_eps_value, "eps"),
        norm_arguments(s.non_finite_float, "gain_init"),
    ),
    "S08.fail.norm-type": st.one_of(
        norm_arguments(s.not_an_exact_int, "width"),
        norm_arguments(s.not_a_real, "eps"),
        norm_arguments(s.not_a_real, "gain_init"),
    ),
    "S08.fail.norm-width": s.norm_width_mismatch(),
    "S08.fail.residual-width": s.residual_mismatch(),
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in REFUSALS))
@given(data=st.data())
def test_port_block_construction_refuses(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """A norm width < 1, eps <= 0 or non-finite, a non-finite gain_init (norm-config), a width, eps or
    gain_init of the wrong type (norm-type), a norm width unlike the MLP's input or an MLP output width
    unlike C (norm-width, residual-width): refused when the engine builds the block, in the row's family."""
    require(engine, "module.block", spec_row.id)
    refused_when_built(engine, spec_row, data.draw(REFUSALS[spec_row.id]))

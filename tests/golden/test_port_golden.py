"""Port conformance goldens: the seeds' worked examples on the engine under test's own modules.

Every number is read from a spec row's example (or the spec formula at the example's sizes); the
engine's module is only measured, through the adapter's plain-data reports.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.core.init import InitSpec
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite.cases.port import (
    LAYER,
    MODEL,
    POSITION_WEIGHT,
    TOKEN_WEIGHT,
    build,
    identity_changes,
    input_array,
    layer_names,
    named_state,
    numpy_mlp,
    scalar_names,
)
from contracts.spec_suite.cases.stage07 import sample_variance, spec_model_cost, tolerance
from contracts.spec_suite.spec_rows import assert_refused_as, example_params, require, row, rows

COUNTED = {
    "S05.params.token": (TOKEN_WEIGHT,),
    "S05.params.position": (POSITION_WEIGHT,),
    "S05.params.embedding": (TOKEN_WEIGHT, POSITION_WEIGHT),
}


def seed_embedding(engine: Engine, example: dict[str, Any], row_id: str) -> Any:
    require(engine, "module.embedding", row_id)
    config = example.get("where", example)
    return build(engine, lambda: engine.module_embedding(config["V"], config["C"], config["D"]))


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(prefix="S05.params.")))
def test_port_embedding_parameter_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """V = 257, C = 8, D = 4: token 1028, position 32, together (V + C)D = 1060 on the engine."""
    module = seed_embedding(engine, example, spec_row.id)
    counts = {info.name: info.count for info in engine.module_parameters(module)}
    assert example["value"] == sum(counts[name] for name in COUNTED[spec_row.id])


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S05.rule.embedding-shapes")]))
def test_port_embedding_shapes_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Tokens [5, 0, 256]: tables (257, 4) and (8, 4), output (3, 4), row t = token row + position row."""
    module = seed_embedding(engine, example, spec_row.id)
    shapes = {info.name: list(info.shape) for info in engine.module_parameters(module)}
    assert {TOKEN_WEIGHT: example["token_shape"], POSITION_WEIGHT: example["position_shape"]} == shapes
    output = engine.module_forward(module, example["tokens"])
    assert example["output_shape"] == list(output.shape)
    state, tokens = named_state(engine, module, "mlp"), example["tokens"]
    expected = state[TOKEN_WEIGHT][tokens] + state[POSITION_WEIGHT][: len(tokens)]
    np.testing.assert_allclose(output, expected, rtol=1e-12, atol=0)


def token_examples() -> list[Any]:
    """The failure rows' examples whose tokens are a list (a port takes a list of ids)."""
    chosen = (
        "S05.fail.token-id",
        "S05.fail.token-type",
        "S05.fail.sequence-length",
        "S05.fail.sequence-empty",
    )
    return [
        param
        for param in example_params(row(row_id) for row_id in chosen)
        if isinstance(param.values[1]["tokens"], list)
    ]


@pytest.mark.parametrize(("spec_row", "example"), token_examples())
def test_port_embedding_refusal_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """[5, 257, 1], [5, -1], [1, True], 9 tokens with C = 8 and no token: refused with the spec's family."""
    module = seed_embedding(engine, example, spec_row.id)
    require(engine, "module.embedding", spec_row.id)
    assert_refused_as(engine, spec_row, lambda: engine.module_forward(module, example["tokens"]))


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S05.cost.embedding-forward")]))
def test_port_embedding_forward_nodes_example(
    engine: Engine, spec_row: SpecRow, example: dict[str, Any]
) -> None:
    """T = 3 tokens, D = 4: the engine's forward creates 12 graph nodes."""
    require(engine, "module.graph-count", spec_row.id)
    module = seed_embedding(engine, example, spec_row.id)
    tokens = list(range(example["where"]["T"]))
    assert example["value"] == engine.module_graph_nodes(module, tokens)


# ---------------------------------------------------------------- Stage 07


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.params.linear")]))
def test_port_linear_parameter_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """fc1 (3 -> 4) holds 12 parameters, fc2 (4 -> 2) 8, both bias-free, on the engine."""
    require(engine, "module.linear", spec_row.id)
    where = example["where"]
    module = build(engine, lambda: engine.module_linear(where["Cin"], where["Cout"], bool(where["bias"])))
    assert example["value"] == sum(info.count for info in engine.module_parameters(module))


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.bias-absent")]))
def test_port_bias_absent_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """use_bias=False: no bias tensor and 12 parameters; use_bias=True: a (4,) bias of zeros, 16."""
    require(engine, "module.linear", spec_row.id)
    require(engine, "module.init", spec_row.id)  # a zero bias is part of the spec's init policy
    use_bias = example["use_bias"]
    module = build(
        engine, lambda: engine.module_linear(example["Cin"], example["Cout"], use_bias, InitSpec())
    )
    reported = {info.name: info for info in engine.module_parameters(module)}
    assert example["parameters"] == sum(info.count for info in reported.values())
    bias = reported.get(f"{LAYER}.bias")
    if example.get("bias") == "none":
        assert bias is None
    else:
        assert bias is not None
        assert example["bias_shape"] == list(bias.shape)
        assert example["bias_values"] == named_state(engine, module, "mlp")[f"{LAYER}.bias"].tolist()


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.params.mlp")]))
def test_port_mlp_parameter_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The bias-free 3 -> 4 -> 2 MLP holds 3·4 + 4·2 = 20 parameters on the engine."""
    require(engine, "module.mlp", spec_row.id)
    where = example["where"]
    widths = [where["Cin"], where["Chid"], where["Cout"]]
    module = build(engine, lambda: engine.module_mlp(widths, bool(where["bias"])))
    assert example["value"] == sum(info.count for info in engine.module_parameters(module))


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.parameter-identity")]))
def test_port_parameter_identity_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """3 -> 4 -> 2: 20 logical names (mlp.fc1.weight[2,1] among them) in layer order, weight
    row-major, and 20 distinct storage identities."""
    require(engine, "module.mlp", spec_row.id)
    require(engine, "module.identity", spec_row.id)
    module = build(engine, lambda: engine.module_mlp(example["widths"], False))
    reported = engine.module_parameters(module)
    names = [name for info in reported for name in scalar_names(info.name, info.shape)]
    assert layer_names(example["widths"], False) == [info.name for info in reported]
    assert example["parameters"] == len(names) == len(set(names))
    assert example["name"] in names
    storage = [key for item in engine.module_identities(module) for key in item.storage]
    assert example["distinct_identities"] == len(set(storage))


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.weight-layout")]))
def test_port_weight_layout_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """3 -> 4 -> 2 on a (2, 3) input: weights (4, 3) and (2, 4), output (2, 2) = numpy's x Wᵀ chain."""
    require(engine, "module.mlp", spec_row.id)
    widths = example["widths"]
    module = build(engine, lambda: engine.module_mlp(widths, False))
    shapes = [list(info.shape) for info in engine.module_parameters(module)]
    assert example["weight_shapes"] == shapes
    x = input_array(*example["input_shape"])
    output = engine.module_forward(module, x)
    assert example["output_shape"] == list(output.shape)
    expected = numpy_mlp(named_state(engine, module, "mlp"), x, len(widths) - 1, MODEL)
    np.testing.assert_allclose(output, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.forward-leaves-parameters")]))
def test_port_forward_contract_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """3 -> 4 -> 2, input (2, 3): output (2, 2) and 0 parameter changes (values and identities)."""
    require(engine, "module.mlp", spec_row.id)
    require(engine, "module.identity", spec_row.id)
    module = build(engine, lambda: engine.module_mlp(example["widths"], False))
    before, values = engine.module_identities(module), named_state(engine, module, "mlp")
    output = engine.module_forward(module, input_array(*example["input_shape"]))
    assert example["output_shape"] == list(output.shape)
    after = named_state(engine, module, "mlp")
    changed = [name for name in values if not np.array_equal(values[name], after[name])]
    assert example["parameter_changes"] == len(
        changed + identity_changes(before, engine.module_identities(module))
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.seal-current-storage")]))
def test_port_replaced_storage_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """3 -> 4 -> 2: repeated forwards keep every identity; replacing fc1's weight storage is detected."""
    require(engine, "module.mlp", spec_row.id)
    require(engine, "module.identity", spec_row.id)
    module = build(engine, lambda: engine.module_mlp(example["widths"], False))
    before = engine.module_identities(module)
    x = input_array(2, example["widths"][0])
    engine.module_forward(module, x)
    engine.module_forward(module, x)
    assert example["repeated_forward_identity"] == (
        identity_changes(before, engine.module_identities(module)) == []
    )
    name = f"{MODEL}.{example['replaced']}.weight"
    old = engine.module_replace_parameter(module, name)
    assert example["refused"] == (identity_changes(before, engine.module_identities(module)) == [name])
    assert old is not None


@pytest.mark.parametrize(
    ("spec_row", "example"), example_params([row("S07.cost.mlp"), row("S07.cost.linear")])
)
def test_port_graph_cost_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """G_MLP = 76 (T = 2) and 38 (T = 1); G_fc1 = 40, G_fc2 = 28 ...: counted in the engine's graph."""
    require(engine, "module.graph-count", spec_row.id)
    where = example["where"]
    widths = (
        [where["Cin"], where["Chid"], where["Cout"]] if "Chid" in where else [where["Cin"], where["Cout"]]
    )
    use_bias = bool(where["bias"])
    if len(widths) == 3:
        require(engine, "module.mlp", spec_row.id)
        module = build(engine, lambda: engine.module_mlp(widths, use_bias))
    else:
        require(engine, "module.linear", spec_row.id)
        module = build(engine, lambda: engine.module_linear(widths[0], widths[1], use_bias))
    assert example["value"] == engine.module_graph_nodes(module, input_array(where["T"], widths[0]))


@pytest.mark.spec("S07.cost.mlp")
@pytest.mark.parametrize("tokens", [1, 2])
def test_port_graph_cost_of_the_seed_mlp_with_bias(engine: Engine, tokens: int) -> None:
    """The seed's 3 -> 4 -> 2 MLP with a bias (the only kind micrograd builds): the spec formula at
    bias = 1 (38 + 6 = 44 at T = 1, 76 + 12 = 88 at T = 2), counted in the engine's graph."""
    require(engine, "module.graph-count", "S07.cost.mlp")
    require(engine, "module.mlp", "S07.cost.mlp")
    delta = evaluate(row("S07.cost.bias-delta")["expr"], {"T": tokens, "Chid": 4, "Cout": 2})
    expected = spec_model_cost([3, 4, 2], tokens, False) + delta
    assert expected == spec_model_cost([3, 4, 2], tokens, True)
    module = build(engine, lambda: engine.module_mlp([3, 4, 2], True))
    assert expected == engine.module_graph_nodes(module, input_array(tokens, 3))


@pytest.mark.spec("S07.cost.bias-delta")
@pytest.mark.parametrize("tokens", [1, 2])
def test_port_bias_delta_of_the_seed_mlp(engine: Engine, tokens: int) -> None:
    """The seed's 3 -> 4 -> 2 MLP built with and without a bias: the engine's graphs differ by the
    spec's T·(C_hid + C_out) nodes (6 at T = 1, 12 at T = 2), whatever each count is on its own."""
    require(engine, "module.graph-count", "S07.cost.bias-delta")
    require(engine, "module.mlp", "S07.cost.bias-delta")
    delta = evaluate(row("S07.cost.bias-delta")["expr"], {"T": tokens, "Chid": 4, "Cout": 2})
    with_bias = build(engine, lambda: engine.module_mlp([3, 4, 2], True))
    without = build(engine, lambda: engine.module_mlp([3, 4, 2], False))
    inputs = input_array(tokens, 3)
    counted = engine.module_graph_nodes(with_bias, inputs) - engine.module_graph_nodes(without, inputs)
    assert delta == counted


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S07.rule.init-statistical")]))
def test_port_init_statistical_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """C_in = 64, 4096 samples: the engine's draws under the spec's InitSpec have a sample variance
    within the statistical tolerance of the target (0.015625 standard, 0.03125 relu)."""
    require(engine, "module.init", spec_row.id)
    fan_in = example["Cin"]
    spec = InitSpec("normal", 1.0, 0, example["role"])
    module = build(engine, lambda: engine.module_linear(fan_in, fan_in, False, spec))
    observed = sample_variance(named_state(engine, module, "mlp")[f"{LAYER}.weight"].ravel().tolist())
    assert example["samples"] == fan_in * fan_in
    bound = tolerance("normal", example["target"], example["samples"], 2, 1e-6)
    assert abs(observed - example["target"]) <= bound

"""Port conformance goldens for Stage 08's block: the hand-worked examples on the engine's own block.

Every number is read from a spec row's example; the engine's block is only measured, through the
adapter's plain-data reports (module.block).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.core.init import InitSpec
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.port import (
    BLOCK_MLP,
    GAIN,
    build,
    input_array,
    refused_when_built,
    scalar_names,
)
from contracts.spec_suite.spec_rows import (
    assert_engine_gives,
    example_params,
    only_example,
    require,
    row,
    rows,
)


def seed_block(
    engine: Engine, widths: list[int], eps: float, init: InitSpec | None = None, gain_init: float = 1.0
) -> Any:
    """The engine's bias-free block over widths (C = widths[0]), or a skip with the adapter's reason;
    the gains start at 1 (S08.rule.gain-init) unless told otherwise."""
    return build(engine, lambda: engine.module_block(widths[0], widths, eps, False, init, gain_init))


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(prefix="S08.params.")))
def test_port_block_parameter_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """C = 2: 2 gains; C = 2, Chid = 3: 14 parameters, 19 with a bias; C = Chid = 2: 10, on the engine."""
    require(engine, "module.block", spec_row.id)
    where = example["where"]
    width, hidden = where["C"], where.get("Chid", 1)
    module = build(
        engine,
        lambda: engine.module_block(
            width, [width, hidden, width], 1e-6, bool(where.get("bias", 0)), None, 1.0
        ),
    )
    counts = {info.name: info.count for info in engine.module_parameters(module)}
    counted = counts[GAIN] if spec_row.id == "S08.params.rms-norm" else sum(counts.values())
    assert example["value"] == counted


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.cost.block")]))
def test_port_block_graph_nodes_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """T = 1, C = 2, Chid = 3: 34 nodes; C = Chid = 2: 26; T = 2 with a bias: 78 (the engine's graph)."""
    require(engine, "module.graph-count", spec_row.id)
    require(engine, "module.block", spec_row.id)
    where = example["where"]
    width, hidden = where["C"], where["Chid"]
    module = build(
        engine,
        lambda: engine.module_block(width, [width, hidden, width], 1e-6, bool(where["bias"]), None, 1.0),
    )
    assert example["value"] == engine.module_graph_nodes(module, input_array(where["T"], width))


@pytest.mark.spec("S08.rule.block-forward")
def test_port_block_forward_example(engine: Engine) -> None:
    """x = (3, 4), eps = 3.5, gain 1, fc1 = [[1, 0], [0, −1]], fc2 = [[1, 1], [0, 2]]: RMSNorm (0.75, 1),
    y = (3.75, 4), 10 parameters (all by hand)."""
    require(engine, "module.block", "S08.rule.block-forward")
    example = only_example("S08.rule.block-forward")
    module = seed_block(engine, example["widths"], example["eps"])
    for layer, weight in example["weights"].items():
        engine.module_assign(module, f"{BLOCK_MLP}.{layer}.weight", np.array(weight))
    x = np.array(example["x"])
    assert_engine_gives(
        np.array(example["norm"]), engine.module_norm_forward(module, x), rel=1e-12, what="RMSNorm(x)"
    )
    assert_engine_gives(np.array(example["value"]), engine.module_forward(module, x), rel=1e-12, what="y")
    assert example["parameters"] == sum(info.count for info in engine.module_parameters(module))


@pytest.mark.spec("S08.rule.gain-seal")
def test_port_gain_seal_example(engine: Engine) -> None:
    """2 -> 3 -> 2: block.norm.gain[0], [1], then block.mlp.fc1.weight[0,0]; 14 distinct storage
    identities; gains set to (2, −1) in place: RMSNorm(3, 4) = (1.5, −1) with eps = 3.5."""
    require(engine, "module.block", "S08.rule.gain-seal")
    require(engine, "module.identity", "S08.rule.gain-seal")
    example = only_example("S08.rule.gain-seal")
    module = seed_block(engine, example["widths"], example["eps"])
    reported = engine.module_parameters(module)
    names = [name for info in reported for name in scalar_names(info.name, info.shape)]
    assert example["names"] == names[: len(example["names"])]
    storage = [key for item in engine.module_identities(module) for key in item.storage]
    assert (example["parameters"], example["distinct_identities"]) == (len(names), len(set(storage)))
    engine.module_assign(module, GAIN, np.array(example["gain"]))
    x = np.array(example["x"])
    engine.module_forward(module, x)
    assert_engine_gives(
        np.array(example["norm"]), engine.module_norm_forward(module, x), rel=1e-12, what="RMSNorm(x)"
    )


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.gain-init")]))
def test_port_gain_init_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """2 -> 3 -> 2: gains (1, 1), 12 drawn weights of 14; 3 -> 1 -> 3 at 0.5: gains 0.5, 6 drawn of 9.
    A scalar is drawn when another InitSpec seed changes it: exactly the MLP's weights, never a gain."""
    require(engine, "module.block", spec_row.id)
    require(engine, "module.init", spec_row.id)
    widths, gain_init = example["widths"], example["gain_init"]
    states = [
        engine.module_state(
            seed_block(engine, widths, 1e-6, InitSpec("normal", 1.0, seed), gain_init=gain_init)
        )
        for seed in (0, 1)
    ]
    assert example["gains"] == states[0][GAIN].tolist() == states[1][GAIN].tolist()
    drawn = sum(int(np.sum(states[0][name] != states[1][name])) for name in states[0])
    assert (example["initializer_calls"], example["values_created"]) == (
        drawn,
        sum(values.size for values in states[0].values()),
    )


FAILURES = ("S08.fail.norm-config", "S08.fail.norm-type", "S08.fail.norm-width", "S08.fail.residual-width")


def port_examples() -> list[Any]:
    """The failure rows' hand cases, except a norm name's (the adapter's naming, not the engine's)."""
    return [param for param in example_params(row(r) for r in FAILURES) if "name" not in param.values[1]]


@pytest.mark.parametrize(("spec_row", "example"), port_examples())
def test_port_block_refusal_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """width 0, eps 0, −1e-6, nan, inf, gain_init nan; width True or 2.0, eps '1e-6' or True, gain_init
    '1'; a width-3 norm before a 2 -> 3 -> 2 MLP; 2 -> 3 -> 4 and 3 -> 1: refused when built, in the
    row's family."""
    require(engine, "module.block", spec_row.id)
    refused_when_built(engine, spec_row, example)

"""Stage 08 block goldens: the hand-counted numbers of x + MLP(RMSNorm(x)), read from the rows' examples."""

from __future__ import annotations

import re
from typing import Any

import pytest

from contracts import CountingValue, Matrix
from contracts.cli.plan import plan_main
from contracts.core.block import BlockPlan
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite.cases.stage07 import graph_nodes
from contracts.spec_suite.cases.stage08 import ATTEMPTS, MEASURE, table_initializer
from contracts.spec_suite.probes import CountingInitializer, assert_refused, exception_type
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    example_params,
    only_example,
    reference_only,
    require,
    row,
    rows,
)

# These tests exercise this project's own Block (Value, Linear, MLP): reference-only. The rows a port has
# also run on the engine's own block (module.block): tests/properties/test_port_stage08.py and goldens.
pytestmark = reference_only(OWN_TYPES)

BLOCK_FAILURES = [row(row_id) for row_id in ATTEMPTS]


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="08", kind="formula")))
def test_formula_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Width 2, one token: 2 gains, 10 RMSNorm nodes, 2 residual nodes, 14 parameters, 34 block nodes."""
    require(engine, "linear", spec_row.id)
    where = example["where"]
    assert example["value"] == evaluate(spec_row["expr"], {name: where[name] for name in spec_row["symbols"]})
    measured = MEASURE[spec_row.id](where)
    assert {k: example["value"] for k in spec_row["compared_with"]} == {
        k: measured[k] for k in spec_row["compared_with"]
    }


@pytest.mark.spec("S08.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(BLOCK_FAILURES))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each hand case is refused with the row's error (the exact message where the example gives one)."""
    require(engine, "linear", spec_row.id)
    attempt = ATTEMPTS[spec_row.id](example)
    assert_refused(spec_row, attempt)
    if "message" in example:
        with pytest.raises(exception_type(spec_row["exception"])) as raised:
            ATTEMPTS[spec_row.id](example).action()
        assert example["message"] == str(raised.value)


@pytest.mark.spec("S08.rule.block-forward")
def test_block_forward_example(engine: Engine) -> None:
    """x = (3, 4), eps = 3.5: RMSNorm (0.75, 1), y = (3.75, 4), 10 parameters, 26 nodes (all by hand)."""
    require(engine, "linear")
    example = only_example("S08.rule.block-forward")
    plan = BlockPlan.rmsnorm_mlp(example["widths"], example["eps"])
    block = plan.materialize(table_initializer(example["weights"]), CountingValue)
    x = Matrix(example["x"], CountingValue)
    counter = CountingValue.reset()
    out = block.forward(x)
    operations = counter.operations
    normed = [[v.data for v in block.normalize(r)] for r in x.rows]
    assert (example["norm"], example["value"]) == (normed, out.data())
    assert (example["parameters"], example["graph_nodes"]) == (len(block.seal), operations)
    assert example["graph_nodes"] == graph_nodes(out)


@pytest.mark.spec("S08.rule.block-plan")
def test_block_plan_example(engine: Engine) -> None:
    """2 -> 3 -> 2 over one token: norm 10, fc1 9, relu1 3, fc2 10, residual 2 nodes; nothing allocated."""
    require(engine, "linear")
    example = only_example("S08.rule.block-plan")
    counter = CountingValue.reset()
    forward = BlockPlan.rmsnorm_mlp(example["widths"]).plan_forward(example["tokens"])
    steps = forward.steps
    assert (example["steps"], example["kinds"]) == ([s.name for s in steps], [s.kind for s in steps])
    assert (example["graph_nodes"], example["parameters"]) == (
        [s.graph_nodes for s in steps],
        [s.parameters for s in steps],
    )
    assert (example["values_created"], example["operations"]) == (counter.values, counter.operations)


@pytest.mark.spec("S08.rule.gain-seal")
def test_gain_seal_example(engine: Engine) -> None:
    """14 distinct sealed Values, gains first; gains set to (2, −1) in place: RMSNorm(3, 4) = (1.5, −1)."""
    require(engine, "linear")
    example = only_example("S08.rule.gain-seal")
    block = BlockPlan.rmsnorm_mlp(example["widths"], example["eps"]).materialize()
    refs = block.seal.refs
    assert example["names"] == [ref.name for ref in refs[: len(example["names"])]]
    assert (example["parameters"], example["distinct_identities"]) == (
        len(refs),
        len({r.identity() for r in refs}),
    )
    for value, new in zip(block.gain.values, example["gain"], strict=True):
        value.data = new
    x = Matrix(example["x"])
    block.forward(x)
    assert example["norm"] == [[v.data for v in block.normalize(r)] for r in x.rows]


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S08.rule.gain-init")]))
def test_gain_init_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """2 -> 3 -> 2: gains (1, 1), 12 initializer calls, 14 Values; 3 -> 1 -> 3 at 0.5: 6 calls, 9 Values."""
    require(engine, "linear", spec_row.id)
    initializer = CountingInitializer()
    counter = CountingValue.reset()
    plan = BlockPlan.rmsnorm_mlp(example["widths"], gain_init=example["gain_init"])
    block = plan.materialize(initializer, CountingValue)
    assert (example["gains"], example["initializer_calls"], example["values_created"]) == (
        block.gain.data(),
        initializer.calls,
        counter.values,
    )
    assert example["values_created"] == len({id(v) for v in block.parameters()})


@pytest.mark.spec("S08.rule.block-plan", "S08.cost.block", "S08.params.block")
def test_plan_command_prints_the_block(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan --widths 2,3,2 --block rmsnorm-residual`: each step's hand count, total 14 / 34."""
    require(engine, "linear")
    example = only_example("S08.rule.block-plan")
    (cost,) = [
        e for e in row("S08.cost.block")["examples"] if e["where"] == {"T": 1, "C": 2, "Chid": 3, "bias": 0}
    ]
    (params,) = [
        e for e in row("S08.params.block")["examples"] if e["where"] == {"C": 2, "Chid": 3, "bias": 0}
    ]
    widths = ",".join(map(str, example["widths"]))
    assert 0 == plan_main(
        ["--widths", widths, "--tokens", str(example["tokens"]), "--block", "rmsnorm-residual"]
    )
    lines = capsys.readouterr().out.splitlines()
    expected = [
        [name, kind, str(p), str(g)]
        for name, kind, p, g in zip(
            example["steps"], example["kinds"], example["parameters"], example["graph_nodes"], strict=True
        )
    ]
    assert expected == [[*line.split()[:2], *line.split()[-2:]] for line in lines[2:-1]]
    assert ["total", str(params["value"]), str(cost["value"])] == [
        lines[-1].split()[0],
        *lines[-1].split()[-2:],
    ]
    assert lines[0].startswith("block block: x + MLP(RMSNorm(x)), widths 2 -> 3 -> 2, tokens T = 1")


@pytest.mark.spec("S08.fail.residual-width", "S08.fail.norm-config")
@pytest.mark.parametrize(
    ("row_id", "argv"), [("S08.fail.residual-width", []), ("S08.fail.norm-config", ["--eps", "0"])]
)
def test_plan_command_reports_a_block_error(
    engine: Engine, capsys: pytest.CaptureFixture[str], row_id: str, argv: list[str]
) -> None:
    """A residual that cannot add (2,3,4) or eps 0: exit 2, the row's message on stderr, nothing on stdout."""
    require(engine, "linear")
    widths = "2,3,4" if row_id == "S08.fail.residual-width" else "2,3,2"
    assert 2 == plan_main(["--widths", widths, "--block", "rmsnorm-residual", *argv])
    captured = capsys.readouterr()
    assert "" == captured.out
    assert re.search(
        row(row_id)["message"], captured.err.removeprefix("contracts plan: error: ").rstrip("\n")
    )


@pytest.mark.spec("S07.cost.mlp")
def test_plan_command_without_block_is_unchanged(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --block the output is the MLP's table (no norm, no residual); --eps alone changes nothing."""
    require(engine, "linear")
    assert 0 == plan_main(["--widths", "3,4,2", "--tokens", "2"])
    plain = capsys.readouterr().out
    assert 0 == plan_main(["--widths", "3,4,2", "--tokens", "2", "--eps", "0.5"])
    assert plain == capsys.readouterr().out
    assert (["fc1", "relu1", "fc2", "total"], "model mlp:") == (
        [line.split()[0] for line in plain.splitlines()[2:]],
        plain[:10],
    )

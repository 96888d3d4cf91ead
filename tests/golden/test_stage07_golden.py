"""Stage 07 goldens: every number the seed prints, read from the spec rows' examples."""

from __future__ import annotations

import re
from typing import Any

import pytest

from contracts import CountingValue, Matrix
from contracts.cli.plan import format_plan, plan_main
from contracts.core.errors import ParameterIdentityError
from contracts.core.init import InitSpec
from contracts.core.linear import Linear, LinearPlan
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite.cases.stage07 import (
    ATTEMPTS,
    MEASURE,
    counted_model,
    input_matrix,
    sample_variance,
    tolerance,
)
from contracts.spec_suite.probes import CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    example_params,
    only_example,
    reference_only,
    require,
    row,
    rows,
)

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)


def planner_value(spec_row: SpecRow, where: dict[str, Any]) -> float:
    """The implementation's number for a formula row that MEASURE does not cover."""
    if spec_row.id == "S07.init.variance-standard":
        return InitSpec(gain=where["gain"]).variance(where["Cin"])
    if spec_row.id == "S07.init.variance-relu":
        return InitSpec(gain=where["gain"], role="relu").variance(where["Cin"])
    raise AssertionError(f"{spec_row.id}: no planner value")


OUTPUT_VARIANCE_ROWS = 4096  # output features: the sample of y_o whose variance is compared
OUTPUT_VARIANCE_SEED = 11


def forward_output_variance(where: dict[str, Any]) -> tuple[float, float]:
    """s² of y_o over a real Linear forward: C_in inputs with mean(x²) = var_x, standard weights of
    variance var_w (gain² = var_w·C_in), OUTPUT_VARIANCE_ROWS outputs; and the tolerance for that n."""
    fan_in = where["Cin"]
    amplitude = where["var_x"] ** 0.5
    x = Matrix([[amplitude * (-1) ** i for i in range(fan_in)]])  # mean(x²) = var_x exactly
    init = InitSpec("normal", (where["var_w"] * fan_in) ** 0.5, OUTPUT_VARIANCE_SEED)
    layer = LinearPlan("probe", fan_in, OUTPUT_VARIANCE_ROWS, init=init).materialize()
    outputs = layer.forward(x).data()[0]
    target = fan_in * where["var_w"] * where["var_x"]
    return sample_variance(outputs), tolerance("normal", target, OUTPUT_VARIANCE_ROWS, checks=1)


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="07", kind="formula")))
def test_formula_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """20 parameters, 40 + 8 + 28 = 76 and 20 + 4 + 14 = 38 nodes, ΔP 6, ΔG 12, 0.015625, 0.03125."""
    require(engine, "linear", spec_row.id)
    where = example["where"]
    symbols = {name: where[name] for name in spec_row["symbols"]}
    assert example["value"] == evaluate(spec_row["expr"], symbols)
    if spec_row.id == "S07.init.output-variance":
        observed, bound = forward_output_variance(where)
        assert abs(observed - example["value"]) <= bound, f"s² = {observed}, tolerance {bound}"
        return
    if spec_row.id not in MEASURE:
        assert example["value"] == planner_value(spec_row, where)
        return
    measured = MEASURE[spec_row.id](where)
    assert {k: example["value"] for k in spec_row["compared_with"]} == {
        k: measured[k] for k in spec_row["compared_with"]
    }


@pytest.mark.spec("S07.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="07", kind="failure")))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The seed's failing inputs (budget 19, budget 37, the (shared, shared) alias, ...) are refused."""
    require(engine, "linear", spec_row.id)
    assert_refused(spec_row, ATTEMPTS[spec_row.id](example))


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="07", kind="gradient")))
def test_gradient_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """x = (3, -4), w = (2, 5): y = -14, dy/dx = (2, 5), dy/dw = (3, -4), through Linear."""
    require(engine, "linear", spec_row.id)
    where = example["where"]
    expected = {name: example["grads"][name] for name in spec_row["domain"]}
    spec_grads = {name: evaluate(spec_row["grads"][name], {**where, "g": 1.0}) for name in spec_row["domain"]}
    assert (example["value"], expected) == (evaluate(spec_row["forward"], where), spec_grads)
    x = Matrix([[where["x0"], where["x1"]]])
    weight = Matrix([[where["w0"], where["w1"]]])
    y = Linear(LinearPlan("fc", 2, 1), weight).forward(x).rows[0][0]
    y.backward()
    (x0, x1), (w0, w1) = x.rows[0], weight.rows[0]
    actual = {"x0": x0.grad, "x1": x1.grad, "w0": w0.grad, "w1": w1.grad}
    assert (example["value"], expected) == (y.data, actual)


@pytest.mark.spec("S07.rule.weight-layout")
def test_weight_layout_example(engine: Engine) -> None:
    """3 -> 4 -> 2: weights (4, 3) and (2, 4); input (2, 3) planned and executed as (2, 2)."""
    require(engine, "linear")
    example = only_example("S07.rule.weight-layout")
    model = ModelPlan.mlp(example["widths"]).materialize()
    out = model.forward(input_matrix(*example["input_shape"]))
    assert [tuple(shape) for shape in example["weight_shapes"]] == [
        layer.weight.shape for layer in model.layers
    ]
    assert (tuple(example["output_shape"]),) * 2 == (
        model.plan_forward(example["input_shape"][0]).output_shape(),
        out.shape,
    )


@pytest.mark.spec("S07.rule.plan-no-allocation")
def test_plan_no_allocation_example(engine: Engine) -> None:
    """Planning 3 -> 4 -> 2 over T = 2 creates 0 Values and 0 operation nodes."""
    require(engine, "linear")
    example = only_example("S07.rule.plan-no-allocation")
    counter = CountingValue.reset()
    plan = ModelPlan.mlp(example["widths"])
    plan.plan_forward(example["tokens"])
    assert (example["values_created"], example["operations"]) == (counter.values, counter.operations)


@pytest.mark.spec("S07.rule.model-plan-order", "S07.fail.parameter-budget")
@pytest.mark.parametrize("index", range(2))
def test_parameter_budget_example(engine: Engine, index: int) -> None:
    """Budget 19: refused with 0 initializer calls; budget 20: 20 calls and 20 parameters; each is the
    boundary (one more than 19 succeeds, one less than 20 is refused)."""
    require(engine, "linear")
    example = row("S07.rule.model-plan-order")["examples"][index]
    attempt = ATTEMPTS["S07.fail.parameter-budget"](example)
    if example["refused"]:
        assert_refused(row("S07.fail.parameter-budget"), attempt)
        assert attempt.initializer is not None
        assert example["initializer_calls"] == attempt.initializer.calls
        ModelPlan.mlp(example["widths"], parameter_budget=example["budget"] + 1).materialize(
            CountingInitializer()
        )
        return
    initializer = CountingInitializer()
    model = ModelPlan.mlp(example["widths"], parameter_budget=example["budget"]).materialize(initializer)
    assert (example["initializer_calls"], example["parameters"]) == (
        initializer.calls,
        model.parameter_count(),
    )
    one_less = ATTEMPTS["S07.fail.parameter-budget"]({**example, "budget": example["budget"] - 1})
    assert_refused(row("S07.fail.parameter-budget"), one_less)


@pytest.mark.spec("S07.rule.bias-absent")
@pytest.mark.parametrize("index", range(2))
def test_bias_example(engine: Engine, index: int) -> None:
    """Without bias: no bias at all and 12 parameters; with: a (4,) zero Vector and 16 parameters."""
    require(engine, "linear")
    example = row("S07.rule.bias-absent")["examples"][index]
    layer = LinearPlan("fc1", example["Cin"], example["Cout"], example["use_bias"]).materialize()
    assert example["parameters"] == len(layer.seal)
    if not example["use_bias"]:
        assert (example["bias"], None) == ("none", layer.bias)
        return
    assert layer.bias is not None
    assert (tuple(example["bias_shape"]), example["bias_values"]) == (layer.bias.shape, layer.bias.data())


@pytest.mark.spec("S07.rule.parameter-identity")
def test_parameter_identity_example(engine: Engine) -> None:
    """3 -> 4 -> 2: 20 parameters, 20 distinct Value objects, one of them named mlp.fc1.weight[2,1]."""
    require(engine, "linear")
    example = only_example("S07.rule.parameter-identity")
    model = ModelPlan.mlp(example["widths"]).materialize()
    names = {ref.name: ref for ref in model.seal.refs}
    assert (example["parameters"], example["distinct_identities"]) == (
        len(names),
        len({ref.identity() for ref in model.seal.refs}),
    )
    assert model.layers[0].weight.rows[2][1] is names[example["name"]].value


@pytest.mark.spec("S07.rule.seal-order")
def test_seal_order_example(engine: Engine) -> None:
    """2 -> 2 -> 1 with bias: fc1's four weights row-major, its two biases, then fc2's weights and bias."""
    require(engine, "linear")
    example = only_example("S07.rule.seal-order")
    model = ModelPlan.mlp(example["widths"], example["use_bias"]).materialize()
    assert example["names"] == [ref.name for ref in model.seal.refs]


@pytest.mark.spec("S07.rule.forward-contract")
def test_forward_contract_example(engine: Engine) -> None:
    """Input (2, 3): planned (2, 2), output (2, 2), and no parameter changed by the forward."""
    require(engine, "linear")
    example = only_example("S07.rule.forward-contract")
    model = counted_model(example)
    before = [(v.data, v.grad) for v in model.parameters()]
    out = model.forward(input_matrix(*example["input_shape"]))
    changes = sum(b != (v.data, v.grad) for b, v in zip(before, model.parameters(), strict=True))
    planned = model.plan_forward(example["input_shape"][0]).output_shape()
    assert (
        tuple(example["planned_shape"]),
        tuple(example["output_shape"]),
        example["parameter_changes"],
    ) == (
        planned,
        out.shape,
        changes,
    )


@pytest.mark.spec("S07.rule.seal-current-storage", "S07.fail.storage-replaced")
def test_storage_replacement_example(engine: Engine) -> None:
    """Repeated forwards keep identity; layer.weight = another Matrix is refused naming fc1."""
    require(engine, "linear")
    example = only_example("S07.rule.seal-current-storage")
    model = ModelPlan.mlp(example["widths"]).materialize()
    x = input_matrix(2, example["widths"][0])
    identities = [
        [ref.identity() for ref in model.current_refs()] for _ in (model.forward(x), model.forward(x))
    ]
    assert example["repeated_forward_identity"] == (identities[0] == identities[1])
    layer = next(layer for layer in model.layers if layer.name == example["replaced"])
    layer.weight = Matrix(layer.weight.data())
    with pytest.raises(
        ParameterIdentityError, match=rf"layer '{example['replaced']}' parameter storage identity changed"
    ) as raised:
        model.forward(x)
    assert example["refused"] == isinstance(raised.value, ParameterIdentityError)


@pytest.mark.spec("S07.rule.optimizer-update")
def test_optimizer_update_example(engine: Engine) -> None:
    """w = (2, 5), x = (3, -4): -14; after the in-place step w += (-1, 1): -21, no refusal."""
    require(engine, "linear")
    example = only_example("S07.rule.optimizer-update")
    layer = LinearPlan("fc1", *example["widths"]).materialize(lambda _, o, i: float(example["weight"][o][i]))
    x = Matrix(example["x"])
    before = layer.forward(x).rows[0][0].data
    for weight_row, step_row in zip(layer.weight.rows, example["update"], strict=True):
        for value, step in zip(weight_row, step_row, strict=True):
            value.data += step
    after = layer.forward(x).rows[0][0].data
    assert (example["before"], example["after"]) == (before, after)


@pytest.mark.spec("S07.rule.graph-budget", "S07.fail.graph-budget")
@pytest.mark.parametrize("index", range(2))
def test_graph_budget_example(engine: Engine, index: int) -> None:
    """T = 1: budget 37 refused with 0 operations; budget 38 gives (1, 2) and exactly 38 operations; each
    is the boundary (one more than 37 succeeds, one less than 38 is refused)."""
    require(engine, "linear")
    example = row("S07.rule.graph-budget")["examples"][index]
    x = input_matrix(example["tokens"], example["widths"][0])
    if example["refused"]:
        assert_refused(row("S07.fail.graph-budget"), ATTEMPTS["S07.fail.graph-budget"](example))
        assert example["operations"] == CountingValue.counter.operations
        counted_model(example).forward(x, example["budget"] + 1)
        return
    model = counted_model(example)
    counter = CountingValue.reset()
    out = model.forward(x, example["budget"])
    assert (example["operations"], tuple(example["output_shape"])) == (counter.operations, out.shape)
    one_less = ATTEMPTS["S07.fail.graph-budget"]({**example, "budget": example["budget"] - 1})
    assert_refused(row("S07.fail.graph-budget"), one_less)


@pytest.mark.spec("S07.rule.init-deterministic")
def test_init_deterministic_example(engine: Engine) -> None:
    """Seed 0: fc1 drawn in the model equals fc1 drawn alone; seed 1 gives other values."""
    require(engine, "linear")
    example = only_example("S07.rule.init-deterministic")
    model = ModelPlan.mlp(example["widths"], init=InitSpec(seed=example["seed"])).materialize()
    layer = next(layer for layer in model.layers if layer.name == example["layer"])
    plan = layer.plan
    alone = LinearPlan(plan.name, plan.in_features, plan.out_features, init=plan.init).materialize()
    other = LinearPlan(
        plan.name, plan.in_features, plan.out_features, init=InitSpec(seed=example["seed"] + 1)
    )
    assert layer.weight.data() == alone.weight.data()
    assert layer.weight.data() != other.materialize().weight.data()


@pytest.mark.spec("S07.rule.init-statistical")
@pytest.mark.parametrize("index", range(2))
def test_seed_sample_variances_are_within_tolerance(engine: Engine, index: int) -> None:
    """The seed's own s² (0.016177, 0.031363 for n = 4096) and ours lie within the tolerance; the target
    is the role's variance formula at C_in (gain 1), and n is the C_in x C_in weights drawn."""
    require(engine, "linear")
    example = row("S07.rule.init-statistical")["examples"][index]
    n, target = example["samples"], example["target"]
    formula = row(f"S07.init.variance-{example['role']}")["expr"]
    assert target == pytest.approx(evaluate(formula, {"gain": 1.0, "Cin": example["Cin"]}), rel=1e-12)
    bound = tolerance("normal", target, n, checks=len(row("S07.rule.init-statistical")["examples"]) * 2)
    assert abs(example["seed_sample_variance"] - target) <= bound
    layer = LinearPlan(
        "probe", example["Cin"], example["Cin"], init=InitSpec(role=example["role"])
    ).materialize()
    weights = [v.data for v in layer.weight.values()]
    assert n == len(weights)
    observed = sample_variance(weights)
    assert abs(observed - target) <= bound


@pytest.mark.spec("S07.rule.layer-roles")
def test_layer_roles_example(engine: Engine) -> None:
    """3 -> 4 -> 2: fc1 standard (1/C_in), fc2 relu (2/C_in)."""
    require(engine, "linear")
    example = only_example("S07.rule.layer-roles")
    plan = ModelPlan.mlp(example["widths"])
    assert example["roles"] == [layer.init.role for layer in plan.layers]


def table_numbers(text: str, step: str) -> list[int]:
    """The integers on the line of the plan table that starts with step."""
    (line,) = [line for line in text.splitlines() if line.split()[:1] == [step]]
    return [int(n) for n in line.split()[-2:]]


@pytest.mark.spec("S07.cost.mlp", "S07.params.mlp", "S07.cost.linear", "S07.cost.relu")
def test_plan_command_prints_the_seed_numbers(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan --widths 3,4,2 --tokens 2`: fc1 12/40, relu1 0/8, fc2 8/28, total 20/76."""
    require(engine, "linear")
    (mlp,) = [e for e in row("S07.cost.mlp")["examples"] if e["where"]["T"] == 2]
    (params,) = row("S07.params.mlp")["examples"]
    linear = {(e["where"]["T"], e["where"]["Cin"]): e["value"] for e in row("S07.cost.linear")["examples"]}
    relu = {e["where"]["T"]: e["value"] for e in row("S07.cost.relu")["examples"]}
    linear_params = [e["value"] for e in row("S07.params.linear")["examples"]]
    assert 0 == plan_main(["--widths", "3,4,2", "--tokens", "2"])
    text = capsys.readouterr().out
    assert text == format_plan([3, 4, 2], 2, False)
    assert [linear_params[0], linear[(2, 3)]] == table_numbers(text, "fc1")
    assert [0, relu[2]] == table_numbers(text, "relu1")
    assert [linear_params[1], linear[(2, 4)]] == table_numbers(text, "fc2")
    assert [params["value"], mlp["value"]] == table_numbers(text, "total")


@pytest.mark.spec("S07.fail.invalid-plan")
def test_plan_command_reports_a_contract_error(engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan --widths 3,0,2` exits 2 and names the invalid width on stderr."""
    require(engine, "linear")
    assert 2 == plan_main(["--widths", "3,0,2", "--tokens", "2"])
    assert re.search(row("S07.fail.invalid-plan")["message"], capsys.readouterr().err.split("error: ", 1)[1])

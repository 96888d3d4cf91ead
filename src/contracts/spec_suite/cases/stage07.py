"""Stage 07 cases as data: spec examples and strategy draws go through the same builders.

Expected numbers come from the spec rows (spec_model_parameters, spec_model_cost compose the
per-layer formulas); the implementation is only ever measured.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from statistics import NormalDist
from typing import Any, cast

import numpy as np

from contracts import CountingValue, Matrix, Value, Vector
from contracts.core.frozen import set_fields
from contracts.core.init import InitSpec
from contracts.core.linear import Linear, LinearPlan
from contracts.core.model import MLP, ModelPlan
from contracts.spec import evaluate
from contracts.spec_suite.cases.stage05 import operation_nodes, output_values
from contracts.spec_suite.probes import Attempt, CountingInitializer
from contracts.spec_suite.spec_rows import row

Case = dict[str, Any]
Measured = dict[str, float]
DEFAULT_WIDTHS = [3, 4, 2]
INIT_KEYS = ("distribution", "gain", "seed", "role")

# ---------------------------------------------------------------- the spec as the oracle


def spec_value(row_id: str, **symbols: float) -> Any:
    """A formula row's expression evaluated at the given symbols (extra symbols are ignored)."""
    formula = row(row_id)
    return evaluate(formula["expr"], {name: symbols[name] for name in formula["symbols"]})


def spec_model_parameters(widths: Sequence[int], use_bias: bool) -> int:
    """The sum of S07.params.linear over the layers of an MLP over widths."""
    return sum(
        int(spec_value("S07.params.linear", Cin=c_in, Cout=c_out, bias=int(use_bias)))
        for c_in, c_out in itertools.pairwise(widths)
    )


def spec_linear_costs(widths: Sequence[int], tokens: int, use_bias: bool) -> list[int]:
    """S07.cost.linear of each layer, in order."""
    return [
        int(spec_value("S07.cost.linear", T=tokens, Cin=c_in, Cout=c_out, bias=int(use_bias)))
        for c_in, c_out in itertools.pairwise(widths)
    ]


def spec_relu_cost(widths: Sequence[int], tokens: int) -> int:
    """S07.cost.relu over the hidden widths."""
    return sum(int(spec_value("S07.cost.relu", T=tokens, Chid=width)) for width in widths[1:-1])


def spec_model_cost(widths: Sequence[int], tokens: int, use_bias: bool) -> int:
    """S07.cost.linear over the layers plus S07.cost.relu over the hidden widths."""
    return sum(spec_linear_costs(widths, tokens, use_bias)) + spec_relu_cost(widths, tokens)


def spec_weight_count(widths: Sequence[int]) -> int:
    """Initializer calls: one per weight (a bias is zeros, never drawn)."""
    return spec_model_parameters(widths, False)


# ---------------------------------------------------------------- builders


def model_plan(case: Case) -> ModelPlan:
    return ModelPlan.mlp(case.get("widths", DEFAULT_WIDTHS), use_bias=case.get("use_bias", False))


def counted_model(case: Case, initializer: CountingInitializer | None = None) -> MLP:
    """An MLP whose every parameter is a CountingValue (so every operation is counted)."""
    return model_plan(case).materialize(initializer, CountingValue)


def input_matrix(tokens: int, width: int, offset: float = 0.0) -> Matrix:
    """A (T, C_in) input of CountingValues: rows are tokens, no zero and no repeated magnitude. Counted
    like the parameters, so an operation is counted whichever operand comes first (x * w or w * x)."""
    return Matrix(
        [[offset + 0.5 + 0.25 * t - 0.375 * i * (-1) ** i for i in range(width)] for t in range(tokens)],
        CountingValue,
    )


def parameters_of(model: MLP) -> list[Value]:
    return [ref.value for ref in model.current_refs()]


def storage_identity(model: MLP) -> Callable[[], object]:
    """What the model's storage is right now: layer objects, storage objects, Value ids."""

    def identity() -> object:
        return tuple(
            (
                id(layer),
                layer.name,
                id(layer.weight),
                tuple(id(v) for v in layer.weight.values()),
                id(layer.bias),
            )
            for layer in model.layers
        )

    return identity


def forward_attempt(model: MLP, run: Callable[[], object]) -> Attempt:
    return Attempt(run, parameters=parameters_of(model), identity=storage_identity(model))


def reference_forward(model: MLP, x: list[list[float]]) -> np.ndarray:
    """numpy: y = x W^T + b per layer, relu between layers, from the parameters' current data."""
    out = np.asarray(x, dtype=np.float64)
    for index, layer in enumerate(model.layers):
        out = out @ np.asarray(layer.weight.data()).T
        if layer.bias is not None:
            out = out + np.asarray(layer.bias.data())
        if index < len(model.layers) - 1:
            out = np.maximum(out, 0.0)
    return out


def graph_nodes(result: Matrix) -> int:
    return operation_nodes(output_values(result))


# ---------------------------------------------------------------- broken executors (postconditions)


class BrokenMLP(MLP):
    """An MLP whose execution breaks a postcondition (only a broken executor can)."""

    REVERIFIED = MLP.REVERIFIED | {"fault"}  # a test double: its fault is switched between forwards

    def __init__(self, plan: ModelPlan, layers: Sequence[Linear], fault: str, layer: int) -> None:
        super().__init__(plan, layers)
        self.fault: str
        self.target: int
        set_fields(self, fault=fault, target=layer)  # an MLP is frozen after construction

    def execute(self, rows: tuple[tuple[Value, ...], ...]) -> tuple[tuple[Value, ...], ...]:
        out = super().execute(rows)
        layer = self.layers[self.target]
        first = layer.weight.rows[0][0]
        if self.fault == "mutate-data":
            first.data += 1.0
        elif self.fault == "mutate-grad":
            first.grad += 1.0
        elif self.fault == "replace-storage":
            layer.weight = Matrix(layer.weight.data())
        elif self.fault == "mutate-then-replace":  # the restored storage must get its old data back too
            first.data += 1.0
            layer.weight = Matrix(layer.weight.data())
        elif self.fault == "rescope":  # the layer's scope is part of its parameters' names: restored too
            layer.scope = "elsewhere"
        elif self.fault == "rename":
            layer.name = "elsewhere"
        elif self.fault == "replace-rows":
            layer.weight = Matrix.trusted(Matrix(layer.weight.data()).rows)
        elif self.fault == "drop-column":
            out = tuple(r[:-1] for r in out)
        elif self.fault == "ragged-row":
            out = (*out[:-1], out[-1][:-1])  # the last row one element short: the first row looks right
        elif self.fault == "long-row":
            out = (*out[:-1], (*out[-1], out[-1][0]))  # the last row one element long: the first looks right
        elif self.fault == "drop-row":
            out = out[:-1]
        elif self.fault == "extra-row":
            out = (*out, out[0])
        return out


def broken_model(case: Case) -> BrokenMLP:
    plan = model_plan(case)
    layers = plan.materialize(value_type=CountingValue).layers
    return BrokenMLP(plan, layers, case["executor"], case.get("layer", 0) % len(layers))


# ---------------------------------------------------------------- attempts, one builder per failure row


def plan_attempt(case: Case) -> Attempt:
    """LinearPlan / InitSpec from the case's keyword values (defaults elsewhere), then a model."""
    initializer = CountingInitializer()

    def action() -> object:
        init = case["init"] if "init" in case else InitSpec(**{k: case[k] for k in INIT_KEYS if k in case})
        layer = LinearPlan(
            case.get("name", "fc1"),
            case.get("in_features", 3),
            case.get("out_features", 4),
            case.get("use_bias", False),
            init,
        )
        return ModelPlan([layer]).materialize(initializer, CountingValue)

    return Attempt(action, initializer=initializer)


def roles_of(case: Case, depth: int) -> list[str]:
    """The case's init roles, else the fitting ones: standard first, relu for every layer after a ReLU."""
    return list(case.get("roles", ["standard"] + ["relu"] * (depth - 1)))


def layers_attempt(case: Case) -> Attempt:
    """A ModelPlan from explicit (in, out) pairs, layer names and init roles."""
    initializer = CountingInitializer()
    widths = case.get("widths", DEFAULT_WIDTHS)
    pairs = case.get("layers", [[a, b] for a, b in itertools.pairwise(widths)])
    names = case.get("layer_names", [f"fc{i + 1}" for i in range(len(pairs))])
    roles = roles_of(case, len(pairs))

    def action() -> object:
        plans = [
            LinearPlan(name, a, b, False, InitSpec(role=role))
            for name, (a, b), role in zip(names, pairs, roles, strict=True)
        ]
        return ModelPlan(plans).materialize(initializer, CountingValue)

    return Attempt(action, initializer=initializer)


def budget_attempt(case: Case) -> Attempt:
    """budget from the case, or the spec's P minus a shortfall; single: one LinearPlan."""
    initializer = CountingInitializer()
    widths = case.get("widths", DEFAULT_WIDTHS)
    use_bias = case.get("use_bias", False)
    needed = spec_model_parameters(widths[:2] if case.get("single") else widths, use_bias)
    budget = case["budget"] if "budget" in case else max(0, needed - case["shortfall"])
    if case.get("single"):
        plan = LinearPlan("fc1", widths[0], widths[1], use_bias)
        return Attempt(
            lambda: plan.materialize(initializer, CountingValue, parameter_budget=budget),
            initializer=initializer,
        )
    return Attempt(
        lambda: ModelPlan.mlp(widths, use_bias, parameter_budget=budget).materialize(
            initializer, CountingValue
        ),
        initializer=initializer,
    )


def bad_initializer(case: Case) -> CountingInitializer:
    """Returns 0.5 except case['bad_value'] at call number `position` (first, last or an index)."""
    total = spec_weight_count(case.get("widths", DEFAULT_WIDTHS))
    position = case["position"]
    target = position if isinstance(position, int) else {"first": 0, "last": total - 1}[position]
    counter = CountingInitializer()

    def produce(*_: object) -> Any:
        return case["bad_value"] if counter.calls - 1 == target % total else 0.5

    counter.produce = produce
    return counter


def init_value_attempt(case: Case) -> Attempt:
    initializer = bad_initializer(case)
    plan = model_plan(case)
    return Attempt(lambda: plan.materialize(initializer, CountingValue), initializer=initializer)


def duplicate_attempt(case: Case) -> Attempt:
    """Via the plan (layer_names) or via the seal (a sealed model's layer renamed to another's)."""
    if "rename" not in case:
        return layers_attempt(case)
    model = counted_model(case)
    source, target = case["rename"]
    model.layers[source].name = model.layers[target].plan.name
    x = input_matrix(1, model.input_features())
    return forward_attempt(model, lambda: model.forward(x))


def aliased_rows(weight: Matrix, first: Sequence[int], second: Sequence[int]) -> Matrix:
    """weight's Values with the one at second replaced by the one at first (a Matrix is frozen)."""
    rows = [list(r) for r in weight.rows]
    rows[second[0]][second[1]] = rows[first[0]][first[1]]
    return Matrix.trusted(tuple(tuple(r) for r in rows))


def alias_attempt(case: Case) -> Attempt:
    """alias = [[layer, o, i], [layer, o, i]]; via construct (Linear), model (MLP) or forward."""
    (la, oa, ia), (lb, ob, ib) = case["alias"]
    via = case["via"]
    plan = model_plan(case)
    if via == "construct":
        layer_plan = plan.layers[la]
        data = case.get("data") or [[0.5] * layer_plan.in_features] * layer_plan.out_features
        weight = Matrix(data, CountingValue)
        weight = aliased_rows(weight, (oa, ia), (ob, ib))
        return Attempt(lambda: Linear(layer_plan, weight), parameters=list(weight.values()))
    model = plan.materialize(value_type=CountingValue)
    layers = model.layers
    shared = layers[la].weight.rows[oa][ia]
    rows = [list(r) for r in layers[lb].weight.rows]
    rows[ob][ib] = shared
    values = parameters_of(model)
    if via == "model":
        weight = Matrix(rows)
        victim = Linear(layers[lb].plan, weight, layers[lb].bias, plan.name)
        rebuilt = [victim if i == lb else layer for i, layer in enumerate(layers)]
        return Attempt(lambda: MLP(plan, rebuilt), parameters=values)
    layers[lb].weight = Matrix.trusted(tuple(tuple(r) for r in rows))
    x = input_matrix(1, model.input_features())
    return Attempt(lambda: model.forward(x), parameters=values, identity=storage_identity(model))


def replace_storage(model: MLP, layer_index: int, mode: str) -> None:
    """Swap a layer's storage between forwards: new Matrix, rows, element, bias, a list, order."""
    layer = model.layers[layer_index]
    fresh = Matrix(layer.weight.data(), CountingValue)
    if mode == "matrix":
        layer.weight = fresh
    elif mode == "rows":
        layer.weight = Matrix.trusted(fresh.rows)
    elif mode == "element":
        rows = [list(r) for r in layer.weight.rows]
        rows[-1][-1] = CountingValue(rows[-1][-1].data)
        layer.weight = Matrix.trusted(tuple(tuple(r) for r in rows))
    elif mode == "bias" and layer.bias is not None:
        layer.bias = Vector(layer.bias.data(), CountingValue)
    elif mode == "bias":
        layer.bias = Vector([0.0] * layer.plan.out_features, CountingValue)
    elif mode == "list":
        cast(Any, layer).weight = layer.weight.data()
    elif mode == "reorder":
        model.layers = tuple(reversed(model.layers))


def storage_attempt(case: Case) -> Attempt:
    model = counted_model(case)
    values = parameters_of(model)
    replace_storage(model, case["layer"] % len(model.layers), case["mode"])
    x = input_matrix(case.get("tokens", 1), model.input_features())
    return Attempt(lambda: model.forward(x), parameters=values)


def input_attempt(case: Case) -> Attempt:
    """A model (or its first Linear alone, single) fed input_shape or a non-Matrix x."""
    model = counted_model(case)
    x: Any = case["x"] if "x" in case else input_matrix(*case["input_shape"])
    if case.get("single"):
        layer = model.layers[0]
        return Attempt(lambda: layer.forward(x), parameters=list(layer.parameters()))
    return forward_attempt(model, lambda: model.forward(x))


def graph_budget_attempt(case: Case) -> Attempt:
    """budget from the case, or the spec's G minus a shortfall; single: one Linear."""
    model = counted_model(case)
    widths = case.get("widths", DEFAULT_WIDTHS)
    tokens = case["tokens"]
    use_bias = case.get("use_bias", False)
    x = input_matrix(tokens, widths[0])
    if case.get("single"):
        layer = model.layers[0]
        needed = spec_model_cost(widths[:2], tokens, use_bias)
        budget = case["budget"] if "budget" in case else max(0, needed - case["shortfall"])
        return Attempt(lambda: layer.forward(x, budget), parameters=list(layer.parameters()))
    needed = spec_model_cost(widths, tokens, use_bias)
    budget = case["budget"] if "budget" in case else max(0, needed - case["shortfall"])
    return forward_attempt(model, lambda: model.forward(x, budget))


def broken_attempt(case: Case) -> Attempt:
    model = broken_model(case)
    x = input_matrix(case.get("tokens", 2), model.input_features())
    return forward_attempt(model, lambda: model.forward(x))


def parameter_data_attempt(case: Case) -> Attempt:
    model = counted_model(case)
    layer = model.layers[case["layer"] % len(model.layers)]
    o, i = case["position"]
    layer.weight.rows[o % layer.plan.out_features][i % layer.plan.in_features].data = case["data"]
    x = input_matrix(1, model.input_features())
    return forward_attempt(model, lambda: model.forward(x))


def rename_attempt(case: Case) -> Attempt:
    model = counted_model(case)
    layer = model.layers[case["layer"] % len(model.layers)]
    if "new_scope" in case:
        layer.scope = case["new_scope"]
    else:
        layer.name = case["new_name"]
    x = input_matrix(1, model.input_features())
    return Attempt(lambda: model.forward(x), parameters=parameters_of(model))


def storage_shape_attempt(case: Case) -> Attempt:
    """Linear(plan, weight, bias) with mismatched storage, or an MLP given too few/many layers."""
    if "layers_given" in case:
        plan = model_plan(case)
        layers = list(plan.materialize(value_type=CountingValue).layers)
        given = (layers * 3)[: case["layers_given"]]
        return Attempt(lambda: MLP(plan, given))
    plan_ = LinearPlan("fc1", case["in_features"], case["out_features"], case.get("use_bias", False))
    rows, cols = case.get("weight_shape", plan_.weight_shape())
    weight = Matrix([[0.25] * cols for _ in range(rows)], CountingValue)
    bias = Vector([0.0] * case["bias_shape"][0], CountingValue) if "bias_shape" in case else None
    return Attempt(lambda: Linear(plan_, weight, bias), parameters=[*weight.values()])


def forward_module(case: Case) -> tuple[Any, list[Value]]:
    """The case's guarded module: an MLP over widths, its first Linear alone (via linear) or a Stage 08
    Block (via block, with eps), every weight 0.5, bias 0 and gain 1 unless case['weights'] or
    case['biases'] gives a layer's data, or case['gain'] the gains (assigned as an optimizer would,
    between forwards); and its sealed parameters."""
    via = case.get("via", "mlp")
    if via == "block":
        from contracts.spec_suite.cases.stage08 import counted_block  # that module builds on this one

        block = counted_block(case, CountingInitializer())
        module: Any = block
        layers = block.mlp.layers
        for value, datum in zip(block.gain.values, case.get("gain", ()), strict=False):
            value.data = datum
    else:
        model = counted_model(case, CountingInitializer())
        module = model.layers[0] if via == "linear" else model
        layers = model.layers
    weights, biases = case.get("weights", {}), case.get("biases", {})
    for layer in layers:
        for values, data in zip(layer.weight.rows, weights.get(layer.plan.name, ()), strict=False):
            for value, datum in zip(values, data, strict=True):
                value.data = datum
        if layer.bias is not None:
            for value, datum in zip(layer.bias.values, biases.get(layer.plan.name, ()), strict=False):
                value.data = datum
    return module, list(module.parameters())


def forward_input(case: Case) -> Matrix:
    """case['x'] as given, else the (T, C) input_matrix."""
    if "x" in case:
        return Matrix(case["x"], CountingValue)
    return input_matrix(case["tokens"], case["widths"][0])


def input_data_attempt(case: Case) -> Attempt:
    """One input element's data assigned case['data'] (at = [t, i]) after the Matrix was built."""
    module, parameters = forward_module(case)
    x = forward_input(case)
    t, i = case["at"]
    x.rows[t % len(x.rows)][i % len(x.rows[0])].data = case["data"]
    return Attempt(lambda: module.forward(x), parameters=parameters, offending=case["data"])


def overflow_attempt(case: Case) -> Attempt:
    module, parameters = forward_module(case)
    x = forward_input(case)
    return Attempt(lambda: module.forward(x), parameters=parameters)


ATTEMPTS: dict[str, Callable[[Case], Attempt]] = {
    "S07.fail.invalid-plan": plan_attempt,
    "S07.fail.init-spec": plan_attempt,
    "S07.fail.plan-type": plan_attempt,
    "S07.fail.width-mismatch": layers_attempt,
    "S07.fail.parameter-budget": budget_attempt,
    "S07.fail.init-non-finite": init_value_attempt,
    "S07.fail.init-type": init_value_attempt,
    "S07.fail.duplicate-name": duplicate_attempt,
    "S07.fail.parameter-alias": alias_attempt,
    "S07.fail.storage-replaced": storage_attempt,
    "S07.fail.input-width": input_attempt,
    "S07.fail.input-type": input_attempt,
    "S07.fail.graph-budget": graph_budget_attempt,
    "S07.fail.parameter-state": broken_attempt,
    "S07.fail.output-shape": broken_attempt,
    "S07.fail.parameter-non-finite": parameter_data_attempt,
    "S07.fail.parameter-type": parameter_data_attempt,
    "S07.fail.parameter-renamed": rename_attempt,
    "S07.fail.storage-shape": storage_shape_attempt,
    "S07.fail.init-role": layers_attempt,
    "S07.fail.input-non-finite": input_data_attempt,
    "S07.fail.input-data-type": input_data_attempt,
    "S07.fail.forward-overflow": overflow_attempt,
}

# ---------------------------------------------------------------- measurements for formula rows


def materialized(widths: list[int], use_bias: bool) -> tuple[MLP, int, int]:
    """The model, CountingValues created while materializing, and its distinct parameter Values."""
    counter = CountingValue.reset()
    model = ModelPlan.mlp(widths, use_bias).materialize(value_type=CountingValue)
    return model, counter.values, len({id(v) for v in parameters_of(model)})


def measure_model_parameters(widths: list[int], use_bias: bool) -> Measured:
    plan = ModelPlan.mlp(widths, use_bias)
    _, created, distinct = materialized(widths, use_bias)
    assert created == distinct
    return {"planner": plan.parameter_count(), "executor": distinct}


def counted_forward(model: Any, tokens: int, width: int) -> Measured:
    """Planner: plan_forward's total; executor: operations counted; graph: walked from the output.
    model: anything with forward(Matrix) and plan_forward(T) (an MLP, a Stage 08 Block)."""
    x = input_matrix(tokens, width)
    counter = CountingValue.reset()
    out = model.forward(x)
    return {
        "planner": model.plan_forward(tokens).total_graph_nodes(),
        "executor": counter.operations,
        "graph": graph_nodes(out),
    }


def measure_model_forward(widths: list[int], tokens: int, use_bias: bool) -> Measured:
    model, _, _ = materialized(widths, use_bias)
    return counted_forward(model, tokens, widths[0])


def difference(with_bias: Measured, without: Measured) -> Measured:
    return {kind: with_bias[kind] - without[kind] for kind in with_bias}


def measure_relu(sym: dict[str, Any]) -> Measured:
    """The ReLU step of a [1, Chid, 1] model: planned step cost; model minus its two Linears alone."""
    widths = [1, sym["Chid"], 1]
    model, _, _ = materialized(widths, False)
    x = input_matrix(sym["T"], 1)
    (relu,) = [step for step in model.plan_forward(sym["T"]).steps if step.kind == "relu"]
    counter = CountingValue.reset()
    out = model.forward(x)
    total, total_nodes = counter.operations, graph_nodes(out)
    counter = CountingValue.reset()
    hidden = model.layers[0].forward(x)
    second = model.layers[1].forward(input_matrix(sym["T"], sym["Chid"]))
    linear_nodes = graph_nodes(hidden) + graph_nodes(second)
    return {
        "planner": relu.graph_nodes,
        "executor": total - counter.operations,
        "graph": total_nodes - linear_nodes,
    }


def sym_widths(sym: dict[str, Any], hidden: bool) -> list[int]:
    return [sym["Cin"], sym["Chid"], sym["Cout"]] if hidden else [sym["Cin"], sym["Cout"]]


MEASURE: dict[str, Callable[[dict[str, Any]], Measured]] = {
    "S07.params.linear": lambda sym: measure_model_parameters(sym_widths(sym, False), bool(sym["bias"])),
    "S07.params.mlp": lambda sym: measure_model_parameters(sym_widths(sym, True), bool(sym["bias"])),
    "S07.params.bias-delta": lambda sym: difference(
        measure_model_parameters(sym_widths(sym, True), True),
        measure_model_parameters(sym_widths(sym, True), False),
    ),
    "S07.cost.linear": lambda sym: measure_model_forward(sym_widths(sym, False), sym["T"], bool(sym["bias"])),
    "S07.cost.relu": measure_relu,
    "S07.cost.mlp": lambda sym: measure_model_forward(sym_widths(sym, True), sym["T"], bool(sym["bias"])),
    "S07.cost.bias-delta": lambda sym: difference(
        measure_model_forward(sym_widths(sym, True), sym["T"], True),
        measure_model_forward(sym_widths(sym, True), sym["T"], False),
    ),
}

# ---------------------------------------------------------------- statistics of the sample variance


def variance_of_sample_variance(distribution: str, sigma2: float, n: int) -> float:
    """Var(s²) of n iid draws: normal 2σ⁴/(n-1); uniform μ4/n - σ⁴(n-3)/(n(n-1)), μ4 = 9σ⁴/5."""
    if distribution == "normal":
        return 2.0 * sigma2**2 / (n - 1)
    mu4 = 9.0 * sigma2**2 / 5.0
    return mu4 / n - sigma2**2 * (n - 3) / (n * (n - 1))


def skewness_of_sample_variance(distribution: str, n: int) -> float:
    """Skewness of s²: normal sqrt(8/(n-1)) (chi-square); uniform skew(X²)/sqrt(n).

    For X uniform, X² = a²U² with U uniform on (0, 1): E U^2k = 1/(2k+1), so skew(X²) is
    (1/7 - 3/15 + 2/27) / (4/45)^1.5 ≈ 0.639.
    """
    if distribution == "normal":
        return math.sqrt(8.0 / (n - 1))
    return UNIFORM_SQUARE_SKEW / math.sqrt(n)


UNIFORM_SQUARE_SKEW = (1 / 7 - 3 / 15 + 2 / 27) / (4 / 45) ** 1.5


def tolerance(distribution: str, sigma2: float, n: int, checks: int, alpha: float = 1e-6) -> float:
    """z·sd(s²) for one of `checks` checks sharing a false-failure probability alpha (Bonferroni).

    z = Φ⁻¹(1 - alpha/(2·checks)), widened by the Cornish-Fisher term (z² - 1)·γ/6 for the
    skewness γ of s², so each check fails a correct initializer with probability <= alpha/checks.
    """
    z = NormalDist().inv_cdf(1.0 - alpha / (2 * checks))
    z += (z * z - 1.0) * skewness_of_sample_variance(distribution, n) / 6.0
    return z * math.sqrt(variance_of_sample_variance(distribution, sigma2, n))


# Draws per statistical check of the engine's initializers: the seed's 4096 (C_in = 64), or fewer for a
# quick run. A check draws (n / 64, 64) weights, so n is a multiple of 64; from 448 draws on, a check
# rejects a variance half or twice its target with probability >= 0.99, for either distribution
# (tests/verify/test_quick_settings.py derives it; fewer draws would barely test anything).
SEED_FAN_IN = 64
SEED_SAMPLES = int(row("S07.rule.init-statistical")["examples"][0]["samples"])
FEWEST_SAMPLES = 448


def statistical_samples_error(samples: int) -> str | None:
    """Why `samples` cannot be the draws per statistical check (None: it can)."""
    if samples % SEED_FAN_IN or samples < FEWEST_SAMPLES:
        return (
            f"--contracts-statistical-samples: got {samples}, expected a multiple of {SEED_FAN_IN} "
            "(the seed's C_in) "
            f"and at least {FEWEST_SAMPLES} (fewer draws would miss a variance half or twice its target)"
        )
    return None


def sample_variance(values: Sequence[float]) -> float:
    return float(np.var(np.asarray(values, dtype=np.float64), ddof=1))


def mean_tolerance(sigma2: float, n: int, checks: int, alpha: float = 1e-6) -> float:
    """z·σ/√n: the sample mean of n zero-mean draws of variance σ² (normal by the central limit theorem at
    n >= 448), for one of `checks` checks sharing a false-failure probability alpha (Bonferroni). The
    variance check reads s², which a shifted distribution (uniform(0, 2a) for uniform(-a, a)) keeps."""
    z = NormalDist().inv_cdf(1.0 - alpha / (2 * checks))
    return z * math.sqrt(sigma2 / n)


def assert_centred(values: Sequence[float], sigma2: float, checks: int, alpha: float, where: str) -> None:
    """The draws' sample mean is within mean_tolerance of 0 (S07.rule.init-statistical)."""
    mean = float(np.mean(np.asarray(values, dtype=np.float64)))
    bound = mean_tolerance(sigma2, len(values), checks, alpha)
    assert abs(mean) <= bound, f"{where}: mean {mean}, expected 0 within {bound}"

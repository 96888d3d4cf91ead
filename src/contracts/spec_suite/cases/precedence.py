"""Check-precedence cases: per entry point, a valid call, fault injectors and a builder.

A precedence row's `order` names failure rows in the order their checks run. For every pair
(earlier, later) that can co-occur (not listed in `unordered`), the property injects the later fault,
then the earlier one, into one valid call, and the earlier row's exception, message and zero
side effects must win. Expected costs for the budget faults come from the spec's formulas.
Cases are plain data (lists, numbers), so the spec's golden examples go through the same builders.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import array_api_strict
import numpy as np
from hypothesis import strategies as st

from contracts import CountingValue, EmbeddingPlan, Matrix, Vector
from contracts.core.block import BlockPlan
from contracts.core.init import InitSpec
from contracts.core.linear import Linear, LinearPlan
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage05 import NOT_VALUE_TYPES, assign_cells, counted_embedding
from contracts.spec_suite.cases.stage07 import (
    counted_model,
    input_matrix,
    parameters_of,
    roles_of,
    spec_model_cost,
    spec_value,
)
from contracts.spec_suite.cases.stage08 import (
    counted_block,
    replace_gain,
    spec_block_cost,
    spec_block_parameters,
)
from contracts.spec_suite.cases.stage08 import parameters_of as block_parameters
from contracts.spec_suite.probes import NOT_GIVEN, Attempt, CountingInitializer
from contracts.spec_suite.strategies import forward_bound as fb
from contracts.tensor import Tensor, add, exp, log, matmul, maximum, multiply
from contracts.tensor.norm import rms_norm
from contracts.tensor.softmax import cross_entropy

Case = dict[str, Any]
Injector = Callable[[Case], st.SearchStrategy[Case]]
TENSOR_OPS: dict[str, Callable[..., Tensor]] = {
    "add": add,
    "multiply": multiply,
    "maximum": maximum,
    "matmul": matmul,
    "exp": exp,
    "log": log,
}


@dataclass
class Built:
    """An attempt, plus the tensor leaves whose grads must stay untouched."""

    attempt: Attempt
    leaves: list[Tensor] = field(default_factory=list)


@dataclass(frozen=True)
class Entry:
    """One entry point: its capability, valid calls, an injector per failure row, and the builder."""

    capability: str
    base: st.SearchStrategy[Case]
    faults: Mapping[str, Injector]
    build: Callable[[Case], Built]


def pairs(spec_row: SpecRow) -> list[tuple[str, str]]:
    """(earlier, later) for every two faults of the row's order that can co-occur."""
    unordered = {frozenset(pair) for pair in spec_row.get("unordered", ())}
    return [
        (first, second)
        for first, second in itertools.combinations(spec_row["order"], 2)
        if frozenset((first, second)) not in unordered
    ]


def named(case: Case) -> object:
    return case.get(s.NAMED, NOT_GIVEN)


def budget_faults(prefix: str, cost: Callable[[Case], int], over: str) -> dict[str, Injector]:
    """Budget of the wrong type, negative, or in [0, cost - 1] (cost from the spec formula)."""
    return {
        f"{prefix}.fail.budget-type": s.inject_budget_type,
        f"{prefix}.fail.budget-value": s.inject_budget_value,
        over: lambda case: s.inject_over_budget(case, cost(case)),
    }


# ---------------------------------------------------------------- Stage 03


def rdiv_build(case: Case) -> Built:
    """c / v for the number c, the leaf v built before the attempt (so it counts as no Value created)."""
    divisor = CountingValue(case["y"])
    return Built(Attempt(lambda: case["c"] / divisor, offending=named(case)))


# ---------------------------------------------------------------- Stage 05


def vector_build(op: str) -> Callable[[Case], Built]:
    def build(case: Case) -> Built:
        x = Vector(case["x"], CountingValue)
        other = case["other"] if "other" in case else Vector(case["y"], CountingValue)
        assign_cells(case, {"left": x.values, "right": other.values if isinstance(other, Vector) else None})
        method = x.add if op == "add" else x.dot
        return Built(Attempt(lambda: method(other, case.get("budget")), offending=named(case)))

    return build


def operand_faults() -> dict[str, Injector]:
    """An operand datum assigned a non-float or a non-finite value after it was built; every datum beyond
    the value bound's limit (S05.rule.operand-bound)."""
    return {
        "S05.fail.operand-data-type": lambda case: s.inject_operand_data(case, s.not_a_float_datum),
        "S05.fail.operand-non-finite": lambda case: s.inject_operand_data(
            case, st.one_of(s.non_finite_float, s.int_beyond_float_range)
        ),
        "S05.fail.operand-overflow": s.inject_operand_overflow,
    }


def vector_entry(op: str, cost_row: str, symbol: str) -> Entry:
    def cost(case: Case) -> int:
        return int(spec_value(cost_row, **{symbol: len(case["x"])}))

    return Entry(
        "shapes",
        s.precedence_vector(),
        {
            "S05.fail.operand-type": lambda case: s.inject_operand_type(case, "vector"),
            "S05.fail.vector-length": s.inject_vector_length,
            **budget_faults("S05", cost, "S05.fail.graph-budget"),
            **operand_faults(),
        },
        vector_build(op),
    )


def matmul_cost(case: Case) -> int:
    a, b = case["a"], case["b"]
    return int(spec_value("S05.cost.matmul", M=len(a), K=len(a[0]), N=len(b[0])))


def matmul_build(case: Case) -> Built:
    a = Matrix(case["a"], CountingValue)
    other = case["other"] if "other" in case else Matrix(case["b"], CountingValue)
    assign_cells(case, {"left": a.rows, "right": other.rows if isinstance(other, Matrix) else None})
    return Built(Attempt(lambda: a.matmul(other, case.get("budget")), offending=named(case)))


def value_type(case: Case) -> Any:
    """The case's value_type: CountingValue, or the named type of S05.fail.value-type's table."""
    return NOT_VALUE_TYPES[case["value_type"]] if "value_type" in case else CountingValue


def vector_constructor_build(case: Case) -> Built:
    return Built(Attempt(lambda: Vector(case["elements"], value_type(case)), offending=named(case)))


def matrix_build(case: Case) -> Built:
    return Built(Attempt(lambda: Matrix(case["rows"], value_type(case)), offending=named(case)))


def embedding_plan_cost(case: Case) -> int:
    return int(spec_value("S05.params.embedding", V=case["V"], C=case["C"], D=case["D"]))


def embedding_plan_build(case: Case) -> Built:
    initializer = CountingInitializer()
    return Built(
        Attempt(
            lambda: EmbeddingPlan(case["V"], case["C"], case["D"], case.get("budget")).materialize(
                initializer, CountingValue
            ),
            initializer=initializer,
            offending=named(case),
        )
    )


def embedding_forward_cost(case: Case) -> int:
    symbols = {"V": case["V"], "C": case["C"], "D": case["D"], "T": len(case["tokens"])}
    return int(spec_value("S05.cost.embedding-forward", **symbols))


def embedding_forward_build(case: Case) -> Built:
    embedding = counted_embedding(case)
    assign_cells(case, {"token": embedding.token_weight.rows, "position": embedding.position_weight.rows})
    parameters = [*embedding.token_weight.values(), *embedding.position_weight.values()]
    return Built(
        Attempt(
            lambda: embedding.forward(case["tokens"], case.get("budget")),
            parameters=parameters,
            offending=named(case),
        )
    )


# ---------------------------------------------------------------- Stage 07


def initializer_with(case: Case) -> CountingInitializer:
    """0.5 everywhere except the case's bad results, by call index."""
    bad = {int(index): value for index, value in case["bad_init"]}
    initializer = CountingInitializer()
    initializer.produce = lambda *_: bad.get(initializer.calls - 1, 0.5)
    return initializer


def model_parameters(layers: Sequence[Sequence[int]]) -> int:
    """The sum of S07.params.linear over the (in, out) pairs (bias-free)."""
    return sum(int(spec_value("S07.params.linear", Cin=a, Cout=b, bias=0)) for a, b in layers)


def model_plan_build(case: Case) -> Built:
    from contracts.core.model import ModelPlan

    initializer = initializer_with(case)

    roles = roles_of(case, len(case["layers"]))

    def action() -> object:
        plans = [
            LinearPlan(name, a, b, False, InitSpec(role=role))
            for name, (a, b), role in zip(case["names"], case["layers"], roles, strict=True)
        ]
        return ModelPlan(plans, parameter_budget=case.get("budget")).materialize(
            initializer, value_type(case)
        )

    return Built(Attempt(action, initializer=initializer, offending=named(case)))


def linear_parameters(case: Case) -> int:
    return int(spec_value("S07.params.linear", Cin=case["in"], Cout=case["out"], bias=int(case["use_bias"])))


def linear_build(case: Case) -> Built:
    initializer = initializer_with(case)
    plan = LinearPlan("fc1", case["in"], case["out"], case["use_bias"])
    return Built(
        Attempt(
            lambda: plan.materialize(initializer, value_type(case), parameter_budget=case.get("budget")),
            initializer=initializer,
            offending=named(case),
        )
    )


def forward_cost(case: Case) -> int:
    return spec_model_cost(case["widths"], case["tokens"], case["use_bias"])


def replace_weight(layer: Linear) -> None:
    """The layer's weight storage swapped (between forwards) for a new Matrix of equal data."""
    layer.weight = Matrix.trusted(tuple(tuple(CountingValue(v.data) for v in r) for r in layer.weight.rows))


HUGE = 1e200  # x·w = 1e400 and x² = 1e400: every forward's bound overflows (S07.fail.forward-overflow)


def forward_x(case: Case) -> Any:
    """x as the case gives it, else a (T, width) input: 1e200 everywhere where `huge`, one element's data
    assigned where `input_data` says (after the Matrix checked it)."""
    if "x" in case:
        return case["x"]
    tokens, width = case["tokens"], case.get("x_width", case["widths"][0])
    x = Matrix([[HUGE] * width] * tokens, CountingValue) if case.get("huge") else input_matrix(tokens, width)
    if "input_data" in case:
        t, i, bad = case["input_data"]
        x.rows[t % tokens][i % width].data = bad
    return x


def forward_build(case: Case) -> Built:
    """A sealed MLP, then (between forwards) storage replaced, an alias, a non-finite parameter, a layer
    renamed, a layer given another's name."""
    model = counted_model(case, CountingInitializer())  # constant 0.5 weights: cheap, values do not matter
    sealed = parameters_of(model)
    layers = model.layers
    if case.get("huge"):
        for value in layers[0].weight.values():
            value.data = HUGE
    if "replace" in case:
        replace_weight(layers[case["replace"]])
    if "alias" in case:
        index, first, second = case["alias"]
        weight = layers[index].weight
        flat = list(weight.values())
        flat[second] = flat[first]
        width = len(weight.rows[0])
        # A Matrix is frozen: the alias comes in as a new Matrix in Linear's re-verified weight slot.
        layers[index].weight = Matrix.trusted(
            tuple(tuple(flat[r * width : (r + 1) * width]) for r in range(len(weight.rows)))
        )
    if "nan" in case:
        index, position, value = case["nan"]
        list(layers[index].weight.values())[position].data = value
    if "renamed" in case:
        index, name = case["renamed"]
        layers[index].name = name
    if "duplicate" in case:
        source, target = case["duplicate"]
        layers[source].name = layers[target].name
    x = forward_x(case)
    current = [v for layer in layers for v in layer.weight.values()]
    return Built(
        Attempt(
            lambda: model.forward(x, case.get("budget")),
            parameters=[*sealed, *current],
            offending=named(case),
        )
    )


# ---------------------------------------------------------------- Stage 08 block


def block_plan_build(case: Case) -> Built:
    """BlockPlan.rmsnorm_mlp(widths, eps, budget), then materialize with a counted initializer."""
    initializer = CountingInitializer()

    def action() -> object:
        plan = BlockPlan.rmsnorm_mlp(case["widths"], case["eps"], parameter_budget=case.get("budget"))
        return plan.materialize(initializer, CountingValue)

    return Built(Attempt(action, initializer=initializer, offending=named(case)))


def block_forward_build(case: Case) -> Built:
    """A sealed block, its gain storage replaced between forwards where the case says, then a forward."""
    block = counted_block(case, CountingInitializer())
    sealed = block_parameters(block)
    if "mlp_replace" in case:
        replace_weight(block.mlp.layers[case["mlp_replace"]])
    if "replace" in case:
        replace_gain(block, case["replace"])
    x = forward_x(case)
    return Built(
        Attempt(lambda: block.forward(x, case.get("budget")), parameters=sealed, offending=named(case))
    )


# ---------------------------------------------------------------- Stage T


def operands(case: Case, requires_grad: bool = True) -> list[Any]:
    """Raw data as given; otherwise a leaf Tensor (numpy, or array_api_strict where `strict`)."""
    built: list[Any] = []
    strict = case.get("strict", [False] * len(case["inputs"]))
    for data, raw, in_strict in zip(case["inputs"], case["raw"], strict, strict=True):
        array = np.asarray(data)
        if raw:
            built.append(array)
        elif in_strict:
            space = array_api_strict
            built.append(Tensor(space.asarray(array), requires_grad=requires_grad, xp=space))
        else:
            built.append(Tensor(array, requires_grad=requires_grad))
    return built


def tensor_build(case: Case) -> Built:
    inputs = operands(case)
    leaves = [item for item in inputs if isinstance(item, Tensor)]
    return Built(Attempt(lambda: TENSOR_OPS[case["op"]](*inputs)), leaves)


def backward_build(case: Case) -> Built:
    leaves = [Tensor(np.asarray(data), requires_grad=case["requires_grad"]) for data in case["inputs"]]
    out = add(*leaves)
    upstream = case.get("upstream")
    seed = None if upstream is None else np.asarray(upstream, dtype=np.float64)
    return Built(Attempt(lambda: out.backward(seed)), leaves)


def cross_entropy_build(case: Case) -> Built:
    """cross_entropy(logits, targets): the logits a leaf, or raw data where the case says `raw`."""
    (logits,) = operands(case)
    leaves = [logits] if isinstance(logits, Tensor) else []
    targets = np.asarray(case["targets"])
    return Built(Attempt(lambda: cross_entropy(logits, targets), offending=named(case)), leaves)


def rms_norm_build(case: Case) -> Built:
    """rms_norm(x, gain, eps): x and the gain leaves, or raw data where the case says `raw`."""
    x, gain = operands(case)
    leaves = [item for item in (x, gain) if isinstance(item, Tensor)]
    return Built(Attempt(lambda: rms_norm(x, gain, case["eps"]), offending=named(case)), leaves)


def raw_faults() -> dict[str, Injector]:
    return {
        "T.fail.dtype": lambda case: s.inject_raw_operand(case, "dtype"),
        "T.fail.non-finite": lambda case: s.inject_raw_operand(case, "non-finite"),
    }


# ---------------------------------------------------------------- the entry points, by precedence row

ENTRIES: dict[str, Entry] = {
    "S03.order.division": Entry(
        "scalar.value-api",
        s.precedence_rdiv(),
        {"S03.fail.leaf-data": s.inject_rdiv_constant, "S03.fail.div-zero": s.inject_rdiv_zero},
        rdiv_build,
    ),
    "S05.order.vector-add": vector_entry("add", "S05.cost.vector-add", "D"),
    "S05.order.vector-dot": vector_entry("dot", "S05.cost.dot", "K"),
    "S05.order.matmul": Entry(
        "shapes",
        s.precedence_matmul(),
        {
            "S05.fail.operand-type": lambda case: s.inject_operand_type(case, "matrix"),
            "S05.fail.matmul-dim": s.inject_matmul_dim,
            **budget_faults("S05", matmul_cost, "S05.fail.graph-budget"),
            **operand_faults(),
        },
        matmul_build,
    ),
    "S05.order.vector-constructor": Entry(
        "shapes",
        s.precedence_vector_elements(),
        {
            "S05.fail.value-type": s.inject_value_type,
            "S05.fail.container-type": s.inject_vector_container,
            "S05.fail.element-type": lambda case: s.inject_vector_element(case, s.not_a_number),
            "S05.fail.element-bool": lambda case: s.inject_vector_element(case, st.booleans()),
            "S05.fail.element-nonfinite": lambda case: s.inject_vector_element(case, s.non_finite_float),
            "S05.fail.empty-dimension": s.inject_no_elements,
        },
        vector_constructor_build,
    ),
    "S05.order.matrix": Entry(
        "shapes",
        s.precedence_matrix(),
        {
            "S05.fail.value-type": s.inject_value_type,
            "S05.fail.container-type": s.inject_row_container,
            "S05.fail.ragged-row": s.inject_ragged,
            "S05.fail.element-type": lambda case: s.inject_element(case, s.not_a_number),
            "S05.fail.element-bool": lambda case: s.inject_element(case, st.booleans()),
            "S05.fail.element-nonfinite": lambda case: s.inject_element(case, s.non_finite_float),
        },
        matrix_build,
    ),
    "S05.order.embedding-plan": Entry(
        "embedding",
        s.embedding_config,
        {
            "S05.fail.config-type": lambda case: s.inject_config(case, s.not_an_exact_int),
            "S05.fail.config-range": lambda case: s.inject_config(case, st.integers(-5, 0)),
            **budget_faults("S05", embedding_plan_cost, "S05.fail.parameter-budget"),
        },
        embedding_plan_build,
    ),
    "S05.order.embedding-forward": Entry(
        "embedding",
        s.precedence_embedding_forward(),
        {
            "S05.fail.token-type": lambda case: s.inject_token(case, "type"),
            "S05.fail.token-id": lambda case: s.inject_token(case, "range"),
            "S05.fail.sequence-length": s.inject_too_long,
            "S05.fail.sequence-empty": s.inject_no_tokens,
            **budget_faults("S05", embedding_forward_cost, "S05.fail.graph-budget"),
            **operand_faults(),
        },
        embedding_forward_build,
    ),
    "S07.order.model-plan": Entry(
        "linear",
        s.precedence_model_plan(),
        {
            "S07.fail.invalid-plan": s.inject_layer_feature,
            "S07.fail.duplicate-name": s.inject_duplicate_name,
            "S07.fail.width-mismatch": s.inject_width_mismatch,
            "S07.fail.init-role": fb.inject_role,
            "S07.fail.parameter-budget": lambda case: s.inject_over_budget(
                case, model_parameters(case["layers"])
            ),
            "S05.fail.value-type": s.inject_value_type,
            "S07.fail.init-type": lambda case: s.inject_init_result(
                case, model_parameters(case["layers"]), s.not_a_real
            ),
            "S07.fail.init-non-finite": lambda case: s.inject_init_result(
                case, model_parameters(case["layers"]), s.non_finite_float
            ),
        },
        model_plan_build,
    ),
    "S07.order.linear-materialize": Entry(
        "linear",
        s.precedence_linear(),
        {
            "S07.fail.parameter-budget": lambda case: s.inject_over_budget(case, linear_parameters(case)),
            "S05.fail.value-type": s.inject_value_type,
            "S07.fail.init-type": lambda case: s.inject_init_result(
                case, case["in"] * case["out"], s.not_a_real
            ),
            "S07.fail.init-non-finite": lambda case: s.inject_init_result(
                case, case["in"] * case["out"], s.non_finite_float
            ),
        },
        linear_build,
    ),
    "S07.order.forward": Entry(
        "linear",
        s.precedence_forward(),
        {
            "S07.fail.input-type": lambda case: s.inject_input(case, "type"),
            "S07.fail.input-width": lambda case: s.inject_input(case, "width"),
            "S07.fail.duplicate-name": s.inject_duplicate_layer,
            "S07.fail.parameter-alias": s.inject_alias,
            "S07.fail.storage-replaced": s.inject_replace,
            "S07.fail.parameter-renamed": s.inject_rename,
            "S07.fail.parameter-non-finite": lambda case: s.inject_parameter_data(case, s.non_finite_float),
            "S07.fail.parameter-type": lambda case: s.inject_parameter_data(case, s.not_a_float_datum),
            "S07.fail.input-non-finite": lambda case: fb.inject_input_data(case, "non-finite"),
            "S07.fail.input-data-type": lambda case: fb.inject_input_data(case, "type"),
            "S07.fail.graph-budget": lambda case: s.inject_over_budget(case, forward_cost(case)),
            "S07.fail.forward-overflow": fb.inject_huge,
        },
        forward_build,
    ),
    "S08.order.block-plan": Entry(
        "linear",
        s.precedence_block_plan(),
        {
            "S08.fail.norm-config": s.inject_norm_eps,
            "S08.fail.residual-width": s.inject_residual_width,
            "S08.fail.block-parameter-budget": lambda case: s.inject_over_budget(
                case, spec_block_parameters(case["widths"], False)
            ),
        },
        block_plan_build,
    ),
    "S08.order.block-forward": Entry(
        "linear",
        s.precedence_block_forward(),
        {
            "S07.fail.storage-replaced": s.inject_block_layer_swap,
            "S08.fail.gain-replaced": s.inject_gain_swap,
            "S07.fail.input-non-finite": lambda case: fb.inject_input_data(case, "non-finite"),
            "S07.fail.input-data-type": lambda case: fb.inject_input_data(case, "type"),
            "S08.fail.block-graph-budget": lambda case: s.inject_over_budget(
                case, spec_block_cost(case["widths"], case["tokens"], False)
            ),
            "S07.fail.forward-overflow": fb.inject_huge,
        },
        block_forward_build,
    ),
    "S06.order.cross-entropy": Entry(
        "tensor.api",
        s.precedence_cross_entropy(),
        {
            "S06.fail.target-dtype": s.inject_target_dtype,
            **raw_faults(),
            "S06.fail.axis": s.inject_scalar_first,
            "S06.fail.empty-axis": s.inject_empty_last_axis,
            "S06.fail.target-shape": s.inject_target_shape,
            "S06.fail.target-range": s.inject_target_range,
        },
        cross_entropy_build,
    ),
    "S08.order.rms-norm": Entry(
        "tensor.api",
        s.precedence_rms_norm(),
        {
            "S08.fail.eps-type": s.inject_eps_type,
            "S08.fail.eps": s.inject_eps_value,
            **raw_faults(),
            "S06.fail.axis": s.inject_scalar_first,
            "S06.fail.empty-axis": s.inject_empty_last_axis,
            "S08.fail.gain-shape": s.inject_gain_shape,
        },
        rms_norm_build,
    ),
    "T.order.elementwise": Entry(
        "tensor.api",
        s.precedence_elementwise(),
        {"T.fail.namespace-mix": s.inject_namespace, **raw_faults(), "T.fail.broadcast": s.inject_broadcast},
        tensor_build,
    ),
    "T.order.matmul": Entry(
        "tensor.api",
        s.precedence_tensor_matmul(),
        {
            **raw_faults(),
            "T.fail.matmul-inner": lambda case: s.inject_matmul_axis(case, "inner"),
            "T.fail.matmul-batch": lambda case: s.inject_matmul_axis(case, "batch"),
        },
        tensor_build,
    ),
    "T.order.unary": Entry(
        "tensor.api",
        s.precedence_unary(),
        {
            "T.fail.non-finite": lambda case: s.inject_raw_operand(case, "non-finite"),
            "T.fail.log-domain": lambda case: s.inject_domain(case, "log"),
            "T.fail.exp-overflow": lambda case: s.inject_domain(case, "exp"),
        },
        tensor_build,
    ),
    "T.order.backward": Entry(
        "tensor.api",
        s.precedence_backward(),
        {
            "T.fail.no-grad": lambda case: st.just(s.inject_no_grad(case)),
            "T.fail.backward-nonscalar": s.inject_non_scalar,
            "T.fail.upstream-non-finite": lambda case: s.inject_upstream(case, "non-finite"),
            "T.fail.upstream-shape": lambda case: s.inject_upstream(case, "shape"),
        },
        backward_build,
    ),
}

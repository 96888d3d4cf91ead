"""Stage 08 block cases as data: x + MLP(RMSNorm(x)) built from spec examples and strategy draws alike.

Expected numbers come from the spec rows (spec_block_parameters and spec_block_cost compose the
S08 and S07 formulas); the implementation is only ever measured.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from contracts import CountingValue, Matrix, Value, Vector
from contracts.core.block import Block, BlockPlan, RMSNormPlan
from contracts.core.frozen import set_fields
from contracts.core.model import ModelPlan
from contracts.spec_suite.cases.stage07 import (
    Measured,
    counted_forward,
    graph_nodes,
    input_matrix,
    spec_model_cost,
    spec_value,
)
from contracts.spec_suite.probes import Attempt, CountingInitializer

Case = dict[str, Any]
DEFAULT_WIDTHS = [2, 3, 2]
NORM_KEYS = ("width", "eps", "gain_init", "name")

# ---------------------------------------------------------------- the spec as the oracle


def spec_block_parameters(widths: Sequence[int], use_bias: bool) -> int:
    """S08.params.rms-norm over C plus S07.params.linear over the MLP's layers."""
    linear = sum(
        int(spec_value("S07.params.linear", Cin=c_in, Cout=c_out, bias=int(use_bias)))
        for c_in, c_out in itertools.pairwise(widths)
    )
    return int(spec_value("S08.params.rms-norm", C=widths[0])) + linear


def spec_block_cost(widths: Sequence[int], tokens: int, use_bias: bool) -> int:
    """S08.cost.rms-norm + the MLP's S07 costs + S08.cost.residual."""
    norm = int(spec_value("S08.cost.rms-norm", T=tokens, C=widths[0]))
    residual = int(spec_value("S08.cost.residual", T=tokens, C=widths[0]))
    return norm + spec_model_cost(widths, tokens, use_bias) + residual


def spec_weight_count(widths: Sequence[int]) -> int:
    """Initializer calls: one per MLP weight (gains and biases are constants, never drawn)."""
    return sum(
        int(spec_value("S07.params.linear", Cin=a, Cout=b, bias=0)) for a, b in itertools.pairwise(widths)
    )


# ---------------------------------------------------------------- builders


def block_plan(case: Case) -> BlockPlan:
    return BlockPlan.rmsnorm_mlp(
        case.get("widths", DEFAULT_WIDTHS), case.get("eps", 1e-6), case.get("use_bias", False)
    )


def counted_block(case: Case, initializer: CountingInitializer | None = None) -> Block:
    """A Block whose every parameter is a CountingValue (so every operation is counted)."""
    return block_plan(case).materialize(initializer, CountingValue)


def parameters_of(block: Block) -> list[Value]:
    return [ref.value for ref in block.current_refs("test")]


def storage_identity(block: Block) -> Callable[[], object]:
    """The gain storage object and its Values, and every layer's weight storage, right now."""

    def identity() -> object:
        gain = block.gain
        values = tuple(map(id, gain.values)) if isinstance(gain, Vector) else ()
        return (id(gain), values, tuple(id(layer.weight) for layer in block.mlp.layers))

    return identity


def reference_block(block: Block, x: list[list[float]]) -> np.ndarray:
    """numpy: x + MLP(x · gain / sqrt(mean(x²) + eps)) from the parameters' current data."""
    rows = np.asarray(x, dtype=np.float64)
    gain = np.asarray(block.gain.data())
    out = rows * gain / np.sqrt(np.mean(rows * rows, axis=-1, keepdims=True) + block.plan.norm.eps)
    for index, layer in enumerate(block.mlp.layers):
        out = out @ np.asarray(layer.weight.data()).T
        if layer.bias is not None:
            out = out + np.asarray(layer.bias.data())
        if index < len(block.mlp.layers) - 1:
            out = np.maximum(out, 0.0)
    result: np.ndarray = rows + out
    return result


def table_initializer(weights: dict[str, list[list[float]]]) -> CountingInitializer:
    """Weights from a table by layer name (the spec example's hand-chosen numbers)."""
    initializer = CountingInitializer()
    initializer.produce = lambda tensor, o, i: weights[tensor.removesuffix(".weight")][o][i]
    return initializer


# ---------------------------------------------------------------- broken executors (postconditions)


class BrokenBlock(Block):
    """A Block whose execution changes or replaces a gain (only a broken executor can)."""

    REVERIFIED = Block.REVERIFIED | {"fault"}  # a test double: its fault is switched between forwards

    def __init__(self, plan: BlockPlan, gain: Vector, mlp: Any, fault: str) -> None:
        super().__init__(plan, gain, mlp)
        self.fault: str
        set_fields(self, fault=fault)

    def execute(self, rows: tuple[tuple[Value, ...], ...]) -> tuple[tuple[Value, ...], ...]:
        out = super().execute(rows)
        first = self.gain.values[-1]
        if self.fault == "mutate-gain":
            first.data += 1.0
        elif self.fault == "mutate-gain-grad":
            first.grad += 1.0
        elif self.fault == "replace-gain":
            self.gain = Vector(self.gain.data(), CountingValue)
        return out


def broken_block(case: Case) -> BrokenBlock:
    built = counted_block(case)
    return BrokenBlock(built.plan, built.gain, built.mlp, case["executor"])


def replace_gain(block: Block, mode: str) -> None:
    """Swap the gain storage between forwards: a new Vector of equal data, one element, or a list."""
    gain = block.gain
    if mode == "vector":
        block.gain = Vector(gain.data(), CountingValue)
    elif mode == "element":
        values = list(gain.values)
        values[-1] = CountingValue(values[-1].data)
        block.gain = Vector.trusted(tuple(values))
    else:
        cast(Any, block).gain = gain.data()


# ---------------------------------------------------------------- attempts, one builder per failure row


def norm_attempt(case: Case) -> Attempt:
    """RMSNormPlan from the case's keyword values (defaults elsewhere), then a block, materialized."""
    initializer = CountingInitializer()

    def action() -> object:
        norm = RMSNormPlan(
            **{key: case[key] for key in NORM_KEYS if key in case} | {"width": case.get("width", 2)}
        )
        mlp = ModelPlan.mlp(DEFAULT_WIDTHS, name="block.mlp")
        return BlockPlan(norm, mlp).materialize(initializer, CountingValue)

    return Attempt(action, initializer=initializer)


def widths_attempt(case: Case) -> Attempt:
    """A block over case widths (norm_width: a norm of that width beside ModelPlan.mlp(widths))."""
    initializer = CountingInitializer()
    widths = case["widths"]

    def action() -> object:
        if "norm_width" in case:
            mlp = ModelPlan.mlp(widths, name="block.mlp")
            plan = BlockPlan(RMSNormPlan(case["norm_width"]), mlp, parameter_budget=case.get("budget"))
        else:
            plan = BlockPlan.rmsnorm_mlp(
                widths,
                case.get("eps", 1e-6),
                case.get("use_bias", False),
                parameter_budget=case.get("budget"),
            )
        return plan.materialize(initializer, CountingValue)

    return Attempt(action, initializer=initializer)


def budget_attempt(case: Case) -> Attempt:
    """budget from the case, or the spec's P minus a shortfall."""
    widths = case.get("widths", DEFAULT_WIDTHS)
    needed = spec_block_parameters(widths, case.get("use_bias", False))
    budget = case["budget"] if "budget" in case else max(0, needed - case["shortfall"])
    return widths_attempt({**case, "widths": widths, "budget": budget})


def graph_budget_attempt(case: Case) -> Attempt:
    """Block.forward (or BlockPlan.plan_forward, via plan) under the spec's G minus a shortfall."""
    block = counted_block(case)
    widths, tokens = case.get("widths", DEFAULT_WIDTHS), case["tokens"]
    needed = spec_block_cost(widths, tokens, case.get("use_bias", False))
    budget = case["budget"] if "budget" in case else max(0, needed - case["shortfall"])
    x = input_matrix(tokens, widths[0])
    if case.get("via") == "plan":
        return Attempt(lambda: block.plan.plan_forward(tokens, budget), parameters=parameters_of(block))
    return forward_attempt(block, lambda: block.forward(x, budget))


def forward_attempt(block: Block, run: Callable[[], object], values: Sequence[Value] = ()) -> Attempt:
    return Attempt(run, parameters=[*(values or parameters_of(block))], identity=storage_identity(block))


def gain_attempt(case: Case) -> Attempt:
    block = counted_block(case)
    values = parameters_of(block)
    replace_gain(block, case["mode"])
    x = input_matrix(case.get("tokens", 1), block.input_features())
    return Attempt(lambda: block.forward(x, case.get("budget")), parameters=values)


def broken_attempt(case: Case) -> Attempt:
    block = broken_block(case)
    x = input_matrix(case.get("tokens", 1), block.input_features())
    return forward_attempt(block, lambda: block.forward(x))


ATTEMPTS: dict[str, Callable[[Case], Attempt]] = {
    "S08.fail.norm-config": norm_attempt,
    "S08.fail.norm-type": norm_attempt,
    "S08.fail.norm-width": widths_attempt,
    "S08.fail.residual-width": widths_attempt,
    "S08.fail.block-parameter-budget": budget_attempt,
    "S08.fail.block-graph-budget": graph_budget_attempt,
    "S08.fail.gain-replaced": gain_attempt,
    "S08.fail.gain-state": broken_attempt,
}

# ---------------------------------------------------------------- measurements for formula rows


def materialized(widths: list[int], use_bias: bool) -> tuple[Block, int]:
    """The block and the CountingValues created while materializing it."""
    counter = CountingValue.reset()
    block = BlockPlan.rmsnorm_mlp(widths, 0.5, use_bias).materialize(value_type=CountingValue)
    return block, counter.values


def measure_parameters(widths: list[int], use_bias: bool) -> Measured:
    """Planner: BlockPlan's count; executor: Values created == distinct sealed Values."""
    block, created = materialized(widths, use_bias)
    distinct = len({id(v) for v in parameters_of(block)})
    assert created == distinct
    return {"planner": block.plan.parameter_count(), "executor": distinct}


def measure_norm_parameters(width: int) -> Measured:
    """The norm's step in the plan; the gains sealed by the block (a 1-wide MLP beside them)."""
    block, _ = materialized([width, 1, width], False)
    (step,) = [s for s in block.plan_forward(1).steps if s.kind == "rmsnorm"]
    gains = [ref for ref in block.seal.refs if ".gain[" in ref.name]
    return {"planner": step.parameters, "executor": len({id(ref.value) for ref in gains})}


def measure_forward(widths: list[int], tokens: int, use_bias: bool) -> Measured:
    block, _ = materialized(widths, use_bias)
    return counted_forward(block, tokens, widths[0])


def measure_step(kind: str, sym: dict[str, Any]) -> Measured:
    """One step of a [C, 1, C] block. rmsnorm: the norm's operations and nodes on its own; residual:
    the block's operations minus the norm's and the MLP's run alone, and the nodes walked from the
    block's output minus those walked from the MLP's output (which reach back through the norm)."""
    width, tokens = sym["C"], sym["T"]
    block, _ = materialized([width, 1, width], False)
    (step,) = [s for s in block.plan_forward(tokens).steps if s.kind == kind]
    x = input_matrix(tokens, width)
    counter = CountingValue.reset()
    normed = Matrix.trusted(tuple(block.normalize(row) for row in x.rows))
    norm_ops = counter.operations
    counter = CountingValue.reset()
    inner = block.mlp.forward(normed)
    mlp_ops = counter.operations
    counter = CountingValue.reset()
    out = block.forward(x)
    if kind == "rmsnorm":
        return {"planner": step.graph_nodes, "executor": norm_ops, "graph": graph_nodes(normed)}
    return {
        "planner": step.graph_nodes,
        "executor": counter.operations - norm_ops - mlp_ops,
        "graph": graph_nodes(out) - graph_nodes(inner),
    }


MEASURE: dict[str, Callable[[dict[str, Any]], Measured]] = {
    "S08.params.rms-norm": lambda sym: measure_norm_parameters(sym["C"]),
    "S08.params.block": lambda sym: measure_parameters([sym["C"], sym["Chid"], sym["C"]], bool(sym["bias"])),
    "S08.cost.rms-norm": lambda sym: measure_step("rmsnorm", sym),
    "S08.cost.residual": lambda sym: measure_step("residual", sym),
    "S08.cost.block": lambda sym: measure_forward(
        [sym["C"], sym["Chid"], sym["C"]], sym["T"], bool(sym["bias"])
    ),
}

"""Figures 1 and 2: the scalar engine against micrograd 0.1.0, and the forward contract's overhead.

Workload (the issue's): widths 16 -> 32 -> 32 -> 1 with a bias in every layer and ReLU between
layers (micrograd's MLP has both), a batch of 16 rows, the squared-error sum, one backward. A step
is zero_grad, forward, loss, backward; both engines build the same number of operation nodes.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from contracts.core.model import MLP, ModelPlan
from contracts.core.shapes import Matrix
from contracts.core.value import Value, count_operation_nodes
from contracts.engines.modules import count_operation_nodes as count_graph_nodes
from tools.benchmarks.report import Row, ratio_row
from tools.benchmarks.timing import compare

WIDTHS = (16, 32, 32, 1)
BATCH = 16
SEED = 7
Floats = list[list[float]]


@dataclass(frozen=True)
class Workload:
    inputs: Floats  # BATCH rows of WIDTHS[0] floats
    targets: list[float]  # one target per row


def make_workload(seed: int = SEED) -> Workload:
    rng = random.Random(seed)
    inputs = [[rng.uniform(-1.0, 1.0) for _ in range(WIDTHS[0])] for _ in range(BATCH)]
    targets = [rng.uniform(-1.0, 1.0) for _ in range(BATCH)]
    return Workload(inputs, targets)


def squared_error(outputs: Sequence[Sequence[Value]], targets: Sequence[float]) -> Value:
    """sum over rows of (y - t)², written as micrograd users write it."""
    total: Value = sum(((row[0] - t) ** 2 for row, t in zip(outputs, targets, strict=True)), Value(0.0))
    return total


def contracted_model() -> MLP:
    return ModelPlan.mlp(WIDTHS, use_bias=True).materialize()


def contracted_step(model: MLP, work: Workload) -> Callable[[], Value]:
    """Every contract on: the input enters through Matrix's checks, the forward is guarded."""
    parameters = model.parameters()

    def step() -> Value:
        for parameter in parameters:
            parameter.grad = 0.0
        x = Matrix(work.inputs)
        loss = squared_error(model.forward(x).rows, work.targets)
        loss.backward()
        return loss

    return step


def trusted_step(model: MLP, work: Workload) -> Callable[[], Value]:
    """The same arithmetic with every check skipped: raw Values into the trusted execute loop."""
    parameters = model.parameters()

    def step() -> Value:
        for parameter in parameters:
            parameter.grad = 0.0
        rows = tuple(tuple(Value(x) for x in row) for row in work.inputs)
        loss = squared_error(model.execute(rows), work.targets)
        loss.backward()
        return loss

    return step


def micrograd_step(work: Workload) -> tuple[Callable[[], Any], Any]:
    """micrograd 0.1.0's own MLP on the same workload; returns (step, model)."""
    import micrograd.nn

    random.seed(SEED)  # micrograd draws its weights from the global random module
    model = micrograd.nn.MLP(WIDTHS[0], list(WIDTHS[1:]))

    def step() -> Any:
        model.zero_grad()
        predictions = [model(row) for row in work.inputs]
        loss: Any = sum(((p - t) ** 2 for p, t in zip(predictions, work.targets, strict=True)), 0.0)
        loss.backward()
        return loss

    return step, model


def micrograd_operation_nodes(root: Any) -> int:
    """Operation nodes (with children) reachable from a micrograd Value: the adapters' own counter."""
    return count_graph_nodes([root], attrgetter("_prev"))


def micrograd_available() -> bool:
    try:
        import micrograd.nn  # noqa: F401
    except ImportError:
        return False
    return True


def figure_scalar(quick: bool) -> list[Row]:
    """Figure 1: time per training step, contracts (every check on) against micrograd 0.1.0."""
    figure = "1 scalar step"
    if not micrograd_available():
        return [Row(figure, "contracts", "micrograd 0.1.0", None, 0.5, "-", "-", "micrograd not installed")]
    work = make_workload()
    ours = contracted_step(contracted_model(), work)
    theirs, _ = micrograd_step(work)
    nodes = f"{count_operation_nodes(ours())} vs {micrograd_operation_nodes(theirs())} op nodes"
    rounds = 3 if quick else 11
    rows = []
    for gc_enabled in (True, False):
        samples = compare({"contracts": ours, "micrograd": theirs}, rounds, 1, gc_enabled)
        setting = "gc on" if gc_enabled else "gc off"
        rows.append(
            ratio_row(
                figure,
                samples["contracts"],
                samples["micrograd"],
                0.5,
                f"{setting}; {nodes}",
                "contracts step, every check on",
                "micrograd 0.1.0 step",
            )
        )
    return rows


def figure_overhead(quick: bool) -> list[Row]:
    """Figure 2: guarded MLP.forward against MLP.execute (the trusted loop it calls) on one input."""
    figure = "2 contract overhead"
    model = contracted_model()
    work = make_workload()
    x = Matrix(work.inputs)

    def guarded() -> object:
        return model.forward(x)

    def trusted() -> object:
        return model.execute(x.rows)

    rounds, number = (5, 1) if quick else (25, 3)
    rows = []
    for gc_enabled in (False, True):
        samples = compare({"forward": guarded, "execute": trusted}, rounds, number, gc_enabled)
        rows.append(
            ratio_row(
                figure,
                samples["forward"],
                samples["execute"],
                1.10,
                "gc on" if gc_enabled else "gc off",
                "MLP.forward (pre+postcondition)",
                "MLP.execute (checks skipped)",
            )
        )
    step_samples = compare(
        {"checked": contracted_step(model, work), "trusted": trusted_step(model, work)},
        3 if quick else 11,
        1,
    )
    rows.append(
        ratio_row(
            figure,
            step_samples["checked"],
            step_samples["trusted"],
            None,
            "gc on; whole step incl. Matrix(input), loss, backward",
            "step, every check on",
            "step, checks skipped",
        )
    )
    return rows

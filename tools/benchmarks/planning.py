"""Figure 3: plan_forward's cost must not grow with T or the widths (it prices, never computes).

Every plan has the workload's depth (three Linear layers, ReLU between); C is every width. The
small plan has T·C = 10, each large one T·C = 10^6 (grown in T, in C, or in both).
"""

from __future__ import annotations

from collections.abc import Callable

from contracts.core.model import ModelPlan
from tools.benchmarks.report import Row, ratio_row
from tools.benchmarks.timing import calls_for, compare

LAYERS = 3
GOAL = 1.5
SMALL = (1, 10)  # (T, C): T·C = 10
LARGE = ((1000, 1000), (1_000_000, 1), (1, 1_000_000))  # T·C = 10^6


def planner(tokens: int, width: int) -> Callable[[], object]:
    plan = ModelPlan.mlp([width] * (LAYERS + 1))

    def run() -> object:
        return plan.plan_forward(tokens)

    return run


def label(tokens: int, width: int) -> str:
    return f"plan_forward T={tokens:,} C={width:,}"


def figure_planning(quick: bool) -> list[Row]:
    small = planner(*SMALL)
    number = calls_for(small, 0.002 if quick else 0.02)
    rows = []
    for tokens, width in LARGE:
        samples = compare({"large": planner(tokens, width), "small": small}, 5 if quick else 25, number)
        rows.append(
            ratio_row(
                "3 planning cost",
                samples["large"],
                samples["small"],
                GOAL,
                f"T·C = 10^6 vs 10, {LAYERS} layers",
                label(tokens, width),
                label(*SMALL),
            )
        )
    return rows

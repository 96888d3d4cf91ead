"""`contracts plan`: print a model's plan (per-layer parameters, graph nodes, totals).

Everything printed comes from ModelPlan (or BlockPlan, with --block rmsnorm-residual) and
ModelForwardPlan; nothing is allocated or run.
"""

from __future__ import annotations

import argparse
import sys

from contracts.core.block import BlockPlan
from contracts.core.errors import ContractError
from contracts.core.forward import ForwardStep, ModelForwardPlan
from contracts.core.model import ModelPlan

HEADER = ("step", "kind", "input", "output", "parameters", "graph nodes")


def format_plan(widths: list[int], tokens: int, use_bias: bool) -> str:
    """The plan of an MLP over widths for T = tokens, as an aligned table with totals."""
    plan = ModelPlan.mlp(widths, use_bias=use_bias)
    forward = plan.plan_forward(tokens)
    title = (
        f"model {plan.name}: widths {' -> '.join(str(w) for w in plan.widths())}, "
        f"tokens T = {forward.tokens}, bias {'on' if use_bias else 'off'}"
    )
    return table(title, forward, plan.parameter_count())


def format_block_plan(widths: list[int], tokens: int, use_bias: bool, eps: float) -> str:
    """The plan of the block x + MLP(RMSNorm(x)) with the MLP over widths (the last equal to the first)."""
    plan = BlockPlan.rmsnorm_mlp(widths, eps, use_bias)
    forward = plan.plan_forward(tokens)
    title = (
        f"block {plan.name}: x + MLP(RMSNorm(x)), widths {' -> '.join(str(w) for w in plan.mlp.widths())}, "
        f"tokens T = {forward.tokens}, bias {'on' if use_bias else 'off'}, eps {plan.norm.eps!r}"
    )
    return table(title, forward, plan.parameter_count())


def table(title: str, forward: ModelForwardPlan, parameters: int) -> str:
    """Title, header, one row per step and the totals, aligned."""
    rows = [step_row(step) for step in forward.steps]
    total = (
        "total",
        "",
        str(forward.input_shape()),
        str(forward.output_shape()),
        str(parameters),
        str(forward.total_graph_nodes()),
    )
    lines = [HEADER, *rows, total]
    sizes = [max(len(line[column]) for line in lines) for column in range(len(HEADER))]
    return "\n".join([title, *(align(line, sizes) for line in lines)]) + "\n"


def step_row(step: ForwardStep) -> tuple[str, ...]:
    return (
        step.name,
        step.kind,
        str(step.input_shape),
        str(step.output_shape),
        str(step.parameters),
        str(step.graph_nodes),
    )


def align(line: tuple[str, ...], sizes: list[int]) -> str:
    """Text columns left-aligned, number columns right-aligned."""
    cells = [
        cell.rjust(size) if column >= 4 else cell.ljust(size)
        for column, (cell, size) in enumerate(zip(line, sizes))
    ]
    return "  ".join(cells)  # the last column is right-aligned: no trailing blanks


def parse_widths(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"widths must be comma-separated ints like 3,4,2, got {text!r}"
        ) from None


# What --help says: prose for the reader, kept as data (tests/cli/test_cli_help.py checks that every
# argument is described and states its default, never the wording).
HELP = {
    "": "Print a model's plan: per-layer parameters, graph nodes and totals.",
    "widths": "e.g. 3,4,2",
    "tokens": "T, the number of input rows",
    "bias": "plan every Linear with a bias",
    "block": "plan the block x + MLP(RMSNorm(x)) around the MLP over --widths (last width = first)",
    "eps": "RMSNorm's eps with --block (default 1e-6)",
}


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="contracts plan", description=HELP[""])
    command.add_argument("--widths", type=parse_widths, required=True, help=HELP["widths"])
    command.add_argument("--tokens", type=int, default=1, help=HELP["tokens"])
    command.add_argument("--bias", action="store_true", help=HELP["bias"])
    command.add_argument("--block", choices=["rmsnorm-residual"], help=HELP["block"])
    command.add_argument("--eps", type=float, default=1e-6, help=HELP["eps"])
    return command


def plan_main(argv: list[str]) -> int:
    """Entry point of `contracts plan`; 0 on success, 2 on a usage or contract error."""
    arguments = parser().parse_args(argv)
    try:
        if arguments.block is None:
            text = format_plan(arguments.widths, arguments.tokens, arguments.bias)
        else:
            text = format_block_plan(arguments.widths, arguments.tokens, arguments.bias, arguments.eps)
    except (ContractError, TypeError, ValueError) as error:
        print(f"contracts plan: error: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0

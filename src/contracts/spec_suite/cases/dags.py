"""Composite-graph cases: programs as plain data, their independent float64 evaluators, the
tree rewrite and the central-difference oracle. Nothing here calls the engine under test.

A program (contracts.engines.base.Program) is a DAG: node i < len(leaves) is leaf i; instruction j
makes node len(leaves) + j as op(nodes[operands...], *constants); the last node is the output.

The evaluators use Python's math (scalar) and numpy (tensor) directly, and record every branch the
computation took (relu's sign, maximum's mask): a central difference whose perturbation flips a
branch measures a kink, not the derivative, so such a draw is discarded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from contracts.engines.base import Instruction, Program

Array = NDArray[np.float64]
BOUND = 50.0  # every drawn node's magnitude stays below this (keeps differences well conditioned)
KINK_MARGIN = 0.05  # relu inputs and maximum's operands stay this far from their kink / tie
STEP = 1e-6  # central-difference step, relative to max(1, |x|)
RTOL, ATOL = 1e-4, 1e-7
EPS = float(np.finfo(np.float64).eps)

# ---------------------------------------------------------------- scalar: Python's math


def relu(x: float) -> float:
    return x if x > 0 else 0.0


SCALAR_MATH: dict[str, Callable[..., float]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": math.pow,
    "relu": relu,
    "exp": math.exp,
    "log": math.log,
}
SCALAR_ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "neg": 1, "pow": 1, "relu": 1, "exp": 1, "log": 1}
POW_EXPONENTS = (2.0, 3.0, -1.0, 0.5, 1.5)


def scalar_in_domain(op: str, args: Sequence[float], constants: Sequence[float]) -> bool:
    """Whether op may run on args with a well-conditioned, bounded result (the generator's filter)."""
    if op == "div" and abs(args[1]) < 0.5:
        return False
    if op == "log" and args[0] < 0.1:
        return False
    if op == "exp" and args[0] > 3.0:
        return False
    if op == "pow" and not float(constants[0]).is_integer() and args[0] < 0.1:
        return False
    if op == "pow" and constants[0] < 0 and abs(args[0]) < 0.5:
        return False
    if op == "relu" and abs(args[0]) < KINK_MARGIN:
        return False
    return abs(SCALAR_MATH[op](*args, *constants)) <= BOUND


def evaluate_scalar(program: Program, leaves: Sequence[float]) -> tuple[list[float], tuple[bool, ...]]:
    """Every node's float64 value, and the sign of every relu input (the branches taken)."""
    nodes = [float(x) for x in leaves]
    branches: list[bool] = []
    for op, operands, constants in program:
        args = [nodes[i] for i in operands]
        if op == "relu":
            branches.append(args[0] > 0)
        nodes.append(SCALAR_MATH[op](*args, *constants))
    return nodes, tuple(branches)


# ---------------------------------------------------------------- tensor: numpy

TENSOR_NUMPY: dict[str, Callable[..., Array]] = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "exp": np.exp,
    "log": np.log,
    "matmul": np.matmul,
    "relu": lambda x: np.maximum(x, 0.0),
}
TENSOR_ARITY = {"add": 2, "multiply": 2, "maximum": 2, "exp": 1, "log": 1, "matmul": 2, "relu": 1}


def tensor_in_domain(op: str, args: Sequence[Array]) -> bool:
    """Whether op may run on args: shapes fit, away from kinks and ties, a bounded result."""
    if op == "matmul":
        a, b = args
        if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            return False
    if op == "log" and not bool(np.all(args[0] >= 0.1)):
        return False
    if op == "exp" and not bool(np.all(args[0] <= 3.0)):
        return False
    if op == "relu" and not bool(np.all(np.abs(args[0]) >= KINK_MARGIN)):
        return False
    if op == "maximum" and not bool(np.all(np.abs(args[0] - args[1]) >= KINK_MARGIN)):
        return False
    return bool(np.all(np.abs(TENSOR_NUMPY[op](*args)) <= BOUND))


def evaluate_tensor(program: Program, leaves: Sequence[Array]) -> tuple[list[Array], tuple[Any, ...]]:
    """Every node's float64 array, and every relu / maximum mask (the branches taken)."""
    nodes = [np.asarray(x, dtype=np.float64) for x in leaves]
    branches: list[Any] = []
    for op, operands, _ in program:
        args = [nodes[i] for i in operands]
        if op == "relu":
            branches.append((args[0] > 0).tolist())
        elif op == "maximum":
            branches.append((args[0] >= args[1]).tolist())
        nodes.append(np.asarray(TENSOR_NUMPY[op](*args), dtype=np.float64))
    return nodes, tuple(branches)


# ---------------------------------------------------------------- the tree rewrite (no sharing)


def tree_sizes(program: Program, leaf_count: int) -> list[int]:
    """How many nodes each node becomes when every use re-evaluates its operand subtree."""
    sizes = [1] * leaf_count
    for _, operands, _ in program:
        sizes.append(1 + sum(sizes[i] for i in operands))
    return sizes


def as_tree(program: Program, leaf_count: int) -> tuple[list[Instruction], list[int]]:
    """The same computation with no node used twice: every use of a node re-evaluates its subtree and
    every use of a leaf is a leaf of its own. Returns the tree program and, for each of its leaves,
    the original leaf it copies (sum the copies' gradients to get the original leaf's).

    Iterative (an explicit stack), so chains deeper than the recursion limit rewrite too.
    """
    output = leaf_count + len(program) - 1
    emitted: list[tuple[str, int, tuple[int, ...], tuple[float, ...]]] = []  # postorder
    # (node, expanded): expanded nodes pop after their operands' subtrees were emitted
    stack: list[tuple[int, bool]] = [(output, False)]
    results: list[int] = []  # positions in `emitted` of finished subtrees, in operand order
    while stack:
        node, expanded = stack.pop()
        if node < leaf_count:
            results.append(len(emitted))
            emitted.append(("leaf", node, (), ()))
            continue
        op, operands, constants = program[node - leaf_count]
        if expanded:
            children = tuple(results[len(results) - len(operands) :])
            del results[len(results) - len(operands) :]
            results.append(len(emitted))
            emitted.append((op, node, children, tuple(constants)))
            continue
        stack.append((node, True))
        stack.extend((operand, False) for operand in reversed(operands))
    sources = [origin for kind, origin, _, _ in emitted if kind == "leaf"]
    index: dict[int, int] = {}
    leaf_number = 0
    for position, (kind, _, _, _) in enumerate(emitted):
        if kind == "leaf":
            index[position] = leaf_number
            leaf_number += 1
    tree: list[Instruction] = []
    for position, (kind, _, children, constants) in enumerate(emitted):
        if kind != "leaf":
            index[position] = len(sources) + len(tree)
            tree.append((kind, tuple(index[child] for child in children), constants))
    return tree, sources


def summed_by_source(grads: Sequence[Any], sources: Sequence[int], leaves: Sequence[Any]) -> list[Any]:
    """Each original leaf's gradient: the sum of the gradients of its copies in the tree (zero, of the
    leaf's shape, for a leaf the tree never uses)."""
    totals: list[Any] = [0.0 * leaf for leaf in leaves]
    for grad, source in zip(grads, sources, strict=True):
        totals[source] = totals[source] + grad
    return totals


# ---------------------------------------------------------------- the central-difference oracle


def tolerance(grad: float, magnitude: float, x: float) -> float:
    """The stated rule: |fd - grad| <= RTOL |grad| + ATOL + 8 eps M / h.

    RTOL covers the O(h²) truncation of the central difference on this bounded, kink-free domain;
    the last term is float64 roundoff in f(x ± h), M the largest magnitude of any node value.
    """
    step = STEP * max(1.0, abs(x))
    return RTOL * abs(grad) + ATOL + 8 * EPS * magnitude / step


def scalar_central_differences(program: Program, leaves: Sequence[float]) -> list[float] | None:
    """d out / d leaf by float64 central differences of evaluate_scalar; None if a branch flips."""
    _, branches = evaluate_scalar(program, leaves)
    estimates = []
    for index, x in enumerate(leaves):
        step = STEP * max(1.0, abs(x))
        up, down = list(leaves), list(leaves)
        up[index] = x + step
        down[index] = x - step
        (high, high_branches), (low, low_branches) = (
            evaluate_scalar(program, up),
            evaluate_scalar(program, down),
        )
        if (high_branches, low_branches) != (branches, branches):
            return None
        estimates.append((high[-1] - low[-1]) / (2 * step))
    return estimates


def tensor_central_differences(
    program: Program, leaves: Sequence[Array], upstream: Array
) -> list[Array] | None:
    """d sum(upstream * out) / d leaf element-wise by central differences; None if a branch flips."""
    _, branches = evaluate_tensor(program, leaves)
    estimates = []
    for index, leaf in enumerate(leaves):
        estimate = np.zeros(leaf.shape)
        for position in np.ndindex(leaf.shape):
            x = float(leaf[position])
            step = STEP * max(1.0, abs(x))
            values = []
            for sign in (1.0, -1.0):
                moved = [np.array(item, dtype=np.float64) for item in leaves]
                moved[index][position] = x + sign * step
                nodes, moved_branches = evaluate_tensor(program, moved)
                if moved_branches != branches:
                    return None
                values.append(float(np.sum(upstream * nodes[-1])))
            estimate[position] = (values[0] - values[1]) / (2 * step)
        estimates.append(estimate)
    return estimates


def magnitude(values: Sequence[Any]) -> float:
    """The largest |value| over every node (scalars or arrays)."""
    return max(float(np.max(np.abs(value))) if np.size(value) else 0.0 for value in values)

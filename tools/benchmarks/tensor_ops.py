"""Figure 4: Tensor ops forward + backward against raw numpy doing the same math (torch alongside).

Leaves are built once (that is where their data is checked); each call runs the op, then backward
with an explicit upstream gradient of the output's shape (checked by backward, as in real use). The
numpy baseline computes the same forward and the same reduced gradients, with no checks and no graph.
torch (float64, CPU) runs when torch==2.13.0 is installed and is skipped cleanly otherwise.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from contracts.tensor import Tensor
from tools.benchmarks.report import Row, ratio_row
from tools.benchmarks.timing import calls_for, compare

Array = NDArray[np.float64]
GOAL = 1.2
SEED = 7
BLAS_VARIABLES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


@dataclass(frozen=True)
class Case:
    name: str
    op: str  # "matmul" | "add" | "multiply"
    a_shape: tuple[int, ...]
    b_shape: tuple[int, ...]
    out_shape: tuple[int, ...]


CASES = (
    Case("matmul 256×256 @ 256×256", "matmul", (256, 256), (256, 256), (256, 256)),
    Case("add (64,1,256) + (32,256)", "add", (64, 1, 256), (32, 256), (64, 32, 256)),
    Case("multiply (64,1,256) * (32,256)", "multiply", (64, 1, 256), (32, 256), (64, 32, 256)),
)


def arrays(case: Case) -> tuple[Array, Array, Array]:
    rng = np.random.default_rng(SEED)
    return (
        rng.standard_normal(case.a_shape),
        rng.standard_normal(case.b_shape),
        rng.standard_normal(case.out_shape),
    )


def contracts_run(case: Case, a: Array, b: Array, g: Array) -> Callable[[], tuple[Any, Any]]:
    def run() -> tuple[Any, Any]:
        # fresh leaves each call: a Tensor is frozen (T.rule.frozen), so its .grad cannot be reset, and
        # leaves reused across calls would accumulate (one more add per leaf); the figure therefore
        # includes building both leaves (each a checked copy of its input)
        left = Tensor(a, requires_grad=True)
        right = Tensor(b, requires_grad=True)
        if case.op == "matmul":
            out = left @ right
        elif case.op == "add":
            out = left + right
        else:
            out = left * right
        out.backward(g)
        return left.grad, right.grad

    return run


def numpy_run(case: Case, a: Array, b: Array, g: Array) -> Callable[[], tuple[Array, Array, Array]]:
    def run() -> tuple[Array, Array, Array]:
        if case.op == "matmul":
            out = a @ b
            return out, g @ b.T, a.T @ g
        if case.op == "add":
            out = a + b
            return out, g.sum(axis=1, keepdims=True), g.sum(axis=0)
        out = a * b
        return out, (g * b).sum(axis=1, keepdims=True), (g * a).sum(axis=0)

    return run


def load_torch() -> Any:
    """torch if it is installed (the project pins torch==2.13.0), else None."""
    try:
        return importlib.import_module("torch")
    except ImportError:
        return None


def torch_run(torch: Any, case: Case, a: Array, b: Array, g: Array) -> Callable[[], object]:
    left = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    right = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    upstream = torch.tensor(g, dtype=torch.float64)

    def run() -> object:
        left.grad = None
        right.grad = None
        if case.op == "matmul":
            out = left @ right
        elif case.op == "add":
            out = left + right
        else:
            out = left * right
        out.backward(upstream)
        return left.grad, right.grad

    return run


def check_same_math(case: Case, a: Array, b: Array, g: Array) -> None:
    """The candidates compute the same gradients (a benchmark of different math would mean nothing)."""
    _, grad_a, grad_b = numpy_run(case, a, b, g)()
    ours_a, ours_b = contracts_run(case, a, b, g)()
    if not (np.allclose(grad_a, ours_a) and np.allclose(grad_b, ours_b)):
        raise AssertionError(f"{case.name}: contracts and numpy gradients differ")


def blas_note() -> str:
    """The BLAS kernel numpy uses (threadpoolctl when installed) and the OPENBLAS_* variables set."""
    settings = ", ".join(f"{name}={os.environ[name]}" for name in BLAS_VARIABLES if name in os.environ)
    kernel = "kernel unknown (pip install threadpoolctl to report it)"
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        pass
    else:
        for info in threadpoolctl.threadpool_info():
            if info.get("user_api") == "blas":
                kernel = (
                    f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')} "
                    f"kernel, {info.get('num_threads')} threads"
                )
                break
    return f"{kernel}; {settings or 'OPENBLAS_CORETYPE/L2_SIZE unset'}"


def limit_threads(threads: int) -> str:
    """Cap numpy's BLAS (threadpoolctl) and torch at `threads` threads for the rest of the process.

    On a shared 2-core machine a 2-thread BLAS spins against other processes and its timings scatter
    by 10x; the default of 1 thread keeps the ratios stable. Returns what was applied.
    """
    applied = []
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        applied.append("BLAS threads not limited (threadpoolctl not installed)")
    else:
        LIMITS.append(threadpoolctl.threadpool_limits(limits=threads))
        applied.append(f"BLAS limited to {threads} thread(s)")
    torch = load_torch()
    if torch is not None:
        torch.set_num_threads(threads)
        applied.append(f"torch limited to {threads} thread(s)")
    return "; ".join(applied)


LIMITS: list[object] = []  # the active threadpool limiters (kept alive for the whole run)


def figure_tensor(quick: bool) -> list[Row]:
    torch = load_torch()
    note = blas_note()
    rows = []
    for case in CASES:
        a, b, g = arrays(case)
        check_same_math(case, a, b, g)
        candidates: dict[str, Callable[[], object]] = {
            "contracts": contracts_run(case, a, b, g),
            "numpy": numpy_run(case, a, b, g),
        }
        if torch is not None:
            candidates["torch"] = torch_run(torch, case, a, b, g)
        number = calls_for(candidates["numpy"], 0.005 if quick else 0.05, cap=1000)
        samples = compare(candidates, 5 if quick else 21, number)
        figure = "4 tensor fwd+bwd"
        rows.append(
            ratio_row(
                figure, samples["contracts"], samples["numpy"], GOAL, note, f"contracts {case.name}", "numpy"
            )
        )
        if torch is not None:
            rows.append(
                ratio_row(
                    figure,
                    samples["torch"],
                    samples["numpy"],
                    None,
                    f"torch {torch.__version__} float64, {torch.get_num_threads()} threads",
                    f"torch {case.name}",
                    "numpy",
                )
            )
    if torch is None:
        rows.append(
            Row("4 tensor fwd+bwd", "torch", "numpy", None, None, "-", "-", "torch not installed: skipped")
        )
    return rows

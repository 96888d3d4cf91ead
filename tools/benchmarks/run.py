"""The benchmark runner: every figure as a ratio measured side by side in one run, plus absolute times.

    python -m tools.benchmarks            # the full run (a few minutes on 2 cores)
    python -m tools.benchmarks --quick    # a fast smoke run (smaller deep graph, fewer rounds)
    python tools/benchmarks/run.py --only scalar --only overhead --markdown

Ratios are measured / baseline per round (candidates interleaved), reported as the median with the
interquartile range of the rounds. No figure fails the run: a missed goal is printed as MISSED.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import argparse
import dataclasses
import datetime
import json
import os
import platform
import subprocess
from collections.abc import Callable
from importlib import metadata

from tools.benchmarks import deep_graph, planning, scalar, tensor_ops
from tools.benchmarks.report import Row, markdown_table, plain_table
from tools.benchmarks.timing import Ratio

ROOT = Path(__file__).resolve().parents[2]  # the repository: tools/ is importable from it
FIGURES: dict[str, Callable[[bool], list[Row]]] = {
    "scalar": scalar.figure_scalar,
    "overhead": scalar.figure_overhead,
    "planning": planning.figure_planning,
    "tensor": tensor_ops.figure_tensor,
    "deep": deep_graph.figure_deep,
}


def version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine(threads: str) -> str:
    blas = {name: os.environ.get(name, "unset") for name in tensor_ops.BLAS_VARIABLES}
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return "\n".join(
        [
            f"date: {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
            f"machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
            f"python: {platform.python_implementation()} {platform.python_version()}",
            "versions: "
            + ", ".join(
                f"{name} {version(name)}" for name in ("numpy", "micrograd", "torch", "threadpoolctl")
            ),
            "environment: " + ", ".join(f"{name}={value}" for name, value in blas.items()),
            f"threads: {threads}",
            f"load average at the end (1, 5, 15 min): {load}",
        ]
    )


def rows_to_json(rows: list[Row]) -> str:
    return json.dumps([dataclasses.asdict(row) for row in rows])


def rows_from_json(text: str) -> list[Row]:
    rows = []
    for item in json.loads(text):
        ratio = item.pop("ratio")
        rows.append(Row(**item, ratio=None if ratio is None else Ratio(**ratio)))
    return rows


def tensor_without_blas_overrides(quick: bool, threads: int) -> list[Row]:
    """Figure 4 again in a child process with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE both unset."""
    env = {key: value for key, value in os.environ.items() if key not in tensor_ops.BLAS_VARIABLES}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "tools.benchmarks", "--only", "tensor", "--rows-json", "--no-blas-rerun"]
    command += ["--threads", str(threads)]
    if quick:
        command.append("--quick")
    result = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=ROOT)
    return rows_from_json(result.stdout)


def parser() -> argparse.ArgumentParser:
    command = argparse.ArgumentParser(prog="python -m tools.benchmarks", description=__doc__.splitlines()[0])
    command.add_argument("--quick", action="store_true", help="a fast smoke run: fewer rounds, 10^5 nodes")
    command.add_argument(
        "--only", action="append", choices=sorted(FIGURES), help="run only these figures (repeatable)"
    )
    command.add_argument("--markdown", action="store_true", help="print the table as Markdown too")
    command.add_argument(
        "--no-blas-rerun",
        action="store_true",
        help="do not repeat figure 4 with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset when they are set",
    )
    command.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS and torch threads (default 1: stable on a shared machine)",
    )
    command.add_argument("--rows-json", action="store_true", help=argparse.SUPPRESS)
    return command


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    chosen = arguments.only or list(FIGURES)
    threads = tensor_ops.limit_threads(arguments.threads)
    rows: list[Row] = []
    for name in chosen:
        if not arguments.rows_json:
            print(f"running figure {name} ...", file=sys.stderr, flush=True)
        rows.extend(FIGURES[name](arguments.quick))
        overridden = any(variable in os.environ for variable in tensor_ops.BLAS_VARIABLES)
        if name == "tensor" and overridden and not arguments.no_blas_rerun:
            rows.extend(tensor_without_blas_overrides(arguments.quick, arguments.threads))
    if arguments.rows_json:
        print(rows_to_json(rows))
        return 0
    command = " ".join(["python -m tools.benchmarks", *(argv if argv is not None else sys.argv[1:])])
    print(machine(threads))
    print(f"command: {command}")
    print()
    print(plain_table(rows))
    if arguments.markdown:
        print()
        print(markdown_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

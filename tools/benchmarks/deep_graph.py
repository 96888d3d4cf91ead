"""Figure 5: backward on a chain of 10^6 operation nodes: time and peak memory.

Each measurement runs in a fresh subprocess (`python -m tools.benchmarks.deep_graph --nodes N --measure
time|memory`) so its peak resident set (ru_maxrss) and its tracemalloc peak belong to this graph
alone. micrograd 0.1.0 is tried on a short chain for contrast: its recursive topological sort
overflows Python's recursion limit near a depth of 1,000.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from contracts.core.value import Value
from tools.benchmarks.report import Row
from tools.benchmarks.timing import format_seconds

NODES = 1_000_000
QUICK_NODES = 100_000
MICROGRAD_DEPTH = 2_000
MIB = 1024 * 1024


def current_rss() -> int:
    """Resident set size now, in bytes (Linux /proc), or 0 where it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE")


def peak_rss() -> int:
    """The process's peak resident set size in bytes (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def chain(nodes: int) -> tuple[Value, Value]:
    """(leaf, output) of leaf + 1 + 1 + ... : `nodes` operation nodes, each with one parent."""
    leaf = Value(0.5)
    out = leaf
    for _ in range(nodes):
        out = out + 1.0
    return leaf, out


def measure_time(nodes: int) -> dict[str, float]:
    baseline = current_rss()
    start = time.perf_counter()
    leaf, out = chain(nodes)
    built = time.perf_counter()
    after_build = current_rss()
    out.backward()
    done = time.perf_counter()
    if leaf.grad != 1.0:
        raise AssertionError(f"chain gradient must be 1.0, got {leaf.grad!r}")
    return {
        "build_seconds": built - start,
        "backward_seconds": done - built,
        "baseline_rss": baseline,
        "rss_after_build": after_build,
        "peak_rss": peak_rss(),
    }


def measure_memory(nodes: int) -> dict[str, float]:
    """tracemalloc's peak over backward alone (the graph itself is built before tracing starts)."""
    _leaf, out = chain(nodes)
    tracemalloc.start()
    out.backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    tracemalloc.start()
    leaf2, out2 = chain(nodes // 10)
    _, graph_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del leaf2, out2
    return {"backward_peak_bytes": peak, "graph_bytes_per_node": graph_peak / (nodes // 10)}


def run_child(nodes: int, measure: str) -> dict[str, float]:
    command = [
        sys.executable,
        "-m",
        "tools.benchmarks.deep_graph",
        "--nodes",
        str(nodes),
        "--measure",
        measure,
    ]
    root = Path(__file__).resolve().parents[2]  # the repository (tools/ is importable from it)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH", "")]))
    result = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=root)
    loaded: dict[str, float] = json.loads(result.stdout)
    return loaded


def micrograd_note() -> str:
    try:
        from micrograd.engine import Value as MicrogradValue
    except ImportError:
        return "micrograd not installed"
    out = MicrogradValue(0.5)
    for _ in range(MICROGRAD_DEPTH):
        out = out + 1.0
    try:
        out.backward()
    except RecursionError:
        return f"RecursionError at depth {MICROGRAD_DEPTH:,} (recursion limit {sys.getrecursionlimit():,})"
    return f"backward succeeded at depth {MICROGRAD_DEPTH:,}"


def figure_deep(quick: bool) -> list[Row]:
    nodes = QUICK_NODES if quick else NODES
    timing = run_child(nodes, "time")
    memory = run_child(nodes, "memory")
    graph_mib = (timing["rss_after_build"] - timing["baseline_rss"]) / MIB
    figure = "5 deep graph"
    label = f"{nodes:,}-node chain"
    return [
        Row(
            figure,
            f"backward, {label}",
            "-",
            None,
            None,
            format_seconds(timing["backward_seconds"]),
            "-",
            f"{timing['backward_seconds'] / nodes * 1e9:.0f} ns/node; building it took "
            f"{format_seconds(timing['build_seconds'])}",
        ),
        Row(
            figure,
            f"peak memory, {label}",
            "-",
            None,
            None,
            f"{timing['peak_rss'] / MIB:.0f} MiB peak RSS",
            "-",
            f"graph {graph_mib:.0f} MiB RSS ({memory['graph_bytes_per_node']:.0f} B/node traced); "
            f"backward's own peak {memory['backward_peak_bytes'] / MIB:.0f} MiB traced "
            f"({memory['backward_peak_bytes'] / nodes:.0f} B/node)",
        ),
        Row(figure, "micrograd 0.1.0 backward on a chain", "-", None, None, "-", "-", micrograd_note()),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.benchmarks.deep_graph")
    parser.add_argument("--nodes", type=int, default=NODES)
    parser.add_argument("--measure", choices=("time", "memory"), default="time")
    arguments = parser.parse_args(argv)
    measure = measure_time if arguments.measure == "time" else measure_memory
    print(json.dumps(measure(arguments.nodes)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

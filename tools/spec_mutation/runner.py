"""Run every spec mutant: shard the rows, one pytest session per shard, merge the verdicts.

Each shard gets its own temporary copy of the spec directory (the plugin rewrites files in it) and
runs as `pytest -p tools.spec_mutation.plugin` with CONTRACTS_SPECS pointing at that copy.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.mutation.run import fork_safe_environment
from tools.spec_mutation import sample
from tools.spec_mutation.catalog import RowMutants, catalog, read_document
from tools.spec_mutation.statements import source_mutants

REPOSITORY = Path(__file__).resolve().parents[2]
SUITE = ("tests/properties", "tests/golden")
PYTEST_OPTIONS = ("-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header", "-o", "addopts=")


@dataclass(frozen=True)
class RunOptions:
    """Where the suite and the spec live, and how to run them."""

    root: Path
    specs: Path
    jobs: int = 2
    profile: str = "mutation"
    rows: tuple[str, ...] = ()  # row id prefixes; empty: every row
    suite: tuple[str, ...] = SUITE
    rows_provider: str = "contracts.spec_suite.spec_rows:all_rows"  # the suite's loaded rows (see the plugin)
    package: str = "contracts"  # statement mutants: the package under root/src
    statement_suite: tuple[str, ...] = ("tests",)
    sample: dict[str, Any] | None = None  # sample.record(seed, percent); None: every row and guard


def chosen(
    entries: Sequence[RowMutants], prefixes: Sequence[str], drawn: dict[str, Any] | None = None
) -> list[RowMutants]:
    """The rows whose id starts with a prefix (any, when none is given) and that the sample takes."""
    return [
        e
        for e in entries
        if (not prefixes or any(e.row_id.startswith(p) for p in prefixes)) and sample.taken(e.row_id, drawn)
    ]


def shards(entries: Sequence[RowMutants], jobs: int) -> list[list[RowMutants]]:
    """Rows split into at most `jobs` shards of similar mutant counts (largest rows first)."""
    buckets: list[list[RowMutants]] = [[] for _ in range(max(1, jobs))]
    loads = [0] * len(buckets)
    for entry in sorted(entries, key=lambda e: -len(e.mutants)):
        lightest = loads.index(min(loads))
        buckets[lightest].append(entry)
        loads[lightest] += len(entry.mutants) + 1
    return [bucket for bucket in buckets if bucket]


def plan(entries: Sequence[RowMutants], specs: Path) -> dict[str, Any]:
    files = sorted({entry.file for entry in entries})
    return {
        "documents": {name: read_document(specs / name) for name in files},
        "rows": [
            {
                "row_id": entry.row_id,
                "file": entry.file,
                "mutants": [
                    {"id": m.mutant_id(), "operator": m.operator, "row": m.row} for m in entry.mutants
                ],
            }
            for entry in entries
        ],
    }


def command(options: RunOptions, plan_file: Path, out_file: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "tools.spec_mutation.plugin",
        f"--spec-mutation-plan={plan_file}",
        f"--spec-mutation-out={out_file}",
        f"--spec-mutation-rows={options.rows_provider}",
        f"--hypothesis-profile={options.profile}",
        *PYTEST_OPTIONS,
        *options.suite,
    ]


def run_shards(options: RunOptions, parts: Sequence[Sequence[RowMutants]]) -> list[dict[str, Any]]:
    """Start one pytest per shard, wait for all, return their row results (in shard order)."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="spec-mutation-") as scratch:
        started: list[tuple[subprocess.Popen[bytes], Path, Path]] = []
        for number, part in enumerate(parts):
            place = Path(scratch) / f"shard{number}"
            shutil.copytree(options.specs, place / "specs")
            plan_file, out_file, log = place / "plan.json", place / "out.json", place / "pytest.log"
            plan_file.write_text(json.dumps(plan(part, options.specs)))
            environment = {**os.environ, "CONTRACTS_SPECS": str(place / "specs")}
            with log.open("wb") as output:
                process = subprocess.Popen(
                    command(options, plan_file, out_file),
                    cwd=options.root,
                    env=environment,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            started.append((process, out_file, log))
        for process, _, _ in started:
            process.wait()  # every shard has ended before any is judged: none outlives the scratch dir
        for _, out_file, log in started:
            if not out_file.exists():
                raise RuntimeError(f"a spec-mutation shard wrote no results:\n{log.read_text()[-3000:]}")
            rows.extend(json.loads(out_file.read_bytes())["rows"])
    return rows


def results(entries: Sequence[RowMutants], ran: Sequence[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """The results document: per row, its mutants with field, operator, change and verdict."""
    by_row = {row["row_id"]: row for row in ran}
    rows = []
    for entry in entries:
        outcome = by_row[entry.row_id]
        verdicts = {v["id"]: v for v in outcome["mutants"]}
        mutants = [
            {
                "id": m.mutant_id(),
                "field": m.field,
                "operator": m.operator,
                "change": m.change,
                **{k: verdicts[m.mutant_id()][k] for k in ("status", "killed_by", "seconds")},
            }
            for m in entry.mutants
        ]
        rows.append(
            {
                "row_id": entry.row_id,
                "file": entry.file,
                "tests": outcome["tests"],
                "files": outcome["files"],
                "seconds": outcome["seconds"],
                "dropped": entry.dropped,
                "mutants": mutants,
            }
        )
    return {"kind": "spec", "seconds": round(seconds, 1), "rows": rows}


def run(options: RunOptions, entries: Sequence[RowMutants] | None = None) -> dict[str, Any]:
    """Run and collect every spec mutant of the given rows (default: the chosen rows of the catalog)."""
    started, cpu = time.monotonic(), children_cpu()
    if entries is None:
        entries = chosen(catalog(options.specs), options.rows, options.sample)
    ran = run_shards(options, shards(entries, options.jobs))
    found = results(entries, ran, time.monotonic() - started)
    return {**found, "selection": list(options.rows), "cpu_seconds": round(children_cpu() - cpu, 1)}


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes: the cost on an idle machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round(usage.ru_utime + usage.ru_stime, 1)


# Tests that start child processes (which import the unmutated package) cannot see an in-memory
# mutant: they are left out of the statement run (the whole-spec runs are marked engine_run).
STATEMENT_IGNORED = (
    "tests/verify/test_verify_runs.py",
    "tests/verify/test_shipped_verdicts.py",
    "tests/tools",
)
STATEMENT_MARKERS = "not engine_run"


def statement_plan(root: Path, package: str, drawn: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Every statement mutant of root/src/package (of the sample's functions): its function, what it
    changes and the mutated module text, compiled under a file name that names the mutant (tracebacks
    say which mutant a failing test ran)."""
    entries = []
    missing: dict[str, int] = {}
    for mutant in source_mutants(root / "src", package):
        if not sample.taken(mutant.function, drawn):
            continue
        engine = engine_not_installed(mutant.module)
        if engine is not None:  # its adapter's tests skip here: no test could kill the mutant
            missing[engine] = missing.get(engine, 0) + 1
            continue
        entries.append(
            {
                "id": mutant.mutant_id(),
                "module": mutant.module,
                "qualname": mutant.qualname,
                "function": mutant.function,
                "change": mutant.change,
                "path": f"<{mutant.mutant_id()}>",
                "source": mutant.source,
            }
        )
    for engine, count in sorted(missing.items()):
        print(f"statement mutants not run here: {count} of the {engine} adapter ({engine} is not installed)")
    return entries


def engine_not_installed(module: str) -> str | None:
    """The engine an adapter module (`contracts.engines.<engine>_engine`) drives, when that engine's
    package is not installed in this environment; None otherwise."""
    name = module.rpartition(".")[2]
    if not (module.startswith("contracts.engines.") and name.endswith("_engine")):
        return None
    engine = name.removesuffix("_engine")
    return engine if importlib.util.find_spec(engine) is None else None


def statement_shards(entries: Sequence[dict[str, Any]], jobs: int) -> list[list[dict[str, Any]]]:
    """The plan dealt round robin into at most `jobs` shards: a function's mutants are neighbours in
    the plan, so its costly ones (an equivalent runs every test that calls it) are spread out."""
    count = max(1, jobs)
    return [part for part in (list(entries[number::count]) for number in range(count)) if part]


def statement_command(options: RunOptions, place: Path) -> list[str]:
    """One pytest session over place/plan.json, writing place/out.json."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "tools.spec_mutation.statement_plugin",
        f"--statement-mutation-plan={place / 'plan.json'}",
        f"--statement-mutation-out={place / 'out.json'}",
        f"--hypothesis-profile={options.profile}",
        *PYTEST_OPTIONS,
        *(f"--ignore={ignored}" for ignored in STATEMENT_IGNORED),
        "-m",
        STATEMENT_MARKERS,
        *options.statement_suite,
    ]


def run_statement_session(options: RunOptions, place: Path) -> dict[str, Any]:
    """Run one shard's session to its end; its verdicts."""
    environment = {
        **fork_safe_environment(os.environ),  # a forked child per mutant
        "CONTRACTS_SPECS": str(options.specs.resolve()),
        # the session loads this tooling's pytest plugin: the repository root holding tools/ is importable
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH", "")])),
    }
    log, out_file = place / "pytest.log", place / "out.json"
    with log.open("wb") as output:
        subprocess.run(
            statement_command(options, place),
            cwd=options.root,
            env=environment,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    if not out_file.exists():
        raise RuntimeError(f"the statement-mutation session wrote no results:\n{log.read_text()[-3000:]}")
    ran: dict[str, Any] = json.loads(out_file.read_bytes())
    if "error" in ran:
        raise RuntimeError(f"statement mutation: {ran['error']}")
    return ran


def run_statements(options: RunOptions, entries: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Run the statement mutants of a plan (default: statement_plan's): one pytest session per shard,
    side by side (a forked child per mutant in each), the verdicts merged in plan order."""
    started, cpu = time.monotonic(), children_cpu()
    if entries is None:
        entries = statement_plan(options.root, options.package, options.sample)
    with tempfile.TemporaryDirectory(prefix="statement-mutation-") as scratch:
        place = Path(scratch)
        places = []
        for number, part in enumerate(statement_shards(entries, options.jobs)):
            places.append(place / f"shard{number}")
            places[-1].mkdir()
            (places[-1] / "plan.json").write_text(json.dumps(part))
        # Threads only wait: each runs one child process, so the sessions run in parallel.
        with ThreadPoolExecutor(max_workers=max(1, len(places))) as pool:
            sessions = list(pool.map(lambda shard: run_statement_session(options, shard), places))
    verdicts = {verdict["id"]: verdict for session in sessions for verdict in session["mutants"]}
    mutants = [
        {**verdicts[entry["id"]], "function": entry["function"], "change": entry["change"]}
        for entry in entries
    ]
    return {
        "kind": "statement",
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(children_cpu() - cpu, 1),
        "coverage_seconds": max((session["coverage_seconds"] for session in sessions), default=0.0),
        "mutants": mutants,
        # each shard profiles its own functions: the union is every planned function's test files
        "covering": {name: files for session in sessions for name, files in session["covering"].items()},
    }

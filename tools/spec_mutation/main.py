"""`python -m tools.spec_mutation`: run, write the results, gate (tools.spec_mutation.gate)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contracts.spec import spec_dir
from tools.mutation.cache import Layout
from tools.mutation.gate import Key
from tools.spec_mutation import cache, sample
from tools.spec_mutation.cache import CACHE, Cache
from tools.spec_mutation.catalog import catalog
from tools.spec_mutation.gate import EQUIVALENTS, THRESHOLD, gate_results
from tools.spec_mutation.incremental import Incremental
from tools.spec_mutation.runner import RunOptions
from tools.spec_mutation.statements import source_mutants

RESULTS = Path("mutants/spec-mutation.json")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="python -m tools.spec_mutation",
        description="Mutate every spec row's machine-readable fields and the implementation's guards, "
        "run the bound tests, and gate: every survivor killed or listed with its reason.",
    )
    made.add_argument("--out", type=Path, default=RESULTS, help=f"results JSON (default: {RESULTS})")
    made.add_argument("--equivalents", type=Path, default=EQUIVALENTS, help=f"default: {EQUIVALENTS}")
    made.add_argument("-j", "--jobs", type=int, default=2, help="pytest sessions in parallel (default: 2)")
    made.add_argument("--rows", action="append", default=[], metavar="PREFIX", help="only these rows")
    made.add_argument("--no-statements", action="store_true", help="spec mutants only")
    made.add_argument(
        "--sample",
        type=sample.percent,
        default=sample.EVERYTHING,
        metavar="PERCENT",
        help="only the rows and guarded functions drawn at this percentage (default: 100, all)",
    )
    made.add_argument("--sample-seed", default="0", metavar="SEED", help="the sample's seed (default: 0)")
    made.add_argument(
        "--shard",
        type=sample.shard,
        default=(1, 1),
        metavar="I/N",
        help="only the rows and guarded functions of shard I of N (a fan-out over N jobs; default: 1/1)",
    )
    made.add_argument(
        "--merge",
        type=Path,
        action="append",
        default=[],
        metavar="PART",
        help="merge the shards' caches (each written by --shard I/N --write-cache --cache PART) into "
        "--cache first; then the run finds every verdict there and gates",
    )
    made.add_argument("--cache", type=Path, default=CACHE, help=f"the verdict cache (default: {CACHE})")
    made.add_argument("--fresh", action="store_true", help="run every mutant: use no cached verdict")
    made.add_argument(
        "--write-cache", action="store_true", help="record this run's verdicts in the cache (commit it)"
    )
    made.add_argument("--gate-only", action="store_true", help="gate the existing results file")
    made.add_argument("--threshold", type=float, default=THRESHOLD)
    made.add_argument("--hypothesis-profile", dest="profile", default="mutation")
    return made


def summary(results: dict[str, Any]) -> str:
    """One line: how many verdicts came from the cache, how many ran."""
    spec = results["spec"]
    rows = len(spec["rows"])
    line = f"spec-mutation cache: {spec['cached_rows']} of {rows} rows' verdicts stand"
    if "statements" in results:
        statements = results["statements"]
        line += f", {statements['cached_mutants']} of {len(statements['mutants'])} statement mutants'"
    return line + "; the rest ran"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not args.gate_only:
        root = Path(os.getcwd())
        drawn = sample.record(args.sample_seed, args.sample, args.shard)
        if args.merge:
            cache.save(cache.merged([cache.load(part) for part in args.merge]), args.cache)
        options = RunOptions(root, spec_dir(), args.jobs, args.profile, tuple(args.rows), sample=drawn)
        layout = Layout(root=root)
        known = Cache() if args.fresh else cache.load(args.cache)
        runs = Incremental(options, known, cache.Keys(layout), cache.environment_hash(layout))
        results: dict[str, Any] = {"spec": runs.spec(), "sample": drawn}
        if not args.no_statements:
            results["statements"] = runs.statements()
        print(summary(results), file=sys.stderr)
        if args.write_cache:
            cache.save(runs.cache, args.cache)
        parts = [results[part] for part in ("spec", "statements") if part in results]
        results["seconds"] = round(sum(part["seconds"] for part in parts), 1)
        results["cpu_seconds"] = round(sum(part["cpu_seconds"] for part in parts), 1)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=1))
    if not args.out.exists():
        print(f"spec-mutation: no results file {args.out}", file=sys.stderr)
        return 2
    results = json.loads(args.out.read_bytes())
    rows = catalog(spec_dir())
    existing: set[Key] = {(entry.row_id, mutant.change) for entry in rows for mutant in entry.mutants}
    existing |= {(mutant.function, mutant.change) for mutant in source_mutants(Path("src"), "contracts")}
    return gate_results(results, existing, rows, args.equivalents, args.threshold)

"""A spec-mutation run that reuses the cache's standing verdicts and runs only the rest
(tools.spec_mutation.cache says what stands)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tools.spec_mutation.cache import Cache, Entry, Keys, entry_of, standing
from tools.spec_mutation.catalog import RowMutants, catalog
from tools.spec_mutation.runner import RunOptions, chosen, run, run_statements, statement_plan

CACHED = "(cached)"  # killed_by of a verdict the cache gave


@dataclasses.dataclass
class Incremental:
    """Runs what the cache does not cover, and the cache after the run."""

    options: RunOptions
    cache: Cache
    keys: Keys
    environment: str

    def __post_init__(self) -> None:
        if self.cache.environment != self.environment:  # no entry of another environment stands
            self.cache = Cache(self.environment)

    # --- spec rows --------------------------------------------------------------------------------

    def spec(self) -> dict[str, Any]:
        """Every chosen row's results: the cached ones that stand, the others run now."""
        entries = chosen(catalog(self.options.specs), self.options.rows, self.options.sample)
        cached: dict[str, dict[str, Any]] = {}
        stale: list[RowMutants] = []
        for entry in entries:
            known = self.cache.rows.get(entry.row_id)
            changes = [mutant.change for mutant in entry.mutants]
            if known is not None and standing(known, self.keys.row(entry.row_id, known.covered_by), changes):
                cached[entry.row_id] = cached_row(entry, known)
            else:
                stale.append(entry)
        ran: dict[str, Any] = {"rows": [], "seconds": 0.0, "cpu_seconds": 0.0}
        if stale:
            ran = run(self.options, stale)
        for row in ran["rows"]:
            verdicts = {mutant["change"]: mutant["status"] for mutant in row["mutants"]}
            key = self.keys.row(row["row_id"], row["files"])
            recorded = entry_of(key, row["files"], row["tests"], verdicts)
            self.record(self.cache.rows, row["row_id"], recorded)
        fresh = {row["row_id"]: row for row in ran["rows"]}
        rows = [cached.get(entry.row_id) or fresh[entry.row_id] for entry in entries]
        return {**ran, "rows": rows, "cached_rows": len(cached), "selection": list(self.options.rows)}

    # --- statement mutants ------------------------------------------------------------------------

    def statements(self) -> dict[str, Any]:
        """Every planned statement mutant's verdict: cached per function where it stands, else run
        (against the test files that covered the stale functions, when all of them are known)."""
        plan = statement_plan(self.options.root, self.options.package, self.options.sample)
        by_function: dict[str, list[dict[str, Any]]] = {}
        for mutant in plan:
            by_function.setdefault(mutant["function"], []).append(mutant)
        verdicts: dict[str, dict[str, Any]] = {}
        stale: dict[str, list[dict[str, Any]]] = {}
        for function, mutants in by_function.items():
            known = self.cache.functions.get(function)
            changes = [mutant["change"] for mutant in mutants]
            key = self.function_key(mutants[0], known.covered_by) if known else ""
            if known is not None and standing(known, key, changes):
                verdicts.update((m["id"], cached_statement(m, known)) for m in mutants)
            else:
                stale[function] = mutants
        ran: dict[str, Any] = {"mutants": [], "covering": {}, "seconds": 0.0, "cpu_seconds": 0.0}
        ran["coverage_seconds"] = 0.0
        if stale:
            ran = run_statements(self.selected(stale), [m for ms in stale.values() for m in ms])
        for mutant in ran["mutants"]:
            verdicts[mutant["id"]] = mutant
        for function, mutants in stale.items():
            files = ran["covering"].get(function, [])
            outcome = {m["change"]: verdicts[m["id"]]["status"] for m in mutants}
            tests = verdicts[mutants[0]["id"]]["tests"]
            recorded = entry_of(self.function_key(mutants[0], files), files, tests, outcome)
            self.record(self.cache.functions, function, recorded)
        cached = len(plan) - len(ran["mutants"])
        return {**ran, "mutants": [verdicts[m["id"]] for m in plan], "cached_mutants": cached}

    def function_key(self, mutant: dict[str, Any], covered_by: Sequence[str]) -> str:
        path = self.options.root / "src" / Path(*mutant["module"].split(".")).with_suffix(".py")
        if not path.exists():
            path = path.with_suffix("") / "__init__.py"
        return self.keys.function(path, mutant["qualname"], covered_by)

    def selected(self, stale: dict[str, list[dict[str, Any]]]) -> RunOptions:
        """The options for the stale functions' run: their covering test files when every one of them
        has a cache entry (its source changed), else the whole statement suite (a new function)."""
        known = [self.cache.functions.get(function) for function in stale]
        if any(entry is None for entry in known):
            return self.options
        files = sorted({path for entry in known if entry for path in entry.covered_by})
        existing = [path for path in files if (self.options.root / path).exists()]
        if not existing:
            return self.options
        return dataclasses.replace(self.options, statement_suite=tuple(existing))

    @staticmethod
    def record(entries: dict[str, Entry], name: str, recorded: Entry | None) -> None:
        if recorded is None:
            entries.pop(name, None)
        else:
            entries[name] = recorded


def cached_row(entry: RowMutants, known: Entry) -> dict[str, Any]:
    """A row's results document from its cache entry."""
    return {
        "row_id": entry.row_id,
        "file": entry.file,
        "tests": known.tests,
        "files": list(known.covered_by),
        "seconds": 0.0,
        "dropped": entry.dropped,
        "cached": True,
        "mutants": [
            {
                "id": mutant.mutant_id(),
                "field": mutant.field,
                "operator": mutant.operator,
                "change": mutant.change,
                "status": known.verdict(mutant.change),
                "killed_by": CACHED,
                "seconds": 0.0,
            }
            for mutant in entry.mutants
        ],
    }


def cached_statement(mutant: dict[str, Any], known: Entry) -> dict[str, Any]:
    return {
        "id": mutant["id"],
        "status": known.verdict(mutant["change"]),
        "tests": known.tests,
        "seconds": 0.0,
        "cached": True,
        "function": mutant["function"],
        "change": mutant["change"],
    }

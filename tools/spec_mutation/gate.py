"""The spec-mutation gate: tools.mutation.gate's rule over the spec and statement mutants.

A spec mutant is keyed by (row id, change), a statement mutant by (function, change); the reviewed
list, tools/spec_mutation/equivalents.toml, names each equivalent by the same key (`row = ...` or
`function = ...`, `change = ...`, `reason = ...`). An entry is stale when no mutant of today's spec
and code has its key: judged against every row's and every guard's mutants, so a run of some rows,
or a sample, fails on it too. The rows' own rules: a row without mutants fails unless listed as a
[[row]] (with why), and so does a row with mutants but no bound test; a listed row that has mutants
now, or no longer exists, fails.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tools.mutation.gate import THRESHOLD, Key, gate, load_listed
from tools.spec_mutation.catalog import RowMutants

EQUIVALENTS = Path("tools/spec_mutation/equivalents.toml")

__all__ = ["EQUIVALENTS", "THRESHOLD", "gate_results", "keyed", "listed_rows", "row_problems"]


def keyed(results: Mapping[str, Any]) -> dict[Key, str]:
    """Every mutant of a results document (spec rows' and statements'), keyed, with its status."""
    found: dict[Key, str] = {}
    for row in results.get("spec", {}).get("rows", []):
        found.update(((row["row_id"], mutant["change"]), mutant["status"]) for mutant in row["mutants"])
    for mutant in results.get("statements", {}).get("mutants", []):
        found[(mutant["function"], mutant["change"])] = mutant["status"]
    return found


def listed_rows(path: Path) -> dict[str, str]:
    """row id -> why it has no mutants, from the [[row]] entries."""
    if not path.exists():
        return {}
    with path.open("rb") as file:
        entries = tomllib.load(file).get("row", [])
    rows: dict[str, str] = {}
    for entry in entries:
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise ValueError(f"{path}: row {entry.get('id')!r} is listed without a reason")
        rows[str(entry["id"])] = reason
    return rows


def row_problems(
    results: Mapping[str, Any], catalog: Iterable[RowMutants], listed: Mapping[str, str]
) -> list[str]:
    """Rows without mutants (unlisted), rows whose mutants ran with no bound test, stale [[row]] entries."""
    without = {entry.row_id for entry in catalog if not entry.mutants}
    lines = [
        f"row without mutants: {row} (give it machine-readable fields, or list it)"
        for row in sorted(without - set(listed))
    ]
    lines.extend(
        f"row without bound tests: {row['row_id']}"
        for row in results.get("spec", {}).get("rows", [])
        if row["mutants"] and not row["tests"]
    )
    lines.extend(
        f"listed row has mutants now, or no longer exists: {row}; remove it from {EQUIVALENTS}"
        for row in sorted(set(listed) - without)
    )
    return lines


def gate_results(
    results: Mapping[str, Any],
    existing: Iterable[Key],
    catalog: Iterable[RowMutants],
    equivalents: Path = EQUIVALENTS,
    threshold: float = THRESHOLD,
) -> int:
    """The gate over a results document, today's mutants (`existing`: every row's and guard's) and the
    reviewed list; prints its report and returns the exit code."""
    extra = row_problems(results, catalog, listed_rows(equivalents))
    listed = load_listed(equivalents)
    return gate("spec-mutation", keyed(results), set(existing), listed, threshold, equivalents, extra)

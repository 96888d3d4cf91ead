"""Every spec mutant of a spec directory, row by row, with what was dropped and why."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tools.spec_mutation.equivalence import equivalent, refused
from tools.spec_mutation.operators import Mutant, row_mutants


@dataclass
class RowMutants:
    """A row's mutants, and how many generated changes were no mutant (refused, equivalent, repeated)."""

    file: str
    row_id: str
    mutants: list[Mutant] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)


def schema_context(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema's exception and probe vocabularies (the siblings a failure mutant may use)."""
    failure = next(
        part["then"]["properties"]
        for part in schema["$defs"]["row"]["allOf"]
        if part.get("if", {}).get("properties", {}).get("kind", {}).get("const") == "failure"
    )
    return {
        "exceptions": list(failure["exception"]["enum"]),
        "probes": list(failure["probes"]["items"]["enum"]),
    }


def read_document(path: Path) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)


def file_mutants(document: Mapping[str, Any], name: str, context: Mapping[str, Any]) -> list[RowMutants]:
    functions = frozenset(document["meta"].get("functions", ()))
    failures = [row["id"] for row in document["rows"] if row["kind"] == "failure"]
    found: list[RowMutants] = []
    for row in document["rows"]:
        entry = RowMutants(name, row["id"])
        seen: list[dict[str, Any]] = []
        for mutant in row_mutants(row, {**context, "failures": failures}):
            reason = dropped_because(row, mutant, functions, seen)
            if reason:
                entry.dropped[reason] = entry.dropped.get(reason, 0) + 1
                continue
            seen.append(mutant.row)
            entry.mutants.append(mutant)
        found.append(entry)
    return found


def dropped_because(
    row: Mapping[str, Any], mutant: Mutant, functions: frozenset[str], seen: list[dict[str, Any]]
) -> str | None:
    if mutant.row in seen:
        return "repeated"
    if refused(mutant.row, functions):
        return "refused by the loader"
    if row["kind"] in ("formula", "gradient") and equivalent(row, mutant.row):
        return "same function on the domain"
    return None


def catalog(directory: Path) -> list[RowMutants]:
    """Every row of every spec file in the directory, in file order, with its mutants."""
    context = schema_context(json.loads((directory / "schema.json").read_bytes()))
    found: list[RowMutants] = []
    for path in sorted(directory.glob("*.toml")):
        found.extend(file_mutants(read_document(path), path.name, context))
    return found

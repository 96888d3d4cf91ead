"""The spec-mutation line `contracts verify` shows beside the mutmut score, when results exist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tools.spec_mutation.gate import EQUIVALENTS, counts, load_listed, score
from tools.spec_mutation.status import KILLED

RESULTS = Path("mutants/spec-mutation.json")


def spec_mutation_summary(path: Path = RESULTS, equivalents: Path = EQUIVALENTS) -> dict[str, Any] | None:
    """Score, counts and per-row killed/total from a results file; None when there is none."""
    if not path.exists():
        return None
    results = json.loads(path.read_bytes())
    found = counts(results, load_listed(equivalents))
    rows = {
        row["row_id"]: {
            "killed": sum(m["status"] == KILLED for m in row["mutants"]),
            "total": len(row["mutants"]),
        }
        for row in results.get("spec", {}).get("rows", [])
    }
    return {"score": score(found), **found, "rows": rows}


def summary_line(summary: dict[str, Any]) -> str:
    return (
        f"spec-mutation score {summary['score']:.2%} ({summary['killed']} killed, {summary['equivalent']} "
        f"listed equivalent, of {summary['total']} spec and statement mutants)"
    )


def spec_mutation_lines(suite: str) -> list[str]:
    """The line `contracts verify` prints under the mutmut score: [] when the suite has no results."""
    root = Path(suite)
    found = spec_mutation_summary(root / RESULTS, root / EQUIVALENTS)
    return [] if found is None else [summary_line(found)]

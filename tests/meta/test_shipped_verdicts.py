"""The shipped adapters' verdicts are pinned: `contracts verify` on torch and on micrograd, over the whole
spec in the ci profile, gives every row the status tests/meta/shipped_verdicts.json records, and the
README's engine matrix states those counts. The repository's own suite runs the engine tests on the
reference only, so an adapter bug (torch handing constants a gradient, a convention dropped, a capability
claimed and broken) shows up nowhere else until a user runs verify."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from contracts.matrix import summary
from tests.meta.test_verify_runs import run_verify

ROOT = Path(__file__).resolve().parents[2]
PINNED = json.loads((Path(__file__).with_name("shipped_verdicts.json")).read_text(encoding="utf-8"))
ENGINES = ("torch", "micrograd")

# verify's pytest runs in a child, which imports the installed package, never mutmut's mutants
pytestmark = pytest.mark.skipif(
    "MUTANT_UNDER_TEST" in os.environ, reason="end to end: children see no mutant"
)


def pinned_statuses(engine: str) -> dict[str, str]:
    return {row_id: status for status, ids in PINNED[engine].items() for row_id in ids}


def verified_statuses(engine: str, out: Path) -> dict[str, str]:
    """Each row's status in a whole-spec verify of the engine (two workers: the CI machine has two cores)."""
    return {
        row_id: row["status"] for row_id, row in run_verify(["--impl", engine, "-n", "2"], out).rows().items()
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shipped_adapter_gets_its_pinned_verdict_on_every_row(engine: str, tmp_path: Path) -> None:
    """Every row's status on the shipped adapter is the pinned one: no row moves between passed, partly
    verified, failed and n/a without the pin (and the README) saying so."""
    if importlib.util.find_spec(engine) is None:
        pytest.skip(f"{engine} is not installed")
    expected = pinned_statuses(engine)
    actual = verified_statuses(engine, tmp_path / f"{engine}.json")
    moved = {
        row_id: (expected.get(row_id), actual.get(row_id))
        for row_id in expected.keys() | actual.keys()
        if expected.get(row_id) != actual.get(row_id)
    }
    assert {} == moved, "(pinned, verify gave)"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_readme_matrix_states_the_pinned_counts(engine: str) -> None:
    """The README's engine matrix row for the adapter totals exactly the pinned statuses."""
    cell = summary(Counter(pinned_statuses(engine).values()))  # as `contracts matrix` writes the cell
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (row,) = re.findall(rf"^\| {engine} \|.*\|$", readme, flags=re.MULTILINE)
    assert cell == row.split("|")[-2].strip()

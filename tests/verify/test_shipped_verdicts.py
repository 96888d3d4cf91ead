"""The shipped adapters' verdicts are pinned: `contracts verify` on torch and on micrograd, over the whole
spec in the ci profile, gives every row the status tests/verify/shipped_verdicts.json records, and the
README's engine matrix states those counts. The repository's own suite runs the engine tests on the
reference only, so an adapter bug (torch handing constants a gradient, a convention dropped, a capability
claimed and broken) shows up nowhere else until a user runs verify."""

from __future__ import annotations

import importlib.util
import os
import re
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest

from contracts.verify.matrix import summary
from tests.common.pins import ENGINES, pinned, verdicts
from tests.common.verify_runs import run_verify

ROOT = Path(__file__).resolve().parents[2]

# verify's pytest runs in a child, which imports the installed package, never mutmut's mutants
pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif(
        "MUTANT_UNDER_TEST" in os.environ, reason="end to end: children see no mutant"
    ),
]


def moved(expected: Mapping[str, object], actual: Mapping[str, object]) -> dict[str, tuple[object, object]]:
    """Every row whose pinned entry differs from the fresh one: (pinned, verify gave)."""
    return {
        row_id: (expected.get(row_id), actual.get(row_id))
        for row_id in expected.keys() | actual.keys()
        if expected.get(row_id) != actual.get(row_id)
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shipped_adapter_gets_its_pinned_verdict_on_every_row(engine: str, tmp_path: Path) -> None:
    """Every row's status and not-applicable reasons on the shipped adapter are the pinned ones: no row
    moves between passed, partly verified, failed and n/a, and no part of a row goes n/a for another
    reason (a convention dropped while a missing capability still covers it), without the pin saying so."""
    if importlib.util.find_spec(engine) is None:
        pytest.skip(f"{engine} is not installed")
    # two workers: the CI machine has two cores
    report = run_verify(["--impl", engine, "-n", "2"], tmp_path / f"{engine}.json").report
    assert report is not None
    (statuses, reasons) = verdicts(report, peer_installed=importlib.util.find_spec("torch") is not None)
    (pinned_statuses, pinned_reasons) = pinned(engine)
    assert ({}, {}) == (moved(pinned_statuses, statuses), moved(pinned_reasons, reasons)), "(pinned, gave)"


@pytest.mark.parametrize("engine", ENGINES)
def test_the_readme_matrix_states_the_pinned_counts(engine: str) -> None:
    """The README's engine matrix row for the adapter totals exactly the pinned statuses."""
    cell = summary(Counter(pinned(engine)[0].values()))  # as `contracts matrix` writes the cell
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (row,) = re.findall(rf"^\| {engine} \|.*\|$", readme, flags=re.MULTILINE)
    assert cell == row.split("|")[-2].strip()

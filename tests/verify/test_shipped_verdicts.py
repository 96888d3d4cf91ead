"""The shipped adapters' verdicts are pinned: `contracts verify` on torch and on micrograd, over the whole
spec, gives every row the status tests/verify/shipped_verdicts.json records (docs/engines shows them,
regenerated from the pin by tools.docs). The repository's own suite runs the engine tests on the reference
only, so an adapter bug (torch handing constants a gradient, a convention dropped, a capability claimed
and broken) shows up nowhere else until a user runs verify. An engine that is not installed is skipped:
tox's py311 installs torch and micrograd, `tox -e engines` all five.

The pin is written from runs in the ci profile. Here verify runs in this session's profile if that one is
derandomized (ci under `tox -e engines`; mutation, 20 examples without shrinking, in CI's whole-engine
session, where torch's and micrograd's verdicts equal the pin's row for row: docs/performance.md), and in
ci otherwise: a pin says nothing about examples drawn at random."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import settings

from tests.common.pins import pinned, pinned_engines, verdicts
from tests.common.verify_runs import run_verify

ROOT = Path(__file__).resolve().parents[2]

# verify's pytest runs in a child, which imports the installed package, never mutmut's mutants
pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="end to end: children see no mutant"),
]


def moved(expected: Mapping[str, object], actual: Mapping[str, object]) -> dict[str, tuple[object, object]]:
    """Every row whose pinned entry differs from the fresh one: (pinned, verify gave)."""
    return {
        row_id: (expected.get(row_id), actual.get(row_id))
        for row_id in expected.keys() | actual.keys()
        if expected.get(row_id) != actual.get(row_id)
    }


@pytest.mark.parametrize("engine", pinned_engines())
def test_a_shipped_adapter_gets_its_pinned_verdict_on_every_row(engine: str, tmp_path: Path) -> None:
    """Every row's status and not-applicable reasons on the shipped adapter are the pinned ones: no row
    moves between passed, partly verified, failed and n/a, and no part of a row goes n/a for another
    reason (a convention dropped while a missing capability still covers it), without the pin saying so."""
    if importlib.util.find_spec(engine) is None:
        pytest.skip(f"{engine} is not installed")
    # two workers: the CI machine has two cores
    profile = settings.get_current_profile_name() if settings().derandomize else "ci"
    report = run_verify(
        ["--impl", engine, "-n", "2", "--hypothesis-profile", profile], tmp_path / f"{engine}.json"
    ).report
    assert report is not None
    (statuses, reasons) = verdicts(report, peer_installed=importlib.util.find_spec("torch") is not None)
    (pinned_statuses, pinned_reasons) = pinned(engine)
    assert ({}, {}) == (moved(pinned_statuses, statuses), moved(pinned_reasons, reasons)), "(pinned, gave)"

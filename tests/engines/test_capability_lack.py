"""An engine is never failed for a capability it declares it lacks: every spec test that would call
it for that capability is not applicable, whatever rows the test names (refusal tests included)."""

from __future__ import annotations

import os

import pytest

from contracts.spec_suite.strategies.dags import QUICK_PROFILE
from tests.common.paths import SUITE_DIRS
from tests.common.sessions import run_suite

ENGINE = "tests.common.lacking_engines:LacksExpReluEmbedding"
# the statistical init tests (thousands of draws) call nothing the engine lacks
SELECTION = "not init_sample_variance and not layer_roles and not init_statistical and not output_variance"

pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="a whole session per mutant"),
]


def test_the_suite_never_calls_what_an_engine_lacks() -> None:
    """The whole suite on the reference minus tensor exp, scalar relu and the embedding (each of which
    raises if called): no row fails, and the rows only those capabilities serve are not applicable."""
    # Whether a test calls what the engine lacks depends on what it asks for, not on how many examples it
    # draws: verify --quick's profile (5 examples, short deep-graph chains) takes half the mutation's time.
    outcomes = run_suite(SUITE_DIRS, ENGINE, SELECTION, expected=pytest.ExitCode.OK, profile=QUICK_PROFILE)
    lacked_only = ("T.grad.exp", "S03.grad.relu", "S05.cost.embedding-forward", "S05.fail.sequence-empty")
    assert (set(), {row_id: "not applicable" for row_id in lacked_only}) == (
        outcomes.failed(),
        {row_id: outcomes.results[row_id].status for row_id in lacked_only},
    )
    assert "passed" in outcomes.statuses()

"""A hypothesis test that draws calls an engine lacks runs the examples the engine can run: a lack is
never a failure, and never hides one either, whichever example hypothesis draws first."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis.errors import Unsatisfiable

from contracts.engines.reference import ReferenceEngine
from contracts.spec_suite import session
from contracts.spec_suite.spec_rows import RecordingEngine
from tests.common.paths import SUITE
from tests.common.sessions import run_suite

LACKING = "tests.common.lacking_engines"
TESTS = (str(SUITE / "properties" / "test_tensor_refusals.py"),)
# draws an op with an axis outside the input's dimensions: sum first, then max, logsumexp, softmax, ...
REFUSAL_TEST = "test_engine_refuses_with_the_spec_family[S06.fail.axis]"


def status(engine: str, expected: pytest.ExitCode) -> str:
    return run_suite(TESTS, f"{LACKING}:{engine}", REFUSAL_TEST, expected).results["S06.fail.axis"].status


def test_a_lacked_op_drawn_first_does_not_hide_a_bug_in_an_op_the_engine_has() -> None:
    """An engine lacking sum whose max takes any axis fails S06.fail.axis (the examples drawing sum are
    rejected, not the end of the test); without the bug the test is not applicable, for the lack."""
    assert ("failed", "not applicable") == (
        status("LacksSumMaxTakesAnyAxis", pytest.ExitCode.TESTS_FAILED),
        status("LacksSum", pytest.ExitCode.OK),
    )


def test_a_test_whose_every_example_is_lacked_is_not_applicable() -> None:
    """When the lack leaves hypothesis no example to run, the test is n/a, not an error."""
    assert "not applicable" == status("LacksEveryAxisOp", pytest.ExitCode.OK)


def test_an_unsatisfiable_test_without_a_lack_stays_an_error() -> None:
    """Only a lack turns hypothesis giving up into n/a: a test unsatisfiable on its own still errors."""
    item: Any = SimpleNamespace(
        funcargs={"engine": RecordingEngine(ReferenceEngine())},
        obj=SimpleNamespace(hypothesis=SimpleNamespace(inner_test=lambda: None)),
    )
    call = session.pytest_pyfunc_call(item)
    next(call)
    with pytest.raises(Unsatisfiable):
        call.throw(Unsatisfiable("no example"))

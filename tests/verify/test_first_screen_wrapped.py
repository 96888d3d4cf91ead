"""On the first screen, a cause raised beneath a wrapper shows that wrapper, its address blanked."""

from __future__ import annotations

from contracts.verify.formats import claimed_failures
from tests.common.reports import PROPERTY, make_report, record

AXIS = "AxisError: axis -2 is out of bounds for array of dimension 1"


def test_the_wrapper_of_a_root_cause_is_shown_under_it() -> None:
    """A BackwardError about an object at some address, caused by the engine's AxisError: the cause is
    the AxisError, and the line under it names the wrapper with the address blanked."""
    message = f"BackwardError: backward failed for <Tensor at 0x7f2a10>\ncaused by: {AXIS}"
    failed = record(PROPERTY.format("wrapped"), ["A.one"], "failed", message=message)
    row = {"id": "A.one", "title": "t", "kind": "rule", "stage": "A", "level": "values", "category": "value"}
    lines = claimed_failures(make_report([failed], [row]))
    assert [f"  1. {AXIS}", "     raised as: BackwardError: backward failed for <Tensor at 0x…>"] == lines[
        1:3
    ]

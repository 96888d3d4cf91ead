"""The recorder takes a test's passed clauses from its teardown report, the one report that carries
them (the suite notes them once the test has run), and the engine the session ran from the option."""

from __future__ import annotations

import pytest

from contracts.verify.clauses import CLAUSES_PROPERTY
from contracts.verify.plugin import Recorder
from contracts.verify.records import SPEC_PROPERTY

NODE = "tests/properties/test_x.py::test_two_rows"


def phase(when: str, clauses: list[list[str | None]] | None) -> pytest.TestReport:
    properties: list[tuple[str, object]] = [(SPEC_PROPERTY, ("A.x", "A.y"))]
    if clauses is not None:
        properties.append((CLAUSES_PROPERTY, clauses))
    return pytest.TestReport(NODE, ("x", 1, "y"), {}, "passed", None, when, user_properties=properties)  # type: ignore[arg-type]


@pytest.mark.parametrize("earlier", [None, []])
def test_the_clauses_a_test_proved_come_from_its_teardown(earlier: list[list[str | None]] | None) -> None:
    """Setup and call reports without clauses (or with none), then the teardown's two: the record holds
    the teardown's, one per row."""
    recorder = Recorder(None, progress=False)
    for when in ("setup", "call"):
        recorder.pytest_runtest_logreport(phase(when, earlier))
    recorder.pytest_runtest_logreport(phase("teardown", [["A.x", None], ["A.y", None]]))
    assert [["A.x", None], ["A.y", None]] == recorder.records[NODE].clauses


def test_clauses_on_an_earlier_report_are_not_the_tests() -> None:
    """A call report carrying clauses (an earlier phase's view) is replaced by the teardown's."""
    recorder = Recorder(None, progress=False)
    recorder.pytest_runtest_logreport(phase("call", [["A.x", None]]))
    recorder.pytest_runtest_logreport(phase("teardown", [["A.y", None]]))
    assert [["A.y", None]] == recorder.records[NODE].clauses

"""`contracts verify --format junit`: a JUnit test case per spec row, failures and skips as CI reads them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from contracts.verify import junit
from contracts.verify.formats import FORMATS
from contracts.verify.junit import format_junit
from contracts.verify.records import FAILED, NOT_APPLICABLE, NOT_EXERCISED, PASSED, SKIPPED
from contracts.verify.report import (
    DESELECTED,
    PARTLY,
    ROW_STATUSES,
    UNBOUND,
    Rerun,
    RowResult,
    aggregate,
)
from tests.common.reports import GOLDEN, NA, PROPERTY, RECORDS, ROWS, make_report, record


def parsed() -> ET.Element:
    return ET.fromstring(format_junit(make_report(RECORDS)))


def test_one_suite_per_stage_and_one_case_per_row() -> None:
    """Stages A and B become test suites holding a test case named after each row."""
    root = parsed()
    assert "contracts verify fake at level contract" == root.get("name")
    suites = {suite.get("name"): [case.get("name") for case in suite] for suite in root}
    expected = {
        "contracts fake stage A": ["A.grad.ok", "A.fail.bad", "A.rule.na"],
        "contracts fake stage B": ["B.rule.free"],
    }
    assert expected == suites
    counts = [(s.get("tests"), s.get("failures"), s.get("skipped"), s.get("errors")) for s in root]
    assert [("3", "1", "1", "0"), ("1", "1", "0", "0")] == counts


def test_each_status_maps_to_what_a_ci_server_shows() -> None:
    """passed: a bare case; failed: failure, message, repro; n/a: skipped, reason; unbound: failure."""
    cases = {case.get("name"): case for case in parsed().iter("testcase")}
    assert ["properties"] == [child.tag for child in cases["A.grad.ok"]]  # level, category, coverage
    assert {"level": "values", "category": "gradient", "coverage": "2/2"} == {
        prop.get("name"): prop.get("value") for prop in cases["A.grad.ok"].iter("property")
    }
    assert "contracts.fake.stageA" == cases["A.grad.ok"].get("classname")
    assert "1.000000" == cases["A.grad.ok"].get("time")  # two tests of 0.5 s
    failure = cases["A.fail.bad"].find("failure")
    assert failure is not None
    assert "A.fail.bad: failed (failed)" == failure.get("message")
    assert (failure.text or "").startswith(
        "tests/properties/test_x.py::test_bad\nassert 1 == 2\nrepro: pytest "
    )
    skipped = cases["A.rule.na"].find("skipped")
    assert skipped is not None
    assert "not applicable: engine does not provide x" == skipped.get("message")
    unbound = cases["B.rule.free"].find("failure")
    assert unbound is not None
    assert "B.rule.free: not proven (unbound)" == unbound.get("message")
    assert "B.rule.free is unbound: " == unbound.text


def test_junit_is_a_verify_format() -> None:
    """--format junit selects this formatter."""
    assert format_junit is FORMATS["junit"]


def test_a_deselected_row_without_reasons_is_skipped_naming_its_status() -> None:
    """A row left without tests by -k is skipped, and the message says so when there is no reason."""
    report = make_report(
        RECORDS[:2], rows=aggregate(ROWS, RECORDS[:2], Rerun("fake", "ci"), deselection=True)
    )
    cases = {case.get("name"): case for case in ET.fromstring(format_junit(report)).iter("testcase")}
    skipped = cases["B.rule.free"].find("skipped")
    assert skipped is not None
    assert "deselected" == skipped.get("message")


JUNIT = """\
<?xml version="1.0" encoding="utf-8"?>
<testsuites name="contracts verify fake">
  <testsuite name="contracts fake stage A" tests="3" failures="1" skipped="1" errors="0" time="3.000000">
    <testcase name="A.grad.ok" classname="contracts.fake.stageA" time="1.000000" />
    <testcase name="A.fail.bad" classname="contracts.fake.stageA" time="1.000000">
      <failure message="A.fail.bad: failed (failed)">tests/properties/test_x.py::test_bad
assert 1 == 2
repro: pytest tests/properties/test_x.py::test_bad --contracts-impl fake --hypothesis-profile=ci</failure>
    </testcase>
    <testcase name="A.rule.na" classname="contracts.fake.stageA" time="1.000000">
      <skipped message="not applicable: engine does not provide x" />
    </testcase>
  </testsuite>
  <testsuite name="contracts fake stage B" tests="1" failures="1" skipped="0" errors="0" time="0.000000">
    <testcase name="B.rule.free" classname="contracts.fake.stageB" time="0.000000">
      <failure message="B.rule.free: not proven (unbound)">B.rule.free is unbound: </failure>
    </testcase>
  </testsuite>
</testsuites>
"""


MANY = [
    record(PROPERTY.format("ok"), ["A.grad.ok"]),
    record(PROPERTY.format("bad"), ["A.fail.bad"], "failed", message="assert 1 == 2"),
    record(GOLDEN.format("bad"), ["A.fail.bad"], "failed", message=None),
    record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None),
    record(
        GOLDEN.format("na"), ["A.rule.na"], "not applicable", reason="not applicable: also y", examples=None
    ),
    record(PROPERTY.format("free"), ["B.rule.free"], "skipped", reason="no x here", examples=None),
    record(GOLDEN.format("free"), ["B.rule.free"], "skipped", reason="no y there", examples=None),
]
FAILURE_BLOCKS = """\
tests/properties/test_x.py::test_bad
assert 1 == 2
repro: pytest tests/properties/test_x.py::test_bad --contracts-impl fake --hypothesis-profile=ci

tests/golden/test_x.py::test_bad

repro: pytest tests/golden/test_x.py::test_bad --contracts-impl fake --hypothesis-profile=ci"""


def test_several_failures_and_reasons_are_all_shown() -> None:
    """Two failing tests give two blocks (a message-less one blank); every reason of a row is joined."""
    cases = {
        case.get("name"): case for case in ET.fromstring(format_junit(make_report(MANY))).iter("testcase")
    }
    failure, skipped, unproven = (
        cases["A.fail.bad"].find("failure"),
        cases["A.rule.na"].find("skipped"),
        cases["B.rule.free"].find("failure"),
    )
    assert failure is not None
    assert skipped is not None
    assert unproven is not None
    assert FAILURE_BLOCKS == failure.text
    assert "not applicable: engine does not provide x; also y" == skipped.get("message")
    assert "B.rule.free is skipped: no x here; no y there" == unproven.text


# every row status -> the element a CI server reads for it (None: a bare, green test case)
JUNIT_OF_STATUS = {
    PASSED: None,
    PARTLY: "system-out",
    NOT_APPLICABLE: "skipped",
    DESELECTED: "skipped",
    FAILED: "failure",
    NOT_EXERCISED: "failure",
    SKIPPED: "failure",
    UNBOUND: "failure",
}


@pytest.mark.parametrize("status", ROW_STATUSES)
def test_only_a_proven_row_is_green_in_junit(status: str) -> None:
    """Each of the report's row statuses as the JUnit element a CI server counts: not exercised, skipped
    and unbound rows are failures (a CI server shows a skip or a bare case as harmless), n/a and
    deselected are skips, partly verified passes with its note, passed is a bare case."""
    assert set(JUNIT_OF_STATUS) == set(ROW_STATUSES)
    row = RowResult("A.rule.r", "t", "rule", "A", status, ["why"], {})
    children = [child.tag for child in junit.testcase(row, "fake", claimed=True) if child.tag != "properties"]
    assert ([] if JUNIT_OF_STATUS[status] is None else [JUNIT_OF_STATUS[status]]) == children


@pytest.mark.parametrize("status", ROW_STATUSES)
def test_a_row_above_the_claimed_level_never_fails_the_ci_server(status: str) -> None:
    """A row the claim does not cover is skipped as not claimed unless it is green or harmless anyway."""
    row = RowResult("A.rule.r", "t", "rule", "A", status, ["why"], {})
    children = {child.tag: child for child in junit.testcase(row, "fake", claimed=False)}
    assert "failure" not in children
    if JUNIT_OF_STATUS[status] == "failure":
        assert f"not claimed (level contract): {status}" == children["skipped"].get("message")

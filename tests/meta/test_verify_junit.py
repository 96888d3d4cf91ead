"""`contracts verify --format junit`: a JUnit test case per spec row, failures and skips as CI reads them."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from contracts.verify.formats import FORMATS
from contracts.verify.junit import format_junit
from contracts.verify.report import Rerun, aggregate
from tests.meta.test_verify_report import RECORDS, ROWS, make_report


def parsed() -> ET.Element:
    return ET.fromstring(format_junit(make_report(RECORDS)))


def test_one_suite_per_stage_and_one_case_per_row() -> None:
    """Stages A and B become test suites holding a test case named after each row."""
    root = parsed()
    assert "contracts verify fake" == root.get("name")
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
    assert [] == list(cases["A.grad.ok"])
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

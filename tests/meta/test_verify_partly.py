"""A row whose engine tests were partly n/a is 'partly verified': accepted, never read as wholly passed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from contracts.matrix import build, read_report, to_markdown
from contracts.verify.formats import format_json, format_markdown, format_table
from contracts.verify.junit import format_junit
from contracts.verify.records import NOT_APPLICABLE, PASSED, REFERENCE_ONLY_PREFIX, Record
from contracts.verify.report import ENGINE_LACKS, PARTLY, Report, Rerun, aggregate, row_outcome, row_status
from tests.meta.test_verify_report import GOLDEN, NA, PROPERTY, ROWS, make_report, record

REFERENCE_ONLY = f"{REFERENCE_ONLY_PREFIX} checks this project's own message"

# A.grad.ok: its property test ran on the engine, one golden was n/a for a capability the engine lacks,
# another golden is reference-only. A.fail.bad: passed, with only a reference-only test n/a.
PARTLY_RECORDS = [
    record(PROPERTY.format("ok"), ["A.grad.ok"]),
    record(GOLDEN.format("lacks"), ["A.grad.ok"], NOT_APPLICABLE, reason=NA, examples=None),
    record(GOLDEN.format("own"), ["A.grad.ok"], NOT_APPLICABLE, reason=REFERENCE_ONLY, examples=None),
    record(PROPERTY.format("bad"), ["A.fail.bad"]),
    record(GOLDEN.format("bad"), ["A.fail.bad"], NOT_APPLICABLE, reason=REFERENCE_ONLY, examples=None),
]


@pytest.mark.parametrize(
    ("outcome", "reason", "expected"),
    [
        pytest.param(NOT_APPLICABLE, NA, ENGINE_LACKS, id="engine-na"),
        pytest.param(NOT_APPLICABLE, REFERENCE_ONLY, NOT_APPLICABLE, id="reference-only"),
        pytest.param(NOT_APPLICABLE, None, ENGINE_LACKS, id="na-without-reason"),
        pytest.param(PASSED, NA, PASSED, id="passed"),
    ],
)
def test_an_engine_test_left_unrun_reads_as_engine_lacks(
    outcome: str, reason: str | None, expected: str
) -> None:
    """Only an n/a test that is not reference-only leaves part of the row's claim unchecked."""
    assert expected == row_outcome(Record("t", ["A"], outcome, reason=reason))


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        pytest.param([PASSED, ENGINE_LACKS], PARTLY, id="passed-and-lacking"),
        pytest.param([ENGINE_LACKS, PASSED, NOT_APPLICABLE], PARTLY, id="order-free"),
        pytest.param([ENGINE_LACKS, "failed"], "failed", id="failed-wins"),
        pytest.param([ENGINE_LACKS, NOT_APPLICABLE], NOT_APPLICABLE, id="nothing-ran"),
        pytest.param([ENGINE_LACKS, "skipped"], "skipped", id="other-skip"),
    ],
)
def test_partly_verified_status_rules(outcomes: list[str], expected: str) -> None:
    """A pass with an engine test left unrun is partly verified; failure still wins; no pass is n/a."""
    assert expected == row_status(outcomes)


def partly_report() -> Report:
    """A clean run of stage A's first two rows, one of them partly verified."""
    rows = aggregate(ROWS[:2], PARTLY_RECORDS, Rerun("fake", "ci"))
    return make_report(PARTLY_RECORDS, rows=rows, unknown_ids={}, pytest_exit_code=0)


def test_aggregate_names_only_the_engine_part_left_out() -> None:
    """The partly verified row's reasons are the engine's n/a reasons, not the reference-only ones;
    a row whose only n/a test is reference-only stays passed, with no reason."""
    results = {row.id: row for row in aggregate(ROWS, PARTLY_RECORDS, Rerun("fake", "ci"))}
    partly, whole = results["A.grad.ok"], results["A.fail.bad"]
    assert (PARTLY, [NA.removeprefix("not applicable:").strip()]) == (partly.status, partly.reasons)
    assert {"properties": PASSED, "golden": NOT_APPLICABLE} == partly.checks
    assert (PASSED, []) == (whole.status, whole.reasons)


def test_a_partly_verified_run_is_green_and_says_what_was_left_out() -> None:
    """Exit 0, the table's status column and verdict say 'partly', and the reasons list the row."""
    report = partly_report()
    table = format_table(report)
    assert 0 == report.exit_code()
    assert "A.grad.ok   gradient  partly" in table
    assert "  engine does not provide x\n    A.grad.ok\n" in table
    assert "OK: 2 rows: 1 passed, 1 partly verified in" in table.splitlines()[-1]
    assert "| `A.grad.ok` | gradient | partly |" in format_markdown(report)


def test_junit_passes_a_partly_verified_row_and_names_the_part_left_out() -> None:
    """A CI server counts the row as passed; its system-out says what the engine did not run."""
    root = ET.fromstring(format_junit(partly_report()))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert ["system-out"] == [child.tag for child in cases["A.grad.ok"]]
    assert "partly verified; not run on this engine: engine does not provide x" == cases["A.grad.ok"][0].text
    report = partly_report()
    next(row for row in report.rows if row.id == "A.grad.ok").reasons.append("engine does not provide y")
    cases = {case.get("name"): case for case in ET.fromstring(format_junit(report)).iter("testcase")}
    expected = "partly verified; not run on this engine: engine does not provide x; engine does not provide y"
    assert expected == cases["A.grad.ok"][0].text
    stage_a = next(suite for suite in root if suite.get("name") == "contracts fake stage A")
    assert ("0", "0") == (stage_a.get("failures"), stage_a.get("skipped"))


def test_matrix_marks_a_partly_verified_row(tmp_path: Path) -> None:
    """The JSON report's partly verified row reads back as its own mark in the matrix."""
    path = tmp_path / "partly.json"
    path.write_text(format_json(partly_report()), encoding="utf-8")
    assert "| `A.grad.ok` | part |" in to_markdown(build([read_report(path)]))

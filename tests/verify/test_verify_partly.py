"""A row some of whose engine checks could not run is "partly verified": accepted, never read as passed;
the reference's own tests are not another engine's checks (they show in the row's coverage)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import cast

import pytest

from contracts.engines import Engine, load_engine
from contracts.spec_suite.spec_rows import RecordingEngine, torch_peer
from contracts.verify.formats import format_json, format_markdown, format_table
from contracts.verify.junit import format_junit
from contracts.verify.matrix import build, read_report, to_markdown
from contracts.verify.records import NOT_APPLICABLE, PASSED, REFERENCE_ONLY_PREFIX, skip_outcome
from contracts.verify.report import PARTLY, Report, Rerun, aggregate, row_status
from tests.common.reports import GOLDEN, NA, PROPERTY, ROWS, make_report, record

REFERENCE_ONLY = f"{REFERENCE_ONLY_PREFIX} checks this project's own message"

OWN = "checks this project's own message"
# On an engine other than the reference. A.grad.ok: its property test ran on the engine, one golden was
# n/a for a capability the engine lacks, another golden is reference-only. A.fail.bad: passed on the
# engine, with only a reference-only test beside it. B.rule.free: (given tests here) every test ran.
PARTLY_RECORDS = [
    record(PROPERTY.format("ok"), ["A.grad.ok"]),
    record(GOLDEN.format("lacks"), ["A.grad.ok"], NOT_APPLICABLE, reason=NA, examples=None),
    record(
        GOLDEN.format("own"),
        ["A.grad.ok"],
        NOT_APPLICABLE,
        reason=REFERENCE_ONLY,
        examples=None,
        reference_only=OWN,
    ),
    record(PROPERTY.format("bad"), ["A.fail.bad"]),
    record(
        GOLDEN.format("bad"),
        ["A.fail.bad"],
        NOT_APPLICABLE,
        reason=REFERENCE_ONLY,
        examples=None,
        reference_only=OWN,
    ),
]


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        pytest.param([PASSED, NOT_APPLICABLE], PARTLY, id="passed-and-not-run"),
        pytest.param([NOT_APPLICABLE, PASSED, PASSED], PARTLY, id="order-free"),
        pytest.param([PASSED, PASSED], PASSED, id="all-ran"),
        pytest.param([NOT_APPLICABLE, "failed"], "failed", id="failed-wins"),
        pytest.param([NOT_APPLICABLE, NOT_APPLICABLE], NOT_APPLICABLE, id="nothing-ran"),
        pytest.param([NOT_APPLICABLE, "skipped"], "skipped", id="other-skip"),
        pytest.param([PASSED, "skipped", PASSED], "skipped", id="passed-and-skipped"),
        pytest.param([PASSED, NOT_APPLICABLE, "skipped"], "skipped", id="skip-beats-partly"),
        pytest.param([PASSED, "xfailed"], "skipped", id="an-outcome-that-proves-nothing"),
    ],
)
def test_partly_verified_status_rules(outcomes: list[str], expected: str) -> None:
    """A pass with any engine check left n/a is partly verified; a test skipped for another reason leaves
    the row skipped (not proven, not accepted) even beside passes; failure still wins; no pass is n/a."""
    assert expected == row_status(outcomes)


def partly_report() -> Report:
    """A clean run of stage A's first two rows, one of them partly verified."""
    rows = aggregate(ROWS[:2], PARTLY_RECORDS, Rerun("fake", "ci"), engine_is_reference=False)
    return make_report(PARTLY_RECORDS, rows=rows, unknown_ids={}, pytest_exit_code=0, level="refusals")


def test_aggregate_names_every_engine_part_left_out() -> None:
    """A partly verified row's reasons are those of its engine checks that could not run; a row whose
    engine checks all ran and passed is passed beside a reference-only test (that test is the reference's
    own: it shows in the coverage, 1 of 2 checks run on the engine, not as a reason)."""
    records = [
        *PARTLY_RECORDS,
        record(PROPERTY.format("all"), ["B.rule.free"]),
        record(GOLDEN.format("all"), ["B.rule.free"]),
    ]
    results = {
        row.id: row for row in aggregate(ROWS, records, Rerun("fake", "ci"), engine_is_reference=False)
    }
    partly, own, whole = results["A.grad.ok"], results["A.fail.bad"], results["B.rule.free"]
    assert (PARTLY, [NA.removeprefix("not applicable:").strip()], (1, 3)) == (
        partly.status,
        partly.reasons,
        partly.coverage(),
    )
    assert {"properties": PASSED, "golden": NOT_APPLICABLE} == partly.suites
    assert (PASSED, [], (1, 2)) == (own.status, own.reasons, own.coverage())
    assert (PASSED, [], {"properties": PASSED, "golden": PASSED}) == (
        whole.status,
        whole.reasons,
        whole.suites,
    )
    on_reference = {row.id: row for row in aggregate(ROWS, records, Rerun("fake", "ci"))}["A.fail.bad"]
    assert (PARTLY, (1, 2)) == (on_reference.status, on_reference.coverage())


def test_a_partly_verified_run_is_green_and_says_what_was_left_out() -> None:
    """Exit 0, the table's status column and verdict say 'partly', and the reasons list the row."""
    report = partly_report()
    table = format_table(report)
    assert 0 == report.exit_code()
    assert ["A.grad.ok", "values", "gradient", "partly", "1/3"] == next(
        line.split()[:5] for line in table.splitlines() if line.startswith("A.grad.ok ")
    )
    assert "  engine does not provide x\n    A.grad.ok\n" in table
    assert "OK at level refusals: 2 rows: 1 passed, 1 partly verified in" in table.splitlines()[-1]
    assert "| `A.grad.ok` | values | gradient | partly | 1/3 |" in format_markdown(report)


def test_junit_passes_a_partly_verified_row_and_names_the_part_left_out() -> None:
    """A CI server counts the row as passed; its system-out says what the engine did not run."""
    root = ET.fromstring(format_junit(partly_report()))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert ["properties", "system-out"] == [child.tag for child in cases["A.grad.ok"]]
    assert "partly verified; not run on this engine: engine does not provide x" == cases["A.grad.ok"][1].text
    report = partly_report()
    next(row for row in report.rows if row.id == "A.grad.ok").reasons.append("engine does not provide y")
    cases = {case.get("name"): case for case in ET.fromstring(format_junit(report)).iter("testcase")}
    x, y = "engine does not provide x", "engine does not provide y"
    expected = f"partly verified; not run on this engine: {x}; {y}"
    assert expected == cases["A.grad.ok"][1].text
    stage_a = next(suite for suite in root if suite.get("name") == "contracts fake stage A")
    assert ("0", "0") == (stage_a.get("failures"), stage_a.get("skipped"))


def test_matrix_marks_a_partly_verified_row(tmp_path: Path) -> None:
    """The JSON report's partly verified row reads back as its own mark in the matrix."""
    path = tmp_path / "partly.json"
    path.write_text(format_json(partly_report()), encoding="utf-8")
    assert "| `A.grad.ok` | values | part |" in to_markdown(build([read_report(path)]))


def as_fixture(adapter: Engine) -> Engine:
    """The adapter as the engine fixture gives it to a test: wrapped to count its calls."""
    return cast(Engine, RecordingEngine(adapter))


def peer_skip(adapter: Engine) -> str:
    """The outcome verify gives a cross-check whose peer is refused for this engine."""
    with pytest.raises(pytest.skip.Exception) as skipped:
        torch_peer(as_fixture(adapter))
    return skip_outcome(skipped.value.msg)


def test_a_cross_check_without_its_peer_installed_is_not_applicable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without torch, the torch cross-check reads n/a with the reason (its row partly verified), not a
    plain skip that a pass beside it would have hidden."""
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert NOT_APPLICABLE == peer_skip(load_engine("reference"))


def test_a_cross_check_of_the_peer_with_itself_is_not_applicable() -> None:
    """The torch adapter is not compared with itself (that passes whatever it computes): n/a; any other
    engine gets the torch adapter as its peer."""
    pytest.importorskip("torch")
    from contracts.engines.torch_engine import TorchEngine

    assert NOT_APPLICABLE == peer_skip(TorchEngine())
    assert TorchEngine is type(torch_peer(as_fixture(load_engine("reference"))))

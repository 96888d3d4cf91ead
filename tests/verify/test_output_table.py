"""The table report, line by line: its sections, their order, the blank lines between them and the
alignment of every column (numbers right-aligned, words left-aligned)."""

from __future__ import annotations

import pytest

from contracts.verify.formats import format_table
from tests.common.output_reports import FIRST_SCREEN, REPRO, eventful_report
from tests.common.reports import GOLDEN, PROPERTY

EVENTFUL_TABLE = [
    "contracts verify: engine fake (tests.fake:Fake), hypothesis profile ci, xdist workers: none",
    "suite /suite (repro commands run from there)",
    "",
    "judged at level contract (the rows of values, refusals, contract); levels: values, refusals, contract",
    "LEVEL     VERDICT  CATEGORY  CHECKS RUN  PASSED  FAILED  NOT RUN  N/A",
    "values    PASSED   value              0       0       0        0    2",
    "                   gradient           2       2       0        0    0",
    "refusals  FAILED   refusal            2       0       2        0    0",
    "contract  PASSED   order              1       1       0        0    1",
    "",
    *FIRST_SCREEN,
    "",
    "ID           LEVEL     KIND      STATUS  CHECKS  PROPERTY  GOLDEN  EXAMPLES   TIME  TITLE",
    "A.grad.ok    values    gradient  passed  2/2     passed    passed       101  0.75s  the gradient of x",
    "A.fail.bad   refusals  failure   failed  2/2     failed    failed        11  1.00s  refused",
    "A.rule.na    values    rule      n/a     0/2     n/a       n/a            0  0.00s  n/a",
    "B.rule.part  contract  rule      partly  1/2     passed    n/a            5  2.50s  half of it",
    "",
    "failing rows by cause: 1 row, 2 causes",
    "  cause 1 in tests/properties/test_x.py::test_bad: assert 1 == 2",
    "    1 row: A.fail.bad",
    "    1 test: tests/properties/test_x.py::test_bad",
    "  cause 2: (no message)",
    "    1 row: A.fail.bad",
    "    1 test: tests/golden/test_x.py::test_bad",
    "",
    "failures:",
    "  A.fail.bad (failure, refusals, refusal): refused",
    "    failed: tests/properties/test_x.py::test_bad",
    "      | assert 1 == 2",
    "      > x=0",
    "      repro: " + REPRO.format(PROPERTY.format("bad")),
    "    failed: tests/golden/test_x.py::test_bad",
    "      repro: " + REPRO.format(GOLDEN.format("bad")),
    "",
    "not applicable, partly verified or skipped, by reason:",
    "  engine does not provide x",
    "    A.rule.na",
    "  engine does not provide y",
    "    B.rule.part",
    "",
    "tests naming no spec row that failed:",
    "  error: tests/properties/test_x.py::test_loose",
    "    | boom",
    "    repro: " + REPRO.format(PROPERTY.format("loose")),
    "spec ids that tests name but no spec has:",
    "  Z.unknown: named by tests/golden/test_x.py::test_na",
    "collection error in tests/properties/test_new.py:",
    "  | E   ImportError: nope",
    "",
    "STAGE  ROWS  PASSED  PARTLY  FAILED  N/A  UNBOUND",
    "A         3       1       0       1    1        0",
    "B         1       0       1       0    0        0",
    "all       4       1       1       1    1        0",
    "",
    "FAILED at level contract: 4 rows: 1 passed, 1 partly verified, 1 failed, 1 not applicable in 3.5s",
]


def test_the_table_of_an_eventful_run_line_by_line() -> None:
    """Every section in order, each after one blank line; the numeric columns (checks per level,
    examples, time, the summary's counts) right-aligned, the rest left-aligned; a failure without a
    message shows no message line; the summary shows every always-shown status even at zero and no
    other zero status; a run that verified something does not say it verified nothing."""
    assert "\n".join(EVENTFUL_TABLE) + "\n" == format_table(eventful_report())


EMPTY_TABLE = [
    "contracts verify: engine fake (tests.fake:Fake), hypothesis profile ci, xdist workers: none",
    "suite /suite (repro commands run from there)",
    "",
    "judged at level contract (the rows of values, refusals, contract); levels: values, refusals, contract",
    "LEVEL  VERDICT  CATEGORY  CHECKS RUN  PASSED  FAILED  NOT RUN  N/A",
    "",
    "ID  LEVEL  KIND  STATUS  CHECKS  PROPERTY  GOLDEN  EXAMPLES  TIME  TITLE",
    "",
    "STAGE  ROWS  PASSED  FAILED  N/A  UNBOUND",
    "all       0       0       0    0        0",
    "",
    "nothing verified: no test ran against the engine (every selected row is n/a, skipped or unbound)",
    "FAILED at level contract: 0 rows: none in 0.0s",
]


def test_a_run_of_no_rows_says_none_and_that_nothing_was_verified() -> None:
    """A selection that left no row: the tables hold only their headers, the summary an 'all' line of
    zeros, and the verdict line counts 0 rows, 'none' of any status, after the nothing-verified line."""
    report = eventful_report(
        rows=[], other_tests=[], unknown_ids={}, collection_errors=[], pytest_exit_code=5, duration=0.04
    )
    assert "\n".join(EMPTY_TABLE) + "\n" == format_table(report)


@pytest.mark.parametrize(
    ("workers", "shown"),
    [
        pytest.param(-1, "auto", id="auto"),
        pytest.param(0, "none", id="none"),
        pytest.param(1, "1", id="one"),
        pytest.param(3, "3", id="three"),
    ],
)
def test_the_header_names_the_xdist_workers(workers: int, shown: str) -> None:
    """-n auto (-1) reads 'auto', no xdist (0) 'none', and a count of workers that count."""
    expected = (
        f"contracts verify: engine fake (tests.fake:Fake), hypothesis profile ci, xdist workers: {shown}"
    )
    assert expected == format_table(eventful_report(workers=workers)).splitlines()[0]

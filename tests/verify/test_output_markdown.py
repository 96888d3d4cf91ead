"""The markdown report, line by line: its headings, the blank lines a renderer needs around them, the
pipe tables, the fenced blocks (text for failures and problems, sh for repro commands)."""

from __future__ import annotations

from contracts.verify.formats import format_markdown
from tests.common.output_reports import FIRST_SCREEN, REPRO, eventful_report
from tests.common.reports import GOLDEN, PROPERTY

EVENTFUL_MARKDOWN = [
    "# contracts verify",
    "",
    "contracts verify: engine fake (tests.fake:Fake), hypothesis profile ci, xdist workers: none  ",
    "suite /suite (repro commands run from there)  ",
    "",
    "## Levels",
    "",
    "Judged at level contract (the rows of values, refusals, contract).",
    "",
    "| LEVEL | VERDICT | CATEGORY | CHECKS RUN | PASSED | FAILED | NOT RUN | N/A |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    "| values | PASSED | value | 0 | 0 | 0 | 0 | 2 |",
    "|  |  | gradient | 2 | 2 | 0 | 0 | 0 |",
    "| refusals | FAILED | refusal | 2 | 0 | 2 | 0 | 0 |",
    "| contract | PASSED | order | 1 | 1 | 0 | 0 | 1 |",
    "",
    "```text",
    *FIRST_SCREEN,
    "```",
    "",
    "## Rows",
    "",
    "| id | level | kind | status | checks | property | golden | examples | time | title |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    "| `A.grad.ok` | values | gradient | passed | 2/2 | passed | passed | 101 | 0.75s | the gradient of x |",
    "| `A.fail.bad` | refusals | failure | failed | 2/2 | failed | failed | 11 | 1.00s | refused |",
    "| `A.rule.na` | values | rule | n/a | 0/2 | n/a | n/a | 0 | 0.00s | n/a |",
    "| `B.rule.part` | contract | rule | partly | 1/2 | passed | n/a | 5 | 2.50s | half of it |",
    "",
    "## Failures by cause",
    "",
    "```text",
    "failing rows by cause: 1 row, 2 causes",
    "  cause 1 in tests/properties/test_x.py::test_bad: assert 1 == 2",
    "    1 row: A.fail.bad",
    "    1 test: tests/properties/test_x.py::test_bad",
    "  cause 2: (no message)",
    "    1 row: A.fail.bad",
    "    1 test: tests/golden/test_x.py::test_bad",
    "```",
    "",
    "## Failures",
    "",
    "### `A.fail.bad` (failure): refused",
    "",
    "- `tests/properties/test_x.py::test_bad` failed",
    "",
    "```text",
    "assert 1 == 2",
    "x=0",
    "```",
    "",
    "```sh",
    REPRO.format(PROPERTY.format("bad")),
    "```",
    "- `tests/golden/test_x.py::test_bad` failed",
    "",
    "```text",
    "",
    "```",
    "",
    "```sh",
    REPRO.format(GOLDEN.format("bad")),
    "```",
    "",
    "## Not applicable, partly verified or skipped",
    "",
    "- engine does not provide x: `A.rule.na`",
    "- engine does not provide y: `B.rule.part`",
    "",
    "## Other problems",
    "",
    "```text",
    "tests naming no spec row that failed:",
    "    error: tests/properties/test_x.py::test_loose",
    "      | boom",
    "      repro: " + REPRO.format(PROPERTY.format("loose")),
    "spec ids that tests name but no spec has:",
    "    Z.unknown: named by tests/golden/test_x.py::test_na",
    "collection error in tests/properties/test_new.py:",
    "    | E   ImportError: nope",
    "```",
    "",
    "## Summary",
    "",
    "| STAGE | ROWS | PASSED | PARTLY | FAILED | N/A | UNBOUND |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    "| A | 3 | 1 | 0 | 1 | 1 | 0 |",
    "| B | 1 | 0 | 1 | 0 | 0 | 0 |",
    "| all | 4 | 1 | 1 | 1 | 1 | 0 |",
    "",
    "**FAILED at level contract: 4 rows: 1 passed, 1 partly verified, 1 failed, 1 not applicable in 3.5s**",
]


def test_the_markdown_of_an_eventful_run_line_by_line() -> None:
    """Every section under its heading, in order, each heading with a blank line before and after; the
    rows table's lower-case header; the failures, causes and problems in text blocks (problems indented
    by four), each repro in an sh block; the verdict in bold as the last line."""
    assert "\n".join(EVENTFUL_MARKDOWN) + "\n" == format_markdown(eventful_report())


EMPTY_MARKDOWN = [
    "# contracts verify",
    "",
    "contracts verify: engine fake (tests.fake:Fake), hypothesis profile ci, xdist workers: none  ",
    "suite /suite (repro commands run from there)  ",
    "",
    "## Levels",
    "",
    "Judged at level contract (the rows of values, refusals, contract).",
    "",
    "| LEVEL | VERDICT | CATEGORY | CHECKS RUN | PASSED | FAILED | NOT RUN | N/A |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    "",
    "## Rows",
    "",
    "| id | level | kind | status | checks | property | golden | examples | time | title |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    "",
    "## Summary",
    "",
    "| STAGE | ROWS | PASSED | FAILED | N/A | UNBOUND |",
    "| --- | --- | --- | --- | --- | --- |",
    "| all | 0 | 0 | 0 | 0 | 0 |",
    "",
    "nothing verified: no test ran against the engine (every selected row is n/a, skipped or unbound)",
    "**FAILED at level contract: 0 rows: none in 0.0s**",
]


def test_the_markdown_of_a_run_of_no_rows() -> None:
    """No row: only the three headed tables, then the nothing-verified line and the bold verdict
    counting 0 rows, 'none' of any status; no failure, reason or problem section."""
    report = eventful_report(
        rows=[], other_tests=[], unknown_ids={}, collection_errors=[], pytest_exit_code=5, duration=0.04
    )
    assert "\n".join(EMPTY_MARKDOWN) + "\n" == format_markdown(report)

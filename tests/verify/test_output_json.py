"""The JSON report as text and the precision of its times: indented for a reader, seconds of the run
to the millisecond, of each row and test to the microsecond."""

from __future__ import annotations

import json

from contracts.verify.formats import format_json
from tests.common.reports import GOLDEN, PROPERTY, ROWS, make_report, record


def test_the_json_report_is_indented_by_two_spaces_per_level() -> None:
    """The document opens with its format and version on their own lines, nested objects two spaces
    further in, and ends with the closing brace and a newline."""
    text = format_json(make_report([record(PROPERTY.format("ok"), ["A.grad.ok"])], spec_rows=ROWS[:1]))
    opening = (
        '{\n  "format": "contracts-verify-report",\n  "version": 1,\n  "engine": {\n    "impl": "fake",\n'
    )
    assert (opening, "\n}\n") == (text[: len(opening)], text[-3:])


def test_the_json_report_rounds_times_to_the_millisecond_and_the_microsecond() -> None:
    """1.23456 s of run reads 1.235; tests of 0.1234564 s and 0.2 s read 0.123456 and 0.2, their row
    0.323456 (each rounded to six decimals, never to whole seconds)."""
    records = [
        record(PROPERTY.format("ok"), ["A.grad.ok"], duration=0.1234564),
        record(GOLDEN.format("ok"), ["A.grad.ok"], duration=0.2),
    ]
    document = json.loads(format_json(make_report(records, spec_rows=ROWS[:1], duration=1.23456)))
    (row,) = document["rows"]
    assert (1.235, 0.323456, [0.123456, 0.2]) == (
        document["duration"],
        row["duration"],
        [test["duration"] for test in row["tests"]],
    )

"""Small verify runs whose whole rendered report the output tests spell out line by line.

`eventful_report`: four rows in two stages, one of each of passed, failed (two failing tests, one
without a message, one with a falsifying example), not applicable and partly verified; a failing test
naming no row, an unknown id and a collection error. No row is unbound, so the summary shows a zero
column; the suite path, engine and timings are fixed so every line of every format is known.
"""

from __future__ import annotations

from typing import Any

from contracts.verify.records import Record
from contracts.verify.report import Report, Rerun, aggregate, reported_test, unknown_ids
from tests.common.reports import GOLDEN, NA, PROPERTY, record

RERUN = Rerun("fake", "ci")
REPRO = "pytest {} --contracts-impl fake --hypothesis-profile=ci"

EVENTFUL_ROWS: list[dict[str, str]] = [
    {
        "id": "A.grad.ok",
        "title": "the gradient of x",
        "kind": "gradient",
        "stage": "A",
        "level": "values",
        "category": "gradient",
    },
    {
        "id": "A.fail.bad",
        "title": "refused",
        "kind": "failure",
        "stage": "A",
        "level": "refusals",
        "category": "refusal",
    },
    {"id": "A.rule.na", "title": "n/a", "kind": "rule", "stage": "A", "level": "values", "category": "value"},
    {
        "id": "B.rule.part",
        "title": "half of it",
        "kind": "rule",
        "stage": "B",
        "level": "contract",
        "category": "order",
    },
]

LOOSE = record(PROPERTY.format("loose"), [], "error", message="boom", examples=None, duration=0.0)
EVENTFUL_RECORDS: list[Record] = [
    record(PROPERTY.format("ok"), ["A.grad.ok"], examples=100, duration=0.25),
    record(GOLDEN.format("ok"), ["A.grad.ok"], examples=1, duration=0.5),
    record(
        PROPERTY.format("bad"),
        ["A.fail.bad"],
        "failed",
        message="assert 1 == 2",
        falsifying="x=0",
        duration=1.0,
    ),
    record(GOLDEN.format("bad"), ["A.fail.bad"], "failed", message=None, examples=1, duration=0.0),
    record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None, duration=0.0),
    record(
        GOLDEN.format("na"),
        ["A.rule.na", "Z.unknown"],
        "not applicable",
        reason=NA,
        examples=None,
        duration=0.0,
    ),
    record(PROPERTY.format("part"), ["B.rule.part"], examples=5, duration=2.5),
    record(
        GOLDEN.format("part"),
        ["B.rule.part"],
        "not applicable",
        reason="not applicable: engine does not provide y",
        examples=None,
        duration=0.0,
    ),
    LOOSE,
]


def eventful_report(**overrides: Any) -> Report:
    """The eventful run (see the module's docstring) judged at level contract, 3.5 s long."""
    fields: dict[str, Any] = {
        "engine": {
            "impl": "fake",
            "name": "fake",
            "target": "tests.fake:Fake",
            "version": None,
            "capabilities": ["x"],
            "conventions": {},
        },
        "suite": "/suite",
        "profile": "ci",
        "workers": 0,
        "selection": {"rows": [], "keyword": None},
        "rows": aggregate(EVENTFUL_ROWS, EVENTFUL_RECORDS, RERUN),
        "other_tests": [reported_test(LOOSE, RERUN)],
        "unknown_ids": unknown_ids([row["id"] for row in EVENTFUL_ROWS], EVENTFUL_RECORDS),
        "collection_errors": [{"nodeid": "tests/properties/test_new.py", "message": "E   ImportError: nope"}],
        "pytest_exit_code": 1,
        "duration": 3.5,
    }
    fields.update(overrides)
    return Report(**fields)


# the eventful run's first screen after its level table, as the table and the markdown print it
FIRST_SCREEN = [
    "failed at the claimed level: 1 row, 2 causes",
    "  1. assert 1 == 2 (in tests/properties/test_x.py::test_bad)",
    "     rows: A.fail.bad",
    "     call: x=0",
    "     repro: " + REPRO.format(PROPERTY.format("bad")),
    "  2. (no message)",
    "     rows: A.fail.bad",
    "     repro: " + REPRO.format(GOLDEN.format("bad")),
]

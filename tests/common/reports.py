"""A small made-up verify run: four rows, their tests' records, and a Report of them."""

from __future__ import annotations

from typing import Any

from contracts.verify.records import Record
from contracts.verify.report import Report, Rerun, aggregate, reported_test, unknown_ids
from tests.common.paths import ROOT

PROPERTY = "tests/properties/test_x.py::test_{}"
GOLDEN = "tests/golden/test_x.py::test_{}"
NA = "not applicable: engine does not provide x"

ROWS = [
    {
        "id": "A.grad.ok",
        "title": "passes",
        "kind": "gradient",
        "stage": "A",
        "level": "values",
        "category": "gradient",
    },
    {
        "id": "A.fail.bad",
        "title": "fails",
        "kind": "failure",
        "stage": "A",
        "level": "refusals",
        "category": "refusal",
    },
    {
        "id": "A.rule.na",
        "title": "not applicable",
        "kind": "rule",
        "stage": "A",
        "level": "values",
        "category": "value",
    },
    {
        "id": "B.rule.free",
        "title": "no test",
        "kind": "rule",
        "stage": "B",
        "level": "contract",
        "category": "order",
    },
]


def record(nodeid: str, ids: list[str], outcome: str = "passed", **extra: Any) -> Record:
    return Record(
        nodeid, ids, outcome, duration=extra.pop("duration", 0.5), examples=extra.pop("examples", 10), **extra
    )


RECORDS = [
    record(PROPERTY.format("ok"), ["A.grad.ok"]),
    record(GOLDEN.format("ok"), ["A.grad.ok"], examples=1),
    record(PROPERTY.format("bad"), ["A.fail.bad"], "failed", message="assert 1 == 2", falsifying="x=0"),
    record(GOLDEN.format("bad"), ["A.fail.bad"], examples=1),
    record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None),
    record(GOLDEN.format("na"), ["A.rule.na", "Z.unknown"], "not applicable", reason=NA, examples=None),
    record(PROPERTY.format("loose"), []),
]


def make_report(
    records: list[Record],
    spec_rows: list[dict[str, str]] | None = None,
    reference: bool = True,
    **overrides: Any,
) -> Report:
    """A Report of records over spec_rows (ROWS by default); reference: the engine is the reference (its
    reference-only tests are its own checks)."""
    chosen = ROWS if spec_rows is None else spec_rows
    fields: dict[str, Any] = {
        "engine": {
            "impl": "fake",
            "name": "fake",
            "target": "tests.fake:Fake",
            "version": None,
            "capabilities": ["x"],
            "conventions": {"A.rule.na": "differs by design"},
        },
        "suite": str(ROOT),
        "profile": "ci",
        "workers": 0,
        "selection": {"rows": [], "keyword": None},
        "rows": aggregate(chosen, records, Rerun("fake", "ci"), engine_is_reference=reference),
        "other_tests": [reported_test(r, Rerun("fake", "ci")) for r in records if not r.spec_ids],
        "unknown_ids": unknown_ids([r["id"] for r in chosen], records),
        "collection_errors": [],
        # what pytest's exit code would be: 1 when some test failed or errored
        "pytest_exit_code": int(any(r.outcome in ("failed", "error") for r in records)),
        "duration": 2.0,
    }
    fields.update(overrides)
    return Report(**fields)

"""What the report says of rows a test proves clause by clause (contracts.verify.clauses), of the
reference's own tests and of an outcome it does not know: each row's status, suite statuses, reasons
and causes, and the level's checks by category, as the JSON report gives them."""

from __future__ import annotations

import json
from typing import Any

from contracts.verify.formats import format_json
from contracts.verify.records import Record
from tests.common.reports import GOLDEN, NA, PROPERTY, make_report, record


def rule(name: str) -> dict[str, str]:
    return {
        "id": f"A.rule.{name}",
        "title": name,
        "kind": "rule",
        "stage": "A",
        "level": "contract",
        "category": "value",
    }


def document(records: list[Record], names: str, reference: bool = True) -> dict[str, Any]:
    """The JSON report of records over one rule row per letter of names."""
    report = make_report(records, spec_rows=[rule(name) for name in names], reference=reference)
    loaded: dict[str, Any] = json.loads(format_json(report))
    return loaded


def by_row(found: dict[str, Any], *fields: str) -> dict[str, tuple[Any, ...]]:
    return {row["id"]: tuple(row[name] for name in fields) for row in found["rows"]}


def test_a_passed_test_proves_only_the_rows_whose_clause_it_recorded() -> None:
    """A passing test naming x and y that recorded only x's clause: x's property check passed (x is
    partly verified beside an n/a golden test); y's did not run, and y's reasons say the test checked
    no clause of it, after the skip reason; x's reasons hold only the skip reason."""
    records = [
        record(PROPERTY.format("t"), ["A.rule.x", "A.rule.y"], clauses=[["A.rule.x", None]]),
        record(GOLDEN.format("u"), ["A.rule.x", "A.rule.y"], "not applicable", reason=NA, examples=None),
    ]
    assert {
        "A.rule.x": (
            "partly verified",
            {"properties": "passed", "golden": "not applicable"},
            ["engine does not provide x"],
        ),
        "A.rule.y": (
            "not applicable",
            {"properties": "not applicable", "golden": "not applicable"},
            [
                "engine does not provide x",
                "not run: tests/properties/test_x.py::test_t checked no clause of this row on this engine",
            ],
        ),
    } == by_row(document(records, "xy"), "status", "checks", "reasons")


FAILED_IN_CLAUSES = [
    record(
        PROPERTY.format("t"),
        ["A.rule.x", "A.rule.w", "A.rule.y", "A.rule.z"],
        "failed",
        message="ClauseError: A.rule.x: x is off",
        clauses=[["A.rule.y", None]],
        failed_clauses=[["A.rule.x", "precision", "x is off"], ["A.rule.w", None, ""]],
    ),
    record(GOLDEN.format("v"), ["A.rule.y", "A.rule.z"], "not applicable", reason=NA, examples=None),
]


def test_a_failure_in_clauses_is_charged_to_the_rows_whose_clause_failed() -> None:
    """A test naming x, w, y and z failing in x's clause (of category precision) and w's (no message):
    x and w failed, each with its own cause; y keeps its passed clause (partly verified beside an n/a
    test, with only the skip reason); z, with no clause, did not run: its reason names the rows the
    test stopped at, in order."""
    assert {
        "A.rule.x": ("failed", [], ["x is off"]),
        "A.rule.w": ("failed", [], ["(no message)"]),
        "A.rule.y": ("partly verified", ["engine does not provide x"], []),
        "A.rule.z": (
            "not applicable",
            [
                "engine does not provide x",
                "not run: tests/properties/test_x.py::test_t stopped at the failure of A.rule.x, A.rule.w",
            ],
            [],
        ),
    } == by_row(document(FAILED_IN_CLAUSES, "xwyz"), "status", "reasons", "causes")


def test_a_failure_in_clauses_shows_once_among_the_causes_for_both_failed_rows() -> None:
    """The report's causes list the failing test's first line once, for the two rows whose clauses
    failed (x and w) and for no other, with the command that reruns that test."""
    assert [
        {
            "signature": "ClauseError: A.rule.x: x is off",
            "test": None,
            "rows": ["A.rule.x", "A.rule.w"],
            "tests": [PROPERTY.format("t")],
            "raised_as": None,
            "call": None,
            "repro": f"pytest {PROPERTY.format('t')} --contracts-impl fake --hypothesis-profile=ci",
        }
    ] == document(FAILED_IN_CLAUSES, "xwyz")["causes"]


def test_a_failed_clause_counts_under_its_own_category_and_a_stopped_check_as_not_run() -> None:
    """In the level's checks by category: x's failed clause counts under precision (the clause's
    category), w's under value (its row's, the clause naming none); y's passed check, z's check the
    failure stopped (not run) and the two n/a golden checks under value."""
    zeros = {"passed": 0, "failed": 0, "not run": 0, "not applicable": 0, "skipped": 0, "not exercised": 0}
    assert {
        "value": {**zeros, "passed": 1, "failed": 1, "not run": 1, "not applicable": 2},
        "precision": {**zeros, "failed": 1},
    } == document(FAILED_IN_CLAUSES, "xwyz")["levels"]["contract"]["checks"]


def test_a_suite_holding_only_the_references_tests_is_not_applicable_and_an_empty_one_unbound() -> None:
    """On another engine, a row whose property tests are all reference-only reads n/a in that column;
    a row with no property test at all reads unbound there; both passed their golden test."""
    records = [
        record(
            PROPERTY.format("r"),
            ["A.rule.r"],
            "not applicable",
            reason="not applicable: reference-only: own types",
            reference_only="own types",
            examples=None,
        ),
        record(GOLDEN.format("r"), ["A.rule.r"], engine_calls=1),
        record(GOLDEN.format("s"), ["A.rule.s"], engine_calls=1),
    ]
    assert {
        "A.rule.r": ("passed", {"properties": "not applicable", "golden": "passed"}),
        "A.rule.s": ("passed", {"properties": "unbound", "golden": "passed"}),
    } == by_row(document(records, "rs", reference=False), "status", "checks")


def test_on_the_reference_its_own_tests_reasons_are_listed_with_the_others() -> None:
    """On the reference itself a reference-only test is one of its own checks: when it was not
    applicable, its reason is listed before the other test's."""
    records = [
        record(
            PROPERTY.format("q"),
            ["A.rule.q"],
            "not applicable",
            reason="not applicable: float64 only",
            reference_only="own types",
            examples=None,
        ),
        record(GOLDEN.format("q"), ["A.rule.q"], "not applicable", reason=NA, examples=None),
    ]
    assert {"A.rule.q": ("not applicable", ["float64 only", "engine does not provide x"])} == by_row(
        document(records, "q", reference=True), "status", "reasons"
    )


def test_an_outcome_the_report_does_not_know_counts_as_a_failed_check() -> None:
    """A record with an outcome outside the known ones (written by another version of the plugin)
    leaves its row skipped, never proven, and counts as a failed check of its category."""
    found = document([record(PROPERTY.format("o"), ["A.rule.o"], "xfailed")], "o")
    zeros = {"passed": 0, "failed": 0, "not run": 0, "not applicable": 0, "skipped": 0, "not exercised": 0}
    assert (["skipped"], {"value": {**zeros, "failed": 1}}) == (
        [row["status"] for row in found["rows"]],
        found["levels"]["contract"]["checks"],
    )

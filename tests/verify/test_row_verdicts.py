"""A row's verdict on the engine: failures charged to the row whose clause failed, the reference's own
tests kept out of another engine's verdict, coverage as numbers, and the verdict per claimed level."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.verify.clauses import ClauseError, clause, each_clause, failed_clauses, recording
from contracts.verify.records import Record
from contracts.verify.report import (
    NOT_RUN,
    PARTLY,
    Rerun,
    aggregate,
    checks_by_category,
    level_verdict,
    row_status,
)
from tests.common.reports import PROPERTY, ROWS, make_report, record

TWO = [
    {
        "id": "S.cost.model",
        "title": "t",
        "kind": "formula",
        "stage": "S",
        "level": "contract",
        "category": "cost",
    },
    {
        "id": "S.cost.relu",
        "title": "t",
        "kind": "formula",
        "stage": "S",
        "level": "contract",
        "category": "cost",
    },
]
SHARED = PROPERTY.format("shared")


def verdicts(
    records: list[Record], rows: list[dict[str, str]] = TWO, reference: bool = True
) -> dict[str, Any]:
    """row id -> (status, causes, coverage) for records over rows."""
    results = aggregate(rows, records, Rerun("e", "ci"), engine_is_reference=reference)
    return {r.id: (r.status, r.causes(), r.coverage()) for r in results}


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        pytest.param([], "unbound", id="no-tests"),
        pytest.param(["passed", "failed"], "failed", id="any-failed"),
        pytest.param(["passed", "error"], "failed", id="error-counts-as-failed"),
        pytest.param(["not applicable", "passed"], PARTLY, id="some-not-applicable"),
        pytest.param(["passed", NOT_RUN], PARTLY, id="some-not-run"),
        pytest.param(["passed", "passed"], "passed", id="all-passed"),
        pytest.param(["not applicable", NOT_RUN], "not applicable", id="nothing-ran"),
        pytest.param(["not applicable", "skipped"], "skipped", id="other-skip"),
        pytest.param(["passed", "not exercised"], "not exercised", id="not-exercised"),
    ],
)
def test_row_status_rules(outcomes: list[str], expected: str) -> None:
    """A row's status from its engine checks' outcomes."""
    assert expected == row_status(outcomes)


def test_a_failed_clause_is_charged_to_its_row_alone() -> None:
    """A test naming two rows that failed in one row's clause fails that row only; the other row,
    whose clause had passed before, passes."""
    failed = record(
        SHARED,
        ["S.cost.model", "S.cost.relu"],
        "failed",
        message="S.cost.model: assert 6 == 7",
        clauses=[["S.cost.relu", None]],
        failed_clauses=[["S.cost.model", None, "assert 6 == 7"]],
    )
    assert {
        "S.cost.model": ("failed", ["assert 6 == 7"], (1, 1)),
        "S.cost.relu": ("passed", [], (1, 1)),
    } == verdicts([failed])


def test_a_row_whose_clause_never_ran_is_partly_verified_at_best() -> None:
    """The test stopped at another row's failure before this row's clause: that check did not run."""
    failed = record(
        SHARED, ["S.cost.model", "S.cost.relu"], "failed", failed_clauses=[["S.cost.model", None, "boom"]]
    )
    passed = record(PROPERTY.format("other"), ["S.cost.relu"])
    results = aggregate(TWO, [failed, passed], Rerun("e", "ci"))
    relu = results[1]
    assert (PARTLY, (1, 2)) == (relu.status, relu.coverage())
    assert [f"not run: {SHARED} stopped at the failure of S.cost.model"] == relu.reasons


def test_a_failure_outside_any_clause_is_charged_to_every_row_the_test_names() -> None:
    """An engine's crash or a bare assert cannot be attributed: every named row fails, with its cause."""
    crashed = record(SHARED, ["S.cost.model", "S.cost.relu"], "failed", message="KeyError: 'mlp.fc1.weight'")
    assert {
        "S.cost.model": ("failed", ["KeyError: 'mlp.fc1.weight'"], (1, 1)),
        "S.cost.relu": ("failed", ["KeyError: 'mlp.fc1.weight'"], (1, 1)),
    } == verdicts([crashed])


def test_two_failed_clauses_of_one_row_give_it_two_causes() -> None:
    """A row failing for two reasons (a group of clause failures) lists both causes."""
    failed = record(
        SHARED,
        ["S.cost.model"],
        "failed",
        failed_clauses=[
            ["S.cost.model", None, "empty sequence accepted"],
            ["S.cost.model", None, "T > C wraps"],
        ],
    )
    assert ["empty sequence accepted", "T > C wraps"] == verdicts([failed])["S.cost.model"][1]


def test_a_test_checking_rows_clause_by_clause_proves_only_the_rows_it_checked() -> None:
    """A passing test that recorded clauses for one of its rows leaves the other row unproven by it."""
    passed = record(SHARED, ["S.cost.model", "S.cost.relu"], clauses=[["S.cost.model", None]])
    assert ("passed", "not applicable") == tuple(v[0] for v in verdicts([passed]).values())


def test_the_reference_s_own_tests_are_not_another_engine_s_checks() -> None:
    """On another engine a reference-only test neither passes nor holds back a row; it counts in the
    row's total checks. A row with nothing but reference-only tests is not applicable there."""
    own = "not applicable: reference-only: own types"
    records = [
        record(PROPERTY.format("engine"), ["S.cost.model"]),
        record(
            PROPERTY.format("own"),
            ["S.cost.model", "S.cost.relu"],
            "not applicable",
            reason=own,
            reference_only="own types",
        ),
    ]
    assert {
        "S.cost.model": ("passed", [], (1, 2)),
        "S.cost.relu": ("not applicable", [], (0, 1)),
    } == verdicts(records, reference=False)
    on_reference = [
        *records[:1],
        record(PROPERTY.format("own"), ["S.cost.model", "S.cost.relu"], reference_only="x"),
    ]
    assert ("passed", (2, 2)) == verdicts(on_reference)["S.cost.model"][::2]


def test_checks_are_counted_by_level_and_category() -> None:
    """Each check falls under its row's level and its clause's category (the row's own by default)."""
    records = [
        record(PROPERTY.format("a"), ["A.grad.ok"]),
        record(
            PROPERTY.format("b"),
            ["A.fail.bad"],
            clauses=[["A.fail.bad", None], ["A.fail.bad", "side-effects"]],
        ),
        record(PROPERTY.format("c"), ["A.rule.na"], "not applicable", reason="not applicable: x"),
    ]
    table = checks_by_category(aggregate(ROWS, records, Rerun("e", "ci")))
    assert (1, 1, 1, 1) == (
        table["values"]["gradient"]["passed"],
        table["refusals"]["refusal"]["passed"],
        table["refusals"]["side-effects"]["passed"],
        table["values"]["value"]["not applicable"],
    )


def test_the_exit_code_follows_the_claimed_level() -> None:
    """A failing refusals row fails a run judged at refusals or contract, not one judged at values,
    which still reports it; a level none of whose rows ran verified nothing."""
    records = [
        record(PROPERTY.format("ok"), ["A.grad.ok"]),
        record(PROPERTY.format("bad"), ["A.fail.bad"], "failed", message="boom"),
    ]
    codes = [
        make_report(records, ROWS[:2], level=level).exit_code()
        for level in ("values", "refusals", "contract")
    ]
    assert [0, 1, 1] == codes
    judged = make_report(records, ROWS[:2], level="values")
    assert ["A.fail.bad"] == [row.id for row in judged.rows if row.status == "failed"]
    assert ("passed", "failed", "nothing verified") == tuple(
        level_verdict(judged.rows, level) for level in ("values", "refusals", "contract")
    )


def test_a_claim_over_rows_that_never_ran_verifies_nothing() -> None:
    """An engine judged at values whose values rows are all n/a fails: nothing was verified there."""
    records = [
        record(PROPERTY.format("na"), ["A.grad.ok"], "not applicable", reason="not applicable: x"),
        record(PROPERTY.format("ok"), ["A.fail.bad"]),
    ]
    assert (1, 0) == (
        make_report(records, ROWS[:2], level="values").exit_code(),
        make_report(records, ROWS[:2], level="refusals").exit_code(),
    )


def test_a_clause_turns_a_failed_assertion_into_its_row_s_failure() -> None:
    """Inside clause(row) a failed assertion raises ClauseError naming the row; a passed clause is
    recorded for the running test, once per clause."""
    with recording() as passed:
        with clause("S.cost.relu"):
            assert 1 == 1
        with pytest.raises(ClauseError) as raised, clause("S.cost.model", "cost"):
            raise AssertionError("assert 6 == 7")
    assert [("S.cost.relu", None)] == passed
    assert [("S.cost.model", "cost", "assert 6 == 7")] == failed_clauses(raised.value)


def test_a_failed_inner_clause_keeps_its_own_row() -> None:
    """A clause failing inside another row's clause stays charged to its own row, not the outer one."""
    with pytest.raises(ClauseError) as raised, clause("S.cost.model", "cost"), clause("S.cost.relu"):
        raise AssertionError("assert 1 == 2")
    assert [("S.cost.relu", None, "assert 1 == 2")] == failed_clauses(raised.value)


def test_each_clause_runs_every_check_and_reports_every_failure() -> None:
    """each_clause keeps going after a failed clause and raises the failures together at the end."""
    ran: list[str] = []

    def three(check: Any) -> None:
        for row_id in ("S.a", "S.b", "S.c"):
            with check(row_id):
                ran.append(row_id)
                assert row_id == "S.b"

    with pytest.raises(ExceptionGroup) as raised, each_clause() as check:
        three(check)
    assert (["S.a", "S.b", "S.c"], ["S.a", "S.c"]) == (
        ran,
        [entry[0] for entry in failed_clauses(raised.value)],
    )
    with pytest.raises(ClauseError) as one, each_clause() as check, check("S.a", "cost"):
        raise AssertionError("only one")
    assert [("S.a", "cost", "only one")] == failed_clauses(one.value)
    assert [] == failed_clauses(ValueError("not a clause"))


def test_a_failed_clause_of_a_row_the_test_does_not_name_fails_every_row_it_names() -> None:
    """A clause naming a row outside the test's markers cannot hide the failure: it is charged to all."""
    failed = record(
        SHARED,
        ["S.cost.model", "S.cost.relu"],
        "failed",
        message="m",
        failed_clauses=[["X.other", None, "boom"]],
    )
    assert ("failed", "failed") == tuple(v[0] for v in verdicts([failed]).values())


def test_a_shared_check_s_clause_does_not_split_a_test() -> None:
    """A passing test naming a rule and a row whose only clause comes from a shared check (a refusal, a
    message: a clause with a category) proves both rows."""
    rows = [{**TWO[0], "id": row_id, "kind": "rule"} for row_id in ("S.rule.budget", "S.rule.messages")]
    passed = record(SHARED, ["S.rule.budget", "S.rule.messages"], clauses=[["S.rule.messages", "refusal"]])
    assert ("passed", "passed") == tuple(v[0] for v in verdicts([passed], rows).values())

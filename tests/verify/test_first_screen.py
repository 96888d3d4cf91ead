"""The report's first screen: the failed rows of the claim grouped by root cause (the engine's own
exception, never the wrapper or the exception group around it), each with the call that raised it and
a command that reruns it, in a bounded number of lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.verify.formats import FIRST_SCREEN_CAUSES, FIRST_SCREEN_ROWS, claimed_failures
from contracts.verify.report import Report, causes
from tests.common.reports import PROPERTY, make_report, record

AXIS = "AxisError: axis -2 is out of bounds for array of dimension 1"
GROUP = "ExceptionGroup: Hypothesis found 2 distinct failures. (2 sub-exceptions)"


def spec_row(row_id: str, level: str = "values") -> dict[str, str]:
    return {"id": row_id, "title": "t", "kind": "rule", "stage": "A", "level": level, "category": "value"}


def report_of(
    failures: Mapping[str, tuple[str, str | None]], level: str = "contract", **extra: Any
) -> Report:
    """One failing property test per row: row id -> (its message, its falsifying example)."""
    records = [
        record(PROPERTY.format(row_id.replace(".", "_")), [row_id], "failed", message=text, falsifying=call)
        for row_id, (text, call) in failures.items()
    ]
    rows = [spec_row(row_id, extra.get("levels", {}).get(row_id, "values")) for row_id in failures]
    return make_report(records, rows, level=level)


def test_an_exception_groups_members_are_causes_of_their_own() -> None:
    """A hypothesis group of an AxisError and a KeyError in one test, and the same AxisError with
    another axis alone in another: two causes, the AxisError's shared by both rows and shown as raised
    in the group; the KeyError's row only."""
    grouped = f"{GROUP}\nsub-exceptions: {AXIS}; KeyError: 'b; c'"
    alone = AXIS.replace("-2", "-3")
    found = causes(report_of({"A.one": (grouped, None), "A.two": (alone, None)}).rows)
    assert [(AXIS, ["A.one", "A.two"]), ("KeyError: 'b; c'", ["A.one"])] == [
        (cause.signature, cause.rows) for cause in found
    ]
    assert [GROUP, GROUP] == [cause.raised_as for cause in found]


def test_a_wrapped_engine_error_is_grouped_by_the_engine_error() -> None:
    """Two rows whose failures wrap one engine error in different wrappers (and another object
    address) are one cause: the engine's exception, shown with the wrapper it was first raised as."""
    first = f"BackwardError: backward failed for <Tensor at 0x7f2a10>\ncaused by: {AXIS}"
    second = f"RuntimeError: op failed\ncaused by: ValueError: inner\ncaused by: {AXIS}"
    (cause,) = causes(report_of({"A.one": (first, None), "A.two": (second, None)}).rows)
    expected = (AXIS, "BackwardError: backward failed for <Tensor at 0x7f2a10>", ["A.one", "A.two"])
    assert expected == (cause.signature, cause.raised_as, cause.rows)


def test_an_assertion_seen_with_other_addresses_is_one_cause_shown_without_them() -> None:
    """The same assertion of one test function about objects at other addresses is one cause; the first
    screen shows it with the address blanked, with the call and the repro of the test first seen."""
    records = [
        record(
            f"{PROPERTY.format('same')}[{index}]",
            [row_id],
            "failed",
            message=f"AssertionError: engine gave <T at 0x7f00{index}>, spec says 2.0",
            falsifying=f"x={index}\ny=1",
        )
        for index, row_id in enumerate(("A.one", "A.two"))
    ]
    report = make_report(records, [spec_row("A.one"), spec_row("A.two")])
    assert [
        "failed at the claimed level: 2 rows, 1 cause",
        f"  1. AssertionError: engine gave <T at 0x…>, spec says 2.0 (in {PROPERTY.format('same')})",
        "     rows: A.one, A.two",
        "     call: x=0",
        f"     repro: pytest '{PROPERTY.format('same')}[0]' --contracts-impl fake --hypothesis-profile=ci",
    ] == claimed_failures(report)


def test_the_first_screen_is_bounded_and_says_what_it_leaves_out() -> None:
    """Many causes over many rows: the first causes only, each naming its first rows and how many more,
    then how many causes the full list adds."""
    failures = {f"A.r{index:02}": (f"E{index // 10}Error: broken", None) for index in range(40)}
    lines = claimed_failures(report_of(failures))
    assert "failed at the claimed level: 40 rows, 4 causes" == lines[0]
    rows = [line for line in lines if line.startswith("     rows: ")]
    named = ", ".join(f"A.r{index:02}" for index in range(FIRST_SCREEN_ROWS))
    assert f"     rows: {named} and {10 - FIRST_SCREEN_ROWS} more" == rows[0]
    many = {f"A.r{index:02}": (f"E{index}Error: broken", None) for index in range(FIRST_SCREEN_CAUSES + 3)}
    lines = claimed_failures(report_of(many))
    assert FIRST_SCREEN_CAUSES == sum(line.startswith("  ") and line[2].isdigit() for line in lines)
    assert "  and 3 more causes: 'failing rows by cause' lists every one" == lines[-1]


def test_only_the_claimed_levels_failures_are_on_the_first_screen() -> None:
    """Judged at level values, a failed contract-level row is not among the claim's failures."""
    report = report_of(
        {"A.v": ("EError: v", None), "A.c": ("FError: c", None)}, level="values", levels={"A.c": "contract"}
    )
    assert ["failed at the claimed level: 1 row, 1 cause", "  1. EError: v", "     rows: A.v"] == [
        line for line in claimed_failures(report) if not line.startswith("     repro: ")
    ]

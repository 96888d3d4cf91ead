"""contracts verify's report: status rules, aggregation, summary, formats and schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from contracts.spec_suite.spec_rows import rows
from contracts.verify.formats import format_json, format_markdown, format_specs, format_table
from contracts.verify.records import Record
from contracts.verify.report import (
    NEVER_BUILT,
    NOTHING_VERIFIED,
    UNRECORDED_FAILURE,
    Report,
    Rerun,
    aggregate,
    repro_command,
    row_status,
    summarize,
    unknown_ids,
)
from tests.common.paths import REPORT_SCHEMA
from tests.common.reports import GOLDEN, NA, PROPERTY, RECORDS, ROWS, make_report, record

SCHEMA = REPORT_SCHEMA


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        pytest.param([], "unbound", id="no-tests"),
        pytest.param(["passed", "failed"], "failed", id="any-failed"),
        pytest.param(["passed", "error"], "failed", id="error-counts-as-failed"),
        pytest.param(["not applicable", "passed"], "partly verified", id="some-passed"),
        pytest.param(["passed", "passed"], "passed", id="all-passed"),
        pytest.param(["not applicable", "not applicable"], "not applicable", id="all-na"),
        pytest.param(["not applicable", "skipped"], "skipped", id="other-skip"),
    ],
)
def test_row_status_rules(outcomes: list[str], expected: str) -> None:
    """failed beats partly verified beats passed; all n/a is n/a; other skips are 'skipped'; no test is
    'unbound'."""
    assert expected == row_status(outcomes)


@pytest.mark.parametrize("outcome", ["passed", "failed", "not applicable"])
def test_a_test_naming_several_rows_counts_for_each(outcome: str) -> None:
    """One test bound to two rows (two spec markers) gives its outcome to both, not only to the first it
    names: a failure of a shared test fails every row it proves."""
    shared = record(PROPERTY.format("shared"), ["A.grad.ok", "A.fail.bad"], outcome, reason=NA)
    rows = {row.id: row for row in aggregate(ROWS[:2], [shared], Rerun("fake", "ci"))}
    assert [[shared.nodeid]] * 2 == [[t.record.nodeid for t in row.tests] for row in rows.values()]
    assert {row_id: row_status([outcome]) for row_id in ("A.grad.ok", "A.fail.bad")} == {
        row_id: row.status for row_id, row in rows.items()
    }


def test_row_without_tests_under_keyword_selection_is_deselected() -> None:
    """With -k, a row left without tests is 'deselected', not 'unbound'."""
    assert ("deselected", "unbound") == (row_status([], deselection=True), row_status([], deselection=False))


def test_aggregate_gives_each_row_its_status_checks_and_totals() -> None:
    """Statuses, per-suite checks, examples and time are computed per row from its tests."""
    results = {r.id: r for r in aggregate(ROWS, RECORDS, Rerun("fake", "ci"))}
    assert {"A.grad.ok": "passed", "A.fail.bad": "failed", "A.rule.na": "not applicable"} == {
        i: results[i].status for i in ("A.grad.ok", "A.fail.bad", "A.rule.na")
    }
    assert "unbound" == results["B.rule.free"].status
    assert {"properties": "failed", "golden": "passed"} == results["A.fail.bad"].suites
    assert (11, 1.0) == (results["A.grad.ok"].example_count(), results["A.grad.ok"].duration())
    assert ["engine does not provide x"] == results["A.rule.na"].reasons
    assert [] == results["A.fail.bad"].reasons


def test_only_failed_tests_get_a_repro_command() -> None:
    """A failed test carries the command that reruns it with the same engine and profile."""
    (bad,) = aggregate(ROWS[1:2], RECORDS, Rerun("pkg.mod:Broken", "ci"))
    repros = [t.repro for t in bad.tests]
    assert [
        "pytest tests/properties/test_x.py::test_bad --contracts-impl pkg.mod:Broken --hypothesis-profile=ci",
        None,
    ] == repros


def test_repro_command_quotes_the_node_id() -> None:
    """Parametrized node ids hold brackets, so the command quotes them for the shell."""
    assert (
        "pytest 'tests/p.py::t[S05.cost.matmul]' --contracts-impl torch --hypothesis-profile=ci"
        == repro_command("tests/p.py::t[S05.cost.matmul]", "torch", "ci")
    )


def test_unknown_ids_are_collected_with_their_tests() -> None:
    """An id a test names but no spec has is reported with the tests naming it."""
    assert {"Z.unknown": [GOLDEN.format("na")]} == unknown_ids([r["id"] for r in ROWS], RECORDS)


def test_summary_counts_by_status_and_stage() -> None:
    """The summary counts every row once, by status and by stage then status."""
    summary = summarize(aggregate(ROWS, RECORDS, Rerun("fake", "ci")))
    assert 4 == summary["rows"]
    assert (1, 1, 1, 1) == tuple(
        summary["by_status"][s] for s in ("passed", "failed", "not applicable", "unbound")
    )
    assert 1 == summary["by_stage"]["B"]["unbound"]
    assert 3 == sum(summary["by_stage"]["A"].values())


@pytest.mark.parametrize(
    ("records", "overrides", "expected"),
    [
        pytest.param([r for r in RECORDS if "bad" not in r.nodeid], {}, 1, id="unbound-row"),
        pytest.param(RECORDS, {}, 1, id="failed-row"),
        pytest.param(
            [*RECORDS[:2], *RECORDS[4:6], record(GOLDEN.format("free"), ["B.rule.free"])],
            {"rows": None},
            0,
            id="passed-and-na",
        ),
        pytest.param(
            [
                record(PROPERTY.format("ok"), ["A.grad.ok"], declined=["module_linear"]),
                record(GOLDEN.format("ok"), ["A.grad.ok"], examples=1, built=["module_linear"]),
                *RECORDS[4:6],
                record(GOLDEN.format("free"), ["B.rule.free"]),
            ],
            {"rows": None},
            0,
            id="declined-once-built-elsewhere",
        ),
        pytest.param(
            [
                *RECORDS[:2],
                *RECORDS[4:6],
                record(GOLDEN.format("free"), ["B.rule.free"], declined=["module_linear"]),
            ],
            {"rows": None},
            1,
            id="declined-every-time",
        ),
        pytest.param(
            [*RECORDS[:2], *RECORDS[4:6], record(GOLDEN.format("free"), ["B.rule.free"])],
            {"rows": None, "collection_errors": [{"nodeid": "tests/x.py", "message": "boom"}]},
            1,
            id="collection-error",
        ),
        pytest.param(
            [*RECORDS[:2], *RECORDS[4:6], record(GOLDEN.format("free"), ["B.rule.free"], "skipped")],
            {"rows": None},
            1,
            id="skipped-not-proven",
        ),
    ],
)
def test_exit_code(records: list[Record], overrides: dict[str, Any], expected: int) -> None:
    """0 only when every applicable row passed and nothing else went wrong."""
    clean = [r for r in records if r.spec_ids != ["A.rule.na", "Z.unknown"]]
    overrides = dict(overrides)  # the parameter is shared by every run of the test in this process
    if overrides.pop("rows", "keep") is None:  # rows without A.fail.bad
        overrides["rows"] = aggregate(
            [r for r in ROWS if r["id"] != "A.fail.bad"], clean, Rerun("fake", "ci")
        )
    assert expected == make_report(clean, **overrides).exit_code()


def test_unknown_id_and_failing_loose_test_are_problems() -> None:
    """A test naming an unknown id, or a failing test naming no row, makes the run fail."""
    loose = record(PROPERTY.format("loose"), [], "failed", message="boom")
    problems = make_report([*RECORDS, loose]).problems()
    assert "Z.unknown: named by a test but in no spec" in problems
    assert f"{loose.nodeid}: failed" in problems


@pytest.mark.parametrize(
    ("records", "overrides", "flagged"),
    [
        pytest.param(RECORDS[:2], {"pytest_exit_code": 1}, True, id="exit-1-nothing-failed"),
        pytest.param(RECORDS[:2], {"pytest_exit_code": 0}, False, id="exit-0-nothing-failed"),
        # records that prove nothing do not account for a failure either
        pytest.param([*RECORDS[:2], RECORDS[4]], {"pytest_exit_code": 1}, True, id="exit-1-beside-n/a"),
        pytest.param(
            [*RECORDS[:2], record(PROPERTY.format("skip"), ["A.grad.ok"], "skipped", reason="needs X")],
            {"pytest_exit_code": 1},
            True,
            id="exit-1-beside-a-skip",
        ),
        pytest.param(
            [*RECORDS[:2], RECORDS[6]], {"pytest_exit_code": 1}, True, id="exit-1-beside-a-loose-pass"
        ),
        pytest.param(RECORDS[:4], {"pytest_exit_code": 1}, False, id="exit-1-a-test-failed"),
        pytest.param(
            [*RECORDS[:2], record(PROPERTY.format("loose"), [], "error", message="teardown")],
            {"pytest_exit_code": 1},
            False,
            id="exit-1-a-loose-test-errored",
        ),
        pytest.param(
            RECORDS[:2],
            {"pytest_exit_code": 1, "collection_errors": [{"nodeid": "tests/x.py", "message": "boom"}]},
            False,
            id="exit-1-a-collection-error",
        ),
        pytest.param(
            RECORDS[:2],
            {"pytest_exit_code": 1, "unknown_ids": {"Z.x": ["t"]}},
            False,
            id="exit-1-unknown-row",
        ),
    ],
)
def test_a_failure_pytest_saw_and_no_record_shows_is_a_problem(
    records: list[Record], overrides: dict[str, Any], flagged: bool
) -> None:
    """pytest's exit code 1 (a test failed) with no record failed (records that do not match the run:
    an adapter patching the recorder), even beside n/a, skipped or loose records, is a problem line and
    exit 1; only a failed or errored record, a collection error or a test of an unknown row accounts
    for the 1."""
    report = make_report(records, **overrides)
    assert flagged == (UNRECORDED_FAILURE in report.problems())
    if flagged:
        assert 1 == report.exit_code()


def test_a_module_method_declined_in_every_test_is_a_problem() -> None:
    """module_mlp declined in one test and built in none (a loose test's record counts too): one problem
    line; module_linear declined once but built elsewhere (a partial port, as micrograd's bias-free
    Linears): none."""
    declined = [
        record(PROPERTY.format("ok"), ["A.grad.ok"], declined=["module_linear"], built=["module_block"]),
        record(GOLDEN.format("ok"), ["A.grad.ok"], examples=1, built=["module_linear"]),
        record(PROPERTY.format("loose"), [], declined=["module_mlp", "module_linear"]),
    ]
    problems = make_report([*declined, *RECORDS[2:6]]).problems()
    assert [f"module_mlp: {NEVER_BUILT}"] == [line for line in problems if line.startswith("module_")]


def test_json_report_validates_against_its_schema(tmp_path: Path) -> None:
    """The JSON format (failures, n/a, unbound, unknown ids) matches its schema."""
    document = json.loads(format_json(make_report(RECORDS)))
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert [] == [error.message for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)]
    assert ["A.grad.ok", "A.fail.bad", "A.rule.na", "B.rule.free"] == [r["id"] for r in document["rows"]]


def test_schema_rejects_a_failed_row_without_a_failed_test() -> None:
    """The schema is not vacuous: a 'failed' row must hold a failed test, a failed test a repro."""
    document = json.loads(format_json(make_report(RECORDS)))
    bad = document["rows"][1]
    bad["tests"] = [t for t in bad["tests"] if t["outcome"] == "passed"]
    assert not jsonschema.Draft202012Validator(SCHEMA).is_valid(document)


def test_table_has_one_line_per_row_and_the_failure_details() -> None:
    """The table lists every row with its kind and status, then each failure with its repro."""
    text = format_table(make_report(RECORDS))
    lines = text.splitlines()
    (ok_line,) = [line for line in lines if line.startswith("A.grad.ok ")]
    assert [
        "A.grad.ok",
        "values",
        "gradient",
        "passed",
        "2/2",
        "passed",
        "passed",
        "11",
        "1.00s",
        "passes",
    ] == (ok_line.split())
    assert any(line.split()[:4] == ["B.rule.free", "contract", "rule", "unbound"] for line in lines)
    assert any(line.split()[:4] == ["A.rule.na", "values", "rule", "n/a"] for line in lines)
    assert (
        "      repro: pytest tests/properties/test_x.py::test_bad --contracts-impl fake "
        "--hypothesis-profile=ci" in lines
    )
    assert "      > x=0" in lines
    assert "  A.rule.na: differs by design" in lines
    assert lines[-1].startswith(
        "FAILED at level contract: 4 rows: 1 passed, 1 failed, 1 not applicable, 1 unbound"
    )


def test_a_report_on_an_engine_of_another_dtype_says_how_it_was_judged() -> None:
    """The header of a float32 engine's report says its tolerances scale with its epsilon and the
    float64-only rows are not applicable; a float64 engine's says nothing about its dtype."""
    float32 = make_report(RECORDS)
    float32.engine["dtype"] = "float32"
    line = "dtype float32: tolerances scale with its epsilon, float64-only rows are n/a (T.rule.tolerance)"
    assert (True, False) == (
        line in format_table(float32).splitlines(),
        any(text.startswith("dtype ") for text in format_table(make_report(RECORDS)).splitlines()),
    )


def test_markdown_has_a_row_table_and_fenced_repro() -> None:
    """The markdown format holds a pipe table of the rows and each repro in a shell block."""
    lines = format_markdown(make_report(RECORDS)).splitlines()
    assert (
        "| `A.fail.bad` | refusals | failure | failed | 2/2 | failed | passed | 11 | 1.00s | fails |" in lines
    )
    at = lines.index("```sh")
    assert (
        "pytest tests/properties/test_x.py::test_bad --contracts-impl fake --hypothesis-profile=ci"
        == lines[at + 1]
    )
    assert "- engine does not provide x: `A.rule.na`" in lines


def test_specs_listing_shows_formula_blocked_at_and_exception() -> None:
    """`contracts specs` shows a formula row's expression and a failure row's place and exception."""
    listed = json.loads(format_specs(rows(stage="05"), "json"))
    by_id = {item["id"]: item for item in listed}
    assert "M*N*(2*K - 1)" == by_id["S05.cost.matmul"]["formula"]
    assert "ShapeError" == by_id["S05.fail.ragged-row"]["exception"]
    assert by_id["S05.fail.ragged-row"]["blocked_at"]


def test_report_of_a_troubled_run_names_every_problem() -> None:
    """Failing loose tests, unknown ids, collection errors and a pytest crash all appear, in both
    text formats, and each makes the exit code 1."""
    loose = record(PROPERTY.format("loose"), [], "error", message=None, examples=None)
    plain = record(GOLDEN.format("bad2"), ["A.fail.bad"], "failed", message="assert 3 == 4", examples=1)
    report = make_report(
        [*RECORDS, loose, plain],
        workers=-1,
        selection={"rows": ["A"], "keyword": "not slow"},
        collection_errors=[{"nodeid": "tests/properties/test_new.py", "message": "E   ImportError: nope"}],
        pytest_exit_code=3,
        engine={
            "impl": "x",
            "name": "x",
            "target": "m:X",
            "version": "1.0",
            "capabilities": [],
            "conventions": {},
        },
    )
    assert [
        "A.fail.bad: failed",
        "B.rule.free: unbound",
        f"{loose.nodeid}: error",
        "Z.unknown: named by a test but in no spec",
        "collection error: tests/properties/test_new.py",
        "pytest exited with code 3",
    ] == report.problems()
    table = format_table(report).splitlines()
    assert table[0].startswith(
        "contracts verify: engine x 1.0 (m:X), hypothesis profile ci, xdist workers: auto"
    )
    assert "selection: rows ['A'], keyword not slow" == table[2]
    for line in (
        "tests naming no spec row that failed:",
        f"  error: {loose.nodeid}",
        f"    repro: pytest {loose.nodeid} --contracts-impl fake --hypothesis-profile=ci",
        "spec ids that tests name but no spec has:",
        f"  Z.unknown: named by {GOLDEN.format('na')}",
        "collection error in tests/properties/test_new.py:",
        "  | E   ImportError: nope",
        "pytest exited with code 3 (keep its output with --pytest-log FILE)",
    ):
        assert line in table
    markdown = format_markdown(report)
    assert "```text\nassert 3 == 4\n```" in markdown  # a failure without a falsifying example
    assert "## Other problems" in markdown
    assert "collection error in tests/properties/test_new.py:" in markdown


def test_clean_report_has_no_problem_sections() -> None:
    """A clean run prints no failure, reason or problem sections, and says OK."""
    clean = [r for r in RECORDS if r.outcome == "passed" and r.spec_ids == ["A.grad.ok"]]
    report = make_report(
        clean, rows=aggregate(ROWS[:1], clean, Rerun("fake", "ci")), other_tests=[], unknown_ids={}
    )
    table = format_table(report)
    markdown = format_markdown(report)
    for heading in ("failures:", "not applicable or skipped", "## Failures", "## Not applicable", "## Other"):
        assert heading not in table + markdown
    assert table.splitlines()[-1].startswith("OK at level contract: 1 rows: 1 passed in 2.0s")


def test_specs_listing_of_every_kind() -> None:
    """Each kind shows its own summary: expression, op with its VJPs, title, enforcing rows, statement."""
    chosen = [
        r
        for r in rows()
        if r.id in ("S05.cost.dot", "S03.grad.neg", "S05.contract.relations", "S03.rule.deep-graph")
    ]
    text = format_specs(chosen, "table", width=200)
    assert "neg: -a; da: -g" in text
    assert "enforced by S05." in text
    assert "backward uses an iterative topological order" in text
    assert text.endswith("4 rows\n")


def troubled_report() -> Report:
    """A run with every kind of trouble: failures (one with a falsifying example), n/a, unbound, a
    failing test naming no row, an unknown id, a collection error and a pytest crash."""
    loose = record(PROPERTY.format("loose"), [], "error", message=None, examples=None)
    plain = record(
        GOLDEN.format("bad2"), ["A.fail.bad"], "failed", message="assert 3 == 4\n  where 3 = f()", examples=1
    )
    return make_report(
        [*RECORDS, loose, plain],
        workers=-1,
        selection={"rows": ["A"], "keyword": "not slow"},
        collection_errors=[{"nodeid": "tests/properties/test_new.py", "message": "E   ImportError: nope"}],
        pytest_exit_code=3,
        engine={
            "impl": "x",
            "name": "x",
            "target": "m:X",
            "version": "1.0",
            "capabilities": [],
            "conventions": {"A.rule.na": "differs | here"},
            "dtype": "float32",
        },
        duration=1.23456,
    )


def test_row_details() -> None:
    """Examples count 0 for tests without a count; a failed row lists no skip reasons even with n/a
    tests; a skipped row lists each distinct reason once and ignores tests without one; statuses
    are counted per stage."""
    rows = [
        {"id": "A.x", "title": "t", "kind": "rule", "stage": "A", "level": "contract", "category": "value"},
        {"id": "A.y", "title": "t", "kind": "rule", "stage": "A", "level": "contract", "category": "value"},
    ]
    records = [
        record(PROPERTY.format("x1"), ["A.x"], "failed", examples=None),
        record(GOLDEN.format("x2"), ["A.x"], "not applicable", reason=NA, examples=None),
        record(PROPERTY.format("y1"), ["A.y"], "skipped", reason="needs a GPU", examples=None),
        record(PROPERTY.format("y2"), ["A.y"], "skipped", reason="needs a GPU"),
        record(GOLDEN.format("y3"), ["A.y"], "not applicable", examples=None),
        record(GOLDEN.format("y4"), ["A.y"], "not applicable", reason=NA, examples=3),
    ]
    x, y = aggregate(rows, records, Rerun("fake", "ci"))
    assert ([], 0, "skipped", ["needs a GPU", "engine does not provide x"], 13) == (
        x.reasons,
        x.example_count(),
        y.status,
        y.reasons,
        y.example_count(),
    )
    assert [PROPERTY.format("x1")] == [test.record.nodeid for test in x.failures()]
    error = aggregate(rows[:1], [record(PROPERTY.format("e"), ["A.x"], "error")], Rerun("fake", "ci"))[0]
    assert ["error"] == [test.record.outcome for test in error.failures()]
    summary = summarize([x, x, y])
    assert (3, 2, 1, {"A": 3}) == (
        summary["rows"],
        summary["by_status"]["failed"],
        summary["by_stage"]["A"]["skipped"],
        {stage: sum(counts.values()) for stage, counts in summary["by_stage"].items()},
    )


@pytest.mark.parametrize("code", [0, 5])
def test_pytest_exit_codes_that_are_no_problem(code: int) -> None:
    """pytest's 0 (all passed), 1 (some failed, reported per row) and 5 (none collected) are no
    problem of their own; any other code is."""
    clean = [RECORDS[0]]
    report = make_report(
        clean,
        rows=aggregate(ROWS[:1], clean, Rerun("fake", "ci")),
        other_tests=[],
        unknown_ids={},
        pytest_exit_code=code,
    )
    assert ([], 0) == (report.problems(), report.exit_code())
    assert "pytest exited" not in format_table(report)
    assert ["pytest exited with code 2"] == make_report(
        clean,
        rows=aggregate(ROWS[:1], clean, Rerun("fake", "ci")),
        other_tests=[],
        unknown_ids={},
        pytest_exit_code=2,
    ).problems()


SPEC_ROWS: list[dict[str, Any]] = [
    {"id": "A.cost.f", "kind": "formula", "title": "t1", "expr": "M*N"},
    {
        "id": "A.grad.g",
        "kind": "gradient",
        "title": "t2",
        "op": "mul",
        "forward": "a * b",
        "grads": {"a": "g * b", "b": "g * a"},
    },
    {
        "id": "A.fail.x",
        "kind": "failure",
        "title": "refused | loudly",
        "blocked_at": "V" * 60,
        "exception": "E",
    },
    {
        "id": "A.contract.c",
        "kind": "contract",
        "title": "t4",
        "blocked_at": "plan",
        "enforced_by": ["A.x", "A.y"],
    },
    {"id": "A.rule.s", "kind": "rule", "title": "t5", "statement": "x" * 80},
    {"id": "A.rule.t", "kind": "rule", "title": "only a title"},
]


def test_specs_listing_in_full() -> None:
    """`contracts specs` in its three formats: what each kind shows, clipping (formula at 70 or the
    given width, blocked-at at 50), pipes escaped in markdown, and the row count."""
    blocked = "V" * 49 + "…"
    assert [
        f"ID            KIND      FORMULA / STATEMENT{' ' * 53}BLOCKED AT{' ' * 42}EXCEPTION",
        "A.cost.f      formula   M*N",
        "A.grad.g      gradient  mul: a * b; da: g * b, db: g * a",
        f"A.fail.x      failure   refused | loudly{' ' * 56}{blocked}  E",
        f"A.contract.c  contract  enforced by A.x, A.y{' ' * 52}plan",
        f"A.rule.s      rule      {'x' * 69}…",
        "A.rule.t      rule      only a title",
        "6 rows",
    ] == format_specs(SPEC_ROWS, "table").splitlines()
    assert "A.grad.g      gradient  mul: a * b; da: g *…" in format_specs(SPEC_ROWS, "table", width=20)
    assert [
        "| ID | KIND | FORMULA / STATEMENT | BLOCKED AT | EXCEPTION |",
        "| --- | --- | --- | --- | --- |",
        "| A.cost.f | formula | M*N |  |  |",
        "| A.grad.g | gradient | mul: a * b; da: g * b, db: g * a |  |  |",
        f"| A.fail.x | failure | refused \\| loudly | {'V' * 60} | E |",
        "| A.contract.c | contract | enforced by A.x, A.y | plan |  |",
        f"| A.rule.s | rule | {'x' * 80} |  |  |",
        "| A.rule.t | rule | only a title |  |  |",
    ] == format_specs(SPEC_ROWS, "markdown").splitlines()
    listing = format_specs(SPEC_ROWS, "json")
    assert listing.startswith(
        '[\n  {\n    "id": "A.cost.f",\n    "kind": "formula",\n    "formula": "M*N",\n'
    )
    assert listing.endswith("\n]\n")
    assert [
        ["A.fail.x", "failure", "refused | loudly", "V" * 60, "E"],
        ["A.rule.t", "rule", "only a title", "", ""],
    ] == [list(item.values()) for item in json.loads(listing) if item["id"] in ("A.fail.x", "A.rule.t")]


def test_markdown_cells_and_long_collection_errors() -> None:
    """A markdown cell escapes pipes and folds newlines; a collection error shows its last 15 lines."""
    from contracts.verify.formats import clip, md_cell

    assert "a\\|b c" == md_cell("a|b\nc")
    assert ("abc", "ab…") == (clip("abc", 3), clip("abcd", 3))
    message = "\n".join(f"E   line {i}" for i in range(20))
    report = make_report(RECORDS, collection_errors=[{"nodeid": "t.py", "message": message}])
    report.unknown_ids = {"Z.unknown": ["t.py::a", "t.py::b"]}
    table = format_table(report)
    assert "  Z.unknown: named by t.py::a, t.py::b" in table.splitlines()
    shown = [line for line in table.splitlines() if line.startswith("  | E   line ")]
    assert [f"  | E   line {i}" for i in range(5, 20)] == shown


def test_shared_reason_and_failure_without_message() -> None:
    """Rows sharing a skip reason are listed together; a failure without a message still gets its
    (empty) text block and its repro in markdown."""
    rows = [
        {
            "id": f"A.rule.{n}",
            "title": n,
            "kind": "rule",
            "stage": "A",
            "level": "contract",
            "category": "value",
        }
        for n in ("p", "q", "r")
    ]
    records = [
        record(PROPERTY.format("p"), ["A.rule.p"], "not applicable", reason=NA),
        record(PROPERTY.format("q"), ["A.rule.q"], "not applicable", reason=NA),
        record(PROPERTY.format("r"), ["A.rule.r"], "failed", message=None),
    ]
    report = make_report(
        records, rows=aggregate(rows, records, Rerun("fake", "ci")), other_tests=[], unknown_ids={}
    )
    table = format_table(report).splitlines()
    at = table.index("  engine does not provide x")
    assert "    A.rule.p, A.rule.q" == table[at + 1]
    markdown = format_markdown(report).splitlines()
    assert "- engine does not provide x: `A.rule.p`, `A.rule.q`" in markdown
    at = markdown.index("## Failures")
    at = markdown.index("```text", at)
    assert [
        "```text",
        "",
        "```",
        "",
        "```sh",
        f"pytest {PROPERTY.format('r')} --contracts-impl fake --hypothesis-profile=ci",
    ] == (markdown[at : at + 6])


# One row of each status beside a passed row: the exit code each status gives the run.
STATUS_RECORDS: dict[str, list[Record]] = {
    "passed": [record(PROPERTY.format("x"), ["A.rule.x"])],
    "partly verified": [
        record(PROPERTY.format("x"), ["A.rule.x"]),
        record(GOLDEN.format("x"), ["A.rule.x"], "not applicable", reason=NA, examples=None),
    ],
    "not applicable": [
        record(PROPERTY.format("x"), ["A.rule.x"], "not applicable", reason=NA, examples=None)
    ],
    "failed": [record(PROPERTY.format("x"), ["A.rule.x"], "failed", message="m")],
    "not exercised": [record(PROPERTY.format("x"), ["A.rule.x"], "not exercised")],
    "skipped": [record(PROPERTY.format("x"), ["A.rule.x"], "skipped", reason="no GPU", examples=None)],
    "unbound": [],
}
EXIT_OF_STATUS = {
    "passed": 0,
    "partly verified": 0,
    "not applicable": 0,
    "failed": 1,
    "not exercised": 1,
    "skipped": 1,
    "unbound": 1,
}


@pytest.mark.parametrize("status", sorted(STATUS_RECORDS))
def test_the_exit_code_each_row_status_gives(status: str) -> None:
    """Beside a passed row, a row passed, partly verified or n/a keeps exit 0; failed, not exercised
    (a test that never called the engine), skipped or unbound makes it 1, with the row's problem line."""
    rows = [
        {
            "id": "A.grad.ok",
            "title": "t",
            "kind": "gradient",
            "stage": "A",
            "level": "contract",
            "category": "value",
        },
        {**ROWS[2], "id": "A.rule.x"},
    ]
    records = [RECORDS[0], *STATUS_RECORDS[status]]
    report = make_report(records, rows=aggregate(rows, records, Rerun("fake", "ci")), unknown_ids={})
    assert (status, EXIT_OF_STATUS[status]) == (report.rows[1].status, report.exit_code())
    assert (f"A.rule.x: {status}" in report.problems()) == bool(EXIT_OF_STATUS[status])


def test_a_row_holds_only_the_tests_naming_its_own_id() -> None:
    """A.fail.axis and A.fail.axis-type (one id a prefix of the other, as S06.fail.axis and
    S06.fail.axis-type): each row reads only its own tests."""
    rows = [
        {
            "id": f"A.fail.{name}",
            "title": "t",
            "kind": "failure",
            "stage": "A",
            "level": "contract",
            "category": "value",
        }
        for name in ("axis", "axis-type")
    ]
    records = [
        record(PROPERTY.format("axis"), ["A.fail.axis"], "not applicable", reason=NA, examples=None),
        record(PROPERTY.format("axis_type"), ["A.fail.axis-type"], "failed", message="m"),
    ]
    statuses = [
        (result.id, result.status, len(result.tests)) for result in aggregate(rows, records, Rerun("f", "ci"))
    ]
    assert [("A.fail.axis", "not applicable", 1), ("A.fail.axis-type", "failed", 1)] == statuses


def test_a_module_method_declined_in_tests_that_were_not_applicable_is_still_never_built() -> None:
    """never_built reads every record, n/a ones too: a method declined only in tests that went on to be
    n/a (ModuleUnsupported, then a skip) is still a declared capability with nothing built."""
    declined = record(
        GOLDEN.format("ok"),
        ["A.rule.na"],
        "not applicable",
        reason=NA,
        examples=None,
        declined=["module_mlp"],
    )
    problems = make_report([*RECORDS[:2], declined]).problems()
    assert [f"module_mlp: {NEVER_BUILT}"] == [line for line in problems if line.startswith("module_")]


def test_the_stage_table_sums_to_the_status_table() -> None:
    """Summed over stages, the per-stage counts are the per-status counts (a partly verified row is
    counted as such in both)."""
    records = [*RECORDS, record(GOLDEN.format("free"), ["B.rule.free"]), *STATUS_RECORDS["partly verified"]]
    rows = [*ROWS, {**ROWS[2], "id": "A.rule.x"}]
    summary = summarize(aggregate(rows, records, Rerun("fake", "ci")))
    totals: dict[str, int] = {}
    for counts in summary["by_stage"].values():
        for status, count in counts.items():
            totals[status] = totals.get(status, 0) + count
    assert {status: count for status, count in totals.items() if count} == {
        status: count for status, count in summary["by_status"].items() if count
    }
    assert 1 == summary["by_status"]["partly verified"]


def test_an_unknown_id_lists_every_test_naming_it() -> None:
    """Two tests naming the same unknown id are both listed under it."""
    records = [record(PROPERTY.format("a"), ["Z.nope"]), record(GOLDEN.format("b"), ["Z.nope", "A.grad.ok"])]
    assert {"Z.nope": [PROPERTY.format("a"), GOLDEN.format("b")]} == unknown_ids(
        [r["id"] for r in ROWS], records
    )


def test_every_format_says_what_was_selected_and_when_nothing_was_verified() -> None:
    """A --rows (or --quick) selection alone, without -k, is in the table's selection line; a run that
    verified nothing says so in the table and in markdown alike."""
    selected = make_report(
        RECORDS, selection={"rows": ["A."], "keyword": None, "quick": "10^4 chain", "seed": None}
    )
    assert "selection: rows ['A.'], quick 10^4 chain" in format_table(selected).splitlines()
    nothing = [record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None)]
    unverified = make_report(nothing, rows=aggregate(ROWS[2:3], nothing, Rerun("fake", "ci")), unknown_ids={})
    for text in (format_table(unverified), format_markdown(unverified)):
        assert NOTHING_VERIFIED in text


def test_the_report_opens_with_the_verdict_per_level_and_category() -> None:
    """Before the row table: the claim, then per level its verdict and per category the engine's checks
    run, passed, failed, not run and n/a, then the failed rows of the claim grouped by cause."""
    report = make_report(RECORDS, level="refusals")
    lines = format_table(report).splitlines()
    start = lines.index(
        "judged at level refusals (the rows of values, refusals); levels: values, refusals, contract"
    )
    assert [
        ["LEVEL", "VERDICT", "CATEGORY", "CHECKS", "RUN", "PASSED", "FAILED", "NOT", "RUN", "N/A"],
        ["values", "PASSED", "value", "0", "0", "0", "0", "2"],
        ["gradient", "2", "2", "0", "0", "0"],
        ["refusals", "FAILED", "refusal", "2", "1", "1", "0", "0"],
        ["contract", "(FAILED,", "not", "claimed)", "-", "0", "0", "0", "0", "0"],
    ] == [line.split() for line in lines[start + 1 : start + 6]]
    assert [
        "",
        "failed at the claimed level: 1 row, 1 cause",
        "  1. assert 1 == 2 (in tests/properties/test_x.py::test_bad)",
        "     rows: A.fail.bad",
    ] == (lines[start + 6 : start + 10])
    markdown = format_markdown(report)
    assert "|  |  | gradient | 2 | 2 | 0 | 0 | 0 |" in markdown
    assert "  1. assert 1 == 2 (in tests/properties/test_x.py::test_bad)" in markdown

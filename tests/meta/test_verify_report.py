"""contracts verify's report: status rules, aggregation, summary, mutation score, formats and schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from contracts.verify.formats import format_json, format_markdown, format_specs, format_table
from contracts.verify.records import Record
from contracts.verify.report import (
    Report,
    aggregate,
    mutation_score,
    reported_test,
    repro_command,
    row_status,
    summarize,
    unknown_ids,
)
from tests.spec_rows import rows

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "specs" / "verify-report.schema.json").read_text(encoding="utf-8"))
PROPERTY = "tests/properties/test_x.py::test_{}"
GOLDEN = "tests/golden/test_x.py::test_{}"
NA = "not applicable: engine does not provide x"

ROWS = [
    {"id": "A.grad.ok", "title": "passes", "kind": "gradient", "stage": "A"},
    {"id": "A.fail.bad", "title": "fails", "kind": "failure", "stage": "A"},
    {"id": "A.rule.na", "title": "not applicable", "kind": "rule", "stage": "A"},
    {"id": "B.rule.free", "title": "no test", "kind": "rule", "stage": "B"},
]


def record(nodeid: str, ids: list[str], outcome: str = "passed", **extra: Any) -> Record:
    return Record(nodeid, ids, outcome, duration=0.5, examples=extra.pop("examples", 10), **extra)


RECORDS = [
    record(PROPERTY.format("ok"), ["A.grad.ok"]),
    record(GOLDEN.format("ok"), ["A.grad.ok"], examples=1),
    record(PROPERTY.format("bad"), ["A.fail.bad"], "failed", message="assert 1 == 2", falsifying="x=0"),
    record(GOLDEN.format("bad"), ["A.fail.bad"], examples=1),
    record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None),
    record(GOLDEN.format("na"), ["A.rule.na", "Z.unknown"], "not applicable", reason=NA, examples=None),
    record(PROPERTY.format("loose"), []),
]


def make_report(records: list[Record], **overrides: Any) -> Report:
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
        "rows": aggregate(ROWS, records, "fake", "ci"),
        "other_tests": [reported_test(r, "fake", "ci") for r in records if not r.spec_ids],
        "unknown_ids": unknown_ids([r["id"] for r in ROWS], records),
        "collection_errors": [],
        "pytest_exit_code": 1,
        "duration": 2.0,
        "mutation": None,
    }
    fields.update(overrides)
    return Report(**fields)


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        pytest.param([], "unbound", id="no-tests"),
        pytest.param(["passed", "failed"], "failed", id="any-failed"),
        pytest.param(["passed", "error"], "failed", id="error-counts-as-failed"),
        pytest.param(["not applicable", "passed"], "passed", id="some-passed"),
        pytest.param(["not applicable", "not applicable"], "not applicable", id="all-na"),
        pytest.param(["not applicable", "skipped"], "skipped", id="other-skip"),
    ],
)
def test_row_status_rules(outcomes: list[str], expected: str) -> None:
    """failed beats passed beats not applicable; other skips are 'skipped'; no test is 'unbound'."""
    assert expected == row_status(outcomes)


def test_row_without_tests_under_keyword_selection_is_deselected() -> None:
    """With -k, a row left without tests is 'deselected', not 'unbound'."""
    assert ("deselected", "unbound") == (row_status([], deselection=True), row_status([], deselection=False))


def test_aggregate_gives_each_row_its_status_checks_and_totals() -> None:
    """Statuses, per-suite checks, examples and time are computed per row from its tests."""
    results = {r.id: r for r in aggregate(ROWS, RECORDS, "fake", "ci")}
    assert {"A.grad.ok": "passed", "A.fail.bad": "failed", "A.rule.na": "not applicable"} == {
        i: results[i].status for i in ("A.grad.ok", "A.fail.bad", "A.rule.na")
    }
    assert "unbound" == results["B.rule.free"].status
    assert {"properties": "failed", "golden": "passed"} == results["A.fail.bad"].checks
    assert (11, 1.0) == (results["A.grad.ok"].example_count(), results["A.grad.ok"].duration())
    assert ["engine does not provide x"] == results["A.rule.na"].reasons
    assert [] == results["A.fail.bad"].reasons


def test_only_failed_tests_get_a_repro_command() -> None:
    """A failed test carries the command that reruns it with the same engine and profile."""
    (bad,) = aggregate(ROWS[1:2], RECORDS, "pkg.mod:Broken", "ci")
    repros = [t.repro for t in bad.tests]
    assert [
        "pytest tests/properties/test_x.py::test_bad --impl pkg.mod:Broken --hypothesis-profile=ci",
        None,
    ] == repros


def test_repro_command_quotes_the_node_id() -> None:
    """Parametrized node ids hold brackets, so the command quotes them for the shell."""
    assert "pytest 'tests/p.py::t[S05.cost.matmul]' --impl torch --hypothesis-profile=ci" == repro_command(
        "tests/p.py::t[S05.cost.matmul]", "torch", "ci"
    )


def test_unknown_ids_are_collected_with_their_tests() -> None:
    """An id a test names but no spec has is reported with the tests naming it."""
    assert {"Z.unknown": [GOLDEN.format("na")]} == unknown_ids([r["id"] for r in ROWS], RECORDS)


def test_summary_counts_by_status_and_stage() -> None:
    """The summary counts every row once, by status and by stage then status."""
    summary = summarize(aggregate(ROWS, RECORDS, "fake", "ci"))
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
    if overrides.pop("rows", "keep") is None:  # rows without A.fail.bad
        overrides["rows"] = aggregate([r for r in ROWS if r["id"] != "A.fail.bad"], clean, "fake", "ci")
    assert expected == make_report(clean, **overrides).exit_code()


def test_unknown_id_and_failing_loose_test_are_problems() -> None:
    """A test naming an unknown id, or a failing test naming no row, makes the run fail."""
    loose = record(PROPERTY.format("loose"), [], "failed", message="boom")
    problems = make_report([*RECORDS, loose]).problems()
    assert "Z.unknown: named by a test but in no spec" in problems
    assert f"{loose.nodeid}: failed" in problems


def test_mutation_score_from_mutmut_stats(tmp_path: Path) -> None:
    """score = (killed + timeout) / (total - skipped); no file gives None."""
    stats = tmp_path / "mutmut-cicd-stats.json"
    assert mutation_score(stats) is None
    stats.write_text(json.dumps({"killed": 70, "timeout": 2, "total": 100, "skipped": 10, "survived": 18}))
    result = mutation_score(stats)
    assert result is not None
    assert pytest.approx(72 / 90) == result["score"]
    assert (70, 18, 0) == (result["killed"], result["survived"], result["suspicious"])


def test_json_report_validates_against_its_schema(tmp_path: Path) -> None:
    """The JSON format (failures, n/a, unbound, unknown ids, mutation score) matches its schema."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"killed": 1, "total": 2}))
    document = json.loads(format_json(make_report(RECORDS, mutation=mutation_score(stats))))
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
    assert ["A.grad.ok", "gradient", "passed", "passed", "passed", "11", "1.00s", "passes"] == ok_line.split()
    assert any(line.split()[:3] == ["B.rule.free", "rule", "unbound"] for line in lines)
    assert any(line.split()[:3] == ["A.rule.na", "rule", "n/a"] for line in lines)
    assert (
        "      repro: pytest tests/properties/test_x.py::test_bad --impl fake --hypothesis-profile=ci"
        in lines
    )
    assert "      > x=0" in lines
    assert "  A.rule.na: differs by design" in lines
    assert lines[-1].startswith("FAILED: 4 rows: 1 passed, 1 failed, 1 not applicable, 1 unbound")


def test_markdown_has_a_row_table_and_fenced_repro() -> None:
    """The markdown format holds a pipe table of the rows and each repro in a shell block."""
    lines = format_markdown(make_report(RECORDS)).splitlines()
    assert "| `A.fail.bad` | failure | failed | failed | passed | 11 | 1.00s | fails |" in lines
    at = lines.index("```sh")
    assert "pytest tests/properties/test_x.py::test_bad --impl fake --hypothesis-profile=ci" == lines[at + 1]
    assert "- engine does not provide x: `A.rule.na`" in lines


def test_mutation_line_shows_the_score(tmp_path: Path) -> None:
    """With a mutmut result file the table states the score, killed, timeout and counted mutants."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"killed": 8, "timeout": 1, "total": 12, "skipped": 2, "survived": 1}))
    text = format_table(make_report(RECORDS, mutation=mutation_score(stats)))
    assert f"mutation score: 90.0% (killed 8 + timeout 1 of 10; survived 1) from {stats}" in text.splitlines()


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
        f"    repro: pytest {loose.nodeid} --impl fake --hypothesis-profile=ci",
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
    report = make_report(clean, rows=aggregate(ROWS[:1], clean, "fake", "ci"), other_tests=[], unknown_ids={})
    table = format_table(report)
    markdown = format_markdown(report)
    for heading in ("failures:", "not applicable or skipped", "## Failures", "## Not applicable", "## Other"):
        assert heading not in table + markdown
    assert table.splitlines()[-1].startswith("OK: 1 rows: 1 passed in 2.0s")


def test_mutation_file_without_counted_mutants(tmp_path: Path) -> None:
    """A result file with every mutant skipped has no score, and says so."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"total": 3, "skipped": 3}))
    text = format_table(make_report(RECORDS, mutation=mutation_score(stats)))
    assert f"mutation score: n/a ({stats} counts no mutants)" in text.splitlines()


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

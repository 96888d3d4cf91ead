"""The verify plugin's recording, from synthetic pytest reports, and its parsing of hypothesis output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest

from contracts.verify.plugin import Recorder, selected
from contracts.verify.records import (
    EXAMPLES_PROPERTY,
    SPEC_PROPERTY,
    count_examples,
    crash_message,
    falsifying_example,
    phase_outcome,
    reproduce_decorator,
    skip_reason,
    sub_exceptions,
    worse,
)

NODE = "tests/properties/test_x.py::test_y[S03.grad.mul]"

LONGREPR = """tests/properties/test_x.py:53: in test_y
    @given(data=st.data())
E   assert 1.0 == 0.5
E   Failing test case: test_y(
E       engine=<Engine>,
E       spec_row=SpecRow('T.grad.maximum'),
E   )
E   Draw 1: {'inputs': [array(0.), array(0.)]}
E   Explanation:
E       These lines were always and only run by failing test cases:
E
E   You can reproduce this test case by temporarily adding @reproduce_failure('6.1', b'AX==') as a decorator
"""

STATISTICS = """tests/x.py::t:

  - during reuse phase (0.00 seconds):
    - 2 passing, 0 failing, and 0 invalid test cases

  - during generate phase (0.10 seconds):
    - Typical runtimes: ~ 1ms, of which < 1ms in data generation
    - 47 passing, 1 failing, and 3 invalid test cases

  - during shrink phase (0.10 seconds):
    - 0 passing, 7 failing, and 0 invalid test cases
"""


Outcome = Literal["passed", "failed", "skipped"]
When = Literal["setup", "call", "teardown"]


def report(
    when: When, outcome: Outcome, longrepr: Any = None, examples: int | None = None
) -> pytest.TestReport:
    user_properties: list[tuple[str, object]] = [(SPEC_PROPERTY, ("S03.grad.mul",))]
    if examples is not None:
        user_properties.append((EXAMPLES_PROPERTY, examples))
    return pytest.TestReport(
        NODE, ("x", 1, "y"), {}, outcome, longrepr, when, duration=0.25, user_properties=user_properties
    )


def test_failing_example_text_is_extracted() -> None:
    """The falsifying block runs from hypothesis's marker to its explanation, without 'E' prefixes."""
    assert (
        "Failing test case: test_y(\n    engine=<Engine>,\n    spec_row=SpecRow('T.grad.maximum'),\n)\n"
        "Draw 1: {'inputs': [array(0.), array(0.)]}"
    ) == falsifying_example(LONGREPR)
    assert falsifying_example("E   assert 1 == 2") is None
    assert "@reproduce_failure('6.1', b'AX==')" == reproduce_decorator(LONGREPR)


def test_examples_are_counted_outside_shrinking() -> None:
    """Examples = passing + failing cases of the reuse and generate phases; shrinks do not count."""
    assert 50 == count_examples(STATISTICS)
    assert count_examples("") is None
    assert count_examples("nothing that looks like statistics") is None


def test_crash_message_drops_the_falsifying_block() -> None:
    """The message keeps the assertion and leaves the example to its own field."""

    class Crash:
        message = "assert 1.0 == 0.5\nFailing test case: test_y(\n)"

    class Repr:
        reprcrash = Crash()

    assert "assert 1.0 == 0.5" == crash_message(Repr(), LONGREPR)
    assert "assert 1.0 == 0.5" == crash_message("no crash entry", LONGREPR)


def test_sub_exceptions_of_an_exception_group() -> None:
    """An exception group's distinct sub-exceptions are listed once each."""
    text = "  | RecursionError: deep\n    | RecursionError: deep\n    | ValueError: bad\n  |   File x"
    assert ["RecursionError: deep", "ValueError: bad"] == sub_exceptions(text)


@pytest.mark.parametrize(
    ("when", "outcome", "reason", "expected"),
    [
        ("call", "failed", None, "failed"),
        ("setup", "failed", None, "error"),
        ("teardown", "failed", None, "error"),
        ("call", "skipped", "not applicable: torch does not provide x", "not applicable"),
        ("call", "skipped", "needs a GPU", "skipped"),
        ("call", "passed", None, "passed"),
    ],
)
def test_phase_outcomes(when: When, outcome: Outcome, reason: str | None, expected: str) -> None:
    """A phase report maps to a test outcome; only 'not applicable:' skips count as not applicable."""
    assert expected == phase_outcome(when, outcome, reason)


def test_worse_outcome_wins() -> None:
    """A later phase replaces the outcome only with a worse one."""
    assert ("failed", "error", "failed") == (
        worse("passed", "failed"),
        worse("failed", "error"),
        worse("failed", "passed"),
    )


def test_skip_reason_from_pytest_tuple() -> None:
    """pytest stores a skip as (path, line, 'Skipped: reason')."""
    assert "not applicable: x" == skip_reason(("tests/spec_rows.py", 56, "Skipped: not applicable: x"))


def test_row_prefix_selection() -> None:
    """A test is kept when any id it names starts with any chosen prefix."""
    assert (True, False, False) == (
        selected(["S03.grad.mul", "T.x"], ["T."]),
        selected(["S03.grad.mul"], ["S05"]),
        selected([], ["S03"]),
    )


def test_recorder_accumulates_phases_and_writes_results(tmp_path: Path) -> None:
    """setup + failing call + teardown make one failed record with message, example, examples, time."""
    out = tmp_path / "results.json"
    recorder = Recorder(out, progress=False)
    recorder.pytest_runtest_logreport(report("setup", "passed"))
    recorder.pytest_runtest_logreport(report("call", "failed", LONGREPR))
    recorder.pytest_runtest_logreport(report("teardown", "passed", examples=50))
    recorder.pytest_sessionfinish(None, 1)  # type: ignore[arg-type]
    (test,) = json.loads(out.read_text(encoding="utf-8"))["tests"]
    assert (NODE, ["S03.grad.mul"], "failed", 50) == (
        test["nodeid"],
        test["spec_ids"],
        test["outcome"],
        test["examples"],
    )
    assert pytest.approx(0.75) == test["duration"]
    assert test["falsifying"].startswith("Failing test case: test_y(")
    assert "assert 1.0 == 0.5" == test["message"]


def test_recorder_marks_not_applicable_with_its_reason(tmp_path: Path) -> None:
    """A call skipped by require() is recorded as not applicable, with the reason."""
    recorder = Recorder(None, progress=False)
    recorder.pytest_runtest_logreport(report("setup", "passed"))
    recorder.pytest_runtest_logreport(report("call", "skipped", ("f", 1, "Skipped: not applicable: no exp")))
    recorder.pytest_runtest_logreport(report("teardown", "passed", examples=1))
    (test,) = recorder.records.values()
    assert ("not applicable", "not applicable: no exp", None) == (test.outcome, test.reason, test.examples)


def test_progress_line_when_a_file_finishes(capsys: pytest.CaptureFixture[str]) -> None:
    """Progress prints one stderr line when the last test of a file finishes."""
    recorder = Recorder(None, progress=True)
    recorder.expect([NODE, "tests/golden/test_z.py::t"])
    for when in ("setup", "call", "teardown"):
        recorder.pytest_runtest_logreport(report(when, "passed", examples=1))
    err = capsys.readouterr().err
    assert "[   1/2] tests/properties/test_x.py: 1 passed, 0 failed, 0 n/a" in err
    assert "test_z" not in err


SAMPLE = """
import pytest
from hypothesis import given, settings, strategies as st


@pytest.mark.spec("A.rule.kept")
@settings(max_examples=7, derandomize=True, database=None)
@given(x=st.integers())
def test_kept(x):
    assert x == x


@pytest.mark.spec("A.rule.kept", "B.rule.other")
def test_plain():
    pass


@pytest.mark.spec("A.rule.kept")
def test_not_applicable():
    pytest.skip("not applicable: sample lacks it")


@pytest.mark.spec("B.rule.other")
def test_dropped():
    pass
"""


def run_inner(tmp_path: Path, *arguments: str) -> dict[str, Any]:
    """pytest in this process over a sample test file, with the verify plugin; its results."""
    (tmp_path / "test_sample.py").write_text(SAMPLE, encoding="utf-8")
    (tmp_path / "test_broken.py").write_text("import no_such_module_here\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    spec(*ids): rows\n", encoding="utf-8")
    out = tmp_path / "out.json"
    command = [str(tmp_path), "-p", "contracts.verify.plugin", "--contracts-verify-out", str(out)]
    options = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "--continue-on-collection-errors"]
    code = pytest.main([*command, *options, *arguments])
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    results: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return results


def test_plugin_in_a_real_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In a pytest run the plugin keeps tests naming chosen rows, counts examples, records skips and
    collection errors, and prints progress."""
    results = run_inner(tmp_path, "--contracts-rows", "A.", "--contracts-progress")
    tests = {test["nodeid"].split("::")[1]: test for test in results["tests"]}
    assert {"test_kept", "test_plain", "test_not_applicable"} == set(tests)
    assert (7, 1, None) == tuple(
        tests[name]["examples"] for name in ("test_kept", "test_plain", "test_not_applicable")
    )
    assert ["A.rule.kept", "B.rule.other"] == tests["test_plain"]["spec_ids"]
    assert ("not applicable", "not applicable: sample lacks it") == (
        tests["test_not_applicable"]["outcome"],
        tests["test_not_applicable"]["reason"],
    )
    (error,) = results["collection_errors"]
    assert "no_such_module_here" in error["message"]
    err = capsys.readouterr().err
    assert "test_sample.py: 2 passed, 0 failed, 1 n/a" in err
    assert "collection error in test_broken.py" in err


def test_plugin_without_row_selection_keeps_every_test(tmp_path: Path) -> None:
    """Without --contracts-rows every collected test is recorded."""
    results = run_inner(tmp_path)
    assert 4 == len(results["tests"])
    assert [] == [test for test in results["tests"] if not test["spec_ids"]]


def test_xdist_collection_sets_the_progress_totals() -> None:
    """The controller learns the per-file totals from the first worker's collection, once."""
    recorder = Recorder(None, progress=False)
    recorder.pytest_xdist_node_collection_finished(None, ["a.py::x", "a.py::y", "b.py::z"])
    recorder.pytest_xdist_node_collection_finished(None, ["a.py::x"])
    assert ({"a.py": 2, "b.py": 1}, 3) == (recorder.expected, recorder.total)


def test_records_round_trip_through_json() -> None:
    """A record written by the plugin reads back equal."""
    from contracts.verify.records import Record

    record = Record(NODE, ["S03.grad.mul"], "failed", None, 0.5, 3, "boom", "x=1", None)
    assert record == Record.from_json(json.loads(json.dumps(record.to_json())))


def test_user_properties_without_ours() -> None:
    """Reports from tests the plugin did not see carry no spec ids and no example count."""
    from contracts.verify.records import examples_of, spec_ids_of

    assert ([], None, None) == (
        spec_ids_of([("other", 1)]),
        examples_of([("other", 1)]),
        examples_of([("contracts.examples", None)]),
    )


def test_recorder_hooks_on_the_xdist_controller_and_workers(tmp_path: Path) -> None:
    """The controller collects nothing itself; a passing collection is no error; a worker records nothing."""
    from types import SimpleNamespace

    from contracts.verify.plugin import pytest_configure

    recorder = Recorder(None, progress=False)
    recorder.pytest_collection_finish(SimpleNamespace(items=[]))  # type: ignore[arg-type]
    recorder.pytest_collectreport(SimpleNamespace(failed=False))  # type: ignore[arg-type]
    broken = SimpleNamespace(failed=True, longreprtext="E   SyntaxError", nodeid="tests/x.py")
    recorder.pytest_collectreport(broken)  # type: ignore[arg-type]
    recorder.pytest_sessionfinish(None, 0)  # type: ignore[arg-type]
    assert ({}, [{"nodeid": "tests/x.py", "message": "E   SyntaxError"}]) == (
        recorder.expected,
        recorder.collection_errors,
    )
    registered: list[object] = []
    worker = SimpleNamespace(workerinput={}, pluginmanager=SimpleNamespace(register=registered.append))
    pytest_configure(worker)  # type: ignore[arg-type]
    assert [] == registered


def test_falsifying_block_at_the_end_of_the_text() -> None:
    """A falsifying example that runs to the end of the report is kept whole."""
    assert "Falsifying example: t(\n    x=1,\n)" == falsifying_example(
        "E   Falsifying example: t(\nE       x=1,\nE   )"
    )

"""The verify plugin's recording, from synthetic pytest reports, and its parsing of hypothesis output."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from contracts.verify.plugin import Recorder, selected
from contracts.verify.records import (
    ENGINE_CALLS_PROPERTY,
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
    when: When, outcome: Outcome, longrepr: Any = None, examples: int | None = None, engine_calls: int = 1
) -> pytest.TestReport:
    user_properties: list[tuple[str, object]] = [(SPEC_PROPERTY, ("S03.grad.mul",))]
    user_properties.append((ENGINE_CALLS_PROPERTY, engine_calls))
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
        # the prefix counts only where it starts the reason: quoted inside another, it declares nothing
        ("call", "skipped", "needs a GPU (not applicable: elsewhere)", "skipped"),
        ("setup", "skipped", "Not applicable: torch does not provide x", "skipped"),
        ("call", "skipped", None, "skipped"),
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
    recorder.impl = "userpkg:Mine"  # what pytest_configure read from the suite's --impl
    recorder.pytest_sessionfinish(SimpleNamespace(), 1)  # type: ignore[arg-type]
    (test,) = json.loads(out.read_text(encoding="utf-8"))["tests"]
    assert "userpkg:Mine" == json.loads(out.read_text(encoding="utf-8"))["impl"]  # the engine it ran
    assert (NODE, ["S03.grad.mul"], "failed", 50) == (
        test["nodeid"],
        test["spec_ids"],
        test["outcome"],
        test["examples"],
    )
    assert pytest.approx(0.75) == test["duration"]
    assert (None, "@reproduce_failure('6.1', b'AX==')", 1) == (
        test["reason"],
        test["reproduce"],
        json.loads(out.read_text(encoding="utf-8"))["exitstatus"],
    )
    assert test["falsifying"].startswith("Failing test case: test_y(")
    assert "assert 1.0 == 0.5" == test["message"]


def test_recorder_keeps_the_module_builds_a_test_noted() -> None:
    """The builds the suite notes after a test (so only the teardown report carries them) reach its
    record; a report without them changes nothing, and without any the lists stay empty."""
    from contracts.verify.records import BUILDS_PROPERTY, builds_of

    recorder = Recorder(None, progress=False)
    for when in ("setup", "call", "teardown"):
        phase = report(when, "passed")
        if when == "teardown":
            phase.user_properties.append(
                (BUILDS_PROPERTY, {"built": ["module_mlp"], "declined": ["module_linear"]})
            )
        recorder.pytest_runtest_logreport(phase)
    assert (["module_mlp"], ["module_linear"]) == (
        recorder.records[NODE].built,
        recorder.records[NODE].declined,
    )
    other = Recorder(None, progress=False)
    other.pytest_runtest_logreport(report("call", "passed"))
    assert ([], [], None) == (other.records[NODE].built, other.records[NODE].declined, builds_of([("x", 1)]))


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
    first = capsys.readouterr().err
    recorder.finish("tests/golden/test_z.py::t")
    second = capsys.readouterr().err
    patterns = [
        r"verify +\d+\.\ds \[   1/2\] tests/properties/test_x\.py: 1 passed, 0 failed, 0 n/a\n",
        r"verify +\d+\.\ds \[   2/2\] tests/golden/test_z\.py: 0 passed, 0 failed, 0 n/a\n",
    ]
    assert [True, True] == [
        re.fullmatch(p, t) is not None for p, t in zip(patterns, (first, second), strict=True)
    ]
    quiet = Recorder(None, progress=False)
    quiet.expect([NODE])
    quiet.finish(NODE)
    assert "" == capsys.readouterr().err


def test_file_of_a_node_id() -> None:
    """A node id's file is everything before the first '::'."""
    from contracts.verify.plugin import file_of

    assert ("a/b.py", "a/b.py") == (file_of("a/b.py::C::t[x::y]"), file_of("a/b.py"))


def test_configure_registers_the_recorder() -> None:
    """In the main process the recorder is registered under its name, with the options' values and the
    engine the suite's --contracts-impl names (the results say which engine ran)."""

    from contracts.verify.plugin import pytest_configure

    registered: list[tuple[object, str]] = []
    values = {
        "--contracts-verify-out": None,
        "--contracts-progress": True,
        "--contracts-impl": "userpkg:Mine",
    }
    config = SimpleNamespace(
        getoption=lambda name, default=None: values.get(name, default),
        pluginmanager=SimpleNamespace(register=lambda p, n: registered.append((p, n))),
    )
    pytest_configure(config)  # type: ignore[arg-type]
    ((recorder, name),) = registered
    assert isinstance(recorder, Recorder)
    assert ("contracts-verify-recorder", None, True, "userpkg:Mine") == (
        name,
        recorder.out,
        recorder.progress,
        recorder.impl,
    )


SAMPLE = """
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st


@pytest.mark.spec("A.rule.kept")
@settings(
    max_examples=7,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(x=st.integers())
def test_kept(record_property, x):
    record_property("contracts.engine_calls", 2)  # what the suite's engine fixture records
    assert x == x


@pytest.mark.spec("A.rule.kept")
@pytest.mark.reference_only("about the sample's own types")
def test_reference():
    pass


@pytest.mark.spec("A.rule.kept", "B.rule.other")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_plain():
    pass


@pytest.mark.spec("A.rule.kept")
def test_not_applicable():
    pytest.skip("not applicable: sample lacks it")


@pytest.mark.spec("B.rule.other")
def test_dropped():
    pass
"""


def run_inner(tmp_path: Path, *arguments: str, sample: str = SAMPLE) -> dict[str, Any]:
    """pytest in this process over a sample test file, with the verify plugin; its results."""
    (tmp_path / "test_sample.py").write_text(sample, encoding="utf-8")
    (tmp_path / "test_broken.py").write_text("import no_such_module_here\n", encoding="utf-8")
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\nmarkers =\n    spec(*ids): rows\n    reference_only(reason): own types\n", encoding="utf-8"
    )
    out = tmp_path / "out.json"
    command = [str(tmp_path), "-p", "contracts.verify.plugin", "--contracts-verify-out", str(out)]
    options = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "--continue-on-collection-errors"]
    try:
        code = pytest.main([*command, *options, *arguments])
    finally:  # a later run in this process (mutmut runs the tests twice) must import them afresh
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
                del sys.modules[name]
    assert code in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    results: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return results


def test_plugin_in_a_real_session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """In a pytest run the plugin keeps tests naming chosen rows, counts examples, records skips and
    collection errors, and prints progress."""
    results = run_inner(tmp_path, "--contracts-rows", "A.", "--contracts-rows", "Z.", "--contracts-progress")
    tests = {test["nodeid"].split("::")[1]: test for test in results["tests"]}
    assert {"test_kept", "test_reference", "test_plain", "test_not_applicable"} == set(tests)
    assert (7, 1, None) == tuple(
        tests[name]["examples"] for name in ("test_kept", "test_plain", "test_not_applicable")
    )
    # test_plain names rows but never called the engine (no call recorded) and is not reference-only
    assert ("passed", "passed", "not exercised") == tuple(
        tests[name]["outcome"] for name in ("test_kept", "test_reference", "test_plain")
    )
    assert (2, None, "about the sample's own types") == (
        tests["test_kept"]["engine_calls"],
        tests["test_reference"]["engine_calls"],
        tests["test_reference"]["reference_only"],
    )
    assert ["A.rule.kept", "B.rule.other"] == tests["test_plain"]["spec_ids"]
    assert ("not applicable", "not applicable: sample lacks it") == (
        tests["test_not_applicable"]["outcome"],
        tests["test_not_applicable"]["reason"],
    )
    (error,) = results["collection_errors"]
    assert "no_such_module_here" in error["message"]
    err = capsys.readouterr().err
    assert "test_sample.py: 2 passed, 0 failed, 1 n/a, 1 other" in err
    assert "collection error in test_broken.py" in err


CLAUSES = """import pytest

from contracts.verify.clauses import clause, each_clause


@pytest.mark.spec("A.rule.kept", "B.rule.other", "C.rule.third")
def test_two_clauses_fail(record_property):
    record_property("contracts.engine_calls", 1)
    with clause("A.rule.kept"):
        assert 1 == 1
    with each_clause() as check:
        with check("B.rule.other"):
            assert 2 == 3, "B's own"
        with check("C.rule.third", "refusal"):
            assert 4 == 5, "C's refusal"
"""


def test_the_clauses_a_test_failed_in_are_recorded_with_their_rows(tmp_path: Path) -> None:
    """A test failing in two rows' clauses records both, each with its row, category and message; the
    clause it passed is not among them."""
    (test,) = run_inner(tmp_path, sample=CLAUSES)["tests"]
    assert "failed" == test["outcome"]
    assert [("B.rule.other", None), ("C.rule.third", "refusal")] == [
        (row_id, category) for row_id, category, _ in test["failed_clauses"]
    ]
    assert ["B's own", "C's refusal"] == [message.splitlines()[0] for _, _, message in test["failed_clauses"]]


def test_plugin_without_row_selection_keeps_every_test(tmp_path: Path) -> None:
    """Without --contracts-rows every collected test is recorded."""
    results = run_inner(tmp_path)
    assert 5 == len(results["tests"])
    assert [] == [test for test in results["tests"] if not test["spec_ids"]]


ENDS_EARLY = """
import pytest


@pytest.mark.spec("A.rule.x")
def test_first(record_property):
    record_property("contracts.engine_calls", 1)


@pytest.mark.spec("A.rule.x")
def test_ends_the_session():
    pytest.exit("enough", returncode=0)


@pytest.mark.spec("A.rule.x", "B.rule.y")
def test_never_runs():
    pass
"""


def test_tests_a_session_never_ended_are_errors_of_their_rows(tmp_path: Path) -> None:
    """pytest.exit in the second test ends the session: the first is recorded passed, the second and
    the third (never started) as errors under their own spec ids, so their row cannot read passed."""
    (tmp_path / "test_early.py").write_text(ENDS_EARLY, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    spec(*ids): rows\n", encoding="utf-8")
    out = tmp_path / "out.json"
    arguments = [str(tmp_path), "-q", "-p", "no:cacheprovider", "--import-mode=importlib"]
    try:
        pytest.main([*arguments, "-p", "contracts.verify.plugin", "--contracts-verify-out", str(out)])
    finally:
        sys.modules.pop("test_early", None)
    tests = {test["nodeid"].split("::")[1]: test for test in json.loads(out.read_text())["tests"]}
    message = "not run to its end: the session ended first (pytest exit status 0)"
    assert {
        "test_first": ("passed", ["A.rule.x"], None),
        "test_ends_the_session": ("error", ["A.rule.x"], message),
        "test_never_runs": ("error", ["A.rule.x", "B.rule.y"], message),
    } == {name: (test["outcome"], test["spec_ids"], test["message"]) for name, test in tests.items()}


def test_an_abandoned_test_is_failed_and_the_results_are_written_at_once(tmp_path: Path) -> None:
    """abandon (the suite's backstop, before it ends the process): the hung test failed with the message,
    the tests not ended errors, the test that ended as it was; the results file written now."""
    out = tmp_path / "out.json"
    recorder = Recorder(out, progress=False)
    recorder.impl = "reference"
    recorder.expect(["a.py::done", "a.py::broke", "a.py::hung", "a.py::later"])
    phases_of: dict[str, tuple[When, ...]] = {
        "a.py::done": ("setup", "call", "teardown"),
        "a.py::broke": ("setup", "call"),  # failed in its call, then the session ended
        "a.py::hung": ("setup",),
    }
    for nodeid, phases in phases_of.items():
        for when in phases:
            failed = nodeid == "a.py::broke" and when == "call"
            phase = report(when, "failed" if failed else "passed", "E   boom" if failed else None)
            phase.nodeid = nodeid
            recorder.pytest_runtest_logreport(phase)
    recorder.abandon("a.py::hung", "hung here")
    written = json.loads(out.read_text(encoding="utf-8"))
    outcomes = {test["nodeid"]: (test["outcome"], test["message"]) for test in written["tests"]}
    later = "not run to its end: the session ended first (pytest exit status 1)"
    assert (1, "reference") == (written["exitstatus"], written["impl"])
    assert {
        "a.py::done": ("passed", None),
        "a.py::broke": ("failed", "boom"),  # its own failure kept
        "a.py::hung": ("failed", "hung here"),
        "a.py::later": ("error", later),
    } == outcomes


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


def test_plugin_options_and_their_help() -> None:
    """The plugin's command-line options, their defaults and help, in their own group."""
    from contracts.verify.plugin import pytest_addoption

    parser = pytest.Parser(_ispytest=True)
    pytest_addoption(parser)
    keys = ("dest", "default", "nargs", "const", "help")
    assert [
        ("contracts_verify_out", None, None, None, "write per-test results (JSON) here"),
        ("contracts_rows", [], None, None, "run only tests naming a spec id with this prefix (repeatable)"),
        ("contracts_progress", False, 0, True, "print a line per finished file"),
    ] == [
        tuple(option.attrs()[key] for key in keys) for option in parser.getgroup("contracts-verify").options
    ]


@pytest.mark.parametrize(
    ("current", "new", "expected"),
    [
        ("passed", "not applicable", "not applicable"),
        ("not applicable", "skipped", "skipped"),
        ("skipped", "failed", "failed"),
        ("failed", "error", "error"),
        ("error", "failed", "error"),
        ("skipped", "not applicable", "skipped"),
    ],
)
def test_outcome_order(current: str, new: str, expected: str) -> None:
    """passed < not applicable < skipped < failed < error."""
    assert expected == worse(current, new)


def test_every_counted_phase() -> None:
    """explicit, reuse, generate and target count; shrink and explain do not."""
    text = "".join(
        f"  - during {phase} phase (0.01 seconds):\n    - {n} passing, 1 failing, and 9 invalid test cases\n"
        for phase, n in (
            ("explicit", 1),
            ("reuse", 2),
            ("generate", 3),
            ("target", 4),
            ("shrink", 50),
            ("explain", 60),
        )
    )
    assert 14 == count_examples(text + "  - during generate phase (0.01 seconds):\n    - no counts here\n")


@pytest.mark.parametrize(
    ("marker", "end"),
    [
        ("Falsifying example", "Explanation:"),
        ("Falsifying explicit example", "You can reproduce this test case"),
        ("Failing test case", "Unreproducible test case"),
        ("Falsifying example", "Captured stdout call"),
        ("Falsifying example", ""),
        ("Falsifying example", "E"),
    ],
)
def test_falsifying_block_markers(marker: str, end: str) -> None:
    """Each of hypothesis's wordings starts the block; the last block wins; an explanation, a repro
    hint, captured output or a blank line ends it."""
    text = f"E   {marker}: t(x=0)\nE   ok\nE   {marker}: t(\nE       x=1,\nE   )\n{end}\nE   after\n"
    assert f"{marker}: t(\n    x=1,\n)" == falsifying_example(text)


def test_last_reproduce_decorator() -> None:
    """With several @reproduce_failure lines (an exception group), the last is kept."""
    text = "@reproduce_failure('6.1', b'AA==')\n@reproduce_failure('6.1', b'BB==')"
    assert "@reproduce_failure('6.1', b'BB==')" == reproduce_decorator(text)
    assert reproduce_decorator("no decorator") is None


def test_crash_message_sources() -> None:
    """The crash entry wins; else the first 'E   ' line; else the last non-blank line; the falsifying
    block is cut wherever it starts; an exception group's sub-exceptions follow."""

    class Crash:
        message = "assert from == crash\n  where x = 1  \n  Falsifying example: t(\n  x=1\n)"

    class Repr:
        reprcrash = Crash()

    group = "E   ExceptionGroup: 2\n  | ValueError: a\n  |   File x\n  | KeyError: 'b'\n"
    assert (
        "assert from == crash\n  where x = 1",
        "first",
        "last line",
        "",
        "ExceptionGroup: 2\nsub-exceptions: ValueError: a; KeyError: 'b'",
    ) == (
        crash_message(Repr(), "E   assert other"),
        crash_message(None, "head\nE   first  \nE   second"),
        crash_message(None, "head\nmiddle\n  last line  \n\n"),
        crash_message(None, ""),
        crash_message(None, group),
    )


def test_skip_reason_from_text() -> None:
    """A skip stored as text (not pytest's 3-tuple) is read whole, without 'Skipped: ' and spaces."""
    assert ("x", "('a', 'b')") == (skip_reason("Skipped: x  "), skip_reason(("a", "b")))


def test_note_examples() -> None:
    """hypothesis's count from its statistics; 1 for a plain test; None for a hypothesis test that
    left no statistics (it never ran its examples)."""

    from hypothesis import given
    from hypothesis import strategies as st

    from contracts.verify.plugin import note_examples

    @given(st.integers())
    def property_test(x: int) -> None:
        pass

    items = [
        SimpleNamespace(hypothesis_statistics=STATISTICS, obj=property_test, user_properties=[]),
        SimpleNamespace(obj=lambda: None, user_properties=[]),
        SimpleNamespace(obj=property_test, user_properties=[]),
        SimpleNamespace(user_properties=[]),
    ]
    for item in items:
        note_examples(item)  # type: ignore[arg-type]
    assert [
        [(EXAMPLES_PROPERTY, 50)],
        [(EXAMPLES_PROPERTY, 1)],
        [(EXAMPLES_PROPERTY, None)],
        [(EXAMPLES_PROPERTY, 1)],
    ] == [item.user_properties for item in items]


def test_recorder_details(capsys: pytest.CaptureFixture[str]) -> None:
    """Messages and collection errors are cut to MESSAGE_LIMIT characters (a collection error keeps
    its end); a skipped test has no example count; progress lines carry the elapsed time and count
    outcomes other than passed, failed and n/a."""

    from contracts.verify.plugin import MESSAGE_LIMIT

    recorder = Recorder(None, progress=True)
    recorder.expect([NODE])
    long_text = "E   " + "a" * 1000 + "x" * 2000
    broken = SimpleNamespace(failed=True, longreprtext=long_text, nodeid="t.py")
    recorder.pytest_collectreport(broken)  # type: ignore[arg-type]
    recorder.pytest_runtest_logreport(report("setup", "passed"))
    recorder.pytest_runtest_logreport(report("call", "skipped", ("f", 1, "Skipped: needs a GPU")))
    recorder.pytest_runtest_logreport(report("teardown", "passed", examples=5))
    (record,) = recorder.records.values()
    assert (2000, "x" * 2000, "skipped", None, "needs a GPU") == (
        MESSAGE_LIMIT,
        recorder.collection_errors[0]["message"],
        record.outcome,
        record.examples,
        record.reason,
    )
    failing = Recorder(None, progress=False)
    failing.pytest_runtest_logreport(report("call", "failed", long_text))
    assert "a" * 1000 + "x" * 1000 == failing.records[NODE].message
    lines = capsys.readouterr().err.splitlines()
    patterns = [
        r"verify +\d+\.\ds collection error in t.py",
        r"verify +\d+\.\ds \[   1/1\] tests/properties/test_x.py: 0 passed, 0 failed, 0 n/a, 1 other",
    ]
    assert [True, True] == [
        re.fullmatch(p, line) is not None for p, line in zip(patterns, lines, strict=True)
    ]
    assert all(float(line.split()[1].rstrip("s")) < 60 for line in lines)


def test_indented_falsifying_block() -> None:
    """An indented block (inside an exception group's report) is found and ends at an indented
    explanation; its indentation is kept."""
    text = "    Falsifying example: t(\n      x=1,\n    )\n    Explanation:\n      more"
    assert "    Falsifying example: t(\n      x=1,\n    )" == falsifying_example(text)


def test_crash_entry_of_a_real_report() -> None:
    """The recorder takes the message from the report's crash entry when pytest kept one."""

    class Crash:
        message = "assert crash == entry"

    class Longrepr:
        reprcrash = Crash()

        def __str__(self) -> str:
            return "E   assert text == line"

    recorder = Recorder(None, progress=False)
    recorder.pytest_runtest_logreport(report("call", "failed", Longrepr()))
    assert "assert crash == entry" == recorder.records[NODE].message


# The same micrograd deep-graph failure as pytest printed it (trimmed): on 3.11 hypothesis's replay of the
# shrunk depth failed again (a plain report, 'E'-prefixed notes); on 3.12 it passed (the depth sits on the
# stack-depth boundary), so hypothesis raised a FlakyFailure group whose notes sit behind its gutter.
# pytest's trailing blanks are put back by replace().
PLAIN_SHAPE = """\
self = <contracts.engines.micrograd_engine.MicrogradEngine object at 0x7fe65b896010>
depth = 1991

>           raise RecursionError(
E           RecursionError: micrograd's recursive topological sort exceeded Python's recursion limit (2039)
E           Failing test case: test_chain_gradient_is_one_at_any_depth(
E               engine=<contracts.spec_suite.spec_rows.RecordingEngine object at 0x7fe65b888690>,
E               depth=1991,
E           )
E
E           You can reproduce this test case by temporarily adding @reproduce_failure('6.170.17', b'AEIHxw==')

src/contracts/engines/micrograd_engine.py:128: RecursionError
""".replace("E\n", "E           \n")
GROUP_SHAPE = """\
+ Exception Group Traceback (most recent call last):
  |   File "tests/properties/test_stage03_autodiff.py", line 148, in test_chain_gradient_is_one_at_any_depth
  |     @given(depth=st.integers(1, 3000))
  |                    ^^^^^^^^^
  | hypothesis.errors.FlakyFailure: Hypothesis test_chain_gradient_is_one_at_any_depth(depth=1996) produces \
unreliable results: Failed on the first call but did not on a subsequent one (1 sub-exception)
  | Failing test case: test_chain_gradient_is_one_at_any_depth(
  |     engine=<contracts.spec_suite.spec_rows.RecordingEngine object at 0x7fa5690d00b0>,
  |     depth=1996,
  | )
  | Failed to reproduce exception. Expected:
  | engine = <contracts.spec_suite.spec_rows.RecordingEngine object at 0x7fa5690d00b0>
  | depth = 1996
  |
  | E           RecursionError: micrograd's recursive topological sort exceeded Python's recursion limit
  |
  | You can reproduce this test case by temporarily adding @reproduce_failure('6.170.17', b'AEIHzA==')
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    | RecursionError: micrograd's recursive topological sort exceeded Python's recursion limit (2065)
    +------------------------------------
""".replace("|\n", "| \n").replace("Expected:\n", "Expected: \n")
# several distinct failures: each sub-exception carries its own example one gutter deeper; the last wins
DISTINCT_SHAPE = """\
  + Exception Group Traceback (most recent call last):
  | ExceptionGroup: Hypothesis found 2 distinct failures. (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | AssertionError: x < 5
    | Falsifying example: test_t(
    |     x=5,
    | )
    +---------------- 2 ----------------
    | ZeroDivisionError: division by zero
    | Falsifying example: test_t(
    |     x=0,
    | )
    | Explanation:
    +------------------------------------
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            PLAIN_SHAPE,
            "        Failing test case: test_chain_gradient_is_one_at_any_depth(\n"
            "            engine=<contracts.spec_suite.spec_rows.RecordingEngine object at 0x7fe65b888690>,\n"
            "            depth=1991,\n        )",
        ),
        (
            GROUP_SHAPE,
            "Failing test case: test_chain_gradient_is_one_at_any_depth(\n"
            "    engine=<contracts.spec_suite.spec_rows.RecordingEngine object at 0x7fa5690d00b0>,\n"
            "    depth=1996,\n)",
        ),
        (DISTINCT_SHAPE, "Falsifying example: test_t(\n    x=0,\n)"),
    ],
    ids=["plain", "flaky-group", "distinct-failures"],
)
def test_falsifying_example_in_both_report_shapes(text: str, expected: str) -> None:
    """The example is found in a plain report and behind an exception group's gutter (a flaky failure, whose
    block ends at 'Failed to reproduce', or several distinct failures), so its depth= reaches the report."""
    assert expected == falsifying_example(text)
    assert "@reproduce_failure('6.170.17', b'AEIHzA==')" == reproduce_decorator(GROUP_SHAPE)


def test_a_reference_only_reason_is_its_markers_arguments_in_one_line() -> None:
    """No marker: None; a marker's arguments are the reason, joined by single spaces."""

    from contracts.verify.plugin import reference_only_reason

    mark = pytest.mark.reference_only("about", "our own types").mark
    marked: Any = SimpleNamespace(get_closest_marker=lambda name: mark if name == "reference_only" else None)
    plain: Any = SimpleNamespace(get_closest_marker=lambda name: None)
    assert ("about our own types", None) == (reference_only_reason(marked), reference_only_reason(plain))


def test_a_failed_setup_keeps_its_message() -> None:
    """An error in setup (the adapter's fixture raising) is recorded with its message, as a failed call is."""
    recorder = Recorder(None, progress=False)
    recorder.pytest_runtest_logreport(report("setup", "failed", "E   RuntimeError: no device"))
    (record,) = recorder.records.values()
    assert ("error", "RuntimeError: no device") == (record.outcome, record.message)


class Marked:
    """An item with spec marks at two levels (a module's pytestmark, the function's own)."""

    def __init__(self, *marks: tuple[str, ...]) -> None:
        self.marks = [pytest.mark.spec(*ids).mark for ids in marks]

    def iter_markers(self, name: str) -> list[Any]:
        return [mark for mark in self.marks if mark.name == name]

    def get_closest_marker(self, name: str) -> Any:
        return self.iter_markers(name)[0]


def test_spec_ids_come_from_every_level_of_marks() -> None:
    """A test's spec ids are those of all its spec marks, each once, sorted."""
    from contracts.verify.plugin import marked_ids

    item = Marked(("B.rule.y", "A.rule.x"), ("A.rule.x", "C.rule.z"))
    assert ["A.rule.x", "B.rule.y", "C.rule.z"] == marked_ids(item)  # type: ignore[arg-type]

"""The pieces of verify's honesty that need no pytest child: not-exercised outcomes, causes, the cause
chain, the repro command, the checks before a run, the signal handling and the test-side helpers."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
import unittest
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis.errors import UnsatisfiedAssumption

import contracts
from contracts.engines.modules import ModuleUnsupported
from contracts.engines.reference import ReferenceEngine
from contracts.spec_suite.spec_rows import (
    EngineUse,
    HarnessControlError,
    RecordingEngine,
    assert_engine_gives,
    builds_in,
    check_protocol_arrays,
    is_reference,
    unwrap,
)
from contracts.verify.probe import module_root
from contracts.verify.records import (
    ENGINE_CALLS_PROPERTY,
    NOT_EXERCISED,
    REFERENCE_ONLY_PROPERTY,
    Record,
    cause_chain,
    crash_message,
    exercised,
    int_property,
    reference_only_of,
)
from contracts.verify.report import (
    NOTHING_VERIFIED,
    Cause,
    Report,
    ReportedTest,
    Rerun,
    RowResult,
    causes,
    row_status,
    signature,
)
from contracts.verify.report import test_function as function_of  # not a test: aliased
from contracts.verify.runner import (
    QUICK_DEPTH,
    QUICK_SAMPLES,
    VerifyError,
    VerifyInterruptedError,
    VerifyOptions,
    check_output,
    check_profile,
    check_timeout,
    pytest_command,
    quick_note,
    raise_interrupted,
    rerun_of,
    run_settings,
    signals_interrupt,
    stop,
)
from tests.common.broken_engines import DeclaresNothing, WrongMulGradient
from tests.common.broken_module_engines import DeclinesEveryBuild

ROOT = Path(__file__).resolve().parents[2]
NODE = "tests/properties/test_x.py::test_y[S03.grad.mul]"


# ---------------------------------------------------------------- not exercised


@pytest.mark.parametrize(
    ("outcome", "spec_ids", "reference_only", "calls", "expected"),
    [
        pytest.param("passed", ["A.x"], None, 0, NOT_EXERCISED, id="never-called"),
        pytest.param("passed", ["A.x"], None, None, NOT_EXERCISED, id="not-recorded"),
        pytest.param("passed", ["A.x"], None, 1, "passed", id="called"),
        pytest.param("passed", ["A.x"], "own types", 0, "passed", id="reference-only"),
        pytest.param("passed", [], None, 0, "passed", id="names-no-row"),
        pytest.param("failed", ["A.x"], None, 0, "failed", id="failed-stays-failed"),
        pytest.param("not applicable", ["A.x"], None, None, "not applicable", id="skipped"),
    ],
)
def test_a_spec_test_that_never_called_the_engine_is_not_exercised(
    outcome: str, spec_ids: list[str], reference_only: str | None, calls: int | None, expected: str
) -> None:
    """Only a passing spec test that is not reference-only and recorded no engine call changes."""
    record = Record(NODE, spec_ids, outcome, reference_only=reference_only, engine_calls=calls)
    assert expected == exercised(record)


def test_not_exercised_rows_are_never_green() -> None:
    """A row with a not-exercised test is not exercised even if another test passed; failed wins."""
    assert ("not exercised", "failed", "partly verified") == (
        row_status(["passed", NOT_EXERCISED]),
        row_status([NOT_EXERCISED, "failed"]),
        row_status(["passed", "not applicable"]),
    )


def test_user_property_readers() -> None:
    """The last recorded integer wins; a missing or None reference-only reason reads None."""
    properties = [
        (ENGINE_CALLS_PROPERTY, 1),
        ("other", 5),
        (ENGINE_CALLS_PROPERTY, 3),
        (ENGINE_CALLS_PROPERTY, None),
    ]
    assert (3, None) == (int_property(properties, ENGINE_CALLS_PROPERTY), int_property([], "x"))
    assert ("why", None, None) == (
        reference_only_of([("a", 1), (REFERENCE_ONLY_PROPERTY, "why")]),
        reference_only_of([(REFERENCE_ONLY_PROPERTY, None), (REFERENCE_ONLY_PROPERTY, "later")]),
        reference_only_of([("a", 1)]),
    )


# ---------------------------------------------------------------- causes


def failing(nodeid: str, message: str | None) -> ReportedTest:
    return ReportedTest(Record(nodeid, ["A.x"], "failed", message=message), "properties", "repro")


def row_with(row_id: str, *tests: ReportedTest) -> RowResult:
    return RowResult(row_id, "t", "rule", "A", "failed", [], {}, list(tests))


def test_one_exception_anywhere_is_one_cause_and_assertions_stay_per_test_function() -> None:
    """The same exception in different tests is one cause; the same assertion text in two different
    test functions is two; parameters of one function share their cause."""
    boom = "RuntimeError: matmul backward: 1-D\n  more"
    rows = [
        row_with("A.one", failing("t.py::test_a[A.one]", boom), failing("t.py::test_c[x]", "assert 1 == 2")),
        row_with("A.two", failing("t.py::test_b", boom), failing("t.py::test_c[y]", "assert 1 == 2")),
        row_with("A.three", failing("t.py::test_d", "assert 1 == 2"), failing("t.py::test_e", None)),
        row_with("A.ok"),
    ]
    assert [
        Cause(
            "RuntimeError: matmul backward: 1-D",
            None,
            ["A.one", "A.two"],
            ["t.py::test_a[A.one]", "t.py::test_b"],
        ),
        Cause("assert 1 == 2", "t.py::test_c", ["A.one", "A.two"], ["t.py::test_c[x]", "t.py::test_c[y]"]),
        Cause("assert 1 == 2", "t.py::test_d", ["A.three"], ["t.py::test_d"]),
        Cause("(no message)", None, ["A.three"], ["t.py::test_e"]),
    ] == causes(rows)
    assert ("AssertionError: x", "t.py::f") == (
        signature("\nAssertionError: x\nmore"),
        function_of("t.py::f[a[b]]"),
    )
    duplicate = row_with("A.dup", failing("t.py::test_a", boom), failing("t.py::test_a", boom))
    assert [Cause("RuntimeError: matmul backward: 1-D", None, ["A.dup"], ["t.py::test_a"])] == causes(
        [duplicate]
    )


MICROGRAD_DEEP = "RecursionError: micrograd's recursive topological sort exceeded Python's recursion limit"


def test_one_exception_with_other_numbers_is_one_cause() -> None:
    """micrograd's deep-graph bug, raised with another recursion limit and depth by the property test
    (plain, and as a flaky replay's group of one) and the 10^6 golden, is one cause shown as first seen;
    an address or line number is blanked too."""
    first = f"{MICROGRAD_DEEP} (2041) on a chain of depth 1990"
    flaky = f'RecursionError("{MICROGRAD_DEEP[16:]} (2067) on a chain of depth 1996") [single exception in X]'
    rows = [
        row_with("S03.rule.deep-graph", failing("t.py::test_p", first), failing("t.py::test_q", flaky)),
        row_with(
            "S03.rule.million", failing("t.py::test_g", f"{MICROGRAD_DEEP} (3000) on a chain of depth 1e6")
        ),
        row_with("A.at", failing("t.py::test_h", "KeyError: <E at 0x7f5d542acf90> at x.py:61, -2.5")),
        row_with("A.at2", failing("t.py::test_i", "KeyError: <E at 0x7f0000000001> at x.py:7, -3")),
    ]
    assert [
        Cause(
            first,
            None,
            ["S03.rule.deep-graph", "S03.rule.million"],
            ["t.py::test_p", "t.py::test_q", "t.py::test_g"],
        ),
        Cause(
            "KeyError: <E at 0x7f5d542acf90> at x.py:61, -2.5",
            None,
            ["A.at", "A.at2"],
            ["t.py::test_h", "t.py::test_i"],
        ),
    ] == causes(rows)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("RuntimeError: matmul backward: 1-D operands", "RuntimeError: matmul backward: 2-D operands"),
        ("KeyError: 'S03.grad.add'", "KeyError: 'S05.grad.add'"),
        ("TypeError: float32 given", "TypeError: float64 given"),
        ("ValueError: x2 is negative", "ValueError: x3 is negative"),
        ("ValueError: depth 3", "OverflowError: depth 3"),
        ("ValueError: depth 3 too deep", "ValueError: depth 3 too shallow"),
        ("RecursionError('a (1)') [single exception in X]", "RecursionError: b (1)"),
        ("E(1) [single exception in X]", "E: 1"),
        ("E('unterminated) [single exception in X]", "E: unterminated"),
    ],
)
def test_genuinely_different_exceptions_stay_apart(one: str, other: str) -> None:
    """Digits inside a name (S03, float32, x2) or a qualifier (1-D), another type or other words keep two
    exceptions apart; a group of one is read as its exception only when it holds one text."""
    rows = [
        row_with("A.one", failing("t.py::test_a", one)),
        row_with("A.two", failing("t.py::test_b", other)),
    ]
    assert [one, other] == [cause.signature for cause in causes(rows)]


def test_assertions_keep_their_numbers() -> None:
    """Two parameters of one test failing one assertion with other numbers are two causes (a wrong mul
    gradient and a wrong add gradient are two bugs); the same numbers are one."""
    rows = [
        row_with("A.mul", failing("t.py::test_g[mul]", "AssertionError: engine gave 3.0, spec says 2.0")),
        row_with("A.add", failing("t.py::test_g[add]", "AssertionError: engine gave 5.0, spec says 1.0")),
        row_with("A.sub", failing("t.py::test_g[sub]", "AssertionError: engine gave 5.0, spec says 1.0")),
    ]
    assert [["A.mul"], ["A.add", "A.sub"]] == [cause.rows for cause in causes(rows)]


CHAINED = """\
t.py:3: in inner
    raise KeyError("k")
E   KeyError: 'k'

The above exception was the direct cause of the following exception:
KeyError: 'bare'

During handling of the above exception, another exception occurred:
t.py:9: in test_x
    raise RuntimeError("outer")
E   RuntimeError: outer
"""


def test_cause_chain_nearest_first_with_bare_causes() -> None:
    """Each earlier exception of the chain, nearest first: its E line, or the bare line of an exception
    raised nowhere (no traceback); a failure without a chain has none."""
    assert ["KeyError: 'bare'", "KeyError: 'k'"] == cause_chain(CHAINED)
    assert [] == cause_chain("E   RuntimeError: outer")
    assert [] == cause_chain(
        "The above exception was the direct cause of the following exception:\n\nE   X: y"
    )
    from types import SimpleNamespace

    crash = SimpleNamespace(reprcrash=SimpleNamespace(message="RuntimeError: outer"))
    expected = "RuntimeError: outer\ncaused by: KeyError: 'bare'\ncaused by: KeyError: 'k'"
    assert expected == crash_message(crash, CHAINED)


# ---------------------------------------------------------------- repro and run settings


def test_repro_command_from_anywhere() -> None:
    """cd to the suite, PYTHONPATH (quoted), the Python, the node id, engine, profile, settings; without
    a suite or a path it is the short form."""
    rerun = Rerun("m:E", "ci", "/s s", ("/a", "/b c"), "/py", ("--contracts-deep-graph-depth", "10"))
    assert (
        "cd '/s s' && PYTHONPATH='/a:/b c' /py -m pytest 't.py::t[x y]' --contracts-impl m:E "
        "--hypothesis-profile=ci --contracts-deep-graph-depth 10"
    ) == rerun.command("t.py::t[x y]")
    assert "pytest t.py::t --contracts-impl m:E --hypothesis-profile=dev" == Rerun("m:E", "dev").command(
        "t.py::t"
    )


def test_a_time_limit_reaches_pytest_as_given() -> None:
    """--timeout " 0.5 " (any finite number above 0, blanks around it) is accepted and reaches pytest as
    --contracts-test-timeout 0.5; no --timeout adds nothing."""
    for accepted in (" 0.5 ", "1e-3", "90", None):
        check_timeout(accepted)
    assert ("--contracts-test-timeout", "0.5") == run_settings(VerifyOptions(timeout=" 0.5 "))
    assert () == run_settings(VerifyOptions(timeout=None))


def test_quick_and_seed_reach_pytest_and_the_repro(tmp_path: Path) -> None:
    """--quick shrinks the deep graph and the statistical samples (and says so), --seed seeds hypothesis;
    all go to the child and to every repro command."""
    options = VerifyOptions(profile="quick", quick=True, seed=3, progress=False)
    settings = (
        "--contracts-deep-graph-depth",
        str(QUICK_DEPTH),
        "--contracts-statistical-samples",
        str(QUICK_SAMPLES),
        "--hypothesis-seed=3",
    )
    assert settings == run_settings(options)
    assert () == run_settings(VerifyOptions())
    command = pytest_command(options, "reference", ROOT, tmp_path / "o.json")
    at = command.index("--contracts-deep-graph-depth")
    assert list(settings) == command[at : at + len(settings)]
    assert (
        "deep-graph chain of 10000 nodes (the spec asks for 10^6), 512 draws per statistical check "
        "(the seed's 4096), hypothesis profile quick"
    ) == quick_note(options)
    assert quick_note(VerifyOptions()) is None
    rerun = rerun_of(options, "reference", ROOT, {"PYTHONPATH": "/a::/b"})
    assert (
        Rerun(
            "reference",
            "quick",
            str(ROOT),
            ("/a", "/b"),
            sys.executable,
            (*settings, "-p", "no:cacheprovider"),
        )
        == rerun
    )
    assert () == rerun_of(VerifyOptions(), "reference", ROOT, {}).pythonpath  # none set: none repeated


def test_module_root_is_where_the_adapter_was_imported_from() -> None:
    """A module's root is its package's parent; a package's __init__ counts one level more; a class
    without a module file has none."""
    src = str(Path(contracts.__file__).resolve().parents[1])
    assert (src, str(ROOT)) == (module_root(ReferenceEngine()), module_root(WrongMulGradient()))
    made = type("Made", (DeclaresNothing,), {"__module__": "no.such.module"})
    assert module_root(made()) is None
    package = type("InInit", (DeclaresNothing,), {"__module__": "contracts"})
    assert src == module_root(package())


# ---------------------------------------------------------------- checks before the run


def test_output_paths_are_checked(tmp_path: Path) -> None:
    """An output must be a file in an existing directory; None is not checked."""
    check_output("-o", str(tmp_path / "new.txt"))
    check_output("-o", None)
    for bad, reason in ((tmp_path, "it is a directory"), (tmp_path / "missing" / "r.txt", "no directory")):
        with pytest.raises(VerifyError) as refused:
            check_output("-o", str(bad))
        assert str(refused.value).startswith(f"-o {bad}: cannot write there ({reason}")


def test_an_unknown_profile_is_a_one_line_error_naming_the_known_ones() -> None:
    """verify accepts the suite's registered profiles and refuses any other name before running."""
    for profile in ("ci", "quick", "mutation", "thorough", "dev", "default"):
        check_profile(profile)
    message = "--hypothesis-profile 'p9' is not one of the suite's profiles: "
    message += "default, dev, ci, mutation, quick, thorough"
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        check_profile("p9")


# ---------------------------------------------------------------- signals


def test_a_signal_during_the_run_raises_and_handlers_are_restored() -> None:
    """Inside signals_interrupt SIGTERM raises VerifyInterruptedError (exit 143); outside, the previous
    handlers are back."""
    message = "^interrupted by SIGTERM: stopped pytest, removed temporary files$"
    installed: list[Any] = []

    def fallback(signum: int, _frame: Any) -> None:  # so a missing handler fails the test, not pytest
        raise LookupError(f"signal {signum} reached the handler in place before the run")

    previous = signal.signal(signal.SIGTERM, fallback)
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)

    def interrupted_run() -> None:
        with signals_interrupt():
            installed.append(signal.getsignal(signal.SIGINT))
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises as soon as the signal arrives

    try:
        with pytest.raises(VerifyInterruptedError, match=message) as raised:
            interrupted_run()
        after = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert [raise_interrupted] == installed
    assert (143, before) == (raised.value.code, after)
    assert 130 == VerifyInterruptedError(signal.SIGINT).code


def test_no_handlers_outside_the_main_thread() -> None:
    """signal handlers can only be set in the main thread: elsewhere the run goes on without them."""
    import threading

    seen: list[Any] = []

    def run() -> None:
        with signals_interrupt():
            seen.append(signal.getsignal(signal.SIGTERM))

    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert [before] == seen


def test_stop_terminates_then_kills() -> None:
    """stop() asks the child to end; one that ignores SIGTERM is killed after the grace period."""
    import subprocess

    import contracts.verify.runner as runner

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    stop(child)
    assert -signal.SIGTERM == child.returncode
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print(1, flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout is not None
    stubborn.stdout.readline()  # the handler is installed
    grace = runner.STOP_GRACE
    runner.STOP_GRACE = 0.2
    try:
        stop(stubborn)
    finally:
        runner.STOP_GRACE = grace
    assert -signal.SIGKILL == stubborn.returncode


# ---------------------------------------------------------------- the test-side helpers


def test_recording_engine_counts_only_adapter_calls() -> None:
    """Adapter methods count; describing attributes (lacks, version, name, capabilities) do not."""
    recording = RecordingEngine(ReferenceEngine())
    assert ("reference", None, None) == (recording.name, recording.version(), recording.lacks("scalar.add"))
    assert "scalar.add" in recording.capabilities
    assert 0 == recording.calls
    assert (2.0, (1.0, 1.0)) == recording.scalar_vjp("add", [1.0, 1.0])
    recording.scalar_chain_grad(3)
    assert 2 == recording.calls


def test_recording_engine_notes_each_module_build_and_each_decline() -> None:
    """A module built is (method, True), a ModuleUnsupported raised is (method, False) and still raised;
    other calls note nothing; builds_in gives each method once, sorted."""
    recording = RecordingEngine(ReferenceEngine())
    recording.scalar_vjp("add", [1.0, 1.0])
    module = recording.module_linear(2, 3, False)
    recording.module_forward(module, np.ones((1, 2)))
    declining = RecordingEngine(DeclinesEveryBuild())
    with pytest.raises(ModuleUnsupported, match=r"^no MLP here$"):
        declining.module_mlp([2, 3], False)
    events = recording.builds + declining.builds
    assert [("module_linear", True), ("module_forward", True), ("module_mlp", False)] == events
    assert {"built": ["module_forward", "module_linear"], "declined": ["module_mlp"]} == builds_in(
        [*events, ("module_linear", True)]
    )


def test_engine_use_counts_only_the_calls_and_builds_of_its_own_test() -> None:
    """The session's recording engine counts on across tests: a test started after others called it
    reads only its own calls and builds (0 for a test that never called it: not exercised)."""
    recording = RecordingEngine(ReferenceEngine())
    recording.scalar_vjp("add", [1.0, 1.0])
    recording.module_linear(2, 3, False)
    idle, busy = EngineUse(recording), EngineUse(recording)
    assert (0, {"built": [], "declined": []}) == (idle.calls(), idle.builds())
    recording.module_linear(2, 3, False)
    recording.scalar_vjp("add", [1.0, 1.0])
    assert (2, {"built": ["module_linear"], "declined": []}) == (busy.calls(), busy.builds())
    assert (0, {"built": [], "declined": []}) == (EngineUse(None).calls(), EngineUse(None).builds())


class ListsForArrays(ReferenceEngine):
    """Returns Python lists where the adapter protocol passes numpy arrays."""

    name = "lists"

    def tensor_vjp(self, op: str, inputs: Any, upstream: Any) -> Any:
        value, grads = super().tensor_vjp(op, inputs, upstream)
        return value, tuple(grad.tolist() for grad in grads)

    def tensor_forward_with(self, op: str, inputs: Any, params: Any) -> Any:
        return super().tensor_forward_with(op, inputs, params).tolist()


def test_an_adapter_handing_back_lists_is_named_at_the_boundary() -> None:
    """Lists where the protocol passes arrays fail at the call, naming the adapter and the method,
    not as an AttributeError deep in a test; arrays, numbers and no-gradient None pass."""
    import numpy as np

    recording = RecordingEngine(ListsForArrays())
    inputs = [np.asarray([1.0, 2.0]), np.asarray([3.0, 4.0])]
    with pytest.raises(
        TypeError, match=r"^lists\.tensor_vjp returned list where the adapter protocol passes"
    ):
        recording.tensor_vjp("add", inputs, np.ones(2))
    with pytest.raises(TypeError, match=r"^lists\.tensor_forward_with returned list where"):
        recording.tensor_forward_with("sum", inputs[:1], {"axis": 0, "keepdims": True})
    reference = RecordingEngine(ReferenceEngine())
    value, grads = reference.tensor_vjp("add", inputs, np.ones(2))
    assert ([4.0, 6.0], 2) == (value.tolist(), len(grads))
    check_protocol_arrays("x", "tensor_grads", (None, np.float64(1.0), 2.0, np.ones(1)))  # no raise
    with pytest.raises(TypeError, match=r"^x\.tensor_grads returned bool where"):
        check_protocol_arrays("x", "tensor_grads", (True,))
    with pytest.raises(TypeError, match=r"^x\.tensor_vjp_with returned list where"):
        check_protocol_arrays("x", "tensor_vjp_with", [np.ones(1), (np.ones(1),)])
    check_protocol_arrays("x", "tensor_forward_with", np.ones(2, dtype=np.float32))  # a float32 engine's
    for dtype in (object, np.int64, np.bool_, np.complex128):
        message = f"^x\\.tensor_forward_with returned an array of {np.dtype(dtype)} where the adapter"
        with pytest.raises(TypeError, match=message):
            check_protocol_arrays("x", "tensor_forward_with", np.ones(2, dtype=dtype))


# Every adapter method whose result the protocol says holds arrays (contracts.engines.base), with a
# result of that shape whose one array is an object array: each must be refused at the boundary.
OBJECTS = np.ones(2, dtype=object)
BAD_PROTOCOL_RESULTS = [
    pytest.param("tensor_vjp", (np.ones(2), (OBJECTS,)), id="tensor_vjp"),
    pytest.param("tensor_vjp_with", (OBJECTS, (np.ones(2),)), id="tensor_vjp_with"),
    pytest.param("tensor_program_vjp", (np.ones(2), (np.ones(2), OBJECTS)), id="tensor_program_vjp"),
    pytest.param("tensor_grads", (None, OBJECTS), id="tensor_grads"),
    pytest.param("tensor_forward_with", OBJECTS, id="tensor_forward_with"),
    pytest.param("tensor_from_data", OBJECTS, id="tensor_from_data"),
    pytest.param("module_forward", OBJECTS, id="module_forward"),
    pytest.param("module_norm_forward", OBJECTS, id="module_norm_forward"),
    pytest.param("module_state", {"fc1.weight": np.ones(2), "fc1.bias": OBJECTS}, id="module_state"),
]


@pytest.mark.parametrize(("method", "result"), BAD_PROTOCOL_RESULTS)
def test_every_array_method_refuses_an_object_array(method: str, result: Any) -> None:
    """An object array anywhere in an array method's result is refused, naming the method (an object
    array compares by its elements' values, so a wrong engine could pass every comparison)."""
    with pytest.raises(TypeError, match=f"^x\\.{method} returned an array of object where"):
        check_protocol_arrays("x", method, result)


def control(kind: str) -> None:
    """Raise the harness-control exception of the kind, as an engine method might."""
    if kind == "skip":
        pytest.skip("not applicable: the engine prefers not to")
    if kind == "xfail":
        pytest.xfail("known")
    if kind == "exit":
        pytest.exit("enough", returncode=0)
    if kind == "unittest-skip":
        raise unittest.SkipTest("not applicable: the engine says so")  # pytest skips on it, as unittest
    raise UnsatisfiedAssumption  # what hypothesis's assume(False) and reject() raise inside a test


class SteersTheHarness(ReferenceEngine):
    """scalar_vjp raises the harness-control exception named by its first input's kind."""

    name = "steers"

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def scalar_vjp(self, op: str, inputs: Any, constants: Any = None) -> Any:
        control(self.kind)
        return super().scalar_vjp(op, inputs, constants)


@pytest.mark.parametrize("kind", ["skip", "xfail", "exit", "assume", "unittest-skip"])
def test_an_engine_call_cannot_skip_discard_or_end_its_test(kind: str) -> None:
    """pytest.skip or unittest.SkipTest (a self-declared 'not applicable'), xfail, exit and hypothesis's
    assume raised inside an engine call become the test's failure, naming the engine, the method and
    what it raised."""
    recording = RecordingEngine(SteersTheHarness(kind))
    # caught as any BaseException: a control exception that escaped would skip or end this very test,
    # which then passes for a guard that did nothing
    with pytest.raises(BaseException) as raised:  # noqa: PT011 (the type is asserted next)
        recording.scalar_vjp("add", [1.0, 2.0])
    assert HarnessControlError is type(raised.value), repr(raised.value)
    assert re.match(r"^steers\.scalar_vjp raised \w+\(.*\): an engine cannot", str(raised.value))
    assert issubclass(HarnessControlError, AssertionError)  # a failure, not an error of the suite


def test_only_the_reference_itself_is_the_reference() -> None:
    """A subclass of the reference (a broken adapter) is another engine, wrapped or not."""
    assert (True, True, False, False) == (
        is_reference(ReferenceEngine()),
        is_reference(RecordingEngine(ReferenceEngine())),
        is_reference(WrongMulGradient()),
        is_reference(RecordingEngine(WrongMulGradient())),
    )
    engine = WrongMulGradient()
    assert (engine, engine) == (unwrap(engine), unwrap(RecordingEngine(engine)))


def test_engine_results_are_labelled_the_right_way_round() -> None:
    """Within tolerance nothing happens; otherwise the message names the engine's value first, then the
    spec's, with the place and the tolerance; arrays show as lists."""
    import numpy as np

    assert_engine_gives(1.0, 1.0 + 1e-13, rel=1e-12)
    assert_engine_gives(np.array([1.0, 2.0]), np.array([1.0, 2.0]), rel=0)
    with pytest.raises(
        AssertionError,
        match=r"^grad: engine gave \[2\.0, 1\.0\], spec says \[1\.0, 2\.0\] \(rel=0, abs=0\.5\)$",
    ):
        assert_engine_gives(np.array([1.0, 2.0]), np.array([2.0, 1.0]), rel=0, abs=0.5, what="grad")
    with pytest.raises(AssertionError, match=r"^engine gave 3, numpy says 1 \(rel=0\.1, abs=0\.0\)$"):
        assert_engine_gives(1, 3, rel=0.1, source="numpy")


def test_report_of_nothing_verified_fails() -> None:
    """A report whose rows were all n/a (or none ran) has the 'nothing verified' problem and exit 1;
    one passed or failed row is enough to have verified something."""
    na = RowResult("A.x", "t", "rule", "A", "not applicable", ["why"], {}, [])
    ok = RowResult("A.y", "t", "rule", "A", "passed", [], {}, [])

    def report(rows: list[RowResult]) -> Report:
        return Report({}, "s", "ci", 0, {}, rows, [], {}, [], 0, 0.0)

    partly = RowResult("A.z", "t", "rule", "A", "partly verified", ["lacks x"], {}, [])
    assert (1, False, 0, True, 0) == (
        report([na]).exit_code(),
        report([na]).verified_any(),
        report([na, ok]).exit_code(),
        report([ok]).verified_any(),
        report([na, partly]).exit_code(),
    )
    assert [NOTHING_VERIFIED] == report([na]).problems()


def test_an_interrupted_run_stops_its_child(tmp_path: Path) -> None:
    """SIGTERM while run_pytest waits: VerifyInterruptedError, and the child is stopped before it returns."""
    import threading

    from contracts.verify.runner import run_pytest

    pid_file = tmp_path / "pid"
    script = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"

    def interrupt_when_started() -> None:
        for _ in range(600):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    timer = threading.Thread(target=interrupt_when_started)
    timer.start()
    with pytest.raises(VerifyInterruptedError, match=r"^interrupted by SIGTERM"):
        run_pytest(
            [sys.executable, "-c", script], ROOT, tmp_path / "o.json", tmp_path / "log", progress=False
        )
    timer.join()
    child = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)  # stopped and reaped


def test_cause_lines_in_full() -> None:
    """The table's cause block, whole: an exception shared by two rows and two tests (no test function),
    then an assertion in one test function."""
    from contracts.verify.formats import cause_lines

    boom = "RuntimeError: boom"
    rows = [
        row_with("A.one", failing("t.py::test_a", boom)),
        row_with("A.two", failing("t.py::test_b", boom), failing("t.py::test_c[x]", "assert 1 == 2")),
    ]
    report = Report({}, "s", "ci", 0, {}, rows, [], {}, [], 1, 0.0)
    assert [
        "failing rows by cause: 2 rows, 2 causes",
        "  cause 1: RuntimeError: boom",
        "    2 rows: A.one, A.two",
        "    2 tests: t.py::test_a, t.py::test_b",
        "  cause 2 in t.py::test_c: assert 1 == 2",
        "    1 row: A.two",
        "    1 test: t.py::test_c[x]",
    ] == cause_lines(report, "  ")

"""`contracts verify` tells the truth about the engine it verifies: a spec test either runs the engine or
is declared reference-only; an engine that declares nothing verifies nothing (exit 1); failures are
grouped by cause, labelled the right way round, with their cause chain and a repro that works from
any directory; a run that cannot start says so in one line (exit 2); SIGTERM stops pytest cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import contracts
from contracts.cli.commands import main
from contracts.verify.report import NOTHING_VERIFIED, UNRECORDED_FAILURE
from tests.common.paths import REPORT_SCHEMA, SUITE
from tests.common.processes import ended_within
from tests.common.verify_runs import NO_SHRINKING, Run, run_verify

ROOT = Path(__file__).resolve().parents[2]
SRC = str(Path(contracts.__file__).resolve().parents[1])
SCHEMA = REPORT_SCHEMA
BROKEN = "tests.common.broken_engines"


# Runs in a child process see the installed package, never mutmut's mutants: under mutmut (which sets
# MUTANT_UNDER_TEST) they would cost seconds per mutant for nothing. The checks before a run need no
# child, so they run under mutmut too.
def skip_under_mutmut() -> None:
    if "MUTANT_UNDER_TEST" in os.environ:
        pytest.skip("end to end: children see no mutant")


def children(test: Any) -> Any:
    """A test that runs verify in child processes: an engine run, skipped under mutmut."""
    skipped = pytest.mark.skipif(
        "MUTANT_UNDER_TEST" in os.environ, reason="end to end: children see no mutant"
    )
    return pytest.mark.engine_run(skipped(test))


# ---------------------------------------------------------------- static: every spec test is honest

COLLECTOR = """
import json, os
def pytest_collection_finish(session):
    found = {}
    for item in session.items:
        marker = item.get_closest_marker("reference_only")
        found[item.nodeid] = {
            "spec": sorted({str(i) for mark in item.iter_markers("spec") for i in mark.args}),
            "reference_only": None if marker is None else str(marker.args[0]),
            "engine": "engine" in getattr(item, "fixturenames", ()),
        }
    with open(os.environ["CONTRACTS_ENGINE_USE_OUT"], "w", encoding="utf-8") as out:
        json.dump(found, out)
"""


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    skip_under_mutmut()
    scratch = tmp_path_factory.mktemp("engine-use")
    (scratch / "engine_use_collector.py").write_text(COLLECTOR, encoding="utf-8")
    out = scratch / "use.json"
    env = {
        **os.environ,
        "CONTRACTS_ENGINE_USE_OUT": str(out),
        "PYTHONPATH": os.pathsep.join([str(scratch), SRC, str(ROOT)]),
    }
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "engine_use_collector"]
    result = subprocess.run(
        [*command, "properties", "golden"], cwd=SUITE, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    found: dict[str, dict[str, Any]] = json.loads(out.read_text(encoding="utf-8"))
    return found


def test_every_spec_test_runs_the_engine_or_is_reference_only(collected: dict[str, dict[str, Any]]) -> None:
    """No spec-marked test in tests/properties or tests/golden can pass without the engine fixture
    unless it is declared reference-only (then it is n/a on every other engine)."""
    spec_tests = {nodeid: use for nodeid, use in collected.items() if use["spec"]}
    assert len(spec_tests) > 300  # the collection really saw the suite
    assert [] == [
        nodeid for nodeid, use in spec_tests.items() if not use["engine"] and use["reference_only"] is None
    ]


def test_reference_only_tests_give_a_reason(collected: dict[str, dict[str, Any]]) -> None:
    """Every reference-only marker names why the test cannot speak for another engine."""
    reasons = {use["reference_only"] for use in collected.values() if use["reference_only"] is not None}
    assert reasons
    assert [] == [reason for reason in reasons if len(reason) < 20]


# ---------------------------------------------------------------- end to end runs

OUTSIDE_ADAPTER = '''
from contracts.engines.reference import ReferenceEngine


class SwappedMul(ReferenceEngine):
    """Written outside the repository: mul's gradients swapped."""

    name = "outside-swapped-mul"

    def scalar_vjp(self, op, inputs, constants=None):
        value, grads = super().scalar_vjp(op, inputs, constants)
        return (value, (float(inputs[0]), float(inputs[1]))) if op == "mul" else (value, grads)
'''


RUNS: dict[str, list[str]] = {
    "nothing": ["--impl", f"{BROKEN}:DeclaresNothing"],
    "copy": ["--impl", f"{BROKEN}:ReferenceCopy", "--quick", "--rows", "S03,S05.cost,T.grad.add,T.rule"],
    "matmul-1d": [
        "--impl",
        f"{BROKEN}:MatmulFailsOnVectors",
        "--quick",
        "--rows",
        "T.grad.matmul,T.rule.matmul-promotion,T.rule.backward-seed,T.rule.broadcast-reduction",
        *NO_SHRINKING,
    ],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    skip_under_mutmut()
    scratch = tmp_path_factory.mktemp("honesty")
    with ThreadPoolExecutor(max_workers=len(RUNS)) as pool:
        futures = {
            name: pool.submit(run_verify, arguments, scratch / f"{name}.json")
            for name, arguments in RUNS.items()
        }
        return {name: future.result(timeout=600) for name, future in futures.items()}


def valid(report: dict[str, Any] | None) -> list[str]:
    return [error.message for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(report)]


@children
def test_an_engine_that_declares_nothing_verifies_nothing(runs: dict[str, Run]) -> None:
    """No capability, no method: 0 rows passed or partly verified, every row n/a, exit 1 with the reason."""
    code, report = runs["nothing"].code, runs["nothing"].report
    assert 1 == code
    assert report is not None
    assert [] == valid(report)
    by_status = report["summary"]["by_status"]
    assert (0, 0, 0, report["summary"]["rows"]) == (
        by_status["passed"],
        by_status["partly verified"],
        by_status["not exercised"],
        by_status["not applicable"],
    )
    assert [NOTHING_VERIFIED] == report["problems"]


@children
def test_each_passing_test_of_another_engine_called_it(runs: dict[str, Run]) -> None:
    """On a non-reference engine with every capability, every passing spec test called the engine at
    least once, reference-only tests are n/a, and no row is reported not exercised."""
    code, report = runs["copy"].code, runs["copy"].report
    assert report is not None
    assert [] == valid(report)
    tests = [test for row in report["rows"] for test in row["tests"]]
    passed = [test for test in tests if test["outcome"] == "passed"]
    assert len(passed) > 20
    assert [] == [test["nodeid"] for test in passed if not test["engine_calls"]]
    assert [] == [
        test["nodeid"]
        for test in tests
        if test["reference_only"] is not None and test["outcome"] != "not applicable"
    ]
    statuses = {row["id"]: row["status"] for row in report["rows"]}
    # a row's reference-only tests are not another engine's checks: they count in its coverage only
    coverage = next(row["coverage"] for row in report["rows"] if row["id"] == "S03.grad.mul")
    assert ("not applicable", "passed") == (statuses["S05.cost.matmul"], statuses["S03.grad.mul"])
    assert 0 < coverage["engine"] < coverage["total"]
    accepted = ("passed", "partly verified", "not applicable")
    assert [] == [row_id for row_id, status in statuses.items() if status not in accepted]
    assert 0 == code
    assert "deep-graph chain of 10000 nodes" in report["selection"]["quick"]


@children
def test_one_engine_bug_seen_by_four_rows_is_one_cause(runs: dict[str, Run]) -> None:
    """A 1-D matmul crash fails four rows; the report groups them under one cause whose message
    carries the wrapped exception (the cause chain)."""
    code, report = runs["matmul-1d"].code, runs["matmul-1d"].report
    assert 1 == code
    assert report is not None
    assert [] == valid(report)
    signature = "RuntimeError: matmul backward: 1-D operands are not supported"
    root = "KeyError: 'no promotion rule for a 1-D operand'"  # the engine's own error beneath it
    shared = [cause for cause in report["causes"] if cause["signature"] == root]
    assert 1 == len(shared)
    assert signature == shared[0]["raised_as"]
    assert {
        "T.grad.matmul",
        "T.rule.matmul-promotion",
        "T.rule.backward-seed",
        "T.rule.broadcast-reduction",
    } == set(shared[0]["rows"])
    failing = [t for row in report["rows"] for t in row["tests"] if t["outcome"] == "failed"]
    messages = [t["message"] for t in failing if t["message"].startswith(signature)]
    assert messages
    assert all("caused by: KeyError: 'no promotion rule for a 1-D operand'" in m for m in messages)


@children
def test_table_reads_rows_and_causes(runs: dict[str, Run], tmp_path: Path) -> None:
    """The table and markdown reports say 'N rows, 1 cause' for the shared failure."""
    code = main(
        [
            "verify",
            "-q",
            "--impl",
            f"{BROKEN}:MatmulFailsOnVectors",
            "--quick",
            "--rows",
            "T.rule.matmul-promotion,T.rule.backward-seed",
            "-k",
            "matmul",
            *NO_SHRINKING,
            "-o",
            str(tmp_path / "r.txt"),
        ]
    )
    text = (tmp_path / "r.txt").read_text(encoding="utf-8")
    assert 1 == code
    assert "failing rows by cause: 2 rows, 1 cause" in text
    assert "cause 1: KeyError: 'no promotion rule for a 1-D operand'" in text


@children
def test_wrong_gradient_is_labelled_engine_gave_spec_says(tmp_path: Path) -> None:
    """A wrong mul gradient reads 'engine gave <engine's>, spec says <spec's>', not pytest's reversed
    Obtained/Expected."""
    run = run_verify(
        ["--impl", f"{BROKEN}:WrongMulGradient", "--rows", "S03.grad.mul", "-k", "test_gradient_example"],
        tmp_path / "r.json",
    )
    code, report = run.code, run.report
    assert report is not None
    assert 1 == code
    messages = [t["message"] for row in report["rows"] for t in row["tests"] if t["outcome"] == "failed"]
    # the golden case a = 3, b = -4: d(ab)/da = b = -4, the broken engine reports a = 3
    assert ["gradients: engine gave (3.0, -4.0), the example says (-4.0, 3.0) (rel=1e-12, abs=0.0)"] == [
        m.removeprefix("AssertionError: ") for m in messages
    ]


@children
def test_repro_of_an_out_of_tree_adapter_works_from_another_directory(tmp_path: Path) -> None:
    """verify run beside an adapter outside the repository prints a repro that, pasted into a shell in
    an unrelated directory without PYTHONPATH, reruns the failing test and fails it again."""
    adapters, elsewhere = tmp_path / "adapters", tmp_path / "elsewhere"
    adapters.mkdir()
    elsewhere.mkdir()
    (adapters / "outside_adapter.py").write_text(OUTSIDE_ADAPTER, encoding="utf-8")
    out = adapters / "report.json"
    env = {**os.environ, "PYTHONPATH": SRC}
    command = [sys.executable, "-m", "contracts.cli", "verify", "-q"]
    command += ["--impl", "outside_adapter:SwappedMul", "--rows", "S03.grad.mul", "-k", "golden"]
    result = subprocess.run(
        [*command, "--format", "json", "-o", str(out)], cwd=adapters, env=env, capture_output=True, text=True
    )
    assert 1 == result.returncode, result.stderr[-2000:]
    report = json.loads(out.read_text(encoding="utf-8"))
    (repro,) = [t["repro"] for row in report["rows"] for t in row["tests"] if t["repro"]]
    assert repro.startswith(f"cd {SUITE} && PYTHONPATH=")
    clean = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    again = subprocess.run(repro, shell=True, cwd=elsewhere, env=clean, capture_output=True, text=True)
    assert 1 == again.returncode, again.stdout[-2000:] + again.stderr[-2000:]
    assert "1 failed" in again.stdout
    assert "engine gave" in again.stdout


# ---------------------------------------------------------------- could not start: exit 2, one line

EXITS_ON_IMPORT = "import sys\nsys.exit(0)\n"
# Adapters whose constructor ends the process (as a native library's exit() would), raises an exception
# that is not an Exception, or prints: each module defines Engine.
ODD_ADAPTERS = {
    "ends_process": "import os\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n    def __init__(self):\n        os._exit(0)\n",
    "odd_raise": "from contracts.engines.reference import ReferenceEngine\n\n\nclass Weird(BaseException):\n"
    "    pass\n\n\nclass Engine(ReferenceEngine):\n    def __init__(self):\n        raise Weird('odd')\n",
    # an adapter written against a release whose module moved: its own import fails, it is no unknown name
    "moved_module": "import no_such_moved_module_of_the_engine  # noqa: F401\n",
    "prints": "from contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n    def __init__(self):\n        print('hello from the engine')\n",
}
# Adapters whose declarations raise when read, or are not plain data: each module defines Engine.
BAD_DECLARATIONS = {
    "raising_capabilities": "@property\n    def capabilities(self):\n        raise RuntimeError('no caps')",
    "raising_version": "def version(self):\n        raise LookupError('no adapter package')",
    "interrupting_name": "@property\n    def name(self):\n        raise KeyboardInterrupt",
    "object_version": "def version(self):\n        return object()",
    "misspelt_capability": "capabilities = frozenset({'scalar.mull'})",
}
for _module, _body in BAD_DECLARATIONS.items():
    ODD_ADAPTERS[_module] = (
        "from contracts.engines.reference import ReferenceEngine\n\n\nclass Engine(ReferenceEngine):\n"
        f"    {_body}\n"
    )
DECLARATIONS_RAISED = "reading its declarations (name, capabilities, conventions, dtype, version()) raised"


@pytest.mark.usefixtures("suite_never_starts")
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        pytest.param(["--impl", ""], "--impl is empty", id="empty-impl"),
        pytest.param(["--rows", "S99,X1"], "--rows S99,X1: no spec row id starts with", id="no-row-matches"),
        pytest.param(["--rows", " , "], "--rows ' , ': names no row id prefix (blank)", id="blank-rows"),
        pytest.param(["--rows", ""], "--rows '': names no row id prefix (blank)", id="empty-rows"),
        pytest.param(
            ["--impl", f"{BROKEN}:ConstructorFails"],
            "could not start engine 'tests.common.broken_engines:ConstructorFails': its import or "
            "constructor raised RuntimeError: no device available",
            id="constructor-raises",
        ),
        pytest.param(["--impl", "exits_on_import:Engine"], "raised SystemExit: 0", id="exit-on-import"),
        pytest.param(["--impl", "odd_raise:Engine"], "constructor raised Weird: odd", id="base-exception"),
        pytest.param(
            ["--impl", "moved_module:Engine"],
            "could not start engine 'moved_module:Engine': its import or constructor raised "
            "ModuleNotFoundError: No module named 'no_such_moved_module_of_the_engine'",
            id="adapter-import-fails",
        ),
        pytest.param(
            ["--impl", "no_such_adapter_module:Engine"],
            "unknown engine 'no_such_adapter_module:Engine' (ModuleNotFoundError: No module named",
            id="unknown-module",
        ),
        pytest.param(
            ["--impl", "tests.common.dtype_engines:UnknownCase"],
            "--impl tests.common.dtype_engines:UnknownCase: unknown-case: conventions key 'T.rule.tie[sum]': "
            "row T.rule.tie has no case 'sum' (its cases: maximum, relu)",
            id="unknown-convention-case",
        ),
        pytest.param(
            ["--impl", "tests.common.dtype_engines:UnknownDtype"],
            "unknown-dtype: dtype 'bfloat16' is not one of float64, float32",
            id="unknown-dtype",
        ),
        pytest.param(
            ["--impl", "raising_capabilities:Engine"],
            f"--impl raising_capabilities:Engine: {DECLARATIONS_RAISED} RuntimeError: no caps",
            id="capabilities-raise",
        ),
        pytest.param(
            ["--impl", "raising_version:Engine"],
            f"--impl raising_version:Engine: {DECLARATIONS_RAISED} LookupError: no adapter package",
            id="version-raises",
        ),
        pytest.param(
            ["--impl", "interrupting_name:Engine"],
            f"--impl interrupting_name:Engine: {DECLARATIONS_RAISED} KeyboardInterrupt: ",
            id="name-interrupts",
        ),
        pytest.param(
            ["--impl", "object_version:Engine"],
            f"{DECLARATIONS_RAISED} TypeError: Object of type object is not JSON serializable",
            id="version-not-data",
        ),
        pytest.param(
            ["--impl", "misspelt_capability:Engine"],
            "capabilities names unknown capabilities ['scalar.mull']",
            id="misspelt-capability",
        ),
        pytest.param(["-o", "/no/such/dir/r.txt"], "--output /no/such/dir/r.txt: cannot write", id="output"),
        pytest.param(["--pytest-log", "."], "--pytest-log .: cannot write there", id="pytest-log"),
        pytest.param(
            ["--hypothesis-profile", "fastest"], "'fastest' is not one of the suite's profiles", id="profile"
        ),
        pytest.param(["-n", "-1"], "-n '-1': must be a number of workers", id="negative-workers"),
        pytest.param(["-n", "two"], "-n 'two': must be a number of workers", id="worded-workers"),
        pytest.param(
            ["--timeout", "0"], "--timeout '0': must be a number of seconds above 0", id="zero-timeout"
        ),
        pytest.param(["--timeout", "-3"], "--timeout '-3': must be a number", id="negative-timeout"),
        pytest.param(["--timeout", "nan"], "--timeout 'nan': must be a number", id="nan-timeout"),
        pytest.param(["--timeout", "inf"], "--timeout 'inf': must be a number", id="endless-timeout"),
        pytest.param(["--timeout", "soon"], "--timeout 'soon': must be a number", id="worded-timeout"),
        pytest.param(["--timeout", "1e300"], "--timeout '1e300': must be a number", id="absurd-timeout"),
        pytest.param(
            ["-n", "99999999999999999999"], "-n '99999999999999999999': must be a number", id="absurd-workers"
        ),
        pytest.param(["-k", "("], "-k '(': not a pytest match expression", id="unparsable-keyword"),
    ],
)
def test_verify_that_cannot_start_says_why_in_one_line(
    arguments: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each bad start exits 2 with one line naming the problem, before any test runs (no traceback)."""
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the probe child imports tests.meta's adapters from here
    (tmp_path / "exits_on_import.py").write_text(EXITS_ON_IMPORT, encoding="utf-8")
    for module, text in ODD_ADAPTERS.items():
        (tmp_path / f"{module}.py").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["verify", "-q", *arguments])
    err = capsys.readouterr().err
    assert (2, 1) == (code, len(err.strip().splitlines())), err
    assert message in err


def test_an_adapter_that_ends_the_process_while_loading_cannot_end_verify(tmp_path: Path) -> None:
    """A constructor calling os._exit(0) (as a native library's exit() would) is exit 2 with one line,
    never exit 0 with no report. verify runs as a child here: in this process the broken guard would
    end the test session itself with code 0."""
    (tmp_path / "ends_process.py").write_text(ODD_ADAPTERS["ends_process"], encoding="utf-8")
    command = "from contracts.cli.commands import main; raise SystemExit(main())"
    arguments = ["verify", "-q", "--impl", "ends_process:Engine"]
    done = subprocess.run(
        [sys.executable, "-c", command, *arguments], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    message = (
        "contracts verify: error: could not start engine 'ends_process:Engine': loading it ended the "
        "process (exit code 0) before the engine was made"
    )
    assert (2, "", [message]) == (done.returncode, done.stdout, done.stderr.splitlines())


def test_the_probe_sees_a_load_that_ends_its_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """resolve_engine runs only the child: one that loading ends is a VerifyError (exit 2) naming its
    exit code; a constructor raising KeyboardInterrupt is a load error too (a user's Ctrl-C interrupts
    verify's own process, not only the child)."""
    from contracts.verify import runner

    (tmp_path / "ends_process.py").write_text(ODD_ADAPTERS["ends_process"], encoding="utf-8")
    (tmp_path / "interrupts.py").write_text(
        ODD_ADAPTERS["odd_raise"].replace("raise Weird('odd')", "raise KeyboardInterrupt"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    message = "could not start engine 'ends_process:Engine': loading it ended the process (exit code 0) "
    with pytest.raises(
        runner.VerifyError, match=f"^{re.escape(message)}before the engine was made$"
    ) as raised:
        runner.resolve_engine("ends_process:Engine")
    assert 2 == raised.value.code
    message = "could not start engine 'interrupts:Engine': its import or constructor raised KeyboardInterrupt"
    with pytest.raises(runner.VerifyError, match=f"^{re.escape(message)}: $"):
        runner.resolve_engine("interrupts:Engine")


def test_an_adapter_that_prints_leaves_the_report_on_stdout_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A constructor's print goes to stderr: stdout holds the JSON report alone (a CI job parses it)."""
    (tmp_path / "prints.py").write_text(ODD_ADAPTERS["prints"], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    arguments = ["--impl", "prints:Engine", "--rows", "S03.grad.add", "--format", "json"]
    code = main(["verify", "-q", *arguments])
    captured = capfd.readouterr()
    assert (0, "prints:Engine") == (code, json.loads(captured.out)["engine"]["impl"])
    assert "hello from the engine" in captured.err


def test_the_probe_marks_a_load_that_returned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """contracts.verify.probe NAME SUITE OUT (its command line, or arguments) writes OUT when loading
    returned, raised or not: the declarations, or the error's one line; the adapter's prints go to stderr."""
    from contracts.verify import probe

    (tmp_path / "prints.py").write_text(ODD_ADAPTERS["prints"], encoding="utf-8")
    (tmp_path / "odd_raise.py").write_text(ODD_ADAPTERS["odd_raise"], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # as `python -m` puts the current directory first
    for module in ("prints", "odd_raise"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(sys, "argv", ["probe", "prints:Engine", str(tmp_path / "by-argv")])
    assert 0 == probe.main()
    assert 0 == probe.main(["odd_raise:Engine", str(tmp_path / "by-arguments")])
    captured = capsys.readouterr()
    assert ("", "hello from the engine\n") == (captured.out, captured.err)
    declared = json.loads((tmp_path / "by-argv").read_text(encoding="utf-8"))
    assert ("prints:Engine", str(tmp_path)) == (declared["engine"]["impl"], declared["module_root"])
    error = "could not start engine 'odd_raise:Engine': its import or constructor raised Weird: odd"
    assert {"error": error} == json.loads((tmp_path / "by-arguments").read_text(encoding="utf-8"))


SLOW_ADAPTER = """
import os, time
from contracts.engines.reference import ReferenceEngine


class Slow(ReferenceEngine):
    name = "slow"

    def scalar_vjp(self, op, inputs, constants=None):
        with open(os.environ["SLOW_PID_FILE"], "w") as out:
            out.write(str(os.getpid()))
        time.sleep(600)
        return super().scalar_vjp(op, inputs, constants)
"""


@children
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_pytest_and_removes_temporary_files(tmp_path: Path, signum: int) -> None:
    """SIGTERM or SIGINT to verify while a test runs: pytest is stopped, the temporary directory is
    gone, and verify exits 128 + the signal with a one-line message."""
    (tmp_path / "slow_adapter.py").write_text(SLOW_ADAPTER, encoding="utf-8")
    temp = tmp_path / "tmp"
    temp.mkdir()
    pid_file = tmp_path / "pid"
    env = {**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(temp), "SLOW_PID_FILE": str(pid_file)}
    command = [sys.executable, "-m", "contracts.cli", "verify", "-q"]
    command += ["--impl", "slow_adapter:Slow", "--rows", "S03.grad.add", "-k", "golden"]
    verify = subprocess.Popen(command, cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline and verify.poll() is None:
        time.sleep(0.1)
    assert pid_file.exists()
    child = int(pid_file.read_text())
    verify.send_signal(signum)
    _, err = verify.communicate(timeout=60)
    assert 128 + signum == verify.returncode
    assert f"interrupted by {signal.Signals(signum).name}" in err
    assert 1 == len(err.strip().splitlines())
    assert ended_within(child, seconds=10)
    assert [] == list(temp.iterdir())


# ---------------------------------------------------------------- goldens with teeth


def broadcast_examples() -> list[tuple[str, dict[str, Any]]]:
    """Tensor examples whose gradient is reduced: operands of different shapes (broadcast, batch axes,
    1-D promotion), with an upstream of more than one element."""
    import numpy as np

    from contracts.spec_suite.spec_rows import rows

    found = []
    for spec_row in rows(stage="T"):
        for example in spec_row.get("examples", ()):
            shapes = {np.shape(x) for x in example.get("inputs", ())}
            if len(shapes) > 1 and np.size(example.get("upstream", 0.0)) > 1:
                found.append((spec_row.id, example))
    return found


def test_every_reduction_golden_has_a_non_uniform_upstream() -> None:
    """Summing the wrong axes (or spreading the total evenly) changes a reduced golden's answer: its
    upstream gradient holds distinct values, never all ones."""
    import numpy as np

    found = broadcast_examples()
    assert {"T.grad.add", "T.grad.multiply", "T.rule.broadcast-reduction", "T.rule.matmul-promotion"} <= {
        row_id for row_id, _ in found
    }
    repeated = [
        (row_id, example["upstream"])
        for row_id, example in found
        if len(set(np.ravel(example["upstream"]).tolist())) != np.size(example["upstream"])
    ]
    assert [] == repeated


# Adapters with wrong gradients (every scalar VJP + 1) that grade themselves: the constructor patches
# verify's row verdicts, or the recorder's outcome of each test, to "passed".
SELF_GRADING = """
from contracts.engines.reference import ReferenceEngine
import contracts.verify.plugin
import contracts.verify.report


class Engine(ReferenceEngine):
    name = "self-grading"

    def __init__(self):
        {patch}

    def scalar_vjp(self, op, inputs, constants=None):
        value, grads = super().scalar_vjp(op, inputs, constants)
        return value, tuple(grad + 1.0 for grad in grads)
"""
PATCHES = {
    "report": "contracts.verify.report.row_status = lambda outcomes, deselection=False: 'passed'",
    "records": "contracts.verify.plugin.phase_outcome = lambda when, outcome, reason: 'passed'",
}


@children
@pytest.mark.parametrize("patched", sorted(PATCHES))
def test_an_adapter_that_grades_itself_is_not_green(
    patched: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An adapter patching verify's row verdicts never reaches them (verify's process runs no adapter
    code): its wrong gradients fail the row. One patching the recorder in the suite's process records
    every test passed, but pytest's own exit code disagrees: a problem line, exit 1, never green."""
    (tmp_path / "grades.py").write_text(SELF_GRADING.format(patch=PATCHES[patched]), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    arguments = ["--impl", "grades:Engine", "--rows", "S03.grad.add", "--format", "json"]
    code = main(["verify", "-q", *arguments])
    report = json.loads(capfd.readouterr().out)
    status = report["rows"][0]["status"]
    expected = ("failed", []) if patched == "report" else ("passed", [UNRECORDED_FAILURE])
    unrecorded = [line for line in report["problems"] if line == UNRECORDED_FAILURE]
    assert (1, "S03.grad.add", *expected) == (code, report["rows"][0]["id"], status, unrecorded)


SLOW_LOADS = {
    # the constructor never returns; a non-daemon thread outlives the constructor that started it
    "sleeps": "import time\n\n\nclass Engine(ReferenceEngine):\n    def __init__(self):\n"
    "        time.sleep(600)\n",
    "threads": "import threading, time\n\n\nclass Engine(ReferenceEngine):\n    def __init__(self):\n"
    "        threading.Thread(target=time.sleep, args=(600,)).start()\n",
}


def test_a_load_that_never_ends_is_one_verify_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A constructor that sleeps past the load limit is a VerifyError naming the limit (the probe child
    killed); one that leaves a non-daemon thread running still loads, and the probe ends at once."""
    from contracts.verify import runner

    for module, body in SLOW_LOADS.items():
        source = f"from contracts.engines.reference import ReferenceEngine\n{body}"
        (tmp_path / f"{module}.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "LOAD_LIMIT", 20.0)
    assert "threads:Engine" == runner.resolve_engine("threads:Engine")["engine"]["impl"]
    monkeypatch.setattr(runner, "LOAD_LIMIT", 1.5)
    message = "could not start engine 'sleeps:Engine': loading it did not finish within 1.5 s"
    with pytest.raises(runner.VerifyError, match=f"^{re.escape(message)}$"):
        runner.resolve_engine("sleeps:Engine")


SKIPS_ITSELF = (
    "import pytest\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n"
    "    def scalar_vjp(self, op, inputs, constants=None):\n"
    "        pytest.skip('not applicable: the engine prefers not to be tested')\n"
)


@children
def test_an_engine_that_skips_its_own_tests_fails_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An engine calling pytest.skip('not applicable: ...') from inside an engine call does not make its
    row "not applicable" (a green run on rows it never answered): the row fails, exit 1."""
    (tmp_path / "skips.py").write_text(SKIPS_ITSELF, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    arguments = ["--impl", "skips:Engine", "--rows", "S03.grad.add", "--format", "json"]
    code = main(["verify", "-q", *arguments])
    report = json.loads(capfd.readouterr().out)
    assert (1, ["S03.grad.add"], "failed") == (
        code,
        [r["id"] for r in report["rows"]],
        report["rows"][0]["status"],
    )


DISARMS_THE_ALARM = (
    "import signal, time\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n"
    "    def scalar_vjp(self, op, inputs, constants=None):\n"
    "        signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
    "        time.sleep(600)\n"
)


@children
def test_an_engine_that_disarms_the_time_limit_cannot_stall_verify(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An engine that ignores SIGALRM and sleeps meets the backstop (--timeout + BACKSTOP_GRACE): the run
    ends with the hung test failed, saying why, and exit 1, not a hang."""
    (tmp_path / "disarms.py").write_text(DISARMS_THE_ALARM, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    arguments = ["--impl", "disarms:Engine", "--rows", "S03.grad.add", "--timeout", "1", "--format", "json"]
    code = main(["verify", "-q", *arguments])
    report = json.loads(capfd.readouterr().out)
    (row,) = report["rows"]
    messages = [test["message"] for test in row["tests"] if test["outcome"] == "failed"]
    assert (1, "failed") == (code, row["status"])
    assert any("the engine disarmed or swallowed the time limit" in str(message) for message in messages)


def test_the_probe_writes_every_kind_of_load_error_as_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process (what the probe child runs): a missing extra, an unknown engine, a declaration the
    spec does not know and a declaration that raises each become {"error": one line}; with unreadable
    """
    from contracts.verify import probe

    (tmp_path / "raising_version.py").write_text(ODD_ADAPTERS["raising_version"], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "raising_version", raising=False)
    monkeypatch.setitem(sys.modules, "micrograd.engine", None)

    def written(name: str) -> dict[str, Any]:
        out = tmp_path / "out.json"
        assert 0 == probe.main([name, str(out)])
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result

    assert written("micrograd")["error"].startswith(
        "--impl micrograd: the micrograd engine needs the 'micrograd'"
    )
    assert written("json:Nothing")["error"].startswith("unknown engine 'json:Nothing' (AttributeError")
    unknown_dtype = "unknown-dtype: dtype 'bfloat16' is not one of float64, float32"
    assert {"error": f"--impl tests.common.dtype_engines:UnknownDtype: {unknown_dtype}"} == written(
        "tests.common.dtype_engines:UnknownDtype"
    )
    raised = f"--impl raising_version:Engine: {DECLARATIONS_RAISED} LookupError: no adapter package"
    assert {"error": raised} == written("raising_version:Engine")
    from contracts.engines.reference import ReferenceEngine

    assert {
        "impl": "reference",
        "name": "reference",
        "target": "contracts.engines.reference:ReferenceEngine",
        "version": None,
        "capabilities": sorted(ReferenceEngine.capabilities),
        "conventions": {},
        "dtype": "float64",
    } == written("reference")["engine"]


def test_the_probe_leaves_at_once_with_its_streams_flushed(monkeypatch: pytest.MonkeyPatch) -> None:
    """leave flushes stdout and stderr, then ends the process with os._exit and the code given."""
    from contracts.verify import probe

    events: list[object] = []
    monkeypatch.setattr(sys.stdout, "flush", lambda: events.append("stdout"))
    monkeypatch.setattr(sys.stderr, "flush", lambda: events.append("stderr"))

    def exit_now(code: int) -> None:
        events.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(os, "_exit", exit_now)
    with pytest.raises(SystemExit):
        probe.leave(7)
    assert ["stdout", "stderr", 7] == events

"""The verify runner's decisions that need no pytest run: where the suite is, which engine, which
rows, and the pytest command it builds."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

import contracts.verify.profiles  # noqa: F401  (registers the profiles read below)
from contracts.engines import SHIPPED, load_engine
from contracts.spec_suite.spec_rows import row, rows
from contracts.verify import runner
from contracts.verify.records import Record
from contracts.verify.runner import (
    EXIT_PYTEST,
    VerifyError,
    VerifyOptions,
    check_rows,
    child_environment,
    pytest_command,
    resolve_engine,
    run_pytest,
    spec_rows,
    split_prefixes,
    verify,
    with_dtype_check,
    worker_count,
)
from tests.common.paths import SRC

# where a fresh interpreter (no PYTHONPATH) imports contracts from: the probe child's import root
WHERE = "import contracts, pathlib; print(pathlib.Path(contracts.__file__).parents[1])"

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("prefixes", "dtype", "expected"),
    [
        pytest.param([], "float32", [], id="every-row-already"),
        pytest.param(["S06"], "float64", ["S06"], id="float64-declares-nothing"),
        pytest.param(["S06", "S08"], "float32", ["S06", "S08", "T.rule.tolerance"], id="added-last"),
        pytest.param(["S06", "T.rule"], "float32", ["S06", "T.rule"], id="a-prefix-already-holds-it"),
        pytest.param(["T.rule.tolerance", "S06"], "float32", ["T.rule.tolerance", "S06"], id="named"),
    ],
)
def test_a_declared_dtype_brings_its_rule_into_a_row_selection(
    prefixes: list[str], dtype: str, expected: list[str]
) -> None:
    """--rows of an engine declaring another dtype than float64 also runs T.rule.tolerance (which checks
    the declaration), once, unless the prefixes select it already or select every row."""
    assert expected == with_dtype_check(prefixes, dtype)


def test_unloadable_specs_are_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A spec directory that cannot be loaded is named in the error."""
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path))
    with pytest.raises(VerifyError, match=f"cannot load the spec rows from {tmp_path}"):
        spec_rows()


def test_engine_errors_are_verify_errors() -> None:
    """A module without the class, or a class that is not an Engine, is an 'unknown engine' error."""
    with pytest.raises(VerifyError, match=r"unknown engine 'json:Nothing' \(AttributeError"):
        resolve_engine("json:Nothing")
    assert "reference" == resolve_engine("reference")["engine"]["name"]


def test_pytest_command_carries_the_selection() -> None:
    """The child pytest gets the plugin, the engine, the profile, the rows, -k, -n and extra arguments."""
    options = VerifyOptions(rows=["S03,T.grad", " "], keyword="not slow", workers="2", pytest_args=["-x"])
    command = pytest_command(options, "torch", ROOT, Path("out.json"))
    assert [sys.executable, "-m", "pytest", "properties", "golden"] == command[:5]
    joined = " ".join(command[5:])
    for part in (
        "-p contracts.verify.plugin --contracts-verify-out out.json",
        "--contracts-impl torch --hypothesis-profile=ci",
        "--contracts-progress --contracts-rows S03 --contracts-rows T.grad -k not slow -n 2 -x",
    ):
        assert part in joined


@pytest.mark.parametrize("workers", [None, "", "0"])
def test_quiet_run_has_no_progress_and_no_workers(workers: str | None) -> None:
    """-q drops the progress option; no -n (or -n 0) means no xdist."""
    command = pytest_command(
        VerifyOptions(progress=False, workers=workers), "reference", ROOT, Path("o.json")
    )
    assert ("--contracts-progress" not in command, "-n" not in command) == (True, True)


def test_parallel_without_xdist_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """-n without pytest-xdist installed says how to install it."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "xdist" else real(name))
    message = "-n needs pytest-xdist, which is not installed: pip install -e '.[test]'"
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        pytest_command(VerifyOptions(workers="2"), "reference", ROOT, Path("o.json"))


def test_an_install_without_the_spec_suite_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """An install whose spec suite cannot be found says which part is missing and how to repair it."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name: None if name.startswith("contracts.spec_suite") else real(name),
    )
    message = "this install of contracts has no contracts.spec_suite.properties: reinstall it"
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        runner.suite_root()


def test_a_suite_split_across_two_places_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The suite runs from the one directory holding properties/ and golden/: an install that has them
    apart (golden/ elsewhere) is refused, saying to reinstall, rather than run half the suite."""
    real = importlib.util.find_spec
    elsewhere = importlib.machinery.ModuleSpec("contracts.spec_suite.golden", None, is_package=True)
    elsewhere.submodule_search_locations = [str(tmp_path / "golden")]
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: elsewhere if name.endswith(".golden") else real(name)
    )
    message = "the spec suite's properties and golden are not side by side: reinstall contracts"
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        runner.suite_root()


def test_the_suite_runs_from_beside_its_two_halves() -> None:
    """pytest runs from the directory holding the suite's properties/ and golden/, so test ids read
    properties/... and golden/... in every install."""
    root = runner.suite_root()
    assert [True, True] == [(root / part / "conftest.py").is_file() for part in ("properties", "golden")]


def test_worker_count_and_prefixes() -> None:
    """Workers read as a number (auto is -1); row prefixes split on commas and drop blanks."""
    assert (0, 3, -1) == (worker_count(None), worker_count(" 3 "), worker_count("auto"))
    assert ["S03", "T.grad"] == split_prefixes(["S03, T.grad", ""])


def test_dotted_paths_resolve_from_the_current_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`--impl mypkg.engine:Cls` finds the user's package in the current directory, in the probe child
    only: verify's own process neither imports it nor changes sys.path."""
    package = tmp_path / "userpkg_for_verify"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from contracts.engines.reference import ReferenceEngine\n\n\n"
        "class Mine(ReferenceEngine):\n    name = 'mine'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "userpkg_for_verify", raising=False)
    declared = resolve_engine("userpkg_for_verify:Mine")
    assert ("mine", str(tmp_path)) == (declared["engine"]["name"], declared["module_root"])
    assert (False, False) == ("userpkg_for_verify" in sys.modules, str(tmp_path) in sys.path)


Child = dict[str, Any]


def fake_child(monkeypatch: pytest.MonkeyPatch, results: dict[str, Any] | None, code: int) -> list[Child]:
    """subprocess.Popen replaced: the 'child pytest' prints 50 log lines and writes results (if any);
    the engine's load probe (contracts.verify.probe) runs for real."""
    seen: list[Child] = []
    real = subprocess.Popen

    class FakeChild:
        def __new__(cls, command: list[str], **kwargs: Any) -> Any:
            if "contracts.verify.probe" in command:
                return real(command, **kwargs)
            return super().__new__(cls)

        def __init__(self, command: list[str], **kwargs: Any) -> None:
            seen.append({"command": command, **kwargs})
            kwargs["stdout"].write("".join(f"line {i}\n" for i in range(49)).encode() + b"line \xff\n")
            if results is not None:
                out = Path(command[command.index("--contracts-verify-out") + 1])
                out.write_text(json.dumps(results), encoding="utf-8")

        def wait(self) -> int:
            return code

        def poll(self) -> int:
            return code

    monkeypatch.setattr(subprocess, "Popen", FakeChild)
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    return seen


ADD = "tests/properties/test_s.py::test_add"
CI = settings.get_profile("ci")
RESULTS: dict[str, Any] = {
    "exitstatus": 1,
    "impl": "reference",
    # the child ran the ci profile as registered (what a child's results say: verify.plugin)
    "profile": "ci",
    "settings": {
        "max_examples": CI.max_examples,
        "derandomize": CI.derandomize,
        "phases": sorted(phase.name for phase in CI.phases),
    },
    "tests": [
        Record(ADD, ["S03.grad.add"], examples=7).to_json(),
        Record("tests/golden/test_g.py::t", ["S03.grad.add", "Z.nope"], "failed", message="boom").to_json(),
        Record("tests/properties/test_s.py::loose", [], "error").to_json(),
    ],
    "collection_errors": [{"nodeid": "tests/properties/test_bad.py", "message": "E   ImportError"}],
}


def test_verify_assembles_the_report_from_the_child_results(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """verify runs the child in the suite root, quietly, and builds the report from its results: the
    chosen rows (deselected under -k when no test names them), loose tests, unknown ids, errors,
    the engine and the workers."""
    # the child's (and each repro's) PYTHONPATH: the package root this process imports from, the current
    # directory, then the adapter's import root as the probe child found it, each once (under mutmut this
    # process imports contracts from mutants/src, the probe child from the installed package)
    found = subprocess.run(
        [sys.executable, "-c", WHERE],
        cwd=tmp_path,
        env={name: value for name, value in os.environ.items() if name != "PYTHONPATH"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    path = ":".join(dict.fromkeys([SRC, str(tmp_path), found]))
    root = runner.suite_root()  # the install's suite (under mutmut, not the copy SUITE names)
    seen = fake_child(monkeypatch, RESULTS, 1)
    monkeypatch.chdir(tmp_path)
    for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "HYPOTHESIS_STORAGE_DIRECTORY"):
        monkeypatch.delenv(name, raising=False)
    options = VerifyOptions(
        impl="reference",
        rows=["S03.grad.add,S03.grad.mul"],
        keyword="k",
        workers="3",
        progress=False,
    )
    report = verify(options)
    (child,) = seen
    out = child["command"][child["command"].index("--contracts-verify-out") + 1]
    log = Path(child["stdout"].name)
    assert ("results.json", "pytest.log", True) == (
        Path(out).name,
        log.name,
        log.parent == Path(out).parent and log.parent.name.startswith("contracts-verify-"),
    )
    assert not log.parent.exists()  # the scratch directory is gone
    assert pytest_command(options, "reference", root, Path(out)) == child["command"]
    assert (root, subprocess.STDOUT) == (child["cwd"], child["stderr"])
    # nothing written into the suite (a wheel's may be read-only): no bytecode, hypothesis in the scratch
    assert ("1", str(log.parent / "hypothesis")) == (
        child["env"]["PYTHONDONTWRITEBYTECODE"],
        child["env"]["HYPOTHESIS_STORAGE_DIRECTORY"],
    )
    assert {
        "impl": "reference",
        "name": "reference",
        "target": "contracts.engines.reference:ReferenceEngine",
        "version": None,
        "capabilities": sorted(load_engine("reference").capabilities),
        "conventions": {},
        "dtype": "float64",
    } == report.engine
    selection = {
        "rows": ["S03.grad.add", "S03.grad.mul"],
        "keyword": "k",
        "quick": None,
        "seed": None,
        "pytest_args": [],
    }
    assert (str(root), "ci", 3, selection) == (
        report.suite,
        report.profile,
        report.workers,
        report.selection,
    )
    add = row("S03.grad.add")
    assert [
        (
            "S03.grad.add",
            add["title"],
            "gradient",
            "03",
            "failed",
            {"properties": "passed", "golden": "failed"},
        ),
        (
            "S03.grad.mul",
            row("S03.grad.mul")["title"],
            "gradient",
            "03",
            "deselected",
            {"properties": "deselected", "golden": "deselected"},
        ),
    ] == [(r.id, r.title, r.kind, r.stage, r.status, r.suites) for r in report.rows]
    assert [
        (
            "tests/properties/test_s.py::loose",
            f"cd {root} && PYTHONPATH={path} {sys.executable} -m pytest tests/properties/test_s.py::loose "
            "--contracts-impl reference --hypothesis-profile=ci -p no:cacheprovider",
        )
    ] == [(t.record.nodeid, t.repro) for t in report.other_tests]
    assert {"Z.nope": ["tests/golden/test_g.py::t"]} == report.unknown_ids
    assert [
        None,
        f"cd {root} && PYTHONPATH={path} {sys.executable} -m pytest tests/golden/test_g.py::t "
        "--contracts-impl reference --hypothesis-profile=ci -p no:cacheprovider",
    ] == [test.repro for test in report.rows[0].tests]
    assert (RESULTS["collection_errors"], 1) == (report.collection_errors, report.pytest_exit_code)
    assert 0 <= report.duration < 600


def test_verify_without_keyword_leaves_untested_rows_unbound(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without -k a chosen row no test names is unbound; the results may lack collection errors."""
    results = {"impl": "reference", "tests": RESULTS["tests"][:1]}
    fake_child(monkeypatch, results, 0)
    options = VerifyOptions(progress=False)
    report = verify(options)
    assert [r.id for r in rows()] == [r.id for r in report.rows]  # no --rows: every row
    assert {"S03.grad.add": "passed", "S03.grad.mul": "unbound"} == {
        r.id: r.status for r in report.rows if r.id in ("S03.grad.add", "S03.grad.mul")
    }
    assert ([], [], 0, 0) == (
        report.collection_errors,
        report.other_tests,
        report.workers,
        len(report.unknown_ids),
    )


def test_pytest_without_results_is_exit_3_with_the_log_tail(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When the child writes no results, verify raises VerifyError (code 3) ending with the last 40
    lines of pytest's output, kept in --pytest-log; with progress on, the child's stderr is ours."""
    seen = fake_child(monkeypatch, None, 3)
    log = tmp_path / "pytest.log"
    tail = "\n".join([*(f"line {i}" for i in range(10, 49)), "line \ufffd"])  # undecodable bytes replaced
    message = re.escape(
        f"pytest exited with code 3 (before producing results); its output ends with:\n{tail}"
    )
    with pytest.raises(VerifyError, match=f"^{message}$") as raised:
        verify(VerifyOptions(rows=["S03.grad.add"], pytest_log=str(log)))
    assert (3, None, 50) == (raised.value.code, seen[0]["stderr"], len(log.read_bytes().splitlines()))


def test_a_child_that_ran_another_engine_gives_no_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the child's session ran another engine than --impl (arguments after -- chose it), verify
    raises VerifyError (code 2) naming both and the arguments, instead of reporting its results."""
    fake_child(monkeypatch, RESULTS, 0)
    options = VerifyOptions(
        impl="tests.common.broken_engines:WrongMulGradient",
        progress=False,
        pytest_args=["--contracts-impl=reference"],
    )
    message = (
        "the suite ran engine 'reference', not --impl 'tests.common.broken_engines:WrongMulGradient': the "
        "pytest arguments after -- (--contracts-impl=reference) must not select the engine; "
        "give it as verify's --impl only"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$") as raised:
        verify(options)
    assert 2 == raised.value.code
    with pytest.raises(
        VerifyError, match=r"^the suite ran engine None, not --impl 'torch': .* \(none\) must"
    ):
        runner.check_ran("torch", None, [])
    with pytest.raises(VerifyError, match=r"after -- \(-p myplugin --contracts-impl torch\) must"):
        runner.check_ran("reference", "torch", ["-p", "myplugin", "--contracts-impl", "torch"])


def test_usage_errors_have_code_2() -> None:
    """A VerifyError is a usage error (exit 2) unless it says otherwise."""
    assert (2, 3) == (VerifyError("x").code, VerifyError("x", 3).code)


def test_child_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The child imports contracts from where this process does, then the current directory (blank and
    repeated entries dropped), and sees no PYTEST_ADDOPTS from the caller's shell."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["a", "", "b", ".", "a"]))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    monkeypatch.chdir(tmp_path)
    environ = child_environment(ROOT)
    assert (
        os.pathsep.join([SRC, str(tmp_path), str(tmp_path / "a"), str(tmp_path / "b")]),
        None,
    ) == (environ["PYTHONPATH"], environ.get("PYTEST_ADDOPTS"))
    assert "-x" == os.environ["PYTEST_ADDOPTS"]
    # the adapter imported from the current directory: its root is not repeated
    assert environ["PYTHONPATH"] == child_environment(ROOT, str(tmp_path))["PYTHONPATH"]
    monkeypatch.delenv("PYTHONPATH")
    # an adapter imported from elsewhere: its import root follows the current directory, once
    assert (
        os.pathsep.join([SRC, str(tmp_path), "/adapters"])
        == child_environment(ROOT, "/adapters")["PYTHONPATH"]
    )


def test_run_pytest_in_a_real_child(tmp_path: Path) -> None:
    """run_pytest runs the command in the suite root, logs its stdout, returns its code and results."""
    out = tmp_path / "out.json"
    log = tmp_path / "log.txt"
    script = "import json, os, sys; print(os.getcwd()); json.dump({'tests': []}, open(sys.argv[1], 'w')); "
    script += "sys.exit(1)"
    code, results = run_pytest([sys.executable, "-c", script, str(out)], ROOT, out, log, progress=False)
    assert (1, {"tests": []}, str(ROOT)) == (code, results, log.read_text().strip())


@pytest.mark.parametrize("progress", [True, False])
def test_a_child_kept_alive_by_a_thread_is_stopped_once_its_results_are_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], progress: bool
) -> None:
    """An engine that starts a non-daemon thread keeps pytest's process alive after the suite ended:
    verify stops it LINGER_LIMIT seconds after the results appear, says so (with progress on), and takes
    the code they hold.
    (The thread sleeps 5 s: a verify that waited for it would see the process end by itself, unstopped.)"""
    monkeypatch.setattr(runner, "LINGER_LIMIT", 0.5)
    out, log = tmp_path / "out.json", tmp_path / "log.txt"
    script = (
        "import json, sys, threading, time; json.dump({'exitstatus': 3, 'tests': []}, open(sys.argv[1], 'w'))"
    )
    script += "; threading.Thread(target=time.sleep, args=(5,)).start()"
    code, results = run_pytest([sys.executable, "-c", script, str(out)], ROOT, out, log, progress=progress)
    assert (3, {"exitstatus": 3, "tests": []}) == (code, results)
    assert progress == bool(capsys.readouterr().err.strip())  # a line says so only with progress on


def test_preflight_names_the_first_bad_argument_in_a_fixed_order(tmp_path: Path) -> None:
    """With every argument bad, preflight names --contracts-impl, then --output, --pytest-log,
    -n, --timeout, -k, each once the ones before it are mended: one line, the same argument whatever else is
    wrong."""
    missing = str(tmp_path / "no" / "such" / "dir" / "file")
    bad: dict[str, Any] = {
        "impl": " ",
        "output": missing,
        "pytest_log": missing,
        "workers": "-1",
        "timeout": "0",
        "keyword": "(",
    }
    expected = [
        f"--output {missing}: cannot write there (no directory {Path(missing).parent})",
        f"--pytest-log {missing}: cannot write there (no directory {Path(missing).parent})",
        "-n '-1': must be a number of workers (0 to 512), auto or logical",
        "--timeout '0': must be a number of seconds above 0, at most 86400",
        "-k '(': not a pytest match expression: ",
    ]
    seen = []
    for mended in range(len(bad)):
        arguments = {name: value for index, (name, value) in enumerate(bad.items()) if index >= mended}
        with pytest.raises(VerifyError) as refused:
            runner.preflight(VerifyOptions(**arguments))
        seen.append(str(refused.value))
    empty_impl, *others = seen
    # each message starts as listed (-k's ends with pytest's own words on the parse error)
    assert expected == [message[: len(prefix)] for prefix, message in zip(expected, others, strict=True)]
    # the empty --impl names what it could be: every shipped engine, or a dotted path
    assert empty_impl.startswith("--impl is empty: name an engine (")
    assert [] == [name for name in [*SHIPPED, "pkg.module:Class"] if name not in empty_impl]


def test_a_pytest_usage_error_is_pytest_failing_not_a_row(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A child that wrote results but exited 4 (pytest refused its command line) is verify's exit 3, not a
    report: no row is charged with pytest's usage error."""
    results = {
        "exitstatus": 4,
        "impl": "reference",
        "tests": [Record(ADD, ["S03.grad.add"], examples=7).to_json()],
        "collection_errors": [],
    }
    fake_child(monkeypatch, results, 4)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(VerifyError) as refused:
        verify(VerifyOptions(impl="reference", rows=["S03.grad.add"], progress=False))
    assert (EXIT_PYTEST, True) == (
        refused.value.code,
        str(refused.value).startswith("pytest exited with code 4 (a usage error); its output ends with:"),
    )


@pytest.mark.parametrize("code", [2, 3])
def test_a_pytest_that_ended_abnormally_is_never_green(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, code: int
) -> None:
    """A child that wrote results but exited 2 (interrupted) or 3 (internal error) keeps that
    code in the report, which names it as a problem and exits 1, however the recorded tests did. Under
    --rows, a test naming a selected row and another, unselected one names no unknown id."""
    passing = {
        "exitstatus": code,
        "impl": "reference",
        "tests": [Record(ADD, ["S03.grad.add", "S05.cost.vector-add"], examples=7).to_json()],
        "collection_errors": [],
    }
    fake_child(monkeypatch, passing, code)
    monkeypatch.chdir(tmp_path)
    report = verify(VerifyOptions(impl="reference", rows=["S03.grad.add"], progress=False))
    assert (code, {}) == (report.pytest_exit_code, report.unknown_ids)
    assert (1, [f"pytest exited with code {code}"]) == (report.exit_code(), report.problems())
    assert "passed" == report.rows[0].status


def test_rows_alone_leave_a_chosen_row_without_tests_unbound(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """--rows without -k deselects no test: a chosen row no test names reads unbound (not accepted),
    never deselected."""
    fake_child(monkeypatch, RESULTS, 1)
    monkeypatch.chdir(tmp_path)
    chosen = ["S03.grad.add,S03.grad.mul"]
    report = verify(VerifyOptions(impl="reference", rows=chosen, progress=False))
    statuses = [(r.id, r.status) for r in report.rows]
    assert [("S03.grad.add", "failed"), ("S03.grad.mul", "unbound")] == statuses


def test_blank_rows_message_joins_the_given_values_with_commas() -> None:
    """--rows of several blank values names them joined with ',' (as typed) in the refusal."""
    with pytest.raises(VerifyError) as raised:
        check_rows([], [], ["", " ", ""])
    assert "--rows ', ,': names no row id prefix (blank)" == str(raised.value)


PRINTS_WHILE_LOADING = (
    "import os\n\nfrom contracts.engines.reference import ReferenceEngine\n\n\n"
    "class Engine(ReferenceEngine):\n    def __init__(self):\n        os.write(1, b'hello from the engine')\n"
)
EXITS_THREE = "import os\n\nos._exit(3)\n"


def test_the_probe_childs_prints_never_reach_verifys_stdout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An adapter printing while it loads in the probe child writes nothing to verify's own stdout
    (a report may go there), even at the file-descriptor level."""
    (tmp_path / "prints_adapter.py").write_text(PRINTS_WHILE_LOADING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert "prints_adapter:Engine" == resolve_engine("prints_adapter:Engine")["engine"]["impl"]
    assert "" == capfd.readouterr().out


def test_a_probe_child_ending_with_a_code_is_one_verify_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child that ends with exit code 3 while loading is a VerifyError naming the code, not a
    CalledProcessError."""
    (tmp_path / "exits_three.py").write_text(EXITS_THREE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    message = (
        "could not start engine 'exits_three:Engine': loading it ended the process (exit code 3) "
        "before the engine was made"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        resolve_engine("exits_three:Engine")

"""The verify runner's decisions that need no pytest run: where the suite is, which engine, which
rows, and the pytest command it builds."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import contracts
from contracts.engines import load_engine
from contracts.verify import runner
from contracts.verify.records import Record
from contracts.verify.runner import (
    VerifyError,
    VerifyOptions,
    child_environment,
    find_suite,
    pytest_command,
    resolve_engine,
    run_pytest,
    spec_rows,
    split_prefixes,
    verify,
    with_dtype_check,
    worker_count,
)
from tests.spec_rows import row, rows

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


def test_suite_from_option_environment_and_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--suite wins, then CONTRACTS_SUITE, then the clone the package was installed from."""
    monkeypatch.chdir(tmp_path)  # not a suite: the package's clone is found first
    assert (ROOT, ROOT, ROOT) == (
        find_suite(str(ROOT), {}),
        find_suite(None, {"CONTRACTS_SUITE": str(ROOT)}),
        find_suite(None, {}),
    )


def test_suite_falls_back_to_the_current_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An installed package with neither tests beside it nor a packaged suite: the current clone is used."""
    monkeypatch.setattr(contracts, "__file__", str(tmp_path / "site" / "contracts" / "__init__.py"))
    monkeypatch.setattr(runner, "packaged_suite", lambda: None)
    monkeypatch.chdir(ROOT)
    assert ROOT == find_suite(None, {})


def packaged_copy(place: Path) -> Path:
    """A stand-in for the wheel's contracts/spec_suite: a directory with tests/properties/ and specs/."""
    (place / "tests" / "properties").mkdir(parents=True)
    (place / "specs").mkdir()
    return place


def test_suite_falls_back_to_the_packaged_suite(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A wheel install (no clone beside the package) uses the suite packaged with it, even from inside
    another suite's directory; the clone the package is installed from, and --suite, come first."""
    packaged = packaged_copy(tmp_path / "spec_suite")
    monkeypatch.setattr(runner, "packaged_suite", lambda: packaged)
    monkeypatch.chdir(ROOT)
    assert ROOT == find_suite(None, {})  # the editable clone
    monkeypatch.setattr(contracts, "__file__", str(tmp_path / "site" / "contracts" / "__init__.py"))
    assert (packaged, ROOT) == (find_suite(None, {}), find_suite(str(ROOT), {}))


def test_no_suite_anywhere_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without a suite beside the package, packaged with it or in the current directory, the error says
    what to pass; a packaged directory that is not a suite is listed among the places looked in."""
    monkeypatch.setattr(contracts, "__file__", str(tmp_path / "site" / "contracts" / "__init__.py"))
    monkeypatch.setattr(runner, "packaged_suite", lambda: None)
    monkeypatch.chdir(tmp_path)
    message = (
        "cannot find the spec suite (a directory with tests/properties/, tests/golden/ and specs/); "
        f"looked in {tmp_path}, {tmp_path} (this install has no packaged suite, contracts.spec_suite). "
        "Run from a clone of the repository, or pass --suite PATH, or set CONTRACTS_SUITE"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        find_suite(None, {})
    monkeypatch.setattr(runner, "packaged_suite", lambda: tmp_path / "empty")
    listed = f"looked in {tmp_path}, {tmp_path / 'empty'}, {tmp_path}. Run from a clone"
    with pytest.raises(VerifyError, match=re.escape(listed)):
        find_suite(None, {})


def test_unloadable_specs_are_a_clear_error(tmp_path: Path) -> None:
    """A spec directory that cannot be loaded is named in the error."""
    with pytest.raises(VerifyError, match=f"cannot load the spec rows from {tmp_path}"):
        spec_rows(ROOT, {"CONTRACTS_SPECS": str(tmp_path)})


def test_engine_errors_are_verify_errors() -> None:
    """A module without the class, or a class that is not an Engine, is an 'unknown engine' error."""
    with pytest.raises(VerifyError, match=r"unknown engine 'json:Nothing' \(AttributeError"):
        resolve_engine("json:Nothing", ROOT)
    assert "reference" == resolve_engine("reference", ROOT)["engine"]["name"]


def test_pytest_command_carries_the_selection() -> None:
    """The child pytest gets the plugin, the engine, the profile, the rows, -k, -n and extra arguments."""
    options = VerifyOptions(rows=["S03,T.grad", " "], keyword="not slow", workers="2", pytest_args=["-x"])
    command = pytest_command(options, "torch", ROOT, Path("out.json"))
    assert [sys.executable, "-m", "pytest", "tests/properties", "tests/golden"] == command[:5]
    joined = " ".join(command[5:])
    for part in (
        "-p contracts.verify.plugin --contracts-verify-out out.json",
        "--impl torch --hypothesis-profile=ci",
        "--contracts-progress --contracts-rows S03 --contracts-rows T.grad -k not slow -n 2 -x",
    ):
        assert part in joined


def test_quiet_run_has_no_progress_and_no_workers() -> None:
    """-q drops the progress option; no -n means no xdist."""
    command = pytest_command(VerifyOptions(progress=False), "reference", ROOT, Path("o.json"))
    assert ("--contracts-progress" not in command, "-n" not in command) == (True, True)


def test_parallel_without_xdist_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """-n without pytest-xdist installed says how to install it."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "xdist" else real(name))
    message = "-n needs pytest-xdist, which is not installed: pip install -e '.[test]'"
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$"):
        pytest_command(VerifyOptions(workers="2"), "reference", ROOT, Path("o.json"))


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
    declared = resolve_engine("userpkg_for_verify:Mine", ROOT)
    assert ("mine", str(tmp_path)) == (declared["engine"]["name"], declared["module_root"])
    assert (False, False) == ("userpkg_for_verify" in sys.modules, str(tmp_path) in sys.path)


def test_pytest_command_in_full() -> None:
    """The whole child command, in order: suites, plugin, engine, profile, output options, selection."""
    options = VerifyOptions(
        profile="mutation", rows=["S03,T.grad", " "], keyword="not slow", workers="auto", pytest_args=["-x"]
    )
    assert [
        sys.executable,
        "-m",
        "pytest",
        "tests/properties",
        "tests/golden",
        "-p",
        "contracts.verify.plugin",
        "--contracts-verify-out",
        "out.json",
        "--impl",
        "torch",
        "--hypothesis-profile=mutation",
        "-q",
        "--tb=short",
        "--continue-on-collection-errors",
        "-p",
        "no:cacheprovider",
        "--contracts-progress",
        "--contracts-rows",
        "S03",
        "--contracts-rows",
        "T.grad",
        "-k",
        "not slow",
        "-n",
        "auto",
        "-x",
    ] == pytest_command(options, "torch", ROOT, Path("out.json"))


@pytest.mark.parametrize("workers", [None, "", "0"])
def test_no_workers_means_no_xdist(workers: str | None, tmp_path: Path) -> None:
    """None, empty and 0 workers run without -n; a suite without tests/golden runs tests/properties only."""
    (tmp_path / "tests" / "properties").mkdir(parents=True)
    options = VerifyOptions(workers=workers, progress=False)
    assert [
        sys.executable,
        "-m",
        "pytest",
        "tests/properties",
        "-p",
        "contracts.verify.plugin",
        "--contracts-verify-out",
        "o.json",
        "--impl",
        "r",
        "--hypothesis-profile=ci",
        "-q",
        "--tb=short",
        "--continue-on-collection-errors",
        "-p",
        "no:cacheprovider",
    ] == pytest_command(options, "r", tmp_path, Path("o.json"))


def test_suite_option_that_is_not_a_suite(tmp_path: Path) -> None:
    """--suite (or CONTRACTS_SUITE) naming a directory without tests/properties and specs/ is refused."""
    (tmp_path / "tests" / "properties").mkdir(parents=True)
    message = f"^{tmp_path} is not a contracts spec suite \\(it needs tests/properties/ and specs/\\); "
    with pytest.raises(VerifyError, match=message + r"check --suite or \$CONTRACTS_SUITE$"):
        find_suite(None, {"CONTRACTS_SUITE": str(tmp_path)})
    (tmp_path / "specs").mkdir()
    assert tmp_path.resolve() == find_suite(str(tmp_path), {"CONTRACTS_SUITE": "/nonexistent"})


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


def make_suite(tmp_path: Path) -> Path:
    """A suite root: tests/properties (no golden), a copy of the specs, a mutmut result file."""
    (tmp_path / "tests" / "properties").mkdir(parents=True)
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "tests" / "conftest.py")  # its profiles
    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    (tmp_path / "mutants").mkdir()
    stats = {"killed": 3, "survived": 1, "total": 4}
    (tmp_path / "mutants" / "mutmut-cicd-stats.json").write_text(json.dumps(stats), encoding="utf-8")
    return tmp_path


ADD = "tests/properties/test_s.py::test_add"
RESULTS: dict[str, Any] = {
    "exitstatus": 1,
    "impl": "reference",
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
    the engine, the workers and the suite's mutation score."""
    root = make_suite(tmp_path)
    killed = {"id": "A.x:1", "status": "killed", "description": "d", "killed_by": "t"}
    spec_results = {"spec": {"rows": [{"row_id": "A.x", "tests": 1, "mutants": [killed]}]}}
    (root / "mutants" / "spec-mutation.json").write_text(json.dumps(spec_results), encoding="utf-8")
    seen = fake_child(monkeypatch, RESULTS, 1)
    monkeypatch.chdir(tmp_path)
    for name in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "HYPOTHESIS_STORAGE_DIRECTORY"):
        monkeypatch.delenv(name, raising=False)
    # the child's (and each repro's) PYTHONPATH: the current directory, then the adapter's import root as
    # the probe child found it (under mutmut this process imports contracts from mutants/src, the child
    # from the installed package)
    path = f"{tmp_path}:{resolve_engine('reference', root)['module_root']}"
    options = VerifyOptions(
        impl="reference",
        suite=str(root),
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
    assert (root, subprocess.STDOUT, str(root / "specs")) == (
        child["cwd"],
        child["stderr"],
        child["env"]["CONTRACTS_SPECS"],
    )
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
    selection = {"rows": ["S03.grad.add", "S03.grad.mul"], "keyword": "k", "quick": None, "seed": None}
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
    ] == [(r.id, r.title, r.kind, r.stage, r.status, r.checks) for r in report.rows]
    assert [
        (
            "tests/properties/test_s.py::loose",
            f"cd {root} && PYTHONPATH={path} {sys.executable} -m pytest tests/properties/test_s.py::loose "
            "--impl reference --hypothesis-profile=ci -p no:cacheprovider",
        )
    ] == [(t.record.nodeid, t.repro) for t in report.other_tests]
    assert {"Z.nope": ["tests/golden/test_g.py::t"]} == report.unknown_ids
    assert [
        None,
        f"cd {root} && PYTHONPATH={path} {sys.executable} -m pytest tests/golden/test_g.py::t "
        "--impl reference --hypothesis-profile=ci -p no:cacheprovider",
    ] == [test.repro for test in report.rows[0].tests]
    assert (RESULTS["collection_errors"], 1) == (report.collection_errors, report.pytest_exit_code)
    assert 0 <= report.duration < 600
    assert report.mutation is not None
    assert (str(root / "mutants" / "mutmut-cicd-stats.json"), 0.75) == (
        report.mutation["path"],
        report.mutation["score"],
    )
    # the suite's spec-mutation results (no equivalents file: none listed)
    line = "spec-mutation score 100.00% (1 killed, 0 listed equivalent, of 1 spec and statement mutants)"
    assert [line] == report.spec_mutation


def test_verify_without_keyword_leaves_untested_rows_unbound(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Without -k a chosen row no test names is unbound; an explicit mutation file is read; the
    results may lack collection errors."""
    results = {"impl": "reference", "tests": RESULTS["tests"][:1]}
    fake_child(monkeypatch, results, 0)
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps({"killed": 1, "total": 2}), encoding="utf-8")
    options = VerifyOptions(suite=str(ROOT), progress=False, mutation_stats=str(stats))
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
    assert report.mutation is not None
    assert (str(stats), 0.5) == (report.mutation["path"], report.mutation["score"])


def test_pytest_without_results_is_exit_3_with_the_log_tail(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """When the child writes no results, verify raises VerifyError (code 3) ending with the last 40
    lines of pytest's output, kept in --pytest-log; with progress on, the child's stderr is ours."""
    seen = fake_child(monkeypatch, None, 4)
    log = tmp_path / "pytest.log"
    tail = "\n".join([*(f"line {i}" for i in range(10, 49)), "line \ufffd"])  # undecodable bytes replaced
    message = re.escape(f"pytest exited with code 4 before producing results; its output ends with:\n{tail}")
    with pytest.raises(VerifyError, match=f"^{message}$") as raised:
        verify(VerifyOptions(suite=str(ROOT), rows=["S03.grad.add"], pytest_log=str(log)))
    assert (3, None, 50) == (raised.value.code, seen[0]["stderr"], len(log.read_bytes().splitlines()))


def test_a_child_that_ran_another_engine_gives_no_report(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the child's session ran another engine than --impl (arguments after -- chose it), verify
    raises VerifyError (code 2) naming both and the arguments, instead of reporting its results."""
    fake_child(monkeypatch, RESULTS, 0)
    options = VerifyOptions(
        impl="tests.meta.broken_engines:WrongMulGradient",
        suite=str(ROOT),
        progress=False,
        pytest_args=["--impl=reference"],
    )
    message = (
        "the suite ran engine 'reference', not --impl 'tests.meta.broken_engines:WrongMulGradient': the "
        "pytest arguments after -- (--impl=reference) must not select the engine; give it as --impl only"
    )
    with pytest.raises(VerifyError, match=f"^{re.escape(message)}$") as raised:
        verify(options)
    assert 2 == raised.value.code
    with pytest.raises(
        VerifyError, match=r"^the suite ran engine None, not --impl 'torch': .* \(none\) must"
    ):
        runner.check_ran("torch", None, [])
    with pytest.raises(VerifyError, match=r"after -- \(-p myplugin --impl torch\) must"):
        runner.check_ran("reference", "torch", ["-p", "myplugin", "--impl", "torch"])


def test_usage_errors_have_code_2() -> None:
    """A VerifyError is a usage error (exit 2) unless it says otherwise."""
    assert (2, 3) == (VerifyError("x").code, VerifyError("x", 3).code)


def test_child_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The child sees the current directory first on PYTHONPATH (blank and repeated entries dropped),
    the suite's specs unless CONTRACTS_SPECS is set, and no PYTEST_ADDOPTS from the caller's shell."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["a", "", "b", ".", "a"]))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-x")
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    monkeypatch.chdir(tmp_path)
    environ = child_environment(ROOT)
    assert (
        os.pathsep.join([str(tmp_path), str(tmp_path / "a"), str(tmp_path / "b")]),
        str(ROOT / "specs"),
        None,
    ) == (
        environ["PYTHONPATH"],
        environ["CONTRACTS_SPECS"],
        environ.get("PYTEST_ADDOPTS"),
    )
    assert "-x" == os.environ["PYTEST_ADDOPTS"]
    # the adapter imported from the current directory: its root is not repeated
    assert environ["PYTHONPATH"] == child_environment(ROOT, str(tmp_path))["PYTHONPATH"]
    monkeypatch.setenv("CONTRACTS_SPECS", "elsewhere")
    monkeypatch.delenv("PYTHONPATH")
    assert (str(tmp_path), "elsewhere") == (
        child_environment(ROOT)["PYTHONPATH"],
        child_environment(ROOT)["CONTRACTS_SPECS"],
    )
    # an adapter imported from elsewhere: its import root follows the current directory, once
    assert os.pathsep.join([str(tmp_path), "/adapters"]) == child_environment(ROOT, "/adapters")["PYTHONPATH"]


def test_run_pytest_in_a_real_child(tmp_path: Path) -> None:
    """run_pytest runs the command in the suite root, logs its stdout, returns its code and results."""
    out = tmp_path / "out.json"
    log = tmp_path / "log.txt"
    script = "import json, os, sys; print(os.getcwd()); json.dump({'tests': []}, open(sys.argv[1], 'w')); "
    script += "sys.exit(1)"
    code, results = run_pytest([sys.executable, "-c", script, str(out)], ROOT, out, log, progress=False)
    assert (1, {"tests": []}, str(ROOT)) == (code, results, log.read_text().strip())


def test_preflight_names_the_first_bad_argument_in_a_fixed_order(tmp_path: Path) -> None:
    """With every argument bad, preflight names --impl, then --output, --pytest-log, --mutation-stats,
    -n, --timeout, each once the ones before it are mended: one line, the same argument whatever else is
    wrong."""
    missing = str(tmp_path / "no" / "such" / "dir" / "file")
    bad: dict[str, Any] = {
        "impl": " ",
        "output": missing,
        "pytest_log": missing,
        "mutation_stats": missing,
        "workers": "-1",
        "timeout": "0",
    }
    expected = [
        "--impl is empty: name an engine (reference, torch, micrograd or pkg.module:Class)",
        f"--output {missing}: cannot write there (not a file in an existing directory)",
        f"--pytest-log {missing}: cannot write there (not a file in an existing directory)",
        f"--mutation-stats {missing}: no such file",
        "-n '-1': must be a number of workers (0 or more), auto or logical",
        "--timeout '0': must be a number of seconds above 0",
    ]
    seen = []
    for mended in range(len(bad)):
        arguments = {name: value for index, (name, value) in enumerate(bad.items()) if index >= mended}
        with pytest.raises(VerifyError) as refused:
            runner.preflight(VerifyOptions(**arguments))
        seen.append(str(refused.value))
    assert expected == seen


@pytest.mark.parametrize("code", [2, 3, 4])
def test_a_pytest_that_ended_abnormally_is_never_green(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, code: int
) -> None:
    """A child that wrote results but exited 2 (interrupted), 3 (internal error) or 4 (usage) keeps that
    code in the report, which names it as a problem and exits 1, however the recorded tests did. Under
    --rows, a test naming a selected row and another, unselected one names no unknown id."""
    root = make_suite(tmp_path)
    passing = {
        "exitstatus": code,
        "impl": "reference",
        "tests": [Record(ADD, ["S03.grad.add", "S05.cost.vector-add"], examples=7).to_json()],
        "collection_errors": [],
    }
    fake_child(monkeypatch, passing, code)
    monkeypatch.chdir(tmp_path)
    report = verify(VerifyOptions(impl="reference", suite=str(root), rows=["S03.grad.add"], progress=False))
    assert (code, {}) == (report.pytest_exit_code, report.unknown_ids)
    assert (1, [f"pytest exited with code {code}"]) == (report.exit_code(), report.problems())
    assert "passed" == report.rows[0].status


def test_rows_alone_leave_a_chosen_row_without_tests_unbound(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """--rows without -k deselects no test: a chosen row no test names reads unbound (not accepted),
    never deselected."""
    root = make_suite(tmp_path)
    fake_child(monkeypatch, RESULTS, 1)
    monkeypatch.chdir(tmp_path)
    chosen = ["S03.grad.add,S03.grad.mul"]
    report = verify(VerifyOptions(impl="reference", suite=str(root), rows=chosen, progress=False))
    statuses = [(r.id, r.status) for r in report.rows]
    assert [("S03.grad.add", "failed"), ("S03.grad.mul", "unbound")] == statuses

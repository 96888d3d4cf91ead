"""`contracts verify` end to end on small selections of rows: the command's main() in this process
(so coverage sees it), pytest in a child process as for a user. The runs start together, in
threads, and the tests below read their reports."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jsonschema
import pytest

from contracts.spec_suite.spec_rows import row
from contracts.verify.report import NEVER_BUILT
from tests.common.paths import REPORT_SCHEMA, SPECS, SUITE
from tests.common.verify_runs import NO_SHRINKING, Run, run_verify

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = REPORT_SCHEMA
BROKEN = "tests.common.broken_engines"
DTYPE = "tests.common.dtype_engines"

# name -> verify arguments (each run writes its JSON report to a file)
RUNS: dict[str, list[str]] = {
    "broken-mul": ["--impl", f"{BROKEN}:WrongMulGradient", "--rows", "S03.grad.mul,S03.grad.add"],
    "broken-matmul": [
        "--impl",
        f"{BROKEN}:MatmulForgetsTranspose",
        "--rows",
        "T.grad.matmul",
        "-k",
        "example",
    ],
    # runs that fail by design take the mutation profile: no shrinking (the failures are the point, not
    # their minimal example; a shrunk deep-graph failure rebuilds its chain at every step)
    "micrograd": ["--impl", "micrograd", "--rows", "S03.rule", "-k", "not million", *NO_SHRINKING],
    "xdist": ["--impl", "reference", "-n", "1", "--rows", "S03.grad.add"],
    # a float32 engine judged with its dtype's tolerances (over the whole spec: a correct
    # float32 engine fails no row), with float64's, and with a real bug
    "float32": ["--impl", f"{DTYPE}:Float32Reference", "-n", "2"],
    "float32-as-float64": [
        "--impl",
        f"{DTYPE}:Float32JudgedAsFloat64",
        "--rows",
        "T.grad.exp,S03.grad.log",
        *NO_SHRINKING,
    ],
    "float32-wrong": [
        "--impl",
        f"{DTYPE}:Float32WrongMultiply",
        "--rows",
        "T.grad.multiply,T.grad.add",
        *NO_SHRINKING,
    ],
    # a float64 engine declaring float32, its run restricted to a row the declaration makes n/a
    "dtype-claimed": ["--impl", f"{DTYPE}:Float64DeclaredFloat32", "--rows", "S06.rule.forward-error"],
    # a convention for one case of a row: the other case still runs
    "tie-split": ["--impl", f"{DTYPE}:TieSplitAtMaximum", "--rows", "T.rule.tie"],
    "torch-tie": ["--impl", "torch", "--rows", "T.rule.tie"],
    "pytest-error": [
        "--impl",
        "reference",
        "--rows",
        "S03.grad.add",
        "--",
        "--no-such-pytest-option",
    ],
    # module capabilities declared, every build declined: the scalar row passes, the verdict is not green
    "declines": [
        "--impl",
        "tests.common.broken_module_engines:DeclinesEveryBuild",
        "--rows",
        "S07.rule.weight-layout,S03.grad.add",
    ],
    # an engine that never returns: each test calling it fails at the limit, the run ends
    "hang": [
        "--impl",
        f"{BROKEN}:HangsInChainGrad",
        "--rows",
        "S03.rule.deep-graph",
        "--timeout",
        "2",
        *NO_SHRINKING,
    ],
    # pytest's last --contracts-impl wins: arguments after -- that swap in the reference must not pass
    "engine-swap": [
        "--impl",
        f"{BROKEN}:WrongMulGradient",
        "--rows",
        "S03.grad.mul",
        "--",
        "--contracts-impl=reference",
    ],
}
OPTIONAL = {"micrograd": "micrograd", "xdist": "xdist", "torch-tie": "torch"}

# The child pytest imports the installed package, never mutmut's mutants, so under mutmut (which sets
# MUTANT_UNDER_TEST) these runs would cost seconds per mutant for little: test_verify_runner runs
# verify() in-process and test_verify_plugin runs the plugin in a real in-process session.
pytestmark = [
    pytest.mark.engine_run,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="end to end: children see no mutant"),
]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every run of RUNS whose optional engine is installed, started concurrently."""
    scratch = tmp_path_factory.mktemp("verify")
    chosen = {
        name: arguments
        for name, arguments in RUNS.items()
        if name not in OPTIONAL or importlib.util.find_spec(OPTIONAL[name]) is not None
    }
    with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        futures = {
            name: pool.submit(run_verify, arguments, scratch / f"{name}.json")
            for name, arguments in chosen.items()
        }
        return {name: future.result(timeout=300) for name, future in futures.items()}


def get(runs: dict[str, Run], name: str) -> Run:
    if name not in runs:
        pytest.skip(f"{OPTIONAL[name]} is not installed")
    return runs[name]


def test_broken_mul_gradient_fails_by_name_with_a_repro(runs: dict[str, Run]) -> None:
    """A reference whose mul gradient is wrong fails S03.grad.mul, not its neighbour, with repro lines;
    the neighbour passes, its only unrun tests reference-only (counted in its coverage, not its status)."""
    run = get(runs, "broken-mul")
    assert 1 == run.code
    statuses = {row_id: row["status"] for row_id, row in run.rows().items()}
    assert {"S03.grad.mul": "failed", "S03.grad.add": "passed"} == statuses
    coverage = run.rows()["S03.grad.add"]["coverage"]
    assert 0 < coverage["engine"] < coverage["total"]
    failed = [test for test in run.rows()["S03.grad.mul"]["tests"] if test["outcome"] == "failed"]
    assert {"properties", "golden"} == {test["suite"] for test in failed}
    for test in failed:
        assert test["repro"].startswith(f"cd {SUITE} && PYTHONPATH=")
        assert f"--contracts-impl {BROKEN}:WrongMulGradient --hypothesis-profile=ci" in test["repro"]
        assert test["nodeid"] in test["repro"]
    assert [] == [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(run.report)]
    examples = [test["falsifying_example"] for test in failed if test["suite"] == "properties"]
    assert examples
    assert all("test_" in (example or "") for example in examples)
    assert ["S03.grad.mul: failed"] == (run.report or {}).get("problems")


def test_an_engine_that_never_returns_fails_at_the_time_limit(runs: dict[str, Run]) -> None:
    """--timeout 2 on an engine whose chain backward sleeps an hour: the tests of S03.rule.deep-graph that
    call it fail with the limit's message (the run ends), and each repro carries the limit. A test of the
    row that never calls it may pass, or on a slow machine fail at the same limit."""
    run = get(runs, "hang")
    assert 1 == run.code
    (row,) = run.rows().values()
    assert ("S03.rule.deep-graph", "failed") == (row["id"], row["status"])
    engine_tests = [test for test in row["tests"] if test["reference_only"] is None]
    failed = [test for test in engine_tests if test["outcome"] == "failed"]
    assert [] == [test["outcome"] for test in engine_tests if test["outcome"] not in ("passed", "failed")]
    assert 2 <= len(failed)
    for test in failed:
        assert f"{test['nodeid']}: still running after 2 s (--timeout); the engine did not return" in (
            test["message"] or ""
        )
        assert " --contracts-test-timeout 2 " in test["repro"]


def test_an_engine_declining_every_build_of_a_declared_capability_is_not_green(runs: dict[str, Run]) -> None:
    """DeclinesEveryBuild declares module.linear and module.mlp and builds neither: S03.grad.add passes
    (its reference-only tests are not the engine's), S07.rule.weight-layout is n/a with the engine's
    reason, and the run exits 1 naming both methods."""
    run = get(runs, "declines")
    statuses = {row_id: row["status"] for row_id, row in run.rows().items()}
    assert {"S03.grad.add": "passed", "S07.rule.weight-layout": "not applicable"} == statuses
    assert (1, [f"module_linear: {NEVER_BUILT}", f"module_mlp: {NEVER_BUILT}"]) == (
        run.code,
        (run.report or {}).get("problems"),
    )


def test_broken_matmul_gradient_fails_its_golden(runs: dict[str, Run]) -> None:
    """A matmul gradient missing its transpose fails T.grad.matmul on the Stage 05 example."""
    run = get(runs, "broken-matmul")
    assert 1 == run.code
    row = run.rows()["T.grad.matmul"]
    assert ("failed", "failed") == (row["status"], row["checks"]["golden"])
    assert any("test_gradient_example[T.grad.matmul[0]]" in (t["repro"] or "") for t in row["tests"])


def test_micrograd_fails_deep_graph_and_backward_again_by_name(runs: dict[str, Run]) -> None:
    """micrograd passes relu at 0 and accumulation over shared nodes, but fails S03.rule.deep-graph
    (RecursionError, in a chain and in a DAG) and S03.rule.backward-again (a second backward compounds)."""
    run = get(runs, "micrograd")
    assert 1 == run.code
    rows = run.rows()
    checked = (
        "S03.rule.relu-at-zero",
        "S03.rule.accumulate",
        "S03.rule.deep-graph",
        "S03.rule.backward-again",
    )
    assert ("passed", "passed", "failed", "failed") == tuple(rows[i]["status"] for i in checked)
    deep = [t for t in rows["S03.rule.deep-graph"]["tests"] if t["outcome"] == "failed"]
    assert [True] * len(deep) == ["RecursionError" in (t["message"] or "") for t in deep]
    assert any("depth=" in (t["falsifying_example"] or "") for t in deep)
    # number operands run through micrograd's reflected forms (the Value API's own tests are
    # reference-only); a rule about our own Value stays n/a
    statuses = (rows["S03.rule.constant-operands"]["status"], rows["S03.rule.finite"]["status"])
    assert ("passed", "not applicable") == statuses


def test_xdist_run_passes_and_validates(runs: dict[str, Run]) -> None:
    """Under pytest-xdist the results reach the report from the worker: the reference passes the row
    (property and golden tests, with their examples), exit 0, and the JSON matches its schema."""
    run = get(runs, "xdist")
    assert 0 == run.code
    assert [] == [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(run.report)]
    (row,) = run.rows().values()
    assert ("S03.grad.add", "passed", 1) == (
        row["id"],
        row["status"],
        run.report["workers"] if run.report else 0,
    )
    assert row["examples"] > 50
    assert {"properties", "golden"} == {test["suite"] for test in row["tests"]}


def test_pytest_usage_error_is_reported_with_its_output(runs: dict[str, Run]) -> None:
    """When pytest cannot start (here an unknown option after --), verify exits 3 and writes no report."""
    run = get(runs, "pytest-error")
    assert (3, None) == (run.code, run.report)


def test_arguments_after_the_separator_cannot_swap_the_engine(runs: dict[str, Run]) -> None:
    """-- --contracts-impl=reference would run the reference under the broken engine's name: exit 2."""
    run = get(runs, "engine-swap")
    assert (2, None) == (run.code, run.report)


def statuses(run: Run) -> dict[str, str]:
    return {row_id: row["status"] for row_id, row in run.rows().items()}


def outcomes(run: Run, row_id: str) -> dict[str, str]:
    """Each of the row's tests (nodeid without its file) -> its outcome."""
    return {t["nodeid"].split("::")[-1]: t["outcome"] for t in run.rows()[row_id]["tests"]}


def valid(run: Run) -> bool:
    return [] == [e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(run.report)]


def test_a_float32_engine_passes_its_gradient_rows_at_float32_tolerance(runs: dict[str, Run]) -> None:
    """A correct float32 engine over the whole spec: no row fails, every tensor gradient row passes at
    float32 tolerances; a scalar row is partly verified (its central differences of the engine's own
    forward are n/a), and T.rule.dtype is n/a, with the reason."""
    run = get(runs, "float32")
    assert (0, "float32", True) == (run.code, (run.report or {})["engine"]["dtype"], valid(run))
    rows = statuses(run)
    # the whole spec: no false red (a float64 claim judged at float32 is n/a with its reason, never failed)
    assert [] == [
        row_id
        for row_id, status in rows.items()
        if status not in ("passed", "partly verified", "not applicable")
    ]
    tensor_rows = [row_id for row_id in rows if row_id.startswith("T.grad.")]
    # every engine test of a T.grad row passed: the row passes, its reference-only tests left out of
    # its coverage's engine count
    assert {("passed", True)} == {
        (rows[row_id], 0 < run.rows()[row_id]["coverage"]["engine"] < run.rows()[row_id]["coverage"]["total"])
        for row_id in tensor_rows
    }
    assert ("partly verified", "partly verified", "not applicable") == (
        rows["S03.grad.mul"],
        rows["S03.grad.relu"],
        rows["T.rule.dtype"],
    )
    why = "reference-float32 computes in float32: central differences of the engine's own forward"
    assert any(reason.startswith(why) for reason in run.rows()["S03.grad.mul"]["reasons"])
    mul = outcomes(run, "S03.grad.mul")
    assert ("passed", "not applicable") == (
        mul["test_value_and_gradient_match_spec[S03.grad.mul]"],
        mul["test_gradient_matches_central_differences[S03.grad.mul]"],
    )


def test_the_same_float32_numbers_fail_at_float64_tolerance(runs: dict[str, Run]) -> None:
    """Declared float64, the same engine's numbers fail: the tolerance really scales with the dtype."""
    run = get(runs, "float32-as-float64")
    assert (1, {"T.grad.exp": "failed", "S03.grad.log": "failed"}) == (run.code, statuses(run))
    failed = {
        t["nodeid"].split("::")[-1]: t["message"] or ""
        for row in run.rows().values()
        for t in row["tests"]
        if t["outcome"] == "failed"
    }
    judged = {
        "test_value_and_gradient_match_spec[S03.grad.log]": "(rel=1e-12, abs=1e-12)",
        "test_gradient_example[S03.grad.log[1]]": "(rel=1e-12, abs=0.0)",
        "test_value_and_gradients_match_spec[T.grad.exp]": "(rel=1e-12, abs=1e-12)",
        "test_gradient_example[T.grad.exp[0]]": "(rel=1e-12, abs=0.0)",
    }
    assert judged == {
        name: tolerance for name, tolerance in judged.items() if tolerance in failed.get(name, "")
    }


def test_a_wrong_gradient_still_fails_at_float32_tolerance(runs: dict[str, Run]) -> None:
    """A float32 engine whose multiply gradient is g * a fails T.grad.multiply; its add row passes."""
    run = get(runs, "float32-wrong")
    # T.rule.tolerance runs beside the chosen rows: the engine declares float32 (it holds)
    expected = {"T.grad.multiply": "failed", "T.grad.add": "passed", "T.rule.tolerance": "passed"}
    assert (1, expected) == (run.code, statuses(run))
    failed = [t for t in run.rows()["T.grad.multiply"]["tests"] if t["outcome"] == "failed"]
    assert any("rel=0.0001220703125" in (t["message"] or "") for t in failed)


def tie_tests_by_case(run: Run) -> tuple[set[str], set[str]]:
    """The outcomes of T.rule.tie's maximum tests and of its relu tests."""
    tests = outcomes(run, "T.rule.tie")
    relu = {outcome for name, outcome in tests.items() if "relu" in name or name.endswith("[T.rule.tie[1]]")}
    maximum = {
        outcome for name, outcome in tests.items() if "first_argument" in name or name.endswith("[0]]")
    }
    return maximum, relu


@pytest.mark.parametrize("name", ["tie-split", "torch-tie"])
def test_a_case_convention_leaves_the_other_case_running(runs: dict[str, Run], name: str) -> None:
    """An engine declaring T.rule.tie[maximum] has its maximum tests n/a and its relu tests passed: the
    row is partly verified (never passed), with the convention's reason."""
    run = get(runs, name)
    assert (0, "partly verified", True) == (run.code, statuses(run)["T.rule.tie"], valid(run))
    assert ({"not applicable"}, {"passed"}) == tie_tests_by_case(run)
    (reason,) = run.rows()["T.rule.tie"]["reasons"]
    assert reason.startswith(f"{(run.report or {})['engine']['name']} convention for T.rule.tie[maximum]: ")


def test_every_float64_only_entry_hides_a_check_a_float32_engine_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With T.rule.tolerance's float64_only emptied (in a copy of the spec), the float32 reference fails
    every row the list names: each entry stands for a real float64-only claim, never for a row a float32
    engine would pass and the list would hide from it."""
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    listed = sorted(row("T.rule.tolerance")["float64_only"])
    spec_file = specs / "tensor_ops.toml"
    text, emptied = re.subn(
        r"^float64_only = \{.*\}$", "float64_only = {}", spec_file.read_text(encoding="utf-8"), flags=re.M
    )
    assert 1 == emptied
    spec_file.write_text(text, encoding="utf-8")
    monkeypatch.setenv("CONTRACTS_SPECS", str(specs))
    rows = ",".join(listed)
    arguments = ["--impl", f"{DTYPE}:Float32Reference", "--rows", rows, "--quick", "-n", "2", *NO_SHRINKING]
    run = run_verify(arguments, tmp_path / "float32.json")
    chosen = {row_id: status for row_id, status in statuses(run).items() if row_id in listed}
    assert (1, dict.fromkeys(listed, "failed")) == (run.code, chosen)


def test_a_dtype_declaration_is_checked_whatever_rows_are_chosen(runs: dict[str, Run]) -> None:
    """--rows naming only a row the declared dtype makes n/a still runs T.rule.tolerance, which finds the
    float64 numbers of an engine declaring float32: exit 1, never a green run on the declaration alone."""
    run = get(runs, "dtype-claimed")
    assert (1, ["S06.rule.forward-error", "T.rule.tolerance"]) == (
        run.code,
        (run.report or {})["selection"]["rows"],
    )
    # --rows takes prefixes: the row's backward-stable sibling is chosen too, and is n/a alike
    assert {
        "S06.rule.forward-error": "not applicable",
        "S06.rule.forward-error-stable": "not applicable",
        "T.rule.tolerance": "failed",
    } == statuses(run)

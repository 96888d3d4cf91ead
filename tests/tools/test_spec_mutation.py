"""The spec-mutation tool: which mutants each kind of row gets, which changes are no mutants, the runs
of spec and statement mutants in real pytest sessions, and the gate over them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tools.spec_mutation import main, runner, sample, statement_plugin, statements, tomlwriter
from tools.spec_mutation.catalog import file_mutants, schema_context
from tools.spec_mutation.equivalence import equivalent
from tools.spec_mutation.gate import gate_results
from tools.spec_mutation.operators import NEVER_MATCHES, row_mutants

from tests.common.paths import SPECS
from tests.common.processes import ended_within

CONTEXT = {
    **schema_context(json.loads((SPECS / "schema.json").read_bytes())),
    "failures": ["X.fail.a", "X.fail.b"],
}


def changes(row: dict[str, Any]) -> list[str]:
    return [m.change for m in row_mutants(row, CONTEXT)]


# ---------------------------------------------------------------- the mutants of each kind of row

FORMULA: dict[str, Any] = {
    "id": "X.cost.dot",
    "kind": "formula",
    "title": "t",
    "origin": "decision",
    "level": "contract",
    "category": "cost",
    "expr": "K + 1",
    "symbols": {"K": {"min": 1, "max": 9}},
    "compared_with": ["planner"],
    "examples": [{"where": {"K": 3}, "value": 4}],
}


def test_a_formula_row_gets_operators_constants_symbols_and_example_values_moved() -> None:
    """Each operator replaced by each other one, each integer ±1, each pair of symbols exchanged, each
    example's value ±1; the row itself is never changed."""
    row = {**FORMULA, "expr": "K * N", "symbols": {"K": {"min": 1, "max": 9}, "N": {"min": 1, "max": 9}}}
    assert [
        'expr: "K * N" -> "K + N"',
        'expr: "K * N" -> "K - N"',
        'expr: "K * N" -> "K / N"',
        'expr: "K * N" -> "K ** N"',
        'expr: "K * N" -> "N * K"',
        "examples.0.value: 4 -> 5",
        "examples.0.value: 4 -> 3",
    ] == changes(row)
    assert "K * N" == row["expr"]


def test_a_gradient_row_gets_another_inputs_grad_signs_and_dropped_factors() -> None:
    """The forward negated; per grad: each other input's grad, negated, each factor dropped; a change
    that changes nothing (two equal grads) is no mutant."""
    row: dict[str, Any] = {
        "id": "X.grad.mul",
        "kind": "gradient",
        "forward": "a * b",
        "grads": {"a": "g * b", "b": "g * a"},
    }
    assert [
        'forward: "a * b" -> "-(a * b)"',
        'grads.a: "g * b" -> "g * a"',
        'grads.a: "g * b" -> "-(g * b)"',
        'grads.a: "g * b" -> "g"',
        'grads.a: "g * b" -> "b"',
        'grads.b: "g * a" -> "g * b"',
        'grads.b: "g * a" -> "-(g * a)"',
        'grads.b: "g * a" -> "g"',
        'grads.b: "g * a" -> "a"',
    ] == changes(row)
    same = {**row, "forward": "a + b", "grads": {"a": "g", "b": "g"}}
    assert ['forward: "a + b" -> "-(a + b)"', 'grads.a: "g" -> "-g"', 'grads.b: "g" -> "-g"'] == changes(same)


def test_a_failure_row_gets_sibling_exceptions_an_unmatched_message_missing_probes_and_messages() -> None:
    """Each other exception of the schema, a pattern no message matches, each probe it lacks, each
    example message altered."""
    row: dict[str, Any] = {
        "id": "X.fail.a",
        "kind": "failure",
        "exception": "ShapeError",
        "message": "^bad$",
        "probes": ["graph_nodes", "operations", "values_created", "initializer_calls"],
        "examples": [{"inputs": [1], "message": "bad"}],
    }
    found = changes(row)
    siblings = [e for e in CONTEXT["exceptions"] if e != "ShapeError"]
    missing = [p for p in CONTEXT["probes"] if p not in row["probes"]]
    assert [f'exception: "ShapeError" -> "{e}"' for e in siblings] == found[: len(siblings)]
    assert f'message: "^bad$" -> {json.dumps(NEVER_MATCHES)}' == found[len(siblings)]
    probes = found[len(siblings) + 1 : -1]
    assert [
        f"probes: {json.dumps(row['probes'])} -> {json.dumps([*row['probes'], p])}" for p in missing
    ] == probes
    assert 'examples.0.message: "bad" -> "bad (mutant)"' == found[-1]


def test_a_contract_row_gets_each_enforcing_failure_replaced() -> None:
    """By the file's first failure row the contract does not name; none when it names them all."""
    row = {"id": "X.contract.c", "kind": "contract", "enforced_by": ["X.fail.b"]}
    assert ['enforced_by.0: "X.fail.b" -> "X.fail.a"'] == changes(row)
    assert [] == changes({**row, "enforced_by": ["X.fail.a", "X.fail.b"]})


def test_a_rule_row_gets_its_parameters_scaled_and_its_claims_moved() -> None:
    """Its own numbers scaled by 1024 and 1/1024 (prose, booleans and strings kept); every claim of an
    example ±1 or flipped, a string claim replaced by the key's other values in the row; an example's
    inputs (where, inputs, params, op, ...) kept."""
    row: dict[str, Any] = {
        "id": "X.rule.r",
        "kind": "rule",
        "title": "t",
        "k": 16,
        "strict": True,
        "examples": [
            {"where": {"a": 1}, "params": {"eps": 1e-6}, "op": "add", "out": [1, 2.5], "refused": "none"},
            {"op": "log", "refused": "forward", "ok": True},
        ],
    }
    assert [
        "k: 16 -> 16384",
        "k: 16 -> 0.015625",
        "examples.0.out: [1, 2.5] -> [2, 3.5]",
        "examples.0.out: [1, 2.5] -> [0, 1.5]",
        'examples.0.refused: "none" -> "forward"',
        'examples.1.refused: "forward" -> "none"',
        "examples.1.ok: true -> false",
    ] == changes(row)


def test_a_precedence_row_gets_neighbouring_checks_swapped_and_each_winner_replaced() -> None:
    """Each neighbouring pair swapped unless the row declares it unordered; each example's winner
    replaced by its other fault."""
    row: dict[str, Any] = {
        "id": "X.order.a",
        "kind": "precedence",
        "order": ["X.fail.p", "X.fail.q", "X.fail.r"],
        "examples": [{"faults": ["X.fail.p", "X.fail.r"], "case": {}, "raises": "X.fail.p"}],
    }
    assert [
        'order: ["X.fail.p", "X.fail.q", "X.fail.r"] -> ["X.fail.q", "X.fail.p", "X.fail.r"]',
        'order: ["X.fail.p", "X.fail.q", "X.fail.r"] -> ["X.fail.p", "X.fail.r", "X.fail.q"]',
        'examples.0.raises: "X.fail.p" -> "X.fail.r"',
    ] == changes(row)
    unordered = {**row, "unordered": [["X.fail.r", "X.fail.q"]]}
    assert 2 == len(changes(unordered))


def test_the_catalog_drops_refused_equivalent_and_repeated_changes() -> None:
    """K * 1 -> K / 1 and -> K ** 1 state the same function (dropped); a mutant the loader refuses
    (2 * K -> 2 ** K: a symbol as exponent) is dropped."""
    document: dict[str, Any] = {
        "meta": {"stage": "X", "title": "x", "seed": "-"},
        "rows": [{**FORMULA, "expr": "K * 1"}],
    }
    (entry,) = file_mutants(document, "x.toml", CONTEXT)
    assert {"same function on the domain": 2} == entry.dropped
    assert not any(m.row["expr"] in ("K / 1", "K ** 1") for m in entry.mutants)
    assert equivalent(FORMULA, {**FORMULA, "expr": "1 + K"})
    assert not equivalent(FORMULA, {**FORMULA, "expr": "K - 1"})
    (doubled,) = file_mutants({**document, "rows": [{**FORMULA, "expr": "2 * K"}]}, "x.toml", CONTEXT)
    assert {"refused by the loader": 1} == doubled.dropped  # 2 ** K: a symbol as exponent
    declared = {
        **document,
        "meta": {**document["meta"], "functions": ["exp"]},
        "rows": [{**FORMULA, "expr": "exp(K)"}],
    }
    (exp,) = file_mutants(declared, "x.toml", CONTEXT)
    assert 0 < len(exp.mutants)  # a function the file declares lets its mutants load
    (undeclared,) = file_mutants({**declared, "meta": document["meta"]}, "x.toml", CONTEXT)
    assert ([], {"refused by the loader": len(exp.mutants)}) == (undeclared.mutants, undeclared.dropped)
    gradient = {"id": "X.grad.g", "kind": "gradient", "forward": "x * 1", "grads": {"x": "g * 1"}}
    domain = {"domain": {"x": {"min": 1, "max": 2, "type": "float"}}}
    assert equivalent({**gradient, **domain}, {**gradient, **domain, "grads": {"x": "g"}})


@pytest.mark.parametrize("path", sorted(SPECS.glob("*.toml")), ids=lambda p: p.name)
def test_every_spec_file_written_back_reads_as_the_same_document(path: Path) -> None:
    """The plugin writes mutated spec files with tomlwriter: written and read again, every spec file
    is the same document (nan included)."""
    import tomllib

    original = tomllib.loads(path.read_text(encoding="utf-8"))
    again = tomllib.loads(tomlwriter.dumps(original))
    assert json.dumps(original, sort_keys=True) == json.dumps(again, sort_keys=True)


def test_a_sample_draws_the_same_rows_for_a_seed_and_a_subset_at_a_smaller_percentage() -> None:
    """The same seed draws the same names; 10 % draws a subset of 50 %; another seed, another set."""
    names = [f"R.{n}" for n in range(400)]
    drawn = {p: {n for n in names if sample.drawn(n, "0", p)} for p in (10.0, 50.0)}
    assert drawn[10.0] < drawn[50.0]
    assert 0 < len(drawn[10.0]) < 80 < len(drawn[50.0]) < 280
    assert drawn[50.0] == {n for n in names if sample.drawn(n, "0", 50.0)}
    assert drawn[50.0] != {n for n in names if sample.drawn(n, "1", 50.0)}


# ---------------------------------------------------------------- spec mutants in a real session

SAMPLE_SPEC = """[meta]
stage = "X"
title = "sample"
seed = "-"

[[rows]]
id = "X.cost.odd"
kind = "formula"
title = "the K-th odd number"
origin = "decision"
level = "contract"
category = "cost"
expr = "2 * K - 1"
symbols = { K = { min = 1, max = 9 } }
compared_with = ["planner"]
examples = [{ where = { K = 3 }, value = 5 }]

[[rows]]
id = "X.rule.untested"
kind = "rule"
title = "no test names it"
origin = "decision"
level = "values"
category = "value"
statement = "-"
examples = [{ n = 1 }]
"""
SAMPLE_ROWS = """from functools import cache

from contracts.spec import load_rows


@cache
def all_rows():
    return tuple(load_rows())
"""
SAMPLE_TESTS = """import pytest

from contracts.spec import evaluate
from sample_rows import all_rows


def odd(K):  # the implementation under test
    return 2 * K - 1


ROWS = [pytest.param(r, marks=pytest.mark.spec(r.id)) for r in all_rows() if r.kind == "formula"]
EXAMPLES = [pytest.param(r, e, marks=pytest.mark.spec(r.id)) for r in ROWS[0].values for e in r["examples"]]


@pytest.mark.parametrize(("spec_row", "example"), EXAMPLES)
def test_golden(spec_row, example):
    assert COMPARED(example["value"], odd(**example["where"]))


@pytest.mark.parametrize("spec_row", ROWS)
def test_property(spec_row):
    for k in range(1, 10):
        assert evaluate(spec_row["expr"], {"K": k}) == odd(k)
"""


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tiny suite: a spec directory with two rows, a rows module and a test file comparing values."""
    (tmp_path / "specs").mkdir()
    shutil.copy(SPECS / "schema.json", tmp_path / "specs" / "schema.json")
    (tmp_path / "specs" / "x.toml").write_text(SAMPLE_SPEC)
    (tmp_path / "sample_rows.py").write_text(SAMPLE_ROWS)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    spec(*ids): rows\n")
    write_tests(tmp_path, compare=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path / "specs"))
    yield tmp_path
    for name, module in list(sys.modules.items()):  # a later run must import the suite afresh
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def write_tests(root: Path, compare: bool) -> None:
    comparison = "lambda expected, actual: expected == actual" if compare else "lambda expected, actual: True"
    (root / "test_sample.py").write_text(f"COMPARED = {comparison}\n" + SAMPLE_TESTS)


class InProcess:
    """Stands in for subprocess.Popen: runs the pytest command in this process, with the given
    CONTRACTS_SPECS (the shard's copy)."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        assert [sys.executable, "-m", "pytest"] == args[:3]
        self.args, self.specs = args[3:], env["CONTRACTS_SPECS"]

    def wait(self) -> int:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CONTRACTS_SPECS", self.specs)
            for name in [n for n in sys.modules if n in ("sample_rows", "test_sample")]:
                del sys.modules[name]
            return int(pytest.main([*self.args, "--import-mode=importlib"]))


def run_suite(root: Path, monkeypatch: pytest.MonkeyPatch, jobs: int = 1) -> dict[str, Any]:
    monkeypatch.setattr(subprocess, "Popen", InProcess)
    options = runner.RunOptions(
        root,
        root / "specs",
        jobs=jobs,
        suite=(str(root / "test_sample.py"),),
        rows_provider="sample_rows:all_rows",
    )
    return runner.run(options)


def every_key(root: Path) -> set[tuple[str, str]]:
    from tools.spec_mutation.catalog import catalog

    return {(entry.row_id, m.change) for entry in catalog(root / "specs") for m in entry.mutants}


def test_every_mutant_of_a_well_tested_row_is_killed_and_an_untested_row_runs_none(
    suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each mutant runs the row's bound tests on the mutated spec (two shards); the untested row's
    mutants do not run; the spec file itself is never written."""
    results = run_suite(suite, monkeypatch, jobs=2)
    odd, untested = results["rows"]
    assert ("X.cost.odd", 2, {"killed"}) == (
        odd["row_id"],
        odd["tests"],
        {m["status"] for m in odd["mutants"]},
    )
    by_change = {m["change"]: m["killed_by"] for m in odd["mutants"]}
    assert "test_sample.py::test_golden[spec_row0-example0]" == by_change["examples.0.value: 5 -> 6"]
    assert "test_sample.py::test_property[spec_row0]" == by_change['expr: "2 * K - 1" -> "2 * K + 1"']
    assert ("X.rule.untested", 0, {"not run"}) == (
        untested["row_id"],
        untested["tests"],
        {m["status"] for m in untested["mutants"]},
    )
    assert SAMPLE_SPEC == (suite / "specs" / "x.toml").read_text()


def test_a_golden_that_stops_reading_a_value_fails_the_gate_naming_its_survivors(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example's value mutants survive a golden that no longer compares it: the gate names them
    by row and change (the untested row is left out here); the session's rows read as the spec again
    after the last mutant."""
    write_tests(suite, compare=False)
    results = {"spec": run_suite(suite, monkeypatch)}
    results["spec"]["rows"] = results["spec"]["rows"][:1]
    from tools.spec_mutation.catalog import catalog

    assert 1 == gate_results(results, every_key(suite), catalog(suite / "specs")[:1], suite / "none.toml")
    live = sys.modules["sample_rows"].all_rows()[0]
    assert (5, "2 * K - 1") == (live["examples"][0]["value"], live["expr"])  # restored after each mutant
    out = capsys.readouterr().out
    assert "FAIL: unlisted survived mutant: X.cost.odd: examples.0.value: 5 -> 6 (kill it, or list it" in out
    assert "FAIL: unlisted survived mutant: X.cost.odd: examples.0.value: 5 -> 4 (kill it, or list it" in out


def test_only_a_surviving_probe_extension_is_satisfied_and_rows_are_chosen_by_any_prefix() -> None:
    """A probe extension that survives asks for a probe the implementation already meets: satisfied,
    no mutant; any other survivor survived. --rows A --rows B runs the rows either names."""
    from tools.spec_mutation.catalog import RowMutants
    from tools.spec_mutation.plugin import survivor

    assert ["satisfied", "survived", "survived"] == [survivor(op) for op in ("extend", "plus", "sibling")]
    rows = [RowMutants("x", row_id) for row_id in ("A.a", "B.b", "C.c")]
    assert ["A.a", "B.b"] == [row.row_id for row in runner.chosen(rows, ["A.", "B."])]


def test_a_row_failing_unmutated_runs_no_mutant(suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the bound tests fail on the unchanged spec, the row's mutants are not run, naming the test."""
    (suite / "specs" / "x.toml").write_text(SAMPLE_SPEC.replace("value = 5", "value = 6"))
    odd = run_suite(suite, monkeypatch)["rows"][0]
    assert {("not run", "test_sample.py::test_golden[spec_row0-example0]")} == {
        (m["status"], m["killed_by"]) for m in odd["mutants"]
    }


def test_the_gate_judges_listed_entries_against_every_row_not_only_those_that_ran(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A listed entry of a row that did not run but has that mutant is fine; one that matches no
    mutant of today's spec fails; a row without mutants fails unless listed as a [[row]]."""
    from tools.spec_mutation.catalog import RowMutants
    from tools.spec_mutation.operators import Mutant

    listed = tmp_path / "list.toml"
    listed.write_text(
        "[[mutant]]\nrow = 'A.x'\nchange = 'v: 1 -> 2'\nreason = 'r'\n\n"
        "[[mutant]]\nrow = 'A.x'\nchange = 'v: 1 -> 9'\nreason = 'r'\n\n"
        "[[row]]\nid = 'C.empty'\nreason = 'prose'\n"
        "[[row]]\nid = 'C.empty'\nreason = 'prose'\n"
    )
    results = {
        "spec": {"rows": [{"row_id": "B.y", "tests": 1, "mutants": [{"change": "c", "status": "killed"}]}]}
    }
    rows = [
        RowMutants("a.toml", "A.x", [Mutant("A.x", "v", "plus", 0, "v: 1 -> 2", {})]),
        RowMutants("b.toml", "B.y", [Mutant("B.y", "v", "plus", 0, "c", {})]),
        RowMutants("c.toml", "C.empty"),
        RowMutants("d.toml", "D.empty"),
    ]
    assert 1 == gate_results(results, {("A.x", "v: 1 -> 2"), ("B.y", "c")}, rows, listed)
    out = capsys.readouterr().out.splitlines()
    assert [
        "FAIL: row without mutants: D.empty (give it machine-readable fields, or list it)",
        "FAIL: listed mutant matches no mutant of today's code: A.x: v: 1 -> 9; remove it from "
        + str(listed),
    ] == [line for line in out if line.startswith("FAIL")]


def test_main_gates_a_results_file_and_fails_without_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--gate-only gates an existing results file against today's spec and code: every listed
    equivalent names a mutant of today's spec or guards (none is stale, though none ran); an empty run
    judged nothing and fails; no file: exit 2."""
    assert 2 == main.main(["--gate-only", "--out", str(tmp_path / "none.json")])
    (tmp_path / "r.json").write_text(json.dumps({"spec": {"rows": []}}))
    assert 1 == main.main(["--gate-only", "--out", str(tmp_path / "r.json")])
    lines = capsys.readouterr().out.splitlines()
    assert ["FAIL: no mutant was judged"] == [line for line in lines if line.startswith("FAIL")]
    assert "spec-mutation gate: failed" == lines[-1]


# ---------------------------------------------------------------- statement mutants

GUARDS = '''from contracts.core import checks


def entry(x, y):
    """doc"""
    checks.positive_int(x, "x")
    if y < 0:
        raise ValueError("y")
    z = x + y
    if z:
        raise ValueError
    else:
        pass
    try:
        check_more(x)
    finally:
        check_after(x)
    return z
'''


def test_guards_are_deleted_and_neighbouring_guards_swapped_in_every_block(tmp_path: Path) -> None:
    """A guard is an `if` ending in raise without else, or a check call; nested blocks count; the
    deletion leaves `pass` and the rest of the file as it was."""
    path = tmp_path / "m.py"
    path.write_text(GUARDS)
    found = statements.module_mutants(path, "pkg.m")
    assert [
        "delete `checks.positive_int(x, 'x')`",
        "swap `checks.positive_int(x, 'x')` and `if y < 0:`",
        "delete `if y < 0:`",
        "delete `check_more(x)`",
        "delete `check_after(x)`",
    ] == [m.change for m in found]
    assert {"pkg.m.entry"} == {m.function for m in found}
    lines = GUARDS.splitlines(keepends=True)
    assert "".join([*lines[:6], "    pass  # spec-mutation: guard deleted\n", *lines[8:]]) == found[2].source


IMPL = """def guarded(x):
    if x < 0:
        raise ValueError("negative")
    return x


def unchecked(x):
    if x > 100:
        raise ValueError("big")
    return x


def untested(x):
    check(x)
"""
IMPL_TESTS = """import os
import time

import pytest

from sample_pkg.impl import guarded, unchecked


def test_guarded_slowly():
    time.sleep(0.2)
    with open(os.environ["RAN_LOG"], "a") as log:
        log.write("slow ")
    with pytest.raises(ValueError, match="negative"):
        guarded(-1)


def test_guarded():
    with open(os.environ["RAN_LOG"], "a") as log:
        log.write("fast ")
    with pytest.raises(ValueError, match="negative"):
        guarded(-1)


def test_unchecked():
    assert 1 == unchecked(1)
"""


class InProcessRun:
    """Stands in for subprocess.run: runs the pytest command in this process."""

    seen: ClassVar[list[dict[str, str]]] = []

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        InProcessRun.seen.append(env)
        self.returncode = int(pytest.main([*args[3:], "--import-mode=importlib", "-p", "no:randomly"]))


def test_a_deleted_guard_is_killed_by_its_fastest_test_and_an_unchecked_one_survives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The profiled pass runs every test once; the mutant runs its function's tests fastest first and
    stops at the first failure; a guard no test checks survives; an uncalled one has no tests; the
    source is never edited; the session runs with one-thread pools (it forks a child per mutant)."""
    log = tmp_path / "ran.log"
    monkeypatch.setenv("RAN_LOG", str(log))
    (tmp_path / "src" / "sample_pkg").mkdir(parents=True)
    (tmp_path / "src" / "sample_pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "sample_pkg" / "impl.py").write_text(IMPL)
    (tmp_path / "test_impl.py").write_text(IMPL_TESTS)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(subprocess, "run", InProcessRun)
    options = runner.RunOptions(
        tmp_path, SPECS, jobs=1, package="sample_pkg", statement_suite=(str(tmp_path / "test_impl.py"),)
    )
    try:
        results = runner.run_statements(options)
    finally:
        for name in [n for n in sys.modules if n.startswith(("sample_pkg", "test_impl"))]:
            del sys.modules[name]
    assert "slow fast fast " == log.read_text()
    assert [
        ("sample_pkg.impl.guarded", "delete `if x < 0:`", "killed", 2),
        ("sample_pkg.impl.unchecked", "delete `if x > 100:`", "survived", 1),
        ("sample_pkg.impl.untested", "delete `check(x)`", "no tests", 0),
    ] == [(m["function"], m["change"], m["status"], m["tests"]) for m in results["mutants"]]
    assert IMPL == (tmp_path / "src" / "sample_pkg" / "impl.py").read_text()
    assert "1" == InProcessRun.seen[-1]["OMP_NUM_THREADS"]


def test_no_statement_mutant_is_judged_while_a_test_fails_on_the_unmutated_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test that fails before any mutation would count as killing every mutant it runs for: the run
    stops with an error naming it instead of writing verdicts."""
    monkeypatch.setenv("RAN_LOG", str(tmp_path / "ran.log"))
    (tmp_path / "src" / "sample_pkg").mkdir(parents=True)
    (tmp_path / "src" / "sample_pkg" / "__init__.py").write_text("")
    (tmp_path / "src" / "sample_pkg" / "impl.py").write_text(IMPL)
    (tmp_path / "test_broken.py").write_text(
        IMPL_TESTS + "\n\ndef test_broken():\n    assert 1 == unchecked(2)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(subprocess, "run", InProcessRun)
    options = runner.RunOptions(
        tmp_path, SPECS, jobs=1, package="sample_pkg", statement_suite=(str(tmp_path / "test_broken.py"),)
    )
    try:
        with pytest.raises(
            RuntimeError, match=r"1 tests fail on the unmutated code.*test_broken\.py::test_broken$"
        ):
            runner.run_statements(options)
    finally:
        for name in [n for n in sys.modules if n.startswith(("sample_pkg", "test_broken"))]:
            del sys.modules[name]


def plain() -> int:
    return 1


def test_a_timed_out_mutant_is_detected_and_leaves_no_process_its_tests_started(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A mutant whose test started a process and hangs: past the limit it is a timeout (detected),
    and the child and the process it started are both killed."""
    pid_file = tmp_path / "grandchild.pid"

    def hanging(function: Any, code: Any, tests: Any) -> int:
        started = subprocess.Popen(["sleep", "60"])
        pid_file.write_text(str(started.pid))
        time.sleep(30)
        return 0

    monkeypatch.setattr(statement_plugin, "child_exit_code", hanging)
    assert "timeout" == statement_plugin.run_mutant(plain, plain.__code__, [], 1.0)
    assert ended_within(int(pid_file.read_text()), seconds=10)


def test_an_adapter_whose_engine_is_not_installed_gets_no_statement_mutants() -> None:
    """An adapter module's guards are mutated only where its engine is installed (elsewhere its tests
    skip, so no test could kill them); every other module is mutated wherever it runs."""
    assert ("nonexistent", None, None, None) == (
        runner.engine_not_installed("contracts.engines.nonexistent_engine"),
        runner.engine_not_installed(
            "contracts.engines.torch_engine" if find_spec("torch") else "contracts.core.value"
        ),
        runner.engine_not_installed("contracts.engines.base"),
        runner.engine_not_installed("contracts.core.checks"),
    )

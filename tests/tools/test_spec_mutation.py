"""The spec-mutation tool: its operators, the TOML writer, the gate, and the runs in real sessions."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import runpy
import shutil
import subprocess
import sys
import time
import tomllib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from tools.spec_mutation import (
    expressions,
    gate,
    main,
    plugin,
    runner,
    statement_plugin,
    statements,
    summary,
    tomlwriter,
)
from tools.spec_mutation import sample as spec_sample
from tools.spec_mutation.catalog import RowMutants, catalog, file_mutants, schema_context
from tools.spec_mutation.equivalence import equivalent, refused, value_at
from tools.spec_mutation.operators import NEVER_MATCHES, Mutant, row_mutants

from contracts.spec import spec_dir
from tests.common.argparse_spec import described as options_described
from tests.common.fakes import SteadyClock
from tests.common.paths import SPECS
from tests.common.processes import ended_within

CONTEXT = {
    **schema_context(json.loads((SPECS / "schema.json").read_bytes())),
    "failures": ["X.fail.a", "X.fail.b"],
}


def described(row: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.mutant_id(), m.description) for m in row_mutants(row, CONTEXT)]


# ---------------------------------------------------------------- the TOML writer


@pytest.mark.parametrize("path", sorted(SPECS.glob("*.toml")), ids=lambda p: p.name)
def test_writer_round_trips_every_spec_file(path: Path) -> None:
    """Written back and read again, every spec file is the same document (nan included)."""
    document = tomllib.loads(path.read_text())
    assert json.dumps(document) == json.dumps(tomllib.loads(tomlwriter.dumps(document)))


def test_writer_values() -> None:
    """Scalars, arrays, inline tables, quoted keys and special floats are written as TOML."""
    document = {
        "top": 1,
        "meta": {"a b": True, "off": False, "f": 2.0, "g": 1e20, "h": -0.5},
        "rows": [{"x": [1, [2.5]], "t": {}, "u": {"k": 'é"\n'}}, {"n": math.inf, "m": -math.inf}],
    }
    text = tomlwriter.dumps(document)
    assert (
        'top = 1\n\n[meta]\n"a b" = true\noff = false\nf = 2.0\ng = 1e+20\nh = -0.5\n\n'
        '[[rows]]\nx = [1, [2.5]]\nt = {}\nu = { k = "é\\"\\n" }\n\n[[rows]]\nn = inf\nm = -inf\n'
    ) == text
    assert document == tomllib.loads(text)
    assert "nan" == tomlwriter.float_text(math.nan)
    assert math.isnan(tomllib.loads(tomlwriter.dumps({"v": math.nan}))["v"])


def test_writer_refuses_other_types() -> None:
    """A value TOML cannot hold is named."""
    with pytest.raises(TypeError, match=r"^cannot write set \{1\} as TOML$"):
        tomlwriter.value({1})


def test_writer_keeps_an_empty_array_as_a_value() -> None:
    """An empty list is an array value, not an array of tables."""
    assert "a = []\n" == tomlwriter.dumps({"a": []})
    assert not tomlwriter.is_table_array([{"a": 1}, 2])


# ---------------------------------------------------------------- expression mutants


def test_operator_swaps() -> None:
    """Each + - * / ** becomes each of the others, outermost first."""
    assert [
        ("operator 0: + -> -", "a - b * c"),
        ("operator 0: + -> *", "a * (b * c)"),
        ("operator 0: + -> /", "a / (b * c)"),
        ("operator 0: + -> **", "a ** (b * c)"),
        ("operator 1: * -> +", "a + (b + c)"),
        ("operator 1: * -> -", "a + (b - c)"),
        ("operator 1: * -> /", "a + b / c"),
        ("operator 1: * -> **", "a + b ** c"),
    ] == list(expressions.operator_swaps("a + b * c"))


def test_constant_shifts_only_integers() -> None:
    """Each integer constant moves by +1 and -1; floats stay."""
    assert [
        ("constant 0: 1 -> 2", "2 * K - 2"),
        ("constant 0: 1 -> 0", "2 * K - 0"),
        ("constant 1: 2 -> 3", "3 * K - 1"),
        ("constant 1: 2 -> 1", "1 * K - 1"),
    ] == list(expressions.constant_shifts("2 * K - 1"))
    assert [] == list(expressions.constant_shifts("0.5 * K"))


def test_symbol_swaps() -> None:
    """Each pair of the symbols used is exchanged; function names and unused symbols are not."""
    assert [("symbols a <-> b", "exp(b) - a")] == list(
        expressions.symbol_swaps("exp(a) - b", frozenset({"a", "b", "c"}))
    )
    assert [] == list(expressions.symbol_swaps("a * 2", frozenset({"a", "b"})))


def test_factor_drops() -> None:
    """A product drops either factor; a quotient drops the divisor, or the dividend (1 / divisor)."""
    assert [
        ("factor 0: drop b", "g * a"),
        ("factor 0: drop g * a", "1 / b"),
        ("factor 1: drop a", "g / b"),
        ("factor 1: drop g", "a / b"),
    ] == list(expressions.factor_drops("g * a / b"))


def test_negated() -> None:
    """The sign of the whole expression flips."""
    assert "-(a + b)" == expressions.negated("a + b")


# ---------------------------------------------------------------- row mutants


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


def test_formula_mutants() -> None:
    """Formula rows: operators, integer constants, symbols and each example's value ±1."""
    row = {**FORMULA, "expr": "K * N + 1", "symbols": {"K": {"min": 1, "max": 9}, "N": {"min": 1, "max": 9}}}
    found = described(row)
    assert [
        ("X.cost.dot:expr:operator:0", "operator 0: + -> -"),
        ("X.cost.dot:expr:operator:4", "operator 1: * -> +"),
        ("X.cost.dot:expr:constant:0", "constant 0: 1 -> 2"),
        ("X.cost.dot:expr:constant:1", "constant 0: 1 -> 0"),
        ("X.cost.dot:expr:symbols:0", "symbols K <-> N"),
        ("X.cost.dot:examples.0.value:plus:0", "every number +1"),
        ("X.cost.dot:examples.0.value:minus:0", "every number -1"),
    ] == [found[0], found[4], *found[8:]]
    assert 13 == len(found)
    mutants = row_mutants(row, CONTEXT)
    assert (5, 3) == (mutants[-2].row["examples"][0]["value"], mutants[-1].row["examples"][0]["value"])
    assert "K * N + 1" == row["expr"]  # the row itself is never changed
    assert "N * K + 1" == mutants[10].row["expr"]


def test_a_change_that_changes_nothing_is_no_mutant() -> None:
    """Two grads with the same text give no other-grad mutant."""
    row = {
        "id": "X.grad.add",
        "kind": "gradient",
        "forward": "a + b",
        "grads": {"a": "g", "b": "g"},
        "domain": {"a": {"min": -1, "max": 1}, "b": {"min": -1, "max": 1}},
        "examples": [{"where": {"a": 1.0, "b": 2.0}, "value": 3.0, "grads": {"a": 1.0, "b": 1.0}}],
    }
    assert [
        ("X.grad.add:forward:sign:0", "forward negated"),
        ("X.grad.add:grads.a:sign:0", "grads.a negated"),
        ("X.grad.add:grads.b:sign:0", "grads.b negated"),
        ("X.grad.add:examples.0.value:plus:0", "every number +1"),
        ("X.grad.add:examples.0.value:minus:0", "every number -1"),
        ("X.grad.add:examples.0.grads.a:plus:0", "every number +1"),
        ("X.grad.add:examples.0.grads.a:minus:0", "every number -1"),
        ("X.grad.add:examples.0.grads.b:plus:0", "every number +1"),
        ("X.grad.add:examples.0.grads.b:minus:0", "every number -1"),
    ] == described(row)


def test_gradient_mutants() -> None:
    """Gradient rows: another input's grad, the sign, each factor; the forward's sign."""
    row = {
        "id": "X.grad.mul",
        "kind": "gradient",
        "forward": "a * b",
        "grads": {"a": "g * b", "b": "g * a"},
        "domain": {"a": {"min": -1, "max": 1}, "b": {"min": -1, "max": 1}},
    }
    assert [
        ("X.grad.mul:forward:sign:0", "forward negated"),
        ("X.grad.mul:grads.a:other-grad:0", "grads.a := grads.b"),
        ("X.grad.mul:grads.a:sign:0", "grads.a negated"),
        ("X.grad.mul:grads.a:factor:0", "factor 0: drop b"),
        ("X.grad.mul:grads.a:factor:1", "factor 0: drop g"),
        ("X.grad.mul:grads.b:other-grad:0", "grads.b := grads.a"),
        ("X.grad.mul:grads.b:sign:0", "grads.b negated"),
        ("X.grad.mul:grads.b:factor:0", "factor 0: drop a"),
        ("X.grad.mul:grads.b:factor:1", "factor 0: drop g"),
    ] == described(row)
    mutants = row_mutants(row, CONTEXT)
    assert ["-(a * b)", "g * a", "-(g * b)", "g", "b"] == [
        mutants[0].row["forward"],
        *(m.row["grads"]["a"] for m in mutants[1:5]),
    ]


FAILURE: dict[str, Any] = {
    "id": "X.fail.a",
    "kind": "failure",
    "exception": "ShapeError",
    "message": "^bad$",
    "probes": ["graph_nodes", "operations", "values_created", "initializer_calls"],
    "examples": [{"inputs": [1], "message": "bad"}, {"inputs": [2]}],
}


def test_failure_mutants() -> None:
    """Failure rows: each sibling exception, an unmatched message, each missing probe, example messages."""
    found = described(FAILURE)
    assert [
        ("X.fail.a:exception:sibling:0", "ShapeError -> ResourceBudgetError"),
        ("X.fail.a:exception:sibling:1", "ShapeError -> ParameterIdentityError"),
        ("X.fail.a:exception:sibling:6", "ShapeError -> ZeroDivisionError"),
        ("X.fail.a:message:unmatched:0", "a pattern no message matches"),
        ("X.fail.a:probes:extend:0", "+ parameter_changes"),
        ("X.fail.a:probes:extend:1", "+ parameter_identity"),
        ("X.fail.a:probes:extend:2", "+ gradients_written"),
        ("X.fail.a:examples.0.message:altered:0", "message + ' (mutant)'"),
    ] == [*found[:2], *found[6:]]
    mutants = row_mutants(FAILURE, CONTEXT)
    assert ["ResourceBudgetError", "ParameterIdentityError"] == [m.row["exception"] for m in mutants[:2]]
    assert NEVER_MATCHES == mutants[7].row["message"]
    assert [*FAILURE["probes"], "parameter_changes"] == mutants[8].row["probes"]
    assert "bad (mutant)" == mutants[11].row["examples"][0]["message"]
    bare = {key: value for key, value in FAILURE.items() if key != "examples"}  # a row without examples
    assert [m.mutant_id() for m in mutants[:11]] == [m.mutant_id() for m in row_mutants(bare, CONTEXT)]


def test_contract_mutants() -> None:
    """Contract rows: each enforcing failure replaced by the first failure the row does not name."""
    row = {"id": "X.contract.c", "kind": "contract", "enforced_by": ["X.fail.b"]}
    assert [("X.contract.c:enforced_by.0:other-failure:0", "X.fail.b -> X.fail.a")] == described(row)
    assert ["X.fail.a"] == row_mutants(row, CONTEXT)[0].row["enforced_by"]
    assert [] == described({**row, "enforced_by": ["X.fail.a", "X.fail.b"]})


def test_rule_mutants() -> None:
    """Rule rows: every claim of every example ±1 (nested numbers too), booleans flipped, inputs (where,
    inputs, upstream, params) kept."""
    row = {
        "id": "X.rule.r",
        "kind": "rule",
        "examples": [
            {
                "where": {"a": 1},
                "inputs": [1],
                "upstream": 1,
                "params": {"axis": 0, "eps": 1e-6},
                "op": "add",
                "out": [[1, 2.5], "s", True],
                "refused": True,
            }
        ],
    }
    assert [
        ("X.rule.r:examples.0.out:plus:0", "every number +1"),
        ("X.rule.r:examples.0.out:minus:0", "every number -1"),
        ("X.rule.r:examples.0.refused:flip:0", "True -> False"),
    ] == described(row)
    mutants = row_mutants(row, CONTEXT)
    assert [[[2, 3.5], "s", False], [[0, 1.5], "s", False], False] == [
        m.row["examples"][0][k] for m, k in zip(mutants, ("out", "out", "refused"))
    ]
    assert [] == described({"id": "X.rule.s", "kind": "rule"})


def test_rule_parameter_mutants() -> None:
    """A rule's own numbers (a bound's k, nested tolerances) scaled by 1024 and by 1/1024, in document
    order, before its example claims; prose, booleans, strings and a 0 (unchanged when scaled) give none."""
    row: dict[str, Any] = {
        "id": "X.rule.p",
        "kind": "rule",
        "title": "t",
        "note": "n",
        "k": 16,
        "tolerances": {"value": {"rel": 1e-12, "abs": 0.0}},
        "strict": True,
        "cases": {"maximum": "to a"},
        "scales": ["s", 2],
        "examples": [{"op": "add", "out": 2}],
    }
    assert [
        ("X.rule.p:k:loosen:0", "16 * 1024"),
        ("X.rule.p:k:tighten:0", "16 * 0.0009765625"),
        ("X.rule.p:tolerances.value.rel:loosen:0", "1e-12 * 1024"),
        ("X.rule.p:tolerances.value.rel:tighten:0", "1e-12 * 0.0009765625"),
        ("X.rule.p:scales.1:loosen:0", "2 * 1024"),
        ("X.rule.p:scales.1:tighten:0", "2 * 0.0009765625"),
        ("X.rule.p:examples.0.out:plus:0", "every number +1"),
        ("X.rule.p:examples.0.out:minus:0", "every number -1"),
    ] == described(row)
    mutants = row_mutants(row, CONTEXT)
    assert [16384, 0.015625, {"rel": 1.024e-9, "abs": 0.0}, ["s", 2048]] == [
        mutants[0].row["k"],
        mutants[1].row["k"],
        mutants[2].row["tolerances"]["value"],
        mutants[4].row["scales"],
    ]
    assert (16, 1e-12) == (row["k"], row["tolerances"]["value"]["rel"])


def test_string_claim_mutants() -> None:
    """A string claim becomes each other value its key takes in the row, in order of appearance; a key
    with one value in the row, and a selector (op), give no mutant."""
    examples = [
        {"op": "multiply", "refused": "forward", "dtype": "float64"},
        {"op": "log", "refused": "none", "dtype": "float64"},
        {"op": "log", "refused": "backward"},
    ]
    row = {"id": "X.rule.s", "kind": "rule", "examples": examples}
    assert [
        ("X.rule.s:examples.0.refused:other-value:0", "'forward' -> 'none'"),
        ("X.rule.s:examples.0.refused:other-value:1", "'forward' -> 'backward'"),
        ("X.rule.s:examples.1.refused:other-value:0", "'none' -> 'forward'"),
        ("X.rule.s:examples.1.refused:other-value:1", "'none' -> 'backward'"),
        ("X.rule.s:examples.2.refused:other-value:0", "'backward' -> 'forward'"),
        ("X.rule.s:examples.2.refused:other-value:1", "'backward' -> 'none'"),
    ] == described(row)
    mutated = row_mutants(row, CONTEXT)[3].row
    assert ["forward", "backward", "backward"] == [example["refused"] for example in mutated["examples"]]
    assert "none" == examples[1]["refused"]


# ---------------------------------------------------------------- which changes are no mutants


def test_refused_by_the_loader() -> None:
    """A symbol as exponent, or a formula that does not evaluate at an example, is refused by the
    loader; the original row is not."""
    assert refused({**FORMULA, "expr": "2 ** K"}, frozenset())
    assert not refused(FORMULA, frozenset())
    # one that does not evaluate at an example (K = 3 there) is refused too; elsewhere it is not
    assert refused({**FORMULA, "expr": "K / (K - 3)"}, frozenset())
    assert not refused({**FORMULA, "expr": "K / (K - 4)"}, frozenset())


def test_equivalent_on_the_domain() -> None:
    """K + 1 and 1 + K state the same function; K + 1 and K - 1 do not; undefined everywhere alike is same."""
    assert equivalent(FORMULA, {**FORMULA, "expr": "1 + K"})
    assert not equivalent(FORMULA, {**FORMULA, "expr": "K - 1"})
    assert not equivalent(FORMULA, {**FORMULA, "examples": []})  # no expression changed
    zero = {**FORMULA, "expr": "K / 0"}
    assert equivalent(zero, {**zero, "expr": "1 / 0"})
    assert not equivalent(zero, {**zero, "expr": "K"})
    gradient: dict[str, Any] = {
        "id": "X.grad.m",
        "kind": "gradient",
        "forward": "matmul(a, b)",
        "grads": {"a": "matmul(g, T(b))", "b": "matmul(T(a), g)"},
        "domain": {"a": {"min": -1, "max": 1, "type": "float"}, "b": {"min": -1, "max": 1, "type": "float"}},
    }
    assert not equivalent(gradient, {**gradient, "grads": {**gradient["grads"], "a": "matmul(T(b), g)"}})
    assert equivalent(gradient, {**gradient, "grads": {**gradient["grads"], "a": "T(matmul(b, T(g)))"}})
    assert not equivalent(gradient, {**gradient, "grads": {**gradient["grads"], "a": "1"}})  # a scalar


def test_sampled_values_are_float_arrays_and_a_scalar_domain_error_is_undefined() -> None:
    """The sampler compares float64 values: a scalar row's domain error is undefined (None), not nan
    (numpy's functions are for gradient rows); an integer result is a float; numpy's floating-point
    warnings stay silenced even where warnings are errors."""
    assert value_at("log(x)", {"x": -1.0}, arrays=False) is None
    integer = value_at("n ** 40", {"n": 10}, arrays=False)
    assert ("float64", 1e40) == (str(integer.dtype), float(integer))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        undefined = value_at("log(x)", {"x": np.array([-1.0, 4.0])}, arrays=True)
    assert [True, False] == [bool(v) for v in np.isnan(undefined)]


def test_catalog_drops_and_counts(tmp_path: Path) -> None:
    """The catalog keeps real mutants and counts the refused, equivalent and repeated ones."""
    gradient: dict[str, Any] = {
        "id": "X.grad.cube",
        "kind": "gradient",
        "title": "t",
        "origin": "decision",
        "level": "values",
        "category": "gradient",
        "op": "cube",
        "forward": "x * x * x",
        "grads": {"x": "g * x * x"},
        "domain": {"x": {"min": 1, "max": 2, "type": "float"}},
    }
    document = {
        "meta": {"stage": "X", "title": "x", "seed": "-"},
        "rows": [{**FORMULA, "expr": "K * 1"}, gradient],
    }
    formula, cube = file_mutants(document, "x.toml", CONTEXT)
    assert ("x.toml", "X.cost.dot") == (formula.file, formula.row_id)
    assert {"same function on the domain": 2} == formula.dropped
    assert [
        "X.cost.dot:expr:operator:0",
        "X.cost.dot:expr:operator:1",
        "X.cost.dot:expr:constant:0",
        "X.cost.dot:expr:constant:1",
        "X.cost.dot:examples.0.value:plus:0",
        "X.cost.dot:examples.0.value:minus:0",
    ] == [m.mutant_id() for m in formula.mutants]
    assert {"repeated": 1} == cube.dropped
    assert ["g * x", "x", "x * x"] == [m.row["grads"]["x"] for m in cube.mutants if m.operator == "factor"]
    shutil.copy(SPECS / "schema.json", tmp_path / "schema.json")
    (tmp_path / "x.toml").write_text(tomlwriter.dumps({**document, "rows": [{**FORMULA, "expr": "2 * K"}]}))
    (found,) = catalog(tmp_path)
    assert {"refused by the loader": 1} == found.dropped


# ---------------------------------------------------------------- the plugin in real sessions

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
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A tiny suite: a spec directory with two rows, a rows module and a test file (comparing values)."""
    (tmp_path / "specs").mkdir()
    shutil.copy(SPECS / "schema.json", tmp_path / "specs" / "schema.json")
    (tmp_path / "specs" / "x.toml").write_text(SAMPLE_SPEC)
    (tmp_path / "sample_rows.py").write_text(SAMPLE_ROWS)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    spec(*ids): rows\n")
    write_sample_tests(tmp_path, compare=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path / "specs"))
    yield tmp_path
    for name, module in list(sys.modules.items()):  # a later run must import the sample afresh
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def write_sample_tests(root: Path, compare: bool) -> None:
    comparison = "lambda expected, actual: expected == actual" if compare else "lambda expected, actual: True"
    (root / "test_sample.py").write_text(f"COMPARED = {comparison}\n" + SAMPLE_TESTS)


class InProcess:
    """Stands in for subprocess.Popen: runs the pytest command in this process (so coverage and
    mutmut see the plugin), from the given directory with the given CONTRACTS_SPECS."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        assert [sys.executable, "-m", "pytest"] == args[:3]
        self.args, self.specs = args[3:], env["CONTRACTS_SPECS"]

    def wait(self) -> int:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CONTRACTS_SPECS", self.specs)
            for name in [n for n in sys.modules if n in ("sample_rows", "test_sample")]:
                del sys.modules[name]
            return int(pytest.main([*self.args, "--import-mode=importlib"]))


def run_sample(
    root: Path, monkeypatch: pytest.MonkeyPatch, jobs: int = 1, drawn: dict[str, Any] | None = None
) -> dict[str, Any]:
    monkeypatch.setattr(subprocess, "Popen", InProcess)
    options = runner.RunOptions(
        root,
        root / "specs",
        jobs=jobs,
        suite=(str(root / "test_sample.py"),),
        rows_provider="sample_rows:all_rows",
        sample=drawn,
    )
    return runner.run(options)


def test_runner_kills_every_mutant_of_a_well_tested_row(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each mutant runs the row's bound tests on the mutated spec; a row no test names runs none."""
    results = run_sample(sample, monkeypatch, jobs=2)
    odd, untested = results["rows"]
    assert ("X.cost.odd", 2) == (odd["row_id"], odd["tests"])
    assert {"refused by the loader": 1} == odd["dropped"]  # 2 ** K - 1
    statuses = {m["id"]: (m["status"], m["killed_by"]) for m in odd["mutants"]}
    assert ("killed", "test_sample.py::test_golden[spec_row0-example0]") == statuses[
        "X.cost.odd:examples.0.value:plus:0"
    ]
    assert ("killed", "test_sample.py::test_property[spec_row0]") == statuses["X.cost.odd:expr:operator:0"]
    assert {"killed"} == {status for status, _ in statuses.values()}
    assert 13 == len(statuses)
    assert ("X.rule.untested", 0, ["not run", "not run"]) == (
        untested["row_id"],
        untested["tests"],
        [m["status"] for m in untested["mutants"]],
    )
    assert "x.toml" == odd["file"]
    assert SAMPLE_SPEC == (sample / "specs" / "x.toml").read_text()  # never written to


def test_each_row_reports_one_progress_line_on_stderr_and_its_time_in_ms(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Per row, one stderr line 'spec-mutation ROW: killed/total killed'; a row's seconds are the
    clock's advance across it (read once before and after the row, twice per mutant run) to 3 digits,
    a mutant's to 4."""
    monkeypatch.setattr(plugin, "time", SteadyClock(1000.0, 0.0625))  # a tick of 1/16 s, exact in binary
    results = run_sample(sample, monkeypatch)
    out, err = capfd.readouterr()
    progress = [line for line in err.splitlines() if line.startswith("spec-mutation ")]
    assert ["spec-mutation X.cost.odd: 13/13 killed", "spec-mutation X.rule.untested: 0/2 killed"] == progress
    assert "spec-mutation " not in out
    odd, untested = results["rows"]
    # 13 mutants run: 2 + 2 * 13 readings, 27 ticks = 1.6875 s, kept as 1.688 (3 digits, half to even)
    assert [1.688, 0.062] == [odd["seconds"], untested["seconds"]]
    assert {0.0625} == {m["seconds"] for m in odd["mutants"]}
    assert {0.0} == {m["seconds"] for m in untested["mutants"]}


def test_a_sampled_run_takes_only_the_drawn_rows(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 50 % with seed '4' only X.cost.odd is drawn (X.rule.untested is not); seed '3' draws neither,
    and a run that ran no mutant fails the gate: nothing verified is never green."""
    drawn = run_sample(sample, monkeypatch, drawn={"seed": "4", "percent": 50.0})
    assert ["X.cost.odd"] == [row["row_id"] for row in drawn["rows"]]
    assert 13 == len(drawn["rows"][0]["mutants"])
    nothing = {"spec": run_sample(sample, monkeypatch, drawn={"seed": "3", "percent": 50.0})}
    assert [] == nothing["spec"]["rows"]
    assert ["no mutant ran: nothing was verified (check --rows and --sample)"] == gate.problems(
        nothing, gate.Listed({}, {})
    )


def test_weakened_golden_fails_the_gate_naming_the_mutant(
    sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A golden that stops comparing the example's value lets that value's mutants survive; the gate
    fails and names them (the proof the gate catches a test that no longer reads a field)."""
    write_sample_tests(sample, compare=False)
    results = {"spec": run_sample(sample, monkeypatch)}
    listed = gate.Listed({}, {"X.rule.untested": "sample"})
    survivors = [line for line in gate.problems(results, listed) if line.startswith("unexplained")]
    assert [
        "unexplained survived mutant: X.cost.odd:examples.0.value:plus:0 (every number +1)",
        "unexplained survived mutant: X.cost.odd:examples.0.value:minus:0 (every number -1)",
    ] == survivors


def test_a_row_failing_unmutated_runs_no_mutant(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the bound tests fail on the unchanged spec, the row's mutants are reported as not run."""
    (sample / "specs" / "x.toml").write_text(SAMPLE_SPEC.replace("value = 5", "value = 6"))
    results = run_sample(sample, monkeypatch)
    odd = results["rows"][0]
    assert {("not run", "test_sample.py::test_golden[spec_row0-example0]")} == {
        (m["status"], m["killed_by"]) for m in odd["mutants"]
    }


# ---------------------------------------------------------------- the gate


def verdict(name: str, status: str) -> dict[str, Any]:
    return {"id": name, "status": status, "description": f"d {name}", "killed_by": "why"}


RESULTS: dict[str, Any] = {
    "seconds": 12.5,
    "spec": {
        "rows": [
            {
                "row_id": "A.x",
                "tests": 2,
                "mutants": [verdict("A.x:1", "killed"), verdict("A.x:2", "survived")],
            },
            {
                "row_id": "A.y",
                "tests": 1,
                "mutants": [verdict("A.y:1", "survived"), verdict("A.y:2", "refused")],
            },
            {"row_id": "A.z", "tests": 0, "mutants": []},
            {"row_id": "A.w", "tests": 0, "mutants": [verdict("A.w:1", "not run")]},
            {"row_id": "A.v", "tests": 1, "mutants": [verdict("A.v:1", "satisfied")]},
        ]
    },
    "statements": {"mutants": [verdict("m:f:delete:0", "timeout"), verdict("m:g:delete:0", "no tests")]},
}


def test_gate_counts_and_score() -> None:
    """Timeouts count as killed; listed survivors and untested mutants are equivalent; the rest other."""
    listed = gate.Listed({"A.x:2": "r", "m:g:delete:0": "r"}, {})
    found = gate.counts(RESULTS, listed)
    assert {"killed": 2, "survived": 1, "equivalent": 2, "other": 2, "total": 7, "satisfied": 1} == found
    assert 2 / 5 == gate.score(found)
    assert 1.0 == gate.score({"killed": 0, "total": 2, "equivalent": 2})
    assert 0.0 == gate.score({"killed": 0, "total": 1, "equivalent": 0})  # one counted mutant, survived
    # every count adds up: two satisfied probe extensions and two unlisted survivors
    row_mutants = [verdict("A.u:1", "satisfied"), verdict("A.u:2", "satisfied"), verdict("A.u:3", "survived")]
    doubled: dict[str, Any] = {"spec": {"rows": [{"row_id": "A.u", "tests": 1, "mutants": row_mutants}]}}
    doubled["statements"] = {"mutants": [verdict("m:h:delete:0", "survived")]}
    expected = {"killed": 0, "survived": 2, "equivalent": 0, "other": 0, "total": 2, "satisfied": 2}
    assert expected == gate.counts(doubled, gate.Listed({}, {}))
    # a statements-only results file: no spec rows to judge, its survivor still gated
    statements_only = {"statements": doubled["statements"]}
    assert ["unexplained survived mutant: m:h:delete:0 (d m:h:delete:0)"] == [
        line for line in gate.problems(statements_only, gate.Listed({}, {}), threshold=0.0)
    ]


def test_a_listed_row_that_has_mutants_now_is_reported() -> None:
    """A row listed as having no mutants that has some now (A.x) is a stale entry, named: left in the
    list it would excuse the row again if it lost them."""
    stale = f"listed row no longer exists or now has mutants: A.x; remove it from {gate.EQUIVALENTS}"
    assert stale in gate.problems(RESULTS, gate.Listed({}, {"A.x": "had no fields once"}))


def test_gate_problems() -> None:
    """Unexplained survivors, mutants that did not run, vanished listings, rows without mutants or tests."""
    listed = gate.Listed({"A.x:2": "r", "gone": "r"}, {"A.q": "r"})
    assert [
        "score 33.33% is below the threshold 95%",
        "unexplained survived mutant: A.y:1 (d A.y:1)",
        "mutant refused: A.y:2: why",
        "mutant not run: A.w:1: why",
        "unexplained no tests mutant: m:g:delete:0 (d m:g:delete:0)",
        f"listed mutant no longer exists: gone; remove it from {gate.EQUIVALENTS}",
        "row without mutants: A.z (give it machine-readable fields, or list it)",
        "row without bound tests: A.w",
        f"listed row no longer exists or now has mutants: A.q; remove it from {gate.EQUIVALENTS}",
    ] == gate.problems(RESULTS, listed)
    clean = {"spec": {"rows": [RESULTS["spec"]["rows"][0], RESULTS["spec"]["rows"][2]]}}
    assert [] == gate.problems(clean, gate.Listed({"A.x:2": "r"}, {"A.z": "no fields"}))
    one = {"spec": {"rows": [RESULTS["spec"]["rows"][0]]}}  # one killed, one survived
    survivor = "unexplained survived mutant: A.x:2 (d A.x:2)"
    assert [survivor] == gate.problems(one, gate.Listed({}, {}), threshold=0.5)
    assert ["score 50.00% is below the threshold 51%", survivor] == gate.problems(
        one, gate.Listed({}, {}), threshold=0.51
    )


def test_gate_pending_survivors_pass_in_plain_view() -> None:
    """A pending survivor is no failure but a warning with its reason; a killed pending one is reported;
    a pending one that no longer exists fails; pending still counts as survived in the score."""
    one = {"spec": {"rows": [RESULTS["spec"]["rows"][0]]}}  # A.x:1 killed, A.x:2 survived
    waiting = gate.Listed({}, {}, {"A.x:2": "needs a golden of the second example"})
    assert [] == gate.problems(one, waiting, threshold=0.5)
    assert ["score 50.00% is below the threshold 51%"] == gate.problems(one, waiting, threshold=0.51)
    assert ["pending survived mutant: A.x:2: needs a golden of the second example"] == gate.warnings(
        one, waiting
    )
    killed = gate.Listed({}, {}, {"A.x:1": "r"})
    assert [f"listed mutant is now killed: A.x:1; remove it from {gate.EQUIVALENTS}"] == gate.warnings(
        one, killed
    )
    gone = gate.Listed({}, {}, {"A.x:2": "r", "A.x:9": "r"})
    assert [f"pending mutant no longer exists: A.x:9; remove it from {gate.EQUIVALENTS}"] == gate.problems(
        one, gone, threshold=0.5
    )


def test_gate_warns_about_listed_mutants_now_killed() -> None:
    """A listed mutant that tests now kill (or time out) is a warning, never a failure."""
    listed = gate.Listed({"A.x:1": "r", "m:f:delete:0": "r", "A.y:1": "r"}, {})
    assert [
        f"listed mutant is now killed: A.x:1; remove it from {gate.EQUIVALENTS}",
        f"listed mutant is now timeout: m:f:delete:0; remove it from {gate.EQUIVALENTS}",
    ] == gate.warnings(RESULTS, listed)


def test_gate_report_line() -> None:
    """One line: score, counts, how many spec and statement mutants over how many rows, the time."""
    assert (
        "spec-mutation score 40.00%: 2 killed, 1 survived, 2 listed equivalent, 2 not run, of 7 mutants; "
        "1 probe extensions the implementation already satisfies "
        "(6 spec mutants over 5 rows, 2 statement mutants; 12.5 s)"
    ) == gate.report(RESULTS, gate.Listed({"A.x:2": "r", "m:g:delete:0": "r"}, {}))
    assert "(0 spec mutants over 0 rows, 0 statement mutants; 0 s)" in gate.report({}, gate.Listed({}, {}))


def test_listed_file(tmp_path: Path) -> None:
    """The reviewed file lists mutants and rows by id, each with a reason; none without one."""
    path = tmp_path / "eq.toml"
    assert gate.Listed({}, {}) == gate.load_listed(path)
    path.write_text('[[pending]]\nid = "A.x:2"\nreason = "waits for a test"\n')
    assert gate.Listed({}, {}, {"A.x:2": "waits for a test"}) == gate.load_listed(path)
    path.write_text('[[mutant]]\nid = "A.x:2"\nreason = " same "\n\n[[row]]\nid = "A.z"\nreason = "prose"\n')
    assert gate.Listed({"A.x:2": "same"}, {"A.z": "prose"}) == gate.load_listed(path)
    path.write_text('[[row]]\nid = "A.z"\nreason = " "\n')
    with pytest.raises(ValueError, match=r"eq.toml: row 'A.z' is listed without a reason$"):
        gate.load_listed(path)
    path.write_text('[[mutant]]\nid = "A.x:2"\n')
    with pytest.raises(ValueError, match=r"eq.toml: mutant 'A.x:2' is listed without a reason$"):
        gate.load_listed(path)
    path.write_text('[[pending]]\nid = "A.x:3"\n')
    with pytest.raises(ValueError, match=r"^\S*eq.toml: pending 'A.x:3' is listed without a reason$"):
        gate.load_listed(path)


# ---------------------------------------------------------------- statement mutants

MODULE = '''from contracts.core.checks import positive_int
from contracts.core import checks


def entry(x, y):
    """doc"""
    positive_int(x, "x")
    if y < 0:
        raise ValueError("y")
    checks.real_number(y)
    check_more(x)
    make()(x)
    z = x + y
    if z:
        raise ValueError
    else:
        pass
    return z


class K:
    def method(self, v):
        if v:
            for i in v:
                if i:
                    raise TypeError("i")
        other(v)

        def inner():
            if v:
                raise ValueError
        return inner
'''


def test_statement_mutants(tmp_path: Path) -> None:
    """Guards (an if ending in raise without else, a check call) are deleted; consecutive ones swapped."""
    path = tmp_path / "m.py"
    path.write_text(MODULE)
    found = statements.module_mutants(path, "pkg.m")
    assert [
        ("pkg.m:entry:delete:0", "delete `positive_int(x, 'x')`"),
        ("pkg.m:entry:swap:0", "swap `positive_int(x, 'x')` and `if y < 0:`"),
        ("pkg.m:entry:delete:1", "delete `if y < 0:`"),
        ("pkg.m:entry:swap:1", "swap `if y < 0:` and `checks.real_number(y)`"),
        ("pkg.m:entry:delete:2", "delete `checks.real_number(y)`"),
        ("pkg.m:entry:swap:2", "swap `checks.real_number(y)` and `check_more(x)`"),
        ("pkg.m:entry:delete:3", "delete `check_more(x)`"),
        ("pkg.m:K.method:delete:0", "delete `if i:`"),
    ] == [(m.mutant_id(), m.description) for m in found]
    lines = MODULE.splitlines(keepends=True)
    assert "".join([*lines[:7], "    pass  # spec-mutation: guard deleted\n", *lines[9:]]) == found[2].source
    assert "".join([*lines[:6], *lines[7:9], lines[6], *lines[9:]]) == found[1].source
    assert "".join([*lines[:24], "                pass  # spec-mutation: guard deleted\n", *lines[26:]]) == (
        found[7].source
    )
    assert {("pkg.m", path)} == {(m.module, m.path) for m in found}


NESTED = """def tail(v):
    try:
        check_a(v)
    except KeyError:
        check_b(v)
    else:
        check_c(v)
    finally:
        check_d(v)
    if v:
        pass
    else:
        check_e(v)

    class Local:
        check_z(v)
    while v:
        check_h(v)
    check_f(v)
    check_long(v, "a long argument that makes the first line of this guard longer than eighty characters")
"""


def test_statement_mutants_in_every_nested_block(tmp_path: Path) -> None:
    """Guards in try, except, else and finally blocks, an if's else, and a loop after a nested class are
    found, breadth first (the function's own block, then the nested ones in order); the last two
    statements of a block are swapped; a class body is not the function's; a summary is 80 characters."""
    path = tmp_path / "n.py"
    path.write_text(NESTED)
    long = "check_long(v, 'a long argument that makes the first line of this guard longer th"
    assert 80 == len(long)
    assert [
        ("n:tail:delete:0", "delete `check_f(v)`"),
        ("n:tail:swap:0", f"swap `check_f(v)` and `{long}`"),
        ("n:tail:delete:1", f"delete `{long}`"),
        ("n:tail:delete:2", "delete `check_a(v)`"),
        ("n:tail:delete:3", "delete `check_c(v)`"),
        ("n:tail:delete:4", "delete `check_d(v)`"),
        ("n:tail:delete:5", "delete `check_b(v)`"),
        ("n:tail:delete:6", "delete `check_e(v)`"),
        ("n:tail:delete:7", "delete `check_h(v)`"),
    ] == [(m.mutant_id(), m.description) for m in statements.module_mutants(path, "n")]


def test_statement_mutants_of_a_tree(tmp_path: Path) -> None:
    """Module names come from the path under the root; a package's __init__ is the package."""
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("def f(x):\n    if x:\n        raise ValueError\n")
    (tmp_path / "pkg" / "sub" / "m.py").write_text("def g(x):\n    check(x)\n")
    assert ["pkg:f:delete:0", "pkg.sub.m:g:delete:0"] == [
        m.mutant_id() for m in statements.source_mutants(tmp_path, "pkg")
    ]


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


class Base:
    pass


class Child(Base):
    def run(self, x):
        if x < 0:
            raise ValueError(super().__repr__())
        return x
"""

IMPL_TESTS = """import os
import time

import pytest

from sample_pkg.impl import Child, guarded, unchecked


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


def test_child():
    assert 1 == Child().run(1)
"""


class InProcessRun:
    """Stands in for subprocess.run: runs the pytest command in this process (and keeps where it ran
    and the environment it was given)."""

    seen: ClassVar[list[tuple[Path, dict[str, str]]]] = []

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        assert [sys.executable, "-m", "pytest"] == args[:3]
        assert subprocess.STDOUT == stderr  # one log: a session's errors land beside its output
        InProcessRun.seen.append((cwd, env))
        assert ("1", "1", "1") == (
            env["OPENBLAS_NUM_THREADS"],
            env["OMP_NUM_THREADS"],
            env["MKL_NUM_THREADS"],
        )
        self.returncode = int(pytest.main([*args[3:], "--import-mode=importlib", "-p", "no:randomly"]))


def forget_sample_modules() -> None:
    """Drop the sample package and its tests from sys.modules (the stand-in imported them in-process)."""
    for name in [n for n in sys.modules if n.startswith(("sample_pkg", "test_impl"))]:
        del sys.modules[name]


def write_impl_package(root: Path) -> None:
    """root/src/sample_pkg (IMPL) and root/test_impl.py (IMPL_TESTS)."""
    (root / "src" / "sample_pkg").mkdir(parents=True)
    (root / "src" / "sample_pkg" / "__init__.py").write_text("")
    (root / "src" / "sample_pkg" / "impl.py").write_text(IMPL)
    (root / "test_impl.py").write_text(IMPL_TESTS)


def test_statement_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deleted guard a test checks is killed (by its fastest test first: the slow one never runs on
    the mutant); one no test checks survives; an uncalled one has no tests."""
    log = tmp_path / "ran.log"
    monkeypatch.setenv("RAN_LOG", str(log))
    write_impl_package(tmp_path)
    (tmp_path / "src" / "sample_pkg" / "spec_mutation").mkdir()  # the tool's own package: left out
    (tmp_path / "src" / "sample_pkg" / "spec_mutation" / "__init__.py").write_text(
        "def f(x):\n    check(x)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(subprocess, "run", InProcessRun)
    options = runner.RunOptions(
        tmp_path, SPECS, jobs=1, package="sample_pkg", statement_suite=(str(tmp_path / "test_impl.py"),)
    )  # one session: the stand-in runs pytest in this process
    readings = iter([10.0, 12.54])  # the children's CPU before and after the last run: its own share
    try:
        results = runner.run_statements(options)
        ran, (cwd, env) = log.read_text(), InProcessRun.seen[-1]
        sampled = runner.run_statements(dataclasses.replace(options, sample={"seed": "4", "percent": 50.0}))
        monkeypatch.setattr(runner, "children_cpu", lambda: next(readings))
        timed = runner.run_statements(options)
    finally:
        forget_sample_modules()
    assert ["sample_pkg.impl:untested:delete:0", "sample_pkg.impl:Child.run:delete:0"] == [
        m["id"] for m in sampled["mutants"]
    ]  # the sample's functions only (see the sampled plan's test)
    # the profiled pass runs both in collection order; the guard's mutant, only the fast one
    assert "slow fast fast " == ran
    assert [
        ("sample_pkg.impl:guarded:delete:0", "killed", 2, "delete `if x < 0:`"),
        ("sample_pkg.impl:unchecked:delete:0", "survived", 1, "delete `if x > 100:`"),
        ("sample_pkg.impl:untested:delete:0", "no tests", 0, "delete `check(x)`"),
        ("sample_pkg.impl:Child.run:delete:0", "not run", 1, "delete `if x < 0:`"),
    ] == [(m["id"], m["status"], m["tests"], m["description"]) for m in results["mutants"]]
    assert "the mutant changes the function's closure" == results["mutants"][3]["error"]
    assert "statement" == results["kind"]
    assert IMPL == (tmp_path / "src" / "sample_pkg" / "impl.py").read_text()  # never edited in place
    assert (tmp_path, str(SPECS.resolve())) == (cwd, env["CONTRACTS_SPECS"])  # the run's root and spec
    assert 2.5 == timed["cpu_seconds"]


def test_statement_shards_deal_the_plan_round_robin() -> None:
    """Mutants are dealt one by one to each shard in turn (a function's neighbours apart); no shard is
    empty, and no jobs still means one session."""
    plan = [{"id": name} for name in "abcde"]
    assert [["a", "c", "e"], ["b", "d"]] == [
        [entry["id"] for entry in part] for part in runner.statement_shards(plan, 2)
    ]
    assert [["a"], ["b"]] == [
        [entry["id"] for entry in part] for part in runner.statement_shards(plan[:2], 3)
    ]
    assert [plan] == runner.statement_shards(plan, 0)
    assert [] == runner.statement_shards([], 2)


def test_sharded_statement_run_gives_the_single_session_verdicts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sessions side by side (real child processes) give the one session's verdicts, in plan order;
    without mutmut's map each shard makes its own profiled pass (the slow test runs once per session)."""
    log = tmp_path / "ran.log"
    monkeypatch.setenv("RAN_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "src"))
    write_impl_package(tmp_path)
    options = runner.RunOptions(
        tmp_path,
        SPECS,
        jobs=1,
        profile="default",
        package="sample_pkg",
        statement_suite=(str(tmp_path / "test_impl.py"),),
    )
    runs = [runner.run_statements(options), runner.run_statements(dataclasses.replace(options, jobs=2))]
    verdicts = [
        [(m["id"], m["status"], m["tests"], m["description"]) for m in run["mutants"]] for run in runs
    ]
    assert verdicts[0] == verdicts[1]
    assert ["killed", "survived", "no tests", "not run"] == [verdict[1] for verdict in verdicts[0]]
    assert 3 == log.read_text().count("slow ")
    times = [run[key] for key in ("seconds", "cpu_seconds", "coverage_seconds") for run in runs]
    assert times == [round(time, 1) for time in times]  # tenths of a second
    assert all(0 < time < 600 for time in times)  # children's CPU counted; each session profiled


def test_statement_run_from_mutmut_stats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Given mutmut's stats, the run makes no profiled pass: its map says which tests call each function
    (mutmut's names), their times order them, and the verdicts are the profiled run's."""
    log = tmp_path / "ran.log"
    monkeypatch.setenv("RAN_LOG", str(log))
    write_impl_package(tmp_path)
    stats = {
        "tests_by_mangled_function_name": {
            "sample_pkg.impl.x_guarded": ["test_impl.py::test_guarded_slowly", "test_impl.py::test_guarded"],
            "sample_pkg.impl.x_unchecked": ["test_impl.py::test_unchecked", "test_gone.py::test_elsewhere"],
            "sample_pkg.impl.xǁChildǁrun": ["test_impl.py::test_child"],
        },
        # test_guarded has no recorded time: a test mutmut never timed counts as instant
        "duration_by_test": {"test_impl.py::test_guarded_slowly": 0.2},
    }
    (tmp_path / "stats.json").write_text(json.dumps(stats))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    monkeypatch.setattr(subprocess, "run", InProcessRun)
    options = runner.RunOptions(
        tmp_path,
        SPECS,
        jobs=1,
        package="sample_pkg",
        statement_suite=(f"--rootdir={tmp_path}", str(tmp_path / "test_impl.py")),
        mutmut_stats=tmp_path / "stats.json",
    )
    try:
        results = runner.run_statements(options)
    finally:
        forget_sample_modules()
    assert "fast " == log.read_text()  # no profiled pass; the guard's mutant ran its fastest test first
    assert [
        ("sample_pkg.impl:guarded:delete:0", "killed", 2),
        ("sample_pkg.impl:unchecked:delete:0", "survived", 1),  # a test outside the session is no test
        ("sample_pkg.impl:untested:delete:0", "no tests", 0),
        ("sample_pkg.impl:Child.run:delete:0", "not run", 1),
    ] == [(m["id"], m["status"], m["tests"]) for m in results["mutants"]]


def test_mutmut_names_of_functions_and_methods() -> None:
    """`module:f` is mutmut's `module.x_f`; `module:Class.method` is `module.xǁClassǁmethod`."""
    assert "a.b.x_f" == statement_plugin.mutmut_name("a.b:f")
    assert "a.b.xǁCǁrun" == statement_plugin.mutmut_name("a.b:C.run")


def test_coverage_source_says_which_map_the_statement_run_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing mutmut stats file is used and named; a missing one means a profiled pass, said aloud;
    with no statement run, neither."""
    stats = tmp_path / "mutmut-stats.json"
    stats.write_text("{}")
    assert stats == main.coverage_source(stats, no_statements=False)
    assert main.coverage_source(tmp_path / "none.json", no_statements=False) is None
    assert main.coverage_source(None, no_statements=False) is None
    assert main.coverage_source(stats, no_statements=True) is None
    assert [
        f"spec-mutation: statement coverage map from mutmut's stats ({stats})",
        "spec-mutation: statement coverage map from a profiled pass of the suite",
        "spec-mutation: statement coverage map from a profiled pass of the suite",
    ] == capsys.readouterr().out.splitlines()


def test_a_sampled_statement_plan_holds_only_the_drawn_functions(tmp_path: Path) -> None:
    """At 50 % with seed '4' the drawn functions are `untested` and `Child.run`: only their guards
    become statement mutants; without a sample every function's do."""
    write_impl_package(tmp_path)
    drawn = runner.statement_plan(tmp_path, "sample_pkg", {"seed": "4", "percent": 50.0})
    assert ["sample_pkg.impl:untested:delete:0", "sample_pkg.impl:Child.run:delete:0"] == [
        entry["id"] for entry in drawn
    ]
    everything = runner.statement_plan(tmp_path, "sample_pkg")
    assert 4 == len(everything)
    assert "<sample_pkg.impl:guarded:delete:0>" == everything[0]["path"]  # tracebacks name the mutant


def traced_target(x: int) -> int:
    return x + 1


def test_coverage_maps_each_function_to_the_tests_that_call_it_and_times_each_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The profiled pass: a test that calls a target is listed under it (a test that does not is not);
    each test's time lies within the whole pass's."""
    ran: list[str] = []

    def fake_run(item: Any) -> list[Any]:
        ran.append(item)
        if item == "calls":
            traced_target(1)
        return []

    monkeypatch.setattr(statement_plugin, "run_item", fake_run)
    started = time.monotonic()
    items: list[Any] = ["skips", "calls"]  # stand-ins: only the fake runner reads them
    calls, seconds = statement_plugin.coverage(items, {traced_target.__code__: "m:traced_target"})
    elapsed = time.monotonic() - started
    assert ({"m:traced_target": [1]}, ["skips", "calls"]) == (calls, ran)
    assert 2 == len(seconds)
    assert all(0 <= spent <= elapsed for spent in seconds)


def test_run_item_runs_a_test_without_logging_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant's tests are run unlogged: the session's own report is the plan's, not theirs."""
    seen: list[tuple[Any, dict[str, Any]]] = []

    def fake_protocol(item: Any, **options: Any) -> list[Any]:
        seen.append((item, options))
        return []

    monkeypatch.setattr(statement_plugin, "runtestprotocol", fake_protocol)
    item: Any = "item"
    assert [] == statement_plugin.run_item(item)
    assert [("item", {"log": False})] == seen


# ---------------------------------------------------------------- the command and verify's line


def write_results(root: Path, results: dict[str, Any], equivalents: str = "") -> None:
    (root / "mutants").mkdir(exist_ok=True)
    (root / "mutants" / "spec-mutation.json").write_text(json.dumps(results))
    (root / "tools" / "spec_mutation").mkdir(parents=True, exist_ok=True)
    (root / "tools" / "spec_mutation" / "equivalents.toml").write_text(equivalents)


def test_verify_line(tmp_path: Path) -> None:
    """verify's line reads the suite's results and equivalents; no results, no line."""
    assert [] == summary.spec_mutation_lines(str(tmp_path))
    write_results(tmp_path, RESULTS, '[[mutant]]\nid = "A.x:2"\nreason = "r"\n')
    assert [
        "spec-mutation score 33.33% (2 killed, 1 listed equivalent, of 7 spec and statement mutants)"
    ] == summary.spec_mutation_lines(str(tmp_path))
    found = summary.spec_mutation_summary(tmp_path / summary.RESULTS, tmp_path / gate.EQUIVALENTS)
    assert found is not None
    assert {"A.x": {"killed": 1, "total": 2}, "A.y": {"killed": 0, "total": 2}} == {
        k: v for k, v in found["rows"].items() if k in ("A.x", "A.y")
    }
    assert {"killed": 0, "total": 0} == found["rows"]["A.z"]
    # a statements-only results file (or one whose spec part has no rows): no rows, the statements counted
    statements = {"statements": {"mutants": [verdict("m:f:delete:0", "killed")]}}
    for partial in (statements, {**statements, "spec": {}}):
        write_results(tmp_path, partial, "")
        found = summary.spec_mutation_summary(tmp_path / summary.RESULTS, tmp_path / gate.EQUIVALENTS)
        assert found is not None
        assert ({}, 1, 1) == (found["rows"], found["killed"], found["total"])


def test_main_gate_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--gate-only gates the existing results: exit 1 with a FAIL line per problem, 0 when clean."""
    monkeypatch.chdir(tmp_path)
    assert 2 == main.main(["--gate-only"])
    assert "spec-mutation: no results file mutants/spec-mutation.json\n" == capsys.readouterr().err
    one = {"seconds": 1.0, "spec": {"rows": [RESULTS["spec"]["rows"][0]]}}
    write_results(tmp_path, one, '[[mutant]]\nid = "A.x:1"\nreason = "r"\n')
    assert 1 == main.main(["--gate-only"])
    assert [
        "spec-mutation score 50.00%: 1 killed, 1 survived, 0 listed equivalent, 0 not run, of 2 mutants; "
        "0 probe extensions the implementation already satisfies (2 spec mutants over 1 rows, "
        "0 statement mutants; 1.0 s)",
        f"WARNING: listed mutant is now killed: A.x:1; remove it from {gate.EQUIVALENTS}",
        "FAIL: score 50.00% is below the threshold 95%",
        "FAIL: unexplained survived mutant: A.x:2 (d A.x:2)",
        "spec-mutation gate: failed",
    ] == capsys.readouterr().out.splitlines()
    write_results(tmp_path, one, '[[mutant]]\nid = "A.x:2"\nreason = "r"\n')
    assert 0 == main.main(["--gate-only", "--threshold", "0.5"])
    assert "spec-mutation gate: passed" == capsys.readouterr().out.splitlines()[-1]


def test_main_runs_and_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --gate-only it runs the spec mutants (and the statements unless told not to), writes
    the results with the summed times, then gates them."""
    seen: list[runner.RunOptions] = []
    statements_seen: list[runner.RunOptions] = []

    def spec_run(options: runner.RunOptions) -> dict[str, Any]:
        seen.append(options)
        return {"seconds": 1.25, "cpu_seconds": 2.25, "rows": [RESULTS["spec"]["rows"][0]]}

    def statement_run(options: runner.RunOptions) -> dict[str, Any]:
        statements_seen.append(options)
        return {"seconds": 2.0, "cpu_seconds": 3.0, "mutants": [verdict("m:f:delete:0", "killed")]}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(main, "run", spec_run)
    monkeypatch.setattr(main, "run_statements", statement_run)
    out = tmp_path / "deep" / "er" / "r.json"  # missing parents are made
    stats = tmp_path / "mutmut-stats.json"
    stats.write_text("{}")
    arguments = ["--out", str(out), "-j", "3", "--rows", "A.", "--hypothesis-profile", "ci"]
    assert 1 == main.main([*arguments, "--mutmut-stats", str(stats)])
    text = out.read_text()
    written = json.loads(text)
    assert (3.2, 5.2, ["m:f:delete:0"]) == (  # sums rounded to a tenth of a second
        written["seconds"],
        written["cpu_seconds"],
        [m["id"] for m in written["statements"]["mutants"]],
    )
    assert text.startswith('{\n "spec": {\n  "seconds": 1.25,\n')  # one-space indents: diffable, small
    assert (tmp_path, spec_dir(), 3, "ci", ("A.",), stats) == (
        seen[0].root,
        seen[0].specs,
        seen[0].jobs,
        seen[0].profile,
        seen[0].rows,
        seen[0].mutmut_stats,
    )
    assert seen == statements_seen  # the statement mutants run with the same options
    capsys.readouterr()
    no_statements = ["--out", str(out), "--no-statements", "--threshold", "0.5", "--equivalents", "none.toml"]
    assert 1 == main.main([*no_statements, "--mutmut-stats", str(stats)])
    assert "statements" not in json.loads(out.read_text())
    assert (2, None) == (seen[1].jobs, seen[1].mutmut_stats)  # no statement run: no coverage map read
    printed = capsys.readouterr().out
    assert "FAIL: unexplained survived mutant: A.x:2 (d A.x:2)" in printed
    assert "coverage map" not in printed


def test_surviving_probe_extension_is_satisfied() -> None:
    """A probe extension that survives is one the implementation satisfies; any other survivor survived."""
    assert ("satisfied", "survived") == (plugin.survivor("extend"), plugin.survivor("sign"))


def test_graft_keeps_containers() -> None:
    """The live row changes in place: its dicts and same-length lists stay the objects tests hold."""
    example = {"value": 1, "where": {"K": 2}, "gone": 0}
    examples = [example]
    live: dict[str, Any] = {"id": "r", "examples": examples, "probes": ["a"]}
    source: dict[str, Any] = {
        "id": "r",
        "examples": [{"value": 2, "where": {"K": 2}}],
        "probes": ["a", "b"],
        "new": {"x": [1]},
    }
    assert live is plugin.graft(live, source)
    assert source == live
    assert (examples, example) == (live["examples"], live["examples"][0])
    assert live["examples"] is examples
    assert live["examples"][0] is example
    assert live["new"] is not source["new"]
    assert live["new"]["x"] is not source["new"]["x"]
    assert 5 == plugin.graft(3, 5)


def test_gate_checks_vanished_listings_only_where_the_run_looked() -> None:
    """A run of chosen rows, or without statements, cannot say a listed mutant elsewhere vanished."""
    listed = gate.Listed({"A.x:9": "r", "B.y:1": "r", "contracts.m:f:delete:0": "r"}, {})
    chosen = {"spec": {"selection": ["A."], "rows": [RESULTS["spec"]["rows"][0]]}}
    vanished = [line for line in gate.problems(chosen, listed) if "no longer exists" in line]
    assert [f"listed mutant no longer exists: A.x:9; remove it from {gate.EQUIVALENTS}"] == vanished
    everything = {**chosen, "spec": {**chosen["spec"], "selection": []}, "statements": {"mutants": []}}
    assert 3 == sum("no longer exists" in line for line in gate.problems(everything, listed))
    assert not gate.was_run("A.x:1", {"statements": {}})


def test_a_sampled_run_judges_only_the_listings_its_sample_could_meet() -> None:
    """At 50 % with seed '0', rows D.w and E.v are drawn, A.x and C.q are not, nor function contracts.m:f:
    only a listed mutant or row the sample draws can be reported as vanished."""
    listed = gate.Listed(
        {"A.x:9": "r", "D.w:9": "r", "contracts.m:f:delete:0": "r"}, {"C.q": "r", "E.v": "r"}
    )
    drawn = {"sample": {"seed": "0", "percent": 50.0}, "statements": {"mutants": []}}
    results = {**drawn, "spec": {"selection": [], "rows": [RESULTS["spec"]["rows"][0]]}}
    assert [
        f"listed mutant no longer exists: D.w:9; remove it from {gate.EQUIVALENTS}",
        f"listed row no longer exists or now has mutants: E.v; remove it from {gate.EQUIVALENTS}",
    ] == [line for line in gate.problems(results, listed) if "no longer exists" in line]
    whole = {**results, "sample": None}
    assert 5 == sum("no longer exists" in line for line in gate.problems(whole, listed))
    assert gate.was_run("contracts.m:f:delete:0", whole)
    assert not gate.was_run("contracts.m:f:delete:0", results)
    assert gate.was_run("contracts.m:f:delete:0", {**results, "sample": {"seed": "1", "percent": 50.0}})


def test_a_sampled_report_says_it_is_a_sample() -> None:
    """The report line names the sample's percentage and seed; a whole run's says nothing of one."""
    drawn = {**RESULTS, "sample": {"seed": "7", "percent": 12.5}}
    assert gate.report(drawn, gate.Listed({}, {})).endswith(
        "12.5 s); a 12.5 % sample of the rows and guarded functions (seed '7')"
    )
    assert gate.report(RESULTS, gate.Listed({}, {})).endswith("12.5 s)")


def test_sample_keys_are_the_row_or_the_function() -> None:
    """A spec mutant is drawn by its row id, a statement mutant by its module:qualname."""
    assert "S03.grad.add" == spec_sample.key("S03.grad.add:expr:operator:0", statement=False)
    assert "contracts.a.b:C.f" == spec_sample.key("contracts.a.b:C.f:delete:0", statement=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100", 100.0),
        ("0.5", 0.5),
        ("25", 25.0),
        ("0", None),
        ("-5", None),
        ("100.01", None),
        ("nan", None),
        ("inf", None),
        ("ten", None),
    ],
    ids=lambda value: repr(value),
)
def test_sample_percentage(text: str, expected: float | None) -> None:
    """--sample takes a percentage in (0, 100]; anything else is refused naming the value."""
    if expected is None:
        with pytest.raises(
            argparse.ArgumentTypeError, match=rf"^'{text}' is not a percentage in \(0, 100\]$"
        ):
            spec_sample.percent(text)
    else:
        assert expected == spec_sample.percent(text)


def test_main_records_the_sample_in_the_options_and_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--sample 30 --sample-seed 2 reaches the runs and the results file; 100 (the default) is no sample;
    --sample 0 exits 2 with one line naming the value."""
    seen: list[runner.RunOptions] = []

    def spec_run(options: runner.RunOptions) -> dict[str, Any]:
        seen.append(options)
        return {"seconds": 1.0, "cpu_seconds": 1.0, "rows": [RESULTS["spec"]["rows"][0]]}

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(main, "run", spec_run)
    out = tmp_path / "r.json"
    main.main(["--out", str(out), "--no-statements", "--sample", "30", "--sample-seed", "2"])
    assert {"seed": "2", "percent": 30.0} == seen[0].sample == json.loads(out.read_text())["sample"]
    main.main(["--out", str(out), "--no-statements"])
    assert (None, None) == (seen[1].sample, json.loads(out.read_text())["sample"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main.main(["--sample", "0"])
    assert 2 == exited.value.code
    assert capsys.readouterr().err.endswith("argument --sample: '0' is not a percentage in (0, 100]\n")


# ---------------------------------------------------------------- statement plugin details


class Holder:
    """Functions in the shapes statement mutants may target."""

    def plain(self) -> int:
        return 1

    def shown(self) -> int:
        return self.plain()

    view = property(shown)

    @classmethod
    def made(cls) -> int:
        return 2

    @functools.cache  # noqa: B019 (a test fixture, never garbage collected)
    def cached(self) -> int:
        return 3


def test_resolve_unwraps_properties_classmethods_and_caches() -> None:
    """resolve finds the plain function whose code a mutant replaces, through any of these wrappers."""
    module = __name__
    assert Holder.plain is statement_plugin.resolve(module, "Holder.plain")
    assert Holder.shown is statement_plugin.resolve(module, "Holder.view")
    assert Holder.__dict__["made"].__func__ is statement_plugin.resolve(module, "Holder.made")
    assert Holder.cached.__wrapped__ is statement_plugin.resolve(module, "Holder.cached")


def test_mutated_code_is_found_by_qualified_name() -> None:
    """The mutated module's code object of the function, or LookupError naming it."""
    source = "class A:\n    def f(self):\n        return 2\n\ndef f():\n    return 1\n"
    assert 2 == statement_plugin.mutated_code(source, "m.py", "A.f").co_consts[1]
    assert "m.py" == statement_plugin.mutated_code(source, "m.py", "f").co_filename
    with pytest.raises(LookupError, match=r"^g not found in the mutated m.py$"):
        statement_plugin.mutated_code(source, "m.py", "g")


@pytest.mark.parametrize(
    ("child", "expected"),
    [("exit1", "killed"), ("exit0", "survived"), ("sleep", "timeout")],
)
def test_run_mutant_reads_the_child(monkeypatch: pytest.MonkeyPatch, child: str, expected: str) -> None:
    """The forked child's exit code is the verdict; a child past the limit is killed and timed out."""

    def fake_exit_code(function: Any, code: Any, tests: Any) -> int:
        if child == "sleep":
            time.sleep(30)
        return 1 if child == "exit1" else 0

    monkeypatch.setattr(statement_plugin, "child_exit_code", fake_exit_code)
    assert expected == statement_plugin.run_mutant(Holder.plain, Holder.plain.__code__, [], 2.0)


def test_a_timed_out_mutant_leaves_no_process_its_tests_started(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A test that started a process (a verify run) and hangs: the timeout kills both, no orphan runs on."""
    pid_file = tmp_path / "grandchild.pid"

    def hanging(function: Any, code: Any, tests: Any) -> int:
        started = subprocess.Popen(["sleep", "60"])
        pid_file.write_text(str(started.pid))
        time.sleep(30)
        return 0

    monkeypatch.setattr(statement_plugin, "child_exit_code", hanging)
    assert "timeout" == statement_plugin.run_mutant(Holder.plain, Holder.plain.__code__, [], 1.0)
    assert ended_within(int(pid_file.read_text()), seconds=10)


class Outcome:
    """A test report as child_exit_code reads it."""

    def __init__(self, failed: bool) -> None:
        self.failed = failed


def child_with(outcomes: dict[str, list[Any]], ran: list[str]) -> Any:
    """A stand-in for running one test: records the test's name and returns its reports."""

    def run(item: Any) -> list[Outcome]:
        ran.append(item)
        if outcomes[item] == ["raise"]:  # a harness that breaks mid-run
            raise KeyboardInterrupt
        return [Outcome(failed) for failed in outcomes[item]]

    return run


@pytest.mark.parametrize(
    ("outcomes", "expected_exit", "expected_ran"),
    [
        pytest.param({"a": [False], "b": [False, False]}, 0, ["a", "b"], id="all-pass-survives"),
        pytest.param(
            {"a": [False], "b": [False, True], "c": [False]}, 1, ["a", "b"], id="stops-at-first-fail"
        ),
        pytest.param({"a": [True, False], "b": [False]}, 1, ["a"], id="setup-failure-kills"),
        pytest.param({"a": ["raise"], "b": [False]}, 1, ["a"], id="broken-harness-is-detected"),
        pytest.param({}, 0, [], id="no-tests-survives"),
    ],
)
def test_child_exit_code_runs_the_mutant_until_a_test_fails(
    outcomes: dict[str, list[Any]], expected_exit: int, expected_ran: list[str]
) -> None:
    """The child installs the mutated code first, runs the tests in order and exits 1 at the first failure."""

    def target() -> int:
        return 1

    def mutated() -> int:
        return 2

    ran: list[str] = []
    tests: Any = list(outcomes)
    exit_code = statement_plugin.child_exit_code(target, mutated.__code__, tests, child_with(outcomes, ran))
    assert (expected_exit, expected_ran, 2) == (exit_code, ran, target())


def test_child_exit_code_counts_a_bad_code_object_as_detected() -> None:
    """A code object the function cannot take (another closure) breaks the harness: exit 1, nothing run."""

    def target() -> int:
        return 1

    captured = 3

    def closure() -> int:
        return captured

    ran: list[str] = []
    tests: Any = ["a"]
    exit_code = statement_plugin.child_exit_code(
        target, closure.__code__, tests, child_with({"a": [False]}, ran)
    )
    assert (1, [], 1) == (exit_code, ran, target())


def test_shard_without_results_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A pytest child that writes no results stops the run with its log's tail."""

    class Silent:
        def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
            stdout.write(b"collection exploded")

        def wait(self) -> int:
            return 4

    monkeypatch.setattr(subprocess, "Popen", Silent)
    options = runner.RunOptions(tmp_path, SPECS, rows=("S03.grad.add",))
    with pytest.raises(RuntimeError, match=r"^a spec-mutation shard wrote no results:\ncollection exploded$"):
        runner.run(options)


def test_statement_session_without_results_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A statement session that writes no results stops the run with its log's tail."""

    def silent(args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        stdout.write(b"no session")

    write_impl_package(tmp_path)
    monkeypatch.setattr(subprocess, "run", silent)
    options = runner.RunOptions(tmp_path, SPECS, package="sample_pkg")
    with pytest.raises(RuntimeError, match=r"^the statement-mutation session wrote no results:\nno session$"):
        runner.run_statements(options)


@pytest.mark.parametrize("name", ["tools.spec_mutation.plugin", "tools.spec_mutation.statement_plugin"])
def test_plugins_without_a_plan_leave_pytest_alone(sample: Path, name: str) -> None:
    """Loaded without a plan, each plugin lets pytest run the tests as usual."""
    arguments = [
        str(sample / "test_sample.py"),
        "-p",
        name,
        "-q",
        "--import-mode=importlib",
        "-p",
        "no:randomly",
    ]
    assert pytest.ExitCode.OK == pytest.main(arguments)


def test_refused_mutant(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mutant the project's loader refuses is reported as refused, with the loader's message."""
    bad = {**tomllib.loads(SAMPLE_SPEC)["rows"][0], "expr": "2 ** K"}
    entry = RowMutants("x.toml", "X.cost.odd", [Mutant("X.cost.odd", "expr", "operator", 0, "bad", bad)])
    monkeypatch.setattr(runner, "catalog", lambda directory: [entry])
    (verdict,) = run_sample(sample, monkeypatch)["rows"][0]["mutants"]
    assert ("X.cost.odd:expr:operator:0", "refused") == (verdict["id"], verdict["status"])
    assert "x.toml: row 'X.cost.odd': expr: an exponent must be a constant" in verdict["killed_by"]


def test_main_options_and_their_help() -> None:
    """`contracts spec-mutation --help`: every option with its type, default and help."""
    made = main.parser()
    assert (
        "contracts spec-mutation",
        "Mutate every spec row's machine-readable fields and the implementation's guards, run the bound "
        "tests, and gate: every survivor killed or listed with its reason.",
    ) == (made.prog, made.description)
    store, append, flag = "_StoreAction", "_AppendAction", "_StoreTrueAction"
    assert [
        (
            ["--out"],
            "out",
            store,
            Path("mutants/spec-mutation.json"),
            "Path",
            None,
            False,
            None,
            None,
            "results JSON (default: mutants/spec-mutation.json)",
        ),
        (
            ["--equivalents"],
            "equivalents",
            store,
            Path("tools/spec_mutation/equivalents.toml"),
            "Path",
            None,
            False,
            None,
            None,
            "default: tools/spec_mutation/equivalents.toml",
        ),
        (
            ["-j", "--jobs"],
            "jobs",
            store,
            2,
            "int",
            None,
            False,
            None,
            None,
            "pytest sessions in parallel (default: 2)",
        ),
        (["--rows"], "rows", append, [], None, None, False, None, "PREFIX", "only these rows"),
        (["--no-statements"], "no_statements", flag, False, None, 0, False, None, None, "spec mutants only"),
        (
            ["--sample"],
            "sample",
            store,
            100.0,
            "percent",
            None,
            False,
            None,
            "PERCENT",
            "only the rows and guarded functions drawn at this percentage (default: 100, all)",
        ),
        (
            ["--sample-seed"],
            "sample_seed",
            store,
            "0",
            None,
            None,
            False,
            None,
            "SEED",
            "the sample's seed (default: 0)",
        ),
        (
            ["--mutmut-stats"],
            "mutmut_stats",
            store,
            None,
            "Path",
            None,
            False,
            None,
            "FILE",
            "the statement mutants' coverage map from mutmut's stats of the same code, when the file "
            "exists (tox runs mutation first); else a profiled pass of the suite",
        ),
        (
            ["--gate-only"],
            "gate_only",
            flag,
            False,
            None,
            0,
            False,
            None,
            None,
            "gate the existing results file",
        ),
        (["--threshold"], "threshold", store, 0.95, "float", None, False, None, None, None),
        (["--hypothesis-profile"], "profile", store, "mutation", None, None, False, None, None, None),
    ] == options_described(made)


def test_main_gate_uses_the_threshold_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pending survivor counts as survived: 50 % passes --threshold 0.5 and fails the default 95 %."""
    monkeypatch.chdir(tmp_path)
    one = {"seconds": 1.0, "spec": {"rows": [RESULTS["spec"]["rows"][0]]}}
    write_results(tmp_path, one, '[[pending]]\nid = "A.x:2"\nreason = "waits for a golden"\n')
    assert (0, 1) == (main.main(["--gate-only", "--threshold", "0.5"]), main.main(["--gate-only"]))
    assert "FAIL: score 50.00% is below the threshold 95%" in capsys.readouterr().out


def test_module_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -m tools.spec_mutation` runs main with the command line and exits with its code."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["spec_mutation", "--gate-only"])
    with pytest.raises(SystemExit) as exited:
        runpy.run_module("tools.spec_mutation", run_name="__main__")
    assert 2 == exited.value.code


PRECEDENCE: dict[str, Any] = {
    "id": "X.order.a",
    "kind": "precedence",
    "order": ["X.fail.p", "X.fail.q", "X.fail.r"],
    "examples": [
        {"faults": ["X.fail.p", "X.fail.r"], "case": {}, "raises": "X.fail.p"},
        {"faults": ["X.fail.q"], "case": {}, "raises": "X.fail.q"},
    ],
}


def test_precedence_mutants() -> None:
    """Each pair of neighbouring checks swapped, and each example's winner replaced by its other fault."""
    mutants = row_mutants(PRECEDENCE, {})
    expected = [
        ("X.order.a:order.0:swap:0", "X.fail.p <-> X.fail.q"),
        ("X.order.a:order.1:swap:0", "X.fail.q <-> X.fail.r"),
        ("X.order.a:examples.0.raises:other-fault:0", "-> X.fail.r"),
    ]
    assert expected == [(m.mutant_id(), m.description) for m in mutants]
    assert ["X.fail.q", "X.fail.p", "X.fail.r"] == mutants[0].row["order"]
    assert ["X.fail.p", "X.fail.r", "X.fail.q"] == mutants[1].row["order"]
    assert "X.fail.r" == mutants[2].row["examples"][0]["raises"]
    assert PRECEDENCE["order"] == ["X.fail.p", "X.fail.q", "X.fail.r"]  # the row itself is untouched
    # a pair the row declares unordered (either way round) is no swap: its order is not claimed
    unordered = {**PRECEDENCE, "unordered": [["X.fail.r", "X.fail.q"]]}
    assert ["X.order.a:order.0:swap:0", "X.order.a:examples.0.raises:other-fault:0"] == [
        m.mutant_id() for m in row_mutants(unordered, {})
    ]
    first_unordered = {**PRECEDENCE, "unordered": [["X.fail.p", "X.fail.q"]]}  # later pairs still swapped
    assert ["X.order.a:order.1:swap:0", "X.order.a:examples.0.raises:other-fault:0"] == [
        m.mutant_id() for m in row_mutants(first_unordered, {})
    ]


def test_shards_deal_the_largest_rows_first_each_to_the_lightest_shard() -> None:
    """Rows of 5, 3, 3, 1 mutants into 2 shards: (5, 1) and (3, 3) (a row weighs its mutants + 1);
    one job is one shard; empty shards are dropped."""

    def entry(row_id: str, size: int) -> RowMutants:
        return RowMutants(
            "x.toml", row_id, [Mutant(row_id, "expr", "operator", i, "m", {}) for i in range(size)]
        )

    entries = [entry("A", 1), entry("B", 3), entry("C", 5), entry("D", 3)]
    assert [["C", "A"], ["B", "D"]] == [[e.row_id for e in shard] for shard in runner.shards(entries, 2)]
    assert [["C", "B", "D", "A"]] == [[e.row_id for e in shard] for shard in runner.shards(entries, 1)]
    assert [["C"], ["B"], ["D"], ["A"]] == [[e.row_id for e in shard] for shard in runner.shards(entries, 6)]
    # The row's own weight of 1 decides here: 4+1 against (1+1)·2 then (1+1)·3 sends T to the first
    # shard; a weight of 0 (or less) puts all four small rows on the second, a weight of 2 sends S.
    small = [entry("P", 4), entry("Q", 1), entry("R", 1), entry("S", 1), entry("T", 1)]
    assert [["P", "T"], ["Q", "R", "S"]] == [[e.row_id for e in shard] for shard in runner.shards(small, 2)]


@pytest.mark.parametrize(
    ("plugin", "group", "expected"),
    [
        pytest.param(
            statement_plugin,
            "contracts-statement-mutation",
            {
                "--statement-mutation-plan": "run the statement mutants of this plan (JSON)",
                "--statement-mutation-out": "write the verdicts (JSON) here (required with a plan)",
                "--statement-mutation-stats": "take the coverage map from mutmut's stats of this same code "
                "(mutants/mutmut-stats.json) instead of a profiled pass",
            },
            id="statement",
        ),
        pytest.param(
            plugin,
            "contracts-spec-mutation",
            {
                "--spec-mutation-plan": "run the spec mutants of this plan (JSON) instead of the tests",
                "--spec-mutation-out": "write the verdicts (JSON) here (required with a plan)",
                "--spec-mutation-rows": "module:function returning the suite's loaded spec rows "
                "(default: contracts.spec_suite.spec_rows:all_rows)",
            },
            id="spec",
        ),
    ],
)
def test_plugin_options_and_their_help(plugin: Any, group: str, expected: dict[str, str]) -> None:
    """Each plugin adds its options, in its own group, each with the help `pytest --help` shows."""
    parser = pytest.Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    options = parser.getgroup(group).options
    assert expected == {option.names()[0]: option.attrs()["help"] for option in options}

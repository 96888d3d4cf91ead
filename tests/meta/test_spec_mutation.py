"""The spec-mutation tool: its operators, the TOML writer, the gate, and the runs in real sessions."""

from __future__ import annotations

import json
import math
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest

from contracts.spec_mutation import expressions, tomlwriter
from contracts.spec_mutation.catalog import catalog, file_mutants, schema_context
from contracts.spec_mutation.equivalence import equivalent, refused
from contracts.spec_mutation.operators import NEVER_MATCHES, row_mutants

SPECS = Path(__file__).resolve().parents[2] / "specs"
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
        ("X.fail.a:examples.0.message:altered:0", "message + ' (mutant)'"),
    ] == [*found[:2], *found[6:]]
    mutants = row_mutants(FAILURE, CONTEXT)
    assert NEVER_MATCHES == mutants[7].row["message"]
    assert [*FAILURE["probes"], "parameter_changes"] == mutants[8].row["probes"]
    assert "bad (mutant)" == mutants[10].row["examples"][0]["message"]


def test_contract_mutants() -> None:
    """Contract rows: each enforcing failure replaced by the first failure the row does not name."""
    row = {"id": "X.contract.c", "kind": "contract", "enforced_by": ["X.fail.b"]}
    assert [("X.contract.c:enforced_by.0:other-failure:0", "X.fail.b -> X.fail.a")] == described(row)
    assert ["X.fail.a"] == row_mutants(row, CONTEXT)[0].row["enforced_by"]
    assert [] == described({**row, "enforced_by": ["X.fail.a", "X.fail.b"]})


def test_rule_mutants() -> None:
    """Rule rows: every claim of every example ±1 (nested numbers too), booleans flipped, inputs kept."""
    row = {
        "id": "X.rule.r",
        "kind": "rule",
        "examples": [
            {"where": {"a": 1}, "inputs": [1], "upstream": 1, "op": "add", "out": [[1, 2.5]], "refused": True}
        ],
    }
    assert [
        ("X.rule.r:examples.0.out:plus:0", "every number +1"),
        ("X.rule.r:examples.0.out:minus:0", "every number -1"),
        ("X.rule.r:examples.0.refused:flip:0", "True -> False"),
    ] == described(row)
    mutants = row_mutants(row, CONTEXT)
    assert [[[2, 3.5]], [[0, 1.5]], False] == [
        m.row["examples"][0][k] for m, k in zip(mutants, ("out", "out", "refused"))
    ]
    assert [] == described({"id": "X.rule.s", "kind": "rule"})


# ---------------------------------------------------------------- which changes are no mutants


def test_refused_by_the_loader() -> None:
    """A symbol as exponent is refused by the loader; the original row is not."""
    assert refused({**FORMULA, "expr": "2 ** K"}, frozenset())
    assert not refused(FORMULA, frozenset())


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


def test_catalog_drops_and_counts(tmp_path: Path) -> None:
    """The catalog keeps real mutants and counts the refused, equivalent and repeated ones."""
    gradient: dict[str, Any] = {
        "id": "X.grad.cube",
        "kind": "gradient",
        "title": "t",
        "origin": "decision",
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

"""The spec loader: one schema, errors that name the file and the row, ids unique across files."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from contracts.spec import SpecError, load_rows, spec_dir
from tests.common.paths import SPECS
from tests.common.specs import formula, write_specs

REPO_SPECS = SPECS


def test_a_valid_file_loads_with_stage_and_file(tmp_path: Path) -> None:
    """A well-formed row loads with its stage, file and fields."""
    (loaded,) = load_rows(write_specs(tmp_path, {"a.toml": formula()}))
    assert ("X99.cost.dot", "formula", "99", "a.toml", "2*K - 1") == (
        loaded.id,
        loaded.kind,
        loaded.stage,
        loaded.file,
        loaded["expr"],
    )


BROKEN = [
    pytest.param({"a.toml": "not = [toml"}, r"a\.toml: not valid TOML", id="toml"),
    pytest.param(
        {"a.toml": formula().replace('expr = "2*K - 1"\n', "")},
        r"a\.toml: row 'X99\.cost\.dot': rows/0: 'expr' is a required property",
        id="missing-field",
    ),
    pytest.param(
        {"a.toml": formula(row_id="lower case")},
        r"a\.toml: row 'lower case': rows/0/id: 'lower case' does not match",
        id="bad-id",
    ),
    pytest.param(
        {"a.toml": formula().replace('kind = "formula"', 'kind = "poem"')},
        r"a\.toml: row 'X99\.cost\.dot': rows/0/kind: 'poem' is not one of",
        id="bad-kind",
    ),
    pytest.param(
        {"a.toml": 'rows = 5\n[meta]\nstage = "99"\ntitle = "t"\nseed = "s"\n'},
        r"a\.toml: row -: rows: 5 is not of type 'array'",
        id="rows-not-an-array",
    ),
    pytest.param(
        {"a.toml": formula().replace('expr = "2*K - 1"\n', "").replace("symbols = ", "symbolz = ")},
        r"a\.toml: row 'X99\.cost\.dot': rows/0: 'expr' is a required property$",
        id="first-of-several-errors",
    ),
    pytest.param(
        {"a.toml": formula().replace('expr = "2*K - 1"\n', "").replace('compared_with = ["planner"]\n', "")},
        r"a\.toml: row 'X99\.cost\.dot': rows/0: 'compared_with' is a required property$",
        id="first-error-alphabetically-not-in-schema-order",
    ),
    pytest.param(
        {"a.toml": 'rows = [5]\n[meta]\nstage = "99"\ntitle = "t"\nseed = "s"\n'},
        r"a\.toml: row -: rows/0: 5 is not of type 'object'",
        id="row-not-a-table",
    ),
    pytest.param(
        {"a.toml": formula().replace('id = "X99.cost.dot"\n', "")},
        r"a\.toml: row '#0': rows/0: 'id' is a required property",
        id="row-without-id",
    ),
    pytest.param(
        {"a.toml": formula().replace('stage = "99"', "")},
        r"a\.toml: row -: meta: 'stage' is a required property",
        id="missing-meta",
    ),
    pytest.param(
        {"a.toml": formula(expr="K.real")},
        r"a\.toml: row 'X99\.cost\.dot': expr: Attribute is not allowed",
        id="attribute-in-expr",
    ),
    pytest.param(
        {"a.toml": formula(expr="K ** 1000")},
        r"a\.toml: row 'X99\.cost\.dot': expr: an exponent must be a constant with \|exponent\| <= 64",
        id="absurd-exponent",
    ),
    pytest.param(
        {"a.toml": formula(expr="system(K)")},
        r"a\.toml: row 'X99\.cost\.dot': expr: only calls of \[\] are allowed",
        id="unknown-call",
    ),
    pytest.param(
        {"a.toml": formula(meta_extra='functions = ["system"]')},
        r"a\.toml: meta\.functions names unknown functions \['system'\]",
        id="unknown-function",
    ),
    pytest.param(
        {"a.toml": formula(), "b.toml": formula()},
        r"b\.toml: row 'X99\.cost\.dot': id already used in a\.toml",
        id="duplicate-id",
    ),
]


@pytest.mark.parametrize(("files", "message"), BROKEN)
def test_broken_spec_is_rejected_naming_file_and_row(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    """Every malformed spec raises SpecError whose message names the file and the row."""
    with pytest.raises(SpecError, match=message):
        load_rows(write_specs(tmp_path, files))


def test_contract_naming_an_unknown_row_is_rejected(tmp_path: Path) -> None:
    """A contract row's enforced_by must name rows that exist."""
    contract = """
[[rows]]
id = "X99.contract.c"
kind = "contract"
title = "c"
origin = "seed"
level = "refusals"
category = "refusal"
blocked_at = "somewhere"
enforced_by = ["X99.cost.dot", "X99.fail.missing"]
"""
    with pytest.raises(
        SpecError, match=r"row 'X99\.contract\.c': enforced_by names unknown row 'X99\.fail\.missing'"
    ):
        load_rows(write_specs(tmp_path, {"a.toml": formula() + contract}))


def test_gradient_expressions_see_inputs_constants_and_upstream(tmp_path: Path) -> None:
    """A gradient row's expressions may use its inputs, its constants and g; nothing else."""
    gradient = """
[[rows]]
id = "X99.grad.pow"
kind = "gradient"
title = "pow"
origin = "decision"
level = "values"
category = "gradient"
op = "pow"
forward = "x * k"
grads = {{ x = "g * k * {extra}" }}
domain = {{ x = {{ min = 0, max = 1, type = "float" }} }}
constants = {{ k = {{ min = 1, max = 2 }} }}
"""
    good = write_specs(tmp_path, {"a.toml": formula() + gradient.format(extra="x")})
    assert ["X99.cost.dot", "X99.grad.pow"] == [r.id for r in load_rows(good)]
    bad = write_specs(tmp_path, {"a.toml": formula() + gradient.format(extra="y")})
    with pytest.raises(SpecError, match=r"row 'X99\.grad\.pow': grads\.x: unknown name 'y'"):
        load_rows(bad)
    bad_forward = write_specs(
        tmp_path, {"a.toml": formula() + gradient.format(extra="x").replace('"x * k"', '"x * z"')}
    )
    with pytest.raises(SpecError, match=r"row 'X99\.grad\.pow': forward: unknown name 'z'"):
        load_rows(bad_forward)


def test_spec_dir_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """CONTRACTS_SPECS points the loader elsewhere; unset, it finds the repository's specs/."""
    monkeypatch.delenv("CONTRACTS_SPECS", raising=False)
    assert REPO_SPECS == spec_dir()
    monkeypatch.setenv("CONTRACTS_SPECS", str(tmp_path))
    assert tmp_path == spec_dir()


def test_repository_specs_load() -> None:
    """The shipped specs are valid, with ids unique across files."""
    loaded = load_rows(REPO_SPECS)
    assert len({r.id for r in loaded}) == len(loaded) > 0


# ---------------------------------------------------------------- every schema field is enforced
# One valid file holding a row of each kind; each case breaks one field and names the error.

# meta lists an array-only function (T) too: a formula's examples are evaluated with the scalar ones.
BASE_META: dict[str, Any] = {"stage": "99", "title": "every kind", "seed": "none", "functions": ["exp", "T"]}
BASE_ROWS: list[dict[str, Any]] = [
    {
        "id": "X99.cost.f",
        "kind": "formula",
        "title": "a formula",
        "origin": "decision",
        "level": "contract",
        "category": "cost",
        "seed": "f = 2K - 1",
        "note": "why",
        "expr": "2*K - exp(0)",
        "symbols": {"K": {"min": 1, "max": 3, "type": "int"}},
        "compared_with": ["planner"],
        "examples": [{"where": {"K": 2}, "value": 3}],
    },
    {
        "id": "X99.fail.f",
        "kind": "failure",
        "title": "a failure",
        "origin": "seed",
        "level": "refusals",
        "category": "refusal",
        "blocked_at": "construction",
        "exception": "ShapeError",
        "message": "width",
        "late_effect": "wrong numbers",
        "probes": ["operations"],
    },
    {
        "id": "X99.contract.c",
        "kind": "contract",
        "title": "a contract",
        "origin": "seed",
        "level": "refusals",
        "category": "refusal",
        "blocked_at": "construction",
        "enforced_by": ["X99.fail.f"],
    },
    {
        "id": "X99.grad.g",
        "kind": "gradient",
        "title": "a gradient",
        "origin": "decision",
        "level": "values",
        "category": "gradient",
        "op": "mul",
        "forward": "a * k",
        "grads": {"a": "g * k * exp(0)"},
        "domain": {"a": {"min": -1, "max": 1, "type": "float"}},
        "constants": {"k": {"min": 1, "max": 2}},
    },
    {
        "id": "X99.rule.r",
        "kind": "rule",
        "title": "a rule",
        "origin": "decision",
        "level": "values",
        "category": "value",
        "statement": "it holds",
    },
]
ROW_AT = {row["kind"]: index for index, row in enumerate(BASE_ROWS)}


def toml_value(value: Any) -> str:
    """Enough of a TOML writer for these documents (strings as JSON, which TOML's basic strings read)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value) if isinstance(value, str) else repr(value)


def toml_document(document: dict[str, Any]) -> str:
    lines = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in document.items() if k not in ("meta", "rows")]
    if document.get("rows") == []:
        lines.append("rows = []")
    if "meta" in document:
        lines += ["[meta]", *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in document["meta"].items())]
    for row in document.get("rows", []):
        lines += ["[[rows]]", *(f"{json.dumps(k)} = {toml_value(v)}" for k, v in row.items())]
    return "\n".join(lines) + "\n"


Edit = Callable[[dict[str, Any]], None]


def at(kind: str, field: str, value: Any) -> Edit:
    """Set (or with DROP, remove) one field of the row of that kind."""

    def edit(document: dict[str, Any]) -> None:
        row = document["rows"][ROW_AT[kind]]
        if value is DROP:
            del row[field]
        else:
            row[field] = value

    return edit


DROP = object()


def row_case(kind: str, field: str, value: Any, message: str, case_id: str) -> Any:
    index = ROW_AT[kind]
    row_id = BASE_ROWS[index]["id"].replace(".", r"\.")
    return pytest.param(
        [at(kind, field, value)], rf"a\.toml: row '{row_id}': rows/{index}{message}", id=case_id
    )


REQUIRED = {
    "formula": [
        "id",
        "kind",
        "title",
        "origin",
        "level",
        "category",
        "expr",
        "symbols",
        "compared_with",
        "examples",
    ],
    "failure": ["blocked_at", "exception", "message", "late_effect", "probes"],
    "contract": ["blocked_at", "enforced_by"],
    "gradient": ["op", "forward", "grads", "domain"],
    "rule": ["statement"],
}
ENUMS = [
    ("formula", "kind", "poem", "/kind: 'poem' is not one of"),
    ("formula", "origin", "rumour", "/origin: 'rumour' is not one of"),
    ("formula", "level", "optional", "/level: 'optional' is not one of"),
    ("formula", "category", "speed", "/category: 'speed' is not one of"),
    ("failure", "exception", "KeyError", "/exception: 'KeyError' is not one of"),
    ("failure", "probes", ["memory"], "/probes/0: 'memory' is not one of"),
    ("formula", "compared_with", ["oracle"], "/compared_with/0: 'oracle' is not one of"),
    (
        "formula",
        "symbols",
        {"K": {"min": 1, "max": 3, "type": "complex"}},
        "/symbols/K/type: 'complex' is not one",
    ),
]
TYPES = [
    ("formula", "title", 5, "/title: 5 is not of type 'string'"),
    ("formula", "title", "", "/title: '' should be non-empty"),
    ("formula", "seed", 5, "/seed: 5 is not of type 'string'"),
    ("formula", "note", ["x"], r"/note: \['x'\] is not of type 'string'"),
    ("formula", "expr", 5, "/expr: 5 is not of type 'string'"),
    ("formula", "symbols", {}, r"/symbols: \{\} should be non-empty"),
    ("formula", "symbols", {"K": {"min": 1}}, "/symbols/K: 'max' is a required property"),
    ("formula", "symbols", {"K": {"max": 1}}, "/symbols/K: 'min' is a required property"),
    ("formula", "symbols", {"K": {"min": "1", "max": 3}}, "/symbols/K/min: '1' is not of type 'number'"),
    ("formula", "symbols", {"K": {"min": 1, "max": "3"}}, "/symbols/K/max: '3' is not of type 'number'"),
    ("formula", "symbols", {"K": {"min": 1, "max": 3, "step": 1}}, "/symbols/K: Additional properties"),
    ("formula", "compared_with", [], r"/compared_with: \[\] should be non-empty"),
    ("formula", "examples", [], r"/examples: \[\] should be non-empty"),
    ("formula", "examples", [{"where": {"K": 2}}], "/examples/0: 'value' is a required property"),
    ("formula", "examples", [{"value": 3}], "/examples/0: 'where' is a required property"),
    ("formula", "examples", [{"where": {"K": 2}, "value": "3"}], "/examples/0/value: '3' is not of type"),
    ("formula", "examples", [{"where": {"K": True}, "value": 3}], "/examples/0/where/K: True is not of type"),
    (
        "formula",
        "examples",
        [{"where": [2], "value": 3}],
        r"/examples/0/where: \[2\] is not of type 'object'",
    ),
    ("rule", "examples", [5], "/examples/0: 5 is not of type 'object'"),
    ("rule", "examples", {}, r"/examples: \{\} is not of type 'array'"),
    ("failure", "blocked_at", 5, "/blocked_at: 5 is not of type 'string'"),
    ("failure", "message", 5, "/message: 5 is not of type 'string'"),
    ("failure", "late_effect", 5, "/late_effect: 5 is not of type 'string'"),
    ("failure", "probes", "operations", "/probes: 'operations' is not of type 'array'"),
    ("contract", "blocked_at", 5, "/blocked_at: 5 is not of type 'string'"),
    ("contract", "enforced_by", [], r"/enforced_by: \[\] should be non-empty"),
    ("contract", "enforced_by", ["lower"], "/enforced_by/0: 'lower' does not match"),
    ("gradient", "op", 5, "/op: 5 is not of type 'string'"),
    ("gradient", "forward", 5, "/forward: 5 is not of type 'string'"),
    ("gradient", "grads", {}, r"/grads: \{\} should be non-empty"),
    ("gradient", "grads", {"a": 5}, "/grads/a: 5 is not of type 'string'"),
    ("gradient", "domain", {}, r"/domain: \{\} should be non-empty"),
    ("gradient", "domain", {"a": 5}, "/domain/a: 5 is not of type 'object'"),
    ("gradient", "constants", {"k": 5}, "/constants/k: 5 is not of type 'object'"),
    ("rule", "statement", 5, "/statement: 5 is not of type 'string'"),
    ("rule", "cases", {"one": "x"}, r"/cases: \{'one': 'x'\} does not have enough properties"),
    ("rule", "cases", {"one": "x", "Two": "y"}, "/cases: 'Two' does not match"),
    ("rule", "cases", {"one": "x", "two": 5}, "/cases/two: 5 is not of type 'string'"),
    ("rule", "cases", {"one": "x", "two": ""}, "/cases/two: '' should be non-empty"),
    ("rule", "tolerances", {}, r"/tolerances: \{\} should be non-empty"),
    ("rule", "tolerances", {"value": {"rel": 1e-12}}, "/tolerances/value: 'abs' is a required property"),
    (
        "rule",
        "tolerances",
        {"value": {"rel": -1, "abs": 0}},
        "/tolerances/value/rel: -1 is less than the minimum",
    ),
    (
        "rule",
        "tolerances",
        {"value": {"rel": 1, "abs": 0, "k": 2}},
        "/tolerances/value: Additional properties",
    ),
    ("rule", "epsilon_factor", 0, "/epsilon_factor: 0 is less than or equal to the minimum of 0"),
    ("rule", "float64_only", {"lower": "x"}, "/float64_only: 'lower' does not match"),
    ("rule", "float64_only", {"X99.fail.f": ""}, "/float64_only/X99.fail.f: '' should be non-empty"),
    (
        "gradient",
        "cases",
        {"one": "x", "two": "y"},
        r": Unevaluated properties are not allowed \('cases' was",
    ),
    ("rule", "surprise", "x", r": Unevaluated properties are not allowed \('surprise' was unexpected\)"),
    ("formula", "statement", "x", r": Unevaluated properties are not allowed \('statement' was unexpected\)"),
]


def meta(field: str, value: Any) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        if value is DROP:
            del document["meta"][field]
        else:
            document["meta"][field] = value

    return edit


def top(field: str, value: Any) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        if value is DROP:
            del document[field]
        else:
            document[field] = value

    return edit


def expression(kind: str, field: str, value: Any) -> Edit:
    return at(kind, field, value)


def with_precedence(order: list[str], unordered: list[list[str]]) -> Edit:
    """Add a precedence row ordering the failure row (and whatever else order and unordered name)."""

    def edit(document: dict[str, Any]) -> None:
        document["rows"].append(
            {
                "id": "X99.order.o",
                "kind": "precedence",
                "title": "an order",
                "origin": "decision",
                "level": "contract",
                "category": "order",
                "entry": "somewhere",
                "order": order,
                "unordered": unordered,
                "statement": "first wins",
                "examples": [{"faults": [order[0], order[0]], "case": {}, "raises": order[0]}],
            }
        )

    return edit


SCHEMA_CASES = [
    *(
        row_case(kind, field, DROP, f": '{field}' is a required property", f"{kind}-without-{field}")
        for kind, fields in REQUIRED.items()
        for field in fields
        if field != "id"
    ),
    pytest.param(
        [at("formula", "id", DROP)], r"row '#0': rows/0: 'id' is a required property", id="row-without-id"
    ),
    *(
        row_case(kind, field, value, message, f"{kind}-{field}-wrong-enum")
        for kind, field, value, message in ENUMS
    ),
    *(
        row_case(kind, field, value, message, f"{kind}-{field}-{json.dumps(value)}")
        for kind, field, value, message in TYPES
    ),
    *(
        pytest.param(
            [meta(field, DROP)], f"row -: meta: '{field}' is a required property", id=f"meta-without-{field}"
        )
        for field in ("stage", "title", "seed")
    ),
    pytest.param([meta("stage", "9.9")], "row -: meta/stage: '9.9' does not match", id="meta-stage-pattern"),
    pytest.param([meta("title", "")], "row -: meta/title: '' should be non-empty", id="meta-title-empty"),
    pytest.param([meta("seed", 5)], "row -: meta/seed: 5 is not of type 'string'", id="meta-seed-type"),
    pytest.param(
        [meta("functions", [5])], "row -: meta/functions/0: 5 is not of type", id="meta-function-type"
    ),
    pytest.param(
        [meta("functions", "exp")], "row -: meta/functions: 'exp' is not of type", id="meta-functions-type"
    ),
    pytest.param(
        [meta("extra", 1)],
        r"row -: meta: Additional properties .*\('extra' was unexpected\)",
        id="meta-extra",
    ),
    pytest.param([top("meta", DROP)], "row -: : 'meta' is a required property", id="without-meta"),
    pytest.param([top("rows", DROP)], "row -: : 'rows' is a required property", id="without-rows"),
    pytest.param([top("rows", [])], r"row -: rows: \[\] should be non-empty", id="rows-empty"),
    pytest.param(
        [top("extra", 1)], r"row -: : Additional properties .*\('extra' was unexpected\)", id="top-extra"
    ),
    pytest.param(
        [meta("functions", ["exp", "system"])],
        r"a\.toml: meta\.functions names unknown functions \['system'\]",
        id="meta-functions-unknown",
    ),
    pytest.param(
        [expression("formula", "expr", "2*J")],
        r"row 'X99\.cost\.f': expr: unknown name 'J' in '2\*J'",
        id="formula-expr-unknown-symbol",
    ),
    pytest.param(
        [expression("formula", "expr", "log(K)")],
        r"row 'X99\.cost\.f': expr: only calls of \['T', 'exp'\] are allowed in 'log\(K\)'",
        id="formula-expr-unlisted-function",
    ),
    pytest.param(
        [expression("gradient", "forward", "a * z")],
        r"row 'X99\.grad\.g': forward: unknown name 'z' in 'a \* z'",
        id="gradient-forward-unknown-symbol",
    ),
    pytest.param(
        [expression("gradient", "grads", {"a": "g * q"})],
        r"row 'X99\.grad\.g': grads\.a: unknown name 'q' in 'g \* q'",
        id="gradient-grad-unknown-symbol",
    ),
    pytest.param(
        [at("rule", "id", "X99.fail.f")],
        r"a\.toml: row 'X99\.fail\.f': id already used in a\.toml$",
        id="duplicate-id-in-one-file",
    ),
    pytest.param(
        [
            at("rule", "cases", {"one": "x", "two": "y"}),
            at("rule", "examples", [{"case": "one"}, {"case": "three"}]),
        ],
        r"a\.toml: row 'X99\.rule\.r': examples/1: case 'three' is not one of the row's cases \(one, two\)$",
        id="example-case-not-listed",
    ),
    pytest.param(  # no example at all: every listed case is unshown, the first is named
        [at("rule", "cases", {"one": "x", "two": "y"}), at("rule", "examples", [])],
        r"a\.toml: row 'X99\.rule\.r': cases/one: no example shows case 'one'$",
        id="cases-without-any-example",
    ),
    pytest.param(  # the unshown case is the second listed: a check of the first case alone lets it in
        [
            at("rule", "cases", {"one": "x", "two": "y"}),
            at("rule", "examples", [{"case": "one"}, {"case": "one"}]),
        ],
        r"a\.toml: row 'X99\.rule\.r': cases/two: no example shows case 'two'$",
        id="case-without-example",
    ),
    pytest.param(
        [at("rule", "float64_only", {"X99.fail.f": "why", "X99.fail.nowhere": "why"})],
        r"row 'X99\.rule\.r': float64_only names unknown row 'X99\.fail\.nowhere'$",
        id="float64-only-unknown-id",
    ),
    pytest.param(
        [at("rule", "examples", [{"case": "one"}])],
        r"row 'X99\.rule\.r': examples/0: case 'one' is not one of the row's cases \(none\)$",
        id="example-case-without-cases",
    ),
    pytest.param(
        [at("contract", "enforced_by", ["X99.fail.f", "X99.fail.nowhere"])],
        r"row 'X99\.contract\.c': enforced_by names unknown row 'X99\.fail\.nowhere'$",
        id="enforced-by-unknown-id",
    ),
    # each check meets its broken item second, after a good one: a check that reads only the first
    # item, or only one of the fields that name rows, lets it in
    pytest.param(
        [
            expression("formula", "expr", "2*K - exp(0) + 1 / (K - 1)"),
            at("formula", "examples", [{"where": {"K": 2}, "value": 4}, {"where": {"K": 1}, "value": 2}]),
        ],
        r"row 'X99\.cost\.f': examples/1: expr does not evaluate at \{'K': 1\} \(ZeroDivisionError",
        id="second-example-does-not-evaluate",
    ),
    pytest.param(
        [with_precedence(["X99.fail.f", "X99.fail.nowhere"], [])],
        r"row 'X99\.order\.o': order names unknown row 'X99\.fail\.nowhere'$",
        id="order-unknown-id",
    ),
    pytest.param(
        [with_precedence(["X99.fail.f", "X99.cost.f"], [["X99.fail.f", "X99.fail.nowhere"]])],
        r"row 'X99\.order\.o': order names unknown row 'X99\.fail\.nowhere'$",
        id="unordered-unknown-id",
    ),
    pytest.param(
        [expression("gradient", "forward", "a * k * g")],
        r"row 'X99\.grad\.g': forward: unknown name 'g' in 'a \* k \* g'",
        id="gradient-forward-reads-no-upstream",
    ),
]


def test_the_base_document_is_valid(tmp_path: Path) -> None:
    """The document every schema case breaks loads: each case's refusal comes from its one edit."""
    files = {"a.toml": toml_document({"meta": BASE_META, "rows": BASE_ROWS})}
    assert [row["id"] for row in BASE_ROWS] == [row.id for row in load_rows(write_specs(tmp_path, files))]


@pytest.mark.parametrize(("edits", "message"), SCHEMA_CASES)
def test_every_schema_field_is_enforced(tmp_path: Path, edits: list[Edit], message: str) -> None:
    """Each schema field, broken alone (missing, wrong enum, wrong type, extra), is refused naming it."""
    document = copy.deepcopy({"meta": BASE_META, "rows": BASE_ROWS})
    for edit in edits:
        edit(document)
    with pytest.raises(SpecError, match=message):
        load_rows(write_specs(tmp_path, {"a.toml": toml_document(document)}))


EDGES = [
    pytest.param("a.b.c.d.e.f.g.h = 1\n", None, id="8-part-key-is-read"),
    pytest.param(
        'x = 1\na."b".c.d.e.f.g.h.i = 1\n', r"line 2: a dotted key of 9 parts \(at most 8\)$", id="9-parts"
    ),
    pytest.param(
        '"a"."b"."c"."d"."e"."f"."g"."h"."i" = 1\n',
        r"line 1: a dotted key of 9 parts \(at most 8\)$",
        id="9-quoted-parts",
    ),
    pytest.param("x = " + "[" * 32 + "]" * 32 + "\n", None, id="32-deep-is-read"),
    pytest.param(
        "y = [[1]]\n\nx = " + "[" * 33 + "]" * 33 + "\n",
        r"line 3: brackets nested more than 32 deep$",
        id="33-deep",
    ),
    pytest.param("x = " + "{a = " * 32 + "1" + "}" * 32 + "\n", None, id="32-deep-inline-tables-are-read"),
    pytest.param(
        "x = " + "{a = " * 33 + "1" + "}" * 33 + "\n",
        r"line 1: brackets nested more than 32 deep$",
        id="33-deep-inline-tables",
    ),
    pytest.param(
        "x = " + "[{a = " * 17 + "1" + "}]" * 17 + "\n",
        r"line 1: brackets nested more than 32 deep$",
        id="34-deep-arrays-and-inline-tables",
    ),
    pytest.param(f"x = {2**63 - 1}\ny = {-(2**63)}\n", None, id="int64-extremes-are-read"),
    pytest.param(
        f"x = {2**63}\n",
        r"a\.toml: row -: x: an integer of 64 bits is outside TOML's 64-bit range$",
        id="2**63",
    ),
    pytest.param(
        f"x = [1, {-(2**63) - 1}]\n", r"row -: x/1: an integer of 64 bits is outside", id="-2**63-1"
    ),
    pytest.param(
        'note = "a.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ \\" a.b.c.d.e.f.g.h.i.j"\n'
        "# a.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
        "text = '''\na.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n'''\n"
        "lit = 'a.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[['\n"
        'more = """\na.b.c.d.e.f.g.h.i.j [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"""\n'
        "y = 1.5\n",
        None,
        id="strings-and-comments-are-not-keys",
    ),
    pytest.param(
        "text = \"\"\"\n\n\n\"\"\"\nlit = '''\n'''\n" + ".".join("k" * 9) + " = 1\n",
        r"line 7: a dotted key of 9 parts",
        id="lines-counted-across-multi-line-strings",
    ),
]


@pytest.mark.parametrize(("text", "message"), EDGES)
def test_raw_limits_at_their_edges(text: str, message: str | None) -> None:
    """Each raw-text limit admits its bound and refuses one past it; strings and comments are not keys."""
    from contracts.spec.loader import parse_document

    if message is None:
        assert isinstance(parse_document("a.toml", text), dict)
    else:
        with pytest.raises(SpecError, match=message):
            parse_document("a.toml", text)


@pytest.mark.parametrize(("size", "refused"), [(128 * 1024, False), (128 * 1024 + 1, True)])
def test_file_size_limit_at_its_edge(tmp_path: Path, size: int, refused: bool) -> None:
    """A file of exactly 128 KiB is read; one byte more is refused before it is decoded."""
    from contracts.spec.loader import read_text

    path = tmp_path / "a.toml"
    path.write_bytes(b"#" * (size - 1) + b"\n")
    if refused:
        with pytest.raises(SpecError, match=r"^a\.toml: larger than 131072 bytes$"):
            read_text(path)
    else:
        assert size == len(read_text(path))


class EndlessSource:
    """A file of endless bytes that refuses to be read whole (a read of everything would never end)."""

    name = "endless.toml"

    def open(self, mode: str) -> EndlessSource:
        assert "rb" == mode
        return self

    def __enter__(self) -> EndlessSource:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def read(self, size: int | None = -1) -> bytes:
        assert size is not None, "read(None) reads an endless file whole"
        assert size > 0, f"read({size}) reads an endless file whole"
        return b"#" * size


def test_file_size_limit_reads_no_more_than_one_byte_past_it() -> None:
    """An endless file is refused after reading at most the limit + 1 bytes, never read whole."""
    from contracts.spec.loader import read_text

    with pytest.raises(SpecError, match=r"^endless\.toml: larger than 131072 bytes$"):
        read_text(cast(Path, EndlessSource()))


def test_messages_are_one_clipped_line() -> None:
    """A SpecError is one line of at most 500 characters; a longer one ends in '...'."""
    from contracts.spec.loader import spec_error

    assert "a b" == str(spec_error("a\nb"))
    assert "x" * 500 == str(spec_error("x" * 500))
    assert "x" * 497 + "..." == str(spec_error("x" * 501))

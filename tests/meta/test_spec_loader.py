"""The spec loader: one schema, errors that name the file and the row, ids unique across files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from contracts.spec import SpecError, load_rows, spec_dir

REPO_SPECS = Path(__file__).resolve().parents[2] / "specs"

FORMULA = """
[meta]
stage = "99"
title = "test"
seed = "none"
{meta_extra}

[[rows]]
id = "{row_id}"
kind = "formula"
title = "a formula"
origin = "decision"
expr = "{expr}"
symbols = {{ K = {{ min = 1, max = 3 }} }}
compared_with = ["planner"]
examples = [{{ where = {{ K = 2 }}, value = 3 }}]
"""


def write_specs(tmp_path: Path, files: dict[str, str]) -> Path:
    shutil.copy(REPO_SPECS / "schema.json", tmp_path / "schema.json")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def formula(row_id: str = "X99.cost.dot", expr: str = "2*K - 1", meta_extra: str = "") -> str:
    return FORMULA.format(row_id=row_id, expr=expr, meta_extra=meta_extra)


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

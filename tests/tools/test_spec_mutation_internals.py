"""The spec-mutation tool's internals: the plugin's pieces in a real session, the sampler, the operators."""

from __future__ import annotations

import ast
import math
import random
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tools.spec_mutation import equivalence, plugin
from tools.spec_mutation.equivalence import draw, equivalent, same
from tools.spec_mutation.operators import row_mutants

from contracts.spec import load_rows, load_spec_file
from contracts.spec.loader import schema
from tests.common.fakes import SteadyClock
from tests.common.paths import SPECS
from tests.tools.test_spec_mutation import CONTEXT, described

INI = "[pytest]\nmarkers =\n    spec(*ids): rows\n    other(*ids): not a spec marker\n"


class Recorder:
    """A pytest plugin: runs action in place of the session's test loop; records every logged report."""

    def __init__(self, action: Callable[[pytest.Session], Any]) -> None:
        self.action = action
        self.results: list[Any] = []
        self.logged: list[str] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        self.results.append(self.action(session))
        return True

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.logged.append(f"{report.nodeid} {report.when}")


def in_session(root: Path, tests: str, action: Callable[[pytest.Session], Any]) -> Recorder:
    """Collect root/test_inner.py (holding tests) in an in-process session and run action there."""
    (root / "pytest.ini").write_text(INI)
    (root / "test_inner.py").write_text(tests)
    recorder = Recorder(action)
    arguments = [str(root / "test_inner.py"), "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    try:
        pytest.main([*arguments, "--import-mode=importlib"], plugins=[recorder])
    finally:
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(root)):
                del sys.modules[name]
    return recorder


# ---------------------------------------------------------------- the plugin


def test_rows_option_defaults_to_the_suites_rows() -> None:
    """Without --spec-mutation-rows the plugin reads the rows from contracts.spec_suite.spec_rows:all_rows."""
    parser = pytest.Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    assert "contracts.spec_suite.spec_rows:all_rows" == parser.parse_known_args([]).spec_mutation_rows


MARKED = """import pytest


@pytest.mark.spec("X.b", "X.a")
@pytest.mark.other("X.c")
@pytest.mark.parametrize("n", [1])
def test_property(n):
    pass


@pytest.mark.spec("X.a")
def test_golden():
    pass
"""


def test_marked_ids_read_only_the_spec_markers(tmp_path: Path) -> None:
    """A test's row ids are its spec markers' arguments, not those of its other markers."""
    recorder = in_session(tmp_path, MARKED, lambda session: [plugin.marked_ids(i) for i in session.items])
    assert [[{"X.a", "X.b"}, {"X.a"}]] == recorder.results


def test_bound_items_put_goldens_first(tmp_path: Path) -> None:
    """Each row's tests, goldens before the others whatever the collection order."""

    def bound(session: pytest.Session) -> dict[str, list[str]]:
        found = plugin.bound_items(session.items)
        return {row_id: [item.nodeid for item in items] for row_id, items in found.items()}

    recorder = in_session(tmp_path, MARKED, bound)
    assert [
        {
            "X.a": ["test_inner.py::test_golden", "test_inner.py::test_property[1]"],
            "X.b": ["test_inner.py::test_property[1]"],
        }
    ] == recorder.results


FAILING = """RAN = []


def test_passes():
    RAN.append("passes")


def test_fails():
    RAN.append("fails")
    assert False


def test_after():
    RAN.append("after")
"""


def test_first_failure_stops_there_and_logs_nothing(tmp_path: Path) -> None:
    """The first failing test's node id; the tests after it do not run, and no report is logged."""

    def first(session: pytest.Session) -> tuple[str | None, list[str]]:
        found = plugin.first_failure(session.items)
        return found, list(session.items[0].module.RAN)  # type: ignore[attr-defined]

    recorder = in_session(tmp_path, FAILING, first)
    assert [("test_inner.py::test_fails", ["passes", "fails"])] == recorder.results
    assert [] == recorder.logged


def test_provider_splits_at_the_first_colon() -> None:
    """module:function: the module is what precedes the first colon, the rest is the attribute."""
    assert load_rows is plugin.provider("contracts.spec:load_rows")
    with pytest.raises(AttributeError, match=r"has no attribute 'load_rows:x'$"):
        plugin.provider("contracts.spec:load_rows:x")


def test_graft_where_the_shapes_differ_returns_an_unshared_copy() -> None:
    """A dict grafted with a non-mapping, a non-dict with a mapping, a list with a longer list: the
    source's value comes back, sharing no container with the source."""
    assert 5 == plugin.graft({"a": 1}, 5)
    source: dict[str, Any] = {"a": [1]}
    grafted = plugin.graft(3, source)
    assert {"a": [1]} == grafted
    grafted["a"].append(2)
    assert {"a": [1]} == source
    longer: list[dict[str, int]] = [{"v": 1}, {"v": 2}]
    replaced = plugin.graft([{"v": 0}], longer)
    replaced[0]["v"] = 9
    assert [{"v": 1}, {"v": 2}] == longer


ROW_SPEC = """[meta]
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
"""

ORIGINAL_ROW: dict[str, Any] = tomllib.loads(ROW_SPEC)["rows"][0]  # the row as the file states it


def test_run_row_restores_the_row_after_each_mutant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Surviving mutants: an extension is satisfied, another survived; each mutant's seconds to 4
    digits; afterwards the live row reads as the original again, in the same containers."""
    specs = tmp_path / "specs"
    specs.mkdir()
    shutil.copy(SPECS / "schema.json", specs / "schema.json")
    (specs / "x.toml").write_text(ROW_SPEC)
    document = tomllib.loads(ROW_SPEC)
    mutated = {**ORIGINAL_ROW, "examples": [{"where": {"K": 3}, "value": 6}]}
    plan_row = {
        "row_id": "X.cost.odd",
        "file": "x.toml",
        "mutants": [
            {"id": "X.cost.odd:m:extend:0", "operator": "extend", "row": mutated},
            {"id": "X.cost.odd:m:plus:0", "operator": "plus", "row": mutated},
        ],
    }
    monkeypatch.setattr(plugin, "time", SteadyClock(0.0, 0.123456))  # 0.123456 s per reading

    def run(session: pytest.Session) -> tuple[list[dict[str, Any]], dict[str, Any], bool, bool]:
        live = {row.id: row for row in load_spec_file(specs / "x.toml", schema(specs))}
        examples = live["X.cost.odd"]["examples"]
        example = examples[0]
        verdicts = plugin.run_row(plugin.Swap(specs, live), document, plan_row, session.items)
        restored = live["X.cost.odd"]
        return verdicts, dict(restored), restored["examples"] is examples, restored["examples"][0] is example

    recorder = in_session(tmp_path, "def test_golden():\n    pass\n", run)
    verdicts, restored, same_list, same_example = recorder.results[0]
    assert [
        {"id": "X.cost.odd:m:extend:0", "status": "satisfied", "killed_by": None, "seconds": 0.1235},
        {"id": "X.cost.odd:m:plus:0", "status": "survived", "killed_by": None, "seconds": 0.1235},
    ] == verdicts
    assert ORIGINAL_ROW == restored
    assert (True, True) == (same_list, same_example)
    assert ROW_SPEC == (specs / "x.toml").read_text()


# ---------------------------------------------------------------- the sampler


def test_a_gradient_rows_constants_are_sampled() -> None:
    """A gradient row's constants take values: scaling a grad by a constant is a real change."""
    row: dict[str, Any] = {
        "id": "X.grad.scale",
        "kind": "gradient",
        "forward": "k * x",
        "grads": {"x": "g * k"},
        "domain": {"x": {"min": 1, "max": 2, "type": "float"}},
        "constants": {"k": {"min": 2, "max": 3, "type": "float"}},
    }
    assert not equivalent(row, {**row, "grads": {"x": "g * k * k"}})
    assert equivalent(row, {**row, "grads": {"x": "k * g"}})


def test_an_untyped_domain_draws_integers() -> None:
    """A domain without a type is an integer one, for scalar and for array rows alike."""
    rng = random.Random("untyped")
    drawn = [draw({"min": 1, "max": 3}, rng, arrays) for arrays in (False, True) * 20]
    assert {int} == {type(value) for value in drawn}
    assert {1, 2, 3} == set(drawn)


def test_array_draws_have_the_shapes_rows_and_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """A float domain draws arrays of SHAPE: its first entry counts rows, its second columns."""
    monkeypatch.setattr(equivalence, "SHAPE", (3, 2))
    value = draw({"min": -1, "max": 1, "type": "float"}, random.Random("shape"), arrays=True)
    assert (3, 2) == value.shape


def test_same_treats_nan_alike_and_is_tight() -> None:
    """nan where both are nan is the same; beyond 1e-9 relative or 1e-12 absolute is not."""
    assert same(np.array([math.nan, 1.0]), np.array([math.nan, 1.0]))
    assert not same(np.array([math.nan, 1.0]), np.array([1.0, 1.0]))
    assert same(np.array(1.0), np.array(1.0 + 1e-10))
    assert not same(np.array(1.0), np.array(1.0 + 1e-7))
    assert same(np.array(0.0), np.array(1e-13))
    assert not same(np.array(0.0), np.array(1e-10))


def test_equivalent_draws_the_same_points_every_time() -> None:
    """The sampled points are seeded by the row id: a mutant that differs from the original at one
    point in 35 (undefined at K = 17), found about half the time by 24 draws, gets the same verdict
    on every call."""
    row: dict[str, Any] = {"id": "X.cost.rare", "kind": "formula", "expr": "K + 1"}
    row["symbols"] = {"K": {"min": 1, "max": 35}}
    mutant = {**row, "expr": "K + 1 + 0 / (K - 17)"}
    verdicts = [equivalent(row, mutant) for _ in range(12)]
    # random.Random("X.cost.rare") draws no 17 among its first 24 randint(1, 35): equivalent, always
    assert [True] * 12 == verdicts


# ---------------------------------------------------------------- the operators


def test_a_claim_holding_a_table_moves_every_number_in_it() -> None:
    """A claim that is a table of numbers (nested too) gets ±1 on every number it holds."""
    row = {"id": "X.rule.t", "kind": "rule", "examples": [{"op": "add", "out": {"x": 1, "y": [2.5]}}]}
    assert [
        ("X.rule.t:examples.0.out:plus:0", "every number +1"),
        ("X.rule.t:examples.0.out:minus:0", "every number -1"),
    ] == described(row)
    assert [{"x": 2, "y": [3.5]}, {"x": 0, "y": [1.5]}] == [
        mutant.row["examples"][0]["out"] for mutant in row_mutants(row, CONTEXT)
    ]


def test_each_example_grad_moves_by_one() -> None:
    """An example's grad for one input becomes that grad +1 and -1; the other grads stay."""
    row = {
        "id": "X.grad.add",
        "kind": "gradient",
        "forward": "a + b",
        "grads": {"a": "g", "b": "g"},
        "domain": {"a": {"min": -1, "max": 1}, "b": {"min": -1, "max": 1}},
        "examples": [{"where": {"a": 1.0, "b": 2.0}, "value": 3.0, "grads": {"a": 1.0, "b": -2.0}}],
    }
    grads = [
        m.row["examples"][0]["grads"]
        for m in row_mutants(row, CONTEXT)
        if m.field.startswith("examples.0.grads.")
    ]
    assert [
        {"a": 2.0, "b": -2.0},
        {"a": 0.0, "b": -2.0},
        {"a": 1.0, "b": -1.0},
        {"a": 1.0, "b": -3.0},
    ] == grads


SKIPPING = """
import pytest


def test_skips():
    pytest.skip("not here")


@pytest.mark.xfail(reason="known", strict=False)
def test_expected_to_fail():
    assert False
"""


def test_a_skip_or_an_expected_failure_is_no_failure(tmp_path: Path) -> None:
    """first_failure reads a skipped test and an xfailed one as passing: neither kills a mutant."""
    recorder = in_session(tmp_path, SKIPPING, lambda session: plugin.first_failure(session.items))
    assert [None] == recorder.results


def test_only_a_probe_extension_that_survives_is_satisfied() -> None:
    """Of every operator the real catalog emits, only `extend` (a probe the implementation already
    meets) survives as satisfied; any other survivor stays a survivor the gate counts."""
    from tools.spec_mutation.catalog import catalog
    from tools.spec_mutation.status import SATISFIED, SURVIVED

    operators = sorted({mutant.operator for entry in catalog(SPECS) for mutant in entry.mutants})
    assert "extend" in operators
    assert len(operators) > 10
    verdicts = {operator: plugin.survivor(operator) for operator in operators}
    assert {operator: SURVIVED for operator in operators} | {"extend": SATISFIED} == verdicts


@pytest.mark.parametrize("row_id", [f"X.cost.q{index}" for index in range(20)])
def test_a_mutant_wrong_on_a_quarter_of_the_domain_is_no_equivalent(row_id: str) -> None:
    """K + (K == 3) differs from K only at K = 3 of 1..4: the sampler finds it for every row seed, so a
    real mutant is never dropped as 'the same function' for want of draws."""
    formula = {
        "id": row_id,
        "kind": "formula",
        "expr": "K",
        "symbols": {"K": {"min": 1, "max": 4, "type": "int"}},
    }
    assert not equivalent(formula, {**formula, "expr": "K + (K == 3)"})


def test_several_row_prefixes_select_every_row_any_of_them_names() -> None:
    """--rows A --rows B runs A's rows and B's, not their intersection."""
    from tools.spec_mutation.catalog import RowMutants
    from tools.spec_mutation.runner import chosen

    entries = [RowMutants("f", row_id) for row_id in ("A.x", "B.y", "C.z")]
    assert ["A.x", "B.y"] == [entry.row_id for entry in chosen(entries, ["A", "B"])]


def if_guards_by_module(source: Path) -> dict[str, int]:
    """The documented guards, counted independently of the tool: an `if` with no else whose block ends
    in `raise`, in a module-level function or a method (not in a function nested in one), per module of
    contracts, the spec suite aside (test code, never mutated)."""
    counts: dict[str, int] = {}
    for path in sorted((source / "contracts").rglob("*.py")):
        parts = path.relative_to(source).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if module.startswith("contracts.spec_suite"):
            continue
        found = 0

        def visit(node: Any, depth: int) -> None:
            nonlocal found
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and depth == 1 and not child.orelse:
                    found += isinstance(child.body[-1], ast.Raise)
                visit(child, depth + isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef))

        visit(ast.parse(path.read_text(encoding="utf-8")), 0)
        if found:
            counts[module] = found
    return counts


def test_the_statement_plan_deletes_every_if_guard_of_every_module() -> None:
    """Per module, the plan's `if` deletions are exactly the guards an independent walk counts: no
    module (contracts.spec included) and no guard that builds its message before `raise` is left out."""
    from tools.spec_mutation.runner import statement_plan

    root = Path(__file__).resolve().parents[2]
    planned: dict[str, int] = {}
    for entry in statement_plan(root, "contracts"):
        if entry["id"].split(":")[-2] == "delete" and entry["description"].startswith("delete `if "):
            planned[entry["module"]] = planned.get(entry["module"], 0) + 1
    expected = if_guards_by_module(root / "src")
    assert {"contracts.spec.expr", "contracts.spec.loader"} <= set(expected)
    assert expected == planned

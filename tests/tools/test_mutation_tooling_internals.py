"""The mutation tools' internals: the statement plugin's plan loop, the runner's files, commands and
documents, the TOML writer's edges and the catalog's use of a file's meta and failure rows."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from tools.spec_mutation import runner, statement_plugin, tomlwriter
from tools.spec_mutation.catalog import RowMutants, file_mutants, schema_context
from tools.spec_mutation.operators import Mutant

from tests.common.fakes import ScriptedClock
from tests.common.paths import SPECS

CONTEXT = schema_context(json.loads((SPECS / "schema.json").read_bytes()))


# ---------------------------------------------------------------- the statement plugin's plan loop


def planned_target(x: int) -> int:
    return x


def lonely_target(x: int) -> int:
    return x


def make_closed() -> Callable[[], int]:
    captured = 1

    def closed() -> int:
        return captured

    return closed


closed_target = make_closed()  # a function with a closure: a mutant compiled without one cannot replace it


class Item:
    """A collected test as the plan loop reads it: its node id."""

    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


class Config:
    """A pytest config holding the given options."""

    def __init__(self, options: dict[str, str | None]) -> None:
        self.options = options

    def getoption(self, name: str) -> str | None:
        return self.options[name]


class Session:
    """A pytest session as the plan loop reads it: its options and its collected items."""

    def __init__(self, options: dict[str, str | None], items: list[Item]) -> None:
        self.config = Config(options)
        self.items = items


def plan_entry(mutant_id: str, qualname: str) -> dict[str, Any]:
    return {
        "id": mutant_id,
        "module": __name__,
        "qualname": qualname,
        "path": f"<{mutant_id}>",
        "source": f"def {qualname}(x=0):\n    return 0\n",
    }


def test_run_plan_writes_each_verdict_with_its_tests_limit_and_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Verdicts of no-test, closure and run mutants: tests fastest first, limit 10 s + 10x, times rounded."""
    module = __name__
    stats = {
        "tests_by_mangled_function_name": {
            f"{module}.x_closed_target": ["t.py::slow"],
            f"{module}.x_planned_target": ["t.py::slow", "t.py::fast"],
        },
        "duration_by_test": {"t.py::slow": 0.5, "t.py::fast": 0.25},
    }
    (tmp_path / "stats.json").write_text(json.dumps(stats))
    plan = [
        plan_entry("a", "lonely_target"),
        plan_entry("b", "closed_target"),
        plan_entry("c", "planned_target"),
    ]
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    out = tmp_path / "out.json"
    runs: list[tuple[Any, list[str], float]] = []

    def fake_run_mutant(function: Any, code: Any, tests: list[Item], limit: float) -> str:
        runs.append((function, [item.nodeid for item in tests], limit))
        return "killed"

    monkeypatch.setattr(statement_plugin, "run_mutant", fake_run_mutant)
    # read: the pass's start and end, b's start (it stops there), c's start and end
    monkeypatch.setattr(statement_plugin, "time", ScriptedClock([100.0, 102.34, 150.0, 200.0, 201.23456]))
    session: Any = Session(
        {
            "--statement-mutation-plan": str(tmp_path / "plan.json"),
            "--statement-mutation-stats": str(tmp_path / "stats.json"),
            "--statement-mutation-out": str(out),
        },
        [Item("t.py::slow"), Item("t.py::fast")],
    )
    assert True is statement_plugin.run_plan(session)
    assert [(planned_target, ["t.py::fast", "t.py::slow"], 17.5)] == runs
    assert {
        "coverage_seconds": 2.3,
        "mutants": [
            {"id": "a", "status": "no tests", "tests": 0, "seconds": 0.0},
            {
                "id": "b",
                "status": "not run",
                "tests": 1,
                "seconds": 0.0,
                "error": "the mutant changes the function's closure",
            },
            {"id": "c", "status": "killed", "tests": 2, "seconds": 1.235},
        ],
    } == json.loads(out.read_text())


# ---------------------------------------------------------------- the spec runner's shards


class RecordingPopen:
    """Stands in for subprocess.Popen: keeps what it was given and writes the shard's results."""

    seen: ClassVar[list[dict[str, Any]]] = []  # reset by each test that uses it

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        options = dict(arg.split("=", 1) for arg in args if arg.startswith("--spec-mutation-"))
        plan = json.loads(Path(options["--spec-mutation-plan"]).read_text())
        RecordingPopen.seen.append(
            {
                "plan": Path(options["--spec-mutation-plan"]),
                "out": Path(options["--spec-mutation-out"]),
                "log": Path(stdout.name),
                "cwd": cwd,
                "specs": env["CONTRACTS_SPECS"],
                "stderr": stderr,
                "copied": sorted(p.name for p in Path(env["CONTRACTS_SPECS"]).iterdir()),
            }
        )
        rows = [{"row_id": row["row_id"]} for row in plan["rows"]]
        Path(options["--spec-mutation-out"]).write_text(json.dumps({"rows": rows}))

    def wait(self) -> int:
        return 0


def test_each_shard_gets_its_files_and_spec_copy_in_one_scratch_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shard's plan, out, log and spec copy lie in its own dir of a 'spec-mutation-' scratch dir."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "x.toml").write_text('[meta]\nstage = "X"\n')
    monkeypatch.setenv("CONTRACTS_SPECS", str(SPECS))  # what the shard must not inherit
    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    RecordingPopen.seen = []
    options = runner.RunOptions(tmp_path / "root", specs)
    parts = [[RowMutants("x.toml", "X.a")], [RowMutants("x.toml", "X.b")]]
    assert [{"row_id": "X.a"}, {"row_id": "X.b"}] == runner.run_shards(options, parts)
    first, second = RecordingPopen.seen
    place = first["plan"].parent
    assert ("shard0", True) == (place.name, place.parent.name.startswith("spec-mutation-"))
    assert place.parent / "shard1" == second["plan"].parent
    assert {
        "plan": place / "plan.json",
        "out": place / "out.json",
        "log": place / "pytest.log",
        "cwd": tmp_path / "root",
        "specs": str(place / "specs"),
        "stderr": subprocess.STDOUT,
        "copied": ["x.toml"],
    } == first


class SilentFirstShard(RecordingPopen):
    """The first shard writes no results (as a crashed pytest); every shard records its wait."""

    waited: ClassVar[list[str]] = []

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        super().__init__(args, cwd, env, stdout, stderr)
        self.out = RecordingPopen.seen[-1]["out"]
        if len(RecordingPopen.seen) == 1:
            self.out.unlink()
            Path(stdout.name).write_text("A" + "B" * 3000)  # 3001 characters: the A is cut off

    def wait(self) -> int:
        SilentFirstShard.waited.append(self.out.parent.name)
        return 1


def test_a_shard_without_results_is_reported_after_every_shard_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shard that wrote no results fails the run with its log's last 3000 characters, only once every
    shard has been waited for: no pytest outlives the scratch directory it writes into."""
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "x.toml").write_text('[meta]\nstage = "X"\n')
    monkeypatch.setattr(subprocess, "Popen", SilentFirstShard)
    RecordingPopen.seen, SilentFirstShard.waited = [], []
    parts = [[RowMutants("x.toml", "X.a")], [RowMutants("x.toml", "X.b")]]
    with pytest.raises(RuntimeError, match=r"^a spec-mutation shard wrote no results:\nB{3000}$"):
        runner.run_shards(runner.RunOptions(tmp_path / "root", specs), parts)
    assert ["shard0", "shard1"] == SilentFirstShard.waited


# ---------------------------------------------------------------- the spec results document


def test_results_document_keys_and_its_seconds_to_one_digit() -> None:
    """The spec results document's exact keys, with the run's seconds kept to 1 digit."""
    entry = RowMutants(
        "x.toml",
        "X.r",
        [Mutant("X.r", "expr", "operator", 0, "+ -> -", {})],
        {"repeated": 1},
    )
    ran = [
        {
            "row_id": "X.r",
            "tests": 2,
            "seconds": 0.5,
            "mutants": [
                {"id": "X.r:expr:operator:0", "status": "killed", "killed_by": "t", "seconds": 0.25, "x": 1}
            ],
        }
    ]
    assert {
        "kind": "spec",
        "seconds": 12.3,
        "rows": [
            {
                "row_id": "X.r",
                "file": "x.toml",
                "tests": 2,
                "seconds": 0.5,
                "dropped": {"repeated": 1},
                "mutants": [
                    {
                        "id": "X.r:expr:operator:0",
                        "field": "expr",
                        "operator": "operator",
                        "description": "+ -> -",
                        "status": "killed",
                        "killed_by": "t",
                        "seconds": 0.25,
                    }
                ],
            }
        ],
    } == runner.results([entry], ran, 12.345)


# ---------------------------------------------------------------- the statement runner


def test_statement_plan_leaves_out_only_the_tools_own_package(tmp_path: Path) -> None:
    """The package's spec_mutation modules give no mutant; a module after them in path order does."""
    (tmp_path / "src" / "pkg" / "spec_mutation").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "spec_mutation" / "__init__.py").write_text("def f(x):\n    check(x)\n")
    (tmp_path / "src" / "pkg" / "zeta.py").write_text("def g(x):\n    check(x)\n")
    assert ["pkg.zeta:g:delete:0"] == [entry["id"] for entry in runner.statement_plan(tmp_path, "pkg")]


def test_statement_session_log_and_the_tail_of_a_failed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session logs to place/pytest.log; with no results, the error holds the log's last 3000 characters."""
    logs: list[Path] = []

    def silent(args: list[str], cwd: Path, env: dict[str, str], stdout: Any, stderr: Any) -> None:
        logs.append(Path(stdout.name))
        stdout.write(b"A" + b"b" * 3000)

    monkeypatch.setattr(subprocess, "run", silent)
    options = runner.RunOptions(tmp_path, SPECS)
    with pytest.raises(RuntimeError) as raised:
        runner.run_statement_session(options, tmp_path)
    assert "the statement-mutation session wrote no results:\n" + "b" * 3000 == str(raised.value)
    assert [tmp_path / "pytest.log"] == logs


def test_an_empty_statement_run_has_no_coverage_time_and_its_seconds_to_one_digit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An empty plan runs no session: coverage 0.0 s, the run's seconds and CPU seconds to 1 digit."""
    monkeypatch.setattr(runner, "statement_plan", lambda root, package, drawn: [])
    monkeypatch.setattr(runner, "time", ScriptedClock([100.0, 102.34]))
    cpu = iter([10.0, 12.54])
    monkeypatch.setattr(runner, "children_cpu", lambda: next(cpu))
    assert {
        "kind": "statement",
        "seconds": 2.3,
        "cpu_seconds": 2.5,
        "coverage_seconds": 0.0,
        "mutants": [],
    } == runner.run_statements(runner.RunOptions(Path("root"), SPECS))


def test_every_statement_session_runs_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """More sessions than a default thread pool holds all run at once; verdicts merge in plan order."""
    count = min(32, (os.cpu_count() or 1) + 4) + 1  # one more than ThreadPoolExecutor's default
    entries = [{"id": f"m{number}", "description": f"d{number}"} for number in range(count)]
    monkeypatch.setattr(runner, "statement_plan", lambda root, package, drawn: entries)
    barrier = threading.Barrier(count, timeout=5)

    def session(options: runner.RunOptions, place: Path) -> dict[str, Any]:
        barrier.wait()
        (entry,) = json.loads((place / "plan.json").read_text())
        return {
            "coverage_seconds": 4.5 if entry["id"] == "m0" else 1.0,
            "mutants": [{"id": entry["id"], "status": "killed"}],
        }

    monkeypatch.setattr(runner, "run_statement_session", session)
    results = runner.run_statements(runner.RunOptions(Path("root"), SPECS, jobs=count))
    assert [{"id": f"m{n}", "status": "killed", "description": f"d{n}"} for n in range(count)] == results[
        "mutants"
    ]
    assert 4.5 == results["coverage_seconds"]  # the longest profiled pass, m0's session


# ---------------------------------------------------------------- the TOML writer's edges


def test_writer_keeps_non_ascii_keys_as_they_are() -> None:
    """A key that is not bare is quoted with its non-ASCII letters kept, not escaped."""
    assert '"clé d"' == tomlwriter.key("clé d")
    assert '"clé d" = 1\n' == tomlwriter.dumps({"clé d": 1})


def test_writer_starts_with_the_first_table_when_there_are_no_plain_keys() -> None:
    """No blank first line before a leading [table]; a first key starting with X is kept whole."""
    assert "[meta]\na = 1\n" == tomlwriter.dumps({"meta": {"a": 1}})
    assert 'Xa = 1\n\n[meta]\nX = "y"\n' == tomlwriter.dumps({"Xa": 1, "meta": {"X": "y"}})


# ---------------------------------------------------------------- the catalog


def failure_row(row_id: str) -> dict[str, Any]:
    return {
        "id": row_id,
        "kind": "failure",
        "title": "t",
        "origin": "decision",
        "level": "refusals",
        "category": "refusal",
        "exception": "ShapeError",
        "message": "^bad$",
        "probes": ["graph_nodes"],
    }


def test_a_contract_mutant_names_another_failure_row_of_its_file() -> None:
    """A contract's enforcing failure is replaced by the file's first other failure row (not the contract)."""
    contract = {
        "id": "X.contract.c",
        "kind": "contract",
        "title": "t",
        "origin": "decision",
        "level": "refusals",
        "category": "refusal",
        "enforced_by": ["X.fail.b"],
    }
    document = {
        "meta": {"stage": "X", "level": "contract", "category": "value"},
        "rows": [failure_row("X.fail.a"), failure_row("X.fail.b"), contract],
    }
    found = file_mutants(document, "x.toml", CONTEXT)[2]
    assert [("X.contract.c:enforced_by.0:other-failure:0", "X.fail.b -> X.fail.a")] == [
        (m.mutant_id(), m.description) for m in found.mutants
    ]
    assert ["X.fail.a"] == found.mutants[0].row["enforced_by"]


def test_the_files_declared_functions_let_its_mutants_load() -> None:
    """Functions the file's meta declares let a formula's mutants load; undeclared, all are refused."""
    row = {
        "id": "X.cost.e",
        "kind": "formula",
        "title": "t",
        "origin": "decision",
        "level": "contract",
        "category": "cost",
        "expr": "exp(K)",
        "symbols": {"K": {"min": 1, "max": 3}},
        "compared_with": ["planner"],
        "examples": [{"where": {"K": 0}, "value": 1}],
    }
    (declared,) = file_mutants(
        {"meta": {"stage": "X", "functions": ["exp"]}, "rows": [row]}, "x.toml", CONTEXT
    )
    assert ({}, ["X.cost.e:examples.0.value:plus:0", "X.cost.e:examples.0.value:minus:0"]) == (
        declared.dropped,
        [m.mutant_id() for m in declared.mutants],
    )
    (undeclared,) = file_mutants(
        {"meta": {"stage": "X", "level": "contract", "category": "value"}, "rows": [row]}, "x.toml", CONTEXT
    )
    assert ({"refused by the loader": 2}, []) == (undeclared.dropped, undeclared.mutants)


def test_a_gradient_mutant_equal_on_the_domain_is_dropped() -> None:
    """Dropping the factor 1 of `g * 1` leaves the same gradient: dropped, not a mutant."""
    row = {
        "id": "X.grad.one",
        "kind": "gradient",
        "title": "t",
        "origin": "decision",
        "level": "values",
        "category": "gradient",
        "op": "one",
        "forward": "x",
        "grads": {"x": "g * 1"},
        "domain": {"x": {"min": 1, "max": 2, "type": "float"}},
    }
    (found,) = file_mutants(
        {"meta": {"stage": "X", "level": "contract", "category": "value"}, "rows": [row]}, "x.toml", CONTEXT
    )
    assert {"same function on the domain": 1} == found.dropped
    assert ["X.grad.one:forward:sign:0", "X.grad.one:grads.x:sign:0", "X.grad.one:grads.x:factor:1"] == [
        m.mutant_id() for m in found.mutants
    ]

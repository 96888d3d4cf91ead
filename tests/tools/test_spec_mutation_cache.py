"""The spec-mutation cache: a verdict stands while its row's or function's inputs are unchanged, exactly
the stale rows and functions run again (fake runs here), and the results read the same either way."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from tools.mutation import cache as mutation_cache
from tools.mutation.cache import Layout
from tools.spec_mutation import cache, incremental, main
from tools.spec_mutation.catalog import RowMutants
from tools.spec_mutation.runner import RunOptions

from tests.common.paths import SPECS

ROW = """
[[rows]]
id = "X.cost.{name}"
kind = "formula"
title = "t"
origin = "decision"
level = "contract"
category = "cost"
expr = "2 * K + {offset}"
symbols = {{ K = {{ min = 1, max = 9 }} }}
compared_with = ["planner"]
examples = [{{ where = {{ K = 3 }}, value = {value} }}]
"""
SPEC = '[meta]\nstage = "X"\ntitle = "t"\nseed = "-"\n' + ROW.format(name="odd", offset=-1, value=5)
SPEC += ROW.format(name="even", offset=0, value=6)
GUARDS = """def positive(x):
    if x < 0:
        raise ValueError(x)
    return x


def small(x):
    if x > 9:
        raise ValueError(x)
    return x
"""
FILES = {
    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = ''\n",
    "src/contracts/__init__.py": "",
    "src/contracts/guards.py": GUARDS,
    "src/contracts/spec_suite/__init__.py": "",
    "src/contracts/spec_suite/test_odd.py": "# X.cost.odd\n",
    "src/contracts/spec_suite/test_even.py": "# X.cost.even\n",
    "tests/test_positive.py": "from contracts.guards import positive\n",
    "tests/test_small.py": "from contracts.guards import small\n",
    "tests/test_other.py": "# names nothing\n",
}


class FakeRuns:
    """Runs nothing: a row is bound to the test files naming its id, a function is covered by those
    naming it; a mutant is killed unless its change holds a survivor text, or its row is `failing`
    (its tests fail unmutated: not run). Records the rows and functions it was asked to run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rows: list[str] = []
        self.functions: list[str] = []
        self.suites: list[tuple[str, ...]] = []
        self.failing: set[str] = set()

    def naming(self, word: str) -> list[str]:
        tests = [path for path in self.root.rglob("test_*.py")]
        found = [path for path in tests if re.search(rf"\b{re.escape(word)}\b", path.read_text())]
        return sorted(path.relative_to(self.root).as_posix() for path in found)

    def run(self, options: RunOptions, entries: Sequence[RowMutants]) -> dict[str, Any]:
        self.rows.extend(entry.row_id for entry in entries)
        rows = []
        for entry in entries:
            status = "not run" if entry.row_id in self.failing else None
            mutants = [
                {"id": m.mutant_id(), "change": m.change, "status": status or self.status(m.change)}
                for m in entry.mutants
            ]
            files = self.naming(entry.row_id)
            rows.append({"row_id": entry.row_id, "tests": len(files), "files": files, "mutants": mutants})
        return {"rows": rows, "seconds": 1.0, "cpu_seconds": 1.0}

    def run_statements(self, options: RunOptions, entries: Sequence[dict[str, Any]]) -> dict[str, Any]:
        self.functions.extend(sorted({entry["function"] for entry in entries}))
        self.suites.append(options.statement_suite)
        covering = {e["function"]: self.naming(e["qualname"]) for e in entries}
        mutants = [
            {
                "id": e["id"],
                "function": e["function"],
                "change": e["change"],
                "tests": len(covering[e["function"]]),
                "status": self.status(e["change"]),
            }
            for e in entries
        ]
        return {"mutants": mutants, "covering": covering, "seconds": 1.0, "cpu_seconds": 1.0}

    @staticmethod
    def status(change: str) -> str:
        return "survived" if "value: 5 -> 4" in change or "x > 9" in change else "killed"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeRuns:
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "src/contracts/specs").mkdir()
    shutil.copy(SPECS / "schema.json", tmp_path / "src/contracts/specs/schema.json")
    (tmp_path / "src/contracts/specs/x.toml").write_text(SPEC)
    fake = FakeRuns(tmp_path)
    monkeypatch.setattr(incremental, "run", fake.run)
    monkeypatch.setattr(incremental, "run_statements", fake.run_statements)
    return fake


def verdicts(project: FakeRuns) -> tuple[dict[tuple[str, str], str], cache.Cache]:
    """One incremental run over the project with the cache file (if any): every verdict by (row or
    function, change), and the cache it leaves (saved)."""
    root = project.root
    layout = Layout(root=root)
    path = root / "cache.json"
    options = RunOptions(root, root / "src/contracts/specs")
    runs = incremental.Incremental(
        options, cache.load(path), cache.Keys(layout), cache.environment_hash(layout)
    )
    spec, statements = runs.spec(), runs.statements()
    cache.save(runs.cache, path)
    found = {(row["row_id"], m["change"]): m["status"] for row in spec["rows"] for m in row["mutants"]}
    found.update({(m["function"], m["change"]): m["status"] for m in statements["mutants"]})
    return found, runs.cache


def rerun(project: FakeRuns) -> tuple[list[str], list[str]]:
    """The rows and functions a further run ran."""
    project.rows.clear()
    project.functions.clear()
    verdicts(project)
    return list(project.rows), list(project.functions)


def test_a_second_run_reuses_every_verdict_and_runs_nothing(project: FakeRuns) -> None:
    """The first run runs every row and function; the second, unchanged, runs none and reads the same
    verdicts (survivors included) from the cache."""
    first, _ = verdicts(project)
    assert (["X.cost.odd", "X.cost.even"], ["contracts.guards.positive", "contracts.guards.small"]) == (
        project.rows,
        project.functions,
    )
    assert "survived" == first[("X.cost.odd", "examples.0.value: 5 -> 4")]
    assert "survived" == first[("contracts.guards.small", "delete `if x > 9:`")]
    assert ([], []) == rerun(project)
    second, _ = verdicts(project)
    assert first == second


def test_editing_a_rows_test_file_runs_that_row_again_and_no_other(project: FakeRuns) -> None:
    """A bound test file's edit stales its row only; an edit of a test file no row or function reads
    stales nothing; a guarded function's covering test stales that function only."""
    verdicts(project)
    (project.root / "src/contracts/spec_suite/test_odd.py").write_text("# X.cost.odd, edited\n")
    assert (["X.cost.odd"], []) == rerun(project)
    (project.root / "tests/test_other.py").write_text("# still names nothing\n")
    assert ([], []) == rerun(project)
    (project.root / "tests/test_small.py").write_text("from contracts.guards import small  # edited\n")
    assert ([], ["contracts.guards.small"]) == rerun(project)


def test_a_source_edit_runs_every_row_and_the_edited_function_against_its_tests(project: FakeRuns) -> None:
    """Rows depend on the whole implementation; a function on its own source: the edited one runs
    again against the files that covered it; a new function runs against the whole suite."""
    verdicts(project)
    guards = project.root / "src/contracts/guards.py"
    guards.write_text(GUARDS.replace("return x\n\n\ndef small", "return x + 0\n\n\ndef small"))
    assert (["X.cost.odd", "X.cost.even"], ["contracts.guards.positive"]) == rerun(project)
    assert ("tests/test_positive.py",) == project.suites[-1]
    guards.write_text(guards.read_text() + "\n\ndef third(x):\n    if x:\n        raise ValueError(x)\n")
    assert ["contracts.guards.third"] == rerun(project)[1]
    assert RunOptions(project.root, project.root).statement_suite == project.suites[-1]


def test_with_mutmuts_coverage_a_source_edit_runs_only_the_rows_whose_tests_call_it(
    project: FakeRuns,
) -> None:
    """mutmut's cache saw test_odd.py call positive and test_small.py call small: an edit of small
    runs no row; an edit of positive runs X.cost.odd (not X.cost.even); a new module constant, outside
    every tracked function, runs every row."""
    entry = mutation_cache.Entry("s", "t", ("src/contracts/spec_suite/test_odd.py",), 1)
    functions = {
        "contracts.guards.positive": entry,
        "contracts.guards.small": mutation_cache.Entry("s", "t", ("tests/test_small.py",), 1),
    }
    (project.root / "tools/mutation").mkdir(parents=True)
    mutation_cache.save(mutation_cache.Cache("e", {}, functions), project.root / "tools/mutation/cache.json")
    verdicts(project)
    guards = project.root / "src/contracts/guards.py"
    guards.write_text(GUARDS.replace("if x > 9:", "if x > 9 + 0:"))
    assert ([], ["contracts.guards.small"]) == rerun(project)
    guards.write_text(guards.read_text().replace("if x < 0:", "if x < 0 + 0:"))
    assert (["X.cost.odd"], ["contracts.guards.positive"]) == rerun(project)
    guards.write_text("LIMIT = 9\n" + guards.read_text())
    assert ["X.cost.odd", "X.cost.even"] == rerun(project)[0]


def test_a_row_whose_tests_fail_unmutated_is_never_cached(project: FakeRuns) -> None:
    """A row whose mutants did not run (its tests fail on the unchanged spec) runs again every time."""
    project.failing.add("X.cost.even")
    _, left = verdicts(project)
    assert ["X.cost.odd"] == sorted(left.rows)
    assert ["X.cost.even"] == rerun(project)[0]


def test_another_environment_runs_everything(project: FakeRuns) -> None:
    """A change of the pytest configuration stales every entry."""
    verdicts(project)
    (project.root / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-x'\n")
    assert (["X.cost.odd", "X.cost.even"], ["contracts.guards.positive", "contracts.guards.small"]) == rerun(
        project
    )


def test_the_command_writes_the_cache_only_when_asked_and_fresh_ignores_it(
    project: FakeRuns, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--write-cache` records the run; without it no cache file is written; `--fresh` runs every
    mutant although the cache holds them; a cached survivor fails the gate as a fresh one does."""
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("CONTRACTS_SPECS", str(project.root / "src/contracts/specs"))
    arguments = ["--cache", "c.json", "--out", "r.json", "--equivalents", "none.toml"]
    assert 1 == main.main(arguments)
    assert not (project.root / "c.json").exists()
    assert 1 == main.main([*arguments, "--write-cache"])
    capsys.readouterr()
    assert ([], [], 1) == rerun_command(project, arguments)
    captured = capsys.readouterr()
    written = json.loads((project.root / "r.json").read_text())
    assert [True, True, True, True] == [
        entry.get("cached") for entry in [*written["spec"]["rows"], *written["statements"]["mutants"]]
    ]
    assert "unlisted survived mutant: X.cost.odd: examples.0.value: 5 -> 4" in captured.out
    assert "unlisted survived mutant: contracts.guards.small: delete `if x > 9:`" in captured.out
    every = (["X.cost.odd", "X.cost.even"], ["contracts.guards.positive", "contracts.guards.small"], 1)
    assert every == rerun_command(project, [*arguments, "--fresh"])


def rerun_command(project: FakeRuns, arguments: Sequence[str]) -> tuple[list[str], list[str], int]:
    """The rows and functions `python -m tools.spec_mutation ARGUMENTS` ran, and its exit code."""
    project.rows.clear()
    project.functions.clear()
    code = main.main(list(arguments))
    return list(project.rows), list(project.functions), code


def test_shards_merged_give_the_cache_of_one_run(
    project: FakeRuns, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Shards 1/2 and 2/2 run disjoint rows and functions that together are all of them; their caches
    merged equal the cache one whole run writes, and the merging run runs nothing more."""
    monkeypatch.chdir(project.root)
    monkeypatch.setenv("CONTRACTS_SPECS", str(project.root / "src/contracts/specs"))
    base = ["--out", "r.json", "--equivalents", "none.toml", "--fresh", "--write-cache"]
    main.main([*base, "--cache", "whole.json"])
    ran = []
    for index in (1, 2):
        ran.append(rerun_command(project, [*base, "--shard", f"{index}/2", "--cache", f"part{index}.json"]))
    (first, first_functions, _), (second, second_functions, _) = ran
    assert set() == set(first) & set(second)
    assert set() == set(first_functions) & set(second_functions)
    assert ["X.cost.even", "X.cost.odd"] == sorted(first + second)
    merge = [
        "--out",
        "r.json",
        "--equivalents",
        "none.toml",
        "--merge",
        "part1.json",
        "--merge",
        "part2.json",
    ]
    assert ([], [], 1) == rerun_command(project, [*merge, "--cache", "merged.json"])
    whole = (project.root / "whole.json").read_text()
    assert whole == (project.root / "merged.json").read_text()

"""Mutation shards: a deterministic split by source module, and a merge that equals one whole run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tools.mutation.gate
from tools.mutation import shards as mutation_shards
from tools.mutation.shards import (
    SOURCE,
    STATUS_BY_EXIT_CODE,
    ShardError,
    assign,
    main,
    merge,
    parse_shard,
    parser,
    patterns,
    results_text,
    run_command,
    source_modules,
    stats,
)

import contracts
from tests.common.argparse_spec import described, subcommands


@pytest.mark.parametrize(
    ("text", "expected"), [("1/1", (1, 1)), ("2/4", (2, 4)), ("4/4", (4, 4)), ("10/12", (10, 12))]
)
def test_parse_shard(text: str, expected: tuple[int, int]) -> None:
    """i/N is read 1-based."""
    assert expected == parse_shard(text)


@pytest.mark.parametrize(
    "text", ["0/4", "5/4", "1", "a/2", "1/b", "-1/2", "1/0", "", "/", "1//2", "1/2/2", " 1/2", "1/2\n"]
)
def test_parse_shard_refuses(text: str) -> None:
    """Anything but 1 <= i <= N is a one-line error naming the value."""
    with pytest.raises(
        ShardError, match=f"^--shard must be i/N with 1 <= i <= N, got {re.escape(repr(text))}$"
    ):
        parse_shard(text)


def make_package(root: Path, files: dict[str, int]) -> Path:
    """src/pkg with the given files (relative path -> number of lines)."""
    package = root / "src" / "pkg"
    for name, lines in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" * lines, encoding="utf-8")
    return package


def test_source_modules_names_packages_and_modules(tmp_path: Path) -> None:
    """A package's __init__ is the package's name; submodules are dotted."""
    package = make_package(tmp_path, {"__init__.py": 1, "a.py": 2, "sub/__init__.py": 1, "sub/b.py": 3})
    expected = {
        "pkg": package / "__init__.py",
        "pkg.a": package / "a.py",
        "pkg.sub": package / "sub" / "__init__.py",
        "pkg.sub.b": package / "sub" / "b.py",
    }
    assert expected == source_modules(package)


def test_assign_deals_heaviest_first_to_the_lightest_shard() -> None:
    """Largest-first to the lightest shard, lowest index on ties; each shard listed in name order."""
    weights = {"a": 10, "b": 9, "c": 5, "d": 5, "e": 1, "f": 1}
    assert [["a", "f"], ["b", "e"], ["c", "d"]] == assign(weights, 3)
    assert [["a", "d", "f"], ["b", "c", "e"]] == assign(weights, 2)
    assert [sorted(weights)] == assign(weights, 1)


def test_assign_puts_every_module_in_exactly_one_shard_for_the_real_source() -> None:
    """For this project's own source and any N up to 8, the shards partition the modules, non-empty."""
    source = Path(contracts.__file__).parent
    modules = source_modules(source)
    for count in range(1, 9):
        shards = mutation_shards.shards_of(source, count)
        assert sorted(modules) == sorted(name for shard in shards for name in shard)
        assert all(shards)
        assert shards == mutation_shards.shards_of(source, count)


def test_patterns_select_only_that_module() -> None:
    """A module's functions and methods, never a submodule's (a package name is a prefix of those)."""
    import fnmatch

    chosen = patterns("pkg.sub")
    names = {
        "pkg.sub.x_f__mutmut_1": True,
        "pkg.sub.xǁCǁm__mutmut_2": True,
        "pkg.sub.b.x_f__mutmut_1": False,
        "pkg.subway.x_f__mutmut_1": False,
    }
    assert names == {name: any(fnmatch.fnmatchcase(name, p) for p in chosen) for name in names}


def test_run_command_lists_the_shards_patterns() -> None:
    """`mutmut run --max-children N` followed by both patterns of each module."""
    expected = [
        sys.executable,
        "-m",
        "mutmut",
        "run",
        "--max-children",
        "3",
        "a.x_*",
        "a.xǁ*",
        "b.x_*",
        "b.xǁ*",
    ]
    assert expected == run_command(["a", "b"], 3)


def write_meta(mutants: Path, file: Path, codes: dict[str, int | None]) -> None:
    meta = mutants / f"{file.as_posix()}.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")


def test_merge_takes_each_module_from_its_own_shard(tmp_path: Path) -> None:
    """The shard that owns a module supplies its verdicts; the other shards' unchecked copies are ignored."""
    modules = {"a": Path("src/a.py"), "b": Path("src/b.py")}
    one, two = tmp_path / "one", tmp_path / "two"
    write_meta(one, modules["a"], {"a.x_f__mutmut_1": 1, "a.x_f__mutmut_2": 0})
    write_meta(one, modules["b"], {"b.x_g__mutmut_1": None})
    write_meta(two, modules["a"], {"a.x_f__mutmut_1": None, "a.x_f__mutmut_2": None})
    write_meta(two, modules["b"], {"b.x_g__mutmut_1": 36})
    expected = {"a.x_f__mutmut_1": 1, "a.x_f__mutmut_2": 0, "b.x_g__mutmut_1": 36}
    assert expected == merge([one, two], [["a"], ["b"]], modules)


def test_merge_refuses_missing_results_unchecked_mutants_and_a_wrong_count(tmp_path: Path) -> None:
    """A shard without results, a mutant its shard never ran, or too few directories: one-line errors."""
    modules = {"a": Path("src/a.py")}
    with pytest.raises(ShardError, match=r"^merge needs one mutants/ directory per shard: 2, got 1$"):
        merge([tmp_path], [["a"], []], modules)
    with pytest.raises(ShardError, match=r"a\.py\.meta: no mutmut results for a \("):
        merge([tmp_path], [["a"]], modules)
    write_meta(tmp_path, modules["a"], {"a.x_f__mutmut_1": None, "a.x_f__mutmut_2": 1})
    with pytest.raises(
        ShardError, match=r"^1 mutants were not checked by their shard, e\.g\. a\.x_f__mutmut_1$"
    ):
        merge([tmp_path], [["a"]], modules)


def test_stats_and_results_read_like_mutmuts_own() -> None:
    """Counts per status as export-cicd-stats writes them; the listing names every mutant not killed."""
    verdicts: dict[str, int | None] = {
        "m1": 1,
        "m2": 3,
        "m3": 0,
        "m4": 5,
        "m5": 36,
        "m6": 34,
        "m7": 35,
        "m8": -11,
        "m9": 99,
        "m10": 37,
    }
    expected = {
        "killed": 2,
        "survived": 1,
        "total": 10,
        "no_tests": 1,
        "skipped": 1,
        "suspicious": 2,
        "timeout": 1,
        "check_was_interrupted_by_user": 0,
        "segfault": 1,
    }
    assert expected == stats(verdicts)
    listing = (
        "    m10: caught by type check\n    m3: survived\n    m4: no tests\n    m5: timeout\n"
        "    m6: skipped\n    m7: suspicious\n    m8: segfault\n    m9: suspicious\n"
    )
    assert listing == results_text(verdicts)
    assert {"m3": "survived", "m4": "no tests", "m5": "timeout", "m6": "skipped"}.items() <= (
        tools.mutation.gate.parse_results(listing).items()
    )


def test_the_exit_code_table_is_mutmuts() -> None:
    """The copied table equals the pinned mutmut's own (where mutmut is installed)."""
    mutmut_stats = pytest.importorskip("mutmut.stats")
    assert dict(mutmut_stats.status_by_exit_code) == STATUS_BY_EXIT_CODE


def test_merge_main_writes_stats_and_results_then_gates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """merge writes both files into --out and passes them, with the remaining options, to the gate."""
    package = make_package(tmp_path, {"__init__.py": 1, "a.py": 5})
    gate: list[list[str]] = []

    def fake_gate(argv: list[str]) -> int:
        gate.append(list(argv))
        return 4

    monkeypatch.setattr(tools.mutation.gate, "main", fake_gate)
    shard_one, shard_two = tmp_path / "s1", tmp_path / "s2"
    write_meta(shard_one, package / "a.py", {"pkg.a.x_f__mutmut_1": 1})
    write_meta(shard_two, package / "__init__.py", {"pkg.x_g__mutmut_1": 0})
    out = tmp_path / "merged" / "deeper"  # parents are made; a second merge into it is fine
    argv = ["--source", str(package), "merge", str(shard_one), str(shard_two), "--out", str(out)]
    codes = [main([*argv, "--threshold", "0.5"]), main([*argv, "--threshold", "0.5"])]
    assert [4, 4] == codes
    stats_path, results_path = out / "mutmut-cicd-stats.json", out / "mutmut-results.txt"
    gate_argv = ["--stats", str(stats_path), "--results", str(results_path), "--threshold", "0.5"]
    assert [gate_argv, gate_argv] == gate
    expected_stats = (
        '{\n    "killed": 1,\n    "survived": 1,\n    "total": 2,\n    "no_tests": 0,\n'
        '    "skipped": 0,\n    "suspicious": 0,\n    "timeout": 0,\n'
        '    "check_was_interrupted_by_user": 0,\n    "segfault": 0\n}\n'
    )
    assert expected_stats == stats_path.read_text(encoding="utf-8")
    assert "    pkg.x_g__mutmut_1: survived\n" == results_path.read_text(encoding="utf-8")
    line = f"merged 2 shards: 2 mutants -> {stats_path}\n"
    assert line * 2 == capsys.readouterr().out


def test_run_main_runs_mutmut_on_its_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """run --shard i/N prints its modules and runs mutmut with their patterns; mutmut's code is returned."""
    package = make_package(tmp_path, {"__init__.py": 1, "a.py": 5, "b.py": 3})
    ran: list[list[str]] = []
    threads: list[tuple[str, ...]] = []

    def fake_run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        threads.append(tuple(env[name] for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "KEPT")))
        return subprocess.CompletedProcess(command, 6)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    monkeypatch.setenv("KEPT", "yes")
    assert 6 == main(["--source", str(package), "run", "--shard", "2/2", "--max-children", "1"])
    assert [run_command(["pkg", "pkg.b"], 1)] == ran
    assert [("1", "1", "yes")] == threads  # forked mutants cannot wait on a parent's thread pool
    assert "mutation shard 2/2: 2 modules: pkg pkg.b\n" == capsys.readouterr().out


def test_errors_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad --shard or a merge without results ends with one line on stderr and exit code 2."""
    package = make_package(tmp_path, {"a.py": 1})
    assert 2 == main(["--source", str(package), "run", "--shard", "3/2"])
    assert "mutation shards: --shard must be i/N with 1 <= i <= N, got '3/2'\n" == capsys.readouterr().err
    assert 2 == main(["--source", str(package), "merge", str(tmp_path / "none")])
    assert capsys.readouterr().err.startswith("mutation shards: ")
    with pytest.raises(SystemExit):
        main(["run", "--shard", "1/1", "--bogus"])


def test_options_and_their_help() -> None:
    """The whole option table: --source, then run (--shard required, --max-children an int) or merge
    (one or more shard directories, --out); a sub-command is required."""
    made = parser()
    assert ("python -m tools.mutation.shards", mutation_shards.__doc__) == (
        made.prog,
        made.description,
    )
    store = "_StoreAction"
    assert [(["--source"], "source", store, SOURCE, "Path", None, False, None, None, None)] == described(made)
    dest, required, commands = subcommands(made)
    assert ("command", True, ["run", "merge"]) == (dest, required, list(commands))
    run_help, run = commands["run"]
    merge_help, merged = commands["merge"]
    assert ("run one shard's mutants here", "merge the shards' mutants/ directories and gate") == (
        run_help,
        merge_help,
    )
    assert [
        (["--shard"], "shard", store, None, None, None, True, None, None, "i/N, 1-based"),
        (["--max-children"], "max_children", store, 2, "int", None, False, None, None, None),
    ] == described(run)
    assert [
        (
            [],
            "mutants",
            store,
            None,
            "Path",
            "+",
            True,
            None,
            None,
            "each shard's mutants/ directory, in shard order",
        ),
        (["--out"], "out", store, Path("mutants-merged"), "Path", None, False, None, None, None),
    ] == described(merged)


def test_run_refuses_arguments_it_does_not_know(capsys: pytest.CaptureFixture[str]) -> None:
    """run passes nothing on to mutmut: unknown arguments are a usage error naming all of them."""
    with pytest.raises(SystemExit) as exited:
        main(["run", "--shard", "1/1", "--bogus", "extra"])
    assert 2 == exited.value.code
    assert capsys.readouterr().err.endswith(": error: unrecognized arguments: --bogus extra\n")


TINY_SOURCE = {
    "__init__.py": "",
    "arith.py": "def add(a, b):\n    return a + b\n\n\ndef half(x):\n    return x / 2\n",
    "logic.py": (
        "def pick(flag, a, b):\n    if flag:\n        return a\n    return b\n\n\n"
        "class Box:\n    def size(self, items):\n        return len(items) + 1\n"
    ),
    "unused.py": "def never(x):\n    return x - 1\n",
}
TINY_TESTS = (
    "from tiny.arith import add, half\nfrom tiny.logic import Box, pick\n\n\n"
    "def test_add():\n    assert 3 == add(1, 2)\n\n\n"
    "def test_pick():\n    assert 1 == pick(True, 1, 2)\n\n\n"
    "def test_box():\n    assert 3 == Box().size([1, 2])\n\n\n"
    "def test_half_weakly():\n    assert half(4) > 0\n"
)


def tiny_project(root: Path) -> Path:
    for name, text in TINY_SOURCE.items():
        path = root / "src" / "tiny" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "tests").mkdir()
    (root / "tests" / "test_tiny.py").write_text(TINY_TESTS, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.mutmut]\nsource_paths = ["src/tiny/"]\npytest_add_cli_args_test_selection = ["tests/"]\n'
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n',
        encoding="utf-8",
    )
    return root


def mutmut(root: Path, *args: str) -> None:
    environment = {**os.environ, "PYTHONPATH": str(root / "src")}
    environment.pop("MUTANT_UNDER_TEST", None)
    subprocess.run(
        [sys.executable, "-m", "mutmut", *args], cwd=root, env=environment, check=True, capture_output=True
    )


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="runs mutmut itself; pointless per mutant")
def test_two_real_shards_merge_to_the_single_machine_result(tmp_path: Path) -> None:
    """mutmut on a tiny project: the verdicts merged from 2 shards equal those of one whole run."""
    pytest.importorskip("mutmut")
    whole = tiny_project(tmp_path / "whole")
    mutmut(whole, "run", "--max-children", "1")
    source = whole / "src" / "tiny"
    modules = source_modules(source)
    single: dict[str, Any] = {}
    for module, file in modules.items():
        single.update(mutation_shards.read_verdicts(whole / "mutants", module, file.relative_to(whole)))
    shards = mutation_shards.shards_of(source, 2)
    shard_dirs = []
    for index, shard in enumerate(shards):
        root = tiny_project(tmp_path / f"shard{index}")
        mutmut(root, "run", "--max-children", "1", *[p for module in shard for p in patterns(module)])
        shard_dirs.append(root / "mutants")
    relative = {module: file.relative_to(whole) for module, file in modules.items()}
    merged = merge(shard_dirs, shards, relative)
    assert 0 < len(single)
    assert {1, 0, 33} <= set(single.values())  # killed, survived and untested mutants all occur
    assert single == merged
    shutil.rmtree(tmp_path)

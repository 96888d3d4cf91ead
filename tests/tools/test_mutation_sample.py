"""The CI mutation sample: which functions it draws, which verdicts and listed mutants it judges, and
the session that runs and gates it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import tools.mutation.gate
from tools.mutation import sample as mutation_sample
from tools.mutation import session as mutation_session
from tools.mutation.gate import load_equivalents
from tools.mutation.sample import (
    all_functions,
    drawn,
    function_names,
    function_of,
    listed_in,
    listing,
    patterns,
    sample,
    sample_verdicts,
    spread,
)
from tools.mutation.shards import ShardError

MODULE = """import functools


def plain(x):
    def nested():
        return x
    return nested


async def waits():
    return 1


@functools.cache
def cached():
    return 2


class Box:
    size = 3

    def method(self):
        return self.size

    @staticmethod
    def made():
        return Box()

    @property
    def area(self):
        return self.size ** 2

    class Inner:
        def hidden(self):
            return 0

    def after(self):
        return 4
"""


def package(root: Path, modules: dict[str, str]) -> Path:
    """src/pkg with the given modules (relative path -> source)."""
    source = root / "src" / "pkg"
    for name, text in modules.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text, encoding="utf-8")
    return source


def test_function_names_are_mutmuts_names_of_the_functions_it_mutates(tmp_path: Path) -> None:
    """Top-level functions and methods (static too) by mutmut's naming; decorated ones (but static
    and class methods), nested functions and nested classes' methods are not mutated on their own."""
    path = package(tmp_path, {"m.py": MODULE}) / "m.py"
    expected = [
        "pkg.m.x_plain",
        "pkg.m.x_waits",
        "pkg.m.xǁBoxǁmethod",
        "pkg.m.xǁBoxǁmade",
        "pkg.m.xǁBoxǁafter",
    ]
    assert expected == function_names("pkg.m", path)


def test_all_functions_of_a_package_are_sorted_with_their_modules(tmp_path: Path) -> None:
    """Every module of the package, the package's own __init__ under the package's name."""
    source = package(tmp_path, {"__init__.py": "def top():\n    pass\n", "sub/a.py": "def f():\n    pass\n"})
    (source / "sub" / "__init__.py").write_text("", encoding="utf-8")
    assert ["pkg.sub.a.x_f", "pkg.x_top"] == all_functions(source)


NAMES = [f"pkg.m{i // 20}.x_f{i}" for i in range(2000)]


def test_a_sample_is_deterministic_nested_and_about_its_percentage() -> None:
    """The same seed draws the same functions; a smaller percentage draws a subset of a larger one;
    another seed draws other functions; 0 % none and 100 % all; 10 % of 2,000 is about 200."""
    ten = sample(NAMES, "s", 10)
    assert ten == sample(NAMES, "s", 10)
    assert set(sample(NAMES, "s", 5)) < set(ten)
    assert ten != sample(NAMES, "t", 10)
    assert ([], NAMES) == (sample(NAMES, "s", 0), sample(NAMES, "s", 100))
    assert 160 <= len(ten) <= 240
    assert all(drawn(name, "s", 10) for name in ten)


def test_patterns_select_a_functions_mutants_and_mutants_name_their_function() -> None:
    """`f__mutmut_*` per sampled function; a mutant's function is its name before `__mutmut_`."""
    assert ["pkg.m.x_f__mutmut_*", "pkg.m.xǁAǁg__mutmut_*"] == patterns(["pkg.m.x_f", "pkg.m.xǁAǁg"])
    assert ("pkg.m.x_f", "pkg.m.xǁAǁg") == (
        function_of("pkg.m.x_f__mutmut_12"),
        function_of("pkg.m.xǁAǁg__mutmut_1"),
    )


def write_meta(mutants: Path, source_file: Path, codes: dict[str, int | None]) -> None:
    meta = mutants / f"{source_file.as_posix()}.meta"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"exit_code_by_key": codes}), encoding="utf-8")


def test_sample_verdicts_are_the_sampled_functions_mutants_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mutants of functions outside the sample are not judged; a module without mutants has no file."""
    monkeypatch.chdir(tmp_path)
    source = Path("src/pkg")
    package(tmp_path, {"a.py": "def f():\n    return 1\n", "b.py": "X = 1\n"})
    mutants = Path("mutants")
    write_meta(
        mutants,
        source / "a.py",
        {"pkg.a.x_f__mutmut_1": 1, "pkg.a.x_f__mutmut_2": 0, "pkg.a.x_g__mutmut_1": None},
    )
    expected = {"pkg.a.x_f__mutmut_1": 1, "pkg.a.x_f__mutmut_2": 0}
    assert expected == sample_verdicts(mutants, source, ["pkg.a.x_f", "pkg.b.x_h"])
    (mutants / "src/pkg/a.py.meta").write_text("{}", encoding="utf-8")  # mutmut stopped mid-write
    with pytest.raises(
        ShardError, match=r"a\.py\.meta: no mutmut results for pkg\.a \('exit_code_by_key'\)$"
    ):
        sample_verdicts(mutants, source, ["pkg.a.x_f"])


def test_listed_mutants_outside_the_sample_are_left_out_and_the_listing_reads_back(tmp_path: Path) -> None:
    """Only the sampled functions' listed mutants are judged; the written listing loads as it was."""
    path = tmp_path / "eq.toml"
    path.write_text(
        '[[mutant]]\nname = "p.x_f__mutmut_1"\nreason = "same \\"value\\": é"\n\n'
        '[[mutant]]\nname = "p.x_g__mutmut_2"\nreason = "other"\n',
        encoding="utf-8",
    )
    kept = listed_in(path, ["p.x_f"])
    assert {"p.x_f__mutmut_1": 'same "value": é'} == kept
    written = tmp_path / "sample.toml"
    written.write_text(listing({**kept, "p.x_h__mutmut_3": "line\nbreak"}), encoding="utf-8")
    assert {**kept, "p.x_h__mutmut_3": "line\nbreak"} == load_equivalents(written)
    assert {} == listed_in(tmp_path / "none.toml", ["p.x_f"])


def test_spread_is_the_clustered_standard_error_of_the_score() -> None:
    """Functions are the sampled clusters: killed (2/2, 1/2, 2/2) give ratio 5/6 and a standard error
    of 1/6 by hand; one function has no spread."""
    verdicts = {"p.x_a__mutmut_1": 1, "p.x_a__mutmut_2": 36, "p.x_b__mutmut_1": 0, "p.x_b__mutmut_2": 1}
    verdicts |= {"p.x_c__mutmut_1": 1, "p.x_c__mutmut_2": 1}
    assert "±16.67% (one standard error, 3 functions)" == spread(verdicts)
    # unequal clusters (3/3 with a timeout, 0/1, 1/2): ratio 2/3, residuals 14/9, sqrt(14/54)/2
    uneven = {"p.x_a__mutmut_1": 1, "p.x_a__mutmut_2": 36, "p.x_a__mutmut_3": 3, "p.x_b__mutmut_1": 0}
    uneven |= {"p.x_c__mutmut_1": 1, "p.x_c__mutmut_2": 0}
    assert "±25.46% (one standard error, 3 functions)" == spread(uneven)
    # two functions are enough: 2/2 and 1/2 give ratio 3/4, residuals 1/2, sqrt(1/4)/2
    two = {"p.x_a__mutmut_1": 1, "p.x_a__mutmut_2": 1, "p.x_b__mutmut_1": 0, "p.x_b__mutmut_2": 1}
    assert "±25.00% (one standard error, 2 functions)" == spread(two)
    assert "n/a (fewer than two sampled functions with mutants)" == spread({"p.x_a__mutmut_1": 1})
    assert "n/a (fewer than two sampled functions with mutants)" == spread({})


class Gate:
    """A stand-in for tools.mutation.gate.main that keeps what it was given to read."""

    def __init__(self) -> None:
        self.argv: list[str] = []
        self.files: dict[str, str] = {}

    def __call__(self, argv: list[str]) -> int:
        self.argv = list(argv)
        for flag, path in zip(argv[0:8:2], argv[1:8:2], strict=True):
            self.files[flag] = Path(path).read_text(encoding="utf-8")
        return 3


def sample_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Any], Gate]:
    """A package of two functions, their mutants' verdicts, listed mutants inside and outside the
    sample, a recording mutmut and gate; every path relative to tmp_path."""
    monkeypatch.chdir(tmp_path)
    source = Path("src/pkg")
    package(tmp_path, {"a.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
    write_meta(
        Path("mutants"),
        source / "a.py",
        {"pkg.a.x_f__mutmut_1": 1, "pkg.a.x_f__mutmut_2": 0, "pkg.a.x_g__mutmut_1": 0},
    )
    Path("mutation").mkdir()
    Path("mutation/eq.toml").write_text(
        '[[mutant]]\nname = "pkg.a.x_f__mutmut_2"\nreason = "same"\n\n'
        '[[mutant]]\nname = "pkg.a.x_g__mutmut_1"\nreason = "other"\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(tools.mutation.gate, "SOURCE", source)
    monkeypatch.setattr(tools.mutation.gate, "EQUIVALENTS", Path("mutation/eq.toml"))
    monkeypatch.setattr(tools.mutation.gate, "PENDING", Path("mutation/none.toml"))
    runs: list[Any] = []

    def fake_sample(functions: list[str], seed: str, percent: float) -> list[str]:
        runs.append(("sample", functions, seed, percent))
        return [f for f in functions if f.endswith("x_f")]

    monkeypatch.setattr(mutation_sample, "sample", fake_sample)

    def fake_mutmut(*args: Any) -> int:
        runs.append(args)
        return 0

    monkeypatch.setattr(mutation_session, "run_mutmut", fake_mutmut)
    gate = Gate()
    monkeypatch.setattr(tools.mutation.gate, "main", gate)
    return runs, gate


def test_a_sample_session_runs_the_sampled_functions_and_gates_their_mutants_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """mutmut runs the sample's patterns; the gate gets the sample's stats, its results and only its
    listed mutants, then any further gate options; the gate's code is returned."""
    runs, gate = sample_project(tmp_path, monkeypatch)
    assert 3 == mutation_session.main(
        ["--sample", "50", "--sample-seed", "s", "--max-children", "1", "--threshold", "0.5"]
    )
    assert [
        ("sample", ["pkg.a.x_f", "pkg.a.x_g"], "s", 50.0),
        (1, 30.0, sys.stdout, ["pkg.a.x_f__mutmut_*"]),
    ] == runs
    files = {
        name: f"mutants/sample-{name}"
        for name in ("stats.json", "results.txt", "equivalents.toml", "pending.toml")
    }
    expected_argv = ["--stats", files["stats.json"], "--results", files["results.txt"]]
    expected_argv += [
        "--equivalents",
        files["equivalents.toml"],
        "--pending",
        files["pending.toml"],
        "--threshold",
        "0.5",
    ]
    assert expected_argv == gate.argv
    assert {"killed": 1, "survived": 1, "total": 2} == {
        key: json.loads(gate.files["--stats"])[key] for key in ("killed", "survived", "total")
    }
    assert "    pkg.a.x_f__mutmut_2: survived\n" == gate.files["--results"]
    assert {"pkg.a.x_f__mutmut_2": "same"} == load_equivalents(Path(files["equivalents.toml"]))
    assert "" == gate.files["--pending"]
    assert [
        "mutation sample: 1 of 2 functions (50 %, seed 's')",
        "mutation sample: 2 mutants; score spread n/a (fewer than two sampled functions with mutants)",
    ] == capsys.readouterr().out.splitlines()


def test_a_sample_session_stops_on_an_empty_sample_or_a_failed_mutmut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No function drawn: exit 2 before mutmut runs (mutmut with no name would run every mutant);
    mutmut failing: its code, and the gate never runs."""
    runs, gate = sample_project(tmp_path, monkeypatch)
    monkeypatch.setattr(mutation_sample, "sample", lambda functions, seed, percent: [])
    assert 2 == mutation_session.main(["--sample", "1"])
    assert ([], "mutation: the sample holds no function; raise --sample\n") == (runs, capsys.readouterr().err)
    monkeypatch.setattr(mutation_sample, "sample", lambda functions, seed, percent: functions)
    monkeypatch.setattr(mutation_session, "run_mutmut", lambda *args: 6)
    assert 6 == mutation_session.main(["--sample", "99.5"])
    assert ("mutation: mutmut run exited 6; no score\n", []) == (capsys.readouterr().err, gate.argv)

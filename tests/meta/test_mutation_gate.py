"""The mutation gate: score, unexplained and stale survivors, blind spots, exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contracts.mutation import (
    blind_spots,
    load_equivalents,
    main,
    parse_results,
    problems,
    score,
)

STATS = {"killed": 90, "timeout": 5, "survived": 3, "no_tests": 2, "skipped": 0, "total": 100}


@pytest.mark.parametrize(
    ("stats", "expected"),
    [
        pytest.param(STATS, 0.95, id="killed-plus-timeout"),
        pytest.param({**STATS, "skipped": 5, "total": 105}, 0.95, id="skipped-excluded"),
        pytest.param({**STATS, "killed": 0, "timeout": 0}, 0.0, id="nothing-killed"),
        pytest.param({**STATS, "total": 0, "killed": 0, "timeout": 0}, 1.0, id="nothing-mutated"),
        pytest.param({**STATS, "total": 5, "skipped": 5, "killed": 0, "timeout": 0}, 1.0, id="all-skipped"),
    ],
)
def test_score(stats: dict[str, int], expected: float) -> None:
    """score = (killed + timeout) / (total - skipped), as mutmut's badge computes it."""
    assert expected == pytest.approx(score(stats))


def test_results_are_parsed_by_name_and_status() -> None:
    """`mutmut results` lines become name -> status; other lines are ignored."""
    text = """
    contracts.value.x_a__mutmut_1: survived
    contracts.shapes.xǁVectorǁadd__mutmut_2: no tests
    something else: survived
    Running...
    """
    assert {
        "contracts.value.x_a__mutmut_1": "survived",
        "contracts.shapes.xǁVectorǁadd__mutmut_2": "no tests",
    } == parse_results(text)


def test_equivalents_need_a_reason(tmp_path: Path) -> None:
    """A listed mutant carries a reviewed reason; one without is refused."""
    good = tmp_path / "good.toml"
    good.write_text('[[mutant]]\nname = "m1"\nreason = "equivalent: strict=False is the default"\n')
    assert {"m1": "equivalent: strict=False is the default"} == load_equivalents(good)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[mutant]]\nname = "m2"\nreason = "  "\n')
    with pytest.raises(ValueError, match=r"bad\.toml: mutant 'm2' is listed without a reason"):
        load_equivalents(bad)
    assert {} == load_equivalents(tmp_path / "missing.toml")


CASES = [
    pytest.param(STATS, {}, {}, [], [], id="passes"),
    pytest.param(
        {**STATS, "killed": 89},
        {},
        {},
        [],
        ["score 94.00% is below the threshold 95%"],
        id="below-threshold",
    ),
    pytest.param(
        STATS,
        {"m1": "survived", "m2": "killed", "m3": "no tests"},
        {"m1": "equivalent"},
        [],
        ["unexplained no tests mutant: m3 (kill it, or list it in mutation/equivalents.toml with a reason)"],
        id="unexplained-survivor",
    ),
    pytest.param(
        STATS,
        {"m1": "killed"},
        {"m1": "equivalent"},
        [],
        [
            "listed mutant no longer survives (or no longer exists): m1; "
            "remove it from mutation/equivalents.toml"
        ],
        id="stale-listing",
    ),
    pytest.param(
        STATS,
        {},
        {},
        [("a.py:3 shape", False), ("a.py:9 kind", True)],
        [
            "blind spot with logic (mutmut skips decorated functions): a.py:9 kind; "
            "move the logic to a plain method"
        ],
        id="blind-spot-with-logic",
    ),
]


@pytest.mark.parametrize(("stats", "results", "equivalents", "spots", "expected"), CASES)
def test_problems(
    stats: dict[str, int],
    results: dict[str, str],
    equivalents: dict[str, str],
    spots: list[tuple[str, bool]],
    expected: list[str],
) -> None:
    """The gate names every reason it fails, and nothing when the run is clean."""
    assert expected == problems(stats, results, equivalents, spots, 0.95)


def test_blind_spots_flag_decorated_functions_with_logic(tmp_path: Path) -> None:
    """Decorated functions are listed; those doing more than delegating are flagged."""
    source = tmp_path / "m.py"
    source.write_text(
        "import functools\n"
        "class A:\n"
        "    @property\n"
        "    def shape(self):\n"
        '        """Doc."""\n'
        "        return self.shape_tuple()\n"
        "    @property\n"
        "    def size(self):\n"
        "        return len(self.items) * 2\n"
        "    @staticmethod\n"
        "    def plain(x):\n"
        "        return x + 1\n"
        "    @functools.cache\n"
        "    def name(self):\n"
        "        return self._name\n"
        "    @property\n"
        "    def empty(self):\n"
        "        pass\n"
    )
    assert [
        (f"{source}:4 shape", False),
        (f"{source}:8 size", True),
        (f"{source}:14 name", False),
        (f"{source}:17 empty", True),
    ] == blind_spots([source])


def test_main_exit_code_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """main prints the score and counts, and exits 1 on any problem, 0 otherwise."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(STATS))
    results = tmp_path / "results.txt"
    results.write_text("contracts.a.x_f__mutmut_1: survived\n")
    source = tmp_path / "src"
    source.mkdir()
    arguments = ["--stats", str(stats), "--results", str(results), "--source", str(source)]
    equivalents = tmp_path / "eq.toml"
    assert 1 == main([*arguments, "--equivalents", str(equivalents)])
    out = capsys.readouterr().out
    assert "mutation score 95.00% (threshold 95%, goal 98%): killed 90, timeout 5, survived 3" in out
    assert "FAIL: unexplained survived mutant: contracts.a.x_f__mutmut_1" in out
    assert out.rstrip().endswith("mutation gate: failed")
    equivalents.write_text('[[mutant]]\nname = "contracts.a.x_f__mutmut_1"\nreason = "equivalent"\n')
    assert 0 == main([*arguments, "--equivalents", str(equivalents)])
    assert capsys.readouterr().out.rstrip().endswith("mutation gate: passed")


def test_results_come_from_mutmut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --results, the gate reads `python -m mutmut results` from the same interpreter."""
    import subprocess
    import sys

    from contracts import mutation

    calls: list[list[str]] = []

    def fake_run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        assert {"capture_output": True, "text": True, "check": True} == options
        return subprocess.CompletedProcess(command, 0, stdout="contracts.a.x_f__mutmut_1: survived\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert "contracts.a.x_f__mutmut_1: survived\n" == mutation.mutmut_results()
    assert [[sys.executable, "-m", "mutmut", "results"]] == calls

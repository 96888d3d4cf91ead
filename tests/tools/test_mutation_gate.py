"""The mutation gate: score, unexplained and stale survivors, blind spots, exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools.mutation.gate import (
    blind_spots,
    decorator_name,
    load_equivalents,
    main,
    parse_results,
    problems,
    report,
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
        pytest.param({**STATS, "total": 1, "killed": 0, "timeout": 0}, 0.0, id="one-mutant-survives"),
    ],
)
def test_score(stats: dict[str, int], expected: float) -> None:
    """score = (killed + timeout) / (total - skipped), as mutmut's badge computes it."""
    assert expected == pytest.approx(score(stats))


def test_results_are_parsed_by_name_and_status() -> None:
    """`mutmut results` lines become name -> status; other lines are ignored."""
    text = """
    contracts.core.value.x_a__mutmut_1: survived
    contracts.core.shapes.xǁVectorǁadd__mutmut_2: no tests
    contracts.core.shapes.x_b__mutmut_3: timeout
    Running: 5 mutants
    Running...
    """
    assert {
        "contracts.core.value.x_a__mutmut_1": "survived",
        "contracts.core.shapes.xǁVectorǁadd__mutmut_2": "no tests",
        "contracts.core.shapes.x_b__mutmut_3": "timeout",
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
    unexplained = tmp_path / "unexplained.toml"
    unexplained.write_text('[[mutant]]\nname = "m3"\n')
    with pytest.raises(ValueError, match=r"mutant 'm3' is listed without a reason"):
        load_equivalents(unexplained)
    empty = tmp_path / "empty.toml"
    empty.write_text("# nothing listed yet\n")
    assert {} == load_equivalents(empty)
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
        [
            "unexplained no tests mutant: m3 "
            "(kill it, or list it in tools/mutation/equivalents.toml with a reason)"
        ],
        id="unexplained-survivor",
    ),
    pytest.param(
        STATS,
        {"m2": "killed"},
        {"m1": "equivalent"},
        [],
        ["listed mutant no longer exists: m1; remove it from tools/mutation/equivalents.toml"],
        id="stale-listing",
    ),
    pytest.param(STATS, {"m1": "killed"}, {"m1": "equivalent"}, [], [], id="listed-now-killed-passes"),
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


def test_listed_mutants_that_are_now_killed_are_reported() -> None:
    """A listed mutant that tests now kill (or time out) is a warning, never a failure."""
    from tools.mutation.gate import warnings

    results = {"m1": "killed", "m2": "survived", "m3": "timeout"}
    assert [
        "listed mutant is now killed: m1; remove it from tools/mutation/equivalents.toml",
        "listed mutant is now timeout: m3; remove it from tools/mutation/equivalents.toml",
    ] == warnings(results, {"m1": "r", "m2": "r", "m3": "r", "m4": "r"})


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
        "    @property\n"
        "    def doubled(self):\n"
        "        return self.scaled(self.size * 2)\n"
        "    @property\n"
        "    def passed_on(self):\n"
        "        return self.scaled(self.size, factor=2)\n"
    )
    assert [
        (f"{source}:4 shape", False),
        (f"{source}:8 size", True),
        (f"{source}:14 name", False),
        (f"{source}:17 empty", True),
        (f"{source}:20 doubled", True),  # a call is a delegation only when its arguments compute nothing
        (f"{source}:23 passed_on", False),
    ] == blind_spots([source])


def test_report_text() -> None:
    """The report gives the score, threshold, goal, every count and each blind spot."""
    assert (
        "mutation score 95.00% (threshold 96%, goal 98%): killed 90, timeout 5, survived 3, no_tests 2, "
        "suspicious 0, skipped 0, total 100\n"
        "functions mutmut cannot mutate: 2\n"
        "  a.py:3 shape\n"
        "  a.py:9 kind (holds logic)"
    ) == report({**STATS, "suspicious": 0}, [("a.py:3 shape", False), ("a.py:9 kind", True)], 0.96)
    assert "suspicious 0" in report({k: v for k, v in STATS.items() if k != "suspicious"}, [], 0.95)


def test_main_reads_the_default_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Run from the project root, the gate finds mutants/, tools/mutation/ and src/contracts by default."""
    (tmp_path / "mutants").mkdir()
    (tmp_path / "mutants" / "mutmut-cicd-stats.json").write_text(json.dumps({**STATS, "killed": 86}))
    (tmp_path / "tools" / "mutation").mkdir(parents=True)
    (tmp_path / "tools" / "mutation" / "equivalents.toml").write_text(
        '[[mutant]]\nname = "contracts.a.x_f__mutmut_1"\nreason = "equivalent"\n'
    )
    source = tmp_path / "src" / "contracts"
    source.mkdir(parents=True)
    (source / "m.py").write_text("class A:\n    @property\n    def p(self):\n        return 1 + 1\n")
    results = tmp_path / "results.txt"
    results.write_text("contracts.a.x_f__mutmut_1: survived\n")
    monkeypatch.chdir(tmp_path)
    assert 1 == main(["--results", str(results), "--threshold", "0.9"])
    out = capsys.readouterr().out
    assert "mutation score 91.00% (threshold 90%" in out
    assert "unexplained" not in out
    assert "FAIL: blind spot with logic (mutmut skips decorated functions): src/contracts/m.py:3 p" in out
    assert "score" not in out.split("FAIL:", 1)[1]


def test_main_exit_code_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """main prints the score and counts, and exits 1 on any problem, 0 otherwise."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(STATS))
    results = tmp_path / "results.txt"
    results.write_text("contracts.a.x_f__mutmut_1: survived\n")
    source = tmp_path / "src"
    source.mkdir()
    arguments = ["--stats", str(stats), "--results", str(results), "--source", str(source)]
    arguments += ["--pending", str(tmp_path / "none.toml")]  # not the repository's own list
    equivalents = tmp_path / "eq.toml"
    assert 1 == main([*arguments, "--equivalents", str(equivalents)])
    out = capsys.readouterr().out
    assert "mutation score 95.00% (threshold 95%, goal 98%): killed 90, timeout 5, survived 3" in out
    assert "FAIL: unexplained survived mutant: contracts.a.x_f__mutmut_1" in out
    assert out.rstrip().endswith("mutation gate: failed")
    equivalents.write_text('[[mutant]]\nname = "contracts.a.x_f__mutmut_1"\nreason = "equivalent"\n')
    assert 0 == main([*arguments, "--equivalents", str(equivalents)])
    assert capsys.readouterr().out.rstrip().endswith("mutation gate: passed")
    results.write_text("contracts.a.x_f__mutmut_1: killed\n")
    assert 0 == main([*arguments, "--equivalents", str(equivalents)])
    assert "WARNING: listed mutant is now killed: contracts.a.x_f__mutmut_1" in capsys.readouterr().out


def test_results_come_from_mutmut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without --results, the gate reads `python -m mutmut results` from the same interpreter."""
    import subprocess
    import sys

    from tools.mutation import gate as mutation

    calls: list[list[str]] = []

    def fake_run(command: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        calls.append(command)
        assert {"capture_output": True, "text": True, "check": True} == options
        return subprocess.CompletedProcess(command, 0, stdout="contracts.a.x_f__mutmut_1: survived\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert "contracts.a.x_f__mutmut_1: survived\n" == mutation.mutmut_results()
    assert [[sys.executable, "-m", "mutmut", "results"]] == calls
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(STATS))
    source = tmp_path / "src"
    source.mkdir()
    arguments = ["--stats", str(stats), "--source", str(source), "--equivalents", str(tmp_path / "none")]
    assert 1 == main(arguments)
    assert 2 == len(calls)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("@property\ndef f(): pass", "property", id="name"),
        pytest.param("@functools.cache\ndef f(): pass", "cache", id="attribute"),
        pytest.param("@functools.lru_cache(maxsize=2)\ndef f(): pass", "lru_cache", id="call"),
        pytest.param("@hook(tryfirst=True)\ndef f(): pass", "hook", id="call-of-name"),
        pytest.param("@handlers[0]\ndef f(): pass", "handlers[0]", id="subscript"),
    ],
)
def test_decorator_name(source: str, expected: str) -> None:
    """A decorator is named by its last dotted part, calls included; anything else by its source."""
    import ast

    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert expected == decorator_name(function.decorator_list[0])


STATUS_CASES = [
    pytest.param("killed", False, [], [], id="killed"),
    pytest.param(
        "killed", True, [], ["listed mutant is now killed: m; remove it from {eq}"], id="killed-listed"
    ),
    pytest.param("timeout", False, [], [], id="timeout"),
    pytest.param(
        "timeout", True, [], ["listed mutant is now timeout: m; remove it from {eq}"], id="timeout-listed"
    ),
    pytest.param("caught by type check", False, [], [], id="caught-by-type-check"),
    pytest.param("skipped", False, [], [], id="skipped"),
    pytest.param(
        "skipped", True, [], ["listed mutant is now skipped: m; remove it from {eq}"], id="skipped-listed"
    ),
    *(
        pytest.param(
            status,
            False,
            [f"unexplained {status} mutant: m (kill it, or list it in {{eq}} with a reason)"],
            [],
            id=status.replace(" ", "-"),
        )
        for status in ("survived", "no tests", "suspicious", "segfault")
    ),
    *(
        pytest.param(status, True, [], [], id=f"{status.replace(' ', '-')}-listed")
        for status in ("survived", "no tests", "suspicious", "segfault")
    ),
    *(
        pytest.param(
            status,
            listed,
            [f"mutant {status}: m; the mutmut run did not finish, run it again"],
            [],
            id=f"{status.replace(' ', '-')}{'-listed' if listed else ''}",
        )
        for status in ("not checked", "check was interrupted by user")
        for listed in (False, True)
    ),
]


@pytest.mark.parametrize(("status", "listed", "failures", "warned"), STATUS_CASES)
def test_every_mutmut_status(status: str, listed: bool, failures: list[str], warned: list[str]) -> None:
    """Each status `mutmut results` prints is read and fails the gate, warns or passes as documented."""
    from tools.mutation.gate import EQUIVALENTS, warnings

    results = parse_results(f"    m: {status}\n")
    assert {"m": status} == results
    equivalents = {"m": "reviewed"} if listed else {}
    assert [line.format(eq=EQUIVALENTS) for line in failures] == problems(
        STATS, results, equivalents, [], 0.95
    )
    assert [line.format(eq=EQUIVALENTS) for line in warned] == warnings(results, equivalents)


def test_pending_survivors_pass_in_plain_view_and_expire(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pending survivor passes the gate but is printed with its reason; once killed it is a warning,
    once gone a failure; pending never hides a survivor that is not listed."""
    stats = tmp_path / "stats.json"
    stats.write_text(json.dumps(STATS))
    results = tmp_path / "results.txt"
    results.write_text("contracts.a.x_f__mutmut_1: survived\ncontracts.a.x_g__mutmut_2: no tests\n")
    source = tmp_path / "src"
    source.mkdir()
    pending = tmp_path / "pending.toml"
    pending.write_text(
        '[[mutant]]\nname = "contracts.a.x_f__mutmut_1"\nreason = "needs a test of f\'s edge"\n'
    )
    arguments = ["--stats", str(stats), "--results", str(results), "--source", str(source)]
    arguments += ["--equivalents", str(tmp_path / "none.toml"), "--pending", str(pending)]
    assert 1 == main(arguments)
    out = capsys.readouterr().out
    assert "PENDING: survived mutant contracts.a.x_f__mutmut_1: needs a test of f's edge\n" in out
    assert "FAIL: unexplained no tests mutant: contracts.a.x_g__mutmut_2" in out
    assert "x_f__mutmut_1 (kill it" not in out
    results.write_text("contracts.a.x_f__mutmut_1: survived\n")
    assert 0 == main(arguments)
    assert capsys.readouterr().out.rstrip().endswith("mutation gate: passed")
    results.write_text("contracts.a.x_f__mutmut_1: killed\n")
    assert 0 == main(arguments)
    out = capsys.readouterr().out
    assert (
        "WARNING: pending mutant is now killed: contracts.a.x_f__mutmut_1; "
        "remove it from tools/mutation/pending.toml" in out
    )
    assert "PENDING" not in out
    results.write_text("contracts.a.x_h__mutmut_3: killed\n")
    assert 1 == main(arguments)
    out = capsys.readouterr().out
    assert (
        "FAIL: pending mutant no longer exists: contracts.a.x_f__mutmut_1; "
        "remove it from tools/mutation/pending.toml" in out
    )

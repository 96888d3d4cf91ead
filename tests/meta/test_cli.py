"""The `contracts` command in-process: dispatch, clear errors before any test runs, specs, plan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from contracts.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_no_command_prints_usage_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts` alone lists the commands and exits 2; --help exits 0."""
    assert 2 == main([])
    assert "verify" in capsys.readouterr().out
    assert 0 == main(["--help"])


def test_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown command is named in the error and exits 2."""
    assert 2 == main(["verfy"])
    assert "unknown command 'verfy'" in capsys.readouterr().err


def test_unknown_impl_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--impl with no such engine exits 2, names it and lists the shipped engines; pytest never runs."""
    assert 2 == main(["verify", "--impl", "no_such_engine_module", "-q"])
    err = capsys.readouterr().err
    assert "unknown engine 'no_such_engine_module'" in err
    assert "reference, torch, micrograd, or a dotted path pkg.module:Class" in err


def test_dotted_path_to_a_non_engine_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A dotted path to a class that is not an Engine is refused with the reason."""
    assert 2 == main(["verify", "--impl", "tests.meta.broken_engines:NotAnEngine", "-q"])
    assert "must produce a contracts.engines.base.Engine" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "hidden"), [("torch", "torch"), ("micrograd", "micrograd.engine")])
def test_missing_extra_gives_the_install_hint(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str, hidden: str
) -> None:
    """Without the engine installed, verify exits 2 saying how to install the extra."""
    monkeypatch.setitem(sys.modules, hidden, None)
    assert 2 == main(["verify", "--impl", name, "-q"])
    assert f"pip install -e '.[{name}]'" in capsys.readouterr().err


def test_environment_variable_selects_the_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CONTRACTS_IMPL selects the engine when --impl is absent."""
    monkeypatch.setenv("CONTRACTS_IMPL", "env_selected_engine_module")
    assert 2 == main(["verify", "-q"])
    assert "unknown engine 'env_selected_engine_module'" in capsys.readouterr().err


def test_suite_that_is_not_a_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--suite pointing at a directory without tests/properties and specs/ is a clear error."""
    assert 2 == main(["verify", "--suite", str(tmp_path), "-q"])
    assert f"{tmp_path} is not a contracts spec suite" in capsys.readouterr().err


def test_specs_lists_rows_with_failure_details(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts specs` prints id, kind, formula or statement, where blocked and exception."""
    assert 0 == main(["specs", "--rows", "S03.fail.div-zero,S03.grad.mul"])
    lines = capsys.readouterr().out.splitlines()
    assert ["ID", "KIND", "FORMULA", "/", "STATEMENT", "BLOCKED", "AT", "EXCEPTION"] == lines[0].split()
    (failure,) = [line for line in lines if line.startswith("S03.fail.div-zero")]
    assert failure.rstrip().endswith("ZeroDivisionError")
    assert "Value.__truediv__ / __rtruediv__" in failure
    assert "2 rows" == lines[-1]


def test_specs_json_filters_by_stage_and_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """--stage and --kind filter; --format json gives one object per row."""
    assert 0 == main(["specs", "--stage", "03", "--kind", "gradient", "--format", "json"])
    listed = json.loads(capsys.readouterr().out)
    assert {"gradient"} == {item["kind"] for item in listed}
    assert "mul: a * b; da: g * b, db: g * a" in [item["formula"] for item in listed]


def test_plan_is_wired_lazily(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan` calls plan_report.plan_main; without that module it exits 2 with a message."""
    monkeypatch.setitem(sys.modules, "contracts.plan_report", None)
    assert 2 == main(["plan", "--widths", "3,4,2", "--tokens", "2"])
    assert "contracts plan: not available" in capsys.readouterr().err


def test_plan_runs_when_present(capsys: pytest.CaptureFixture[str]) -> None:
    """With contracts.plan_report present, `contracts plan` returns its exit code and output."""
    pytest.importorskip("contracts.plan_report")
    assert 0 == main(["plan", "--widths", "3,4,2", "--tokens", "2"])
    assert capsys.readouterr().out.strip()


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the installed version."""
    assert 0 == main(["--version"])
    assert capsys.readouterr().out.startswith("contracts ")


def test_specs_from_a_broken_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts specs` on a directory it cannot load exits 2 naming it."""
    assert 2 == main(["specs", "--specs", str(tmp_path)])
    assert f"cannot load the spec rows from {tmp_path}" in capsys.readouterr().err


def test_specs_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    """The markdown listing is a pipe table with one line per row."""
    assert 0 == main(["specs", "--rows", "S05.contract.elements", "--format", "markdown"])
    lines = capsys.readouterr().out.splitlines()
    assert "| ID | KIND | FORMULA / STATEMENT | BLOCKED AT | EXCEPTION |" == lines[0]
    assert lines[2].startswith("| S05.contract.elements | contract | enforced by S05.fail.")
    assert 3 == len(lines)


def test_verify_prints_the_report_to_stdout(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without -o the report goes to stdout; arguments after -- reach pytest; exit code is the report's."""
    from contracts.verify import runner
    from tests.meta.test_verify_report import RECORDS, make_report

    seen: list[runner.VerifyOptions] = []

    def fake_verify(options: runner.VerifyOptions) -> object:
        seen.append(options)
        return make_report(RECORDS)

    monkeypatch.setattr("contracts.cli.verify", fake_verify)
    assert 1 == main(["verify", "--rows", "A", "--format", "markdown", "--", "-x", "--lf"])
    assert capsys.readouterr().out.startswith("# contracts verify")
    assert (["A"], ["-x", "--lf"]) == (seen[0].rows, seen[0].pytest_args)

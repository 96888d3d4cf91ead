"""The `contracts` command in-process: dispatch, clear errors before any test runs, specs, plan."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from contracts.cli import plan
from contracts.cli.commands import USAGE, main, specs_parser, verify_parser
from contracts.spec_suite.spec_rows import rows
from contracts.verify import matrix
from contracts.verify.runner import VerifyError, VerifyOptions

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


@pytest.mark.usefixtures("suite_never_starts")
def test_unknown_impl_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    """--impl with no such engine exits 2, names it and lists the shipped engines; pytest never runs."""
    assert 2 == main(["verify", "--impl", "no_such_engine_module", "-q"])
    err = capsys.readouterr().err
    assert "unknown engine 'no_such_engine_module'" in err
    assert "reference, torch, micrograd, jax, tinygrad, autograd, or a dotted path pkg.module:Class" in err


@pytest.mark.usefixtures("suite_never_starts")
def test_dotted_path_to_a_non_engine_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """A dotted path to a class that is not an Engine is refused with the reason."""
    assert 2 == main(["verify", "--impl", "tests.common.broken_engines:NotAnEngine", "-q"])
    assert "must produce a contracts.engines.base.Engine" in capsys.readouterr().err


@pytest.mark.usefixtures("suite_never_starts")
@pytest.mark.parametrize(("name", "hidden"), [("torch", "torch"), ("micrograd", "micrograd.engine")])
def test_missing_extra_gives_the_install_hint(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    hidden: str,
) -> None:
    """Without the engine installed, verify exits 2 saying how to install the extra. The adapter loads in
    verify's probe child: a package of the engine's name first on PYTHONPATH hides the real one there."""
    shadow = tmp_path / hidden.partition(".")[0]
    shadow.mkdir()
    (shadow / "__init__.py").write_text(f"raise ImportError('No module named {hidden}')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert 2 == main(["verify", "--impl", name, "-q"])
    assert f"pip install -e '.[{name}]'" in capsys.readouterr().err


@pytest.mark.usefixtures("suite_never_starts")
def test_environment_variable_selects_the_engine(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CONTRACTS_IMPL selects the engine when --impl is absent."""
    monkeypatch.setenv("CONTRACTS_IMPL", "env_selected_engine_module")
    assert 2 == main(["verify", "-q"])
    assert "unknown engine 'env_selected_engine_module'" in capsys.readouterr().err


def test_specs_lists_rows_with_failure_details(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts specs` prints id, kind, formula or statement, where blocked and exception."""
    assert 0 == main(["specs", "--rows", "S03.fail.div-zero,S03.grad.mul"])
    lines = capsys.readouterr().out.splitlines()
    assert ["ID", "KIND", "FORMULA", "/", "STATEMENT", "BLOCKED", "AT", "EXCEPTION"] == lines[0].split()
    (failure,) = [line for line in lines if line.startswith("S03.fail.div-zero")]
    assert failure.rstrip().endswith("ZeroDivisionError")
    assert "Value.__truediv__ / __rtruediv__" in failure
    assert "2 rows" == lines[-1]


def test_specs_rows_are_id_prefixes_not_substrings(capsys: pytest.CaptureFixture[str]) -> None:
    """--rows fail.token names the inside of S05.fail.token-id, not its start: no row is selected."""
    assert 0 == main(["specs", "--rows", "fail.token"])
    assert "0 rows" == capsys.readouterr().out.splitlines()[-1]


def test_specs_json_filters_by_stage_and_kind(capsys: pytest.CaptureFixture[str]) -> None:
    """--stage and --kind filter; --format json gives one object per row."""
    assert 0 == main(["specs", "--stage", "03", "--kind", "gradient", "--format", "json"])
    listed = json.loads(capsys.readouterr().out)
    assert {"gradient"} == {item["kind"] for item in listed}
    assert "mul: a * b; da: g * b, db: g * a" in [item["formula"] for item in listed]


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
    from tests.common.reports import RECORDS, make_report

    seen: list[runner.VerifyOptions] = []

    def fake_verify(options: runner.VerifyOptions) -> object:
        seen.append(options)
        return make_report(RECORDS)

    monkeypatch.setattr("contracts.cli.commands.verify", fake_verify)
    assert 1 == main(["verify", "--rows", "A", "--format", "markdown", "--", "-x", "--lf"])
    assert capsys.readouterr().out.startswith("# contracts verify")
    assert (["A"], ["-x", "--lf"]) == (seen[0].rows, seen[0].pytest_args)


def test_usage_and_unknown_command_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    """The usage text goes to stdout (exit 2 without a command, 0 for -h/--help); an unknown command
    is named on stderr, followed by the usage."""
    assert (2, 0, 0) == (main([]), main(["-h"]), main(["--help"]))
    assert USAGE * 3 == capsys.readouterr().out
    assert 2 == main(["verfy", "x"])
    assert ("", f"contracts: unknown command 'verfy'\n\n{USAGE}\n") == capsys.readouterr()
    assert USAGE.startswith(
        "usage: contracts COMMAND [options]\n\ncommands:\n  verify         run the spec suite"
    )


def test_version_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints `contracts VERSION` and exits 0."""
    from importlib.metadata import version

    assert 0 == main(["--version", "ignored"])
    assert f"contracts {version('contracts')}\n" == capsys.readouterr().out


def fake_verify(monkeypatch: pytest.MonkeyPatch, result: object) -> list[VerifyOptions]:
    """contracts.cli.commands.verify replaced: records its options, returns (or raises) result."""
    seen: list[VerifyOptions] = []

    def verify(options: VerifyOptions) -> object:
        seen.append(options)
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr("contracts.cli.commands.verify", verify)
    return seen


def test_verify_options_reach_the_runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every option lands in VerifyOptions; -q turns progress off; without -- nothing goes to pytest."""
    from tests.common.reports import RECORDS, make_report

    seen = fake_verify(monkeypatch, make_report(RECORDS))
    out = tmp_path / "r.json"
    arguments = [
        "verify",
        "--impl",
        "I",
        "--profile",
        "P",
        "-n",
        "2",
        "--rows",
        "A",
        "--rows",
        "B",
    ]
    arguments += [
        "-k",
        "K",
        "-q",
        "--pytest-log",
        "L",
        "-o",
        str(out),
        "--format",
        "json",
        "--seed",
        "7",
    ]
    assert 1 == main([*arguments, "--", "-x"])
    assert 1 == main(["verify", "--", "--", "-x"])
    assert 1 == main(["verify", "--quick"])
    assert 1 == main(["verify", "--quick", "--profile", "dev"])
    assert [
        VerifyOptions(
            impl="I",
            profile="P",
            workers="2",
            rows=["A", "B"],
            keyword="K",
            progress=False,
            pytest_log="L",
            output=str(out),
            seed=7,
            pytest_args=["-x"],
        ),
        VerifyOptions(pytest_args=["--", "-x"]),
        VerifyOptions(profile="quick", quick=True),  # --quick picks the quick profile ...
        VerifyOptions(profile="dev", quick=True),  # ... unless a profile is named
    ] == seen
    assert "contracts-verify-report" == json.loads(out.read_text(encoding="utf-8"))["format"]


def test_verify_writes_the_report_to_a_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With -o the report goes to the file (stdout stays empty) and stderr says where; the table is
    the default format; the exit code is the report's."""
    from contracts.verify.formats import format_table
    from tests.common.reports import RECORDS, make_report

    report = make_report(RECORDS)
    seen = fake_verify(monkeypatch, report)
    out = tmp_path / "report.txt"
    assert 1 == main(["verify", "-o", str(out)])
    assert [VerifyOptions(output=str(out))] == seen  # every default; nothing for pytest
    assert ("", f"contracts verify: report written to {out}\n") == capsys.readouterr()
    assert format_table(report) == out.read_text(encoding="utf-8")


def test_verify_error_in_full(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A VerifyError is printed on stderr and its code is the exit code."""
    fake_verify(monkeypatch, VerifyError("no luck", 3))
    assert 3 == main(["verify"])
    assert ("", "contracts verify: error: no luck\n") == capsys.readouterr()


def test_specs_filters_in_full(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--stage, --kind and --rows (prefixes, comma-separated or repeated) each narrow the listing;
    an unloadable directory is exit 2 with the reason."""
    all_rows = rows()
    cases = [
        (["--stage", "05"], [r.id for r in all_rows if r.stage == "05"]),
        (["--kind", "failure"], [r.id for r in all_rows if r.kind == "failure"]),
        (
            ["--rows", "S03.grad.m,S05.cost", "--rows", "T.rule"],
            [r.id for r in all_rows if r.id.startswith(("S03.grad.m", "S05.cost", "T.rule"))],
        ),
        ([], [r.id for r in all_rows]),
    ]
    for arguments, expected in cases:
        assert 0 == main(["specs", "--format", "json", *arguments])
        assert expected == [item["id"] for item in json.loads(capsys.readouterr().out)]
    assert 2 == main(["specs", "--specs", str(tmp_path)])
    err = capsys.readouterr().err
    assert err.startswith(f"contracts specs: error: cannot load the spec rows from {tmp_path}: ")


def test_arguments_default_to_sys_argv(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """main() without arguments reads sys.argv (the console script)."""
    monkeypatch.setattr(sys, "argv", ["contracts", "--help"])
    assert 0 == main()
    assert USAGE == capsys.readouterr().out


def test_plan_of_a_block_names_its_settings(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan --block ... --bias --eps 3.5`: the title says bias on and the eps, and the total
    counts the spec's block parameters with biases; by default bias is off and eps 1e-6."""
    from contracts.cli.plan import plan_main
    from contracts.spec import evaluate
    from contracts.spec_suite.spec_rows import row

    argv = ["--widths", "2,3,2", "--tokens", "2", "--bias", "--eps", "3.5", "--block", "rmsnorm-residual"]
    assert 0 == plan_main(argv)
    lines = capsys.readouterr().out.splitlines()
    parameters = evaluate(row("S08.params.block")["expr"], {"C": 2, "Chid": 3, "bias": 1})
    assert "block block: x + MLP(RMSNorm(x)), widths 2 -> 3 -> 2, tokens T = 2, bias on, eps 3.5" == lines[0]
    assert ["total", str(parameters)] == [lines[-1].split()[0], lines[-1].split()[-2]]
    assert 0 == plan_main(["--widths", "2,3,2", "--block", "rmsnorm-residual"])
    title = capsys.readouterr().out.splitlines()[0]
    assert "block block: x + MLP(RMSNorm(x)), widths 2 -> 3 -> 2, tokens T = 1, bias off, eps 1e-06" == title


@pytest.mark.parametrize(
    "parser",
    [verify_parser(), specs_parser(), matrix.parser(), plan.parser()],
    ids=["verify", "specs", "matrix", "plan"],
)
def test_every_option_is_listed_and_documented(parser: argparse.ArgumentParser) -> None:
    """`contracts COMMAND --help` lists every option the command accepts, each with a help text."""
    text = parser.format_help()
    undocumented = [
        action.option_strings
        for action in parser._actions
        if action.option_strings
        and (
            not action.help
            or action.help == argparse.SUPPRESS
            or not all(o in text for o in action.option_strings)
        )
    ]
    assert [] == undocumented


def test_plan_prints_the_models_plan(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts plan` prints the plan of the model its widths describe and exits 0."""
    assert 0 == main(["plan", "--widths", "3,4,2", "--tokens", "2"])
    assert capsys.readouterr().out.startswith("model mlp: widths 3 -> 4 -> 2, tokens T = 2")

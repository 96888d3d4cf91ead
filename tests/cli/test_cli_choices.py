"""Options with a fixed set of values: a bad value is refused before anything runs, a good one is used."""

from __future__ import annotations

import pytest

from contracts.cli.commands import main
from contracts.verify.runner import VerifyOptions
from tests.common.reports import RECORDS, make_report


def recorded_verify(monkeypatch: pytest.MonkeyPatch) -> list[VerifyOptions]:
    """`contracts verify`'s runner replaced in-process: it records its options and returns a made-up
    report (one row failed), so no pytest child ever starts."""
    seen: list[VerifyOptions] = []

    def verify(options: VerifyOptions) -> object:
        seen.append(options)
        return make_report(RECORDS)

    monkeypatch.setattr("contracts.cli.commands.verify", verify)
    return seen


@pytest.mark.parametrize(
    ("option", "value"), [("--format", "xml"), ("--level", "everything")], ids=["format", "level"]
)
def test_verify_refuses_a_value_outside_the_choices(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    """`contracts verify --format xml` or `--level everything`: a one-line `contracts verify: error:`
    naming the option and the value after the usage, exit code 2, and the suite never starts."""
    seen = recorded_verify(monkeypatch)
    with pytest.raises(SystemExit) as stopped:
        main(["verify", option, value])
    assert 2 == stopped.value.code
    out, err = capsys.readouterr()
    assert "" == out
    assert err.startswith("usage: contracts verify ")
    expected = f"contracts verify: error: argument {option}: invalid choice: '{value}'"
    assert err.splitlines()[-1].startswith(expected)
    assert [] == seen


def test_verify_level_reaches_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """--level values is the level the run judges at; without --level it is contract."""
    seen = recorded_verify(monkeypatch)
    main(["verify", "--level", "values"])
    main(["verify"])
    assert ["values", "contract"] == [options.level for options in seen]


def test_specs_format_table_is_accepted_and_is_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    """`contracts specs --format table` prints the aligned table with its row count, as a listing without
    --format does; exit code 0 for both."""
    assert 0 == main(["specs", "--rows", "S03.grad.mul", "--format", "table"])
    named = capsys.readouterr().out
    assert 0 == main(["specs", "--rows", "S03.grad.mul"])
    default = capsys.readouterr().out
    lines = named.splitlines()
    assert ["ID", "KIND", "FORMULA", "/", "STATEMENT", "BLOCKED", "AT", "EXCEPTION"] == lines[0].split()
    assert ["S03.grad.mul", "gradient"] == lines[1].split()[:2]
    assert "1 rows" == lines[-1]
    assert named == default

"""Every `--rows` prefix must select a row: one typo among several is refused, naming it, before any
test runs."""

from __future__ import annotations

import pytest

from contracts.cli.commands import main
from contracts.verify.runner import split_prefixes


@pytest.mark.usefixtures("suite_never_starts")
@pytest.mark.parametrize(
    ("rows", "named"),
    [
        (["S05.cost.dot,S99"], "--rows S99: no spec row id starts with this prefix"),
        (["S05.cost.dot", "S99", "X1"], "--rows S99,X1: no spec row id starts with any of these prefixes"),
    ],
)
def test_a_prefix_that_selects_no_row_is_refused_among_good_ones(
    rows: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 2, one line naming only the prefixes that select nothing."""
    arguments = [part for value in rows for part in ("--rows", value)]
    assert 2 == main(["verify", "-q", *arguments])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"contracts verify: error: {named} (")


def test_prefixes_are_kept_once_each_in_the_order_given() -> None:
    """Repeated and comma-separated --rows values give each prefix once, first place kept."""
    assert ["S05", "S03.grad", "T"] == split_prefixes(["S05, S03.grad", "S05,T", " ,S03.grad"])


@pytest.mark.usefixtures("suite_never_starts")
def test_twenty_thousand_options_are_refused_before_parsing_and_comma_separated_prefixes_are_not(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """20,000 --rows options: one line naming the count and the bound, before argparse (which scans
    every option string once per option) sees them; the same prefixes comma-separated in one option
    reach the row check, which names the one bad prefix."""
    assert 2 == main(["verify", "-q", *(["--rows", "S05"] * 10_000)])
    message = "contracts verify: error: 20001 arguments, at most 2000 (give many --rows prefixes"
    assert capsys.readouterr().err.startswith(message)
    assert 2 == main(["verify", "-q", "--rows", ",".join(["S05"] * 20_000 + ["S99"])])
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("contracts verify: error: --rows S99: no spec row id starts with this prefix (")

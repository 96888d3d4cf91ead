"""Every `--rows` prefix must select a row: one typo among several is refused, naming it, before any
test runs."""

from __future__ import annotations

import pytest

from contracts.cli.commands import main


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

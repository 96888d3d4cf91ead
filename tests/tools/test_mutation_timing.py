"""The timing table of a mutmut run sums each package's mutant test times from mutmut's own files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools.mutation.timing import table

META = {
    "src/contracts/core/value.py.meta": {"a": 0.5, "b": 1.5},
    "src/contracts/core/shapes.py.meta": {"c": 3.0},
    "src/contracts/cli/commands.py.meta": {"d": 10.0},
}


def scratch(root: Path) -> Path:
    """A run's scratch copy holding mutmut's .meta files and its stats file."""
    for name, durations in META.items():
        path = root / "mutants" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"exit_code_by_key": {}, "durations_by_key": durations}))
    (root / "mutants" / "mutmut-stats.json").write_text(json.dumps({"stats_time": 42.4}))
    return root


def cells(text: str) -> dict[str, list[str]]:
    """The table's rows by their first cell."""
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    return {row[0].strip(): [cell.strip() for cell in row[1:]] for row in rows}


def test_each_package_sums_its_files_mutants_and_the_slowest_package_comes_first(tmp_path: Path) -> None:
    """core: 3 mutants, 5 s, mean 1.67 s, shapes.py named before value.py; cli (10 s) is the first row;
    the total row counts 4 mutants and 15 s; the stats pass's 42 s is reported."""
    text = table(scratch(tmp_path))
    rows = cells(text)
    assert ["3", "5 s", "1.67 s", "shapes.py 3 s, value.py 2 s"] == rows["contracts.core"]
    assert ["1", "10 s", "10.00 s", "commands.py 10 s"] == rows["contracts.cli"]
    assert ["4", "15 s", "3.75 s", ""] == rows["all"]
    assert ["package", "contracts.cli", "contracts.core", "all"] == [name for name in rows if name != "---"]
    assert "42 s" in text.splitlines()[-1]


def test_a_directory_without_a_run_is_a_one_line_error(tmp_path: Path) -> None:
    """No .meta files under DIR/mutants: an error naming the directory, no table."""
    with pytest.raises(SystemExit, match=r"no mutmut \.meta files under .*mutants"):
        table(tmp_path)

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


def rows_of(text: str) -> dict[str, tuple[float, float, float, list[str]]]:
    """The table's rows by package: mutants, test seconds, mean seconds, the slowest files in order."""
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()]
    return {
        row[0]: (
            float(row[1]),
            float(row[2].removesuffix(" s")),
            float(row[3].removesuffix(" s")),
            [named.split()[0] for named in row[4].split(",") if named.strip()],
        )
        for row in rows
        if len(row) == 5 and row[1].isdigit()
    }


def test_each_package_sums_its_files_mutants_and_the_slowest_package_comes_first(tmp_path: Path) -> None:
    """core: 3 mutants, 5 s, mean 1.67 s, shapes.py named before value.py; cli (10 s) is the first row;
    the total row counts 4 mutants and 15 s; the stats pass's 42 s is reported."""
    text = table(scratch(tmp_path))
    rows = rows_of(text)
    assert ["contracts.cli", "contracts.core", "all"] == list(rows)
    assert (3.0, 5.0, 1.67, ["shapes.py", "value.py"]) == rows["contracts.core"]  # the mean to 2 places
    assert (1.0, 10.0, 10.0, ["commands.py"]) == rows["contracts.cli"]
    assert (4.0, 15.0, 3.75, []) == rows["all"]
    assert "42 s" in text.strip().splitlines()[-1]


def test_a_directory_without_a_run_is_a_one_line_error(tmp_path: Path) -> None:
    """No .meta files under DIR/mutants: an error naming the directory, no table."""
    with pytest.raises(SystemExit, match=r"no mutmut \.meta files under .*mutants"):
        table(tmp_path)

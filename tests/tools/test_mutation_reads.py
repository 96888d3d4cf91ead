"""mutmut's stats pass records which spec rows each test file reads (tools.mutation.reads): a field
looked up in a test or while its module is collected, charged to that file; the loader's own reads
and selecting rows by id or kind are no read; outside the stats pass nothing is recorded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

READS_EXAMPLES = """
from contracts.spec import load_rows

def test_reads_one_field_and_one_whole_row():
    (dot,) = [row for row in load_rows() if row.id == "S05.cost.dot"]
    assert dot["examples"]
    (add,) = [row for row in load_rows() if row.id == "S03.grad.add"]
    assert dict(add)
"""
PARAMETRIZED = """
import pytest
from contracts.spec import load_rows

FORMULAS = [row for row in load_rows() if row.kind == "formula" and row.id.startswith("S05.cost.vector")]

@pytest.mark.parametrize("title", [row["title"] for row in FORMULAS])
def test_titled(title):
    assert title
"""
SELECTS_ONLY = """
from contracts.spec import load_rows

def test_counts_failure_rows():
    assert [row.id for row in load_rows() if row.kind == "failure" and row.level == "refusals"]
"""


def run_in(tmp_path: Path, phase: str | None) -> subprocess.CompletedProcess[str]:
    for name, text in {
        "test_reads.py": READS_EXAMPLES,
        "test_params.py": PARAMETRIZED,
        "test_selects.py": SELECTS_ONLY,
    }.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if key != "MUTANT_UNDER_TEST"}
    if phase is not None:
        environment["MUTANT_UNDER_TEST"] = phase
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT), environment.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tools.mutation.reads"]
    return subprocess.run(
        [*command, "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts pytest in a child process")
def test_the_stats_pass_records_each_files_row_reads(tmp_path: Path) -> None:
    """A test's lookup (one field) and iteration (the whole row), and a parametrization's lookups, go to
    their files; selecting by id, kind and level is no read, and the loader's validation of every row
    is not charged to anyone."""
    finished = run_in(tmp_path, "stats")
    assert 0 == finished.returncode, finished.stdout + finished.stderr
    recorded = json.loads((tmp_path / "rows-read.json").read_text(encoding="utf-8"))
    expected = {
        "test_params.py": ["S05.cost.vector-add:title"],
        "test_reads.py": ["S03.grad.add", "S05.cost.dot:examples"],
    }
    assert expected == recorded


@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="starts pytest in a child process")
def test_nothing_is_recorded_outside_the_stats_pass(tmp_path: Path) -> None:
    """A mutant's run (or a plain run) writes no record."""
    finished = run_in(tmp_path, "contracts.core.checks.x_exact_int__mutmut_1")
    assert 0 == finished.returncode, finished.stdout + finished.stderr
    assert not (tmp_path / "rows-read.json").exists()

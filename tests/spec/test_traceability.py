"""Every spec row has a property test and a golden test; every marker names a real row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.spec.traceability import problems, suite_of
from contracts.spec_suite.spec_rows import all_rows
from tests.common.paths import SUITE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    out = tmp_path_factory.mktemp("trace") / "trace.json"
    env = {**os.environ, "CONTRACTS_TRACE_OUT": str(out), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "tests.common.trace_plugin"]
    result = subprocess.run(
        [*command, "properties", "golden"], cwd=SUITE, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    marked: dict[str, list[str]] = json.loads(out.read_text(encoding="utf-8"))
    return marked


def test_every_row_is_bound_to_a_property_and_a_golden_test(collected: dict[str, list[str]]) -> None:
    """No spec row lacks a property test or a golden test; no test names an unknown id."""
    assert [] == problems([r.id for r in all_rows()], collected)


@pytest.mark.parametrize(
    ("ids", "marked", "expected"),
    [
        pytest.param(["A.x"], {}, ["A.x: no properties test", "A.x: no golden test"], id="unbound"),
        pytest.param(
            ["A.x"], {"tests/properties/t.py::f": ["A.x"]}, ["A.x: no golden test"], id="golden-missing"
        ),
        pytest.param(
            ["A.x"],
            {"tests/properties/t.py::f": ["A.x"], "tests/golden/t.py::g": ["A.x", "B.y"]},
            ["tests/golden/t.py::g: names unknown spec id 'B.y'"],
            id="unknown-id",
        ),
        pytest.param(
            ["C.x", "A.x", "B.x"],
            {"tests/properties/t.py::z": ["A.x", "Z.b", "Z.a"], "tests/golden/t.py::a": ["A.x", "Y.y"]},
            [
                "B.x: no properties test",
                "B.x: no golden test",
                "C.x: no properties test",
                "C.x: no golden test",
                "tests/golden/t.py::a: names unknown spec id 'Y.y'",
                "tests/properties/t.py::z: names unknown spec id 'Z.b'",
                "tests/properties/t.py::z: names unknown spec id 'Z.a'",
            ],
            id="sorted-by-row-then-by-node-id",
        ),
        pytest.param(
            ["A.x"],
            {"tests/meta/t.py::f": ["A.x"], "tests/golden/t.py::g": ["A.x"]},
            ["A.x: no properties test"],
            id="meta-does-not-count",
        ),
    ],
)
def test_problems_are_reported(ids: list[str], marked: dict[str, list[str]], expected: list[str]) -> None:
    """The checker reports unbound rows per suite and unknown ids, and counts only the two suites."""
    assert expected == problems(ids, marked)


def test_suite_is_read_from_the_directory() -> None:
    """A node id's suite is its directory; a file merely named like a suite does not count."""
    assert ("properties", "golden", None, None) == (
        suite_of("tests/properties/test_a.py::t[x]"),
        suite_of("tests/golden/test_b.py::t"),
        suite_of("tests/meta/golden.py::t"),
        suite_of("tests/meta/test_x.py::t[tests/golden/y]"),
    )


def test_every_decision_row_says_why() -> None:
    """A row the seeds do not state (origin decision) carries its reason in `note`: a reader can tell a
    decision from the seed's word, and why it was taken."""
    decisions = [r for r in all_rows() if r["origin"] == "decision"]
    unexplained = [r.id for r in decisions if not str(r.get("note", "")).strip()]
    assert [] == unexplained

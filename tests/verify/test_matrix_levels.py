"""The matrix's verdict per level for a report that holds no row of a level other reports have."""

from __future__ import annotations

import json
from pathlib import Path

from contracts.verify.matrix import build, read_report, to_markdown


def saved(path: Path, engine: str, level: str) -> Path:
    document = {
        "format": "contracts-verify-report",
        "engine": {"name": engine, "version": None},
        "levels": {level: {"verdict": "passed"}},
        "rows": [
            {
                "id": f"S.{level}",
                "title": "t",
                "stage": "S",
                "level": level,
                "status": "passed",
                "reasons": [],
            }
        ],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_level_a_report_does_not_hold_reads_not_in_this_report(tmp_path: Path) -> None:
    """Engine a reported level values only, b level contract only: each one's other level reads NOT
    IN THIS REPORT, over the other's row, deselected here."""
    reports = [saved(tmp_path / "a.json", "a", "values"), saved(tmp_path / "b.json", "b", "contract")]
    lines = to_markdown(build([read_report(path) for path in reports])).splitlines()
    assert [
        "| engine | version | level values | level contract |",
        "| --- | --- | --- | --- |",
        "| a | - | PASSED: 1 passed | NOT IN THIS REPORT: 1 deselected |",
        "| b | - | NOT IN THIS REPORT: 1 deselected | PASSED: 1 passed |",
    ] == lines[:4]

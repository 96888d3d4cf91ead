"""`contracts verify` run in this process with a JSON report, read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.cli import main

# For runs that fail by design, whose tests read which rows fail and why, not a failure's minimal example:
# the mutation profile does not shrink, and shrinking the failures of slow tests costs more than finding
# them (the float64-only run of test_verify_runs: 74 s with shrinking, 14 s without, the same verdicts).
NO_SHRINKING = ("--hypothesis-profile", "mutation")


@dataclass
class Run:
    code: int
    report: dict[str, Any] | None

    def rows(self) -> dict[str, dict[str, Any]]:
        assert self.report is not None
        return {row["id"]: row for row in self.report["rows"]}


def run_verify(arguments: list[str], out: Path) -> Run:
    code = main(["verify", "-q", "--format", "json", "-o", str(out), *arguments])
    return Run(code, json.loads(out.read_text(encoding="utf-8")) if out.is_file() else None)

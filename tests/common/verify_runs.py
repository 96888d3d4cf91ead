"""`contracts verify` run in this process with a JSON report, read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.cli import main


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

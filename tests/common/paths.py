"""Where things are: the repository, the installed package's specs and spec suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import contracts.spec_suite
from contracts.spec import spec_dir

ROOT = Path(__file__).resolve().parents[2]  # the repository
SPECS = spec_dir()  # the package's specs/ (CONTRACTS_SPECS unset in the tests' own session)
SUITE = Path(contracts.spec_suite.__file__).resolve().parent  # properties/, golden/, conftest.py
SRC = str(SUITE.parents[1])  # the directory the contracts package is imported from
REPORT_SCHEMA: dict[str, Any] = json.loads(
    (SUITE.parent / "verify" / "report.schema.json").read_text(encoding="utf-8")
)

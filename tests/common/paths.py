"""Where things are: the repository, the installed package's specs and spec suite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import contracts
from contracts.spec import spec_dir

ROOT = Path(__file__).resolve().parents[2]  # the repository
SPECS = spec_dir()  # the package's specs/ (CONTRACTS_SPECS unset in the tests' own session)
# the directory holding the spec suite's properties/ and golden/: this checkout's tests/ (or mutmut's copy
# of it, whose test modules must not meet the checkout's under the same names)
SUITE = ROOT / "tests"
SUITE_DIRS = (str(SUITE / "properties"), str(SUITE / "golden"))
PACKAGE = Path(contracts.__file__).resolve().parent
SRC = str(PACKAGE.parent)  # the directory the contracts package is imported from
REPORT_SCHEMA: dict[str, Any] = json.loads(
    (PACKAGE / "verify" / "report.schema.json").read_text(encoding="utf-8")
)

"""Spec directories made for a test: the package's schema beside rows written by the test."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.common.paths import SPECS

FORMULA = """
[meta]
stage = "99"
title = "test"
seed = "none"
{meta_extra}

[[rows]]
id = "{row_id}"
kind = "formula"
title = "a formula"
origin = "decision"
level = "contract"
category = "cost"
expr = "{expr}"
symbols = {{ K = {{ min = 1, max = 3 }} }}
compared_with = ["planner"]
examples = [{{ where = {{ K = 2 }}, value = 3 }}]
"""


def write_specs(tmp_path: Path, files: dict[str, str]) -> Path:
    shutil.copy(SPECS / "schema.json", tmp_path / "schema.json")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def formula(row_id: str = "X99.cost.dot", expr: str = "2*K - 1", meta_extra: str = "") -> str:
    return FORMULA.format(row_id=row_id, expr=expr, meta_extra=meta_extra)

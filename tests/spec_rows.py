"""Spec rows as pytest parameters: the row id is the test id and the `spec` marker."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import pytest

from contracts.engines import Engine
from contracts.spec import SpecRow, load_rows


@cache
def all_rows() -> tuple[SpecRow, ...]:
    return tuple(load_rows())


def rows(stage: str | None = None, kind: str | None = None, prefix: str | None = None) -> list[SpecRow]:
    """The rows matching every given filter, in file order."""
    return [
        spec_row
        for spec_row in all_rows()
        if (stage is None or spec_row.stage == stage)
        and (kind is None or spec_row.kind == kind)
        and (prefix is None or spec_row.id.startswith(prefix))
    ]


def row(row_id: str) -> SpecRow:
    for spec_row in all_rows():
        if spec_row.id == row_id:
            return spec_row
    raise KeyError(f"no spec row {row_id!r}")


def params(selected: Iterable[SpecRow]) -> list[Any]:
    """pytest parameters: one per row, id = row id, marked with spec(row id)."""
    return [pytest.param(r, id=r.id, marks=pytest.mark.spec(r.id)) for r in selected]


def example_params(selected: Iterable[SpecRow]) -> list[Any]:
    """One parameter per (row, example): id = row id + example index, marked with the row id."""
    return [
        pytest.param(r, example, id=f"{r.id}[{i}]", marks=pytest.mark.spec(r.id))
        for r in selected
        for i, example in enumerate(r.get("examples", ()))
    ]


def require(engine: Engine, capability: str, row_id: str | None = None) -> None:
    """Skip as not applicable when the engine lacks the capability or differs by convention."""
    reason = engine.lacks(capability, row_id)
    if reason is not None:
        pytest.skip(f"not applicable: {reason}")

"""Spec rows as pytest parameters: the row id is the test id and the `spec` marker."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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


@cache
def rows_by_id() -> dict[str, SpecRow]:
    """Every row by its id (row() is called once per example by failure and precedence tests: a scan of
    every row each time cost ~1 ms per call)."""
    found: dict[str, SpecRow] = {}
    for spec_row in all_rows():
        found.setdefault(spec_row.id, spec_row)  # the first, as a scan would find it
    return found


def row(row_id: str) -> SpecRow:
    found = rows_by_id().get(row_id)
    if found is None:
        raise KeyError(f"no spec row {row_id!r}")
    return found


# row -> why its test is reference-only for that row (None: it runs on the engine under test)
ReferenceOnlyWhen = Callable[[SpecRow], str | None]


def row_marks(spec_row: SpecRow, reference_only_when: ReferenceOnlyWhen | None) -> list[Any]:
    """The spec marker, and the reference_only marker when the row's case is reference-only."""
    reason = reference_only_when(spec_row) if reference_only_when is not None else None
    marks = [pytest.mark.spec(spec_row.id)]
    return marks if reason is None else [*marks, pytest.mark.reference_only(reason)]


def params(selected: Iterable[SpecRow], reference_only_when: ReferenceOnlyWhen | None = None) -> list[Any]:
    """pytest parameters: one per row, id = row id, marked with spec(row id)."""
    return [pytest.param(r, id=r.id, marks=row_marks(r, reference_only_when)) for r in selected]


def example_params(
    selected: Iterable[SpecRow], reference_only_when: ReferenceOnlyWhen | None = None
) -> list[Any]:
    """One parameter per (row, example): id = row id + example index, marked with the row id."""
    return [
        pytest.param(r, example, id=f"{r.id}[{i}]", marks=row_marks(r, reference_only_when))
        for r in selected
        for i, example in enumerate(r.get("examples", ()))
    ]


def require(engine: Engine, capability: str, row_id: str | None = None) -> None:
    """Skip as not applicable when the engine lacks the capability or differs by convention."""
    reason = engine.lacks(capability, row_id)
    if reason is not None:
        pytest.skip(f"not applicable: {reason}")


# ---------------------------------------------------------------- reference-only tests, engine use

# The one mechanism for tests that exercise this project's own types rather than the engine:
# `@reference_only("why")` (or `pytestmark = reference_only("why")` on a whole module). On any engine
# but the reference itself, conftest skips such a test as "not applicable: reference-only: why" before
# it starts; verify never counts it as proof about another engine.
reference_only = pytest.mark.reference_only
SCALAR_REFUSALS = (
    "the refusal is observed on this project's Value (the adapter protocol has no scalar refusal hook)"
)
OWN_TYPES = "it exercises this project's own types (the reference implementation), not an engine"

# Engine attributes that describe the adapter without running the engine: calling them is not a use.
DESCRIBING = frozenset({"lacks", "version", "name", "capabilities", "conventions", "lacking"})


def is_reference(engine: Any) -> bool:
    """Exactly the shipped reference engine (a subclass, e.g. a broken adapter, is another engine)."""
    from contracts.engines.reference import ReferenceEngine

    return type(unwrap(engine)) is ReferenceEngine


def unwrap(engine: Any) -> Any:
    return engine.wrapped if isinstance(engine, RecordingEngine) else engine


class RecordingEngine:
    """The engine under test, counting calls of its adapter methods (so verify can tell a test that
    passed without ever running the engine from one that proved something about it)."""

    def __init__(self, wrapped: Engine) -> None:
        self.wrapped = wrapped
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.wrapped, name)
        if name in DESCRIBING or name.startswith("_") or not callable(attribute):
            return attribute
        return self.counted(attribute)

    def counted(self, method: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return method(*args, **kwargs)

        return call


# ---------------------------------------------------------------- readable failures


def shown(value: Any) -> Any:
    """Arrays as nested lists, so a failure message shows the numbers, not numpy's repr."""
    return value.tolist() if hasattr(value, "tolist") else value


def assert_engine_gives(
    spec_says: Any, engine_gave: Any, *, rel: float, abs: float = 0.0, what: str = "", source: str = "spec"
) -> None:
    """The engine's result equals the spec's within tolerance; else an AssertionError that labels both
    sides ('engine gave X, spec says Y'), which pytest.approx's Obtained/Expected get backwards when
    the expected value is written on the left."""
    if pytest.approx(spec_says, rel=rel, abs=abs) == engine_gave:
        return
    where = f"{what}: " if what else ""
    tolerance = f"(rel={rel}, abs={abs})"
    raise AssertionError(
        f"{where}engine gave {shown(engine_gave)!r}, {source} says {shown(spec_says)!r} {tolerance}"
    )

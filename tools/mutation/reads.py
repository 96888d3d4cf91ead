"""The pytest plugin that records which spec rows each test file reads (`-p tools.mutation.reads` in
pyproject's [tool.mutmut]), so an edit of one row stales only the verdicts of the tests that read it.

It records in mutmut's stats pass only (MUTANT_UNDER_TEST=stats when pytest configures), the one
pass that runs every selected test unmutated; it writes `rows-read.json` in mutmut's working directory
(beside its mutmut-stats.json) when the session ends: test file -> what of the spec rows it read.

A read is a field looked up on a SpecRow (`row["examples"]`, `row.get(...)`, `"x" in row`: noted as
`ROW:FIELD`, so a key holds that field's value only), or the whole row when it is iterated or measured
(`dict(row)`, `row.items()`, `len(row)`: noted as `ROW`), outside the loader, which reads every field of
every row to validate it. Selecting rows by their id, kind, level
or category goes through SpecRow's properties, not a field lookup: it is no read (the cache keys every
verdict on those four fields of every row: tools.mutation.cache.SpecIndex). A read is charged to
the test file whose test runs, or whose module is being collected (parametrizing from rows); a read
anywhere else (a conftest, a session-wide fixture, whose result any test may use) to every test
(EVERY_TEST).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tools.mutation.cache import EVERY_TEST, field_read

OUTPUT = Path("rows-read.json")  # in mutmut's working directory, beside its mutmut-stats.json
LOADER = "contracts.spec.loader"
LOADING = frozenset({"load_rows", "load_spec_file", "check_references"})


class Recorder:
    """Row ids read, by the test file they are charged to."""

    def __init__(self) -> None:
        self.current = EVERY_TEST
        self.read: dict[str, set[str]] = {}

    def note(self, row_id: str) -> None:
        self.read.setdefault(self.current, set()).add(row_id)

    def as_json(self) -> str:
        """The reads by file, a field left out where its whole row was read."""
        return json.dumps({file: compact(read) for file, read in sorted(self.read.items())}, indent=0)


def compact(read: set[str]) -> list[str]:
    return sorted(
        entry for entry in read if entry.partition(":")[0] == entry or entry.partition(":")[0] not in read
    )


def loading() -> bool:
    """Whether the loader is on the stack (validating rows as it loads them)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in LOADING and frame.f_globals.get("__name__") == LOADER:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def watch(recorder: Recorder) -> None:
    """Wrap SpecRow's field lookup (a read of that field) and its iteration and length (a read of the
    whole row) so each one outside the loader is noted."""
    from contracts.spec.loader import SpecRow

    lookup: Callable[[SpecRow, str], Any] = SpecRow.__getitem__
    iterate: Callable[[SpecRow], Iterator[str]] = SpecRow.__iter__
    size: Callable[[SpecRow], int] = SpecRow.__len__

    def looked_up(row: SpecRow, key: str) -> Any:
        if not loading():
            recorder.note(field_read(row.row_id(), key))
        return lookup(row, key)

    def iterated(row: SpecRow) -> Iterator[str]:
        if not loading():
            recorder.note(row.row_id())
        return iterate(row)

    def measured(row: SpecRow) -> int:
        if not loading():
            recorder.note(row.row_id())
        return size(row)

    SpecRow.__getitem__ = looked_up  # type: ignore[method-assign]
    SpecRow.__iter__ = iterated  # type: ignore[method-assign]
    SpecRow.__len__ = measured  # type: ignore[method-assign]


RECORDER: Recorder | None = None


def file_of(nodeid: str) -> str:
    return nodeid.partition("::")[0]


def pytest_configure(config: pytest.Config) -> None:
    """In mutmut's stats pass, start recording."""
    global RECORDER
    RECORDER = None
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        RECORDER = Recorder()
        watch(RECORDER)


@contextmanager
def charged_to(owner: str | None) -> Iterator[None]:
    """Reads made meanwhile go to owner (None: to whoever has them now), then back."""
    if RECORDER is None or owner is None:
        yield
        return
    recorder = RECORDER
    before, recorder.current = recorder.current, owner
    try:
        yield
    finally:
        recorder.current = before


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    """Collecting a test module (importing it, parametrizing its tests): its file's reads."""
    with charged_to(file_of(collector.nodeid) if isinstance(collector, pytest.Module) else None):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, Any, Any]:
    with charged_to(file_of(item.nodeid)):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Generator[None, Any, Any]:
    """A session- or package-wide fixture's reads serve every test that uses it."""
    with charged_to(EVERY_TEST if fixturedef.scope in ("session", "package") else None):
        return (yield)


def pytest_sessionfinish() -> None:
    if RECORDER is not None:
        OUTPUT.write_text(RECORDER.as_json(), encoding="utf-8")

"""A test's clauses: which spec row (and which category of check) each of its assertions proves.

A test may name several rows (a port's MLP test proves both its graph count and its ReLU count). When it
fails, the failure belongs to the row whose clause failed, not to every row the test names: an assertion
inside `clause(row_id)` that fails raises ClauseError carrying that row, and verify charges the
failure to it alone; the test's other rows keep the clauses that passed before it, and a row none of
whose clauses ran reads "not run" for that test (its check could not run). A failure outside any clause
(an engine's crash, a bare assert) still belongs to every row the test names.

The suite's conftest opens a record per test (`recording`); a clause that passes is written there, and
the verify plugin carries the record and the failed clauses with the test's report.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

CLAUSES_PROPERTY = "contracts.clauses"  # user property: [row id, category or None] of each passed clause
FAILED_CLAUSES_PROPERTY = "contracts.failed_clauses"  # [row id, category or None, message] per failure


class ClauseError(AssertionError):
    """A failed clause: the row (and category, None for the row's own) it proves, and why it failed."""

    def __init__(self, row_id: str, category: str | None, message: str) -> None:
        super().__init__(f"{row_id}: {message}")
        self.row_id = row_id
        self.category = category
        self.reason = message


Passed = list[tuple[str, str | None]]
current: Passed | None = None  # the running test's passed clauses (None outside the suite's tests)
named: frozenset[str] = frozenset()  # the rows the running test names


@contextmanager
def recording(rows: frozenset[str] = frozenset()) -> Iterator[Passed]:
    """Collect the passed clauses of one test, which names rows."""
    return collected(rows)  # mutmut skips decorated functions: the logic is a plain function


def collected(rows: frozenset[str]) -> Iterator[Passed]:
    global current, named
    previous, current = current, []
    previous_rows, named = named, rows
    try:
        yield current
    finally:
        current, named = previous, previous_rows


def names(row_id: str) -> bool:
    """The running test names the row (a helper puts a check under that row's clause only then)."""
    return row_id in named


@contextmanager
def clause(row_id: str, category: str | None = None) -> Iterator[None]:
    """The body's assertions prove row_id's clause (of the given category; None: the row's own)."""
    return checked(row_id, category)  # mutmut skips decorated functions: the logic is a plain function


def checked(row_id: str, category: str | None) -> Iterator[None]:
    try:
        yield
    except ClauseError:
        raise  # an inner clause already names its row
    except AssertionError as error:
        raise ClauseError(row_id, category, str(error)) from error
    if current is not None:
        current.append((row_id, category))


def failed_clauses(error: BaseException | None) -> list[tuple[str, str | None, str]]:
    """The clauses a test's exception reports as failed: a ClauseError, or each one inside an exception
    group (hypothesis raises one when it finds several distinct failures); empty for anything else."""
    if isinstance(error, ClauseError):
        return [(error.row_id, error.category, error.reason)]
    if isinstance(error, BaseExceptionGroup):
        return [found for inner in error.exceptions for found in failed_clauses(inner)]
    return []


class Clauses:
    """Several clauses checked in turn, each failure kept: a test that proves two rows reports both when
    both fail (a row failing for two causes shows both), instead of stopping at the first."""

    def __init__(self) -> None:
        self.failures: list[ClauseError] = []

    @contextmanager
    def __call__(self, row_id: str, category: str | None = None) -> Iterator[None]:
        return self.kept(row_id, category)  # mutmut skips decorated functions: the logic is a plain method

    def kept(self, row_id: str, category: str | None) -> Iterator[None]:
        try:
            with clause(row_id, category):
                yield
        except ClauseError as failure:
            self.failures.append(failure)

    def close(self) -> None:
        """Raise what failed: the one clause failure, or a group of them."""
        if len(self.failures) == 1:
            raise self.failures[0]
        if self.failures:
            raise ExceptionGroup(f"{len(self.failures)} clauses failed", self.failures)


@contextmanager
def each_clause() -> Iterator[Clauses]:
    """`with each_clause() as check:` then `with check(row_id): ...` per clause; the failures at the end."""
    return gathered()


def gathered() -> Iterator[Clauses]:
    kept = Clauses()
    yield kept
    kept.close()

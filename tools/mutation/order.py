"""The pytest plugin of mutmut's runs (`-p tools.mutation.order` in pyproject's [tool.mutmut]).

A mutant's tests run fastest first: mutmut hands a mutant its covering tests in set order and stops
at the first failure (`-x`), so a killed mutant pays for every slow test that happens to come before
its killer. Ordering by the
durations of mutmut's own stats pass makes a kill cost only the fast tests. A survivor runs every
test either way, so no verdict changes; only the time to reach it.

Child processes of mutmut's stats pass run the code unmutated: mutmut marks that pass with
MUTANT_UNDER_TEST=stats, and a test's child process (a verify run, a probe) would inherit it and try
to record its calls, which needs mutmut's configuration in the child's working directory (a test's
tmp_path has none: the child fails, and so does the stats pass). Once the tests are collected (the
suite's `skipif("MUTANT_UNDER_TEST" in os.environ)` marks are set by then) the mark leaves the
environment; the pass keeps it in this process (mutmut holds it in memory too), and a mutant's own
run still hands the mutant to the children.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, MutableMapping
from typing import Protocol, TypeVar

# The names mutmut gives its own phases (stats, clean run, forced fail, ...), never a mutant's.
NOT_A_MUTANT = frozenset({"", "stats", "fail", "list_all_tests", "mutant_generation"})


class HasNodeId(Protocol):
    @property
    def nodeid(self) -> str: ...


Item = TypeVar("Item", bound=HasNodeId)


def mutant_under_test() -> str:
    """The mutant this process runs the tests of, or '' outside mutmut's per-mutant runs."""
    name = os.environ.get("MUTANT_UNDER_TEST", "")
    return "" if name in NOT_A_MUTANT else name


def recorded_durations() -> Mapping[str, float]:
    """The stats pass's seconds per test id, from the mutmut process this one was forked from."""
    try:
        from mutmut.state import state
    except ImportError:  # not run by mutmut
        return {}
    durations: Mapping[str, float] = state().duration_by_test  # typed here: mutmut may be untyped (lint env)
    return durations


def fastest_first(items: list[Item], durations: Mapping[str, float]) -> None:
    """Sort items in place by recorded duration; a test without one goes last, in its old place."""
    items.sort(key=lambda item: durations.get(item.nodeid, math.inf))


def pytest_collection_finish() -> None:
    """Tests collected: in mutmut's stats pass, child processes no longer inherit its mark."""
    forget_stats_mark(os.environ)


def forget_stats_mark(environment: MutableMapping[str, str]) -> None:
    if environment.get("MUTANT_UNDER_TEST") == "stats":
        del environment["MUTANT_UNDER_TEST"]


def pytest_collection_modifyitems(items: list[Item]) -> None:
    """A pytest plugin (mutmut's runs load it with `-p tools.mutation.order`): only a mutant's own run is
    reordered; every other session keeps pytest's order."""
    if mutant_under_test():
        fastest_first(items, recorded_durations())

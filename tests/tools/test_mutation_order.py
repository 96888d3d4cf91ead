"""Under mutmut a mutant's tests run fastest first (every other session keeps pytest's order), and the
stats pass's child processes run the code unmutated."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from tools.mutation import order
from tools.mutation.order import NOT_A_MUTANT, fastest_first, mutant_under_test, recorded_durations


@dataclass
class Item:
    nodeid: str


DURATIONS = {"slow": 96.0, "fast": 0.01, "medium": 2.5}


def ids(items: list[Item]) -> list[str]:
    return [item.nodeid for item in items]


def test_fastest_first_sorts_by_recorded_duration_and_puts_unknown_tests_last_in_their_order() -> None:
    """Recorded durations ascending, then the tests the stats pass never timed, as they came."""
    items = [Item(n) for n in ("new-b", "slow", "fast", "new-a", "medium")]
    fastest_first(items, DURATIONS)
    assert ["fast", "medium", "slow", "new-b", "new-a"] == ids(items)


@pytest.mark.parametrize("phase", sorted(NOT_A_MUTANT))
def test_mutmuts_own_phases_are_not_a_mutant(phase: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stats pass, the clean run and the forced failure keep pytest's order."""
    monkeypatch.setenv("MUTANT_UNDER_TEST", phase)
    assert "" == mutant_under_test()


def test_a_mutant_name_is_the_mutant_under_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut's per-mutant run names the mutant; outside mutmut there is none."""
    monkeypatch.setenv("MUTANT_UNDER_TEST", "contracts.core.value.x_add__mutmut_3")
    assert "contracts.core.value.x_add__mutmut_3" == mutant_under_test()
    monkeypatch.delenv("MUTANT_UNDER_TEST")
    assert "" == mutant_under_test()


def test_durations_come_from_the_mutmut_process_and_are_empty_without_mutmut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The forked run reads its parent's stats in memory; without mutmut there are none."""
    # A stand-in for mutmut's state function: under mutmut itself this test runs inside mutmut's own
    # process (its stats pass), whose real state must not be touched.
    module = pytest.importorskip("mutmut.state")  # the mutation extra (py311's envs)
    monkeypatch.setattr(module, "state", lambda: SimpleNamespace(duration_by_test=DURATIONS))
    assert DURATIONS == recorded_durations()
    monkeypatch.setitem(sys.modules, "mutmut.state", None)  # import fails as if mutmut were absent
    assert {} == recorded_durations()


@pytest.mark.parametrize(
    ("mutant", "expected"),
    [
        pytest.param("contracts.core.linear.x_f__mutmut_1", ["fast", "medium", "slow"], id="a-mutant-run"),
        pytest.param("stats", ["slow", "fast", "medium"], id="stats-pass"),
    ],
)
def test_the_plugin_reorders_only_a_mutants_run(
    mutant: str, expected: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin's hook sorts a mutant's tests and leaves every other session alone."""
    monkeypatch.setenv("MUTANT_UNDER_TEST", mutant)
    monkeypatch.setattr(order, "recorded_durations", lambda: DURATIONS)
    items = [Item(n) for n in ("slow", "fast", "medium")]
    order.pytest_collection_modifyitems(items)
    assert expected == ids(items)


@pytest.mark.parametrize(
    ("mark", "left"),
    [("stats", None), ("contracts.core.linear.x_f__mutmut_1", "contracts.core.linear.x_f__mutmut_1")],
)
def test_children_of_the_stats_pass_do_not_inherit_its_mark(
    mark: str, left: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the tests are collected, mutmut's stats mark leaves the environment a test's child process
    inherits (the end-to-end proof: tests/tools/test_mutation_mutmut.py); a mutant's name stays, so
    children run the mutant."""
    monkeypatch.setenv("MUTANT_UNDER_TEST", mark)
    order.pytest_collection_finish()
    assert left == os.environ.get("MUTANT_UNDER_TEST")

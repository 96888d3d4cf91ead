"""The harness reaches what its tests claim: strategies draw their edge cases, attempts call the form
they name. A strategy whose domain collapsed (no 0, no -0.0, no negative, no -1) or an attempt that
calls another operator would weaken a failure row's test while the reference still passes it."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from contracts import CountingValue
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage03 import MAKES_OVERFLOW, div_attempt

REACH = settings(database=None, derandomize=True, max_examples=5000)


def negative_zero(x: float) -> bool:
    return x == 0 and math.copysign(1.0, x) < 0


def positive_zero(x: float) -> bool:
    return x == 0 and math.copysign(1.0, x) > 0


# (strategy, an edge case some test relies on): each must be drawn.
EDGES: list[Any] = [
    pytest.param(s.finite_floats, lambda x: x < 0, id="finite-floats-negative"),
    pytest.param(s.finite_floats, lambda x: x > 0, id="finite-floats-positive"),
    pytest.param(s.log_outside_domain, lambda c: positive_zero(c["x"]), id="log-at-zero"),
    pytest.param(s.log_outside_domain, lambda c: negative_zero(c["x"]), id="log-at-negative-zero"),
    pytest.param(s.log_outside_domain, lambda c: c["x"] < 0, id="log-below-zero"),
    pytest.param(s.division_by_zero, lambda c: positive_zero(c["b"]), id="division-by-zero"),
    pytest.param(s.division_by_zero, lambda c: negative_zero(c["b"]), id="division-by-negative-zero"),
    pytest.param(s.division_by_zero, lambda c: c["form"] == "reflected", id="division-reflected"),
    pytest.param(s.pow_outside_domain, lambda c: c["x"] == 0 and 0 < c["k"] < 1, id="zero-to-a-fraction"),
    pytest.param(s.pow_outside_domain, lambda c: c["x"] == 0 and c["k"] < 0, id="zero-to-a-negative"),
    pytest.param(s.pow_outside_domain, lambda c: c["x"] < 0, id="negative-base"),
    pytest.param(s.negative_budget, lambda b: b == -1, id="budget-minus-one"),
    pytest.param(s.inject_over_budget({}, 5), lambda c: c["budget"] == 0, id="over-budget-zero"),
    pytest.param(s.inject_over_budget({}, 5), lambda c: c["budget"] == 4, id="over-budget-cost-minus-one"),
    pytest.param(s.upstream_scalars, lambda u: u < 0, id="upstream-negative"),
    pytest.param(s.upstream_scalars, lambda u: u > 1.25, id="upstream-above-one"),
    pytest.param(s.from_domain({"min": 1, "max": 9}), lambda v: v == 1, id="integer-domain-min"),
    pytest.param(s.from_domain({"min": 1, "max": 9}), lambda v: v == 9, id="integer-domain-max"),
    pytest.param(
        s.from_domain({"min": -2.0, "max": 3.0, "type": "float"}), lambda v: v < 0, id="float-domain-low"
    ),
    pytest.param(
        s.from_domain({"min": -2.0, "max": 3.0, "type": "float"}), lambda v: v > 2, id="float-domain-high"
    ),
]


@pytest.mark.parametrize(("strategy", "edge"), EDGES)
def test_a_strategy_draws_its_edge_case(
    strategy: st.SearchStrategy[Any], edge: Callable[[Any], bool]
) -> None:
    """The strategy draws the edge case (found within 5,000 derandomized draws): none was filtered out."""
    assert edge(find(strategy, edge, settings=REACH))


@settings(max_examples=50)
@given(case=s.tied_pair())
def test_a_tied_pair_is_always_tied_somewhere(case: dict[str, Any]) -> None:
    """Every tied pair has at least one tie, and a equals b exactly where the tie mask says."""
    tie = case["tie"]
    assert (True, True) == (bool(tie.any()), bool(np.array_equal(case["a"][tie], case["b"][tie])))


def spied(monkeypatch: pytest.MonkeyPatch, name: str, log: list[tuple[str, str]]) -> None:
    """CountingValue.name records (name, the other operand's type) before it runs."""
    method = getattr(CountingValue, name)

    def spy(self: CountingValue, other: object) -> Any:
        log.append((name, type(other).__name__))
        return method(self, other)

    monkeypatch.setattr(CountingValue, name, spy)


DUNDERS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__")
# The attempt's form and the one operator call it must make: (dunder, the other operand's type).
FORMS = [
    pytest.param(
        lambda: div_attempt({"a": 1.0, "b": 0.0, "form": "value"}).action(),
        ("__truediv__", "CountingValue"),
        id="div-value",
    ),
    pytest.param(
        lambda: div_attempt({"a": 1.0, "b": 0.0, "form": "constant"}).action(),
        ("__truediv__", "float"),
        id="div-constant",
    ),
    pytest.param(
        lambda: div_attempt({"a": 1.0, "b": 0.0, "form": "reflected"}).action(),
        ("__rtruediv__", "float"),
        id="div-reflected",
    ),
    *[
        pytest.param(
            lambda form=form: MAKES_OVERFLOW[form](CountingValue(2.0), CountingValue(3.0)),
            expected,
            id=f"overflow-{form}",
        )
        for form, expected in [
            ("add", ("__add__", "CountingValue")),
            ("radd", ("__radd__", "float")),
            ("sub", ("__sub__", "CountingValue")),
            ("rsub", ("__rsub__", "float")),
            ("mul", ("__mul__", "CountingValue")),
            ("rmul", ("__rmul__", "float")),
            ("div", ("__truediv__", "CountingValue")),
            ("rdiv", ("__rtruediv__", "float")),
            ("add-constant", ("__add__", "float")),
            ("mul-constant", ("__mul__", "float")),
            ("div-constant", ("__truediv__", "float")),
        ]
    ],
]


@pytest.mark.parametrize(("call", "expected"), FORMS)
def test_an_attempt_calls_the_form_it_names(
    monkeypatch: pytest.MonkeyPatch, call: Callable[[], object], expected: tuple[str, str]
) -> None:
    """A reflected form really puts the number on the left (the Value's reflected operator runs), a
    constant form a number on the right, a value form two Values: exactly one operator call."""
    log: list[tuple[str, str]] = []
    for name in DUNDERS:
        spied(monkeypatch, name, log)
    with contextlib.suppress(ArithmeticError, ValueError):  # the attempt's own refusal (1 / 0)
        call()
    assert [expected] == log

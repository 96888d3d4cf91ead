"""The spec's expression evaluator agrees with Python on every construct its grammar accepts: random
expressions (every operator, unary sign, comparison and chained comparison, call of a scalar spec
function, nesting) over ints, floats and numpy scalars, evaluated by both. Where Python raises, the
evaluator raises the same type; the evaluator refuses (ExpressionError) only a power whose integer
result could pass its size bound, saying so. Chained comparisons over scalars stop at the first false
link and give it, as Python's do."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contracts.spec.expr import MAX_EXPONENT, MAX_INT_BITS, ExpressionError, evaluate
from contracts.spec.functions import SCALAR, array_functions

SYMBOLS = ("a", "b", "c")
BINARY = ("+", "-", "*", "/", "//", "%")
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
FUNCTIONS = {"exp": 1, "log": 1, "step": 1, "ge": 2, "lt": 2, "max": 2}

constants = st.one_of(
    st.integers(-9, 9).map(str),
    st.floats(-9, 9, allow_nan=False).map(repr),
)
leaves = st.one_of(constants, st.sampled_from(SYMBOLS))


def extend(inner: st.SearchStrategy[str], links: int = 3) -> st.SearchStrategy[str]:
    """Every construct over inner expressions; a comparison chains up to `links` comparisons."""
    binary = st.tuples(inner, st.sampled_from(BINARY), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    power = st.tuples(inner, st.integers(-3, MAX_EXPONENT)).map(lambda t: f"({t[0]} ** {t[1]})")
    unary = st.tuples(st.sampled_from("+-"), inner).map(lambda t: f"({t[0]}{t[1]})")
    chain = st.lists(st.tuples(st.sampled_from(COMPARISONS), inner), min_size=1, max_size=links)
    compare = st.tuples(inner, chain).map(lambda t: "(" + t[0] + "".join(f" {o} {e}" for o, e in t[1]) + ")")
    call = st.sampled_from(sorted(FUNCTIONS)).flatmap(
        lambda name: st.lists(inner, min_size=FUNCTIONS[name], max_size=FUNCTIONS[name]).map(
            lambda args: f"{name}({', '.join(args)})"
        )
    )
    return st.one_of(binary, power, unary, compare, call)


expressions = st.recursive(leaves, extend, max_leaves=12)
values = st.one_of(
    st.integers(-50, 50),
    st.floats(-1e3, 1e3, allow_nan=False),
    st.floats(-1e3, 1e3, allow_nan=False).map(np.float64),
    st.integers(-50, 50).map(np.int64),
)


def outcome(compute: Any) -> tuple[str, Any]:
    try:
        return "value", compute()
    except ExpressionError as refusal:
        return "refused", str(refusal)
    except (ArithmeticError, ValueError, TypeError, AttributeError) as error:
        return "raised", type(error)


def same(ours: Any, python: Any) -> bool:
    if isinstance(python, float | np.floating) and math.isnan(python):
        return isinstance(ours, float | np.floating) and math.isnan(ours)
    return bool(ours == python) and type(ours) is type(python)


@settings(max_examples=400)
@given(expressions, st.tuples(values, values, values))
# the forms a derandomized run rarely draws: chains over numpy scalars (their links are numpy bools),
# one stopping before a link that would raise, and the result of a chain used as a number
@example("(a < 1 < 0)", (np.float64(0.0), 0, 0))
@example("(a > 2 > (1 // 0))", (np.float64(0.0), 0, 0))
@example("((a < 0 < 0) ** -1)", (np.float64(-1.0), 0, 0))
@example("(+(a < 1 < 0))", (np.float64(0.0), 0, 0))
@example("((6 ** 16) ** 25)", (0, 0, 0))
def test_the_evaluator_agrees_with_python(text: str, drawn: tuple[Any, Any, Any]) -> None:
    """Value and type, the exception type where Python raises, or a refusal where Python's integer
    result is beyond MAX_INT_BITS."""
    assert_agree(text, dict(zip(SYMBOLS, drawn)), SCALAR, same)


def assert_agree(
    text: str, bindings: dict[str, Any], functions: dict[str, Any], equal: Callable[[Any, Any], bool]
) -> None:
    """The evaluator and Python's eval (no builtins) of text give equal values or the same exception
    type; or the evaluator refuses a power for its size, saying so."""
    with np.errstate(all="ignore"):  # numpy scalars overflow to inf with a warning, in both
        ours = outcome(lambda: evaluate(text, bindings, functions))
        python = outcome(lambda: eval(text, {"__builtins__": {}}, {**bindings, **functions}))
    if ours[0] == "refused":  # only a power can pass the bound from these constants (docstring of expr)
        assert "**" in text, (text, bindings, ours)
        assert f"more than {MAX_INT_BITS}" in ours[1], (text, ours)
        return
    assert ours[0] == python[0], (text, bindings, ours, python)
    if ours[0] == "raised":
        assert python[1] == ours[1], (text, bindings, ours, python)
    else:
        assert equal(ours[1], python[1]), (text, bindings, ours, python)


def single_comparisons(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """extend without chained comparisons: over arrays Python raises on a chain (an array has no truth
    value) where the evaluator combines the links elementwise, by design."""
    return extend(inner, links=1)


ARRAY_FUNCTIONS = {name: f for name, f in array_functions(np).items() if name in FUNCTIONS}
arrays = st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=3, max_size=3).map(np.array)


def same_array(ours: Any, python: Any) -> bool:
    if isinstance(python, np.ndarray):
        return (
            isinstance(ours, np.ndarray)
            and ours.dtype == python.dtype
            and bool(np.array_equal(ours, python, equal_nan=ours.dtype.kind == "f"))
        )
    return same(ours, python)


@settings(max_examples=200)
@given(st.recursive(leaves, single_comparisons, max_leaves=8), st.tuples(arrays, arrays, values))
def test_the_evaluator_agrees_with_python_over_arrays(text: str, drawn: tuple[Any, Any, Any]) -> None:
    """With the spec's array functions and float64 arrays among the operands: the same array (dtype
    and elements) or the same exception type."""
    assert_agree(text, dict(zip(SYMBOLS, drawn)), ARRAY_FUNCTIONS, same_array)


def test_a_chain_over_arrays_is_the_elementwise_and_of_its_links() -> None:
    """Where Python refuses (an array has no truth value), a < b <= c is (a < b) & (b <= c)."""
    a, b, c = np.array([0.0, 1.0, 2.0, 3.0]), np.array([1.0, 1.0, 3.0, 4.0]), np.array([1.0, 2.0, 2.0, 5.0])
    expected = np.array([True, False, False, True])
    assert expected.tolist() == evaluate("a < b <= c", {"a": a, "b": b, "c": c}).tolist()

"""S07.rule.forward-bound and S07.fail.forward-overflow: the guarded forward proves every value finite before
its first node, or refuses; it never stops mid-run on an overflow.

The expected bounds come from the rule's statement, computed exactly (cases.forward_bound); the
module's float64 bounds are only compared with them.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st
from mpmath import mpf

from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.forward_bound import LIMIT, spec_bounds, verdict
from contracts.spec_suite.cases.stage07 import forward_input, forward_module
from contracts.spec_suite.probes import Attempt, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require, row
from contracts.spec_suite.strategies.forward_bound import VIAS, module_widths

pytestmark = reference_only(OWN_TYPES)

unit = st.floats(-1.0, 1.0, allow_nan=False)
# per-tensor scales 10^k: the sum of two or three large k straddles float64's 1e308
exponent = st.one_of(st.integers(-2, 160), st.integers(100, 160))


def scaled_rows(draw: st.DrawFn, rows: int, cols: int) -> list[list[float]]:
    scale = 10.0 ** draw(exponent)
    return [[draw(unit) * scale for _ in range(cols)] for _ in range(rows)]


def bias_row(draw: st.DrawFn, width: int) -> list[float]:
    """A bias of a drawn scale, now and then with one entry near float64's max (the bias alone decides)."""
    row = scaled_rows(draw, 1, width)[0]
    if draw(st.integers(0, 7)) == 0:
        row[draw(st.integers(0, width - 1))] = draw(st.floats(1e307, 1.7e308)) * draw(
            st.sampled_from([1, -1])
        )
    return row


@st.composite
def bound_case(draw: st.DrawFn) -> dict[str, Any]:
    """An MLP, a Linear or a Block with inputs, weights, biases and gains of drawn magnitudes (one scale
    per tensor, up to 1e160), eps down to subnormal, and now and then a zero input row."""
    via = draw(st.sampled_from(VIAS))
    widths = module_widths(draw, via)
    tokens = draw(s.token_count)
    x = scaled_rows(draw, tokens, widths[0])
    if draw(st.booleans()):
        x[draw(st.integers(0, tokens - 1))] = [0.0] * widths[0]
    pairs = list(itertools.pairwise(widths))
    names = [f"fc{index + 1}" for index in range(len(pairs))]
    return {
        "via": via,
        "widths": widths,
        "use_bias": draw(st.booleans()),
        "tokens": tokens,
        "x": x,
        "eps": 10.0 ** draw(st.one_of(st.integers(-320, 0), st.integers(-320, -200))),
        "weights": {name: scaled_rows(draw, b, a) for name, (a, b) in zip(names, pairs, strict=True)},
        "biases": {name: bias_row(draw, b) for name, (_, b) in zip(names, pairs, strict=True)},
        "gain": scaled_rows(draw, 1, widths[0])[0],
    }


def assert_bounds_match(module: Any, x: list[list[float]], exact: list[tuple[str, Any]], first: str) -> None:
    """The module's float64 bounds name the statement's steps and equal its bounds (relative 1e-9) up to the
    first step past LIMIT, which the module sees past LIMIT too (after it, inf may meet a zero: no value)."""
    computed = module.value_bounds([max(map(abs, row)) for row in x])
    assert [name for name, _ in exact] == [name for name, _ in computed]
    for (name, bound), (_, got) in zip(exact, computed, strict=True):
        if name == first:
            assert got > float(LIMIT), f"{name}: module bound {got}, exact {bound}"
            return
        assert abs(mpf(got) - bound) <= mpf("1e-9") * bound, f"{name}: module bound {got}, exact {bound}"


# A gain so large that RMSNorm's output, not its squares or its r, is the norm's largest value.
LARGE_GAIN = {
    "via": "block",
    "widths": [2, 2],
    "use_bias": False,
    "tokens": 1,
    "x": [[1.0, -1.0]],
    "eps": 1e-5,
    "weights": {"fc1": [[0.5, 0.5], [0.5, 0.5]]},
    "biases": {"fc1": [0.0, 0.0]},
    "gain": [1e200, -1e200],
}


@pytest.mark.spec("S07.rule.forward-bound", "S07.fail.forward-overflow")
@given(case=bound_case())
@example(case=LARGE_GAIN)
@example(case={**LARGE_GAIN, "gain": [1e308, 1.0]})
def test_a_forward_is_refused_exactly_when_a_step_bound_passes_the_limit(
    engine: Engine, case: dict[str, Any]
) -> None:
    """A forward whose every step bound is below half of float64's max runs to the end (no overflow refusal
    mid-run); one with a step past it is refused before any node, naming the first such step."""
    require(engine, "linear")
    module, parameters = forward_module(case)
    x = forward_input(case)
    exact = spec_bounds(module, case["x"])
    first = verdict(exact)
    assume(first is not None)
    assert first is not None
    event(f"{case['via']}: refused at {first}" if first else f"{case['via']}: admitted")
    assert_bounds_match(module, case["x"], exact, first)
    if first == "":
        assert (case["tokens"], case["widths"][-1] if case["via"] != "linear" else case["widths"][1]) == (
            module.forward(x).shape
        )
        return
    attempt = Attempt(lambda: module.forward(x), parameters=parameters)
    assert_refused(row("S07.fail.forward-overflow"), attempt)
    with pytest.raises(OverflowError, match=f"values of step '{first}' may reach"):
        attempt.action()


@pytest.mark.spec("S07.rule.forward-bound")
@given(
    data=st.data(),
    widths=s.mlp_widths,
    use_bias=st.booleans(),
    tokens=s.token_count,
    exponents=st.lists(st.one_of(st.integers(0, 160), st.integers(90, 160)), min_size=4, max_size=4),
)
def test_inputs_and_weights_of_one_sign_reach_the_bound(
    engine: Engine, data: st.DataObject, widths: list[int], use_bias: bool, tokens: int, exponents: list[int]
) -> None:
    """Every input a > 0, every weight of layer k w_k > 0 and every bias β_k >= 0: each output equals the
    last step's bound, so a refused forward had inputs and parameters whose worst case comes within a
    factor 2 of overflowing (the bound is not loose), and an admitted one computes it."""
    require(engine, "linear")
    magnitude = st.floats(1.0, 10.0)
    a = data.draw(magnitude) * 10.0 ** exponents[0]
    names = [f"fc{index + 1}" for index in range(len(widths) - 1)]
    scales = [data.draw(magnitude) * 10.0 ** exponents[1 + index % 3] for index in range(len(names))]
    rows = [[a] * widths[0]] * tokens
    case = {
        "widths": widths,
        "use_bias": use_bias,
        "tokens": tokens,
        "x": rows,
        "weights": {
            name: [[w] * c_in] * c_out
            for name, w, c_in, c_out in zip(names, scales, widths, widths[1:], strict=False)
        },
        "biases": {
            name: [data.draw(magnitude)] * c_out for name, c_out in zip(names, widths[1:], strict=False)
        },
    }
    module, parameters = forward_module(case)
    x = forward_input(case)
    exact = spec_bounds(module, rows)
    first = verdict(exact)
    assume(first is not None)
    event("refused" if first else "admitted")
    if first:
        assert_refused(
            row("S07.fail.forward-overflow"), Attempt(lambda: module.forward(x), parameters=parameters)
        )
        return
    out = module.forward(x).data()
    reached = exact[-1][1]
    assert all(abs(mpf(value) - reached) <= mpf("1e-12") * reached for row_ in out for value in row_), (
        out,
        reached,
    )

"""S07.rule.init-results: one rule for every plan's initializer results, EmbeddingPlan's included.

Every plan calls the initializer for every drawn position first, then checks the results in call order:
a real number (bool rejected) is stored as the finite float it equals; anything else is refused after all
the calls, before any Value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts import CountingValue, EmbeddingPlan, Value
from contracts.core.block import BlockPlan
from contracts.core.linear import LinearPlan
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import spec_value, spec_weight_count
from contracts.spec_suite.probes import Attempt, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require, row

pytestmark = reference_only(OWN_TYPES)

TARGETS = ("EmbeddingPlan", "LinearPlan", "ModelPlan", "BlockPlan")
# finite reals that are not floats: ints, numpy scalars, fractions (each stands for a float it equals)
non_float_real = st.one_of(
    st.integers(-(10**6), 10**6),
    st.integers(-(2**53), 2**53),
    st.floats(-1e3, 1e3).map(np.float32),
    st.integers(-100, 100).map(np.int64),
    st.fractions(max_denominator=64),
)


@st.composite
def target_case(draw: st.DrawFn) -> dict[str, Any]:
    target = draw(st.sampled_from(TARGETS))
    if target == "EmbeddingPlan":
        return {"target": target, **draw(s.embedding_config)}
    widths = draw(s.block_widths()) if target == "BlockPlan" else draw(s.mlp_widths)
    return {"target": target, "widths": widths[:2] if target == "LinearPlan" else widths}


def spec_calls(case: dict[str, Any]) -> int:
    """(V + C)·D for an embedding (S05.params.embedding), else one call per MLP weight (S07.params.linear)."""
    if case["target"] == "EmbeddingPlan":
        return int(spec_value("S05.params.embedding", V=case["V"], C=case["C"], D=case["D"]))
    return spec_weight_count(case["widths"])


def materialize(case: dict[str, Any], initializer: Callable[..., object]) -> list[Value]:
    """The target's materialize with CountingValues; the drawn Values in call order."""
    if case["target"] == "EmbeddingPlan":
        embedding = EmbeddingPlan(case["V"], case["C"], case["D"]).materialize(initializer, CountingValue)
        return [*embedding.token_weight.values(), *embedding.position_weight.values()]
    if case["target"] == "LinearPlan":
        layer = LinearPlan("fc1", *case["widths"]).materialize(initializer, CountingValue)
        return list(layer.weight.values())
    if case["target"] == "ModelPlan":
        model = ModelPlan.mlp(case["widths"]).materialize(initializer, CountingValue)
        return [v for layer in model.layers for v in layer.weight.values()]
    block = BlockPlan.rmsnorm_mlp(case["widths"]).materialize(initializer, CountingValue)
    return [v for layer in block.mlp.layers for v in layer.weight.values()]


class Script:
    """An initializer returning results[k] at its k-th call, counting its calls."""

    def __init__(self, results: list[object]) -> None:
        self.results = results
        self.calls = 0

    def __call__(self, *_: object) -> object:
        self.calls += 1
        return self.results[self.calls - 1]


@pytest.mark.spec("S07.rule.init-results")
@given(case=target_case(), data=st.data())
def test_a_real_result_is_stored_as_the_float_it_equals(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """An int, a numpy scalar or a fraction from the initializer becomes a Value whose data is exactly the
    float it equals (type float), in every plan, after one call per drawn position."""
    require(engine, "linear")
    calls = spec_calls(case)
    results = data.draw(st.lists(non_float_real, min_size=calls, max_size=calls))
    initializer = Script(list(results))
    values = materialize(case, initializer)
    assert calls == initializer.calls
    assert [(float, float(result)) for result in results] == [(type(v.data), v.data) for v in values]


def refusing_row(case: dict[str, Any], bad: object) -> str:
    """The row a bad result breaks: non-finite (a number) or type, Stage 05's for an embedding."""
    number = isinstance(bad, float | int) and not isinstance(bad, bool)
    if case["target"] == "EmbeddingPlan":
        return "S05.fail.initializer-nonfinite" if number else "S05.fail.initializer-type"
    return "S07.fail.init-non-finite" if number else "S07.fail.init-type"


@pytest.mark.spec(
    "S07.rule.init-results",
    "S05.fail.initializer-type",
    "S05.fail.initializer-nonfinite",
    "S07.fail.init-type",
    "S07.fail.init-non-finite",
)
@given(
    case=target_case(),
    bad=st.one_of(s.not_a_real, s.non_finite_float, s.int_beyond_float_range),
    data=st.data(),
)
def test_a_bad_result_is_refused_after_every_call(
    engine: Engine, case: dict[str, Any], bad: object, data: st.DataObject
) -> None:
    """A bad result at any call (the first included) is refused with its row's message only after every
    position was drawn, and no Value exists: the same order in EmbeddingPlan as in Stage 07's plans."""
    require(engine, "linear")
    calls = spec_calls(case)
    results: list[object] = [0.5] * calls
    results[data.draw(st.integers(0, calls - 1))] = bad
    initializer = Script(results)
    assert_refused(
        row(refusing_row(case, bad)), Attempt(lambda: materialize(case, initializer), offending=bad)
    )
    assert calls == initializer.calls


@pytest.mark.spec("S07.rule.init-results", "S05.fail.initializer-type", "S07.fail.init-type")
@given(case=target_case().filter(lambda case: spec_calls(case) >= 2), data=st.data())
def test_of_two_bad_results_the_first_drawn_is_named(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Results are checked in call order: of a non-real and a later non-finite result, the non-real is
    named (TypeError); of a non-finite and a later non-real one, the non-finite (ValueError)."""
    require(engine, "linear")
    calls = spec_calls(case)
    positions = data.draw(st.lists(st.integers(0, calls - 1), min_size=2, max_size=2, unique=True))
    first, second = sorted(positions)
    kinds = [(s.not_a_real, TypeError), (s.non_finite_float, ValueError)]
    if data.draw(st.booleans()):
        kinds.reverse()
    results: list[object] = [0.5] * calls
    results[first], results[second] = data.draw(kinds[0][0]), data.draw(kinds[1][0])
    with pytest.raises(kinds[0][1]) as refused:
        materialize(case, Script(results))
    assert f"got {results[first]!r}" in str(refused.value)

"""Stage 05/07 rows on the engine's own modules beyond shapes and counts: refusals of bad
sizes and inputs through the adapter's declared exception families, a Linear's gradient, the init
contract (deterministic per tensor, output variance) and a refused forward leaving the parameters as
they were. Expected numbers come from the spec rows; exceptions are compared by family.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.core.init import InitSpec
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.port import (
    LAYER,
    MODEL,
    build,
    build_or_reject,
    identity_changes,
    named_state,
)
from contracts.spec_suite.cases.stage07 import sample_variance, spec_value, tolerance
from contracts.spec_suite.spec_rows import (
    assert_engine_gives,
    assert_refused_as,
    params,
    require,
    row,
    value_params,
)
from contracts.spec_suite.strategies.common import NOT_AN_EXACT_INT

from .test_stage07_init import CHECKS, FALSE_FAILURE, OUTPUT_SEEDS

# ---------------------------------------------------------------- sizes the engine's constructors refuse

SIZE_CASES: dict[str, tuple[str, st.SearchStrategy[Any]]] = {
    # row id -> (capability, a bad size): a non-int or bool, or an int < 1
    "S05.fail.config-type": ("module.embedding", s.not_an_exact_int),
    "S05.fail.config-range": ("module.embedding", st.integers(-5, 0)),
    "S07.fail.plan-type": ("module.linear", s.not_an_exact_int),
    "S07.fail.invalid-plan": ("module.linear", st.integers(-5, 0)),
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in SIZE_CASES))
@given(data=st.data())
def test_port_constructor_refuses_bad_sizes(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """An embedding's V, C or D, or a Linear's C_in or C_out, that is not an exact int >= 1 is refused
    when the engine builds the module, with the row's family (seeds: 양수인 정확한 int, bool 거부)."""
    capability, bad = SIZE_CASES[spec_row.id]
    require(engine, capability, spec_row.id)
    sizes = [data.draw(s.layer_width) for _ in range(3)]
    sizes[data.draw(st.integers(0, 2 if capability == "module.embedding" else 1))] = data.draw(bad)
    if capability == "module.embedding":
        assert_refused_as(engine, spec_row, lambda: engine.module_embedding(*sizes))
    else:
        assert_refused_as(engine, spec_row, lambda: engine.module_linear(sizes[0], sizes[1], True))


# Every refused size the rows list, each tried once in every profile (`--quick`'s 5 examples could miss
# np.int64): the drawn test above varies which size and the valid ones around it.
LISTED_SIZES: dict[str, tuple[object, ...]] = {
    "S05.fail.config-type": NOT_AN_EXACT_INT,
    "S05.fail.config-range": (0, -1, -5),
    "S07.fail.plan-type": NOT_AN_EXACT_INT,
    "S07.fail.invalid-plan": (0, -1, -5),
}


@pytest.mark.parametrize(("spec_row", "bad"), value_params(LISTED_SIZES))
def test_port_constructor_refuses_every_listed_size(engine: Engine, spec_row: SpecRow, bad: Any) -> None:
    """Each listed bad size as the first size of an embedding (V) or a Linear (C_in), the others valid,
    is refused with the row's family."""
    capability, _ = SIZE_CASES[spec_row.id]
    require(engine, capability, spec_row.id)
    if capability == "module.embedding":
        assert_refused_as(engine, spec_row, lambda: engine.module_embedding(bad, 4, 2))
    else:
        assert_refused_as(engine, spec_row, lambda: engine.module_linear(bad, 3, True))


# ---------------------------------------------------------------- forward refusal, no partial work


@given(case=s.mlp_run(), extra=st.integers(-3, 3).filter(bool))
@pytest.mark.spec("S07.fail.input-width")
def test_port_forward_refuses_a_wrong_input_width(engine: Engine, case: dict[str, Any], extra: int) -> None:
    """A (T, C_in ± k) input is refused with ShapeError's family, and no parameter's value or identity
    changed (the probes an engine lets the suite read)."""
    require(engine, "module.mlp", "S07.fail.input-width")
    widths, x = case["widths"], case["x"]
    width = widths[0] + extra
    if width < 1:
        return
    module = build_or_reject(engine, lambda: engine.module_mlp(widths, True))
    before = named_state(engine, module, "mlp")
    identities = engine.module_identities(module) if engine.lacks("module.identity") is None else None
    bad = np.resize(x, (len(x), width))
    assert_refused_as(engine, row("S07.fail.input-width"), lambda: engine.module_forward(module, bad))
    after = named_state(engine, module, "mlp")
    assert list(before) == list(after)
    for name, values in before.items():
        np.testing.assert_array_equal(values, after[name])
    if identities is not None:
        assert [] == identity_changes(identities, engine.module_identities(module))


# ---------------------------------------------------------------- gradient of a Linear on the engine

LEARNING_RATE = 0.125


@pytest.mark.spec("S07.gradient.linear-dot")
@given(x=st.lists(st.floats(-5, 5), min_size=2, max_size=2))
def test_port_linear_dot_value_and_weight_gradient(engine: Engine, x: list[float]) -> None:
    """A 2 -> 1 bias-free Linear: y equals the row's forward over the engine's weights, and one SGD step
    on loss = y moves each weight by -lr times the row's ∂y/∂w (g = 1). ∂y/∂x is not observable through
    the module protocol (only parameters are updated)."""
    require(engine, "module.linear", "S07.gradient.linear-dot")
    require(engine, "module.identity", "S07.gradient.linear-dot")
    spec_row = row("S07.gradient.linear-dot")
    module = build(engine, lambda: engine.module_linear(2, 1, False))
    (w0, w1), inputs = named_state(engine, module, "mlp")[f"{LAYER}.weight"][0], np.array([x])
    bindings = {"x0": x[0], "x1": x[1], "w0": float(w0), "w1": float(w1), "g": 1.0}
    y = engine.module_forward(module, inputs)
    assert_engine_gives(
        evaluate(spec_row["forward"], bindings), float(y[0, 0]), rel=1e-12, abs=1e-12, what="y"
    )
    engine.module_sgd_step(module, inputs, LEARNING_RATE)
    moved = (np.array([w0, w1]) - named_state(engine, module, "mlp")[f"{LAYER}.weight"][0]) / LEARNING_RATE
    expected = [evaluate(spec_row["grads"][name], bindings) for name in ("w0", "w1")]
    assert_engine_gives(expected, moved.tolist(), rel=1e-9, abs=1e-12, what="∂y/∂w")


# ---------------------------------------------------------------- the init contract on the engine


@pytest.mark.spec("S07.init.output-variance", "S07.rule.init-statistical")
def test_port_output_variance(engine: Engine, statistical_samples: int) -> None:
    """Fixed x, 4096 output rows (--statistical-samples) of the engine's Linear initialised with the
    spec's InitSpec: Var(y_o) = C_in·Var(W)·mean(x²) within the statistical tolerance."""
    require(engine, "module.linear", "S07.init.output-variance")
    require(engine, "module.init", "S07.init.output-variance")
    x = np.array([[1.0, -2.0, 0.5, 3.0]])
    fan_in = x.shape[1]
    var_w = float(spec_value("S07.init.variance-standard", gain=1.0, Cin=fan_in))
    target = float(
        spec_value("S07.init.output-variance", Cin=fan_in, var_w=var_w, var_x=float(np.mean(x**2)))
    )
    for seed in OUTPUT_SEEDS:
        spec = InitSpec("normal", 1.0, seed)
        make = functools.partial(engine.module_linear, fan_in, statistical_samples, False, spec)
        module = build(engine, make)
        observed = sample_variance(engine.module_forward(module, x)[0].tolist())
        bound = tolerance("normal", target, statistical_samples, CHECKS, FALSE_FAILURE)
        assert abs(observed - target) <= bound, f"seed {seed}: s² = {observed}, target {target}"


@pytest.mark.spec("S07.rule.init-deterministic")
@given(widths=s.deep_widths, other=s.layer_width, seed=st.integers(0, 2**31), data=st.data())
def test_port_init_depends_only_on_seed_and_position(
    engine: Engine, widths: list[int], other: int, seed: int, data: st.DataObject
) -> None:
    """The engine's MLP with the spec's InitSpec: built twice, the same values; a layer's values do not
    change when another layer's width or the model's depth changes; another seed changes them."""
    require(engine, "module.mlp", "S07.rule.init-deterministic")
    require(engine, "module.init", "S07.rule.init-deterministic")
    distribution = data.draw(st.sampled_from(["normal", "uniform"]))

    def weights(sizes: list[int], at: int = seed) -> dict[str, np.ndarray]:
        module = build_or_reject(
            engine, lambda: engine.module_mlp(sizes, False, InitSpec(distribution, 1.0, at))
        )
        return named_state(engine, module, "mlp")

    first = weights(widths)
    again = weights(widths)
    assert all(np.array_equal(first[name], again[name]) for name in first)
    fc = f"{MODEL}.fc{{}}.weight"
    # fc1 (standard) and fc2 (He) keep their values whatever the widths after them and the depth
    shorter = weights(widths[:2])
    np.testing.assert_array_equal(first[fc.format(1)], shorter[fc.format(1)])
    wider_last = weights([*widths[:-1], widths[-1] + other])
    for index in range(1, len(widths) - 1):
        np.testing.assert_array_equal(first[fc.format(index)], wider_last[fc.format(index)])
    other_first = weights([widths[0] + other, *widths[1:]])
    for index in range(2, len(widths)):
        np.testing.assert_array_equal(first[fc.format(index)], other_first[fc.format(index)])
    changed = weights(widths, seed + 1)
    assert not np.array_equal(first[fc.format(1)], changed[fc.format(1)])

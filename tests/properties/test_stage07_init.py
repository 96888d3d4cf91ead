"""Stage 07 properties: InitSpec targets, determinism and the statistics of its draws.

Statistical checks. Each check compares the sample variance s² of n = 4096 draws with its target
σ². The tolerance is z·sd(s²), where Var(s²) = 2σ⁴/(n-1) for normal draws and
μ4/n - σ⁴(n-3)/(n(n-1)) with μ4 = 9σ⁴/5 for uniform draws. z = Φ⁻¹(1 - α/(2m)) for the whole
family of m checks in this module (Bonferroni), with α = 1e-6, plus a Cornish-Fisher term
(z² - 1)·γ/6 for the skewness γ of s² (chi-square-like right tail). So the probability that any
check in this module fails for a correct initializer is at most about 1e-6, under the normal
approximation of s², which is accurate at n = 4096. The seeds are fixed, so each run is
deterministic.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from contracts import Matrix
from contracts.engines import Engine
from contracts.init import InitSpec
from contracts.linear import LinearPlan
from contracts.model import ModelPlan
from contracts.spec import SpecRow, evaluate
from tests import strategies as s
from tests.spec_rows import OWN_TYPES, params, reference_only, require, rows
from tests.stage07_cases import sample_variance, spec_value, tolerance

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

VARIANCE_ROW = {"standard": "S07.init.variance-standard", "relu": "S07.init.variance-relu"}
ROLE_OF = {row_id: role for role, row_id in VARIANCE_ROW.items()}

FAN_IN = 64  # the seed's C_in; a (64, 64) weight holds its 4096 samples
SAMPLES = FAN_IN * FAN_IN
SEEDS_AND_GAINS = ((3, 1.0), (17, 1.0), (2024, 1.5), (31337, 0.5), (99991, 2.0))
DISTRIBUTIONS = ("normal", "uniform")
OUTPUT_SEEDS = (5, 77, 4242)
OUTPUT_ROWS = 4096
CHECKS = len(SEEDS_AND_GAINS) * len(DISTRIBUTIONS) * len(VARIANCE_ROW) + len(OUTPUT_SEEDS)
FALSE_FAILURE = 1e-6  # for the whole module's family of CHECKS statistical checks


@pytest.mark.parametrize("spec_row", params(rows(prefix="S07.init.variance")))
@given(data=st.data())
def test_target_variance_equals_the_spec(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """For random gain and C_in, InitSpec.variance for the row's role equals the spec's target."""
    require(engine, "linear", spec_row.id)
    symbols = data.draw(s.symbol_values(spec_row["symbols"]))
    expected = evaluate(spec_row["expr"], symbols)
    spec = InitSpec(gain=symbols["gain"], role=ROLE_OF[spec_row.id])
    assert expected == pytest.approx(spec.variance(symbols["Cin"]), rel=1e-12)


@pytest.mark.spec("S07.rule.init-statistical", "S07.init.variance-standard", "S07.init.variance-relu")
@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("role", sorted(VARIANCE_ROW))
def test_sample_variance_is_within_the_statistical_tolerance(
    engine: Engine, role: str, distribution: str
) -> None:
    """4096 weights (C_in = 64) per fixed seed: |s² - target| <= z·sd(s²); family error <= 1e-6."""
    require(engine, "linear")
    for seed, gain in SEEDS_AND_GAINS:
        target = float(spec_value(VARIANCE_ROW[role], gain=gain, Cin=FAN_IN))
        init = InitSpec(distribution, gain, seed, role)
        layer = LinearPlan("probe", FAN_IN, FAN_IN, init=init).materialize()
        observed = sample_variance([v.data for v in layer.weight.values()])
        bound = tolerance(distribution, target, SAMPLES, CHECKS, FALSE_FAILURE)
        assert abs(observed - target) <= bound, (
            f"seed {seed}, gain {gain}: s² = {observed}, target {target}, tolerance {bound}"
        )


@pytest.mark.spec("S07.init.output-variance", "S07.rule.init-statistical")
def test_output_variance_is_cin_times_weight_variance_times_input_power(engine: Engine) -> None:
    """Fixed x, 4096 output rows: Var(y_o) = C_in·Var(W)·mean(x²) within the statistical tolerance."""
    require(engine, "linear")
    x = [1.0, -2.0, 0.5, 3.0]
    fan_in = len(x)
    var_x = sum(v * v for v in x) / fan_in
    var_w = float(spec_value("S07.init.variance-standard", gain=1.0, Cin=fan_in))
    target = float(spec_value("S07.init.output-variance", Cin=fan_in, var_w=var_w, var_x=var_x))
    for seed in OUTPUT_SEEDS:
        layer = LinearPlan("probe", fan_in, OUTPUT_ROWS, init=InitSpec("normal", 1.0, seed)).materialize()
        outputs = layer.forward(Matrix([x])).data()[0]
        observed = sample_variance(outputs)
        bound = tolerance("normal", target, OUTPUT_ROWS, CHECKS, FALSE_FAILURE)
        assert abs(observed - target) <= bound, f"seed {seed}: s² = {observed}, target {target}"


@pytest.mark.spec("S07.rule.init-deterministic")
@given(widths=s.mlp_widths, init=s.init_spec_args, data=st.data())
def test_values_depend_only_on_seed_and_position(
    engine: Engine, widths: list[int], init: dict[str, Any], data: st.DataObject
) -> None:
    """In a model, alone, or drawn in any call order: a position's value is the same."""
    require(engine, "linear")
    model = ModelPlan.mlp(widths, init=InitSpec(**init)).materialize()
    for layer in model.layers:
        plan = layer.plan
        alone = LinearPlan(plan.name, plan.in_features, plan.out_features, init=plan.init).materialize()
        assert layer.weight.data() == alone.weight.data()
        draw = plan.init.initializer(plan.in_features)
        positions = [(o, i) for o in range(plan.out_features) for i in range(plan.in_features)]
        shuffled = data.draw(st.permutations(positions))
        drawn = {(o, i): draw(plan.weight_tensor(), o, i) for o, i in shuffled}
        assert [[drawn[(o, i)] for i in range(plan.in_features)] for o in range(plan.out_features)] == (
            layer.weight.data()
        )


@pytest.mark.spec("S07.rule.init-deterministic")
@given(widths=s.mlp_widths, init=s.init_spec_args, other=st.integers(0, 2**32))
def test_a_different_seed_gives_different_values(
    engine: Engine, widths: list[int], init: dict[str, Any], other: int
) -> None:
    """Changing only the seed changes the weights; changing nothing reproduces them exactly."""
    require(engine, "linear")
    assume(other != init["seed"])
    first = [
        layer.weight.data() for layer in ModelPlan.mlp(widths, init=InitSpec(**init)).materialize().layers
    ]
    again = [
        layer.weight.data() for layer in ModelPlan.mlp(widths, init=InitSpec(**init)).materialize().layers
    ]
    changed = InitSpec(**{**init, "seed": other})
    second = [layer.weight.data() for layer in ModelPlan.mlp(widths, init=changed).materialize().layers]
    assert first == again
    assert first != second

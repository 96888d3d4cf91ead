"""Stage 07 properties: InitSpec targets, determinism and the statistics of its draws.

Statistical checks. Each check compares the sample variance s² of n draws with its target σ². The
tolerance is z·sd(s²), where Var(s²) = 2σ⁴/(n-1) for normal draws and μ4/n - σ⁴(n-3)/(n(n-1)) with
μ4 = 9σ⁴/5 for uniform draws. z = Φ⁻¹(1 - α/(2m)) for the whole family of m checks in this module
(Bonferroni), with α = 1e-6, plus a Cornish-Fisher term (z² - 1)·γ/6 for the skewness γ of s²
(chi-square-like right tail). So the probability that any check in this module fails for a correct
initializer is at most about 1e-6, under the normal approximation of s². The seeds are fixed, so each
run is deterministic.

Power. The checks must also catch a 5 % scale error in the drawn weights (W·(1 ± 0.05), so
σ₁² = (1 ± 0.05)²σ², a variance shift of +10.25 % or -9.75 %) with probability >= 0.99. Under the same
normal approximation, s² of the wrong initializer is N(σ₁², Var(s²; σ₁², n)), and a check rejects it
with probability >= Φ((|σ₁² - σ²| - t(n)) / sd(s²; σ₁², n)), where t(n) is the tolerance above. That
is >= 0.99 when |σ₁² - σ²| >= t(n) + z₀.₉₉·sd₁, i.e. for normal draws (t ≈ z·σ²·sqrt(2/n))
    sqrt(n) >= sqrt(2)·(z + 1.1025·z₀.₉₉) / 0.1025 ≈ sqrt(2)·(5.5 + 1.1025·2.326) / 0.1025 ≈ 112,
so n >= about 12,600 (uniform draws need fewer: Var(s²) ≈ 0.8σ⁴/n). Solved exactly: normal 12,684
(+5 %) and 12,469 (-5 %), uniform 4,980 and 4,889; the former n = 4096 caught a normal +5 % error with
probability 0.17 only. `required_samples` solves the
exact inequality (with the Cornish-Fisher term) for both distributions and both signs of the error;
the module draws SAMPLES = 64·256 = 16,384 weights per check (C_in stays the seed's 64: a (256, 64)
weight), and test_samples_give_the_required_power asserts that this is enough.
test_a_five_percent_scale_error_is_rejected plants the error (a scaled initializer) and asserts
every check rejects it.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from contracts import Matrix
from contracts.core.init import Initializer, InitSpec
from contracts.core.linear import LinearPlan
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import (
    assert_centred,
    sample_variance,
    spec_value,
    tolerance,
    variance_of_sample_variance,
)
from contracts.spec_suite.spec_rows import OWN_TYPES, params, reference_only, require, row, rows

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

VARIANCE_ROW = {"standard": "S07.init.variance-standard", "relu": "S07.init.variance-relu"}
ROLE_OF = {row_id: role for role, row_id in VARIANCE_ROW.items()}

FAN_IN = 64  # the seed's C_in
OUT_ROWS = 256  # a (256, 64) weight holds SAMPLES draws of one C_in = 64 layer
SAMPLES = FAN_IN * OUT_ROWS
SCALE_ERROR = 0.05  # a 5 % error in the weights' scale must be caught ...
POWER = 0.99  # ... with at least this probability per check
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
    # the planner's target, exactly: the executor's draws are compared statistically (init-statistical)
    measured = {"planner": pytest.approx(spec.variance(symbols["Cin"]), rel=1e-12)}
    assert {kind: expected for kind in spec_row["compared_with"]} == {
        kind: measured[kind] for kind in spec_row["compared_with"]
    }


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
        draws = drawn(init)
        observed = sample_variance(draws)
        bound = tolerance(distribution, target, SAMPLES, CHECKS, FALSE_FAILURE)
        assert abs(observed - target) <= bound, (
            f"seed {seed}, gain {gain}: s² = {observed}, target {target}, tolerance {bound}"
        )
        assert_centred(draws, target, CHECKS, FALSE_FAILURE, f"seed {seed}, gain {gain}")


def drawn(init: InitSpec, initializer: Initializer | None = None) -> list[float]:
    """The SAMPLES weights a (OUT_ROWS, FAN_IN) layer materializes."""
    layer = LinearPlan("probe", FAN_IN, OUT_ROWS, init=init).materialize(initializer)
    return [v.data for v in layer.weight.values()]


def drawn_variance(init: InitSpec, initializer: Initializer | None = None) -> float:
    """s² of the SAMPLES weights a (OUT_ROWS, FAN_IN) layer materializes."""
    return sample_variance(drawn(init, initializer))


def rejection_probability(distribution: str, scale: float, n: int) -> float:
    """P(|s² - σ²| > t(n)) for weights scaled by `scale`, under the normal approximation of s²."""
    target = 1.0  # the ratio is scale-free: take σ² = 1
    wrong = scale * scale * target
    bound = tolerance(distribution, target, n, CHECKS, FALSE_FAILURE)
    spread = math.sqrt(variance_of_sample_variance(distribution, wrong, n))
    normal = NormalDist(wrong, spread)
    return normal.cdf(target - bound) + 1.0 - normal.cdf(target + bound)


def required_samples(distribution: str, scale: float) -> int:
    """The smallest n whose check rejects weights scaled by `scale` with probability >= POWER."""
    low, high = 2, 2
    while rejection_probability(distribution, scale, high) < POWER:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (
            (middle, high) if rejection_probability(distribution, scale, middle) < POWER else (low, middle)
        )
    return high


@pytest.mark.spec("S07.rule.init-statistical")
@pytest.mark.parametrize("scale", [1.0 + SCALE_ERROR, 1.0 - SCALE_ERROR])
@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_samples_give_the_required_power(engine: Engine, distribution: str, scale: float) -> None:
    """SAMPLES draws are enough to reject a 5 % scale error with probability >= 0.99 at the same z."""
    require(engine, "linear")
    needed = required_samples(distribution, scale)
    assert needed <= SAMPLES, f"{distribution}, scale {scale}: needs n >= {needed}, draws {SAMPLES}"
    assert POWER <= rejection_probability(distribution, scale, SAMPLES)
    assert POWER > rejection_probability(distribution, scale, needed - 1)


@pytest.mark.spec("S07.rule.init-statistical")
@pytest.mark.parametrize("scale", [1.0 + SCALE_ERROR, 1.0 - SCALE_ERROR])
@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
@pytest.mark.parametrize("role", sorted(VARIANCE_ROW))
def test_a_five_percent_scale_error_is_rejected(
    engine: Engine, role: str, distribution: str, scale: float
) -> None:
    """A planted error (every drawn weight scaled by 1 ± 5 %) puts s² outside the tolerance."""
    require(engine, "linear")
    seed, gain = SEEDS_AND_GAINS[0]
    init = InitSpec(distribution, gain, seed, role)
    correct = init.initializer(FAN_IN)

    def scaled(tensor: str, row: int, col: int) -> float:
        value = correct(tensor, row, col)
        assert isinstance(value, float)
        return scale * value

    target = float(spec_value(VARIANCE_ROW[role], gain=gain, Cin=FAN_IN))
    bound = tolerance(distribution, target, SAMPLES, CHECKS, FALSE_FAILURE)
    observed = drawn_variance(init, scaled)
    assert abs(observed - target) > bound, (
        f"scale {scale}: s² = {observed}, target {target}, tolerance {bound}"
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
        measured = {"executor": sample_variance(outputs)}  # the forward's outputs: no planner count
        bound = tolerance("normal", target, OUTPUT_ROWS, CHECKS, FALSE_FAILURE)
        for kind in row("S07.init.output-variance")["compared_with"]:
            assert abs(measured[kind] - target) <= bound, f"seed {seed}: {kind} s² = {measured[kind]}"


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

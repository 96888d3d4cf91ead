"""T.rule.tolerance: an engine's numbers are judged with the tolerance of the dtype it declares."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.tensor import gradient_row
from contracts.spec_suite.spec_rows import (
    FLOAT64,
    TOLERANCE_ROW,
    assert_engine_gives,
    reference_only,
    require,
    row,
    tolerance_for,
)

RULE = row(TOLERANCE_ROW)
DTYPES = ("float64", "float32")
JUDGING = "the tolerance rule is how this suite judges an engine's numbers, not something an engine computes"


@reference_only(JUDGING)
@pytest.mark.spec(TOLERANCE_ROW)
@pytest.mark.parametrize("comparison", sorted(RULE["tolerances"]))
@pytest.mark.parametrize("dtype", DTYPES)
@given(x=st.floats(-1e6, 1e6).filter(lambda v: abs(v) >= 1e-3), sign=st.sampled_from([-1.0, 1.0]))
def test_a_dtype_tolerance_admits_its_rounding_and_refuses_twice_the_allowance(
    engine: Engine, dtype: str, comparison: str, x: float, sign: float
) -> None:
    """x rounded to the dtype (what an engine of that dtype holds) is accepted against x; an error of
    twice the allowed rel * |x| + abs is refused."""
    within = tolerance_for(dtype, comparison)
    rounded = float(np.dtype(dtype).type(x))
    assert_engine_gives(x, rounded, **within)
    off = x + sign * 2 * (within["rel"] * abs(x) + within["abs"])
    with pytest.raises(AssertionError, match="engine gave"):
        assert_engine_gives(x, off, **within)


# Each float64 tolerance between the errors it must admit and the faults it must refuse, worked by hand:
# (comparison, spec value, engine value, admitted). At 1e3 the rel part decides, at 0 the abs part.
# A tolerance 1024 times looser admits the refused fault; 1024 times tighter refuses the admitted error.
CALIBRATION = {
    "value: 64 ulps, two kernels' rounding": ("value", 1e3, 1e3 * (1 + 2**-46), True),
    "value: 1.5e-11, an approximate kernel": ("value", 1e3, 1e3 * (1 + 2**-36), False),
    "value: 1e-14 residue of a cancellation at 0": ("value", 0.0, 1e-14, True),
    "value: 1e-10 at 0, a term left over": ("value", 0.0, 1e-10, False),
    "gradient: 1.5e-11, a longer backward path": ("gradient", 1e3, 1e3 * (1 + 2**-36), True),
    "gradient: 1.5e-8, a float32 step": ("gradient", 1e3, 1e3 * (1 + 2**-26), False),
    "gradient: 1e-14 residue at 0": ("gradient", 0.0, 1e-14, True),
    "gradient: 1e-10 at 0, a term left over": ("gradient", 0.0, 1e-10, False),
    "example: 64 ulps": ("example", 1e3, 1e3 * (1 + 2**-46), True),
    "example: 1.5e-11, an approximate kernel": ("example", 1e3, 1e3 * (1 + 2**-36), False),
    "central: 2.4e-7, the difference's truncation": ("central", 1e3, 1e3 * (1 + 2**-22), True),
    "central: 2.4e-4, a slightly wrong gradient": ("central", 1e3, 1e3 * (1 + 2**-12), False),
    "central: 1e-8 at 0, cancellation in the difference": ("central", 0.0, 1e-8, True),
    "central: 1e-4 at 0, a small wrong gradient": ("central", 0.0, 1e-4, False),
}


def admitted(comparison: str, spec_says: float, engine_gave: float) -> bool:
    try:
        assert_engine_gives(spec_says, engine_gave, **tolerance_for(FLOAT64, comparison))
    except AssertionError:
        return False
    return True


@reference_only(JUDGING)
@pytest.mark.spec(TOLERANCE_ROW)
@pytest.mark.parametrize(
    ("comparison", "spec_says", "engine_gave", "verdict"), CALIBRATION.values(), ids=CALIBRATION
)
def test_each_float64_tolerance_admits_rounding_and_refuses_a_fault(
    engine: Engine, comparison: str, spec_says: float, engine_gave: float, verdict: bool
) -> None:
    """Each float64 tolerance admits the rounding a correct engine shows and refuses the smallest fault
    of its kind, so neither a looser nor a tighter tolerance judges engines the same."""
    assert verdict == admitted(comparison, spec_says, engine_gave)


@reference_only(JUDGING)
@pytest.mark.spec(TOLERANCE_ROW)
@given(x=st.floats(1.0, 2.0).filter(lambda v: abs(float(np.float32(v)) - v) > 1e-8))
def test_float32_rounding_fails_every_float64_tolerance(engine: Engine, x: float) -> None:
    """A float32 rounding error far above float64's (> 1e-8 at |x| <= 2) fails each float64 comparison
    but the central differences' (1e-5): float64 tolerances are too tight for a float32 engine."""
    rounded = float(np.float32(x))
    refused = []
    for comparison in sorted(RULE["tolerances"]):
        try:
            assert_engine_gives(x, rounded, **tolerance_for(FLOAT64, comparison))
        except AssertionError:
            refused.append(comparison)
    assert ["example", "gradient", "value"] == refused


@pytest.mark.spec(TOLERANCE_ROW)
@given(data=st.data())
def test_the_engine_returns_numbers_of_its_declared_dtype(engine: Engine, data: st.DataObject) -> None:
    """Every value and gradient the engine returns is a number of the dtype it declares (it equals itself
    rounded to that dtype): an engine declaring float32 for looser tolerances must compute in float32."""
    require(engine, "tensor.multiply", TOLERANCE_ROW)
    spec_row = gradient_row("multiply")
    case = data.draw(s.tensor_case("multiply", spec_row["domain"]))
    value, grads = engine.tensor_vjp("multiply", case["inputs"], case["upstream"])
    kind = np.dtype(engine.dtype).type
    for number in (value, *grads):
        assert np.asarray(number).tolist() == np.asarray(number).astype(kind).astype(np.float64).tolist()

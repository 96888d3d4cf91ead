"""S07.fail.input-non-finite and S07.fail.input-data-type: the guarded forward reads its input's data once,
row-major, and names the first offender."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import forward_module, input_matrix
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require
from contracts.spec_suite.strategies.forward_bound import input_data_case

pytestmark = reference_only(OWN_TYPES)

KINDS = {"type": (s.not_a_float_datum, TypeError), "non-finite": (s.non_finite_float, ValueError)}


@pytest.mark.spec("S07.fail.input-non-finite", "S07.fail.input-data-type")
@given(
    case=input_data_case(st.just(0.0)).filter(lambda c: c["tokens"] * c["widths"][0] >= 2),
    kinds=st.permutations(sorted(KINDS)),
    data=st.data(),
)
def test_of_two_bad_input_data_the_first_in_row_major_order_is_named(
    engine: Engine, case: dict[str, Any], kinds: list[str], data: st.DataObject
) -> None:
    """Two input elements assigned bad data: the refusal is the earlier one's in row-major order (its row's
    exception, its position, its value), whichever kind each is."""
    require(engine, "linear")
    module, _ = forward_module(case)
    width = case["widths"][0]
    flat = data.draw(
        st.lists(st.integers(0, case["tokens"] * width - 1), min_size=2, max_size=2, unique=True)
    )
    first, second = sorted(flat)
    x = input_matrix(case["tokens"], width)
    bad = [data.draw(KINDS[kind][0]) for kind in kinds]
    for position, value in zip((first, second), bad, strict=True):
        x.rows[position // width][position % width].data = value
    with pytest.raises(KINDS[kinds[0]][1]) as refused:
        module.forward(x)
    assert f"input x[{first // width}][{first % width}] must be" in str(refused.value)
    assert f"got {bad[0]!r}" in str(refused.value)

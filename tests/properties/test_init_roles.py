"""S07.fail.init-role: ModelPlan holds explicit layers to the role their input's activation asks for."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contracts.core.init import InitSpec
from contracts.core.linear import LinearPlan
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require

pytestmark = reference_only(OWN_TYPES)

ROLES = st.sampled_from(["standard", "relu"])


def explicit(widths: list[int], roles: list[str]) -> list[LinearPlan]:
    pairs = itertools.pairwise(widths)
    return [
        LinearPlan(f"fc{k + 1}", a, b, init=InitSpec(role=role))
        for k, ((a, b), role) in enumerate(zip(pairs, roles, strict=True))
    ]


@pytest.mark.spec("S07.fail.init-role", "S07.rule.layer-roles")
@given(widths=s.mlp_widths, first=ROLES, data=st.data())
def test_the_first_layer_role_is_the_callers_every_later_one_is_relu(
    engine: Engine, widths: list[int], first: str, data: st.DataObject
) -> None:
    """Either role is accepted for the first layer (the plan does not see what feeds it); after a ReLU only
    relu is, and a refusal names the first layer after a ReLU whose role is standard."""
    require(engine, "linear")
    depth = len(widths) - 1
    roles: list[Any] = [first, *data.draw(st.lists(ROLES, min_size=depth - 1, max_size=depth - 1))]
    misroled = [k for k in range(1, depth) if roles[k] != "relu"]
    if not misroled:
        plan = ModelPlan(explicit(widths, roles))
        assert roles == [layer.init.role for layer in plan.layers]
        return
    with pytest.raises(ValueError, match="init role must be 'relu'") as refused:
        ModelPlan(explicit(widths, roles))
    expected = (
        f"ModelPlan: layer 'fc{misroled[0] + 1}' init role must be 'relu' (its input comes through a ReLU), "
        "got 'standard'"
    )
    assert expected == str(refused.value)

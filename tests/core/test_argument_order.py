"""Constructor check order beyond Stage 07's plans: of two invalid arguments, the earlier one is named.

The order of each constructor is decided in S08.order.block-plan's note (RMSNormPlan, BlockPlan, Block)
and S07.order.model-plan's note (ModelPlan, MLP, Embedding). Each case is a pair of faults: the call
with both must say exactly what the earlier fault alone says, and the later fault alone says something
else (so the pair is real and a swapped check would change the message).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest

from contracts import Matrix, Vector
from contracts.core.block import Block, BlockPlan, RMSNormPlan
from contracts.core.embedding import Embedding, EmbeddingPlan
from contracts.core.init import InitSpec
from contracts.core.linear import LinearPlan
from contracts.core.model import MLP, ModelPlan

Call = Callable[[], object]
bad: Any = 7  # an argument of the wrong type for every parameter below
NAN = float("nan")


def mlp_plan() -> ModelPlan:
    return ModelPlan.mlp([2, 3, 2], name="block.mlp")


def block_plan() -> BlockPlan:
    return BlockPlan(RMSNormPlan(2), mlp_plan())


def gain(width: int = 2) -> Vector:
    return Vector([1.0] * width)


def block_of(**replaced: Any) -> Block:
    """Block(plan, gain, mlp) from one valid plan, its (C,) gain and an MLP of its own ModelPlan, with the
    replaced arguments: every other argument is valid, so each fault is alone where the case says so."""
    plan = block_plan()
    return Block(**{"plan": plan, "gain": gain(), "mlp": plan.mlp.materialize(), **replaced})


def unconnected(role: str = "relu") -> list[LinearPlan]:
    """fc1 2 -> 3 and fc2 4 -> 2 (widths that do not connect), fc2 of the given init role."""
    return [LinearPlan("fc1", 2, 3), LinearPlan("fc2", 4, 2, init=InitSpec(role=role))]


def misroled() -> list[LinearPlan]:
    """fc1 2 -> 3 and fc2 3 -> 2 (connected), fc2 of role standard though a ReLU feeds it."""
    return [LinearPlan("fc1", 2, 3), LinearPlan("fc2", 3, 2)]


def embedding_plan() -> EmbeddingPlan:
    return EmbeddingPlan(3, 2, 2)


def table(rows: int) -> Matrix:
    return Matrix([[0.5, 0.5]] * rows)


# (both faults, the earlier fault alone, the later fault alone)
PAIRS = [
    pytest.param(
        lambda: RMSNormPlan(0, name=" "),
        lambda: RMSNormPlan(2, name=" "),
        lambda: RMSNormPlan(0),
        id="norm-name-width",
    ),
    pytest.param(
        lambda: RMSNormPlan(0, 0.0), lambda: RMSNormPlan(0), lambda: RMSNormPlan(2, 0.0), id="norm-width-eps"
    ),
    pytest.param(
        lambda: RMSNormPlan(2, 0.0, NAN),
        lambda: RMSNormPlan(2, 0.0),
        lambda: RMSNormPlan(2, gain_init=NAN),
        id="norm-eps-gain_init",
    ),
    pytest.param(
        lambda: BlockPlan(bad, mlp_plan(), " "),
        lambda: BlockPlan(RMSNormPlan(2), mlp_plan(), " "),
        lambda: BlockPlan(bad, mlp_plan()),
        id="block-plan-name-norm",
    ),
    pytest.param(
        lambda: BlockPlan(bad, bad),
        lambda: BlockPlan(bad, mlp_plan()),
        lambda: BlockPlan(RMSNormPlan(2), bad),
        id="block-plan-norm-mlp",
    ),
    pytest.param(
        lambda: BlockPlan(RMSNormPlan(3), mlp_plan(), parameter_budget=-1),
        lambda: BlockPlan(RMSNormPlan(3), mlp_plan()),
        lambda: BlockPlan(RMSNormPlan(2), mlp_plan(), parameter_budget=-1),
        id="block-plan-widths-budget",
    ),
    pytest.param(
        lambda: block_of(plan=bad, gain=bad),
        lambda: block_of(plan=bad),
        lambda: block_of(gain=bad),
        id="block-plan-gain",
    ),
    pytest.param(
        lambda: block_of(gain=gain(3), mlp=bad),
        lambda: block_of(gain=gain(3)),
        lambda: block_of(mlp=bad),
        id="block-gain-mlp",
    ),
    pytest.param(
        lambda: ModelPlan([bad], " "),
        lambda: ModelPlan(mlp_plan().layers, " "),
        lambda: ModelPlan([bad]),
        id="model-plan-name-layers",
    ),
    pytest.param(
        lambda: ModelPlan(unconnected(), parameter_budget=cast(Any, "9")),
        lambda: ModelPlan(unconnected()),
        lambda: ModelPlan(mlp_plan().layers, parameter_budget=cast(Any, "9")),
        id="model-plan-connections-budget",
    ),
    pytest.param(
        lambda: ModelPlan(unconnected("standard")),
        lambda: ModelPlan(unconnected()),
        lambda: ModelPlan(misroled()),
        id="model-plan-widths-roles",
    ),
    pytest.param(
        lambda: ModelPlan(misroled(), parameter_budget=cast(Any, "9")),
        lambda: ModelPlan(misroled()),
        lambda: ModelPlan(mlp_plan().layers, parameter_budget=cast(Any, "9")),
        id="model-plan-roles-budget",
    ),
    pytest.param(
        lambda: MLP(bad, [bad]),
        lambda: MLP(bad, mlp_plan().materialize().layers),
        lambda: MLP(mlp_plan(), [bad]),
        id="mlp-plan-layers",
    ),
    pytest.param(
        lambda: Embedding(bad, bad, table(2)),
        lambda: Embedding(bad, table(3), table(2)),
        lambda: Embedding(embedding_plan(), bad, table(2)),
        id="embedding-plan-token",
    ),
    pytest.param(
        lambda: Embedding(embedding_plan(), bad, bad),
        lambda: Embedding(embedding_plan(), bad, table(2)),
        lambda: Embedding(embedding_plan(), table(3), bad),
        id="embedding-token-position",
    ),
    pytest.param(
        lambda: Embedding(embedding_plan(), table(4), table(1)),
        lambda: Embedding(embedding_plan(), table(4), table(2)),
        lambda: Embedding(embedding_plan(), table(3), table(1)),
        id="embedding-token-shape-position-shape",
    ),
]


def refusal(call: Call) -> str:
    """The message of the refusal the call raises (it must raise)."""
    with pytest.raises(Exception) as refused:  # noqa: PT011 (any refusal: the message says which)
        call()
    return f"{type(refused.value).__name__}: {refused.value}"


@pytest.mark.parametrize(("both", "earlier", "later"), PAIRS)
def test_two_invalid_arguments_are_refused_as_the_earlier_alone(
    both: Call, earlier: Call, later: Call
) -> None:
    """With two faults the refusal is exactly the earlier fault's own refusal, not the later one's."""
    expected = refusal(earlier)
    assert expected != refusal(later)
    assert expected == refusal(both)

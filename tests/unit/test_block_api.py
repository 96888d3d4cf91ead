"""The block's API details no spec row covers: constructor arguments, repr, the input relation."""

from __future__ import annotations

import pytest

from contracts import CountingValue, Matrix, Vector
from contracts.block import Block, BlockPlan, RMSNormPlan
from contracts.errors import ShapeError
from contracts.model import ModelPlan


def small_block() -> Block:
    return BlockPlan.rmsnorm_mlp([2, 3, 2], 0.25).materialize(value_type=CountingValue)


def test_block_plan_refuses_arguments_of_the_wrong_type() -> None:
    """BlockPlan takes an RMSNormPlan and a ModelPlan, nothing else, naming what it got."""
    mlp = ModelPlan.mlp([2, 3, 2])
    with pytest.raises(TypeError, match=r"^BlockPlan: norm must be an RMSNormPlan, got 2 \(int\)$"):
        BlockPlan(2, mlp)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^BlockPlan: mlp must be a ModelPlan, got \[2, 3, 2\] \(list\)$"):
        BlockPlan(RMSNormPlan(2), [2, 3, 2])  # type: ignore[arg-type]


def test_block_binds_only_its_own_storage() -> None:
    """Block(plan, gain, mlp) refuses a non-BlockPlan, a non-Vector gain, a wrong-length gain, another MLP."""
    block = small_block()
    plan, gain, mlp = block.plan, block.gain, block.mlp
    other = ModelPlan.mlp([2, 3, 2], name="block.mlp").materialize()
    with pytest.raises(TypeError, match=r"^Block: plan must be a BlockPlan, got None \(NoneType\)$"):
        Block(None, gain, mlp)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Block: gain must be a Vector, got \[1\.0, 1\.0\] \(list\)$"):
        Block(plan, [1.0, 1.0], mlp)  # type: ignore[arg-type]
    shape_message = r"^Block: gain shape must equal the norm's \(C,\) = \(2,\), got \(3,\)$"
    with pytest.raises(ShapeError, match=shape_message):
        Block(plan, Vector([1.0, 1.0, 1.0]), mlp)
    mlp_message = r"^Block: mlp must be an MLP built from the plan's ModelPlan, got MLP"
    with pytest.raises(TypeError, match=mlp_message):
        Block(plan, gain, other)


def test_block_forward_names_the_norm_on_a_wrong_input_width() -> None:
    """The block's input relation is the norm's width: a (1, 3) input is refused naming layer 'norm'."""
    block = small_block()
    counter = CountingValue.reset()
    with pytest.raises(
        ShapeError, match=r"^Block\.forward: input width 3 must equal in_features C_in = 2 of layer 'norm'"
    ):
        block.forward(Matrix([[1.0, 2.0, 3.0]], CountingValue))
    assert 0 == counter.operations


def test_reprs_widths_and_parameters() -> None:
    """repr shows the norm's config and the MLP; width() is C; parameters() are the sealed Values in order."""
    block = small_block()
    norm = "RMSNormPlan(2, eps=0.25, gain_init=1.0, name='norm')"
    assert norm == repr(block.plan.norm)
    assert repr(block.plan) == f"BlockPlan({norm}, {block.plan.mlp!r}, name='block')"
    assert f"Block({block.plan!r})" == repr(block)
    assert 2 == block.plan.width()
    assert [ref.value for ref in block.seal.refs] == list(block.parameters())

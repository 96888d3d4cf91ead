"""The block's API details no spec row covers: constructor arguments, repr, the input relation."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from contracts import CountingValue, Matrix, Vector
from contracts.core.block import Block, BlockPlan, RMSNormPlan
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.core.init import InitSpec
from contracts.core.model import ModelPlan


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
    with pytest.raises(TypeError, match=r"^Block: plan must be a BlockPlan, got 7 \(int\)$"):
        Block(7, gain, mlp)  # type: ignore[arg-type]
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


def nan_initializer(*_: object) -> float:
    return float("nan")


def alias_gain_to_a_weight() -> object:
    """A Block whose first gain is the MLP's first weight: refused when the seal is made."""
    block = small_block()
    weight = next(iter(block.mlp.layers[0].weight.values()))
    return Block(block.plan, Vector.trusted((weight, *block.gain.values[1:])), block.mlp)


# Each refusal names the entry point it was refused at, the argument and the offending value.
REFUSALS = {
    "block-plan-budget": (
        lambda: BlockPlan(RMSNormPlan(2), ModelPlan.mlp([2, 3, 2]), parameter_budget=-1),
        ValueError,
        r"^BlockPlan: budget must be >= 0, got -1$",
    ),
    "block-plan-name": (
        lambda: BlockPlan(RMSNormPlan(2), ModelPlan.mlp([2, 3, 2]), name=5),  # type: ignore[arg-type]
        TypeError,
        r"^BlockPlan: name must be a non-blank str, got 5 \(int\)$",
    ),
    "rmsnorm_mlp-widths": (
        lambda: BlockPlan.rmsnorm_mlp([2]),
        ValueError,
        r"^BlockPlan\.rmsnorm_mlp: widths must hold >= 2 sizes \(input and output\), got 1$",
    ),
    "rmsnorm_mlp-name": (
        lambda: BlockPlan.rmsnorm_mlp([2, 3, 2], name=5),  # type: ignore[arg-type]
        TypeError,
        r"^BlockPlan\.rmsnorm_mlp: name must be a non-blank str, got 5 \(int\)$",
    ),
    "plan_forward-tokens": (
        lambda: BlockPlan.rmsnorm_mlp([2, 3, 2]).plan_forward(0),
        ValueError,
        r"^BlockPlan\.plan_forward: tokens T must be >= 1, got 0$",
    ),
    "materialize-value-type": (
        lambda: BlockPlan.rmsnorm_mlp([2, 3, 2]).materialize(value_type=int),  # type: ignore[arg-type]
        TypeError,
        r"^BlockPlan\.materialize: value_type must be Value or a subclass, got <class 'int'> \(type\)$",
    ),
    "materialize-initializer": (
        lambda: BlockPlan.rmsnorm_mlp([2, 3, 2]).materialize(nan_initializer),
        ValueError,
        r"^BlockPlan\.materialize: initializer\('fc1\.weight', 0, 0\) must be finite, got nan$",
    ),
    "block-gain-alias": (
        alias_gain_to_a_weight,
        ParameterIdentityError,
        r"^Block: undeclared parameter alias: 'block\.norm\.gain\[0\]' and 'block\.mlp\.fc1\.weight\[0,0\]'",
    ),
}


@pytest.mark.parametrize(("attempt", "exception", "message"), REFUSALS.values(), ids=REFUSALS.keys())
def test_refusals_name_their_entry_point(
    attempt: Callable[[], object], exception: type[Exception], message: str
) -> None:
    """Each block API refusal is typed and names where it was refused, what and the offending value."""
    with pytest.raises(exception, match=message):
        attempt()


def test_rmsnorm_mlp_passes_its_arguments_on() -> None:
    """rmsnorm_mlp's eps defaults to 1e-6 (as RMSNormPlan's); its init, bias, gain_init, name and budget
    reach the norm, every MLP layer (He after a ReLU) and the plan, whose budget defaults to None."""
    spec = InitSpec("uniform", 0.5, seed=3)
    plan = BlockPlan.rmsnorm_mlp(
        [2, 3, 2], use_bias=True, init=spec, gain_init=0.5, name="b", parameter_budget=19
    )
    assert (1e-6, 0.5) == (plan.norm.eps, plan.norm.gain_init)
    default = RMSNormPlan(2)
    assert (1e-6, 1.0, "norm") == (default.eps, default.gain_init, default.name)  # RMSNormPlan's defaults
    assert [
        ("fc1", 2, 3, True, ("uniform", 0.5, 3, "standard")),
        ("fc2", 3, 2, True, ("uniform", 0.5, 3, "relu")),
    ] == [layer.key() for layer in plan.mlp.layers]
    assert ("b", "b.mlp", 19, None) == (
        plan.name,
        plan.mlp.name,
        plan.parameter_budget,
        BlockPlan.rmsnorm_mlp([2, 2]).parameter_budget,
    )

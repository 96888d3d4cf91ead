"""every validated type, built small, and its attributes found generically."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from contracts import EmbeddingPlan, Matrix, Value, Vector
from contracts.core.block import BlockPlan, RMSNormPlan
from contracts.core.init import InitSpec
from contracts.core.linear import LinearPlan
from contracts.core.model import ModelPlan
from contracts.core.seal import ParameterRef, ParameterSeal
from contracts.tensor import Tensor, add


def embedding() -> Any:
    return EmbeddingPlan(3, 2, 2).materialize(lambda *_: 0.5)


def linear() -> Any:
    return LinearPlan("fc1", 2, 3, True).materialize()


def mlp() -> Any:
    return ModelPlan.mlp([2, 3, 1]).materialize()


def block() -> Any:
    return BlockPlan.rmsnorm_mlp([2, 3, 2]).materialize()


def tensor() -> Any:
    return add(Tensor([1.0, 2.0], requires_grad=True), 1.0)


# type name -> a small valid instance; the spec rows name the types (S05/S07/T .rule.frozen)
BUILDERS: dict[str, Callable[[], Any]] = {
    "Vector": lambda: Vector([1.0, 2.0]),
    "Matrix": lambda: Matrix([[1.0, 2.0], [3.0, 4.0]]),
    "EmbeddingPlan": lambda: EmbeddingPlan(3, 2, 2),
    "Embedding": embedding,
    "InitSpec": lambda: InitSpec("uniform", 2.0, 3, "relu"),
    "LinearPlan": lambda: LinearPlan("fc1", 2, 3, True),
    "ModelPlan": lambda: ModelPlan.mlp([2, 3, 1]),
    "ModelForwardPlan": lambda: ModelPlan.mlp([2, 3, 1]).plan_forward(2),
    "ForwardStep": lambda: ModelPlan.mlp([2, 3, 1]).plan_forward(2).steps[0],
    "ParameterRef": lambda: ParameterRef("fc1.weight[0,0]", Value(0.5), "fc1"),
    "ParameterSeal": lambda: ParameterSeal([ParameterRef("a", Value(0.5), "fc1")], "test"),
    "Linear": linear,
    "MLP": mlp,
    "RMSNormPlan": lambda: RMSNormPlan(2, 1e-6, 1.0),
    "BlockPlan": lambda: BlockPlan.rmsnorm_mlp([2, 3, 2]),
    "Block": block,
    "Tensor": tensor,
    "leaf Tensor": lambda: Tensor([[1.0, 2.0]], requires_grad=True),
}
STAGE_TYPES = {
    "S05.rule.frozen": ("Vector", "Matrix", "EmbeddingPlan", "Embedding"),
    "S07.rule.frozen": (
        "InitSpec",
        "LinearPlan",
        "ModelPlan",
        "ModelForwardPlan",
        "ForwardStep",
        "ParameterRef",
        "ParameterSeal",
        "Linear",
        "MLP",
    ),
    "S08.rule.frozen": ("RMSNormPlan", "BlockPlan", "Block"),
    "T.rule.frozen": ("Tensor", "leaf Tensor"),
}
# S07.rule.frozen: the attributes every forward re-verifies against the seal (assignable)
REVERIFIED = {
    "Linear": frozenset({"weight", "bias", "name", "scope"}),
    "MLP": frozenset({"layers"}),
    "Block": frozenset({"gain"}),  # S08.rule.frozen
}


def slot_names(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    return names


def data_attributes(obj: object) -> list[str]:
    """Every instance attribute: __slots__ over the MRO, vars(), dataclass fields."""
    names = slot_names(type(obj)) | set(getattr(obj, "__dict__", {}))
    if dataclasses.is_dataclass(obj):
        names |= {field.name for field in dataclasses.fields(obj)}
    return sorted(names - {"__dict__", "__weakref__"})


def every_attribute(obj: object) -> list[str]:
    """Instance attributes and every public name (methods too: shadowing one is a change)."""
    public = {name for name in dir(obj) if not name.startswith("__")}
    return sorted(set(data_attributes(obj)) | public)


def snapshot(obj: object) -> tuple[Any, ...]:
    """The identity of every instance attribute's value, and the repr: equal means unchanged."""
    held = tuple((name, id(object.__getattribute__(obj, name))) for name in data_attributes(obj))
    return (held, repr(obj), sorted(getattr(obj, "__dict__", {})))

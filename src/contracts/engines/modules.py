"""Module-level plain data for the adapter protocol (port conformance).

An adapter builds an embedding, a Linear, an MLP or a block x + MLP(RMSNorm(x)) with the engine's own
module types and reports back plain data only: each parameter tensor as (logical name, shape, count)
in the seeds' naming (`token_weight`, `position_weight`, `fc1.weight`, `mlp.fc2.bias`, the spec's
`block.norm.gain`, `block.mlp.fc1.weight`), its values as float64 arrays,
and its identity (the engine objects that hold it, the storage that holds its numbers). The module
object itself stays opaque to the tests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MODULE = frozenset(
    {
        "module.embedding",  # token + position tables, forward over token ids
        "module.linear",  # one Linear layer, weight (C_out, C_in), optional bias
        "module.mlp",  # Linear -> ReLU -> ... -> Linear
        "module.init",  # the spec's InitSpec applied by the engine's own initializers
        "module.identity",  # parameter identity across a forward and an SGD step
        "module.graph-count",  # scalar graph nodes one forward creates, counted node by node
        "module.block",  # x + MLP(RMSNorm(x)): gain (C,) named block.norm.gain, the MLP, the residual
    }
)


@dataclass(frozen=True, slots=True)
class ParameterInfo:
    """A parameter tensor: its logical name (the seeds'), its shape and how many numbers it holds."""

    name: str
    shape: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True)
class ParameterIdentity:
    """Physical identity of a parameter tensor: the engine objects holding it and its storage."""

    name: str
    objects: tuple[int, ...]
    storage: tuple[int, ...]


class ModuleUnsupported(Exception):  # noqa: N818 (a reason, not an error of the module)
    """The engine cannot build this module at all (e.g. no bias-free layer): not applicable."""


class SizeUnsupported(ModuleUnsupported):
    """The engine cannot run these particular sizes (other sizes run)."""


# (engine exception type, regex its message must match, the spec's family): for an engine that raises
# one generic type (torch's RuntimeError) for several spec families, told apart by the message.
ErrorPattern = tuple[type[BaseException], str, str]


# Exceptions that mean the engine or its adapter crashed, never that it refused an input.
CRASHES: tuple[type[BaseException], ...] = (AttributeError, NameError, AssertionError, UnboundLocalError)
# Never a refusal either, though they derive from RuntimeError, which an engine may map by message
# (torch): the protocol's "not implemented here" and a recursion that ran out of stack.
UNMAPPED = (*CRASHES, NotImplementedError, RecursionError)


def family_of(
    families: Mapping[type[BaseException], str],
    error: BaseException,
    patterns: Sequence[ErrorPattern] = (),
) -> str | None:
    """The spec's exception family for an engine exception: None for a crash or a missing method (a
    mapping of their base type, RuntimeError, must not turn them into refusals), else the first pattern
    whose type and message match, else its most derived mapped type, else None."""
    if isinstance(error, UNMAPPED):
        return None
    for kind, message, family in patterns:
        if isinstance(error, kind) and re.search(message, str(error)):
            return family
    for kind in type(error).__mro__:
        if kind in families:
            return families[kind]
    return None


def count_operation_nodes(outputs: Iterable[Any], parents: Callable[[Any], Iterable[Any]]) -> int:
    """Distinct nodes with parents reachable from the outputs, walked iteratively (no recursion)."""
    seen: set[int] = set()
    stack = list(outputs)
    count = 0
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        above = tuple(parents(node))
        count += bool(above)
        stack.extend(above)
    return count

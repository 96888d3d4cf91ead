"""What the functional engines (JAX, autograd) share: an output node that keeps the VJP function
their vjp returned, and the cotangents of its last call, which the graph methods read back as the
leaves' gradients (None for an input that was closed over rather than differentiated)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from contracts.engines.base import Array


@dataclass(slots=True)
class FunctionalOutput:
    """A functional engine's output node: the value, the VJP function, the function it differentiates
    (over the chosen inputs), which inputs those are, and the cotangents of the last backward."""

    value: Any
    pullback: Any
    function: Callable[..., Any]
    chosen: tuple[Any, ...]
    flags: tuple[bool, ...]
    grads: tuple[Array, ...] | None = field(default=None)


def merge(primals: Sequence[Any], flags: Sequence[bool], differentiated: Sequence[Any]) -> list[Any]:
    """The op's operands: the differentiated values where a flag is set, the closed-over ones elsewhere."""
    chosen = iter(differentiated)
    return [next(chosen) if flag else x for x, flag in zip(primals, flags)]


def spread(grads: tuple[Array, ...] | None, flags: Sequence[bool]) -> tuple[Array | None, ...]:
    """One gradient per input: the cotangents in order where a flag is set, None elsewhere (and None
    everywhere before a backward)."""
    if grads is None:
        return (None,) * len(flags)
    returned = iter(grads)
    return tuple(next(returned) if flag else None for flag in flags)

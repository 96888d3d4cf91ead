"""Parameter identity (Stage 07): logical names bound to physical Values, sealed at construction.

A ParameterRef pairs a logical name (`mlp.fc1.weight[2,1]`) with the Value object itself (its
physical identity; holding the object keeps its id from being reused). A seal is the ordered tuple
of refs taken at construction: names unique, objects distinct (this stage declares no alias).
Before a forward the refs are rebuilt from the *current* storage and compared with the seal, name,
identity and order, so a replaced `layer.weight` cannot hide behind an old manifest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from operator import attrgetter

from contracts.core.checks import float_datum
from contracts.core.errors import ParameterIdentityError
from contracts.core.frozen import Frozen, refuse_assignment, refuse_deletion, set_fields
from contracts.core.value import Value


@dataclass(frozen=True, slots=True)
class ParameterRef:
    """Logical identity (name, owning layer) and physical identity (the Value object)."""

    name: str
    value: Value
    owner: str

    def identity(self) -> int:
        return id(self.value)


setattr(ParameterRef, "__setattr__", refuse_assignment)  # noqa: B010  (FrozenError, like Frozen)
setattr(ParameterRef, "__delattr__", refuse_deletion)  # noqa: B010


def check_distinct(refs: Sequence[ParameterRef], where: str) -> None:
    """Every logical name unique and every physical Value distinct."""
    names: set[str] = set()
    objects: dict[int, ParameterRef] = {}
    for ref in refs:
        if ref.name in names:
            raise ParameterIdentityError(
                f"{where}: duplicate parameter name {ref.name!r} (layer {ref.owner!r}): "
                "every logical name must be unique"
            )
        names.add(ref.name)
        first = objects.get(ref.identity())
        if first is not None:
            raise ParameterIdentityError(
                f"{where}: undeclared parameter alias: {first.name!r} and {ref.name!r} are the "
                f"same Value object (layer {ref.owner!r}); every position must be a distinct Value"
            )
        objects[ref.identity()] = ref


class ParameterSeal(Frozen):
    """The refs a module was constructed with, in order; verify() compares current storage."""

    __slots__ = ("refs",)

    def __init__(self, refs: Sequence[ParameterRef], where: str) -> None:
        check_distinct(refs, where)
        self.refs: tuple[ParameterRef, ...]
        set_fields(self, refs=tuple(refs))

    def __len__(self) -> int:
        return len(self.refs)

    def values(self) -> tuple[Value, ...]:
        return tuple(ref.value for ref in self.refs)

    def names(self) -> tuple[str, ...]:
        return tuple(ref.name for ref in self.refs)

    def verify(self, current: Sequence[ParameterRef], where: str) -> None:
        """Current refs (rebuilt from storage) must equal the seal: names, identities, order."""
        check_distinct(current, where)
        for sealed, now in zip_longest(self.refs, current):
            if sealed is None or now is None or sealed.value is not now.value:
                owner = sealed.owner if sealed is not None else now.owner
                raise ParameterIdentityError(
                    f"{where}: layer {owner!r} parameter storage identity changed: sealed "
                    f"{describe(sealed)}, current {describe(now)} (storage must be the sealed Values)"
                )
            if sealed.name != now.name:
                raise ParameterIdentityError(
                    f"{where}: layer {sealed.owner!r} parameter name or order changed: sealed "
                    f"{sealed.name!r}, current {now.name!r} for the same Value"
                )


def describe(ref: ParameterRef | None) -> str:
    if ref is None:
        return "nothing"
    return f"{ref.name!r} (Value id {ref.identity():#x})"


VALUE = attrgetter("value")
DATA = attrgetter("data")
GRAD = attrgetter("grad")
REF_DATA = attrgetter("value.data")


def check_finite(refs: Sequence[ParameterRef], where: str) -> None:
    """Every parameter's data a finite Python float or int before a forward uses it (float_datum).

    Fast path (in C): every datum is exactly a float and finite. Otherwise the loop names the first
    offending parameter with float_datum's message.
    """
    data = tuple(map(REF_DATA, refs))
    if set(map(type, data)) == {float} and all(map(math.isfinite, data)):
        return
    for ref in refs:
        float_datum(ref.value.data, where, f"parameter {ref.name!r}")


@dataclass(frozen=True, slots=True)
class ParameterState:
    """(data, grad) of every sealed parameter, taken before a forward; restorable."""

    values: tuple[Value, ...]
    data: tuple[float, ...]
    grads: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[Value]) -> ParameterState:
        kept = tuple(values)
        return cls(kept, tuple(map(DATA, kept)), tuple(map(GRAD, kept)))

    def first_change(self) -> int | None:
        """Index of the first parameter whose data or grad differs from the snapshot."""
        if tuple(map(DATA, self.values)) == self.data and tuple(map(GRAD, self.values)) == self.grads:
            return None
        for index, value in enumerate(self.values):
            if not same(value.data, self.data[index]) or not same(value.grad, self.grads[index]):
                return index
        return None

    def restore(self) -> None:
        for value, data, grad in zip(self.values, self.data, self.grads):
            value.data = data
            value.grad = grad


def same(a: float, b: float) -> bool:
    """Equal, or both nan (a snapshot of a nan grad is unchanged if it is still nan)."""
    return a == b or (a != a and b != b)

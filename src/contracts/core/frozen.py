"""Validated objects stay valid: assignment and deletion after construction are refused.

A class that inherits Frozen sets its attributes once, in its constructor, through set_fields
(object.__setattr__); afterwards every assignment or deletion raises FrozenError and leaves the
object unchanged, so the loops behind its checks never run on data the checks did not see.
A class may name attributes whose every use re-verifies them (REVERIFIED): those stay assignable.
"""

from __future__ import annotations

import reprlib
from typing import ClassVar, NoReturn

from contracts.core.errors import FrozenError


def set_fields(obj: object, **fields: object) -> None:
    """The constructor's own assignments (the only ones a Frozen object accepts)."""
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


def refuse_assignment(obj: object, name: str, value: object) -> NoReturn:
    kind = type(obj).__name__
    raise FrozenError(
        f"{kind}: cannot assign {reprlib.repr(value)} to attribute {name!r}: a validated {kind} is "
        "immutable after construction (build a new one)"
    )


def refuse_deletion(obj: object, name: str) -> NoReturn:
    kind = type(obj).__name__
    raise FrozenError(
        f"{kind}: cannot delete attribute {name!r}: a validated {kind} is immutable after "
        "construction (build a new one)"
    )


class Frozen:
    """Refuses assignment and deletion of any attribute, except the REVERIFIED ones' assignment."""

    __slots__ = ()
    REVERIFIED: ClassVar[frozenset[str]] = frozenset()

    def __setattr__(self, name: str, value: object) -> None:
        if name not in self.REVERIFIED:
            refuse_assignment(self, name, value)
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_deletion(self, name)

"""Value bounds: a guarded operation proves every value it will create finite before its first node.

The bound is computed from the largest magnitudes of the data it reads, once, at the operation's entry
(S05.rule.operand-bound, S07.rule.forward-bound); the loop behind it trusts it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from math import isfinite

from contracts.core.checks import float_datum
from contracts.core.seal import DATA
from contracts.core.value import Value

# The largest bound a step's values may have: float64's max / 2, the factor 2 a margin for rounding
# (S07.rule.forward-bound's note derives it).
VALUE_LIMIT = sys.float_info.max / 2


def largest_datum(values: Sequence[Value], where: str, label: Callable[[int], str]) -> float:
    """max |data| over values, every datum a finite Python float or int first (a Value's data is a
    writable cell: the constructor checked it, not since); `label(i)` names the i-th in a refusal.
    Fast path: every datum a finite float."""
    data = tuple(map(DATA, values))
    if not (set(map(type, data)) == {float} and all(map(isfinite, data))):
        data = tuple(float_datum(datum, where, label(i)) for i, datum in enumerate(data))
    largest: float = max(map(abs, data))
    return largest


def cell_label(name: str, row: int) -> Callable[[int], str]:
    """Names element c of row `row` of a table: name[row][c]."""
    return lambda column: f"{name}[{row}][{column}]"


def check_bounds(bounds: Sequence[tuple[str, float]], where: str) -> None:
    """Refuse at the first step whose values may exceed VALUE_LIMIT: no node exists yet."""
    for step, bound in bounds:
        if not bound <= VALUE_LIMIT:
            raise OverflowError(
                f"{where}: values of step {step!r} may reach {bound!r}, must be <= {VALUE_LIMIT!r} (half "
                "of float64's max) to be proven finite before the first node; no node is created"
            )

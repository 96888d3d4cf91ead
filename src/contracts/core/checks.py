"""Trust-boundary checks shared by every constructor and entry point.

Each check runs once where untrusted data enters; code behind the boundary trusts the invariant.
Messages name the offending value, the expected relation and where the check ran.
"""

from __future__ import annotations

import math
from numbers import Real
from typing import NoReturn

from contracts.core.errors import ResourceBudgetError


def fail_type(where: str, what: str, expected: str, got: object) -> NoReturn:
    raise TypeError(f"{where}: {what} must be {expected}, got {got!r} ({type(got).__name__})")


def exact_int(value: object, where: str, what: str) -> int:
    """An int that is not a bool (bool is an int subclass in Python, never a count)."""
    if type(value) is bool or not isinstance(value, int):
        fail_type(where, what, "an exact int (bool rejected)", value)
    return value


def positive_int(value: object, where: str, what: str) -> int:
    count = exact_int(value, where, what)
    if count < 1:
        raise ValueError(f"{where}: {what} must be >= 1, got {count}")
    return count


def real_number(value: object, where: str, what: str) -> float:
    """A finite real as float: bool and non-real types are TypeError, nan/inf are ValueError."""
    if type(value) is bool or not isinstance(value, Real):
        fail_type(where, what, "a real number (bool rejected)", value)
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"{where}: {what} must be finite, got {value!r} (beyond float64 range)") from None
    if not math.isfinite(number):
        raise ValueError(f"{where}: {what} must be finite, got {number!r}")
    return number


# what float_datum asks for, in its TypeError
FLOAT_DATUM = (
    "a Python float or int (bool rejected; a numpy scalar other than float64 computes in its own dtype)"
)


def float_datum(value: object, where: str, what: str) -> float:
    """A datum a guarded computation reads as it is: a finite Python float (np.float64, a float subclass,
    included) or int, as float. Any other real is refused, not converted: a float16, float32 or numpy int
    scalar computes in its own dtype (overflowing at 65,504 or wrapping) where the bound was proven in
    float64, and a cell the caller owns is not rewritten behind their back."""
    if not (isinstance(value, float) or type(value) is int):
        fail_type(where, what, FLOAT_DATUM, value)
    return real_number(value, where, what)


def budget_limit(budget: object, where: str) -> int | None:
    """None means unlimited; otherwise a non-negative exact int."""
    if budget is None:
        return None
    limit = exact_int(budget, where, "budget")
    if limit < 0:
        raise ValueError(f"{where}: budget must be >= 0, got {limit}")
    return limit


def within_budget(cost: int, budget: object, where: str, unit: str) -> None:
    """Refuse work whose exact cost, known before it starts, exceeds the budget."""
    limit = budget_limit(budget, where)
    if limit is not None and cost > limit:
        raise ResourceBudgetError(f"{where}: needs {cost} {unit}, budget is {limit} (cost must be <= budget)")

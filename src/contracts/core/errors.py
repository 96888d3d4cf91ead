"""The seeds' typed failures.

Stage 05 adds only two exception types and reuses Python's own where the meaning is already clear:
TypeError (element type), ValueError (non-finite value, math domain), IndexError (token range).
Stage 07 adds ParameterIdentityError.
"""

from __future__ import annotations


class ContractError(Exception):
    """Base of the exception types this package adds."""


class ShapeError(ContractError):
    """A relation between inputs or configs is wrong: fix the shapes, not the limits."""


class ResourceBudgetError(ContractError):
    """Shapes are legal but the work exceeds a limit: raise the limit or shrink the model."""


class ParameterIdentityError(ContractError):
    """A parameter's logical name or physical identity is not what was sealed."""


class FrozenError(ContractError, AttributeError):
    """A validated object's attribute was assigned or deleted: it stays as its checks left it."""

"""The seeds' typed failures (S05.rule.exception-types).

Stage 05 adds only two exception types to its failures and reuses Python's own where the meaning is
already clear: TypeError (element type), ValueError (non-finite value, math domain), IndexError
(token range). Stage 07 adds ParameterIdentityError. One more type is ours, not the seeds': a
validated object refuses assignment and deletion (S05.rule.frozen) with FrozenError, a subclass of
Python's AttributeError (its own type for an attribute that cannot be set), so `except
AttributeError` catches it; no failure row raises it. ContractError is the base of all four.
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

"""contracts: execution contracts for a deep-learning engine, checked once at the trust boundary."""

from contracts.embedding import Embedding, EmbeddingPlan
from contracts.errors import ContractError, ParameterIdentityError, ResourceBudgetError, ShapeError
from contracts.shapes import Matrix, Vector
from contracts.value import CountingValue, Value, count_operation_nodes, topological_order

__all__ = [
    "ContractError",
    "CountingValue",
    "Embedding",
    "EmbeddingPlan",
    "Matrix",
    "ParameterIdentityError",
    "ResourceBudgetError",
    "ShapeError",
    "Value",
    "Vector",
    "count_operation_nodes",
    "topological_order",
]

"""contracts: execution contracts for a deep-learning engine, checked once at the trust boundary."""

from contracts.core.embedding import Embedding, EmbeddingPlan
from contracts.core.errors import ContractError, ParameterIdentityError, ResourceBudgetError, ShapeError
from contracts.core.forward import ForwardStep, ModelForwardPlan
from contracts.core.graph import topological_order
from contracts.core.init import InitSpec
from contracts.core.linear import Linear, LinearPlan
from contracts.core.model import MLP, ModelPlan
from contracts.core.seal import ParameterRef, ParameterSeal
from contracts.core.shapes import Matrix, Vector
from contracts.core.value import CountingValue, Value, count_operation_nodes
from contracts.tensor import Tensor

__all__ = [
    "MLP",
    "ContractError",
    "CountingValue",
    "Embedding",
    "EmbeddingPlan",
    "ForwardStep",
    "InitSpec",
    "Linear",
    "LinearPlan",
    "Matrix",
    "ModelForwardPlan",
    "ModelPlan",
    "ParameterIdentityError",
    "ParameterRef",
    "ParameterSeal",
    "ResourceBudgetError",
    "ShapeError",
    "Tensor",
    "Value",
    "Vector",
    "count_operation_nodes",
    "topological_order",
]

"""contracts: execution contracts for a deep-learning engine, checked once at the trust boundary."""

from contracts.embedding import Embedding, EmbeddingPlan
from contracts.errors import ContractError, ParameterIdentityError, ResourceBudgetError, ShapeError
from contracts.forward import ForwardStep, ModelForwardPlan
from contracts.graph import topological_order
from contracts.init import InitSpec
from contracts.linear import Linear, LinearPlan
from contracts.model import MLP, ModelPlan
from contracts.seal import ParameterRef, ParameterSeal
from contracts.shapes import Matrix, Vector
from contracts.tensor import Tensor
from contracts.value import CountingValue, Value, count_operation_nodes

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

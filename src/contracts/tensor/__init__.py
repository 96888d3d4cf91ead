"""Lucid-style tensor ops over an injected array namespace (numpy by default), all float64.

One op-definition mechanism (contracts.tensor.op: Op + apply), one broadcast reducer
(reduce_to_shape), the seed's ops (contracts.tensor.ops) and Tensor with iterative backward.
"""

from contracts.core.graph import topological_order
from contracts.tensor.op import Op, apply, reduce_to_shape
from contracts.tensor.ops import (
    MAX_EXP_INPUT,
    OPS,
    add,
    exp,
    log,
    matmul,
    maximum,
    multiply,
    relu,
)
from contracts.tensor.shapes import broadcast_shape, matmul_shape, summed_axes
from contracts.tensor.tensor import NodeCounter, Tensor, reset_node_counter

__all__ = [
    "MAX_EXP_INPUT",
    "OPS",
    "NodeCounter",
    "Op",
    "Tensor",
    "add",
    "apply",
    "broadcast_shape",
    "exp",
    "log",
    "matmul",
    "matmul_shape",
    "maximum",
    "multiply",
    "reduce_to_shape",
    "relu",
    "reset_node_counter",
    "summed_axes",
    "topological_order",
]

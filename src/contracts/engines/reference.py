"""The reference implementation as an engine: every capability, no conventions.

At module level it builds this project's own Embedding, Linear, MLP and Block.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any, ClassVar

import numpy as np

from contracts.core.block import Block, BlockPlan, RMSNormPlan
from contracts.core.embedding import Embedding, EmbeddingPlan
from contracts.core.errors import ShapeError
from contracts.core.init import InitSpec
from contracts.core.linear import Linear, LinearPlan
from contracts.core.model import MLP, ModelPlan
from contracts.core.shapes import Matrix, Vector
from contracts.core.value import Value
from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAM_FORMS,
    PROGRAMS,
    SCALAR,
    SCALAR_FORMS,
    TENSOR,
    Array,
    Engine,
    Program,
    TensorGraph,
    leaf_flags,
    run_program,
)
from contracts.engines.modules import MODULE, ParameterIdentity, ParameterInfo, count_operation_nodes


class ReferenceEngine(Engine):
    name: ClassVar[str] = "reference"
    capabilities: ClassVar[frozenset[str]] = SCALAR | TENSOR | CONTRACT_FAMILIES | PROGRAMS | MODULE
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        kind: kind.__name__
        for kind in (IndexError, TypeError, ShapeError, ValueError, OverflowError, ZeroDivisionError)
    }

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        leaves = [Value(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return out.data, tuple(leaf.grad for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = Value(1.0)
        out = x
        for _ in range(depth):
            out = out + 1.0
        out.backward()
        return x.grad

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = Value(a), Value(b)
        shared = left * right
        out = shared * shared + left
        out.backward()
        out.backward()
        return left.grad, right.grad

    def tensor_vjp(self, op: str, inputs: Sequence[Any], upstream: Any) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import reference_tensor_vjp  # the tensor slice provides it

        return reference_tensor_vjp(op, inputs, upstream)

    def tensor_graph(
        self, op: str, inputs: Sequence[Any], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        from contracts.tensor.engine_ops import TENSOR_OPS
        from contracts.tensor.tensor import Tensor

        flags = leaf_flags(requires_grad, len(inputs))
        leaves = tuple(Tensor(item, requires_grad=flag) for item, flag in zip(inputs, flags))
        return TensorGraph(leaves, TENSOR_OPS[op](*leaves))

    def tensor_backward(self, graph: TensorGraph, upstream: Any) -> None:
        graph.out.backward(upstream)

    def tensor_grads(self, graph: TensorGraph) -> tuple[Any, ...]:
        from contracts.tensor.engine_ops import to_numpy

        return tuple(None if leaf.grad is None else to_numpy(leaf.grad) for leaf in graph.leaves)

    def tensor_forward_with(self, op: str, inputs: Sequence[Any], params: Mapping[str, Any]) -> Any:
        from contracts.tensor.engine_ops import PARAM_OPS, to_numpy
        from contracts.tensor.tensor import Tensor

        return to_numpy(PARAM_OPS[op](*(Tensor(item) for item in inputs), **params).data)  # no graph needed

    def tensor_from_data(self, data: Any) -> Any:
        from contracts.tensor.engine_ops import to_numpy
        from contracts.tensor.tensor import Tensor

        return to_numpy(Tensor(data).data)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        nodes = [Value(float(x)) for x in leaves]
        out = run_program(PROGRAM_FORMS, nodes, program)
        out.backward()
        return out.data, tuple(node.grad for node in nodes)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Any], upstream: Any
    ) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import TENSOR_OPS, to_numpy
        from contracts.tensor.tensor import Tensor

        nodes = [Tensor(item, requires_grad=True) for item in leaves]
        out = run_program(TENSOR_OPS, nodes, program)
        out.backward(upstream)
        return to_numpy(out.data), tuple(
            np.zeros(node.shape) if node.grad is None else to_numpy(node.grad) for node in nodes
        )

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Any], upstream: Any, params: Mapping[str, Any]
    ) -> tuple[Any, tuple[Any, ...]]:
        from contracts.tensor.engine_ops import reference_tensor_vjp_with

        return reference_tensor_vjp_with(op, inputs, upstream, params)

    # -- module level: this project's Embedding, Linear, MLP and Block ----------------------------

    def module_embedding(self, vocab_size: int, context_length: int, width: int) -> Embedding:
        init = InitSpec(seed=EMBEDDING_SEED)
        return EmbeddingPlan(vocab_size, context_length, width).materialize(
            lambda table, row, col: init.value(table, row, col, width)
        )

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> Linear:
        return LinearPlan("fc1", in_features, out_features, use_bias, init).materialize()

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> MLP:
        return ModelPlan.mlp(widths, use_bias, init).materialize()

    def module_block(
        self,
        width: int,
        widths: Sequence[int],
        eps: float,
        use_bias: bool,
        init: InitSpec | None,
        gain_init: float,
    ) -> Block:
        norm = RMSNormPlan(width, eps, gain_init)
        return BlockPlan(norm, ModelPlan.mlp(widths, use_bias, init, BLOCK_MLP)).materialize()

    def module_norm_forward(self, module: Block, inputs: Any) -> Array:
        rows = Matrix(np.asarray(inputs).tolist()).rows
        return np.array([[value.data for value in module.normalize(row)] for row in rows])

    def module_assign(self, module: Any, name: str, values: Array) -> None:
        targets, flat = tuple(values_of(dict(tensors(module))[name])), np.asarray(values).ravel()
        if len(flat) != len(targets):  # checked before the first write: no partial assignment
            raise ValueError(f"module_assign: {name!r} holds {len(targets)} numbers, got {len(flat)}")
        for value, new in zip(targets, flat):
            value.data = float(new)

    def module_parameters(self, module: Any) -> tuple[ParameterInfo, ...]:
        return tuple(
            ParameterInfo(name, storage.shape_tuple(), len(tuple(values_of(storage))))
            for name, storage in tensors(module)
        )

    def module_state(self, module: Any) -> dict[str, Array]:
        return {name: np.array(storage.data()) for name, storage in tensors(module)}

    def module_forward(self, module: Any, inputs: Any) -> Array:
        return np.array(self.run(module, inputs).data())

    def run(self, module: Any, inputs: Any) -> Matrix:
        """One forward of this project's module: token ids, or a (T, C_in) array as a Matrix."""
        if isinstance(module, Embedding):
            return module.forward(inputs)
        model: Linear | MLP | Block = module
        return model.forward(Matrix(np.asarray(inputs).tolist()))

    def module_identities(self, module: Any) -> tuple[ParameterIdentity, ...]:
        return tuple(
            ParameterIdentity(name, (id(storage), id(rows_of(storage))), tuple(map(id, values_of(storage))))
            for name, storage in tensors(module)
        )

    def module_sgd_step(self, module: Any, inputs: Any, learning_rate: float) -> None:
        parameters = [value for _, storage in tensors(module) for value in values_of(storage)]
        loss = functools.reduce(operator.add, self.run(module, inputs).values())
        for parameter in parameters:
            parameter.grad = 0.0
        loss.backward()
        for parameter in parameters:
            parameter.data -= learning_rate * parameter.grad

    def module_replace_parameter(self, module: Any, name: str) -> object:
        owner, slot = dict(holders(module))[name]
        old = getattr(owner, slot)
        # behind the API: a frozen Embedding refuses assignment, and this simulates a replaced storage
        object.__setattr__(owner, slot, type(old)(old.data()))
        return old

    def module_graph_nodes(self, module: Any, inputs: Any) -> int:
        return count_operation_nodes(self.run(module, inputs).values(), PARENTS)


EMBEDDING_SEED = 0  # the reference embedding's tables: InitSpec's standard normal draws, seed 0
BLOCK_MLP = "block.mlp"  # BlockPlan.rmsnorm_mlp's MLP name under the default block name
PARENTS = attrgetter("parents")


def holders(module: Any) -> list[tuple[str, tuple[Any, str]]]:
    """Logical name -> (the object holding the parameter's storage, its attribute), in order."""
    if isinstance(module, Embedding):
        return [("token_weight", (module, "token_weight")), ("position_weight", (module, "position_weight"))]
    if isinstance(module, Block):
        gain = f"{module.name}.{module.plan.norm.name}.gain"
        return [(gain, (module, "gain")), *holders(module.mlp)]
    layers = module.layers if isinstance(module, MLP) else (module,)
    named: list[tuple[str, tuple[Any, str]]] = []
    for layer in layers:
        prefix = f"{layer.scope}.{layer.name}" if layer.scope else layer.name
        named.append((f"{prefix}.weight", (layer, "weight")))
        if layer.bias is not None:
            named.append((f"{prefix}.bias", (layer, "bias")))
    return named


def tensors(module: Any) -> list[tuple[str, Any]]:
    """Logical name -> the Matrix or Vector holding the parameter now."""
    return [(name, getattr(owner, slot)) for name, (owner, slot) in holders(module)]


def rows_of(storage: Matrix | Vector) -> object:
    return storage.rows if isinstance(storage, Matrix) else storage.values


def values_of(storage: Matrix | Vector) -> Iterable[Value]:
    return storage.values() if isinstance(storage, Matrix) else storage.values

"""PyTorch (2.13.0, CPU, an optional extra) as an engine: the scalar family on 0-d float64 tensors
and the tensor family on float64 tensors.

torch is imported when the engine is created, never at module import, so the package works
without it; a missing install raises MissingExtraError with the command that installs the extra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAMS,
    REFERENCE_ONLY,
    SCALAR,
    SCALAR_FORMS,
    SCALAR_OPS,
    TENSOR,
    Array,
    Engine,
    MissingExtraError,
    Program,
    run_program,
)

TENSOR_FORMS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
    "maximum": lambda a, b: a.maximum(b),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "matmul": lambda a, b: a @ b,
    "relu": lambda a: a.relu(),
}


def param_forms(torch: Any) -> dict[str, Callable[..., Any]]:
    """The Stage 06/08 ops with parameters as torch calls (F = torch.nn.functional)."""
    functional = torch.nn.functional
    return {
        "sum": lambda x, axis, keepdims=False: x.sum(dim=axis, keepdim=keepdims),
        # torch.max(dim) sends the gradient to the index it returns: the first maximal element
        "max": lambda x, axis, keepdims=False: torch.max(x, dim=axis, keepdim=keepdims).values,
        "logsumexp": lambda x, axis, keepdims=False: torch.logsumexp(x, dim=axis, keepdim=keepdims),
        "softmax": lambda x, axis: functional.softmax(x, dim=axis),
        "log_softmax": lambda x, axis: functional.log_softmax(x, dim=axis),
        # F.cross_entropy reads classes on dim 1: flatten the batch axes, the mean is the same
        "cross_entropy": lambda x, targets: functional.cross_entropy(
            x.reshape(-1, x.shape[-1]), torch.as_tensor(np.asarray(targets), dtype=torch.int64).reshape(-1)
        ),
        "rms_norm": lambda x, gain, eps: functional.rms_norm(x, (x.shape[-1],), weight=gain, eps=eps),
    }


def import_torch() -> Any:
    """The torch module, or MissingExtraError naming the extra that installs it."""
    try:
        import torch
    except ImportError:
        raise MissingExtraError("torch", "torch", "torch") from None
    return torch


class TorchEngine(Engine):
    name: ClassVar[str] = "torch"
    capabilities: ClassVar[frozenset[str]] = (
        (SCALAR - {"scalar.domain"}) | (TENSOR - {"tensor.shape-errors", "tensor.param-errors"}) | PROGRAMS
    )
    conventions: ClassVar[Mapping[str, str]] = {
        "T.rule.tie": "torch.maximum splits the gradient 0.5/0.5 between a and b where a == b; the spec "
        "gives all of it to the first argument",
        "T.fail.log-domain": "torch.log of an element <= 0 gives -inf or nan instead of raising",
        "T.fail.exp-overflow": "torch.exp of an element above 709.78 gives inf instead of raising",
        "S06.rule.forward-error": "torch's log_softmax and cross_entropy take log(Σ exp(x − max)), not "
        "log1p of the sum without the max's own 1, so the dominant class's log-probability loses its "
        "relative "
        "accuracy (log_softmax([0, −40])[0] is 0.0, exactly −4.25e-18): beyond 16·ε64",
        "S08.rule.stability": "torch's rms_norm backward forms (mean(x²) + eps)^(-3/2) unscaled: it "
        "underflows to 0 for max|x| above ~1e103, dropping the projection term of dx (measured "
        "1.5e14·(16·ε64) at 1e120)",
        "S06.rule.grad-error": "torch's logsumexp backward is g · exp(x − logsumexp(x)): the rounding of "
        "logsumexp (|y|·ε64) enters every softmax weight, ~4,000·ε64 at |x| ~ 1e4",
    }
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.domain": "torch computes log(x <= 0) = nan or -inf, exp(710) = inf and 1/0 = inf "
        "instead of refusing the operation",
        "tensor.shape-errors": "torch raises its own RuntimeError (its own message) from inside the op, "
        "not ShapeError before a node exists",
        "tensor.param-errors": "torch raises its own IndexError or RuntimeError for a bad dim, target or "
        "weight shape, and computes with eps <= 0 or nan (giving inf or nan) instead of refusing",
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
    }

    def __init__(self) -> None:
        self.torch = import_torch()

    def version(self) -> str | None:
        return str(self.torch.__version__)

    def leaf(self, data: Any) -> Any:
        return self.torch.from_numpy(float64(data)).requires_grad_(True)

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        check_op(op, SCALAR_OPS)
        leaves = [self.leaf(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return float(out.item()), tuple(grad_of(leaf) for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = self.leaf(1.0)
        out = x
        for _ in range(depth):
            out = out + 1.0
        out.backward()
        return grad_of(x)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = self.leaf(a), self.leaf(b)
        shared = left * right
        out = shared * shared + left
        out.backward(retain_graph=True)  # torch frees the graph after a backward unless told not to
        out.backward()
        return grad_of(left), grad_of(right)

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(TENSOR_FORMS))
        leaves = [self.leaf(item) for item in inputs]
        out = TENSOR_FORMS[op](*leaves)
        if upstream is None:
            out.backward()
        else:
            out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(to_array(leaf.grad) for leaf in leaves)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        nodes = [self.leaf(float(x)) for x in leaves]
        out = run_program(SCALAR_FORMS, nodes, program)
        out.backward()
        return float(out.item()), tuple(0.0 if node.grad is None else grad_of(node) for node in nodes)

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        nodes = [self.leaf(item) for item in leaves]
        out = run_program(TENSOR_FORMS, nodes, program)
        out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(
            np.zeros(node.shape) if node.grad is None else to_array(node.grad) for node in nodes
        )

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        forms = param_forms(self.torch)
        check_op(op, tuple(forms))
        leaves = [self.leaf(item) for item in inputs]
        out = forms[op](*leaves, **params)
        if upstream is None:
            out.backward()
        else:
            out.backward(self.torch.from_numpy(float64(upstream)))
        return to_array(out.detach()), tuple(to_array(leaf.grad) for leaf in leaves)


def check_op(op: str, known: Sequence[str]) -> None:
    if op not in known:
        raise ValueError(f"torch engine: op must be one of {sorted(known)}, got {op!r}")


def grad_of(leaf: Any) -> float:
    return float(leaf.grad.item())


def float64(data: Any) -> Array:
    """A new float64 array (np.array copies), whatever the input's type."""
    return np.array(data, dtype=np.float64)


def to_array(tensor: Any) -> Array:
    """A float64 tensor's values as a numpy array of their own (not a view of torch's memory)."""
    return np.array(tensor.numpy())

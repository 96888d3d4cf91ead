"""tinygrad (0.14.0, an optional extra) as an engine: the scalar family on 0-d float64 tensors and the
tensor family on float64 tensors, with tinygrad's own .grad and backward.

tinygrad runs on the device DEV names (an environment variable, or tinygrad.helpers.DEV); when DEV is
unset the adapter picks PYTHON, tinygrad's own interpreter of its kernels, which needs no compiler (the
CPU device compiles with clang). Every device computes float64 here.

tinygrad is imported when the engine is created, never at module import, so the package works without
it; a missing install raises MissingExtraError with the command that installs the extra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAM_FORMS,
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
    TensorGraph,
    run_program,
)
from contracts.engines.modules import MODULE, ErrorPattern

DEFAULT_DEVICE = "PYTHON"
NO_REQUIRES_GRAD = (
    "tinygrad 0.14 has no requires_grad: backward fills .grad for every floating tensor in the graph, "
    "so there are no constant leaves, and no graph of them whose backward it could refuse"
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


def import_tinygrad() -> tuple[Any, Any, Any]:
    """tinygrad's Tensor, dtypes and nn on DEV's device (PYTHON when DEV is unset), or
    MissingExtraError naming the extra."""
    try:
        from tinygrad import nn
        from tinygrad.dtype import dtypes
        from tinygrad.helpers import DEV
        from tinygrad.tensor import Tensor
    except ImportError:
        raise MissingExtraError("tinygrad", "tinygrad", "tinygrad") from None
    if not DEV.device:
        DEV.value = DEFAULT_DEVICE
    return Tensor, dtypes, nn


def param_forms(tensor: Any, nn: Any) -> dict[str, Callable[..., Any]]:
    """The Stage 06/08 ops with parameters as tinygrad calls: Tensor's reductions, softmax family and
    sparse_categorical_crossentropy (classes on the last axis, the mean over the batch), and nn.RMSNorm's
    own formula (`_norm`) times the gain, in the input's dtype: `RMSNorm.__call__` would cast a float64
    input to float32 and back (docs/engines/tinygrad.md), and this adapter runs tinygrad at float64."""

    def rms_norm(x: Any, gain: Any, eps: Any) -> Any:
        return nn.RMSNorm(x.shape[-1], eps=eps)._norm(x) * gain

    return {
        "sum": lambda x, axis, keepdims=False: x.sum(axis=axis, keepdim=keepdims),
        "max": lambda x, axis, keepdims=False: x.max(axis=axis, keepdim=keepdims),
        "logsumexp": lambda x, axis, keepdims=False: x.logsumexp(axis=axis, keepdim=keepdims),
        "softmax": lambda x, axis: x.softmax(axis=axis),
        "log_softmax": lambda x, axis: x.log_softmax(axis=axis),
        "cross_entropy": lambda x, targets: x.sparse_categorical_crossentropy(tensor(np.asarray(targets))),
        "rms_norm": rms_norm,
    }


# tinygrad's messages (0.14.0) per spec family: shapes that do not broadcast (elementwise, matmul's batch,
# an upstream or targets of another shape), matmul's inner dimension and 0-d operands, an upstream of
# another size, an axis out of range; targets that are not integers.
TINYGRAD_PATTERNS: tuple[ErrorPattern, ...] = (
    (IndexError, r"^shape mismatch: objects cannot be broadcast to a single shape", "ShapeError"),
    (IndexError, r"^dim=-?\d+ out of range", "ShapeError"),
    (RuntimeError, r"^cannot dot \(|^both tensors need to be at least 1D|^cannot broadcast \(", "ShapeError"),
    (ValueError, r"^size mismatch, can't reshape", "ShapeError"),
    (RuntimeError, r"^_one_hot_along_dim expects int index tensor", "TypeError"),
)


class TinygradEngine(Engine):
    name: ClassVar[str] = "tinygrad"
    capabilities: ClassVar[frozenset[str]] = (
        (SCALAR - {"scalar.domain"})
        | (TENSOR - {"tensor.shape-errors", "tensor.param-errors", "tensor.domain", "tensor.constants"})
        | PROGRAMS
    )
    conventions: ClassVar[Mapping[str, str]] = {
        # only maximum's case: tinygrad's relu gradient at 0 is 0, as the spec says, so the relu case runs
        "T.rule.tie[maximum]": "Tensor.maximum splits the gradient 0.5/0.5 between a and b where a == b; "
        "the spec gives all of it to the first argument",
        "S06.rule.max-tie": "Tensor.max's gradient is split equally among the maximal elements of the "
        "reduced axis; the spec gives all of it to the first",
        "T.fail.no-grad": NO_REQUIRES_GRAD,
        "T.order.backward": "orders the no-grad refusal before the missing seed; " + NO_REQUIRES_GRAD,
        # Conventions, not only a lacking tensor.domain: the rows' boundary tests would pass and report
        # the row passed while its refusal, the row's claim, was never checked.
        "T.fail.log-domain": "Tensor.log of an element <= 0 gives -inf or nan instead of raising",
        "T.fail.exp-overflow": "Tensor.exp of an element above 709.78 gives inf instead of raising",
    }
    # Python's own types keep their names (a non-int axis: TypeError; an int beyond float64:
    # OverflowError); tinygrad's IndexError, RuntimeError and ValueError are told apart by message
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        TypeError: "TypeError",
        OverflowError: "OverflowError",
    }
    error_patterns: ClassVar[Sequence[ErrorPattern]] = TINYGRAD_PATTERNS
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.domain": "tinygrad follows IEEE 754: log(x <= 0) is nan or -inf, exp(710) = inf and "
        "1/0 = inf instead of a refusal",
        "tensor.shape-errors": "tinygrad raises its own IndexError or RuntimeError (its own message) from "
        "inside the op, not ShapeError with the spec's message (its family is checked by tensor.refusals)",
        "tensor.param-errors": "tinygrad raises its own IndexError or TypeError for a bad axis (its family "
        "is checked by tensor.refusals), not the spec's message",
        "tensor.domain": "tinygrad follows IEEE 754: log(x <= 0) is -inf or nan, exp(710) and overflowing "
        "results or gradients are inf, and nan/inf data or upstreams are accepted, instead of a refusal",
        "tensor.constants": NO_REQUIRES_GRAD,
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
        **dict.fromkeys(
            sorted(MODULE),
            "not provided by this adapter yet: tinygrad.nn's Linear, Embedding and RMSNorm are not mapped",
        ),
    }

    def __init__(self) -> None:
        self.tensor, self.dtypes, self.nn = import_tinygrad()
        self.param_forms = param_forms(self.leaf, self.nn)

    def version(self) -> str | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("tinygrad")
        except PackageNotFoundError:
            return None

    def leaf(self, data: Any) -> Any:
        """A tinygrad tensor over a buffer of its own (a copy of data in its dtype; float64 for
        floats). A 0-d array is a one-element buffer reshaped to (): Tensor(2.0) would be a constant,
        shared by every equal constant, which backward gives no .grad."""
        array = np.array(data)
        return self.tensor(array.reshape(-1)).reshape(array.shape)

    def float_leaf(self, data: Any) -> Any:
        return self.leaf(np.asarray(data, dtype=np.float64))

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        check_op(op, SCALAR_OPS)
        leaves = [self.float_leaf(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return float(out.item()), tuple(grad_of(leaf) for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = self.float_leaf(1.0)
        out = x
        for _ in range(depth):
            out = out + 1.0
        out.backward()
        return grad_of(x)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = self.float_leaf(a), self.float_leaf(b)
        shared = left * right
        out = shared * shared + left
        out.backward()
        out.backward()
        return grad_of(left), grad_of(right)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        nodes = [self.float_leaf(float(x)) for x in leaves]
        out = run_program(PROGRAM_FORMS, nodes, program)
        out.backward()
        return float(out.item()), tuple(0.0 if node.grad is None else grad_of(node) for node in nodes)

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(TENSOR_FORMS))
        leaves = [self.float_leaf(item) for item in inputs]
        out = TENSOR_FORMS[op](*leaves)
        self.backward(out, upstream)
        return to_array(out), tuple(to_array(leaf.grad) for leaf in leaves)

    def backward(self, out: Any, upstream: Array | None) -> None:
        out.backward(None if upstream is None else self.float_leaf(upstream))

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        """The op over leaves of tinygrad's own; requires_grad is not tinygrad's (every floating tensor
        is differentiable), and the rows that ask for constants are not applicable (conventions)."""
        check_op(op, tuple(TENSOR_FORMS))
        leaves = tuple(self.float_leaf(item) for item in inputs)
        return TensorGraph(leaves, TENSOR_FORMS[op](*leaves))

    def tensor_backward(self, graph: TensorGraph, upstream: Array | None) -> None:
        self.backward(graph.out, upstream)

    def tensor_grads(self, graph: TensorGraph) -> tuple[Array | None, ...]:
        return tuple(None if leaf.grad is None else to_array(leaf.grad) for leaf in graph.leaves)

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        check_op(op, tuple(self.param_forms))
        return to_array(self.param_forms[op](*(self.float_leaf(item) for item in inputs), **params))

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(self.param_forms))
        leaves = [self.float_leaf(item) for item in inputs]
        out = self.param_forms[op](*leaves, **params)
        self.backward(out, upstream)
        return to_array(out), tuple(to_array(leaf.grad) for leaf in leaves)

    def tensor_from_data(self, data: Any) -> Array:
        """Tensor(data, dtype=dtypes.float64): what a port asks tinygrad for, over a buffer as `leaf`
        makes it (a Python number or 0-d array alone would be a device-less constant, which tinygrad
        realizes on its CPU device even with DEV=PYTHON: a clang build, docs/engines/tinygrad.md)."""
        array = np.asarray(data)
        return to_array(self.tensor(array.reshape(-1), dtype=self.dtypes.float64).reshape(array.shape))

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        nodes = [self.float_leaf(item) for item in leaves]
        out = run_program(TENSOR_FORMS, nodes, program)
        self.backward(out, upstream)
        return to_array(out), tuple(
            np.zeros(node.shape) if node.grad is None else to_array(node.grad) for node in nodes
        )


def check_op(op: str, known: Sequence[str]) -> None:
    if op not in known:
        raise ValueError(f"tinygrad engine: op must be one of {sorted(known)}, got {op!r}")


def grad_of(leaf: Any) -> float:
    return float(leaf.grad.item())


def to_array(tensor: Any) -> Array:
    """A tinygrad tensor's values as a numpy array of their own (its own dtype)."""
    return np.array(tensor.numpy())

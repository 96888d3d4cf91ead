"""HIPS autograd (1.9.1, an optional extra) as an engine: the scalar family on Python floats and the
tensor family on float64 numpy arrays, both through autograd's make_vjp over autograd.numpy.

autograd is functional: make_vjp and grad return the gradients of the arguments they differentiate
(argnum), and nothing holds a .grad. The graph methods keep the VJP function make_vjp returned and read
back what its last call returned; inputs built as constants are closed over, not differentiated.
autograd has no modules (no layers, no parameters): no module capabilities.

autograd is imported when the engine is created, never at module import, so the package works without
it; a missing install raises MissingExtraError with the command that installs the extra.
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
    TENSOR,
    Array,
    Engine,
    MissingExtraError,
    Program,
    TensorGraph,
    leaf_flags,
    run_program,
)
from contracts.engines.functional import FunctionalOutput, merge, spread
from contracts.engines.modules import MODULE, ErrorPattern

FUNCTIONAL = (
    "autograd is functional: make_vjp and grad return the gradients of the arguments they differentiate, "
    "and no leaf holds a .grad that a second backward could add into"
)
NO_REQUIRES_GRAD = (
    "autograd has no requires_grad: which arguments are differentiated is the caller's choice (argnum), "
    "so there is no graph of inputs that require no grad whose backward it could refuse"
)
NO_RELU = (
    "autograd.numpy has no relu; the usual np.maximum(0, x) takes maximum's gradient, which autograd "
    "splits 0.5/0.5 at x == 0"
)
NOT_IN_AUTOGRAD = "autograd has no {} of its own (autograd.numpy and autograd.scipy.special have none)"
AUTOGRAD_SCALAR_OPS = ("add", "sub", "mul", "div", "neg", "pow", "exp", "log")


def import_autograd() -> tuple[Any, Any, Any]:
    """autograd, autograd.numpy and autograd.scipy.special, or MissingExtraError naming the extra."""
    try:
        import autograd
        import autograd.numpy as anp
        import autograd.scipy.special as special
    except ImportError:
        raise MissingExtraError("autograd", "autograd", "autograd") from None
    return autograd, anp, special


def scalar_forms(anp: Any) -> dict[str, Callable[..., Any]]:
    """The scalar ops (and the reflected forms programs use): Python's operators on autograd's boxes and
    autograd.numpy's exp and log."""
    return {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "neg": lambda a: -a,
        "pow": lambda a, k: a**k,
        "exp": anp.exp,
        "log": anp.log,
        "radd": lambda a, c: c + a,
        "rsub": lambda a, c: c - a,
        "rmul": lambda a, c: c * a,
        "rdiv": lambda a, c: c / a,
    }


def tensor_forms(anp: Any) -> dict[str, Callable[..., Any]]:
    return {
        "add": lambda a, b: a + b,
        "multiply": lambda a, b: a * b,
        "maximum": anp.maximum,
        "exp": anp.exp,
        "log": anp.log,
        "matmul": anp.matmul,
    }


def param_forms(anp: Any, special: Any) -> dict[str, Callable[..., Any]]:
    """The Stage 06 ops with parameters that autograd has: autograd.numpy's sum and max, and
    autograd.scipy.special.logsumexp."""
    return {
        "sum": lambda x, axis, keepdims=False: anp.sum(x, axis=axis, keepdims=keepdims),
        "max": lambda x, axis, keepdims=False: anp.max(x, axis=axis, keepdims=keepdims),
        "logsumexp": lambda x, axis, keepdims=False: special.logsumexp(x, axis=axis, keepdims=keepdims),
    }


# numpy's messages (autograd.numpy wraps numpy 2) per spec family: an elementwise broadcast (also an
# upstream that does not broadcast onto a gradient), matmul's core dimensions and 0-d operands, an axis
# out of range (numpy's AxisError), a reduction over an empty axis, the implicit seed of a non-scalar
# output (autograd.grad's TypeError)
AUTOGRAD_PATTERNS: tuple[ErrorPattern, ...] = (
    (ValueError, r"^operands could not be broadcast together with (remapped )?shapes", "ShapeError"),
    (ValueError, r"^matmul: Input operand \d+ has a mismatch in its core dimension", "ShapeError"),
    (ValueError, r"^matmul: Input operand \d+ does not have enough dimensions", "ShapeError"),
    (ValueError, r"^axis -?\d+ is out of bounds for array of dimension", "ShapeError"),
    (ValueError, r"^zero-size array to reduction operation", "ShapeError"),
    (TypeError, r"^(Grad|value_and_grad) only applies to real scalar-output functions", "ShapeError"),
)


class AutogradEngine(Engine):
    name: ClassVar[str] = "autograd"
    capabilities: ClassVar[frozenset[str]] = (
        (SCALAR - {"scalar.domain", "scalar.accumulate", "scalar.relu"})
        | (
            TENSOR
            - {
                "tensor.shape-errors",
                "tensor.param-errors",
                "tensor.domain",
                "tensor.relu",
                "tensor.softmax",
                "tensor.log_softmax",
                "tensor.cross_entropy",
                "tensor.rms_norm",
            }
        )
        | PROGRAMS
    )
    conventions: ClassVar[Mapping[str, str]] = {
        "T.rule.tie[maximum]": "np.maximum's gradient in autograd splits 0.5/0.5 between a and b where "
        "a == b; the spec gives all of it to the first argument",
        "S06.rule.max-tie": "np.max's gradient in autograd is split equally among the maximal elements "
        "of the reduced axis; the spec gives all of it to the first",
        "T.rule.backward-again": FUNCTIONAL,
        "T.fail.no-grad": NO_REQUIRES_GRAD,
        "T.order.backward": "orders the no-grad refusal before the missing seed; " + NO_REQUIRES_GRAD,
        # Conventions, not only a lacking tensor.domain: the rows' boundary tests would pass and report
        # the row passed while its refusal, the row's claim, was never checked.
        "T.fail.log-domain": "np.log of an element <= 0 gives -inf or nan (with a RuntimeWarning) "
        "instead of raising",
        "T.fail.exp-overflow": "np.exp of an element above 709.78 gives inf (with a RuntimeWarning) "
        "instead of raising",
    }
    # Python's and numpy's own types keep their names (a complex element, a str exponent, a float axis:
    # TypeError; an int beyond float64: OverflowError); numpy's shape refusals, one TypeError among them,
    # are told apart by message first (AUTOGRAD_PATTERNS); its ValueError is never caught whole
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        TypeError: "TypeError",
        OverflowError: "OverflowError",
    }
    error_patterns: ClassVar[Sequence[ErrorPattern]] = AUTOGRAD_PATTERNS
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.relu": NO_RELU,
        "tensor.relu": NO_RELU,
        "scalar.domain": "autograd computes with numpy's IEEE 754 floats: log(x <= 0) is nan or -inf, "
        "exp(710) = inf, with a RuntimeWarning, instead of a refusal",
        "scalar.accumulate": FUNCTIONAL,
        "tensor.shape-errors": "autograd raises numpy's ValueError (numpy's message) from inside the op, "
        "not ShapeError with the spec's message (its family is checked by tensor.refusals)",
        "tensor.param-errors": "autograd raises numpy's AxisError for a bad axis (its family is checked by "
        "tensor.refusals), not the spec's message",
        "tensor.domain": "autograd computes with numpy's IEEE 754 floats: log(x <= 0) is -inf or nan, "
        "exp(710) and overflowing results or gradients are inf, and nan/inf data or upstreams are "
        "accepted, instead of a refusal",
        "tensor.softmax": NOT_IN_AUTOGRAD.format("softmax"),
        "tensor.log_softmax": NOT_IN_AUTOGRAD.format("log_softmax"),
        "tensor.cross_entropy": NOT_IN_AUTOGRAD.format("cross-entropy"),
        "tensor.rms_norm": NOT_IN_AUTOGRAD.format("RMSNorm"),
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
        **dict.fromkeys(sorted(MODULE), "autograd has no modules (no layers, no parameter objects)"),
    }

    def __init__(self) -> None:
        self.autograd, self.anp, special = import_autograd()
        self.scalar_forms = scalar_forms(self.anp)
        self.tensor_forms = tensor_forms(self.anp)
        self.param_forms = param_forms(self.anp, special)

    def version(self) -> str | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("autograd")
        except PackageNotFoundError:
            return None

    def array(self, data: Any) -> Any:
        """An autograd.numpy float64 array of its own (np.array copies)."""
        return self.anp.array(data, dtype=np.float64)

    def vjp(self, function: Callable[..., Any], primals: Sequence[Any], upstream: Any) -> tuple[Any, Any]:
        """(output, gradients): make_vjp's VJP function with upstream, or value_and_grad (autograd's
        implicit seed, defined for a scalar output only) when upstream is None."""
        argnum = tuple(range(len(primals)))
        if upstream is None:
            out, grads = self.autograd.value_and_grad(function, argnum)(*primals)
            return out, grads
        pullback, out = self.autograd.make_vjp(function, argnum)(*primals)
        return out, pullback(upstream)

    # -- scalar family: Python floats ----------------------------------------------------------------

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        check_op(op, AUTOGRAD_SCALAR_OPS)
        form, extra = self.scalar_forms[op], tuple((constants or {}).values())
        out, grads = self.vjp(lambda *xs: form(*xs, *extra), [float(x) for x in inputs], 1.0)
        return float(out), tuple(float(grad) for grad in grads)

    def scalar_chain_grad(self, depth: int) -> float:
        def chain(x: Any) -> Any:
            for _ in range(depth):
                x = x + 1.0
            return x

        return float(self.autograd.grad(chain)(1.0))

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        check_program(program, self.scalar_forms)
        out, grads = self.vjp(
            lambda *xs: run_program(self.scalar_forms, xs, program), [float(x) for x in leaves], 1.0
        )
        return float(out), tuple(float(grad) for grad in grads)

    # -- tensor family: float64 numpy arrays through autograd.numpy ----------------------------------

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(self.tensor_forms))
        out, grads = self.vjp(self.tensor_forms[op], [self.array(x) for x in inputs], seed(upstream))
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(self.param_forms))
        form = self.param_forms[op]
        out, grads = self.vjp(
            lambda *xs: form(*xs, **params), [self.array(x) for x in inputs], seed(upstream)
        )
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        check_op(op, tuple(self.param_forms))
        return to_array(self.param_forms[op](*(self.array(x) for x in inputs), **params))

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        check_program(program, self.tensor_forms)
        out, grads = self.vjp(
            lambda *xs: run_program(self.tensor_forms, xs, program),
            [self.array(x) for x in leaves],
            seed(upstream),
        )
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_from_data(self, data: Any) -> Array:
        """autograd.numpy.array(data, dtype=float64): what a port asks autograd for."""
        return to_array(self.anp.array(data, dtype=np.float64))

    # -- the graph methods over make_vjp -------------------------------------------------------------

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        """make_vjp of the op over the inputs that require grad; the others are closed over."""
        check_op(op, tuple(self.tensor_forms))
        flags = leaf_flags(requires_grad, len(inputs))
        primals = tuple(self.array(x) for x in inputs)
        form = self.tensor_forms[op]

        def function(*differentiated: Any) -> Any:
            return form(*merge(primals, flags, differentiated))

        chosen = tuple(x for x, flag in zip(primals, flags) if flag)
        pullback, out = self.autograd.make_vjp(function, tuple(range(len(chosen))))(*chosen)
        return TensorGraph(primals, FunctionalOutput(out, pullback, function, chosen, flags))

    def tensor_backward(self, graph: TensorGraph, upstream: Array | None) -> None:
        """The VJP function make_vjp returned, with upstream; with None, autograd.grad of the same
        function (autograd's implicit seed). Its gradients are what tensor_grads reads."""
        node: FunctionalOutput = graph.out
        if upstream is None:
            argnum = tuple(range(len(node.chosen)))
            grads = self.autograd.grad(node.function, argnum)(*node.chosen)
        else:
            grads = node.pullback(seed(upstream))
        node.grads = tuple(to_array(grad) for grad in grads)

    def tensor_grads(self, graph: TensorGraph) -> tuple[Array | None, ...]:
        node: FunctionalOutput = graph.out
        return spread(node.grads, node.flags)


def seed(upstream: Array | None) -> Array | None:
    """The upstream as a float64 array of its own (None: the implicit seed)."""
    return None if upstream is None else np.array(upstream, dtype=np.float64)


def check_op(op: str, known: Sequence[str]) -> None:
    if op not in known:
        raise ValueError(f"autograd engine: op must be one of {sorted(known)}, got {op!r}")


def check_program(program: Program, forms: Mapping[str, Any]) -> None:
    unknown = sorted({op for op, _, _ in program} - set(forms))
    if unknown:
        raise ValueError(f"autograd engine: op must be one of {sorted(forms)}, got {unknown}")


def to_array(value: Any) -> Array:
    """autograd's result (a numpy array or a float) as a float64 numpy array of its own."""
    return np.array(value, dtype=np.float64)

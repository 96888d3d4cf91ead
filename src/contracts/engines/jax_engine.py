"""JAX (0.10.2, CPU, float64 through jax_enable_x64, an optional extra) as an engine: the scalar family
on 0-d float64 arrays and the tensor family on float64 arrays, both through jax.vjp.

JAX is functional: jax.vjp and jax.grad return the cotangents of the arguments they differentiate, and
nothing holds a .grad. The graph methods (tensor_graph, tensor_backward, tensor_grads) keep the
primals and the VJP function jax.vjp returned, and read back the cotangents its last call returned; the
inputs built as constants are closed over, not differentiated (JAX's argnums), so they get none.
JAX has no modules of its own (flax and equinox are separate libraries): no module capabilities.

jax is imported when the engine is created, never at module import, so the package works without it; a
missing install raises MissingExtraError with the command that installs the extra.
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
    SCALAR_OPS,
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
    "JAX is functional: jax.vjp returns the cotangents of the arguments it differentiates, and no leaf "
    "holds a .grad that a second backward could add into"
)
NO_REQUIRES_GRAD = (
    "JAX has no requires_grad: which arguments are differentiated is the caller's choice (argnums), "
    "so there is no graph of inputs that require no grad whose backward it could refuse"
)
NOT_IN_JAX = "JAX has no {} of its own (optax and flax provide one): there is no JAX operation to run"


def import_jax() -> tuple[Any, Any]:
    """jax and jax.numpy with float64 enabled on the CPU, or MissingExtraError naming the extra."""
    try:
        import jax
    except ImportError:
        raise MissingExtraError("jax", "jax", "jax") from None
    config: Any = jax.config
    config.update("jax_enable_x64", True)  # without it every float64 array is silently float32
    config.update("jax_platforms", "cpu")
    import jax.numpy as jnp

    return jax, jnp


def scalar_forms(jax: Any, jnp: Any) -> dict[str, Callable[..., Any]]:
    """The scalar ops (and the reflected forms programs use) on jax arrays: Python's operators, the
    jax.numpy functions and jax.nn.relu."""
    return {
        "add": lambda a, b: a + b,
        "sub": lambda a, b: a - b,
        "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b,
        "neg": lambda a: -a,
        "pow": lambda a, k: a**k,
        "relu": jax.nn.relu,
        "exp": jnp.exp,
        "log": jnp.log,
        "radd": lambda a, c: c + a,
        "rsub": lambda a, c: c - a,
        "rmul": lambda a, c: c * a,
        "rdiv": lambda a, c: c / a,
    }


def tensor_forms(jax: Any, jnp: Any) -> dict[str, Callable[..., Any]]:
    return {
        "add": lambda a, b: a + b,
        "multiply": lambda a, b: a * b,
        "maximum": jnp.maximum,
        "exp": jnp.exp,
        "log": jnp.log,
        "matmul": lambda a, b: a @ b,
        "relu": jax.nn.relu,
    }


def param_forms(jax: Any, jnp: Any) -> dict[str, Callable[..., Any]]:
    """The Stage 06 ops with parameters that JAX has: jax.numpy's reductions and jax.nn's softmax family."""
    return {
        "sum": lambda x, axis, keepdims=False: jnp.sum(x, axis=axis, keepdims=keepdims),
        "max": lambda x, axis, keepdims=False: jnp.max(x, axis=axis, keepdims=keepdims),
        "logsumexp": lambda x, axis, keepdims=False: jax.nn.logsumexp(x, axis=axis, keepdims=keepdims),
        "softmax": lambda x, axis: jax.nn.softmax(x, axis=axis),
        "log_softmax": lambda x, axis: jax.nn.log_softmax(x, axis=axis),
    }


# JAX's messages (0.10.2) per spec family: an elementwise broadcast (TypeError), matmul's inner and batch
# dimensions and 0-d operands, an axis out of range, a reduction over an empty axis, an upstream whose
# shape is not the output's, the implicit seed of a non-scalar output (jax.grad's TypeError).
JAX_PATTERNS: tuple[ErrorPattern, ...] = (
    (TypeError, r"got incompatible shapes for broadcasting", "ShapeError"),
    (TypeError, r"^dot_general requires contracting dimensions to have the same shape", "ShapeError"),
    (TypeError, r"^Gradient only defined for scalar-output functions", "ShapeError"),
    (ValueError, r"^Incompatible shapes for broadcasting", "ShapeError"),
    (ValueError, r"^matmul input operand \d must have ndim at least 1", "ShapeError"),
    (ValueError, r"^Incompatible types for matmul arguments", "ShapeError"),
    (ValueError, r"^axis -?\d+ is out of bounds for array of dimension", "ShapeError"),
    (ValueError, r"^zero-size array to reduction operation", "ShapeError"),
    (ValueError, r"^unexpected JAX type \(e\.g\. shape/dtype\) for argument to VJP function", "ShapeError"),
)


class JaxEngine(Engine):
    name: ClassVar[str] = "jax"
    capabilities: ClassVar[frozenset[str]] = (
        (SCALAR - {"scalar.domain", "scalar.accumulate"})
        | (
            TENSOR
            - {
                "tensor.shape-errors",
                "tensor.param-errors",
                "tensor.domain",
                "tensor.cross_entropy",
                "tensor.rms_norm",
            }
        )
        | PROGRAMS
    )
    conventions: ClassVar[Mapping[str, str]] = {
        # only maximum's case: jax.nn.relu's gradient at 0 is 0, as the spec says, so the relu case runs
        "T.rule.tie[maximum]": "jnp.maximum splits the gradient 0.5/0.5 between a and b where a == b; "
        "the spec gives all of it to the first argument",
        "S06.rule.max-tie": "jnp.max's gradient is split equally among the maximal elements of the "
        "reduced axis; the spec gives all of it to the first",
        "T.rule.backward-again": FUNCTIONAL,
        "T.fail.no-grad": NO_REQUIRES_GRAD,
        "T.order.backward": "orders the no-grad refusal before the missing seed; " + NO_REQUIRES_GRAD,
        # Conventions, not only a lacking tensor.domain: the rows' boundary tests would pass on JAX and
        # report the row passed while its refusal, the row's claim, was never checked.
        "T.fail.log-domain": "jnp.log of an element <= 0 gives -inf or nan instead of raising",
        "T.fail.exp-overflow": "jnp.exp of an element above 709.78 gives inf instead of raising",
    }
    # Python's own types keep their names (a complex element, a str exponent, a float axis: TypeError;
    # an int beyond float64: OverflowError); JAX's shape refusals, TypeErrors among them, are told apart
    # by message first (JAX_PATTERNS); its ValueError is never caught whole
    error_families: ClassVar[Mapping[type[BaseException], str]] = {
        TypeError: "TypeError",
        OverflowError: "OverflowError",
    }
    error_patterns: ClassVar[Sequence[ErrorPattern]] = JAX_PATTERNS
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.domain": "JAX follows IEEE 754: log(x <= 0) is nan or -inf, exp(710) = inf and 1/0 = inf "
        "instead of a refusal",
        "scalar.accumulate": FUNCTIONAL,
        "tensor.shape-errors": "JAX raises its own TypeError or ValueError (its own message) from inside "
        "the op, not ShapeError with the spec's message (its family is checked by tensor.refusals)",
        "tensor.param-errors": "JAX raises its own ValueError for a bad axis (its family is checked by "
        "tensor.refusals), not the spec's message",
        "tensor.domain": "JAX follows IEEE 754: log(x <= 0) is -inf or nan, exp(710) and overflowing "
        "results or gradients are inf, and nan/inf data or upstreams are accepted, instead of a refusal",
        "tensor.cross_entropy": NOT_IN_JAX.format("cross-entropy"),
        "tensor.rms_norm": NOT_IN_JAX.format("RMSNorm"),
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
        **dict.fromkeys(
            sorted(MODULE), "JAX has no modules of its own (flax and equinox are separate libraries)"
        ),
    }

    def __init__(self) -> None:
        self.jax, self.jnp = import_jax()
        self.scalar_forms = scalar_forms(self.jax, self.jnp)
        self.tensor_forms = tensor_forms(self.jax, self.jnp)
        self.param_forms = param_forms(self.jax, self.jnp)

    def version(self) -> str | None:
        return str(self.jax.__version__)

    def array(self, data: Any) -> Any:
        """A jax float64 array of its own (jnp.array copies)."""
        return self.jnp.array(np.asarray(data, dtype=np.float64), dtype=self.jnp.float64)

    def vjp(self, function: Callable[..., Any], primals: Sequence[Any], upstream: Any) -> tuple[Any, Any]:
        """(output, cotangents): jax.vjp with upstream, or jax.value_and_grad (JAX's implicit seed,
        defined for a scalar output only) when upstream is None."""
        argnums = tuple(range(len(primals)))
        if upstream is None:
            out, grads = self.jax.value_and_grad(function, argnums=argnums)(*primals)
            return out, grads
        out, pullback = self.jax.vjp(function, *primals)
        return out, pullback(self.array(upstream))

    # -- scalar family: 0-d float64 arrays ----------------------------------------------------------

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        check_op(op, SCALAR_OPS)
        form, extra = self.scalar_forms[op], tuple((constants or {}).values())
        out, grads = self.vjp(lambda *xs: form(*xs, *extra), [self.array(float(x)) for x in inputs], 1.0)
        return float(out), tuple(float(grad) for grad in grads)

    def scalar_chain_grad(self, depth: int) -> float:
        def chain(x: Any) -> Any:
            for _ in range(depth):
                x = x + 1.0
            return x

        return float(self.jax.grad(chain)(self.array(1.0)))

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        check_program(program, self.scalar_forms)
        out, grads = self.vjp(
            lambda *xs: run_program(self.scalar_forms, xs, program),
            [self.array(float(x)) for x in leaves],
            1.0,
        )
        return float(out), tuple(float(grad) for grad in grads)

    # -- tensor family ------------------------------------------------------------------------------

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(self.tensor_forms))
        out, grads = self.vjp(self.tensor_forms[op], [self.array(x) for x in inputs], upstream)
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        check_op(op, tuple(self.param_forms))
        form = self.param_forms[op]
        out, grads = self.vjp(lambda *xs: form(*xs, **params), [self.array(x) for x in inputs], upstream)
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        check_op(op, tuple(self.param_forms))
        return to_array(self.param_forms[op](*(self.array(x) for x in inputs), **params))

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        check_program(program, self.tensor_forms)
        out, grads = self.vjp(
            lambda *xs: run_program(self.tensor_forms, xs, program), [self.array(x) for x in leaves], upstream
        )
        return to_array(out), tuple(to_array(grad) for grad in grads)

    def tensor_from_data(self, data: Any) -> Array:
        """jnp.array(data, dtype=jnp.float64): what a port asks JAX for."""
        return to_array(self.jnp.array(data, dtype=self.jnp.float64))

    # -- the graph methods over jax.vjp -------------------------------------------------------------

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        """jax.vjp of the op over the inputs that require grad; the others are closed over."""
        check_op(op, tuple(self.tensor_forms))
        flags = leaf_flags(requires_grad, len(inputs))
        primals = tuple(self.array(x) for x in inputs)
        form = self.tensor_forms[op]

        def function(*differentiated: Any) -> Any:
            return form(*merge(primals, flags, differentiated))

        chosen = tuple(x for x, flag in zip(primals, flags) if flag)
        out, pullback = self.jax.vjp(function, *chosen)
        return TensorGraph(primals, FunctionalOutput(out, pullback, function, chosen, flags))

    def tensor_backward(self, graph: TensorGraph, upstream: Array | None) -> None:
        """The VJP function jax.vjp returned, with upstream; with None, jax.grad of the same function
        (JAX's implicit seed). The cotangents it returns are what tensor_grads reads."""
        node: FunctionalOutput = graph.out
        if upstream is None:
            argnums = tuple(range(len(node.chosen)))
            grads = self.jax.grad(node.function, argnums=argnums)(*node.chosen)
        else:
            grads = node.pullback(self.array(upstream))
        node.grads = tuple(to_array(grad) for grad in grads)

    def tensor_grads(self, graph: TensorGraph) -> tuple[Array | None, ...]:
        node: FunctionalOutput = graph.out
        return spread(node.grads, node.flags)


def check_op(op: str, known: Sequence[str]) -> None:
    if op not in known:
        raise ValueError(f"jax engine: op must be one of {sorted(known)}, got {op!r}")


def check_program(program: Program, forms: Mapping[str, Any]) -> None:
    unknown = sorted({op for op, _, _ in program} - set(forms))
    if unknown:
        raise ValueError(f"jax engine: op must be one of {sorted(forms)}, got {unknown}")


def to_array(value: Any) -> Array:
    """A jax array's values as a numpy array of their own."""
    return np.array(value)

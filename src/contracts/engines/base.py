"""The engine-under-test protocol: what an engine must provide for each spec family.

An adapter declares its capabilities (a row needing one it lacks is "not applicable", never
silently passed) and its conventions (rows where the engine differs from the spec by design, with
the reason). Values cross the boundary as Python floats and numpy float64 arrays, so the tests
stay engine-neutral.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from contracts.core.init import InitSpec
from contracts.engines.modules import ErrorPattern, ParameterIdentity, ParameterInfo, family_of

Array = NDArray[np.float64]

SCALAR_OPS = ("add", "sub", "mul", "div", "neg", "pow", "relu", "exp", "log")
# Each scalar op through Python's operators and the relu/exp/log methods that the reference Value,
# torch tensors and micrograd's Value (relu only) all spell the same way.
SCALAR_FORMS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "neg": lambda a: -a,
    "pow": lambda a, k: a**k,
    "relu": lambda a: a.relu(),
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
}
# Programs may also put a constant on the left of a binary op (c + v, c - v, c * v, c / v), through the
# reflected operators every engine's scalar type has.
REFLECTED_FORMS: dict[str, Callable[..., Any]] = {
    "radd": lambda a, c: c + a,
    "rsub": lambda a, c: c - a,
    "rmul": lambda a, c: c * a,
    "rdiv": lambda a, c: c / a,
}
PROGRAM_FORMS: dict[str, Callable[..., Any]] = {**SCALAR_FORMS, **REFLECTED_FORMS}
SCALAR = frozenset(f"scalar.{op}" for op in SCALAR_OPS) | {
    "scalar.deep-graph",  # backward through a 10^6-node chain
    "scalar.accumulate",  # leaf grads accumulate across backward calls, exactly
    "scalar.domain",  # log of x <= 0, exp overflow, ... refused before a node exists
}
TENSOR_OPS = ("add", "multiply", "maximum", "exp", "log", "matmul", "relu")
# Stage 06/08 ops with parameters, run through tensor_vjp_with: axis (int) and keepdims (bool) for
# sum, max, logsumexp; axis for softmax, log_softmax; targets (an int64 array of the batch shape) for
# cross_entropy; eps (float) for rms_norm (inputs x and gain).
TENSOR_PARAM_OPS = ("sum", "max", "logsumexp", "softmax", "log_softmax", "cross_entropy", "rms_norm")
TENSOR = frozenset(f"tensor.{op}" for op in TENSOR_OPS + TENSOR_PARAM_OPS) | {
    "tensor.shape-errors",
    "tensor.param-errors",  # bad axis, targets, eps or gain refused (typed, named) before any node
    # refused with the engine's own exceptions, mapped onto the spec's families (error_families,
    # error_patterns): bad shapes, parameters and backward calls; a refused backward writes no .grad
    "tensor.refusals",
    "tensor.data",  # tensor_from_data: the engine's float64 tensor from user data (T.rule.dtype)
    # tensor_graph with one requires_grad flag per input: a constant gets no .grad (T.rule.constant-leaf)
    "tensor.constants",
    # domain refusals: log of x <= 0, exp overflow, overflowing results and gradients, nan/inf data and
    # upstreams; an IEEE engine computes inf/nan instead and lacks it (its boundary rows still run)
    "tensor.domain",
}
# Reference-only families: exercised through the reference implementation's own types.
# Why an adapter of another engine lacks the reference-only families.
REFERENCE_ONLY = "a reference-only family: its tests exercise this project's own types, not the engine"
CONTRACT_FAMILIES = frozenset({"shapes", "embedding", "linear", "spec", "tensor.api", "scalar.value-api"})


# The dtypes an engine may declare (Engine.dtype); the spec row T.rule.tolerance says how each
# comparison's tolerance scales with the dtype's machine epsilon and which rows hold only at float64.
DTYPES = ("float64", "float32")
# A convention for one case of a row: "ROW_ID[case]", the case one of the ids the row's `cases` lists.
CASE_KEY = re.compile(r"(?P<row>[^\[\]]+)\[(?P<case>[^\[\]]+)\]")


def convention_target(key: str) -> tuple[str, str | None]:
    """The row id and case id (None: the whole row) a conventions key names."""
    match = CASE_KEY.fullmatch(key)
    return (key, None) if match is None else (match["row"], match["case"])


class MissingExtraError(ImportError):
    """An adapter's engine is not installed: the message says which extra installs it."""

    def __init__(self, engine: str, module: str, extra: str) -> None:
        super().__init__(
            f"the {engine} engine needs the {module!r} package, which is not installed; "
            f"install the extra with: pip install -e '.[{extra}]'  (or: pip install 'contracts[{extra}]')"
        )
        self.engine = engine
        self.extra = extra


class Engine:
    """Base adapter. Subclasses set name, capabilities, conventions and implement what they claim."""

    name: ClassVar[str] = "abstract"
    capabilities: ClassVar[frozenset[str]] = frozenset()
    # row id -> why this engine differs from the spec by design (the row's tests are n/a, not failed);
    # "ROW_ID[case]" -> why, for one of the cases the row lists (only that case's tests are n/a)
    conventions: ClassVar[Mapping[str, str]] = {}
    # the floating dtype the engine computes in (one of DTYPES): tolerances scale with its epsilon
    dtype: ClassVar[str] = "float64"
    # capability -> why the engine lacks it (optional: only makes the "not applicable" reason clearer)
    lacking: ClassVar[Mapping[str, str]] = {}

    def lacks(self, capability: str, row_id: str | None = None, case: str | None = None) -> str | None:
        """None when the engine can run the row (the given case of it; None: a test of every case);
        otherwise the reason it is not applicable."""
        convention = self.convention(row_id, case) if row_id is not None else None
        if convention is not None:
            return convention
        if capability not in self.capabilities:
            why = self.lacking.get(capability)
            return f"{self.name} does not provide {capability}" + (f" ({why})" if why else "")
        return None

    def convention(self, row_id: str, case: str | None) -> str | None:
        """The reason the engine's convention leaves the row (or the given case of it) out, else None.
        A test of no particular case (case None) covers every case, so any case convention leaves it out."""
        if row_id in self.conventions:
            return f"{self.name} convention: {self.conventions[row_id]}"
        for key, why in self.conventions.items():
            target, case_id = convention_target(key)
            if target == row_id and case in (None, case_id):
                return f"{self.name} convention for {key}: {why}"
        return None

    def version(self) -> str | None:
        """The engine's own version, for the report (None when it has none)."""
        return None

    # -- scalar autodiff ---------------------------------------------------------------------------

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        """Forward value of op(inputs) and d(out)/d(input) for each input (upstream gradient 1)."""
        raise NotImplementedError(f"{self.name}: scalar_vjp")

    def scalar_chain_grad(self, depth: int) -> float:
        """d(out)/d(x) where out = x + 1 + 1 + ... (depth additions), one backward call."""
        raise NotImplementedError(f"{self.name}: scalar_chain_grad")

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        """Leaf grads of a and b after calling backward twice on out = h * h + a, h = a * b (one node)."""
        raise NotImplementedError(f"{self.name}: scalar_backward_twice")

    # -- tensor ops --------------------------------------------------------------------------------

    def tensor_vjp(
        self, op: str, inputs: Sequence[Array], upstream: Array | None
    ) -> tuple[Array, tuple[Array, ...]]:
        """Forward output and the vector-Jacobian product with upstream for each input.

        upstream None means the output is a scalar and backward seeds 1.
        """
        raise NotImplementedError(f"{self.name}: tensor_vjp")

    # -- refusals observed through the adapter (tensor.refusals, tensor.data) ----------------------

    def tensor_graph(
        self, op: str, inputs: Sequence[Array], requires_grad: bool | Sequence[bool]
    ) -> TensorGraph:
        """The engine's leaves over inputs (requiring grad or not) and op's output node over them.

        requires_grad is one flag for every leaf, or (only asked of an engine with tensor.constants) one
        flag per input: leaf_flags gives the flags either way."""
        raise self.missing("tensor_graph")

    def tensor_backward(self, graph: TensorGraph, upstream: Array | None) -> None:
        """backward from graph's output with upstream (None: the implicit scalar seed); repeatable."""
        raise self.missing("tensor_backward")

    def tensor_grads(self, graph: TensorGraph) -> tuple[Array | None, ...]:
        """Each leaf's .grad now as float64 (None where the engine has written none)."""
        raise self.missing("tensor_grads")

    def tensor_forward_with(self, op: str, inputs: Sequence[Array], params: Mapping[str, Any]) -> Array:
        """Only the forward of an op of TENSOR_PARAM_OPS (a refusal of its parameters raises here)."""
        raise self.missing("tensor_forward_with")

    def tensor_from_data(self, data: Any) -> Array:
        """The engine's float64 tensor built from user data (lists, numbers, arrays), as numpy in the
        engine's own dtype (not converted by the adapter)."""
        raise self.missing("tensor_from_data")

    # -- composite programs: gradients through whole DAGs, not one op at a time ---------------------

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        """Build program over the leaves (see run_program) with scalar ops, call backward once on its
        last node; the output value and d(out)/d(leaf) for each leaf (0 where out does not depend on it)."""
        raise NotImplementedError(f"{self.name}: scalar_program_grads")

    def tensor_program_vjp(
        self, program: Program, leaves: Sequence[Array], upstream: Array
    ) -> tuple[Array, tuple[Array, ...]]:
        """Build program over the leaves with tensor ops, call backward once on its last node with
        upstream; the output and d(sum(upstream * out))/d(leaf) for each leaf (zeros where out does not
        depend on it)."""
        raise NotImplementedError(f"{self.name}: tensor_program_vjp")

    def tensor_vjp_with(
        self, op: str, inputs: Sequence[Array], upstream: Array | None, params: Mapping[str, Any]
    ) -> tuple[Array, tuple[Array, ...]]:
        """tensor_vjp for an op of TENSOR_PARAM_OPS; params holds its non-differentiable arguments."""
        raise NotImplementedError(f"{self.name}: tensor_vjp_with")

    # -- module level: port conformance (plain-data types in contracts.engines.modules) ------------
    # A module is the engine's own object, opaque to the tests. Capabilities: modules.MODULE.
    # Engine exception type -> the spec's exception family (a declared mapping, never a catch-all).
    error_families: ClassVar[Mapping[type[BaseException], str]] = {}

    # (type, message regex, family), tried before error_families: one generic engine type told apart
    # by its message (never a catch-all: an unmatched message stays unmapped)
    error_patterns: ClassVar[Sequence[ErrorPattern]] = ()

    def error_family(self, error: BaseException) -> str | None:
        """The spec family the engine's exception maps to (None: the engine's type is unmapped)."""
        return family_of(self.error_families, error, self.error_patterns)

    def missing(self, method: str) -> NotImplementedError:
        return NotImplementedError(f"{self.name}: {method}")

    def module_embedding(self, vocab_size: int, context_length: int, width: int) -> Any:
        """Token (V, D) and position (C, D) tables; forward(token ids) -> (T, D)."""
        raise self.missing("module_embedding")

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> Any:
        """A Linear layer named fc1 (logical names fc1.weight, fc1.bias); forward((T, C_in)) -> (T, C_out)."""
        raise self.missing("module_linear")

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> Any:
        """Linear -> ReLU -> ... -> Linear named mlp (mlp.fc1.weight, ...); init as ModelPlan.mlp's roles."""
        raise self.missing("module_mlp")

    def module_block(
        self,
        width: int,
        widths: Sequence[int],
        eps: float,
        use_bias: bool,
        init: InitSpec | None,
        gain_init: float,
    ) -> Any:
        """RMSNorm over width C (gain (C,) starting at gain_init, eps), then an MLP over widths (as
        module_mlp, init for its weights only), then the residual: forward((T, C)) = x + MLP(RMSNorm(x)).
        Logical names block.norm.gain, block.mlp.fc1.weight, ...; a block whose widths do not connect
        (widths[0] != C or widths[-1] != C) is built only if the engine builds it."""
        raise self.missing("module_block")

    def module_norm_forward(self, module: Any, inputs: Any) -> Array:
        """The block's RMSNorm alone on a (T, C) float64 array (a port's block.norm(x)), as float64."""
        raise self.missing("module_norm_forward")

    def module_assign(self, module: Any, name: str, values: Array) -> None:
        """Write values (logical layout) into one parameter in place, its storage kept (a port's
        load_state_dict); the block rows' hand-chosen weights and gains."""
        raise self.missing("module_assign")

    def module_parameters(self, module: Any) -> tuple[ParameterInfo, ...]:
        """Every parameter tensor, in the module's order, under its logical name."""
        raise self.missing("module_parameters")

    def module_state(self, module: Any) -> dict[str, Array]:
        """Logical name -> the parameter's current values (float64, in the logical layout)."""
        raise self.missing("module_state")

    def module_forward(self, module: Any, inputs: Any) -> Array:
        """One forward: token ids (embedding) or a (T, C_in) float64 array; the output as float64."""
        raise self.missing("module_forward")

    def module_identities(self, module: Any) -> tuple[ParameterIdentity, ...]:
        """Physical identity of every parameter tensor, read from the module's storage now."""
        raise self.missing("module_identities")

    def module_sgd_step(self, module: Any, inputs: Any, learning_rate: float) -> None:
        """loss = sum of one forward's outputs; backward; p -= learning_rate * grad, in place."""
        raise self.missing("module_sgd_step")

    def module_replace_parameter(self, module: Any, name: str) -> object:
        """Swap the storage of one parameter for a copy (a careless port); returns the old storage."""
        raise self.missing("module_replace_parameter")

    def module_graph_nodes(self, module: Any, inputs: Any) -> int:
        """Operation nodes one forward over inputs created, counted by walking the engine's graph."""
        raise self.missing("module_graph_nodes")


@dataclass(frozen=True, slots=True)
class TensorGraph:
    """An engine's leaves and one op's output over them (opaque engine objects)."""

    leaves: tuple[Any, ...]
    out: Any


# A program is a DAG as plain data: node i < len(leaves) is leaf i; instruction j makes node
# len(leaves) + j as op(nodes[operands...], *constants); the last node is the output. The same data
# builds the graph on any engine, and a test can rewrite it (e.g. as a tree) without an engine.
Instruction = tuple[str, tuple[int, ...], tuple[float, ...]]
Program = Sequence[Instruction]
PROGRAMS = frozenset({"scalar.program", "tensor.program"})


def leaf_flags(requires_grad: bool | Sequence[bool], count: int) -> tuple[bool, ...]:
    """tensor_graph's requires_grad as one flag per leaf."""
    if isinstance(requires_grad, bool):
        return (requires_grad,) * count
    return tuple(requires_grad)


def run_program(forms: Mapping[str, Callable[..., Any]], leaves: Sequence[Any], program: Program) -> Any:
    """The program's output node, built from the engine's leaf nodes with forms[op] per instruction."""
    nodes = list(leaves)
    for op, operands, constants in program:
        nodes.append(forms[op](*(nodes[index] for index in operands), *constants))
    return nodes[-1]

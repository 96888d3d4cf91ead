"""micrograd (0.1.0, an optional extra) as an engine for the scalar family.

micrograd's Value has + - * / ** neg relu and backward, and no exp or log. Two rows fail on it by
design of micrograd, and are claimed so that they fail by name rather than hide:
S03.rule.deep-graph (its recursive topological sort raises RecursionError at a chain depth of about
1,000) and S03.rule.accumulate (a second backward re-seeds only the output, so the intermediate
gradients left from the first call are added again and the leaves over-accumulate).
"""

from __future__ import annotations

import functools
import gc
import operator
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, ClassVar

import numpy as np

from contracts.core.init import InitSpec
from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAM_FORMS,
    REFERENCE_ONLY,
    REFLECTED_FORMS,
    SCALAR_FORMS,
    TENSOR,
    Array,
    Engine,
    MissingExtraError,
    Program,
    run_program,
)
from contracts.engines.modules import (
    MODULE,
    ModuleUnsupported,
    ParameterIdentity,
    ParameterInfo,
    SizeUnsupported,
    count_operation_nodes,
)

MICROGRAD_OPS = ("add", "sub", "mul", "div", "neg", "pow", "relu")
NO_BIAS_FREE = "micrograd's Neuron always has a bias b = Value(0): a bias-free Linear or MLP cannot be built"
NO_INIT = (
    "micrograd's Neuron draws every weight from random.uniform(-1, 1) (variance 1/3 whatever C_in) and "
    "takes no initializer, so the spec's InitSpec (variance gain²/C_in or 2·gain²/C_in) cannot be applied"
)


def import_value() -> Any:
    """micrograd's Value class, or MissingExtraError naming the extra that installs it."""
    try:
        from micrograd.engine import Value
    except ImportError:
        raise MissingExtraError("micrograd", "micrograd", "micrograd") from None
    return Value


def backward(out: Any, graph: str) -> None:
    """out.backward(); micrograd's RecursionError is raised again from this one place, outside the
    handler, so hypothesis sees one failure (not one per frame where the limit happened to hit, a
    FlakyFailure on replay) and shrinks it to the smallest failing graph. The failure is micrograd's."""
    failure: RecursionError | None = None
    try:
        out.backward()
    except RecursionError as error:
        failure = error
    if failure is not None:
        raise RecursionError(
            f"micrograd's recursive topological sort exceeded Python's recursion limit "
            f"({sys.getrecursionlimit()}) on {graph}"
        )


class MicrogradEngine(Engine):
    name: ClassVar[str] = "micrograd"
    capabilities: ClassVar[frozenset[str]] = frozenset(
        {f"scalar.{op}" for op in MICROGRAD_OPS}
        | {"scalar.deep-graph", "scalar.accumulate", "scalar.program"}
        | (MODULE - {"module.embedding", "module.init", "module.block"})
    )
    # micrograd raises only Python's own errors (range() of a non-int size: TypeError)
    error_families: ClassVar[Mapping[type[BaseException], str]] = {TypeError: "TypeError"}
    lacking: ClassVar[Mapping[str, str]] = {
        "scalar.exp": "micrograd 0.1.0's Value has no exp",
        "scalar.log": "micrograd 0.1.0's Value has no log",
        "scalar.domain": "micrograd has no domain checks: 1/0 raises Python's own ZeroDivisionError "
        "from float division and (-8) ** 0.5 gives a complex number",
        **dict.fromkeys(sorted(TENSOR | {"tensor.program"}), "micrograd is a scalar engine"),
        **dict.fromkeys(sorted(CONTRACT_FAMILIES), REFERENCE_ONLY),
        "module.embedding": "micrograd.nn has no embedding module (only Neuron, Layer and MLP)",
        "module.init": NO_INIT,
        "module.block": "micrograd.nn has no RMSNorm (only Neuron, Layer and MLP): a block "
        "x + MLP(RMSNorm(x)) cannot be built from micrograd's own modules",
    }

    def __init__(self) -> None:
        self.value_type = import_value()
        from micrograd import nn  # imported with Value, so it is installed

        self.nn = nn

    def version(self) -> str | None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("micrograd")
        except PackageNotFoundError:
            return None

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        if op not in MICROGRAD_OPS:
            raise ValueError(f"micrograd engine: op must be one of {sorted(MICROGRAD_OPS)}, got {op!r}")
        leaves = [self.value_type(float(x)) for x in inputs]
        out = SCALAR_FORMS[op](*leaves, *(constants or {}).values())
        out.backward()
        return float(out.data), tuple(float(leaf.grad) for leaf in leaves)

    def scalar_chain_grad(self, depth: int) -> float:
        x = self.value_type(1.0)
        out = x
        # Every micrograd node is in a reference cycle (its _backward closure): with the collector
        # on, building 10^6 of them takes ~13 s instead of ~3 s. The result does not change.
        collecting = gc.isenabled()
        gc.disable()
        try:
            for _ in range(depth):
                out = out + 1.0
        finally:
            if collecting:
                gc.enable()
        backward(out, f"a chain of depth {depth}")
        return float(x.grad)

    def scalar_backward_twice(self, a: float, b: float) -> tuple[float, float]:
        left, right = self.value_type(a), self.value_type(b)
        shared = left * right
        out = shared * shared + left
        out.backward()
        out.backward()
        return float(left.grad), float(right.grad)

    def scalar_program_grads(
        self, program: Program, leaves: Sequence[float]
    ) -> tuple[float, tuple[float, ...]]:
        known = (*MICROGRAD_OPS, *REFLECTED_FORMS)
        unknown = sorted({op for op, _, _ in program} - set(known))
        if unknown:
            raise ValueError(f"micrograd engine: op must be one of {sorted(known)}, got {unknown}")
        nodes = [self.value_type(float(x)) for x in leaves]
        out = run_program(PROGRAM_FORMS, nodes, program)
        backward(out, f"a program of {len(program)} operations")
        return float(out.data), tuple(float(node.grad) for node in nodes)

    # -- module level: micrograd.nn.Layer and MLP ---------------------------------------------------

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> MicrogradModule:
        check_buildable(use_bias, init)
        layer = self.nn.MLP(in_features, [out_features]).layers[0]  # an MLP's last layer is linear
        return MicrogradModule(layer, (("fc1", layer),))

    def module_mlp(
        self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None
    ) -> MicrogradModule:
        check_buildable(use_bias, init)
        if 1 in widths[1:-1]:
            raise SizeUnsupported(
                "a 1-neuron micrograd Layer returns a bare Value, which the next Layer cannot iterate "
                "(TypeError: 'Value' object is not iterable): hidden width 1 does not run, "
                f"widths {list(widths)}"
            )
        model = self.nn.MLP(widths[0], list(widths[1:]))
        return MicrogradModule(
            model, tuple((f"mlp.fc{index + 1}", layer) for index, layer in enumerate(model.layers))
        )

    def module_parameters(self, built: MicrogradModule) -> tuple[ParameterInfo, ...]:
        return tuple(ParameterInfo(name, shape, len(values)) for name, shape, values, _ in tensors(built))

    def module_state(self, built: MicrogradModule) -> dict[str, Array]:
        return {
            name: np.array([float(v.data) for v in values]).reshape(shape)
            for name, shape, values, _ in tensors(built)
        }

    def module_forward(self, built: MicrogradModule, inputs: Any) -> Array:
        return np.array([[float(v.data) for v in row] for row in self.run(built, inputs)])

    def run(self, built: MicrogradModule, inputs: Any) -> list[list[Any]]:
        """micrograd's module on each token row (it takes one input vector at a time)."""
        outputs = [built.module([float(x) for x in row]) for row in np.asarray(inputs)]
        # a 1-output layer returns a bare Value rather than a list of one
        return [[out] if isinstance(out, self.value_type) else list(out) for out in outputs]

    def module_identities(self, built: MicrogradModule) -> tuple[ParameterIdentity, ...]:
        return tuple(
            ParameterIdentity(name, tuple(map(id, holders)), tuple(map(id, values)))
            for name, _, values, holders in tensors(built)
        )

    def module_sgd_step(self, built: MicrogradModule, inputs: Any, learning_rate: float) -> None:
        loss = functools.reduce(operator.add, (v for row in self.run(built, inputs) for v in row))
        built.module.zero_grad()
        loss.backward()
        for parameter in built.module.parameters():
            parameter.data -= learning_rate * parameter.grad

    def module_replace_parameter(self, built: MicrogradModule, name: str) -> object:
        layer = dict(built.layers)[name.rpartition(".")[0]]
        neuron = layer.neurons[0]
        if name.endswith(".bias"):
            old_bias = neuron.b
            neuron.b = self.value_type(old_bias.data)
            return old_bias
        old_weights = neuron.w
        neuron.w = [self.value_type(v.data) for v in old_weights]
        return old_weights

    def module_graph_nodes(self, built: MicrogradModule, inputs: Any) -> int:
        return count_operation_nodes((v for row in self.run(built, inputs) for v in row), PREVIOUS)


@dataclass(frozen=True, slots=True)
class MicrogradModule:
    """A micrograd Layer or MLP and its layers under the seeds' names (fc1 or mlp.fc1, ...)."""

    module: Any
    layers: tuple[tuple[str, Any], ...]


PREVIOUS = attrgetter("_prev")


def check_buildable(use_bias: bool, init: InitSpec | None) -> None:
    if not use_bias:
        raise ModuleUnsupported(NO_BIAS_FREE)
    if init is not None:
        raise ModuleUnsupported(NO_INIT)


Tensor = tuple[str, tuple[int, ...], list[Any], list[Any]]


def tensors(built: MicrogradModule) -> list[Tensor]:
    """(logical name, shape, its micrograd Values row-major, the objects holding them), layer by
    layer: weight (C_out, C_in) from each neuron's w list, then bias (C_out,) from each neuron's b."""
    found: list[Tensor] = []
    for prefix, layer in built.layers:
        neurons = layer.neurons
        shape = (len(neurons), len(neurons[0].w))
        found.append((f"{prefix}.weight", shape, [v for n in neurons for v in n.w], [n.w for n in neurons]))
        found.append((f"{prefix}.bias", shape[:1], [n.b for n in neurons], list(neurons)))
    return found

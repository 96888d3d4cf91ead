"""Deliberately broken module adapters: the port tests must fail exactly the rows each one breaks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from contracts.core.embedding import Embedding
from contracts.core.init import InitSpec
from contracts.core.linear import Linear
from contracts.core.model import MLP
from contracts.core.shapes import Matrix
from contracts.engines.modules import ModuleUnsupported, ParameterInfo
from contracts.engines.reference import ReferenceEngine, holders
from contracts.engines.torch_engine import TorchEngine, TorchModule, float64, to_array


class WrongParameterCount(ReferenceEngine):
    """The reference, except the first parameter tensor reports one number fewer than it holds."""

    name: ClassVar[str] = "broken-count"

    def module_parameters(self, module: Any) -> tuple[ParameterInfo, ...]:
        first, *rest = super().module_parameters(module)
        return (ParameterInfo(first.name, first.shape, first.count - 1), *rest)


class RenamedParameter(ReferenceEngine):
    """The reference, except layer fc1 reports its parameters as linear1 (a checkpoint key drifts)."""

    name: ClassVar[str] = "broken-name"

    def module_parameters(self, module: Any) -> tuple[ParameterInfo, ...]:
        return tuple(
            ParameterInfo(info.name.replace("fc1.", "linear1."), info.shape, info.count)
            for info in super().module_parameters(module)
        )


class ForwardReplacesParameter(ReferenceEngine):
    """The reference, except every forward swaps the first parameter's storage for a copy."""

    name: ClassVar[str] = "broken-forward"

    def __init__(self) -> None:
        self.replaced: list[object] = []  # kept alive: a freed object's id could be reused

    def module_forward(self, module: Any, inputs: Any) -> Any:
        output = super().module_forward(module, inputs)
        first, _ = holders(module)[0]
        self.replaced.append(self.module_replace_parameter(module, first))
        return output


class ExtraGraphNode(ReferenceEngine):
    """The reference, except every forward multiplies its first output by 1.0: one node more."""

    name: ClassVar[str] = "broken-graph"

    def run(self, module: Any, inputs: Any) -> Matrix:
        rows = super().run(module, inputs).rows
        first = (rows[0][0] * 1.0, *rows[0][1:])
        return Matrix.trusted((first, *rows[1:]))


class InitDependsOnWidths(ReferenceEngine):
    """The reference, except a model's InitSpec seed is shifted by its input width (one stream for the
    whole model: a layer's values depend on the other layers)."""

    name: ClassVar[str] = "broken-init"

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> Any:
        shifted = None if init is None else InitSpec(init.distribution, init.gain, init.seed + widths[0])
        return super().module_mlp(widths, use_bias, shifted)


class ForwardDropsExtraColumns(ReferenceEngine):
    """The reference, except a forward keeps only the first C_in columns of a wider input (zip-like)."""

    name: ClassVar[str] = "broken-width"

    def module_forward(self, module: Any, inputs: Any) -> Any:
        width = module.layers[0].plan.in_features if hasattr(module, "layers") else module.plan.in_features
        return super().module_forward(module, np.asarray(inputs)[:, :width])


class SizesCoercedToInt(ReferenceEngine):
    """The reference, except a Linear's or an embedding's bool or float sizes are cast with int()."""

    name: ClassVar[str] = "broken-sizes"

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> Any:
        return super().module_linear(coerced(in_features), coerced(out_features), use_bias, init)

    def module_embedding(self, vocab_size: int, context_length: int, width: int) -> Any:
        return super().module_embedding(coerced(vocab_size), coerced(context_length), coerced(width))


def coerced(size: Any) -> Any:
    return int(size) if isinstance(size, bool | float) else size


# ---------------------------------------------------------------- torch-like blocks (module.block)


class TorchBlockWithoutResidual(TorchEngine):
    """torch, except a block's forward forgets the residual: MLP(RMSNorm(x)), not x + MLP(RMSNorm(x))."""

    name: ClassVar[str] = "broken-torch-residual"

    def run(self, built: TorchModule, inputs: Any) -> Any:
        if not built.block:
            return super().run(built, inputs)
        return built.module["mlp"](built.module["norm"](self.torch.from_numpy(float64(inputs))))


class TorchBlockEpsOutsideSqrt(TorchEngine):
    """torch, except a block's RMSNorm is x ⊙ g / (sqrt(mean(x²)) + eps): eps outside the square root
    (S08.rule.stability's naive form)."""

    name: ClassVar[str] = "broken-torch-eps"

    def norm(self, built: TorchModule, inputs: Any) -> Any:
        x, norm = self.torch.from_numpy(float64(inputs)), built.module["norm"]
        return x * norm.weight / (x.pow(2).mean(-1, keepdim=True).sqrt() + norm.eps)

    def run(self, built: TorchModule, inputs: Any) -> Any:
        if not built.block:
            return super().run(built, inputs)
        return self.torch.from_numpy(float64(inputs)) + built.module["mlp"](self.norm(built, inputs))

    def module_norm_forward(self, built: TorchModule, inputs: Any) -> Any:
        return to_array(self.norm(built, inputs).detach())


class TorchBlockForwardScalesGain(TorchEngine):
    """torch, except every block forward multiplies the gains by 1.5 in place after computing (a port
    that folds a scale into its norm's weight)."""

    name: ClassVar[str] = "broken-torch-gain"

    def run(self, built: TorchModule, inputs: Any) -> Any:
        output = super().run(built, inputs)
        if built.block:
            with self.torch.no_grad():
                built.module["norm"].weight.mul_(1.5)
        return output


class DeclinesEveryBuild(ReferenceEngine):
    """Declares the module capabilities but raises ModuleUnsupported for every module it is asked to
    build: a green verdict would be a claim with nothing behind it."""

    name: ClassVar[str] = "broken-declines-every-build"

    def module_linear(
        self, in_features: int, out_features: int, use_bias: bool, init: InitSpec | None = None
    ) -> Any:
        raise ModuleUnsupported("no Linear here")

    def module_mlp(self, widths: Sequence[int], use_bias: bool, init: InitSpec | None = None) -> Any:
        raise ModuleUnsupported("no MLP here")


class BiasNodeOnEveryOutput(ReferenceEngine):
    """A port whose Linear adds a (zero) bias node to every output even without a bias: each Linear's
    graph holds T·C_out nodes more than the spec's, and so does the MLP's; its ReLUs are counted right."""

    name: ClassVar[str] = "broken-bias-node"

    def module_graph_nodes(self, module: Any, inputs: Any) -> int:
        nodes = super().module_graph_nodes(module, inputs)
        layers = module.layers if isinstance(module, MLP) else (module,) if isinstance(module, Linear) else ()
        extra = sum(len(layer.weight.rows) for layer in layers if layer.bias is None)
        return nodes + len(np.asarray(inputs)) * extra


class EmptySequenceAndWrappingPositions(ReferenceEngine):
    """A port whose embedding accepts an empty id list (an empty result) and wraps positions past its
    context (T > C reads position t mod C): both Stage 05 sequence refusals fail, each for its cause."""

    name: ClassVar[str] = "broken-sequence"

    def module_forward(self, module: Any, inputs: Any) -> Any:
        if not isinstance(module, Embedding):
            return super().module_forward(module, inputs)
        tokens = list(inputs)
        if not tokens:
            return np.zeros((0, len(module.token_weight.rows[0])))
        rows = module.position_weight.rows
        for start in range(0, len(tokens), len(rows)):  # every id still checked, a context at a time
            super().module_forward(module, tokens[start : start + len(rows)])
        return np.array(
            [
                [t.data + p.data for t, p in zip(module.token_weight.rows[i], rows[k % len(rows)])]
                for k, i in enumerate(tokens)
            ]
        )

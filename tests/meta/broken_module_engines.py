"""Deliberately broken module adapters: the port tests must fail exactly the rows each one breaks."""

from __future__ import annotations

from typing import Any, ClassVar

from contracts.engines.modules import ParameterInfo
from contracts.engines.reference import ReferenceEngine, holders
from contracts.shapes import Matrix


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

"""The guarded forward (Stage 07): precondition, execution, postcondition.

precondition  = input relation, parameter seal rebuilt from current storage, finite parameters,
                finite input data, the whole model's graph budget (ModelForwardPlan, computed without
                scalar work), then a bound on every value each step creates, from the largest
                magnitudes, proving that no operation can overflow (S07.rule.forward-bound)
execution     = the activation graph, built by a trusted loop over sealed parameters
postcondition = output shape == planned shape; parameter storage, data and grad unchanged

A postcondition failure restores the parameter snapshot and storage before it raises, so a broken
executor cannot leave the optimizer's state contaminated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from contracts.core.bounds import cell_label, check_bounds, largest_datum
from contracts.core.checks import within_budget
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.core.frozen import refuse_assignment, refuse_deletion
from contracts.core.seal import VALUE, ParameterRef, ParameterState, check_finite
from contracts.core.shapes import Matrix, require_matrix
from contracts.core.value import Value

Rows = tuple[tuple[Value, ...], ...]


@dataclass(frozen=True, slots=True)
class ForwardStep:
    """One planned step (Linear, ReLU, RMSNorm or residual), its shapes and its exact graph-node cost."""

    name: str
    kind: str  # "linear" | "relu" | "rmsnorm" | "residual"
    input_shape: tuple[int, int]
    output_shape: tuple[int, int]
    graph_nodes: int
    parameters: int


@dataclass(frozen=True, slots=True)
class ModelForwardPlan:
    """Every step of a forward over T tokens, planned before the first multiplication."""

    tokens: int
    steps: tuple[ForwardStep, ...]

    def total_graph_nodes(self) -> int:
        return sum(step.graph_nodes for step in self.steps)

    def total_parameters(self) -> int:
        return sum(step.parameters for step in self.steps)

    def input_shape(self) -> tuple[int, int]:
        return self.steps[0].input_shape

    def output_shape(self) -> tuple[int, int]:
        return self.steps[-1].output_shape


# the frozen dataclasses refuse with FrozenError too (their generated __init__ uses object.__setattr__)
for _frozen in (ForwardStep, ModelForwardPlan):
    setattr(_frozen, "__setattr__", refuse_assignment)  # noqa: B010
    setattr(_frozen, "__delattr__", refuse_deletion)  # noqa: B010


class Guarded(Protocol):
    """What a module provides to run under the forward contract."""

    def sealed_refs(self) -> tuple[ParameterRef, ...]: ...

    def verify_seal(self, where: str) -> tuple[ParameterRef, ...]: ...

    def input_features(self) -> int: ...

    def input_owner(self) -> str: ...

    def forward_plan(self, tokens: int) -> ModelForwardPlan: ...

    def value_bounds(self, maxima: Sequence[float]) -> list[tuple[str, float]]: ...

    def execute(self, rows: Rows) -> Rows: ...

    def storage(self) -> object: ...

    def restore_storage(self, saved: object) -> None: ...


def guarded_forward(module: Guarded, x: Matrix, budget: int | None, where: str) -> Matrix:
    """Check everything once, run the trusted loop, then check the result and the parameters."""
    plan, state, storage = precondition(module, x, budget, where)
    rows = module.execute(x.rows)
    postcondition(module, rows, plan, state, storage, where)
    return Matrix.trusted(rows)


def precondition(
    module: Guarded, x: object, budget: int | None, where: str
) -> tuple[ModelForwardPlan, ParameterState, object]:
    """Input relation, seal from current storage, finite parameters and input data, whole-model budget,
    then every step's value bound."""
    require_matrix(x, where)
    assert isinstance(x, Matrix)
    tokens, width = x.shape_tuple()
    expected = module.input_features()
    if width != expected:
        raise ShapeError(
            f"{where}: input width {width} must equal in_features C_in = {expected} of layer "
            f"{module.input_owner()!r}, got input shape {(tokens, width)}"
        )
    refs = module.verify_seal(where)
    check_finite(refs, where)
    maxima = input_maxima(x.rows, where)
    plan = module.forward_plan(tokens)
    within_budget(plan.total_graph_nodes(), budget, where, "graph nodes")
    check_bounds(module.value_bounds(maxima), where)
    return plan, ParameterState.of(tuple(map(VALUE, refs))), module.storage()


def input_maxima(rows: Rows, where: str) -> list[float]:
    """Each input row's largest |x|, every datum a finite real first."""
    return [largest_datum(row, where, cell_label("input x", t)) for t, row in enumerate(rows)]


def postcondition(
    module: Guarded,
    rows: Rows,
    plan: ModelForwardPlan,
    state: ParameterState,
    storage: object,
    where: str,
) -> None:
    """Storage, then data and grad, then the output shape; a refusal restores the parameters."""
    try:
        module.verify_seal(f"{where} postcondition")
    except ParameterIdentityError as error:
        module.restore_storage(storage)
        state.restore()
        raise ParameterIdentityError(
            f"{where} postcondition: forward replaced parameter storage ({error})"
        ) from None
    changed = state.first_change()
    if changed is not None:
        ref = module.sealed_refs()[changed]
        now = (ref.value.data, ref.value.grad)
        state.restore()
        raise ParameterIdentityError(
            f"{where} postcondition: forward changed parameter {ref.name!r}: (data, grad) "
            f"{(state.data[changed], state.grads[changed])} -> {now}; a forward must leave "
            "parameter data and grad unchanged"
        )
    planned = plan.output_shape()
    widths = sorted(set(map(len, rows)))  # every row's width, not only the first's (a ragged output)
    if len(rows) != planned[0] or widths != [planned[1]]:
        shape = output_shape(rows, widths)
        raise ShapeError(f"{where} postcondition: output shape {shape} must equal the planned {planned}")


def output_shape(rows: Rows, widths: list[int]) -> str:
    """(T, C) for a rectangular output; (T, ragged widths [...]) when its rows differ in width."""
    if len(widths) > 1:
        return f"({len(rows)}, ragged widths {widths})"
    return str((len(rows), widths[0] if widths else 0))

"""ModelPlan and MLP (Stage 07): the whole model is planned before anything is allocated or run.

ModelPlan follows the seed's order: every LinearPlan valid -> layer names and connecting widths (and,
decided, every layer after a ReLU of init role relu: S07.fail.init-role) -> the model's parameter
count -> the global parameter budget -> raw initializer calls -> every result a finite real, as a
float -> Values and Matrices -> the identity seal. A budget of P - 1 therefore calls the initializer
zero times. plan_forward propagates shapes through Linear -> ReLU -> ... -> Linear without scalar
work and prices the whole forward (G_linear per layer, G_ReLU = T·C_hidden) so the global graph
budget is checked before the first multiplication.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from contracts.core.checks import budget_limit, fail_type, positive_int, within_budget
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.core.forward import ForwardStep, ModelForwardPlan, Rows, guarded_forward
from contracts.core.frozen import Frozen, set_fields
from contracts.core.init import Initializer, InitSpec
from contracts.core.linear import Linear, LinearPlan, LinearStorage, Weights, checked_name
from contracts.core.seal import ParameterRef, ParameterSeal, check_distinct
from contracts.core.shapes import Matrix, checked_value_type
from contracts.core.value import Value


def relu_step(name: str, tokens: int, width: int) -> ForwardStep:
    """G_ReLU = T·C_hidden: one node per activation."""
    shape = (tokens, width)
    return ForwardStep(name, "relu", shape, shape, tokens * width, 0)


class ModelPlan(Frozen):
    """Linear layers joined by ReLU, validated, connected and priced before allocation."""

    __slots__ = ("layers", "name", "parameter_budget")

    def __init__(
        self,
        layers: Sequence[LinearPlan],
        name: str = "mlp",
        parameter_budget: int | None = None,
    ) -> None:
        where = "ModelPlan"
        self.name: str
        self.layers: tuple[LinearPlan, ...]
        self.parameter_budget: int | None
        set_fields(self, name=checked_name(name, where, "name"), layers=checked_layers(layers, where))
        check_connections(self.layers, where)
        check_roles(self.layers, where)
        set_fields(self, parameter_budget=budget_limit(parameter_budget, where))
        within_budget(self.parameter_count(), parameter_budget, where, "parameters")

    @classmethod
    def mlp(
        cls,
        widths: Sequence[int],
        use_bias: bool = False,
        init: InitSpec | None = None,
        name: str = "mlp",
        parameter_budget: int | None = None,
    ) -> ModelPlan:
        """fc1 ... fcN over widths (C_0 -> C_1 -> ... -> C_N), ReLU between layers.

        A layer whose input comes through a ReLU gets the He role (2·gain²/C_in); the first layer
        keeps the standard role.
        """
        sizes = checked_widths(widths, "ModelPlan.mlp")
        base = InitSpec() if init is None else init
        if not isinstance(base, InitSpec):
            fail_type("ModelPlan.mlp", "init", "an InitSpec", base)
        plans = [
            LinearPlan(
                f"fc{index + 1}",
                sizes[index],
                sizes[index + 1],
                use_bias,
                base.with_role("standard" if index == 0 else "relu"),
            )
            for index in range(len(sizes) - 1)
        ]
        return cls(plans, name, parameter_budget)

    def __repr__(self) -> str:
        return f"ModelPlan({list(self.layers)!r}, name={self.name!r})"

    def widths(self) -> list[int]:
        return [self.layers[0].in_features, *(plan.out_features for plan in self.layers)]

    def parameter_count(self) -> int:
        """P_model = sum of P_linear over layers (P_MLP = 3·4 + 4·2 = 20 for 3 -> 4 -> 2)."""
        return sum(plan.parameter_count() for plan in self.layers)

    def plan_forward(self, tokens: int, budget: int | None = None) -> ModelForwardPlan:
        """Shapes and exact graph nodes of every step over T tokens; no Value is touched."""
        where = "ModelPlan.plan_forward"
        count = positive_int(tokens, where, "tokens T")
        steps: list[ForwardStep] = []
        last = len(self.layers) - 1
        for index, plan in enumerate(self.layers):
            steps.append(plan.forward_step(count))
            if index < last:
                steps.append(relu_step(f"relu{index + 1}", count, plan.out_features))
        forward = ModelForwardPlan(count, tuple(steps))
        within_budget(forward.total_graph_nodes(), budget, where, "graph nodes")
        return forward

    def default_initializer(self) -> Initializer:
        """Each layer's InitSpec, dispatched by the tensor name the initializer is called with."""
        table = {plan.weight_tensor(): plan.init.initializer(plan.in_features) for plan in self.layers}

        def draw(tensor: str, row: int, col: int) -> object:
            return table[tensor](tensor, row, col)

        return draw

    def materialize(self, initializer: Initializer | None = None, value_type: type[Value] = Value) -> MLP:
        """Raw draws for every layer, then every check, then every Value, then the seals."""
        where = "ModelPlan.materialize"
        kind = checked_value_type(value_type, where)
        return self.bind(self.checked_weights(initializer, where), kind)

    def checked_weights(self, initializer: Initializer | None, where: str) -> list[Weights]:
        """Every raw draw of every layer, then every result checked; no Value exists yet."""
        chosen = initializer if initializer is not None else self.default_initializer()
        raw = [plan.draw(chosen) for plan in self.layers]
        return [plan.checked(drawn, where) for plan, drawn in zip(self.layers, raw)]

    def bind(self, weights: Sequence[Weights], kind: type[Value]) -> MLP:
        """The Values of every layer (trusted: checked_weights ran), sealed as one model."""
        return MLP(self, [plan.bind(checked, kind, self.name) for plan, checked in zip(self.layers, weights)])


def checked_widths(widths: object, where: str) -> tuple[int, ...]:
    """>= 2 sizes: input width, then each layer's output width."""
    if isinstance(widths, str | bytes) or not isinstance(widths, Sequence):
        fail_type(where, "widths", "a sequence of ints", widths)
    sizes = tuple(widths)  # each size is checked by the LinearPlan it becomes
    if len(sizes) < 2:
        raise ValueError(f"{where}: widths must hold >= 2 sizes (input and output), got {len(sizes)}")
    return sizes


def checked_layers(layers: object, where: str) -> tuple[LinearPlan, ...]:
    """Step 1: every layer a LinearPlan (each validated itself at construction), >= 1 of them."""
    if isinstance(layers, str | bytes) or not isinstance(layers, Sequence):
        fail_type(where, "layers", "a sequence of LinearPlan", layers)
    for index, plan in enumerate(layers):
        if not isinstance(plan, LinearPlan):
            fail_type(where, f"layers[{index}]", "a LinearPlan", plan)
    if not layers:
        raise ValueError(f"{where}: layers must hold >= 1 LinearPlan, got 0")
    return tuple(layers)


def check_connections(layers: tuple[LinearPlan, ...], where: str) -> None:
    """Step 2: unique layer names (checkpoint keys) and C_in of each = C_out of the previous."""
    seen: dict[str, int] = {}
    for index, plan in enumerate(layers):
        if plan.name in seen:
            raise ParameterIdentityError(
                f"{where}: duplicate layer name {plan.name!r} at layers[{seen[plan.name]}] and "
                f"layers[{index}]: every layer name must be unique"
            )
        seen[plan.name] = index
    for previous, plan in itertools.pairwise(layers):
        if plan.in_features != previous.out_features:
            raise ShapeError(
                f"{where}: layer {plan.name!r} in_features C_in = {plan.in_features} must equal "
                f"layer {previous.name!r} out_features C_out = {previous.out_features}"
            )


def check_roles(layers: tuple[LinearPlan, ...], where: str) -> None:
    """Step 2, last: every layer but the first reads its input through a ReLU, so its init role is relu."""
    for plan in layers[1:]:
        if plan.init.role != "relu":
            raise ValueError(
                f"{where}: layer {plan.name!r} init role must be 'relu' (its input comes through a ReLU), "
                f"got {plan.init.role!r}"
            )


@dataclass(frozen=True, slots=True)
class ModelStorage:
    layers: tuple[Linear, ...]
    saved: tuple[LinearStorage, ...]


class MLP(Frozen):
    """Linear -> ReLU -> ... -> Linear, bound to its ModelPlan and sealed as one model.

    layers may be reassigned (every forward re-verifies it against the seal); the rest is frozen.
    """

    __slots__ = ("frozen", "layers", "name", "plan", "seal", "sealed_layers")
    REVERIFIED = frozenset({"layers"})

    def __init__(self, plan: ModelPlan, layers: Sequence[Linear]) -> None:
        where = "MLP"
        if not isinstance(plan, ModelPlan):
            fail_type(where, "plan", "a ModelPlan", plan)
        bound = tuple(layers)
        if len(bound) != len(plan.layers):
            raise ShapeError(f"{where}: needs {len(plan.layers)} layers (the plan's), got {len(bound)}")
        for index, (layer, expected) in enumerate(zip(bound, plan.layers)):
            if not isinstance(layer, Linear):
                fail_type(where, f"layers[{index}]", "a Linear", layer)
            if layer.plan.key() != expected.key():
                raise ShapeError(
                    f"{where}: layers[{index}] must be built from the plan's {expected!r}, got {layer.plan!r}"
                )
            if layer.scope != plan.name:
                raise ParameterIdentityError(
                    f"{where}: layer {layer.name!r} scope must be the model name {plan.name!r}, "
                    f"got {layer.scope!r}"
                )
        self.plan: ModelPlan
        self.name: str
        self.layers: tuple[Linear, ...]
        self.seal: ParameterSeal
        self.sealed_layers: tuple[Linear, ...]
        self.frozen: bool
        set_fields(self, plan=plan, name=plan.name, layers=bound)
        set_fields(self, seal=ParameterSeal(self.current_refs(), where), sealed_layers=bound)
        # the identity fast path only holds if every layer's storage is still its own sealed storage
        set_fields(self, frozen=self.storage_unchanged())

    def __repr__(self) -> str:
        return f"MLP({self.plan!r})"

    def current_refs(self) -> tuple[ParameterRef, ...]:
        """Every layer's refs rebuilt from current storage, in layer order."""
        layers = self.layers
        if not isinstance(layers, tuple) or not all(isinstance(layer, Linear) for layer in layers):
            raise ParameterIdentityError(
                f"MLP {self.name!r}: layers storage must be a tuple of Linear, got {layers!r}"
            )
        return tuple(ref for layer in layers for ref in layer.current_refs())

    def parameters(self) -> tuple[Value, ...]:
        return self.seal.values()

    def sealed_refs(self) -> tuple[ParameterRef, ...]:
        return self.seal.refs

    def storage_unchanged(self) -> bool:
        """The layers tuple and every layer's storage objects are the ones sealed."""
        return all(layer.storage_unchanged() for layer in self.layers)

    def unchanged(self) -> bool:
        """The identity fast path: the sealed layers tuple, every layer's storage the sealed one."""
        return self.frozen and self.layers is self.sealed_layers and self.storage_unchanged()

    def verify_seal(self, where: str) -> tuple[ParameterRef, ...]:
        """The sealed refs if the layers and their storage objects are the sealed ones; otherwise
        model-wide names and aliases, then each layer's own seal (naming the layer whose storage
        changed), then the model seal (layer order, a Linear swapped for another)."""
        if self.unchanged():
            return self.seal.refs
        refs = self.current_refs()
        check_distinct(refs, where)
        for layer in self.layers:
            layer.verify_seal(where)
        self.seal.verify(refs, where)
        return refs

    def parameter_count(self) -> int:
        return len(self.seal)

    def plan_forward(self, tokens: int, budget: int | None = None) -> ModelForwardPlan:
        return self.plan.plan_forward(tokens, budget)

    # -- the guarded forward ----------------------------------------------------------------------

    def forward(self, x: Matrix, budget: int | None = None) -> Matrix:
        """(T, C_0) -> (T, C_N) under the forward contract, G_model nodes, budget model-wide."""
        return guarded_forward(self, x, budget, "MLP.forward")

    def input_features(self) -> int:
        return self.plan.layers[0].in_features

    def input_owner(self) -> str:
        return self.plan.layers[0].name

    def forward_plan(self, tokens: int) -> ModelForwardPlan:
        return self.plan.plan_forward(tokens)

    def layer_bounds(self, largest: float) -> list[tuple[str, float]]:
        """Each layer's bound on its values from the largest |input| (a ReLU never grows a magnitude)."""
        bounds = []
        for layer in self.layers:
            largest = layer.output_bound(largest)
            bounds.append((layer.plan.name, largest))
        return bounds

    def value_bounds(self, maxima: Sequence[float]) -> list[tuple[str, float]]:
        return self.layer_bounds(max(maxima))

    def execute(self, rows: Rows) -> Rows:
        """Trusted: Linear, ReLU, ..., Linear over sealed storage; no check is repeated here."""
        last = len(self.layers) - 1
        for index, layer in enumerate(self.layers):
            rows = layer.execute(rows)
            if index < last:
                rows = tuple(tuple(value.relu() for value in row) for row in rows)
        return rows

    def storage(self) -> ModelStorage:
        return ModelStorage(self.layers, tuple(layer.storage() for layer in self.layers))

    def restore_storage(self, saved: object) -> None:
        assert isinstance(saved, ModelStorage)
        self.layers = saved.layers
        for layer, stored in zip(saved.layers, saved.saved):
            layer.restore_storage(stored)

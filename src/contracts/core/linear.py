"""LinearPlan and Linear (Stage 07): y[t, o] = sum_i x[t, i] W[o, i] (+ b[o]).

LinearPlan validates and prices a layer without creating a Value or a Matrix: W is (C_out, C_in),
one row per output feature; b is (C_out,); P_linear = C_out·C_in + [bias]·C_out and a forward over
T tokens makes G_linear = T·C_out·(2·C_in - 1 + [bias]) graph nodes. Linear binds storage to its
plan and seals it: use_bias=False means no bias at all, not a zero placeholder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contracts.core.checks import fail_type, positive_int, within_budget
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.core.forward import ForwardStep, ModelForwardPlan, Rows, guarded_forward
from contracts.core.frozen import Frozen, set_fields
from contracts.core.init import Initializer, InitSpec, checked_init_value
from contracts.core.seal import DATA, ParameterRef, ParameterSeal
from contracts.core.shapes import (
    Matrix,
    Vector,
    checked_value_type,
    require_matrix,
    require_vector,
    trusted_dot,
)
from contracts.core.value import Value

RawWeights = list[list[object]]
Weights = tuple[tuple[float, ...], ...]


def checked_name(name: object, where: str, what: str) -> str:
    """A non-blank str (names become checkpoint keys)."""
    if not isinstance(name, str):
        fail_type(where, what, "a non-blank str", name)
    if not name.strip():
        raise ValueError(f"{where}: {what} must be a non-blank str, got {name!r}")
    return name


def qualified(scope: str, name: str) -> str:
    return f"{scope}.{name}" if scope else name


class LinearPlan(Frozen):
    """name, C_in, C_out, use_bias and InitSpec: validated and priced, never allocated."""

    __slots__ = ("in_features", "init", "name", "out_features", "use_bias")

    def __init__(
        self,
        name: str,
        in_features: int,
        out_features: int,
        use_bias: bool = False,
        init: InitSpec | None = None,
    ) -> None:
        self.name: str
        self.in_features: int
        self.out_features: int
        self.use_bias: bool
        self.init: InitSpec
        checked = checked_name(name, "LinearPlan", "name")
        where = f"LinearPlan {checked!r}"
        inputs = positive_int(in_features, where, "in_features C_in")
        outputs = positive_int(out_features, where, "out_features C_out")
        if type(use_bias) is not bool:
            fail_type(where, "use_bias", "a bool", use_bias)
        chosen = InitSpec() if init is None else init
        if not isinstance(chosen, InitSpec):
            fail_type(where, "init", "an InitSpec", chosen)
        set_fields(
            self, name=checked, in_features=inputs, out_features=outputs, use_bias=use_bias, init=chosen
        )

    def __repr__(self) -> str:
        return (
            f"LinearPlan({self.name!r}, {self.in_features}, {self.out_features}, "
            f"use_bias={self.use_bias}, init={self.init!r})"
        )

    def key(self) -> tuple[object, ...]:
        return (self.name, self.in_features, self.out_features, self.use_bias, self.init.key())

    def weight_shape(self) -> tuple[int, int]:
        """(C_out, C_in): one row per output feature."""
        return (self.out_features, self.in_features)

    def bias_shape(self) -> tuple[int] | None:
        return (self.out_features,) if self.use_bias else None

    def weight_tensor(self) -> str:
        """The logical tensor name the initializer sees (independent of the model's name)."""
        return f"{self.name}.weight"

    def parameter_count(self) -> int:
        """P_linear = C_out·C_in + [bias]·C_out."""
        return self.out_features * self.in_features + self.out_features * int(self.use_bias)

    def forward_cost(self, tokens: int) -> int:
        """G_linear = T·C_out·(2·C_in - 1 + [bias])."""
        return tokens * self.out_features * (2 * self.in_features - 1 + int(self.use_bias))

    def forward_step(self, tokens: int) -> ForwardStep:
        return ForwardStep(
            self.name,
            "linear",
            (tokens, self.in_features),
            (tokens, self.out_features),
            self.forward_cost(tokens),
            self.parameter_count(),
        )

    # -- materialization: raw draws, then every check, then Values --------------------------------

    def draw(self, initializer: Initializer) -> RawWeights:
        """One initializer call per weight position; nothing is checked or created yet."""
        tensor = self.weight_tensor()
        rows, cols = self.weight_shape()
        return [[initializer(tensor, o, i) for i in range(cols)] for o in range(rows)]

    def checked(self, raw: RawWeights, where: str) -> Weights:
        """Every raw result a finite real, as a float (S07.rule.init-results), before any Value exists."""
        tensor = self.weight_tensor()
        return tuple(
            tuple(
                checked_init_value(x, where, f"initializer({tensor!r}, {o}, {i})") for i, x in enumerate(row)
            )
            for o, row in enumerate(raw)
        )

    def bind(self, weights: Weights, value_type: type[Value], scope: str) -> Linear:
        """Create the Values (weights as drawn, bias an independent zero Vector) and seal them."""
        weight = Matrix.trusted(tuple(tuple(value_type(x) for x in row) for row in weights))
        bias = None
        if self.use_bias:
            bias = Vector.trusted(tuple(value_type(0.0) for _ in range(self.out_features)))
        return Linear(self, weight, bias, scope)

    def materialize(
        self,
        initializer: Initializer | None = None,
        value_type: type[Value] = Value,
        scope: str = "",
        parameter_budget: int | None = None,
    ) -> Linear:
        """One layer in the seed's order: budget, raw draws, checks, Values, seal."""
        where = f"LinearPlan {self.name!r}.materialize"
        within_budget(self.parameter_count(), parameter_budget, where, "parameters")
        kind = checked_value_type(value_type, where)
        chosen = initializer if initializer is not None else self.init.initializer(self.in_features)
        return self.bind(self.checked(self.draw(chosen), where), kind, scope)


@dataclass(frozen=True, slots=True)
class LinearStorage:
    """What a layer's storage was before a forward (restored if the forward replaced it)."""

    name: str
    scope: str  # part of every parameter's name: a forward that changed it is refused and it is put back
    weight: Matrix
    bias: Vector | None


def frozen_rows(rows: object) -> bool:
    """A tuple of tuples: the same object now means the same Values now (nothing was assigned)."""
    return type(rows) is tuple and all(type(row) is tuple for row in rows)


class Linear(Frozen):
    """A materialized layer: weight (C_out, C_in), optional bias (C_out,), sealed at construction.

    weight, bias, name and scope may be reassigned: every forward re-verifies them against the seal
    (S07.rule.seal-current-storage); every other attribute is frozen.
    """

    __slots__ = (
        "bias",
        "frozen",
        "name",
        "plan",
        "scope",
        "seal",
        "sealed_scope",
        "sealed_storage",
        "weight",
    )
    REVERIFIED = frozenset({"weight", "bias", "name", "scope"})

    def __init__(self, plan: LinearPlan, weight: Matrix, bias: Vector | None = None, scope: str = "") -> None:
        if not isinstance(plan, LinearPlan):
            fail_type("Linear", "plan", "a LinearPlan", plan)
        where = f"Linear {plan.name!r}"
        require_matrix(weight, where)
        if weight.shape_tuple() != plan.weight_shape():
            raise ShapeError(
                f"{where}: weight shape must equal the plan's (C_out, C_in) = "
                f"{plan.weight_shape()}, got {weight.shape_tuple()}"
            )
        if plan.use_bias:
            require_vector(bias, where)
            assert isinstance(bias, Vector)
            if bias.shape_tuple() != plan.bias_shape():
                raise ShapeError(
                    f"{where}: bias shape must equal the plan's (C_out,) = {plan.bias_shape()}, "
                    f"got {bias.shape_tuple()}"
                )
        elif bias is not None:
            raise ShapeError(f"{where}: use_bias=False takes no bias (not even zeros), got {bias!r}")
        if not isinstance(scope, str):
            fail_type(where, "scope", "a str", scope)
        self.plan: LinearPlan
        self.name: str
        self.scope: str
        self.weight: Matrix
        self.bias: Vector | None
        self.seal: ParameterSeal
        self.sealed_scope: str
        self.sealed_storage: LinearStorage
        self.frozen: bool
        set_fields(self, plan=plan, name=plan.name, scope=scope, weight=weight, bias=bias)
        set_fields(
            self,
            seal=ParameterSeal(self.current_refs(), where),
            sealed_scope=scope,
            sealed_storage=self.storage(),
            # only immutable storage can be trusted by identity; lists are rebuilt and compared every time
            frozen=frozen_rows(weight.rows) and (bias is None or type(bias.values) is tuple),
        )

    def __repr__(self) -> str:
        return f"Linear({self.plan!r})"

    # -- identity ---------------------------------------------------------------------------------

    def current_refs(self) -> tuple[ParameterRef, ...]:
        """ParameterRefs rebuilt from the storage the layer holds *now* (never from the seal)."""
        weight, bias = self.weight, self.bias
        where = f"Linear {self.plan.name!r}"
        if not isinstance(weight, Matrix):
            raise ParameterIdentityError(
                f"{where}: layer {self.plan.name!r} parameter storage identity changed: weight "
                f"storage must be the sealed Matrix, got {weight!r}"
            )
        if bias is not None and not isinstance(bias, Vector):
            raise ParameterIdentityError(
                f"{where}: layer {self.plan.name!r} parameter storage identity changed: bias "
                f"storage must be the sealed Vector or None, got {bias!r}"
            )
        owner = self.name
        prefix = qualified(self.scope, owner)
        refs = [
            ParameterRef(f"{prefix}.weight[{o},{i}]", value, owner)
            for o, row in enumerate(weight.rows)
            for i, value in enumerate(row)
        ]
        if bias is not None:
            refs.extend(
                ParameterRef(f"{prefix}.bias[{o}]", value, owner) for o, value in enumerate(bias.values)
            )
        return tuple(refs)

    def parameters(self) -> tuple[Value, ...]:
        return self.seal.values()

    def sealed_refs(self) -> tuple[ParameterRef, ...]:
        return self.seal.refs

    def storage_unchanged(self) -> bool:
        """Name, scope, weight, its rows, bias and its values are the very objects sealed."""
        sealed = self.sealed_storage
        weight, bias = self.weight, self.bias
        if not self.frozen or self.name is not sealed.name or self.scope is not self.sealed_scope:
            return False
        # a Matrix or Vector is frozen: the same object holds the same rows and Values
        return weight is sealed.weight and bias is sealed.bias

    def verify_seal(self, where: str) -> tuple[ParameterRef, ...]:
        """The sealed refs if the storage objects are the sealed ones; otherwise refs rebuilt from
        current storage, checked against the seal (names, identities, order) and returned."""
        if self.storage_unchanged():
            return self.seal.refs
        refs = self.current_refs()
        self.seal.verify(refs, where)
        return refs

    # -- the guarded forward ----------------------------------------------------------------------

    def forward(self, x: Matrix, budget: int | None = None) -> Matrix:
        """(T, C_in) -> (T, C_out), G_linear nodes, under the forward contract."""
        return guarded_forward(self, x, budget, "Linear.forward")

    def input_features(self) -> int:
        return self.plan.in_features

    def input_owner(self) -> str:
        return self.plan.name

    def forward_plan(self, tokens: int) -> ModelForwardPlan:
        return ModelForwardPlan(tokens, (self.plan.forward_step(tokens),))

    def output_bound(self, largest: float) -> float:
        """C_in·(max|x|·max|W|) + max|b|: every product, partial sum and the bias add stay within it
        (S07.rule.forward-bound)."""
        weight: float = max(map(abs, map(DATA, self.weight.values())))
        bias: float = 0.0 if self.bias is None else max(map(abs, map(DATA, self.bias.values)))
        return self.plan.in_features * (largest * weight) + bias

    def value_bounds(self, maxima: Sequence[float]) -> list[tuple[str, float]]:
        return [(self.plan.name, self.output_bound(max(maxima)))]

    def execute(self, rows: Rows) -> Rows:
        """Trusted: the precondition proved the shapes, the seal and the budget."""
        weight_rows = self.weight.rows
        if self.bias is None:
            return tuple(tuple(trusted_dot(w, x) for w in weight_rows) for x in rows)
        bias = self.bias.values
        return tuple(tuple(trusted_dot(w, x) + b for w, b in zip(weight_rows, bias)) for x in rows)

    def storage(self) -> LinearStorage:
        return LinearStorage(self.name, self.scope, self.weight, self.bias)

    def restore_storage(self, saved: object) -> None:
        assert isinstance(saved, LinearStorage)
        self.name = saved.name
        self.scope = saved.scope
        self.weight = saved.weight
        self.bias = saved.bias

"""RMSNorm and the residual block (Stage 08) on the scalar Value engine, planned before allocation.

A block computes y = x + MLP(RMSNorm(x)) over (T, C) rows. RMSNormPlan (width C, eps, gain_init)
holds C gain parameters and prices a row at 4·C + 2 graph nodes: C squares, C - 1 additions, the
mean (one division), + eps, the power -1/2 and two products per element (x·r, then ·gain). The
residual costs one addition per element, T·C. BlockPlan validates that the widths connect (the
norm's width is the MLP's input width and the MLP's output width is the block's input width) and
checks the parameter budget before any initializer call; plan_forward prices the whole block before
the first multiplication. Block seals the gains with the MLP's parameters: a forward refuses a
replaced gain storage and a forward that changes a gain exactly as it does a weight's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from contracts.core.checks import budget_limit, fail_type, positive_int, real_number, within_budget
from contracts.core.errors import ParameterIdentityError, ShapeError
from contracts.core.forward import ForwardStep, ModelForwardPlan, Rows, guarded_forward
from contracts.core.frozen import Frozen, set_fields
from contracts.core.init import Initializer, InitSpec
from contracts.core.linear import checked_name, qualified
from contracts.core.model import MLP, ModelPlan, ModelStorage, checked_widths
from contracts.core.seal import DATA, ParameterRef, ParameterSeal
from contracts.core.shapes import Matrix, Vector, checked_value_type
from contracts.core.value import Value


def positive_eps(eps: object, where: str) -> float:
    """A finite real > 0 (bool rejected): eps fixes the output and gradient scale (S08.rule.eps-regime)."""
    value = real_number(eps, where, "eps")
    if value <= 0:
        raise ValueError(f"{where}: eps must be > 0, got {value!r}")
    return value


class RMSNormPlan(Frozen):
    """RMSNorm over the last axis: y = x · gain / sqrt(mean(x²) + eps); validated, never allocated."""

    __slots__ = ("eps", "gain_init", "name", "width")

    def __init__(self, width: int, eps: float = 1e-6, gain_init: float = 1.0, name: str = "norm") -> None:
        self.name: str
        self.width: int
        self.eps: float
        self.gain_init: float
        checked = checked_name(name, "RMSNormPlan", "name")
        where = f"RMSNormPlan {checked!r}"
        size = positive_int(width, where, "width C")
        set_fields(
            self,
            name=checked,
            width=size,
            eps=positive_eps(eps, where),
            gain_init=real_number(gain_init, where, "gain_init"),
        )

    def __repr__(self) -> str:
        return (
            f"RMSNormPlan({self.width}, eps={self.eps!r}, gain_init={self.gain_init!r}, name={self.name!r})"
        )

    def parameter_count(self) -> int:
        """P_RMSNorm = C: one gain per feature."""
        return self.width

    def forward_cost(self, tokens: int) -> int:
        """G_RMSNorm = T·(4·C + 2)."""
        return tokens * (4 * self.width + 2)

    def forward_step(self, tokens: int) -> ForwardStep:
        shape = (tokens, self.width)
        return ForwardStep(self.name, "rmsnorm", shape, shape, self.forward_cost(tokens), self.width)


def residual_step(tokens: int, width: int) -> ForwardStep:
    """G_residual = T·C: one addition per element of x + f(x)."""
    shape = (tokens, width)
    return ForwardStep("residual", "residual", shape, shape, tokens * width, 0)


class BlockPlan(Frozen):
    """x + MLP(RMSNorm(x)): the norm, the MLP and the residual, connected and priced before allocation."""

    __slots__ = ("mlp", "name", "norm", "parameter_budget")

    def __init__(
        self, norm: RMSNormPlan, mlp: ModelPlan, name: str = "block", parameter_budget: int | None = None
    ) -> None:
        where = "BlockPlan"
        self.name: str
        self.norm: RMSNormPlan
        self.mlp: ModelPlan
        self.parameter_budget: int | None
        checked = checked_name(name, where, "name")
        if not isinstance(norm, RMSNormPlan):
            fail_type(where, "norm", "an RMSNormPlan", norm)
        if not isinstance(mlp, ModelPlan):
            fail_type(where, "mlp", "a ModelPlan", mlp)
        check_block_widths(norm, mlp, where)
        set_fields(
            self, name=checked, norm=norm, mlp=mlp, parameter_budget=budget_limit(parameter_budget, where)
        )
        within_budget(self.parameter_count(), parameter_budget, where, "parameters")

    @classmethod
    def rmsnorm_mlp(
        cls,
        widths: Sequence[int],
        eps: float = 1e-6,
        use_bias: bool = False,
        init: InitSpec | None = None,
        gain_init: float = 1.0,
        name: str = "block",
        parameter_budget: int | None = None,
    ) -> BlockPlan:
        """RMSNorm over widths[0], then ModelPlan.mlp(widths) named <name>.mlp, then the residual."""
        where = "BlockPlan.rmsnorm_mlp"
        sizes = checked_widths(widths, where)
        norm = RMSNormPlan(sizes[0], eps, gain_init)
        mlp = ModelPlan.mlp(sizes, use_bias, init, qualified(checked_name(name, where, "name"), "mlp"))
        return cls(norm, mlp, name, parameter_budget)

    def __repr__(self) -> str:
        return f"BlockPlan({self.norm!r}, {self.mlp!r}, name={self.name!r})"

    def width(self) -> int:
        return self.norm.width

    def parameter_count(self) -> int:
        """P_block = C + P_MLP."""
        return self.norm.parameter_count() + self.mlp.parameter_count()

    def plan_forward(self, tokens: int, budget: int | None = None) -> ModelForwardPlan:
        """RMSNorm, the MLP's steps, the residual: shapes and exact graph nodes; no Value is touched."""
        where = "BlockPlan.plan_forward"
        count = positive_int(tokens, where, "tokens T")
        inner = self.mlp.plan_forward(count).steps
        steps = (self.norm.forward_step(count), *inner, residual_step(count, self.norm.width))
        forward = ModelForwardPlan(count, steps)
        within_budget(forward.total_graph_nodes(), budget, where, "graph nodes")
        return forward

    def materialize(self, initializer: Initializer | None = None, value_type: type[Value] = Value) -> Block:
        """Every weight drawn and checked, then every Value (weights, then gain_init gains), then the seal.

        The initializer is called for the MLP's weights only: gains start at gain_init, never drawn.
        """
        where = "BlockPlan.materialize"
        kind = checked_value_type(value_type, where)
        weights = self.mlp.checked_weights(initializer, where)
        mlp = self.mlp.bind(weights, kind)
        gain = Vector.trusted(tuple(kind(self.norm.gain_init) for _ in range(self.norm.width)))
        return Block(self, gain, mlp)


def check_block_widths(norm: RMSNormPlan, mlp: ModelPlan, where: str) -> None:
    """The norm feeds the MLP (C = C_in) and the residual adds the MLP's output to x (C_out = C)."""
    first, last = mlp.layers[0], mlp.layers[-1]
    if first.in_features != norm.width:
        raise ShapeError(
            f"{where}: MLP {mlp.name!r} layer {first.name!r} in_features C_in = {first.in_features} must "
            f"equal the norm {norm.name!r} width C = {norm.width}"
        )
    if last.out_features != norm.width:
        raise ShapeError(
            f"{where}: residual width mismatch: MLP {mlp.name!r} layer {last.name!r} out_features "
            f"C_out = {last.out_features} must equal the block's input width C = {norm.width} "
            "(y = x + MLP(RMSNorm(x)))"
        )


@dataclass(frozen=True, slots=True)
class BlockStorage:
    gain: Vector
    mlp: ModelStorage


class Block(Frozen):
    """A materialized block: gains (C,) and an MLP, sealed as one module (gains first).

    gain may be reassigned (every forward re-verifies it against the seal); the rest is frozen.
    """

    __slots__ = ("gain", "mlp", "name", "plan", "seal", "sealed_gain")
    REVERIFIED = frozenset({"gain"})

    def __init__(self, plan: BlockPlan, gain: Vector, mlp: MLP) -> None:
        where = "Block"
        if not isinstance(plan, BlockPlan):
            fail_type(where, "plan", "a BlockPlan", plan)
        if not isinstance(gain, Vector):
            fail_type(where, "gain", "a Vector", gain)
        if gain.shape_tuple() != (plan.norm.width,):
            raise ShapeError(
                f"{where}: gain shape must equal the norm's (C,) = {(plan.norm.width,)}, "
                f"got {gain.shape_tuple()}"
            )
        if not isinstance(mlp, MLP) or mlp.plan is not plan.mlp:
            fail_type(where, "mlp", "an MLP built from the plan's ModelPlan", mlp)
        self.plan: BlockPlan
        self.name: str
        self.gain: Vector
        self.mlp: MLP
        self.seal: ParameterSeal
        self.sealed_gain: Vector
        set_fields(self, plan=plan, name=plan.name, gain=gain, mlp=mlp)
        set_fields(self, seal=ParameterSeal(self.current_refs(where), where), sealed_gain=gain)

    def __repr__(self) -> str:
        return f"Block({self.plan!r})"

    def current_refs(self, where: str) -> tuple[ParameterRef, ...]:
        """The gains' refs rebuilt from current storage, then the MLP's."""
        gain, owner = self.gain, self.plan.norm.name
        if not isinstance(gain, Vector):
            raise ParameterIdentityError(
                f"{where}: layer {owner!r} parameter storage identity changed: gain storage must be the "
                f"sealed Vector, got {gain!r}"
            )
        prefix = qualified(self.name, owner)
        refs = [ParameterRef(f"{prefix}.gain[{i}]", value, owner) for i, value in enumerate(gain.values)]
        return (*refs, *self.mlp.current_refs())

    def parameters(self) -> tuple[Value, ...]:
        return self.seal.values()

    def parameter_count(self) -> int:
        return len(self.seal)

    def sealed_refs(self) -> tuple[ParameterRef, ...]:
        return self.seal.refs

    def verify_seal(self, where: str) -> tuple[ParameterRef, ...]:
        """The sealed refs if the gain and the MLP's storage are the sealed objects; otherwise the
        MLP's own seal (naming a layer), then the gain's storage and the block's seal, whose first check
        is names and aliases block-wide (a gain aliasing an MLP weight; the block's refs are the MLP's
        own after the gains, so an alias inside the MLP reads the same whichever seal names it). The MLP
        comes first whatever replaced the gain (S08.order.block-forward)."""
        if self.gain is self.sealed_gain and self.mlp.unchanged():
            return self.seal.refs
        self.mlp.verify_seal(where)
        refs = self.current_refs(where)
        self.seal.verify(refs, where)
        return refs

    def plan_forward(self, tokens: int, budget: int | None = None) -> ModelForwardPlan:
        return self.plan.plan_forward(tokens, budget)

    # -- the guarded forward ----------------------------------------------------------------------

    def forward(self, x: Matrix, budget: int | None = None) -> Matrix:
        """(T, C) -> (T, C) under the forward contract, G_block nodes, budget block-wide."""
        return guarded_forward(self, x, budget, "Block.forward")

    def input_features(self) -> int:
        return self.plan.norm.width

    def input_owner(self) -> str:
        return self.plan.norm.name

    def forward_plan(self, tokens: int) -> ModelForwardPlan:
        return self.plan.plan_forward(tokens)

    def value_bounds(self, maxima: Sequence[float]) -> list[tuple[str, float]]:
        """RMSNorm's bound, the MLP's layers' from the norm's output, then the residual's."""
        largest, output = self.norm_bounds(maxima)
        inner = self.mlp.layer_bounds(output)
        return [(self.plan.norm.name, largest), *inner, ("residual", max(maxima) + inner[-1][1])]

    def norm_bounds(self, maxima: Sequence[float]) -> tuple[float, float]:
        """(every value and local derivative RMSNorm creates, its output), from each row's max|x|.

        Squares and their sums <= C·a², mean + eps <= a² + eps; s >= L_t = max(eps, m_t²/C) in row t, so
        s^(-1/2) <= L^(-1/2) and its derivative ½·s^(-3/2) <= ½·L^(-3/2) (L the least L_t); |x·r| <=
        m_t·L_t^(-1/2), times max|gain| after the gain (S07.rule.forward-bound). |x·r| needs no entry of its
        own: m_t <= 1 gives m_t·L_t^(-1/2) <= L^(-1/2), and m_t > 1 gives it <= √C <= C·a².
        """
        width, eps = self.plan.norm.width, self.plan.norm.eps
        gain = max(map(abs, map(DATA, self.gain.values)))
        largest = max(maxima)
        floors = [max(eps, m * m / width) for m in maxima]
        inverse = 1.0 / math.sqrt(min(floors))  # a float product overflows to inf, ** would raise
        scaled = max(m / math.sqrt(floor) for m, floor in zip(maxima, floors))
        squares, derivative = width * (largest * largest), 0.5 * inverse * inverse * inverse
        output = scaled * gain
        return max(squares, largest * largest + eps, inverse, derivative, output), output

    def execute(self, rows: Rows) -> Rows:
        """Trusted: RMSNorm each row, the MLP, then x + f(x) element by element."""
        normed = tuple(self.normalize(row) for row in rows)
        out = self.mlp.execute(normed)
        return tuple(tuple(a + b for a, b in zip(x, f)) for x, f in zip(rows, out))

    def normalize(self, row: tuple[Value, ...]) -> tuple[Value, ...]:
        """x · r · gain with r = (Σx²/C + eps)^(-1/2): 4·C + 2 nodes."""
        total = row[0] * row[0]
        for value in row[1:]:
            total = total + value * value
        scale = (total / len(row) + self.plan.norm.eps) ** -0.5
        return tuple(value * scale * gain for value, gain in zip(row, self.gain.values))

    def storage(self) -> BlockStorage:
        return BlockStorage(self.gain, self.mlp.storage())

    def restore_storage(self, saved: object) -> None:
        assert isinstance(saved, BlockStorage)
        self.gain = saved.gain
        self.mlp.restore_storage(saved.mlp)

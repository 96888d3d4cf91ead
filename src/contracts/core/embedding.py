"""Token and position embeddings (Stage 05): the parameter cost is known before any allocation.

EmbeddingPlan computes P = (V + C)D with integer arithmetic and refuses an unaffordable plan
before the initializer is called once; materialize draws every position, then checks every result
(Stage 07's order, S07.rule.init-results), then creates Values. Embedding binds weights to a plan and
refuses a mismatch. forward checks the whole token sequence, then the TD graph budget, once, then
runs a trusted loop that repeats none of those checks (S05.rule.forward-checks-once).
"""

from __future__ import annotations

from collections.abc import Sequence

from contracts.core.bounds import cell_label, check_bounds, largest_datum
from contracts.core.checks import (
    exact_int,
    fail_type,
    positive_int,
    within_budget,
)
from contracts.core.errors import ShapeError
from contracts.core.frozen import Frozen, set_fields
from contracts.core.init import Initializer, checked_init_value
from contracts.core.shapes import Matrix, checked_value_type, require_matrix
from contracts.core.value import Value

RawTable = list[list[object]]
Table = tuple[tuple[float, ...], ...]


class EmbeddingPlan(Frozen):
    """V, C, D and an optional parameter budget; validated and priced, never allocated."""

    __slots__ = ("context_length", "vocab_size", "width")

    def __init__(
        self,
        vocab_size: int,
        context_length: int,
        width: int,
        parameter_budget: int | None = None,
    ) -> None:
        self.vocab_size: int
        self.context_length: int
        self.width: int
        set_fields(
            self,
            vocab_size=positive_int(vocab_size, "EmbeddingPlan", "vocab_size V"),
            context_length=positive_int(context_length, "EmbeddingPlan", "context_length C"),
            width=positive_int(width, "EmbeddingPlan", "width D"),
        )
        within_budget(self.parameter_count(), parameter_budget, "EmbeddingPlan", "parameters")

    def token_parameters(self) -> int:
        return self.vocab_size * self.width

    def position_parameters(self) -> int:
        return self.context_length * self.width

    def parameter_count(self) -> int:
        return self.token_parameters() + self.position_parameters()

    def token_shape(self) -> tuple[int, int]:
        return (self.vocab_size, self.width)

    def position_shape(self) -> tuple[int, int]:
        return (self.context_length, self.width)

    def forward_cost(self, tokens: int) -> int:
        """TD addition nodes for a sequence of T tokens."""
        return tokens * self.width

    def materialize(self, initializer: Initializer, value_type: type[Value] = Value) -> Embedding:
        """Call the initializer for every parameter (token table, then position table), then check every
        result in call order, then create Values: a bad result leaves no Value, wherever it was drawn."""
        kind = checked_value_type(value_type, "EmbeddingPlan.materialize")
        raw = [(table, self._draw(table, shape, initializer)) for table, shape in self.tables()]
        token, position = (self._checked(table, drawn) for table, drawn in raw)
        return Embedding(
            self,
            Matrix.trusted(tuple(tuple(kind(x) for x in row) for row in token)),
            Matrix.trusted(tuple(tuple(kind(x) for x in row) for row in position)),
        )

    def tables(self) -> tuple[tuple[str, tuple[int, int]], ...]:
        """The tables in the order they are drawn: token (V, D), then position (C, D)."""
        return (("token", self.token_shape()), ("position", self.position_shape()))

    @staticmethod
    def _draw(table: str, shape: tuple[int, int], initializer: Initializer) -> RawTable:
        """One initializer call per position, row by row; nothing is checked yet."""
        rows, cols = shape
        return [[initializer(table, r, c) for c in range(cols)] for r in range(rows)]

    @staticmethod
    def _checked(table: str, raw: RawTable) -> Table:
        """Every result a finite real, converted once to float (S07.rule.init-results)."""
        where = f"EmbeddingPlan.materialize({table})"
        return tuple(
            tuple(checked_init_value(x, where, f"initializer[{r},{c}]") for c, x in enumerate(row))
            for r, row in enumerate(raw)
        )


class Embedding(Frozen):
    """Token and position tables bound to the plan whose shapes they must have."""

    __slots__ = ("plan", "position_weight", "token_weight")

    def __init__(self, plan: EmbeddingPlan, token_weight: Matrix, position_weight: Matrix) -> None:
        if not isinstance(plan, EmbeddingPlan):
            fail_type("Embedding", "plan", "an EmbeddingPlan", plan)
        require_matrix(token_weight, "Embedding", "token_weight")
        require_matrix(position_weight, "Embedding", "position_weight")
        for name, weight, expected in (
            ("token_weight", token_weight, plan.token_shape()),
            ("position_weight", position_weight, plan.position_shape()),
        ):
            if weight.shape_tuple() != expected:
                raise ShapeError(
                    f"Embedding: {name} shape must equal the plan's {expected}, got {weight.shape_tuple()}"
                )
        self.plan: EmbeddingPlan
        self.token_weight: Matrix
        self.position_weight: Matrix
        set_fields(self, plan=plan, token_weight=token_weight, position_weight=position_weight)

    def forward(self, token_ids: Sequence[int], budget: int | None = None) -> Matrix:
        """E_t = W_token[id_t] + W_position[t]: (T, D), TD nodes, nothing built on bad input."""
        ids = self.checked_tokens(token_ids)
        within_budget(self.plan.forward_cost(len(ids)), budget, "Embedding.forward", "graph nodes")
        token_rows = self.token_weight.rows
        position_rows = self.position_weight.rows
        check_bounds([("token + position", self.rows_bound(ids))], "Embedding.forward")
        return Matrix.trusted(
            tuple(tuple(a + b for a, b in zip(token_rows[i], position_rows[t])) for t, i in enumerate(ids))
        )

    def rows_bound(self, ids: tuple[int, ...]) -> float:
        """max|W_token[id]| + max|W_position[t]| over the rows the forward reads, every datum a finite
        float first (S05.fail.operand-data-type): a table's cells are writable after it was checked."""
        where = "Embedding.forward"
        tokens = self.token_weight.rows
        positions = self.position_weight.rows[: len(ids)]
        used = sorted(set(ids))
        token = max(largest_datum(tokens[i], where, cell_label("token_weight", i)) for i in used)
        position = max(
            largest_datum(row, where, cell_label("position_weight", t)) for t, row in enumerate(positions)
        )
        return token + position

    def checked_tokens(self, token_ids: object) -> tuple[int, ...]:
        """Every id an exact int in [0, V) and 1 <= T <= C, before any node is created."""
        where = "Embedding.forward"
        if isinstance(token_ids, str | bytes) or not isinstance(token_ids, Sequence):
            fail_type(where, "token_ids", "a sequence of ints", token_ids)
        ids = tuple(exact_int(token, where, f"token_ids[{t}]") for t, token in enumerate(token_ids))
        vocab = self.plan.vocab_size
        for t, token in enumerate(ids):
            if not 0 <= token < vocab:
                raise IndexError(f"{where}: token_ids[{t}] = {token} must satisfy 0 <= id < V = {vocab}")
        context = self.plan.context_length
        if not 1 <= len(ids) <= context:
            raise ShapeError(f"{where}: sequence length T = {len(ids)} must satisfy 1 <= T <= C = {context}")
        return ids

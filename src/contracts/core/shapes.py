"""Vector and Matrix: intrinsic shape fixed by the constructor, relations checked at op entry.

Invalid objects are never created (ragged rows, empty dimensions, non-real or non-finite elements)
and invalid operations never start (length mismatch, inner-dimension mismatch, graph budget, operand
data that is not a finite float or whose values could overflow). The exact number of graph nodes an
operation creates is known before its first scalar operation: vector add D, dot 2K - 1, matmul
MN(2K - 1). Behind the checks, loops trust the shapes and the values' bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice

from contracts.core.bounds import cell_label, check_bounds, largest_datum
from contracts.core.checks import fail_type, real_number, within_budget
from contracts.core.errors import ShapeError
from contracts.core.frozen import Frozen, set_fields
from contracts.core.value import Value

Element = Value | float


def checked_element(element: object, where: str) -> Value | float:
    """A Value is kept (its identity matters to parameter seals); a number becomes a float."""
    if isinstance(element, Value):
        real_number(element.data, where, "element data")
        return element
    return real_number(element, where, "element")


def checked_elements(elements: object, where: str) -> tuple[Value | float, ...]:
    if isinstance(elements, str | bytes | Value) or not isinstance(elements, Iterable):
        fail_type(where, "elements", "a sequence of real numbers or Values", elements)
    items = tuple(checked_element(element, where) for element in elements)
    if not items:
        raise ShapeError(f"{where}: a dimension must have length >= 1, got 0")
    return items


def checked_value_type(value_type: object, where: str) -> type[Value]:
    """The type every new element becomes: Value or a subclass (an int or str type would make no graph)."""
    if not (isinstance(value_type, type) and issubclass(value_type, Value)):
        fail_type(where, "value_type", "Value or a subclass", value_type)
    return value_type


def materialize(items: tuple[Value | float, ...], value_type: type[Value]) -> tuple[Value, ...]:
    """Runs only after every element of the object has been checked: no partial creation."""
    return tuple(item if isinstance(item, Value) else value_type(item) for item in items)


def trusted_dot(left: Sequence[Value], right: Sequence[Value]) -> Value:
    """K multiplications and K - 1 additions: exactly 2K - 1 nodes. Lengths are trusted."""
    acc = left[0] * right[0]
    for x, w in zip(islice(left, 1, None), islice(right, 1, None)):
        acc = acc + x * w
    return acc


def dot_cost(k: int) -> int:
    return 2 * k - 1


class Vector(Frozen):
    """A 1-D sequence of Values whose length D >= 1 is fixed at construction (frozen: S05.rule.frozen)."""

    __slots__ = ("values",)

    def __init__(self, elements: Iterable[Element], value_type: type[Value] = Value) -> None:
        self.values: tuple[Value, ...]
        kind = checked_value_type(value_type, "Vector")
        set_fields(self, values=materialize(checked_elements(elements, "Vector"), kind))

    @classmethod
    def trusted(cls, values: tuple[Value, ...]) -> Vector:
        """Wrap values already known to be valid (created behind a checked boundary)."""
        vector = cls.__new__(cls)
        set_fields(vector, values=values)
        return vector

    def shape_tuple(self) -> tuple[int]:
        return (len(self.values),)

    @property
    def shape(self) -> tuple[int]:
        return self.shape_tuple()

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Vector({self.data()!r})"

    def data(self) -> list[float]:
        return [value.data for value in self.values]

    def add_cost(self) -> int:
        return len(self.values)

    def add(self, other: Vector, budget: int | None = None) -> Vector:
        """Elementwise sum: D nodes. (3,) + (2,) is a ShapeError, never a silent truncation."""
        require_vector(other, "Vector.add")
        if len(other.values) != len(self.values):
            raise ShapeError(
                f"Vector.add: lengths must be equal, got {self.shape_tuple()} + {other.shape_tuple()}"
            )
        within_budget(self.add_cost(), budget, "Vector.add", "graph nodes")
        left, right = operand_maxima(self.values, other.values, "Vector.add")
        check_bounds([("add", left + right)], "Vector.add")
        return Vector.trusted(tuple(a + b for a, b in zip(self.values, other.values)))

    def __add__(self, other: Vector) -> Vector:
        return self.add(other)

    def dot(self, other: Vector, budget: int | None = None) -> Value:
        """Inner product: 2K - 1 nodes."""
        require_vector(other, "Vector.dot")
        if len(other.values) != len(self.values):
            raise ShapeError(
                f"Vector.dot: lengths must be equal, got {self.shape_tuple()} . {other.shape_tuple()}"
            )
        within_budget(dot_cost(len(self.values)), budget, "Vector.dot", "graph nodes")
        left, right = operand_maxima(self.values, other.values, "Vector.dot")
        check_bounds([("dot", len(self.values) * (left * right))], "Vector.dot")
        return trusted_dot(self.values, other.values)


def operand_maxima(left: Sequence[Value], right: Sequence[Value], where: str) -> tuple[float, float]:
    """max|x| of each vector operand, every datum a finite float (S05.fail.operand-data-type)."""
    return (
        largest_datum(left, where, lambda i: f"left operand [{i}]"),
        largest_datum(right, where, lambda i: f"right operand [{i}]"),
    )


def matrix_maximum(rows: Sequence[Sequence[Value]], where: str, side: str) -> float:
    """max|x| over a matrix operand, row-major, every datum a finite float (S05.fail.operand-data-type)."""
    return max(largest_datum(row, where, cell_label(f"{side} operand ", r)) for r, row in enumerate(rows))


def require_vector(other: object, where: str) -> None:
    if not isinstance(other, Vector):
        fail_type(where, "operand", "a Vector", other)


def require_matrix(other: object, where: str, what: str = "operand") -> None:
    if not isinstance(other, Matrix):
        fail_type(where, what, "a Matrix", other)


def matmul_cost(m: int, k: int, n: int) -> int:
    return m * n * dot_cost(k)


class Matrix(Frozen):
    """M x K Values, M, K >= 1; every row length is checked before any Value is created (frozen)."""

    __slots__ = ("rows",)

    def __init__(self, rows: Iterable[Iterable[Element]], value_type: type[Value] = Value) -> None:
        self.rows: tuple[tuple[Value, ...], ...]
        set_fields(self, rows=checked_rows(rows, checked_value_type(value_type, "Matrix")))

    @classmethod
    def trusted(cls, rows: tuple[tuple[Value, ...], ...]) -> Matrix:
        """Wrap rows already known to be rectangular and valid."""
        matrix = cls.__new__(cls)
        set_fields(matrix, rows=rows)
        return matrix

    def shape_tuple(self) -> tuple[int, int]:
        return (len(self.rows), len(self.rows[0]))

    @property
    def shape(self) -> tuple[int, int]:
        return self.shape_tuple()

    def __repr__(self) -> str:
        return f"Matrix({self.data()!r})"

    def data(self) -> list[list[float]]:
        return [[value.data for value in row] for row in self.rows]

    def values(self) -> Iterable[Value]:
        """Every element, row-major."""
        for row in self.rows:
            yield from row

    def row(self, index: int) -> Vector:
        return Vector.trusted(self.rows[index])

    def matmul(self, other: Matrix, budget: int | None = None) -> Matrix:
        """(M, K) @ (K, N) -> (M, N): MN(2K - 1) nodes, all checked before the first product."""
        require_matrix(other, "Matrix.matmul")
        m, k = self.shape_tuple()
        k_other, n = other.shape_tuple()
        if k != k_other:
            raise ShapeError(f"Matrix.matmul: inner dimensions must match, got {(m, k)} @ {(k_other, n)}")
        within_budget(matmul_cost(m, k, n), budget, "Matrix.matmul", "graph nodes")
        left = matrix_maximum(self.rows, "Matrix.matmul", "left")
        right = matrix_maximum(other.rows, "Matrix.matmul", "right")
        check_bounds([("matmul", k * (left * right))], "Matrix.matmul")
        columns = tuple(zip(*other.rows))
        return Matrix.trusted(
            tuple(tuple(trusted_dot(row, column) for column in columns) for row in self.rows)
        )

    def __matmul__(self, other: Matrix) -> Matrix:
        return self.matmul(other)


def checked_rows(rows: object, value_type: type[Value]) -> tuple[tuple[Value, ...], ...]:
    """Intrinsic shape first (non-empty, rectangular), then every element, then Values."""
    if isinstance(rows, str | bytes) or not isinstance(rows, Iterable):
        fail_type("Matrix", "rows", "a sequence of rows", rows)
    materialized = []
    for index, row in enumerate(rows):
        if isinstance(row, str | bytes | Value) or not isinstance(row, Iterable):
            fail_type("Matrix", f"row {index}", "a sequence of elements", row)
        materialized.append(tuple(row))
    if not materialized:
        raise ShapeError("Matrix: a matrix needs >= 1 row, got 0")
    width = len(materialized[0])
    for index, row in enumerate(materialized):
        if len(row) != width:
            raise ShapeError(f"Matrix: ragged rows: row {index} has length {len(row)}, row 0 has {width}")
    checked = [checked_elements(row, "Matrix") for row in materialized]
    return tuple(materialize(row, value_type) for row in checked)

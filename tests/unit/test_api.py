"""The public API around the contracts: operators, repr, row access, spec-row mapping."""

from __future__ import annotations

from contracts import CountingValue, Matrix, Value, Vector
from contracts.spec import load_rows
from contracts.tensor import Tensor, add, multiply, reset_node_counter
from tests.spec_rows import row


def test_value_repr_names_type_data_and_grad() -> None:
    """repr shows the class, the data and the gradient."""
    value = CountingValue(2.5)
    value.grad = -1.0
    assert "CountingValue(data=2.5, grad=-1.0)" == repr(value)
    assert "Value(data=0.0, grad=0.0)" == repr(Value(0.0))


def test_operators_are_the_checked_methods() -> None:
    """x + y is Vector.add and A @ B is Matrix.matmul, with the same results."""
    x, y = Vector([1.0, 2.0]), Vector([3.0, 5.0])
    a, b = Matrix([[1.0, 2.0]]), Matrix([[3.0], [4.0]])
    assert ([4.0, 7.0], [[11.0]]) == ((x + y).data(), (a @ b).data())
    assert "Vector([1.0, 2.0])" == repr(x)
    assert "Matrix([[1.0, 2.0]])" == repr(a)
    assert (2,) == x.shape
    assert 2 == len(x)


def test_matrix_row_is_a_vector_view() -> None:
    """Matrix.row(i) is a Vector over the same Values as row i."""
    a = Matrix([[1.0, 2.0], [3.0, 4.0]])
    second = a.row(1)
    assert [3.0, 4.0] == second.data()
    assert a.rows[1] == second.values


def test_spec_row_is_a_read_only_mapping() -> None:
    """A SpecRow exposes its fields as a mapping, with id, kind, stage and file."""
    spec_row = row("S05.cost.matmul")
    assert ("S05.cost.matmul", "formula", "05", "stage05_shapes.toml") == (
        spec_row.id,
        spec_row.kind,
        spec_row.stage,
        spec_row.file,
    )
    assert "SpecRow('S05.cost.matmul')" == repr(spec_row)
    assert list(spec_row) == list(dict(spec_row))
    assert len(spec_row) == len(list(spec_row)) > 5
    assert "M*N*(2*K - 1)" == spec_row["expr"]
    assert len(load_rows()) == len({r.id for r in load_rows()})


def test_reset_node_counter_installs_a_fresh_counter_and_leaves_the_earlier_one_alone() -> None:
    """reset_node_counter installs and returns a *fresh* counter: a reading taken with an earlier
    counter is neither zeroed nor advanced by later resets and ops (one op result is one node)."""
    x = Tensor([1.0, 2.0], requires_grad=True)
    first = reset_node_counter()
    add(x, 1.0)
    second = reset_node_counter()
    multiply(x, x)
    add(x, x)
    assert first is not second
    assert (1, 2) == (first.nodes, second.nodes)

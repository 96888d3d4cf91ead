"""The public API around the contracts: operators, repr, row access, spec-row mapping."""

from __future__ import annotations

from contracts import CountingValue, Matrix, Value, Vector
from contracts.spec import load_rows
from contracts.spec_suite.spec_rows import row
from contracts.tensor import Tensor, add, multiply, reset_node_counter


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


def test_each_error_type_has_exactly_its_documented_bases() -> None:
    """A budget refusal is no ShapeError (fix the limits, not the shapes) and a shape error no ValueError
    (a caller's `except ValueError` cannot swallow it): each type's bases are exactly these."""
    from contracts.core import errors

    expected = {
        "ContractError": ("ContractError", "Exception", "BaseException", "object"),
        "ShapeError": ("ShapeError", "ContractError", "Exception", "BaseException", "object"),
        "ResourceBudgetError": (
            "ResourceBudgetError",
            "ContractError",
            "Exception",
            "BaseException",
            "object",
        ),
        "ParameterIdentityError": (
            "ParameterIdentityError",
            "ContractError",
            "Exception",
            "BaseException",
            "object",
        ),
        "FrozenError": (
            "FrozenError",
            "ContractError",
            "AttributeError",
            "Exception",
            "BaseException",
            "object",
        ),
    }
    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and value.__module__ == errors.__name__
    }
    assert set(expected) == defined
    assert expected == {name: tuple(k.__name__ for k in getattr(errors, name).__mro__) for name in expected}


def test_no_validated_object_has_a_dict_to_write_behind_its_checks() -> None:
    """Every Frozen class of the package, and each class it derives from, declares __slots__: an instance
    has no __dict__, so no attribute can be attached past FrozenError's wall (vars(obj)[...] = ...)."""
    import importlib
    import pkgutil

    import contracts
    from contracts.core.frozen import Frozen

    for module in pkgutil.walk_packages(contracts.__path__, "contracts."):
        if not module.name.endswith("__main__"):  # an entry point runs its command when imported
            importlib.import_module(module.name)

    def subclasses(cls: type) -> list[type]:
        found: list[type] = []
        directs: list[type] = cls.__subclasses__()
        for direct in directs:
            found += [direct, *subclasses(direct)]
        return found

    suite = ("contracts.spec_suite.",)  # the suite's deliberately broken objects are its own test data
    frozen = {
        cls
        for cls in subclasses(Frozen)
        if cls.__module__.startswith("contracts.") and not cls.__module__.startswith(suite)
    }
    assert len(frozen) >= 14  # Vector ... Tensor: the walk found the package's validated types
    unslotted = sorted(
        f"{cls.__module__}.{cls.__qualname__} ({base.__qualname__})"
        for cls in frozen
        for base in cls.__mro__[:-1]
        if "__slots__" not in vars(base)
    )
    assert [] == unslotted

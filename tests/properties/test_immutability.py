"""a validated object stays valid (S05/S07/T .rule.frozen, S03.rule.value-cells)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts import CountingValue, Matrix, Value
from contracts.core.errors import FrozenError, ParameterIdentityError, ShapeError
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.immutability import (
    BUILDERS,
    REVERIFIED,
    STAGE_TYPES,
    data_attributes,
    every_attribute,
    snapshot,
)
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require
from contracts.tensor import Tensor, multiply

FAMILY = {
    "S05.rule.frozen": "shapes",
    "S07.rule.frozen": "linear",
    "S08.rule.frozen": "linear",
    "T.rule.frozen": "tensor.api",
}
CASES = [
    pytest.param(row_id, name, id=f"{row_id}-{name}", marks=pytest.mark.spec(row_id))
    for row_id, names in STAGE_TYPES.items()
    for name in names
]


def refusal(kind: str, name: str) -> str:
    return rf"^{re.escape(kind)}: cannot (assign .+ to|delete) attribute '{re.escape(name)}': a validated "


# Every example tries every attribute (4 to 22 per type), so none is left to sampling (50 examples of one
# sampled attribute each left some attributes of Linear and MLP untried); the examples vary the assigned
# value, 10 per attribute, against 50 / (attributes) before, at a fraction of the cost.
@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("row_id", "type_name"), CASES)
@settings(max_examples=10)
@given(value=s.assigned_value)
def test_every_attribute_refuses_assignment_and_deletion(
    engine: Engine, row_id: str, type_name: str, value: Any
) -> None:
    """Assigning a generated value to, or deleting, every attribute raises FrozenError; nothing changes."""
    require(engine, FAMILY[row_id], row_id)
    obj = BUILDERS[type_name]()
    kind = type(obj).__name__
    for name in every_attribute(obj):
        before = snapshot(obj)
        if name not in REVERIFIED.get(type_name, ()):
            with pytest.raises(FrozenError, match=refusal(kind, name)):
                setattr(obj, name, value)
            assert before == snapshot(obj), name
        with pytest.raises(FrozenError, match=refusal(kind, name)):
            delattr(obj, name)
        assert before == snapshot(obj), name


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("row_id", "type_name"), CASES)
def test_frozen_error_is_an_attribute_error_and_containers_are_tuples(
    engine: Engine, row_id: str, type_name: str
) -> None:
    """FrozenError is an AttributeError; every container a validated object holds is a tuple (or None)."""
    require(engine, FAMILY[row_id], row_id)
    obj = BUILDERS[type_name]()
    assert issubclass(FrozenError, AttributeError)
    mutable = [
        name for name in data_attributes(obj) if isinstance(getattr(obj, name), list | dict | set | bytearray)
    ]
    assert [] == mutable


@reference_only(OWN_TYPES)
@pytest.mark.spec("S07.rule.frozen")
@given(case=s.mlp_case(), data=st.data())
def test_reverified_attributes_are_checked_by_the_next_forward(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Linear's weight, bias, name, scope and MLP's layers stay assignable: the next forward refuses."""
    require(engine, "linear", "S07.rule.frozen")
    model = ModelPlan.mlp(case["widths"], use_bias=case["use_bias"]).materialize()
    layer = data.draw(st.sampled_from(model.layers))
    change = data.draw(st.sampled_from(["weight", "name", "scope", "layers"]))
    if change == "weight":
        layer.weight = Matrix(layer.weight.data())
    elif change == "name":
        layer.name = layer.name + "x"
    elif change == "scope":
        layer.scope = "other"
    else:
        model.layers = (*model.layers[1:], model.layers[0]) if len(model.layers) > 1 else ()
    assert frozenset({"weight", "bias", "name", "scope"}) == type(layer).REVERIFIED
    assert frozenset({"layers"}) == type(model).REVERIFIED
    x = Matrix([[0.5] * model.input_features()] * case["tokens"])
    counter = CountingValue.reset()
    with pytest.raises(ParameterIdentityError):
        model.forward(x)
    assert 0 == counter.operations


@reference_only(OWN_TYPES)
@pytest.mark.spec("S07.rule.frozen")
@given(widths=s.mlp_widths, out=st.integers(1, 3), tokens=st.integers(1, 3))
def test_a_plan_changed_after_validation_cannot_reprice_a_forward(
    engine: Engine, widths: list[int], out: int, tokens: int
) -> None:
    """plan.layers[0].out_features = n is refused; a forward at budget G makes exactly G nodes."""
    require(engine, "linear", "S07.rule.frozen")
    plan = ModelPlan.mlp(widths)
    cost = plan.plan_forward(tokens).total_graph_nodes()
    with pytest.raises(FrozenError, match=refusal("LinearPlan", "out_features")):
        plan.layers[0].out_features = out
    model = plan.materialize(value_type=CountingValue)
    x = Matrix([[0.25] * widths[0]] * tokens, CountingValue)
    counter = CountingValue.reset()
    result = model.forward(x, budget=cost)
    assert (cost, (tokens, widths[-1])) == (counter.operations, result.shape)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.frozen")
@given(x=s.finite_floats, y=s.finite_floats)
def test_tensor_data_is_read_only_so_backward_uses_the_forward_data(
    engine: Engine, x: float, y: float
) -> None:
    """Writing into a leaf's data or a result's data is refused: multiply's gradient stays b."""
    require(engine, "tensor.api", "T.rule.frozen")
    a, b = Tensor([x], requires_grad=True), Tensor([y], requires_grad=True)
    out = multiply(a, b)
    for array in (a.data, b.data, out.data):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 7.0
    out.backward(np.ones(1))
    assert ([y], [x]) == (a.grad.tolist(), b.grad.tolist())
    a.grad[0] = 0.0  # a leaf's grad is its own array: writable in place
    assert [0.0] == a.grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.spec("S03.rule.value-cells")
@given(a=s.finite_floats, b=s.finite_floats, new=s.finite_floats, value=s.assigned_value)
def test_value_data_and_grad_are_cells_and_the_wiring_is_fixed(
    engine: Engine, a: float, b: float, new: float, value: Any
) -> None:
    """parents/local_grads refuse assignment and deletion; data assigned after forward keeps the gradient."""
    require(engine, "scalar.value-api", "S03.rule.value-cells")
    x, y = Value(a), Value(b)
    out = x * y
    wiring = (out.parents, out.local_grads)
    for name in ("parents", "local_grads"):
        with pytest.raises(FrozenError, match=refusal("Value", name)):
            setattr(out, name, value)
        with pytest.raises(FrozenError, match=refusal("Value", name)):
            delattr(out, name)
    assert wiring == (out.parents, out.local_grads)
    assert (x, y) == out.parents
    x.data = new
    out.backward()
    assert (b, a) == (x.grad, y.grad)
    x.grad = 0.0
    assert [new, 0.0] == [x.data, x.grad]


@reference_only(OWN_TYPES)
@pytest.mark.spec("S05.rule.frozen", "S03.rule.value-cells")
@given(value=st.integers(0, 9))
def test_refusal_messages_name_type_attribute_and_value(engine: Engine, value: int) -> None:
    """The whole message: type, attribute, the value offered (short repr), and what to do instead."""
    require(engine, "shapes", "S05.rule.frozen")
    matrix = Matrix([[1.0]])
    with pytest.raises(FrozenError) as assigned:
        matrix.rows = [[value] * 40]  # type: ignore[assignment]
    with pytest.raises(FrozenError) as deleted:
        del matrix.rows
    with pytest.raises(FrozenError) as wiring:
        del Value(1.0).parents
    with pytest.raises(FrozenError) as parents:
        Value(1.0).parents = (value,)
    with pytest.raises(FrozenError) as slopes:
        Value(1.0).local_grads = (value,)
    assert [
        f"Value: cannot assign ({value},) to attribute '{name}': a validated Value is immutable after "
        "construction (build a new one)"
        for name in ("parents", "local_grads")
    ] == [str(parents.value), str(slopes.value)]
    assert [
        f"Matrix: cannot assign [[{', '.join([str(value)] * 6)}, ...]] to attribute 'rows': "
        "a validated Matrix is immutable after construction (build a new one)",
        "Matrix: cannot delete attribute 'rows': a validated Matrix is immutable after construction "
        "(build a new one)",
        "Value: cannot delete attribute 'parents': a validated Value is immutable after construction "
        "(build a new one)",
    ] == [str(assigned.value), str(deleted.value), str(wiring.value)]


@reference_only(OWN_TYPES)
@pytest.mark.spec("S07.fail.output-shape")
@given(tokens=st.integers(2, 3), width=st.integers(2, 3))
def test_a_ragged_output_is_refused_naming_every_width(engine: Engine, tokens: int, width: int) -> None:
    """A broken executor whose last row is one short: the postcondition names both widths."""
    require(engine, "linear", "S07.fail.output-shape")
    from contracts.spec_suite.cases.stage07 import broken_model, input_matrix

    model = broken_model({"widths": [2, 3, width], "use_bias": False, "executor": "ragged-row"})
    expected = (
        f"MLP.forward postcondition: output shape ({tokens}, ragged widths [{width - 1}, {width}]) must "
        f"equal the planned ({tokens}, {width})"
    )
    with pytest.raises(ShapeError) as raised:
        model.forward(input_matrix(tokens, 2))
    assert expected == str(raised.value)

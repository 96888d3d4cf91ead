"""the spec rows' examples of refused assignments, and Value's cells."""

from __future__ import annotations

import re
from typing import Any

import pytest

from contracts import Value
from contracts.core.errors import FrozenError
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.immutability import BUILDERS, snapshot
from contracts.spec_suite.spec_rows import OWN_TYPES, example_params, reference_only, require, row, rows
from contracts.tensor import Tensor

FAMILY = {"05": "shapes", "07": "linear", "08": "linear", "T": "tensor.api"}
FROZEN_ROWS = [row("S05.rule.frozen"), row("S07.rule.frozen"), row("S08.rule.frozen"), row("T.rule.frozen")]


def example_value(value: Any) -> Any:
    """A TOML example value: "None" stands for None (TOML has no null)."""
    return None if value == "None" else value


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params(FROZEN_ROWS))
def test_frozen_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Each example's assignment raises FrozenError naming the type and attribute, and changes nothing."""
    require(engine, FAMILY[spec_row.stage], spec_row.id)
    obj = BUILDERS[example.get("type", "leaf Tensor")]()
    before = snapshot(obj)
    kind, name = type(obj).__name__, example["attribute"]
    with pytest.raises(
        FrozenError, match=rf"^{kind}: cannot assign .+ to attribute '{name}': a validated {kind}"
    ):
        setattr(obj, name, example_value(example["value"]))
    assert before == snapshot(obj)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.frozen")
def test_tensor_data_example(engine: Engine) -> None:
    """Tensor([1, 2]).data[0] = 5 is refused by numpy (read-only): the data stays [1, 2]."""
    require(engine, "tensor.api", "T.rule.frozen")
    tensor = Tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=re.escape("assignment destination is read-only")):
        tensor.data[0] = 5.0
    assert [1.0, 2.0] == tensor.data.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(prefix="S03.rule.value-cells")))
def test_value_cells_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """a = 3, b = 4, out = a * b; a.data = 100 after the forward: the gradients stay (4, 3)."""
    require(engine, "scalar.value-api", spec_row.id)
    a, b = Value(example["a"]), Value(example["b"])
    out = a * b
    a.data = example["new_a"]
    out.backward()
    assert (example["grad_a"], example["grad_b"]) == (a.grad, b.grad)
    with pytest.raises(FrozenError, match=r"^Value: cannot assign .+ to attribute 'parents'"):
        out.parents = ()
    assert (a, b) == out.parents

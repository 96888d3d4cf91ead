"""Issue 10, class 5 goldens: the spec rows' examples of the one numeric rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from contracts import CountingValue
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.tensor import Tensor, log, multiply, reset_node_counter
from tests.spec_rows import example_params, require, row


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("S03.rule.finite")]))
def test_scalar_finite_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """1e200 * 1e200 and log(5e-324) are refused with no node; 1e154 * 1e154 and log(1e-300) are not."""
    require(engine, "scalar.value-api", spec_row.id)
    a = CountingValue(example["a"])
    forms = {"mul": lambda: a * CountingValue(example["b"]), "log": a.log}
    counter = CountingValue.reset()
    if example["refused"]:
        with pytest.raises(
            OverflowError, match=r"must be finite \(it overflows float64\); no node is created$"
        ):
            forms[example["op"]]()
        assert 0 == counter.operations
    else:
        assert example["value"] == pytest.approx(forms[example["op"]]().data, rel=1e-15)


@pytest.mark.parametrize(("spec_row", "example"), example_params([row("T.rule.finite")]))
def test_tensor_finite_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """multiply(1e200, 1e200) is refused before its node; log(5e-324)'s backward before any .grad."""
    require(engine, "tensor.api", spec_row.id)
    leaves = [Tensor(data, requires_grad=True) for data in example["inputs"]]
    ops: dict[str, Callable[..., Tensor]] = {"multiply": multiply, "log": log}
    counter = reset_node_counter()
    if example["refused"] == "forward":
        with pytest.raises(OverflowError, match=r"^multiply: every result element must be finite"):
            ops[example["op"]](*leaves)
        assert 0 == counter.nodes
        return
    out = ops[example["op"]](*leaves)
    if example["refused"] == "backward":
        with pytest.raises(OverflowError, match=r"no \.grad was written$"):
            out.backward(np.asarray(example["upstream"]))
        assert [None, None] == [leaves[0].grad, out.grad]
        return
    out.backward(np.asarray(example["upstream"]))
    assert [1.0 / x for x in example["inputs"][0]] == leaves[0].grad.tolist()

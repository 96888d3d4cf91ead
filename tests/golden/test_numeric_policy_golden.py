"""the spec rows' examples of the one numeric rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from contracts import CountingValue
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage03 import ATTEMPTS
from contracts.spec_suite.spec_rows import OWN_TYPES, example_params, reference_only, require, row
from contracts.tensor import Tensor, log, multiply, reset_node_counter

# These tests drive this project's own Value and Tensor: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)


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


@pytest.mark.parametrize(
    ("spec_row", "example"),
    [p for p in example_params([row("S03.fail.result-overflow")]) if "message" in p.values[1]],
)
def test_scalar_overflow_message_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """Division where only one of x / y, 1 / y, -x / y² overflows: the message shows all of them."""
    require(engine, "scalar.value-api", spec_row.id)
    with pytest.raises(OverflowError) as raised:
        ATTEMPTS[spec_row.id](example).action()
    assert example["message"] == str(raised.value)


@pytest.mark.spec("T.fail.element-range", "T.rule.finite")
def test_tensor_int_range_boundary() -> None:
    """The largest int that rounds to float64 max is accepted; the next representable limit is refused."""
    largest = int(1.7976931348623157e308)
    limit = 2**1024 - 2**970
    assert [1.7976931348623157e308, -1.7976931348623157e308] == Tensor([largest, -largest]).data.tolist()
    assert [float(limit - 1)] == Tensor([limit - 1]).data.tolist()
    for bad in (limit, -limit):
        with pytest.raises(
            ValueError, match=f"^Tensor: data must be finite, got {bad} \\(beyond float64 range\\)$"
        ):
            Tensor([bad])


@pytest.mark.spec("T.rule.finite")
def test_finite_results_whose_sum_overflows_are_accepted() -> None:
    """[1e308, 1e308] is finite though its sum is not: data, results and gradients are accepted."""
    big = Tensor([1e308, 1e308], requires_grad=True)
    out = multiply(big, 1.0)
    out.backward(np.asarray([1e308, 1e308]))
    assert ([1e308, 1e308], [1e308, 1e308]) == (out.data.tolist(), big.grad.tolist())


@pytest.mark.spec("T.fail.gradient-overflow")
def test_gradient_overflow_message_names_the_leaf() -> None:
    """log at 5e-324: the leaf's gradient is the first non-finite one, named with its shape and 'leaf'."""
    leaf = Tensor([5e-324, 1.0], requires_grad=True)
    with pytest.raises(OverflowError) as raised:
        log(leaf).backward(np.ones(2))
    assert (
        "Tensor.backward: the gradient of Tensor(shape=(2,), requires_grad=True) (op leaf) must be finite, "
        "got 1 nan or inf element(s) (float64 overflow); no .grad was written"
    ) == str(raised.value)


@pytest.mark.spec("T.fail.gradient-overflow")
def test_of_two_overflowing_gradients_the_first_in_graph_order_is_named() -> None:
    """x -> a = x * 1e300 -> a * 1e300 with upstream 1e10: a's gradient (1e310) and x's overflow; the
    leaf x comes first in the graph's parents-first order and is the one named."""
    leaf = Tensor([1e-300], requires_grad=True)
    with pytest.raises(OverflowError) as raised:
        multiply(multiply(leaf, 1e300), 1e300).backward(np.asarray([1e10]))
    assert "the gradient of Tensor(shape=(1,), requires_grad=True) (op leaf) must be finite" in str(
        raised.value
    )
    assert leaf.grad is None


@pytest.mark.spec("T.rule.finite")
def test_ints_beyond_int64_within_float64_become_floats() -> None:
    """-2**63 stays an int64 conversion; 2**63 and -2**63 - 1 (numpy: object arrays) become float64."""
    assert [-(2.0**63), 2.0**63, -(2.0**63) - 1] == Tensor([-(2**63), 2**63, -(2**63) - 1]).data.tolist()
    assert [float(2**63 - 1)] == Tensor(2**63 - 1).data.reshape(1).tolist()

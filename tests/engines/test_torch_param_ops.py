"""The torch adapter's Stage 06/08 ops pass each parameter through: they agree with the reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from contracts.engines import load_engine

pytest.importorskip("torch")

RNG = np.random.default_rng(20261130)
X = RNG.normal(size=(2, 3, 4)) * 3.0  # distinct values: a wrong axis or keepdims changes the answer
AXES = [(axis, keepdims) for axis in (0, 1, 2, -1) for keepdims in (False, True)]
CASES: list[Any] = [
    pytest.param(op, {"axis": axis, "keepdims": keepdims}, id=f"{op}-axis{axis}-keep{keepdims}")
    for op in ("sum", "max", "logsumexp")
    for axis, keepdims in AXES
]
CASES += [
    pytest.param(op, {"axis": axis}, id=f"{op}-axis{axis}")
    for op in ("softmax", "log_softmax")
    for axis in (0, 1, 2, -1)
]
# keepdims left out: the adapter's default must be the reference's (the axis dropped)
CASES += [pytest.param(op, {"axis": 1}, id=f"{op}-axis1-default") for op in ("sum", "max", "logsumexp")]


def agree(op: str, inputs: list[Any], params: dict[str, Any], out_shape: tuple[int, ...] | None) -> None:
    """Value and every gradient of torch equal the reference's, under an upstream of distinct values."""
    upstream = None if out_shape is None else RNG.normal(size=out_shape)
    ref_value, ref_grads = load_engine("reference").tensor_vjp_with(op, inputs, upstream, params)
    value, grads = load_engine("torch").tensor_vjp_with(op, inputs, upstream, params)
    assert ref_value.shape == value.shape
    np.testing.assert_allclose(value, ref_value, rtol=1e-12, atol=1e-12)
    assert len(ref_grads) == len(grads)
    for expected, actual in zip(ref_grads, grads, strict=True):
        assert expected.shape == actual.shape
        np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("op", "params"), CASES)
def test_axis_ops_agree_with_the_reference(op: str, params: dict[str, Any]) -> None:
    """sum, max, logsumexp (each axis, keepdims or not), softmax and log_softmax (each axis)."""
    keepdims = params.get("keepdims", False)
    reduces = op in ("sum", "max", "logsumexp")
    shape = np.sum(X, axis=params["axis"], keepdims=keepdims).shape if reduces else X.shape
    agree(op, [X], params, shape)


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4)])
def test_cross_entropy_agrees_with_the_reference(shape: tuple[int, ...]) -> None:
    """Integer targets over the batch axes (flattened for torch), mean reduction, scalar loss."""
    logits = RNG.normal(size=shape) * 2.0
    targets = RNG.integers(0, shape[-1], size=shape[:-1])
    agree("cross_entropy", [logits], {"targets": targets}, None)


@pytest.mark.parametrize("eps", [1e-6, 0.5])
def test_rms_norm_agrees_with_the_reference(eps: float) -> None:
    """rms_norm over the last axis with a gain and the given eps (a large eps changes the result)."""
    gain = RNG.normal(size=(4,))
    agree("rms_norm", [X, gain], {"eps": eps}, X.shape)


def test_an_unknown_op_is_refused_by_name() -> None:
    """An op outside the parameter ops is refused before torch runs, naming it."""
    with pytest.raises(ValueError, match="mean"):
        load_engine("torch").tensor_vjp_with("mean", [X], None, {})

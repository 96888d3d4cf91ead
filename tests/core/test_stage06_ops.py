"""Stage 06/08 API details no spec row covers: the engine entry point's op check, defaults, Tensor inputs."""

from __future__ import annotations

import numpy as np
import pytest

from contracts.tensor import Tensor
from contracts.tensor.engine_ops import reference_tensor_vjp_with
from contracts.tensor.norm import rms_norm
from contracts.tensor.reductions import max as tensor_max
from contracts.tensor.reductions import sum as tensor_sum
from contracts.tensor.softmax import cross_entropy, log_softmax, logsumexp, softmax


def test_unknown_param_op_is_refused() -> None:
    """reference_tensor_vjp_with names the ops it knows when asked for another."""
    with pytest.raises(
        ValueError,
        match=r"^reference_tensor_vjp_with: op must be one of \['cross_entropy', 'log_softmax', "
        r"'logsumexp', 'max', 'rms_norm', 'softmax', 'sum'\], got 'add'$",
    ):
        reference_tensor_vjp_with("add", [np.ones(2)], None, {})


def test_defaults_reduce_the_last_axis_without_keepdims() -> None:
    """axis defaults to -1 and keepdims to False; rms_norm's eps defaults to 1e-6."""
    x = np.asarray([[1.0, 4.0], [3.0, 2.0]])
    assert ([5.0, 5.0], [4.0, 3.0]) == (
        tensor_sum(Tensor(x)).data.tolist(),
        tensor_max(Tensor(x)).data.tolist(),
    )
    assert (2,) == logsumexp(Tensor(x)).shape
    assert [[0.0, 0.0]] == (softmax(Tensor([[2.0, 2.0]])).data - 0.5).tolist()
    assert [[0.0, 0.0]] == (log_softmax(Tensor([[2.0, 2.0]])).data - np.log(0.5)).tolist()
    out = rms_norm(Tensor([[0.0, 0.0]], requires_grad=True), Tensor([1.0, 1.0]))
    out.backward(np.ones((1, 2)))
    assert np.full((1, 2), 1000.0) == pytest.approx(out.parents[0].grad, rel=1e-15)


def test_cross_entropy_of_a_plain_array_and_its_namespace() -> None:
    """cross_entropy accepts logits as an array (a constant) and reads targets in the logits' namespace."""
    out = cross_entropy(np.asarray([[0.0, 0.0]]), [1])
    assert (np.log(2.0), False) == (float(out.data), out.requires_grad)

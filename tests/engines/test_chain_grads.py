"""Each installed engine's chain of additions backpropagates d out / d x = 1, at every depth (the
deep-graph row's small cases, run in-process: the whole-spec runs are child processes)."""

from __future__ import annotations

import pytest

from contracts.engines import load_engine


@pytest.mark.parametrize("name", ["reference", "torch", "micrograd"])
@pytest.mark.parametrize("depth", [0, 1, 7])
def test_a_chain_of_additions_has_gradient_one(name: str, depth: int) -> None:
    """x + 1 + ... + 1 (depth additions): one backward gives x the gradient 1.0, a float."""
    pytest.importorskip({"reference": "contracts", "torch": "torch", "micrograd": "micrograd"}[name])
    grad = load_engine(name).scalar_chain_grad(depth)
    assert (1.0, float) == (grad, type(grad))

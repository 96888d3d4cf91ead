"""The tools.benchmarks still run and still compare the same math (they are no part of the timed suite, so
nothing else would notice: figure 4 raised FrozenError for a whole round once Tensors were frozen).
No time is measured or asserted here. Skipped where the tools.benchmarks are not importable (the wheel's
packaged suite, mutmut's copy of tests/)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from contracts.core.value import count_operation_nodes
from contracts.engines.reference import ReferenceEngine

pytest.importorskip("tools.benchmarks.tensor_ops", reason="tools/benchmarks/ is not importable here")

from tools.benchmarks import scalar, slow_engine, tensor_ops


@pytest.mark.parametrize("case", tensor_ops.CASES, ids=[case.name for case in tensor_ops.CASES])
def test_each_tensor_case_gives_numpys_gradients_on_every_call(case: tensor_ops.Case) -> None:
    """Figure 4's contracts side gives numpy's gradients, and the same ones again on a second call."""
    a, b, g = tensor_ops.arrays(case)
    tensor_ops.check_same_math(case, a, b, g)
    run = tensor_ops.contracts_run(case, a, b, g)
    first, second = run(), run()
    assert [True, True] == [bool(np.array_equal(x, y)) for x, y in zip(first, second, strict=True)]


def test_the_scalar_steps_compute_the_same_loss_with_and_without_checks() -> None:
    """Figures 1 and 2: the checked step and the trusted step give one loss over the same graph size,
    call after call (each step zeroes the gradients it accumulates)."""
    work = scalar.make_workload()
    model = scalar.contracted_model()
    checked, trusted = scalar.contracted_step(model, work), scalar.trusted_step(model, work)
    losses, grads = [], []
    for step in (checked, trusted, checked):
        losses.append(step())
        grads.append(tuple(parameter.grad for parameter in model.parameters()))
    assert 1 == len({loss.data for loss in losses})
    assert 1 == len({count_operation_nodes(loss) for loss in losses})
    assert 1 == len(set(grads))
    assert any(grad != 0.0 for grad in grads[0])


def test_micrograd_builds_as_many_operation_nodes_as_the_contracts_step() -> None:
    """Figure 1 compares equal work: micrograd's step builds the contracts step's number of op nodes."""
    pytest.importorskip("micrograd")
    work = scalar.make_workload()
    ours = scalar.contracted_step(scalar.contracted_model(), work)
    theirs, _ = scalar.micrograd_step(work)
    assert count_operation_nodes(ours()) == scalar.micrograd_operation_nodes(theirs())


def test_the_slowed_engine_computes_the_references_answers() -> None:
    """The 100x-slowed reference returns the reference's values and keeps its declarations."""
    slow, reference = slow_engine.SlowReference(), ReferenceEngine()
    assert reference.scalar_vjp("mul", [2.0, 3.0]) == slow.scalar_vjp("mul", [2.0, 3.0])
    assert (reference.capabilities, reference.lacks("scalar.add")) == (
        slow.capabilities,
        slow.lacks("scalar.add"),
    )
    assert math.isclose(1.0, slow.scalar_chain_grad(10))


def test_the_slowed_engine_slows_only_the_suites_own_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """module_forward calls run: one sleep of 99 times the whole call, not one per nested call (which
    compounded to 10^4 times for module_forward)."""
    slow = slow_engine.SlowReference()
    module = slow.module_linear(2, 3, False)
    readings = iter([0.0])  # the outer call starts at 0 s; every later reading says 1 s
    sleeps: list[float] = []
    monkeypatch.setattr(time, "perf_counter", lambda: next(readings, 1.0))
    monkeypatch.setattr(time, "sleep", sleeps.append)
    slow.module_forward(module, np.ones((1, 2)))
    assert [99.0] == sleeps

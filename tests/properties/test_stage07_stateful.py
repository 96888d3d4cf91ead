"""Stage 07 stateful property: forwards, optimizer steps, aliases, storage swaps and renames, in any order.

The machine keeps its own record of the sealed parameters (names, objects, data) and of the storage
it has tampered with. After every step: the seal is what was built, grads are untouched, data is
what the optimizer steps made it, and, while the storage is intact, current refs equal the seal.
A forward on intact storage must match numpy and the spec's cost; on tampered storage it must be
refused with zero operations and a message naming the tampered layer.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from contracts import CountingValue, Matrix, Value
from contracts.core.errors import ParameterIdentityError
from contracts.core.model import MLP
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage07 import (
    counted_model,
    reference_forward,
    replace_storage,
    spec_model_cost,
)
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)

Saved = list[tuple[Any, ...]]


def save(model: MLP) -> tuple[Any, Saved]:
    """The storage as the test itself records it (not through the implementation's snapshot)."""
    layers = [
        (
            layer,
            layer.name,
            layer.scope,
            layer.weight,  # a Matrix and a Vector are frozen: the objects keep their Values
            layer.bias,
        )
        for layer in model.layers
    ]
    return model.layers, layers


def restore(model: MLP, saved: tuple[Any, Saved]) -> None:
    model.layers, layers = saved
    for layer, name, scope, weight, bias in layers:
        layer.name, layer.scope, layer.weight, layer.bias = name, scope, weight, bias


class SealMachine(RuleBasedStateMachine):
    """One sealed MLP under interleaved legal and illegal operations."""

    def __init__(self) -> None:
        super().__init__()
        self.model: MLP | None = None
        self.case: dict[str, Any] = {}
        self.sealed: list[tuple[str, Value]] = []
        self.data: list[float] = []
        self.saved: tuple[Any, Saved] = ((), [])
        self.tampered: str | None = None  # the message a forward must be refused with

    def live(self) -> MLP:
        assert self.model is not None
        return self.model

    @initialize(case=s.mlp_case())
    def build(self, case: dict[str, Any]) -> None:
        self.case = case
        self.model = counted_model(case)
        self.sealed = [(ref.name, ref.value) for ref in self.model.seal.refs]
        self.data = [value.data for _, value in self.sealed]
        self.saved = save(self.model)

    @rule(data=st.data())
    def forward(self, data: st.DataObject) -> None:
        model = self.live()
        widths = self.case["widths"]
        tokens = data.draw(s.token_count)
        x = data.draw(s.input_rows(tokens, widths[0]))
        counter = CountingValue.reset()
        if self.tampered is not None:
            with pytest.raises(ParameterIdentityError, match=self.tampered):
                model.forward(Matrix(x))
            assert 0 == counter.operations
            return
        out = model.forward(Matrix(x))
        assert (tokens, widths[-1]) == out.shape
        assert spec_model_cost(widths, tokens, self.case["use_bias"]) == counter.operations
        np.testing.assert_allclose(out.data(), reference_forward(model, x), rtol=1e-12, atol=1e-12)

    @rule(data=st.data())
    def optimizer_step(self, data: st.DataObject) -> None:
        """p.data -= lr·step, in place, on every sealed parameter (allowed between forwards)."""
        lr = data.draw(st.floats(0.001, 0.5))
        for index, (_, value) in enumerate(self.sealed):
            value.data -= lr * data.draw(st.floats(-1, 1))
            self.data[index] = value.data

    @precondition(lambda self: self.tampered is None)
    @rule(data=st.data())
    def swap_storage(self, data: st.DataObject) -> None:
        model = self.live()
        modes = s.STORAGE_MODES if len(model.layers) > 1 else s.STORAGE_MODES[:-1]
        mode = data.draw(st.sampled_from(modes))
        index = data.draw(st.integers(0, len(model.layers) - 1))
        name = "fc1" if mode == "reorder" else model.layers[index].plan.name
        replace_storage(model, index, mode)
        self.tampered = rf"layer '{name}' parameter storage identity changed"

    @precondition(lambda self: self.tampered is None)
    @rule(data=st.data())
    def alias(self, data: st.DataObject) -> None:
        """Make two weight positions of one layer the same Value object."""
        model = self.live()
        candidates = [layer for layer in model.layers if len(list(layer.weight.values())) >= 2]
        if not candidates:
            return
        layer = data.draw(st.sampled_from(candidates))
        flat = list(layer.weight.values())
        a, b = data.draw(st.lists(st.integers(0, len(flat) - 1), min_size=2, max_size=2, unique=True))
        flat[b] = flat[a]
        width = layer.plan.in_features
        layer.weight = Matrix.trusted(tuple(tuple(flat[r : r + width]) for r in range(0, len(flat), width)))
        self.tampered = rf"undeclared parameter alias: 'mlp\.{re.escape(layer.plan.name)}\."

    @precondition(lambda self: self.tampered is None)
    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        """Rename a layer: to a fresh name (name changed) or to another layer's (duplicate)."""
        model = self.live()
        index = data.draw(st.integers(0, len(model.layers) - 1))
        layer = model.layers[index]
        others = [other.plan.name for other in model.layers if other is not layer]
        if len(others) > 0 and data.draw(st.booleans()):
            layer.name = data.draw(st.sampled_from(others))
            self.tampered = "duplicate parameter name 'mlp\\."
            return
        layer.name = data.draw(st.text("xyz_", min_size=1, max_size=4))
        self.tampered = rf"layer '{re.escape(layer.plan.name)}' parameter name or order changed"

    @rule()
    def repair(self) -> None:
        restore(self.live(), self.saved)
        self.tampered = None

    @invariant()
    def parameters_are_what_the_steps_made_them(self) -> None:
        if self.model is None:
            return
        model = self.model
        assert [(name, id(value)) for name, value in self.sealed] == [
            (ref.name, ref.identity()) for ref in model.seal.refs
        ]
        assert self.data == [value.data for _, value in self.sealed]
        assert [0.0] * len(self.sealed) == [value.grad for _, value in self.sealed]
        if self.tampered is None:
            assert [(name, id(value)) for name, value in self.sealed] == [
                (ref.name, ref.identity()) for ref in model.current_refs()
            ]


@pytest.fixture(autouse=True)
def _linear_family(engine: Engine) -> None:
    """The machine exercises the reference implementation's Linear family."""
    require(engine, "linear")


SealMachine.TestCase.settings = settings(stateful_step_count=15)
TestSealMachine = pytest.mark.spec(
    "S07.rule.seal-current-storage",
    "S07.rule.optimizer-update",
    "S07.rule.forward-contract",
    "S07.rule.parameter-identity",
    "S07.fail.storage-replaced",
    "S07.fail.parameter-alias",
    "S07.fail.parameter-renamed",
    "S07.fail.duplicate-name",
)(SealMachine.TestCase)

"""Stage 07 contracts at their exact words: every refusal's full message, every default and name.

The failure rows' regexes say which check fired; these tests pin the whole message (the offending
value and the relation), the defaults and the logical names, so a changed word or value fails.
"""

from __future__ import annotations

import math
import re
from statistics import NormalDist
from typing import Any, cast

import numpy as np
import pytest

from contracts import CountingValue, Matrix, Value, Vector
from contracts.cli.plan import format_plan, parse_widths, parser, plan_main
from contracts.core.errors import ParameterIdentityError, ResourceBudgetError, ShapeError
from contracts.core.forward import ForwardStep, ModelForwardPlan, guarded_forward
from contracts.core.frozen import set_fields
from contracts.core.init import InitSpec, checked_init_value, unit_uniform
from contracts.core.linear import Linear, LinearPlan, frozen_rows
from contracts.core.model import MLP, ModelPlan
from contracts.core.seal import (
    ParameterRef,
    ParameterSeal,
    ParameterState,
    check_distinct,
    check_finite,
    same,
)
from contracts.spec_suite.cases.stage07 import input_matrix, spec_value
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)


def exactly(message: str) -> str:
    """A match= pattern for the whole message."""
    return f"^{re.escape(message)}$"


def weights(rows: int, cols: int, start: float = 0.5) -> Matrix:
    return Matrix([[start + 0.25 * (o * cols + i) for i in range(cols)] for o in range(rows)])


# ---------------------------------------------------------------- InitSpec


@pytest.mark.spec("S07.fail.invalid-plan", "S07.fail.init-spec", "S07.fail.plan-type")
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"distribution": "cauchy"},
            ValueError,
            "InitSpec: distribution must be one of ('normal', 'uniform'), got 'cauchy'",
        ),
        ({"role": "he"}, ValueError, "InitSpec: role must be one of ('standard', 'relu'), got 'he'"),
        ({"gain": 0}, ValueError, "InitSpec: gain must be > 0, got 0.0"),
        ({"gain": -0.5}, ValueError, "InitSpec: gain must be > 0, got -0.5"),
        ({"gain": math.inf}, ValueError, "InitSpec: gain must be finite, got inf"),
        ({"gain": "1"}, TypeError, "InitSpec: gain must be a real number (bool rejected), got '1' (str)"),
        ({"seed": -1}, ValueError, "InitSpec: seed must be >= 0, got -1"),
        ({"seed": 1.0}, TypeError, "InitSpec: seed must be an exact int (bool rejected), got 1.0 (float)"),
    ],
)
def test_init_spec_refusals(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    """Each invalid InitSpec field is refused with the field, the bound and the offending value."""
    with pytest.raises(error, match=exactly(message)):
        InitSpec(**kwargs)


@pytest.mark.spec("S07.rule.init-deterministic")
def test_init_spec_defaults_and_values() -> None:
    """Defaults normal/1.0/0/standard; gain kept as float; values are the inverse CDF of u."""
    assert ("normal", 1.0, 0, "standard") == InitSpec().key()
    spec = InitSpec("uniform", 2, 0, "relu")
    assert (float, "InitSpec(distribution='uniform', gain=2.0, seed=0, role='relu')") == (
        type(spec.gain),
        repr(spec),
    )
    assert ("uniform", 3.0, 5, "standard") == InitSpec("uniform", 3.0, 5).with_role("standard").key()
    u = unit_uniform(5, "fc1.weight", 2, 1)
    uniform = InitSpec("uniform", 3.0, 5)
    bound = math.sqrt(3.0 * 9.0 / 4)
    assert bound * (2.0 * u - 1.0) == pytest.approx(uniform.value("fc1.weight", 2, 1, 4), rel=1e-15)
    normal = InitSpec("normal", 3.0, 5, "relu")
    expected = math.sqrt(2.0 * 9.0 / 4) * NormalDist().inv_cdf(u)
    assert expected == pytest.approx(normal.value("fc1.weight", 2, 1, 4), rel=1e-15)
    draw = normal.initializer(4)
    assert normal.value("fc2.weight", 0, 3, 4) == draw("fc2.weight", 0, 3)
    others = {unit_uniform(5, "fc1.weight", 2, 1)} ^ {
        unit_uniform(6, "fc1.weight", 2, 1),
        unit_uniform(5, "fc2.weight", 2, 1),
        unit_uniform(5, "fc1.weight", 1, 2),
        unit_uniform(5, "fc1.weight", 2, 2),
    }
    assert 5 == len(others)


class Digest:
    """A stand-in for blake2b: records the key and size, returns a chosen digest."""

    def __init__(self, digest: bytes) -> None:
        self.digest_bytes = digest
        self.calls: list[tuple[bytes, int]] = []

    def __call__(self, key: bytes, digest_size: int) -> Digest:
        self.calls.append((key, digest_size))
        return self

    def digest(self) -> bytes:
        return self.digest_bytes


@pytest.mark.spec("S07.rule.init-deterministic")
@pytest.mark.parametrize(
    ("digest", "bits"),
    [(bytes(8), 0), (b"\xff" * 8, 2**53 - 1), (b"\x80" + bytes(7), 2**52), (bytes(6) + b"\x08\x00", 1)],
)
def test_unit_uniform_is_the_midpoint_of_the_top_53_bits(
    monkeypatch: pytest.MonkeyPatch, digest: bytes, bits: int
) -> None:
    """u = (top 53 bits of the 8-byte big-endian digest of (seed, tensor, row, col) + 0.5) / 2^53."""
    fake = Digest(digest)
    monkeypatch.setattr("contracts.core.init.hashlib.blake2b", fake)
    assert (bits + 0.5) / 2.0**53 == unit_uniform(5, "fc1.weight", 2, 1)
    assert [(b"5\x1ffc1.weight\x1f2\x1f1", 8)] == fake.calls


@pytest.mark.spec("S07.fail.init-type", "S07.fail.init-non-finite", "S07.rule.init-results")
def test_checked_init_value() -> None:
    """An initializer result is a finite real, returned as exactly float (an int 1 as 1.0); else named
    and refused."""

    class Half(float):
        pass

    assert [(float, 0.5), (float, 1.0)] == [
        (type(checked_init_value(raw, "w", "x")), checked_init_value(raw, "w", "x")) for raw in (Half(0.5), 1)
    ]
    with pytest.raises(TypeError, match=exactly("w: x must be a real number (bool rejected), got '1' (str)")):
        checked_init_value("1", "w", "x")
    with pytest.raises(
        TypeError, match=exactly("w: x must be a real number (bool rejected), got True (bool)")
    ):
        checked_init_value(True, "w", "x")
    with pytest.raises(ValueError, match=exactly("w: x must be finite, got nan")):
        checked_init_value(math.nan, "w", "x")
    with pytest.raises(
        ValueError, match=exactly(f"w: x must be finite, got {10**309} (beyond float64 range)")
    ):
        checked_init_value(10**309, "w", "x")


@pytest.mark.spec("S07.fail.init-non-finite", "S07.rule.weight-layout")
def test_an_initializer_refusal_names_the_position_it_came_from() -> None:
    """A bad result at (tensor, row o, column i) is refused naming that tensor, then o, then i; with a
    second bad result at the last position too, the first in call order is the one named."""
    plan = ModelPlan.mlp([3, 4, 2])
    # Every position of both (C_out, C_in) weights; most are asymmetric, so a swapped pair shows.
    positions = [
        (f"fc{n + 1}.weight", o, i)
        for n, (c_in, c_out) in enumerate([(3, 4), (4, 2)])
        for o in range(c_out)
        for i in range(c_in)
    ]
    for tensor, o, i in positions:

        def bad_at(
            name: object, row: object, col: object, at: tuple[str, int, int] = (tensor, o, i)
        ) -> float:
            return math.inf if (name, row, col) in (at, positions[-1]) else 0.5

        message = f"ModelPlan.materialize: initializer({tensor!r}, {o}, {i}) must be finite, got inf"
        with pytest.raises(ValueError, match=exactly(message)):
            plan.materialize(bad_at)


# ---------------------------------------------------------------- LinearPlan


@pytest.mark.spec("S07.fail.invalid-plan", "S07.fail.plan-type")
@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((5, 3, 4), TypeError, "LinearPlan: name must be a non-blank str, got 5 (int)"),
        ((" \t", 3, 4), ValueError, "LinearPlan: name must be a non-blank str, got ' \\t'"),
        (("fc1", 0, 4), ValueError, "LinearPlan 'fc1': in_features C_in must be >= 1, got 0"),
        (
            ("fc1", 3, True),
            TypeError,
            "LinearPlan 'fc1': out_features C_out must be an exact int (bool rejected), got True (bool)",
        ),
        (("fc1", 3, 4, 1), TypeError, "LinearPlan 'fc1': use_bias must be a bool, got 1 (int)"),
        (("fc1", 3, 4, False, "x"), TypeError, "LinearPlan 'fc1': init must be an InitSpec, got 'x' (str)"),
    ],
)
def test_linear_plan_refusals(args: tuple[Any, ...], error: type[Exception], message: str) -> None:
    """Each invalid LinearPlan field is refused naming the layer, the field and the value."""
    with pytest.raises(error, match=exactly(message)):
        LinearPlan(*args)


@pytest.mark.spec("S07.rule.bias-absent", "S07.rule.weight-layout")
def test_linear_plan_defaults_and_steps() -> None:
    """Default: no bias, InitSpec(); shapes, repr, key and the planned step of one layer."""
    plan = LinearPlan("fc1", 3, 4)
    assert (False, InitSpec().key(), None) == (plan.use_bias, plan.init.key(), plan.bias_shape())
    assert "LinearPlan('fc1', 3, 4, use_bias=False, init=" + repr(InitSpec()) + ")" == repr(plan)
    biased = LinearPlan("fc2", 3, 4, True, InitSpec(seed=2))
    assert ((4,), ("fc2", 3, 4, True, InitSpec(seed=2).key())) == (biased.bias_shape(), biased.key())
    cost = int(spec_value("S07.cost.linear", T=2, Cin=3, Cout=4, bias=1))
    assert ForwardStep("fc2", "linear", (2, 3), (2, 4), cost, 16) == biased.forward_step(2)
    layer = biased.materialize()
    assert ModelForwardPlan(3, (biased.forward_step(3),)) == layer.forward_plan(3)


@pytest.mark.spec("S07.fail.parameter-alias")
def test_alias_at_construction_names_both_positions() -> None:
    """A Linear or an MLP whose storage shares a Value is refused where it is sealed."""
    shared = Value(0.5)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "Linear 'fc1': undeclared parameter alias: 'fc1.weight[0,0]' and 'fc1.weight[1,0]' are the same "
            "Value object (layer 'fc1'); every position must be a distinct Value"
        ),
    ):
        Linear(LinearPlan("fc1", 1, 2), Matrix.trusted(((shared,), (shared,))))
    layer = LinearPlan("fc1", 1, 2).materialize()
    layer.weight = Matrix.trusted((layer.weight.rows[0], layer.weight.rows[0]))
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "Linear.forward: undeclared parameter alias: 'fc1.weight[0,0]' and 'fc1.weight[1,0]' are the "
            "same Value object (layer 'fc1'); every position must be a distinct Value"
        ),
    ):
        layer.forward(Matrix([[1.0]]))
    plan = ModelPlan.mlp([1, 1, 1])
    first, second = plan.materialize().layers
    second.weight = Matrix.trusted(first.weight.rows)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "MLP: undeclared parameter alias: 'mlp.fc1.weight[0,0]' and 'mlp.fc2.weight[0,0]' are the same "
            "Value object (layer 'fc2'); every position must be a distinct Value"
        ),
    ):
        MLP(plan, [first, second])


@pytest.mark.spec("S07.fail.parameter-budget", "S07.fail.init-type")
def test_linear_plan_materialize() -> None:
    """Budget, value type and scope of one layer's materialization, with their exact refusals."""
    plan = LinearPlan("fc1", 2, 2, True)
    with pytest.raises(
        ResourceBudgetError,
        match=exactly(
            "LinearPlan 'fc1'.materialize: needs 6 parameters, budget is 5 (cost must be <= budget)"
        ),
    ):
        plan.materialize(parameter_budget=5)
    for bad, shown in ((int, "<class 'int'> (type)"), (5, "5 (int)")):
        with pytest.raises(
            TypeError,
            match=exactly(
                f"LinearPlan 'fc1'.materialize: value_type must be Value or a subclass, got {shown}"
            ),
        ):
            plan.materialize(value_type=cast(Any, bad))
    with pytest.raises(
        TypeError,
        match=exactly(
            "LinearPlan 'fc1'.materialize: initializer('fc1.weight', 0, 0) must be a real number "
            "(bool rejected), got '1' (str)"
        ),
    ):
        plan.materialize(lambda *_: "1")
    layer = plan.materialize(value_type=CountingValue, scope="s", parameter_budget=6)
    expected = [InitSpec().value("fc1.weight", o, i, 2) for o in range(2) for i in range(2)]
    assert expected == [v.data for v in layer.weight.values()]
    assert {CountingValue} == {type(v) for v in layer.parameters()}
    assert (
        "s.fc1.weight[0,0]",
        "s.fc1.weight[0,1]",
        "s.fc1.weight[1,0]",
        "s.fc1.weight[1,1]",
        "s.fc1.bias[0]",
        "s.fc1.bias[1]",
    ) == layer.seal.names()
    assert "fc1.weight[1,0]" == LinearPlan("fc1", 2, 2).materialize().sealed_refs()[2].name


# ---------------------------------------------------------------- Linear


@pytest.mark.spec("S07.fail.storage-shape")
def test_linear_refusals() -> None:
    """Linear(plan, weight, bias, scope) refuses every mismatch with the plan, naming the values."""
    plan, biased = LinearPlan("fc1", 3, 4), LinearPlan("fc1", 3, 4, True)
    with pytest.raises(TypeError, match=exactly("Linear: plan must be a LinearPlan, got 'p' (str)")):
        Linear(cast(Any, "p"), weights(4, 3))
    with pytest.raises(TypeError, match=exactly("Linear 'fc1': operand must be a Matrix, got 'w' (str)")):
        Linear(plan, cast(Any, "w"))
    with pytest.raises(
        ShapeError,
        match=exactly("Linear 'fc1': weight shape must equal the plan's (C_out, C_in) = (4, 3), got (3, 4)"),
    ):
        Linear(plan, weights(3, 4))
    with pytest.raises(
        TypeError, match=exactly("Linear 'fc1': operand must be a Vector, got None (NoneType)")
    ):
        Linear(biased, weights(4, 3))
    with pytest.raises(
        ShapeError, match=exactly("Linear 'fc1': bias shape must equal the plan's (C_out,) = (4,), got (3,)")
    ):
        Linear(biased, weights(4, 3), Vector([0.0] * 3))
    zeros = Vector([0.0] * 4)
    with pytest.raises(
        ShapeError,
        match=exactly(f"Linear 'fc1': use_bias=False takes no bias (not even zeros), got {zeros!r}"),
    ):
        Linear(plan, weights(4, 3), zeros)
    with pytest.raises(TypeError, match=exactly("Linear 'fc1': scope must be a str, got 5 (int)")):
        Linear(plan, weights(4, 3), None, cast(Any, 5))


@pytest.mark.spec("S07.rule.parameter-identity", "S07.rule.seal-current-storage")
def test_linear_binding_and_identity_fast_path() -> None:
    """Bound storage as given; unchanged storage returns the sealed refs object itself."""
    plan = LinearPlan("fc1", 2, 2, True)
    weight, bias = weights(2, 2), Vector([0.5, -0.5])
    layer = Linear(plan, weight, bias, "model")
    assert (plan, "fc1", "model", weight, bias) == (
        layer.plan,
        layer.name,
        layer.scope,
        layer.weight,
        layer.bias,
    )
    assert "Linear(" + repr(plan) + ")" == repr(layer)
    assert [("model.fc1.bias[1]", "fc1")] == [(r.name, r.owner) for r in layer.sealed_refs()[-1:]]
    assert layer.verify_seal("w") is layer.seal.refs
    for change in ("rows", "values", "scope", "name"):
        layer = Linear(plan, weights(2, 2), Vector([0.5, -0.5]), "model")
        if change == "rows":
            layer.weight = Matrix.trusted((layer.weight.rows[0], layer.weight.rows[1]))
        elif change == "values":
            assert layer.bias is not None
            layer.bias = Vector.trusted(tuple(list(layer.bias.values)))
        elif change == "scope":
            layer.scope = "".join(["mod", "el"])
        else:
            layer.name = "".join(["fc", "1"])
        refs = layer.verify_seal("w")
        assert (False, layer.seal.refs) == (refs is layer.seal.refs, refs)


@pytest.mark.spec("S07.fail.storage-replaced")
def test_linear_mutable_rows_never_take_the_fast_path() -> None:
    """Rows held in lists are re-read every forward, so an element assigned in place is refused."""
    plan = LinearPlan("fc1", 2, 1)
    rows = [[Value(0.5), Value(1.5)]]
    layer = Linear(plan, Matrix.trusted(cast(Any, rows)))
    assert (False, False) == (frozen_rows(rows), frozen_rows(([Value(1.0)],)))
    assert layer.verify_seal("w") is not layer.seal.refs
    rows[0][1] = Value(1.5)
    with pytest.raises(
        ParameterIdentityError, match=r"^Linear\.forward: layer 'fc1' parameter storage identity"
    ):
        layer.forward(Matrix([[1.0, 2.0]]))
    # every row is read: a tuple whose last row is a list is not frozen either
    last = [Value(0.5), Value(1.5)]
    two = Linear(LinearPlan("fc3", 2, 2), Matrix.trusted(cast(Any, ((Value(1.0), Value(2.0)), last))))
    assert (False, False) == (two.frozen, frozen_rows(((Value(1.0),), [Value(1.0)])))
    last[0] = Value(0.5)
    with pytest.raises(ParameterIdentityError, match=r"layer 'fc3' parameter storage identity changed"):
        two.forward(Matrix([[1.0, 2.0]]))
    values = [Value(0.0)]
    biased = Linear(LinearPlan("fc2", 1, 1, True), weights(1, 1), Vector.trusted(cast(Any, values)))
    values[0] = Value(0.0)
    with pytest.raises(ParameterIdentityError, match=r"layer 'fc2' parameter storage identity changed"):
        biased.forward(Matrix([[1.0]]))


@pytest.mark.spec("S07.fail.storage-replaced")
def test_linear_storage_of_the_wrong_type_is_refused() -> None:
    """weight replaced by a list, or bias by a list, is refused naming the layer and the value."""
    layer = LinearPlan("fc1", 1, 1, True).materialize(lambda *_: 0.5)
    x = Matrix([[1.0]])
    cast(Any, layer).weight = [[0.5]]
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "Linear 'fc1': layer 'fc1' parameter storage identity changed: weight storage must be the "
            "sealed Matrix, got [[0.5]]"
        ),
    ):
        layer.forward(x)
    layer = LinearPlan("fc1", 1, 1, True).materialize(lambda *_: 0.5)
    cast(Any, layer).bias = [0.0]
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "Linear 'fc1': layer 'fc1' parameter storage identity changed: bias storage must be the "
            "sealed Vector or None, got [0.0]"
        ),
    ):
        layer.forward(x)


# marker audit: this proves the forward's values with a bias, not a gradient nor an update
# between forwards, so it is bound to the weight layout rule only
@pytest.mark.spec("S07.rule.weight-layout")
def test_linear_forward_with_bias_adds_each_output_its_own_bias() -> None:
    """y[t, o] = sum_i x[t, i] W[o, i] + b[o], over T = 2 tokens."""
    layer = LinearPlan("fc1", 2, 2, True).materialize(lambda _, o, i: float(1 + o + 2 * i))
    assert layer.bias is not None
    layer.bias.values[0].data, layer.bias.values[1].data = 10.0, 20.0
    out = layer.forward(Matrix([[1.0, 2.0], [3.0, -1.0]]))
    assert [[1 + 6 + 10.0, 2 + 8 + 20.0], [3 - 3 + 10.0, 6 - 4 + 20.0]] == out.data()


# ---------------------------------------------------------------- ModelPlan


def plans(*pairs: tuple[str, int, int]) -> list[LinearPlan]:
    """Explicit layers with the roles that fit: standard first, relu after every ReLU."""
    return [
        LinearPlan(name, a, b, init=InitSpec(role="relu" if index else "standard"))
        for index, (name, a, b) in enumerate(pairs)
    ]


@pytest.mark.spec(
    "S07.fail.width-mismatch", "S07.fail.duplicate-name", "S07.fail.plan-type", "S07.fail.init-role"
)
@pytest.mark.parametrize(
    ("layers", "kwargs", "error", "message"),
    [
        ("fc", {}, TypeError, "ModelPlan: layers must be a sequence of LinearPlan, got 'fc' (str)"),
        (b"fc", {}, TypeError, "ModelPlan: layers must be a sequence of LinearPlan, got b'fc' (bytes)"),
        (5, {}, TypeError, "ModelPlan: layers must be a sequence of LinearPlan, got 5 (int)"),
        (
            [LinearPlan("a", 1, 1), "x"],
            {},
            TypeError,
            "ModelPlan: layers[1] must be a LinearPlan, got 'x' (str)",
        ),
        (  # two offenders of each kind below: the first is named
            [LinearPlan("a", 1, 1), "x", 7],
            {},
            TypeError,
            "ModelPlan: layers[1] must be a LinearPlan, got 'x' (str)",
        ),
        ([], {}, ValueError, "ModelPlan: layers must hold >= 1 LinearPlan, got 0"),
        (plans(("a", 1, 1)), {"name": " "}, ValueError, "ModelPlan: name must be a non-blank str, got ' '"),
        (plans(("a", 1, 1)), {"parameter_budget": -1}, ValueError, "ModelPlan: budget must be >= 0, got -1"),
        (
            plans(("fc1", 3, 3), ("fc2", 3, 3), ("fc1", 3, 3)),
            {},
            ParameterIdentityError,
            "ModelPlan: duplicate layer name 'fc1' at layers[0] and layers[2]: "
            "every layer name must be unique",
        ),
        (
            plans(("fc1", 3, 4), ("fc2", 5, 2)),
            {},
            ShapeError,
            "ModelPlan: layer 'fc2' in_features C_in = 5 must equal layer 'fc1' out_features C_out = 4",
        ),
        (  # two layers after a ReLU with role standard: the first is named
            [LinearPlan("fc1", 3, 4), LinearPlan("fc2", 4, 4), LinearPlan("fc3", 4, 2)],
            {"parameter_budget": 1},
            ValueError,
            "ModelPlan: layer 'fc2' init role must be 'relu' (its input comes through a ReLU), "
            "got 'standard'",
        ),
        (
            plans(("fc1", 3, 4), ("fc2", 5, 2), ("fc3", 6, 1)),
            {},
            ShapeError,
            "ModelPlan: layer 'fc2' in_features C_in = 5 must equal layer 'fc1' out_features C_out = 4",
        ),
        (
            plans(("fc1", 3, 3), ("fc2", 3, 3), ("fc2", 3, 3), ("fc1", 3, 3)),
            {},
            ParameterIdentityError,
            "ModelPlan: duplicate layer name 'fc2' at layers[1] and layers[2]: "
            "every layer name must be unique",
        ),
        (
            plans(("fc1", 3, 4), ("fc2", 4, 2)),
            {"parameter_budget": 19},
            ResourceBudgetError,
            "ModelPlan: needs 20 parameters, budget is 19 (cost must be <= budget)",
        ),
    ],
)
def test_model_plan_refusals(
    layers: Any, kwargs: dict[str, Any], error: type[Exception], message: str
) -> None:
    """Each invalid ModelPlan is refused with the exact layer, relation and values."""
    with pytest.raises(error, match=exactly(message)):
        ModelPlan(layers, **kwargs)


@pytest.mark.spec("S07.rule.layer-roles")
@pytest.mark.parametrize(
    ("widths", "kwargs", "error", "message"),
    [
        ("34", {}, TypeError, "ModelPlan.mlp: widths must be a sequence of ints, got '34' (str)"),
        (b"34", {}, TypeError, "ModelPlan.mlp: widths must be a sequence of ints, got b'34' (bytes)"),
        (34, {}, TypeError, "ModelPlan.mlp: widths must be a sequence of ints, got 34 (int)"),
        ([3], {}, ValueError, "ModelPlan.mlp: widths must hold >= 2 sizes (input and output), got 1"),
        ([3, 4], {"init": "x"}, TypeError, "ModelPlan.mlp: init must be an InitSpec, got 'x' (str)"),
    ],
)
def test_mlp_plan_refusals(widths: Any, kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    """ModelPlan.mlp refuses widths that are not >= 2 sizes and an init that is not an InitSpec."""
    with pytest.raises(error, match=exactly(message)):
        ModelPlan.mlp(widths, **kwargs)


@pytest.mark.spec("S07.rule.layer-roles", "S07.params.mlp")
def test_mlp_plan_layers() -> None:
    """fc1..fcN with the given bias, name, budget and InitSpec (first standard, the rest relu)."""
    init = InitSpec("uniform", 2.0, 7, "relu")
    plan = ModelPlan.mlp((3, 4, 5, 2), use_bias=True, init=init, name="net", parameter_budget=63)
    assert [
        ("fc1", 3, 4, True, ("uniform", 2.0, 7, "standard")),
        ("fc2", 4, 5, True, ("uniform", 2.0, 7, "relu")),
        ("fc3", 5, 2, True, ("uniform", 2.0, 7, "relu")),
    ] == [layer.key() for layer in plan.layers]
    assert (tuple, "net", 63, [3, 4, 5, 2]) == (
        type(plan.layers),
        plan.name,
        plan.parameter_budget,
        plan.widths(),
    )
    assert f"ModelPlan({list(plan.layers)!r}, name='net')" == repr(plan)
    assert "mlp" == ModelPlan([LinearPlan("a", 1, 1)]).name
    default = ModelPlan.mlp([3, 4])
    assert ("mlp", None, ("fc1", 3, 4, False, InitSpec().key())) == (
        default.name,
        default.parameter_budget,
        default.layers[0].key(),
    )


@pytest.mark.spec("S07.cost.mlp", "S07.cost.relu", "S07.rule.graph-budget")
def test_plan_forward_steps() -> None:
    """Linear, ReLU, Linear, ReLU, Linear with the spec's costs; budget G - 1 refused, G accepted."""
    plan = ModelPlan.mlp([3, 4, 5, 2], use_bias=True)
    steps = plan.plan_forward(2).steps

    def linear(name: str, c_in: int, c_out: int) -> ForwardStep:
        cost = int(spec_value("S07.cost.linear", T=2, Cin=c_in, Cout=c_out, bias=1))
        params = int(spec_value("S07.params.linear", Cin=c_in, Cout=c_out, bias=1))
        return ForwardStep(name, "linear", (2, c_in), (2, c_out), cost, params)

    def relu(name: str, width: int) -> ForwardStep:
        return ForwardStep(
            name, "relu", (2, width), (2, width), int(spec_value("S07.cost.relu", T=2, Chid=width)), 0
        )

    assert (
        linear("fc1", 3, 4),
        relu("relu1", 4),
        linear("fc2", 4, 5),
        relu("relu2", 5),
        linear("fc3", 5, 2),
    ) == steps
    forward = ModelForwardPlan(2, steps)
    total = sum(step.graph_nodes for step in steps)
    assert ((2, 3), (2, 2), plan.parameter_count(), total) == (
        forward.input_shape(),
        forward.output_shape(),
        forward.total_parameters(),
        forward.total_graph_nodes(),
    )
    assert total == plan.plan_forward(2, budget=total).total_graph_nodes()
    message = (
        f"ModelPlan.plan_forward: needs {total} graph nodes, budget is {total - 1} (cost must be <= budget)"
    )
    with pytest.raises(ResourceBudgetError, match=exactly(message)):
        plan.plan_forward(2, budget=total - 1)
    model = plan.materialize()
    with pytest.raises(ResourceBudgetError, match=exactly(message)):
        model.plan_forward(2, total - 1)
    with pytest.raises(ValueError, match=exactly("ModelPlan.plan_forward: tokens T must be >= 1, got 0")):
        plan.plan_forward(0)


@pytest.mark.spec("S07.rule.model-plan-order", "S07.fail.init-type")
def test_model_plan_materialize() -> None:
    """Default initializer per layer, value type, model scope; refusals name the model step."""
    plan = ModelPlan.mlp([2, 3, 1], use_bias=True, init=InitSpec(seed=3), name="net")
    for bad, shown in ((int, "<class 'int'> (type)"), (5, "5 (int)")):
        with pytest.raises(
            TypeError,
            match=exactly(f"ModelPlan.materialize: value_type must be Value or a subclass, got {shown}"),
        ):
            plan.materialize(value_type=cast(Any, bad))
    with pytest.raises(
        TypeError,
        match=exactly(
            "ModelPlan.materialize: initializer('fc2.weight', 0, 2) must be a real number (bool rejected), "
            "got None (NoneType)"
        ),
    ):
        plan.materialize(lambda tensor, o, i: None if tensor == "fc2.weight" and i == 2 else 0.5)
    model = plan.materialize(value_type=CountingValue)
    expected = [InitSpec(seed=3).value("fc1.weight", o, i, 2) for o in range(3) for i in range(2)] + [
        InitSpec(seed=3, role="relu").value("fc2.weight", 0, i, 3) for i in range(3)
    ]
    assert expected == [v.data for layer in model.layers for v in layer.weight.values()]
    assert ({CountingValue}, "net.fc2.bias[0]", "net") == (
        {type(v) for v in model.parameters()},
        model.seal.names()[-1],
        model.name,
    )


# ---------------------------------------------------------------- MLP


@pytest.mark.spec("S07.fail.storage-shape", "S07.fail.parameter-renamed")
def test_mlp_refusals() -> None:
    """MLP(plan, layers) refuses a non-plan, a wrong count, a non-Linear, another plan, another scope."""
    plan = ModelPlan.mlp([3, 4, 2])
    layers = list(plan.materialize().layers)
    with pytest.raises(TypeError, match=exactly("MLP: plan must be a ModelPlan, got 'p' (str)")):
        MLP(cast(Any, "p"), layers)
    with pytest.raises(ShapeError, match=exactly("MLP: needs 2 layers (the plan's), got 1")):
        MLP(plan, layers[:1])
    with pytest.raises(TypeError, match=exactly("MLP: layers[1] must be a Linear, got 'x' (str)")):
        MLP(plan, [layers[0], cast(Any, "x")])
    other = LinearPlan("fc2", 4, 2, init=InitSpec(seed=1, role="relu")).materialize(scope="mlp")
    with pytest.raises(
        ShapeError,
        match=exactly(f"MLP: layers[1] must be built from the plan's {plan.layers[1]!r}, got {other.plan!r}"),
    ):
        MLP(plan, [layers[0], other])
    stray = plan.layers[1].materialize(scope="other")
    with pytest.raises(
        ParameterIdentityError,
        match=exactly("MLP: layer 'fc2' scope must be the model name 'mlp', got 'other'"),
    ):
        MLP(plan, [layers[0], stray])
    model = MLP(plan, tuple(layers))
    assert (plan, "mlp", tuple(layers), f"MLP({plan!r})") == (
        model.plan,
        model.name,
        model.layers,
        repr(model),
    )


# Two bad layers in each case: MLP(plan, layers) checks one layer at a time, in order (type, plan, scope),
# so the first offending layer is named whatever check the later one fails (S07.fail.storage-shape's note).
def two_bad_layers(plan: ModelPlan) -> dict[str, tuple[list[Any], type[Exception], str]]:
    fc1, _, fc3 = plan.materialize().layers
    stray1, stray2 = (plan.layers[i].materialize(scope="other") for i in (0, 1))
    wrong_fc2 = LinearPlan("fc2", 4, 4, init=InitSpec(seed=1, role="relu")).materialize(scope="mlp")
    type_error = "MLP: layers[{}] must be a Linear, got {!r} (str)"
    scope_error = "MLP: layer '{}' scope must be the model name 'mlp', got 'other'"
    return {
        "two non-Linears": ([fc1, "x", "y"], TypeError, type_error.format(1, "x")),
        "a scope, then a non-Linear": ([stray1, "y", fc3], ParameterIdentityError, scope_error.format("fc1")),
        "another plan, then a scope": ([fc1, wrong_fc2, stray2], ShapeError, "MLP: layers[1] must be built"),
        "two scopes": ([stray1, stray2, fc3], ParameterIdentityError, scope_error.format("fc1")),
    }


@pytest.mark.spec("S07.fail.storage-shape", "S07.fail.parameter-renamed")
@pytest.mark.parametrize(
    "case", ["two non-Linears", "a scope, then a non-Linear", "another plan, then a scope", "two scopes"]
)
def test_mlp_names_the_first_offending_layer(case: str) -> None:
    """Of two bad layers, MLP(plan, layers) refuses the first in order, with that layer's own check."""
    layers, error, message = two_bad_layers(ModelPlan.mlp([3, 4, 4, 2]))[case]
    with pytest.raises(error) as refused:
        MLP(ModelPlan.mlp([3, 4, 4, 2]), layers)
    assert str(refused.value).startswith(message), str(refused.value)


@pytest.mark.spec("S07.fail.storage-replaced")
@pytest.mark.parametrize("layers", [lambda m: list(m.layers), lambda m: (m.layers[0], "x")])
def test_mlp_layers_storage_of_the_wrong_type_is_refused(layers: Any) -> None:
    """model.layers replaced by a list, or holding a non-Linear, is refused naming the model."""
    model = ModelPlan.mlp([1, 1, 1]).materialize(lambda *_: 0.5)
    model.layers = layers(model)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(f"MLP 'mlp': layers storage must be a tuple of Linear, got {model.layers!r}"),
    ):
        model.forward(Matrix([[1.0]]))


@pytest.mark.spec("S07.rule.seal-current-storage", "S07.fail.storage-replaced")
def test_mlp_identity_fast_path() -> None:
    """Unchanged storage returns the model's sealed refs; a layer changed before the model was
    sealed never takes the fast path, even after its own storage is put back."""
    plan = ModelPlan.mlp([2, 2, 1])
    model = plan.materialize()
    assert model.verify_seal("w") is model.seal.refs
    model.layers = tuple(model.layers)[::-1][::-1]
    assert model.verify_seal("w") is not model.seal.refs
    square = ModelPlan.mlp([2, 2, 2]).materialize()
    square.layers = square.layers[::-1]
    with pytest.raises(
        ParameterIdentityError,
        match=r"^MLP\.forward: layer 'fc1' parameter storage identity changed: "
        r"sealed 'mlp\.fc1\.weight\[0,0\]' \(Value id 0x[0-9a-f]+\), "
        r"current 'mlp\.fc2\.weight\[0,0\]' \(Value id 0x[0-9a-f]+\) \(storage must",
    ):
        square.forward(input_matrix(1, 2))
    layers = plan.materialize().layers
    first = layers[0]
    original = first.weight.rows
    sealed_weight = first.weight
    first.weight = Matrix.trusted(tuple(tuple(Value(v.data) for v in row) for row in original))
    changed = MLP(plan, layers)
    first.weight = sealed_weight
    with pytest.raises(
        ParameterIdentityError, match=r"layer 'fc1' parameter storage identity changed: sealed"
    ):
        changed.forward(input_matrix(1, 2))


@pytest.mark.spec("S07.fail.duplicate-name", "S07.fail.parameter-alias")
def test_mlp_verify_seal_checks_model_wide_names_then_layers() -> None:
    """A layer renamed to another's name is a duplicate; an alias across layers names both Values."""
    model = ModelPlan.mlp([1, 1, 1]).materialize(lambda *_: 0.5)
    model.layers[1].name = "fc1"
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "w: duplicate parameter name 'mlp.fc1.weight[0,0]' (layer 'fc1'): "
            "every logical name must be unique"
        ),
    ):
        model.verify_seal("w")
    model = ModelPlan.mlp([1, 1, 1]).materialize(lambda *_: 0.5)
    model.layers[1].weight = Matrix.trusted(model.layers[0].weight.rows)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "w: undeclared parameter alias: 'mlp.fc1.weight[0,0]' and 'mlp.fc2.weight[0,0]' are the same "
            "Value object (layer 'fc2'); every position must be a distinct Value"
        ),
    ):
        model.verify_seal("w")


@pytest.mark.spec("S07.fail.duplicate-name", "S07.fail.parameter-alias")
def test_the_same_layer_twice_is_a_duplicate_name_first() -> None:
    """One Linear in two layer slots repeats both its names and its Values: the names are compared first
    (S07.fail.duplicate-name's note), so the refusal is the checkpoint-key collision, not the alias."""
    model = ModelPlan.mlp([3, 3, 3]).materialize()
    model.layers = (model.layers[0], model.layers[0])
    with pytest.raises(ParameterIdentityError) as refused:
        model.forward(input_matrix(1, 3))
    assert (
        "MLP.forward: duplicate parameter name 'mlp.fc1.weight[0,0]' (layer 'fc1'): "
        "every logical name must be unique"
    ) == str(refused.value)


# ---------------------------------------------------------------- seal


def ref(name: str, value: Value, owner: str = "fc1") -> ParameterRef:
    return ParameterRef(name, value, owner)


@pytest.mark.spec("S07.fail.storage-replaced", "S07.fail.parameter-renamed")
def test_seal_verify_messages() -> None:
    """A missing, extra or replaced Value and a renamed one are refused with both sides shown."""
    a, b = Value(1.0), Value(2.0)
    seal = ParameterSeal([ref("a", a), ref("b", b)], "w")
    assert (2, (a, b), ("a", "b")) == (len(seal), seal.values(), seal.names())
    seal.verify([ref("a", a), ref("b", b)], "w")
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            f"v: layer 'fc1' parameter storage identity changed: sealed 'b' (Value id {id(b):#x}), "
            "current nothing (storage must be the sealed Values)"
        ),
    ):
        seal.verify([ref("a", a)], "v")
    c = Value(3.0)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            f"v: layer 'fc2' parameter storage identity changed: sealed nothing, current 'c' (Value id "
            f"{id(c):#x}) (storage must be the sealed Values)"
        ),
    ):
        seal.verify([ref("a", a), ref("b", b), ref("c", c, "fc2")], "v")
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "v: layer 'fc1' parameter name or order changed: sealed 'b', current 'z' for the same Value"
        ),
    ):
        seal.verify([ref("a", a), ref("z", b, "fc9")], "v")


@pytest.mark.spec("S07.fail.parameter-non-finite")
def test_check_finite() -> None:
    """Finite floats pass; an int and an np.float64 pass the loop; a nan, a str or an np.float32 is
    refused by name, the first of two offenders in seal order."""
    check_finite([ref("a", Value(1.0)), ref("b", Value(2.0))], "w")
    odd = Value(1.0)
    odd.data = cast(Any, 3)
    check_finite([ref("a", odd)], "w")
    bad = Value(1.0)
    bad.data = math.inf
    with pytest.raises(ValueError, match=exactly("w: parameter 'b' must be finite, got inf")):
        check_finite([ref("a", Value(1.0)), ref("b", bad)], "w")
    worse = Value(1.0)  # two offenders: the first in seal order is named
    worse.data = math.nan
    with pytest.raises(ValueError, match=exactly("w: parameter 'b' must be finite, got inf")):
        check_finite([ref("a", Value(1.0)), ref("b", bad), ref("c", worse)], "w")
    bad.data = cast(Any, "1")
    wanted = (
        "a Python float or int (bool rejected; a numpy scalar other than float64 computes in its own dtype)"
    )
    with pytest.raises(TypeError, match=exactly(f"w: parameter 'b' must be {wanted}, got '1' (str)")):
        check_finite([ref("a", Value(1.0)), ref("b", bad)], "w")
    bad.data = cast(Any, np.float32(1.5))  # a real, but one that computes in float32
    with pytest.raises(
        TypeError, match=exactly(f"w: parameter 'b' must be {wanted}, got np.float32(1.5) (float32)")
    ):
        check_finite([ref("a", Value(1.0)), ref("b", bad)], "w")
    bad.data = cast(Any, np.float64(1.5))  # a float subclass, computing in float64: accepted
    check_finite([ref("a", Value(1.0)), ref("b", bad)], "w")


@pytest.mark.spec("S07.fail.parameter-state")
def test_parameter_state() -> None:
    """The first changed (data, grad) by index; nan stays unchanged; restore puts both back."""
    values = [Value(1.0), Value(2.0), Value(3.0)]
    values[0].grad = math.nan
    state = ParameterState.of(values)
    assert (tuple(values), (1.0, 2.0, 3.0), None) == (state.values, state.data, state.first_change())
    values[0].grad = float("nan")
    assert state.first_change() is None
    values[2].grad = 5.0
    assert 2 == state.first_change()
    values[1].data = -2.0
    assert 1 == state.first_change()
    state.restore()
    assert ([1.0, 2.0, 3.0], [0.0, 0.0]) == ([v.data for v in values], [v.grad for v in values[1:]])
    assert (True, True, False, False) == (
        same(1.0, 1.0),
        same(math.nan, math.nan),
        same(1.0, 2.0),
        same(math.nan, 1.0),
    )
    assert not same(1.0, math.nan)


@pytest.mark.spec("S07.fail.duplicate-name", "S07.fail.parameter-alias")
def test_check_distinct_messages() -> None:
    """Duplicate names and shared Values are refused naming both refs and the layer."""
    a = Value(1.0)
    check_distinct([ref("a", a), ref("b", Value(1.0))], "w")
    with pytest.raises(
        ParameterIdentityError,
        match=exactly("w: duplicate parameter name 'a' (layer 'fc2'): every logical name must be unique"),
    ):
        check_distinct([ref("a", a), ref("a", Value(1.0), "fc2")], "w")


# ---------------------------------------------------------------- forward


@pytest.mark.spec("S07.fail.input-width", "S07.fail.parameter-state", "S07.fail.output-shape")
def test_forward_messages() -> None:
    """Input width, changed parameter and output shape refusals with every value shown."""
    model = ModelPlan.mlp([3, 4, 2]).materialize(lambda *_: 0.5)
    with pytest.raises(
        ShapeError,
        match=exactly(
            "MLP.forward: input width 2 must equal in_features C_in = 3 of layer 'fc1', "
            "got input shape (5, 2)"
        ),
    ):
        model.forward(input_matrix(5, 2))
    nodes = model.plan_forward(2).total_graph_nodes()
    out = guarded_forward(model, input_matrix(2, 3), nodes, "g")
    assert (Matrix, (2, 2)) == (type(out), out.shape)

    class Faulty(MLP):
        fault = "data"

        def execute(self, rows: Any) -> Any:
            out = super().execute(rows)
            first = self.layers[1].weight.rows[0][1]
            if self.fault == "data":
                first.data += 1.0
                first.grad -= 2.0
                return out
            return out[:1] if self.fault == "shape" else ()

    plan = ModelPlan.mlp([3, 4, 2])
    faulty = Faulty(plan, plan.materialize(lambda *_: 0.5).layers)
    with pytest.raises(
        ParameterIdentityError,
        match=exactly(
            "MLP.forward postcondition: forward changed parameter 'mlp.fc2.weight[0,1]': (data, grad) "
            "(0.5, 0.0) -> (1.5, -2.0); a forward must leave parameter data and grad unchanged"
        ),
    ):
        faulty.forward(input_matrix(2, 3))
    set_fields(faulty, fault="shape")  # a test hook: an MLP is frozen
    with pytest.raises(
        ShapeError,
        match=exactly("MLP.forward postcondition: output shape (1, 2) must equal the planned (2, 2)"),
    ):
        faulty.forward(input_matrix(2, 3))
    set_fields(faulty, fault="empty")  # a test hook: an MLP is frozen
    with pytest.raises(
        ShapeError,
        match=exactly("MLP.forward postcondition: output shape (0, 0) must equal the planned (2, 2)"),
    ):
        faulty.forward(input_matrix(2, 3))


@pytest.mark.spec("S07.fail.parameter-state")
def test_forward_storage_replacement_is_restored() -> None:
    """A forward that replaces a layer's weight and bias is refused and the sealed storage put back."""
    plan = ModelPlan.mlp([1, 2, 1], use_bias=True)

    class Swapping(MLP):
        def execute(self, rows: Any) -> Any:
            out = super().execute(rows)
            layer = self.layers[1]
            assert layer.bias is not None
            layer.bias = Vector.trusted(tuple(Value(v.data) for v in layer.bias.values))
            layer.weight = Matrix(layer.weight.data())
            layer.name = "renamed"
            self.layers = tuple(reversed(self.layers))
            return out

    model = Swapping(plan, plan.materialize(lambda *_: 0.5).layers)
    sealed = [(r.name, r.identity()) for r in model.seal.refs]
    layers = model.layers
    with pytest.raises(
        ParameterIdentityError,
        match=r"^MLP\.forward postcondition: forward replaced parameter storage \(MLP\.forward",
    ):
        model.forward(input_matrix(1, 1))
    assert layers == model.layers
    assert ("fc2", sealed) == (model.layers[1].name, [(r.name, r.identity()) for r in model.current_refs()])
    assert model.verify_seal("w") is model.seal.refs


# ---------------------------------------------------------------- contracts plan


PLAN_TEXT = (
    "model mlp: widths 2 -> 3 -> 1, tokens T = 1, bias on\n"
    "step   kind    input   output  parameters  graph nodes\n"
    "fc1    linear  (1, 2)  (1, 3)           9           12\n"
    "relu1  relu    (1, 3)  (1, 3)           0            3\n"
    "fc2    linear  (1, 3)  (1, 1)           4            6\n"
    "total          (1, 2)  (1, 1)          13           21\n"
)

HELP_TEXT = """\
usage: contracts plan [-h] --widths WIDTHS [--tokens TOKENS] [--bias] [--block {rmsnorm-residual}]
                      [--eps EPS]

Print a model's plan: per-layer parameters, graph nodes and totals.

options:
  -h, --help            show this help message and exit
  --widths WIDTHS       e.g. 3,4,2
  --tokens TOKENS       T, the number of input rows
  --bias                plan every Linear with a bias
  --block {rmsnorm-residual}
                        plan the block x + MLP(RMSNorm(x)) around the MLP over --widths (last
                        width = first)
  --eps EPS             RMSNorm's eps with --block (default 1e-6)
"""


# marker audit: a layout test with a hand-written table; the numbers are proven against the
# spec by tests/golden/test_stage07_golden.py::test_plan_command_prints_the_seed_numbers, so no row marker
def test_plan_command_layout(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's exact layout (bias on, T defaults to 1), the help text and the usage errors."""
    assert 0 == plan_main(["--widths", "2,3,1", "--bias"])
    assert PLAN_TEXT == capsys.readouterr().out == format_plan([2, 3, 1], 1, True)
    monkeypatch.setenv("COLUMNS", "100")
    assert HELP_TEXT == parser().format_help()
    assert (
        "model mlp: widths 3 -> 4 -> 2, tokens T = 2, bias off"
        == format_plan([3, 4, 2], 2, False).split("\n")[0]
    )
    assert [3, 4, 2] == parse_widths("3,4,2")
    with pytest.raises(Exception, match=exactly("widths must be comma-separated ints like 3,4,2, got '3,x'")):
        parse_widths("3,x")
    with pytest.raises(SystemExit):
        plan_main(["--tokens", "2"])
    # The totals are the widest numbers (12 digits here, every step's at most 11): still aligned.
    wide = format_plan([300, 400, 300], 300_000, False).splitlines()
    assert (["143910000000"], 1) == (wide[-1].split()[-1:], len({len(line) for line in wide[1:]}))
    capsys.readouterr()
    assert 2 == plan_main(["--widths", "3,2", "--tokens", "0"])
    assert (
        "contracts plan: error: ModelPlan.plan_forward: tokens T must be >= 1, got 0\n"
        == capsys.readouterr().err
    )

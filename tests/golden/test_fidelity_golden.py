"""Goldens of the rules that hold the seeds' remaining sentences and the decisions beside them: initializer
results, the forward's value bound, the parameter budget's unit, the embedding forward's single check,
Stage 05's exception types and the residual's effect on magnitude; every number from the rows' examples."""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest

import contracts.core.errors
from contracts import CountingValue, EmbeddingPlan, Matrix
from contracts.core.errors import ContractError, FrozenError, ResourceBudgetError
from contracts.core.model import ModelPlan
from contracts.engines import Engine
from contracts.spec_suite.cases.stage07 import ATTEMPTS, forward_input, forward_module
from contracts.spec_suite.probes import CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require, row, rows

from ..properties.test_stage05_rules import counted_checks

pytestmark = reference_only(OWN_TYPES)

RELATIVE = 1e-12


def flat(rows: list[list[float]]) -> list[float]:
    return [value for r in rows for value in r]


def examples(row_id: str) -> list[pytest.ParameterSet]:
    """The row's examples as parameters: the loaded objects themselves, never copies, so a test reads
    an example as the spec holds it now (spec mutation changes the loaded row in place)."""
    return [
        pytest.param(example, id=f"{row_id}[{index}]")
        for index, example in enumerate(row(row_id)["examples"])
    ]


def scripted(where: dict[str, Any]) -> CountingInitializer:
    """The example's result at every call, or its bad value at call bad_at and 0.5 elsewhere."""
    initializer = CountingInitializer()
    if "bad" in where:
        initializer.produce = lambda *_: where["bad"] if initializer.calls - 1 == where["bad_at"] else 0.5
    else:
        initializer.produce = lambda *_: where["result"]
    return initializer


def init_target(where: dict[str, Any], initializer: CountingInitializer) -> Any:
    if where["target"] == "EmbeddingPlan":
        embedding = EmbeddingPlan(where["V"], where["C"], where["D"]).materialize(initializer, CountingValue)
        return [*embedding.token_weight.values(), *embedding.position_weight.values()]
    model = ModelPlan.mlp(where["widths"]).materialize(initializer, CountingValue)
    return [v for layer in model.layers for v in layer.weight.values()]


@pytest.mark.spec("S07.rule.init-results")
@pytest.mark.parametrize("example", examples("S07.rule.init-results"))
def test_init_results_example(engine: Engine, example: dict[str, Any]) -> None:
    """An int result 1 (or -2) becomes 1.0 (-2.0) after 20 (10) calls; a nan at the first (eighth) call is
    refused after all 20 (10) calls, naming its position, with no Value."""
    require(engine, "linear")
    where = example["where"]
    initializer = scripted(where)
    if "bad" not in where:
        values = init_target(where, initializer)
        assert ({float}, {example["value"]}, example["calls"]) == (
            {type(v.data) for v in values},
            {v.data for v in values},
            initializer.calls,
        )
        return
    counter = CountingValue.reset()
    with pytest.raises(ValueError, match=r"must be finite, got nan$") as refused:
        init_target(where, initializer)
    assert (example["calls"], example["values_created"]) == (initializer.calls, counter.values)
    assert str(refused.value).startswith(f"{example['named']} must be finite")


@pytest.mark.spec("S07.rule.forward-bound")
@pytest.mark.parametrize("example", examples("S07.rule.forward-bound"))
def test_forward_bound_example(engine: Engine, example: dict[str, Any]) -> None:
    """Per-step bounds 16 and 96; 32, 2√2, 8√2 and 4 + 8√2 for the block; 4e307 just under half of float64's
    max, and a bound equal to it; RMSNorm's bound set by a² + eps (1.64), by the power's value (1/√0.6, the
    least of two rows' floors) and by its derivative (4): each admitted, computing the example's output."""
    require(engine, "linear")
    case = {"tokens": len(example["x"]), **example}
    module, _ = forward_module(case)
    x = forward_input(case)
    computed = module.value_bounds([max(map(abs, r)) for r in example["x"]])
    assert list(example["bounds"]) == [name for name, _ in computed]
    for (name, expected), (_, got) in zip(example["bounds"].items(), computed, strict=True):
        assert got == pytest.approx(expected, rel=RELATIVE), name
    assert flat(example["value"]) == pytest.approx(flat(module.forward(x).data()), rel=RELATIVE)


@pytest.mark.spec("S07.fail.forward-overflow")
@pytest.mark.parametrize("example", examples("S07.fail.forward-overflow"))
def test_forward_overflow_example(engine: Engine, example: dict[str, Any]) -> None:
    """1e200 inputs through 1e200 weights, 1e308·0.5 summed twice, 1e160 squared, a zero row under eps 1e-300:
    each refused before any node with the example's exact message."""
    require(engine, "linear")
    attempt = ATTEMPTS["S07.fail.forward-overflow"](example)
    assert_refused(row("S07.fail.forward-overflow"), attempt)
    with pytest.raises(OverflowError) as refused:
        attempt.action()
    assert example["message"] == str(refused.value)


@pytest.mark.spec("S05.rule.parameter-budget-unit")
@pytest.mark.parametrize("example", examples("S05.rule.parameter-budget-unit"))
def test_parameter_budget_unit_example(engine: Engine, example: dict[str, Any]) -> None:
    """Budget 1060 admits the 1060 parameters (Values of far more than 1060 bytes) and 1059 is refused
    naming 1060 parameters: each example's budget is at the boundary its verdict says."""
    require(engine, "embedding")
    where = example["where"]

    def plan(budget: int) -> EmbeddingPlan:
        return EmbeddingPlan(where["V"], where["C"], where["D"], budget)

    refused, admitted = (
        (where["budget"], where["budget"] + 1)
        if example["refused"]
        else (where["budget"] - 1, where["budget"])
    )
    with pytest.raises(
        ResourceBudgetError, match=f"needs {example['parameters']} parameters, budget is {refused} "
    ):
        plan(refused)
    counter = CountingValue.reset()
    embedding = plan(admitted).materialize(CountingInitializer(), CountingValue)
    values = [*embedding.token_weight.values(), *embedding.position_weight.values()]
    assert example["parameters"] == counter.values
    assert sum(map(sys.getsizeof, values)) > admitted


@pytest.mark.spec("S05.rule.forward-checks-once")
def test_forward_checks_once_example(engine: Engine) -> None:
    """Tokens (5, 0, 256): one whole-input scan, 3 id checks, one budget check, then 12 additions."""
    require(engine, "embedding")
    (example,) = row("S05.rule.forward-checks-once")["examples"]
    where = example["where"]
    embedding = EmbeddingPlan(where["V"], where["C"], where["D"]).materialize(
        CountingInitializer(), CountingValue
    )
    with counted_checks() as checks:
        counter = CountingValue.reset()
        embedding.forward(where["tokens"], example["additions"])
    expected = {
        "checked_tokens": example["token_checks"],
        "exact_int": example["id_checks"],
        "within_budget": example["budget_checks"],
    }
    assert (expected, {0}, example["additions"]) == (checks.calls, checks.nodes_seen, counter.operations)


@pytest.mark.spec("S05.rule.exception-types")
def test_exception_types_example(engine: Engine) -> None:
    """contracts.core.errors holds the five types, each a ContractError, FrozenError an AttributeError too;
    every Stage 05 failure row names one of the seed's five."""
    require(engine, "shapes")
    (example,) = row("S05.rule.exception-types")["examples"]
    types = {name: getattr(contracts.core.errors, name) for name in example["types"]}
    defined = [
        v
        for v in vars(contracts.core.errors).values()
        if isinstance(v, type) and v.__module__ == "contracts.core.errors"
    ]
    assert (example["types_defined"], example["frozen_is_attribute_error"]) == (
        len(defined),
        issubclass(FrozenError, AttributeError),
    )
    assert all(issubclass(kind, ContractError) for kind in types.values())
    assert sorted(example["frozen_bases"]) == sorted(base.__name__ for base in FrozenError.__bases__)
    assert {r["exception"] for r in rows(stage="05", kind="failure")} <= set(example["stage05"])
    plan = EmbeddingPlan(3, 2, 2)
    with pytest.raises(FrozenError):
        plan.width = 5


@pytest.mark.spec("S08.rule.residual-magnitude")
@pytest.mark.parametrize("example", examples("S08.rule.residual-magnitude"))
def test_residual_magnitude_example(engine: Engine, example: dict[str, Any]) -> None:
    """(3, 4) -> (3.75, 4), the branch 0.75 <= B = 2√6; (300, 400) -> (300.848..., 400), norm still ~500; two
    blocks from (3, 4) reach (4.62..., 4)."""
    require(engine, "linear")
    case = {"via": "block", "tokens": 1, **example}
    block, _ = forward_module(case)
    z = max(abs(g) for g in block.gain.data()) * math.sqrt(example["widths"][0])
    for layer in block.mlp.layers:
        z *= math.hypot(*(w for r in layer.weight.data() for w in r))
    assert example["bound"] == pytest.approx(z, rel=RELATIVE)
    x = Matrix(example["x"])
    if "norm" in example:
        assert flat(example["norm"]) == pytest.approx(
            [v.data for v in block.normalize(x.rows[0])], rel=RELATIVE
        )
        assert flat(example["f"]) == pytest.approx(
            flat(block.mlp.forward(Matrix(example["norm"])).data()), rel=RELATIVE
        )
    for _ in range(example.get("repeats", 1)):
        x = block.forward(x)
    assert flat(example["y"]) == pytest.approx(flat(x.data()), rel=RELATIVE)
    assert example["y_norm"] == pytest.approx(math.hypot(*x.data()[0]), rel=RELATIVE)
    assert (
        abs(example["y_norm"] - math.hypot(*example["x"][0])) <= example.get("repeats", 1) * example["bound"]
    )

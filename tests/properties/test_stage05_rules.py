"""Stage 05 rules beyond the failure table: what a parameter budget counts, the forward's single check of its
input, and the exception types Stage 05's objects raise."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contracts.core.embedding
import contracts.core.errors
from contracts import CountingValue, Embedding, EmbeddingPlan, Matrix, Vector
from contracts.core.errors import ContractError, FrozenError, ResourceBudgetError
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage05 import ATTEMPTS
from contracts.spec_suite.cases.stage07 import spec_value
from contracts.spec_suite.probes import CountingInitializer
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require, row, rows

from .test_stage05_shapes import FAILURE_CASES

pytestmark = reference_only(OWN_TYPES)


def spec_parameters(config: dict[str, int]) -> int:
    return int(spec_value("S05.params.embedding", V=config["V"], C=config["C"], D=config["D"]))


@pytest.mark.spec("S05.rule.parameter-budget-unit")
@given(config=s.embedding_config)
def test_a_parameter_budget_counts_parameters_not_bytes(engine: Engine, config: dict[str, int]) -> None:
    """Budget P admits the plan and materialize makes P Values, though they occupy many more than P bytes;
    budget P - 1 is refused naming P parameters."""
    require(engine, "embedding")
    needed = spec_parameters(config)
    counter = CountingValue.reset()
    embedding = EmbeddingPlan(config["V"], config["C"], config["D"], needed).materialize(
        CountingInitializer(), CountingValue
    )
    values = [*embedding.token_weight.values(), *embedding.position_weight.values()]
    assert (needed, needed) == (counter.values, len({id(v) for v in values}))
    assert sum(map(sys.getsizeof, values)) > needed  # bytes: every Value is far more than one byte
    with pytest.raises(ResourceBudgetError) as refused:
        EmbeddingPlan(config["V"], config["C"], config["D"], needed - 1)
    expected = f"EmbeddingPlan: needs {needed} parameters, budget is {needed - 1} (cost must be <= budget)"
    assert expected == str(refused.value)


class Checks:
    """How often each input check of Embedding.forward ran, and how many nodes existed at each call."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {"checked_tokens": 0, "exact_int": 0, "within_budget": 0}
        self.nodes_seen: set[int] = set()

    def counting(self, name: str, check: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            self.nodes_seen.add(CountingValue.counter.operations)
            return check(*args, **kwargs)

        return counted


@contextmanager
def counted_checks() -> Iterator[Checks]:
    """The forward's checks (the whole-input scan, each id's type, the budget), wrapped to count."""
    checks = Checks()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("exact_int", "within_budget"):
            patch.setattr(
                contracts.core.embedding, name, checks.counting(name, getattr(contracts.core.embedding, name))
            )
        patch.setattr(
            Embedding, "checked_tokens", checks.counting("checked_tokens", Embedding.checked_tokens)
        )
        yield checks


@pytest.mark.spec("S05.rule.forward-checks-once")
@given(case=s.sized_op().filter(lambda c: c["op"] == "embedding"), budgeted=st.booleans(), data=st.data())
def test_the_forward_checks_its_input_once_before_the_loop(
    engine: Engine, case: dict[str, Any], budgeted: bool, data: st.DataObject
) -> None:
    """One forward runs the whole-input scan once (T id checks in it) and the budget check once, all
    before the first addition; the loop then makes exactly T·D additions and runs none of them again."""
    require(engine, "embedding")
    embedding = EmbeddingPlan(case["V"], case["C"], case["D"]).materialize(
        CountingInitializer(), CountingValue
    )
    tokens = case["tokens"]
    additions = int(
        spec_value("S05.cost.embedding-forward", V=case["V"], C=case["C"], D=case["D"], T=len(tokens))
    )
    budget = data.draw(st.integers(additions, 10 * additions)) if budgeted else None
    with counted_checks() as checks:
        counter = CountingValue.reset()
        embedding.forward(tokens, budget)
    assert ({"checked_tokens": 1, "exact_int": len(tokens), "within_budget": 1}, {0}, additions) == (
        checks.calls,
        checks.nodes_seen,
        counter.operations,
    )


FROZEN_OBJECTS: dict[str, Callable[[], object]] = {
    "Vector": lambda: Vector([1.0, 2.0]),
    "Matrix": lambda: Matrix([[1.0], [2.0]]),
    "EmbeddingPlan": lambda: EmbeddingPlan(3, 2, 2),
    "Embedding": lambda: EmbeddingPlan(3, 2, 2).materialize(lambda *_: 0.5),
}
ATTRIBUTES = st.sampled_from(["values", "rows", "vocab_size", "token_weight", "plan", "width", "anything"])


@pytest.mark.spec("S05.rule.exception-types")
@given(data=st.data())
def test_stage05_raises_the_seed_types_and_frozen_error_for_an_assignment(
    engine: Engine, data: st.DataObject
) -> None:
    """A drawn Stage 05 failure raises one of the seed's five types; an assignment or deletion on a Stage 05
    object raises FrozenError, which is an AttributeError and a ContractError."""
    require(engine, "shapes")
    (example,) = row("S05.rule.exception-types")["examples"]
    failure = data.draw(st.sampled_from(rows(stage="05", kind="failure")))
    with pytest.raises(Exception) as raised:  # noqa: PT011 (the type is the assertion)
        ATTEMPTS[failure.id](data.draw(FAILURE_CASES[failure.id])).action()
    assert type(raised.value).__name__ in example["stage05"]
    target = FROZEN_OBJECTS[data.draw(st.sampled_from(sorted(FROZEN_OBJECTS)))]()
    name = data.draw(ATTRIBUTES)
    with pytest.raises(AttributeError) as assigned:
        setattr(target, name, data.draw(st.none() | st.integers()))
    with pytest.raises(AttributeError) as deleted:
        delattr(target, name)
    for refusal in (assigned.value, deleted.value):
        assert (FrozenError, True) == (type(refusal), isinstance(refusal, ContractError))
    defined = sorted(
        name
        for name, value in vars(contracts.core.errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == "contracts.core.errors"
    )
    assert sorted(example["types"]) == defined

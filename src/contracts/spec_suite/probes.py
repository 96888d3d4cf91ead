"""Side-effect probes for failure rows: after the raise, every listed probe must read zero."""

from __future__ import annotations

import builtins
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import contracts.core.errors
from contracts.core.value import CountingValue, Value
from contracts.spec import SpecRow
from contracts.tensor import reset_node_counter
from contracts.verify.clauses import clause, names


class CountingInitializer:
    """Wraps an initializer and counts its calls."""

    def __init__(self, produce: Callable[..., float] = lambda *_: 0.5) -> None:
        self.produce = produce
        self.calls = 0

    def __call__(self, *args: object) -> float:
        self.calls += 1
        return self.produce(*args)


NOT_GIVEN = object()


@dataclass
class Attempt:
    """A call that must be refused, and what it could have touched."""

    action: Callable[[], object]
    initializer: CountingInitializer | None = None
    parameters: Sequence[Value] = ()
    identity: Callable[[], object] | None = field(default=None)
    # The offending value the message must name (repr, and its type for a TypeError).
    offending: object = field(default=NOT_GIVEN)
    # Tensors or Values whose .grad a refused backward must leave exactly as it was.
    gradients: Sequence[Any] = ()


def grad_state(item: Any) -> object:
    """item.grad now: None, a float, or an array's identity and values (an in-place write moves them)."""
    grad = item.grad
    if grad is None or isinstance(grad, float):
        return grad
    return (id(grad), np.array(grad, copy=True).tolist())


def exception_type(name: str) -> type[BaseException]:
    """The spec's exception name: one of ours, else a builtin."""
    found = getattr(contracts.core.errors, name, None) or getattr(builtins, name)
    assert isinstance(found, type)
    assert issubclass(found, BaseException)
    return found


def messages_row(row_id: str) -> str:
    """The stage's `<stage>.rule.messages` row: S05.fail.x -> S05.rule.messages."""
    return f"{row_id.partition('.')[0]}.rule.messages"


def assert_refused(row: SpecRow, attempt: Attempt) -> None:
    """The action raises the row's exception with its message and leaves every probe at zero."""
    parameter_state = [(p.data, p.grad) for p in attempt.parameters]
    identity_before = attempt.identity() if attempt.identity else None
    calls_before = attempt.initializer.calls if attempt.initializer else 0
    gradient_state = [grad_state(item) for item in attempt.gradients]
    counter = CountingValue.reset()
    tensor_counter = reset_node_counter()
    expected = exception_type(row["exception"])
    with clause(row.id, "refusal"):
        try:
            result = attempt.action()
        except Exception as error:
            raised: Exception = error
        else:
            raise AssertionError(f"accepted and returned {result!r:.200}; spec says {expected.__name__}")
        assert expected is type(raised), (
            f"raised {type(raised).__name__}({raised}); spec says {expected.__name__}"
        )
    # The exact words are the stage's messages row (level contract) in a test that names it; in any
    # other test they stay part of the failure row's refusal.
    messages = messages_row(row.id)
    with clause(messages if names(messages) else row.id, "refusal"):
        message = str(raised)
        assert re.search(row["message"], message), f"message {message!r} does not match {row['message']!r}"
        if attempt.offending is not NOT_GIVEN:
            assert repr(attempt.offending) in message, f"message does not name {attempt.offending!r}"
            if expected is TypeError:
                assert f"({type(attempt.offending).__name__})" in message, "message lacks the type"
    readings = {
        "operations": counter.operations,
        # a graph node is a scalar operation node or a Tensor op result, whichever engine the row is about
        "graph_nodes": counter.operations + tensor_counter.nodes,
        "values_created": counter.values,
        "initializer_calls": (attempt.initializer.calls if attempt.initializer else 0) - calls_before,
        "parameter_changes": sum(
            before != (p.data, p.grad) for before, p in zip(parameter_state, attempt.parameters, strict=True)
        ),
        "parameter_identity": int(attempt.identity is not None and attempt.identity() != identity_before),
        "gradients_written": sum(
            before != grad_state(item) for before, item in zip(gradient_state, attempt.gradients, strict=True)
        ),
    }
    with clause(row.id, "side-effects"):
        for probe in row["probes"]:
            assert readings[probe] == 0, f"probe {probe} read {readings[probe]} after the raise"

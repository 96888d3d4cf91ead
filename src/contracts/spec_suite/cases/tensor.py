"""Stage T cases: the tensor oracles (spec expressions + an explicit broadcast sum, and the scalar Value
engine elementwise), and the failure attempts. Nothing here calls the tensor implementation's reducer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pytest
from numpy.typing import NDArray

from contracts.core.value import Value
from contracts.engines import Engine
from contracts.engines.base import Program
from contracts.spec import SpecRow, evaluate
from contracts.spec.functions import array_functions
from contracts.spec_suite.probes import Attempt, assert_refused, exception_type
from contracts.spec_suite.spec_rows import OWN_TYPES, assert_engine_gives, require, rows, tolerance
from contracts.tensor import Tensor, add, matmul, maximum, multiply

Array = NDArray[np.float64]
Case = dict[str, Any]
NUMPY_FUNCTIONS = array_functions(np)
GRADIENT_ROWS = rows(stage="T", kind="gradient")


def gradient_row(op: str) -> SpecRow:
    (found,) = [r for r in GRADIENT_ROWS if r["op"] == op]
    return found


def as_arrays(items: Sequence[Any]) -> list[Array]:
    return [np.asarray(item, dtype=np.float64) for item in items]


def require_reference(engine: Engine, row_id: str) -> None:
    """Rows about the reference Tensor API itself (dtype, namespaces) apply to the reference only."""
    require(engine, "tensor.api", row_id)


# ---------------------------------------------------------------- oracle 1: spec expressions


def sum_to_shape(grad: Array, shape: tuple[int, ...]) -> Array:
    """The explicit broadcast reduction: sum leading axes one by one, then every stretched size-1 axis."""
    grad = np.asarray(grad, dtype=np.float64)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    assert shape == grad.shape
    return grad


def promote(op: str, inputs: Sequence[Array]) -> list[Array]:
    """numpy's matmul promotion of 1-D operands: a as a (1, n) row, b as an (n, 1) column."""
    if op != "matmul":
        return list(inputs)
    a, b = inputs
    return [a[np.newaxis, :] if a.ndim == 1 else a, b[:, np.newaxis] if b.ndim == 1 else b]


def spec_forward(spec_row: SpecRow, inputs: Sequence[Array], xp: Any = np) -> Any:
    bindings = dict(zip(spec_row["domain"], inputs, strict=True))
    return evaluate(spec_row["forward"], bindings, array_functions(xp))


def another_upstream(upstream: Array | None) -> Array:
    """2g + 1 (from a seeded call's 1: 3): its VJP, 2·VJP(g) + VJP(1), differs from g's wherever VJP(g)
    does not vanish, even for softmax, whose VJP ignores a constant added to g."""
    return np.asarray(3.0) if upstream is None else 2.0 * np.asarray(upstream, dtype=np.float64) + 1.0


def assert_second_call_gives(
    engine: Engine,
    vjp: Callable[[Array | None], tuple[Any, tuple[Any, ...]]],
    upstream: Array | None,
    expected_grads: Sequence[Array],
) -> None:
    """vjp (the engine's, on fixed inputs) called with another upstream first, then with `upstream`: the
    second call's gradients are the expected ones. An engine that keeps state between calls (a cache
    keyed on the inputs alone) answers the second call with the first's gradients."""
    vjp(another_upstream(upstream))
    _, grads = vjp(upstream)
    for index, (expected, actual) in enumerate(zip(expected_grads, grads, strict=True)):
        assert_engine_gives(
            expected, actual, **tolerance(engine, "gradient"), what=f"second call: gradient of input {index}"
        )


def spec_vjp(
    spec_row: SpecRow, inputs: Sequence[Array], upstream: Array | None
) -> tuple[Array, tuple[Array, ...]]:
    """The row's forward and VJPs on the (promoted) inputs, each summed back to its input's shape."""
    value = np.asarray(spec_forward(spec_row, inputs), dtype=np.float64)
    operands = promote(spec_row["op"], inputs)
    bindings = dict(zip(spec_row["domain"], operands, strict=True))
    frame = np.asarray(evaluate(spec_row["forward"], bindings, NUMPY_FUNCTIONS))
    g = np.ones(value.shape) if upstream is None else upstream
    bindings["g"] = np.reshape(g, frame.shape)
    grads = []
    for name, original, operand in zip(spec_row["domain"], inputs, operands, strict=True):
        grad = np.asarray(evaluate(spec_row["grads"][name], bindings, NUMPY_FUNCTIONS), dtype=np.float64)
        grads.append(np.reshape(sum_to_shape(grad, operand.shape), original.shape))
    return value, tuple(grads)


# ---------------------------------------------------------------- oracle 2: the scalar Value engine


def leaf_values(array: Array) -> NDArray[np.object_]:
    leaves = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        leaves[index] = Value(float(array[index]))
    return leaves


def elementwise(function: Callable[..., Value], arity: int) -> Callable[..., Any]:
    ufunc: Callable[..., Any] = np.frompyfunc(function, arity, 1)  # broadcasts, sharing each leaf Value
    return ufunc


VALUE_OPS: dict[str, Callable[..., Any]] = {
    "add": elementwise(lambda a, b: a + b, 2),
    "multiply": elementwise(lambda a, b: a * b, 2),
    "maximum": elementwise(lambda a, b: b + (a - b).relu(), 2),  # away from ties only
    "exp": elementwise(lambda x: x.exp(), 1),
    "log": elementwise(lambda x: x.log(), 1),
    "relu": elementwise(lambda x: x.relu(), 1),
    "matmul": np.matmul,  # object matmul: sums of Value products, numpy's 1-D promotion
}


def value_vjp(op: str, inputs: Sequence[Array], upstream: Array) -> tuple[Array, tuple[Array, ...]]:
    """op computed element by element with Value; loss = sum(upstream * out); one backward."""
    leaves = [leaf_values(x) for x in inputs]
    out = np.asarray(VALUE_OPS[op](*leaves), dtype=object)
    weights = np.broadcast_to(upstream, out.shape)
    loss = Value(0.0)
    for node, weight in zip(out.flat, weights.flat, strict=True):
        loss = loss + node * float(weight)
    loss.backward()
    value = np.array([node.data for node in out.flat], dtype=np.float64).reshape(out.shape)
    grads = tuple(
        np.array([cast(Value, leaf).grad for leaf in tree.flat], dtype=np.float64).reshape(tree.shape)
        for tree in leaves
    )
    return value, grads


# ---------------------------------------------------------------- failure attempts

OPS: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "add": add,
    "multiply": multiply,
    "maximum": maximum,
    "matmul": matmul,
}


def engine_attempt(engine: Engine) -> Callable[[Case], Attempt]:
    def attempt(case: Case) -> Attempt:
        inputs = as_arrays(case["inputs"])
        upstream = case.get("upstream")
        grad = None if upstream is None else np.asarray(upstream, dtype=np.float64)
        return Attempt(lambda: engine.tensor_vjp(case["op"], inputs, grad))

    return attempt


def constructor_attempt(case: Case) -> Attempt:
    return Attempt(lambda: Tensor(case["data"]))


def range_attempt(case: Case) -> Attempt:
    """Tensor(data + [10**power]) for a spec example (TOML has no such int); a draw's data as it is."""
    if "power" not in case:
        return constructor_attempt(case)
    big = 10 ** case["power"]
    return Attempt(lambda: Tensor([*case["data"], big]), offending=big)


def namespace_attempt(case: Case) -> Attempt:
    import array_api_strict

    spaces = {"numpy": np, "array_api_strict": array_api_strict}
    a, b = (
        Tensor(spaces[name].asarray(data), xp=spaces[name])
        for name, data in zip(case["namespaces"], case["inputs"], strict=True)
    )
    return Attempt(lambda: OPS[case["op"]](a, b))


def no_grad_attempt(case: Case) -> Attempt:
    """An op over constants only (no input requires grad), then backward: no tensor's grad may change."""
    inputs = [Tensor(data) for data in case["inputs"]]
    out = OPS[case["op"]](*inputs)
    return Attempt(out.backward, gradients=[out, *inputs])


def backward_attempt(case: Case) -> Attempt:
    """The op over leaves that require grad, one successful backward (so every grad is already set and
    non-zero), then the refused backward (no upstream, or the case's): no leaf's or node's grad may change."""
    leaves = [Tensor(data, requires_grad=True) for data in case["inputs"]]
    out = OPS[case["op"]](*leaves)
    out.backward(np.ones(out.shape))
    upstream = case.get("upstream")
    grad = None if upstream is None else np.asarray(upstream, dtype=np.float64)
    return Attempt(lambda: out.backward(grad), gradients=[*leaves, out])


# row id -> (capability or None for the reference Tensor API, attempt builder given the engine)
FAILURES: dict[str, tuple[str | None, Callable[[Engine], Callable[[Case], Attempt]]]] = {
    "T.fail.broadcast": ("tensor.shape-errors", engine_attempt),
    "T.fail.matmul-inner": ("tensor.shape-errors", engine_attempt),
    "T.fail.matmul-batch": ("tensor.shape-errors", engine_attempt),
    "T.fail.matmul-scalar": ("tensor.shape-errors", engine_attempt),
    "T.fail.backward-nonscalar": (None, lambda _engine: backward_attempt),
    "T.fail.upstream-shape": (None, lambda _engine: backward_attempt),
    "T.fail.upstream-non-finite": (None, lambda _engine: backward_attempt),
    # the spec's exact domain messages and its node counter are the reference's own: an engine with
    # tensor.domain is judged by family (tests/properties/test_tensor_refusals.py)
    "T.fail.log-domain": (None, engine_attempt),
    "T.fail.exp-overflow": (None, engine_attempt),
    "T.fail.dtype": (None, lambda _engine: constructor_attempt),
    "T.fail.non-finite": (None, lambda _engine: constructor_attempt),
    "T.fail.namespace-mix": (None, lambda _engine: namespace_attempt),
    "T.fail.no-grad": (None, lambda _engine: no_grad_attempt),
    "T.fail.result-overflow": (None, engine_attempt),
    "T.fail.bool-element": (None, lambda _engine: constructor_attempt),
    "T.fail.element-range": (None, lambda _engine: range_attempt),
    "T.fail.gradient-overflow": (None, engine_attempt),
}


def refused_by_reference_only(spec_row: SpecRow) -> str | None:
    """Failure rows observed through the reference Tensor API (no engine capability) are reference-only."""
    return OWN_TYPES if FAILURES[spec_row.id][0] is None else None


def assert_tensor_refused(engine: Engine, spec_row: SpecRow, case: Case) -> None:
    """The row's exception and message (the case's exact message when it gives one), and every probe of the
    row at zero (graph_nodes counts Tensor nodes, gradients_written every watched .grad)."""
    capability, builder = FAILURES[spec_row.id]
    if capability is None:
        require_reference(engine, spec_row.id)
    else:
        require(engine, capability, spec_row.id)
    attempt = builder(engine)(case)
    assert_refused(spec_row, attempt)  # graph_nodes reads the Tensor node counter too
    if "message" in case:
        with pytest.raises(exception_type(spec_row["exception"])) as raised:
            attempt.action()
        assert case["message"] == str(raised.value)


class RecordingNamespace:
    """An array namespace that delegates to another and records the names it was asked for: a test
    "over array_api_strict" proves the work ran there (numpy would give the same numbers)."""

    def __init__(self, space: Any) -> None:
        self.space = space
        self.asked: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        self.asked.add(name)
        return getattr(self.space, name)

    def operations(self) -> set[str]:
        """The names asked for beyond converting data (asarray) and naming the namespace."""
        return self.asked - {"asarray", "__name__"}


def chain(depth: int) -> Program:
    """x + 1 + 1 + ... (depth adds), as a program over one leaf."""
    return [("add", (index,), (1.0,)) for index in range(depth)]

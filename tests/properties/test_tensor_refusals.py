"""Stage T, 06 and 08 refusals on the engine under test.

Every other engine raises its own exception types with its own messages. The adapter declares how
they map onto the spec's families (`error_families`, and `error_patterns` for one generic type told
apart by its message, never a catch-all); these tests check the family through that mapping and the
"no partial work" an engine lets us observe: a refused backward leaves every leaf's .grad as it was.
The spec's exact messages and the node counter are the reference's own (tests/properties/
test_tensor_contracts.py, test_stage06_softmax.py, test_stage08_norm.py check them there).

Domain rows (log of x <= 0, exp overflow, overflowing results and gradients, nan/inf data and
upstreams) need `tensor.domain`: an IEEE engine computes inf/nan there, so it lacks the capability,
and still runs the boundary tests of those rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.precedence import ENTRIES, pairs
from contracts.spec_suite.cases.tensor import chain
from contracts.spec_suite.spec_rows import assert_engine_gives, assert_refused_as, params, require, row

from .test_stage06_softmax import FAILURE_CASES as STAGE06_CASES
from .test_stage08_norm import FAILURE_CASES as STAGE08_CASES
from .test_tensor_contracts import FAILURE_CASES as TENSOR_CASES

Case = dict[str, Any]
Action = Callable[[], object]
# numpy's forms of the ops whose output shape a successful first backward needs
NUMPY_OPS: dict[str, Callable[..., Any]] = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "matmul": np.matmul,
}


def arrays(items: Any) -> list[np.ndarray]:
    return [np.asarray(item, dtype=np.float64) for item in items]


def forward(engine: Engine, case: Case) -> Action:
    """The op over fresh leaves, backward with the case's upstream (the engine's graph is not observed)."""
    upstream = case.get("upstream")
    grad = None if upstream is None else np.asarray(upstream, dtype=np.float64)
    return lambda: engine.tensor_vjp(case["op"], arrays(case["inputs"]), grad)


def with_params(engine: Engine, case: Case) -> Action:
    """A Stage 06/08 op's forward with its (bad) axis, targets, eps or gain."""
    parameters = dict(case["params"])
    if "targets" in parameters:
        parameters["targets"] = np.asarray(parameters["targets"])
    return lambda: engine.tensor_forward_with(case["op"], arrays(case["inputs"]), parameters)


def from_data(engine: Engine, case: Case) -> Action:
    return lambda: engine.tensor_from_data(case["data"])


# row id -> (capabilities, bad-input strategy, the refused call); backward rows are separate below
FORWARD_REFUSALS: dict[
    str, tuple[tuple[str, ...], st.SearchStrategy[Case], Callable[[Engine, Case], Action]]
] = {
    **{
        row_id: (("tensor.refusals",), TENSOR_CASES[row_id], forward)
        for row_id in (
            "T.fail.broadcast",
            "T.fail.matmul-inner",
            "T.fail.matmul-batch",
            "T.fail.matmul-scalar",
        )
    },
    "T.fail.log-domain": (("tensor.log", "tensor.domain"), TENSOR_CASES["T.fail.log-domain"], forward),
    "T.fail.exp-overflow": (("tensor.exp", "tensor.domain"), TENSOR_CASES["T.fail.exp-overflow"], forward),
    "T.fail.result-overflow": (("tensor.domain",), TENSOR_CASES["T.fail.result-overflow"], forward),
    "T.fail.gradient-overflow": (("tensor.domain",), TENSOR_CASES["T.fail.gradient-overflow"], forward),
    "T.fail.dtype": (("tensor.data",), TENSOR_CASES["T.fail.dtype"], from_data),
    "T.fail.bool-element": (("tensor.data",), TENSOR_CASES["T.fail.bool-element"], from_data),
    "T.fail.element-range": (("tensor.data",), TENSOR_CASES["T.fail.element-range"], from_data),
    "T.fail.non-finite": (("tensor.data", "tensor.domain"), TENSOR_CASES["T.fail.non-finite"], from_data),
    **{
        row_id: (("tensor.refusals",), strategy, with_params)
        for row_id, strategy in {**STAGE06_CASES, **STAGE08_CASES}.items()
    },
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in FORWARD_REFUSALS))
@given(data=st.data())
def test_engine_refuses_with_the_spec_family(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad shape, parameter or data is refused by the engine with an exception its
    adapter maps onto the row's family."""
    capabilities, strategy, attempt = FORWARD_REFUSALS[spec_row.id]
    for capability in capabilities:
        require(engine, capability, spec_row.id)
    assert_refused_as(engine, spec_row, attempt(engine, data.draw(strategy)))


def grads_now(engine: Engine, graph: Any) -> tuple[np.ndarray | None, ...]:
    """Copies of every leaf's grad now (an adapter may hand out the engine's own arrays)."""
    return tuple(None if grad is None else np.array(grad, copy=True) for grad in engine.tensor_grads(graph))


def same_grads(before: tuple[np.ndarray | None, ...], after: tuple[np.ndarray | None, ...]) -> bool:
    return len(before) == len(after) and all(
        (a is None and b is None) or (a is not None and b is not None and np.array_equal(a, b))
        for a, b in zip(before, after, strict=True)
    )


BACKWARD_REFUSALS: dict[str, tuple[tuple[str, ...], bool]] = {
    # row id -> (capabilities, whether the leaves require grad)
    "T.fail.backward-nonscalar": (("tensor.refusals",), True),
    "T.fail.upstream-shape": (("tensor.refusals",), True),
    "T.fail.upstream-non-finite": (("tensor.refusals", "tensor.domain"), True),
    "T.fail.no-grad": (("tensor.refusals",), False),
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in BACKWARD_REFUSALS))
@given(data=st.data())
def test_engine_refused_backward_writes_no_gradient(
    engine: Engine, spec_row: SpecRow, data: st.DataObject
) -> None:
    """After one good backward (every leaf's grad set), the refused backward raises the row's family and
    leaves every leaf's .grad exactly as it was (no partial work, read through the adapter)."""
    capabilities, requires_grad = BACKWARD_REFUSALS[spec_row.id]
    for capability in capabilities:
        require(engine, capability, spec_row.id)
    case = data.draw(TENSOR_CASES[spec_row.id])
    inputs = arrays(case["inputs"])
    graph = engine.tensor_graph(case["op"], inputs, requires_grad)
    if requires_grad:
        engine.tensor_backward(graph, np.ones(np.shape(NUMPY_OPS[case["op"]](*inputs))))
    before = grads_now(engine, graph)
    assert requires_grad == all(grad is not None for grad in before)
    upstream = case.get("upstream")
    bad = None if upstream is None else np.asarray(upstream, dtype=np.float64)
    assert_refused_as(engine, spec_row, lambda: engine.tensor_backward(graph, bad))
    after = grads_now(engine, graph)
    assert same_grads(before, after), f"{spec_row.id}: grads {before} became {after} after the refusal"


@pytest.mark.spec("T.order.backward")
@given(shape=s.non_scalar_shapes, op=st.sampled_from(s.ELEMENTWISE_BINARY), data=st.data())
def test_engine_backward_check_order(
    engine: Engine, shape: tuple[int, ...], op: str, data: st.DataObject
) -> None:
    """Co-occurring backward faults: no-grad wins over the missing seed of a non-scalar output, and (on
    an engine with tensor.domain) a non-finite upstream wins over its wrong shape; nothing is written."""
    require(engine, "tensor.refusals", "T.order.backward")
    inputs = [np.ones(shape), np.ones(shape)]
    constants = engine.tensor_graph(op, inputs, requires_grad=False)
    assert_refused_as(engine, row("T.fail.no-grad"), lambda: engine.tensor_backward(constants, None))
    if engine.lacks("tensor.domain", "T.order.backward") is not None:
        return
    graph = engine.tensor_graph(op, inputs, requires_grad=True)
    engine.tensor_backward(graph, np.ones(shape))
    before = grads_now(engine, graph)
    bad = np.full(data.draw(st.integers(1, 5).filter(lambda n: (n,) != shape)), np.nan)
    assert_refused_as(engine, row("T.fail.upstream-non-finite"), lambda: engine.tensor_backward(graph, bad))
    assert same_grads(before, grads_now(engine, graph))


# ---------------------------------------------------------------- rules on the engine


@pytest.mark.spec("T.rule.dtype")
@given(data=s.real_tensor_data)
def test_engine_tensor_data_is_float64(engine: Engine, data: Any) -> None:
    """Ints, floats and integer or float arrays become the engine's float64 tensor with the same values."""
    require(engine, "tensor.data", "T.rule.dtype")
    values = engine.tensor_from_data(data)
    assert (np.dtype(np.float64), np.shape(data)) == (values.dtype, values.shape)
    assert np.asarray(data, dtype=np.float64).tolist() == values.tolist()


@pytest.mark.spec("T.rule.deep-graph")
@settings(max_examples=s.examples(5, quick=1))
@given(depth=st.integers(1, 3000), shape=s.non_scalar_shapes)
def test_engine_backward_through_a_deep_chain(engine: Engine, depth: int, shape: tuple[int, ...]) -> None:
    """x + 1 + ... + 1 through the engine's program VJP: value x + depth and gradient 1 everywhere."""
    require(engine, "tensor.program", "T.rule.deep-graph")
    upstream = np.ones(shape)
    value, (grad,) = engine.tensor_program_vjp(chain(depth), [np.zeros(shape)], upstream)
    assert_engine_gives(np.full(shape, float(depth)), value, rel=0, what="x + depth")
    assert_engine_gives(upstream, grad, rel=0, what="d out / d x")


def test_forward_refusals_cover_their_rows() -> None:
    """Every Stage 06/08 failure row is checked on the engine (their cases are the reference tests')."""
    assert set(STAGE06_CASES) | set(STAGE08_CASES) <= set(FORWARD_REFUSALS)


# ---------------------------------------------------------------- check order on the engine

# The faults of the op entries' precedence rows an engine can be handed through tensor_vjp and
# tensor_forward_with (float64 arrays and the op's parameters): a namespace mix and raw data types exist
# only for this project's Tensor. Domain faults need tensor.domain (an IEEE engine computes nan or inf
# there and has no order between them to check).
ENGINE_FAULTS = frozenset(
    {
        "T.fail.broadcast",
        "T.fail.matmul-inner",
        "T.fail.matmul-batch",
        "S06.fail.target-dtype",
        "S06.fail.axis",
        "S06.fail.empty-axis",
        "S06.fail.target-shape",
        "S06.fail.target-range",
        "S08.fail.eps-type",
        "S08.fail.eps",
        "S08.fail.gain-shape",
    }
)
DOMAIN_FAULTS = frozenset({"T.fail.non-finite", "T.fail.log-domain", "T.fail.exp-overflow"})
# Checks of an op's own parameters that the spec orders before the operands' data: through the adapter
# protocol an engine makes its tensors from the arrays before the op sees its parameters (the reference
# adapter too: Tensor(x) refuses a nan first), so that order is the reference entry point's alone.
PARAMETERS_BEFORE_DATA = frozenset({"S06.fail.target-dtype", "S08.fail.eps-type", "S08.fail.eps"})


def cross_entropy_call(engine: Engine, case: Case) -> Action:
    targets = np.asarray(case["targets"])
    return lambda: engine.tensor_forward_with("cross_entropy", arrays(case["inputs"]), {"targets": targets})


def rms_norm_call(engine: Engine, case: Case) -> Action:
    return lambda: engine.tensor_forward_with("rms_norm", arrays(case["inputs"]), {"eps": case["eps"]})


# precedence row -> the engine call of its entry point for a precedence case (cases/precedence.py)
OP_ORDERS: dict[str, Callable[[Engine, Case], Action]] = {
    "T.order.elementwise": forward,
    "T.order.matmul": forward,
    "T.order.unary": forward,
    "S06.order.cross-entropy": cross_entropy_call,
    "S08.order.rms-norm": rms_norm_call,
}


def engine_pairs() -> list[Any]:
    """(row, earlier fault, later fault) for every co-occurring pair of an op entry that the adapter
    protocol can express, one parameter each, marked with the precedence row."""
    return [
        pytest.param(row(row_id), pair, id=f"{row_id}:{pair[0]}<{pair[1]}", marks=pytest.mark.spec(row_id))
        for row_id in OP_ORDERS
        for pair in pairs(row(row_id))
        if set(pair) <= ENGINE_FAULTS | DOMAIN_FAULTS
        and not (pair[0] in PARAMETERS_BEFORE_DATA and pair[1] == "T.fail.non-finite")
    ]


@pytest.mark.parametrize(("spec_row", "pair"), engine_pairs())
@given(data=st.data())
def test_engine_refuses_the_earlier_of_two_faults(
    engine: Engine, spec_row: SpecRow, pair: tuple[str, str], data: st.DataObject
) -> None:
    """Two faults in one call (e.g. nan data and shapes that do not broadcast, or a bad eps and a gain of
    the wrong shape): the engine raises the family of the fault the row orders first. (That each fault
    alone is refused is its own row's test; an engine without the earlier check fails here too, since
    the later fault then wins.)"""
    require(engine, "tensor.refusals", spec_row.id)
    if set(pair) & DOMAIN_FAULTS:
        require(engine, "tensor.domain", spec_row.id)
    first, second = pair
    entry, call = ENTRIES[spec_row.id], OP_ORDERS[spec_row.id]
    both = data.draw(entry.faults[first](data.draw(entry.faults[second](data.draw(entry.base)))))
    assert_refused_as(engine, row(first), call(engine, both))

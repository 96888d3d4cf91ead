"""Stage T properties: refusals before any node, the dtype policy, backward's seed, accumulation, depth."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.core.errors import ShapeError
from contracts.engines import Engine
from contracts.spec import SpecRow
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.tensor import (
    FAILURES,
    OPS,
    assert_tensor_refused,
    gradient_row,
    refused_by_reference_only,
    require_reference,
)
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    assert_engine_gives,
    params,
    reference_only,
    require,
    require_float64,
    rows,
)
from contracts.tensor import OPS as OPS_TABLE
from contracts.tensor import (
    Op,
    Tensor,
    add,
    apply,
    broadcast_shape,
    exp,
    log,
    matmul_shape,
    maximum,
    multiply,
    reset_node_counter,
)
from contracts.tensor.engine_ops import reference_tensor_vjp

FOUR = {"min": -4, "max": 4, "type": "float"}


def op_case(op: str) -> Any:
    return lambda x: {"op": op, "inputs": [x]}


FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "T.fail.broadcast": s.non_broadcastable(),
    "T.fail.matmul-inner": s.matmul_inner_mismatch(),
    "T.fail.matmul-batch": s.matmul_batch_mismatch(),
    "T.fail.matmul-scalar": s.matmul_scalar_operand(),
    "T.fail.log-domain": s.log_domain_violation.map(op_case("log")),
    "T.fail.exp-overflow": s.exp_overflow.map(op_case("exp")),
    "T.fail.result-overflow": s.tensor_result_overflow(),
    "T.fail.bool-element": s.bool_among_numbers(),
    "T.fail.element-range": s.int_beyond_range_in_data(),
    "T.fail.gradient-overflow": s.tensor_gradient_overflow,
    "T.fail.backward-nonscalar": st.builds(
        lambda op, shape: {"op": op, "inputs": [np.ones(shape), np.ones(shape)]},
        st.sampled_from(s.ELEMENTWISE_BINARY),
        s.non_scalar_shapes,
    ),
    "T.fail.upstream-shape": s.wrong_upstream(),
    "T.fail.upstream-non-finite": st.builds(
        lambda op, g: {"op": op, "inputs": [np.ones(g.shape), np.ones(g.shape)], "upstream": g},
        st.sampled_from(s.ELEMENTWISE_BINARY),
        s.non_finite_tensor_data,
    ),
    "T.fail.dtype": s.bad_dtype_data.map(lambda data: {"data": data}),
    "T.fail.non-finite": s.non_finite_tensor_data.map(lambda data: {"data": data}),
    "T.fail.namespace-mix": st.builds(
        lambda op, namespaces: {"op": op, "inputs": [[1.0, 2.0], [3.0, 4.0]], "namespaces": namespaces},
        st.sampled_from(["add", "multiply", "maximum"]),
        st.permutations(["numpy", "array_api_strict"]),
    ),
    "T.fail.no-grad": st.builds(
        lambda op, shape: {"op": op, "inputs": [np.ones(shape), np.ones(shape)]},
        st.sampled_from(["add", "multiply", "maximum"]),
        s.non_scalar_shapes,
    ),
}


@pytest.mark.spec("T.rule.messages")
@pytest.mark.parametrize("spec_row", params(rows(stage="T", kind="failure"), refused_by_reference_only))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad input raises the row's exception and message, with no graph node created."""
    assert_tensor_refused(engine, spec_row, data.draw(FAILURE_CASES[spec_row.id]))


def test_failure_rows_all_have_generators_and_attempts() -> None:
    """No Stage T failure row is left without a generator of its bad input and an attempt."""
    ids = {r.id for r in rows(stage="T", kind="failure")}
    assert (ids, ids) == (set(FAILURE_CASES), set(FAILURES))


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.log-domain")
@given(x=s.log_domain_violation)
def test_log_message_counts_the_bad_elements(engine: Engine, x: np.ndarray) -> None:
    """log's refusal names how many elements are <= 0 and the smallest one."""
    require_reference(engine, "T.fail.log-domain")
    message = f"got {int(np.sum(x <= 0))} element(s) <= 0, the smallest {float(np.min(x))!r}"
    with pytest.raises(ValueError, match=re.escape(message) + "$"):
        log(Tensor(x, requires_grad=True))


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.exp-overflow")
@given(x=s.exp_overflow)
def test_exp_message_counts_the_bad_elements(engine: Engine, x: np.ndarray) -> None:
    """exp's refusal names how many elements overflow and the largest one."""
    require_reference(engine, "T.fail.exp-overflow")
    message = f"got {int(np.sum(x > 709.782712893384))} element(s) above it, the largest {float(np.max(x))!r}"
    with pytest.raises(OverflowError, match=re.escape(message) + "$"):
        exp(Tensor(x, requires_grad=True))


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.backward-nonscalar", "T.fail.upstream-shape")
@given(case=s.wrong_upstream())
def test_refused_backward_writes_no_gradient(engine: Engine, case: dict[str, Any]) -> None:
    """A refused backward (missing or misshapen upstream) leaves every leaf gradient unset."""
    require_reference(engine, "T.fail.upstream-shape")
    leaves = [Tensor(x, requires_grad=True) for x in case["inputs"]]
    out = add(*leaves)
    with pytest.raises(ShapeError, match=r"^Tensor\.backward: upstream gradient has shape"):
        out.backward(case["upstream"])
    if out.shape != ():
        with pytest.raises(ShapeError, match=r"^Tensor\.backward: output has shape"):
            out.backward()
    assert [None, None] == [leaf.grad for leaf in leaves]


@reference_only(OWN_TYPES)
@given(case=s.tensor_case("add", {"a": FOUR, "b": FOUR}))
def test_each_op_call_creates_exactly_one_node(engine: Engine, case: dict[str, Any]) -> None:
    """The node probe can read non-zero: every accepted op call creates exactly one node, also one whose
    inputs need no gradient (a refusal after it would be partial work the probe must see)."""
    require_reference(engine, "T.fail.broadcast")
    a, b = (Tensor(x, requires_grad=True) for x in case["inputs"])
    counter = reset_node_counter()
    results = [OPS[name](a, b) for name in ("add", "multiply", "maximum")]
    assert (3, [(a, b)] * 3) == (counter.nodes, [r.parents for r in results])
    constant = add(*(Tensor(x) for x in case["inputs"]))  # no input needs a gradient: no graph is kept
    assert ([None] * 4, (), False, 4) == (
        [r.grad for r in [*results, constant]],
        constant.parents,
        constant.requires_grad,
        counter.nodes,
    )


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.dtype")
@given(data=s.real_tensor_data)
def test_tensor_data_is_float64(engine: Engine, data: Any) -> None:
    """Ints, floats, lists and integer or float arrays all become float64 with the same values."""
    require_reference(engine, "T.rule.dtype")
    tensor = Tensor(data, requires_grad=True)
    expected = np.asarray(data).astype(np.float64)
    assert (np.float64, expected.tolist()) == (tensor.data.dtype.type, tensor.data.tolist())
    out = multiply(tensor, tensor)
    out.backward(np.ones(out.shape, dtype=np.int64))
    assert [np.float64, np.float64] == [out.data.dtype.type, tensor.grad.dtype.type]


@pytest.mark.spec("T.rule.backward-seed")
@pytest.mark.parametrize("op", ["add", "multiply", "maximum", "exp", "log", "matmul", "relu"])
@given(data=st.data())
def test_scalar_output_seeds_one(engine: Engine, op: str, data: st.DataObject) -> None:
    """For a shape-() output, backward without an upstream equals backward with upstream 1.0."""
    require(engine, f"tensor.{op}", "T.rule.backward-seed")
    n = data.draw(st.integers(1, s.TENSOR_SIDE))
    arity = {"exp": 1, "log": 1, "relu": 1}.get(op, 2)
    shape = (n,) if op == "matmul" else ()
    inputs = [data.draw(s.float_arrays(shape, st.floats(0.5, 4))) for _ in range(arity)]
    seeded = engine.tensor_vjp(op, inputs, None)
    explicit = engine.tensor_vjp(op, inputs, np.asarray(1.0))
    assert (explicit[0].tolist(), [g.tolist() for g in explicit[1]]) == (
        seeded[0].tolist(),
        [g.tolist() for g in seeded[1]],
    )


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.backward-again")
@given(case=s.tensor_case("exp", {"x": FOUR}))
def test_a_second_backward_adds_one_more_copy(engine: Engine, case: dict[str, Any]) -> None:
    """out = x * x + x: a second backward with the same upstream leaves exactly twice the first gradient."""
    require_reference(engine, "T.rule.backward-again")
    x = Tensor(case["inputs"][0], requires_grad=True)
    out = add(multiply(x, x), x)
    out.backward(case["upstream"])
    first = x.grad.copy()
    out.backward(case["upstream"])
    assert (2 * first).tolist() == x.grad.tolist()


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.accumulate")
@given(case=s.tensor_case("exp", {"x": FOUR}))
def test_gradients_accumulate_over_uses(engine: Engine, case: dict[str, Any]) -> None:
    """out = x * x + x receives 2x + 1 times the upstream; x * x alone, 2x (one node reached twice)."""
    require_reference(engine, "T.rule.accumulate")
    x = Tensor(case["inputs"][0], requires_grad=True)
    out = add(multiply(x, x), x)
    upstream = case["upstream"]
    out.backward(upstream)
    assert_engine_gives(upstream * (2 * case["inputs"][0] + 1), x.grad, rel=1e-12, abs=1e-12, what="x.grad")
    y = Tensor(case["inputs"][0], requires_grad=True)
    square = multiply(y, y)  # both operands are one leaf: it is reached twice from the same node
    square.backward(Tensor(upstream))
    assert_engine_gives(upstream * 2 * case["inputs"][0], y.grad, rel=1e-12, abs=1e-12, what="y.grad")


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.deep-graph")
@settings(max_examples=5)
@given(depth=st.integers(1, 3000), shape=s.non_scalar_shapes)
def test_backward_through_a_deep_chain(engine: Engine, depth: int, shape: tuple[int, ...]) -> None:
    """x + 1 + ... + 1 has gradient 1 everywhere, past Python's recursion limit too."""
    require_reference(engine, "T.rule.deep-graph")
    x = Tensor(np.zeros(shape), requires_grad=True)
    out = x
    for _ in range(depth):
        out = add(out, 1.0)
    out.backward(np.ones(shape))
    assert (np.full(shape, float(depth)).tolist(), np.ones(shape).tolist()) == (
        out.data.tolist(),
        x.grad.tolist(),
    )


@reference_only(OWN_TYPES)
@given(case=s.tensor_case("matmul", {"a": FOUR, "b": FOUR}))
def test_operators_are_the_ops(engine: Engine, case: dict[str, Any]) -> None:
    """a + b, a * b, a @ b (and their reflected forms with a constant) are the ops add, multiply, matmul."""
    require_reference(engine, "T.grad.matmul")
    a, b = (Tensor(x) for x in case["inputs"])
    raw_a, raw_b = case["inputs"]
    pairs = [
        (a @ b, raw_a @ raw_b),
        (raw_a @ b, raw_a @ raw_b),
        (a + 2.0, raw_a + 2.0),
        (2.0 + a, raw_a + 2.0),
        (a * 3.0, raw_a * 3.0),
        (3.0 * a, raw_a * 3.0),
    ]
    assert [expected.tolist() for _, expected in pairs] == [t.data.tolist() for t, _ in pairs]
    assert f"Tensor(shape={raw_a.shape}, requires_grad=False)" == repr(a)


def test_unknown_op_is_refused() -> None:
    """reference_tensor_vjp names the ops it knows when asked for another."""
    with pytest.raises(
        ValueError, match=r"^reference_tensor_vjp: op must be one of \['add', .*\], got 'sub'$"
    ):
        reference_tensor_vjp("sub", [np.ones(2), np.ones(2)], None)


def test_op_mechanism_refuses_incomplete_ops_and_wrong_arity() -> None:
    """apply checks the operand count; an Op declaring no forward or vjp says which one is missing."""
    with pytest.raises(TypeError, match=r"^add: takes 2 operand\(s\), got 1$"):
        apply(OPS_TABLE["add"], Tensor(1.0))
    with pytest.raises(NotImplementedError, match=r"^op: forward$"):
        Op().forward(np, np.ones(1))
    with pytest.raises(NotImplementedError, match=r"^op: vjp$"):
        Op().vjp(np, np.ones(1), np.ones(1), np.ones(1))


@pytest.mark.spec("T.fail.exp-overflow", "T.fail.log-domain")
@given(x=st.sampled_from([709.782712893384, 709.0, -745.0]), y=st.sampled_from([1e-300, 1.0]))
def test_domain_boundaries_are_accepted(engine: Engine, x: float, y: float) -> None:
    """exp at exactly log(float64 max) and log of small positive floats (1/y finite) are computed."""
    require(engine, "tensor.exp", "T.fail.exp-overflow")
    require(engine, "tensor.log", "T.fail.log-domain")
    require_float64(engine, "the boundaries are float64's: exp at log(float64 max), log at 1e-300")
    value, (grad,) = engine.tensor_vjp("exp", [np.asarray([x])], np.ones(1))
    assert [True, True] == [bool(np.isfinite(value).all()), bool(np.isfinite(grad).all())]
    value, _ = engine.tensor_vjp("log", [np.asarray([y])], np.ones(1))
    assert_engine_gives(np.log(y), float(value[0]), rel=1e-12, what="log", source="numpy")


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.non-finite", "T.fail.upstream-non-finite")
@given(x=s.non_finite_tensor_data)
def test_non_finite_messages_count_the_bad_elements(engine: Engine, x: np.ndarray) -> None:
    """The constructor's and backward's refusals of nan/inf name exactly how many elements are bad."""
    require_reference(engine, "T.fail.upstream-non-finite")
    message = (
        re.escape(f"data must be finite, got {int(np.sum(~np.isfinite(x)))} nan or inf element(s)") + "$"
    )
    with pytest.raises(ValueError, match="^Tensor: " + message):
        Tensor(x)
    leaf = Tensor(np.ones(x.shape), requires_grad=True)
    out = add(leaf, 1.0)
    with pytest.raises(ValueError, match=r"^Tensor\.backward: " + message):
        out.backward(x)
    assert (None, None) == (leaf.grad, out.grad)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.dtype")
@given(data=s.bad_dtype_data)
def test_dtype_message_names_the_dtype(engine: Engine, data: Any) -> None:
    """bool and complex data are refused with a message naming their exact dtype."""
    require_reference(engine, "T.fail.dtype")
    dtype = np.asarray(data).dtype
    with pytest.raises(TypeError, match=r"\), got dtype " + re.escape(str(dtype)) + "$"):
        Tensor(data)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.fail.broadcast", "T.rule.matmul-promotion")
@pytest.mark.parametrize("op", ["add", "matmul"])
@given(data=st.data())
def test_shape_rules_give_numpys_result_shape(engine: Engine, op: str, data: st.DataObject) -> None:
    """broadcast_shape and matmul_shape (1-D promotion, broadcast batch axes) give numpy's result shape."""
    require_reference(engine, "T.fail.broadcast")
    if op == "matmul":
        input_shapes, result_shape = data.draw(s.tensor_shapes("matmul"))
        assert result_shape == matmul_shape(*input_shapes)
    else:
        count = data.draw(st.integers(1, 3))
        shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=count, max_dims=3, max_side=4))
        assert (shapes.result_shape, ()) == (broadcast_shape(op, *shapes.input_shapes), broadcast_shape(op))


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.grad-ownership", "T.rule.upstream-uncopied")
@pytest.mark.parametrize("op", list(OPS))
@given(data=st.data())
def test_backward_reads_the_upstream_and_leaves_own_their_grads(
    engine: Engine, op: str, data: st.DataObject
) -> None:
    """A finite float64 upstream is used as is (it is the root's .grad) and left unchanged; every leaf's
    grad shares memory with no upstream and no other leaf's grad, also when a leaf is the root."""
    require_reference(engine, "T.rule.grad-ownership")
    case = data.draw(s.tensor_case(op, gradient_row(op)["domain"]))
    upstream = case["upstream"]
    before = upstream.tolist()
    leaves = [Tensor(x, requires_grad=True) for x in case["inputs"]]
    out = OPS[op](*leaves)
    out.backward(upstream)
    grads = [leaf.grad for leaf in leaves]
    assert (True, before) == (out.grad is upstream, upstream.tolist())
    for i, grad in enumerate(grads):
        others = [upstream, *grads[:i], *(leaf.data for leaf in leaves)]
        assert [False] * len(others) == [bool(np.shares_memory(grad, other)) for other in others]
    root = Tensor(case["inputs"][0], requires_grad=True)
    seed = np.ones(root.shape)
    root.backward(seed)
    assert (seed.tolist(), False) == (root.grad.tolist(), bool(np.shares_memory(root.grad, seed)))


def test_namespace_of_constants_and_unnamed_namespaces() -> None:
    """Operands without a Tensor compute in numpy; a namespace without __name__ is named by its repr."""
    assert np is add(1.0, 2.0).xp
    odd = Tensor([1.0, 2.0])
    object.__setattr__(odd, "xp", object())  # a namespace without a __name__ (bypassing the freeze)
    names = sorted(["numpy", repr(odd.xp)])
    with pytest.raises(
        TypeError, match="^" + re.escape(f"add: operands must share one array namespace, got {names}") + "$"
    ):
        add(Tensor([1.0, 2.0]), odd)


@reference_only(OWN_TYPES)
@pytest.mark.spec("T.rule.dtype")
@given(
    op=st.sampled_from(["add", "multiply", "maximum"]),
    shape=st.sampled_from([(), (3,), (2, 3)]),
    dtype=st.sampled_from([np.float32, np.float16]),
)
def test_an_upstream_of_another_floating_dtype_still_gives_float64_gradients(
    engine: Engine, op: str, shape: tuple[int, ...], dtype: type
) -> None:
    """Upstream gradients follow the data policy: a float32 or float16 upstream is converted, so every
    .grad the backward writes (the root's and the leaves') is float64, with the upstream's values."""
    require_reference(engine, "T.rule.dtype")
    a = Tensor(np.full(shape, 2.0), requires_grad=True)
    b = Tensor(np.full(shape, 3.0), requires_grad=True)
    out = {"add": add, "multiply": multiply, "maximum": maximum}[op](a, b)
    upstream: np.ndarray = np.full(shape, 0.5, dtype=dtype)
    out.backward(upstream)
    assert [np.dtype(np.float64)] * 3 == [np.asarray(t.grad).dtype for t in (out, a, b)]
    assert np.array_equal(out.grad, upstream.astype(np.float64))

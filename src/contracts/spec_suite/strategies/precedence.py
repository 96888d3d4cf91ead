"""Check order: a valid call per entry point and one injectable fault per check."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.spec_suite.strategies.block import bad_eps_value, block_eps
from contracts.spec_suite.strategies.common import (
    NAMED,
    finite_floats,
    naming,
    non_finite_float,
    not_an_exact_int,
)
from contracts.spec_suite.strategies.linear import fresh_layer_name, layer_width, not_a_matrix, token_count
from contracts.spec_suite.strategies.numbers import not_a_value_type
from contracts.spec_suite.strategies.shapes import (
    budget_of_wrong_type,
    matrix_rows,
    not_a_sequence,
    small_dim,
)
from contracts.spec_suite.strategies.tensor import ELEMENTWISE_BINARY, float_arrays, non_scalar_shapes

not_a_vector_operand = st.sampled_from([[1.0, 2.0], (1.0,), 1.0, None, "ab"])


not_a_matrix_operand = st.sampled_from([[[1.0]], (1.0,), 1.0, None, "ab"])


over_budget_types = budget_of_wrong_type.filter(lambda b: b is not None)


negative_budget = st.integers(-100, -1)


@st.composite
def precedence_rdiv(draw: st.DrawFn) -> dict[str, Any]:
    """A valid c / Value(y): c and y finite, y away from 0, so the quotient and -c / y² stay finite."""
    magnitude = st.floats(1e-3, 1e3)
    return {"c": draw(st.floats(-1e3, 1e3)), "y": draw(st.one_of(magnitude, magnitude.map(lambda y: -y)))}


@st.composite
def inject_rdiv_constant(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """c is not a finite real: nan, an infinity, or an int beyond float64."""
    c = draw(st.one_of(non_finite_float, st.just(10**400)))
    return naming(case, c=c, **{NAMED: c})


@st.composite
def inject_rdiv_zero(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, y=draw(st.sampled_from([0.0, -0.0])))


@st.composite
def precedence_vector(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(small_dim)
    return {"x": draw(matrix_rows(1, n))[0], "y": draw(matrix_rows(1, n))[0]}


@st.composite
def precedence_matmul(draw: st.DrawFn) -> dict[str, Any]:
    m, k, n = draw(small_dim), draw(small_dim), draw(small_dim)
    return {"a": draw(matrix_rows(m, k)), "b": draw(matrix_rows(k, n))}


@st.composite
def precedence_matrix(draw: st.DrawFn) -> dict[str, Any]:
    """>= 3 rows: row 1 may become ragged, the last row a non-sequence, rows 0-1 hold bad elements."""
    return {"rows": draw(matrix_rows(draw(st.integers(3, 4)), draw(small_dim)))}


@st.composite
def precedence_vector_elements(draw: st.DrawFn) -> dict[str, Any]:
    """1-4 finite elements: room for one bad element anywhere."""
    return {"elements": draw(st.lists(finite_floats, min_size=1, max_size=4))}


@st.composite
def inject_value_type(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """A value_type from S05.fail.value-type's table of non-Value types (by name: cases are plain data)."""
    return naming(case, value_type=draw(not_a_value_type)["value_type"])


@st.composite
def inject_vector_container(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    bad = draw(not_a_sequence)
    return naming(case, elements=bad, named=bad)


@st.composite
def inject_vector_element(
    draw: st.DrawFn, case: dict[str, Any], bad: st.SearchStrategy[Any]
) -> dict[str, Any]:
    elements = list(case["elements"])
    element = draw(bad)
    elements[draw(st.integers(0, len(elements) - 1))] = element
    return naming(case, elements=elements, named=element)


@st.composite
def inject_no_elements(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, elements=draw(st.sampled_from([[], ()])))


@st.composite
def precedence_embedding_forward(draw: st.DrawFn) -> dict[str, Any]:
    """C >= 2 and T >= 2, so two token faults fit at distinct positions."""
    config = {"V": draw(st.integers(1, 12)), "C": draw(st.integers(2, 6)), "D": draw(st.integers(1, 4))}
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=2, max_size=config["C"]))
    return {**config, "tokens": tokens, "hit": []}


@st.composite
def precedence_model_plan(draw: st.DrawFn) -> dict[str, Any]:
    widths = draw(st.lists(layer_width, min_size=3, max_size=4))
    layers = [[a, b] for a, b in itertools.pairwise(widths)]
    return {"layers": layers, "names": [f"fc{i + 1}" for i in range(len(layers))], "bad_init": []}


@st.composite
def precedence_linear(draw: st.DrawFn) -> dict[str, Any]:
    use_bias = draw(st.booleans())
    return {"in": draw(layer_width), "out": draw(layer_width), "use_bias": use_bias, "bad_init": []}


@st.composite
def precedence_forward(draw: st.DrawFn) -> dict[str, Any]:
    """Depth >= 2 and widths >= 2: every layer has >= 4 weights, alias and replacement fit apart."""
    widths = draw(st.lists(st.integers(2, 3), min_size=3, max_size=4))
    return {"widths": widths, "use_bias": draw(st.booleans()), "tokens": draw(token_count)}


@st.composite
def precedence_elementwise(draw: st.DrawFn) -> dict[str, Any]:
    m, n = draw(st.integers(1, 3)), draw(st.integers(2, 4))
    b_shape = draw(st.sampled_from([(n,), (m, n), (1, n)]))
    values = st.floats(-4, 4)
    return {
        "op": draw(st.sampled_from(ELEMENTWISE_BINARY)),
        "inputs": [draw(float_arrays((m, n), values)), draw(float_arrays(b_shape, values))],
        "raw": [False, False],
        "strict": [False, False],
    }


@st.composite
def precedence_tensor_matmul(draw: st.DrawFn) -> dict[str, Any]:
    """a (p, m, k) with p >= 2, b (1 or p, k, n)."""
    p = draw(st.integers(2, 3))
    m, k, n = (draw(st.integers(1, 3)) for _ in range(3))
    q = draw(st.sampled_from([1, p]))
    return {
        "op": "matmul",
        "inputs": [np.ones((p, m, k)), np.full((q, k, n), 0.5)],
        "raw": [False, False],
        "strict": [False, False],
    }


@st.composite
def precedence_unary(draw: st.DrawFn) -> dict[str, Any]:
    shape = draw(st.sampled_from([(2,), (3,), (2, 2), (2, 3)]))
    data = draw(float_arrays(shape, st.floats(0.5, 4)))
    return {"op": draw(st.sampled_from(["exp", "log"])), "inputs": [data], "raw": [False], "hit": []}


@st.composite
def precedence_backward(draw: st.DrawFn) -> dict[str, Any]:
    """add of two scalar leaves that require grad; no upstream (a scalar output seeds 1)."""
    a, b = draw(st.floats(-4, 4)), draw(st.floats(-4, 4))
    return {"inputs": [np.asarray(a), np.asarray(b)], "requires_grad": True}


def fresh_index(draw: st.DrawFn, size: int, taken: list[int]) -> int:
    return draw(st.integers(0, size - 1).filter(lambda i: i not in taken))


@st.composite
def inject_operand_type(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    other = draw(not_a_vector_operand if kind == "vector" else not_a_matrix_operand)
    return naming(case, other=other, named=other)


@st.composite
def inject_vector_length(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    n = draw(small_dim.filter(lambda k: k != len(case["x"])))
    return naming(case, y=draw(matrix_rows(1, n))[0])


@st.composite
def inject_matmul_dim(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """b gets K' != K rows (its column count N, hence the planned cost, is kept)."""
    k = len(case["a"][0])
    rows = draw(st.integers(1, k + 2).filter(lambda r: r != k))
    return naming(case, b=draw(matrix_rows(rows, len(case["b"][0]))))


@st.composite
def inject_budget_type(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    budget = draw(over_budget_types)
    return naming(case, budget=budget, named=budget)


@st.composite
def inject_budget_value(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    budget = draw(negative_budget)
    return naming(case, budget=budget, named=budget)


@st.composite
def inject_over_budget(draw: st.DrawFn, case: dict[str, Any], cost: int) -> dict[str, Any]:
    """budget in [0, cost - 1] (cost >= 1 is the spec's cost of the case as drawn)."""
    return naming(case, budget=draw(st.integers(0, cost - 1)))


@st.composite
def inject_row_container(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    bad = draw(not_a_sequence)
    rows = [*case["rows"][:-1], bad]
    return naming(case, rows=rows, named=bad)


@st.composite
def inject_ragged(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """Row 1 gets extra elements (rows 0 and 1 keep their first K positions for element faults)."""
    rows = [list(r) if isinstance(r, list) else r for r in case["rows"]]
    rows[1] = [*rows[1], *draw(st.lists(finite_floats, min_size=1, max_size=2))]
    return naming(case, rows=rows)


@st.composite
def inject_element(draw: st.DrawFn, case: dict[str, Any], bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    rows = [list(r) if isinstance(r, list) else r for r in case["rows"]]
    width = len(rows[0])
    element = draw(bad)
    rows[draw(st.integers(0, 1))][draw(st.integers(0, width - 1))] = element
    return naming(case, rows=rows, named=element)


@st.composite
def inject_config(draw: st.DrawFn, case: dict[str, Any], bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    field = draw(st.sampled_from(["V", "C", "D"]))
    value = draw(bad)
    return naming(case, **{field: value, NAMED: value})


@st.composite
def inject_token(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    """A bad id (`range`) or a non-int (`type`) at a position no other token fault holds."""
    tokens = list(case["tokens"])
    position = fresh_index(draw, len(tokens), case["hit"])
    vocab = case["V"]
    bad = draw(
        not_an_exact_int
        if kind == "type"
        else st.one_of(st.integers(vocab, vocab + 50), st.integers(-50, -1))
    )
    tokens[position] = bad
    return naming(case, tokens=tokens, hit=[*case["hit"], position], named=bad)


@st.composite
def inject_too_long(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    extra = case["C"] + draw(st.integers(1, 3)) - len(case["tokens"])
    return naming(case, tokens=[*case["tokens"], *([0] * extra)])


def inject_no_tokens(case: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.just(naming(case, tokens=[]))


@st.composite
def inject_layer_feature(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """One layer's in_features made invalid (<= 0): that LinearPlan cannot be built."""
    layers = [list(pair) for pair in case["layers"]]
    bad = draw(st.integers(-5, 0))
    layers[draw(st.integers(0, len(layers) - 1))][0] = bad
    return naming(case, layers=layers, named=bad)


@st.composite
def inject_duplicate_name(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    names = list(case["names"])
    i, j = draw(st.lists(st.integers(0, len(names) - 1), min_size=2, max_size=2, unique=True))
    names[j] = names[i]
    return naming(case, names=names, named=names[i])


@st.composite
def inject_width_mismatch(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """Layer j >= 1 takes more inputs than layer j - 1 gives (the parameter count only grows)."""
    layers = [list(pair) for pair in case["layers"]]
    j = draw(st.integers(1, len(layers) - 1))
    layers[j][0] = max(layers[j][0], layers[j - 1][1]) + draw(st.integers(1, 3))
    return naming(case, layers=layers)


@st.composite
def inject_init_result(
    draw: st.DrawFn, case: dict[str, Any], calls: int, bad: st.SearchStrategy[Any]
) -> dict[str, Any]:
    """The initializer returns `bad` at one call index that no other fault holds."""
    taken = [index for index, _ in case["bad_init"]]
    value = draw(bad)
    index = fresh_index(draw, calls, taken)
    return naming(case, bad_init=[*case["bad_init"], [index, value]], named=value)


@st.composite
def inject_input(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    if kind == "type":
        x = draw(not_a_matrix)
        return naming(case, x=x, named=x)
    return naming(case, x_width=case["widths"][0] + draw(st.integers(1, 3)))


@st.composite
def inject_alias(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """Two weight positions of one layer (not the replaced one) made one Value."""
    widths = case["widths"]
    layer = draw(st.integers(0, len(widths) - 2).filter(lambda k: k != case.get("replace")))
    size = widths[layer] * widths[layer + 1]
    a, b = draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=2, unique=True))
    return naming(case, alias=[layer, a, b])


@st.composite
def inject_replace(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    alias = case.get("alias")
    layer = draw(st.integers(0, len(case["widths"]) - 2).filter(lambda k: alias is None or k != alias[0]))
    return naming(case, replace=layer)


@st.composite
def inject_rename(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """A sealed layer given a fresh name between forwards."""
    layer = draw(st.integers(0, len(case["widths"]) - 2))
    return naming(case, renamed=[layer, draw(fresh_layer_name)])


@st.composite
def inject_duplicate_layer(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """A sealed layer (not the renamed one) given another layer's current name between forwards."""
    renamed = case["renamed"][0] if "renamed" in case else None
    layers = range(len(case["widths"]) - 1)
    source = draw(st.sampled_from([k for k in layers if k != renamed]))
    target = draw(st.sampled_from([k for k in layers if k != source]))
    return naming(case, duplicate=[source, target])


@st.composite
def inject_parameter_data(
    draw: st.DrawFn, case: dict[str, Any], bad: st.SearchStrategy[Any]
) -> dict[str, Any]:
    """One weight's data assigned a bad value (non-finite, or not a real number) between forwards."""
    widths = case["widths"]
    layer = draw(st.integers(0, len(widths) - 2))
    flat = draw(st.integers(0, widths[layer] * widths[layer + 1] - 1))
    return naming(case, nan=[layer, flat, draw(bad)])


def copy_inputs(case: dict[str, Any]) -> list[np.ndarray]:
    return [np.array(item, copy=True) for item in case["inputs"]]


@st.composite
def inject_raw_operand(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    """One operand passed as raw data of its current shape: bool/complex (`dtype`) or with a nan/inf."""
    inputs, raw = copy_inputs(case), list(case["raw"])
    index = draw(st.integers(0, len(inputs) - 1))
    shape = inputs[index].shape
    if kind == "dtype":
        inputs[index] = np.zeros(shape, dtype=draw(st.sampled_from([np.bool_, np.complex128])))
    else:
        taken = case.get("hit", [])
        position = fresh_index(draw, inputs[index].size, taken if index == 0 else [])
        inputs[index].flat[position] = draw(non_finite_float)
    raw[index] = True
    return naming(case, inputs=inputs, raw=raw)


@st.composite
def inject_namespace(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    strict = [False, False]
    strict[draw(st.integers(0, 1))] = True
    return naming(case, strict=strict)


@st.composite
def inject_broadcast(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """b's last axis becomes n + d (>= 3, != n, != 1): a (m, n) with n >= 2 cannot broadcast with it."""
    inputs = copy_inputs(case)
    n = inputs[0].shape[-1]
    shape = (*inputs[1].shape[:-1], n + draw(st.integers(1, 2)))
    inputs[1] = np.full(shape, 0.5)
    return naming(case, inputs=inputs)


@st.composite
def inject_matmul_axis(draw: st.DrawFn, case: dict[str, Any], axis: str) -> dict[str, Any]:
    """b's contracted axis (`inner`) or batch axis (`batch`) no longer matches a's."""
    inputs = copy_inputs(case)
    p, _, k = inputs[0].shape
    q, kb, n = inputs[1].shape
    if axis == "inner":
        kb = k + draw(st.integers(1, 2))
    else:
        q = p + draw(st.integers(1, 2))
    inputs[1] = np.full((q, kb, n), 0.5)
    return naming(case, inputs=inputs)


@st.composite
def inject_domain(draw: st.DrawFn, case: dict[str, Any], op: str) -> dict[str, Any]:
    """log: an element <= 0; exp: an element above log(float64 max)."""
    inputs = copy_inputs(case)
    position = fresh_index(draw, inputs[0].size, case["hit"])
    inputs[0].flat[position] = draw(st.floats(-4, 0) if op == "log" else st.floats(710, 1e4))
    return naming(case, op=op, inputs=inputs, hit=[*case["hit"], position])


@st.composite
def inject_upstream(draw: st.DrawFn, case: dict[str, Any], kind: str) -> dict[str, Any]:
    """An upstream of another shape (`shape`), or a nan/inf in the upstream (`non-finite`)."""
    out_shape = np.broadcast_shapes(*(np.shape(item) for item in case["inputs"]))
    if kind == "shape":
        other = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3).filter(lambda s: s != out_shape))
        return naming(case, upstream=np.ones(other))
    upstream = np.array(np.ones(out_shape) if case.get("upstream") is None else case["upstream"], copy=True)
    upstream.flat[draw(st.integers(0, upstream.size - 1))] = draw(non_finite_float)
    return naming(case, upstream=upstream)


@st.composite
def inject_non_scalar(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    shape = draw(non_scalar_shapes)
    fresh = {key: value for key, value in case.items() if key != "upstream"}
    return naming(fresh, inputs=[np.ones(shape), np.full(shape, 0.5)])


def inject_no_grad(case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, requires_grad=False)


@st.composite
def precedence_cross_entropy(draw: st.DrawFn) -> dict[str, Any]:
    """A valid cross_entropy call: logits (K,) or (B, K) as a leaf, in-range integer targets."""
    classes = draw(st.integers(2, 4))
    batch = draw(st.sampled_from([(), (1,), (2,), (3,)]))
    targets = draw(hnp.arrays(np.int64, batch, elements=st.integers(0, classes - 1)))
    return {
        "inputs": [draw(float_arrays((*batch, classes), st.floats(-4, 4)))],
        "raw": [False],
        "targets": targets,
    }


@st.composite
def inject_target_dtype(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """The targets as floats of the same values (a range or shape fault stays as it was)."""
    return naming(
        case, targets=np.asarray(case["targets"]).astype(draw(st.sampled_from([np.float64, np.float32])))
    )


def kept_element(array: Any) -> np.ndarray:
    """array as 0-d: a non-finite element where it holds one (a data fault stays), else its first."""
    values = np.asarray(array)
    bad = np.flatnonzero(~np.isfinite(values)) if values.dtype.kind == "f" else np.zeros(0, dtype=np.intp)
    return np.asarray(values.flat[bad[0] if bad.size else 0])


def inject_scalar_first(case: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """The first operand 0-d (one of its elements, its dtype kept): no last axis (-1 is out of range)."""
    first, *rest = copy_inputs(case)
    return st.just(naming(case, inputs=[kept_element(first), *rest]))


def inject_empty_last_axis(case: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """The first operand's last axis of size 0 (the others kept): an operand of that axis' shape (rms_norm's
    gain) becomes (0,) to match, one of another shape stays (so a shape fault is still there)."""
    first, *rest = copy_inputs(case)
    emptied = [np.zeros(0, dtype=item.dtype) if item.shape == first.shape[-1:] else item for item in rest]
    return st.just(naming(case, inputs=[np.zeros((*first.shape[:-1], 0), dtype=first.dtype), *emptied]))


@st.composite
def inject_target_shape(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """One more target (its values kept, so a range fault stays): no longer the batch shape."""
    targets = np.asarray(case["targets"])
    return naming(case, targets=np.append(targets, draw(st.integers(0, 1))).astype(targets.dtype))


@st.composite
def inject_target_range(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """One target outside [0, classes): negative, or classes and above."""
    classes = np.shape(case["inputs"][0])[-1]
    targets = np.array(case["targets"], copy=True)
    bad = draw(st.one_of(st.integers(classes, classes + 2), st.integers(-3, -1)))
    targets.flat[draw(st.integers(0, targets.size - 1))] = bad
    return naming(case, targets=targets)


@st.composite
def precedence_rms_norm(draw: st.DrawFn) -> dict[str, Any]:
    """A valid rms_norm call: x (n,) or (m, n) and gain (n,) as leaves, a valid eps."""
    n = draw(st.integers(1, 4))
    x_shape = draw(st.sampled_from([(n,), (1, n), (2, n)]))
    return {
        "inputs": [
            draw(float_arrays(x_shape, st.floats(-4, 4))),
            draw(float_arrays((n,), st.floats(0.5, 2))),
        ],
        "raw": [False, False],
        "eps": draw(block_eps),
    }


@st.composite
def inject_eps_type(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    eps = draw(st.sampled_from([True, False, "1e-6", None, (1e-6,)]))
    return naming(case, eps=eps, named=eps)


@st.composite
def inject_eps_value(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    eps = float(draw(bad_eps_value))
    return naming(case, eps=eps, named=eps)


@st.composite
def inject_gain_shape(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """A gain of another length, or 2-D: not the normalized shape (x.shape[-1],)."""
    x, gain = copy_inputs(case)
    n = x.shape[-1]
    shape = draw(st.sampled_from([(n + 1,), (n + 2,), (1, n)]))
    return naming(case, inputs=[x, np.ones(shape, dtype=gain.dtype)])

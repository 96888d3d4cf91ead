"""Every hypothesis strategy the suite uses, in one place (a section per stage; append only)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.value import Value

# ---------------------------------------------------------------- spec-driven (all stages)


def from_domain(domain: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    """Values inside one spec domain {min, max, type}."""
    if domain.get("type", "int") == "float":
        return st.floats(domain["min"], domain["max"], allow_nan=False, allow_infinity=False)
    return st.integers(int(domain["min"]), int(domain["max"]))


def symbol_values(domains: Mapping[str, Mapping[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """One value per symbol, each inside its spec domain."""
    return st.fixed_dictionaries({name: from_domain(d) for name, d in domains.items()})


finite_floats = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
non_finite_float = st.sampled_from([float("nan"), float("inf"), float("-inf")])
# a Value element is checked too: its data must be finite
non_finite_element = st.one_of(non_finite_float, non_finite_float.map(Value))
not_a_sequence_of_tokens = st.sampled_from([5, 2.0, None, "abc", b"ab", {1, 2}])
not_a_real = st.sampled_from([True, False, "1", None, 1j, [1.0], b"1"])
not_an_exact_int = st.sampled_from([True, False, 1.0, "1", None, 2.5])

# ---------------------------------------------------------------- Stage 05: shapes and embeddings

small_dim = st.integers(1, 5)


def matrix_rows(m: int, k: int) -> st.SearchStrategy[list[list[float]]]:
    return st.lists(st.lists(finite_floats, min_size=k, max_size=k), min_size=m, max_size=m)


@st.composite
def ragged_rows(draw: st.DrawFn) -> list[list[float]]:
    """At least two rows, one of which differs in length from row 0 (all lengths >= 1)."""
    width = draw(small_dim)
    rows = draw(matrix_rows(draw(st.integers(2, 5)), width))
    index = draw(st.integers(1, len(rows) - 1))
    other = draw(small_dim.filter(lambda n: n != width))
    rows[index] = draw(st.lists(finite_floats, min_size=other, max_size=other))
    return rows


@st.composite
def unequal_lengths(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(small_dim)
    m = draw(small_dim.filter(lambda x: x != n))
    op = draw(st.sampled_from(["add", "dot"]))
    x = draw(st.lists(finite_floats, min_size=n, max_size=n))
    y = draw(st.lists(finite_floats, min_size=m, max_size=m))
    return {"op": op, "x": x, "y": y}


@st.composite
def mismatched_matmul(draw: st.DrawFn) -> dict[str, Any]:
    m, k, n = draw(small_dim), draw(small_dim), draw(small_dim)
    k_other = draw(small_dim.filter(lambda x: x != k))
    return {"a": draw(matrix_rows(m, k)), "b": draw(matrix_rows(k_other, n))}


embedding_config = st.fixed_dictionaries(
    {"V": st.integers(1, 12), "C": st.integers(1, 6), "D": st.integers(1, 4)}
)


@st.composite
def wrong_weight_shapes(draw: st.DrawFn) -> dict[str, Any]:
    """A config and weight shapes of which at least one differs from the plan's."""
    config = draw(embedding_config)
    planned = ((config["V"], config["D"]), (config["C"], config["D"]))
    shape = st.tuples(small_dim, small_dim)
    token_shape, position_shape = draw(st.tuples(shape, shape).filter(lambda p: p != planned))
    return {**config, "token_shape": list(token_shape), "position_shape": list(position_shape)}


@st.composite
def tokens_with_bad_id(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(embedding_config)
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    bad = draw(st.one_of(st.integers(config["V"], config["V"] + 50), st.integers(-50, -1)))
    tokens[draw(st.integers(0, len(tokens) - 1))] = bad
    return {**config, "tokens": tokens, "bad": bad}


@st.composite
def tokens_with_bad_type(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(embedding_config)
    tokens: list[Any] = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    bad = draw(not_an_exact_int)
    tokens[draw(st.integers(0, len(tokens) - 1))] = bad
    if draw(st.booleans()):
        return {**config, "tokens": tokens, "bad": bad}
    # the whole sequence is not a sequence of ints
    sequence = draw(not_a_sequence_of_tokens)
    return {**config, "tokens": sequence, "bad": sequence}


@st.composite
def tokens_too_long(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(embedding_config)
    length = draw(st.one_of(st.integers(config["C"] + 1, config["C"] + 6), st.just(0)))
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=length, max_size=length))
    return {**config, "tokens": tokens}


@st.composite
def over_parameter_budget(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(embedding_config)
    needed = (config["V"] + config["C"]) * config["D"]
    return {**config, "budget": draw(st.integers(0, needed - 1))}


@st.composite
def bad_config(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    config: dict[str, Any] = draw(embedding_config)
    config["bad"] = config[draw(st.sampled_from(["V", "C", "D"]))] = draw(bad)
    return config


@st.composite
def with_bad_element(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A Vector's elements or a Matrix's rows with one element replaced by a bad one."""
    m, k = draw(small_dim), draw(small_dim)
    rows: list[list[Any]] = draw(matrix_rows(m, k))
    r = draw(st.integers(0, m - 1))
    element = draw(bad)
    rows[r][draw(st.integers(0, k - 1))] = element
    return {"elements": rows[r], "bad": element} if draw(st.booleans()) else {"rows": rows, "bad": element}


def empty_shapes() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.just({"elements": []}),
        st.just({"rows": []}),
        st.integers(1, 4).map(lambda m: {"rows": [[] for _ in range(m)]}),
    )


SIZED_OPS = ("add", "dot", "matmul", "embedding")


@st.composite
def sized_op(draw: st.DrawFn) -> dict[str, Any]:
    """A valid operation with its shape symbols: add/dot (D or K), matmul (M, K, N), embedding."""
    op = draw(st.sampled_from(SIZED_OPS))
    if op in ("add", "dot"):
        n = draw(small_dim)
        return {"op": op, "x": draw(matrix_rows(1, n))[0], "y": draw(matrix_rows(1, n))[0]}
    if op == "matmul":
        m, k, n = draw(small_dim), draw(small_dim), draw(small_dim)
        return {"op": op, "a": draw(matrix_rows(m, k)), "b": draw(matrix_rows(k, n))}
    config = draw(embedding_config)
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    return {"op": op, **config, "tokens": tokens}


# ---------------------------------------------------------------- Stage 03: scalar autodiff

positive_floats = st.floats(1e-3, 1e3)
small_floats = st.floats(-100, 100, allow_nan=False)
log_outside_domain = st.one_of(st.just(0.0), st.just(-0.0), st.floats(-1e6, -1e-300)).map(lambda x: {"x": x})
exp_overflowing = st.floats(709.8, 1e6).map(lambda x: {"x": x})
division_by_zero = st.fixed_dictionaries(
    {
        "a": finite_floats,
        "b": st.sampled_from([0.0, -0.0]),
        "form": st.sampled_from(["value", "constant", "reflected"]),
    }
)
pow_outside_domain = st.one_of(
    # a negative base with a non-integer exponent has no real power
    st.fixed_dictionaries({"x": st.floats(-1e3, -1e-3), "k": st.floats(-3, 3).filter(lambda k: k != int(k))}),
    # zero to a negative power (or its derivative) is infinite
    st.fixed_dictionaries({"x": st.just(0.0), "k": st.floats(-3, 0.99).filter(lambda k: k != 0)}),
)
pow_bad_exponent = st.fixed_dictionaries(
    {"x": finite_floats, "k": st.sampled_from([True, False, "2", None, "Value"])}
)


# ---------------------------------------------------------------- Stage T: tensor ops

TENSOR_SIDE = 4  # small shapes keep the tensor properties fast: side <= 4, <= 3 dims
TENSOR_DIMS = 3
ELEMENTWISE_BINARY = ("add", "multiply", "maximum")
UNARY = ("exp", "log", "relu")
# numpy's matmul signature: optional m and p are the 1-D cases; batch axes broadcast
MATMUL_SIGNATURE = "(m?,n),(n,p?)->(m?,p?)"


def tensor_shapes(op: str) -> st.SearchStrategy[tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]]:
    """(input shapes, result shape) for op: mutually broadcastable, or matmul's signature."""
    if op == "matmul":
        shapes = hnp.mutually_broadcastable_shapes(signature=MATMUL_SIGNATURE, max_dims=2, max_side=3)
    elif op in UNARY:
        shapes = hnp.mutually_broadcastable_shapes(num_shapes=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)
    else:
        shapes = hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)
    return shapes.map(lambda s: (tuple(s.input_shapes), tuple(s.result_shape)))


def float_arrays(shape: tuple[int, ...], elements: st.SearchStrategy[float]) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=elements)


def away_from_kinks(op: str, position: int) -> st.SearchStrategy[float] | None:
    """maximum: a on the half-integers, b a quarter off them (|a - b| >= 1/4); relu: x likewise."""
    if op == "maximum":
        return st.integers(-8, 8).map(lambda k: k / 2 + position / 4)
    if op == "relu":
        return st.integers(-8, 7).map(lambda k: k / 2 + 1 / 4)
    return None


@st.composite
def tensor_case(
    draw: st.DrawFn, op: str, domains: Mapping[str, Mapping[str, Any]], smooth: bool = False
) -> dict[str, Any]:
    """op, inputs (in domain order) and an upstream gradient of the result's shape.

    smooth: inputs stay away from kinks and ties (for central differences and the Value engine).
    """
    input_shapes, result_shape = draw(tensor_shapes(op))
    inputs = []
    for position, (domain, shape) in enumerate(zip(domains.values(), input_shapes, strict=True)):
        kink_free = away_from_kinks(op, position) if smooth else None
        elements = from_domain(domain) if kink_free is None else kink_free
        inputs.append(draw(float_arrays(shape, elements)))
    upstream = draw(float_arrays(result_shape, st.floats(-2, 2)))
    return {"op": op, "inputs": inputs, "upstream": upstream}


def directions(shapes: list[tuple[int, ...]]) -> st.SearchStrategy[list[np.ndarray]]:
    """One random direction per input (for directional central differences)."""
    return st.tuples(*(float_arrays(shape, st.floats(-1, 1)) for shape in shapes)).map(list)


@st.composite
def tied_pair(draw: st.DrawFn) -> dict[str, Any]:
    """Same-shape a, b with b equal to a at a random (non-empty) set of positions."""
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    a = draw(float_arrays(shape, st.integers(-4, 4).map(float)))
    other = draw(float_arrays(shape, st.integers(-4, 4).map(float)))
    tie = draw(hnp.arrays(np.bool_, shape))
    tie.flat[draw(st.integers(0, tie.size - 1))] = True
    upstream = draw(float_arrays(shape, st.floats(-2, 2)))
    return {"a": a, "b": np.where(tie, a, other), "tie": tie, "upstream": upstream}


@st.composite
def non_broadcastable(draw: st.DrawFn) -> dict[str, Any]:
    """Two shapes that differ, at one aligned axis, in sizes that are both > 1."""
    shape = list(draw(hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, min_side=2, max_side=4)))
    axis = draw(st.integers(0, len(shape) - 1))
    other = list(shape)
    other[axis] = draw(st.integers(2, 5).filter(lambda n: n != shape[axis]))
    other = other[draw(st.integers(0, axis)) :]  # drop some leading axes, keep the bad one
    pair = [shape, other] if draw(st.booleans()) else [other, shape]
    op = draw(st.sampled_from(ELEMENTWISE_BINARY))
    return {"op": op, "inputs": [np.ones(s) for s in pair]}


@st.composite
def matmul_inner_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """a's last axis differs from b's contracted axis (b[-2], or b[0] when b is 1-D)."""
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 5).filter(lambda x: x != n))
    a_shape = (*draw(st.sampled_from([(), (2,), (3,)])), n)
    b_shape = (k,) if draw(st.booleans()) else (k, draw(st.integers(1, 4)))
    return {"op": "matmul", "inputs": [np.ones(a_shape), np.ones(b_shape)]}


@st.composite
def matmul_batch_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """Matching inner axes, batch axes of sizes > 1 that differ."""
    m, n, p = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(st.integers(2, 4))
    other = draw(st.integers(2, 4).filter(lambda x: x != batch))
    return {"op": "matmul", "inputs": [np.ones((batch, m, n)), np.ones((other, n, p))]}


@st.composite
def matmul_scalar_operand(draw: st.DrawFn) -> dict[str, Any]:
    """One 0-d operand, the other of any shape."""
    scalar = np.asarray(draw(st.floats(-4, 4)))
    other = np.ones(draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)))
    pair = [scalar, other] if draw(st.booleans()) else [other, scalar]
    return {"op": "matmul", "inputs": pair}


@st.composite
def with_bad_elements(
    draw: st.DrawFn, good: st.SearchStrategy[float], bad: st.SearchStrategy[float]
) -> np.ndarray:
    """An array of good elements with at least one bad one."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    array = draw(float_arrays(shape, good))
    count = draw(st.integers(1, array.size))
    for index in draw(st.permutations(range(array.size)))[:count]:
        array.flat[index] = draw(bad)
    return array


log_domain_violation = with_bad_elements(st.floats(0.1, 10), st.floats(-10, 0))
exp_overflow = with_bad_elements(st.floats(-10, 10), st.floats(710, 1e5))
non_finite_tensor_data = with_bad_elements(st.floats(-10, 10), non_finite_float)
bad_dtype_data = st.one_of(
    hnp.arrays(np.bool_, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
    hnp.arrays(np.complex128, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)),
    st.booleans(),
)
real_tensor_data = st.one_of(
    hnp.arrays(
        st.sampled_from([np.int8, np.int32, np.int64, np.float32, np.float64]),
        hnp.array_shapes(min_dims=0, max_dims=2, max_side=3),
        elements=st.integers(-100, 100),
    ),
    st.integers(-100, 100),
    st.floats(-100, 100),
    st.lists(st.integers(-100, 100), min_size=1, max_size=4),
)


@st.composite
def wrong_upstream(draw: st.DrawFn) -> dict[str, Any]:
    """An add of two same-shape inputs and an upstream whose shape differs from the output's."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE))
    other = draw(
        hnp.array_shapes(min_dims=0, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE).filter(lambda s: s != shape)
    )
    return {"op": "add", "inputs": [np.ones(shape), np.ones(shape)], "upstream": np.ones(other)}


non_scalar_shapes = hnp.array_shapes(min_dims=1, max_dims=TENSOR_DIMS, max_side=TENSOR_SIDE)


# ---------------------------------------------------------------- Stage 07: Linear, MLP, seals

layer_width = st.integers(1, 4)
mlp_widths = st.lists(layer_width, min_size=2, max_size=4)  # 1 to 3 Linear layers
deep_widths = st.lists(layer_width, min_size=3, max_size=4)  # at least one ReLU
token_count = st.integers(1, 3)
WEIGHT_FAULTS = ("mutate-data", "mutate-grad", "replace-storage", "replace-rows")
SHAPE_FAULTS = ("drop-column", "drop-row", "extra-row")
STORAGE_MODES = ("matrix", "rows", "element", "bias", "list", "reorder")


@st.composite
def mlp_case(draw: st.DrawFn, widths: st.SearchStrategy[list[int]] = mlp_widths) -> dict[str, Any]:
    """widths, use_bias and T of a small model."""
    return {"widths": draw(widths), "use_bias": draw(st.booleans()), "tokens": draw(token_count)}


def input_rows(tokens: int, width: int) -> st.SearchStrategy[list[list[float]]]:
    return st.lists(
        st.lists(st.floats(-2, 2, allow_nan=False), min_size=width, max_size=width),
        min_size=tokens,
        max_size=tokens,
    )


def invalid_plan_values() -> st.SearchStrategy[dict[str, Any]]:
    """One LinearPlan or InitSpec argument with a valid type and an invalid value."""
    return st.one_of(
        st.integers(-5, 0).map(lambda n: {"in_features": n}),
        st.integers(-5, 0).map(lambda n: {"out_features": n}),
        st.sampled_from(["", " ", "\t", "  \n"]).map(lambda name: {"name": name}),
        st.one_of(st.floats(-10, 0), non_finite_float).map(lambda g: {"gain": g}),
        st.text(max_size=8)
        .filter(lambda d: d not in ("normal", "uniform"))
        .map(lambda d: {"distribution": d}),
        st.text(max_size=8).filter(lambda r: r not in ("standard", "relu")).map(lambda r: {"role": r}),
        st.integers(-50, -1).map(lambda seed: {"seed": seed}),
    )


def plan_type_values() -> st.SearchStrategy[dict[str, Any]]:
    """One LinearPlan or InitSpec argument of the wrong type."""
    return st.one_of(
        not_an_exact_int.map(lambda n: {"in_features": n}),
        not_an_exact_int.map(lambda n: {"out_features": n}),
        st.sampled_from([7, None, b"fc1", ["fc1"]]).map(lambda name: {"name": name}),
        st.sampled_from([0, 1, "yes", None, 1.0]).map(lambda flag: {"use_bias": flag}),
        st.sampled_from(["he", 2.0, {"role": "relu"}]).map(lambda init: {"init": init}),
        st.sampled_from([True, "1", None, 1j]).map(lambda g: {"gain": g}),
        st.sampled_from([True, 1.5, "0", None]).map(lambda seed: {"seed": seed}),
    )


@st.composite
def width_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """(in, out) pairs where one layer's in differs from the previous layer's out."""
    widths = draw(deep_widths)
    pairs = [[a, b] for a, b in itertools.pairwise(widths)]
    index = draw(st.integers(1, len(pairs) - 1))
    pairs[index][0] = draw(layer_width.filter(lambda n: n != pairs[index - 1][1]))
    return {"layers": pairs}


@st.composite
def over_model_parameters(draw: st.DrawFn) -> dict[str, Any]:
    """A model (or one layer) and a shortfall >= 1 below its parameter count."""
    case = draw(mlp_case())
    return {**case, "shortfall": draw(st.integers(1, 60)), "single": draw(st.booleans())}


@st.composite
def bad_init_result(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A model and the initializer call (first, last or any) that returns a bad value."""
    case = draw(mlp_case())
    position = draw(st.one_of(st.sampled_from(["first", "last"]), st.integers(0, 100)))
    return {**case, "bad_value": draw(bad), "position": position}


not_a_float = st.sampled_from([True, False, 1, 0, "1", None, np.float32(0.5), [0.5]])


@st.composite
def duplicate_names(draw: st.DrawFn) -> dict[str, Any]:
    """Layer names with a repeat (refused by ModelPlan), or a sealed layer renamed to another's."""
    widths = draw(deep_widths)
    depth = len(widths) - 1
    i, j = draw(st.lists(st.integers(0, depth - 1), min_size=2, max_size=2, unique=True))
    if draw(st.booleans()):
        return {"widths": widths, "rename": [i, j]}
    names = [f"layer{k}" for k in range(depth)]
    names[j] = names[i]
    return {"widths": widths, "layer_names": names}


@st.composite
def alias_case(draw: st.DrawFn) -> dict[str, Any]:
    """Two distinct parameter positions made one Value: inside a layer or across layers."""
    widths = draw(mlp_widths.filter(lambda w: max(a * b for a, b in itertools.pairwise(w)) >= 2))
    depth = len(widths) - 1
    via = draw(st.sampled_from(["construct", "forward", "model"] if depth > 1 else ["construct", "forward"]))

    def position(layer: int, flat: int) -> list[int]:
        return [layer, flat // widths[layer], flat % widths[layer]]  # [layer, o, i]

    def any_position(layer: int) -> st.SearchStrategy[int]:
        return st.integers(0, widths[layer] * widths[layer + 1] - 1)

    if via == "model":
        la, lb = draw(st.lists(st.integers(0, depth - 1), min_size=2, max_size=2, unique=True))
        first, second = position(la, draw(any_position(la))), position(lb, draw(any_position(lb)))
        return {"widths": widths, "via": via, "alias": [first, second]}
    layer = draw(st.sampled_from([k for k in range(depth) if widths[k] * widths[k + 1] >= 2]))
    a, b = draw(st.lists(any_position(layer), min_size=2, max_size=2, unique=True))
    return {"widths": widths, "via": via, "alias": [position(layer, a), position(layer, b)]}


@st.composite
def storage_swap(draw: st.DrawFn) -> dict[str, Any]:
    case = draw(mlp_case())
    modes = STORAGE_MODES if len(case["widths"]) > 2 else STORAGE_MODES[:-1]
    return {**case, "layer": draw(st.integers(0, 5)), "mode": draw(st.sampled_from(modes))}


@st.composite
def wrong_input_width(draw: st.DrawFn) -> dict[str, Any]:
    case = draw(mlp_case())
    width = draw(st.integers(1, 6).filter(lambda n: n != case["widths"][0]))
    return {**case, "input_shape": [case["tokens"], width], "single": draw(st.booleans())}


not_a_matrix = st.sampled_from([[[1.0, 2.0, 3.0]], (1.0, 2.0), None, "x", 3.0])


@st.composite
def non_matrix_input(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(mlp_case()), "x": draw(not_a_matrix), "single": draw(st.booleans())}


@st.composite
def over_model_graph(draw: st.DrawFn) -> dict[str, Any]:
    """A model (or its first layer) and a shortfall >= 1 below its forward's graph cost."""
    case = draw(mlp_case())
    return {**case, "shortfall": draw(st.integers(1, 200)), "single": draw(st.booleans())}


@st.composite
def broken_executor(draw: st.DrawFn, faults: tuple[str, ...]) -> dict[str, Any]:
    case = draw(mlp_case())
    return {**case, "executor": draw(st.sampled_from(faults)), "layer": draw(st.integers(0, 5))}


@st.composite
def non_finite_parameter(draw: st.DrawFn) -> dict[str, Any]:
    case = draw(mlp_case())
    position = [draw(st.integers(0, 5)), draw(st.integers(0, 5))]
    return {**case, "layer": draw(st.integers(0, 5)), "position": position, "data": draw(non_finite_float)}


@st.composite
def renamed_layer(draw: st.DrawFn) -> dict[str, Any]:
    """A sealed layer given a fresh name (or a different model scope)."""
    case = {**draw(mlp_case()), "layer": draw(st.integers(0, 5))}
    fresh = st.text("abcdefghij_", min_size=1, max_size=6).filter(lambda n: not n.startswith("fc"))
    if draw(st.booleans()):
        return {**case, "new_scope": draw(fresh)}
    return {**case, "new_name": draw(fresh)}


@st.composite
def storage_shape_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """A weight of the wrong shape, a bias the plan lacks or of the wrong length, or layer count."""
    c_in, c_out = draw(layer_width), draw(layer_width)
    kind = draw(st.sampled_from(["weight", "extra-bias", "bias-length", "layers"]))
    if kind == "weight":
        shape = draw(st.tuples(layer_width, layer_width).filter(lambda s: s != (c_out, c_in)))
        return {"in_features": c_in, "out_features": c_out, "weight_shape": list(shape)}
    if kind == "extra-bias":
        return {"in_features": c_in, "out_features": c_out, "bias_shape": [draw(layer_width)]}
    if kind == "bias-length":
        length = draw(layer_width.filter(lambda n: n != c_out))
        return {"in_features": c_in, "out_features": c_out, "use_bias": True, "bias_shape": [length]}
    widths = draw(mlp_widths)
    given = draw(st.integers(0, 5).filter(lambda n: n != len(widths) - 1))
    return {"widths": widths, "layers_given": given}


init_spec_args = st.fixed_dictionaries(
    {
        "distribution": st.sampled_from(["normal", "uniform"]),
        "gain": st.floats(0.25, 4.0),
        "seed": st.integers(0, 2**32),
        "role": st.sampled_from(["standard", "relu"]),
    }
)

# ---------------------------------------------------------------- Stage 05: wrong containers and operands

not_a_sequence = st.sampled_from([3.0, 7, None, "abc", b"ab", True])


@st.composite
def wrong_container(draw: st.DrawFn) -> dict[str, Any]:
    """A Vector from a non-sequence, or a Matrix whose rows (or one row) are not sequences."""
    kind = draw(st.sampled_from(["elements", "rows", "row"]))
    bad = draw(not_a_sequence)
    if kind != "row":
        return {kind: bad, "bad": bad}
    rows: list[Any] = draw(matrix_rows(draw(st.integers(2, 4)), draw(small_dim)))
    rows[draw(st.integers(0, len(rows) - 1))] = bad
    return {"rows": rows, "bad": bad}


wrong_operand = st.fixed_dictionaries(
    {
        "op": st.sampled_from(["add", "dot", "matmul", "embedding"]),
        "other": st.sampled_from([[1.0, 2.0], (1.0,), [[1.0]], 1.0, None, "ab"]),
        "slot": st.sampled_from(["plan", "token", "position"]),
    }
)


@st.composite
def initializer_failure(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A config and one (table, row, col) where the initializer returns a bad value."""
    config = draw(embedding_config)
    table = draw(st.sampled_from(["token", "position"]))
    rows = config["V"] if table == "token" else config["C"]
    return {
        **config,
        "table": table,
        "row": draw(st.integers(0, rows - 1)),
        "col": draw(st.integers(0, config["D"] - 1)),
        "bad": draw(bad),
    }


budget_of_wrong_type = st.sampled_from([True, False, 3.0, "4", None, 2.5])


# ---------------------------------------------------------------- ports helper (issue 13: port conformance)


@st.composite
def tokens_with_a_bool(draw: st.DrawFn) -> dict[str, Any]:
    """Valid token ids of which one or more are bools (True would index row 1, False row 0)."""
    config = draw(embedding_config)
    tokens: list[Any] = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    for position in draw(st.sets(st.integers(0, len(tokens) - 1), min_size=1)):
        tokens[position] = draw(st.booleans())
    return {**config, "tokens": tokens}


@st.composite
def embedding_run(draw: st.DrawFn) -> dict[str, Any]:
    """A config and a valid token sequence (1 <= T <= C, 0 <= id < V)."""
    config = draw(embedding_config)
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    return {**config, "tokens": tokens}


@st.composite
def mlp_run(draw: st.DrawFn, widths: st.SearchStrategy[list[int]] = mlp_widths) -> dict[str, Any]:
    """widths and a (T, C_in) input of an MLP forward."""
    sizes = draw(widths)
    tokens = draw(token_count)
    return {"widths": sizes, "x": np.array(draw(input_rows(tokens, sizes[0])), dtype=np.float64)}

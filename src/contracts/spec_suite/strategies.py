"""Every hypothesis strategy the suite uses, in one place (a section per stage; append only)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from contracts.core.value import Value

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


def value_assigned(data: float) -> Value:
    """A Value whose data was assigned after construction (a leaf refuses non-finite data)."""
    value = Value(0.0)
    value.data = data
    return value


# a Value element is checked too: its data (assigned, as an optimizer may) must be finite
non_finite_element = st.one_of(non_finite_float, non_finite_float.map(value_assigned))
# iterables that are no sequence (a set, an iterator, a generator) included: each drawn afresh
not_a_sequence_of_tokens = st.one_of(
    st.sampled_from([5, 2.0, None, "abc", b"ab"]),
    st.builds(lambda: {1, 2}),
    st.builds(lambda: iter([0, 1])),
    st.builds(lambda: (token for token in (0, 1))),
)
not_a_real = st.sampled_from([True, False, "1", None, 1j, [1.0], b"1"])
# not_a_real without the bools (a bool element is a row of its own, S05.fail.element-bool)
not_a_number = st.sampled_from(["1", None, 1j, [1.0], b"1"])
# numpy's integers are not Python ints: a count or budget of np.int64 would wrap past 2**63 unchecked
not_an_exact_int = st.sampled_from([True, False, 1.0, "1", None, 2.5, np.int64(2), np.int32(1)])

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
    length = draw(st.integers(config["C"] + 1, config["C"] + 6))
    tokens = draw(st.lists(st.integers(0, config["V"] - 1), min_size=length, max_size=length))
    return {**config, "tokens": tokens}


def tokens_empty() -> st.SearchStrategy[dict[str, Any]]:
    return embedding_config.map(lambda config: {**config, "tokens": []})


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
    """a's last axis differs from b's contracted axis (b[-2], or b[0] when b is 1-D), batched or not (the
    batch axes, when both have them, broadcast: the inner axes are the only fault)."""
    n = draw(st.integers(1, 4))
    k = draw(st.integers(1, 5).filter(lambda x: x != n))
    a_shape = (*draw(st.sampled_from([(), (2,), (3,), (2, 3)])), n)
    b_batch = draw(st.sampled_from([(), (1,), (2,)])) if len(a_shape) == 3 else ()
    b_shape = (k,) if draw(st.booleans()) else (*b_batch, k, draw(st.integers(1, 4)))
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
WEIGHT_FAULTS = (
    "mutate-data",
    "mutate-grad",
    "replace-storage",
    "replace-rows",
    "mutate-then-replace",
    "rescope",
    "rename",
)
SHAPE_FAULTS = ("drop-column", "drop-row", "extra-row", "ragged-row", "long-row")
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
    """A feature count, layer name or gain with a valid type and an invalid value."""
    return st.one_of(
        st.integers(-5, 0).map(lambda n: {"in_features": n}),
        st.integers(-5, 0).map(lambda n: {"out_features": n}),
        st.sampled_from(["", " ", "\t", "  \n"]).map(lambda name: {"name": name}),
        st.one_of(st.floats(-10, 0), non_finite_float).map(lambda g: {"gain": g}),
    )


def invalid_init_choices() -> st.SearchStrategy[dict[str, Any]]:
    """An InitSpec distribution or role it does not know, or a negative seed."""
    return st.one_of(
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
def bad_parameter_data(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A model and a weight position (taken modulo its layer's shape) whose data becomes a bad value."""
    case = draw(mlp_case())
    position = [draw(st.integers(0, 5)), draw(st.integers(0, 5))]
    return {**case, "layer": draw(st.integers(0, 5)), "position": position, "data": draw(bad)}


# a layer name no model here uses (every layer is fcK), so a rename never makes a duplicate by chance
fresh_layer_name = st.text("abcdefghij_", min_size=1, max_size=6).filter(lambda n: not n.startswith("fc"))


@st.composite
def renamed_layer(draw: st.DrawFn) -> dict[str, Any]:
    """A sealed layer given a fresh name (or a different model scope)."""
    case = {**draw(mlp_case()), "layer": draw(st.integers(0, 5))}
    if draw(st.booleans()):
        return {**case, "new_scope": draw(fresh_layer_name)}
    return {**case, "new_name": draw(fresh_layer_name)}


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


budget_of_wrong_type = st.sampled_from([True, False, 3.0, "4", None, 2.5, np.int64(10**6)])


# ---------------------------------------------------------------- spec tooling (helper: tooling)
# Expression texts for the evaluator's differential test against Python. Each draw is
# (text, in_grammar): in_grammar is False when the text uses something the evaluator refuses by
# design (boolean operators, conditionals, unlisted calls, a non-constant or too large exponent).

_CMP_OPS = ["<", "<=", ">", ">=", "==", "!="]
_ARITH_OPS = ["+", "-", "*", "/", "//", "%"]
_EXPONENTS = st.sampled_from(["0", "1", "2", "3", "-1", "-2", "64", "-64", "0.5", "2.0", "-1.5", "(2)", "+3"])
_BAD_EXPONENTS = st.sampled_from(["65", "-65", "x", "(1 + 1)", "--2"])
_CALLS = {"exp": 1, "log": 1, "step": 1, "ge": 2, "lt": 2, "max": 2}

expression_numbers = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 0.0, 1, -1]),
)

Drawn = tuple[str, bool]


def _leaf() -> st.SearchStrategy[Drawn]:
    literal = st.one_of(
        st.integers(0, 10**6).map(str),
        st.floats(0, 1e6, allow_nan=False, allow_infinity=False).map(repr),
        st.sampled_from(["0", "1", "2", "0.0", "x", "y"]),
    )
    return literal.map(lambda text: (text, True))


def _wrap(draw: st.DrawFn, part: Drawn) -> str:
    """Parenthesized or bare: both parse with Python's precedence on both sides of the test."""
    return f"({part[0]})" if draw(st.booleans()) else part[0]


def _extend(children: st.SearchStrategy[Drawn]) -> st.SearchStrategy[Drawn]:
    @st.composite
    def combine(draw: st.DrawFn) -> Drawn:
        kind = draw(
            st.sampled_from(
                [
                    "binary",
                    "binary",
                    "power",
                    "unary",
                    "chain",
                    "chain",
                    "call",
                    "bad-power",
                    "boolean",
                    "not",
                    "conditional",
                    "unlisted-call",
                ]
            )
        )
        a, b, c = draw(children), draw(children), draw(children)
        if kind == "binary":
            return f"{_wrap(draw, a)} {draw(st.sampled_from(_ARITH_OPS))} {_wrap(draw, b)}", a[1] and b[1]
        if kind == "power":
            return f"({a[0]}) ** {draw(_EXPONENTS)}", a[1]
        if kind == "bad-power":
            return f"({a[0]}) ** {draw(_BAD_EXPONENTS)}", False
        if kind == "unary":
            return f"{draw(st.sampled_from(['-', '+']))}({a[0]})", a[1]
        if kind == "chain":
            operands = [a, b, c][: draw(st.integers(2, 3))]
            text = _wrap(draw, operands[0])
            for operand in operands[1:]:
                text += f" {draw(st.sampled_from(_CMP_OPS))} {_wrap(draw, operand)}"
            return text, all(operand[1] for operand in operands)
        if kind == "call":
            name = draw(st.sampled_from(sorted(_CALLS)))
            arity = _CALLS[name] if draw(st.integers(0, 9)) else _CALLS[name] + 1  # sometimes a TypeError
            return f"{name}({', '.join(part[0] for part in [a, b, c][:arity])})", all(
                part[1] for part in [a, b, c][:arity]
            )
        if kind == "boolean":
            return f"({a[0]}) {draw(st.sampled_from(['and', 'or']))} ({b[0]})", False
        if kind == "not":
            return f"not ({a[0]})", False
        if kind == "conditional":
            return f"({a[0]}) if ({b[0]}) else ({c[0]})", False
        return f"abs({a[0]})", False  # unlisted-call: a real Python function, refused by the grammar

    return combine()


spec_expressions: st.SearchStrategy[Drawn] = st.recursive(_leaf(), _extend, max_leaves=10)


@st.composite
def comparison_chains(draw: st.DrawFn) -> Drawn:
    """A flat chain `a op b op c ...` of 2-5 small operands, some of which raise when evaluated."""
    operands = st.sampled_from(["x", "y", "0", "1", "-1", "2.5", "1 / 0", "log(x)", "x - y", "step(y)"])
    count = draw(st.integers(2, 5))
    text = draw(operands)
    for _ in range(count - 1):
        text += f" {draw(st.sampled_from(_CMP_OPS))} {draw(operands)}"
    return text, True


# ---------------------------------------------------------------- precedence helper: check order
# A precedence case is a valid call (`precedence_base`) into which faults are injected one at a time
# (`inject`): each injector returns a new case with its fault added and keeps the faults already there.
# "named" is the value the refusal's message must name; the last injector sets (or clears) it.

NAMED = "named"
not_a_vector_operand = st.sampled_from([[1.0, 2.0], (1.0,), 1.0, None, "ab"])
not_a_matrix_operand = st.sampled_from([[[1.0]], (1.0,), 1.0, None, "ab"])
over_budget_types = budget_of_wrong_type.filter(lambda b: b is not None)
negative_budget = st.integers(-100, -1)


def naming(case: dict[str, Any], **updates: Any) -> dict[str, Any]:
    """case with updates, naming updates[NAMED] if given, else naming nothing."""
    fresh = {key: value for key, value in case.items() if key != NAMED}
    return {**fresh, **updates}


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


# ---------------------------------------------------------------- issue 10, classes 3 and 5 (immut helper)

FLOAT_MAX = 1.7976931348623157e308
# ints whose float would be inf: 10**309 and beyond, either sign
int_beyond_float_range = st.builds(
    lambda power, sign: sign * 10**power, st.integers(309, 420), st.sampled_from([1, -1])
)
huge = st.floats(1e300, FLOAT_MAX)
# below 1/FLOAT_MAX: 1/x overflows (subnormals included)
tiny = st.floats(5e-324, 5e-309, exclude_min=False)


@st.composite
def overflowing_operation(draw: st.DrawFn) -> dict[str, Any]:
    """A Value operation over finite operands whose result or local derivative overflows float64."""
    sign = draw(st.sampled_from([1.0, -1.0]))
    kind = draw(st.sampled_from(["sum", "product", "quotient", "log"]))
    if kind == "sum":
        a, b = sign * draw(huge.filter(lambda x: x >= 9e307)), sign * draw(st.floats(9e307, FLOAT_MAX))
        op = draw(st.sampled_from(["add", "radd"]))
        return {"op": op, "a": a, "b": b}
    if kind == "product":
        a, b = sign * draw(st.floats(1e155, FLOAT_MAX)), draw(st.floats(1e155, FLOAT_MAX))
        return {"op": draw(st.sampled_from(["mul", "rmul"])), "a": a, "b": b}
    if kind == "quotient":
        op = draw(st.sampled_from(["div", "rdiv"]))
        return {"op": op, "a": sign * draw(st.floats(1.0, 1e6)), "b": draw(tiny)}
    return {"op": "log", "a": draw(tiny)}


# log(a) * scale with a tiny: d/da = scale / a overflows while log(a) * scale stays finite
overflowing_gradient = st.builds(
    lambda a, scale: {"a": a, "scale": scale},
    st.floats(1e-300, 1e-295),
    st.floats(1e15, 1e100) | st.floats(-1e100, -1e15),
)
non_finite_number_operand = st.one_of(
    st.builds(
        lambda x, op: {"op": op, "x": x}, non_finite_float, st.sampled_from(["leaf", "add", "mul", "div"])
    ),
    st.builds(
        lambda p, op: {"op": op, "power": p}, st.integers(309, 400), st.sampled_from(["leaf", "add", "mul"])
    ),
)


@st.composite
def tensor_result_overflow(draw: st.DrawFn) -> dict[str, Any]:
    """Finite operands of add, multiply or matmul whose result has at least one inf element."""
    op = draw(st.sampled_from(["add", "multiply", "matmul"]))
    n = draw(st.integers(1, 3))
    big = draw(st.floats(1e200, FLOAT_MAX))
    if op == "add":
        a = [draw(st.floats(-1, 1)) for _ in range(n)]
        index = draw(st.integers(0, n - 1))
        a[index] = FLOAT_MAX
        return {"op": op, "inputs": [np.asarray(a), np.full(n, max(big, 1e300))]}
    if op == "multiply":
        return {"op": op, "inputs": [np.full(n, big), np.full(n, draw(st.floats(1e200, 1e300)))]}
    return {"op": op, "inputs": [np.full((1, n), big), np.full((n, 1), draw(st.floats(1e200, 1e300)))]}


tensor_gradient_overflow = st.one_of(
    st.builds(
        lambda x, n: {"op": "log", "inputs": [np.full(n, x)], "upstream": np.ones(n)},
        tiny,
        st.integers(1, 3),
    ),
    st.builds(
        lambda a, g: {
            "op": "multiply",
            "inputs": [np.full(1, a), np.full(1, 1e-200)],
            "upstream": np.full(1, g),
        },
        st.floats(1e200, 1e300),
        st.floats(1e200, 1e300),
    ),
)
not_a_value_type = st.fixed_dictionaries(
    {
        "target": st.sampled_from(
            ["Vector", "Matrix", "EmbeddingPlan", "LinearPlan", "ModelPlan", "BlockPlan"]
        ),
        "value_type": st.sampled_from(["int", "float", "str", "None", "a Value", "object"]),
    }
)
# anything a caller might assign to an attribute of a validated object
assigned_value = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**20),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.tuples(),
    st.lists(st.integers(0, 3), max_size=2),
    st.builds(Value, st.floats(-1, 1)),
)


@st.composite
def bool_among_numbers(draw: st.DrawFn) -> dict[str, Any]:
    """Nested Python data of ints and floats with at least one bool (Python's or numpy's) among them."""
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(2, 3))
    number = st.one_of(st.integers(-5, 5), st.floats(-5, 5))
    data: list[list[Any]] = [[draw(number) for _ in range(cols)] for _ in range(rows)]
    flag = draw(st.sampled_from([True, False, np.bool_(True), np.bool_(False)]))
    data[0][draw(st.integers(0, cols - 1))] = flag  # row 0: a flat draw keeps it
    return {"data": data if draw(st.booleans()) else data[0]}


@st.composite
def int_beyond_range_in_data(draw: st.DrawFn) -> dict[str, Any]:
    """A flat list of floats with one int beyond float64's range (either sign)."""
    data: list[Any] = draw(st.lists(st.floats(-5, 5), min_size=0, max_size=3))
    big = draw(int_beyond_float_range)
    data.insert(draw(st.integers(0, len(data))), big)
    return {"data": data, "bad": big}


# float64's edges and ordinary values, both signs: max, the smallest subnormal, 1/max's neighbourhood
edge_floats = st.one_of(
    st.sampled_from([FLOAT_MAX, 1e308, 1e200, 1e154, 1.0, 0.5, 1e-308, 5e-309, 5e-324]).flatmap(
        lambda x: st.sampled_from([x, -x])
    ),
    st.floats(allow_nan=False, allow_infinity=False),
)
# ---------------------------------------------------------------- composite graphs (issue 10, helper "dags")
# Random computation DAGs as plain data (cases/dags.py): ops from the spec's op sets, kept inside
# their domains by an independent evaluator (cases/dags.py); every program ends in a motif that
# reuses one node s by a deep path and a shallow one (a diamond) and uses s three times.

MAX_TREE = 96  # a node feeds an instruction only while its tree rewrite stays this small
MOTIF_TREE = 12  # the shared node's tree size (the motif copies it three times and more)


class ProgramBuilder:
    """Appends instructions whose op is the first, in a drawn order, that the domain check accepts."""

    def __init__(self, draw: st.DrawFn, leaves: list[Any], arity: Mapping[str, int], kind: str) -> None:
        self.draw = draw
        self.leaf_count = len(leaves)
        self.values: list[Any] = list(leaves)
        self.arity = arity
        self.kind = kind
        self.program: list[tuple[str, tuple[int, ...], tuple[float, ...]]] = []

    def sizes(self) -> list[int]:
        from contracts.spec_suite.cases.dags import tree_sizes

        return tree_sizes(self.program, self.leaf_count)

    def operands(self, count: int, limit: int = MAX_TREE) -> tuple[int, ...]:
        """count earlier nodes (repeats allowed: x * x), each small enough to be rewritten as a tree."""
        eligible = [i for i, size in enumerate(self.sizes()) if size <= limit]
        return tuple(self.draw(st.sampled_from(eligible)) for _ in range(count))

    def emit(
        self, operands: tuple[int, ...], candidates: list[str], fallback: str | None = None
    ) -> int | None:
        """The new node's index (the first candidate, in a drawn order, inside its domain, else the
        fallback), or None when no candidate fits and there is no fallback."""
        from contracts.spec_suite.cases.dags import POW_EXPONENTS

        exponent = (self.draw(st.sampled_from(POW_EXPONENTS)),)
        for op in self.draw(st.permutations(candidates)):
            if self.fits(op, operands, exponent if op == "pow" else ()):
                return self.append(op, operands, exponent if op == "pow" else ())
        return None if fallback is None else self.append(fallback, operands, ())

    def fits(self, op: str, operands: tuple[int, ...], constants: tuple[float, ...]) -> bool:
        from contracts.spec_suite.cases.dags import scalar_in_domain, tensor_in_domain

        args = [self.values[i] for i in operands[: self.arity[op]]]
        if self.kind == "scalar":
            return scalar_in_domain(op, args, constants)
        return tensor_in_domain(op, args)

    def append(self, op: str, operands: tuple[int, ...], constants: tuple[float, ...]) -> int:
        from contracts.spec_suite.cases.dags import SCALAR_MATH, TENSOR_NUMPY

        forward: Any = SCALAR_MATH[op] if self.kind == "scalar" else TENSOR_NUMPY[op]
        used = operands[: self.arity[op]]
        self.program.append((op, used, constants))
        self.values.append(forward(*(self.values[i] for i in used), *constants))
        return len(self.values) - 1

    def motif(self, ops: list[str], unary: str | None, binary: str) -> None:
        """s reused by a deep path (1-3 ops) and a shallow one, then once more: a diamond, three uses."""
        shared = self.operands(1, MOTIF_TREE)[0]
        deep = shared
        for _ in range(self.draw(st.integers(1, 3))):
            step = self.emit((deep, *self.operands(1, MOTIF_TREE)), ops, unary)
            deep = deep if step is None else step
        binaries = [op for op in ops if self.arity[op] == 2]
        # either operand order: a traversal may go wrong only when the shallow use comes first
        pair = (deep, shared) if self.draw(st.booleans()) else (shared, deep)
        joined = self.emit(pair, binaries, binary)
        assert joined is not None
        self.emit((joined, shared) if self.draw(st.booleans()) else (shared, joined), binaries, binary)


@st.composite
def scalar_programs(draw: st.DrawFn, ops: tuple[str, ...], max_body: int = 6) -> dict[str, Any]:
    """A random scalar DAG over ops (the spec's Stage 03 op set, or the part an engine provides)."""
    from contracts.spec_suite.cases.dags import SCALAR_ARITY

    leaves = draw(st.lists(st.floats(-2, 2).filter(lambda x: abs(x) > 0.1), min_size=1, max_size=4))
    builder = ProgramBuilder(draw, leaves, SCALAR_ARITY, "scalar")
    unary = "neg" if "neg" in ops else None
    for _ in range(draw(st.integers(0, max_body))):
        builder.emit(builder.operands(2), list(ops), unary)
    builder.motif(list(ops), unary, "sub" if "sub" in ops else "add")
    return {"leaves": leaves, "program": builder.program}


DAG_SIDE = st.integers(2, 3)


@st.composite
def tensor_leaf(draw: st.DrawFn, n: int) -> np.ndarray:
    """A leaf of shape (n, n), (1, n), (n, 1), (n,) or (): every pair of them broadcasts."""
    shape = draw(st.sampled_from([(n, n), (1, n), (n, 1), (n,), ()]))
    return draw(float_arrays(shape, st.floats(-2, 2).filter(lambda x: abs(x) > 0.1)))


@st.composite
def tensor_programs(draw: st.DrawFn, ops: tuple[str, ...], max_body: int = 5) -> dict[str, Any]:
    """A random Tensor DAG over ops (the spec's tensor op set), with broadcasting and matmul, and an
    upstream gradient of the output's shape."""
    from contracts.spec_suite.cases.dags import TENSOR_ARITY

    n = draw(DAG_SIDE)
    leaves = draw(st.lists(tensor_leaf(n), min_size=1, max_size=3))
    builder = ProgramBuilder(draw, leaves, TENSOR_ARITY, "tensor")
    for _ in range(draw(st.integers(0, max_body))):
        builder.emit(builder.operands(2), list(ops))
    builder.motif(list(ops), None, "add")
    upstream = draw(float_arrays(np.shape(builder.values[-1]), st.floats(-2, 2)))
    return {"leaves": leaves, "program": builder.program, "upstream": upstream}


# verify --quick's hypothesis profile, registered by this name in contracts.verify.profiles
QUICK_PROFILE = "quick"


def examples(full: int, quick: int) -> int:
    """A costly test's example count: `full`, or `quick` under verify --quick's profile (read when the
    test module is imported, after pytest has loaded the profile)."""
    return quick if settings.get_current_profile_name() == QUICK_PROFILE else full


# deeper than the recursion limit in force while the test runs (hypothesis raises Python's 1000 by ~2000)
DEEP_CHAIN = st.integers(100, 600).map(lambda extra: sys.getrecursionlimit() + extra)


@st.composite
def deep_scalar_programs(draw: st.DrawFn, ops: tuple[str, ...]) -> dict[str, Any]:
    """A small random DAG whose shared node s starts a chain deeper than the recursion limit, the chain
    adding or subtracting s or a leaf at every step, joined with s at the end."""
    case = draw(scalar_programs(ops, max_body=3))
    leaves, program = case["leaves"], list(case["program"])
    shared = len(leaves) + draw(st.integers(0, len(program) - 1))
    steps = draw(
        st.lists(st.sampled_from([op for op in ("add", "sub") if op in ops]), min_size=1, max_size=4)
    )
    users = [shared, *range(len(leaves))]
    node = shared
    for k in range(draw(DEEP_CHAIN)):
        program.append((steps[k % len(steps)], (node, users[k % len(users)]), ()))
        node = len(leaves) + len(program) - 1
    program.append(("mul", (node, shared), ()))
    return {"leaves": leaves, "program": program}


@st.composite
def deep_tensor_programs(draw: st.DrawFn) -> dict[str, Any]:
    """A small random Tensor DAG whose shared node starts a chain of adds deeper than the recursion
    limit, joined with it by a multiply at the end."""
    case = draw(tensor_programs(("add", "multiply", "exp", "log", "relu"), max_body=2))
    leaves, program = case["leaves"], list(case["program"])
    shared = len(leaves) + draw(st.integers(0, len(program) - 1))
    users = [shared, *range(len(leaves))]
    node = shared
    for k in range(draw(DEEP_CHAIN)):
        program.append(("add", (node, users[k % len(users)]), ()))
        node = len(leaves) + len(program) - 1
    program.append(("multiply", (node, shared), ()))
    from contracts.spec_suite.cases.dags import evaluate_tensor

    shape = np.shape(evaluate_tensor(program, leaves)[0][-1])
    return {"leaves": leaves, "program": program, "upstream": draw(float_arrays(shape, st.floats(-1, 1)))}


@st.composite
def random_dags(draw: st.DrawFn, max_nodes: int = 30) -> list[tuple[int, ...]]:
    """parents[i] for nodes 0..n-1: each parent an earlier node, repeats allowed (x * x), 0-3 of them."""
    count = draw(st.integers(1, max_nodes))
    return [tuple(draw(st.lists(st.integers(0, i - 1), max_size=3))) if i else () for i in range(count)]


@st.composite
def budgeted_op(draw: st.DrawFn) -> dict[str, Any]:
    """Every entry point that takes a budget: a sized operation, or an EmbeddingPlan (whose parameter budget
    guards the initializer calls, so a budget row's initializer_calls probe has something to read)."""
    if draw(st.booleans()):
        return draw(sized_op())
    return {"op": "embedding-plan", **draw(embedding_config)}


# ---------------------------------------------------------------- spec mutation (specmut helper)

# An upstream gradient away from 1: a vector-Jacobian product is linear in it, so a spec gradient
# that drops `g` differs from the engine's gradient scaled by it.
upstream_scalars = st.floats(-4.0, 4.0, allow_nan=False).filter(lambda u: abs(u - 1.0) > 0.25)
# ---------------------------------------------------------------- Stage 06/08: softmax family, rms_norm
# (stage06 helper)

SOFTMAX_SIDE = 5  # classes per slice <= 5 and batch <= 4 keep the mpmath references cheap


@st.composite
def axis_case(
    draw: st.DrawFn,
    elements: st.SearchStrategy[float] | None = None,
    axes: st.SearchStrategy[int] | None = None,
) -> dict[str, Any]:
    """x of 1..3 dims with non-empty axes, an axis in [-ndim, ndim) (or drawn from axes first, x then
    getting as many dims as the axis needs), keepdims, upstream of the kept shape."""
    if axes is None:
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=SOFTMAX_SIDE))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
    else:
        axis = draw(axes)
        dims = draw(st.integers(axis + 1 if axis >= 0 else -axis, max(3, axis + 1, -axis)))
        shape = draw(
            hnp.array_shapes(min_dims=dims, max_dims=dims, max_side=SOFTMAX_SIDE if dims <= 3 else 2)
        )
    x = draw(float_arrays(shape, elements if elements is not None else st.floats(-4, 4)))
    kept = tuple(1 if i == axis % len(shape) else size for i, size in enumerate(shape))
    upstream = draw(float_arrays(kept, st.floats(-2, 2)))
    return {"x": x, "axis": axis, "keepdims": draw(st.booleans()), "kept": kept, "upstream": upstream}


def distinct_max(case: dict[str, Any]) -> bool:
    """The max along the axis is unique and at least 1/4 above the rest (no tie within a step)."""
    x = np.moveaxis(case["x"], case["axis"], -1)
    if x.shape[-1] == 1:
        return True
    top = np.sort(x, axis=-1)
    return bool(np.all(top[..., -1] - top[..., -2] >= 0.25))


@st.composite
def ce_case(
    draw: st.DrawFn,
    elements: st.SearchStrategy[float] | None = None,
    classes_of: st.SearchStrategy[int] | None = None,
) -> dict[str, Any]:
    """logits (batch..., classes) with 0..2 batch axes and integer targets of the batch shape (or the
    targets drawn from classes_of first, and then more classes than the largest of them)."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=2))
    if classes_of is None:
        classes = draw(st.integers(1, SOFTMAX_SIDE))
        targets = draw(hnp.arrays(np.int64, batch, elements=st.integers(0, classes - 1)))
    else:
        targets = draw(hnp.arrays(np.int64, batch, elements=classes_of))
        least = int(targets.max(initial=0)) + 1
        classes = draw(st.integers(least, max(least, SOFTMAX_SIDE)))
    x = draw(float_arrays((*batch, classes), elements if elements is not None else st.floats(-4, 4)))
    return {"x": x, "targets": targets}


@st.composite
def wide_logits(draw: st.DrawFn, axis_last: bool = True) -> dict[str, Any]:
    """Logits for the error bounds: |x| <= 1e4, spreads from 1e-3 to 1e4, some elements tied at the max,
    in a (batch <= 3, classes <= 5) array, and an upstream |g| <= 2."""
    batch = draw(st.integers(1, 3))
    classes = draw(st.integers(1, SOFTMAX_SIDE))
    center = draw(st.floats(-1e4, 1e4))
    spread = draw(st.sampled_from([1e-3, 0.5, 1.0, 10.0, 40.0, 100.0, 700.0, 800.0, 1e4]))
    offsets = draw(float_arrays((batch, classes), st.floats(-1, 1)))
    x = np.clip(center + offsets * spread, -1e4, 1e4)
    upstream = draw(float_arrays((batch, classes), st.floats(-2, 2)))
    targets = draw(hnp.arrays(np.int64, (batch,), elements=st.integers(0, classes - 1)))
    return {"x": x, "upstream": upstream, "targets": targets}


@st.composite
def rms_case(
    draw: st.DrawFn,
    scales: tuple[int, int] = (-1, 1),
    eps: st.SearchStrategy[float] | None = None,
    elements: st.SearchStrategy[float] | None = None,
    gains: st.SearchStrategy[float] | None = None,
) -> dict[str, Any]:
    """x (batch <= 3 rows of n <= 5) scaled by 10^k, k in scales, gain |w| <= 2, eps, upstream |g| <= 2."""
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    n = draw(st.integers(1, SOFTMAX_SIDE))
    scale = 10.0 ** draw(st.one_of(st.sampled_from(scales), st.integers(*scales)))  # the ends, then any
    x = draw(float_arrays((*batch, n), elements if elements is not None else st.floats(-4, 4))) * scale
    gain = draw(float_arrays((n,), gains if gains is not None else st.floats(-2, 2)))
    upstream = draw(float_arrays((*batch, n), st.floats(-2, 2)))
    value = draw(eps if eps is not None else st.floats(1e-3, 1.0))
    return {"x": x, "gain": gain, "eps": value, "upstream": upstream}


log_eps = st.integers(-12, 0).map(lambda k: 10.0**k)
# every finite eps > 0 the spec accepts, down to the subnormals (2^-1074 = 5e-324 included)
any_positive_eps = st.one_of(log_eps, st.floats(5e-324, 1e-300), st.just(5e-324), st.floats(1.0, 1e300))

AXIS_OPS = ("sum", "max", "logsumexp", "softmax", "log_softmax")


@st.composite
def axis_out_of_range(draw: st.DrawFn) -> dict[str, Any]:
    """An axis op with an axis outside [-ndim, ndim), or cross_entropy / rms_norm of a 0-d input. Sides of
    0 are drawn too: an axis that does not exist is out of range, never 'empty' (an axis taken modulo
    ndim would name an empty side that is not the one asked for)."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
    ndim = len(shape)
    which = draw(st.sampled_from([*AXIS_OPS, "cross_entropy", "rms_norm"]))
    if which == "cross_entropy":
        return {"op": which, "inputs": [np.ones(())], "params": {"targets": np.asarray(0)}}
    if which == "rms_norm":
        return {"op": which, "inputs": [np.ones(()), np.ones(1)], "params": {"eps": 1e-6}}
    axis = draw(st.one_of(st.integers(ndim, ndim + 3), st.integers(-ndim - 3, -ndim - 1)))
    return {"op": which, "inputs": [np.ones(shape)], "params": {"axis": axis}}


@st.composite
def axis_of_wrong_type(draw: st.DrawFn) -> dict[str, Any]:
    axis = draw(st.sampled_from([1.0, 0.0, True, False, "0", None]))
    return {"op": draw(st.sampled_from(AXIS_OPS)), "inputs": [np.ones((2, 2))], "params": {"axis": axis}}


@st.composite
def empty_axis(draw: st.DrawFn) -> dict[str, Any]:
    """An op over an axis of size 0 (cross_entropy: empty classes or an empty batch axis)."""
    shape = list(draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3)))
    axis = draw(st.integers(0, len(shape) - 1))
    which = draw(st.sampled_from([*AXIS_OPS, "cross_entropy", "rms_norm"]))
    if which == "rms_norm":
        shape[-1] = 0
        return {"op": which, "inputs": [np.ones(shape), np.ones(0)], "params": {"eps": 1e-6}}
    shape[axis] = 0
    if which == "cross_entropy":
        targets = np.zeros(shape[:-1], dtype=np.int64)
        return {"op": which, "inputs": [np.ones(shape)], "params": {"targets": targets}}
    negative = draw(st.booleans())  # the same axis counted from the end
    return {
        "op": which,
        "inputs": [np.ones(shape)],
        "params": {"axis": axis - len(shape) if negative else axis},
    }


@st.composite
def bad_targets(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """cross_entropy with targets of a float/bool dtype, out of [0, classes), or of the wrong shape."""
    case = draw(ce_case())
    batch = case["x"].shape[:-1]
    classes = case["x"].shape[-1]
    if kind == "dtype":
        dtype = draw(st.sampled_from([np.float64, np.float32, np.bool_]))
        targets = case["targets"].astype(dtype)
    elif kind == "range":
        targets = case["targets"].copy()
        bad = draw(st.one_of(st.integers(classes, classes + 5), st.integers(-5, -1)))
        targets.reshape(-1)[draw(st.integers(0, targets.size - 1))] = bad  # a view of the copy
    else:
        other = draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3).filter(lambda s: s != batch))
        targets = np.zeros(other, dtype=np.int64)
    return {"op": "cross_entropy", "inputs": [case["x"]], "params": {"targets": targets}}


@st.composite
def bad_eps(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    if kind == "value":
        eps: Any = draw(
            st.one_of(
                st.floats(max_value=0.0), st.sampled_from([float("nan"), float("inf"), -float("inf"), 0, -1])
            )
        )
    else:
        eps = draw(st.sampled_from([True, False, "1e-6", None, [1e-6], np.float32(1e-6)]))
    n = draw(st.integers(1, 4))
    return {"op": "rms_norm", "inputs": [np.ones((2, n)), np.ones(n)], "params": {"eps": eps}}


@st.composite
def bad_gain(draw: st.DrawFn) -> dict[str, Any]:
    x_shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
    gain = draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=4).filter(lambda s: s != x_shape[-1:]))
    return {"op": "rms_norm", "inputs": [np.ones(x_shape), np.ones(gain)], "params": {"eps": 1e-6}}


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


# -------------------------------------------------------- Stage 08 block: x + MLP(RMSNorm(x))

BLOCK_GAIN_FAULTS = ("mutate-gain", "mutate-gain-grad", "replace-gain")
GAIN_SWAPS = ("vector", "element", "list")
block_eps = st.floats(1e-8, 4.0)
bad_eps_value = st.one_of(
    st.just(0.0), st.just(-0.0), st.floats(-1e6, -1e-300), non_finite_float, st.integers(-5, 0)
)


@st.composite
def block_widths(draw: st.DrawFn, max_width: int = 4) -> list[int]:
    """C, zero to two hidden widths, C: a block whose residual connects."""
    width = draw(st.integers(1, max_width))
    hidden = draw(st.lists(st.integers(1, max_width), min_size=0, max_size=2))
    return [width, *hidden, width]


@st.composite
def block_case(draw: st.DrawFn) -> dict[str, Any]:
    """widths, use_bias, T and eps of a small block."""
    return {
        "widths": draw(block_widths()),
        "use_bias": draw(st.booleans()),
        "tokens": draw(token_count),
        "eps": draw(block_eps),
    }


def bad_norm_config() -> st.SearchStrategy[dict[str, Any]]:
    """One RMSNormPlan argument of the right type and a refused value."""
    return st.one_of(
        st.fixed_dictionaries({"width": st.integers(-5, 0)}),
        st.fixed_dictionaries({"eps": bad_eps_value}),
        st.fixed_dictionaries({"gain_init": non_finite_float}),
        st.fixed_dictionaries({"name": st.sampled_from(["", " ", "\t"])}),
    )


def bad_norm_type() -> st.SearchStrategy[dict[str, Any]]:
    """One RMSNormPlan argument of a refused type (bool included)."""
    return st.one_of(
        st.fixed_dictionaries({"width": not_an_exact_int}),
        st.fixed_dictionaries({"eps": not_a_real}),
        st.fixed_dictionaries({"gain_init": not_a_real}),
        st.fixed_dictionaries({"name": st.sampled_from([7, None, 1.5, b"n"])}),
    )


@st.composite
def norm_width_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """An MLP over widths beside a norm of another width."""
    widths = draw(block_widths())
    return {"widths": widths, "norm_width": draw(st.integers(1, 5).filter(lambda w: w != widths[0]))}


@st.composite
def residual_mismatch(draw: st.DrawFn) -> dict[str, Any]:
    """An MLP whose output width is not its input width (the residual cannot add them)."""
    widths = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4).filter(lambda w: w[-1] != w[0]))
    return {"widths": widths, "use_bias": draw(st.booleans()), "eps": draw(block_eps)}


@st.composite
def over_block_parameters(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "shortfall": draw(st.integers(1, 100))}


@st.composite
def over_block_graph(draw: st.DrawFn) -> dict[str, Any]:
    via = draw(st.sampled_from(["forward", "plan"]))
    return {**draw(block_case()), "shortfall": draw(st.integers(1, 300)), "via": via}


@st.composite
def gain_swap(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "mode": draw(st.sampled_from(GAIN_SWAPS))}


@st.composite
def broken_block_executor(draw: st.DrawFn) -> dict[str, Any]:
    return {**draw(block_case()), "executor": draw(st.sampled_from(BLOCK_GAIN_FAULTS))}


@st.composite
def precedence_block_plan(draw: st.DrawFn) -> dict[str, Any]:
    """A valid BlockPlan.rmsnorm_mlp call: widths and eps, no budget."""
    return {"widths": draw(block_widths()), "eps": draw(block_eps)}


@st.composite
def inject_norm_eps(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, eps=draw(bad_eps_value))


@st.composite
def inject_residual_width(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    widths = list(case["widths"])
    widths[-1] = draw(st.integers(1, 5).filter(lambda w: w != widths[0]))
    return naming(case, widths=widths)


@st.composite
def precedence_block_forward(draw: st.DrawFn) -> dict[str, Any]:
    """A valid Block.forward call: widths and T, no budget, no replaced gain."""
    return {"widths": draw(block_widths()), "tokens": draw(token_count), "use_bias": False}


@st.composite
def inject_gain_swap(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    return naming(case, replace=draw(st.sampled_from(GAIN_SWAPS)))


@st.composite
def inject_block_layer_swap(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """One of the block's MLP layers gets a fresh weight Matrix of equal data between forwards."""
    return naming(case, mlp_replace=draw(st.integers(0, len(case["widths"]) - 2)))


# ------------------------------------------- check precedence of the Stage 06/08 tensor ops


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


# ---------------------------------------------------------------- first offender (Stage 05 constructors)

# Bad elements whose messages tell them apart ("got 'a' (str)", "got inf", ...): no repr is inside another's.
distinct_bad_elements = ("a", "b", True, None, 1j, float("nan"), float("inf"), float("-inf"))
# Where two offenders sit in a matrix: the layouts that tell row-major order from column-major order
# (anti-diagonal) and from reversed order (same row, same column).
OFFENDER_LAYOUTS = ("same row", "same column", "anti-diagonal")


@st.composite
def two_bad_elements(draw: st.DrawFn) -> dict[str, Any]:
    """A matrix's rows with two distinguishable bad elements; first = the one earlier in row-major order."""
    layout = draw(st.sampled_from(OFFENDER_LAYOUTS))
    m = 1 if layout == "same row" else draw(st.integers(2, 4))
    k = 1 if layout == "same column" else draw(st.integers(2, 4))
    first_row, second_row = (0, 0) if m == 1 else sorted(draw(st.permutations(range(m)))[:2])
    columns = [0, 0] if k == 1 else sorted(draw(st.permutations(range(k)))[:2])
    if layout == "anti-diagonal":
        columns.reverse()  # the second offender is the first in column-major order
    first, second = draw(st.permutations(distinct_bad_elements))[:2]
    rows: list[list[Any]] = draw(matrix_rows(m, k))
    rows[first_row][columns[0]], rows[second_row][columns[1]] = first, second
    return {"rows": rows, "first": first, "second": second}


# ---------------------------------------------------------------- a gradient row's own domains (Stage 06/08)


def row_domain(spec_row: Mapping[str, Any], name: str) -> st.SearchStrategy[Any]:
    """The values the row's `domain` (an input) or `constants` (a parameter) gives name: the tests draw
    from the spec's ranges, so a range the implementation does not honour fails them."""
    return from_domain({**spec_row["domain"], **spec_row.get("constants", {})}[name])


def rms_row_case(spec_row: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An rms_norm case whose x, gain and eps come from the gradient row's domains (no extra scale)."""
    return rms_case(
        scales=(0, 0),
        eps=row_domain(spec_row, "eps"),
        elements=row_domain(spec_row, "x"),
        gains=row_domain(spec_row, "w"),
    )

"""Stage 07: InitSpec, LinearPlan, ModelPlan, MLP inputs and seals."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

from contracts.spec_suite.strategies.common import non_finite_float, not_an_exact_int

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

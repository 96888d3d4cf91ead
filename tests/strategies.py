"""Every hypothesis strategy the suite uses, in one place (a section per stage; append only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

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
non_finite = st.sampled_from([float("nan"), float("inf"), float("-inf")])
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
    return {**config, "tokens": tokens}


@st.composite
def tokens_with_bad_type(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(embedding_config)
    tokens: list[Any] = draw(st.lists(st.integers(0, config["V"] - 1), min_size=1, max_size=config["C"]))
    tokens[draw(st.integers(0, len(tokens) - 1))] = draw(not_an_exact_int)
    return {**config, "tokens": tokens}


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
    config[draw(st.sampled_from(["V", "C", "D"]))] = draw(bad)
    return config


@st.composite
def with_bad_element(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A Vector's elements or a Matrix's rows with one element replaced by a bad one."""
    m, k = draw(small_dim), draw(small_dim)
    rows: list[list[Any]] = draw(matrix_rows(m, k))
    r = draw(st.integers(0, m - 1))
    rows[r][draw(st.integers(0, k - 1))] = draw(bad)
    return {"elements": rows[r]} if draw(st.booleans()) else {"rows": rows}


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

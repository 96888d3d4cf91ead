"""Stage 05: vectors, matrices, embeddings, their bad inputs and first offenders."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from contracts.spec_suite.strategies.common import (
    finite_floats,
    naming,
    not_a_sequence_of_tokens,
    not_an_exact_int,
)

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


# ---------------------------------------------------------------- operand data and the value bound

# Magnitudes past S05.rule.operand-bound's limit (half of float64's max, 8.988e307) on their own.
BEYOND_LIMIT = st.floats(9e307, 1.7e308)
sign = st.sampled_from([1.0, -1.0])


def operand_kind(case: dict[str, Any]) -> str:
    """vector (x, y), matrix (a, b) or embedding (V, C, D, tokens), from the case's operands."""
    return "vector" if "x" in case else "matrix" if "a" in case else "embedding"


SIDES = {"vector": ("left", "right"), "matrix": ("left", "right"), "embedding": ("token", "position")}


@st.composite
def operand_cell(draw: st.DrawFn, case: dict[str, Any], data: Any, side: str | None = None) -> dict[str, Any]:
    """One datum of one of the case's operands, assigned `data` after it was built (S05.rule.operand-bound
    reads it); in an Embedding a row the forward reads (a token row of an id, a position row < T)."""
    kind = operand_kind(case)
    side = side or draw(st.sampled_from(SIDES[kind]))
    if kind == "vector":
        return {"side": side, "at": [draw(st.integers(0, len(case["x"]) - 1))], "data": data}
    if kind == "matrix":
        rows = case["a"] if side == "left" else case["b"]
        at = [draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, len(rows[0]) - 1))]
        return {"side": side, "at": at, "data": data}
    tokens = case["tokens"]
    row = draw(st.sampled_from(tokens)) if side == "token" else draw(st.integers(0, len(tokens) - 1))
    return {"side": side, "at": [row, draw(st.integers(0, case["D"] - 1))], "data": data}


@st.composite
def operand_data(draw: st.DrawFn, bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """A valid operation (sized_op) one of whose operand data is assigned `bad` after it was built."""
    case = draw(sized_op())
    return {**case, "cells": [draw(operand_cell(case, draw(bad)))]}


@st.composite
def overflowing_operands(draw: st.DrawFn) -> dict[str, Any]:
    """A valid operation with one datum beyond the limit in each operand (each table): every bound of
    S05.rule.operand-bound passes it (a + b, K·a·b, token + position)."""
    case = draw(sized_op())
    cells = [
        draw(operand_cell(case, draw(sign) * draw(BEYOND_LIMIT), side)) for side in SIDES[operand_kind(case)]
    ]
    return {**case, "cells": cells}


@st.composite
def inject_operand_data(draw: st.DrawFn, case: dict[str, Any], bad: st.SearchStrategy[Any]) -> dict[str, Any]:
    """One operand datum assigned a bad value after the operands were built (a cell, named)."""
    datum = draw(bad)
    cell = draw(operand_cell(case, datum))
    return naming(case, cells=[*case.get("cells", []), cell], named=datum)


@st.composite
def inject_operand_overflow(draw: st.DrawFn, case: dict[str, Any]) -> dict[str, Any]:
    """Every operand datum (every table entry) built beyond the limit: a cell injected by another fault
    still overrides one of them."""
    huge = draw(sign) * draw(BEYOND_LIMIT)
    kind = operand_kind(case)
    if kind == "embedding":
        return naming(case, fill=huge)
    left, right = ("x", "y") if kind == "vector" else ("a", "b")
    grown = {
        key: [huge] * len(case[key]) if kind == "vector" else [[huge] * len(row) for row in case[key]]
        for key in (left, right)
        if isinstance(case[key], list)
    }
    return naming(case, **grown)

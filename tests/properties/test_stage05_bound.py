"""S05.rule.operand-bound and S05.fail.operand-overflow: Vector.add, Vector.dot, Matrix.matmul and
Embedding.forward prove every value finite before their first node, or refuse; never stop mid-run.

The expected bound comes from the rule's statement, computed exactly (mpmath); the operation's own
arithmetic is only checked against it.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st
from mpmath import mpf

from contracts import CountingValue
from contracts.engines import Engine
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.forward_bound import LIMIT, MARGIN
from contracts.spec_suite.cases.stage05 import built_operation
from contracts.spec_suite.probes import Attempt, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, reference_only, require, row
from contracts.spec_suite.strategies.common import NUMPY_DTYPES, numpy_scalar

pytestmark = reference_only(OWN_TYPES)

STEP = {"add": "add", "dot": "dot", "matmul": "matmul", "embedding": "token + position"}
unit = st.one_of(st.sampled_from([1.0, -1.0, 0.5]), st.floats(-1.0, 1.0, allow_nan=False))
# per-operand scales 10^k: one operand alone (add, embedding) or a product of two (dot, matmul) straddles
# float64's 1e308
exponent = st.one_of(st.sampled_from([0, 154, 155, 160, 300, 307, 308]), st.integers(-2, 308))


# token row 1 and position row 0 are read; the unread token row 0 alone would pass the limit
EMBEDDING_NEAR_LIMIT = {"token": [[1e308], [4e307]], "position": [[4e307]]}


def scaled(draw: st.DrawFn, rows: int, cols: int) -> list[list[float]]:
    scale = 10.0 ** draw(exponent)
    return [[draw(unit) * scale for _ in range(cols)] for _ in range(rows)]


@st.composite
def scaled_operation(draw: st.DrawFn) -> dict[str, Any]:
    """A valid operation whose operands (an Embedding's tables) each have a drawn magnitude."""
    case = draw(s.sized_op())
    if case["op"] in ("add", "dot"):
        return {**case, "x": scaled(draw, 1, len(case["x"]))[0], "y": scaled(draw, 1, len(case["y"]))[0]}
    if case["op"] == "matmul":
        a, b = case["a"], case["b"]
        return {**case, "a": scaled(draw, len(a), len(a[0])), "b": scaled(draw, len(b), len(b[0]))}
    tables = {"token": scaled(draw, case["V"], case["D"]), "position": scaled(draw, case["C"], case["D"])}
    return {**case, "tables": tables}


def largest(rows: list[list[float]]) -> Any:
    return max(abs(mpf(value)) for row in rows for value in row)


def statement_bound(case: dict[str, Any]) -> Any:
    """The rule's bound, exactly: a + b; K·a·b; max|W_token[id_t]| + max|W_position[t]| over rows read."""
    op = case["op"]
    if op == "add":
        return largest([case["x"]]) + largest([case["y"]])
    if op == "dot":
        return len(case["x"]) * largest([case["x"]]) * largest([case["y"]])
    if op == "matmul":
        return len(case["b"]) * largest(case["a"]) * largest(case["b"])
    tables, tokens = case["tables"], case["tokens"]
    return largest([tables["token"][i] for i in tokens]) + largest(tables["position"][: len(tokens)])


@pytest.mark.spec("S05.rule.operand-bound", "S05.fail.operand-overflow")
@given(case=scaled_operation())
@example(case={"op": "add", "x": [1e308, 0.0], "y": [-1.0, 2.0]})
# each term below the limit, their bound (a + b, K·a·b) above it, the values themselves still finite
@example(case={"op": "add", "x": [6e307], "y": [6e307]})
@example(case={"op": "dot", "x": [1e154, 1e154], "y": [6e153, -6e153]})
@example(case={"op": "matmul", "a": [[1e154, 1e154]], "b": [[6e153], [6e153]]})
@example(case={"op": "dot", "x": [1e154, -1e154], "y": [4e153, 1.0]})
@example(case={"op": "embedding", "V": 2, "C": 1, "D": 1, "tokens": [1], "tables": EMBEDDING_NEAR_LIMIT})
def test_an_operation_is_refused_exactly_when_its_bound_passes_the_limit(
    engine: Engine, case: dict[str, Any]
) -> None:
    """Below the limit the operation runs to the end and every value it returns is finite; above it the
    operation is refused before any node, naming its step."""
    require(engine, "shapes")
    bound = statement_bound(case)
    assume(abs(bound - LIMIT) > MARGIN * LIMIT)
    run, values = built_operation(case)
    if bound < LIMIT:
        event(f"{case['op']}: admitted")
        result: Any = run(None)
        data = [result.data] if case["op"] == "dot" else result.data()
        flat = [value for item in data for value in (item if isinstance(item, list) else [item])]
        assert all(map(math.isfinite, flat)), flat
        return
    event(f"{case['op']}: refused")
    attempt = Attempt(lambda: run(None), parameters=values)
    assert_refused(row("S05.fail.operand-overflow"), attempt)
    with pytest.raises(OverflowError, match=re.escape(f"values of step '{STEP[case['op']]}' may reach")):
        attempt.action()


@pytest.mark.spec("S05.rule.operand-bound")
@given(op=st.sampled_from(["add", "dot", "matmul"]), size=s.small_dim, data=st.data())
def test_operands_of_one_sign_at_the_limit_reach_the_bound(
    engine: Engine, op: str, size: int, data: st.DataObject
) -> None:
    """Every operand datum of one sign at its largest magnitude: the result equals the bound, so the bound
    is attained (a refusal is never for values far below the limit)."""
    require(engine, "shapes")
    a, b = data.draw(st.floats(1.0, 1e150)), data.draw(st.floats(1.0, 1e150))
    if op == "matmul":
        case: dict[str, Any] = {"op": op, "a": [[a] * size], "b": [[b]] * size}
    else:
        case = {"op": op, "x": [a] * size, "y": [b] * size}
    run, _ = built_operation(case)
    result: Any = run(None)
    got = result.data if op == "dot" else result.data()[0][0] if op == "matmul" else result.data()[0]
    bound = statement_bound(case)
    assert abs(mpf(got) - bound) <= mpf("1e-12") * bound, (got, bound)


@pytest.mark.spec("S05.fail.operand-data-type")
@given(data=st.data(), dtype=st.sampled_from(NUMPY_DTYPES))
def test_every_numpy_dtype_but_float64_is_refused_before_any_node(
    engine: Engine, data: st.DataObject, dtype: str
) -> None:
    """A numpy scalar of each dtype (float16 to longdouble, every int width), at values up to its limits,
    assigned to an operand datum: refused with nothing built; a float64 one is computed as a float."""
    require(engine, "shapes")
    case = data.draw(s.operand_data(numpy_scalar((dtype,))))
    run, values = built_operation(case)
    assert_refused(
        row("S05.fail.operand-data-type"),
        Attempt(lambda: run(None), parameters=values, offending=case["cells"][0]["data"]),
    )
    accepted = {**case, "cells": [{**case["cells"][0], "data": np.float64(0.5)}]}
    counter = CountingValue.reset()
    built_operation(accepted)[0](None)
    assert counter.operations > 0

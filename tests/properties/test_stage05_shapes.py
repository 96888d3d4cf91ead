"""Stage 05 properties: costs, budgets and every failure row, parametrized from the spec."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from contracts import CountingValue, EmbeddingPlan, Matrix, Value, Vector
from contracts.core.errors import ResourceBudgetError, ShapeError
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite import strategies as s
from contracts.spec_suite.cases.stage05 import ATTEMPTS, MEASURE, op_of, operation, weight_attempt
from contracts.spec_suite.probes import Attempt, CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import OWN_TYPES, params, reference_only, require, row, rows

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)


@pytest.mark.parametrize("spec_row", params(rows(stage="05", kind="formula")))
@given(data=st.data())
def test_formula_equals_planner_and_executor(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """For random shapes, the spec formula == the planner's count == what the executor built."""
    require(engine, "shapes", spec_row.id)
    symbols = data.draw(s.symbol_values(spec_row["symbols"]))
    assume(symbols.get("T", 0) <= symbols.get("C", 0) or "T" not in symbols)
    expected = evaluate(spec_row["expr"], symbols)
    measured = MEASURE[spec_row.id](symbols)
    assert {kind: expected for kind in spec_row["compared_with"]} == {
        kind: measured[kind] for kind in spec_row["compared_with"]
    }


ENTRY_NAME = {
    "add": "Vector.add",
    "dot": "Vector.dot",
    "matmul": "Matrix.matmul",
    "embedding": "Embedding.forward",
}
COST_ROW = {
    "add": "S05.cost.vector-add",
    "dot": "S05.cost.dot",
    "matmul": "S05.cost.matmul",
    "embedding": "S05.cost.embedding-forward",
}


def spec_cost(case: dict[str, Any]) -> int:
    """The case's graph cost, evaluated from its spec formula."""
    op = op_of(case)
    if op in ("add", "dot"):
        symbols = {"D": len(case["x"]), "K": len(case["x"])}
    elif op == "matmul":
        symbols = {"M": len(case["a"]), "K": len(case["b"]), "N": len(case["b"][0])}
    else:
        symbols = {"V": case["V"], "C": case["C"], "D": case["D"], "T": len(case["tokens"])}
    formula = row(COST_ROW[op])
    return int(evaluate(formula["expr"], {k: symbols[k] for k in formula["symbols"]}))


@pytest.mark.spec("S05.rule.budget-boundary", "S05.fail.graph-budget", "S05.contract.execution-cost")
@given(case=s.sized_op())
def test_graph_budget_boundary(engine: Engine, case: dict[str, Any]) -> None:
    """budget = cost - 1: refused with zero operations; budget = cost: exactly cost nodes."""
    require(engine, "shapes")
    cost = spec_cost(case)
    run = operation(case)
    assert_refused(row("S05.fail.graph-budget"), Attempt(lambda: run(cost - 1)))
    with pytest.raises(ResourceBudgetError) as raised:
        run(cost - 1)
    where = ENTRY_NAME[op_of(case)]
    assert f"{where}: needs {cost} graph nodes, budget is {cost - 1} (cost must be <= budget)" == str(
        raised.value
    )
    counter = CountingValue.reset()
    run(cost)
    assert cost == counter.operations


@pytest.mark.spec("S05.rule.budget-boundary", "S05.fail.parameter-budget")
@given(config=s.embedding_config)
def test_parameter_budget_boundary(engine: Engine, config: dict[str, int]) -> None:
    """A parameter budget of P - 1 calls the initializer 0 times; P calls it exactly P times."""
    require(engine, "embedding")
    needed = int(evaluate(row("S05.params.embedding")["expr"], config))
    refused = ATTEMPTS["S05.fail.parameter-budget"]({**config, "budget": needed - 1})
    assert_refused(row("S05.fail.parameter-budget"), refused)
    with pytest.raises(ResourceBudgetError) as raised:
        refused.action()
    expected = f"EmbeddingPlan: needs {needed} parameters, budget is {needed - 1} (cost must be <= budget)"
    assert expected == str(raised.value)
    initializer = CountingInitializer()
    EmbeddingPlan(config["V"], config["C"], config["D"], needed).materialize(initializer)
    assert needed == initializer.calls


FAILURE_CASES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "S05.fail.ragged-row": s.ragged_rows().map(lambda rows: {"rows": rows}),
    "S05.fail.container-type": s.wrong_container(),
    "S05.fail.operand-type": s.wrong_operand,
    "S05.fail.vector-length": s.unequal_lengths(),
    "S05.fail.matmul-dim": s.mismatched_matmul(),
    "S05.fail.weight-config": s.wrong_weight_shapes(),
    "S05.fail.token-id": s.tokens_with_bad_id(),
    "S05.fail.parameter-budget": s.over_parameter_budget(),
    "S05.fail.graph-budget": s.sized_op().map(lambda case: {**case, "budget": 0}),
    "S05.fail.element-type": s.with_bad_element(s.not_a_number),
    "S05.fail.element-bool": s.with_bad_element(st.booleans()),
    "S05.fail.element-nonfinite": s.with_bad_element(s.non_finite_element),
    "S05.fail.element-range": s.with_bad_element(s.int_beyond_float_range),
    "S05.fail.value-type": s.not_a_value_type,
    "S05.fail.empty-dimension": s.empty_shapes(),
    "S05.fail.token-type": s.tokens_with_bad_type(),
    "S05.fail.sequence-length": s.tokens_too_long(),
    "S05.fail.sequence-empty": s.tokens_empty(),
    "S05.fail.config-type": s.bad_config(s.not_an_exact_int),
    "S05.fail.config-range": s.bad_config(st.integers(-5, 0)),
    "S05.fail.budget-type": s.budgeted_op().flatmap(
        lambda case: s.budget_of_wrong_type.filter(lambda b: b is not None).map(
            lambda b: {**case, "budget": b}
        )
    ),
    "S05.fail.initializer-type": s.initializer_failure(s.not_a_real),
    "S05.fail.initializer-nonfinite": s.initializer_failure(
        st.one_of(s.non_finite_float, s.int_beyond_float_range)
    ),
    "S05.fail.operand-data-type": s.operand_data(s.not_a_float_datum),
    "S05.fail.operand-non-finite": s.operand_data(st.one_of(s.non_finite_float, s.int_beyond_float_range)),
    "S05.fail.operand-overflow": s.overflowing_operands(),
    "S05.fail.budget-value": s.budgeted_op().flatmap(
        lambda case: st.integers(-100, -1).map(lambda b: {**case, "budget": b})
    ),
}


def capability(row_id: str) -> str:
    return "embedding" if "config" in row_id or "token" in row_id or "parameter" in row_id else "shapes"


@pytest.mark.spec("S05.rule.messages")
@pytest.mark.parametrize("spec_row", params(rows(stage="05", kind="failure")))
@given(data=st.data())
def test_failure_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Every generated bad input raises the row's exception and message with zero side effects."""
    require(engine, capability(spec_row.id), spec_row.id)
    case = data.draw(FAILURE_CASES[spec_row.id])
    assert_refused(spec_row, ATTEMPTS[spec_row.id](case))


# Every example refuses every failure row behind the contract (none is sampled); the bad inputs' variety is
# test_failure_row's, at the profile's count per row. 10 examples per contract tie it to its rows.
@pytest.mark.parametrize("spec_row", params(rows(stage="05", kind="contract")))
@settings(max_examples=s.examples(10, quick=5))
@given(data=st.data())
def test_contract_row(engine: Engine, spec_row: SpecRow, data: st.DataObject) -> None:
    """Each contract is enforced where the table says: every failure row behind it refuses."""
    require(engine, "shapes", spec_row.id)
    for failure_id in spec_row["enforced_by"]:
        case = data.draw(FAILURE_CASES[failure_id])
        assert_refused(row(failure_id), ATTEMPTS[failure_id](case))


@pytest.mark.spec("S05.rule.vector-shape")
@given(elements=st.lists(s.finite_floats, min_size=1, max_size=8), data=st.data())
def test_a_vector_keeps_the_shape_it_was_built_with(
    engine: Engine, elements: list[float], data: st.DataObject
) -> None:
    """Vector(elements) has shape (D,) and length D = len(elements), before and after add and dot read it;
    a Matrix has (M, K)."""
    require(engine, "shapes")
    vector, other = Vector(elements), Vector(data.draw(s.matrix_rows(1, len(elements)))[0])
    before = (vector.shape, len(vector))
    vector.add(other)
    vector.dot(other)
    assert ((len(elements),), len(elements)) == before == (vector.shape, len(vector))
    m, k = data.draw(s.small_dim), data.draw(s.small_dim)
    assert (m, k) == Matrix(data.draw(s.matrix_rows(m, k))).shape


@pytest.mark.spec("S05.rule.matmul-shape")
@given(data=st.data())
def test_matmul_shape_and_entries(engine: Engine, data: st.DataObject) -> None:
    """(M, K) @ (K, N) is (M, N) with entry (m, n) = sum over k of A[m][k] * B[k][n]."""
    require(engine, "shapes")
    m, k, n = data.draw(s.small_dim), data.draw(s.small_dim), data.draw(s.small_dim)
    a, b = data.draw(s.matrix_rows(m, k)), data.draw(s.matrix_rows(k, n))
    product = Matrix(a).matmul(Matrix(b))
    expected = [[sum(a[i][j] * b[j][c] for j in range(k)) for c in range(n)] for i in range(m)]
    assert (m, n) == product.shape
    np.testing.assert_allclose(product.data(), expected, rtol=1e-12, atol=1e-9)


@pytest.mark.spec("S05.rule.embedding-shapes")
@given(case=s.sized_op().filter(lambda c: c["op"] == "embedding"))
def test_embedding_rows_are_token_plus_position(engine: Engine, case: dict[str, Any]) -> None:
    """Output row t is token row id_t plus position row t; shapes (V, D), (C, D), (T, D)."""
    require(engine, "embedding")
    plan = EmbeddingPlan(case["V"], case["C"], case["D"])
    embedding = plan.materialize(lambda table, r, c: (r + 1) * (10.0 if table == "token" else 0.5) + c)
    out = embedding.forward(case["tokens"])
    token, position = embedding.token_weight.data(), embedding.position_weight.data()
    expected = [
        [token[i][d] + position[t][d] for d in range(case["D"])] for t, i in enumerate(case["tokens"])
    ]
    assert ((case["V"], case["D"]), (case["C"], case["D"]), (len(case["tokens"]), case["D"])) == (
        embedding.token_weight.shape,
        embedding.position_weight.shape,
        out.shape,
    )
    assert expected == out.data()


@pytest.mark.spec("S05.rule.vector-values")
@given(data=st.data())
def test_vector_add_and_dot_values(engine: Engine, data: st.DataObject) -> None:
    """x + y is elementwise and x . y is the sum of products, for any equal-length vectors."""
    require(engine, "shapes")
    n = data.draw(s.small_dim)
    x, y = data.draw(s.matrix_rows(2, n))
    total = Vector(x).add(Vector(y))
    assert [a + b for a, b in zip(x, y)] == total.data()
    assert sum(a * b for a, b in zip(x, y)) == pytest.approx(
        Vector(x).dot(Vector(y)).data, rel=1e-12, abs=1e-9
    )


@pytest.mark.spec("S05.rule.value-identity")
@given(data=st.data())
def test_value_elements_keep_identity(engine: Engine, data: st.DataObject) -> None:
    """A Value element is stored itself, a shared one at every position it was given (aliases stay
    visible to a seal), in a Matrix and in a Vector."""
    require(engine, "shapes")
    m, k = data.draw(s.small_dim), data.draw(s.small_dim)
    shared = Value(data.draw(s.finite_floats))
    mask = data.draw(st.lists(st.lists(st.booleans(), min_size=k, max_size=k), min_size=m, max_size=m))
    numbers = data.draw(s.matrix_rows(m, k))
    rows = [[shared if use else Value(x) for use, x in zip(flags, row)] for flags, row in zip(mask, numbers)]
    stored = [list(r) for r in Matrix(rows, CountingValue).rows]
    assert [list(map(id, r)) for r in rows] == [list(map(id, r)) for r in stored]
    assert list(map(id, rows[0])) == list(map(id, Vector(rows[0], CountingValue).values))


@pytest.mark.spec("S05.rule.number-element")
@given(data=st.data())
def test_number_elements_become_new_values(engine: Engine, data: st.DataObject) -> None:
    """Every number element becomes its own new Value of the value_type holding float(x), ints too."""
    require(engine, "shapes")
    m, k = data.draw(s.small_dim), data.draw(s.small_dim)
    number = st.one_of(s.finite_floats, st.integers(-1000, 1000))
    rows = data.draw(st.lists(st.lists(number, min_size=k, max_size=k), min_size=m, max_size=m))
    for stored in (tuple(Matrix(rows, CountingValue).values()), Vector(rows[0], CountingValue).values):
        given = [x for r in rows for x in r][: len(stored)]
        assert [(CountingValue, float(x)) for x in given] == [(type(v), v.data) for v in stored]
        assert len(stored) == len({id(v) for v in stored})


@pytest.mark.spec("S05.rule.initializer-positions")
@given(config=s.embedding_config)
def test_initializer_called_once_per_position(engine: Engine, config: dict[str, int]) -> None:
    """Each (table, row, col) is drawn exactly once, in row-major order, the token table first, and its
    Value holds what was drawn there."""
    require(engine, "embedding")
    calls: list[tuple[str, int, int]] = []

    def initializer(table: str, r: int, c: int) -> float:
        calls.append((table, r, c))
        return (1.0 if table == "token" else -1.0) * (1000 * r + c + 1)

    embedding = EmbeddingPlan(config["V"], config["C"], config["D"]).materialize(initializer)
    expected = [("token", r, c) for r in range(config["V"]) for c in range(config["D"])] + [
        ("position", r, c) for r in range(config["C"]) for c in range(config["D"])
    ]
    assert expected == calls
    tables = {"token": embedding.token_weight.data(), "position": embedding.position_weight.data()}
    assert [initializer(*position) for position in expected] == [tables[t][r][c] for t, r, c in expected]


SIZE_LABEL = {"V": "vocab_size V", "C": "context_length C", "D": "width D"}


@pytest.mark.spec("S05.fail.config-type", "S05.fail.config-range")
@given(case=st.one_of(s.bad_config(s.not_an_exact_int), s.bad_config(st.integers(-5, 0))))
def test_a_config_error_names_the_broken_size(engine: Engine, case: dict[str, Any]) -> None:
    """The message names the size (V, C or D) that the drawn case broke, and its value."""
    require(engine, "embedding")
    (field,) = [name for name in SIZE_LABEL if case[name] is case["bad"]]
    with pytest.raises((TypeError, ValueError)) as raised:
        ATTEMPTS["S05.fail.config-type"](case).action()
    message = str(raised.value)
    assert message.startswith(f"EmbeddingPlan: {SIZE_LABEL[field]} must be "), message
    assert f"got {case['bad']!r}" in message


# per check of the whole-input scan: the bad id for a position, its exception, what the message says
TOKEN_FAULTS: dict[str, tuple[Callable[[int, int], object], type[Exception], str]] = {
    "S05.fail.token-id": (lambda at, vocab: vocab + at, IndexError, "token_ids[{at}] = {bad} must"),
    "S05.fail.token-type": (lambda at, vocab: at + 0.5, TypeError, "token_ids[{at}] must be an exact int"),
}


@pytest.mark.parametrize("spec_row", params(row(row_id) for row_id in TOKEN_FAULTS))
@given(config=s.embedding_config.filter(lambda c: c["C"] >= 2), data=st.data())
def test_the_first_bad_token_is_the_one_named(
    engine: Engine, spec_row: SpecRow, config: dict[str, int], data: st.DataObject
) -> None:
    """With two bad ids of one kind in a sequence, the refusal names the first position (the whole-input
    check reads the ids in order, as the first offending element wins elsewhere)."""
    require(engine, "embedding", spec_row.id)
    make_bad, exception, named = TOKEN_FAULTS[spec_row.id]
    vocab, context = config["V"], config["C"]
    tokens: list[Any] = data.draw(st.lists(st.integers(0, vocab - 1), min_size=2, max_size=context))
    first, second = sorted(
        data.draw(st.lists(st.integers(0, len(tokens) - 1), min_size=2, max_size=2, unique=True))
    )
    for at in (first, second):
        tokens[at] = make_bad(at, vocab)
    embedding = EmbeddingPlan(vocab, context, config["D"]).materialize(lambda *_: 0.0)
    with pytest.raises(exception) as refused:
        embedding.forward(tokens)
    assert named.format(at=first, bad=tokens[first]) in str(refused.value)


def element_refusal(bad: object) -> type[Exception]:
    """The exception of the row a bad element breaks: element-nonfinite for a float, else element-type."""
    return ValueError if isinstance(bad, float) else TypeError


@pytest.mark.spec(
    "S05.fail.element-type", "S05.fail.element-bool", "S05.fail.element-nonfinite", "S05.order.matrix"
)
@given(case=s.two_bad_elements())
def test_the_first_bad_element_in_row_major_order_is_the_one_named(
    engine: Engine, case: dict[str, Any]
) -> None:
    """Of two bad elements, Matrix and Vector name the first in row-major order (S05.order.matrix's note)
    and raise its row's exception: not the last one, not the first in column-major order."""
    require(engine, "shapes")
    first, second = case["first"], case["second"]
    flat = [element for row in case["rows"] for element in row]
    for build in (lambda: Matrix(case["rows"]), lambda: Vector(flat)):
        with pytest.raises(element_refusal(first)) as refused:
            build()
        message = str(refused.value)
        assert (True, False) == (f"got {first!r}" in message, f"got {second!r}" in message), message


@pytest.mark.spec("S05.fail.weight-config")
@given(case=s.wrong_weight_shapes().filter(lambda c: c["token_shape"] != [c["V"], c["D"]]), data=st.data())
def test_of_two_wrong_tables_the_token_table_is_named(
    engine: Engine, case: dict[str, Any], data: st.DataObject
) -> None:
    """Both tables of the wrong shape: the refusal names the token table (compared first, the row's
    note), with its shape and the plan's."""
    require(engine, "embedding")
    position = data.draw(st.tuples(s.small_dim, s.small_dim).filter(lambda p: p != (case["C"], case["D"])))
    with pytest.raises(ShapeError) as refused:
        weight_attempt({**case, "position_shape": list(position)}).action()
    planned, got = (case["V"], case["D"]), tuple(case["token_shape"])
    assert f"Embedding: token_weight shape must equal the plan's {planned}, got {got}" == str(refused.value)

"""Stage 05 goldens: every number the seed prints, read from the spec rows' examples."""

from __future__ import annotations

import math
from typing import Any

import pytest

from contracts import CountingValue, EmbeddingPlan, Matrix, Value, Vector
from contracts.core.bounds import VALUE_LIMIT
from contracts.engines import Engine
from contracts.spec import SpecRow, evaluate
from contracts.spec_suite.cases.stage05 import ATTEMPTS, MEASURE, operation
from contracts.spec_suite.probes import CountingInitializer, assert_refused
from contracts.spec_suite.spec_rows import (
    OWN_TYPES,
    example_params,
    params,
    reference_only,
    require,
    row,
    rows,
)

# Stage 05/07 rows are about this project's own types: not applicable on any other engine.
pytestmark = reference_only(OWN_TYPES)


@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="05", kind="formula")))
def test_formula_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The seed's worked instance: the spec formula and the implementation both give its number."""
    require(engine, "shapes", spec_row.id)
    where = example["where"]
    symbols = {name: where[name] for name in spec_row["symbols"]}
    assert example["value"] == evaluate(spec_row["expr"], symbols)
    measured = MEASURE[spec_row.id](where)
    assert {k: example["value"] for k in spec_row["compared_with"]} == {
        k: measured[k] for k in spec_row["compared_with"]
    }


@pytest.mark.spec("S05.rule.messages")
@pytest.mark.parametrize(("spec_row", "example"), example_params(rows(stage="05", kind="failure")))
def test_failure_example(engine: Engine, spec_row: SpecRow, example: dict[str, Any]) -> None:
    """The seed's failing inputs ((3,) + (2,), (1, 2) @ (1, 2), ragged rows, ...) are refused."""
    require(engine, "shapes", spec_row.id)
    assert_refused(spec_row, ATTEMPTS[spec_row.id](example))


@pytest.mark.parametrize("spec_row", params(rows(stage="05", kind="contract")))
def test_contract_examples(engine: Engine, spec_row: SpecRow) -> None:
    """Each contract-table row: every example of every failure row behind it is refused."""
    require(engine, "shapes", spec_row.id)
    for failure_id in spec_row["enforced_by"]:
        failure = row(failure_id)
        assert failure["examples"], f"{failure_id} has no example"
        for example in failure["examples"]:
            assert_refused(failure, ATTEMPTS[failure_id](example))


@pytest.mark.spec("S05.rule.matmul-shape")
def test_matmul_example(engine: Engine) -> None:
    """[[1, 2], [3, 4]] @ [[5, 6], [7, 8]] = [[19, 22], [43, 50]], output shape (2, 2)."""
    require(engine, "shapes")
    (example,) = row("S05.rule.matmul-shape")["examples"]
    product = Matrix(example["a"]).matmul(Matrix(example["b"]))
    assert (len(example["out"]), len(example["out"][0])) == product.shape
    assert example["out"] == product.data()


@pytest.mark.spec("S05.rule.embedding-shapes")
def test_embedding_shapes_example(engine: Engine) -> None:
    """V = 257, C = 8, D = 4, T = 3: weights (257, 4) and (8, 4), output (3, 4)."""
    require(engine, "embedding")
    (example,) = row("S05.rule.embedding-shapes")["examples"]
    plan = EmbeddingPlan(example["V"], example["C"], example["D"])
    embedding = plan.materialize(lambda *_: 0.25)
    out = embedding.forward(example["tokens"])
    assert (
        tuple(example["token_shape"]),
        tuple(example["position_shape"]),
        tuple(example["output_shape"]),
    ) == (embedding.token_weight.shape, embedding.position_weight.shape, out.shape)


@pytest.mark.spec("S05.rule.budget-boundary")
@pytest.mark.parametrize("index", range(4))
def test_budget_boundary_example(engine: Engine, index: int) -> None:
    """Budget 11 refuses the 2x2 matmul, 12 builds 12 nodes; 1059 calls no initializer, 1060 all; and
    each is the boundary: one more than a refused budget succeeds, one less than an accepted one fails."""
    require(engine, "shapes")
    spec_row = row("S05.rule.budget-boundary")
    example = spec_row["examples"][index]
    if example["op"] == "matmul":
        matmul = row("S05.rule.matmul-shape")["examples"][0]
        run = operation({"a": matmul["a"], "b": matmul["b"]})
        if example["refused"]:
            assert_refused(
                row("S05.fail.graph-budget"),
                ATTEMPTS["S05.fail.graph-budget"](
                    {"a": matmul["a"], "b": matmul["b"], "budget": example["budget"]}
                ),
            )
            run(example["budget"] + 1)
        else:
            counter = CountingValue.reset()
            run(example["budget"])
            assert example["operations"] == counter.operations
            assert_refused(
                row("S05.fail.graph-budget"),
                ATTEMPTS["S05.fail.graph-budget"](
                    {"a": matmul["a"], "b": matmul["b"], "budget": example["budget"] - 1}
                ),
            )
        return
    embedding = row("S05.rule.embedding-shapes")["examples"][0]
    config = {k: embedding[k] for k in ("V", "C", "D")}
    if example["refused"]:
        attempt = ATTEMPTS["S05.fail.parameter-budget"]({**config, "budget": example["budget"]})
        assert_refused(row("S05.fail.parameter-budget"), attempt)
        assert attempt.initializer is not None
        assert example["initializer_calls"] == attempt.initializer.calls
        EmbeddingPlan(config["V"], config["C"], config["D"], example["budget"] + 1).materialize(
            CountingInitializer()
        )
    else:
        initializer = CountingInitializer()
        EmbeddingPlan(
            **{
                "vocab_size": config["V"],
                "context_length": config["C"],
                "width": config["D"],
                "parameter_budget": example["budget"],
            }
        ).materialize(initializer)
        assert example["initializer_calls"] == initializer.calls
        attempt = ATTEMPTS["S05.fail.parameter-budget"]({**config, "budget": example["budget"] - 1})
        assert_refused(row("S05.fail.parameter-budget"), attempt)


@pytest.mark.spec("S05.rule.vector-values")
def test_vector_values_example(engine: Engine) -> None:
    """(1, 2, 3) + (10, 20, 30) = (11, 22, 33); their dot product is 140."""
    require(engine, "shapes")
    (example,) = row("S05.rule.vector-values")["examples"]
    x, y = Vector(example["x"]), Vector(example["y"])
    assert (example["sum"], example["dot"]) == (x.add(y).data(), x.dot(y).data)


@pytest.mark.spec("S05.rule.value-identity")
def test_shared_value_stays_one_object(engine: Engine) -> None:
    """The seed's Matrix(((shared, shared), (Value(1.0), Value(2.0)))) holds its four given objects: 3
    distinct Values, shared at both positions of the first row."""
    require(engine, "shapes")
    (example,) = row("S05.rule.value-identity")["examples"]
    shared = Value(example["shared"])
    second = [Value(x) for x in example["second_row"]]
    given = ((shared, shared), tuple(second))
    matrix = Matrix(given)
    assert [[True, True], [True, True]] == [
        [kept is element for kept, element in zip(r, g)] for r, g in zip(matrix.rows, given)
    ]
    assert example["distinct"] == len({id(v) for v in matrix.values()})


@pytest.mark.spec("S05.rule.number-element")
def test_number_elements_example(engine: Engine) -> None:
    """[[1, 2.5], [1, 1]] becomes four distinct Values holding 1.0, 2.5, 1.0 and 1.0."""
    require(engine, "shapes")
    (example,) = row("S05.rule.number-element")["examples"]
    matrix = Matrix(example["rows"])
    assert example["data"] == matrix.data()
    assert (example["distinct"], {Value}) == (
        len({id(v) for v in matrix.values()}),
        {type(v) for v in matrix.values()},
    )


@pytest.mark.spec("S05.rule.initializer-positions")
def test_initializer_positions_example(engine: Engine) -> None:
    """V = 2, C = 1, D = 1: the initializer is called at token (0, 0), (1, 0) and position (0, 0)."""
    require(engine, "embedding")
    (example,) = row("S05.rule.initializer-positions")["examples"]
    calls: list[list[object]] = []

    def initializer(*position: object) -> float:
        calls.append(list(position))
        return 0.0

    EmbeddingPlan(example["V"], example["C"], example["D"]).materialize(initializer)
    assert example["calls"] == calls


@pytest.mark.spec("S05.rule.operand-bound")
@pytest.mark.parametrize("example", row("S05.rule.operand-bound")["examples"])
def test_operand_bound_example(engine: Engine, example: dict[str, Any]) -> None:
    """Operands whose bound is at most half of float64's max are computed, up to a sum exactly at it; the
    example's bound is where the operation turns: its operands scaled to put that bound just above the
    limit are refused, just below it computed (add's bound grows with the scale, dot's and matmul's
    with its square)."""
    require(engine, "shapes")
    result: Any = operation(example)(None)
    assert example["value"] == (result.data if isinstance(result, Value) else result.data())
    ratio = VALUE_LIMIT / example["bound"]
    scale = ratio if example["op"] == "add" else math.sqrt(ratio)
    below, above = (scaled(example, scale * (1 + sign * 1e-9)) for sign in (-1, 1))
    operation(below)(None)
    with pytest.raises(OverflowError):
        operation(above)(None)


def scaled(example: dict[str, Any], factor: float) -> dict[str, Any]:
    """The example with every operand element multiplied by factor."""
    keys = ("x", "y") if example["op"] in ("add", "dot") else ("a", "b")
    grown = {
        key: [[v * factor for v in r] for r in example[key]]
        if example["op"] == "matmul"
        else [v * factor for v in example[key]]
        for key in keys
    }
    return {**example, **grown}


@pytest.mark.spec("S05.fail.operand-overflow", "S05.rule.messages")
@pytest.mark.parametrize("example", row("S05.fail.operand-overflow")["examples"])
def test_operand_overflow_message(engine: Engine, example: dict[str, Any]) -> None:
    """The refusal names the operation, its step and the bound the operands reach."""
    require(engine, "shapes")
    with pytest.raises(OverflowError) as refused:
        operation(example)(None)
    assert example["message"] == str(refused.value)


@pytest.mark.spec("S05.rule.vector-shape")
@pytest.mark.parametrize("example", row("S05.rule.vector-shape")["examples"])
def test_vector_shape_example(engine: Engine, example: dict[str, Any]) -> None:
    """Vector([1, 2, 3]) has shape (3,) and length 3; Vector([0.5]) has (1,)."""
    require(engine, "shapes")
    vector = Vector(example["elements"])
    assert (tuple(example["shape"]), example["shape"][0]) == (vector.shape, len(vector))

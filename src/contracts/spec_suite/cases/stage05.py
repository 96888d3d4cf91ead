"""Stage 05 cases as data: spec examples and strategy draws go through the same builders."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contracts import CountingValue, Embedding, EmbeddingPlan, Matrix, Value, Vector
from contracts.core.block import BlockPlan
from contracts.core.graph import topological_order
from contracts.core.linear import LinearPlan
from contracts.core.model import ModelPlan
from contracts.core.shapes import dot_cost, matmul_cost
from contracts.spec_suite.probes import NOT_GIVEN, Attempt, CountingInitializer

Case = dict[str, Any]


def zeros(shape: list[int]) -> list[list[float]]:
    return [[0.0] * shape[1] for _ in range(shape[0])]


def counted_embedding(case: Case) -> Embedding:
    """Tables of CountingValues: every entry case['fill'] (0.5 by default), or case['tables'][table][r][c]."""
    if "tables" in case:
        tables = case["tables"]
        initializer = CountingInitializer(lambda table, r, c: tables[table][r][c])
    else:
        initializer = CountingInitializer(lambda *_: case.get("fill", 0.5))
    return EmbeddingPlan(case["V"], case["C"], case["D"]).materialize(initializer, CountingValue)


def offending(case: Case, key: str = "bad") -> object:
    """The value a refusal's message must name: a Value is named by its data."""
    bad = case.get(key, NOT_GIVEN)
    return bad.data if isinstance(bad, Value) else bad


def constructor_attempt(case: Case) -> Attempt:
    """Vector from `elements` or Matrix from `rows`."""
    if "elements" in case:
        return Attempt(lambda: Vector(case["elements"], CountingValue), offending=offending(case))
    return Attempt(lambda: Matrix(case["rows"], CountingValue), offending=offending(case))


def range_attempt(case: Case) -> Attempt:
    """A spec example's elements with 10**power appended (TOML has no such int); a draw as it is."""
    if "power" not in case:
        return constructor_attempt(case)
    big = 10 ** case["power"]
    return constructor_attempt({"elements": [*case["elements"], big], "bad": big})


NOT_VALUE_TYPES: dict[str, object] = {
    "int": int,
    "float": float,
    "str": str,
    "None": None,
    "a Value": Value(1.0),
    "object": object,
}


def value_type_attempt(case: Case) -> Attempt:
    """target (a constructor that makes Values from numbers) given a value_type that is not a Value type."""
    bad: Any = NOT_VALUE_TYPES[case["value_type"]]
    initializer = CountingInitializer()
    targets: dict[str, Callable[[], object]] = {
        "Vector": lambda: Vector([1.0, 2.0], bad),
        "Matrix": lambda: Matrix([[1.0], [2.0]], bad),
        "EmbeddingPlan": lambda: EmbeddingPlan(2, 1, 1).materialize(initializer, bad),
        "LinearPlan": lambda: LinearPlan("fc1", 2, 3).materialize(initializer, bad),
        "ModelPlan": lambda: ModelPlan.mlp([2, 3, 1]).materialize(initializer, bad),
        "BlockPlan": lambda: BlockPlan.rmsnorm_mlp([2, 3, 2]).materialize(initializer, bad),
    }
    return Attempt(targets[case["target"]], initializer=initializer, offending=bad)


def plan_attempt(case: Case) -> Attempt:
    initializer = CountingInitializer()
    budget = case.get("budget")
    return Attempt(
        lambda: EmbeddingPlan(case["V"], case["C"], case["D"], budget).materialize(
            initializer, CountingValue
        ),
        initializer=initializer,
        offending=offending(case, "bad" if "bad" in case else "budget"),
    )


def initializer_attempt(case: Case) -> Attempt:
    """An initializer that returns `bad` at one (table, row, col) and 0.5 elsewhere."""
    target = (case["table"], case["row"], case["col"])
    initializer = CountingInitializer(lambda *position: case["bad"] if position == target else 0.5)
    plan = EmbeddingPlan(case["V"], case["C"], case["D"])
    return Attempt(
        lambda: plan.materialize(initializer, CountingValue), initializer=initializer, offending=case["bad"]
    )


def weight_attempt(case: Case) -> Attempt:
    plan = EmbeddingPlan(case["V"], case["C"], case["D"])
    token = Matrix(zeros(case["token_shape"]), CountingValue)
    position = Matrix(zeros(case["position_shape"]), CountingValue)
    return Attempt(lambda: Embedding(plan, token, position))


def forward_attempt(case: Case) -> Attempt:
    embedding = counted_embedding(case)
    parameters = [*embedding.token_weight.values(), *embedding.position_weight.values()]
    tokens = case["tokens"]
    return Attempt(
        lambda: embedding.forward(tokens, case.get("budget")),
        parameters=parameters,
        offending=tokens if not isinstance(tokens, list) else offending(case),
    )


def op_of(case: Case) -> str:
    """The case's operation: named, or implied by its operands."""
    if "op" in case:
        return str(case["op"])
    return "add" if "x" in case else "embedding" if "tokens" in case else "matmul"


def operation(case: Case) -> Callable[[Any], object]:
    """The case's operation with its operands built (and its cells assigned), as a function of the budget."""
    return built_operation(case)[0]


def built_operation(case: Case) -> tuple[Callable[[Any], object], list[Value]]:
    """The case's operation as a function of the budget, and every Value its operands hold; the case's
    `cells` are assigned after the operands were built (assign_cells)."""
    op = op_of(case)
    if op in ("add", "dot"):
        x, y = Vector(case["x"], CountingValue), Vector(case["y"], CountingValue)
        assign_cells(case, {"left": x.values, "right": y.values})
        run = (lambda b: x.add(y, b)) if op == "add" else (lambda b: x.dot(y, b))
        return run, [*x.values, *y.values]
    if op == "matmul":
        a, b = Matrix(case["a"], CountingValue), Matrix(case["b"], CountingValue)
        assign_cells(case, {"left": a.rows, "right": b.rows})
        return (lambda budget: a.matmul(b, budget)), [*a.values(), *b.values()]
    embedding = counted_embedding(case)
    token, position = embedding.token_weight, embedding.position_weight
    assign_cells(case, {"token": token.rows, "position": position.rows})
    return (lambda budget: embedding.forward(case["tokens"], budget)), [*token.values(), *position.values()]


def assign_cells(case: Case, sides: dict[str, Any]) -> None:
    """Each of case['cells'] ({side, at, data}) assigned to its operand's Value after it was built, as an
    optimizer or a caller may: at = [i] in a vector, [row, column] in a matrix or table. An index is taken
    modulo the operand's extent (another injected fault may have resized the operand); a side that is not
    a Vector or Matrix here (an injected wrong operand) is skipped."""
    for cell in case.get("cells", ()):
        target = sides.get(cell["side"])
        if target is None:
            continue
        *outer, last = cell["at"]
        for index in outer:
            target = target[index % len(target)]
        target[last % len(target)].data = cell["data"]


def operand_data_attempt(case: Case) -> Attempt:
    """The operation after one operand datum was assigned a bad value (the first cell, named)."""
    run, values = built_operation(case)
    return Attempt(lambda: run(case.get("budget")), parameters=values, offending=case["cells"][0]["data"])


def operand_overflow_attempt(case: Case) -> Attempt:
    """The operation over operands (and cells) whose value bound passes the limit."""
    run, values = built_operation(case)
    return Attempt(lambda: run(case.get("budget")), parameters=values)


def operand_attempt(case: Case) -> Attempt:
    """A valid left operand with an `other` that is the wrong kind of object."""
    other = case["other"]
    if case["op"] in ("add", "dot"):
        vector = Vector([1.0, 2.0], CountingValue)
        return Attempt(lambda: getattr(vector, case["op"])(other), offending=other)
    if case["op"] == "matmul":
        matrix = Matrix([[1.0]], CountingValue)
        return Attempt(lambda: matrix.matmul(other), offending=other)
    plan = EmbeddingPlan(2, 2, 1)
    weight = Matrix([[0.0], [0.0]], CountingValue)
    slots = {
        "plan": (other, weight, weight),
        "token": (plan, other, weight),
        "position": (plan, weight, other),
    }
    return Attempt(lambda: Embedding(*slots[case.get("slot", "plan")]), offending=other)


def relation_attempt(case: Case) -> Attempt:
    """Operands whose shapes do not relate, with no budget."""
    run = operation(case)
    return Attempt(lambda: run(None))


def operation_attempt(case: Case) -> Attempt:
    if op_of(case) == "embedding-plan":
        return plan_attempt(case)
    run = operation({"a": [[1.0]], "b": [[1.0]], **case})
    return Attempt(lambda: run(case["budget"]), offending=offending(case, "budget"))


ATTEMPTS: dict[str, Callable[[Case], Attempt]] = {
    "S05.fail.ragged-row": constructor_attempt,
    "S05.fail.container-type": constructor_attempt,
    "S05.fail.operand-type": operand_attempt,
    "S05.fail.element-type": constructor_attempt,
    "S05.fail.element-bool": constructor_attempt,
    "S05.fail.element-nonfinite": constructor_attempt,
    "S05.fail.element-range": range_attempt,
    "S05.fail.value-type": value_type_attempt,
    "S05.fail.empty-dimension": constructor_attempt,
    "S05.fail.vector-length": relation_attempt,
    "S05.fail.matmul-dim": relation_attempt,
    "S05.fail.graph-budget": operation_attempt,
    "S05.fail.budget-value": operation_attempt,
    "S05.fail.budget-type": operation_attempt,
    "S05.fail.initializer-type": initializer_attempt,
    "S05.fail.initializer-nonfinite": initializer_attempt,
    "S05.fail.weight-config": weight_attempt,
    "S05.fail.token-id": forward_attempt,
    "S05.fail.token-type": forward_attempt,
    "S05.fail.sequence-length": forward_attempt,
    "S05.fail.sequence-empty": forward_attempt,
    "S05.fail.parameter-budget": plan_attempt,
    "S05.fail.config-type": plan_attempt,
    "S05.fail.config-range": plan_attempt,
    "S05.fail.operand-data-type": operand_data_attempt,
    "S05.fail.operand-non-finite": operand_data_attempt,
    "S05.fail.operand-overflow": operand_overflow_attempt,
}


def operation_nodes(outputs: list[Value]) -> int:
    """Distinct operation nodes reachable from any output, found by walking parents."""
    seen: set[Value] = set()
    for output in outputs:
        seen.update(node for node in topological_order(output) if node.parents)
    return len(seen)


def output_values(result: object) -> list[Value]:
    if isinstance(result, Value):
        return [result]
    if isinstance(result, Vector):
        return list(result.values)
    assert isinstance(result, Matrix)
    return list(result.values())


Measured = dict[str, int]


def measure_op(planned: int, run: Callable[[], object]) -> Measured:
    counter = CountingValue.reset()
    outputs = output_values(run())
    return {"planner": planned, "executor": counter.operations, "graph": operation_nodes(outputs)}


def ones(n: int) -> list[float]:
    return [1.0] * n


def measure_vector_add(sym: dict[str, int]) -> Measured:
    x, y = Vector(ones(sym["D"]), CountingValue), Vector(ones(sym["D"]), CountingValue)
    return measure_op(x.add_cost(), lambda: x.add(y))


def measure_dot(sym: dict[str, int]) -> Measured:
    x, y = Vector(ones(sym["K"]), CountingValue), Vector(ones(sym["K"]), CountingValue)
    return measure_op(dot_cost(sym["K"]), lambda: x.dot(y))


def measure_matmul(sym: dict[str, int]) -> Measured:
    m, k, n = sym["M"], sym["K"], sym["N"]
    a = Matrix([ones(k)] * m, CountingValue)
    b = Matrix([ones(n)] * k, CountingValue)
    return measure_op(matmul_cost(m, k, n), lambda: a.matmul(b))


def measure_parameters(table: str) -> Callable[[dict[str, int]], Measured]:
    """Planner: the plan's count; executor: distinct Values in the table(s) it materializes."""

    def measure(sym: dict[str, int]) -> Measured:
        plan = EmbeddingPlan(sym["V"], sym["C"], sym["D"])
        initializer = CountingInitializer()
        counter = CountingValue.reset()
        embedding = plan.materialize(initializer, CountingValue)
        tables = {
            "token": (plan.token_parameters(), [embedding.token_weight]),
            "position": (plan.position_parameters(), [embedding.position_weight]),
            "all": (plan.parameter_count(), [embedding.token_weight, embedding.position_weight]),
        }
        planned, weights = tables[table]
        distinct = {id(v) for weight in weights for v in weight.values()}
        if table == "all":
            assert counter.values == initializer.calls == len(distinct)
        return {"planner": planned, "executor": len(distinct)}

    return measure


def measure_embedding_forward(sym: dict[str, int]) -> Measured:
    plan = EmbeddingPlan(sym["V"], sym["C"], sym["D"])
    embedding = plan.materialize(CountingInitializer(), CountingValue)
    tokens = [t % sym["V"] for t in range(sym["T"])]
    return measure_op(plan.forward_cost(sym["T"]), lambda: embedding.forward(tokens))


MEASURE: dict[str, Callable[[dict[str, int]], Measured]] = {
    "S05.cost.vector-add": measure_vector_add,
    "S05.cost.dot": measure_dot,
    "S05.cost.matmul": measure_matmul,
    "S05.params.token": measure_parameters("token"),
    "S05.params.position": measure_parameters("position"),
    "S05.params.embedding": measure_parameters("all"),
    "S05.cost.embedding-forward": measure_embedding_forward,
}

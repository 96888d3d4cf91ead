"""The restricted evaluator: arithmetic over symbols and named functions, nothing else."""

from __future__ import annotations

import math

import pytest

from contracts.spec import ExpressionError, evaluate
from contracts.spec.functions import SCALAR

REFUSED = [
    pytest.param("x.real", "Attribute is not allowed", id="attribute"),
    pytest.param("x[0]", "Subscript is not allowed", id="subscript"),
    pytest.param("__import__('os')", r"only calls of \[\] are allowed", id="import"),
    pytest.param("exp(x)", r"only calls of \[\] are allowed", id="unlisted-function"),
    pytest.param("y + 1", "unknown name 'y'", id="unknown-symbol"),
    pytest.param("x ** 65", r"\|exponent\| <= 64", id="absurd-exponent"),
    pytest.param("x ** -65", r"\|exponent\| <= 64", id="absurd-negative-exponent"),
    pytest.param("x ** x", "an exponent must be a constant", id="symbolic-exponent"),
    pytest.param("x ** 'a'", "an exponent must be a constant", id="string-exponent"),
    pytest.param("'a'", "only int and float constants", id="string"),
    pytest.param("True", "only int and float constants", id="bool"),
    pytest.param("lambda: 1", "Lambda is not allowed", id="lambda"),
    pytest.param("x if x else 1", "IfExp is not allowed", id="conditional"),
    pytest.param("x and 1", "BoolOp is not allowed", id="boolean-operator"),
    pytest.param("~x", "Invert is not allowed", id="invert"),
    pytest.param("x << 1", "LShift is not allowed", id="shift"),
    pytest.param("x in x", "comparison not allowed", id="membership"),
    pytest.param("[x]", "List is not allowed", id="list"),
    pytest.param("x +", "not an expression", id="syntax"),
    pytest.param("x = 1", "not an expression", id="statement"),
]


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_refused_before_evaluation(text: str, message: str) -> None:
    """Anything outside the whitelist raises ExpressionError naming the expression."""
    with pytest.raises(ExpressionError, match=message) as raised:
        evaluate(text, {"x": 2})
    assert repr(text) in str(raised.value) or "not an expression" in str(raised.value)


def test_keyword_arguments_are_refused() -> None:
    """Calls take positional arguments only."""
    with pytest.raises(ExpressionError, match="keyword arguments are not allowed"):
        evaluate("exp(x=1)", {"x": 1.0}, SCALAR)


ALLOWED = [
    pytest.param("M*N*(2*K - 1)", {"M": 2, "N": 2, "K": 2}, 12, id="matmul-cost"),
    pytest.param("(V + C)*D", {"V": 257, "C": 8, "D": 4}, 1060, id="embedding-params"),
    pytest.param("-x + +x - x // 2 % 3", {"x": 7}, -(7 // 2 % 3), id="unary-floor-mod"),
    pytest.param("x / 4", {"x": 2}, 0.5, id="true-division"),
    pytest.param("x ** 2 + x ** -1", {"x": 2.0}, 4.5, id="powers"),
    pytest.param("exp(log(x))", {"x": 3.0}, pytest.approx(3.0), id="functions"),
    pytest.param("1 < x <= 3", {"x": 3}, True, id="chained-true"),
    pytest.param("1 < x < 3", {"x": 3}, False, id="chained-false"),
    pytest.param("x == 3", {"x": 3}, True, id="equal"),
    pytest.param("1 < exp(x) <= 3", {"x": 1.0}, True, id="chained-with-calls"),
    pytest.param("exp(x) < 3", {"x": 1.0}, True, id="call-on-the-left"),
    pytest.param("-exp(x) + exp(x)", {"x": 1.0}, 0.0, id="negated-call"),
    pytest.param("x ** 64 + x ** -64", {"x": 1}, 2.0, id="largest-exponents"),
    pytest.param("x != 3", {"x": 3}, False, id="not-equal"),
    pytest.param("x >= 4", {"x": 3}, False, id="greater-equal"),
    pytest.param("x > 2", {"x": 3}, True, id="greater"),
    pytest.param("step(x) + ge(x, 1) + lt(x, 1)", {"x": 0.0}, 1.0, id="masks-at-zero"),
]


@pytest.mark.parametrize(("text", "bindings", "expected"), ALLOWED)
def test_evaluates(text: str, bindings: dict[str, float], expected: object) -> None:
    """Whitelisted expressions evaluate to the value arithmetic gives."""
    assert expected == evaluate(text, bindings, SCALAR)


def test_matmul_operator_and_array_functions() -> None:
    """@, matmul and T work over an array namespace, so one row serves scalars and tensors."""
    np = pytest.importorskip("numpy")
    from contracts.spec.functions import array_functions

    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    g = np.ones((2, 2))
    result = evaluate(
        "matmul(g, T(a)) + a @ a - step(a) * ge(a, a) + lt(a, a)", {"a": a, "g": g}, array_functions(np)
    )
    assert (g @ a.T + a @ a - 1.0).tolist() == result.tolist()


@pytest.mark.parametrize("name", ["numpy", "array_api_strict"])
def test_array_masks_follow_the_tie_rule_and_keep_dtype(name: str) -> None:
    """Over arrays: step is 0 at 0, ge gives ties to a, lt to neither; the input's dtype is kept."""
    xp = pytest.importorskip(name)
    from contracts.spec.functions import array_functions

    functions = array_functions(xp)
    a = xp.asarray([-1.0, 0.0, 2.0], dtype=xp.float32)
    b = xp.asarray([0.0, 0.0, 0.0], dtype=xp.float32)
    results = {
        "step": functions["step"](a),
        "ge": functions["ge"](a, b),
        "lt": functions["lt"](a, b),
        "max": functions["max"](a, b),
    }
    assert {
        "step": [0.0, 0.0, 1.0],
        "ge": [0.0, 1.0, 1.0],
        "lt": [1.0, 0.0, 0.0],
        "max": [0.0, 0.0, 2.0],
    } == {key: [float(v) for v in value] for key, value in results.items()}
    assert all(value.dtype == xp.float32 for value in results.values())
    assert [[-1.0], [0.0], [2.0]] == [[float(v)] for v in functions["T"](xp.reshape(a, (1, 3)))[:, 0]]


def test_scalar_masks_follow_the_tie_rule() -> None:
    """ge gives a tie to the first argument, lt to neither; step is 0 at the kink."""
    assert (1.0, 0.0, 0.0, 1.0, 0.0) == (
        SCALAR["ge"](1.0, 1.0),
        SCALAR["lt"](1.0, 1.0),
        SCALAR["step"](0.0),
        SCALAR["step"](math.ulp(0.0)),
        SCALAR["ge"](0.0, 1.0),
    )

"""The restricted evaluator: arithmetic over symbols and named functions, nothing else."""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Callable, Mapping
from typing import Any

import array_api_strict
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from contracts.spec import ExpressionError, evaluate, expr
from contracts.spec.functions import SCALAR, array_functions
from tests.common.expressions import Drawn, comparison_chains, expression_numbers, spec_expressions

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
    pytest.param("x < x in x", "comparison not allowed", id="membership-in-a-chain"),
    pytest.param("x < x is x", "comparison not allowed", id="identity-in-a-chain"),
    pytest.param("x in x < x", "comparison not allowed", id="membership-first-in-a-chain"),
    pytest.param("[x]", "List is not allowed", id="list"),
    pytest.param("x +", "not an expression", id="syntax"),
    pytest.param("x = 1", "not an expression", id="statement"),
    pytest.param(str(2**1024), "an integer constant has more than 1024 bits", id="1025-bit-constant"),
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
    pytest.param(str(2**1024 - 1), {}, 2**1024 - 1, id="1024-bit-constant"),
    pytest.param("x ** 64", {"x": 2**16 - 1}, (2**16 - 1) ** 64, id="power-estimate-at-the-bound"),
    pytest.param("x * y", {"x": 2**1000, "y": 2**23}, 2**1023, id="product-of-1024-bits"),
    pytest.param("x ** -64", {"x": 2**1000}, 2.0**-64000 * 0, id="negative-exponent-is-a-float"),
    pytest.param("1 > x < 1 / 0", {"x": 3}, False, id="chain-stops-at-the-first-false-link"),
    pytest.param("1 < x > 1 / 0 + 1", {"x": 0}, False, id="chain-never-evaluates-the-rest"),
    pytest.param("0 < x < 2 < 4", {"x": 1}, True, id="chain-of-three-links"),
    pytest.param("x != 3", {"x": 3}, False, id="not-equal"),
    pytest.param("x >= 4", {"x": 3}, False, id="greater-equal"),
    pytest.param("x > 2", {"x": 3}, True, id="greater"),
    # every comparison at its boundary, where the strict and the inclusive forms differ
    pytest.param(
        "(x >= 3) + 2 * (x <= 3) + 4 * (x > 3) + 8 * (x < 3)", {"x": 3}, 3, id="comparisons-at-equality"
    ),
    pytest.param("(x == 3) + 2 * (x != 3)", {"x": 3.0}, 1, id="equality-of-int-and-float"),
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


LIMITS = [
    pytest.param(
        "x" + " + x" * 600,
        {"x": 1},
        r"^an expression may have at most 2000 characters, this one has 2401$",
        id="too-long",
    ),
    pytest.param(
        "-" * 101 + "x",
        {"x": 1},
        r"^an expression may nest at most 100 levels deep: '-{60}'\.\.\.$",  # its first 60 characters
        id="too-deep",
    ),
    pytest.param(
        "((((9**64)**64)**64)**64)**64",
        {},
        r"^203-bit integer \*\* 64 would have up to 12992 bits, more than 1024 in '\(\(\(\(9\*\*64\)\*\*64\)",
        id="tower-of-powers",
    ),
    pytest.param(
        "x ** 64",
        {"x": 2**16},
        r"^17-bit integer \*\* 64 would have up to 1088 bits, more than 1024 in 'x \*\* 64'$",
        id="power-refused-before-computing",
    ),
    pytest.param(
        "x * y",
        {"x": 2**1000, "y": 2**24},
        r"^an integer result has 1025 bits, more than 1024 in 'x \* y'$",
        id="product-of-1025-bits",
    ),
    pytest.param(
        "x + x",
        {"x": 2**1023},
        r"^an integer result has 1025 bits, more than 1024 in 'x \+ x'$",
        id="sum-of-1025-bits",
    ),
]


@pytest.mark.parametrize(("text", "bindings", "message"), LIMITS)
def test_limits_are_refused_with_one_line(text: str, bindings: dict[str, int], message: str) -> None:
    """Length, depth and integer-size limits raise a one-line ExpressionError, never a hang or overflow."""
    with pytest.raises(ExpressionError, match=message) as raised:
        evaluate(text, bindings)
    assert "\n" not in str(raised.value)


def test_limits_stop_at_the_bound() -> None:
    """Exactly at each limit an expression still evaluates: 2000 characters, 100 levels."""
    longest = "max(" + ", ".join(["x"] * 665) + ",y)"
    assert (2000, 2) == (len(longest), evaluate(longest, {"x": 1, "y": 2}, SCALAR))
    assert (-1) ** 99 == evaluate("-" * 99 + "x", {"x": 1})


class TooLargeError(Exception):
    """The oracle saw an integer beyond the documented bound (the evaluator must refuse it)."""


BOUND = 1024  # the documented integer bound, restated here so the oracle is independent


def size_rule(value: Any) -> Any:
    if isinstance(value, int) and value.bit_length() > BOUND:
        raise TooLargeError
    return value


def power_rule(base: Any, exponent: Any) -> Any:
    if isinstance(base, int) and isinstance(exponent, int) and base.bit_length() * exponent > BOUND:
        raise TooLargeError
    return size_rule(base**exponent)


class Instrument(ast.NodeTransformer):
    """Python's own evaluation, with every binary result passed through the documented size rule."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.Call(ast.Name("power_rule", ast.Load()), [node.left, node.right], [])
        return ast.Call(ast.Name("size_rule", ast.Load()), [node], [])


def outcome(compute: Callable[[], Any]) -> tuple[str, str]:
    """A comparable outcome: the value's type and exact repr, or the type of the exception raised."""
    try:
        value = compute()
    except Exception as error:  # every exception is an outcome to compare
        return ("raises", type(error).__name__)
    return (type(value).__name__, repr(value))


def python_outcome(text: str, bindings: Mapping[str, Any]) -> tuple[str, str]:
    """The oracle: Python's eval of the same text (the size rule turns into the evaluator's refusal)."""
    names = {**SCALAR, **bindings}
    tree = ast.fix_missing_locations(Instrument().visit(ast.parse(text, mode="eval")))
    code = compile(tree, "<oracle>", "eval")
    try:
        eval(code, {"__builtins__": {}, "size_rule": size_rule, "power_rule": power_rule}, names)
    except TooLargeError:
        return ("raises", "ExpressionError")
    except Exception:  # the same exception plain eval raises below
        pass
    return outcome(lambda: eval(text, {"__builtins__": {}}, names))


@given(
    expression=st.one_of(spec_expressions, comparison_chains()), x=expression_numbers, y=expression_numbers
)
@example(expression=("1 > x < log(x)", True), x=0, y=0)
@example(expression=("0 < x < 1 / 0", True), x=-1, y=0)
@example(expression=("x < y < 1 / 0", True), x=1, y=0)
@example(expression=("x < y < (1 / 0)", True), x=0, y=1)
@example(expression=("(x ** 64) ** 2", True), x=2**8, y=0)
@example(expression=("(x ** 64) ** 2", True), x=2**7, y=0)
@example(expression=("x * x * x", True), x=2**400, y=0)
@example(expression=("-(x) ** 0.5 < 1", True), x=-8, y=0)
@example(expression=("(x) and (y)", False), x=0, y=0)
def test_evaluator_agrees_with_python(expression: Drawn, x: Any, y: Any) -> None:
    """Over random whitelisted expressions the evaluator gives Python's value or exception type."""
    text, in_grammar = expression
    bindings = {"x": x, "y": y}
    actual = outcome(lambda: evaluate(text, bindings, SCALAR))
    if not in_grammar:
        assert ("raises", "ExpressionError") == actual
    else:
        assert python_outcome(text, bindings) == actual


def test_a_parsed_text_is_checked_again_on_every_call() -> None:
    """The evaluator remembers a text's parse, never its checks: the same text with a name no longer
    bound, or a function no longer listed, is refused after it evaluated."""
    assert 3 == evaluate("x + 1", {"x": 2})
    with pytest.raises(ExpressionError, match=r"unknown name 'x' in 'x \+ 1'"):
        evaluate("x + 1", {})
    assert 2.0 == evaluate("sqrt(x)", {"x": 4.0}, {"sqrt": math.sqrt})
    with pytest.raises(ExpressionError, match=r"only calls of \[\] are allowed in 'sqrt\(x\)'"):
        evaluate("sqrt(x)", {"x": 4.0})


def test_parsing_waits_for_the_parse_lock() -> None:
    """Every parse in the verify path takes PARSE_LOCK (CPython 3.11's AST constructor is not thread-safe)."""
    parsed: list[object] = []
    with expr.PARSE_LOCK:
        workers = [
            threading.Thread(target=lambda: parsed.append(expr.parse_eval("1 + 2"))),
            threading.Thread(target=lambda: parsed.append(expr.parse_module(b"x = 1"))),
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=0.2)
        blocked = [worker.is_alive() for worker in workers]
    for worker in workers:
        worker.join(timeout=10)
    assert ([True, True], 2) == (blocked, len(parsed))


# Every array function a spec may call, on a hand case whose answer is written out: the oracle's own
# building blocks (a wrong one would make a row agree with an engine that is wrong the same way). X has
# a tie in each row and in one column, so firstmax's "first" is seen along both axes.
X = [[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]]
ARRAY_CASES: list[Any] = [
    pytest.param("rsum", (X, -1), [[7.0], [3.0]], id="rsum-last-axis"),
    pytest.param("rsum", (X, 0), [[3.0, 5.0, 2.0]], id="rsum-first-axis"),
    pytest.param("rmax", (X, -1), [[3.0], [2.0]], id="rmax"),
    pytest.param("rmean", (X, 0), [[1.5, 2.5, 1.0]], id="rmean"),
    pytest.param("firstmax", (X, -1), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], id="firstmax-last-axis"),
    pytest.param("firstmax", (X, 0), [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], id="firstmax-first-axis"),
    pytest.param("onehot", ([2, 0], X), [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], id="onehot"),
    pytest.param("mean", (X,), 10.0 / 6.0, id="mean"),
    pytest.param("rows", (X,), 2.0, id="rows-2d"),
    pytest.param("rows", ([[[0.0] * 4] * 3] * 2,), 6.0, id="rows-3d-every-leading-axis"),
    pytest.param("sqrt", ([4.0, 0.25],), [2.0, 0.5], id="sqrt"),
    pytest.param("exp", ([0.0],), [1.0], id="exp"),
    pytest.param("log", ([1.0],), [0.0], id="log"),
    pytest.param("step", ([-1.0, 0.0, 2.0],), [0.0, 0.0, 1.0], id="step"),
    pytest.param("ge", ([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]), [0.0, 1.0, 1.0], id="ge"),
    pytest.param("lt", ([1.0, 2.0, 3.0], [2.0, 2.0, 2.0]), [1.0, 0.0, 0.0], id="lt"),
    pytest.param("max", ([1.0, 5.0], [2.0, 4.0]), [2.0, 5.0], id="max"),
    pytest.param("T", ([[1.0, 2.0, 3.0]],), [[1.0], [2.0], [3.0]], id="transpose"),
    pytest.param("matmul", ([[1.0, 2.0]], [[3.0], [4.0]]), [[11.0]], id="matmul"),
]


@pytest.mark.parametrize("namespace", ["numpy", "array_api_strict"])
@pytest.mark.parametrize(("name", "arguments", "expected"), ARRAY_CASES)
def test_array_function_on_its_hand_case(
    namespace: str, name: str, arguments: tuple[Any, ...], expected: Any
) -> None:
    """Each spec function over an array namespace gives the hand-computed answer (ints stay the axis)."""
    xp = pytest.importorskip(namespace)
    from contracts.spec.functions import array_functions

    def argument(value: Any) -> Any:
        if isinstance(value, list):
            dtype = xp.int64 if all(isinstance(v, int) for v in value) else xp.float64
            return xp.asarray(value, dtype=dtype)
        return value

    result = array_functions(xp)[name](*(argument(value) for value in arguments))
    actual = float(result) if not hasattr(result, "shape") or result.shape == () else xp.asarray(result)
    if isinstance(actual, float):
        assert pytest.approx(expected, rel=1e-15) == actual
    else:
        import numpy

        assert expected == numpy.asarray(actual).tolist()


def test_every_spec_function_has_a_hand_case() -> None:
    """No function a spec may call is left without its hand case above (a new one must bring one)."""
    from contracts.spec.functions import KNOWN

    assert sorted(KNOWN) == sorted({param.values[0] for param in ARRAY_CASES})


def test_numpy_onehot_keeps_the_dtype_of_x() -> None:
    """onehot(t, x) over numpy is float32 for a float32 x: ones and zeros like x, never object arrays."""
    x = np.zeros((2, 3), dtype=np.float32)
    found = array_functions(np)["onehot"](np.asarray([2, 0]), x)
    assert np.dtype(np.float32) == found.dtype
    assert [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]] == found.tolist()


def test_array_api_strict_onehot_is_a_float32_array() -> None:
    """onehot(t, x) over array_api_strict builds ones and zeros like x (a strict namespace takes no None)."""
    xp: Any = array_api_strict
    found = array_functions(xp)["onehot"](xp.asarray([1, 1]), xp.zeros((2, 2), dtype=xp.float32))
    assert xp.float32 == found.dtype
    assert [[0.0, 1.0], [0.0, 1.0]] == np.asarray(found).tolist()

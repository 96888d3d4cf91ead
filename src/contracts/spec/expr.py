"""A restricted evaluator for spec expressions, built on the ast module and never on eval.

Allowed: numbers, symbols, + - * / // % **, unary + and -, comparisons, parentheses, and calls of
functions the caller names. Anything else (attribute access, subscripts, unknown names or calls,
lambdas, an exponent beyond MAX_EXPONENT) is rejected before evaluation starts.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

MAX_EXPONENT = 64

BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
}
UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


class ExpressionError(ValueError):
    """A spec expression uses something the evaluator does not allow."""


def parse_expression(
    text: str, symbols: frozenset[str] | set[str], functions: frozenset[str] | set[str]
) -> ast.expr:
    """Parse and check once; the result is safe to evaluate with those symbols and functions."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as error:
        raise ExpressionError(f"not an expression: {text!r} ({error.msg})") from None
    for node in ast.walk(tree):
        check_node(node, text, symbols, functions)
    return tree.body


def check_node(
    node: ast.AST,
    text: str,
    symbols: frozenset[str] | set[str],
    functions: frozenset[str] | set[str],
) -> None:
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float):
            raise ExpressionError(f"only int and float constants are allowed in {text!r}")
    elif isinstance(node, ast.Name):
        if node.id not in symbols and node.id not in functions:
            raise ExpressionError(f"unknown name {node.id!r} in {text!r}")
    elif isinstance(node, ast.Call):
        check_call(node, text, functions)
    elif isinstance(node, ast.BinOp):
        check_binary(node, text)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in UNARY:
            raise ExpressionError(f"operator {type(node.op).__name__} is not allowed in {text!r}")
    elif isinstance(node, ast.Compare):
        if any(type(op) not in COMPARE for op in node.ops):
            raise ExpressionError(f"comparison not allowed in {text!r}")
    elif not isinstance(node, ast.Expression | ast.Load | ast.operator | ast.unaryop | ast.cmpop):
        raise ExpressionError(f"{type(node).__name__} is not allowed in {text!r}")


def check_call(node: ast.Call, text: str, functions: frozenset[str] | set[str]) -> None:
    if not isinstance(node.func, ast.Name) or node.func.id not in functions:
        raise ExpressionError(f"only calls of {sorted(functions)} are allowed in {text!r}")
    if node.keywords:
        raise ExpressionError(f"keyword arguments are not allowed in {text!r}")


def check_binary(node: ast.BinOp, text: str) -> None:
    if type(node.op) not in BINARY:
        raise ExpressionError(f"operator {type(node.op).__name__} is not allowed in {text!r}")
    if isinstance(node.op, ast.Pow):
        exponent = node.right
        if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.operand, ast.Constant):
            exponent = exponent.operand
        if not is_small_number(exponent):
            raise ExpressionError(
                f"an exponent must be a constant with |exponent| <= {MAX_EXPONENT} in {text!r}"
            )


def is_small_number(node: ast.expr) -> bool:
    """A literal int or float with |value| <= MAX_EXPONENT (bounds the work a spec can ask for)."""
    if not isinstance(node, ast.Constant) or type(node.value) not in (int, float):
        return False
    return abs(float(node.value)) <= MAX_EXPONENT  # type: ignore[arg-type]  # int or float, checked above


def evaluate(
    text: str,
    bindings: Mapping[str, Any],
    functions: Mapping[str, Callable[..., Any]] | None = None,
) -> Any:
    """Evaluate text with symbols bound to values and the named functions callable."""
    table = dict(functions or {})
    tree = parse_expression(text, set(bindings), set(table))
    return run(tree, bindings, table)


def run(node: ast.expr, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return bindings[node.id]
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)](
            run(node.left, bindings, functions), run(node.right, bindings, functions)
        )
    if isinstance(node, ast.UnaryOp):
        return UNARY[type(node.op)](run(node.operand, bindings, functions))
    if isinstance(node, ast.Compare):
        return run_compare(node, bindings, functions)
    return run_call(node, bindings, functions)


def run_call(node: Any, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]) -> Any:
    """parse_expression admits no other node here: a call of a named, listed function."""
    return functions[node.func.id](*(run(arg, bindings, functions) for arg in node.args))


def run_compare(
    node: ast.Compare, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]
) -> Any:
    left = run(node.left, bindings, functions)
    result: Any = True
    for op, right_node in zip(node.ops, node.comparators):
        right = run(right_node, bindings, functions)
        result = result & COMPARE[type(op)](left, right)
        left = right
    return result

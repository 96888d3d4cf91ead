"""A restricted evaluator for spec expressions, built on the ast module and never on eval.

Allowed: numbers, symbols, + - * / // % **, unary + and -, comparisons (chained ones stop at the
first false link, as Python's do), parentheses, and calls of functions the caller names. Anything
else (attribute access, subscripts, boolean operators, conditionals, unknown names or calls,
lambdas, an exponent that is not a constant within MAX_EXPONENT) is rejected before evaluation
starts. Limits keep a hostile spec from exhausting the machine, each refused with ExpressionError:
the text's length, its nesting depth, and the size of every integer (a power is refused before it
is computed when bit_length(base) * exponent exceeds MAX_INT_BITS).
"""

from __future__ import annotations

import ast
import functools
import operator
import threading
from collections.abc import Callable, Mapping
from typing import Any

MAX_EXPONENT = 64
MAX_LENGTH = 2000  # characters of one expression; the specs' longest is under 100
MAX_DEPTH = 100  # nesting of its syntax tree (ast.parse and run recurse)
MAX_INT_BITS = 1024  # any integer constant or result: float64's range, far beyond any spec count

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


# CPython 3.11's AST constructor is not thread-safe: two threads parsing at once can raise
# "SystemError: AST constructor recursion depth mismatch" (seen when verify runs in threads). Every
# parse in the verify path takes this lock.
PARSE_LOCK = threading.Lock()


def parse_eval(text: str) -> ast.Expression:
    with PARSE_LOCK:
        return ast.parse(text, mode="eval")


def parse_module(source: str | bytes) -> ast.Module:
    with PARSE_LOCK:
        return ast.parse(source)


# parse_eval of one text, remembered (tests evaluate one formula thousands of times and the parse was
# most of the cost). Only the stdlib parse is cached: every check below still runs on every call, so a
# broken check is never hidden behind an earlier call's result. Bounded: a spec holds a few hundred texts.
parse_tree = functools.lru_cache(maxsize=1024)(parse_eval)


def parse_expression(
    text: str, symbols: frozenset[str] | set[str], functions: frozenset[str] | set[str]
) -> ast.expr:
    """Parse and check once; the result is safe to evaluate with those symbols and functions."""
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"an expression may have at most {MAX_LENGTH} characters, this one has {len(text)}"
        )
    try:
        tree: ast.Expression = parse_tree(text)
    except SyntaxError as error:
        raise ExpressionError(f"not an expression: {text!r} ({error.msg})") from None
    check_depth(tree.body, text)
    for node in ast.walk(tree):
        check_node(node, text, symbols, functions)
    return tree.body


def check_depth(root: ast.expr, text: str) -> None:
    """Refuse a tree nested deeper than MAX_DEPTH, without recursing (the check must not overflow)."""
    pending: list[tuple[ast.expr, int]] = [(root, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ExpressionError(f"an expression may nest at most {MAX_DEPTH} levels deep: {text[:60]!r}...")
        pending.extend(
            (child, depth + 1) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)
        )


def check_node(
    node: ast.AST,
    text: str,
    symbols: frozenset[str] | set[str],
    functions: frozenset[str] | set[str],
) -> None:
    if isinstance(node, ast.Constant):
        check_constant(node.value, text)
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


def check_constant(value: object, text: str) -> None:
    if type(value) not in (int, float):
        raise ExpressionError(f"only int and float constants are allowed in {text!r}")
    if type(value) is int and value.bit_length() > MAX_INT_BITS:
        raise ExpressionError(f"an integer constant has more than {MAX_INT_BITS} bits in {text!r}")


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
    try:
        return run(tree, bindings, table)
    except ExpressionError as error:
        raise ExpressionError(f"{error} in {text!r}") from None


def run(node: ast.expr, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return bindings[node.id]
    if isinstance(node, ast.BinOp):
        return run_binary(node, bindings, functions)
    if isinstance(node, ast.UnaryOp):
        return UNARY[type(node.op)](run(node.operand, bindings, functions))
    if isinstance(node, ast.Compare):
        return run_compare(node, bindings, functions)
    return run_call(node, bindings, functions)


def run_binary(
    node: ast.BinOp, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]
) -> Any:
    left = run(node.left, bindings, functions)
    right = run(node.right, bindings, functions)
    if isinstance(node.op, ast.Pow):
        check_power(left, right)
    return check_size(BINARY[type(node.op)](left, right))


def check_power(base: Any, exponent: Any) -> None:
    """Refuse an integer power before computing it when its size estimate exceeds MAX_INT_BITS."""
    if isinstance(base, int) and isinstance(exponent, int) and base.bit_length() * exponent > MAX_INT_BITS:
        raise ExpressionError(
            f"{base.bit_length()}-bit integer ** {exponent} would have up to "
            f"{base.bit_length() * exponent} bits, more than {MAX_INT_BITS}"
        )


def check_size(value: Any) -> Any:
    """An integer result beyond MAX_INT_BITS is refused (the next operation could not be bounded)."""
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise ExpressionError(f"an integer result has {value.bit_length()} bits, more than {MAX_INT_BITS}")
    return value


def run_call(node: Any, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]) -> Any:
    """parse_expression admits no other node here: a call of a named, listed function."""
    return functions[node.func.id](*(run(arg, bindings, functions) for arg in node.args))


def run_compare(
    node: ast.Compare, bindings: Mapping[str, Any], functions: Mapping[str, Callable[..., Any]]
) -> Any:
    """a < b < c as Python's (a < b) and (b < c): the first false link (c then never evaluated), else
    the last link, each as its comparison gave it.

    Once a link is an array (which has no single truth value) the links combine elementwise with &."""
    left = run(node.left, bindings, functions)
    combined: Any = None  # the links so far, &-ed, once one of them is an array
    link: Any = True
    for op, right_node in zip(node.ops, node.comparators):
        right = run(right_node, bindings, functions)
        link = COMPARE[type(op)](left, right)
        if combined is not None or getattr(link, "ndim", 0) > 0:
            combined = link if combined is None else combined & link
        elif not link:
            return link
        left = right
    return link if combined is None else combined

"""Mutants of one spec expression, made on its ast and written back with ast.unparse.

Each function returns (description, mutated text) pairs in a fixed order (ast.walk order), so a
mutant's index is stable from run to run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

SWAPPABLE: tuple[type[ast.operator], ...] = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
SYMBOL_OF: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
}

Edit = tuple[str, str]


def parsed(text: str) -> ast.Expression:
    """A formula's text as one expression (the spec's formulas are expressions, never statements)."""
    return ast.parse(text, mode="eval")


def nodes(tree: ast.AST, wanted: Callable[[ast.AST], bool]) -> list[ast.AST]:
    return [node for node in ast.walk(tree) if wanted(node)]


def edited(
    text: str, index: int, wanted: Callable[[ast.AST], bool], change: Callable[[ast.AST], ast.AST]
) -> str:
    """The text with the index-th wanted node (ast.walk order) replaced by change(node)."""
    tree = parsed(text)
    target = nodes(tree, wanted)[index]
    replacement = change(target)

    class Replace(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if node is target:
                return replacement
            visited: ast.AST = super().visit(node)
            return visited

    return ast.unparse(Replace().visit(tree))


def is_swappable(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and type(node.op) in SWAPPABLE


def is_integer(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def operator_swaps(text: str) -> Iterator[Edit]:
    """Each + - * / ** replaced by each of the others."""
    for index, node in enumerate(nodes(parsed(text), is_swappable)):
        assert isinstance(node, ast.BinOp)
        for other in SWAPPABLE:
            if other is not type(node.op):

                def swap(found: ast.AST, op: type[ast.operator] = other) -> ast.AST:
                    assert isinstance(found, ast.BinOp)
                    return ast.BinOp(found.left, op(), found.right)

                before, after = SYMBOL_OF[type(node.op)], SYMBOL_OF[other]
                yield f"operator {index}: {before} -> {after}", edited(text, index, is_swappable, swap)


def constant_shifts(text: str) -> Iterator[Edit]:
    """Each integer constant plus and minus one."""
    for index, node in enumerate(nodes(parsed(text), is_integer)):
        assert isinstance(node, ast.Constant)
        number = int(node.value)  # type: ignore[arg-type]  # is_integer: an int
        for delta in (1, -1):
            shifted = number + delta

            def shift(_: ast.AST, number: int = shifted) -> ast.AST:
                return ast.Constant(number)

            yield f"constant {index}: {number} -> {shifted}", edited(text, index, is_integer, shift)


def symbol_swaps(text: str, symbols: frozenset[str]) -> Iterator[Edit]:
    """Each pair of distinct symbols the expression uses, exchanged."""
    tree = parsed(text)
    used = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in symbols})
    for position, first in enumerate(used):
        for second in used[position + 1 :]:
            exchanged = Exchange({first: second, second: first}).visit(parsed(text))
            yield f"symbols {first} <-> {second}", ast.unparse(exchanged)


class Exchange(ast.NodeTransformer):
    """Renames symbols by a mapping (both ways for a swap)."""

    def __init__(self, pair: dict[str, str]) -> None:
        self.pair = pair

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(self.pair.get(node.id, node.id))  # the text is unparsed: no ctx needed


def is_product(node: ast.AST) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Div)


def factor_drops(text: str) -> Iterator[Edit]:
    """Each factor of a product or quotient dropped: a*b -> a and b; a/b -> a and 1/b."""
    for index, node in enumerate(nodes(parsed(text), is_product)):
        assert isinstance(node, ast.BinOp)
        dividing = isinstance(node.op, ast.Div)

        def keep_left(found: ast.AST) -> ast.AST:
            assert isinstance(found, ast.BinOp)
            return found.left

        def drop_left(found: ast.AST, quotient: bool = dividing) -> ast.AST:
            assert isinstance(found, ast.BinOp)
            return ast.BinOp(ast.Constant(1), ast.Div(), found.right) if quotient else found.right

        yield f"factor {index}: drop {ast.unparse(node.right)}", edited(text, index, is_product, keep_left)
        yield f"factor {index}: drop {ast.unparse(node.left)}", edited(text, index, is_product, drop_left)


def negated(text: str) -> str:
    """The expression with its sign flipped."""
    return ast.unparse(ast.UnaryOp(ast.USub(), parsed(text).body))

"""Graph traversal shared by the scalar engine (Value) and the tensor engine (Tensor)."""

from __future__ import annotations

from typing import Any, Protocol, TypeVar


class GraphNode(Protocol):
    """Anything with the nodes it was computed from; hashed by identity."""

    parents: tuple[Any, ...]


Node = TypeVar("Node", bound=GraphNode)


def topological_order(root: Node) -> list[Node]:
    """Every node reachable from root, parents before children, without recursion.

    An explicit stack instead of recursion: a graph of a million nodes is ordered without touching
    Python's recursion limit (micrograd's recursive sort fails at a depth of 1,000).
    """
    order: list[Node] = []
    visited: set[Node] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
        elif node not in visited:
            visited.add(node)
            stack.append((node, True))
            for parent in node.parents:
                if parent not in visited:
                    stack.append((parent, False))
    return order

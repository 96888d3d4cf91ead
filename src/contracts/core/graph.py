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
    Python's recursion limit (micrograd's recursive sort fails at a depth of 1,000). A node is pushed
    with a None marker above it (no node is None), then its parents above that: when the marker comes
    off the stack again, every parent is in the order, and the node below the marker goes in next.
    """
    order: list[Node] = []
    visited: set[Node] = set()
    stack: list[Node | None] = [root]
    while stack:
        node = stack.pop()
        if node is None:
            order.append(stack.pop())  # type: ignore[arg-type]  # below a marker is always a node
        elif node not in visited:
            visited.add(node)
            stack.append(node)
            stack.append(None)
            stack.extend(node.parents)  # a parent already visited is skipped when it is popped
    return order

"""Shape rules of the tensor ops, over plain tuples: checked before any array work or node.

Broadcasting follows the array API standard (align trailing axes; sizes must be equal or 1).
matmul follows numpy's promotion: a 1-D first operand acts as a (1, n) row, a 1-D second operand
as an (n, 1) column, and the promoted axis is absent from the result; batch axes broadcast.
"""

from __future__ import annotations

from contracts.core.errors import ShapeError

Shape = tuple[int, ...]


def broadcast_shape(where: str, *shapes: Shape) -> Shape:
    """The shape every operand broadcasts to, or ShapeError naming the shapes and the axis."""
    ndim = max((len(shape) for shape in shapes), default=0)
    result: list[int] = []
    for axis in range(-ndim, 0):
        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis}
        sizes.discard(1)
        if len(sizes) > 1:
            listed = " and ".join(str(shape) for shape in shapes)
            raise ShapeError(
                f"{where}: cannot broadcast shapes {listed}: axis {axis} has sizes "
                f"{sorted(sizes)} (each must equal the others or 1)"
            )
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def matmul_shape(a: Shape, b: Shape) -> Shape:
    """matmul's result shape with numpy's 1-D promotion, or ShapeError."""
    if len(a) == 0 or len(b) == 0:
        raise ShapeError(f"matmul: operands must have at least 1 dimension, got shapes {a} and {b}")
    inner_b = b[-2] if len(b) > 1 else b[-1]  # b's contracted axis: its rows, or a 1-D b itself
    if a[-1] != inner_b:
        raise ShapeError(
            f"matmul: inner dimensions must match, got shapes {a} and {b} ({a[-1]} != {inner_b})"
        )
    batch = broadcast_shape(f"matmul: batch dimensions of {a} and {b}", a[:-2], b[:-2])
    rows = a[-2:-1]  # () for a 1-D first operand
    columns = b[-1:] if len(b) >= 2 else ()
    return batch + rows + columns


def summed_axes(frame: Shape, shape: Shape) -> tuple[int, ...]:
    """Axes to sum so a gradient in the broadcast frame gets the input's shape.

    Every leading axis the input lacks, and every axis where the input had size 1 and the frame
    does not.
    """
    leading = len(frame) - len(shape)
    stretched = (
        leading + axis for axis, size in enumerate(shape) if size == 1 and frame[leading + axis] != 1
    )
    return (*range(leading), *stretched)

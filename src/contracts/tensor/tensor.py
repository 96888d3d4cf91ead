"""Tensor: an array of float64 over an injected array namespace, with reverse-mode gradients.

Dtype policy: every Tensor holds float64, whatever it was built from. Python ints and floats,
nested lists of them and integer or floating arrays are converted to float64; bool and complex
data are refused (TypeError), and so are nan and inf (ValueError) where data enters (the
constructor, which always copies). Upstream gradients passed to backward follow the same policy.

Copies and aliasing (T.rule.grad-ownership): backward reads the upstream gradient and never writes
it. A finite float64 upstream is used as is, without a copy: one summing pass proves every element
finite (nan and inf make the sum non-finite; a sum that merely overflows falls back to the exact
element check, as does every other dtype, which is then converted). So an op result's .grad (this
call's gradient, the root's included) may be the caller's upstream array itself or share memory with
other op results' grads: read it, do not write into it. A leaf's .grad is its own: a fresh array that
shares memory with no upstream and no other tensor's grad, so it can be updated in place.

The namespace (numpy by default, or any array-API namespace such as array_api_strict) is injected
per tensor, as the seed injects np or mx; the tensor code calls only array-API standard functions.

backward builds the topological order iteratively (no recursion): a scalar output seeds 1; a
non-scalar output needs an explicit upstream gradient of its shape. Intermediate grads are
recomputed on every call; leaf grads accumulate across calls (as Value does): each call sums its
own gradients first and adds them to a leaf once, so a second call adds exactly one more copy.

Numeric policy (T.rule.finite): every op result is finite, or the op is refused (OverflowError
naming the op, the operand shapes and the count) before its node exists; every gradient a backward
would write is finite, or backward is refused (OverflowError) before it writes any .grad.

Mutability (T.rule.frozen): a Tensor is frozen after construction (FrozenError on assignment or
deletion); its data array is read-only where the namespace allows it (numpy: writeable = False), so
backward always reads the data the forward used. backward sets .grad itself; a leaf's .grad array is
its own and may be updated in place.
"""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import TYPE_CHECKING, Any

import numpy as np

from contracts.core.errors import ShapeError
from contracts.core.frozen import Frozen, set_fields
from contracts.core.graph import topological_order

if TYPE_CHECKING:
    from contracts.tensor.op import Op

Shape = tuple[int, ...]


class NodeCounter:
    """Operation nodes created since this counter was installed (see reset_node_counter)."""

    __slots__ = ("nodes",)

    def __init__(self) -> None:
        self.nodes = 0


COUNTER = [NodeCounter()]  # the installed counter; a list so the module global is never rebound


def reset_node_counter() -> NodeCounter:
    """Install and return a fresh counter: its .nodes counts every op result created from now on."""
    COUNTER[0] = NodeCounter()
    return COUNTER[0]


def python_elements(data: object) -> list[object]:
    """The scalars of Python data (an int, or nested lists and tuples), in order."""
    found: list[object] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, list | tuple):
            stack.extend(reversed(item))
        else:
            found.append(item)
    return found


def check_python_elements(data: object, where: str) -> bool:
    """What converting Python data would hide: a bool or a str among numbers (numpy makes 1.0 or
    parses it) and an int beyond float64's range (a bare OverflowError, or an object array); arrays
    are not scanned. True when the data holds numbers: they are converted as float64 directly (an int
    beyond int64 would otherwise make an object array). All-bool data is left to its dtype."""
    if not isinstance(data, list | tuple | int):
        return False
    items = python_elements(data)
    if all(isinstance(item, bool | np.bool_) for item in items):
        return False
    for item in items:
        if isinstance(item, bool | np.bool_) or not isinstance(item, Real):
            raise TypeError(
                f"{where}: data must be real numbers (int or float, bool and complex rejected), got "
                f"{item!r} ({type(item).__name__}) among numbers"
            )
        if isinstance(item, int) and not -FLOAT64_INT_LIMIT < item < FLOAT64_INT_LIMIT:
            raise ValueError(f"{where}: data must be finite, got {item!r} (beyond float64 range)")
    return True


FLOAT64_INT_LIMIT = 2**1024 - 2**970  # the ints from here on round to inf as float64
FLOAT64_MAX = 1.7976931348623157e308


def to_float64(xp: Any, data: object, where: str) -> Any:
    """data as a float64 array of xp: real numbers only (bool and complex refused), all finite."""
    numbers = check_python_elements(data, where)
    array = xp.asarray(data, dtype=xp.float64) if numbers else xp.asarray(data)
    if not (xp.isdtype(array.dtype, "integral") or xp.isdtype(array.dtype, "real floating")):
        raise TypeError(
            f"{where}: data must be real numbers (int or float, bool and complex rejected), "
            f"got dtype {array.dtype}"
        )
    array = xp.astype(array, xp.float64)  # a copy: the Tensor owns its data
    if not all_finite(xp, array):
        raise ValueError(
            f"{where}: data must be finite, got {count_nonfinite(xp, array)} nan or inf element(s)"
        )
    return array


def all_finite(xp: Any, array: Any) -> bool:
    """Every element finite: one summing pass (nan and inf propagate through sums), and the exact
    elementwise check only when that sum is not finite (it may merely overflow)."""
    return math.isfinite(finite_sum(xp, array)) or bool(xp.all(xp.isfinite(array)))


def read_only(array: Any) -> Any:
    """The array, made read-only if it is a numpy array (numpy scalars are immutable already)."""
    if isinstance(array, np.ndarray):
        array.flags.writeable = False
    return array


class Tensor(Frozen):
    """A float64 array, whether it needs a gradient, its gradient, and the op that produced it."""

    __slots__ = ("data", "grad", "op", "parents", "requires_grad", "xp")
    __array_ufunc__ = None  # numpy arrays defer to Tensor's reflected operators (array @ tensor)

    def __init__(self, data: object, requires_grad: bool = False, xp: Any = None) -> None:
        namespace = np if xp is None else xp
        self.xp: Any
        self.data: Any
        self.requires_grad: bool
        self.grad: Any
        self.op: Op | None
        self.parents: tuple[Tensor, ...]
        set_fields(
            self,
            xp=namespace,
            data=read_only(to_float64(namespace, data, "Tensor")),
            requires_grad=bool(requires_grad),
            grad=None,
            op=None,
            parents=(),
        )

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape_tuple()}, requires_grad={self.requires_grad})"

    def shape_tuple(self) -> Shape:
        return tuple(int(size) for size in self.data.shape)

    @property
    def shape(self) -> Shape:
        return self.shape_tuple()

    # -- operators: the same ops as contracts.tensor.ops, for readable formulas -------------------

    def __add__(self, other: object) -> Tensor:
        from contracts.tensor.ops import add

        return add(self, other)

    def __radd__(self, other: object) -> Tensor:
        from contracts.tensor.ops import add

        return add(other, self)

    def __mul__(self, other: object) -> Tensor:
        from contracts.tensor.ops import multiply

        return multiply(self, other)

    def __rmul__(self, other: object) -> Tensor:
        from contracts.tensor.ops import multiply

        return multiply(other, self)

    def __matmul__(self, other: object) -> Tensor:
        from contracts.tensor.ops import matmul

        return matmul(self, other)

    def __rmatmul__(self, other: object) -> Tensor:
        from contracts.tensor.ops import matmul

        return matmul(other, self)

    # -- reverse mode -----------------------------------------------------------------------------

    def backward(self, grad: object = None) -> None:
        """Accumulate d(sum(grad * self))/d(leaf) into every leaf that requires grad.

        grad None seeds 1 and is allowed only for a scalar (shape ()) output.
        """
        if not self.requires_grad:
            raise ValueError(
                "Tensor.backward: this tensor does not require grad (build a leaf with requires_grad=True)"
            )
        seed = upstream_seed(self, grad)
        order = topological_order(self)
        grads: dict[int, Any] = {id(self): seed}  # this call's gradients, by node
        for node in reversed(order):
            propagate(node, grads)
        settled = [(node, settle(node, grads.get(id(node)))) for node in order]
        for node, grad in settled:
            # the seed itself (an op result root's .grad) is proven finite already, by upstream_seed
            if grad is not None and grad is not seed and not all_finite(node.xp, grad):
                raise OverflowError(
                    f"Tensor.backward: the gradient of {node!r} (op {op_name(node)}) must be finite, "
                    f"got {count_nonfinite(node.xp, grad)} nan or inf element(s) (float64 overflow); "
                    "no .grad was written"
                )
        for node, grad in settled:
            object.__setattr__(node, "grad", grad)


def upstream_seed(root: Tensor, grad: object) -> Any:
    """The upstream gradient for root: 1 for a scalar, else an explicit array of root's shape."""
    shape = root.shape_tuple()
    if grad is None:
        if shape != ():
            raise ShapeError(
                f"Tensor.backward: output has shape {shape}; a non-scalar output needs an "
                f"explicit upstream gradient of shape {shape}"
            )
        return root.xp.ones_like(root.data)  # float64, shape ()
    data = grad.data if isinstance(grad, Tensor) else grad
    seed = upstream_array(root.xp, data)
    seed_shape = tuple(int(size) for size in seed.shape)
    if seed_shape != shape:
        raise ShapeError(
            f"Tensor.backward: upstream gradient has shape {seed_shape}, must equal the output shape {shape}"
        )
    return seed


def upstream_array(xp: Any, data: object) -> Any:
    """data as a finite float64 array: a finite float64 array as is (no copy), else to_float64's."""
    array = xp.asarray(data)
    if array.dtype == xp.float64 and math.isfinite(finite_sum(xp, array)):
        return array  # a finite sum proves every element finite: nan and inf propagate through sums
    return to_float64(xp, array, "Tensor.backward")


def finite_sum(xp: Any, array: Any) -> float:
    """The sum of a float64 array, without numpy's warnings when it is inf or nan (the caller checks)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only the sum runs here
        return float(xp.sum(array))


def propagate(node: Tensor, grads: dict[int, Any]) -> None:
    """Add node's share of this call's gradient into each parent that requires grad."""
    upstream = grads.get(id(node))
    if node.op is None or upstream is None:
        return
    arrays = tuple(parent.data for parent in node.parents)
    shares = node.op.input_grads(node.xp, upstream, node.data, arrays)
    for parent, share in zip(node.parents, shares):
        if parent.requires_grad:
            key = id(parent)
            grads[key] = share if key not in grads else grads[key] + share


def settle(node: Tensor, grad: Any) -> Any:
    """The .grad node takes: an op result this call's gradient; a leaf its earlier grad plus it.

    A leaf's first gradient is copied, so the leaf owns it (it may be the caller's upstream or shared
    with another tensor's grad); a leaf with no gradient this call keeps its grad.
    """
    if node.parents:
        return grad
    if grad is None:
        return node.grad
    return node.xp.asarray(grad, copy=True) if node.grad is None else node.grad + grad


def op_name(node: Tensor) -> str:
    return "leaf" if node.op is None else node.op.name


def count_nonfinite(xp: Any, array: Any) -> int:
    return int(xp.count_nonzero(xp.logical_not(xp.isfinite(array))))


def make_node(xp: Any, data: Any, op: Op, parents: tuple[Tensor, ...], proven_finite: bool) -> Tensor:
    """An op result: trusted data (computed, not entered), proven finite (by the caller's bound, or
    here), wired to its parents and counted."""
    if not proven_finite and not all_finite(xp, data):
        shapes = ", ".join(str(parent.shape_tuple()) for parent in parents)
        raise OverflowError(
            f"{op.name}: every result element must be finite, got {count_nonfinite(xp, data)} nan or "
            f"inf element(s) from finite operands of shapes {shapes} (float64 overflow); no node is created"
        )
    requires_grad = any(parent.requires_grad for parent in parents)
    node = Tensor.__new__(Tensor)
    set_fields(
        node,
        xp=xp,
        data=read_only(data),
        requires_grad=requires_grad,
        grad=None,
        op=op,
        parents=parents if requires_grad else (),
    )
    COUNTER[0].nodes += 1
    return node

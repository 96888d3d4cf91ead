"""Scalar reverse-mode autodiff (the seeds' Stage 03 engine), readable in one sitting.

Each operation node stores its parents and the local derivative with respect to each parent, so
backward is one multiply-add per edge. The topological order is built iteratively: a graph of a
million nodes backpropagates without touching Python's recursion limit.

Numeric policy (S03.rule.finite): a leaf's data and a constant operand enter as finite floats (a
real number converted once, bool and non-finite refused); every operation's result and local
derivatives are finite, or the operation is refused before any node is created (OverflowError naming
the operation, the operands and the result; pow keeps S03.fail.pow-domain's ValueError); a backward
whose gradient overflows is refused and leaves every .grad as it was.

Mutability (S03.rule.value-cells): data and grad are writable cells by design (the optimizer's step,
zero_grad); parents and local_grads are fixed at creation. backward uses the local derivatives taken
at forward time, so data assigned after a forward changes the next forward, never this graph's
gradient.
"""

from __future__ import annotations

import math
from math import isfinite
from operator import attrgetter
from typing import ClassVar, NoReturn

from contracts.core.checks import real_number
from contracts.core.frozen import refuse_assignment, refuse_deletion
from contracts.core.graph import topological_order


def leaf_data(data: object, where: str) -> float:
    """A finite float: exact finite floats as they are, any other real converted once (or refused)."""
    if type(data) is float and isfinite(data):
        return data
    return real_number(data, where, "data")


def constant(other: object, where: str) -> float:
    """A number operand (no node, no gradient) as a finite float."""
    if type(other) is float and isfinite(other):
        return other
    return real_number(other, where, "constant operand")


def refuse_overflow(where: str, relation: str, result: object) -> NoReturn:
    raise OverflowError(
        f"{where}: {relation} = {result!r} must be finite (it overflows float64); no node is created"
    )


def refuse_parents(owner: object, value: object) -> NoReturn:
    refuse_assignment(owner, "parents", value)


def refuse_local_grads(owner: object, value: object) -> NoReturn:
    refuse_assignment(owner, "local_grads", value)


def keep_parents(owner: object) -> NoReturn:
    refuse_deletion(owner, "parents")


def keep_local_grads(owner: object) -> NoReturn:
    refuse_deletion(owner, "local_grads")


class Value:
    """A scalar with a gradient and the operation that produced it."""

    __slots__ = ("_local_grads", "_parents", "data", "grad")

    def __init__(
        self,
        data: float,
        parents: tuple[Value, ...] = (),
        local_grads: tuple[float, ...] = (),
    ) -> None:
        # an operation's result was checked by the operation; a leaf is checked here
        self.data = data if parents else leaf_data(data, type(self).__name__)
        self.grad = 0.0
        self._parents = parents
        self._local_grads = local_grads

    # read in C (attrgetter); assignment and deletion refused
    parents = property(attrgetter("_parents"), refuse_parents, keep_parents)
    local_grads = property(attrgetter("_local_grads"), refuse_local_grads, keep_local_grads)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data={self.data!r}, grad={self.grad!r})"

    # -- arithmetic: a Value operand becomes a parent, a Python number a constant ----------------

    def __add__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            data = self.data + other.data
            if not isfinite(data):
                refuse_overflow("Value.__add__", f"{self.data!r} + {other.data!r}", data)
            return type(self)(data, (self, other), (1.0, 1.0))
        c = constant(other, "Value.__add__")
        data = self.data + c
        if not isfinite(data):
            refuse_overflow("Value.__add__", f"{self.data!r} + {c!r}", data)
        return type(self)(data, (self,), (1.0,))

    def __radd__(self, other: float) -> Value:
        c = constant(other, "Value.__radd__")
        data = c + self.data
        if not isfinite(data):
            refuse_overflow("Value.__radd__", f"{c!r} + {self.data!r}", data)
        return type(self)(data, (self,), (1.0,))

    def __sub__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            data = self.data - other.data
            if not isfinite(data):
                refuse_overflow("Value.__sub__", f"{self.data!r} - {other.data!r}", data)
            return type(self)(data, (self, other), (1.0, -1.0))
        c = constant(other, "Value.__sub__")
        data = self.data - c
        if not isfinite(data):
            refuse_overflow("Value.__sub__", f"{self.data!r} - {c!r}", data)
        return type(self)(data, (self,), (1.0,))

    def __rsub__(self, other: float) -> Value:
        c = constant(other, "Value.__rsub__")
        data = c - self.data
        if not isfinite(data):
            refuse_overflow("Value.__rsub__", f"{c!r} - {self.data!r}", data)
        return type(self)(data, (self,), (-1.0,))

    def __mul__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            data = self.data * other.data
            if not isfinite(data):
                refuse_overflow("Value.__mul__", f"{self.data!r} * {other.data!r}", data)
            return type(self)(data, (self, other), (other.data, self.data))
        c = constant(other, "Value.__mul__")
        data = self.data * c
        if not isfinite(data):
            refuse_overflow("Value.__mul__", f"{self.data!r} * {c!r}", data)
        return type(self)(data, (self,), (c,))

    def __rmul__(self, other: float) -> Value:
        c = constant(other, "Value.__rmul__")
        data = c * self.data
        if not isfinite(data):
            refuse_overflow("Value.__rmul__", f"{c!r} * {self.data!r}", data)
        return type(self)(data, (self,), (c,))

    def __truediv__(self, other: Value | float) -> Value:
        denominator = other.data if isinstance(other, Value) else constant(other, "Value.__truediv__")
        if denominator == 0:
            raise ZeroDivisionError(f"Value.__truediv__: divisor must be != 0, got {other!r}")
        quotient = self.data / denominator
        slope = 1.0 / denominator
        other_slope = -quotient / denominator
        if not (isfinite(quotient) and isfinite(slope) and isfinite(other_slope)):
            refuse_overflow(
                "Value.__truediv__",
                f"(x / y, 1 / y, -x / y²) at x = {self.data!r}, y = {denominator!r}",
                (quotient, slope, other_slope),
            )
        if isinstance(other, Value):
            return type(self)(quotient, (self, other), (slope, other_slope))
        return type(self)(quotient, (self,), (slope,))

    def __rtruediv__(self, other: float) -> Value:
        c = constant(other, "Value.__rtruediv__")  # the number enters first (S03.order.division)
        if self.data == 0:
            raise ZeroDivisionError(f"Value.__rtruediv__: divisor must be != 0, got {self!r}")
        quotient = c / self.data
        slope = -quotient / self.data
        if not (isfinite(quotient) and isfinite(slope)):
            refuse_overflow(
                "Value.__rtruediv__", f"(c / y, -c / y²) at c = {c!r}, y = {self.data!r}", (quotient, slope)
            )
        return type(self)(quotient, (self,), (slope,))

    def __neg__(self) -> Value:
        return type(self)(-self.data, (self,), (-1.0,))

    def __pow__(self, exponent: float) -> Value:
        if type(exponent) is bool or not isinstance(exponent, int | float):
            raise TypeError(f"Value.__pow__: exponent must be an int or float constant, got {exponent!r}")
        try:
            result = math.pow(self.data, exponent)
            slope = exponent * math.pow(self.data, exponent - 1)
        except (ValueError, OverflowError) as error:
            raise ValueError(
                f"Value.__pow__: {self.data!r} ** {exponent!r} and its derivative must be finite "
                f"reals ({error})"
            ) from None
        if not isfinite(slope):
            raise ValueError(
                f"Value.__pow__: {self.data!r} ** {exponent!r} and its derivative must be finite "
                f"reals (derivative {slope!r})"
            )
        return type(self)(result, (self,), (slope,))

    # -- nonlinearities ---------------------------------------------------------------------------

    def relu(self) -> Value:
        """max(0, x); the gradient at 0 is 0 (Lucid's maximum gives a tie to its first argument)."""
        slope = 1.0 if self.data > 0 else 0.0
        return type(self)(self.data * slope, (self,), (slope,))

    def exp(self) -> Value:
        try:
            result = math.exp(self.data)
        except OverflowError:
            raise OverflowError(
                f"Value.exp: exp({self.data!r}) overflows float64 (x must be <= {MAX_EXP_INPUT!r})"
            ) from None
        return type(self)(result, (self,), (result,))

    def log(self) -> Value:
        if self.data <= 0:
            raise ValueError(f"Value.log: x must be > 0, got {self.data!r}")
        slope = 1.0 / self.data
        if not isfinite(slope):
            refuse_overflow("Value.log", f"derivative 1 / x at x = {self.data!r}", slope)
        return type(self)(math.log(self.data), (self,), (slope,))

    # -- reverse mode -----------------------------------------------------------------------------

    def backward(self) -> None:
        """Set d(self)/d(self) = 1 and accumulate d(self)/d(node) into every reachable node.

        Intermediate grads are recomputed from zero on every call; leaf grads accumulate across
        calls, so calling backward again adds one more copy of each leaf gradient (a leaf's own
        backward adds 1 each time, as torch's does). A gradient that
        overflows float64 is refused (OverflowError) with every .grad restored to its value before
        the call.
        """
        order = topological_order(self)
        saved = list(map(GRAD, order))
        for node in order:
            if node.parents:
                node.grad = 0.0
        self.grad += 1.0  # zeroed above unless self is a leaf, whose gradient accumulates as any leaf's
        for node in reversed(order):
            upstream = node.grad
            if not isfinite(upstream):
                refuse_gradient(order, saved, node)
            parents = node.parents
            # Unrolled for the one- and two-parent nodes every operation makes; leaves pass.
            if len(parents) == 1:
                parents[0].grad += node.local_grads[0] * upstream
            elif parents:
                for parent, local in zip(parents, node.local_grads):
                    parent.grad += local * upstream


GRAD = attrgetter("grad")


def refuse_gradient(order: list[Value], saved: list[float], node: Value) -> NoReturn:
    """Restore every .grad this backward touched, then refuse naming the node."""
    grad = node.grad
    for value, before in zip(order, saved):
        value.grad = before
    raise OverflowError(
        f"Value.backward: the gradient of {node!r} is {grad!r}, must be finite (it overflows float64); "
        "every .grad is left as it was before this call"
    )


MAX_EXP_INPUT = math.log(1.7976931348623157e308)


def count_operation_nodes(root: Value) -> int:
    """Operation nodes (nodes with parents) reachable from root, found by walking parents."""
    return sum(1 for node in topological_order(root) if node.parents)


class OperationCounter:
    """What CountingValue has created since this counter was installed."""

    __slots__ = ("operations", "values")

    def __init__(self) -> None:
        self.operations = 0  # operation nodes (with parents)
        self.values = 0  # every CountingValue, leaves included


class CountingValue(Value):
    """A Value that counts every operation node it creates (the seeds' CountingValue).

    An operation's result has the type of its left operand, so build every leaf of a counted
    computation as a CountingValue; count_operation_nodes cross-checks the count from the output.
    """

    __slots__ = ()
    counter: ClassVar[OperationCounter] = OperationCounter()

    def __init__(
        self,
        data: float,
        parents: tuple[Value, ...] = (),
        local_grads: tuple[float, ...] = (),
    ) -> None:
        super().__init__(data, parents, local_grads)
        counter = CountingValue.counter
        counter.values += 1
        if parents:
            counter.operations += 1

    @classmethod
    def reset(cls) -> OperationCounter:
        """Install and return a fresh counter."""
        cls.counter = OperationCounter()
        return cls.counter

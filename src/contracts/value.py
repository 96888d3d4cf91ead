"""Scalar reverse-mode autodiff (the seeds' Stage 03 engine), readable in one sitting.

Each operation node stores its parents and the local derivative with respect to each parent, so
backward is one multiply-add per edge. The topological order is built iteratively: a graph of a
million nodes backpropagates without touching Python's recursion limit.

Value is the engine's hot path and trusts its operands: data is validated where it enters (Vector,
Matrix, Embedding, initializers). The operations themselves refuse only what mathematics refuses
(log of x <= 0, exp overflow, division by zero, a non-real power), before any node is created.
"""

from __future__ import annotations

import math
from typing import ClassVar

from contracts.graph import topological_order


class Value:
    """A scalar with a gradient and the operation that produced it."""

    __slots__ = ("data", "grad", "local_grads", "parents")

    def __init__(
        self,
        data: float,
        parents: tuple[Value, ...] = (),
        local_grads: tuple[float, ...] = (),
    ) -> None:
        self.data = data
        self.grad = 0.0
        self.parents = parents
        self.local_grads = local_grads

    def __repr__(self) -> str:
        return f"{type(self).__name__}(data={self.data!r}, grad={self.grad!r})"

    # -- arithmetic: a Value operand becomes a parent, a Python number a constant ----------------

    def __add__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return type(self)(self.data + other.data, (self, other), (1.0, 1.0))
        return type(self)(self.data + other, (self,), (1.0,))

    def __radd__(self, other: float) -> Value:
        return type(self)(other + self.data, (self,), (1.0,))

    def __sub__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return type(self)(self.data - other.data, (self, other), (1.0, -1.0))
        return type(self)(self.data - other, (self,), (1.0,))

    def __rsub__(self, other: float) -> Value:
        return type(self)(other - self.data, (self,), (-1.0,))

    def __mul__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return type(self)(self.data * other.data, (self, other), (other.data, self.data))
        return type(self)(self.data * other, (self,), (float(other),))

    def __rmul__(self, other: float) -> Value:
        return type(self)(other * self.data, (self,), (float(other),))

    def __truediv__(self, other: Value | float) -> Value:
        denominator = other.data if isinstance(other, Value) else other
        if denominator == 0:
            raise ZeroDivisionError(f"Value.__truediv__: divisor must be != 0, got {other!r}")
        quotient = self.data / denominator
        if isinstance(other, Value):
            grads = (1.0 / denominator, -quotient / denominator)
            return type(self)(quotient, (self, other), grads)
        return type(self)(quotient, (self,), (1.0 / denominator,))

    def __rtruediv__(self, other: float) -> Value:
        if self.data == 0:
            raise ZeroDivisionError(f"Value.__rtruediv__: divisor must be != 0, got {self!r}")
        quotient = other / self.data
        return type(self)(quotient, (self,), (-quotient / self.data,))

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
        return type(self)(math.log(self.data), (self,), (1.0 / self.data,))

    # -- reverse mode -----------------------------------------------------------------------------

    def backward(self) -> None:
        """Set d(self)/d(self) = 1 and accumulate d(self)/d(node) into every reachable node.

        Intermediate grads are recomputed from zero on every call; leaf grads accumulate across
        calls, so calling backward again adds one more copy of each leaf gradient.
        """
        order = topological_order(self)
        for node in order:
            if node.parents:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            parents = node.parents
            # Unrolled for the one- and two-parent nodes every operation makes; leaves pass.
            if len(parents) == 1:
                parents[0].grad += node.local_grads[0] * node.grad
            elif parents:
                upstream = node.grad
                for parent, local in zip(parents, node.local_grads):
                    parent.grad += local * upstream


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

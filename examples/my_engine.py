"""A minimal adapter: scalar add and mul with their gradients, in plain Python floats."""

from collections.abc import Mapping, Sequence

from contracts.engines.base import Engine


class MyEngine(Engine):
    name = "my-engine"
    capabilities = frozenset({"scalar.add", "scalar.mul"})

    def scalar_vjp(
        self,
        op: str,
        inputs: Sequence[float],
        constants: Mapping[str, float] | None = None,
    ) -> tuple[float, tuple[float, ...]]:
        a, b = (float(x) for x in inputs)
        if op == "add":
            return a + b, (1.0, 1.0)
        if op == "mul":
            return a * b, (b, a)
        raise NotImplementedError(f"{self.name}: scalar_vjp({op!r})")

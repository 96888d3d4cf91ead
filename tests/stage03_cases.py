"""Stage 03 cases: the gradient oracle from spec rows, and domain-failure attempts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contracts import CountingValue
from contracts.spec import SpecRow, evaluate
from contracts.spec.functions import SCALAR
from tests.probes import Attempt

Case = dict[str, Any]


def spec_forward(spec_row: SpecRow, point: dict[str, float]) -> float:
    return float(evaluate(spec_row["forward"], point, SCALAR))


def spec_grads(spec_row: SpecRow, point: dict[str, float], upstream: float = 1.0) -> tuple[float, ...]:
    """The row's vector-Jacobian products, in the order of its domain's inputs."""
    bindings = {**point, "g": upstream}
    return tuple(float(evaluate(spec_row["grads"][name], bindings, SCALAR)) for name in spec_row["domain"])


def split(spec_row: SpecRow, point: dict[str, float]) -> tuple[list[float], dict[str, float]]:
    """Differentiable inputs (domain order) and constants of a point."""
    inputs = [point[name] for name in spec_row["domain"]]
    constants = {name: point[name] for name in spec_row.get("constants", {})}
    return inputs, constants


def log_attempt(case: Case) -> Attempt:
    x = CountingValue(case["x"])
    return Attempt(x.log)


def exp_attempt(case: Case) -> Attempt:
    x = CountingValue(case["x"])
    return Attempt(x.exp)


def pow_attempt(case: Case) -> Attempt:
    x = CountingValue(case["x"])
    exponent: Any = CountingValue(2.0) if case["k"] == "Value" else case["k"]
    return Attempt(lambda: x**exponent)


def div_attempt(case: Case) -> Attempt:
    """form: value (Value / Value), constant (Value / number) or reflected (number / Value)."""
    a, b = CountingValue(case["a"]), CountingValue(case["b"])
    forms: dict[str, Callable[[], object]] = {
        "value": lambda: a / b,
        "constant": lambda: a / case["b"],
        "reflected": lambda: case["a"] / b,
    }
    return Attempt(forms[case.get("form", "value")])


ATTEMPTS: dict[str, Callable[[Case], Attempt]] = {
    "S03.fail.log-domain": log_attempt,
    "S03.fail.exp-overflow": exp_attempt,
    "S03.fail.pow-domain": pow_attempt,
    "S03.fail.pow-exponent": pow_attempt,
    "S03.fail.div-zero": div_attempt,
}

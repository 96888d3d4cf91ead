"""Stage 03 cases: the gradient oracle from spec rows, and domain-failure attempts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contracts import CountingValue
from contracts.spec import SpecRow, evaluate
from contracts.spec.functions import SCALAR
from contracts.spec_suite.probes import Attempt

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


MAKES_OVERFLOW: dict[str, Callable[[Any, Any], object]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "radd": lambda a, b: a.data + b,
    "rsub": lambda a, b: a.data - b,
    "rmul": lambda a, b: a.data * b,
    "rdiv": lambda a, b: a.data / b,
    "add-constant": lambda a, b: a + b.data,
    "mul-constant": lambda a, b: a * b.data,
    "div-constant": lambda a, b: a / b.data,
    "log": lambda a, _b: a.log(),
}


def overflow_attempt(case: Case) -> Attempt:
    """op over leaves a and b (b = 1.0 when absent); r-forms put a's data on the left as a number."""
    a, b = CountingValue(case["a"]), CountingValue(case.get("b", 1.0))
    return Attempt(lambda: MAKES_OVERFLOW[case["op"]](a, b), offending=case["a"])


def gradient_attempt(case: Case) -> Attempt:
    """out = log(x) * scale, after an earlier successful backward of log(x) (grads already set)."""
    x = CountingValue(case["a"])
    y = x.log()
    out = y * case["scale"]
    y.backward()
    return Attempt(out.backward, parameters=[x, y, out])


def big_number(case: Case) -> Any:
    return 10 ** case["power"] if "power" in case else case["x"]


def leaf_data_attempt(case: Case) -> Attempt:
    """op leaf: CountingValue(x); otherwise v op x with x a number operand."""
    x = big_number(case)
    v = CountingValue(2.0)
    if case["op"] == "leaf":
        return Attempt(lambda: CountingValue(x), offending=x)
    return Attempt(lambda: MAKES_OVERFLOW[f"{case['op']}-constant"](v, Number(x)), offending=x)


class Number:
    """A number operand carried where MAKES_OVERFLOW's constant forms read .data."""

    def __init__(self, data: object) -> None:
        self.data = data


ATTEMPTS: dict[str, Callable[[Case], Attempt]] = {
    "S03.fail.log-domain": log_attempt,
    "S03.fail.exp-overflow": exp_attempt,
    "S03.fail.pow-domain": pow_attempt,
    "S03.fail.pow-exponent": pow_attempt,
    "S03.fail.div-zero": div_attempt,
    "S03.fail.result-overflow": overflow_attempt,
    "S03.fail.gradient-overflow": gradient_attempt,
    "S03.fail.leaf-data": leaf_data_attempt,
}

"""Which generated mutants are no mutants: the loader refuses them, or they state the same function.

A mutated expression the loader refuses (say an exponent that is not a small constant) is not a
spec anyone could write. A mutated expression equal to the original at every sampled point of the
row's domain (a * b -> b * a) states the same contract: it is dropped, not counted, not listed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from contracts.spec import ExpressionError, SpecError, SpecRow
from contracts.spec.expr import evaluate
from contracts.spec.functions import SCALAR, array_functions
from contracts.spec.loader import check_examples, check_expressions, row_expressions

SAMPLES = 24
UPSTREAM = {"min": -2.0, "max": 2.0, "type": "float"}
SHAPE = (2, 2)  # square: matmul and transpose apply, and a swapped pair of operands still fits


def refused(row: Mapping[str, Any], functions: frozenset[str]) -> bool:
    """True when the loader would refuse the row's expressions, or a formula that does not evaluate
    at one of its examples (e.g. a mutant dividing by a symbol the example sets to 0)."""
    loaded = SpecRow(dict(row), "-", "-", functions)
    try:
        check_expressions(loaded)
        check_examples(loaded)
    except SpecError:
        return True
    return False


def domains(row: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    if row["kind"] == "formula":
        return dict(row["symbols"])
    return {**row["domain"], **row.get("constants", {}), "g": UPSTREAM}


def draw(domain: Mapping[str, Any], rng: random.Random, arrays: bool) -> Any:
    low, high = domain["min"], domain["max"]
    if domain.get("type", "int") == "int":
        return rng.randint(int(low), int(high))
    if arrays:
        return np.array([[rng.uniform(low, high) for _ in range(SHAPE[1])] for _ in range(SHAPE[0])])
    return rng.uniform(low, high)


def value_at(text: str, point: Mapping[str, Any], arrays: bool) -> Any:
    functions = array_functions(np) if arrays else SCALAR
    try:
        with np.errstate(all="ignore"):
            return np.asarray(evaluate(text, point, functions), dtype=float)
    except (ArithmeticError, ExpressionError, ValueError):
        return None  # undefined here (division by zero, overflow): compared as such


def same(first: Any, second: Any) -> bool:
    if first is None or second is None:
        return first is None and second is None
    if first.shape != second.shape:
        return False
    return bool(np.allclose(first, second, rtol=1e-9, atol=1e-12, equal_nan=True))


def equivalent(original: Mapping[str, Any], mutated: Mapping[str, Any]) -> bool:
    """Every expression of the mutant equals the original's at SAMPLES points of the domain."""
    arrays = original["kind"] == "gradient"
    rng = random.Random(original["id"])
    before = {name: text for name, text, _ in row_expressions(SpecRow(dict(original), "-", "-", frozenset()))}
    after = {name: text for name, text, _ in row_expressions(SpecRow(dict(mutated), "-", "-", frozenset()))}
    changed = [name for name in before if before[name] != after[name]]
    if not changed:
        return False
    space = domains(original)
    for _ in range(SAMPLES):
        point = {name: draw(domain, rng, arrays) for name, domain in space.items()}
        for name in changed:
            if not same(value_at(before[name], point, arrays), value_at(after[name], point, arrays)):
                return False
    return True

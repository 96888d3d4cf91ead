"""Engine selection: a shipped name, a dotted path `pkg.module:Class`, or CONTRACTS_IMPL."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable

from contracts.engines.base import DTYPES, Engine, MissingExtraError, convention_target
from contracts.spec import SpecRow

SHIPPED = {
    "reference": "contracts.engines.reference:ReferenceEngine",
    "torch": "contracts.engines.torch_engine:TorchEngine",
    "micrograd": "contracts.engines.micrograd_engine:MicrogradEngine",
}
ENV_VAR = "CONTRACTS_IMPL"


def selected_name(cli_value: str | None = None) -> str:
    return cli_value or os.environ.get(ENV_VAR) or "reference"


def load_engine(name: str) -> Engine:
    """Instantiate the engine a name or dotted path points to."""
    target = SHIPPED.get(name, name)
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name)
    factory = getattr(module, attribute or "Engine")
    engine = factory()
    if not isinstance(engine, Engine):
        raise TypeError(f"{target} must produce a contracts.engines.base.Engine, got {engine!r}")
    return engine


class DeclarationError(ValueError):
    """An adapter declares what the spec does not know: a convention for an unknown row or case, or a
    dtype outside DTYPES. One line naming the engine, the key and what the spec has."""


def check_declarations(engine: Engine, rows: Iterable[SpecRow]) -> Engine:
    """The engine, once every conventions key names a spec row (and one of the cases that row lists)
    and its dtype is known; else DeclarationError naming the first that is not."""
    if engine.dtype not in DTYPES:
        raise DeclarationError(f"{engine.name}: dtype {engine.dtype!r} is not one of {', '.join(DTYPES)}")
    cases = {row.id: tuple(row.get("cases", {})) for row in rows}
    for key in engine.conventions:
        row_id, case = convention_target(key)
        if row_id not in cases:
            raise DeclarationError(f"{engine.name}: conventions key {key!r} names no spec row")
        if case is not None and case not in cases[row_id]:
            listed = ", ".join(cases[row_id]) or "none"
            raise DeclarationError(
                f"{engine.name}: conventions key {key!r}: row {row_id} has no case {case!r} "
                f"(its cases: {listed})"
            )
    return engine


__all__ = [
    "ENV_VAR",
    "SHIPPED",
    "DeclarationError",
    "Engine",
    "MissingExtraError",
    "check_declarations",
    "load_engine",
    "selected_name",
]

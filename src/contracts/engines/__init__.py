"""Engine selection: a shipped name, a dotted path `pkg.module:Class`, or CONTRACTS_IMPL."""

from __future__ import annotations

import importlib
import os

from contracts.engines.base import Engine, MissingExtraError

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


__all__ = ["ENV_VAR", "SHIPPED", "Engine", "MissingExtraError", "load_engine", "selected_name"]

"""Port conformance helpers: build an engine's module, and the suite's own checks over what the
adapter reports (plain data only: parameter tables, float64 arrays, identities).

Expected values come from the spec rows (cases.stage07.spec_value and friends) or from numpy
over the parameter values the adapter reports; never from the adapter's own arithmetic.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import reject

from contracts.engines import Engine
from contracts.engines.modules import ModuleUnsupported, ParameterIdentity, SizeUnsupported
from contracts.spec import SpecRow
from contracts.spec_suite.cases.stage08 import DEFAULT_WIDTHS
from contracts.verify.clauses import ClauseError, clause

MODEL = "mlp"  # the seeds' model name: mlp.fc1.weight[2,1] (S07.rule.parameter-identity)
LAYER = "fc1"  # a lone Linear's layer name
# Stage 05's table names, as S05.fail.weight-config's message spells them
TOKEN_WEIGHT, POSITION_WEIGHT = "token_weight", "position_weight"


def build(engine: Engine, make: Callable[[], Any]) -> Any:
    """The engine's module, or a skip (not applicable, with the adapter's reason)."""
    try:
        return make()
    except ModuleUnsupported as unsupported:
        pytest.skip(f"not applicable: {engine.name}: {unsupported}")


def build_or_reject(engine: Engine, make: Callable[[], Any]) -> Any:
    """In a hypothesis test: sizes the engine cannot run are rejected, a missing feature skips."""
    try:
        return make()
    except SizeUnsupported:
        reject()
    except ModuleUnsupported as unsupported:
        pytest.skip(f"not applicable: {engine.name}: {unsupported}")


def layer_names(widths: Sequence[int], use_bias: bool, model: str | None = MODEL) -> list[str]:
    """Tensor names in the seal's order: layer by layer, weight then bias (S07.rule.parameter-identity)."""
    prefix = f"{model}." if model else ""
    return [
        f"{prefix}fc{index + 1}.{kind}"
        for index in range(len(widths) - 1)
        for kind in (("weight", "bias") if use_bias else ("weight",))
    ]


def layer_shapes(widths: Sequence[int], use_bias: bool) -> list[tuple[int, ...]]:
    """(C_out, C_in) per weight and (C_out,) per bias (S07.rule.weight-layout), in the seal's order."""
    shapes: list[tuple[int, ...]] = []
    for c_in, c_out in itertools.pairwise(widths):
        shapes.append((c_out, c_in))
        if use_bias:
            shapes.append((c_out,))
    return shapes


def scalar_names(name: str, shape: tuple[int, ...]) -> list[str]:
    """The seeds' per-scalar logical names of a tensor: weight[o,i] row-major, bias[o]."""
    if len(shape) == 1:
        return [f"{name}[{o}]" for o in range(shape[0])]
    return [f"{name}[{o},{i}]" for o in range(shape[0]) for i in range(shape[1])]


def numpy_mlp(state: dict[str, np.ndarray], x: np.ndarray, layers: int, model: str | None) -> np.ndarray:
    """y = x Wᵀ + b per layer, relu between layers (S07.rule.weight-layout), from reported values."""
    prefix = f"{model}." if model else ""
    out = np.asarray(x, dtype=np.float64)
    for index in range(layers):
        out = out @ state[f"{prefix}fc{index + 1}.weight"].T
        bias = state.get(f"{prefix}fc{index + 1}.bias")
        if bias is not None:
            out = out + bias
        if index < layers - 1:
            out = np.maximum(out, 0.0)
    return out


# The row each module's logical names belong to: a lookup by a name the engine does not give fails there
NAMING_ROWS = {"embedding": "S05.rule.embedding-shapes", "mlp": "S07.rule.parameter-identity"}
NAMING_ROWS |= {"block": "S08.rule.gain-seal"}


class NamedState(dict[str, np.ndarray]):
    """module_state's values by logical name; a name the engine does not give fails as the naming row's
    clause, naming the names it did give (never a KeyError that every row of the test would share)."""

    def __init__(self, state: dict[str, np.ndarray], naming_row: str) -> None:
        super().__init__(state)
        self.naming_row = naming_row

    def __missing__(self, name: str) -> np.ndarray:
        given = ", ".join(sorted(self)) or "none"
        raise ClauseError(
            self.naming_row, "identity", f"the engine names no parameter {name!r}; it gave: {given}"
        )


def named_state(engine: Engine, module: Any, kind: str) -> NamedState:
    """The engine's module_state, looked up by the spec's logical names (kind: embedding, mlp, block)."""
    return NamedState(engine.module_state(module), NAMING_ROWS[kind])


def identity_changes(before: Sequence[ParameterIdentity], after: Sequence[ParameterIdentity]) -> list[str]:
    """The suite's own seal check: names of parameters whose holders or storage differ (or that
    appeared, vanished or moved)."""
    old = {item.name: item for item in before}
    new = {item.name: item for item in after}
    changed = [name for name in old if name not in new or old[name] != new[name]]
    changed += [name for name in new if name not in old]
    if not changed and [i.name for i in before] != [i.name for i in after]:
        changed.append("<order>")
    return changed


def input_array(tokens: int, width: int) -> np.ndarray:
    """A (T, C_in) input with no zero and no repeated magnitude (relu sees both signs)."""
    return np.array(
        [[0.5 + 0.25 * t - 0.375 * i * (-1) ** i for i in range(width)] for t in range(tokens)],
        dtype=np.float64,
    )


# ---------------------------------------------------------------- Stage 08: the block x + MLP(RMSNorm(x))

BLOCK_MLP = (
    "block.mlp"  # the spec's names: block.norm.gain[i], block.mlp.fc1.weight[0,0] (S08.rule.gain-seal)
)
GAIN = "block.norm.gain"


def block_names(widths: Sequence[int], use_bias: bool) -> list[str]:
    """Tensor names in the seal's order: the gain first, then the MLP's (S08.rule.gain-seal)."""
    return [GAIN, *layer_names(widths, use_bias, BLOCK_MLP)]


def block_shapes(widths: Sequence[int], use_bias: bool) -> list[tuple[int, ...]]:
    """(C,) for the gain (S08.fail.gain-shape's normalized shape), then the MLP's layer shapes."""
    return [(widths[0],), *layer_shapes(widths, use_bias)]


def numpy_norm(gain: np.ndarray, x: np.ndarray, eps: float) -> np.ndarray:
    """x ⊙ gain / sqrt(mean(x²) + eps) per row (S08.rule.block-forward's statement)."""
    rows = np.asarray(x, dtype=np.float64)
    result: np.ndarray = rows * gain / np.sqrt(np.mean(rows * rows, axis=-1, keepdims=True) + eps)
    return result


def numpy_block(state: dict[str, np.ndarray], x: np.ndarray, eps: float, layers: int) -> np.ndarray:
    """x + MLP(RMSNorm(x)) from the reported values (S08.rule.block-forward)."""
    rows = np.asarray(x, dtype=np.float64)
    result: np.ndarray = rows + numpy_mlp(state, numpy_norm(state[GAIN], rows, eps), layers, BLOCK_MLP)
    return result


def attempt(engine: Engine, case: dict[str, Any]) -> Any:
    """module_block from a failure case: the norm's width (norm_width, width or widths[0]) beside an
    MLP over widths (the spec's 2 -> 3 -> 2 by default)."""
    widths = case.get("widths", DEFAULT_WIDTHS)
    width = case.get("norm_width", case.get("width", widths[0]))
    return engine.module_block(
        width, widths, case.get("eps", 1e-6), case.get("use_bias", False), None, case.get("gain_init", 1.0)
    )


def refused_when_built(engine: Engine, spec_row: SpecRow, case: dict[str, Any]) -> None:
    """Building the block raises an engine exception that the adapter maps onto the row's family; else
    the row's refusal clause fails saying the engine built it."""
    with clause(spec_row.id, "refusal"):
        try:
            attempt(engine, case)
        except Exception as error:
            raised: Exception | None = error
        else:
            raised = None
        if raised is None:
            raise AssertionError(
                f"{engine.name} built the block for {case}; spec says {spec_row['exception']} "
                f"at {spec_row['blocked_at']}"
            )
        family = engine.error_family(raised)
        assert spec_row["exception"] == family, (
            f"engine raised {type(raised).__name__}({raised}), which maps to {family}; "
            f"spec says {spec_row['exception']}"
        )

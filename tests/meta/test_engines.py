"""The shipped adapters: lazy imports with an install hint, declared capabilities and conventions,
and (when installed) their numbers on the spec's own examples."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from typing import ClassVar

import numpy as np
import pytest

from contracts.engines import MissingExtraError, load_engine
from contracts.engines.base import Engine
from tests.spec_rows import row


@pytest.mark.parametrize(
    ("name", "hidden", "hint"),
    [
        ("torch", "torch", "pip install -e '.[torch]'"),
        ("micrograd", "micrograd.engine", "pip install -e '.[micrograd]'"),
    ],
)
def test_missing_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, name: str, hidden: str, hint: str
) -> None:
    """Without the engine's package, loading the adapter raises MissingExtraError with the pip command."""
    monkeypatch.setitem(sys.modules, hidden, None)  # makes `import hidden` raise ImportError
    with pytest.raises(MissingExtraError, match=re.escape(hint)) as raised:
        load_engine(name)
    assert name == raised.value.extra


def test_adapter_modules_import_without_their_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter modules import nothing of torch or micrograd until an engine is created."""
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "micrograd.engine", None)
    for module in ("contracts.engines.torch_engine", "contracts.engines.micrograd_engine"):
        monkeypatch.delitem(sys.modules, module, raising=False)
        assert module == importlib.import_module(module).__name__


def test_lacks_explains_missing_capability_and_convention() -> None:
    """The not-applicable reason names the capability and why, or the convention and why."""

    class Partial(Engine):
        name: ClassVar[str] = "partial"
        capabilities: ClassVar[frozenset[str]] = frozenset({"scalar.add"})
        conventions: ClassVar[Mapping[str, str]] = {"T.rule.tie": "splits ties"}
        lacking: ClassVar[Mapping[str, str]] = {"scalar.exp": "has no exp"}

    engine = Partial()
    assert (
        None,
        "partial does not provide scalar.exp (has no exp)",
        "partial does not provide scalar.log",
    ) == (
        engine.lacks("scalar.add", "S03.grad.add"),
        engine.lacks("scalar.exp"),
        engine.lacks("scalar.log"),
    )
    assert "partial convention: splits ties" == engine.lacks("tensor.maximum", "T.rule.tie")


def test_micrograd_capabilities_and_known_failures() -> None:
    """micrograd claims deep-graph and accumulate (so they fail by name) and lacks exp, log, domain."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    assert {"scalar.deep-graph", "scalar.accumulate", "scalar.mul"} <= engine.capabilities
    assert not {"scalar.exp", "scalar.log", "scalar.domain"} & engine.capabilities
    (example,) = row("S03.rule.accumulate")["examples"]
    assert tuple(example["twice"]) != engine.scalar_backward_twice(example["a"], example["b"])
    with pytest.raises(RecursionError, match=r"micrograd's recursive topological sort .* depth 5000"):
        engine.scalar_chain_grad(5000)


def test_micrograd_scalar_examples() -> None:
    """micrograd gives the spec's hand-case numbers for the ops it has, and relu's gradient 0 at 0."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    for row_id in ("S03.grad.mul", "S03.grad.div", "S03.grad.pow"):
        spec_row = row(row_id)
        (example,) = spec_row["examples"]
        inputs = [example["where"][name] for name in spec_row["domain"]]
        constants = {name: example["where"][name] for name in spec_row.get("constants", {})}
        expected = (example["value"], tuple(example["grads"][name] for name in spec_row["domain"]))
        assert expected == engine.scalar_vjp(spec_row["op"], inputs, constants)
    assert (0.0, (0.0,)) == engine.scalar_vjp("relu", [0.0])


def test_torch_tensor_examples_and_tie_convention() -> None:
    """torch reproduces the Stage 05 matmul gradients, and declares its 0.5/0.5 tie split."""
    engine = load_engine_or_skip("torch", "torch")
    (first, _) = row("T.grad.matmul")["examples"]
    value, (grad_a, grad_b) = engine.tensor_vjp(
        "matmul", [np.asarray(x, dtype=np.float64) for x in first["inputs"]], np.asarray(first["upstream"])
    )
    assert (first["value"], first["grads"]["a"], first["grads"]["b"]) == (
        value.tolist(),
        grad_a.tolist(),
        grad_b.tolist(),
    )
    assert np.float64 == value.dtype
    _, (tie_a, tie_b) = engine.tensor_vjp("maximum", [np.zeros(1), np.zeros(1)], np.ones(1))
    assert ([0.5], [0.5]) == (tie_a.tolist(), tie_b.tolist())  # why T.rule.tie is a convention
    assert "T.rule.tie" in engine.conventions
    assert "scalar.domain" not in engine.capabilities


def test_torch_scalar_examples() -> None:
    """torch on 0-d float64 tensors gives the spec's hand cases, and accumulates exactly twice."""
    engine = load_engine_or_skip("torch", "torch")
    assert (-12.0, (-4.0, 3.0)) == engine.scalar_vjp("mul", [3.0, -4.0])
    assert (0.0, (0.0,)) == engine.scalar_vjp("relu", [0.0])
    (example,) = row("S03.rule.accumulate")["examples"]
    assert tuple(example["twice"]) == engine.scalar_backward_twice(example["a"], example["b"])


def load_engine_or_skip(name: str, module: str) -> Engine:
    pytest.importorskip(module)
    return load_engine(name)


def test_base_engine_names_what_it_does_not_implement() -> None:
    """An adapter that claims a family without implementing it fails loudly, naming itself."""

    class Bare(Engine):
        name: ClassVar[str] = "bare"

    engine = Bare()
    calls: dict[str, Callable[[], object]] = {
        "scalar_vjp": lambda: engine.scalar_vjp("add", [1.0, 2.0]),
        "scalar_chain_grad": lambda: engine.scalar_chain_grad(3),
        "scalar_backward_twice": lambda: engine.scalar_backward_twice(1.0, 2.0),
        "tensor_vjp": lambda: engine.tensor_vjp("add", [np.zeros(1), np.zeros(1)], None),
    }
    for method, call in calls.items():
        with pytest.raises(NotImplementedError, match=f"^bare: {method}$"):
            call()
    assert engine.version() is None


def test_micrograd_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    """micrograd: a short chain works, gc stays off if it was off, an unknown op and a missing
    version are handled."""
    import gc
    from importlib import metadata

    engine = load_engine_or_skip("micrograd", "micrograd")
    gc.disable()
    try:
        assert 1.0 == engine.scalar_chain_grad(10)
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(ValueError, match=r"micrograd engine: op must be one of .*, got 'exp'"):
        engine.scalar_vjp("exp", [1.0])

    def missing(_name: str) -> str:
        raise metadata.PackageNotFoundError("micrograd")

    assert "0.1.0" == engine.version()
    monkeypatch.setattr(metadata, "version", missing)
    assert engine.version() is None


def test_torch_edges() -> None:
    """torch: its version, the chain gradient, a scalar-output tensor VJP, and an unknown op."""
    engine = load_engine_or_skip("torch", "torch")
    assert (engine.version() or "").startswith("2.13.0")
    assert 1.0 == engine.scalar_chain_grad(50)
    (example, *_) = row("T.rule.matmul-promotion")["examples"]
    value, grads = engine.tensor_vjp(
        "matmul", [np.asarray(x, dtype=np.float64) for x in example["inputs"]], None
    )
    assert (example["value"], example["grads"]["a"], example["grads"]["b"]) == (
        value.tolist(),
        grads[0].tolist(),
        grads[1].tolist(),
    )
    with pytest.raises(ValueError, match=r"torch engine: op must be one of .*, got 'tanh'"):
        engine.tensor_vjp("tanh", [np.zeros(1)], None)

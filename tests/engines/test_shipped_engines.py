"""The shipped third-party adapters (torch, micrograd, JAX, tinygrad, autograd): lazy imports with an
install hint, declarations the spec knows, the conventions and lacks each claims, and (when the
engine is installed) its numbers on hand-worked cases."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from contracts.engines import SHIPPED, MissingExtraError, check_declarations, load_engine
from contracts.engines.base import TENSOR, Engine, convention_target
from contracts.spec_suite.spec_rows import all_rows, row

# engine name -> (the module whose absence the adapter reports, the package the message names)
ENGINES = {
    "torch": ("torch", "torch"),
    "micrograd": ("micrograd.engine", "micrograd"),
    "jax": ("jax", "jax"),
    "tinygrad": ("tinygrad", "tinygrad"),
    "autograd": ("autograd", "autograd"),
}
ADAPTERS = {
    "torch": "contracts.engines.torch_engine",
    "micrograd": "contracts.engines.micrograd_engine",
    "jax": "contracts.engines.jax_engine",
    "tinygrad": "contracts.engines.tinygrad_engine",
    "autograd": "contracts.engines.autograd_engine",
}


@pytest.fixture(autouse=True)
def keep_recursion_limit() -> Iterator[None]:
    """Importing tinygrad sets Python's recursion limit to 10,000 (tinygrad/schedule/rangeify.py); the
    limit is put back after each test, so later tests of other engines see the interpreter's own."""
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)


def load_or_skip(name: str) -> Engine:
    pytest.importorskip(ENGINES[name][0])
    return load_engine(name)


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_missing_engine_names_its_extra(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Without the engine's package, loading the adapter raises MissingExtraError naming the engine, the
    package and both install commands of its extra."""
    hidden, package = ENGINES[name]
    monkeypatch.setitem(sys.modules, hidden, None)  # makes `import hidden` raise ImportError
    message = (
        f"the {name} engine needs the {package!r} package, which is not installed; install the extra with: "
        f"pip install -e '.[{name}]'  (or: pip install 'contracts[{name}]')"
    )
    with pytest.raises(MissingExtraError, match=f"^{re.escape(message)}$") as raised:
        load_engine(name)
    assert (name, name) == (raised.value.engine, raised.value.extra)


def test_adapter_modules_import_without_their_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The adapter modules import nothing of their engines until an engine is created."""
    for hidden, _ in ENGINES.values():
        monkeypatch.setitem(sys.modules, hidden, None)
    for module in ADAPTERS.values():
        monkeypatch.delitem(sys.modules, module, raising=False)
        assert module == importlib.import_module(module).__name__


def test_every_shipped_name_selects_the_adapter_of_that_name() -> None:
    """verify --impl <name> loads an adapter class that calls itself <name> (its module imports without
    the engine), and every third-party adapter tested here is among the shipped names."""
    named = {}
    for name, target in SHIPPED.items():
        module, _, cls = target.partition(":")
        named[name] = getattr(importlib.import_module(module), cls).name
    assert ({name: name for name in SHIPPED}, set()) == (named, set(ENGINES) - set(SHIPPED))


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_declarations_are_valid(name: str) -> None:
    """Each adapter's capabilities, lacks, error mappings, conventions and dtype are ones the spec knows."""
    engine = load_or_skip(name)
    assert engine is check_declarations(engine, all_rows())
    assert "float64" == engine.dtype


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_every_capability_not_declared_says_why(name: str) -> None:
    """Every known capability an adapter does not declare has its reason in lacking, and every
    convention names a row (or a case of one) with a reason."""
    from contracts.engines import KNOWN_CAPABILITIES

    engine = load_or_skip(name)
    assert sorted(KNOWN_CAPABILITIES - engine.capabilities) == sorted(engine.lacking)
    for key, why in engine.conventions.items():
        row_id, _ = convention_target(key)
        assert row(row_id).id == row_id
        assert why.strip()


# op -> (inputs, constants, value, grads), worked by hand; every value is exact in float64
SCALAR_CASES: dict[str, tuple[list[float], dict[str, float], float, tuple[float, ...]]] = {
    "add": ([3.0, -4.0], {}, -1.0, (1.0, 1.0)),
    "sub": ([3.0, -4.0], {}, 7.0, (1.0, -1.0)),
    "mul": ([3.0, -4.0], {}, -12.0, (-4.0, 3.0)),
    "div": ([3.0, -4.0], {}, -0.75, (-0.25, -0.1875)),
    "neg": ([3.0], {}, -3.0, (-1.0,)),
    "pow": ([3.0], {"k": 2.0}, 9.0, (6.0,)),
    "relu": ([3.0], {}, 3.0, (1.0,)),
    "exp": ([0.0], {}, 1.0, (1.0,)),
    "log": ([1.0], {}, 0.0, (1.0,)),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_scalar_ops_by_hand(name: str) -> None:
    """Every scalar op an adapter declares gives the hand-worked value and gradients, equal inputs
    included (two leaves of the same value stay two leaves)."""
    engine = load_or_skip(name)
    cases = {op: case for op, case in SCALAR_CASES.items() if engine.lacks(f"scalar.{op}") is None}
    results = {
        op: engine.scalar_vjp(op, inputs, constants) for op, (inputs, constants, _, _) in cases.items()
    }
    assert {op: (value, grads) for op, (_, _, value, grads) in cases.items()} == results
    assert (4.0, (2.0, 2.0)) == engine.scalar_vjp("mul", [2.0, 2.0])
    assert 1.0 == engine.scalar_chain_grad(50)


# op -> (inputs, upstream, value, grads), worked by hand
TENSOR_CASES: dict[str, tuple[list[list[float]], list[float], list[float], list[list[float]]]] = {
    "add": ([[1.0, 2.0], [3.0, 5.0]], [1.0, 10.0], [4.0, 7.0], [[1.0, 10.0], [1.0, 10.0]]),
    "multiply": ([[1.0, 2.0], [3.0, 5.0]], [1.0, 10.0], [3.0, 10.0], [[3.0, 50.0], [1.0, 20.0]]),
    "maximum": ([[1.0, 5.0], [3.0, 2.0]], [1.0, 10.0], [3.0, 5.0], [[0.0, 10.0], [1.0, 0.0]]),
    "exp": ([[0.0]], [2.0], [1.0], [[2.0]]),
    "log": ([[1.0]], [2.0], [0.0], [[2.0]]),
    "relu": ([[-1.0, 2.0]], [1.0, 10.0], [0.0, 2.0], [[0.0, 10.0]]),
}


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_tensor_ops_by_hand(name: str) -> None:
    """Every tensor op an adapter declares gives the hand-worked value and VJPs in float64, through
    tensor_vjp and through its graph methods."""
    engine = load_or_skip(name)
    for op, (inputs, upstream, value, grads) in TENSOR_CASES.items():
        if engine.lacks(f"tensor.{op}") is not None:
            continue
        arrays = [np.asarray(x, dtype=np.float64) for x in inputs]
        out, vjps = engine.tensor_vjp(op, arrays, np.asarray(upstream))
        assert (op, value, grads) == (op, out.tolist(), [g.tolist() for g in vjps])
        assert [np.float64] * (len(vjps) + 1) == [out.dtype.type, *(g.dtype.type for g in vjps)]
        graph = engine.tensor_graph(op, arrays, requires_grad=True)
        assert (None,) * len(arrays) == engine.tensor_grads(graph)
        engine.tensor_backward(graph, np.asarray(upstream))
        assert (op, grads) == (op, [np.asarray(g).tolist() for g in engine.tensor_grads(graph)])


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_scalar_program_by_hand(name: str) -> None:
    """out = 3 - (a + b) * a at a = 2, b = 5: value -11, d/da = -(2a + b) = -9, d/db = -a = -2; a
    leaf the output does not reach gets 0."""
    engine = load_or_skip(name)
    program = [("add", (0, 1), ()), ("mul", (3, 0), ()), ("rsub", (4,), (3.0,))]
    assert (-11.0, (-9.0, -2.0, 0.0)) == engine.scalar_program_grads(program, [2.0, 5.0, 7.0])


@pytest.mark.parametrize("name", ["jax", "autograd"])
def test_functional_constants_get_no_gradient(name: str) -> None:
    """A functional engine differentiates only the inputs built requiring grad: the other is closed
    over and gets None; before any backward every gradient is None."""
    engine = load_or_skip(name)
    graph = engine.tensor_graph("multiply", [np.array([2.0, 3.0]), np.array([5.0, 7.0])], (False, True))
    assert (None, None) == engine.tensor_grads(graph)
    engine.tensor_backward(graph, np.array([1.0, 10.0]))
    a_grad, b_grad = engine.tensor_grads(graph)
    assert (None, [2.0, 30.0]) == (a_grad, None if b_grad is None else b_grad.tolist())


@pytest.mark.parametrize("name", ["jax", "autograd"])
def test_functional_implicit_seed(name: str) -> None:
    """With no upstream the engine's own scalar-output gradient runs: refused (as a ShapeError) for the
    (2, 2) output of (2, 1) @ (1, 2), and for a (2,) @ (2,) dot product 1*3 + 2*4 = 11 it gives the
    gradients (b, a)."""
    engine = load_or_skip(name)
    a, b = np.array([[1.0], [2.0]]), np.array([[3.0, 4.0]])
    with pytest.raises(TypeError) as raised:
        engine.tensor_vjp("matmul", [a, b], None)
    assert "ShapeError" == engine.error_family(raised.value)
    value, grads = engine.tensor_vjp("matmul", [a[:, 0], b[0]], None)
    assert (11.0, [[3.0, 4.0], [1.0, 2.0]]) == (value.tolist(), [g.tolist() for g in grads])


def test_tinygrad_accumulates_and_picks_a_device() -> None:
    """tinygrad's backward adds into .grad: out = (ab)^2 + a at a = 2, b = 3 gives (37, 24) once and
    (74, 48) after two calls; with DEV unset the adapter runs on tinygrad's PYTHON device."""
    engine = load_or_skip("tinygrad")
    from tinygrad.helpers import DEV

    assert (74.0, 48.0) == engine.scalar_backward_twice(2.0, 3.0)
    assert DEV.device
    assert (engine.version() or "").startswith("0.14")


def test_jax_computes_in_float64_on_the_cpu() -> None:
    """The adapter turns on jax_enable_x64 (without it 0.1 + 0.2 is float32's 0.3) on the CPU."""
    engine = load_or_skip("jax")
    import jax

    value, _ = engine.tensor_vjp("add", [np.array([0.1]), np.array([0.2])], np.ones(1))
    assert ([0.1 + 0.2], "cpu") == (value.tolist(), jax.default_backend())
    assert (engine.version() or "").startswith("0.10")


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_unknown_op_is_named(name: str) -> None:
    """An op outside the adapter's forms is refused with the adapter's own message, naming it (the
    tensor forms where the adapter has tensors)."""
    engine = load_or_skip(name)
    with pytest.raises(ValueError, match=rf"{name} engine: op must be one of .*, got 'tanh'"):
        engine.scalar_vjp("tanh", [1.0])
    if not engine.capabilities & TENSOR:
        return
    with pytest.raises(ValueError, match=rf"{name} engine: op must be one of .*, got 'tanh'"):
        engine.tensor_vjp("tanh", [np.zeros(1)], None)
    with pytest.raises(ValueError, match=rf"{name} engine: op must be one of .*, got 'add'"):
        engine.tensor_vjp_with("add", [np.zeros(1)], None, {})

"""The shipped adapters: lazy imports with an install hint, declared capabilities and conventions,
and (when installed) their numbers on the spec's own examples."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from contracts.engines import (
    KNOWN_CAPABILITIES,
    DeclarationError,
    check_declarations,
    check_error_families,
    load_engine,
)
from contracts.engines.base import (
    CONTRACT_FAMILIES,
    PROGRAMS,
    SCALAR,
    TENSOR,
    Engine,
    TensorGraph,
    convention_target,
)
from contracts.engines.modules import MODULE
from contracts.spec_suite.spec_rows import all_rows, row


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
    assert "partial convention: splits ties" == engine.lacks("tensor.relu", "T.rule.tie", case="relu")


class CaseConvention(Engine):
    """Declares a convention for maximum's case of the tie row only."""

    name: ClassVar[str] = "cases"
    capabilities: ClassVar[frozenset[str]] = frozenset({"tensor.maximum", "tensor.relu"})
    conventions: ClassVar[Mapping[str, str]] = {"T.rule.tie[maximum]": "splits ties", "S03.rule.x": "other"}


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        pytest.param("maximum", "cases convention for T.rule.tie[maximum]: splits ties", id="its-case"),
        pytest.param("relu", None, id="another-case-runs"),
        pytest.param(None, "cases convention for T.rule.tie[maximum]: splits ties", id="every-case"),
    ],
)
def test_a_case_convention_leaves_out_only_its_case(case: str | None, expected: str | None) -> None:
    """A ROW[case] convention makes that case's tests n/a (and a test of every case), not the other case's."""
    assert expected == CaseConvention().lacks("tensor.relu", "T.rule.tie", case)


def test_a_case_convention_leaves_other_rows_alone() -> None:
    """A case convention of one row says nothing about another row (nor a row id it merely prefixes)."""
    engine = CaseConvention()
    assert (None, None) == (
        engine.lacks("tensor.maximum", "T.rule.tie-other", "maximum"),
        engine.lacks("tensor.maximum", "T.rule", None),
    )


class WholeRowConvention(Engine):
    name: ClassVar[str] = "whole-row"
    capabilities: ClassVar[frozenset[str]] = frozenset({"tensor.sum"})
    conventions: ClassVar[Mapping[str, str]] = {"S06.fail.axis": "refuses axes its own way"}


def test_a_whole_row_convention_leaves_a_row_it_prefixes_alone() -> None:
    """A convention for S06.fail.axis makes that row n/a, never S06.fail.axis-type (its id a prefix)."""
    engine = WholeRowConvention()
    assert ("whole-row convention: refuses axes its own way", None) == (
        engine.lacks("tensor.sum", "S06.fail.axis"),
        engine.lacks("tensor.sum", "S06.fail.axis-type"),
    )


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("T.rule.tie", ("T.rule.tie", None)),
        ("T.rule.tie[relu]", ("T.rule.tie", "relu")),
        ("T.rule.tie[relu", ("T.rule.tie[relu", None)),
        ("T.rule.tie[]", ("T.rule.tie[]", None)),
        ("T.rule.tie[a][b]", ("T.rule.tie[a][b]", None)),
        ("[relu]", ("[relu]", None)),
    ],
)
def test_convention_keys_name_a_row_and_maybe_a_case(key: str, expected: tuple[str, str | None]) -> None:
    """ROW[case] splits into the row and the case; anything else is a row id (checked at load)."""
    assert expected == convention_target(key)


def declaring(conventions: Mapping[str, str], dtype: str = "float64") -> Engine:
    kind = type("Declaring", (Engine,), {"name": "declaring", "conventions": conventions, "dtype": dtype})
    engine: Engine = kind()
    return engine


@pytest.mark.parametrize(
    ("conventions", "dtype", "message"),
    [
        pytest.param(
            {"T.rule.nope": "x"},
            "float64",
            "declaring: conventions key 'T.rule.nope' names no spec row$",
            id="row",
        ),
        pytest.param(
            {"T.rule.tie[sum]": "x"},
            "float64",
            r"^declaring: conventions key 'T.rule.tie\[sum\]': row T.rule.tie has no case 'sum' "
            r"\(its cases: maximum, relu\)$",
            id="case",
        ),
        pytest.param(
            {"T.rule.tie[relu]": "x", "T.grad.add[x]": "y"},
            "float64",
            r"conventions key 'T.grad.add\[x\]': row T.grad.add has no case 'x' \(its cases: none\)$",
            id="row-without-cases",
        ),
        pytest.param(
            {"T.rule.nope[relu]": "x"},
            "float64",
            r"^declaring: conventions key 'T.rule.nope\[relu\]' names no spec row$",
            id="row-with-a-case",
        ),
        pytest.param(
            {"T.rule.tie[relu": "x"}, "float64", r"'T.rule.tie\[relu' names no spec row$", id="malformed"
        ),
        pytest.param(
            {}, "float16", r"^declaring: dtype 'float16' is not one of float64, float32$", id="dtype"
        ),
    ],
)
def test_unknown_declarations_are_refused_at_load(
    conventions: Mapping[str, str], dtype: str, message: str
) -> None:
    """A convention for a row or case the spec does not list, or an unknown dtype, is one DeclarationError."""
    with pytest.raises(DeclarationError, match=message):
        check_declarations(declaring(conventions, dtype), all_rows())


class EngineRefusalError(Exception):
    """An engine's own refusal type (what error_families is for)."""


# (class attributes, message): each declares one thing the spec does not know or a catch-all mapping.
BAD_DECLARATIONS = {
    "blank-name": ({"name": " "}, r"^Declaring: name must be a non-blank str, got ' '$"),
    "capabilities-a-str": (
        {"capabilities": "scalar.add"},
        r"^declaring: capabilities must be a frozenset of names, got str$",
    ),
    "unknown-capability": (
        {"capabilities": frozenset({"tensor.soft_max", "scalar.add"})},
        r"^declaring: capabilities names unknown capabilities \['tensor\.soft_max'\]; ",
    ),
    "unknown-lacking-key": (
        {"lacking": {"scalar.add": "x", "quantum.teleport": "y"}},
        r"^declaring: lacking names unknown capabilities \['quantum\.teleport'\]",
    ),
    "catch-all-exception": (
        {"error_families": {EngineRefusalError: "ValueError", Exception: "ShapeError"}},
        r"^declaring: error_families maps Exception, which AttributeError \(a crash, never a refusal\) "
        r"derives from, onto 'ShapeError'",
    ),
    "base-exception-pattern": (
        {"error_patterns": [(BaseException, "size", "ShapeError")]},
        r"^declaring: error_families maps BaseException, which AttributeError",
    ),
    "a-crash-itself": (
        {"error_families": {AssertionError: "ValueError"}},
        r"^declaring: error_families maps AssertionError, which AssertionError \(a crash",
    ),
    "a-crash-subclass": (  # NameError is a crash, and UnboundLocalError derives from it, not it from it
        {"error_families": {UnboundLocalError: "ValueError"}},
        r"^declaring: error_families maps UnboundLocalError, which UnboundLocalError \(a crash",
    ),
    "unknown-family": (
        {"error_families": {EngineRefusalError: "Shape_Error"}},
        r"^declaring: error_families maps EngineRefusalError onto 'Shape_Error', which no spec failure row "
        r"raises \(known: .*ShapeError",
    ),
    # two faults at once: the first check in check_declarations' order names its fault
    "identity-before-error-families": (
        {"capabilities": "scalar.add", "error_families": {Exception: "ShapeError"}},
        r"^declaring: capabilities must be a frozenset of names, got str$",
    ),
    "error-families-before-dtype": (
        {"error_families": {Exception: "ShapeError"}, "dtype": "float16"},
        r"^declaring: error_families maps Exception, which AttributeError",
    ),
    "identity-before-harness-methods": (
        {"capabilities": "scalar.add", "lacks": lambda self, capability, row_id=None, case=None: "no"},
        r"^declaring: capabilities must be a frozenset of names, got str$",
    ),
    "harness-methods-before-error-families": (
        {"error_family": lambda self, error: "ShapeError", "error_families": {Exception: "ShapeError"}},
        r"^declaring: overrides error_family\(\), which the suite runs",
    ),
    "unmapped-before-unknown-family": (
        {"error_families": {NotImplementedError: "Shape_Error"}},
        r"^declaring: error_families maps NotImplementedError \(a crash or a method not implemented",
    ),
    "crash-before-unknown-family": (
        {"error_families": {Exception: "Shape_Error"}},
        r"^declaring: error_families maps Exception, which AttributeError \(a crash, never a refusal\) "
        r"derives from, onto 'Shape_Error'",
    ),
    "not-a-type": (
        {"error_families": {"RuntimeError": "ShapeError"}},
        r"^declaring: error_families key 'RuntimeError' is not an exception type$",
    ),
    # the protocol's own "not here" and a crash of the stack are never refusals, mapped directly
    "not-implemented": (
        {"error_families": {EngineRefusalError: "ValueError", NotImplementedError: "ShapeError"}},
        r"^declaring: error_families maps NotImplementedError \(a crash or a method not implemented",
    ),
    "recursion": (
        {"error_patterns": [(RecursionError, "depth", "ValueError")]},
        r"^declaring: error_families maps RecursionError \(a crash or a method not implemented",
    ),
    # a pattern that matches any message maps every exception of its type ('' for all
    # of torch's RuntimeErrors, NotImplementedError among them): the second pattern is the catch-all
    "empty-pattern": (
        {"error_patterns": [(RuntimeError, "^shape", "ShapeError"), (RuntimeError, "", "ShapeError")]},
        r"^declaring: error_patterns maps every RuntimeError onto 'ShapeError': '' matches any message",
    ),
    "dot-star-pattern": (
        {"error_patterns": [(ValueError, "(?s).*", "ValueError")]},
        r"^declaring: error_patterns maps every ValueError onto 'ValueError': '\(\?s\)\.\*' matches any",
    ),
    "any-character-pattern": (
        {"error_patterns": [(IndexError, ".", "IndexError")]},
        r"^declaring: error_patterns maps every IndexError onto 'IndexError': '\.' matches any message",
    ),
    "not-a-regex": (
        {"error_patterns": [(IndexError, "(unclosed", "IndexError")]},
        r"^declaring: error_patterns entry for IndexError -> 'IndexError': '\(unclosed' is not a regular",
    ),
    # the harness decides what is applicable and how a refusal maps; an adapter only declares
    "overrides-lacks": (
        {"lacks": lambda self, capability, row_id=None, case=None: "not today"},
        r"^declaring: overrides lacks\(\), which the suite runs to decide what is applicable",
    ),
    "overrides-convention": (
        {"convention": lambda self, row_id, case: "by design"},
        r"^declaring: overrides convention\(\), which the suite runs",
    ),
    "overrides-error-family": (
        {"error_family": lambda self, error: "ShapeError"},
        r"^declaring: overrides error_family\(\), which the suite runs",
    ),
}


@pytest.mark.parametrize(("attributes", "message"), BAD_DECLARATIONS.values(), ids=BAD_DECLARATIONS.keys())
def test_declarations_the_spec_does_not_know_are_refused(attributes: dict[str, object], message: str) -> None:
    """A blank name, capabilities or lacking keys no test requires, or an error mapping that would catch
    a crash (or name no spec family), is one DeclarationError at load: never a silent n/a or pass."""
    kind = type("Declaring", (Engine,), {"name": "declaring", **attributes})
    with pytest.raises(DeclarationError, match=message):
        check_declarations(kind(), all_rows())


def test_every_capability_a_test_requires_is_known() -> None:
    """The known names are exactly the shipped reference's capabilities: it claims every family."""
    assert sorted(KNOWN_CAPABILITIES) == sorted(load_engine("reference").capabilities)


def test_known_declarations_load() -> None:
    """Whole-row and per-case conventions of rows the spec lists, and float32, are accepted."""
    engine = declaring({"T.rule.tie[relu]": "x", "T.rule.tie[maximum]": "y", "T.grad.add": "z"}, "float32")
    assert engine is check_declarations(engine, all_rows())


def test_the_reference_declarations_are_valid() -> None:
    """The reference's capabilities and declarations are ones the spec knows (the third-party adapters':
    tests/engines/test_shipped_engines.py)."""
    engine = load_engine("reference")
    assert engine is check_declarations(engine, all_rows())


def test_micrograd_capabilities_and_known_failures() -> None:
    """micrograd claims deep-graph and accumulate (so they fail by name) and lacks exp, log, domain."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    assert {"scalar.deep-graph", "scalar.accumulate", "scalar.mul"} <= engine.capabilities
    assert not {"scalar.exp", "scalar.log", "scalar.domain"} & engine.capabilities
    (example,) = row("S03.rule.backward-again")["examples"]
    assert tuple(example["twice"]) != engine.scalar_backward_twice(example["a"], example["b"])
    # out = (ab)^2 + a at a = 2, b = 3: one backward gives (37, 24), the spec twice (74, 48); micrograd
    # re-adds the intermediate gradient left from the first call
    assert (146.0, 96.0) == engine.scalar_backward_twice(2.0, 3.0)
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
    assert ([0.5], [0.5]) == (tie_a.tolist(), tie_b.tolist())  # why T.rule.tie[maximum] is a convention
    _, (relu_grad,) = engine.tensor_vjp("relu", [np.array([0.0, -0.0])], np.array([5.0, 7.0]))
    assert [0.0, 0.0] == relu_grad.tolist()  # why the relu case is not
    assert ("T.rule.tie" not in engine.conventions, "T.rule.tie[maximum]" in engine.conventions) == (
        True,
        True,
    )
    assert None is engine.lacks("tensor.relu", "T.rule.tie", "relu")
    assert "scalar.domain" not in engine.capabilities


def test_torch_scalar_examples() -> None:
    """torch on 0-d float64 tensors gives the spec's hand cases, and accumulates exactly twice."""
    engine = load_engine_or_skip("torch", "torch")
    assert (-12.0, (-4.0, 3.0)) == engine.scalar_vjp("mul", [3.0, -4.0])
    assert (0.0, (0.0,)) == engine.scalar_vjp("relu", [0.0])
    (example,) = row("S03.rule.backward-again")["examples"]
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
        "scalar_program_grads": lambda: engine.scalar_program_grads([("neg", (0,), ())], [1.0]),
        "tensor_program_vjp": lambda: engine.tensor_program_vjp(
            [("exp", (0,), ())], [np.zeros(1)], np.ones(1)
        ),
        "tensor_vjp_with": lambda: engine.tensor_vjp_with("sum", [np.zeros(1)], None, {"axis": 0}),
        "tensor_graph": lambda: engine.tensor_graph("add", [np.zeros(1), np.zeros(1)], True),
        "tensor_backward": lambda: engine.tensor_backward(TensorGraph((), None), None),
        "tensor_grads": lambda: engine.tensor_grads(TensorGraph((), None)),
        "tensor_forward_with": lambda: engine.tensor_forward_with("sum", [np.zeros(1)], {"axis": 0}),
        "tensor_from_data": lambda: engine.tensor_from_data([1.0]),
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
    with pytest.raises(
        ValueError,
        match=re.escape(
            "torch engine: op must be one of ['cross_entropy', 'log_softmax', 'logsumexp', 'max', "
            "'rms_norm', 'softmax', 'sum'], got 'add'"
        ),
    ):
        engine.tensor_vjp_with("add", [np.zeros(1)], None, {})


def test_torch_tensor_ops_compute_int_inputs_in_float64_and_name_unknown_ops() -> None:
    """Integer arrays reach torch as float64 (its values and VJPs too), and an op the adapter does not
    map is named with the ones it does (the hand-worked values of every op: test_shipped_engines.py)."""
    engine = load_engine_or_skip("torch", "torch")
    value, (grad_a, grad_b) = engine.tensor_vjp("multiply", [np.array([2]), np.array([3])], np.array([5]))
    assert ([6.0], [15.0], [10.0], "float64") == (
        value.tolist(),
        grad_a.tolist(),
        grad_b.tolist(),
        str(value.dtype),
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "torch engine: op must be one of ['add', 'div', 'exp', 'log', 'mul', 'neg', 'pow', 'relu', "
            "'sub'], got 'tanh'"
        ),
    ):
        engine.scalar_vjp("tanh", [1.0])


def test_capability_names() -> None:
    """The capability names adapters declare (the protocol), and what the reference provides: all."""
    scalar = {f"scalar.{op}" for op in ("add", "sub", "mul", "div", "neg", "pow", "relu", "exp", "log")}
    tensor = {f"tensor.{op}" for op in ("add", "multiply", "maximum", "exp", "log", "matmul", "relu")}
    tensor |= {f"tensor.{op}" for op in ("sum", "max", "logsumexp", "softmax", "log_softmax")}
    tensor |= {"tensor.cross_entropy", "tensor.rms_norm", "tensor.param-errors"}
    tensor |= {"tensor.refusals", "tensor.data", "tensor.constants", "tensor.domain"}
    assert scalar | {"scalar.deep-graph", "scalar.accumulate", "scalar.domain"} == SCALAR
    assert tensor | {"tensor.shape-errors"} == TENSOR
    assert {"shapes", "embedding", "linear", "spec", "tensor.api", "scalar.value-api"} == CONTRACT_FAMILIES
    assert {"scalar.program", "tensor.program"} == PROGRAMS
    assert SCALAR | TENSOR | CONTRACT_FAMILIES | PROGRAMS | MODULE == load_engine("reference").capabilities


def test_micrograd_chain_builds_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The chain is built with the garbage collector off, and it is switched back on after."""
    import gc

    engine = load_engine_or_skip("micrograd", "micrograd")
    calls: list[str] = []
    monkeypatch.setattr(gc, "isenabled", lambda: True)
    monkeypatch.setattr(gc, "disable", lambda: calls.append("disable"))
    monkeypatch.setattr(gc, "enable", lambda: calls.append("enable"))
    assert 1.0 == engine.scalar_chain_grad(3)
    assert ["disable", "enable"] == calls


def test_micrograd_recursion_message() -> None:
    """micrograd's RecursionError is raised again once, naming the limit and the depth."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    message = (
        "micrograd's recursive topological sort exceeded Python's recursion limit "
        f"({sys.getrecursionlimit()}) on a chain of depth 5000"
    )
    with pytest.raises(RecursionError, match=f"^{re.escape(message)}$"):
        engine.scalar_chain_grad(5000)


def test_micrograd_program_recursion_is_raised_again_from_one_place() -> None:
    """A program deeper than micrograd's recursion reach fails with the one re-raised RecursionError
    (one raise site whatever the frame the limit hit: hypothesis replays it as the same failure)."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    program = [("neg", (0,), ())] + [("neg", (i,), ()) for i in range(1, 5000)]
    message = (
        "micrograd's recursive topological sort exceeded Python's recursion limit "
        f"({sys.getrecursionlimit()}) on a program of 5000 operations"
    )
    with pytest.raises(RecursionError, match=f"^{re.escape(message)}$") as raised:
        engine.scalar_program_grads(program, [1.0])
    assert raised.value.__context__ is None  # raised outside the handler: no chained traceback


REFERENCE_ONLY = "a reference-only family: its tests exercise this project's own types, not the engine"


def test_micrograd_declares_what_it_lacks_and_why() -> None:
    """micrograd's capabilities, and the reason each missing one gives in the report."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    scalar = {f"scalar.{op}" for op in ("add", "sub", "mul", "div", "neg", "pow", "relu")}
    assert (
        scalar | {"scalar.deep-graph", "scalar.accumulate", "scalar.program"} == engine.capabilities - MODULE
    )
    lacks = {c: engine.lacks(c) for c in SCALAR | TENSOR | CONTRACT_FAMILIES | PROGRAMS}
    expected: dict[str, str | None] = dict.fromkeys(
        engine.capabilities - MODULE
    )  # MODULE: test_module_engines
    expected |= {
        "scalar.exp": "micrograd does not provide scalar.exp (micrograd 0.1.0's Value has no exp)",
        "scalar.log": "micrograd does not provide scalar.log (micrograd 0.1.0's Value has no log)",
        "scalar.domain": "micrograd does not provide scalar.domain (micrograd has no domain checks: 1/0 "
        "raises Python's own ZeroDivisionError from float division and (-8) ** 0.5 gives a complex number)",
    }
    expected |= {
        c: f"micrograd does not provide {c} (micrograd is a scalar engine)"
        for c in TENSOR | {"tensor.program"}
    }
    expected |= {c: f"micrograd does not provide {c} ({REFERENCE_ONLY})" for c in CONTRACT_FAMILIES}
    assert expected == lacks


def test_torch_declares_what_it_lacks_and_why() -> None:
    """torch's capabilities, and the reason each missing one gives in the report."""
    engine = load_engine_or_skip("torch", "torch")
    assert (SCALAR - {"scalar.domain"}) | (
        TENSOR - {"tensor.shape-errors", "tensor.param-errors", "tensor.domain"}
    ) | PROGRAMS == engine.capabilities - MODULE
    lacks = {c: engine.lacks(c) for c in SCALAR | TENSOR | CONTRACT_FAMILIES | PROGRAMS}
    expected: dict[str, str | None] = dict.fromkeys(
        engine.capabilities - MODULE
    )  # MODULE: test_module_engines
    expected |= {
        "scalar.domain": "torch does not provide scalar.domain (torch computes log(x <= 0) = nan or -inf, "
        "exp(710) = inf and 1/0 = inf instead of refusing the operation)",
        "tensor.shape-errors": "torch does not provide tensor.shape-errors (torch raises its own "
        "RuntimeError (its own message) from inside the op, not ShapeError with the spec's message before "
        "a node exists (its family is checked by tensor.refusals))",
        "tensor.param-errors": "torch does not provide tensor.param-errors (torch raises its own IndexError "
        "or RuntimeError for a bad dim, target or weight shape (its family is checked by tensor.refusals), "
        "not the spec's message)",
        "tensor.domain": "torch does not provide tensor.domain (torch follows IEEE 754: log(x <= 0) is -inf "
        "or nan, exp(710) and overflowing results or gradients are inf, and nan/inf data or upstreams are "
        "accepted, instead of a refusal)",
    }
    expected |= {c: f"torch does not provide {c} ({REFERENCE_ONLY})" for c in CONTRACT_FAMILIES}
    assert expected == lacks


def test_engine_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    """--impl wins over CONTRACTS_IMPL, which wins over the reference; a module path without a class
    loads its `Engine`; the class is everything after the first colon."""
    from contracts.engines import UnknownEngineError, selected_name

    monkeypatch.delenv("CONTRACTS_IMPL", raising=False)
    assert "reference" == selected_name()
    monkeypatch.setenv("CONTRACTS_IMPL", "torch")
    assert ("torch", "micrograd") == (selected_name(None), selected_name("micrograd"))
    assert "abstract" == load_engine("contracts.engines.base").name
    with pytest.raises(UnknownEngineError, match="has no attribute 'Engine:x'"):
        load_engine("contracts.engines.base:Engine:x")
    with pytest.raises(
        UnknownEngineError,
        match=r"^TypeError: json:JSONDecoder must produce a contracts\.engines\.base\.Engine, got ",
    ):
        load_engine("json:JSONDecoder")


# ---------------------------------------------------------------- programs
# out = h * h + a with h = a * b one shared node, and a leaf c the output never reaches
ACCUMULATE_PROGRAM = [("mul", (0, 1), ()), ("mul", (3, 3), ()), ("add", (4, 0), ())]


@pytest.mark.parametrize(
    ("name", "module"), [("reference", "numpy"), ("torch", "torch"), ("micrograd", "micrograd")]
)
def test_scalar_program_gives_the_accumulate_example(name: str, module: str) -> None:
    """Each scalar adapter runs a program with a shared node to the spec's (37, 24); an unused leaf gets 0."""
    engine = load_engine_or_skip(name, module)
    (example,) = row("S03.rule.backward-again")["examples"]
    a, b = example["a"], example["b"]
    value, grads = engine.scalar_program_grads(ACCUMULATE_PROGRAM, [a, b, 5.0])
    assert ((a * b) ** 2 + a, (*example["once"], 0.0)) == (value, grads)


@pytest.mark.parametrize(("name", "module"), [("reference", "numpy"), ("torch", "torch")])
def test_tensor_program_gives_the_accumulate_example(name: str, module: str) -> None:
    """Every tensor adapter runs out = x * x + x to the spec's once gradient; an unreached leaf gets zeros."""
    engine = load_engine_or_skip(name, module)
    (example,) = row("T.rule.accumulate")["examples"]
    x = np.asarray(example["x"])
    program = [("multiply", (0, 0), ()), ("add", (2, 0), ())]
    value, grads = engine.tensor_program_vjp(program, [x, np.ones((2, 1))], np.ones(x.shape))
    assert ((x * x + x).tolist(), example["once"], np.zeros((2, 1)).tolist()) == (
        value.tolist(),
        grads[0].tolist(),
        grads[1].tolist(),
    )


def test_micrograd_program_refuses_ops_it_lacks() -> None:
    """micrograd's program runner names the ops it has and the ones the program asked for."""
    engine = load_engine_or_skip("micrograd", "micrograd")
    message = (
        "micrograd engine: op must be one of ['add', 'div', 'mul', 'neg', 'pow', 'radd', 'rdiv', 'relu', "
        "'rmul', 'rsub', 'sub'], got ['exp', 'log']"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        engine.scalar_program_grads([("exp", (0,), ()), ("log", (1,), ()), ("exp", (2,), ())], [1.0])


MODULES = {"reference": "contracts", "torch": "torch"}


def listed(grads: tuple[np.ndarray | None, ...]) -> list[object]:
    return [None if grad is None else grad.tolist() for grad in grads]


@pytest.mark.parametrize("name", ["reference", "torch"])
def test_refusal_methods_build_backward_and_read_grads(name: str) -> None:
    """tensor_graph/tensor_backward/tensor_grads: no grad before a backward, upstream * b and upstream * a
    after one, twice that after a second (repeatable); leaves that need no grad keep None."""
    engine = load_engine_or_skip(name, MODULES[name])
    a, b, g = np.array([1.0, -2.0]), np.array([3.0, 5.0]), np.array([0.5, 4.0])
    graph = engine.tensor_graph("multiply", [a, b], requires_grad=True)
    assert (None, None) == engine.tensor_grads(graph)
    engine.tensor_backward(graph, g)
    assert [(g * b).tolist(), (g * a).tolist()] == listed(engine.tensor_grads(graph))
    engine.tensor_backward(graph, g)
    assert [(2 * g * b).tolist(), (2 * g * a).tolist()] == listed(engine.tensor_grads(graph))
    constants = engine.tensor_graph("add", [a, b], requires_grad=False)
    assert (None, None) == engine.tensor_grads(constants)
    scalar = engine.tensor_graph("matmul", [a, b], requires_grad=True)
    engine.tensor_backward(scalar, None)
    assert [b.tolist(), a.tolist()] == listed(engine.tensor_grads(scalar))


@pytest.mark.parametrize("name", ["reference", "torch"])
def test_forward_with_and_from_data(name: str) -> None:
    """tensor_forward_with runs only the forward (sum over axis 1, cross_entropy over a batch of 2x2
    logits); tensor_from_data gives float64 values of ints, floats and arrays."""
    engine = load_engine_or_skip(name, MODULES[name])
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    assert [3.0, 8.0] == engine.tensor_forward_with("sum", [x], {"axis": 1}).tolist()
    logits = np.zeros((2, 2, 2))
    loss = engine.tensor_forward_with(
        "cross_entropy", [logits], {"targets": np.zeros((2, 2), dtype=np.int64)}
    )
    assert np.log(2.0) == pytest.approx(float(loss), rel=1e-15)
    for data in ([1, 2], 7, np.array([[1.5], [-2.0]], dtype=np.float32)):
        values = engine.tensor_from_data(data)
        assert (np.dtype(np.float64), np.asarray(data, dtype=np.float64).tolist()) == (
            values.dtype,
            values.tolist(),
        )


def test_torch_refusal_methods_refuse_unknown_ops() -> None:
    """torch's tensor_graph and tensor_forward_with name the ops they know."""
    engine = load_engine_or_skip("torch", "torch")
    with pytest.raises(ValueError, match=r"^torch engine: op must be one of \['add', .*got 'tanh'$"):
        engine.tensor_graph("tanh", [np.zeros(1)], requires_grad=True)
    with pytest.raises(
        ValueError, match=r"^torch engine: op must be one of \['cross_entropy', .*got 'tanh'$"
    ):
        engine.tensor_forward_with("tanh", [np.zeros(1)], {})


def test_torch_cross_entropy_leaves_other_targets_to_torch() -> None:
    """Targets without the batch shape of (2, 2, 2) logits are not flattened by the adapter: torch itself
    refuses them (its batch-size ValueError, which the adapter maps onto ShapeError)."""
    engine = load_engine_or_skip("torch", "torch")
    targets = {"targets": np.zeros(4, dtype=np.int64)}
    with pytest.raises(
        ValueError, match=r"^Expected input batch_size \(2\) to match target batch_size \(4\)"
    ) as raised:
        engine.tensor_forward_with("cross_entropy", [np.zeros((2, 2, 2))], targets)
    assert "ShapeError" == engine.error_family(raised.value)


class Misnamed(Engine):
    """Maps its refusal onto a family no spec failure row raises."""

    name: ClassVar[str] = "misnamed"
    error_families: ClassVar[dict[type[BaseException], str]] = {EngineRefusalError: "Shape_Error"}


def test_unknown_family_message_lists_the_known_families_comma_separated() -> None:
    """The unknown-family refusal lists every known family, sorted and joined with ', '."""
    with pytest.raises(DeclarationError) as raised:
        check_error_families(Misnamed(), {"ValueError", "ShapeError", "IndexError"})
    assert (
        "misnamed: error_families maps EngineRefusalError onto 'Shape_Error', which no spec failure row "
        "raises (known: IndexError, ShapeError, ValueError)"
    ) == str(raised.value)


def test_an_adapter_whose_own_import_fails_is_not_an_unknown_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter module that exists but imports a module that does not (its engine moved one) raises
    that ModuleNotFoundError as it is; a module that does not exist is UnknownEngineError."""
    from contracts.engines import UnknownEngineError

    (tmp_path / "adapter_of_a_moved_engine.py").write_text(
        "import no_such_moved_engine_module\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError) as raised:
        load_engine("adapter_of_a_moved_engine:Engine")
    assert ("no_such_moved_engine_module", False) == (
        raised.value.name,
        isinstance(raised.value, UnknownEngineError),
    )
    with pytest.raises(UnknownEngineError) as unknown:
        load_engine("no_such_adapter.sub:Engine")
    assert str(unknown.value).startswith("ModuleNotFoundError: No module named 'no_such_adapter'")

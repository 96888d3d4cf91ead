"""Spec rows as pytest parameters: the row id is the test id and the `spec` marker."""

from __future__ import annotations

import unittest
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import Any, TypedDict

import numpy as np
import pytest
from _pytest.outcomes import Skipped  # pytest.skip.Exception, as a base class mypy can read
from hypothesis.errors import UnsatisfiedAssumption

from contracts.engines import Engine
from contracts.engines.base import MissingExtraError
from contracts.engines.modules import ModuleUnsupported
from contracts.spec import SpecRow, load_rows
from contracts.verify.clauses import clause


@cache
def all_rows() -> tuple[SpecRow, ...]:
    return tuple(load_rows())


def rows(stage: str | None = None, kind: str | None = None, prefix: str | None = None) -> list[SpecRow]:
    """The rows matching every given filter, in file order."""
    return [
        spec_row
        for spec_row in all_rows()
        if (stage is None or spec_row.stage == stage)
        and (kind is None or spec_row.kind == kind)
        and (prefix is None or spec_row.id.startswith(prefix))
    ]


@cache
def rows_by_id() -> dict[str, SpecRow]:
    """Every row by its id (row() is called once per example by failure and precedence tests: a scan of
    every row each time cost ~1 ms per call)."""
    found: dict[str, SpecRow] = {}
    for spec_row in all_rows():
        found.setdefault(spec_row.id, spec_row)  # the first, as a scan would find it
    return found


def row(row_id: str) -> SpecRow:
    found = rows_by_id().get(row_id)
    if found is None:
        raise KeyError(f"no spec row {row_id!r}")
    return found


# row -> why its test is reference-only for that row (None: it runs on the engine under test)
ReferenceOnlyWhen = Callable[[SpecRow], str | None]


def only_example(row_id: str) -> dict[str, Any]:
    """The one example of a row that has exactly one (a golden of a single worked case)."""
    (example,) = row(row_id)["examples"]
    return dict(example)


def row_marks(spec_row: SpecRow, reference_only_when: ReferenceOnlyWhen | None) -> list[Any]:
    """The spec marker, and the reference_only marker when the row's case is reference-only."""
    reason = reference_only_when(spec_row) if reference_only_when is not None else None
    marks = [pytest.mark.spec(spec_row.id)]
    return marks if reason is None else [*marks, pytest.mark.reference_only(reason)]


def params(selected: Iterable[SpecRow], reference_only_when: ReferenceOnlyWhen | None = None) -> list[Any]:
    """pytest parameters: one per row, id = row id, marked with spec(row id)."""
    return [pytest.param(r, id=r.id, marks=row_marks(r, reference_only_when)) for r in selected]


def example_params(
    selected: Iterable[SpecRow], reference_only_when: ReferenceOnlyWhen | None = None
) -> list[Any]:
    """One parameter per (row, example): id = row id + example index, marked with the row id."""
    return [
        pytest.param(r, example, id=f"{r.id}[{i}]", marks=row_marks(r, reference_only_when))
        for r in selected
        for i, example in enumerate(r.get("examples", ()))
    ]


def value_params(values_by_row: Mapping[str, Sequence[Any]]) -> list[Any]:
    """One parameter per (row, value): every listed value of every row, whatever the hypothesis profile;
    id = row id + the value's index, marked with the row id (the report counts the values tried)."""
    return [
        pytest.param(row(row_id), value, id=f"{row_id}[{index}]", marks=row_marks(row(row_id), None))
        for row_id, values in values_by_row.items()
        for index, value in enumerate(values)
    ]


def require(engine: Engine, capability: str, row_id: str | None = None, case: str | None = None) -> None:
    """Skip as not applicable when the engine lacks the capability or differs by convention (for the
    whole row, or for the case of it the test checks: one of the ids the row's `cases` lists), or when
    the row holds only at float64 and the engine computes in another dtype (T.rule.tolerance)."""
    reason = engine.lacks(capability, row_id, case) or dtype_lacks(engine, row_id)
    if reason is not None:
        pytest.skip(f"not applicable: {reason}")


# ---------------------------------------------------------------- tolerances by the engine's dtype

TOLERANCE_ROW = "T.rule.tolerance"
FLOAT64 = "float64"


class Tolerance(TypedDict):
    rel: float
    abs: float


def tolerance_for(dtype: str, comparison: str) -> Tolerance:
    """T.rule.tolerance: the comparison's float64 tolerance, at a coarser dtype at least
    epsilon_factor times the dtype's machine epsilon."""
    rule = row(TOLERANCE_ROW)
    base = rule["tolerances"][comparison]
    if dtype == FLOAT64:
        return {"rel": base["rel"], "abs": base["abs"]}
    floor = rule["epsilon_factor"] * float(np.finfo(np.dtype(dtype)).eps)
    return {"rel": max(base["rel"], floor), "abs": max(base["abs"], floor)}


def tolerance(engine: Engine, comparison: str) -> Tolerance:
    """The one place an engine comparison's tolerance comes from: the spec's, for the engine's dtype."""
    return tolerance_for(engine.dtype, comparison)


def held(engine: Engine, point: dict[str, float]) -> dict[str, float]:
    """A drawn point as the engine can hold it: each number rounded to the engine's dtype (unchanged at
    float64), so the spec is evaluated at the inputs the engine really computes with (T.rule.tolerance)."""
    if engine.dtype == FLOAT64:
        return point
    kind = np.dtype(engine.dtype).type
    return {name: float(kind(value)) for name, value in point.items()}


def held_array(engine: Engine, values: Any) -> Any:
    """An array or number as the engine holds it: rounded to its dtype, as float64 (at float64: unchanged)."""
    return np.asarray(values, dtype=np.dtype(engine.dtype)).astype(np.float64)


def dtype_why(engine: Engine, why: str) -> str:
    return f"{engine.name} computes in {engine.dtype}: {why} ({TOLERANCE_ROW})"


def dtype_lacks(engine: Engine, row_id: str | None) -> str | None:
    """Why a float64-only row (T.rule.tolerance's float64_only) is n/a for the engine's dtype, else None."""
    if engine.dtype == FLOAT64 or row_id is None:
        return None
    why = row(TOLERANCE_ROW)["float64_only"].get(row_id)
    return None if why is None else dtype_why(engine, why)


def require_float64(engine: Engine, why: str) -> None:
    """Skip as not applicable a check that holds only at float64 (e.g. central differences of the
    engine's own forward) when the engine computes in another dtype."""
    if engine.dtype != FLOAT64:
        pytest.skip(f"not applicable: {dtype_why(engine, why)}")


def torch_peer(engine: Engine) -> Engine:
    """The torch adapter a differential test compares the engine with. Not applicable, with the reason,
    when the optional peer is not installed or when the engine under test is that adapter itself (a
    comparison with itself would pass whatever it computes): the row then reads partly verified, never
    passed on a check that did not run."""
    from contracts.engines.torch_engine import TorchEngine

    if isinstance(unwrap(engine), TorchEngine):
        pytest.skip("not applicable: the engine under test is the torch adapter, this cross-check's peer")
    try:
        return TorchEngine()
    except MissingExtraError as missing:  # any ImportError of torch: absent or broken
        pytest.skip(f"not applicable: the cross-check's peer is missing: {missing}")


# ---------------------------------------------------------------- reference-only tests, engine use

# The one mechanism for tests that exercise this project's own types rather than the engine:
# `@reference_only("why")` (or `pytestmark = reference_only("why")` on a whole module). On any engine
# but the reference itself, conftest skips such a test as "not applicable: reference-only: why" before
# it starts; verify never counts it as proof about another engine.
reference_only = pytest.mark.reference_only
SCALAR_REFUSALS = (
    "the refusal is observed on this project's Value (the adapter protocol has no scalar refusal hook)"
)
OWN_TYPES = "it exercises this project's own types (the reference implementation), not an engine"

# Engine attributes that describe the adapter without running the engine: calling them is not a use.
DESCRIBING = frozenset(
    {"lacks", "convention", "version", "name", "capabilities", "conventions", "lacking", "dtype"}
)


def is_reference(engine: Any) -> bool:
    """Exactly the shipped reference engine (a subclass, e.g. a broken adapter, is another engine)."""
    from contracts.engines.reference import ReferenceEngine

    return type(unwrap(engine)) is ReferenceEngine


def unwrap(engine: Any) -> Any:
    return engine.wrapped if isinstance(engine, RecordingEngine) else engine


# The exceptions by which code steers the harness itself: skip the test (as "not applicable" with a
# reason of its choosing), expect it to fail, end the session, or have hypothesis discard the example.
# Raised from inside an engine call they are the engine's doing, so the engine's failure.
HARNESS_CONTROL: tuple[type[BaseException], ...] = (
    pytest.skip.Exception,
    unittest.SkipTest,  # pytest skips a test that raises it, as unittest does
    pytest.xfail.Exception,
    pytest.exit.Exception,
    UnsatisfiedAssumption,
)


class HarnessControlError(AssertionError):
    """An engine call raised one of HARNESS_CONTROL: the test fails, naming the call and what it raised."""


class LackedCapability(Skipped):
    """A call asked for a capability the engine declares it lacks: the test is not applicable. A skip, so
    it passes through a test's `except Exception` untouched; in a hypothesis test the conftest turns it
    into a rejected example instead, so that the examples the engine can run still run (a failure among
    them fails the test; without one the test is n/a, for this reason)."""


class RecordingEngine:
    """The engine under test, counting calls of its adapter methods (so verify can tell a test that
    passed without ever running the engine from one that proved something about it)."""

    def __init__(self, wrapped: Engine) -> None:
        self.wrapped = wrapped
        self.calls = 0
        self.lacked: list[str] = []  # the reason of every call refused as lacked (per test: EngineUse)
        # (module method, returned?) per call of a module method: False where it raised ModuleUnsupported.
        # A method declined every time is a declared capability with nothing built (verify reports it)
        self.builds: list[tuple[str, bool]] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.wrapped, name)
        if name in DESCRIBING or name.startswith("_") or not callable(attribute):
            return attribute
        return self.counted(attribute, name)

    def counted(self, method: Any, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            for capability in needed_capabilities(name, args, kwargs):
                reason = self.wrapped.lacks(capability)
                if reason is not None:  # the test asked for what the engine says it lacks: n/a, not a crash
                    self.lacked.append(reason)
                    raise LackedCapability(f"not applicable: {reason}")
            self.calls += 1
            try:
                result = method(*args, **kwargs)
            except ModuleUnsupported:
                self.builds.append((name, False))
                raise
            except HARNESS_CONTROL as error:
                raise HarnessControlError(
                    f"{self.wrapped.name}.{name} raised {type(error).__name__}({error}): an engine cannot "
                    "skip, discard or end the test that runs it"
                ) from None
            if name.startswith(MODULE_METHOD):
                self.builds.append((name, True))
            check_protocol_arrays(self.wrapped.name, name, result)
            return result

        return call


# The capability each adapter method needs (contracts.engines.base): the op-taking methods need the op's
# own; the module methods the module they build or the identity/graph-count facility they read. A call
# the engine declares it lacks never reaches it: the test is not applicable (a missing capability is
# never a failure), whatever the test required up front.
REFLECTED = {"radd": "add", "rsub": "sub", "rmul": "mul", "rdiv": "div"}
METHOD_CAPABILITY = {
    "scalar_chain_grad": "scalar.deep-graph",
    "scalar_backward_twice": "scalar.accumulate",
    "tensor_from_data": "tensor.data",
    "module_embedding": "module.embedding",
    "module_linear": "module.linear",
    "module_mlp": "module.mlp",
    "module_block": "module.block",
    "module_norm_forward": "module.block",
    "module_identities": "module.identity",
    "module_sgd_step": "module.identity",
    "module_replace_parameter": "module.identity",
    "module_graph_nodes": "module.graph-count",
}
OP_METHODS = {"scalar_vjp": "scalar", "tensor_vjp": "tensor", "tensor_vjp_with": "tensor"}
OP_METHODS |= {"tensor_forward_with": "tensor", "tensor_graph": "tensor"}
PROGRAM_METHODS = {"scalar_program_grads": "scalar", "tensor_program_vjp": "tensor"}
INIT_ARGUMENT = {"module_linear": 3, "module_mlp": 2, "module_block": 4}  # where `init` sits positionally


def argument(args: Sequence[Any], kwargs: Mapping[str, Any], index: int, name: str) -> Any:
    return args[index] if len(args) > index else kwargs.get(name)


def needed_capabilities(method: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[str]:
    """The capabilities one adapter call needs."""
    needed = [METHOD_CAPABILITY[method]] if method in METHOD_CAPABILITY else []
    if method in OP_METHODS:
        needed.append(f"{OP_METHODS[method]}.{argument(args, kwargs, 0, 'op')}")
    if method == "tensor_graph" and not isinstance(argument(args, kwargs, 2, "requires_grad"), bool):
        needed.append("tensor.constants")  # one flag per input
    if method in PROGRAM_METHODS:
        family = PROGRAM_METHODS[method]
        ops = dict.fromkeys(REFLECTED.get(op, op) for op, _, _ in argument(args, kwargs, 0, "program"))
        needed += [f"{family}.program", *(f"{family}.{op}" for op in ops)]
    if method in INIT_ARGUMENT and argument(args, kwargs, INIT_ARGUMENT[method], "init") is not None:
        needed.append("module.init")
    return needed


def assert_refused_as(engine: Engine, spec_row: SpecRow, action: Callable[[], object]) -> BaseException:
    """The call raises an exception the adapter maps onto the row's family (not merely any exception);
    else the row's refusal clause fails saying what the engine did instead: accepted and returned what,
    or raised what, mapped to which family."""
    with clause(spec_row.id, "refusal"):
        try:
            result = action()
        except Exception as error:
            raised: Exception = error
        else:
            raise AssertionError(
                f"engine accepted the call and returned {brief(result)}; spec says {spec_row['exception']}"
            )
        family = engine.error_family(raised)
        assert spec_row["exception"] == family, (
            f"engine raised {type(raised).__name__}({raised}), which maps to {family}; spec says "
            f"{spec_row['exception']}"
        )
    return raised


def brief(value: Any, limit: int = 200) -> str:
    """A returned value for a failure message: arrays as nested lists, cut at limit characters."""
    text = repr(shown(value))
    return text if len(text) <= limit else text[: limit - 1] + "…"


MODULE_METHOD = "module_"  # the adapter methods that build, run or read the engine's own modules


class EngineUse:
    """One test's use of the recording engine: the calls and builds made since it started (the
    recording engine is the session's, so its counters run on across tests)."""

    def __init__(self, recording: RecordingEngine | None) -> None:
        self.recording = recording
        self.calls_before = recording.calls if recording is not None else 0
        self.builds_before = len(recording.builds) if recording is not None else 0

    def calls(self) -> int:
        return self.recording.calls - self.calls_before if self.recording is not None else 0

    def builds(self) -> dict[str, list[str]]:
        return builds_in(self.recording.builds[self.builds_before :] if self.recording is not None else [])


def builds_in(events: Sequence[tuple[str, bool]]) -> dict[str, list[str]]:
    """BUILDS_PROPERTY's value: the module methods that built and those that declined (sorted, once)."""
    return {
        "built": sorted({name for name, built in events if built}),
        "declined": sorted({name for name, built in events if not built}),
    }


# Adapter methods whose results are arrays by the protocol (contracts.engines.base): (value, grads)
# pairs, a tuple of grads, a dict of arrays (module_state), or one array.
VJP_METHODS = frozenset({"tensor_vjp", "tensor_vjp_with", "tensor_program_vjp"})
ARRAY_METHODS = frozenset(
    {"tensor_forward_with", "tensor_from_data", "module_forward", "module_norm_forward"}
)


def protocol_arrays(method: str, result: Any) -> list[Any]:
    """The items of a method's result that the protocol says are arrays (None: no gradient)."""
    if method in VJP_METHODS:
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], tuple)):
            return [result]  # not a (value, grads) pair at all
        return [result[0], *result[1]]
    if method == "tensor_grads":
        return list(result) if isinstance(result, tuple) else [result]
    if method == "module_state":  # logical name -> the parameter's values
        return list(result.values()) if isinstance(result, dict) else [result]
    return [result] if method in ARRAY_METHODS else []


def check_protocol_arrays(engine: str, method: str, result: Any) -> None:
    """An adapter that hands back lists, or arrays of objects, ints, bools or complex numbers (anything
    but real floating arrays and numbers), fails here, naming itself, instead of deep in a test that
    reads like a suite bug or, for an object array, in none: numpy compares objects by their values."""
    for item in protocol_arrays(method, result):
        if item is not None and (
            isinstance(item, bool)
            or not isinstance(item, np.ndarray | np.floating | float | int)
            or (isinstance(item, np.ndarray) and item.dtype.kind != "f")
        ):
            kind = f"an array of {item.dtype}" if isinstance(item, np.ndarray) else type(item).__name__
            raise TypeError(
                f"{engine}.{method} returned {kind} where the adapter protocol passes a numpy float64 "
                "array (contracts.engines.base): convert it in the adapter"
            )


# ---------------------------------------------------------------- readable failures


def shown(value: Any) -> Any:
    """Arrays as nested lists, so a failure message shows the numbers, not numpy's repr."""
    return value.tolist() if hasattr(value, "tolist") else value


def assert_engine_gives(
    spec_says: Any,
    engine_gave: Any,
    *,
    rel: float,
    abs: float = 0.0,
    what: str = "",
    source: str = "spec",
    gave: str = "engine",
    nan_ok: bool = False,
) -> None:
    """The engine's result equals the spec's within tolerance; else an AssertionError that labels both
    sides ('engine gave X, spec says Y'), which pytest.approx's Obtained/Expected get backwards when
    the expected value is written on the left. gave names the computing side when it is not the engine
    (the spec's own expressions checked against a hand case)."""
    if pytest.approx(spec_says, rel=rel, abs=abs, nan_ok=nan_ok) == engine_gave:
        return
    where = f"{what}: " if what else ""
    tolerance = f"(rel={rel}, abs={abs})"
    raise AssertionError(
        f"{where}{gave} gave {shown(engine_gave)!r}, {source} says {shown(spec_says)!r} {tolerance}"
    )


def assert_hand_case(
    actual: tuple[Any, tuple[Any, ...]],
    example: Mapping[str, Any],
    dtype: str = FLOAT64,
    gave: str = "engine",
    *,
    value_comparison: str = "value",
    grad_names: Sequence[str] | None = None,
) -> None:
    """A gradient row's hand case: the value and each gradient (the example's `grads`, in `grad_names`'
    order or its own) as `gave` computed them, each labelled (assert_engine_gives)."""
    value, grads = actual
    says = "the hand case"
    expected_value = np.asarray(example["value"])
    assert_engine_gives(
        expected_value,
        np.reshape(value, expected_value.shape),
        **tolerance_for(dtype, value_comparison),
        what="value",
        source=says,
        gave=gave,
    )
    names = list(grad_names if grad_names is not None else example["grads"])
    assert len(names) == len(grads)
    within = tolerance_for(dtype, "example")
    for name, grad in zip(names, grads, strict=True):
        want = np.asarray(example["grads"][name])
        assert_engine_gives(want, grad, **within, what=f"d/d{name}", source=says, gave=gave)


def assert_naive_form(example_says: Any, naive: Any) -> None:
    """The naive composition (the form a stable op replaces) gives the example's value, nan included:
    the example shows what the stable form avoids."""
    assert_engine_gives(
        np.ravel(example_says),
        np.ravel(naive),
        rel=1e-6,
        abs=1e-12,
        nan_ok=True,
        gave="the naive form",
        source="the example",
    )

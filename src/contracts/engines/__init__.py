"""Engine selection: a shipped name, a dotted path `pkg.module:Class`, or CONTRACTS_IMPL."""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Iterable

from contracts.engines.base import (
    CONTRACT_FAMILIES,
    DTYPES,
    PROGRAMS,
    SCALAR,
    TENSOR,
    Engine,
    MissingExtraError,
    convention_target,
)
from contracts.engines.modules import CRASHES, MODULE, UNMAPPED
from contracts.spec import SpecRow

SHIPPED = {
    "reference": "contracts.engines.reference:ReferenceEngine",
    "torch": "contracts.engines.torch_engine:TorchEngine",
    "micrograd": "contracts.engines.micrograd_engine:MicrogradEngine",
    "jax": "contracts.engines.jax_engine:JaxEngine",
    "tinygrad": "contracts.engines.tinygrad_engine:TinygradEngine",
    "autograd": "contracts.engines.autograd_engine:AutogradEngine",
}
ENV_VAR = "CONTRACTS_IMPL"
# Every capability a test can require: a declared name outside it is a typo that would make its rows
# "not applicable" instead of run.
KNOWN_CAPABILITIES = SCALAR | TENSOR | PROGRAMS | MODULE | CONTRACT_FAMILIES
# An error_families key that a crash (CRASHES) derives from (Exception, BaseException, or the crash type
# itself) maps every crash onto a spec family, so a broken engine would pass the refusal rows.
# A message pattern that matches these messages is a catch-all: it maps any message of its type.
ANY_MESSAGES = ("", "contracts: an arbitrary message no refusal of any engine carries 0x5f3759df")
# The methods by which the suite decides what runs and how a refusal is judged (contracts.engines.base):
# an adapter declares, the harness decides. One that overrode them could make any row not applicable,
# or any exception a refusal, at run time and out of the report's sight.
HARNESS_METHODS = ("lacks", "convention", "error_family")


def selected_name(cli_value: str | None = None) -> str:
    return cli_value or os.environ.get(ENV_VAR) or "reference"


class UnknownEngineError(LookupError):
    """A name or dotted path that selects no engine: no such module, no such attribute in it, or an
    object that does not make an Engine. An error raised by the adapter's own code is not one."""


def load_engine(name: str) -> Engine:
    """Instantiate the engine a name or dotted path points to (UnknownEngineError if it points to none;
    whatever the adapter's own import or constructor raises, as it is)."""
    target = SHIPPED.get(name, name)
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if not names_the_module(error, module_name):
            raise  # a module the adapter imports is missing: the adapter's own failure
        raise UnknownEngineError(f"ModuleNotFoundError: {error}") from None
    factory = getattr(module, attribute or "Engine", None)
    if factory is None:
        raise UnknownEngineError(
            f"AttributeError: module {module_name!r} has no attribute {attribute or 'Engine'!r}"
        )
    engine = factory()
    if not isinstance(engine, Engine):
        raise UnknownEngineError(
            f"TypeError: {target} must produce a contracts.engines.base.Engine, got {engine!r}"
        )
    return engine


def names_the_module(error: ModuleNotFoundError, module_name: str) -> bool:
    """Whether the missing module is the one named (or a package on its path), not one it imports."""
    if error.name is None:  # raised by hand, naming no module: not a lookup of the one named
        return False
    return module_name == error.name or module_name.startswith(error.name + ".")


class DeclarationError(ValueError):
    """An adapter declares what the spec does not know: a convention for an unknown row or case, or a
    dtype outside DTYPES. One line naming the engine, the key and what the spec has."""


def check_declarations(engine: Engine, rows: Iterable[SpecRow]) -> Engine:
    """The engine, once its name, capabilities, lacking keys, error families, conventions and dtype say
    only what the spec knows; else DeclarationError naming the first that does not."""
    rows = list(rows)
    check_identity(engine)
    check_harness_methods(engine)
    check_error_families(engine, {str(row["exception"]) for row in rows if row.kind == "failure"})
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


def check_identity(engine: Engine) -> None:
    """A non-blank name; capabilities a set of known names (a str would make `in` a substring test);
    lacking keys among the known names."""
    if not isinstance(engine.name, str) or not engine.name.strip():
        raise DeclarationError(
            f"{type(engine).__qualname__}: name must be a non-blank str, got {engine.name!r}"
        )
    declared = engine.capabilities
    if not isinstance(declared, frozenset | set):
        raise DeclarationError(
            f"{engine.name}: capabilities must be a frozenset of names, got {type(declared).__name__}"
        )
    for where, names in (("capabilities", declared), ("lacking", engine.lacking)):
        unknown = sorted(str(name) for name in names if name not in KNOWN_CAPABILITIES)
        if unknown:
            raise DeclarationError(
                f"{engine.name}: {where} names unknown capabilities {unknown}; a test requires only "
                f"the names of contracts.engines.KNOWN_CAPABILITIES"
            )


def check_harness_methods(engine: Engine) -> None:
    """The adapter keeps the base class's lacks, convention and error_family: it declares capabilities,
    conventions and error mappings as data, which are checked here and shown in the report."""
    for method in HARNESS_METHODS:
        if getattr(type(engine), method) is not getattr(Engine, method):
            raise DeclarationError(
                f"{engine.name}: overrides {method}(), which the suite runs to decide what is applicable "
                "and how a refusal maps; declare capabilities, conventions, lacking, error_families and "
                "error_patterns instead"
            )


def check_error_families(engine: Engine, families: set[str]) -> None:
    """Every mapped engine exception is an exception type that no crash derives from, mapped (also by
    message pattern) onto one of the spec's exception names."""
    mapped = [(kind, family) for kind, family in engine.error_families.items()]
    mapped += [(kind, family) for kind, _, family in engine.error_patterns]
    for kind, family in mapped:
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise DeclarationError(f"{engine.name}: error_families key {kind!r} is not an exception type")
        crash = next((crash for crash in CRASHES if issubclass(crash, kind)), None)
        if crash is not None:
            raise DeclarationError(
                f"{engine.name}: error_families maps {kind.__name__}, which {crash.__name__} (a crash, "
                f"never a refusal) derives from, onto {family!r}: map the engine's own refusal types"
            )
        if issubclass(kind, UNMAPPED):
            raise DeclarationError(
                f"{engine.name}: error_families maps {kind.__name__} (a crash or a method not implemented, "
                f"never a refusal) onto {family!r}: map the engine's own refusal types"
            )
        if family not in families:
            raise DeclarationError(
                f"{engine.name}: error_families maps {kind.__name__} onto {family!r}, which no spec "
                f"failure row raises (known: {', '.join(sorted(families))})"
            )
    for kind, pattern, family in engine.error_patterns:
        check_pattern(engine, kind, pattern, family)


def check_pattern(engine: Engine, kind: type[BaseException], pattern: str, family: str) -> None:
    """An error pattern is a regex that tells one refusal apart by its message: never one that matches
    any message (then it maps every exception of its type, crashes of that type included)."""
    try:
        catch_all = any(re.search(pattern, message) for message in ANY_MESSAGES)
    except (re.error, TypeError) as error:
        raise DeclarationError(
            f"{engine.name}: error_patterns entry for {kind.__name__} -> {family!r}: {pattern!r} is not "
            f"a regular expression ({error})"
        ) from None
    if catch_all:
        raise DeclarationError(
            f"{engine.name}: error_patterns maps every {kind.__name__} onto {family!r}: {pattern!r} "
            "matches any message; give the text of the engine's own refusal"
        )


__all__ = [
    "ENV_VAR",
    "KNOWN_CAPABILITIES",
    "SHIPPED",
    "DeclarationError",
    "Engine",
    "MissingExtraError",
    "UnknownEngineError",
    "check_declarations",
    "load_engine",
    "selected_name",
]

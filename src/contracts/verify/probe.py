"""`python -m contracts.verify.probe NAME OUT`: load the engine NAME and read what it declares, in a
process of its own.

verify runs no adapter code in its own process. There, an import or constructor could end verify
(os._exit, a native library's exit()) with any exit code and no report, so a CI job could read exit 0
as a pass; a property verify reads (name, capabilities, version()) could raise after the whole suite
ran; and adapter code could patch verify's own report. This child loads the adapter, checks its
declarations against the spec rows, and writes OUT as JSON: {"engine": ..., "module_root": ...}
(plain data) or {"error": one line}. No OUT means loading ended the process.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from contracts.engines import (
    SHIPPED,
    DeclarationError,
    Engine,
    MissingExtraError,
    UnknownEngineError,
    check_declarations,
    load_engine,
)


class ProbeError(Exception):
    """The adapter cannot be used; the message is verify's one-line error."""


def load(name: str) -> Engine:
    """The engine a name or dotted path selects, or ProbeError saying what is wrong with it."""
    try:
        return load_engine(name)
    except MissingExtraError as error:
        raise ProbeError(f"--impl {name}: {error}") from None
    except UnknownEngineError as error:
        raise ProbeError(
            f"unknown engine {name!r} ({error}); use one of "
            f"{', '.join(SHIPPED)}, or a dotted path pkg.module:Class to an Engine subclass"
        ) from None
    except BaseException as error:  # the adapter's own code failed or exited while loading
        raise ProbeError(
            f"could not start engine {name!r}: its import or constructor raised "
            f"{type(error).__name__}: {error}"
        ) from None


def engine_target(engine: Engine) -> str:
    kind = type(engine)
    return f"{kind.__module__}:{kind.__qualname__}"


def module_root(engine: Engine) -> str | None:
    """The sys.path entry the adapter's top-level package was imported from (None for a module
    without a file); the child pytest and the repro commands put it on PYTHONPATH."""
    module = sys.modules.get(type(engine).__module__)
    location = getattr(module, "__file__", None)
    if location is None:
        return None
    depth = type(engine).__module__.count(".") + (Path(location).name == "__init__.py")
    return str(Path(location).resolve().parents[depth])


def engine_info(name: str, engine: Engine) -> dict[str, Any]:
    """What the report says of the engine: its declarations as plain data."""
    return {
        "impl": name,
        "name": engine.name,
        "target": engine_target(engine),
        "version": engine.version(),
        "capabilities": sorted(engine.capabilities),
        "conventions": dict(engine.conventions),
        "dtype": engine.dtype,
    }


def declarations(name: str) -> dict[str, Any]:
    """The engine's declarations checked against the spec rows (unreadable rows are left to
    verify's own read, which names them), or ProbeError."""
    from contracts.verify.runner import VerifyError, spec_rows

    engine = load(name)
    try:
        with contextlib.suppress(VerifyError):
            check_declarations(engine, spec_rows())
        described = {"engine": engine_info(name, engine), "module_root": module_root(engine)}
        json.dumps(described)  # plain data only: verify reads it back
    except DeclarationError as error:
        raise ProbeError(f"--impl {name}: {error}") from None
    except BaseException as error:  # a declaration that raises (a property, version()) or is not data
        raise ProbeError(
            f"--impl {name}: reading its declarations (name, capabilities, conventions, dtype, version()) "
            f"raised {type(error).__name__}: {error}"
        ) from None
    return described


def main(argv: Sequence[str] | None = None) -> int:
    name, out = sys.argv[1:] if argv is None else argv  # run with -m: the current directory is on sys.path
    with contextlib.redirect_stdout(sys.stderr):
        try:
            result = declarations(name)
        except ProbeError as error:
            result = {"error": str(error)}
    Path(out).write_bytes(json.dumps(result).encode())  # ASCII: json escapes the rest
    return 0


def leave(code: int) -> NoReturn:
    """End the probe now: a thread the adapter started (not a daemon) must not keep it alive."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    leave(main())

"""What the pytest plugin does in a session that runs the suite against an engine (it gave
--contracts-impl; the entry point is the top-level module pytest_contracts)."""

from __future__ import annotations

import importlib

import pytest

SUITE = "contracts.spec_suite"
# the suite's tests: in a clone they sit in tests/ (mapped onto these packages), not under the suite's
# own directory, so `--pyargs contracts.spec_suite` alone would find nothing there
PARTS = (f"{SUITE}.properties", f"{SUITE}.golden")


def activate(config: pytest.Config) -> None:
    """Import the suite's session before hypothesis's plugin applies --hypothesis-profile, so the
    suite's profiles (ci, dev, quick, ...) exist by then even where the suite is a guest in another
    project's session."""
    importlib.import_module("contracts.spec_suite.session")
    if config.option.pyargs:
        config.args = with_suite_parts(config.args)


def with_suite_parts(args: list[str]) -> list[str]:
    """The arguments with `contracts.spec_suite` given as its two test packages (an argument naming
    anything else, a module of the suite too, is left as it is)."""
    return [part for arg in args for part in (PARTS if arg == SUITE else (arg,))]

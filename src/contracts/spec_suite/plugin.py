"""What the pytest plugin does in a session that runs the suite against an engine (it gave
--contracts-impl; the entry point is the top-level module pytest_contracts)."""

from __future__ import annotations

import importlib

import pytest


def activate(config: pytest.Config) -> None:
    """Import the suite's conftest before hypothesis's plugin applies --hypothesis-profile, so the
    suite's profiles (ci, dev, quick, ...) exist by then even where the suite is a guest in another
    project's session."""
    importlib.import_module("contracts.spec_suite.conftest")

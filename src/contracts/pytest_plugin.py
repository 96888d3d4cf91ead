"""The pytest plugin's logic (its entry point is the top-level module pytest_contracts, which imports
this only in a session that gives --contracts-impl), and the option lookup the suite's conftest uses.

The plugin never registers the suite's own options (--impl, --deep-graph-depth, --statistical-samples):
tests/conftest.py registers those in the suite's own session (the repository's test run, `contracts
verify`, a repro command) and none where the suite is a guest in another project's session (`hosted`),
so a project whose conftest has its own --impl keeps it; there the plugin's --contracts-* options stand
for them.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from contracts.packaged import SUITE_PACKAGE
from pytest_contracts import DEPTH, IMPL, SAMPLES, TIMEOUT

# the suite's own option -> the plugin's, which stands for it where the suite is a guest
GUEST_OPTIONS = {
    "--impl": IMPL,
    "--deep-graph-depth": DEPTH,
    "--statistical-samples": SAMPLES,
    "--test-timeout": TIMEOUT,
}
SPEC_MARKER = "spec(*ids): the spec rows this test proves (contracts.spec_suite/specs)"


def activate(config: pytest.Config) -> None:
    """A session that gave --contracts-impl: register the suite's `spec` marker, write no bytecode (the
    suite may sit in a read-only site-packages), and import the suite's conftest before hypothesis's
    plugin applies --hypothesis-profile, so the suite's profiles (ci, dev, quick, ...) exist by then."""
    config.addinivalue_line("markers", SPEC_MARKER)
    sys.dont_write_bytecode = True
    if importlib.util.find_spec(SUITE_PACKAGE) is not None:
        importlib.import_module(f"{SUITE_PACKAGE}.tests.conftest")


def hosted(config: pytest.Config, suite_root: Path) -> bool:
    """True when the suite is a guest in another project's session: pytest's rootdir is not its root."""
    return config.rootpath.resolve() != suite_root.resolve()


def suite_option(config: pytest.Config, suite_root: Path, name: str) -> Any:
    """One of the suite's options (e.g. --impl): in its own session its own value, else the plugin's
    (e.g. --contracts-impl); where the suite is a guest only the plugin's (a host's own --impl is
    not the suite's). None when neither is given (or the plugin is disabled: -p no:contracts)."""
    own = None if hosted(config, suite_root) else config.getoption(name, None)
    return own if own is not None else config.getoption(GUEST_OPTIONS[name], None)

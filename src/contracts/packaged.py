"""The spec suite shipped inside a built wheel or sdist install: the package `contracts.spec_suite`.

setup.py's build hook writes it (tests/properties, tests/golden, tests/conftest.py and every helper they
import, with `tests.` imports renamed `contracts.spec_suite.tests.`, the specs, a pytest.ini) at build
time; the repository's tests/ and specs/ stay the source of truth, so a clone or an editable install has
no such package and uses the clone's own suite.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

SUITE_PACKAGE = "contracts.spec_suite"


def packaged_suite(package: str = SUITE_PACKAGE) -> Path | None:
    """The installed suite's root directory (holding tests/ and specs/), or None when this install has
    none (a clone or an editable install) or keeps it where pytest cannot run it (inside a zip)."""
    try:
        root = importlib.resources.files(package)
    except ModuleNotFoundError:
        return None
    return root if isinstance(root, Path) else None

"""The project's own tests take the suite's hypothesis profiles (registered in one place)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest
from hypothesis import settings

import contracts.verify.profiles  # noqa: F401  (registers the profiles)
from contracts.verify import runner

# --hypothesis-profile overrides this; tox 4 renames CI, so tox passes the profile explicitly.
settings.load_profile(os.environ.get("CONTRACTS_HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def suite_never_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """For a verify call that must be refused before its suite starts: starting it fails the test at once.
    A mutant that lets such a call through would otherwise run the whole spec (minutes) before the test
    could fail; the child never sees the mutant, so the run proves nothing either."""

    def started(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("the suite started; the call should have been refused before it")

    monkeypatch.setattr(runner, "run_pytest", started)

"""The one place that registers hypothesis profiles, and the engine-under-test fixture."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings

from contracts.engines import Engine, load_engine, selected_name

# Every profile names its parent explicitly: a profile registered without one inherits whatever
# profile is active at registration time (hypothesis loads its own `ci` profile when CI is set).
DEFAULT = settings.get_profile("default")
settings.register_profile("dev", parent=DEFAULT, max_examples=50, deadline=None)
settings.register_profile(
    "ci",
    parent=DEFAULT,
    max_examples=50,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# Mutation runs: deterministic verdicts, no shrinking (1.6x throughput, same verdicts).
settings.register_profile(
    "mutation",
    parent=settings.get_profile("ci"),
    max_examples=20,
    phases=[Phase.explicit, Phase.generate],
)
settings.register_profile(
    "thorough", parent=DEFAULT, max_examples=2000, deadline=None, verbosity=Verbosity.normal
)
# --hypothesis-profile overrides this; tox 4 renames CI, so tox passes the profile explicitly.
settings.load_profile(os.environ.get("CONTRACTS_HYPOTHESIS_PROFILE", "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--impl",
        default=None,
        help="engine under test: reference, torch, micrograd, or pkg.module:Class "
        "(default: $CONTRACTS_IMPL or reference)",
    )


@pytest.fixture(scope="session")
def engine(request: pytest.FixtureRequest) -> Engine:
    """The engine under test."""
    return load_engine(selected_name(request.config.getoption("--impl")))

"""The one place that registers hypothesis profiles, and the engine-under-test fixture."""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings

from contracts.engines import DeclarationError, Engine, check_declarations, load_engine, selected_name
from contracts.pytest_plugin import hosted, suite_option
from contracts.verify.plugin import RECORDER
from contracts.verify.records import (
    BUILDS_PROPERTY,
    ENGINE_CALLS_PROPERTY,
    REFERENCE_ONLY_MARKER,
    REFERENCE_ONLY_PREFIX,
)
from tests.mutation_order import fastest_first, mutant_under_test, recorded_durations
from tests.spec_rows import EngineUse, RecordingEngine, all_rows, is_reference
from tests.stage07_cases import SEED_SAMPLES, statistical_samples_error
from tests.time_limit import end_process, time_limit

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
# `contracts verify --quick`: a smoke run for slow engines (the report says the run was quick).
settings.register_profile("quick", parent=settings.get_profile("ci"), max_examples=5)
settings.register_profile(
    "thorough", parent=DEFAULT, max_examples=2000, deadline=None, verbosity=Verbosity.normal
)
# --hypothesis-profile overrides this; tox 4 renames CI, so tox passes the profile explicitly.
settings.load_profile(os.environ.get("CONTRACTS_HYPOTHESIS_PROFILE", "dev"))


# The suite's root (the repository, or contracts/spec_suite in a wheel): pytest's rootdir in its own session.
SUITE_ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # A guest in another project's session (the packaged suite run through the contracts pytest plugin)
    # registers no option, so the host's own --impl stays its own: --contracts-impl stands for --impl.
    if hosted(cast(pytest.Config, pluginmanager.get_plugin("pytestconfig")), SUITE_ROOT):
        return
    parser.addoption(
        "--impl",
        default=None,
        help="engine under test: reference, torch, micrograd, or pkg.module:Class "
        "(default: $CONTRACTS_IMPL or reference)",
    )
    parser.addoption(
        "--deep-graph-depth",
        type=int,
        default=None,
        help="nodes in the deep-graph rows' long chain (default: the spec's 10^6; verify --quick: 10^4)",
    )
    parser.addoption(
        "--test-timeout",
        type=float,
        default=None,
        help="fail a test still running after this many seconds (verify --timeout; default: no limit)",
    )
    parser.addoption(
        "--statistical-samples",
        type=int,
        default=None,
        help=f"draws per statistical check of the engine's initializers (default: the seed's {SEED_SAMPLES}; "
        "verify --quick: 512)",
    )


@pytest.fixture(scope="session")
def deep_graph_depth(request: pytest.FixtureRequest) -> int | None:
    """The deep-graph chain length asked for on the command line (None: the spec's own)."""
    depth: int | None = suite_option(request.config, SUITE_ROOT, "--deep-graph-depth")
    return depth


@pytest.fixture(autouse=True)
def time_limited(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test within --test-timeout seconds, if given: a hanging engine fails its test."""
    seconds: float | None = suite_option(request.config, SUITE_ROOT, "--test-timeout")
    recorder = request.config.pluginmanager.get_plugin(RECORDER)  # verify's, outside xdist workers
    nodeid = request.node.nodeid

    def on_hang(message: str) -> None:
        if recorder is not None:  # the results say which test hung before the process ends
            recorder.abandon(nodeid, message)
        end_process(message)

    with time_limit(seconds, nodeid, on_hang):
        yield


@pytest.fixture(scope="session")
def statistical_samples(request: pytest.FixtureRequest) -> int:
    """Draws per statistical check of the engine's initializers (pytest_configure checked the option)."""
    samples: int | None = suite_option(request.config, SUITE_ROOT, "--statistical-samples")
    return SEED_SAMPLES if samples is None else samples


def pytest_configure(config: pytest.Config) -> None:
    # Refused before any test runs, in one line: a sample too small to fail would pass every check; a
    # time limit of 0 or less would fail (or never arm) every test.
    samples: int | None = suite_option(config, SUITE_ROOT, "--statistical-samples")
    error = None if samples is None else statistical_samples_error(samples)
    seconds: float | None = suite_option(config, SUITE_ROOT, "--test-timeout")
    if seconds is not None and not 0 < seconds < math.inf:
        error = f"--test-timeout: got {seconds}, expected a number of seconds above 0"
    if error is not None:
        raise pytest.UsageError(error)
    config.addinivalue_line(
        "markers",
        f"{REFERENCE_ONLY_MARKER}(reason): the test exercises this project's own types; "
        "not applicable on any engine but the reference",
    )


@pytest.fixture(scope="session")
def engine(request: pytest.FixtureRequest) -> Engine:
    """The engine under test, wrapped so that each test's calls of its adapter methods are counted."""
    recording = RecordingEngine(load_selected(request.config))
    return cast(Engine, recording)


@pytest.fixture(autouse=True)
def engine_use(request: pytest.FixtureRequest) -> Iterator[None]:
    """Skip a reference-only test on any other engine; record how often a test called the engine
    (verify reports a passing spec test that never did as not exercised)."""
    marker = request.node.get_closest_marker(REFERENCE_ONLY_MARKER)
    if marker is not None and not is_reference(load_selected(request.config)):
        pytest.skip(f"{REFERENCE_ONLY_PREFIX} {marker.args[0]}")
    # A module may bring its own `engine` fixture (e.g. every shipped adapter in turn): only the
    # session's recording engine is counted.
    given = request.getfixturevalue("engine") if "engine" in request.fixturenames else None
    use = EngineUse(given if isinstance(given, RecordingEngine) else None)
    yield
    request.node.user_properties.append((ENGINE_CALLS_PROPERTY, use.calls()))
    request.node.user_properties.append((BUILDS_PROPERTY, use.builds()))


ENGINE_KEY = pytest.StashKey[Engine]()


def load_selected(config: pytest.Config) -> Engine:
    """The selected engine, loaded once per session (without the engine fixture, so a reference-only
    test that does not request it still learns which engine runs)."""
    if ENGINE_KEY not in config.stash:
        engine = load_engine(selected_name(suite_option(config, SUITE_ROOT, "--impl")))
        try:
            config.stash[ENGINE_KEY] = check_declarations(engine, all_rows())
        except DeclarationError as error:  # the adapter declares what the spec does not know: stop here
            pytest.exit(f"cannot run the engine: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    return config.stash[ENGINE_KEY]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Only a mutant's own run is reordered: every other session keeps pytest's order.
    if mutant_under_test():
        fastest_first(items, recorded_durations())

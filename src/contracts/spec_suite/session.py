"""The suite's session: its markers and options checked, the engine under test (loaded once, its calls
counted per test), reference-only tests skipped on other engines, and the per-test time limit. The
conftest.py of properties/ and of golden/ take its fixtures and hooks (each directory its own, so the
suite runs alike from a clone, where they sit in tests/, and from an installed wheel)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Generator, Iterator
from typing import Any, cast

import pytest
from hypothesis import reject, settings
from hypothesis.errors import FailedHealthCheck, Unsatisfiable

import contracts.verify.profiles  # noqa: F401  (registers the profiles)
from contracts.engines import DeclarationError, Engine, check_declarations, load_engine, selected_name
from contracts.spec_suite.cases.stage07 import SEED_SAMPLES, statistical_samples_error
from contracts.spec_suite.spec_rows import (
    EngineUse,
    LackedCapability,
    RecordingEngine,
    all_rows,
    is_reference,
)
from contracts.verify.clauses import CLAUSES_PROPERTY, recording
from contracts.verify.plugin import marked_ids
from contracts.verify.records import (
    BUILDS_PROPERTY,
    ENGINE_CALLS_PROPERTY,
    REFERENCE_ONLY_MARKER,
    REFERENCE_ONLY_PREFIX,
)
from contracts.verify.time_limit import pytest_runtest_call as pytest_runtest_call  # the limit, on the call
from pytest_contracts import DEPTH, IMPL, MAX_TEST_SECONDS, SAMPLES, TIMEOUT

# --hypothesis-profile overrides this; tox 4 renames CI, so tox passes the profile explicitly.
settings.load_profile(os.environ.get("CONTRACTS_HYPOTHESIS_PROFILE", "dev"))


def option(config: pytest.Config, name: str) -> Any:
    """One of the plugin's --contracts-* options (None when not given, or the plugin is disabled)."""
    return config.getoption(name, None)


@pytest.fixture(scope="session")
def deep_graph_depth(request: pytest.FixtureRequest) -> int | None:
    """The deep-graph chain length asked for on the command line (None: the spec's own)."""
    depth: int | None = option(request.config, DEPTH)
    return depth


@pytest.fixture(scope="session")
def statistical_samples(request: pytest.FixtureRequest) -> int:
    """Draws per statistical check of the engine's initializers (pytest_configure checked the option)."""
    samples: int | None = option(request.config, SAMPLES)
    return SEED_SAMPLES if samples is None else samples


def pytest_configure(config: pytest.Config) -> None:
    # Refused before any test runs, in one line: a sample too small to fail would pass every check; a
    # time limit of 0 or less would fail (or never arm) every test.
    samples: int | None = option(config, SAMPLES)
    error = None if samples is None else statistical_samples_error(samples)
    seconds: float | None = option(config, TIMEOUT)
    if seconds is not None and not 0 < seconds <= MAX_TEST_SECONDS:
        error = (
            f"--contracts-test-timeout: got {seconds}, expected a number of seconds above 0, "
            f"at most {MAX_TEST_SECONDS:g}"
        )
    if error is not None:
        raise pytest.UsageError(error)
    config.addinivalue_line("markers", "spec(*ids): the spec rows this test proves (contracts/specs)")
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
    with recording(frozenset(marked_ids(request.node))) as passed:
        yield
    request.node.user_properties.append((ENGINE_CALLS_PROPERTY, use.calls()))
    request.node.user_properties.append((BUILDS_PROPERTY, use.builds()))
    # each clause once, however many examples proved it (contracts.verify.clauses)
    request.node.user_properties.append((CLAUSES_PROPERTY, [list(entry) for entry in dict.fromkeys(passed)]))


def rejecting_lacked(inner_test: Callable[..., Any]) -> Callable[..., Any]:
    """A hypothesis test's body, with an example that calls what the engine lacks rejected rather than
    ending the test: whether the test runs the engine must not depend on which example came first."""

    @functools.wraps(inner_test)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return inner_test(*args, **kwargs)
        except LackedCapability:
            reject()

    run.rejects_lacked = True  # type: ignore[attr-defined]
    return run


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    """A hypothesis test on an engine that lacks part of what its examples ask for runs every example the
    engine can run: a failure there fails the test; else the test is not applicable for the lack (as a
    test ended at the first lacked call was), also when the lack left hypothesis no example to run."""
    recording = pyfuncitem.funcargs.get("engine")
    given = getattr(pyfuncitem.obj, "hypothesis", None)
    if not isinstance(recording, RecordingEngine) or given is None:
        return (yield)
    if not getattr(given.inner_test, "rejects_lacked", False):
        given.inner_test = rejecting_lacked(given.inner_test)
    before = len(recording.lacked)
    try:
        outcome = yield
    except (Unsatisfiable, FailedHealthCheck):
        if len(recording.lacked) == before:
            raise
        outcome = None
    if len(recording.lacked) > before:
        pytest.skip(f"not applicable: {recording.lacked[before]}")
    return outcome


ENGINE_KEY = pytest.StashKey[Engine]()


def load_selected(config: pytest.Config) -> Engine:
    """The selected engine, loaded once per session (without the engine fixture, so a reference-only
    test that does not request it still learns which engine runs)."""
    if ENGINE_KEY not in config.stash:
        engine = load_engine(selected_name(option(config, IMPL)))
        try:
            config.stash[ENGINE_KEY] = check_declarations(engine, all_rows())
        except DeclarationError as error:  # the adapter declares what the spec does not know: stop here
            pytest.exit(f"cannot run the engine: {error}", returncode=pytest.ExitCode.USAGE_ERROR)
    return config.stash[ENGINE_KEY]

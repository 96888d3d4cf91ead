"""The suite's session (contracts.spec_suite.session) for the tests in this directory: its options
checked, the engine under test, reference-only skips, each test's clauses and time limit."""

from contracts.spec_suite.session import (  # noqa: F401  (pytest finds fixtures and hooks by name here)
    deep_graph_depth,
    engine,
    engine_use,
    pytest_configure,
    pytest_pyfunc_call,
    pytest_runtest_call,
    statistical_samples,
)

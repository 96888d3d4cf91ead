"""Entry point of the contracts pytest plugin (`pytest11`, name `contracts`); the logic is in
contracts.spec_suite.plugin.

    pytest --pyargs contracts.spec_suite --contracts-impl=pkg.module:Engine --hypothesis-profile=ci

pytest imports entry-point plugins in every session of the environment, before coverage starts. So
this module sits outside the contracts package and imports nothing from it: a session that does not
give --contracts-impl gets two options with their own prefix and nothing else (contracts is not even
imported), and the repository's own coverage run still sees every line of contracts execute.
"""

from __future__ import annotations

import sys

import pytest

IMPL = "--contracts-impl"
DEPTH = "--contracts-deep-graph-depth"
SAMPLES = "--contracts-statistical-samples"
TIMEOUT = "--contracts-test-timeout"
# The longest per-test time limit, one day: the interval timer that enforces it overflows on absurd values.
MAX_TEST_SECONDS = 86400.0


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contracts", f"contracts spec suite (--pyargs contracts.spec_suite {IMPL}=...)")
    group.addoption(
        IMPL,
        default=None,
        metavar="ENGINE",
        help="engine the spec suite runs against: a shipped adapter's name (`contracts verify --help` "
        "lists them) or pkg.module:Class "
        "(default: $CONTRACTS_IMPL or reference)",
    )
    group.addoption(
        DEPTH,
        type=int,
        default=None,
        metavar="N",
        help="nodes in the deep-graph rows' chain (default: the spec's 10^6)",
    )
    group.addoption(
        SAMPLES,
        type=int,
        default=None,
        metavar="N",
        help="draws per statistical check of the init rows (default: the seed's 4096)",
    )
    group.addoption(
        TIMEOUT,
        type=float,
        default=None,
        metavar="SECONDS",
        help="fail a suite test still running after SECONDS (default: no limit)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.getoption(IMPL) is not None:
        # no bytecode from here on: the suite may sit in a read-only site-packages, and pytest rewrites
        # (and would cache) every module of this distribution, the plugin's own included
        sys.dont_write_bytecode = True
        from contracts.spec_suite.plugin import activate  # only a session that asked imports contracts

        activate(config)

"""Spec-suite tests run in a pytest session of their own, inside this process, on a chosen engine."""

from __future__ import annotations

from collections import defaultdict

import pytest
from hypothesis import settings


class RowOutcomes:
    """A pytest plugin: per spec row, the outcomes of the tests that name it."""

    def __init__(self) -> None:
        self.outcomes: dict[str, set[str]] = defaultdict(set)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> object:
        report = yield
        assert isinstance(report, pytest.TestReport)
        if report.when == "call" or report.outcome != "passed":
            for marker in item.iter_markers("spec"):
                for row_id in marker.args:
                    self.outcomes[row_id].add(report.outcome)
        return report

    def failed(self) -> set[str]:
        return {row_id for row_id, outcomes in self.outcomes.items() if "failed" in outcomes}


def run_suite(
    tests: tuple[str, ...],
    impl: str,
    selection: str,
    expected: pytest.ExitCode = pytest.ExitCode.TESTS_FAILED,
) -> RowOutcomes:
    """The tests, in a pytest session of their own on the engine impl (ending with the expected exit
    code); their outcomes per spec row."""
    plugin = RowOutcomes()
    profile = settings.get_current_profile_name()
    try:
        code = pytest.main(
            [
                *tests,
                "--contracts-impl",
                impl,
                "--hypothesis-profile=mutation",
                "-q",
                "-p",
                "no:randomly",
                "-p",
                "no:cacheprovider",
                "--no-header",
                "-k",
                selection,
                "-o",
                "addopts=",
            ],
            plugins=[plugin],
        )
    finally:  # the inner session loads its own hypothesis profile: give the outer one back
        settings.load_profile(profile)
    assert expected == code
    return plugin

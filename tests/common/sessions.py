"""Spec-suite tests run in a pytest session of their own, inside this process, on a chosen engine, and
judged as verify judges them (a failure charged to the row whose clause failed)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from contracts.spec_suite.spec_rows import all_rows
from contracts.verify.records import FAILED, Record
from contracts.verify.report import Rerun, RowResult, aggregate


class RowOutcomes:
    """Each spec row's verdict from the session's records, as verify aggregates them."""

    def __init__(self, results: list[RowResult]) -> None:
        self.results = {result.id: result for result in results}

    def failed(self) -> set[str]:
        return {row_id for row_id, result in self.results.items() if result.status == FAILED}

    def statuses(self) -> set[str]:
        return {result.status for result in self.results.values() if result.tests}


def run_suite(
    tests: tuple[str, ...],
    impl: str,
    selection: str,
    expected: pytest.ExitCode = pytest.ExitCode.TESTS_FAILED,
    profile: str = "mutation",
) -> RowOutcomes:
    """The tests, in a pytest session of their own on the engine impl (ending with the expected exit
    code) in the hypothesis profile (by default one that does not shrink: these sessions read which rows
    fail, not a failure's minimal example), recorded by verify's plugin; their verdict per spec row."""
    outer = settings.get_current_profile_name()
    with tempfile.TemporaryDirectory(prefix="contracts-session-") as scratch:
        out = Path(scratch) / "results.json"
        try:
            code = pytest.main(
                [
                    *tests,
                    "--contracts-impl",
                    impl,
                    f"--hypothesis-profile={profile}",
                    "-q",
                    "-p",
                    "no:randomly",
                    "-p",
                    "no:cacheprovider",
                    "-p",
                    "contracts.verify.plugin",
                    "--contracts-verify-out",
                    str(out),
                    "--no-header",
                    "-k",
                    selection,
                    "-o",
                    "addopts=",
                ]
            )
        finally:  # the inner session loads its own hypothesis profile: give the outer one back
            settings.load_profile(outer)
        assert expected == code
        records = [Record.from_json(item) for item in json.loads(out.read_text(encoding="utf-8"))["tests"]]
    rows = [
        {
            "id": r.id,
            "title": r["title"],
            "kind": r.kind,
            "stage": r.stage,
            "level": r["level"],
            "category": r["category"],
        }
        for r in all_rows()
    ]
    return RowOutcomes(aggregate(rows, records, Rerun(impl, profile), engine_is_reference=False))

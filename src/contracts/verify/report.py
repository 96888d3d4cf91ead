"""From per-test records and the spec rows to one result per row, a summary and an exit code.

A row's status: failed if any of its tests failed (or errored); else passed if any passed; else
not applicable if every test was skipped as not applicable (the engine lacks the row, with the
reason); else skipped (its tests were skipped for another reason, so the row is not proven);
unbound if no test names it (deselected instead when a keyword selection left it without tests).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.traceability import SUITES, suite_of
from contracts.verify.records import (
    ERROR,
    FAILED,
    NOT_APPLICABLE,
    NOT_APPLICABLE_PREFIX,
    PASSED,
    SKIPPED,
    Record,
)

# row statuses
UNBOUND = "unbound"
DESELECTED = "deselected"
ROW_STATUSES = (PASSED, FAILED, NOT_APPLICABLE, SKIPPED, UNBOUND, DESELECTED)
ACCEPTED = frozenset({PASSED, NOT_APPLICABLE, DESELECTED})  # the statuses that keep the exit code 0


def row_status(outcomes: Sequence[str], deselection: bool = False) -> str:
    """The status of a row (or of one of its suites) from its tests' outcomes."""
    if not outcomes:
        return DESELECTED if deselection else UNBOUND
    if FAILED in outcomes or ERROR in outcomes:
        return FAILED
    if PASSED in outcomes:
        return PASSED
    if all(outcome == NOT_APPLICABLE for outcome in outcomes):
        return NOT_APPLICABLE
    return SKIPPED


def repro_command(nodeid: str, impl: str, profile: str) -> str:
    """A copy-paste command (run from the suite root) that reruns one test the way verify ran it."""
    return shlex.join(["pytest", nodeid, "--impl", impl, f"--hypothesis-profile={profile}"])


@dataclass
class ReportedTest:
    """A test as the report shows it: its record, which suite it is in, how to rerun it."""

    record: Record
    suite: str | None
    repro: str | None

    def to_json(self) -> dict[str, Any]:
        record = self.record
        return {
            "nodeid": record.nodeid,
            "suite": self.suite,
            "outcome": record.outcome,
            "reason": record.reason,
            "examples": record.examples,
            "duration": round(record.duration, 6),
            "message": record.message,
            "falsifying_example": record.falsifying,
            "reproduce_failure": record.reproduce,
            "repro": self.repro,
        }


@dataclass
class RowResult:
    id: str
    title: str
    kind: str
    stage: str
    status: str
    reasons: list[str]  # why it is not applicable (or skipped): one per distinct skip reason
    checks: dict[str, str]  # suite (properties, golden) -> status of that suite's tests
    tests: list[ReportedTest] = field(default_factory=list)

    def example_count(self) -> int:
        return sum(test.record.examples or 0 for test in self.tests)

    def duration(self) -> float:
        return sum(test.record.duration for test in self.tests)

    def failures(self) -> list[ReportedTest]:
        return [test for test in self.tests if test.record.outcome in (FAILED, ERROR)]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "stage": self.stage,
            "status": self.status,
            "reasons": self.reasons,
            "checks": self.checks,
            "examples": self.example_count(),
            "duration": round(self.duration(), 6),
            "tests": [test.to_json() for test in self.tests],
        }


def reported_test(record: Record, impl: str, profile: str) -> ReportedTest:
    """A record with its suite, and a repro command if it failed."""
    failed = record.outcome in (FAILED, ERROR)
    return ReportedTest(
        record, suite_of(record.nodeid), repro_command(record.nodeid, impl, profile) if failed else None
    )


def skip_reasons(tests: Iterable[ReportedTest]) -> list[str]:
    """The distinct skip reasons of a row's tests, without the 'not applicable:' prefix."""
    reasons: list[str] = []
    for test in tests:
        reason = (test.record.reason or "").removeprefix(NOT_APPLICABLE_PREFIX).strip()
        if reason and reason not in reasons:
            reasons.append(reason)
    return reasons


def aggregate(
    rows: Iterable[Mapping[str, Any]],
    records: Iterable[Record],
    impl: str,
    profile: str,
    deselection: bool = False,
) -> list[RowResult]:
    """One RowResult per spec row, in spec order. rows need id, title, kind and stage."""
    by_id: dict[str, list[ReportedTest]] = {}
    for record in records:
        result = reported_test(record, impl, profile)
        for spec_id in record.spec_ids:
            by_id.setdefault(spec_id, []).append(result)
    results = []
    for row in rows:
        tests = by_id.get(str(row["id"]), [])
        status = row_status([t.record.outcome for t in tests], deselection)
        checks = {
            suite: row_status([t.record.outcome for t in tests if t.suite == suite], deselection)
            for suite in SUITES
        }
        reasons = skip_reasons(tests) if status in (NOT_APPLICABLE, SKIPPED) else []
        results.append(
            RowResult(
                str(row["id"]),
                str(row["title"]),
                str(row["kind"]),
                str(row["stage"]),
                status,
                reasons,
                checks,
                tests,
            )
        )
    return results


def unknown_ids(known: Iterable[str], records: Iterable[Record]) -> dict[str, list[str]]:
    """spec id no spec has -> the tests naming it."""
    known_ids = set(known)
    found: dict[str, list[str]] = {}
    for record in records:
        for spec_id in record.spec_ids:
            if spec_id not in known_ids:
                found.setdefault(spec_id, []).append(record.nodeid)
    return found


def summarize(results: Sequence[RowResult]) -> dict[str, Any]:
    """Counts by status, and by stage then status."""
    by_status = {status: 0 for status in ROW_STATUSES}
    by_stage: dict[str, dict[str, int]] = {}
    for result in results:
        by_status[result.status] += 1
        stage = by_stage.setdefault(result.stage, {status: 0 for status in ROW_STATUSES})
        stage[result.status] += 1
    return {"rows": len(results), "by_status": by_status, "by_stage": by_stage}


def mutation_score(path: Path) -> dict[str, Any] | None:
    """mutmut's export-cicd-stats file with score = (killed + timeout) / (total - skipped); None if absent."""
    if not path.is_file():
        return None
    stats: dict[str, Any] = json.loads(path.read_bytes())
    counted = int(stats.get("total", 0)) - int(stats.get("skipped", 0))
    caught = int(stats.get("killed", 0)) + int(stats.get("timeout", 0))
    score = caught / counted if counted > 0 else None
    keys = ("killed", "survived", "total", "no_tests", "timeout", "skipped", "suspicious")
    return {"path": str(path), "score": score, **{key: int(stats.get(key, 0)) for key in keys}}


@dataclass
class Report:
    """Everything `contracts verify` prints, in any format."""

    engine: dict[str, Any]
    suite: str
    profile: str
    workers: int
    selection: dict[str, Any]
    rows: list[RowResult]
    other_tests: list[ReportedTest]  # tests that name no spec row
    unknown_ids: dict[str, list[str]]
    collection_errors: list[dict[str, str]]
    pytest_exit_code: int
    duration: float
    mutation: dict[str, Any] | None = None
    spec_mutation: list[str] = field(default_factory=list)  # contracts.spec_mutation.summary's line

    def problems(self) -> list[str]:
        """Why the run is not clean, one line each (empty: every applicable row passed)."""
        lines = [f"{row.id}: {row.status}" for row in self.rows if row.status not in ACCEPTED]
        lines += [
            f"{test.record.nodeid}: {test.record.outcome}"
            for test in self.other_tests
            if test.record.outcome in (FAILED, ERROR)
        ]
        lines += [f"{spec_id}: named by a test but in no spec" for spec_id in self.unknown_ids]
        lines += [f"collection error: {error['nodeid']}" for error in self.collection_errors]
        if self.pytest_crashed():
            lines.append(f"pytest exited with code {self.pytest_exit_code}")
        return lines

    def pytest_crashed(self) -> bool:
        """pytest's own exit code says more than 'some tests failed' (1) or 'none collected' (5)."""
        return self.pytest_exit_code not in (0, 1, 5)

    def exit_code(self) -> int:
        return 0 if not self.problems() else 1

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "contracts-verify-report",
            "version": 1,
            "engine": self.engine,
            "suite": self.suite,
            "profile": self.profile,
            "workers": self.workers,
            "selection": self.selection,
            "summary": summarize(self.rows),
            "exit_code": self.exit_code(),
            "problems": self.problems(),
            "rows": [row.to_json() for row in self.rows],
            "other_tests": [test.to_json() for test in self.other_tests],
            "unknown_ids": self.unknown_ids,
            "collection_errors": self.collection_errors,
            "mutation": self.mutation,
            "pytest_exit_code": self.pytest_exit_code,
            "duration": round(self.duration, 3),
        }

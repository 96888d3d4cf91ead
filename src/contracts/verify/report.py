"""From per-test records and the spec rows to one result per row, a summary and an exit code.

A row's status: failed if any of its tests failed (or errored); else skipped if any was skipped for
a reason other than not applicable, even beside passes (that part is not proven); else passed if any
passed; else not applicable if every test was skipped as not applicable (the engine lacks the row,
with the reason); unbound if no test names it (deselected instead when a keyword selection left it
without tests).
A row with a test that passed without calling the engine (and is not reference-only) is not
exercised: never green. A row whose tests passed but some of whose tests were n/a on the engine (it
lacks a capability, declares a convention, the test is reference-only, or a cross-check's optional
peer is not installed) is partly verified: accepted, but never read as the whole row passed, and the
report names what was left out. Passed means every test of the row ran on the engine.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from contracts.spec.traceability import SUITES, suite_of
from contracts.verify.records import (
    ERROR,
    FAILED,
    NOT_APPLICABLE,
    NOT_APPLICABLE_PREFIX,
    NOT_EXERCISED,
    PASSED,
    SKIPPED,
    Record,
    never_built,
)
from pytest_contracts import IMPL

# row statuses
PARTLY = "partly verified"  # passed, but some of its tests did not run on the engine (n/a there)
UNBOUND = "unbound"
DESELECTED = "deselected"
ROW_STATUSES = (PASSED, PARTLY, FAILED, NOT_EXERCISED, NOT_APPLICABLE, SKIPPED, UNBOUND, DESELECTED)
NOTHING_VERIFIED = (
    "nothing verified: no test ran against the engine (every selected row is n/a, skipped or unbound)"
)
NEVER_BUILT = (
    "the engine declined every build the suite asked of it (ModuleUnsupported): it declares the "
    "capability, but nothing of it was verified"
)
# pytest's own verdict is a second witness: exit code 1 says some test failed or errored
UNRECORDED_FAILURE = (
    "pytest exited with code 1 (a test failed) but no test's record failed: the records do not match "
    "the run, so no row's verdict can be trusted"
)
ACCEPTED = frozenset({PASSED, PARTLY, NOT_APPLICABLE, DESELECTED})  # the statuses that keep the exit code 0
VERIFIED = frozenset({PASSED, PARTLY, FAILED})  # a test ran against the engine and reached a verdict


def row_status(outcomes: Sequence[str], deselection: bool = False) -> str:
    """The status of a row (or of one of its suites) from its tests' outcomes."""
    if not outcomes:
        return DESELECTED if deselection else UNBOUND
    if FAILED in outcomes or ERROR in outcomes:
        return FAILED
    if NOT_EXERCISED in outcomes:
        return NOT_EXERCISED  # a test claims the row yet never ran the engine: the row is not proven
    if any(outcome not in (PASSED, NOT_APPLICABLE) for outcome in outcomes):
        return SKIPPED  # skipped for no declared reason (not n/a), or any outcome that proves nothing
    if PASSED in outcomes:
        # Any test of the row left n/a on the engine (a convention, a capability it lacks, or a
        # reference-only test) leaves part of the row's claim unchecked there. Reference-only tests
        # count too: some check a clause every engine must meet that the adapter protocol cannot
        # observe (a forward refusing swapped storage). "passed" means every test ran on the engine.
        return PARTLY if NOT_APPLICABLE in outcomes else PASSED
    return NOT_APPLICABLE  # only n/a tests are left


@dataclass(frozen=True)
class Rerun:
    """How verify ran the suite, so that a failing test can be rerun the same way from any directory:
    the suite root (cd there), the adapter's import root (PYTHONPATH), the Python, the engine, the
    hypothesis profile and any further pytest options (seed, quick settings)."""

    impl: str
    profile: str
    suite: str | None = None
    pythonpath: tuple[str, ...] = ()
    python: str | None = None
    extra: tuple[str, ...] = ()

    def command(self, nodeid: str) -> str:
        pytest = ["pytest"] if self.python is None else [self.python, "-m", "pytest"]
        args = [*pytest, nodeid, IMPL, self.impl, f"--hypothesis-profile={self.profile}", *self.extra]
        text = shlex.join(args)
        if self.pythonpath:
            text = f"PYTHONPATH={shlex.quote(os.pathsep.join(self.pythonpath))} {text}"
        return text if self.suite is None else f"cd {shlex.quote(self.suite)} && {text}"


def repro_command(nodeid: str, impl: str, profile: str) -> str:
    """A copy-paste command (run from the suite root) that reruns one test the way verify ran it."""
    return Rerun(impl, profile).command(nodeid)


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
            "engine_calls": record.engine_calls,
            "reference_only": record.reference_only,
        }


@dataclass
class RowResult:
    id: str
    title: str
    kind: str
    stage: str
    status: str
    reasons: list[str]  # why it is (partly) not applicable or skipped: one per distinct skip reason
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


def reported_test(record: Record, rerun: Rerun) -> ReportedTest:
    """A record with its suite, and a repro command if it failed."""
    failed = record.outcome in (FAILED, ERROR)
    return ReportedTest(record, suite_of(record.nodeid), rerun.command(record.nodeid) if failed else None)


def skip_reasons(tests: Iterable[ReportedTest]) -> list[str]:
    """The distinct skip reasons of a row's tests, without the 'not applicable:' prefix."""
    reasons: list[str] = []
    for test in tests:
        reason = (test.record.reason or "").removeprefix(NOT_APPLICABLE_PREFIX).strip()
        if reason and reason not in reasons:
            reasons.append(reason)
    return reasons


def row_reasons(status: str, tests: Sequence[ReportedTest]) -> list[str]:
    """What a row left unverified: every skip reason of an n/a, skipped or partly verified row (for
    the last, of its tests that did not run on the engine); nothing otherwise."""
    if status in (NOT_APPLICABLE, SKIPPED):
        return skip_reasons(tests)
    if status == PARTLY:
        return skip_reasons(t for t in tests if t.record.outcome == NOT_APPLICABLE)
    return []


def aggregate(
    rows: Iterable[Mapping[str, Any]],
    records: Iterable[Record],
    rerun: Rerun,
    deselection: bool = False,
) -> list[RowResult]:
    """One RowResult per spec row, in spec order. rows need id, title, kind and stage."""
    by_id: dict[str, list[ReportedTest]] = {}
    for record in records:
        result = reported_test(record, rerun)
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
        reasons = row_reasons(status, tests)
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


ASSERTION_STARTS = ("assert ", "AssertionError")


def test_function(nodeid: str) -> str:
    """The test function of a node id, without its parameters (tests/x.py::t[a] -> tests/x.py::t)."""
    return nodeid.partition("[")[0]


def signature(message: str | None) -> str:
    """A failure's first line: the exception type and message, or the failing assertion."""
    lines = (message or "").strip().splitlines()
    return lines[0] if lines else "(no message)"


@dataclass
class Cause:
    """One failure shared by several rows: the same exception raised anywhere (one engine bug seen by
    several tests), or the same assertion failing in the same test function."""

    signature: str
    test: str | None  # the test function, for an assertion; None for an exception seen across tests
    rows: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"signature": self.signature, "test": self.test, "rows": self.rows, "tests": self.tests}


# A number that varies between sightings of one exception (a recursion limit, a chain depth, a size
# hypothesis drew, a line number, an object's address): a standalone decimal or hex literal. A digit inside
# a name (S03, float64, x2) or a qualifier (1-D) is no such number: those tell causes apart.
VARYING_NUMBER = re.compile(
    r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w]|\.\d|-[A-Za-z])"
)
# pytest's first line for an exception group holding one exception (hypothesis's FlakyFailure)
SINGLE_IN_GROUP = re.compile(r"^([A-Za-z_][\w.]*)\((.*)\) \[single exception in [\w.]+\]$")


def unwrap_single(first: str) -> str:
    """ "Type('text') [single exception in Group]" read as "Type: text", the line the same exception
    gives when raised alone; any other line unchanged."""
    match = SINGLE_IN_GROUP.match(first)
    if match is None:
        return first
    try:
        text = ast.literal_eval(match.group(2))
    except (ValueError, SyntaxError):
        return first
    return f"{match.group(1)}: {text}" if isinstance(text, str) else first


def cause_key(test: ReportedTest) -> tuple[str, str | None]:
    """An assertion is keyed by its exact text and test function; an exception by its type and text
    with varying numbers blanked (one engine bug raises it with another limit or size in each test)."""
    first = signature(test.record.message)
    if first.startswith(ASSERTION_STARTS):
        return first, test_function(test.record.nodeid)
    return VARYING_NUMBER.sub("#", unwrap_single(first)), None


def causes(results: Sequence[RowResult]) -> list[Cause]:
    """The failing rows grouped by cause, in the order the causes first appear; a cause shows the
    signature it was first seen with."""
    grouped: dict[tuple[str, str | None], Cause] = {}
    for result in results:
        for test in result.failures():
            key = cause_key(test)
            cause = grouped.setdefault(key, Cause(signature(test.record.message), key[1]))
            if result.id not in cause.rows:
                cause.rows.append(result.id)
            if test.record.nodeid not in cause.tests:
                cause.tests.append(test.record.nodeid)
    return list(grouped.values())


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
        lines += [f"{method}: {NEVER_BUILT}" for method in never_built(self.records())]
        if self.pytest_crashed():
            lines.append(f"pytest exited with code {self.pytest_exit_code}")
        if self.failure_unrecorded():
            lines.append(UNRECORDED_FAILURE)
        if not self.verified_any():
            lines.append(NOTHING_VERIFIED)
        return lines

    def records(self) -> list[Record]:
        """Every test's record: the rows' and the other tests'."""
        return [test.record for row in self.rows for test in row.tests] + [
            test.record for test in self.other_tests
        ]

    def verified_any(self) -> bool:
        """Some row passed or failed: some test ran against the engine (a green run proves something)."""
        return any(row.status in VERIFIED for row in self.rows)

    def pytest_crashed(self) -> bool:
        """pytest's own exit code says more than 'some tests failed' (1) or 'none collected' (5)."""
        return self.pytest_exit_code not in (0, 1, 5)

    def failure_unrecorded(self) -> bool:
        """pytest says a test failed (1), yet no record failed or errored, and no collection error or test
        of an unknown row (whose record no row holds) accounts for it."""
        recorded = any(record.outcome in (FAILED, ERROR) for record in self.records())
        explained = recorded or self.collection_errors or self.unknown_ids
        return self.pytest_exit_code == 1 and not explained

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
            "causes": [cause.to_json() for cause in causes(self.rows)],
            "other_tests": [test.to_json() for test in self.other_tests],
            "unknown_ids": self.unknown_ids,
            "collection_errors": self.collection_errors,
            "pytest_exit_code": self.pytest_exit_code,
            "duration": round(self.duration, 3),
        }

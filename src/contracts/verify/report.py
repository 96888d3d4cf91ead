"""From per-test records and the spec rows to one result per row, a verdict per level and an exit code.

A test names one or more rows. For each row it names, the test gives that row a check: its outcome, and
the category of what it checked (the row's own category, or the category of each clause the test
proved for it, contracts.verify.clauses). A failure inside a clause is charged to that clause's row
only; the test's other rows keep the clauses that passed before it, and a row none of whose clauses
ran reads "not run" for that test. A failure outside any clause (an engine's crash, a bare assert) is
charged to every row the test names.

A row's status, from its checks on the engine: failed if any failed; else not exercised if a test of it
passed without calling the engine (never green); else skipped if any was skipped for a reason other than
not applicable (that part is not proven); else passed if every check ran on the engine and passed;
partly verified if some passed and some engine-facing check could not run (the engine lacks a
capability, declares a convention, a cross-check's peer is missing, or an earlier failure in the test
stopped it); not applicable if none ran (the reason is printed); unbound if no test names it
(deselected instead when a keyword selection left it without tests). A reference-only test exercises
this project's own types: on another engine it is not the engine's check, so it neither passes nor
holds back a row; the row's coverage (engine checks run / the row's checks) shows what it left out.

Every row has a level (values, refusals, contract: who must meet it) and a category. verify judges the
engine at a claimed level: the rows up to that level decide the exit code; the others are reported.
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
    CAUSED_BY,
    ERROR,
    FAILED,
    NOT_APPLICABLE,
    NOT_APPLICABLE_PREFIX,
    NOT_EXERCISED,
    PASSED,
    SKIPPED,
    SUB_EXCEPTIONS,
    Record,
    never_built,
)
from pytest_contracts import IMPL

# row statuses
PARTLY = "partly verified"  # passed, but some engine-facing check of it could not run on the engine
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
NOTHING = "nothing verified"  # a level none of whose rows ran on the engine
# a check of a row that its test never reached: the test stopped at another row's failed clause
NOT_RUN = "not run"
# who must meet a row, in order: every engine (values and gradients), an engine that validates its
# inputs (refusals), this project's own contract (messages, check order, strict bounds, graph counts)
LEVELS = ("values", "refusals", "contract")
CATEGORIES = ("value", "gradient", "cost", "refusal", "side-effects", "order", "precision", "identity")


def levels_up_to(level: str) -> tuple[str, ...]:
    """The levels an engine claiming `level` is judged on: it and every level below it."""
    return LEVELS[: LEVELS.index(level) + 1]


def row_status(outcomes: Sequence[str], deselection: bool = False, reference_only: bool = False) -> str:
    """The status of a row (or of one of its suites) from its engine checks' outcomes; reference_only:
    the row has tests, all of them the reference's own (n/a on this engine)."""
    if not outcomes:
        if reference_only:
            return NOT_APPLICABLE
        return DESELECTED if deselection else UNBOUND
    if FAILED in outcomes or ERROR in outcomes:
        return FAILED
    if NOT_EXERCISED in outcomes:
        return NOT_EXERCISED  # a test claims the row yet never ran the engine: the row is not proven
    if any(outcome not in (PASSED, NOT_APPLICABLE, NOT_RUN) for outcome in outcomes):
        return SKIPPED  # skipped for no declared reason (not n/a), or any outcome that proves nothing
    if PASSED in outcomes:
        return PASSED if all(outcome == PASSED for outcome in outcomes) else PARTLY
    return NOT_APPLICABLE  # nothing ran: n/a checks and checks an earlier failure stopped


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
            "clauses": record.clauses,
            "failed_clauses": record.failed_clauses,
        }


@dataclass(frozen=True)
class Check:
    """What one test checked of one row on the engine: its outcome and the category of the check."""

    outcome: str
    category: str
    cause: str | None = None  # why it failed (the failed clause's reason or the test's failure)


@dataclass
class RowResult:
    id: str
    title: str
    kind: str
    stage: str
    status: str
    reasons: list[str]  # why it is (partly) not applicable or skipped: one per distinct reason
    suites: dict[str, str]  # suite (properties, golden) -> status of that suite's tests
    tests: list[ReportedTest] = field(default_factory=list)
    level: str = "contract"
    category: str = "value"
    engine_checks: list[Check] = field(default_factory=list)  # the row's checks that are the engine's
    reference_checks: int = 0  # tests of the row that are the reference's own (n/a on this engine)

    def example_count(self) -> int:
        return sum(test.record.examples or 0 for test in self.tests)

    def duration(self) -> float:
        return sum(test.record.duration for test in self.tests)

    def failures(self) -> list[ReportedTest]:
        """The row's tests that failed for it: a failed clause of this row, or a failure outside clauses."""
        return [
            test for test in self.tests if test.record.outcome in (FAILED, ERROR) and charged(test, self.id)
        ]

    def causes(self) -> list[str]:
        """Each distinct cause of the row's failed checks, in the order the tests gave them."""
        return list(dict.fromkeys(c.cause for c in self.engine_checks if c.outcome == FAILED and c.cause))

    def coverage(self) -> tuple[int, int]:
        """(checks that ran on the engine, every check of the row): the reference's own count in the total."""
        ran = sum(check.outcome in (PASSED, FAILED) for check in self.engine_checks)
        return ran, len(self.engine_checks) + self.reference_checks

    def to_json(self) -> dict[str, Any]:
        ran, total = self.coverage()
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "stage": self.stage,
            "level": self.level,
            "category": self.category,
            "status": self.status,
            "reasons": self.reasons,
            "causes": self.causes(),
            "checks": self.suites,
            "coverage": {"engine": ran, "total": total},
            "examples": self.example_count(),
            "duration": round(self.duration(), 6),
            "tests": [test.to_json() for test in self.tests],
        }


def attributed(record: Record) -> list[list[str | None]]:
    """The failed clauses of rows the test names: a clause of a row it does not name cannot take the
    failure away from the rows it does (the failure then belongs to all of them)."""
    return [entry for entry in record.failed_clauses if entry[0] in record.spec_ids]


def named_clauses(record: Record) -> list[list[str | None]]:
    """The passed clauses that split the test among the rows it names: a named row's own clause (no
    category), as a test checking its rows one by one records it. A shared check's clause (a refusal,
    its side effects, a message: each with its category) sits inside whatever else the test proves and
    never takes the proof away from the test's other rows."""
    return [entry for entry in record.clauses if entry[0] in record.spec_ids and entry[1] is None]


def charged(test: ReportedTest, row_id: str) -> bool:
    """A failed test is charged to the row: it failed outside its rows' clauses or in this row's."""
    failed = attributed(test.record)
    return not failed or any(entry[0] == row_id for entry in failed)


def checks_of(record: Record, row_id: str, category: str) -> list[Check]:
    """What one test checked of one row (see the module's docstring)."""
    own = [entry for entry in record.clauses if entry[0] == row_id]
    passed = [Check(PASSED, entry[1] or category) for entry in dict.fromkeys(map(tuple, own))]
    if record.outcome == PASSED:
        # a test that checks its rows clause by clause proves only the rows it recorded a clause of
        # (clauses of rows it does not name, e.g. a refusal it provokes on the way, do not count)
        return passed or [Check(NOT_RUN if named_clauses(record) else PASSED, category)]
    if record.outcome not in (FAILED, ERROR):
        return [Check(record.outcome, category)]
    if record.outcome == ERROR or not attributed(record):
        return [*passed, Check(FAILED, category, signature(record.message))]
    failed = [
        Check(FAILED, entry[1] or category, signature(entry[2]))
        for entry in record.failed_clauses
        if entry[0] == row_id
    ]
    return [*passed, *failed] or [Check(NOT_RUN, category)]


def is_reference_part(record: Record, engine_is_reference: bool) -> bool:
    """A reference-only test on another engine: the reference's own check, not the engine's."""
    return not engine_is_reference and record.reference_only is not None and record.outcome == NOT_APPLICABLE


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


def stopped_reasons(tests: Iterable[ReportedTest], row_id: str) -> list[str]:
    """For each test whose check of this row did not run: it stopped at another row's failed clause, or
    it checked other rows clause by clause and never this one."""
    found: list[str] = []
    for test in tests:
        record = test.record
        failed, own = attributed(record), any(entry[0] == row_id for entry in record.clauses)
        # a failure charged to this row would have failed it: such a row has no reasons (row_reasons)
        if record.outcome == FAILED and failed and not own:
            ids = ", ".join(dict.fromkeys(str(entry[0]) for entry in failed))
            found.append(f"not run: {record.nodeid} stopped at the failure of {ids}")
        elif record.outcome == PASSED and named_clauses(record) and not own:
            found.append(f"not run: {record.nodeid} checked no clause of this row on this engine")
    return found


def row_reasons(
    status: str, tests: Sequence[ReportedTest], row_id: str, engine_is_reference: bool
) -> list[str]:
    """What a row left unverified on the engine: the reasons of its checks that could not run (skip
    reasons, a stopped test) for an n/a, skipped or partly verified row; nothing otherwise. The
    reference's own tests are named only when they are all the row has."""
    if status not in (NOT_APPLICABLE, SKIPPED, PARTLY):
        return []
    engines = [t for t in tests if not is_reference_part(t.record, engine_is_reference)]
    skipped = [t for t in engines if t.record.outcome in (NOT_APPLICABLE, SKIPPED)]
    reasons = skip_reasons(skipped) + stopped_reasons(engines, row_id)
    return reasons or skip_reasons(tests)


def aggregate(
    rows: Iterable[Mapping[str, Any]],
    records: Iterable[Record],
    rerun: Rerun,
    deselection: bool = False,
    engine_is_reference: bool = True,
) -> list[RowResult]:
    """One RowResult per spec row, in spec order. rows need id, title, kind, stage, level and category."""
    by_id: dict[str, list[ReportedTest]] = {}
    for record in records:
        result = reported_test(record, rerun)
        for spec_id in record.spec_ids:
            by_id.setdefault(spec_id, []).append(result)
    results = []
    for row in rows:
        row_id, category = str(row["id"]), str(row["category"])
        tests = by_id.get(row_id, [])
        engines = [t for t in tests if not is_reference_part(t.record, engine_is_reference)]
        checks = [check for t in engines for check in checks_of(t.record, row_id, category)]
        outcomes = [check.outcome for check in checks]
        status = row_status(outcomes, deselection, reference_only=bool(tests) and not engines)
        suites = {
            suite: row_status(
                [
                    c.outcome
                    for t in engines
                    if t.suite == suite
                    for c in checks_of(t.record, row_id, category)
                ],
                deselection,
                reference_only=any(t.suite == suite for t in tests),
            )
            for suite in SUITES
        }
        results.append(
            RowResult(
                row_id,
                str(row["title"]),
                str(row["kind"]),
                str(row["stage"]),
                status,
                row_reasons(status, tests, row_id, engine_is_reference),
                suites,
                tests,
                level=str(row["level"]),
                category=category,
                engine_checks=checks,
                reference_checks=len(tests) - len(engines),
            )
        )
    return results


ASSERTION_STARTS = ("assert ", "AssertionError")


def test_function(nodeid: str) -> str:
    """The test function of a node id, without its parameters (tests/x.py::t[a] -> tests/x.py::t)."""
    return nodeid.partition("[")[0]


NO_MESSAGE = "(no message)"


def signature(message: str | None) -> str:
    """A failure's first line: the exception type and message, or the failing assertion."""
    lines = (message or "").strip().splitlines()
    return lines[0] if lines else NO_MESSAGE


@dataclass
class Cause:
    """One root cause shared by several rows: the same exception raised anywhere (one engine bug seen by
    several tests), or the same assertion failing in the same test function. Where it was first seen:
    the wrapper it was raised as (when the failure's own line is another exception's), the call (the
    falsifying example's first line) and the command that reruns that test."""

    signature: str
    test: str | None  # the test function, for an assertion; None for an exception seen across tests
    rows: list[str] = field(default_factory=list)
    tests: list[str] = field(default_factory=list)
    raised_as: str | None = field(default=None, compare=False)
    call: str | None = field(default=None, compare=False)
    repro: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "test": self.test,
            "rows": self.rows,
            "tests": self.tests,
            "raised_as": self.raised_as,
            "call": self.call,
            "repro": self.repro,
        }


# A number that varies between sightings of one exception (a recursion limit, a chain depth, a size
# hypothesis drew, a line number, an object's address): a standalone decimal or hex literal. A digit inside
# a name (S03, float64, x2) or a qualifier (1-D) is no such number: those tell causes apart.
VARYING_NUMBER = re.compile(
    r"(?<![\w.])(?:0x[0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?![\w]|\.\d|-[A-Za-z])"
)
# an object's address: it differs between sightings of one assertion, whose other numbers are its point
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
BLANK = "#"  # what a varying number or an address becomes in a cause's key
# pytest's first line for an exception group holding one exception (hypothesis's FlakyFailure)
SINGLE_IN_GROUP = re.compile(r"^([A-Za-z_][\w.]*)\((.*)\) \[single exception in [\w.]+\]$")
# where one sub-exception of a record's list ends: before the next exception's type
NEXT_SUB_EXCEPTION = re.compile(r"; (?=[A-Za-z_][\w.]*(?:Error|Exception|Failure)\b)")


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


def root_causes(message: str | None) -> list[str]:
    """What a failure comes down to: each distinct member of an exception group (a group bundles
    failures that need not be related), else the exception its chain starts from (the engine's own
    error beneath whatever wrapped it), else its first line."""
    lines = (message or "").strip().splitlines()
    if not lines:
        return [NO_MESSAGE]
    members = [line.removeprefix(SUB_EXCEPTIONS) for line in lines if line.startswith(SUB_EXCEPTIONS)]
    if members:
        return list(dict.fromkeys(NEXT_SUB_EXCEPTION.split(members[0])))
    chain = [line.removeprefix(CAUSED_BY) for line in lines if line.startswith(CAUSED_BY)]
    return [chain[-1] if chain else lines[0]]


def cause_key(test: ReportedTest, root: str) -> tuple[str, str | None]:
    """An assertion is keyed by its text (addresses blanked) and test function; an exception by its
    type and text with varying numbers blanked (one engine bug raises it with another limit or size in
    each test)."""
    if root.startswith(ASSERTION_STARTS):
        return ADDRESS.sub(BLANK, root), test_function(test.record.nodeid)
    return VARYING_NUMBER.sub(BLANK, unwrap_single(root)), None


def causes(results: Sequence[RowResult]) -> list[Cause]:
    """The failing rows grouped by root cause, in the order the causes first appear; a cause shows
    the text, the wrapper, the call and the repro it was first seen with."""
    grouped: dict[tuple[str, str | None], Cause] = {}
    for result in results:
        for test in result.failures():
            first = signature(test.record.message)
            for root in root_causes(test.record.message):
                key = cause_key(test, root)
                if key not in grouped:
                    call = signature(test.record.falsifying) if test.record.falsifying else None
                    wrapper = first if first != root else None
                    grouped[key] = Cause(root, key[1], raised_as=wrapper, call=call, repro=test.repro)
                cause = grouped[key]
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


CHECK_OUTCOMES = (PASSED, FAILED, NOT_RUN, NOT_APPLICABLE, SKIPPED, NOT_EXERCISED)


def checks_by_category(results: Sequence[RowResult]) -> dict[str, dict[str, dict[str, int]]]:
    """level -> category -> outcome -> how many of the engine's checks of the level's rows had it."""
    table: dict[str, dict[str, dict[str, int]]] = {}
    for result in results:
        by_category = table.setdefault(result.level, {})
        for check in result.engine_checks:
            counts = by_category.setdefault(check.category, dict.fromkeys(CHECK_OUTCOMES, 0))
            counts[check.outcome if check.outcome in counts else FAILED] += 1
    return {
        level: dict(sorted(table[level].items(), key=lambda i: CATEGORIES.index(i[0])))
        for level in LEVELS
        if level in table
    }


def level_verdict(results: Sequence[RowResult], level: str) -> str:
    """passed, failed (some row of the level is not accepted) or nothing verified, for one level alone."""
    return verdict_of([result.status for result in results if result.level == level])


def verdict_of(statuses: Sequence[str]) -> str:
    """The verdict of a level whose rows have these statuses (see level_verdict)."""
    if any(status not in ACCEPTED for status in statuses):
        return FAILED
    return PASSED if any(status in VERIFIED for status in statuses) else NOTHING


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
    level: str = LEVELS[-1]  # the level the engine is judged at: its rows and those below decide

    def claimed(self) -> list[RowResult]:
        """The rows of the claimed level and the levels below it."""
        judged = levels_up_to(self.level)
        return [row for row in self.rows if row.level in judged]

    def problems(self) -> list[str]:
        """Why the run is not clean at the claimed level, one line each (empty: every claimed row passed)."""
        lines = [f"{row.id}: {row.status}" for row in self.claimed() if row.status not in ACCEPTED]
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
        """Some claimed row passed or failed: some test ran against the engine (green proves something)."""
        return any(row.status in VERIFIED for row in self.claimed())

    def levels(self) -> dict[str, Any]:
        """Per level: its own verdict (its rows alone), its rows by status and its checks by category."""
        checks = checks_by_category(self.rows)
        found: dict[str, Any] = {}
        for level in LEVELS:
            rows = [row for row in self.rows if row.level == level]
            if rows:
                found[level] = {
                    "verdict": level_verdict(rows, level),
                    "claimed": level in levels_up_to(self.level),
                    "rows": summarize(rows)["by_status"],
                    "checks": checks.get(level, {}),
                }
        return found

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
            "level": self.level,
            "levels": self.levels(),
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

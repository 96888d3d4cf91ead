"""The pytest plugin of `contracts verify` (loaded with `-p contracts.verify.plugin`).

Where tests run (the main process, or each pytest-xdist worker) it stores a test's spec ids and
hypothesis example count in the report's user properties, which travel with the report to the
xdist controller. Where results arrive (pytest_runtest_logreport runs on the controller for every
report) it accumulates one Record per test and, at the end, writes them as JSON to
--contracts-verify-out. It also prints progress to stderr: a line whenever a test file finishes.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import is_hypothesis_test, settings

from contracts.verify.clauses import CLAUSES_PROPERTY, FAILED_CLAUSES_PROPERTY, failed_clauses
from contracts.verify.records import (
    ENGINE_CALLS_PROPERTY,
    ERROR,
    EXAMPLES_PROPERTY,
    FAILED,
    NOT_APPLICABLE,
    PASSED,
    REFERENCE_ONLY_MARKER,
    REFERENCE_ONLY_PROPERTY,
    SKIPPED,
    SPEC_PROPERTY,
    Record,
    builds_of,
    count_examples,
    crash_message,
    examples_of,
    exercised,
    falsifying_example,
    int_property,
    listed_property,
    phase_outcome,
    reference_only_of,
    reproduce_decorator,
    skip_reason,
    spec_ids_of,
    worse,
)

MESSAGE_LIMIT = 2000


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contracts-verify")
    group.addoption("--contracts-verify-out", help="write per-test results (JSON) here")
    group.addoption(
        "--contracts-rows",
        action="append",
        default=[],
        help="run only tests naming a spec id with this prefix (repeatable)",
    )
    group.addoption("--contracts-progress", action="store_true", help="print a line per finished file")


def marked_ids(item: pytest.Item) -> list[str]:
    return sorted({str(spec_id) for mark in item.iter_markers("spec") for spec_id in mark.args})


def reference_only_reason(item: pytest.Item) -> str | None:
    """The reason of the test's reference_only marker (None when it has none)."""
    marker = item.get_closest_marker(REFERENCE_ONLY_MARKER)
    return None if marker is None else " ".join(str(arg) for arg in marker.args)


def selected(spec_ids: Sequence[str], prefixes: Sequence[str]) -> bool:
    starts = tuple(prefixes)  # one startswith over all of them: linear in the ids, however many prefixes
    return any(spec_id.startswith(starts) for spec_id in spec_ids)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Attach each test's spec ids to it; with --contracts-rows, deselect tests naming no chosen row."""
    prefixes: list[str] = config.getoption("--contracts-rows") or []
    keep: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        ids = marked_ids(item)
        item.user_properties.append((SPEC_PROPERTY, tuple(ids)))
        item.user_properties.append((REFERENCE_ONLY_PROPERTY, reference_only_reason(item)))
        (keep if not prefixes or selected(ids, prefixes) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    return note_examples(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failure raised as a clause failure (or a group of them) names the rows whose clauses failed:
    stored in the report's user properties, which reach the recorder (under xdist, too)."""
    report = yield
    return with_failed_clauses(report, call)


def with_failed_clauses(report: pytest.TestReport, call: pytest.CallInfo[None]) -> pytest.TestReport:
    failed = failed_clauses(call.excinfo.value if call.excinfo is not None else None)
    if failed:
        report.user_properties.append((FAILED_CLAUSES_PROPERTY, [list(entry) for entry in failed]))
    return report


def note_examples(item: pytest.Item) -> None:
    """Store how many examples the test ran (hypothesis's count, 1 for a plain test) in its user
    properties, which the teardown report (made after this) carries to wherever results are recorded."""
    statistics = getattr(item, "hypothesis_statistics", None)
    if statistics:
        examples = count_examples(statistics)
    else:
        examples = None if is_hypothesis_test(getattr(item, "obj", None)) else 1
    item.user_properties.append((EXAMPLES_PROPERTY, examples))


def file_of(nodeid: str) -> str:
    """The test file of a node id (tests/x.py::Class::test[param] -> tests/x.py)."""
    return nodeid.partition("::")[0]


RECORDER = "contracts-verify-recorder"  # the Recorder's plugin name (the suite's time limit finds it)
HUNG_STATUS = int(pytest.ExitCode.TESTS_FAILED)  # the results' exit status when a hung test ends the run


class Recorder:
    """Accumulates Records from reports; lives where the reports arrive."""

    def __init__(self, out: Path | None, progress: bool, impl: object = None) -> None:
        self.out = out
        self.progress = progress
        self.impl = impl  # the engine the session runs (the suite's --contracts-impl as parsed)
        self.records: dict[str, Record] = {}
        self.collection_errors: list[dict[str, str]] = []
        self.expected: dict[str, int] = {}  # file -> number of tests, once known
        self.finished: dict[str, int] = {}
        self.total: int  # set by expect(), before any progress line can need it
        self.collected: list[str] = []  # every test the session is to run, once known
        self.marked: dict[str, list[str]] = {}  # their spec ids, where collection ran here (not xdist)
        self.ended: set[str] = set()  # the tests whose teardown reported
        self.done = 0
        self.started = time.monotonic()

    # -- collection: how many tests each file has (for the progress lines)

    def expect(self, nodeids: Sequence[str]) -> None:
        if self.expected:
            return  # every xdist worker collects the same tests
        for nodeid in nodeids:
            path = file_of(nodeid)
            self.expected[path] = self.expected.get(path, 0) + 1
        self.total = len(nodeids)
        self.collected = list(nodeids)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: Sequence[str]) -> None:
        return self.expect(ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:
            self.expect([item.nodeid for item in session.items])
            self.marked = {item.nodeid: marked_ids(item) for item in session.items}

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            text = str(report.longreprtext)
            self.collection_errors.append({"nodeid": report.nodeid, "message": text[-MESSAGE_LIMIT:]})
            if self.progress:
                self.say(f"collection error in {report.nodeid}")

    # -- results

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = self.records.get(report.nodeid)
        if record is None:
            record = self.records[report.nodeid] = Record(report.nodeid)
        if not record.spec_ids:
            record.spec_ids = spec_ids_of(report.user_properties)
            record.reference_only = reference_only_of(report.user_properties)
        calls = int_property(report.user_properties, ENGINE_CALLS_PROPERTY)
        if calls is not None:
            record.engine_calls = calls
        builds = builds_of(report.user_properties)
        if builds is not None:
            record.built, record.declined = builds
        record.failed_clauses += listed_property(report.user_properties, FAILED_CLAUSES_PROPERTY)
        if report.when == "teardown":
            record.clauses = listed_property(report.user_properties, CLAUSES_PROPERTY)
        record.duration += float(report.duration)
        reason = skip_reason(report.longrepr) if report.skipped else None
        outcome = phase_outcome(report.when, report.outcome, reason)
        if worse(record.outcome, outcome) != record.outcome:
            record.outcome, record.reason = outcome, reason
        examples = examples_of(report.user_properties)
        if examples is not None and record.outcome not in (NOT_APPLICABLE, SKIPPED):
            record.examples = examples
        if report.failed:
            text = str(report.longreprtext)
            record.message = crash_message(report.longrepr, text)[:MESSAGE_LIMIT]
            record.falsifying = falsifying_example(text)
            record.reproduce = reproduce_decorator(text)
        if report.when == "teardown":
            record.outcome = exercised(record)
            self.finish(report.nodeid)

    def finish(self, nodeid: str) -> None:
        self.ended.add(nodeid)
        self.done += 1
        path = file_of(nodeid)
        self.finished[path] = self.finished.get(path, 0) + 1
        if self.progress and self.finished[path] == self.expected.get(path):
            self.say(f"[{self.done:>4}/{self.total}] {path}: {self.file_summary(path)}")

    def file_summary(self, path: str) -> str:
        outcomes = [r.outcome for r in self.records.values() if file_of(r.nodeid) == path]
        counts = {name: outcomes.count(name) for name in (PASSED, FAILED, NOT_APPLICABLE)}
        other = len(outcomes) - sum(counts.values())
        text = f"{counts[PASSED]} passed, {counts[FAILED]} failed, {counts[NOT_APPLICABLE]} n/a"
        return text + (f", {other} other" if other else "")

    def say(self, line: str) -> None:
        elapsed = time.monotonic() - self.started
        print(f"verify {elapsed:6.1f}s {line}", file=sys.stderr)  # stderr is line-buffered

    def unreported(self, nodeid: str) -> Record:
        """The test's record, made from its collected spec ids if no report of it arrived."""
        return self.records.setdefault(nodeid, Record(nodeid, list(self.marked.get(nodeid, ()))))

    def note_unfinished(self, exitstatus: int) -> None:
        """A collected test that never reached its teardown (the session ended first: pytest.exit, an
        interrupt) is an error: its row must not read passed on the tests that did run. Under xdist the
        controller knows no spec ids of a test that never reported: it counts as a test of no row."""
        for nodeid in self.collected:
            if nodeid in self.ended:
                continue
            record = self.unreported(nodeid)
            if record.outcome not in (FAILED, ERROR):
                record.outcome, record.reason = ERROR, None
                record.message = (
                    f"not run to its end: the session ended first (pytest exit status {exitstatus})"
                )

    def abandon(self, nodeid: str, message: str) -> None:
        """The test nodeid hangs past its time limit and the process ends next (the suite's backstop):
        record it failed with message, every test not ended an error, and write the results now."""
        record = self.unreported(nodeid)
        record.outcome, record.reason, record.message = FAILED, None, message  # a failure stays one
        self.write(HUNG_STATUS)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.write(int(exitstatus))

    def write(self, exitstatus: int) -> None:
        if self.out is None:
            return
        self.note_unfinished(exitstatus)
        document = {
            "exitstatus": exitstatus,
            # the engine the session ran (--contracts-impl as parsed): verify compares it with its own
            "impl": self.impl,
            # the hypothesis profile in effect at the end (an adapter may have loaded another) and what
            # it sets: verify compares both with the profile it asked for
            "profile": settings.get_current_profile_name(),
            "settings": effective(settings()),
            "tests": [record.to_json() for record in self.records.values()],
            "collection_errors": self.collection_errors,
        }
        self.out.write_text(json.dumps(document))  # ASCII: json escapes the rest


def effective(chosen: settings) -> dict[str, Any]:
    """What of a hypothesis settings object decides how much a run checks."""
    phases = sorted(phase.name for phase in chosen.phases)
    return {"max_examples": chosen.max_examples, "derandomize": chosen.derandomize, "phases": phases}


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # an xdist worker: its reports go to the controller, which records them
    out = config.getoption("--contracts-verify-out")
    progress = bool(config.getoption("--contracts-progress"))
    recorder = Recorder(Path(out) if out else None, progress, config.getoption("--contracts-impl"))
    config.pluginmanager.register(recorder, RECORDER)

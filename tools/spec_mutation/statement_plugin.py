"""The pytest plugin that runs statement mutants in one session (`-p ...spec_mutation.statement_plugin`).

Collection happens once. A first pass runs every test once with a profiler that notes which of the
mutated functions each test calls (the coverage map). Then, per mutant, a forked child compiles the
mutated module from its temporary copy, gives the live function the mutated code, and runs the
tests that call the function until one fails; the parent reads the child's exit code. The source
tree is never edited, and each mutant lives only in its own child process.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from tools.spec_mutation.plugin import files_of
from tools.spec_mutation.status import KILLED, NO_TESTS, NOT_RUN, SURVIVED, TIMEOUT

FLOOR_SECONDS = 10.0  # a child slower than this plus 10x its tests' profiled time is a timeout (killed)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contracts-statement-mutation")
    group.addoption("--statement-mutation-plan", help="run the statement mutants of this plan (JSON)")
    group.addoption("--statement-mutation-out", help="write the verdicts (JSON) here (required with a plan)")


def resolve(module: str, qualname: str) -> Callable[..., Any]:
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    if isinstance(target, property):
        target = target.fget
    target = getattr(target, "__func__", target)  # a classmethod
    return getattr(target, "__wrapped__", target)  # type: ignore[no-any-return]  # functools.cache


def mutated_code(source: str, path: str, qualname: str) -> types.CodeType:
    """The code object of qualname compiled from the mutated module text."""
    pending = [compile(source, path, "exec")]
    while pending:
        code = pending.pop()
        if code.co_qualname == qualname:
            return code
        pending.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    raise LookupError(f"{qualname} not found in the mutated {path}")


def coverage(
    items: Sequence[pytest.Item], targets: dict[types.CodeType, str]
) -> tuple[dict[str, list[int]], list[float], list[str]]:
    """qualified function name -> indexes of the items that call it (profiling one run of each),
    each item's time, and the items that fail on the unmutated code."""
    calls: dict[str, list[int]] = {}
    seconds: list[float] = []
    failed: list[str] = []
    for index, item in enumerate(items):
        started = time.monotonic()
        hit: set[str] = set()

        # A profile function runs with tracing off, so coverage cannot see its body (the verdicts'
        # test counts in tests/tools/test_spec_mutation.py prove it).
        # Any event of a target's frame (its call, return, or a call it makes) means it ran.
        def profile(frame: types.FrameType, event: str, _: object, seen: set[str] = hit) -> None:
            if frame.f_code in targets:  # pragma: no cover
                seen.add(targets[frame.f_code])  # pragma: no cover

        sys.setprofile(profile)
        try:
            reports = run_item(item)
        finally:
            sys.setprofile(None)
        seconds.append(time.monotonic() - started)
        if any(report.failed for report in reports):
            failed.append(item.nodeid)
        for name in hit:
            calls.setdefault(name, []).append(index)
    return calls, seconds, failed


def run_item(item: pytest.Item) -> list[pytest.TestReport]:
    """Run one test (setup, call, teardown) without logging; its reports."""
    return runtestprotocol(item, log=False)  # not logged: the session's own report stays the plan's


def child_exit_code(
    function: Any,
    code: types.CodeType,
    tests: Sequence[pytest.Item],
    run: Callable[[pytest.Item], Sequence[pytest.TestReport]] = run_item,
) -> int:
    """What the forked child exits with: the mutant installed, 1 at the first failing test (or when
    the mutant breaks the harness itself: it is detected), else 0."""
    try:
        function.__code__ = code
        for item in tests:
            if any(report.failed for report in run(item)):
                return 1
    except BaseException:
        return 1
    return 0


def fastest_first(indexes: Sequence[int], seconds: Sequence[float]) -> list[int]:
    """The tests calling a function, fastest first (collection order among equals): a mutant stops at
    its first failing test, so a killed one seldom waits for the slow tests."""
    return sorted(indexes, key=lambda index: seconds[index])


def run_mutant(
    function: Callable[..., Any], code: types.CodeType, tests: Sequence[pytest.Item], limit: float
) -> str:
    child = os.fork()
    if child == 0:  # pragma: no cover (the child exits without saving coverage data)
        os.setpgid(0, 0)  # its own process group: a timeout kills what its tests started too
        os._exit(child_exit_code(function, code, tests))  # child_exit_code is tested in-process
    with contextlib.suppress(OSError):  # set from both sides, so it holds before either runs on
        os.setpgid(child, child)
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        done, status = os.waitpid(child, os.WNOHANG)
        if done:
            return KILLED if os.waitstatus_to_exitcode(status) != 0 else SURVIVED
        time.sleep(0.01)
    os.killpg(child, signal.SIGKILL)  # the child and every process its tests started (a verify run)
    os.waitpid(child, 0)
    return TIMEOUT


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    return run_plan(session)  # mutmut skips decorated functions: the logic lives in a plain one


def run_plan(session: pytest.Session) -> bool | None:
    """Run the plan's mutants instead of the session's tests, when a plan is given; else pytest runs."""
    plan_file = session.config.getoption("--statement-mutation-plan")
    if not plan_file:
        return None
    plan: list[dict[str, Any]] = json.loads(Path(plan_file).read_bytes())
    functions = {f"{m['module']}:{m['qualname']}": resolve(m["module"], m["qualname"]) for m in plan}
    targets = {function.__code__: name for name, function in functions.items()}
    items = list(session.items)
    started = time.monotonic()
    calls, seconds, failed = coverage(items, targets)
    baseline = time.monotonic() - started
    out = Path(session.config.getoption("--statement-mutation-out"))
    if failed:  # a test failing anyway would "kill" every mutant it runs for: no verdict is judged
        named = ", ".join(failed[:5])
        error = f"{len(failed)} tests fail on the unmutated code, so no mutant can be judged: {named}"
        out.write_text(json.dumps({"error": error}))
        return True
    verdicts: list[dict[str, Any]] = []
    for mutant in plan:
        name = f"{mutant['module']}:{mutant['qualname']}"
        indexes = calls.get(name, [])
        tests = [items[i] for i in fastest_first(indexes, seconds)]
        verdict: dict[str, Any] = {
            "id": mutant["id"],
            "status": NO_TESTS,
            "tests": len(tests),
            "seconds": 0.0,
        }
        verdicts.append(verdict)
        if not tests:
            continue
        began = time.monotonic()
        code = mutated_code(mutant["source"], mutant["path"], mutant["qualname"])
        if code.co_freevars != functions[name].__code__.co_freevars:
            verdict.update(status=NOT_RUN, error="the mutant changes the function's closure")
            continue
        limit = FLOOR_SECONDS + 10 * sum(seconds[i] for i in indexes)
        verdict["status"] = run_mutant(functions[name], code, tests, limit)
        verdict["seconds"] = round(time.monotonic() - began, 3)
    covering = {
        name.replace(":", "."): files_of(items[index] for index in indexes) for name, indexes in calls.items()
    }
    document = {"coverage_seconds": round(baseline, 1), "mutants": verdicts, "covering": covering}
    out.write_text(json.dumps(document))
    return True

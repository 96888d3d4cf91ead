"""The pytest plugin that runs spec mutants in one session (loaded with `-p tools.spec_mutation.plugin`).

Collection happens once. Then, row by row: the tests bound to the row (its `spec` marker) run on
the unchanged spec (the baseline), then once per mutant, stopping at the first failure. A mutant
is applied by writing the mutated spec file into the spec directory the suite reads
(CONTRACTS_SPECS, a temporary copy), loading it with the project's loader, and pointing the
already-loaded row objects at the mutated data: test parameters hold those very objects, so every
test sees the mutant without a new collection (the data changes in place: parameters also
hold a row's examples). The file and the rows are restored after each mutant.
"""

from __future__ import annotations

import copy
import importlib
import json
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from contracts.spec import SpecError, SpecRow, load_spec_file, spec_dir
from contracts.spec.loader import schema
from tools.spec_mutation import tomlwriter
from tools.spec_mutation.status import KILLED, NOT_RUN, REFUSED, SATISFIED, SURVIVED


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("contracts-spec-mutation")
    group.addoption(
        "--spec-mutation-plan", help="run the spec mutants of this plan (JSON) instead of the tests"
    )
    group.addoption("--spec-mutation-out", help="write the verdicts (JSON) here (required with a plan)")
    group.addoption(
        "--spec-mutation-rows",
        default="contracts.spec_suite.spec_rows:all_rows",
        help="module:function returning the suite's loaded spec rows "
        "(default: contracts.spec_suite.spec_rows:all_rows)",
    )


def marked_ids(item: pytest.Item) -> set[str]:
    return {str(spec_id) for mark in item.iter_markers("spec") for spec_id in mark.args}


def bound_items(items: Iterable[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """row id -> its tests, goldens first (one example each: they fail fastest)."""
    found: dict[str, list[pytest.Item]] = {}
    for item in items:
        for row_id in marked_ids(item):
            found.setdefault(row_id, []).append(item)
    for tests in found.values():
        tests.sort(key=lambda item: "golden" not in item.nodeid)
    return found


def files_of(items: Iterable[pytest.Item]) -> list[str]:
    """The files holding the items, relative to the working directory where they lie under it (posix)."""
    here = Path.cwd()
    paths = {Path(item.path) for item in items}
    return sorted(
        path.relative_to(here).as_posix() if path.is_relative_to(here) else str(path) for path in paths
    )


def first_failure(tests: Sequence[pytest.Item]) -> str | None:
    """The node id of the first test that fails, or None when all pass (or skip)."""
    for item in tests:
        reports = runtestprotocol(item, log=False, nextitem=None)
        if any(report.failed for report in reports):
            return item.nodeid
    return None


def provider(spec: str) -> Callable[[], Iterable[SpecRow]]:
    module, _, name = spec.partition(":")
    found: Callable[[], Iterable[SpecRow]] = getattr(importlib.import_module(module), name)
    return found


def graft(target: Any, source: Any) -> Any:
    """target changed in place to equal source, keeping every dict and list object it already has
    (collected test parameters hold a row's examples); returns what should stand in target's place."""
    if isinstance(target, dict) and isinstance(source, Mapping):
        for name in [name for name in target if name not in source]:
            del target[name]
        for name, item in source.items():
            target[name] = graft(target[name], item) if name in target else copy.deepcopy(item)
        return target
    if isinstance(target, list) and isinstance(source, list) and len(target) == len(source):
        for position, item in enumerate(source):
            target[position] = graft(target[position], item)
        return target
    return copy.deepcopy(source)


class Swap:
    """Applies one mutant to the spec directory and the loaded rows, and takes it back."""

    def __init__(self, directory: Path, live: dict[str, SpecRow]) -> None:
        self.directory = directory
        self.live = live
        self.schema = schema(directory)

    def apply(self, document: dict[str, Any], file: str, mutated: dict[str, Any]) -> SpecRow:
        """Write the file with the row replaced and load it: the loaded row, or SpecError."""
        rows = [mutated if row["id"] == mutated["id"] else row for row in document["rows"]]
        path = self.directory / file
        path.write_text(tomlwriter.dumps({**document, "rows": rows}))
        (loaded,) = [row for row in load_spec_file(path, self.schema) if row.id == mutated["id"]]
        return loaded

    def point(self, row_id: str, source: Mapping[str, Any]) -> None:
        """Make the loaded row read as source, in place: parameters hold the row and its examples."""
        graft(self.live[row_id]._data, source)  # the one place that reaches into a SpecRow


def survivor(operator: str) -> str:
    """A surviving probe extension is one the implementation satisfies: the operator asks for
    probes it does not satisfy, so this is no mutant (the row could claim that probe too)."""
    return SATISFIED if operator == "extend" else SURVIVED


def run_row(
    swap: Swap, document: dict[str, Any], plan_row: dict[str, Any], tests: Sequence[pytest.Item]
) -> list[dict[str, Any]]:
    """Verdicts for one row's mutants: baseline first; a row whose tests fail unmutated runs none."""
    row_id = plan_row["row_id"]
    path = swap.directory / plan_row["file"]
    original_text = path.read_bytes()
    kept = copy.deepcopy(dict(swap.live[row_id]))
    baseline = first_failure(tests)
    verdicts: list[dict[str, Any]] = []
    for mutant in plan_row["mutants"]:
        verdict = {"id": mutant["id"], "status": NOT_RUN, "killed_by": baseline, "seconds": 0.0}
        verdicts.append(verdict)
        if baseline is not None or not tests:
            continue
        started = time.monotonic()
        try:
            swap.point(row_id, swap.apply(document, plan_row["file"], mutant["row"]))
            killer = first_failure(tests)
            verdict.update(status=KILLED if killer else survivor(mutant["operator"]), killed_by=killer)
        except SpecError as error:
            verdict.update(status=REFUSED, killed_by=str(error))
        finally:
            path.write_bytes(original_text)
            swap.point(row_id, kept)
        verdict["seconds"] = round(time.monotonic() - started, 4)
    return verdicts


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    return run_plan(session)  # mutmut skips decorated functions: the logic lives in a plain one


def run_plan(session: pytest.Session) -> bool | None:
    """Run the plan's mutants instead of the session's tests, when a plan is given; else pytest runs."""
    plan_file = session.config.getoption("--spec-mutation-plan")
    if not plan_file:
        return None
    plan = json.loads(Path(plan_file).read_bytes())
    live = {row.id: row for row in provider(session.config.getoption("--spec-mutation-rows"))()}
    swap = Swap(spec_dir(), live)
    tests = bound_items(session.items)
    rows: list[dict[str, Any]] = []
    for plan_row in plan["rows"]:
        bound = tests.get(plan_row["row_id"], [])
        started = time.monotonic()
        verdicts = run_row(swap, plan["documents"][plan_row["file"]], plan_row, bound)
        killed = sum(verdict["status"] == KILLED for verdict in verdicts)
        print(f"spec-mutation {plan_row['row_id']}: {killed}/{len(verdicts)} killed", file=sys.stderr)
        rows.append(
            {
                "row_id": plan_row["row_id"],
                "tests": len(bound),
                "files": files_of(bound),
                "seconds": round(time.monotonic() - started, 3),
                "mutants": verdicts,
            }
        )
    Path(session.config.getoption("--spec-mutation-out")).write_text(json.dumps({"rows": rows}))
    return True

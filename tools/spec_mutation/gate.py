"""The spec-mutation gate, in the style of tools.mutation.gate.

score = killed / (total - listed equivalents). Every surviving mutant must be killed by a test or
listed, with the reviewed reason it cannot be, in tools/spec_mutation/equivalents.toml; a listed mutant
that no longer exists fails, and one that tests now kill is reported so the list shrinks. A row with
no mutant fails unless listed (as a [[row]]) with the reason; so does a mutant that did not run.
A survivor that is not equivalent but waits for a test may be listed as [[pending]] with why: it
passes the gate in plain view (printed, counted as survived in the score, which must still reach the
threshold) and fails the gate once it no longer exists.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tools.spec_mutation import sample
from tools.spec_mutation.status import KILLED, NO_TESTS, SATISFIED, SURVIVED, TIMEOUT

DETECTED = (KILLED, TIMEOUT)  # a timeout is detected, as mutmut counts it
UNDETECTED = (SURVIVED, NO_TESTS)  # must be killed or listed

EQUIVALENTS = Path("tools/spec_mutation/equivalents.toml")
THRESHOLD = 0.95  # the goal is 1.0: every non-equivalent mutant killed, nothing pending
STATEMENT_PREFIX = "contracts."  # statement mutant ids start with a module; spec mutant ids with a row id


@dataclass(frozen=True)
class Listed:
    """The reviewed file: equivalent mutants and rows without mutants, each id with its reason."""

    mutants: Mapping[str, str]
    rows: Mapping[str, str]
    pending: Mapping[str, str] = dataclasses.field(default_factory=dict)


def reasons(entries: Sequence[Mapping[str, Any]], path: Path, what: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in entries:
        reason = str(entry.get("reason", "")).strip()
        if not reason:
            raise ValueError(f"{path}: {what} {entry.get('id')!r} is listed without a reason")
        found[str(entry["id"])] = reason
    return found


def load_listed(path: Path) -> Listed:
    if not path.exists():
        return Listed({}, {})
    with path.open("rb") as file:
        document = tomllib.load(file)
    return Listed(
        reasons(document.get("mutant", []), path, "mutant"),
        reasons(document.get("row", []), path, "row"),
        reasons(document.get("pending", []), path, "pending"),
    )


def verdicts(results: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every mutant of the results document (spec rows' and statements'), each with its status."""
    for row in results.get("spec", {}).get("rows", []):
        yield from row["mutants"]
    yield from results.get("statements", {}).get("mutants", [])


def counts(results: Mapping[str, Any], listed: Listed) -> dict[str, int]:
    """killed (timeouts included), survived (and untested), equivalent (those listed), other, total;
    and satisfied probe extensions, which are no mutants and count nowhere else."""
    found = {"killed": 0, "survived": 0, "equivalent": 0, "other": 0, "total": 0, "satisfied": 0}
    for mutant in verdicts(results):
        status = mutant["status"]
        if status == SATISFIED:
            found["satisfied"] += 1
            continue
        found["total"] += 1
        if status in UNDETECTED and mutant["id"] in listed.mutants:
            found["equivalent"] += 1
        elif status in DETECTED:
            found["killed"] += 1
        elif status in UNDETECTED:
            found["survived"] += 1
        else:
            found["other"] += 1
    return found


def score(found: Mapping[str, int]) -> float:
    """killed / (total - equivalent); 1.0 when every mutant is a listed equivalent."""
    counted = found["total"] - found["equivalent"]
    return found["killed"] / counted if counted > 0 else 1.0


def was_run(name: str, results: Mapping[str, Any]) -> bool:
    """Whether the results cover the listed mutant's row or function: a run may choose rows by
    prefix, and a sampled run takes only its drawn rows and functions."""
    statement = name.startswith(STATEMENT_PREFIX)
    if not sample.taken(sample.key(name, statement), results.get("sample")):
        return False
    if statement:
        return "statements" in results
    chosen: list[str] | None = results.get("spec", {}).get("selection")  # row-id prefixes
    return "spec" in results and (not chosen or name.startswith(tuple(chosen)))


def problems(results: Mapping[str, Any], listed: Listed, threshold: float = THRESHOLD) -> list[str]:
    """Every reason the gate fails, one line each; empty when it passes."""
    lines: list[str] = []
    found = counts(results, listed)
    value = score(found)
    if found["total"] == 0:
        lines.append("no mutant ran: nothing was verified (check --rows and --sample)")
    if value < threshold:
        lines.append(f"score {value:.2%} is below the threshold {threshold:.0%}")
    existing = {mutant["id"]: mutant for mutant in verdicts(results)}
    for name, mutant in existing.items():
        if mutant["status"] in UNDETECTED and name not in listed.mutants and name not in listed.pending:
            lines.append(f"unexplained {mutant['status']} mutant: {name} ({mutant['description']})")
        elif mutant["status"] not in (*DETECTED, *UNDETECTED, SATISFIED):
            lines.append(f"mutant {mutant['status']}: {name}: {mutant.get('killed_by')}")
    lines.extend(
        f"listed mutant no longer exists: {name}; remove it from {EQUIVALENTS}"
        for name in sorted(set(listed.mutants) - set(existing))
        if was_run(name, results)
    )
    lines.extend(
        f"pending mutant no longer exists: {name}; remove it from {EQUIVALENTS}"
        for name in sorted(set(listed.pending) - set(existing))
        if was_run(name, results)
    )
    spec_rows = results.get("spec", {}).get("rows", [])
    for row in spec_rows:
        if not row["mutants"] and row["row_id"] not in listed.rows:
            lines.append(
                f"row without mutants: {row['row_id']} (give it machine-readable fields, or list it)"
            )
        if row["mutants"] and not row["tests"]:
            lines.append(f"row without bound tests: {row['row_id']}")
    lines.extend(
        f"listed row no longer exists or now has mutants: {name}; remove it from {EQUIVALENTS}"
        for name in sorted(set(listed.rows) - {row["row_id"] for row in spec_rows if not row["mutants"]})
        if was_run(name, results)
    )
    return lines


def warnings(results: Mapping[str, Any], listed: Listed) -> list[str]:
    """Listed mutants that tests now kill: the list should shrink, but a kill is never a failure;
    and every pending survivor, with why it waits."""
    lines = [
        f"listed mutant is now {mutant['status']}: {mutant['id']}; remove it from {EQUIVALENTS}"
        for mutant in verdicts(results)
        if (mutant["id"] in listed.mutants or mutant["id"] in listed.pending) and mutant["status"] in DETECTED
    ]
    return lines + [
        f"pending {mutant['status']} mutant: {mutant['id']}: {listed.pending[mutant['id']]}"
        for mutant in verdicts(results)
        if mutant["id"] in listed.pending and mutant["status"] in UNDETECTED
    ]


def report(results: Mapping[str, Any], listed: Listed) -> str:
    found = counts(results, listed)
    spec = results.get("spec", {})
    statements = results.get("statements", {})
    return (
        f"spec-mutation score {score(found):.2%}: {found['killed']} killed, {found['survived']} survived, "
        f"{found['equivalent']} listed equivalent, {found['other']} not run, of {found['total']} mutants; "
        f"{found['satisfied']} probe extensions the implementation already satisfies "
        f"({sum(len(r['mutants']) for r in spec.get('rows', []))} spec mutants over "
        f"{len(spec.get('rows', []))} rows, {len(statements.get('mutants', []))} statement mutants; "
        f"{results.get('seconds', 0)} s){sampled(results.get('sample'))}"
    )


def sampled(drawn: Mapping[str, Any] | None) -> str:
    """The report's note of a sampled run: which sample, so a reader never takes it for the whole."""
    if drawn is None:
        return ""
    return f"; a {drawn['percent']:g} % sample of the rows and guarded functions (seed {drawn['seed']!r})"

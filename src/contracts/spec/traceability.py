"""Traceability: every spec row is bound to a property test and a golden test, and no test names
an id that no spec has. Tests declare the rows they prove with the `spec` pytest marker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

SUITES = ("properties", "golden")


def suite_of(nodeid: str) -> str | None:
    """'properties' or 'golden' from a test's node id (tests/<suite>/...), else None."""
    directories = PurePosixPath(nodeid.split("::")[0]).parts[:-1]
    for suite in SUITES:
        if suite in directories:
            return suite
    return None


def bound_suites(marked: Mapping[str, Iterable[str]]) -> dict[str, set[str]]:
    """spec id -> the suites with a test naming it, from node id -> spec ids of its markers."""
    found: dict[str, set[str]] = {}
    for nodeid, ids in marked.items():
        suite = suite_of(nodeid)
        if suite is not None:
            for spec_id in ids:
                found.setdefault(spec_id, set()).add(suite)
    return found


def problems(spec_ids: Iterable[str], marked: Mapping[str, Iterable[str]]) -> list[str]:
    """Every unbound row (per suite) and every marker naming an unknown id, one line each."""
    known = set(spec_ids)
    bound = bound_suites(marked)
    lines = [
        f"{spec_id}: no {suite} test"
        for spec_id in sorted(known)
        for suite in SUITES
        if suite not in bound.get(spec_id, ())
    ]
    lines.extend(
        f"{nodeid}: names unknown spec id {spec_id!r}"
        for nodeid, ids in sorted(marked.items())
        for spec_id in ids
        if spec_id not in known
    )
    return lines

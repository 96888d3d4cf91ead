"""Traceability: every spec row is bound to a property test and a golden test, and no test names
an id that no spec has. Tests declare the rows they prove with the `spec` pytest marker."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

SUITES = ("properties", "golden")


def suite_of(nodeid: str) -> str | None:
    """'properties' or 'golden' from a test's node id (tests/<suite>/...), else None."""
    parts = nodeid.split("::", 1)[0].split("/")
    for suite in SUITES:
        if suite in parts[:-1]:
            return suite
    return None


def bindings(marked: Mapping[str, Iterable[str]]) -> dict[str, dict[str, set[str]]]:
    """suite -> spec id -> node ids, from node id -> spec ids its markers name."""
    found: dict[str, dict[str, set[str]]] = {suite: {} for suite in SUITES}
    for nodeid, ids in marked.items():
        suite = suite_of(nodeid)
        if suite is None:
            continue
        for spec_id in ids:
            found[suite].setdefault(spec_id, set()).add(nodeid)
    return found


def problems(spec_ids: Iterable[str], marked: Mapping[str, Iterable[str]]) -> list[str]:
    """Every unbound row (per suite) and every marker naming an unknown id, one line each."""
    known = set(spec_ids)
    found = bindings(marked)
    lines = [
        f"{spec_id}: no {suite} test"
        for spec_id in sorted(known)
        for suite in SUITES
        if spec_id not in found[suite]
    ]
    lines.extend(
        f"{nodeid}: names unknown spec id {spec_id!r}"
        for nodeid, ids in sorted(marked.items())
        for spec_id in ids
        if spec_id not in known
    )
    return lines

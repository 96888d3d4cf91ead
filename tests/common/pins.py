"""The shipped adapters' pinned verdicts (tests/verify/shipped_verdicts.json): each row's status and the
reasons a part of it was not applicable, as a whole-spec verify report gives them.

Rewrite the pin from fresh reports (ci profile, the whole spec, torch installed), one per shipped
third-party engine, with `python -m tests.common.pins torch.json micrograd.json jax.json tinygrad.json
autograd.json`; then `python -m tools.docs` rewrites the engine matrix in docs/engines/README.md from it.
"""

from __future__ import annotations

import datetime
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

PIN = Path(__file__).parents[1] / "verify" / "shipped_verdicts.json"
ENGINES = ("torch", "micrograd", "jax", "tinygrad", "autograd")
CI = ("torch", "micrograd")  # installed in tox's py311: their pins are checked in CI
COMMENT = (
    "The shipped adapters' verdict per spec row (contracts verify, hypothesis profile ci, the whole spec), "
    "as measured: the rows by status, and under 'reasons' every row's reasons for the parts that were not "
    "applicable; tests/verify/test_shipped_verdicts.py runs verify again and compares. A change here is a "
    "change in what docs/engines say: rewrite with python -m tests.common.pins torch.json micrograd.json "
    "jax.json tinygrad.json autograd.json, then python -m tools.docs."
)
# torch_peer's reason where the cross-checks' peer is not installed (py312/py313): the one reason that
# depends on the environment rather than on the adapter, so a pin made with torch never holds it
PEER_MISSING = "the cross-check's peer is missing"

Statuses = dict[str, str]
Reasons = dict[str, list[str]]


def verdicts(report: Mapping[str, Any], peer_installed: bool = True) -> tuple[Statuses, Reasons]:
    """Each row's status, and the sorted reasons of every row that has any (without the missing-peer
    reason when the peer is not installed: the pin is made with it)."""
    statuses = {row["id"]: row["status"] for row in report["rows"]}
    reasons = {
        row["id"]: sorted(
            reason for reason in row["reasons"] if peer_installed or not reason.startswith(PEER_MISSING)
        )
        for row in report["rows"]
    }
    return statuses, {row_id: listed for row_id, listed in reasons.items() if listed}


def pinned_engines() -> list[str]:
    """The engines the pin holds."""
    return list(json.loads(PIN.read_text(encoding="utf-8"))["engines"])


def pinned(engine: str, pin: Mapping[str, Any] | None = None) -> tuple[Statuses, Reasons]:
    """The pin's statuses and reasons for one engine."""
    held = json.loads(PIN.read_text(encoding="utf-8")) if pin is None else pin
    statuses = {row_id: status for status, ids in held[engine].items() for row_id in ids}
    return statuses, held["reasons"][engine]


def pin_of(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The pin's content for the given reports, at most one per shipped engine (torch and micrograd
    always: CI checks them)."""
    by_engine = {report["engine"]["name"]: verdicts(report) for report in reports}
    pinned_engines = [engine for engine in ENGINES if engine in by_engine]
    if len(by_engine) != len(reports) or not set(by_engine) <= set(ENGINES) or not set(CI) <= set(by_engine):
        raise SystemExit(
            f"pins: one report for each engine pinned, among {ENGINES} and with {CI}, got {sorted(by_engine)}"
        )
    content: dict[str, Any] = {"_comment": COMMENT, "engines": pinned_engines}
    first = reports[0]
    content["versions"] = {report["engine"]["name"]: report["engine"]["version"] for report in reports}
    content["date"] = str(first.get("date") or datetime.date.today().isoformat())
    content["settings"] = f"hypothesis profile {first['profile']}, the whole spec, verify -n 2"
    for engine in pinned_engines:
        grouped: dict[str, list[str]] = {}
        for row_id, status in sorted(by_engine[engine][0].items()):
            grouped.setdefault(status, []).append(row_id)
        content[engine] = dict(sorted(grouped.items()))
    content["reasons"] = {engine: by_engine[engine][1] for engine in pinned_engines}
    # each claimed level's verdict as verify gave it (the rows up to that level decide it)
    content["levels"] = {
        report["engine"]["name"]: {level: entry["verdict"] for level, entry in report["levels"].items()}
        for report in reports
    }
    return content


def main(paths: Sequence[str]) -> None:
    reports = [json.loads(Path(path).read_text(encoding="utf-8")) for path in paths]
    PIN.write_text(json.dumps(pin_of(reports), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])

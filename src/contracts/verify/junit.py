"""`contracts verify --format junit`: one JUnit test case per spec row, for CI servers.

A CI server shows test cases, not our table, so each spec row becomes a <testcase> (name = row id,
classname = contracts.<engine>.stage<stage>) in a <testsuite> per stage. A failed row carries a
<failure> with its tests' messages and repro commands; a row that is not proven (unbound, skipped)
is a <failure> too, because a CI server counts a skip as harmless; a row that is not applicable or
deselected is <skipped> with the reason; a partly verified row passes, its <system-out> naming the part
the engine could not run. A row above the claimed level decides nothing: if it is not accepted, it is
<skipped> as not claimed, with its status. Each case carries the row's level, category and coverage
(engine checks run / the row's checks) as <properties>.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from contracts.verify.records import FAILED, NOT_APPLICABLE, PASSED
from contracts.verify.report import DESELECTED, PARTLY, Report, RowResult, levels_up_to

HARMLESS = frozenset({NOT_APPLICABLE, DESELECTED})
GREEN = frozenset({PASSED, PARTLY})


def failure_text(row: RowResult) -> str:
    """Every failing test's message and repro; for a row with no failing test, why it is not proven."""
    blocks = [
        f"{test.record.nodeid}\n{test.record.message or ''}\nrepro: {test.repro}" for test in row.failures()
    ]
    return "\n\n".join(blocks) if blocks else f"{row.id} is {row.status}: " + "; ".join(row.reasons)


def testcase(row: RowResult, engine: str, claimed: bool) -> ET.Element:
    case = ET.Element(
        "testcase",
        name=row.id,
        classname=f"contracts.{engine}.stage{row.stage}",
        time=f"{row.duration():.6f}",
    )
    ran, total = row.coverage()
    properties = ET.SubElement(case, "properties")
    for name, value in (("level", row.level), ("category", row.category), ("coverage", f"{ran}/{total}")):
        ET.SubElement(properties, "property", name=name, value=value)
    if not claimed and row.status not in HARMLESS | GREEN:
        ET.SubElement(case, "skipped", message=f"not claimed (level {row.level}): {row.status}")
    elif row.status in HARMLESS:
        reasons = "; ".join(row.reasons)
        ET.SubElement(case, "skipped", message=f"{row.status}: {reasons}" if reasons else row.status)
    elif row.status == PARTLY:
        ET.SubElement(case, "system-out").text = f"{row.status}; not run on this engine: " + "; ".join(
            row.reasons
        )
    elif row.status != PASSED:
        kind = "failed" if row.status == FAILED else "not proven"
        ET.SubElement(case, "failure", message=f"{row.id}: {kind} ({row.status})").text = failure_text(row)
    return case


def suite_element(stage: str, rows: Sequence[RowResult], engine: str, claimed: set[str]) -> ET.Element:
    cases = [testcase(row, engine, row.level in claimed) for row in rows]
    suite = ET.Element(
        "testsuite",
        name=f"contracts {engine} stage {stage}",
        tests=str(len(rows)),
        failures=str(sum(case.find("failure") is not None for case in cases)),
        skipped=str(sum(case.find("skipped") is not None for case in cases)),
        errors="0",
        time=f"{sum(row.duration() for row in rows):.6f}",
    )
    suite.extend(cases)
    return suite


def format_junit(report: Report) -> str:
    engine = str(report.engine["name"])
    stages = sorted({row.stage for row in report.rows})
    root = ET.Element("testsuites", name=f"contracts verify {engine} at level {report.level}")
    claimed = set(levels_up_to(report.level))
    root.extend(
        suite_element(stage, [row for row in report.rows if row.stage == stage], engine, claimed)
        for stage in stages
    )
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

"""The JUnit document in full for a run judged below its top level: the element names a CI server
reads, each suite's total time, and rows above the claim that are green or harmless kept as they are."""

from __future__ import annotations

from contracts.verify.junit import format_junit
from tests.common.reports import GOLDEN, NA, PROPERTY, make_report, record


def row(row_id: str, level: str, kind: str = "rule", category: str = "value") -> dict[str, str]:
    return {
        "id": row_id,
        "title": row_id,
        "kind": kind,
        "stage": row_id[0],
        "level": level,
        "category": category,
    }


ROWS = [
    row("A.grad.ok", "values", "gradient", "gradient"),
    row("A.rule.up", "contract"),
    row("A.rule.na", "contract"),
    row("B.rule.part", "contract", category="order"),
    row("B.rule.free", "contract"),
]
RECORDS = [
    record(PROPERTY.format("ok"), ["A.grad.ok"], duration=0.25),
    record(PROPERTY.format("up"), ["A.rule.up"], duration=0.125),
    record(PROPERTY.format("na"), ["A.rule.na"], "not applicable", reason=NA, examples=None, duration=0.0),
    record(PROPERTY.format("part"), ["B.rule.part"], duration=1.5),
    record(GOLDEN.format("part"), ["B.rule.part"], "not applicable", reason=NA, duration=0.0),
]
JUNIT = """\
<?xml version="1.0" encoding="utf-8"?>
<testsuites name="contracts verify fake at level values">
  <testsuite name="contracts fake stage A" tests="3" failures="0" skipped="1" errors="0" time="0.375000">
    <testcase name="A.grad.ok" classname="contracts.fake.stageA" time="0.250000">
      <properties>
        <property name="level" value="values" />
        <property name="category" value="gradient" />
        <property name="coverage" value="1/1" />
      </properties>
    </testcase>
    <testcase name="A.rule.up" classname="contracts.fake.stageA" time="0.125000">
      <properties>
        <property name="level" value="contract" />
        <property name="category" value="value" />
        <property name="coverage" value="1/1" />
      </properties>
    </testcase>
    <testcase name="A.rule.na" classname="contracts.fake.stageA" time="0.000000">
      <properties>
        <property name="level" value="contract" />
        <property name="category" value="value" />
        <property name="coverage" value="0/1" />
      </properties>
      <skipped message="not applicable: engine does not provide x" />
    </testcase>
  </testsuite>
  <testsuite name="contracts fake stage B" tests="2" failures="0" skipped="1" errors="0" time="1.500000">
    <testcase name="B.rule.part" classname="contracts.fake.stageB" time="1.500000">
      <properties>
        <property name="level" value="contract" />
        <property name="category" value="order" />
        <property name="coverage" value="1/2" />
      </properties>
      <system-out>partly verified; not run on this engine: engine does not provide x</system-out>
    </testcase>
    <testcase name="B.rule.free" classname="contracts.fake.stageB" time="0.000000">
      <properties>
        <property name="level" value="contract" />
        <property name="category" value="value" />
        <property name="coverage" value="0/0" />
      </properties>
      <skipped message="not claimed (level contract): unbound" />
    </testcase>
  </testsuite>
</testsuites>
"""


def test_the_junit_document_of_a_run_judged_at_values_in_full() -> None:
    """<testsuites> holds one <testsuite> per stage with its rows' summed time; above the claimed
    level a passed row stays a bare case, an n/a row is skipped with its reason, a partly verified
    row keeps its note, and only the unbound row is skipped as not claimed."""
    assert JUNIT == format_junit(make_report(RECORDS, spec_rows=ROWS, level="values"))
